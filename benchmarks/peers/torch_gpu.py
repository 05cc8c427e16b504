"""The PyTorch peer on an NVIDIA GPU: transformers' own decode of the same model shape and prompts as laya.

    python -m benchmarks.peers.torch_gpu --model DIR [--contexts 64,1000] [--steps 48] [--out FILE]

DIR is a laya/mlx-lm model directory (config.json of a llama or qwen2 shape); its weights are not read: the
peer builds the same architecture with random bf16 weights on the GPU (a decode step's cost does not depend on
the values). Prompts are the same deterministic token ids benchmarks/decode_step.py feeds laya. Variants:
  eager           transformers' default: the model's forward per token on its dynamic cache
  static-compiled a static cache (fixed-address keys/values) and the one-token step under
                  torch.compile(mode="reduce-overhead", fullgraph=True): Inductor's fused kernels replayed as a
                  CUDA graph, what a serious GPU deployment of transformers runs
Each reports ms/token (median over the decode steps of 3 runs, each step ending with the token read on the host
as an editor's server must), and kernel launches per step (torch.profiler, eager only: a graph replay is one).
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
import traceback
from pathlib import Path
from typing import Any


def _ids(n: int, vocab: int, salt: int = 0) -> list[int]:
    """The prompt decode_step.py gives laya for a context of n tokens."""
    return [(i * 7919 + salt * 104729) % (vocab - 10) + 5 for i in range(n)]


def build(model_dir: Path) -> tuple[Any, Any]:
    import torch
    from transformers import AutoConfig, AutoModelForCausalLM

    raw = json.loads((model_dir / "config.json").read_text())
    keep = ("model_type", "hidden_size", "intermediate_size", "num_hidden_layers", "num_attention_heads",
            "num_key_value_heads", "vocab_size", "rms_norm_eps", "rope_theta", "tie_word_embeddings",
            "max_position_embeddings", "head_dim", "attention_bias")
    cfg = AutoConfig.for_model(**{k: raw[k] for k in keep if k in raw})
    torch.manual_seed(0)
    with torch.device("cuda"):
        model = AutoModelForCausalLM.from_config(cfg, dtype=torch.bfloat16)
    return model.eval(), cfg


def eager(model: Any, prompt: list[int], steps: int) -> list[float]:
    import torch

    times = []
    with torch.inference_mode():
        out = model(torch.tensor([prompt], device="cuda"), use_cache=True)
        past, tok = out.past_key_values, out.logits[:, -1].argmax(-1, keepdim=True)
        for _ in range(steps):
            t = time.perf_counter()
            out = model(tok, past_key_values=past, use_cache=True)
            past, tok = out.past_key_values, out.logits[:, -1].argmax(-1, keepdim=True)
            tok.item()
            times.append(time.perf_counter() - t)
    return times


class StaticCompiled:
    """transformers' static cache with the one-token step compiled (CUDA graphs), as its docs recommend."""

    def __init__(self, model: Any, cfg: Any, max_len: int) -> None:
        import torch
        from transformers import StaticCache

        self.model, self.torch = model, torch
        self.cache = StaticCache(config=cfg, max_cache_len=max_len)
        self.step = torch.compile(self._step, mode="reduce-overhead", fullgraph=True)

    def _step(self, tok: Any, pos: Any) -> Any:
        logits = self.model(tok, position_ids=pos[None], cache_position=pos, past_key_values=self.cache,
                            use_cache=True, return_dict=False)[0]
        return logits[:, -1].argmax(-1, keepdim=True)

    def run(self, prompt: list[int], steps: int) -> list[float]:
        torch = self.torch
        times = []
        with torch.inference_mode():  # (the cache's tensors were made in inference mode: reset them there)
            self.cache.reset()
            n = len(prompt)
            logits = self.model(torch.tensor([prompt], device="cuda"), cache_position=torch.arange(n, device="cuda"),
                                past_key_values=self.cache, use_cache=True, return_dict=False)[0]
            tok = logits[:, -1].argmax(-1, keepdim=True)
            for i in range(steps):
                t = time.perf_counter()
                pos = torch.tensor([n + i], device="cuda")
                tok = self.step(tok, pos).clone()  # a graph replay's output is overwritten by the next replay
                tok.item()
                times.append(time.perf_counter() - t)
        return times


def launches_per_step(model: Any, prompt: list[int], steps: int = 4) -> float:
    """CUDA kernels launched per eager decode step (torch.profiler's device events)."""
    import torch
    from torch.profiler import ProfilerActivity, profile

    with profile(activities=[ProfilerActivity.CUDA]) as prof:
        eager(model, prompt, steps)
    kernels = [e for e in prof.events() if e.device_type == torch.autograd.DeviceType.CUDA]
    return round(len(kernels) / (steps + 1), 1)  # (+1: the prompt's forward)


def median_ms(runs: list[list[float]]) -> float:
    return round(statistics.median([t for r in runs for t in r]) * 1000, 3)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--model", type=Path, required=True)
    p.add_argument("--contexts", default="64,1000")
    p.add_argument("--steps", type=int, default=48)
    p.add_argument("--out", type=Path)
    args = p.parse_args(argv)
    import torch
    import transformers

    model, cfg = build(args.model)
    contexts = [int(c) for c in args.contexts.split(",")]
    res: dict[str, Any] = {"torch": torch.__version__, "transformers": transformers.__version__,
                           "gpu": torch.cuda.get_device_name(), "model": str(args.model), "dtype": "bfloat16",
                           "params": sum(p.numel() for p in model.parameters()), "steps": args.steps, "rows": []}
    for ctx in contexts:
        prompt = _ids(ctx, cfg.vocab_size)
        eager(model, prompt, 4)
        runs = [eager(model, prompt, args.steps) for _ in range(3)]
        res["rows"].append({"variant": "eager", "context": ctx, "ms_per_token": median_ms(runs),
                            "launches_per_step": launches_per_step(model, prompt)})
        print(json.dumps(res["rows"][-1]), flush=True)
    try:
        t = time.perf_counter()
        static = StaticCompiled(model, cfg, max(contexts) + args.steps + 16)
        for ctx in contexts:
            prompt = _ids(ctx, cfg.vocab_size)
            static.run(prompt, 4)  # compiles, then records the CUDA graph
            compile_s = round(time.perf_counter() - t, 1)
            runs = [static.run(prompt, args.steps) for _ in range(3)]
            res["rows"].append({"variant": "static-compiled", "context": ctx, "ms_per_token": median_ms(runs),
                                "first_call_s": compile_s})
            print(json.dumps(res["rows"][-1]), flush=True)
            t = time.perf_counter()
    except Exception as exc:  # noqa: BLE001 - the crash the issue reports: recorded; the eager rows still count
        res["static_error"] = f"{type(exc).__name__}: {exc}"[:2000]
        traceback.print_exc()
    print(json.dumps(res, indent=1))
    if args.out:
        args.out.write_text(json.dumps(res, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

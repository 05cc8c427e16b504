"""The GPU section of the benchmarks: `make bench`'s measurements on an NVIDIA GPU, through MLX's CUDA backend.

    python -m benchmarks.gpu [--out DIR] [--budget 540] [--parts doctor,first,first-start,typing,pauses,decode,torch]

Needs a `pip install 'laya-lsp[cuda]'` environment (on a lent machine without network, benchmarks/gpu_device.sh
stages the wheels; docs/benchmarks.md, "GPU section", says how). Models: the embedded one, and Qwen2.5-Coder-1.5B-
shape models (random weights, bf16 and 4-bit by mlx's own quantize, the embedded tokenizer): the latency of that
shape, not the quality of its text. Every server shares one MLX kernel cache folder (MLX_PTX_CACHE_DIR) under
--models-dir, as a user's processes share theirs. Parts, each step in its own process with a time limit:
  doctor  `laya-lsp doctor --json`: the GPU, MLX's backend, the kernel cache;
  first   a fresh server's first answer (process start -> first completion over stdio) with an empty kernel cache
          (cold) and then with the cache the cold run filled (warm), per model; a first answer that takes more
          than --first-limit seconds counts as timed out;
  first-start  benchmarks/first_start.py per model (not in the default parts): a server's first answer the first
          time ever (its request, sent at once, waits for the load and compiles with $/progress, never empty),
          `laya-lsp warm-up` with the kernels cached and the first time ever, then a server's first answer on the
          kernels warm-up compiled;
  typing  run_all's typing replay through the LSP and the engine alone on the same prompts, per model;
  pauses  `laya-lsp warm-up`, then benchmarks/pause_replay.py (make bench's pauses: the first pause after opening a
          held-out file and resting 1 s mid-file, and every pause, with and without laya/focus), per model;
  decode  benchmarks/decode_step.py --gpu: ms/token of laya's step (read each step / overlapped, the GPU default)
          and mlx-lm's call per context and k, per model; the CUDA graphs and kernel nodes per step;
  torch   benchmarks/peers/torch_gpu.py: transformers eager and static cache + torch.compile(reduce-overhead)
          on the 1.5B shape, same prompts as `decode`.
llama.cpp with CUDA is not built: compiling its CUDA kernels takes longer than a device call allows.
Results land in DIR: one JSON or log per step and DIR/summary.json.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from benchmarks.common import machine
from benchmarks.first_start import STEPS as FIRST_START_STEPS
from benchmarks.shapes import COMMON, QWEN_SHAPES

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_MODEL = ROOT / "laya_lsp" / "models" / "default"
TOKENIZER_FILES = ("tokenizer.json", "tokenizer_config.json", "special_tokens_map.json")
RUN_ALL = [sys.executable, "-m", "benchmarks.run_all", "--quick", "--skip", "llamacpp,profile"]


def make_shape_model(name: str, out: Path, bits: int = 0) -> Path:
    """A model directory of a Qwen2.5-Coder shape: random weights in bf16 (or quantized to `bits` by mlx's own
    quantize, group 64, as mlx_lm.convert does), the embedded model's tokenizer and FIM.

    Embedding rows past the tokenizer's vocabulary are zero, so greedy decoding picks tokens the tokenizer can
    spell (candidates are text, as a real model's are) while every step still reads the whole vocabulary head."""
    import mlx.core as mx
    from mlx.utils import tree_flatten

    from benchmarks.shapes import _build

    base = json.loads((DEFAULT_MODEL / "config.json").read_text())
    model, config = _build({"config": QWEN_SHAPES[name], "dtype": "bf16"})
    embed = model.model.embed_tokens
    keep = (mx.arange(embed.weight.shape[0]) < base["vocab_size"])[:, None]
    embed.weight = mx.where(keep, embed.weight, mx.zeros_like(embed.weight))
    if bits:
        from mlx import nn

        nn.quantize(model, group_size=64, bits=bits)
        config["quantization"] = {"group_size": 64, "bits": bits}
    out.mkdir(parents=True, exist_ok=True)
    mx.save_safetensors(str(out / "model.safetensors"), dict(tree_flatten(model.parameters())))
    config.pop("_params", None)
    config = {**COMMON, **config, "torch_dtype": "bfloat16", "eos_token_id": base["eos_token_id"],
              "laya": base["laya"]}
    (out / "config.json").write_text(json.dumps(config, indent=1))
    for f in TOKENIZER_FILES:
        shutil.copy(DEFAULT_MODEL / f, out / f)
    return out


def run(cmd: list[str], timeout: float, log_path: Path, env: dict[str, str] | None = None) -> dict[str, Any]:
    """Run one step with a time limit; its output goes to `log_path` and the console."""
    t0 = time.perf_counter()
    print(f"$ {' '.join(cmd)}  (limit {timeout:.0f} s)", flush=True)
    with log_path.open("w") as log:
        try:
            proc = subprocess.run(cmd, check=False, stdout=log, stderr=subprocess.STDOUT, timeout=timeout,
                                  cwd=ROOT, env={**os.environ, **(env or {})})
            rc: int | str = proc.returncode
        except subprocess.TimeoutExpired:
            rc = "timeout"
    print(log_path.read_text()[-3000:], flush=True)
    return {"cmd": cmd, "rc": rc, "seconds": round(time.perf_counter() - t0, 1), "log": log_path.name}


def first_answers(model: Path | None, kernels: Path, limit: float, shared: Path) -> dict[str, Any]:
    """A fresh server's first answer with an empty kernel cache, then with the one that run filled (merged into
    `shared` afterwards, the cache later steps use). A cold run gets 3x `limit`: it fills the cache."""
    import asyncio

    from benchmarks.memory import cold_start

    out: dict[str, Any] = {}
    shutil.rmtree(kernels, ignore_errors=True)
    for phase, most in (("cold", 3 * limit), ("warm", limit)):
        os.environ["MLX_PTX_CACHE_DIR"] = str(kernels)
        t = time.perf_counter()
        try:
            out[phase] = asyncio.run(asyncio.wait_for(cold_start(str(model) if model else None), most))
        except (asyncio.TimeoutError, TimeoutError):
            out[phase] = {"timed_out": True, "limit_s": most}
        out[phase]["wall_s"] = round(time.perf_counter() - t, 1)
        out[phase]["kernels_cached"] = len(list(kernels.rglob("*.ptx")))
        print(f"first answer, {phase} kernel cache: {json.dumps(out[phase])}", flush=True)
    shutil.copytree(kernels, shared, dirs_exist_ok=True)
    return out


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--out", type=Path, default=ROOT / "benchmarks" / "results" / "gpu")
    p.add_argument("--budget", type=float, default=540.0, help="seconds for the whole section")
    p.add_argument("--parts", default="doctor,first,typing,decode,torch")
    p.add_argument("--models", default="default,1.5b-4bit", help="of: default, 0.5b-bf16, 1.5b-bf16, 1.5b-4bit")
    p.add_argument("--first-limit", type=float, default=60.0, help="seconds before a first answer counts as late")
    p.add_argument("--models-dir", type=Path, default=Path("/tmp/laya-gpu-models"))
    p.add_argument("--first-start-steps", default=",".join(FIRST_START_STEPS),
                   help="the first-start part's steps (benchmarks/first_start.py --steps)")
    args = p.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    parts = set(args.parts.split(","))
    t0 = time.perf_counter()
    kernels = args.models_dir / "kernels"
    os.environ["MLX_PTX_CACHE_DIR"] = str(kernels)

    def left(share: float) -> float:
        return max(30.0, (args.budget - (time.perf_counter() - t0)) * share)

    summary: dict[str, Any] = {"date": time.strftime("%Y-%m-%dT%H:%M:%S"), "machine": machine(), "steps": {}}
    if "doctor" in parts:
        doctor = subprocess.run([sys.executable, "-m", "laya_lsp", "doctor", "--json"], check=False,
                                capture_output=True, text=True, timeout=120, cwd=ROOT)
        summary["doctor"] = json.loads(doctor.stdout) if doctor.returncode == 0 else {"error": doctor.stderr[-2000:]}
        print(json.dumps(summary["doctor"], indent=1), flush=True)
    models: dict[str, Path | None] = {}
    for name in args.models.split(","):
        if name == "default":
            models[name] = None
            continue
        size, kind = name.split("-")
        t = time.perf_counter()
        models[name] = make_shape_model(f"qwen2.5-coder-{size}-shape", args.models_dir / name,
                                        4 if kind == "4bit" else 0)
        summary.setdefault("build_s", {})[name] = round(time.perf_counter() - t, 1)
    if "first" in parts:
        summary["first_answer"] = {n: first_answers(m, args.models_dir / f"kernels-{n}", args.first_limit, kernels)
                                   for n, m in models.items()}
        os.environ["MLX_PTX_CACHE_DIR"] = str(kernels)
    if "first-start" in parts:  # each model in its own process and kernel folder, sharing what the budget leaves
        for i, (n, m) in enumerate(models.items()):
            cmd = [sys.executable, "-m", "benchmarks.first_start", "--kernels", str(args.models_dir / f"ks-{n}"),
                   "--limit", str(int(3 * args.first_limit)), "--steps", args.first_start_steps,
                   "--out", str(args.out / f"{n}-first-start.json")]
            summary["steps"][f"{n}-first-start"] = run(cmd + (["--model", str(m)] if m else []),
                                                       left(1 / (len(models) - i)), args.out / f"{n}-first-start.log")
        os.environ["MLX_PTX_CACHE_DIR"] = str(kernels)
    steps = [(n, part) for part in ("typing", "pauses", "decode") if part in parts for n in models]
    if "decode" in parts and "1.5b-4bit" in models:
        steps.append(("1.5b-4bit", "graphs"))  # the CUDA graphs and kernel nodes MLX launches per step
    if "torch" in parts:
        steps.append(("1.5b-bf16", "torch"))
    for i, (name, part) in enumerate(steps):
        limit = left(1 / (len(steps) - i))
        model = models.get(name) or (args.models_dir / name)
        stem = f"{name}-{part}"
        if part == "typing":
            cmd = RUN_ALL + ["--only", "typing,peers", "--naive-limit", "1", "--budget", str(int(limit - 30)),
                             "--out", str(args.out / f"{stem}.json")]
            cmd += ["--model", str(model)] if models.get(name) else []
        elif part == "pauses":  # warm-up first: the replay's servers then start with the kernels compiled
            model_args = ["--model", str(model)] if models.get(name) else []
            cmd = ["bash", "-c", " ".join([sys.executable, "-m", "laya_lsp", "warm-up", *model_args, ">/dev/null", "&&",
                                          sys.executable, "-m", "benchmarks.pause_replay", "--no-peer", *model_args])]
        elif part in ("decode", "graphs"):
            cmd = [sys.executable, "benchmarks/decode_step.py", "--gpu", "--repeats", "3" if part == "decode" else "1"]
            cmd += ["--model", str(model)] if models.get(name) else []
            cmd += ["--quick"] if part == "graphs" else []
        else:
            if not (model / "config.json").exists():
                make_shape_model("qwen2.5-coder-1.5b-shape", model)
            cmd = [sys.executable, "-m", "benchmarks.peers.torch_gpu", "--model", str(model),
                   "--out", str(args.out / f"{stem}.json")]
        dots = args.models_dir / "graphs"
        if part == "graphs":
            shutil.rmtree(dots, ignore_errors=True)
            dots.mkdir(parents=True)
        env = {"MLX_SAVE_CUDA_GRAPHS_DOT_FILE": str(dots / "g")} if part == "graphs" else None
        summary["steps"][stem] = run(cmd, limit, args.out / f"{stem}.log", env)
    summary["seconds"] = round(time.perf_counter() - t0, 1)
    name = "summary.json" if "doctor" in parts else f"summary-{'-'.join(sorted(parts))}.json"
    (args.out / name).write_text(json.dumps(summary, indent=1))
    print(f"saved {args.out} in {summary['seconds']} s", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

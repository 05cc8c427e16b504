"""Train a small llama decoder for fill-in-the-middle code completion (PyTorch; GPU if present, else CPU).

  python training/train.py --shape d384-l3 --data training/out/tokens --tokenizer training/out/tokenizer \
      --out training/out/d384-l3 --time-budget 900

Data: the token shards of a folder (tokenizer.py encode); shards that appear there while the run trains are
added as they come (the corpus reaches the GPU machine one device call at a time). Validation: every 200th
document of shard-00, never trained on.

Samples (Bavarian et al. 2022 style, weighted toward what an editor asks for), packed into rows of --seq tokens:
  plain   {code}<|endoftext|>
  PSM     <|fim_prefix|>{prefix}<|fim_suffix|>{suffix}<|fim_middle|>{middle}<|endoftext|>
  SPM     <|fim_prefix|><|fim_suffix|>{suffix}<|fim_middle|>{prefix}{middle}<|endoftext|>   (StarCoder variant)
  repo    <|repo_name|>{pkg}\n<|file_sep|>{path}\n{other file}<|file_sep|>{path}\n{one of the above}
Middles are cut where editors ask: the rest of a line (cursor at line start / after indentation / mid-line), a few
whole lines, the body of a block (cursor at the start of the indented lines under a `:`/`{` line), some random
character spans. Tokens never cross a newline (see tokenizer.py), so cuts at line starts are array slices;
a cut inside a line re-tokenizes just that line's two halves, exactly as the server tokenizes prefix and suffix.
"""
from __future__ import annotations

import argparse
import json
import math
import random
import sys
import time
from collections import deque
from pathlib import Path

import numpy as np
import torch
import torch.nn.functional as F
from tokenizers import Tokenizer
from transformers import LlamaConfig, LlamaForCausalLM

sys.path.insert(0, str(Path(__file__).resolve().parent))
from samples import EOT, FIM_PAD, Corpus, SampleMaker

SHAPES = {  # name: (hidden, layers, heads, kv_heads, intermediate)
    "d192-l4": (192, 4, 3, 3, 512),
    "d256-l4": (256, 4, 4, 4, 768),
    "d384-l3": (384, 3, 6, 6, 1024),
    "d512-l2": (512, 2, 8, 8, 1408),
    "d512-l3": (512, 3, 8, 8, 1408),
    "d512-l4": (512, 4, 8, 8, 1408),
    "d576-l6": (576, 6, 9, 9, 1536),
    "d640-l6": (640, 6, 10, 10, 1728),  # the pause tier (35.0M parameters)
    "d64-l2": (64, 2, 2, 2, 192),  # CPU smoke test
}


PEAK_BF16 = 989.4e12  # H100/H200 SXM dense bf16 FLOP/s: the denominator of the logged `mfu`


class FakeQuant(torch.nn.Module):
    """Quantization-aware training: the weight as MLX's affine quantization (`mlx.core.quantize`, `bits` bits, groups
    of `group` along the last axis, the group's edge value exact) will store it, with a straight-through gradient.
    Trained through this, the weights lose little when the export quantizes them (mlx_lm convert -q)."""

    def __init__(self, bits: int, group: int) -> None:
        super().__init__()
        self.n_bins, self.group = 2 ** bits - 1, group

    def forward(self, w: torch.Tensor) -> torch.Tensor:
        g = w.reshape(-1, self.group)
        w_max, w_min = g.amax(-1, keepdim=True), g.amin(-1, keepdim=True)
        mask = w_min.abs() > w_max.abs()
        scales = ((w_max - w_min) / self.n_bins).clamp_min(1e-7)
        scales = torch.where(mask, scales, -scales)
        edge = torch.where(mask, w_min, w_max)
        q0 = torch.round(edge / scales)
        scales = torch.where(q0 != 0, edge / q0, scales)
        biases = torch.where(q0 == 0, torch.zeros_like(edge), edge)
        q = torch.clamp(torch.round((g - biases) / scales), 0, self.n_bins)
        return w + ((q * scales + biases).reshape(w.shape) - w).detach()


def quantize_aware(model: torch.nn.Module, bits: int, group: int) -> int:
    """Every Linear and the (tied) embedding of `model` trained through FakeQuant; returns how many weights."""
    from torch.nn.utils import parametrize
    n = 0
    for m in model.modules():
        if isinstance(m, (torch.nn.Linear, torch.nn.Embedding)) and m.weight.shape[-1] % group == 0:
            parametrize.register_parametrization(m, "weight", FakeQuant(bits, group))
            n += 1
    return n


def llama_config(shape: str, vocab: int, seq: int) -> LlamaConfig:
    h, n, heads, kv, inter = SHAPES[shape]
    return LlamaConfig(vocab_size=vocab, hidden_size=h, num_hidden_layers=n, num_attention_heads=heads,
                       num_key_value_heads=kv, intermediate_size=inter, max_position_embeddings=seq,
                       rms_norm_eps=1e-5, rope_theta=10000.0, tie_word_embeddings=True, hidden_act="silu",
                       attention_bias=False, mlp_bias=False, bos_token_id=None, eos_token_id=EOT, pad_token_id=FIM_PAD)


class Batches(torch.utils.data.IterableDataset):
    """Batches of packed rows from the training documents; each worker looks for new shards every
    `refresh_s` seconds and from then on samples from them too."""

    def __init__(self, args: argparse.Namespace, seed: int, refresh_s: float = 20.0) -> None:
        self.args, self.seed, self.refresh_s = args, seed, refresh_s

    def __iter__(self):  # type: ignore[override]
        info = torch.utils.data.get_worker_info()
        wid = info.id if info else 0
        corpus = Corpus(Path(self.args.data))
        maker = SampleMaker(corpus, self.args.tokenizer + "/tokenizer.json", corpus.training_docs(),
                            seed=self.seed * 1000 + wid, fim_rate=self.args.fim_rate, spm_rate=self.args.spm_rate,
                            repo_rate=self.args.repo_rate)
        checked = time.time()
        while True:
            if time.time() - checked > self.refresh_s:
                checked = time.time()
                if corpus.refresh():
                    maker.docs = corpus.training_docs()
                    print(json.dumps({"event": "shards", "worker": wid, "shards": corpus.names,
                                      "docs": len(corpus)}), flush=True)
            yield torch.tensor([maker.row(self.args.seq) for _ in range(self.args.batch)], dtype=torch.long)


class Schedule:
    """Warm-up, stable, then decay (WSD; Hägele et al. 2024): lr rises over `warmup` steps, stays at its peak, and
    in the last `decay_frac` of the run falls to zero as 1 - sqrt(progress).

    With a time budget the decay starts by the clock, and its length in steps is fixed then from the step rate of
    the last few hundred steps, so the run ends on time even when its speed changed (another run on the same GPU
    compiling, say). The stable-phase checkpoint (`stable.safetensors`) can be resumed with `--init` for a
    decay-only run."""

    def __init__(self, args: argparse.Namespace, t_start: float) -> None:
        self.args, self.t_start = args, t_start
        self.decay_start = int(args.steps * (1 - args.decay_frac)) if args.steps else None
        self.decay_steps = args.steps - self.decay_start if args.steps else None
        self.times: deque[float] = deque(maxlen=201)  # when the last 201 steps started

    def lr(self, step: int) -> float:
        a = self.args
        self.times.append(time.time())
        timed = len(self.times) > 50  # the rate is known (compile and warm-up are behind)
        if self.decay_start is None and timed and time.time() - self.t_start >= a.time_budget * (1 - a.decay_frac):
            rate = (self.times[-1] - self.times[0]) / max(1, len(self.times) - 1)
            self.decay_start = step
            self.decay_steps = max(10, int((a.time_budget - (time.time() - self.t_start)) / max(rate, 1e-6)))
        if self.decay_start is not None and step >= self.decay_start:
            p = min(1.0, (step - self.decay_start) / self.decay_steps)
            return a.lr * (1 - math.sqrt(p))
        return a.lr * min(1.0, (step + 1) / a.warmup)

    def done(self, step: int) -> bool:
        return self.decay_start is not None and step >= self.decay_start + self.decay_steps


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--shape", default="d256-l4", choices=list(SHAPES))
    ap.add_argument("--data", default="training/out/tokens", help="folder of token shards (tokenizer.py encode)")
    ap.add_argument("--tokenizer", default="training/out/tokenizer")
    ap.add_argument("--out", default="training/out/run")
    ap.add_argument("--seq", type=int, default=1024)
    ap.add_argument("--batch", type=int, default=128)
    ap.add_argument("--lr", type=float, default=3e-3)
    ap.add_argument("--wd", type=float, default=0.1)
    ap.add_argument("--steps", type=int, default=0, help="total steps; 0 = run for --time-budget seconds")
    ap.add_argument("--time-budget", type=float, default=600.0, help="seconds of training when --steps is 0")
    ap.add_argument("--warmup", type=int, default=200, help="warm-up steps")
    ap.add_argument("--decay-frac", type=float, default=0.25, help="last fraction of the run spent decaying lr")
    ap.add_argument("--init", default="", help="start from these weights (a checkpoint of the same shape, or a shipped "
                    "model's model.safetensors, bf16 or mlx-lm 4-bit)")
    ap.add_argument("--fim-rate", type=float, default=0.8)
    ap.add_argument("--spm-rate", type=float, default=0.5)
    ap.add_argument("--repo-rate", type=float, default=0.1)
    ap.add_argument("--workers", type=int, default=4)
    ap.add_argument("--seed", type=int, default=1337)
    ap.add_argument("--compile", action="store_true")
    ap.add_argument("--ckpt-every", type=float, default=120.0, help="seconds between checkpoints")
    ap.add_argument("--qat-bits", type=int, default=0, help="quantization-aware training at the end (0 = off)")
    ap.add_argument("--qat-group", type=int, default=64)
    ap.add_argument("--qat-frac", type=float, default=0.15, help="last fraction of the time budget under QAT")
    args = ap.parse_args()

    torch.manual_seed(args.seed)
    np.random.seed(args.seed)
    random.seed(args.seed)
    dev = "cuda" if torch.cuda.is_available() else "cpu"
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    log = open(out / "log.jsonl", "a")  # noqa: SIM115 - open for the whole run, written by emit()

    def emit(**kw: object) -> None:
        kw["t"] = round(time.time() - t_start, 1)
        print(json.dumps(kw), flush=True)
        log.write(json.dumps(kw) + "\n")
        log.flush()

    t_start = time.time()
    corpus = Corpus(Path(args.data))
    vocab = Tokenizer.from_file(args.tokenizer + "/tokenizer.json").get_vocab_size()
    config = llama_config(args.shape, vocab, args.seq)
    model = LlamaForCausalLM(config)
    if args.init:  # a training checkpoint, or a shipped model (bf16, or 4-bit: dequantized, ckpt_pack.py)
        from ckpt_pack import read_float32
        missing, unexpected = model.load_state_dict({k: torch.from_numpy(v.copy()) for k, v in
                                                     read_float32(Path(args.init)).items()}, strict=False)
        assert not unexpected and set(missing) <= {"lm_head.weight"}, (missing, unexpected)
        model.tie_weights()
    model = model.to(dev)
    n_params = sum(p.numel() for p in model.parameters())
    emit(event="start", shape=args.shape, params=n_params, shards=corpus.names, tokens=corpus.n_tokens(),
         docs=len(corpus), device=dev, args=vars(args))

    decay = [p for n, p in model.named_parameters() if p.dim() >= 2]
    no_decay = [p for n, p in model.named_parameters() if p.dim() < 2]
    opt = torch.optim.AdamW([{"params": decay, "weight_decay": args.wd}, {"params": no_decay, "weight_decay": 0.0}],
                            lr=args.lr, betas=(0.9, 0.95), fused=dev == "cuda")
    fwd = torch.compile(model) if args.compile else model

    loader = iter(torch.utils.data.DataLoader(Batches(args, args.seed), batch_size=None,
                                              num_workers=args.workers, prefetch_factor=4 if args.workers else None,
                                              persistent_workers=args.workers > 0))
    val_maker = SampleMaker(corpus, args.tokenizer + "/tokenizer.json", corpus.validation_docs(), seed=999,
                            fim_rate=args.fim_rate, spm_rate=args.spm_rate, repo_rate=args.repo_rate)
    val = torch.tensor([val_maker.row(args.seq) for _ in range(64 if dev == "cuda" else 8)], dtype=torch.long)
    amp = torch.autocast(dev, dtype=torch.bfloat16) if dev == "cuda" else torch.autocast("cpu", enabled=False)

    def loss_of(m: torch.nn.Module, batch: torch.Tensor) -> torch.Tensor:
        with amp:
            logits = m(input_ids=batch[:, :-1]).logits
        return F.cross_entropy(logits.float().reshape(-1, logits.size(-1)), batch[:, 1:].reshape(-1))

    @torch.no_grad()
    def evaluate() -> float:
        model.eval()
        ls = [loss_of(model, val[i:i + 16].to(dev)).item() for i in range(0, len(val), 16)]
        model.train()
        return float(np.mean(ls))

    def save(tag: str) -> None:
        from safetensors.torch import save_file
        sd = {k.replace(".parametrizations.weight.original", ".weight"): v.detach().to("cpu", torch.bfloat16)
              .contiguous() for k, v in model.state_dict().items()  # the latent weights under QAT
              if not k.startswith("lm_head.")}  # tied to embed_tokens
        save_file(sd, str(out / f"{tag}.tmp"))
        (out / f"{tag}.tmp").rename(out / f"{tag}.safetensors")  # whole or absent: gpu.sh copies it any time
        (out / "config.json").write_text(config.to_json_string())

    h, n_layers = config.hidden_size, config.num_hidden_layers
    flops_per_token = 6 * n_params + 12 * n_layers * h * args.seq  # weights (lm_head incl.) + attention, fwd+bwd
    sched = Schedule(args, t_start)
    qat_on = False
    step, t_train, last_ckpt, tok_seen = 0, time.time(), time.time(), 0
    last_emit = (time.time(), 0)  # (time, tokens) of the last train line: the recent rate excludes compiling
    while not sched.done(step):
        lr = sched.lr(step)
        if sched.decay_start == step:
            save("stable")  # the stable-phase weights: resume with --init for another decay
            emit(event="decay", step=step, decay_steps=sched.decay_steps)
        if args.qat_bits and not qat_on and (time.time() - t_start >= args.time_budget * (1 - args.qat_frac)
                                             or (args.steps and step >= args.steps * (1 - args.qat_frac))):
            save("preqat")  # the weights before quantization-aware training
            n_fq = quantize_aware(model, args.qat_bits, args.qat_group)
            qat_on = True
            if fwd is not model:
                fwd = torch.compile(model)  # a fresh graph with the fake quantization in it
            emit(event="qat", step=step, bits=args.qat_bits, group=args.qat_group, weights=n_fq,
                 val_loss_quantized=round(evaluate(), 4))  # against the last val line: what 4 bits cost then
        for g in opt.param_groups:
            g["lr"] = lr
        batch = next(loader).to(dev, non_blocking=True)
        opt.zero_grad(set_to_none=True)
        try:
            loss = loss_of(fwd, batch)
            loss.backward()
        except Exception as e:  # torch.compile trouble on an unknown machine: fall back to eager, keep training
            if fwd is model:
                raise
            emit(event="compile_failed", step=step, error=repr(e)[:300])
            fwd = model
            opt.zero_grad(set_to_none=True)
            loss = loss_of(fwd, batch)
            loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
        step += 1
        tok_seen += batch.numel()
        if step % 50 == 0 or step == 1:
            loss_v, now = loss.item(), time.time()  # .item() waits for the step: the rate is the GPU's
            recent = (tok_seen - last_emit[1]) / max(1e-9, now - last_emit[0])
            last_emit = (now, tok_seen)
            emit(event="train", step=step, loss=round(loss_v, 4), lr=round(lr, 6), tokens=tok_seen,
                 tok_per_s=round(tok_seen / (now - t_train)), tok_per_s_recent=round(recent),
                 mfu=round(recent * flops_per_token / PEAK_BF16, 3))
        if step % 500 == 0:
            emit(event="val", step=step, val_loss=round(evaluate(), 4))
        if time.time() - last_ckpt > args.ckpt_every:
            save("latest")
            last_ckpt = time.time()
    emit(event="val", step=step, val_loss=round(evaluate(), 4))
    save("final")
    emit(event="done", step=step, tokens=tok_seen, wall_s=round(time.time() - t_start, 1))


if __name__ == "__main__":
    main()

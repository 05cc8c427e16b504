"""Train a small llama decoder for fill-in-the-middle code completion (PyTorch; GPU if present, else CPU).

  python training/train.py --shape d256-l4 --tokens training/data/tokens.bin.xz --tokenizer training/out/tokenizer \
      --out training/out/d256-l4 --time-budget 900

Samples (Bavarian et al. 2022 style, weighted toward what an editor asks for), packed into rows of --seq tokens:
  plain   {code}<|endoftext|>
  PSM     <|fim_prefix|>{prefix}<|fim_suffix|>{suffix}<|fim_middle|>{middle}<|endoftext|>
  SPM     <|fim_prefix|><|fim_suffix|>{suffix}<|fim_middle|>{prefix}{middle}<|endoftext|>   (StarCoder variant)
  repo    <|repo_name|>{pkg}\n<|file_sep|>{path}\n{other file}<|file_sep|>{path}\n{one of the above}
Middles are mostly the rest of a line (cursor at line start / after indentation / mid-line) or a few whole lines, some
random character spans. Tokens never cross a newline (see tokenizer.py), so cuts at line starts are array slices;
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
from tokenizer import load_tokens

EOT, FIM_PREFIX, FIM_MIDDLE, FIM_SUFFIX, FIM_PAD, REPO_NAME, FILE_SEP = range(7)
SHAPES = {  # name: (hidden, layers, heads, kv_heads, intermediate)
    "d192-l4": (192, 4, 3, 3, 512),
    "d256-l4": (256, 4, 4, 4, 768),
    "d384-l3": (384, 3, 6, 6, 1024),
    "d512-l2": (512, 2, 8, 8, 1408),
    "d64-l2": (64, 2, 2, 2, 192),  # CPU smoke test
}


def llama_config(shape: str, vocab: int, seq: int) -> LlamaConfig:
    h, n, heads, kv, inter = SHAPES[shape]
    return LlamaConfig(vocab_size=vocab, hidden_size=h, num_hidden_layers=n, num_attention_heads=heads,
                       num_key_value_heads=kv, intermediate_size=inter, max_position_embeddings=seq,
                       rms_norm_eps=1e-5, rope_theta=10000.0, tie_word_embeddings=True, hidden_act="silu",
                       attention_bias=False, mlp_bias=False, bos_token_id=None, eos_token_id=EOT, pad_token_id=FIM_PAD)


class SampleMaker:
    """Turns documents (token arrays) into training samples. Pure numpy + the tokenizer; one per data worker."""

    def __init__(self, tokens: np.ndarray, offsets: np.ndarray, meta: list, tokenizer_path: str, docs: np.ndarray,
                 seed: int, fim_rate: float = 0.8, spm_rate: float = 0.5, repo_rate: float = 0.1) -> None:
        self.tokens, self.offsets, self.meta, self.docs = tokens, offsets, meta, docs
        self.tok = Tokenizer.from_file(tokenizer_path)
        vocab = self.tok.get_vocab_size()
        self.piece = [self.tok.decode([i], skip_special_tokens=False).encode() for i in range(vocab)]
        # byte-exact pieces: ByteLevel decode of a lone token can be a partial UTF-8 sequence -> use the byte map
        from tokenizers import decoders  # noqa: F401  (documented dependency)
        byte_dec = {c: b for b, c in _bytes_to_unicode().items()}
        for t, i in self.tok.get_vocab().items():
            if i >= 7:
                self.piece[i] = bytes(byte_dec[c] for c in t)
        self.ends_nl = np.array([p.endswith(b"\n") for p in self.piece], dtype=bool)
        self.ends_nl[:7] = False
        self.rng = random.Random(seed)
        self.fim_rate, self.spm_rate, self.repo_rate = fim_rate, spm_rate, repo_rate

    def enc(self, s: str) -> list[int]:
        return self.tok.encode(s, add_special_tokens=False).ids if s else []

    def window(self, d: int, max_tokens: int) -> list[np.ndarray]:
        """A random run of whole lines of document d with at most max_tokens tokens, as one array per line."""
        t = self.tokens[self.offsets[d]:self.offsets[d + 1]]
        starts = np.concatenate([[0], np.nonzero(self.ends_nl[t])[0] + 1])
        starts = starts[starts < len(t)]
        bounds = np.append(starts, len(t))
        if len(t) > max_tokens:
            a = self.rng.randrange(len(starts))
            lo = int(starts[a])
            b = int(np.searchsorted(bounds, lo + max_tokens, side="right")) - 1
            b = max(b, a + 1)
        else:
            a, b = 0, len(starts)
        return [t[bounds[i]:bounds[i + 1]][:max_tokens] for i in range(a, b)]

    def line_text(self, line: np.ndarray) -> str:
        return b"".join(self.piece[i] for i in line).decode("utf-8", errors="replace")

    def cut(self, lines: list[np.ndarray], l1: int, c1: int, l2: int, c2: int) -> tuple[list[int], list[int], list[int]]:
        """Split window at (line l1, char c1) and (line l2, char c2) into prefix, middle, suffix token lists."""
        def cat(ls: list[np.ndarray]) -> list[int]:
            return np.concatenate(ls).tolist() if ls else []

        t1 = self.line_text(lines[l1])
        if l1 == l2:
            pre = cat(lines[:l1]) + self.enc(t1[:c1])
            mid = self.enc(t1[c1:c2])
            suf = self.enc(t1[c2:]) + cat(lines[l1 + 1:])
        else:
            t2 = self.line_text(lines[l2])
            pre = cat(lines[:l1]) + (self.enc(t1[:c1]) if c1 else [])
            mid = (self.enc(t1[c1:]) if c1 else lines[l1].tolist()) + cat(lines[l1 + 1:l2]) + self.enc(t2[:c2])
            suf = self.enc(t2[c2:]) + cat(lines[l2 + 1:])
        return pre, mid, suf

    def fim_points(self, lines: list[np.ndarray]) -> tuple[int, int, int, int]:
        r = self.rng.random()
        n = len(lines)
        l1 = self.rng.randrange(n)
        t1 = self.line_text(lines[l1])
        body = t1.rstrip("\n")
        indent = len(body) - len(body.lstrip())
        u = self.rng.random()
        c1 = 0 if u < 0.35 else indent if u < 0.75 else self.rng.randint(indent, len(body))
        if r < 0.5:  # rest of one line, with or without its newline
            return l1, c1, l1, len(t1) if self.rng.random() < 0.5 else len(body)
        if r < 0.8:  # a block of whole lines, ending at a line end
            l2 = min(n - 1, l1 + self.rng.randint(1, 8))
            return l1, c1, l2, len(self.line_text(lines[l2]))
        # random character span (Bavarian et al.), at most ~1/3 of the window
        l2 = min(n - 1, l1 + self.rng.randint(0, max(1, n // 3)))
        t2 = self.line_text(lines[l2])
        c2 = self.rng.randint(0, len(t2)) if l2 > l1 else self.rng.randint(c1, len(t1))
        return l1, c1, l2, c2

    def sample(self, max_tokens: int) -> list[int]:
        d = int(self.docs[self.rng.randrange(len(self.docs))])
        head: list[int] = []
        if self.rng.random() < self.repo_rate:
            src, path, _ = self.meta[d]
            other = d + self.rng.choice([-2, -1, 1, 2])
            if 0 <= other < len(self.meta) and self.meta[other][0] == src:
                ctx = self.window(other, max_tokens // 3)
                name = src.split("-")[0]
                head = [REPO_NAME] + self.enc(name + "\n") + [FILE_SEP] + self.enc(self.meta[other][1] + "\n")
                head += np.concatenate(ctx).tolist() if ctx else []
                head += [FILE_SEP] + self.enc(path + "\n")
        lines = self.window(d, max(32, max_tokens - len(head)))
        if not lines:
            return head + [EOT]
        if self.rng.random() >= self.fim_rate:
            return head + np.concatenate(lines).tolist() + [EOT]
        pre, mid, suf = self.cut(lines, *self.fim_points(lines))
        if self.rng.random() < self.spm_rate:
            return head + [FIM_PREFIX, FIM_SUFFIX] + suf + [FIM_MIDDLE] + pre + mid + [EOT]
        return head + [FIM_PREFIX] + pre + [FIM_SUFFIX] + suf + [FIM_MIDDLE] + mid + [EOT]

    def row(self, seq: int) -> list[int]:
        out: list[int] = []
        while len(out) < seq + 1:
            out += self.sample(self.rng.randint(seq // 8, seq))
        return out[: seq + 1]


def _bytes_to_unicode() -> dict[int, str]:
    """GPT-2's byte <-> printable-unicode map used by ByteLevel BPE."""
    bs = list(range(ord("!"), ord("~") + 1)) + list(range(ord("¡"), ord("¬") + 1)) + list(range(ord("®"), ord("ÿ") + 1))
    cs = bs[:]
    n = 0
    for b in range(256):
        if b not in bs:
            bs.append(b)
            cs.append(256 + n)
            n += 1
    return dict(zip(bs, map(chr, cs)))


class Batches(torch.utils.data.IterableDataset):
    def __init__(self, args: argparse.Namespace, docs: np.ndarray, seed: int) -> None:
        self.args, self.docs, self.seed = args, docs, seed

    def __iter__(self):  # type: ignore[override]
        info = torch.utils.data.get_worker_info()
        wid = info.id if info else 0
        tokens, offsets, meta = DATA_CACHE
        maker = SampleMaker(tokens, offsets, meta, self.args.tokenizer + "/tokenizer.json", self.docs,
                            seed=self.seed * 1000 + wid, fim_rate=self.args.fim_rate, spm_rate=self.args.spm_rate,
                            repo_rate=self.args.repo_rate)
        while True:
            yield torch.tensor([maker.row(self.args.seq) for _ in range(self.args.batch)], dtype=torch.long)


DATA_CACHE: tuple = ()


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
    global DATA_CACHE
    ap = argparse.ArgumentParser()
    ap.add_argument("--shape", default="d256-l4", choices=list(SHAPES))
    ap.add_argument("--tokens", default="training/data/tokens.bin.xz")
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
    ap.add_argument("--init", default="", help="start from these weights (a checkpoint of the same shape)")
    ap.add_argument("--fim-rate", type=float, default=0.8)
    ap.add_argument("--spm-rate", type=float, default=0.5)
    ap.add_argument("--repo-rate", type=float, default=0.1)
    ap.add_argument("--workers", type=int, default=4)
    ap.add_argument("--seed", type=int, default=1337)
    ap.add_argument("--compile", action="store_true")
    ap.add_argument("--ckpt-every", type=float, default=120.0, help="seconds between checkpoints")
    args = ap.parse_args()

    torch.manual_seed(args.seed)
    np.random.seed(args.seed)
    random.seed(args.seed)
    dev = "cuda" if torch.cuda.is_available() else "cpu"
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    log = open(out / "log.jsonl", "a")

    def emit(**kw: object) -> None:
        kw["t"] = round(time.time() - t_start, 1)
        print(json.dumps(kw), flush=True)
        log.write(json.dumps(kw) + "\n")
        log.flush()

    t_start = time.time()
    DATA_CACHE = load_tokens(Path(args.tokens))
    tokens, offsets, meta = DATA_CACHE
    n_docs = len(offsets) - 1
    val_docs = np.arange(0, n_docs, 200)  # every 200th document is validation, never trained on
    train_docs = np.setdiff1d(np.arange(n_docs), val_docs)
    train_docs = train_docs[np.diff(offsets)[train_docs] > 0]  # a subset file (tokenizer.py subset) empties some
    vocab = Tokenizer.from_file(args.tokenizer + "/tokenizer.json").get_vocab_size()
    config = llama_config(args.shape, vocab, args.seq)
    model = LlamaForCausalLM(config)
    if args.init:
        from safetensors.torch import load_file
        missing, unexpected = model.load_state_dict({k: v.float() for k, v in load_file(args.init).items()},
                                                    strict=False)
        assert not unexpected and set(missing) <= {"lm_head.weight"}, (missing, unexpected)
        model.tie_weights()
    model = model.to(dev)
    n_params = sum(p.numel() for p in model.parameters())
    emit(event="start", shape=args.shape, params=n_params, tokens=len(tokens), docs=n_docs, device=dev,
         args=vars(args))

    decay = [p for n, p in model.named_parameters() if p.dim() >= 2]
    no_decay = [p for n, p in model.named_parameters() if p.dim() < 2]
    opt = torch.optim.AdamW([{"params": decay, "weight_decay": args.wd}, {"params": no_decay, "weight_decay": 0.0}],
                            lr=args.lr, betas=(0.9, 0.95), fused=dev == "cuda")
    fwd = torch.compile(model) if args.compile else model

    loader = iter(torch.utils.data.DataLoader(Batches(args, train_docs, args.seed), batch_size=None,
                                              num_workers=args.workers, prefetch_factor=4 if args.workers else None,
                                              persistent_workers=args.workers > 0))
    val_maker = SampleMaker(tokens, offsets, meta, args.tokenizer + "/tokenizer.json", val_docs, seed=999,
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
        sd = {k: v.detach().to("cpu", torch.bfloat16).contiguous() for k, v in model.state_dict().items()
              if k != "lm_head.weight"}  # tied to embed_tokens
        save_file(sd, str(out / f"{tag}.safetensors"))
        (out / "config.json").write_text(config.to_json_string())

    sched = Schedule(args, t_start)
    step, t_train, last_ckpt, tok_seen = 0, time.time(), time.time(), 0
    while not sched.done(step):
        lr = sched.lr(step)
        if sched.decay_start == step:
            save("stable")  # the stable-phase weights: resume with --init for another decay
            emit(event="decay", step=step, decay_steps=sched.decay_steps)
        for g in opt.param_groups:
            g["lr"] = lr
        batch = next(loader).to(dev, non_blocking=True)
        try:
            loss = loss_of(fwd, batch)
        except Exception as e:  # torch.compile trouble on an unknown machine: fall back to eager, keep training
            if fwd is model:
                raise
            emit(event="compile_failed", error=repr(e)[:300])
            fwd = model
            loss = loss_of(fwd, batch)
        opt.zero_grad(set_to_none=True)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
        step += 1
        tok_seen += batch.numel()
        if step % 50 == 0 or step == 1:
            emit(event="train", step=step, loss=round(loss.item(), 4), lr=round(lr, 6), tokens=tok_seen,
                 tok_per_s=round(tok_seen / (time.time() - t_train)))
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

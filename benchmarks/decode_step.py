"""The decode step side by side in one run: mlx-lm's plain step vs laya's compiled step, k=1 vs k=5, context 64
and ~1000, in ms/token and times the memory floor; what each part of the step buys; where the step's time goes.

    python benchmarks/decode_step.py [--model DIR] [--quick] [--repeats N] [--step-only]

Variants, each measured per step (its own wall time, median over all steps of all repeats; repeats interleave the
variants so a load spike on the shared machine hits them alike):
  mlx-lm         the model's own call on mlx-lm's KVCache (k > 1: k copies of the cache, mlx-lm's batched
                 generation), log-softmax + argmax: the engine's previous decode step
  laya           the decode core's branch step through the adapter (compiled fixed-shape step, branches sharing
                 the prompt in place; on a GPU with the server's fixed shapes, engine/loading/model.py
                 WarmPlan)
  laya-eager     the same step without mx.compile: what compiling buys
  laya-overlap   the compiled step driven like mlx-lm's generate_step (build step n+1, async_eval, then read step
                 n): what overlapping buys (the decode core reads each step at once; one step fewer at the end)
Keystroke: a 2-token prompt tail then the first token: mlx-lm's separate prefill (backbone, then the last
token through the head) vs laya's tail folded into one step. Documents: 4 documents' k=1 steps as 4 steps vs
one batched step. Floor: the bytes of weights a step reads / measured read bandwidth (benchmarks/shapes.py).
`--step-only` measures laya's step and a 512-token prefill only and prints them as one JSON line: what
`benchmarks/blas_matmul.py --decode` runs once per BLAS library, each in its own process.
"""

from __future__ import annotations

import os
import sys

# benchmarks/typing.py shadows the standard library's `typing` while this folder is on sys.path (as it is
# for scripts run from here): take it off before anything imports `typing`.
_HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:] = [p for p in sys.path if os.path.abspath(p or ".") != _HERE]

import argparse
import json
import statistics
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))


PREFILL_TOKENS = 512  # a file's prefix window, prefilled in the engine's 256-token chunks


def _ids(n: int, vocab: int, salt: int = 0) -> list[int]:
    return [(i * 7919 + salt * 104729) % (vocab - 10) + 5 for i in range(n)]


def _median(xs: list[float]) -> float:
    return round(statistics.median(xs), 3) if xs else 0.0


class Bench:
    """One model, its adapters (compiled and eager) and prefilled documents to decode from."""

    def __init__(self, model_dir: str) -> None:
        import mlx.core as mx

        from laya_lsp.device import device_defaults, mlx_device_kind
        from laya_lsp.engine import EngineSettings
        from laya_lsp.engine.decoding.adapter import StepModel, decode_model
        from laya_lsp.engine.loading.model import load_model

        self.lm = load_model(model_dir)
        self.model = self.lm.model
        self.vocab = int(self.lm.config["vocab_size"])
        self.compiled = decode_model(self.model)
        self.eager = StepModel(self.model, compiled=False) if isinstance(self.compiled, StepModel) else None
        plan = EngineSettings().warm_plan(device_defaults(mlx_device_kind()).fixed_shapes)
        if plan.fixed and isinstance(self.compiled, StepModel):  # the server's shapes on this device
            for dm in (self.compiled, self.eager):
                assert dm is not None  # (a StepModel's eager twin)
                dm.fix_shapes(plan.capacity, plan.prefill_chunk)
        self.mx = mx

    def doc(self, ctx: int, salt: int = 0) -> Any:
        """A document whose cache holds `ctx` prompt tokens, and the logits after them."""
        from mlx_lm.models.cache import make_prompt_cache

        from laya_lsp.engine.caches.prompt_caches import DocumentCache
        from laya_lsp.engine.decoding.decode import CancelToken, prefill_chunked

        doc = DocumentCache(make_prompt_cache(self.model))
        pre = prefill_chunked(self.model, doc, _ids(ctx, self.vocab, salt), 256, CancelToken())
        return doc, pre.logits

    # -- per-step timers: each returns the wall time of every step -------------------------------------------
    def mlx_lm(self, ctx: int, k: int, steps: int) -> list[float]:
        from laya_lsp.engine.decoding.adapter import repeat_cache

        mx = self.mx
        doc, _ = self.doc(ctx)
        cache = doc.layers if k == 1 else repeat_cache(doc, k)
        tok = mx.array([[7]] * k)
        times = []
        for _ in range(steps):
            t = time.perf_counter()
            logits = self.model(tok, cache=cache)[:, -1, :]
            lp = logits - mx.logsumexp(logits, axis=-1, keepdims=True)
            nxt = mx.argmax(lp, axis=-1)
            chosen = mx.take_along_axis(lp, nxt[:, None], axis=-1)[:, 0]
            mx.eval(nxt, chosen)
            nxt.tolist(), chosen.tolist()
            tok = nxt[:, None]
            times.append(time.perf_counter() - t)
        return times

    def laya(self, ctx: int, k: int, steps: int, eager: bool = False) -> list[float]:
        from laya_lsp.engine.decoding.decode import CancelToken, DecodeSettings, branch_steps, first_tokens

        dm = self.eager if eager else self.compiled
        assert dm is not None, "no eager step for this architecture"
        doc, logits = self.doc(ctx)
        s = DecodeSettings(k=k, max_tokens=steps + 1)
        coro = branch_steps(dm, doc, *first_tokens(logits, s), s, CancelToken())
        work, times = next(coro), []
        try:
            while True:
                t = time.perf_counter()
                assert work is not None  # (branch steps always ask for a step)
                work = coro.send(dm.forward([work])[0])
                times.append(time.perf_counter() - t)
        except StopIteration:
            times.append(time.perf_counter() - t)  # the last step ends the coroutine
        return times

    def laya_overlap(self, ctx: int, k: int, steps: int, dm: Any = None) -> list[float]:
        from laya_lsp.engine.decoding.adapter import BranchStep

        mx, dm = self.mx, dm or self.compiled
        doc, _ = self.doc(ctx)
        state = dm.open(doc, k, steps + 1)
        tokens, pending, times = mx.array([7] * k, dtype=mx.int32), None, []
        for _ in range(steps + 1):
            t = time.perf_counter()
            out = dm.forward([BranchStep(state, tokens)])[0]
            lp = out - mx.logsumexp(out, axis=-1, keepdims=True)
            nxt = mx.argmax(lp, axis=-1).astype(mx.int32)
            mx.async_eval(nxt)
            if pending is not None:
                pending.tolist()
                times.append(time.perf_counter() - t)
            pending, tokens = nxt, nxt
        dm.close(state)
        return times

    def keystroke(self, ctx: int, fold: bool, new: int = 2) -> float:
        """Seconds from a keystroke's `new` prompt tokens to the first token's logits (evaluated)."""
        from laya_lsp.engine.decoding.adapter import backbone
        from laya_lsp.engine.decoding.decode import CancelToken, run_alone, warm_steps

        mx = self.mx
        doc, _ = self.doc(ctx)
        extra = _ids(new, self.vocab, salt=3)
        t = time.perf_counter()
        if fold:
            run_alone(self.compiled, warm_steps(self.compiled, doc, doc.ids + extra, CancelToken(), 128))
        else:
            body = backbone(self.model)
            assert body is not None, "a model without a known backbone"
            if new > 1:
                mx.eval(body(mx.array(extra[:-1])[None], cache=doc.layers))
            mx.eval(self.model(mx.array(extra[-1:])[None], cache=doc.layers)[0, -1])
        return time.perf_counter() - t

    def documents(self, ctx: int, n: int, batched: bool) -> float:
        """Seconds for one k=1 step of each of `n` documents: one batched step, or one step each."""
        from laya_lsp.engine.decoding.adapter import BranchStep

        mx, dm = self.mx, self.compiled
        docs = [self.doc(ctx, salt=i)[0] for i in range(n)]
        states = [dm.open(d, 1, 4) for d in docs]
        work = [BranchStep(s, mx.array([7], dtype=mx.int32)) for s in states]
        dm.forward(work) if batched else [dm.forward([w]) for w in work]  # the first step traces
        work = [BranchStep(s, mx.array([8], dtype=mx.int32)) for s in states]
        t = time.perf_counter()
        if batched:
            mx.eval(dm.forward(work))
        else:
            for w in work:
                mx.eval(dm.forward([w]))
        return time.perf_counter() - t


def run_decode(model_dir: str, quick: bool = False, repeats: int | None = None,
               log: Callable[[str], Any] = print) -> dict[str, Any]:
    """Everything the module docstring lists, as one dict (also logged as a table)."""
    from benchmarks.common import named_parameters
    from benchmarks.shapes import decode_breakdown, measure_bandwidth

    repeats = repeats or (2 if quick else 5)
    steps = 8 if quick else 16
    contexts = (64, 1000)
    bench = Bench(model_dir)
    bw = measure_bandwidth(256 if quick else 512)
    weight_bytes = sum(v.nbytes for _, v in named_parameters(bench.model))
    floor_ms = weight_bytes / (bw["gbs"] * 1e9) * 1000
    variants: dict[str, Callable[[int, int], list[float]]] = {
        "mlx-lm": lambda c, k: bench.mlx_lm(c, k, steps),
        "laya": lambda c, k: bench.laya(c, k, steps),
    }
    if bench.eager is not None:
        variants["laya-eager"] = lambda c, k: bench.laya(c, k, steps, eager=True)
        variants["laya-overlap"] = lambda c, k: bench.laya_overlap(c, k, steps)
    for name, fn in variants.items():  # warm every shape once (traces, page-in) before timing
        for c in contexts:
            for k in (1, 5):
                fn(c, k)
    samples: dict[tuple[str, int, int], list[float]] = {}
    keys: dict[tuple[bool, int], list[float]] = {}
    docs: dict[tuple[bool, int], list[float]] = {}
    for _ in range(repeats):
        for c in contexts:
            for k in (1, 5):
                for name, fn in variants.items():
                    samples.setdefault((name, c, k), []).extend(s * 1000 for s in fn(c, k))
            if bench.eager is not None:
                for fold in (False, True):
                    keys.setdefault((fold, c), []).append(bench.keystroke(c, fold) * 1000)
                for batched in (False, True):
                    docs.setdefault((batched, c), []).append(bench.documents(c, 4, batched) * 1000)
    rows = []
    for (name, c, k), ms in sorted(samples.items(), key=lambda x: (x[0][1], x[0][2], x[0][0])):
        rows.append({"variant": name, "context": c, "k": k, "ms_per_token": _median(ms), "min_ms": round(min(ms), 3),
                     "x_floor": round(_median(ms) / floor_ms, 2), "steps": len(ms)})
    by = {(r["variant"], r["context"], r["k"]): r["ms_per_token"] for r in rows}
    ratios = {}
    for c in contexts:
        ratios[f"laya/mlx-lm k=1 ctx{c}"] = round(by[("laya", c, 1)] / by[("mlx-lm", c, 1)], 3)
        ratios[f"laya k5/k1 ctx{c}"] = round(by[("laya", c, 5)] / by[("laya", c, 1)], 3)
        ratios[f"mlx-lm k5/k1 ctx{c}"] = round(by[("mlx-lm", c, 5)] / by[("mlx-lm", c, 1)], 3)
        if bench.eager is not None:
            ratios[f"compiled/eager k=1 ctx{c}"] = round(by[("laya", c, 1)] / by[("laya-eager", c, 1)], 3)
            ratios[f"overlap/sync k=1 ctx{c}"] = round(by[("laya-overlap", c, 1)] / by[("laya", c, 1)], 3)
            ratios[f"keystroke fold/separate ctx{c}"] = round(_median(keys[(True, c)]) / _median(keys[(False, c)]), 3)
            ratios[f"4 documents batched/one by one ctx{c}"] = round(_median(docs[(True, c)])
                                                                     / _median(docs[(False, c)]), 3)
    out: dict[str, Any] = {
        "model": {"path": model_dir, "params": bench.lm.n_params, "dtype": bench.lm.dtype,
                  "adapter": type(bench.compiled).__name__, "weight_bytes": weight_bytes},
        "bandwidth_gbs": bw["gbs"], "floor_ms_per_token": round(floor_ms, 3), "repeats": repeats,
        "steps_per_run": steps, "rows": rows, "ratios": ratios,
        "keystroke_ms": {f"{'fold' if f else 'separate'} ctx{c}": _median(v) for (f, c), v in keys.items()},
        "four_documents_ms": {f"{'batched' if b else 'one by one'} ctx{c}": _median(v) for (b, c), v in docs.items()},
        "load_average": [round(x, 2) for x in os.getloadavg()],
    }
    log(f"floor {floor_ms:.2f} ms/token ({weight_bytes / 2**20:.1f} MiB at {bw['gbs']} GB/s); "
        f"load average {out['load_average']}")
    for r in rows:
        log(f"  {r['variant']:<13} ctx {r['context']:>5} k={r['k']}  {r['ms_per_token']:7.2f} ms/token "
            f"(min {r['min_ms']:.2f}, {r['x_floor']}x floor, {r['steps']} steps)")
    for name, v in {**ratios, **out["keystroke_ms"], **out["four_documents_ms"]}.items():
        log(f"  {name}: {v}")
    out["breakdown"] = decode_breakdown(model_dir, reps=20 if quick else 50)
    log(f"step op by op: {json.dumps(out['breakdown'])}")
    return out


def run_step_only(model_dir: str, repeats: int, steps: int) -> dict[str, Any]:
    """laya's step (ms/token, median over all steps) at each context and k, and prefill tokens/s."""
    from benchmarks.common import named_parameters

    bench = Bench(model_dir)
    cases = [(c, k) for c in (64, 1000) for k in (1, 5)]
    for c, k in cases:  # warm every shape once (traces, page-in) before timing
        bench.laya(c, k, steps)
    samples: dict[tuple[int, int], list[float]] = {}
    prefill_s = []
    for _ in range(repeats):
        for c, k in cases:
            samples.setdefault((c, k), []).extend(s * 1000 for s in bench.laya(c, k, steps))
        t = time.perf_counter()
        bench.mx.eval(bench.doc(PREFILL_TOKENS, salt=1)[1])
        prefill_s.append(time.perf_counter() - t)
    return {"ms_per_token": {f"ctx{c} k={k}": _median(v) for (c, k), v in samples.items()},
            "prefill_tokens": PREFILL_TOKENS,
            "prefill_tokens_per_s": round(PREFILL_TOKENS / statistics.median(prefill_s), 1),
            "weight_bytes": sum(v.nbytes for _, v in named_parameters(bench.model))}


def run_gpu(model_dir: str, repeats: int, steps: int) -> dict[str, Any]:
    """On a GPU: ms/token of laya's decode core (each step read before the next), laya's step overlapped as
    mlx-lm's generate_step does (compiled, and without mx.compile) and mlx-lm's plain call, at each context and k; with
    MLX_SAVE_CUDA_GRAPHS_DOT_FILE set, the CUDA graphs MLX launches per overlapped step and their kernel nodes (one dot
    file per graph)."""
    import glob

    bench = Bench(model_dir)
    cases = [(c, k) for c in (64, 1000) for k in (1, 2, 5)]
    variants: dict[str, Callable[[int, int], list[float]]] = {
        "laya": lambda c, k: bench.laya(c, k, steps),
        "laya-overlap": lambda c, k: bench.laya_overlap(c, k, steps),
        "laya-eager-overlap": lambda c, k: bench.laya_overlap(c, k, steps, dm=bench.eager),
        "mlx-lm": lambda c, k: bench.mlx_lm(c, k, steps),
    }
    for c, k in cases:
        for fn in variants.values():
            fn(c, k)
    samples: dict[tuple[str, int, int], list[float]] = {}
    for _ in range(repeats):
        for c, k in cases:
            for name, fn in variants.items():
                samples.setdefault((name, c, k), []).extend(t * 1000 for t in fn(c, k))
    out: dict[str, Any] = {"ms_per_token": {f"{n} ctx{c} k={k}": _median(v) for (n, c, k), v in samples.items()},
                           "dtype": bench.lm.dtype, "params": bench.lm.n_params}
    dot = os.environ.get("MLX_SAVE_CUDA_GRAPHS_DOT_FILE")
    if dot:
        before = set(glob.glob(dot + "_*.dot"))
        bench.laya_overlap(1000, 1, steps)
        files = sorted(set(glob.glob(dot + "_*.dot")) - before)
        nodes = [sum(1 for line in Path(f).read_text().splitlines() if "kernel" in line.lower() and "->" not in line)
                 for f in files]
        out["graphs_per_step"] = round(len(files) / steps, 2)
        out["kernel_nodes_per_step"] = round(sum(nodes) / steps, 1)
    return out


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--model", help="model directory (default: the embedded model)")
    p.add_argument("--quick", action="store_true")
    p.add_argument("--repeats", type=int, help="rounds over all variants (default 5, --quick 2)")
    p.add_argument("--step-only", action="store_true", help="laya's step and prefill only, as one JSON line")
    p.add_argument("--gpu", action="store_true", help="sync vs overlapped vs mlx-lm per context and k, one JSON line")
    args = p.parse_args()
    from benchmarks.common import save
    from laya_lsp.bootstrap import use_fast_blas

    use_fast_blas()  # the same BLAS set-up as `laya-lsp`, before MLX is imported
    from laya_lsp.engine.loading.model import resolve_model

    if args.gpu:
        print(json.dumps(run_gpu(str(resolve_model(args.model)), args.repeats or 3, 8 if args.quick else 24)))
        return 0
    if args.step_only:
        print(json.dumps(run_step_only(str(resolve_model(args.model)), args.repeats or 3, 8 if args.quick else 16)))
        return 0
    res = run_decode(str(resolve_model(args.model)), args.quick, args.repeats)
    print(f"saved {save('decode-step', res)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

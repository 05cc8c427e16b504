"""Prefill of a cold window: laya's prompt path against mlx-lm's own model call and llama.cpp, in one run.

    python -m benchmarks.cold_prefill [--model DIR] [--tokens 1000] [--rounds 5] [--threads 1] [--no-peer]

The first `--tokens` tokens of a held-out file (the pause replay's) are prefilled into an empty cache, the way a
first request without the client's focus meets them: laya's path (`prefill_chunked`, 128-token chunks: on a CPU
the model body of engine/decoding/cpu_math.py, then the compiled step for the last tokens and their logits);
mlx-lm's own model body (`model.model`, no head) over the same chunks, its output evaluated with the caches, which
was laya's path before; and llama.cpp (llama-cpp-python, the same weights as GGUF f32, `--threads` threads waiting
passively, one `eval` of the whole window after a `reset`). The three are interleaved round by round (the machine
may be shared: compare within a run); each reports its best and median time and tokens/s. Saves
benchmarks/results/<date>-cold-prefill.json.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
HELDOUT = ROOT / "benchmarks" / "data" / "heldout-files" / "python" / "boltons-26.2.0__boltons_ioutils.py"


def laya_runners(model: str | None, ids: list[int], chunk: int = 128) -> dict[str, Callable[[], None]]:
    """laya's prefill and mlx-lm's model call over the same chunks, each into a fresh cache."""
    import mlx.core as mx
    from mlx_lm.models.cache import make_prompt_cache

    from laya_lsp.engine import resolve_model
    from laya_lsp.engine.caches.prompt_caches import DocumentCache
    from laya_lsp.engine.decoding.decode import CancelToken, prefill_chunked
    from laya_lsp.engine.loading.model import load_model

    lm = load_model(str(resolve_model(model, False)))

    def laya() -> None:
        pre = prefill_chunked(lm.model, DocumentCache(make_prompt_cache(lm.model)), ids, chunk, CancelToken())
        mx.eval(pre.logits)

    def mlx_lm() -> None:
        cache = make_prompt_cache(lm.model)
        for lo in range(0, len(ids), chunk):  # the model's body (no head), its output evaluated with the caches
            out = lm.model.model(mx.array(ids[lo : lo + chunk])[None], cache=cache)
            mx.eval(out, [c.state for c in cache])

    return {"laya": laya, "mlx-lm call": mlx_lm}


def llamacpp_runner(model: str | None, ids: list[int], threads: int, tmp: Path) -> Callable[[], None]:
    """llama.cpp on the same weights (GGUF f32): one `eval` of the window after a `reset`."""
    os.environ.setdefault("OMP_NUM_THREADS", str(threads))
    os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
    from benchmarks.peers.gguf_export import export_gguf
    from benchmarks.peers.llamacpp import new_llama
    from laya_lsp.engine import resolve_model

    path = tmp / "model-f32.gguf"
    export_gguf(resolve_model(model, False), path, "f32")
    llm = new_llama(path, threads, n_ctx=max(2048, len(ids) + 16))

    def run() -> None:
        llm.reset()
        llm.eval(ids)

    return run


def main(argv: list[str] | None = None) -> int:
    from laya_lsp import bootstrap

    bootstrap.use_fast_blas()
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--model", default=None)
    ap.add_argument("--tokens", type=int, default=1000)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--threads", type=int, default=1, help="llama.cpp's threads")
    ap.add_argument("--no-peer", action="store_true")
    args = ap.parse_args(argv)
    from benchmarks.common import save
    from laya_lsp.engine import resolve_model
    from laya_lsp.engine.loading.tokenizer import load_tokenizer

    tok = load_tokenizer(resolve_model(args.model, False))
    ids = tok.encode(HELDOUT.read_text(encoding="utf-8"))[: args.tokens]
    out: dict[str, Any] = {"file": str(HELDOUT.relative_to(ROOT)), "tokens": len(ids), "load_start": os.getloadavg()}
    with tempfile.TemporaryDirectory(prefix="laya-prefill-") as tmp:
        runners = laya_runners(args.model, ids)
        if not args.no_peer:
            runners["llama.cpp f32"] = llamacpp_runner(args.model, ids, args.threads, Path(tmp))
        times: dict[str, list[float]] = {name: [] for name in runners}
        for run in runners.values():
            run()  # first use: traces, allocations
        for r in range(args.rounds):
            for name, run in (list(runners.items()) if r % 2 == 0 else list(runners.items())[::-1]):
                t0 = time.perf_counter()
                run()
                times[name].append((time.perf_counter() - t0) * 1000)
    for name, ms in times.items():
        best, median = min(ms), statistics.median(ms)
        out[name] = {"best_ms": round(best, 1), "median_ms": round(median, 1),
                     "best_tokens_per_s": round(len(ids) / best * 1000), "ms": [round(x, 1) for x in ms]}
        print(f"{name}: best {best:.1f} ms ({len(ids) / best * 1000:.0f} tok/s), median {median:.1f} ms")
    if "llama.cpp f32" in out:
        out["laya_over_llamacpp_best"] = round(out["laya"]["best_ms"] / out["llama.cpp f32"]["best_ms"], 2)
        print(f"laya / llama.cpp (best): {out['laya_over_llamacpp_best']:.2f}x")
    out["laya_over_mlx_lm_call_best"] = round(out["laya"]["best_ms"] / out["mlx-lm call"]["best_ms"], 2)
    print(f"laya / mlx-lm call (best): {out['laya_over_mlx_lm_call_best']:.2f}x")
    out["load_end"] = os.getloadavg()
    print("saved", save("cold-prefill", out))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

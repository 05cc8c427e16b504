"""Speculative decoding measured: what a step that verifies a draft costs, and what drafts buy on the replay.

    python -m benchmarks.speculation [--model DIR] [--quick] [--repeats N]

1. Verify cost: the compiled step of one branch feeding its newest token plus a draft of R-1 tokens (R rows at
   consecutive positions, every row's logits kept) against the 1-row step, context 64 and ~1000, repeats
   interleaved; median ms and the ratio to one row. `engine/decoding/draft.py`'s ROW_COST comes from these
   ratios.
2. The typing replay's prompts (the same ones `run_all`'s peers answer: 1 buffer and 3 buffers) through the
   engine alone, one request at a time, k = 1, 2 and 5, with drafts off (`draftTokens` 0) and on (8), runs
   alternating: p50 latency, decode ms per token (decode time over tokens written), tokens per forward step,
   acceptance per source class, and whether every answer is identical with drafts on and off.
Prints a table; saves JSON under benchmarks/results/ (`<date>-speculation.json`).
"""

from __future__ import annotations

import os
import sys

# benchmarks/typing.py would shadow the standard library's `typing` while this folder is on sys.path.
sys.path[:] = [p for p in sys.path if os.path.abspath(p or ".") != os.path.dirname(os.path.abspath(__file__))]

import argparse
import statistics
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))


def verify_cost(model_dir: str, repeats: int, log: Any = print) -> dict[str, Any]:
    """ms of a branch step with R rows (newest token + R-1 draft tokens) at contexts 64 and ~1000."""
    import mlx.core as mx
    from mlx_lm.models.cache import make_prompt_cache

    from laya_lsp.engine.caches.prompt_caches import DocumentCache
    from laya_lsp.engine.decoding.adapter import BranchStep, decode_model
    from laya_lsp.engine.decoding.decode import CancelToken, prefill_chunked
    from laya_lsp.engine.loading.model import load_model

    lm = load_model(model_dir)
    dm = decode_model(lm.model)
    vocab = int(lm.config["vocab_size"])
    out: dict[str, Any] = {}
    for ctx in (64, 1000):
        doc = DocumentCache(make_prompt_cache(lm.model))
        prefill_chunked(lm.model, doc, [(i * 7919) % (vocab - 10) + 5 for i in range(ctx)], 256, CancelToken())
        times: dict[int, list[float]] = {r: [] for r in (1, 2, 3, 4, 6, 8, 12, 16)}
        for rep in range(repeats):
            for rows, taken in times.items():
                state = dm.open(doc, 1, 24)
                fed = mx.array([(rep * 31 + j) % (vocab - 10) + 5 for j in range(rows)], dtype=mx.int32)
                t0 = time.perf_counter()
                logits = dm.forward([BranchStep(state, fed, [rows])])[0]
                picked = mx.argmax(logits, axis=-1)
                mx.eval(picked)
                picked.tolist()
                dt = (time.perf_counter() - t0) * 1000
                dm.close(state)
                if rep >= 2:  # the first rounds trace and compile each shape
                    taken.append(dt)
        med = {r: statistics.median(t) for r, t in times.items()}
        out[f"ctx{ctx}"] = {str(r): {"ms": round(m, 3), "x_one_row": round(m / med[1], 2)} for r, m in med.items()}
        log(f"verify step, context {ctx}: " + ", ".join(f"{r} rows {v['ms']:.2f} ms ({v['x_one_row']:.2f}x)"
                                                      for r, v in out[f"ctx{ctx}"].items()))
    return out


def replay(lm: Any, ps: Any, k: int, draft_tokens: int, limit: int = 0) -> dict[str, Any]:
    """One pass of the prompts through a fresh engine (as `peers/laya.py:engine_direct`), with the draft stats."""
    from laya_lsp.engine import CompletionRequest, Engine, EngineSettings

    engine = Engine(EngineSettings(candidates=k, debounce_ms=0, cache_budget_mb=4096, draft_tokens=draft_tokens))
    engine.load(lm.path)
    times, texts = [], []
    by_source: dict[str, list[int]] = {}
    tokens = steps = firsts = drafted = accepted = 0
    decode_ms = 0.0
    try:
        for p in ps.prompts[:limit] if limit else ps.prompts:
            req = CompletionRequest(p.doc, "", 0, candidates=k, max_tokens=p.max_tokens, max_lines=p.max_lines,
                                    debounce=False, prompt_ids=p.ids)
            t0 = time.perf_counter()
            res = engine.complete(req).future.result()
            times.append((time.perf_counter() - t0) * 1000)
            st = res.timings
            texts.append([c.text for c in res.candidates])
            tokens += st.decode_tokens
            steps += st.decode_steps
            firsts += 1
            decode_ms += st.decode_ms
            drafted += st.draft_tokens
            accepted += st.accepted_tokens
            for source, (d, a) in st.extra.get("drafts", {}).items():
                row = by_source.setdefault(source, [0, 0])
                row[0] += d
                row[1] += a
    finally:
        engine.shutdown()
    return {"k": k, "draft_tokens": draft_tokens, "n": len(times), "p50_ms": round(statistics.median(times), 2),
            "p95_ms": round(sorted(times)[int(0.95 * (len(times) - 1))], 2),
            "decode_ms_per_token": round(decode_ms / max(tokens, 1), 3),
            # k = 1: tokens written per forward pass (the prompt's own step makes the first, and may verify more)
            "tokens_per_forward": round(tokens / max(steps + firsts, 1), 3) if k == 1 else None,
            "steps": steps, "tokens": tokens, "drafted": drafted, "accepted": accepted,
            "acceptance": round(accepted / drafted, 3) if drafted else None,
            "by_source": {s: {"drafted": d, "accepted": a, "rate": round(a / d, 3) if d else None}
                          for s, (d, a) in sorted(by_source.items())},
            "_texts": texts}


def replay_section(lm: Any, prompt_sets: dict[str, Any], ks: tuple[int, ...], repeats: int, limit: int = 0,
                   log: Any = print) -> dict[str, Any]:
    """Drafts off and on, alternating, for each prompt set and k; the medians of the repeats."""
    out: dict[str, Any] = {}
    for name, ps in prompt_sets.items():
        for k in ks:
            runs: dict[int, list[dict[str, Any]]] = {0: [], 8: []}
            for rep in range(repeats):
                for d in ((0, 8) if rep % 2 == 0 else (8, 0)):
                    runs[d].append(replay(lm, ps, k, d, limit))
            same = all(r["_texts"] == runs[0][0]["_texts"] for rs in runs.values() for r in rs)
            row: dict[str, Any] = {"identical_answers": same}
            for d, rs in runs.items():
                best = {key: v for key, v in rs[0].items() if not key.startswith("_")}
                for key in ("p50_ms", "p95_ms", "decode_ms_per_token"):
                    best[key] = round(statistics.median(r[key] for r in rs), 3)
                row["drafts" if d else "plain"] = best
            on, off = row["drafts"], row["plain"]
            row["decode_speedup"] = round(off["decode_ms_per_token"] / max(on["decode_ms_per_token"], 1e-9), 2)
            row["p50_speedup"] = round(off["p50_ms"] / max(on["p50_ms"], 1e-9), 2)
            out[f"{name} k={k}"] = row
            log(
                f"{name} k={k}: p50 {off['p50_ms']:.1f} -> {on['p50_ms']:.1f} ms, decode "
                f"{off['decode_ms_per_token']:.2f}"
                f" -> {on['decode_ms_per_token']:.2f} ms/token, steps {off['steps']} -> {on['steps']}, tokens/forward "
                f"{on['tokens_per_forward']}, acceptance {on['acceptance']}, identical {same}; {on['by_source']}"
            )
    return out


def prompt_sets_for(lm: Any, chars: int) -> dict[str, Any]:
    """The replay's prompts, as run_all builds them (same files, same line hints, default settings)."""
    from benchmarks.peers.prompts import file_near_tokens, keystroke_prompts, line_hint_for
    from benchmarks.run_all import NEAR_1500, OTHER_BUFFERS

    near, _ = file_near_tokens(lm, NEAR_1500, 1500)
    files3 = [near] + [f for f in OTHER_BUFFERS if f != near]
    hints = {str(f): line_hint_for(f, chars) for f in files3}
    return {name: keystroke_prompts(lm, files, chars, line_hint=hints)
            for name, files in (("1-buffer", [near]), ("3-buffers", files3))}


def main(argv: list[str] | None = None) -> int:
    from laya_lsp import bootstrap

    bootstrap.use_fast_blas()  # the same BLAS set-up as `laya-lsp`
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--model", default=None, help="mlx-lm model directory (default: the embedded one)")
    ap.add_argument("--quick", action="store_true", help="12 keystrokes, 1 repeat, k = 1 and 2")
    ap.add_argument("--repeats", type=int, default=None)
    args = ap.parse_args(argv)
    from benchmarks.common import save
    from laya_lsp.engine.loading.model import load_model, resolve_model

    model_dir = str(resolve_model(args.model))
    repeats = args.repeats or (1 if args.quick else 2)
    t0 = time.perf_counter()
    load0 = os.getloadavg()
    cost = verify_cost(model_dir, 8 if args.quick else 20)
    lm = load_model(model_dir)
    sets = prompt_sets_for(lm, 12 if args.quick else 40)
    rows = replay_section(lm, sets, (1, 2) if args.quick else (1, 2, 5), repeats)
    path = save("speculation", {"model": model_dir, "load_start": load0, "load_end": os.getloadavg(),
                                "seconds": round(time.perf_counter() - t0, 1), "verify_cost": cost, "replay": rows})
    print(f"saved {path}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

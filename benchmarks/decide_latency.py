"""`laya/decide` latency on the inference worker: the first decision after the model loads, then warm ones.

    python -m benchmarks.decide_latency [--model DIR] [--repeats 12]

A document position in the middle of a stdlib file (`bisect.py`'s second half, at a `def `), choices of 2, 3, 4
and 8 names (one- and several-token options), each decided through the engine facade exactly as the LSP and
HTTP fronts do (`Engine.submit_work` running `decisions.decide.decide_with`). The first decision of the process
prefills the decision prompt (`decisionTokens` = 256) cold; the warm ones find it cached. Reports the first
call, p50 and p95 of the warm calls per choice count, with the server's prefill / scoring split. Saves JSON under
benchmarks/results/ (`<date>-decide.json`).
"""

from __future__ import annotations

import os
import sys

sys.path[:] = [p for p in sys.path if os.path.abspath(p or ".") != os.path.dirname(os.path.abspath(__file__))]

import argparse
import statistics
import sysconfig
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

NAMES = ["main", "parse", "helper", "run_tests", "load", "save_all", "x", "compute_totals"]


def main(argv: list[str] | None = None) -> int:
    from laya_lsp import bootstrap

    bootstrap.use_fast_blas()
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--model", default=None)
    ap.add_argument("--repeats", type=int, default=12)
    args = ap.parse_args(argv)
    from benchmarks.common import save
    from laya_lsp.decisions.decide import DecideRequest, Option, decide_with
    from laya_lsp.engine import Engine, EngineSettings

    text = (Path(sysconfig.get_paths()["stdlib"]) / "bisect.py").read_text()
    cut = text.index("def ", len(text) // 2) + 4
    engine = Engine(EngineSettings())
    engine.load(args.model)
    load0 = os.getloadavg()

    def decide(n: int) -> tuple[float, Any]:
        options = [Option(f"o{i}", name) for i, name in enumerate(NAMES[:n])]
        req = DecideRequest(options, text[:cut], text[cut:], document=True, doc_id="bisect.py")
        t0 = time.perf_counter()
        res = engine.submit_work("decide", "bisect.py", lambda m: decide_with(m, req)).future.result()
        return (time.perf_counter() - t0) * 1000, res.timings

    rows: dict[str, Any] = {}
    try:
        ms, st = decide(3)
        first = {"ms": round(ms, 2), "prefill_ms": round(st.prefill_ms, 2), "score_ms": round(st.decode_ms, 2),
                 "prompt_tokens": st.prompt_tokens, "reused_tokens": st.reused_tokens}
        print(f"first decision (3 choices): {ms:.1f} ms (prefill {st.prefill_ms:.1f}, scoring {st.decode_ms:.1f})")
        for n in (2, 3, 4, 8, 2):
            decide(n)  # this layout's first use
            runs = [decide(n) for _ in range(args.repeats)]
            ms_all = sorted(m for m, _ in runs)
            rows[str(n)] = {"p50_ms": round(statistics.median(ms_all), 2),
                            "p95_ms": round(ms_all[int(0.95 * (len(ms_all) - 1))], 2),
                            "prefill_p50_ms": round(statistics.median(s.prefill_ms for _, s in runs), 2),
                            "score_p50_ms": round(statistics.median(s.decode_ms for _, s in runs), 2)}
            print(f"{n} choices: p50 {rows[str(n)]['p50_ms']:.1f} ms, p95 {rows[str(n)]['p95_ms']:.1f} "
                  f"(prefill {rows[str(n)]['prefill_p50_ms']:.1f}, scoring {rows[str(n)]['score_p50_ms']:.1f})")
    finally:
        engine.shutdown()
    all_p50 = statistics.median(r["p50_ms"] for r in rows.values())
    path = save("decide", {"first": first, "warm": rows, "warm_p50_ms_over_choice_counts": all_p50,
                           "load_start": load0, "load_end": os.getloadavg()})
    print(f"saved {path}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

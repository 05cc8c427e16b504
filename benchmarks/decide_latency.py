"""`laya/decide` latency: through the LSP with text contexts (the case apps call), and on the inference worker.

    python -m benchmarks.decide_latency [--model DIR] [--repeats 12] [--parts lsp,engine] [--baseline DIR]

`lsp`: a fresh server over stdio, three apps' contexts (no document) with 3-4 choices that have descriptions,
decided in turn (A B C A B C ...): the process's first decision, each context's first, and p50/p95 of the warm
calls as the client sees them, with the server's prompt / reused tokens and prefill / scoring split. `--baseline DIR`
(a checkout of the code before a change: `git worktree add DIR <commit>`) runs a second server on that code and sends
it every call too, interleaved, so before and after are measured side by side under one load.
`engine`: a document position in the middle of a stdlib file (`bisect.py`'s second half, at a `def `), choices of 2, 3,
4 and 8 names (one- and several-token options), each decided through the engine facade exactly as the LSP and
HTTP fronts do (`Engine.submit_work` running `decisions.decide.decide_with`). The first decision of the process
prefills the decision prompt (`decisionTokens` = 256) cold; the warm ones find it cached. Reports the first
call, p50 and p95 of the warm calls per choice count, with the server's prefill / scoring split. Saves JSON under
benchmarks/results/ (`<date>-decide.json`; `<date>-decide-vs-baseline.json` with a baseline).
"""

from __future__ import annotations

import os
import sys

sys.path[:] = [p for p in sys.path if os.path.abspath(p or ".") != os.path.dirname(os.path.abspath(__file__))]

import argparse
import asyncio
import statistics
import sysconfig
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

NAMES = ["main", "parse", "helper", "run_tests", "load", "save_all", "x", "compute_totals"]
# Three apps' calls: a context string and choices with descriptions, as a window manager, a todo app and a mail
# client send them.
APPS = [
    (("You manage the windows of a desktop. The user said: put the browser next to the editor, on the left half."
     "\nThe action to take:"),
     [{"id": "tile-left", "description": " tile the focused window to the left half of the screen"},
      {"id": "tile-right", "description": " tile the focused window to the right half of the screen"},
      {"id": "maximize", "description": " maximize the focused window"},
      {"id": "close", "description": " close the focused window"}]),
    ("A todo list app. New item: \"pay the electricity bill before friday\".\nThe list it belongs in:",
     [{"id": "home", "description": " home and household chores"},
      {"id": "work", "description": " work projects and meetings"},
      {"id": "errands", "description": " errands, shopping and payments"}]),
    (("An email client. Message from the bank: \"your statement for november is ready to download\".\n"
     "Where it goes:"),
     [{"id": "inbox", "description": " the inbox, for mail that needs an answer"},
      {"id": "updates", "description": " updates, notices and statements"},
      {"id": "spam", "description": " spam and unwanted mail"},
      {"id": "archive", "description": " the archive, read and done"}]),
]


def _pct(xs: list[float], q: float) -> float:
    xs = sorted(xs)
    return round(xs[int(q * (len(xs) - 1))], 2)


async def lsp_decisions(model: str | None, rounds: int, baseline: str | None = None) -> dict[str, Any]:
    """Decisions through a fresh server over stdio: contexts alternating, first calls and warm ones. With
    `baseline` (a checkout of laya-lsp from before a change), a second server runs that code and every call goes
    to both in turn (which one first alternates by round), so the two are measured under the same load."""
    from laya_lsp.replay import server_command
    from tests.lspclient import LspClient

    envs = {"laya": None, **({"baseline": {"PYTHONPATH": baseline}} if baseline else {})}
    clients = {name: await LspClient.spawn(server_command(model), env=env, cwd=baseline if env else None,
                                           default_timeout=120) for name, env in envs.items()}
    calls: dict[str, list[dict[str, Any]]] = {name: [] for name in clients}
    try:
        for c in clients.values():
            await c.initialize()
            while (await c.call("laya/stats", {"recent": 0}))["model"] is None:
                await asyncio.sleep(0.05)
        for r in range(rounds):
            order = list(clients) if r % 2 == 0 else list(reversed(clients))
            for i, (context, choices) in enumerate(APPS):
                for name in order:
                    calls[name].append(await _decide_once(clients[name], r, i, context, choices))
        stats = {name: await c.call("laya/stats", {"recent": 0}) for name, c in clients.items()}
    finally:
        for c in clients.values():
            await c.close()
    out = {name: _summary(calls[name], stats[name]) for name in clients}
    if baseline:
        out["laya"]["baseline"] = out.pop("baseline")
        out["laya"]["baseline"]["path"] = baseline
    return out["laya"]


async def _decide_once(c: Any, r: int, i: int, context: str, choices: list[dict[str, str]]) -> dict[str, Any]:
    t0 = time.perf_counter()
    await c.call("laya/decide", {"context": context, "choices": choices})
    ms = (time.perf_counter() - t0) * 1000
    rec = (await c.call("laya/stats", {"recent": 1}))["recent"][-1]
    return {"round": r, "app": i, "ms": round(ms, 2), "server_ms": rec["total_ms"],
            "prompt_tokens": rec["prompt_tokens"], "reused_tokens": rec["reused_tokens"],
            "prefill_ms": rec["prefill_ms"], "score_ms": rec["decode_ms"]}


def _summary(calls: list[dict[str, Any]], st: dict[str, Any]) -> dict[str, Any]:
    warm = [x for x in calls if x["round"] > 0]
    firsts = [x for x in calls if x["round"] == 0]
    return {"calls": calls, "process_first_ms": calls[0]["ms"], "context_first_ms": [x["ms"] for x in firsts],
            "warm_p50_ms": _pct([x["ms"] for x in warm], 0.5), "warm_p95_ms": _pct([x["ms"] for x in warm], 0.95),
            "warm_server_p50_ms": _pct([x["server_ms"] for x in warm], 0.5),
            "warm_prefill_p50_ms": _pct([x["prefill_ms"] for x in warm], 0.5),
            "warm_score_p50_ms": _pct([x["score_ms"] for x in warm], 0.5),
            "warm_reused_share": round(sum(x["reused_tokens"] for x in warm)
                                       / max(1, sum(x["prompt_tokens"] for x in warm)), 3),
            "context_cache": st.get("contextCache")}


def _print_lsp(name: str, lsp: dict[str, Any]) -> None:
    print(f"{name}: LSP, context, {len(APPS)} contexts alternating: process's first {lsp['process_first_ms']:.1f} ms, "
          f"each context's first {lsp['context_first_ms']}, warm p50 {lsp['warm_p50_ms']:.1f} ms "
          f"p95 {lsp['warm_p95_ms']:.1f} (server {lsp['warm_server_p50_ms']:.1f}: prefill "
          f"{lsp['warm_prefill_p50_ms']:.1f}, scoring {lsp['warm_score_p50_ms']:.1f}; reused "
          f"{lsp['warm_reused_share']:.0%} of prompt tokens)")


def main(argv: list[str] | None = None) -> int:
    from laya_lsp import bootstrap

    bootstrap.use_fast_blas()
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--model", default=None)
    ap.add_argument("--repeats", type=int, default=12)
    ap.add_argument("--parts", default="lsp,engine")
    ap.add_argument("--baseline", default=None,
                    help="a checkout of laya-lsp from before a change: the LSP part runs it too, call by call")
    args = ap.parse_args(argv)
    from benchmarks.common import save

    parts = set(args.parts.split(","))
    out: dict[str, Any] = {"load_start": os.getloadavg()}
    if "lsp" in parts:
        out["lsp"] = lsp = asyncio.run(lsp_decisions(args.model, 1 + args.repeats, args.baseline))
        _print_lsp("laya", lsp)
        if "baseline" in lsp:
            base = lsp["baseline"]
            _print_lsp(f"baseline {args.baseline}", base)
            lsp["warm_p50_ratio_to_baseline"] = round(lsp["warm_p50_ms"] / base["warm_p50_ms"], 3)
            lsp["first_ratio_to_baseline"] = round(lsp["process_first_ms"] / base["process_first_ms"], 3)
            print(f"warm p50 laya / baseline: {lsp['warm_p50_ratio_to_baseline']:.2f}x (same run, calls interleaved)")
    if "engine" in parts:
        out.update(engine_decisions(args.model, args.repeats))
    out["load_end"] = os.getloadavg()
    path = save("decide-vs-baseline" if args.baseline else "decide", out)
    print(f"saved {path}")
    return 0


def engine_decisions(model: str | None, repeats: int) -> dict[str, Any]:
    """A document position's decisions on the inference worker (the cached document case)."""
    from laya_lsp.decisions.decide import DecideRequest, Option, decide_with
    from laya_lsp.engine import Engine, EngineSettings

    text = (Path(sysconfig.get_paths()["stdlib"]) / "bisect.py").read_text()
    cut = text.index("def ", len(text) // 2) + 4
    engine = Engine(EngineSettings())
    engine.load(model)

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
            runs = [decide(n) for _ in range(repeats)]
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
    return {"first": first, "warm": rows, "warm_p50_ms_over_choice_counts": all_p50}


if __name__ == "__main__":
    raise SystemExit(main())

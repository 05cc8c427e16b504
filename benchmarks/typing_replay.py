"""Typing replay through the real LSP over stdio: keystroke→response latency, cache reuse, decode speed.

    python -m benchmarks.typing_replay [--model DIR] [--chars 40] [--interval-ms 100] [--quick]
Replays re-typing a line of real source files (1 buffer, then 3 buffers switching every 5 keystrokes), one
request per keystroke at a human pace, for the completion list and for inline completion. Prints a table and
saves JSON under benchmarks/results/.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sysconfig
from pathlib import Path

from benchmarks.common import save
from laya_lsp.replay import Buffer, replay, server_command

ROOT = Path(__file__).resolve().parent.parent
STDLIB = Path(sysconfig.get_paths()["stdlib"])
FILES = [STDLIB / "textwrap.py", STDLIB / "json" / "decoder.py", ROOT / "examples" / "inventory.py"]


# The server's latency tricks switched off, for the with/without comparison in one run.
NO_TRICKS = {"typedThrough": False, "speculative": False, "warmUp": False, "crossFileTokens": 0}


def scenario(name: str, files: list[Path], args: argparse.Namespace, kind: str, settings: dict) -> dict:
    buffers = [Buffer.from_file(f, args.chars, line_hint=0.6) for f in files]
    result = asyncio.run(replay(buffers, server_command(args.model), settings, [kind],
                                switch_every=5, interval_ms=args.interval_ms))
    summary = result.summary()
    src = summary["by_source"]
    free = src.get("typed_through", 0) + src.get("speculative", 0)
    asked = sum(v for k, v in src.items() if k in ("model", "typed_through", "speculative", "none"))
    row = {"scenario": name, "kind": kind, "buffers": len(files), **summary.get(kind, {}),
           "answered_without_model_run": round(free / asked, 3) if asked else 0.0,
           "reuse_ratio": summary["reuse_ratio"], "decode_ms_per_token": summary["decode_ms_per_token"],
           "cold_start_to_first_answer_ms": summary["cold_start_to_first_answer_ms"],
           "by_source": summary["by_source"], "by_status": summary["by_status"]}
    print(
        f"{name:<12} {kind:<10} p50 {row.get('p50_ms', float('nan')):7.1f}  p95 {row.get('p95_ms', float('nan')):7.1f}"
        f"  max {row.get('max_ms', float('nan')):7.1f} ms  reuse {row['reuse_ratio']:.3f}"
        f"  decode {row['decode_ms_per_token']:.2f} ms/tok  answered {row.get('answered', 0)}"
        f"  no-model {row['answered_without_model_run']:.0%}",
        flush=True,
    )
    return row


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--model", help="model directory (default: the embedded model)")
    p.add_argument("--chars", type=int, default=40, help="characters typed per file")
    p.add_argument("--interval-ms", type=float, default=100.0, help="typing pace (100 ms ≈ 120 wpm)")
    p.add_argument("--settings", default="{}", help="extra laya settings JSON")
    p.add_argument("--quick", action="store_true", help="fewer characters (smoke run)")
    p.add_argument("--no-compare", action="store_true", help="skip the runs with the latency tricks off")
    args = p.parse_args()
    if args.quick:
        args.chars = 10
    settings = json.loads(args.settings)
    rows = []
    variants = [("", settings)] + ([] if args.no_compare else [(" no-tricks", {**settings, **NO_TRICKS})])
    for label, conf in variants:
        for kind in ("completion", "inline"):
            rows.append(scenario("1-buffer" + label, FILES[:1], args, kind, conf))
            rows.append(scenario("3-buffers" + label, FILES, args, kind, conf))
    path = save("typing", {"args": vars(args), "rows": rows})
    print("saved", path)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

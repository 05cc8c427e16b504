"""`laya-lsp complete FILE:LINE:COL`: candidates and the timing breakdown for one position, no editor needed."""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import time
from pathlib import Path

from . import bootstrap
from .config import Settings
from .engine import ModelInfo, ModelLoadError
from .exit_codes import EXIT_FAILED, usage_error
from .orchestrator import Completion, Kind, Status
from .syntax import SyntaxDocument
from .syntax.positions import PositionError, strict_offset

BREAKDOWN = ["queue_ms", "debounce_ms", "prompt_tokens", "reused_tokens", "prefill_ms", "decode_tokens",
             "decode_ms", "postprocess_ms", "total_ms"]


def parse_location(loc: str) -> tuple[Path, int, int]:
    """FILE:LINE:COL with 1-based line and column (in characters)."""
    try:
        path, line, col = loc.rsplit(":", 2)
        return Path(path), int(line), int(col)
    except ValueError:
        usage_error(f"expected FILE:LINE:COL, got {loc!r}")


def offset_of(text: str, line: int, col: int) -> int:
    """The index of 1-based LINE:COL (COL in characters; LSP's line endings); exits naming the valid range."""
    try:
        return strict_offset(text, line, col, "utf-32", base=1)
    except PositionError as exc:
        usage_error(str(exc))


def run_complete(args: argparse.Namespace, settings: Settings) -> int:
    """Load the model, ask `--repeat` times at the location through the orchestrator, print what came back."""
    path, line, col = parse_location(args.location)
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        usage_error(f"cannot read {path}: {exc}")
    offset = offset_of(text, line, col)
    t0 = time.perf_counter()
    try:
        orchestrator = bootstrap.start(settings)
    except ModelLoadError as exc:
        print(f"laya-lsp: model not loaded: {exc}", file=sys.stderr)
        return EXIT_FAILED
    load_ms = (time.perf_counter() - t0) * 1000
    engine = orchestrator.engine
    info = engine.model_info()
    assert info is not None
    doc = SyntaxDocument(text, "", path.resolve().as_uri())
    kind = Kind.INLINE if args.inline else Kind.COMPLETION

    async def ask() -> list[Completion]:
        runs = []
        for _ in range(max(1, args.repeat)):
            answer = await orchestrator.completions.complete(str(path), doc, offset, kind, debounce=False,
                                                             remember=False)
            assert answer is not None  # (the document never changes under the request)
            runs.append(answer)
            if answer.stats.status is Status.SKIPPED:
                break
        return runs

    try:
        runs = asyncio.run(ask())
    finally:
        engine.shutdown()
    if runs[0].stats.status is Status.SKIPPED:
        reason = runs[0].plan.reason if runs[0].plan else ""
        print(f"no completion here: {reason} (set triggerRules false to force one)")
        return 0
    _print_runs(args, info, load_ms, runs)
    return 0


def _print_runs(args: argparse.Namespace, info: ModelInfo, load_ms: float, runs: list[Completion]) -> None:
    """The runs as JSON (`--json`) or as lines: the timing breakdown and each candidate."""
    if args.json:
        print(json.dumps({
            "model": {"name": info.name, "path": info.path, "dtype": info.dtype, "fim": info.fim,
                      "layout": info.layout, "load_ms": round(load_ms, 1), **info.timings},
            "runs": [{"plan": r.plan.reason if r.plan else "", "candidates": [c.__dict__ for c in r.suggestions],
                      "raw": [c.__dict__ for c in r.result.candidates] if r.result else [],
                      "stats": r.stats.to_dict()} for r in runs],
        }, indent=2))
        return
    print(f"model {info.name} ({info.dtype}; {info.fim}/{info.layout}) loaded+warmed in {load_ms:.0f} ms")
    for i, r in enumerate(runs, 1):
        st = r.stats.to_dict()
        print(f"run {i} ({r.plan.reason if r.plan else st['status']}): " + "  ".join(
            f"{k}={st[k]:.1f}" if isinstance(st[k], float) else f"{k}={st[k]}" for k in BREAKDOWN))
        for rank, c in enumerate(r.suggestions, 1):
            rules = f", {'+'.join(c.rules)}" if c.rules else ""
            print(f"  {rank}. {c.text!r}  (logprob {c.logprob:.2f}{rules})")
        if not r.suggestions:
            why = r.stats.error or ", ".join(f"{n} {k}" for k, n in r.rejected.items()) or r.stats.status
            print(f"  (no candidates: {why})")

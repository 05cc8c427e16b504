"""`laya-lsp warm-up` (and `laya-lsp doctor --warm-up`): the first start, before any editor waits for it.

Loads the model as a server does (with its device's warm-up plan: on a GPU every step shape with fixed caches;
the pause tier's model too, warmed up the same way and marked compiled beside it),
then asks what a server's first requests ask (a completion in a document, a decision with a text context,
a structured value), printing each step as it goes. On a GPU this is where MLX compiles its kernels; they are
kept in the kernel cache (`device.kernel_cache_dir`), so a server started afterwards finds them compiled. On a
CPU nothing outlives the process: the command shows what a first start costs and checks that the model answers.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import time
from collections.abc import Callable
from typing import Any

from . import bootstrap
from .config import Settings
from .device import Where, installed_backend, kernel_cache_info, mlx_device_kind
from .first_compile import mark_compiled

SAMPLE = ("def mean(values):\n    total = 0\n    for v in values:\n        total += v\n    return total / len(values)"
          "\n\n\ndef median(values):\n    ordered = sorted(values)\n    middle = len(ordered) // 2\n    return ")
CONTEXT = "A todo app. New item: \"pay the electricity bill before friday\".\nThe list it belongs in:"
CHOICES = [{"id": "home", "description": " home and household chores"},
           {"id": "errands", "description": " errands, shopping and payments"}]
SCHEMA = {"type": "object", "properties": {"due": {"type": "string", "maxLength": 12}}, "required": ["due"]}


def _kernels() -> dict[str, Any] | None:
    return kernel_cache_info() if installed_backend() == "cuda" else None


def warm_up(settings: Settings, say: Callable[[str], None]) -> dict[str, Any]:
    """Load and warm the model for `settings`, then run a server's first requests; returns what each cost."""
    from .engine import ModelLoadError

    t0 = time.perf_counter()
    out: dict[str, Any] = {"device": mlx_device_kind(), "kernel_cache_before": _kernels()}
    loading = bootstrap.begin(settings, role="compile")
    loading.progress.listen(lambda message, pct: say(f"[{pct:3d}%] {message} ({time.perf_counter() - t0:.1f} s)"))
    try:
        try:
            loading.done.result()
        except ModelLoadError as exc:
            out["error"] = str(exc)
            return out
        loading.engine.finish_warm_up()  # the pause tier's load and warm-up too (idle work)
        info = loading.engine.model_info()
        pause = loading.engine.pause_info()
        out["pause_model"] = pause.name if pause else loading.pause_note or loading.engine.pause_state().value
        out["model"] = info.name if info else None
        out["load_ms"] = round(float(info.timings.get("load_ms", 0)), 1) if info else None
        out["warmup_ms"] = round(float(info.timings.get("warmup_ms", 0)), 1) if info else None
        out["loaded_s"] = round(time.perf_counter() - t0, 2)
        out["device"] = loading.engine.device
        out["first_requests_ms"] = asyncio.run(_first_requests(bootstrap.wire(lambda: settings, loading), say))
    finally:
        loading.engine.shutdown()
    out["kernel_cache_after"] = _kernels()
    out["total_s"] = round(time.perf_counter() - t0, 2)
    if info is not None and out["device"] in ("cpu", "cuda"):  # first_compile.py: later starts run compiled
        where: Where = "cpu" if out["device"] == "cpu" else "gpu"
        mark = mark_compiled(info.path, settings, where, out["total_s"])
        out["compiled_mark"] = str(mark) if mark else None
        if pause is not None:  # its steps ran compiled here too (warm-up pieces, and any pause-tier answer)
            mark = mark_compiled(pause.path, settings, where, out["total_s"])
            out["pause_compiled_mark"] = str(mark) if mark else None
    say(f"warmed up in {out['total_s']:.1f} s")
    return out


async def _first_requests(orchestrator: Any, say: Callable[[str], None]) -> dict[str, float]:
    """A completion, a decision and a structured value, as a server's first requests ask them (ms each)."""
    from .syntax import SyntaxDocument

    doc = SyntaxDocument(SAMPLE, "python", "file:///laya-warm-up.py")
    decisions = orchestrator.decisions
    steps: list[tuple[str, Callable[[], Any]]] = [
        ("completion", lambda: orchestrator.completions.complete("laya-warm-up", doc, len(SAMPLE), "completion",
                                                                 debounce=False, remember=False)),
        ("decision", lambda: decisions.decide(decisions.decide_request(CHOICES, context=CONTEXT))),
        ("structured", lambda: decisions.structured("# todo: call Ana on monday\n", SCHEMA, 16)),
    ]
    out: dict[str, float] = {}
    for name, ask in steps:
        t = time.perf_counter()
        await ask()
        out[name] = round((time.perf_counter() - t) * 1000, 1)
        say(f"first {name}: {out[name]:.0f} ms")
    return out


def run_warm_up(args: argparse.Namespace, settings: Settings) -> int:
    """The command: progress on stderr, the summary on stdout (JSON with --json)."""
    info = warm_up(settings, lambda line: print(line, file=sys.stderr, flush=True))
    if getattr(args, "json", False):
        print(json.dumps(info, indent=2))
    else:
        for key, value in info.items():
            print(f"{key}: {value}")
    return 1 if "error" in info else 0

"""Shared benchmark plumbing: where results go, what machine they came from, how a piece of MLX work is timed."""

from __future__ import annotations

import json
import os
import platform
import socket
import time
from pathlib import Path
from typing import Any, cast

RESULTS = Path(__file__).resolve().parent / "results"


def named_parameters(model: Any) -> list[tuple[str, Any]]:
    """(name, array) of every parameter of an MLX model (`mlx.utils.tree_flatten`, typed)."""
    from mlx.utils import tree_flatten

    return cast(list[tuple[str, Any]], tree_flatten(model.parameters()))


def machine() -> dict[str, Any]:
    cpu = ""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        cpu = platform.processor()
    return {"host": socket.gethostname(), "platform": platform.platform(), "cpu": cpu, "cores": os.cpu_count()}


def save(name: str, payload: dict[str, Any]) -> Path:
    """Write `payload` (plus date and machine) to benchmarks/results/<date>-<name>.json; returns the path."""
    RESULTS.mkdir(parents=True, exist_ok=True)
    stamp = time.strftime("%Y-%m-%d")
    path = RESULTS / f"{stamp}-{name}.json"
    path.write_text(json.dumps({"date": time.strftime("%Y-%m-%dT%H:%M:%S"), "machine": machine(), **payload},
                               indent=2))
    return path


def load_result(path: str | Path) -> dict[str, Any]:
    """A saved results file, plain (`.json`) or gzipped (`.json.gz`: older large results are kept compressed so the
    tracked tree every GPU call carries stays small)."""
    path = Path(path)
    if path.suffix == ".gz":
        import gzip

        return cast(dict[str, Any], json.loads(gzip.decompress(path.read_bytes())))
    return cast(dict[str, Any], json.loads(path.read_text()))


def best_ms(fn: Any, reps: int = 30) -> float:
    """Milliseconds of the fastest of `reps` evaluations of `fn()` (after 3 unmeasured ones): on a shared machine
    the minimum is the least disturbed estimate."""
    import mlx.core as mx

    for _ in range(3):
        mx.eval(fn())
    best = float("inf")
    for _ in range(reps):
        t = time.perf_counter()
        mx.eval(fn())
        best = min(best, time.perf_counter() - t)
    return best * 1000


HALF_SEED = 32  # the confidence calibration's split of the held-out files (training/confidence_fit.py)
PARTS = ("fit", "threshold", "calibration", "evaluation")


def heldout_half(folder: Path, half: str) -> list[Path]:
    """One part of a language's held-out files, split by file: sorted, shuffled with a fixed seed; the first half
    is `calibration`, the second `evaluation` (reported, never fitted or tuned on). The calibration half splits
    again: its first two thirds `fit` (the confidence model is fitted on them), the rest `threshold` (the default
    `minConfidence` and the choice between models are made there, on files the fit never saw)."""
    import random

    if half not in PARTS:
        raise ValueError(f"no part {half!r} of the held-out files: one of {', '.join(PARTS)}")
    files = sorted(p for p in folder.iterdir() if p.is_file() and p.name != "LICENCES.tsv")
    random.Random(HALF_SEED).shuffle(files)
    middle = len(files) // 2
    calibration, evaluation = files[:middle], files[middle:]
    fit_end = (2 * len(calibration) + 2) // 3
    return {"calibration": calibration, "evaluation": evaluation, "fit": calibration[:fit_end],
            "threshold": calibration[fit_end:]}[half]

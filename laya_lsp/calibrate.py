"""Fit `decide`'s calibration for a model on the labelled set `calibration_set.jsonl`.

    python -m laya_lsp.calibrate [--model DIR] [--write]

Each line of the set is {"prefix": code before the choice, "choices": [texts], "answer": index}: code contexts
where one continuation is right and the others are plausible but wrong. For both scores ("total" and "mean"
log-likelihood) the temperature T of softmax(s / T) is fitted by minimising the negative log-likelihood of the
right answers over a log-spaced grid; the score with the lower fitted NLL wins. The report gives accuracy,
NLL at T = 1 and fitted, and the expected calibration error (5 bins) on the set, and held-out NLL from 2-fold
cross-fitting (fit T on one half, measure on the other) so a too-small set shows. `--write` stores the result
under the model's name in `calibration.json`, which `decide` reads.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .decisions.decide import (
    CALIBRATION_FILE,
    DecideRequest,
    Option,
    build_prompt,
    softmax,
    weights_fingerprint,
)

if TYPE_CHECKING:
    from .engine import ModelInfo, ModelWork

SET_FILE = CALIBRATION_FILE.with_name("calibration_set.jsonl")  # beside the calibrations, in decisions/
GRID = [math.exp(math.log(0.05) + i * (math.log(20) - math.log(0.05)) / 199) for i in range(200)]


def nll(rows: list[tuple[list[float], int]], t: float) -> float:
    return -sum(math.log(max(softmax([x / t for x in s])[a], 1e-12)) for s, a in rows) / max(1, len(rows))


def fit(rows: list[tuple[list[float], int]]) -> float:
    return min(GRID, key=lambda t: nll(rows, t))


def ece(rows: list[tuple[list[float], int]], t: float, bins: int = 5) -> float:
    buckets: list[list[tuple[float, bool]]] = [[] for _ in range(bins)]
    for s, a in rows:
        p = softmax([x / t for x in s])
        best = max(range(len(p)), key=p.__getitem__)
        buckets[min(bins - 1, int(p[best] * bins))].append((p[best], best == a))
    n = sum(len(b) for b in buckets)
    return sum(abs(sum(c for c, _ in b) / len(b) - sum(ok for _, ok in b) / len(b)) * len(b)
               for b in buckets if b) / max(1, n)


def score_set(model: str | None, path: Path = SET_FILE) -> tuple[ModelInfo, dict[str, list[tuple[list[float], int]]]]:
    """(the model, {"total": rows, "mean": rows}) where a row is (scores per choice, index of the answer)."""
    from . import bootstrap

    engine = bootstrap.start(bootstrap.resolve_settings(model=model)).engine
    info = engine.model_info()
    assert info is not None
    items = [json.loads(line) for line in path.read_text().splitlines()]

    def work(m: ModelWork) -> dict[str, list[tuple[list[float], int]]]:
        rows: dict[str, list[tuple[list[float], int]]] = {"total": [], "mean": []}
        for item in items:
            req = DecideRequest([Option(str(i), c) for i, c in enumerate(item["choices"])], item["prefix"],
                                item.get("suffix", ""), document=bool(item.get("suffix")))
            ids, options, _ = build_prompt(m, req, list(item["choices"]))
            res = m.score(ids, options, in_document=False)
            rows["total"].append(([s.logprob for s in res.scores], int(item["answer"])))
            rows["mean"].append(([s.mean for s in res.scores], int(item["answer"])))
        return rows

    try:
        scored = engine.submit_work("calibrate", None, work).future.result()
    finally:
        engine.shutdown()
    return info, scored.value


def report(rows: dict[str, list[tuple[list[float], int]]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for kind, data in rows.items():
        t = fit(data)
        halves = (data[0::2], data[1::2])
        held = (nll(halves[1], fit(halves[0])) * len(halves[1]) + nll(halves[0], fit(halves[1])) * len(halves[0]))
        acc = sum(max(range(len(s)), key=s.__getitem__) == a for s, a in data) / len(data)
        out[kind] = {"temperature": round(t, 4), "accuracy": round(acc, 4), "nll_t1": round(nll(data, 1.0), 4),
                     "nll": round(nll(data, t), 4), "nll_heldout": round(held / len(data), 4),
                     "ece_t1": round(ece(data, 1.0), 4), "ece": round(ece(data, t), 4), "n": len(data)}
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--model", default=None, help="mlx-lm model directory (default: LAYA_MODEL, else the embedded "
                    "model)")
    ap.add_argument("--set", type=Path, default=SET_FILE)
    ap.add_argument("--write", action="store_true", help=f"store the fit in {CALIBRATION_FILE.name}")
    args = ap.parse_args(argv)
    from . import bootstrap

    bootstrap.use_fast_blas()
    lm, rows = score_set(args.model, args.set)
    res = report(rows)
    best = min(res, key=lambda k: res[k]["nll_heldout"])
    print(json.dumps({"model": lm.name, "chosen": best, **res}, indent=1))
    if args.write:
        table = json.loads(CALIBRATION_FILE.read_text()) if CALIBRATION_FILE.exists() else {}
        table.setdefault("models", {})[lm.name] = {"normalize": best, **res[best], "set": args.set.name,
                                                   "weights": weights_fingerprint(lm.path)}
        CALIBRATION_FILE.write_text(json.dumps(table, indent=1, sort_keys=True) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())

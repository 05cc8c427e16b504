"""Fit the confidence calibration the server cuts suggestions with (laya_lsp/orchestrator/confidence.json).

The split (said here, in benchmarks/common.py `heldout_half` and docs/confidence.md): each language's files in
benchmarks/data/heldout-files/<language>/, sorted and shuffled with seed 32, first half `calibration` (fitted on
here), second half `evaluation` (what `benchmarks/quality.py --files-half evaluation` reports, with HumanEval
and the held-out lines, which no fit looks at either).

  python training/confidence_fit.py collect --half calibration [--files 6 --per-file 4]  # -> training/confidence/
  python training/confidence_fit.py collect --half evaluation [--extra 30]     # (calibration|evaluation).jsonl
  python training/confidence_fit.py fit [--write]                # compare cut rules, write confidence.json
  python training/confidence_fit.py table                        # the evaluation half, uncut and cut

`collect` asks the orchestrator (the server's own flow, in process: ghost text, confidence cut off) for each
task of the half (line completion after indentation, `return ` and the first `.`) and keeps, per suggestion,
its cleaned text, the model's tokens over it (ends, log-probabilities) and per token whether the text up to it is
right as far as it goes. `fit` fits logistic models of that label on the calibration rows (one on the least
token probability so far, the threshold baseline; one on a few more features), picks for each the threshold
that saves the most characters on the calibration half where the precision the calibration predicts for what
is shown (its mean confidence) is at least --precision, and reports
both on the evaluation rows; the learned one is written only if it beats the baseline there.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import numpy as np

from benchmarks.common import heldout_half
from benchmarks.quality import EVALS, HELDOUT, file_line_tasks, position_class
from benchmarks.shown import person_measures, right_as_far
from laya_lsp.orchestrator.confidence import (
    CALIBRATION_FILE,
    Calibration,
    cut,
    token_confidence,
    token_features,
)
from laya_lsp.syntax import SyntaxDocument

DATA = ROOT / "training" / "confidence"
SETTINGS = {"candidates": 2, "debounceMs": 0, "typedThrough": False, "speculative": False, "warmUp": False,
            "crossFileTokens": 0, "minConfidence": 0.0, "widerCandidates": 0}
BASELINE = ["min"]
LEARNED = ["min", "sum", "last", "log_tokens", "lang=python", "lang=javascript", "lang=typescript", "lang=go",
           "lang=rust", "lang=c", "lang=cpp", "lang=java"]


def tasks_of(half: str, files: int, per_file: int, extra: int) -> list[dict[str, Any]]:
    """`per_file` line tasks (a fixed sample) of each of `files` files (a fixed sample) of each language's half,
    a file's tasks in document order (one buffer per file: its cache serves the next task, as while editing);
    for the evaluation half also `extra` HumanEval single-line and held-out line tasks."""
    per: list[list[dict[str, Any]]] = []
    for folder in sorted(p for p in (ROOT / "benchmarks" / "data" / "heldout-files").iterdir() if p.is_dir()):
        group: list[dict[str, Any]] = []
        for path in heldout_half(folder, half)[:files]:
            chosen = file_line_tasks([str(path)], per_file)
            group += [{**t, "set": f"files-{folder.name}", "doc": str(path)}
                      for t in sorted(chosen, key=lambda t: len(t["prefix"]))]
        per.append(group)
    if half == "evaluation" and extra:
        single = EVALS / "humaneval-single-line-even.jsonl"
        rows = [json.loads(x) for x in single.open()][:extra] if single.exists() else []
        per.append([{"id": r["task_id"], "prefix": r["prompt"], "suffix": r["suffix"],
                     "middle": r["canonical_solution"], "language": "python", "set": "humaneval-single",
                     "doc": r["task_id"]} for r in rows])
        lines = [json.loads(x) for x in HELDOUT.open()][:extra]
        per.append([{**r, "set": "heldout-lines", "doc": r["id"]} for r in lines])
    # round-robin over the sets: a collection stopped early is still balanced (each file keeps its cache)
    tasks = [group[i] for i in range(max(map(len, per))) for group in per if i < len(group)]
    return tasks


async def _collect(tasks: list[dict[str, Any]], out: Path) -> None:
    from laya_lsp import bootstrap
    from laya_lsp.orchestrator import Kind

    orch = bootstrap.start(bootstrap.resolve_settings(json.dumps(SETTINGS)))
    done = {json.loads(x)["id"] for x in out.read_text().splitlines() if x.endswith("}")} if out.exists() else set()
    tasks = [t for t in tasks if t["id"] not in done]  # a collection resumes where it stopped
    with out.open("a") as f:
        for i, t in enumerate(tasks):
            uri = f"file:///c/{t['doc']}"
            doc = SyntaxDocument(t["prefix"] + t["suffix"], t["language"], uri)
            answer = await orch.completions.complete(uri, doc, len(t["prefix"]), Kind.INLINE, remember=False)
            sugg = []
            for rank, s in enumerate(answer.suggestions if answer else []):
                ok = [int(right_as_far(s.text[:end], t["middle"])) for end in s.token_ends]
                sugg.append({"rank": rank, "text": s.text, "ends": s.token_ends,
                             "lps": [round(x, 4) for x in s.token_logprobs], "ok": ok})
            f.write(json.dumps({"id": t["id"], "set": t["set"], "language": t["language"],
                                "class": position_class(t), "truth": t["middle"], "suggestions": sugg}) + "\n")
            f.flush()
            if (i + 1) % 10 == 0:
                print(f"{i + 1}/{len(tasks)}", flush=True)


def rows_of(path: Path) -> list[dict[str, Any]]:
    return [json.loads(x) for x in path.read_text().splitlines()]


def design(records: list[dict[str, Any]], names: list[str]) -> tuple[np.ndarray, np.ndarray]:
    """One row per token of every suggestion: its features, and whether the text up to it is right."""
    xs, ys = [], []
    for r in records:
        for s in r["suggestions"]:
            for feats, ok in zip(token_features(s["lps"], r["language"]), s["ok"]):
                xs.append([feats.get(n, 0.0) for n in names])
                ys.append(ok)
    return np.array(xs, dtype=float), np.array(ys, dtype=float)


def fit_logistic(x: np.ndarray, y: np.ndarray, l2: float = 1e-3, steps: int = 50) -> tuple[float, np.ndarray]:
    """Newton's method on the L2-regularised log-loss; (intercept, coefficients)."""
    a = np.hstack([np.ones((len(x), 1)), x])
    w = np.zeros(a.shape[1])
    for _ in range(steps):
        p = 1 / (1 + np.exp(-np.clip(a @ w, -60, 60)))
        grad = a.T @ (p - y) / len(y) + l2 * np.r_[0, w[1:]]
        hess = (a * (p * (1 - p))[:, None]).T @ a / len(y) + l2 * np.diag(np.r_[0, np.ones(len(w) - 1)])
        w -= np.linalg.solve(hess, grad)
    return float(w[0]), w[1:]


def shown_cuts(records: list[dict[str, Any]], cal: Calibration, threshold: float) -> list[tuple[str, float]]:
    """What ghost text would show at each task under `cal` at `threshold`, and its confidence, as the server
    decides it: each suggestion cut (`cut`), the first one at least `threshold` sure shown (`Completion.for_kind`)."""
    out = []
    for r in records:
        doc = SyntaxDocument("", r["language"], "")
        shown = ("", 0.0)
        for s in r["suggestions"]:
            c = cut(s["text"], s["ends"], token_confidence(s["lps"], r["language"], cal), threshold, doc)
            if c.confidence >= threshold:
                shown = (c.text, c.confidence)
                break
        out.append(shown)
    return out


def shown_texts(records: list[dict[str, Any]], cal: Calibration, threshold: float) -> list[str]:
    return [text for text, _ in shown_cuts(records, cal, threshold)]


def best_threshold(records: list[dict[str, Any]], cal: Calibration, precision: float) -> tuple[float, dict[str, Any]]:
    """The threshold saving the most characters on `records` where the precision the calibration predicts for
    what is shown (its mean confidence) is at least `precision`. (The predicted precision, not the counted one:
    on ~70 tasks the counted one is noise, it fell from 0.56 to 0.53 while the threshold rose 0.45 -> 0.55.)"""
    truths = [r["truth"] for r in records]
    best: tuple[float, dict[str, Any]] = (1.0, {})
    for t in np.round(np.arange(0.3, 0.96, 0.05), 3):
        shown = shown_cuts(records, cal, float(t))
        confs = [c for text, c in shown if text]
        m = person_measures([text for text, _ in shown], truths)
        m["predicted_precision"] = round(float(np.mean(confs)), 4) if confs else 0.0
        if m["predicted_precision"] >= precision and m["chars_saved"] > best[1].get("chars_saved", -1):
            best = (float(t), m)
    return best


def fit(args: argparse.Namespace) -> None:
    calib, evaluation = rows_of(DATA / "calibration.jsonl"), rows_of(DATA / "evaluation.jsonl")
    report: dict[str, Any] = {}
    cals: dict[str, Calibration] = {}
    for name, names in (("baseline", BASELINE), ("learned", LEARNED)):
        x, y = design(calib, names)
        b, w = fit_logistic(x, y)
        cal = Calibration(round(b, 4), {n: round(float(v), 4) for n, v in zip(names, w)}, 0.0)
        threshold, on_calib = best_threshold(calib, cal, args.precision)
        cals[name] = Calibration(cal.intercept, cal.coef, threshold)
        xe, ye = design(evaluation, names)
        p = 1 / (1 + np.exp(-(b + xe @ w)))
        per_set = {}
        for s in sorted({r["set"] for r in evaluation}):
            rs = [r for r in evaluation if r["set"] == s]
            per_set[s] = person_measures(shown_texts(rs, cal, threshold), [r["truth"] for r in rs])
        raw = {s: person_measures([r["suggestions"][0]["text"] if r["suggestions"] else "" for r in evaluation
                                   if r["set"] == s], [r["truth"] for r in evaluation if r["set"] == s])
               for s in sorted({r["set"] for r in evaluation})}
        report[name] = {
            "coef": cal.coef,
            "intercept": cal.intercept,
            "threshold": threshold,
            "calibration": on_calib,
            "tokens": len(y),
            "eval_log_loss": round(float(-np.mean(ye * np.log(p + 1e-12) + (1 - ye) * np.log(1 - p + 1e-12))), 4),
            "evaluation": per_set,
            "uncut": raw,
        }
    print(json.dumps(report, indent=1))
    chosen = "learned" if _beats(report["learned"]["evaluation"], report["baseline"]["evaluation"]) else "baseline"
    print("chosen:", chosen)
    if args.write:
        cal = cals[chosen]
        stored = json.loads(CALIBRATION_FILE.read_text())
        stored["models"][args.model_name] = {
            "model": chosen, "intercept": cal.intercept, "coef": cal.coef, "threshold": cal.threshold,
            "fit": f"most characters saved on the calibration half where the mean confidence of what is shown is >= "
                   f"{args.precision}", "calibration_half": report[chosen]["calibration"],
            "tokens": report[chosen]["tokens"]}
        CALIBRATION_FILE.write_text(json.dumps(stored, indent=1) + "\n")


def _beats(a: dict[str, Any], b: dict[str, Any]) -> bool:
    """More characters saved summed over the sets, with no set's precision lower by more than 0.02."""
    saved = sum(m["chars_saved"] for m in a.values()) > sum(m["chars_saved"] for m in b.values())
    return saved and all(a[s]["precision"] >= b[s]["precision"] - 0.02 for s in a)


def table(args: argparse.Namespace) -> None:
    """Markdown tables of the evaluation half: uncut (minConfidence 0, as before the cut) against the shipped
    calibration at its threshold, per set and per position class (`--threshold` another one)."""
    from laya_lsp.orchestrator.confidence import calibration_for

    rows, found = rows_of(DATA / "evaluation.jsonl"), calibration_for(args.model_name)
    assert found is not None, f"no calibration for {args.model_name} in {CALIBRATION_FILE}"
    cal = found
    threshold = args.threshold if args.threshold is not None else cal.threshold
    uncut = shown_texts(rows, cal, 0.0)
    cut_ = shown_texts(rows, cal, threshold)
    print(f"threshold {threshold}, {len(rows)} evaluation tasks")
    for key in ("set", "class"):
        print(f"\n| {key} | n | shown | precision | chars saved | shown and wrong | chars saved, cut / uncut |")
        print("|---|---|---|---|---|---|---|")
        groups = sorted({r[key] for r in rows}) + ["all"]
        for g in groups:
            idx = [i for i, r in enumerate(rows) if g == "all" or r[key] == g]
            truths = [rows[i]["truth"] for i in idx]
            a = person_measures([uncut[i] for i in idx], truths)
            b = person_measures([cut_[i] for i in idx], truths)
            ratio = f"{b['chars_saved'] / a['chars_saved']:.2f}x" if a["chars_saved"] else "-"
            print(f"| {g} | {a['n']} | {a['shown']:.2f} → {b['shown']:.2f}"
                  f" | {a['precision']:.2f} → {b['precision']:.2f}"
                  f" | {a['chars_saved']:.3f} → {b['chars_saved']:.3f}"
                  f" | {a['shown_wrong']:.2f} → {b['shown_wrong']:.2f}"
                  f" | {ratio} |")


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = p.add_subparsers(dest="command", required=True)
    c = sub.add_parser("collect")
    c.add_argument("--half", choices=["calibration", "evaluation"], required=True)
    c.add_argument("--files", type=int, default=6, help="files per language (a fixed sample)")
    c.add_argument("--per-file", type=int, default=4, help="line tasks per file (a fixed sample)")
    c.add_argument("--extra", type=int, default=100, help="evaluation: HumanEval single-line and held-out line tasks")
    f = sub.add_parser("fit")
    f.add_argument("--precision", type=float, default=0.65, help="the least precision the threshold keeps")
    f.add_argument("--write", action="store_true")
    f.add_argument("--model-name", default="default", help="the name the server knows the model by (ModelInfo.name)")
    t = sub.add_parser("table")
    t.add_argument("--threshold", type=float)
    t.add_argument("--model-name", default="default")
    args = p.parse_args()
    if args.command == "table":
        table(args)
    elif args.command == "collect":
        DATA.mkdir(parents=True, exist_ok=True)
        asyncio.run(_collect(tasks_of(args.half, args.files, args.per_file, args.extra), DATA / f"{args.half}.jsonl"))
    else:
        fit(args)


if __name__ == "__main__":
    main()

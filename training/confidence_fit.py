"""Fit the confidence calibration the server cuts suggestions with (laya_lsp/orchestrator/confidence.json).

Three disjoint parts of the held-out files (benchmarks/common.py `heldout_half`, by file, seed 32, every language
of benchmarks/data/heldout-files/): `fit` (the logistic models are fitted on it), `threshold` (the default
`minConfidence` and the choice between models are made on it, files the fit never saw) and `evaluation` (what
`benchmarks/quality.py --files-half evaluation` reports; nothing here is chosen on it). HumanEval and
../shared/evals are never used.

  python training/confidence_fit.py refit [--model DIR] [--name default] --write   # the one command per model:
        # collect fit + threshold for the model, fit, choose, write its entry (name + weights fingerprint)
  python training/confidence_fit.py collect --part fit|threshold|evaluation [--model DIR] [--files 9 --per-file 8]
  python training/confidence_fit.py fit [--model DIR] [--write]   # compare models, pick the threshold, write
  python training/confidence_fit.py table [--model DIR]           # the evaluation part, uncut and cut (collected)

Data: training/confidence/<weights fingerprint>/<part>.jsonl. `collect` asks the orchestrator (the server's own
flow, in process: ghost text, confidence cut off) for line tasks of each file of the part (after indentation,
`return ` and the first `.`) and keeps, per suggestion, its cleaned text, the model's tokens over it (ends,
log-probabilities) and per token whether the text up to it is right as far as it goes. `fit` fits logistic
models of that label on the fit rows (the least token probability so far alone, the threshold baseline; more
features without the language; the same with the language, its coefficients shrunk towards none), picks for each
the threshold that saves the most characters on the threshold rows where the precision counted there is at least
--precision, and writes the simplest one within 2 % of the most characters saved there. The entry is keyed by
the model's name and its weights' fingerprint: the server finds it by the weights, so a retrained model under the
same name is not cut by an old fit; written as "default" (`--name default`) it also sets `minConfidence`'s
documented default (config.py, README, the VS Code settings).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import re
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from laya_lsp.bootstrap import use_fast_blas

use_fast_blas()  # before anything imports MLX, as the server does (a slow BLAS makes a collection 4x slower)

import numpy as np

from benchmarks.common import heldout_half
from benchmarks.quality import file_line_tasks, position_class
from benchmarks.shown import person_measures, right_as_far
from laya_lsp.orchestrator.confidence import CALIBRATION_FILE, Calibration, cut, token_confidence, token_features
from laya_lsp.syntax import SyntaxDocument

DATA = ROOT / "training" / "confidence"
EMBEDDED = ROOT / "laya_lsp" / "models" / "default"
SETTINGS = {"candidates": 2, "debounceMs": 0, "typedThrough": False, "speculative": False, "warmUp": False,
            "crossFileTokens": 0, "minConfidence": 0.0, "widerCandidates": 0,
            "pause": {"model": "off"}}  # one model at a time: the model being calibrated answers everything
LANGS = ["python", "javascript", "typescript", "go", "rust", "c", "cpp", "java"]
MODELS = {  # name: (features, L2 per feature)
    "baseline": (["min"], {}),
    "learned": (["min", "p_min", "sum", "last", "log_tokens"], {}),
    "learned+language": (["min", "p_min", "sum", "last", "log_tokens"] + [f"lang={x}" for x in LANGS],
                         {f"lang={x}": 0.05 for x in LANGS}),
}


def model_key(model: str | None) -> tuple[str, str, str]:
    """(directory, name the server knows it by, weights fingerprint) of `model` (None: the embedded default)."""
    from laya_lsp.decisions.decide import weights_fingerprint
    from laya_lsp.engine.loading.model import model_name

    path = Path(model).expanduser().resolve() if model else EMBEDDED
    config = json.loads((path / "config.json").read_text())
    return str(path), model_name(model, path, config), weights_fingerprint(str(path))


def data_dir(model: str | None) -> Path:
    return DATA / model_key(model)[2]


def tasks_of(part: str, files: int, per_file: int) -> list[dict[str, Any]]:
    """`per_file` line tasks (a fixed sample) of each of `files` files of each language's part, a file's tasks
    in document order (one buffer per file: its cache serves the next task, as while editing)."""
    per: list[list[dict[str, Any]]] = []
    for folder in sorted(p for p in (ROOT / "benchmarks" / "data" / "heldout-files").iterdir() if p.is_dir()):
        group: list[dict[str, Any]] = []
        for path in heldout_half(folder, part)[:files]:
            chosen = file_line_tasks([str(path)], per_file)
            group += [{**t, "set": f"files-{folder.name}", "doc": str(path)}
                      for t in sorted(chosen, key=lambda t: len(t["prefix"]))]
        per.append(group)
    # round-robin over the languages: a collection stopped early is still balanced (each file keeps its cache)
    return [group[i] for i in range(max(map(len, per))) for group in per if i < len(group)]


async def _collect(tasks: list[dict[str, Any]], out: Path, model: str | None) -> None:
    from laya_lsp import bootstrap
    from laya_lsp.orchestrator import Kind

    orch = bootstrap.start(bootstrap.resolve_settings(json.dumps(SETTINGS), model=model))
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
            if (i + 1) % 25 == 0:
                print(f"{out.stem}: {i + 1}/{len(tasks)}", flush=True)


def collect(part: str, model: str | None, files: int, per_file: int) -> Path:
    out = data_dir(model) / f"{part}.jsonl"
    out.parent.mkdir(parents=True, exist_ok=True)
    asyncio.run(_collect(tasks_of(part, files, per_file), out, model))
    return out


def rows_of(path: Path) -> list[dict[str, Any]]:
    return [json.loads(x) for x in path.read_text().splitlines()] if path.exists() else []


def design(records: list[dict[str, Any]], names: list[str]) -> tuple[np.ndarray, np.ndarray]:
    """One row per token of every suggestion: its features, and whether the text up to it is right."""
    xs, ys = [], []
    for r in records:
        for s in r["suggestions"]:
            for feats, ok in zip(token_features(s["lps"], r["language"]), s["ok"]):
                xs.append([feats.get(n, 0.0) for n in names])
                ys.append(ok)
    return np.array(xs, dtype=float).reshape(len(xs), len(names)), np.array(ys, dtype=float)


def fit_logistic(x: np.ndarray, y: np.ndarray, l2: np.ndarray, steps: int = 50) -> tuple[float, np.ndarray]:
    """Newton's method on the log-loss with an L2 penalty per coefficient (`l2`); (intercept, coefficients)."""
    a = np.hstack([np.ones((len(x), 1)), x])
    w = np.zeros(a.shape[1])
    reg = np.r_[0.0, l2]
    for _ in range(steps):
        p = 1 / (1 + np.exp(-np.clip(a @ w, -60, 60)))
        grad = a.T @ (p - y) / len(y) + reg * w
        hess = (a * (p * (1 - p))[:, None]).T @ a / len(y) + np.diag(reg)
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
    """The threshold saving the most characters on `records` (the threshold part) where the precision counted
    there is at least `precision`; (1.0, {}) when none reaches it."""
    truths = [r["truth"] for r in records]
    best: tuple[float, dict[str, Any]] = (1.0, {})
    for t in np.round(np.arange(0.1, 0.96, 0.025), 3):
        m = person_measures(shown_texts(records, cal, float(t)), truths)
        if m["precision"] >= precision and m["chars_saved"] > best[1].get("chars_saved", -1):
            best = (float(t), m)
    return best


def per_set(records: list[dict[str, Any]], cal: Calibration, threshold: float) -> dict[str, Any]:
    sets = sorted({r["set"] for r in records})
    return {s: person_measures(shown_texts([r for r in records if r["set"] == s], cal, threshold),
                               [r["truth"] for r in records if r["set"] == s]) for s in sets}


def fit_one(name: str, fit_rows: list[dict[str, Any]], threshold_rows: list[dict[str, Any]],
            precision: float) -> dict[str, Any]:
    """One model fitted on the fit rows, its threshold chosen on the threshold rows."""
    names, l2s = MODELS[name]
    x, y = design(fit_rows, names)
    b, w = fit_logistic(x, y, np.array([l2s.get(n, 1e-3) for n in names]))
    cal = Calibration(round(b, 4), {n: round(float(v), 4) for n, v in zip(names, w)}, 0.0)
    threshold, on_threshold = best_threshold(threshold_rows, cal, precision)
    xt, yt = design(threshold_rows, names)
    p = 1 / (1 + np.exp(-(b + xt @ w)))
    return {"intercept": cal.intercept, "coef": cal.coef, "threshold": threshold, "threshold_part": on_threshold,
            "threshold_per_set": per_set(threshold_rows, cal, threshold), "tokens": len(y),
            "threshold_log_loss": round(float(-np.mean(yt * np.log(p + 1e-12) + (1 - yt) * np.log(1 - p + 1e-12))),
                                        4)}


def fit(args: argparse.Namespace) -> dict[str, Any]:
    where = data_dir(args.model)
    fit_rows, threshold_rows = rows_of(where / "fit.jsonl"), rows_of(where / "threshold.jsonl")
    if not fit_rows or not threshold_rows:
        raise SystemExit(f"no fit or threshold data in {where}: run `collect` (or `refit`) first")
    report = {name: fit_one(name, fit_rows, threshold_rows, args.precision) for name in MODELS}
    print(json.dumps(report, indent=1))
    best = max(m["threshold_part"].get("chars_saved", -1.0) for m in report.values())
    # the simplest model (MODELS' order) within 2 % of the most characters saved: more coefficients must earn it
    chosen = next(n for n in MODELS if report[n]["threshold_part"].get("chars_saved", -1.0) >= 0.98 * best)
    print(f"chosen: {chosen} (the simplest within 2 % of the most characters saved on the threshold part at "
          f"precision >= {args.precision}); "
          f"{len(fit_rows)} fit tasks, {len(threshold_rows)} threshold tasks")
    if args.write:
        write(args, chosen, report[chosen], len(fit_rows), len(threshold_rows))
    return report


def write(args: argparse.Namespace, chosen: str, r: dict[str, Any], n_fit: int, n_threshold: int) -> None:
    """The model's entry in confidence.json (an older entry for the same weights or name replaced); for the
    name "default" (the embedded model, or the export about to replace it: `--name default`), `minConfidence`'s
    documented default set to the new threshold."""
    _path, name, weights = model_key(args.model)
    name = args.name or name
    stored = json.loads(CALIBRATION_FILE.read_text())
    stored["models"] = {k: v for k, v in stored["models"].items() if k != name and v.get("weights") != weights}
    stored["models"][name] = {
        "model": chosen, "weights": weights, "intercept": r["intercept"], "coef": r["coef"],
        "threshold": r["threshold"], "fit": f"fitted on {n_fit} tasks of the fit part ({r['tokens']} tokens); "
        f"threshold: most characters saved on the threshold part ({n_threshold} tasks) at precision >= "
        f"{args.precision}", "threshold_part": r["threshold_part"]}
    CALIBRATION_FILE.write_text(json.dumps(stored, indent=1) + "\n")
    print(f"wrote {name} ({weights}) to {CALIBRATION_FILE}")
    if name == EMBEDDED.name:  # the embedded default's (or the model about to become it)
        sync_default(r["threshold"])


DEFAULT_PLACES = [  # where `minConfidence`'s default is written: file, pattern around the number
    (ROOT / "laya_lsp" / "config.py", r"(min_confidence: float = )[0-9.]+"),
    (ROOT / "README.md", r"(\| `minConfidence` \| `)[0-9.]+(`)"),
    (ROOT / "editors" / "vscode" / "package.json", r'("laya\.minConfidence": \{[^}]*?"default": )[0-9.]+'),
]


def sync_default(threshold: float) -> None:
    """`minConfidence`'s default is the embedded model's threshold (tests/test_confidence.py checks)."""
    for file, pattern in DEFAULT_PLACES:
        text = file.read_text()
        new, n = re.subn(pattern, lambda m: m.group(1) + f"{threshold:g}" + (m.group(2) if m.lastindex == 2 else ""),
                         text, count=1)
        if n != 1:
            raise SystemExit(f"{file}: minConfidence's default not found; set it to {threshold:g} by hand")
        file.write_text(new)
    print(f"minConfidence's default is now {threshold:g} (config.py, README.md, editors/vscode/package.json)")


def table(args: argparse.Namespace) -> None:
    """Markdown tables of the evaluation part (collected): uncut (minConfidence 0) against the shipped
    calibration at its threshold, per set and per position class (`--threshold` another one)."""
    from laya_lsp.orchestrator.confidence import calibration_for

    path, name, _ = model_key(args.model)
    rows, found = rows_of(data_dir(args.model) / "evaluation.jsonl"), calibration_for(name, path)
    assert found is not None, f"no calibration for {name} in {CALIBRATION_FILE}"
    threshold = args.threshold if args.threshold is not None else found.threshold
    uncut, cut_ = shown_texts(rows, found, 0.0), shown_texts(rows, found, threshold)
    print(f"threshold {threshold}, {len(rows)} evaluation tasks")
    for key in ("set", "class"):
        print(f"\n| {key} | n | shown | precision | chars saved | shown and wrong | chars saved, cut / uncut |")
        print("|---|---|---|---|---|---|---|")
        for g in sorted({r[key] for r in rows}) + ["all"]:
            idx = [i for i, r in enumerate(rows) if g == "all" or r[key] == g]
            truths = [rows[i]["truth"] for i in idx]
            a = person_measures([uncut[i] for i in idx], truths)
            b = person_measures([cut_[i] for i in idx], truths)
            ratio = f"{b['chars_saved'] / a['chars_saved']:.2f}x" if a["chars_saved"] else "-"
            print(f"| {g} | {a['n']} | {a['shown']:.2f} → {b['shown']:.2f} | {a['precision']:.2f} → "
                  f"{b['precision']:.2f} | {a['chars_saved']:.3f} → {b['chars_saved']:.3f} | "
                  f"{a['shown_wrong']:.2f} → {b['shown_wrong']:.2f} | {ratio} |")


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = p.add_subparsers(dest="command", required=True)
    for cmd in ("refit", "collect", "fit", "table"):
        c = sub.add_parser(cmd)
        c.add_argument("--model", help="model directory (default: the embedded model)")
        if cmd in ("refit", "collect"):
            c.add_argument("--files", type=int, default=9, help="files per language of each part (a fixed sample)")
            c.add_argument("--per-file", type=int, default=8, help="line tasks per file (a fixed sample)")
        if cmd == "collect":
            c.add_argument("--part", choices=["fit", "threshold", "evaluation"], required=True)
        if cmd in ("refit", "fit"):
            c.add_argument("--precision", type=float, default=0.65, help="the least precision the threshold keeps")
            c.add_argument("--write", action="store_true")
            c.add_argument("--name", help="write the fit under this model name (default: the model's own; 'default': "
                                          "the model that is or is about to be the embedded one)")
        if cmd == "table":
            c.add_argument("--threshold", type=float)
    args = p.parse_args()
    if args.command == "table":
        table(args)
    elif args.command == "collect":
        collect(args.part, args.model, args.files, args.per_file)
    elif args.command == "refit":
        for part in ("fit", "threshold"):
            collect(part, args.model, args.files, args.per_file)
        fit(args)
    else:
        fit(args)


if __name__ == "__main__":
    main()

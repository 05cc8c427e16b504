"""Fill-in-the-middle quality through the real LSP server, before and after post-processing.

    python -m benchmarks.quality [--model DIR] [--candidates K] [--limit-single N] [--limit-multi 200]
                                 [--limit-heldout 400] [--limit-files 200] [--files GLOB ...] [--quick]
For each task the server gets a document (prefix + suffix) and a request at the cursor; the first candidate
is scored by exact match and edit similarity against the true middle. Sets: HumanEval single-line and
multi-line infilling (even problem ids, ../shared/evals), the held-out real-code line set
(benchmarks/data/heldout.jsonl: windows of at most 3,000 + 1,500 characters cut out of files kept out of the
training corpus) and real-code lines of whole files (`file-lines`, examples/ by default: Python, JavaScript,
Go; `files-<language>`, one set a language, from benchmarks/data/heldout-files/<language>/: files of packages kept
out of the training corpus), with the cursor after a line's indentation, after its `return ` and after its first `.`.
Trivial baselines (empty answer, copy of the previous line) give the numbers a floor.

Each set runs once with post-processing and once without (same model, greedy, so the same raw answers), and
per request the two are compared: `empty_while_raw_not` is the share of requests post-processing left
without a candidate although the raw model had one, `empty_while_raw_fits` the share where that raw answer
(on a line of its own where code follows) would also have kept the document parseable, and
`empty_while_raw_right` the share where it was the exact middle. `parse_valid` is the share of returned
candidates that keep a parseable document parseable (Python: Python's own parser; other languages: no
tree-sitter error); `parse_valid_vs_truth` the share that leave the document parseable where the true middle
would. Each measure is also broken down by the cursor's position class (end of a body, after `return`, after
`.`, in call arguments, ...). What a person gets from the top suggestion (`person`, benchmarks/shown.py): the
share of requests shown something, the precision of what is shown (right as far as it goes), the characters
accepting it saves over all characters to write, shown-and-wrong; by position class too (`--kind inline` asks
for ghost text, which withholds what is unsure).
Prints a table and saves JSON under benchmarks/results/.
"""

from __future__ import annotations

import argparse
import ast
import asyncio
import glob
import json
import random
import re
import statistics
import time
import warnings
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

from lsprotocol import types as lsp

from benchmarks import deep_lines, handoff, quality_names
from benchmarks.common import PARTS, heldout_half, load_result, save
from benchmarks.shown import cut_causes, person_breakdown
from laya_lsp.replay import LANGUAGES, Buffer, ReplayClient, server_command
from laya_lsp.syntax import SyntaxDocument, plan_completion
from laya_lsp.syntax.context import cursor_context, leading_ws, width

ROOT = Path(__file__).resolve().parent.parent

EVALS = ROOT.parent / "shared" / "evals"
HELDOUT = ROOT / "benchmarks" / "data" / "heldout.jsonl"
DEEP = ROOT / "benchmarks" / "data" / "deep-lines.jsonl"
HELDOUT_FILES = ROOT / "benchmarks" / "data" / "heldout-files"  # <language>/: files of packages kept out of training
FILES = [str(ROOT / "examples" / "*")]
MULTI_LINE_SETS = frozenset({"humaneval-multi"})
STATS_EVERY = 100  # tasks between reads of the server's request records (it keeps the last 256)
WORD_CHARS = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_"
_CLASS_LINE = re.compile(r"(export\s+)?(default\s+)?(abstract\s+)?class\b")
_DOT_AFTER_NAME = re.compile(r"[A-Za-z_)\]]\.(?=[A-Za-z_])")
_EXTENSIONS = {language: ext for ext, language in reversed(LANGUAGES.items())}


def edit_similarity(a: str, b: str) -> float:
    """100 * (1 - Levenshtein(a, b) / max(len)), as in the code-completion literature."""
    if a == b:
        return 100.0
    if not a or not b:
        return 0.0
    prev = list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        cur = [i]
        for j, cb in enumerate(b, 1):
            cur.append(min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (ca != cb)))
        prev = cur
    return 100.0 * (1 - prev[-1] / max(len(a), len(b)))


def file_line_tasks(patterns: list[str], limit: int) -> list[dict[str, Any]]:
    """Line completion in whole files: the rest of a code line after its indentation, after its `return `
    and after its first `.` (a fixed sample of `limit`)."""
    tasks = []
    for path in sorted({Path(p).resolve() for pattern in patterns for p in glob.glob(pattern)}):
        language = LANGUAGES.get(path.suffix)
        if language is None or not path.is_file():
            continue
        text = path.read_text(encoding="utf-8")
        start = 0
        for number, line in enumerate(text.split("\n"), 1):
            code = line.strip()
            indent = len(line) - len(line.lstrip())
            cuts = [] if len(code) < 8 or code.startswith(("#", "//", "/*", "*", '"""', "'''")) else [indent]
            if cuts and code.startswith("return "):
                cuts.append(indent + len("return "))
            dot = _DOT_AFTER_NAME.search(line) if cuts else None
            if dot is not None:
                cuts.append(dot.end())
            for cut in cuts:
                name = path.relative_to(ROOT) if path.is_relative_to(ROOT) else path
                tasks.append(
                    {
                        "id": f"{name}:{number}:{cut}",
                        "language": language,
                        "prefix": text[: start + cut],
                        "middle": line[cut:],
                        "suffix": text[start + len(line) :],
                    }
                )
            start += len(line) + 1
    random.Random(0).shuffle(tasks)
    return tasks[:limit]


def load_tasks(args: argparse.Namespace) -> dict[str, list[dict[str, Any]]]:
    rng = random.Random(0)
    sets: dict[str, list[dict[str, Any]]] = {}
    single = Path(args.evals) / "humaneval-single-line-even.jsonl"
    multi = Path(args.evals) / "humaneval-multi-line-even.jsonl"
    if single.exists():
        rows = [json.loads(x) for x in single.open()]
        sets["humaneval-single"] = [
            {"id": r["task_id"], "prefix": r["prompt"], "suffix": r["suffix"], "middle": r["canonical_solution"],
             "language": "python"} for r in rows[: args.limit_single or None]]
    if multi.exists():
        rows = [json.loads(x) for x in multi.open()]
        rng.shuffle(rows)
        sets["humaneval-multi"] = [
            {"id": r["task_id"], "prefix": r["prompt"], "suffix": r["suffix"], "middle": r["canonical_solution"],
             "language": "python"} for r in rows[: args.limit_multi]]
    if HELDOUT.exists():
        rows = [json.loads(x) for x in HELDOUT.open()]
        sets["heldout-lines"] = rows[: args.limit_heldout]
        sets["heldout-names"] = quality_names.name_tasks(rows)[: args.limit_heldout]
    sets["file-lines"] = file_line_tasks(args.files, args.limit_files)
    for folder in sorted(p for p in HELDOUT_FILES.iterdir() if p.is_dir()) if HELDOUT_FILES.exists() else []:
        files = [str(f) for f in heldout_half(folder, args.files_half)] if args.files_half else [str(folder / "*")]
        sets[f"files-{folder.name}"] = file_line_tasks(files, args.limit_files)  # one set a language
    if DEEP.exists():  # whole held-out files, the cursor deep in them (benchmarks/deep_lines.py)
        sets.update(deep_lines.load_sets(args.limit_heldout))
    return sets


def position_class(task: dict[str, Any]) -> str:
    """Where the cursor is, as the server sees the document: the first class that applies, in this order."""
    doc = SyntaxDocument(task["prefix"] + task["suffix"], task["language"], "")
    ctx = cursor_context(doc, len(task["prefix"]))
    full = task["prefix"] + task["middle"] + task["suffix"]
    line_start = task["prefix"].rfind("\n") + 1
    line_end = full.find("\n", len(task["prefix"]) + len(task["middle"].rstrip("\n")))
    line = full[line_start:line_end if line_end >= 0 else len(full)]
    indent = width(leading_ws(line))
    following = next((ln for ln in full[line_end + 1:].split("\n") if ln.strip()), "") if line_end >= 0 else ""
    above = [ln for ln in task["prefix"][:line_start].split("\n") if ln.strip()]
    owner = next((ln for ln in reversed(above) if width(leading_ws(ln)) < indent), "")
    prefix_code = ctx.line_prefix.strip()
    if ctx.in_comment or ctx.in_string is not None:
        return "string_or_comment"
    if not prefix_code and ctx.prev_line is not None and ctx.prev_line.lstrip().startswith("@"):
        return "after_decorator"
    if ctx.in_brackets:
        return "call_arguments"
    if prefix_code.endswith("."):
        return "after_dot"
    if prefix_code == "return":
        return "after_return"
    if indent and width(leading_ws(following)) < indent:
        return "end_of_body"
    if indent and _CLASS_LINE.match(owner.strip()):
        return "class_body"
    return "top_level" if not indent else "body"


def parses(text: str, language: str) -> bool | None:
    """Does the whole document parse? Python by its own parser, others by tree-sitter (None: no grammar)."""
    if language == "python":
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # invalid escapes in the tasks' strings are warnings, not errors
            try:
                ast.parse(text)
            except (SyntaxError, ValueError, RecursionError, MemoryError):
                return False
        return True
    doc = SyntaxDocument(text, language, "")
    return None if doc.tree is None else not doc.has_errors()


def normalise(text: str, multi: bool) -> str:
    """Compare lines without trailing whitespace; single-line tasks compare their first non-empty line."""
    lines = [ln.rstrip() for ln in text.replace("\r\n", "\n").split("\n")]
    lines = [ln for ln in lines if ln.strip()] if not multi else lines
    if not multi:
        return lines[0].strip() if lines else ""
    while lines and not lines[-1]:
        lines.pop()
    return "\n".join(lines)


def baselines(task: dict[str, Any]) -> dict[str, str]:
    prev = task["prefix"].rstrip("\n").split("\n")[-1] if task["prefix"].strip() else ""
    return {"empty": "", "copy-previous-line": prev.strip() if task["prefix"].endswith("\n") else prev}


async def ask_all(tasks: list[dict[str, Any]], name: str, args: argparse.Namespace, postprocess: bool,
                  overrides: dict[str, Any] | None = None) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """Every task through one server: the texts each would insert at the cursor (and the top suggestion's
    confidence, from the request's record), and the server's records."""
    multi = name in MULTI_LINE_SETS
    settings = {"postprocess": postprocess, "candidates": args.candidates, "debounceMs": 0,
                "typedThrough": False, "speculative": False, "warmUp": False, "crossFileTokens": 0,
                **(handoff.settings(args.remote_url, args.remote_fim, args.handoff, args.remote_context_chars)
                   if args.handoff else {}),
                **json.loads(args.settings), **(overrides or {})}
    command = server_command(args.model)
    if args.server_from:  # another checkout's server (e.g. main before a change), this benchmark's tasks and scoring
        command = ["env", "-C", args.server_from, f"PYTHONPATH={args.server_from}", "PYTHONDONTWRITEBYTECODE=1",
                   *command]
    client = ReplayClient(command, settings)
    await client.start()
    answers: list[dict[str, Any]] = []
    records: dict[int, dict[str, Any]] = {}
    last_id = -1
    for i, task in enumerate(tasks):
        language = task.get("language", "python")
        buf = Buffer(f"file:///quality/{name}/{i}{_EXTENSIONS.get(language, '.txt')}", language,
                     task["prefix"] + task["suffix"], len(task["prefix"]), "")
        client.open(buf)
        # Completion items replace the word being typed; take the inserted part after it (ghost text inserts).
        kind = "inline" if multi or args.kind == "inline" else "completion"
        word = 0 if kind == "inline" else len(task["prefix"]) - len(task["prefix"].rstrip(WORD_CHARS))
        if args.handoff:  # the local answer, and the one asked again after a hand-off (benchmarks/handoff.py)
            answers.append(await handoff.ask(client, buf, kind, word, last_id))
            last_id = answers[-1]["last_id"]
        else:
            texts, ms = await client.ask(buf, kind)
            answers.append({"texts": [t[word:] for t in texts], "ms": ms})
        answers[-1]["uri"] = buf.uri
        client.client.text_document_did_close(_close(buf.uri))
        if (i + 1) % (STATS_EVERY // 4 if args.handoff else STATS_EVERY) == 0 or i + 1 == len(tasks):  # (kept: 256)
            st = await client.stats(recent=STATS_EVERY + 10)
            records.update({r["id"]: r for r in st.get("recent", [])})
    await client.stop()
    top = {r["doc"]: (r.get("extra") or {}).get("top_confidence")  # each document's first request's
           for r in sorted(records.values(), key=lambda r: -r["id"]) if r["kind"] in ("inline", "completion")}
    for answer in answers:
        answer["confidence"] = top.get(answer.pop("uri"))
    return answers, {"records": list(records.values()), "summary": st.get("summary") or {}}


def score(tasks: list[dict[str, Any]], answers: list[dict[str, Any]], multi: bool,
          server: dict[str, Any]) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """One run's totals and its per-task scores (empty, exact match, edit similarity, candidates that parse)."""
    per_task: list[dict[str, Any]] = []
    for task, answer in zip(tasks, answers):
        got = normalise(answer["texts"][0], multi) if answer["texts"] else ""
        want = normalise(task["middle"], multi)
        valid = []
        if task["doc_parses"] or task["truth_parses"]:
            valid = [parses(task["prefix"] + text + task["suffix"], task["language"]) for text in answer["texts"]]
        fits = None
        if answer["texts"] and task["doc_parses"]:
            # The top answer as a line of its own where the plan puts code after it (the raw path glues it on).
            top = answer["texts"][0]
            top = top.rstrip() + "\n" + task["line_prefix"] if task["before_code"] else top
            fits = parses(task["prefix"] + top + task["suffix"], task["language"])
        per_task.append({"empty": not answer["texts"], "em": float(got == want), "es": edit_similarity(got, want),
                         "nim": quality_names.name_match(got, want, task.get("typed", "")),
                         "valid": [v for v in valid if v is not None and task["doc_parses"]],
                         "valid_vs_truth": [v for v in valid if v is not None and task["truth_parses"]],
                         "fits": fits})
    checked = [v for row in per_task for v in row["valid"]]
    checked_vs_truth = [v for row in per_task for v in row["valid_vs_truth"]]
    plans: Counter[str] = Counter()
    rules: Counter[str] = Counter()
    for record in server["records"]:
        extra = record.get("extra") or {}
        plans[str(extra.get("plan"))] += 1
        rules.update(extra.get("top_rules") or [])
    lat = [a["ms"] for a in answers]
    totals = {
        "n": len(tasks), "answered": sum(not r["empty"] for r in per_task),
        "exact_match": _mean([r["em"] for r in per_task], 4), "edit_similarity": _mean([r["es"] for r in per_task], 2),
        "parse_valid": _mean([float(v) for v in checked], 4), "candidates_checked": len(checked),
        # the same where the document with the true middle parses (the right answer would leave it parseable)
        "parse_valid_vs_truth": _mean([float(v) for v in checked_vs_truth], 4),
        "candidates_checked_vs_truth": len(checked_vs_truth),
        "p50_ms": round(statistics.median(lat), 1) if lat else 0,
        # the server's own measure: decode time per decoding step (one token per branch), this set's requests
        "decode_ms_per_token": round(float(server["summary"].get("decode_ms_per_token") or 0), 2),
        "rules": dict(rules), "plans": dict(plans),
        "steered": sum(bool((r.get("extra") or {}).get("steered")) for r in server["records"]),
        "names": quality_names.breakdown(tasks, per_task) if not multi else None,
        # what a person gets from the top suggestion (benchmarks/shown.py): shown, precision, characters saved
        "person": person_breakdown([a["texts"][0] if a["texts"] else "" for a in answers],
                                   [t["middle"] for t in tasks], [t["class"] for t in tasks])}
    return totals, per_task


def _mean(values: list[float], digits: int) -> float:
    return round(statistics.mean(values), digits) if values else 0.0


def compare(tasks: list[dict[str, Any]], post: list[dict[str, Any]], raw: list[dict[str, Any]]) -> dict[str, Any]:
    """Per request, post-processed against raw: empty answers it caused, right answers it lost; by class."""
    def measures(index: list[int]) -> dict[str, Any]:
        return {
            "n": len(index),
            "empty_while_raw_not": _mean([float(post[i]["empty"] and not raw[i]["empty"]) for i in index], 4),
            "empty_while_raw_right": _mean([float(post[i]["empty"] and raw[i]["em"] == 1.0) for i in index], 4),
            # empty although the raw answer (as a line of its own above code) would keep the document parseable
            "empty_while_raw_fits": _mean([float(post[i]["empty"] and raw[i]["fits"] is True) for i in index], 4),
            "right_answers_lost": _mean([float(raw[i]["em"] == 1.0 and post[i]["em"] == 0.0) for i in index], 4),
            "exact_match": _mean([post[i]["em"] for i in index], 4),
            "raw_exact_match": _mean([raw[i]["em"] for i in index], 4),
            "edit_similarity": _mean([post[i]["es"] for i in index], 2),
            "raw_edit_similarity": _mean([raw[i]["es"] for i in index], 2),
        }
    by_class: dict[str, list[int]] = defaultdict(list)
    for i, task in enumerate(tasks):
        by_class[task["class"]].append(i)
    return {**measures(list(range(len(tasks)))),
            "by_class": {name: measures(index) for name, index in sorted(by_class.items())}}


def saved_raw_run(path: str, name: str, tasks: list[dict[str, Any]]) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """The run without post-processing of set `name` from an earlier results file (same model and tasks); the
    tasks take its position classes too, so both files break down alike whatever syntax layer runs now."""
    saved = load_result(path)["sets"][name]
    rows = {row["id"]: row for row in saved["tasks"]}
    missing = [task["id"] for task in tasks if task["id"] not in rows]
    if missing:
        raise SystemExit(f"{path} has no raw answer for {len(missing)} {name} tasks (first: {missing[0]})")
    for task in tasks:
        task["class"] = rows[task["id"]]["class"]
    return [{"texts": rows[task["id"]]["raw"], "ms": 0.0} for task in tasks], saved["laya-raw"]


def _close(uri: str) -> lsp.DidCloseTextDocumentParams:
    return lsp.DidCloseTextDocumentParams(lsp.TextDocumentIdentifier(uri=uri))


def baseline_scores(tasks: list[dict[str, Any]], multi: bool) -> dict[str, dict[str, float]]:
    out = {}
    for kind in ("empty", "copy-previous-line"):
        em = [float(normalise(baselines(t)[kind], multi) == normalise(t["middle"], multi)) for t in tasks]
        es = [edit_similarity(normalise(baselines(t)[kind], multi), normalise(t["middle"], multi)) for t in tasks]
        out[kind] = {"exact_match": round(statistics.mean(em), 4), "edit_similarity": round(statistics.mean(es), 2)}
    return out


def print_set(name: str, entry: dict[str, Any]) -> None:
    print(f"\n{name} ({len(entry['tasks'])} tasks, {entry['docs_parse']} documents parse)")
    for label, row in [("laya", entry["laya"]), ("laya, no post-processing", entry.get("laya-raw")),
                       *[(f"baseline: {k}", v) for k, v in entry["baselines"].items()]]:
        if row:
            extra = f"  answered {row['answered']}/{row['n']}" if "answered" in row else ""
            if "parse_valid" in row:
                extra += (f"  parse-valid {row['parse_valid']:.3f} of {row['candidates_checked']}"
                          f" ({row['parse_valid_vs_truth']:.3f} of {row['candidates_checked_vs_truth']} vs truth)")
            extra += f"  p50 {row['p50_ms']:.1f} ms" if "p50_ms" in row else ""
            print(f"  {label:<28} EM {row['exact_match']:.3f}  ES {row['edit_similarity']:6.2f}{extra}")
    print(f"  rules applied to top candidates: {entry['laya']['rules']}")
    for label, row in [("laya", entry["laya"]), ("no post-processing", entry.get("laya-raw")),
                       ("uncut (minConfidence 0)", entry.get("laya-uncut"))]:
        person = (row or {}).get("person")
        if person:
            print(f"  {label}: shown {person['shown']:.3f}  precision {person['precision']:.3f}  chars saved"
                  f" {person['chars_saved']:.3f}  shown and wrong {person['shown_wrong']:.3f}")
    for cause, row in (entry.get("cut-causes") or {}).items():
        if cause != "by_class":
            print(f"  cut: {cause:<24} {row['n']:>4}  chars lost {row['chars_lost']:>5}"
                  f"  confidence (median) {row['confidence_median']}")
    versus = entry.get("versus-raw")
    if versus:
        print(f"  {'class':<18} {'n':>4}  empty while raw: not empty  fits  right   right lost"
              "  EM post/raw  ES post/raw")
        for cls, row in [("all", versus), *versus["by_class"].items()]:
            print(f"  {cls:<18} {row['n']:>4}  {row['empty_while_raw_not']:>25.3f}  {row['empty_while_raw_fits']:.3f}"
                  f"  {row['empty_while_raw_right']:.3f}  {row['right_answers_lost']:>10.3f}"
                  f"  {row['exact_match']:.3f}/{row['raw_exact_match']:.3f}"
                  f"  {row['edit_similarity']:5.1f}/{row['raw_edit_similarity']:5.1f}")


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--model", help="model directory (default: the embedded model)")
    p.add_argument("--candidates", type=int, default=1)
    p.add_argument("--kind", choices=["completion", "inline"], default="completion",
                   help="single-line sets: ask for a completion list (default) or ghost text (what a person sees)")
    p.add_argument("--limit-single", type=int, default=0, help="HumanEval single-line tasks (0 = all 457)")
    p.add_argument("--limit-multi", type=int, default=200, help="HumanEval multi-line tasks, a fixed sample")
    p.add_argument("--limit-heldout", type=int, default=400)
    p.add_argument("--limit-files", type=int, default=200, help="whole-file line tasks, a fixed sample")
    p.add_argument("--files", nargs="+", default=FILES, help="glob patterns of the whole files (default: examples/*)")
    p.add_argument("--quick", action="store_true", help="30 tasks per set")
    p.add_argument("--no-raw", action="store_true", help="skip the run without post-processing")
    p.add_argument("--uncut", action="store_true", help="also run each set with minConfidence 0 (shown whole) and "
                   "break down what the confidence cut did, cause by cause (benchmarks/shown.py cut_causes)")
    p.add_argument(
        "--raw-from",
        metavar="RESULTS_JSON",
        help="take the run without post-processing from an earlier results file (.json or .json.gz) of the same model "
             "and "
        "tasks instead of running it again (to compare post-processing variants)",
    )
    p.add_argument("--server-from", metavar="DIR", help="run the server from another checkout (a paired 'before' run)")
    p.add_argument(
        "--evals", default=str(EVALS), help="folder of the HumanEval infilling files (default: ../shared/evals)"
    )
    p.add_argument(
        "--split", choices=["dev", "test"], help="only the tasks of this split (benchmarks/quality_names.py)"
    )
    p.add_argument("--sets", nargs="+", help="only these sets (default: all)")
    p.add_argument("--files-half", choices=list(PARTS),
                   help="files-<language>: only this part of the held-out files (benchmarks/common.py heldout_half)")
    p.add_argument("--save-as", default="quality", help="results name: benchmarks/results/<date>-<name>.json")
    p.add_argument(
        "--settings", default="{}", help="laya settings (JSON) over the run's own, e.g. '{\"draftTokens\": 0}'"
    )
    p.add_argument("--handoff", nargs="?", const="unsure", choices=["unsure", "always"],
                   help="with the hand-off to a local mlx_lm.server (fallback.completions; benchmarks/handoff.py)")
    p.add_argument("--remote-model", help="the model the serving engine serves (default: the embedded model)")
    p.add_argument("--remote-fim", default="qwen/spm", help="fallback.fim for the remote model")
    p.add_argument("--remote-context-chars", type=int, default=10000,
                   help="fallback.contextChars (a 1,024-token remote model: ~3000)")
    args = p.parse_args()
    if args.handoff:
        args.no_raw = True
        with handoff.serving_engine(args.remote_model) as args.remote_url:
            return run(args)
    return run(args)


def run(args: argparse.Namespace) -> int:
    """Every set through the server, scored, printed and saved."""
    if args.quick:
        args.limit_single = args.limit_multi = args.limit_heldout = args.limit_files = 30
    sets = load_tasks(args)
    report: dict[str, Any] = {"args": vars(args), "sets": {}}
    t0 = time.time()
    for name, tasks in sets.items():
        if args.split:
            tasks = [t for t in tasks if quality_names.split(t["id"]) == args.split]
        if not tasks or (args.sets and name not in args.sets):  # a limit of 0 leaves the set out
            continue
        multi = name in MULTI_LINE_SETS
        for task in tasks:
            doc = SyntaxDocument(task["prefix"] + task["suffix"], task["language"], "")
            task["before_code"] = plan_completion(doc, len(task["prefix"])).before_code
            task["line_prefix"] = cursor_context(doc, len(task["prefix"])).line_prefix
            task["class"] = position_class(task)
            task["trigger"], task["split"] = quality_names.trigger(task), quality_names.split(task["id"])
            word = len(task["prefix"]) - len(task["prefix"].rstrip(WORD_CHARS))
            task["typed"] = task["prefix"][word:]
            task["doc_parses"] = bool(parses(task["prefix"] + task["suffix"], task["language"]))
            task["truth_parses"] = bool(parses(task["prefix"] + task["middle"] + task["suffix"], task["language"]))
        saved = saved_raw_run(args.raw_from, name, tasks) if args.raw_from else None
        entry: dict[str, Any] = {
            "baselines": baseline_scores(tasks, multi),
            "docs_parse": sum(t["doc_parses"] for t in tasks),
            "docs_parse_with_truth": sum(t["truth_parses"] for t in tasks),
            "tasks": [
                {"id": t["id"], "class": t["class"], "trigger": t["trigger"], "split": t["split"]} for t in tasks
            ],
        }
        answers, server = asyncio.run(ask_all(tasks, name, args, postprocess=True))
        entry["laya"], post = score(tasks, answers, multi, server)
        if args.handoff:
            entry["handoff"] = handoff.compare(tasks, answers)
        for row, answer in zip(entry["tasks"], answers):
            row["post"], row["confidence"] = answer["texts"], answer["confidence"]
        if args.uncut:  # the same suggestions shown whole: what the confidence cut did, cause by cause
            uncut, uncut_server = asyncio.run(ask_all(tasks, name, args, postprocess=True,
                                                      overrides={"minConfidence": 0}))
            entry["laya-uncut"] = score(tasks, uncut, multi, uncut_server)[0]
            cut_top, uncut_top = ([a["texts"][0] if a["texts"] else "" for a in run] for run in (answers, uncut))
            entry["cut-causes"] = cut_causes(cut_top, uncut_top, [t["middle"] for t in tasks],
                                             [t["class"] for t in tasks], [a["confidence"] for a in answers])
            for row, answer in zip(entry["tasks"], uncut):
                row["uncut"] = answer["texts"]
        raw_answers = None
        if saved is not None:
            raw_answers, entry["laya-raw"] = saved
            _, raw = score(tasks, raw_answers, multi, {"records": [], "summary": {}})
        elif not args.no_raw:
            raw_answers, raw_server = asyncio.run(ask_all(tasks, name, args, postprocess=False))
            entry["laya-raw"], raw = score(tasks, raw_answers, multi, raw_server)
        if raw_answers is not None:
            entry["versus-raw"] = compare(tasks, post, raw)
            for row, answer in zip(entry["tasks"], raw_answers):
                row["raw"] = answer["texts"]
        report["sets"][name] = entry
        print_set(name, entry)
        if args.handoff:
            handoff.print_comparison(entry)
        quality_names.print_breakdown(entry)
    report["wall_s"] = round(time.time() - t0, 1)
    print("saved", save(args.save_as, report))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

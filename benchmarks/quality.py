"""Fill-in-the-middle quality through the real LSP server, before and after post-processing.

    python -m benchmarks.quality [--model DIR] [--candidates K] [--limit-multi 200] [--limit-heldout 400] [--quick]
For each task the server gets a document (prefix + suffix) and a request at the cursor; the first candidate
is scored by exact match and edit similarity against the true middle. Sets: HumanEval single-line and
multi-line infilling (even problem ids, ../shared/evals) and the held-out real-code line set
(benchmarks/data/heldout.jsonl, files kept out of the training corpus). Trivial baselines (empty answer, copy
of the previous line) give the numbers a floor. Run once with post-processing and once without, so each
rule's gain shows. Prints a table and saves JSON under benchmarks/results/.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import statistics
import time
from collections import Counter
from pathlib import Path
from typing import Any

from lsprotocol import types as lsp

from benchmarks.common import save
from laya_lsp.replay import Buffer, ReplayClient, server_command

ROOT = Path(__file__).resolve().parent.parent

EVALS = ROOT.parent / "shared" / "evals"
HELDOUT = ROOT / "benchmarks" / "data" / "heldout.jsonl"


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


def load_tasks(args: argparse.Namespace) -> dict[str, list[dict[str, Any]]]:
    rng = random.Random(0)
    sets: dict[str, list[dict[str, Any]]] = {}
    single = EVALS / "humaneval-single-line-even.jsonl"
    multi = EVALS / "humaneval-multi-line-even.jsonl"
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
    return sets


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


async def run_set(tasks: list[dict[str, Any]], name: str, args: argparse.Namespace,
                  postprocess: bool) -> dict[str, Any]:
    multi = name == "humaneval-multi"
    settings = {"postprocess": postprocess, "candidates": args.candidates, "debounceMs": 0,
                "typedThrough": False, "speculative": False, "warmUp": False, "crossFileTokens": 0}
    client = ReplayClient(server_command(args.model), settings)
    await client.start()
    em: list[float] = []
    es: list[float] = []
    lat: list[float] = []
    rules: Counter[str] = Counter()
    plans: Counter[str] = Counter()
    answered = 0
    for i, task in enumerate(tasks):
        text = task["prefix"] + task["suffix"]
        buf = Buffer(f"file:///quality/{name}/{i}.py", task.get("language", "python"), text, len(task["prefix"]), "")
        client.open(buf)
        texts, ms = await client.ask(buf, "inline" if multi else "completion")
        if not multi and texts:
            # Completion items replace the word being typed; take the inserted part after it.
            word = len(task["prefix"]) - len(task["prefix"].rstrip("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_"))
            texts = [t[word:] for t in texts]
        client.client.text_document_did_close(_close(buf.uri))
        got = normalise(texts[0], multi) if texts else ""
        want = normalise(task["middle"], multi)
        answered += bool(texts)
        em.append(float(got == want))
        es.append(edit_similarity(got, want))
        lat.append(ms)
    st = await client.stats(recent=len(tasks) + 10)
    for r in st.get("recent", []):
        extra = r.get("extra") or {}
        plans[str(extra.get("plan"))] += 1
        for rule in extra.get("top_rules") or []:
            rules[rule] += 1
    await client.stop()
    return {"n": len(tasks), "answered": answered, "exact_match": round(statistics.mean(em), 4) if em else 0,
            "edit_similarity": round(statistics.mean(es), 2) if es else 0,
            "p50_ms": round(statistics.median(lat), 1) if lat else 0,
            # the server's own measure: decode time per decoding step (one token per branch), this set's requests
            "decode_ms_per_token": round(float((st.get("summary") or {}).get("decode_ms_per_token") or 0), 2),
            "rules": dict(rules), "plans": dict(plans)}


def _close(uri: str) -> lsp.DidCloseTextDocumentParams:
    return lsp.DidCloseTextDocumentParams(lsp.TextDocumentIdentifier(uri=uri))


def baseline_scores(tasks: list[dict[str, Any]], multi: bool) -> dict[str, dict[str, float]]:
    out = {}
    for kind in ("empty", "copy-previous-line"):
        em = [float(normalise(baselines(t)[kind], multi) == normalise(t["middle"], multi)) for t in tasks]
        es = [edit_similarity(normalise(baselines(t)[kind], multi), normalise(t["middle"], multi)) for t in tasks]
        out[kind] = {"exact_match": round(statistics.mean(em), 4), "edit_similarity": round(statistics.mean(es), 2)}
    return out


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--model", help="model directory (default: the embedded model)")
    p.add_argument("--candidates", type=int, default=1)
    p.add_argument("--limit-single", type=int, default=0, help="HumanEval single-line tasks (0 = all 457)")
    p.add_argument("--limit-multi", type=int, default=200, help="HumanEval multi-line tasks, a fixed sample")
    p.add_argument("--limit-heldout", type=int, default=400)
    p.add_argument("--quick", action="store_true", help="30 tasks per set")
    p.add_argument("--no-raw", action="store_true", help="skip the run without post-processing")
    p.add_argument("--save-as", default="quality", help="results name: benchmarks/results/<date>-<name>.json")
    args = p.parse_args()
    if args.quick:
        args.limit_single = args.limit_multi = args.limit_heldout = 30
    sets = load_tasks(args)
    report: dict[str, Any] = {"args": vars(args), "sets": {}}
    t0 = time.time()
    for name, tasks in sets.items():
        if not tasks:  # a limit of 0 leaves the set out
            continue
        multi = name == "humaneval-multi"
        entry: dict[str, Any] = {"baselines": baseline_scores(tasks, multi)}
        entry["laya"] = asyncio.run(run_set(tasks, name, args, postprocess=True))
        if not args.no_raw:
            entry["laya-raw"] = asyncio.run(run_set(tasks, name, args, postprocess=False))
        report["sets"][name] = entry
        print(f"\n{name} ({len(tasks)} tasks)")
        for label, row in [("laya", entry["laya"]), ("laya, no post-processing", entry.get("laya-raw")),
                           *[(f"baseline: {k}", v) for k, v in entry["baselines"].items()]]:
            if row:
                extra = f"  p50 {row['p50_ms']:.1f} ms" if "p50_ms" in row else ""
                extra += f"  decode {row['decode_ms_per_token']:.1f} ms/token" if row.get("decode_ms_per_token") else ""
                print(f"  {label:<28} EM {row['exact_match']:.3f}  ES {row['edit_similarity']:6.2f}{extra}")
        print(f"  rules applied to top candidates: {entry['laya']['rules']}")
    report["wall_s"] = round(time.time() - t0, 1)
    print("saved", save(args.save_as, report))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

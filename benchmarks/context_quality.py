"""What the context before the prompt is worth: line-completion quality through the real server, per settings
variant, the variants interleaved task by task in one server so load on the machine hits them alike.

    python -m benchmarks.context_quality [--variants JSON] [--sets deep-names,deep-lines,heldout-lines,...]
                                         [--limit N] [--model DIR] [--save-as NAME]
Variants are named laya settings, each naming every key any variant sets (they are applied in turn to one
server; default: `outlineTokens` 0 against the server's default). Sets: `deep-names` and `deep-lines`
(benchmarks/deep_lines.py: whole held-out files, the cursor deep in them), `heldout-lines`
(benchmarks/data/heldout.jsonl) and `humaneval-single` (../shared/evals). Each request asks for one candidate with
post-processing on and the server's latency tricks off; the first candidate is scored by exact match, edit similarity
and whether its first word (identifier) is the true one (in `deep-names` that word is the name the window cannot show)
against the true rest of the line. The first variant is the reference: every other one gets per-task wins and losses
against it. Prints a table and saves JSON under benchmarks/results/.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import re
import statistics
import time
from typing import Any

from lsprotocol import types as lsp

from benchmarks import deep_lines, quality
from benchmarks.common import save
from laya_lsp.config import Settings
from laya_lsp.replay import Buffer, ReplayClient, server_command

# One greedy candidate, cleaned; nothing that makes a request's answer depend on an earlier one.
BASE = {"postprocess": True, "candidates": 1, "debounceMs": 0, "typedThrough": False, "speculative": False,
        "warmUp": False, "crossFileTokens": 0}
DEFAULT_VARIANTS = {"outline-off": {"outlineTokens": 0}, "outline-on": {"outlineTokens": Settings().outline_tokens}}
WORD = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_")
FIRST_WORD = re.compile(r"\W*(\w*)")


def first_word(text: str) -> str:
    """The first identifier-like word of a line ("" if none)."""
    match = FIRST_WORD.match(text)
    return match.group(1) if match else ""


def load(names: list[str], limit: int) -> dict[str, list[dict[str, Any]]]:
    """The named sets, at most `limit` tasks each (0 = all)."""
    sets = deep_lines.load_sets(limit)
    if {"heldout-lines", "humaneval-single"} & set(names):
        # quality.load_tasks takes its limits from an argparse namespace; only the single-line sets are wanted
        args = argparse.Namespace(limit_single=limit, limit_multi=0, limit_heldout=limit or 400, files=[],
                                  limit_files=0)
        sets.update(quality.load_tasks(args))
    return {name: sets[name] for name in names}


async def run_set(name: str, tasks: list[dict[str, Any]], variants: dict[str, dict[str, Any]],
                  model: str | None) -> dict[str, list[dict[str, Any]]]:
    """Every task under every variant (interleaved); per variant, per task: the answer, latency and prompt size."""
    client = ReplayClient(server_command(model), BASE)
    await client.start()
    out: dict[str, list[dict[str, Any]]] = {v: [] for v in variants}
    for i, task in enumerate(tasks):
        for label, settings in variants.items():
            client.client.workspace_did_change_configuration(
                lsp.DidChangeConfigurationParams(settings={"laya": {**BASE, **settings}}))
            uri = f"file:///context/{name}/{label}/{i}.py"
            buf = Buffer(uri, task.get("language", "python"), task["prefix"] + task["suffix"], len(task["prefix"]), "")
            client.open(buf)
            texts, ms = await client.ask(buf, "completion")
            record = (await client.stats(recent=1))["recent"][-1]
            client.client.text_document_did_close(
                lsp.DidCloseTextDocumentParams(lsp.TextDocumentIdentifier(uri=uri)))
            # Completion items replace the word being typed; the inserted part comes after it.
            word = len(task["prefix"]) - len(task["prefix"].rstrip("".join(WORD)))
            got = quality.normalise(texts[0][word:], False) if texts else ""
            want = quality.normalise(task["middle"], False)
            out[label].append({"id": task["id"], "got": got, "em": float(got == want),
                               "es": quality.edit_similarity(got, want), "ms": ms,
                               "word": float(bool(first_word(want)) and first_word(got) == first_word(want)),
                               "prompt_tokens": record.get("prompt_tokens", 0)})
        if (i + 1) % 20 == 0:
            print(f"  {name}: {i + 1}/{len(tasks)}", flush=True)
    await client.stop()
    return out


def summarise(rows: list[dict[str, Any]], reference: list[dict[str, Any]]) -> dict[str, Any]:
    """Totals of one variant, and per-task comparison with the reference variant."""
    diffs = [r["es"] - ref["es"] for r, ref in zip(rows, reference)]
    return {
        "n": len(rows), "exact_match": round(statistics.mean(r["em"] for r in rows), 4),
        "edit_similarity": round(statistics.mean(r["es"] for r in rows), 2),
        "first_word": round(statistics.mean(r["word"] for r in rows), 4),
        "word_wins": sum(r["word"] > ref["word"] for r, ref in zip(rows, reference)),
        "word_losses": sum(r["word"] < ref["word"] for r, ref in zip(rows, reference)),
        "answered": sum(bool(r["got"]) for r in rows),
        "p50_ms": round(statistics.median(r["ms"] for r in rows), 1),
        "prompt_tokens": round(statistics.mean(r["prompt_tokens"] for r in rows), 1),
        "em_wins": sum(r["em"] > ref["em"] for r, ref in zip(rows, reference)),
        "em_losses": sum(r["em"] < ref["em"] for r, ref in zip(rows, reference)),
        "es_diff": round(statistics.mean(diffs), 2),
        # standard error of the mean paired difference: how far es_diff is from noise
        "es_diff_se": round(statistics.stdev(diffs) / len(diffs) ** 0.5, 2) if len(diffs) > 1 else 0.0,
    }


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--model", help="model directory (default: the embedded model)")
    p.add_argument("--variants", default=json.dumps(DEFAULT_VARIANTS),
                   help="JSON object: variant name -> laya settings over the base (the first is the reference)")
    p.add_argument("--sets", default="deep-names,deep-lines,heldout-lines,humaneval-single")
    p.add_argument("--limit", type=int, default=0, help="tasks per set (0 = all)")
    p.add_argument("--save-as", default="context-quality", help="results name: benchmarks/results/<date>-<name>.json")
    args = p.parse_args()
    variants: dict[str, dict[str, Any]] = json.loads(args.variants)
    if len({frozenset(v) for v in variants.values()}) > 1:
        p.error("every variant must name the same settings keys (they are applied in turn to one server)")
    sets = load([s.strip() for s in args.sets.split(",") if s.strip()], args.limit)
    report: dict[str, Any] = {"args": vars(args), "base": BASE, "sets": {}}
    t0 = time.time()
    for name, tasks in sets.items():
        rows = asyncio.run(run_set(name, tasks, variants, args.model))
        reference = rows[next(iter(variants))]
        entry = {label: summarise(r, reference) for label, r in rows.items()}
        report["sets"][name] = {"summary": entry, "tasks": rows}
        print(f"\n{name} ({len(tasks)} tasks)")
        for label, row in entry.items():
            print(f"  {label:<16} EM {row['exact_match']:.3f}  ES {row['edit_similarity']:6.2f}"
                  f"  word {row['first_word']:.3f}  vs first: EM +{row['em_wins']}/-{row['em_losses']},"
                  f" word +{row['word_wins']}/-{row['word_losses']}, ES {row['es_diff']:+.2f} ± {row['es_diff_se']:.2f}"
                  f"  answered {row['answered']}  prompt {row['prompt_tokens']:.0f} tok  p50 {row['p50_ms']:.0f} ms",
                  flush=True)
    report["wall_s"] = round(time.time() - t0, 1)
    print("saved", save(args.save_as, report))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

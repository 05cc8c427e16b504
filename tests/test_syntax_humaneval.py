"""On HumanEval infilling (even ids, the subset in tests/data/humaneval): post-processing keeps correct middles and
recovers them when the model runs on into the code that follows."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from laya_lsp.syntax import SyntaxDocument, plan_completion, postprocess

EVALS = Path(__file__).resolve().parent / "data" / "humaneval"


def _tasks(name: str) -> list[dict[str, str]]:
    path = EVALS / f"humaneval-{name}-even.jsonl"
    return [json.loads(line) for line in path.read_text().splitlines()]


@pytest.mark.parametrize("name", ["single-line", "multi-line"])
def test_true_middles_survive_and_run_on_is_cut(name: str) -> None:
    kept = recovered = total = 0
    for task in _tasks(name):
        prompt, suffix, truth = task["prompt"], task["suffix"], task["canonical_solution"]
        doc = SyntaxDocument(prompt + suffix, "python", "file:///task.py")
        plan = plan_completion(doc, len(prompt))
        assert plan.complete, task["task_id"]
        total += 1
        clean = postprocess(doc, len(prompt), [truth], plan)
        # Trailing spaces are trimmed, and at an empty line the single-line plan leaves out the final line
        # break; nothing else may change.
        truth_lines = "\n".join(line.rstrip() for line in truth.split("\n"))
        kept += bool(clean and clean[0].text in (truth_lines, truth_lines.rstrip("\n")))
        run_on = postprocess(doc, len(prompt), [truth + suffix[:300]], plan)
        recovered += bool(clean and run_on and run_on[0].text == clean[0].text)
    if name == "single-line":  # a single-line plan keeps only the first line of a multi-line middle
        assert kept >= 0.99 * total, (kept, total)
    assert recovered >= 0.99 * kept, (recovered, kept)

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


def _lines(text: str) -> str:
    """Trailing spaces are trimmed (by the clean-up and here): nothing else may differ."""
    return "\n".join(line.rstrip() for line in text.split("\n"))


# (kept of total) when this floor was set: single-line 456 of 457; multi-line 129 of 280, the rest cut by the
# plan's line budget or at a block's end (51 declined: a single-line plan at a block header).
KEPT_FLOOR = {"single-line": 0.99, "multi-line": 0.45}


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
        # What stays of a true middle is its first lines (cut by the plan: one line, or at a block's end), or
        # those lines with the brackets they opened closed (`fixed`); never other text.
        assert not clean or clean[0].fixed or _lines(truth).startswith(_lines(clean[0].text)), task["task_id"]
        # At an empty line the single-line plan leaves out the final line break.
        kept += bool(clean and _lines(clean[0].text) in (_lines(truth), _lines(truth).rstrip("\n")))
        run_on = postprocess(doc, len(prompt), [truth + suffix[:300]], plan)
        recovered += bool(clean and run_on and run_on[0].text == clean[0].text)
    assert kept >= KEPT_FLOOR[name] * total, (kept, total)
    assert recovered >= 0.99 * kept, (recovered, kept)

"""Real files (examples/): with the true rest of a line as the model's answer, post-processing returns it.

Every code line is cut after its indentation, after its `return ` and after its first `.`; the whole file stays
around it, as an editor sends it. (The rules once lost the enclosing blocks of long bodies, openers behind
comments and continuation lines, and answered nothing at many of these positions.)"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from laya_lsp.syntax import SyntaxDocument, plan_completion, postprocess

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"
LANGUAGES = {".py": "python", ".js": "javascript", ".go": "go"}
DOT_AFTER_NAME = re.compile(r"[A-Za-z_)\]]\.(?=[A-Za-z_])")


def _positions(text: str) -> list[tuple[int, str]]:
    """(cursor offset, true rest of the line) for every code line of `text`."""
    out, start = [], 0
    for line in text.split("\n"):
        code = line.strip()
        if len(code) >= 8 and not code.startswith(("#", "//", '"""')):
            indent = len(line) - len(line.lstrip())
            cuts = {indent, *([indent + len("return ")] if code.startswith("return ") else [])}
            dot = DOT_AFTER_NAME.search(line)
            cuts |= {dot.end()} if dot else set()
            out += [(start + cut, line[cut:]) for cut in sorted(cuts)]
        start += len(line) + 1
    return out


@pytest.mark.parametrize("path", sorted(p for p in EXAMPLES.iterdir() if p.suffix in LANGUAGES), ids=lambda p: p.name)
def test_true_rest_of_line_survives(path: Path) -> None:
    full = path.read_text(encoding="utf-8")
    kept = total = 0
    lost = []
    for offset, truth in _positions(full):
        end = full.index("\n", offset)
        text = full[:offset] + full[end:]
        doc = SyntaxDocument(text, LANGUAGES[path.suffix], path.as_uri())
        plan = plan_completion(doc, offset)
        if not plan.complete:
            continue
        total += 1
        result = postprocess(doc, offset, [truth], plan)
        if result and result[0].text.strip() == truth.strip():
            kept += 1
        else:
            lost.append((text.count("\n", 0, offset) + 1, truth, result[0].text if result else None))
    assert total >= 20
    assert kept >= 0.97 * total, lost

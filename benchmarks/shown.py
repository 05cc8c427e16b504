"""What a person gets from what is shown (issue 32): beside exact match, measured on the text the editor shows.

- `right_as_far(shown, truth)`: every line of the shown text is what the person then writes, the last one as a
  prefix of theirs (trailing blanks aside): accepting it is never wrong, only possibly short.
- `person_measures`: over requests, the share shown something, the precision of what is shown (right as far as
  it goes), the characters accepting what is shown saves over all characters to write (wrong suggestions save
  nothing), and the share shown something wrong.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from typing import Any


def right_as_far(shown: str, truth: str) -> bool:
    """Is `shown` (non-blank) right as far as it goes against `truth`, the text the person writes?"""
    if not shown.strip():
        return False
    lines = shown.rstrip().split("\n")
    want = truth.replace("\r\n", "\n").split("\n")
    if len(lines) > len(want):
        return False
    for got, true in zip(lines[:-1], want):
        if got.rstrip() != true.rstrip():
            return False
    return want[len(lines) - 1].startswith(lines[-1].rstrip())


def saved_chars(shown: str, truth: str) -> int:
    """Characters accepting `shown` writes for the person (0 when it is wrong)."""
    return len(shown.rstrip()) if right_as_far(shown, truth) else 0


def person_measures(shown: Sequence[str], truths: Sequence[str]) -> dict[str, Any]:
    """Shown share, precision of what is shown, characters saved over characters to write, shown-and-wrong."""
    n = len(truths)
    showing = [i for i, s in enumerate(shown) if s.strip()]
    right = [i for i in showing if right_as_far(shown[i], truths[i])]
    to_write = sum(len(t.rstrip()) for t in truths)
    return {
        "n": n,
        "shown": round(len(showing) / n, 4) if n else 0.0,
        "precision": round(len(right) / len(showing), 4) if showing else 0.0,
        "chars_saved": round(sum(saved_chars(shown[i], truths[i]) for i in right) / to_write, 4) if to_write else 0.0,
        "shown_wrong": round((len(showing) - len(right)) / n, 4) if n else 0.0,
    }


def person_breakdown(shown: Sequence[str], truths: Sequence[str], classes: Sequence[str]) -> dict[str, Any]:
    """`person_measures` over all requests and per class (position class, language, ...)."""
    by: dict[str, list[int]] = defaultdict(list)
    for i, c in enumerate(classes):
        by[c].append(i)
    return {**person_measures(shown, truths),
            "by_class": {c: person_measures([shown[i] for i in idx], [truths[i] for i in idx])
                         for c, idx in sorted(by.items())}}

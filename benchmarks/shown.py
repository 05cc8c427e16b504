"""What a person gets from what is shown (issue 32): beside exact match, measured on the text the editor shows.

- `right_as_far(shown, truth)`: every line of the shown text is what the person then writes, the last one as a
  prefix of theirs (trailing blanks aside): accepting it is never wrong, only possibly short.
- `person_measures`: over requests, the share shown something, the precision of what is shown (right as far as
  it goes), the characters accepting what is shown saves over all characters to write (wrong suggestions save
  nothing), and the share shown something wrong.
- `cut_causes`: what the confidence cut did, request by request, against the same suggestions shown whole
  (`quality.py --uncut`): right answers kept, shortened or withheld, wrong ones cut to a right head, withheld or
  still shown; how many, the characters each cause lost or gained, the confidence there.
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


CAUSES = ("right_kept", "right_shortened", "right_withheld", "right_made_wrong", "wrong_cut_to_right_head",
          "wrong_withheld", "wrong_still_shown", "nothing_either_way")


def cut_cause(cut: str, uncut: str, truth: str) -> str:
    """What the confidence cut did to one request's top suggestion, `uncut` (shown whole) against `cut`."""
    right_before, right_after = right_as_far(uncut, truth), right_as_far(cut, truth)
    if right_before:
        if not cut.strip():
            return "right_withheld"
        if not right_after:
            return "right_made_wrong"  # the cut changed which suggestion is shown
        return "right_shortened" if saved_chars(cut, truth) < saved_chars(uncut, truth) else "right_kept"
    if right_after:
        return "wrong_cut_to_right_head"
    if cut.strip():
        return "wrong_still_shown"
    return "wrong_withheld" if uncut.strip() else "nothing_either_way"


def cut_causes(cut: Sequence[str], uncut: Sequence[str], truths: Sequence[str], classes: Sequence[str],
               confidence: Sequence[float | None] = ()) -> dict[str, Any]:
    """Per cause (`cut_cause`), over all requests and per class: how many, the characters saved uncut minus cut
    (what the cut lost there; negative: gained), and the top suggestion's confidence under the cut (median)."""
    def one(idx: list[int]) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for cause in CAUSES:
            hit = [i for i in idx if cut_cause(cut[i], uncut[i], truths[i]) == cause]
            if not hit:
                continue
            conf = sorted(c for i in hit if i < len(confidence) and (c := confidence[i]) is not None)
            out[cause] = {"n": len(hit),
                          "chars_lost": sum(saved_chars(uncut[i], truths[i]) - saved_chars(cut[i], truths[i])
                                            for i in hit),
                          "confidence_median": round(conf[len(conf) // 2], 3) if conf else None}
        return out

    by: dict[str, list[int]] = defaultdict(list)
    for i, c in enumerate(classes):
        by[c].append(i)
    return {**one(list(range(len(truths)))), "by_class": {c: one(idx) for c, idx in sorted(by.items())}}

"""Stop rules: what a branch's next token means for it (go on, end with it, end without it).

A stop rule is a policy the decode core is given (decode.py's `DecodeSettings.stop`), checked for every token a
branch emits, drafted ones included.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from enum import Enum

from ...lines import closed_before_break, ends_answer

NO_BRACKETS = (0, 0, 0)


class Verdict(Enum):
    """What a stop rule says about a branch's next token."""

    GO = "go"  # keep it and go on
    END = "end"  # keep it, then end the branch
    CUT = "cut"  # end the branch without it


# (the branch's tokens so far, its next token) -> verdict
StopRule = Callable[[list[int], int], Verdict]


def never_stop(_ids: list[int], _token: int) -> Verdict:
    return Verdict.GO


@dataclass(frozen=True)
class LineStop:
    """Completions' stop rule: a special token ends a branch (and is dropped); so does the token that ends its
    `max_lines`-th line, or the line where it closed a bracket opened before it (laya_lsp/lines.py: the rule
    post-processing cuts the text by). `bracket_depths`: `lines.bracket_depths` of each token with a bracket,
    every bracket counted; with `outer_close` (the request's: where an answer's text closes a bracket opened
    before it, strings and comments aside) and `token_texts`, the answer's text is asked instead, at line breaks."""

    max_lines: int
    stop_ids: frozenset[int]
    newline_ids: frozenset[int]
    blank_ids: frozenset[int]
    bracket_depths: Mapping[int, tuple[int, int, int]] = field(default_factory=dict)
    outer_close: Callable[[str], int] | None = None
    token_texts: Sequence[str] = ()

    def __call__(self, ids: list[int], token: int) -> Verdict:
        if token in self.stop_ids:
            return Verdict.CUT
        by_text = self.outer_close is not None and self.max_lines > 1
        ended = ends_answer(ids, token, self.max_lines, self.newline_ids.__contains__, self.blank_ids.__contains__,
                            None if by_text else self._depths)
        if not ended and by_text and token in self.newline_ids:
            assert self.outer_close is not None
            texts = self.token_texts
            text = "".join(texts[i] if i < len(texts) else "" for i in [*ids, token])
            ended = closed_before_break(text, self.outer_close)
        return Verdict.END if ended else Verdict.GO

    def _depths(self, token: int) -> tuple[int, int, int]:
        return self.bracket_depths.get(token, NO_BRACKETS)

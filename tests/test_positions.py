"""The one position model (laya_lsp/syntax/positions.py) the LSP, HTTP and CLI fronts share: LSP's line rules,
columns in UTF-16 / UTF-8 / code points, clamping for the LSP and refusal with the valid range elsewhere.
The fronts themselves are driven in test_rel_textsync.py (LSP), test_http_api.py and test_cli.py."""

from __future__ import annotations

import pytest

from laya_lsp.syntax.positions import PositionError, line_starts, offset_at, position_at, strict_offset

TEXT = "a\fb\vc\r\nd😀e\rf\ng\u2028h"


def test_lines_end_at_crlf_cr_and_lf_only():
    assert line_starts(TEXT) == [0, 7, 11, 13]  # not at \f, \v or U+2028


@pytest.mark.parametrize(("encoding", "column", "char"), [("utf-16", 1, "😀"), ("utf-16", 2, "😀"),
                                                          ("utf-16", 3, "e"), ("utf-8", 5, "e"), ("utf-32", 2, "e")])
def test_columns_count_in_the_encoding(encoding: str, column: int, char: str):
    starts = line_starts(TEXT)
    offset = offset_at(TEXT, starts, 1, column, encoding)
    assert TEXT[offset] == char  # (inside the surrogate pair rounds down to the emoji)


def test_positions_round_trip_and_clamp():
    starts = line_starts(TEXT)
    for offset in range(len(TEXT) + 1):
        if TEXT[offset - 1:offset + 1] == "\r\n":
            continue  # between \r and \n is no position of its own
        for enc in ("utf-16", "utf-8", "utf-32"):
            assert offset_at(TEXT, starts, *position_at(TEXT, starts, offset, enc), enc) == offset
    assert offset_at(TEXT, starts, 0, 99) == 5  # past the end of line 0: its end (before \r\n)
    assert offset_at(TEXT, starts, 9, 0) == len(TEXT)


def test_strict_offsets_refuse_outside_positions_naming_the_range():
    assert strict_offset(TEXT, 0, 5) == 5 and strict_offset(TEXT, 2, 1, base=1) == 7
    with pytest.raises(PositionError, match=r"line 4 is outside the text \(0..3\)"):
        strict_offset(TEXT, 4, 0)
    with pytest.raises(PositionError, match=r"column 6 is outside line 0 \(0..5\)"):
        strict_offset(TEXT, 0, 6)

"""benchmarks/person_replay.py: the person's acceptance rules, and a quick replay through the real server on the
embedded model (1 file, 2 lines) whose JSON has the measures, consistent counts, and acceptances only where the
suggestion was what comes next, applied to the document and counted once."""

from __future__ import annotations

import itertools
import json
from pathlib import Path

from conftest import DEFAULT_MODEL

from benchmarks import person_replay as pr

MEASURES = ("lines", "chars", "pauses", "shown_n", "accepted_n", "shown_wrong_n", "accepted_chars", "shown",
            "accepted_of_shown", "chars_saved", "shown_wrong", "latency", "shown_by_source", "shown_from_pause_tier")


def test_acceptance_rules() -> None:
    rest = "foo(bar, baz)"
    assert pr.accepted_chars("whole", "foo(bar, baz)", rest) == len(rest)
    assert pr.accepted_chars("whole", "foo(bar, baz)\n    return x", rest) == len(rest)  # judged on its line
    assert pr.accepted_chars("whole", "foo(bar, qux)", rest) == 0
    assert pr.accepted_chars("whole", "foo(bar", rest) == 0  # right but short: not the whole rest
    assert pr.accepted_chars("word", "foo(bar, qux)", rest) == len("foo(bar, ")
    assert pr.accepted_chars("word", "food", rest) == 0  # a word is taken whole or not at all
    assert pr.accepted_chars("word", " x", " y") == 0  # a lone blank is no word
    assert pr.accepted_chars("word", "", rest) == 0 and pr.accepted_chars("word", "x", "") == 0
    assert pr.word_units("x = foo(a, b)") == ["x", " = ", "foo", "(", "a", ", ", "b", ")"]
    assert not pr.first_word_right("bar", rest) and pr.first_word_right("foo.x", rest)
    assert pr.pause_points("a.b(c, d)") == {0, 2, 4, 6, 7}


def test_pick_lines_is_fixed_and_skips_the_head() -> None:
    text = "\n".join(f"    line_{i} = {i}" if i % 3 else "" for i in range(100))
    a, b = pr.pick_lines(text, 5, 0, "f.py"), pr.pick_lines(text, 5, 0, "f.py")
    assert a == b and len(a) == 5 and all(ln.number >= 20 and ln.code and ln.indent == "    " for ln in a)
    assert [ln.number for ln in a] == sorted({ln.number for ln in a})


def test_quick_replay_through_the_server(tmp_path: Path) -> None:
    out = tmp_path / "person.json"
    assert pr.main(["--quick", "--languages", "python", "--files-per-language", "1", "--lines-per-file", "2",
                    "--model", str(DEFAULT_MODEL), "--trace", "--out", str(out)]) == 0
    data = json.loads(out.read_text())
    (name,) = data["files"]["python"]
    source = (pr.HELDOUT / "python" / name).read_text(encoding="utf-8").replace("\r\n", "\n").split("\n")
    for style in pr.STYLES:
        res = data["results"]["default"][style]
        for m in (res["overall"], res["by_language"]["python"]):
            assert set(MEASURES) <= set(m)
            assert m["lines"] == 2 and 0 <= m["accepted_n"] <= m["shown_n"] <= m["pauses"]
            assert m["accepted_n"] + m["shown_wrong_n"] <= m["shown_n"]  # an accepted one was right
            assert style == "whole" or m["accepted_n"] + m["shown_wrong_n"] == m["shown_n"]
            assert 0.0 <= m["chars_saved"] <= 1.0 and m["accepted_chars"] <= m["chars"]
            assert m["latency"]["n"] == m["pauses"]
        trace = data["trace"]["default"][style]
        pauses, lines = trace["pauses"], trace["lines"]
        assert len(pauses) == res["overall"]["pauses"] and len(lines) == 2
        assert sum(ln["accepted"] for ln in lines) == res["overall"]["accepted_chars"]
        for ln in lines:
            code = source[ln["line"] - 1].strip()
            assert ln["chars"] == len(code)
            mine = [p for p in pauses if p["line"] == ln["line"]]
            assert len(mine) == ln["pauses"] and mine[0]["at"] == 0
            assert sum(p["accepted"] for p in mine) == ln["accepted"] <= ln["chars"]  # counted once
            for prev, p in itertools.pairwise(mine):
                assert p["at"] > prev["at"]
                if prev["accepted"]:  # the accepted text was the next edit, and the next pause is where it ends
                    assert p["after_accept"] and p["sent"] == prev["shown"][: prev["accepted"]]
                    assert p["at"] == prev["at"] + prev["accepted"]
            for p in mine:
                rest = code[p["at"]:]
                if p["accepted"]:  # only what comes next, and whole for the whole-line person
                    assert p["shown"][: p["accepted"]] == rest[: p["accepted"]] and p["first_word_right"]
                    assert style == "word" or pr.first_line(p["shown"]) == rest
                if p["shown"].strip() and not p["accepted"]:
                    assert style == "whole" or not p["first_word_right"]

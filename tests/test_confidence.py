"""Confidence per token and per suggestion, and the cut at `minConfidence` (orchestrator/confidence.py), unit level:
the token trace from the engine's candidate to the cleaned text, the calibrated probability, where a suggestion
is cut, what each kind of request shows. The server-driven tests are in test_confidence_server.py."""

from __future__ import annotations

import math
from pathlib import Path

import laya_lsp
from laya_lsp.config import Settings
from laya_lsp.engine import Candidate, Status, Timings
from laya_lsp.engine.loading.tokenizer import token_ends
from laya_lsp.orchestrator.answers import Completion, Suggestion
from laya_lsp.orchestrator.confidence import Calibration, calibration_for, cut, token_confidence, trace
from laya_lsp.orchestrator.latency.base import typed_along
from laya_lsp.orchestrator.records import Kind, RequestStats, Source
from laya_lsp.syntax import SyntaxDocument

PY = SyntaxDocument("x = ", "python", "file:///a.py")

RECORD = RequestStats(0, "doc", Kind.COMPLETION, Source.MODEL, Timings(), Status.OK)  # an answer's booked record


def test_token_ends_from_token_texts_and_by_decoding_when_they_do_not_join_up() -> None:
    texts = ["foo", "(", "bar", ")"]
    assert token_ends([0, 1, 2, 3], "foo(bar)", texts, lambda ids: "") == [3, 4, 7, 8]
    assert token_ends([0, 1, 2, 3], "foo(ba", texts, lambda ids: "") == [3, 4, 6, 6]  # cut text: clamped
    decoded = {1: "a", 2: "a\u00e9", 3: "a\u00e9b"}  # two byte pieces make one character
    assert token_ends([5, 6, 7], "a\u00e9b", ["a", "\ufffd", "b"], lambda ids: decoded[len(ids)]) == [1, 2, 3]


def test_trimmed_candidate_keeps_the_tokens_after_what_was_typed() -> None:
    c = Candidate("foo(bar)", -1.0, 4, [-0.1, -0.2, -0.3, -0.4], [3, 4, 7, 8])
    t = c.trimmed(4)
    assert (t.text, t.token_logprobs, t.token_ends) == ("bar)", [-0.3, -0.4], [3, 4])
    s = typed_along([Suggestion("foo(bar)", -1.0, token_ends=[3, 4, 7, 8], token_logprobs=[-0.1, -0.2, -0.3, -0.4])],
                    "fo")[0]
    assert (s.text, s.token_ends, s.token_logprobs) == ("o(bar)", [1, 2, 5, 6], [-0.1, -0.2, -0.3, -0.4])


def test_trace_follows_cleaning_blanks_cuts_and_added_text() -> None:
    raw = Candidate("  return x\n", -1.0, 3, [-0.1, -0.2, -0.3], [8, 10, 11])
    assert trace("  return x", raw) == ([8, 10], [-0.1, -0.2])  # trailing line break cut off
    assert trace("return x", raw) == ([6, 8], [-0.1, -0.2])  # repeated indentation dropped
    closed = Candidate("f(a", -1.0, 2, [-0.5, -0.1], [2, 3])
    assert trace("f(a)", closed) == ([2, 3, 4], [-0.5, -0.1, 0.0])  # a closer post-processing added
    other = Candidate("foo = 1", -1.0, 3, [-0.1, -0.2, -0.3], [3, 5, 7])
    assert trace("foo += 1", other) == ([3, 8], [-0.1, -0.3])  # differs at "+": the rest, as its least sure
    assert trace("abc", Candidate("abc", -0.7, 1)) == ([3], [-0.7])  # no trace: one piece


def test_token_confidence_is_calibrated_and_never_rises() -> None:
    cal = Calibration(0.0, {"min": 1.0, "sum": 0.0, "log_tokens": 0.0}, 0.5)
    conf = token_confidence([-0.1, -2.0, -0.0, -0.5], "python", cal)
    assert conf == sorted(conf, reverse=True)
    assert math.isclose(conf[0], 1 / (1 + math.exp(0.1)))
    assert conf[2] == conf[1]  # a sure token after an unsure one does not restore confidence


def test_cut_at_the_last_sure_token_on_a_word_boundary() -> None:
    text = "total = count + 1"
    ends = [5, 7, 8, 10, 14, 16, 17]  # "total", " =", " ", "co", "unt", " +", " 1"
    conf = [0.9, 0.85, 0.85, 0.8, 0.6, 0.3, 0.2]
    assert cut(text, ends, conf, 0.5, PY).text == "total = count"  # not "total = co" (inside a word)
    assert cut(text, ends, conf, 0.7, PY).text == "total ="
    whole = cut(text, ends, conf, 0.1, PY)
    assert (whole.text, whole.short, whole.confidence) == (text, False, 0.2)
    none = cut(text, ends, conf, 0.95, PY)  # even the first word is unsure: the first word, its confidence
    assert (none.text, none.short, none.confidence) == ("total", True, 0.9)


def test_cut_prefers_a_closed_piece_to_one_stopping_inside_a_string_or_arguments() -> None:
    text = "os.path.dirname(__file__), 'my_data.json')"
    ends = [2, 3, 7, 8, 15, 16, 24, 25, 26, 28, 30, 31, 36, 41, 42]
    conf = [0.99] * 12 + [0.4, 0.3, 0.3]
    assert cut(text, ends, conf, 0.5, PY).text == "os.path.dirname(__file__),"
    call = "print(value, end"
    shown = cut(call, [5, 6, 11, 12, 16], [0.9, 0.9, 0.9, 0.8, 0.8], 0.5, PY)
    assert shown.text == "print(value, end"  # no shorter closed piece than the whole but `print(`: kept


def test_for_kind_withholds_unsure_ghost_text_and_ranks_the_list() -> None:
    a = Suggestion("retstudent = 0", -2.0, confidence=0.2, cut_at=10)
    b = Suggestion("return total", -1.0, confidence=0.7)
    c = Suggestion("return x + 1", -1.5, confidence=0.9, cut_at=6)
    answer = Completion([a, b, c], RECORD)
    inline = answer.for_kind(Kind.INLINE, 0.5)
    assert [s.text for s in inline.suggestions] == ["return total", "return"] and not inline.unsure
    listed = answer.for_kind(Kind.COMPLETION, 0.5)  # whole (checked) suggestions, the unsure last
    assert [s.text for s in listed.suggestions] == ["return total", "return x + 1", "retstudent = 0"]
    assert answer.suggestions == [a, b, c]  # the remembered answer keeps everything
    assert Completion([a], RECORD).for_kind(Kind.INLINE, 0.5).unsure  # withheld
    assert Completion([c, b], RECORD).for_kind(Kind.INLINE, 0.5).unsure  # the top one cut short
    low = Suggestion("retstudent", -2.0, confidence=0.2)
    assert not Completion([low], RECORD).for_kind(Kind.INLINE, 0.0).unsure  # 0: everything shown
    same = Suggestion("return y", -1.6, confidence=0.9, cut_at=6)
    assert [s.text for s in Completion([c, same], RECORD).for_kind(Kind.INLINE, 0.5).suggestions] == ["return"]


def test_typing_through_a_cut_suggestion_moves_its_cut() -> None:
    s = Suggestion("return x + 1", -1.0, confidence=0.8, cut_at=8, token_ends=[6, 8, 10, 12],
                   token_logprobs=[-0.1, -0.2, -0.3, -0.4])
    t = s.trimmed(3)
    assert (t.text, t.cut_at, t.ghost().text, t.confidence) == ("urn x + 1", 5, "urn x", 0.8)
    past = s.trimmed(9)  # typed past the sure part: ghost text has nothing sure left of it
    assert past.cut_at == 0 and past.confidence == 0.0


def test_default_min_confidence_is_the_calibrations() -> None:
    default = calibration_for("default")
    assert default is not None and Settings().min_confidence == default.threshold
    assert calibration_for("a-model-never-calibrated") is None  # its suggestions are neither cut nor withheld


def test_a_calibration_follows_the_weights_it_was_fitted_for_not_the_name(tmp_path: Path) -> None:
    """confidence.json keys each fit by the model's name and its weights' fingerprint: the embedded weights find
    theirs under any name; a model retrained under the same name is not cut by the old fit (until refitted)."""
    embedded = Path(laya_lsp.__file__).parent / "models" / "default"
    assert calibration_for("renamed-copy", str(embedded)) == calibration_for("default", str(embedded))
    assert calibration_for("default", str(embedded)) is not None
    retrained = tmp_path / "default"
    retrained.mkdir()
    (retrained / "model.safetensors").write_bytes(b"other weights")
    assert calibration_for("default", str(retrained)) is None

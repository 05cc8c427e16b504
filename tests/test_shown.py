"""benchmarks/shown.py: what the confidence cut did to each request, cause by cause (quality.py --uncut)."""

from __future__ import annotations

from benchmarks.shown import cut_cause, cut_causes

TRUTH = "return value + 1"


def test_each_cause_is_told_apart():
    assert cut_cause("return value", "return value + 1", TRUTH) == "right_shortened"
    assert cut_cause("", "return value + 1", TRUTH) == "right_withheld"
    assert cut_cause("return value + 1", "return value + 1", TRUTH) == "right_kept"
    assert cut_cause("return", "return None", TRUTH) == "wrong_cut_to_right_head"
    assert cut_cause("", "return None", TRUTH) == "wrong_withheld"
    assert cut_cause("return None", "return None", TRUTH) == "wrong_still_shown"
    assert cut_cause("pass", "return", TRUTH) == "right_made_wrong"
    assert cut_cause("", "", TRUTH) == "nothing_either_way"


def test_causes_count_the_characters_the_cut_lost_and_gained():
    causes = cut_causes(["return value", "", "return"], ["return value + 1", "return value + 1", "return None"],
                        [TRUTH] * 3, ["after_return", "body", "body"], [0.5, 0.2, None])
    assert causes["right_shortened"] == {"n": 1, "chars_lost": 4, "confidence_median": 0.5}
    assert causes["right_withheld"] == {"n": 1, "chars_lost": 16, "confidence_median": 0.2}
    assert causes["wrong_cut_to_right_head"] == {"n": 1, "chars_lost": -6, "confidence_median": None}
    assert set(causes["by_class"]["body"]) == {"right_withheld", "wrong_cut_to_right_head"}

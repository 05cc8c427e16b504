"""How sure the model is of each piece of a suggestion, and how much of it to show.

The engine keeps each emitted token's log-probability and where its text ends (`Candidate.token_logprobs`,
`token_ends`). Here they are carried onto the cleaned text (`trace`), turned into the calibrated probability
that the text up to each token is right as far as it goes (`token_confidence`: a logistic model over a few
features of the tokens so far, fitted on held-out files by training/confidence_fit.py into confidence.json), and
a suggestion is cut at the last token boundary where that probability is still at least the `minConfidence`
setting (`cut`). The probability never rises along a suggestion (more text cannot be more surely right), so the
cut is where showing one more token stops being worth its risk.
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

from ..engine import Candidate
from ..syntax import SyntaxDocument, stops_inside

CALIBRATION_FILE = Path(__file__).with_name("confidence.json")
WORD = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_$")


@dataclass(frozen=True)
class Calibration:
    """p(right as far as it goes, after token i) = sigmoid(intercept + sum of coef[name] * feature[name])."""

    intercept: float
    coef: dict[str, float]
    threshold: float  # the `minConfidence` the calibration recommends
    about: dict[str, object] = field(default_factory=dict)


@lru_cache(maxsize=4)
def load_calibrations(path: Path = CALIBRATION_FILE) -> dict[str, Calibration]:
    """The fitted calibrations shipped with the package, per model name (read once)."""
    raw = json.loads(path.read_text(encoding="utf-8"))["models"]
    return {name: Calibration(float(m["intercept"]), {k: float(v) for k, v in m["coef"].items()}, float(m["threshold"]),
                              {k: v for k, v in m.items() if k not in ("intercept", "coef")})
            for name, m in raw.items()}


def calibration_for(model: str | None, model_dir: str | None = None) -> Calibration | None:
    """The calibration fitted for the model's weights (`model_dir`'s fingerprint, whatever the model is called
    now), else the one under its name when that was not fitted for other weights; None for a model never
    calibrated: its token probabilities say nothing calibrated about what is right, so its suggestions are
    neither cut nor withheld (a model retrained under the same name, until it is fitted again)."""
    table = load_calibrations()
    if model_dir is not None:
        from ..decisions.decide import weights_fingerprint

        weights = weights_fingerprint(model_dir)
        for cal in table.values():
            if cal.about.get("weights") == weights:
                return cal
    named = table.get(model or "")
    if named is None or (model_dir is not None and named.about.get("weights")):
        return None  # fitted for other weights (the fingerprint would have found it above)
    return named


def token_features(logprobs: Sequence[float], language: str | None) -> list[dict[str, float]]:
    """Each token's features: the text up to and including it (sum and min of the log-probabilities, the least
    probability itself, the last log-probability, how many tokens), and the buffer's language."""
    out: list[dict[str, float]] = []
    total, low = 0.0, 0.0
    lang = f"lang={language}" if language else "lang=none"
    for i, lp in enumerate(logprobs):
        total += lp
        low = min(low, lp)
        out.append({"sum": total, "min": low, "p_min": math.exp(low), "last": lp, "log_tokens": math.log(i + 2),
                    lang: 1.0})
    return out


def token_confidence(logprobs: Sequence[float], language: str | None, cal: Calibration) -> list[float]:
    """The calibrated probability that the text up to each token is right as far as it goes (never rising)."""
    out: list[float] = []
    best = 1.0
    for feats in token_features(logprobs, language):
        z = cal.intercept + sum(cal.coef.get(k, 0.0) * v for k, v in feats.items())
        best = min(best, 1.0 / (1.0 + math.exp(-max(-60.0, min(60.0, z)))))
        out.append(best)
    return out


def trace(text: str, raw: Candidate) -> tuple[list[int], list[float]]:
    """`raw`'s tokens carried onto `text` (what post-processing made of `raw.text`): where each ends in `text`
    and its log-probability. Characters are matched in order, blanks either side may be added or dropped (the
    indentation rules); from the first other difference on, the rest of `text` is one piece as sure as the least
    sure token left (characters post-processing added after the model's text, e.g. closers: as sure as before)."""
    ends, lps = raw.token_ends, raw.token_logprobs
    if not ends or len(ends) != len(lps):
        return ([len(text)], [raw.logprob]) if text else ([], [])
    src, i, j = raw.text, 0, 0
    at = [0] * (len(src) + 1)  # where each raw character index lands in `text`
    while i < len(text) and j < len(src):
        if text[i] == src[j]:
            i, j = i + 1, j + 1
            at[j] = i
        elif text[i].isspace():
            i += 1
        elif src[j].isspace():
            j += 1
            at[j] = i
        else:
            break
    out_ends: list[int] = []
    out_lps: list[float] = []
    for end, lp in zip(ends, lps):
        if end > j:
            break
        if at[end] > (out_ends[-1] if out_ends else 0):
            out_ends.append(at[end])
            out_lps.append(lp)
        elif out_lps:
            out_lps[-1] += lp
    if (out_ends[-1] if out_ends else 0) < len(text):
        rest = [lp for end, lp in zip(ends, lps) if end > j]
        out_ends.append(len(text))
        out_lps.append(min(rest) if rest else 0.0)
    return out_ends, out_lps


@dataclass(frozen=True)
class Cut:
    """What of a suggestion is shown: `text` (a prefix of it), the probability it is right as far as it goes,
    and whether it is shorter than the suggestion."""

    text: str
    confidence: float
    short: bool


def cut(text: str, ends: Sequence[int], confidence: Sequence[float], threshold: float, doc: SyntaxDocument) -> Cut:
    """`text` up to the last token end whose confidence is at least `threshold`, at a word boundary, not inside a
    string or an argument list it opened when a shorter closed piece exists. Nothing clears it: the first word
    (with its low confidence) for the completion list; ghost text then shows nothing."""
    if not ends:
        return Cut(text, 1.0, False)
    points = [k for k, end in enumerate(ends) if end == len(text) or _boundary(text, end)]
    if not points:
        return Cut(text, confidence[-1], False)
    sure = [k for k in points if confidence[k] >= threshold]
    if sure and ends[sure[-1]] == len(text):
        return Cut(text, confidence[-1], False)
    if not sure:
        k = points[0]
        return Cut(text[: ends[k]].rstrip() if ends[k] < len(text) else text, confidence[k], ends[k] < len(text))
    for k in reversed(sure):
        if not stops_inside(text[: ends[k]], doc.spec) and text[: ends[k]].strip():
            return Cut(text[: ends[k]].rstrip(), confidence[k], True)
    k = sure[-1]
    return Cut(text[: ends[k]].rstrip(), confidence[k], True)


def _boundary(text: str, end: int) -> bool:
    """A cut at `end` does not split a word, and leaves something visible."""
    if end <= 0 or end >= len(text) or not text[:end].strip():
        return False
    return not (text[end - 1] in WORD and text[end] in WORD)

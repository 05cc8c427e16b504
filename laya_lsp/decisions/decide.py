"""`decide`: pick one option of a closed set by the model's likelihood of each, with a calibrated confidence.

No free generation: every option is scored as the continuation of one prompt (engine/decoding/score.py, one
batch), and the confidence is a probability over the set only:

    p_i = softmax(s_i / T)     s_i = total log-likelihood of option i's tokens   (normalize = "total")
                               s_i = mean log-likelihood per token               (normalize = "mean")

"total" is the model's own probability of each exact string, renormalised over the set; it is the default
because it is what the model means. T (the temperature) is fitted per model by `laya_lsp/calibrate.py` on a
small labelled set (`calibration_set.jsonl`) by minimising the negative log-likelihood of the right answers,
and stored in `calibration.json`; a model with no entry uses T = 1 (the plain renormalised probability).
"""

from __future__ import annotations

import hashlib
import json
import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..engine import ModelWork, ScoreResult

CALIBRATION_FILE = Path(__file__).with_name("calibration.json")
# The defaults of `decisionThreshold` and `decisionTokens` (config.py reads them from here; the code actions'
# offers and the hand-off's `fallback.threshold` too).
DEFAULT_THRESHOLD = 0.5
DEFAULT_DECISION_TOKENS = 256
# What one decide may ask for, every front alike: each choice's text is scored token by token, so its length
# and the choices' count bound the work (the fuzz campaign's 70,000-character choice held the worker minutes).
MAX_CHOICES = 64
MAX_CHOICE_ID_CHARS = 256
MAX_CHOICE_TEXT_CHARS = 4096
SUFFIX_SHARE = 0.25  # of the decision token budget, for the text after a document position
# Only this many characters per budgeted token are tokenized from the end of a long context (more than any
# tokenizer's characters per token), so a big file is never tokenized whole for a 256-token prompt.
TAIL_CHARS_PER_TOKEN = 16


class DecisionError(ValueError):
    """Bad decide parameters (reported to the client as invalid params)."""


@dataclass
class Option:
    id: str
    text: str  # what is scored: the choice's `text`, else its `description`, else its `id`


@dataclass
class DecideRequest:
    options: list[Option]
    prefix: str  # the context before the options (a document's text before the cursor, or the context text)
    suffix: str = ""  # a document's text after the cursor (FIM layouts use it); empty for text contexts
    document: bool = False  # prefix/suffix come from a document position (use FIM and its cache)
    doc_id: str | None = None
    threshold: float = DEFAULT_THRESHOLD
    max_tokens: int = DEFAULT_DECISION_TOKENS  # the prompt cap (`decisionTokens`)
    normalize: str | None = None  # "total" | "mean"; None = the model's calibration
    temperature: float | None = None  # None = the model's calibration


@dataclass
class Calibration:
    normalize: str = "total"
    temperature: float = 1.0
    source: str = "default"


@dataclass
class Decision:
    choice: str | None
    confidence: float
    scores: list[tuple[str, float]]  # (id, calibrated probability), in the request's order
    logprobs: list[float] = field(default_factory=list)
    calibration: Calibration = field(default_factory=Calibration)
    prompt_text: str = ""  # what a fallback model is asked to continue
    result: ScoreResult | None = None
    source: str = "local"

    def to_json(self) -> dict[str, Any]:
        return {
            "choice": self.choice,
            "confidence": self.confidence,
            "scores": [{"id": i, "score": s} for i, s in self.scores],
            "source": self.source,
            "calibration": {"normalize": self.calibration.normalize, "temperature": self.calibration.temperature},
        }


def parse_options(raw: Any) -> list[Option]:
    """`choices: [{id, description?, text?}]` → options; ids must be unique strings, at least two choices."""
    if not isinstance(raw, list) or len(raw) < 2:
        raise DecisionError("choices must be a list of at least two {id, description} objects")
    if len(raw) > MAX_CHOICES:
        raise DecisionError(f"{len(raw)} choices: at most {MAX_CHOICES}")
    out: list[Option] = []
    for c in raw:
        if isinstance(c, str):
            c = {"id": c}
        if not isinstance(c, dict) or not isinstance(c.get("id"), str) or not c["id"]:
            raise DecisionError(f"each choice needs a non-empty string id, got {repr(c)[:80]}")
        text = c.get("text") if isinstance(c.get("text"), str) else c.get("description")
        text = text if isinstance(text, str) and text else c["id"]
        if len(c["id"]) > MAX_CHOICE_ID_CHARS or len(text) > MAX_CHOICE_TEXT_CHARS:
            raise DecisionError(f"a choice's id is at most {MAX_CHOICE_ID_CHARS} characters and its text (or "
                                f"description) at most {MAX_CHOICE_TEXT_CHARS}")
        out.append(Option(c["id"], text))
    if len({o.id for o in out}) != len(out):
        raise DecisionError("choice ids must be unique")
    return out


_FINGERPRINTS: dict[str, str] = {}


def weights_fingerprint(model_dir: str) -> str:
    """Identifies a model's weights cheaply (sizes and first MiB of each .safetensors file), so a calibration
    fitted for one export is not applied to a retrained model of the same name."""
    if model_dir not in _FINGERPRINTS:
        h = hashlib.sha256()
        for f in sorted(Path(model_dir).glob("*.safetensors")):
            h.update(f"{f.name}:{f.stat().st_size}".encode())
            with f.open("rb") as fh:
                h.update(fh.read(1 << 20))
        _FINGERPRINTS[model_dir] = h.hexdigest()[:16]
    return _FINGERPRINTS[model_dir]


def load_calibration(model_name: str, model_dir: str | None = None, path: Path = CALIBRATION_FILE) -> Calibration:
    """The model's fitted calibration, else the documented default (total log-likelihood, T = 1). An entry
    fitted for other weights (its fingerprint differs from `model_dir`'s) is not used."""
    try:
        table = json.loads(path.read_text())
    except (OSError, ValueError):
        return Calibration()
    entry = (table.get("models") or {}).get(model_name)
    if not isinstance(entry, dict):
        return Calibration()
    if model_dir and entry.get("weights") and entry["weights"] != weights_fingerprint(model_dir):
        return Calibration(source="default (the fitted calibration is for other weights)")
    return Calibration(str(entry.get("normalize", "total")), float(entry.get("temperature", 1.0)), model_name)


def softmax(xs: list[float]) -> list[float]:
    m = max(xs)
    es = [math.exp(x - m) for x in xs]
    z = sum(es)
    return [e / z for e in es]


def calibrated(result: ScoreResult, cal: Calibration) -> list[float]:
    raw = [s.mean if cal.normalize == "mean" else s.logprob for s in result.scores]
    t = max(cal.temperature, 1e-3)
    return softmax([x / t for x in raw])


def split_trailing_spaces(prefix: str, texts: list[str]) -> tuple[str, list[str]]:
    """Move spaces/tabs that end the context onto the options (BPE merges a space with the word after it)."""
    stripped = prefix.rstrip(" \t")
    tail = prefix[len(stripped) :]
    if not tail or not stripped:
        return prefix, texts
    return stripped, [tail + t for t in texts]


def build_prompt(model: ModelWork, req: DecideRequest, texts: list[str]) -> tuple[list[int], list[list[int]], str]:
    """(prompt ids capped at `max_tokens`, option ids, the prompt's text for a fallback model)."""
    prefix, texts = split_trailing_spaces(req.prefix, texts)
    budget = max(8, req.max_tokens)
    if req.document and model.has_fim:
        suf = model.encode(req.suffix[: int(budget * SUFFIX_SHARE) * 8])[: int(budget * SUFFIX_SHARE)]
        pre = model.encode(prefix[-budget * TAIL_CHARS_PER_TOKEN :])[-(budget - len(suf) - model.frame_tokens) :]
        ids = model.build(pre, suf)
    else:
        pre = model.encode(prefix[-budget * TAIL_CHARS_PER_TOKEN :])[-budget:]
        ids = model.build(pre, [], layout="prefix")
    if not ids:
        raise DecisionError("the context is empty: give `context` text or a document position after some text")
    options = [model.encode(t) for t in texts]
    return ids, options, model.decode(pre)


def decide_with(model: ModelWork, req: DecideRequest) -> Decision:
    """Score the options (on the inference worker) and turn the scores into a calibrated decision."""
    ids, options, prompt_text = build_prompt(model, req, [o.text for o in req.options])
    result = model.score(ids, options)
    cal = load_calibration(model.name, model.path)
    if req.normalize in ("total", "mean"):
        cal = Calibration(req.normalize, cal.temperature, cal.source)
    if req.temperature is not None and req.temperature > 0:
        cal = Calibration(cal.normalize, req.temperature, "request")
    probs = calibrated(result, cal)
    best = max(range(len(probs)), key=probs.__getitem__)
    confidence = probs[best]
    choice = req.options[best].id if confidence >= req.threshold else None
    return Decision(
        choice=choice,
        confidence=confidence,
        scores=[(o.id, p) for o, p in zip(req.options, probs)],
        logprobs=[s.logprob for s in result.scores],
        calibration=cal,
        prompt_text=prompt_text,
        result=result,
    )

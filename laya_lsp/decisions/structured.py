"""`structured`: JSON that validates against a JSON Schema, by constrained decoding (logit masking).

The schema becomes a grammar with llguidance (`LLMatcher.grammar_from_json_schema`), whose matcher gives, at
every step, the bitmask of tokens that keep the output a valid prefix (unpacked with numpy); the engine's
`ModelWork.constrained` masks the logits with it (llguidance's own MLX helper is a Metal kernel).
Nothing is generated and then repaired.

Termination: the model stops when it picks end-of-text (allowed only once the value is complete) or when the
grammar allows nothing more. When the token budget runs out first, the value is closed by the grammar alone:
at each step the first allowed byte in a fixed preference order (closers, then a quote, a comma, `0`, ...) is
taken, which closes strings, fills what is still required with the smallest values and closes the
brackets. Schemas are compiled with compact separators (no free whitespace) and, where an object does not say
otherwise, `additionalProperties: false`, so every object has finitely many keys and closing always ends.
Brackets nest at most MAX_DEPTH deep (tokens that would go deeper are masked while any other is allowed).
The final text is parsed and checked with `jsonschema`: an invalid value is never returned.
"""

from __future__ import annotations

import copy
import json
import logging
import math
import time
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..engine import ModelWork
from .decide import TAIL_CHARS_PER_TOKEN
from .schema_limits import SchemaError, check_schema

log = logging.getLogger(__name__)

MAX_CLOSE_STEPS = 4096
DEFAULT_MAX_TOKENS = 256
MAX_TOKENS = 4096  # the most `maxTokens` a structured request may ask for (LSP and HTTP alike)
# Bytes tried, in order, when the budget is spent and the value must be closed by the grammar alone: outside a
# string, close brackets first; inside one, close the string (other bytes only where minLength asks for them).
# '1' before '0': the JSON grammar has no negative zero, so after '-' (or '-0.') zeros never end the number.
CLOSE_OUTSIDE = '}]",1:0' + "truefalsn" + "23456789" + "{[" + "abcdefghijklmnopqrstuvwxyz" + ".-+E"
CLOSE_INSIDE = '"' + "abcdefghijklmnopqrstuvwxyz0123456789 "
SAFE_INTEGER = 2**53 - 1  # unbounded numbers are bounded to what a JavaScript client reads exactly
# Brackets a value may nest: no schema a person writes wants more, and a model left free (`{}`, an array of
# anything) can open one per token until Python's own JSON parser gives up near 1,000.
MAX_DEPTH = 64
# llguidance's own bounds on compiling and running a grammar (its defaults are 10x larger): a schema within
# schema_limits compiles far below them; terse errors, so nothing of the grammar's state reaches a client.
GRAMMAR_LIMITS: dict[str, Any] = {
    "max_grammar_size": 50_000,
    "max_lexer_states": 50_000,
    "initial_lexer_fuel": 1_000_000,
    "step_lexer_fuel": 200_000,
    "step_max_items": 50_000,
    "verbose_errors": False,
}

__all__ = ["SchemaError", "StructuredError", "Unfinishable", "prepare_schema", "structured_with"]


class StructuredError(RuntimeError):
    """Decoding could not produce a valid value (logged in full on the server's side)."""


class Unfinishable(SchemaError):
    """The schema admits no value the decoder can finish within its limits (a client error: InvalidParams / 422)."""


def _grammar_limits() -> Any:
    from llguidance import LLParserLimits

    return LLParserLimits(**GRAMMAR_LIMITS)


def prepare_schema(schema: Any) -> dict[str, Any]:
    """Check the schema (jsonschema's meta-schema) and close objects that leave extra keys open."""
    if not isinstance(schema, dict):
        raise SchemaError("schema must be a JSON object")
    check_schema(schema)  # depth, size, properties and $ref cycles first: the meta-schema check recurses
    from jsonschema import exceptions, validators

    try:
        validators.validator_for(schema).check_schema(schema)
    except exceptions.SchemaError as exc:
        raise SchemaError(f"invalid JSON Schema: {exc.message}") from None
    out = copy.deepcopy(schema)
    _close_objects(out)
    return out


def _close_objects(node: Any) -> None:
    if isinstance(node, list):
        for x in node:
            _close_objects(x)
        return
    if not isinstance(node, dict):
        return
    if node.get("type") in ("integer", "number"):
        lo = ("minimum", "exclusiveMinimum")
        hi = ("maximum", "exclusiveMaximum")
        if not any(k in node for k in lo):
            node["minimum"] = -SAFE_INTEGER
        if not any(k in node for k in hi):
            node["maximum"] = SAFE_INTEGER
    is_object = node.get("type") == "object" or "properties" in node
    if is_object and "additionalProperties" not in node and "patternProperties" not in node:
        node["additionalProperties"] = False
    for key, value in node.items():
        if key in ("properties", "$defs", "definitions", "patternProperties") and isinstance(value, dict):
            for sub in value.values():
                _close_objects(sub)
        elif key not in ("enum", "const", "default", "examples", "required", "not", "if"):
            # Not under "not"/"if": narrowing those would widen what the whole schema accepts.
            _close_objects(value)


_TOKENIZERS: dict[int, tuple[Any, Any]] = {}


def ll_tokenizer(model: ModelWork) -> Any:
    """llguidance's view of the model's tokenizer (built once per loaded model; ~ms for small vocabularies)."""
    tok = model.tokenizer
    cached = _TOKENIZERS.get(id(tok))
    if cached is not None and cached[0] is tok:
        return cached[1]
    from llguidance import LLTokenizer

    llt = LLTokenizer(tok.to_json(), n_vocab=model.vocab_size, eos_token=tok.eos_token_id)
    _TOKENIZERS.clear()
    _TOKENIZERS[id(tok)] = (tok, llt)
    return llt


@dataclass
class Nesting:
    """Bracket depth of the text so far, outside strings."""

    depth: int = 0
    in_string: bool = False
    escaped: bool = False

    def after(self, text: str) -> tuple[Nesting, int]:
        """The state after `text` and the deepest depth reached on the way."""
        depth, in_string, escaped, deepest = self.depth, self.in_string, self.escaped, self.depth
        for ch in text:
            if escaped:
                escaped = False
            elif in_string:
                escaped = ch == "\\"
                in_string = ch != '"'
            elif ch == '"':
                in_string = True
            elif ch in "[{":
                depth += 1
                deepest = max(deepest, depth)
            elif ch in "]}":
                depth -= 1
        return Nesting(depth, in_string, escaped), deepest


_OPENERS: dict[int, tuple[Any, np.ndarray, int]] = {}


def opener_tokens(model: ModelWork) -> tuple[np.ndarray, int]:
    """Ids of the tokens whose text holds `[` or `{`, and the most such a token holds (once per loaded model)."""
    texts = model.token_texts
    cached = _OPENERS.get(id(texts))
    if cached is not None and cached[0] is texts:
        return cached[1], cached[2]
    counts = np.array([t.count("[") + t.count("{") for t in texts], dtype=np.int32)
    ids = np.flatnonzero(counts)
    _OPENERS.clear()
    _OPENERS[id(texts)] = (texts, ids, int(counts.max(initial=0)))
    return ids, int(counts.max(initial=0))


class JsonConstraint:
    """The schema's grammar as a token mask: `next_allowed` says which tokens keep the output a valid prefix."""

    def __init__(self, model: ModelWork, schema: dict[str, Any]) -> None:
        from llguidance import LLMatcher

        self.model = model
        self.vocab = model.vocab_size
        llt = ll_tokenizer(model)
        try:
            grammar = LLMatcher.grammar_from_json_schema(schema, defaults={"whitespace_flexible": False})
        except ValueError as exc:
            raise SchemaError(str(exc)) from None
        limits = _grammar_limits()
        err = LLMatcher.validate_grammar(grammar, llt, limits=limits)
        if err and not err.startswith("WARNING"):
            raise SchemaError(f"schema not supported: {_first_line(err)}")
        self.matcher = LLMatcher(llt, grammar, log_level=0, limits=limits)
        if self.matcher.is_error():
            raise SchemaError(f"schema not supported: {_first_line(self.matcher.get_error())}")
        self.eos = model.eos_id
        self.consumed = 0
        self.allowed_counts: list[int] = []
        self.mask_ms = 0.0
        self._close_outside = self._single_tokens(CLOSE_OUTSIDE)
        self._close_inside = self._single_tokens(CLOSE_INSIDE)
        self.nesting = Nesting()
        self._openers, self._most_opened = opener_tokens(model)
        self._admits_a_value()

    def _admits_a_value(self) -> None:
        """Before any model work: the grammar's first step must allow a token other than end-of-text (a
        `$ref` cycle or contradictory bounds compile to a grammar that matches nothing)."""
        first = self.allowed()
        if self.eos is not None and 0 <= self.eos < first.shape[0]:
            first[self.eos] = False
        if self.matcher.is_error() or not first.any():
            why = _first_line(self.matcher.get_error()) if self.matcher.is_error() else "no first token is allowed"
            log.info("schema admits no value: %s", why)
            raise Unfinishable("the schema admits no JSON value (it contradicts itself or refers to itself without "
                               "nesting)")

    def _single_tokens(self, chars: str) -> list[int]:
        out = []
        for ch in chars:
            ids = self.model.encode(ch)
            if len(ids) == 1:
                out.append(ids[0])
        return out

    def allowed(self) -> np.ndarray:
        t0 = time.perf_counter()
        bits = np.unpackbits(np.frombuffer(self.matcher.compute_bitmask(), dtype=np.uint8), bitorder="little")
        mask = np.zeros(self.vocab, dtype=bool)
        n = min(self.vocab, bits.shape[0])
        mask[:n] = bits[:n].astype(bool)
        self._limit_depth(mask)
        self.mask_ms += (time.perf_counter() - t0) * 1000
        return mask

    def _limit_depth(self, mask: np.ndarray) -> None:
        """Forbid the tokens that would nest past MAX_DEPTH (only near it; unless the grammar allows nothing else)."""
        if self.nesting.depth + self._most_opened <= MAX_DEPTH:
            return
        texts = self.model.token_texts
        deep = [t for t in self._openers[mask[self._openers]] if self.nesting.after(texts[t])[1] > MAX_DEPTH]
        if len(deep) < int(mask.sum()):
            mask[deep] = False

    def _consume(self, token: int) -> None:
        if not self.matcher.consume_token(token) or self.matcher.is_error():
            raise StructuredError(f"grammar rejected token {token}: {_first_line(self.matcher.get_error())}")
        self.consumed += 1
        self.nesting = self.nesting.after(self.model.token_texts[token])[0]

    def next_allowed(self, tokens: list[int]) -> np.ndarray:
        """After the tokens generated so far: which tokens may come next (a bool per vocabulary entry)."""
        for t in tokens[self.consumed :]:
            self._consume(t)
        mask = self.allowed()
        self.allowed_counts.append(int(mask.sum()))
        return mask

    def stop(self, token: int) -> bool:
        """After the model picked `token`: end at end-of-text, else feed it and end when nothing can follow."""
        if token == self.eos:
            return True
        self._consume(token)
        return bool(self.matcher.is_stopped())

    def _closes(self, token: int) -> bool:
        text = self.model.token_texts[token]
        return "}" in text or "]" in text

    def close(self, emitted: list[int]) -> list[int]:
        """Complete the value by the grammar alone (the budget is spent), preferred bytes first."""
        in_string, escaped = False, False

        def scan(tokens: list[int]) -> None:
            nonlocal in_string, escaped
            for ch in self.model.decode(tokens):
                if escaped:
                    escaped = False
                elif ch == "\\" and in_string:
                    escaped = True
                elif ch == '"':
                    in_string = not in_string

        scan(emitted)
        out: list[int] = []
        for _ in range(MAX_CLOSE_STEPS):
            if self.matcher.is_accepting() or self.matcher.is_stopped():
                return out
            mask = self.allowed()
            order = self._close_inside if in_string else self._close_outside
            # The same byte over and over without the value ending is a loop (zeros after '-0.'): take the next.
            # Closers are never a loop: each ends a level (a value nested 20 deep ends with 20 of them).
            looping = len(out) >= 8 and len(set(out[-8:])) == 1 and not self._closes(out[-1])
            pick = next((t for t in order if mask[t] and not (looping and t == out[-1])), None)
            if pick is None:
                allowed = [int(t) for t in np.flatnonzero(mask) if t != self.eos]
                if not allowed:
                    break
                pick = next((t for t in allowed if not (looping and t == out[-1])), allowed[0])
            self._consume(pick)
            out.append(pick)
            scan([pick])
        raise StructuredError(f"could not close the JSON value within {MAX_CLOSE_STEPS} steps")


def _first_line(message: str) -> str:
    """llguidance's message without the parser state it may append."""
    return message.strip().split("\n", 1)[0][:300]


@dataclass
class StructuredResult:
    value: Any
    text: str
    confidence: float
    tokens: int
    closed_by_grammar: bool
    prompt_tokens: int = 0
    reused_tokens: int = 0
    prefill_ms: float = 0.0
    decode_ms: float = 0.0
    mask_ms_per_token: float = 0.0
    source: str = "local"
    extra: dict[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return {"value": self.value, "text": self.text, "confidence": self.confidence, "tokens": self.tokens,
                "truncated": self.closed_by_grammar, "source": self.source, **self.extra}


def validate(value: Any, schema: dict[str, Any]) -> None:
    from jsonschema import validators

    validators.validator_for(schema)(schema).validate(value)


def _checked(text: str, schema: dict[str, Any]) -> Any:
    """The decoded value, parsed and validated: an invalid value is never returned."""
    try:
        value = json.loads(text)
        validate(value, schema)
    except Exception as exc:  # a parse error, a ValidationError, a RecursionError on a deep value
        raise StructuredError(f"constrained output did not validate: {exc}; text {text[:200]!r}") from exc
    return value


def structured_with(model: ModelWork, prompt: str, schema: dict[str, Any], prepared: dict[str, Any],
                    max_tokens: int, prompt_tokens: int) -> StructuredResult:
    """Generate a value for `schema` after `prompt` (prefix-only layout, capped at `prompt_tokens`)."""
    constraint = JsonConstraint(model, prepared)
    tail = prompt[-prompt_tokens * TAIL_CHARS_PER_TOKEN :]
    ids = model.encode(tail)[-prompt_tokens:] or [model.eos_id or 0]
    try:
        res = model.constrained(ids, constraint.next_allowed, constraint.stop, max_tokens)
        out = [t for t in res.ids if t != constraint.eos]
        closed = not res.stopped
        if closed:
            out += constraint.close(out)
        text = model.decode(out)
        value = _checked(text, schema)
    except StructuredError as exc:
        # The grammar ran out of steps or allowed what the schema does not: the schema asks for more than the
        # decoder can finish (e.g. required values nested forever). The details stay in the server's log.
        log.warning("structured output not finished: %s", exc)
        raise Unfinishable(f"no value valid for this schema could be finished within the decoder's limits "
                           f"({max_tokens} tokens, then at most {MAX_CLOSE_STEPS} closing steps, nesting "
                           f"{MAX_DEPTH}); simplify the schema") from None
    free = [lp for lp, n in zip(res.logprobs, constraint.allowed_counts) if n > 1]
    confidence = math.exp(sum(free) / len(free)) if free else 1.0
    steps = max(1, len(constraint.allowed_counts))
    return StructuredResult(value, text, confidence, len(out), closed, len(ids), res.reused_tokens, res.prefill_ms,
                            res.decode_ms, constraint.mask_ms / steps)

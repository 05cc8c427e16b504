"""Typed params of laya's custom requests, structured in one place (as jedi-language-server structures its
options): attrs classes over lsprotocol's own types, read with the server's strict cattrs converter (no 5 → "5",
no true → 1), so a handler gets checked values and a bad field is answered InvalidParams naming it.

The raw JSON reaches these requests unchanged (protocol.RAW_PARAMS_METHODS): a JSON Schema's keys must not be
renamed on the way, so `schema` and `choices` stay plain JSON here and are checked where they are used.
"""

from __future__ import annotations

import functools
from typing import Any, Literal, TypeVar

import attrs
import cattrs
from cattrs.gen import make_dict_structure_fn, override
from cattrs.v import format_exception
from lsprotocol import types as lsp

from ..decisions.structured import DEFAULT_MAX_TOKENS, MAX_TOKENS
from .conversion import strict_converter
from .errors import invalid

__all__ = ["DecideParams", "DocumentTextParams", "FocusParams", "StatsParams", "StructuredParams", "invalid",
           "structure"]

T = TypeVar("T")


def _number(value: Any, _type: Any) -> float:
    """A JSON number (an integer too), never a boolean or a string."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise TypeError(f"expected a number, got {type(value).__name__}")
    return float(value)


def _between(lo: float, hi: float) -> Any:
    def check(_inst: Any, field: attrs.Attribute, value: float | None) -> None:
        if value is not None and not lo <= value <= hi:
            raise ValueError(f"{field.name} must be between {lo:g} and {hi:g}, got {value:g}")

    return check


def _positive(_inst: Any, field: attrs.Attribute, value: float | None) -> None:
    if value is not None and value <= 0:
        raise ValueError(f"{field.name} must be a positive number, got {value:g}")


@attrs.define
class DecideParams:
    """`laya/decide`: `choices` over `context` text, or over an open document at `position`."""

    choices: Any = None  # ids or {id, text, description} objects: decisions.decide.parse_options checks them
    context: str | None = None
    text_document: lsp.TextDocumentIdentifier | None = None
    position: lsp.Position | None = None
    threshold: float | None = attrs.field(default=None, validator=_between(0, 1))
    normalize: Literal["total", "mean"] | None = None
    temperature: float | None = attrs.field(default=None, validator=_positive)


@attrs.define
class StructuredParams:
    """`laya/structured`: JSON valid for `schema` after `prompt` and/or an open document's `range`."""

    schema: Any = None  # the client's JSON Schema, checked by decisions.structured
    prompt: str | None = None
    text_document: lsp.TextDocumentIdentifier | None = None
    range: lsp.Range | None = None
    max_tokens: int = attrs.field(default=DEFAULT_MAX_TOKENS, validator=_between(1, MAX_TOKENS))


@attrs.define
class StatsParams:
    """`laya/stats`: the last `recent` records, `reset` the aggregates after reading, `memory` where memory is."""

    recent: int = attrs.field(default=50, validator=_between(0, 2**31))
    reset: bool = False
    memory: bool = False


@attrs.define
class DocumentTextParams:
    """`laya/documentText`: the server's copy of the open document `uri`; `check_tree` reparses to compare."""

    uri: str
    check_tree: bool = False


@attrs.define
class FocusParams:
    """`laya/focus` (a notification): the user rests in `text_document` at `position`."""

    text_document: lsp.TextDocumentIdentifier
    position: lsp.Position


@functools.cache
def _converter() -> cattrs.Converter:
    """Built at the first custom request, not at start-up: generating the structure hooks costs ~15 ms that
    would delay a server's first answer."""
    conv = strict_converter()
    conv.register_structure_hook(float, _number)
    for cls in (DecideParams, StructuredParams, StatsParams, DocumentTextParams, FocusParams):
        renames = {f.name: override(rename=_camel(f.name)) for f in attrs.fields(cls) if "_" in f.name}
        conv.register_structure_hook(cls, make_dict_structure_fn(cls, conv, **renames))  # type: ignore[arg-type]
    return conv


def _camel(name: str) -> str:
    head, *rest = name.split("_")
    return head + "".join(part.title() for part in rest)


def _reason(exc: BaseException, type_: Any) -> str:
    """A field's problem as cattrs reports it, but with our validators' own words (they name the limits)."""
    if isinstance(exc, ValueError) and str(exc) and not isinstance(exc, cattrs.IterableValidationError):
        return str(exc)
    return format_exception(exc, type_)


def structure(params: Any, cls: type[T], method: str) -> T:
    """`params` as `cls`, or InvalidParams saying which field is wrong and why."""
    if not isinstance(params, dict):
        raise invalid(f"{method} params must be an object")
    try:
        return _converter().structure(params, cls)
    except cattrs.ClassValidationError as exc:
        problems = "; ".join(cattrs.transform_error(exc, path="params", format_exception=_reason))
        for f in attrs.fields(cls):  # type: ignore[arg-type]
            problems = problems.replace(f"params.{f.name}", f"params.{_camel(f.name)}")  # the client's names
        raise invalid(f"{method}: {problems}") from None
    except (TypeError, ValueError) as exc:
        raise invalid(f"{method}: {exc}") from None

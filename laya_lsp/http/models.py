"""Request and response bodies of the HTTP API (pydantic): camelCase JSON, unknown keys refused, checked here.

A cursor is given as `text` + `offset` (characters, i.e. Unicode code points), `text` + `line` + `column`
(0-based, column in code points), `text` alone (cursor at the end) or `prefix` + `suffix`. Whatever a model
cannot check on its own (a cursor past the end of the text) is checked by a model validator, so a bad body is
a 422 with the field named, never a failure further in.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator
from pydantic.alias_generators import to_camel

from ..decisions import structured
from ..decisions.decide import MAX_CHOICE_ID_CHARS, MAX_CHOICE_TEXT_CHARS, MAX_CHOICES
from ..syntax.positions import PositionError, strict_offset

SESSION_PATTERN = r"^[A-Za-z0-9._:@-]{1,128}$"


class _Body(BaseModel):
    model_config = ConfigDict(alias_generator=to_camel, populate_by_name=True, extra="forbid")


class _Out(BaseModel):
    model_config = ConfigDict(alias_generator=to_camel, populate_by_name=True)


class Cursor(_Body):
    """Where the cursor is: text + offset, text + line/column, text alone (end), or prefix + suffix."""

    text: str | None = Field(default=None,
                             description="the whole document (with offset or line/column; alone: cursor at end)")
    offset: int | None = Field(default=None, ge=0,
                               description="cursor index into `text`, in characters (code points)")
    line: int | None = Field(default=None, ge=0, description="0-based line of the cursor in `text`")
    column: int | None = Field(default=None, ge=0,
                               description="0-based column in characters (code points) on `line`")
    prefix: str | None = Field(default=None, description="the text before the cursor (instead of `text`)")
    suffix: str | None = Field(default=None, description="the text after the cursor (with `prefix`; default empty)")
    language: str = Field(default="", max_length=64,
                          description="LSP languageId, e.g. python; wins over `filename`")
    filename: str = Field(default="", max_length=1024, description="file name whose extension picks the language")
    session: str | None = Field(default=None, pattern=SESSION_PATTERN,
                                description="keeps a KV cache for this id across requests (the HTTP analogue of "
                                "an open document); omitted: a one-off cache, dropped after the request")

    @model_validator(mode="after")
    def _one_cursor(self) -> Cursor:
        if self.text is not None and self.prefix is not None:
            raise ValueError("give either `text` (with `offset` or `line`+`column`) or `prefix`/`suffix`, not both")
        if self.text is None:
            if self.offset is not None or self.line is not None or self.column is not None:
                raise ValueError("`offset`, `line` and `column` need `text`")
            if self.prefix is None and self.suffix is not None:
                raise ValueError("`suffix` needs `prefix`")
            return self
        if self.suffix is not None:
            raise ValueError("`suffix` goes with `prefix`, not with `text`")
        if self.offset is not None and (self.line is not None or self.column is not None):
            raise ValueError("give `offset` or `line`+`column`, not both")
        if (self.line is None) != (self.column is None):
            raise ValueError("`line` and `column` go together")
        if self.offset is not None and self.offset > len(self.text):
            raise ValueError(f"offset {self.offset} is past the end of the text ({len(self.text)} characters)")
        if self.line is not None:
            self.located()  # raises for a line or column outside the text
        return self

    def located(self) -> tuple[str, int]:
        """(document text, cursor index)."""
        if self.text is None:
            prefix = self.prefix or ""
            return prefix + (self.suffix or ""), len(prefix)
        if self.offset is not None:
            return self.text, self.offset
        if self.line is None or self.column is None:
            return self.text, len(self.text)
        try:  # columns in code points; lines end at \n, \r\n or \r, as for the LSP
            return self.text, strict_offset(self.text, self.line, self.column, "utf-32")
        except PositionError as exc:
            raise ValueError(str(exc)) from None

    @property
    def has_document(self) -> bool:
        return self.text is not None or self.prefix is not None


class CompleteRequest(Cursor):
    kind: Literal["completion", "inline"] = Field(
        "completion", description="completion: one line per candidate; inline: a block (up to inlineMaxLines)")

    @model_validator(mode="after")
    def _needs_text(self) -> CompleteRequest:
        if not self.has_document:
            raise ValueError("give `text` (with `offset`, `line`+`column`, or none for the end) or `prefix`")
        return self


class Answered(_Out):
    """What every answer carries besides its content: the request's stats record and the HTTP front's times."""

    stats: dict[str, Any] = Field(description="this request's record, exactly as `laya/stats` lists it under "
                                  "`recent` (same keys, snake_case): status, source, queue_ms, debounce_ms, "
                                  "prompt_tokens, reused_tokens, prefill_ms, decode_tokens, decode_ms, "
                                  "postprocess_ms, total_ms (engine time from queueing to the cleaned answer), ...")
    admission_ms: float = Field(description="waiting for a slot in the HTTP line")
    http_ms: float = Field(description="the whole request as the server saw it")


class Suggestion(_Out):
    text: str = Field(description="inserted at the cursor")
    logprob: float
    rules: list[str] = Field(default_factory=list, description="post-processing rules that changed it")
    fixed: bool = False


Status = Literal["ok", "skipped", "superseded", "cancelled", "dropped", "error"]


class CompleteResponse(Answered):
    candidates: list[Suggestion]
    status: Status = Field(description="ok; skipped (syntax declined: see plan); superseded (a newer request for "
                           "the same session came in); error (see error)")
    source: str = Field(description="model, typed-through, speculative or none")
    plan: str = Field(description="why (and how much) the syntax layer chose to complete")
    session: str | None = None
    offset: int = Field(description="the cursor index the request resolved to")
    error: str | None = None


class Choice(_Body):
    id: str = Field(min_length=1, max_length=MAX_CHOICE_ID_CHARS)
    description: str | None = Field(default=None, max_length=MAX_CHOICE_TEXT_CHARS)
    text: str | None = Field(default=None, max_length=MAX_CHOICE_TEXT_CHARS,
                             description="what is scored (default: description, then id)")


class DecideRequest(Cursor):
    choices: list[str | Choice] = Field(min_length=2, max_length=MAX_CHOICES)
    context: str | None = Field(default=None, description="text the choice follows (instead of a document cursor)")
    threshold: float | None = Field(default=None, ge=0, le=1,
                                    description="below it, choice is null (default: decisionThreshold)")
    normalize: Literal["total", "mean"] | None = None
    temperature: float | None = Field(default=None, gt=0, le=100)

    @model_validator(mode="after")
    def _one_context(self) -> DecideRequest:
        if (self.context is None) == (not self.has_document):
            raise ValueError("give `context` (text), or a document cursor (`text`/`prefix`), exactly one of them")
        if self.context is not None and not self.context:
            raise ValueError("`context` is empty")
        if self.session is not None and self.context is not None:
            raise ValueError("`session` goes with a document cursor, not with `context`")
        return self


class Score(_Out):
    id: str
    score: float


class Calibration(_Out):
    normalize: str
    temperature: float


class _HandOff(_Out):
    """What the hand-off tier (`fallback.*` settings) adds when local confidence was below its threshold."""

    fallback_text: str | None = Field(default=None, description="what the fallback model said")
    fallback_error: str | None = Field(default=None, description="why the local answer stands after a hand-off")
    local: dict[str, Any] | None = Field(default=None, description="the local answer the fallback replaced")


class DecideResponse(_HandOff, Answered):
    choice: str | None = Field(description="the chosen id, or null below the threshold")
    confidence: float
    scores: list[Score]
    source: str = Field(description="local, or fallback when the hand-off tier answered")
    calibration: Calibration


class StructuredRequest(_Body):
    json_schema: dict[str, Any] = Field(alias="schema",
                                        description="a JSON Schema the answer must validate against")
    prompt: str = Field(min_length=1, description="the text the JSON is about (an instruction and/or data)")
    max_tokens: int = Field(default=structured.DEFAULT_MAX_TOKENS, ge=1, le=structured.MAX_TOKENS)


class StructuredResponse(_HandOff, Answered):
    value: Any = Field(description="a JSON value that validates against the schema")
    text: str
    confidence: float
    tokens: int
    truncated: bool = Field(description="the token budget ran out and the grammar closed the value")
    source: str


class Health(_Out):
    status: Literal["ok", "loading", "error"]
    model: str | None = None
    error: str | None = None


class QueueInfo(_Out):
    max_in_flight: int
    max_queue: int
    in_flight: int
    waiting: int
    rejected: int = Field(description="requests answered 429 since start")
    disconnected: int = Field(description="requests whose client went away (their work was cancelled)")
    sessions: int


class Stats(_Out):
    """The `laya/stats` report (same keys) plus the HTTP front's queue."""

    model_config = ConfigDict(alias_generator=None, extra="allow")

    summary: dict[str, Any]
    recent: list[dict[str, Any]]
    documents: list[dict[str, Any]]
    http: QueueInfo


class ErrorBody(_Out):
    detail: Any

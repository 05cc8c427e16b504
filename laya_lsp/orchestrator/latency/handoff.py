"""The hand-off: where the local answer is unsure and `fallback.url` is set, a serving engine (vLLM, llama.cpp's
server, mlx_lm.server: OpenAI-compatible `/v1/completions`) is asked for the same position in the background.

The local answer is never delayed: the request has been answered before the hand-off starts. The remote answer
is cleaned like a local one (`answers.clean`: the same post-processing and syntax checks), cut by its own token
log-probabilities under the same calibration and `minConfidence` (`remote_candidate`; the remote model's own
calibration where confidence.json has one by its name, else the local model's), and kept only while
the document is still at the version it was asked for; the editor's next request at that version gets it (and
it becomes the shown answer, which typing along is served from). The next keystroke cancels a hand-off in
flight (its connection is closed) and drops an answer not yet served; every failure leaves the local answer
standing, with one log line and an error record.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable
from dataclasses import dataclass, replace

from ...config import Settings
from ...decisions import fallback
from ...engine import Candidate, CompletionResult, Timings, format_named, text_prompt, trailing_blanks
from ...syntax import CompletionPlan, SyntaxDocument
from ..answers import Cleaned, Completion, Suggestion, clean, shown_for
from ..confidence import Calibration, calibration_for
from ..records import Kind, Records, Source
from .background import Background
from .base import Ask, LatencyStrategy, Ticket
from .typed_through import TypedThrough

log = logging.getLogger(__name__)


Context = Callable[[str, SyntaxDocument, int], list[tuple[str, str]]]


def unsure(suggestions: list[Suggestion], kind: Kind, s: Settings) -> bool:
    """Whether the local answer is unsure enough to ask the serving engine (the one place this is decided):
    nothing passed the checks, or what this kind shows was cut short or withheld for low confidence."""
    return not suggestions or shown_for(suggestions, kind, s.min_confidence if s.postprocess else 0.0)[1]


@dataclass(frozen=True)
class RemotePrompt:
    """What a completion hand-off sends: `prompt`, a `suffix` field (None: in the prompt or none) and stop
    strings; `blanks`: spaces typed after code, left out of the prompt (the answer is expected to start with
    them, as the engine's token healing does)."""

    prompt: str
    suffix: str | None
    stop: list[str]
    blanks: str

    def answer(self, said: str) -> str:
        """The remote's text as inserted at the cursor (the blanks typed before it taken off)."""
        return said[len(self.blanks):] if said.startswith(self.blanks) else said.lstrip(" \t")


def remote_prompt(fim: str, text: str, offset: int, context: list[tuple[str, str]], path: str,
                  chars: int = 10000) -> RemotePrompt:
    """The hand-off's prompt for a completion at `offset` of `text`, in the prompt format `fim` (a FIM format's
    name, "prefix" or "suffix"), laid out by the engine's own layout code; at most `chars` of the document
    (`fallback.contextChars`: four fifths before the cursor, the rest after)."""
    prefix, suffix = text[:offset], text[offset:]
    blanks = trailing_blanks(prefix)
    prefix = prefix[: len(prefix) - len(blanks)]
    before, after = chars * 4 // 5, chars - chars * 4 // 5
    if len(prefix) > before:  # start at a line start, so the model sees whole lines
        cut = prefix[-before:]
        prefix = cut[cut.find("\n") + 1:] if "\n" in cut else cut
    if len(suffix) > after:
        cut = suffix[:after]
        suffix = cut[: cut.rfind("\n") + 1] if "\n" in cut else cut
    if fim == "suffix":
        return RemotePrompt(prefix, suffix, [], blanks)
    fmt, layout = format_named(fim)
    return RemotePrompt(text_prompt(fmt, prefix, suffix, context, path, layout), None, list(fmt.stop), blanks)


def token_spans(text: str, tokens: list[tuple[str, float]]) -> list[tuple[int, float]] | None:
    """Where each of a remote answer's tokens ends in its `text`, with its log-probability: tokens past the text
    (a stop string the server cut off) left out; blanks the server's detokenizer dropped before the text
    (mlx_lm.server trims the first token's space) skipped. None when the tokens do not spell the text."""
    joined = "".join(t for t, _ in tokens)
    lead = 0
    while joined[lead: lead + len(text)] != text and lead < len(joined) and joined[lead] in " \t":
        lead += 1
    if not tokens or joined[lead: lead + len(text)] != text:
        return None
    out: list[tuple[int, float]] = []
    end = -lead
    for piece, lp in tokens:
        if end >= len(text):
            break
        end += len(piece)
        if end > 0:
            out.append((min(end, len(text)), lp))
    return out


def remote_candidate(asked: RemotePrompt, said: fallback.FallbackAnswer) -> Candidate:
    """The remote's answer as the engine's candidates are: its text as inserted at the cursor and, where the
    server sent them, its tokens' log-probabilities and where each ends in that text (`token_spans`; none: the
    answer is not cut)."""
    text = asked.answer(said.text)
    drop = len(said.text) - len(text)  # the blanks typed before the cursor, which the remote said again
    spans = token_spans(said.text, said.tokens)
    kept = [(end - drop, lp) for end, lp in spans or [] if end > drop]
    if not kept:
        return Candidate(text, 0.0, 0)
    return Candidate(text, sum(lp for _, lp in kept), len(kept), [lp for _, lp in kept], [e for e, _ in kept])


def remote_answer(cleaned: Cleaned, raw: Candidate) -> Cleaned:
    """A serving engine's cleaned answer as shown: its text passed the same checks as a local one; cut for its
    own confidence where it came with token log-probabilities (by `clean`), else shown whole (confidence 1)."""
    if raw.token_logprobs:
        return cleaned
    return replace(cleaned, suggestions=[replace(x, confidence=1.0, cut_at=None) for x in cleaned.suggestions])


@dataclass
class _Asked:
    """A hand-off in flight (or its answer, once it arrived) for one document version."""

    prefix: str
    suffix: str
    version: int | None
    task: asyncio.Task | None = None
    answer: Completion | None = None

    def at(self, ask: Ask) -> bool:
        same_version = self.version is None or ask.version is None or self.version == ask.version
        return same_version and (self.prefix, self.suffix) == (ask.prefix, ask.suffix)


class HandOff(LatencyStrategy):
    """Keeps per document the one hand-off asked for its latest version, and its answer once it arrived."""

    def __init__(self, settings: Callable[[], Settings], records: Records, background: Background,
                 shown: TypedThrough, context: Context, calibration: Callable[[], Calibration | None]) -> None:
        self.settings = settings
        self.calibration = calibration  # the local model's
        self.records = records
        self.background = background
        self.shown = shown
        self.context = context
        self.asked: dict[str, _Asked] = {}

    def early(self, ask: Ask) -> Ticket | None:
        entry = self.asked.get(ask.doc_id)
        if entry is None:
            return None
        if not entry.at(ask):  # another text: what was asked for the old one is of no use
            self._drop(ask.doc_id)
            return None
        if entry.answer is None:
            return None
        plan = entry.answer.plan or CompletionPlan(True, Source.HANDOFF.value)
        st = self.records.plain(ask.doc_id, ask.kind, Source.HANDOFF, plan.reason)
        if ask.remember:  # now shown: typing along it is typed-through's to answer
            self.shown.show(ask.doc_id, ask.prefix, ask.suffix, entry.answer)
        return Ticket(plan, immediate=Completion(list(entry.answer.suggestions), st, plan))

    def settled(self, ask: Ask, answer: Completion) -> None:
        s = self.settings()
        fb = s.fallback
        if not fallback.enabled(fb) or fb.completions == "off" or answer.plan is None or not answer.plan.complete:
            return
        if ask.kind not in (Kind.COMPLETION.value, Kind.INLINE.value) or not ask.current():
            return
        if fb.completions == "unsure" and not unsure(answer.suggestions, ask.kind, s):
            return
        entry = self.asked.get(ask.doc_id)
        if entry is not None and entry.at(ask):
            return  # already asked for this text
        self._drop(ask.doc_id)
        entry = _Asked(ask.prefix, ask.suffix, ask.version)
        entry.task = self.background.spawn(self._ask(ask, entry, ask.doc.text, answer.plan))
        self.asked[ask.doc_id] = entry

    async def _ask(self, ask: Ask, entry: _Asked, text: str, plan: CompletionPlan) -> None:
        """Ask the serving engine, clean its answer and keep it if the document is still at its version."""
        await asyncio.sleep(0)  # the local answer goes out first
        doc = ask.doc.with_text(text)  # the document changes as the user types on: a snapshot of the asked text
        s, started = self.settings(), time.perf_counter()
        asked = remote_prompt(s.fallback.fim, doc.text, ask.offset, self.context(ask.doc_id, doc, ask.offset),
                              ask.doc_id, s.fallback.context_chars)
        try:
            said = await fallback.complete_async(s.fallback, asked.prompt, min(s.max_tokens, plan.max_tokens),
                                                 asked.stop, asked.suffix, logprobs=True)
            if not asked.answer(said.text).strip():
                raise fallback.FallbackError("the answer was empty")
        except fallback.FallbackError as exc:
            log.warning("hand-off to %s failed, the local answer stands: %s", s.fallback.url, exc)
            self.records.failed(ask.doc_id, Kind.HANDOFF, plan.reason, exc, own=True)
            return
        timings = Timings(total_ms=(time.perf_counter() - started) * 1000)
        raw = remote_candidate(asked, said)
        result = CompletionResult([raw], timings, ask.version, {"remoteModel": said.model})
        threshold = s.min_confidence if s.postprocess else 0.0
        cal = calibration_for(said.model) or self.calibration()
        cleaned = remote_answer(clean(doc, ask.offset, plan, result, s.syntax() if s.postprocess else None,
                                      threshold, cal), raw)
        answer = cleaned.booked(self.records.answered(ask.doc_id, Kind.HANDOFF, Source.HANDOFF, result, plan.reason,
                                                      own=True, postprocess_ms=cleaned.postprocess_ms,
                                                      extra=cleaned.cleaning()))
        if not answer.suggestions:
            log.warning("hand-off to %s: its answer did not pass the syntax checks (%s), the local answer stands",
                        s.fallback.url, answer.rejected)
        elif not shown_for(answer.suggestions, ask.kind, threshold)[0]:
            log.info("hand-off to %s: even its answer's first word is unsure, the local answer stands", s.fallback.url)
        elif self.asked.get(ask.doc_id) is entry and ask.current():
            entry.answer = answer
        else:
            log.info("hand-off answered after the document changed: dropped")

    def changed(self, doc_id: str) -> None:
        self._drop(doc_id)

    def _drop(self, doc_id: str) -> None:
        entry = self.asked.pop(doc_id, None)
        if entry is not None and entry.task is not None and not entry.task.done():
            entry.task.cancel()  # closes its connection: the server sees the request dropped

    def closed(self, doc_id: str) -> None:
        self._drop(doc_id)

    def held(self) -> set[str]:
        return set(self.asked)


"""Decisions as users see them: `decide`, `structured` and code-action edits, the same for every front.

Each request waits for the model, runs its model half on the inference worker (laya_lsp.decisions, through the
engine's `ModelWork` handle), and hands low-confidence work to the fallback tier when one is configured. The
result comes back with the request's stats record. Bad input raises DecisionError / SchemaError (the fronts
answer invalid params / 422); no model raises NotReady; work cancelled or superseded raises Superseded; a failure
of the model's work on the server's side raises ModelFailed (logged here with its cause).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from typing import Any

from ..config import Settings
from ..decisions import actions, fallback, resolve, structured
from ..decisions.decide import DecideRequest, Decision, DecisionError, decide_with, parse_options
from ..engine import Engine, ModelUnavailable, ModelWork, Status, WorkFailed, WorkResult
from ..lines import cut_lines
from ..syntax import SyntaxDocument
from .records import Kind, Records, RequestStats, Source
from .waiting import Caller, ModelFailed, ModelGate, NotReady, Superseded, wait_job

log = logging.getLogger(__name__)

# The fallback model continues the end of the action's prompt: ~1,500 tokens of code at ~4 characters a token,
# inside any served model's context window and cheap to send.
FALLBACK_PROMPT_CHARS = 6000
# Errors in the work that are the request's own (a schema the decoder cannot use, choices it cannot score);
# anything else is the server's and becomes ModelFailed.
CLIENT_ERRORS: tuple[type[Exception], ...] = (structured.SchemaError, DecisionError)
# A code action's data the client altered breaks its work with one of these.
ALTERED_DATA = (KeyError, TypeError, ValueError, IndexError)


class DecisionFlow:
    """Runs decide, structured and code-action work on the engine; knows neither LSP nor HTTP."""

    def __init__(self, engine: Engine, settings: Callable[[], Settings], gate: ModelGate, records: Records) -> None:
        self.engine = engine
        self.settings = settings
        self.gate = gate
        self.records = records

    async def _work(self, kind: Kind, doc_id: str | None, work: Callable[[ModelWork], Any], caller: Caller,
                    latest_wins: bool = False,
                    describe: Callable[[Any], tuple[int, dict[str, object]]] | None = None,
                    client_errors: tuple[type[Exception], ...] = CLIENT_ERRORS) -> tuple[Any, RequestStats]:
        """What `work` returned (never None) and the request's record, booked once: `describe(value)` gives its
        candidate count and extra fields. An error in the work is re-raised when it is one of `client_errors`
        (the request's fault), else logged and raised as ModelFailed."""
        refused = await self.gate.refusal(doc_id or "", kind, caller)
        if refused is not None:
            raise NotReady(refused.error or "", refused.status is Status.LOADING)
        job = self.engine.submit_work(kind, doc_id, work, latest_wins)
        if caller.hold is not None:
            caller.hold(job.future)
        doc = doc_id or ""
        try:
            out: WorkResult[Any] = await wait_job(self.engine, job, caller)
        except ModelUnavailable as exc:  # the model went away between the check and the run
            self.records.plain(doc, kind, Source.NONE, "", Status.ERROR, error=str(exc))
            raise NotReady(str(exc), loading=False) from None
        except WorkFailed as exc:
            self.records.failed(doc, kind, "", exc, own=True)
            if isinstance(exc.error, client_errors):
                raise exc.error from None  # the request's own fault: the fronts answer invalid params / 422
            log.error("%s work failed", kind, exc_info=exc.error)
            raise ModelFailed(kind) from None
        except BaseException:  # the caller left: its job's record is booked when the job ends
            self.records.when_done(job, doc, kind, Source.MODEL, "")
            raise
        if out.value is None:
            self.records.worked(doc, kind, out)
            raise Superseded(out.timings.status.value)
        candidates, extra = describe(out.value) if describe else (0, {})
        return out.value, self.records.worked(doc, kind, out, candidates=candidates, extra=extra)

    def decide_request(self, choices: Any, *, context: str | None = None, text: str = "", offset: int = 0,
                       doc_id: str | None = None, threshold: float | None = None, normalize: str | None = None,
                       temperature: float | None = None) -> DecideRequest:
        """The `decide` request every front builds here (defaults from the settings in force): over `context`
        text, or over a document `text` with the cursor at `offset`. Raises DecisionError for bad choices."""
        s = self.settings()
        common: dict[str, Any] = {
            "options": parse_options(choices), "max_tokens": s.decision_tokens, "normalize": normalize,
            "threshold": s.decision_threshold if threshold is None else float(threshold), "temperature": temperature,
        }
        if context is not None:
            return DecideRequest(prefix=context, **common)
        return DecideRequest(prefix=text[:offset], suffix=text[offset:], document=True, doc_id=doc_id, **common)

    async def decide(self, req: DecideRequest, caller: Caller | None = None) -> tuple[dict[str, Any], RequestStats]:
        """The decision as JSON (the hand-off tier applied when confidence is low) and its stats record."""

        def work(model: ModelWork) -> Decision:
            return decide_with(model, req)

        def describe(d: Decision) -> tuple[int, dict[str, object]]:
            return len(req.options), {"choice": d.choice, "confidence": round(d.confidence, 4)}

        decision, stats = await self._work(Kind.DECIDE, req.doc_id, work, caller or Caller(), describe=describe)
        answer = decision.to_json()
        fb = self.settings().fallback
        if fallback.wanted(fb, decision.confidence):
            options = [(o.id, o.text) for o in req.options]
            answer.update(await asyncio.to_thread(fallback.handoff_decision, fb, decision, options))
        return answer, stats

    async def structured(self, prompt: str, schema: Any, max_tokens: int,
                         caller: Caller | None = None) -> tuple[dict[str, Any], RequestStats]:
        """JSON valid for `schema` after `prompt` (the fallback's when local confidence is low and it gives a
        valid value) and the stats record. Raises structured.SchemaError for a schema it cannot use (`schema`
        is the client's JSON, checked here)."""
        prepared = structured.prepare_schema(schema)
        s = self.settings()

        def work(model: ModelWork) -> structured.StructuredResult:
            r = structured.structured_with(model, prompt, schema, prepared, max_tokens, s.decision_tokens)
            model.meter.set(decode_tokens=r.tokens)  # the value's tokens, with those the grammar closed it with
            return r

        def describe(r: structured.StructuredResult) -> tuple[int, dict[str, object]]:
            return 0, {"mask_ms_per_token": round(r.mask_ms_per_token, 4), "truncated": r.closed_by_grammar}

        result, stats = await self._work(Kind.STRUCTURED, None, work, caller or Caller(), describe=describe)
        if fallback.wanted(s.fallback, result.confidence):
            await asyncio.to_thread(fallback.handoff_structured, s.fallback, prompt, schema, max_tokens, result)
        return result.to_json(), stats

    async def resolve_action(self, doc: SyntaxDocument, data: dict[str, Any], uri: str,
                             caller: Caller | None = None) -> resolve.Resolution | None:
        """The edit a code action's `data` asks for, on `doc` (a snapshot of the version it was offered for);
        None when there is none (no model, superseded by a newer resolve, or data the client altered)."""
        s = self.settings()

        def work(model: ModelWork) -> resolve.Resolution:
            return resolve.resolve_with(model, doc, data, s, uri)

        try:
            res, _stats = await self._work(Kind.ACTION, uri, work, caller or Caller(), latest_wins=True,
                                           describe=lambda _r: (0, {"action": data.get("laya")}),
                                           client_errors=ALTERED_DATA)
        except (NotReady, Superseded, ModelFailed):
            return None
        except ALTERED_DATA as exc:  # data the client altered
            log.warning("code action not resolved: %s: %s", type(exc).__name__, exc)
            return None
        if res.edit is None or fallback.wanted(s.fallback, res.confidence):
            res = await self._action_fallback(data, res)
        return res

    async def _action_fallback(self, data: dict[str, Any], res: resolve.Resolution) -> resolve.Resolution:
        """Generation actions (complete block, implement comment) hand low-confidence work to the fallback."""
        fb = self.settings().fallback
        if not fallback.enabled(fb) or data.get("laya") not in (actions.COMPLETE_BLOCK, actions.IMPLEMENT_COMMENT):
            return res
        at = int(data["at"])
        lead = res.prompt_prefix[at:]  # what the action puts before the generated text (a newline and indent)
        try:
            answer = await asyncio.to_thread(fallback.complete, fb, res.prompt_prefix[-FALLBACK_PROMPT_CHARS:],
                                           resolve.BLOCK_TOKENS)
        except fallback.FallbackError as exc:
            log.warning("fallback failed, answering locally: %s", exc)
            return res
        text = cut_lines(answer.text, res.max_lines).rstrip()  # the completions' line rule (lines.py)
        if not text.strip():
            return res
        return resolve.Resolution(actions.Edit(at, at, lead + text), "laya: completed by the fallback model",
                                  res.confidence, res.prompt_prefix, max_lines=res.max_lines)

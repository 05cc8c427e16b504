"""The HTTP front: `create_app(engine, settings)` gives a FastAPI app on the same engine, caches and decisions.

Thin like the LSP handlers: a pydantic body in, the plain calls the LSP uses (CompletionService for completions,
`laya_lsp.decisions` for decide/structured), a pydantic body back. What is HTTP's own: admission (at most
`max_in_flight` requests hold engine work, a bounded line behind them, 429 + Retry-After beyond), cancellation
when the client disconnects (polled while waiting, so it also stops a prefill), sessions, auth and limits.
"""

from __future__ import annotations

import asyncio
import hmac
import time
from concurrent.futures import Future
from dataclasses import dataclass
from typing import Any

from fastapi import APIRouter, Depends, FastAPI, HTTPException, Query, Request
from fastapi.encoders import jsonable_encoder
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, Response
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer

from .. import __version__
from ..config import Settings
from ..decisions import fallback, runner, structured
from ..decisions.decide import DecideRequest as Decide
from ..decisions.decide import DecisionError, decide_on_worker, parse_options
from ..engine import Engine
from ..engine.scheduler import Job
from ..engine.stats import RequestStats
from ..report import engine_report
from ..service import Answer, CompletionService
from . import models as m
from .admission import POLL_S, Admission, ClientGone, QueueFull, Slot
from .sessions import Sessions

CLIENT_CLOSED = 499  # nginx's "client closed request": nobody reads it, the access log does
ERRORS: dict[int | str, dict[str, Any]] = {
    400: {"model": m.ErrorBody, "description": "the body is not JSON"},
    401: {"model": m.ErrorBody, "description": "missing or wrong bearer token (when the server has one)"},
    409: {"model": m.ErrorBody, "description": "decide: superseded by a newer decide for the same session"},
    413: {"model": m.ErrorBody, "description": "the body is larger than the server's limit"},
    422: {"model": m.ErrorBody, "description": "the body does not match the schema, or names a bad cursor"},
    429: {"model": m.ErrorBody, "description": "too many requests in flight and queued; see Retry-After"},
    503: {"model": m.ErrorBody, "description": "no model is loaded"},
}


@dataclass
class HttpOptions:
    max_in_flight: int = 4  # requests holding engine work (running or in the scheduler's queue)
    max_queue: int = 16  # requests waiting for one of those slots; beyond: 429
    max_body_bytes: int = 4 * 2**20
    max_sessions: int = 256
    token: str | None = None  # bearer token required on /v1/* when set


def timings(st: RequestStats | None, admission_ms: float, t0: float) -> m.Timings:
    http_ms = (time.perf_counter() - t0) * 1000
    if st is None:
        return m.Timings(admission_ms=admission_ms, http_ms=http_ms)
    return m.Timings(admission_ms=admission_ms, queue_ms=st.queue_ms, debounce_ms=st.debounce_ms,
                     prompt_tokens=st.prompt_tokens, reused_tokens=st.reused_tokens, prefill_ms=st.prefill_ms,
                     decode_tokens=st.decode_tokens, decode_ms=st.decode_ms, postprocess_ms=st.postprocess_ms,
                     total_ms=st.total_ms, http_ms=http_ms)


class Front:
    """State shared by the handlers; all of it is used from the event loop thread only."""

    def __init__(self, engine: Engine, settings: Settings, options: HttpOptions, loading: Future | None) -> None:
        self.engine = engine
        self.settings = settings
        self.options = options
        self.loading = loading
        self.service = CompletionService(engine, lambda: self.settings)
        self.sessions = Sessions(engine, self.service, options.max_sessions)
        self.admission = Admission(options.max_in_flight, options.max_queue)
        self._last_report: dict[str, dict[str, int]] = {}
        self.admission.typical_ms = lambda: float(engine.stats.summary()["p50_total_ms"]) or 1000.0  # type: ignore[arg-type]
        # Never hand the scheduler more than it holds: a full scheduler drops its oldest job.
        engine.scheduler.max_queue = max(engine.scheduler.max_queue, options.max_in_flight + 1)

    async def admit(self, request: Request) -> tuple[Slot, float]:
        t0 = time.perf_counter()
        slot = await self.admission.acquire(request.is_disconnected)
        if self.loading is not None and not self.loading.done():
            try:
                await asyncio.wait([asyncio.wrap_future(self.loading)])
            except BaseException:
                slot.close()
                raise
        return slot, (time.perf_counter() - t0) * 1000

    async def wait(self, request: Request, job: Job, cancel: bool = True) -> Any:
        """The job's result; cancels the job (queued: at once; running: at its next check, also mid-prefill)
        when the client disconnects or the handler is cancelled."""
        fut = asyncio.wrap_future(job.future)
        try:
            while True:
                done, _ = await asyncio.wait([fut], timeout=POLL_S)
                if done:
                    return fut.result()
                if await request.is_disconnected():
                    self.admission.disconnected += 1
                    if cancel:
                        self.engine.scheduler.cancel(job)
                    raise ClientGone()
        except asyncio.CancelledError:
            if cancel:
                self.engine.scheduler.cancel(job)
            raise

    def no_model(self) -> HTTPException:
        return HTTPException(503, detail=f"no model loaded: {self.engine.load_error or 'still loading'}")

    # -- completions -------------------------------------------------------------------------------------
    async def complete(self, body: m.CompleteRequest, request: Request) -> m.CompleteResponse:
        t0 = time.perf_counter()
        text, offset = body.located()
        slot, admission_ms = await self.admit(request)
        opened = self.sessions.open(body.session, text, body.language, body.filename)
        try:
            answer, status, error = await self._answer(request, slot, opened, offset, body.kind)
        finally:
            slot.close()
            if opened.ephemeral:
                self.sessions.forget(opened.doc_id)
        st = answer.result.stats if answer is not None and answer.result is not None else None
        if status == "error" and self.engine.lm is None:
            raise self.no_model()
        return m.CompleteResponse(
            candidates=[m.Suggestion(text=s.text, logprob=s.logprob, rules=s.rules, fixed=s.fixed)
                        for s in (answer.suggestions if answer else [])],
            status=status, source=answer.source if answer and status == "ok" else "none",
            plan=answer.plan.reason if answer else "", session=body.session, offset=offset,
            timings=timings(st, admission_ms, t0), error=error,
        )

    async def _answer(self, request: Request, slot: Slot, opened: Any, offset: int, kind: str,
                      retry: bool = True) -> tuple[Answer | None, m.Status, str | None]:
        """What `lsp.completion.run_completion` does, with an HTTP client instead of an editor."""
        doc_id, doc = opened.doc_id, opened.doc
        # Debounce only a session's requests (a client typing); a one-off request has nothing to wait for.
        ticket = self.service.request(doc_id, doc, offset, kind, debounce=not opened.ephemeral)
        if ticket.immediate is not None:
            return ticket.immediate, "ok", None
        if ticket.job is None:
            return Answer([], ticket.plan, None, source="none"), "skipped", None
        if not ticket.shared:
            slot.bind(ticket.job.future)
        result = await self.wait(request, ticket.job, cancel=not ticket.shared)
        st = result.stats
        if st.status != "ok":
            return Answer([], ticket.plan, result, source="none"), st.status, st.error  # type: ignore[return-value]
        answer = self.service.finish(doc, offset, ticket.plan, result, None if opened.ephemeral else doc_id,
                                     typed=ticket.typed)
        if ticket.shared and not answer.suggestions and retry:
            # Typed past what the running generation predicted: ask the model for this text.
            return await self._answer(request, slot, opened, offset, kind, retry=False)
        return answer, "ok", None

    # -- decisions ---------------------------------------------------------------------------------------
    def _decide_request(self, body: m.DecideRequest) -> tuple[Decide, str | None]:
        try:
            options = parse_options([c if isinstance(c, str) else c.model_dump(exclude_none=True)
                                     for c in body.choices])
        except DecisionError as exc:
            raise HTTPException(422, detail=str(exc)) from None
        s = self.settings
        threshold = s.decision_threshold if body.threshold is None else body.threshold
        common: dict[str, Any] = {"options": options, "threshold": threshold, "max_tokens": s.decision_tokens,
                                  "normalize": body.normalize, "temperature": body.temperature}
        if body.context is not None:
            return Decide(prefix=body.context, **common), None
        text, offset = body.located()
        return Decide(prefix=text[:offset], suffix=text[offset:], document=True, **common), text

    async def decide(self, body: m.DecideRequest, request: Request) -> m.DecideResponse:
        t0 = time.perf_counter()
        req, text = self._decide_request(body)
        slot, admission_ms = await self.admit(request)
        try:
            if body.session is not None and text is not None:
                req.doc_id = self.sessions.open(body.session, text, body.language, body.filename).doc_id
            chunk = self.settings.prefill_chunk

            def work(lm: Any, doc_cache: Any, cancel: Any, st: RequestStats) -> Any:
                d = decide_on_worker(lm, doc_cache(), req, cancel, chunk)
                if d.result is not None:
                    st.prompt_tokens, st.reused_tokens = d.result.prompt_tokens, d.result.reused_tokens
                    st.prefill_ms, st.decode_ms = d.result.prefill_ms, d.result.score_ms
                    st.candidates = len(req.options)
                st.extra.update(choice=d.choice, confidence=round(d.confidence, 4))
                return d, st

            out = await self._decision(request, slot, runner.submit(self.engine, "decide", req.doc_id, work))
        finally:
            slot.close()
        decision, st = out
        j = decision.to_json()
        if fallback.wanted(self.settings.fallback, decision.confidence):  # the hand-off tier, as over the LSP
            j.update(await asyncio.to_thread(fallback.handoff_decision, self.settings.fallback, decision,
                                             [(o.id, o.text) for o in req.options]))
        return m.DecideResponse(**j, timings=timings(st, admission_ms, t0))  # keys are the camelCase aliases

    async def structured(self, body: m.StructuredRequest, request: Request) -> m.StructuredResponse:
        t0 = time.perf_counter()
        schema = body.json_schema
        try:
            prepared = structured.prepare_schema(schema)
        except structured.SchemaError as exc:
            raise HTTPException(422, detail=str(exc)) from None
        s = self.settings
        prompt, max_tokens = body.prompt, body.max_tokens

        def work(lm: Any, _doc: Any, cancel: Any, st: RequestStats) -> Any:
            r = structured.structured_on_worker(lm, prompt, schema, prepared, max_tokens, s.decision_tokens, cancel,
                                                s.prefill_chunk)
            st.prompt_tokens, st.reused_tokens, st.prefill_ms = r.prompt_tokens, r.reused_tokens, r.prefill_ms
            st.decode_tokens, st.decode_ms = r.tokens, r.decode_ms
            st.extra.update(mask_ms_per_token=round(r.mask_ms_per_token, 4), truncated=r.closed_by_grammar)
            return r, st

        slot, admission_ms = await self.admit(request)
        try:
            result, st = await self._decision(request, slot, runner.submit(self.engine, "structured", None, work))
        finally:
            slot.close()
        if fallback.wanted(s.fallback, result.confidence):
            await asyncio.to_thread(fallback.handoff_structured, s.fallback, prompt, schema, max_tokens, result)
        return m.StructuredResponse(**result.to_json(), timings=timings(st, admission_ms, t0))

    async def _decision(self, request: Request, slot: Slot, job: Job) -> Any:
        slot.bind(job.future)
        try:
            out = await self.wait(request, job)
        except runner.NoModel:
            raise self.no_model() from None
        except structured.SchemaError as exc:
            raise HTTPException(422, detail=str(exc)) from None
        if out is None:  # cancelled, superseded or dropped
            raise HTTPException(409, detail="superseded by a newer request for the same session")
        return out

    # -- stats and health --------------------------------------------------------------------------------
    async def stats(self, recent: int, reset: bool) -> dict[str, Any]:
        out = await engine_report(self.engine, int(self.settings.cache_budget_mb * 2**20), recent, reset,
                                  self._last_report)
        a = self.admission
        out["http"] = m.QueueInfo(max_in_flight=a.max_in_flight, max_queue=a.max_queue, in_flight=a.in_flight,
                                  waiting=a.waiting, rejected=a.rejected, disconnected=a.disconnected,
                                  sessions=len(self.sessions)).model_dump(by_alias=True)
        return out

    def health(self) -> tuple[int, m.Health]:
        lm = self.engine.lm
        if lm is not None:
            return 200, m.Health(status="ok", model=lm.name)
        if self.engine.load_error:
            return 503, m.Health(status="error", error=self.engine.load_error)
        return 503, m.Health(status="loading")


class BearerToken(HTTPBearer):
    """Requires `Authorization: Bearer <token>`; as an HTTPBearer it also documents the scheme in OpenAPI."""

    def __init__(self, token: str) -> None:
        super().__init__(auto_error=False, description="laya-lsp http --token / LAYA_HTTP_TOKEN")
        self._expected = token.encode()

    async def __call__(self, request: Request) -> None:  # type: ignore[override]
        creds: HTTPAuthorizationCredentials | None = await super().__call__(request)
        if creds is None or not hmac.compare_digest(creds.credentials.encode(), self._expected):
            raise HTTPException(401, detail="missing or wrong bearer token", headers={"WWW-Authenticate": "Bearer"})


def _error(e: Any) -> dict[str, Any]:
    """One validation error without the echoed input (it can be megabytes): type, where, what."""
    msg = str(e.get("msg", ""))
    why = (e.get("ctx") or {}).get("error")
    if isinstance(why, str) and why not in msg:
        msg = f"{msg}: {why}"
    return {"type": str(e.get("type", "")), "loc": jsonable_encoder(e.get("loc", ())), "msg": msg}


def create_app(engine: Engine, settings: Settings, options: HttpOptions | None = None,
               loading: Future | None = None) -> FastAPI:
    """The HTTP API on `engine` (loaded, or loading until `loading` resolves)."""
    options = options or HttpOptions()
    front = Front(engine, settings, options, loading)
    app = FastAPI(title="laya-lsp", version=__version__, max_body_size=options.max_body_bytes,
                  description="Completions, decisions and schema-constrained JSON from a local MLX model "
                  "(the engine behind the laya language server). See docs/http.md.")
    app.state.front = front
    deps = [Depends(BearerToken(options.token))] if options.token else []
    v1 = APIRouter(prefix="/v1", dependencies=deps, responses=ERRORS)

    @v1.post("/complete", response_model=m.CompleteResponse)
    async def complete(body: m.CompleteRequest, request: Request) -> m.CompleteResponse:
        """Cleaned completion candidates at a cursor, with timings."""
        return await front.complete(body, request)

    @v1.post("/decide", response_model=m.DecideResponse)
    async def decide(body: m.DecideRequest, request: Request) -> m.DecideResponse:
        """Pick one of a closed set of choices, with a calibrated confidence (as `laya/decide`)."""
        return await front.decide(body, request)

    @v1.post("/structured", response_model=m.StructuredResponse)
    async def structured_(body: m.StructuredRequest, request: Request) -> m.StructuredResponse:
        """JSON that validates against a JSON Schema, by constrained decoding (as `laya/structured`)."""
        return await front.structured(body, request)

    @v1.get("/stats", response_model=m.Stats)
    async def stats(recent: int = Query(50, ge=0, le=256), reset: bool = False) -> dict[str, Any]:
        """The `laya/stats` report (recent requests, aggregates, caches, queue, model) plus the HTTP queue."""
        return await front.stats(recent, reset)

    app.include_router(v1)

    @app.get("/healthz", response_model=m.Health, responses={503: {"model": m.Health}})
    async def healthz() -> JSONResponse:
        """200 when a model is loaded; 503 while it loads or after it failed to load."""
        code, body = front.health()
        return JSONResponse(body.model_dump(), status_code=code)

    @app.exception_handler(QueueFull)
    async def queue_full(_request: Request, exc: QueueFull) -> JSONResponse:
        return JSONResponse({"detail": str(exc)}, status_code=429, headers={"Retry-After": str(exc.retry_after)})

    @app.exception_handler(ClientGone)
    async def client_gone(_request: Request, _exc: ClientGone) -> Response:
        return Response(status_code=CLIENT_CLOSED)

    @app.exception_handler(RequestValidationError)
    async def bad_body(_request: Request, exc: RequestValidationError) -> JSONResponse:
        errors = [_error(e) for e in exc.errors()]
        code = 400 if any(e["type"] == "json_invalid" for e in errors) else 422
        return JSONResponse({"detail": errors}, status_code=code)

    return app

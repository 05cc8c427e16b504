"""The HTTP front: `create_app(orchestrator, settings)` gives a FastAPI app on the same orchestrator as the LSP.

Thin like the LSP handlers: a pydantic body in, one orchestrator call (the same flows the editor's requests
take), a pydantic body back with the request's stats record. What is HTTP's own: admission (at most
`max_in_flight` requests hold engine work, a bounded line behind them, 429 + Retry-After beyond), noticing a
client that disconnected (polled while waiting, so its work is cancelled, also mid-prefill), sessions, auth and
limits.
"""

from __future__ import annotations

import hmac
import logging
import time
from typing import Any, cast

from fastapi import APIRouter, Depends, FastAPI, HTTPException, Query, Request
from fastapi.encoders import jsonable_encoder
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, Response
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer

from .. import __version__
from ..config import Settings
from ..decisions import structured
from ..decisions.decide import DecideRequest as Decide
from ..decisions.decide import DecisionError
from ..limits import HttpOptions
from ..orchestrator import (
    Caller,
    ClientGone,
    Kind,
    ModelFailed,
    NotReady,
    Orchestrator,
    Source,
    Status,
    Superseded,
)
from . import models as m
from .admission import Admission, QueueFull, Slot
from .bodylimit import BodyLimit
from .sessions import Sessions

log = logging.getLogger(__name__)

CLIENT_CLOSED = 499  # nginx's "client closed request": nobody reads it, the access log does
LOADING_RETRY_S = 5  # Retry-After for a request answered while the model still loads
ERRORS: dict[int | str, dict[str, Any]] = {
    400: {"model": m.ErrorBody, "description": "the body is not JSON"},
    401: {"model": m.ErrorBody, "description": "missing or wrong bearer token (when the server has one)"},
    409: {"model": m.ErrorBody, "description": "decide: superseded by a newer decide for the same session"},
    413: {"model": m.ErrorBody, "description": "the body is larger than the server's limit"},
    422: {"model": m.ErrorBody, "description": "the body does not match the schema, names a bad cursor, or its "
          "JSON Schema is over a limit or admits no value the decoder can finish"},
    429: {"model": m.ErrorBody, "description": "too many requests in flight and queued; see Retry-After"},
    500: {"model": m.ErrorBody, "description": "the model's work failed on the server's side (its log says why)"},
    503: {"model": m.ErrorBody, "description": "no model is loaded (still loading: see Retry-After)"},
}


def no_model(reason: str, loading: bool) -> HTTPException:
    """503: the model is still loading (come back: Retry-After) or failed to load."""
    headers = {"Retry-After": str(LOADING_RETRY_S)} if loading else None
    return HTTPException(503, detail=f"no model loaded: {reason}", headers=headers)


class Front:
    """State shared by the handlers; all of it is used from the event loop thread only."""

    def __init__(self, orchestrator: Orchestrator, settings: Settings, options: HttpOptions) -> None:
        self.orchestrator = orchestrator
        self.settings = settings
        self.options = options
        self.sessions = Sessions(orchestrator.completions, options.max_sessions)
        self.admission = Admission(options.max_in_flight, options.max_queue)
        stats = orchestrator.book
        self.admission.typical_ms = lambda: float(stats.summary()["p50_total_ms"]) or 1000.0  # type: ignore[arg-type]

    async def admitted(self, request: Request) -> tuple[Slot, Caller, float]:
        """A slot in the admission line, how the orchestrator waits for this request, and the ms it waited."""
        t0 = time.perf_counter()
        slot = await self.admission.acquire(request.is_disconnected)

        async def gone() -> bool:
            if not await request.is_disconnected():
                return False
            self.admission.disconnected += 1
            return True

        return slot, Caller(hold=slot.bind, gone=gone), (time.perf_counter() - t0) * 1000

    # -- completions -------------------------------------------------------------------------------------
    async def complete(self, body: m.CompleteRequest, request: Request) -> m.CompleteResponse:
        t0 = time.perf_counter()
        text, offset = body.located()
        slot, caller, admission_ms = await self.admitted(request)
        opened = self.sessions.open(body.session, text, body.language, body.filename)
        try:
            # Debounce only a session's requests (a client typing); a one-off request has nothing to wait for.
            answer = await self.orchestrator.completions.complete(
                opened.doc_id, opened.doc, offset, Kind(body.kind), debounce=not opened.ephemeral,
                remember=not opened.ephemeral, caller=caller)
        finally:
            slot.close()
            if opened.ephemeral:
                self.sessions.forget(opened.doc_id)
        assert answer is not None  # (a session's document is a snapshot: it never changes under a request)
        st = answer.stats
        loading = st.status is Status.LOADING
        if loading or (st.status is Status.ERROR and self.orchestrator.engine.model_info() is None):
            raise no_model(st.error or "", loading)
        return m.CompleteResponse(
            candidates=[
                m.Suggestion(text=s.text, logprob=s.logprob, rules=s.rules, fixed=s.fixed) for s in answer.suggestions
            ],
            status=cast(m.Status, st.status),
            source=st.source if st.status is Status.OK else Source.NONE,
            plan=answer.plan.reason if answer.plan else "",
            session=body.session,
            offset=offset,
            error=st.error,
            stats=st.to_dict(),
            admission_ms=admission_ms,
            http_ms=(time.perf_counter() - t0) * 1000,
        )

    # -- decisions ---------------------------------------------------------------------------------------
    def _decide_request(self, body: m.DecideRequest) -> tuple[Decide, str | None]:
        choices = [c if isinstance(c, str) else c.model_dump(exclude_none=True) for c in body.choices]
        opts: dict[str, Any] = {"threshold": body.threshold, "normalize": body.normalize,
                                "temperature": body.temperature}
        text, offset = body.located() if body.context is None else (None, 0)
        try:
            if text is None:
                return self.orchestrator.decisions.decide_request(choices, context=body.context, **opts), None
            return self.orchestrator.decisions.decide_request(choices, text=text, offset=offset, **opts), text
        except DecisionError as exc:
            raise HTTPException(422, detail=str(exc)) from None

    async def decide(self, body: m.DecideRequest, request: Request) -> m.DecideResponse:
        t0 = time.perf_counter()
        req, text = self._decide_request(body)
        slot, caller, admission_ms = await self.admitted(request)
        try:
            if body.session is not None and text is not None:
                req.doc_id = self.sessions.open(body.session, text, body.language, body.filename).doc_id
            answer, st = await self.orchestrator.decisions.decide(req, caller)
        except (NotReady, Superseded) as exc:
            raise self._refused(exc) from None
        finally:
            slot.close()
        return m.DecideResponse(**answer, stats=st.to_dict(), admission_ms=admission_ms,  # camelCase aliases
                                http_ms=(time.perf_counter() - t0) * 1000)

    async def structured(self, body: m.StructuredRequest, request: Request) -> m.StructuredResponse:
        t0 = time.perf_counter()
        slot, caller, admission_ms = await self.admitted(request)
        try:
            answer, st = await self.orchestrator.decisions.structured(body.prompt, body.json_schema, body.max_tokens,
                                                                       caller)
        except structured.SchemaError as exc:
            raise HTTPException(422, detail=str(exc)) from None
        except (NotReady, Superseded) as exc:
            raise self._refused(exc) from None
        finally:
            slot.close()
        return m.StructuredResponse(**answer, stats=st.to_dict(), admission_ms=admission_ms,
                                    http_ms=(time.perf_counter() - t0) * 1000)

    @staticmethod
    def _refused(exc: NotReady | Superseded) -> HTTPException:
        if isinstance(exc, NotReady):
            return no_model(str(exc), exc.loading)
        return HTTPException(409, detail="superseded by a newer request for the same session")

    # -- stats and health --------------------------------------------------------------------------------
    async def stats(self, recent: int, reset: bool) -> dict[str, Any]:
        out = await self.orchestrator.report(recent, reset)
        a = self.admission
        out["http"] = m.QueueInfo(max_in_flight=a.max_in_flight, max_queue=a.max_queue, in_flight=a.in_flight,
                                  waiting=a.waiting, rejected=a.rejected, disconnected=a.disconnected,
                                  sessions=len(self.sessions)).model_dump(by_alias=True)
        return out

    def health(self) -> tuple[int, m.Health]:
        engine = self.orchestrator.engine
        info = engine.model_info()
        if info is not None:
            return 200, m.Health(status="ok", model=info.name)
        if engine.load_error:
            return 503, m.Health(status="error", error=engine.load_error)
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


def create_app(orchestrator: Orchestrator, settings: Settings, options: HttpOptions | None = None) -> FastAPI:
    """The HTTP API on `orchestrator` (its model loaded, or loading: see Orchestrator.loading)."""
    options = options or HttpOptions()
    front = Front(orchestrator, settings, options)
    app = FastAPI(title="laya-lsp", version=__version__,
                  description="Completions, decisions and schema-constrained JSON from a local MLX model "
                  "(the engine behind the laya language server). See docs/http.md.")
    app.add_middleware(BodyLimit, max_bytes=options.max_body_bytes)
    app.state.front = front
    deps = [Depends(BearerToken(options.token))] if options.token else []
    v1 = APIRouter(prefix="/v1", dependencies=deps, responses=ERRORS)

    @v1.post("/complete", response_model=m.CompleteResponse)
    async def complete(body: m.CompleteRequest, request: Request) -> m.CompleteResponse:
        """Cleaned completion candidates at a cursor, with the request's stats record."""
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

    _answer_errors(app)
    return app


def _answer_errors(app: FastAPI) -> None:
    """How each failure is answered: a status and a message, never a traceback (logged on stderr)."""

    @app.exception_handler(QueueFull)
    async def queue_full(_request: Request, exc: QueueFull) -> JSONResponse:
        return JSONResponse({"detail": str(exc)}, status_code=429, headers={"Retry-After": str(exc.retry_after)})

    @app.exception_handler(ClientGone)
    async def client_gone(_request: Request, _exc: ClientGone) -> Response:
        return Response(status_code=CLIENT_CLOSED)

    @app.exception_handler(ModelFailed)
    async def model_failed(_request: Request, exc: ModelFailed) -> JSONResponse:
        return JSONResponse({"detail": str(exc)}, status_code=500)  # logged with its cause by the orchestrator

    @app.exception_handler(Exception)
    async def internal(request: Request, exc: Exception) -> JSONResponse:
        # Uvicorn logs the traceback on stderr; the client gets no trace of the server's insides.
        log.error("%s %s failed", request.method, request.url.path, exc_info=exc)
        return JSONResponse({"detail": "internal error; the server's log has the details"}, status_code=500)

    @app.exception_handler(RequestValidationError)
    async def bad_body(_request: Request, exc: RequestValidationError) -> JSONResponse:
        errors = [_error(e) for e in exc.errors()]
        code = 400 if any(e["type"] == "json_invalid" for e in errors) else 422
        return JSONResponse({"detail": errors}, status_code=code)

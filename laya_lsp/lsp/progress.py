"""How an editor's request waits for the model: as long as the load (and, on a GPU, its kernel compiles) takes,
ended by the client's `$/cancelRequest`, never answered empty after a bound; shown as `$/progress`.

The load itself is reported from `initialized` on a token the server creates (`window/workDoneProgress/create`,
`LayaServer.report_load`) where the client supports it; a request that carries its own `workDoneToken` also gets
its wait reported there: begin ("waiting for the model", with the load's latest step), every load step, end.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from typing import TYPE_CHECKING, Any

from lsprotocol import types as lsp

from ..orchestrator import Caller

if TYPE_CHECKING:
    from .language_server import LayaServer

WAITING_TITLE = "laya: waiting for the model"


def request_caller(ls: LayaServer, token: lsp.ProgressToken | None = None) -> Caller:
    """The waiting rules of an editor's request (`token`: the request's `workDoneToken`, if it sent one)."""
    if token is None:
        return Caller(until_loaded=True)
    return Caller(until_loaded=True, shown=lambda: waiting_shown(ls, token))


def token_of(params: Any) -> lsp.ProgressToken | None:
    """The `workDoneToken` of a custom request's raw params (a string or an integer), else None."""
    token = params.get("workDoneToken") if isinstance(params, dict) else getattr(params, "workDoneToken", None)
    return token if isinstance(token, (str, int)) and not isinstance(token, bool) else None


@contextlib.asynccontextmanager
async def waiting_shown(ls: LayaServer, token: lsp.ProgressToken) -> AsyncIterator[None]:
    """Report a request's wait for the loading model on the client's `token`, from begin to end."""
    progress = ls.work_done_progress
    latest = ls.loading.progress.latest
    progress.begin(token, lsp.WorkDoneProgressBegin(title=WAITING_TITLE, message=latest[0] if latest else None,
                                                    percentage=latest[1] if latest else 0, cancellable=False))
    loop = asyncio.get_running_loop()
    showing = True

    def report(message: str, pct: int) -> None:  # on the loop; steps that arrive after the end are dropped
        if showing:
            progress.report(token, lsp.WorkDoneProgressReport(message=message, percentage=pct))

    def step(message: str, pct: int) -> None:  # on the engine's worker
        with contextlib.suppress(RuntimeError):  # the loop closed meanwhile: nobody waits any more
            loop.call_soon_threadsafe(report, message, pct)

    stop = ls.loading.progress.listen(step)
    try:
        yield
    finally:
        stop()
        showing = False
        progress.end(token, lsp.WorkDoneProgressEnd(message="model ready" if ls.engine.model_info() else "no model"))
        progress.tokens.pop(token, None)  # (pygls files every token it sees and never forgets one)

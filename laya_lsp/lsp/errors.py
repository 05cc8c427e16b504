"""Errors a client receives say what it did wrong (or that the server failed), never the server's insides.

pygls answers a handler that raises anything but its own JsonRpcException with an InternalError whose message
is the exception's text and whose `data` is the Python traceback (file paths included), and reports failed
notifications to the user with the exception's text. Its public way out is to raise JsonRpcException types
(their code, message and data are sent as given) and to override `report_server_error`: `guarded` wraps every
handler the server registers so that an unexpected exception is logged on stderr in full and answered with a
fixed message; a failure of the model's work (ModelFailed) is answered RequestFailed.
"""

from __future__ import annotations

import asyncio
import functools
import logging
from collections.abc import Callable
from typing import Any

from lsprotocol import types as lsp
from pygls.exceptions import JsonRpcException, JsonRpcInternalError, JsonRpcInvalidParams

from ..orchestrator import ModelFailed

log = logging.getLogger(__name__)

INTERNAL_MESSAGE = "laya: internal error while handling {what}; the server's log (stderr) has the details"


def invalid(message: str) -> JsonRpcInvalidParams:
    """InvalidParams with our message (pygls' default one says nothing)."""
    exc = JsonRpcInvalidParams()
    exc.message = message
    return exc


def request_failed(message: str) -> JsonRpcException:
    """LSP's RequestFailed: the request was valid, the server could not do it."""
    return JsonRpcException(message=message, code=lsp.LSPErrorCodes.RequestFailed)


def internal(what: str) -> JsonRpcInternalError:
    """InternalError without a traceback, an exception's text or a path."""
    return JsonRpcInternalError(message=INTERNAL_MESSAGE.format(what=what))


def answer_for(exc: Exception, what: str) -> JsonRpcException:
    """The error a client receives for `exc` raised by the handler of `what` (logged here when unexpected)."""
    if isinstance(exc, JsonRpcException):
        return exc
    if isinstance(exc, ModelFailed):
        return request_failed(f"{what}: {exc}")
    log.error("%s failed", what, exc_info=exc)
    return internal(what)


def guarded(what: str, handler: Callable[..., Any]) -> Callable[..., Any]:
    """`handler` (sync or async, as pygls calls it) whose unexpected exceptions become `answer_for`'s errors."""
    if asyncio.iscoroutinefunction(handler):

        @functools.wraps(handler)
        async def run_async(*args: Any, **kwargs: Any) -> Any:
            try:
                return await handler(*args, **kwargs)
            except Exception as exc:  # noqa: BLE001 - every failure is answered, none with the server's insides
                raise answer_for(exc, what) from None

        return run_async

    @functools.wraps(handler)
    def run(*args: Any, **kwargs: Any) -> Any:
        try:
            return handler(*args, **kwargs)
        except Exception as exc:  # noqa: BLE001 - as above
            raise answer_for(exc, what) from None

    return run

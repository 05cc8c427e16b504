"""The servers' own limits: their command-line options (not `laya` settings, which are config.py's), each written
once here. The LSP and HTTP fronts read them from here and `laya-lsp --help` shows them; imports nothing, so the
command line reads them before any heavy import.
"""

from __future__ import annotations

from dataclasses import dataclass

MAX_MESSAGE_BYTES = 64 * 2**20  # an LSP message's Content-Length limit (`serve --max-message-bytes`)


@dataclass
class HttpOptions:
    """`laya-lsp http`'s limits (its command-line options)."""

    max_in_flight: int = 4  # requests holding engine work (running or in the scheduler's queue)
    max_queue: int = 16  # requests waiting for one of those slots; beyond: 429
    max_body_bytes: int = 4 * 2**20
    max_sessions: int = 256
    token: str | None = None  # bearer token required on /v1/* when set

"""The engine's two tiers: the keystroke model (milliseconds a key) and the pause-tier model (hundreds at a pause).

Two providers of one engine (docs/architecture.md, "Two tiers, one engine"): each loaded once, each with its own
per-buffer KV caches under the one cache budget, both stepped by the one inference worker, the pause tier only
when no keystroke work waits (its jobs are background jobs: any real job cancels them, and a cancelled prefill
keeps what it computed).
"""

from __future__ import annotations

from ..text_enum import TextEnum


class Tier(TextEnum):
    """Which model of the engine answers a request."""

    KEYSTROKE = "keystroke"
    PAUSE = "pause"


class PauseState(TextEnum):
    """Where the pause tier stands (Engine.pause_state)."""

    NONE = "none"  # no pause-tier model asked for
    QUEUED = "queued"  # its load waits for an idle worker (or the first pause-tier job)
    LOADED = "loaded"
    FAILED = "failed"  # its load failed (Engine.pause_error says why)

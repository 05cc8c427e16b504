"""The latency tricks beside `CompletionFlow`, each a `LatencyStrategy` owning its per-document state.

In the order the flow asks them: the hand-off (a serving engine's answer for this very version), the pause tier (the
engine's larger model, asked where the keystroke answer is unsure, in the same response), typed-through (the
shown answer), speculation (the answer for the top line accepted), a shared running job, first line first (the block
after its first line), the wider run after a keystroke's blank answer, warm-up (prefill on open and focus). See
docs/architecture.md, "Where each latency trick lives".
"""

from .background import Background
from .base import Ask, LatencyStrategy, Opinion, Ticket, typed_along
from .first_line import FirstLineFirst
from .handoff import HandOff, unsure
from .pause_tier import PauseTier
from .shared_job import SharedJob
from .speculation import Speculation
from .typed_through import TypedThrough
from .warm_up import WarmUp
from .wider_later import WiderLater

__all__ = ["Ask", "Background", "FirstLineFirst", "HandOff", "LatencyStrategy", "Opinion", "PauseTier", "SharedJob",
           "Speculation", "Ticket", "TypedThrough", "WarmUp", "WiderLater", "typed_along", "unsure"]

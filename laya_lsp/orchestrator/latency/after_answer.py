"""What the strategies that finish a request's work after its answer share (first line first, the wider run
after the answer): the settings, the background runner, the typed-through store their results land in, and the
speculation that starts from what is shown."""

from __future__ import annotations

from collections.abc import Callable

from ...config import Settings
from .background import Background
from .base import LatencyStrategy
from .speculation import Speculation
from .typed_through import TypedThrough


class AfterAnswer(LatencyStrategy):
    """A latency strategy whose work goes on in the background after the answer; it keeps nothing per document."""

    def __init__(self, settings: Callable[[], Settings], background: Background, shown: TypedThrough,
                 speculation: Speculation) -> None:
        self.settings = settings
        self.background = background
        self.shown = shown
        self.speculation = speculation

"""Where the server's memory is, for soak runs and bug reports (`laya/stats` with {"memory": true}).

Each report gives MLX's own counters, glibc's malloc totals, the Python objects by type and, when the server
runs with PYTHONTRACEMALLOC set, the source lines whose allocations grew most since the first report. Compared
over a long run they tell a growing Python structure from MLX's buffer cache or from allocator fragmentation.
"""

from __future__ import annotations

import asyncio
import ctypes
import gc
import sys
import tracemalloc
from collections import Counter
from typing import Any

TOP = 12  # growth lines per section: enough to see the culprit, small enough to log every sample
TRIM_INTERVAL_S = 10.0  # freed buffers never pile up for long, and a trim costs ~1 ms


class _MallInfo2(ctypes.Structure):
    _fields_ = [(name, ctypes.c_size_t) for name in
                ("arena", "ordblks", "smblks", "hblks", "hblkhd", "usmblks", "fsmblks", "uordblks", "fordblks",
                 "keepcost")]


def _glibc(name: str) -> Any:
    """A function of the C library this process runs on, or None off Linux/glibc."""
    if not sys.platform.startswith("linux"):
        return None
    try:
        return getattr(ctypes.CDLL(None), name)
    except (OSError, AttributeError):
        return None


def _malloc_info() -> dict[str, int] | None:
    """glibc's heap totals: bytes in use, free inside the heap (fragmentation), mmapped; None off glibc."""
    fn = _glibc("mallinfo2")
    if fn is None:
        return None
    fn.restype = _MallInfo2
    m = fn()
    return {"heapBytes": m.arena, "inUseBytes": m.uordblks, "freeInHeapBytes": m.fordblks, "mmapBytes": m.hblkhd}


def release_free_heap() -> bool:
    """Hand the allocator's free pages back to the OS (glibc's malloc_trim); False where there is no such call.

    MLX's CPU buffers come from malloc, and a batched decode copies a document's KV cache once per branch: glibc
    keeps such freed pages in its heap, so without a trim RSS follows allocation luck (+/-50 MB), not use."""
    trim = _glibc("malloc_trim")
    if trim is None:
        return False
    trim(0)
    return True


async def release_free_heap_periodically(interval_s: float = TRIM_INTERVAL_S) -> None:
    """For a long-running server: trim the heap every `interval_s` (returns at once where trimming is unsupported)."""
    while release_free_heap():
        await asyncio.sleep(interval_s)


def _mlx_memory() -> dict[str, int] | None:
    if "mlx.core" not in sys.modules:  # not loaded yet: do not pay for the import here
        return None
    mx: Any = sys.modules["mlx.core"]
    return {"activeBytes": mx.get_active_memory(), "cacheBytes": mx.get_cache_memory(),
            "peakBytes": mx.get_peak_memory()}


class MemoryProbe:
    """Remembers the first report's object counts and allocation snapshot, so later reports show growth."""

    def __init__(self) -> None:
        self._types: Counter[str] | None = None
        self._snapshot: tracemalloc.Snapshot | None = None

    def report(self, sizes: dict[str, int]) -> dict[str, Any]:
        """Memory now, with `sizes` (the caller's own structures: open documents, stats kept, …) passed through."""
        gc.collect()
        types = Counter(type(o).__name__ for o in gc.get_objects())
        self._types = self._types if self._types is not None else types
        grown = {k: n - self._types.get(k, 0) for k, n in types.items()}
        out: dict[str, Any] = {
            "sizes": sizes,
            "mlx": _mlx_memory(),
            "malloc": _malloc_info(),
            "pythonObjects": sum(types.values()),
            "objectGrowth": dict(sorted(((k, v) for k, v in grown.items() if v), key=lambda kv: -abs(kv[1]))[:TOP]),
            "traced": None,
        }
        if tracemalloc.is_tracing():
            snap = tracemalloc.take_snapshot().filter_traces([tracemalloc.Filter(False, tracemalloc.__file__)])
            self._snapshot = self._snapshot or snap
            current, peak = tracemalloc.get_traced_memory()
            out["traced"] = {
                "currentBytes": current, "peakBytes": peak,
                "growth": [f"{d.traceback[0].filename}:{d.traceback[0].lineno} {d.size_diff:+d} B {d.count_diff:+d}"
                           for d in snap.compare_to(self._snapshot, "lineno")[:TOP] if d.size_diff],
            }
        return out

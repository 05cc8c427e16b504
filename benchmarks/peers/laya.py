"""laya-lsp as measured: the typing replay through the real server over stdio, and its engine alone in-process.

`lsp_replay` is `laya_lsp.replay.replay` plus what a benchmark needs besides latencies: the server's pid (for
RSS and py-spy) and the per-request records of `laya/stats` (prompt hashes, prefill/decode split).
`engine_direct` answers a `PromptSet` through the `Engine` facade (each prompt's token ids as they are), one
request at a time, exactly as the peers are driven: the engine's cost without LSP, debounce or typed-through
tricks (the scheduler's hand-over to its worker thread is included).
"""

from __future__ import annotations

import asyncio
import statistics
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from laya_lsp.replay import Buffer, Keystroke, Replay, ReplayClient

from .prompts import PromptSet, typing_order


def pid_of(rc: ReplayClient) -> int | None:
    server = getattr(rc.client, "_server", None)
    return getattr(server, "pid", None)


@dataclass
class LspRun:
    replay: Replay
    records: list[dict[str, Any]] = field(default_factory=list)
    pid: int | None = None
    opened_ms: float = 0.0  # process start → buffers opened (right after initialize)
    key_times_s: list[float] = field(default_factory=list)  # each keystroke's time since the buffers opened


async def lsp_replay(buffers: list[Buffer], command: list[str], settings: dict[str, Any], kind: str,
                     switch_every: int = 5, interval_ms: float = 100.0, recent: int = 256,
                     on_ready: Callable[[int | None], None] | None = None) -> LspRun:
    """Type every buffer's span (one `kind` request per keystroke, at `interval_ms` pace; 0 = wait for each)."""
    rc = ReplayClient(command, settings)
    out = Replay()
    t0 = time.perf_counter()
    await rc.start()
    for buf in buffers:
        rc.open(buf)
    t_open = time.perf_counter()
    opened_ms = (t_open - t0) * 1000
    key_times: list[float] = []
    await rc.ask(buffers[0], kind)  # first answer: includes model load and warm-up
    out.start_ms = round((time.perf_counter() - t0) * 1000, 1)
    pid = pid_of(rc)
    if on_ready:
        on_ready(pid)
    await rc.stats(reset=True)
    pending: list[asyncio.Future] = []

    async def one(buf: Buffer, ch: str) -> None:
        texts, ms = await rc.ask(buf, kind)
        out.keystrokes.append(Keystroke(buf.uri, ch, kind, ms, texts, "ok" if texts else "empty"))

    for buf, i in typing_order(buffers, switch_every):
        ch = buf.to_type[i]
        key_times.append(time.perf_counter() - t_open)
        rc.type_char(buf, ch)
        if interval_ms > 0:
            pending.append(asyncio.ensure_future(one(buf, ch)))
            await asyncio.sleep(interval_ms / 1000)
        else:
            await one(buf, ch)
    if pending:
        await asyncio.gather(*pending)
    stats = await rc.stats(recent=recent)
    out.stats = stats
    await rc.stop()
    return LspRun(out, list(stats.get("recent") or []), pid, opened_ms, key_times)


def latency_summary(ms: list[float]) -> dict[str, float]:
    if not ms:
        return {"n": 0}
    s = sorted(ms)
    return {"n": len(s), "p50_ms": round(statistics.median(s), 2),
            "p95_ms": round(s[min(len(s) - 1, int(0.95 * len(s)))], 2), "max_ms": round(s[-1], 2),
            "mean_ms": round(statistics.fmean(s), 2)}


def engine_direct(lm: Any, ps: PromptSet, k: int = 1, prefill_chunk: int = 128, limit: int = 0,
                  draft_tokens: int | None = None) -> dict[str, Any]:
    """Per-prompt time of laya's engine (cache reuse per document, folded prompt tail, k shared-prefix branches,
    drafts verified in the step unless `draft_tokens` is 0), with what the drafts did."""
    from laya_lsp.engine import CompletionRequest, Engine, EngineSettings

    settings = EngineSettings(candidates=k, prefill_chunk=prefill_chunk, debounce_ms=0, cache_budget_mb=4096)
    if draft_tokens is not None:
        settings.draft_tokens = draft_tokens
    engine = Engine(settings)
    engine.load(lm.path)
    times, prefill, decode, tokens, reused, total = [], [], [], 0, 0, 0
    steps = drafted = accepted = 0
    by_source: dict[str, list[int]] = {}
    prompts = ps.prompts[:limit] if limit else ps.prompts
    try:
        for p in prompts:
            req = CompletionRequest(p.doc, "", 0, candidates=k, max_tokens=p.max_tokens, max_lines=p.max_lines,
                                    debounce=False, prompt_ids=p.ids)
            t0 = time.perf_counter()
            result = engine.complete(req).future.result()  # candidates are detokenised by then
            st = result.timings
            times.append((time.perf_counter() - t0) * 1000)
            prefill.append(st.prefill_ms)
            decode.append(st.decode_ms)
            tokens += st.decode_tokens
            reused += st.reused_tokens
            total += st.prompt_tokens
            steps, drafted, accepted = steps + st.decode_steps, drafted + st.draft_tokens, accepted + st.accepted_tokens
            for source, (d, a) in result.extra.get("drafts", {}).items():
                row = by_source.setdefault(source, [0, 0])
                row[0], row[1] = row[0] + d, row[1] + a
    finally:
        engine.shutdown()
    return {"k": k, **latency_summary(times), "prefill_p50_ms": round(statistics.median(prefill), 2) if prefill else 0,
            "decode_p50_ms": round(statistics.median(decode), 2) if decode else 0,
            "decode_ms_per_token": round(sum(decode) / max(tokens, 1), 3),
            "draft_tokens": settings.draft_tokens, "decode_steps": steps, "drafted": drafted, "accepted": accepted,
            "acceptance": round(accepted / drafted, 3) if drafted else None,
            # k = 1: tokens written per forward pass (the prompt's step writes the first and may verify more)
            "tokens_per_forward": round(tokens / max(steps + len(times), 1), 3) if k == 1 else None,
            "drafts_by_source": {s: {"drafted": d, "accepted": a} for s, (d, a) in sorted(by_source.items())},
            "reuse_ratio": round(reused / max(total, 1), 4), "latencies_ms": [round(x, 2) for x in times]}


# -- reading a py-spy profile of the server ------------------------------------------------------------------
def _frame_name(frame: str) -> str:
    """'fn (path/to/file.py:123)' → 'fn (file.py)'; native frames as they are."""
    if "(" in frame and frame.endswith(")"):
        fn, loc = frame[:-1].split(" (", 1)
        return f"{fn} ({loc.rsplit('/', 1)[-1].split(':')[0]})"
    return frame


_IDLE_MARKS = ("select_epoll", "EpollSelector.select", "os_read", "SimpleQueue_get", "Condition.wait", "Event.wait",
               "epoll_wait", "Queue.get", "Semaphore.acquire")


def is_idle(frames: list[str]) -> bool:
    """A sample of a thread waiting for work (not for MLX compute, which counts as busy)."""
    tail = " ".join(frames[-8:])
    return "mlx::core" not in tail and any(m in tail for m in _IDLE_MARKS)


def summarise_folded(text: str) -> dict[str, Any]:
    """Busy samples only: share per thread, per deepest laya_lsp function (with what it calls), per leaf."""
    per_thread: dict[str, int] = {}
    by_laya: dict[str, int] = {}
    self_t: dict[str, int] = {}
    incl: dict[str, int] = {}
    busy = idle = 0
    for line in text.splitlines():
        stack, _, n = line.rpartition(" ")
        if not stack or not n.isdigit():
            continue
        count = int(n)
        frames = stack.split(";")
        thread = frames[0].split(": ", 1)[-1] if frames[0].startswith("thread") else "?"
        frames = [f for f in frames if not f.startswith(("thread", "process"))]
        if is_idle(frames):
            idle += count
            continue
        busy += count
        per_thread[thread] = per_thread.get(thread, 0) + count
        ours = [f for f in frames if "laya_lsp/" in f]
        key = f"{thread}: {ours[-1].replace('laya_lsp/', '') if ours else '(outside laya_lsp)'}"
        if any("mlx::core" in f for f in frames[frames.index(ours[-1]) if ours else 0:]):
            key += " → MLX"
        by_laya[key] = by_laya.get(key, 0) + count
        if frames:
            leaf = _frame_name(frames[-1])
            self_t[leaf] = self_t.get(leaf, 0) + count
        for f in {_frame_name(f) for f in frames}:
            incl[f] = incl.get(f, 0) + count

    def top(d: dict[str, int], n: int = 25) -> list[tuple[str, float]]:
        return [(k, round(v / max(busy, 1), 4)) for k, v in sorted(d.items(), key=lambda x: -x[1])[:n]]

    return {"samples": busy + idle, "busy_samples": busy,
            "threads": {k: round(v / max(busy, 1), 3) for k, v in sorted(per_thread.items(), key=lambda x: -x[1])[:6]},
            "by_laya_function": top(by_laya, 30), "top_self": top(self_t), "top_inclusive": top(incl)}


def format_profile(s: dict[str, Any], top: int = 25) -> str:
    lines = [f"py-spy samples: {s['samples']} ({s['busy_samples']} busy; threads waiting for work left out)",
             f"busy share by thread: {s['threads']}", "",
             "by deepest laya_lsp function (→ MLX: the thread waits in mlx::core::eval for MLX's compute thread):"]
    lines += [f"  {share:6.1%}  {name}" for name, share in s["by_laya_function"][:top]]
    lines += ["", "top self time (leaf frames):"]
    lines += [f"  {share:6.1%}  {name}" for name, share in s["top_self"][:top]]
    lines += ["", "top inclusive time:"]
    lines += [f"  {share:6.1%}  {name}" for name, share in s["top_inclusive"][:top]]
    return "\n".join(lines) + "\n"


def render_flamegraph(folded: Path, svg: Path) -> None:
    from benchmarks.plots import flamegraph_svg

    flamegraph_svg(folded.read_text(), svg)

"""Soak: replay typing over several documents through the real server (stdio only) for a long time, and report RSS
over time and latency drift.

    python -m benchmarks.soak [--minutes 30] [--model DIR] [--docs 4] [--interval-ms 110] [--sample-s 15]

Each document has a stretch of real source deleted and re-typed one keystroke at a time (didChange + a completion
or inline request per keystroke, the previous request cancelled if still pending, like an editor); buffers switch
every few lines, and now and then one is closed and reopened. Text never grows, so memory should not either.
The first --warmup share of the run is warm-up; the samples after it are cut into --windows windows, and RSS
growth (target <= 5 %) and the drift of the p50/p95 keystroke latency (target <= 10 % for p50) are the medians of
the last window against the first (every window's RSS median is kept, so a trend shows); they are saved as JSON
under benchmarks/results/, with the requests that ended in an engine error counted by cause (the server's
`laya/stats` `by_error`) and the server's logged error lines. Each sample also keeps the server's memory report
(`laya/stats` with "memory": MLX active/cache, malloc, Python objects by type; with --trace-malloc, the source
lines whose allocations grew), so a growth can be attributed (the same windows' medians of MLX, malloc, Python
objects and KV caches). The run passes with RSS growth and p50 drift within their targets, no protocol errors and
no engine errors. `--analyse FILE` gives the verdict on a saved run's samples without running. Without --model
(and without an embedded model) the tests' tiny random model is used.
"""

from __future__ import annotations

import argparse
import asyncio
import functools
import random
import statistics
import sys
import sysconfig
import time
from pathlib import Path
from typing import Any

import psutil

from benchmarks.common import save
from tests.lspclient import REQUEST_CANCELLED, LspClient, position_at

ROOT = Path(__file__).resolve().parent.parent

STDLIB = Path(sysconfig.get_paths()["stdlib"])
SOURCES = [STDLIB / "textwrap.py", STDLIB / "json" / "decoder.py", STDLIB / "string.py", STDLIB / "shlex.py",
           ROOT / "examples" / "inventory.py", STDLIB / "colorsys.py"]


MAX_LOGGED = 40  # server error lines kept in the result


def default_model() -> Path:
    embedded = ROOT / "laya_lsp" / "models" / "default"
    if (embedded / "config.json").exists():
        return embedded
    from tests.conftest import TINY_MODEL  # builds the tests' tiny random model once (no download)

    return TINY_MODEL


class Typist:
    """One document: deletes a stretch of lines and re-types it, a keystroke at a time."""

    def __init__(self, path: Path, index: int, rng: random.Random) -> None:
        self.uri = f"file:///soak/{index}/{path.name}"
        self.original = path.read_text(encoding="utf-8")
        self.rng = rng
        self.text = self.original
        self.version = 1
        self.cursor = 0
        self.to_type = ""

    def next_stretch(self) -> dict:
        """Delete 1-3 lines somewhere in the file; returns the didChange content change."""
        self.text = self.original  # back to the original before each stretch: the document never grows
        lines = self.text.splitlines(keepends=True)
        for _ in range(100):  # blank lines leave nothing to type: pick again
            i = self.rng.randrange(5, max(6, len(lines) - 5))
            n = self.rng.randint(1, 3)
            start = sum(len(x) for x in lines[:i])
            # Keep the indentation: type from the first non-blank character.
            start += len(lines[i]) - len(lines[i].lstrip(" \t"))
            end = sum(len(x) for x in lines[: i + n]) - 1
            if self.text[start:end].strip():
                break
        else:
            raise ValueError(f"{self.uri}: no line with text to re-type")
        self.to_type = self.text[start:end]
        change = {"range": {"start": position_at(self.text, start), "end": position_at(self.text, end)}, "text": ""}
        self.text = self.text[:start] + self.text[end:]
        self.cursor = start
        return change

    def keystroke(self) -> dict:
        ch, self.to_type = self.to_type[0], self.to_type[1:]
        pos = position_at(self.text, self.cursor)
        self.text = self.text[: self.cursor] + ch + self.text[self.cursor:]
        self.cursor += 1
        return {"range": {"start": pos, "end": pos}, "text": ch}


def mb(n: int) -> str:
    return f"{n / 2**20:.1f}"


def memory_line(mem: dict[str, Any]) -> str:
    """The server's memory report in one line: MLX active/cache, malloc in use/free, Python objects."""
    mlx, heap = mem.get("mlx") or {}, mem.get("malloc") or {}
    line = (f"mlx {mb(mlx.get('activeBytes', 0))}+{mb(mlx.get('cacheBytes', 0))} MB  malloc "
            f"{mb(heap.get('inUseBytes', 0))} used {mb(heap.get('freeInHeapBytes', 0))} free MB  "
            f"py {mem['pythonObjects']} objs")
    if mem.get("traced"):
        line += f"  traced {mb(mem['traced']['currentBytes'])} MB"
    return line


def pct(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    s = sorted(values)
    return s[min(len(s) - 1, round(q / 100 * (len(s) - 1)))]


async def soak(args: argparse.Namespace) -> dict[str, Any]:
    rng = random.Random(args.seed)
    cmd = [sys.executable, "-m", "laya_lsp", "--model", str(args.model)]
    env = {"PYTHONTRACEMALLOC": "1"} if args.trace_malloc else None
    c = await LspClient.spawn(cmd, default_timeout=60, env=env)
    await c.initialize()
    assert c.proc is not None
    proc = psutil.Process(c.proc.pid)
    typists = [Typist(p, i, rng) for i, p in enumerate([s for s in SOURCES if s.exists()][: args.docs])]
    for t in typists:
        await c.did_open(t.uri, t.text)
    t_start = time.perf_counter()
    deadline = t_start + args.minutes * 60
    samples: list[dict] = []
    window: list[float] = []
    counts = {"keystrokes": 0, "requests": 0, "answered": 0, "cancelled": 0, "with_items": 0, "reopens": 0,
              "errors": 0}
    pending: tuple[int, asyncio.Future, float] | None = None
    next_sample = t_start
    current = typists[0]
    lines_typed = 0

    def collect(rid: int, t0: float, fut: asyncio.Future) -> None:
        resp = fut.result()
        if "error" in resp:
            counts["cancelled" if resp["error"]["code"] == REQUEST_CANCELLED else "errors"] += 1
            return
        counts["answered"] += 1
        res = resp.get("result") or {}
        counts["with_items"] += bool(res.get("items"))
        window.append((time.perf_counter() - t0) * 1000)

    while time.perf_counter() < deadline:
        now = time.perf_counter()
        if now >= next_sample:
            stats = await c.call("laya/stats", {"recent": 0, "memory": True})
            mem = stats["memory"]
            samples.append({"t_s": round(now - t_start, 1), "rss_mb": round(proc.memory_info().rss / 2**20, 2),
                            "p50_ms": round(pct(window, 50), 1), "p95_ms": round(pct(window, 95), 1),
                            "n": len(window), "cache_mb": round(stats["cacheBytesTotal"] / 2**20, 2),
                            "engine_p50_ms": round(stats["summary"]["p50_total_ms"], 1), "memory": mem})
            print(f"{samples[-1]['t_s']:8.1f}s  rss {samples[-1]['rss_mb']:8.1f} MB  "
                  f"p50 {samples[-1]['p50_ms']:7.1f}  p95 {samples[-1]['p95_ms']:7.1f} ms  n {len(window):4d}  "
                  f"cache {samples[-1]['cache_mb']:.1f} MB  {memory_line(mem)}", flush=True)
            window = []
            next_sample = now + args.sample_s
            c._responses.clear()  # bounded client memory over a long run
            c.notifications.clear()
        if not current.to_type:
            lines_typed += 1
            if lines_typed % 3 == 0:
                current = rng.choice(typists)
            if rng.random() < 0.05:  # close and reopen: caches and syntax trees must be freed
                await c.did_close(current.uri)
                current.text, current.version = current.original, 1
                await c.did_open(current.uri, current.text)
                counts["reopens"] += 1
            current.version += 1
            await c.did_change(current.uri, current.version, [current.next_stretch()])
        current.version += 1
        await c.did_change(current.uri, current.version, [current.keystroke()])
        counts["keystrokes"] += 1
        if pending is not None and not pending[1].done():
            await c.cancel(pending[0])  # an editor cancels the request the new keystroke made stale
        if pending is not None:
            old_rid, old_fut, old_t0 = pending
            old_fut.add_done_callback(functools.partial(collect, old_rid, old_t0))
        method = "textDocument/inlineCompletion" if rng.random() < 0.3 else "textDocument/completion"
        params: dict[str, Any] = {"textDocument": {"uri": current.uri}, "position": position_at(current.text,
                                                                                              current.cursor)}
        if method.endswith("inlineCompletion"):
            params["context"] = {"triggerKind": 2}
        rid, fut = await c.send_request(method, params)
        counts["requests"] += 1
        pending = (rid, fut, time.perf_counter())
        c.log.clear()  # bounded client memory over a long run
        await asyncio.sleep(max(0.0, rng.gauss(args.interval_ms, args.interval_ms / 3)) / 1000)
    if pending is not None:
        await c.wait_response(pending[1], 60)
        collect(pending[0], pending[2], pending[1])
    final = await c.call("laya/stats", {"recent": 0, "memory": True})
    code = await c.shutdown_and_exit()
    await c.close()
    # The server's logged faults (tracebacks and error lines), so an engine error comes with its cause.
    server_errors = [line for line in c.stderr.splitlines() if " ERROR " in line or "Error" in line][:MAX_LOGGED]
    return {
        "server_errors": server_errors,
        "samples": samples,
        "counts": counts,
        "exit_code": code,
        "final_stats": final["summary"],
        "final_memory": final["memory"],
    }


def windows_of(samples: list[dict], n: int) -> list[list[dict]]:
    """`samples` cut into `n` consecutive windows of (nearly) equal count."""
    n = max(1, min(n, len(samples)))
    size, extra = divmod(len(samples), n)
    out, at = [], 0
    for i in range(n):
        k = size + (1 if i < extra else 0)
        out.append(samples[at: at + k])
        at += k
    return out


def _memory_mb(sample: dict) -> dict[str, float]:
    """The server's own view of one sample: MLX active/cache and malloc in use (MB), Python objects."""
    mem = sample.get("memory") or {}
    mlx, heap = mem.get("mlx") or {}, mem.get("malloc") or {}
    return {"mlx_active_mb": mlx.get("activeBytes", 0) / 2**20, "mlx_cache_mb": mlx.get("cacheBytes", 0) / 2**20,
            "malloc_in_use_mb": heap.get("inUseBytes", 0) / 2**20,
            "malloc_free_in_heap_mb": heap.get("freeInHeapBytes", 0) / 2**20,
            "python_objects": mem.get("pythonObjects", 0), "kv_cache_mb": sample.get("cache_mb", 0.0)}


def _median(ws: list[dict], key: str) -> float:
    return float(statistics.median(s[key] for s in ws))


def analyse(samples: list[dict], warmup: float, n_windows: int = 5) -> dict[str, Any]:
    """RSS growth and latency drift on windowed medians: the post-warm-up samples cut into `n_windows` windows,
    the median of the first against the median of the last (one sample is noise: RSS swings by +-10 MB from one
    sample to the next as caches fill and are trimmed). Every window's median is kept, so a trend shows."""
    total = samples[-1]["t_s"] if samples else 0
    post = [s for s in samples if s["t_s"] >= warmup * total]
    if len(post) < 2 * n_windows:
        return {"note": f"too few samples after warm-up ({len(post)}) for {n_windows} windows"}
    ws = windows_of(post, n_windows)
    first, last = ws[0], ws[-1]
    base, end = _median(first, "rss_mb"), _median(last, "rss_mb")
    mem_first = {k: statistics.median(_memory_mb(s)[k] for s in first) for k in _memory_mb(post[0])}
    mem_last = {k: statistics.median(_memory_mb(s)[k] for s in last) for k in _memory_mb(post[0])}
    out: dict[str, Any] = {
        "method": f"windowed medians: {n_windows} windows of ~{len(first)} samples after a {warmup:.0%} warm-up",
        "warmup_share": warmup,
        "rss_window_medians_mb": [round(_median(w, "rss_mb"), 1) for w in ws],
        "rss_after_warmup_mb": round(base, 1),
        "rss_end_mb": round(end, 1),
        "rss_max_mb": round(max(s["rss_mb"] for s in post), 1),
        "rss_growth_pct": round(100 * (end - base) / base, 2),
        # Where a growth would be: the same windows' medians through the server's memory report.
        "server_memory_growth": {k: round(mem_last[k] - mem_first[k], 2) for k in mem_first},
    }
    # A sample in which no keystroke was answered (a busy machine) has no percentiles: drift uses the others.
    answered = [s for s in post if s["n"] > 0]
    if len(answered) < 2 * n_windows:
        return {**out, "latency_note": "too few samples with answered keystrokes after warm-up"}
    lw = windows_of(answered, n_windows)
    for q in ("p50", "p95"):
        a, b = _median(lw[0], f"{q}_ms"), _median(lw[-1], f"{q}_ms")
        out.update({f"{q}_first_ms": a, f"{q}_last_ms": b, f"{q}_drift_pct": round(100 * (b - a) / max(a, 1e-9), 1)})
    return out


def verdict(result: dict[str, Any], counts: dict[str, int], final_stats: dict[str, Any],
            args: argparse.Namespace) -> dict[str, Any]:
    """The run passes with RSS growth and p50 latency drift (windowed medians) within their targets, no protocol
    errors and no engine errors."""
    result["engine_errors"] = final_stats["by_status"].get("error", 0)
    result["engine_error_causes"] = final_stats.get("by_error", {})
    result["targets"] = {"rss_growth_pct": args.target_growth_pct, "p50_drift_pct": args.target_drift_pct}
    result["ok"] = bool(result.get("rss_growth_pct", 1e9) <= args.target_growth_pct
                        and abs(result.get("p50_drift_pct", 1e9)) <= args.target_drift_pct
                        and counts["errors"] == 0 and result["engine_errors"] == 0)
    return result


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--minutes", type=float, default=30.0, help="duration (default 30)")
    p.add_argument("--model", type=Path, help="model directory (default: embedded model, else the tests' tiny one)")
    p.add_argument("--docs", type=int, default=4, help="documents typed into (default 4)")
    p.add_argument("--interval-ms", type=float, default=110.0, help="mean time between keystrokes (default 110)")
    p.add_argument("--sample-s", type=float, default=15.0, help="seconds between RSS/latency samples (default 15)")
    p.add_argument("--warmup", type=float, default=0.2, help="share of the run that is warm-up (default 0.2)")
    p.add_argument("--windows", type=int, default=5, help="post-warm-up windows for the medians (default 5)")
    p.add_argument("--seed", type=int, default=7)
    p.add_argument("--target-growth-pct", type=float, default=5.0)
    p.add_argument("--target-drift-pct", type=float, default=10.0, help="p50 latency drift target (default 10)")
    p.add_argument("--trace-malloc", action="store_true",
                   help="run the server under tracemalloc: each sample lists the source lines whose allocations grew "
                        "(slows the server; for finding a leak, not for the reported numbers)")
    p.add_argument("--analyse", type=Path, metavar="RESULT_JSON",
                   help="no run: give the verdict (with the options above) on a saved soak result's samples")
    p.add_argument("--name", default="soak", help="results file name after the date (default soak)")
    args = p.parse_args()
    if args.analyse is not None:
        from benchmarks.common import load_result

        out = load_result(args.analyse)
    else:
        args.model = args.model or default_model()
        print(f"soak: {args.minutes} min, {args.docs} documents, model {args.model}", flush=True)
        out = asyncio.run(soak(args))
    result = verdict(analyse(out["samples"], args.warmup, args.windows), out["counts"], out["final_stats"], args)
    print({**out["counts"], "exit_code": out["exit_code"]})
    print(result)
    keep = {k: v for k, v in out.items() if k not in ("args", "result", "date", "machine")}
    extra = {"analysed": str(args.analyse), "run_args": out.get("args"), "run_date": out.get("date"),
             "run_machine": out.get("machine")} if args.analyse else {}
    path = save(args.name, {"args": {k: str(v) for k, v in vars(args).items()}, "result": result, **extra, **keep})
    print("saved", path)
    return 0 if result["ok"] else 1


if __name__ == "__main__":
    raise SystemExit(main())

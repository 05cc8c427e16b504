"""Resident memory of the server (idle, then with 20 open documents that each got completions) and cold start.

    python -m benchmarks.memory [--model DIR] [--docs 20]
RSS is read with psutil from the server process. Cold start is process start → first completion response over
stdio, in a fresh server, split into: interpreter start (an empty `python -c pass`, same run), → initialize
answered, model load, warm-up, → first answer. The import profile comes from another fresh server serving the same
first completion under `python -X importtime` (so the timed run carries no profiling overhead).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import sysconfig
import time
from pathlib import Path
from typing import Any

from benchmarks.peers.laya import pid_of
from laya_lsp.replay import Buffer, ReplayClient, server_command

ROOT = Path(__file__).resolve().parent.parent
STDLIB = Path(sysconfig.get_paths()["stdlib"])
DOC_FILES = ["textwrap.py", "json/decoder.py", "json/encoder.py", "string.py", "bisect.py", "heapq.py",
             "colorsys.py", "shlex.py", "fnmatch.py", "glob.py", "copy.py", "functools.py", "base64.py",
             "calendar.py", "csv.py", "difflib.py", "fractions.py", "gettext.py", "hmac.py", "ipaddress.py",
             "locale.py", "netrc.py", "numbers.py", "operator.py", "pprint.py", "queue.py", "random.py"]


def rss_mb(pid: int) -> dict[str, float]:
    import psutil

    proc = psutil.Process(pid)
    out = {"rss_mb": round(proc.memory_info().rss / 2**20, 1)}
    try:  # the high-water mark, Linux only
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                out["peak_rss_mb"] = round(int(line.split()[1]) / 1024, 1)
    except OSError:
        pass
    return out


async def _wait_model(rc: ReplayClient, timeout_s: float = 120) -> dict[str, Any]:
    t = time.perf_counter()
    while time.perf_counter() - t < timeout_s:
        st = await rc.stats()
        if st.get("model") or st.get("loadError"):
            return st
        await asyncio.sleep(0.1)
    raise TimeoutError("model did not load")


async def memory_run(model: str | None, docs: int = 20, settings: dict[str, Any] | None = None) -> dict[str, Any]:
    """RSS after the model loaded with no document open, then after `docs` documents each got a completion."""
    rc = ReplayClient(server_command(model), settings or {})
    await rc.start()
    pid = pid_of(rc)
    assert pid is not None
    st = await _wait_model(rc)
    await asyncio.sleep(0.5)
    idle = rss_mb(pid)
    files = [STDLIB / f for f in DOC_FILES if (STDLIB / f).exists()][:docs]
    answered = 0
    t0 = time.perf_counter()
    for f in files:
        buf = Buffer.from_file(f, 12, line_hint=0.7)
        rc.open(buf)
        texts, _ms = await rc.ask(buf, "completion")
        answered += bool(texts)
    st = await rc.stats()
    loaded = rss_mb(pid)
    await rc.stop()
    return {"idle": idle, "with_docs": loaded, "docs": len(files), "answered": answered,
            "cache_mb_total": round(st.get("cacheBytesTotal", 0) / 2**20, 1),
            "cache_budget_mb": round(st.get("cacheBudgetBytes", 0) / 2**20, 1), "evictions": st.get("evictions"),
            "open_and_answer_s": round(time.perf_counter() - t0, 1)}


def interpreter_start_ms(reps: int = 5) -> float:
    """Median wall time of `python -c pass`: the floor under any cold start, on this machine now."""
    import statistics
    import subprocess

    times = []
    for _ in range(reps):
        t = time.perf_counter()
        subprocess.run([sys.executable, "-c", "pass"], check=True)
        times.append((time.perf_counter() - t) * 1000)
    return round(statistics.median(times), 1)


async def first_answer(command: list[str], settings: dict[str, Any] | None = None) -> dict[str, Any]:
    """Start the server with `command`, open a buffer, ask once: times from process start, and the server's stats."""
    buf = Buffer.from_file(ROOT / "examples" / "inventory.py", 8, line_hint=0.6)
    t0 = time.perf_counter()
    rc = ReplayClient(command, settings or {})
    await rc.start()
    t_init = time.perf_counter()
    rc.open(buf)
    texts, _ = await rc.ask(buf, "completion")
    t_first = time.perf_counter()
    tries = 0
    while not texts and tries < 20:
        texts, _ = await rc.ask(buf, "completion")
        tries += 1
    t_nonempty = time.perf_counter()
    st = await rc.stats()
    await rc.stop()
    model_info = st.get("model") or {}
    return {"to_initialized_ms": round((t_init - t0) * 1000, 1), "to_first_answer_ms": round((t_first - t0) * 1000, 1),
            "to_first_nonempty_ms": round((t_nonempty - t0) * 1000, 1) if texts else None,
            "load_ms": round(float(model_info.get("load_ms", 0)), 1),
            "warmup_ms": round(float(model_info.get("warmup_ms", 0)), 1),
            "code_cache": st.get("codeCache")}  # (generated code from an earlier start: code_cache.py)


def compile_package() -> None:
    """laya_lsp's .pyc files written, as `pip install` writes them: a start then reads bytecode as an installed
    server does, also where PYTHONDONTWRITEBYTECODE keeps imports from writing them (a checkout run that way
    compiles every module from source at each start: ~0.2 s of CPU here, docs/benchmarks.md "Every first answer,
    part 5")."""
    import subprocess

    subprocess.run([sys.executable, "-m", "compileall", "-q", str(ROOT / "laya_lsp")], check=False)  # (best effort)


async def cold_start(model: str | None, settings: dict[str, Any] | None = None) -> dict[str, Any]:
    """Process start → first completion response over stdio in a fresh server, with the interpreter's own start;
    the package's bytecode compiled first (`compile_package`)."""
    compile_package()
    out = {"python_start_ms": interpreter_start_ms()}
    out.update(await first_answer(server_command(model), settings))
    return out


def import_profile(model: str | None, top: int = 12) -> dict[str, Any]:
    """Every import of a fresh server up to its first answer (`-X importtime`, the model-loading thread included):
    total, the slowest by self time, and the heavy packages that must stay out (transformers, torch)."""
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        log_file = Path(tmp) / "importtime.log"
        # The server's stderr goes to a file: sh redirects it, then runs the server in its place.
        command = ["/bin/sh", "-c", 'exec "$@" 2>"$0"', str(log_file), sys.executable, "-X", "importtime",
                   *server_command(model)[1:]]
        asyncio.run(first_answer(command))
        lines = log_file.read_text(errors="replace").splitlines()
    rows, top_level = [], 0
    for line in lines:
        parts = line.split("|")
        if line.startswith("import time:") and len(parts) == 3 and parts[1].strip().isdigit():
            rows.append((int(parts[1]), int(parts[0].split(":")[1]), parts[2].strip()))
            top_level += int(parts[1]) if not parts[2].startswith("  ") else 0  # nested imports are indented
    slow = sorted(rows, key=lambda r: -r[1])[:top]
    heavy = sorted({name.split(".")[0] for _c, _s, name in rows if name.split(".")[0] in ("transformers", "torch")})
    return {"modules": len(rows), "total_ms": round(top_level / 1000, 1),
            "slowest_self_ms": [(name, round(self_us / 1000, 1)) for _c, self_us, name in slow],
            "heavy_packages_imported": heavy}


def run_memory(model: str | None, docs: int = 20, log: Any = print) -> dict[str, Any]:
    cold = asyncio.run(cold_start(model))
    imports = cold["imports"] = import_profile(model)
    log(f"cold start: process start -> first completion {cold['to_first_answer_ms']:.0f} ms (python itself "
        f"{cold['python_start_ms']:.0f} ms, -> initialize answered {cold['to_initialized_ms']:.0f} ms, model load "
        f"{cold['load_ms']:.0f} ms, warm-up {cold['warmup_ms']:.0f} ms)")
    log(f"imports up to the first answer: {imports['modules']} modules, {imports['total_ms']:.0f} ms; heavy packages: "
        f"{imports['heavy_packages_imported'] or 'none'}; most self time: {imports['slowest_self_ms'][:6]}")
    mem = asyncio.run(memory_run(model, docs))
    log(f"RSS idle {mem['idle']['rss_mb']} MB, with {mem['docs']} documents {mem['with_docs']['rss_mb']} MB "
        f"(KV caches {mem['cache_mb_total']} MB, peak {mem['with_docs'].get('peak_rss_mb')} MB)")
    return {"cold_start": cold, "memory": mem}


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--model", help="model directory (default: the embedded model)")
    p.add_argument("--docs", type=int, default=20)
    args = p.parse_args()
    print(json.dumps(run_memory(args.model, args.docs), indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

"""The first start, per model: `laya-lsp warm-up` the first time ever and again, and a fresh server's first answer
with the kernels cached and the first time ever (a request sent while the kernels compile waits, with $/progress).

    python -m benchmarks.first_start [--model DIR] [--kernels DIR] [--limit 300] [--steps ...] [--out FILE]

Steps, in this order, each in a fresh process; "ever" steps empty `--kernels` first, the folder of MLX's compiled
code for both devices (MLX_PTX_CACHE_DIR for CUDA's kernels; TMPDIR, under which MLX's CPU backend keeps what g++
builds):
  server_ever     a server (`device` "auto") started with nothing compiled: process start -> initialize
                  answered -> the answer to a completion sent at once (with a workDoneToken), whether it was empty,
                  the $/progress it was shown (begin / reports / end), the device that answered and whether with
                  compiled code; meanwhile the server's own warm-up compiles (first_compile.py): then also when it
                  moved to the GPU (CUDA) or ran compiled (CPU), and a completion's answer then;
  server_ever_gpu the same with `device` "gpu": the first request waits for the compile (with $/progress);
  warm_up_cached  `laya-lsp warm-up --json` on the kernels compiled so far;
  warm_up_ever    the same with an empty kernel cache (compiles everything; fills the cache again);
  server_cached   a fresh server on that filled cache: the same timings (the "kernels cached" first answer).
Part `first-start` of benchmarks/gpu.py runs it per model on the GPU; on a CPU it checks the plumbing.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from laya_lsp.device import installed_backend

ROOT = Path(__file__).resolve().parent.parent

TEXT = ("def mean(values):\n    total = 0\n    for v in values:\n        total += v\n    return total / len(values)"
        "\n\n\ndef median(values):\n    ordered = sorted(values)\n    middle = len(ordered) // 2\n    return ")
URI = "file:///first-start/stats.py"
STEPS = ["server_ever", "server_cached", "warm_up_cached", "server_ever_gpu", "warm_up_ever"]


def _kernels(folder: Path) -> int:
    return len(list(folder.rglob("*"))) if folder.exists() else 0


async def _until_compiled(c: Any, t0: float, limit: float, where: dict[str, Any]) -> dict[str, Any]:
    """A server answering without compiled code (or, with CUDA, from the CPU) while its first compile runs: when
    it ran compiled (on the GPU), and a completion's answer then."""
    model: dict[str, Any] = {}
    while time.perf_counter() - t0 < limit:
        model = (await c.call("laya/stats", {"recent": 0}))["model"] or {}
        if model.get("compiled") and model.get("device") != ("cpu" if installed_backend() == "cuda" else None):
            break
        await asyncio.sleep(0.2)
    moved = time.perf_counter() - t0
    t = time.perf_counter()
    resp = await c.request("textDocument/completion", {"textDocument": {"uri": URI}, "position": where},
                           timeout=limit)
    return {"then_on": model.get("device"), "then_compiled": model.get("compiled"), "compiled_s": round(moved, 2),
            "answer_then_ms": round((time.perf_counter() - t) * 1000, 1),
            "candidates_then": len((resp.get("result") or {}).get("items") or [])}


async def server_first_answer(model: str | None, limit: float, device: str = "auto") -> dict[str, Any]:
    """A fresh server: times from process start to initialize and to the first completion's answer (and, where
    the CPU answered first, to the move to the GPU)."""
    from tests.lspclient import LspClient

    cmd = [sys.executable, "-m", "laya_lsp", *(["--model", model] if model else []),
           "--settings", json.dumps({"device": device})]
    t0 = time.perf_counter()
    c = await LspClient.spawn(cmd, default_timeout=limit)
    try:
        await c.initialize()
        initialized = time.perf_counter() - t0
        await c.did_open(URI, TEXT)
        end = TEXT.rsplit("\n", 1)
        where = {"line": TEXT.count("\n"), "character": len(end[-1])}
        resp = await c.request("textDocument/completion", {"textDocument": {"uri": URI}, "position": where,
                                                           "workDoneToken": "first"}, timeout=limit)
        answered = time.perf_counter() - t0
        shown = [m["params"]["value"] for m in c.notifications
                 if m["method"] == "$/progress" and m["params"]["token"] == "first"]
        stats = await c.call("laya/stats", {"recent": 5})
        model_info = stats.get("model") or {}
        bridged = device == "auto" and (model_info.get("compiled") is False or (
            model_info.get("device") == "cpu" and installed_backend() == "cuda"))
        move = await _until_compiled(c, t0, limit, where) if bridged else {}
    finally:
        await c.close()
    return {"device": device, "answered_on": model_info.get("device"), "compiled": model_info.get("compiled"), **move,
            "to_initialized_s": round(initialized, 2), "to_first_answer_s": round(answered, 2),
            "candidates": len((resp.get("result") or {}).get("items") or []), "error": resp.get("error"),
            # the $/progress the request's wait was shown: begin, the load's steps, end (none: it did not wait)
            "progress": {"reports": sum(v["kind"] == "report" for v in shown), "ended": bool(shown) and
                         shown[-1]["kind"] == "end", "last_step": next((v.get("message") for v in reversed(shown)
                                                                       if v["kind"] == "report"), None)},
            "load_ms": model_info.get("load_ms"), "warmup_ms": model_info.get("warmup_ms"),
            "records": [{k: r.get(k) for k in ("kind", "status", "prompt_tokens", "prefill_ms", "decode_ms",
                                               "total_ms")} for r in stats.get("recent", [])]}


def warm_up_command(model: str | None, limit: float) -> dict[str, Any]:
    """`laya-lsp warm-up --json`: its summary, the wall time and its progress lines."""
    cmd = [sys.executable, "-m", "laya_lsp", "warm-up", "--json", *(["--model", model] if model else [])]
    t = time.perf_counter()
    try:
        done = subprocess.run(cmd, capture_output=True, text=True, timeout=limit, check=False, cwd=ROOT)
    except subprocess.TimeoutExpired:
        return {"timed_out": True, "limit_s": limit}
    out: dict[str, Any] = {"wall_s": round(time.perf_counter() - t, 2), "rc": done.returncode}
    try:
        out.update(json.loads(done.stdout))
    except ValueError:
        out["stdout"] = done.stdout[-2000:]
    out["progress"] = done.stderr.splitlines()[-40:]
    return out


def first_start(model: str | None, kernels: Path, limit: float, steps: list[str] = STEPS) -> dict[str, Any]:
    """The steps of the module docstring (those named, in their order), on `model` (None: the embedded one)."""
    os.environ["MLX_PTX_CACHE_DIR"] = str(kernels)
    os.environ["TMPDIR"] = str(kernels / "tmp")  # MLX's CPU code (<TMPDIR>/mlx/<version>/cpu) goes with them
    out: dict[str, Any] = {"date": time.strftime("%Y-%m-%dT%H:%M:%S"), "model": model or "(embedded)",
                           "load_start": os.getloadavg()}

    def step(name: str, fresh: bool, run: Any) -> None:
        if fresh:
            shutil.rmtree(kernels, ignore_errors=True)
        (kernels / "tmp").mkdir(parents=True, exist_ok=True)
        try:
            out[name] = run()
        except (asyncio.TimeoutError, TimeoutError) as exc:
            out[name] = {"timed_out": True, "limit_s": limit, "error": str(exc)}
        out[name]["kernels_after"] = _kernels(kernels)
        print(f"{name}: {json.dumps(out[name])}", flush=True)

    runs = {"server_ever": (True, lambda: asyncio.run(server_first_answer(model, limit))),
            "server_ever_gpu": (True, lambda: asyncio.run(server_first_answer(model, limit, "gpu"))),
            "warm_up_cached": (False, lambda: warm_up_command(model, limit)),
            "warm_up_ever": (True, lambda: warm_up_command(model, limit)),
            "server_cached": (False, lambda: asyncio.run(server_first_answer(model, limit)))}
    for name in steps:
        step(name, *runs[name])
    out["load_end"] = os.getloadavg()
    return out


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--model", help="model directory (default: the embedded model)")
    p.add_argument("--kernels", type=Path, default=Path("/tmp/laya-first-start-kernels"))
    p.add_argument("--limit", type=float, default=300.0, help="seconds a step may take")
    p.add_argument("--out", type=Path, help="write the JSON here too")
    p.add_argument("--steps", default=",".join(STEPS), help="which steps, in order (a split run: "
                   "server_ever,server_cached,warm_up_cached then server_ever_gpu,warm_up_ever)")
    args = p.parse_args(argv)
    steps = args.steps.split(",")
    if not set(steps) <= set(STEPS):
        p.error(f"--steps: of {', '.join(STEPS)}")
    result = first_start(args.model, args.kernels, args.limit, steps)
    if args.out:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(json.dumps(result, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

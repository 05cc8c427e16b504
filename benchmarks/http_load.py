"""Latency of the HTTP front under 1, 4 and 8 concurrent clients, on loopback.

    python -m benchmarks.http_load [--model DIR | --model tiny] [--clients 1,4,8] [--requests 20]
                                   [--endpoint complete|decide] [--settings JSON] [--max-seconds 60]

Starts `laya-lsp http --port 0` on 127.0.0.1 and, per concurrency level, runs that many clients at once; each
client is one session typing: request i sends the session's text with one more character typed (the IME / tool
pattern, so the session's KV cache is reused). Every request is a model run by default (typed-through and
speculative answers are off) so the numbers are the engine's, not the shortcuts'. Client-side latency p50/p95,
the server's own stats records, 429s and throughput per level; saved under benchmarks/results/<date>-http-load.json.
`--model tiny` uses the tests' tiny random model (measures the HTTP and scheduling overhead, not a real model).
Bounded: at most `--requests` per client and `--max-seconds` per level.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import re
import statistics
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import httpx

from benchmarks.common import save

ROOT = Path(__file__).resolve().parent.parent

BASE = '''import json
from pathlib import Path


def load_config(path: str) -> dict:
    """Read a JSON config file and fill in defaults."""
    data = json.loads(Path(path).read_text())
    data.setdefault("name", "laya")
    return data


def save_config(path: str, data: dict) -> None:
'''
TYPED = '    Path(path).write_text(json.dumps(data, indent=2, sort_keys=True))\n'
MODEL_RUN_ONLY = {"typedThrough": False, "speculative": False, "warmUp": False}
RAW = {"postprocess": False, "triggerRules": False}  # the tiny model's text is noise: take it as it is


def pct(values: list[float], q: float) -> float:
    if not values:
        return 0.0
    s = sorted(values)
    return s[min(len(s) - 1, max(0, round(q / 100 * (len(s) - 1))))]


class Server:
    def __init__(self, model: str, settings: dict[str, Any]) -> None:
        cmd = [sys.executable, "-m", "laya_lsp", "http", "--port", "0", "--max-queue", "64",
               "--settings", json.dumps(settings)]
        if model:
            cmd += ["--model", model]
        self.proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, cwd=ROOT)
        self.url = ""
        lines: list[str] = []
        ready = threading.Event()

        def drain() -> None:
            assert self.proc.stderr is not None
            for line in self.proc.stderr:
                lines.append(line)
                m = re.search(r"listening on (http://\S+)", line)
                if m:
                    self.url = m.group(1)
                    ready.set()

        threading.Thread(target=drain, daemon=True).start()
        t0 = time.monotonic()
        while not ready.wait(0.1):
            if self.proc.poll() is not None or time.monotonic() - t0 > 300:
                raise SystemExit("laya-lsp http did not start:\n" + "".join(lines))
        while httpx.get(self.url + "/healthz").status_code != 200:
            if time.monotonic() - t0 > 300:
                raise SystemExit("model did not load:\n" + "".join(lines))
            time.sleep(0.1)

    def close(self) -> None:
        self.proc.terminate()
        self.proc.wait(30)


async def client(http: httpx.AsyncClient, endpoint: str, cid: int, level: int, n: int, deadline: float,
                 out: list[dict[str, Any]]) -> None:
    session = f"bench-{level}-{cid}"
    for i in range(n):
        if time.monotonic() > deadline:
            return
        text = BASE + TYPED[: i + 1]
        if endpoint == "complete":
            body: dict[str, Any] = {"text": text, "session": session, "filename": "config.py"}
        else:
            body = {"text": text, "session": session, "choices": ["return", "raise", "pass", "yield"]}
        t0 = time.perf_counter()
        r = await http.post(f"/v1/{endpoint}", json=body)
        ms = (time.perf_counter() - t0) * 1000
        row: dict[str, Any] = {"client": cid, "i": i, "status": r.status_code, "ms": ms}
        if r.status_code == 200:
            data = r.json()
            st = data["stats"]
            row.update(server_total_ms=st["total_ms"], queue_ms=st["queue_ms"] + data["admissionMs"],
                       prompt_tokens=st["prompt_tokens"], reused_tokens=st["reused_tokens"],
                       decode_tokens=st["decode_tokens"], decode_ms=st["decode_ms"], prefill_ms=st["prefill_ms"],
                       source=data.get("source", ""), result=data.get("status", "ok"))
        out.append(row)


async def level(url: str, endpoint: str, clients: int, n: int, max_seconds: float) -> dict[str, Any]:
    rows: list[dict[str, Any]] = []
    deadline = time.monotonic() + max_seconds
    async with httpx.AsyncClient(base_url=url, timeout=120,
                                 limits=httpx.Limits(max_connections=clients + 2)) as http:
        await client(http, endpoint, 999, clients, 2, deadline, [])  # warm: first request of a session shape
        t0 = time.perf_counter()
        await asyncio.gather(*(client(http, endpoint, c, clients, n, deadline, rows) for c in range(clients)))
        wall = time.perf_counter() - t0
    ok = [r for r in rows if r["status"] == 200]
    lat = [r["ms"] for r in ok]
    prompt = sum(r["prompt_tokens"] for r in ok)
    return {
        "clients": clients, "requests": len(rows), "ok": len(ok),
        "rejected_429": sum(r["status"] == 429 for r in rows),
        "other_errors": sum(r["status"] not in (200, 429) for r in rows),
        "superseded_or_cancelled": sum(r.get("result") not in (None, "ok") for r in ok),
        "p50_ms": round(pct(lat, 50), 1), "p95_ms": round(pct(lat, 95), 1),
        "mean_ms": round(statistics.fmean(lat), 1) if lat else 0.0, "max_ms": round(max(lat, default=0.0), 1),
        "throughput_rps": round(len(ok) / wall, 2) if wall else 0.0,
        "server_p50_total_ms": round(pct([r["server_total_ms"] for r in ok], 50), 1),
        "p50_wait_ms": round(pct([r["queue_ms"] for r in ok], 50), 1),
        "reuse_ratio": round(sum(r["reused_tokens"] for r in ok) / prompt, 3) if prompt else 0.0,
        "mean_prompt_tokens": round(prompt / len(ok), 1) if ok else 0.0,
        "mean_decode_tokens": round(statistics.fmean(r["decode_tokens"] for r in ok), 1) if ok else 0.0,
        "p50_prefill_ms": round(pct([r["prefill_ms"] for r in ok], 50), 1),
        "p50_decode_ms": round(pct([r["decode_ms"] for r in ok], 50), 1),
        "wall_s": round(wall, 2),
    }


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--model", default=os.environ.get("LAYA_MODEL", ""),
                   help="model directory or repo id; 'tiny' = the tests' tiny random model (default: LAYA_MODEL, "
                   "else the embedded model)")
    p.add_argument("--clients", default="1,4,8")
    p.add_argument("--requests", type=int, default=20, help="requests per client and level (default 20)")
    p.add_argument("--endpoint", choices=["complete", "decide"], default="complete")
    p.add_argument("--settings", default="", help="laya settings JSON for the server (merged over the defaults "
                   "here: every request a model run; with --model tiny also raw candidates)")
    p.add_argument("--max-seconds", type=float, default=60.0, help="cap per concurrency level (default 60)")
    p.add_argument("--tag", default="", help="suffix of the results file name (http-load-TAG.json)")
    args = p.parse_args()
    model = args.model
    settings = dict(MODEL_RUN_ONLY)
    if model == "tiny":
        from tests.conftest import TINY_MODEL  # builds it on first use

        model, settings = str(TINY_MODEL), {**settings, **RAW}
    if args.settings:
        settings.update(json.loads(args.settings))
    server = Server(model, settings)
    try:
        info = httpx.get(server.url + "/v1/stats", params={"recent": 0}).json()
        levels = []
        for n in (int(x) for x in args.clients.split(",")):
            row = asyncio.run(level(server.url, args.endpoint, n, args.requests, args.max_seconds))
            levels.append(row)
            print(
                f"{n:>2} clients: p50 {row['p50_ms']:7.1f} ms  p95 {row['p95_ms']:7.1f} ms  "
                f"{row['throughput_rps']:6.2f} req/s  server p50 {row['server_p50_total_ms']:6.1f} ms  "
                f"decode {row['mean_decode_tokens']:.0f} tok  reuse {row['reuse_ratio']:.2f}  429s "
                f"{row['rejected_429']}  ({row['ok']}/{row['requests']} ok)"
            )
    finally:
        server.close()
    path = save(
        "http-load" + (f"-{args.tag}" if args.tag else ""),
        {
            "endpoint": args.endpoint,
            "settings": settings,
            "model": info["model"],
            "blas": info["blas"],
            "levels": levels,
            "command": "python -m benchmarks.http_load " + " ".join(sys.argv[1:]),
        },
    )
    print(f"saved {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

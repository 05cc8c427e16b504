"""Pauses after opening a real file: the first answer and every pause's, with and without the client's focus,
side by side with the llama.cpp peer on the same prompts.

    python -m benchmarks.pause_replay [--file F] [--chars 40] [--rest-s 1] [--interval-ms 100] [--no-peer]
                                      [--baseline DIR]

A person opens a file no one here wrote (a held-out file), rests `--rest-s` seconds with the cursor in the middle of
it, then types a line there at `--interval-ms` pace; every keystroke asks for ghost text and waits for it (a pause
is the time from the keystroke to its answer). The server is started and has answered once in another buffer
before the file opens, so the first pause measures the file's cache, not the server's start-up. Two runs: the
client sends `laya/focus` at the cursor when it opens the file (as the VS Code extension and the Neovim config
do), and it does not (Helix, Sublime, a bare client). The llama.cpp peer (benchmarks/peers/llamacpp.py, one KV
slot per buffer with prefix reuse, one greedy candidate stopping at the line's end) answers the prompts laya
builds for the same keystrokes, warmed at the typing position first. `--baseline DIR` (a checkout from before a
change) runs each replay on that code too, right after laya's (`<date>-pauses-vs-baseline.json`). Saves
benchmarks/results/<date>-pauses.json.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from laya_lsp.replay import Buffer, ReplayClient, position_at, server_command

ROOT = Path(__file__).resolve().parent.parent
HELDOUT = ROOT / "benchmarks" / "data" / "heldout-files" / "python" / "boltons-26.2.0__boltons_ioutils.py"
# A line in the middle of that file with calls in it (the cursor rests inside brackets several times).
LINE = "if self.tell() + len(s) >= self._max_size:"
RECORD_KEYS = ("kind", "source", "status", "prompt_tokens", "reused_tokens", "prefill_ms", "decode_tokens",
               "decode_steps", "decode_ms", "total_ms")


def buffer_at(path: Path, chars: int, line: str | None = None, line_hint: float = 0.5) -> Buffer:
    """The buffer to type into: the first line containing `line` (from its indentation on, its first `chars`
    characters re-typed), else the line `Buffer.from_file` picks near `line_hint`."""
    if line is None:
        return Buffer.from_file(path, chars, line_hint=line_hint)
    text = path.read_text(encoding="utf-8")
    at = text.index(line)
    start = text.rfind("\n", 0, at) + 1
    start += len(text[start:]) - len(text[start:].lstrip(" \t"))
    end = text.find("\n", at)
    code = text[start:end if end >= 0 else len(text)]
    return Buffer(path.resolve().as_uri(), "python", text[:start] + text[start + len(code):], start, code[:chars])


def percentiles(ms: list[float]) -> dict[str, float]:
    s = sorted(ms)
    if not s:
        return {"n": 0}
    return {"n": len(s), "p50_ms": round(s[len(s) // 2], 2), "p95_ms": round(s[min(len(s) - 1, int(0.95 * len(s)))], 2),
            "max_ms": round(s[-1], 2)}


def baseline_command(baseline: str, model: str | None) -> list[str]:
    """The server of a checkout of laya-lsp from before a change (its package first on the path)."""
    start = f"import runpy, sys; sys.path.insert(0, {baseline!r}); runpy.run_module('laya_lsp', run_name='__main__')"
    return [sys.executable, "-c", start] + server_command(model)[3:]


async def pause_run(path: Path, chars: int, focus: bool, settings: dict[str, Any], rest_s: float = 1.0,
                    interval_ms: float = 100.0, line: str | None = None, model: str | None = None,
                    command: list[str] | None = None) -> dict[str, Any]:
    """One replay (see the module's docstring); returns every pause's latency, answer and server record."""
    buf = buffer_at(path, chars, line)
    rc = ReplayClient(command or server_command(model), settings)
    await rc.start()
    try:
        other = Buffer("file:///tmp/laya-pause-first.py", "python", "import os\n\nprint(os.", 19, "")
        rc.open(other)
        await rc.ask(other, "inline")  # the server has loaded its model and answered once
        await rc.stats(reset=True)
        rc.open(buf)
        if focus:
            rc.client.protocol.notify("laya/focus", {"textDocument": {"uri": buf.uri},
                                                     "position": position_at(buf.text, buf.cursor)})
        await asyncio.sleep(rest_s)
        pauses: list[dict[str, Any]] = []
        for ch in buf.to_type:
            t0 = time.perf_counter()
            rc.type_char(buf, ch)
            texts, took = await rc.ask(buf, "inline")
            pauses.append({"typed": ch, "ms": round(took, 2), "shown": texts[:2]})
            await asyncio.sleep(max(0.0, interval_ms / 1000 - (time.perf_counter() - t0)))
        stats = await rc.stats(recent=4 * len(buf.to_type) + 16)
    finally:
        await rc.stop()
    records = [{k: r.get(k) for k in RECORD_KEYS} | {"plan": (r.get("extra") or {}).get("plan")}
               for r in stats.get("recent", []) if r.get("doc") == buf.uri]
    ms: list[float] = [p["ms"] for p in pauses]
    return {"focus": focus, "file": path.name, "line": buf.text[: buf.cursor].count("\n") + 1, "typed": buf.to_type,
            "first_pause_ms": ms[0] if ms else None, "pauses": percentiles(ms), "by_pause": pauses,
            "records": records}


def peer_prompts(path: Path, chars: int, line: str | None, model: str | None) -> dict[str, Any]:
    """laya's prompts for the replay's keystrokes (benchmarks/peers/prompts.py) as the peer's input."""
    from benchmarks.peers.prompts import keystroke_prompts
    from laya_lsp.engine import resolve_model
    from laya_lsp.engine.loading.model import load_model

    lm = load_model(str(resolve_model(model, False)))
    ps = keystroke_prompts(lm, [path], chars, kind="inline", buffers=[buffer_at(path, chars, line)])
    return ps.to_dict()


def llamacpp_pauses(path: Path, chars: int, line: str | None, model: str | None, threads: str = "1",
                    wait: str = "passive", dtypes: str = "f32") -> dict[str, Any]:
    """The llama.cpp peer on the replay's prompts, warmed at the typing position (in its own process)."""
    from laya_lsp.engine import resolve_model

    model_path = resolve_model(model, False)
    with tempfile.TemporaryDirectory(prefix="laya-pauses-") as tmp:
        pfile, out = Path(tmp) / "prompts.json", Path(tmp) / "out.json"
        pfile.write_text(json.dumps({"pauses": peer_prompts(path, chars, line, model)}))
        cmd = [sys.executable, "-m", "benchmarks.peers.llamacpp", "--model", str(model_path), "--prompts", str(pfile),
               "--out", str(out), "--threads", threads, "--gguf-dir", tmp, "--omp-wait", wait, "--dtypes", dtypes,
               "--warm-first", "--no-decode-speed"]
        proc = subprocess.run(cmd, cwd=ROOT, text=True, capture_output=True, check=False, timeout=600)
        if proc.returncode != 0:
            raise RuntimeError("llama.cpp peer failed: " + (proc.stderr.strip().splitlines() or ["?"])[-1][:400])
        result = json.loads(out.read_text())
    return {dtype: result[dtype]["pauses"] for dtype in dtypes.split(",")} | {"threads": threads, "omp_wait": wait}


def pause_section(path: Path = HELDOUT, line: str | None = LINE, chars: int = 60, rest_s: float = 1.0,
                  interval_ms: float = 100.0, settings: dict[str, Any] | None = None, model: str | None = None,
                  peer: bool = True, log: Any = print, baseline: str | None = None) -> dict[str, Any]:
    """With and without focus, and the peer, in one run; for `make bench` (run_all's `pauses` section). With
    `baseline` (a checkout from before a change), each replay also runs on that code right after laya's."""
    out: dict[str, Any] = {"file": str(path.relative_to(ROOT)) if path.is_relative_to(ROOT) else str(path),
                           "rest_s": rest_s, "interval_ms": interval_ms}
    servers = [("laya", None)] + ([("baseline", baseline_command(baseline, model))] if baseline else [])
    for focus in (True, False):
        for name, command in servers:
            r = asyncio.run(pause_run(path, chars, focus, settings or {}, rest_s, interval_ms, line, model, command))
            out[("focus" if focus else "no_focus") + ("" if command is None else "_baseline")] = r
            log(f"{name} {'focus   ' if focus else 'no focus'}: first pause {r['first_pause_ms']:.1f} ms, pauses "
                f"p50 {r['pauses']['p50_ms']:.1f} p95 {r['pauses']['p95_ms']:.1f} max {r['pauses']['max_ms']:.1f} "
                f"ms (n={r['pauses']['n']}, line {r['line']})")
    if peer:
        out["llamacpp"] = llamacpp_pauses(path, chars, line, model)
        res = out["llamacpp"]["f32"]
        log(f"llama.cpp f32 (warm at the cursor): p50 {res['p50_ms']:.1f} p95 {res['p95_ms']:.1f} "
            f"max {res['max_ms']:.1f} ms (n={res['n']})")
    return out


def table_row(section: dict[str, Any]) -> str:
    """The pauses' row of make bench's table."""
    def run(r: dict[str, Any] | None) -> str:
        if not r:
            return "–"
        return f"{r['first_pause_ms']:.0f} ms; {r['pauses']['p50_ms']:.1f} / {r['pauses']['p95_ms']:.0f} ms"

    peer = (section.get("llamacpp") or {}).get("f32") or {}
    peer_text = f"{peer['p50_ms']:.1f} / {peer['p95_ms']:.0f} ms" if peer else "–"
    return (f"| pauses after opening {Path(section['file']).name} (1 s rest mid-file): first pause; every pause p50 / "
            f"p95 — with focus; without; llama.cpp f32 warm at the cursor (p50 / p95) | {run(section.get('focus'))}; "
            f"{run(section.get('no_focus'))}; {peer_text} | first ≤ 60 (focus) / ≤ 150 ms; p95 ≤ 60 ms and ≤ "
            f"llama.cpp's; p50 ≤ 5 ms |")


def main() -> int:
    from benchmarks.common import save

    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--file", type=Path, default=HELDOUT)
    p.add_argument("--line", default=LINE, help="type this line (from the file); '' for the middle line")
    p.add_argument("--chars", type=int, default=60)
    p.add_argument("--rest-s", type=float, default=1.0)
    p.add_argument("--interval-ms", type=float, default=100.0)
    p.add_argument("--settings", default="{}")
    p.add_argument("--model")
    p.add_argument("--no-peer", action="store_true")
    p.add_argument("--baseline", help="a checkout of laya-lsp from before a change: each replay runs on it too")
    args = p.parse_args()
    import os

    load0 = [round(x, 2) for x in os.getloadavg()]
    res = pause_section(args.file, args.line or None, args.chars, args.rest_s, args.interval_ms,
                        json.loads(args.settings), args.model, not args.no_peer, baseline=args.baseline)
    res["load"] = {"before": load0, "after": [round(x, 2) for x in os.getloadavg()]}
    print("saved", save("pauses-vs-baseline" if args.baseline else "pauses", res))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

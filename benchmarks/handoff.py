"""The hand-off, measured (issue 32): what a person gets with and without a bigger model on a serving engine.

    python -m benchmarks.quality --handoff [--remote-model DIR] [--remote-fim qwen/spm] [--sets heldout] ...

`quality.py --handoff` starts `mlx_lm.server` on 127.0.0.1 serving `--remote-model` (default: the embedded
model, until a bigger one is trained) and points the server's `fallback.url` at it. Per task the editor asks
once (the local answer, what is shown at once) and, where that answer was unsure (the request's record says
so) and the hand-off ended, asks again at the same version: the answer with the hand-off. Both are scored by
benchmarks/shown.py (shown, precision, characters saved), per position class; `handed_off` counts the tasks
that were handed off and `remote_answers` those the serving engine's answer replaced.
"""

from __future__ import annotations

import asyncio
import os
import socket
import subprocess
import sys
import time
import urllib.request
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from benchmarks.shown import person_breakdown
from laya_lsp.engine import DEFAULT_MODEL_DIR
from laya_lsp.replay import Buffer, ReplayClient

POLL_S = 0.02


@contextmanager
def serving_engine(model: str | None) -> Iterator[str]:
    """`python -m mlx_lm.server` serving `model` on a free loopback port; yields its URL once it answers."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    cmd = [sys.executable, "-m", "mlx_lm.server", "--model", str(model or DEFAULT_MODEL_DIR), "--host", "127.0.0.1",
           "--port", str(port)]
    proc = subprocess.Popen(cmd, env={**os.environ, "HF_HUB_OFFLINE": "1"}, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)
    url = f"http://127.0.0.1:{port}"
    try:
        for _ in range(1200):
            try:
                with urllib.request.urlopen(url + "/health", timeout=1):
                    break
            except OSError:
                if proc.poll() is not None:
                    raise SystemExit(f"mlx_lm.server exited: {' '.join(cmd)}") from None
                time.sleep(0.1)
        yield url
    finally:
        proc.terminate()
        proc.wait(timeout=30)


def settings(url: str, fim: str, completions: str, context_chars: int = 10000) -> dict[str, Any]:
    """The laya settings for a run with the hand-off (a deadline long enough that every hand-off ends)."""
    return {"fallback": {"url": url, "fim": fim, "completions": completions, "deadlineMs": 120000,
                         "contextChars": context_chars}}


async def _record(client: ReplayClient, uri: str, kinds: tuple[str, ...], after: int) -> dict[str, Any] | None:
    recent = (await client.stats(recent=20)).get("recent", [])
    found = [r for r in recent if r["doc"] == uri and r["kind"] in kinds and r["id"] > after]
    return found[-1] if found else None


async def ask(client: ReplayClient, buf: Buffer, kind: str, word: int, last_id: int) -> dict[str, Any]:
    """The local answer and, where it was unsure, the answer to asking again once the hand-off ended (texts
    without their first `word` characters: completion items replace the word being typed)."""

    def trim(texts: list[str]) -> list[str]:
        return [t[word:] for t in texts]

    local, ms = await client.ask(buf, kind)
    record = await _record(client, buf.uri, (kind,), last_id)
    row: dict[str, Any] = {"texts": trim(local), "local": trim(local), "ms": ms, "handed_off": False, "remote": False}
    if record is None or not (record.get("extra") or {}).get("unsure"):
        return {**row, "last_id": record["id"] if record else last_id}
    row["handed_off"] = True
    while (done := await _record(client, buf.uri, ("handoff",), record["id"])) is None:
        await asyncio.sleep(POLL_S)
    again, _ = await client.ask(buf, kind)
    second = await _record(client, buf.uri, (kind,), done["id"])
    row.update(texts=trim(again), remote=bool(second and second["source"] == "handoff"), status=done["status"],
               error=done.get("error"))
    return {**row, "last_id": second["id"] if second else done["id"]}


def compare(tasks: list[dict[str, Any]], answers: list[dict[str, Any]]) -> dict[str, Any]:
    """What is shown without and with the hand-off, by benchmarks/shown.py, per position class."""
    truths = [t["middle"] for t in tasks]
    classes = [t["class"] for t in tasks]
    first = [lambda a, key=key: a[key][0] if a[key] else "" for key in ("local", "texts")]
    return {"without": person_breakdown([first[0](a) for a in answers], truths, classes),
            "with": person_breakdown([first[1](a) for a in answers], truths, classes),
            "handed_off": sum(a["handed_off"] for a in answers), "remote_answers": sum(a["remote"] for a in answers),
            "handoff_errors": sum(a.get("status") == "error" for a in answers),
            # why they failed, by the error's first words (an empty answer, a timeout, an HTTP error, ...)
            "handoff_error_kinds": dict(Counter(" ".join(str(a.get("error")).split()[:4]) for a in answers
                                                if a.get("status") == "error"))}


def print_comparison(entry: dict[str, Any]) -> None:
    h = entry["handoff"]
    print(f"  hand-off: {h['handed_off']} of {len(entry['tasks'])} handed off, {h['remote_answers']} answered by the"
          f" serving engine, {h['handoff_errors']} failed {h.get('handoff_error_kinds') or ''}")
    for label in ("without", "with"):
        m = h[label]
        print(f"  {label + ' the hand-off':<22} shown {m['shown']:.3f}  precision {m['precision']:.3f}"
              f"  chars saved {m['chars_saved']:.4f}  shown wrong {m['shown_wrong']:.3f}")

"""Replay typing into real files through the real server over stdio, and time every keystroke.

`make demo` runs `python -m laya_lsp.replay --demo examples/`: it starts `laya-lsp`, opens the example files,
re-types a line of each character by character (didChange + a completion request per keystroke) and prints
the candidates with their latency. `benchmarks/typing_replay.py` uses the same code for its measurements.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import statistics
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from lsprotocol import types as lsp
from pygls.lsp.client import LanguageClient

from laya_lsp.syntax.languages import SPECS

log = logging.getLogger(__name__)
# File extension -> LSP languageId, from the grammars' table (every extension the server has a grammar for).
LANGUAGES = {ext: spec.language_ids[0] for spec in SPECS for ext in spec.extensions}


def to_plain(obj: Any) -> Any:
    """pygls returns custom results as namedtuples; turn them into plain JSON values."""
    if hasattr(obj, "_asdict"):
        return {k: to_plain(v) for k, v in obj._asdict().items()}
    if isinstance(obj, (list, tuple)):
        return [to_plain(v) for v in obj]
    return obj


def position_at(text: str, offset: int) -> lsp.Position:
    before = text[:offset]
    col = before[before.rfind("\n") + 1 :]
    return lsp.Position(line=before.count("\n"), character=len(col.encode("utf-16-le")) // 2)


@dataclass
class Buffer:
    """One open document and the span of it that will be re-typed."""

    uri: str
    language: str
    text: str
    cursor: int
    to_type: str
    version: int = 1
    listed: bool = False  # a completion list was asked for: later asks are its re-requests as the user types

    @classmethod
    def from_file(cls, path: Path, chars: int, line_hint: float = 0.5) -> Buffer:
        """Cut a line near `line_hint` of the file from its indentation on; its first `chars` characters get
        re-typed (the rest of the line stays cut, so the cursor is at the end of a line being written)."""
        text = path.read_text(encoding="utf-8")
        lines = text.splitlines(keepends=True)
        order = sorted(range(len(lines)), key=lambda i: abs(i - int(len(lines) * line_hint)))
        for i in order:
            body = lines[i].rstrip("\r\n")
            code = body.lstrip()
            if len(code) >= min(chars, 12) and not code.startswith(("#", "//", '"""')):
                start = sum(len(x) for x in lines[:i]) + len(body) - len(code)
                text = text[:start] + text[start + len(code) :]
                return cls(path.resolve().as_uri(), LANGUAGES.get(path.suffix, "plaintext"), text, start, code[:chars])
        raise ValueError(f"{path} has no line long enough to re-type")


@dataclass
class Keystroke:
    uri: str
    char: str
    kind: str
    latency_ms: float
    candidates: list[str]
    status: str = "ok"


@dataclass
class Replay:
    keystrokes: list[Keystroke] = field(default_factory=list)
    stats: dict[str, Any] = field(default_factory=dict)
    start_ms: float = 0.0

    def latencies(self, kind: str | None = None, answered_only: bool = True) -> list[float]:
        return [k.latency_ms for k in self.keystrokes
                if (kind is None or k.kind == kind) and (k.status == "ok" or not answered_only)]

    def summary(self) -> dict[str, Any]:
        out: dict[str, Any] = {"keystrokes": len(self.keystrokes), "cold_start_to_first_answer_ms": self.start_ms}
        for kind in sorted({k.kind for k in self.keystrokes}):
            lat = sorted(self.latencies(kind))
            if lat:
                out[kind] = {
                    "answered": len(lat),
                    "p50_ms": round(statistics.median(lat), 2),
                    "p95_ms": round(lat[min(len(lat) - 1, int(0.95 * len(lat)))], 2),
                    "max_ms": round(lat[-1], 2),
                }
        s = self.stats.get("summary", {})
        out["reuse_ratio"] = round(float(s.get("reuse_ratio", 0.0)), 4)
        out["decode_ms_per_token"] = round(float(s.get("decode_ms_per_token", 0.0)), 3)
        out["by_source"] = s.get("by_source", {})
        out["by_status"] = s.get("by_status", {})
        return out


def server_command(model: str | None, extra: list[str] | None = None) -> list[str]:
    cmd = [sys.executable, "-m", "laya_lsp"]
    if model:
        cmd += ["--model", model]
    return cmd + (extra or [])


class ReplayClient:
    """A minimal editor: opens buffers, types into them, asks for completions."""

    def __init__(self, command: list[str], settings: dict[str, Any] | None = None) -> None:
        self.command = command
        self.settings = settings or {}
        self.client = LanguageClient("laya-replay", "1")

        @self.client.feature(lsp.WINDOW_LOG_MESSAGE)
        def log_message(params: lsp.LogMessageParams) -> None:
            log.debug("server: %s", params.message)  # not printed: the demo shows keystrokes

    async def start(self) -> None:
        await self.client.start_io(*self.command)
        caps = lsp.ClientCapabilities(
            text_document=lsp.TextDocumentClientCapabilities(
                completion=lsp.CompletionClientCapabilities(),
                inline_completion=lsp.InlineCompletionClientCapabilities(),
            )
        )
        await self.client.initialize_async(
            lsp.InitializeParams(capabilities=caps, process_id=None, initialization_options=self.settings)
        )
        self.client.initialized(lsp.InitializedParams())

    async def stop(self) -> None:
        try:
            await asyncio.wait_for(self.client.shutdown_async(None), 30)
            self.client.exit(None)
        finally:
            await self.client.stop()

    def open(self, buf: Buffer) -> None:
        self.client.text_document_did_open(lsp.DidOpenTextDocumentParams(
            lsp.TextDocumentItem(uri=buf.uri, language_id=buf.language, version=buf.version, text=buf.text)))

    def type_char(self, buf: Buffer, ch: str) -> None:
        pos = position_at(buf.text, buf.cursor)
        buf.version += 1
        self.client.text_document_did_change(lsp.DidChangeTextDocumentParams(
            text_document=lsp.VersionedTextDocumentIdentifier(uri=buf.uri, version=buf.version),
            content_changes=[lsp.TextDocumentContentChangePartial(range=lsp.Range(start=pos, end=pos), text=ch)]))
        buf.text = buf.text[: buf.cursor] + ch + buf.text[buf.cursor :]
        buf.cursor += 1

    async def ask(self, buf: Buffer, kind: str) -> tuple[list[str], float]:
        pos = position_at(buf.text, buf.cursor)
        doc = lsp.TextDocumentIdentifier(uri=buf.uri)
        t0 = time.perf_counter()
        if kind == "inline":
            inline = await self.client.text_document_inline_completion_async(lsp.InlineCompletionParams(
                text_document=doc, position=pos,
                context=lsp.InlineCompletionContext(trigger_kind=lsp.InlineCompletionTriggerKind.Automatic)))
            ghosts = list(inline.items if isinstance(inline, lsp.InlineCompletionList) else (inline or []))
            texts = [i.insert_text if isinstance(i.insert_text, str) else i.insert_text.value for i in ghosts]
        else:
            # As VS Code asks: Invoked first, then (the server's lists are incomplete) again on every keystroke.
            trigger = (lsp.CompletionTriggerKind.TriggerForIncompleteCompletions if buf.listed
                       else lsp.CompletionTriggerKind.Invoked)
            buf.listed = True
            res = await self.client.text_document_completion_async(lsp.CompletionParams(
                text_document=doc, position=pos, context=lsp.CompletionContext(trigger_kind=trigger)))
            items = list(res.items if isinstance(res, lsp.CompletionList) else (res or []))
            texts = [i.text_edit.new_text if i.text_edit else i.label for i in items]
        return texts, (time.perf_counter() - t0) * 1000

    async def stats(self, recent: int = 0, reset: bool = False) -> dict[str, Any]:
        return to_plain(await self.client.protocol.send_request_async("laya/stats", {"recent": recent, "reset": reset}))


async def replay(buffers: list[Buffer], command: list[str], settings: dict[str, Any], kinds: list[str],
                 switch_every: int = 5, interval_ms: float = 0.0, echo: bool = False) -> Replay:
    """Type every buffer's span, switching buffers every `switch_every` keystrokes; one request per keystroke.

    With `interval_ms` > 0 keystrokes come at that pace whether or not the last answer arrived (later ones
    supersede earlier ones, as when a person types fast); with 0 each keystroke waits for its answer.
    """
    rc = ReplayClient(command, settings)
    out = Replay()
    t0 = time.perf_counter()
    await rc.start()
    for buf in buffers:
        rc.open(buf)
    await rc.ask(buffers[0], kinds[0])  # first answer: includes model load and warm-up
    out.start_ms = round((time.perf_counter() - t0) * 1000, 1)
    await rc.stats(reset=True)
    pending: list[asyncio.Task] = []
    queue = [(b, i) for b in buffers for i in range(len(b.to_type))]
    # Interleave buffers in blocks of `switch_every` keystrokes.
    order: list[tuple[Buffer, int]] = []
    positions = {id(b): 0 for b in buffers}
    while len(order) < len(queue):
        for b in buffers:
            n = positions[id(b)]
            take = b.to_type[n : n + switch_every]
            order += [(b, n + k) for k in range(len(take))]
            positions[id(b)] = n + len(take)

    async def one(buf: Buffer, ch: str, kind: str) -> None:
        texts, ms = await rc.ask(buf, kind)
        status = "ok" if texts else "empty"
        out.keystrokes.append(Keystroke(buf.uri, ch, kind, ms, texts, status))
        if echo:
            name = buf.uri.rsplit("/", 1)[-1]
            shown = " | ".join(repr(t) for t in texts[:3]) or "(none)"
            print(f"{name:>14} {kind:<10} typed {ch!r:<5} {ms:7.1f} ms  {shown}", flush=True)

    for n, (buf, i) in enumerate(order):
        ch = buf.to_type[i]
        rc.type_char(buf, ch)
        kind = kinds[n % len(kinds)]
        if interval_ms > 0:
            pending.append(asyncio.ensure_future(one(buf, ch, kind)))
            await asyncio.sleep(interval_ms / 1000)
        else:
            await one(buf, ch, kind)
    if pending:
        await asyncio.gather(*pending)
    out.stats = await rc.stats(recent=0)
    await rc.stop()
    return out


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0] if __doc__ else None)
    p.add_argument("paths", nargs="+", help="files or folders to type into")
    p.add_argument("--demo", action="store_true", help="print every keystroke's candidates (make demo)")
    p.add_argument("--model", help="model for the server (default: the embedded model)")
    p.add_argument("--chars", type=int, default=24, help="characters to re-type per file (default 24)")
    p.add_argument("--buffers", type=int, default=0, help="use at most N files (default all)")
    p.add_argument("--kinds", default="completion,inline", help="request kinds, alternating (default both)")
    p.add_argument("--interval-ms", type=float, default=0.0, help="typing pace; 0 waits for each answer")
    p.add_argument("--settings", default="{}", help="laya settings JSON for the server")
    p.add_argument("--json", type=Path, help="write the summary and keystrokes to this file")
    args = p.parse_args(argv)
    files: list[Path] = []
    for raw in args.paths:
        path = Path(raw)
        files += sorted(f for f in path.iterdir() if f.suffix in LANGUAGES) if path.is_dir() else [path]
    if args.buffers:
        files = files[: args.buffers]
    buffers = [Buffer.from_file(f, args.chars) for f in files]
    kinds = [k.strip() for k in args.kinds.split(",") if k.strip()]
    result = asyncio.run(replay(buffers, server_command(args.model), json.loads(args.settings), kinds,
                                interval_ms=args.interval_ms, echo=args.demo))
    summary = result.summary()
    model = result.stats.get("model") or {}
    print(f"\nmodel: {model.get('name')} ({model.get('params', 0) / 1e6:.1f}M params, {model.get('fim')}/"
          f"{model.get('layout')}), BLAS: {result.stats.get('blas')}")
    print(json.dumps(summary, indent=2))
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps({"summary": summary, "keystrokes": [k.__dict__ for k in result.keystrokes]},
                                        indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

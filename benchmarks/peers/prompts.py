"""The exact FIM prompts laya builds for a typing replay, reconstructed in-process (no server; nothing decoded).

A replay types spans of real files one character at a time (buffers interleaved every `switch_every`
keystrokes, as `laya_lsp.replay.replay` does). For each keystroke this module asks laya's own code what it
would send to the model: the syntax plan (skip / one line / a block, token cap), the cross-file chunk ring,
the per-document sliding prefix window and the prompt builder. Peers answer exactly these token ids, so every
system sees the same prompts. Each prompt carries `prompt_hash` computed like the engine's `RequestStats`, so
the reconstruction can be checked against what the server logged.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any

from laya_lsp.replay import Buffer


@dataclass
class Prompt:
    doc: str  # document URI
    index: int  # keystroke number in the replay
    ids: list[int]
    max_tokens: int
    max_lines: int
    prompt_hash: str = ""

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass
class PromptSet:
    """Everything a peer needs to answer like the engine: prompts plus the stop rules."""

    prompts: list[Prompt]
    stop_ids: list[int]
    newline_ids: list[int]
    blank_ids: list[int]
    skipped: int = 0  # keystrokes where the syntax plan declined to complete (no model run anywhere)
    files: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return {"prompts": [p.to_dict() for p in self.prompts], "stop_ids": self.stop_ids,
                "newline_ids": self.newline_ids, "blank_ids": self.blank_ids, "skipped": self.skipped,
                "files": self.files}

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> PromptSet:
        return cls([Prompt(**p) for p in d["prompts"]], d["stop_ids"], d["newline_ids"], d["blank_ids"],
                   d.get("skipped", 0), d.get("files", []))


def prompt_hash(ids: list[int]) -> str:
    """As `Engine._run` records it (tuple hashes of ints are not randomised between processes)."""
    return format(hash(tuple(ids)) & 0xFFFFFFFFFFFF, "x")


def typing_order(buffers: list[Buffer], switch_every: int) -> list[tuple[Buffer, int]]:
    """(buffer, character index) per keystroke, buffers interleaved in blocks (as the replay does)."""
    order: list[tuple[Buffer, int]] = []
    positions = {id(b): 0 for b in buffers}
    total = sum(len(b.to_type) for b in buffers)
    while len(order) < total:
        for b in buffers:
            n = positions[id(b)]
            take = b.to_type[n : n + switch_every]
            order += [(b, n + k) for k in range(len(take))]
            positions[id(b)] = n + len(take)
    return order


class _ReplayClock:
    """Stands in for `time` in laya_lsp.crossfile: chunk snapshots refresh on a clock, so replay its timeline."""

    def __init__(self) -> None:
        self.now = 0.0

    def monotonic(self) -> float:
        return self.now


def keystroke_prompts(lm: Any, files: list[Path], chars: int, kind: str = "completion", switch_every: int = 5,
                      line_hint: float | dict[str, float] = 0.6, raw_settings: dict[str, Any] | None = None,
                      start_s: float = 3.0, interval_s: float = 0.1,
                      key_times_s: list[float] | None = None, buffers: list[Buffer] | None = None) -> PromptSet:
    """The prompts laya's engine would build for every keystroke of a replay over `files` (model `lm`: its
    stop rules go to the peers; laya's own engine loads the same model through the bootstrap).

    Follows the server's sequence: open + warm-up per buffer, the first request at the untouched cursor of
    the first buffer, then one request per keystroke, each built by the orchestrator's completion flow and the
    engine's prompt code. `start_s` (open → first keystroke, i.e. the replay's cold start) and `interval_s`
    (typing pace) place each request on the timeline the cross-file chunk snapshots refresh by; `key_times_s`
    (each keystroke's time after the buffers opened, as a replay recorded it) replaces that estimate.
    `buffers` (one per file) replaces the spans `Buffer.from_file` would pick by `line_hint`.
    """
    from laya_lsp import bootstrap, crossfile
    from laya_lsp.config import parse_settings
    from laya_lsp.orchestrator import Kind
    from laya_lsp.syntax import CompletionPlan, SyntaxDocument

    settings = replace(parse_settings(raw_settings or {}), model=lm.path)
    orchestrator = bootstrap.start(settings)
    engine, flow = orchestrator.engine, orchestrator.completions
    clock, real_time = _ReplayClock(), crossfile.time
    crossfile.time = clock  # type: ignore[assignment]
    try:
        hints = line_hint if isinstance(line_hint, dict) else {str(f): line_hint for f in files}
        buffers = buffers or [Buffer.from_file(f, chars, line_hint=hints.get(str(f), 0.6)) for f in files]

        def build(b: Buffer, kind_: str, offset: int) -> tuple[list[int], Any] | None:
            doc = SyntaxDocument(b.text, b.language, b.uri)
            asked = Kind(kind_)
            plan = flow.plan(doc, offset) if asked is not Kind.WARM_UP else CompletionPlan(True, "warm-up")
            if not plan.complete:
                return None
            req = flow.request_for(b.uri, doc, offset, asked, plan, None, asked is not Kind.WARM_UP)
            return engine.prompt_for(req), req

        for b in buffers:  # didOpen: chunks join the ring, then the buffer is warmed with the cursor at the top
            flow.context.ring.observe_file(b.uri, b.text)
            if settings.warm_up:
                build(b, "warm-up", 0)
        clock.now = start_s
        build(buffers[0], kind, buffers[0].cursor)  # the replay's first (cold-start) request
        prompts: list[Prompt] = []
        skipped = 0
        for n, (b, i) in enumerate(typing_order(buffers, switch_every)):
            clock.now = key_times_s[n] if key_times_s and n < len(key_times_s) else start_s + n * interval_s
            ch = b.to_type[i]
            b.text = b.text[: b.cursor] + ch + b.text[b.cursor :]
            b.cursor += 1
            built = build(b, kind, b.cursor)
            if built is None:
                skipped += 1
                continue
            ids, req = built
            prompts.append(Prompt(b.uri, n, ids, int(req.max_tokens or settings.max_tokens), max(1, req.max_lines),
                                  prompt_hash(ids)))
    finally:
        crossfile.time = real_time
        engine.shutdown()
    stop = sorted(int(x) for x in lm.stop_ids)
    return PromptSet(prompts, stop, sorted(lm.newline_ids), sorted(lm.blank_ids), skipped, [str(f) for f in files])


def line_hint_for(path: Path, chars: int, around: float = 0.6) -> float:
    """A `Buffer.from_file` line hint near `around` whose line gives at least `chars` characters to type
    (the nearest line with a long enough span; `around` itself if the file has none)."""
    for step in range(40):
        for hint in (around + step * 0.01, around - step * 0.01):
            if 0.0 <= hint <= 1.0:
                try:
                    if len(Buffer.from_file(path, chars, line_hint=hint).to_type) >= chars:
                        return round(hint, 2)
                except ValueError:
                    pass
    return around


def token_count(lm: Any, path: Path) -> int:
    return len(lm.builder.encode(path.read_text(encoding="utf-8")))


def file_near_tokens(lm: Any, candidates: list[Path], target: int = 1500) -> tuple[Path, int]:
    """The candidate file whose token count (with this model's tokenizer) is closest to `target`."""
    counted = [(abs(token_count(lm, p) - target), p) for p in candidates if p.exists()]
    _, best = min(counted, key=lambda x: x[0])
    return best, token_count(lm, best)

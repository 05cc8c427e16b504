"""Person replay: what a person typing real files gets from the ghost text, through the real server over stdio.

    python -m benchmarks.person_replay [--languages python typescript] [--files-per-language 6]
                                       [--lines-per-file 12] [--seed 0] [--settings JSON] [--model DIR]
                                       [--pause-model DIR|off] [--compare --config NAME=JSON ...] [--quick]
                                       [--trace] [--echo] [--out PATH]

Files: the `evaluation` half (`benchmarks.common.heldout_half`) of each language's held-out files
(benchmarks/data/heldout-files/<language>/: packages kept out of training; nothing was tuned on this half), the
first `--files-per-language` of it. In each file `--lines-per-file` non-blank lines are picked with a fixed seed,
one at random from each of that many equal stretches of the file after its first 20% (so there is context).

The person: the file is open in the editor; for each picked line (in file order) its text after the indentation
is erased (the indentation stays, as editors auto-indent; the rest of the file stays below, as when editing in the
middle of a file) and the person types it again, character by character. They pause (the editor asks
`textDocument/inlineCompletion`, trigger Automatic, and the person looks at the ghost text) at the start of the
line's text, after each space, `.`, `(`, `,`, `=` and `:`, and right after accepting a suggestion (editors ask
again at once); never at the end of the line. At each pause the replay first sends one didChange with what was
typed since the last one, then asks and waits for the answer. The first suggestion is judged against what comes
next in the line (its first line only: the replay types one line):

- `whole`: the person presses Tab only if the suggestion's line is exactly the rest of the line;
- `word`: the person accepts word by word (VS Code's accept-next-word: a `\\w+` run, or the punctuation and
  whitespace up to the next one, cut after a whitespace run) as far as the words are right, at least one word
  that is not blank.

An accepted suggestion is applied as the editor applies it (one didChange with the suggestion's text, which is
then not typed) and the next pause is where it ends. Since the person types differently after an acceptance, each
accept style is its own replay through its own server, on the same files and lines (one design, not two styles
guessed from one run's answers). Per accept style, per language and overall: pauses; shown (share of pauses with
a non-blank suggestion); accepted of shown; characters saved (accepted characters over all characters of the
typed lines, indentation not counted); shown-and-wrong (shown, but not even its first word right, per pause);
p50/p95 of the inline responses as the client waited for them; and which tier answered the shown suggestions
(each inline request's record in `laya/stats`: model, typed-through, speculative, pause, ...), with the share from
the pause tier.

`--compare` runs several server configurations (`--config NAME=JSON`, laya settings merged over `--settings`;
default `default={}` and `cut-off={"minConfidence":0}`) in one run on the same lines, one after another per
accept style, so their numbers are peers. `--quick`: 2 files a language, 4 lines each. Prints a table and saves
benchmarks/results/<date>-person-replay.json (`--out` elsewhere); `--trace` keeps every pause in it.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import re
import statistics
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from lsprotocol import types as lsp

from laya_lsp.replay import LANGUAGES, Buffer, ReplayClient, position_at, server_command

ROOT = Path(__file__).resolve().parent.parent
HELDOUT = ROOT / "benchmarks" / "data" / "heldout-files"
STYLES = ("whole", "word")
PAUSE_AFTER = frozenset(" .(,=:")
SKIP_HEAD = 0.2  # the first 20% of a file is context only
ASK_TIMEOUT_S = 120.0
DEFAULT_COMPARE = {"default": {}, "cut-off": {"minConfidence": 0}}
_WORD = re.compile(r"\w+")
_SPACE = re.compile(r"\s+")


# --- what is typed where -------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Line:
    """One line to re-type: its 0-based number, indentation and text after it (trailing blanks dropped)."""

    number: int
    indent: str
    code: str


def pick_lines(text: str, count: int, seed: int, name: str) -> list[Line]:
    """`count` non-blank lines after the first 20%, one from each of `count` equal stretches (fixed seed)."""
    lines = text.split("\n")
    first = int(len(lines) * SKIP_HEAD)
    rng = random.Random(f"{seed}:{name}")
    eligible = [i for i in range(first, len(lines)) if lines[i].strip()]
    if not eligible or count <= 0:
        return []
    picked: list[int] = []
    span = (len(lines) - first) / count
    for k in range(count):
        lo, hi = first + int(k * span), first + int((k + 1) * span)
        pool = [i for i in eligible if lo <= i < hi]
        if pool:
            picked.append(rng.choice(pool))
    out = []
    for i in sorted(set(picked)):
        body = lines[i].rstrip()
        code = body.lstrip(" \t")
        out.append(Line(i, body[: len(body) - len(code)], code))
    return out


def pause_points(code: str) -> set[int]:
    """Where the person pauses in `code`: its start and after each pause character, never at its end."""
    return {0} | {i + 1 for i, ch in enumerate(code) if ch in PAUSE_AFTER and i + 1 < len(code)}


def next_word(text: str) -> int:
    """How many characters of `text` VS Code's accept-next-word takes: a word, or the non-word run up to the next
    word, cut after its first whitespace run (`\\w+` as the word definition)."""
    m = _WORD.search(text)
    until = len(text) if m is None else (m.end() if m.start() == 0 else m.start())
    ws = _SPACE.search(text)
    if ws is not None and ws.end() < until:
        until = ws.end()
    return until


def word_units(text: str) -> list[str]:
    """`text` cut into accept-next-word steps, a blank step joined to the one after it (a person does not accept
    a lone space)."""
    units: list[str] = []
    rest = text
    while rest:
        n = next_word(rest) or len(rest)
        units.append(rest[:n])
        rest = rest[n:]
    merged: list[str] = []
    carry = ""
    for u in units:
        if not u.strip():
            carry += u
            continue
        merged.append(carry + u)
        carry = ""
    if carry and merged:
        merged[-1] += carry
    return merged


def first_line(suggestion: str) -> str:
    return suggestion.split("\n", 1)[0].rstrip()


def accepted_chars(style: str, suggestion: str, rest: str) -> int:
    """Characters the person takes from `suggestion` where `rest` is what comes next in the line (0: none)."""
    line = first_line(suggestion)
    if not line.strip() or not rest:
        return 0
    if style == "whole":
        return len(line) if line == rest else 0
    n = 0
    for unit in word_units(line):
        if not rest.startswith(line[: n + len(unit)]):
            break
        n += len(unit)
    return n


def first_word_right(suggestion: str, rest: str) -> bool:
    return accepted_chars("word", suggestion, rest) > 0


# --- one replay through one server ---------------------------------------------------------------------------


@dataclass
class Pause:
    language: str
    file: str
    line: int
    at: int  # position in the line's text
    sent: str  # the text of the last didChange before this pause (the accepted text after an acceptance)
    shown: str  # the first suggestion, as the server sent it
    ms: float
    accepted: int  # characters accepted
    first_word_right: bool
    whole_right: bool
    after_accept: bool  # the pause right after an acceptance
    source: str | None = None  # the tier its record names (laya/stats)
    pause_outcome: str | None = None  # the pause tier's outcome in that record, where there is one


@dataclass
class TypedLine:
    language: str
    file: str
    line: int
    chars: int
    accepted: int
    pauses: int


@dataclass
class Session:
    pauses: list[Pause] = field(default_factory=list)
    lines: list[TypedLine] = field(default_factory=list)
    unmatched_records: int = 0  # lines whose inline records in laya/stats did not pair one to one with its pauses
    model: dict[str, Any] = field(default_factory=dict)
    pause_model: Any = None  # laya/stats' `pauseModel` at the end: the pause tier's model, or "off"/"none"/...
    start_ms: float = 0.0
    wall_s: float = 0.0


def edit(rc: ReplayClient, buf: Buffer, start: int, end: int, text: str) -> None:
    """One didChange replacing buf.text[start:end] with `text` (what an editor sends for a typed run or an
    accepted suggestion)."""
    rng = lsp.Range(start=position_at(buf.text, start), end=position_at(buf.text, end))
    buf.version += 1
    rc.client.text_document_did_change(lsp.DidChangeTextDocumentParams(
        text_document=lsp.VersionedTextDocumentIdentifier(uri=buf.uri, version=buf.version),
        content_changes=[lsp.TextDocumentContentChangePartial(range=rng, text=text)]))
    buf.text = buf.text[:start] + text + buf.text[end:]


async def type_line(rc: ReplayClient, buf: Buffer, start: int, ln: Line, style: str, language: str, name: str,
                    out: Session, echo: bool) -> list[Pause]:
    """Type `ln.code` at offset `start` of the buffer (its text there already erased) as a person of `style`."""
    code, points = ln.code, pause_points(ln.code)
    pos = sent = 0  # typed (or accepted) so far; sent to the server so far
    after_accept = False
    last_edit = ""  # the text of the last didChange sent in this line
    pauses: list[Pause] = []
    accepted_total = 0
    while pos < len(code):
        if pos in points or after_accept:
            chunk = code[sent:pos]
            if chunk:
                edit(rc, buf, start + sent, start + sent, chunk)
                sent, last_edit = pos, chunk
            buf.cursor = start + pos
            texts, ms = await asyncio.wait_for(rc.ask(buf, "inline"), ASK_TIMEOUT_S)
            shown = texts[0] if texts else ""
            rest = code[pos:]
            n = accepted_chars(style, shown, rest)
            p = Pause(language, name, ln.number + 1, pos, last_edit, shown, round(ms, 2), n,
                      first_word_right(shown, rest), accepted_chars("whole", shown, rest) > 0, after_accept)
            pauses.append(p)
            if echo:
                print(f"  {name[:28]:<28}:{ln.number + 1:<4} @{pos:<3} {ms:7.1f} ms  {code[:pos]!r} + {shown!r}"
                      + (f"  ACCEPT {n}" if n else ""), flush=True)
            if n:
                take = shown[:n]
                assert take == code[pos:pos + n], (take, code[pos:])  # only what comes next is ever accepted
                edit(rc, buf, start + pos, start + pos, take)  # the editor applies the suggestion's own text
                pos = sent = pos + n
                last_edit = take
                accepted_total += n
                after_accept = True
                continue
            after_accept = False
        pos += 1
    if sent < len(code):
        edit(rc, buf, start + sent, start + sent, code[sent:])
    out.lines.append(TypedLine(language, name, ln.number + 1, len(code), accepted_total, len(pauses)))
    return pauses


async def tiers(rc: ReplayClient, uri: str, after_id: int) -> tuple[list[dict[str, Any]], int]:
    """The inline records booked for `uri` since record `after_id` (laya/stats), and the newest record id."""
    stats = await rc.stats(recent=256)
    recent = stats.get("recent") or []
    newest = max([after_id] + [int(r.get("id") or 0) for r in recent])
    mine = [r for r in recent if int(r.get("id") or 0) > after_id and r.get("doc") == uri and r.get("kind") == "inline"]
    return sorted(mine, key=lambda r: int(r.get("id") or 0)), newest


async def person_session(files: list[tuple[str, Path]], lines: dict[Path, list[Line]], command: list[str],
                         settings: dict[str, Any], style: str, echo: bool = False) -> Session:
    """One server, one person of `style`, every picked line of every file."""
    out = Session()
    rc = ReplayClient(command, settings)
    t0 = time.perf_counter()
    await rc.start()
    try:
        scratch = Buffer("file:///tmp/laya-person-warm.py", "python", "import os\n\nprint(os.", 19, "")
        rc.open(scratch)
        await asyncio.wait_for(rc.ask(scratch, "inline"), 600)  # model load and warm-up, not measured
        out.start_ms = round((time.perf_counter() - t0) * 1000, 1)
        rc.client.text_document_did_close(lsp.DidCloseTextDocumentParams(lsp.TextDocumentIdentifier(scratch.uri)))
        stats = await rc.stats(recent=256, reset=True)
        out.model = stats.get("model") or {}
        last_id = max([0] + [int(r.get("id") or 0) for r in stats.get("recent") or []])
        t1 = time.perf_counter()
        for language, path in files:
            picked = lines.get(path) or []
            if not picked:
                continue
            original = path.read_text(encoding="utf-8").replace("\r\n", "\n")
            offsets = [0]
            for row in original.split("\n"):
                offsets.append(offsets[-1] + len(row) + 1)
            first = picked[0]
            at = offsets[first.number] + len(first.indent)
            buf = Buffer(path.resolve().as_uri(), LANGUAGES.get(path.suffix, "plaintext"),
                         original[:at] + original[at + len(first.code):], at, "")
            rc.open(buf)
            for k, ln in enumerate(picked):
                start = offsets[ln.number] + len(ln.indent)
                if k:  # erase the next line (the document is the original file again)
                    edit(rc, buf, start, start + len(ln.code), "")
                pauses = await type_line(rc, buf, start, ln, style, language, path.name, out, echo)
                assert buf.text == original, f"{path.name}:{ln.number + 1}: the document drifted from the file"
                records, newest = await tiers(rc, buf.uri, last_id)
                last_id = newest
                if len(records) == len(pauses):
                    for p, r in zip(pauses, records):
                        p.source = r.get("source")
                        pause_extra = (r.get("extra") or {}).get("pause")
                        p.pause_outcome = str(pause_extra) if pause_extra is not None else None
                else:
                    out.unmatched_records += 1
                out.pauses += pauses
            rc.client.text_document_did_close(lsp.DidCloseTextDocumentParams(lsp.TextDocumentIdentifier(buf.uri)))
        out.wall_s = round(time.perf_counter() - t1, 1)
        out.pause_model = (await rc.stats(recent=0)).get("pauseModel")
    finally:
        await rc.stop()
    return out


# --- measures ------------------------------------------------------------------------------------------------


def latency(ms: list[float]) -> dict[str, Any]:
    s = sorted(ms)
    if not s:
        return {"n": 0}
    return {"n": len(s), "p50_ms": round(statistics.median(s), 1),
            "p95_ms": round(s[min(len(s) - 1, int(0.95 * len(s)))], 1), "max_ms": round(s[-1], 1)}


def measures(pauses: list[Pause], lines: list[TypedLine]) -> dict[str, Any]:
    """The person's measures over these pauses and typed lines."""
    n = len(pauses)
    shown = [p for p in pauses if p.shown.strip()]
    accepted = [p for p in shown if p.accepted]
    wrong = [p for p in shown if not p.first_word_right]
    chars = sum(ln.chars for ln in lines)
    saved = sum(ln.accepted for ln in lines)
    sources = Counter(p.source or "unknown" for p in shown)
    return {
        "lines": len(lines), "chars": chars, "pauses": n,
        "shown_n": len(shown), "accepted_n": len(accepted), "shown_wrong_n": len(wrong),
        "accepted_chars": saved,
        "shown": round(len(shown) / n, 4) if n else 0.0,
        "accepted_of_shown": round(len(accepted) / len(shown), 4) if shown else 0.0,
        "chars_saved": round(saved / chars, 4) if chars else 0.0,
        "shown_wrong": round(len(wrong) / n, 4) if n else 0.0,
        "whole_right_of_shown": round(sum(p.whole_right for p in shown) / len(shown), 4) if shown else 0.0,
        "latency": latency([p.ms for p in pauses]),
        "shown_by_source": dict(sorted(sources.items())),
        "shown_from_pause_tier": round(sources.get("pause", 0) / len(shown), 4) if shown else 0.0,
    }


def summarize(s: Session) -> dict[str, Any]:
    langs = sorted({ln.language for ln in s.lines})
    return {"overall": measures(s.pauses, s.lines),
            "by_language": {lang: measures([p for p in s.pauses if p.language == lang],
                                           [ln for ln in s.lines if ln.language == lang]) for lang in langs},
            "unmatched_record_lines": s.unmatched_records, "pause_model": s.pause_model,
            "server_start_ms": s.start_ms, "wall_s": s.wall_s}


# --- the run -------------------------------------------------------------------------------------------------


def choose_files(languages: list[str], per_language: int) -> list[tuple[str, Path]]:
    from benchmarks.common import heldout_half

    out: list[tuple[str, Path]] = []
    for lang in languages:
        folder = HELDOUT / lang
        if not folder.is_dir():
            raise SystemExit(f"no held-out files for {lang!r} (folders: "
                             f"{', '.join(sorted(p.name for p in HELDOUT.iterdir() if p.is_dir()))})")
        out += [(lang, f) for f in heldout_half(folder, "evaluation")[:per_language]]
    return out


def merge(base: dict[str, Any], over: dict[str, Any]) -> dict[str, Any]:
    out = dict(base)
    for k, v in over.items():
        out[k] = {**out[k], **v} if isinstance(v, dict) and isinstance(out.get(k), dict) else v
    return out


def parse_configs(raw: list[str], compare: bool, base: dict[str, Any]) -> dict[str, dict[str, Any]]:
    if not raw:
        return {name: merge(base, s) for name, s in DEFAULT_COMPARE.items()} if compare else {"default": base}
    out: dict[str, dict[str, Any]] = {}
    for item in raw:
        name, sep, text = item.partition("=")
        if not sep or not name:
            raise SystemExit(f"--config wants NAME=JSON, got {item!r}")
        out[name] = merge(base, json.loads(text or "{}"))
    return out


def describe(pause_model: Any) -> str:
    if isinstance(pause_model, dict):
        return str(pause_model.get("name") or pause_model.get("path") or "on")
    return str(pause_model)


def table(results: dict[str, dict[str, Any]]) -> str:
    head = (f"{'config':<12} {'style':<6} {'language':<11} {'lines':>5} {'pauses':>6} {'shown':>6} {'acc/sh':>6} "
            f"{'saved':>6} {'wrong':>6} {'p50 ms':>7} {'p95 ms':>7}  pause-tier  tiers of shown")
    rows = [head, "-" * len(head)]
    for config, by_style in results.items():
        for style, res in by_style.items():
            for lang, m in [*res["by_language"].items(), ("overall", res["overall"])]:
                lat = m["latency"]
                rows.append(
                    f"{config:<12} {style:<6} {lang:<11} {m['lines']:>5} {m['pauses']:>6} {m['shown']:>6.1%} "
                    f"{m['accepted_of_shown']:>6.1%} {m['chars_saved']:>6.1%} {m['shown_wrong']:>6.1%} "
                    f"{lat.get('p50_ms', float('nan')):>7.1f} {lat.get('p95_ms', float('nan')):>7.1f}  "
                    f"{m['shown_from_pause_tier']:>10.1%}  "
                    + " ".join(f"{k}={v}" for k, v in m["shown_by_source"].items()))
    return "\n".join(rows)


def run(args: argparse.Namespace) -> dict[str, Any]:
    base = json.loads(args.settings)
    configs = parse_configs(args.config, args.compare, base)
    files = choose_files(args.languages, args.files_per_language)
    lines = {path: pick_lines(path.read_text(encoding="utf-8").replace("\r\n", "\n"), args.lines_per_file, args.seed,
                              path.name) for _, path in files}
    extra = ["--pause-model", args.pause_model] if args.pause_model else []
    command = server_command(args.model, extra)
    load0 = [round(x, 2) for x in os.getloadavg()]
    t0 = time.perf_counter()
    results: dict[str, dict[str, Any]] = {name: {} for name in configs}
    traces: dict[str, dict[str, Any]] = {name: {} for name in configs}
    model: dict[str, Any] = {}
    for style in args.styles:  # the configurations of one style run back to back: peers under the same load
        for name, settings in configs.items():
            print(f"{name} / {style}: {sum(len(v) for v in lines.values())} lines in {len(files)} files ...",
                  flush=True)
            s = asyncio.run(person_session(files, lines, command, settings, style, args.echo))
            model = model or s.model
            results[name][style] = summarize(s)
            if args.trace:
                traces[name][style] = {"pauses": [p.__dict__ for p in s.pauses],
                                       "lines": [ln.__dict__ for ln in s.lines]}
            o = results[name][style]["overall"]
            print(f"  {o['pauses']} pauses, shown {o['shown']:.1%}, accepted of shown {o['accepted_of_shown']:.1%}, "
                  f"chars saved {o['chars_saved']:.1%}, p50 {o['latency'].get('p50_ms')} ms ({s.wall_s} s; pause "
                  f"tier: {describe(s.pause_model)})",
                  flush=True)
    payload: dict[str, Any] = {
        "args": {k: v for k, v in vars(args).items() if k != "out"},
        "configs": configs, "server_command": ["laya-lsp", *command[3:]],
        "model": {k: model.get(k) for k in ("name", "params", "fim", "layout") if k in model},
        "files": {lang: [p.name for lg, p in files if lg == lang] for lang in args.languages},
        "lines": {p.name: [ln.number + 1 for ln in v] for p, v in lines.items()},
        "results": results,
        "minutes": round((time.perf_counter() - t0) / 60, 2),
        "load": {"before": load0, "after": [round(x, 2) for x in os.getloadavg()]},
    }
    if args.trace:
        payload["trace"] = traces
    return payload


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(description=(__doc__ or "").split("\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--languages", nargs="+", default=["python", "typescript"],
                   help="folders of benchmarks/data/heldout-files (default python typescript)")
    p.add_argument("--files-per-language", type=int, default=6, help="files of each language's evaluation half")
    p.add_argument("--lines-per-file", type=int, default=12)
    p.add_argument("--seed", type=int, default=0, help="which lines (fixed)")
    p.add_argument("--styles", nargs="+", choices=STYLES, default=list(STYLES))
    p.add_argument("--settings", default="{}", help="laya settings JSON (initializationOptions) for every server")
    p.add_argument("--model", help="model directory for the server (default: the embedded model)")
    p.add_argument("--pause-model", help="the pause tier's model directory, or 'off' (server --pause-model)")
    p.add_argument("--compare", action="store_true",
                   help="several configurations side by side (--config; default default={} and cut-off)")
    p.add_argument("--config", action="append", default=[], metavar="NAME=JSON",
                   help="a configuration: laya settings merged over --settings (repeat)")
    p.add_argument("--quick", action="store_true", help="smoke run: 2 files a language, 4 lines each")
    p.add_argument("--trace", action="store_true", help="keep every pause in the JSON")
    p.add_argument("--echo", action="store_true", help="print every pause")
    p.add_argument("--out", type=Path, help="write the JSON here instead of benchmarks/results/")
    return p


def main(argv: list[str] | None = None) -> int:
    args = parser().parse_args(argv)
    if args.quick:
        args.files_per_language = min(args.files_per_language, 2)
        args.lines_per_file = min(args.lines_per_file, 4)
    payload = run(args)
    print()
    print(table(payload["results"]))
    if args.out:
        from benchmarks.common import machine

        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(json.dumps({"date": time.strftime("%Y-%m-%dT%H:%M:%S"), "machine": machine(), **payload},
                                       indent=1))
        print("saved", args.out)
    else:
        from benchmarks.common import save

        print("saved", save("person-replay" + ("-quick" if args.quick else ""), payload))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

"""Code actions, the model half: what `codeAction/resolve` computes, on the inference worker.

Each function takes the action's `data` (from `actions.list_offers`) and the document as it was at that
version, and returns the edit (or none). Generation reuses the document's KV cache through the same FIM
prompt layout as completions; syntax-fix ranking scores whole candidate windows by likelihood.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field, replace
from difflib import SequenceMatcher
from typing import Any

from ..config import Settings
from ..engine import Candidate, ModelWork
from ..lines import cut_lines
from ..syntax import SyntaxDocument, plan_completion, postprocess_detailed
from .actions import (
    ADD_DOCSTRING,
    COMPLETE_BLOCK,
    FIX_SYNTAX,
    IMPLEMENT_COMMENT,
    Edit,
    FixCandidate,
    indent_of,
    line_bounds,
    rule_fixes,
)
from .decide import TAIL_CHARS_PER_TOKEN, load_calibration, softmax

BLOCK_TOKENS = 160  # token cap for a generated block (an explicit action may be longer than a completion)
DOC_TOKENS = 64
FIX_WINDOW_LINES = 2  # lines after the error line that each fix is scored together with
REWRITE_SIMILARITY = 0.7  # the model's rewrite of an error line must keep this much of it (difflib ratio)


@dataclass
class Resolution:
    edit: Edit | None
    title: str | None = None
    confidence: float = 0.0
    prompt_prefix: str = ""  # for a fallback model: the text before the insertion point
    ranked: list[FixCandidate] = field(default_factory=list)
    max_lines: int = 1


def confidence(c: Candidate) -> float:
    """Geometric-mean token probability: the model's per-token certainty about this text."""
    return math.exp(c.logprob / c.tokens) if c.tokens else 0.0


def generate(model: ModelWork, text: str, offset: int, s: Settings, k: int, max_tokens: int,
             max_lines: int) -> list[Candidate]:
    """k greedy branches at `offset` of `text` (FIM, same layout and context budget as completions); a
    completion's prompt in the document cache survives the action."""
    return model.generate(model.fim_prompt(text, offset, s.context_tokens), k, max_tokens, max_lines)


def _block(model: ModelWork, doc: SyntaxDocument, offset: int, s: Settings) -> Candidate | None:
    """The best post-processed multi-line candidate at `offset` (raw, cut to lines, when postprocess is off)."""
    gens = generate(model, doc.text, offset, s, min(3, s.candidates), BLOCK_TOKENS, s.inline_max_lines)
    if not s.postprocess:
        return raw_block(gens, s.inline_max_lines)
    plan = plan_completion(doc, offset, s.syntax())
    plan = replace(plan, complete=True, multiline=s.inline_max_lines > 1, max_lines=s.inline_max_lines)
    detailed = postprocess_detailed(doc, offset, [g.text for g in gens], plan, s.syntax())
    for c in detailed.candidates:
        if c.text.strip():
            src = gens[c.source_index]
            return replace(src, text=c.text)
    return None


def raw_block(gens: list[Candidate], max_lines: int) -> Candidate | None:
    """The first candidate with visible text, cut to `max_lines` lines by the completions' rule (lines.py: line
    breaks before its first visible character do not count)."""
    for g in gens:
        cut = cut_lines(g.text, max_lines).rstrip()
        if cut.strip():
            return replace(g, text=cut)
    return None


def complete_block(model: ModelWork, doc: SyntaxDocument, data: dict[str, Any], s: Settings) -> Resolution:
    at = int(data["at"])
    g = _block(model, doc, at, s)
    if g is None:
        return Resolution(None, prompt_prefix=doc.text[:at], max_lines=s.inline_max_lines)
    return Resolution(Edit(at, at, g.text), None, confidence(g), doc.text[:at], max_lines=s.inline_max_lines)


def implement_comment(model: ModelWork, doc: SyntaxDocument, data: dict[str, Any], s: Settings,
                      uri: str) -> Resolution:
    """Code for the comment, on new lines below it at the comment's indentation."""
    at = int(data["at"])
    ls, _ = line_bounds(doc.text, at)
    indent = indent_of(doc.text[ls:at])
    head = "\n" + indent
    virtual = SyntaxDocument(doc.text[:at] + head + doc.text[at:], doc.language or "", uri)
    g = _block(model, virtual, at + len(head), s)
    prompt = doc.text[:at] + head
    if g is None:
        return Resolution(None, prompt_prefix=prompt, max_lines=s.inline_max_lines)
    return Resolution(Edit(at, at, head + g.text.rstrip()), None, confidence(g), prompt,
                      max_lines=s.inline_max_lines)


def _doc_lines(raw: str, end_marker: str) -> list[str]:
    """Up to three clean lines of prose: printable text only, nothing that could end the comment early."""
    text = raw.split(end_marker, 1)[0]
    text = "".join(c for c in text if c == "\n" or (c.isprintable() and c != "\ufffd"))
    text = text.replace('"""', "").replace("*/", "").replace("\\", "")
    lines = [ln.strip().lstrip("*/").strip().strip('"') for ln in text.split("\n")]
    return [ln for ln in lines if ln][:3]


def add_docstring(model: ModelWork, doc: SyntaxDocument, data: dict[str, Any], s: Settings) -> Resolution:
    """A docstring (Python) or doc comment (/** */, ///, //) written by the model for the function."""
    at, indent, style = int(data["insertAt"]), str(data["indent"]), str(data["style"])
    text = doc.text
    if style == "python":
        opener = "\n" + indent + '"""'
        end_marker = '"""'
    elif style == "rust":
        opener, end_marker = indent + "/// ", "\n\n"
    elif style == "go":
        opener, end_marker = indent + "// " + str(data.get("name") or "") + " ", "\n\n"
    else:
        opener, end_marker = indent + "/**\n" + indent + " * ", "*/"
    gens = generate(model, text[:at] + opener + text[at:], at + len(opener), s, 2, DOC_TOKENS, 3)
    best = next(((g, ls) for g in gens if (ls := _doc_lines(g.text, end_marker))), None)
    if best is None:
        return Resolution(None)
    g, lines = best
    if style == "python":
        body = lines[0] if len(lines) == 1 else "\n".join([lines[0], ""] + [indent + x for x in lines[1:]] + [indent])
        new = opener + body + '"""'
    elif style in ("rust", "go"):
        marker = "/// " if style == "rust" else "// "
        if style == "go" and data.get("name"):
            lines[0] = f"{data['name']} {lines[0]}"
        new = "".join(indent + marker + x + "\n" for x in lines)
    else:
        new = indent + "/**\n" + "".join(indent + " * " + x + "\n" for x in lines) + indent + " */\n"
    return Resolution(Edit(at, at, new), None, confidence(g))


def _error_count(text: str, doc: SyntaxDocument, uri: str) -> int:
    from ..syntax.validate import error_spans

    fixed = SyntaxDocument(text, doc.language or "", uri)
    return len(error_spans(fixed.tree.root_node)) if fixed.tree is not None else 0


def rank_fixes(model: ModelWork, doc: SyntaxDocument, line_no: int, s: Settings, uri: str) -> list[FixCandidate]:
    """Candidate fixes for the line (rules + the model's own FIM rewrites of the line) that remove syntax
    errors, with a confidence: softmax over the likelihood of each fixed window and of the unchanged one."""
    text = doc.text
    cands = rule_fixes(doc, line_no)
    starts = [0] + [i + 1 for i, c in enumerate(text) if c == "\n"]
    ls, le = line_bounds(text, starts[line_no])
    content_start = ls + len(indent_of(text[ls:le]))
    old = text[content_start:le]
    for g in generate(model, text[:content_start] + text[le:], content_start, s, 3, 48, 1):
        new = g.text.split("\n", 1)[0].rstrip()
        # A fix is a small edit of the line that keeps its words (names, numbers, keywords) in order; it may
        # change punctuation and add words (a missing `in`), but a rewrite into other code is not a fix.
        if (new.strip() and new != old and SequenceMatcher(None, old, new).ratio() >= REWRITE_SIMILARITY
                and _keeps_words(old, new)):
            cands.append(FixCandidate(f"rewrite the line as '{new.strip()[:40]}'", Edit(content_start, le, new)))
    before = _error_count(text, doc, uri)
    valid = [c for c in cands
             if _error_count(text[: c.edit.start] + c.edit.text + text[c.edit.end :], doc, uri) < before]
    if not valid:
        return []
    win_end = le
    for _ in range(FIX_WINDOW_LINES):
        nxt = text.find("\n", win_end + 1)
        win_end = len(text) if nxt < 0 else nxt
    windows = [text[ls:win_end]]
    for c in valid:
        windows.append(text[ls : c.edit.start] + c.edit.text + text[c.edit.end : win_end])
    prompt = model.encode(text[max(0, ls - s.decision_tokens * TAIL_CHARS_PER_TOKEN) : ls])[-s.decision_tokens :]
    prompt = prompt or [model.eos_id or 0]
    res = model.score(prompt, [model.encode(w) for w in windows], in_document=False)
    cal = load_calibration(model.name, model.path)
    probs = softmax([x.logprob / max(cal.temperature, 1e-3) for x in res.scores])
    for c, p in zip(valid, probs[1:]):
        c.confidence = p
    return sorted(valid, key=lambda c: -c.confidence)


def _keeps_words(old: str, new: str) -> bool:
    """True when the words of `old` appear in `new` in the same order (a subsequence)."""
    words = iter(re.findall(r"\w+", new))
    return all(any(w == x for x in words) for w in re.findall(r"\w+", old))


def fix_syntax(model: ModelWork, doc: SyntaxDocument, data: dict[str, Any], s: Settings, uri: str) -> Resolution:
    ranked = rank_fixes(model, doc, int(data["line"]), s, uri)
    best = ranked[0] if ranked else None
    if best is None or best.confidence < s.decision_threshold:
        return Resolution(None, ranked=ranked, confidence=best.confidence if best else 0.0)
    return Resolution(best.edit, f"laya: {best.label} ({best.confidence:.0%})", best.confidence, ranked=ranked)


def resolve_with(model: ModelWork, doc: SyntaxDocument, data: dict[str, Any], s: Settings, uri: str) -> Resolution:
    """The edit for a code action's `data` (on the inference worker)."""
    kind = data.get("laya")
    if kind == COMPLETE_BLOCK:
        return complete_block(model, doc, data, s)
    if kind == IMPLEMENT_COMMENT:
        return implement_comment(model, doc, data, s, uri)
    if kind == ADD_DOCSTRING:
        return add_docstring(model, doc, data, s)
    if kind == FIX_SYNTAX:
        return fix_syntax(model, doc, data, s, uri)
    raise ValueError(f"unknown laya code action {kind!r}")

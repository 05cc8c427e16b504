"""Turn raw model candidates into completions: clean each with the text rules, check its syntax, rerank.

Order per candidate: text rules (single line, indentation, lines in another language, loops (impossible.py),
one statement after a decorator, loops to the end of the budget, block
end, line limit, repeats of what follows, Python indentation, auto-closed tails, a comment that would swallow
code, trim, line breaks; see `_clean`) → drop blanks and duplicates → syntax check (lexical checks, then a parse of a
small window) → if rejected, fixes (balance brackets, stop at the outer closer, drop trailing lines) until one passes.
Candidates valid as-is rank above fixed ones; model order breaks ties. Where every candidate was rejected,
the longest complete piece of one that parses is offered rather than nothing (`_rescue`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from ..lines import cut_lines, cut_single_line
from . import impossible, lexical, rules
from .answer_brackets import answer_brackets
from .brackets import scan_brackets
from .context import CursorContext, cursor_context
from .document import SyntaxDocument
from .plan import CompletionPlan, SyntaxSettings
from .validate import CandidateChecker, Verdict

MAX_CHECKS_PER_REQUEST = 12  # parses per request, fixes included: bounds the latency
MAX_FIXES_PER_CANDIDATE = 2
MAX_RESCUE_CHECKS = 6  # more parses, only when every candidate was rejected: the last-resort repair
MIN_RESCUE_SHARE = 0.5  # a piece shorter than half the candidate is no longer the model's answer
MAX_CANDIDATE_CHARS = 8000  # far beyond any token budget; bounds the work on pathological model output


@dataclass
class Candidate:
    """A cleaned completion: `text` is inserted at the cursor offset."""

    text: str
    source_index: int  # position of the raw candidate in the model's list
    rank: int = 0  # 0 = best, after reranking
    fixed: bool = False  # a fix (not just a cut) was needed to make it valid
    valid: bool | None = None  # passed the syntax check; None where no grammar could check it
    errors_after: int | None = None  # error nodes in the checked window after insertion
    rules: list[str] = field(default_factory=list)  # rules that changed the text, in order


@dataclass
class Rejection:
    """A raw candidate that produced no completion, and why (`blank`, `duplicate`, `syntax_error`)."""

    raw: str
    source_index: int
    reason: str
    rules: list[str] = field(default_factory=list)
    text: str = ""  # what the text rules made of it (what the syntax check rejected)


@dataclass
class PostprocessResult:
    """Accepted candidates (best first) and the rejected ones, for stats and benchmarks."""

    candidates: list[Candidate]
    rejected: list[Rejection]


def _clean(raw: str, ctx: CursorContext, plan: CompletionPlan, doc: SyntaxDocument) -> tuple[str, list[str]]:
    """Apply the text rules in order, recording the ones that changed something."""
    spec = doc.spec
    applied: list[str] = []
    text = raw.replace("\r\n", "\n")
    # Lines past the plan's limit never survive; a few more are kept so repeats of what follows are recognised.
    closes = answer_brackets(doc, ctx.offset).outer_close  # brackets in strings and comments close nothing
    text = cut_lines(text[:MAX_CANDIDATE_CHARS], (plan.max_lines if plan.multiline else 1) + 5, closes)
    steps: list[tuple[str, Callable[[str], str]]] = []
    if not plan.multiline:
        steps.append(("single_line", cut_single_line))
    steps += [
        ("indent", lambda t: rules.fix_first_line_indent(t, ctx)),
        ("indent_chars", lambda t: rules.normalize_indent_chars(t, ctx)),
        ("foreign_language", lambda t: impossible.cut_foreign_lines(t, ctx, spec)),
    ]
    if plan.one_statement:
        steps.append(("statement_end", lambda t: rules.cut_after_statement(t, ctx, spec)))
    if plan.multiline:
        steps += [
            ("repetition", rules.cut_repetition),
            ("block_end", lambda t: rules.cut_at_block_end(t, ctx, spec)),
            ("max_lines", lambda t: cut_lines(t, plan.max_lines, closes)),
        ]
    steps += [
        ("loop", impossible.cut_loops),
        ("repeats_next_lines", lambda t: rules.cut_repeated_next_lines(t, ctx, spec)),
        ("indent_levels", lambda t: lexical.cut_at_inconsistent_indent(t, ctx, spec)),
        ("auto_closed", lambda t: rules.remove_suffix_overlap(t, ctx, spec)),
    ]
    if not plan.before_code:  # above code, the candidate gets a line break of its own: its comment ends there
        steps.append(("comment_before_code", lambda t: rules.drop_comment_before_code(t, ctx, spec)))
    steps += [
        ("trim", lambda t: rules.trim_trailing(t, ctx)),
        ("newline_before_closer", lambda t: rules.newline_before_closer(t, ctx)),
    ]
    if plan.before_code:
        steps.append(("line_break_before_code",
                      lambda t: t.lstrip("\n").rstrip() + "\n" + ctx.line_prefix if t.strip() else t))
    for name, rule in steps:
        changed = rule(text)
        if changed != text:
            applied.append(name)
            text = changed
    return text, applied


def _fixes(full: str, ctx: CursorContext, doc: SyntaxDocument) -> list[tuple[str, str]]:
    """Candidate repairs in order of preference, each as (rule name, repaired text).

    Trailing whitespace (the line break put before following code, a CRLF) stays where it is.
    """
    spec = doc.spec
    text = full.rstrip()
    tail = full[len(text):]
    scan = scan_brackets(text, spec, ctx.in_string)
    out = []
    if scan.unclosed and not scan.outer_closers:  # closing cannot repair a stray closer
        out.append(("balance_brackets", rules.balance_brackets(text, spec)))
    if scan.outer_closers:
        out.append(("cut_at_outer_closer", rules.cut_at_outer_closer(text, ctx, spec)))
    shorter = text
    for _ in range(3):
        shorter = rules.drop_last_line(shorter)
        if not shorter.strip():
            break
        out.append(("drop_last_line", shorter))
        out.append(("drop_last_line+balance_brackets", rules.balance_brackets(shorter, spec)))
    seen = {text}
    unique = []
    for name, fixed in out:
        if any(c.isalnum() for c in fixed) and fixed not in seen:  # `+` alone is not worth a parse
            seen.add(fixed)
            unique.append((name, fixed + tail))
    return unique[:MAX_FIXES_PER_CANDIDATE]


def _rescue(checker: CandidateChecker, rejected: list[Rejection], ctx: CursorContext,
            doc: SyntaxDocument) -> Candidate | None:
    """Every candidate was rejected: the longest piece of one, in model order, that keeps the file parseable
    (cut back to the end of a bracketed expression, string or line of it, its own brackets closed, at least
    half of it kept), so that a rejection blanks the answer only where no such piece of it would do."""
    budget = checker.checks + MAX_RESCUE_CHECKS
    for rejection in rejected:
        if rejection.reason != "syntax_error" or ctx.in_string is not None:
            continue
        body = rejection.text.rstrip()
        tail = rejection.text[len(body):]  # the line break put before following code stays
        for piece in rules.complete_prefixes(body, doc.spec):
            if len(piece.strip()) < MIN_RESCUE_SHARE * len(body.strip()):
                break
            if checker.checks >= budget:
                return None
            verdict = _check(checker, piece + tail, ctx, doc)
            if verdict.accepted:
                return Candidate(piece + tail, rejection.source_index, fixed=True, valid=True,
                                 errors_after=verdict.errors_after, rules=[*rejection.rules, "rescue_prefix"])
    return None


def _check(checker: CandidateChecker, text: str, ctx: CursorContext, doc: SyntaxDocument) -> Verdict:
    """The syntax check, after the lexical ones tree-sitter-python does not make (fixes need them too)."""
    if doc.spec.indentation_syntax and (lexical.python_line_left_open(text, ctx, doc.spec)
                                        or lexical.python_bad_escape(text, ctx, doc.spec)
                                        or lexical.python_leading_zero(text, ctx, doc.spec)
                                        or lexical.cut_at_inconsistent_indent(text, ctx, doc.spec) != text):
        return Verdict(False, -1, -1)
    if lexical.last_line_left_open(text, ctx, doc.spec) or lexical.breaks_one_line_string(text, ctx, doc.spec):
        return Verdict(False, -1, -1)
    return checker.check(text)


def postprocess_detailed(doc: SyntaxDocument, offset: int, candidates: list[str], plan: CompletionPlan,
                         settings: SyntaxSettings | None = None) -> PostprocessResult:
    """Clean, check and rerank raw candidates for insertion at `offset`; also report the rejected ones."""
    settings = settings or SyntaxSettings()
    ctx = cursor_context(doc, offset)
    checker = CandidateChecker(doc, offset) if (doc.tree is not None and settings.reject_new_errors) else None
    accepted: list[Candidate] = []
    rejected: list[Rejection] = []
    seen: set[str] = set()
    for index, raw in enumerate(candidates):
        text, applied = _clean(raw, ctx, plan, doc)
        if ctx.eol != "\n" and "\n" in text:
            text = text.replace("\n", ctx.eol)
            applied.append("line_endings")
        if not text.strip():
            rejected.append(Rejection(raw, index, "blank", applied))
            continue
        if text in seen:
            rejected.append(Rejection(raw, index, "duplicate", applied))
            continue
        candidate = Candidate(text, index, rules=applied)
        if checker is None:
            if doc.tree is None:
                balanced = rules.balance_brackets(text, doc.spec)
                if balanced != text:
                    candidate.text, candidate.fixed = balanced, True
                    applied.append("balance_brackets")
        else:
            verdict = _check(checker, text, ctx, doc)
            if not verdict.accepted:
                for name, fixed_text in _fixes(text, ctx, doc):
                    if checker.checks >= MAX_CHECKS_PER_REQUEST:
                        break
                    fixed_verdict = _check(checker, fixed_text, ctx, doc)
                    if fixed_verdict.accepted:
                        verdict = fixed_verdict
                        candidate.text, candidate.fixed = fixed_text, True
                        applied.append(name)
                        break
            if not verdict.accepted:
                rejected.append(Rejection(raw, index, "syntax_error", applied, text))
                continue
            candidate.valid, candidate.errors_after = True, verdict.errors_after
        if candidate.text in seen:
            rejected.append(Rejection(raw, index, "duplicate", applied))
            continue
        seen.add(candidate.text)
        seen.add(text)
        accepted.append(candidate)
    if not accepted and checker is not None:
        rescued = _rescue(checker, rejected, ctx, doc)
        if rescued is not None:
            rejected = [r for r in rejected if r.source_index != rescued.source_index]
            accepted.append(rescued)
    accepted.sort(key=lambda c: (c.fixed, c.source_index))
    for rank, candidate in enumerate(accepted):
        candidate.rank = rank
    return PostprocessResult(accepted, rejected)


def postprocess(doc: SyntaxDocument, offset: int, candidates: list[str], plan: CompletionPlan,
                settings: SyntaxSettings | None = None) -> list[Candidate]:
    """Clean, check and rerank raw candidates for insertion at `offset` (best first)."""
    return postprocess_detailed(doc, offset, candidates, plan, settings).candidates

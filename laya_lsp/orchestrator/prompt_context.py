"""What goes before a document in the prompt: chunks of other files and an outline of the document itself.

Both go in the model's repository format (`<|file_sep|>path` + text, before the document), where the engine's
per-buffer cache keeps them from one keystroke to the next. The engine's prefix window holds only the last
part of the text above the cursor; the outline (syntax.outline) lists what the file defines above that window
(imports, signatures, class members, constants), so the model sees the names a line needs.

Stable while typing: the outline is made from the text above a cut that moves with the cursor in steps of a
quarter of the window, so it changes only when the cursor crosses a step or the outlined text itself changes,
and the prompt head that holds it stays cached.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..config import Settings
from ..crossfile import ChunkRing
from ..syntax import SyntaxDocument
from ..syntax.outline import outline

# Token budgets become character budgets before tokenizing (the engine enforces the token budget exactly).
# Measured with the embedded model's tokenizer on the held-out files (benchmarks/data/deep-lines.jsonl):
CHARS_PER_TOKEN = 3.25  # code
OUTLINE_CHARS_PER_TOKEN = 2.9  # outlines: more punctuation and indentation per name
WINDOW_LEAST_SHARE = 0.75  # the engine's prefix window holds at least this share of its budget (it refills to it)
CUT_STEPS = 4  # the outline's cut moves in steps of this fraction of the window
FORMAT_TOKENS = 24  # the repository format's own tokens around the chunks (repo name, file separators, paths)


@dataclass
class _Outline:
    """A document's outline and what it was made from."""

    above: str  # the outlined text (the document up to the cut)
    language: str | None
    max_chars: int
    text: str


def outline_cut(text: str, offset: int, window_chars: int) -> int:
    """Where the outlined text ends: a line start about `WINDOW_LEAST_SHARE * window_chars` above the
    cursor, on a grid of steps so that it stays put while the cursor moves within a step (0: no outline)."""
    target = offset - int(WINDOW_LEAST_SHARE * window_chars)
    step = max(1, window_chars // CUT_STEPS)
    if target < step:
        return 0
    grid = target - target % step
    return text.rfind("\n", 0, grid) + 1


class PromptContext:
    """The cross-file chunk ring and each document's outline; `chunks` gives what goes before a prompt."""

    def __init__(self) -> None:
        self.ring = ChunkRing()
        self._outlines: dict[str, _Outline] = {}

    def forget(self, doc_id: str) -> None:
        """A document closed: drop its ring snapshot and its outline."""
        self.ring.forget_snapshot(doc_id)
        self._outlines.pop(doc_id, None)

    def chunks(self, doc_id: str, doc: SyntaxDocument, offset: int, s: Settings) -> list[tuple[str, str]]:
        """(path, text) chunks for a prompt at `offset`: other files' chunks, then this document's outline."""
        others = self.ring.chunks_for(doc_id, doc.text, int(s.cross_file_tokens * CHARS_PER_TOKEN)) \
            if s.cross_file_tokens > 0 else []
        if s.outline_tokens <= 0:
            return others
        engine = s.engine()
        suffix_tokens = min(int(s.context_tokens * engine.suffix_share), (len(doc.text) - offset) / CHARS_PER_TOKEN)
        other_tokens = sum(len(text) for _, text in others) / CHARS_PER_TOKEN
        # The engine gives the chunks at most half the context and leaves out a chunk that does not fit.
        outline_tokens = min(s.outline_tokens, s.context_tokens // 2 - other_tokens - FORMAT_TOKENS)
        window_tokens = s.context_tokens - suffix_tokens - other_tokens - outline_tokens
        cut = outline_cut(doc.text, offset, int(window_tokens * CHARS_PER_TOKEN))
        text = self.outline(doc_id, doc, cut, int(outline_tokens * OUTLINE_CHARS_PER_TOKEN))
        return others + [(doc_id, text)] if text else others

    def outline(self, doc_id: str, doc: SyntaxDocument, cut: int, max_chars: int) -> str:
        """The outline of `doc.text[:cut]`, remade only when that text (or the language or budget) changed."""
        if cut <= 0:
            return ""
        known = self._outlines.get(doc_id)
        if known is not None and len(known.above) == cut and known.language == doc.language \
                and known.max_chars == max_chars and doc.text.startswith(known.above):
            return known.text
        above = doc.text[:cut]
        made = _Outline(above, doc.language, max_chars, outline(above, doc.language, max_chars))
        self._outlines[doc_id] = made
        return made.text

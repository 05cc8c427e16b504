"""Fill-in-the-middle prompt formats, detected from a model's tokenizer, and cache-friendly prompt layouts.

Layouts (token level):
  PSM  <pre> P <suf> S <mid>            typing at the cursor changes P, so S after it must be recomputed.
  SPM  <pre> <suf> S <mid> P            (StarCoder's variant: P and the middle are contiguous) typing only
                                         appends to the end of the prompt, so the cache keeps everything else.
  prefix-only  P                         for models with no FIM tokens.
Each family's cache behaviour is documented in README ("Prompt layout per FIM family").
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, TypeVar

from .cuts import CutRule
from .tokenizer import Tokenizer


@dataclass(frozen=True)
class FimFormat:
    """One model family's FIM tokens (as strings) and which layouts the model was trained on."""

    name: str
    prefix: str | None = None
    suffix: str | None = None
    middle: str | None = None
    layouts: tuple[str, ...] = ("psm",)
    stop: tuple[str, ...] = ()
    repo_name: str | None = None
    file_sep: str | None = None
    # Codestral puts the suffix first natively: [SUFFIX] S [PREFIX] P.
    suffix_first_native: bool = False

    @property
    def has_fim(self) -> bool:
        return self.prefix is not None

    @property
    def preferred_layout(self) -> str:
        if not self.has_fim:
            return "prefix"
        if self.suffix_first_native:
            return "native-spm"
        return "spm" if "spm" in self.layouts else "psm"


# Order matters: the first family whose tokens are all in the vocabulary wins.
KNOWN_FORMATS: tuple[FimFormat, ...] = (
    FimFormat(
        "qwen",
        "<|fim_prefix|>",
        "<|fim_suffix|>",
        "<|fim_middle|>",
        stop=("<|endoftext|>", "<|fim_pad|>", "<|file_sep|>", "<|repo_name|>", "<|im_end|>"),
        repo_name="<|repo_name|>",
        file_sep="<|file_sep|>",
    ),
    FimFormat(
        "starcoder",
        "<fim_prefix>",
        "<fim_suffix>",
        "<fim_middle>",
        layouts=("psm", "spm"),
        stop=("<|endoftext|>", "<fim_pad>", "<file_sep>", "<filename>"),
        repo_name="<reponame>",
        file_sep="<file_sep>",
    ),
    FimFormat(
        "santacoder",
        "<fim-prefix>",
        "<fim-suffix>",
        "<fim-middle>",
        layouts=("psm", "spm"),
        stop=("<|endoftext|>", "<fim-pad>"),
    ),
    FimFormat("codellama", "▁<PRE>", "▁<SUF>", "▁<MID>", layouts=("psm", "spm"), stop=("▁<EOT>", "</s>")),
    FimFormat("codellama", "<PRE>", "<SUF>", "<MID>", layouts=("psm", "spm"), stop=("<EOT>", "</s>")),
    FimFormat(
        "deepseek-coder",
        "<｜fim▁begin｜>",
        "<｜fim▁hole｜>",
        "<｜fim▁end｜>",
        stop=("<｜end▁of▁sentence｜>", "<|EOT|>"),
    ),
    FimFormat("codestral", "[PREFIX]", "[SUFFIX]", "", stop=("</s>",), suffix_first_native=True),
)

PREFIX_ONLY = FimFormat("prefix-only", stop=("<|endoftext|>", "</s>"))


def _token_id(tokenizer: Tokenizer, token: str) -> int | None:
    tid = tokenizer.convert_tokens_to_ids(token)
    unk = tokenizer.unk_token_id
    return None if (unk is not None and tid == unk and token != tokenizer.unk_token) else tid


def detect_fim(tokenizer: Tokenizer, config: dict[str, Any] | None = None) -> FimFormat:
    """Pick the FIM format whose special tokens the tokenizer has; `config["laya"]` may add trained layouts."""
    laya = (config or {}).get("laya") or {}
    for fmt in KNOWN_FORMATS:
        needed = [t for t in (fmt.prefix, fmt.suffix, fmt.middle) if t]
        if all(_token_id(tokenizer, t) is not None for t in needed):
            layouts = tuple(laya.get("fim_layouts", fmt.layouts)) if laya.get("fim_format") == fmt.name else fmt.layouts
            return FimFormat(**{**fmt.__dict__, "layouts": layouts})
    return PREFIX_ONLY


def _short(uri_or_path: str) -> str:
    """The last two path components of a file URI or path, as the model sees file names."""
    path = uri_or_path.split("://", 1)[-1]
    return "/".join(path.rstrip("/").split("/")[-2:])


def _file_text(path: str, text: str) -> str:
    """One file's chunk as repository-level prompts hold it, after its separator: its name, then its text."""
    return f"{_short(path)}\n{text.rstrip()}\n"


@dataclass
class PromptParts:
    """A prompt split so the per-document cache can reuse it: `head` is stable while typing, `tail` grows."""

    ids: list[int]
    prefix_start: int  # token index where the prefix text (P) starts
    layout: str
    # How many prefix characters were dropped on the left (for reporting).
    context_chars: int = 0
    extra: dict[str, int] = field(default_factory=dict)


class PromptBuilder:
    """Builds FIM token prompts within a token budget for one tokenizer and format."""

    def __init__(self, tokenizer: Tokenizer, fmt: FimFormat, bos_id: int | None = None) -> None:
        self.tokenizer = tokenizer
        self.fmt = fmt
        self.bos_id = bos_id
        self._ids = {
            t: _token_id(tokenizer, t)
            for t in (fmt.prefix, fmt.suffix, fmt.middle, fmt.repo_name, fmt.file_sep)
            if t
        }
        self.stop_ids = {i for t in fmt.stop if (i := _token_id(tokenizer, t)) is not None}
        self._memo: dict[str, list[int]] = {}

    def encode(self, text: str) -> list[int]:
        return self.tokenizer.encode(text) if text else []

    @property
    def cut_rule(self) -> CutRule | None:
        """Where texts may be cut for incremental encoding (None: encode them whole)."""
        return self.tokenizer.cut_rule

    def encode_cached(self, text: str) -> list[int]:
        """Encode text that recurs across requests (cross-file chunks) once."""
        ids = self._memo.get(text)
        if ids is None:
            if len(self._memo) > 512:
                self._memo.clear()
            ids = self._memo[text] = self.encode(text)
        return ids

    @property
    def repo_level(self) -> bool:
        return bool(self.fmt.file_sep and self._ids.get(self.fmt.file_sep) is not None)

    def repo_context(self, chunks: list[tuple[str, str]], current_path: str, budget: int) -> list[int]:
        """Other files' chunks in the model's repository-level format, then the current file's header.

        Chunks keep their given order (stable across keystrokes, so this head stays cached); chunks past the
        token budget are left out. Formats without repository tokens get no cross-file context.
        """
        if not self.repo_level or not chunks or budget <= 0:
            return []
        sep = self.special(self.fmt.file_sep)
        head = self.special(self.fmt.repo_name) + self.encode_cached("workspace\n")
        tail = sep + self.encode_cached(f"{_short(current_path)}\n")
        out: list[int] = []
        for path, text in chunks:
            piece = sep + self.encode_cached(_file_text(path, text))
            if len(head) + len(out) + len(piece) + len(tail) > budget:
                break
            out += piece
        return head + out + tail if out else []

    @property
    def frame_tokens(self) -> int:
        """Tokens `build` adds besides the prefix, suffix and context: bos and the FIM markers (budgets leave
        room for them)."""
        fmt = self.fmt
        return (self.bos_id is not None) + sum(len(self.special(t)) for t in (fmt.prefix, fmt.suffix, fmt.middle))

    def special(self, token: str | None) -> list[int]:
        if not token:
            return []
        tid = self._ids.get(token)
        return [tid] if tid is not None else []

    def build(
        self,
        prefix_ids: list[int],
        suffix_ids: list[int],
        context_ids: list[int] | None = None,
        layout: str | None = None,
    ) -> PromptParts:
        """Assemble token ids. `context_ids` (e.g. other files) go first so they stay cacheable."""
        fmt = self.fmt
        layout = layout or fmt.preferred_layout
        head: list[int] = [self.bos_id] if self.bos_id is not None else []
        head += context_ids or []
        markers = (self.special(fmt.prefix), self.special(fmt.suffix), self.special(fmt.middle))
        ids, prefix_start = arrange(layout, head, markers, prefix_ids, suffix_ids)
        return PromptParts(ids, prefix_start, layout)


Piece = TypeVar("Piece", str, list[int])


def arrange(layout: str, head: Piece, markers: tuple[Piece, Piece, Piece], prefix: Piece,
            suffix: Piece) -> tuple[Piece, int]:
    """The one place a FIM layout is laid out, for token ids (the engine's prompts) and for text (a serving
    engine's): the prompt and where its prefix starts. `markers`: the format's (prefix, suffix, middle)."""
    pre, suf, mid = markers
    if layout == "prefix":
        return head + prefix, len(head)
    if layout == "native-spm":
        head = head + suf + suffix + pre
        return head + prefix, len(head)
    if layout == "spm":
        head = head + pre + suf + suffix + mid
        return head + prefix, len(head)
    # psm: the suffix follows the prefix, so it is rebuilt whenever the prefix changes.
    return head + pre + prefix + suf + suffix + mid, len(head) + len(pre)


def format_named(name: str) -> tuple[FimFormat, str]:
    """The known format and text layout a `fim` setting names: "qwen" (the format's own layout: prefix-suffix-
    middle for most), "qwen/spm" (suffix first, for models trained on it, like laya's), "prefix" (no FIM)."""
    family, _, layout = name.partition("/")
    if family == "prefix" and not layout:
        return PREFIX_ONLY, "prefix"
    for fmt in KNOWN_FORMATS:
        if fmt.name == family and not (fmt.prefix or "").startswith("\u2581") and layout in ("", "psm", "spm"):
            native = fmt.preferred_layout == "native-spm"
            return fmt, "native-spm" if native else (layout or "psm")
    raise ValueError(f"unknown FIM format {name!r} (known: {', '.join(format_names())})")


def format_names() -> tuple[str, ...]:
    """The names a text prompt's format can be given by (see `format_named`)."""
    families = [fmt.name for fmt in KNOWN_FORMATS if fmt.has_fim and not fmt.suffix_first_native]
    return (*dict.fromkeys(families), *(f"{f}/spm" for f in dict.fromkeys(families)), "codestral", "prefix")


def text_prompt(fmt: FimFormat, prefix: str, suffix: str, context: list[tuple[str, str]] | None = None,
                current_path: str = "", layout: str = "psm") -> str:
    """The prompt as text, for a serving engine whose model was trained on `fmt` (its tokenizer reads the
    markers as special tokens): the same layout as the engine's token prompts, with other files' chunks first
    in the model's repository-level format where it has one."""
    head = ""
    if context and fmt.repo_name and fmt.file_sep:
        files = "".join(fmt.file_sep + _file_text(path, text) for path, text in context)
        head = f"{fmt.repo_name}workspace\n{files}{fmt.file_sep}{_short(current_path)}\n"
    markers = (fmt.prefix or "", fmt.suffix or "", fmt.middle or "")
    return arrange(layout, head, markers, prefix, suffix)[0]

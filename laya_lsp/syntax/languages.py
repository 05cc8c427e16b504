"""Which tree-sitter grammar serves a document, and the few lexical facts the rules need per language.

Grammars come only from the installed wheels (`tree_sitter_python.language()` …); nothing is downloaded at
run time. A document whose language has no grammar here is handled by indentation rules alone.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from functools import cache
from pathlib import PurePosixPath
from urllib.parse import unquote, urlparse

import tree_sitter


@dataclass(frozen=True)
class LanguageSpec:
    """Lexical and structural facts about one language, shared by the grammar and the fallback rules."""

    name: str
    module: str | None  # grammar wheel module; None for the indentation-only fallback
    function: str  # function in `module` returning the grammar pointer
    language_ids: tuple[str, ...]
    extensions: tuple[str, ...]
    line_comment: str | None = "//"
    block_comment: tuple[str, str] | None = ("/*", "*/")
    quotes: str = "\"'"
    triple_quotes: bool = False
    # Node types that hold a list of statements/members: the "block" a multi-line completion must stay in.
    block_types: frozenset[str] = frozenset()
    # The last character of a line that opens a block whose body comes on the following lines.
    block_openers: str = "{"
    # Words that continue a compound statement at the opener's own indentation (`else:`, `} catch {`).
    continuation_words: tuple[str, ...] = ("else", "catch", "finally")
    default_indent: str = "    "  # indentation unit when the document shows none yet

    def __hash__(self) -> int:  # the name identifies a spec; hashing every field cost more than the lookups
        return hash(self.name)

    @property
    def indentation_syntax(self) -> bool:
        """True where indentation itself closes blocks (Python); brackets close them elsewhere."""
        return self.block_openers == ":"


_C_BLOCKS = frozenset({"compound_statement", "field_declaration_list", "enumerator_list", "initializer_list"})
_JS_BLOCKS = frozenset({"statement_block", "class_body", "switch_body", "object"})
_TS_BLOCKS = _JS_BLOCKS | {"interface_body", "enum_body", "object_type"}

SPECS: tuple[LanguageSpec, ...] = (
    LanguageSpec(
        "python", "tree_sitter_python", "language", ("python",), (".py", ".pyi", ".pyw"),
        line_comment="#", block_comment=None, triple_quotes=True, block_types=frozenset({"block"}),
        block_openers=":", continuation_words=("else", "elif", "except", "finally", "case"),
    ),
    LanguageSpec(
        "javascript", "tree_sitter_javascript", "language", ("javascript", "javascriptreact"),
        (".js", ".mjs", ".cjs", ".jsx"), quotes="\"'`", default_indent="  ", block_types=_JS_BLOCKS,
    ),
    LanguageSpec(
        "typescript", "tree_sitter_typescript", "language_typescript", ("typescript",), (".ts", ".mts", ".cts"),
        quotes="\"'`", default_indent="  ", block_types=_TS_BLOCKS,
    ),
    LanguageSpec(
        "tsx", "tree_sitter_typescript", "language_tsx", ("typescriptreact",), (".tsx",),
        quotes="\"'`", default_indent="  ", block_types=_TS_BLOCKS,
    ),
    LanguageSpec(
        "go", "tree_sitter_go", "language", ("go",), (".go",), quotes="\"'`", default_indent="\t",
        block_types=frozenset({"block", "field_declaration_list", "literal_value", "interface_type"}),
        continuation_words=("else", "case", "default"),
    ),
    LanguageSpec(
        # `'` starts lifetimes as well as char literals, so it is not treated as a quote.
        "rust", "tree_sitter_rust", "language", ("rust",), (".rs",), quotes="\"",
        block_types=frozenset({"block", "declaration_list", "field_declaration_list", "match_block"}),
    ),
    LanguageSpec("c", "tree_sitter_c", "language", ("c",), (".c", ".h"), block_types=_C_BLOCKS),
    LanguageSpec(
        "cpp", "tree_sitter_cpp", "language", ("cpp", "c++", "cuda-cpp"),
        (".cc", ".cpp", ".cxx", ".c++", ".hpp", ".hh", ".hxx", ".h++", ".ipp", ".cu"),
        block_types=_C_BLOCKS | {"declaration_list"},
    ),
    LanguageSpec(
        "java", "tree_sitter_java", "language", ("java",), (".java",),
        block_types=frozenset({"block", "class_body", "interface_body", "enum_body", "constructor_body",
                               "switch_block"}),
        continuation_words=("else", "catch", "finally", "case", "default"),
    ),
)

# Languages without a grammar still get sensible comment and block rules from their family.
_FALLBACK_HASH = LanguageSpec(
    "fallback-hash", None, "", (), (), line_comment="#", block_comment=None, block_openers="{:",
)
_FALLBACK_C = LanguageSpec("fallback", None, "", (), (), quotes="\"'`", block_openers="{")
_HASH_COMMENT_IDS = frozenset({"shellscript", "ruby", "perl", "r", "yaml", "toml", "makefile", "dockerfile",
                               "coffeescript", "elixir", "nim", "julia", "powershell"})
_HASH_COMMENT_EXTS = frozenset({".sh", ".bash", ".zsh", ".rb", ".pl", ".r", ".yaml", ".yml", ".toml", ".ex",
                                ".exs", ".nim", ".jl", ".ps1", ".mk"})

_BY_NAME = {spec.name: spec for spec in SPECS}
_BY_ID = {lid: spec for spec in SPECS for lid in spec.language_ids}
_BY_EXT = {ext: spec for spec in SPECS for ext in spec.extensions}


def _extension(uri: str) -> str:
    """The lower-cased extension of a URI or path (`file:///a/b.TSX` → `.tsx`)."""
    path = unquote(urlparse(uri).path) if "://" in uri else uri
    return PurePosixPath(path).suffix.lower()


def language_for(language_id: str, uri: str) -> str | None:
    """Grammar name for an LSP `languageId` and/or a file URI; None means the indentation fallback.

    The languageId wins when it is known; otherwise the file extension decides.
    """
    spec = _BY_ID.get((language_id or "").lower()) or _BY_EXT.get(_extension(uri or ""))
    return spec.name if spec is not None else None


def spec_for(language_id: str, uri: str) -> LanguageSpec:
    """The spec for a document: a grammar-backed one, or a fallback chosen by comment style."""
    name = language_for(language_id, uri)
    if name is not None:
        return _BY_NAME[name]
    if (language_id or "").lower() in _HASH_COMMENT_IDS or _extension(uri or "") in _HASH_COMMENT_EXTS:
        return _FALLBACK_HASH
    return _FALLBACK_C


@cache
def grammar(name: str) -> tree_sitter.Language:
    """Load (once) the tree-sitter grammar of a language from its wheel."""
    spec = _BY_NAME[name]
    assert spec.module is not None
    module = importlib.import_module(spec.module)
    return tree_sitter.Language(getattr(module, spec.function)())


def new_parser(name: str) -> tree_sitter.Parser:
    """A fresh parser for one grammar (parsers are cheap; trees are what we keep)."""
    return tree_sitter.Parser(grammar(name))

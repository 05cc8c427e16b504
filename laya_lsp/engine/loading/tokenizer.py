"""A model's tokenizer read with the `tokenizers` library alone (no transformers, so no torch on the serving path).

`tokenizer.json` holds the whole pipeline; the named special tokens (eos, bos, unk, pad, additional) come from
`tokenizer_config.json` / `special_tokens_map.json`, as transformers reads them. A model with only a SentencePiece
`tokenizer.model` falls back to mlx-lm's loader (which imports transformers) and is served through the fast
tokenizer transformers converts it to.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Any

from tokenizers import AddedToken
from tokenizers import Tokenizer as RustTokenizer

from .cuts import CutRule, cut_rule

log = logging.getLogger(__name__)

NAMED_SPECIALS = ("bos_token", "eos_token", "unk_token", "pad_token")
REPLACEMENT = "\ufffd"  # what a decode writes for bytes that are no (or not yet a whole) UTF-8 character


def whole_characters(text: str, document: str = "") -> str:
    """`text` cut before the first U+FFFD the document does not have: a token budget can end inside a character
    (byte-fallback or byte-level tokens), and a model can emit bytes that form none. Where the document has the
    character itself, a generated one may be a copy; only a trailing run (an unfinished character) is cut."""
    if REPLACEMENT in document:
        return text.rstrip(REPLACEMENT)
    return text.split(REPLACEMENT, 1)[0]


def token_ends(ids: Sequence[int], text: str, texts: Sequence[str], decode: Callable[[list[int]], str]) -> list[int]:
    """Where each token's text ends in `text` (the decoded `ids`, maybe cut by `whole_characters`), clamped to
    its length. From the tokens' own texts when they join up to `text` (no decoding); else by decoding each
    prefix (byte-level pieces of one character, a decoder that merges spaces)."""
    if texts and all(0 <= i < len(texts) for i in ids):
        ends, at = [], 0
        for i in ids:
            at += len(texts[i])
            ends.append(at)
        if "".join(texts[i] for i in ids).startswith(text):
            return [min(e, len(text)) for e in ends]
    out: list[int] = []
    for k in range(1, len(ids) + 1):
        out.append(min(len(text), max(out[-1] if out else 0, len(whole_characters(decode(list(ids[:k])))))))
    return out


class TokenizerError(Exception):
    """The tokenizer files cannot be read; the message says which and why."""


class Tokenizer:
    """The small tokenizer interface the engine, decisions and benchmarks use, over a `tokenizers.Tokenizer`."""

    def __init__(self, backend: RustTokenizer, specials: dict[str, str | None],
                 additional_specials: Sequence[str] = (), eos_token_ids: Iterable[int] = ()) -> None:
        self.backend = backend
        self.bos_token, self.eos_token = specials.get("bos_token"), specials.get("eos_token")
        self.unk_token, self.pad_token = specials.get("unk_token"), specials.get("pad_token")
        self.bos_token_id, self.eos_token_id = self._id(self.bos_token), self._id(self.eos_token)
        self.unk_token_id, self.pad_token_id = self._id(self.unk_token), self._id(self.pad_token)
        named = [t for t in (*specials.values(), *additional_specials) if t]
        marked = [t.content for t in backend.get_added_tokens_decoder().values() if t.special]
        self.all_special_ids = sorted({i for t in (*named, *marked) if (i := self._id(t)) is not None})
        # The config's eos ids (an int or a list) end generation as well as the tokenizer's own eos token.
        self.eos_token_ids = set(eos_token_ids) | ({self.eos_token_id} if self.eos_token_id is not None else set())
        self.cut_rule: CutRule | None = cut_rule(_pipeline(backend))

    def _id(self, token: str | None) -> int | None:
        return self.backend.token_to_id(token) if token else None

    def __len__(self) -> int:
        return int(self.backend.get_vocab_size(with_added_tokens=True))

    def encode(self, text: str, add_special_tokens: bool = False) -> list[int]:
        """Token ids of `text`; special-token strings in it are matched as added tokens, as transformers does."""
        return list(self.backend.encode(text, add_special_tokens=add_special_tokens).ids)

    def decode(self, ids: Sequence[int], skip_special_tokens: bool = False) -> str:
        """Text of `ids`, special tokens included unless skipped; no whitespace clean-up."""
        return str(self.backend.decode(list(ids), skip_special_tokens=skip_special_tokens))

    def token_texts(self, n: int) -> list[str]:
        """Each id's text for ids 0..n-1 in one batch decode (ids past the vocabulary get "")."""
        size = len(self)
        texts = self.backend.decode_batch([[i] for i in range(min(n, size))], skip_special_tokens=False)
        return [str(t) for t in texts] + [""] * max(0, n - size)

    def convert_tokens_to_ids(self, token: str) -> int | None:
        return self.backend.token_to_id(token)

    def convert_ids_to_tokens(self, ids: Sequence[int]) -> list[str | None]:
        return [self.backend.id_to_token(i) for i in ids]

    def to_json(self) -> str:
        """The serialized pipeline (what llguidance's `LLTokenizer` reads)."""
        return str(self.backend.to_str())


def _pipeline(backend: RustTokenizer) -> dict[str, Any]:
    """The parts of tokenizer.json a cut rule reads, from each component alone (serializing the whole pipeline
    would write out and parse the vocabulary and merges: ~0.2 s for a 150k vocabulary)."""

    def state(component: Any) -> Any:
        return json.loads(component.__getstate__()) if component is not None else None

    added = [{"content": t.content, "lstrip": t.lstrip, "rstrip": t.rstrip}
             for t in backend.get_added_tokens_decoder().values()]
    return {"model": {"dropout": getattr(backend.model, "dropout", None)}, "added_tokens": added,
            "normalizer": state(backend.normalizer), "pre_tokenizer": state(backend.pre_tokenizer)}


def _token_content(value: Any) -> str | None:
    """A special token as written in tokenizer_config.json: a string, or {"content": ...} (AddedToken form)."""
    if isinstance(value, dict):
        value = value.get("content")
    return value if isinstance(value, str) and value else None


def _read_json(path: Path) -> dict[str, Any]:
    if not path.exists():
        return {}
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as exc:
        raise TokenizerError(f"{path} is not valid JSON: {exc}") from exc
    return data if isinstance(data, dict) else {}


def _added_tokens(config: dict[str, Any]) -> list[AddedToken]:
    """tokenizer_config.json's added tokens (transformers adds them too; tokenizer.json may lack some)."""
    out = []
    for entry in (config.get("added_tokens_decoder") or {}).values():
        if isinstance(entry, dict) and _token_content(entry):
            out.append(AddedToken(entry["content"], single_word=bool(entry.get("single_word")),
                                  lstrip=bool(entry.get("lstrip")), rstrip=bool(entry.get("rstrip")),
                                  normalized=bool(entry.get("normalized", not entry.get("special"))),
                                  special=bool(entry.get("special"))))
    return out


def load_tokenizer(path: Path, eos_token_ids: int | Sequence[int] | None = None) -> Tokenizer:
    """The tokenizer of the model directory `path`; raises TokenizerError with a readable reason."""
    eos = [eos_token_ids] if isinstance(eos_token_ids, int) else list(eos_token_ids or [])
    config = {**_read_json(path / "special_tokens_map.json"), **_read_json(path / "tokenizer_config.json")}
    specials = {name: _token_content(config.get(name)) for name in NAMED_SPECIALS}
    # (transformers 5 writes `extra_special_tokens`, a list or a name -> token map, where 4 wrote `additional_...`)
    extra = config.get("extra_special_tokens") or []
    listed = [*(config.get("additional_special_tokens") or []), *(extra.values() if isinstance(extra, dict) else extra)]
    additional = [t for v in listed if (t := _token_content(v))]
    tokenizer_file = path / "tokenizer.json"
    if tokenizer_file.exists():
        try:
            backend = RustTokenizer.from_file(str(tokenizer_file))
        except Exception as exc:  # tokenizers raises a bare Exception for unreadable files
            raise TokenizerError(f"cannot read {tokenizer_file}: {exc}") from exc
        missing = [t for t in _added_tokens(config) if backend.token_to_id(t.content) is None]
        if missing:
            backend.add_special_tokens([t for t in missing if t.special])
            backend.add_tokens([t for t in missing if not t.special])
        backend.no_padding()
        backend.no_truncation()
        return Tokenizer(backend, specials, additional, eos)
    return _converted_by_transformers(path, eos)


def _converted_by_transformers(path: Path, eos: list[int]) -> Tokenizer:
    """A model without tokenizer.json (e.g. only a SentencePiece tokenizer.model): transformers converts it."""
    log.warning("%s has no tokenizer.json: loading its tokenizer through mlx-lm (imports transformers)", path)
    from mlx_lm.tokenizer_utils import load as mlx_lm_load_tokenizer

    try:
        hf = mlx_lm_load_tokenizer(path, eos_token_ids=eos)  # forwards attributes to transformers' tokenizer
        backend = hf.backend_tokenizer
    except AttributeError as exc:
        raise TokenizerError(f"{path}: the tokenizer has no fast (tokenizers) form to serve: {exc}") from exc
    except Exception as exc:  # transformers' loaders raise many kinds
        raise TokenizerError(f"cannot load the tokenizer of {path}: {type(exc).__name__}: {exc}") from exc
    specials = {name: _token_content(getattr(hf, name, None)) for name in NAMED_SPECIALS}
    return Tokenizer(backend, specials, list(getattr(hf, "additional_special_tokens", None) or []), eos)

"""Code that libraries generate while the LSP stack is imported, kept between starts.

attrs writes each class's methods (`__init__`, `__repr__`, `__eq__`, ...) as source text and compiles it as the
class is made: lsprotocol's ~560 classes, all of which pygls imports, compile ~760 such scripts on every start,
about half of that import's time and the largest single cost before a server can answer (docs/benchmarks.md,
"Every first answer, part 5"). Within `generated_code_cached`, what `compile` makes from source *text* (never a
module's file: .pyc files are for those) is kept in one marshal file per bytecode version, keyed by everything
`compile` was given, and handed back on the next start instead of compiling it again. A missing, unreadable or
outdated file only means compiling as before; the file is rewritten when much of it went unused or was missing.
"""

from __future__ import annotations
import __future__

import builtins
import functools
import hashlib
import importlib.util
import inspect
import logging
import marshal
import operator
import os
import sys
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from types import CodeType
from typing import Any

log = logging.getLogger(__name__)

# Rewritten when more than this share of a start's scripts were not in the file (a first start, another attrs or
# lsprotocol); a few misses every start are scripts that embed a per-process hash seed (attrs' own classes).
REWRITE_SHARE = 0.1
FUTURE_FLAGS = functools.reduce(operator.or_, (getattr(__future__, name).compiler_flag
                                               for name in __future__.all_feature_names))


@dataclass
class CodeCacheReport:
    """What the latest `generated_code_cached` block found (`laya/stats` reports it)."""

    path: str = ""
    hits: int = 0
    misses: int = 0
    written: bool = False

    def to_dict(self) -> dict[str, Any]:
        return {"path": self.path, "hits": self.hits, "misses": self.misses, "written": self.written}


REPORT = CodeCacheReport()


def cache_path() -> Path:
    """($XDG_CACHE_HOME or ~/.cache)/laya-lsp/generated-code/<interpreter>-<bytecode magic>.marshal."""
    base = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    tag = f"{sys.implementation.cache_tag}-{importlib.util.MAGIC_NUMBER.hex()}"
    return base / "laya-lsp" / "generated-code" / f"{tag}.marshal"


def _read(path: Path) -> dict[bytes, CodeType]:
    try:
        with path.open("rb") as f:
            kept = marshal.load(f)
    except FileNotFoundError:
        return {}
    except Exception as exc:  # noqa: BLE001 - a damaged file is compiled over, never fatal
        log.info("generated-code cache %s unreadable (%s): compiling afresh", path, exc)
        return {}
    if not isinstance(kept, dict):
        return {}
    return {k: v for k, v in kept.items() if isinstance(k, bytes) and isinstance(v, CodeType)}


def _write(path: Path, used: dict[bytes, CodeType]) -> bool:
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile(dir=path.parent, prefix=path.name, delete=False) as f:
            marshal.dump(used, f)
        os.replace(f.name, path)  # (atomic: a server starting meanwhile reads the old file or the new one)
        return True
    except OSError as exc:
        log.info("generated-code cache %s not written: %s", path, exc)
        return False


def _key(source: str, filename: Any, mode: str, flags: int, dont_inherit: bool, optimize: int) -> bytes:
    head = f"{mode}\0{flags}\0{int(bool(dont_inherit))}\0{optimize}\0{os.fspath(filename)!r}\0"
    return hashlib.blake2b((head + source).encode("utf-8", "surrogatepass"), digest_size=16).digest()


@contextmanager
def generated_code_cached(path: Path | None = None) -> Iterator[CodeCacheReport]:
    """Within the block, code compiled from source text comes from (and goes to) the cache file at `path`
    (default `cache_path()`); `REPORT` says how many scripts it served."""
    path = path or cache_path()
    kept = _read(path)
    used: dict[bytes, CodeType] = {}
    report = REPORT
    report.path, report.hits, report.misses, report.written = str(path), 0, 0, False
    real = builtins.compile

    def compile_cached(source: Any, filename: Any, mode: str, flags: int = 0, dont_inherit: bool = False,
                       optimize: int = -1, **kw: Any) -> Any:
        if kw or not isinstance(source, str):  # (bytes: a module's file; keywords: private options)
            return real(source, filename, mode, flags, dont_inherit, optimize, **kw)
        if not dont_inherit:  # the caller's __future__ features, which `compile` itself would inherit from it
            here = inspect.currentframe()
            caller = here.f_back if here is not None else None
            if caller is not None:
                flags |= caller.f_code.co_flags & FUTURE_FLAGS
            dont_inherit = True
        key = _key(source, filename, mode, flags, dont_inherit, optimize)
        code = kept.get(key)
        if code is None:
            code = real(source, filename, mode, flags, dont_inherit, optimize)
            if not isinstance(code, CodeType):  # (an AST asked for with flags)
                return code
            report.misses += 1
        else:
            report.hits += 1
        used[key] = code
        return code

    builtins.compile = compile_cached
    try:
        yield report
    finally:
        builtins.compile = real
        if report.misses > REWRITE_SHARE * (report.hits + report.misses) or len(kept) > 2 * len(used):
            report.written = _write(path, used)

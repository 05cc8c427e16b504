"""The code attrs generates for lsprotocol's classes is kept between starts (laya_lsp/code_cache.py): a second
server takes it from the file the first wrote and answers as the first did; a damaged file or a cache folder
that cannot be written only means compiling as before. Checked through the real server over stdio, by what
`laya/stats` reports and the file holds, never by time."""

from __future__ import annotations
import __future__

import builtins
import marshal
import types
from pathlib import Path
from typing import Any

import pytest
from conftest import SERVER_CMD
from lspclient import LspClient, position_at

from laya_lsp.code_cache import generated_code_cached

URI = "file:///cache/first.py"
TEXT = "def total(values):\n    result = 0\n    for v in values:\n        result += v\n    return "


async def _start(cache_home: Path) -> tuple[list[str], dict[str, Any]]:
    """A fresh server with `cache_home` as its XDG cache folder: its first completion's labels and `codeCache`."""
    c = await LspClient.spawn(SERVER_CMD, env={"XDG_CACHE_HOME": str(cache_home)}, default_timeout=60)
    try:
        await c.initialize()
        await c.did_open(URI, TEXT)
        end = position_at(TEXT, len(TEXT))
        resp = await c.completion(URI, end["line"], end["character"])
        stats = (await c.request("laya/stats", {"recent": 0}))["result"]
        assert await c.shutdown_and_exit() == 0
    finally:
        await c.close()
    return [item["label"] for item in resp["result"]["items"]], stats["codeCache"]


def _cache_files(cache_home: Path) -> list[Path]:
    return sorted((cache_home / "laya-lsp" / "generated-code").glob("*.marshal"))


async def test_a_second_start_takes_the_generated_code_the_first_kept(tmp_path: Path):
    first_items, first = await _start(tmp_path)
    assert first["hits"] == 0 and first["misses"] > 100 and first["written"], first
    [kept] = _cache_files(tmp_path)
    assert first["path"] == str(kept)
    second_items, second = await _start(tmp_path)
    # (a few scripts embed the process's hash seed: attrs' own classes' __hash__)
    assert second["hits"] > 100 and second["misses"] < 0.1 * second["hits"] and not second["written"], second
    assert second_items == first_items and first_items


async def test_a_damaged_cache_file_is_compiled_over(tmp_path: Path):
    await _start(tmp_path)
    [kept] = _cache_files(tmp_path)
    kept.write_bytes(b"\x00 not a marshal file")
    items, report = await _start(tmp_path)
    assert items and report["hits"] == 0 and report["written"], report
    with kept.open("rb") as f:
        assert len(marshal.load(f)) > 100


async def test_a_cache_folder_that_cannot_be_written_only_means_compiling(tmp_path: Path):
    blocked = tmp_path / "a-file"
    blocked.write_text("the cache folder's parent is a file")
    items, report = await _start(blocked)
    assert items and report["hits"] == 0 and report["misses"] > 100 and not report["written"], report


# A caller without `from __future__ import annotations` (this module has it): its compiled code must not get it.
_HELPER = compile("def compile_here(src):\n    return compile(src, '<generated>', 'exec')\n", "<plain>", "exec",
                  dont_inherit=True)
compile_here = types.FunctionType(_HELPER.co_consts[0], {"__builtins__": builtins})
SOURCE = "def f(x: int) -> None:\n    pass\n"
ANNOTATIONS = __future__.annotations.compiler_flag


@pytest.mark.parametrize("start", ["first", "second"])
def test_cached_code_inherits_its_callers_future_features_as_compile_does(tmp_path: Path, start: str):
    path = tmp_path / "code.marshal"
    if start == "second":
        with generated_code_cached(path):
            compile_here(SOURCE)
            compile(SOURCE, "<generated>", "exec")
    with generated_code_cached(path) as report:
        plain, future = compile_here(SOURCE), compile(SOURCE, "<generated>", "exec")
    assert not plain.co_flags & ANNOTATIONS
    assert future.co_flags & ANNOTATIONS  # (this module's own future import)
    assert (report.hits, report.misses) == ((2, 0) if start == "second" else (0, 2))

"""Text sync is exact: random incremental edits (multi-line, deletions, CJK, emoji/surrogate pairs, CRLF, lone CR,
characters Python but not LSP treats as line breaks) through didChange leave the server's text (`laya/documentText`)
equal to the client's after every change; full-sync changes too; and a completion from a document's reused KV
cache equals the one from a cold cache for the same text and position.

More examples by hand: `LAYA_SYNC_EXAMPLES=500 .venv/bin/python -m pytest tests/test_rel_textsync.py -s`.
"""

from __future__ import annotations

import itertools
import os
from typing import Any

import pytest
from conftest import SERVER_CMD
from hypothesis import Phase, given, settings
from hypothesis import strategies as st
from lspclient import BlockingSession, lsp_lines, position_at, rich_capabilities
from metamodel import assert_conforms

EXAMPLES = int(os.environ.get("LAYA_SYNC_EXAMPLES", "100"))
PIECES = ["a", "x", "def ", "return ", " ", "    ", "\t", "(", ")", ":", "\n", "\n", "\r\n", "\r", "世界", "日本語",
          "😀", "👋🏽", "👨‍👩‍👧", "e\u0301", "€", "\x0c", "\u2028", "\x85", "\x1c", "\v"]
text_st = st.lists(st.sampled_from(PIECES), max_size=12).map("".join)
COUNTS = {"edits": 0, "changes": 0, "documents": 0, "full": 0, "cache_checks": 0, "cache_reused_tokens": 0}
_uris = itertools.count(1)


def offsets(text: str) -> list[int]:
    """Offsets an editor can put a cursor at: not inside a surrogate pair (str has none) nor inside \\r\\n."""
    return [i for i in range(len(text) + 1) if not (0 < i < len(text) and text[i - 1] == "\r" and text[i] == "\n")]


def utf16_len(s: str) -> int:
    return len(s.encode("utf-16-le")) // 2


@st.composite
def edit_script(draw: Any, initial: str) -> list[list[tuple[int, int, str]]]:
    """didChange batches; each change is (start offset, end offset, new text) on the text before it."""
    text, batches = initial, []
    for _ in range(draw(st.integers(1, 25))):
        batch = []
        for _ in range(draw(st.sampled_from([1, 1, 1, 2, 3]))):
            offs = offsets(text)
            a = draw(st.sampled_from(offs))
            b = draw(st.one_of(st.just(a), st.sampled_from(offs)))
            a, b = min(a, b), max(a, b)
            new = draw(text_st)
            batch.append((a, b, new))
            text = text[:a] + new + text[b:]
        batches.append(batch)
    return batches


@pytest.fixture(scope="module")
def utf16():
    s = BlockingSession(SERVER_CMD, capabilities=rich_capabilities(["utf-16"]))
    yield s
    s.close()
    print(f"\ntext sync: {COUNTS}")
    assert_conforms(s.c, "text sync (utf-16)")


# The UTF-8 server also runs the cache test: warm-up on open, speculative next completions, typed-through answers
# and cross-file chunks are off there, so the two documents' prompts and caches differ only by their history.
PLAIN = {"warmUp": False, "speculative": False, "typedThrough": False, "crossFileTokens": 0}


@pytest.fixture(scope="module")
def utf8():
    s = BlockingSession(SERVER_CMD, capabilities=rich_capabilities(["utf-8"]), initialization_options=PLAIN)
    assert s.init_result["capabilities"]["positionEncoding"] == "utf-8"
    yield s
    s.close()
    assert_conforms(s.c, "text sync (utf-8) and cache checks")


def run_script(s: BlockingSession, initial: str, script: list, encoding: str, full_every: int = 0) -> str:
    uri = f"file:///sync/doc{next(_uris)}.py"
    COUNTS["documents"] += 1

    async def go() -> str:
        text, version = initial, 1
        await s.c.did_open(uri, text)
        got = await s.c.call("laya/documentText", {"uri": uri})
        assert (got["text"], got["version"]) == (text, 1)
        for n, batch in enumerate(script):
            changes = []
            for a, b, new in batch:
                if full_every and n % full_every == 0:
                    text = text[:a] + new + text[b:]
                    changes.append({"text": text})
                    COUNTS["full"] += 1
                else:
                    changes.append({"range": {"start": position_at(text, a, encoding),
                                              "end": position_at(text, b, encoding)}, "text": new})
                    text = text[:a] + new + text[b:]
                COUNTS["changes"] += 1
            version += 1
            await s.c.did_change(uri, version, changes)
            got = await s.c.call("laya/documentText", {"uri": uri, "checkTree": True})
            assert got["text"] == text, (f"after batch {n} {batch!r}:\nserver {got['text']!r}\nclient {text!r}")
            assert got["version"] == version
            assert got["treeInStep"] is True, f"incremental tree differs from a fresh parse after batch {n}"
            COUNTS["edits"] += 1
        await s.c.did_close(uri)
        return text

    return s.run(go())


@settings(max_examples=EXAMPLES, deadline=None)
@given(data=st.data())
def test_incremental_edits_utf16(utf16: BlockingSession, data: Any):
    initial = data.draw(text_st, "initial")
    run_script(utf16, initial, data.draw(edit_script(initial), "script"), "utf-16")


@settings(max_examples=max(10, EXAMPLES // 3), deadline=None)
@given(data=st.data())
def test_incremental_edits_utf8(utf8: BlockingSession, data: Any):
    initial = data.draw(text_st, "initial")
    run_script(utf8, initial, data.draw(edit_script(initial), "script"), "utf-8")


@settings(max_examples=max(10, EXAMPLES // 3), deadline=None)
@given(data=st.data())
def test_full_sync_changes_mixed_with_incremental(utf16: BlockingSession, data: Any):
    initial = data.draw(text_st, "initial")
    run_script(utf16, initial, data.draw(edit_script(initial), "script"), "utf-16", full_every=data.draw(
        st.sampled_from([1, 2, 3]), "full_every"))


def test_positions_clamp_like_lsp(utf16: BlockingSession):
    """Ranges past the end of a line or of the document clamp (LSP: "defaults back to the line length")."""
    async def go() -> None:
        uri = "file:///sync/clamp.py"
        await utf16.c.did_open(uri, "ab😀\ncd\n")
        await utf16.c.did_change(uri, 2, [{"range": {"start": {"line": 0, "character": 99},
                                                     "end": {"line": 0, "character": 120}}, "text": "!"}])
        assert (await utf16.c.call("laya/documentText", {"uri": uri}))["text"] == "ab😀!\ncd\n"
        await utf16.c.did_change(uri, 3, [{"range": {"start": {"line": 7, "character": 0},
                                                     "end": {"line": 9, "character": 3}}, "text": "end"}])
        assert (await utf16.c.call("laya/documentText", {"uri": uri}))["text"] == "ab😀!\ncd\nend"
        await utf16.c.did_close(uri)
    utf16.run(go())


# -- the KV cache's answer equals a cold computation ------------------------------------------------------
def _items(resp: dict) -> list[tuple]:
    res = resp["result"]
    items = res["items"] if isinstance(res, dict) else res or []
    return [(i["label"], i["textEdit"]["newText"], str(i["textEdit"]["range"])) for i in items]


ENC = "utf-8"
code_piece = st.sampled_from(["x = 1\n", "def f(a):\n    return a\n", "import os\n", "# note\n", "print(x)\n",
                              "y = [1, 2]\n", "class A:\n    pass\n", "\n", "s = '世界'\n"])


@settings(max_examples=max(8, EXAMPLES // 10), deadline=None, phases=[Phase.explicit, Phase.reuse, Phase.generate])
# (no shrinking: each example costs seconds)
@given(data=st.data())
def test_reused_cache_answers_like_a_cold_cache(utf8: BlockingSession, data: Any):
    """Type a document in pieces (with completions between, so the cache is reused and trimmed), then compare
    the completion at the end with one for the same text in a fresh document (a cold cache)."""
    pieces = data.draw(st.lists(code_piece, min_size=2, max_size=8), "pieces")
    deletes = data.draw(st.lists(st.booleans(), min_size=len(pieces), max_size=len(pieces)), "deletes")

    async def go() -> None:
        warm, cold = f"file:///sync/warm{next(_uris)}.py", f"file:///sync/cold{next(_uris)}.py"
        text, version = "", 1
        await utf8.c.did_open(warm, text)
        for piece, delete in zip(pieces, deletes):
            end = position_at(text, len(text), ENC)
            text += piece
            version += 1
            await utf8.c.did_change(warm, version, [{"range": {"start": end, "end": end}, "text": piece}])
            if delete and len(text) > 3:  # delete a char in the middle: the cache must be trimmed there
                mid = offsets(text)[len(offsets(text)) // 2]
                a, b = position_at(text, mid, ENC), position_at(text, min(mid + 1, len(text)), ENC)
                if text[mid:mid + 1] not in ("\r", ""):
                    text = text[:mid] + text[mid + 1:]
                    version += 1
                    await utf8.c.did_change(warm, version, [{"range": {"start": a, "end": b}, "text": ""}])
            lines = lsp_lines(text)
            await utf8.c.completion(warm, len(lines) - 1, len(lines[-1].encode()))
        tail = "# compute the "
        end = position_at(text, len(text), ENC)
        text += tail
        await utf8.c.did_change(warm, version + 1, [{"range": {"start": end, "end": end}, "text": tail}])
        lines = lsp_lines(text)
        pos = (len(lines) - 1, len(lines[-1].encode()))
        warm_resp = await utf8.c.completion(warm, *pos)
        warm_stats = (await utf8.c.call("laya/stats", {"recent": 1}))["recent"][-1]
        await utf8.c.did_open(cold, text)
        cold_resp = await utf8.c.completion(cold, *pos)
        cold_stats = (await utf8.c.call("laya/stats", {"recent": 1}))["recent"][-1]
        assert (await utf8.c.call("laya/documentText", {"uri": warm}))["text"] == text
        assert warm_stats["status"] == cold_stats["status"] == "ok"
        assert cold_stats["reused_tokens"] == 0 and warm_stats["prompt_tokens"] == cold_stats["prompt_tokens"]
        assert warm_stats["reused_tokens"] > 0
        assert _items(warm_resp) == _items(cold_resp), f"warm {_items(warm_resp)}\ncold {_items(cold_resp)}"
        COUNTS["cache_checks"] += 1
        COUNTS["cache_reused_tokens"] += warm_stats["reused_tokens"]
        await utf8.c.did_close(warm)
        await utf8.c.did_close(cold)

    utf8.run(go())


def test_cache_checks_were_not_vacuous():
    assert COUNTS["cache_checks"] > 0 and COUNTS["cache_reused_tokens"] > 0

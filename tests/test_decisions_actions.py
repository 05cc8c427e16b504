"""Code actions end to end over stdio: listing is lazy (no model work), each action resolves to a versioned
WorkspaceEdit, a stale version resolves to no edit, and syntax-error fixes are ranked with a confidence."""

from __future__ import annotations

import asyncio

import pytest
import pytest_lsp
from conftest import DEFAULT_SERVER_CMD
from lsphelpers import change, open_doc, position_at, stats
from lsprotocol import types as lsp
from pytest_lsp import ClientServerConfig, LanguageClient

from laya_lsp.syntax import SyntaxDocument

pytestmark = pytest.mark.asyncio(loop_scope="module")

SOURCE = '''import os


def area(width, height):
    return width * height


# return the sum of the squares of xs
def total(xs):
    s = 0
    for x in xs:
        s += x
    return s
'''


@pytest_lsp.fixture(config=ClientServerConfig(server_command=DEFAULT_SERVER_CMD), scope="module", loop_scope="module")
async def client(lsp_client: LanguageClient):
    # The embedded model: its text survives post-processing (on, as by default); a zero threshold shows every fix.
    opts = {"decisionThreshold": 0.0, "inlineMaxLines": 4}
    # A client that resolves code actions lazily (test_decisions_conformance covers one that does not).
    caps = lsp.ClientCapabilities(
        text_document=lsp.TextDocumentClientCapabilities(
            code_action=lsp.CodeActionClientCapabilities(
                resolve_support=lsp.ClientCodeActionResolveOptions(properties=["edit"])
            )
        )
    )
    await lsp_client.initialize_session(
        lsp.InitializeParams(capabilities=caps, process_id=None, initialization_options=opts)
    )
    yield
    await lsp_client.shutdown_session()


async def list_actions(client: LanguageClient, uri: str, text: str, offset: int) -> list[lsp.CodeAction]:
    pos = position_at(text, offset)
    res = await client.text_document_code_action_async(lsp.CodeActionParams(
        text_document=lsp.TextDocumentIdentifier(uri=uri), range=lsp.Range(start=pos, end=pos),
        context=lsp.CodeActionContext(diagnostics=[])))
    assert res is not None
    return [a for a in res if isinstance(a, lsp.CodeAction)]


def by_kind(actions: list[lsp.CodeAction], kind: str) -> lsp.CodeAction:
    found = [a for a in actions if a.kind == kind]
    assert found, f"no {kind} in {[a.kind for a in actions]}"
    return found[0]


def apply(text: str, edit: lsp.WorkspaceEdit, uri: str, version: int) -> str:
    assert edit.document_changes and len(edit.document_changes) == 1
    dc = edit.document_changes[0]
    assert isinstance(dc, lsp.TextDocumentEdit)
    assert dc.text_document.uri == uri and dc.text_document.version == version
    (te,) = dc.edits
    lines = text.splitlines(keepends=True)

    def off(p: lsp.Position) -> int:
        return sum(len(x) for x in lines[: p.line]) + p.character

    return text[: off(te.range.start)] + te.new_text + text[off(te.range.end):]


async def settled(client: LanguageClient, uri: str) -> dict:
    """Stats once the work that opening `uri` may queue (a background cache warm-up) has been recorded."""
    for _ in range(40):
        st = await stats(client, recent=50)
        if any(r["doc"] == uri for r in st["recent"]) and not st["queue"]["queued"]:
            break
        await asyncio.sleep(0.05)
    await asyncio.sleep(0.1)
    return await stats(client, recent=0)


async def test_listing_does_no_model_work(client: LanguageClient):
    uri = "file:///lazy.py"
    open_doc(client, uri, SOURCE)
    before = await settled(client, uri)
    kinds = set()
    for offset in (SOURCE.index("return width"), SOURCE.index("# return"), SOURCE.index("s = 0"), len(SOURCE)):
        kinds |= {a.kind for a in await list_actions(client, uri, SOURCE, offset)}
    after = await stats(client, recent=0)
    assert after["summary"]["requests"] == before["summary"]["requests"], "listing ran the model"
    assert after["documents"] == before["documents"], "listing touched the KV caches"
    assert {"refactor.rewrite.laya.completeBlock", "refactor.rewrite.laya.implementComment",
            "refactor.rewrite.laya.addDocstring"} <= kinds
    assert all(a.command is None and a.edit is None for a in await list_actions(client, uri, SOURCE, 0))


async def test_complete_block_resolves_to_a_versioned_edit(client: LanguageClient):
    uri = "file:///block.py"
    text = SOURCE + "\n\ndef main():\n    "
    open_doc(client, uri, text)
    action = by_kind(await list_actions(client, uri, text, len(text)), "refactor.rewrite.laya.completeBlock")
    resolved = await client.code_action_resolve_async(action)
    assert resolved.edit is not None
    new = apply(text, resolved.edit, uri, 1)
    assert new.startswith(text) and len(new) > len(text)
    assert (await stats(client, recent=1))["recent"][-1]["kind"] == "action"


async def test_implement_comment_inserts_code_below_the_comment(client: LanguageClient):
    uri = "file:///comment.py"
    open_doc(client, uri, SOURCE)
    offset = SOURCE.index("# return") + 3
    action = by_kind(await list_actions(client, uri, SOURCE, offset), "refactor.rewrite.laya.implementComment")
    resolved = await client.code_action_resolve_async(action)
    assert resolved.edit is not None
    new = apply(SOURCE, resolved.edit, uri, 1)
    end = SOURCE.index("\n", offset)
    assert new[:end] == SOURCE[:end] and new[end] == "\n" and new.endswith(SOURCE[end:])


async def test_add_docstring_inserts_a_docstring_under_the_def(client: LanguageClient):
    uri = "file:///doc.py"
    open_doc(client, uri, SOURCE)
    action = by_kind(await list_actions(client, uri, SOURCE, SOURCE.index("return width")),
                     "refactor.rewrite.laya.addDocstring")
    resolved = await client.code_action_resolve_async(action)
    assert resolved.edit is not None
    new = apply(SOURCE, resolved.edit, uri, 1)
    assert '    """' in new.split("def area(width, height):\n", 1)[1].split("return", 1)[0]
    assert not SyntaxDocument(new, "python").has_errors()


async def test_doc_comment_for_other_languages_is_listed_above_the_function(client: LanguageClient):
    uri = "file:///lib.rs"
    text = "fn double(x: i32) -> i32 {\n    x * 2\n}\n"
    open_doc(client, uri, text, language="rust")
    action = by_kind(await list_actions(client, uri, text, text.index("x * 2")), "refactor.rewrite.laya.addDocstring")
    resolved = await client.code_action_resolve_async(action)
    if resolved.edit is not None:  # the random model may write nothing usable; then there is no edit
        new = apply(text, resolved.edit, uri, 1)
        assert new.endswith(text) and new.startswith("/// ")


async def test_stale_version_resolves_to_no_edit(client: LanguageClient):
    uri = "file:///stale.py"
    open_doc(client, uri, SOURCE)
    action = by_kind(await list_actions(client, uri, SOURCE, len(SOURCE)), "refactor.rewrite.laya.completeBlock")
    end = position_at(SOURCE, len(SOURCE))
    change(client, uri, 2, end, end, "x = 1\n")
    before = (await settled(client, uri))["summary"]["requests"]
    resolved = await client.code_action_resolve_async(action)
    assert resolved.edit is None
    assert (await stats(client, recent=0))["summary"]["requests"] == before, "a stale resolve ran the model"


async def test_syntax_error_fixes_are_ranked_with_confidence(client: LanguageClient):
    uri = "file:///broken.py"
    text = SOURCE.replace("def total(xs):", "def total(xs)")
    open_doc(client, uri, text)
    line_off = text.index("def total(xs)")
    action = by_kind(await list_actions(client, uri, text, line_off), "quickfix.laya.fixSyntax")
    assert "%" not in action.title  # nothing is scored while listing
    resolved = await client.code_action_resolve_async(action)
    assert resolved.edit is not None, "with threshold 0 the best fix is always offered"
    fixed = apply(text, resolved.edit, uri, 1)
    assert not SyntaxDocument(fixed, "python").has_errors()
    assert "%" in resolved.title
    # Now ranked for this version: listing shows each fix with its confidence, still with no model work.
    before = (await settled(client, uri))["summary"]["requests"]
    ranked = [a for a in await list_actions(client, uri, text, line_off) if a.kind == "quickfix.laya.fixSyntax"]
    assert ranked and all("%" in a.title for a in ranked)
    assert (await stats(client, recent=0))["summary"]["requests"] == before
    applied = await client.code_action_resolve_async(ranked[0])
    assert applied.edit is not None and not SyntaxDocument(apply(text, applied.edit, uri, 1), "python").has_errors()


async def test_block_actions_are_cleaned_by_the_syntax_layer(client: LanguageClient):
    """The syntax layer cleans action blocks like completions (post-processing is on in this suite): whatever
    survives is a valid edit (when nothing survives there is no edit)."""
    uri = "file:///post.py"
    open_doc(client, uri, SOURCE)
    for kind, offset in (("refactor.rewrite.laya.completeBlock", len(SOURCE)),
                         ("refactor.rewrite.laya.implementComment", SOURCE.index("# return") + 2)):
        action = by_kind(await list_actions(client, uri, SOURCE, offset), kind)
        resolved = await client.code_action_resolve_async(action)
        if resolved.edit is not None:
            assert apply(SOURCE, resolved.edit, uri, 1).startswith(SOURCE[: SOURCE.index("# return")])
    assert (await stats(client, recent=1))["recent"][-1]["status"] == "ok"


"""The metaModel validator itself: it must accept real LSP messages and catch deliberately wrong ones."""

from __future__ import annotations

import pytest
from lspclient import RECEIVED, SENT, Record
from metamodel import MetaModel, SessionValidator, validate_schema

POS = {"line": 3, "character": 7}
RANGE = {"start": POS, "end": POS}
ITEM = {"label": "read_config", "kind": 1, "sortText": "0000", "textEdit": {"range": RANGE, "newText": "read_config"},
        "insertTextFormat": 1, "preselect": True}


@pytest.fixture(scope="module")
def mm() -> MetaModel:
    return MetaModel()


def test_metamodel_is_318(mm: MetaModel):
    assert mm.version == "3.18.0"


@pytest.mark.parametrize("result", [
    {"isIncomplete": True, "items": [ITEM]},
    [ITEM],
    None,
    {"isIncomplete": False, "items": [], "itemDefaults": {"editRange": {"insert": RANGE, "replace": RANGE}}},
])
def test_valid_completion_results(mm: MetaModel, result):
    assert mm.validate_result("textDocument/completion", result) == []


@pytest.mark.parametrize("bad, needle", [
    ({"isIncomplete": True, "items": [{**ITEM, "kind": 99}]}, "CompletionItemKind"),  # wrong enum value
    ({"isIncomplete": True, "items": [{**ITEM, "kind": "1"}]}, "CompletionItemKind"),  # enum as string
    ({"isIncomplete": True, "items": [{**ITEM, "label": 5}]}, "label"),  # numeric label
    ({"isIncomplete": True, "items": [{**ITEM, "surprise": 1}]}, "unknown property 'surprise'"),  # unknown field
    ({"isIncomplete": True, "items": [{"kind": 1}]}, "missing required property 'label'"),
    ({"items": [ITEM]}, "isIncomplete"),
    ({"isIncomplete": 1, "items": []}, "boolean"),  # 1 is not true
    ({"isIncomplete": True, "items": [{**ITEM, "textEdit": {"range": {"start": {"line": -1, "character": 0},
                                                                       "end": POS}, "newText": ""}}]}, "uinteger"),
    ({"isIncomplete": True, "items": [{**ITEM, "textEdit": {"range": {"start": {"line": 1.5, "character": 0},
                                                                       "end": POS}, "newText": ""}}]}, "uinteger"),
    ({"isIncomplete": True, "items": [{**ITEM, "textEdit": {"range": {"start": {"line": True, "character": 0},
                                                                       "end": POS}, "newText": ""}}]}, "uinteger"),
    ({"isIncomplete": True, "items": [{**ITEM, "insertTextFormat": 3}]}, "InsertTextFormat"),
    ({"isIncomplete": True, "items": [{**ITEM, "documentation": {"kind": "html", "value": "x"}}]}, "MarkupKind"),
])
def test_wrong_completion_results_are_caught(mm: MetaModel, bad, needle):
    errs = mm.validate_result("textDocument/completion", bad)
    assert errs, f"accepted {bad}"
    assert any(needle in e for e in errs), errs


def test_inline_completion(mm: MetaModel):
    ok = {"items": [{"insertText": "return x", "range": RANGE}]}
    assert mm.validate_result("textDocument/inlineCompletion", ok) == []
    assert mm.validate_result("textDocument/inlineCompletion", {"items": [{"insertText": 3}]})
    assert mm.validate_result("textDocument/inlineCompletion", {"items": [], "isIncomplete": False})


def test_base_types_and_aliases(mm: MetaModel):
    assert mm.validate({"kind": "base", "name": "integer"}, 2**31) != []
    assert mm.validate({"kind": "base", "name": "integer"}, -(2**31)) == []
    assert mm.validate({"kind": "base", "name": "uinteger"}, -1) != []
    assert mm.validate({"kind": "base", "name": "DocumentUri"}, "file:///a.py") == []
    assert mm.validate({"kind": "base", "name": "DocumentUri"}, "/no/scheme.py") != []
    assert mm.validate_ref("ProgressToken", "abc") == [] and mm.validate_ref("ProgressToken", 3) == []
    assert mm.validate_ref("ProgressToken", 1.5) != []
    assert mm.validate_ref("LSPAny", {"a": [1, "x", None, {"b": 2.5}]}) == []
    assert mm.validate_ref("SemanticTokenTypes", "myCustomType") == []  # supportsCustomValues
    assert mm.validate_ref("MessageType", 0) != [] and mm.validate_ref("MessageType", 5) == []
    assert mm.validate_ref("MarkupKind", "markdown") == [] and mm.validate_ref("MarkupKind", "Markdown") != []


def test_params_direction_and_notifications(mm: MetaModel):
    show = {"type": 1, "message": "laya: model not loaded"}
    assert mm.validate_params("window/showMessage", show, "serverToClient") == []
    assert mm.validate_params("window/showMessage", {**show, "type": 9}, "serverToClient")
    assert mm.validate_params("window/showMessage", {"message": "x"}, "serverToClient")
    # A server must not send a client→server request.
    assert mm.validate_params("textDocument/completion", {}, "serverToClient")
    assert mm.validate_params("laya/unknown", {}, "serverToClient")


def test_initialize_result(mm: MetaModel):
    ok = {"capabilities": {"positionEncoding": "utf-16", "textDocumentSync": {"openClose": True, "change": 2},
                           "completionProvider": {"triggerCharacters": ["."], "resolveProvider": False},
                           "inlineCompletionProvider": {}},
          "serverInfo": {"name": "laya-lsp", "version": "0.1.0"}}
    assert mm.validate_result("initialize", ok) == []
    bad = {**ok, "capabilities": {**ok["capabilities"], "textDocumentSync": {"change": 3}}}
    assert mm.validate_result("initialize", bad)
    bad2 = {**ok, "capabilities": {**ok["capabilities"], "inlineCompletionProvidr": True}}
    assert any("inlineCompletionProvidr" in e for e in mm.validate_result("initialize", bad2))


def test_session_validator_catches_envelope_progress_and_duplicates():
    sv = SessionValidator()
    recs = [
        Record(SENT, 0, {"jsonrpc": "2.0", "id": 1, "method": "shutdown"}, b""),
        Record(RECEIVED, 0, {"jsonrpc": "2.0", "method": "$/progress",
                             "params": {"token": "t", "value": {"kind": "report"}}}, b""),  # never created
        Record(RECEIVED, 0, {"jsonrpc": "2.0", "id": "c", "method": "window/workDoneProgress/create",
                             "params": {"token": "t"}}, b""),
        Record(RECEIVED, 0, {"jsonrpc": "2.0", "method": "$/progress",
                             "params": {"token": "t", "value": {"kind": "end"}}}, b""),  # end before begin
        Record(RECEIVED, 0, {"jsonrpc": "2.0", "id": 1, "result": None}, b""),
        Record(RECEIVED, 0, {"jsonrpc": "2.0", "id": 1, "result": None}, b""),  # second response
        Record(RECEIVED, 0, {"jsonrpc": "1.0", "id": 7, "result": None, "extra": 1}, b""),
        Record(RECEIVED, 0, {"jsonrpc": "2.0", "id": 8, "error": {"code": "x", "message": "m"}}, b""),
    ]
    rep = SessionValidator.validate_log(sv, recs)
    text = "\n".join(rep.violations)
    assert "never created" in text
    assert "end while created" in text
    assert "second response" in text
    assert "jsonrpc must be '2.0'" in text and "unknown envelope keys" in text
    assert "error.code must be an integer" in text
    assert "unknown request id 7" in text


def test_custom_schema():
    from metamodel import CUSTOM_RESULT_SCHEMAS

    schema = CUSTOM_RESULT_SCHEMAS["laya/documentText"]
    assert validate_schema(schema, {"uri": "file:///a", "text": "x", "version": 3}) == []
    assert validate_schema(schema, {"uri": "file:///a", "text": 3, "version": 3})
    assert validate_schema(schema, {"uri": "file:///a", "text": "x", "version": 3, "more": 1})

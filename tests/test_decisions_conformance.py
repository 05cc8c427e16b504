"""Decisions through the raw client: every message of a session that lists and resolves each code action and
sends laya/decide and laya/structured is validated against the LSP 3.18 metaModel (and the custom results
against their JSON shapes), and results arrive as plain JSON (keys such as "$id" intact)."""

from __future__ import annotations

import jsonschema
from conftest import DEFAULT_SERVER_CMD
from lspclient import LspClient, rich_capabilities
from metamodel import CUSTOM_RESULT_SCHEMAS, SessionValidator

URI = "file:///work/decisions%20demo.py"
TEXT = ("import os\n\n\ndef volume(w, h, d):\n    return w * h * d\n\n\n# print the area of a 3 by 4 rectangle\n\n\n"
        "def area(w, h)\n    return w * h\n")
SCORE = {"type": "object", "required": ["id", "score"], "properties": {"id": {"type": "string"},
                                                                         "score": {"type": "number"}}}
DECIDE = {"type": "object", "required": ["choice", "confidence", "scores", "source"],
          "properties": {"choice": {"type": ["string", "null"]}, "confidence": {"type": "number"},
                         "scores": {"type": "array", "items": SCORE}, "source": {"type": "string"}}}
STRUCTURED = {"type": "object", "required": ["value", "text", "confidence", "tokens", "truncated", "source"],
              "properties": {"text": {"type": "string"}, "confidence": {"type": "number"},
                             "tokens": {"type": "integer"}, "truncated": {"type": "boolean"},
                             "source": {"type": "string"}}}
SCHEMA = {"type": "object", "required": ["$id", "class"], "properties": {
    "$id": {"type": "string", "maxLength": 4}, "class": {"enum": ["a", "b"]}}}


async def test_decisions_session_conforms():
    c = await LspClient.spawn(DEFAULT_SERVER_CMD)
    try:
        # The embedded model (its text survives post-processing, on as by default); a zero threshold lists every fix.
        await c.initialize(rich_capabilities(), {"decisionThreshold": 0.0})
        await c.did_open(URI, TEXT)
        actions = []
        for line, col in ((10, 5), (7, 3), (4, 8), (12, 0)):
            rng = {"start": {"line": line, "character": col}, "end": {"line": line, "character": col}}
            listed = await c.call("textDocument/codeAction", {"textDocument": {"uri": URI}, "range": rng,
                                                              "context": {"diagnostics": []}})
            actions += listed
        kinds = {a["kind"] for a in actions}
        assert {"quickfix.laya.fixSyntax", "refactor.rewrite.laya.implementComment",
                "refactor.rewrite.laya.addDocstring", "refactor.rewrite.laya.completeBlock"} <= kinds
        # This client announces no codeAction resolve support: each action carries a command as well, and
        # executing it makes the server compute the edit and send workspace/applyEdit.
        applied: list[dict] = []
        c.request_handlers["workspace/applyEdit"] = lambda p: applied.append(p) or {"applied": True}
        block = next(a for a in actions if a["kind"] == "refactor.rewrite.laya.completeBlock")
        assert block["command"]["command"] == "laya.applyCodeAction"
        assert await c.call("workspace/executeCommand", block["command"]) is True
        (change,) = applied[0]["edit"]["documentChanges"]
        assert change["textDocument"] == {"uri": URI, "version": 1} and change["edits"][0]["newText"]
        for action in actions:
            resolved = await c.call("codeAction/resolve", action)
            if "edit" in resolved:
                (change,) = resolved["edit"]["documentChanges"]
                assert change["textDocument"] == {"uri": URI, "version": 1}
        decided = await c.call("laya/decide", {"context": "x = ", "choices": [{"id": "a"}, {"id": "b"}]})
        jsonschema.validate(decided, DECIDE)
        out = await c.call("laya/structured", {"prompt": "x = ", "schema": SCHEMA, "maxTokens": 12})
        jsonschema.validate(out, STRUCTURED)
        jsonschema.validate(out["value"], SCHEMA)  # raw JSON: "$id" and "class" arrive as written
        assert await c.shutdown_and_exit() == 0
    finally:
        await c.close()
    custom = {**CUSTOM_RESULT_SCHEMAS, "laya/decide": DECIDE, "laya/structured": STRUCTURED}
    report = SessionValidator(custom=custom).validate_log(c.log, c.frame_errors)
    assert report.violations == [], "\n".join(report.violations[:30])
    assert report.validated > 10

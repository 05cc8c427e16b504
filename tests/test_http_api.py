"""The HTTP front against a real `laya-lsp http` process: every endpoint, sessions' cache reuse, bad bodies
(4xx and the server keeps serving), the laya/stats shape, loopback-only by default, bearer-token auth."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import jsonschema
import pytest
from httphelpers import RAW, HttpServer, wait_idle

LAYA = [sys.executable, "-m", "laya_lsp"]
SOURCE = "def add(a, b):\n    return a + b\n\n\ndef mul(a, b):\n    return"
BODY_LIMIT = 200_000


@pytest.fixture(scope="module")
def server():
    s = HttpServer("--max-body-bytes", str(BODY_LIMIT), settings=RAW)
    yield s
    s.close()


@pytest.fixture()
def c(server):
    with server.client() as client:
        yield client


def test_health_and_openapi_list_every_endpoint(c):
    h = c.get("/healthz")
    assert h.status_code == 200 and h.json()["status"] == "ok" and h.json()["model"].startswith("laya-test-tiny")
    paths = c.get("/openapi.json").json()["paths"]
    assert {"/v1/complete", "/v1/decide", "/v1/structured", "/v1/stats", "/healthz"} <= set(paths)
    assert "429" in paths["/v1/complete"]["post"]["responses"]


def test_complete_every_cursor_form_gives_candidates_with_their_stats_record(c):
    line, col = 5, len("    return")
    forms = [
        {"text": SOURCE},  # cursor at the end
        {"text": SOURCE + "\n# tail", "offset": len(SOURCE)},
        {"text": SOURCE + "\n# tail", "line": line, "column": col},
        {"prefix": SOURCE, "suffix": "\n# tail"},
    ]
    for body in forms:
        r = c.post("/v1/complete", json={**body, "language": "python"})
        assert r.status_code == 200, r.text
        out = r.json()
        assert out["status"] == "ok" and out["source"] == "model" and out["offset"] == len(SOURCE)
        assert out["candidates"] and all(x["text"].strip() for x in out["candidates"])
        st = out["stats"]
        assert st["prompt_tokens"] > 0 and st["decode_tokens"] > 0 and st["total_ms"] > 0
        assert out["httpMs"] >= st["total_ms"] and st["status"] == "ok" and st["source"] == "model"
    # Lines as LSP counts them: a form feed ends none, a lone \r does (the LSP front's position model).
    odd = "x = 1\f y = 2\rdef mul(a, b):\r\n    return"
    out = c.post("/v1/complete", json={"text": odd, "line": 2, "column": 10, "language": "python"}).json()
    assert out["offset"] == len(odd), out
    r = c.post("/v1/complete", json={"text": odd, "line": 0, "column": 13})
    assert r.status_code == 422 and "column 13 is outside line 0 (0..12)" in r.text
    inline = c.post("/v1/complete", json={"text": SOURCE, "filename": "m.py", "kind": "inline"}).json()
    assert inline["status"] == "ok" and inline["candidates"]


def test_session_keeps_its_cache_and_one_off_requests_do_not(c):
    first = c.post("/v1/complete", json={"text": SOURCE, "session": "reuse", "language": "python"}).json()
    assert first["stats"]["reused_tokens"] == 0
    again = c.post("/v1/complete", json={"text": SOURCE, "session": "reuse", "language": "python"}).json()
    assert again["source"] == "typed-through" and again["candidates"]  # nothing typed: the same answer, no model run
    typed = SOURCE + " mul_"
    second = c.post("/v1/complete", json={"text": typed, "session": "reuse", "language": "python"}).json()
    assert second["source"] == "model"
    assert second["stats"]["reused_tokens"] >= first["stats"]["prompt_tokens"] - 2
    stats = wait_idle(c)  # (a speculative job may still hold the worker: cache sizes would be a stale snapshot)
    assert not stats["cacheBytesStale"]
    rec = [r for r in stats["recent"] if r["doc"] == "session:reuse" and r["kind"] == "completion"]
    assert rec[-1] == second["stats"] and second["stats"]["reused_tokens"] > 0
    docs = {d["uri"]: d["cacheBytes"] for d in stats["documents"]}
    assert docs.get("session:reuse", 0) > 0
    assert not any(uri.startswith("http:") for uri in docs), "one-off requests must not keep a cache"
    assert stats["http"]["sessions"] >= 1


def test_decide_on_context_and_on_a_session_document(c):
    r = c.post("/v1/decide", json={"choices": ["yes", {"id": "no", "description": "no"}],
                                   "context": "Is the sky blue? Answer:", "threshold": 0})
    assert r.status_code == 200, r.text
    d = r.json()
    assert d["choice"] in ("yes", "no") and abs(sum(s["score"] for s in d["scores"]) - 1) < 1e-6
    assert d["confidence"] == max(s["score"] for s in d["scores"]) and d["source"] == "local"
    assert d["stats"]["prompt_tokens"] > 0 and d["stats"]["kind"] == "decide"
    doc = c.post("/v1/decide", json={"choices": ["a", "b", "c"], "text": SOURCE, "session": "dec",
                                     "threshold": 1.0}).json()
    assert doc["choice"] is None and len(doc["scores"]) == 3  # threshold 1: nothing is that sure


def test_structured_returns_json_valid_for_the_schema(c):
    schema = {"type": "object", "properties": {"name": {"type": "string", "maxLength": 12},
                                               "n": {"type": "integer", "minimum": 0, "maximum": 9}},
              "required": ["name", "n"]}
    r = c.post("/v1/structured", json={"schema": schema, "prompt": "a person:", "maxTokens": 24})
    assert r.status_code == 200, r.text
    out = r.json()
    jsonschema.validate(out["value"], schema)
    assert out["stats"]["decode_tokens"] == out["tokens"] > 0


def test_stats_have_the_laya_stats_shape_plus_the_http_queue(c):
    st = c.get("/v1/stats", params={"recent": 1}).json()
    assert {"summary", "recent", "documents", "cacheBytesTotal", "cacheBudgetBytes", "evictions", "queue", "model",
            "loadError", "blas", "http"} <= set(st)
    assert len(st["recent"]) == 1 and st["model"]["name"].startswith("laya-test-tiny")
    assert st["http"]["maxInFlight"] == 4 and st["http"]["inFlight"] == 0
    assert c.get("/v1/stats", params={"recent": -1}).status_code == 422


BAD = [
    (b'{"text": "x", ', "application/json", 400),  # not JSON
    (b"[]", "application/json", 422),
    (b"{}", "application/json", 422),
    (b'{"text": 5}', "application/json", 422),
    (b'{"text": "x", "bogus": 1}', "application/json", 422),
    (b'{"text": "abc", "offset": 4}', "application/json", 422),
    (b'{"text": "abc\\nd", "line": 1, "column": 2}', "application/json", 422),
    (b'{"text": "abc", "line": 3, "column": 0}', "application/json", 422),
    (b'{"text": "abc", "line": 0}', "application/json", 422),
    (b'{"text": "abc", "prefix": "a"}', "application/json", 422),
    (b'{"text": "abc", "session": "a b/../c"}', "application/json", 422),
    (b'{"text": "abc", "offset": -1}', "application/json", 422),
    (b'{"text": "abc"}', "text/plain", 422),
    (b"\xff\xfe", "application/json", 400),
]


def test_bad_bodies_get_4xx_and_the_server_keeps_serving(c):
    for body, ctype, code in BAD:
        r = c.post("/v1/complete", content=body, headers={"content-type": ctype})
        assert r.status_code == code, (body, r.status_code, r.text)
        assert r.json()["detail"], body
    decide = [{"choices": ["only"], "context": "x"}, {"choices": ["a", "a"], "context": "x"},
              {"choices": ["a", "b"]}, {"choices": ["a", "b"], "context": "x", "text": "y"},
              {"choices": ["a", "b"], "context": "x", "threshold": 2}]
    for body in decide:
        assert c.post("/v1/decide", json=body).status_code == 422, body
    structured = [{"schema": {"type": 5}, "prompt": "x"}, {"schema": [], "prompt": "x"}, {"prompt": "x"},
                  {"schema": {"type": "object"}, "prompt": ""}, {"schema": {}, "prompt": "x", "maxTokens": 0}]
    for body in structured:
        assert c.post("/v1/structured", json=body).status_code == 422, body
    big = c.post("/v1/complete", json={"text": "x" * (BODY_LIMIT + 10)})
    assert big.status_code == 413
    assert c.post("/v1/complete", json={"text": SOURCE}).json()["candidates"]
    assert c.get("/healthz").status_code == 200


def test_non_loopback_host_is_refused_without_allow_remote():
    usage = subprocess.run([*LAYA, "http", "--help"], capture_output=True, text=True, timeout=60, check=True).stdout
    for opt in ("--host", "--port", "--allow-remote", "--token", "--max-in-flight", "--max-queue", "--max-body-bytes",
                "--max-sessions", "--model", "--settings"):
        assert opt in usage
    for host in ("0.0.0.0", "192.0.2.1", "::"):
        p = subprocess.run([*LAYA, "http", "--host", host, "--port", "0"], capture_output=True, text=True, check=False,
                           timeout=60)
        assert p.returncode == 2 and "--allow-remote" in p.stderr


def test_token_auth_guards_the_api_but_not_health():
    env = {**os.environ, "LAYA_HTTP_TOKEN": "s3cret-token"}
    s = HttpServer(settings=RAW, env=env)
    try:
        with s.client() as c:
            for headers in ({}, {"Authorization": "Bearer wrong"}, {"Authorization": "Basic czNjcmV0LXRva2Vu"}):
                r = c.get("/v1/stats", headers=headers)
                assert r.status_code == 401 and r.headers["www-authenticate"] == "Bearer"
                assert c.post("/v1/complete", json={"text": "x"}, headers=headers).status_code == 401
            ok = {"Authorization": "Bearer s3cret-token"}
            assert c.get("/v1/stats", headers=ok).status_code == 200
            assert c.post("/v1/complete", json={"text": SOURCE}, headers=ok).json()["candidates"]
            assert c.get("/healthz").status_code == 200
            schemes = c.get("/openapi.json").json()["components"]["securitySchemes"]
            assert any(v.get("scheme") == "bearer" for v in schemes.values())
    finally:
        s.close()


def test_schemathesis_finds_no_server_error_and_answers_match_the_openapi_schema(server):
    """Property-based requests generated from /openapi.json (bounded: 10 per operation and phase, fixed seed)."""
    st = Path(sys.executable).with_name("st")
    checks = "not_a_server_error,status_code_conformance,content_type_conformance,response_schema_conformance"
    p = subprocess.run([str(st), "run", server.url + "/openapi.json", "--checks", checks, "--max-examples", "10",
                        "--seed", "11", "--request-timeout", "60", "--no-color"],
                       capture_output=True, text=True, timeout=300, check=False)
    assert p.returncode == 0, p.stdout[-4000:] + p.stderr[-2000:]
    assert "5 selected" in p.stdout and "passed" in p.stdout
    with server.client() as c:
        assert c.get("/healthz").status_code == 200

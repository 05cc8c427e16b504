"""The fuzz campaign's bounded slice (tests/fuzzing.py says what is generated and what must hold): random LSP
message sequences against one server over stdio, and hostile bodies to every HTTP route against a real uvicorn,
both on the tiny test model (the model's answers do not matter here, only that every one is a clear answer).

LAYA_FUZZ_SEQUENCES (default 30), LAYA_FUZZ_RANDOM_MESSAGES (default 1000) and LAYA_FUZZ_BODIES (default 60)
set the size; the long run is
`python -m benchmarks.fuzz` (>= 10^5 messages, its summary in benchmarks/results/).
"""

from __future__ import annotations

import asyncio
import json
import os
from typing import Any

import httpx
import pytest
from conftest import SERVER_CMD
from fuzzing import INSIDES, URIS, LspFuzzer, apply_changes, hostile, hostile_schema, sequences
from httphelpers import RAW, HttpServer
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis_jsonschema import from_schema
from lspclient import LspClient

SEQUENCES = int(os.environ.get("LAYA_FUZZ_SEQUENCES", "30"))
BODIES = int(os.environ.get("LAYA_FUZZ_BODIES", "60"))
QUIET = [HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.filter_too_much,
         HealthCheck.function_scoped_fixture]


# -- the model itself ------------------------------------------------------------------------------------
def test_the_document_model_follows_the_lsp_rules():
    """The model the fuzz compares against: past the end clamps, reversed ranges swap, a column inside a
    surrogate pair rounds down, lines end at \\n, \\r\\n and \\r only, one invalid position drops the message."""
    def rng(a: tuple[int, int], b: tuple[int, int], text: str) -> dict:
        return {"range": {"start": {"line": a[0], "character": a[1]}, "end": {"line": b[0], "character": b[1]}},
                "text": text}

    assert apply_changes("ab\ncd", [rng((0, 99), (0, 99), "X")]) == "abX\ncd"
    assert apply_changes("ab\ncd", [rng((9, 0), (9, 0), "X")]) == "ab\ncdX"
    assert apply_changes("ab\ncd", [rng((1, 1), (0, 1), "")]) == "ad"
    assert apply_changes("a😀b", [rng((0, 2), (0, 3), "")]) == "ab"
    assert apply_changes("a\fb\r\nc", [rng((1, 0), (1, 1), "X")]) == "a\fb\r\nX"
    assert apply_changes("ab", [rng((0, 1), (0, 1), "X"), rng((0, -1), (0, 0), "Y")]) is None
    assert apply_changes("ab", [{"text": "new"}, rng((0, 3), (0, 3), "!")]) == "new!"


# -- LSP -------------------------------------------------------------------------------------------------
class Session:
    def __init__(self) -> None:
        self.loop = asyncio.new_event_loop()
        self.c: LspClient = self.loop.run_until_complete(LspClient.spawn(SERVER_CMD, default_timeout=60))
        self.loop.run_until_complete(self.c.initialize(initialization_options=RAW))
        self.fuzzer = LspFuzzer(self.c)


@pytest.fixture(scope="module")
def lsp() -> Any:
    s = Session()
    yield s
    s.loop.run_until_complete(s.c.close())
    s.loop.close()


@settings(max_examples=SEQUENCES, deadline=None, suppress_health_check=QUIET, database=None)
@given(seq=sequences)
def test_lsp_message_sequences(lsp: Session, seq: list[tuple]):
    lsp.loop.run_until_complete(lsp.fuzzer.run(seq))


RANDOM_MESSAGES = int(os.environ.get("LAYA_FUZZ_RANDOM_MESSAGES", "1000"))


def test_lsp_random_messages(lsp: Session):
    """The long run's generator (benchmarks/fuzz.py), bounded: params drawn from each custom request's schema
    by hypothesis-jsonschema, then fresh random messages in sequences of up to 60."""
    import random

    from fuzzing import PARAMS_SCHEMAS, RandomMessages

    pool: dict[str, list] = {m: [] for m in PARAMS_SCHEMAS}
    schemas: list = []

    @settings(max_examples=5, deadline=None, suppress_health_check=QUIET, database=None)
    @given(data=st.data())
    def draw(data: st.DataObject) -> None:
        for m, schema in PARAMS_SCHEMAS.items():
            pool[m].append(data.draw(from_schema(schema)))
        schemas.append(data.draw(hostile_schema))

    draw()
    rng = random.Random(36)
    gen = RandomMessages(rng, pool, schemas)
    start = lsp.fuzzer.tally.messages
    while lsp.fuzzer.tally.messages - start < RANDOM_MESSAGES:
        lsp.loop.run_until_complete(lsp.fuzzer.run([gen.action() for _ in range(rng.randint(1, 60))]))


def test_lsp_fuzz_found_nothing_and_the_server_still_completes(lsp: Session):
    """Runs after the sequences (file order): no finding, and a normal completion is answered."""
    t = lsp.fuzzer.tally

    async def complete() -> dict:
        await lsp.c.did_open(URIS[0], "def main():\n    return ")
        return await lsp.c.completion(URIS[0], 1, 11, timeout=60)

    resp = lsp.loop.run_until_complete(complete())
    assert resp.get("result") and resp["result"]["items"], resp
    print(f"\nlsp fuzz: {t.sequences} sequences, {t.messages} messages, {t.requests} requests, codes {t.codes}")
    errors = [line for line in lsp.c.stderr.splitlines() if " ERROR " in line or line.startswith(("  File", "E"))]
    assert t.findings == [], "\n".join(t.findings[:20] + ["server stderr:", *errors[-40:]])
    assert t.sequences > 0 and t.requests > 0


# -- HTTP ------------------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def http() -> Any:
    s = HttpServer(settings=RAW)
    with s.client() as c:
        spec = c.get("/openapi.json").json()
    yield s, spec
    s.close()


ROUTES = ["/v1/complete", "/v1/decide", "/v1/structured"]


def _body_schema(spec: dict, path: str) -> dict:
    ref = spec["paths"][path]["post"]["requestBody"]["content"]["application/json"]["schema"]
    return {**ref, "components": spec["components"]}


_http_findings: list[str] = []
_http_codes: dict[int, int] = {}


@settings(max_examples=BODIES, deadline=None, suppress_health_check=QUIET, database=None)
@given(data=st.data())
def test_http_hostile_bodies_from_the_openapi_schema(http: Any, data: st.DataObject):
    server, spec = http
    path = data.draw(st.sampled_from(ROUTES))
    body = data.draw(hostile(from_schema(_body_schema(spec, path))))
    if path == "/v1/structured" and isinstance(body, dict) and data.draw(st.booleans()):
        body = {**body, "schema": data.draw(hostile_schema), "maxTokens": 8}
    if isinstance(body, dict) and isinstance(body.get("maxTokens"), int) and body["maxTokens"] > 16:
        body["maxTokens"] = 16  # a long answer costs time and shows nothing new
    with httpx.Client(base_url=server.url, timeout=60) as c:
        r = c.post(path, content=json.dumps(body).encode(), headers={"content-type": "application/json"})
        _http_codes[r.status_code] = _http_codes.get(r.status_code, 0) + 1
        if r.status_code >= 500 or (r.status_code != 200 and INSIDES.search(r.text)):
            _http_findings.append(f"{path} {json.dumps(body)[:300]} -> {r.status_code} {r.text[:300]}")
        assert r.headers.get("content-type", "").startswith("application/json"), r.text[:200]


def test_http_fuzz_found_nothing_and_the_server_still_completes(http: Any):
    server, _spec = http
    with server.client() as c:
        r = c.post("/v1/complete", json={"text": "def main():\n    return "})
        assert r.status_code == 200 and r.json()["candidates"], r.text[:300]
    print(f"\nhttp fuzz: {sum(_http_codes.values())} bodies, statuses {_http_codes}")
    assert _http_findings == [], "\n".join(_http_findings[:20])

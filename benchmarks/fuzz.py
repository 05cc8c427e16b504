"""The fuzz campaign's long run: tests/fuzzing.py's generated LSP message sequences against one server over stdio,
and hostile bodies from the OpenAPI schema against `laya-lsp http`, until --messages LSP messages (default 10^5)
and --http-bodies bodies have been sent; then the OpenAPI schema through schemathesis (all modes). Hypothesis
draws too slowly for 10^5 messages: each custom request's params (--pool per method, from its JSON Schema) and
hostile JSON Schemas are drawn by it once, and every message is generated fresh from random.Random
(tests/fuzzing.py `RandomMessages`: edits, positions, texts, junk, and those params made hostile).

    python -m benchmarks.fuzz [--messages 100000] [--http-bodies 1000] [--schemathesis-examples 100] [--model DIR]

Invariants (tests/fuzzing.py): every request answered once, never InternalError or RequestFailed, no
traceback/path/repr in any error or message, the server alive, documents equal to a model of the edits; HTTP
never a 500 nor the server's insides. Findings are collected, not raised, and the summary (counts, codes,
findings) is saved under benchmarks/results/. Without --model the tests' tiny model is used: the model's
answers do not matter here. The bounded slice of the same campaign is tests/test_rel_fuzz.py.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import httpx
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from benchmarks.common import save

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

import fuzzing
from httphelpers import RAW, HttpServer
from lspclient import LspClient

QUIET = list(HealthCheck)
CHUNK = 200  # examples per hypothesis run (each run draws afresh)


def draw_all(strategy: Any, n: int) -> list[Any]:
    """`n` values hypothesis draws from `strategy` (generation only: no shrinking, no database)."""
    got: list[Any] = []

    @settings(max_examples=n, deadline=None, suppress_health_check=QUIET, database=None, phases=[Phase.generate])
    @given(value=strategy)
    def draw(value: Any) -> None:
        got.append(value)

    while len(got) < n:
        draw()
    return got[:n]


def param_pool(per_method: int) -> tuple[dict[str, list[Any]], list[Any]]:
    """Each custom request's params drawn from its JSON Schema (hypothesis-jsonschema), and hostile schemas."""
    pool = {m: draw_all(fuzzing.from_schema(schema), per_method) for m, schema in fuzzing.PARAMS_SCHEMAS.items()}
    return pool, draw_all(fuzzing.hostile_schema, 3 * per_method)


def lsp_campaign(args: argparse.Namespace) -> dict[str, Any]:
    loop = asyncio.new_event_loop()
    t0 = time.perf_counter()
    pool, schemas = param_pool(args.pool)
    print(f"{time.perf_counter() - t0:8.0f}s  drew {sum(map(len, pool.values()))} params, {len(schemas)} schemas",
          flush=True)
    cmd = [sys.executable, "-m", "laya_lsp", "--model", str(args.model)]
    c = loop.run_until_complete(LspClient.spawn(cmd, default_timeout=120))
    loop.run_until_complete(c.initialize(initialization_options=RAW))
    fuzzer = fuzzing.LspFuzzer(c, timeout=120)
    rng = random.Random(args.seed)
    messages = fuzzing.RandomMessages(rng, pool, schemas)
    died, last = None, 0.0
    while fuzzer.tally.messages < args.messages:
        seq = [messages.action() for _ in range(rng.randint(1, 120))]
        try:
            loop.run_until_complete(fuzzer.run(seq))
        except Exception as exc:  # noqa: BLE001 - a dead or hung server ends the run, and is its finding
            died = f"{type(exc).__name__}: {str(exc)[:500]}"
            break
        if time.perf_counter() - last > 30:
            last = time.perf_counter()
            t = fuzzer.tally
            print(f"{last - t0:8.0f}s  {t.messages} messages  {t.requests} requests  {len(t.findings)} findings  "
                  f"codes {t.codes}", flush=True)
    final = None
    if died is None:
        loop.run_until_complete(c.did_open(fuzzing.URIS[0], "def main():\n    return "))
        final = loop.run_until_complete(c.completion(fuzzing.URIS[0], 1, 11, timeout=120))
    code = loop.run_until_complete(c.shutdown_and_exit()) if died is None else None
    loop.run_until_complete(c.close())
    t = fuzzer.tally
    return {
        "params_drawn": sum(map(len, pool.values())),
        "schemas_drawn": len(schemas),
        "sequences": t.sequences,
        "messages": t.messages,
        "requests": t.requests,
        "codes": t.codes,
        "findings": t.findings[:200],
        "finding_count": len(t.findings),
        "died": died,
        "exit_code": code,
        "completion_after": bool(final and final.get("result") and final["result"].get("items")),
        "seconds": round(time.perf_counter() - t0, 1),
    }


def http_campaign(args: argparse.Namespace) -> dict[str, Any]:
    from hypothesis_jsonschema import from_schema

    server = HttpServer(settings=RAW, model=args.model, timeout=120)
    codes: dict[int, int] = {}
    findings: list[str] = []
    sent = 0
    t0 = time.perf_counter()
    try:
        with server.client() as c:
            spec = c.get("/openapi.json").json()
        routes = {p: {**spec["paths"][p]["post"]["requestBody"]["content"]["application/json"]["schema"],
                      "components": spec["components"]} for p in ("/v1/complete", "/v1/decide", "/v1/structured")}

        @settings(max_examples=CHUNK, deadline=None, suppress_health_check=QUIET, database=None,
                  phases=[Phase.generate])
        @given(data=st.data())
        def chunk(data: st.DataObject) -> None:
            nonlocal sent
            path = data.draw(st.sampled_from(sorted(routes)))
            body = data.draw(fuzzing.hostile(from_schema(routes[path])))
            if path == "/v1/structured" and isinstance(body, dict) and data.draw(st.booleans()):
                body = {**body, "schema": data.draw(fuzzing.hostile_schema), "maxTokens": 8}
            if isinstance(body, dict) and isinstance(body.get("maxTokens"), int) and body["maxTokens"] > 16:
                body["maxTokens"] = 16
            if sent >= args.http_bodies:
                return  # (after drawing: hypothesis wants the same draws for the same choices)
            with httpx.Client(base_url=server.url, timeout=120) as hc:
                r = hc.post(path, content=json.dumps(body).encode(), headers={"content-type": "application/json"})
            sent += 1
            codes[r.status_code] = codes.get(r.status_code, 0) + 1
            if r.status_code >= 500 or (r.status_code != 200 and fuzzing.INSIDES.search(r.text)):
                findings.append(f"{path} {json.dumps(body)[:300]} -> {r.status_code} {r.text[:300]}")

        while sent < args.http_bodies:
            chunk()
            print(f"{time.perf_counter() - t0:8.0f}s  {sent} bodies  statuses {codes}  {len(findings)} findings",
                  flush=True)
        st_out = _schemathesis(server.url, args.schemathesis_examples)
        with server.client() as c:
            alive = c.post("/v1/complete", json={"text": "def main():\n    return "}).status_code == 200
    finally:
        server.close()
    return {"bodies": sent, "statuses": {str(k): v for k, v in sorted(codes.items())}, "findings": findings[:200],
            "finding_count": len(findings), "schemathesis": st_out, "completion_after": alive,
            "seconds": round(time.perf_counter() - t0, 1)}


def _schemathesis(url: str, examples: int) -> dict[str, Any]:
    """schemathesis on /openapi.json, every generation mode (valid and invalid data): no server error."""
    exe = Path(sys.executable).with_name("st")
    p = subprocess.run([str(exe), "run", url + "/openapi.json", "--checks", "not_a_server_error", "--mode", "all",
                        "--max-examples", str(examples), "--seed", "36", "--request-timeout", "120", "--no-color"],
                       capture_output=True, text=True, timeout=3600, check=False)
    tail = [line for line in p.stdout.splitlines() if line.strip()][-8:]
    return {"returncode": p.returncode, "summary": tail}


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--messages", type=int, default=100_000, help="LSP messages to send (default 10^5)")
    p.add_argument("--pool", type=int, default=100, help="params drawn per custom request (default 100)")
    p.add_argument("--seed", type=int, default=36)
    p.add_argument("--http-bodies", type=int, default=1000, help="HTTP bodies to send (default 1000)")
    p.add_argument("--schemathesis-examples", type=int, default=100, help="per operation and phase (default 100)")
    p.add_argument("--model", type=Path, help="model directory (default: the tests' tiny model)")
    args = p.parse_args()
    if args.model is None:
        from tests.conftest import TINY_MODEL

        args.model = TINY_MODEL
    t0 = time.time()
    out: dict[str, Any] = {"lsp": lsp_campaign(args), "http": http_campaign(args)}
    out["ok"] = bool(out["lsp"]["finding_count"] == 0 and out["lsp"]["died"] is None
                     and out["lsp"]["completion_after"] and out["http"]["finding_count"] == 0
                     and out["http"]["completion_after"] and out["http"]["schemathesis"]["returncode"] == 0)
    out["started"] = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime(t0))
    print(json.dumps(out, indent=1)[:4000])
    print("saved", save("fuzz", {"args": {k: str(v) for k, v in vars(args).items()}, **out}))
    return 0 if out["ok"] else 1


if __name__ == "__main__":
    raise SystemExit(main())

"""The hand-off of completions to a serving engine, through the server over stdio: against a real
`mlx_lm.server` (the embedded model, 127.0.0.1, started here) and a stand-in server that holds, refuses or
garbles its answer. The local answer is never delayed (asserted by order, never by time), the remote answer
serves the next request at the version it was asked for and never a newer one, a keystroke cancels a hand-off
in flight, and every failure leaves completions working."""

from __future__ import annotations

import asyncio
import http.server
import json
import socket
import threading
from collections.abc import Iterator

import pytest
import pytest_lsp
from conftest import DEFAULT_MODEL, DEFAULT_SERVER_CMD
from lsphelpers import change, open_doc, position_at, stats
from lsprotocol import types as lsp
from mlxserver import free_port, greedy, mlx_lm_server
from pytest_lsp import ClientServerConfig, LanguageClient

from laya_lsp.orchestrator.latency.handoff import remote_prompt, token_spans

pytestmark = pytest.mark.asyncio(loop_scope="module")

# Every model run hands off ("always"): which positions are unsure is the confidence cut's business.
# (ghost text whatever the model's confidence: these tests are about other things; the cut: test_confidence*)
BASE = {"debounceMs": 0, "candidates": 1, "typingCandidates": 1, "maxTokens": 24, "speculative": False,
        "minConfidence": 0,
        "warmUp": False, "firstLineFirst": False, "crossFileTokens": 0}
DOC = "def total(values):\n    result = 0\n    for v in values:\n        result = "
MARKER = "remote_marker(v)"  # what the stand-in server answers: no local model writes it
# Its answer with token log-probabilities: sure of MARKER, unsure of the rest (as OpenAI's API and vLLM send them,
# and as mlx_lm.server does: pieces spelled as the vocabulary spells them, in `logprobs.content`).
SURE_THEN_NOT = [("remote", -0.001), ("_marker", -0.001), ("(v", -0.001), (")", -0.001), (" +", -20.0),
                 (" unsure", -20.0), ("(v", -20.0), (")", -20.0), ("\n", -0.5)]
LOGPROBS = {
    "openai": {"tokens": [t for t, _ in SURE_THEN_NOT], "token_logprobs": [p for _, p in SURE_THEN_NOT]},
    "pieces": {"content": [{"id": i, "token": t.replace(" ", "\u0120").replace("\n", "\u010a"), "logprob": p}
                           for i, (t, p) in enumerate(SURE_THEN_NOT)]},
}


class StandIn:
    """An OpenAI-compatible stand-in on 127.0.0.1: answers MARKER, or holds the request until released, or
    answers garbage; notes each request and whether its client hung up while it was held."""

    def __init__(self) -> None:
        self.mode = "answer"
        self.received = threading.Event()
        self.release = threading.Event()
        self.hung_up = threading.Event()
        self.requests: list[dict] = []
        stand_in = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                stand_in.requests.append(json.loads(self.rfile.read(int(self.headers["Content-Length"]))))
                stand_in.received.set()
                if stand_in.mode == "hold":
                    while not stand_in.release.wait(0.02):
                        if stand_in.client_left(self.connection):
                            stand_in.hung_up.set()
                            return
                bodies = {"garbage": b"<html>not json", "empty": json.dumps({"choices": [{"text": ""}]}).encode(),
                          "shapeless": json.dumps({"result": MARKER}).encode()}
                if stand_in.mode in LOGPROBS:  # the server stopped at the line break (a stop string): not in text
                    text = "".join(t for t, _ in SURE_THEN_NOT[:-1])
                    bodies[stand_in.mode] = json.dumps({"choices": [{"index": 0, "text": text,
                                                                     "logprobs": LOGPROBS[stand_in.mode]}]}).encode()
                out = bodies.get(stand_in.mode, json.dumps({"choices": [{"index": 0, "text": MARKER}]}).encode())
                self.send_response(500 if stand_in.mode == "error" else 200)
                self.send_header("Content-Length", str(len(out)))
                self.end_headers()
                self.wfile.write(out)

            def log_message(self, *args: object) -> None:
                pass

        self.httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}"
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()

    @staticmethod
    def client_left(conn: socket.socket) -> bool:
        conn.setblocking(False)
        try:
            return conn.recv(1, socket.MSG_PEEK) == b""
        except BlockingIOError:
            return False
        finally:
            conn.setblocking(True)

    def reset(self, mode: str) -> None:
        self.mode = mode
        for event in (self.received, self.release, self.hung_up):
            event.clear()

    def close(self) -> None:
        self.release.set()
        self.httpd.shutdown()


@pytest.fixture(scope="module")
def remote() -> Iterator[str]:
    with mlx_lm_server(DEFAULT_MODEL) as url:
        yield url


@pytest.fixture(scope="module")
def stand_in() -> Iterator[StandIn]:
    s = StandIn()
    yield s
    s.close()


@pytest_lsp.fixture(config=ClientServerConfig(server_command=DEFAULT_SERVER_CMD), scope="module",
                    loop_scope="module")
async def client(lsp_client: LanguageClient):
    await lsp_client.initialize_session(lsp.InitializeParams(
        capabilities=lsp.ClientCapabilities(), process_id=None, initialization_options=BASE))
    yield
    await lsp_client.shutdown_session()


def configure(client: LanguageClient, url: str, **more: object) -> None:
    fallback = {"url": url, "completions": "always", "deadlineMs": 600000, **more}
    client.workspace_did_change_configuration(
        lsp.DidChangeConfigurationParams(settings={"laya": {"fallback": fallback}})
    )


async def inline(client: LanguageClient, uri: str, text: str) -> tuple[list[str], dict]:
    """The inline answer at the end of `text` and its record."""
    res = await client.text_document_inline_completion_async(lsp.InlineCompletionParams(
        text_document=lsp.TextDocumentIdentifier(uri=uri), position=position_at(text, len(text)),
        context=lsp.InlineCompletionContext(trigger_kind=lsp.InlineCompletionTriggerKind.Invoked)))
    items = res.items if isinstance(res, lsp.InlineCompletionList) else (res or [])
    record = [r for r in (await stats(client, recent=10))["recent"] if r["kind"] == "inline"][-1]
    return [str(i.insert_text) for i in items], record


async def handoff_record(client: LanguageClient, after: int) -> dict:
    """The first hand-off record booked after record id `after` (it comes when the serving engine answered)."""
    for _ in range(1200):
        recs = [r for r in (await stats(client, recent=20))["recent"] if r["kind"] == "handoff" and r["id"] > after]
        if recs:
            return recs[0]
        await asyncio.sleep(0.05)
    raise AssertionError("the hand-off never ended")


async def last_id(client: LanguageClient) -> int:
    recent = (await stats(client, recent=1))["recent"]
    return recent[-1]["id"] if recent else -1


async def test_the_local_answer_comes_first_and_the_engines_answer_next(client: LanguageClient, remote: str):
    configure(client, remote, fim="qwen/spm")  # the prompt layout the embedded model is trained on
    uri = "file:///real.py"
    open_doc(client, uri, DOC)
    before = await last_id(client)
    local, first = await inline(client, uri, DOC)
    assert first["source"] == "model", first
    record = await handoff_record(client, before)
    assert record["status"] == "ok" and record["candidates"] == 1, record
    # What the engine says for this position, asked directly with the prompt the hand-off sends.
    asked = remote_prompt("qwen/spm", DOC, len(DOC), [], uri)
    said = asked.answer(greedy(remote, asked.prompt, 24)).split("\n")[0].rstrip()
    assert said.strip(), "the serving engine said nothing here"
    again, second = await inline(client, uri, DOC)
    assert second["source"] == "handoff", second
    assert again and said.startswith(again[0].rstrip()), (again, said, local)


async def test_a_newer_version_never_gets_the_old_answer(client: LanguageClient, stand_in: StandIn):
    stand_in.reset("answer")
    configure(client, stand_in.url)
    uri = "file:///newer.py"
    open_doc(client, uri, DOC)
    end, typed = position_at(DOC, len(DOC)), DOC + "x"
    before = await last_id(client)
    await inline(client, uri, DOC)
    assert (await handoff_record(client, before))["status"] == "ok"
    # The answer for version 1 has arrived; the user types on and asks at version 2.
    change(client, uri, 2, end, end, "x")
    texts, record = await inline(client, uri, typed)
    assert record["source"] != "handoff" and not any(MARKER in t for t in texts), (record, texts)
    # The answer for version 2 arrives; the user deletes the "x" and types it again, asking nothing in between
    # (version 4: the text of version 2, a newer version).
    assert (await handoff_record(client, record["id"]))["status"] == "ok"
    change(client, uri, 3, end, position_at(typed, len(typed)), "")
    change(client, uri, 4, end, end, "x")
    texts, record = await inline(client, uri, typed)
    assert record["source"] != "handoff" and not any(MARKER in t for t in texts), (record, texts)


async def test_the_local_answer_never_waits_and_a_keystroke_cancels(client: LanguageClient, stand_in: StandIn):
    stand_in.reset("hold")
    configure(client, stand_in.url)
    uri = "file:///held.py"
    open_doc(client, uri, DOC)
    # Answered although the stand-in will hold its request (the bound only ends the test if it never is).
    texts, record = await asyncio.wait_for(inline(client, uri, DOC), 120)
    assert record["source"] == "model"
    await asyncio.to_thread(stand_in.received.wait, 60)
    assert stand_in.received.is_set() and not stand_in.release.is_set()
    # While the stand-in holds the hand-off, requests are answered locally, at this version and the next.
    _, record = await inline(client, uri, DOC)
    assert record["source"] != "handoff" and not stand_in.release.is_set()
    end = position_at(DOC, len(DOC))
    change(client, uri, 2, end, end, "v")
    typed = DOC + "v"
    await inline(client, uri, typed)
    # The keystroke cancelled the hand-off of version 1: its connection was closed.
    assert await asyncio.to_thread(stand_in.hung_up.wait, 60), "the hand-off was not cancelled"
    stand_in.release.set()
    texts, record = await inline(client, uri, typed)
    assert not any(MARKER in t for t in texts), texts


@pytest.mark.parametrize(("mode", "error"), [
    ("refused", "refused"), ("hold", "no answer within"), ("garbage", "not JSON"), ("error", "HTTP 500"),
    ("empty", "empty"), ("shapeless", "unexpected response"),
])
async def test_a_failing_engine_leaves_completions_working(client: LanguageClient, stand_in: StandIn, mode: str,
                                                           error: str):
    stand_in.reset(mode)
    url = f"http://127.0.0.1:{free_port()}" if mode == "refused" else stand_in.url
    configure(client, url, deadlineMs=300)
    uri = f"file:///failing-{mode}.py"
    open_doc(client, uri, DOC)
    before = await last_id(client)
    local, _ = await inline(client, uri, DOC)
    record = await handoff_record(client, before)
    assert record["status"] == "error" and error in record["error"], record
    stand_in.release.set()
    again, second = await inline(client, uri, DOC)
    assert second["source"] in ("model", "typed-through") and second["status"] == "ok", second
    assert again == local and local, (local, again)


async def test_unsure_answers_are_handed_off(client: LanguageClient, stand_in: StandIn):
    """With `completions: "unsure"`, an answer the confidence cut shortens or withholds is handed off."""
    stand_in.reset("answer")
    client.workspace_did_change_configuration(lsp.DidChangeConfigurationParams(settings={"laya": {
        "minConfidence": 0.999, "fallback": {"url": stand_in.url, "completions": "unsure", "deadlineMs": 600000}}}))
    uri = "file:///unsure.py"
    open_doc(client, uri, DOC)
    before = await last_id(client)
    _, first = await inline(client, uri, DOC)
    assert first["extra"]["unsure"], first  # the record says why the hand-off started
    assert (await handoff_record(client, before))["status"] == "ok"
    texts, record = await inline(client, uri, DOC)
    assert record["source"] == "handoff" and texts == [MARKER], (record, texts)
    client.workspace_did_change_configuration(
        lsp.DidChangeConfigurationParams(settings={"laya": {"minConfidence": 0.0}})
    )


async def test_the_hand_off_sends_at_most_context_chars_of_the_document(client: LanguageClient, stand_in: StandIn):
    """`fallback.contextChars` bounds what the serving engine is sent (its model's context may be short)."""
    stand_in.reset("answer")
    configure(client, stand_in.url, contextChars=600)
    uri = "file:///long.py"
    text = "".join(f"value_{i} = {i}\n" for i in range(400)) + DOC
    open_doc(client, uri, text)
    before = await last_id(client)
    await inline(client, uri, text)
    assert (await handoff_record(client, before))["status"] == "ok"
    prompt = stand_in.requests[-1]["prompt"]
    # (the document is ~5,700 characters; the layout adds its own context lines)
    assert "value_399 = 399" in prompt and "value_100 = 100" not in prompt and len(prompt) < 2000, len(prompt)
    configure(client, stand_in.url, contextChars=10000)


@pytest.mark.parametrize("mode", ["openai", "pieces"])
async def test_the_engines_answer_is_cut_by_its_own_token_probabilities(client: LanguageClient, stand_in: StandIn,
                                                                         mode: str):
    """The remote's answer is asked with its tokens' log-probabilities and cut like a local one: ghost text shows
    the part the remote was sure of; the completion list offers it whole."""
    stand_in.reset(mode)
    client.workspace_did_change_configuration(lsp.DidChangeConfigurationParams(settings={"laya": {
        "minConfidence": 0.3, "fallback": {"url": stand_in.url, "completions": "always", "deadlineMs": 600000}}}))
    uri = f"file:///cut-{mode}.py"
    open_doc(client, uri, DOC)
    before = await last_id(client)
    await inline(client, uri, DOC)
    assert (await handoff_record(client, before))["status"] == "ok"
    assert stand_in.requests[-1]["logprobs"] is True
    texts, record = await inline(client, uri, DOC)
    assert record["source"] == "handoff" and texts == [MARKER], (record, texts)
    params = lsp.CompletionParams(text_document=lsp.TextDocumentIdentifier(uri=uri),
                                  position=position_at(DOC, len(DOC)))
    listed = await client.text_document_completion_async(params)
    assert isinstance(listed, lsp.CompletionList)
    assert MARKER + " + unsure(v)" in [i.text_edit.new_text for i in listed.items if i.text_edit], listed.items
    client.workspace_did_change_configuration(
        lsp.DidChangeConfigurationParams(settings={"laya": {"minConfidence": 0.0}})
    )


async def test_mlx_lm_server_sends_token_log_probabilities_that_spell_its_answer(remote: str):
    """What the hand-off cuts by: a real mlx_lm.server's tokens, asked as the hand-off asks, spell its text."""
    from laya_lsp.config import FallbackSettings
    from laya_lsp.decisions.fallback import complete_async

    asked = remote_prompt("qwen/spm", DOC, len(DOC), [], "file:///real.py")
    said = await complete_async(FallbackSettings(url=remote, deadline_ms=600000), asked.prompt, 16, asked.stop,
                                None, logprobs=True)
    assert said.text.strip() and said.tokens, said
    spans = token_spans(said.text, said.tokens)
    assert spans is not None and spans[-1][0] == len(said.text) and len(spans) > 1, said
    assert all(lp <= 0 for _, lp in said.tokens)


async def test_a_completion_list_is_incomplete_and_asked_again_gets_the_engines_answer(client: LanguageClient,
                                                                                       stand_in: StandIn):
    stand_in.reset("answer")
    configure(client, stand_in.url)
    uri = "file:///listed.py"
    open_doc(client, uri, DOC)
    before = await last_id(client)
    params = lsp.CompletionParams(text_document=lsp.TextDocumentIdentifier(uri=uri),
                                  position=position_at(DOC, len(DOC)))
    first = await client.text_document_completion_async(params)
    assert isinstance(first, lsp.CompletionList) and first.is_incomplete  # the editor asks again
    assert not any(MARKER in (i.text_edit.new_text if i.text_edit else "") for i in first.items)
    assert (await handoff_record(client, before))["status"] == "ok"
    params.context = lsp.CompletionContext(trigger_kind=lsp.CompletionTriggerKind.TriggerForIncompleteCompletions)
    again = await client.text_document_completion_async(params)
    assert isinstance(again, lsp.CompletionList) and again.is_incomplete
    assert [i.text_edit.new_text for i in again.items if i.text_edit] == [MARKER], again.items

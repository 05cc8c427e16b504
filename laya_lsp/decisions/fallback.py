"""The hand-off tier: ask a bigger model on an OpenAI-compatible `/v1/completions` server when local
confidence is low (mlx-lm's `mlx_lm.server`, vLLM, llama.cpp's server, ...).

Off by default: nothing here runs, and no socket is opened, unless `fallback.url` is set. Decisions' calls
block (they run in a thread, never on the inference worker); completions' (`complete_async`) run on the event
loop and are cancelled by the next keystroke. Every failure (refused, timeout, HTTP error, bad JSON) is a
`FallbackError`, which callers answer with their local result.
"""

from __future__ import annotations

import json
import logging
import re
import urllib.parse
from dataclasses import dataclass, field
from typing import Any

from ..config import FallbackSettings

log = logging.getLogger(__name__)


class FallbackError(RuntimeError):
    """The fallback server could not answer (the local result is used instead)."""


@dataclass
class FallbackAnswer:
    text: str
    model: str
    # Each generated token's text and log-probability, where the server sent them (asked with `logprobs`); the
    # tokens may run past `text` (a stop string the server cut off). Empty: the server sent none.
    tokens: list[tuple[str, float]] = field(default_factory=list)


def enabled(s: FallbackSettings) -> bool:
    return bool(s.url.strip())


def wanted(s: FallbackSettings, confidence: float) -> bool:
    """Hand off when a fallback is configured and the local confidence is below its threshold."""
    return enabled(s) and confidence < s.threshold


def endpoint(url: str) -> str:
    """Accept a server root, a `/v1` base or the full `/v1/completions` URL."""
    u = url.strip().rstrip("/")
    if u.endswith("/completions"):
        return u
    return u + ("/completions" if u.endswith("/v1") else "/v1/completions")


def request_body(s: FallbackSettings, prompt: str, max_tokens: int, stop: list[str] | None = None,
                 suffix: str | None = None, logprobs: bool = False) -> dict[str, Any]:
    """The `/v1/completions` body: greedy, the configured model, at most four stop strings (the API's limit);
    `logprobs`: each token's log-probability too (mlx_lm.server takes a boolean and names the tokens only among
    the top ones; OpenAI's API and vLLM take a count, which `true` is as 1)."""
    body: dict[str, Any] = {"prompt": prompt, "max_tokens": max_tokens, "temperature": 0.0}
    if logprobs:
        body.update(logprobs=True, top_logprobs=1)
    if suffix is not None:
        body["suffix"] = suffix
    if s.model:
        body["model"] = s.model
    if stop:
        body["stop"] = stop[:4]
    return body


def request_headers(s: FallbackSettings, length: int | None = None) -> dict[str, str]:
    headers = {"Content-Type": "application/json"}
    if length is not None:
        headers["Content-Length"] = str(length)
    if s.api_key:
        headers["Authorization"] = f"Bearer {s.api_key}"
    return headers


def answer_from(s: FallbackSettings, raw: bytes) -> FallbackAnswer:
    """The first choice's text of a `/v1/completions` response body (FallbackError for anything else)."""
    try:
        data = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, ValueError) as exc:
        raise FallbackError(f"the response is not JSON: {raw[:80]!r}") from exc
    try:
        text = data["choices"][0]["text"]
    except (KeyError, IndexError, TypeError) as exc:
        raise FallbackError(f"unexpected response: {str(data)[:200]}") from exc
    if not isinstance(text, str):
        raise FallbackError("the response's text is not a string")
    return FallbackAnswer(text, str(data.get("model") or s.model or ""), answer_tokens(data["choices"][0]))


def answer_tokens(choice: Any) -> list[tuple[str, float]]:
    """The generated tokens' texts and log-probabilities of a `/v1/completions` choice: OpenAI's `logprobs`
    (`tokens`, `token_logprobs`: vLLM, llama.cpp's server) or the chat-style `logprobs.content` mlx_lm.server
    sends (pieces as the vocabulary spells them); [] where there are none or they make no sense."""
    lp = choice.get("logprobs") if isinstance(choice, dict) else None
    if not isinstance(lp, dict):
        return []
    if isinstance(lp.get("tokens"), list) and isinstance(lp.get("token_logprobs"), list):
        pairs, pieces = list(zip(lp["tokens"], lp["token_logprobs"])), False
    elif isinstance(lp.get("content"), list):
        pairs = [(c.get("token"), c.get("logprob")) for c in lp["content"] if isinstance(c, dict)]
        pieces = True
    else:
        return []
    if not pairs or any(not isinstance(t, str) or isinstance(p, bool) or not isinstance(p, (int, float)) or p > 0
                        for t, p in pairs):
        return []
    texts = piece_texts([t for t, _ in pairs]) if pieces else [t for t, _ in pairs]
    return [(t, float(p)) for t, (_, p) in zip(texts, pairs)]


def _byte_of() -> dict[str, int]:
    """Byte-level BPE's printable stand-in for each byte (GPT-2's table: 'Ġ' is a space, 'Ċ' a line break)."""
    keep = list(range(ord("!"), ord("~") + 1)) + list(range(0xA1, 0xAD)) + list(range(0xAE, 0x100))
    extra = [b for b in range(256) if b not in keep]
    return {**{chr(b): b for b in keep}, **{chr(256 + i): b for i, b in enumerate(extra)}}


BYTE_OF = _byte_of()
_BYTE_TOKEN = re.compile(r"<0x([0-9A-Fa-f]{2})>")


def piece_texts(pieces: list[str]) -> list[str]:
    """Token pieces as a vocabulary spells them (byte-level BPE, SentencePiece's '▁' and <0xNN> bytes) as the
    text each adds; a character split over tokens belongs to the token that completes it."""
    out: list[str] = []
    raw, done = b"", ""
    for p in pieces:
        if all(ch in BYTE_OF for ch in p):
            raw += bytes(BYTE_OF[ch] for ch in p)
        elif _BYTE_TOKEN.fullmatch(p):
            raw += bytes([int(p[3:5], 16)])
        else:
            raw += p.replace("\u2581", " ").encode("utf-8")
        now = raw.decode("utf-8", errors="ignore")
        out.append(now[len(done):])
        done = now
    return out


def complete(s: FallbackSettings, prompt: str, max_tokens: int, stop: list[str] | None = None) -> FallbackAnswer:
    """One greedy completion of `prompt` from the fallback server (blocking, with the configured timeout)."""
    import urllib.error  # (the HTTP client stack: only when a fallback is configured, not at every start)
    import urllib.request

    if not enabled(s):
        raise FallbackError("no fallback.url configured")
    body = request_body(s, prompt, max_tokens, stop)
    req = urllib.request.Request(endpoint(s.url), json.dumps(body).encode(), request_headers(s), method="POST")
    # A loopback server is reached directly, never through an HTTP proxy from the environment.
    host = urllib.parse.urlsplit(endpoint(s.url)).hostname or ""
    handlers = [urllib.request.ProxyHandler({})] if host in ("localhost", "127.0.0.1", "::1") else []
    opener = urllib.request.build_opener(*handlers)
    try:
        with opener.open(req, timeout=max(0.05, s.timeout_ms / 1000)) as resp:
            raw = resp.read()
    except (urllib.error.URLError, OSError, ValueError) as exc:
        raise FallbackError(f"{type(exc).__name__}: {exc}") from exc
    return answer_from(s, raw)


# A completion's answer is a few hundred bytes; anything past this is not one.
MAX_RESPONSE_BYTES = 4 << 20


async def complete_async(s: FallbackSettings, prompt: str, max_tokens: int, stop: list[str] | None = None,
                         suffix: str | None = None, logprobs: bool = False) -> FallbackAnswer:
    """One greedy completion, on the event loop (never blocking it) within `s.deadline_ms`. Cancelling the
    awaiting task closes the connection, so the server sees the request dropped. Connects directly (no proxy)."""
    import asyncio

    url = urllib.parse.urlsplit(endpoint(s.url))
    if url.scheme not in ("http", "https") or not url.hostname:
        raise FallbackError(f"fallback.url must be an http(s) URL, got {s.url!r}")
    payload = json.dumps(request_body(s, prompt, max_tokens, stop, suffix, logprobs)).encode()
    port = url.port or (443 if url.scheme == "https" else 80)
    path = (url.path or "/") + (f"?{url.query}" if url.query else "")
    head = f"POST {path} HTTP/1.1\r\nHost: {url.hostname}:{port}\r\nConnection: close\r\n"
    head += "".join(f"{k}: {v}\r\n" for k, v in request_headers(s, len(payload)).items()) + "\r\n"
    try:
        raw = await asyncio.wait_for(_post(url.hostname, port, url.scheme == "https", head.encode() + payload),
                                     s.deadline_ms / 1000)
    except asyncio.TimeoutError:
        raise FallbackError(f"no answer within {s.deadline_ms} ms") from None
    except ConnectionRefusedError:
        raise FallbackError(f"connection refused: is a server listening at {url.hostname}:{port}?") from None
    except (OSError, ValueError, EOFError) as exc:  # refused, reset, a malformed response (IncompleteReadError)
        raise FallbackError(f"{type(exc).__name__}: {exc}") from exc
    return answer_from(s, raw)


async def _post(host: str, port: int, tls: bool, request: bytes) -> bytes:
    """Send one HTTP/1.1 request and read the response's body (length-delimited, chunked or until close)."""
    import asyncio
    import ssl

    reader, writer = await asyncio.open_connection(host, port, ssl=ssl.create_default_context() if tls else None,
                                                   limit=MAX_RESPONSE_BYTES)
    try:
        writer.write(request)
        await writer.drain()
        status = (await reader.readline()).split(None, 2)
        if len(status) < 2 or not status[1].isdigit():
            raise FallbackError(f"not an HTTP response: {b' '.join(status)[:80]!r}")
        headers: dict[str, str] = {}
        while (line := await reader.readline()) not in (b"\r\n", b"\n", b""):
            key, _, value = line.decode("latin-1").partition(":")
            headers[key.strip().lower()] = value.strip()
        if "chunked" in headers.get("transfer-encoding", "").lower():
            body = b""
            while (size := int((await reader.readline()).split(b";")[0].strip() or b"0", 16)) > 0:
                body += await reader.readexactly(size)
                await reader.readline()
                if len(body) > MAX_RESPONSE_BYTES:
                    raise FallbackError("the response is too long")
        elif "content-length" in headers:
            body = await reader.readexactly(min(int(headers["content-length"]), MAX_RESPONSE_BYTES))
        else:
            body = await reader.read(MAX_RESPONSE_BYTES)
        if int(status[1]) != 200:
            raise FallbackError(f"HTTP {int(status[1])}: {body[:200]!r}")
        return body
    finally:
        writer.close()


def pick_option(generated: str, options: list[tuple[str, str]]) -> str | None:
    """The id of the option the fallback's text continues with (longest match first), else the option sharing
    the longest common prefix with it (at least a few characters), else None."""
    best, best_len = None, 0
    g = generated
    for oid, text in sorted(options, key=lambda o: -len(o[1])):
        if text and (g.startswith(text) or g.lstrip().startswith(text.lstrip())):
            return oid
        n = 0
        while n < min(len(g), len(text)) and g[n] == text[n]:
            n += 1
        if n > best_len:
            best, best_len = oid, n
    return best if best_len >= 3 else None


# -- hand-offs shared by the LSP and HTTP fronts (blocking: callers run them in a thread) --------------------

def handoff_decision(s: FallbackSettings, decision: Any, options: list[tuple[str, str]]) -> dict[str, Any]:
    """Ask the fallback to continue a decide's prompt and map its text onto one of `options` ((id, text));
    the fields to update the local answer with (`choice`, `source: "fallback"`, ...) or `fallbackError`."""
    longest = max(len(text) for _, text in options)
    try:
        answer = complete(s, decision.prompt_text, max(8, longest // 2 + 8))
    except FallbackError as exc:
        log.warning("fallback failed, answering locally: %s", exc)
        return {"fallbackError": str(exc)}
    picked = pick_option(answer.text, options)
    if picked is None:
        return {"fallbackError": "the fallback's answer matches no choice", "fallbackText": answer.text}
    probs = dict(decision.scores)
    return {"choice": picked, "confidence": probs[picked], "source": "fallback", "fallbackText": answer.text,
            "local": {"choice": decision.choice, "confidence": decision.confidence}}


def handoff_structured(s: FallbackSettings, prompt: str, schema: dict[str, Any], max_tokens: int,
                       result: Any) -> None:
    """Take the fallback's answer into `result` (a StructuredResult) when it holds a JSON value valid for
    `schema`; else keep the local value and say why in `result.extra`."""
    from .structured import validate  # structured pulls in MLX; this module stays light

    try:
        answer = complete(s, prompt, max_tokens)
    except FallbackError as exc:
        log.warning("fallback failed, answering locally: %s", exc)
        result.extra["fallbackError"] = str(exc)
        return
    try:
        value, end = json.JSONDecoder().raw_decode(answer.text.lstrip())
        validate(value, schema)
    except Exception as exc:  # noqa: BLE001 - not JSON, or not valid for the schema
        result.extra.update(fallbackError=f"the fallback's answer is not valid: {str(exc)[:200]}",
                            fallbackText=answer.text)
        return
    result.extra["local"] = {"value": result.value, "confidence": result.confidence}
    result.value, result.text, result.source = value, answer.text.lstrip()[:end], "fallback"

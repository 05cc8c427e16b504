"""The hand-off tier: ask a bigger model on an OpenAI-compatible `/v1/completions` server when local
confidence is low (mlx-lm's `mlx_lm.server`, vLLM, llama.cpp's server, ...).

Off by default: nothing here runs, and no socket is opened, unless `fallback.url` is set. Calls block (they
run in a thread, never on the inference worker) and every failure (refused, timeout, HTTP error, bad JSON) is
a `FallbackError`, which callers answer with their local result.
"""

from __future__ import annotations

import json
import logging
from dataclasses import dataclass
from typing import Any

from ..config import FallbackSettings

log = logging.getLogger(__name__)


class FallbackError(RuntimeError):
    """The fallback server could not answer (the local result is used instead)."""


@dataclass
class FallbackAnswer:
    text: str
    model: str


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


def complete(s: FallbackSettings, prompt: str, max_tokens: int, stop: list[str] | None = None) -> FallbackAnswer:
    """One greedy completion of `prompt` from the fallback server (blocking, with the configured timeout)."""
    import urllib.error  # (the HTTP client stack: only when a fallback is configured, not at every start)
    import urllib.parse
    import urllib.request

    if not enabled(s):
        raise FallbackError("no fallback.url configured")
    body: dict[str, Any] = {"prompt": prompt, "max_tokens": max_tokens, "temperature": 0.0}
    if s.model:
        body["model"] = s.model
    if stop:
        body["stop"] = stop[:4]  # the OpenAI API allows at most four
    headers = {"Content-Type": "application/json"}
    if s.api_key:
        headers["Authorization"] = f"Bearer {s.api_key}"
    req = urllib.request.Request(endpoint(s.url), json.dumps(body).encode(), headers, method="POST")
    # A loopback server is reached directly, never through an HTTP proxy from the environment.
    host = urllib.parse.urlsplit(endpoint(s.url)).hostname or ""
    handlers = [urllib.request.ProxyHandler({})] if host in ("localhost", "127.0.0.1", "::1") else []
    opener = urllib.request.build_opener(*handlers)
    try:
        with opener.open(req, timeout=max(0.05, s.timeout_ms / 1000)) as resp:
            data = json.loads(resp.read().decode("utf-8"))
    except (urllib.error.URLError, OSError, ValueError) as exc:
        raise FallbackError(f"{type(exc).__name__}: {exc}") from exc
    try:
        text = data["choices"][0]["text"]
    except (KeyError, IndexError, TypeError) as exc:
        raise FallbackError(f"unexpected response: {str(data)[:200]}") from exc
    if not isinstance(text, str):
        raise FallbackError("the response's text is not a string")
    return FallbackAnswer(text, str(data.get("model") or s.model or ""))


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

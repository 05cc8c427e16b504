"""Name analysis beside the model run: which names exist at the cursor, steering the decoder towards them.

Per request the orchestrator starts the analysis (syntax/analysis.py: jedi for Python, the names written in the
file, the other buffers and the cross-file ring elsewhere) on its own thread, cached per (document, text,
cursor), and hands the engine a callable the decoder asks at its first step, after the prefill: the analysis
runs while the prompt is computed. An analysis not done by then (`steerWaitMs` after the request) is not waited
for: that request is not steered. The policy says, per trigger kind, whether a name set masks the next
identifier or only biases it (decided by measurement: docs/analysis.md).
"""

from __future__ import annotations

import logging
import math
import os
import time
from collections import OrderedDict
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeout
from typing import Any

from ..config import Settings
from ..engine import NameSet, NameSteer
from ..syntax import SyntaxDocument
from ..syntax.analysis import NameSite, names_at, warm_up

log = logging.getLogger(__name__)

MASK = math.inf
# Penalty per trigger kind subtracted from identifier tokens that leave the name set (MASK: a hard mask; None:
# not steered). `exact:` sets come from jedi, `written:` ones are the names written in the file and the other
# buffers (no type analysis: a bias at most), `members` the names after `self.` / `this.` the model writes.
POLICY: dict[str, float | None] = {  # measured on the dev split, 2026-12-02 (docs/analysis.md): a bias of 4 tied
    # or beat the mask everywhere (the model already writes names that exist when it can see them; a bias also
    # keeps a name jedi misses, such as an inherited or dynamic attribute); a new statement is not steered
    "exact:after_dot": 4.0,
    "exact:arguments": 4.0,
    "exact:expression": 4.0,
    "exact:statement": None,
    "written:after_dot": 4.0,
    "written:arguments": 4.0,
    "written:expression": 4.0,
    "written:statement": None,
    "members": 4.0,
    "exact:scope": 4.0,
    "written:scope": 4.0,
}
CACHED = 64  # analyses kept (a few per open buffer: the cursor moves while typing)


def policy_from_env(value: str | None) -> dict[str, float | None]:
    """POLICY with overrides from `LAYA_STEER_POLICY` ("exact:statement=bias:2,members=mask,written:after_dot=off"),
    for measuring variants through the real server (docs/analysis.md)."""
    policy = dict(POLICY)
    for item in filter(None, (value or "").split(",")):
        key, _, how = item.partition("=")
        if key not in policy:
            raise ValueError(f"LAYA_STEER_POLICY: unknown trigger {key!r} (known: {', '.join(policy)})")
        policy[key] = MASK if how == "mask" else None if how == "off" else float(how.removeprefix("bias:"))
    return policy


class NameAnalysis:
    """Runs name analyses on one thread, cached per (document, text, cursor); warms jedi up once."""

    def __init__(self, others: Callable[[str], list[str]]) -> None:
        self.others = others  # texts of other buffers, by document
        self._pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="laya-analysis")
        self._cache: OrderedDict[tuple[str, int, int], Future[NameSite]] = OrderedDict()
        self._warmed = False
        self.policy = policy_from_env(os.environ.get("LAYA_STEER_POLICY"))

    def warm(self) -> None:
        """Load jedi in the background (once), so the first steered request does not pay for it."""
        if not self._warmed:
            self._warmed = True
            self._pool.submit(warm_up)

    def site(self, doc_id: str, doc: SyntaxDocument, offset: int, others: list[str]) -> Future[NameSite]:
        """The analysis at `offset` of the document as it is now (started now unless cached)."""
        self.warm()
        text = doc.text
        key = (doc_id, hash(text), offset)
        fut = self._cache.get(key)
        if fut is None:
            language = doc.spec.language_ids[0] if doc.language else ""
            fut = self._cache[key] = self._pool.submit(
                lambda: names_at(SyntaxDocument(text, language), offset, others, doc_id))
            while len(self._cache) > CACHED:
                self._cache.popitem(last=False)
        self._cache.move_to_end(key)
        return fut

    def steer(self, site: Future[NameSite], wait_ms: float) -> Callable[[], NameSteer | None]:
        """What the engine asks at the first decoding step: the steering for `site`, or None when it is not
        ready `wait_ms` after now."""
        deadline = time.perf_counter() + wait_ms / 1000

        def ask() -> NameSteer | None:
            try:
                found = site.result(timeout=max(0.0, deadline - time.perf_counter()))
            except FutureTimeout:
                return None
            except Exception:
                log.warning("name analysis failed", exc_info=True)
                return None
            return steering(found, self.policy)

        return ask

    def for_request(self, doc_id: str, doc: SyntaxDocument, offset: int,
                    s: Settings) -> Callable[[], NameSteer | None] | None:
        """What the decoder of a request at `offset` asks for its names (None: not steered): an analysis
        started now, beside the prefill, with the other buffers' chunks of the cross-file ring."""
        if not s.steer_names or doc.language is None:
            return None
        return self.steer(self.site(doc_id, doc, offset, self.others(doc_id)), s.steer_wait_ms)

    def close(self) -> None:
        self._pool.shutdown(wait=False, cancel_futures=True)


def steering(site: NameSite, policy: dict[str, float | None]) -> NameSteer:
    """The engine's view of `site` under `policy`: name sets with their penalties, nothing where it is off."""
    first = None
    penalty = policy.get(f"{'exact' if site.exact else 'written'}:{site.trigger}")
    if site.names and penalty is not None:
        first = NameSet(site.names, penalty)
    member_penalty = policy.get("members")
    members = {} if member_penalty is None else {k: NameSet(v, member_penalty) for k, v in site.members.items()}
    scope_penalty = policy.get(f"{'exact' if site.exact else 'written'}:scope")
    scope = NameSet(site.scope, scope_penalty) if site.scope and scope_penalty is not None else None
    return NameSteer(first, site.typed, members, scope, site.line)


def wider_run(shown: list[Any], rejected: dict[str, int], had: int, asked: int | None, s: Settings) -> int | None:
    """How many candidates one more run asks for when the syntax checks rejected every one of the `had` raw
    candidates (blank once cleaned, or unparseable; `widerCandidates`: from the document's cache, a decode and
    no prefill); None: the answer stands (something was shown, it was the wider run already, or it is off)."""
    if shown or asked is not None or not rejected or had >= s.wider_candidates:
        return None
    return s.wider_candidates

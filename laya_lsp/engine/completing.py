"""A completion request's steps on the inference worker: its tier's provider (tiers.py), its prompt, its decode
settings (line stop, token healing, name steering, drafts), the decode, and its candidates. The engine facade
(facade.py) queues them as jobs."""

from __future__ import annotations

import math
import time
from collections.abc import Generator
from typing import Any

import mlx.core as mx

from .caches.context_window import fim_prompt
from .decoding.adapter import Work
from .decoding.decode import Branch, DecodeSettings, LogitsProcessor, complete_steps, warm_steps
from .decoding.healing import trailing_blanks
from .decoding.names import deferred_steering
from .decoding.stop import LineStop, Verdict
from .loading.model import LoadedModel
from .loading.tokenizer import token_ends, whole_characters
from .providers import EngineParts, Provider
from .requests import Candidate, CompletionRequest, CompletionResult
from .scheduling.scheduler import Job
from .tiers import Tier
from .timings import ENDED, Meter, Status


def ms_since(t0: float) -> float:
    return (time.perf_counter() - t0) * 1000


class CompletionSteps:
    """The steps of the engine's completion and warm-up jobs (on the worker)."""

    def __init__(self, engine: EngineParts) -> None:
        self.engine = engine

    def provider(self, req: CompletionRequest) -> Provider | None:
        """The provider that answers `req`, ready (the pause tier's model loaded now if it waits for an idle
        worker: this job runs only when no keystroke job waits); None without a model."""
        p = self.engine.tiers[req.tier]
        if p.tier is Tier.PAUSE and p.pending is not None:
            self.engine.pause_loads.load()
        return p if p.ready else None

    def prompt(self, req: CompletionRequest) -> list[int]:
        p = self.provider(req)
        assert p is not None and p.lm is not None and p.caches is not None
        if req.prompt_ids is not None:
            return req.prompt_ids
        s, b = self.engine.settings, p.lm.builder
        doc = p.caches.get(req.doc_id)
        offset = max(0, min(req.offset, len(req.text)))
        prefix, suffix = req.text[:offset], req.text[offset:]
        heal = trailing_blanks(prefix)
        prefix = prefix[: len(prefix) - len(heal)]
        suf_budget = int(s.context_tokens * s.suffix_share) if p.lm.fim.has_fim else 0
        ctx = b.repo_context(req.context, req.doc_id, s.context_tokens // 2) if req.context else []
        return fim_prompt(b, doc.window, prefix, suffix, s.context_tokens, suf_budget, ctx)

    def probe(self, job: Job, req: CompletionRequest) -> bool:
        p = self.engine.tiers[req.tier]
        if not p.ready or p.caches is None:
            return True
        job.prepared = self.prompt(req)
        doc = p.caches.get(req.doc_id)
        return len(job.prepared) - doc.reusable(job.prepared) <= self.engine.settings.debounce_skip_tokens

    def dropped(self, job: Job, st: Meter, reason: str, req: CompletionRequest) -> CompletionResult:
        if job.started is None:
            st.set(queue_ms=ms_since(job.created))
        timings = st.timings(ENDED.get(reason, Status.CANCELLED), total_ms=ms_since(job.created),
                             shared_steps=job.shared_steps)
        return CompletionResult([], timings, req.version)

    def _started(self, job: Job, req: CompletionRequest, st: Meter) -> tuple[Provider, list[int]] | None:
        """Common start of a request on the worker: its timings so far, its tier's provider and its prompt (None:
        no model)."""
        t_start = job.started or time.perf_counter()
        st.set(queue_ms=(t_start - job.created - job.debounced_s) * 1000, debounce_ms=job.debounced_s * 1000)
        p = self.provider(req)
        if p is None or p.caches is None:
            return None
        prompt = job.prepared if job.prepared is not None else self.prompt(req)
        st.set(prompt_tokens=len(prompt), prompt_hash=format(hash(tuple(prompt)) & 0xFFFFFFFFFFFF, "x"),
               reused_tokens=min(p.caches.get(req.doc_id).reusable(prompt), len(prompt) - 1))
        return p, prompt

    def _no_model(self, st: Meter, req: CompletionRequest) -> CompletionResult:
        error = self.engine.tiers[req.tier].load_error or ("no pause-tier model" if req.tier is Tier.PAUSE
                                                    else "no model loaded")
        return CompletionResult([], st.timings(Status.ERROR, error), req.version)

    def _finished(self, job: Job, req: CompletionRequest, st: Meter, p: Provider, cands: list[Candidate],
                  extra: dict[str, Any] | None = None) -> CompletionResult:
        assert p.caches is not None
        p.caches.enforce_budget(keep=req.doc_id)
        timings = st.timings(shared_steps=job.shared_steps, total_ms=ms_since(job.created))
        return CompletionResult(cands, timings, req.version, {**(extra or {}), "tier": p.tier.value})

    def warm(self, job: Job, req: CompletionRequest, st: Meter) -> Generator[Work | None, Any, CompletionResult]:
        started = self._started(job, req, st)
        if started is None:
            return self._no_model(st, req)
        p, prompt = started
        assert p.caches is not None and p.decoder is not None
        doc = p.caches.get(req.doc_id)
        pre = yield from warm_steps(p.decoder, doc, prompt, job.token, self.engine.settings.prefill_chunk)
        st.set(reused_tokens=pre.reused, prefill_ms=pre.ms)
        return self._finished(job, req, st, p, [])

    def completion(self, job: Job, req: CompletionRequest,
                    st: Meter) -> Generator[Work | None, Any, CompletionResult]:
        started = self._started(job, req, st)
        if started is None:
            return self._no_model(st, req)
        p, prompt = started
        assert p.lm is not None and p.caches is not None and p.decoder is not None
        lm, s = p.lm, self.engine.settings
        heal = trailing_blanks(req.text[: max(0, min(req.offset, len(req.text)))])
        line_stop = LineStop(max(1, req.max_lines), frozenset(lm.stop_ids), lm.newline_ids, lm.blank_ids,
                             lm.bracket_depths, req.outer_close, lm.token_texts)

        def stop(ids: list[int], token: int) -> Verdict:  # counts as it goes: a cancelled record shows how far
            if len(ids) + 1 > st.now.decode_tokens:
                st.set(decode_tokens=len(ids) + 1)
            return line_stop(ids, token)

        steering: dict[str, Any] = {}  # whether names came in time to steer (for the request's record)
        dec = DecodeSettings(
            k=req.candidates or s.candidates,
            max_tokens=req.max_tokens if req.max_tokens is not None else s.max_tokens,
            stop=stop,
            logits_processors=([self._healing(lm, heal)] if heal else []) + self._steering(lm, req, steering),
            draft=p.drafts.drafter(req.doc_id, prompt, p.caches.prompts_except(req.doc_id),
                                   req.candidates or s.candidates),
        )
        doc = p.caches.get(req.doc_id)
        try:
            out = yield from complete_steps(p.decoder, doc, prompt, dec, job.token, s.prefill_chunk)
        finally:  # a superseded run's partial answer is still a draft for the next keystroke
            p.drafts.answered(req.doc_id, prompt, [b.ids for b in dec.progress.branches])
        c = dec.progress
        st.set(reused_tokens=out.reused, prefill_ms=out.prefill_ms, decode_ms=out.decode_ms,
               decode_tokens=max((len(b.ids) for b in out.branches), default=0), decode_steps=c.steps,
               draft_tokens=c.drafted, accepted_tokens=c.accepted)
        extra = {"drafts": {k: list(v) for k, v in c.by_source.items()}} if c.by_source else {}
        extra.update(steering)
        return self._finished(job, req, st, p, self._candidates(lm, out.branches, req.text, heal), extra)

    @staticmethod
    def _healing(lm: LoadedModel, heal: str) -> LogitsProcessor:
        """The first token must start with the blanks the prompt left out (see `trailing_blanks`)."""

        def process(history: mx.array, logits: mx.array) -> mx.array:
            return lm.heal_first_logits(logits, heal) if history.shape[1] == 0 else logits

        return process

    @staticmethod
    def _steering(lm: LoadedModel, req: CompletionRequest, record: dict[str, Any]) -> list[LogitsProcessor]:
        """`req`'s name steering (engine/decoding/names.py `deferred_steering`), none without names."""
        if req.names is None:
            return []
        return [deferred_steering(req.names, lambda: lm.token_trie, lm.token_texts, record)]

    @staticmethod
    def _candidates(lm: LoadedModel, branches: list[Branch], document: str, heal: str = "") -> list[Candidate]:
        """Decoded raw texts, best first, without blanks or repeats (line cutting is the syntax layer's job),
        cut before bytes that form no character (`whole_characters`).

        With `heal`, the prompt left out the blanks typed before the cursor and the first token was made to
        start with them; they are already in the document, so they come off the text again."""
        out: list[Candidate] = []
        seen: set[str] = set()
        for b in sorted(branches, key=lambda b: -b.logprob):
            if b.logprob == -math.inf:  # started on a token name steering ruled out (fewer names than branches)
                continue
            text = whole_characters(lm.decode(b.ids), document)
            n = 0
            while n < len(heal) and n < len(text) and text[n] == heal[n]:
                n += 1
            if not text[n:].strip() or text[n:] in seen:
                continue
            seen.add(text[n:])
            ends = token_ends(b.ids, text, lm.token_texts, lm.decode)
            out.append(Candidate(text, b.logprob, len(b.ids), list(b.logprobs[: len(ends)]), ends).trimmed(n))
        return out

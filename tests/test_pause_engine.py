"""The pause tier inside the engine (tiers.py, providers.py): a second model answering beside the keystroke model,
each with its own caches under the one budget, stepped by the one worker, never in the same forward pass, and
always behind keystroke work. Driven through the facade with two random tiny models (no server: the LSP side is
tests/test_pause_tier.py)."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

import pytest
from conftest import TINY_MODEL
from tinymodel import build_tiny_model

from laya_lsp.engine import (
    Cancelled,
    CompletionRequest,
    Engine,
    EngineSettings,
    ModelLoadError,
    PauseState,
    Status,
    Tier,
)

TEXT = "def total(values):\n    result = 0\n    for v in values:\n        result = "


@pytest.fixture(scope="module")
def pause_model(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A second random model (other weights, other width): what the pause tier answers with here."""
    return build_tiny_model(tmp_path_factory.mktemp("pause") / "model", hidden=96, layers=3, seed=7)


def _engine(pause: Path | None, **settings: Any) -> Engine:
    engine = Engine(EngineSettings(candidates=2, max_tokens=8, debounce_ms=0, **settings))
    engine.load(str(TINY_MODEL))
    if pause is not None:
        engine.start_pause_load(str(pause))
    return engine


def _texts(result: Any) -> list[str]:
    return [c.text for c in result.candidates]


def test_the_pause_tier_answers_as_its_model_alone(pause_model: Path):
    """Greedy output of the pause tier equals the same model's as an engine's only (keystroke) model, and the
    keystroke answer beside it is the keystroke model's own: the tiers share a worker, not a model or a cache."""
    both = _engine(pause_model)
    alone = _engine(None)
    reference = Engine(EngineSettings(candidates=2, max_tokens=8, debounce_ms=0))
    reference.load(str(pause_model))
    try:
        paused = both.complete(CompletionRequest("a.py", TEXT, len(TEXT), tier=Tier.PAUSE)).future.result(60)
        keyed = both.complete(CompletionRequest("a.py", TEXT, len(TEXT))).future.result(60)
        assert paused.timings.status is Status.OK and paused.extra["tier"] == "pause"
        own = reference.complete(CompletionRequest("a.py", TEXT, len(TEXT))).future.result(60)
        assert _texts(paused) == _texts(own)
        assert _texts(keyed) == _texts(alone.complete(CompletionRequest("a.py", TEXT, len(TEXT))).future.result(60))
        info = both.pause_info()
        assert info is not None and info.path == str(pause_model) and both.pause_state() is PauseState.LOADED
        # A second pause request at the same text reuses the pause tier's own cache.
        again = both.complete(CompletionRequest("a.py", TEXT, len(TEXT), tier=Tier.PAUSE)).future.result(60)
        assert _texts(again) == _texts(paused) and again.timings.reused_tokens > 0
    finally:
        for e in (both, alone, reference):
            e.shutdown()


def test_a_batched_round_never_mixes_the_tiers_models(pause_model: Path):
    engine = _engine(pause_model, max_in_flight=4)
    seen: list[set[Tier]] = []
    try:
        engine.complete(CompletionRequest("warm.py", TEXT, len(TEXT), tier=Tier.PAUSE)).future.result(60)
        for p in engine.tiers.values():
            forward = p.decoder.forward

            def recording(work: list[Any], forward: Any = forward) -> Any:
                seen.append({(w.doc if hasattr(w, "doc") else w.branches.doc).tier for w in work})
                return forward(work)

            p.decoder.forward = recording  # type: ignore[method-assign]
        gate = threading.Event()
        engine.scheduler.call(gate.wait)
        # Background jobs only: they run together (a keystroke job would cancel the pause job).
        jobs = [engine.complete(CompletionRequest(f"k{i}.py", TEXT + str(i), len(TEXT) + 1, background=True))
                for i in range(2)]
        jobs += [engine.complete(CompletionRequest(f"p{i}.py", TEXT + str(i), len(TEXT) + 1, tier=Tier.PAUSE))
                 for i in range(2)]
        gate.set()
        results = [j.future.result(60) for j in jobs]
    finally:
        engine.shutdown()
    assert all(r.timings.status is Status.OK for r in results), [r.timings for r in results]
    assert seen and all(len(tiers) == 1 for tiers in seen), seen
    assert {Tier.KEYSTROKE, Tier.PAUSE} <= set().union(*seen)
    assert any(r.timings.shared_steps for r in results)  # documents of one tier still share steps


def test_a_keystroke_job_cancels_pause_work_and_its_prefill_is_kept(pause_model: Path):
    engine = _engine(pause_model, prefill_chunk=8)
    long_text = "x = 1\n" * 60 + TEXT
    try:
        engine.complete(CompletionRequest("w.py", TEXT, len(TEXT), tier=Tier.PAUSE)).future.result(60)  # loaded
        started = threading.Event()
        engine.scheduler.call(started.wait)
        pause_job = engine.complete(CompletionRequest("a.py", long_text, len(long_text), tier=Tier.PAUSE))
        started.set()
        while engine.queue_state()["running"] is None and not pause_job.future.done():
            pass  # until the pause job runs (its prefill takes many chunks)
        keystroke = engine.complete(CompletionRequest("b.py", TEXT, len(TEXT)))
        assert keystroke.future.result(60).timings.status is Status.OK
        paused = pause_job.future.result(60)
        kept = engine.scheduler.call(lambda: len(engine.pause.caches.get("a.py").ids)).result(10)
    finally:
        engine.shutdown()
    if paused.timings.status is Status.CANCELLED:  # (it may have finished first on a fast machine)
        assert kept > 0, "a cancelled pause-tier prefill keeps what it computed"
    else:
        assert paused.timings.status is Status.OK


def test_both_tiers_caches_share_one_budget_and_close_frees_both(pause_model: Path):
    engine = _engine(pause_model, cache_budget_mb=0.25)
    try:
        for i in range(4):
            text = f"# file {i}\n" + "y = 2\n" * 10 + TEXT
            engine.complete(CompletionRequest(f"d{i}.py", text, len(text))).future.result(60)
            engine.complete(CompletionRequest(f"d{i}.py", text, len(text), tier=Tier.PAUSE)).future.result(60)
            sizes = engine.measure_caches().result(10)
            total = sum(sizes["documents"].values()) + sum(sizes["pause"].values()) + sizes["contexts"]["bytes"]
            assert total <= 0.25 * 2**20, sizes
        assert engine.evictions > 0
        sizes = engine.measure_caches().result(10)
        assert sizes["pause"], "the pause tier keeps its own per-document caches"
        for doc in list(sizes["documents"]) + list(sizes["pause"]):
            engine.close_document(doc)
        sizes = engine.measure_caches().result(10)
        assert sizes["documents"] == {} and sizes["pause"] == {}
    finally:
        engine.shutdown()


def test_a_pause_model_that_cannot_load_leaves_the_keystroke_model_answering(tmp_path: Path):
    engine = _engine(None)
    try:
        failed = engine.start_pause_load(str(tmp_path / "missing"))
        result = engine.complete(CompletionRequest("a.py", TEXT, len(TEXT), tier=Tier.PAUSE)).future.result(60)
        assert result.timings.status is Status.ERROR and "does not exist" in (result.timings.error or "")
        with pytest.raises(ModelLoadError, match="does not exist"):
            failed.result(10)
        assert engine.pause_state() is PauseState.FAILED and engine.pause_info() is None
        assert engine.complete(CompletionRequest("a.py", TEXT, len(TEXT))).future.result(60).candidates
        assert engine.start_pause_load(None).result(10) is None and engine.pause_state() is PauseState.NONE
    finally:
        engine.shutdown()


def test_no_pause_tier_answers_pause_requests_with_an_error_and_nothing_else():
    engine = _engine(None)
    try:
        assert engine.pause_state() is PauseState.NONE
        result = engine.complete(CompletionRequest("a.py", TEXT, len(TEXT), tier=Tier.PAUSE)).future.result(60)
        assert result.timings.status is Status.ERROR and not result.candidates
    finally:
        engine.shutdown()
    with pytest.raises(Cancelled):
        engine.start_pause_load(None).result(1)  # after shutdown nothing runs

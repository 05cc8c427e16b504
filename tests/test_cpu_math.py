"""The CPU's attention, MLP and prompt body (engine/decoding/cpu_math.py) compute what MLX's and mlx-lm's own do,
to float32 rounding: the step and the prefill use them on a CPU, where MLX's exp is slow."""

from __future__ import annotations

import mlx.core as mx
import numpy as np
import pytest
from conftest import TINY_MODEL
from mlx import nn
from mlx_lm.models.cache import make_prompt_cache

from laya_lsp.engine.decoding.cpu_math import Rotary, attention, fast_exp, gated_mlp, prefill_body
from laya_lsp.engine.decoding.logprobs import greedy_picks, log_softmax
from laya_lsp.engine.loading.model import load_model


@pytest.fixture(scope="module")
def lm():
    return load_model(str(TINY_MODEL))


def test_fast_exp_is_exp_to_float32_rounding():
    x = mx.concatenate([mx.linspace(-87, 88, 20001), mx.array([0.0, -1e-8, 1e-8, 0.5, -0.5])])
    want = np.exp(np.array(x, dtype=np.float64))
    ours = np.max(np.abs(np.array(fast_exp(x), dtype=np.float64) - want) / want)
    theirs = np.max(np.abs(np.array(mx.exp(x), dtype=np.float64) - want) / want)  # float32's rounding of x * log2(e)
    assert ours < 1.5 * theirs < 1e-5
    assert float(fast_exp(mx.array([-1000.0])).item()) < 1e-37  # (exp(-1000): ~1e-38, not 0)
    assert np.isfinite(np.array(fast_exp(mx.array([1000.0])))).all()


@pytest.mark.parametrize("heads, kv_heads", [(4, 4), (4, 2), (6, 1)])
def test_attention_equals_mlx_sdpa_with_a_mask(heads: int, kv_heads: int):
    mx.random.seed(heads + kv_heads)
    rows, columns, dim = 5, 40, 16
    q = mx.random.normal((1, heads, rows, dim))
    keys, values = mx.random.normal((1, kv_heads, columns, dim)), mx.random.normal((1, kv_heads, columns, dim))
    mask = mx.random.uniform(shape=(rows, columns)) < 0.6
    mask = mask | (mx.arange(columns)[None] == 0)  # every row sees a column
    want = mx.fast.scaled_dot_product_attention(q, keys, values, scale=0.25, mask=mask)
    assert mx.allclose(attention(q, keys, values, 0.25, mask), want, atol=1e-5).item()


@pytest.mark.parametrize("dims", [16, 8])
def test_rotary_tables_rotate_as_mlx_rope_with_per_row_positions(dims: int):
    rope = nn.RoPE(dims, base=10000.0)
    positions = mx.array([0, 3, 17, 900, 1023], dtype=mx.int32)
    x = mx.random.normal((5, 4, 1, 16))  # rows, heads, 1, head_dim (a partial rotation when dims < 16)
    assert Rotary.serves([rope, nn.RoPE(dims, base=10000.0)])
    assert mx.array_equal(Rotary(rope, positions)(x), rope(x, offset=positions)).item()
    assert not Rotary.serves([rope, nn.RoPE(dims, traditional=True)])
    assert not Rotary.serves([rope, nn.RoPE(dims, base=500000.0)])


def test_mlp_and_prompt_body_equal_mlx_lm(lm):
    inner = lm.model.model
    x = mx.random.normal((1, 7, inner.layers[0].mlp.gate_proj.weight.shape[1]))
    assert mx.allclose(gated_mlp(inner.layers[0].mlp, x), inner.layers[0].mlp(x), atol=1e-4).item()
    ids = lm.builder.encode("def add(a, b):\n    return a + b\n\nclass Point:\n    x: int\n")
    ours, theirs = make_prompt_cache(lm.model), make_prompt_cache(lm.model)
    for lo in range(0, len(ids), 8):  # chunks after chunks: each attends the cache before it
        prefill_body(inner, ids[lo : lo + 8], ours)
        inner(mx.array(ids[lo : lo + 8])[None], cache=theirs)
    for a, b in zip(ours, theirs):
        assert a.offset == b.offset == len(ids)
        n = len(ids)
        assert mx.allclose(a.keys[..., :n, :], b.keys[..., :n, :], atol=1e-4).item()
        assert mx.allclose(a.values[..., :n, :], b.values[..., :n, :], atol=1e-4).item()


def test_greedy_picks_are_the_samplers_tokens_and_log_probabilities():
    mx.random.seed(3)
    logits = mx.random.normal((6, 300)) * 4
    logits = logits.at[2, 17].add(100.0)  # a sure row
    logits = mx.concatenate([logits, mx.full((1, 300), -mx.inf)])  # a row masked everywhere
    lp = log_softmax(logits)
    want_ids = mx.argmax(lp, axis=-1)
    want = mx.take_along_axis(lp, want_ids[:, None], axis=-1)[:, 0]
    picks = greedy_picks(logits)
    assert picks is not None
    ids, lps = picks
    assert ids == want_ids.tolist()
    assert lps[:-1] == want.tolist()[:-1]  # (the same float32 arithmetic)
    assert np.isnan(lps[-1]) and np.isnan(want.tolist()[-1])

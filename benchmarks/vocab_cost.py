"""The vocabulary's cost, and the models users bring: start-up and per-keystroke work split by part for an
8,192-token model (the embedded one) and a 151,936-token one (Qwen's real tokenizer on a tiny Qwen2); decode
speed of the Qwen models per quantization; decide's confidence per bit width; Qwen2.5-Coder-0.5B-shape
checkpoints as mlx-community publishes them (4- and 8-bit) with their decode ms/token, keystroke latency through
the real LSP and bandwidth floor.

    python -m benchmarks.vocab_cost [--quick] [--skip split,decode,decide,brought]

Each model is measured in its own subprocess. The checkpoints come from benchmarks/checkpoints.py (random weights,
the npm tokenizer `make` installs). Writes benchmarks/results/<date>-vocab-cost.json.
"""

from __future__ import annotations

import argparse
import asyncio
import datetime
import json
import statistics
import subprocess
import sys
import sysconfig
import time
from pathlib import Path
from typing import Any

from benchmarks.common import best_ms, named_parameters

ROOT = Path(__file__).resolve().parent.parent
SAMPLE = Path(sysconfig.get_paths()["stdlib"]) / "textwrap.py"
BITS = (2, 3, 4, 8)


def _best_ms(fn: Any, reps: int = 30) -> float:
    return round(best_ms(fn, reps), 3)


def _pick(logits: Any) -> Any:
    """What a decode step does with its logits (decode.branch_steps, greedy): normalise, pick, read the pick."""
    import mlx.core as mx

    from laya_lsp.engine.decoding.logprobs import log_softmax

    lp = log_softmax(logits)
    tokens = mx.argmax(lp, axis=-1)
    return tokens, mx.take_along_axis(lp, tokens[:, None], axis=-1)[:, 0]


def _keep_quantized(lm: Any, head_too: bool) -> None:
    """Swap in the checkpoint's weights with their quantized layers kept (what runs for a model too large to
    dequantize whole on a CPU): the output head in fp32, or quantized too (`head_too`)."""
    import mlx.core as mx

    from laya_lsp.engine.loading.weights import dequantize, load_weights

    model = load_weights(Path(lm.path), lm.config)
    model.set_dtype(mx.float32)
    if not head_too:
        dequantize(model, mx.float32, head_only=True)
    lm.model = model
    lm.dtype += "; kept quantized" + (", head too" if head_too else ", head float32")


def split_worker(model_dir: str, keep: str = "") -> dict[str, Any]:
    """One model: its load timings, warm-up, and each per-keystroke part timed alone. `keep`: "layers" or "all"
    runs the quantized kernels (see `_keep_quantized`)."""
    import mlx.core as mx
    import numpy as np
    from mlx_lm.models.cache import make_prompt_cache

    from benchmarks.shapes import _laya_step_ms
    from laya_lsp.engine.caches.context_window import ContextWindow
    from laya_lsp.engine.caches.prompt_caches import DocumentCache
    from laya_lsp.engine.decoding.adapter import decode_model
    from laya_lsp.engine.decoding.decode import CancelToken, prefill_chunked
    from laya_lsp.engine.decoding.score import score_options
    from laya_lsp.engine.loading.model import WarmPlan, load_model, warm_up
    from laya_lsp.engine.loading.weights import head_module

    t0 = time.perf_counter()
    lm = load_model(model_dir)
    if keep:
        _keep_quantized(lm, keep == "all")
    out: dict[str, Any] = {
        "model": lm.name,
        "dtype": lm.dtype,
        "vocab": int(lm.config["vocab_size"]),
        "hidden": int(lm.config["hidden_size"]),
        "load": {k: round(v, 1) for k, v in lm.timings.items()},
    }
    t = time.perf_counter()
    warm_up(lm, WarmPlan(256, (1, 5)))
    out["load"]["warmup_ms"] = round((time.perf_counter() - t) * 1000, 1)
    from llguidance import LLMatcher, LLTokenizer

    t = time.perf_counter()
    llt = LLTokenizer(lm.tokenizer.to_json(), n_vocab=out["vocab"], eos_token=lm.tokenizer.eos_token_id)
    out["load"]["structured_tokenizer_ms"] = round((time.perf_counter() - t) * 1000, 1)
    out["load"]["ready_ms"] = round((time.perf_counter() - t0) * 1000, 1)

    text = SAMPLE.read_text()
    at = len(text) // 2
    window = ContextWindow()
    window.prefix_ids(lm.builder, text[:at], 1536)
    times = []
    for i in range(1, 31):  # a keystroke each: the window re-encodes only its last lines
        t = time.perf_counter()
        window.prefix_ids(lm.builder, text[: at + i], 1536)
        times.append((time.perf_counter() - t) * 1000)
    parts: dict[str, float] = {"tokenize_keystroke": round(statistics.median(times), 3)}
    heals = [" " * n for n in range(1, 9)] + ["\t" * n for n in range(1, 9)]
    t = time.perf_counter()
    for h in heals:
        mx.eval(lm.healing.mask(h))
    parts["heal_mask_new"] = round((time.perf_counter() - t) * 1000 / len(heals), 3)
    logits1 = mx.random.normal((out["vocab"],))
    parts["heal_mask_cached_apply"] = _best_ms(lambda: lm.heal_first_logits(logits1, " "))
    for k in (1, 5):
        logits = mx.random.normal((k, out["vocab"]))
        parts[f"sample_k{k}"] = _best_ms(lambda lg=logits: _pick(lg))
        x = mx.random.normal((k, out["hidden"]))
        _, head = head_module(lm.model) or ("", None)
        parts[f"head_k{k}"] = _best_ms(lambda x=x, h=head: h.as_linear(x) if hasattr(h, "as_linear") else h(x))
    ids = lm.builder.encode(text[:at])[-300:]
    doc = DocumentCache(make_prompt_cache(lm.model))
    logits = prefill_chunked(lm.model, doc, ids, 256, CancelToken()).logits
    dm = decode_model(lm.model)
    for k in (1, 5):
        parts[f"step_k{k}"] = round(_laya_step_ms(dm, doc, logits, k, 30), 3)
        parts[f"step_outside_head_k{k}"] = round(parts[f"step_k{k}"] - parts[f"head_k{k}"], 3)
    grammar = LLMatcher.grammar_from_json_schema({"type": "object", "properties": {"a": {"type": "string"}},
                                                  "required": ["a"]}, defaults={"whitespace_flexible": False})
    matcher = LLMatcher(llt, grammar, log_level=0)
    masks = []
    for token in lm.builder.encode('{"a":"hello world'):
        t = time.perf_counter()
        bits = np.unpackbits(np.frombuffer(matcher.compute_bitmask(), dtype=np.uint8), bitorder="little")
        mx.eval(mx.array(bits[: out["vocab"]].astype(bool)))
        masks.append((time.perf_counter() - t) * 1000)
        matcher.consume_token(token)
    parts["structured_mask_per_token"] = round(statistics.median(masks), 3)
    options = [lm.builder.encode(o) for o in (" a + b", " a * b", " a - b")]
    prompt = lm.builder.encode("def add(a, b):\n    return")
    t = time.perf_counter()
    for _ in range(5):
        score_options(lm, None, prompt, options)
    parts["decide_3_options"] = round((time.perf_counter() - t) * 1000 / 5, 3)
    out["parts_ms"] = parts
    return out


def decide_worker(model_dir: str) -> dict[str, Any]:
    """decide on its calibration set (decisions/calibration_set.jsonl): accuracy, NLL and mean confidence."""
    import math

    from laya_lsp.calibrate import report, score_set

    _, rows = score_set(model_dir)
    res = report(rows)["total"]
    conf = []
    for scores, _answer in rows["total"]:
        top = max(scores)
        conf.append(1.0 / sum(math.exp(s - top) for s in scores))
    res["mean_confidence_t1"] = round(statistics.mean(conf), 4)
    return res


def _run(fn: str, *args: Any, timeout: float = 600) -> dict[str, Any]:
    cmd = [sys.executable, "-m", "benchmarks.vocab_cost", "--worker", json.dumps([fn, *args])]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, cwd=ROOT, check=False)
    if proc.returncode != 0:
        return {"error": (proc.stderr.strip().splitlines() or ["failed"])[-1][:300]}
    return json.loads(proc.stdout.strip().splitlines()[-1])


def split_section(log: Any) -> dict[str, Any]:
    from benchmarks.checkpoints import checkpoint
    from laya_lsp.engine.loading.model import DEFAULT_MODEL_DIR

    rows = {"default (8,192 tokens)": _run("split", str(DEFAULT_MODEL_DIR)),
            "qwen tiny bf16 (151,936 tokens)": _run("split", str(checkpoint("tiny")))}
    for bits in BITS:
        rows[f"qwen tiny {bits}-bit (as loaded: dequantized)"] = _run("split", str(checkpoint("tiny", bits)))
        rows[f"qwen tiny {bits}-bit, layers kept quantized"] = _run("split", str(checkpoint("tiny", bits)), "layers")
    rows["qwen tiny 4-bit, all kept quantized (head too)"] = _run("split", str(checkpoint("tiny", 4)), "all")
    for name, r in rows.items():
        p = r.get("parts_ms", {})
        log(f"{name:<38} load {r.get('load', {}).get('load_ms')} ms + warm-up {r.get('load', {}).get('warmup_ms')} "
            f"ms; step k1 {p.get('step_k1')} (head {p.get('head_k1')}) k5 {p.get('step_k5')} (head {p.get('head_k5')}) "
            f"tokenize {p.get('tokenize_keystroke')} heal {p.get('heal_mask_new')} ms {r.get('error', '')}")
    return rows


def decide_section(log: Any) -> dict[str, Any]:
    """The embedded model (trained weights) in float and quantized by mlx_lm.convert at each bit width."""
    from benchmarks.checkpoints import convert
    from laya_lsp.engine.loading.model import DEFAULT_MODEL_DIR

    rows = {"float": _run("decide", str(DEFAULT_MODEL_DIR))}
    base = Path("/tmp") / "laya-default-quantized"
    for bits in BITS:
        out = base / f"{bits}bit"
        if not (out / "config.json").exists():
            convert(DEFAULT_MODEL_DIR, out, bits)
        rows[f"{bits}-bit"] = _run("decide", str(out))
    for name, r in rows.items():
        log(f"decide {name:<8} accuracy {r.get('accuracy')} nll {r.get('nll_t1')} mean confidence "
            f"{r.get('mean_confidence_t1')} {r.get('error', '')}")
    return rows


def brought_section(log: Any, quick: bool) -> list[dict[str, Any]]:
    """Qwen2.5-Coder-0.5B-shape checkpoints (mlx-community layout, 4- and 8-bit): decode ms/token (laya's step,
    one candidate), keystroke latency through the real LSP, and the floor: bytes a step reads / bandwidth."""
    from benchmarks.checkpoints import checkpoint
    from benchmarks.shapes import measure_bandwidth

    bw = measure_bandwidth(256)
    rows = []
    for bits in (4,) if quick else (4, 8):
        path = checkpoint("0.5b", bits)
        for keep in ("", "layers") if bits == 4 and not quick else ("",):
            row: dict[str, Any] = {"shape": "qwen2.5-coder-0.5b", "quantization": f"{bits}-bit affine, group 64",
                                   **_run("brought", str(path), keep, timeout=900)}
            if "read_bytes" in row:
                row["floor_ms_per_token"] = round(row["read_bytes"] / (bw["gbs"] * 1e9) * 1000, 2)
            # Through the LSP only as laya loads it (kept quantized, a keystroke took 9-31 s: 2026-12-02 run).
            row["typing"] = {} if keep else _typing(str(path), 6 if quick else 12)
            rows.append(row)
            log(
                f"0.5b {bits}-bit {row.get('dtype')}: decode {row.get('ms_per_token')} ms/token (floor "
                f"{row.get('floor_ms_per_token')}), keystroke p50 {row['typing'].get('p50_ms')} ms "
                f"{row.get('error', '')}"
            )
    return rows


def brought_worker(model_dir: str, keep: str = "") -> dict[str, Any]:
    import mlx.core as mx
    from mlx_lm.models.cache import make_prompt_cache

    from benchmarks.shapes import _laya_step_ms
    from laya_lsp.engine.caches.prompt_caches import DocumentCache
    from laya_lsp.engine.decoding.adapter import decode_model
    from laya_lsp.engine.decoding.decode import CancelToken, prefill_chunked
    from laya_lsp.engine.loading.model import WarmPlan, load_model, warm_up

    lm = load_model(model_dir)
    if keep:
        _keep_quantized(lm, keep == "all")
    t = time.perf_counter()
    warm_up(lm, WarmPlan(64, (1,)))
    warm_ms = (time.perf_counter() - t) * 1000
    nbytes = sum(v.nbytes for _, v in named_parameters(lm.model))
    ids = lm.builder.encode(SAMPLE.read_text()[:2000])[:128]
    doc = DocumentCache(make_prompt_cache(lm.model))
    logits = prefill_chunked(lm.model, doc, ids, 128, CancelToken()).logits
    mx.eval(logits)
    return {"dtype": lm.dtype, "load": {k: round(v, 1) for k, v in lm.timings.items()}, "read_bytes": nbytes,
            "warmup_64_ms": round(warm_ms, 1),
            "ms_per_token": round(_laya_step_ms(decode_model(lm.model), doc, logits, 1, 20), 2)}


# MLX's quantized CPU kernels cost ~0.5 s per prompt row for this shape (prefill is not batched there), so the
# replay keeps the prompt and the warm-up short: the latency is of a keystroke's Extend and a 4-token answer.
BROUGHT_SETTINGS = {"contextTokens": 48, "prefillChunk": 16, "maxTokens": 4, "crossFileTokens": 0,
                    "outlineTokens": 0, "speculative": False, "typingCandidates": 1}


def _typing(model: str, chars: int) -> dict[str, Any]:
    """Keystroke latency through the real LSP: one buffer, `chars` keystrokes, each waited for (interval 0)."""
    from benchmarks.peers.laya import lsp_replay
    from laya_lsp.replay import Buffer, server_command

    try:
        buf = Buffer.from_file(SAMPLE, chars)
        r = asyncio.run(lsp_replay([buf], server_command(model), BROUGHT_SETTINGS, "inline", interval_ms=0))
    except Exception as exc:  # noqa: BLE001 - reported in the row
        return {"error": f"{type(exc).__name__}: {exc}"}
    every = sorted(r.replay.latencies("inline", answered_only=False))
    return {
        "keystrokes": len(every),
        "settings": BROUGHT_SETTINGS,
        "p50_ms": round(statistics.median(every), 1) if every else None,
        "max_ms": round(every[-1], 1) if every else None,
    }


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--worker", help=argparse.SUPPRESS)
    p.add_argument("--quick", action="store_true")
    p.add_argument("--skip", default="", help="sections to skip: split,decide,brought")
    args = p.parse_args()
    from laya_lsp.bootstrap import use_fast_blas

    use_fast_blas()
    if args.worker:
        fn, *rest = json.loads(args.worker)
        work = {"split": split_worker, "decide": decide_worker, "brought": brought_worker}[fn]
        print(json.dumps(work(*rest)))
        return 0
    import os

    skip = set(args.skip.split(","))
    result: dict[str, Any] = {"date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
                              "load_before": [round(x, 2) for x in os.getloadavg()]}
    if "split" not in skip:
        result["split"] = split_section(print)
    if "decide" not in skip:
        result["decide"] = decide_section(print)
    if "brought" not in skip:
        result["brought"] = brought_section(print, args.quick)
    result["load_after"] = [round(x, 2) for x in os.getloadavg()]
    out = ROOT / "benchmarks" / "results" / f"{datetime.date.today().isoformat()}-vocab-cost.json"
    out.write_text(json.dumps(result, indent=1) + "\n")
    print(f"wrote {out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

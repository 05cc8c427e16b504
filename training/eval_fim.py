"""Direct fill-in-the-middle evaluation with mlx-lm (no server): greedy, one line, fp32 on CPU.

  LD_PRELOAD=/usr/lib/x86_64-linux-gnu/openblas-pthread/libblas.so.3 \
  python training/eval_fim.py --model laya_lsp/models/default --out training/out/eval.json

* HumanEval single-line infilling (/work/shared/evals/humaneval-single-line-even.jsonl): exact match of the stripped
  first generated line against the stripped first line of canonical_solution.
* Held-out real code (benchmarks/data/heldout.jsonl): edit similarity (100 * (1 - levenshtein / max len)) and exact
  match of the first generated line against `middle`.
Baselines: empty answer, copy of the previous non-empty line.
"""
from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import mlx.core as mx
from mlx.utils import tree_map
from mlx_lm import load
from mlx_lm.models.cache import make_prompt_cache

ROOT = Path(__file__).resolve().parent.parent
HUMANEVAL = Path("/work/shared/evals/humaneval-single-line-even.jsonl")
HELDOUT = ROOT / "benchmarks" / "data" / "heldout.jsonl"


def levenshtein(a: str, b: str) -> int:
    prev = list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        cur = [i]
        for j, cb in enumerate(b, 1):
            cur.append(min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (ca != cb)))
        prev = cur
    return prev[-1]


def edit_similarity(a: str, b: str) -> float:
    if not a and not b:
        return 100.0
    return 100.0 * (1 - levenshtein(a, b) / max(len(a), len(b)))


def fim_ids(
    tokenizer, prefix: str, suffix: str, layout: str, max_prefix: int = 768, max_suffix: int = 224
) -> list[int]:
    """FIM prompt token ids within the model's 1,024-token training context: the end of the prefix, the start of
    the suffix (tokens never cross a newline, so cutting token lists cuts at or inside one line only)."""
    fp, fm, fs = (tokenizer.convert_tokens_to_ids(t) for t in ("<|fim_prefix|>", "<|fim_middle|>", "<|fim_suffix|>"))
    pre = tokenizer.encode(prefix, add_special_tokens=False)[-max_prefix:] if prefix else []
    suf = tokenizer.encode(suffix, add_special_tokens=False)[:max_suffix] if suffix else []
    if layout == "spm":
        return [fp, fs] + suf + [fm] + pre
    return [fp] + pre + [fs] + suf + [fm]


def complete_line(model, tokenizer, ids: list[int], max_tokens: int = 48) -> str:
    """Greedy decode until a newline or end-of-text; returns the text before the newline."""
    cache = make_prompt_cache(model)
    for i in range(0, len(ids) - 1, 256):  # chunked prefill, as the server does
        mx.eval(model(mx.array(ids[i:min(i + 256, len(ids) - 1)])[None], cache=cache))
    logits = model(mx.array(ids[-1:])[None], cache=cache)[:, -1]
    out: list[int] = []
    for _ in range(max_tokens):
        tok = int(mx.argmax(logits, axis=-1).item())
        if tok < 7:  # <|endoftext|> or another special token ends the middle
            break
        out.append(tok)
        text = tokenizer.decode(out)
        if "\n" in text:
            return text.split("\n")[0]
        logits = model(mx.array([[tok]]), cache=cache)[:, -1]
    return tokenizer.decode(out).split("\n")[0]


def prev_line(prefix: str) -> str:
    lines = [l for l in prefix.split("\n")[:-1] if l.strip()]
    return lines[-1].strip() if lines else ""


def run(model_path: str, layout: str, limit: int | None) -> dict:
    model, tokenizer = load(model_path)
    model.update(tree_map(lambda x: x.astype(mx.float32), model.parameters()))
    res: dict = {"model": model_path, "layout": layout}
    he = [json.loads(line) for line in HUMANEVAL.read_text().splitlines()][:limit]
    hits, base_prev, t0 = 0, 0, time.time()
    for r in he:
        want = r["canonical_solution"].split("\n")[0].strip()
        got = complete_line(model, tokenizer, fim_ids(tokenizer, r["prompt"], r["suffix"], layout)).strip()
        hits += got == want
        base_prev += prev_line(r["prompt"]) == want
    res["humaneval_single_line"] = {"n": len(he), "exact_match": round(hits / len(he), 4),
                                    "baseline_empty_em": round(sum(r["canonical_solution"].strip() == "" for r in he)
                                                               / len(he), 4),
                                    "baseline_prev_line_em": round(base_prev / len(he), 4),
                                    "sec_per_item": round((time.time() - t0) / len(he), 3)}
    ho = [json.loads(line) for line in HELDOUT.read_text().splitlines()][:limit]
    es, em, es_empty, es_prev, t0 = 0.0, 0, 0.0, 0.0, time.time()
    for r in ho:
        want = r["middle"].strip()
        got = complete_line(model, tokenizer, fim_ids(tokenizer, r["prefix"], r["suffix"], layout)).strip()
        es += edit_similarity(got, want)
        em += got == want
        es_empty += edit_similarity("", want)
        es_prev += edit_similarity(prev_line(r["prefix"]), want)
    res["heldout"] = {
        "n": len(ho),
        "edit_similarity": round(es / len(ho), 2),
        "exact_match": round(em / len(ho), 4),
        "baseline_empty_es": round(es_empty / len(ho), 2),
        "baseline_prev_line_es": round(es_prev / len(ho), 2),
        "sec_per_item": round((time.time() - t0) / len(ho), 3),
    }
    return res


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--model", nargs="+", required=True)
    ap.add_argument("--layout", default="spm", choices=["spm", "psm"])
    ap.add_argument("--limit", type=int, default=None)
    ap.add_argument("--out", default=None)
    args = ap.parse_args()
    results = []
    for m in args.model:
        r = run(m, args.layout, args.limit)
        print(json.dumps(r), flush=True)
        results.append(r)
    if args.out:
        Path(args.out).write_text(json.dumps(results, indent=1))


if __name__ == "__main__":
    main()

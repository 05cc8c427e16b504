"""Tokenisation cost on the keystroke path, before and after, side by side in one run.

    python benchmarks/keystroke_tokens.py [--model DIR] [--chars 200] [--budget 830] [--repeats 3]
Types `--chars` characters of a stdlib file one at a time; at each keystroke every variant computes the prefix
window's token ids (`ContextWindow.prefix_ids`, budget `--budget` tokens), in rotating order so machine noise hits
them alike:
  transformers-full   the old path: transformers' tokenizer (via mlx-lm) encodes the whole window each keystroke
  tokenizers-full     the `tokenizers`-only Tokenizer, still the whole window
  incremental         the `tokenizers`-only Tokenizer, re-encoding only the pieces an edit touched
Also times the token-text table (token healing): one decode per id through transformers vs one batch decode.
Prints medians and ratios; saves JSON under benchmarks/results/.
"""

from __future__ import annotations

import os
import sys

# benchmarks/typing.py would shadow the standard library's `typing` while this folder is on sys.path.
sys.path[:] = [p for p in sys.path if os.path.abspath(p or ".") != os.path.dirname(os.path.abspath(__file__))]

import argparse
import copy
import statistics
import sysconfig
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from benchmarks.common import save
from laya_lsp.engine.caches.context_window import ContextWindow
from laya_lsp.engine.loading.cuts import CutRule
from laya_lsp.engine.loading.fim import PromptBuilder, detect_fim
from laya_lsp.engine.loading.model import resolve_model
from laya_lsp.engine.loading.tokenizer import Tokenizer, load_tokenizer

SOURCE = Path(sysconfig.get_paths()["stdlib"]) / "textwrap.py"


class TransformersTokenizer:
    """transformers' tokenizer (as mlx-lm loads it) behind the interface PromptBuilder uses: the old path."""

    cut_rule: CutRule | None = None

    def __init__(self, path: Path) -> None:
        from mlx_lm.tokenizer_utils import load

        self.hf = load(path)
        self.unk_token_id, self.unk_token = self.hf.unk_token_id, self.hf.unk_token

    def encode(self, text: str) -> list[int]:
        return list(self.hf.encode(text, add_special_tokens=False))

    def convert_tokens_to_ids(self, token: str) -> int | None:
        return self.hf.convert_tokens_to_ids(token)


def keystrokes(text: str, chars: int) -> tuple[str, list[tuple[str, int]]]:
    """(document without the typed span, [(document, cursor)] after each typed character) at ~70% of the file."""
    start = text.find("\n", int(len(text) * 0.7)) + 1
    typed = text[start:start + chars]
    base = text[:start] + text[start + chars:]
    return base, [(base[:start] + typed[:i] + base[start:], start + i) for i in range(1, len(typed) + 1)]


def time_variants(builders: dict[str, PromptBuilder], steps: list[tuple[str, int]], budget: int,
                  repeats: int) -> dict[str, list[float]]:
    """Microseconds per keystroke for each variant (each with its own per-document window)."""
    times: dict[str, list[float]] = {name: [] for name in builders}
    names = list(builders)
    for rep in range(repeats):
        windows = {name: ContextWindow() for name in names}
        for i, (doc, cursor) in enumerate(steps):
            order = names[(i + rep) % len(names):] + names[:(i + rep) % len(names)]
            results = {}
            for name in order:
                t = time.perf_counter()
                results[name] = windows[name].prefix_ids(builders[name], doc[:cursor], budget)
                times[name].append((time.perf_counter() - t) * 1e6)
            assert len({(tuple(ids), start) for ids, start in results.values()}) == 1, "variants disagree"
    return times


def token_table_ms(path: Path, ours: Tokenizer, n: int) -> dict[str, float]:
    from transformers import AutoTokenizer

    hf = AutoTokenizer.from_pretrained(path)
    t = time.perf_counter()
    one_by_one = [hf.decode([i]) if i < len(hf) else "" for i in range(n)]
    per_id = (time.perf_counter() - t) * 1000
    t = time.perf_counter()
    batch = ours.token_texts(n)
    batched = (time.perf_counter() - t) * 1000
    assert one_by_one == batch
    return {"transformers_per_id_ms": round(per_id, 1), "batch_decode_ms": round(batched, 1),
            "ratio": round(per_id / batched, 1)}


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--model", help="model directory (default: the embedded model)")
    p.add_argument("--chars", type=int, default=200)
    p.add_argument("--budget", type=int, default=830)
    p.add_argument("--repeats", type=int, default=3)
    args = p.parse_args()
    path = resolve_model(args.model)
    ours = load_tokenizer(path)
    fmt = detect_fim(ours)
    whole = copy.copy(ours)
    whole.cut_rule = None  # the same tokenizer, encoding the whole window each time
    builders = {"transformers-full": PromptBuilder(TransformersTokenizer(path), fmt),  # type: ignore[arg-type]
                "tokenizers-full": PromptBuilder(whole, fmt),
                "incremental": PromptBuilder(ours, fmt)}
    _base, steps = keystrokes(SOURCE.read_text(encoding="utf-8"), args.chars)
    times = time_variants(builders, steps, args.budget, args.repeats)
    medians = {name: round(statistics.median(v), 1) for name, v in times.items()}
    result: dict[str, Any] = {
        "model": str(path), "source": SOURCE.name, "keystrokes": len(steps), "repeats": args.repeats,
        "budget_tokens": args.budget, "cut_rule": ours.cut_rule.name if ours.cut_rule else None,
        "median_us_per_keystroke": medians,
        "ratio_vs_transformers_full": {n: round(medians["transformers-full"] / m, 1) for n, m in medians.items()},
        "load_average": [round(x, 2) for x in os.getloadavg()],
        "token_text_table": token_table_ms(path, ours, len(ours)),
    }
    for name, med in medians.items():
        print(f"{name:>18}: {med:9.1f} us/keystroke  ({result['ratio_vs_transformers_full'][name]}x faster than "
              f"transformers-full)")
    table = result["token_text_table"]
    print(f"token-text table ({len(ours)} ids): per-id transformers decode {table['transformers_per_id_ms']} ms, "
          f"batch decode {table['batch_decode_ms']} ms ({table['ratio']}x)")
    print("load average", result["load_average"], "; saved", save("keystroke-tokens", result))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

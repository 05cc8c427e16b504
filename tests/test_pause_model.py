"""The embedded pause-tier model (laya_lsp/models/pause): shipped small and 4-bit, the keystroke model's tokenizer,
loads offline and answers the obvious cases the keystroke model answers, plus one it leaves blank."""
from __future__ import annotations

import json
from pathlib import Path

from test_default_model import LIST_FILES, LIST_FILES_SUFFIX

MODELS = Path(__file__).resolve().parent.parent / "laya_lsp" / "models"
PAUSE, DEFAULT = MODELS / "pause", MODELS / "default"


def test_files_present_small_and_4_bit() -> None:
    names = {p.name for p in PAUSE.iterdir()}
    assert {"config.json", "model.safetensors", "tokenizer.json", "tokenizer_config.json", "MODEL_CARD.md"} <= names
    assert not any(n.endswith((".bin", ".pt", ".pkl", ".npz")) for n in names), "safetensors only"
    # Every GPU training call carries the tracked tree (64 MiB in all): the pause tier stays 4-bit on disk.
    assert sum(p.stat().st_size for p in PAUSE.iterdir()) <= 24 * 2**20
    cfg = json.loads((PAUSE / "config.json").read_text())
    assert cfg["quantization"] == {"group_size": 64, "bits": 4, "mode": "affine"}
    assert cfg["laya"] == json.loads((DEFAULT / "config.json").read_text())["laya"]
    keystroke = json.loads((DEFAULT / "config.json").read_text())
    assert cfg["hidden_size"] > keystroke["hidden_size"] and cfg["num_hidden_layers"] > keystroke["num_hidden_layers"]


def test_same_tokenizer_as_the_keystroke_model() -> None:
    """One tokenizer for both tiers: the keystroke model's drafts and the FIM template serve the pause tier."""
    for name in ("tokenizer.json", "tokenizer_config.json", "special_tokens_map.json"):
        assert (PAUSE / name).read_bytes() == (DEFAULT / name).read_bytes(), name


def test_completes_obvious_cases_first() -> None:
    """The pause model alone in the engine (dequantized to fp32 on this CPU): the keystroke model's three obvious
    cases, and the body of `for f in files:` (the keystroke model's ghost text was blank there)."""
    from laya_lsp.engine import CompletionRequest, Engine, EngineSettings

    point = "class Point:\n    def __init__(self, x, y):\n        self.x = x\n        self."
    point_suffix = "\n\n    def norm(self):\n        return (self.x ** 2 + self.y ** 2) ** 0.5\n"
    total = "def total_price(items):\n    total = 0\n    for item in items:\n        total += item.price\n    return "
    count = "def count(files):\n    n = 0\n    for f in files:\n"
    cases = [(LIST_FILES + "    ", LIST_FILES_SUFFIX), (point, point_suffix), (total, "\n"),
             (count, "\n    return n\n")]
    engine = Engine(EngineSettings(max_tokens=16))
    try:
        engine.load(str(PAUSE))
        got = []
        for i, (prefix, suffix) in enumerate(cases):
            result = engine.complete(CompletionRequest(f"obvious{i}", prefix + suffix, len(prefix),
                                                       debounce=False)).future.result(120)
            got.append(result.candidates[0].text.split("\n")[0].strip() if result.candidates else "")
    finally:
        engine.shutdown()
    assert got == ["return python_files", "y = y", "total", "n += 1"]

"""The embedded default model (laya_lsp/models/default): loads offline, sound tokenizer, FIM format, completes."""
from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

MODEL_DIR = Path(__file__).resolve().parent.parent / "laya_lsp" / "models" / "default"
SPECIAL = ["<|endoftext|>", "<|fim_prefix|>", "<|fim_middle|>", "<|fim_suffix|>", "<|fim_pad|>", "<|repo_name|>",
           "<|file_sep|>"]
CODE_SAMPLES = [
    "def f(x):\n    return x + 1\n",
    "\tif a:\r\n        pass  # trailing   \n\n\n",
    "名前 = '日本語のテキスト'  # コメント 😀🚀\nprint(f\"{名前!r:>10}\")\n",
    "class Ünïcödé:\n    \"\"\"Ωmega — «quotes» ∑ 𝔘\"\"\"\n",
    "const x = `tpl ${a}`;\n// emoji 👩‍💻 zero-width\u200b joiner\n",
    "",
    "    \n \t \n",
]


@pytest.fixture(scope="module")
def loaded():
    os.environ["HF_HUB_OFFLINE"] = "1"
    os.environ["TRANSFORMERS_OFFLINE"] = "1"
    from mlx_lm import load

    return load(str(MODEL_DIR))


def test_files_present_and_small() -> None:
    names = {p.name for p in MODEL_DIR.iterdir()}
    assert {"config.json", "model.safetensors", "tokenizer.json", "tokenizer_config.json", "MODEL_CARD.md"} <= names
    assert not any(n.endswith((".bin", ".pt", ".pkl", ".npz")) for n in names), "safetensors only"
    assert sum(p.stat().st_size for p in MODEL_DIR.iterdir()) <= 30 * 2**20


def test_config_declares_fim_layouts() -> None:
    cfg = json.loads((MODEL_DIR / "config.json").read_text())
    assert cfg["model_type"] == "llama"
    assert cfg["laya"]["fim_format"] == "qwen"
    assert set(cfg["laya"]["fim_layouts"]) == {"spm", "psm"}
    assert isinstance(cfg["laya"]["repo_level"], bool)


def test_loads_offline_with_empty_hf_cache(loaded, tmp_path, monkeypatch) -> None:
    monkeypatch.setenv("HF_HOME", str(tmp_path))
    monkeypatch.setenv("HF_HUB_CACHE", str(tmp_path / "hub"))
    from mlx_lm import load

    _, tokenizer = load(str(MODEL_DIR))
    assert tokenizer.eos_token == "<|endoftext|>"
    assert not (tmp_path / "hub").exists() or not any((tmp_path / "hub").iterdir())


def test_special_tokens_are_single_ids(loaded) -> None:
    _, tok = loaded
    for i, s in enumerate(SPECIAL):
        assert tok.encode(s, add_special_tokens=False) == [i], s
    assert tok.eos_token_id == 0


@pytest.mark.parametrize("text", CODE_SAMPLES)
def test_tokenizer_round_trips_code(loaded, text: str) -> None:
    _, tok = loaded
    ids = tok.encode(text, add_special_tokens=False)
    assert tok.decode(ids) == text
    # the raw `tokenizers` file agrees with the transformers wrapper
    from tokenizers import Tokenizer

    raw = Tokenizer.from_file(str(MODEL_DIR / "tokenizer.json"))
    assert raw.encode(text, add_special_tokens=False).ids == ids


def test_fim_detection_picks_qwen_format(loaded) -> None:
    fim = pytest.importorskip("laya_lsp.engine.loading.fim")
    _, tok = loaded
    cfg = json.loads((MODEL_DIR / "config.json").read_text())
    fmt = fim.detect_fim(tok, cfg)
    assert fmt.name == "qwen"
    assert "spm" in fmt.layouts


def _greedy_line(model, tok, prefix: str, suffix: str) -> str:
    import mlx.core as mx
    from mlx_lm.models.cache import make_prompt_cache

    ids = [1, 3] + tok.encode(suffix, add_special_tokens=False) + [2] + tok.encode(prefix, add_special_tokens=False)
    cache = make_prompt_cache(model)
    logits = model(mx.array(ids)[None], cache=cache)[:, -1]
    out: list[int] = []
    for _ in range(24):
        t = int(mx.argmax(logits, axis=-1).item())
        if t < 7:
            break
        out.append(t)
        text = tok.decode(out)
        if "\n" in text:
            return text.split("\n")[0]
        logits = model(mx.array([[t]]), cache=cache)[:, -1]
    return tok.decode(out).split("\n")[0]


LIST_FILES = ("import os\n\n\n"
              "def list_python_files(directory):\n"
              "    python_files = []\n"
              "    for name in os.listdir(directory):\n"
              "        if name.endswith('.py'):\n"
              "            python_files.append(name)\n")
LIST_FILES_SUFFIX = "\n\n\ndef main():\n    print(list_python_files('.'))\n"


def test_raw_model_repeats_the_identifier_spm(loaded) -> None:
    """The bare model (greedy, SPM, no server) continues `return` with the variable built just above."""
    model, tok = loaded
    assert _greedy_line(model, tok, LIST_FILES + "    return", LIST_FILES_SUFFIX) == " python_files"


def _first_candidates(cases: list[tuple[str, str]]) -> list[str]:
    """The first candidate the engine (default settings: k branches, token healing, syntax post-processing off
    because this is the engine alone) gives at the end of each prefix, with the suffix after the cursor."""
    from laya_lsp.engine import CompletionRequest, Engine, EngineSettings

    engine = Engine(EngineSettings(max_tokens=16))
    try:
        engine.load(None)
        out = []
        for i, (prefix, suffix) in enumerate(cases):
            request = CompletionRequest(f"obvious{i}", prefix + suffix, len(prefix), debounce=False)
            result = engine.complete(request).future.result(60)
            out.append(result.candidates[0].text.split("\n")[0] if result.candidates else "")
        return out
    finally:
        engine.shutdown()


def test_completes_obvious_cases_first() -> None:
    """What a user gets at three obvious spots: the identifier built above, the constructor argument not yet
    stored, the accumulator after `return ` (a trailing space: token healing)."""
    point = "class Point:\n    def __init__(self, x, y):\n        self.x = x\n        self."
    point_suffix = "\n\n    def norm(self):\n        return (self.x ** 2 + self.y ** 2) ** 0.5\n"
    total = "def total_price(items):\n    total = 0\n    for item in items:\n        total += item.price\n    return "
    got = _first_candidates([(LIST_FILES + "    ", LIST_FILES_SUFFIX), (point, point_suffix), (total, "\n")])
    assert got == ["return python_files", "y = y", "total"]


def test_a_space_typed_before_the_cursor_is_healed():
    """`return ` ends in a lone space token the model never continues well: the prompt leaves it out and the
    first token must start with it (token healing); the candidate does not repeat the space. With one branch,
    the healed answer is the model's answer after `return` (whose best first token starts with a space)
    without that space."""
    from laya_lsp.engine import CompletionRequest, Engine, EngineSettings
    from laya_lsp.engine.decoding.healing import trailing_blanks

    assert trailing_blanks("    return ") == " " and trailing_blanks("x = 1\n    ") == "" and trailing_blanks("a") == ""
    text = ("import os\n\ndef list_python_files(folder):\n"
            "    python_files = [f for f in os.listdir(folder) if f.endswith('.py')]\n    return ")
    engine = Engine(EngineSettings(candidates=1, max_tokens=12))
    try:
        engine.load(None)
        healed, plain = (engine.complete(CompletionRequest(name, t, len(t), debounce=False)).future.result(60)
                         for name, t in (("heal", text), ("plain", text[:-1])))
        healed, plain = [c.text for c in healed.candidates], [c.text for c in plain.candidates]
    finally:
        engine.shutdown()
    assert plain and plain[0].startswith(" ") and plain[0].strip(), plain
    assert healed == [plain[0][1:]]

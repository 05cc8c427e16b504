"""Training data path (training/tokenizer.py, training/samples.py): text shards -> token files -> FIM rows, with
shards that arrive while a run trains, and middles cut where editors ask."""
from __future__ import annotations

import json
import random
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "training"))
pytest.importorskip("tokenizers")

from samples import EOT, FIM_MIDDLE, Corpus, SampleMaker
from tokenizer import encode, pack

TOKENIZER = ROOT / "laya_lsp" / "models" / "default"
CODE = ("def total(items):\n    result = 0\n    for item in items:\n        if item.price:\n"
        "            result += item.price\n    return result\n\n\nclass Box:\n    def __init__(self, w):\n"
        "        self.w = w\n")


@pytest.fixture()
def shards(tmp_path: Path) -> Path:
    docs = tmp_path / "docs.jsonl"
    docs.write_text("".join(json.dumps({"src": f"pkg{i // 3}", "path": f"m{i}.py", "lang": "python",
                                        "text": CODE.replace("total", f"total{i}")}) + "\n" for i in range(12)))
    pack(docs, 0.0015, tmp_path / "text", final=True)
    return tmp_path


def test_pack_mixes_runs_of_one_source_and_encode_round_trips(shards: Path) -> None:
    texts = sorted((shards / "text").glob("shard-*.jsonl.bz2"))
    assert len(texts) > 1
    for t in texts:
        encode(TOKENIZER, t, shards / "tokens")
    corpus = Corpus(shards / "tokens")
    assert len(corpus) == 12
    paths = [corpus.meta_of(d)[1] for d in range(12)]
    assert sorted(paths) == sorted(f"m{i}.py" for i in range(12))  # every document once
    srcs = [corpus.meta_of(d)[0] for d in range(12)]
    runs = [s for i, s in enumerate(srcs) if i == 0 or srcs[i - 1] != s]
    assert len(runs) == len(set(runs)) == 4  # a package's files stay together, in their order
    assert paths != sorted(paths, key=lambda p: int(p[1:-3]))  # the runs are shuffled
    from tokenizers import Tokenizer

    tok = Tokenizer.from_file(str(TOKENIZER / "tokenizer.json"))
    five = paths.index("m5.py")
    assert tok.decode(corpus.doc(five).tolist()) == CODE.replace("total", "total5")


def test_pack_cuts_a_shard_before_its_compressed_limit(tmp_path: Path) -> None:
    rng = random.Random(0)
    docs = tmp_path / "docs.jsonl"
    docs.write_text("".join(json.dumps({"src": f"pkg{i}", "path": "m.py", "lang": "python",  # ~0.6 bytes/char
                                        "text": "".join(rng.choices("abcdefghijklmnopqrstuvwxyz_ \n", k=200_000))})
                            + "\n" for i in range(40)))
    pack(docs, 100, tmp_path / "text", final=True, max_bytes=2_500_000)  # ~5 MB compressed: one shard cannot hold it
    shards = sorted((tmp_path / "text").glob("shard-*.jsonl.bz2"))
    assert len(shards) >= 2 and all(s.stat().st_size <= 2_500_000 for s in shards)
    ready = (tmp_path / "text" / "READY.txt").read_text().splitlines()
    assert [line.split()[1] for line in ready] == [s.name.split(".")[0] for s in shards]
    assert sum(int(line.split()[3]) for line in ready) == 40  # every document once


def test_a_shard_that_arrives_later_joins_the_corpus(shards: Path) -> None:
    first, *rest = sorted((shards / "text").glob("shard-*.jsonl.bz2"))
    encode(TOKENIZER, first, shards / "tokens")
    corpus = Corpus(shards / "tokens")
    before = len(corpus)
    assert not corpus.refresh()
    encode(TOKENIZER, rest[0], shards / "tokens")
    assert corpus.refresh() and len(corpus) > before
    assert 0 in corpus.validation_docs() and 0 not in corpus.training_docs()


def test_rows_are_full_and_block_middles_are_indented_bodies(shards: Path) -> None:
    for t in sorted((shards / "text").glob("shard-*.jsonl.bz2")):
        encode(TOKENIZER, t, shards / "tokens")
    corpus = Corpus(shards / "tokens")
    maker = SampleMaker(corpus, str(TOKENIZER / "tokenizer.json"), corpus.training_docs(), seed=3)
    assert all(len(maker.row(64)) == 65 for _ in range(20))
    lines = maker.window(1, 1000)
    bodies = set()
    for seed in range(30):
        maker.rng = random.Random(seed)
        first, last = maker.block_body(lines)  # type: ignore[misc]
        bodies.add("".join(maker.line_text(x) for x in lines[first:last + 1]))
    assert "            result += item.price\n" in bodies  # the body under `if item.price:`
    assert "        self.w = w\n" in bodies
    assert all(b.startswith("    ") and not b.endswith("\n\n") for b in bodies)


def test_fim_cuts_reassemble_the_window(shards: Path) -> None:
    """Whatever the cut (rest of line, line end, block, lines, random span), prefix + middle + suffix is the text."""
    for t in sorted((shards / "text").glob("shard-*.jsonl.bz2")):
        encode(TOKENIZER, t, shards / "tokens")
    corpus = Corpus(shards / "tokens")
    maker = SampleMaker(corpus, str(TOKENIZER / "tokenizer.json"), corpus.training_docs(), seed=5)
    lines = maker.window(2, 1000)
    text = "".join(maker.line_text(x) for x in lines)
    for seed in range(60):
        maker.rng = random.Random(seed)
        pre, mid, suf = maker.cut(lines, *maker.fim_points(lines))
        assert maker.tok.decode(pre + mid + suf) == text
        assert EOT not in mid and FIM_MIDDLE not in mid

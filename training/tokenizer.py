"""Train the byte-level BPE tokenizer and tokenize the corpus into a compact token file for the GPU.

  python training/tokenizer.py train     # -> training/out/tokenizer/{tokenizer.json,tokenizer_config.json,...}
  python training/tokenizer.py encode    # -> training/data/tokens.npz.xz-style shard (see encode())

Pre-tokenization splits after every newline, so no token ever spans a line break: the token stream of a file is
the concatenation of the token streams of its lines. train.py relies on that to cut fill-in-the-middle samples at
line boundaries by slicing token arrays, and re-tokenizes only the one line a mid-line cut falls in.
Special tokens follow Qwen2.5-Coder, which the server's FIM detection recognises.
"""
from __future__ import annotations

import argparse
import json
import lzma
import random
import sys
from pathlib import Path

import numpy as np
from tokenizers import Regex, Tokenizer, decoders, models, pre_tokenizers, trainers

ROOT = Path(__file__).resolve().parent
DATA = ROOT / "data"
SPECIAL = ["<|endoftext|>", "<|fim_prefix|>", "<|fim_middle|>", "<|fim_suffix|>", "<|fim_pad|>",
           "<|repo_name|>", "<|file_sep|>"]


def build_tokenizer() -> Tokenizer:
    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.Sequence([
        pre_tokenizers.Split(Regex("\n"), behavior="merged_with_previous"),
        pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=True),
    ])
    tok.decoder = decoders.ByteLevel()
    return tok


def docs(limit_bytes: int | None = None, seed: int = 0) -> list[str]:
    out, total = [], 0
    rng = random.Random(seed)
    for line in open(DATA / "docs.jsonl"):
        if limit_bytes is not None and rng.random() > 0.3:
            continue
        t = json.loads(line)["text"]
        out.append(t)
        total += len(t)
        if limit_bytes is not None and total >= limit_bytes:
            break
    return out


def save_hf_files(tok: Tokenizer, out: Path) -> None:
    out.mkdir(parents=True, exist_ok=True)
    tok.save(str(out / "tokenizer.json"))
    added = {str(tok.token_to_id(s)): {"content": s, "lstrip": False, "normalized": False, "rstrip": False,
                                       "single_word": False, "special": True} for s in SPECIAL}
    cfg = {"tokenizer_class": "PreTrainedTokenizerFast", "model_max_length": 4096, "eos_token": "<|endoftext|>",
           "pad_token": "<|fim_pad|>", "bos_token": None, "unk_token": None, "add_bos_token": False,
           "add_eos_token": False, "clean_up_tokenization_spaces": False, "added_tokens_decoder": added,
           "additional_special_tokens": SPECIAL[1:]}
    (out / "tokenizer_config.json").write_text(json.dumps(cfg, indent=1))
    (out / "special_tokens_map.json").write_text(json.dumps(
        {"eos_token": "<|endoftext|>", "pad_token": "<|fim_pad|>", "additional_special_tokens": SPECIAL[1:]}, indent=1))


def train(vocab: int, sample_bytes: int, out: Path) -> None:
    tok = build_tokenizer()
    trainer = trainers.BpeTrainer(vocab_size=vocab, special_tokens=SPECIAL, min_frequency=2,
                                  initial_alphabet=pre_tokenizers.ByteLevel.alphabet(), show_progress=False)
    texts = docs(sample_bytes)
    tok.train_from_iterator(texts, trainer=trainer)
    assert [tok.token_to_id(s) for s in SPECIAL] == list(range(len(SPECIAL))), "special tokens must be ids 0..6"
    save_hf_files(tok, out)
    sample = texts[: len(texts) // 10]
    n_chars = sum(len(t) for t in sample)
    n_tok = sum(len(e.ids) for e in tok.encode_batch(sample))
    print(json.dumps({"vocab": vocab, "chars_per_token": round(n_chars / n_tok, 3), "sample_chars": n_chars}))


def encode(tok_dir: Path, out: Path) -> None:
    """All documents -> uint16 token ids (concatenated) + document offsets + metadata, xz-compressed."""
    tok = Tokenizer.from_file(str(tok_dir / "tokenizer.json"))
    ids: list[np.ndarray] = []
    meta = []
    batch: list[dict] = []

    def flush() -> None:
        for d, e in zip(batch, tok.encode_batch([d["text"] for d in batch])):
            ids.append(np.array(e.ids, dtype=np.uint16))
            meta.append([d["src"], d["path"], d["lang"]])
        batch.clear()

    for line in open(DATA / "docs.jsonl"):
        batch.append(json.loads(line))
        if len(batch) == 2000:
            flush()
    flush()
    offsets = np.cumsum([0] + [len(a) for a in ids]).astype(np.int64)
    write_tokens(out, np.concatenate(ids), offsets, meta)
    print(json.dumps({"tokens": int(offsets[-1]), "docs": len(ids), "compressed_MiB": round(out.stat().st_size / 2**20, 1)}))


def write_tokens(out: Path, tokens: np.ndarray, offsets: np.ndarray, meta: list) -> None:
    buf = tokens.tobytes() + offsets.tobytes()
    header = json.dumps({"n_tokens": len(tokens), "n_docs": len(offsets) - 1, "meta": meta}).encode()
    with lzma.open(out, "wb", preset=6) as f:
        f.write(len(header).to_bytes(8, "little") + header + buf)


def subset(src: Path, out: Path, keep: float, seed: int = 0, val_every: int = 200) -> None:
    """A smaller token file for a transfer limit: a seeded random `keep` share of the training documents keeps
    its tokens, the others become empty (train.py skips them), so document indices and the validation documents
    (every `val_every`-th, see train.py) stay exactly those of the full file."""
    tokens, offsets, meta = load_tokens(src)
    rng = np.random.default_rng(seed)
    n = len(offsets) - 1
    kept = rng.random(n) < keep
    kept[::val_every] = True
    parts = [tokens[offsets[d]:offsets[d + 1]] if kept[d] else tokens[:0] for d in range(n)]
    new_offsets = np.cumsum([0] + [len(p) for p in parts]).astype(np.int64)
    write_tokens(out, np.concatenate(parts), new_offsets, meta)
    print(json.dumps({"docs_kept": int(kept.sum()), "docs": n, "tokens": int(new_offsets[-1]),
                      "compressed_MiB": round(out.stat().st_size / 2**20, 1)}))


def load_tokens(path: Path) -> tuple[np.ndarray, np.ndarray, list]:
    """Inverse of encode(): (tokens uint16, doc offsets int64, per-doc [src, path, lang])."""
    with lzma.open(path, "rb") as f:
        raw = f.read()
    n = int.from_bytes(raw[:8], "little")
    header = json.loads(raw[8:8 + n])
    body = raw[8 + n:]
    nt = header["n_tokens"]
    tokens = np.frombuffer(body[: 2 * nt], dtype=np.uint16)
    offsets = np.frombuffer(body[2 * nt:], dtype=np.int64)
    return tokens, offsets, header["meta"]


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("cmd", choices=["train", "encode", "measure", "subset"])
    ap.add_argument("--vocab", type=int, default=8192)
    ap.add_argument("--sample-bytes", type=int, default=60_000_000)
    ap.add_argument("--out", default=str(ROOT / "out" / "tokenizer"))
    ap.add_argument("--tokens", default=str(DATA / "tokens.bin.xz"))
    ap.add_argument("--keep", type=float, default=0.8, help="subset: share of training documents kept")
    ap.add_argument("--subset-out", default=str(DATA / "tokens-subset.bin.xz"))
    args = ap.parse_args()
    if args.cmd == "train":
        train(args.vocab, args.sample_bytes, Path(args.out))
    elif args.cmd == "measure":  # vocab trade-off: chars per token on a smaller sample
        for v in (4096, 8192, 12288, 16384):
            train(v, args.sample_bytes, Path(args.out) / f"v{v}")
    elif args.cmd == "subset":
        subset(Path(args.tokens), Path(args.subset_out), args.keep)
    else:
        encode(Path(args.out), Path(args.tokens))
    sys.stdout.flush()


if __name__ == "__main__":
    main()

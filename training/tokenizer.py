"""Train the byte-level BPE tokenizer and tokenize the corpus into a compact token file for the GPU.

  python training/tokenizer.py train     # -> training/out/tokenizer/{tokenizer.json,tokenizer_config.json,...}
  python training/tokenizer.py pack --final      # docs.jsonl -> training/data/shards/shard-NN.jsonl.bz2
  python training/tokenizer.py encode --shard S.jsonl.bz2 --tokens DIR   # on the GPU machine, per shard

Pre-tokenization splits after every newline, so no token ever spans a line break: the token stream of a file is
the concatenation of the token streams of its lines. train.py relies on that to cut fill-in-the-middle samples at
line boundaries by slicing token arrays, and re-tokenizes only the one line a mid-line cut falls in.
Special tokens follow Qwen2.5-Coder, which the server's FIM detection recognises.
"""
from __future__ import annotations

import argparse
import bz2
import json
import lzma
import random
import sys
from pathlib import Path
from typing import IO

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
    with open(DATA / "docs.jsonl") as lines_in:
        for line in lines_in:
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


MAX_BYTES = 13_500_000  # a shard's cap: 64 MiB a call - the tracked tree (50.9 MB) - code/, tokenizer/ - margin


def open_shard(path: Path) -> IO[str]:
    """A text shard for reading, bzip2 (`.jsonl.bz2`, what pack writes), xz (`.jsonl.xz`) or plain (`.jsonl`, what
    corpus.py --installed writes on the GPU machine)."""
    if path.name.endswith(".jsonl"):
        return open(path)
    return lzma.open(path, "rt") if path.name.endswith(".xz") else bz2.open(path, "rt")


def pack(docs_path: Path, shard_mb: float, out: Path, final: bool, limit_docs: int = 0, run: int = 8,
         max_bytes: int = MAX_BYTES, seed: int = 0) -> None:
    """docs.jsonl -> bzip2-compressed JSONL text shards, the way the corpus travels to the GPU (one shard per device
    call must fit the transfer limit). bzip2 because xz packs only a little more text per byte for many times the CPU
    time on this shared 2-core machine (40 MB of run 4's JSONL, 2026-12-03 under load ~11: bzip2 -9 5.35 MB in
    63 s, xz -9e 4.73 MB in 700 s, 13 % more text per byte), and Python reads it anywhere.

    Shard k takes the next `shard_mb` MB of docs.jsonl in corpus order (corpus.py reads its sources in a random order
    of units, so every stretch holds every language) and writes them as a shuffled mix of runs of at most `run`
    consecutive documents of one source (the runs keep a package's neighbouring files together for repo-level
    samples), so that training on shard-00 alone sees every language. A shard stops early when its compressed size
    would pass `max_bytes`; the documents left over open the next shard. Shard k is the same whether corpus.py has
    finished or is still appending. The last, partial shard is written only with `final`; existing shards are kept.
    Each written shard appends `READY shard-NN <bytes> <docs> <language>=<MB>,...` to READY.txt in `out`."""
    out.mkdir(parents=True, exist_ok=True)
    lines: list[str] = []
    size, k, n_docs = 0, 0, 0

    def runs_of(batch: list[str]) -> list[list[str]]:
        runs: list[list[str]] = []
        last = None
        for line in batch:
            src = json.loads(line)["src"]
            if src != last or len(runs[-1]) >= run:
                runs.append([])
            runs[-1].append(line)
            last = src
        return runs

    def flush(batch: list[str]) -> list[str]:
        """Write shard k from `batch`; returns the documents that did not fit `max_bytes`."""
        path = out / f"shard-{k:02d}.jsonl.bz2"
        runs = runs_of(batch)
        random.Random(seed * 1000 + k).shuffle(runs)
        if path.exists():  # already written: recover which documents it took, so later shards stay the same
            with open_shard(path) as f:
                taken = sum(1 for _ in f)
            kept = [line for r in runs for line in r]
            return kept[taken:]
        comp = bz2.BZ2Compressor(9)
        tmp = path.with_suffix(".tmp")
        written, taken, langs = 0, 0, {}
        with open(tmp, "wb") as f:
            for i, r in enumerate(runs):
                chunk = "".join(r).encode()
                if taken and written + len(chunk) // 4 + 1_200_000 > max_bytes:  # a pending 900 kB block: <1.2 MB
                    left = [line for rr in runs[i:] for line in rr]
                    break
                data = comp.compress(chunk)
                f.write(data)
                written += len(data)
                taken += len(r)
                for line in r:
                    lang = json.loads(line)["lang"]
                    langs[lang] = langs.get(lang, 0) + len(line)
            else:
                left = []
            f.write(comp.flush())
        tmp.rename(path)
        packed = path.stat().st_size
        assert packed <= max_bytes, (path, packed)
        mb = ",".join(f"{lang}={v / 1e6:.1f}" for lang, v in sorted(langs.items(), key=lambda kv: -kv[1]))
        with open(out / "READY.txt", "a") as ready:
            ready.write(f"READY {path.stem.split('.')[0]} {packed} {taken} {mb}\n")
        print(json.dumps({"shard": path.name, "docs": taken, "text_MB": round(sum(langs.values()) / 1e6, 1),
                          "packed_MB": round(packed / 1e6, 2), "left_over": len(left), "MB_by_language": mb}),
              flush=True)
        return left

    with open(docs_path) as lines_in:
        for line in lines_in:
            if limit_docs and n_docs == limit_docs:
                break
            if not line.endswith("\n"):  # corpus.py is still writing this line
                break
            lines.append(line)
            size += len(line)
            n_docs += 1
            if size >= shard_mb * 1e6:
                lines = flush(lines)
                size, k = sum(map(len, lines)), k + 1
    while final and lines:  # the last documents, in as many shards as the compressed limit needs
        lines = flush(lines)
        k += 1


def encode(tok_dir: Path, shard: Path, out: Path) -> None:
    """One text shard -> its token files in folder `out`: <name>.tokens.npy (uint16 ids of all documents
    concatenated), <name>.offsets.npy (document starts, int64) and <name>.meta.json (per document [source, path,
    language]), written last and atomically: a training run polling the folder takes a shard once its meta exists."""
    tok = Tokenizer.from_file(str(tok_dir / "tokenizer.json"))
    with open_shard(shard) as shard_in:
        docs = [json.loads(line) for line in shard_in]
    ids = [np.array(e.ids, dtype=np.uint16) for e in tok.encode_batch([d["text"] for d in docs])]
    offsets = np.cumsum([0] + [len(a) for a in ids]).astype(np.int64)
    name = shard.name.split(".")[0]
    out.mkdir(parents=True, exist_ok=True)
    np.save(out / f"{name}.tokens.npy", np.concatenate(ids))
    np.save(out / f"{name}.offsets.npy", offsets)
    tmp = out / f"{name}.meta.tmp"
    tmp.write_text(json.dumps([[d["src"], d["path"], d["lang"]] for d in docs]))
    tmp.rename(out / f"{name}.meta.json")
    print(json.dumps({"shard": name, "tokens": int(offsets[-1]), "docs": len(ids)}), flush=True)


def load_tokens(folder: Path, name: str) -> tuple[np.ndarray, np.ndarray, list]:
    """Inverse of encode(): (tokens uint16, memory-mapped so data workers share them; doc offsets; per-doc
    [src, path, lang])."""
    return (np.load(folder / f"{name}.tokens.npy", mmap_mode="r"), np.load(folder / f"{name}.offsets.npy"),
            json.loads((folder / f"{name}.meta.json").read_text()))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("cmd", choices=["train", "measure", "pack", "encode"])
    ap.add_argument("--vocab", type=int, default=8192)
    ap.add_argument("--sample-bytes", type=int, default=60_000_000)
    ap.add_argument("--out", default=str(ROOT / "out" / "tokenizer"), help="tokenizer folder")
    ap.add_argument("--docs", default=str(DATA / "docs.jsonl"), help="pack: the corpus (corpus.py)")
    ap.add_argument("--shard-mb", type=float, default=230, help="pack: MB of JSONL text per shard")
    ap.add_argument("--final", action="store_true", help="pack: also write the last, partial shard")
    ap.add_argument("--limit-docs", type=int, default=0, help="pack: only the first N documents (0 = all)")
    ap.add_argument("--run", type=int, default=8, help="pack: most consecutive documents of one source kept together")
    ap.add_argument("--max-bytes", type=int, default=MAX_BYTES, help="pack: most bytes of a compressed shard")
    ap.add_argument("--shard-dir", default=str(DATA / "shards"), help="pack: where the text shards go")
    ap.add_argument("--shard", help="encode: one text shard (.jsonl.bz2 or .jsonl.xz)")
    ap.add_argument("--tokens", help="encode: the folder of token files")
    args = ap.parse_args()
    if args.cmd == "train":
        train(args.vocab, args.sample_bytes, Path(args.out))
    elif args.cmd == "measure":  # vocab trade-off: chars per token on a smaller sample
        for v in (4096, 8192, 12288, 16384):
            train(v, args.sample_bytes, Path(args.out) / f"v{v}")
    elif args.cmd == "pack":
        pack(Path(args.docs), args.shard_mb, Path(args.shard_dir), args.final, args.limit_docs, args.run,
             args.max_bytes)
    else:
        encode(Path(args.out), Path(args.shard), Path(args.tokens))
    sys.stdout.flush()


if __name__ == "__main__":
    main()

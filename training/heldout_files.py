"""Pick the held-out files of the per-language quality table: benchmarks/data/heldout-files/<language>/.

The held-out packages (heldout_packages.txt for Python; the `heldout-<language>` lines of debian_source_packages.txt
and debian_binary_packages.txt; the npm tarballs in training/data/heldout_npm) are kept out of the corpus and seed
its near-duplicate index (corpus.py), so these files are unseen code of every language the server claims.
A file qualifies when corpus.py's quality filters keep it, it is 1-20 kB and the server knows its extension
(laya_lsp.replay.LANGUAGES); a fixed sample of --per-language files is taken round-robin over the packages.

  python training/heldout_files.py [--per-language 32]     # after the downloads of training/README.md
"""
from __future__ import annotations

import argparse
import random
import re
import shutil
import sys
from collections import defaultdict
from pathlib import Path

from corpus import all_units, language, quality_reason

ROOT = Path(__file__).resolve().parent
sys.path.insert(0, str(ROOT.parent))
from laya_lsp.replay import LANGUAGES

OUT = ROOT.parent / "benchmarks" / "data" / "heldout-files"
FOLDER = {"python": "python", "javascript": "javascript", "typescript": "typescript", "go": "go", "rust": "rust",
          "c": "c", "cpp": "cpp", "java": "java"}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--per-language", type=int, default=32)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()
    found: dict[str, dict[str, list[tuple[str, str]]]] = defaultdict(lambda: defaultdict(list))
    licences: dict[str, str] = {}
    for uid, kind, _, docs in all_units([], heldout=True):
        for src, lic, rel, text in docs():
            lang = language(src, rel)
            if lang not in FOLDER or Path(rel).suffix not in LANGUAGES or LANGUAGES[Path(rel).suffix] != lang:
                continue  # a .h file of a C++ package would be opened as C: left out
            if 1000 <= len(text.encode()) <= 20_000 and quality_reason(text) is None and "test" not in rel.lower():
                found[lang][src].append((rel, text))
                licences[src] = lic
    if OUT.exists():
        shutil.rmtree(OUT)
    rng = random.Random(args.seed)
    for lang, by_src in sorted(found.items()):
        pools = {src: rng.sample(files, len(files)) for src, files in sorted(by_src.items())}
        picked: list[tuple[str, str, str]] = []
        while len(picked) < args.per_language and any(pools.values()):
            for src, files in pools.items():
                if files and len(picked) < args.per_language:
                    picked.append((src, *files.pop()))
        folder = OUT / FOLDER[lang]
        folder.mkdir(parents=True)
        rows = ["file\tpackage\tpath in package\tlicence"]
        for src, rel, text in picked:
            pkg = re.sub(r"(\.tgz|\.whl|\.deb)$", "", src)
            name = f"{pkg.split('_')[0].split('-py')[0]}__{rel.replace('/', '_')}"[-120:]
            (folder / name).write_text(text)
            rows.append(f"{name}\t{src}\t{rel}\t{licences[src]}")
        (folder / "LICENCES.tsv").write_text("\n".join(rows) + "\n")
        print(lang, len(picked), sorted({s for s, _, _ in picked}), sum(len(t) for _, _, t in picked))


if __name__ == "__main__":
    main()

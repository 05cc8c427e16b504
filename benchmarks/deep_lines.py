"""Line completion deep in long real files, where the names a line needs are defined above the prompt's window.

    python -m benchmarks.deep_lines build WHEEL_DIR     # writes benchmarks/data/deep-lines.jsonl
The held-out line set (benchmarks/data/heldout.jsonl) cuts windows of at most 3,000 characters out of files, so
everything it defines fits the prompt; these tasks keep whole files of the held-out packages (boltons, toolz,
more-itertools, pyparsing: never in the training corpus, see training/README.md) with the cursor after the
indentation of a code line at least FAR characters into the file. Two sets:
- `deep-lines`: such lines at random (does a change hurt ordinary completions?);
- `deep-names`: the cursor inside a line, right before a name the file's outline defines (an import, a function, a
  method, an attribute set in `__init__`) that does not occur in the FAR characters above the line, the rest of the
  line to complete (can the model write a name it cannot see in the window?).
The data file holds each file once with its tasks' (line, column) pairs; `load_sets` expands them.
"""

from __future__ import annotations

import argparse
import builtins
import json
import keyword
import random
import re
import zipfile
from pathlib import Path
from typing import Any

import tree_sitter

from laya_lsp.syntax.languages import new_parser
from laya_lsp.syntax.outline import outline

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "benchmarks" / "data" / "deep-lines.jsonl"
PACKAGES = ("boltons", "toolz", "more_itertools", "pyparsing")
FAR = 3000  # characters above the cursor: more than the embedded model's prefix window holds
MAX_FILE_CHARS = 70_000  # the two giant files (more.py, core.py) would be most of the data file
PER_FILE = 8  # tasks per file and set, so no file dominates a set
PER_SET = 160
_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]{2,}")
_COMMON = set(keyword.kwlist) | set(dir(builtins)) | {"self", "cls"}


def _sources(wheels: Path) -> dict[str, str]:
    """The held-out packages' Python modules (tests left out) from their wheels, by path in the wheel."""
    out: dict[str, str] = {}
    for wheel in sorted(wheels.glob("*.whl")):
        if not wheel.name.split("-")[0].lower() in PACKAGES:
            continue
        with zipfile.ZipFile(wheel) as zf:
            for name in sorted(zf.namelist()):
                if name.endswith(".py") and "/tests/" not in name:
                    text = zf.read(name).decode("utf-8")
                    if FAR * 2 <= len(text) <= MAX_FILE_CHARS:
                        out[name] = text
    return out


def _code_lines(tree: tree_sitter.Tree, text: str) -> list[tuple[int, int, int]]:
    """(line number, line start, indentation) of lines with code to complete: not comments, not in strings."""
    out = []
    start = byte = 0
    for number, line in enumerate(text.split("\n")):
        code = line.strip()
        indent = len(line) - len(line.lstrip())
        if start >= FAR and len(code) >= 8 and code.isascii() and not code.startswith(("#", '"', "'", "@")):
            node = tree.root_node.descendant_for_byte_range(byte + indent, byte + indent + 1)
            if node is not None and node.type not in ("string", "string_start", "string_content", "comment"):
                out.append((number, start, indent))
        start += len(line) + 1
        byte += len(line.encode("utf-8")) + 1
    return out


def _far_name(tree: tree_sitter.Tree, text: str, start: int, indent: int, defined: set[str]) -> int | None:
    """Column of the first name after the line's first word that the outline above the window defines and the
    window does not mention, used as code (not in a string); None if there is none."""
    end = text.find("\n", start)
    line = text[start : len(text) if end < 0 else end]
    window = text[start - FAR : start + indent]
    byte = len(text[:start].encode("utf-8"))
    for match in _IDENT.finditer(line, indent + 1):
        name = match.group()
        if name not in _COMMON and name in defined and not re.search(rf"\b{re.escape(name)}\b", window):
            node = tree.root_node.descendant_for_byte_range(byte + match.start(), byte + match.end())
            if node is not None and node.type == "identifier":
                return match.start()
    return None


def build(wheels: Path) -> None:
    rng = random.Random(0)
    rows: list[dict[str, Any]] = []
    for path, text in _sources(wheels).items():
        tree = new_parser("python").parse(text.encode("utf-8"))
        lines = _code_lines(tree, text)
        deep = rng.sample(lines, min(PER_FILE, len(lines)))
        named = []
        for number, start, indent in lines:
            if text.startswith(("def ", "class ", "async def "), start + indent):
                continue  # a definition's own name is new: the outline cannot know it
            defined = set(_IDENT.findall(outline(text[: start - FAR], "python", 10**9)))
            column = _far_name(tree, text, start, indent, defined)
            if column is not None:
                named.append((number, start, column))
        named = rng.sample(named, min(PER_FILE, len(named)))
        tasks = [{"line": n, "column": c, "set": "deep-lines"} for n, _, c in sorted(deep)]
        tasks += [{"line": n, "column": c, "set": "deep-names"} for n, _, c in sorted(named)]
        rows.append({"id": path, "language": "python", "text": text, "tasks": tasks})
    for name in ("deep-lines", "deep-names"):  # a fixed sample per set, drawn over all files
        picked = rng.sample([(i, j) for i, r in enumerate(rows) for j, t in enumerate(r["tasks"]) if t["set"] == name],
                            k=min(PER_SET, sum(t["set"] == name for r in rows for t in r["tasks"])))
        keep = set(picked)
        for i, r in enumerate(rows):
            r["tasks"] = [t for j, t in enumerate(r["tasks"]) if t["set"] != name or (i, j) in keep]
    rows = [r for r in rows if r["tasks"]]
    DATA.write_text("".join(json.dumps(r) + "\n" for r in rows))
    counts = {name: sum(t["set"] == name for r in rows for t in r["tasks"]) for name in ("deep-lines", "deep-names")}
    print(f"wrote {DATA} ({len(rows)} files, {counts})")


def load_sets(limit: int = 0) -> dict[str, list[dict[str, Any]]]:
    """The two sets as tasks ({id, language, prefix, suffix, middle}), at most `limit` each (0 = all)."""
    sets: dict[str, list[dict[str, Any]]] = {"deep-lines": [], "deep-names": []}
    for row in map(json.loads, DATA.open()):
        text = row["text"]
        starts = [0] + [i + 1 for i, ch in enumerate(text) if ch == "\n"]
        for t in row["tasks"]:
            start = starts[t["line"]] + t["column"]
            end = text.find("\n", start)
            end = len(text) if end < 0 else end
            sets[t["set"]].append({"id": f"{row['id']}:{t['line'] + 1}", "language": row["language"],
                                   "prefix": text[:start], "middle": text[start:end], "suffix": text[end:]})
    for tasks in sets.values():
        random.Random(0).shuffle(tasks)
    return {name: tasks[: limit or None] for name, tasks in sets.items()}


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = p.add_subparsers(dest="command", required=True)
    b = sub.add_parser("build", help="write the data file from the held-out packages' wheels")
    b.add_argument("wheels", type=Path, help="folder with the boltons, toolz, more-itertools, pyparsing wheels")
    args = p.parse_args()
    if args.command == "build":
        build(args.wheels)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

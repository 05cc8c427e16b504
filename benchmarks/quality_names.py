"""Next-identifier match, trigger kinds and a held-out split for benchmarks/quality.py (issue 23).

- `first_name`: the first identifier-like word of a one-line answer (keywords count: `return` is the name a
  statement starts with); next-identifier match compares the answer's with the true middle's, over the tasks
  whose true middle has one.
- `trigger`: what kind of name the cursor asks for (syntax/analysis.py `trigger_at`: after_dot, arguments,
  expression, statement, none), the unit name steering is decided and reported by.
- `split`: a fixed quarter of each set (by a hash of the task id) is `dev`, the rest `test`: variants are tuned
  on dev and reported on test, which no choice looked at.
- `shares`: per position class, the share of requests answered blank, shown and wrong, shown and right.
"""

from __future__ import annotations

import hashlib
import re
import statistics
from collections import defaultdict
from typing import Any

from laya_lsp.syntax import SyntaxDocument
from laya_lsp.syntax.analysis import trigger_at

_NAME = re.compile(r"[A-Za-z_$][\w$]*")


def first_name(text: str) -> str | None:
    m = _NAME.search(text)
    return m.group(0) if m else None


def trigger(task: dict[str, Any]) -> str:
    doc = SyntaxDocument(task["prefix"] + task["suffix"], task["language"], "")
    return trigger_at(doc, len(task["prefix"]))[0]


def split(task_id: str) -> str:
    return "dev" if int(hashlib.sha1(task_id.encode()).hexdigest(), 16) % 4 == 0 else "test"


def name_match(got: str, want: str, typed: str) -> float | None:
    """1.0 when the answer's first name is the truth's (None: the truth has no name). `typed` is the part of
    the name before the cursor: both sides get it back, so a completed word compares whole."""
    truth = first_name(typed + want) if typed and want[:1].isidentifier() else first_name(want)
    if truth is None:
        return None
    answer = first_name(typed + got) if typed and got[:1].isidentifier() else first_name(got)
    return float(answer == truth)


def _mean(values: list[float], digits: int = 4) -> float:
    return round(statistics.mean(values), digits) if values else 0.0


def _measures(rows: list[dict[str, Any]]) -> dict[str, Any]:
    names = [r["nim"] for r in rows if r["nim"] is not None]
    return {"n": len(rows), "next_identifier_match": _mean(names), "named": len(names),
            "exact_match": _mean([r["em"] for r in rows]), "edit_similarity": _mean([r["es"] for r in rows], 2),
            "blank": _mean([float(r["empty"]) for r in rows]),
            "shown_wrong": _mean([float(not r["empty"] and r["em"] == 0.0) for r in rows]),
            "shown_right": _mean([float(not r["empty"] and r["em"] == 1.0) for r in rows])}


def breakdown(tasks: list[dict[str, Any]], per_task: list[dict[str, Any]]) -> dict[str, Any]:
    """The measures over all tasks, per split, per split and trigger kind, and per position class."""
    groups: dict[str, dict[str, list[dict[str, Any]]]] = {"split": defaultdict(list), "trigger": defaultdict(list),
                                                          "class": defaultdict(list)}
    for task, row in zip(tasks, per_task):
        groups["split"][task["split"]].append(row)
        groups["trigger"][f"{task['split']}/{task['trigger']}"].append(row)
        groups["class"][task["class"]].append(row)
    return {"all": _measures(per_task),
            **{f"by_{g}": {k: _measures(v) for k, v in sorted(rows.items())} for g, rows in groups.items()}}


def print_breakdown(entry: dict[str, Any]) -> None:
    b = entry["laya"].get("names")
    if not b:
        return
    print(f"  {'group':<24} {'n':>4}  NIM    EM     ES     blank  wrong  right")
    rows = [("all", b["all"])] + [(k, v) for g in ("by_split", "by_trigger", "by_class") for k, v in b[g].items()]
    for name, m in rows:
        print(f"  {name:<24} {m['n']:>4}  {m['next_identifier_match']:.3f}  {m['exact_match']:.3f}"
              f"  {m['edit_similarity']:5.1f}  {m['blank']:.3f}  {m['shown_wrong']:.3f}  {m['shown_right']:.3f}")


_CUTS = (re.compile(r"[A-Za-z_)\]]\.(?=[A-Za-z_])"), re.compile(r"[A-Za-z_]\((?=[A-Za-z_])"),
         re.compile(r"(?:[^=!<>]=|\breturn) (?=[A-Za-z_])"))


def name_tasks(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """`heldout-names`: the held-out lines cut where a name must come, inside the line: after its first `x.`
    (after_dot), else after its first `f(` (arguments), else after `= ` or `return ` (expression); the rest of
    the line is the middle. Lines in comments and strings are left out (no name is asked for there)."""
    out = []
    for row in rows:
        line, _, rest = row["middle"].partition("\n")
        code = line.strip()
        if not code or code.startswith(("#", '"', "'")):
            continue
        cut = next((m.end() for pattern in _CUTS if (m := pattern.search(line))), None)
        if cut is None:
            continue
        task = {"id": f"{row['id']}:{cut}", "language": row["language"], "prefix": row["prefix"] + line[:cut],
                "middle": line[cut:] + ("\n" if _ or rest else ""), "suffix": rest + row["suffix"]}
        if trigger(task) != "none":
            out.append(task)
    return out

"""Latency of the syntax layer per completion request: plan + post-processing on a 2,000-line file.

Each request types into the document (an incremental `apply_change`, timed separately: it happens on didChange,
not on the completion request), then times `plan_completion` + `postprocess` over four raw candidates: the true
rest of the line or block, a variant that runs past the block end, one with an unclosed bracket, and junk. The
document's per-version memo is empty at the start of each request, as after a real keystroke.

    python -m benchmarks.syntax_bench [--requests 300] [--languages python,javascript,go]

Prints p50/p95 per language and scenario and writes benchmarks/results/syntax-<date>.json.
"""

from __future__ import annotations

import argparse
import json
import platform
import random
import statistics
import time
from datetime import datetime, timezone
from pathlib import Path

from laya_lsp.syntax import SyntaxDocument, SyntaxSettings, plan_completion, postprocess

ROOT = Path(__file__).resolve().parent.parent
def python_file(lines: int) -> str:
    """A realistic-looking Python module: classes with methods, one large class, top-level functions."""
    out: list[str] = ["import os", "import sys", "", ""]
    i = 0
    while len(out) < lines:
        i += 1
        methods = 40 if i == 3 else 4  # one ~500-line class exercises nested windows
        out += [f"class Service{i}:", f'    """Handles things number {i}."""', "",
                "    def __init__(self, name, size=3):", "        self.name = name",
                "        self.items = [n * 2 for n in range(size)]", ""]
        for m in range(methods):
            out += [f"    def method_{m}(self, value, *, scale={m}):",
                    f"        total = sum(self.items) + value * scale  # step {m}",
                    "        if total > 10 and self.name:",
                    "            print(f'{self.name}: {total}', file=sys.stderr)",
                    "            return total - 1",
                    "        for index, item in enumerate(self.items):",
                    "            total += item * index",
                    "        return {'total': total, 'name': self.name}", ""]
        out += ["", f"def helper_{i}(path, mode='r'):", "    with open(path, mode) as handle:",
                "        data = handle.read().split(os.sep)", "    return [d.strip() for d in data if d]", "", ""]
    return "\n".join(out[:lines]) + "\n"


def javascript_file(lines: int) -> str:
    """A JavaScript module of classes and functions."""
    out: list[str] = ["'use strict';", "const fs = require('fs');", ""]
    i = 0
    while len(out) < lines:
        i += 1
        out += [f"class Store{i} {{", "  constructor(name) {", "    this.name = name;",
                "    this.items = [1, 2, 3].map((n) => n * 2);", "  }", ""]
        for m in range(4):
            out += [f"  method{m}(value, scale = {m}) {{",
                    "    let total = this.items.reduce((a, b) => a + b, 0) + value * scale;",
                    "    if (total > 10 && this.name) {", "      console.error(`${this.name}: ${total}`);",
                    "      return total - 1;", "    }", "    for (const [i, item] of this.items.entries()) {",
                    "      total += item * i;", "    }", "    return { total, name: this.name };", "  }", ""]
        out += ["}", "", f"function helper{i}(path) {{", "  const data = fs.readFileSync(path, 'utf8');",
                "  return data.split('\\n').filter((d) => d.trim());", "}", ""]
    return "\n".join(out[:lines]) + "\n"


def go_file(lines: int) -> str:
    """A Go file of types, methods and functions."""
    out: list[str] = ["package main", "", 'import "fmt"', ""]
    i = 0
    while len(out) < lines:
        i += 1
        out += [f"type Store{i} struct {{", "\tname  string", "\titems []int", "}", ""]
        for m in range(4):
            out += [f"func (s *Store{i}) Method{m}(value int) int {{", f"\ttotal := value * {m}",
                    "\tfor i, item := range s.items {", "\t\ttotal += item * i", "\t}",
                    "\tif total > 10 && s.name != \"\" {", "\t\tfmt.Println(s.name, total)",
                    "\t\treturn total - 1", "\t}", "\treturn total", "}", ""]
    return "\n".join(out[:lines]) + "\n"


FILES = {"python": python_file, "javascript": javascript_file, "go": go_file}


def _requests(text: str, rng: random.Random, count: int) -> list[tuple[str, int, int, str]]:
    """(scenario, line, column, removed text): where to cut the document and what the model should produce."""
    lines = text.split("\n")
    out: list[tuple[str, int, int, str]] = []
    code_lines = [n for n, ln in enumerate(lines) if ln.strip() and len(ln.strip()) > 6]
    openers = [n for n, ln in enumerate(lines) if ln.rstrip().endswith((":", "{")) and n + 1 < len(lines)]
    while len(out) < count:
        if rng.random() < 0.6:
            n = rng.choice(code_lines)
            line = lines[n]
            indent = len(line) - len(line.lstrip())
            col = rng.randint(indent + 1, len(line) - 1)
            out.append(("single_line", n, col, line[col:]))
        else:
            n = rng.choice(openers)
            indent = len(lines[n]) - len(lines[n].lstrip())
            end = n + 1
            while end < len(lines) and (not lines[end].strip() or len(lines[end]) - len(lines[end].lstrip()) > indent):
                end += 1
            body = "\n".join(lines[n + 1:end]).rstrip()
            out.append(("block", n, len(lines[n]), "\n" + body))
    return out


def _candidates(truth: str, following: str) -> list[str]:
    """Four raw candidates: truth, truth running on into the next lines, an unclosed bracket, junk."""
    return [truth, truth + "\n" + following, truth.rstrip(")]}\n ;") + "(x", "+ ) junk ("]


def bench_language(language: str, lines: int, requests: int, seed: int) -> dict[str, object]:
    text = FILES[language](lines)
    doc = SyntaxDocument(text, language, f"file:///bench.{ {'python': 'py', 'javascript': 'js', 'go': 'go'}[language]}")
    rng = random.Random(seed)
    settings = SyntaxSettings()
    timings: dict[str, list[float]] = {}
    edits: list[float] = []
    cpu: list[float] = []  # CPU time: robust to a busy shared machine, where wall time also counts waiting
    outcomes = {"accepted": 0, "rejected_all": 0, "truth_first": 0}
    for scenario, line, col, removed in _requests(text, rng, requests):
        end = (line + removed.count("\n"), len(removed.rsplit("\n", 1)[-1]) if "\n" in removed else col + len(removed))
        t0 = time.perf_counter()
        doc.apply_change((line, col), end, "")
        edits.append(time.perf_counter() - t0)
        offset = doc.offset_at(line, col)
        following = "\n".join(doc.text[offset:].split("\n")[1:4])
        raw = _candidates(removed, following)
        t0, c0 = time.perf_counter(), time.process_time()
        plan = plan_completion(doc, offset, settings)
        result = postprocess(doc, offset, raw, plan, settings) if plan.complete else []
        timings.setdefault(scenario, []).append(time.perf_counter() - t0)
        cpu.append(time.process_time() - c0)
        outcomes["accepted"] += bool(result)
        outcomes["rejected_all"] += plan.complete and not result
        outcomes["truth_first"] += bool(result) and result[0].source_index == 0
        doc.apply_change((line, col), (line, col), removed)
    assert doc.text == text, "edits must restore the document"
    report: dict[str, object] = {"lines": len(text.splitlines()), "bytes": len(text.encode()), **outcomes}
    for scenario, values in sorted(timings.items()) + [("all", [v for vs in timings.values() for v in vs])]:
        values = sorted(values)
        report[scenario] = {
            "n": len(values),
            "p50_ms": round(statistics.median(values) * 1e3, 3),
            "p95_ms": round(values[int(0.95 * (len(values) - 1))] * 1e3, 3),
            "max_ms": round(values[-1] * 1e3, 3),
        }
    cpu.sort()
    report["cpu"] = {"p50_ms": round(statistics.median(cpu) * 1e3, 3),
                     "p95_ms": round(cpu[int(0.95 * (len(cpu) - 1))] * 1e3, 3)}
    edits.sort()
    report["apply_change"] = {"p50_ms": round(statistics.median(edits) * 1e3, 3),
                              "p95_ms": round(edits[int(0.95 * (len(edits) - 1))] * 1e3, 3)}
    return report


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--requests", type=int, default=300)
    parser.add_argument("--lines", type=int, default=2000)
    parser.add_argument("--languages", default="python,javascript,go")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", type=Path, default=None)
    args = parser.parse_args()
    results = {"date": datetime.now(timezone.utc).isoformat(timespec="seconds"), "python": platform.python_version(),
               "machine": platform.machine(), "requests_per_language": args.requests, "candidates": 4,
               "languages": {}}
    for language in args.languages.split(","):
        report = bench_language(language, args.lines, args.requests, args.seed)
        results["languages"][language] = report
        all_ = report["all"]
        print(f"{language:10s} {report['lines']} lines  plan+postprocess p50 {all_['p50_ms']:.3f} ms  "  # type: ignore[index]
              f"p95 {all_['p95_ms']:.3f} ms  max {all_['max_ms']:.3f} ms  "  # type: ignore[index]
              f"(cpu p50 {report['cpu']['p50_ms']:.3f} p95 {report['cpu']['p95_ms']:.3f} ms; "  # type: ignore[index]
              f"apply_change p50 {report['apply_change']['p50_ms']:.3f} ms)", flush=True)  # type: ignore[index]
        for scenario in ("single_line", "block"):
            if scenario in report:
                s = report[scenario]
                print(f"    {scenario:12s} n={s['n']:4d} p50 {s['p50_ms']:.3f} ms p95 {s['p95_ms']:.3f} ms")  # type: ignore[index]
    out = args.out or ROOT / "benchmarks" / "results" / f"syntax-{datetime.now(timezone.utc):%Y-%m-%d}.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(results, indent=2) + "\n")
    print(f"wrote {out.relative_to(ROOT) if out.is_relative_to(ROOT) else out}")


if __name__ == "__main__":
    main()

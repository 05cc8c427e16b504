"""The confidence cut (orchestrator/confidence.py): (document with cursor, the model's tokens with their
probabilities, what ghost text shows; None: nothing). Run by tests/test_confidence_golden.py with a fixed
calibration where a token of probability >= 0.5 is sure and one <= 0.3 is not."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class CutCase:
    name: str
    language: str
    document: str  # contains exactly one CURSOR (█)
    tokens: list[tuple[str, float]]  # the model's tokens and each one's probability
    expect: str | None


CASES = [
    CutCase("sure to the end: shown whole", "python", "total = █\n",
            [("sum", 0.9), ("(", 0.9), ("values", 0.8), (")", 0.9)], "sum(values)"),
    CutCase("cut where the model grew unsure", "python", "total = █\n",
            [("sum", 0.9), ("(", 0.9), ("x", 0.9), (")", 0.9), (" +", 0.2), (" 1", 0.9)], "sum(x)"),
    CutCase("never inside a word: back to the last word boundary", "python", "count = █\n",
            [("len", 0.9), ("(", 0.9), ("it", 0.9), ("ems", 0.1), (")", 0.9)], "len("),
    CutCase("not inside a string it opened: the shorter closed piece", "python",
            "import os\nDATA = os.path.join(█)\n",
            [("os", 0.9), (".", 0.9), ("path", 0.9), (".", 0.9), ("dirname", 0.8), ("(__", 0.9), ("file", 0.9),
             ("__)", 0.9), (",", 0.8), (" '", 0.7), ("my", 0.1), ("_data", 0.5), (".json", 0.5), ("'", 0.9)],
            "os.path.dirname(__file__),"),
    CutCase("not inside arguments it wrote: back to the closed call", "javascript", "const x = █;\n",
            [("Math", 0.9), (".", 0.9), ("max", 0.9), ("(", 0.9), ("a", 0.9), (")", 0.9), (" +", 0.8),
             (" f", 0.8), ("(", 0.8), ("b", 0.6), (",", 0.2), (" c", 0.5), (")", 0.9)], "Math.max(a) + f("),
    CutCase("even the first word unsure: ghost text shows nothing", "python", "def f(x):\n    █\n",
            [("ret", 0.1), ("student", 0.9), (" =", 0.9), (" x", 0.9)], None),
    CutCase("a block whose second line is unsure: its first line", "python", "def f(x):\n    █\n",
            [("if", 0.9), (" x", 0.9), (":", 0.9), ("\n", 0.9), ("        ", 0.9), ("return", 0.9), (" 1", 0.9),
             ("\n", 0.9), ("    ", 0.9), ("print", 0.1), ("(x)", 0.9)], "if x:\n        return 1"),
]

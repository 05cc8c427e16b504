"""The same-file outline (syntax/outline.py): what each language keeps, how a short budget chooses, stability."""

from __future__ import annotations

import pytest

from laya_lsp.syntax.outline import RULES, outline

BIG = 10_000

# (language, source, expected outline): each row proves what the language keeps and how it elides the rest.
GOLDEN: list[tuple[str, str, str]] = [
    ("python", '''"""Module docstring: left out."""
import os
from pkg import (alpha,
                 beta)
LIMIT: int = 3
print("a call statement: left out")


@dataclass
class Cache(Base):
    """Docstring: left out."""
    size = 2

    def __init__(self, path, *, ttl=1) -> None:  # a comment after the colon
        self.path = path
        self.ttl: int = ttl
        if ttl:
            self.store = {}
        self.path = None

        def inner():
            self.hidden = 1

    @property
    async def total(self):
        return 1


try:
    import json
except ImportError:
    json = None


def spread(
    first,
    second,
):
    return first


TABLE = {
    1: 2,
    3: 4,
    5: 6,
    7: 8,
    9: 10,
}
''', '''import os
from pkg import (alpha,
                 beta)
LIMIT: int = 3
@dataclass
class Cache(Base):
    size = 2
    def __init__(self, path, *, ttl=1) -> None:
        self.path = ...
        self.ttl = ...
        self.store = ...
    @property
    async def total(self): ...
import json
json = None
def spread(
    first,
    second,
): ...
TABLE = { ...
'''),
    ("javascript", """import { a } from 'b';
const x = require('y');
export function foo(a, b) { return a + b; }
export default class Foo extends Bar {
  static z = 1;
  constructor(a) {
    super();
    this.a = a;
  }
  get q() { return 1; }
  async bar(x) { return x; }
}
const f = (a) => a * 2;
module.exports.g = function (q) {
  return q;
};
""", """import { a } from 'b';
const x = require('y');
export function foo(a, b) { ... }
export default class Foo extends Bar {
  static z = 1
  constructor(a) {
    this.a = ...;
  }
  get q() { ... }
  async bar(x) { ... }
}
const f = (a) => a * 2;
module.exports.g = function (q) { ... }
"""),
    ("typescript", """import type { A } from './a';
interface Point { x: number; move(dx: number): void }
type Id = string | number;
export abstract class Shape<T> implements Point {
  private x: number = 1;
  constructor(private readonly name: string) {}
  move(dx: number): void { this.x += dx; }
}
declare function area(s: Shape<number>): number;
""", """import type { A } from './a';
interface Point {
  x: number
  move(dx: number): void
}
type Id = string | number;
export abstract class Shape<T> implements Point {
  private x: number = 1
  constructor(private readonly name: string) { ... }
  move(dx: number): void { ... }
}
declare function area(s: Shape<number>): number;
"""),
    ("go", """package main

import (
\t"fmt"
)

type Counter struct {
\tN int
}

func (c *Counter) Add(x int) error {
\tc.N += x
\treturn nil
}

const Limit = 3
""", """package main
import (
\t"fmt"
)
type Counter struct {
\tN int
}
func (c *Counter) Add(x int) error { ... }
const Limit = 3
"""),
    ("rust", """use std::io;
pub struct Point { x: i32 }
impl Point {
    pub fn new(x: i32) -> Self { Point { x } }
}
fn main() {
    let p = Point::new(1);
}
""", """use std::io;
pub struct Point { x: i32 }
impl Point {
    pub fn new(x: i32) -> Self { ... }
}
fn main() { ... }
"""),
    ("java", """import java.util.List;
public class Account extends Base {
    private int balance = 1;
    public Account(int balance) { this.balance = balance; }
    public int get() { return balance; }
}
""", """import java.util.List;
public class Account extends Base {
    private int balance = 1;
    public Account(int balance) { ... }
    public int get() { ... }
}
"""),
    ("c", """#include <stdio.h>
#define N 3
static int counter = 3;
int add(int a, char *b) {
    return a;
}
""", """#include <stdio.h>
#define N 3
static int counter = 3;
int add(int a, char *b) { ... }
"""),
    ("cpp", """#include <vector>
namespace geo {
class Shape : public Base {
 public:
  int sides;
  int count() const { return sides; }
};
}
""", """#include <vector>
namespace geo {
    class Shape : public Base {
        int sides;
        int count() const { ... }
    }
}
"""),
]


@pytest.mark.parametrize(("language", "source", "expected"), GOLDEN, ids=[row[0] for row in GOLDEN])
def test_outline_per_language(language: str, source: str, expected: str) -> None:
    assert outline(source, language, BIG) == expected


def test_every_language_with_rules_has_a_golden_case() -> None:
    assert {"tsx"} | {row[0] for row in GOLDEN} == set(RULES)


PY = '''import os
import sys


class Store:
    def __init__(self, path):
        self.path = path

    def load(self, key):
        return key

    def save(self, key, value):
        return value


def far_helper(a):
    return a


def near_helper(b):
    return b
'''


def test_a_short_budget_keeps_imports_then_the_nearest_entries_with_their_headers() -> None:
    full = outline(PY, "python", BIG)
    assert full == ("import os\nimport sys\nclass Store:\n    def __init__(self, path):\n        self.path = ...\n"
                    "    def load(self, key): ...\n    def save(self, key, value): ...\n"
                    "def far_helper(a): ...\ndef near_helper(b): ...\n")
    assert outline(PY, "python", 60) == "import os\nimport sys\ndef near_helper(b): ...\n"
    # A class whose members do not fit is still named.
    assert outline(PY, "python", 120) == ("import os\nimport sys\nclass Store: ...\ndef far_helper(a): ...\n"
                                          "def near_helper(b): ...\n")
    # A member brings its class header along.
    member = outline(PY, "python", 150)
    assert member == ("import os\nimport sys\nclass Store:\n    def save(self, key, value): ...\n"
                      "def far_helper(a): ...\ndef near_helper(b): ...\n")


@pytest.mark.parametrize("budget", [0, 10, 40, 75, 120, 150, 200, 400])
def test_the_outline_never_exceeds_its_budget(budget: int) -> None:
    assert len(outline(PY, "python", budget)) <= budget


def test_nothing_to_outline() -> None:
    assert outline(PY, None, BIG) == ""  # no grammar
    assert outline("plain words\n", "python", BIG) == ""
    assert outline("", "python", BIG) == ""


def test_broken_code_below_does_not_change_the_outline_of_the_text_above() -> None:
    # The outline is made from the text above the cut alone, so whatever is typed below cannot change it.
    cut = PY.index("def near_helper")
    above = outline(PY[:cut], "python", BIG)
    for typed in ("def broken(", "    x = (", '    s = """', "class"):
        assert outline((PY[:cut] + typed)[:cut], "python", BIG) == above
    assert "near_helper" not in above and "far_helper" in above

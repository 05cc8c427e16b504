"""Position classes where post-processing must keep a right answer (issue 17.1): the end of a body at every
depth, after `return` and after `.`, an empty indented line, inside call arguments, after a decorator, in a
class body, at top level; Python first, then the brace languages.

Bodies longer than the lines the cursor context reads (`long_body`) are where the indentation rules once lost
the outer blocks and cut every candidate to nothing.
"""

from . import Case, src


def long_body(indent: str, lines: int = 30, end: str = ";") -> str:
    """`lines` plain statements at `indent`: a body longer than the context's line window."""
    return "".join(f"{indent}value_{i} = {i}{end}\n" for i in range(lines))


PY_METHOD = "class Store:\n    def total(self):\n" + long_body("        ", end="")
PY_FUNCTION = "def total(items):\n" + long_body("    ", end="")
PY_NEXT_METHOD = "\n    def clear(self):\n        self.items = []\n"
PY_NEXT_FUNCTION = "\n\ndef clear(items):\n    items.clear()\n"

PY_BROKEN_ABOVE = "def broken(:\n    pass\n\n"  # an error elsewhere: the tree's blocks are not trusted
PY_SQL_QUERY = src('''
    def query(db):
        sql = """
    SELECT *
    """
        █

    def other():
        pass
    ''')

PYTHON = [
    Case("end of a long method body before the next method", "python",
         PY_METHOD + "        █\n" + PY_NEXT_METHOD,
         "return value_29\n\n    def clear(self):", "return value_29", plan="single_line"),
    Case("end of a long function body before the next function", "python",
         PY_FUNCTION + "    █\n" + PY_NEXT_FUNCTION,
         "return value_29\n", "return value_29", plan="single_line"),
    Case("end of a long body at depth three", "python",
         "class Store:\n    def total(self):\n        if self.items:\n" + long_body("            ", end="")
         + "            █\n        return 0\n" + PY_NEXT_METHOD,
         "return value_29", "return value_29", plan="single_line"),
    Case("end of a long body: a line back at the method's level", "python",
         "class Store:\n    def total(self):\n        if self.items:\n" + long_body("            ", end="")
         + "        █\n" + PY_NEXT_METHOD,
         "return 0", "return 0", plan="single_line"),
    Case("end of a long body: the model repeats the indentation", "python",
         PY_METHOD + "█\n" + PY_NEXT_METHOD,
         "        return value_29\n", "        return value_29", plan="single_line"),
    Case("after return at the end of a long method", "python",
         PY_METHOD + "        return █\n" + PY_NEXT_METHOD,
         "value_29\n\n    def clear(self):\n", "value_29", plan="single_line"),
    Case("after return self. at the end of a long method", "python",
         PY_METHOD + "        return self.█\n" + PY_NEXT_METHOD,
         "items\n", "items", plan="single_line"),
    Case("after a dot mid-body", "python",
         PY_FUNCTION + "    items.█\n    return items\n",
         "sort()\n    return items", "sort()", plan="single_line"),
    Case("after return at the end of the file", "python",
         PY_FUNCTION + "    return █",
         "value_29", "value_29", plan="single_line"),
    Case("empty indented line at the end of a long body, at the end of the file", "python",
         PY_METHOD + "        █",
         "return value_29\n", "return value_29", plan="single_line"),
    Case("else after a long if body", "python",
         "def f(ready):\n    if ready:\n" + long_body("        ", end="") + "    █\n        return 1\n",
         "else:\n        return 1", "else:", plan="single_line"),
    Case("a multi-line string at column 0 inside a body is not a block level", "python",
         PY_SQL_QUERY, "return db.run(sql)", "return db.run(sql)", plan="single_line"),
    Case("the same in a file with an error elsewhere (levels read from the text)", "python",
         PY_BROKEN_ABOVE + PY_SQL_QUERY, "return db.run(sql)", "return db.run(sql)", plan="single_line"),
    Case("a docstring's opening line is a statement line (levels read from the text)", "python",
         PY_BROKEN_ABOVE + src('''
             def valid(date):
                 """Check a date.

                 Returns a bool.
                 """
             █        date = date.strip()
                     return bool(date)
             '''),
         "    try:\n", "    try:\n", plan="block_before_code"),
    Case("code indented deeper than the line above: a block that opens it", "python",
         "def mean(xs):\n    total = 0\n█        total += x\n    return total / len(xs)\n",
         "    for x in xs:\n        total += x\n    return total / len(xs)\n", "    for x in xs:\n",
         plan="block_before_code", rules=("repeats_next_lines",)),
    Case("a header with a trailing comment opens a block", "python",
         "class Store:\n    def size(self):  # items, not bytes\n        █\n",
         "return len(self.items)", "return len(self.items)", plan="after_block_opener"),
    Case("code below whose block header ends in a comment", "python",
         "def parse(s):\n    try:\n        █\n    except ValueError:  # not a number\n        return None\n",
         "return int(s)", "return int(s)", plan="after_block_opener"),
    Case("a header above a body whose first statement spans lines", "python",
         "def total(items):\n    result = 0\n    █\n        result += price(item,\n                        2)\n"
         "    return result\n",
         "for item in items:", "for item in items:", plan="single_line"),
    Case("a comment line between the block opener and the cursor", "python",
         "def f(job):\n    if job.cancelled:\n        # superseded: its text is stale\n"
         "        █\n    return job.result\n",
         "return None", "return None", plan="after_block_opener"),
    Case("after a header spanning lines", "python",
         "def update(\n    items: list,\n) -> None:\n    █\n", "items.clear()", "items.clear()",
         plan="after_block_opener"),
    Case("a header with a comment above its body, in a function too long for the small windows", "python",
         "def f(xs):\n" + long_body("    ", 200, "") + "    total = 0\n    █\n        # the last one counts twice\n"
         "        total += 1\n    return total\n",
         "for x in xs:  # every item", "for x in xs:  # every item", plan="single_line"),
    Case("a call's first line above its arguments, in a function too long for the small windows", "python",
         "def f():\n" + long_body("    ", 200, "") + "    █\n        value_1,\n        value_2,\n    )\n"
         "    return result\n",
         "result = max(", "result = max(", plan="single_line"),
    Case("an except clause typed back above its body, in a function too long for the small windows", "python",
         "def f(data):\n" + long_body("    ", 200, "") + "    try:\n        value = int(data)\n    █\n"
         "        return None\n    return value\n",
         "except ValueError:", "except ValueError:", plan="single_line"),
    Case("a one-line stub ending in Ellipsis", "python",
         "class Sized(Protocol):\n    █\n", "def size(self) -> int: ...", "def size(self) -> int: ...",
         plan="after_block_opener"),
    Case("the rest of a condition's continuation line, the file broken until it is typed", "python",
         "def f(node, byte):\n    if (node.kind == 'x' and\n            █\n        return 1\n    return 0\n",
         "node.end > byte):", "node.end > byte):", plan="single_line"),
    Case("a block above deeper code that runs on past the header it needs is cut back to it", "python",
         "def count(items):\n    odd = 0\n█            odd += 1\n    return odd\n",
         "    for item in items:\n        odd += item\n    return odd\n", "    for item in items:\n",
         plan="block_before_code", rules=("indent_levels",)),
    Case("inside call arguments at the end of a long body", "python",
         PY_FUNCTION + "    return max(█)\n" + PY_NEXT_FUNCTION,
         "value_1, value_2)\n", "value_1, value_2", plan="single_line", rules=("auto_closed",)),
    Case("a continuation argument line", "python",
         PY_FUNCTION + "    return max(value_1,\n               █)\n",
         "value_2)", "value_2", rules=("auto_closed",)),
    Case("after a decorator in a class: the method comes with its body", "python",
         "class Store:\n    @property\n    █\n",
         "def size(self):\n        return len(self.items)\n\n    @size.setter\n    def size(self, value):",
         "def size(self):\n        return len(self.items)", plan="after_decorator"),
    Case("after a decorator at top level", "python",
         "import functools\n\n\n@functools.cache\n█\n",
         "def answer():\n    return 42\n\n\ndef other():\n    pass\n",
         "def answer():\n    return 42", plan="after_decorator"),
    Case("a class attribute in a long class body", "python",
         "class Config:\n" + long_body("    ", end="") + "    █\n\n\ndef main():\n    pass\n",
         "debug = False\n", "debug = False", plan="single_line"),
    Case("a statement at top level after a long function", "python",
         PY_FUNCTION + "    return value_29\n\n\n█\n",
         "print(total([]))\n", "print(total([]))", plan="single_line"),
    Case("a comment line inserted above code is a whole line, not a trailing comment", "python",
         "def f(xs):\n    total = 0\n█    return total\n",
         "    # nothing to add\n", "    # nothing to add\n", plan="line_before_code"),
]


JS_METHOD = ("class Store {\n  total() {\n" + long_body("    const ")
             + "    █\n  }\n\n  clear() {\n    this.items = [];\n  }\n}\n")

BRACES = [
    Case("js end of a long method body", "javascript",
         JS_METHOD, "return value_29;\n  }\n\n  clear() {", "return value_29;", plan="single_line"),
    Case("js after return at the end of a long body", "javascript",
         JS_METHOD.replace("    █", "    return █"), "value_29;\n  }", "value_29;", plan="single_line"),
    Case("js after this. at the end of a body", "javascript",
         JS_METHOD.replace("    █", "    return this.█"), "items.length;\n  }", "items.length;",
         plan="single_line"),
    Case("js a method header above its body: the brace closes below, not at once", "javascript",
         src("""
             class Rectangle {
               constructor(w) {
                 this.w = w;
               }

               █
                 return this.w * 2;
               }

               perimeter() {
                 return 4 * this.w;
               }
             }
             """),
         "area() {", "area() {", plan="single_line"),
    Case("js inside call arguments", "javascript",
         "function f(a, b) {\n  return Math.max(█);\n}\n", "a, b);\n}", "a, b", plan="single_line",
         rules=("auto_closed",)),
    Case("js a method in a class body", "javascript",
         "class Store {\n  constructor() {\n    this.items = [];\n  }\n\n  █\n}\n",
         "size() {\n    return this.items.length;\n  }\n}", "size() {}", plan="single_line",
         rules=("balance_brackets",)),
    Case("js a statement at top level", "javascript",
         "function total(xs) {\n  return xs.length;\n}\n\n█\n", "console.log(total([]));\n",
         "console.log(total([]));", plan="single_line"),
    Case("ts end of a long method body", "typescript",
         "class Store {\n  total(): number {\n" + long_body("    const ") + "    █\n  }\n}\n",
         "return value_29;\n  }\n}", "return value_29;", plan="single_line", uri="file:///store.ts"),
    Case("ts after a decorator in a class body", "typescript",
         "class Store {\n  @observable\n  █\n}\n", "items: string[] = [];\n}", "items: string[] = [];",
         plan="single_line", uri="file:///store.ts"),
    Case("go end of a long function body", "go",
         "package main\n\nfunc total() int {\n" + long_body("\t", end="").replace(" = ", " := ") + "\t█\n}\n",
         "return value_29\n}\n", "return value_29", plan="single_line"),
    Case("rust end of a long function body", "rust",
         "fn total() -> i32 {\n" + long_body("    let ") + "    █\n}\n",
         "value_29\n}\n", "value_29", plan="single_line"),
    Case("java end of a long method body", "java",
         "class Store {\n  int total() {\n" + long_body("    int ") + "    █\n  }\n}\n",
         "return value_29;\n  }\n}", "return value_29;", plan="single_line"),
    Case("c end of a long function body", "c",
         "int total(void) {\n" + long_body("    int ") + "    █\n}\n",
         "return value_29;\n}\n", "return value_29;", plan="single_line"),
]

CASES = PYTHON + BRACES

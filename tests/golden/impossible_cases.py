"""What cannot be right (syntax/impossible.py): a line in another language than the buffer's, a model stuck in
a loop. (document with cursor, raw model output, expected candidate; None: rejected.)"""

from . import Case, src

CASES = [
    Case("JavaScript's 'use strict' in an empty Python file", "python", "█", "'use strict';\n\nimport os", None,
         rules=("foreign_language",)),
    Case("Go's := completing a Python word", "python", "def f(xs):\n    ret█\n", "udent := 0", None,
         rules=("foreign_language",)),
    Case("a var declaration in Python", "python", "x = 1\n█", "var y = x + 1;", None, rules=("foreign_language",)),
    Case("Python's walrus inside parentheses is Python", "python", "if █\n", "(n := len(xs)) > 3:",
         "(n := len(xs)) > 3:"),
    Case("a struct module call is no C struct", "python", "def f(b):\n    return █\n", "struct.unpack('<I', b)",
         "struct.unpack('<I', b)"),
    Case("a Python elif in JavaScript is cut off", "javascript",
         src("""
         function f(a) {
           if (a) {
             █
           }
         }
         """), "return 1;\n    elif (a) {", "return 1;", rules=("foreign_language",)),
    Case("Go's := in JavaScript", "javascript", "let n = 0;\n█", "n := n + 1", None, rules=("foreign_language",)),
    Case("JavaScript's let in Go", "go", "package main\n\nfunc main() {\n\t█\n}\n", "let x = 1", None,
         rules=("foreign_language",)),
    Case("Go's own := stays", "go", "package main\n\nfunc main() {\n\t█\n}\n", "x := 1", "x := 1"),
    Case("Python's def in TypeScript", "typescript", "const a = 1;\n█", "def add(a, b):", None,
         rules=("foreign_language",)),
    Case("a phrase repeated over a line keeps one copy", "python", "names = █\n",
         "[x.name for x in items] + [x.name for x in items] + [x.name for x in items] + [x.name for x in items]",
         "[x.name for x in items]", rules=("loop",)),
    Case("a block repeated once keeps one copy", "python",
         "def f(x):\n    █\n",
         "if x is None:\n        return None\n    if x is None:\n        return None\n    return x",
         "if x is None:\n        return None", rules=("loop",)),
    Case("a line three times keeps one copy", "javascript", "function f(x) {\n  █\n}\n",
         "x = __file__;\n  x = __file__;\n  x = __file__;\n  return x;", "x = __file__;", rules=("loop",)),
    Case("punctuation repeated over a line is a loop too", "python", "import os\nBASE = os.path.join(█)\n",
         "os.path.dirname(__file__), '..', '..', '..', '..', '..', '..'", "os.path.dirname(__file__), '..'",
         rules=("loop",)),
    Case("a list of zeros is no loop", "python", "zeros = █\n", "[0, 0, 0, 0, 0, 0]", "[0, 0, 0, 0, 0, 0]"),
]

"""Python golden cases."""

from . import Case, src

CASES = [
    Case("single line stops at newline", "python",
         src("""
             def add(a, b):
                 return a█
             """),
         " + b\n\ndef sub(a, b):", " + b", plan="single_line", rules=("single_line",)),
    Case("block after def stops at dedent", "python",
         src("""
             def area(r):
                 █

             print(area(2))
             """),
         "return 3.14 * r * r\n\nprint(area(3))\n", "return 3.14 * r * r", plan="after_block_opener",
         rules=("block_end",)),
    Case("block from the end of the opener line", "python",
         "def greet(name):█\n",
         "\n    msg = 'hi ' + name\n    return msg\n\ndef other():\n    pass\n",
         "\n    msg = 'hi ' + name\n    return msg", plan="after_block_opener", rules=("block_end",)),
    Case("else at the opener's indentation continues the if", "python",
         "if ready:█\n",
         "\n    go()\nelse:\n    wait()\nprint('done')",
         "\n    go()\nelse:\n    wait()", plan="after_block_opener"),
    Case("nested block keeps deeper lines", "python",
         src("""
             class Box:
                 def size(self):
                     █
             """),
         "if self.items:\n            return len(self.items)\n        return 0\n\n"
         "    def empty(self):\n        return True",
         "if self.items:\n            return len(self.items)\n        return 0", plan="after_block_opener"),
    Case("repeated indentation on the first line is dropped", "python",
         src("""
             def f(x):
                 █
             """),
         "    return x * 2", "return x * 2", rules=("indent",)),
    Case("indentation the cursor line lacks is kept", "python",
         "def f(x):\n█\n",
         "    return x * 2", "    return x * 2"),
    Case("candidate repeating the next line is dropped", "python",
         src("""
             total = 0
             █
             print(total)
             """),
         "print(total)", None),
    Case("block stops where it repeats the following lines", "python",
         src("""
             for line in lines:
                 if not line:█
                 total += 1
             """),
         "\n        continue\n    total += 1", "\n        continue", plan="after_block_opener"),
    Case("single line that opens a block with no body is rejected", "python",
         src("""
             def load(path):
                 █
                 return data
             """),
         "with open(path) as fh:\n        data = fh.read()", None, plan="single_line"),
    Case("auto-closed paren is not typed twice", "python",
         "print(█)\n", "'hello')", "'hello'", rules=("auto_closed",)),
    Case("auto-closed quote and paren inside a string", "python",
         'print("hel█")\n', 'lo world")', "lo world", plan="in_string", rules=("auto_closed",)),
    Case("bracket opened by the candidate is closed (fixed)", "python",
         "values = sorted(█)\n", "items, key=len", "items, key=len"),
    Case("unclosed call in candidate gets balanced", "python",
         "result = █\n", "compute(a, [b, c", "compute(a, [b, c])", rules=("balance_brackets",)),
    Case("syntax error candidate is rejected", "python",
         "x = █\n", "1 +* 2", None),
    Case("dangling operator is rejected", "python",
         "def f(a):\n    return a█\n", " +", None),
    Case("whitespace-only candidate is rejected", "python",
         "x = 1\n█\n", "   \n  ", None),
    Case("duplicates collapse, order kept", "python",
         "name = █\n", ["'ada'", "'ada'  ", "'bob'"], ["'ada'", "'bob'"]),
    Case("valid candidates rank above fixed ones", "python",
         "n = █\n", ["len(items", "0", "max(a, b)"], ["0", "max(a, b)", "len(items)"]),
    Case("comment completion is single line", "python",
         "# compute the█\n", " mean of the list\nx = 1", " mean of the list", plan="in_comment"),
    Case("file with an unrelated error still accepts a valid candidate", "python",
         src("""
             def broken(:
                 pass

             def ok():
                 return █
             """),
         "42", "42"),
    Case("candidate that fixes the line being typed is accepted", "python",
         "def f(a, █\n", "b):\n    return a + b", "b):", plan="single_line"),
    Case("dict body after opening brace", "python",
         "config = {█\n",
         "\n    'debug': True,\n    'level': 3,\n}\nprint(config)",
         "\n    'debug': True,\n    'level': 3,\n}", plan="after_bracket"),
    # SyntaxSettings.max_lines: 8, the inlineMaxLines default; the line break before the block is no line of it
    # (laya_lsp/lines.py: the engine stops decoding after the same 8 lines).
    Case("block cut to max lines", "python",
         "def many():█\n",
         "".join(f"\n    x{i} = {i}" for i in range(20)),
         "".join(f"\n    x{i} = {i}" for i in range(8)), rules=("max_lines",)),
    Case("line inserted above existing code ends with a line break", "python",
         src("""
             def mean(xs):
                 total = sum(xs)
             █    return total / n
             """),
         "    n = len(xs)\n    return total / n\n", "    n = len(xs)\n", plan="line_before_code",
         rules=("line_break_before_code",)),
    Case("cursor inside indentation keeps the code's indentation", "python",
         src("""
             def mean(xs):
                 total = sum(xs)
                 █return total / n
             """),
         "n = len(xs)", "n = len(xs)\n    ", plan="line_before_code", rules=("line_break_before_code",)),
    Case("brackets are closed before the line break above existing code", "python",
         "def f(a):\n    x = 1\n█    return y\n",
         "    y = max(a, [x, 2", "    y = max(a, [x, 2])\n", plan="line_before_code",
         rules=("balance_brackets",)),
    Case("block above existing code after an opener", "python",
         src("""
             def f(items):
                 for x in items:
             █    return None
             """),
         "        if x:\n            return x\n    return None", "        if x:\n            return x\n",
         plan="block_before_code", rules=("block_end",)),
    Case("an indent without a ':' line before it ends the candidate", "python",
         src("""
             class A:
                 def f(self):
                     █
             """),
         "x = 1\n            y = 2", "x = 1", plan="after_block_opener", rules=("indent_levels",)),
    Case("a line above code must leave that code's indentation valid", "python",
         src("""
             def f(items):
                 total = 0
             █        total += 1
             """),
         "    for x in items", None, plan="block_before_code"),  # the deeper code needs a block opened
    Case("a line ending in an operator is rejected (tree-sitter would join it to the next)", "python",
         "def f(a):\n    b = 1\n█    return b\n", "    b =", None, plan="line_before_code"),
    Case("a float literal's dot does not leave the line open", "python",
         "lo, hi = █\n", "-1., 1.", "-1., 1."),
    Case("Python 2 print statement is rejected", "python",
         "def f(x):\n    █\n", "print x", None),
    Case("a model stuck in a loop keeps one copy", "python",
         "def f(xs):█\n",
         "\n    out = []\n    out.append(1)\n    out.append(1)\n    out.append(1)\n    out.append(1)",
         "\n    out = []\n    out.append(1)", rules=("repetition",)),
    Case("every candidate broken: the longest complete piece that parses is kept", "python",
         "def f(items):\n    return █\n", "sorted(items, key=len) reversed", "sorted(items, key=len)",
         rules=("rescue_prefix",)),
    Case("a piece is kept only when no candidate parses whole", "python",
         "def f(items):\n    return █\n", ["sorted(items, key=len) reversed", "list(items)"], ["list(items)"]),
    Case("a piece shorter than half the candidate is no answer", "python",
         "def f(items):\n    return █\n", "len(items) if items is not None els", None),
    Case("candidate cut mid-statement by budget loses its last line", "python",
         "def f(x):█\n",
         "\n    y = x + 1\n    return (y *",
         "\n    y = x + 1", rules=("drop_last_line",)),
]

"""Text rules for what cannot be right: a line in another language than the buffer's, and a model stuck in a
loop (the same line or phrase again and again). Each cuts the candidate before the offending part (to nothing
when that is its first line: the candidate is then rejected as blank). Lexical and cheap: they run on every
candidate before the syntax check, which cannot see either (`'use strict';` parses as Python).
"""

from __future__ import annotations

import re

from .context import CursorContext
from .languages import LanguageSpec

# Statement starts that are keywords in some languages and never begin a statement in others (followed by a
# name, so an identifier called `var` or `struct.pack(...)` does not count).
_KEYWORD_STARTS = {
    "var": r"var\s+[A-Za-z_$]", "let": r"let\s+(mut\s+)?[A-Za-z_$\[{]", "const": r"const\s+[A-Za-z_$\[{]",
    "function": r"function\b\s*\*?\s*[A-Za-z_$(]", "func": r"func\s+[A-Za-z_(]", "fn": r"fn\s+[A-Za-z_]",
    "def": r"def\s+[A-Za-z_]\w*\s*\(", "elif": r"elif\b", "except": r"except\b\s*[A-Za-z_:(]",
    "package": r"package\s+[A-Za-z_]", "impl": r"impl\b\s*[A-Za-z_<]", "pub": r"pub(\([a-z]+\))?\s+[a-z]",
    "public": r"public\s+[A-Za-z_]", "private": r"private\s+[A-Za-z_]", "static": r"static\s+[A-Za-z_]",
    "namespace": r"namespace\s+[A-Za-z_]", "using": r"using\s+(namespace\s+)?[A-Za-z_]",
    "typedef": r"typedef\s+[A-Za-z_]", "struct": r"struct\s+[A-Za-z_]\w*\s*[{;]", "#include": r"#\s*include\b",
    "#define": r"#\s*define\b", "use strict": r"""['"]use strict['"]""", "console": r"console\.(log|error)\s*\(",
    "walrus": r"[A-Za-z_][\w.]*(\s*,\s*[A-Za-z_]\w*)*\s*:=", "fmt": r"fmt\.(Print|Sprint|Errorf)",
    "self.": r"self\.[A-Za-z_]\w*\s*=[^=]", "println!": r"(println|format|vec)!\s*[\[(]",
    "System.out": r"System\.(out|err)\.", "std::": r"std::[a-z]",
}
_FOREIGN: dict[str, tuple[str, ...]] = {
    "python": ("var", "let", "const", "function", "func", "fn", "package", "impl", "pub", "public", "private",
               "static", "namespace", "using", "typedef", "struct", "#include", "#define", "use strict", "console",
               "walrus", "fmt", "println!", "System.out", "std::"),
    "javascript": ("def", "elif", "except", "func", "fn", "package", "impl", "pub", "public", "private",
                   "namespace", "using", "typedef", "#include", "#define", "walrus", "fmt", "println!",
                   "System.out", "std::"),
    "typescript": ("def", "elif", "except", "func", "fn", "package", "impl", "pub", "using", "typedef",
                   "#include", "#define", "walrus", "fmt", "println!", "System.out", "std::"),
    "go": ("def", "elif", "except", "function", "let", "fn", "impl", "pub", "public", "private", "static",
           "namespace", "using", "typedef", "#include", "#define", "use strict", "console", "self.", "println!",
           "System.out", "std::"),
    "rust": ("def", "elif", "except", "function", "func", "var", "package", "public", "private", "namespace",
             "using", "typedef", "#include", "#define", "use strict", "console", "walrus", "fmt", "System.out",
             "std::"),
    "java": ("def", "elif", "except", "function", "func", "fn", "let", "impl", "pub", "namespace", "using",
             "typedef", "#include", "#define", "use strict", "console", "walrus", "fmt", "self.", "println!",
             "std::"),
    "c": ("def", "elif", "except", "function", "func", "fn", "let", "var", "package", "impl", "pub", "public",
          "private", "namespace", "using", "use strict", "console", "walrus", "fmt", "self.", "println!",
          "System.out", "std::"),
    "cpp": ("def", "elif", "except", "function", "func", "fn", "let", "var", "package", "impl", "pub",
            "use strict", "console", "walrus", "fmt", "self.", "println!", "System.out"),
}
_FOREIGN["tsx"] = _FOREIGN["typescript"]
_PATTERNS = {lang: re.compile("|".join(f"(?:{_KEYWORD_STARTS[k]})" for k in keys)) for lang, keys in _FOREIGN.items()}


def cut_foreign_lines(text: str, ctx: CursorContext, spec: LanguageSpec) -> str:
    """Cut before the first line that starts like a statement of another language than the buffer's (`var x`
    in Python, `def f(` in JavaScript, `x := 0` outside Go); the first line is read with the code before the
    cursor on its line (`ret` + `udent := 0`)."""
    pattern = _PATTERNS.get(spec.name)
    if pattern is None:
        return text
    lines = text.split("\n")
    before = ctx.line_prefix.strip()
    for i, line in enumerate(lines):
        if i == 0 and before:  # the line as it would read, where the code before the cursor is not itself foreign
            if pattern.match(before + line) and not pattern.match(before):
                return ""
            continue
        if pattern.match(line.strip()):
            return "\n".join(lines[:i]).rstrip()
    return text


_PHRASE_LOOP = re.compile(r"(.{4,}?)\1{2,}")
_MIN_BLOCK_CHARS = 16  # a block of lines repeated once counts as a loop only if it is this long (not `}` or `i++;`)


def cut_loops(text: str) -> str:
    """Keep one copy of what a model stuck in a loop repeats: a phrase of a line three times over
    (`a = b, a = b, a = b`), a line three times, or a block of 2-4 lines twice in a row."""
    lines = text.split("\n")
    kept: list[str] = []
    for i, line in enumerate(lines):
        m = _PHRASE_LOOP.search(line)
        unit = m.group(1) if m is not None else ""
        # (`0, 0, 0` and `255, 255, 255` are data; `a = b, a = b, a = b` and `'..', '..', '..'` loops)
        if m is not None and len(set(unit) - {" "}) >= 3 and any(c.isalpha() or c in "'\"." for c in unit):
            kept.append(line[: m.start() + len(m.group(1))].rstrip(" \t,+-*/|&"))  # no separator left dangling
            return "\n".join(kept)
        if _repeats_from(lines, i):
            kept.append(line)
            return "\n".join(kept)
        kept.append(line)
    return text


def _repeats_from(lines: list[str], i: int) -> bool:
    """Do the lines from `i` on repeat: the line twice more, or a block of 2-4 lines once more, right after?"""
    strip = [ln.strip() for ln in lines]
    if len(strip[i]) > 2 and strip[i : i + 3] == [strip[i]] * 3:
        return True
    for size in range(2, 5):
        block = strip[i - size + 1 : i + 1] if i - size + 1 >= 0 else []
        after = strip[i + 1 : i + 1 + size]
        if block and block == after and sum(len(x) for x in block) >= _MIN_BLOCK_CHARS:
            return True
    return False

"""JavaScript, TypeScript and TSX golden cases."""

from . import Case, src

CASES = [
    Case("js single line cut", "javascript",
         "const total = items.reduce(█);\n", "(a, b) => a + b, 0);\nconsole.log(total);",
         "(a, b) => a + b, 0", plan="single_line", rules=("auto_closed",)),
    Case("js function body stops at the closing brace", "javascript",
         src("""
             function square(x) {
               █
             }
             """),
         "return x * x;\n}\n\nfunction cube(x) {\n  return x * x * x;\n}",
         "return x * x;", plan="empty_block", rules=("block_end",)),
    Case("js nested block keeps its own braces", "javascript",
         src("""
             function abs(x) {
               █
             }
             """),
         "if (x < 0) {\n    return -x;\n  }\n  return x;\n}",
         "if (x < 0) {\n    return -x;\n  }\n  return x;", plan="empty_block"),
    Case("js block between auto-closed braces ends with a newline", "javascript",
         "function f() {█}\n", "\n  return 1;\n}", "\n  return 1;\n", plan="empty_block"),
    Case("js unclosed function body keeps the closing brace", "javascript",
         "function f(a) {█\n",
         "\n  return a + 1;\n}\n\nf(2);",
         "\n  return a + 1;\n}", plan="empty_block"),
    Case("js arrow body", "javascript",
         "const inc = (n) => {█};\n", "\n  return n + 1;\n};", "\n  return n + 1;\n", plan="empty_block"),
    Case("js auto-closed bracket and semicolon", "javascript",
         "const xs = [█];\n", "1, 2, 3];", "1, 2, 3", rules=("auto_closed",)),
    Case("js code inside a template substitution is code", "javascript",
         "const msg = `Hello, ${name█}`;\n", ".toUpperCase()}`;", ".toUpperCase()", plan="single_line",
         rules=("auto_closed",)),
    Case("js string completion drops the repeated closing quote", "javascript",
         "const path = './src/█';\n", "index.js';", "index.js", plan="in_string", rules=("auto_closed",)),
    Case("js repeated next line is cut", "javascript",
         src("""
             for (const x of xs) {
               █
               console.log(x);
             }
             """),
         "total += x;\n  console.log(x);", "total += x;", plan="single_line"),
    Case("js broken candidate rejected", "javascript",
         "let y = █;\n", "foo bar", None),
    Case("js broken candidate: its longest complete piece that parses is kept", "javascript",
         "let y = █;\n", "Math.max(a, b) b", "Math.max(a, b)", rules=("rescue_prefix",)),
    Case("js unclosed call before the auto-closed semicolon is repaired", "javascript",
         "let y = █;\n", "foo(;", "foo()", rules=("auto_closed", "balance_brackets")),
    Case("js object literal body", "javascript",
         "const opts = {█};\n", "\n  verbose: true,\n  depth: 2,\n};", "\n  verbose: true,\n  depth: 2,\n",
         plan="empty_block"),
    Case("js call runs past the auto-closed paren: cut there (fixed)", "javascript",
         "console.log(█);\n", "x) + 1", "x", rules=("cut_at_outer_closer",)),
    Case("js statement inserted above the next one", "javascript",
         "function f(a) {\n  █return b;\n}\n", "const b = a * 2;\n  return b;", "const b = a * 2;\n  ",
         plan="block_before_code", rules=("repeats_next_lines", "line_break_before_code")),
    Case("a trailing line comment would swallow the auto-closed paren", "javascript",
         "console.log(█);\n", "x // the value", "x", rules=("comment_before_code",)),
    Case("a last line left open by an operator would swallow the next statement", "javascript",
         "let x = 1;\n█\nfoo();\n", "let y = x +", None),
    Case("ts interface body", "typescript",
         "interface User {█}\n", "\n  id: number;\n  name: string;\n}\n\ninterface Admin {}",
         "\n  id: number;\n  name: string;\n", plan="empty_block"),
    Case("ts typed function body", "typescript",
         src("""
             function parse(s: string): number {
               █
             }
             """),
         "return parseInt(s, 10);\n}", "return parseInt(s, 10);"),
    Case("ts generic single line", "typescript",
         "let m: Map<string, █>;\n", "number>;", "number", rules=("auto_closed",)),
    Case("ts syntax error rejected", "typescript",
         "let n: number = █;\n", "5 5", None),
    Case("ts by extension when languageId is unknown", "",
         "function id<T>(x: T): T {█}\n", "\n  return x;\n}", "\n  return x;\n", uri="file:///a/b.ts"),
    Case("tsx component body", "typescriptreact",
         src("""
             export function Hello() {
               █
             }
             """),
         "return <div>Hello</div>;\n}\n\nexport default Hello;", "return <div>Hello</div>;"),
    Case("tsx jsx attribute completes single line", "typescriptreact",
         "const el = <Button onClick={█}>;\n", "handleClick}>", "handleClick", rules=("auto_closed",)),
]

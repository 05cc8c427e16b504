"""Cross-language cases: languages without a grammar, line endings, ranking."""

from . import Case

CASES = [
    Case("fallback language cuts a block by indentation", "ruby",
         "def greet(name)\n  █\nend\n", "puts \"hi #{name}\"\nend\n\ndef other\nend", "puts \"hi #{name}\"",
         plan="single_line"),
    Case("fallback language balances brackets", "lua",
         "local t = █\n", "setmetatable({}, {", "setmetatable({}, {})", rules=("balance_brackets",)),
    Case("fallback language block after brace", "kotlin",
         "fun main() {█}\n", "\n    println(1)\n}\n\nfun other() {}", "\n    println(1)\n", plan="after_block_opener"),
    Case("fallback comment detected from the line", "ruby",
         "x = 1 # set the█\n", " initial value\ny = 2", " initial value", plan="in_comment"),
    Case("CRLF documents get CRLF completions", "python",
         "def f(x):\r\n    █\r\n", "y = x + 1\n    return y", "y = x + 1\r\n    return y",
         plan="after_block_opener", rules=("line_endings",)),
    Case("tab-indented Python gets tabs", "python",
         "def f(x):\n\tif x:\n\t\treturn 1\n\telse:█\n", "\n        for i in range(x):\n            print(i)",
         "\n\t\tfor i in range(x):\n\t\t\tprint(i)", rules=("indent_chars",)),
    Case("all candidates broken: none returned", "python",
         "x = █\n", ["1 +", ")", "  "], None),
    Case("ranking: valid first, fixed next, model order within", "javascript",
         "const v = █;\n", ["f(1", "2", "g([1, 2]", "3"], ["2", "3", "f(1)", "g([1, 2])"]),
]

"""The tools' extension table (laya_lsp.replay.LANGUAGES) knows every extension a grammar claims, so held-out C++
headers (.hpp, .cc) are sent with languageId cpp and benchmarks/quality.py's file-lines set takes them."""
from __future__ import annotations

from benchmarks.quality import file_line_tasks
from laya_lsp.replay import LANGUAGES
from laya_lsp.syntax.languages import SPECS


def test_every_grammar_extension_has_its_language_id() -> None:
    for spec in SPECS:
        for ext in spec.extensions:
            assert LANGUAGES[ext] == spec.language_ids[0], ext
    assert LANGUAGES[".h"] == "c" and LANGUAGES[".hpp"] == "cpp" and LANGUAGES[".cc"] == "cpp"
    assert LANGUAGES[".tsx"] == "typescriptreact" and LANGUAGES[".mjs"] == "javascript"


def test_file_lines_take_cpp_headers(tmp_path) -> None:
    header = tmp_path / "widget.hpp"
    header.write_text(
        "#pragma once\nstruct Widget {\n    int width() const { return width_; }\n    int width_ = 0;\n};\n"
    )
    tasks = file_line_tasks([str(tmp_path / "*")], 50)
    assert tasks and {t["language"] for t in tasks} == {"cpp"}
    assert any(t["middle"] == "int width() const { return width_; }" for t in tasks)

"""laya_lsp/syntax is pure Python + tree-sitter: no MLX, no LSP libraries, no run-time grammar downloads."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

SYNTAX = Path(__file__).resolve().parent.parent / "laya_lsp" / "syntax"
FORBIDDEN = ("mlx", "mlx_lm", "pygls", "lsprotocol", "tree_sitter_language_pack", "tree_sitter_languages")


def _imported_modules(path: Path) -> set[str]:
    modules = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            modules.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            modules.add(node.module.split(".")[0])
    return modules


def test_no_forbidden_imports_in_source() -> None:
    for path in SYNTAX.glob("*.py"):
        assert not _imported_modules(path) & set(FORBIDDEN), path.name


def test_importing_the_package_loads_none_of_them() -> None:
    code = ("import sys, laya_lsp.syntax as s; d = s.SyntaxDocument('x = 1', 'python', ''); "
            f"print([m for m in {FORBIDDEN!r} if m in sys.modules])")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                         cwd=SYNTAX.parent.parent)
    assert out.stdout.strip() == "[]", out.stdout + out.stderr


def test_files_stay_small() -> None:
    for path in SYNTAX.glob("*.py"):
        assert len(path.read_text().splitlines()) <= 400, path.name

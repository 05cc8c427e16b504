"""The layers hold: arrows point one way and nothing reaches past a facade (ARCHITECTURE.md, "The shape").

Read from the source with `ast`, so a violation names the file and line:
- outside engine/, the engine is used only through `laya_lsp.engine` (its facade and request/result types):
  no import of its modules, no reaching for its scheduler, cache store or model object;
- engine/ never imports pygls, lsprotocol or a front; syntax/ never imports MLX or the engine;
- the orchestrator and the decisions know no protocol; decisions never import the orchestrator or a front;
- the LSP front uses pygls through its public API only (no private members of other objects, no class swaps).
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "laya_lsp"
ENGINE_INTERNALS = {"scheduler", "caches", "lm"}  # Engine attributes that only engine/ may touch
PROTOCOLS = ("pygls", "lsprotocol", "fastapi", "uvicorn", "starlette", "pydantic")


def _module_name(path: Path) -> str:
    rel = path.relative_to(PACKAGE.parent).with_suffix("")
    parts = list(rel.parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _sources() -> list[tuple[str, Path, ast.Module]]:
    out = []
    for path in sorted(PACKAGE.rglob("*.py")):
        out.append((_module_name(path), path, ast.parse(path.read_text(encoding="utf-8"), str(path))))
    return out


SOURCES = _sources()


def _imports(module: str, path: Path, tree: ast.Module) -> list[tuple[str, int]]:
    """Every module a file imports (absolute names; `from x import y` also counts `x.y`), with its line."""
    package = module if path.name == "__init__.py" else module.rsplit(".", 1)[0]
    out: list[tuple[str, int]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out += [(alias.name, node.lineno) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - (node.level - 1)]
                base = ".".join(anchor + ([node.module] if node.module else []))
            out.append((base, node.lineno))
            out += [(f"{base}.{alias.name}", node.lineno) for alias in node.names]
    return out


def _in(module: str, package: str) -> bool:
    return module == package or module.startswith(package + ".")


def _violations(where: str, forbidden: tuple[str, ...]) -> list[str]:
    return [f"{path.relative_to(PACKAGE.parent)}:{line} imports {name}"
            for module, path, tree in SOURCES if _in(module, where)
            for name, line in _imports(module, path, tree) if any(_in(name, f) for f in forbidden)]


def test_the_engine_is_reached_only_through_its_facade():
    bad = []
    for module, path, tree in SOURCES:
        if _in(module, "laya_lsp.engine"):
            continue
        for name, line in _imports(module, path, tree):
            if _in(name, "laya_lsp.engine") and name.count(".") > 2:  # a module inside engine/, not a name
                submodule = name.split(".")[2]
                if (PACKAGE / "engine" / f"{submodule}.py").exists():
                    bad.append(f"{path.relative_to(PACKAGE.parent)}:{line} imports {name}")
        for node in ast.walk(tree):
            if isinstance(node, ast.Attribute) and node.attr in ENGINE_INTERNALS:
                bad.append(f"{path.relative_to(PACKAGE.parent)}:{node.lineno} reaches for .{node.attr}")
    assert not bad, "\n".join(bad)


@pytest.mark.parametrize(("where", "forbidden"), [
    ("laya_lsp.engine", PROTOCOLS + ("laya_lsp.lsp", "laya_lsp.http", "laya_lsp.orchestrator",
                                     "laya_lsp.decisions", "laya_lsp.syntax")),
    ("laya_lsp.syntax", ("mlx", "mlx_lm", "laya_lsp.engine") + PROTOCOLS),
    ("laya_lsp.orchestrator", PROTOCOLS + ("laya_lsp.lsp", "laya_lsp.http", "mlx", "mlx_lm")),
    ("laya_lsp.decisions", PROTOCOLS + ("laya_lsp.lsp", "laya_lsp.http", "laya_lsp.orchestrator", "mlx", "mlx_lm")),
    ("laya_lsp.lsp", ("laya_lsp.http", "fastapi", "mlx", "mlx_lm")),
    ("laya_lsp.http", ("laya_lsp.lsp", "pygls", "lsprotocol", "mlx", "mlx_lm")),
])
def test_arrows_point_one_way(where: str, forbidden: tuple[str, ...]):
    bad = _violations(where, forbidden)
    assert not bad, "\n".join(bad)


def test_the_lsp_front_uses_only_public_members_of_what_it_did_not_write():
    bad = []
    for module, path, tree in SOURCES:
        if not _in(module, "laya_lsp.lsp"):
            continue
        for node in ast.walk(tree):
            if (isinstance(node, ast.Attribute) and node.attr.startswith("_") and not node.attr.startswith("__")
                    and not (isinstance(node.value, ast.Name) and node.value.id == "self")):
                bad.append(f"{path.relative_to(PACKAGE.parent)}:{node.lineno} uses ._{node.attr[1:]}")
            if isinstance(node, ast.Attribute) and node.attr == "__class__" and isinstance(node.ctx, ast.Store):
                bad.append(f"{path.relative_to(PACKAGE.parent)}:{node.lineno} swaps a __class__")
    assert not bad, "\n".join(bad)


def test_the_checks_see_the_package():
    """The walk above covers the real tree (a wrong root would make every check pass vacuously)."""
    names = {module for module, _path, _tree in SOURCES}
    assert {"laya_lsp.engine.engine", "laya_lsp.orchestrator", "laya_lsp.lsp.server", "laya_lsp.http.app",
            "laya_lsp.syntax.document", "laya_lsp.decisions.resolve"} <= names
    engine_imports = {name for name, _line in _imports(*next((m, p, t) for m, p, t in SOURCES
                                                              if m == "laya_lsp.engine.engine"))}
    assert "laya_lsp.engine.scheduler" in engine_imports  # relative imports resolve to absolute names

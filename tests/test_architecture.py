"""The layers hold: arrows point one way and nothing reaches past a facade (docs/architecture.md, "Layers" and
"Invariants").

Read from the source with `ast`, so a violation names the file and line:
- outside engine/, the engine is used only through `laya_lsp.engine` (its facade and request/result types):
  no import of its modules, no reaching for its scheduler, cache store or model object;
- outside orchestrator/, the orchestrator is used only through `laya_lsp.orchestrator` (no import of its modules);
- engine/ never imports pygls, lsprotocol or a front; syntax/ never imports MLX or the engine;
- the orchestrator and the decisions know no protocol; decisions never import the orchestrator, a front or the
  wiring (bootstrap: tools that start a server live at the package's top, beside it);
- no import cycle anywhere in the package, counting imports inside functions and under TYPE_CHECKING (a cycle
  broken only by deferring an import is still two modules that need each other);
- one record: the record types (RequestStats, StatsBook, Kind, Source) are defined, built and booked only in
  orchestrator/records.py, and statuses, kinds and sources are compared as enums, never as strings;
- names by role: no two modules share a file name (each front's server.py aside; a package's __init__.py too);
- docs/architecture.md names every module (its module map: room and job);
- engine/ keeps at most 12 modules at its top (the rest live in its rooms: loading, caches, decoding, scheduling);
- a private member (`_name`) is used only in the file that defines it, `self._name` included: libraries are
  used through their public API; each exception is in ALLOWED_PRIVATE with its reason. No class swaps.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "laya_lsp"
ENGINE_INTERNALS = {"scheduler", "caches", "lm"}  # Engine attributes that only engine/ may touch
FACADES = ("laya_lsp.engine", "laya_lsp.orchestrator")  # packages used from outside through __init__ only
# (file, private name) used where it is not defined -> why it cannot be avoided.
ALLOWED_PRIVATE = {
    ("laya_lsp/lsp/pygls_workarounds.py", "_request_futures"):
        "pygls 2.1.1 never removes notification handler futures from this table (a Future per keystroke) and "
        "offers no public way to; read with getattr, tripwire in tests/test_rel_soak.py, upstream report in "
        "docs/architecture.md",
    ("laya_lsp/cli.py", "_exit"): "os._exit: ends the process without MLX's static destructors (see its docstring)",
    ("laya_lsp/replay.py", "_asdict"): "namedtuple's public method (the underscore only avoids field-name clashes)",
}
ACCESSORS = ("getattr", "setattr", "hasattr", "delattr")
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


@pytest.mark.parametrize("facade", FACADES)
def test_a_facade_package_is_reached_only_through_its_init(facade: str):
    folder = facade.rsplit(".", 1)[1]
    bad = []
    for module, path, tree in SOURCES:
        if _in(module, facade):
            continue
        for name, line in _imports(module, path, tree):
            if _in(name, facade) and name.count(".") > 1:  # a module inside the package, not a name
                submodule = name.split(".")[2]
                if (PACKAGE / folder / f"{submodule}.py").exists() or (PACKAGE / folder / submodule).is_dir():
                    bad.append(f"{path.relative_to(PACKAGE.parent)}:{line} imports {name}")
        for node in ast.walk(tree):
            if facade == "laya_lsp.engine" and isinstance(node, ast.Attribute) and node.attr in ENGINE_INTERNALS:
                bad.append(f"{path.relative_to(PACKAGE.parent)}:{node.lineno} reaches for .{node.attr}")
    assert not bad, "\n".join(bad)


@pytest.mark.parametrize(("where", "forbidden"), [
    ("laya_lsp.engine", PROTOCOLS + ("laya_lsp.lsp", "laya_lsp.http", "laya_lsp.orchestrator",
                                     "laya_lsp.decisions", "laya_lsp.syntax", "laya_lsp.bootstrap")),
    ("laya_lsp.syntax", ("mlx", "mlx_lm", "laya_lsp.engine") + PROTOCOLS),
    ("laya_lsp.orchestrator", PROTOCOLS + ("laya_lsp.lsp", "laya_lsp.http", "mlx", "mlx_lm")),
    ("laya_lsp.decisions", PROTOCOLS + ("laya_lsp.lsp", "laya_lsp.http", "laya_lsp.orchestrator", "laya_lsp.bootstrap",
                                        "mlx", "mlx_lm")),
    ("laya_lsp.lsp", ("laya_lsp.http", "fastapi", "mlx", "mlx_lm")),
    ("laya_lsp.http", ("laya_lsp.lsp", "pygls", "lsprotocol", "mlx", "mlx_lm")),
])
def test_arrows_point_one_way(where: str, forbidden: tuple[str, ...]):
    bad = _violations(where, forbidden)
    assert not bad, "\n".join(bad)


def _module_edges(sources: list[tuple[str, Path, ast.Module]]) -> dict[str, set[str]]:
    """module -> the package's modules it imports, wherever the import statement is (top level, inside a
    function, under TYPE_CHECKING). `from p import x` points at module p.x when there is one, else at p."""
    known = {module for module, _path, _tree in sources}
    edges: dict[str, set[str]] = {}
    for module, path, tree in sources:
        package = module if path.name == "__init__.py" else module.rsplit(".", 1)[0]
        out: set[str] = set()
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                out |= {alias.name for alias in node.names if alias.name in known}
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    anchor = package.split(".")[: len(package.split(".")) - (node.level - 1)]
                    base = ".".join(anchor + ([node.module] if node.module else []))
                for alias in node.names:
                    if f"{base}.{alias.name}" in known:
                        out.add(f"{base}.{alias.name}")
                    elif base in known:
                        out.add(base)
        edges[module] = out - {module}
    return edges


def _cycles(edges: dict[str, set[str]]) -> list[list[str]]:
    """One import cycle (as a path a -> b -> ... -> a) per strongly connected group of modules."""
    found: list[list[str]] = []
    state: dict[str, int] = {}  # 1: on the current path, 2: done
    path: list[str] = []

    def visit(node: str) -> None:
        state[node] = 1
        path.append(node)
        for nxt in sorted(edges.get(node, ())):
            if state.get(nxt) == 1:
                cycle = path[path.index(nxt):] + [nxt]
                if not any(set(cycle) <= set(c) for c in found):
                    found.append(cycle)
            elif nxt not in state:
                visit(nxt)
        path.pop()
        state[node] = 2

    for node in sorted(edges):
        if node not in state:
            visit(node)
    return found


def test_no_import_cycles():
    cycles = _cycles(_module_edges(SOURCES))
    assert not cycles, "import cycles:\n" + "\n".join(" -> ".join(c) for c in cycles)


def test_the_cycle_check_sees_imports_inside_functions_and_type_checking():
    """A cycle closed by an import in a function body, or under TYPE_CHECKING, is found; a package module's
    `from . import sibling` points at the sibling, not at the package."""
    files = {
        "p/__init__.py": "from .a import A\n",
        "p/a.py": "from . import b\nclass A: ...\n",
        "p/b.py": "def f():\n    from .c import C\n",
        "p/c.py": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from .a import A\nclass C: ...\n",
        "p/d.py": "from .a import A\n",
    }
    sources = [(_module_name_in(Path(name)), Path(name), ast.parse(text)) for name, text in files.items()]
    assert _cycles(_module_edges(sources)) == [["p.a", "p.b", "p.c", "p.a"]]
    sources = [s for s in sources if s[0] != "p.c"]
    assert _cycles(_module_edges(sources)) == []


def _module_name_in(rel: Path) -> str:
    parts = list(rel.with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def test_no_two_modules_share_a_file_name():
    """A name says what a module does, so it is one module's: a reader searching for `decisions.py` finds one."""
    seen: dict[str, list[str]] = {}
    for path in PACKAGE.rglob("*.py"):
        if path.name not in ("__init__.py", "server.py"):
            seen.setdefault(path.name, []).append(str(path.relative_to(PACKAGE.parent)))
    packages = {p.name + ".py" for p in PACKAGE.rglob("*") if p.is_dir() and (p / "__init__.py").exists()}
    shared = {name: paths for name, paths in seen.items() if len(paths) > 1 or name in packages}
    assert not shared, f"file names used twice (or named like a package): {shared}"


def test_every_module_is_named_in_the_architecture_doc():
    """docs/architecture.md's module map names every module by its path (a new module fails here until it is
    given its room and job there)."""
    doc = (PACKAGE.parent / "docs" / "architecture.md").read_text(encoding="utf-8")
    missing = [rel for path in sorted(PACKAGE.rglob("*.py"))
               if f"`{(rel := str(path.relative_to(PACKAGE)))}`" not in doc]
    assert not missing, f"modules docs/architecture.md does not name: {missing}"


def test_the_engine_keeps_its_modules_in_rooms():
    top = [p.name for p in (PACKAGE / "engine").iterdir()
           if (p.suffix == ".py") or (p.is_dir() and (p / "__init__.py").exists())]
    assert len(top) <= 12, f"engine/ has {len(top)} modules at its top: {sorted(top)}"


RECORDS = "laya_lsp/orchestrator/records.py"
RECORD_TYPES = {"RequestStats", "StatsBook", "Kind", "Source"}
ENUM_FIELDS = {"status", "kind", "source"}  # a record's enum-valued fields (and the names they travel under)
# An LSP client tool: its keystrokes' statuses are its own strings, read off the wire, not the server's enums.
STRING_STATUSES_ALLOWED = {"laya_lsp/replay.py"}


def test_records_are_defined_built_and_booked_only_in_the_orchestrators_records():
    bad = []
    for _module, path, tree in SOURCES:
        rel = str(path.relative_to(PACKAGE.parent))
        if rel == RECORDS:
            continue
        for node in ast.walk(tree):
            if isinstance(node, ast.ClassDef) and node.name in RECORD_TYPES:
                bad.append(f"{rel}:{node.lineno} defines {node.name}")
            elif isinstance(node, ast.Call):
                f = node.func
                name = f.id if isinstance(f, ast.Name) else f.attr if isinstance(f, ast.Attribute) else ""
                if name in ("RequestStats", "book"):
                    bad.append(f"{rel}:{node.lineno} calls {name}: book through orchestrator/records.py Records")
    assert not bad, "\n".join(bad)


def _enum_values() -> set[str]:
    from laya_lsp.engine import Status
    from laya_lsp.orchestrator import Kind, Source

    return {m.value for enum in (Status, Kind, Source) for m in enum}


def _string_comparisons(tree: ast.Module, values: set[str]) -> list[int]:
    """Lines comparing a status/kind/source (by name or attribute) with one of the enums' strings."""
    def named(node: ast.expr) -> bool:
        name = node.id if isinstance(node, ast.Name) else node.attr if isinstance(node, ast.Attribute) else ""
        return name in ENUM_FIELDS or name.endswith("_kind") and name != "trigger_kind"

    def strings(node: ast.expr) -> bool:
        items = node.elts if isinstance(node, (ast.Tuple, ast.List, ast.Set)) else [node]
        return any(isinstance(i, ast.Constant) and i.value in values for i in items)

    return [node.lineno for node in ast.walk(tree) if isinstance(node, ast.Compare)
            and any(named(a) and strings(b) or named(b) and strings(a)
                    for a, b in zip([node.left, *node.comparators], node.comparators))]


def test_statuses_kinds_and_sources_are_compared_as_enums():
    values = _enum_values()
    bad = [f"{path.relative_to(PACKAGE.parent)}:{line}" for _m, path, tree in SOURCES
           if str(path.relative_to(PACKAGE.parent)) not in STRING_STATUSES_ALLOWED
           for line in _string_comparisons(tree, values)]
    assert not bad, "compared with a string, not the enum:\n" + "\n".join(bad)
    caught = _string_comparisons(ast.parse('if st.status == "loading" or kind in ("inline", "x"): pass'), values)
    assert caught == [1, 1]


def _private(name: object) -> bool:
    return isinstance(name, str) and name.startswith("_") and not name.startswith("__")


def _accessed_name(node: ast.Call, constants: dict[str, str]) -> str | None:
    """The member name of getattr(x, NAME, ...) and kin: a string literal or a module constant."""
    if not (isinstance(node.func, ast.Name) and node.func.id in ACCESSORS and len(node.args) >= 2):
        return None
    arg = node.args[1]
    if isinstance(arg, ast.Constant) and isinstance(arg.value, str):
        return arg.value
    return constants.get(arg.id) if isinstance(arg, ast.Name) else None


def _private_members(tree: ast.Module) -> tuple[set[str], list[tuple[str, int]]]:
    """(private names the file defines, private members it uses with their lines)."""
    constants = {t.id: n.value.value for n in tree.body if isinstance(n, ast.Assign)
                 and isinstance(n.value, ast.Constant) and isinstance(n.value.value, str)
                 for t in n.targets if isinstance(t, ast.Name)}
    defined: set[str] = set()
    used: list[tuple[str, int]] = []
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            defined.add(node.name)
        elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            defined.add(node.id)
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            defined.add(node.target.id)
        elif isinstance(node, ast.Attribute) and _private(node.attr):
            if isinstance(node.ctx, ast.Store):
                defined.add(node.attr)
            else:
                used.append((node.attr, node.lineno))
        elif isinstance(node, ast.Call) and (name := _accessed_name(node, constants)) and _private(name):
            if isinstance(node.func, ast.Name) and node.func.id == "setattr":
                defined.add(name)
            else:
                used.append((name, node.lineno))
    return {d for d in defined if _private(d)}, used


def _private_violations() -> tuple[list[str], set[tuple[str, str]]]:
    bad, seen = [], set()
    for _module, path, tree in SOURCES:
        rel = str(path.relative_to(PACKAGE.parent))
        defined, used = _private_members(tree)
        for name, line in used:
            if name in defined:
                continue
            if (rel, name) in ALLOWED_PRIVATE:
                seen.add((rel, name))
            else:
                bad.append(f"{rel}:{line} uses {name}, which it did not define")
        for node in ast.walk(tree):
            if isinstance(node, ast.Attribute) and node.attr == "__class__" and isinstance(node.ctx, ast.Store):
                bad.append(f"{rel}:{node.lineno} swaps a __class__")
    return bad, seen


def test_private_members_are_used_only_where_they_are_defined():
    bad, seen = _private_violations()
    assert not bad, "\n".join(bad) + "\n(a library's private member needs an ALLOWED_PRIVATE entry with its reason)"
    assert seen == set(ALLOWED_PRIVATE), f"allowlist entries nothing needs any more: {set(ALLOWED_PRIVATE) - seen}"


def test_the_private_member_check_sees_self_and_getattr():
    """No blanket exemption: `self._x` a class did not define, and getattr with a private name, are caught."""
    tree = ast.parse("K = '_table'\nclass P(Base):\n    def f(self):\n        self._mine = 1\n"
                     "        return self._theirs, self._mine, getattr(self, K), getattr(self, '_other')")
    defined, used = _private_members(tree)
    assert defined == {"_mine"} and sorted(n for n, _ in used if n not in defined) == ["_other", "_table", "_theirs"]


def test_the_checks_see_the_package():
    """The walk above covers the real tree (a wrong root would make every check pass vacuously)."""
    names = {module for module, _path, _tree in SOURCES}
    assert {"laya_lsp.engine.facade", "laya_lsp.orchestrator", "laya_lsp.lsp.server", "laya_lsp.http.app",
            "laya_lsp.syntax.document", "laya_lsp.decisions.resolve"} <= names
    engine_imports = {name for name, _line in _imports(*next((m, p, t) for m, p, t in SOURCES
                                                              if m == "laya_lsp.engine.facade"))}
    # relative imports resolve to absolute names
    assert "laya_lsp.engine.scheduling.scheduler" in engine_imports

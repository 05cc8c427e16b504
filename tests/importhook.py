"""Patch a laya_lsp module inside a server subprocess, with a sitecustomize.py import hook.

`hook_env(tmp_path, PATCHES)` writes a sitecustomize.py that, right after each named module is imported, calls
its patch function on it (inject a fault, hold back the model load, shorten a bound), and returns the
environment that makes a subprocess load it. `PATCHES` is Python source defining
`PATCHES = {"module.name": function(module)}`; it may use `wrap(module, name, before)`, which makes
`module.name` call `before()` (raise, or wait) ahead of the real function. Everything else runs unchanged.
"""

from __future__ import annotations

from pathlib import Path

_WRAP = r'''
def wrap(module, name, before):
    """module.name now calls before() first (it may raise or wait), then the real function."""
    real = getattr(module, name)

    def wrapped(*args, **kwargs):
        before()
        return real(*args, **kwargs)

    setattr(module, name, wrapped)
'''

_AFTER_IMPORT = r'''
import importlib.util, sys


class _AfterImport:
    """Runs PATCHES[name](module) right after `name` is imported."""

    def find_spec(self, name, path, target=None):
        if name not in PATCHES:
            return None
        sys.meta_path.remove(self)
        try:
            spec = importlib.util.find_spec(name)
        finally:
            sys.meta_path.insert(0, self)
        exec_module = spec.loader.exec_module

        def patched(module):
            exec_module(module)
            PATCHES[name](module)

        spec.loader.exec_module = patched
        return spec


sys.meta_path.insert(0, _AfterImport())
'''


def hook_env(tmp_path: Path, patches: str) -> dict[str, str]:
    """Write the hook with `patches` under `tmp_path`; the environment variables that load it in a subprocess."""
    folder = tmp_path / "hook"
    folder.mkdir()
    (folder / "sitecustomize.py").write_text(_WRAP + patches + _AFTER_IMPORT)
    return {"PYTHONPATH": str(folder)}

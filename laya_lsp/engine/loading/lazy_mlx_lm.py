"""Import mlx-lm's model code without running its package `__init__` first.

`mlx_lm/__init__.py` imports `mlx_lm.utils`, whose module-level `tokenizer_utils` import pulls in transformers (and,
where installed, torch): about a second of start-up and hundreds of MB the server never uses, since laya reads
tokenizers with the `tokenizers` library and loads weights itself (model.py). The package is registered
bare, so `mlx_lm.models.*` import alone; the first attribute asked of the package itself (`mlx_lm.load`, ...)
runs its real `__init__` then, so other users of mlx-lm in the same process see no difference.
"""

from __future__ import annotations

import importlib.util
import sys
from typing import Any


def defer_mlx_lm_init() -> None:
    """Register `mlx_lm` with its `__init__` deferred (no-op if it is already imported or not installed)."""
    if "mlx_lm" in sys.modules:
        return
    spec = importlib.util.find_spec("mlx_lm")
    if spec is None or spec.loader is None:
        return
    package = importlib.util.module_from_spec(spec)
    loader = spec.loader

    def finish_init(name: str) -> Any:  # PEP 562: only called for names the bare package lacks
        del package.__getattr__
        loader.exec_module(package)
        return getattr(package, name)

    package.__getattr__ = finish_init  # type: ignore[method-assign]
    sys.modules["mlx_lm"] = package

"""OpenBLAS without re-executing the process: loaded with global scope before MLX, MLX's cblas_sgemm binds to it.

The dynamic linker itself reports the binding (LD_DEBUG=bindings) in a fresh process that starts as laya-lsp does.
`make test` installs OpenBLAS (Makefile: system-deps), so its absence is a failure that says what to install.
"""

from __future__ import annotations

import subprocess
import sys

import pytest

from laya_lsp.blas import find_openblas, sgemm_binding
from laya_lsp.device import device_defaults, installed_backend

LINUX_CPU = sys.platform == "linux" and installed_backend() == "cpu"
pytestmark = pytest.mark.skipif(not LINUX_CPU, reason="OpenBLAS routing concerns MLX's Linux CPU backend")


def test_mlx_sgemm_binds_to_openblas_when_laya_loads_it():
    assert device_defaults("cpu").preload_blas
    lib = find_openblas()
    assert lib, "no OpenBLAS found: install it (Debian/Ubuntu: apt-get install libopenblas0-pthread)"
    bound = sgemm_binding(preload=True)
    assert bound is not None and "openblas" in bound.lower(), f"cblas_sgemm bound to {bound}"


def test_without_the_preload_mlx_keeps_its_bundled_blas():
    """The control: the probe does see MLX's own reference BLAS when laya does not load OpenBLAS."""
    bound = sgemm_binding(preload=False)
    assert bound is not None and "openblas" not in bound.lower()


def test_the_cli_starts_once():
    """No re-exec: the process that runs `laya-lsp` is the one that answers (its pid is the child's pid)."""
    probe = ("import os, sys; sys.argv = ['laya-lsp', '--version']; from laya_lsp.cli import main\n"
             "print(os.getpid(), flush=True)\ntry:\n    main()\nexcept SystemExit:\n    print(os.getpid())")
    proc = subprocess.Popen([sys.executable, "-c", probe], stdout=subprocess.PIPE, text=True)
    out, _ = proc.communicate(timeout=120)
    pids = [line for line in out.split() if line.isdigit()]
    assert pids == [str(proc.pid), str(proc.pid)]

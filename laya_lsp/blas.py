"""Run MLX's CPU backend on an optimized BLAS where one is installed.

The Linux `mlx[cpu]` wheel links the netlib reference BLAS (~40x slower matmuls than OpenBLAS). Preloading
OpenBLAS makes MLX's `cblas_sgemm` calls resolve to it. LD_PRELOAD only works at process start, so the CLI
re-executes itself once with it set (stdin/stdout are inherited, so this is safe for a stdio server).
"""

from __future__ import annotations

import ctypes
import os
import platform
import subprocess
import sys
from pathlib import Path

_CANDIDATES = [
    "/usr/lib/{arch}-linux-gnu/openblas-pthread/libopenblas.so.0",
    "/usr/lib/{arch}-linux-gnu/libopenblas.so.0",
    "/usr/lib/{arch}-linux-gnu/openblas-openmp/libopenblas.so.0",
    "/usr/lib64/libopenblas.so.0",
    "/usr/lib64/libopenblasp.so.0",
    "/usr/lib/libopenblas.so.0",
]
PRELOADED_MARK = "LAYA_BLAS_PRELOADED"


def find_openblas() -> str | None:
    """Path of an installed OpenBLAS shared library, or None."""
    if env := os.environ.get("LAYA_BLAS_LIBRARY"):
        return env if Path(env).exists() else None
    arch = platform.machine()
    for pattern in _CANDIDATES:
        p = Path(pattern.format(arch=arch))
        if p.exists():
            return str(p)
    try:
        out = subprocess.run(["ldconfig", "-p"], capture_output=True, text=True, timeout=5).stdout
    except (OSError, subprocess.SubprocessError):
        return None
    for line in out.splitlines():
        if "libopenblas" in line and "=>" in line:
            return line.split("=>", 1)[1].strip()
    return None


def reexec_with_fast_blas(argv: list[str] | None = None) -> None:
    """On Linux, re-execute the current command (any script or module; with `argv`: `laya-lsp ARGV`) with
    OpenBLAS preloaded (once). Returns if nothing to do."""
    if sys.platform != "linux" or os.environ.get(PRELOADED_MARK) or os.environ.get("LAYA_NO_BLAS_PRELOAD"):
        return
    lib = find_openblas()
    if lib is None or lib in os.environ.get("LD_PRELOAD", ""):
        return
    env = dict(os.environ)
    env["LD_PRELOAD"] = ":".join(x for x in (lib, env.get("LD_PRELOAD", "")) if x)
    env[PRELOADED_MARK] = lib
    args = [sys.executable, *sys.orig_argv[1:]] if argv is None else [sys.executable, "-m", "laya_lsp", *argv]
    sys.stdout.flush()
    sys.stderr.flush()
    os.execve(sys.executable, args, env)


class _DlInfo(ctypes.Structure):
    _fields_ = [("dli_fname", ctypes.c_char_p), ("dli_fbase", ctypes.c_void_p),
                ("dli_sname", ctypes.c_char_p), ("dli_saddr", ctypes.c_void_p)]


def _global_sgemm_library() -> str | None:
    """The library that a global lookup of `cblas_sgemm` finds (a preloaded BLAS wins over MLX's own)."""
    try:
        libc = ctypes.CDLL(None)
        addr = ctypes.cast(libc.cblas_sgemm, ctypes.c_void_p).value
    except (OSError, AttributeError):
        return None
    info = _DlInfo()
    dladdr = libc.dladdr
    dladdr.argtypes = [ctypes.c_void_p, ctypes.POINTER(_DlInfo)]
    if addr and dladdr(addr, ctypes.byref(info)) and info.dli_fname:
        return info.dli_fname.decode()
    return None


def active_blas() -> str:
    """Which BLAS MLX's CPU backend calls in this process, in words."""
    if sys.platform == "darwin":
        return "Accelerate (macOS)"
    lib = _global_sgemm_library()
    if lib is None:
        return "reference BLAS bundled with mlx (slow: install OpenBLAS, e.g. apt-get install libopenblas0-pthread)"
    name = Path(lib).name.lower()
    if "openblas" in name or "openblas" in lib.lower():
        return f"OpenBLAS ({lib})"
    if "mkl" in name:
        return f"Intel MKL ({lib})"
    if "blis" in name:
        return f"BLIS ({lib})"
    return f"{lib}"


def set_blas_threads(n: int) -> bool:
    """Set OpenBLAS's thread count at run time; False if no OpenBLAS is loaded."""
    if n <= 0 or "OpenBLAS" not in active_blas():
        return False
    try:
        lib = ctypes.CDLL(None)
        fn = getattr(lib, "openblas_set_num_threads", None)
        if fn is None:
            return False
        fn(int(n))
        return True
    except OSError:
        return False


def blas_threads() -> int | None:
    try:
        fn = getattr(ctypes.CDLL(None), "openblas_get_num_threads", None)
        return int(fn()) if fn else None
    except OSError:
        return None

"""Run MLX's CPU backend on an optimized BLAS where one is installed.

The Linux `mlx[cpu]` wheel links the netlib reference BLAS (~40x slower matmuls than OpenBLAS). Loading OpenBLAS
with global symbol scope *before* MLX is imported puts it ahead of MLX's own BLAS in the dynamic linker's lookup
order, so libmlx's `cblas_sgemm` binds to OpenBLAS: the same effect as LD_PRELOAD without starting the process
twice. `sgemm_binding` asks the dynamic linker which library it bound (tests and `laya-lsp doctor` check it).
"""

from __future__ import annotations

import ctypes
import logging
import os
import platform
import re
import sys
from pathlib import Path

log = logging.getLogger(__name__)

_CANDIDATES = [
    "/usr/lib/{arch}-linux-gnu/openblas-pthread/libopenblas.so.0",
    "/usr/lib/{arch}-linux-gnu/libopenblas.so.0",
    "/usr/lib/{arch}-linux-gnu/openblas-openmp/libopenblas.so.0",
    "/usr/lib64/libopenblas.so.0",
    "/usr/lib64/libopenblasp.so.0",
    "/usr/lib/libopenblas.so.0",
]
_loaded: str | None = None


def find_openblas() -> str | None:
    """Path of an installed OpenBLAS shared library, or None."""
    if env := os.environ.get("LAYA_BLAS_LIBRARY"):
        return env if Path(env).exists() else None
    arch = platform.machine()
    for pattern in _CANDIDATES:
        p = Path(pattern.format(arch=arch))
        if p.exists():
            return str(p)
    import subprocess  # only here and in sgemm_binding: the server's start-up imports neither

    try:
        out = subprocess.run(["ldconfig", "-p"], capture_output=True, text=True, timeout=5, check=False).stdout
    except (OSError, subprocess.SubprocessError):
        return None
    for line in out.splitlines():
        if "libopenblas" in line and "=>" in line:
            return line.split("=>", 1)[1].strip()
    return None


def load_fast_blas() -> str | None:
    """Load OpenBLAS for MLX's CPU backend; call before anything imports MLX (device.prepare_mlx decides when).

    Returns the library loaded, or None (opted out with LAYA_NO_BLAS_PRELOAD, no OpenBLAS installed, or MLX
    already imported, when it would be too late). Child processes get it through LD_PRELOAD, as they did when the
    CLI re-executed itself with it.
    """
    global _loaded
    if _loaded or os.environ.get("LAYA_NO_BLAS_PRELOAD") or sys.platform != "linux":
        return _loaded
    lib = find_openblas()
    if lib is None:
        return None
    if "mlx.core" in sys.modules:
        log.warning("MLX was imported before OpenBLAS could be loaded; it keeps its reference BLAS")
        return None
    ctypes.CDLL(lib, mode=ctypes.RTLD_GLOBAL)
    preload = os.environ.get("LD_PRELOAD", "")
    if lib not in preload.split(":"):
        os.environ["LD_PRELOAD"] = ":".join(x for x in (lib, preload) if x)
    _loaded = lib
    return lib


def loaded_blas() -> str | None:
    """The library `load_fast_blas` loaded in this process, if any."""
    return _loaded


# The dynamic linker's report of one binding: "binding file <from> [0] to <to> [0]: normal symbol `name'".
_BINDING = re.compile(r"binding file (\S+) \[\d+\] to (\S+) \[\d+\]: normal symbol `cblas_sgemm'")
_PROBE = ("from laya_lsp.device import prepare_mlx; prepare_mlx(); import mlx.core as mx; "
          "mx.eval(mx.ones((64, 64)) @ mx.ones((64, 64)))")


def sgemm_binding(preload: bool = True) -> str | None:
    """The library libmlx's `cblas_sgemm` binds to in a fresh process that starts as laya-lsp does (`prepare_mlx`;
    LAYA_NO_BLAS_PRELOAD unless `preload`), as the dynamic linker reports it (LD_DEBUG=bindings); None if not seen."""
    if sys.platform != "linux":
        return None
    import subprocess
    import tempfile

    env = {k: v for k, v in os.environ.items() if k != "LD_PRELOAD"}
    if not preload:
        env["LAYA_NO_BLAS_PRELOAD"] = "1"
    with tempfile.TemporaryDirectory() as tmp:
        env.update(LD_DEBUG="bindings", LD_DEBUG_OUTPUT=str(Path(tmp) / "ld"))
        subprocess.run([sys.executable, "-c", _PROBE], env=env, capture_output=True, timeout=120, check=True)
        for report in Path(tmp).iterdir():
            for line in report.read_text(errors="replace").splitlines():
                m = _BINDING.search(line)
                if m and "libmlx" in m.group(1):
                    return os.path.realpath(m.group(2))
    return None


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

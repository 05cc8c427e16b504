"""Run MLX's CPU backend on the fastest correct BLAS installed, chosen and loaded before MLX is imported.

The Linux `mlx[cpu]` wheel links the netlib reference BLAS. Loading another BLAS with global symbol scope *before*
MLX is imported puts it ahead of MLX's own in the dynamic linker's lookup order, so libmlx's `cblas_sgemm` binds to
it: LD_PRELOAD's effect without starting the process twice. `choose_blas` is the choice (a pure function of the
environment, the libraries found and the CPU's flags), `load_fast_blas` applies it, `sgemm_binding` asks the dynamic
linker what libmlx bound (tests and `laya-lsp doctor` check it) and `blas_info` says what the loaded library runs.
The order and the settings come from `benchmarks/blas_matmul.py` (docs/benchmarks.md, "The decode step").
"""

from __future__ import annotations

import ctypes
import logging
import os
import platform
import re
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

log = logging.getLogger(__name__)

LIBRARY_ENV = "LAYA_BLAS_LIBRARY"
OPT_OUT_ENV = "LAYA_NO_BLAS_PRELOAD"
# OpenBLAS settings a user (or the machine's image) may set to work around its CPU detection: laya never overrides
# either, and sets no coretype while one of them is set.
OPENBLAS_USER_SETTINGS = ("OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE")


@dataclass(frozen=True)
class BlasLibrary:
    """A BLAS that exports the plain `cblas_sgemm` MLX calls, and where Linux distributions install it."""

    name: str
    family: str  # "blis" or "openblas": how to ask it what it runs and how to set its threads
    paths: tuple[str, ...]  # `{arch}` is the machine, e.g. x86_64
    package: str  # the Debian/Ubuntu package that installs it
    soname: str  # asked of `ldconfig -p` when none of `paths` exists


# In order of preference, as measured on the decode step (docs/benchmarks.md): BLIS computes the few-row products of
# a decode step fastest; OpenBLAS after it, with its coretype set from the CPU's flags (`openblas_coretype`).
LIBRARIES: tuple[BlasLibrary, ...] = (
    BlasLibrary("blis-pthread", "blis", ("/usr/lib/{arch}-linux-gnu/blis-pthread/libblis.so.4",),
                "libblis4-pthread", "libblis.so.4"),
    BlasLibrary("blis-openmp", "blis", ("/usr/lib/{arch}-linux-gnu/blis-openmp/libblis.so.4",),
                "libblis4-openmp", "libblis.so.4"),
    BlasLibrary("blis", "blis", ("/usr/lib/{arch}-linux-gnu/libblis.so.4", "/usr/lib64/libblis.so.4",
                                 "/usr/lib/libblis.so.4"), "libblis4", "libblis.so.4"),
    BlasLibrary("openblas-pthread", "openblas", ("/usr/lib/{arch}-linux-gnu/openblas-pthread/libopenblas.so.0",
                                                 "/usr/lib64/libopenblasp.so.0"),
                "libopenblas0-pthread", "libopenblas.so.0"),
    BlasLibrary("openblas-openmp", "openblas", ("/usr/lib/{arch}-linux-gnu/openblas-openmp/libopenblas.so.0",
                                                "/usr/lib64/libopenblaso.so.0"),
                "libopenblas0-openmp", "libopenblas.so.0"),
    BlasLibrary("openblas", "openblas", ("/usr/lib/{arch}-linux-gnu/libopenblas.so.0", "/usr/lib64/libopenblas.so.0",
                                         "/usr/lib/libopenblas.so.0"),
                "libopenblas0", "libopenblas.so.0"),
)
DEFAULT_PACKAGE = LIBRARIES[0].package


@dataclass(frozen=True)
class BlasChoice:
    """The library to load, the settings to put in the environment before loading it, and why."""

    path: str
    name: str  # a LIBRARIES name, or "custom" for a path given in LAYA_BLAS_LIBRARY
    family: str
    reason: str
    settings: dict[str, str] = field(default_factory=dict)


class BlasChoiceError(ValueError):
    """LAYA_BLAS_LIBRARY names a library that is not installed or a path that does not exist."""


def family_of(path: str) -> str:
    """The family a library file belongs to, from its name ("other" when neither BLIS nor OpenBLAS)."""
    name = Path(path).name.lower()
    return next((f for f in ("openblas", "blis", "mkl") if f in name), "other")


# OpenBLAS kernel sets by the /proc/cpuinfo flags each needs, best first.
OPENBLAS_CORETYPES: dict[str, frozenset[str]] = {
    "SkylakeX": frozenset({"avx512f", "avx512cd", "avx512bw", "avx512dq", "avx512vl"}),
    "Haswell": frozenset({"avx2", "fma"}),
}


def openblas_coretype(flags: frozenset[str]) -> str | None:
    """The OpenBLAS kernel set for an x86-64 CPU with these /proc/cpuinfo flags, or None to keep OpenBLAS's own pick.

    OpenBLAS 0.3.21 (Debian 12) does not recognise recent Xeons and falls back to its SSE3 (Prescott) kernels,
    ~3x slower here; naming the kernels by the instructions the CPU reports cannot pick one it lacks."""
    return next((name for name, needs in OPENBLAS_CORETYPES.items() if needs <= flags), None)


def library_settings(family: str, env: Mapping[str, str], flags: frozenset[str]) -> dict[str, str]:
    """Environment settings for a library of `family`, never one the user already set."""
    if family != "openblas" or any(k in env for k in OPENBLAS_USER_SETTINGS):
        return {}
    coretype = openblas_coretype(flags)
    return {"OPENBLAS_CORETYPE": coretype} if coretype else {}


def choose_blas(env: Mapping[str, str], installed: Sequence[tuple[BlasLibrary, str]],
                flags: frozenset[str]) -> BlasChoice | None:
    """Which BLAS to load: None when opted out (LAYA_NO_BLAS_PRELOAD) or none is installed; LAYA_BLAS_LIBRARY's
    library (a LIBRARIES name, with its settings; or a path, loaded as it is); else the first of `installed` (found
    in LIBRARIES order). Raises BlasChoiceError when LAYA_BLAS_LIBRARY names nothing installed."""
    if env.get(OPT_OUT_ENV):
        return None
    wanted = env.get(LIBRARY_ENV, "")
    if wanted:
        for lib, path in installed:
            if lib.name == wanted:
                return BlasChoice(path, lib.name, lib.family, f"{LIBRARY_ENV}={wanted}",
                                  library_settings(lib.family, env, flags))
        if any(lib.name == wanted for lib in LIBRARIES):
            raise BlasChoiceError(f"{LIBRARY_ENV}={wanted}: not installed (Debian/Ubuntu package "
                                  f"{next(lib.package for lib in LIBRARIES if lib.name == wanted)})")
        if not Path(wanted).is_file():
            raise BlasChoiceError(f"{LIBRARY_ENV}={wanted}: no such library; give a path or one of "
                                  f"{', '.join(lib.name for lib in LIBRARIES)}")
        return BlasChoice(wanted, "custom", family_of(wanted), f"{LIBRARY_ENV}={wanted} (a path: loaded as it is)")
    if not installed:
        return None
    lib, path = installed[0]
    return BlasChoice(path, lib.name, lib.family, "the first installed of laya's preference order",
                      library_settings(lib.family, env, flags))


def _ldconfig_paths() -> dict[str, str]:
    """soname -> path of every library the dynamic linker's cache lists."""
    import subprocess  # only when no known path exists: the server's start-up does not import it otherwise

    try:
        out = subprocess.run(["ldconfig", "-p"], capture_output=True, text=True, timeout=5, check=False).stdout
    except (OSError, subprocess.SubprocessError):
        return {}
    found: dict[str, str] = {}
    for line in out.splitlines():
        if "=>" in line:
            soname, path = line.split("=>", 1)
            found.setdefault(soname.split()[0], path.strip())
    return found


def installed_libraries(arch: str | None = None) -> list[tuple[BlasLibrary, str]]:
    """Every LIBRARIES entry installed here with its path, in preference order; when none of the known paths
    exists, each family is looked up by soname in the dynamic linker's cache (other distributions' layouts)."""
    arch = arch or platform.machine()
    found = []
    for lib in LIBRARIES:
        path = next((p for p in (q.format(arch=arch) for q in lib.paths) if Path(p).exists()), None)
        if path:
            found.append((lib, path))
    if not found:  # another distribution's layout: ask the linker's cache (a subprocess, so only then)
        cache = _ldconfig_paths()
        generic = {lib.family: lib for lib in LIBRARIES}  # the last of each family names no threading flavour
        found = [(lib, cache[lib.soname]) for lib in generic.values() if lib.soname in cache]
    return found


def cpu_flags() -> frozenset[str]:
    """The CPU's feature flags as Linux reports them (/proc/cpuinfo), empty where unreadable."""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("flags"):
                return frozenset(line.split(":", 1)[1].split())
    except OSError:
        pass
    return frozenset()


_loaded: BlasChoice | None = None


def load_fast_blas() -> BlasChoice | None:
    """Load the chosen BLAS for MLX's CPU backend; call before anything imports MLX (device.prepare_mlx decides when).

    Returns the choice loaded, or None (opted out, none installed, not Linux, or MLX already imported, when it
    would be too late). A LAYA_BLAS_LIBRARY that names nothing installed is logged and the default chosen instead.
    Child processes get the library through LD_PRELOAD and its settings through the environment."""
    global _loaded
    if _loaded or sys.platform != "linux":
        return _loaded
    installed, flags = installed_libraries(), cpu_flags()
    try:
        choice = choose_blas(os.environ, installed, flags)
    except BlasChoiceError as exc:
        log.warning("%s; using laya's default choice", exc)
        choice = choose_blas({k: v for k, v in os.environ.items() if k != LIBRARY_ENV}, installed, flags)
    if choice is None:
        return None
    if "mlx.core" in sys.modules:
        log.warning("MLX was imported before %s could be loaded; it keeps its reference BLAS", choice.path)
        return None
    os.environ.update(choice.settings)  # read by the library as it loads
    ctypes.CDLL(choice.path, mode=ctypes.RTLD_GLOBAL)
    preload = os.environ.get("LD_PRELOAD", "")
    if choice.path not in preload.split(":"):
        os.environ["LD_PRELOAD"] = ":".join(x for x in (choice.path, preload) if x)
    _loaded = choice
    return choice


def loaded_blas() -> BlasChoice | None:
    """The choice `load_fast_blas` loaded in this process, if any."""
    return _loaded


# The dynamic linker's report of one binding: "binding file <from> [0] to <to> [0]: normal symbol `name'".
_BINDING = re.compile(r"binding file (\S+) \[\d+\] to (\S+) \[\d+\]: normal symbol `cblas_sgemm'")
_PROBE = ("from laya_lsp.device import prepare_mlx; prepare_mlx(); import mlx.core as mx; "
          "mx.eval(mx.ones((64, 64)) @ mx.ones((64, 64)))")


def sgemm_binding(preload: bool = True, env: Mapping[str, str] | None = None) -> str | None:
    """The library libmlx's `cblas_sgemm` binds to in a fresh process that starts as laya-lsp does (`prepare_mlx`,
    with `env` or this environment; LAYA_NO_BLAS_PRELOAD unless `preload`), as the dynamic linker reports it
    (LD_DEBUG=bindings); None if not seen."""
    if sys.platform != "linux":
        return None
    import subprocess
    import tempfile

    child = {k: v for k, v in (os.environ if env is None else env).items() if k != "LD_PRELOAD"}
    if not preload:
        child[OPT_OUT_ENV] = "1"
    with tempfile.TemporaryDirectory() as tmp:
        child.update(LD_DEBUG="bindings", LD_DEBUG_OUTPUT=str(Path(tmp) / "ld"))
        subprocess.run([sys.executable, "-c", _PROBE], env=child, capture_output=True, timeout=120, check=True)
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


def _global(name: str, restype: Any = ctypes.c_int) -> Any:
    """A function of the process's global symbol scope (the loaded BLAS's API), or None."""
    fn = getattr(ctypes.CDLL(None), name, None)
    if fn is not None:
        fn.restype = restype
    return fn


def blas_info() -> dict[str, Any]:
    """What MLX's `cblas_sgemm` runs in this process: library, family, version/config, kernels, threads."""
    if sys.platform == "darwin":
        return {"library": "Accelerate (macOS)", "family": "accelerate"}
    lib = _global_sgemm_library()
    if lib is None:
        return {"library": None, "family": "reference"}
    info: dict[str, Any] = {"library": lib, "family": family_of(lib)}
    if _global("openblas_get_config"):
        info["config"] = _global("openblas_get_config", ctypes.c_char_p)().decode()
        info["kernel"] = _global("openblas_get_corename", ctypes.c_char_p)().decode()
    elif _global("bli_info_get_version_str"):
        info["config"] = "BLIS " + _global("bli_info_get_version_str", ctypes.c_char_p)().decode() + (
            " openmp" if _global("bli_info_get_enable_openmp")() else " pthreads"
            if _global("bli_info_get_enable_pthreads")() else " serial")
        info["kernel"] = _global("bli_arch_string", ctypes.c_char_p)(_global("bli_arch_query_id")()).decode()
    info["threads"] = blas_threads()
    if _loaded:
        info.update(chosen=_loaded.name, reason=_loaded.reason, settings=_loaded.settings)
    return info


def active_blas() -> str:
    """Which BLAS MLX's CPU backend calls in this process, in words."""
    info = blas_info()
    if info["family"] == "accelerate":
        return info["library"]
    if info["library"] is None:
        return f"reference BLAS bundled with mlx (slow: install a fast one, e.g. apt-get install {DEFAULT_PACKAGE})"
    names = {"openblas": "OpenBLAS", "blis": "BLIS", "mkl": "Intel MKL"}
    kernel = f", {info['kernel']} kernels" if "kernel" in info else ""
    return f"{names.get(info['family'], 'BLAS')} ({info['library']}{kernel})"


def set_blas_threads(n: int) -> bool:
    """Set the loaded OpenBLAS's or BLIS's thread count at run time; False if neither is loaded."""
    if n <= 0:
        return False
    for name in ("openblas_set_num_threads", "bli_thread_set_num_threads"):
        fn = _global(name, None)
        if fn is not None:
            fn(ctypes.c_long(n) if name.startswith("bli") else ctypes.c_int(n))
            return True
    return False


def blas_threads() -> int | None:
    """The loaded OpenBLAS's or BLIS's thread count (BLIS: 1 until set), or None."""
    if fn := _global("openblas_get_num_threads"):
        return int(fn())
    if fn := _global("bli_thread_get_num_threads", ctypes.c_long):
        return max(1, int(fn()))  # -1: not set, which BLIS runs as one thread
    return None

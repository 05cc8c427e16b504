"""Which device MLX runs on, and the defaults chosen for it (weight dtype, BLAS preload) in one pure function.

`installed_backend` answers before MLX is imported (the BLAS preload must happen before that) from the installed
MLX backend wheel; `mlx_device_kind` and `gpu_info` ask MLX itself once it is imported.
"""

from __future__ import annotations

import importlib.util
import os
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

DeviceKind = Literal["cpu", "cuda", "metal"]
DEVICE_KINDS: tuple[DeviceKind, ...] = ("cpu", "cuda", "metal")
Where = Literal["cpu", "gpu"]  # where a model is asked to run (the `device` setting, less "auto")
# MLX's Linux backend wheels: the CUDA ones (`mlx[cuda13]`, `mlx[cuda12]`, older `mlx[cuda]`) and the CPU one.
CUDA_WHEELS = ("mlx-cuda-13", "mlx-cuda-12", "mlx-cuda")
CPU_WHEEL = "mlx-cpu"


@dataclass(frozen=True)
class DeviceDefaults:
    """What laya does by default on one kind of device."""

    kind: DeviceKind
    # Floating-point weights are cast to this; None keeps what the model stores.
    dtype: str | None
    # Load a fast BLAS (blas.py chooses which) for MLX's CPU matmuls: only the Linux CPU wheel needs it, as it
    # links the reference BLAS.
    preload_blas: bool
    # Caches at one fixed size, prompt chunks through the compiled step and every step shape warmed at load
    # (engine/loading/model.py warm_up): a GPU stalls on each new shape (a trace, attention plans, kernel
    # compiles); on the CPU a new shape costs only a trace, and fixed-size caches would cost attention time
    # and memory.
    fixed_shapes: bool = False
    # Quantized layers are dequantized to `dtype` (MLX's quantized CPU kernels cost more per row than an fp32
    # BLAS product and grow with every row; GPUs read quantized weights faster): all of them when the float
    # model takes at most this share of the machine's memory, else the output head alone.
    dequantize_share: float = 0.0


def device_defaults(kind: DeviceKind, quantized: bool = False, stored_dtype: str | None = None,
                    platform: str = sys.platform) -> DeviceDefaults:
    """The defaults for `kind`, given how the model stores its weights.

    CPU: fp32 (MLX's CPU backend has a BLAS path only for fp32; fp16/bf16 matmuls are much slower there),
    quantized checkpoints dequantized to fp32 when that takes at most a quarter of the memory (else their output
    head alone), a fast BLAS preloaded on Linux. GPU (CUDA, Metal): quantized weights stay as stored, fp32 weights
    become bf16 (half the bytes read per token, the GPU's native matmul type), fp16/bf16 weights stay as stored; no BLAS
    preload.
    """
    if kind not in DEVICE_KINDS:
        raise ValueError(f"unknown device kind {kind!r}; expected one of {', '.join(DEVICE_KINDS)}")
    if kind == "cpu":
        return DeviceDefaults(kind, "float32", preload_blas=platform.startswith("linux"),
                              dequantize_share=0.25)
    keep = quantized or stored_dtype in ("float16", "bfloat16")
    # CUDA (Linux) preloads the BLAS too: its CPU answers while the GPU compiles its kernels the first time
    # (first_compile.py), on the reference BLAS MLX's CUDA wheel links otherwise (~5x slower there).
    return DeviceDefaults(kind, None if keep else "bfloat16", preload_blas=kind == "cuda" and platform == "linux",
                          fixed_shapes=True)


def _installed_beside_mlx(name: str) -> bool:
    """Whether distribution `name` is installed next to the `mlx` package (its .dist-info folder is there).

    A folder listing instead of importlib.metadata, which costs ~20 ms of imports at every start."""
    spec = importlib.util.find_spec("mlx")
    if spec is None or not spec.submodule_search_locations:
        return False
    # mlx is a namespace package: a folder named mlx earlier on sys.path (a script's own folder) joins it
    return any(any(Path(location).parent.glob(f"{name.replace('-', '_')}-*.dist-info"))
               for location in spec.submodule_search_locations)


def _nvidia_gpu_present() -> bool:
    """An NVIDIA driver with at least one GPU (the driver lists each under /proc/driver/nvidia/gpus)."""
    gpus = Path("/proc/driver/nvidia/gpus")
    return gpus.is_dir() and any(gpus.iterdir())


def installed_backend() -> DeviceKind | None:
    """The device MLX will use, from the installed wheels, without importing MLX; None if Linux has no backend."""
    if sys.platform == "darwin":
        return "metal"
    if any(_installed_beside_mlx(name) for name in CUDA_WHEELS):
        return "cuda" if _nvidia_gpu_present() else "cpu"
    return "cpu" if _installed_beside_mlx(CPU_WHEEL) else None


# MLX's CUDA backend keeps the kernels it compiles at run time (fused elementwise kernels, indexing, quantized
# matmuls: NVRTC, seconds each) in the folder this variable names, else in /tmp/mlx/<version>/ptx, which a reboot
# or a tmp cleaner empties (mlx/backend/cuda/jit_module.cpp, ptx_cache_dir).
KERNEL_CACHE_ENV = "MLX_PTX_CACHE_DIR"


def mlx_version() -> str:
    """The installed mlx distribution's version, from its .dist-info folder name (no import)."""
    spec = importlib.util.find_spec("mlx")
    for location in (spec.submodule_search_locations or []) if spec else []:
        for info in Path(location).parent.glob("mlx-*.dist-info"):
            return info.name.removeprefix("mlx-").removesuffix(".dist-info")
    return "unknown"


def kernel_cache_dir() -> Path:
    """Where MLX's CUDA kernels are kept between runs: $MLX_PTX_CACHE_DIR if set, else a per-user cache folder
    ($XDG_CACHE_HOME or ~/.cache)/laya-lsp/mlx-kernels/<mlx version> (a new MLX compiles afresh)."""
    if os.environ.get(KERNEL_CACHE_ENV):
        return Path(os.environ[KERNEL_CACHE_ENV])
    base = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    return base / "laya-lsp" / "mlx-kernels" / mlx_version()


def kernel_cache_info() -> dict[str, Any]:
    """The kernel cache folder, how many kernels it holds and its size (doctor)."""
    path = kernel_cache_dir()
    files = [p for p in path.rglob("*.ptx")] if path.is_dir() else []
    return {"path": str(path), "from_env": bool(os.environ.get(KERNEL_CACHE_ENV)), "kernels": len(files),
            "mb": round(sum(p.stat().st_size for p in files) / 2**20, 1)}


def prepare_mlx() -> DeviceKind:
    """Call before anything imports MLX: stop with an install hint if Linux has no MLX backend, load the BLAS
    blas.py chooses where the device defaults want one, and point MLX's CUDA kernel cache at a per-user folder
    (kernel_cache_dir). Returns the device kind the installed backend gives."""
    kind = installed_backend()
    if kind is None:
        raise SystemExit("laya-lsp: MLX has no backend installed: pip install 'laya-lsp[cpu]' "
                         "(or 'laya-lsp[cuda]' on a machine with an NVIDIA GPU)")
    if kind == "cuda":
        os.environ[KERNEL_CACHE_ENV] = str(kernel_cache_dir())
    if device_defaults(kind).preload_blas:
        from .blas import load_fast_blas

        load_fast_blas()
    return kind


def use_device(where: Where) -> DeviceKind:
    """Make MLX's default device the CPU or the GPU for the work that follows (the engine calls it on its worker
    before a load, so the model, its caches and every step live there); returns the kind now in use. Asking for a
    GPU where MLX has none raises ValueError."""
    import mlx.core as mx

    if where == "gpu" and not (mx.cuda.is_available() or mx.metal.is_available()):
        raise ValueError("no GPU: MLX's installed backend runs on the CPU")
    mx.set_default_device(mx.gpu if where == "gpu" else mx.cpu)
    return mlx_device_kind()


def use_compile(on: bool) -> None:
    """Turn `mx.compile` on or off for the whole process (off: every compiled function runs eagerly, same results;
    first_compile.py turns it off while MLX's first compile runs elsewhere)."""
    import mlx.core as mx

    if on:
        mx.enable_compile()
    else:
        mx.disable_compile()


def mlx_device_kind() -> DeviceKind:
    """The kind of MLX's default device in this process (imports MLX)."""
    import mlx.core as mx

    if mx.default_device() != mx.gpu:
        return "cpu"
    return "cuda" if mx.cuda.is_available() else "metal"


def gpu_info() -> dict[str, Any] | None:
    """Name, memory and count of the GPU MLX sees, or None without one (imports MLX)."""
    import mlx.core as mx

    if not (mx.cuda.is_available() or mx.metal.is_available()):
        return None
    info = dict(mx.device_info(mx.gpu))
    memory = info.get("total_memory") or info.get("memory_size")
    return {"name": info.get("device_name") or info.get("architecture"), "count": mx.device_count(mx.gpu),
            "memory_gb": round(int(memory) / 2**30, 1) if memory else None,
            "backend": "cuda" if mx.cuda.is_available() else "metal"}

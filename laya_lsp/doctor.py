"""`laya-lsp doctor`: what this machine gives the model (platform, device, BLAS, threads, memory, model)."""

from __future__ import annotations

import argparse
import json
import os
import platform
import sys
import time
from typing import Any

from .blas import DEFAULT_PACKAGE, active_blas, blas_info, installed_libraries, sgemm_binding
from .config import Settings
from .device import gpu_info, installed_backend, kernel_cache_info, mlx_device_kind
from .exit_codes import EXIT_FAILED, EXIT_OK

# What a user may set to change the BLAS laya loads, its kernels or its threads.
BLAS_ENV = ("LAYA_BLAS_LIBRARY", "LAYA_NO_BLAS_PRELOAD", "OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE",
            "OPENBLAS_NUM_THREADS", "BLIS_NUM_THREADS", "OMP_NUM_THREADS", "MLX_NUM_THREADS")


def _matmul_ms(n: int = 512, reps: int = 5) -> float:
    import mlx.core as mx

    a = mx.random.normal((n, n))
    b = mx.random.normal((n, n))
    mx.eval(a @ b)
    t = time.perf_counter()
    for _ in range(reps):
        mx.eval(a @ b)
    return (time.perf_counter() - t) / reps * 1000


def collect(settings: Settings) -> dict[str, Any]:
    import mlx.core as mx
    import psutil

    vm = psutil.virtual_memory()
    info: dict[str, Any] = {
        "laya_lsp": __import__("laya_lsp").__version__,
        "python": sys.version.split()[0],
        "platform": f"{platform.system()} {platform.release()} {platform.machine()}",
        "cpu_count": os.cpu_count(),
        "mlx": getattr(mx, "__version__", "?"),
        "mlx_backend": installed_backend(),
        "mlx_device": str(mx.default_device()),
        "device_kind": mlx_device_kind(),
        "gpu": gpu_info(),
        # MLX's CUDA kernels compiled at run time are kept here between runs (device.kernel_cache_dir).
        "kernel_cache": kernel_cache_info() if installed_backend() == "cuda" else "- (no CUDA backend)",
        "blas": active_blas(),
        # The library, its version/config, the kernels it runs, its threads, and why laya chose it.
        "blas_detail": blas_info(),
        "blas_installed": [f"{lib.name} ({path})" for lib, path in installed_libraries()],
        # What the dynamic linker bound MLX's matmul to, in a fresh process started like the server.
        "mlx_sgemm_binds_to": sgemm_binding(),
        "blas_env": {k: os.environ[k] for k in BLAS_ENV if k in os.environ},
        "memory_total_gb": round(vm.total / 2**30, 1),
        "memory_available_gb": round(vm.available / 2**30, 1),
        "matmul_512_fp32_ms": round(_matmul_ms(), 2),
    }
    info["model"] = _model(settings.model or None, "(embedded default)", settings.allow_download)
    from .bootstrap import pause_spec

    spec, why = pause_spec(settings)  # the pause tier's model: which, or "off" / "none (...)"
    info["pause_model"] = _model(spec, "", settings.allow_download) if spec else {"spec": why}
    return info


def _model(spec: str | None, default: str, allow_download: bool) -> dict[str, Any]:
    """What the model `spec` resolves to (its config's shape, quantization, weights), or the error that says why
    it would not load."""
    from .engine import ModelLoadError, hub_snapshot, model_name, quantization_label, resolve_model

    try:
        path = resolve_model(spec, allow_download)
        cfg = json.loads((path / "config.json").read_text())
    except (ModelLoadError, OSError, ValueError) as exc:
        return {"spec": spec or default, "error": str(exc)}
    snapshot = hub_snapshot(path)
    return {
        "spec": spec or default,
        "name": model_name(spec, path, cfg),
        "path": str(path),
        # A Hugging Face cache entry: which repo and which snapshot (the revision refs/main points to).
        **({"repo": snapshot[0], "snapshot": snapshot[1]} if snapshot else {}),
        "model_type": cfg.get("model_type"),
        "hidden_size": cfg.get("hidden_size"),
        "layers": cfg.get("num_hidden_layers"),
        "vocab_size": cfg.get("vocab_size"),
        "quantization": quantization_label(cfg) if cfg.get("quantization") or cfg.get("quantization_config")
        else "none",
        "weights_mb": round(sum(p.stat().st_size for p in path.glob("*.safetensors")) / 2**20, 1),
    }


def run_doctor(args: argparse.Namespace, settings: Settings) -> int:
    info = collect(settings)
    if getattr(args, "warm_up", False):  # the first start too, its progress on stderr (first_start.py)
        from .first_start import warm_up

        info["warm_up"] = warm_up(settings, lambda line: print(line, file=sys.stderr, flush=True))
    # The model missing (or unreadable) is a failure (exit_codes.py: 1), so a script checking the set-up sees it.
    failed = "error" in info["model"] or "error" in info.get("warm_up", {})
    if args.json:
        print(json.dumps(info, indent=2))
        return EXIT_FAILED if failed else EXIT_OK
    width = max(len(k) for k in info)
    for key, value in info.items():
        if isinstance(value, dict):
            value = ", ".join(f"{k}={v}" for k, v in value.items()) or "-"
        print(f"{key.ljust(width)}  {value}")
    if info["device_kind"] == "cpu" and "reference BLAS" in info["blas"]:
        print(f"\nwarning: MLX is using the slow reference BLAS; install BLIS "
              f"(Debian/Ubuntu: apt-get install {DEFAULT_PACKAGE}) for much faster CPU inference")
    if failed:
        print(f"\nerror: no usable model: {info['model'].get('error') or info['warm_up'].get('error')}",
              file=sys.stderr)
    return EXIT_FAILED if failed else EXIT_OK

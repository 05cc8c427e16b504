"""Per-device defaults (laya_lsp/device.py): the choice logic for every device kind, checked on CPU."""

from __future__ import annotations

import os

import pytest

from laya_lsp.device import DEVICE_KINDS, device_defaults, installed_backend, mlx_device_kind

# (kind, quantized, stored dtype, platform) -> (weights cast to, a fast BLAS preloaded: on Linux CPUs, and with
# CUDA, whose CPU answers while the GPU compiles its kernels the first time, first_compile.py)
CASES = [
    ("cpu", False, "bfloat16", "linux", "float32", True),
    ("cpu", False, "float32", "linux", "float32", True),
    ("cpu", True, "float16", "linux", "float32", True),
    ("cpu", False, "float16", "darwin", "float32", False),
    ("cuda", False, "float32", "linux", "bfloat16", True),
    ("cuda", False, "bfloat16", "linux", None, True),
    ("cuda", False, "float16", "linux", None, True),
    ("cuda", True, "bfloat16", "linux", None, True),
    ("metal", False, "float32", "darwin", "bfloat16", False),
    ("metal", True, "float16", "darwin", None, False),
    ("metal", False, "bfloat16", "darwin", None, False),
]


@pytest.mark.parametrize(("kind", "quantized", "stored", "platform", "dtype", "preload"), CASES)
def test_defaults_per_device(kind: str, quantized: bool, stored: str, platform: str, dtype: str | None,
                             preload: bool):
    got = device_defaults(kind, quantized=quantized, stored_dtype=stored, platform=platform)  # type: ignore[arg-type]
    assert (got.kind, got.dtype, got.preload_blas) == (kind, dtype, preload)
    # a GPU stalls on each new step shape; the CPU pays only a trace (issue 26)
    assert got.fixed_shapes == (kind != "cpu")


def test_every_device_kind_is_covered_and_unknown_kinds_are_refused():
    assert {case[0] for case in CASES} == set(DEVICE_KINDS)
    with pytest.raises(ValueError, match="unknown device kind"):
        device_defaults("tpu")  # type: ignore[arg-type]


def test_the_installed_backend_matches_what_mlx_runs_on():
    """Read from the installed wheels without importing MLX, it must agree with MLX itself."""
    assert installed_backend() == mlx_device_kind()


def test_a_folder_named_mlx_before_site_packages_does_not_hide_the_backend(tmp_path, monkeypatch: pytest.MonkeyPatch):
    """A script run from a folder that holds an `mlx` folder (sys.path[0]) still finds the installed backend."""
    expected = installed_backend()
    (tmp_path / "mlx").mkdir()
    monkeypatch.syspath_prepend(str(tmp_path))
    assert installed_backend() == expected is not None


def test_linux_without_an_mlx_backend_stops_with_the_install_hint(monkeypatch: pytest.MonkeyPatch):
    from laya_lsp import device

    monkeypatch.setattr(device, "installed_backend", lambda: None)
    with pytest.raises(SystemExit, match=r"laya-lsp\[cpu\].*laya-lsp\[cuda\]"):
        device.prepare_mlx()


def test_the_kernel_cache_is_a_per_user_folder_unless_mlx_is_told_otherwise(tmp_path, monkeypatch: pytest.MonkeyPatch):
    """MLX's CUDA kernels are kept under the user's cache folder, per MLX version; MLX's own variable wins."""
    from laya_lsp import device

    monkeypatch.delenv(device.KERNEL_CACHE_ENV, raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    path = device.kernel_cache_dir()
    assert path.parent == tmp_path / "laya-lsp" / "mlx-kernels" and path.name[:1].isdigit(), path
    monkeypatch.setattr(device, "installed_backend", lambda: "cuda")
    device.prepare_mlx()
    assert os.environ[device.KERNEL_CACHE_ENV] == str(path)
    (path / "sub").mkdir(parents=True)
    (path / "sub" / "k.ptx").write_bytes(b"x" * 2048)
    info = device.kernel_cache_info()
    assert (info["path"], info["kernels"], info["from_env"]) == (str(path), 1, True)
    monkeypatch.setenv(device.KERNEL_CACHE_ENV, str(tmp_path / "mine"))
    assert device.kernel_cache_dir() == tmp_path / "mine"


def test_quantized_weights_are_dequantized_on_a_cpu_only():
    """MLX's quantized CPU kernels are slower than fp32 BLAS (docs/benchmarks.md, "The vocabulary's cost")."""
    assert device_defaults("cpu", quantized=True).dequantize_share == 0.25
    assert device_defaults("cuda", quantized=True).dequantize_share == 0.0
    assert device_defaults("metal", quantized=True).dequantize_share == 0.0

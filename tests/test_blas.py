"""Which BLAS laya loads for MLX's Linux CPU backend, and that MLX's matrix products then run on it, correctly.

The choice (`choose_blas`) is checked as a pure function: preference order, LAYA_BLAS_LIBRARY by name or path,
LAYA_NO_BLAS_PRELOAD, OpenBLAS's coretype from the CPU's flags, and the user's own OpenBLAS settings left alone.
The routing is checked as the dynamic linker reports it (LD_DEBUG=bindings) in fresh processes that start as
laya-lsp does. `make test` installs BLIS and OpenBLAS (Makefile: system-deps), so their absence is a failure that
says what to install.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from laya_lsp.blas import (
    LIBRARIES,
    LIBRARY_ENV,
    OPT_OUT_ENV,
    BlasChoiceError,
    BlasLibrary,
    choose_blas,
    cpu_flags,
    installed_libraries,
    openblas_coretype,
    sgemm_binding,
)
from laya_lsp.device import device_defaults, installed_backend

LINUX_CPU = sys.platform == "linux" and installed_backend() == "cpu"
linux_cpu = pytest.mark.skipif(not LINUX_CPU, reason="BLAS routing concerns MLX's Linux CPU backend")
ROOT = Path(__file__).resolve().parent.parent
BY_NAME = {lib.name: lib for lib in LIBRARIES}
AVX512 = frozenset({"avx2", "fma", "avx512f", "avx512cd", "avx512bw", "avx512dq", "avx512vl"})
AVX2 = frozenset({"avx2", "fma", "sse4_2"})


def fake(*names: str) -> list[tuple[BlasLibrary, str]]:
    """An `installed_libraries()` answer listing `names` (in LIBRARIES order, as the real one does)."""
    return [(lib, f"/fake/{lib.name}.so") for lib in LIBRARIES if lib.name in names]


# -- the choice, as a pure function -----------------------------------------------------------------------------

def test_blis_is_preferred_when_both_blis_and_openblas_are_installed():
    choice = choose_blas({}, fake("openblas-pthread", "blis-pthread", "openblas"), AVX512)
    assert (choice.name, choice.family, choice.path, choice.settings) == (
        "blis-pthread", "blis", "/fake/blis-pthread.so", {})


def test_the_pthread_builds_come_before_the_openmp_ones_and_the_unflavoured_ones():
    order = [lib.name for lib in LIBRARIES]
    assert order.index("blis-pthread") < order.index("blis-openmp") < order.index("blis") < order.index(
        "openblas-pthread") < order.index("openblas-openmp") < order.index("openblas")
    assert choose_blas({}, fake("openblas", "openblas-openmp"), AVX2).name == "openblas-openmp"


def test_openblas_alone_gets_the_coretype_the_cpu_flags_allow():
    assert choose_blas({}, fake("openblas-pthread"), AVX512).settings == {"OPENBLAS_CORETYPE": "SkylakeX"}
    assert choose_blas({}, fake("openblas-pthread"), AVX2).settings == {"OPENBLAS_CORETYPE": "Haswell"}
    assert choose_blas({}, fake("openblas-pthread"), frozenset({"sse4_2"})).settings == {}


@pytest.mark.parametrize("user_setting", [{"OPENBLAS_CORETYPE": "Zen"}, {"OPENBLAS_L2_SIZE": "2097152"}])
def test_the_users_own_openblas_settings_are_never_overridden(user_setting: dict[str, str]):
    assert choose_blas(user_setting, fake("openblas-pthread"), AVX512).settings == {}
    named = choose_blas({**user_setting, LIBRARY_ENV: "openblas-pthread"}, fake("openblas-pthread"), AVX512)
    assert named.settings == {}


def test_opting_out_or_having_nothing_installed_loads_nothing():
    assert choose_blas({OPT_OUT_ENV: "1"}, fake("blis-pthread"), AVX512) is None
    assert choose_blas({OPT_OUT_ENV: "1", LIBRARY_ENV: "blis-pthread"}, fake("blis-pthread"), AVX512) is None
    assert choose_blas({}, [], AVX512) is None


def test_a_library_named_in_laya_blas_library_wins_over_the_preference_order():
    choice = choose_blas({LIBRARY_ENV: "openblas-pthread"}, fake("blis-pthread", "openblas-pthread"), AVX512)
    assert (choice.name, choice.settings) == ("openblas-pthread", {"OPENBLAS_CORETYPE": "SkylakeX"})
    assert LIBRARY_ENV in choice.reason


def test_a_path_in_laya_blas_library_is_loaded_as_it_is(tmp_path: Path):
    lib = tmp_path / "libopenblas.so.0"
    lib.write_bytes(b"")
    choice = choose_blas({LIBRARY_ENV: str(lib)}, fake("blis-pthread"), AVX512)
    assert (choice.path, choice.name, choice.family, choice.settings) == (str(lib), "custom", "openblas", {})


def test_laya_blas_library_naming_nothing_installed_is_a_clear_error():
    with pytest.raises(BlasChoiceError, match="blis-openmp: not installed.*libblis4-openmp"):
        choose_blas({LIBRARY_ENV: "blis-openmp"}, fake("blis-pthread"), AVX512)
    with pytest.raises(BlasChoiceError, match="no such library; give a path or one of blis-pthread"):
        choose_blas({LIBRARY_ENV: "/no/such/libblas.so"}, fake("blis-pthread"), AVX512)


def test_coretypes_need_every_flag_their_kernels_use():
    assert openblas_coretype(AVX512) == "SkylakeX"
    assert openblas_coretype(AVX512 - {"avx512bw"}) == "Haswell"
    assert openblas_coretype(AVX2 - {"fma"}) is None


# -- on this machine: what is installed, what MLX binds to, and that it computes correctly ----------------------

@linux_cpu
def test_make_installs_blis_and_openblas_and_laya_prefers_blis():
    names = [lib.name for lib, _ in installed_libraries()]
    assert "blis-pthread" in names, "BLIS is not installed: apt-get install libblis4-pthread (make system-deps)"
    assert "openblas-pthread" in names, "OpenBLAS is not installed: apt-get install libopenblas0-pthread"
    env = {k: v for k, v in os.environ.items() if k not in (LIBRARY_ENV, OPT_OUT_ENV)}
    assert choose_blas(env, installed_libraries(), cpu_flags()).name == "blis-pthread"


@linux_cpu
def test_libraries_outside_the_known_paths_are_found_through_the_linker_cache():
    """With no Debian multiarch folder for this `arch`, the libraries come from `ldconfig -p`, in laya's order."""
    found = [lib.family for lib, _ in installed_libraries(arch="no-such-arch")]
    assert found[:2] == ["blis", "openblas"]


def _env(**overrides: str) -> dict[str, str]:
    keep = {k: v for k, v in os.environ.items()
            if k not in (LIBRARY_ENV, OPT_OUT_ENV, "LD_PRELOAD", "OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE")}
    return {**keep, **overrides}


@linux_cpu
def test_mlx_sgemm_binds_to_the_library_laya_chooses():
    assert device_defaults("cpu").preload_blas
    chosen = choose_blas(_env(), installed_libraries(), cpu_flags())
    assert chosen is not None
    bound = sgemm_binding(preload=True, env=_env())
    assert bound == os.path.realpath(chosen.path), f"cblas_sgemm bound to {bound}, laya chose {chosen.path}"


@linux_cpu
def test_without_the_preload_mlx_keeps_its_bundled_blas():
    """The control: the probe does see MLX's own reference BLAS when laya loads nothing."""
    bound = sgemm_binding(preload=False, env=_env())
    assert bound is not None and all(lib.soname.split(".")[0] not in bound for lib in LIBRARIES)


PRODUCT = """
import json
from laya_lsp.blas import blas_info, loaded_blas
from laya_lsp.device import prepare_mlx
prepare_mlx()
import mlx.core as mx
import numpy as np
rng, err = np.random.default_rng(0), 0.0
for m, n, k in ((1, 8192, 384), (5, 1153, 385), (2, 1024, 384), (129, 384, 1025)):
    x, w = rng.standard_normal((m, k), dtype=np.float32), rng.standard_normal((n, k), dtype=np.float32)
    want = x.astype(np.float64) @ w.astype(np.float64).T
    err = max(err, float(np.abs(np.array(mx.array(x) @ mx.array(w).T) - want).max() / np.abs(want).max()))
print(json.dumps({"error": err, "kernel": blas_info().get("kernel"), "chosen": getattr(loaded_blas(), "name", None)}))
"""


def _product(env: dict[str, str]) -> tuple[dict, str]:
    out = subprocess.run([sys.executable, "-c", PRODUCT], env=env, capture_output=True, text=True, timeout=120,
                         check=True, cwd=ROOT)
    return json.loads(out.stdout.strip().splitlines()[-1]), out.stderr


@linux_cpu
@pytest.mark.parametrize("name", ["blis-pthread", "openblas-pthread"])
def test_each_library_laya_may_load_computes_the_decode_products_correctly(name: str):
    """Against float64: a misdetected or wrongly forced kernel gives errors near 1; fp32 rounding stays ~1e-6.
    OpenBLAS runs with the coretype laya sets from this CPU's flags: the forced kernels are proven here."""
    got, _ = _product(_env(**{LIBRARY_ENV: name}))
    assert got["chosen"] == name
    if BY_NAME[name].family == "openblas":
        assert got["kernel"] == (openblas_coretype(cpu_flags()) or got["kernel"])
    assert got["error"] < 1e-5


@linux_cpu
def test_a_users_openblas_coretype_is_the_one_openblas_runs():
    got, _ = _product(_env(**{LIBRARY_ENV: "openblas-pthread", "OPENBLAS_CORETYPE": "Prescott"}))
    assert (got["chosen"], got["kernel"]) == ("openblas-pthread", "Prescott")
    assert got["error"] < 1e-5


@linux_cpu
def test_a_bad_laya_blas_library_is_reported_and_the_default_is_loaded():
    got, stderr = _product(_env(**{LIBRARY_ENV: "no-such-blas"}))
    assert "LAYA_BLAS_LIBRARY=no-such-blas: no such library" in stderr
    assert got["chosen"] == choose_blas(_env(), installed_libraries(), cpu_flags()).name


def test_the_cli_starts_once():
    """No re-exec: the process that runs `laya-lsp` is the one that answers (its pid is the child's pid)."""
    probe = ("import os, sys; sys.argv = ['laya-lsp', '--version']; from laya_lsp.cli import main\n"
             "print(os.getpid(), flush=True)\ntry:\n    main()\nexcept SystemExit:\n    print(os.getpid())")
    proc = subprocess.Popen([sys.executable, "-c", probe], stdout=subprocess.PIPE, text=True)
    out, _ = proc.communicate(timeout=120)
    pids = [line for line in out.split() if line.isdigit()]
    assert pids == [str(proc.pid), str(proc.pid)]

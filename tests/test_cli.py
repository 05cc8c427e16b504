"""The command line: help, doctor (device, BLAS routing, model), warm-up and complete."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import TINY_MODEL

ROOT = Path(__file__).resolve().parent.parent
LAYA = [sys.executable, "-m", "laya_lsp"]


def run(*args: str, check: bool = True, env: dict | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([*LAYA, *args], capture_output=True, text=True, timeout=120, check=check, env=env)


def test_help_documents_every_command_and_option():
    top = run("--help").stdout
    for cmd in ("serve", "complete", "doctor", "warm-up"):
        assert cmd in top
    serve = run("serve", "--help").stdout
    for opt in ("--tcp", "--host", "--port", "--allow-remote", "--model", "--allow-download", "--settings"):
        assert opt in serve
    assert "--inline" in run("complete", "--help").stdout


def test_doctor_reports_blas_device_and_model():
    info = json.loads(run("doctor", "--json", "--model", str(TINY_MODEL)).stdout)
    assert info["mlx_device"].startswith("Device(")
    assert info["model"]["path"] == str(TINY_MODEL)
    assert info["blas"]
    assert info["device_kind"] in ("cpu", "cuda", "metal") and info["mlx_backend"] == info["device_kind"]
    assert (info["gpu"] is None) == (info["device_kind"] == "cpu")
    if sys.platform == "linux" and info["device_kind"] == "cpu" and info["blas_installed"]:
        detail = info["blas_detail"]
        assert detail["chosen"] and detail["config"] and detail["kernel"], (
            "doctor names the BLAS, its build and kernels"
        )
        assert info["mlx_sgemm_binds_to"] == os.path.realpath(detail["library"]), \
            "MLX's matmul must bind to the BLAS laya loaded"


def test_doctor_names_a_missing_model():
    done = run("doctor", "--json", "--model", "/nonexistent/model", check=False)
    assert done.returncode == 1  # ran and found the model missing (exit_codes.FAILED)
    assert "does not exist" in json.loads(done.stdout)["model"]["error"]


def test_warm_up_compiles_every_step_shape_with_progress_then_runs_first_requests():
    """With fixed shapes (the GPU's way: where kernels compile) every row count is warmed and reported as it goes;
    then a completion, a decision and a structured value run, as a server's first requests would."""
    done = run("warm-up", "--json", "--model", str(TINY_MODEL), "--settings", '{"fixedShapes": "on"}')
    info = json.loads(done.stdout)
    assert info["model"].startswith("laya-test-tiny") and "error" not in info
    assert set(info["first_requests_ms"]) == {"completion", "decision", "structured"}
    progress = done.stderr.splitlines()
    rows = [line for line in progress if "warmed up: steps of" in line]
    assert len(rows) > 3, done.stderr  # one line per row count, as each is compiled
    assert progress.index(rows[-1]) < next(i for i, line in enumerate(progress) if "] ready" in line)


def test_warm_up_of_a_missing_model_says_why_and_fails():
    failed = run("warm-up", "--json", "--model", "/nonexistent/model", check=False)
    assert failed.returncode == 1 and "does not exist" in json.loads(failed.stdout)["error"]


def test_doctor_can_warm_up_too():
    info = json.loads(run("doctor", "--json", "--warm-up", "--model", str(TINY_MODEL)).stdout)
    assert info["model"]["name"].startswith("laya-test-tiny") and info["warm_up"]["first_requests_ms"]["decision"] > 0


def test_complete_prints_candidates_and_timings(tmp_path: Path):
    src = tmp_path / "a.py"
    src.write_text("def add(a, b):\n    return a + b\n# add two numbers and\n")
    out = run("complete", f"{src}:3:22", "--model", str(TINY_MODEL), "--repeat", "2", "--json",
              "--settings", '{"postprocess": false}').stdout
    data = json.loads(out)
    runs = data["runs"]
    assert len(runs) == 2 and runs[0]["candidates"]
    assert runs[1]["stats"]["reused_tokens"] == runs[1]["stats"]["prompt_tokens"] - 1
    for key in ("queue_ms", "prefill_ms", "decode_ms", "total_ms", "prompt_tokens", "decode_tokens"):
        assert key in runs[0]["stats"]


def test_complete_rejects_positions_outside_the_file(tmp_path: Path):
    src = tmp_path / "b.py"
    src.write_text("x = 1\n")
    res = run("complete", f"{src}:9:1", "--model", str(TINY_MODEL), check=False)
    assert res.returncode == 2 and "is outside the text" in res.stderr  # bad usage (laya_lsp/exit_codes.py)


def test_complete_counts_lines_as_lsp_does(tmp_path: Path):
    """A form feed does not end a line (LSP's rules, as the editors send them); a lone \r does."""
    src = tmp_path / "c.py"
    src.write_text("x = 1\f y = 2\rz = ", newline="")
    ok = run("complete", f"{src}:1:9", "--model", str(TINY_MODEL), check=False)  # the "y" after the form feed
    assert ok.returncode == 0, ok.stderr
    bad = run("complete", f"{src}:1:14", "--model", str(TINY_MODEL), check=False)
    assert bad.returncode == 2 and "column 14 is outside line 1 (1..13)" in bad.stderr
    assert run("complete", f"{src}:3:1", "--model", str(TINY_MODEL), check=False).returncode == 2


def test_one_exit_code_convention(tmp_path: Path):
    """0 success, 1 the command ran and failed (no model), 2 bad usage, for every command; --help says so."""
    assert "exit codes: 0 success; 1 the command ran and failed" in " ".join(run("--help").stdout.split())
    src = tmp_path / "d.py"
    src.write_text("x = 1\n")
    missing = ("--model", "/nonexistent/model")
    assert run("complete", f"{tmp_path}/none.py:1:1", check=False).returncode == 2  # unreadable file
    assert run("complete", "no-position", check=False).returncode == 2
    assert run("complete", f"{src}:1:1", "--settings", '{"candidatez": 3}', check=False).returncode == 2
    failed = run("complete", f"{src}:1:1", *missing, check=False)
    assert failed.returncode == 1 and "does not exist" in failed.stderr
    doctor = run("doctor", *missing, check=False)
    assert doctor.returncode == 1 and "no usable model" in doctor.stderr
    as_json = run("doctor", "--json", *missing, check=False)
    assert as_json.returncode == 1 and "does not exist" in json.loads(as_json.stdout)["model"]["error"]


@pytest.mark.skipif(sys.platform != "linux", reason="the preload is Linux-only")
def test_serve_refuses_remote_host_without_flag():
    res = run("serve", "--tcp", "--host", "0.0.0.0", "--port", "0", check=False)
    assert res.returncode == 2 and "--allow-remote" in res.stderr


def test_every_command_honours_laya_model_and_model_beats_it(tmp_path: Path):
    """`LAYA_MODEL` picks the model when no `--model` is given, for `doctor` and `complete` as for the servers;
    `--model` wins over it (bootstrap.resolve_settings)."""
    env = {**os.environ, "LAYA_MODEL": str(TINY_MODEL)}
    assert json.loads(run("doctor", "--json", env=env).stdout)["model"]["path"] == str(TINY_MODEL)
    src = tmp_path / "c.py"
    src.write_text("def add(a, b):\n    return a + b\n")
    raw = '{"postprocess": false, "triggerRules": false}'
    out = json.loads(run("complete", f"{src}:2:11", "--json", "--settings", raw, env=env).stdout)
    assert out["model"]["path"] == str(TINY_MODEL) and out["runs"][0]["candidates"]
    missing = {**os.environ, "LAYA_MODEL": "/nonexistent/model"}
    absent = run("doctor", "--json", env=missing, check=False)
    assert absent.returncode == 1 and "does not exist" in json.loads(absent.stdout)["model"]["error"]
    picked = json.loads(run("doctor", "--json", "--model", str(TINY_MODEL), env=missing).stdout)
    assert picked["model"]["path"] == str(TINY_MODEL)

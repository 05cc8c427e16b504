"""The VS Code extension (editors/vscode): its settings mirror laya_lsp/config.py, it type-checks, bundles, its
activation tests pass under node's test runner with the `vscode` module stubbed, and in the real workbench
(code-server + headless Chromium, editors/vscode/e2e, also `make test-editors`) a completion of the embedded model
is accepted into a file.
"""

from __future__ import annotations

import re
import subprocess
import sys

import pytest
from editors.harness import ROOT, ensure_test_deps

VSCODE = ROOT / "editors" / "vscode"

sys.path.insert(0, str(VSCODE / "scripts"))
import sync_settings

pytestmark = pytest.mark.skipif(
    sys.platform != "linux", reason="editor tests install their tools on Linux only"
)


def test_contributed_settings_mirror_server_config() -> None:
    """Every server setting appears in VS Code's settings UI with the server's default and limits."""
    assert sync_settings.main(["--check"]) == 0, "run: python editors/vscode/scripts/sync_settings.py"


@pytest.fixture(scope="module")
def node_modules() -> None:
    ensure_test_deps()  # node, npm, and `npm ci` from editors/vscode/package-lock.json
    subprocess.run(["bash", str(VSCODE / "scripts" / "npm-ci.sh"), str(VSCODE)], check=True, timeout=600)


def _npm(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["npm", *args], cwd=VSCODE, capture_output=True, text=True, timeout=180, check=False
    )


def test_extension_typechecks(node_modules: None) -> None:
    r = _npm("run", "--silent", "typecheck")
    assert r.returncode == 0, r.stdout + r.stderr


def test_activation_with_stubbed_vscode(node_modules: None) -> None:
    r = _npm("test")
    out = r.stdout + r.stderr
    assert r.returncode == 0, out
    passed = re.search(r"^# pass (\d+)$", out, re.MULTILINE)
    failed = re.search(r"^# fail (\d+)$", out, re.MULTILINE)
    assert passed and failed and int(failed[1]) == 0 and int(passed[1]) >= 8, out


def test_workbench_accepts_a_laya_completion_end_to_end(node_modules: None) -> None:
    """editors/vscode/e2e/run.sh: installs Chromium, ripgrep and code-server once, then drives the workbench.
    Screenshots: tests/artifacts/vscode-e2e-*.png. Its second case proves the check fails with a dead server."""
    r = subprocess.run(["bash", str(VSCODE / "e2e" / "run.sh"), sys.executable], cwd=ROOT, capture_output=True,
                       text=True, timeout=900, check=False)
    out = r.stdout + r.stderr
    assert r.returncode == 0, out[-6000:]
    assert re.search(r"^# pass 2$", out, re.MULTILINE) and re.search(r"^# fail 0$", out, re.MULTILINE), out[-6000:]

#!/usr/bin/env bash
# make test-editors: package the extension, install it into code-server, drive the workbench with headless Chromium.
# Screenshots land in tests/artifacts/vscode-e2e-*.png. Usage: editors/vscode/e2e/run.sh [PYTHON]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../.." && pwd)
python=${1:-${LAYA_PYTHON:-$root/.venv/bin/python}}
# Absolute, without resolving the venv's symlink: package.sh and the driver run from other directories.
[[ "$python" = /* ]] || python="$PWD/$python"
export LAYA_PYTHON=$python
bash "$here/setup.sh"
cd "$here"
node --test --test-concurrency=1 e2e.test.js

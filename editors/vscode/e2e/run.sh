#!/usr/bin/env bash
# make test-editors: package the extension, install it into code-server, drive the workbench with headless Chromium.
# Screenshots land in tests/artifacts/vscode-e2e-*.png. Usage: editors/vscode/e2e/run.sh [PYTHON]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../.." && pwd)
export LAYA_PYTHON=${1:-${LAYA_PYTHON:-$root/.venv/bin/python}}
bash "$here/setup.sh"
cd "$here"
node --test --test-concurrency=1 e2e.test.js

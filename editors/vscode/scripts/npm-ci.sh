#!/usr/bin/env bash
# `npm ci` in DIR only when its package-lock.json changed since the last install (a stamp in node_modules).
# Usage: npm-ci.sh DIR [extra npm ci args...]
set -euo pipefail
dir=$1; shift
cd "$dir"
sum=$(sha1sum package-lock.json | cut -d' ' -f1)
stamp=node_modules/.laya-lock-sha1
if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$sum" ]; then
  exit 0
fi
echo "npm ci in $(pwd)"
npm ci --no-audit --no-fund --loglevel=error "$@"
echo "$sum" > "$stamp"

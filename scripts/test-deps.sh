#!/usr/bin/env bash
# Installs what the tests need on a clean machine: Debian chromium (browser
# tests), brotli (size), and the npm peers from the committed lockfile.
set -euo pipefail
cd "$(dirname "$0")/.."
need=()
command -v chromium >/dev/null || need+=(chromium)
command -v brotli >/dev/null || need+=(brotli)
if [ ${#need[@]} -gt 0 ]; then
  echo "test-deps: apt-get install ${need[*]}"
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
fi
if [ -f e2e/package-lock.json ]; then
  if [ ! -d e2e/node_modules ] || [ e2e/package-lock.json -nt e2e/node_modules/.package-lock.json ]; then
    echo "test-deps: npm ci (e2e)"
    (cd e2e && npm ci --no-audit --no-fund --loglevel=error)
  fi
fi

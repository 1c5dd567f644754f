#!/usr/bin/env bash
# Installs what the tests need on a clean machine: Debian chromium (browser
# tests), brotli (size), nginx and openssl (e2e/nginx.test.mjs: a real reverse
# proxy with a throwaway certificate), and the npm peers from the committed
# lockfile.
set -euo pipefail
cd "$(dirname "$0")/.."
need=()
command -v chromium >/dev/null || need+=(chromium)
command -v brotli >/dev/null || need+=(brotli)
# /usr/sbin may be off a non-root PATH; the test looks there too.
command -v nginx >/dev/null || [ -x /usr/sbin/nginx ] || need+=(nginx)
command -v openssl >/dev/null || need+=(openssl)
if [ ${#need[@]} -gt 0 ]; then
  echo "test-deps: apt-get install ${need[*]}"
  apt-get update -qq
  # The nginx package starts a system nginx on port 80 unless policy-rc.d
  # says no; the test runs its own, so forbid starting services meanwhile.
  policy=""
  if [ ! -e /usr/sbin/policy-rc.d ]; then
    policy=/usr/sbin/policy-rc.d
    printf '#!/bin/sh\nexit 101\n' >"$policy" && chmod +x "$policy"
  fi
  status=0
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null || status=$?
  [ -z "$policy" ] || rm -f "$policy"
  [ "$status" -eq 0 ] || exit "$status"
fi
if [ -f e2e/package-lock.json ]; then
  if [ ! -d e2e/node_modules ] || [ e2e/package-lock.json -nt e2e/node_modules/.package-lock.json ]; then
    echo "test-deps: npm ci (e2e)"
    (cd e2e && npm ci --no-audit --no-fund --loglevel=error)
  fi
fi

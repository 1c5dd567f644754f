#!/usr/bin/env bash
# Prints raw, gzip and brotli bytes of web/mcphost.wasm and web/mcphost.js and
# the largest contributing packages (function-body bytes of an unstripped
# build, attributed by bench/wasmsize from the module's name section). With
# --check, prints only the sizes and fails when mcphost.wasm's brotli bytes
# exceed the budget in size-budget.txt (which only ever goes down).
set -euo pipefail
cd "$(dirname "$0")/.."
check=0; [ "${1:-}" = "--check" ] && check=1
command -v brotli >/dev/null || { echo "size: installing brotli"; (apt-get update -qq && apt-get install -y -qq brotli) >/dev/null; }
# brotli bytes at quality 11, from the copy `make wasm` left beside the file
# for these bytes (scripts/brotli-copy.sh) when there is one: ~10 s saved.
br() { # file
  local copy; copy="$1.$(sha256sum "$1" | cut -c1-24).br"
  if [ -s "$copy" ]; then stat -c %s "$copy"; else brotli -c -q 11 "$1" | wc -c; fi
}
row() { # file
  local f=$1; [ -f "$f" ] || { printf '%-22s (missing)\n' "$f"; return; }
  printf '%-22s raw %9d  gzip %9d  brotli %9d\n' "$f" "$(stat -c %s "$f")" "$(gzip -9c "$f" | wc -c)" "$(br "$f")"
}
row web/mcphost.wasm
row web/mcphost.js
if [ -f web/mcphost.wasm ] && [ $check = 0 ]; then
  echo "largest packages (raw code bytes, from an unstripped build of ./wasm; brotli is ~1/5 of raw):"
  tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
  # The Makefile's gcflags, so the attribution matches the module.
  gcflags=$(make -s --no-print-directory print-wasm-gcflags)
  GOOS=js GOARCH=wasm go build -trimpath $gcflags -o "$tmp/m.wasm" ./wasm
  GOOS=js GOARCH=wasm go list -deps ./wasm > "$tmp/deps.txt"
  (cd bench && go run ./wasmsize -top 20 -deps "$tmp/deps.txt" "$tmp/m.wasm") # bench/ is a module of its own
fi
if [ $check = 1 ]; then
  [ -f size-budget.txt ] || { echo "FAIL: size-budget.txt is missing"; exit 1; }
  [ -f web/mcphost.wasm ] || { echo "FAIL: web/mcphost.wasm is missing (make wasm)"; exit 1; }
  budget=$(grep -o '^[0-9]*' size-budget.txt | head -1)
  actual=$(br web/mcphost.wasm)
  if [ "$actual" -gt "$budget" ]; then echo "FAIL: mcphost.wasm is $actual brotli bytes, over the budget of $budget (size-budget.txt)"; exit 1; fi
  echo "size budget: ok ($actual <= $budget brotli bytes)"
fi

#!/usr/bin/env bash
# Prints raw, gzip and brotli bytes of web/mcphost.wasm and web/mcphost.js, the
# largest contributing packages, and (with --check) fails above the budget in
# size-budget.txt (brotli bytes of mcphost.wasm; the budget only ever goes down).
set -euo pipefail
cd "$(dirname "$0")/.."
check=0; [ "${1:-}" = "--check" ] && check=1
command -v brotli >/dev/null || { echo "size: installing brotli"; (apt-get update -qq && apt-get install -y -qq brotli) >/dev/null; }
row() { # file
  local f=$1; [ -f "$f" ] || { printf '%-22s (missing)\n' "$f"; return; }
  printf '%-22s raw %9d  gzip %9d  brotli %9d\n' "$f" "$(stat -c %s "$f")" "$(gzip -9c "$f" | wc -c)" "$(brotli -c -q 11 "$f" | wc -c)"
}
row web/mcphost.wasm
row web/mcphost.js
if [ -f web/mcphost.wasm ] && [ $check = 0 ]; then
  echo "largest packages (symbol bytes, from an unstripped build):"
  tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
  GOOS=js GOARCH=wasm go build -trimpath -o "$tmp/m.wasm" ./wasm
  go tool nm -size -sort size "$tmp/m.wasm" 2>/dev/null | awk '{sz=$2; name=$4; sub(/\.[^.\/]*$/,"",name); if (name ~ /^(go:|type:|runtime\.)/) {split(name,a,"."); name=a[1]} pkg[name]+=sz} END {for (p in pkg) printf "%10d  %s\n", pkg[p], p}' | sort -rn | head -15
fi
if [ $check = 1 ] && [ -f size-budget.txt ]; then
  budget=$(grep -o '^[0-9]*' size-budget.txt | head -1)
  actual=$(brotli -c -q 11 web/mcphost.wasm | wc -c)
  if [ "$actual" -gt "$budget" ]; then echo "FAIL: mcphost.wasm is $actual brotli bytes, over the budget of $budget (size-budget.txt)"; exit 1; fi
  echo "size budget: ok ($actual <= $budget brotli bytes)"
fi

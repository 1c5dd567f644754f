#!/usr/bin/env bash
# brotli-copy.sh FILE: writes FILE's brotli encoding (quality 11) beside it as
# FILE.<hex of the first 12 bytes of its SHA-256>.br, which the mcphost binary
# embeds and serves to clients that accept br (cmd/mcphost/web.go, brotliName),
# and removes copies made for earlier bytes. Skipped (quickly) when the copy
# for these bytes exists already; without the brotli command the binary serves
# gzip only, and this says so.
set -euo pipefail
f=$1
sum=$(sha256sum "$f" | cut -c1-24)
out="$f.$sum.br"
rm -f "$f".*.br.tmp
for old in "$f".*.br; do
  [ -e "$old" ] && [ "$old" != "$out" ] && rm -f "$old"
done
[ -s "$out" ] && exit 0
if ! command -v brotli >/dev/null; then
  echo "brotli-copy: no brotli command: mcphost will serve $f gzip-compressed only (apt-get install brotli)"
  exit 0
fi
brotli -q 11 -c "$f" > "$out.tmp"
mv "$out.tmp" "$out"
echo "brotli-copy: $out ($(stat -c %s "$out") bytes)"

#!/usr/bin/env bash
# The side-by-side browser bench (issues 8 and 18): mcphost ÷ the JavaScript
# stack ÷ the wire's floor in headless Debian Chromium, against one scripted
# MCP WebSocket peer on loopback, in interleaved rounds. Called by `make bench`
# after the Go benchmarks (it expects `make build` to have produced
# web/mcphost.wasm and web/wasm_exec.js). Arguments go to bench/run.mjs
# (--rounds N, --quick, sample sizes: see docs/bench.md). Prints the target
# table and writes bench/dist/results.{json,md}.
set -euo pipefail
cd "$(dirname "$0")/.."
for f in web/mcphost.js web/mcphost.wasm web/wasm_exec.js; do
  [ -f "$f" ] || { echo "bench-browser: $f is missing (run make build)"; exit 1; }
done
[ -d e2e/node_modules ] || bash scripts/test-deps.sh
# The JS stack is bundled with the Vite in e2e/node_modules; bench/ resolves
# packages through a (gitignored) link to it.
ln -sfn ../e2e/node_modules bench/node_modules
(cd bench && node ../e2e/node_modules/vite/bin/vite.js build)
# The startup-over-a-network row serves each stack compressed (bench/peer
# -compress): the module as the brotli copy make wasm leaves beside it, the
# JS bundle as this copy.
command -v brotli >/dev/null || { echo "bench-browser: installing brotli"; (apt-get update -qq && apt-get install -y -qq brotli) >/dev/null; }
brotli -f -k -q 11 bench/dist/jsstack.js
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
(cd bench && go build -o "$tmp/bench-peer" ./peer) # bench/ is a module of its own
# The Go runtime's floor in the startup suite (bench/gofloor).
(cd bench && GOOS=js GOARCH=wasm go build -trimpath -ldflags="-s -w" -o dist/gofloor.wasm ./gofloor)
# The whole task in Go alone (bench/golist): its floor beside mcphost's.
(cd bench && GOOS=js GOARCH=wasm go build -trimpath -ldflags="-s -w" -o dist/golist.wasm ./golist)
node bench/run.mjs --peer "$tmp/bench-peer" "$@"

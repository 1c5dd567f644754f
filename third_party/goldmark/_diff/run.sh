#!/usr/bin/env bash
# Renders with this fork and with upstream goldmark v1.8.7 side by side and
# requires the same bytes: CommonMark's spec examples, the Markdown in the
# directories given as arguments, then fuzzing for $FUZZTIME (default 60s).
# The fork is copied under another module path so that both can be built
# into one test. Needs upstream v1.8.7 in the module cache (the main module
# had it before the replace).
#
# Usage, from the repository root:
#   bash third_party/goldmark/_diff/run.sh testdata attach cmd/mcphost/internal/sampledocs
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
fork=$(dirname "$here")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/gmfork" "$tmp/diff"
(cd "$fork" && tar --exclude=./_diff -cf - .) | tar -xf - -C "$tmp/gmfork"
find "$tmp/gmfork" -name '*.go' -exec sed -i 's#"github.com/yuin/goldmark#"gmfork.test/goldmark#g' {} +
sed -i 's#^module github.com/yuin/goldmark#module gmfork.test/goldmark#' "$tmp/gmfork/go.mod"
cp "$here/diff_test.go.txt" "$tmp/diff/diff_test.go"
cp "$fork/_test/spec.json" "$tmp/diff/"
cat > "$tmp/diff/go.mod" <<MOD
module difftest

go 1.22

require (
	github.com/yuin/goldmark v1.8.7
	gmfork.test/goldmark v0.0.0
)

replace gmfork.test/goldmark => ../gmfork
MOD
cat > "$tmp/diff/go.sum" <<SUM
github.com/yuin/goldmark v1.8.7 h1:XT/tNqCIbabh0ln675w4x3dv04kQBKi8NwYqi9IJaxI=
github.com/yuin/goldmark v1.8.7/go.mod h1:ip/1k0VRfGynBgxOz0yCqHrbZXhcjxyuS66Brc7iBKg=
SUM
corpus=""
for d in "$@"; do corpus="$corpus${corpus:+:}$(cd "$d" && pwd)"; done
cd "$tmp/diff"
export DIFF_CORPUS="$corpus" GOFLAGS=-mod=mod GOPROXY=off
go test -count=1 -v -run TestForkEqualsUpstream .
go test -run '^$' -fuzz '^FuzzForkEqualsUpstream$' -fuzztime "${FUZZTIME:-60s}" -parallel 1 .

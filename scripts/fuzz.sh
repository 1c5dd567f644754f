#!/usr/bin/env bash
# Runs every Fuzz* target in the module for a bounded time each (default 10s).
# A finding (a failing input written to testdata/fuzz) fails the run. Go's
# fuzzer can also stop with "context deadline exceeded" when a worker is slow
# to shut down on a loaded machine; that is retried once, not reported.
set -euo pipefail
cd "$(dirname "$0")/.."
t=${1:-10s}
log=$(mktemp); trap 'rm -f "$log"' EXIT
n=0
# The main module's packages, then the matchers mcphost added to its patched
# goldmark (third_party/goldmark, a module of its own; upstream's own fuzz
# targets there are goldmark's business).
targets() {
  go list ./...
  (cd third_party/goldmark && go list ./parser ./util)
}
for pkg in $(targets); do
  case "$pkg" in github.com/yuin/goldmark/*) mod=third_party/goldmark ;; *) mod=. ;; esac
  dir=$(cd "$mod" && go list -f '{{.Dir}}' "$pkg")
  for f in $(grep -ho '^func Fuzz[A-Za-z0-9_]*' "$dir"/*_test.go 2>/dev/null | awk '{print $2}' | sort -u); do
    for try in 1 2; do
      if (cd "$mod" && go test -run '^$' -fuzz "^$f\$" -fuzztime "$t" "$pkg") >"$log" 2>&1; then
        echo "fuzz $pkg $f ($t): ok"; break
      fi
      if [ $try = 1 ] && grep -q 'context deadline exceeded' "$log" && ! grep -q 'Failing input written' "$log"; then
        echo "fuzz $pkg $f: worker shutdown timed out; retrying"; continue
      fi
      cat "$log"; echo "fuzz $pkg $f: FAILED"; exit 1
    done
    n=$((n+1))
  done
done
echo "fuzz: $n targets, $t each: ok"

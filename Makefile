# mcphost — see README.md. `make demo` runs the product; `make test` runs every test.
SHELL := /bin/bash
GO ?= go
GOROOT := $(shell $(GO) env GOROOT)
# No inlining in two packages whose speed does not show (host orchestrates;
# mimetype sniffs a blob's first bytes once): −23 KB brotli of the module,
# measured 2026-12-01 (1,458,369 → 1,435,381). The hot loops (bridge's
# scanner, the picker index, dedupe, goldmark) keep the compiler's inlining.
WASM_GCFLAGS := -gcflags=github.com/mcphost/mcphost/host=-l -gcflags=github.com/gabriel-vasile/mimetype/...=-l
WASM_FLAGS := -trimpath -ldflags="-s -w" $(WASM_GCFLAGS)
ADDR ?= 127.0.0.1:8080
FUZZTIME ?= 10s

.PHONY: all build wasm demo test test-deps check unit e2e fuzz fuzz-short bench size size-check clean

all: build

## build: the wasm module (web/mcphost.wasm + web/wasm_exec.js) and the mcphost binary (bin/mcphost)
build: wasm
	$(GO) build -o bin/mcphost ./cmd/mcphost

wasm:
	GOOS=js GOARCH=wasm $(GO) build $(WASM_FLAGS) -o web/mcphost.wasm ./wasm
	cp "$(GOROOT)/lib/wasm/wasm_exec.js" web/wasm_exec.js
	@bash scripts/brotli-copy.sh web/mcphost.wasm

## demo: run mcphost on the sample documents and print the URL
demo: build
	./bin/mcphost -addr $(ADDR) -docs cmd/mcphost/internal/sampledocs

## test: everything — format, vet (native and js/wasm), the wasm dependency rule,
## a js/wasm build of every package, unit + integration + browser tests, size budget, short fuzzing;
## the steps run in this order, each printing its wall time ("step unit: 95 s") when it ends
TEST_STEPS := test-deps check build unit e2e size-check fuzz-short
test:
	@total=$$(date +%s); for step in $(TEST_STEPS); do \
	  t0=$$(date +%s); \
	  if ! $(MAKE) --no-print-directory $$step; then echo "step $$step: $$(( $$(date +%s) - t0 )) s (FAILED)"; exit 1; fi; \
	  echo "step $$step: $$(( $$(date +%s) - t0 )) s"; \
	done; echo "make test: all steps passed in $$(( $$(date +%s) - total )) s"

test-deps:
	bash scripts/test-deps.sh

check:
	@out=$$(gofmt -l $$(git ls-files '*.go' ':!third_party' ; git ls-files -o --exclude-standard '*.go' ':!third_party')); \
	  if [ -n "$$out" ]; then echo "gofmt needed: $$out"; exit 1; fi
	$(GO) vet ./...
	GOOS=js GOARCH=wasm $(GO) vet ./...
	GOOS=js GOARCH=wasm $(GO) build ./...
	cd bench && $(GO) vet ./... && GOOS=js GOARCH=wasm $(GO) vet ./...
	@if GOOS=js GOARCH=wasm $(GO) list -deps ./wasm | grep -q 'modelcontextprotocol/go-sdk/mcp$$'; then \
	  echo "FAIL: the wasm module imports go-sdk/mcp (it would double the download):"; \
	  GOOS=js GOARCH=wasm $(GO) list -deps ./wasm | grep go-sdk; exit 1; fi
	@echo "wasm dependency rule: ok (no go-sdk/mcp in ./wasm)"
	@if GOOS=js GOARCH=wasm $(GO) list -deps ./wasm | grep -qx 'regexp'; then \
	  echo "FAIL: the wasm module links package regexp (~80 KB brotli; goldmark/extension? use attach/internal/gfm):"; \
	  GOOS=js GOARCH=wasm $(GO) list -deps -f '{{.ImportPath}}: {{join .Imports " "}}' ./wasm | grep -w regexp | grep -v '^regexp'; exit 1; fi
	@echo "wasm dependency rule: ok (no regexp in ./wasm)"
	@if GOOS=js GOARCH=wasm $(GO) list -deps ./wasm | grep -qx 'debug/dwarf'; then \
	  echo "FAIL: the wasm module links debug/dwarf (its package init runs in every instance; third_party/mimetype/README.mcphost.md):"; \
	  GOOS=js GOARCH=wasm $(GO) list -deps -f '{{.ImportPath}}: {{join .Imports " "}}' ./wasm | grep -E ' debug/(dwarf|macho|elf|pe)'; exit 1; fi
	@echo "wasm dependency rule: ok (no debug/dwarf in ./wasm)"
	@if git grep -l '"syscall/js"' -- '*.go' | grep -v '^wasm/' | grep -vE '_js(_test)?\.go$$'; then \
	  echo "FAIL: syscall/js imported outside wasm/ and the js-only files (_js.go, _js_test.go)"; exit 1; fi

MODEL_REPORT := $(or $(TMPDIR),/tmp)/mcphost-model-report.txt
unit:
	MCPHOST_MODEL_REPORT=$(MODEL_REPORT) $(GO) test -race -count=1 -timeout 15m ./...
	$(GO) test -count=1 -run '^(TestQueryPruning|TestQueryPruningStrong|TestQueryPruningCatchesSabotage|TestSignatureSound|TestGFMPortRendersAsGoldmark)$$' ./attach  # attach's sequential property tests, which skip under -race (nativeOnly in attach/prune_test.go)
	cd third_party/goldmark && $(GO) test -count=1 ./...  # the patched goldmark's suite (CommonMark spec) and its matchers
	cd third_party/mimetype && $(GO) test -count=1 ./...  # the patched mimetype's suite (its testdata) and the lazy tree
	cd bench && $(GO) test -count=1 ./...  # the bench peer (a module of its own): its variants and answers
	GOOS=js GOARCH=wasm $(GO) test -count=1 -exec="$(GOROOT)/lib/wasm/go_js_wasm_exec" ./wasm ./internal/pace ./internal/xsync  # the module's own tests (the collector's pace, the render Worker's collection, the page's thread given back between pages and within a backlog of events), under Node
	GOOS=js GOARCH=wasm $(GO) test -count=1 -run '^TestBatch' -exec="$(GOROOT)/lib/wasm/go_js_wasm_exec" ./bridge  # the batch socket's reader under Node (bridge's other tests need the network)
	@cat $(MODEL_REPORT) 2>/dev/null; rm -f $(MODEL_REPORT)

## e2e: browser and interop tests (node --test, headless Debian chromium via playwright-core)
e2e: build
	cd e2e && node --test --test-concurrency=1 --test-timeout=300000 $$(ls *.test.mjs)

## fuzz-short: every fuzz target for a bounded time (FUZZTIME, default 10s); `make fuzz FUZZTIME=5m` runs longer
fuzz-short:
	bash scripts/fuzz.sh $(FUZZTIME)

fuzz:
	bash scripts/fuzz.sh $(or $(FUZZTIME),2m)
	$(GO) test -count=1 -run 'TestModel$$' -model.runs=$(or $(MODEL_RUNS),50000) -v ./host | tail -20

## bench: Go benchmarks of every package (and the browser side-by-side bench when present)
bench: build
	$(GO) test -run '^$$' -bench . -benchmem ./...
	@if [ -f scripts/bench-browser.sh ]; then bash scripts/bench-browser.sh; fi

## size: raw, gzip and brotli bytes of the wasm module and the JS module
size: wasm
	bash scripts/size.sh

print-wasm-gcflags:
	@echo '$(WASM_GCFLAGS)'

size-check: wasm
	bash scripts/size.sh --check

clean:
	rm -rf bin web/mcphost.wasm web/mcphost.wasm.*.br web/wasm_exec.js

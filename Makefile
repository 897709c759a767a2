# stationdex: every task a user or CI needs is a target here. CI calls only
# `make test` (through .ci/run), so what CI checks is what you can run.

GO        ?= go
BIN       := bin/stationdex
ADDR      ?= 127.0.0.1:8080
DATA      ?= ../shared/data/radiobrowser-2025-02-27.ndjson.gz
INDEX     ?= data/stations.db
FUZZTIME  ?= 30s
# Short fuzz runs inside `make test`, counted in executions rather than
# seconds (a time budget races the fuzz coordinator on a loaded machine):
# enough to run each target's corpus and mutate a little, short enough for
# a 2-core CI machine.
TESTFUZZTIME ?= 2000x

# Packages whose tests run under the race detector: the ones with shared
# state between requests.
RACE_PKGS := ./server/... ./query/...

.PHONY: all build run test test-unit test-race test-fuzz vet fuzz bench bench-full bench-smoke \
        index-real serve-real check-real clean

all: build

build:
	$(GO) build -trimpath -o $(BIN) ./cmd/stationdex

## run: build and serve the embedded demo snapshot on http://$(ADDR)
run: build
	$(BIN) serve -addr $(ADDR)

## test: the whole suite, as CI runs it
test: vet test-unit test-race test-fuzz

vet:
	@unformatted=$$(gofmt -l $$(git ls-files '*.go' | grep -v '^bench/')); \
	  if [ -n "$$unformatted" ]; then echo "gofmt needed:"; echo "$$unformatted"; exit 1; fi
	$(GO) vet ./...

test-unit:
	$(GO) test -count=1 ./...

test-race:
	$(GO) test -count=1 -race $(RACE_PKGS)

# Every fuzz target in the module, each run briefly. The list is discovered,
# so a new target is fuzzed without editing this file; finding none fails.
test-fuzz:
	@$(MAKE) --no-print-directory fuzz FUZZTIME=$(TESTFUZZTIME)

## fuzz: every fuzz target for FUZZTIME each (default 30s); a crasher is
## kept in the package's testdata/fuzz and fails the run
fuzz:
	@found=0; for pkg in $$($(GO) list ./...); do \
	  for target in $$($(GO) test -list '^Fuzz' $$pkg | grep '^Fuzz'); do \
	    found=$$((found + 1)); echo "fuzz $$pkg $$target $(FUZZTIME)"; \
	    out=$$($(GO) test -run='^$$' -fuzz="^$$target\$$" -fuzztime=$(FUZZTIME) $$pkg 2>&1) || \
	      { echo "$$out"; exit 1; }; \
	  done; done; \
	[ $$found -gt 0 ] || { echo "no fuzz targets found"; exit 1; }; echo "fuzzed $$found targets"

## bench: the quick Go benchmarks (engine and build on the real snapshot)
bench:
	$(GO) test -run='^$$' -bench=. -benchmem ./query/ ./indexer/

## index-real: index the real Radio Browser snapshot into $(INDEX)
index-real: build
	@mkdir -p $(dir $(INDEX))
	$(BIN) index -o $(INDEX) $(DATA)

## serve-real: serve the real snapshot on http://$(ADDR)
serve-real: index-real
	$(BIN) serve -index $(INDEX) -addr $(ADDR)

## check-real: verify the real snapshot's index file
check-real: index-real
	$(BIN) check $(INDEX)

clean:
	rm -rf bin data

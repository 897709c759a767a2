# stationdex: every task a user or CI needs is a target here. CI calls only
# `make test` (through .ci/run), so what CI checks is what you can run.

GO        ?= go
BIN       := bin/stationdex
##= ADDR: the address run and serve-real listen on (default 127.0.0.1:8080;
##= e.g. ADDR=127.0.0.1:8081 when 8080 is busy)
ADDR      ?= 127.0.0.1:8080
# The real directory: the snapshot in ../shared/data where a checkout has
# one beside it, else the upstream directory's own /json/stations (any
# server of it); DATA=file or URL names another.
SHARED_DATA := ../shared/data/radiobrowser-2025-02-27.ndjson.gz
UPSTREAM  ?= https://de1.api.radio-browser.info/json/stations
##= DATA: the dump index-real reads, a file or an http(s) URL (default: the
##= snapshot in ../shared/data when there is one, else the upstream list)
DATA      ?= $(if $(wildcard $(SHARED_DATA)),$(SHARED_DATA),$(UPSTREAM))
##= INDEX: the index file index-real writes and serve-real and check-real
##= use (default data/stations.db)
INDEX     ?= data/stations.db
##= INDEX_FLAGS: flags of stationdex index for index-real (default -compat:
##= the index also serves the Radio Browser compatible API under /json/;
##= INDEX_FLAGS= builds the default, smaller index without it)
INDEX_FLAGS ?= -compat
##= FUZZTIME: how long make fuzz runs each target (default 30s)
FUZZTIME  ?= 30s
# Short fuzz runs inside `make test`, counted in executions rather than
# seconds (a time budget races the fuzz coordinator on a loaded machine):
# enough to run each target's corpus and mutate a little, short enough for
# a 2-core CI machine. The targets that open a damaged index run Open and
# the whole check (every bucket recounted, nearest stations found again)
# on each input: at 2000 executions FuzzOpenInRuns alone took 86 s of
# make test.
TESTFUZZTIME ?= 1000x

# The packages with demo micro-benchmarks (Benchmark*Demo*), which
# test-unit runs once and bench-compare compares; named, not discovered,
# because building every package's test binary for them cost minutes.
DEMO_BENCH_PKGS := ./query/core/ ./server/ ./indexer/

# Packages whose tests run under the race detector: the ones with shared
# state between requests, and the indexer's pipelines (reading on one
# goroutine, filing on another; one compressing goroutine per data dump),
# whose whole-snapshot tests are left out of the race run for time.
# query/rawroaring is left out: pure functions over bytes, no goroutines.
RACE_PKGS := ./server/... ./query/ ./query/check/ ./query/core/ ./query/facets/ ./query/groups/ \
             ./query/pagetree/ ./query/rbapi/ ./query/spell/ ./internal/stationjson/ ./indexer/extsort/
# Two kinds of test run in the plain run only: those whose subject is what
# an outside program sees (a browser, the Radio Browser API's npm and
# streamtuner2 clients), and long walks on one goroutine (the crawl of
# every page, the comparison of the two search paths over every key, the
# conjunction's kernels against roaring's, the pages against the
# template's writing of them on hostile and real stations, the distinct
# facets against the oracle on a grouped sample, the small index opened
# with each of its bytes flipped, a search's allocations by its matches).
# Under the race detector each costs minutes and reaches no shared state
# that the other tests of the same code do not.
RACE_SKIP := ^(TestBrowser.*|TestNPMClient|TestRadioBrowserClient|TestStreamtuner2Plugin|TestEveryLinkAnswers|TestPlainMatchesBitmapPathAcrossKeys|TestConjunction(MatchesRoaring|WithoutKernels)|TestPagesWrittenAsTemplate(Hostile|Real)|TestDistinctFacetsMatchOracleOnDuplicatedSample|TestOpenRefusesFlippedBytesOfTheFile|TestAllocsDoNotGrowWithMatches)$$
RACE_INDEXER_TESTS := TestBuild(Fixture|Deterministic|Options|FailureLeavesNothing)$$

.PHONY: all help build run test test-suite test-lanes test-unit test-race test-fuzz vet lint-go fuzz bench bench-full \
        bench-smoke bench-compare lint-public check-deploy soak index-real serve-real check-real startup-time build-time \
        clean FORCE

## all: the same as build
all: build

## help: this list of targets and variables, from the comments in the Makefile
help:
	@awk -f .make-help.awk $(firstword $(MAKEFILE_LIST))

## build: bin/stationdex (the first build on a machine takes about a minute);
## quiet when it is up to date
# The go command decides what is stale (sources, embedded files, go.mod);
# its output replaces $(BIN) only when it differs, so an up-to-date binary
# keeps its time and make says nothing it did not do.
build:
	@[ -e $(BIN) ] || echo "building $(BIN) (the first build on a machine takes about a minute)"
	@mkdir -p $(dir $(BIN)) && $(GO) build -trimpath -o $(BIN).new ./cmd/stationdex || { rm -f $(BIN).new; exit 1; }; \
	  if [ ! -e $(BIN).new ]; then :; elif cmp -s $(BIN).new $(BIN); then rm -f $(BIN).new; \
	  else mv -f $(BIN).new $(BIN) && echo "built $(BIN)"; fi

## run: build and serve the embedded demo snapshot on http://$(ADDR)
## (make run ADDR=127.0.0.1:8081 when port 8080 is busy)
run: build
	$(BIN) serve -addr $(ADDR)

## test: the whole suite, as CI runs it, with a private TMPDIR that must be
## empty afterwards: a test that leaves files behind fails the run
# The TMPDIR is opened to others (755): the fleet test's nginx runs as
# nobody and serves files below it.
test:
	@tmp=$$(mktemp -d "$${TMPDIR:-/tmp}/stationdex-make-test-XXXXXX") && chmod 755 "$$tmp" || exit 1; \
	  TMPDIR=$$tmp $(MAKE) --no-print-directory test-suite; status=$$?; \
	  left=$$(cd $$tmp && ls -A); rm -rf "$$tmp"; \
	  if [ -n "$$left" ]; then echo "make test: the tests left files in their TMPDIR:"; echo "$$left"; exit 1; fi; \
	  exit $$status

## test-suite: the steps of make test, without its TMPDIR check
# Two lanes side by side: test-unit in one, the other steps one after the
# other in the second. Each step alone leaves a core idle for much of its
# time (the server package's long tests and its browsers, the race
# detector's last package, the smoke's start-up), so on two cores the
# lanes take the time of their CPU, not the sum of the steps' tails. The
# unit lane's output is held and printed when it ends, so that neither
# lane's lines break into the other's; a step that fails fails the suite
# after both lanes end.
TEST_CHECKS := vet lint-go test-race test-fuzz lint-public check-deploy bench-smoke
test-suite: test-lanes

## test-lanes: test-suite's two lanes (test-unit beside the other steps)
test-lanes:
	@log=$$(mktemp "$${TMPDIR:-/tmp}/stationdex-unit-XXXXXX.log") || exit 1; \
	  { $(MAKE) --no-print-directory test-unit >"$$log" 2>&1; echo $$? >"$$log.status"; } & \
	  $(MAKE) --no-print-directory $(TEST_CHECKS); checks=$$?; wait; \
	  echo "== test-unit"; cat "$$log"; unit=$$(cat "$$log.status"); rm -f "$$log" "$$log.status"; \
	  [ "$$checks" = 0 ] || echo "make test: a step of $(TEST_CHECKS) failed (above)"; \
	  [ "$$unit" = 0 ] || echo "make test: test-unit failed (above)"; \
	  [ "$$checks" = 0 ] && [ "$$unit" = 0 ]

# External checkers (npm linters, promtool, MariaDB, wrk) are installed by
# .ci/run. On a machine without one, its step says so and is skipped; under
# CI=true a missing checker fails, so CI can never pass by skipping. The npm
# ones are pinned by tools/npm/package-lock.json and installed by
# `npm ci --ignore-scripts` in NPM_DIR (.ci/run does it there); a machine
# set up before the lockfile has them in ~/.cache/stationdex-npm.
##= NPM_DIR: the folder holding node_modules of the npm checkers (default
##= tools/npm, after cd tools/npm && npm ci --ignore-scripts)
NPM_DIR ?= $(firstword $(wildcard $(CURDIR)/tools/npm/node_modules/.. $(HOME)/.cache/stationdex-npm/node_modules/..) $(CURDIR)/tools/npm)
NPM_BIN := $(abspath $(NPM_DIR))/node_modules/.bin
export PATH := $(NPM_BIN):$(PATH)
# The sitemap and page-audit tests find sitemap.xsd and axe there.
export STATIONDEX_NPM_PREFIX := $(abspath $(NPM_DIR))
define need
	@command -v $(1) >/dev/null || { \
	  if [ "$$CI" = true ]; then echo "$(1) is required under CI=true (see .ci/run)"; exit 1; fi; \
	  echo "skipped: $(1) not installed (.ci/run installs it)"; exit 0; }
endef

## vet: gofmt and go vet over both modules (the service and bench/), and
## the service built for 386, as other machines build it: a 32-bit int,
## and the portable merge in place of the amd64 kernels (as on arm64)
vet:
	@unformatted=$$(gofmt -l $$(git ls-files '*.go')); \
	  if [ -n "$$unformatted" ]; then echo "gofmt needed:"; echo "$$unformatted"; exit 1; fi
	$(GO) vet ./...
	cd bench && $(GO) vet ./...
	GOARCH=386 $(GO) build ./...
	GOARCH=386 $(GO) vet ./query/rawroaring/

## lint-go: staticcheck and errcheck, pinned as tool directives in go.mod;
## the calls left unchecked on purpose are listed in .errcheck-excludes
lint-go:
	$(GO) tool staticcheck ./...
	$(GO) tool errcheck -ignoretests -exclude .errcheck-excludes ./...

# The packages whose tests take longest, named first: go test starts the
# packages' test binaries in the order given, two at a time on two cores,
# so these start at once and the many short ones run beside them, instead
# of the longest starting last and running alone.
SLOW_TEST_PKGS := ./server/ ./query/core/ ./indexer/ ./query/rbapi/

## test-unit: go test of both modules' packages; the container code again
## with -tags purego, as arm64 and the rest build it (no amd64 kernels);
## the demo micro-benchmarks once each, so that they cannot rot
test-unit:
	$(GO) test -count=1 -timeout 20m $(SLOW_TEST_PKGS) ./...
	$(GO) test -count=1 -tags purego ./query/rawroaring/
	$(GO) test -count=1 -run '^$$' -bench Demo -benchtime 1x $(DEMO_BENCH_PKGS)

## test-race: the packages with shared state under the race detector,
## with -short: the real-data tests on the committed sample (the plain
## run, test-unit, takes them on the full snapshot where there is one)
test-race:
	$(GO) test -count=1 -race -short -timeout 20m -skip '$(RACE_SKIP)' $(RACE_PKGS)
	$(GO) test -count=1 -race -run '$(RACE_INDEXER_TESTS)' ./indexer/

## test-fuzz: every fuzz target in the module, each briefly; the list is
## discovered, so a new target is fuzzed without editing this file
test-fuzz:
	@$(MAKE) --no-print-directory fuzz FUZZTIME=$(TESTFUZZTIME)

## fuzz: every fuzz target for FUZZTIME each (default 30s); a crasher is
## kept in the package's testdata/fuzz and fails the run
# The packages with a Fuzz function in a test file are found by go list
# and grep, without linking a test binary for every package; each is built
# once with the fuzzing instrumentation (go test -c -fuzz), lists its own
# targets, and runs each in the package's folder with the flags and fuzz
# cache go test -fuzz gives it, so a crasher lands in testdata/fuzz as
# there.
fuzz:
	@bins=$$(mktemp -d) || exit 1; trap 'rm -rf "$$bins"' EXIT; \
	cache=$$($(GO) env GOCACHE)/fuzz; found=0; \
	for line in $$($(GO) list -f '{{.ImportPath}}={{.Dir}}' ./...); do \
	  pkg=$${line%%=*}; dir=$${line#*=}; \
	  grep -qs '^func Fuzz' "$$dir"/*_test.go || continue; \
	  bin=$$bins/$$(echo "$$pkg" | tr / _).test; \
	  $(GO) test -c -fuzz=. -o "$$bin" "$$pkg" || exit 1; \
	  targets=$$(cd "$$dir" && "$$bin" -test.list '^Fuzz') || { echo "$$targets"; exit 1; }; \
	  for target in $$(echo "$$targets" | grep '^Fuzz'); do \
	    found=$$((found + 1)); echo "fuzz $$pkg $$target $(FUZZTIME)"; \
	    out=$$(cd "$$dir" && "$$bin" -test.paniconexit0 -test.timeout=10m -test.run='^$$' \
	      -test.fuzz="^$$target\$$" -test.fuzztime=$(FUZZTIME) -test.fuzzcachedir="$$cache/$$pkg" 2>&1) || \
	      { echo "$$out"; exit 1; }; \
	  done; done; \
	[ $$found -gt 0 ] || { echo "no fuzz targets found"; exit 1; }; echo "fuzzed $$found targets"

## lint-public: lint the OpenAPI document and the sample HTML and Markdown pages
lint-public:
	$(call need,spectral)
	$(call need,html-validate)
	$(call need,markdownlint)
	@if command -v spectral >/dev/null && command -v html-validate >/dev/null && command -v markdownlint >/dev/null; then \
	  spectral lint --fail-severity=warn --ruleset server/.spectral.yaml server/files/openapi.json && \
	  html-validate --config server/.htmlvalidate.json 'server/testdata/pages/*.html' && \
	  markdownlint --config server/.markdownlint.json server/testdata/pages; fi

## check-deploy: promtool, dashboard type-check, Kubernetes manifests, systemd unit
check-deploy:
	$(call need,promtool)
	@if command -v promtool >/dev/null; then bash deploy/check.sh; fi

## bench: the quick Go benchmarks (engine and build on the real snapshot)
bench:
	$(GO) test -run='^$$' -bench=. -benchmem ./query/ ./indexer/
	bash bench/run.sh quick

## bench-compare: the demo micro-benchmarks of BASE (default HEAD) against
## the working tree, COUNT (default 6) runs each, under benchstat
##= BASE, COUNT: the commit and the number of runs of bench-compare
BASE ?= HEAD
bench-compare:
	bash bench/scripts/compare.sh $(BASE)

## bench-full: the whole benchmark suite (peers, ceiling, HTTP mixes,
## facets and suggestions, scaled data); about 30 min on 2 cores. Writes
## bench/results/<date>/. BENCH_ARGS passes benchsuite flags, e.g.
## BENCH_ARGS='-sizes 50k,500k -skip peers -out work/dev' (bench/README.md)
##= BENCH_ARGS: flags for the benchmark suite of bench-full
BENCH_ARGS ?=
bench-full:
	bash bench/run.sh full $(BENCH_ARGS)

## bench-smoke: the suite's own tests (the peers' concurrency tests under
## -race: the peers' HTTP servers call them from concurrent handlers), then
## the whole suite on a tiny data set, so that it cannot rot
bench-smoke:
	cd bench && $(GO) test -count=1 ./internal/... ./cmd/...
	cd bench && $(GO) test -count=1 -race -run Concurrent ./internal/engines/
	$(call need,wrk)
	@if command -v wrk >/dev/null; then bash bench/run.sh smoke; fi

## soak: steady load for SOAK_MINUTES (default 1): cold searches, a crawl of
## every page and zero-result typo searches; heap, RSS, goroutines and open
## files must stay flat
##= SOAK_MINUTES: how long make soak runs (default 1)
SOAK_MINUTES ?= 1
soak: build
	cd bench && $(GO) run ./soak -minutes $(SOAK_MINUTES)

## bench-follow: p99 of a node following a dump, quiet and during its
## background rebuild (5M by default; bench/README.md)
##= FOLLOW_ARGS: flags for bench-follow, e.g. FOLLOW_ARGS='-size 50k'
FOLLOW_ARGS ?=
.PHONY: bench-follow
bench-follow:
	bash bench/scripts/follow-under-load.sh $(FOLLOW_ARGS)

## index-real: index the real Radio Browser directory into $(INDEX): the
## shared snapshot where it exists, else the live upstream list (DATA=...
## names a file or URL), with $(INDEX_FLAGS), so that serve-real answers
## /json/ too. Rebuilt when DATA or INDEX_FLAGS change or its file is
## newer; a URL is fetched again only with make -B index-real
index-real: $(INDEX)

# The index is a file built from its input: a DATA file is a prerequisite,
# so a newer dump rebuilds it; a URL cannot be one, so $(INDEX).source
# records which DATA and INDEX_FLAGS built it and changes, rebuilding the
# index, only when another DATA or other flags are named. The binary is
# order-only: a rebuilt stationdex does not make the index stale.
DATA_FILE := $(if $(findstring ://,$(DATA)),,$(DATA))
$(INDEX): $(DATA_FILE) $(INDEX).source | build
	@echo "indexing $(DATA) into $@$(if $(INDEX_FLAGS), ($(INDEX_FLAGS)))"
	@$(BIN) index -o $@ $(INDEX_FLAGS) $(DATA) || { \
	  rm -f $(INDEX).source; rmdir $(dir $(INDEX)) 2>/dev/null; \
	  echo "make: could not index $(DATA)$(if $(DATA_FILE),, (no shared snapshot at $(SHARED_DATA), so the upstream list; offline?))."; \
	  echo "      Name a dump you have with: make index-real DATA=FILE (a JSON array or NDJSON, plain or gzip)."; \
	  exit 1; }

$(INDEX).source: FORCE
	@mkdir -p $(dir $@)
	@echo '$(DATA) $(INDEX_FLAGS)' | cmp -s - $@ 2>/dev/null || echo '$(DATA) $(INDEX_FLAGS)' > $@

FORCE:

# serve-real and check-real use the index that is there, whatever built it;
# they build one only where none is.
EXISTING_INDEX = $(if $(wildcard $(INDEX)),,$(INDEX))

## serve-real: serve $(INDEX) on http://$(ADDR), building it first only
## when it does not exist (never replacing one: make index-real does that)
serve-real: build $(EXISTING_INDEX)
	$(BIN) serve -index $(INDEX) -addr $(ADDR)

## check-real: verify the index file $(INDEX), building it first only when
## it does not exist
check-real: build $(EXISTING_INDEX)
	$(BIN) check $(INDEX)

## startup-time: exec of `stationdex serve -index $(INDEX)` to its first
## answered request, RUNS starts (best and median); timing, so never part
## of make test. SERVE_ARGS adds serve flags (e.g. -check-on-start).
##= RUNS, SERVE_ARGS: starts timed by startup-time, and serve flags for it
RUNS ?= 5
SERVE_ARGS ?=
startup-time: build
	$(GO) run ./cmd/startuptime -bin $(BIN) -index $(INDEX) -runs $(RUNS) -args "$(SERVE_ARGS)"

## build-time: `stationdex index` of $(INPUT), RUNS builds from the same
## start (page cache dropped when root, input read first): each run's
## phases, then best and median; timing, so never part of make test.
##= INPUT: the dump file timed by build-time (default: the shared snapshot;
##= bench/work/data/stations-5m.ndjson is the suite's 5M)
INPUT ?= $(SHARED_DATA)
build-time: build
	RUNS=$(RUNS) bash bench/scripts/build-time.sh $(BIN) $(INPUT)

## clean: remove bin/ and data/ (the built binary and the real index)
clean:
	rm -rf bin data

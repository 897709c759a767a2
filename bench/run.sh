#!/usr/bin/env bash
# The stationdex benchmark suite. Run from anywhere:
#   bench/run.sh smoke   # whole pipeline on tiny data, about a minute (capped at 10), fails loudly (CI)
#   bench/run.sh full    # everything: 50k real, 1M and 5M scaled; minutes
#   bench/run.sh quick   # the Go benchmarks (go test -bench) on the real snapshot
# Extra arguments go to benchsuite (e.g. -sizes 50k,1m, -skip-mariadb, -wrk-duration 5s).
# It installs nothing: it needs Go, wrk (apt-get install wrk) and, for the
# MariaDB peer, mariadb-server, and says what is missing.
set -euo pipefail
cd "$(dirname "$0")"
mode=${1:-smoke}
shift || true
build() { mkdir -p work/bin && go build -o work/bin/benchsuite ./cmd/benchsuite; }
case "$mode" in
  smoke) build && exec timeout --kill-after=30 600 work/bin/benchsuite -mode smoke "$@" ;;
  full)  build && exec work/bin/benchsuite -mode full "$@" ;;
  quick) exec go test -run '^$' -bench 'Search|Build' -benchmem -count 1 "$@" . ;;
  *) echo "usage: $0 smoke|full|quick [benchsuite flags]" >&2; exit 2 ;;
esac

#!/usr/bin/env bash
# Times `stationdex index` on one input, RUNS times (default 3), from the
# same start each time: the previous output removed and, when run as root,
# the page cache dropped and the input read once, so that every run reads
# its input from memory and writes into an empty cache. Without that, the
# runs of a multi-gigabyte build differ by a fifth or more with what the
# earlier ones left in the cache (the kernel's reclaim then counts as the
# build's system time). Prints each run's phase table and CPU (and peak
# RSS where GNU time is installed), then the best and median wall time. Timing: never part of make test.
#   bench/scripts/build-time.sh BIN INPUT [index flags...]
set -euo pipefail
bin=$1 input=$2
shift 2
runs=${RUNS:-3}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
walls=()
for i in $(seq "$runs"); do
  rm -f "$out/index.db"
  if [ -w /proc/sys/vm/drop_caches ]; then
    sync
    echo 3 >/proc/sys/vm/drop_caches
  fi
  cat "$input" >/dev/null
  start=$(date +%s.%N)
  if [ -x /usr/bin/time ]; then # GNU time (Debian's time package): the peak resident size too
    /usr/bin/time -f 'peak RSS %M KiB' -o "$out/rss.txt" "$bin" index "$@" -tmpdir "$out" -o "$out/index.db" "$input" >"$out/summary.txt"
  else
    "$bin" index "$@" -tmpdir "$out" -o "$out/index.db" "$input" >"$out/summary.txt"
  fi
  end=$(date +%s.%N)
  wall=$(awk -v a="$start" -v b="$end" 'BEGIN { printf "%.1f", b - a }')
  walls+=("$wall")
  echo "run $i of $runs: $wall s wall"
  sed -n '/^phase/,/^total/p' "$out/summary.txt"
  grep -E '^indexed' "$out/summary.txt"
  if [ -f "$out/rss.txt" ]; then cat "$out/rss.txt"; fi
done
printf '%s\n' "${walls[@]}" | sort -n | awk '{w[NR]=$1} END {printf "best %.1f s, median %.1f s of %d runs\n", w[1], w[int((NR+1)/2)], NR}'

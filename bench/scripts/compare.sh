#!/usr/bin/env bash
# Compares the micro-benchmarks on the embedded demo snapshot (Benchmark*Demo*
# in query, server and indexer and the packages below them: no real data
# needed) between a base commit and the working tree, under benchstat. Each
# side runs COUNT times (default 6), interleaved by package so that a slow
# spell of a shared machine lands on both sides alike. The whole trees are
# named, not the Makefile's DEMO_BENCH_PKGS, so that a base from before a
# move runs its own; the pkg lines are left out, so that a benchmark
# compares with itself across a move between packages (their names are
# unique across the tree).
#   bench/scripts/compare.sh [BASE]   # BASE: a commit, default HEAD
set -euo pipefail
root=$(git -C "$(dirname "$0")" rev-parse --show-toplevel)
cd "$root"
base=${1:-HEAD}
count=${COUNT:-6}
pkgs="./query/... ./server/... ./indexer/..."
tmp=$(mktemp -d)
trap 'git worktree remove --force "$tmp/base" >/dev/null 2>&1 || true; rm -rf "$tmp"' EXIT
git worktree add --quiet --detach "$tmp/base" "$base"
run() { (cd "$1" && go test -run '^$' -bench Demo -benchmem -count 1 $pkgs) | grep -E '^(Benchmark|goos|goarch|cpu)'; }
for i in $(seq "$count"); do
  echo "round $i of $count" >&2
  run "$tmp/base" >>"$tmp/old.txt" || true # a base without the benchmarks has nothing to say
  run "$root" >>"$tmp/new.txt"
done
echo "base: $(git rev-parse --short "$base"), new: working tree of $(git rev-parse --short HEAD)"
go tool benchstat "old=$tmp/old.txt" "new=$tmp/new.txt"

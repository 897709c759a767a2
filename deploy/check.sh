#!/usr/bin/env bash
# Checks the operations files in deploy/ with the real tools:
#   promtool check config | check rules | test rules  (Debian: prometheus)
#   promtool check metrics on the live /metrics of a running node, and of a
#   node following a published snapshot (stationdex publish, serve -follow)
#   the Grafana dashboard type-checked against @grafana/schema (npm, node)
#   the Kubernetes manifests decoded strictly into k8s.io/api types (go)
#   the systemd unit with systemd-analyze verify, where systemd is installed
# Run from anywhere: bash deploy/check.sh
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
tmp=$(mktemp -d)
node_pid=
cleanup() {
	if [[ -n $node_pid ]]; then kill "$node_pid" 2>/dev/null || true; fi
	rm -rf "$tmp"
}
trap cleanup EXIT

step() { printf '\n== %s\n' "$*"; }

need() {
	command -v "$1" >/dev/null || { echo "deploy/check.sh: $1 not found; $2" >&2; exit 1; }
}
need promtool "apt-get install -y prometheus"
need npm "apt-get install -y nodejs npm"
need curl "apt-get install -y curl"
need go "install Go 1.26"

step "promtool check config"
promtool check config deploy/prometheus/prometheus.yml

step "promtool check rules"
promtool check rules deploy/prometheus/rules.yml

step "promtool test rules"
(cd deploy/prometheus && promtool test rules rules_test.yml)

step "promtool check metrics on a running node"
go build -o "$tmp/stationdex" ./cmd/stationdex
# The embedded demo index, loopback ports chosen by the kernel and read back
# from the JSON start-up line.
"$tmp/stationdex" serve -addr 127.0.0.1:0 -admin-addr 127.0.0.1:0 -log-format json 2>"$tmp/node.log" &
node_pid=$!
admin= public=
for _ in $(seq 100); do
	line=$(grep -m1 '"msg":"serving"' "$tmp/node.log" || true)
	if [[ -n $line ]]; then
		public=$(sed -E 's/.*"addr":"([^"]+)".*/\1/' <<<"$line")
		admin=$(sed -E 's/.*"admin_addr":"([^"]+)".*/\1/' <<<"$line")
		break
	fi
	sleep 0.1
done
[[ -n $admin ]] || { cat "$tmp/node.log" >&2; echo "node did not start" >&2; exit 1; }
# A few requests, so the labelled series exist.
curl -fsS -o /dev/null "http://$public/api/stations?q=radio"
curl -sS -o /dev/null "http://$public/api/stations/not-a-station"
curl -fsS -o /dev/null "http://$admin/readyz"
curl -fsS "http://$admin/metrics" >"$tmp/metrics.txt"
promtool check metrics <"$tmp/metrics.txt"
grep -q '^stationdex_http_requests_total{' "$tmp/metrics.txt"
echo "$(grep -c '^stationdex_' "$tmp/metrics.txt") stationdex samples, lint clean"
kill -TERM "$node_pid"
wait "$node_pid" # SIGTERM drains and exits 0; anything else fails the script
node_pid=

step "promtool check metrics on a node following a published snapshot"
mkdir "$tmp/pub" "$tmp/node"
"$tmp/stationdex" index -o "$tmp/demo.db" indexer/demo/stations.ndjson >/dev/null 2>&1
"$tmp/stationdex" publish -dir "$tmp/pub" "$tmp/demo.db"
"$tmp/stationdex" serve -index "$tmp/node/live.db" -follow "$tmp/pub/latest.json" -every 1m \
	-addr 127.0.0.1:0 -admin-addr 127.0.0.1:0 -log-format json 2>"$tmp/follow.log" &
node_pid=$!
admin=
for _ in $(seq 100); do
	if grep -q '"msg":"follow: new snapshot served"' "$tmp/follow.log"; then
		admin=$(grep -m1 '"msg":"serving"' "$tmp/follow.log" | sed -E 's/.*"admin_addr":"([^"]+)".*/\1/')
		break
	fi
	sleep 0.1
done
[[ -n $admin ]] || { cat "$tmp/follow.log" >&2; echo "the following node got no snapshot" >&2; exit 1; }
curl -fsS "http://$admin/readyz" >/dev/null
curl -fsS "http://$admin/metrics" >"$tmp/follow-metrics.txt"
promtool check metrics <"$tmp/follow-metrics.txt"
grep -q '^stationdex_follow_attempts_total{result="swapped"} 1$' "$tmp/follow-metrics.txt"
echo "$(grep -c '^stationdex_follow_' "$tmp/follow-metrics.txt") stationdex_follow_ samples, lint clean"
kill -TERM "$node_pid"
wait "$node_pid"
node_pid=

step "Grafana dashboard type-check (@grafana/schema + tsc)"
(
	cd deploy/grafana/check
	npm ci --no-audit --no-fund --loglevel=error
	./node_modules/.bin/tsc --noEmit --strict --resolveJsonModule -p tsconfig.json
)
echo "deploy/grafana/stationdex.json matches the dashboard schema"

step "Kubernetes manifests, ../ and follow/ (strict decode into k8s.io/api)"
(cd deploy/kubernetes/check && go test -count=1 ./...)

if command -v systemd-analyze >/dev/null; then
	step "systemd-analyze verify"
	# verify wants the ExecStart binary to exist: point it at the one built.
	for unit in stationdex.service stationdex-follow.service; do
		sed "s#/usr/local/bin/stationdex#$tmp/stationdex#" "deploy/systemd/$unit" >"$tmp/$unit"
		systemd-analyze verify --man=no "$tmp/$unit"
		echo "$unit verified"
	done
fi

printf '\ndeploy/check.sh: all checks passed\n'

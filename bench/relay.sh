#!/usr/bin/env bash
# relay.sh: what the package relay saves, on the local testbed (the real
# templates run there), for N nodes (a head and N-1 workers: base and a
# few extras no node has), a fresh apply each time (new node disks, every
# .deb dropped from the nodes' view of the testbed's shared cache):
#
#   online, today    every node downloads what it installs: the sum of
#                    apt's "Fetched N B" lines in the nodes' logs
#   online, relay    software.relay on the head: what apt-cacher-ng
#                    fetched upstream (its log's I lines) and served (O)
#   bundle, today    apply --bundle: bytes the workstation wrote
#                    (provision's wchar: sockets, state and logs)
#   bundle, relay    the same with the relay serving the bundle
#
# and the wall time of each apply, with its slowest steps.  Run by hand,
# under the e2e lock (flock -o /tmp/provision-e2e.lock bench/relay.sh);
# never in make test.  Environment: NS ("2 8"), PROVISION, TESTBED_DIR.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
PROVISION=${PROVISION:-$ROOT/provision}
TB=${TESTBED_DIR:-/var/tmp/provision-testbed}
NS=${NS:-2 8}
W=${RELAY_BENCH_DIR:-/tmp/provision-relay-bench}
EXTRAS="hello, figlet, vim, tmux, rsync, strace"
TSV=$W/results.tsv
export PROVISION

die() { echo "relay.sh: $*" >&2; exit 1; }

# plan N RELAY(0|1): nodes rb-01.. on 127.0.14.1..
plan() {
	cat <<EOF
# bench/relay.sh: $1 testbed nodes, relay $2
version: 1
cluster: { name: relaybench, domain: testbed.internal }
networks:
  lo: { cidr: 127.0.14.0/24, kind: ethernet, gbps: 10, role: management }
ssh:
  user: root
  identity: $TB/id_ed25519
  known_hosts: $TB/known_hosts
  host_keys: strict
  forks: 64
  connect_timeout_s: 30
offline: { bundle_key: $W/bundle.pub }
nodes:
  - { name: rb-01, role: head, address: 127.0.14.1 }
EOF
	if [ "$1" -gt 1 ]; then
		printf '  - { name: "rb-[02-%02d]", role: worker, address: "127.0.14.[2-%d]" }\n' "$1" "$1"
	fi
	cat <<EOF
software:
  os: { distro: debian, release: "12" }
  container_runtime: { engine: none }
  orchestrator: { kind: none }
  monitoring: { node_exporter: false }
  extras: [ $EXTRAS ]
EOF
	if [ "$2" = 1 ]; then echo "  relay: { port: 3149 }"; fi
}

fresh() {	# fresh PLAN N: new disks, nothing cached on the nodes
	local i
	"$ROOT/scripts/testbed" down --purge "$1" >/dev/null 2>&1 || true
	"$ROOT/scripts/testbed" up "$1" >/dev/null
	for i in $(seq 1 "$2"); do
		ssh -q -i "$TB/id_ed25519" -o UserKnownHostsFile="$TB/known_hosts" \
			-o BatchMode=yes "root@127.0.14.$i" \
			'rm -f /var/cache/apt/archives/*.deb; rm -rf /var/lib/apt/lists/*_Packages*'
	done
}

# run_apply NAME ARGS...: apply, its wall time and the bytes it wrote
run_apply() {
	local name=$1 pid t0 t1 wchar=0 w
	shift
	t0=$(date +%s.%N)
	"$PROVISION" apply --plain --state-dir "$W/state.$name" "$@" >"$W/$name.txt" 2>&1 &
	pid=$!
	while kill -0 "$pid" 2>/dev/null; do
		w=$(sed -n 's/^wchar: //p' "/proc/$pid/io" 2>/dev/null || true)
		[ -n "$w" ] && wchar=$w
		sleep 0.1
	done
	wait "$pid" || echo "relay.sh: $name failed (see $W/$name.txt)" >&2
	t1=$(date +%s.%N)
	WALL=$(echo "$t1 - $t0" | bc)
	WCHAR=$wchar
}

fetched() {	# fetched NAME [STEP]: bytes apt fetched on the nodes (in STEP on the head)
	if [ -n "${2:-}" ]; then
		awk -v s="=== step $2 " 'index($0, "=== step ") == 1 { on = index($0, s) == 1 } on' \
			"$W/state.$1"/runs/*/logs/rb-01.log
	else
		cat "$W/state.$1"/runs/*/logs/*.log
	fi 2>/dev/null | python3 -c '
import re, sys
u = {"B": 1, "kB": 1e3, "MB": 1e6, "GB": 1e9}
t = 0
for m in re.finditer(r"^Fetched ([0-9.,]+) (B|kB|MB|GB) in", sys.stdin.read(), re.M):
    t += float(m.group(1).replace(",", "")) * u[m.group(2)]
print(int(t))'
}

acng() {	# acng I|O: bytes apt-cacher-ng moved in (upstream) or out
	ssh -q -i "$TB/id_ed25519" -o UserKnownHostsFile="$TB/known_hosts" -o BatchMode=yes \
		root@127.0.14.1 cat /var/log/apt-cacher-ng/apt-cacher.log |
		awk -F'|' -v k="$1" '$2 == k { s += $3 } END { print s + 0 }'
}

slowest() {	# slowest NAME: the three slowest step results (node step seconds)
	awk '$NF == "s)" { v = $(NF - 1); gsub(/\(/, "", v); print v, $2, $3 }' "$W/$1.txt" |
		sort -rn | head -n 3 | awk '{ printf "%s %s %ss; ", $2, $3, $1 }'
}

mkdir -p "$W"
: >"$TSV"
# the bundles are signed; the plans pin the key
[ -f "$W/bundle.key" ] || (umask 077 && openssl genpkey -algorithm ed25519 -out "$W/bundle.key")
openssl pkey -in "$W/bundle.key" -pubout -out "$W/bundle.pub"
echo "# $(date -u '+%F %T') load: $(cut -d' ' -f1-3 /proc/loadavg)" | tee -a "$TSV"
for n in $NS; do
	plan "$n" 0 >"$W/plan.$n.yaml"
	plan "$n" 1 >"$W/plan.$n.relay.yaml"
	"$PROVISION" bundle "$W/plan.$n.relay.yaml" -o "$W/b.$n.tar.zst" --sign "$W/bundle.key" \
		--cache "$TB/bundle-cache" >"$W/bundle.$n.txt" 2>&1 || die "bundle at N=$n failed"
	bsize=$(stat -c %s "$W/b.$n.tar.zst")

	fresh "$W/plan.$n.yaml" "$n"
	run_apply "online.$n" "$W/plan.$n.yaml"
	printf 'online-today\t%s\tupstream %s B\twall %.1f s\t%s\n' "$n" "$(fetched "online.$n")" \
		"$WALL" "$(slowest "online.$n")" | tee -a "$TSV"

	fresh "$W/plan.$n.relay.yaml" "$n"
	run_apply "relay.$n" "$W/plan.$n.relay.yaml"
	# upstream: what apt-cacher-ng fetched, and what the head fetched
	# itself to install it
	printf 'online-relay\t%s\tupstream %s B + %s B (served %s B; nodes fetched %s B)\twall %.1f s\t%s\n' "$n" \
		"$(acng I)" "$(fetched "relay.$n" relay)" "$(acng O)" "$(fetched "relay.$n")" "$WALL" \
		"$(slowest "relay.$n")" | tee -a "$TSV"

	fresh "$W/plan.$n.yaml" "$n"
	run_apply "bundle.$n" --bundle "$W/b.$n.tar.zst" "$W/plan.$n.yaml"
	printf 'bundle-today\t%s\tworkstation %s B (bundle %s B)\twall %.1f s\t%s\n' "$n" "$WCHAR" \
		"$bsize" "$WALL" "$(slowest "bundle.$n")" | tee -a "$TSV"

	fresh "$W/plan.$n.relay.yaml" "$n"
	run_apply "bundle-relay.$n" --bundle "$W/b.$n.tar.zst" "$W/plan.$n.relay.yaml"
	printf 'bundle-relay\t%s\tworkstation %s B (bundle %s B)\twall %.1f s\t%s\n' "$n" "$WCHAR" \
		"$bsize" "$WALL" "$(slowest "bundle-relay.$n")" | tee -a "$TSV"
	"$ROOT/scripts/testbed" down --purge "$W/plan.$n.yaml" >/dev/null 2>&1 || true
done
echo "# $(date -u '+%F %T') load: $(cut -d' ' -f1-3 /proc/loadavg)" | tee -a "$TSV"

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
#   bundle, today    apply --bundle: bytes the workstation sent the
#                    nodes, on the wire
#   bundle, relay    the same with the relay serving the bundle
#
# and the wall time of each apply, with its slowest steps.  Workstation
# bytes are counted on the wire: an iptables rule (OUTPUT, to the nodes'
# port 22) counts what the workstation sends them, SSH and TCP headers
# included; the nodes' traffic to the relay is not on port 22.  The
# wchar printed beside it is provision's own write(2) count: libssh2
# sends with send(2), which wchar does not count, so it is the local
# tar of the bundle's repository, state and logs only.
#
# IMAGES=1: the nodes run containerd and the bundle holds a container
# image (tests/e2e/oci_registry.py's busybox, IMAGE_KB a layer), so the
# bundle rows show what the images cost the workstation's link with and
# without the relay; the online rows are skipped (t107 checks the image
# cache).  Run by hand, under the testbed lock (flock -o
# /tmp/provision-testbed.lock bench/relay.sh); never in make test.
# Environment: NS ("2 8"), MODES (the rows to run, default all four:
# "online-today online-relay bundle-today bundle-relay"), IMAGES,
# PROVISION, TESTBED_DIR.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
PROVISION=${PROVISION:-$ROOT/provision}
TB=${TESTBED_DIR:-/var/tmp/provision-testbed}
NS=${NS:-2 8}
MODES=${MODES:-online-today online-relay bundle-today bundle-relay}
W=${RELAY_BENCH_DIR:-/tmp/provision-relay-bench}
EXTRAS="hello, figlet, vim, tmux, rsync, strace"
TSV=$W/results.tsv
IMAGES=${IMAGES:-0}
IMAGE=docker.io/library/busybox:1.36
REG_PID=
WIRE_RULE=(OUTPUT -d 127.0.14.0/24 -p tcp --dport 22 -m comment --comment provision-relay-bench)
export PROVISION

bench_end() {
	[ -n "$REG_PID" ] && kill "$REG_PID" 2>/dev/null
	iptables -D "${WIRE_RULE[@]}" 2>/dev/null || true
}
trap bench_end EXIT

die() { echo "relay.sh: $*" >&2; exit 1; }

want() { case " $MODES " in *" $1 "*) return 0 ;; esac; return 1; }

# plan N RELAY(0|1): nodes rb-01.. on 127.0.14.1..
ENGINE=none
[ "$IMAGES" = 1 ] && ENGINE=containerd
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
  container_runtime: { engine: $ENGINE }
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
			'rm -f /var/cache/apt/archives/*.deb; rm -rf /var/lib/apt/lists/*_Packages*
			 # containerd needs a cgroup hierarchy (t103)
			 [ "'"$IMAGES"'" = 1 ] || exit 0
			 grep -qs " /sys/fs/cgroup cgroup" /proc/self/mounts ||
				mount -t cgroup2 cgroup2 /sys/fs/cgroup'
	done
}

wire() {	# wire: bytes sent to the nodes' port 22 since the last call
	iptables -nvx -L OUTPUT | awk '/provision-relay-bench/ { print $2; exit }'
	iptables -Z OUTPUT 1
}

# run_apply NAME ARGS...: apply, its wall time and the bytes it wrote
run_apply() {
	local name=$1 pid t0 t1 wchar=0 w
	shift
	wire >/dev/null
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
	WIRE=$(wire)
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

# bundle_runs N: apply --bundle without and with the relay
bundle_runs() {
	local n=$1
	if want bundle-today; then
		fresh "$W/plan.$n.yaml" "$n"
		run_apply "bundle.$n" --bundle "$W/b.$n.tar.zst" "$W/plan.$n.yaml"
		printf 'bundle-today\t%s\tworkstation %s B on the wire, wchar %s B (bundle %s B%s)\twall %.1f s\t%s\n' \
			"$n" "$WIRE" "$WCHAR" "$bsize" "${isize:+, images $isize B}" "$WALL" \
			"$(slowest "bundle.$n")" | tee -a "$TSV"
	fi
	want bundle-relay || return 0
	fresh "$W/plan.$n.relay.yaml" "$n"
	run_apply "bundle-relay.$n" --bundle "$W/b.$n.tar.zst" "$W/plan.$n.relay.yaml"
	printf 'bundle-relay\t%s\tworkstation %s B on the wire, wchar %s B (bundle %s B%s)\twall %.1f s\t%s\n' \
		"$n" "$WIRE" "$WCHAR" "$bsize" "${isize:+, images $isize B}" "$WALL" \
		"$(slowest "bundle-relay.$n")" | tee -a "$TSV"
}

mkdir -p "$W"
: >"$TSV"
# first in OUTPUT, so its counter sees every packet to the nodes' sshd
iptables -D "${WIRE_RULE[@]}" 2>/dev/null || true
iptables -I "${WIRE_RULE[@]:0:1}" 1 "${WIRE_RULE[@]:1}"
BUNDLE_ARGS=()
if [ "$IMAGES" = 1 ]; then
	python3 "$ROOT/tests/e2e/oci_registry.py" "$W/reg" --port-file "$W/rport" \
		--diff-ids --image "${IMAGE#docker.io/}" >/dev/null 2>&1 &
	REG_PID=$!
	for _ in $(seq 1 60); do [ -s "$W/rport" ] && break; sleep 0.5; done
	[ -s "$W/rport" ] || die "the test registry did not start"
	BUNDLE_ARGS=(--registry-mirror "docker.io=http://127.0.0.1:$(cat "$W/rport")" --image "$IMAGE")
fi
# the bundles are signed; the plans pin the key
[ -f "$W/bundle.key" ] || (umask 077 && openssl genpkey -algorithm ed25519 -out "$W/bundle.key")
openssl pkey -in "$W/bundle.key" -pubout -out "$W/bundle.pub"
echo "# $(date -u '+%F %T') load: $(cut -d' ' -f1-3 /proc/loadavg)" | tee -a "$TSV"
for n in $NS; do
	plan "$n" 0 >"$W/plan.$n.yaml"
	plan "$n" 1 >"$W/plan.$n.relay.yaml"
	"$PROVISION" bundle "$W/plan.$n.relay.yaml" -o "$W/b.$n.tar.zst" --sign "$W/bundle.key" \
		--cache "$TB/bundle-cache" "${BUNDLE_ARGS[@]}" >"$W/bundle.$n.txt" 2>&1 ||
		die "bundle at N=$n failed"
	bsize=$(stat -c %s "$W/b.$n.tar.zst")

	if [ "$IMAGES" = 1 ]; then
		# bytes of the images tar apply makes: the bundle's images/
		isize=$(tar -tvf "$W/b.$n.tar.zst" 2>/dev/null | awk '$NF ~ /^images\// { s += $3 } END { print s + 0 }')
		bundle_runs "$n"
		continue
	fi
	if want online-today; then
		fresh "$W/plan.$n.yaml" "$n"
		run_apply "online.$n" "$W/plan.$n.yaml"
		printf 'online-today\t%s\tupstream %s B\twall %.1f s\t%s\n' "$n" "$(fetched "online.$n")" \
			"$WALL" "$(slowest "online.$n")" | tee -a "$TSV"
	fi
	if want online-relay; then
		fresh "$W/plan.$n.relay.yaml" "$n"
		run_apply "relay.$n" "$W/plan.$n.relay.yaml"
		# upstream: what apt-cacher-ng fetched, and what the head
		# fetched itself to install it
		printf 'online-relay\t%s\tupstream %s B + %s B (served %s B; nodes fetched %s B)\twall %.1f s\t%s\n' "$n" \
			"$(acng I)" "$(fetched "relay.$n" relay)" "$(acng O)" "$(fetched "relay.$n")" "$WALL" \
			"$(slowest "relay.$n")" | tee -a "$TSV"
	fi

	bundle_runs "$n"
	"$ROOT/scripts/testbed" down --purge "$W/plan.$n.yaml" >/dev/null 2>&1 || true
done
echo "# $(date -u '+%F %T') load: $(cut -d' ' -f1-3 /proc/loadavg)" | tee -a "$TSV"

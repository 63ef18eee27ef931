#!/usr/bin/env bash
# fanout.sh: provision at up to 1,000 hosts on the loopback fleet of
# ../shared/bench against pdsh and xargs+ssh, in one run, each command once
# per round, rounds interleaved so the machine's load weighs on all alike:
#
#   exec    `true` on N hosts: provision exec, pdsh, xargs -P N ssh
#   apply   an idempotent re-apply of bench/apply-plan.sh N with
#           bench/apply-templates (read-only checks): provision apply;
#           the peers run the very scripts `apply --dry-run` renders, one
#           `sh -s` per host fed the node's steps (xargs+ssh), or pdsh
#           running each host's script from this machine's disk (the
#           fleet is this machine: pdsh's copy costs it nothing)
#   copy    a 10 MiB file to N hosts, written under a temporary name,
#           checked on the host and renamed: provision exec --copy against
#           xargs with scp to NAME.tmp, then `sha256sum -c` and `mv` over ssh
#
# Each figure: wall seconds, client CPU (user+sys of the command and its
# children, GNU time), largest process (max RSS, MiB).  Prints a TSV line
# per run and a table of medians.  Run by hand, under the e2e lock
# (flock -o /tmp/provision-e2e.lock bench/fanout.sh); never in make test.
#
# Environment: NS ("200 1000"), COPY_NS ("50 200"), ROUNDS (3), CONNECT_S
# (provision's connect timeout, 120), TREE_RUNS (1: the memory runs), FLEET_DIR
# (/tmp/fleet-relay: a fleet of its own), FLEET_PORT (2232), PROVISION,
# BENCH_SHARED (../shared/bench).
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
BENCH_SHARED=${BENCH_SHARED:-$(cd "$ROOT/.." && pwd)/shared/bench}
export FLEET_DIR=${FLEET_DIR:-/tmp/fleet-relay}
export FLEET_PORT=${FLEET_PORT:-2232}
PROVISION=${PROVISION:-$ROOT/provision}
NS=${NS:-200 1000}
COPY_NS=${COPY_NS:-50 200}
ROUNDS=${ROUNDS:-3}
# The fleet is ONE sshd: a thousand handshakes at once queue behind each
# other for tens of seconds, which provision's default 10 s banner
# timeout (30 s in the plan) cuts off; pdsh and ssh have no such limit.
CONNECT_S=${CONNECT_S:-120}
TREE_RUNS=${TREE_RUNS:-1}
W=${FANOUT_DIR:-/tmp/provision-fanout-bench}
TSV=$W/results.tsv
BENCH_RUN_DIRS=/run/provision-bench	# apply-templates' per-host listings

die() { echo "fanout.sh: $*" >&2; exit 1; }

max_n() {
	local m=0 n
	for n in $NS $COPY_NS; do ((n > m)) && m=$n; done
	echo "$m"
}

setup() {
	[[ -x $PROVISION ]] || die "no provision binary at $PROVISION (make)"
	command -v pdsh >/dev/null || die "no pdsh (apt-get install pdsh)"
	[[ -x /usr/bin/time ]] || die "no GNU time (apt-get install time)"
	ulimit -n "$(ulimit -Hn)"
	mkdir -p "$W"
	"$BENCH_SHARED/fleet.sh" up "$(max_n)" >&2
	eval "$("$BENCH_SHARED/fleet.sh" env)"
	head -c $((10 << 20)) /dev/urandom >"$W/blob10m.bin"
	SUM=$(sha256sum <"$W/blob10m.bin" | cut -d' ' -f1)
}

# measure SERIES N COMMAND...: one timed run; a TSV line
measure() {
	local series=$1 n=$2 t
	if [[ ${TREE:-0} = 1 ]]; then
		measure_tree "$@"
		return
	fi
	shift 2
	t=$W/time.$$
	if ! /usr/bin/time -o "$t" -f '%e %U %S %M' "$@" >"$W/out.$series.$n" 2>"$W/err.$series.$n"; then
		echo "fanout.sh: $series at N=$n failed (not counted):" >&2
		tail -n 3 "$W/out.$series.$n" "$W/err.$series.$n" >&2
		return 0
	fi
	read -r wall usr sys rss <"$t"
	printf '%s\t%s\t%s\t%s\t%s\n' "$series" "$n" "$wall" \
		"$(echo "$usr + $sys" | bc)" "$((rss / 1024))" | tee -a "$TSV"
}

# With TREE=1 `measure` samples the whole tree's memory instead
# (treemem.py: peak PSS summed over the command and its children, the
# N ssh processes of pdsh and xargs included); one untimed run.
measure_tree() {
	local series=$1 n=$2 r
	shift 2
	r=$(python3 "$BENCH_SHARED/treemem.py" -- "$@" 2>/dev/null | tail -n 1)
	printf '%s\t%s\t%s\n' "$series" "$n" "$(sed -n 's/.*tree_pss_peak_mib=\([0-9.]*\).*/\1/p' <<<"$r")" |
		tee -a "$W/tree.tsv"
}

hosts() {	# hosts N: the first N fleet addresses, one a line
	head -n "$1" "$FLEET_HOSTS" >"$W/hosts.$1"
	echo "$W/hosts.$1"
}

# ----------------------------------------------------------------- exec

exec_round() {
	local n=$1 hf
	hf=$(hosts "$n")
	measure exec-provision "$n" "$PROVISION" exec --hosts "$hf" -p "$FLEET_PORT" \
		-i "$FLEET_KEY" --known-hosts "$FLEET_KNOWN_HOSTS" -f "$n" \
		--connect-timeout "$CONNECT_S" -- true
	measure exec-pdsh "$n" env PDSH_SSH_ARGS="-F $FLEET_SSH_CONFIG -a -x -l%u %h" \
		pdsh -R ssh -f "$n" -w "^$hf" true
	measure exec-xargs-ssh "$n" xargs -a "$hf" -P "$n" -I{} ssh -F "$FLEET_SSH_CONFIG" {} true
}

# ----------------------------------------------------------------- apply

# The plan and, per host, its steps as one script (what the peers run).
apply_prepare() {
	local n=$1 d
	"$ROOT/bench/apply-plan.sh" "$n" |
		sed "s/connect_timeout_s: 30/connect_timeout_s: $CONNECT_S/" >"$W/plan.$n.yaml"
	# the same with every host connecting at once (no max_startups)
	sed 's/^  forks: 64$/&\n  max_startups: 4096/' "$W/plan.$n.yaml" >"$W/plan-nocap.$n.yaml"
	rm -rf "$W/dry.$n" "$W/scripts.$n"
	"$PROVISION" apply --dry-run "$W/dry.$n" --templates "$ROOT/bench/apply-templates" \
		"$W/plan.$n.yaml" >/dev/null
	mkdir -p "$W/scripts.$n"
	# Each step in an sh of its own (a step script ends its shell).  A
	# step exits 100 when it changed something and 101 when it skipped,
	# as apply reads them; anything else ends the host's script.  The
	# last line says the host ran every step (counted by peer_check).
	for d in "$W/dry.$n"/*/; do
		for f in "$d"*.sh; do
			printf "sh <<'BENCH_STEP_EOF'\n"
			cat "$f"
			printf 'BENCH_STEP_EOF\n'
			printf 'r=$?; [ $r = 0 ] || [ $r = 100 ] || [ $r = 101 ] || exit 1\n'
		done >"$W/scripts.$n/$(basename "$d").sh"
		echo 'echo bench-host-done' >>"$W/scripts.$n/$(basename "$d").sh"
	done
	# address -> its node's script, for the peers
	"$PROVISION" ls --json "$W/plan.$n.yaml" | python3 -c '
import json, sys
for nd in json.load(sys.stdin)["nodes"]:
    print(nd["address"], nd["name"])' >"$W/map.$n"
	while read -r a name; do
		ln -sf "$W/scripts.$n/$name.sh" "$W/scripts.$n/$a.sh"
	done <"$W/map.$n"
}

# peer_check SERIES N: every host of a peer's run printed its last line
peer_check() {
	local done
	[[ ${TREE:-0} = 1 ]] && return 0
	done=$(grep -c 'bench-host-done$' "$W/out.$1.$2" || true)
	[[ $done = "$2" ]] || echo "fanout.sh: $1 at N=$2: $done of $2 hosts ran every step" >&2
}

apply_round() {
	local n=$1 hf
	hf=$(hosts "$n")
	rm -rf "${BENCH_RUN_DIRS:?}"/* "$W/state.$n"
	measure apply-provision "$n" "$PROVISION" apply --plain --templates "$ROOT/bench/apply-templates" \
		--state-dir "$W/state.$n" -f "$n" "$W/plan.$n.yaml"
	rm -rf "${BENCH_RUN_DIRS:?}"/* "$W/state.$n"
	[[ ${TREE:-0} = 1 ]] ||
	measure apply-provision-nocap "$n" "$PROVISION" apply --plain --templates "$ROOT/bench/apply-templates" \
		--state-dir "$W/state.$n" -f "$n" "$W/plan-nocap.$n.yaml"
	rm -rf "${BENCH_RUN_DIRS:?}"/*
	measure apply-xargs-ssh "$n" xargs -a "$hf" -P "$n" -I{} \
		sh -c 'ssh -F "$1" "$2" sh -s <"$3/$2.sh"' sh "$FLEET_SSH_CONFIG" {} "$W/scripts.$n"
	peer_check apply-xargs-ssh "$n"
	rm -rf "${BENCH_RUN_DIRS:?}"/*
	measure apply-pdsh "$n" env PDSH_SSH_ARGS="-F $FLEET_SSH_CONFIG -a -x -l%u %h" \
		pdsh -R ssh -f "$n" -w "^$hf" "sh $W/scripts.$n/%h.sh"
	peer_check apply-pdsh "$n"
}

# ----------------------------------------------------------------- copy

copy_round() {
	local n=$1 hf
	hf=$(hosts "$n")
	rm -rf "$FLEET_DIR/dst"; mkdir -p "$FLEET_DIR/dst"
	measure copy-provision "$n" "$PROVISION" exec --hosts "$hf" -p "$FLEET_PORT" \
		-i "$FLEET_KEY" --known-hosts "$FLEET_KNOWN_HOSTS" -f "$n" \
		--connect-timeout "$CONNECT_S" \
		--copy "$W/blob10m.bin" --dest "$FLEET_DIR/dst/blob.bin"
	rm -rf "$FLEET_DIR/dst"; mkdir -p "$FLEET_DIR/dst"
	# the same work: temporary name, checksum on the host, atomic rename
	measure copy-xargs-scp-check "$n" xargs -a "$hf" -P "$n" -I{} sh -c '
		scp -q -F "$1" "$2" "$3:$4/$3.tmp" &&
		ssh -F "$1" "$3" "cd $4 && echo \"$5  $3.tmp\" | sha256sum -c --quiet && mv -f $3.tmp blob.bin"' \
		sh "$FLEET_SSH_CONFIG" "$W/blob10m.bin" {} "$FLEET_DIR/dst" "$SUM"
	[[ -z $(find "$FLEET_DIR/dst" -name '*.tmp') ]] && sha256sum -c --quiet <<<"$SUM  $FLEET_DIR/dst/blob.bin" ||
		echo "fanout.sh: copy-xargs-scp-check at N=$n: a host did not finish" >&2
}

# ----------------------------------------------------------------- table

table() {
	python3 - "$TSV" "$W/tree.tsv" <<'PY'
import sys, statistics, collections
rows = collections.defaultdict(list)
for line in open(sys.argv[1]):
    s, n, wall, cpu, rss = line.split("\t")
    rows[(s, int(n))].append((float(wall), float(cpu), int(rss)))
tree = {}
try:
    for line in open(sys.argv[2]):
        s, n, pss = line.rstrip("\n").split("\t")
        if pss:
            tree[(s, int(n))] = float(pss)
except FileNotFoundError:
    pass
print("| series | N | wall s (min-max) | client CPU s | largest process MiB | tree PSS MiB | tree PSS KiB per host |")
print("|---|---|---|---|---|---|---|")
for (s, n), v in sorted(rows.items()):
    w = [x[0] for x in v]
    t = tree.get((s, n))
    print(f"| {s} | {n} | {statistics.median(w):.2f} ({min(w):.2f}-{max(w):.2f}) | "
          f"{statistics.median(x[1] for x in v):.2f} | {statistics.median(x[2] for x in v)} | "
          + (f"{t:.0f} | {t * 1024 / n:.0f} |" if t is not None else "- | - |"))
PY
}

case ${1:-all} in
table) table; exit 0 ;;
all) ;;
*) die "usage: fanout.sh [all|table]" ;;
esac
setup
: >"$TSV"
echo "# $(date -u '+%F %T') load: $(cut -d' ' -f1-3 /proc/loadavg)" >&2
for n in $NS; do apply_prepare "$n"; done
for _ in $(seq 1 "$ROUNDS"); do
	for n in $NS; do
		exec_round "$n"
		apply_round "$n"
	done
	for n in $COPY_NS; do copy_round "$n"; done
done
: >"$W/tree.tsv"
if [[ $TREE_RUNS = 1 ]]; then
	TREE=1
	for n in $NS; do
		exec_round "$n"
		apply_round "$n"
	done
fi
echo "# $(date -u '+%F %T') load: $(cut -d' ' -f1-3 /proc/loadavg)" >&2
"$BENCH_SHARED/fleet.sh" down >&2
table

#!/bin/sh
# t001-testbed: two testbed nodes come up with a real sshd each, are
# isolated from the host and from each other, and `down` leaves nothing
# running or mounted.
#
#   sh tests/e2e/t001-testbed.sh          (as root)
#
# Uses its own TESTBED_DIR under /tmp and the shared base root
# (TESTBED_BASE, default /var/tmp/provision-testbed/base; built there on
# first use, about 30 s).  TESTBED_TEST_APT=1 also installs a package from
# the Debian mirror inside a node.  Exits 77 when not root.

set -u

top=$(cd "$(dirname "$0")/../.." && pwd)
testbed=$top/scripts/testbed

if [ "$(id -u)" != 0 ]; then
	echo "# skip: t001-testbed needs root"
	exit 77
fi

# Its addresses are its own, but two runs of it at once are not: take the
# testbed lock of tests/e2e/lib.sh for the whole test.
exec 8>>/tmp/provision-testbed.lock && flock 8 || exit 1

TESTBED_BASE=${TESTBED_BASE:-/var/tmp/provision-testbed/base}
TESTBED_DIR=$(mktemp -d /tmp/t001-testbed.XXXXXX) || exit 1
export TESTBED_BASE TESTBED_DIR
unset TESTBED_APT_CACHE

N1=t001-a A1=127.0.77.1
N2=t001-b A2=127.0.77.2
NODES="$N1=$A1 $N2=$A2"

num=0
passed=0
failed=0
out=$TESTBED_DIR/out

ok() {
	num=$((num + 1))
	passed=$((passed + 1))
	echo "ok $num - $1"
}

not_ok() {
	num=$((num + 1))
	failed=$((failed + 1))
	echo "not ok $num - $1"
	if [ -s "$out" ]; then
		sed 's/^/#   /' "$out" | head -n 30
	fi
}

# check DESCRIPTION COMMAND...: the command's output goes to $out, shown
# only on failure.
check() {
	desc=$1
	shift
	if "$@" >"$out" 2>&1; then ok "$desc"; else not_ok "$desc"; fi
}

cleanup() {
	"$testbed" down --purge --nodes "$NODES" >/dev/null 2>&1
	if ! grep -qF "$TESTBED_DIR" /proc/self/mountinfo; then
		rm -rf "$TESTBED_DIR"
	fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

sshn() {
	user=$1
	addr=$2
	shift 2
	ssh -F /dev/null -i "$TESTBED_DIR/id_ed25519" \
		-o IdentitiesOnly=yes -o IdentityAgent=none -o BatchMode=yes \
		-o StrictHostKeyChecking=yes \
		-o UserKnownHostsFile="$TESTBED_DIR/known_hosts" \
		-o GlobalKnownHostsFile=/dev/null \
		-o ConnectTimeout=5 -o LogLevel=ERROR \
		"$user@$addr" "$@" </dev/null
}

# The pids line field F (2 pid, 4 pid namespace) of node N.
pids_field() {
	awk -v n="$1" -v f="$2" '$1 == n { print $f }' "$TESTBED_DIR/pids" 2>/dev/null
}

# Host pids of every process in PID namespace $1.
procs_in_ns() {
	for p in /proc/[0-9]*; do
		[ "$(readlink "$p/ns/pid" 2>/dev/null)" = "$1" ] && echo "${p#/proc/}"
	done
	return 0
}

# ------------------------------------------------------------------ up

host_name=$(hostname)
host_pidns=$(readlink /proc/self/ns/pid)
host_init=$(cat /proc/1/comm)

t0=$(date +%s.%N)
# Under a lock, as a test harness calls it: the nodes must not inherit the
# lock's descriptor, or the lock stays held for as long as they run.
check "up brings up $N1 and $N2" flock "$TESTBED_DIR/caller.lock" "$testbed" up --nodes "$NODES"
t1=$(date +%s.%N)
check "the running nodes hold nothing their caller had open (its lock)" \
	flock -n "$TESTBED_DIR/caller.lock" true
echo "# up took $(echo "$t0 $t1" | awk '{ printf "%.2f", $2 - $1 }') s"

known_hosts_ok() {
	cat "$TESTBED_DIR/known_hosts"
	[ "$(wc -l <"$TESTBED_DIR/known_hosts")" -eq 2 ] || return 1
	k1=$(awk -v a="$A1" '$1 == a && $2 == "ssh-ed25519" { print $3 }' "$TESTBED_DIR/known_hosts")
	k2=$(awk -v a="$A2" '$1 == a && $2 == "ssh-ed25519" { print $3 }' "$TESTBED_DIR/known_hosts")
	[ -n "$k1" ] && [ -n "$k2" ] && [ "$k1" != "$k2" ]
}
check "known_hosts has one distinct ed25519 host key per node address" known_hosts_ok

status_up() {
	"$testbed" status --nodes "$NODES" || return 1
	"$testbed" status --nodes "$NODES" | grep -qE "^$N1 +$A1 +[0-9]+ +up +sshd-ok\$" &&
		"$testbed" status --nodes "$NODES" | grep -qE "^$N2 +$A2 +[0-9]+ +up +sshd-ok\$"
}
check "status shows both nodes up with sshd answering" status_up

# ------------------------------------------------------------------ ssh

hostname_is() {
	h=$(sshn root "$1" hostname) || return 1
	echo "got '$h', want '$2'"
	[ "$h" = "$2" ]
}
check "ssh root@$A1 (strict host key) runs on $N1" hostname_is "$A1" "$N1"
check "ssh root@$A2 (strict host key) runs on $N2" hostname_is "$A2" "$N2"
check "the host's hostname is unchanged" test "$(hostname)" = "$host_name"

wrong_host_key_refused() {
	k2=$(awk -v a="$A2" '$1 == a { print $2, $3 }' "$TESTBED_DIR/known_hosts")
	echo "$A1 $k2" >"$TESTBED_DIR/wrong_known_hosts"
	! ssh -F /dev/null -i "$TESTBED_DIR/id_ed25519" -o IdentitiesOnly=yes \
		-o BatchMode=yes -o StrictHostKeyChecking=yes \
		-o UserKnownHostsFile="$TESTBED_DIR/wrong_known_hosts" \
		-o GlobalKnownHostsFile=/dev/null -o ConnectTimeout=5 \
		"root@$A1" true </dev/null
}
check "ssh to $A1 fails when known_hosts holds $N2's host key" wrong_host_key_refused

other_key_refused() {
	ssh-keygen -q -t ed25519 -N '' -f "$TESTBED_DIR/other_key" || return 1
	! ssh -F /dev/null -i "$TESTBED_DIR/other_key" -o IdentitiesOnly=yes \
		-o IdentityAgent=none -o BatchMode=yes -o StrictHostKeyChecking=yes \
		-o UserKnownHostsFile="$TESTBED_DIR/known_hosts" \
		-o GlobalKnownHostsFile=/dev/null -o ConnectTimeout=5 \
		"root@$A1" true </dev/null
}
check "a key other than the testbed key is refused" other_key_refused

deploy_sudo() {
	r=$(sshn deploy "$A2" 'id -un; sudo -n id -u') || return 1
	echo "$r"
	[ "$r" = "deploy
0" ]
}
check "deploy logs in with the testbed key and has passwordless sudo" deploy_sudo

# ------------------------------------------------------------------ isolation

pidns_separate() {
	ns1=$(sshn root "$A1" 'readlink /proc/self/ns/pid') || return 1
	ns2=$(sshn root "$A2" 'readlink /proc/self/ns/pid') || return 1
	init1=$(sshn root "$A1" 'cat /proc/1/comm') || return 1
	count=$(sshn root "$A1" 'ps -e --no-headers | wc -l') || return 1
	echo "host $host_pidns ($host_init), $N1 $ns1 ($init1, $count processes), $N2 $ns2"
	[ "$ns1" != "$host_pidns" ] && [ "$ns2" != "$host_pidns" ] &&
		[ "$ns1" != "$ns2" ] && [ "$init1" != "$host_init" ] &&
		[ "$count" -lt 20 ]
}
check "each node has its own PID namespace with its own PID 1" pidns_separate

file_isolation() {
	sshn root "$A1" 'echo t001 >/root/t001-marker && echo t001 >/etc/t001-marker' || return 1
	sshn root "$A1" 'test -f /root/t001-marker && test -f /etc/t001-marker' || return 1
	sshn root "$A2" 'test ! -e /root/t001-marker && test ! -e /etc/t001-marker' || return 1
	test ! -e "$TESTBED_BASE/etc/t001-marker" && test ! -e /etc/t001-marker &&
		test -f "$TESTBED_DIR/nodes/$N1/upper/etc/t001-marker"
}
check "a file written in $N1 is not seen by $N2, the base or the host" file_isolation

apt_cache_shared() {
	cache=$(dirname "$TESTBED_BASE")/apt-cache
	want=$(find "$cache" -maxdepth 1 -name '*.deb' | wc -l)
	got=$(sshn root "$A2" 'ls /var/cache/apt/archives | grep -c "\.deb$"') || return 1
	echo "host cache $want .debs, node sees $got"
	[ "$want" -gt 0 ] && [ "$got" -eq "$want" ]
}
check "the shared apt cache is visible in the node's /var/cache/apt/archives" apt_cache_shared

daemon_and_reaping() {
	sshn root "$A1" 'setsid sleep 31337 </dev/null >/dev/null 2>&1 &' || return 1
	sshn root "$A1" 'sh -c "sleep 0.2 &"; sleep 1' || return 1
	ps_out=$(sshn root "$A1" 'ps -eo stat=,args=') || return 1
	echo "$ps_out"
	echo "$ps_out" | grep -q 'sleep 31337' &&
		! echo "$ps_out" | grep -q '^Z'
}
check "a daemon started over ssh outlives its session, orphans are reaped" daemon_and_reaping

if [ "${TESTBED_TEST_APT:-0}" = 1 ]; then
	apt_install() {
		sshn root "$A2" 'apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends less && less --version'
	}
	check "apt-get installs a package from the mirror inside $N2" apt_install
fi

idempotent_up() {
	before=$(cat "$TESTBED_DIR/pids")
	"$testbed" up --nodes "$NODES" || return 1
	after=$(cat "$TESTBED_DIR/pids")
	echo "before: $before"
	echo "after: $after"
	[ "$before" = "$after" ]
}
check "a second up leaves the running nodes alone" idempotent_up

# ------------------------------------------------------------------ down

pid1=$(pids_field "$N1" 2)
pid2=$(pids_field "$N2" 2)
ns1=$(pids_field "$N1" 4)
ns2=$(pids_field "$N2" 4)

check "down stops both nodes" "$testbed" down --nodes "$NODES"

nothing_left() {
	echo "pids $pid1 $pid2, namespaces $ns1 $ns2"
	[ -n "$pid1" ] && [ -n "$pid2" ] && [ -n "$ns1" ] && [ -n "$ns2" ] || return 1
	left=$(procs_in_ns "$ns1"; procs_in_ns "$ns2")
	echo "left: $left"
	[ -z "$left" ] && [ ! -d "/proc/$pid1/ns" ] && [ ! -d "/proc/$pid2/ns" ]
}
check "no process of either node remains" nothing_left

no_mounts() {
	! grep -F "$TESTBED_DIR" /proc/self/mountinfo &&
		! grep -F "$TESTBED_DIR" /proc/1/mountinfo
}
check "no mount under the testbed folder remains" no_mounts

no_listener() {
	ss -Hltn 'sport = :22' | awk '{ print $4 }'
	! ss -Hltn 'sport = :22' | awk '{ print $4 }' | grep -qE "^($A1|$A2):22\$"
}
check "nothing listens on port 22 of the node addresses" no_listener

status_down() {
	s=$("$testbed" status --nodes "$NODES") && return 1
	echo "$s"
	echo "$s" | grep -qE "^$N1 +$A1 +- +down" && echo "$s" | grep -qE "^$N2 +$A2 +- +down"
}
check "status shows both nodes down and exits non-zero" status_down

kept() {
	test -f "$TESTBED_BASE/.testbed-stamp" &&
		test -f "$TESTBED_DIR/nodes/$N1/upper/root/t001-marker"
}
check "down keeps the base root and the node overlays" kept

purge() {
	"$testbed" down --purge --nodes "$NODES" || return 1
	test ! -e "$TESTBED_DIR/nodes/$N1" && test ! -e "$TESTBED_DIR/nodes/$N2" &&
		test -f "$TESTBED_BASE/.testbed-stamp"
}
check "down --purge removes the node overlays and keeps the base" purge

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]

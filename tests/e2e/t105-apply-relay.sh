#!/bin/sh
# t105-apply-relay: the package relay on the local testbed, from the real
# binary (tests/fixtures/relay/testbed-relay.yaml: a head relaying for two
# workers).  apply sets apt-cacher-ng up on the head before any node
# installs; every node's apt goes through it, so a package the three nodes
# install crosses the uplink once (apt-cacher-ng's own log: one download
# from upstream, three deliveries); a second apply changes nothing; with
# the relay stopped a worker's install waits, backing off, and finishes
# once the relay is back; kept down, the install fails after
# software.relay.retry_s, naming the relay.
#
#   sh tests/e2e/t105-apply-relay.sh        (as root, under the e2e lock)
# SAN=1: not run: apt-cacher-ng and dpkg take its time: the engine is
#   t100's and t101's
. "$(dirname "$0")/lib.sh"
set -u
[ "$(id -u)" -eq 0 ] || skip_all "needs root (namespaces, debootstrap)"
cd "$TOP" || exit 1

PLAN=tests/fixtures/relay/testbed-relay.yaml
TB=${TESTBED_DIR:-/var/tmp/provision-testbed}
W=$(mktemp -d /tmp/t105.XXXXXX)
KEY=$TB/id_ed25519	# used by on()
KH=$TB/known_hosts
HEAD=127.0.10.21
W1=127.0.10.22
W2=127.0.10.23
ACNG_LOG=/var/log/apt-cacher-ng/apt-cacher.log
export PROVISION

cleanup() {
	[ -n "${APID:-}" ] && kill "$APID" 2>/dev/null
	scripts/testbed down --purge "$PLAN" >/dev/null 2>&1
	rm -rf "$W"
}
if command -v testbed_lock >/dev/null 2>&1; then
	testbed_lock
fi
trap cleanup EXIT INT TERM

# The same plan, but a relay that stopped answering fails a node after 6 s.
sed 's/retry_s: 60/retry_s: 6/' "$PLAN" >"$W/short.yaml"

# Fresh disks, and no copy of the extras in the nodes' .deb caches (the
# testbed shares one): they must come through the relay.
scripts/testbed down --purge "$PLAN" >/dev/null 2>&1
check "testbed up" scripts/testbed up "$PLAN"
for a in $HEAD $W1 $W2; do
	on $a 'rm -f /var/cache/apt/archives/hello_*.deb /var/cache/apt/archives/figlet_*.deb'
done

"$PROVISION" apply --plain --state-dir "$W/state" "$PLAN" >"$W/apply1.txt" 2>&1
rc=$?
if [ $rc -eq 0 ] && grep -q '3 nodes: 3 ok, 0 failed' "$W/apply1.txt"; then
	ok "first apply: 3 nodes ok"
else
	not_ok "first apply: 3 nodes ok (exit $rc)"
	sed 's/^/# /' "$W/apply1.txt" | tail -30
fi
# The relay step ran on the head before any other step on any node.
first=$(grep -E ' (relay|base|extras) +(ok|changed|skipped|failed)' "$W/apply1.txt" | head -n 1)
case $first in
*relay-head*relay*) ok "the relay is set up on the head first" ;;
*) not_ok "the relay is set up on the head first (first result: $first)" ;;
esac

for a in $W1 $W2 $HEAD; do
	on $a 'cat /etc/apt/apt.conf.d/90provision-relay' >"$W/conf.$a" 2>&1
done
grep -q 'Acquire::http::Proxy "http://127.0.10.21:3149/";' "$W/conf.$W1" &&
	grep -q 'Acquire::http::Proxy "http://127.0.10.21:3149/";' "$W/conf.$W2" &&
	grep -q 'Acquire::http::Proxy "http://127.0.10.21:3149/";' "$W/conf.$HEAD" &&
	ok "every node's apt goes through the relay (its own file)" ||
	{ not_ok "every node's apt goes through the relay"; sed 's/^/# /' "$W/conf.$W1"; }
for a in $W1 $W2; do
	on $a 'hello' >"$W/hello.$a" 2>&1
done
grep -q 'Hello, world!' "$W/hello.$W1" && grep -q 'Hello, world!' "$W/hello.$W2" &&
	ok "the workers run what they installed through the relay" ||
	not_ok "hello runs on the workers"

# apt-cacher-ng's log, one line a transfer: TIME|I (in, from upstream) or
# O (out, to a node)|BYTES|CLIENT|PATH.  Each extra once in, three times
# out.  (CLIENT says nothing here: on loopback every node sends from
# 127.0.0.1.)
on $HEAD "cat $ACNG_LOG" >"$W/acng.log" 2>&1
for p in hello figlet; do
	in=$(grep -c "|I|.*/${p}_[^/]*\.deb\$" "$W/acng.log")
	out=$(grep -c "|O|.*/${p}_[^/]*\.deb\$" "$W/acng.log")
	if [ "$in" -eq 1 ] && [ "$out" -eq 3 ]; then
		ok "$p: fetched upstream once, served to 3 nodes"
	else
		not_ok "$p: fetched upstream once, served to 3 nodes (in $in, out $out)"
		grep "$p" "$W/acng.log" | sed 's/^/# /'
	fi
done
"$PROVISION" apply --plain --state-dir "$W/state" "$PLAN" >"$W/apply2.txt" 2>&1
rc=$?
[ $rc -eq 0 ] && grep -q ' 0 changed, ' "$W/apply2.txt" &&
	ok "second apply: 0 changed" ||
	{ not_ok "second apply: 0 changed (exit $rc)"; grep -E 'changed|failed' "$W/apply2.txt" | sed 's/^/# /' | head; }

# stop_relay: the head's apt-cacher-ng ends (no systemd there to restart it).
stop_relay() {
	on $HEAD 'read -r p _ </run/provision/apt-cacher-ng.pid && kill "$p" && for i in 1 2 3 4 5 6 7 8 9 10; do kill -0 "$p" 2>/dev/null || exit 0; sleep 0.5; done; exit 1'
}

# Relay restarting while a worker installs: its apt fails, the step waits,
# backing off, and finishes once the relay answers again.
on $W1 'apt-get remove -y -q hello >/dev/null 2>&1; rm -f /var/cache/apt/archives/hello_*.deb'
check "the relay is stopped" stop_relay
"$PROVISION" apply --plain --state-dir "$W/state" -n relay-w1 --step extras "$PLAN" >"$W/apply3.txt" 2>&1 &
APID=$!
seen=0
for i in $(seq 1 120); do
	if grep -qs 'does not answer: next try in' "$W/state"/runs/*/logs/relay-w1.log; then
		seen=1
		break
	fi
	sleep 0.5
done
[ $seen -eq 1 ] && ok "the worker waits for the relay, saying so" ||
	not_ok "the worker waits for the relay, saying so"
"$PROVISION" apply --plain --state-dir "$W/state-head" -n relay-head --step relay "$PLAN" >"$W/restart.txt" 2>&1 &&
	ok "the relay is started again" ||
	{ not_ok "the relay is started again"; sed 's/^/# /' "$W/restart.txt" | tail; }
wait "$APID"
rc=$?
APID=
if [ $rc -eq 0 ] && grep -q 'relay-w1 .*extras .*changed' "$W/apply3.txt"; then
	ok "the worker's install finishes once the relay is back"
else
	not_ok "the worker's install finishes once the relay is back (exit $rc)"
	sed 's/^/# /' "$W/apply3.txt" | tail
fi
grep -hs 'next try in\|answers again' "$W/state"/runs/*/logs/relay-w1.log >"$W/retries.txt"
grep -q 'answers again' "$W/retries.txt" &&
	ok "its log shows the backoff and the retry" ||
	{ not_ok "its log shows the backoff and the retry"; sed 's/^/# /' "$W/retries.txt"; }

# Relay kept down: the worker fails after retry_s, naming the relay.
on $W1 'apt-get remove -y -q hello >/dev/null 2>&1; rm -f /var/cache/apt/archives/hello_*.deb'
check "the relay is stopped again" stop_relay
"$PROVISION" apply --plain --state-dir "$W/state-short" -n relay-w1 --step extras "$W/short.yaml" >"$W/apply4.txt" 2>&1
rc=$?
if [ $rc -eq 1 ] && grep -q 'relay-w1 .*extras .*failed' "$W/apply4.txt"; then
	ok "with the relay kept down the worker's step fails"
else
	not_ok "with the relay kept down the worker's step fails (exit $rc)"
	sed 's/^/# /' "$W/apply4.txt" | tail
fi
grep -hs 'did not answer for' "$W/state-short"/runs/*/logs/relay-w1.log >"$W/why.txt"
grep -q 'package relay http://127.0.10.21:3149/ (apt-cacher-ng on relay-head) did not answer for [0-9]* s' "$W/why.txt" &&
	ok "the failure names the relay and the time waited" ||
	{ not_ok "the failure names the relay and the time waited"; sed 's/^/# /' "$W/apply4.txt" | tail; }

# A worker that cannot reach the relay at all fails its relay step, saying why.
"$PROVISION" apply --plain --state-dir "$W/state-short" -n relay-w2 --step relay "$W/short.yaml" >"$W/apply5.txt" 2>&1
rc=$?
if [ $rc -eq 1 ] && grep -q 'relay-w2 .*relay .*failed.*cannot reach the package relay http://127.0.10.21:3149/' "$W/apply5.txt"; then
	ok "a node that cannot reach the relay fails with that reason"
else
	not_ok "a node that cannot reach the relay fails with that reason (exit $rc)"
	sed 's/^/# /' "$W/apply5.txt" | tail
fi

done_testing

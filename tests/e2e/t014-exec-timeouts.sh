#!/bin/sh
# t014-exec-timeouts: hosts that are down, hosts that accept TCP but never
# speak SSH, commands that run too long; none of them holds up the others.
#
#   sh tests/e2e/t014-exec-timeouts.sh        (as root)

# shellcheck source-path=SCRIPTDIR disable=SC2016
set -u
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/sshd-lib.sh"

sshd_setup
PORT=$(free_port)
NET=127.0.114
O=$SSHT/out E=$SSHT/err
# shellcheck disable=SC2046
sshd_start t "$PORT" $(addrs $NET 1 20) || exit 1
# shellcheck disable=SC2046
known_hosts_for t "$PORT" $(addrs $NET 1 20) >"$SSHT/known_hosts"

# A listener that accepts connections and never says a word.
"$PY" - "$NET.50" "$PORT" <<'EOF' &
import socket, sys, time
s = socket.socket()
s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind((sys.argv[1], int(sys.argv[2])))
s.listen(64)
held = []
while True:
    c, _ = s.accept()
    held.append(c)
EOF
echo $! >>"$SSHT/pids"
wait_listening "$PORT" $NET.50 || { not_ok "silent listener did not start"; done_testing; exit 1; }

now() { date +%s.%N; }
took() { awk "BEGIN{printf \"%.1f\", $2 - $1}"; }
lt() { awk "BEGIN{exit !($1 < $2)}"; }

# Refused port: unreachable after 3 tries (backoff 0.5 s, 1 s).
t0=$(now)
run_exec "$O" "$E" -H "$NET.1,$NET.99" -p "$PORT" -- echo up
t1=$(now)
if [ "$rc" = 1 ] && grep -qx up "$O" &&
    grep -q "^$NET.99: unreachable: connect to $NET.99 port $PORT: Connection refused (3 tries)" "$E" &&
    grep -qx "1 ok, 0 failed, 1 unreachable, 0 timed out" "$E" &&
    lt "$(took "$t0" "$t1")" 5; then
	ok "host down: unreachable after 3 tries in $(took "$t0" "$t1") s"
else
	not_ok "host down (rc $rc, $(took "$t0" "$t1") s)"; show "$O" "$E"
fi

# TCP accepted, no banner: a timeout, not a hang.
t0=$(now)
run_exec "$O" "$E" -H "$NET.1,$NET.50" -p "$PORT" --connect-timeout 2 -- true
t1=$(now)
if [ "$rc" = 1 ] &&
    grep -q "^$NET.50: timeout: no SSH banner from $NET.50 port $PORT within 2s" "$E" &&
    grep -qx "1 ok, 0 failed, 0 unreachable, 1 timed out" "$E" &&
    lt "$(took "$t0" "$t1")" 4; then
	ok "banner-less host: timed out after $(took "$t0" "$t1") s"
else
	not_ok "banner-less host (rc $rc, $(took "$t0" "$t1") s)"; show "$E"
fi

# A command past --timeout.
t0=$(now)
run_exec "$O" "$E" -H "$NET.[1-3]" -p "$PORT" --timeout 2 -- \
    'case $SSH_CONNECTION in *" '$NET'.2 "*) sleep 30;; esac; echo done'
t1=$(now)
if [ "$rc" = 1 ] && grep -q "^$NET.2: timeout: still running after 2s" "$E" &&
    grep -qx "2 ok, 0 failed, 0 unreachable, 1 timed out" "$E" &&
    lt "$(took "$t0" "$t1")" 4.5; then
	ok "command timeout: stopped after $(took "$t0" "$t1") s, others ok"
else
	not_ok "command timeout (rc $rc, $(took "$t0" "$t1") s)"; show "$E"
fi

# All of it at once with 20 good hosts: none of the bad ones delays them.
t0=$(now)
run_exec "$O" "$E" -H "$NET.[1-20],$NET.50,$NET.99" -p "$PORT" \
    --connect-timeout 3 --timeout 3 --prefix -- \
    'case $SSH_CONNECTION in *" '$NET'.20 "*) sleep 30;; esac; echo ok'
t1=$(now)
first=$(grep -n ": ok$" "$O" | head -1)
if [ "$rc" = 1 ] && [ "$(grep -c ": ok$" "$O")" = 19 ] &&
    grep -qx "19 ok, 0 failed, 1 unreachable, 2 timed out" "$E" &&
    lt "$(took "$t0" "$t1")" 5.5 && [ -n "$first" ]; then
	ok "19 good hosts done alongside a down, a silent and a slow one ($(took "$t0" "$t1") s)"
else
	not_ok "mixed (rc $rc, $(took "$t0" "$t1") s)"; show "$E"
fi

done_testing

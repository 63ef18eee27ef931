#!/bin/sh
# t013-exec-jump: nodes reached through a jump host (-J): one connection
# to the jump host, a direct-tcpip channel per node carrying the node's own
# SSH session; large output and uploads through it; a node the jump host
# cannot reach; a jump host that is down or unknown.
#
#   sh tests/e2e/t013-exec-jump.sh        (as root)

# shellcheck source-path=SCRIPTDIR disable=SC2016
set -u
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/sshd-lib.sh"

sshd_setup
PORT=$(free_port)
NET=127.0.113
O=$SSHT/out E=$SSHT/err
KH=$SSHT/known_hosts
SSHD_LOGLEVEL=DEBUG1 sshd_start jump "$PORT" $NET.1 || exit 1
# shellcheck disable=SC2046
sshd_start nodes "$PORT" $(addrs $NET 11 30) || exit 1
{
	known_hosts_for jump "$PORT" $NET.1
	# shellcheck disable=SC2046
	known_hosts_for nodes "$PORT" $(addrs $NET 11 30)
} >"$KH"
J=$NET.1:$PORT

run_exec "$O" "$E" -J "$J" -H "$NET.[11-30]" -p "$PORT" -- \
    'echo via $SSH_CONNECTION | cut -d" " -f1,4'
tunnels=$(grep -c "server_request_direct_tcpip: originator .* target $NET\.[0-9]* port $PORT" "$SSHT/jump.log")
logins=$(grep -c "Accepted publickey for root" "$SSHT/jump.log")
if [ "$rc" = 0 ] && [ "$(grep -c "^via $NET\.[0-9]*\$" "$O")" = 20 ] &&
    [ "$tunnels" = 20 ] && [ "$logins" = 1 ]; then
	ok "20 nodes through one jump host login and 20 direct-tcpip channels"
else
	not_ok "jump (rc $rc, $tunnels tunnels, $logins jump logins)"
	show "$O" "$E"
fi

# A node the jump host cannot reach fails alone, as unreachable.
run_exec "$O" "$E" -J "$J" -H "$NET.[11-13],$NET.99" -p "$PORT" \
    --connect-timeout 3 -- true
if [ "$rc" = 1 ] && grep -q "^$NET.99: unreachable: jump host '$NET.1' cannot reach $NET.99 port $PORT" "$E" &&
    grep -qx "3 ok, 0 failed, 1 unreachable, 0 timed out" "$E"; then
	ok "node unreachable from the jump host: unreachable, others fine"
else
	not_ok "unreachable behind jump (rc $rc)"; show "$E"
fi

# 10 MB down through the tunnel, byte for byte.
want=$(seq 1 1500000 | sha256sum | cut -d' ' -f1)
run_exec "$O" "$E" -J "$J" -H "$NET.[11-14]" -p "$PORT" --run-dir "$SSHT/run" \
    -- seq 1 1500000
good=0
for i in 11 12 13 14; do
	[ "$(sha256sum <"$SSHT/run/$NET.$i.out" | cut -d' ' -f1)" = "$want" ] &&
	    good=$((good + 1))
done
if [ "$rc" = 0 ] && [ $good = 4 ]; then
	ok "10 MB of output from 4 nodes through the jump host, intact"
else
	not_ok "10 MB through the jump ($good intact, rc $rc)"; show "$E"
fi

# 20 MB up through the tunnel (SFTP), checked on the node.
head -c 20000000 /dev/urandom >"$SSHT/blob"
sum=$(sha256sum <"$SSHT/blob" | cut -d' ' -f1)
mkdir -p "$SSHT/dst"
run_exec "$O" "$E" -J "$J" -H "$NET.[11-12]" -p "$PORT" \
    --copy "$SSHT/blob" --dest "$SSHT/dst/" -- \
    'sha256sum '"$SSHT/dst/blob"' | cut -d" " -f1'
if [ "$rc" = 0 ] && grep -qx "$sum" "$O" && grep -qx "$NET.\[11-12\] (2)" "$O"
then
	ok "20 MB upload through the jump host, verified"
else
	not_ok "upload through the jump (rc $rc)"; show "$O" "$E"
fi
rm -rf "$SSHT/blob" "$SSHT/dst" "$SSHT/run"

# The jump host down: every node unreachable, quickly.
DOWN=$(free_port)
run_exec "$O" "$E" -J "$NET.1:$DOWN" -H "$NET.[11-15]" -p "$PORT" -- true
if [ "$rc" = 1 ] && grep -q "jump host '$NET.1': connect to $NET.1 port $DOWN: Connection refused" "$E" &&
    grep -qx "0 ok, 0 failed, 5 unreachable, 0 timed out" "$E"; then
	ok "jump host down: all nodes unreachable, with the reason"
else
	not_ok "jump host down (rc $rc)"; show "$E"
fi

# The jump host's own key is checked too.
grep -v "^\[$NET.1\]" "$KH" >"$SSHT/kh2"
run_exec "$O" "$E" -J "$J" -H "$NET.[11-12]" -p "$PORT" \
    --known-hosts "$SSHT/kh2" -- true
if [ "$rc" = 1 ] && grep -q "jump host '$NET.1': host key of '$NET.1' port $PORT is not known" "$E" &&
    grep -q "2 host key refused" "$E"; then
	ok "unknown jump host key refused"
else
	not_ok "jump host key (rc $rc)"; show "$E"
fi

done_testing

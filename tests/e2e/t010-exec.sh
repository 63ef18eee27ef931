#!/bin/sh
# t010-exec: `provision exec -H` against real sshd processes on loopback
# addresses: one host, gathered and prefixed output, exit codes, stdin,
# 200 hosts at once, 10 MB and 100 MB of output from one node.
#
#   sh tests/e2e/t010-exec.sh        (as root; PROVISION=path/to/binary)

# shellcheck source-path=SCRIPTDIR disable=SC2016
set -u
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/sshd-lib.sh"

sshd_setup
PORT=$(free_port)
NET=127.0.110
ALL=$(addrs $NET 1 200)
# shellcheck disable=SC2086
sshd_start fleet "$PORT" $ALL || exit 1
# shellcheck disable=SC2086
known_hosts_for fleet "$PORT" $ALL >"$SSHT/known_hosts"
O=$SSHT/out E=$SSHT/err

# One host, exit 0.
run_exec "$O" "$E" -H $NET.1 -p "$PORT" -- echo hello
if [ "$rc" = 0 ] && grep -qx hello "$O" && grep -qx "$NET.1 (1)" "$O" &&
    grep -qx "1 ok, 0 failed, 0 unreachable, 0 timed out" "$E"; then
	ok "one host: output block, summary, exit 0"
else
	not_ok "one host (rc $rc)"; show "$O" "$E"
fi

# A failing command: exit 1, with its code in the summary.
run_exec "$O" "$E" -H $NET.1 -p "$PORT" -- 'echo out; echo err >&2; exit 3'
if [ "$rc" = 1 ] && grep -qx out "$O" && ! grep -q err "$O" &&
    grep -qx err "$E" &&
    grep -qx "0 ok, 1 failed (exit 3: $NET.1), 0 unreachable, 0 timed out" "$E"
then
	ok "non-zero exit: stdout and stderr apart, exit code in summary"
else
	not_ok "non-zero exit (rc $rc)"; show "$O" "$E"
fi

# Identical output folds into one block; distinct output does not.
run_exec "$O" "$E" -H "$NET.[1-10]" -p "$PORT" -- echo same
if [ "$rc" = 0 ] && [ "$(grep -c '^same$' "$O")" = 1 ] &&
    grep -qx "$NET.\[1-10\] (10)" "$O"; then
	ok "identical output of 10 hosts gathered under $NET.[1-10]"
else
	not_ok "gathering (rc $rc)"; show "$O" "$E"
fi
run_exec "$O" "$E" -H "$NET.[1-10]" -p "$PORT" -- \
    'echo $SSH_CONNECTION | cut -d" " -f3'
if [ "$rc" = 0 ] && [ "$(grep -c "^$NET\.[0-9]*\$" "$O")" = 10 ] &&
    [ "$(grep -c "^$NET\.[0-9]* (1)\$" "$O")" = 10 ] &&
    [ "$(grep "^$NET\.[0-9]*\$" "$O" | head -3 | tr '\n' ' ')" = \
    "$NET.1 $NET.2 $NET.3 " ]; then
	ok "distinct output: one block per host in host order"
else
	not_ok "distinct output (rc $rc)"; show "$O" "$E"
fi

# --prefix: "host: line" as it arrives; mixed success and failure.
run_exec "$O" "$E" -H "$NET.[1-3]" -p "$PORT" --prefix -- \
    'echo a; printf b; case $SSH_CONNECTION in *" '$NET'.2 "*) exit 4;; esac'
if [ "$rc" = 1 ] && [ "$(grep -c ": a$" "$O")" = 3 ] &&
    grep -qx "$NET.2: b" "$O" &&
    grep -q "^2 ok, 1 failed (exit 4: $NET.2)" "$E"; then
	ok "--prefix: every line prefixed, last partial line flushed"
else
	not_ok "--prefix (rc $rc)"; show "$O" "$E"
fi

# --stdin: bytes reach the command's stdin, not its argv.
head -c 100000 /dev/urandom >"$SSHT/secret"
want=$(sha256sum <"$SSHT/secret" | cut -d' ' -f1)
"$PROVISION" exec --no-agent -i "$SSHT/id_ed25519" \
    --known-hosts "$SSHT/known_hosts" -H "$NET.[1-2]" -p "$PORT" --stdin \
    -- sha256sum <"$SSHT/secret" >"$O" 2>"$E"
rc=$?
if [ "$rc" = 0 ] && grep -q "^$want " "$O" && grep -qx "$NET.\[1-2\] (2)" "$O"
then
	ok "--stdin: 100 kB reach every host's command intact"
else
	not_ok "--stdin (rc $rc)"; show "$O" "$E"
fi

# 200 hosts at once, each answering with its own address.
t0=$(date +%s.%N)
run_exec "$O" "$E" -H "$NET.[1-200]" -p "$PORT" --forks 200 -- \
    'echo FANOUT_OK $SSH_CONNECTION'
t1=$(date +%s.%N)
seen=$(grep -o "^FANOUT_OK [0-9.]* [0-9]* $NET\.[0-9]* $PORT" "$O" |
    cut -d' ' -f4 | sort -u | wc -l)
if [ "$rc" = 0 ] && [ "$seen" = 200 ] &&
    grep -qx "200 ok, 0 failed, 0 unreachable, 0 timed out" "$E"; then
	ok "200 hosts: all answered ($(awk "BEGIN{printf \"%.2f\", $t1 - $t0}") s)"
else
	not_ok "200 hosts: $seen answered (rc $rc)"; show "$E"
fi

# 10 MB from one host: 1 MiB kept in memory, the rest spilled to --run-dir.
run_exec "$O" "$E" -H $NET.1 -p "$PORT" --run-dir "$SSHT/run" -- \
    'head -c 10485760 /dev/zero | tr "\0" x'
size=$(stat -c %s "$SSHT/run/$NET.1.out" 2>/dev/null || echo 0)
if [ "$rc" = 0 ] && [ "$size" = 10485760 ] &&
    [ "$(tr -d x <"$SSHT/run/$NET.1.out" | wc -c)" = 0 ] &&
    grep -q "^\[\.\.\. 9437184 more bytes not shown; all of it is in $SSHT/run/$NET.1.out\]" "$O"
then
	ok "10 MB: 1 MiB shown, the whole stream in the run folder"
else
	not_ok "10 MB (rc $rc, spill $size bytes)"; show "$E"; tail -c 300 "$O"
fi

# 100 MB from one host while five others run: bounded memory, and the
# others are not held up: they end once the big one is half-way (the
# nodes share this machine's file system, so a file tells them), and
# their last lines must reach us before the big one's second 50 MB do.
# A fixed sleep instead raced the stream, which takes about 0.3 s here.
rm -rf "$SSHT/run" "$SSHT/half"
/usr/bin/time -f %M -o "$SSHT/rss" "$PROVISION" exec --no-agent \
    -i "$SSHT/id_ed25519" --known-hosts "$SSHT/known_hosts" \
    -H "$NET.[1-6]" -p "$PORT" --prefix --run-dir "$SSHT/run" -- \
    'case $SSH_CONNECTION in *" '$NET'.1 "*)
	head -c 50000000 /dev/zero | tr "\0" x; : >'"$SSHT/half"'
	head -c 50000000 /dev/zero | tr "\0" x; echo;;
     *) echo small-start; i=0
	while [ ! -e '"$SSHT/half"' ] && [ $i -lt 1000 ]; do
		sleep 0.01; i=$((i + 1)); done
	echo small-end;; esac' \
    >"$O" 2>"$E"
rc=$?
size=$(stat -c %s "$SSHT/run/$NET.1.out" 2>/dev/null || echo 0)
rss=$(cat "$SSHT/rss" 2>/dev/null || echo 999999)
last_big=$(grep -n "^$NET.1: x" "$O" | tail -1 | cut -d: -f1)
last_small=$(grep -n ": small-end$" "$O" | tail -1 | cut -d: -f1)
if [ "$rc" = 0 ] && [ "$size" = 100000001 ] && [ "$rss" -lt "$RSS_LIMIT" ] &&
    [ "$(grep -c ': small-end$' "$O")" = 5 ]; then
	ok "100 MB: whole stream spilled, peak RSS ${rss} KiB"
else
	not_ok "100 MB (rc $rc, spill $size bytes, rss $rss KiB)"; show "$E"
fi
if [ -n "$last_big" ] && [ -n "$last_small" ] &&
    [ "$last_small" -lt "$last_big" ]; then
	ok "100 MB: the other hosts finished while it streamed"
else
	not_ok "100 MB stalled the others (small-end at line" \
	    "${last_small:-none}, big ends at ${last_big:-none})"
fi
rm -rf "$SSHT/run" "$SSHT/half" "$O"

# Usage errors exit 2.
expect_code 2 "no hosts and no plan: usage error" \
    "$PROVISION" exec -- true 2>/dev/null
expect_code 2 "-n without a plan: usage error" \
    "$PROVISION" exec -H $NET.1 -n x -- true 2>/dev/null
expect_code 2 "a bad hostlist: usage error" \
    "$PROVISION" exec -H "$NET.[5-1]" -- true 2>/dev/null

done_testing

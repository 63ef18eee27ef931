#!/bin/sh
# t015-exec-copy: `provision exec --copy SRC [--dest DST]`: SFTP upload to
# a temporary name, fsync, SHA-256 checked on the node, then rename:
# 100 MB to two hosts, 20 hosts writing one path, modes, directories, a
# checksum mismatch, a non-root user with and without sudo.  Creates the
# user `provtest` and /etc/sudoers.d/provtest-e2e, removed at exit.
#
#   sh tests/e2e/t015-exec-copy.sh        (as root)

# shellcheck source-path=SCRIPTDIR disable=SC2016
set -u
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/sshd-lib.sh"

sshd_setup
SUDOERS=/etc/sudoers.d/provtest-e2e
made_user=
copy_cleanup() {
	rm -f "$SUDOERS"
	[ -n "$made_user" ] && userdel -r provtest >/dev/null 2>&1
	sshd_cleanup
}
trap 'copy_cleanup' EXIT

PORT=$(free_port)
NET=127.0.115
O=$SSHT/out E=$SSHT/err
# shellcheck disable=SC2046
sshd_start c "$PORT" $(addrs $NET 1 20) || exit 1
# shellcheck disable=SC2046
known_hosts_for c "$PORT" $(addrs $NET 1 20) >"$SSHT/known_hosts"
D=$SSHT/dst
mkdir -p "$D"
leftovers() { find "$D" /tmp -maxdepth 1 -name '*provtmp*' -o -maxdepth 1 -name '.provision-*' 2>/dev/null | wc -l; }

# 100 MB to two hosts (the same machine: both land on one path).
head -c 100000000 /dev/urandom >"$SSHT/big"
sum=$(sha256sum <"$SSHT/big" | cut -d' ' -f1)
/usr/bin/time -f %M -o "$SSHT/rss" "$PROVISION" exec --no-agent \
    -i "$SSHT/id_ed25519" --known-hosts "$SSHT/known_hosts" \
    -H "$NET.[1-2]" -p "$PORT" --copy "$SSHT/big" --dest "$D/" \
    >"$O" 2>"$E"
rc=$?
rss=$(cat "$SSHT/rss" 2>/dev/null || echo 999999)
if [ "$rc" = 0 ] && [ "$(sha256sum <"$D/big" | cut -d' ' -f1)" = "$sum" ] &&
    [ "$(stat -c %a "$D/big")" = 644 ] && [ "$(leftovers)" = 0 ] &&
    grep -qx "2 ok, 0 failed, 0 unreachable, 0 timed out" "$E" &&
    [ "$rss" -lt "$RSS_LIMIT" ]; then
	ok "100 MB to 2 hosts: checksum verified, mode 0644, no temporaries, peak RSS $rss KiB"
else
	not_ok "100 MB copy (rc $rc, rss $rss KiB)"; show "$O" "$E"
fi
rm -f "$SSHT/big" "$D/big"

# 20 hosts, one file path, a mode, then a command that uses the file.
head -c 1000000 /dev/urandom >"$SSHT/tool"
sum=$(sha256sum <"$SSHT/tool" | cut -d' ' -f1)
run_exec "$O" "$E" -H "$NET.[1-20]" -p "$PORT" --copy "$SSHT/tool" \
    --dest "$D/tool.bin" --mode 0750 -- "stat -c %a $D/tool.bin"
if [ "$rc" = 0 ] && [ "$(sha256sum <"$D/tool.bin" | cut -d' ' -f1)" = "$sum" ] &&
    grep -qx 750 "$O" && grep -qx "$NET.\[1-20\] (20)" "$O" &&
    [ "$(leftovers)" = 0 ]; then
	ok "20 hosts copy to one path with --mode 0750, then run a command"
else
	not_ok "20-host copy (rc $rc)"; show "$O" "$E"
fi

# Without --dest: the same path as the source.
rm -f "$SSHT/tool.copy"
cp "$SSHT/tool" "$SSHT/tool.copy"
run_exec "$O" "$E" -H $NET.1 -p "$PORT" --copy "$SSHT/tool.copy" -- \
    "sha256sum $SSHT/tool.copy"
if [ "$rc" = 0 ] && grep -q "^$sum " "$O"; then
	ok "--copy without --dest writes SRC's own path"
else
	not_ok "--copy without --dest (rc $rc)"; show "$E"
fi

# A node whose sha256sum disagrees: refused, nothing left in place.
mkdir -p "$SSHT/fakebin"
printf '#!/bin/sh\necho 0000000000000000000000000000000000000000000000000000000000000000 -\n' \
    >"$SSHT/fakebin/sha256sum"
chmod 755 "$SSHT/fakebin/sha256sum"
FPORT=$(free_port)
SSHD_SETENV="PATH=$SSHT/fakebin:/usr/bin:/bin" sshd_start c "$FPORT" $NET.1 ||
    exit 1
known_hosts_for c "$FPORT" $NET.1 >>"$SSHT/known_hosts"
run_exec "$O" "$E" -H $NET.1 -p "$FPORT" --copy "$SSHT/tool" \
    --dest "$D/mismatch.bin"
if [ "$rc" = 1 ] && grep -q "upload to '$D/mismatch.bin' on $NET.1 failed: sha256 mismatch" "$E" &&
    [ ! -e "$D/mismatch.bin" ] && [ "$(leftovers)" = 0 ]; then
	ok "checksum mismatch on the node: refused, no file, no temporary"
else
	not_ok "checksum mismatch (rc $rc)"; show "$E"
fi

# A non-root user: refused where it may not write; --sudo puts it there.
if id provtest >/dev/null 2>&1; then
	userdel -r provtest >/dev/null 2>&1
fi
useradd -m -s /bin/sh provtest && made_user=1
usermod -p '*' provtest
echo 'provtest ALL=(ALL) NOPASSWD: ALL' >"$SUDOERS"
chmod 0440 "$SUDOERS"
mkdir -p "$D/rootonly"
chmod 700 "$D/rootonly"
run_exec "$O" "$E" -H $NET.1 -p "$PORT" -l provtest --copy "$SSHT/tool" \
    --dest "$D/rootonly/"
if [ "$rc" = 1 ] && grep -q "cannot create '$D/rootonly/.tool.provtmp.[0-9a-f]*' on $NET.1: permission denied" "$E"
then
	ok "non-root user without --sudo: permission denied, clearly"
else
	not_ok "non-root copy refused (rc $rc)"; show "$E"
fi
run_exec "$O" "$E" -H "$NET.[1-3]" -p "$PORT" -l provtest --sudo \
    --copy "$SSHT/tool" --dest "$D/rootonly/"
if [ "$rc" = 0 ] && [ "$(sha256sum <"$D/rootonly/tool" | cut -d' ' -f1)" = "$sum" ] &&
    [ "$(stat -c %U "$D/rootonly/tool")" = root ] && [ "$(leftovers)" = 0 ]
then
	ok "--sudo copy: staged in /tmp, verified, moved into a root-only directory"
else
	not_ok "--sudo copy (rc $rc)"; show "$E"
fi

expect_code 2 "--copy of a missing file: usage error" \
    "$PROVISION" exec -H $NET.1 --copy "$SSHT/nonexistent" 2>/dev/null
expect_code 2 "--dest without --copy: usage error" \
    "$PROVISION" exec -H $NET.1 --dest /tmp -- true 2>/dev/null

done_testing

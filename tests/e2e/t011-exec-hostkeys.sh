#!/bin/sh
# t011-exec-hostkeys: host key checking against OpenSSH known_hosts files:
# unknown hosts refused with their fingerprint, accept-new, changed keys
# refused with both fingerprints and the file:line, hashed entries,
# @revoked, @cert-authority, several keys per host.
#
#   sh tests/e2e/t011-exec-hostkeys.sh        (as root)

# shellcheck source-path=SCRIPTDIR disable=SC2016
set -u
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/sshd-lib.sh"

sshd_setup
PORT=$(free_port)
NET=127.0.111
KH=$SSHT/known_hosts
O=$SSHT/out E=$SSHT/err
# shellcheck disable=SC2046
sshd_start good "$PORT" $(addrs $NET 1 20) || exit 1
fp() { ssh-keygen -lf "$SSHT/$1.key.pub" | cut -d' ' -f2; }
GOODFP=$(fp good)

# Unknown host: refused, with the fingerprint ssh-keygen shows.
: >"$KH"
run_exec "$O" "$E" -H $NET.1 -p "$PORT" -- true
if [ "$rc" = 1 ] && grep -q "host key of '$NET.1' port $PORT is not known: ED25519 key fingerprint is $GOODFP" "$E" &&
    grep -q "1 host key refused" "$E" && [ ! -s "$KH" ]; then
	ok "unknown host refused with its SHA256 fingerprint"
else
	not_ok "unknown host (rc $rc)"; show "$E"
fi

# accept-new: appended once per host, then accepted strictly.
run_exec "$O" "$E" -H "$NET.[1-20]" -p "$PORT" --accept-new -- true
lines=$(wc -l <"$KH")
if [ "$rc" = 0 ] && [ "$lines" = 20 ] &&
    [ "$(grep -c "added ED25519 key $GOODFP" "$E")" = 20 ] &&
    ssh-keygen -F "[$NET.7]:$PORT" -f "$KH" >/dev/null &&
    [ "$(sort -u "$KH" | wc -l)" = 20 ]; then
	ok "accept-new: 20 new hosts recorded once each, readable by ssh-keygen -F"
else
	not_ok "accept-new (rc $rc, $lines lines)"; show "$E" "$KH"
fi
run_exec "$O" "$E" -H "$NET.[1-20]" -p "$PORT" -- true
if [ "$rc" = 0 ] && [ "$(wc -l <"$KH")" = 20 ]; then
	ok "recorded keys accepted strictly, nothing appended"
else
	not_ok "strict after accept-new (rc $rc)"; show "$E"
fi

# Changed key: another sshd with another key on the same address.
sshd_stop good
sshd_start evil "$PORT" $NET.3 || exit 1
EVILFP=$(fp evil)
line=$(grep -n "^\[$NET.3\]:$PORT " "$KH" | cut -d: -f1)
sum=$(sha256sum <"$KH")
for mode in strict accept-new; do
	if [ $mode = strict ]; then
		run_exec "$O" "$E" -H $NET.3 -p "$PORT" -- true
	else
		run_exec "$O" "$E" -H $NET.3 -p "$PORT" --accept-new -- true
	fi
	if [ "$rc" = 1 ] && grep -q "HOST KEY OF '$NET.3' port $PORT HAS CHANGED: it offers ED25519 $EVILFP but $KH:$line holds $GOODFP" "$E" &&
	    grep -q "ssh-keygen -R '\[$NET.3\]:$PORT'" "$E" &&
	    [ "$(sha256sum <"$KH")" = "$sum" ]; then
		ok "changed key refused ($mode): both fingerprints, $KH:$line, file untouched"
	else
		not_ok "changed key ($mode, rc $rc)"; show "$E"
	fi
done
sshd_stop evil

# Hashed known_hosts (ssh-keygen -H); a hashed entry matches no other name.
# shellcheck disable=SC2046
sshd_start good "$PORT" $(addrs $NET 1 20) || exit 1
ssh-keygen -H -f "$KH" >/dev/null 2>&1
rm -f "$KH.old"
if grep -q '^|1|' "$KH" && ! grep -q "$NET" "$KH"; then
	run_exec "$O" "$E" -H "$NET.[1-20]" -p "$PORT" -- true
	if [ "$rc" = 0 ] && grep -qx "20 ok, 0 failed, 0 unreachable, 0 timed out" "$E"
	then
		ok "hashed known_hosts: all 20 hosts matched"
	else
		not_ok "hashed known_hosts (rc $rc)"; show "$E"
	fi
else
	not_ok "ssh-keygen -H did not hash the file"
fi
known_hosts_for good 22 other-host >"$SSHT/kh2"
ssh-keygen -H -f "$SSHT/kh2" >/dev/null 2>&1
run_exec "$O" "$E" -H $NET.1 -p "$PORT" --known-hosts "$SSHT/kh2" -- true
if [ "$rc" = 1 ] && grep -q "is not known" "$E"; then
	ok "hashed entry for another host does not match"
else
	not_ok "hashed entry for another host (rc $rc)"; show "$E"
fi

# @revoked wins over a matching line; @cert-authority is skipped with a note.
{
	known_hosts_for good "$PORT" $NET.1
	echo "@cert-authority *.example.com $(cut -d' ' -f1,2 "$SSHT/good.key.pub")"
	echo "@revoked * $(cut -d' ' -f1,2 "$SSHT/good.key.pub")"
} >"$SSHT/kh3"
run_exec "$O" "$E" -H $NET.1 -p "$PORT" --known-hosts "$SSHT/kh3" -- true
if [ "$rc" = 1 ] && grep -q "host key of '$NET.1' port $PORT is REVOKED by $SSHT/kh3:3" "$E" &&
    grep -q "kh3:2: @cert-authority line ignored" "$E"; then
	ok "@revoked key refused; @cert-authority line noted and ignored"
else
	not_ok "@revoked (rc $rc)"; show "$E"
fi

# Several keys per host: sshd offers ED25519 and ECDSA, known_hosts has
# only the ECDSA one, which must be the one negotiated.
sshd_stop good
ssh-keygen -q -t ecdsa -N '' -C ec -f "$SSHT/ec.key"
SSHD_EXTRA="HostKey $SSHT/ec.key" sshd_start good "$PORT" $NET.1 || exit 1
echo "[$NET.1]:$PORT $(cut -d' ' -f1,2 "$SSHT/ec.key.pub")" >"$SSHT/kh4"
run_exec "$O" "$E" -H $NET.1 -p "$PORT" --known-hosts "$SSHT/kh4" -- true
if [ "$rc" = 0 ]; then
	ok "host with two keys: the known ECDSA key is negotiated and accepted"
else
	not_ok "two host keys (rc $rc)"; show "$E"
fi
# Only an ECDSA key known, the host offers only ED25519: a changed key.
sshd_stop good
sshd_start good "$PORT" $NET.1 || exit 1
run_exec "$O" "$E" -H $NET.1 -p "$PORT" --known-hosts "$SSHT/kh4" -- true
if [ "$rc" = 1 ] && grep -q "HAS CHANGED: it offers ED25519 $GOODFP but $SSHT/kh4:1 holds a ECDSA key" "$E"
then
	ok "key of another type only: refused as changed"
else
	not_ok "other key type (rc $rc)"; show "$E"
fi

done_testing

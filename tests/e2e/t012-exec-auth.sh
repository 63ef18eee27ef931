#!/bin/sh
# t012-exec-auth: logging in: default identity, ssh-agent, an encrypted
# key (passphrase from the environment, wrong, missing), an RSA key that
# OpenSSH refuses, a non-root user through `sudo -n` with and without
# NOPASSWD.  Creates the user `provtest` and /etc/sudoers.d/provtest-e2e,
# and removes both at exit.
#
#   sh tests/e2e/t012-exec-auth.sh        (as root)

# shellcheck source-path=SCRIPTDIR disable=SC2016
set -u
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/sshd-lib.sh"

sshd_setup
command -v sudo >/dev/null 2>&1 || skip_all "no sudo (apt-get install sudo)"
command -v useradd >/dev/null 2>&1 || skip_all "no useradd"
SUDOERS=/etc/sudoers.d/provtest-e2e
made_user=
auth_cleanup() {
	[ -n "${SSH_AGENT_PID:-}" ] && kill "$SSH_AGENT_PID" 2>/dev/null
	rm -f "$SUDOERS"
	[ -n "$made_user" ] && userdel -r provtest >/dev/null 2>&1
	sshd_cleanup
}
trap 'auth_cleanup' EXIT

PORT=$(free_port)
NET=127.0.112
O=$SSHT/out E=$SSHT/err
KH=$SSHT/known_hosts
sshd_start auth "$PORT" $NET.1 $NET.2 || exit 1
known_hosts_for auth "$PORT" $NET.1 $NET.2 >"$KH"

# exec with explicit files but no identity: HOME decides the defaults.
run_noid() {
	home=$1 o=$2 e=$3
	shift 3
		HOME=$home "$PROVISION" exec --known-hosts "$KH" -p "$PORT" "$@" \
	    >"$o" 2>"$e"
	rc=$?
	}

# The default identity, ~/.ssh/id_ed25519.
mkdir -p "$SSHT/h1/.ssh"
cp "$SSHT/id_ed25519" "$SSHT/h1/.ssh/id_ed25519"
(unset SSH_AUTH_SOCK; run_noid "$SSHT/h1" "$O" "$E" -H $NET.1 -- echo in
exit $rc)
rc=$?
if [ "$rc" = 0 ] && grep -qx in "$O"; then
	ok "default identity ~/.ssh/id_ed25519"
else
	not_ok "default identity (rc $rc)"; show "$E"
fi

# ssh-agent, and no key file at all.
mkdir -p "$SSHT/h0"
eval "$(ssh-agent -s -a "$SSHT/agent.sock")" >/dev/null
ssh-add -q "$SSHT/id_ed25519" 2>/dev/null
run_noid "$SSHT/h0" "$O" "$E" -H "$NET.[1-2]" -- echo agent
if [ "$rc" = 0 ] && grep -qx agent "$O"; then
	ok "ssh-agent keys (SSH_AUTH_SOCK)"
else
	not_ok "ssh-agent (rc $rc)"; show "$E"
fi
kill "$SSH_AGENT_PID" 2>/dev/null
SSH_AGENT_PID=
unset SSH_AUTH_SOCK

# No key anywhere: a clear error, exit 2.
run_noid "$SSHT/h0" "$O" "$E" -H $NET.1 -- true
if [ "$rc" = 2 ] && grep -q "no key to log in with" "$E"; then
	ok "no key at all: clear error, exit 2"
else
	not_ok "no key at all (rc $rc)"; show "$E"
fi

# An encrypted ed25519 key, its passphrase from the environment.
ssh-keygen -q -t ed25519 -N 'correct horse' -C enc -f "$SSHT/enc"
cat "$SSHT/enc.pub" >>"$SSHT/authorized_keys"
PP='correct horse' "$PROVISION" exec --no-agent -i "$SSHT/enc" \
    --passphrase-env PP --known-hosts "$KH" -p "$PORT" -H "$NET.[1-2]" \
    -- echo decrypted >"$O" 2>"$E"
rc=$?
if [ "$rc" = 0 ] && grep -qx decrypted "$O"; then
	ok "encrypted key, passphrase from --passphrase-env"
else
	not_ok "encrypted key (rc $rc)"; show "$E"
fi
PP='wrong' "$PROVISION" exec --no-agent -i "$SSHT/enc" --passphrase-env PP \
    --known-hosts "$KH" -p "$PORT" -H $NET.1 -- true >"$O" 2>"$E"
rc=$?
if [ "$rc" = 1 ] && grep -q "could not decrypt $SSHT/enc: wrong passphrase" "$E" &&
    grep -q "1 login refused" "$E"; then
	ok "wrong passphrase: login refused, says why"
else
	not_ok "wrong passphrase (rc $rc)"; show "$E"
fi
setsid -w "$PROVISION" exec --no-agent -i "$SSHT/enc" --known-hosts "$KH" \
    -p "$PORT" -H $NET.1 -- true >"$O" 2>"$E" </dev/null
rc=$?
if [ "$rc" = 2 ] && grep -q "is encrypted: set the variable named by --passphrase-env" "$E"
then
	ok "encrypted key without passphrase or terminal: exit 2, says how"
else
	not_ok "missing passphrase (rc $rc)"; show "$E"
fi

# RSA: libssh2 1.10 signs with ssh-rsa (SHA-1), which OpenSSH 9 refuses.
ssh-keygen -q -t rsa -b 2048 -N '' -C rsa -f "$SSHT/rsa"
cat "$SSHT/rsa.pub" >>"$SSHT/authorized_keys"
run_exec "$O" "$E" -H $NET.1 -p "$PORT" -i "$SSHT/rsa" -- true
if [ "$rc" = 1 ] && grep -q "the RSA key $SSHT/rsa was refused: libssh2 1.10 signs RSA keys only with ssh-rsa (SHA-1), which OpenSSH 8.8 and later refuse; use an ed25519 key" "$E"
then
	ok "RSA key refused by OpenSSH: plain error suggesting ed25519"
else
	not_ok "RSA key (rc $rc)"; show "$E"
fi

# A non-root user: commands through sudo -n.
if id provtest >/dev/null 2>&1; then
	userdel -r provtest >/dev/null 2>&1
fi
useradd -m -s /bin/sh provtest && made_user=1
usermod -p '*' provtest		# no password, but not locked for sshd
echo 'provtest ALL=(ALL) NOPASSWD: ALL' >"$SUDOERS"
chmod 0440 "$SUDOERS"
run_exec "$O" "$E" -H "$NET.[1-2]" -p "$PORT" -l provtest -- id -un
if [ "$rc" = 0 ] && grep -qx provtest "$O"; then
	ok "non-root user without --sudo runs as itself"
else
	not_ok "non-root user (rc $rc)"; show "$E"
fi
run_exec "$O" "$E" -H "$NET.[1-2]" -p "$PORT" -l provtest --sudo -- \
    'id -un; echo "$0"'
if [ "$rc" = 0 ] && grep -qx root "$O" && ! grep -qx provtest "$O"; then
	ok "--sudo: the command runs as root through sudo -n (NOPASSWD)"
else
	not_ok "--sudo NOPASSWD (rc $rc)"; show "$O" "$E"
fi
echo 'provtest ALL=(ALL) ALL' >"$SUDOERS"
run_exec "$O" "$E" -H "$NET.[1-2]" -p "$PORT" -l provtest --sudo -- id -un
if [ "$rc" = 1 ] && grep -q "sudo on $NET.1 needs a password for user 'provtest': allow it without one (NOPASSWD" "$E" &&
    grep -q "2 errors" "$E"; then
	ok "sudo wanting a password: a clear error, not a hang"
else
	not_ok "sudo without NOPASSWD (rc $rc)"; show "$O" "$E"
fi

done_testing

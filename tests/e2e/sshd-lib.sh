# shellcheck shell=sh disable=SC2034
# sshd-lib.sh: private sshd servers on loopback addresses, for the tests
# of `provision exec` (sourced after lib.sh; needs root, sshd, python3).
#
#	sshd_setup			keys and files in $SSHT (a new temp dir)
#	sshd_start NAME PORT ADDR...	sshd(s) serving ADDR:PORT with NAME's
#					host key ($SSHT/NAME.key, made once)
#	sshd_stop NAME			stop them
#	known_hosts_for NAME PORT ADDR...  "[addr]:port key" lines
#	free_port			a TCP port free on every address
#
# One sshd listens on at most 16 addresses (OpenSSH's MAX_LISTEN_SOCKS),
# so sshd_start runs one per 16.  Every sshd is killed by PID at exit
# (trap set by sshd_setup); nothing binds outside 127.0.0.0/8.
# $SSHT/id_ed25519 is the user key every sshd accepts for root.

# Peak RSS allowed (KiB) where a test checks memory; ASan keeps a quarantine
# of freed memory (256 MB), so under SAN=1 only a runaway is caught.
RSS_LIMIT=100000
[ "${SAN:-0}" = 1 ] && RSS_LIMIT=600000
PY=/usr/bin/python3
[ -x "$PY" ] || PY=python3
SSHD=/usr/sbin/sshd

sshd_require() {
	[ "$(id -u)" = 0 ] || skip_all "needs root (sshd, users)"
	[ -x "$SSHD" ] || skip_all "no $SSHD"
	command -v ssh-keygen >/dev/null 2>&1 || skip_all "no ssh-keygen"
	"$PY" -c 'import socket' 2>/dev/null || skip_all "no python3"
	[ -x "$PROVISION" ] || skip_all "no binary at $PROVISION (make first)"
}

sshd_cleanup() {
	if [ -f "$SSHT/pids" ]; then
		while read -r pid; do
			kill "$pid" 2>/dev/null
		done <"$SSHT/pids"
	fi
	[ -n "${SSHT_KEEP:-}" ] || rm -rf "$SSHT"
}

sshd_setup() {
	sshd_require
	SSHT=$(mktemp -d /tmp/provision-e2e-ssh.XXXXXX) || exit 1
	chmod 755 "$SSHT"
	trap 'sshd_cleanup' EXIT
	trap 'exit 130' INT TERM
	mkdir -p /run/sshd "$SSHT/home"
	: >"$SSHT/pids"
	ssh-keygen -q -t ed25519 -N '' -C provision-e2e -f "$SSHT/id_ed25519" ||
		exit 1
	cp "$SSHT/id_ed25519.pub" "$SSHT/authorized_keys"
	chmod 644 "$SSHT/authorized_keys"
	: >"$SSHT/known_hosts"
}

free_port() {
	"$PY" - <<'EOF'
import socket
s = socket.socket()
s.bind(("0.0.0.0", 0))
print(s.getsockname()[1])
s.close()
EOF
}

# wait_listening PORT ADDR...: until every ADDR:PORT accepts (5 s at most)
wait_listening() {
	"$PY" - "$@" <<'EOF'
import socket, sys, time
port = int(sys.argv[1])
left = set(sys.argv[2:])
end = time.time() + 10
while left and time.time() < end:
    for a in list(left):
        s = socket.socket()
        s.settimeout(0.2)
        try:
            s.connect((a, port))
            left.discard(a)
        except OSError:
            pass
        finally:
            s.close()
    if left:
        time.sleep(0.05)
sys.exit(1 if left else 0)
EOF
}

# sshd_start NAME PORT ADDR...
SSHD_SEQ=0
sshd_start() {
	name=$1 port=$2
	shift 2
	[ -f "$SSHT/$name.key" ] ||
		ssh-keygen -q -t ed25519 -N '' -C "$name" -f "$SSHT/$name.key" ||
		return 1
	started=
	while [ $# -gt 0 ]; do
		SSHD_SEQ=$((SSHD_SEQ + 1))
		conf=$SSHT/$name.$SSHD_SEQ.conf
		{
			i=0
			while [ $# -gt 0 ] && [ $i -lt 16 ]; do
				echo "ListenAddress $1:$port"
				started="$started $1"
				shift
				i=$((i + 1))
			done
			cat <<EOF
HostKey $SSHT/$name.key
AuthorizedKeysFile $SSHT/authorized_keys
StrictModes no
UsePAM no
PidFile $SSHT/$name.$SSHD_SEQ.pid
PermitRootLogin prohibit-password
PasswordAuthentication no
KbdInteractiveAuthentication no
MaxStartups 2000
MaxSessions 100
PermitTTY no
PrintMotd no
LogLevel ${SSHD_LOGLEVEL:-VERBOSE}
SetEnv HOME=$SSHT/home ${SSHD_SETENV:-}
Subsystem sftp internal-sftp
${SSHD_EXTRA:-}
EOF
		} >"$conf"
		"$SSHD" -D -e -f "$conf" >>"$SSHT/$name.log" 2>&1 &
		echo $! >>"$SSHT/pids"
		echo $! >>"$SSHT/$name.pids"
	done
	# shellcheck disable=SC2086
	wait_listening "$port" $started || {
		echo "# sshd $name did not start:" >&2
		sed 's/^/#   /' "$SSHT/$name.log" | tail -20 >&2
		return 1
	}
}

sshd_stop() {
	if [ -f "$SSHT/$1.pids" ]; then
		while read -r pid; do
			kill "$pid" 2>/dev/null
			while kill -0 "$pid" 2>/dev/null; do sleep 0.05; done
		done <"$SSHT/$1.pids"
		rm -f "$SSHT/$1.pids"
	fi
}

# known_hosts_for NAME PORT ADDR...: known_hosts lines for NAME's key
known_hosts_for() {
	name=$1 port=$2
	shift 2
	key=$(cut -d' ' -f1,2 "$SSHT/$name.key.pub")
	for a in "$@"; do
		if [ "$port" = 22 ]; then echo "$a $key"; else echo "[$a]:$port $key"; fi
	done
}

# addrs PREFIX FIRST LAST: PREFIX.FIRST ... PREFIX.LAST
addrs() {
	i=$2
	while [ "$i" -le "$3" ]; do
		echo "$1.$i"
		i=$((i + 1))
	done
}

# run_exec OUT ERR ARGS...: provision exec with the test's key and files;
# sets $rc.
run_exec() {
	o=$1 e=$2
	shift 2
	"$PROVISION" exec --no-agent -i "$SSHT/id_ed25519" \
	    --known-hosts "$SSHT/known_hosts" "$@" >"$o" 2>"$e"
	rc=$?
}

# show FILE...: a failed check's evidence, as TAP comments
show() {
	for f in "$@"; do
		[ -f "$f" ] && head -c 3000 "$f" | sed "s|^|#   $(basename "$f"): |"
	done
	return 0
}

#!/bin/sh
# t104-apply-secrets: no secret reaches a log, the -v output, the state,
# the run folder, the terminal or a process list, even from a step that
# prints every secret it holds (tests/fixtures/apply-secrets/templates:
# the munge key the engine carries from the head, kubeadm-shaped tokens
# the engine learns only by their shape, values a step declares with
# prov_secret); the state and run folders are the operator's alone; and
# the node lock lives in a folder only root can write, its foreign owner
# text shown escaped; and no provision process can dump core or be read
# by another process of its user.
#
#   sh tests/e2e/t104-apply-secrets.sh        (as root; PROVISION=binary;
#                                             T104_KEEP=1 keeps its folder)
#
# Testbed nodes of its own (127.0.14.1-2): t100's are not touched.
# shellcheck disable=SC2015
. "$(dirname "$0")/lib.sh"
set -u
[ "$(id -u)" -eq 0 ] || skip_all "needs root (namespaces, debootstrap)"
cd "$TOP" || exit 1

TB=${TESTBED_DIR:-/var/tmp/provision-testbed}
NODES="sec-head=127.0.14.1 sec-worker=127.0.14.2"
W=$(mktemp -d /tmp/t104.XXXXXX) || exit 1
KEY=$TB/id_ed25519
KH=$TB/known_hosts
TPL=$TOP/tests/fixtures/apply-secrets/templates
PLAN=$W/plan.yaml
export PROVISION

cleanup() {
	[ -n "${PSPID:-}" ] && kill "$PSPID" 2>/dev/null
	scripts/testbed down --purge --nodes "$NODES" >/dev/null 2>&1
	if [ -n "${T104_KEEP:-}" ]; then echo "# kept $W"; else rm -rf "$W"; fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

show() {	# show FILE...: the end of each as TAP comments
	for f in "$@"; do tail -n 20 "$f" | sed 's/^/# /'; done
}

cat >"$PLAN" <<EOF
version: 1
cluster: { name: sec, domain: sec.internal }
networks:
  lo: { cidr: 127.0.14.0/24, kind: ethernet, gbps: 10, role: management }
ssh:
  user: root
  identity: $KEY
  known_hosts: $KH
  host_keys: strict
  connect_timeout_s: 10
nodes:
  - { name: sec-head, role: head, address: 127.0.14.1 }
  - { name: sec-worker, role: worker, address: 127.0.14.2 }
software:
  os: { distro: debian, release: "12" }
  container_runtime: { engine: none }
  orchestrator:
    kind: slurm
    slurm:
      cluster_name: sec
      proctrack: linuxproc
      partitions: [ { name: debug, nodes: sec-worker, default: true } ]
  monitoring: { node_exporter: false }
EOF

check "testbed up" scripts/testbed up --nodes "$NODES"

# apply STATEDIR ARGS...: the munge step only, -v, output kept; sets $rc.
apply() {
	s=$1
	shift
	"$PROVISION" apply -v --plain --templates "$TPL" --state-dir "$s" \
	    --step munge "$@" "$PLAN" >"$W/out" 2>"$W/err"
	rc=$?
}

# ------------------------------------------------------------ secrets
( while :; do ps -eo args >>"$W/ps.txt" 2>/dev/null; sleep 0.1; done ) &
PSPID=$!
apply "$W/s1"
kill "$PSPID" 2>/dev/null
PSPID=
cp "$W/out" "$W/apply.out"
cp "$W/err" "$W/apply.err"
[ $rc -eq 1 ] && grep -q 'sec-head  *munge  *changed' "$W/out" &&
	grep -q 'sec-worker  *munge  *failed' "$W/out" &&
	ok "the head's step ran, the worker's failed as planned" ||
	{ not_ok "apply ran both steps (exit $rc)"; show "$W/out" "$W/err"; }

for n in 127.0.14.1 127.0.14.2; do
	on $n "cat /root/t104/token /root/t104/declared" >>"$W/printed"
done
on 127.0.14.1 "base64 -w0 /etc/provision/out/munge.key" >"$W/key.b64"
python3 - "$W/key.b64" "$W/printed" "$W/s1" "$W/apply.out" "$W/apply.err" \
    "$W/ps.txt" <<'PY' && ok "no secret in the logs, -v output, state, run folder, terminal or ps" || not_ok "a secret leaked"
import base64, os, sys
key = base64.b64decode(open(sys.argv[1]).read())
assert len(key) == 1024, "no key read"
printed = open(sys.argv[2]).read().split()
assert len(printed) == 4, "the steps left no tokens"
needles = [key[:32], key[512:544], key.hex().encode()[:64],
    base64.b64encode(key)[:40], base64.b64encode(key)[76:116]]
needles += [p.encode() for p in printed]
paths = []
for p in sys.argv[3:]:
    if os.path.isdir(p):
        for d, _, fs in os.walk(p):
            paths += [os.path.join(d, f) for f in fs]
    else:
        paths.append(p)
bad = sorted({"%s: %r" % (p, n[:12]) for p in paths for n in needles
    if n in open(p, "rb").read()})
if bad:
    print("# found:", *bad, sep="\n#   ")
    sys.exit(1)
PY
LOG=$(ls "$W"/s1/runs/*/logs/sec-worker.log 2>/dev/null)
HLOG=$(ls "$W"/s1/runs/*/logs/sec-head.log 2>/dev/null)
[ -n "$LOG" ] && [ "$(grep -c '\[redacted\]' "$LOG")" -ge 4 ] &&
	grep -q -- '--token \[redacted\]' "$HLOG" &&
	grep -q 'discovery-token-ca-cert-hash sha256:[0-9a-f]\{64\}' "$HLOG" &&
	grep -q '^a secret the step declared: \[redacted\]$' "$HLOG" &&
	ok "  ... the logs show where each was, [redacted]; the CA hash stays" ||
	{ not_ok "  ... the logs show [redacted]"; show "$LOG" "$HLOG"; }
grep -q '^sec-worker: munge: the key, hex: \[redacted\]$' "$W/apply.out" &&
	grep -q '^sec-head: a secret the step declared: \[redacted\]$' "$W/apply.out" &&
	ok "  ... and so does -v" || { not_ok "  ... -v shows [redacted]"; show "$W/apply.out"; }
m=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["nodes"]["sec-worker"]["munge"]["message"])' "$W/s1/state.json")
[ "$m" = "exit 1: munge: could not join with token [redacted]" ] &&
	ok "  ... the state's message: '$m'" || not_ok "  ... the state's message: '$m'"

# ------------------------------------------------------------ modes
modes=$(cd "$W/s1" && find . -printf '%m %y %P\n' | sort -k3)
bad=$(printf '%s\n' "$modes" | awk '
	$2 == "d" && $1 != "700" { print }
	$2 == "f" && $1 != "600" { print }')
[ -z "$bad" ] && printf '%s\n' "$modes" | grep -q ' f runs/.*/logs/sec-worker.log$' &&
	ok "state and run folders 0700, state, logs and facts 0600" ||
	{ not_ok "modes of the state and run folders"; printf '%s\n' "$bad" | sed 's/^/# /'; }

# ------------------------------------------------------------ lock
st=$(on 127.0.14.1 "stat -c '%u %a' /run/provision; ls -A /run/provision; ls -d /run/lock/provision.* 2>/dev/null")
[ "$st" = "0 700" ] &&
	ok "the lock's folder is /run/provision, root's, 0700, empty after the run" ||
	not_ok "the lock's folder: '$st'"

# A lock whose owner file would drive the operator's terminal.
on 127.0.14.1 "mkdir /run/provision/lock.sec-head &&
	printf 'run=x host=elsewhere \033]0;pwned\007 pid=1 \033[2J\n' >/run/provision/lock.sec-head/owner"
apply "$W/s2"
m=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["nodes"]["sec-head"]["lock"]["message"])' "$W/s2/state.json")
[ $rc -eq 1 ] && [ "$m" = 'locked by another apply (run=x host=elsewhere \x1b]0;pwned\x07 pid=1 \x1b[2J): wait for it, or if it died on another machine run with --break-lock' ] &&
	ok "a foreign lock's owner text is shown escaped" || { not_ok "foreign owner escaped (exit $rc): '$m'"; show "$W/out" "$W/err"; }
if LC_ALL=C grep -q "$(printf '\033')" "$W/out" "$W/err" "$W/s2/state.json"; then
	not_ok "  ... no raw escape reaches the terminal or the state"
else
	ok "  ... no raw escape reaches the terminal or the state"
fi
on 127.0.14.1 "rm -rf /run/provision/lock.sec-head"

# A lock folder others could write: refused, with the reason.
on 127.0.14.2 "chmod 1777 /run/provision"
apply "$W/s3"
m=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["nodes"]["sec-worker"]["lock"]["message"])' "$W/s3/state.json")
case $m in
"cannot lock: /run/provision is not a folder only root can write (root drwxrwxrwt): "*)
	ok "a lock folder other users can write is refused: '$m'" ;;
*) not_ok "lock folder others can write (exit $rc): '$m'"; show "$W/out" "$W/err" ;;
esac
on 127.0.14.2 "chmod 0700 /run/provision"

# ------------------------------------------------------------ memory
# A provision process (here --verify, waiting on a FIFO) run by an
# ordinary user: not dumpable (its /proc files are root's, no ptrace, no
# core), and no core size allowed.
F=$(mktemp -d /tmp/t104-fifo.XXXXXX) && chmod 755 "$F" && mkfifo -m 0666 "$F/b"
setpriv --reuid=65534 --regid=65534 --clear-groups \
    "$PROVISION" bundle --verify "$F/b" --insecure-unsigned >/dev/null 2>&1 &
vpid=$!
for _ in 1 2 3 4 5 6 7 8 9 10; do
	[ "$(readlink "/proc/$vpid/exe" 2>/dev/null)" = "$(readlink -f "$PROVISION")" ] && break
	sleep 0.2
done
sleep 0.2
mem="$(stat -c %u "/proc/$vpid/mem" 2>&1) $(awk '/^Max core file size/ { print $5 "/" $6 }' "/proc/$vpid/limits" 2>&1)"
# a writer comes and goes: --verify reads an empty file and ends (and a
# writer with no reader left gives up)
timeout 5 sh -c ': >"$1"' sh "$F/b"
wait "$vpid"
rm -rf "$F"
[ "$mem" = "0 0/0" ] &&
	ok "a provision process of user nobody is not dumpable (its /proc is root's) and has no core size" ||
	not_ok "memory protection: owner of /proc/PID/mem, core soft/hard: '$mem' (want '0 0/0')"

done_testing

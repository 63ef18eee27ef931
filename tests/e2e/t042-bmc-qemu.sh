#!/bin/sh
# t042-bmc-qemu: `provision bmc` against the Redfish emulator's QEMU
# backend (--qemu), on a real QEMU process that has no OS: firmware only,
# 64 MiB, no network, an empty CD drive.  What the backend does to QEMU,
# seen from outside it (the process, its command line, QMP):
#   off        the QEMU process is gone, PowerState Off
#   on         a new QEMU process with the same command line, running
#   boot pxe --once, reset   a new QEMU with -boot once=n,order=c, the
#              override spent; the next reset is a QMP system_reset (the
#              same process)
#   media      the ISO (made here, served over HTTP) is in the drive, read
#              only; it stays in over a power cycle; eject empties it
# tests/vm/t030-bmc-qemu.sh does the same to a booted Debian VM.
#
#   sh tests/e2e/t042-bmc-qemu.sh      (PROVISION=path/to/binary)
#
# Needs python3, openssl, curl, qemu-system-x86_64, socat and xorriso;
# exits 77 when one is missing.

set -u
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/redfish-lib.sh"

MOCKUP=${REDFISH_MOCKUP:-$TOP/../shared/redfish/public-rackmount1}
rf_need
for tool in qemu-system-x86_64 socat xorriso; do
	command -v "$tool" >/dev/null 2>&1 || skip_all "$tool not found (make deps)"
done
[ -f "$MOCKUP/index.json" ] || skip_all "no Redfish mockup at $MOCKUP (set REDFISH_MOCKUP)"

W=$(mktemp -d /tmp/t042-bmc-qemu.XXXXXX) || exit 1
cleanup() {
	p=$(cat "$W/qemu.pid" 2>/dev/null) && kill "$p" 2>/dev/null
	rf_cleanup
}
trap cleanup EXIT
trap 'exit 1' INT TERM
printf '%s\n' 'pw-t042' >"$W/pw"
chmod 600 "$W/pw"
export BMC_PW=pw-t042
QMP=$W/qmp.sock

# the VM: SeaBIOS and nothing to boot; QEMU's default iPXE ROM is not
# needed (no NIC)
qemu-system-x86_64 -name t042,process=t042-vm -accel tcg -m 64 -nodefaults \
    -display none -serial "file:$W/console.log" \
    -drive if=none,id=cd0,media=cdrom,readonly=on \
    -device ide-cd,id=cd,drive=cd0,bus=ide.1 \
    -qmp "unix:$QMP,server=on,wait=off" -boot order=c \
    -pidfile "$W/qemu.pid" -daemonize >"$W/qemu.log" 2>&1 ||
	{ cat "$W/qemu.log"; skip_all "QEMU does not start here"; }

qpid() {
	p=$(cat "$W/qemu.pid" 2>/dev/null) || return 1
	[ -n "$p" ] && tr '\0' ' ' <"/proc/$p/cmdline" 2>/dev/null |
		grep -qF "unix:$QMP," && echo "$p"
}
qcmd() {
	tr '\0' ' ' <"/proc/$(qpid)/cmdline" 2>/dev/null
}
# qmp COMMAND: the answer's "return", as JSON
qmp() {
	printf '{"execute":"qmp_capabilities"}\n{"execute":"%s"}\n' "$1" |
	    socat -t 2 - "UNIX-CONNECT:$QMP" | python3 -c '
import json, sys
for line in sys.stdin:
    m = json.loads(line)
    if "return" in m and m["return"] != {}:
        print(json.dumps(m["return"]))'
}
# cd_file: the file in the CD drive, or "empty"
cd_file() {
	qmp query-block | python3 -c '
import json, sys
d = [b for b in json.load(sys.stdin) if b.get("removable")][0]
i = d.get("inserted")
print("%s %s" % (i["image"]["filename"], "ro" if i["ro"] else "rw") if i else "empty")'
}

rf_certs "IP:127.0.0.1"
rf_emu emu --mockup "$MOCKUP" --listen 127.0.0.1:0 --cert "$W/srv.pem" \
    --key "$W/srv.key" --qemu "437XR1138R2=$QMP" ||
	{ not_ok "the emulator starts with --qemu"; done_testing; exit 1; }
P=$(cat "$W/emu.port")
cat >"$W/plan.yaml" <<EOF
version: 1
cluster: { name: t042 }
nodes:
  - { name: vm01, address: 10.42.0.1,
      bmc: { address: 127.0.0.1, port: $P, user: admin, password_env: BMC_PW,
             ca_file: ca.pem } }
EOF
PLAN=$W/plan.yaml
ALL=$W/all-output
: >"$ALL"

st() {
	curl -s --cacert "$W/ca.pem" "https://127.0.0.1:$P/_emulator/state?log=0" |
	    python3 -c '
import json, sys
d = json.load(sys.stdin)
s = d["systems"]["437XR1138R2"]
m = [v for k, v in d["virtual_media"].items() if k.endswith("/CD1")][0]
v = eval(sys.argv[1])
print(json.dumps(v) if not isinstance(v, str) else v)' "$1"
}

# --- bad command lines --------------------------------------------------------

python3 "$EMU" --mockup "$MOCKUP" --http --password-file "$W/pw" \
    --qemu "437XR1138R2=$W/nothing.sock" >"$W/bad1.out" 2>&1
rc=$?
[ $rc != 0 ] && grep -q "no QEMU process serves QMP on $W/nothing.sock" "$W/bad1.out" &&
	ok "--qemu: a socket no QEMU serves is refused" ||
	{ not_ok "--qemu: a socket no QEMU serves is refused (rc $rc)"; sed 's/^/#   /' "$W/bad1.out"; }
python3 "$EMU" --mockup "$MOCKUP" --http --password-file "$W/pw" \
    --qemu "NOPE=$QMP" >"$W/bad2.out" 2>&1
rc=$?
[ $rc != 0 ] && grep -q "no system with that Id (it has: 437XR1138R2)" "$W/bad2.out" &&
	ok "--qemu: an unknown system Id is refused, the Ids listed" ||
	{ not_ok "--qemu: an unknown system Id is refused (rc $rc)"; sed 's/^/#   /' "$W/bad2.out"; }

# --- power --------------------------------------------------------------------

cmd0=$(qcmd)
pid0=$(qpid)
bmc status status
[ $rc = 0 ] && grep -q ' On' "$W/status.out" && ok "status: On" ||
	{ not_ok "status: On (rc $rc)"; show status; }
[ "$(st 'm["Inserted"]')" = false ] && ok "the CD slot starts empty, as the VM's drive is" ||
	not_ok "the CD slot starts empty"

bmc off off
[ $rc = 0 ] && ok "off: exit 0" || { not_ok "off: exit 0 (rc $rc)"; show off; }
[ -n "$(tr -d '\0' <"/proc/$pid0/cmdline" 2>/dev/null)" ] && not_ok "off: the QEMU process is gone" ||
	ok "off: the QEMU process is gone"
[ "$(st 's["PowerState"]')" = Off ] && ok "off: PowerState Off" || not_ok "off: PowerState Off"

bmc on on
[ $rc = 0 ] && ok "on: exit 0" || { not_ok "on: exit 0 (rc $rc)"; show on; }
pid1=$(qpid)
[ -n "$pid1" ] && [ "$pid1" != "$pid0" ] && ok "on: a new QEMU process" ||
	not_ok "on: a new QEMU process ($pid0 -> $pid1)"
[ "$(qcmd)" = "$cmd0-S " ] && ok "on: the same command line (started paused, then run)" ||
	{ not_ok "on: the same command line"; echo "# was: $cmd0"; echo "# now: $(qcmd)"; }
qmp query-status | grep -q '"status": "running"' && ok "on: the VM runs (QMP query-status)" ||
	not_ok "on: the VM runs"

# --- boot override --------------------------------------------------------------

bmc boot boot pxe --once
[ $rc = 0 ] && ok "boot pxe --once: exit 0" || { not_ok "boot pxe --once (rc $rc)"; show boot; }
bmc reset reset
[ $rc = 0 ] && ok "reset: exit 0" || { not_ok "reset: exit 0 (rc $rc)"; show reset; }
pid2=$(qpid)
[ -n "$pid2" ] && [ "$pid2" != "$pid1" ] && qcmd | grep -q -- ' -boot once=n,order=c -pidfile .* -S $' &&
	ok "reset with the override: a new QEMU with -boot once=n,order=c" ||
	{ not_ok "reset with the override: -boot once=n,order=c"; echo "# $(qcmd)"; }
[ "$(st 's["Boot"]["BootSourceOverrideEnabled"] + " " + str(s["boots"][-1]["override"])')" = "Disabled Pxe" ] &&
	ok "the boot recorded with Pxe, the override spent" || not_ok "the override spent: $(st 's["Boot"]')"
bmc reset2 reset
[ $rc = 0 ] && [ "$(qpid)" = "$pid2" ] && ok "a reset without an override: the same process (system_reset)" ||
	not_ok "a reset without an override keeps the process (rc $rc)"
bmc bootc boot disk
bmc cycle cycle
[ $rc = 0 ] && qcmd | grep -q -- ' -boot order=c -pidfile .* -S $' &&
	ok "boot disk (Continuous), cycle: -boot order=c" ||
	{ not_ok "boot disk, cycle: -boot order=c (rc $rc)"; echo "# $(qcmd)"; }

# --- virtual media ------------------------------------------------------------

mkdir -p "$W/iso/www"
echo t042-marker >"$W/iso/marker"
xorriso -as mkisofs -quiet -V T042 -o "$W/iso/www/m.iso" "$W/iso/marker" >"$W/xorriso.log" 2>&1 ||
	{ cat "$W/xorriso.log"; not_ok "an ISO made"; }
python3 -u -m http.server 0 --bind 127.0.0.1 --directory "$W/iso/www" >"$W/http.out" 2>&1 &
PIDS="$PIDS $!"
hp=
n=0
while [ -z "$hp" ] && [ $n -lt 100 ]; do
	hp=$(sed -n 's/.*port \([0-9][0-9]*\).*/\1/p' "$W/http.out" | head -n 1)
	sleep 0.1
	n=$((n + 1))
done
bmc mins media insert "http://127.0.0.1:$hp/m.iso"
[ $rc = 0 ] && ok "media insert: exit 0" || { not_ok "media insert: exit 0 (rc $rc)"; show mins; }
f=$(cd_file)
case $f in
*" ro") cmp -s "${f% ro}" "$W/iso/www/m.iso" && ok "media: the ISO is in the VM's CD drive, read-only" ||
	not_ok "media: the drive holds the ISO ($f)" ;;
*) not_ok "media: the drive holds the ISO, read-only ($f)" ;;
esac
bmc cyc2 cycle
f=$(cd_file)
[ $rc = 0 ] && [ "$f" != empty ] && cmp -s "${f% ro}" "$W/iso/www/m.iso" &&
	ok "media: still in after a power cycle" || not_ok "media: still in after a power cycle ($f)"
bmc mej media eject
[ $rc = 0 ] && [ "$(cd_file)" = empty ] && ok "media eject: the drive is empty" ||
	{ not_ok "media eject: the drive is empty (rc $rc)"; show mej; }
bmc mbad media insert "http://127.0.0.1:$hp/missing.iso"
[ $rc != 0 ] && grep -q 'cannot fetch http://127.0.0.1:[0-9]*/missing.iso' "$W/emu.err" &&
	ok "media insert of a missing image fails (the BMC says 500), the reason logged" ||
	{ not_ok "media insert of a missing image fails (rc $rc)"; show mbad; }

# --- graceful off: an OS that ignores ACPI stays on -------------------------------

bmc goff off --graceful --wait 3
[ $rc != 0 ] && qpid >/dev/null && ok "off --graceful with no OS to answer: still running, the wait fails" ||
	{ not_ok "off --graceful with no OS: still running (rc $rc)"; show goff; }
[ "$(st 's["PowerState"]')" = PoweringOff ] && ok "... and reports PoweringOff" ||
	not_ok "... PoweringOff ($(st 's["PowerState"]'))"
bmc off2 off
[ $rc = 0 ] && ! qpid >/dev/null && ok "then off: gone" || { not_ok "then off: gone (rc $rc)"; show off2; }

grep -qF "$BMC_PW" "$ALL" "$W/emu.out" "$W/emu.err" && not_ok "the password never shows" ||
	ok "the password never shows"
done_testing

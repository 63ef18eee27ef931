#!/bin/sh
# `provision bmc` on a real machine: worker-02's BMC is the Redfish
# emulator with its QEMU backend (tests/redfish/emulator.py --qemu, over
# the VM's QMP socket), over TLS verified with a CA made here.
#   off     the QEMU process is gone and SSH stops answering
#   on      QEMU runs again (the emulator starts it from the saved command
#           line) and the machine boots: SSH answers, a new boot id
#   media   an ISO made here, served over HTTP in the namespace: the guest
#           mounts /dev/sr0 and reads the marker in it; eject: no medium
#   boot pxe --once, then reset: the VM's firmware asks for a PXE boot (a
#           DHCP DISCOVER from worker-02's MAC with the PXEClient class,
#           seen on the bridge), finds no server and boots its disk; the
#           override is spent (Disabled); the next reset boots the disk
#           with no PXE attempt
# worker-02 is left up and on its own disk, as the other tests expect.
. "$(dirname "$0")/../e2e/lib.sh"
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/../e2e/redfish-lib.sh"
set -u
cd "$TOP" || exit 1
in_testbed
MOCKUP=${REDFISH_MOCKUP:-$TOP/../shared/redfish/public-rackmount1}
[ -f "$MOCKUP/index.json" ] || skip_all "no Redfish mockup at $MOCKUP (set REDFISH_MOCKUP)"
rf_need
command -v xorriso >/dev/null 2>&1 || skip_all "xorriso not found (make deps)"
NODE=worker-02
QMP=$VD/nodes/$NODE/qmp.sock
[ -S "$QMP" ] || skip_all "$NODE has no QMP socket ($QMP): is the testbed up?"

W=$(mktemp -d /tmp/tvm030.XXXXXX) || exit 1
# a failed test still leaves the node powered on for the next one
back_on() {
	if ! qemu_pid >/dev/null && [ -f "$W/plan.yaml" ]; then
		echo "# $NODE left off: powering it on"
		"$PROVISION" bmc "$W/plan.yaml" on >/dev/null 2>&1
		wait_ssh 600 || echo "# $NODE did not come back"
	fi
	rf_cleanup
}
trap back_on EXIT
trap 'exit 1' INT TERM
PW=$(head -c 18 /dev/urandom | base64)
printf '%s\n' "$PW" >"$W/pw"
chmod 600 "$W/pw"
export BMC_PW="$PW"

# the VM's QEMU: its pid, when one runs on the node's disk
qemu_pid() {
	p=$(cat "$VD/nodes/$NODE/qemu.pid" 2>/dev/null) || return 1
	[ -n "$p" ] && tr '\0' ' ' <"/proc/$p/cmdline" 2>/dev/null |
		grep -qF "$VD/nodes/$NODE/disk.qcow2" && echo "$p"
}

ssh_q() {
	ssh -q -i "$KEY" -o UserKnownHostsFile="$KH" -o StrictHostKeyChecking=yes \
	    -o BatchMode=yes -o ConnectTimeout=5 "root@$W2" "$@" </dev/null
}

# wait_ssh SECONDS: until the node answers SSH and its boot is finished
wait_ssh() {
	end=$(($(date +%s) + $1))
	until ssh_q true 2>/dev/null; do
		[ "$(date +%s)" -lt "$end" ] || return 1
		sleep 3
	done
	ssh_q "timeout $((end - $(date +%s) > 10 ? end - $(date +%s) : 10)) systemctl is-system-running --wait" >/dev/null 2>&1
	return 0
}

boot_id() {
	ssh_q cat /proc/sys/kernel/random/boot_id 2>/dev/null
}

rf_certs "IP:127.0.0.1"
rf_emu emu --mockup "$MOCKUP" --listen 127.0.0.1:0 --cert "$W/srv.pem" \
    --key "$W/srv.key" --qemu "437XR1138R2=$QMP" --verbose ||
	{ not_ok "the emulator starts with --qemu"; done_testing; exit 1; }
P=$(cat "$W/emu.port")
cat >"$W/plan.yaml" <<EOF
version: 1
cluster: { name: tvm030 }
nodes:
  - { name: $NODE, address: $W2,
      bmc: { address: 127.0.0.1, port: $P, user: admin, password_env: BMC_PW,
             ca_file: ca.pem } }
EOF
PLAN=$W/plan.yaml
ALL=$W/all-output
: >"$ALL"

# st EXPR: Python over the emulator's state, s the system, m the CD slot
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

# --- status, off, on ----------------------------------------------------------

bmc status status
grep -q "On" "$W/status.out" && [ $rc = 0 ] && ok "status: On (the VM runs)" ||
	{ not_ok "status: On (rc $rc)"; show status; }
id0=$(boot_id)
[ -n "$id0" ] && ok "$NODE answers SSH" || not_ok "$NODE answers SSH"

t=$(date +%s)
bmc off off
[ $rc = 0 ] && ok "off: exit 0" || { not_ok "off: exit 0 (rc $rc)"; show off; }
qemu_pid >/dev/null && not_ok "off: the QEMU process is gone" ||
	ok "off: the QEMU process is gone"
ssh_q true 2>/dev/null && not_ok "off: SSH does not answer" ||
	ok "off: SSH does not answer"
[ "$(st 's["PowerState"]')" = Off ] && ok "off: PowerState Off" ||
	not_ok "off: PowerState Off"

bmc on on
[ $rc = 0 ] && ok "on: exit 0" || { not_ok "on: exit 0 (rc $rc)"; show on; }
qemu_pid >/dev/null && ok "on: QEMU runs again" || not_ok "on: QEMU runs again"
if wait_ssh 600; then
	id1=$(boot_id)
	[ -n "$id1" ] && [ "$id1" != "$id0" ] && ok "on: $NODE booted (new boot id) after $(($(date +%s) - t)) s" ||
		not_ok "on: a new boot id ($id0 -> $id1)"
else
	not_ok "on: $NODE answers SSH again"
	tail -n 20 "$VD/nodes/$NODE/console.log" | sed 's/^/#   /'
fi

# --- virtual media ------------------------------------------------------------

mark=$(head -c 12 /dev/urandom | od -An -tx1 | tr -d ' \n')
mkdir -p "$W/iso/www"
printf '%s\n' "$mark" >"$W/iso/marker"
xorriso -as mkisofs -quiet -V TVM030 -o "$W/iso/www/marker.iso" "$W/iso/marker" >"$W/xorriso.log" 2>&1 ||
	{ cat "$W/xorriso.log"; not_ok "an ISO made"; }
python3 -u -m http.server 0 --bind 127.0.0.1 --directory "$W/iso/www" >"$W/http.out" 2>&1 &
PIDS="$PIDS $!"
hp=
n=0
while [ -z "$hp" ] && [ $n -lt 100 ]; do
	hp=$(sed -n 's/.*port \([0-9][0-9]*\).*/\1/p' "$W/http.out" | head -n 1)
	sleep 0.2
	n=$((n + 1))
done
bmc mins media insert "http://127.0.0.1:$hp/marker.iso"
[ $rc = 0 ] && ok "media insert: exit 0" || { not_ok "media insert: exit 0 (rc $rc)"; show mins; }
got=$(ssh_q 'mkdir -p /mnt/tvm030 && mount -o ro /dev/sr0 /mnt/tvm030 && cat /mnt/tvm030/marker; umount /mnt/tvm030' 2>&1)
[ "$got" = "$mark" ] && ok "media: the guest mounts /dev/sr0 and reads the marker" ||
	{ not_ok "media: the guest reads the marker from /dev/sr0"; echo "# $got"; }
bmc mej media eject
[ $rc = 0 ] && ok "media eject: exit 0" || { not_ok "media eject: exit 0 (rc $rc)"; show mej; }
ssh_q 'dd if=/dev/sr0 of=/dev/null bs=2048 count=1' 2>/dev/null &&
	not_ok "media eject: /dev/sr0 has no medium" || ok "media eject: /dev/sr0 has no medium"

# --- a one-time PXE boot ------------------------------------------------------

# DHCP DISCOVERs on the namespace's bridges: "MAC CLASS" a line
python3 - "$W/dhcp.log" <<'PY' &
import socket, sys
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.setsockopt(socket.SOL_SOCKET, socket.SO_BROADCAST, 1)
s.bind(("0.0.0.0", 67))
out = open(sys.argv[1], "a")
while True:
    p, _ = s.recvfrom(4096)
    if len(p) < 240 or p[236:240] != b"\x63\x82\x53\x63":
        continue
    mac = ":".join("%02x" % b for b in p[28:34])
    i, cls = 240, "-"
    while i + 1 < len(p) and p[i] != 255:
        if p[i] == 0:
            i += 1
            continue
        if p[i] == 60:
            cls = p[i + 2:i + 2 + p[i + 1]].decode("ascii", "replace").split(":")[0]
        i += 2 + p[i + 1]
    out.write("%s %s\n" % (mac, cls))
    out.flush()
PY
PIDS="$PIDS $!"
macs=$(tr '\0' '\n' <"/proc/$(qemu_pid)/cmdline" | sed -n 's/.*mac=\([0-9a-f:]*\).*/\1/p')
: >"$W/dhcp.log"

bmc boot boot pxe --once
[ $rc = 0 ] && [ "$(st 's["Boot"]["BootSourceOverrideTarget"] + " " + s["Boot"]["BootSourceOverrideEnabled"]')" = "Pxe Once" ] &&
	ok "boot pxe --once: exit 0, the override set" || { not_ok "boot pxe --once (rc $rc)"; show boot; }
id1=$(boot_id)
t=$(date +%s)
bmc reset reset
[ $rc = 0 ] && ok "reset: exit 0" || { not_ok "reset: exit 0 (rc $rc)"; show reset; }
tr '\0' ' ' <"/proc/$(qemu_pid)/cmdline" | grep -q -- '-boot once=n,order=c' &&
	ok "reset: QEMU boots the network once, then the disk" ||
	not_ok "reset: QEMU's -boot once=n,order=c"
if wait_ssh 600; then
	id2=$(boot_id)
	[ -n "$id2" ] && [ "$id2" != "$id1" ] && ok "reset: $NODE booted its disk after the PXE attempt ($(($(date +%s) - t)) s)" ||
		not_ok "reset: a new boot id ($id1 -> $id2)"
else
	not_ok "reset: $NODE answers SSH again"
	tail -n 20 "$VD/nodes/$NODE/console.log" | sed 's/^/#   /'
fi
pxe=0
for m in $macs; do
	grep -q "^$m PXEClient$" "$W/dhcp.log" && pxe=1
done
[ $pxe = 1 ] && ok "reset: a PXE DHCP DISCOVER from $NODE's MAC" ||
	{ not_ok "reset: a PXE DHCP DISCOVER from $NODE's MAC ($macs)"; sed 's/^/#   /' "$W/dhcp.log"; }
[ "$(st 's["Boot"]["BootSourceOverrideEnabled"] + " " + str(s["boots"][-1]["override"])')" = "Disabled Pxe" ] &&
	ok "the boot is recorded with the override, which is spent" ||
	not_ok "the override spent: $(st 's["Boot"], s["boots"][-1:]')"

: >"$W/dhcp.log"
bmc reset2 reset
[ $rc = 0 ] && wait_ssh 600 && ok "a second reset: $NODE back" || { not_ok "a second reset: $NODE back (rc $rc)"; show reset2; }
[ -s "$W/dhcp.log" ] && { not_ok "a second reset: no PXE attempt"; sed 's/^/#   /' "$W/dhcp.log"; } ||
	ok "a second reset: no PXE attempt (the override was for one boot)"

grep -qF "$PW" "$ALL" "$W/emu.out" "$W/emu.err" && not_ok "the password never shows" ||
	ok "the password never shows"
done_testing

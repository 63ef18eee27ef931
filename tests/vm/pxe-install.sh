#!/bin/sh
# pxe-install.sh: `make test-pxe`.  A blank VM installs Debian 12 over the
# network the way `provision pxe` says a real node does, all of it inside
# the VM testbed's network namespace (no uplink):
#
#   QEMU's own iPXE ROM (SeaBIOS, -boot once=n) ──DHCP/TFTP──▶ dnsmasq with
#   provision's rendered dnsmasq.conf ──▶ boot.ipxe ──HTTP──▶ `provision pxe
#   --serve`: ipxe/MAC.ipxe, the installer's kernel and initrd (Debian's
#   debian-installer-12-netboot-amd64 package, taken with --iso), the
#   rendered preseed ──▶ d-i installs from the testbed's package cache
#   (apt-cacher-ng behind the namespace's relay) ──▶ reboot from the disk
#   ──▶ SSH with the plan's key ──▶ `provision apply` takes the node over.
#
# The network has no DHCP server of its own, so dnsmasq hands out the
# plan's address (provision's reservation mode); --proxy-dhcp is for
# networks that do have one.  The installer's console goes to the serial
# port (console=ttyS0 added to a copy of templates/pxe/debian.ipxe), so
# its progress is in the console log.
#
# Prints one line per milestone with the seconds since the VM started, and
# "pxe: N passed, M failed" at the end.  Slow under TCG: PXE_TIMEOUT
# (default 5400 s) bounds the whole install.  Needs root.
#
#   PXE_KEEP=1 keeps the work folder (logs, disk) for a look afterwards.
cd "$(dirname "$0")/../.." || exit 1
TOP=$(pwd)
: "${PROVISION:=$TOP/provision}"
VD=${TESTBED_VM_DIR:-/var/tmp/provision-vm}
NS=${TESTBED_VM_NETNS:-provision-vm}
TIMEOUT=${PXE_TIMEOUT:-5400}
DI=/usr/lib/debian-installer/images/12/amd64/text
BR=pxbr0
TAP=pxtap0
GW=192.168.60.1
ADDR=192.168.60.10
MAC=52:54:00:60:00:10
MACD=$(echo "$MAC" | tr : -)
HTTP_PORT=8080

pass=0
fail=0
t0=
ok() { pass=$((pass + 1)); echo "ok - $* ($(since) s)"; }
not_ok() { fail=$((fail + 1)); echo "not ok - $* ($(since) s)"; }
since() { if [ -n "$t0" ]; then echo $(($(date +%s) - t0)); else echo 0; fi; }
skip() {
	echo "# skip: $*"
	echo "pxe: 0 passed, 0 failed, 1 skipped"
	exit 0
}

[ "$(id -u)" -eq 0 ] || skip "needs root (a namespace, a bridge, QEMU)"
for c in qemu-system-x86_64 qemu-img dnsmasq socat apt-cacher-ng ssh-keygen; do
	command -v "$c" >/dev/null 2>&1 || skip "needs $c (make deps)"
done
[ -f "$DI/debian-installer/amd64/linux" ] ||
	skip "needs Debian's debian-installer-12-netboot-amd64 (make deps)"
[ -f /usr/lib/ipxe/undionly.kpxe ] || skip "needs Debian's ipxe (make deps)"
[ -x "$PROVISION" ] || skip "no binary at $PROVISION"

W=$(mktemp -d /var/tmp/provision-pxe.XXXXXX) || exit 1
chmod 700 "$W"
in_ns() { ip netns exec "$NS" "$@"; }
cleanup() {
	for f in qemu dnsmasq serve; do
		[ -s "$W/$f.pid" ] && kill "$(cat "$W/$f.pid")" 2>/dev/null
	done
	sleep 1
	ip -n "$NS" link del "$TAP" 2>/dev/null
	ip -n "$NS" link del "$BR" 2>/dev/null
	scripts/testbed-vm down >/dev/null 2>&1
	if [ "${PXE_KEEP:-0}" = 1 ]; then
		echo "# kept: $W"
	else
		rm -rf "$W"
	fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# --- the network: the testbed's namespace and package relay, a bridge ------

scripts/testbed-vm netns >"$W/netns.log" 2>&1 || { cat "$W/netns.log"; exit 1; }
ip -n "$NS" link add "$BR" type bridge
ip -n "$NS" addr add "$GW/24" dev "$BR"
ip -n "$NS" link set "$BR" up
ip -n "$NS" tuntap add dev "$TAP" mode tap
ip -n "$NS" link set "$TAP" master "$BR" up

# --- the plan, the rendered files, the servers ------------------------------

ssh-keygen -q -t ed25519 -N '' -C provision-pxe-test -f "$W/id_ed25519"
: >"$W/known_hosts"
cat >"$W/plan.yaml" <<EOF
version: 1
cluster: { name: pxetest, domain: pxetest.internal }
networks:
  mgmt: { cidr: 192.168.60.0/24, kind: ethernet, gbps: 1, role: management }
ssh:
  user: root
  identity: $W/id_ed25519
  known_hosts: $W/known_hosts
  host_keys: accept-new
  connect_timeout_s: 15
nodes:
  - { name: pxe-01, role: worker, address: $ADDR, mac: "$MAC" }
software:
  os: { distro: debian, release: "12" }
EOF
# the installer, as a netboot tarball (what --iso reads)
tar -C "$DI" -czf "$W/netboot.tar.gz" debian-installer
# the templates, with the installer on the serial console
cp -r templates "$W/templates"
sed -i 's/--- quiet$/console=ttyS0,115200n8 --- console=ttyS0,115200n8/' \
	"$W/templates/pxe/debian.ipxe"
grep -q 'console=ttyS0' "$W/templates/pxe/debian.ipxe" ||
	{ echo "# templates/pxe/debian.ipxe changed: cannot add the serial console"; exit 1; }
mkdir -p "$W/out"
chmod 700 "$W/out"
# The mirror is apt-cacher-ng's "host/path" form through the relay.
set -- --iso "$W/netboot.tar.gz" --url "http://$GW:$HTTP_PORT" \
	--mirror "http://$GW:3142/deb.debian.org/debian" --interface "$BR" \
	--templates "$W/templates" "$W/plan.yaml"
if "$PROVISION" pxe -o "$W/out" "$@" >"$W/render.log" 2>&1; then
	ok "provision pxe renders the files"
else
	not_ok "provision pxe renders the files"
	sed 's/^/#   /' "$W/render.log"
	echo "pxe: $pass passed, $fail failed"
	exit 1
fi
cp /usr/lib/ipxe/undionly.kpxe "$W/out/"
in_ns "$PROVISION" pxe -o "$W/out" --serve "$GW:$HTTP_PORT" "$@" >"$W/serve.log" 2>&1 &
echo $! >"$W/serve.pid"
in_ns dnsmasq --no-daemon --user=root --conf-file="$W/out/dnsmasq.conf" \
	--log-facility="$W/dnsmasq.log" >"$W/dnsmasq.out" 2>&1 &
echo $! >"$W/dnsmasq.pid"
sleep 2
kill -0 "$(cat "$W/dnsmasq.pid")" 2>/dev/null || { cat "$W/dnsmasq.out"; not_ok "dnsmasq runs"; }

# --- the VM -------------------------------------------------------------------

qemu-img create -q -f qcow2 "$W/disk.qcow2" 8G
accel=tcg
[ ! -s "$VD/run/accel" ] || accel=$(cat "$VD/run/accel")
case $accel in
kvm) accel="-accel kvm -cpu host" ;;
*) accel="-accel tcg,tb-size=256" ;;
esac
t0=$(date +%s)
acng0=$(cat "$VD"/acng/log/apt-cacher.log 2>/dev/null | wc -l)
# shellcheck disable=SC2086
in_ns qemu-system-x86_64 -name pxe-01,process=pv-pxe-01 $accel -m 1024 -smp 1 \
	-nodefaults -display none -serial "file:$W/console.log" \
	-drive "file=$W/disk.qcow2,if=virtio,cache=unsafe,discard=unmap" \
	-netdev "tap,id=n0,ifname=$TAP,script=no,downscript=no" \
	-device "virtio-net-pci,netdev=n0,mac=$MAC" -device virtio-rng-pci \
	-qmp "unix:$W/qmp.sock,server=on,wait=off" \
	-boot once=n,order=c -pidfile "$W/qemu.pid" -daemonize ||
	{ not_ok "QEMU starts"; echo "pxe: $pass passed, $fail failed"; exit 1; }
echo "# VM started ($accel), MAC $MAC; timeout $TIMEOUT s"

# milestone NAME TEST...: wait until TEST succeeds (or the time is up,
# or TEST returns 2: it will never succeed)
deadline=$((t0 + TIMEOUT))
milestone() {
	what=$1
	shift
	while :; do
		"$@" >/dev/null 2>&1
		case $? in
		0) break ;;
		2)
			not_ok "$what"
			sed 's/^/# /' "$W/why" 2>/dev/null
			return 1
			;;
		esac
		if [ "$(date +%s)" -ge "$deadline" ] || ! kill -0 "$(cat "$W/qemu.pid" 2>/dev/null)" 2>/dev/null; then
			not_ok "$what"
			return 1
		fi
		sleep 5
	done
	ok "$what"
}
acng_new() {
	tail -n "+$((acng0 + 1))" "$VD"/acng/log/apt-cacher.log 2>/dev/null | grep -q "$1"
}
# fetched FILE-PATTERN: the cache served such a file (its log's "O"
# line ends with the path); 2 when it answered one with an error (an
# "E" line, the error after the path; the reason goes to $W/why): the
# installer then stops at "Downloading a file failed".
fetched() {
	if acng_new "|E|[^|]*|[^|]*|.*$1 \["; then
		tail -n "+$((acng0 + 1))" "$VD"/acng/log/apt-cacher.log |
			grep "|E|[^|]*|[^|]*|.*$1 \[" | head -n 1 |
			sed 's/^[^|]*|E|[^|]*|[^|]*|/the cache refused /' >"$W/why"
		return 2
	fi
	acng_new "|O|[^|]*|[^|]*|.*$1\$"
}
ssh_node() {
	in_ns ssh -F /dev/null -i "$W/id_ed25519" -o IdentitiesOnly=yes \
		-o BatchMode=yes -o StrictHostKeyChecking=no \
		-o UserKnownHostsFile=/dev/null -o ConnectTimeout=5 \
		-o LogLevel=ERROR "root@$ADDR" "$@" </dev/null
}

ok=1
milestone "DHCP: dnsmasq gives $MAC its address" grep -q "DHCPACK.* $ADDR $MAC" "$W/dnsmasq.log" &&
milestone "TFTP: iPXE fetches boot.ipxe" grep -q "sent .*boot.ipxe" "$W/dnsmasq.log" &&
milestone "HTTP: ipxe/$MACD.ipxe" grep -q "/ipxe/$MACD.ipxe" "$W/serve.log" &&
milestone "HTTP: the installer's kernel and initrd" grep -q "/initrd" "$W/serve.log" &&
milestone "the installer boots (serial console)" grep -qa "Debian" "$W/console.log" &&
milestone "HTTP: the installer fetches the rendered preseed" grep -q "/answers/$MACD/preseed.cfg" "$W/serve.log" &&
milestone "the installer fetches its components (udebs) from the cache" fetched '\.udeb' &&
milestone "the base system comes from the cache (debootstrap)" fetched 'base-files_.*\.deb' &&
milestone "the installed system boots its disk and answers SSH with the plan's key" ssh_node true ||
	ok=0
if [ $ok = 1 ]; then
	ssh_node 'hostname; cat /etc/debian_version; ip -br addr' | sed 's/^/#   /'
	[ "$(ssh_node hostname)" = pxe-01 ] && ok "the host name is the plan's" || not_ok "the host name is the plan's"
	if in_ns "$PROVISION" apply --plain "$W/plan.yaml" >"$W/apply.log" 2>&1; then
		ok "provision apply takes the node over"
	else
		not_ok "provision apply takes the node over"
		tail -n 20 "$W/apply.log" | sed 's/^/#   /'
	fi
else
	echo "# the last lines of the console:"
	tail -c 3000 "$W/console.log" | tr -d '\033' | tr '\r' '\n' | grep -a . | tail -n 15 | sed 's/^/#   /'
	echo "# the last requests served:"
	tail -n 5 "$W/serve.log" | sed 's/^/#   /'
fi
echo "# time: $(since) s (load: $(cut -d' ' -f1-3 /proc/loadavg))"
echo "pxe: $pass passed, $fail failed"
[ "$fail" -eq 0 ]

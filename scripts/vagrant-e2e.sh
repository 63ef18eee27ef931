#!/bin/bash
# vagrant-e2e.sh: vagrant/ for real (docs/vagrant.md).  `vagrant up` of the
# three machines of vagrant/Vagrantfile with vagrant-libvirt and the
# Debian 12 box built from the VM testbed's image, then `provision check`,
# `apply`, a second apply that changes nothing, and `verify` with
# vagrant/plan-debian.yaml.
#
#   scripts/vagrant-e2e.sh [all|up|test|down|exec COMMAND...]
#
#   all   up, test, down (default); down also on failure or ^C
#   up    the box (built when missing or stale), the namespace, libvirtd,
#         `vagrant up`
#   test  check, apply, apply again (0 changed), verify
#   down  `vagrant destroy`, libvirtd, the namespace
#   exec  COMMAND inside the namespace, with Vagrant's settings
#         (e.g. `exec vagrant ssh worker-01`)
#
# Everything runs in a network namespace of its own, as scripts/testbed-vm
# does (no uplink, no route, no forwarding): a libvirtd and virtlogd of
# this script's own, their networks (the private network and Vagrant's
# management network, both with forward mode none) and VMs, Vagrant and
# provision.  The daemons also get a mount namespace whose /etc/libvirt,
# /run/libvirt, /var/lib/libvirt, /var/cache/libvirt and /var/log/libvirt
# are folders under the state folder: a system libvirt, if there is one,
# is neither used nor changed (its default NAT network is never made),
# and no systemd is needed.  Packages reach the VMs as in testbed-vm:
# apt on each VM (PROVISION_VAGRANT_APT_PROXY) -> the relay on
# 192.168.56.1:3142 in the namespace -> apt-cacher-ng on 127.0.0.1.
#
# Environment:
#   VAGRANT_E2E_DIR     state folder (default /var/tmp/provision-vagrant)
#   VAGRANT_E2E_NETNS   network namespace (default provision-vagrant)
#   VAGRANT_E2E_CACHE_PORT  its apt-cacher-ng's port on 127.0.0.1 (default 3150)
#   TESTBED_VM_DIR      the VM testbed's folder, whose image the box is
#                       made from (default /var/tmp/provision-vm)
#   PROVISION           the provision binary (default ./provision)
#   PROVISION_VAGRANT_* the Vagrantfile's settings (defaults here: the box
#                       provision/debian12, driver qemu unless the CPU has
#                       vmx/svm, 1 vCPU and 1024 MiB per VM)
#
# State in VAGRANT_E2E_DIR: debian12-libvirt.box (and .stamp), vagrant.d/
# (VAGRANT_HOME: the added box), dotfile/ (Vagrant's machine state),
# libvirt/ (the daemons' folders, logs in libvirt/log), console/ (the VMs'
# serial consoles), testbed/ (the package relay and cache), state/
# (provision's state), times (the last run's times).

set -euo pipefail
cd "$(dirname "$0")/.."
TOP=$(pwd)
PROVISION=${PROVISION:-./provision}
S=${VAGRANT_E2E_DIR:-/var/tmp/provision-vagrant}
NS=${VAGRANT_E2E_NETNS:-provision-vagrant}
CACHE_PORT=${VAGRANT_E2E_CACHE_PORT:-3150}
V=$TOP/vagrant
PLAN=$V/plan-debian.yaml
BOX=$S/debian12-libvirt.box
BOX_NAME=provision/debian12
LV=$S/libvirt
SOCK=$LV/run/libvirt-sock
RELAY=192.168.56.1:3142

die() { echo "vagrant-e2e: $*" >&2; exit 1; }
say() { echo "vagrant-e2e: $*"; }

# Vagrant's and libvirt's settings, for every command of this script.
export VAGRANT_HOME=$S/vagrant.d
export VAGRANT_DOTFILE_PATH=$S/dotfile
export VAGRANT_CHECKPOINT_DISABLE=1 VAGRANT_BOX_UPDATE_CHECK_DISABLE=1
export VAGRANT_DEFAULT_PROVIDER=libvirt
export LIBVIRT_DEFAULT_URI="qemu:///system?socket=$SOCK"
export PROVISION_VAGRANT_BOX=${PROVISION_VAGRANT_BOX:-$BOX_NAME}
export PROVISION_VAGRANT_CPUS=${PROVISION_VAGRANT_CPUS:-1}
export PROVISION_VAGRANT_MEMORY=${PROVISION_VAGRANT_MEMORY:-1024}
export PROVISION_VAGRANT_MGMT=${PROVISION_VAGRANT_MGMT:-none}
export PROVISION_VAGRANT_APT_PROXY=${PROVISION_VAGRANT_APT_PROXY:-http://$RELAY}
export PROVISION_VAGRANT_CONSOLE=${PROVISION_VAGRANT_CONSOLE:-$S/console}
export PROVISION_VAGRANT_BOOT_TIMEOUT=${PROVISION_VAGRANT_BOOT_TIMEOUT:-900}
if [ -z "${PROVISION_VAGRANT_DRIVER:-}" ]; then
	# /dev/kvm alone is not enough: without vmx/svm (a PVM host) KVM
	# hangs a stock kernel (docs/testbed-vm.md)
	if grep -qwE 'vmx|svm' /proc/cpuinfo && [ -w /dev/kvm ]; then
		PROVISION_VAGRANT_DRIVER=kvm
	else
		PROVISION_VAGRANT_DRIVER=qemu
	fi
fi
export PROVISION_VAGRANT_DRIVER

# testbed-vm's namespace and package relay, in a folder of this script's.
testbed() {
	TESTBED_VM_DIR=$S/testbed TESTBED_VM_NETNS=$NS TESTBED_VM_CACHE_PORT=$CACHE_PORT \
		scripts/testbed-vm "$@"
}

in_ns() {
	ip netns exec "$NS" "$@"
}

need() {
	local c
	[ "$(id -u)" = 0 ] || die "must run as root (namespaces, libvirtd)"
	for c in vagrant virsh libvirtd virtlogd qemu-system-x86_64 dnsmasq ip unshare; do
		command -v "$c" >/dev/null 2>&1 || die "missing command '$c' (make deps)"
	done
	vagrant plugin list 2>/dev/null | grep -q '^vagrant-libvirt ' ||
		die "vagrant has no vagrant-libvirt plugin (Debian package vagrant-libvirt)"
	[ -x "$PROVISION" ] || die "no $PROVISION (make)"
}

# ---------------------------------------------------------------- libvirtd

libvirtd_conf() {
	cat <<-EOF
	# written by scripts/vagrant-e2e.sh: root's socket only
	unix_sock_rw_perms = "0700"
	unix_sock_ro_perms = "0700"
	auth_unix_rw = "none"
	auth_unix_ro = "none"
	log_outputs = "3:file:/var/log/libvirt/libvirtd.log"
	EOF
}

# Guests run as root: /dev/kvm opens for root only, and without that
# libvirt probes QEMU again on every call (52 s each).  No confinement
# (no AppArmor or SELinux here) and no private /dev per guest.
qemu_conf() {
	cat <<-EOF
	# written by scripts/vagrant-e2e.sh
	user = "root"
	group = "root"
	dynamic_ownership = 0
	remember_owner = 0
	security_driver = "none"
	namespaces = [ ]
	EOF
}

# The daemons' folders: the real paths, bound over folders of ours in a
# mount namespace that only the daemons (and the guests) see.
LV_MOUNTS="etc:/etc/libvirt run:/run/libvirt lib:/var/lib/libvirt cache:/var/cache/libvirt log:/var/log/libvirt"

libvirt_running() {
	[ -S "$SOCK" ] && timeout 20 virsh -q version >/dev/null 2>&1
}

libvirt_up() {
	local m i
	if libvirt_running; then
		return 0
	fi
	# libvirt's QEMU driver looks its default user up before it reads
	# qemu.conf; Debian's libvirt-daemon-system makes it, we may not have it
	getent passwd libvirt-qemu >/dev/null ||
		useradd --system --user-group --no-create-home --home-dir /var/lib/libvirt \
			--shell /usr/sbin/nologin libvirt-qemu
	rm -rf "$LV"
	for m in $LV_MOUNTS; do
		mkdir -p "$LV/${m%%:*}" "${m#*:}"
	done
	libvirtd_conf >"$LV/etc/libvirtd.conf"
	qemu_conf >"$LV/etc/qemu.conf"
	# shellcheck disable=SC2016 # expanded by the inner shell
	in_ns unshare --mount --propagation private sh -ec '
		for m in $1; do mount --bind "$2/${m%%:*}" "${m#*:}"; done
		virtlogd -d -p /run/libvirt/virtlogd.pid
		libvirtd -d -p /run/libvirt/libvirtd.pid
	' sh "$LV_MOUNTS" "$LV" || die "libvirtd did not start (see $LV/log)"
	for i in $(seq 1 60); do
		libvirt_running && break
		[ "$i" -lt 60 ] || die "libvirtd does not answer on $SOCK (see $LV/log/libvirtd.log)"
		sleep 1
	done
	say "libvirtd up in namespace $NS ($LIBVIRT_DEFAULT_URI)"
}

# Stops the daemons, then anything left in the namespace (guests whose
# libvirtd died, the package relay): only processes this script started
# live there.
libvirt_down() {
	local f pid pids
	for f in libvirtd virtlogd; do
		[ -f "$LV/run/$f.pid" ] || continue
		read -r pid <"$LV/run/$f.pid" || continue
		kill "$pid" 2>/dev/null || true
	done
	[ -e "/run/netns/$NS" ] || return 0
	sleep 1
	pids=$(ip netns pids "$NS" 2>/dev/null || true)
	[ -z "$pids" ] || {
		# shellcheck disable=SC2086
		kill $pids 2>/dev/null || true
		sleep 2
		# shellcheck disable=SC2086
		kill -KILL $pids 2>/dev/null || true
	}
}

# ---------------------------------------------------------------- steps

keys() {
	mkdir -p "$V/.ssh"
	chmod 0700 "$V/.ssh"
	[ -f "$V/.ssh/id_ed25519" ] ||
		ssh-keygen -q -t ed25519 -N '' -C provision-vagrant -f "$V/.ssh/id_ed25519"
	: >"$V/.ssh/known_hosts"
}

# The box: built from the testbed's image when missing or stale, added to
# Vagrant again when it changed.
box() {
	local stamp
	scripts/testbed-vm box "$BOX"
	stamp=$(cat "$BOX.stamp")
	if [ "$(cat "$VAGRANT_HOME/box.stamp" 2>/dev/null)" != "$stamp" ]; then
		vagrant box add --force --name "$BOX_NAME" "$BOX"
		echo "$stamp" >"$VAGRANT_HOME/box.stamp"
	fi
}

T0=$SECONDS
TIMES=
lap() {
	TIMES="$TIMES$1 $((SECONDS - T0)) s, "
	T0=$SECONDS
}

up() {
	mkdir -p "$S" "$VAGRANT_HOME" "$PROVISION_VAGRANT_CONSOLE"
	box
	lap box
	keys
	testbed netns
	libvirt_up
	lap namespace
	say "vagrant up ($PROVISION_VAGRANT_DRIVER, $PROVISION_VAGRANT_CPUS vCPU, $PROVISION_VAGRANT_MEMORY MiB each)"
	(cd "$V" && in_ns vagrant up --provider=libvirt) || die "vagrant up failed (consoles in $PROVISION_VAGRANT_CONSOLE)"
	lap "vagrant up"
}

test_plan() {
	local st=$S/state out=$S/apply2.txt
	rm -rf "$st"
	in_ns "$PROVISION" check "$PLAN"
	lap check
	in_ns "$PROVISION" apply --plain --state-dir "$st" "$PLAN"
	lap apply
	# A second run must change nothing.
	in_ns "$PROVISION" apply --plain --state-dir "$st" "$PLAN" >"$out" 2>&1 ||
		{ cat "$out"; die "the second apply failed"; }
	grep -q ' 0 changed, ' "$out" || { cat "$out"; die "the second apply changed something"; }
	grep '^[0-9]* nodes: ' "$out"
	lap "second apply"
	in_ns "$PROVISION" verify "$PLAN"
	lap verify
}

down() {
	if [ -e "/run/netns/$NS" ] && libvirt_running; then
		(cd "$V" && in_ns vagrant destroy -f) || true
	fi
	libvirt_down
	testbed down || true
}

print_times() {
	echo "vagrant-e2e: times: ${TIMES%, } (load: $(cut -d' ' -f1-3 /proc/loadavg))" | tee "$S/times"
}

case ${1:-all} in
up) need; up; print_times ;;
test) need; test_plan; print_times ;;
down) need; down ;;
exec)
	shift
	[ $# -ge 1 ] || die "exec needs a command"
	[ -e "/run/netns/$NS" ] || die "no namespace $NS: run up first"
	cd "$V" && exec ip netns exec "$NS" "$@"
	;;
all)
	need
	trap 'down; print_times' EXIT
	trap 'exit 130' INT TERM
	up
	test_plan
	;;
*) echo "usage: $0 [all|up|test|down|exec COMMAND...]" >&2; exit 2 ;;
esac

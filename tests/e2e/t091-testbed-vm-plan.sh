#!/bin/sh
# scripts/testbed-vm without VMs (`make test-vm` boots them): a VM's size
# comes from the plan's `vm:` and is checked before anything is built or
# booted; a plan whose VMs cannot fit this machine's memory is refused
# with the figures, a bad size never reaches QEMU.
. "$(dirname "$0")/lib.sh"
set -u
cd "$TOP" || exit 1
[ "$(id -u)" -eq 0 ] || skip_all "testbed-vm needs root"
for c in bash python3 qemu-system-x86_64 qemu-img socat ssh-keygen; do
	command -v "$c" >/dev/null 2>&1 || skip_all "no $c (make deps)"
done
TMP=$(mktemp -d /tmp/t091.XXXXXX)
trap 'rm -rf "$TMP"' EXIT
# Should a check be missing, the image's build fails at once (no mirror
# there) instead of booting anything.
export TESTBED_VM_DIR="$TMP/vm" TESTBED_VM_NETNS=provision-t091 \
	TESTBED_VM_MIRROR=http://127.0.0.1:9/debian

plan() {
	printf 'version: 1\ncluster: { name: t }\n'
	printf 'networks: { mgmt: { cidr: 192.168.56.0/24, role: management } }\n'
	printf 'nodes:\n  - { name: "n[01-64]", address: "192.168.56.[11-74]", vm: %s }\n' "$1"
}

# 64 VMs of 64 GiB: more than any machine this runs on has free.
plan '{ memory_mib: 65536, cpus: 1 }' >"$TMP/big.yaml"
expect_code 1 "VMs larger than the free memory are refused" \
	timeout 60 sh -c "scripts/testbed-vm up '$TMP/big.yaml' >'$TMP/big.out' 2>&1"
check "the refusal names what they need and what is free" \
	grep -q 'the VMs need 4210688 MiB with QEMU.s own and this machine has [0-9]* MiB available: lower vm.memory_mib' "$TMP/big.out"
check "nothing was built or booted" test ! -e "$TMP/vm/image"
check "no namespace was made" sh -c '! ip netns list | grep -qw provision-t091'

plan '{ memory_mib: "1024 -device x", cpus: 1 }' >"$TMP/bad.yaml"
expect_code 1 "a bad size never reaches QEMU" \
	timeout 60 sh -c "scripts/testbed-vm up '$TMP/bad.yaml' >'$TMP/bad.out' 2>&1"
check "the plan's error is shown at the value" \
	grep -q "bad.yaml:5:74: 'memory_mib' must be a whole number" "$TMP/bad.out"
check "testbed-vm passes shellcheck" shellcheck scripts/testbed-vm
done_testing

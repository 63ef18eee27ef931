#!/bin/sh
# vagrant/ without VMs (scripts/vagrant-e2e.sh, `make test-vagrant`, brings
# them up): the Vagrantfile validates, a broken one does not, a bad
# setting in the environment is refused before it reaches libvirt or a
# shell, both plans pass check and name exactly the machines (and
# addresses) the Vagrantfile makes.
. "$(dirname "$0")/lib.sh"
set -u
cd "$TOP" || exit 1
command -v vagrant >/dev/null 2>&1 || skip_all "vagrant is not installed (make deps)"
TMP=$(mktemp -d /tmp/t090.XXXXXX)
trap 'rm -rf "$TMP"' EXIT

check "vagrant validate" sh -c 'cd vagrant && vagrant validate --ignore-provider >/dev/null'
cp vagrant/Vagrantfile "$TMP/Vagrantfile"
printf 'Vagrant.configure("2") do |c|\n  c.vm.nope = 1\nend\n' >> "$TMP/Vagrantfile"
expect_code 1 "a broken Vagrantfile is refused" sh -c "cd '$TMP' && vagrant validate --ignore-provider >/dev/null 2>&1"
check "the Debian box and TCG settings validate" sh -c 'cd vagrant &&
	PROVISION_VAGRANT_BOX=provision/debian12 PROVISION_VAGRANT_DRIVER=qemu PROVISION_VAGRANT_CPUS=1 \
	PROVISION_VAGRANT_MEMORY=1024 PROVISION_VAGRANT_MGMT=none \
	PROVISION_VAGRANT_APT_PROXY=http://192.168.56.1:3142 vagrant validate --ignore-provider >/dev/null'
# Each value reaches Vagrant through the environment only (one argument
# of env, never a shell's text); the hostile one would make a file if
# anything ran it.
for bad in "DRIVER=xen" "MGMT=bridge" "CPUS=0" "MEMORY=1g" \
	"APT_PROXY=http://x';touch $TMP/pwned;'" "APT_PROXY=http://x/\$(touch $TMP/pwned)"; do
	expect_code 1 "PROVISION_VAGRANT_$bad is refused" env "PROVISION_VAGRANT_$bad" \
		sh -c 'cd vagrant && vagrant validate --ignore-provider >/dev/null 2>&1'
done
check "no hostile setting ran" test ! -e "$TMP/pwned"

sed -n 's/^ *"\([a-z0-9-]*\)" *=> *"\([0-9.]*\)",*$/\1=\2/p' vagrant/Vagrantfile | sort > "$TMP/vagrant.txt"
for plan in vagrant/plan.yaml vagrant/plan-debian.yaml; do
	check "$plan passes check" "$PROVISION" check -q "$plan"
	"$PROVISION" ls --json "$plan" | python3 -c '
import json, sys
print("\n".join(sorted("%s=%s" % (n["name"], n["address"]) for n in json.load(sys.stdin)["nodes"])))' > "$TMP/plan.txt"
	if [ -s "$TMP/plan.txt" ] && cmp -s "$TMP/plan.txt" "$TMP/vagrant.txt"; then
		ok "$plan and the Vagrantfile name the same machines and addresses"
	else
		not_ok "$plan and the Vagrantfile name the same machines"; diff "$TMP/plan.txt" "$TMP/vagrant.txt" | sed 's/^/# /'
	fi
done
check "vagrant-e2e.sh is valid bash" bash -n scripts/vagrant-e2e.sh
check "vagrant-e2e.sh passes shellcheck" shellcheck scripts/vagrant-e2e.sh
done_testing

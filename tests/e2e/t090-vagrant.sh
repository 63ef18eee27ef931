#!/bin/sh
# vagrant/: VMs cannot run on our machines, so prove what can be proven:
# the Vagrantfile validates, a broken one does not, the plan passes check
# and names exactly the machines (and addresses) the Vagrantfile makes.
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
check "vagrant/plan.yaml passes check" "$PROVISION" check -q vagrant/plan.yaml

"$PROVISION" ls --json vagrant/plan.yaml | python3 -c '
import json, sys
print("\n".join(sorted("%s=%s" % (n["name"], n["address"]) for n in json.load(sys.stdin)["nodes"])))' > "$TMP/plan.txt"
sed -n 's/^ *"\([a-z0-9-]*\)" *=> *"\([0-9.]*\)",*$/\1=\2/p' vagrant/Vagrantfile | sort > "$TMP/vagrant.txt"
if [ -s "$TMP/plan.txt" ] && cmp -s "$TMP/plan.txt" "$TMP/vagrant.txt"; then
	ok "plan and Vagrantfile name the same machines and addresses"
else
	not_ok "plan and Vagrantfile name the same machines"; diff "$TMP/plan.txt" "$TMP/vagrant.txt" | sed 's/^/# /'
fi
check "vagrant-e2e.sh is valid sh" sh -n scripts/vagrant-e2e.sh
check "vagrant-e2e.sh passes shellcheck" shellcheck -s sh scripts/vagrant-e2e.sh
done_testing

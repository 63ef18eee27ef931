#!/bin/sh
# vagrant-e2e.sh: the same plan shape as the local testbed, on real VMs.
# Needs vagrant with VirtualBox or libvirt (not available on our build
# machines: `make test` only runs `vagrant validate`).
#
#   scripts/vagrant-e2e.sh [up|test|down]   (default: up, then test)
set -eu
cd "$(dirname "$0")/.."
PROVISION=${PROVISION:-./provision}
V=vagrant

keys() {
	mkdir -p "$V/.ssh"
	chmod 0700 "$V/.ssh"
	[ -f "$V/.ssh/id_ed25519" ] ||
		ssh-keygen -q -t ed25519 -N '' -C provision-vagrant -f "$V/.ssh/id_ed25519"
	: > "$V/.ssh/known_hosts"
}

up() {
	keys
	(cd "$V" && vagrant up)
}

test_plan() {
	"$PROVISION" check "$V/plan.yaml"
	"$PROVISION" apply --plain "$V/plan.yaml"
	# A second run must change nothing.
	"$PROVISION" apply --plain "$V/plan.yaml" | tee /dev/stderr | grep -q ' 0 changed, '
	if "$PROVISION" help verify >/dev/null 2>&1; then
		"$PROVISION" verify "$V/plan.yaml"
	fi
}

case ${1:-all} in
up) up ;;
test) test_plan ;;
down) (cd "$V" && vagrant destroy -f) ;;
all) up; test_plan ;;
*) echo "usage: $0 [up|test|down]" >&2; exit 2 ;;
esac

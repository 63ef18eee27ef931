# shellcheck shell=sh
# bench/apply-templates/node-exporter.sh: BENCH ONLY (see base.sh).  Reads
# what the real check reads (package database, a file's mode and owner)
# and passes; no daemon is started and none is probed.

# This machine is every fleet host: each its own run folder (package
# listing), emptied before each timed run by bench/apply.sh.
PROV_RUN_DIR=/run/provision-bench/$NODE_NAME

step_check() {
	[ "$NODE_EXPORTER" = 1 ] || prov_skip "node exporter is off in the plan"
	[ -n "$NODE_ADDR" ] || return 1
	pkg_installed openssh-server || return 1
	file_meta_ok /etc/os-release 644 root:root ||
		file_meta_ok "$(readlink -f /etc/os-release)" 644 root:root || return 1
	[ -r /etc/default ] || return 1
}

step_apply() {
	prov_fail "bench template: the check failed, and a bench step never changes this machine"
}

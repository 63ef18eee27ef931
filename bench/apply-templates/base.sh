# shellcheck shell=sh
# bench/apply-templates/base.sh: BENCH ONLY, never for a real node.
#
# The bench fleet (../shared/bench/fleet.sh) is this very machine answering
# on 200 loopback addresses, so a step may only READ it.  The check reads
# what the real base check reads (the OS, the package database, /etc/hosts
# with the plan's block rendered into it, a kernel setting) and passes:
# every step is "already done", and what a re-apply costs is the
# orchestration.  step_apply must never run here: it fails.

# This machine is every fleet host: each its own run folder (package
# listing), emptied before each timed run by bench/apply.sh.
PROV_RUN_DIR=/run/provision-bench/$NODE_NAME

step_check() {
	[ -r /etc/os-release ] && command -v sh >/dev/null || return 1
	[ -n "$NODE_NAME" ] && [ -n "$HOSTS_BLOCK" ] || return 1
	pkg_installed coreutils || return 1
	# the real check compares /etc/hosts with the plan's block: same read
	block_render /etc/hosts "$HOSTS_BLOCK" >/dev/null || return 1
	[ -r /proc/sys/vm/max_map_count ] || return 1
	uname -n >/dev/null
}

step_apply() {
	prov_fail "bench template: the check failed, and a bench step never changes this machine"
}

# shellcheck shell=sh
# bench/apply-templates/slurm.sh: BENCH ONLY (see base.sh).  Reads the
# rendered slurm.conf (it is in the script: every node of the plan) as the
# real check compares it, and passes; nothing is installed or started.

# This machine is every fleet host: each its own run folder (package
# listing), emptied before each timed run by bench/apply.sh.
PROV_RUN_DIR=/run/provision-bench/$NODE_NAME

step_check() {
	[ "$ORCHESTRATOR" = slurm ] || prov_skip "no Slurm in the plan"
	[ -n "$SLURM_CONF" ] || return 1
	printf '%s\n' "$SLURM_CONF" | grep -q "^NodeName=$NODE_NAME " ||
		[ "$SLURM_ROLE" = controller ] || return 1
	pkg_installed coreutils
}

step_apply() {
	prov_fail "bench template: the check failed, and a bench step never changes this machine"
}

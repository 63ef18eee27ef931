# shellcheck shell=sh
# bench/apply-templates/extras.sh: BENCH ONLY (see base.sh).  The real
# extras check, unchanged: every extra of the bench plan (python3,
# openssh-client) is installed on this machine, so it passes; apply fails
# rather than install anything.

# This machine is every fleet host: each its own run folder (package
# listing), emptied before each timed run by bench/apply.sh.
PROV_RUN_DIR=/run/provision-bench/$NODE_NAME

step_check() {
	[ -n "$EXTRAS" ] || prov_skip "no extras in the plan"
	for _bx in $EXTRAS; do
		pkg_installed "$_bx" || return 1
	done
	return 0
}

step_apply() {
	prov_fail "bench template: the check failed, and a bench step never changes this machine"
}

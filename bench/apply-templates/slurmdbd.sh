# shellcheck shell=sh
# bench/apply-templates/slurmdbd.sh: BENCH ONLY (see base.sh).  The slurm
# variant of the bench plan has no accounting, so the real step (on the
# head alone) only checks that no earlier plan's slurmdbd is left and
# says skipped: the same reads here.  step_apply must never run.

PROV_RUN_DIR=/run/provision-bench/$NODE_NAME

step_check() {
	[ "$SLURM_ACCOUNTING" != 1 ] || prov_fail "bench template: the bench plan has no accounting"
	if [ -e /etc/slurm/slurmdbd.conf ] ||
		[ -e /etc/mysql/mariadb.conf.d/60-provision.cnf ]; then
		return 1
	fi
	prov_skip "no scheduling: in the plan (Slurm accounting is off)"
}

step_apply() {
	prov_fail "bench template: the check failed, and a bench step never changes this machine"
}

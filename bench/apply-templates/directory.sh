# shellcheck shell=sh
# bench/apply-templates/directory.sh: BENCH ONLY (see base.sh).  The bench
# plan has no directory:, so the real step only checks that no earlier
# plan's directory is left (its state and files of provision's own) and
# says skipped: the same reads here.  step_apply must never run.

PROV_RUN_DIR=/run/provision-bench/$NODE_NAME

step_check() {
	[ -z "$SSSD_CONF" ] || prov_fail "bench template: the bench plan has no directory:"
	if [ -e "$PROV_STATE_DIR/directory" ] ||
		[ -e /etc/sssd/conf.d/90-provision-bind.conf ] ||
		[ -e /etc/sssd/provision-ldap-ca.pem ]; then
		return 1
	fi
	prov_skip "no directory: in the plan"
}

step_apply() {
	prov_fail "bench template: the check failed, and a bench step never changes this machine"
}

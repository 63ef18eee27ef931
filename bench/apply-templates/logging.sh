# shellcheck shell=sh
# bench/apply-templates/logging.sh: BENCH ONLY (see base.sh).  The bench
# plan has no logging:, so the real step only checks that no earlier
# plan's forwarding or rotation is left and says skipped: the same reads
# here.  step_apply must never run.

PROV_RUN_DIR=/run/provision-bench/$NODE_NAME

step_check() {
	[ -z "$LOG_SERVER_ADDR" ] || prov_fail "bench template: the bench plan has no logging:"
	if [ -e /etc/rsyslog.d/60-provision.conf ] ||
		[ -e /etc/logrotate.d/provision-remote ]; then
		return 1
	fi
	prov_skip "no logging: in the plan"
}

step_apply() {
	prov_fail "bench template: the check failed, and a bench step never changes this machine"
}

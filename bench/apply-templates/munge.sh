# shellcheck shell=sh
# bench/apply-templates/munge.sh: BENCH ONLY (see base.sh).  The head-first
# step with a secret: the engine fetches /etc/provision/out/munge.key from
# the head after this step and hands it to every other node on stdin.
# bench/apply.sh puts a random bench key there (and removes it after); the
# head checks it is there, each other node checks that the key it was given
# is byte for byte the head's (a read: cmp).  Nothing is installed.

BENCH_KEY_OUT=/etc/provision/out/munge.key

# This machine is every fleet host: each its own run folder (package
# listing), emptied before each timed run by bench/apply.sh.
PROV_RUN_DIR=/run/provision-bench/$NODE_NAME

step_check() {
	[ "$ORCHESTRATOR" = slurm ] || prov_skip "no Slurm in the plan"
	if [ "$NODE_NAME" = "$HEAD_NAME" ]; then
		[ -s "$BENCH_KEY_OUT" ] || prov_why "$BENCH_KEY_OUT is missing"
		return
	fi
	[ -f "${PROV_SECRET_DIR:-/nonexistent}/munge.key" ] ||
		prov_fail "no munge key from the head in PROV_SECRET_DIR"
	cmp -s "$PROV_SECRET_DIR/munge.key" "$BENCH_KEY_OUT" ||
		prov_fail "the key passed by the engine is not the head's"
}

step_apply() {
	prov_fail "bench template: the check failed, and a bench step never changes this machine"
}

# shellcheck shell=sh
# templates/munge.sh: MUNGE, Slurm's authentication.  The head makes the key
# (once) and leaves a copy in /etc/provision/out/munge.key for the engine,
# which hands it to every other node as $PROV_SECRET_DIR/munge.key.  The key
# never appears in output, logs or argv (and is declared secret to the
# engine, which would hide it if a tool printed it).

MUNGE_KEY=/etc/munge/munge.key
MUNGE_OUT=$PROV_OUT_DIR/munge.key

munge_is_head() {
	[ "$NODE_NAME" = "$HEAD_NAME" ]
}

munge_applies() {
	[ "$ORCHESTRATOR" = slurm ] || prov_skip "orchestrator is ${ORCHESTRATOR:-none}, not slurm"
}

# step_packages: the packages this step installs on this node.  Every
# pkg_install of the step takes its names from here; lib/bundle.c bundles
# the same names for the plan (tests/unit/test_bundle.c compares the two).
step_packages() {
	echo munge
}

munge_svc() {
	"$1" -u munge -f "$MUNGE_KEY" munge -- /usr/sbin/munged -F
}

# A credential made here decodes here: munged runs and has a key.
munge_works() {
	munge -n 2>/dev/null | unmunge >/dev/null 2>&1
}

step_check() {
	munge_applies
	# shellcheck disable=SC2046
	pkgs_installed $(step_packages) || return 1
	file_meta_ok "$MUNGE_KEY" 0400 munge:munge || prov_why "$MUNGE_KEY is missing or not 0400 munge:munge" || return 1
	if munge_is_head; then
		[ -f "$MUNGE_OUT" ] && cmp -s "$MUNGE_KEY" "$MUNGE_OUT" && file_meta_ok "$MUNGE_OUT" 0600 root:root ||
			prov_why "$MUNGE_OUT is not a 0600 copy of the key" || return 1
	else
		[ -f "${PROV_SECRET_DIR:-/nonexistent}/munge.key" ] ||
			prov_fail "no munge key from the head in PROV_SECRET_DIR (the engine passes it after the head's munge step)"
		cmp -s "$PROV_SECRET_DIR/munge.key" "$MUNGE_KEY" || prov_why "$MUNGE_KEY is not the head's key" || return 1
	fi
	dir_ok /run/munge 755 munge:munge || return 1
	munge_svc svc_running || return 1
	munge_works || prov_why "munge -n | unmunge fails" || return 1
}

step_apply() {
	# shellcheck disable=SC2046
	pkg_install $(step_packages)
	if munge_is_head; then
		if [ ! -s "$MUNGE_KEY" ]; then
			prov_log "making a new munge key"
			(umask 077 && dd if=/dev/urandom of="$MUNGE_KEY.new" bs=1024 count=1 2>/dev/null)
			mv -f "$MUNGE_KEY.new" "$MUNGE_KEY"
			prov_changed
		fi
		prov_secret_file "$MUNGE_KEY"
	else
		file_copy "$PROV_SECRET_DIR/munge.key" "$MUNGE_KEY" 0400 munge:munge
	fi
	file_meta_ok "$MUNGE_KEY" 0400 munge:munge || {
		chown munge:munge "$MUNGE_KEY"
		chmod 0400 "$MUNGE_KEY"
		prov_changed
	}
	if munge_is_head; then
		dir_put "$PROV_OUT_DIR" 0700 root:root
		file_copy "$MUNGE_KEY" "$MUNGE_OUT" 0600 root:root
	fi
	dir_put /run/munge 0755 munge:munge
	munge_svc svc_start
	prov_wait 10 munge_works || prov_fail "munged does not answer (see /var/log/munge/munged.log)"
}

# shellcheck shell=sh
# templates/directory.sh: the site's LDAP directory on every node, through
# Debian's sssd: users and groups the directory holds resolve (NSS) and
# log in (PAM) as if they were local, with the directory's uid and gid on
# every node, which Slurm needs (it runs a job under the submitter's uid).
#
# SSSD_CONF is /etc/sssd/sssd.conf but the bind password (empty: no
# directory: in the plan); LDAP_CA_PEM the CA that signed the servers'
# certificates (empty: the node's own CAs); LDAP_BIND 1 when the plan
# binds with a DN, whose password the engine puts in
# $PROV_SECRET_DIR/ldap_bind_password (never in argv, logs or a file
# others can read: here it goes into a 0600 drop-in of sssd's own);
# LDAP_VERIFY_USER a user the directory holds (the check asks sssd for
# it); LDAP_MKHOMEDIR 1 when a home is made at the first login
# (pam_mkhomedir), 0 when /home is the plan's shared storage here.
#
# The step runs on every node, directory: in the plan or not: without it,
# what an earlier plan's directory: left goes (sssd stopped, its
# configuration removed, the packages this step installed purged, which
# takes sss out of nsswitch.conf and PAM through Debian's own maintainer
# scripts).  What it installed and switched on is kept in $DIR_STATE.

DIR_CONF=/etc/sssd/sssd.conf
DIR_BIND=/etc/sssd/conf.d/90-provision-bind.conf
DIR_CA=/etc/sssd/provision-ldap-ca.pem
DIR_STATE=$PROV_STATE_DIR/directory
# sssd-common comes with sssd-ldap; named so that its removal is exact
DIR_PKGS_ALL="sssd-ldap sssd-common libnss-sss libpam-sss"

# step_packages: the packages this step installs on this node (lib/bundle.c
# bundles the same names; tests/unit/test_bundle.c compares the two).
step_packages() {
	# without directory: it only removes
	[ -z "$SSSD_CONF" ] || echo sssd-ldap libnss-sss libpam-sss
}

# A line "KEY VALUE" of $DIR_STATE: "pkg NAME" (installed here),
# "mkhomedir" (switched on here).
directory_state_has() {
	[ -f "$DIR_STATE" ] && grep -qx -- "$1" "$DIR_STATE"
}

# What an earlier plan's directory: left.  Only files of provision's own
# count: a site's own sssd (its sssd.conf, a running sssd) is not ours to
# remove.
directory_left() {
	[ -e "$DIR_STATE" ] || [ -e "$DIR_BIND" ] || [ -e "$DIR_CA" ]
}

directory_gone_ok() {
	if directory_left; then
		prov_why "the directory of an earlier plan is still in place ($DIR_STATE)"
		return 1
	fi
	[ "$PROV_PHASE" = recheck ] && return 0
	prov_skip "no directory: in the plan"
}

directory_svc() {
	"$1" -f "$DIR_CONF" -f "$DIR_CA" sssd -- /usr/sbin/sssd -i --logger=stderr
}

# The drop-in with the bind password, on stdout (a command substitution:
# the password stays in this shell's memory and reaches no argv).
directory_bind_conf() {
	_dbc_pw=
	IFS= read -r _dbc_pw <"$PROV_SECRET_DIR/ldap_bind_password" || [ -n "$_dbc_pw" ] ||
		return 1
	printf '# Managed by provision (step directory): the bind password of directory.ldap.\n'
	printf '[domain/ldap]\nldap_default_authtok_type = password\nldap_default_authtok = %s\n' "$_dbc_pw"
	_dbc_pw=
}

directory_have_secret() {
	[ -n "${PROV_SECRET_DIR:-}" ] && [ -f "$PROV_SECRET_DIR/ldap_bind_password" ]
}

directory_bind_ok() {
	if [ "$LDAP_BIND" != 1 ]; then
		[ ! -e "$DIR_BIND" ] || prov_why "$DIR_BIND binds, the plan searches anonymously" || return 1
		return 0
	fi
	# run by hand, without the engine's secret: its place and mode only
	if ! directory_have_secret; then
		file_meta_ok "$DIR_BIND" 600 root:root || prov_why "$DIR_BIND is missing or not 0600 root:root"
		return
	fi
	_dbo=$(directory_bind_conf) || return 1
	file_same "$DIR_BIND" 0600 root:root "$_dbo"
}

# "passwd:" and "group:" of nsswitch.conf name sss.
directory_nss_ok() {
	awk '($1 == "passwd:" || $1 == "group:") { for (i = 2; i <= NF; i++) if ($i == "sss") n++ }
		END { exit n != 2 }' /etc/nsswitch.conf 2>/dev/null ||
		prov_why "/etc/nsswitch.conf does not ask sss for users and groups"
}

directory_pam_ok() {
	grep -q pam_sss.so /etc/pam.d/common-auth 2>/dev/null ||
		prov_why "PAM does not ask sssd (pam-auth-update: sss)" || return 1
	if [ "$LDAP_MKHOMEDIR" = 1 ]; then
		grep -q pam_mkhomedir.so /etc/pam.d/common-session 2>/dev/null ||
			prov_why "PAM does not make homes at first login (pam-auth-update: mkhomedir)" ||
			return 1
	elif directory_state_has mkhomedir; then
		prov_why "homes are made at first login, /home is the plan's shared storage here"
		return 1
	fi
}

# The directory answers for LDAP_VERIFY_USER through sssd alone (not
# /etc/passwd): the directory is reached, the base and bind are right.
directory_answers() {
	[ -n "$LDAP_VERIFY_USER" ] || return 0
	getent -s sss passwd -- "$LDAP_VERIFY_USER" >/dev/null 2>&1 ||
		prov_why "sssd does not answer for user $LDAP_VERIFY_USER (getent -s sss passwd)"
}

step_check() {
	if [ -z "$SSSD_CONF" ]; then
		directory_gone_ok
		return
	fi
	[ "$PROV_OS_FAMILY" = debian ] ||
		prov_fail "directory: is made with Debian's pam-auth-update; this node runs $PROV_OS_ID"
	# shellcheck disable=SC2046
	pkgs_installed $(step_packages) || return 1
	[ -f "$DIR_STATE" ] || prov_why "$DIR_STATE is missing" || return 1
	file_same "$DIR_CONF" 0600 root:root "$SSSD_CONF" || return 1
	if [ -n "$LDAP_CA_PEM" ]; then
		file_same "$DIR_CA" 0644 root:root "$LDAP_CA_PEM" || return 1
	else
		[ ! -e "$DIR_CA" ] || prov_why "$DIR_CA is not the plan's" || return 1
	fi
	directory_bind_ok || return 1
	directory_nss_ok || return 1
	directory_pam_ok || return 1
	directory_svc svc_running || return 1
	if [ "$PROV_PHASE" = recheck ] && [ -n "$LDAP_VERIFY_USER" ]; then
		# sssd goes online a moment after it starts
		prov_wait 30 getent -s sss passwd -- "$LDAP_VERIFY_USER" || true
	fi
	directory_answers
}

# Which of DIR_PKGS_ALL are not installed yet: those this step installs,
# and the removal may purge.
directory_new_pkgs() {
	for _dnp in $DIR_PKGS_ALL; do
		pkg_installed "$_dnp" 2>/dev/null || printf 'pkg %s\n' "$_dnp"
	done
}

directory_nss_put() {
	directory_nss_ok 2>/dev/null && return 0
	_dnp_new=$(awk '($1 == "passwd:" || $1 == "group:" || $1 == "shadow:") {
			for (i = 2; i <= NF; i++) if ($i == "sss") { print; next }
			print $0 " sss"; next
		} { print }' /etc/nsswitch.conf && printf x) || return 1
	file_put /etc/nsswitch.conf 0644 root:root "${_dnp_new%x}"
}

directory_pam_put() {
	if ! grep -q pam_sss.so /etc/pam.d/common-auth 2>/dev/null; then
		DEBIAN_FRONTEND=noninteractive pam-auth-update --enable sss >&2 ||
			prov_fail "pam-auth-update --enable sss failed"
		prov_changed
	fi
	if [ "$LDAP_MKHOMEDIR" = 1 ]; then
		if ! grep -q pam_mkhomedir.so /etc/pam.d/common-session 2>/dev/null; then
			DEBIAN_FRONTEND=noninteractive pam-auth-update --enable mkhomedir >&2 ||
				prov_fail "pam-auth-update --enable mkhomedir failed"
			prov_log "homes are made at first login (pam_mkhomedir)"
			prov_changed
		fi
	elif [ "$_sa_had_mkhome" = 1 ]; then
		DEBIAN_FRONTEND=noninteractive pam-auth-update --disable mkhomedir >&2 ||
			prov_fail "pam-auth-update --disable mkhomedir failed"
		prov_log "homes are no longer made at first login"
		prov_changed
	fi
}

directory_remove() {
	if [ -f "$DIR_STATE" ]; then
		svc_remove sssd || return 1
		file_absent "$DIR_CONF"
	fi
	file_absent "$DIR_BIND"
	file_absent "$DIR_CA"
	if directory_state_has mkhomedir; then
		DEBIAN_FRONTEND=noninteractive pam-auth-update --disable mkhomedir >&2 || true
		prov_changed
	fi
	_dr_pkgs=
	if [ -f "$DIR_STATE" ]; then
		_dr_pkgs=$(awk '$1 == "pkg" && $2 ~ /^[a-z0-9][a-z0-9+.-]*$/ { print $2 }' "$DIR_STATE")
	fi
	_dr_have=
	for _dr in $_dr_pkgs; do
		pkg_installed "$_dr" 2>/dev/null && _dr_have="$_dr_have $_dr"
	done
	# their maintainer scripts take sss out of nsswitch.conf and PAM
	# shellcheck disable=SC2086
	pkg_purge $_dr_have || prov_fail "cannot purge$_dr_have"
	# sssd's cache holds the directory's users, and with
	# cache_credentials their password hashes: purge leaves it.  All of
	# it when sssd-common was this step's, else the domain's alone.
	if [ -f "$DIR_STATE" ] && directory_state_has "pkg sssd-common" &&
		! pkg_installed sssd-common 2>/dev/null; then
		if [ -d /var/lib/sss ]; then
			rm -rf /var/lib/sss
			prov_log "removed /var/lib/sss (sssd's cache)"
			prov_changed
		fi
	else
		file_absent /var/lib/sss/db/cache_ldap.ldb
		file_absent /var/lib/sss/db/timestamps_ldap.ldb
	fi
	file_absent "$DIR_STATE"
}

step_apply() {
	if [ -z "$SSSD_CONF" ]; then
		directory_remove
		return 0
	fi
	if [ "$LDAP_BIND" = 1 ] && ! directory_have_secret; then
		prov_fail "no bind password: the directory step gets it from provision apply"
	fi
	_sa_had_mkhome=0
	if directory_state_has mkhomedir; then
		_sa_had_mkhome=1
	fi
	# what this step installs and switches on, kept before it does
	_sa_state=$({
		if [ -f "$DIR_STATE" ]; then
			grep '^pkg ' "$DIR_STATE" || true
		fi
		directory_new_pkgs
		if [ "$LDAP_MKHOMEDIR" = 1 ] &&
			{ directory_state_has mkhomedir || ! grep -q pam_mkhomedir.so /etc/pam.d/common-session 2>/dev/null; }; then
			echo mkhomedir
		fi
	} | sort -u)
	dir_put "$PROV_STATE_DIR" 0755 root:root
	file_put "$DIR_STATE" 0644 root:root "$_sa_state"
	# shellcheck disable=SC2046
	pkg_install $(step_packages)
	_sa_cfg=0
	file_put "$DIR_CONF" 0600 root:root "$SSSD_CONF"
	[ "$PROV_FILE_CHANGED" = 0 ] || _sa_cfg=1
	if [ -n "$LDAP_CA_PEM" ]; then
		file_put "$DIR_CA" 0644 root:root "$LDAP_CA_PEM"
	else
		file_absent "$DIR_CA"
	fi
	[ "$PROV_FILE_CHANGED" = 0 ] || _sa_cfg=1
	if [ "$LDAP_BIND" = 1 ]; then
		dir_put /etc/sssd/conf.d 0755 root:root
		_sa_bind=$(directory_bind_conf) || prov_fail "cannot read the bind password"
		file_put "$DIR_BIND" 0600 root:root "$_sa_bind"
		_sa_bind=
	else
		file_absent "$DIR_BIND"
	fi
	# the password is in no file the stamp reads: a new one restarts here
	[ "$PROV_FILE_CHANGED" = 0 ] || _sa_cfg=1
	directory_nss_put
	directory_pam_put
	if [ "$_sa_cfg" = 1 ]; then
		# entries cached under the old settings (another base, server or
		# bind) are asked again: the domain's cache goes while sssd is
		# stopped (sss_cache would need sssd-tools)
		svc_stop sssd
		rm -f /var/lib/sss/db/cache_ldap.ldb /var/lib/sss/db/timestamps_ldap.ldb \
			/var/lib/sss/mc/passwd /var/lib/sss/mc/group /var/lib/sss/mc/initgroups
		directory_svc svc_restart
	else
		directory_svc svc_start
	fi
}

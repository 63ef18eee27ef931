# shellcheck shell=sh
# templates/slurmdbd.sh: Slurm accounting on the head (SLURM_ACCOUNTING=1,
# the plan has scheduling:): MariaDB from the distribution, reached through
# its socket alone, and slurmdbd, then the cluster registered, so that
# slurmctld (step slurm, next) starts with accounting.
#
# The database password is made here, once, and lives in two places only:
# MariaDB and slurmdbd.conf (0600, SlurmUser's).  It is never in the plan,
# the output, argv (SQL goes to mysql on stdin, from the shell's printf
# builtin) or another file.  SLURMDBD_CONF is the rest of slurmdbd.conf.
#
# Without scheduling: in the plan the step still runs on the head: what
# an earlier plan's accounting left goes (slurmdbd and MariaDB stopped and
# disabled, slurmdbd.conf and the MariaDB config removed) and slurm.conf
# (step slurm, next) loses its accounting.  The database stays on disk:
# the jobs' history, which a later scheduling: finds again.

DBD_CONF=/etc/slurm/slurmdbd.conf
DBD_DB=slurm_acct_db
DBD_MYCNF_CONTENT="# Managed by provision (step slurmdbd): slurmdbd on this node is the
# only client, through the socket; no TCP port to guard.
[mysqld]
skip-networking
innodb_lock_wait_timeout=900"

slurmdbd_applies() {
	[ "$ORCHESTRATOR" = slurm ] || prov_skip "orchestrator is ${ORCHESTRATOR:-none}, not slurm"
	[ "$SLURM_ROLE" = controller ] || prov_skip "slurmdbd runs on the head"
	[ "$SLURM_ACCOUNTING" = 1 ] || return 0
	[ -n "$SLURMDBD_CONF" ] || prov_fail "SLURMDBD_CONF is empty"
}

# What an earlier plan's accounting left.  MariaDB counts only with the
# config this step wrote: one the admin runs for something else is theirs.
dbd_left() {
	[ -e "$DBD_CONF" ] || [ -e "$(dbd_mycnf)" ]
}

dbd_gone_ok() {
	if dbd_left; then
		prov_why "Slurm accounting from an earlier plan is still in place ($DBD_CONF)"
		return 1
	fi
	[ "$PROV_PHASE" = recheck ] && return 0
	prov_skip "no scheduling: in the plan (Slurm accounting is off)"
}

dbd_remove() {
	svc_remove slurmdbd
	file_absent "$DBD_CONF"
	if [ -e "$(dbd_mycnf)" ]; then
		svc_remove mariadb
		file_absent "$(dbd_mycnf)"
	fi
}

# step_packages: the packages this step installs on this node.  Every
# pkg_install of the step takes its names from here; lib/bundle.c bundles
# the same names for the plan (tests/unit/test_bundle.c compares the two).
# sacctmgr (slurm-client, or slurm on RHEL) registers the cluster.
step_packages() {
	# without scheduling: it only removes
	[ "$SLURM_ACCOUNTING" = 1 ] || return 0
	if [ "$PROV_OS_FAMILY" = rhel ]; then
		echo mariadb-server slurm-slurmdbd slurm
	else
		echo mariadb-server slurmdbd slurm-client
	fi
}

dbd_mycnf() {
	if [ "$PROV_OS_FAMILY" = rhel ]; then
		echo /etc/my.cnf.d/provision.cnf
	else
		echo /etc/mysql/mariadb.conf.d/60-provision.cnf
	fi
}

dbd_mariadbd() {
	for _dm in /usr/sbin/mariadbd /usr/libexec/mariadbd /usr/sbin/mysqld; do
		if [ -x "$_dm" ]; then
			echo "$_dm"
			return 0
		fi
	done
	echo /usr/sbin/mariadbd
}

# The password slurmdbd.conf holds (on stdout, for a variable), or nothing.
dbd_pass() {
	sed -n 's/^StoragePass=//p' "$DBD_CONF" 2>/dev/null | head -n 1
}

# slurmdbd.conf with password $1.
dbd_conf() {
	printf '%s\nStoragePass=%s\n' "$SLURMDBD_CONF" "$1"
}

dbd_sql_up() {
	mysql -N -e 'SELECT 1' >/dev/null 2>&1
}

# sacctmgr before the slurm step has written slurm.conf (slurmctld starts
# only once the cluster is known): the plan's slurm.conf without its nodes
# and partitions, which is what sacctmgr reads, as a scratch file.
dbd_sacctmgr() {
	_ds_conf=$PROV_RUN_DIR/slurmdbd-sacctmgr.conf
	mkdir -p "$PROV_RUN_DIR" || return 1
	printf '%s\n' "$SLURM_CONF" | grep -v -e '^NodeName=' -e '^PartitionName=' >"$_ds_conf" || return 1
	SLURM_CONF=$_ds_conf sacctmgr "$@"
}

dbd_up() {
	dbd_sacctmgr -n -P list cluster format=cluster >/dev/null 2>&1
}

dbd_cluster_known() {
	dbd_sacctmgr -n -P list cluster format=cluster 2>/dev/null | grep -qx "$SLURM_CLUSTER"
}

mariadb_svc() {
	"$1" -f "$(dbd_mycnf)" mariadb -- "$(dbd_mariadbd)" --user=mysql
}

slurmdbd_svc() {
	"$1" -f "$DBD_CONF" slurmdbd -- /usr/sbin/slurmdbd -D
}

step_check() {
	slurmdbd_applies
	if [ "$SLURM_ACCOUNTING" != 1 ]; then
		dbd_gone_ok
		return
	fi
	# shellcheck disable=SC2046
	pkgs_installed $(step_packages) || return 1
	file_same "$(dbd_mycnf)" 0644 root:root "$DBD_MYCNF_CONTENT" || return 1
	mariadb_svc svc_running || return 1
	_sc_pw=$(dbd_pass)
	[ -n "$_sc_pw" ] || prov_why "$DBD_CONF has no StoragePass" || return 1
	file_same "$DBD_CONF" 0600 slurm:slurm "$(dbd_conf "$_sc_pw")" || return 1
	dir_ok /var/log/slurm 755 slurm:slurm || return 1
	slurmdbd_svc svc_running || return 1
	dbd_cluster_known || prov_why "sacctmgr does not list cluster $SLURM_CLUSTER" || return 1
}

step_apply() {
	if [ "$SLURM_ACCOUNTING" != 1 ]; then
		dbd_remove
		return 0
	fi
	# shellcheck disable=SC2046
	pkg_install $(step_packages)
	file_put "$(dbd_mycnf)" 0644 root:root "$DBD_MYCNF_CONTENT"
	dir_put /run/mysqld 0755 mysql:mysql
	if [ ! -d /var/lib/mysql/mysql ]; then
		prov_log "initialising the MariaDB data folder"
		mariadb-install-db --user=mysql --datadir=/var/lib/mysql --skip-test-db >&2 ||
			prov_fail "mariadb-install-db failed"
		prov_changed
	fi
	mariadb_svc svc_start
	prov_wait 60 dbd_sql_up || prov_fail "MariaDB does not answer on its socket (see $PROV_LOG_DIR/mariadb.log)"
	_sa_pw=$(dbd_pass)
	if [ -z "$_sa_pw" ]; then
		prov_log "making the slurmdbd database password"
		_sa_pw=$(head -c 48 /dev/urandom | base64 | tr -dc 'A-Za-z0-9' | cut -c1-32)
		[ ${#_sa_pw} -ge 24 ] || prov_fail "cannot make a password from /dev/urandom"
	fi
	# the password reaches mysql on stdin only (printf is a builtin)
	printf "CREATE DATABASE IF NOT EXISTS %s;
CREATE USER IF NOT EXISTS 'slurm'@'localhost' IDENTIFIED BY '%s';
ALTER USER 'slurm'@'localhost' IDENTIFIED BY '%s';
GRANT ALL ON %s.* TO 'slurm'@'localhost';
" "$DBD_DB" "$_sa_pw" "$_sa_pw" "$DBD_DB" | mysql -N >&2 ||
		prov_fail "cannot make the slurmdbd database and user in MariaDB"
	dir_put /var/log/slurm 0755 slurm:slurm
	file_put "$DBD_CONF" 0600 slurm:slurm "$(dbd_conf "$_sa_pw")"
	slurmdbd_svc svc_start
	prov_wait 60 dbd_up || prov_fail "slurmdbd does not answer sacctmgr (see /var/log/slurm/slurmdbd.log)"
	if ! dbd_cluster_known; then
		dbd_sacctmgr -i add cluster "$SLURM_CLUSTER" >&2 || prov_fail "sacctmgr add cluster $SLURM_CLUSTER failed"
		prov_changed
	fi
}

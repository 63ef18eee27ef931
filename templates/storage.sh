# shellcheck shell=sh
# templates/storage.sh: the plan's NFS exports (storage:), with the
# distribution's NFS server and client.  The node that serves exports
# runs this step first (apply's storage-first wave): it writes
# /etc/exports.d/provision.exports, makes the exported folders, reloads
# the export table (exportfs -ra) when the file changed and keeps the NFS
# server running.  Every node that mounts an export gets a block of
# /etc/fstab: NFS with `_netdev,nofail,x-systemd.automount` and a mount
# timeout, so a node whose server is down still boots (the mount is tried
# on first access, not at boot, and a failed one is no failed boot).
# Under /home, /root and /run/user an automount cannot be used: services
# with ProtectHome= touch those folders when they start, which triggers
# it, and with the server down they fail (chrony: 226/NAMESPACE) and stay
# failed.  There the line is a plain mount (`_netdev,nofail` and the
# timeout): with the server down it fails at boot, the folder stays the
# node's own, and the boot goes on; provision-remount.timer starts such
# mounts again every 30 s, so the node mounts once its server answers.
# The server mounts its own export with a bind mount.  A mount point the plan
# no longer has is unmounted and leaves the block; the mount points this
# step manages are kept in $STORAGE_STATE.
#
# STORAGE_MANAGED (1: the plan has storage:), STORAGE_EXPORTS (the exports
# file, on the server), STORAGE_EXPORT_DIRS, STORAGE_FSTAB (this node's
# lines), STORAGE_MOUNTS (this node's mount points, one a line),
# STORAGE_REMOUNT (those of them the timer mounts again): every field a
# typed plan value (lib/render.c).

STORAGE_EXPORTS_FILE=/etc/exports.d/provision.exports
STORAGE_STATE=$PROV_STATE_DIR/storage
STORAGE_REMOUNT_UNIT=/etc/systemd/system/provision-remount

storage_applies() {
	[ "$STORAGE_MANAGED" = 1 ] || [ -s "$STORAGE_STATE" ] ||
		prov_skip "no storage: in the plan"
	[ "$PROV_SYSTEMD" = 1 ] ||
		prov_fail "NFS mounts need systemd (automount units) and a kernel NFS server; this node runs without systemd"
}

# step_packages: the packages this step installs on this node.  Every
# pkg_install of the step takes its names from here; lib/bundle.c bundles
# the same names for the plan (tests/unit/test_bundle.c compares the two).
step_packages() {
	if [ "$PROV_OS_FAMILY" = rhel ]; then
		if [ -n "$STORAGE_EXPORT_DIRS" ] || storage_nfs_mounts; then
			echo nfs-utils
		fi
	elif [ -n "$STORAGE_EXPORT_DIRS" ]; then
		echo nfs-kernel-server nfs-common
	elif storage_nfs_mounts; then
		echo nfs-common
	fi
}

# Whether this node mounts an export over NFS (not only its own).
storage_nfs_mounts() {
	printf '%s\n' "$STORAGE_FSTAB" | awk '$3 == "nfs" { f = 1 } END { exit !f }'
}

storage_server_svc() {
	echo nfs-server
}

# systemd's unit of mount point PATH with SUFFIX (mount, automount).
storage_unit() {
	systemd-escape -p --suffix="$2" "$1"
}

# The type of the fstab line for mount point PATH: nfs, or none (a bind).
storage_type() {
	printf '%s\n' "$STORAGE_FSTAB" | awk -v m="$1" '$2 == m { print $3 }'
}

# Whether mount point PATH is a plain NFS mount the timer mounts again.
storage_remounted() {
	printf '%s\n' "$STORAGE_REMOUNT" | grep -qxF -- "$1"
}

# The retry service: start each such mount.  A start that fails is the
# mount's own failure (`systemctl --failed` names it), not the service's.
storage_remount_service() {
	[ -n "$STORAGE_REMOUNT" ] || return 0
	cat <<EOF
[Unit]
Description=provision: mount again the NFS folders that ProtectHome= hides, once their server answers
After=network-online.target

[Service]
Type=oneshot
EOF
	while read -r _srs_m; do
		[ -n "$_srs_m" ] || continue
		echo "ExecStart=-/bin/systemctl start $(storage_unit "$_srs_m" mount)"
	done <<EOF
$STORAGE_REMOUNT
EOF
}

storage_remount_timer() {
	[ -n "$STORAGE_REMOUNT" ] || return 0
	cat <<EOF
[Unit]
Description=provision: retry the NFS mounts under /home, /root and /run/user every 30 s

[Timer]
OnBootSec=60
OnUnitActiveSec=30
AccuracySec=5

[Install]
WantedBy=timers.target
EOF
}

# The retry units are the plan's: present, enabled and running when it has
# such mounts, gone when it has none.
storage_remount_ok() {
	if [ -z "$STORAGE_REMOUNT" ]; then
		[ ! -e "$STORAGE_REMOUNT_UNIT.timer" ] ||
			prov_why "$STORAGE_REMOUNT_UNIT.timer is left from an earlier plan"
		return
	fi
	file_same "$STORAGE_REMOUNT_UNIT.service" 0644 root:root "$(storage_remount_service)" || return 1
	file_same "$STORAGE_REMOUNT_UNIT.timer" 0644 root:root "$(storage_remount_timer)" || return 1
	systemctl is-enabled --quiet provision-remount.timer ||
		prov_why "provision-remount.timer is not enabled" || return 1
	systemctl is-active --quiet provision-remount.timer ||
		prov_why "provision-remount.timer is not running"
}

storage_remount_put() {
	if [ -z "$STORAGE_REMOUNT" ]; then
		[ -e "$STORAGE_REMOUNT_UNIT.timer" ] || return 0
		systemctl disable --now provision-remount.timer >&2 ||
			prov_fail "cannot stop provision-remount.timer"
		file_absent "$STORAGE_REMOUNT_UNIT.timer"
		file_absent "$STORAGE_REMOUNT_UNIT.service"
		systemctl daemon-reload >&2 || prov_fail "systemctl daemon-reload failed"
		return 0
	fi
	file_put "$STORAGE_REMOUNT_UNIT.service" 0644 root:root "$(storage_remount_service)" ||
		prov_fail "cannot write $STORAGE_REMOUNT_UNIT.service"
	_srp_changed=$PROV_FILE_CHANGED
	file_put "$STORAGE_REMOUNT_UNIT.timer" 0644 root:root "$(storage_remount_timer)" ||
		prov_fail "cannot write $STORAGE_REMOUNT_UNIT.timer"
	if [ "$PROV_FILE_CHANGED" = 1 ] || [ "$_srp_changed" = 1 ]; then
		systemctl daemon-reload >&2 || prov_fail "systemctl daemon-reload failed"
	fi
	if ! systemctl is-enabled --quiet provision-remount.timer ||
		! systemctl is-active --quiet provision-remount.timer; then
		systemctl enable --now provision-remount.timer >&2 ||
			prov_fail "provision-remount.timer does not start"
		prov_log "started provision-remount.timer"
		prov_changed
	fi
}

# The lines of /etc/fstab's provision block now.
storage_block() {
	[ -f /etc/fstab ] || return 0
	awk -v b="$PROV_BLOCK_BEGIN" -v e="$PROV_BLOCK_END" '
		$0 == b { on = 1; next }
		$0 == e { on = 0; next }
		on { print }' /etc/fstab
}

# storage_line MOUNT LINES: the line of LINES that mounts MOUNT.
storage_line() {
	printf '%s\n' "$2" | awk -v m="$1" '$2 == m'
}

# What $STORAGE_STATE should hold: the plan's mount points of this node.
storage_state_want() {
	printf '%s\n' "$STORAGE_MOUNTS" | awk 'NF' | sort -u
}

# Mount points of an earlier plan that this one no longer has.
storage_gone() {
	[ -f "$STORAGE_STATE" ] || return 0
	_sg_want=$(storage_state_want)
	while read -r _sg_m; do
		[ -n "$_sg_m" ] || continue
		printf '%s\n' "$_sg_want" | grep -qxF -- "$_sg_m" || echo "$_sg_m"
	done <"$STORAGE_STATE"
}

# The mount point is served: NFS by an active automount unit, a bind or
# a mount the timer retries mounted.
storage_mount_ok() {
	if [ "$(storage_type "$1")" = nfs ] && ! storage_remounted "$1"; then
		systemctl is-active --quiet "$(storage_unit "$1" automount)" ||
			prov_why "$1: $(storage_unit "$1" automount) is not active"
	else
		mountpoint -q -- "$1" || prov_why "$1 is not mounted"
	fi
}

storage_server_ok() {
	if [ -z "$STORAGE_EXPORT_DIRS" ]; then
		[ ! -e "$STORAGE_EXPORTS_FILE" ] ||
			prov_why "$STORAGE_EXPORTS_FILE is left from an earlier plan" || return 1
		return 0
	fi
	while read -r _sso_d; do
		[ -n "$_sso_d" ] || continue
		[ -d "$_sso_d" ] || prov_why "no folder $_sso_d to export" || return 1
	done <<EOF
$STORAGE_EXPORT_DIRS
EOF
	if [ -n "$STORAGE_EXPORTS" ]; then
		file_same "$STORAGE_EXPORTS_FILE" 0644 root:root "$STORAGE_EXPORTS" || return 1
	else
		[ ! -e "$STORAGE_EXPORTS_FILE" ] ||
			prov_why "$STORAGE_EXPORTS_FILE exports what the plan does not" || return 1
	fi
	systemctl is-active --quiet "$(storage_server_svc)" ||
		prov_why "$(storage_server_svc) is not running" || return 1
	systemctl is-enabled --quiet "$(storage_server_svc)" ||
		prov_why "$(storage_server_svc) is not enabled" || return 1
	# the kernel's table has every path of the file
	_sso_table=$(exportfs -s 2>/dev/null)
	while read -r _sso_p _sso_rest; do
		[ -n "$_sso_p" ] || continue
		printf '%s\n' "$_sso_table" | awk -v p="$_sso_p" '$1 == p { f = 1 } END { exit !f }' ||
			prov_why "$_sso_p is not in the export table (exportfs -s)" || return 1
	done <<EOF
$STORAGE_EXPORTS
EOF
	return 0
}

step_check() {
	storage_applies
	# shellcheck disable=SC2046
	pkgs_installed $(step_packages) || return 1
	storage_server_ok || return 1
	block_same /etc/fstab "$STORAGE_FSTAB" || return 1
	while read -r _sc_m; do
		[ -n "$_sc_m" ] || continue
		storage_mount_ok "$_sc_m" || return 1
	done <<EOF
$STORAGE_MOUNTS
EOF
	[ -z "$(storage_gone)" ] || prov_why "$(storage_gone | tr '\n' ' ')left the plan but are still managed" || return 1
	storage_remount_ok || return 1
	file_same "$STORAGE_STATE" 0644 root:root "$(storage_state_want)"
}

storage_server_put() {
	if [ -z "$STORAGE_EXPORT_DIRS" ] || [ -z "$STORAGE_EXPORTS" ]; then
		if [ -e "$STORAGE_EXPORTS_FILE" ]; then
			file_absent "$STORAGE_EXPORTS_FILE"
			if command -v exportfs >/dev/null 2>&1; then
				exportfs -ra >&2 || prov_fail "exportfs -ra failed"
			fi
		fi
		[ -n "$STORAGE_EXPORT_DIRS" ] || return 0
	fi
	while read -r _ssp_d; do
		[ -n "$_ssp_d" ] || continue
		# an existing folder keeps its owner: homes are users' business
		[ -d "$_ssp_d" ] || dir_put "$_ssp_d" 0755 root:root ||
			prov_fail "cannot make $_ssp_d"
	done <<EOF
$STORAGE_EXPORT_DIRS
EOF
	[ -n "$STORAGE_EXPORTS" ] || return 0
	dir_put /etc/exports.d 0755 root:root || prov_fail "cannot make /etc/exports.d"
	file_put "$STORAGE_EXPORTS_FILE" 0644 root:root "$STORAGE_EXPORTS"
	_ssp_changed=$PROV_FILE_CHANGED
	if ! systemctl is-enabled --quiet "$(storage_server_svc)" ||
		! systemctl is-active --quiet "$(storage_server_svc)"; then
		if ! systemctl enable "$(storage_server_svc)" >&2 ||
			! systemctl restart "$(storage_server_svc)" >&2; then
			prov_fail "$(storage_server_svc) does not start: $(systemctl status --no-pager "$(storage_server_svc)" 2>&1 | tail -n 5)"
		fi
		prov_log "started $(storage_server_svc)"
		prov_changed
	elif [ "$_ssp_changed" = 1 ] || ! storage_server_ok 2>/dev/null; then
		exportfs -ra >&2 || prov_fail "exportfs -ra refuses $STORAGE_EXPORTS_FILE"
		prov_log "exported: $(exportfs -s | awk '{ print $1 }' | sort -u | tr '\n' ' ')"
		prov_changed
	fi
}

# storage_umount PATH: stop its units and unmount it (a busy mount fails).
storage_umount() {
	systemctl stop "$(storage_unit "$1" automount)" "$(storage_unit "$1" mount)" >&2 2>/dev/null || true
	if mountpoint -q -- "$1"; then
		umount -- "$1" >&2 || prov_fail "cannot unmount $1 (in use?)"
	fi
	prov_changed
}

step_apply() {
	# shellcheck disable=SC2046
	pkg_install $(step_packages) || prov_fail "cannot install $(step_packages)"
	storage_server_put
	# first: the timer must not mount again what leaves the plan below
	storage_remount_put
	for _sa_m in $(storage_gone); do
		prov_log "unmounting $_sa_m: it left the plan"
		storage_umount "$_sa_m"
	done
	while read -r _sa_m; do
		[ -n "$_sa_m" ] || continue
		[ -d "$_sa_m" ] || dir_put "$_sa_m" 0755 root:root ||
			prov_fail "cannot make mount point $_sa_m"
	done <<EOF
$STORAGE_MOUNTS
EOF
	_sa_old=$(storage_block)
	block_put /etc/fstab "$STORAGE_FSTAB"
	if [ "$PROV_FILE_CHANGED" = 1 ]; then
		systemctl daemon-reload >&2 || prov_fail "systemctl daemon-reload failed"
	fi
	while read -r _sa_m; do
		[ -n "$_sa_m" ] || continue
		_sa_same=0
		[ "$(storage_line "$_sa_m" "$_sa_old")" != "$(storage_line "$_sa_m" "$STORAGE_FSTAB")" ] || _sa_same=1
		storage_mount_ok "$_sa_m" 2>/dev/null && [ "$_sa_same" = 1 ] && continue
		# a changed line: remount with its new options
		if [ "$_sa_same" = 0 ] && mountpoint -q -- "$_sa_m"; then
			storage_umount "$_sa_m"
		fi
		if [ "$(storage_type "$_sa_m")" = nfs ] && ! storage_remounted "$_sa_m"; then
			_sa_u=$(storage_unit "$_sa_m" automount)
		else
			_sa_u=$(storage_unit "$_sa_m" mount)
		fi
		systemctl start "$_sa_u" >&2 ||
			prov_fail "$_sa_u does not start: $(systemctl status --no-pager "$_sa_u" 2>&1 | tail -n 5)"
		prov_log "started $_sa_u"
		prov_changed
	done <<EOF
$STORAGE_MOUNTS
EOF
	file_put "$STORAGE_STATE" 0644 root:root "$(storage_state_want)"
}

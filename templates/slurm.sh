# shellcheck shell=sh
# templates/slurm.sh: Slurm from the distribution: slurmctld on the head
# (SLURM_ROLE=controller), slurmd on workers (compute).  slurm.conf,
# gres.conf and cgroup.conf come whole from the plan (SLURM_CONF, GRES_CONF,
# CGROUP_CONF); a daemon restarts when one of them changed.  Needs munge
# (the munge step runs first).

SLURM_DIR=/etc/slurm
# Count-only GPUs (scheduling.gpu_gres): gres.conf names these stand-ins.
# slurmd loads a GPU's File only when it is a character or block device;
# without one the job's prolog, epilog and tasks get no SLURM_JOB_GPUS or
# CUDA_VISIBLE_DEVICES (no job mapping for the DCGM exporter).  So each
# stand-in gpuN is a character device of major 120, minor N: the kernel
# keeps 120 for local use (Documentation/admin-guide/devices.txt) and
# gives it to no driver, dynamic ones included, so it names no real
# device (opening it fails) and a device cgroup that allows or denies it
# touches nothing a job uses.  slurmd only stats the file.
SLURM_STANDIN_DIR=/var/lib/provision/gres
SLURM_STANDIN_MAJOR=120

slurm_applies() {
	[ "$ORCHESTRATOR" = slurm ] || prov_skip "orchestrator is ${ORCHESTRATOR:-none}, not slurm"
	case $SLURM_ROLE in
	controller | compute) ;;
	*) prov_skip "no Slurm daemon on this node (role ${NODE_ROLE:-none})" ;;
	esac
	[ -n "$SLURM_CONF" ] || prov_fail "SLURM_CONF is empty"
}

# step_packages: the packages this step installs on this node.  Every
# pkg_install of the step takes its names from here; lib/bundle.c bundles
# the same names for the plan (tests/unit/test_bundle.c compares the two).
step_packages() {
	if [ "$PROV_OS_FAMILY" = rhel ]; then
		case $SLURM_ROLE in
		controller) echo slurm slurm-slurmctld ;;
		*) echo slurm slurm-slurmd ;;
		esac
	else
		case $SLURM_ROLE in
		controller) echo slurmctld slurm-client ;;
		*) echo slurmd slurm-client ;;
		esac
	fi
}

# slurm_conf_get KEY DEFAULT: a slurm.conf setting (keys are case-blind).
slurm_conf_get() {
	_scg=$(printf '%s\n' "$SLURM_CONF" | awk -v k="$1" '
		{ sub(/#.*/, "") }
		index($0, "=") {
			key = substr($0, 1, index($0, "=") - 1)
			gsub(/[ \t]/, "", key)
			if (tolower(key) == tolower(k)) {
				v = substr($0, index($0, "=") + 1)
				sub(/^[ \t]+/, "", v); sub(/[ \t].*$/, "", v)
				val = v
			}
		}
		END { print val }')
	echo "${_scg:-$2}"
}

slurm_user() {
	slurm_conf_get SlurmUser root
}

# The folders the daemon of this node writes: spool and state, logs, pids.
slurm_dirs() {
	if [ "$SLURM_ROLE" = controller ]; then
		slurm_conf_get StateSaveLocation /var/spool/slurmctld
		dirname -- "$(slurm_conf_get SlurmctldLogFile /var/log/slurm/slurmctld.log)"
		dirname -- "$(slurm_conf_get SlurmctldPidFile /run/slurmctld.pid)"
	else
		slurm_conf_get SlurmdSpoolDir /var/spool/slurmd
		dirname -- "$(slurm_conf_get SlurmdLogFile /var/log/slurm/slurmd.log)"
		dirname -- "$(slurm_conf_get SlurmdPidFile /run/slurmd.pid)"
	fi
}

# Folders the system owns stay as they are.
slurm_dir_mine() {
	case $1 in
	/ | /run | /var/run | /var/log | /var/spool | /var/lib | /tmp | /var/tmp) return 1 ;;
	esac
	return 0
}

slurm_dirs_ok() {
	_sdo_user=$(slurm_user)
	for _sdo_d in $(slurm_dirs); do
		slurm_dir_mine "$_sdo_d" || continue
		dir_ok "$_sdo_d" 755 "$_sdo_user:$(id -gn "$_sdo_user" 2>/dev/null)" || return 1
	done
	return 0
}

slurm_dirs_put() {
	_sdp_user=$(slurm_user)
	for _sdp_d in $(slurm_dirs); do
		slurm_dir_mine "$_sdp_d" || continue
		dir_put "$_sdp_d" 0755 "$_sdp_user:$(id -gn "$_sdp_user")" || return 1
	done
	return 0
}

# The config files of the plan: name and content ("" = not managed).
slurm_files_ok() {
	file_same "$SLURM_DIR/slurm.conf" 0644 root:root "$SLURM_CONF" || return 1
	if [ -n "$GRES_CONF" ]; then
		file_same "$SLURM_DIR/gres.conf" 0644 root:root "$GRES_CONF" || return 1
	fi
	if [ -n "$CGROUP_CONF" ]; then
		file_same "$SLURM_DIR/cgroup.conf" 0644 root:root "$CGROUP_CONF" || return 1
	fi
	return 0
}

slurm_files_put() {
	file_put "$SLURM_DIR/slurm.conf" 0644 root:root "$SLURM_CONF" || return 1
	if [ -n "$GRES_CONF" ]; then
		file_put "$SLURM_DIR/gres.conf" 0644 root:root "$GRES_CONF" || return 1
	fi
	if [ -n "$CGROUP_CONF" ]; then
		file_put "$SLURM_DIR/cgroup.conf" 0644 root:root "$CGROUP_CONF" || return 1
	fi
	return 0
}

# What stat says of the stand-in of GPU $1 (major and minor in hex).
slurm_standin_meta() {
	printf 'character special file %x:%x 600 root:root' "$SLURM_STANDIN_MAJOR" "$1"
}

slurm_standin_ok() {
	[ "$(stat -c '%F %t:%T %a %U:%G' -- "$SLURM_STANDIN_DIR/gpu$1" 2>/dev/null)" = "$(slurm_standin_meta "$1")" ] ||
		prov_why "$SLURM_STANDIN_DIR/gpu$1 is not the stand-in of count-only GPU $1 (character device $SLURM_STANDIN_MAJOR:$1, 0600 root)"
}

# The stand-ins of SLURM_GPU_STANDINS count-only GPUs: gpu0, gpu1...
slurm_standins_ok() {
	_sso_i=0
	while [ "$_sso_i" -lt "${SLURM_GPU_STANDINS:-0}" ]; do
		slurm_standin_ok "$_sso_i" || return 1
		_sso_i=$((_sso_i + 1))
	done
}

# Sets SLURM_STANDINS_CHANGED to 1 when it made one: slurmd reads them
# when it starts, so a running one must restart (a plain file left by an
# older provision becomes a device).  mknod beside it, then rename: the
# name is never missing.
slurm_standins_put() {
	SLURM_STANDINS_CHANGED=0
	slurm_standins_ok && return 0
	dir_put "$SLURM_STANDIN_DIR" 0755 root:root || return 1
	_ssp_i=0
	while [ "$_ssp_i" -lt "$SLURM_GPU_STANDINS" ]; do
		if ! slurm_standin_ok "$_ssp_i"; then
			_ssp_f=$SLURM_STANDIN_DIR/gpu$_ssp_i
			_ssp_tmp=$SLURM_STANDIN_DIR/.gpu$_ssp_i.provision
			rm -f -- "$_ssp_tmp"
			if ! mknod -m 0600 -- "$_ssp_tmp" c "$SLURM_STANDIN_MAJOR" "$_ssp_i" ||
				! chown root:root "$_ssp_tmp" || ! mv -f -- "$_ssp_tmp" "$_ssp_f"; then
				rm -f -- "$_ssp_tmp"
				prov_log "cannot make $_ssp_f (character device $SLURM_STANDIN_MAJOR:$_ssp_i): count-only GPUs need mknod"
				return 1
			fi
			prov_log "made $_ssp_f (character device $SLURM_STANDIN_MAJOR:$_ssp_i)"
			prov_changed
			SLURM_STANDINS_CHANGED=1
		fi
		_ssp_i=$((_ssp_i + 1))
	done
}

# GPU -> job files for the DCGM exporter's hpc_job label: slurm.conf names
# these as Prolog and Epilog when the plan has the exporter (lib/render.c);
# slurmd runs them as root on the compute nodes.  The folder is a tmpfs
# one, made now and at boot (systemd-tmpfiles).
SLURM_JOBMAP_PROLOG=$SLURM_DIR/prolog-dcgm-job-map
SLURM_JOBMAP_EPILOG=$SLURM_DIR/epilog-dcgm-job-map
SLURM_JOBMAP_TMPFILES=/etc/tmpfiles.d/provision-dcgm-job-map.conf

# This node's slurmd runs our prolog: slurm.conf names it.
slurm_jobmap_wanted() {
	[ "$SLURM_ROLE" = compute ] &&
		[ "$(slurm_conf_get Prolog '')" = "$SLURM_JOBMAP_PROLOG" ]
}

# The prolog and epilog (one script: what it does depends on its name).
# Slurm gives the job's GPU indices on this node in SLURM_JOB_GPUS ("0,2").
# A failing prolog or epilog drains the node and requeues the job: a
# mapping that cannot be written is not worth that, so it always exits 0
# and says why to syslog.
slurm_jobmap_script() {
	echo '#!/bin/sh'
	echo '# Managed by provision (step slurm): Slurm Prolog/Epilog.'
	echo "dir=$DCGM_JOB_MAP_DIR"
	cat <<'EOF'
# The DCGM exporter (DCGM_HPC_JOB_MAPPING_DIR=$dir) labels a GPU's metrics
# hpc_job=ID from the file $dir/INDEX, one job id a line.  The prolog adds
# its job's id to the file of each of the job's GPUs; the epilog removes
# that id alone: jobs sharing a GPU (shards) keep theirs.  A file is
# replaced whole (rename), never seen half written, and removed once it
# lists no job (the exporter would drop an empty file's GPU).
PATH=/usr/sbin:/usr/bin:/sbin:/bin
export PATH

warn() {
	logger -t dcgm-job-map -p daemon.warning -- "job ${SLURM_JOB_ID:-?}: $*" 2>/dev/null || true
}

case ${0##*/} in
prolog-*) add=1 ;;
epilog-*) add=0 ;;
*) warn "run as $0, neither prolog-* nor epilog-*"; exit 0 ;;
esac
job=${SLURM_JOB_ID:-}
case $job in
'' | *[!0-9]*) warn "no job id in SLURM_JOB_ID"; exit 0 ;;
esac
# no GPUs on this node: nothing to map
[ -n "${SLURM_JOB_GPUS:-}" ] || exit 0
[ -d "$dir" ] || { warn "no folder $dir"; exit 0; }

# "0,2-3" -> 0 2 3
gpus=
for g in $(echo "$SLURM_JOB_GPUS" | tr ',' ' '); do
	case $g in
	*[!0-9-]* | -* | *-) warn "GPU index '$g' in SLURM_JOB_GPUS"; continue ;;
	*-*) gpus="$gpus $(seq "${g%-*}" "${g#*-}" | tr '\n' ' ')" ;;
	*) gpus="$gpus $g" ;;
	esac
done

# Jobs sharing a GPU start and end at once: one writer at a time.
exec 9>"$dir.lock" || { warn "cannot open $dir.lock"; exit 0; }
flock -w 60 9 || { warn "no lock on $dir.lock in 60 s"; exit 0; }
for g in $gpus; do
	f=$dir/$g
	tmp=$dir.$g.$$
	{
		if [ -f "$f" ]; then
			grep -vx -- "$job" "$f"
		fi
		if [ "$add" = 1 ]; then
			echo "$job"
		fi
	} >"$tmp"
	if [ -s "$tmp" ]; then
		if ! chmod 0644 "$tmp" || ! mv -f -- "$tmp" "$f"; then
			warn "cannot write $f"
		fi
	else
		rm -f -- "$tmp" "$f" || warn "cannot remove $f"
	fi
	rm -f -- "$tmp"
done
exit 0
EOF
}

slurm_jobmap_tmpfiles() {
	echo '# Managed by provision (step slurm): the DCGM exporter'"'"'s job mapping.'
	echo "d $DCGM_JOB_MAP_DIR 0755 root root -"
}

slurm_jobmap_ok() {
	if slurm_jobmap_wanted; then
		file_same "$SLURM_JOBMAP_PROLOG" 0755 root:root "$(slurm_jobmap_script)" || return 1
		file_same "$SLURM_JOBMAP_EPILOG" 0755 root:root "$(slurm_jobmap_script)" || return 1
		file_same "$SLURM_JOBMAP_TMPFILES" 0644 root:root "$(slurm_jobmap_tmpfiles)" || return 1
		dir_ok "$DCGM_JOB_MAP_DIR" 755 root:root || return 1
		return 0
	fi
	for _sjo in "$SLURM_JOBMAP_PROLOG" "$SLURM_JOBMAP_EPILOG" \
		"$SLURM_JOBMAP_TMPFILES" "$DCGM_JOB_MAP_DIR" "$DCGM_JOB_MAP_DIR.lock"; do
		if [ -e "$_sjo" ] || [ -L "$_sjo" ]; then
			prov_why "$_sjo is left from the DCGM exporter's job mapping" || return 1
		fi
	done
	return 0
}

slurm_jobmap_put() {
	file_put "$SLURM_JOBMAP_PROLOG" 0755 root:root "$(slurm_jobmap_script)" || return 1
	file_put "$SLURM_JOBMAP_EPILOG" 0755 root:root "$(slurm_jobmap_script)" || return 1
	file_put "$SLURM_JOBMAP_TMPFILES" 0644 root:root "$(slurm_jobmap_tmpfiles)" || return 1
	dir_put "$DCGM_JOB_MAP_DIR" 0755 root:root
}

# After slurmd restarted without them: a slurmd still naming the prolog
# would drain the node on a job that finds it missing.
slurm_jobmap_remove() {
	file_absent "$SLURM_JOBMAP_PROLOG" || return 1
	file_absent "$SLURM_JOBMAP_EPILOG" || return 1
	file_absent "$SLURM_JOBMAP_TMPFILES" || return 1
	file_absent "$DCGM_JOB_MAP_DIR.lock" || return 1
	if [ -d "$DCGM_JOB_MAP_DIR" ]; then
		rm -rf -- "$DCGM_JOB_MAP_DIR" || return 1
		prov_log "removed $DCGM_JOB_MAP_DIR"
		prov_changed
	fi
}

# systemd runs the distribution's unit, which reads its options here.
slurm_default_file() {
	if [ "$PROV_OS_FAMILY" = rhel ]; then
		echo "/etc/sysconfig/$1"
	else
		echo "/etc/default/$1"
	fi
}

slurmd_default() {
	echo "# Managed by provision (step slurm)."
	echo "SLURMD_OPTIONS=\"-N $NODE_NAME\""
}

# svc_start/svc_running for this node's daemon; the stamp covers the
# config files, so a changed file restarts it.
slurm_svc() {
	set -- "$1" -f "$SLURM_DIR/slurm.conf"
	if [ -n "$GRES_CONF" ]; then
		set -- "$@" -f "$SLURM_DIR/gres.conf"
	fi
	if [ -n "$CGROUP_CONF" ]; then
		set -- "$@" -f "$SLURM_DIR/cgroup.conf"
	fi
	if [ "$SLURM_ROLE" = controller ]; then
		"$@" slurmctld -- /usr/sbin/slurmctld -D
	else
		"$@" -f "$(slurm_default_file slurmd)" slurmd -- /usr/sbin/slurmd -D -N "$NODE_NAME"
	fi
}

slurmctld_up() {
	scontrol ping 2>/dev/null | grep -q 'is UP'
}

# The controller knows this node and it is not down: "State=IDLE",
# "ALLOCATED", "MIXED", with flags such as +DRAIN (an admin's) allowed.
slurmd_registered() {
	_sr_state=$(scontrol -o show node "$NODE_NAME" 2>/dev/null | tr ' ' '\n' | sed -n 's/^State=//p')
	case $_sr_state in
	'') prov_why "the controller does not answer for node $NODE_NAME"; return 1 ;;
	DOWN* | *NOT_RESPONDING* | *INVAL* | UNKNOWN* | FUTURE*)
		prov_why "node $NODE_NAME is $_sr_state: $(scontrol -o show node "$NODE_NAME" | sed -n 's/.*Reason=\(.*\)/\1/p')"
		return 1
		;;
	*DRAIN*)
		prov_log "note: node $NODE_NAME is $_sr_state (drained on purpose?)"
		;;
	esac
	return 0
}

step_check() {
	slurm_applies
	# shellcheck disable=SC2046
	pkgs_installed $(step_packages) || return 1
	slurm_files_ok || return 1
	slurm_standins_ok || return 1
	slurm_jobmap_ok || return 1
	slurm_dirs_ok || return 1
	if [ "$SLURM_ROLE" = controller ]; then
		slurm_svc svc_running || return 1
		slurmctld_up || prov_why "scontrol ping: the controller is not UP" || return 1
	else
		file_same "$(slurm_default_file slurmd)" 0644 root:root "$(slurmd_default)" || return 1
		slurm_svc svc_running || return 1
		slurmd_registered || return 1
	fi
}

step_apply() {
	if [ "$PROV_OS_FAMILY" = rhel ]; then
		rhel_epel
	fi
	# shellcheck disable=SC2046
	pkg_install $(step_packages)
	slurm_files_put
	slurm_standins_put
	slurm_dirs_put
	if slurm_jobmap_wanted; then
		slurm_jobmap_put
	fi
	if [ "$SLURM_ROLE" = controller ]; then
		slurm_svc svc_start
		prov_wait 30 slurmctld_up ||
			prov_fail "slurmctld does not answer scontrol ping (see $(slurm_conf_get SlurmctldLogFile /var/log/slurm/slurmctld.log))"
	else
		file_put "$(slurm_default_file slurmd)" 0644 root:root "$(slurmd_default)"
		if [ "$SLURM_STANDINS_CHANGED" = 1 ]; then
			slurm_svc svc_restart
		else
			slurm_svc svc_start
		fi
		if ! prov_wait 30 slurmd_registered; then
			_sa_state=$(scontrol -o show node "$NODE_NAME" 2>/dev/null | tr ' ' '\n' | sed -n 's/^State=//p')
			case $_sa_state in
			DOWN*)
				# down from an earlier life of this node: slurmd runs now
				prov_log "node $NODE_NAME is $_sa_state; resuming it"
				scontrol update NodeName="$NODE_NAME" State=RESUME
				prov_wait 15 slurmd_registered || true
				;;
			esac
		fi
	fi
	if ! slurm_jobmap_wanted; then
		slurm_jobmap_remove
	fi
}

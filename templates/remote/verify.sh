# shellcheck shell=sh disable=SC2154,SC2016
# templates/remote/verify.sh: what `provision verify` runs on a node, in
# one SSH round trip: the node's clock first (read as close to the
# connection as can be), the facts script, then verify's own sections in
# the facts framing ("@@facts v-NAME", the text, "@@rc N").
#
# verify_script() (lib/verify-script.c) puts in front of it what it needs
# to know of the plan, every value shell-quoted (SC2154 above: they are
# set there, not here; SC2016: the single-quoted scripts run elsewhere):
#
#	V_PORT		the nodes' SSH port (reach falls back to TCP on it)
#	V_GPUS		1 when the plan gives this node GPUs
#	V_RUNTIME	container runtime: none, containerd, docker, apptainer
#	V_TOOLKIT	1 when the NVIDIA container toolkit should see GPUs
#	V_SLURM, V_K8S	1 on the head when the plan runs Slurm, Kubernetes
#	V_NCCL		1 for nccl-tests (the head, --burn-in)
#	V_DCGM		1 for dcgmi diag (--burn-in on a GPU node)
#	V_GEMM		1 for dcgmproftester's GEMM (the same)
#	VGT		seconds each dcgmproftester test runs
#	v_gemm_tests	calls vg PREC FIELD ARGS... per GEMM test
#	V_USERS		the plan's user names (their ids here)
#	V_DIR		1 when the plan has a directory (sssd)
#	V_DIRUSER	a user of the directory, asked of sssd alone
#	V_ACCT		1 on the head with Slurm accounting (sacctmgr)
#	V_LOGS		1 on the log server (the others' log files)
#	V_MOUNTS	"MOUNT rw|ro" a line: the exports this node mounts
#	V_WUSER		who writes on them: a plan user in its own folder
#			there, else the mount point's owner
#	VJT		seconds a Slurm test job may take
#	v_names		prints every planned node name, one a line
#	v_others	the same without this node
#	v_daemons	calls vd LABEL ERE for each daemon the plan puts here
#	v_srun_all	calls v_srun PARTITION HOSTLIST COUNT NAME... per
#			partition (head, Slurm)
#	v_nccl		calls v_nccl_srun, v_nccl_mpirun or v_nccl_none
#
# The facts script is spliced in at the line "#@facts@" below.

echo '@@facts v-clock'; date +%s.%N; echo "@@rc $?"
#@facts@

vs() { echo "@@facts v-$1"; }
vr() { echo "@@rc $?"; }

# vd LABEL ERE: whether a process whose first word matches ERE runs.
vd() {
	if ! command -v pgrep >/dev/null 2>&1; then
		echo "$1 unknown -"; return
	fi
	p=$(pgrep -f "^([^ ]*/)?($2)( |\$)" | head -n 1)
	if [ -n "$p" ]; then echo "$1 running $p"
	else echo "$1 stopped -"; fi
}

# vjob PARTITION NODES COUNT: a Slurm test job, one task a node.
vjob() {
	vj_o=$(timeout "$VJT" srun ${1:+-p "$1"} -N "$3" -n "$3" \
	    --ntasks-per-node=1 -w "$2" -t 2 --immediate=30 \
	    -J provision-verify sh -c 'echo "verify-ok $SLURMD_NODENAME"' \
	    </dev/null 2>&1)
	vj_rc=$?
	printf '%s\t%s\t%s\t%s\n' "$1" "$2" "$vj_rc" \
	    "$(printf '%s' "$vj_o" | tr '\t\n' '  ' | cut -c1-1500)"
	return $vj_rc
}

# vfree PARTITION NODE: wait (30 s at most) while NODE completes a job.
# A job across nodes of which one is dead holds the live ones in
# "completing" a while after it fails, and Slurm may leave a job queued
# for them until its next backfill pass (30 s): longer than --immediate.
# So each node's own job waits for its node to be free; one still
# completing then (its slurmd gone) fails without a job.
vfree() {
	vf=0
	while [ $vf -lt 60 ]; do
		case $($T sinfo -h -n "$2" -o %t </dev/null 2>/dev/null) in
		comp*) sleep 0.5; vf=$((vf + 1)) ;;
		*) return 0 ;;
		esac
	done
	printf '%s\t%s\t1\t%s\n' "$1" "$2" 'still completing an earlier job 30 s later (Slurm state comp): is its slurmd running?'
	return 1
}

# v_srun PARTITION HOSTLIST COUNT NAME...: one job across the partition;
# when it fails, one job a node, 16 at a time, to name those that cannot.
v_srun() {
	vp=$1 vl=$2 vn=$3
	shift 3
	vjob "$vp" "$vl" "$vn" && return 0
	vk=0
	for h in "$@"; do
		{ vfree "$vp" "$h" && vjob "$vp" "$h" 1; } &
		vk=$((vk + 1))
		if [ $vk -ge 16 ]; then wait; vk=0; fi
	done
	wait
}

# all_reduce_perf (nccl-tests) on the GPU nodes: B is its path.
v_nccl_find() {
	B=$(command -v all_reduce_perf 2>/dev/null)
	for f in /usr/local/bin/all_reduce_perf \
	    /opt/nccl-tests/build/all_reduce_perf \
	    /usr/local/nccl-tests/build/all_reduce_perf; do
		[ -n "$B" ] || { [ -x "$f" ] && B=$f; }
	done
	[ -n "$B" ] && return 0
	echo 'all_reduce_perf (nccl-tests) not found'; echo '@@rc 127'
	return 1
}

# v_nccl_srun NODES GPUS HOSTLIST: through Slurm.
v_nccl_srun() {
	v_nccl_find || return 0
	timeout 1800 srun -N "$1" --ntasks-per-node="$2" --gpus-per-node="$2" \
	    -w "$3" -t 30 -J provision-verify-nccl "$B" -b 8 -e 1G -f 2 -g 1 \
	    </dev/null 2>&1; vr
}

# v_nccl_mpirun RANKS HOSTS: through mpirun (HOSTS: node:slots,...).
v_nccl_mpirun() {
	v_nccl_find || return 0
	if ! command -v mpirun >/dev/null 2>&1; then
		echo 'no srun or mpirun to start it on the nodes'
		echo '@@rc 127'
		return 0
	fi
	timeout 1800 mpirun --allow-run-as-root -np "$1" -H "$2" "$B" -b 8 \
	    -e 1G -f 2 -g 1 </dev/null 2>&1; vr
}

v_nccl_none() {
	echo 'no GPU node to run it on'; echo '@@rc 125'
}

# dcgmproftester (NVIDIA DCGM): a cuBLAS GEMM on every GPU at once, each
# worker printing its gflops; VG is the newest one installed.
vg_find() {
	VG=''
	for v in 13 12 11; do
		if command -v "dcgmproftester$v" >/dev/null 2>&1; then
			VG=dcgmproftester$v; return 0
		fi
	done
	return 1
}

# vg PREC FIELD ARGS...: one test, in section gemm-PREC.
vg() {
	vs "gemm-$1"
	if [ -z "$VG" ]; then
		echo 'dcgmproftester not installed (NVIDIA DCGM, datacenter-gpu-manager)'
		echo '@@rc 127'; return 0
	fi
	vg_f=$2; shift 2
	timeout $((VGT + 120)) "$VG" --no-dcgm-validation -t "$vg_f" \
	    -d "$VGT" "$@" </dev/null 2>&1; vr
}

vs ip; ip -o addr show </dev/null 2>&1; vr
vs links
for n in /sys/class/net/*; do
	[ -e "$n/mtu" ] || continue
	sp='' mt='' st=''
	read -r mt < "$n/mtu"; read -r sp 2>/dev/null < "$n/speed"
	read -r st 2>/dev/null < "$n/operstate"
	printf '%s\t%s\t%s\t%s\n' "${n##*/}" "$sp" "$mt" "$st"
done

# every planned name resolves; every other node answers
vs getent
v_names | while read -r h; do
	a=$(getent ahostsv4 "$h" 2>/dev/null | head -n 1)
	[ -n "$a" ] || a=$(getent hosts "$h" 2>/dev/null | head -n 1)
	printf '%s\t%s\n' "$h" "${a%% *}"
done
vs reach
# xargs adds the node after the port: $1 the port, $2 the node
v_others | xargs -r -n 1 -P 32 sh -c '
if command -v ping >/dev/null 2>&1; then
	if ping -c1 -W1 "$2" >/dev/null 2>&1; then echo "$2 ok icmp"
	else echo "$2 fail icmp"; fi
elif command -v bash >/dev/null 2>&1; then
	if timeout 3 bash -c "exec 3<>/dev/tcp/\$1/$1" _ "$2" 2>/dev/null
	then echo "$2 ok tcp/$1"
	else echo "$2 fail tcp/$1"; fi
else echo "$2 skip none"; fi' _ "$V_PORT"

vs time
if command -v chronyc >/dev/null 2>&1; then echo chrony
	$T chronyc -n tracking </dev/null 2>&1
elif command -v timedatectl >/dev/null 2>&1; then echo timedatectl
	timedatectl show </dev/null 2>&1 || timedatectl status </dev/null 2>&1
else echo none; false; fi
vr

vs daemons
v_daemons

# GPUs: health from nvidia-smi, the driver module, XIDs in the kernel log
if [ "$V_GPUS" = 1 ] || command -v nvidia-smi >/dev/null 2>&1; then
	if command -v nvidia-smi >/dev/null 2>&1; then
		# nv (facts.sh): a warning on stderr would break the XML
		nv v-nvsmi-xml -q -x
	fi
	vs nvidia-module; cat /proc/driver/nvidia/version 2>&1; vr
	vs xid
	if dmesg >/dev/null 2>&1; then echo 'log dmesg'
		dmesg 2>/dev/null | grep -i 'NVRM: Xid'
	elif command -v journalctl >/dev/null 2>&1 &&
	    journalctl -k -q -n 1 >/dev/null 2>&1; then echo 'log journal'
		journalctl -k -b -q --no-pager 2>/dev/null | grep -i 'NVRM: Xid'
	else echo 'log none'; fi
	echo '@@rc 0'
fi

if [ "$V_RUNTIME" != none ]; then
	vs runtime
	case $V_RUNTIME in
	containerd) $T ctr version </dev/null 2>&1; vr ;;
	docker) $T docker info --format '{{.ServerVersion}}' </dev/null 2>&1
		vr ;;
	*)	if command -v apptainer >/dev/null 2>&1; then
			apptainer --version 2>&1
		else singularity --version 2>&1; fi </dev/null
		vr ;;
	esac
	if [ "$V_TOOLKIT" = 1 ]; then
		vs runtime-gpus
		if command -v nvidia-container-cli >/dev/null 2>&1; then
			$T nvidia-container-cli info </dev/null 2>&1; vr
		else echo 'nvidia-container-cli not found'; echo '@@rc 127'; fi
	fi
fi

if [ "$V_SLURM" = 1 ]; then
	vs slurm-ping; $T scontrol ping </dev/null 2>&1; vr
	vs sinfo; $T sinfo -h -N -o '%N %t %G' </dev/null 2>&1; vr
	vs scontrol; $T scontrol -o show node </dev/null 2>&1; vr
	vs srun
	v_srun_all
	echo '@@rc 0'
fi
if [ -n "$V_USERS" ]; then
	vs users
	for u in $V_USERS; do
		getent passwd "$u" | cut -d: -f1,3,4
	done
	echo '@@rc 0'
fi
# "sssd running PID|stopped -", then "user NAME:UID:GID" as sssd alone
# answers (getent -s sss: not /etc/passwd), or "user -".
if [ "$V_DIR" = 1 ]; then
	vs directory
	vd sssd sssd
	if [ -n "$V_DIRUSER" ]; then
		vdu=$(timeout 20 getent -s sss passwd -- "$V_DIRUSER" 2>/dev/null | cut -d: -f1,3,4)
		echo "user ${vdu:--}"
	fi
	echo '@@rc 0'
fi
# vmount MOUNT rw|ro: "MOUNT FSTYPE WHO RESULT [WHY]": the mount point
# touched (an automount mounts then; a dead server is a timeout, not a
# hang), then a file written, read back and removed as V_WUSER in its own
# folder there, or where it has none as the mount point's owner (root, or
# slurm in Slurm's state: who must write there), or for a read-only
# export a listing.
vmount() {
	# the mount point by name: `set --` below takes $1 for the command
	vm_p=$1
	if ! timeout -s KILL 20 ls -- "$vm_p" >/dev/null 2>&1; then
		echo "$vm_p - $V_WUSER unreachable"; return
	fi
	vm_t=$(findmnt -n -o FSTYPE --target "$vm_p" 2>/dev/null | tail -n 1)
	vm_d=$vm_p
	vm_u=$V_WUSER
	if [ "$V_WUSER" != root ] && [ -d "$vm_p/$V_WUSER" ]; then
		vm_d=$vm_p/$V_WUSER
	else
		vm_u=$(timeout -s KILL 20 stat -c %U -- "$vm_p" 2>/dev/null)
		[ -n "$vm_u" ] && [ "$vm_u" != UNKNOWN ] || vm_u=root
	fi
	if [ "$2" = ro ]; then echo "$vm_p ${vm_t:--} $vm_u read"; return; fi
	vm_f=$vm_d/.provision-verify.$(hostname).$$
	if [ "$vm_u" = root ]; then set --
	else set -- setpriv --reuid="$vm_u" --regid="$(id -g "$vm_u")" --init-groups --; fi
	if vm_e=$(timeout -s KILL 20 "$@" sh -c 'echo verify >"$1" && [ "$(cat "$1")" = verify ] && rm -f "$1"' sh "$vm_f" 2>&1); then
		echo "$vm_p ${vm_t:--} $vm_u wrote $vm_d"
	else
		echo "$vm_p ${vm_t:--} $vm_u cannot-write $(printf '%s' "$vm_e" | tr '\n' ' ' | cut -c1-200)"
	fi
}
if [ -n "$V_MOUNTS" ]; then
	vs storage
	printf '%s\n' "$V_MOUNTS" | while read -r vm_m vm_ro; do
		[ -n "$vm_m" ] || continue
		vmount "$vm_m" "$vm_ro"
	done
	echo '@@rc 0'
fi
if [ "$V_ACCT" = 1 ]; then
	vs sacctmgr
	$T sacctmgr -n -P show assoc format=account,user,fairshare,grptres </dev/null 2>&1; vr
fi
if [ "$V_LOGS" = 1 ]; then
	vs logs
	now=$(date +%s)
	v_others | while read -r h; do
		f=/var/log/remote/$h/messages.log
		if [ -f "$f" ]; then echo "$h $((now - $(stat -c %Y "$f")))"
		else echo "$h -"; fi
	done
	echo '@@rc 0'
fi
if [ "$V_K8S" = 1 ]; then
	vs k8s
	if command -v kubectl >/dev/null 2>&1; then
		if [ -r /etc/kubernetes/admin.conf ]; then
			$T kubectl --kubeconfig /etc/kubernetes/admin.conf \
			    get nodes -o json </dev/null 2>&1
		else $T kubectl get nodes -o json </dev/null 2>&1; fi
		vr
	else echo 'kubectl not found'; echo '@@rc 127'; fi
fi
if [ "$V_NCCL" = 1 ]; then
	vs nccl
	v_nccl
fi
if [ "$V_DCGM" = 1 ]; then
	vs dcgmi
	if command -v dcgmi >/dev/null 2>&1; then
		timeout 1800 dcgmi diag -r 2 </dev/null 2>&1; vr
	else echo 'dcgmi (DCGM) not found'; echo '@@rc 127'; fi
fi
# after dcgmi diag, never beside it: both load every GPU
if [ "$V_GEMM" = 1 ]; then
	vg_find
	vs gemm-tool
	if [ -n "$VG" ]; then
		echo "$VG"
		{ dpkg-query -W -f '${db:Status-Abbrev} ${Package} ${Version}\n' \
		    'datacenter-gpu-manager*' 2>/dev/null | sed -n 's/^ii *//p'
		  rpm -q --qf '%{NAME} %{VERSION}\n' datacenter-gpu-manager \
		    2>/dev/null | grep -v 'not installed'; } | head -n 1
		echo '@@rc 0'
	else echo 'not installed'; echo '@@rc 127'; fi
	v_gemm_tests
fi
vs end
echo '@@rc 0'

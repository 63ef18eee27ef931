# shellcheck shell=sh
# templates/base.sh: host name, /etc/hosts for the whole cluster, time sync
# (chrony), memlock for RDMA and kernel settings for GPU/RDMA clusters.
#
# Nodes without systemd (the testbed, containers) share the host's clock and
# kernel: chronyd runs there with -x (never touches the clock) and the
# sysctl file is written but not applied.

BASE_LIMITS=/etc/security/limits.d/90-provision-memlock.conf
BASE_SYSCTL=/etc/sysctl.d/90-provision-gpu.conf
BASE_SD_MEMLOCK=/etc/systemd/system.conf.d/90-provision-memlock.conf
BASE_GRUB=/etc/default/grub.d/90-provision.cfg
BASE_GRUB_CFG=/boot/grub/grub.cfg

base_limits() {
	cat <<'EOF'
# Managed by provision (step base).  RDMA (InfiniBand, RoCE, GPUDirect)
# registers pinned memory: jobs need an unlimited memlock limit.
*	soft	memlock	unlimited
*	hard	memlock	unlimited
root	soft	memlock	unlimited
root	hard	memlock	unlimited
EOF
}

base_sd_memlock() {
	cat <<'EOF'
# Managed by provision (step base): unlimited memlock for services too
# (limits.d applies to logins only).
[Manager]
DefaultLimitMEMLOCK=infinity
EOF
}

base_sysctl() {
	cat <<'EOF'
# Managed by provision (step base): kernel settings for GPU/RDMA clusters.
# Socket buffers sized for 100-400 Gb/s links (NCCL and Gloo over TCP,
# storage traffic, MPI's TCP fallback).
net.core.rmem_max = 268435456
net.core.wmem_max = 268435456
net.core.netdev_max_backlog = 250000
net.ipv4.tcp_rmem = 4096 87380 134217728
net.ipv4.tcp_wmem = 4096 65536 134217728
net.ipv4.tcp_mtu_probing = 1
# Neighbour tables big enough for every node and IPoIB peer of a large
# cluster (the defaults overflow at a few hundred peers).
net.ipv4.neigh.default.gc_thresh1 = 8192
net.ipv4.neigh.default.gc_thresh2 = 32768
net.ipv4.neigh.default.gc_thresh3 = 65536
# No NUMA zone reclaim: it stalls allocations next to GPU DMA buffers.
vm.zone_reclaim_mode = 0
# CUDA, NCCL and large training jobs map many memory areas.
vm.max_map_count = 1048576
EOF
}

# The plan's kernel arguments (KERNEL_ARGS) reach the command line the way
# an admin puts them there: a GRUB snippet that grub-mkconfig reads
# (/etc/default/grub.d, Debian and Ubuntu), update-grub, and a reboot,
# which apply does (prov_reboot).  A node whose kernel is not its own (the
# chroot testbed, a container) has no boot to change: nothing is done there.
base_grub_conf() {
	echo "# Managed by provision (step base): the plan's kernel arguments."
	echo "GRUB_CMDLINE_LINUX=\"\$GRUB_CMDLINE_LINUX $KERNEL_ARGS\""
}

# base_kargs_missing FILE: the arguments of KERNEL_ARGS that FILE lacks,
# as whole words on a "linux" line of grub.cfg (or anywhere in
# /proc/cmdline).
base_kargs_missing() {
	PROV_KARGS=$KERNEL_ARGS awk -v cfg="$([ "$1" = "$BASE_GRUB_CFG" ] && echo 1)" '
		BEGIN { n = split(ENVIRON["PROV_KARGS"], want, " ") }
		cfg && $1 != "linux" { next }
		{ for (i = 1; i <= NF; i++) have[$i] = 1 }
		END {
			for (i = 1; i <= n; i++)
				if (!(want[i] in have)) {
					printf "%s%s", sep, want[i]
					sep = " "
				}
		}' "$1" 2>/dev/null
}

base_kargs_wanted() {
	[ -n "$KERNEL_ARGS" ] || [ -e "$BASE_GRUB" ] || return 1
	prov_kernel_ours || return 1
	command -v update-grub >/dev/null 2>&1 ||
		prov_fail "kernel_args: this node has no update-grub (GRUB on Debian or Ubuntu is supported)"
}

base_kargs_ok() {
	base_kargs_wanted || return 0
	if [ -z "$KERNEL_ARGS" ]; then
		prov_why "$BASE_GRUB is left from an earlier plan"
		return 1
	fi
	file_same "$BASE_GRUB" 0644 root:root "$(base_grub_conf)" || return 1
	_bko=$(base_kargs_missing "$BASE_GRUB_CFG")
	[ -z "$_bko" ] || prov_why "$BASE_GRUB_CFG lacks $_bko (update-grub)" || return 1
	_bko=$(base_kargs_missing /proc/cmdline)
	[ -z "$_bko" ] || prov_reboot "the kernel command line lacks $_bko"
	return 0
}

base_kargs_put() {
	base_kargs_wanted || return 0
	if [ -z "$KERNEL_ARGS" ]; then
		file_absent "$BASE_GRUB"
	else
		file_put "$BASE_GRUB" 0644 root:root "$(base_grub_conf)"
	fi
	if [ "$PROV_FILE_CHANGED" = 1 ] || [ -n "$(base_kargs_missing "$BASE_GRUB_CFG")" ]; then
		update-grub >&2 || prov_fail "update-grub failed"
		prov_changed
	fi
}

# step_packages: the packages this step installs on this node.  Every
# pkg_install of the step takes its names from here; lib/bundle.c bundles
# the same names for the plan (tests/unit/test_bundle.c compares the two).
step_packages() { echo chrony; }

base_chrony_unit() {
	if [ "$PROV_OS_FAMILY" = rhel ]; then echo chronyd; else echo chrony; fi
}

base_chrony_user() {
	if [ "$PROV_OS_FAMILY" = rhel ]; then echo chrony; else echo _chrony; fi
}

base_chrony_path() {
	if [ "$PROV_OS_FAMILY" = rhel ]; then echo /etc/chrony.conf; else echo /etc/chrony/chrony.conf; fi
}

# The addresses of HOSTS_BLOCK but this node's.
base_peers() {
	printf '%s\n' "$HOSTS_BLOCK" | awk -v me="$NODE_ADDR" '$1 != "" && $1 !~ /^#/ && $1 != me { print $1 }'
}

# chrony.conf: public pool servers; workers also follow the head, which
# serves time to the cluster (compute nodes often have no way out).
base_chrony_conf() {
	echo "# Managed by provision (step base)."
	echo "pool pool.ntp.org iburst maxsources 4"
	if [ -n "$HEAD_ADDR" ] && [ "$HEAD_ADDR" != "$NODE_ADDR" ]; then
		echo "server $HEAD_ADDR iburst prefer"
	fi
	if [ "$NODE_NAME" = "$HEAD_NAME" ]; then
		echo "# Serve the cluster, even before an upstream server answers."
		case $NODE_ADDR in
		127.*)
			# nodes on loopback addresses (the testbed) send from 127.0.0.1
			echo "allow 127.0.0.0/8"
			;;
		*) base_peers | sed 's/^/allow /' ;;
		esac
		echo "local stratum 10"
		[ -z "$NODE_ADDR" ] || echo "bindaddress $NODE_ADDR"
	fi
	echo "driftfile /var/lib/chrony/chrony.drift"
	echo "makestep 1 3"
	if [ "$PROV_SYSTEMD" = 1 ]; then
		echo "rtcsync"
	fi
	echo "# chronyc talks over the Unix socket only."
	echo "cmdport 0"
	echo "logdir /var/log/chrony"
}

# base_hosts_strip FILE: FILE without the names of the plan's nodes
# (HOSTS_BLOCK) outside the provision block.  Debian's installer, cloud
# images and Vagrant leave "127.0.1.1 NAME" above the block, and getent
# answers with the first line that has the name: the block must be the
# only place that names a node.  A line left without names goes; a line
# that loses no name is kept byte for byte.
base_hosts_strip() {
	PROV_HOSTS=$HOSTS_BLOCK awk -v b="$PROV_BLOCK_BEGIN" -v e="$PROV_BLOCK_END" '
		BEGIN {
			n = split(ENVIRON["PROV_HOSTS"], l, "\n")
			for (i = 1; i <= n; i++) {
				k = split(l[i], f, /[ \t]+/)
				if (f[1] ~ /^#/)
					continue
				for (j = 2; j <= k; j++)
					if (f[j] != "")
						node[f[j]] = 1
			}
		}
		$0 == b { inb = 1 }
		inb { print; if ($0 == e) inb = 0; next }
		$1 ~ /^#/ || NF < 2 { print; next }
		{
			line = $1; names = 0; dropped = 0
			for (i = 2; i <= NF; i++) {
				if ($i ~ /^#/) {
					for (; i <= NF; i++)
						line = line " " $i
					break
				}
				if ($i in node) { dropped++; continue }
				line = line "\t" $i
				names++
			}
			if (!dropped)
				print
			else if (names > 0)
				print line
		}' "$1"
}

# /etc/hosts names no node outside the provision block.
base_hosts_clean() {
	_bhc_want=$(base_hosts_strip /etc/hosts; printf x)
	_bhc_have=$(cat /etc/hosts; printf x)
	[ "$_bhc_want" = "$_bhc_have" ] ||
		prov_why "/etc/hosts names a node outside the provision block (e.g. 127.0.1.1 $NODE_NAME)"
}

base_hosts_put() {
	if [ -f /etc/hosts ] && ! base_hosts_clean 2>/dev/null; then
		_bhp_new=$(base_hosts_strip /etc/hosts; printf x)
		file_put /etc/hosts "$(stat -c %a /etc/hosts)" "$(stat -c %U:%G /etc/hosts)" "${_bhp_new%x}"
	fi
	block_put /etc/hosts "$HOSTS_BLOCK"
}

# With systemd the distribution's unit runs chronyd; without, -x: never
# set the clock of a kernel this node shares.
base_chrony_svc() {
	_bcs_conf=$(base_chrony_path)
	"$1" -f "$_bcs_conf" "$(base_chrony_unit)" -- /usr/sbin/chronyd -d -x -u "$(base_chrony_user)" -f "$_bcs_conf"
}

step_check() {
	[ -n "$NODE_NAME" ] || prov_fail "NODE_NAME is empty"
	[ "$(uname -n)" = "$NODE_NAME" ] || prov_why "the host name is $(uname -n)" || return 1
	file_same /etc/hostname 0644 root:root "$NODE_NAME" || return 1
	if [ -n "$HOSTS_BLOCK" ]; then
		block_same /etc/hosts "$HOSTS_BLOCK" || return 1
		base_hosts_clean || return 1
	fi
	# a relay the plan no longer has would stop apt
	[ -n "$RELAY_URL" ] || [ ! -e "$RELAY_APT_CONF" ] ||
		prov_why "$RELAY_APT_CONF names a package relay the plan no longer has" || return 1
	# shellcheck disable=SC2046
	pkgs_installed $(step_packages) || return 1
	file_same "$(base_chrony_path)" 0644 root:root "$(base_chrony_conf)" || return 1
	base_chrony_svc svc_running || return 1
	file_same "$BASE_LIMITS" 0644 root:root "$(base_limits)" || return 1
	sysctl_ok "$BASE_SYSCTL" "$(base_sysctl)" || return 1
	base_kargs_ok || return 1
	if prov_kernel_ours; then
		file_same "$BASE_SD_MEMLOCK" 0644 root:root "$(base_sd_memlock)" || return 1
	fi
	return 0
}

step_apply() {
	file_put /etc/hostname 0644 root:root "$NODE_NAME"
	if [ "$(uname -n)" != "$NODE_NAME" ]; then
		if command -v hostnamectl >/dev/null 2>&1 && [ "$PROV_SYSTEMD" = 1 ]; then
			hostnamectl set-hostname "$NODE_NAME"
		elif command -v hostname >/dev/null 2>&1; then
			hostname "$NODE_NAME"
		else
			printf '%s\n' "$NODE_NAME" >/proc/sys/kernel/hostname
		fi
		prov_log "host name set to $NODE_NAME"
		prov_changed
	fi
	if [ -n "$HOSTS_BLOCK" ]; then
		base_hosts_put
	fi

	if [ -z "$RELAY_URL" ]; then
		file_absent "$RELAY_APT_CONF"
	fi
	# shellcheck disable=SC2046
	pkg_install $(step_packages)
	file_put "$(base_chrony_path)" 0644 root:root "$(base_chrony_conf)"
	if [ "$PROV_SYSTEMD" = 0 ]; then
		prov_log "no systemd: chronyd runs with -x (tracks time, never sets this shared clock)"
	fi
	base_chrony_svc svc_start

	file_put "$BASE_LIMITS" 0644 root:root "$(base_limits)"
	sysctl_put "$BASE_SYSCTL" "$(base_sysctl)"
	base_kargs_put
	if prov_kernel_ours; then
		file_put "$BASE_SD_MEMLOCK" 0644 root:root "$(base_sd_memlock)"
		if [ "$PROV_FILE_CHANGED" = 1 ]; then
			systemctl daemon-reexec
		fi
	fi
}

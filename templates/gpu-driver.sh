# shellcheck shell=sh
# templates/gpu-driver.sh: the NVIDIA driver of the plan's branch
# (DRIVER_BRANCH, exact DRIVER_VERSION when given), kernel headers of the
# running kernel, the CUDA toolkit (CUDA_VERSION) from NVIDIA's CUDA
# repository, Fabric Manager on NVSwitch systems, and the MIG layout of
# MIG_PROFILES.  A node without an NVIDIA device is skipped, never failed
# and never given a pretend install.
#
#   Ubuntu 22.04/24.04  nvidia-driver-BRANCH-server (Ubuntu archive),
#                       CUDA repo via cuda-keyring for the toolkit
#   Debian 12           CUDA repo (debian12) via cuda-keyring:
#                       cuda-drivers-BRANCH, contrib enabled
#   Rocky 9             CUDA repo (rhel9), EPEL, dnf module
#                       nvidia-driver:BRANCH-dkms

gd_applies() {
	has_nvidia_gpu || prov_skip "no NVIDIA device"
	[ -n "$DRIVER_BRANCH" ] || prov_skip "no gpu_driver in the plan"
	case $DRIVER_BRANCH in
	*[!0-9]*) prov_fail "DRIVER_BRANCH '$DRIVER_BRANCH' is not a branch number (e.g. 550)" ;;
	esac
}

# NVSwitch (bridge class 0x0680xx with NVIDIA's vendor id): HGX baseboards,
# which need Fabric Manager before CUDA can use the GPUs.
gd_has_nvswitch() {
	for _ghn_d in "$PROV_PCI_DIR"/*; do
		[ -r "$_ghn_d/vendor" ] || continue
		[ "$(cat "$_ghn_d/vendor")" = 0x10de ] || continue
		case $(cat "$_ghn_d/class" 2>/dev/null) in
		0x0680??) return 0 ;;
		esac
	done
	return 1
}

# 12.4 or 12.4.1 -> 12-4
gd_cuda_mm() {
	echo "$CUDA_VERSION" | cut -d. -f1,2 | tr . -
}

gd_headers_pkg() {
	if [ "$PROV_OS_FAMILY" = rhel ]; then
		echo "kernel-devel-$(uname -r)"
	else
		echo "linux-headers-$(uname -r)"
	fi
}

gd_driver_pkg() {
	case $PROV_OS_ID in
	ubuntu) echo "nvidia-driver-$DRIVER_BRANCH-server" ;;
	debian) echo "cuda-drivers-$DRIVER_BRANCH" ;;
	*) echo "" ;;	# rhel: a dnf module stream, see gd_install_driver
	esac
}

gd_fm_pkg() {
	if [ "$PROV_OS_FAMILY" = rhel ]; then
		echo nvidia-fabric-manager
	else
		echo "nvidia-fabricmanager-$DRIVER_BRANCH"
	fi
}

# step_packages [driver|fm|cuda]: the packages this step installs on this
# node, all parts without an argument.  Every pkg_install of the step takes
# its names from here; lib/bundle.c bundles the same names for the plan
# (tests/unit/test_bundle.c compares the two).
step_packages() {
	case ${1:-all} in
	all | driver)
		if [ "$PROV_OS_FAMILY" = rhel ]; then
			echo "$(gd_headers_pkg) kernel-headers-$(uname -r)"
		else
			echo "$(gd_headers_pkg) $(gd_driver_pkg)"
		fi
		;;
	esac
	case ${1:-all} in
	all | fm)
		if gd_has_nvswitch; then
			gd_fm_pkg
		fi
		;;
	esac
	case ${1:-all} in
	all | cuda)
		if [ -n "$CUDA_VERSION" ]; then
			echo "cuda-toolkit-$(gd_cuda_mm)"
		fi
		;;
	esac
}

# Offline (apply --bundle) the bundle holds the headers of the kernel the
# plan's release shipped when the bundle was built (linux-headers-amd64's
# or linux-headers-generic's dependency): the plan cannot know which kernel
# a node runs.  A node running another kernel fails here, naming it;
# installing the bundle's headers instead would build the driver for a
# kernel the node does not run.
gd_headers_offline() {
	apt_offline || return 0
	_gho=$(gd_headers_pkg)
	pkg_installed "$_gho" || pkg_available "$_gho" ||
		prov_fail "the offline bundle has no $_gho for this node's kernel: it holds the headers of the kernel $PROV_OS_ID $PROV_OS_VERSION shipped when it was built; upgrade this node to that kernel and reboot, or rebuild the bundle with --package $_gho"
}

gd_driver_version() {
	nvidia-smi --query-gpu=driver_version --format=csv,noheader 2>/dev/null | head -n 1 | tr -d ' '
}

gd_driver_ok() {
	command -v nvidia-smi >/dev/null 2>&1 || prov_why "nvidia-smi is not installed" || return 1
	_gdo_v=$(gd_driver_version)
	[ -n "$_gdo_v" ] || prov_why "nvidia-smi does not answer (driver not loaded)" || return 1
	case $_gdo_v in
	"$DRIVER_BRANCH".*) ;;
	*) prov_why "driver $_gdo_v is not of branch $DRIVER_BRANCH"; return 1 ;;
	esac
	if [ -n "$DRIVER_VERSION" ] && [ "$_gdo_v" != "$DRIVER_VERSION" ]; then
		prov_why "driver $_gdo_v is not the plan's $DRIVER_VERSION"
		return 1
	fi
	return 0
}

gd_cuda_ok() {
	[ -n "$CUDA_VERSION" ] || return 0
	_gco_mm=$(echo "$CUDA_VERSION" | cut -d. -f1,2)
	[ -x "/usr/local/cuda-$_gco_mm/bin/nvcc" ] ||
		prov_why "CUDA $_gco_mm is not installed (/usr/local/cuda-$_gco_mm/bin/nvcc)"
}

# Debian's contrib component (NVIDIA's Debian packages need it), from the
# mirror the node already uses; offline (apply --bundle) the bundle is the
# only source.
gd_debian_contrib() {
	apt_offline && return 0
	if grep -Eqs "^deb .*[[:space:]]${PROV_OS_CODENAME}[[:space:]].*contrib" \
		/etc/apt/sources.list /etc/apt/sources.list.d/*.list ||
		grep -Eqs '^Components:.*contrib' /etc/apt/sources.list.d/*.sources; then
		return 0
	fi
	_gdc_mirror=$(awk -v s="$PROV_OS_CODENAME" '$1 == "deb" && $3 == s { print $2; exit }' \
		/etc/apt/sources.list /etc/apt/sources.list.d/*.list 2>/dev/null)
	: "${_gdc_mirror:=http://deb.debian.org/debian}"
	file_put /etc/apt/sources.list.d/provision-contrib.list 0644 root:root \
		"deb $_gdc_mirror $PROV_OS_CODENAME contrib" || return 1
	apt_update
}

gd_install_driver() {
	case $PROV_OS_ID in
	ubuntu)
		gd_headers_offline
		# shellcheck disable=SC2046
		pkg_install $(step_packages driver) || return 1
		;;
	debian)
		gd_headers_offline
		gd_debian_contrib || return 1
		cuda_repo || return 1
		# shellcheck disable=SC2046
		pkg_install $(step_packages driver) || return 1
		;;
	*)
		rhel_epel || return 1
		cuda_repo || return 1
		# shellcheck disable=SC2046
		pkg_install $(step_packages driver) || return 1
		if ! dnf -q module list --installed nvidia-driver 2>/dev/null | grep -q "$DRIVER_BRANCH-dkms"; then
			prov_log "dnf module install nvidia-driver:$DRIVER_BRANCH-dkms"
			dnf -y module install "nvidia-driver:$DRIVER_BRANCH-dkms" >&2 || return 1
			prov_changed
		fi
		;;
	esac
	if [ -n "$DRIVER_VERSION" ]; then
		prov_log "note: the plan pins $DRIVER_VERSION; the repository gives the newest of branch $DRIVER_BRANCH"
	fi
}

gd_load_driver() {
	gd_driver_ok 2>/dev/null && return 0
	if lsmod 2>/dev/null | grep -q '^nouveau '; then
		prov_fail "the driver is installed but nouveau holds the GPUs: reboot the node (the packages blacklisted nouveau)"
	fi
	if ! modprobe nvidia >&2; then
		prov_fail "the driver is installed but the nvidia module does not load (Secure Boot without a signed module? a reboot pending?)"
	fi
	prov_changed
}

gd_install_cuda() {
	[ -n "$CUDA_VERSION" ] || return 0
	gd_cuda_ok 2>/dev/null && return 0
	cuda_repo || return 1
	# shellcheck disable=SC2046
	pkg_install $(step_packages cuda)
}

gd_fm_ok() {
	gd_has_nvswitch || return 0
	pkg_installed "$(gd_fm_pkg)" || return 1
	[ "$PROV_SYSTEMD" = 0 ] || systemctl is-active --quiet nvidia-fabricmanager ||
		prov_why "nvidia-fabricmanager is not running"
}

gd_install_fm() {
	gd_has_nvswitch || return 0
	cuda_repo || return 1
	# shellcheck disable=SC2046
	pkg_install $(step_packages fm) || return 1
	if [ "$PROV_SYSTEMD" = 1 ] && ! systemctl is-active --quiet nvidia-fabricmanager; then
		systemctl enable --now nvidia-fabricmanager >&2 || return 1
		prov_changed
	fi
}

# ------------------------------------------------------------------ MIG

gd_gpu_indexes() {
	nvidia-smi --query-gpu=index --format=csv,noheader 2>/dev/null | tr -d ' '
}

gd_mig_mode() {
	nvidia-smi -i "$1" --query-gpu=mig.mode.current --format=csv,noheader 2>/dev/null | tr -d ' '
}

# The GPU instances of GPU $1 as sorted profile names (3g.40gb ...).
gd_mig_have() {
	nvidia-smi mig -i "$1" -lgi 2>/dev/null |
		awk '$1 == "|" && $2 ~ /^[0-9]+$/ && $3 == "MIG" { print $4 }' | sort | tr '\n' ' '
}

gd_mig_want() {
	# shellcheck disable=SC2086
	printf '%s\n' $MIG_PROFILES | sort | tr '\n' ' '
}

gd_mig_ok() {
	[ -n "$MIG_PROFILES" ] || return 0
	for _gmo_i in $(gd_gpu_indexes); do
		[ "$(gd_mig_mode "$_gmo_i")" = Enabled ] || prov_why "MIG is off on GPU $_gmo_i" || return 1
		[ "$(gd_mig_have "$_gmo_i")" = "$(gd_mig_want)" ] ||
			prov_why "GPU $_gmo_i has MIG instances '$(gd_mig_have "$_gmo_i")', the plan wants '$(gd_mig_want)'" || return 1
	done
	return 0
}

gd_mig_apply() {
	[ -n "$MIG_PROFILES" ] || return 0
	for _gma_i in $(gd_gpu_indexes); do
		case $(gd_mig_mode "$_gma_i") in
		Enabled) ;;
		Disabled)
			prov_log "enabling MIG on GPU $_gma_i"
			nvidia-smi -i "$_gma_i" -mig 1 >&2 || return 1
			prov_changed
			[ "$(gd_mig_mode "$_gma_i")" = Enabled ] ||
				prov_fail "MIG on GPU $_gma_i is pending: stop the GPU's processes and reset it (nvidia-smi -r) or reboot"
			;;
		*)
			prov_fail "GPU $_gma_i ($(nvidia-smi -i "$_gma_i" --query-gpu=name --format=csv,noheader)) does not support MIG"
			;;
		esac
		[ "$(gd_mig_have "$_gma_i")" != "$(gd_mig_want)" ] || continue
		prov_log "GPU $_gma_i: MIG instances '$(gd_mig_have "$_gma_i")' -> '$(gd_mig_want)'"
		nvidia-smi mig -i "$_gma_i" -dci >&2 || true
		nvidia-smi mig -i "$_gma_i" -dgi >&2 || true
		nvidia-smi mig -i "$_gma_i" -cgi "$(echo "$MIG_PROFILES" | tr -s ' ' ',')" -C >&2 || return 1
		prov_changed
	done
	return 0
}

# ------------------------------------------------------------------ step

step_check() {
	gd_applies
	pkg_installed "$(gd_headers_pkg)" || return 1
	gd_driver_ok || return 1
	gd_cuda_ok || return 1
	gd_fm_ok || return 1
	gd_mig_ok || return 1
	if [ -n "$PLANNED_GPUS" ] && [ "$PLANNED_GPUS" != "$(nvidia_gpu_count)" ]; then
		prov_log "note: the plan gives this node $PLANNED_GPUS GPUs, the PCI bus shows $(nvidia_gpu_count)"
	fi
	return 0
}

step_apply() {
	case $PROV_OS_ID in
	ubuntu | debian | rocky | rhel | almalinux) ;;
	*) prov_fail "no NVIDIA driver recipe for $PROV_OS_ID $PROV_OS_VERSION" ;;
	esac
	gd_install_driver
	gd_load_driver
	gd_install_fm
	gd_install_cuda
	if [ "$PROV_SYSTEMD" = 1 ] && command -v nvidia-persistenced >/dev/null 2>&1 &&
		systemctl cat nvidia-persistenced.service >/dev/null 2>&1 &&
		! systemctl is-active --quiet nvidia-persistenced; then
		systemctl enable --now nvidia-persistenced >&2 || true
		prov_changed
	fi
	gd_mig_apply
}

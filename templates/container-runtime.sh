# shellcheck shell=sh
# templates/container-runtime.sh: the plan's container engine (RUNTIME:
# containerd, docker, apptainer or none) and, on nodes with an NVIDIA device
# when NVIDIA_TOOLKIT=1, the NVIDIA container toolkit from NVIDIA's
# repository, registered with the engine (`nvidia-ctk runtime configure`).
#
# containerd and docker need a cgroup hierarchy they may write: a node
# without systemd and without a writable /sys/fs/cgroup (a testbed node, a
# plain container) cannot run them, and the step says so instead of hanging.
#
# Offline (apply --bundle), once the engine answers, the bundle's container
# images are imported into it (lib.sh images_import: containerd's k8s.io
# namespace, or docker load); the check wants every one of them there.
# With Kubernetes on containerd, the CRI's sandbox (pause) image is set to
# the one the bundle holds (kubeadm's), so no pod waits for a pull.

CR_CONTAINERD_CONF=/etc/containerd/config.toml
CR_DOCKER_CONF=/etc/docker/daemon.json

cr_applies() {
	case $RUNTIME in
	'' | none) prov_skip "no container runtime in the plan" ;;
	containerd | docker) cr_can_run_daemons ;;
	apptainer)
		if [ "$PROV_OS_FAMILY" != rhel ] && ! pkg_available apptainer; then
			prov_skip "apptainer is not packaged for $PROV_OS_ID $PROV_OS_VERSION (only in Rocky's EPEL); not installed"
		fi
		;;
	*) prov_fail "unknown container runtime '$RUNTIME' (containerd, docker, apptainer, none)" ;;
	esac
}

cr_can_run_daemons() {
	[ "$PROV_SYSTEMD" = 0 ] || return 0
	if [ ! -d /sys/fs/cgroup ] || [ ! -w /sys/fs/cgroup ] ||
		! grep -qs ' /sys/fs/cgroup cgroup' /proc/self/mounts; then
		prov_fail "$RUNTIME cannot run here: no systemd and no writable cgroup hierarchy at /sys/fs/cgroup (a testbed node or a container); plan engine none for such nodes"
	fi
}

# The toolkit applies: asked for, and a GPU to serve.
cr_toolkit_wanted() {
	[ "$NVIDIA_TOOLKIT" = 1 ] && has_nvidia_gpu
}

# step_packages [engine|toolkit|repo]: the packages this step installs on
# this node, all parts without an argument.  Every pkg_install of the step
# takes its names from here; lib/bundle.c bundles the same names for the
# plan (tests/unit/test_bundle.c compares the two).
step_packages() {
	case ${1:-all} in
	all | engine)
		case $RUNTIME:$PROV_OS_FAMILY in
		containerd:debian) echo containerd ;;
		containerd:rhel) echo containerd.io ;;
		docker:debian) echo docker.io ;;
		docker:rhel) echo docker-ce docker-ce-cli containerd.io ;;
		apptainer:*) echo apptainer ;;
		esac
		;;
	esac
	case ${1:-all} in
	all | toolkit)
		if cr_toolkit_wanted; then
			echo nvidia-container-toolkit
		fi
		;;
	esac
	case ${1:-all}:$RUNTIME:$PROV_OS_FAMILY in
	all:containerd:rhel | all:docker:rhel | repo:*:rhel) echo dnf-plugins-core ;;
	esac
}

# Docker's repository for Rocky (containerd.io, docker-ce).
cr_docker_repo_rhel() {
	[ -f /etc/yum.repos.d/docker-ce.repo ] && return 0
	# shellcheck disable=SC2046
	pkg_install $(step_packages repo) || return 1
	dnf config-manager --add-repo https://download.docker.com/linux/centos/docker-ce.repo >&2 || return 1
	prov_changed
}

# Offline (apply --bundle): none, the bundle holds the toolkit.
cr_toolkit_repo() {
	apt_offline && return 0
	case $PROV_OS_FAMILY in
	debian)
		_ctr_key=/usr/share/keyrings/nvidia-container-toolkit-keyring.asc
		if [ ! -s "$_ctr_key" ]; then
			prov_fetch https://nvidia.github.io/libnvidia-container/gpgkey "$_ctr_key" || return 1
			chmod 0644 "$_ctr_key"
			prov_changed
		fi
		# shellcheck disable=SC2016
		file_put /etc/apt/sources.list.d/nvidia-container-toolkit.list 0644 root:root \
			"deb [signed-by=$_ctr_key] https://nvidia.github.io/libnvidia-container/stable/deb/\$(ARCH) /" || return 1
		if [ "$PROV_FILE_CHANGED" = 1 ]; then
			apt_update || return 1
		fi
		;;
	rhel)
		[ -f /etc/yum.repos.d/nvidia-container-toolkit.repo ] && return 0
		prov_fetch https://nvidia.github.io/libnvidia-container/stable/rpm/nvidia-container-toolkit.repo \
			/etc/yum.repos.d/nvidia-container-toolkit.repo || return 1
		prov_changed
		;;
	esac
}

cr_conf() {
	case $RUNTIME in
	containerd) echo "$CR_CONTAINERD_CONF" ;;
	docker) echo "$CR_DOCKER_CONF" ;;
	esac
}

# The pause image of the offline bundle, under Kubernetes (else nothing).
cr_sandbox_image() {
	[ "$ORCHESTRATOR" = kubernetes ] || return 0
	images_list 2>/dev/null | awk '$1 ~ /^registry\.k8s\.io\/pause:/ { print $1; exit }'
}

# containerd's configuration: the package default, with the systemd cgroup
# driver where systemd runs (kubelet uses it), and the bundle's pause image
# as the sandbox image where there is one.
cr_containerd_conf_ok() {
	[ -s "$CR_CONTAINERD_CONF" ] || prov_why "$CR_CONTAINERD_CONF is missing" || return 1
	[ "$PROV_SYSTEMD" = 0 ] || grep -q 'SystemdCgroup = true' "$CR_CONTAINERD_CONF" ||
		prov_why "$CR_CONTAINERD_CONF does not use the systemd cgroup driver" || return 1
	_cco=$(cr_sandbox_image)
	[ -z "$_cco" ] || ! grep -q '^ *sandbox_image = ' "$CR_CONTAINERD_CONF" ||
		grep -q "^ *sandbox_image = \"$_cco\"" "$CR_CONTAINERD_CONF" ||
		prov_why "$CR_CONTAINERD_CONF does not use the bundle's sandbox image $_cco"
}

cr_containerd_conf_put() {
	cr_containerd_conf_ok 2>/dev/null && return 0
	mkdir -p /etc/containerd
	_ccp=$(containerd config default)
	if [ "$PROV_SYSTEMD" = 1 ]; then
		_ccp=$(printf '%s\n' "$_ccp" | sed 's/SystemdCgroup = false/SystemdCgroup = true/')
	fi
	_ccs=$(cr_sandbox_image)
	if [ -n "$_ccs" ]; then
		_ccp=$(printf '%s\n' "$_ccp" | sed "s|^\( *sandbox_image = \).*|\1\"$_ccs\"|")
	fi
	file_put "$CR_CONTAINERD_CONF" 0644 root:root "$_ccp"
}

# The engine knows the nvidia runtime.
cr_toolkit_ok() {
	cr_toolkit_wanted || return 0
	pkg_installed nvidia-container-toolkit || return 1
	case $RUNTIME in
	containerd | docker)
		grep -qs nvidia-container-runtime "$(cr_conf)" ||
			prov_why "$(cr_conf) has no nvidia runtime"
		;;
	esac
}

cr_toolkit_put() {
	if ! cr_toolkit_wanted; then
		if [ "$NVIDIA_TOOLKIT" = 1 ]; then
			prov_log "NVIDIA container toolkit: skipped (no NVIDIA device)"
		fi
		return 0
	fi
	cr_toolkit_repo || return 1
	# shellcheck disable=SC2046
	pkg_install $(step_packages toolkit) || return 1
	case $RUNTIME in
	containerd | docker)
		if ! grep -qs nvidia-container-runtime "$(cr_conf)"; then
			# Kubernetes pods get GPUs through the default runtime.
			if [ "$ORCHESTRATOR" = kubernetes ]; then
				nvidia-ctk runtime configure --runtime="$RUNTIME" --set-as-default >&2 || return 1
			else
				nvidia-ctk runtime configure --runtime="$RUNTIME" >&2 || return 1
			fi
			prov_changed
		fi
		;;
	esac
}

cr_svc() {
	case $RUNTIME in
	containerd) "$1" -f "$CR_CONTAINERD_CONF" containerd -- /usr/bin/containerd ;;
	docker) "$1" -f "$CR_DOCKER_CONF" docker -- /usr/bin/dockerd ;;
	esac
}

cr_works() {
	case $RUNTIME in
	containerd) ctr version >/dev/null 2>&1 ;;
	docker) docker info >/dev/null 2>&1 ;;
	apptainer) apptainer --version >/dev/null 2>&1 ;;
	esac
}

step_check() {
	cr_applies
	# shellcheck disable=SC2046
	pkgs_installed $(step_packages engine) || return 1
	if [ "$RUNTIME" = containerd ]; then
		cr_containerd_conf_ok || return 1
	fi
	cr_toolkit_ok || return 1
	if [ "$RUNTIME" != apptainer ]; then
		cr_svc svc_running || return 1
	fi
	cr_works || prov_why "$RUNTIME does not answer" || return 1
	images_ok
}

step_apply() {
	if [ "$PROV_OS_FAMILY" = rhel ]; then
		case $RUNTIME in
		apptainer) rhel_epel ;;
		*) cr_docker_repo_rhel ;;
		esac
	fi
	# shellcheck disable=SC2046
	pkg_install $(step_packages engine)
	if [ "$RUNTIME" = containerd ]; then
		cr_containerd_conf_put
	fi
	if [ "$RUNTIME" = docker ] && [ ! -f "$CR_DOCKER_CONF" ]; then
		file_put "$CR_DOCKER_CONF" 0644 root:root "{}"
	fi
	cr_toolkit_put
	if [ "$RUNTIME" != apptainer ]; then
		cr_svc svc_start
		prov_wait 30 cr_works || prov_fail "$RUNTIME does not answer after start"
		images_import || prov_fail "could not import the offline bundle's images into $RUNTIME"
	fi
}

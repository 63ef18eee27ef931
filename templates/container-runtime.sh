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
#
# Registry mirrors (REGISTRY_MIRRORS, one "REGISTRY URL INSECURE" a line;
# the CA of the Nth in REGISTRY_CA_N): containerd reads
# /etc/containerd/certs.d/REGISTRY/hosts.toml (config_path), docker its
# daemon.json "registry-mirrors" (docker.io only) with the CA in
# /etc/docker/certs.d/HOST:PORT/ca.crt.  An http:// mirror, or one whose
# certificate is not checked, comes only from `insecure: true` in the plan.

CR_CONTAINERD_CONF=/etc/containerd/config.toml
CR_DOCKER_CONF=/etc/docker/daemon.json
CR_CERTS_D=/etc/containerd/certs.d
CR_MARK='# Managed by provision (step container-runtime).'
CR_MODULES=/etc/modules-load.d/90-provision-containers.conf
CR_SYSCTL=/etc/sysctl.d/90-provision-containers.conf

# Container networks: overlayfs for image layers, and bridged traffic
# through iptables (CNI bridges, docker's port maps, kube-proxy), at every
# boot; modules-load.d and sysctl.d do it before the engine starts.
cr_sysctl() {
	cat <<'EOF'
# Managed by provision (step container-runtime): bridged container
# traffic goes through iptables.
net.bridge.bridge-nf-call-iptables = 1
net.bridge.bridge-nf-call-ip6tables = 1
EOF
}

cr_kernel_ok() {
	kmods_ok "$CR_MODULES" overlay br_netfilter || return 1
	sysctl_ok "$CR_SYSCTL" "$(cr_sysctl)"
}

# br_netfilter first: its sysctls exist only once it is loaded.
cr_kernel_put() {
	kmods_put "$CR_MODULES" overlay br_netfilter || return 1
	sysctl_put "$CR_SYSCTL" "$(cr_sysctl)"
}

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
		# prov_fetch's file is 0600 (mktemp); dnf's repo files are 0644
		chmod 0644 /etc/yum.repos.d/nvidia-container-toolkit.repo
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

# cr_mirrors: the plan's mirrors, "REGISTRY URL INSECURE N" a line (N: its
# number, for REGISTRY_CA_N).  The plan checked them; they reach config
# files, so a value that is not plain fails here too.
cr_mirrors() {
	_cm_n=0
	while read -r _cm_reg _cm_url _cm_ins _cm_rest; do
		[ -n "$_cm_reg" ] || continue
		_cm_n=$((_cm_n + 1))
		case $_cm_reg in
		*[!A-Za-z0-9.:-]*) prov_log "bad registry in mirror $_cm_n"; return 1 ;;
		esac
		case $_cm_ins:$_cm_rest in
		0: | 1:) ;;
		*) prov_log "bad mirror line $_cm_n"; return 1 ;;
		esac
		case $_cm_url in
		*[!]A-Za-z0-9./:%@+=,~_[-]*) prov_log "bad URL in mirror $_cm_n"; return 1 ;;
		https://?* | http://?*) ;;
		*) prov_log "bad URL in mirror $_cm_n"; return 1 ;;
		esac
		echo "$_cm_reg $_cm_url $_cm_ins $_cm_n"
	done <<EOF
${REGISTRY_MIRRORS:-}
EOF
}

# cr_mirror_ca N: the certificates of mirror N (empty: the system's CAs).
cr_mirror_ca() {
	case $1 in
	*[!0-9]* | '') return 1 ;;
	esac
	eval "printf '%s' \"\${REGISTRY_CA_$1:-}\""
}

# cr_hosts_toml REGISTRY URL INSECURE N: containerd's hosts.toml for it.
cr_hosts_toml() {
	case $1 in
	docker.io) _cht_up=https://registry-1.docker.io ;;
	*) _cht_up=https://$1 ;;
	esac
	printf '%s\nserver = "%s"\n\n[host."%s"]\n  capabilities = ["pull", "resolve"]\n' \
		"$CR_MARK" "$_cht_up" "$2"
	case $3:$2 in
	1:https://*) echo '  skip_verify = true' ;;
	esac
	if [ -n "$(cr_mirror_ca "$4")" ]; then
		printf '  ca = "%s"\n' "$CR_CERTS_D/$1/mirror-ca.crt"
	fi
}

# cr_certs_d ACTION: make (put) or check (same) the mirrors' files under
# certs.d: the plan's, and none of ours beside them.
cr_certs_d() {
	_ccd_m=$(cr_mirrors) || return 1
	_ccd_want=
	while read -r _ccd_reg _ccd_url _ccd_ins _ccd_n; do
		[ -n "$_ccd_reg" ] || continue
		_ccd_want="$_ccd_want $_ccd_reg "
		_ccd_ca=$(cr_mirror_ca "$_ccd_n")
		if [ -n "$_ccd_ca" ]; then
			"file_$1" "$CR_CERTS_D/$_ccd_reg/mirror-ca.crt" 0644 root:root "$_ccd_ca" || return 1
		elif [ "$1" = put ]; then
			file_absent "$CR_CERTS_D/$_ccd_reg/mirror-ca.crt" || return 1
		fi
		"file_$1" "$CR_CERTS_D/$_ccd_reg/hosts.toml" 0644 root:root \
			"$(cr_hosts_toml "$_ccd_reg" "$_ccd_url" "$_ccd_ins" "$_ccd_n")" || return 1
	done <<EOF
$_ccd_m
EOF
	for _ccd_f in "$CR_CERTS_D"/*/hosts.toml; do
		[ -f "$_ccd_f" ] || continue
		_ccd_reg=$(basename -- "$(dirname -- "$_ccd_f")")
		case $_ccd_want in *" $_ccd_reg "*) continue ;; esac
		grep -qxF "$CR_MARK" "$_ccd_f" || continue
		if [ "$1" = same ]; then
			prov_why "$_ccd_f is a mirror the plan no longer has"
			return 1
		fi
		file_absent "$_ccd_f" || return 1
		file_absent "$(dirname -- "$_ccd_f")/mirror-ca.crt" || return 1
	done
}

# docker's daemon.json with the mirrors (and the nvidia runtime, as
# `nvidia-ctk runtime configure` writes it, so the two keep to one file).
cr_docker_json() {
	_cdj_m=$(cr_mirrors) || return 1
	_cdj_mirrors=
	_cdj_insecure=
	while read -r _cdj_reg _cdj_url _cdj_ins _cdj_n; do
		[ -n "$_cdj_reg" ] || continue
		_cdj_mirrors="$_cdj_mirrors${_cdj_mirrors:+, }\"$_cdj_url\""
		if [ "$_cdj_ins" = 1 ]; then
			_cdj_h=${_cdj_url#*://}
			_cdj_insecure="$_cdj_insecure${_cdj_insecure:+, }\"${_cdj_h%%/*}\""
		fi
	done <<EOF
$_cdj_m
EOF
	printf '{\n  "registry-mirrors": [%s]' "$_cdj_mirrors"
	if [ -n "$_cdj_insecure" ]; then
		printf ',\n  "insecure-registries": [%s]' "$_cdj_insecure"
	fi
	if cr_toolkit_wanted; then
		printf ',\n  "runtimes": {\n    "nvidia": {\n      "args": [],\n      "path": "nvidia-container-runtime"\n    }\n  }'
	fi
	printf '\n}\n'
}

# cr_docker_cas ACTION: the mirrors' CAs in /etc/docker/certs.d/HOST:PORT/ca.crt.
cr_docker_cas() {
	_cdc_m=$(cr_mirrors) || return 1
	while read -r _cdc_reg _cdc_url _cdc_ins _cdc_n; do
		[ -n "$_cdc_reg" ] || continue
		_cdc_ca=$(cr_mirror_ca "$_cdc_n")
		[ -n "$_cdc_ca" ] || continue
		_cdc_h=${_cdc_url#*://}
		"file_$1" "/etc/docker/certs.d/${_cdc_h%%/*}/ca.crt" 0644 root:root "$_cdc_ca" || return 1
	done <<EOF
$_cdc_m
EOF
}

cr_docker_conf_ok() {
	[ -n "${REGISTRY_MIRRORS:-}" ] || return 0
	file_same "$CR_DOCKER_CONF" 0644 root:root "$(cr_docker_json)" || return 1
	cr_docker_cas same
}

cr_docker_conf_put() {
	if [ -z "${REGISTRY_MIRRORS:-}" ]; then
		[ -f "$CR_DOCKER_CONF" ] || file_put "$CR_DOCKER_CONF" 0644 root:root "{}"
		return
	fi
	_cdp=$(cr_docker_json) || return 1
	file_put "$CR_DOCKER_CONF" 0644 root:root "$_cdp" || return 1
	cr_docker_cas put
}

# containerd's configuration: the package default, with the systemd cgroup
# driver where systemd runs (kubelet uses it), the bundle's pause image as
# the sandbox image where there is one, and the registry hosts of
# /etc/containerd/certs.d when the plan has mirrors.
cr_containerd_conf_ok() {
	[ -s "$CR_CONTAINERD_CONF" ] || prov_why "$CR_CONTAINERD_CONF is missing" || return 1
	[ "$PROV_SYSTEMD" = 0 ] || grep -q 'SystemdCgroup = true' "$CR_CONTAINERD_CONF" ||
		prov_why "$CR_CONTAINERD_CONF does not use the systemd cgroup driver" || return 1
	_cco=$(cr_sandbox_image)
	[ -z "$_cco" ] || ! grep -q '^ *sandbox_image = ' "$CR_CONTAINERD_CONF" ||
		grep -qF "sandbox_image = \"$_cco\"" "$CR_CONTAINERD_CONF" ||
		prov_why "$CR_CONTAINERD_CONF does not use the bundle's sandbox image $_cco" || return 1
	[ -z "${REGISTRY_MIRRORS:-}" ] || grep -qF "config_path = \"$CR_CERTS_D\"" "$CR_CONTAINERD_CONF" ||
		prov_why "$CR_CONTAINERD_CONF does not read the mirrors in $CR_CERTS_D" || return 1
	cr_certs_d same
}

# cr_toml_set KEY VALUE: every "KEY = ..." line of stdin set to KEY = "VALUE"
# (the value is data: awk takes it from the environment, not the program).
cr_toml_set() {
	PROV_TOML_KEY=$1 PROV_TOML_VAL=$2 awk '
		BEGIN { k = ENVIRON["PROV_TOML_KEY"]; v = ENVIRON["PROV_TOML_VAL"] }
		{
			t = $0
			sub(/^ */, "", t)
			if (index(t, k " = ") == 1)
				$0 = substr($0, 1, index($0, k) - 1) k " = \"" v "\""
			print
		}'
}

cr_containerd_conf_put() {
	if ! cr_containerd_conf_ok 2>/dev/null; then
		mkdir -p /etc/containerd
		_ccp=$(containerd config default)
		if [ "$PROV_SYSTEMD" = 1 ]; then
			_ccp=$(printf '%s\n' "$_ccp" | sed 's/SystemdCgroup = false/SystemdCgroup = true/')
		fi
		_ccs=$(cr_sandbox_image)
		case $_ccs in
		*[!A-Za-z0-9./:@_-]*) prov_fail "the bundle's pause image '$_ccs' is not an image reference" ;;
		esac
		if [ -n "$_ccs" ]; then
			_ccp=$(printf '%s\n' "$_ccp" | cr_toml_set sandbox_image "$_ccs")
		fi
		if [ -n "${REGISTRY_MIRRORS:-}" ]; then
			_ccp=$(printf '%s\n' "$_ccp" | cr_toml_set config_path "$CR_CERTS_D")
		fi
		file_put "$CR_CONTAINERD_CONF" 0644 root:root "$_ccp" || return 1
	fi
	cr_certs_d put
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
	if [ "$RUNTIME" != apptainer ]; then
		cr_kernel_ok || return 1
	fi
	case $RUNTIME in
	containerd) cr_containerd_conf_ok || return 1 ;;
	docker) cr_docker_conf_ok || return 1 ;;
	esac
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
	if [ "$RUNTIME" != apptainer ]; then
		cr_kernel_put || prov_fail "cannot set up the kernel for containers (overlay, br_netfilter)"
	fi
	case $RUNTIME in
	containerd) cr_containerd_conf_put ;;
	docker) cr_docker_conf_put ;;
	esac
	cr_toolkit_put
	if [ "$RUNTIME" != apptainer ]; then
		cr_svc svc_start
		prov_wait 30 cr_works || prov_fail "$RUNTIME does not answer after start"
		images_import || prov_fail "could not import the offline bundle's images into $RUNTIME"
	fi
}

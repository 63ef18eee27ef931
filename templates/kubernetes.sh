# shellcheck shell=sh
# templates/kubernetes.sh: Kubernetes with kubeadm from pkgs.k8s.io
# (K8S_VERSION, "1.30" or "1.30.2").  The control plane (K8S_ROLE
# control-plane) runs `kubeadm init`, installs the CNI (K8S_CNI flannel or
# calico, pod network K8S_POD_CIDR) and, when the cluster has GPUs
# (CLUSTER_GPUS), NVIDIA's device plugin and, with DCGM_EXPORTER=1, the DCGM
# exporter as DaemonSets; it leaves the join command in
# /etc/provision/out/join (0600).  Workers join with it, passed by the
# engine as $PROV_SECRET_DIR/join, through a kubeadm config file: the token
# never reaches argv.  Needs systemd (kubelet) and containerd.  kubeadm
# pulls an image only when containerd lacks it (imagePullPolicy
# IfNotPresent, its default): offline, step container-runtime has imported
# the bundle's (kube-*, pause, etcd, CoreDNS).

K8S_ADMIN=/etc/kubernetes/admin.conf
K8S_KUBELET=/etc/kubernetes/kubelet.conf
K8S_OUT=$PROV_OUT_DIR/join
# The manifests, each at a release tag.  Their projects publish no checksum
# of them (docs/templates.md, "What steps download"): they come over
# verified HTTPS, from the tag.
K8S_FLANNEL=https://github.com/flannel-io/flannel/releases/download/v0.25.1/kube-flannel.yml
K8S_CALICO=https://raw.githubusercontent.com/projectcalico/calico/v3.27.3/manifests/calico.yaml
K8S_DEVICE_PLUGIN=https://raw.githubusercontent.com/NVIDIA/k8s-device-plugin/v0.15.0/deployments/static/nvidia-device-plugin.yml
K8S_DCGM_EXPORTER=https://raw.githubusercontent.com/NVIDIA/dcgm-exporter/3.3.5-3.4.1/dcgm-exporter.yaml
# Time-slicing (software.gpu_shards): the plugin reads K8S_SHARING_CONF,
# a ConfigMap, as its config file ($CONFIG_FILE); the static manifest has
# neither, so the DaemonSet gets them by a strategic merge patch.
K8S_SHARING_PATCH='{"spec":{"template":{"spec":{"containers":[{"name":"nvidia-device-plugin-ctr","env":[{"name":"CONFIG_FILE","value":"/etc/nvidia-device-plugin/config.yaml"}],"volumeMounts":[{"name":"provision-sharing","mountPath":"/etc/nvidia-device-plugin"}]}],"volumes":[{"name":"provision-sharing","configMap":{"name":"nvidia-device-plugin-config"}}]}}}}'

k8s_applies() {
	[ "$ORCHESTRATOR" = kubernetes ] || prov_skip "orchestrator is ${ORCHESTRATOR:-none}, not kubernetes"
	case $K8S_ROLE in
	control-plane | worker) ;;
	*) prov_skip "no Kubernetes role on this node" ;;
	esac
	[ "$PROV_SYSTEMD" = 1 ] || prov_fail "kubelet needs systemd as PID 1; this node has none"
	[ "$RUNTIME" = containerd ] || prov_fail "kubeadm needs the containerd runtime (the plan has '${RUNTIME:-none}')"
	case $K8S_VERSION in
	*[!0-9.]* | '' | .* | *.) prov_fail "K8S_VERSION '$K8S_VERSION' is not a version like 1.30" ;;
	[0-9]*.[0-9]*) ;;
	*) prov_fail "K8S_VERSION '$K8S_VERSION' is not a version like 1.30" ;;
	esac
	# the plan checks it; it reaches a manifest, so again here
	case $K8S_POD_CIDR in
	'') ;;
	*[!0-9./]* | */*/* | */ | /*) prov_fail "K8S_POD_CIDR '$K8S_POD_CIDR' is not an IPv4 network like 10.244.0.0/16" ;;
	*/*) ;;
	*) prov_fail "K8S_POD_CIDR '$K8S_POD_CIDR' is not an IPv4 network like 10.244.0.0/16" ;;
	esac
}

k8s_minor() {
	echo "$K8S_VERSION" | cut -d. -f1,2
}

kubectl_admin() {
	kubectl --kubeconfig "$K8S_ADMIN" "$@"
}

k8s_ready() {
	[ "$(kubectl_admin get --raw=/readyz 2>/dev/null)" = ok ]
}

# pkgs.k8s.io; offline (apply --bundle) none: the bundle holds the packages.
k8s_repo() {
	apt_offline && return 0
	_kr_url=https://pkgs.k8s.io/core:/stable:/v$(k8s_minor)
	case $PROV_OS_FAMILY in
	debian)
		_kr_key=/etc/apt/keyrings/kubernetes-v$(k8s_minor).asc
		if [ ! -s "$_kr_key" ]; then
			mkdir -p /etc/apt/keyrings
			prov_fetch "$_kr_url/deb/Release.key" "$_kr_key" || return 1
			chmod 0644 "$_kr_key"
			prov_changed
		fi
		file_put /etc/apt/sources.list.d/kubernetes.list 0644 root:root \
			"deb [signed-by=$_kr_key] $_kr_url/deb/ /" || return 1
		if [ "$PROV_FILE_CHANGED" = 1 ]; then
			apt_update || return 1
		fi
		;;
	rhel)
		file_put /etc/yum.repos.d/kubernetes.repo 0644 root:root "[kubernetes]
name=Kubernetes v$(k8s_minor)
baseurl=$_kr_url/rpm/
enabled=1
gpgcheck=1
gpgkey=$_kr_url/rpm/repodata/repomd.xml.key
exclude=kubelet kubeadm kubectl cri-tools kubernetes-cni" || return 1
		;;
	esac
}

# step_packages: the packages this step installs on this node.  Every
# pkg_install of the step takes its names from here; lib/bundle.c bundles
# the same names for the plan (tests/unit/test_bundle.c compares the two).
step_packages() {
	echo kubelet kubeadm kubectl
}

# shellcheck disable=SC2046
k8s_install() {
	pkgs_installed $(step_packages) 2>/dev/null && return 0
	k8s_repo || return 1
	case $PROV_OS_FAMILY in
	debian)
		pkg_install $(step_packages) || return 1
		apt-mark hold $(step_packages) >&2
		;;
	rhel)
		dnf -y -q install --disableexcludes=kubernetes $(step_packages) >&2 || return 1
		prov_changed
		;;
	esac
}

K8S_MODULES=/etc/modules-load.d/provision-k8s.conf
K8S_SYSCTL=/etc/sysctl.d/90-provision-k8s.conf

k8s_modules() {
	printf '%s\n' "# Managed by provision (step kubernetes)." overlay br_netfilter
}

k8s_sysctl() {
	cat <<'EOF'
# Managed by provision (step kubernetes).
net.bridge.bridge-nf-call-iptables = 1
net.bridge.bridge-nf-call-ip6tables = 1
net.ipv4.ip_forward = 1
EOF
}

k8s_prereqs_ok() {
	file_same "$K8S_MODULES" 0644 root:root "$(k8s_modules)" || return 1
	file_same "$K8S_SYSCTL" 0644 root:root "$(k8s_sysctl)" || return 1
	[ "$(sysctl -n net.ipv4.ip_forward 2>/dev/null)" = 1 ] || prov_why "ip_forward is off" || return 1
	[ "$(awk 'NR > 1' /proc/swaps | wc -l)" -eq 0 ] || prov_why "swap is on (kubelet refuses it)"
}

k8s_prereqs_put() {
	if [ "$(awk 'NR > 1' /proc/swaps | wc -l)" -gt 0 ]; then
		swapoff -a
		sed -i.provision '/^[^#].*[[:space:]]swap[[:space:]]/s/^/# (provision: kubelet needs swap off) /' /etc/fstab
		prov_changed
	fi
	file_put "$K8S_MODULES" 0644 root:root "$(k8s_modules)"
	modprobe overlay
	modprobe br_netfilter
	file_put "$K8S_SYSCTL" 0644 root:root "$(k8s_sysctl)"
	if [ "$PROV_FILE_CHANGED" = 1 ] || [ "$(sysctl -n net.ipv4.ip_forward)" != 1 ]; then
		sysctl -q --system >&2
		prov_changed
	fi
}

# The token of the saved join command is still valid.  awk reads it from
# the file and compares: the token is never an argument (ps shows those).
k8s_join_ok() {
	[ -s "$K8S_OUT" ] && file_meta_ok "$K8S_OUT" 0600 root:root || prov_why "$K8S_OUT is missing" || return 1
	kubeadm token list 2>/dev/null | awk '
		NR == FNR { for (i = 1; i < NF; i++) if ($i == "--token") t = $(i + 1); next }
		FNR > 1 && t != "" && $1 == t { found = 1 }
		END { exit !found }' "$K8S_OUT" - ||
		prov_why "the join token has expired"
}

# The join command's token (and certificate key) are secrets: the engine
# hides them from every log (it also knows the shape of a kubeadm token).
k8s_join_secret() {
	prov_secret "$(sed -n 's/.*--token \([^ ]*\).*/\1/p' "$1")"
}

# k8s_apply_manifest URL NAMESPACE DAEMONSET [OLD NEW]...: apply the
# manifest once (checked by its DaemonSet's name), each OLD text in it
# replaced by NEW (plain text, see file_subst).
k8s_apply_manifest() {
	kubectl_admin -n "$2" get daemonset "$3" >/dev/null 2>&1 && return 0
	_kam_url=$1
	shift 3
	_kam_f=$(mktemp)
	prov_fetch "$_kam_url" "$_kam_f" || { rm -f "$_kam_f"; return 1; }
	while [ $# -ge 2 ]; do
		file_subst "$_kam_f" "$1" "$2" || { rm -f "$_kam_f"; return 1; }
		shift 2
	done
	kubectl_admin apply -f "$_kam_f" >&2 || { rm -f "$_kam_f"; return 1; }
	rm -f "$_kam_f"
	prov_changed
}

k8s_cni_ds() {
	case $K8S_CNI in
	calico) echo "kube-system calico-node" ;;
	*) echo "kube-flannel kube-flannel-ds" ;;
	esac
}

# The device plugin's time-slicing: the ConfigMap as the plan has it and
# the DaemonSet reading it; without gpu_shards, neither.
k8s_sharing_ok() {
	_kso_have=$(kubectl_admin -n kube-system get configmap nvidia-device-plugin-config \
		-o jsonpath='{.data.config\.yaml}' 2>/dev/null || true)
	_kso_env=$(kubectl_admin -n kube-system get daemonset nvidia-device-plugin-daemonset \
		-o jsonpath='{.spec.template.spec.containers[0].env[?(@.name=="CONFIG_FILE")].value}' 2>/dev/null || true)
	if [ -z "$K8S_SHARING_CONF" ]; then
		[ -z "$_kso_have" ] && [ -z "$_kso_env" ] ||
			prov_why "the device plugin time-slices GPUs; the plan shares none" || return 1
		return 0
	fi
	_kso_want=$(printf '%s\n' "$K8S_SHARING_CONF" | sed -n 's/^    //p')
	[ "$_kso_have" = "$_kso_want" ] ||
		prov_why "the device plugin's time-slicing config differs from the plan's" || return 1
	[ -n "$_kso_env" ] || prov_why "the device plugin does not read its time-slicing config" || return 1
}

k8s_sharing_put() {
	if [ -z "$K8S_SHARING_CONF" ]; then
		# the DaemonSet as published again (replace, not apply: apply
		# would keep the patched fields it never set)
		_ksp_f=$(mktemp)
		prov_fetch "$K8S_DEVICE_PLUGIN" "$_ksp_f" || { rm -f "$_ksp_f"; prov_fail "cannot fetch the device plugin manifest"; }
		kubectl_admin replace -f "$_ksp_f" >&2 || { rm -f "$_ksp_f"; prov_fail "kubectl replace of the device plugin failed"; }
		rm -f "$_ksp_f"
		kubectl_admin -n kube-system delete configmap nvidia-device-plugin-config --ignore-not-found >&2
		prov_changed
		return 0
	fi
	printf '%s\n' "$K8S_SHARING_CONF" | kubectl_admin apply -f - >&2 ||
		prov_fail "kubectl apply of the device plugin's time-slicing config failed"
	kubectl_admin -n kube-system patch daemonset nvidia-device-plugin-daemonset \
		--type strategic -p "$K8S_SHARING_PATCH" >&2 ||
		prov_fail "cannot point the device plugin at its time-slicing config"
	# the plugin reads its config at start
	kubectl_admin -n kube-system rollout restart daemonset nvidia-device-plugin-daemonset >&2 || true
	prov_changed
}

k8s_control_ok() {
	[ -f "$K8S_ADMIN" ] || prov_why "kubeadm init has not run" || return 1
	k8s_ready || prov_why "the API server is not ready" || return 1
	# shellcheck disable=SC2046
	kubectl_admin -n $(k8s_cni_ds | cut -d' ' -f1) get daemonset $(k8s_cni_ds | cut -d' ' -f2) >/dev/null 2>&1 ||
		prov_why "the $K8S_CNI CNI is not installed" || return 1
	if [ "${CLUSTER_GPUS:-0}" -gt 0 ]; then
		kubectl_admin -n kube-system get daemonset nvidia-device-plugin-daemonset >/dev/null 2>&1 ||
			prov_why "the NVIDIA device plugin is not installed" || return 1
		k8s_sharing_ok || return 1
		if [ "$DCGM_EXPORTER" = 1 ]; then
			kubectl_admin get daemonset dcgm-exporter >/dev/null 2>&1 ||
				prov_why "the DCGM exporter is not installed" || return 1
		fi
	fi
	k8s_join_ok
}

k8s_control_apply() {
	if [ ! -f "$K8S_ADMIN" ]; then
		set -- --node-name="$NODE_NAME" --apiserver-advertise-address="$NODE_ADDR"
		if [ -n "$K8S_POD_CIDR" ]; then
			set -- "$@" --pod-network-cidr="$K8S_POD_CIDR"
		fi
		# Offline, a version like 1.30 is the bundled kubeadm's own
		# (kubeadm would ask dl.k8s.io for the latest 1.30.x): the
		# bundle holds the control-plane images of that one.
		case $K8S_VERSION in
		*.*.*) set -- "$@" --kubernetes-version="v$K8S_VERSION" ;;
		*) if apt_offline; then set -- "$@" --kubernetes-version="$(kubeadm version -o short)"; fi ;;
		esac
		prov_log "kubeadm init $*"
		kubeadm init "$@" >&2
		prov_changed
	fi
	prov_wait 120 k8s_ready ||
		prov_fail "the API server does not become ready"
	case $K8S_CNI in
	calico)
		if [ -n "$K8S_POD_CIDR" ]; then
			k8s_apply_manifest "$K8S_CALICO" kube-system calico-node \
				'# - name: CALICO_IPV4POOL_CIDR' '- name: CALICO_IPV4POOL_CIDR' \
				'#   value: "192.168.0.0/16"' "  value: \"$K8S_POD_CIDR\""
		else
			k8s_apply_manifest "$K8S_CALICO" kube-system calico-node
		fi
		;;
	*)
		if [ -n "$K8S_POD_CIDR" ]; then
			k8s_apply_manifest "$K8S_FLANNEL" kube-flannel kube-flannel-ds 10.244.0.0/16 "$K8S_POD_CIDR"
		else
			k8s_apply_manifest "$K8S_FLANNEL" kube-flannel kube-flannel-ds
		fi
		;;
	esac
	if [ "${CLUSTER_GPUS:-0}" -gt 0 ]; then
		k8s_apply_manifest "$K8S_DEVICE_PLUGIN" kube-system nvidia-device-plugin-daemonset
		k8s_sharing_ok 2>/dev/null || k8s_sharing_put
		if [ "$DCGM_EXPORTER" = 1 ]; then
			k8s_apply_manifest "$K8S_DCGM_EXPORTER" default dcgm-exporter
		fi
	fi
	if ! k8s_join_ok 2>/dev/null; then
		dir_put "$PROV_OUT_DIR" 0700 root:root
		(umask 077 && kubeadm token create --print-join-command >"$K8S_OUT.new") &&
			mv -f "$K8S_OUT.new" "$K8S_OUT"
		prov_changed
	fi
	k8s_join_secret "$K8S_OUT"
}

k8s_worker_ok() {
	[ -f "$K8S_KUBELET" ] || prov_why "this node has not joined" || return 1
	systemctl is-active --quiet kubelet || prov_why "kubelet is not running"
}

# JoinConfiguration from "kubeadm join HOST:PORT --token T
# --discovery-token-ca-cert-hash sha256:H", in the secret folder.
k8s_worker_apply() {
	[ -f "$K8S_KUBELET" ] && { systemctl is-active --quiet kubelet || { systemctl restart kubelet; prov_changed; }; return 0; }
	_kwa_in=${PROV_SECRET_DIR:-/nonexistent}/join
	[ -s "$_kwa_in" ] || prov_fail "no join command from the control plane in PROV_SECRET_DIR"
	k8s_join_secret "$_kwa_in"
	_kwa_ep=$(awk '{ for (i = 1; i <= NF; i++) if ($i == "join") { print $(i + 1); exit } }' "$_kwa_in")
	_kwa_tok=$(sed -n 's/.*--token \([^ ]*\).*/\1/p' "$_kwa_in")
	_kwa_hash=$(sed -n 's/.*--discovery-token-ca-cert-hash \([^ ]*\).*/\1/p' "$_kwa_in")
	if [ -z "$_kwa_ep" ] || [ -z "$_kwa_tok" ] || [ -z "$_kwa_hash" ]; then
		prov_fail "the join command from the control plane is not of the form kubeadm join HOST:PORT --token T --discovery-token-ca-cert-hash H"
	fi
	case $(k8s_minor) in
	1.2[0-9] | 1.30) _kwa_api=kubeadm.k8s.io/v1beta3 ;;
	*) _kwa_api=kubeadm.k8s.io/v1beta4 ;;
	esac
	(umask 077 && cat >"$PROV_SECRET_DIR/join.yaml" <<EOF
apiVersion: $_kwa_api
kind: JoinConfiguration
discovery:
  bootstrapToken:
    apiServerEndpoint: "$_kwa_ep"
    token: "$_kwa_tok"
    caCertHashes: ["$_kwa_hash"]
nodeRegistration:
  name: "$NODE_NAME"
EOF
	)
	prov_log "kubeadm join $_kwa_ep"
	kubeadm join --config "$PROV_SECRET_DIR/join.yaml" >&2
	prov_changed
}

step_check() {
	k8s_applies
	# shellcheck disable=SC2046
	pkgs_installed $(step_packages) || return 1
	k8s_prereqs_ok || return 1
	if [ "$K8S_ROLE" = control-plane ]; then
		k8s_control_ok
	else
		k8s_worker_ok
	fi
}

step_apply() {
	k8s_install
	k8s_prereqs_put
	if ! systemctl is-enabled --quiet kubelet; then
		systemctl enable kubelet >&2
		prov_changed
	fi
	if [ "$K8S_ROLE" = control-plane ]; then
		k8s_control_apply
	else
		k8s_worker_apply
	fi
}

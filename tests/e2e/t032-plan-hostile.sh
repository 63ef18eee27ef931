#!/bin/sh
# t032-plan-hostile: no plan value runs code.  Every string field of the
# plan schema (plan_schema_walk(), so a new field is covered without a
# change here) gets hostile values: quotes, $(), backquotes, ; | &&, line
# ends, control bytes, ../, sed's `e` and `&`, awk's system(), an option,
# 64 KiB.  tests/unit/test_plan.c (test_plan_schema_hostile) writes each
# such plan from tests/fixtures/plan/every-key/plan.yaml; here the binary
# must either refuse it at load (exit 2, the error located at the value)
# or render it: `apply --dry-run` (Kubernetes and Slurm) and `pxe`
# (Debian, Ubuntu, Rocky).  A rendering that differs from the untouched
# plan's is run, every step of every node, as root in a sandbox: a
# throw-away overlay of this machine's root, no network, stubs for package
# managers, systemd and the Kubernetes tools.  Each hostile value creates
# /pwned.* if anything executes it; one such file fails the test.  The
# untouched plan's steps run there too, and so do steps whose variables
# are replaced by hostile values after rendering (what the templates do
# with a value the plan checks would not let through).
#
#   sh tests/e2e/t032-plan-hostile.sh
#
# Needs root, unshare and overlayfs (exit 77 without them), and the unit
# test binary test_plan beside the provision binary (make unit builds it).
# SAN=1: not run: a thousand loads and renders under the sanitizers took
#   nine minutes; fuzz_plan and fuzz_render run the same code under ASan
#   and UBSan on far more hostile input

. "$(dirname "$0")/lib.sh"
set -u

[ "$(id -u)" = 0 ] || skip_all "t032 needs root (its sandbox mounts an overlay)"
command -v unshare >/dev/null 2>&1 || skip_all "t032 needs unshare (util-linux)"
TESTBIN=${TEST_PLAN:-$(dirname "$PROVISION")/tests/test_plan}
[ -x "$TESTBIN" ] || TESTBIN=$TOP/build/tests/test_plan
[ -x "$TESTBIN" ] || skip_all "no $TESTBIN: run make unit first"

# On tmpfs when there is one: a thousand renders, each synced to disk.
W=$(mktemp -d /dev/shm/t032.XXXXXX 2>/dev/null) || W=$(mktemp -d /tmp/t032.XXXXXX) || exit 1
trap 'rm -rf "$W"' EXIT
trap 'exit 130' INT TERM
FIX=$TOP/tests/fixtures/plan/every-key
M=$W/m
mkdir -p "$M" "$W/r" "$W/p" "$W/stubs" "$W/sb"
cp -R "$FIX/." "$M/"
rm -f "$M/plan.yaml"

unshare -m -n sh -c 'mount -t tmpfs t "$1" && mkdir "$1/u" "$1/w" "$1/r" &&
	mount -t overlay o -o "lowerdir=/,upperdir=$1/u,workdir=$1/w" "$1/r"' \
	- "$W/sb" 2>/dev/null || skip_all "no overlayfs in a mount namespace here"

# ------------------------------------------------------------------ sandbox

# Stubs, first on the steps' PATH (/usr/local/sbin): nothing installs,
# starts or downloads; each answers what a step goes on with.
for c in apt-get apt-cache apt-mark dpkg dnf rpm systemctl modprobe sysctl \
	swapoff nvidia-smi nvidia-ctk ctr docker dockerd kubelet munge mungekey \
	slurmctld slurmd scontrol sinfo srun prometheus grafana-server \
	node_exporter prometheus-node-exporter dcgm-exporter dcgmi nv-hostengine \
	update-ca-certificates setsid hostnamectl timedatectl chronyc; do
	printf '#!/bin/sh\nexit 0\n' >"$W/stubs/$c"
done
printf '#!/bin/sh\nexit 0\n' >"$W/stubs/sleep"
cat >"$W/stubs/curl" <<'EOF'
#!/bin/sh
# a manifest with what the templates replace in the real ones
o=
while [ $# -gt 0 ]; do
	case $1 in -o) o=$2; shift ;; esac
	shift
done
body='# - name: CALICO_IPV4POOL_CIDR
#   value: "192.168.0.0/16"
  net-conf.json: |
    { "Network": "10.244.0.0/16" }'
if [ -n "$o" ]; then printf '%s\n' "$body" >"$o"; else printf '%s\n' "$body"; fi
EOF
cp "$W/stubs/curl" "$W/stubs/wget"
cat >"$W/stubs/kubectl" <<'EOF'
#!/bin/sh
case $* in
*readyz*) echo ok ;;
*" apply "*) cat "${*##* }" >>/var/tmp/applied ;;
*) exit 1 ;;
esac
EOF
cat >"$W/stubs/kubeadm" <<'EOF'
#!/bin/sh
case $* in
init*) mkdir -p /etc/kubernetes && : >/etc/kubernetes/admin.conf ;;
*"token create"*) echo "kubeadm join 192.0.2.10:6443 --token abcdef.0123456789abcdef --discovery-token-ca-cert-hash sha256:00" ;;
version*) echo v1.30.0 ;;
esac
exit 0
EOF
cat >"$W/stubs/containerd" <<'EOF'
#!/bin/sh
[ "$*" = "config default" ] || exit 0
printf '%s\n' 'version = 2' '[plugins."io.containerd.grpc.v1.cri"]' \
	'  sandbox_image = "registry.k8s.io/pause:3.6"' \
	'  [plugins."io.containerd.grpc.v1.cri".registry]' '    config_path = ""' \
	'  [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc.options]' \
	'    SystemdCgroup = false'
EOF
chmod 0755 "$W/stubs"/*

# sandbox DIR: run DIR/*.sh in order in a fresh sandbox; print the canary
# files (any /pwned.*) that appeared, and nothing else.
sandbox() {
	rm -rf "$W/steps" && cp -R "$1" "$W/steps" || return 1
	unshare -m -n -p -f sh -c '
		W=$1
		mount --make-rprivate /
		mount -t tmpfs t "$W/sb" || exit 1
		mkdir "$W/sb/u" "$W/sb/w" "$W/sb/r"
		mount -t overlay o -o "lowerdir=/,upperdir=$W/sb/u,workdir=$W/sb/w" "$W/sb/r" || exit 1
		R=$W/sb/r
		mount -t proc proc "$R/proc"
		mount --rbind /dev "$R/dev"
		cp "$W"/stubs/* "$R/usr/local/sbin/"
		mkdir -p "$R/run/systemd/system" "$R/fakedpkg/updates" "$R/fakepci/0000:01:00.0" "$R/steps"
		: >"$R/fakedpkg/status"
		echo 0x10de >"$R/fakepci/0000:01:00.0/vendor"
		echo 0x030200 >"$R/fakepci/0000:01:00.0/class"
		cp "$W"/steps/* "$R/steps/"
		for s in "$R"/steps/*.sh; do
			chroot "$R" env -i PROV_PCI_DIR=/fakepci PROV_DPKG_DIR=/fakedpkg \
				PATH=/usr/local/sbin:/usr/bin:/bin timeout 60 sh "/steps/${s##*/}" \
				</dev/null >>"$W/steps.log" 2>&1
		done
		find "$W/sb/u" -name "pwned*" | sed "s|^$W/sb/u||"
	' - "$W"
}

# run_all TREE: every node's steps of a dry-run tree in its own sandbox.
run_all() {
	for _ra in "$1"/*/; do
		sandbox "$_ra"
	done
}

# run_changed BASE TREE: as run_all, but only the nodes whose steps differ
# from BASE's (the untouched plan's, already run without a canary): a
# node rendered the same cannot hold the hostile value.
run_changed() {
	for _rc in "$2"/*/; do
		_rn=${_rc%/}
		diff -r "$_rc" "$1/${_rn##*/}" >/dev/null 2>&1 || sandbox "$_rc"
	done
}

# ------------------------------------------------------------------ renders

# render NAME PLAN: apply --dry-run into $W/r/NAME, exit status in $rc.
render() {
	"$PROVISION" apply --dry-run "$W/r/$1" "$2" >"$W/r/$1.out" 2>"$W/r/$1.err"
	rc=$?
}

# pxe NAME PLAN: pxe into $W/p/NAME; its exit status (a refusal is fine).
# Always rendered in one place: dnsmasq.conf names its folder.
pxe() {
	rm -rf "$W/p/cur" "$W/p/$1"
	"$PROVISION" pxe -o "$W/p/cur" "$2" >/dev/null 2>&1 || return 1
	mv "$W/p/cur" "$W/p/$1"
}

# The untouched plan, in the same variants as the hostile ones.
# The plan's orchestrator is Slurm ('scheduling' needs it); its Kubernetes
# variant has that block made comments, as test_plan writes the hostile ones.
sed '1i # base' "$FIX/plan.yaml" >"$M/base-slurm.yaml"
sed -e 's/^    kind: slurm$/    kind: kubernetes/' \
	-e '/^scheduling:/,/^[^ ]/{/^scheduling:/s/^./#/;/^ /s/^./#/}' \
	"$M/base-slurm.yaml" >"$M/base-k8s.yaml"
sed 's/^    distro: debian$/    distro: ubuntu/; s/^    release: "12"$/    release: "22.04"/' \
	"$M/base-slurm.yaml" >"$M/base-ubuntu.yaml"
sed 's/^    distro: debian$/    distro: rocky/; s/^    release: "12"$/    release: "9"/' \
	"$M/base-slurm.yaml" >"$M/base-rocky.yaml"
base_ok=0
render base-k8s "$M/base-k8s.yaml" && [ "$rc" = 0 ] &&
	render base-slurm "$M/base-slurm.yaml" && [ "$rc" = 0 ] &&
	pxe base-k8s "$M/base-k8s.yaml" && pxe base-ubuntu "$M/base-ubuntu.yaml" &&
	pxe base-rocky "$M/base-rocky.yaml" && base_ok=1
check "the untouched plan renders (apply --dry-run, pxe)" [ "$base_ok" = 1 ]
[ "$base_ok" = 1 ] || { sed 's/^/#   /' "$W/r/base-k8s.err"; done_testing; exit 1; }

canary=$(run_all "$W/r/base-k8s"; run_all "$W/r/base-slurm")
check "the untouched plan's steps run in the sandbox, and nothing makes a canary" \
	[ -z "$canary" ]
check "the sandbox reaches the Kubernetes manifests" \
	grep -q 'applied\|kubeadm' "$W/steps.log"

# ------------------------------------------------------------------ hostile

if ! PROV_HOSTILE_DIR=$M PROV_SRCDIR=$TOP CK_RUN_CASE=hostile CK_VERBOSITY=silent \
	"$TESTBIN" >"$W/unit.out" 2>&1; then
	not_ok "test_plan wrote the hostile plans"
	sed 's/^/#   /' "$W/unit.out" | head -n 20
fi

# Per field: refused at the value, or rendered the same as the untouched
# plan, or run in the sandbox without a canary.
fields=$(awk '{ print $4 }' "$M/index" | uniq)
nfields=0
for f in $fields; do
	nfields=$((nfields + 1))
	bad=
	refused=0
	inert=0
	ran=0
	while read -r num line col path; do
		[ "$path" = "$f" ] || continue
		plan=$M/$num-k8s.yaml
		render "$num" "$plan"
		if [ "$rc" = 2 ]; then
			if grep -q "^$plan:$line:$col: " "$W/r/$num.err"; then
				refused=$((refused + 1))
			else
				bad="$bad $num(refused elsewhere)"
			fi
			rm -rf "$W/r/$num"*
			continue
		fi
		if [ "$rc" != 0 ]; then
			bad="$bad $num(exit $rc)"
			continue
		fi
		render "$num-slurm" "$M/$num-slurm.yaml"
		same=1
		diff -r "$W/r/base-k8s" "$W/r/$num" >/dev/null 2>&1 || same=0
		diff -r "$W/r/base-slurm" "$W/r/$num-slurm" >/dev/null 2>&1 || same=0
		for v in k8s ubuntu rocky; do
			if pxe "$num-$v" "$M/$num-$v.yaml" &&
				! diff -r "$W/p/base-$v" "$W/p/$num-$v" >/dev/null 2>&1; then
				bad="$bad $num(reaches the pxe files)"
			fi
		done
		if [ "$same" = 1 ]; then
			inert=$((inert + 1))
		else
			ran=$((ran + 1))
			c=$(run_changed "$W/r/base-k8s" "$W/r/$num"
			    run_changed "$W/r/base-slurm" "$W/r/$num-slurm")
			[ -z "$c" ] || bad="$bad $num(canary:$(echo $c))"
		fi
		rm -rf "$W/r/$num" "$W/r/$num-slurm" "$W/p/$num"-*
	done <"$M/index"
	if [ -z "$bad" ]; then
		ok "$f: $refused refused at the value, $inert reach nothing, $ran run inert"
	else
		not_ok "$f:$bad"
	fi
done
check "every string field of the schema was fed (more than 40)" [ "$nfields" -gt 40 ]

# ------------------------------------------------------------------ templates

# What the templates do with a value the plan would refuse: rendered
# scripts with one variable replaced, run in the sandbox.
# Two values: sed reads its whole program before running it, so a line
# end in a value can hide the `e` of the same value.
H1="x'\"; touch /pwned.v1; \$(touch /pwned.v2) \`touch /pwned.v3\` |;e touch /pwned.v4;# \" ; system(\"touch /pwned.v5\") ; \"
touch /pwned.v6"
H2="10.244.0.0/16|;e touch /pwned.v7;#&\\1"
for case in kubernetes:K8S_POD_CIDR kubernetes:K8S_VERSION kubernetes:NODE_NAME \
	container-runtime:REGISTRY_MIRRORS container-runtime:REGISTRY_CA_1 \
	base:HOSTS_BLOCK base:NODE_ADDR gpu-driver:MIG_PROFILES \
	gpu-driver:DRIVER_VERSION extras:EXTRAS; do
	step=${case%%:*}
	var=${case#*:}
	c=
	for h in "$H1" "$H2"; do
		q=$(printf '%s' "$h" | sed "s/'/'\\\\''/g")
		rm -rf "$W/one" && mkdir "$W/one"
		for s in "$W/r/base-k8s/head-01/"*"-$step.sh"; do
			# the value may span lines: drop the old assignment whole
			V=$var Q=$q awk '
				BEGIN { v = ENVIRON["V"]; q = ENVIRON["Q"] }
				index($0, v "=\x27") == 1 { skip = 1; print v "=\x27" q "\x27"; }
				skip { if ($0 ~ /\x27$/ && !($0 ~ /\x27\\\x27\x27$/)) skip = 0; next }
				{ print }' "$s" >"$W/one/${s##*/}"
		done
		grep -q "touch /pwned.v" "$W/one/"*.sh 2>/dev/null || c="$c (no $var in step $step)"
		c="$c$(sandbox "$W/one")"
	done
	check "$var in step $step holding hostile text runs nothing${c:+: $c}" [ -z "$c" ]
done

done_testing

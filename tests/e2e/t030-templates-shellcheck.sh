#!/bin/sh
# t030-templates-shellcheck: every step template, rendered by
# scripts/render-step exactly as `provision apply` renders it, for nodes of
# each kind (head and worker, GPU and not, each distribution, Slurm and
# Kubernetes), and the scripts facts and verify run on a node
# (templates/remote/), pass `shellcheck -s sh` and `dash -n`; values with
# quotes, `$(...)`, backquotes and newlines reach the script unchanged.
#
#   sh tests/e2e/t030-templates-shellcheck.sh
#
# Needs shellcheck and dash (exit 77 without them).  No root, no network.
# SAN=1: not run: shellcheck and dash read the rendered steps: rendering
#   is t032's

set -u

top=$(cd "$(dirname "$0")/../.." && pwd)
render=$top/scripts/render-step
tdir=$top/templates

for c in shellcheck dash bash; do
	if ! command -v "$c" >/dev/null 2>&1; then
		echo "# skip: t030 needs $c"
		echo "0 passed, 0 failed, 1 skipped"
		exit 77
	fi
done

work=$(mktemp -d /tmp/t030.XXXXXX) || exit 1
trap 'rm -rf "$work"' EXIT
trap 'exit 130' INT TERM

num=0
passed=0
failed=0

ok() {
	num=$((num + 1))
	passed=$((passed + 1))
	echo "ok $num - $1"
}

not_ok() {
	num=$((num + 1))
	failed=$((failed + 1))
	echo "not ok $num - $1"
	if [ -s "$work/out" ]; then
		sed 's/^/#   /' "$work/out" | head -n 40
	fi
}

check() {
	desc=$1
	shift
	if "$@" >"$work/out" 2>&1; then ok "$desc"; else not_ok "$desc"; fi
}

# ------------------------------------------------------------------ values

cat >"$work/hosts" <<'EOF'
10.0.0.10 head-01.lab.internal head-01
10.0.0.11 gpu-01.lab.internal gpu-01
10.0.0.12 gpu-02.lab.internal gpu-02
EOF
cat >"$work/slurm.conf" <<'EOF'
# it's the lab's cluster: $(not a command) `nor this`
ClusterName=lab
SlurmctldHost=head-01(10.0.0.10)
SlurmUser=slurm
AuthType=auth/munge
ProctrackType=proctrack/cgroup
TaskPlugin=task/cgroup,task/affinity
StateSaveLocation=/var/lib/slurm/slurmctld
SlurmdSpoolDir=/var/lib/slurm/slurmd
SlurmctldLogFile=/var/log/slurm/slurmctld.log
SlurmdLogFile=/var/log/slurm/slurmd.log
SelectType=select/cons_tres
GresTypes=gpu
NodeName=gpu-[01-02] NodeAddr=10.0.0.[11-12] CPUs=128 RealMemory=1031000 Gres=gpu:a100:8 State=UNKNOWN
PartitionName=gpu Nodes=gpu-[01-02] Default=YES MaxTime=INFINITE State=UP
EOF
printf 'NodeName=gpu-[01-02] Name=gpu Type=a100 File=/dev/nvidia[0-7]\n' >"$work/gres.conf"
printf 'ConstrainCores=yes\nConstrainDevices=yes\nConstrainRAMSpace=yes\n' >"$work/cgroup.conf"
cat >"$work/prometheus.yml" <<'EOF'
global: { scrape_interval: 15s }
scrape_configs:
  - job_name: node
    static_configs: [ { targets: ['10.0.0.10:9100', '10.0.0.11:9100', '10.0.0.12:9100'] } ]
  - job_name: dcgm
    static_configs: [ { targets: ['10.0.0.11:9400', '10.0.0.12:9400'] } ]
EOF

common="CLUSTER_NAME=lab CLUSTER_DOMAIN=lab.internal HEAD_NAME=head-01 HEAD_ADDR=10.0.0.10
DRIVER_BRANCH=550 CUDA_VERSION=12.4 CLUSTER_GPUS=16 NODE_EXPORTER=1
PROMETHEUS_ADDR=10.0.0.10 EXTRAS=python3+jupyter+pytorch PROV_SECRET_DIR=/run/provision-secret.Ab12"

# profile NAME: the preamble variables of one kind of node.
profile() {
	case $1 in
	debian-head)
		echo "NODE_NAME=head-01 NODE_ROLE=head NODE_ADDR=10.0.0.10 OS_DISTRO=debian OS_RELEASE=12
PLANNED_GPUS=0 RUNTIME=none NVIDIA_TOOLKIT=0 ORCHESTRATOR=slurm SLURM_ROLE=controller
DCGM_EXPORTER=0 PROMETHEUS_HOST=1 GRAFANA_HOST=1" ;;
	debian-gpu-worker)
		echo "NODE_NAME=gpu-01 NODE_ROLE=worker NODE_ADDR=10.0.0.11 OS_DISTRO=debian OS_RELEASE=12
PLANNED_GPUS=8 RUNTIME=docker NVIDIA_TOOLKIT=1 ORCHESTRATOR=slurm SLURM_ROLE=compute
DCGM_EXPORTER=1 PROMETHEUS_HOST=0 GRAFANA_HOST=0" ;;
	ubuntu2204-gpu-mig)
		echo "NODE_NAME=gpu-02 NODE_ROLE=worker NODE_ADDR=10.0.0.12 OS_DISTRO=ubuntu OS_RELEASE=22.04
PLANNED_GPUS=8 MIG_PROFILES=3g.40gb+3g.40gb RUNTIME=containerd NVIDIA_TOOLKIT=1
ORCHESTRATOR=kubernetes K8S_VERSION=1.30 K8S_POD_CIDR=10.244.0.0/16 K8S_CNI=flannel
K8S_ROLE=worker DCGM_EXPORTER=1 PROMETHEUS_HOST=0 GRAFANA_HOST=0" ;;
	ubuntu2404-control-plane)
		echo "NODE_NAME=head-01 NODE_ROLE=head NODE_ADDR=10.0.0.10 OS_DISTRO=ubuntu OS_RELEASE=24.04
PLANNED_GPUS=0 RUNTIME=containerd NVIDIA_TOOLKIT=1 ORCHESTRATOR=kubernetes
K8S_VERSION=1.31.2 K8S_POD_CIDR=192.168.0.0/16 K8S_CNI=calico K8S_ROLE=control-plane
DCGM_EXPORTER=1 PROMETHEUS_HOST=1 GRAFANA_HOST=1" ;;
	rocky9-gpu-worker)
		echo "NODE_NAME=gpu-02 NODE_ROLE=worker NODE_ADDR=10.0.0.12 OS_DISTRO=rocky OS_RELEASE=9
PLANNED_GPUS=4 RUNTIME=apptainer NVIDIA_TOOLKIT=1 ORCHESTRATOR=slurm SLURM_ROLE=compute
DCGM_EXPORTER=1 PROMETHEUS_HOST=0 GRAFANA_HOST=0" ;;
	esac
}
profiles="debian-head debian-gpu-worker ubuntu2204-gpu-mig ubuntu2404-control-plane rocky9-gpu-worker"

# MIG_PROFILES and EXTRAS hold blanks: written with '+' above, turned into
# blanks here (the profile lines are split on blanks).
render() {
	step=$1
	prof=$2
	# shellcheck disable=SC2046,SC2086
	set -- $(profile "$prof") $common
	for a in "$@"; do
		case $a in
		MIG_PROFILES=* | EXTRAS=*) a=$(echo "$a" | tr + ' ') ;;
		esac
		printf '%s\n' "$a"
	done >"$work/args"
	{
		cat "$work/args"
		echo "HOSTS_BLOCK@=$work/hosts"
		echo "SLURM_CONF@=$work/slurm.conf"
		echo "GRES_CONF@=$work/gres.conf"
		echo "CGROUP_CONF@=$work/cgroup.conf"
		echo "PROMETHEUS_CONF@=$work/prometheus.yml"
	} >"$work/args.all"
	# one argument per line, blanks kept
	tr '\n' '\0' <"$work/args.all" | xargs -0 "$render" "$step"
}

# Every file but lib.sh and reboot.sh (apply's reboots, sent alone) is a step.
steps=
for f in "$tdir"/*.sh; do
	s=$(basename "$f" .sh)
	case $s in
	lib | reboot) ;;
	*) steps="$steps $s" ;;
	esac
done
check "reboot.sh: shellcheck -s sh" shellcheck -s sh "$tdir/reboot.sh"
check "reboot.sh: dash -n" dash -n "$tdir/reboot.sh"
# The prolog/epilog the slurm step installs (slurm_jobmap_script).
jobmap_script() {
	dash -c '. "$1/lib.sh" && . "$1/slurm.sh" && slurm_jobmap_script' sh "$tdir" >"$work/jobmap.sh" &&
		shellcheck -s sh "$work/jobmap.sh" && dash -n "$work/jobmap.sh"
}
check "slurm.sh's prolog/epilog script: shellcheck -s sh, dash -n" jobmap_script

# shellcheck disable=SC2016
check "templates/ has the steps of docs/templates.md" sh -c '
	for s in base gpu-driver container-runtime munge slurm kubernetes node-exporter \
		prometheus dcgm-exporter grafana extras; do
		case " $1 " in *" $s "*) ;; *) echo "missing templates/$s.sh"; exit 1 ;; esac
	done' sh "$steps"

for s in $steps; do
	for p in $profiles; do
		out=$work/$s.$p.sh
		if ! render "$s" "$p" >"$out" 2>"$work/out"; then
			not_ok "render $s for $p"
			continue
		fi
		check "$s ($p): shellcheck -s sh" shellcheck -s sh "$out"
	done
	# dash parses it (one profile is enough: the text is the same)
	check "$s: dash -n" dash -n "$work/$s.debian-head.sh"
	# shellcheck disable=SC2016
	check "$s: defines step_check and step_apply, ends with the runner" sh -c '
		grep -q "^step_check() {" "$1" && grep -q "^step_apply() {" "$1" &&
		[ "$(tail -n 1 "$1")" = prov_run_step ]' sh "$work/$s.debian-head.sh"
done

# ------------------------------------------------------------------ remote

# The scripts facts and verify run on a node (embedded in the binary at
# build time) are shell like the steps: shellcheck and dash read them.
for f in "$tdir"/remote/*.sh; do
	r=remote/$(basename "$f")
	check "$r: shellcheck -s sh" shellcheck -s sh "$f"
	check "$r: dash -n" dash -n "$f"
done
# shellcheck disable=SC2016
check "remote/verify.sh has the line the facts script is spliced at" sh -c '
	[ "$(grep -c "^#@facts@\$" "$1")" -eq 1 ]' sh "$tdir/remote/verify.sh"

# ------------------------------------------------------------------ quoting

# A template that prints its variables back: the rendered preamble must
# carry every byte.
mkdir -p "$work/tpl"
cp "$tdir/lib.sh" "$work/tpl/lib.sh"
cat >"$work/tpl/echo.sh" <<'EOF'
step_check() {
	printf '%s' "$NODE_NAME" >"$T030_DIR/got.name"
	printf '%s' "$SLURM_CONF" >"$T030_DIR/got.conf"
	printf '%s' "$CLUSTER_DOMAIN" >"$T030_DIR/got.empty"
	prov_skip "echo"
}
step_apply() { :; }
EOF
weird="it's \$(touch $work/pwned) \`touch $work/pwned\` \"q\" \\ * ?"
# shellcheck disable=SC2016
printf 'a\n\n b'"'"'c $HOME\n' >"$work/weird.conf"
quoting() {
	"$render" -t "$work/tpl" echo "NODE_NAME=$weird" "SLURM_CONF@=$work/weird.conf" >"$work/echo.sh" || return 1
	shellcheck -s sh "$work/echo.sh" || return 1
	T030_DIR=$work dash "$work/echo.sh"
	rc=$?
	echo "exit $rc"
	[ "$rc" -eq 101 ] || return 1
	[ ! -e "$work/pwned" ] || { echo "a value ran as a command"; return 1; }
	[ "$(cat "$work/got.name")" = "$weird" ] || { echo "NODE_NAME came back as: $(cat "$work/got.name")"; return 1; }
	want=$(cat "$work/weird.conf"; printf x)
	got=$(cat "$work/got.conf"; echo; printf x)
	[ "$got" = "$want" ] || { echo "SLURM_CONF came back as: $got"; return 1; }
	[ ! -s "$work/got.empty" ]
}
check "values with quotes, \$(...), backquotes and newlines arrive unchanged" quoting

unknown_var() {
	! "$render" base NODE_NAMEE=x 2>&1 && "$render" base NODE_NAMEE=x 2>&1 | grep -q "unknown variable 'NODE_NAMEE'"
}
check "render-step refuses a variable docs/templates.md does not list" unknown_var

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]

# shellcheck shell=sh
# templates/dcgm-exporter.sh: NVIDIA's DCGM exporter on GPU nodes
# (DCGM_EXPORTER=1), on NODE_ADDR:9400 for Prometheus.  It ships as a
# container image: with RUNTIME=docker it runs as a container here (the
# NVIDIA container toolkit gives it the GPUs); on Kubernetes the control
# plane deploys it as a DaemonSet (step kubernetes); other runtimes cannot
# run it and the step says so.  Offline (apply --bundle) the container
# runs the bundle's image by its ID (lib.sh image_ref), never a tag a
# registry or anyone on the node could have pointed elsewhere.
#
# On Slurm compute nodes the exporter reads the GPU -> job files that
# Slurm's prolog and epilog keep in DCGM_JOB_MAP_DIR (step slurm), mounted
# read-only, and labels each GPU's metrics with its jobs (hpc_job), which
# `provision usage` joins to Slurm's accounting.

DCGM_IMAGE=nvcr.io/nvidia/k8s/dcgm-exporter:3.3.5-3.4.1-ubuntu22.04
DCGM_PORT=9400
DCGM_NAME=dcgm-exporter

dcgm_applies() {
	[ "$DCGM_EXPORTER" = 1 ] || prov_skip "DCGM exporter is off in the plan"
	has_nvidia_gpu || prov_skip "no NVIDIA device"
	[ "$ORCHESTRATOR" != kubernetes ] ||
		prov_skip "on Kubernetes the control plane runs it as a DaemonSet (step kubernetes)"
	[ "$RUNTIME" = docker ] ||
		prov_skip "the DCGM exporter ships as a container image; it needs container runtime docker (the plan has '${RUNTIME:-none}')"
	[ -n "$NODE_ADDR" ] || prov_fail "NODE_ADDR is empty"
}

# The container exists, runs our image and publishes our address.
dcgm_container_ok() {
	_dco=$(docker inspect -f '{{.State.Running}} {{.Config.Image}} {{range $p, $b := .HostConfig.PortBindings}}{{range $b}}{{.HostIp}}:{{.HostPort}}{{end}}{{end}}' "$DCGM_NAME" 2>/dev/null) ||
		prov_why "no container $DCGM_NAME" || return 1
	[ "$_dco" = "true $(image_ref "$DCGM_IMAGE") $NODE_ADDR:$DCGM_PORT" ] || prov_why "container $DCGM_NAME is '$_dco'"
}

# Does this node's slurmd keep the job mapping (step slurm)?
dcgm_job_map() {
	[ "$ORCHESTRATOR" = slurm ] && [ "$SLURM_ROLE" = compute ]
}

# The container reads the job mapping exactly when this node keeps one.
dcgm_job_map_ok() {
	_djm_env=$(docker inspect -f '{{range .Config.Env}}{{println .}}{{end}}' "$DCGM_NAME") || return 1
	_djm_mnt=$(docker inspect -f '{{range .Mounts}}{{println .Source .Destination .RW}}{{end}}' "$DCGM_NAME") || return 1
	if dcgm_job_map; then
		printf '%s\n' "$_djm_env" | grep -qx "DCGM_HPC_JOB_MAPPING_DIR=$DCGM_JOB_MAP_DIR" ||
			prov_why "container $DCGM_NAME lacks DCGM_HPC_JOB_MAPPING_DIR=$DCGM_JOB_MAP_DIR" || return 1
		printf '%s\n' "$_djm_mnt" | grep -qx "$DCGM_JOB_MAP_DIR $DCGM_JOB_MAP_DIR false" ||
			prov_why "container $DCGM_NAME does not mount $DCGM_JOB_MAP_DIR read-only" || return 1
	elif printf '%s\n' "$_djm_env" | grep -q '^DCGM_HPC_JOB_MAPPING_DIR='; then
		prov_why "container $DCGM_NAME reads a job mapping this node does not keep"
		return 1
	fi
	return 0
}

dcgm_answers() {
	http_get "http://$NODE_ADDR:$DCGM_PORT/metrics" 2>/dev/null | grep -q '^DCGM_FI_'
}

step_check() {
	dcgm_applies
	command -v docker >/dev/null 2>&1 || prov_why "docker is missing (step container-runtime)" || return 1
	dcgm_container_ok || return 1
	dcgm_job_map_ok || return 1
	dcgm_answers || prov_why "no DCGM metrics at http://$NODE_ADDR:$DCGM_PORT/metrics"
}

step_apply() {
	docker info >/dev/null 2>&1 || prov_fail "docker does not answer (step container-runtime)"
	if docker inspect "$DCGM_NAME" >/dev/null 2>&1; then
		docker rm -f "$DCGM_NAME" >&2
	fi
	_dca=$(image_ref "$DCGM_IMAGE")
	# the flag's environment variable (--hpc-job-mapping-dir): the
	# image's command line stays its own
	set --
	if dcgm_job_map; then
		set -- -v "$DCGM_JOB_MAP_DIR:$DCGM_JOB_MAP_DIR:ro" \
			-e "DCGM_HPC_JOB_MAPPING_DIR=$DCGM_JOB_MAP_DIR"
	fi
	prov_log "docker run $_dca ($DCGM_IMAGE)"
	docker run -d --name "$DCGM_NAME" --restart unless-stopped --gpus all \
		--cap-add SYS_ADMIN -p "$NODE_ADDR:$DCGM_PORT:$DCGM_PORT" "$@" "$_dca" >&2
	prov_changed
	prov_wait 60 dcgm_answers || prov_fail "the DCGM exporter does not answer on $NODE_ADDR:$DCGM_PORT"
}

# shellcheck shell=sh
# templates/dcgm-exporter.sh: NVIDIA's DCGM exporter on GPU nodes
# (DCGM_EXPORTER=1), on NODE_ADDR:9400 for Prometheus.  It ships as a
# container image: with RUNTIME=docker it runs as a container here (the
# NVIDIA container toolkit gives it the GPUs); on Kubernetes the control
# plane deploys it as a DaemonSet (step kubernetes); other runtimes cannot
# run it and the step says so.  Offline (apply --bundle) the container
# runs the bundle's image by its ID (lib.sh image_ref), never a tag a
# registry or anyone on the node could have pointed elsewhere.

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

dcgm_answers() {
	http_get "http://$NODE_ADDR:$DCGM_PORT/metrics" 2>/dev/null | grep -q '^DCGM_FI_'
}

step_check() {
	dcgm_applies
	command -v docker >/dev/null 2>&1 || prov_why "docker is missing (step container-runtime)" || return 1
	dcgm_container_ok || return 1
	dcgm_answers || prov_why "no DCGM metrics at http://$NODE_ADDR:$DCGM_PORT/metrics"
}

step_apply() {
	docker info >/dev/null 2>&1 || prov_fail "docker does not answer (step container-runtime)"
	if docker inspect "$DCGM_NAME" >/dev/null 2>&1; then
		docker rm -f "$DCGM_NAME" >&2
	fi
	_dca=$(image_ref "$DCGM_IMAGE")
	prov_log "docker run $_dca ($DCGM_IMAGE)"
	docker run -d --name "$DCGM_NAME" --restart unless-stopped --gpus all \
		--cap-add SYS_ADMIN -p "$NODE_ADDR:$DCGM_PORT:$DCGM_PORT" "$_dca" >&2
	prov_changed
	prov_wait 60 dcgm_answers || prov_fail "the DCGM exporter does not answer on $NODE_ADDR:$DCGM_PORT"
}

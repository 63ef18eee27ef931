# shellcheck shell=sh
# templates/node-exporter.sh: Prometheus node exporter on every node,
# listening on the node's own address (NODE_ADDR:9100): nodes that share a
# network namespace (the testbed) would otherwise fight over one port.

NE_PORT=9100

ne_applies() {
	[ "$NODE_EXPORTER" = 1 ] || prov_skip "node exporter is off in the plan"
	[ -n "$NODE_ADDR" ] || prov_fail "NODE_ADDR is empty"
}

# Debian and Ubuntu package it with a unit reading /etc/default; Rocky has
# it in EPEL under another name, run by our own unit.
ne_pkg() {
	if [ "$PROV_OS_FAMILY" = rhel ]; then
		echo golang-github-prometheus-node-exporter
	else
		echo prometheus-node-exporter
	fi
}

ne_bin() {
	if [ "$PROV_OS_FAMILY" = rhel ]; then
		echo /usr/bin/node_exporter
	else
		echo /usr/bin/prometheus-node-exporter
	fi
}

ne_args() {
	echo "--web.listen-address=$NODE_ADDR:$NE_PORT"
}

NE_DEFAULT=/etc/default/prometheus-node-exporter

ne_default() {
	echo "# Managed by provision (step node-exporter)."
	echo "ARGS=\"$(ne_args)\""
}

ne_svc() {
	if [ "$PROV_OS_FAMILY" = rhel ]; then
		"$1" -o -u prometheus provision-node-exporter -- "$(ne_bin)" "$(ne_args)"
	else
		"$1" -u prometheus -f "$NE_DEFAULT" prometheus-node-exporter -- "$(ne_bin)" "$(ne_args)"
	fi
}

ne_answers() {
	http_get "http://$NODE_ADDR:$NE_PORT/metrics" 2>/dev/null | grep -q '^node_exporter_build_info'
}

step_check() {
	ne_applies
	pkg_installed "$(ne_pkg)" || return 1
	if [ "$PROV_OS_FAMILY" != rhel ]; then
		file_same "$NE_DEFAULT" 0644 root:root "$(ne_default)" || return 1
	fi
	ne_svc svc_running || return 1
	ne_answers || prov_why "no metrics at http://$NODE_ADDR:$NE_PORT/metrics"
}

step_apply() {
	if [ "$PROV_OS_FAMILY" = rhel ]; then
		rhel_epel
	fi
	pkg_install "$(ne_pkg)"
	if [ "$PROV_OS_FAMILY" != rhel ]; then
		file_put "$NE_DEFAULT" 0644 root:root "$(ne_default)"
	fi
	ne_svc svc_start
	prov_wait 15 ne_answers || prov_fail "the node exporter does not answer on $NODE_ADDR:$NE_PORT"
}

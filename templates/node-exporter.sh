# shellcheck shell=sh
# templates/node-exporter.sh: Prometheus node exporter on every node,
# listening on the node's own address (NODE_ADDR:9100): nodes that share a
# network namespace (the testbed) would otherwise fight over one port.

NE_PORT=9100

ne_applies() {
	[ "$NODE_EXPORTER" = 1 ] || prov_skip "node exporter is off in the plan"
	[ -n "$NODE_ADDR" ] || prov_fail "NODE_ADDR is empty"
}

# step_packages: the packages this step installs on this node.  Every
# pkg_install of the step takes its names from here; lib/bundle.c bundles
# the same names for the plan (tests/unit/test_bundle.c compares the two).
# Debian and Ubuntu package it with a unit reading /etc/default; Rocky has
# it in EPEL under another name, run by our own unit.
step_packages() {
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
	# shellcheck disable=SC2046
	pkgs_installed $(step_packages) || return 1
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
	# shellcheck disable=SC2046
	pkg_install $(step_packages)
	if [ "$PROV_OS_FAMILY" != rhel ]; then
		file_put "$NE_DEFAULT" 0644 root:root "$(ne_default)"
	fi
	ne_svc svc_start
	prov_wait 15 ne_answers || prov_fail "the node exporter does not answer on $NODE_ADDR:$NE_PORT"
}

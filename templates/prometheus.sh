# shellcheck shell=sh
# templates/prometheus.sh: Prometheus on the plan's monitoring host
# (PROMETHEUS_HOST=1), configured whole from PROMETHEUS_CONF (every node
# exporter and DCGM exporter of the plan as a target), listening on
# NODE_ADDR:9090.

PROM_PORT=9090
PROM_CONF=/etc/prometheus/prometheus.yml
PROM_DATA=/var/lib/prometheus/metrics2

prom_applies() {
	[ "$PROMETHEUS_HOST" = 1 ] || prov_skip "Prometheus runs on ${PROMETHEUS_ADDR:-another node}"
	[ -n "$PROMETHEUS_CONF" ] || prov_fail "PROMETHEUS_CONF is empty"
	[ -n "$NODE_ADDR" ] || prov_fail "NODE_ADDR is empty"
}

# step_packages: the packages this step installs on this node.  Every
# pkg_install of the step takes its names from here; lib/bundle.c bundles
# the same names for the plan (tests/unit/test_bundle.c compares the two).
step_packages() {
	if [ "$PROV_OS_FAMILY" = rhel ]; then
		echo golang-github-prometheus
	else
		echo prometheus
	fi
}

prom_default() {
	if [ "$PROV_OS_FAMILY" = rhel ]; then
		echo /etc/sysconfig/prometheus-provision
	else
		echo /etc/default/prometheus
	fi
}

prom_args() {
	echo "--config.file=$PROM_CONF --storage.tsdb.path=$PROM_DATA/ --web.listen-address=$NODE_ADDR:$PROM_PORT"
}

prom_default_content() {
	echo "# Managed by provision (step prometheus)."
	echo "ARGS=\"$(prom_args)\""
}

prom_svc() {
	# shellcheck disable=SC2046
	if [ "$PROV_OS_FAMILY" = rhel ]; then
		"$1" -o -u prometheus -f "$PROM_CONF" provision-prometheus -- /usr/bin/prometheus $(prom_args)
	else
		"$1" -u prometheus -f "$PROM_CONF" -f "$(prom_default)" prometheus -- /usr/bin/prometheus $(prom_args)
	fi
}

prom_ready() {
	http_get "http://$NODE_ADDR:$PROM_PORT/-/ready" >/dev/null 2>&1
}

# Prometheus hands its targets to the scrapers a few seconds after it is
# ready (discovery updates go out in 5 s batches): until then its API
# lists none, and a verify straight after apply would call the plan's
# targets missing.  Listed with their health "unknown" is the truth.
prom_targets_listed() {
	_ptl_want=$(printf '%s\n' "$PROMETHEUS_CONF" | grep -c '^ *- targets: \[') || return 0
	_ptl_have=$(http_get "http://$NODE_ADDR:$PROM_PORT/api/v1/targets?state=active" |
		grep -o '"scrapeUrl"' | wc -l) || return 1
	[ "$_ptl_have" -ge "$_ptl_want" ]
}

step_check() {
	prom_applies
	# shellcheck disable=SC2046
	pkgs_installed $(step_packages) || return 1
	file_same "$PROM_CONF" 0644 root:root "$PROMETHEUS_CONF" || return 1
	file_same "$(prom_default)" 0644 root:root "$(prom_default_content)" || return 1
	dir_ok "$PROM_DATA" 755 prometheus:prometheus || return 1
	prom_svc svc_running || return 1
	prom_ready || prov_why "http://$NODE_ADDR:$PROM_PORT/-/ready does not answer"
}

step_apply() {
	if [ "$PROV_OS_FAMILY" = rhel ]; then
		rhel_epel
	fi
	# shellcheck disable=SC2046
	pkg_install $(step_packages)
	# A configuration Prometheus refuses never replaces a working one.
	_pa_new=$(mktemp /etc/prometheus/.prometheus.yml.XXXXXX)
	prov_content "$PROMETHEUS_CONF" >"$_pa_new"
	if ! promtool check config "$_pa_new" >&2; then
		rm -f "$_pa_new"
		prov_fail "promtool rejects PROMETHEUS_CONF"
	fi
	rm -f "$_pa_new"
	file_put "$PROM_CONF" 0644 root:root "$PROMETHEUS_CONF"
	file_put "$(prom_default)" 0644 root:root "$(prom_default_content)"
	dir_put "$PROM_DATA" 0755 prometheus:prometheus
	prom_svc svc_start
	prov_wait 30 prom_ready || prov_fail "Prometheus is not ready on $NODE_ADDR:$PROM_PORT"
	prov_wait 30 prom_targets_listed ||
		prov_log "Prometheus lists fewer targets than prometheus.yml names, 30 s after it started"
}

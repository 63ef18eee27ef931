# shellcheck shell=sh
# templates/grafana.sh: Grafana from Grafana's repository on the plan's
# Grafana host (GRAFANA_HOST=1), listening on NODE_ADDR:3000, with the
# plan's Prometheus (PROMETHEUS_ADDR:9090) as its default data source.

GF_PORT=3000
GF_DS=/etc/grafana/provisioning/datasources/provision.yaml

gf_applies() {
	[ "$GRAFANA_HOST" = 1 ] || prov_skip "Grafana runs on another node (or nowhere)"
	[ -n "$NODE_ADDR" ] || prov_fail "NODE_ADDR is empty"
}

gf_env_file() {
	if [ "$PROV_OS_FAMILY" = rhel ]; then
		echo /etc/sysconfig/grafana-server
	else
		echo /etc/default/grafana-server
	fi
}

gf_env() {
	echo "GF_SERVER_HTTP_ADDR=$NODE_ADDR"
	echo "GF_SERVER_HTTP_PORT=$GF_PORT"
}

gf_datasource() {
	if [ -z "${PROMETHEUS_ADDR:-}" ]; then
		echo "apiVersion: 1"
		echo "datasources: []"
		return 0
	fi
	cat <<EOF
# Managed by provision (step grafana).
apiVersion: 1
datasources:
  - name: Prometheus
    type: prometheus
    access: proxy
    url: http://${PROMETHEUS_ADDR:-}:9090
    isDefault: true
    editable: false
EOF
}

# Grafana's repository; offline (apply --bundle) none: the bundle holds it.
gf_repo() {
	apt_offline && return 0
	case $PROV_OS_FAMILY in
	debian)
		_gr_key=/etc/apt/keyrings/grafana.asc
		if [ ! -s "$_gr_key" ]; then
			mkdir -p /etc/apt/keyrings
			prov_fetch https://apt.grafana.com/gpg.key "$_gr_key" || return 1
			chmod 0644 "$_gr_key"
			prov_changed
		fi
		file_put /etc/apt/sources.list.d/grafana.list 0644 root:root \
			"deb [signed-by=$_gr_key] https://apt.grafana.com stable main" || return 1
		if [ "$PROV_FILE_CHANGED" = 1 ]; then
			apt_update || return 1
		fi
		;;
	rhel)
		file_put /etc/yum.repos.d/grafana.repo 0644 root:root "[grafana]
name=grafana
baseurl=https://rpm.grafana.com
repo_gpgcheck=1
enabled=1
gpgcheck=1
gpgkey=https://rpm.grafana.com/gpg.key
sslverify=1
sslcacert=/etc/pki/tls/certs/ca-bundle.crt"
		;;
	esac
}

# step_packages: the packages this step installs on this node.  Every
# pkg_install of the step takes its names from here; lib/bundle.c bundles
# the same names for the plan (tests/unit/test_bundle.c compares the two).
step_packages() {
	echo grafana
}

# Direct start sets the same environment the unit reads from the env file.
gf_svc() {
	"$1" -u grafana -f "$(gf_env_file)" -f "$GF_DS" grafana-server -- \
		/usr/bin/env "GF_SERVER_HTTP_ADDR=$NODE_ADDR" "GF_SERVER_HTTP_PORT=$GF_PORT" \
		/usr/sbin/grafana-server --config=/etc/grafana/grafana.ini --homepath=/usr/share/grafana \
		cfg:default.paths.logs=/var/log/grafana cfg:default.paths.data=/var/lib/grafana \
		cfg:default.paths.plugins=/var/lib/grafana/plugins \
		cfg:default.paths.provisioning=/etc/grafana/provisioning
}

gf_answers() {
	http_get "http://$NODE_ADDR:$GF_PORT/api/health" 2>/dev/null | grep -q '"database": *"ok"'
}

step_check() {
	gf_applies
	# shellcheck disable=SC2046
	pkgs_installed $(step_packages) || return 1
	block_same "$(gf_env_file)" "$(gf_env)" || return 1
	file_same "$GF_DS" 0640 root:grafana "$(gf_datasource)" || return 1
	gf_svc svc_running || return 1
	gf_answers || prov_why "http://$NODE_ADDR:$GF_PORT/api/health does not answer"
}

step_apply() {
	# shellcheck disable=SC2046
	pkgs_installed $(step_packages) || gf_repo
	# shellcheck disable=SC2046
	pkg_install $(step_packages)
	block_put "$(gf_env_file)" "$(gf_env)"
	file_put "$GF_DS" 0640 root:grafana "$(gf_datasource)"
	gf_svc svc_start
	prov_wait 60 gf_answers || prov_fail "Grafana does not answer on $NODE_ADDR:$GF_PORT"
}

# shellcheck shell=sh
# templates/relay.sh: the package relay (software.relay in the plan).
#
# On the relay node (the head unless the plan names another) apt-cacher-ng
# listens on RELAY_ADDR:RELAY_PORT and caches what the cluster downloads;
# every node's apt, the relay's own included, reaches the mirrors through
# it (RELAY_APT_CONF, a file of its own), so a package crosses the site's
# uplink once whatever the node count.  apply runs this step on the relay
# node before any other node installs anything; on the others it writes
# the proxy setting and checks the relay answers from there.  Sources over
# https (NVIDIA, Kubernetes, Grafana) are not proxied: apt-cacher-ng
# cannot cache what TLS hides from it.
#
# Container images (RELAY_IMAGES, "REGISTRY UPSTREAM PORT" a line, from
# software.relay.images): the relay node runs one pull-through cache per
# registry, Debian's docker-registry (Distribution) in proxy mode
# (`proxy: remoteurl: UPSTREAM`, which mirrors a single upstream), on
# RELAY_ADDR:PORT, its configuration in RELAY_REG_CONF_DIR and its
# storage under RELAY_REG_DATA; the container-runtime step of every node,
# the relay's own included, names it as that registry's mirror
# (REGISTRY_MIRRORS carries it: containerd's hosts.toml, docker's
# registry-mirrors), so a layer crosses the uplink for the first node
# that pulls it alone (Distribution 2.8 fetches it twice then: to serve
# and to store), not once per node.  The package's
# own docker-registry.service (every address, port 5000) is kept off.  A
# cache the plan no longer names is stopped and its configuration
# removed (its storage is kept).
#
# Offline (apply --bundle), when the relay serves the bundle
# (PROV_APT_SERVED): the relay node alone got the bundle, installs
# apt-cacher-ng from it and serves its bundle folder (LocalDirs); every
# other node gets a sources.list naming that repository, and checks the
# Release it serves is the bundle's (relay_served_list, apt_release_ok).

RELAY_ACNG_CONF=/etc/apt-cacher-ng/zzz_provision.conf
RELAY_REG_CONF_DIR=/etc/docker/registry
RELAY_REG_DATA=/var/lib/docker-registry/provision
RELAY_REG_MARK='# Managed by provision (step relay): a pull-through image cache.'

relay_applies() {
	[ -n "$RELAY_URL" ] || prov_skip "no package relay in the plan"
	[ "$PROV_OS_FAMILY" = debian ] ||
		prov_fail "the package relay is apt-cacher-ng: Debian and Ubuntu only, this node runs $PROV_OS_ID"
	if apt_offline && [ "$PROV_APT_SERVED" != 1 ]; then
		prov_skip "offline: every node has the bundle"
	fi
}

relay_is_me() {
	[ "$NODE_NAME" = "$RELAY_NAME" ]
}

# step_packages: the packages this step installs on this node.  Every
# pkg_install of the step takes its names from here; lib/bundle.c bundles
# the same names for the plan (tests/unit/test_bundle.c compares the two).
step_packages() {
	if relay_is_me; then
		echo apt-cacher-ng
		if [ -n "${RELAY_IMAGES:-}" ]; then
			echo docker-registry
		fi
	fi
}

# relay_images: the plan's image caches, "REGISTRY UPSTREAM PORT NAME" a
# line (NAME: the registry as a file and service name).  The plan checked
# them; they reach files and a service name, so a value that is not plain
# fails here too.
relay_images() {
	while read -r _ri_reg _ri_up _ri_port _ri_rest; do
		[ -n "$_ri_reg" ] || continue
		case $_ri_reg in
		*[!A-Za-z0-9.:-]* | [!A-Za-z0-9]*) prov_log "bad registry '$_ri_reg' in RELAY_IMAGES"; return 1 ;;
		esac
		case $_ri_up in
		*[!A-Za-z0-9./:%@+=,~_-]*) prov_log "bad upstream of $_ri_reg"; return 1 ;;
		https://?* | http://?*) ;;
		*) prov_log "bad upstream of $_ri_reg"; return 1 ;;
		esac
		case $_ri_port:$_ri_rest in
		*[!0-9]*: | :) prov_log "bad port of $_ri_reg"; return 1 ;;
		*:) ;;
		*) prov_log "bad RELAY_IMAGES line for $_ri_reg"; return 1 ;;
		esac
		echo "$_ri_reg $_ri_up $_ri_port $(echo "$_ri_reg" | tr : _)"
	done <<EOF
${RELAY_IMAGES:-}
EOF
}

# relay_reg_conf REGISTRY UPSTREAM PORT NAME: its docker-registry config.
relay_reg_conf() {
	cat <<EOF
$RELAY_REG_MARK
# $1 through $2
version: 0.1
log:
  level: info
storage:
  filesystem:
    rootdirectory: $RELAY_REG_DATA/$4
  delete:
    enabled: true
http:
  addr: $RELAY_ADDR:$3
proxy:
  remoteurl: $2
EOF
}

# relay_reg_svc svc_start|svc_running NAME: the cache's daemon.
relay_reg_svc() {
	"$1" -o -u docker-registry -f "$RELAY_REG_CONF_DIR/provision-$2.yml" "registry-cache-$2" -- \
		/usr/bin/docker-registry serve "$RELAY_REG_CONF_DIR/provision-$2.yml"
}

# relay_reg_up PORT: the cache answers the registry API's base.
relay_reg_up() {
	http_get "http://$RELAY_ADDR:$1/v2/" >/dev/null 2>&1
}

# relay_reg_distro_off check|put: the package's own instance off.
# Enabled, it would take port 5000 on every address at the next boot.
# (Without systemd nothing starts it.)
relay_reg_distro_off() {
	[ "$PROV_SYSTEMD" = 1 ] || return 0
	if [ "$1" = check ]; then
		! systemctl is-enabled --quiet docker-registry.service 2>/dev/null ||
			prov_why "docker-registry.service (the package's instance) is enabled"
		return
	fi
	if systemctl is-enabled --quiet docker-registry.service 2>/dev/null ||
		systemctl is-active --quiet docker-registry.service 2>/dev/null; then
		systemctl disable --now docker-registry.service >&2 || return 1
		prov_changed
	fi
}

# relay_regs check|put: every cache of the plan configured and running,
# and none of ours beside them.
relay_regs() {
	_rr_list=$(relay_images) || return 1
	_rr_want=
	while read -r _rr_reg _rr_up _rr_port _rr_name; do
		[ -n "$_rr_reg" ] || continue
		_rr_want="$_rr_want provision-$_rr_name.yml "
		_rr_conf=$(relay_reg_conf "$_rr_reg" "$_rr_up" "$_rr_port" "$_rr_name")
		if [ "$1" = check ]; then
			file_same "$RELAY_REG_CONF_DIR/provision-$_rr_name.yml" 0644 root:root "$_rr_conf" || return 1
			relay_reg_svc svc_running "$_rr_name" || return 1
			relay_reg_up "$_rr_port" ||
				prov_why "the image cache of $_rr_reg does not answer at http://$RELAY_ADDR:$_rr_port/v2/" || return 1
			continue
		fi
		dir_put "$RELAY_REG_CONF_DIR" 0755 root:root || return 1
		dir_put "$RELAY_REG_DATA" 0750 docker-registry:docker-registry || return 1
		dir_put "$RELAY_REG_DATA/$_rr_name" 0750 docker-registry:docker-registry || return 1
		file_put "$RELAY_REG_CONF_DIR/provision-$_rr_name.yml" 0644 root:root "$_rr_conf" || return 1
		relay_reg_svc svc_start "$_rr_name" || return 1
		if ! prov_wait 30 relay_reg_up "$_rr_port"; then
			prov_log "the image cache of $_rr_reg does not answer at http://$RELAY_ADDR:$_rr_port/v2/ (see $PROV_LOG_DIR/registry-cache-$_rr_name.log, or its journal)"
			return 1
		fi
	done <<EOF
$_rr_list
EOF
	for _rr_f in "$RELAY_REG_CONF_DIR"/provision-*.yml; do
		[ -f "$_rr_f" ] || continue
		case $_rr_want in *" ${_rr_f##*/} "*) continue ;; esac
		grep -qxF "$RELAY_REG_MARK" "$_rr_f" || continue
		if [ "$1" = check ]; then
			prov_why "$_rr_f is an image cache the plan no longer has"
			return 1
		fi
		_rr_name=${_rr_f##*/provision-}
		_rr_name=${_rr_name%.yml}
		svc_stop "registry-cache-$_rr_name" || return 1
		if [ "$PROV_SYSTEMD" = 1 ]; then
			systemctl disable "registry-cache-$_rr_name.service" >&2 2>/dev/null || true
			file_absent "/etc/systemd/system/registry-cache-$_rr_name.service" || return 1
			systemctl daemon-reload >&2 || return 1
		fi
		file_absent "$_rr_f" || return 1
	done
	relay_reg_distro_off "$1"
}

# Read after the package's own files (zz_debconf.conf says to use zzz_).
relay_acng_conf() {
	echo "# Managed by provision (step relay): the cluster's package relay."
	echo "Port: $RELAY_PORT"
	echo "BindAddress: $RELAY_ADDR"
	if apt_offline; then
		echo "LocalDirs: provision-bundle ${PROV_APT_REPO%/*}"
	fi
}

# Offline, on a node the relay serves: its sources.list names the
# relay's copy, and the Release there is the bundle's.
relay_served_ok() {
	file_same "$PROV_APT_REPO/sources.list" 0644 root:root "$(relay_served_list)" || return 1
	http_get "$(relay_served_url)Release" >"$PROV_APT_REPO/Release.relay" 2>/dev/null ||
		prov_why "no Release at $(relay_served_url)" || return 1
	sha256_is "$PROV_APT_REPO/Release.relay" "$PROV_APT_RELEASE" ||
		prov_why "the Release at $(relay_served_url) is not the bundle's (sha256 $PROV_APT_RELEASE)"
}

relay_apt_conf() {
	echo "// Managed by provision (step relay): packages come through the"
	echo "// package relay, apt-cacher-ng on $RELAY_NAME."
	echo "Acquire::http::Proxy \"$RELAY_URL\";"
}

relay_svc() {
	"$1" -u apt-cacher-ng -f "$RELAY_ACNG_CONF" apt-cacher-ng -- /usr/sbin/apt-cacher-ng -c /etc/apt-cacher-ng ForeGround=1
}

step_check() {
	relay_applies
	if relay_is_me; then
		# shellcheck disable=SC2046
		pkgs_installed $(step_packages) || return 1
		file_same "$RELAY_ACNG_CONF" 0644 root:root "$(relay_acng_conf)" || return 1
		relay_svc svc_running || return 1
		relay_regs check || return 1
	fi
	if apt_offline; then
		relay_is_me && return 0
		relay_up || prov_why "apt-cacher-ng does not answer at $RELAY_URL" || return 1
		relay_served_ok
		return
	fi
	file_same "$RELAY_APT_CONF" 0644 root:root "$(relay_apt_conf)" || return 1
	relay_up || prov_why "apt-cacher-ng does not answer at $RELAY_URL"
}

step_apply() {
	if relay_is_me; then
		# a relay setting left here without its relay would stop apt
		if ! pkgs_installed apt-cacher-ng; then
			file_absent "$RELAY_APT_CONF"
		fi
		# shellcheck disable=SC2046
		pkg_install $(step_packages)
		file_put "$RELAY_ACNG_CONF" 0644 root:root "$(relay_acng_conf)"
		if [ "$PROV_SYSTEMD" = 0 ]; then
			# systemd-tmpfiles makes it elsewhere
			dir_put /run/apt-cacher-ng 0755 apt-cacher-ng:apt-cacher-ng
		fi
		relay_svc svc_start
		prov_wait 30 relay_up || prov_fail "apt-cacher-ng does not answer at $RELAY_URL (see /var/log/apt-cacher-ng/)"
		relay_regs put || prov_fail "cannot set up the relay's image caches"
		if apt_offline; then
			return 0
		fi
	fi
	if apt_offline; then
		dir_put "$PROV_APT_REPO" 0755 root:root
		file_put "$PROV_APT_REPO/sources.list" 0644 root:root "$(relay_served_list)"
	else
		file_put "$RELAY_APT_CONF" 0644 root:root "$(relay_apt_conf)"
	fi
	relay_wait || prov_fail "this node cannot reach the package relay $RELAY_URL (apt-cacher-ng on $RELAY_NAME)"
	if apt_offline && ! relay_served_ok; then
		prov_fail "the relay does not serve this bundle: the Release at $(relay_served_url) is missing or not the bundle's (its sha256 should be $PROV_APT_RELEASE): run apply --bundle again"
	fi
}

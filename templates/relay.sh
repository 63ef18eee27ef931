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
# Offline (apply --bundle), when the relay serves the bundle
# (PROV_APT_SERVED): the relay node alone got the bundle, installs
# apt-cacher-ng from it and serves its bundle folder (LocalDirs); every
# other node gets a sources.list naming that repository, and checks the
# Release it serves is the bundle's (relay_served_list, apt_release_ok).

RELAY_ACNG_CONF=/etc/apt-cacher-ng/zzz_provision.conf

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
	fi
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

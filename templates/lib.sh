# shellcheck shell=sh
# templates/lib.sh: helpers shared by every step (docs/templates.md).
#
# A rendered script is: preamble (plan values), this file, templates/STEP.sh
# (defines step_check and step_apply), then a call to prov_run_step.  It runs
# as root under POSIX sh (dash) with `set -eu`.
#
# Results: exit 0 ok, 100 changed, 101 skipped ("skipped: REASON" on stdout),
# anything else failed (the reason on stderr).  Command output (apt, dnf,
# daemons) goes to stderr; stdout carries only result lines.
#
# Conventions: globals are PROV_*; a function's scratch variables carry a
# prefix made from its name (_fp_ for file_put) because POSIX sh has no
# `local`.  Helpers return non-zero on failure rather than rely on `set -e`,
# so they behave the same when a caller tests them with `if`.

set -eu
umask 022
PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
LC_ALL=C
export PATH LC_ALL

PROV_NL='
'
PROV_CHANGED=0		# set by anything that changed the node
PROV_DONE=0		# 1 once the result is decided (see prov_on_exit)
PROV_PHASE=check	# check, apply, recheck
PROV_FILE_CHANGED=0	# did the last file_put/block_put write?
PROV_POLICY_RC=0	# 1 while our /usr/sbin/policy-rc.d is in place
PROV_APT_UPDATED=0
PROV_REBOOT=		# why the node must reboot (prov_reboot in step_check)
PROV_RUN_DIR=/run/provision		# pid files of daemons started directly
PROV_LOG_DIR=/var/log/provision		# their output
PROV_STATE_DIR=/var/lib/provision	# what survives a reboot
PROV_OUT_DIR=/etc/provision/out		# values the engine fetches (0600)
: "${PROV_PCI_DIR:=/sys/bus/pci/devices}"	# tests point this at a fake tree
: "${PROV_OS_RELEASE:=/etc/os-release}"		# and this at a fake os-release
: "${PROV_DPKG_DIR:=/var/lib/dpkg}"		# and this at a fake dpkg database

# ------------------------------------------------------------------ results

prov_log() {
	printf '%s: %s\n' "${PROV_STEP:-step}" "$*" >&2
}

# prov_why MESSAGE: why a check fails, logged when the check after apply
# fails (the first check failing is the normal case, not worth a line).
prov_why() {
	if [ "$PROV_PHASE" = recheck ]; then
		prov_log "check: $*"
	fi
	return 1
}

prov_changed() {
	PROV_CHANGED=1
}

# prov_secret VALUE: under `provision apply`, the engine hides VALUE from
# everything it logs, shows or stores from now on, on every node (docs/
# templates.md).  Declare a secret before anything could print it.  The
# value goes hex-encoded on this step's own output, which the engine reads
# and never passes on; printf is a builtin, so it is in no argv.  Run by
# hand (no engine listening, PROV_REDACT unset), it does nothing.
prov_secret() {
	[ "${PROV_REDACT:-0}" = 1 ] || return 0
	_psc=$(printf '%s' "$1" | od -An -v -tx1 | tr -d ' \n')
	printf '\n\036provision secret %s\n' "$_psc"
	printf '\n\036provision secret %s\n' "$_psc" >&2
	_psc=
}

# prov_secret_file FILE: the same for a file's contents (a key).
prov_secret_file() {
	[ "${PROV_REDACT:-0}" = 1 ] || return 0
	_psc=$(od -An -v -tx1 <"$1" | tr -d ' \n') || return 1
	printf '\n\036provision secret %s\n' "$_psc"
	printf '\n\036provision secret %s\n' "$_psc" >&2
	_psc=
}

prov_finish() {
	PROV_DONE=1
	case $1 in
	0 | 100)
		if [ -n "$PROV_REBOOT" ]; then
			printf 'reboot: %s\n' "$PROV_REBOOT"
		fi
		;;
	esac
	exit "$1"
}

# prov_reboot REASON: what this step set up takes effect only after a
# reboot (a kernel command line, a driver that replaces a loaded one, a
# new kernel).  Called from step_check, which still succeeds when all
# else is in place: the result (ok or changed) is followed by the line
# "reboot: REASON", and apply reboots the node before its next step.
prov_reboot() {
	PROV_REBOOT=$*
}

# prov_skip REASON: this step does not apply to this node.
prov_skip() {
	printf 'skipped: %s\n' "$*"
	prov_finish 101
}

# prov_fail REASON: stop the step as failed.
prov_fail() {
	prov_log "$*"
	prov_finish 1
}

prov_cleanup() {
	prov_policy_unblock
	case ${PROV_SECRET_DIR:-} in
	'' | / | /etc | /etc/* | /root | /usr* | /var | /run | /tmp) ;;
	/*)
		if [ -d "$PROV_SECRET_DIR" ]; then
			rm -rf -- "$PROV_SECRET_DIR" || true
		fi
		;;
	esac
}

# EXIT trap: an exit the step did not decide (set -e, a stray `exit 0`, an
# apt-get exit status of 100) must never read as ok, changed or skipped.
prov_on_exit() {
	_poe_rc=$?
	trap - EXIT
	prov_cleanup
	if [ "$PROV_DONE" != 1 ]; then
		case $_poe_rc in
		0 | 100 | 101) _poe_rc=1 ;;
		esac
		prov_log "failed (exit status $_poe_rc)"
	fi
	exit "$_poe_rc"
}

prov_run_step() {
	# The script came on stdin (sh -s): nothing below may read the rest.
	exec </dev/null
	trap prov_on_exit EXIT
	trap 'exit 129' HUP
	trap 'exit 130' INT
	trap 'exit 143' TERM
	prov_os_detect
	prov_os_match
	if step_check; then
		prov_finish 0
	fi
	PROV_PHASE=apply
	step_apply
	PROV_PHASE=recheck
	PROV_REBOOT=
	if step_check; then
		if [ "$PROV_CHANGED" = 0 ]; then
			# apply found everything in place: the first check failed
			# on something passing (a daemon still registering)
			prov_log "nothing to change"
			prov_finish 0
		fi
		prov_finish 100
	fi
	prov_fail "the check still fails after apply"
}

# prov_wait SECONDS COMMAND...: run COMMAND each second until it succeeds.
prov_wait() {
	_pw_left=$1
	shift
	while ! "$@" >/dev/null 2>&1; do
		[ "$_pw_left" -gt 0 ] || return 1
		_pw_left=$((_pw_left - 1))
		sleep 1
	done
	return 0
}

# ------------------------------------------------------------------ the OS

# Sets PROV_OS_ID (debian, ubuntu, rocky), PROV_OS_VERSION (12, 22.04, 9.4),
# PROV_OS_MAJOR (12, 22, 9), PROV_OS_CODENAME (bookworm, jammy, noble),
# PROV_OS_FAMILY (debian or rhel), PROV_ARCH (x86_64, aarch64) and
# PROV_SYSTEMD (1 when systemd is the init system).
#
# Every step starts here, so os-release is read by the shell itself: a
# re-apply of a finished cluster is mostly checks, and forking sed and head
# a dozen times a step was most of what a check cost.
prov_os_detect() {
	PROV_OS_ID=
	PROV_OS_VERSION=
	PROV_OS_CODENAME=
	_pod_like=
	if [ -r "$PROV_OS_RELEASE" ]; then
		while IFS= read -r _pod_l || [ -n "$_pod_l" ]; do
			_pod_v=${_pod_l#*=}
			case $_pod_v in
			\"*\")
				_pod_v=${_pod_v#\"}
				_pod_v=${_pod_v%\"}
				;;
			\'*\')
				_pod_v=${_pod_v#\'}
				_pod_v=${_pod_v%\'}
				;;
			esac
			# the first of a key counts
			case $_pod_l in
			ID=*) [ -n "$PROV_OS_ID" ] || PROV_OS_ID=$_pod_v ;;
			VERSION_ID=*) [ -n "$PROV_OS_VERSION" ] || PROV_OS_VERSION=$_pod_v ;;
			VERSION_CODENAME=*) [ -n "$PROV_OS_CODENAME" ] || PROV_OS_CODENAME=$_pod_v ;;
			ID_LIKE=*) [ -n "$_pod_like" ] || _pod_like=$_pod_v ;;
			esac
		done <"$PROV_OS_RELEASE"
	fi
	PROV_OS_MAJOR=${PROV_OS_VERSION%%.*}
	case " $PROV_OS_ID $_pod_like " in
	*" debian "* | *" ubuntu "*) PROV_OS_FAMILY=debian ;;
	*" rhel "* | *" fedora "* | *" centos "*) PROV_OS_FAMILY=rhel ;;
	*) PROV_OS_FAMILY=unknown ;;
	esac
	# the kernel says it without a process where it is new enough (6.x)
	if ! { read -r PROV_ARCH </proc/sys/kernel/arch; } 2>/dev/null ||
		[ -z "$PROV_ARCH" ]; then
		PROV_ARCH=$(uname -m)
	fi
	if [ -d /run/systemd/system ]; then
		PROV_SYSTEMD=1
	else
		PROV_SYSTEMD=0
	fi
}

# The node must run the OS the plan names (else packages and repositories
# would be the wrong ones).
prov_os_match() {
	[ "$PROV_OS_FAMILY" != unknown ] ||
		prov_fail "unsupported OS '$PROV_OS_ID $PROV_OS_VERSION' (debian, ubuntu and rocky are supported)"
	[ -n "${OS_DISTRO:-}" ] || return 0
	if [ "$OS_DISTRO" != "$PROV_OS_ID" ]; then
		prov_fail "the plan says $OS_DISTRO ${OS_RELEASE:-}, this node runs $PROV_OS_ID $PROV_OS_VERSION"
	fi
	case ${OS_RELEASE:-} in
	'' | "$PROV_OS_VERSION" | "$PROV_OS_MAJOR") ;;
	*) prov_fail "the plan says $OS_DISTRO $OS_RELEASE, this node runs $PROV_OS_ID $PROV_OS_VERSION" ;;
	esac
}

# os_is ID [VERSION]: e.g. `os_is ubuntu 22.04`, `os_is rocky 9`.
os_is() {
	[ "$PROV_OS_ID" = "$1" ] || return 1
	[ $# -lt 2 ] || [ "$PROV_OS_VERSION" = "$2" ] || [ "$PROV_OS_MAJOR" = "$2" ]
}

# ------------------------------------------------------------------ packages

# The installed packages, as one shell assignment (PROV_PKGS=" a b c ")
# kept in $PROV_RUN_DIR/dpkg-installed: checks ask a lot, and reading it
# costs no process where each dpkg-query or grep costs one.  It is used
# while it is newer (to the nanosecond) than the status file and than the
# journal folder that dpkg changes with every operation.  One awk over the
# status file makes it in a quarter of dpkg-query's time (every node pays
# it on the first check after a reboot); while the journal holds an
# operation under way, only dpkg-query can merge it, so awk reads its
# answer instead.  A database changed while the listing was made (newer
# than a stamp taken before) leaves it unsaved.
# Sets PROV_PKGS; 1 when there is no usable listing.
prov_dpkg_list() {
	_pdl_f=$PROV_RUN_DIR/dpkg-installed
	# -nt is not POSIX, but dash, bash and busybox sh all have it
	# shellcheck disable=SC3013
	if [ "$_pdl_f" -nt "$PROV_DPKG_DIR/status" ] &&
		[ "$_pdl_f" -nt "$PROV_DPKG_DIR/updates" ]; then
		PROV_PKGS=
		# shellcheck disable=SC1090
		. "$_pdl_f" && [ -n "$PROV_PKGS" ] && return 0
	fi
	[ -d "$PROV_RUN_DIR" ] || mkdir -p "$PROV_RUN_DIR" 2>/dev/null || return 1
	: >"$_pdl_f.t" 2>/dev/null || return 1
	_pdl_src=$PROV_DPKG_DIR/status
	for _pdl_j in "$PROV_DPKG_DIR"/updates/[0-9]*; do
		if [ -e "$_pdl_j" ]; then
			# shellcheck disable=SC2016
			_pdl_all=$(dpkg-query --admindir="$PROV_DPKG_DIR" -W \
				-f='Package: ${Package}\nStatus: ${Status}\n\n') || return 1
			_pdl_src=-
		fi
		break
	done
	# only names dpkg allows reach the assignment
	_pdl_awk='BEGIN { printf "PROV_PKGS=\" " }
/^Package: / { p = $2 }
/^Status: install ok installed$/ && p ~ /^[a-z0-9][a-z0-9+.-]*$/ { printf "%s ", p }
/^$/ { p = "" }
END { print "\"" }'
	if [ "$_pdl_src" = - ]; then
		printf '%s\n' "$_pdl_all" | awk "$_pdl_awk" >"$_pdl_f.$$"
	else
		awk "$_pdl_awk" "$_pdl_src" >"$_pdl_f.$$"
	fi || {
		rm -f "$_pdl_f.$$"
		return 1
	}
	# shellcheck disable=SC3013
	if [ "$_pdl_f.t" -nt "$PROV_DPKG_DIR/status" ] &&
		[ "$_pdl_f.t" -nt "$PROV_DPKG_DIR/updates" ] &&
		mv -f "$_pdl_f.$$" "$_pdl_f"; then
		_pdl_use=$_pdl_f
	else
		# changed meanwhile: good for this call, not to be kept
		_pdl_use=$_pdl_f.$$
	fi
	PROV_PKGS=
	# shellcheck disable=SC1090
	. "$_pdl_use"
	[ "$_pdl_use" = "$_pdl_f" ] || rm -f "$_pdl_use"
	[ -n "$PROV_PKGS" ]
}

pkg_installed() {
	case $PROV_OS_FAMILY in
	debian)
		if prov_dpkg_list; then
			case $PROV_PKGS in *" $1 "*) ;; *) false ;; esac
		else
			# shellcheck disable=SC2016
			[ "$(dpkg-query --admindir="$PROV_DPKG_DIR" -W -f='${Status}' "$1" 2>/dev/null)" = "install ok installed" ]
		fi
		;;
	rhel)
		rpm -q --quiet "$1" 2>/dev/null
		;;
	*) return 1 ;;
	esac || prov_why "package $1 is not installed"
}

# pkgs_installed PKG...: all of them installed?
pkgs_installed() {
	for _psi in "$@"; do
		pkg_installed "$_psi" || return 1
	done
	return 0
}

# Keep package scripts from starting daemons during our installs: steps
# start them with svc_start once their configuration is written (a daemon a
# package starts on a node without systemd would be untracked, and would
# bind every address of a network namespace the testbed nodes share).
prov_policy_block() {
	[ "$PROV_OS_FAMILY" = debian ] || return 0
	[ ! -e /usr/sbin/policy-rc.d ] || return 0
	printf '#!/bin/sh\n# provision: no daemon starts during package installs\nexit 101\n' \
		>/usr/sbin/policy-rc.d || return 1
	chmod 0755 /usr/sbin/policy-rc.d || return 1
	PROV_POLICY_RC=1
}

prov_policy_unblock() {
	if [ "$PROV_POLICY_RC" = 1 ]; then
		rm -f /usr/sbin/policy-rc.d
		PROV_POLICY_RC=0
	fi
	return 0
}

# Offline (apply --bundle): PROV_APT_REPO is the node's copy of the bundle,
# /var/lib/provision/bundle/ID with repo/ (a flat apt repository) and
# sources.list.  apt then reads that one source, keeping its lists under
# PROV_APT_REPO/lists, so nothing comes from the network and the node's own
# sources, lists and package cache are left as they are.  Functions that add
# an outside repository (NVIDIA, Kubernetes, Grafana) add nothing: the
# bundle holds those packages when it was built with their --source.
apt_offline() {
	[ -n "${PROV_APT_REPO:-}" ]
}

# apt_cmd apt-get|apt-cache ARG...: with the bundle's source alone when
# offline, else as configured on the node.
apt_cmd() {
	_ac_cmd=$1
	shift
	if apt_offline; then
		set -- -o "Dir::Etc::sourcelist=$PROV_APT_REPO/sources.list" \
			-o Dir::Etc::sourceparts=- -o "Dir::State::Lists=$PROV_APT_REPO/lists" \
			-o Dir::Cache::pkgcache= -o Dir::Cache::srcpkgcache= "$@"
	fi
	DEBIAN_FRONTEND=noninteractive "$_ac_cmd" "$@"
}

apt_update() {
	if apt_offline; then
		[ -f "$PROV_APT_REPO/sources.list" ] ||
			prov_fail "the offline bundle is not on this node ($PROV_APT_REPO/sources.list is missing): run apply --bundle again"
		mkdir -p "$PROV_APT_REPO/lists/partial" || return 1
		if relay_through; then
			prov_log "apt-get update (offline bundle served by the relay $RELAY_URL)"
			relay_retry apt_cmd apt-get update -q --error-on=any || return 1
			apt_release_ok || return 1
		else
			prov_log "apt-get update (offline bundle $PROV_APT_REPO)"
			apt_cmd apt-get update -q >&2 || return 1
		fi
	elif relay_through; then
		# a source the relay could not fetch is an error, not a warning
		prov_log "apt-get update (through the package relay $RELAY_URL)"
		relay_retry apt_cmd apt-get update -q --error-on=any || return 1
	else
		prov_log "apt-get update"
		apt_cmd apt-get update -q >&2 || return 1
	fi
	PROV_APT_UPDATED=1
}

# Package lists older than a day, or without a candidate for one of PKG...
apt_lists_stale() {
	_als_dir=/var/lib/apt/lists
	if apt_offline; then
		_als_dir=$PROV_APT_REPO/lists
	fi
	[ -n "$(find "$_als_dir" -maxdepth 1 -name '*_Packages*' -mmin -1440 2>/dev/null | head -n 1)" ] ||
		return 0
	for _als in "$@"; do
		apt_cmd apt-cache show --no-all-versions "$_als" >/dev/null 2>&1 || return 0
	done
	return 1
}

apt_install() {
	relay_retry apt_cmd apt-get install -y -q --no-install-recommends \
		-o Dpkg::Options::=--force-confdef -o Dpkg::Options::=--force-confold \
		"$@"
}

# apt_offline_install PKG...: from the bundle alone; a package the bundle
# lacks fails the step, naming it.
apt_offline_install() {
	if [ "$PROV_APT_UPDATED" = 0 ] && apt_lists_stale "$@"; then
		apt_update || return 1
	fi
	_aoi_missing=
	for _aoi in "$@"; do
		pkg_available "$_aoi" || _aoi_missing="$_aoi_missing $_aoi"
	done
	if [ -n "$_aoi_missing" ]; then
		prov_fail "not in the offline bundle:$_aoi_missing (rebuild the bundle with it: provision bundle --package NAME, with --source for its repository)"
	fi
	prov_policy_block || return 1
	if ! apt_install "$@"; then
		prov_policy_unblock
		prov_log "could not install $* from the offline bundle"
		return 1
	fi
	prov_policy_unblock
}

# pkg_install PKG...: install the packages that are not installed yet.
pkg_install() {
	_pi_n=$#
	while [ "$_pi_n" -gt 0 ]; do
		_pi_p=$1
		shift
		_pi_n=$((_pi_n - 1))
		pkg_installed "$_pi_p" || set -- "$@" "$_pi_p"
	done
	[ $# -gt 0 ] || return 0
	prov_log "installing $*"
	case $PROV_OS_FAMILY in
	debian)
		if apt_offline; then
			apt_offline_install "$@" || return 1
			prov_changed
			return 0
		fi
		prov_policy_block || return 1
		if [ "$PROV_APT_UPDATED" = 0 ] && apt_lists_stale "$@"; then
			apt_update || { prov_policy_unblock; return 1; }
		fi
		if ! apt_install "$@"; then
			# stale lists name files the mirror no longer has
			if [ "$PROV_APT_UPDATED" = 1 ] || ! apt_update || ! apt_install "$@"; then
				prov_policy_unblock
				prov_log "could not install $*"
				return 1
			fi
		fi
		prov_policy_unblock
		;;
	rhel)
		if apt_offline; then
			prov_fail "offline bundles hold .deb packages; this node runs $PROV_OS_ID $PROV_OS_VERSION"
		fi
		dnf -y -q install "$@" >&2 || { prov_log "could not install $*"; return 1; }
		;;
	*) return 1 ;;
	esac
	prov_changed
}

# pkg_purge PKG...: remove the packages with their configuration; on
# Debian their maintainer scripts undo what they set up (nsswitch.conf,
# PAM), with daemons kept from starting or stopping as for installs.
pkg_purge() {
	[ $# -gt 0 ] || return 0
	prov_log "purging $*"
	case $PROV_OS_FAMILY in
	debian)
		prov_policy_block || return 1
		if ! apt_cmd apt-get purge -y -q "$@" >&2; then
			prov_policy_unblock
			prov_log "could not purge $*"
			return 1
		fi
		prov_policy_unblock
		;;
	rhel)
		dnf -y -q remove "$@" >&2 || { prov_log "could not remove $*"; return 1; }
		;;
	*) return 1 ;;
	esac
	prov_changed
}

# pkg_available PKG: does a configured repository (offline: the bundle) offer it?
pkg_available() {
	case $PROV_OS_FAMILY in
	debian)
		if apt_offline && [ "$PROV_APT_UPDATED" = 0 ] && apt_lists_stale; then
			apt_update || return 1
		fi
		apt_cmd apt-cache policy "$1" 2>/dev/null | sed -n 's/^ *Candidate: //p' | grep -qv '^(none)$'
		;;
	rhel) dnf -q list --available "$1" >/dev/null 2>&1 || pkg_installed "$1" ;;
	*) return 1 ;;
	esac
}

# ------------------------------------------------------------------ relay
#
# The package relay (software.relay; templates/relay.sh sets it up): one
# node runs apt-cacher-ng at RELAY_URL and every node's apt reaches the
# mirrors through it (RELAY_APT_CONF), so a package crosses the site's
# uplink once.  A relay that restarts while a node installs costs that
# node a wait, not its step: each apt command that fails while the relay
# does not answer runs again once it does (relay_retry).

RELAY_APT_CONF=/etc/apt/apt.conf.d/90provision-relay

# Does this node's apt go through the relay?  Online, when the relay
# step wrote RELAY_APT_CONF; offline, when the relay serves the bundle
# (PROV_APT_SERVED) and this is not the relay, which reads its own copy.
relay_through() {
	[ -n "${RELAY_URL:-}" ] || return 1
	if apt_offline; then
		[ "${PROV_APT_SERVED:-0}" = 1 ] && [ "$NODE_NAME" != "$RELAY_NAME" ]
	else
		[ -f "$RELAY_APT_CONF" ]
	fi
}

# The offline bundle as the relay serves it: a flat repository under
# RELAY_URL (apt-cacher-ng's LocalDirs), read over plain HTTP.  What
# vouches for it is the bundle's signed manifest, checked where apply
# runs: it gives repo/Release's SHA-256 (PROV_APT_RELEASE), the Release
# gives the Packages index's, the index each package's, and apt checks
# the last two.
relay_served_url() {
	printf '%sprovision-bundle/%s/repo/' "$RELAY_URL" "${PROV_APT_REPO##*/}"
}

relay_served_list() {
	printf 'deb [trusted=yes] %s ./\n' "$(relay_served_url)"
}

# sha256_is FILE SHA256: FILE has that checksum.
sha256_is() {
	_si=$(sha256sum <"$1") || return 1
	[ "${_si%% *}" = "$2" ]
}

# After apt-get update from the relay: the Release apt got is the bundle's.
apt_release_ok() {
	[ -n "${PROV_APT_RELEASE:-}" ] || return 0
	for _aro in "$PROV_APT_REPO"/lists/*_Release; do
		if [ -f "$_aro" ] && sha256_is "$_aro" "$PROV_APT_RELEASE"; then
			return 0
		fi
		prov_log "refusing what the relay serves: $_aro is not the bundle's repo/Release (its sha256 is not $PROV_APT_RELEASE, which the bundle's manifest gives)"
		rm -f -- "$_aro"
		return 1
	done
	prov_log "apt-get update brought no Release from $(relay_served_url)"
	return 1
}

# relay_up: apt-cacher-ng answers at RELAY_URL (its report page).
relay_up() {
	http_get "${RELAY_URL}acng-report.html" 2>/dev/null | grep -q 'Apt-Cacher NG'
}

# relay_wait: until the relay answers, waiting 1, 2, 4 ... 30 s between
# tries, RELAY_RETRY_S seconds at most; then fails saying so.
relay_wait() {
	_rw_t0=$(date +%s)
	_rw_d=1
	until relay_up; do
		_rw_n=$(($(date +%s) - _rw_t0))
		if [ "$_rw_n" -ge "$RELAY_RETRY_S" ]; then
			prov_log "the package relay $RELAY_URL (apt-cacher-ng on $RELAY_NAME) did not answer for $_rw_n s (software.relay.retry_s: $RELAY_RETRY_S): is it running there, and is TCP port $RELAY_PORT open from this node?"
			return 1
		fi
		[ $((_rw_n + _rw_d)) -le "$RELAY_RETRY_S" ] || _rw_d=$((RELAY_RETRY_S - _rw_n))
		[ "$_rw_d" -gt 0 ] || _rw_d=1
		prov_log "the package relay $RELAY_URL (on $RELAY_NAME) does not answer: next try in $_rw_d s"
		sleep "$_rw_d"
		_rw_d=$((_rw_d * 2))
		[ "$_rw_d" -le 30 ] || _rw_d=30
	done
}

# relay_retry COMMAND...: COMMAND (an apt-get, its output to stderr); when
# it fails while the relay does not answer, again once it does.  A failure
# with the relay answering is the command's own: one more try, then it
# stands.
relay_retry() {
	_rr_left=1
	while ! "$@" >&2; do
		relay_through || return 1
		if relay_up; then
			[ "$_rr_left" -gt 0 ] || return 1
			_rr_left=$((_rr_left - 1))
			continue
		fi
		relay_wait || return 1
		prov_log "the package relay answers again: running apt-get again"
	done
}

# Container images of the offline bundle (apply --bundle): on nodes that run
# containerd or docker, PROV_APT_REPO/images/ holds images.tar (an OCI image
# layout with a docker-save manifest.json beside it) and images.list, one
# "REF MANIFEST-DIGEST CONFIG-DIGEST" line per image.  Nothing there: no
# images to import (online, or a bundle without images).
images_list() {
	[ -n "${PROV_APT_REPO:-}" ] && [ -f "$PROV_APT_REPO/images/.complete" ] &&
		cat "$PROV_APT_REPO/images/images.list"
}

# Served by the relay (PROV_APT_SERVED, a node other than the relay): the
# relay alone got the images tar, and serves it with the bundle
# (RELAY_URL/provision-bundle/ID/images/images.tar); images_fetch brings
# it here once, apt's own downloader checking it against the digest the
# verified bundle gave (PROV_IMAGES_SHA256), and unpacks its list as the
# upload does.  images.sha256 remembers the digest checked, so a check
# does not read the tar again.
images_served() {
	[ -n "${PROV_IMAGES_SHA256:-}" ] && relay_through
}

images_fetched() {
	_ifd=$PROV_APT_REPO/images
	[ -f "$_ifd/.complete" ] && [ -f "$_ifd/images.sha256" ] &&
		[ "$(cat "$_ifd/images.sha256")" = "$PROV_IMAGES_SHA256" ]
}

images_fetch() {
	images_served || return 0
	images_fetched && return 0
	_if_url=${RELAY_URL}provision-bundle/${PROV_APT_REPO##*/}/images/images.tar
	_if_tmp=$PROV_APT_REPO/images.tmp
	rm -rf -- "$_if_tmp"
	mkdir -p -- "$_if_tmp" || return 1
	prov_log "fetching the bundle's images from the relay: $_if_url"
	if ! relay_retry /usr/lib/apt/apt-helper download-file "$_if_url" \
		"$_if_tmp/images.tar" "SHA256:$PROV_IMAGES_SHA256"; then
		rm -rf -- "$_if_tmp"
		prov_log "could not fetch the bundle's images from the relay (missing there, or not the bundle's: its sha256 should be $PROV_IMAGES_SHA256)"
		return 1
	fi
	if ! tar -xf "$_if_tmp/images.tar" -C "$_if_tmp" --no-same-owner provision-images.list >&2 ||
		! mv -- "$_if_tmp/provision-images.list" "$_if_tmp/images.list"; then
		rm -rf -- "$_if_tmp"
		prov_log "the images tar from the relay has no provision-images.list"
		return 1
	fi
	printf '%s\n' "$PROV_IMAGES_SHA256" >"$_if_tmp/images.sha256" &&
		: >"$_if_tmp/.complete" || return 1
	rm -rf -- "$PROV_APT_REPO/images"
	mv -- "$_if_tmp" "$PROV_APT_REPO/images" || return 1
	prov_changed
}

# image_present REF DIGEST CONFIG: the runtime (RUNTIME) has REF, as that
# image.  containerd: in namespace k8s.io (the one the kubelet's CRI uses)
# with that manifest digest; docker: with that image ID (its config digest).
image_present() {
	case $RUNTIME in
	containerd)
		[ "$(ctr -n k8s.io images ls "name==$1" 2>/dev/null | awk -v r="$1" 'NR > 1 && $1 == r { print $3 }')" = "$2" ]
		;;
	docker)
		[ "$(docker image inspect -f '{{.Id}}' "$1" 2>/dev/null)" = "$3" ]
		;;
	*) return 1 ;;
	esac
}

# image_ref REF: the name to run REF by.  With docker, an image of the
# offline bundle is named by its image ID (the config digest), so docker
# runs exactly what the bundle carried and never pulls.  Any other image,
# and every image on containerd: REF.  (`ctr images import` names an image
# by its tag only, so neither ctr nor the kubelet's CRI would find it as
# REF@DIGEST; there images_ok checks, every run, that each tag names the
# bundle's digest, and images_import puts it back where it does not.)
image_ref() {
	_ir=$(images_list 2>/dev/null | awk -v r="$1" '$1 == r { print $3; exit }')
	case $RUNTIME:$_ir in
	docker:?*) echo "$_ir" ;;
	*) echo "$1" ;;
	esac
}

# images_missing: the references of the bundle's images the runtime lacks.
# containerd is asked once for all of them (each ctr is a process and a
# call to containerd, and a Kubernetes bundle holds ten images); docker
# once an image, since only it knows what a short name like busybox means.
images_missing() {
	_im_have=
	if [ "$RUNTIME" = containerd ]; then
		_im_have=$PROV_NL$(ctr -n k8s.io images ls 2>/dev/null |
			awk 'NR > 1 { print $1 " " $3 }')$PROV_NL
	fi
	images_list | while read -r _im_ref _im_dig _im_cfg; do
		[ -n "$_im_ref" ] || continue
		case $RUNTIME:$_im_have in
		containerd:*"$PROV_NL$_im_ref $_im_dig$PROV_NL"*) ;;
		containerd:*) echo "$_im_ref" ;;
		*) image_present "$_im_ref" "$_im_dig" "$_im_cfg" || echo "$_im_ref" ;;
		esac
	done
}

# images_ok: every image of the bundle is in the runtime (the check).
images_ok() {
	if images_served && ! images_fetched; then
		prov_why "the bundle's images are not fetched from the relay yet"
		return 1
	fi
	_io=$(images_missing | tr '\n' ' ')
	[ -z "$_io" ] || prov_why "not imported from the offline bundle: $_io"
}

# images_import: import the bundle's images when one is missing (the whole
# tar: containerd and docker skip the layers they have).  Runs after the
# runtime answers.
images_import() {
	images_fetch || return 1
	[ -n "$(images_missing)" ] || return 0
	_ii_tar=$PROV_APT_REPO/images/images.tar
	case $RUNTIME in
	containerd)
		prov_log "ctr -n k8s.io images import $_ii_tar"
		ctr -n k8s.io images import "$_ii_tar" >&2 || return 1
		;;
	docker)
		prov_log "docker load -i $_ii_tar"
		docker load -i "$_ii_tar" >&2 || return 1
		;;
	*) return 0 ;;
	esac
	prov_changed
}

# rhel_epel: EPEL and CRB (Slurm, munge, Prometheus, apptainer live there).
rhel_epel() {
	pkg_installed epel-release && return 0
	pkg_install dnf-plugins-core epel-release || return 1
	dnf config-manager --set-enabled crb >&2 || return 1
	prov_changed
}

# ------------------------------------------------------------------ files

prov_mode_norm() {
	printf '%o' "0$1"
}

# file_meta_ok PATH MODE OWNER
file_meta_ok() {
	[ "$(stat -c '%a %U:%G' -- "$1" 2>/dev/null)" = "$(prov_mode_norm "$2") $3" ]
}

# The bytes file_put writes for CONTENT: CONTENT ending in one newline.
prov_content() {
	case $1 in
	'' | *"$PROV_NL") printf '%s' "$1" ;;
	*) printf '%s\n' "$1" ;;
	esac
}

# file_same PATH MODE OWNER CONTENT: the file is exactly this?
file_same() {
	if [ ! -f "$1" ] || [ -L "$1" ]; then
		prov_why "$1 is missing"
		return 1
	fi
	file_meta_ok "$1" "$2" "$3" || prov_why "$1 is not $2 $3" || return 1
	_fs_want=$(prov_content "$4"; printf x)
	_fs_have=$(cat -- "$1" && printf x) || return 1
	[ "$_fs_have" = "$_fs_want" ] || prov_why "$1 differs from the plan's"
}

# file_put PATH MODE OWNER CONTENT: make the file exactly this, atomically
# (write beside it, then rename); touches nothing when it already is.
# Sets PROV_FILE_CHANGED to 1 when it wrote.  The content never reaches argv.
file_put() {
	PROV_FILE_CHANGED=0
	if file_same "$@"; then
		return 0
	fi
	_fp_dir=$(dirname -- "$1")
	if [ ! -d "$_fp_dir" ]; then
		mkdir -p -- "$_fp_dir" || return 1
	fi
	# a new file of a random name (mktemp: O_EXCL), never one planted
	_fp_tmp=$(mktemp -- "$_fp_dir/.$(basename -- "$1").provision.XXXXXX") || return 1
	if ! (umask 077 && prov_content "$4" >"$_fp_tmp") ||
		! chmod "$2" "$_fp_tmp" || ! chown "$3" "$_fp_tmp" ||
		! mv -f -- "$_fp_tmp" "$1"; then
		rm -f -- "$_fp_tmp"
		prov_log "cannot write $1"
		return 1
	fi
	prov_log "wrote $1"
	PROV_FILE_CHANGED=1
	prov_changed
}

# file_copy SRC DEST MODE OWNER: copy a (possibly binary) file, as file_put.
file_copy() {
	PROV_FILE_CHANGED=0
	if [ -f "$2" ] && cmp -s -- "$1" "$2" && file_meta_ok "$2" "$3" "$4"; then
		return 0
	fi
	_fc_tmp=$(mktemp -- "$(dirname -- "$2")/.$(basename -- "$2").provision.XXXXXX") || return 1
	if ! (umask 077 && cat -- "$1" >"$_fc_tmp") ||
		! chmod "$3" "$_fc_tmp" || ! chown "$4" "$_fc_tmp" ||
		! mv -f -- "$_fc_tmp" "$2"; then
		rm -f -- "$_fc_tmp"
		prov_log "cannot write $2"
		return 1
	fi
	prov_log "wrote $2"
	PROV_FILE_CHANGED=1
	prov_changed
}

# file_absent PATH: remove a file we manage when the plan no longer wants it.
file_absent() {
	PROV_FILE_CHANGED=0
	[ -e "$1" ] || [ -L "$1" ] || return 0
	rm -f -- "$1" || return 1
	prov_log "removed $1"
	PROV_FILE_CHANGED=1
	prov_changed
}

# dir_ok PATH MODE OWNER / dir_put PATH MODE OWNER
dir_ok() {
	if [ -d "$1" ] && file_meta_ok "$1" "$2" "$3"; then
		return 0
	fi
	prov_why "$1 is not a directory $2 $3"
}

dir_put() {
	dir_ok "$@" && return 0
	mkdir -p -- "$1" && chmod "$2" "$1" && chown "$3" "$1" || return 1
	prov_changed
}

PROV_BLOCK_BEGIN='# BEGIN provision'
PROV_BLOCK_END='# END provision'

# The file PATH with its managed block replaced by CONTENT (kept in place,
# or added at the end; CONTENT's final newlines dropped).
block_render() {
	# awk reads the file itself (no cat); "./" keeps a name with "=" a file
	_br_f=/dev/null
	if [ -f "$1" ]; then
		case $1 in /*) _br_f=$1 ;; *) _br_f=./$1 ;; esac
	fi
	PROV_BLOCK=$(printf '%s' "$2") awk -v b="$PROV_BLOCK_BEGIN" -v e="$PROV_BLOCK_END" '
		function block() {
			print b
			if (ENVIRON["PROV_BLOCK"] != "")
				print ENVIRON["PROV_BLOCK"]
			print e
			done = 1
		}
		$0 == b { if (!done) block(); skip = 1; next }
		$0 == e && skip { skip = 0; next }
		!skip { print }
		END { if (!done) block() }' "$_br_f"
}

# block_same PATH CONTENT / block_put PATH CONTENT: the lines between
# "# BEGIN provision" and "# END provision" in PATH are CONTENT; the rest of
# the file is left as it is.  A new file is 0644 root:root.
block_same() {
	[ -f "$1" ] || prov_why "$1 is missing" || return 1
	_bs_want=$(block_render "$1" "$2"; printf x)
	_bs_have=$(cat -- "$1" && printf x) || return 1
	[ "$_bs_have" = "$_bs_want" ] || prov_why "the provision block of $1 differs from the plan's"
}

block_put() {
	PROV_FILE_CHANGED=0
	block_same "$1" "$2" && return 0
	if [ -f "$1" ]; then
		_bp_mode=$(stat -c %a -- "$1") && _bp_owner=$(stat -c %U:%G -- "$1") || return 1
	else
		_bp_mode=0644
		_bp_owner=root:root
	fi
	_bp_new=$(block_render "$1" "$2" && printf x) || return 1
	_bp_new=${_bp_new%x}
	file_put "$1" "$_bp_mode" "$_bp_owner" "$_bp_new"
}

# ------------------------------------------------------------------ network

# http_get URL: print the body of a 2xx answer; fails otherwise.  Uses curl,
# wget, python3 or perl, whichever the node has (a Debian base root has perl).
http_get() {
	if command -v curl >/dev/null 2>&1; then
		curl -fsS --max-time 15 -- "$1"
	elif command -v wget >/dev/null 2>&1; then
		wget -q -T 15 -O - -- "$1"
	elif command -v python3 >/dev/null 2>&1; then
		python3 -c 'import sys, urllib.request
sys.stdout.write(urllib.request.urlopen(sys.argv[1], timeout=15).read().decode("utf-8", "replace"))' "$1"
	else
		prov_http_perl "$1"
	fi
}

# http_get with perl alone (perl-base is in every Debian root).
prov_http_perl() {
	# shellcheck disable=SC2016
	perl -MIO::Socket::INET -e '
		my ($h, $p, $path) = $ARGV[0] =~ m{^http://([^/:]+)(?::(\d+))?(/.*)?$} or exit 2;
		$SIG{ALRM} = sub { exit 1 };
		alarm 15;
		my $s = IO::Socket::INET->new(PeerAddr => $h, PeerPort => $p || 80,
			Proto => "tcp", Timeout => 10) or exit 1;
		print $s "GET " . ($path || "/") . " HTTP/1.0\r\nHost: $h\r\nConnection: close\r\n\r\n";
		local $/;
		my $r = <$s>;
		defined $r or exit 1;
		my ($head, $body) = split /\r\n\r\n/, $r, 2;
		$head =~ m{^HTTP/\S+ 2\d\d} or exit 1;
		print defined $body ? $body : "";
		exit 0' "$1"
}

# prov_fetch URL DEST [SHA256]: download over verified HTTPS (installs curl
# when the node has no downloader; http:// and redirects to it are
# refused).  With SHA256, the file must have that checksum: a mismatch
# (changed upstream, or changed on the way) fails and leaves nothing.  DEST
# is written only when the download completed and matched.
prov_fetch() {
	if ! command -v curl >/dev/null 2>&1 && ! command -v wget >/dev/null 2>&1; then
		pkg_install curl ca-certificates || return 1
	fi
	# a new file of a random name beside DEST (mktemp: O_EXCL), never one
	# planted there: DEST may be in /tmp
	_pf_tmp=$(mktemp -- "$2.provision.XXXXXX") || return 1
	if command -v curl >/dev/null 2>&1; then
		curl -fsSL --proto =https --proto-redir =https --retry 3 --max-time 600 \
			-o "$_pf_tmp" -- "$1" >&2 || { rm -f -- "$_pf_tmp"; return 1; }
	else
		wget -q --https-only -T 60 -t 3 -O "$_pf_tmp" -- "$1" >&2 || { rm -f -- "$_pf_tmp"; return 1; }
	fi
	if [ -n "${3:-}" ]; then
		_pf_sum=$(sha256sum <"$_pf_tmp") || { rm -f -- "$_pf_tmp"; return 1; }
		_pf_sum=${_pf_sum%% *}
		if [ "$_pf_sum" != "$3" ]; then
			rm -f -- "$_pf_tmp"
			prov_log "refusing $1: its sha256 is $_pf_sum, not the pinned $3 (changed upstream or on the way; update the pin in the template only after checking the vendor's published checksum)"
			return 1
		fi
	fi
	mv -f -- "$_pf_tmp" "$2"
}

# file_subst FILE OLD NEW: every OLD in FILE becomes NEW, both taken as
# plain text.  Values never become part of a sed or awk program (where a
# plan value could add commands: GNU sed's `e`, awk's system()): awk reads
# them from the environment, which it does not interpret.
file_subst() {
	if ! PROV_SUBST_OLD=$2 PROV_SUBST_NEW=$3 awk '
		BEGIN { o = ENVIRON["PROV_SUBST_OLD"]; n = ENVIRON["PROV_SUBST_NEW"] }
		{
			out = ""
			s = $0
			while (o != "" && (i = index(s, o)) > 0) {
				out = out substr(s, 1, i - 1) n
				s = substr(s, i + length(o))
			}
			print out s
		}' "$1" >"$1.subst.$$" || ! mv -f -- "$1.subst.$$" "$1"; then
		rm -f -- "$1.subst.$$"
		return 1
	fi
}

# ------------------------------------------------------------------ GPUs

# NVIDIA display/3D controllers (vendor 0x10de, class 0x0300xx VGA or 0x0302xx
# 3D) on the PCI bus, from sysfs: no driver needed.
nvidia_gpu_count() {
	_ngc=0
	for _ngc_d in "$PROV_PCI_DIR"/*; do
		if [ ! -r "$_ngc_d/vendor" ] || [ ! -r "$_ngc_d/class" ]; then
			continue
		fi
		[ "$(cat "$_ngc_d/vendor")" = 0x10de ] || continue
		case $(cat "$_ngc_d/class") in
		0x0300?? | 0x0302??) _ngc=$((_ngc + 1)) ;;
		esac
	done
	echo "$_ngc"
}

has_nvidia_gpu() {
	[ "$(nvidia_gpu_count)" -gt 0 ]
}

# The DCGM exporter's HPC job mapping: one file per GPU, named by its
# index, listing the Slurm jobs on it (Slurm's prolog writes them, step
# slurm; the exporter reads them, step dcgm-exporter).  A tmpfs: no file
# outlives the jobs across a reboot.
DCGM_JOB_MAP_DIR=/run/dcgm-job-map

# NVIDIA's repository directory names: ubuntu2204, debian12, rhel9 and
# x86_64 or sbsa (Arm servers).
nvidia_repo_distro() {
	case $PROV_OS_ID in
	ubuntu) echo "ubuntu$(echo "$PROV_OS_VERSION" | tr -d .)" ;;
	debian) echo "debian$PROV_OS_MAJOR" ;;
	*) echo "rhel$PROV_OS_MAJOR" ;;
	esac
}

nvidia_repo_arch() {
	case $PROV_ARCH in
	aarch64 | arm64) echo sbsa ;;
	*) echo x86_64 ;;
	esac
}

# cuda_repo: NVIDIA's CUDA repository (drivers, CUDA, DCGM) for this OS;
# offline, none (the bundle holds its packages).
cuda_repo() {
	apt_offline && return 0
	_cr_base=https://developer.download.nvidia.com/compute/cuda/repos/$(nvidia_repo_distro)/$(nvidia_repo_arch)
	case $PROV_OS_FAMILY in
	debian)
		pkg_installed cuda-keyring && return 0
		_cr_deb=/var/cache/provision/cuda-keyring_1.1-1_all.deb
		mkdir -p /var/cache/provision || return 1
		prov_fetch "$_cr_base/cuda-keyring_1.1-1_all.deb" "$_cr_deb" || return 1
		dpkg -i "$_cr_deb" >&2 || return 1
		apt_update || return 1
		prov_changed
		;;
	rhel)
		[ -f "/etc/yum.repos.d/cuda-$(nvidia_repo_distro).repo" ] && return 0
		pkg_install dnf-plugins-core || return 1
		dnf config-manager --add-repo "$_cr_base/cuda-$(nvidia_repo_distro).repo" >&2 || return 1
		prov_changed
		;;
	esac
}

# ------------------------------------------------------------------ kernel

# prov_kernel_ours: PID 1 is systemd, so the running kernel is this node's
# alone (not the host kernel a testbed node or a container shares): only
# then may a step load modules or set sysctls.
prov_kernel_ours() {
	[ "$PROV_SYSTEMD" = 1 ] && [ "$(cat /proc/1/comm 2>/dev/null)" = systemd ]
}

# sysctl_applied CONTENT: the running kernel has every "key = value" of
# CONTENT (a sysctl.d file).
sysctl_applied() {
	_sa_lines=$(printf '%s\n' "$1" | sed -e '/^[#;]/d' -e '/^[[:space:]]*$/d')
	while IFS='=' read -r _sa_k _sa_v; do
		_sa_k=$(echo "$_sa_k" | tr -d ' ')
		_sa_v=$(echo "$_sa_v" | tr -s ' \t' '  ' | sed 's/^ //; s/ $//')
		_sa_have=$(sysctl -n "$_sa_k" 2>/dev/null | tr -s ' \t' '  ') ||
			prov_why "sysctl $_sa_k is unknown to this kernel" || return 1
		[ "$_sa_have" = "$_sa_v" ] ||
			prov_why "sysctl $_sa_k is '$_sa_have', want '$_sa_v'" || return 1
	done <<EOF
$_sa_lines
EOF
}

# kmods_ok FILE MODULE... / kmods_put FILE MODULE...: the modules are
# listed in FILE (under /etc/modules-load.d: loaded at every boot) and,
# where the kernel is this node's, loaded now (/sys/module/NAME exists
# for a loaded or built-in module).
kmods_conf() {
	shift
	printf '# Managed by provision (step %s).\n' "$PROV_STEP"
	printf '%s\n' "$@"
}

kmods_ok() {
	file_same "$1" 0644 root:root "$(kmods_conf "$@")" || return 1
	shift
	prov_kernel_ours || return 0
	for _ko in "$@"; do
		[ -d "/sys/module/$_ko" ] || prov_why "kernel module $_ko is not loaded" || return 1
	done
	return 0
}

kmods_put() {
	file_put "$1" 0644 root:root "$(kmods_conf "$@")" || return 1
	shift
	if ! prov_kernel_ours; then
		prov_log "PID 1 is not systemd: modules listed, not loaded (the kernel is not this node's alone)"
		return 0
	fi
	for _kp in "$@"; do
		[ ! -d "/sys/module/$_kp" ] || continue
		modprobe "$_kp" >&2 || { prov_log "cannot load kernel module $_kp"; return 1; }
		prov_log "loaded kernel module $_kp"
		prov_changed
	done
	return 0
}

# sysctl_ok FILE CONTENT / sysctl_put FILE CONTENT: FILE (under
# /etc/sysctl.d: applied at every boot) is CONTENT and, where the kernel
# is this node's, the running kernel has its values.
sysctl_ok() {
	file_same "$1" 0644 root:root "$2" || return 1
	! prov_kernel_ours || sysctl_applied "$2"
}

sysctl_put() {
	file_put "$1" 0644 root:root "$2" || return 1
	if ! prov_kernel_ours; then
		prov_log "PID 1 is not systemd: $1 written, not applied (the kernel is not this node's alone)"
		return 0
	fi
	if ! sysctl_applied "$2" 2>/dev/null; then
		sysctl -q -p "$1" >&2 || { prov_log "sysctl refuses $1"; return 1; }
		prov_changed
	fi
}

# ------------------------------------------------------------------ services
#
# svc_start [-u USER] [-f FILE]... [-o] NAME -- COMMAND...
#	Make service NAME run, (re)starting it when it is stopped or when its
#	"stamp" (COMMAND, USER and the contents of each FILE) differs from the
#	one it was started with.  With systemd (/run/systemd/system exists)
#	NAME is a unit: the distribution's own, which reads the same settings
#	from the files the step wrote (/etc/default/...), or, with -o or when
#	there is no such unit, /etc/systemd/system/NAME.service running
#	COMMAND.  Without systemd COMMAND runs directly: it must stay in the
#	foreground; it runs as USER (setpriv), in its own session (setsid),
#	with its pid in /run/provision/NAME.pid and its output in
#	/var/log/provision/NAME.log.
# svc_running [same arguments]: running, and with this stamp?
# svc_restart [same arguments]: restart now.
# svc_stop NAME
# svc_remove NAME: stop it and, with systemd, disable it.

# Parse the options into _svc_user, _svc_files, _svc_own, _svc_name; sets
# _svc_shift to the number of arguments before COMMAND.
svc_opts() {
	_svc_user=
	_svc_files=
	_svc_own=0
	_svc_shift=0
	while [ $# -gt 0 ]; do
		case $1 in
		-u) _svc_user=$2; shift 2; _svc_shift=$((_svc_shift + 2)) ;;
		-f) _svc_files=$_svc_files$2$PROV_NL; shift 2; _svc_shift=$((_svc_shift + 2)) ;;
		-o) _svc_own=1; shift; _svc_shift=$((_svc_shift + 1)) ;;
		*) break ;;
		esac
	done
	if [ $# -lt 3 ] || [ "$2" != -- ]; then
		prov_log "usage: svc_start [-u USER] [-f FILE]... [-o] NAME -- COMMAND..."
		return 1
	fi
	_svc_name=$1
	_svc_shift=$((_svc_shift + 2))
}

# The stamp: a checksum of what the daemon was started with.
svc_stamp() {
	{
		printf 'user=%s\n' "$_svc_user"
		printf 'arg=%s\n' "$@"
		printf '%s' "$_svc_files" | while IFS= read -r _ss_f; do
			printf 'file=%s\n' "$_ss_f"
			cat -- "$_ss_f" 2>/dev/null || echo "(missing)"
		done
	} | cksum
}

svc_stamp_file() {
	if [ "$PROV_SYSTEMD" = 1 ]; then
		echo "$PROV_STATE_DIR/svc/$1.stamp"
	else
		echo "$PROV_RUN_DIR/$1.stamp"
	fi
}

# Field 22 of /proc/PID/stat (start time), to tell a reused pid apart.
prov_starttime() {
	sed 's/.*) //' "/proc/$1/stat" 2>/dev/null | awk '{ print $20 }'
}

# svc_pid NAME: the pid of a directly started daemon that still runs.
svc_pid() {
	[ -r "$PROV_RUN_DIR/$1.pid" ] || return 1
	read -r _sp_pid _sp_start <"$PROV_RUN_DIR/$1.pid" || return 1
	[ -n "$_sp_pid" ] && [ -r "/proc/$_sp_pid/stat" ] || return 1
	case $(sed 's/.*) //' "/proc/$_sp_pid/stat" | cut -d' ' -f1) in
	Z | X | x) return 1 ;;
	esac
	[ "$(prov_starttime "$_sp_pid")" = "$_sp_start" ] || return 1
	echo "$_sp_pid"
}

svc_alive() {
	if [ "$PROV_SYSTEMD" = 1 ]; then
		systemctl is-active --quiet "$1.service"
	else
		svc_pid "$1" >/dev/null
	fi
}

svc_running() {
	svc_opts "$@" || return 1
	shift "$_svc_shift"
	svc_alive "$_svc_name" || prov_why "$_svc_name is not running" || return 1
	if [ "$PROV_SYSTEMD" = 1 ]; then
		systemctl is-enabled --quiet "$_svc_name.service" ||
			prov_why "$_svc_name is not enabled" || return 1
	fi
	_sr_file=$(svc_stamp_file "$_svc_name")
	if [ -f "$_sr_file" ] && [ "$(cat "$_sr_file")" = "$(svc_stamp "$@")" ]; then
		return 0
	fi
	prov_why "$_svc_name runs with other settings than the plan's"
}

# systemd quoting of one ExecStart argument.
svc_sd_quote() {
	case $1 in
	*[!A-Za-z0-9_./:=,@+-]* | '')
		printf '"%s"' "$(printf '%s' "$1" | sed -e 's/\\/\\\\/g' -e 's/"/\\"/g' -e 's/%/%%/g' -e 's/\$/$$/g')"
		;;
	*) printf '%s' "$1" | sed 's/%/%%/g' ;;
	esac
}

# Our own unit for NAME when the distribution has none (or -o).
svc_sd_unit() {
	if [ "$_svc_own" = 0 ] && systemctl cat "$_svc_name.service" >/dev/null 2>&1 &&
		[ ! -f "/etc/systemd/system/$_svc_name.service" ]; then
		return 0
	fi
	_ssu_exec=
	for _ssu_a in "$@"; do
		_ssu_exec="$_ssu_exec${_ssu_exec:+ }$(svc_sd_quote "$_ssu_a")"
	done
	_ssu_unit="[Unit]
Description=$_svc_name (provision)
Wants=network-online.target
After=network-online.target

[Service]
Type=simple
ExecStart=$_ssu_exec
Restart=on-failure
RestartSec=5"
	if [ -n "$_svc_user" ]; then
		_ssu_unit="$_ssu_unit
User=$_svc_user"
	fi
	_ssu_unit="$_ssu_unit

[Install]
WantedBy=multi-user.target"
	file_put "/etc/systemd/system/$_svc_name.service" 0644 root:root "$_ssu_unit" || return 1
	if [ "$PROV_FILE_CHANGED" = 1 ]; then
		systemctl daemon-reload >&2 || return 1
	fi
}

svc_spawn() {
	mkdir -p "$PROV_LOG_DIR" || return 1
	if [ ! -d "$PROV_RUN_DIR" ]; then
		mkdir -p "$PROV_RUN_DIR" && chmod 0700 "$PROV_RUN_DIR" || return 1
	fi
	if [ -n "$_svc_user" ]; then
		_ssp_group=$(id -gn "$_svc_user") || { prov_log "no user $_svc_user"; return 1; }
		set -- setpriv --reuid="$_svc_user" --regid="$_ssp_group" --init-groups -- "$@"
	fi
	printf '=== %s: %s\n' "$(date '+%Y-%m-%d %H:%M:%S')" "$*" >>"$PROV_LOG_DIR/$_svc_name.log"
	# A background job of a non-interactive shell is no process group
	# leader, so setsid makes the session in place: $! is the daemon.
	setsid "$@" </dev/null >>"$PROV_LOG_DIR/$_svc_name.log" 2>&1 &
	_ssp_pid=$!
	_ssp_start=$(prov_starttime "$_ssp_pid")
	printf '%s %s\n' "$_ssp_pid" "$_ssp_start" >"$PROV_RUN_DIR/$_svc_name.pid" || return 1
	sleep 1
	if ! svc_pid "$_svc_name" >/dev/null; then
		prov_log "$_svc_name exited at once; the end of $PROV_LOG_DIR/$_svc_name.log:"
		tail -n 15 "$PROV_LOG_DIR/$_svc_name.log" >&2 || true
		return 1
	fi
	prov_log "started $_svc_name (pid $_ssp_pid)"
}

svc_stop() {
	if [ "$PROV_SYSTEMD" = 1 ]; then
		if systemctl is-active --quiet "$1.service"; then
			systemctl stop "$1.service" >&2 || return 1
			prov_changed
		fi
		return 0
	fi
	_sst_pid=$(svc_pid "$1") || { rm -f "$PROV_RUN_DIR/$1.pid"; return 0; }
	kill -TERM "$_sst_pid" 2>/dev/null || true
	_sst_n=0
	while svc_pid "$1" >/dev/null && [ "$_sst_n" -lt 30 ]; do
		sleep 0.5
		_sst_n=$((_sst_n + 1))
	done
	if svc_pid "$1" >/dev/null; then
		prov_log "$1 (pid $_sst_pid) ignores SIGTERM; killing it"
		kill -KILL "$_sst_pid" 2>/dev/null || true
		sleep 0.5
	fi
	rm -f "$PROV_RUN_DIR/$1.pid" "$PROV_RUN_DIR/$1.stamp"
	prov_log "stopped $1"
	prov_changed
}

# svc_remove NAME: a service the plan no longer wants: stopped, and with
# systemd not started at boot either (the unit svc_start wrote goes).
svc_remove() {
	svc_stop "$1" || return 1
	if [ "$PROV_SYSTEMD" = 1 ]; then
		if systemctl is-enabled --quiet "$1.service" 2>/dev/null; then
			systemctl disable "$1.service" >&2 || return 1
			prov_changed
		fi
		if grep -qx "Description=$1 (provision)" "/etc/systemd/system/$1.service" 2>/dev/null; then
			file_absent "/etc/systemd/system/$1.service" || return 1
			systemctl daemon-reload >&2 || return 1
		fi
	fi
	rm -f "$(svc_stamp_file "$1")"
}

# svc_go RESTART ARGS...: the body of svc_start (RESTART=0) and svc_restart.
svc_go() {
	_sg_force=$1
	shift
	svc_opts "$@" || return 1
	shift "$_svc_shift"
	_sg_stamp=$(svc_stamp "$@")
	_sg_file=$(svc_stamp_file "$_svc_name")
	if [ "$_sg_force" = 0 ] && svc_alive "$_svc_name" && [ -f "$_sg_file" ] &&
		[ "$(cat "$_sg_file")" = "$_sg_stamp" ] &&
		{ [ "$PROV_SYSTEMD" = 0 ] || systemctl is-enabled --quiet "$_svc_name.service"; }; then
		return 0
	fi
	if [ "$PROV_SYSTEMD" = 1 ]; then
		svc_sd_unit "$@" || return 1
		mkdir -p "$PROV_STATE_DIR/svc" || return 1
		systemctl enable "$_svc_name.service" >&2 || return 1
		systemctl restart "$_svc_name.service" >&2 || {
			systemctl status --no-pager "$_svc_name.service" >&2 || true
			return 1
		}
		prov_log "restarted $_svc_name"
	else
		svc_stop "$_svc_name" || return 1
		svc_spawn "$@" || return 1
	fi
	printf '%s\n' "$_sg_stamp" >"$_sg_file" || return 1
	prov_changed
}

svc_start() {
	svc_go 0 "$@"
}

svc_restart() {
	svc_go 1 "$@"
}

# svc_user_cmd USER COMMAND...: run COMMAND as USER (for one-off commands).
svc_user_cmd() {
	_suc_u=$1
	shift
	setpriv --reuid="$_suc_u" --regid="$(id -gn "$_suc_u")" --init-groups -- "$@"
}

# shellcheck shell=sh
# templates/reboot.sh: apply's managed reboots (lib/reboot.c).  Not a step:
# the engine sends this file on `sh -s` followed by one call,
#
#   reboot_start        print "boot ID" (the boot now), then reboot once
#                       this session has ended
#   reboot_wait SECONDS print "boot ID STATE [UNIT...]" once systemd says
#                       the boot is finished (running, degraded, ...) or
#                       SECONDS have passed (STATE starting); the units
#                       are the failed ones when degraded, those with a
#                       job running when starting
#
# The engine compares the IDs: a node is back when its boot ID changed.
set -u
PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
LC_ALL=C
export PATH LC_ALL

reboot_id() {
	read -r _ri </proc/sys/kernel/random/boot_id && echo "$_ri"
}

reboot_start() {
	if [ ! -d /run/systemd/system ]; then
		echo "no systemd on this node: apply reboots only nodes that run systemd" >&2
		exit 1
	fi
	_rs_id=$(reboot_id) || exit 1
	# A timer: the reboot starts after this command has answered and
	# the session is closed, never under it.
	systemd-run --quiet --no-block --on-active=2 --timer-property=AccuracySec=100ms \
		--unit="provision-reboot-$$" /bin/systemctl reboot >&2 || exit 1
	echo "boot $_rs_id"
}

reboot_wait() {
	_rw_id=$(reboot_id) || exit 1
	_rw_st=$(timeout "$1" systemctl is-system-running --wait 2>/dev/null) || true
	[ -n "$_rw_st" ] || _rw_st=starting
	_rw_units=
	if [ "$_rw_st" = degraded ]; then
		_rw_units=$(systemctl list-units --failed --plain --no-legend 2>/dev/null |
			awk '{ printf " %s", $1 }')
	elif [ "$_rw_st" = starting ]; then
		# what the boot is still at work on
		_rw_units=$(systemctl list-jobs --plain --no-legend 2>/dev/null |
			awk '$4 == "running" { printf " %s", $2 }')
	fi
	echo "boot $_rw_id $_rw_st$_rw_units"
}

# shellcheck shell=sh
# templates/logging.sh: every node's logs also on one node of the plan
# (logging.server), with rsyslog from the distribution.  The server
# listens on TCP LOG_PORT at its own address only and writes each
# sender's messages to /var/log/remote/HOST/messages.log, rotated daily
# and kept LOG_KEEP_DAYS days; the other nodes forward a copy of every
# message there through a disk-assisted queue, so a server that is down
# delays their logs and loses none.  Each node keeps its own logs too.
#
# LOG_SERVER_ADDR (empty: no logging), LOG_SERVER_HOST (1 on the server),
# LOG_PORT, LOG_KEEP_DAYS: numbers and an address (lib/render.c).
#
# The step runs on every node, logging: in the plan or not: without it,
# what an earlier plan's logging: left (the forwarding or listening
# config, the rotation) goes, and rsyslog goes back to the distribution's
# own config; the logs the server collected stay.

LOG_CONF=/etc/rsyslog.d/60-provision.conf
LOG_ROTATE=/etc/logrotate.d/provision-remote
LOG_DIR=/var/log/remote

# What an earlier plan's logging: left on this node.
logging_left() {
	[ -e "$LOG_CONF" ] || [ -e "$LOG_ROTATE" ]
}

# Without logging: in the plan, nothing of it is left.
logging_gone_ok() {
	if logging_left; then
		prov_why "log forwarding from an earlier plan is still in place ($LOG_CONF)"
		return 1
	fi
	[ "$PROV_PHASE" = recheck ] && return 0
	prov_skip "no logging: in the plan"
}

logging_remove() {
	file_absent "$LOG_CONF"
	file_absent "$LOG_ROTATE"
	# rsyslogd reads its config at start: the one provision started
	# restarts without ours (its stamp names the file, now missing)
	if svc_alive rsyslog; then
		logging_svc svc_start
	fi
}

# step_packages: the packages this step installs on this node.  Every
# pkg_install of the step takes its names from here; lib/bundle.c bundles
# the same names for the plan (tests/unit/test_bundle.c compares the two).
step_packages() {
	# without logging: it only removes
	[ -z "$LOG_SERVER_ADDR" ] || echo rsyslog logrotate
}

logging_conf() {
	echo "# Managed by provision (step logging)."
	if [ "$LOG_SERVER_HOST" = 1 ]; then
		cat <<EOF
# The cluster's logs: each sender's in $LOG_DIR/HOST/messages.log.
module(load="imtcp")
template(name="provision-remote" type="string"
	string="$LOG_DIR/%HOSTNAME:::secpath-replace%/messages.log")
ruleset(name="provision-remote") {
	action(type="omfile" dynaFile="provision-remote" createDirs="on"
		dirCreateMode="0750" fileCreateMode="0640")
	stop
}
input(type="imtcp" address="$LOG_SERVER_ADDR" port="$LOG_PORT" ruleset="provision-remote")
EOF
	else
		cat <<EOF
# A copy of every message to the log server; queued on disk while it is away.
*.* action(type="omfwd" target="$LOG_SERVER_ADDR" port="$LOG_PORT" protocol="tcp"
	action.resumeRetryCount="-1" action.resumeInterval="5"
	queue.type="LinkedList" queue.filename="provision-forward"
	queue.maxDiskSpace="1g" queue.saveOnShutdown="on")
EOF
	fi
}

logging_rotate() {
	cat <<EOF
# Managed by provision (step logging): the cluster's logs, $LOG_KEEP_DAYS days.
$LOG_DIR/*/*.log {
	daily
	rotate $LOG_KEEP_DAYS
	missingok
	notifempty
	compress
	delaycompress
	sharedscripts
	postrotate
		/usr/lib/rsyslog/rsyslog-rotate
	endscript
}
EOF
}

logging_svc() {
	set -- "$1" -f "$LOG_CONF" -f /etc/rsyslog.conf
	"$@" rsyslog -- /usr/sbin/rsyslogd -n
}

step_check() {
	if [ -z "$LOG_SERVER_ADDR" ]; then
		logging_gone_ok
		return
	fi
	# shellcheck disable=SC2046
	pkgs_installed $(step_packages) || return 1
	file_same "$LOG_CONF" 0644 root:root "$(logging_conf)" || return 1
	if [ "$LOG_SERVER_HOST" = 1 ]; then
		file_same "$LOG_ROTATE" 0644 root:root "$(logging_rotate)" || return 1
	else
		[ ! -e "$LOG_ROTATE" ] || prov_why "$LOG_ROTATE is the server's" || return 1
	fi
	logging_svc svc_running || return 1
}

step_apply() {
	if [ -z "$LOG_SERVER_ADDR" ]; then
		logging_remove
		return 0
	fi
	# shellcheck disable=SC2046
	pkg_install $(step_packages)
	file_put "$LOG_CONF" 0644 root:root "$(logging_conf)"
	if [ "$LOG_SERVER_HOST" = 1 ]; then
		dir_put "$LOG_DIR" 0750 root:adm
		file_put "$LOG_ROTATE" 0644 root:root "$(logging_rotate)"
		logrotate -d "$LOG_ROTATE" >/dev/null 2>&1 ||
			prov_fail "logrotate refuses $LOG_ROTATE: $(logrotate -d "$LOG_ROTATE" 2>&1 | grep -i error | head -n 3)"
	else
		file_absent "$LOG_ROTATE"
	fi
	# a config rsyslogd refuses fails the step before it restarts
	rsyslogd -N1 >/dev/null 2>&1 ||
		prov_fail "rsyslogd -N1 refuses the configuration: $(rsyslogd -N1 2>&1 | grep -i error | head -n 3)"
	logging_svc svc_start
}

# shellcheck shell=sh
# templates/users.sh: the plan's groups and users with one gid and uid on
# every node (Slurm runs a job under the submitter's uid on every node it
# lands on), their homes and SSH public keys.
#
# PLAN_GROUPS "NAME GID MEMBER,...|-" (a user without `group` has a group
# of its own, gid = uid), PLAN_USERS "NAME UID GID SHELL", PLAN_SSH_KEYS
# "NAME KEY-LINE", one a line (lib/render.c; every field a typed plan
# value).  The names this step ever made are kept in $USERS_STATE.
#
# A user the plan no longer lists is locked, not deleted: its password is
# locked, its account expired (sshd refuses even its keys), its shell is
# nologin and its authorized_keys are gone; its home and files stay, and so
# does its uid, so that no later user inherits files that carry that uid
# (on shared storage above all).  A group the plan no longer lists keeps
# its gid and loses its members, for the same reason.

USERS_STATE=$PROV_STATE_DIR/users
USERS_NOLOGIN=/usr/sbin/nologin

users_applies() {
	[ "$USERS_MANAGED" = 1 ] || [ -s "$USERS_STATE" ] ||
		prov_skip "no users or groups in the plan"
}

# field N of getent DB NAME, or nothing
users_ent() {
	getent "$1" "$2" 2>/dev/null | cut -d: -f"$3"
}

# The members of group NAME as the plan wants them: "a,b", or "".
users_members() {
	printf '%s\n' "$PLAN_GROUPS" | awk -v g="$1" '$1 == g { print ($3 == "-" ? "" : $3) }'
}

users_in_plan() {
	printf '%s\n' "$PLAN_USERS" | awk -v u="$1" '$1 == u { f = 1 } END { exit !f }'
}

groups_in_plan() {
	printf '%s\n' "$PLAN_GROUPS" | awk -v g="$1" '$1 == g { f = 1 } END { exit !f }'
}

# The authorized_keys of user NAME.
users_keys() {
	printf '%s\n' "$PLAN_SSH_KEYS" | awk -v u="$1" '$1 == u { sub(/^[^ ]+ /, ""); print }'
}

# What $USERS_STATE should hold: what it holds and the plan's names.
users_state_want() {
	{
		if [ -f "$USERS_STATE" ]; then
			cat -- "$USERS_STATE"
		fi
		printf '%s\n' "$PLAN_GROUPS" | awk 'NF { print "group " $1 }'
		printf '%s\n' "$PLAN_USERS" | awk 'NF { print "user " $1 }'
	} | sort -u
}

users_group_ok() {
	[ "$(users_ent group "$1" 3)" = "$2" ] ||
		prov_why "group $1 is not gid $2" || return 1
	[ "$(users_ent group "$1" 4)" = "$(users_members "$1")" ] ||
		prov_why "group $1 has other members than the plan's" || return 1
}

users_user_ok() {
	# name:x:uid:gid:gecos:home:shell
	[ "$(getent passwd "$1" | cut -d: -f3,4,6,7)" = "$2:$3:/home/$1:$4" ] ||
		prov_why "user $1 is not uid $2, gid $3, home /home/$1, shell $4" || return 1
	# usable: not locked, not expired
	if [ "$(users_ent shadow "$1" 2 | cut -c1)" = '!' ] || [ -n "$(users_ent shadow "$1" 8)" ]; then
		prov_why "user $1 is locked"
		return 1
	fi
	dir_ok "/home/$1" 700 "$1:$(users_ent group "$3" 1)" || return 1
	users_keys_ok "$1" "$3" || return 1
}

users_keys_ok() {
	_uko_keys=$(users_keys "$1")
	if [ -z "$_uko_keys" ]; then
		[ ! -e "/home/$1/.ssh/authorized_keys" ] ||
			prov_why "user $1 has keys the plan does not give" || return 1
		return 0
	fi
	_uko_own="$1:$(users_ent group "$2" 1)"
	dir_ok "/home/$1/.ssh" 700 "$_uko_own" || return 1
	file_same "/home/$1/.ssh/authorized_keys" 0600 "$_uko_own" "$_uko_keys"
}

users_locked_ok() {
	getent passwd "$1" >/dev/null || return 0
	if [ "$(users_ent shadow "$1" 2 | cut -c1)" = '!' ] &&
		[ "$(users_ent shadow "$1" 8)" = 1 ] &&
		[ "$(users_ent passwd "$1" 7)" = "$USERS_NOLOGIN" ] &&
		[ ! -e "/home/$1/.ssh/authorized_keys" ]; then
		return 0
	fi
	prov_why "user $1 left the plan but is not locked"
}

# The loops read here-documents, not pipes: a pipe would run them in a
# subshell, where prov_changed and prov_fail would not reach the step.
step_check() {
	users_applies
	while read -r _sc_n _sc_gid _sc_m; do
		[ -n "$_sc_n" ] || continue
		users_group_ok "$_sc_n" "$_sc_gid" || return 1
	done <<EOF
$PLAN_GROUPS
EOF
	while read -r _sc_n _sc_uid _sc_gid _sc_sh; do
		[ -n "$_sc_n" ] || continue
		users_user_ok "$_sc_n" "$_sc_uid" "$_sc_gid" "$_sc_sh" || return 1
	done <<EOF
$PLAN_USERS
EOF
	# those that left the plan
	_sc_state=$(users_state_want)
	while read -r _sc_k _sc_n; do
		case $_sc_k in
		user) users_in_plan "$_sc_n" || users_locked_ok "$_sc_n" || return 1 ;;
		group)
			groups_in_plan "$_sc_n" || [ -z "$(users_ent group "$_sc_n" 4)" ] ||
				prov_why "group $_sc_n left the plan but has members" || return 1
			;;
		esac
	done <<EOF
$_sc_state
EOF
	file_same "$USERS_STATE" 0644 root:root "$_sc_state"
}

# users_id_free DB ID NAME: no other entry than NAME has this id.
users_id_free() {
	_uif=$(getent "$1" "$2" | cut -d: -f1)
	[ -z "$_uif" ] || [ "$_uif" = "$3" ] ||
		prov_fail "$2 is taken by $1 entry '$_uif' on this node, the plan gives it to '$3'"
}

# users_not_system DB NAME: the node's own account or group of that name
# (id below 1000: "users", "games") is never taken over.
users_not_system() {
	_uns=$(getent "$1" "$2" | cut -d: -f3)
	[ -z "$_uns" ] || [ "$_uns" -ge 1000 ] ||
		prov_fail "$2 is a system $1 entry of this node (id $_uns): give the plan's another name"
}

users_group_put() {
	if ! getent group "$1" >/dev/null; then
		users_id_free group "$2" "$1"
		groupadd -g "$2" "$1" || prov_fail "groupadd $1 failed"
		prov_log "added group $1 ($2)"
		prov_changed
	elif [ "$(users_ent group "$1" 3)" != "$2" ]; then
		users_not_system group "$1"
		users_id_free group "$2" "$1"
		groupmod -g "$2" "$1" || prov_fail "groupmod -g $2 $1 failed"
		prov_log "group $1 is now gid $2"
		prov_changed
	fi
}

users_user_put() {
	if ! getent passwd "$1" >/dev/null; then
		users_id_free passwd "$2" "$1"
		# '*': no password, not locked (logins by key only)
		useradd -u "$2" -g "$3" -s "$4" -d "/home/$1" -m -p '*' "$1" ||
			prov_fail "useradd $1 failed"
		prov_log "added user $1 ($2)"
		prov_changed
	fi
	if [ "$(getent passwd "$1" | cut -d: -f3,4,6,7)" != "$2:$3:/home/$1:$4" ]; then
		users_not_system passwd "$1"
		users_id_free passwd "$2" "$1"
		usermod -u "$2" -g "$3" -s "$4" -d "/home/$1" "$1" ||
			prov_fail "usermod $1 failed (does it run processes?)"
		prov_log "user $1 is now uid $2, gid $3, shell $4"
		prov_changed
	fi
	# a user back in the plan: unlocked, its account not expired
	if [ "$(users_ent shadow "$1" 2 | cut -c1)" = '!' ] || [ -n "$(users_ent shadow "$1" 8)" ]; then
		usermod -p '*' -e '' "$1" || prov_fail "usermod: cannot unlock $1"
		prov_log "unlocked user $1"
		prov_changed
	fi
	_uup_own="$1:$(users_ent group "$3" 1)"
	dir_put "/home/$1" 0700 "$_uup_own"
	_uup_keys=$(users_keys "$1")
	if [ -n "$_uup_keys" ]; then
		dir_put "/home/$1/.ssh" 0700 "$_uup_own"
		file_put "/home/$1/.ssh/authorized_keys" 0600 "$_uup_own" "$_uup_keys"
	else
		file_absent "/home/$1/.ssh/authorized_keys"
	fi
}

# users_members_put GROUP "a,b": exactly these members.
users_members_put() {
	getent group "$1" >/dev/null || return 0
	[ "$(users_ent group "$1" 4)" != "$2" ] || return 0
	gpasswd -M "$2" "$1" >&2 || prov_fail "gpasswd -M: cannot set the members of $1"
	prov_log "group $1: members ${2:-none}"
	prov_changed
}

users_lock() {
	getent passwd "$1" >/dev/null || return 0
	users_locked_ok "$1" 2>/dev/null && return 0
	usermod -L -e 1 -s "$USERS_NOLOGIN" "$1" || prov_fail "usermod: cannot lock $1"
	file_absent "/home/$1/.ssh/authorized_keys"
	prov_log "locked user $1 (left the plan; home and uid kept)"
	prov_changed
}

step_apply() {
	while read -r _sa_n _sa_gid _sa_m; do
		[ -z "$_sa_n" ] || users_group_put "$_sa_n" "$_sa_gid"
	done <<EOF
$PLAN_GROUPS
EOF
	while read -r _sa_n _sa_uid _sa_gid _sa_sh; do
		[ -z "$_sa_n" ] || users_user_put "$_sa_n" "$_sa_uid" "$_sa_gid" "$_sa_sh"
	done <<EOF
$PLAN_USERS
EOF
	# members once every user exists
	while read -r _sa_n _sa_gid _sa_m; do
		[ -n "$_sa_n" ] || continue
		users_members_put "$_sa_n" "$(users_members "$_sa_n")"
	done <<EOF
$PLAN_GROUPS
EOF
	_sa_state=$(users_state_want)
	while read -r _sa_k _sa_n; do
		case $_sa_k in
		user) users_in_plan "$_sa_n" || users_lock "$_sa_n" ;;
		group) groups_in_plan "$_sa_n" || users_members_put "$_sa_n" "" ;;
		esac
	done <<EOF
$_sa_state
EOF
	dir_put "$PROV_STATE_DIR" 0755 root:root
	file_put "$USERS_STATE" 0644 root:root "$_sa_state"
}

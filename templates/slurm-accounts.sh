# shellcheck shell=sh
# templates/slurm-accounts.sh: Slurm's QOS, accounts, users and limits
# made what the plan's scheduling: says, on the head, through sacctmgr:
# each QOS with its priority and the QOS it preempts; each team an
# account with its fair share, GPU limit (GrpTRES gres/gpu=N on the
# account's association, shared by the whole team) and the QOS it may
# use (the first its default), which its users' associations inherit;
# each member a user association, a user's first team its default
# account.  QOS, accounts and user associations that are not in the plan
# are removed (Slurm's own QOS 'normal' and root's excepted): the
# accounting database is the plan's.
#
# SLURM_ACCOUNTS "TEAM FAIRSHARE GPUS QOS,..." (GPUS -1: no limit; the
# first QOS the default), SLURM_QOS "QOS PRIORITY PREEMPTED,...|-" and
# SLURM_ASSOCS "USER TEAM", one a line (lib/render.c).

accounts_applies() {
	[ "$ORCHESTRATOR" = slurm ] || prov_skip "orchestrator is ${ORCHESTRATOR:-none}, not slurm"
	[ "$SLURM_ACCOUNTING" = 1 ] || prov_skip "no scheduling: in the plan (Slurm accounting is off)"
	[ "$SLURM_ROLE" = controller ] || prov_skip "sacctmgr runs on the head"
}

acct_sacctmgr() {
	sacctmgr -i "$@" >&2 || prov_fail "sacctmgr $* failed"
	prov_log "sacctmgr $*"
	prov_changed
}

# acct_set LIST: a comma list sorted, so that two lists compare as sets.
acct_set() {
	printf '%s\n' "$1" | tr ',' '\n' | sed '/^$/d' | sort -u | paste -s -d, -
}

# acct_plan_qos NAME: the plan has QOS NAME.
acct_plan_qos() {
	printf '%s\n' "$SLURM_QOS" | awk -v q="$1" '$1 == q { f = 1 } END { exit !f }'
}

# acct_team_qos TEAM: the plan's QOS list of TEAM, its default first.
acct_team_qos() {
	printf '%s\n' "$SLURM_ACCOUNTS" | awk -v t="$1" '$1 == t { print $4 }'
}

# The QOS as sacctmgr shows them, "qos|NAME|PRIORITY|PREEMPTED,..." a
# line; Slurm's 'normal' only when the plan has it.
acct_have_qos() {
	_ahq=$(sacctmgr -n -P show qos format=name,priority,preempt) || return 1
	printf '%s\n' "$_ahq" | while IFS='|' read -r _ahq_n _ahq_p _ahq_pre; do
		[ -n "$_ahq_n" ] || continue
		[ "$_ahq_n" != normal ] || acct_plan_qos normal || continue
		echo "qos|$_ahq_n|$_ahq_p|$(acct_set "$_ahq_pre")"
	done | sort
}

acct_want_qos() {
	printf '%s\n' "$SLURM_QOS" | while read -r _awq_n _awq_p _awq_pre; do
		[ -n "$_awq_n" ] || continue
		[ "$_awq_pre" != - ] || _awq_pre=
		echo "qos|$_awq_n|$_awq_p|$(acct_set "$_awq_pre")"
	done | sort
}

# The associations as sacctmgr shows them, root's left out:
# "ACCOUNT|USER|SHARES|GRPTRES|QOS,...|DEFAULT-QOS" a line, then
# "user|NAME|DEFAULT-ACCOUNT", then the QOS lines.
acct_have() {
	_ah=$(sacctmgr -n -P show assoc cluster="$SLURM_CLUSTER" \
		format=account,user,fairshare,grptres,qos,defaultqos) || return 1
	printf '%s\n' "$_ah" | while IFS='|' read -r _ah_a _ah_u _ah_s _ah_g _ah_q _ah_d; do
		case "$_ah_a|$_ah_u" in
		'|'* | 'root|'* | *'|root') continue ;;
		esac
		echo "$_ah_a|$_ah_u|$_ah_s|$_ah_g|$(acct_set "$_ah_q")|$_ah_d"
	done | sort
	sacctmgr -n -P show user format=user,defaultaccount |
		awk -F'|' '$1 != "root" { print "user|" $1 "|" $2 }' | sort || return 1
	acct_have_qos
}

# The same, as the plan wants it: a user's association has its team's QOS.
acct_want() {
	{
		printf '%s\n' "$SLURM_ACCOUNTS" | while read -r _aw_t _aw_s _aw_g _aw_q; do
			[ -n "$_aw_t" ] || continue
			if [ "$_aw_g" -lt 0 ]; then _aw_g=; else _aw_g=gres/gpu=$_aw_g; fi
			echo "$_aw_t||$_aw_s|$_aw_g|$(acct_set "$_aw_q")|${_aw_q%%,*}"
		done
		printf '%s\n' "$SLURM_ASSOCS" | while read -r _aw_u _aw_t; do
			[ -n "$_aw_u" ] || continue
			_aw_q=$(acct_team_qos "$_aw_t")
			echo "$_aw_t|$_aw_u|1||$(acct_set "$_aw_q")|${_aw_q%%,*}"
		done
	} | sort
	printf '%s\n' "$SLURM_ASSOCS" | awk 'NF && !seen[$1]++ { print "user|" $1 "|" $2 }' | sort
	acct_want_qos
}

step_check() {
	accounts_applies
	_sc_have=$(acct_have) || prov_why "sacctmgr does not answer" || return 1
	[ "$_sc_have" = "$(acct_want)" ] ||
		prov_why "Slurm's QOS, accounts, users or limits differ from the plan's" || return 1
}

# acct_names LINES N: field N of each line, one a line (for grep -x -F).
acct_names() {
	printf '%s\n' "$1" | awk -v f="$2" 'NF { print $f }' | sort -u
}

# acct_qos_add NAME PRIORITY: made when missing; acct_qos_put NAME
# PRIORITY PREEMPTED,...|-: its priority and preempt list, once every QOS
# exists (the list names others).
acct_qos_add() {
	printf '%s\n' "$_sa_qos" | grep -qx "$1" || acct_sacctmgr add qos "$1" priority="$2"
}

acct_qos_put() {
	_aqp_pre=$3
	[ "$_aqp_pre" != - ] || _aqp_pre=
	_aqp_have=$(acct_have_qos | awk -F'|' -v q="$1" '$2 == q { print $3 "|" $4 }')
	[ "$_aqp_have" = "$2|$(acct_set "$_aqp_pre")" ] && return 0
	# an empty value clears the list
	acct_sacctmgr modify qos where name="$1" set priority="$2" preempt="$_aqp_pre"
}

# acct_team_put TEAM FAIRSHARE GPUS QOS,...
acct_team_put() {
	_atp_tres=gres/gpu=$3
	[ "$3" -ge 0 ] || _atp_tres=gres/gpu=-1
	if ! printf '%s\n' "$_sa_accounts" | grep -qx "$1"; then
		if [ "$3" -ge 0 ]; then
			acct_sacctmgr add account "$1" cluster="$SLURM_CLUSTER" fairshare="$2" grptres="$_atp_tres" \
				qos="$4" defaultqos="${4%%,*}"
		else
			acct_sacctmgr add account "$1" cluster="$SLURM_CLUSTER" fairshare="$2" \
				qos="$4" defaultqos="${4%%,*}"
		fi
		return 0
	fi
	_atp_have=$(printf '%s\n' "$_sa_have" | awk -F'|' -v a="$1" '$1 == a && $2 == "" { print $3 "|" $4 "|" $5 "|" $6 }')
	_atp_want="$2||$(acct_set "$4")|${4%%,*}"
	[ "$3" -lt 0 ] || _atp_want="$2|gres/gpu=$3|$(acct_set "$4")|${4%%,*}"
	[ "$_atp_have" = "$_atp_want" ] ||
		acct_sacctmgr modify account where name="$1" cluster="$SLURM_CLUSTER" \
			set fairshare="$2" grptres="$_atp_tres" qos="$4" defaultqos="${4%%,*}"
}

# acct_assoc_put USER TEAM: the association, with the team's QOS.
acct_assoc_put() {
	_aap_q=$(acct_team_qos "$2")
	_aap_have=$(printf '%s\n' "$_sa_have" | awk -F'|' -v a="$2" -v u="$1" '$1 == a && $2 == u { print $5 "|" $6 }')
	if [ -n "$_aap_have" ]; then
		[ "$_aap_have" = "$(acct_set "$_aap_q")|${_aap_q%%,*}" ] ||
			acct_sacctmgr modify user where name="$1" account="$2" cluster="$SLURM_CLUSTER" \
				set qos="$_aap_q" defaultqos="${_aap_q%%,*}"
		return 0
	fi
	if printf '%s\n' "$_sa_users" | grep -qx "$1"; then
		acct_sacctmgr add user "$1" account="$2" cluster="$SLURM_CLUSTER" \
			qos="$_aap_q" defaultqos="${_aap_q%%,*}"
	else
		acct_sacctmgr add user "$1" account="$2" defaultaccount="$2" cluster="$SLURM_CLUSTER" \
			qos="$_aap_q" defaultqos="${_aap_q%%,*}"
		_sa_users="$_sa_users$PROV_NL$1"
	fi
}

step_apply() {
	_sa_accounts=$(sacctmgr -n -P list account format=account) || prov_fail "sacctmgr list account failed"
	_sa_users=$(sacctmgr -n -P list user format=user) || prov_fail "sacctmgr list user failed"
	_sa_qos=$(sacctmgr -n -P show qos format=name) || prov_fail "sacctmgr show qos failed"
	while read -r _sa_q _sa_p _sa_pre; do
		[ -z "$_sa_q" ] || acct_qos_add "$_sa_q" "$_sa_p"
	done <<EOF
$SLURM_QOS
EOF
	while read -r _sa_q _sa_p _sa_pre; do
		[ -z "$_sa_q" ] || acct_qos_put "$_sa_q" "$_sa_p" "$_sa_pre"
	done <<EOF
$SLURM_QOS
EOF
	_sa_have=$(acct_have) || prov_fail "sacctmgr does not answer"
	while read -r _sa_t _sa_fs _sa_gpus _sa_tq; do
		[ -z "$_sa_t" ] || acct_team_put "$_sa_t" "$_sa_fs" "$_sa_gpus" "$_sa_tq"
	done <<EOF
$SLURM_ACCOUNTS
EOF
	# a changed account passes its QOS on to its users' associations
	_sa_have=$(acct_have) || prov_fail "sacctmgr does not answer"
	while read -r _sa_u _sa_t; do
		[ -z "$_sa_u" ] || acct_assoc_put "$_sa_u" "$_sa_t"
	done <<EOF
$SLURM_ASSOCS
EOF
	# default accounts: the first team, before other associations go
	_sa_defs=$(printf '%s\n' "$SLURM_ASSOCS" | awk 'NF && !seen[$1]++ { print $1, $2 }')
	while read -r _sa_u _sa_t; do
		[ -n "$_sa_u" ] || continue
		_sa_d=$(sacctmgr -n -P show user "$_sa_u" format=defaultaccount)
		[ "$_sa_d" = "$_sa_t" ] ||
			acct_sacctmgr modify user where name="$_sa_u" set defaultaccount="$_sa_t"
	done <<EOF
$_sa_defs
EOF
	# what the plan does not hold: users (with all their associations),
	# associations, accounts, QOS
	_sa_gone=$(sacctmgr -n -P list user format=user |
		grep -v -x -F -e root -e "$(acct_names "$SLURM_ASSOCS" 1)" || true)
	while read -r _sa_u; do
		[ -z "$_sa_u" ] || acct_sacctmgr delete user where name="$_sa_u"
	done <<EOF
$_sa_gone
EOF
	# stray associations of the plan's users (their default is a plan team now)
	_sa_have=$(acct_have) || prov_fail "sacctmgr does not answer"
	_sa_want=$(printf '%s\n' "$SLURM_ASSOCS" | awk 'NF { print $2 "|" $1 }')
	_sa_gone=$(printf '%s\n' "$_sa_have" | awk -F'|' '$1 != "user" && $1 != "qos" && $2 != "" { print $1 "|" $2 }' |
		grep -v -x -F -e "$_sa_want" | tr '|' ' ' || true)
	while read -r _sa_t _sa_u; do
		[ -z "$_sa_t" ] || acct_sacctmgr delete user where name="$_sa_u" account="$_sa_t" cluster="$SLURM_CLUSTER"
	done <<EOF
$_sa_gone
EOF
	_sa_gone=$(sacctmgr -n -P list account format=account |
		grep -v -x -F -e root -e "$(acct_names "$SLURM_ACCOUNTS" 1)" || true)
	while read -r _sa_t; do
		[ -z "$_sa_t" ] || acct_sacctmgr delete account where name="$_sa_t"
	done <<EOF
$_sa_gone
EOF
	# QOS last, when no association of the plan's uses them
	_sa_gone=$(sacctmgr -n -P show qos format=name |
		grep -v -x -F -e normal -e "$(acct_names "$SLURM_QOS" 1)" || true)
	while read -r _sa_q; do
		[ -z "$_sa_q" ] || acct_sacctmgr delete qos where name="$_sa_q"
	done <<EOF
$_sa_gone
EOF
}

# shellcheck shell=sh
# templates/slurm-accounts.sh: Slurm's accounts, users and limits made
# what the plan's scheduling.teams say, on the head, through sacctmgr:
# each team an account with its fair share and GPU limit (GrpTRES
# gres/gpu=N on the account's association, shared by the whole team),
# each member a user association, a user's first team its default
# account.  Accounts and user associations that are not in the plan are
# removed (root's excepted): the accounting database is the plan's.
#
# SLURM_ACCOUNTS "TEAM FAIRSHARE GPUS" (GPUS -1: no limit) and
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

# The associations as sacctmgr shows them, root's left out:
# "ACCOUNT|USER|SHARES|GRPTRES" a line, then "user|NAME|DEFAULT-ACCOUNT".
acct_have() {
	sacctmgr -n -P show assoc cluster="$SLURM_CLUSTER" format=account,user,fairshare,grptres |
		awk -F'|' '$1 != "root" && $2 != "root"' | sort || return 1
	sacctmgr -n -P show user format=user,defaultaccount |
		awk -F'|' '$1 != "root" { print "user|" $1 "|" $2 }' | sort
}

# The same, as the plan wants it.
acct_want() {
	{
		printf '%s\n' "$SLURM_ACCOUNTS" |
			awk 'NF { print $1 "||" $2 "|" ($3 < 0 ? "" : "gres/gpu=" $3) }'
		printf '%s\n' "$SLURM_ASSOCS" | awk 'NF { print $2 "|" $1 "|1|" }'
	} | sort
	printf '%s\n' "$SLURM_ASSOCS" | awk 'NF && !seen[$1]++ { print "user|" $1 "|" $2 }' | sort
}

step_check() {
	accounts_applies
	_sc_have=$(acct_have) || prov_why "sacctmgr does not answer" || return 1
	[ "$_sc_have" = "$(acct_want)" ] ||
		prov_why "Slurm's accounts, users or limits differ from the plan's" || return 1
}

# acct_names LINES N: field N of each line, one a line (for grep -x -F).
acct_names() {
	printf '%s\n' "$1" | awk -v f="$2" 'NF { print $f }' | sort -u
}

acct_team_put() {
	_atp_tres=gres/gpu=$3
	[ "$3" -ge 0 ] || _atp_tres=gres/gpu=-1
	if ! printf '%s\n' "$_sa_accounts" | grep -qx "$1"; then
		if [ "$3" -ge 0 ]; then
			acct_sacctmgr add account "$1" cluster="$SLURM_CLUSTER" fairshare="$2" grptres="$_atp_tres"
		else
			acct_sacctmgr add account "$1" cluster="$SLURM_CLUSTER" fairshare="$2"
		fi
		return 0
	fi
	_atp_have=$(printf '%s\n' "$_sa_have" | awk -F'|' -v a="$1" '$1 == a && $2 == "" { print $3 "|" $4 }')
	_atp_want="$2|"
	[ "$3" -lt 0 ] || _atp_want="$2|gres/gpu=$3"
	[ "$_atp_have" = "$_atp_want" ] ||
		acct_sacctmgr modify account where name="$1" cluster="$SLURM_CLUSTER" set fairshare="$2" grptres="$_atp_tres"
}

acct_assoc_put() {
	if printf '%s\n' "$_sa_have" | grep -qx "$2|$1|[^|]*|[^|]*"; then
		return 0
	fi
	if printf '%s\n' "$_sa_users" | grep -qx "$1"; then
		acct_sacctmgr add user "$1" account="$2" cluster="$SLURM_CLUSTER"
	else
		acct_sacctmgr add user "$1" account="$2" defaultaccount="$2" cluster="$SLURM_CLUSTER"
		_sa_users="$_sa_users$PROV_NL$1"
	fi
}

step_apply() {
	_sa_have=$(acct_have) || prov_fail "sacctmgr does not answer"
	_sa_accounts=$(sacctmgr -n -P list account format=account) || prov_fail "sacctmgr list account failed"
	_sa_users=$(sacctmgr -n -P list user format=user) || prov_fail "sacctmgr list user failed"
	while read -r _sa_t _sa_fs _sa_gpus; do
		[ -z "$_sa_t" ] || acct_team_put "$_sa_t" "$_sa_fs" "$_sa_gpus"
	done <<EOF
$SLURM_ACCOUNTS
EOF
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
	# associations, accounts
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
	_sa_gone=$(printf '%s\n' "$_sa_have" | awk -F'|' '$1 != "user" && $2 != "" { print $1 "|" $2 }' |
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
}

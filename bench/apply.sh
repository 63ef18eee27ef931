#!/usr/bin/env bash
# apply.sh: time an idempotent re-apply (every step already done) of
# `provision apply` on the loopback fleet of ../shared/bench against
# `ansible-playbook` running the very same rendered step scripts as
# `script:` tasks.  Run by hand (about 45 min); never part of `make test`.
#
#   bench/apply.sh [all]     fleet up 200, every measurement, table, fleet down
#   bench/apply.sh provision only provision (N = 10 50 100, then 200 with
#                            -f 64, -f 200 and the slurm variant)
#   bench/apply.sh ansible   only ansible-playbook at N = 200
#   bench/apply.sh table     print the table of what was measured
# At N = 200 every series runs once a round (provision RUNS rounds, ansible
# the first ANSIBLE_RUNS), so that the machine's load weighs on all alike.
#
# The fleet's 200 "hosts" are THIS machine (one sshd on :2222 answering on
# 127.0.1.1-200), so only bench/apply-templates ever runs there: its checks
# only read the machine and pass, its apply parts fail rather than change
# anything.  The real templates/ are never used against the fleet.
#
# Environment: RUNS (timed provision runs, 5), ANSIBLE_RUNS (3), NS (node
# counts for provision, "10 50 100 200"), PROVISION (the binary, ./provision),
# APPLY_FLEET_N (fleet size, 200), ABENCH_DIR (work folder,
# /tmp/provision-apply-bench), BENCH_SHARED (the shared harness,
# ../shared/bench), FLEET_DIR (/tmp/fleet), SKIP_SLURM=1, ANSIBLE_CONFIGS
# ("linear-f64 free-f64 linear-f200 free-f200 linear-f64-persist
# free-f200-persist"; a config ending in -warm keeps the package listings
# of the run before it), APPLY_TEMPLATES (another bench template folder, for
# experiments: it too must only read the machine).
# Needs: ansible (apt-get install ansible), python3, GNU time (/usr/bin/time).
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
BENCH_SHARED=${BENCH_SHARED:-$(cd "$ROOT/.." && pwd)/shared/bench}
FLEET_SH=$BENCH_SHARED/fleet.sh
TREEMEM=$BENCH_SHARED/treemem.py
export FLEET_DIR=${FLEET_DIR:-/tmp/fleet}
PROVISION=${PROVISION:-$ROOT/provision}
TEMPLATES=${APPLY_TEMPLATES:-$ROOT/bench/apply-templates}
W=${ABENCH_DIR:-/tmp/provision-apply-bench}
TSV=$W/results.tsv
RUNS=${RUNS:-5}
ANSIBLE_RUNS=${ANSIBLE_RUNS:-3}
NS=${NS:-10 50 100 200}
FLEET_N=${APPLY_FLEET_N:-200}	# fleet size; ansible and the -f 200/slurm runs use it all
KEYDIR=/etc/provision		# the engine fetches /etc/provision/out/munge.key
BENCH_RUN_DIRS=/run/provision-bench	# per host PROV_RUN_DIR (apply-templates)

die() { echo "apply.sh: $*" >&2; exit 1; }
say() { echo "apply.sh: $*" >&2; }

# ------------------------------------------------------------------ setup

check_tools() {
	[[ -x $PROVISION ]] || die "no provision binary at $PROVISION (make)"
	[[ -x $FLEET_SH ]] || die "no fleet.sh at $FLEET_SH (set BENCH_SHARED)"
	[[ -r $TREEMEM ]] || die "no treemem.py at $TREEMEM"
	[[ -x /usr/bin/time ]] || die "GNU time is needed (apt-get install time)"
	# bench/apply-templates/lib.sh is a copy of templates/lib.sh: the same
	# prov_run_step machinery.  Keep it current.
	if [[ -z ${APPLY_TEMPLATES:-} ]] && ! cmp -s "$ROOT/templates/lib.sh" "$TEMPLATES/lib.sh"; then
		say "templates/lib.sh changed: refreshing bench/apply-templates/lib.sh"
		cp "$ROOT/templates/lib.sh" "$TEMPLATES/lib.sh"
	fi
	# every ssh connection is a descriptor; 200 hosts need more than 1024
	ulimit -n "$(ulimit -Hn)" 2>/dev/null || true
	mkdir -p "$W/raw"
	[[ -f $TSV ]] || printf 'tool\tconfig\tn\trun\twall_s\tuser_s\tsys_s\tmaxrss_kb\tlogins\tverify\n' >"$TSV"
}

FLEET_STARTED=0
fleet_up() {
	if "$FLEET_SH" status >/dev/null 2>&1; then
		say "the fleet is already up: using it (and leaving it up)"
	else
		FLEET_STARTED=1
	fi
	"$FLEET_SH" up "$FLEET_N" >&2
}

fleet_down() {
	if [[ $FLEET_STARTED == 1 ]]; then
		"$FLEET_SH" down >&2 || true
	fi
}

logins() { grep -c 'Connection from' "$FLEET_DIR/sshd.log" || true; }

# ------------------------------------------------------------------ timing

POST_HOOK=	# run after each timed command, given its time file
# timed TOOL CONFIG N RUN VERIFYFN CMD...: one run under GNU time; the
# command's output is kept in raw/; VERIFYFN OUTFILE RC must say "ok".
timed() {
	local tool=$1 config=$2 n=$3 run=$4 verify=$5 out tf l0 l1 rc v
	shift 5
	out=$W/raw/$tool.$config.$n.$run.out
	tf=$W/raw/$tool.$config.$n.$run.time
	l0=$(logins)
	rc=0
	# Every fleet "host" is this machine: each keeps its package listing
	# (lib.sh's prov_dpkg_list) in its own folder, and every timed run
	# starts with none, as after a reboot: the dearest re-apply.  A
	# config named *-warm keeps the listings the run before it left, as a
	# re-apply with no reboot and no package change in between finds them.
	[[ $config == *-warm ]] || rm -rf "$BENCH_RUN_DIRS"
	/usr/bin/time -f '%e %U %S %M' -o "$tf" "$@" </dev/null >"$out" 2>&1 || rc=$?
	l1=$(logins)
	[[ -z $POST_HOOK ]] || "$POST_HOOK" "$tf"
	v=$("$verify" "$out" "$rc" "$n")
	read -r e u s m <"$tf" || die "no timing in $tf"
	if [[ $run != warm ]]; then
		printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$tool" "$config" \
		    "$n" "$run" "$e" "$u" "$s" "$m" "$((l1 - l0))" "$v" >>"$TSV"
	fi
	say "$tool $config N=$n run $run: ${e}s wall, $(echo "$u + $s" | bc) s cpu, logins $((l1 - l0)), $v"
	[[ $v == ok ]] || die "verification failed: $v (see $out)"
}

# memory TOOL CONFIG N CMD...: one extra, untimed run under treemem.py
memory() {
	local tool=$1 config=$2 n=$3 line
	shift 3
	line=$(python3 "$TREEMEM" -- "$@")
	printf '%s\t%s\t%s\tmem\t%s\n' "$tool" "$config" "$n" "$line" >>"$W/mem.tsv"
	say "$tool $config N=$n memory: $line"
	[[ $line == *" rc=0" ]] || die "the memory run failed: $line"
}

# ------------------------------------------------------------------ provision

PLANS=()
plan_for() {	# plan_for N VARIANT: sets PLAN (written once per run of apply.sh)
	PLAN=$W/plan-$1-$2.yaml
	if [[ " ${PLANS[*]} " != *" $PLAN "* ]]; then
		"$ROOT/bench/apply-plan.sh" "$1" "$2" >"$PLAN"
		PLANS+=("$PLAN")
	fi
}

# "N nodes: N ok, 0 failed (0 unreachable); steps: S ok, 0 changed, 0 skipped, 0 failed"
PROV_STEPS=3
verify_provision() {
	local out=$1 rc=$2 n=$3 want
	want="$n nodes: $n ok, 0 failed (0 unreachable); steps: $((n * PROV_STEPS)) ok, 0 changed, 0 skipped, 0 failed"
	if [[ $rc != 0 ]]; then
		echo "exit-$rc"
	elif ! grep -qxF "$want" "$out"; then
		echo "summary-differs"
	else
		echo ok
	fi
}

# Every host's recap line: ok=STEPS, failed=0, unreachable=0.
ANS_STEPS=0
verify_ansible() {
	local out=$1 rc=$2 n=$3 good
	good=$(grep -cE "^127\.0\.1\.[0-9]+ +: ok=$ANS_STEPS +changed=[0-9]+ +unreachable=0 +failed=0 " "$out" || true)
	if [[ $rc != 0 ]]; then
		echo "exit-$rc"
	elif [[ $good != "$n" ]]; then
		echo "recap-$good/$n"
	else
		echo ok
	fi
}

# The slurm variant needs the head's munge key where the engine fetches it
# (/etc/provision/out/munge.key on "the head", i.e. this machine): a random
# bench key, made only when /etc/provision does not exist, removed after.
KEY_MADE=0
bench_key_up() {
	if [[ -s $KEYDIR/out/munge.key ]]; then
		return 0
	fi
	if [[ -e $KEYDIR ]]; then
		say "$KEYDIR exists without out/munge.key: not writing into it; no slurm variant"
		return 1
	fi
	KEY_MADE=1
	mkdir -m 0755 "$KEYDIR"
	mkdir -m 0700 "$KEYDIR/out"
	(umask 077 && head -c 1024 /dev/urandom >"$KEYDIR/out/munge.key")
}

bench_key_down() {
	if [[ $KEY_MADE == 1 ]]; then
		rm -f "$KEYDIR/out/munge.key"
		rmdir "$KEYDIR/out" "$KEYDIR"
		KEY_MADE=0
	fi
}

# ------------------------------------------------------------------ ansible

ansible_env() {	# the baseline's settings, pipelining on
	echo ANSIBLE_HOME="$FLEET_DIR/ansible" ANSIBLE_LOCAL_TEMP="$FLEET_DIR/ansible/tmp" \
	    ANSIBLE_REMOTE_TMP="$FLEET_DIR/ansible-remote" \
	    ANSIBLE_SSH_CONTROL_PATH_DIR="$FLEET_DIR/ansible/cp" \
	    ANSIBLE_HOST_KEY_CHECKING=True ANSIBLE_SSH_USETTY=False ANSIBLE_NOCOLOR=1 \
	    ANSIBLE_RETRY_FILES_ENABLED=False ANSIBLE_PIPELINING=True
}

# off: the baseline's (a new SSH login per remote command); persist:
# ansible's own default (one master per host, kept for the run, 60 s).
ansible_ssh_args() {
	if [[ $1 == persist ]]; then
		echo "-F $FLEET_DIR/ssh_config -o ControlMaster=auto -o ControlPersist=60s"
	else
		echo "-F $FLEET_DIR/ssh_config -o ControlMaster=no -o ControlPersist=no"
	fi
}

# The scripts: `provision apply --dry-run` with the same templates, and a
# playbook with one script: task per step, each host running its own node's
# rendered file (fleet inventory names are addresses: 127.0.1.7 = host-007).
make_playbook() {
	local dir=$W/scripts f name
	plan_for "$FLEET_N" none
	rm -rf "$dir"
	"$PROVISION" apply --dry-run "$dir" --templates "$TEMPLATES" "$PLAN" >&2
	ANS_STEPS=0
	{
		echo "# generated by bench/apply.sh: the steps provision renders, as script: tasks"
		echo "- hosts: all"
		echo "  gather_facts: false"
		echo "  vars:"
		echo "    node: \"host-{{ '%03d' % (inventory_hostname.split('.')[3] | int) }}\""
		echo "  tasks:"
		for f in "$dir"/host-001/*.sh; do
			name=${f##*/}
			echo "    - name: ${name%.sh}"
			echo "      script: \"$dir/{{ node }}/$name\""
			ANS_STEPS=$((ANS_STEPS + 1))
		done
	} >"$W/apply.yml"
}

# With ControlPersist the masters outlive the run: add their CPU to the
# run's time file (they do the SSH work; no one waits for them, so GNU time
# misses it) and stop them, so that every run starts cold.
persist_cleanup() {	# persist_cleanup [TIMEFILE]
	local tf=${1:-} ut=0 stt=0 pid st sock hz
	hz=$(getconf CLK_TCK)
	for pid in /proc/[0-9]*; do
		pid=${pid#/proc/}
		{ tr '\0' ' ' <"/proc/$pid/cmdline"; } 2>/dev/null | grep -qF "$FLEET_DIR/ansible/cp/" || continue
		st=$({ sed 's/.*) //' "/proc/$pid/stat"; } 2>/dev/null) || continue
		[[ -n $st ]] || continue
		ut=$((ut + $(echo "$st" | awk '{ print $12 }')))
		stt=$((stt + $(echo "$st" | awk '{ print $13 }')))
	done
	for sock in "$FLEET_DIR"/ansible/cp/*; do
		[[ -S $sock ]] || continue
		ssh -o ControlPath="$sock" -O exit fleet-master >/dev/null 2>&1 || true
	done
	sleep 1
	if [[ -n $tf && -f $tf ]]; then
		awk -v u="$ut" -v s="$stt" -v hz="$hz" '{ $2 += u / hz; $3 += s / hz; print }' "$tf" >"$tf.new" &&
		    mv "$tf.new" "$tf"
	fi
}

# ------------------------------------------------------------------ series

# set_cmd TOOL CONFIG N: CMD, VERIFY and POST_HOOK of one series.
#   provision f64 | f200 | slurm-f64
#   ansible STRATEGY-fFORKS[-persist], e.g. linear-f64, free-f200-persist
set_cmd() {
	local tool=$1 config=$2 n=$3 strategy forks persist envv c
	POST_HOOK=
	case $tool:$config in
	provision:f64 | provision:f200 | provision:f64-warm)
		PROV_STEPS=3
		plan_for "$n" none
		c=${config%-warm}
		CMD=("$PROVISION" apply --plain --templates "$TEMPLATES"
		    --state-dir "$W/state-$config-$n" --forks "${c#f}" "$PLAN")
		VERIFY=verify_provision
		;;
	provision:slurm-f64)
		PROV_STEPS=5
		plan_for "$n" slurm
		CMD=("$PROVISION" apply --plain --templates "$TEMPLATES"
		    --state-dir "$W/state-$config-$n" --forks 64 "$PLAN")
		VERIFY=verify_provision
		;;
	ansible:*)
		IFS=- read -r strategy forks persist <<<"${config%-warm}"
		forks=${forks#f}
		persist=${persist:-off}
		# shellcheck disable=SC2207
		envv=($(ansible_env))
		CMD=(env "${envv[@]}" "ANSIBLE_SSH_ARGS=$(ansible_ssh_args "$persist")"
		    ANSIBLE_STRATEGY="$strategy"
		    ansible-playbook -i "$FLEET_DIR/inventory.ini" -f "$forks" "$W/apply.yml")
		VERIFY=verify_ansible
		[[ $persist == off ]] || POST_HOOK=persist_cleanup
		mkdir -p "$FLEET_DIR/ansible/tmp" "$FLEET_DIR/ansible/cp"
		;;
	*) die "no series $tool $config" ;;
	esac
}

one_run() {	# one_run TOOL CONFIG N RUN
	set_cmd "$1" "$2" "$3"
	timed "$1" "$2" "$3" "$4" "$VERIFY" "${CMD[@]}"
	POST_HOOK=
}

one_mem() {	# one_mem TOOL CONFIG N
	set_cmd "$1" "$2" "$3"
	memory "$1" "$2" "$3" "${CMD[@]}"
	[[ -z $POST_HOOK ]] || persist_cleanup ""
	POST_HOOK=
}

# Provision alone at the smaller sizes: warm-up, RUNS timed runs, memory.
run_scaling() {
	local n i
	for n in $NS; do
		[[ $n != "$FLEET_N" ]] || continue
		one_run provision f64 "$n" warm
		for ((i = 1; i <= RUNS; i++)); do
			one_run provision f64 "$n" "$i"
		done
		one_mem provision f64 "$n"
	done
}

# The comparison at FLEET_N, interleaved (round i runs every series once)
# so that the load of the machine weighs on all of them alike.
run_compare() {	# run_compare WITH_PROVISION WITH_ANSIBLE
	local prov=() ans=() c i max
	if [[ $1 == 1 ]]; then
		prov=(f64 f200 f64-warm)
		if [[ ${SKIP_SLURM:-0} != 1 ]] && bench_key_up; then
			prov+=(slurm-f64)
		fi
	fi
	if [[ $2 == 1 ]]; then
		command -v ansible-playbook >/dev/null || die "ansible-playbook is missing (apt-get install ansible)"
		# shellcheck disable=SC2206
		ans=(${ANSIBLE_CONFIGS:-linear-f64 free-f64 linear-f200 free-f200 linear-f64-persist free-f200-persist})
		make_playbook
	fi
	for c in "${prov[@]}"; do
		one_run provision "$c" "$FLEET_N" warm
	done
	max=$((RUNS > ANSIBLE_RUNS ? RUNS : ANSIBLE_RUNS))
	for ((i = 1; i <= max; i++)); do
		if ((i <= RUNS)); then
			for c in "${prov[@]}"; do
				one_run provision "$c" "$FLEET_N" "$i"
			done
		fi
		if ((i <= ANSIBLE_RUNS)); then
			for c in "${ans[@]}"; do
				one_run ansible "$c" "$FLEET_N" "$i"
			done
		fi
	done
	for c in "${prov[@]}"; do
		one_mem provision "$c" "$FLEET_N"
	done
	for c in "${ans[@]}"; do
		one_mem ansible "$c" "$FLEET_N"
	done
	bench_key_down
}

# ------------------------------------------------------------------ table

table() {
	[[ -f $TSV ]] || die "nothing measured yet ($TSV)"
	awk -F'\t' -v memf="$W/mem.tsv" '
	function med(s,   a, k, i, j, t) {
		k = split(s, a, " ")
		for (i = 1; i <= k; i++) for (j = i + 1; j <= k; j++)
			if (a[j] + 0 < a[i] + 0) { t = a[i]; a[i] = a[j]; a[j] = t }
		lo = a[1]; hi = a[k]
		return k % 2 ? a[(k + 1) / 2] : (a[k / 2] + a[k / 2 + 1]) / 2
	}
	BEGIN {
		while ((getline l < memf) > 0) {
			split(l, f, "\t")
			split(f[5], m, " ")
			sub(/.*=/, "", m[2])
			pss[f[1] SUBSEP f[2] SUBSEP f[3]] = m[2]
		}
	}
	NR > 1 && $10 == "ok" {
		k = $1 SUBSEP $2 SUBSEP $3
		if (!(k in seen)) { seen[k] = 1; order[++nk] = k }
		wall[k] = wall[k] " " $5
		cpu[k] = cpu[k] " " ($6 + $7)
		rss[k] = rss[k] " " $8 / 1024
		lg[k] = lg[k] " " $9 / $3
	}
	END {
		print "| tool | config | N | wall s, median (min-max) | client cpu s | largest proc MiB | tree PSS MiB | logins/host | vs provision f64 |"
		print "|---|---|---|---|---|---|---|---|---|"
		for (i = 1; i <= nk; i++) {
			k = order[i]; split(k, p, SUBSEP)
			w = med(wall[k]); wl = lo; wh = hi
			if (p[1] == "provision" && p[2] == "f64") base[p[3]] = w
		}
		for (i = 1; i <= nk; i++) {
			k = order[i]; split(k, p, SUBSEP)
			w = med(wall[k]); wl = lo; wh = hi
			r = (p[3] in base) ? sprintf("%.1fx", w / base[p[3]]) : "-"
			printf "| %s | %s | %s | %.2f (%.2f-%.2f) | %.2f | %.1f | %s | %.0f | %s |\n",
			    p[1], p[2], p[3], w, wl, wh, med(cpu[k]), med(rss[k]),
			    (k in pss) ? pss[k] : "-", med(lg[k]), r
		}
	}' "$TSV"
}

# ------------------------------------------------------------------ main

cleanup() {
	bench_key_down || true
	fleet_down
}

what=${1:-all}
case $what in
table) table; exit 0 ;;
all | provision | ansible) ;;
*) die "usage: apply.sh [all|provision|ansible|table]" ;;
esac
check_tools
trap cleanup EXIT
fleet_up
say "results in $TSV; $("$PROVISION" --version 2>/dev/null || echo "$PROVISION"); $( (ansible-playbook --version 2>/dev/null || echo "no ansible") | sed -n 1p)"
case $what in
all) run_scaling; run_compare 1 1 ;;
provision) run_scaling; run_compare 1 0 ;;
ansible) run_compare 0 1 ;;
esac
table

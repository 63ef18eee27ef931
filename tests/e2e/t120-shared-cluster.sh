#!/bin/sh
# A cluster people share, on the local testbed (examples/testbed-shared.yaml):
# users and groups with the plan's uid and gid on every node, a user's SSH
# key lets it in; Slurm accounting (MariaDB + slurmdbd on the head) with
# two teams; the team limited to 2 GPUs (count-only GRES on the workers)
# submits three 1-GPU jobs as its user and the third pends on the
# association's limit; sshare shows the plan's shares; a second apply
# changes nothing.  nlp's QOS preempts vision's: an urgent job on a
# worker whose GPUs a standard job holds requeues it.  Each GPU is two
# shards (gres/shard): a job's shards come from one GPU, so two fit and
# three never do.  Then a user, a team and a QOS leave the plan: the
# user is locked on every node and gone from Slurm, the team's account
# and the QOS are gone, and the apply after that changes nothing either.
# Both workers' logs reach the head (rsyslog), and `provision usage`
# gives each team's and user's GPU-hours as sacct counts them.  The
# count-only GPUs are stand-in character devices, which slurmd loads, so
# jobs get SLURM_JOB_GPUS (a plain file, as an older provision left, the
# next apply makes the device, restarting slurmd).  With the DCGM exporter in the plan, the
# workers get Slurm's prolog and epilog that keep each GPU's file in
# /run/dcgm-job-map (the exporter's hpc_job label): while a job runs, the
# file of each GPU Slurm gave it lists its id (a 1-GPU job one file, a
# 2-GPU job both), two jobs on shards of one GPU both, and a job's end,
# or its preemption, takes its id alone away.  Where the stand-ins are no
# devices (slurmd refuses plain files, and the prolog then gets no
# SLURM_JOB_GPUS) the mapping checks skip, saying so.  Last,
# scheduling:, logging: and the DCGM exporter leave the plan: slurmdbd,
# MariaDB, the forwarding and the prolog/epilog go, Slurm runs without
# accounting, and the next apply changes nothing.
#
# Nodes start from fresh disks (an earlier test's Slurm state would count).
# SAN=1: not run: dpkg, MariaDB and Slurm take its time: the readers are
#   test_usage's
. "$(dirname "$0")/lib.sh"
set -u
[ "$(id -u)" -eq 0 ] || skip_all "needs root (namespaces, debootstrap)"
command -v ssh-keygen >/dev/null 2>&1 || skip_all "no ssh-keygen"
cd "$TOP" || exit 1
testbed_lock || exit 1

TB=${TESTBED_DIR:-/var/tmp/provision-testbed}
KEY=$TB/id_ed25519
KH=$TB/known_hosts
W=$(mktemp -d /tmp/t120.XXXXXX)
PLAN=$W/plan.yaml
STATE=$W/state
export PROVISION

cleanup() {
	# the Prometheus and exporters this test started
	[ -f "$W/pids" ] && while read -r pid; do kill "$pid" 2>/dev/null; done < "$W/pids"
	# 8>&-: the nodes must not inherit testbed_lock's descriptor
	scripts/testbed down "$PLAN" >/dev/null 2>&1 8>&-
	# T120_KEEP=1: keep the plan, logs and state to look at
	[ -n "${T120_KEEP:-}" ] && echo "# kept $W" || rm -rf "$W"
}
trap cleanup EXIT INT TERM

# alice's key is made here, so that logging in as alice proves it arrived.
ssh-keygen -q -t ed25519 -N '' -C alice@t120 -f "$W/alice" || exit 1
awk -v k="$(cat "$W/alice.pub")" '
	/^    ssh_keys:/ { print "    ssh_keys: [ \"" k "\" ]"; next } { print }' \
	examples/testbed-shared.yaml |
	sed 's/^  monitoring: { node_exporter: false }$/  monitoring: { node_exporter: false, dcgm_exporter: true }/' > "$PLAN"
grep -q 'alice@t120' "$PLAN" || { not_ok "alice's key in the plan"; done_testing; exit 1; }
grep -q 'dcgm_exporter: true' "$PLAN" || { not_ok "the DCGM exporter in the plan"; done_testing; exit 1; }

scripts/testbed down --purge "$PLAN" >/dev/null 2>&1 8>&-
check "testbed up" scripts/testbed up "$PLAN" 8>&-

apply() {
	"$PROVISION" apply --plain --state-dir "$STATE" "$PLAN" > "$W/$1.txt" 2>&1
}

# jobmap NAME ADDR: worker NAME's DCGM job mapping files list, GPU by GPU,
# the running jobs Slurm gave that GPU (scontrol's GRES=...(IDX:N)), no
# more, no less; waits up to 15 s for the prologs and epilogs.  The last
# line of $W/jobmap.txt, "pairs N", counts the GPU-job pairs it wanted
# (callers check it: no jobs and no files would match too).
jobmap() {
	for i in $(seq 1 15); do
		on 127.0.10.1 "scontrol -d -o show job" > "$W/jobmap-jobs.txt" 2>&1
		on $2 'for f in /run/dcgm-job-map/*; do [ -f "$f" ] && echo "${f##*/}" $(cat "$f"); done; true' > "$W/jobmap-files.txt" 2>&1
		python3 - "$1" "$W/jobmap-jobs.txt" "$W/jobmap-files.txt" > "$W/jobmap.txt" <<'PY' && return 0
import re, sys
node = sys.argv[1]
want = {}
for line in open(sys.argv[2]):
    if " JobState=RUNNING " not in line:
        continue
    job = re.search(r"JobId=(\d+)", line).group(1)
    for m in re.finditer(r" Nodes=(\S+) CPU_IDs=\S+ Mem=\S+ GRES=\S*?\(IDX:([\d,-]+)\)", line):
        if m.group(1) != node:
            continue
        for r in m.group(2).split(","):
            a, _, b = r.partition("-")
            for g in range(int(a), int(b or a) + 1):
                want.setdefault(str(g), set()).add(job)
got = {}
for line in open(sys.argv[3]):
    f = line.split()
    got[f[0]] = set(f[1:])
print("want", sorted((k, sorted(v)) for k, v in want.items()))
print("got ", sorted((k, sorted(v)) for k, v in got.items()))
print("pairs", sum(len(v) for v in want.values()))
sys.exit(0 if want == got else 1)
PY
		sleep 1
	done
	sed 's/^/# /' "$W/jobmap.txt"
	return 1
}

apply apply1; rc=$?
[ $rc -eq 0 ] && ok "first apply succeeds" ||
	{ not_ok "first apply succeeds (exit $rc)"; tail -40 "$W/apply1.txt" | sed 's/^/# /'; }

# Users: the plan's ids everywhere; alice's key lets her in.
for a in 127.0.10.1 127.0.10.2 127.0.10.3; do
	got=$(on $a 'echo $(id -u alice):$(id -g alice):$(id -u bob):$(id -gn bob):$(id -u carol):$(getent group research | cut -d: -f3,4)')
	[ "$got" = "3001:3001:3002:research:3003:3000:alice" ] &&
		ok "uids and gids on $a" || not_ok "uids and gids on $a: '$got'"
done
got=$(ssh -q -i "$W/alice" -o UserKnownHostsFile="$KH" -o StrictHostKeyChecking=yes \
	-o BatchMode=yes -o IdentitiesOnly=yes alice@127.0.10.2 'id -un' 2>&1)
[ "$got" = alice ] && ok "alice logs in to worker-01 with her key" ||
	not_ok "alice logs in to worker-01 with her key: $got"

# Accounting: the teams, their shares and limits.
on 127.0.10.1 "sacctmgr -n -P show assoc format=account,user,fairshare,grptres" > "$W/assoc.txt" 2>&1
grep -qx 'vision||60|gres/gpu=2' "$W/assoc.txt" && grep -qx 'nlp||40|' "$W/assoc.txt" &&
	grep -qx 'vision|alice|1|' "$W/assoc.txt" && grep -qx 'nlp|carol|1|' "$W/assoc.txt" &&
	ok "sacctmgr: the plan's teams, members and GPU limit" ||
	{ not_ok "sacctmgr: the plan's teams, members and GPU limit"; sed 's/^/# /' "$W/assoc.txt"; }
on 127.0.10.1 "sshare -n -P -a -o account,user,rawshares" > "$W/sshare.txt" 2>&1
grep -q '^ *vision||60$' "$W/sshare.txt" && grep -q '^ *nlp||40$' "$W/sshare.txt" &&
	ok "sshare shows the plan's shares" ||
	{ not_ok "sshare shows the plan's shares"; sed 's/^/# /' "$W/sshare.txt"; }

# The GPU limit: vision may hold 2 GPUs; alice asks for three, one each.
on 127.0.10.1 'for i in 1 2 3; do
	runuser -u alice -- sbatch --parsable -p debug --gres=gpu:1 --mem=50M \
		--chdir=/tmp -o /dev/null --wrap "sleep 300" || exit 1
done' > "$W/jobs.txt" 2>&1
[ "$(grep -c '^[0-9][0-9]*$' "$W/jobs.txt")" -eq 3 ] && ok "alice submits three 1-GPU jobs" ||
	{ not_ok "alice submits three 1-GPU jobs"; sed 's/^/# /' "$W/jobs.txt"; }
st=
for i in $(seq 1 40); do
	st=$(on 127.0.10.1 "squeue -h -u alice -o '%T %r' | sort | uniq -c | tr -s ' ' | tr '\n' ';'")
	case $st in *" 1 PENDING AssocGrpGRES;"*" 2 RUNNING None;"*) break ;; esac
	sleep 1
done
case $st in
*" 1 PENDING AssocGrpGRES;"*" 2 RUNNING None;"*) ok "two jobs run, the third pends on the team's GPU limit (AssocGrpGRES)" ;;
*) not_ok "two jobs run, the third pends on the team's GPU limit: '$st'" ;;
esac
# The DCGM exporter's job mapping: each running job's id in the file of
# the GPU Slurm gave it (the prolog got SLURM_JOB_GPUS).  Both running
# jobs count: two GPU-job pairs over the two workers.
on 127.0.10.2 "grep -x 'Prolog=/etc/slurm/prolog-dcgm-job-map' /etc/slurm/slurm.conf; stat -c '%a %U:%G' /etc/slurm/prolog-dcgm-job-map /etc/slurm/epilog-dcgm-job-map /run/dcgm-job-map; cat /etc/tmpfiles.d/provision-dcgm-job-map.conf" > "$W/jobmap-conf.txt" 2>&1
[ "$(sed -n '1,4p;$p' "$W/jobmap-conf.txt" | tr '\n' ';')" = "Prolog=/etc/slurm/prolog-dcgm-job-map;755 root:root;755 root:root;755 root:root;d /run/dcgm-job-map 0755 root root -;" ] &&
	ok "worker-01 runs the job mapping prolog and epilog (0755 root), its folder made now and at boot" ||
	{ not_ok "worker-01's job mapping prolog, epilog and folder"; sed 's/^/# /' "$W/jobmap-conf.txt"; }
# Slurm builds the prolog's SLURM_JOB_GPUS from the GPU devices slurmd
# loaded: a gres.conf File that is no character or block device it
# drops ("... is not a valid character or block device"), and a job on
# it gets neither SLURM_JOB_GPUS nor CUDA_VISIBLE_DEVICES.  The slurm
# step makes the count-only stand-ins character devices 120:N; where a
# node has none (measured on the node, with slurmd's word for it) the
# mapping checks say so and skip.
on 127.0.10.2 "stat -c '%n %F %t:%T %a %U:%G' /var/lib/provision/gres/gpu*; grep -c 'is not a valid character or block device' /var/log/slurm/slurmd.log" > "$W/standins.txt" 2>&1
[ "$(tr '\n' ';' < "$W/standins.txt")" = "/var/lib/provision/gres/gpu0 character special file 78:0 600 root:root;/var/lib/provision/gres/gpu1 character special file 78:1 600 root:root;0;" ] &&
	ok "worker-01's count-only GPUs are stand-in character devices 120:0 and 120:1 (0600 root), none refused by slurmd" ||
	{ not_ok "worker-01's count-only GPUs are stand-in character devices"; sed 's/^/# /' "$W/standins.txt"; }
jobmap_off=$(on 127.0.10.2 "[ -c /var/lib/provision/gres/gpu0 ] || echo '/var/lib/provision/gres/gpu0 is no character device'; grep -m1 -o '[^ ]* is not a valid character or block device' /var/log/slurm/slurmd.log")
jobmap_skip() {
	echo "# skip: $1: no stand-in GPU devices here ($(echo $jobmap_off)): the prolog gets no SLURM_JOB_GPUS"
}
if [ -n "$jobmap_off" ]; then
	jobmap_skip "the DCGM job mapping while alice's jobs run"
else
	pairs=0
	jobmap worker-01 127.0.10.2 && pairs=$(sed -n 's/^pairs //p' "$W/jobmap.txt") &&
		cp "$W/jobmap.txt" "$W/jobmap-01.txt" && jobmap worker-02 127.0.10.3 &&
		pairs=$((pairs + $(sed -n 's/^pairs //p' "$W/jobmap.txt"))) && [ "$pairs" -eq 2 ] &&
		ok "while alice's two 1-GPU jobs run, the DCGM job mapping file of each one's GPU holds its id ($(grep -h '^got ' "$W/jobmap-01.txt" "$W/jobmap.txt" | tr '\n' ' '))" ||
		{ not_ok "the DCGM job mapping while alice's two jobs run ($pairs GPU-job pairs)"; sed 's/^/# /' "$W/jobmap-01.txt" "$W/jobmap.txt" 2>/dev/null; }
fi
# a few seconds of GPU time for usage to count, then no more
sleep 5
on 127.0.10.1 "scancel -u alice" >/dev/null 2>&1

# Usage: GPU-hours by team and user, as sacct has them once the jobs ended.
for i in $(seq 1 30); do
	on 127.0.10.1 "squeue -h -u alice" | grep -q . || break
	sleep 1
done
got=$(on 127.0.10.2 'ls -A /run/dcgm-job-map'; on 127.0.10.3 'ls -A /run/dcgm-job-map')
if [ -n "$jobmap_off" ]; then
	jobmap_skip "the epilogs empty the job mapping"
else
	[ -z "$got" ] && ok "the jobs ended: their epilogs emptied the job mapping" ||
		not_ok "the jobs ended, the job mapping still has: $(echo $got)"
fi
on 127.0.10.1 "sacct -a -X -n -P -S now-1days -E now -o Account,User,ElapsedRaw,AllocTRES" > "$W/sacct.txt" 2>&1
"$PROVISION" usage --since 1d --json "$PLAN" > "$W/usage.json" 2> "$W/usage.err"; rc=$?
python3 - "$W/sacct.txt" "$W/usage.json" <<'PY' && ok "usage: GPU-hours by team and user match sacct" ||
import json, re, sys
want = {}
for line in open(sys.argv[1]):
    acct, user, secs, tres = line.rstrip("\n").split("|")
    m = re.search(r"(?:^|,)gres/gpu=(\d+)", tres)
    if not m or not acct:
        continue
    h = int(m.group(1)) * int(secs) / 3600.0
    want[("teams", acct)] = want.get(("teams", acct), 0) + h
    want[("users", user)] = want.get(("users", user), 0) + h
rows = json.load(open(sys.argv[2]))["usage"]
got = {(r["group"], r["subject"]): r["value"] for r in rows if r["group"] in ("teams", "users")}
assert want.get(("teams", "vision"), 0) > 0, ("no GPU time in sacct", want)
for k, v in want.items():
    assert abs(got.get(k, -1) - v) < 1e-6, (k, got.get(k), v)
assert got.get(("teams", "nlp")) == 0, got
PY
	{ not_ok "usage: GPU-hours by team and user match sacct (exit $rc)"; sed 's/^/# /' "$W/sacct.txt" "$W/usage.json" "$W/usage.err" | head -40; }

# GPU utilisation: the plan runs no Prometheus, and usage says so.
python3 - "$W/usage.json" <<'PY' && ok "usage: no DCGM metrics without a Prometheus" ||
import json, sys
rows = [r for r in json.load(open(sys.argv[1]))["usage"] if r["group"] == "gpu-util"]
assert len(rows) == 1 and rows[0]["measured"] == "no DCGM metrics", rows
PY
	not_ok "usage: no DCGM metrics without a Prometheus"
# A real Prometheus scrapes two recorded DCGM exporters (static files):
# worker-01's GPUs busy with alice's first two jobs (80 % and 40 %),
# worker-02's idle ones (10 %, 30 %) with no job.
if command -v prometheus >/dev/null 2>&1; then
	PA=127.0.10.8
	set -- $(grep '^[0-9][0-9]*$' "$W/jobs.txt")
	for w in 1:worker-01:$1:$2:80:40 2:worker-02:::10:30; do
		IFS=: read -r n h j0 j1 u0 u1 <<EOF
$w
EOF
		mkdir -p "$W/dcgm$n"
		sed -e "s/@HOST@/$h/" -e "s/@JOB0@/$j0/" -e "s/@JOB1@/$j1/" \
			-e "s/@UTIL0@/$u0/" -e "s/@UTIL1@/$u1/" \
			tests/fixtures/usage/dcgm-exporter.txt > "$W/dcgm$n/metrics"
		python3 -m http.server --bind $PA --directory "$W/dcgm$n" 940$n \
			>/dev/null 2>&1 8>&- &
		echo $! >> "$W/pids"
	done
	cat > "$W/prometheus.yml" <<EOF
global: { scrape_interval: 1s }
scrape_configs:
  - job_name: dcgm
    metrics_path: /metrics
    static_configs:
      - targets: ['$PA:9401']
        labels: { node: 'worker-01' }
      - targets: ['$PA:9402']
        labels: { node: 'worker-02' }
EOF
	prometheus --config.file="$W/prometheus.yml" --storage.tsdb.path="$W/tsdb" \
		--web.listen-address=$PA:9090 > "$W/prometheus.log" 2>&1 8>&- &
	echo $! >> "$W/pids"
	n=0
	for i in $(seq 1 60); do
		n=$(curl -s "http://$PA:9090/api/v1/query?query=count(count_over_time(DCGM_FI_DEV_GPU_UTIL%5B1m%5D)%3E2)" |
			python3 -c 'import json,sys; r=json.load(sys.stdin)["data"]["result"]; print(r[0]["value"][1] if r else 0)' 2>/dev/null)
		[ "$n" = 4 ] && break
		sleep 1
	done
	"$PROVISION" usage --since 1d --prometheus "http://$PA:9090" --json "$PLAN" > "$W/usage2.json" 2> "$W/usage2.err"; rc=$?
	python3 - "$W/usage2.json" <<'PY' && ok "usage: GPU utilisation per node and team from a real Prometheus's DCGM metrics" ||
import json, sys
rows = json.load(open(sys.argv[1]))["usage"]
got = {(r["group"], r["subject"]): r for r in rows if r["group"] in ("gpu-util", "team-util")}
assert abs(got[("gpu-util", "worker-01")]["value"] - 60) < 1e-6, got
assert abs(got[("gpu-util", "worker-02")]["value"] - 20) < 1e-6, got
v = got[("team-util", "vision")]
assert abs(v["value"] - 60) < 1e-6 and v["limit"] == "2 jobs", v
assert ("team-util", "nlp") not in got, got
PY
		{ not_ok "usage: GPU utilisation from Prometheus (exit $rc, $n series)"; sed 's/^/# /' "$W/usage2.err" "$W/prometheus.log" | tail -20; grep -A6 '"gpu-util\|"team-util' "$W/usage2.json" | head -40 | sed 's/^/# /'; }
	while read -r pid; do kill "$pid" 2>/dev/null; done < "$W/pids"
	rm -f "$W/pids"
	"$PROVISION" usage --since 1d --prometheus "http://$PA:9090" --json "$PLAN" > "$W/usage3.json" 2>/dev/null
	grep -q '"measured": "no DCGM metrics: Prometheus at http://127.0.10.8:9090: ' "$W/usage3.json" &&
		ok "usage: no DCGM metrics when Prometheus does not answer, and why" ||
		{ not_ok "usage: no DCGM metrics when Prometheus does not answer"; grep -B2 -A4 gpu-util "$W/usage3.json" | sed 's/^/# /'; }
else
	echo "# skip: no prometheus here (make deps)"
fi

# QOS: the plan's, with their priority and preemption, and the teams'.
on 127.0.10.1 "sacctmgr -n -P show qos format=name,priority,preempt; sacctmgr -n -P show assoc format=account,user,qos,defaultqos; scontrol show config | grep -E '^Preempt(Type|Mode) '" > "$W/qos.txt" 2>&1
grep -qx 'urgent|100|standard' "$W/qos.txt" && grep -qx 'standard|0|' "$W/qos.txt" &&
	grep -qx 'nlp|carol|standard,urgent|urgent' "$W/qos.txt" && grep -qx 'vision|alice|standard|standard' "$W/qos.txt" &&
	grep -q '^PreemptType *= preempt/qos' "$W/qos.txt" && grep -q '^PreemptMode *= REQUEUE' "$W/qos.txt" &&
	ok "sacctmgr: the plan's QOS, their preemption and the teams' QOS" ||
	{ not_ok "sacctmgr: the plan's QOS, their preemption and the teams' QOS"; sed 's/^/# /' "$W/qos.txt"; }

# Preemption: alice's standard job holds both GPUs of worker-01; carol's
# urgent one asks for them and gets them, alice's goes back to the queue.
sub() { # USER NODE GRES: a job's id
	on 127.0.10.1 "runuser -u $1 -- sbatch --parsable -p debug -w $2 --gres=$3 --mem=50M --chdir=/tmp -o /dev/null --wrap 'sleep 300'"
}
low=$(sub alice worker-01 gpu:2)
for i in $(seq 1 30); do
	[ "$(on 127.0.10.1 "squeue -h -j $low -o %T")" = RUNNING ] && break
	sleep 1
done
# A 2-GPU job: its id in both GPU files of worker-01.
if [ -n "$jobmap_off" ]; then
	jobmap_skip "a 2-GPU job in both GPU files"
else
	jobmap worker-01 127.0.10.2 && grep -qxF "got  [('0', ['$low']), ('1', ['$low'])]" "$W/jobmap.txt" &&
		ok "a 2-GPU job: the prolog put its id in both GPU files of worker-01 ($(grep '^got ' "$W/jobmap.txt"))" ||
		{ not_ok "a 2-GPU job in both GPU files of worker-01 ('$low')"; sed 's/^/# /' "$W/jobmap.txt"; }
fi
high=$(sub carol worker-01 gpu:2)
st=
for i in $(seq 1 40); do
	st=$(on 127.0.10.1 "squeue -h -j $high -o '%T %q'; squeue -h -j $low -o '%T %q'" | tr '\n' ';')
	case $st in "RUNNING urgent;PENDING standard;") break ;; esac
	sleep 1
done
hist=$(on 127.0.10.1 "sacct -X -D -n -P -j $low -o State" | tr '\n' ' ')
case "$st|$hist" in
"RUNNING urgent;PENDING standard;|"*PREEMPTED*)
	ok "an urgent job takes a full worker's GPUs: the standard job is preempted and requeued" ;;
*) not_ok "an urgent job preempts a standard one: '$st' '$hist' (jobs '$low' '$high')" ;;
esac
# The preempted job's epilog takes its id away, the urgent one's prolog
# puts its own: both GPU files name the urgent job alone.
if [ -n "$jobmap_off" ]; then
	jobmap_skip "preemption in the GPU files"
else
	jobmap worker-01 127.0.10.2 && grep -qxF "got  [('0', ['$high']), ('1', ['$high'])]" "$W/jobmap.txt" &&
		ok "preemption: both GPU files of worker-01 name the urgent job alone ($(grep '^got ' "$W/jobmap.txt"))" ||
		{ not_ok "preemption: both GPU files name the urgent job alone ('$low' '$high')"; sed 's/^/# /' "$W/jobmap.txt"; }
fi
on 127.0.10.1 "scancel -u alice; scancel -u carol" >/dev/null 2>&1
for i in $(seq 1 30); do
	on 127.0.10.1 "squeue -h" | grep -q . || break
	sleep 1
done

# Shards: two per GPU, Slurm's count on the node.  A job's shards come
# from one GPU: three never start on an idle node (four shards), two run.
gres=$(on 127.0.10.1 "scontrol show node worker-02" | sed -n 's/^ *Gres=//p')
[ "$gres" = gpu:2,shard:4 ] && ok "worker-02 has 2 GPUs and 4 shards" ||
	not_ok "worker-02 has 2 GPUs and 4 shards: '$gres'"
three=$(sub alice worker-02 shard:3)
sleep 8
st3=$(on 127.0.10.1 "squeue -h -j $three -o '%T %r'")
on 127.0.10.1 "scancel $three" >/dev/null 2>&1
two=$(sub alice worker-02 shard:2)
st=
for i in $(seq 1 30); do
	st=$(on 127.0.10.1 "squeue -h -j $two -o %T")
	[ "$st" = RUNNING ] && break
	sleep 1
done
det=$(on 127.0.10.1 "scontrol -d show job $two" | grep -o 'GRES=shard:2(IDX:[01])')
[ "$st3" = "PENDING Resources" ] && [ "$st" = RUNNING ] && [ -n "$det" ] &&
	ok "shards: 3 of one GPU never start on the idle node, 2 run ($det)" ||
	not_ok "shards: 3 wait, 2 run: '$st3' '$st' '$det'"
# Two 1-shard jobs share a GPU (Slurm fills a GPU's shards first), and
# its mapping file lists both; one ends, the other stays.  The worker has
# two CPUs, one a job: the 2-shard job makes room first.
on 127.0.10.1 "scancel $two" >/dev/null 2>&1
for i in $(seq 1 30); do
	on 127.0.10.1 "squeue -h -j $two" 2>/dev/null | grep -q . || break
	sleep 1
done
if [ -n "$jobmap_off" ]; then
	jobmap_skip "shards: two jobs on one GPU in its mapping file, one ends, the other stays"
else
	s1=$(sub alice worker-02 shard:1)
	s2=$(sub alice worker-02 shard:1)
	for i in $(seq 1 30); do
		[ "$(on 127.0.10.1 "squeue -h -j $s1,$s2 -t R -o %i" | wc -l)" -eq 2 ] && break
		sleep 1
	done
	jobmap worker-02 127.0.10.3 && grep -qx -e "got  \[('[01]', \['$s1', '$s2'\])\]" -e "got  \[('[01]', \['$s2', '$s1'\])\]" "$W/jobmap.txt" &&
		ok "shards: two jobs on one GPU, both in its mapping file ($(tr '\n' ' ' < "$W/jobmap.txt"))" ||
		{ not_ok "shards: two jobs on one GPU, both in its mapping file ('$s1' '$s2')"; sed 's/^/# /' "$W/jobmap.txt"; }
	on 127.0.10.1 "scancel $s1" >/dev/null 2>&1
	for i in $(seq 1 30); do
		on 127.0.10.1 "squeue -h -j $s1" 2>/dev/null | grep -q . || break
		sleep 1
	done
	jobmap worker-02 127.0.10.3 && grep -qx "got  \[('[01]', \['$s2'\])\]" "$W/jobmap.txt" &&
		ok "shards: one ends, its epilog leaves the other job's id in the GPU's file" ||
		{ not_ok "shards: one ends, the other job's id stays ('$s1' '$s2')"; sed 's/^/# /' "$W/jobmap.txt"; }
fi
on 127.0.10.1 "scancel -u alice" >/dev/null 2>&1
for i in $(seq 1 30); do
	on 127.0.10.1 "squeue -h" | grep -q . || break
	sleep 1
done

# Logs: a line logged on each worker is in the head's file for it.
for w in 01:127.0.10.2 02:127.0.10.3; do
	n=${w%%:*}; a=${w#*:}
	on $a "logger -t t120 'hello from worker-$n'"
	found=
	for i in $(seq 1 20); do
		on 127.0.10.1 "grep -q 'hello from worker-$n' /var/log/remote/worker-$n/messages.log" 2>/dev/null && { found=1; break; }
		sleep 1
	done
	[ -n "$found" ] && ok "worker-$n's log reaches the head" || not_ok "worker-$n's log reaches the head"
done

# verify: ids on every node, accounting and teams on the head, logs there.
"$PROVISION" verify --json "$PLAN" > "$W/verify.json" 2> "$W/verify.err"
python3 - "$W/verify.json" <<'PY' && ok "verify passes users, accounting, teams and logs" ||
import json, sys
rows = json.load(open(sys.argv[1]))["checks"]
got = {(r["subject"], r["check"]): r["verdict"] for r in rows}
want = [(n, "users") for n in ("head-01", "worker-01", "worker-02")] + [
    ("head-01", c) for c in ("accounting", "team vision", "team nlp",
                             "logs of worker-01", "logs of worker-02")]
bad = [(k, got.get(k)) for k in want if got.get(k) != "ok"]
assert not bad, bad
PY
	{ not_ok "verify passes users, accounting, teams and logs"; sed 's/^/# /' "$W/verify.err"; grep -E '"(users|accounting|team|logs)' "$W/verify.json" | head | sed 's/^/# /'; }

apply apply2; rc=$?
[ $rc -eq 0 ] && grep -q ' 0 changed, ' "$W/apply2.txt" && ok "second apply: 0 changed" ||
	{ not_ok "second apply: 0 changed (exit $rc)"; grep -E 'changed|failed|check:' "$W/apply2.txt" | sed 's/^/# /' | head -20; }

# A uid changed by hand: verify names the node; the next apply mends it.
on 127.0.10.3 "usermod -u 3999 bob" >/dev/null 2>&1
"$PROVISION" verify --json "$PLAN" > "$W/verify2.json" 2>/dev/null
python3 - "$W/verify2.json" <<'PY' && ok "verify fails worker-02's users (bob is uid 3999) and no other node's" ||
import json, sys
rows = json.load(open(sys.argv[1]))["checks"]
got = {(r["subject"], r["check"]): r for r in rows}
assert got[("worker-02", "users")]["verdict"] == "fail", got[("worker-02", "users")]
assert "bob" in got[("worker-02", "users")]["measured"]
assert got[("worker-01", "users")]["verdict"] == "ok"
PY
	not_ok "verify fails worker-02's users and no other node's"

# A count-only GPU's stand-in a plain file, as an older provision made
# it (slurmd would drop that GPU's device): the next apply makes it the
# device again and restarts slurmd, which reads it only when it starts.
sd0=$(on 127.0.10.3 'pgrep -x slurmd')
on 127.0.10.3 'rm -f /var/lib/provision/gres/gpu1 && echo "count-only GPU 1" > /var/lib/provision/gres/gpu1'

# carol, her team and its QOS leave the plan.
grep -v -e '^  carol:' -e '^    nlp:' -e '^    urgent:' -e '^  preempt_mode:' "$PLAN" > "$W/plan2.yaml" && mv "$W/plan2.yaml" "$PLAN"
apply apply3; rc=$?
[ $rc -eq 0 ] && ok "apply without carol, nlp and urgent succeeds" ||
	{ not_ok "apply without carol, nlp and urgent succeeds (exit $rc)"; tail -30 "$W/apply3.txt" | sed 's/^/# /'; }
[ "$(on 127.0.10.3 'id -u bob')" = 3002 ] && ok "apply gave bob his uid back on worker-02" ||
	not_ok "apply gave bob his uid back on worker-02"
st=$(on 127.0.10.3 "stat -c '%F %t:%T %a' /var/lib/provision/gres/gpu1")
sd1=$(on 127.0.10.3 'pgrep -x slurmd')
[ "$st" = "character special file 78:1 600" ] && [ -n "$sd0" ] && [ -n "$sd1" ] && [ "$sd0" != "$sd1" ] &&
	ok "apply made worker-02's plain stand-in file the device 120:1 again and restarted slurmd (pid $sd0, now $sd1)" ||
	not_ok "apply mends a plain stand-in file and restarts slurmd: '$st', slurmd pid '$sd0' then '$sd1'"
for a in 127.0.10.1 127.0.10.2 127.0.10.3; do
	got=$(on $a 'echo $(id -u carol):$(getent shadow carol | cut -d: -f2 | cut -c1):$(getent shadow carol | cut -d: -f8):$(getent passwd carol | cut -d: -f7)')
	[ "$got" = "3003:!:1:/usr/sbin/nologin" ] && ok "carol is locked on $a, her uid kept" ||
		not_ok "carol is locked on $a: '$got'"
done
on 127.0.10.1 "sacctmgr -n -P list user format=user; sacctmgr -n -P list account format=account" > "$W/left.txt" 2>&1
! grep -qx -e carol -e nlp "$W/left.txt" && grep -qx alice "$W/left.txt" && grep -qx vision "$W/left.txt" &&
	ok "Slurm no longer knows carol or nlp; alice and vision stay" ||
	{ not_ok "Slurm no longer knows carol or nlp"; sed 's/^/# /' "$W/left.txt"; }
on 127.0.10.1 "sacctmgr -n -P show qos format=name,preempt; scontrol show config | grep -E '^PreemptType '" > "$W/qos2.txt" 2>&1
! grep -q '^urgent|' "$W/qos2.txt" && grep -qx 'standard|' "$W/qos2.txt" &&
	grep -q '^PreemptType *= preempt/none' "$W/qos2.txt" &&
	ok "QOS urgent is gone, and with it preemption" ||
	{ not_ok "QOS urgent is gone, and with it preemption"; sed 's/^/# /' "$W/qos2.txt"; }
apply apply4; rc=$?
[ $rc -eq 0 ] && grep -q ' 0 changed, ' "$W/apply4.txt" && ok "the apply after that: 0 changed" ||
	{ not_ok "the apply after that: 0 changed (exit $rc)"; grep -E 'changed|failed|check:' "$W/apply4.txt" | sed 's/^/# /' | head -20; }

# The database password: only in slurmdbd.conf (0600 slurm) and MariaDB.
pw=$(on 127.0.10.1 "sed -n 's/^StoragePass=//p' /etc/slurm/slurmdbd.conf")
perm=$(on 127.0.10.1 "stat -c '%a %U' /etc/slurm/slurmdbd.conf")
[ ${#pw} -ge 24 ] && [ "$perm" = "600 slurm" ] && ! grep -rqF -- "$pw" "$STATE" "$W"/apply*.txt &&
	ok "the database password is made on the head, 0600, in no log or state" ||
	not_ok "the database password: ${#pw} characters, '$perm', or in a log"

# scheduling: and logging: leave the plan: what they made goes.
python3 - "$PLAN" <<'PY' || not_ok "the plan without scheduling: and logging:"
import re, sys
s = open(sys.argv[1]).read()
s = re.sub(r"\nscheduling:\n(  .*\n|\s*#.*\n)+", "\n", s)
s = re.sub(r"\nlogging: .*\n", "\n", s)
s = s.replace(", dcgm_exporter: true }", " }")
assert "scheduling:" not in s and "logging:" not in s and "dcgm" not in s, s
open(sys.argv[1], "w").write(s)
PY
apply apply5; rc=$?
[ $rc -eq 0 ] && ok "apply without scheduling: and logging: succeeds" ||
	{ not_ok "apply without scheduling: and logging: succeeds (exit $rc)"; tail -30 "$W/apply5.txt" | sed 's/^/# /'; }
got=$(on 127.0.10.1 'pgrep -x slurmdbd; pgrep -x mariadbd; ls /etc/slurm/slurmdbd.conf /etc/mysql/mariadb.conf.d/60-provision.cnf /etc/rsyslog.d/60-provision.conf 2>/dev/null; grep -i ^Accounting /etc/slurm/slurm.conf' 2>&1)
[ -z "$got" ] && ok "the head runs no slurmdbd or MariaDB, and keeps no accounting or log config" ||
	{ not_ok "the head still has accounting or logging"; echo "$got" | sed 's/^/# /'; }
for a in 127.0.10.2 127.0.10.3; do
	got=$(on $a 'ls /etc/rsyslog.d/60-provision.conf 2>/dev/null; pgrep -x rsyslogd >/dev/null || echo "no rsyslogd"')
	[ -z "$got" ] && ok "$a forwards no logs, its rsyslogd runs on" || not_ok "$a: '$got'"
done
for a in 127.0.10.1 127.0.10.2 127.0.10.3; do
	got=$(on $a 'grep -i -e ^Prolog -e ^Epilog /etc/slurm/slurm.conf; ls -d /etc/slurm/*-dcgm-job-map /etc/tmpfiles.d/provision-dcgm-job-map.conf /run/dcgm-job-map* 2>/dev/null')
	[ -z "$got" ] && ok "$a: no job mapping prolog, epilog or folder without the DCGM exporter" ||
		{ not_ok "$a still has the job mapping"; echo "$got" | sed 's/^/# /'; }
done
ss -ltn 2>/dev/null | grep -q '127\.0\.10\.1:514 ' && not_ok "the head still listens for logs" ||
	ok "the head no longer listens for logs"
got=$(on 127.0.10.1 "runuser -u alice -- srun -p debug -N1 --chdir=/tmp hostname" 2>&1)
case $got in worker-0[12]) ok "jobs run without accounting ($got)" ;; *) not_ok "jobs run without accounting: '$got'" ;; esac
apply apply6; rc=$?
[ $rc -eq 0 ] && grep -q ' 0 changed, ' "$W/apply6.txt" && ok "the apply after that: 0 changed" ||
	{ not_ok "the apply after that: 0 changed (exit $rc)"; grep -E 'changed|failed|check:' "$W/apply6.txt" | sed 's/^/# /' | head -20; }
done_testing

#!/bin/sh
# provision verify on the local testbed, after a real apply: the cluster
# passes, with the GPU checks skipped for their reason (the testbed has no
# NVIDIA device) and the Slurm and Prometheus checks passing; --json has
# one object per check and totals, --junit a JUnit file CI systems read.
# Then slurmd is stopped on worker-02: verify exits 1 and names worker-02
# and the Slurm check, and worker-01 still passes.  With every node down
# verify cannot run at all: exit 2.  verify --burn-in with the workers
# planned with GPUs says the burn-in tools are missing (skips, no ok) and
# writes no measured.json.
#
# The testbed (127.0.10.x) is shared with other tests: this one holds
# testbed_lock while it runs and brings the nodes down at the end.
# SAN=1: not run: its apply takes its time: the readers are test_verify's,
#   the engine t100's
. "$(dirname "$0")/lib.sh"
set -u
[ "$(id -u)" -eq 0 ] || skip_all "needs root (namespaces, debootstrap)"
command -v python3 >/dev/null 2>&1 || skip_all "no python3"
cd "$TOP" || exit 1

PLAN=examples/testbed.yaml
STATE=$(mktemp -d /tmp/t110-state.XXXXXX)
OUT=$(mktemp -d /tmp/t110-out.XXXXXX)
export PROVISION

cleanup() {
	scripts/testbed down "$PLAN" >/dev/null 2>&1
	rm -rf "$STATE" "$OUT"
}

testbed_lock
trap cleanup EXIT INT TERM

# jq-free JSON questions: q FILE EXPR (python, d = the verify JSON)
q() {
	python3 -c 'import json,sys
d = json.load(open(sys.argv[1]))
rows = d["checks"]
def row(node, check):
    m = [r for r in rows if r["subject"] == node and r["check"] == check]
    return m[0] if m else None
sys.exit(0 if eval(sys.argv[2]) else 1)' "$1" "$2"
}

check "testbed up" scripts/testbed up "$PLAN"
if "$PROVISION" apply --plain --state-dir "$STATE" "$PLAN" > "$OUT/apply.txt" 2>&1; then
	ok "apply succeeds"
else
	not_ok "apply succeeds"; tail -20 "$OUT/apply.txt" | sed 's/^/# /'
	done_testing; exit 1
fi

# apply waits until Prometheus has taken every target of its
# configuration (it batches them 5 s): a verify right now finds them all.
check "Prometheus lists every target as soon as apply ends" python3 -c '
import json, sys, urllib.request
t = json.load(urllib.request.urlopen("http://127.0.10.1:9090/api/v1/targets?state=active", timeout=5))
sys.exit(0 if len(t["data"]["activeTargets"]) >= 3 else 1)'

# No wait for the exporters' first scrape: verify itself waits for a
# scrape Prometheus made after it began, for a target not up.

# --- a healthy cluster -------------------------------------------------
"$PROVISION" verify --json --junit "$OUT/junit.xml" "$PLAN" > "$OUT/v1.json" 2> "$OUT/v1.err"
rc=$?
if [ $rc -eq 0 ]; then ok "verify passes after apply"; else
	not_ok "verify passes after apply (exit $rc)"
	python3 -c 'import json,sys
for r in json.load(open(sys.argv[1]))["checks"]:
    if r["verdict"] == "fail": print("#", r["subject"], r["check"], r["hint"])' "$OUT/v1.json" 2>/dev/null
	sed 's/^/# /' "$OUT/v1.err"
fi
check "json: totals match the rows" q "$OUT/v1.json" \
    'all(d["summary"][v] == sum(1 for r in rows if r["verdict"] == v) for v in ("ok","warn","fail","skip")) and d["summary"]["reached"] == 3'
check "json: no check failed" q "$OUT/v1.json" 'd["summary"]["fail"] == 0'
check "gpu checks skipped with the reason on every node" q "$OUT/v1.json" \
    'all(row(n, "gpu")["verdict"] == "skip" and "no NVIDIA device" in row(n, "gpu")["hint"] for n in ("head-01","worker-01","worker-02"))'
check "no gpu check passes on a node without GPUs" q "$OUT/v1.json" \
    'not any(r["check"].startswith("gpu") and r["verdict"] == "ok" for r in rows)'
check "slurm: controller UP on the head" q "$OUT/v1.json" 'row("head-01", "slurm controller")["verdict"] == "ok"'
check "slurm: both workers idle, no GPU GRES, a job ran on each" q "$OUT/v1.json" \
    'all(row(n, c)["verdict"] == "ok" for n in ("worker-01","worker-02") for c in ("slurm node","slurm gres","slurm job","daemon slurmd","daemon munged"))'
check "prometheus: api answers, every node exporter target up" q "$OUT/v1.json" \
    'row("head-01","prometheus api")["verdict"] == "ok" and all(row(n,"prometheus node")["verdict"] == "ok" and row(n,"prometheus node")["measured"] == "up" for n in ("head-01","worker-01","worker-02"))'
check "names resolve and every node reaches the others" q "$OUT/v1.json" \
    'all(row(n,"resolve")["verdict"] == "ok" and row(n,"reach")["verdict"] == "ok" and row(n,"hostname")["verdict"] == "ok" for n in ("head-01","worker-01","worker-02"))'
check "time is judged on every node" q "$OUT/v1.json" \
    'all(row(n,"time sync")["verdict"] in ("ok","warn") for n in ("head-01","worker-01","worker-02"))'
if python3 - "$OUT/junit.xml" <<'PY'
import sys, xml.etree.ElementTree as ET
t = ET.parse(sys.argv[1]).getroot()
assert t.tag == "testsuites" and t.get("failures") == "0", t.attrib
suites = {s.get("name"): s for s in t.findall("testsuite")}
assert set(suites) == {"head-01", "worker-01", "worker-02"}, suites.keys()
n = sum(len(s.findall("testcase")) for s in suites.values())
assert n == int(t.get("tests")), (n, t.get("tests"))
assert suites["worker-01"].find("testcase[@name='gpu']/skipped") is not None
PY
then ok "junit: one suite per node, skips as <skipped>"; else not_ok "junit: one suite per node, skips as <skipped>"; fi
"$PROVISION" verify "$PLAN" > "$OUT/table.txt" 2>&1
rc=$?
[ $rc -eq 0 ] && grep -q '^3 nodes, 3 answered: .* 0 fail' "$OUT/table.txt" &&
    ok "table: exit 0 and the totals line" || { not_ok "table: exit 0 and the totals line (exit $rc)"; tail -3 "$OUT/table.txt" | sed 's/^/# /'; }

# --- worker-01's node exporter restarted, then stopped ---------------------
# Right after apply starts an exporter, Prometheus's last scrape of it
# may be the refused one from before: verify waits for a scrape made
# after it began and judges from that, as it must for a stopped one.
PROM=http://127.0.10.1:9090
# prom_target NODE: the health and lastScrape of NODE's node target
prom_target() {
	curl -s --max-time 5 "$PROM/api/v1/targets?state=active" | python3 -c 'import json,sys
for t in json.load(sys.stdin)["data"]["activeTargets"]:
    if t["labels"].get("job") == "node" and t["labels"].get("node") == sys.argv[1]:
        print(t["health"], t["lastScrape"])' "$1"
}
# wait_scrape NODE HEALTH: until Prometheus scraped NODE again (a newer
# lastScrape than now) and found HEALTH (at most 40 s)
wait_scrape() {
	_ws0=$(prom_target "$1" | cut -d' ' -f2)
	_wsi=0
	while [ $_wsi -lt 80 ]; do
		_ws=$(prom_target "$1")
		[ -n "$_ws" ] && [ "${_ws#* }" != "$_ws0" ] && [ "${_ws%% *}" = "$2" ] && return 0
		sleep 0.5; _wsi=$((_wsi + 1))
	done
	return 1
}
ne_stop() {
	scripts/testbed shell worker-01 sh -c 'read -r pid start < /run/provision/prometheus-node-exporter.pid && kill "$pid"'
}
# as svc_spawn (templates/lib.sh) starts it, pid file included
ne_start() {
	scripts/testbed shell worker-01 sh -c 'setsid setpriv --reuid=prometheus --regid=prometheus --init-groups -- /usr/bin/prometheus-node-exporter --web.listen-address=127.0.10.2:9100 </dev/null >>/var/log/provision/prometheus-node-exporter.log 2>&1 &
printf "%s %s\n" $! "$(sed "s/.*) //" /proc/$!/stat | cut -d" " -f20)" > /run/provision/prometheus-node-exporter.pid'
	_nsi=0
	until curl -s --max-time 2 -o /dev/null http://127.0.10.2:9100/metrics; do
		[ $_nsi -lt 20 ] || return 1
		sleep 0.5; _nsi=$((_nsi + 1))
	done
}
ne_stop
check "Prometheus scrapes worker-01's stopped exporter: down" wait_scrape worker-01 down
# just after a scrape: the next is about 15 s away, longer than verify's SSH
wait_scrape worker-01 down
check "worker-01's exporter started again" ne_start
before=$(prom_target worker-01)
t0=$(date +%s)
"$PROVISION" verify --json --nodes worker-01 "$PLAN" > "$OUT/v3.json" 2> "$OUT/v3.err"
rc=$?
echo "# Prometheus had worker-01 '$before' as verify began; verify took $(( $(date +%s) - t0 )) s"
if [ $rc -eq 0 ]; then ok "verify passes at once after the exporter starts (it waits for a fresh scrape)"; else
	not_ok "verify passes at once after the exporter starts (exit $rc)"
	python3 -c 'import json,sys
for r in json.load(open(sys.argv[1]))["checks"]:
    if r["verdict"] == "fail": print("#", r["subject"], r["check"], r["hint"])' "$OUT/v3.json" 2>/dev/null
fi
check "Prometheus still had the down scrape as verify began (else the check above proves nothing)" \
    test "${before%% *}" = down
ne_stop
check "Prometheus scrapes it down again" wait_scrape worker-01 down
"$PROVISION" verify --json --nodes worker-01 "$PLAN" > "$OUT/v4.json" 2> "$OUT/v4.err"
rc=$?
if [ $rc -eq 1 ]; then ok "verify exits 1 with worker-01's exporter stopped"; else not_ok "verify exits 1 with worker-01's exporter stopped (exit $rc)"; fi
check "the prometheus node row fails: down on a scrape after verify began" q "$OUT/v4.json" \
    'row("worker-01","prometheus node")["verdict"] == "fail" and row("worker-01","prometheus node")["measured"] == "down" and "(scraped at " in row("worker-01","prometheus node")["hint"]'
check "the exporter's daemon row fails too, and nothing else" q "$OUT/v4.json" \
    'set(r["check"] for r in rows if r["verdict"] == "fail") == {"prometheus node", "daemon node_exporter"}'
check "worker-01's exporter started again for what follows" ne_start

# --- burn-in where no GPU tool exists ------------------------------------
# The same nodes, the workers planned with GPUs (as testbed-shared.yaml
# gives them): verify --burn-in runs the burn-in on them.  The testbed has
# neither DCGM nor nccl-tests: every burn-in row is a skip that says the
# tool is missing, and no measured.json is written (nothing was measured).
BP=$OUT/burnin
mkdir -p "$BP"
python3 - "$PLAN" "$BP/plan.yaml" <<'PY'
import sys
s = open(sys.argv[1]).read()
s = s.replace("domain: testbed.internal }", "domain: testbed.internal, workload: inference }")
s = s.replace("\nssh:\n", "\nhardware:\n  tb-worker:\n    system: supermicro-as-4124gs-tnr\n"
              "    gpus: { model: a100-pcie-80gb, count: 2 }\n\nssh:\n", 1)
s = s.replace("role: worker, address:", "role: worker, hardware: tb-worker, address:")
open(sys.argv[2], "w").write(s)
PY
"$PROVISION" verify --burn-in --json "$BP/plan.yaml" > "$OUT/burnin.json" 2> "$OUT/burnin.err"
rc=$?
[ $rc -eq 0 ] || [ $rc -eq 1 ] && ok "burn-in runs (exit $rc: the planned GPUs are not there)" ||
    { not_ok "burn-in runs (exit $rc)"; sed 's/^/# /' "$OUT/burnin.err"; }
check "burn-in: gemm fp16 and fp64 skipped on both workers, dcgmproftester not installed" q "$OUT/burnin.json" \
    'all(row(n, c)["verdict"] == "skip" and "dcgmproftester not installed" in row(n, c)["hint"] for n in ("worker-01","worker-02") for c in ("gemm fp16","gemm fp64"))'
check "burn-in: dcgm diag skipped, dcgmi not installed" q "$OUT/burnin.json" \
    'all(row(n, "dcgm diag")["verdict"] == "skip" and "not installed" in row(n, "dcgm diag")["hint"] for n in ("worker-01","worker-02"))'
check "burn-in: the all-reduce skipped, all_reduce_perf not found" q "$OUT/burnin.json" \
    'row("(cluster)", "nccl all_reduce")["verdict"] == "skip" and "not found" in row("(cluster)", "nccl all_reduce")["hint"]'
check "burn-in: no gemm, dcgm or nccl row passes" q "$OUT/burnin.json" \
    'not any(r["verdict"] == "ok" and r["check"].split()[0] in ("gemm","dcgm","nccl") for r in rows)'
grep -q '^burn-in measured nothing: no measured.json written (all-reduce: all_reduce_perf (nccl-tests) not found; fp16 GEMM on worker-01: dcgmproftester not installed' "$OUT/burnin.err" &&
    ok "burn-in says it measured nothing and why" ||
    { not_ok "burn-in says it measured nothing and why"; sed 's/^/# /' "$OUT/burnin.err"; }
if [ -e "$BP/.provision/testbed/measured.json" ]; then
	not_ok "no measured.json with no figure"; sed 's/^/# /' "$BP/.provision/testbed/measured.json"
else ok "no measured.json with no figure"; fi

# --- slurmd stopped on worker-02 -----------------------------------------
# The daemon that apply started: its pid file, not a name.
scripts/testbed shell worker-02 sh -c 'read -r pid start < /run/provision/slurmd.pid && kill "$pid"'
i=0
while scripts/testbed shell worker-02 pgrep -x slurmd >/dev/null 2>&1 && [ $i -lt 20 ]; do
	sleep 0.5; i=$((i + 1))
done
"$PROVISION" verify --json "$PLAN" > "$OUT/v2.json" 2> "$OUT/v2.err"
rc=$?
if [ $rc -eq 1 ]; then ok "verify exits 1 with slurmd stopped"; else not_ok "verify exits 1 with slurmd stopped (exit $rc)"; fi
check "the failure names worker-02 and its slurm daemon" q "$OUT/v2.json" \
    'row("worker-02","daemon slurmd")["verdict"] == "fail"'
check "the slurm job check fails on worker-02" q "$OUT/v2.json" \
    'row("worker-02","slurm job")["verdict"] == "fail" or row("worker-02","slurm node")["verdict"] == "fail"'
check "every failure is on worker-02 and about slurm" q "$OUT/v2.json" \
    'all(r["subject"] == "worker-02" and ("slurm" in r["check"]) for r in rows if r["verdict"] == "fail")'
check "worker-01 still runs a job" q "$OUT/v2.json" 'row("worker-01","slurm job")["verdict"] == "ok"'
"$PROVISION" verify -q "$PLAN" > "$OUT/table2.txt" 2>&1
grep -Eq '^  fail  worker-02 +(daemon slurmd|slurm)' "$OUT/table2.txt" &&
    ok "table names worker-02 and the slurm check" || { not_ok "table names worker-02 and the slurm check"; sed 's/^/# /' "$OUT/table2.txt"; }

# --- nothing answers -------------------------------------------------------
scripts/testbed down "$PLAN" >/dev/null 2>&1
expect_code 2 "every node down: exit 2 (could not run)" "$PROVISION" verify "$PLAN"

done_testing

#!/bin/sh
# provision report, rendered for real: every example plan and a plan that
# fails on purpose become one HTML page each, which headless Chromium
# renders; on the DOM it built, every rack, every node (in its rack, at
# its unit, drawn to scale) and every failing check must be there, with
# no script and nothing from the network; the screenshot must show the
# rack drawing.  Then the same with an apply state file and verify
# results whose text tries to inject markup.
. "$(dirname "$0")/lib.sh"
set -u
cd "$TOP" || exit 1

CHROMIUM=${CHROMIUM:-$(command -v chromium || command -v chromium-browser || true)}
[ -n "$CHROMIUM" ] || skip_all "no chromium (make deps installs Debian's)"
command -v python3 >/dev/null 2>&1 || skip_all "no python3"

OUT=$(mktemp -d /tmp/t060-report.XXXXXX)
cleanup() { rm -rf "$OUT"; }
trap cleanup EXIT INT TERM

# chromium FLAG... URL: headless, no network, a profile of its own.
chrome() {
	prof=$(mktemp -d "$OUT/profile.XXXXXX")
	timeout 120 "$CHROMIUM" --headless --no-sandbox --disable-gpu \
	    --disable-background-networking --disable-component-update \
	    --disable-sync --no-first-run --user-data-dir="$prof" "$@" 2>>"$OUT/chromium.log"
}

render() {	# render NAME PLAN [report options...]
	name=$1 plan=$2; shift 2
	if "$PROVISION" report "$plan" -o "$OUT/$name.html" "$@" 2>"$OUT/$name.err"; then
		ok "$name: report written"
	else
		not_ok "$name: report written"; sed 's/^/# /' "$OUT/$name.err"; return 1
	fi
	"$PROVISION" check --json "$plan" > "$OUT/$name.check.json"
	"$PROVISION" ls --json "$plan" > "$OUT/$name.ls.json"
	if chrome --dump-dom "file://$OUT/$name.html" > "$OUT/$name.dom.html" &&
	    [ -s "$OUT/$name.dom.html" ]; then
		ok "$name: chromium renders it"
	else
		not_ok "$name: chromium renders it"; tail -5 "$OUT/chromium.log" | sed 's/^/# /'; return 1
	fi
	chrome --screenshot="$OUT/$name.png" --window-size=1400,2000 \
	    "file://$OUT/$name.html" >/dev/null
	check "$name: screenshot taken" test -s "$OUT/$name.png"
}

dom_ok() {	# dom_ok NAME [VERIFY.json]
	if python3 tests/e2e/report_check.py dom "$OUT/$1.dom.html" \
	    "$OUT/$1.check.json" "$OUT/$1.ls.json" ${2:+"$2"} > "$OUT/$1.dom.txt" 2>&1; then
		ok "$1: every rack, node and failing check in the DOM"
	else
		not_ok "$1: every rack, node and failing check in the DOM"
	fi
	sed 's/^/# /' "$OUT/$1.dom.txt"
}

for plan in examples/*.yaml tests/fixtures/report/overloaded.yaml; do
	name=$(basename "$plan" .yaml)
	render "$name" "$plan" || continue
	dom_ok "$name"
done

# The failing plan's screenshot shows its racks (pixels, not just markup),
# and its page names the failures.
if python3 tests/e2e/report_check.py png "$OUT/overloaded.png" 1400 2000 > "$OUT/png.txt" 2>&1; then
	ok "overloaded: screenshot shows the rack elevations"
else
	not_ok "overloaded: screenshot shows the rack elevations"
fi
sed 's/^/# /' "$OUT/png.txt"
n=$(grep -c '<tr class="check fail"' "$OUT/overloaded.dom.html")
[ "$n" -ge 8 ] && ok "overloaded: $n failing checks shown" || not_ok "overloaded: failing checks shown ($n)"

# Apply state and verify results, with text that tries to be markup.
mkdir -p "$OUT/state"
cat > "$OUT/state/state.json" <<'EOF'
{"version": 1, "run": "20261130T190000Z", "status": "failed",
 "nodes": {
  "head-01": {"base": {"result": "changed", "elapsed": 1.5, "at": 1764529200, "message": null},
              "slurm": {"result": "ok", "elapsed": 0.4, "at": 1764529201, "message": null}},
  "worker-01": {"base": {"result": "ok", "elapsed": 1.1, "at": 1764529200, "message": null},
                "slurm": {"result": "failed", "elapsed": 9.0, "at": 1764529210, "message": "slurmd <b>did not</b> start & died"}},
  "worker-02": {"base": {"result": "unreachable", "elapsed": 10.0, "at": 1764529200, "message": "connect: refused"}}}}
EOF
cat > "$OUT/verify.json" <<'EOF'
{"plan": "examples/testbed.yaml",
"checks": [
  {"node": "head-01", "check": "slurm controller", "expected": "UP", "found": "UP", "verdict": "ok", "reason": null},
  {"node": "worker-01", "check": "gpu", "expected": null, "found": null, "verdict": "skip", "reason": "no GPU in the plan"},
  {"node": "worker-02", "check": "daemon slurmd", "expected": "running", "found": "not running", "verdict": "fail", "reason": "<script>alert('x')</script> & <img src=x>"}
],
"summary": {"nodes": 3, "reached": 3, "ok": 1, "warn": 0, "fail": 1, "skip": 1}}
EOF
if render testbed-state examples/testbed.yaml --state "$OUT/state/state.json" \
    --verify-json "$OUT/verify.json"; then
	dom_ok testbed-state "$OUT/verify.json"
	grep -q '<td class="step failed" data-step="slurm"' "$OUT/testbed-state.dom.html" &&
	    grep -q '<td class="step unreachable" data-step="base"' "$OUT/testbed-state.dom.html" &&
	    ok "apply state: each node's result per step" || not_ok "apply state: each node's result per step"
	grep -q '&lt;script&gt;alert' "$OUT/testbed-state.dom.html" &&
	    ! grep -q '<script' "$OUT/testbed-state.dom.html" &&
	    ok "verify text escaped, no script element" || not_ok "verify text escaped, no script element"
fi
expect_code 2 "unreadable --verify-json exits 2" "$PROVISION" report examples/testbed.yaml \
    -o "$OUT/x.html" --verify-json "$OUT/nope.json"
echo '{"checks": "no"}' > "$OUT/bad.json"
expect_code 2 "a file that is not verify output exits 2" "$PROVISION" report examples/testbed.yaml \
    -o "$OUT/x.html" --verify-json "$OUT/bad.json"

# Usage (provision usage --json): a section of its own, its text escaped.
cat > "$OUT/usage.json" <<'EOF'
{"plan": "examples/testbed-shared.yaml", "since": "30d",
"usage": [
  {"verdict": "ok", "group": "teams", "subject": "vision", "check": "GPU-hours", "measured": "12.50 (4 jobs)", "limit": "2 GPUs at once", "hint": null, "value": 12.5},
  {"verdict": "ok", "group": "users", "subject": "alice", "check": "GPU-hours", "measured": "12.50 (4 jobs)", "limit": "team vision", "hint": null, "value": 12.5},
  {"verdict": "ok", "group": "gpu-util", "subject": "worker-01", "check": "GPU utilisation", "measured": "60.0 %", "limit": "average of its GPUs", "hint": null, "value": 60},
  {"verdict": "ok", "group": "team-util", "subject": "vision", "check": "GPU utilisation", "measured": "60.0 %", "limit": "2 jobs", "hint": null, "value": 60},
  {"verdict": "warn", "group": "waiting", "subject": "job 3", "check": "waiting", "measured": "AssocGrpGRES", "limit": "alice in vision", "hint": "<script>alert('x')</script> & limits"}
],
"summary": {"gpu_hours": 12.5, "waiting": 1}}
EOF
if render shared-usage examples/testbed-shared.yaml --usage-json "$OUT/usage.json"; then
	D=$OUT/shared-usage.dom.html
	grep -q '<section id="usage">' "$D" &&
	    grep -q '<tr class="usage ok" data-group="teams" data-subject="vision">' "$D" &&
	    grep -q '<tr class="usage ok" data-group="users" data-subject="alice">' "$D" &&
	    grep -q '<tr class="usage ok" data-group="gpu-util" data-subject="worker-01">' "$D" &&
	    grep -q '<tr class="usage ok" data-group="team-util" data-subject="vision">' "$D" &&
	    grep -q '<tr class="usage warn" data-group="waiting" data-subject="job 3">' "$D" &&
	    grep -q '<td>12.50 (4 jobs)</td>' "$D" &&
	    ok "usage: GPU-hours by team and user, utilisation, the waiting job" ||
	    not_ok "usage: GPU-hours by team and user, utilisation, the waiting job"
	grep -q '&lt;script&gt;alert' "$D" && ! grep -q '<script' "$D" &&
	    ok "usage text escaped, no script element" || not_ok "usage text escaped, no script element"
fi
! grep -q 'id="usage"' "$OUT/testbed.dom.html" && ok "no usage section without --usage-json" ||
	not_ok "no usage section without --usage-json"
expect_code 2 "a file that is not usage output exits 2" "$PROVISION" report examples/testbed.yaml \
    -o "$OUT/x.html" --usage-json "$OUT/verify.json"

done_testing

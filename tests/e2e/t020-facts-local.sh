#!/bin/sh
# t020-facts-local: `provision facts --local` reads this machine.  Its JSON
# parses, lists the PCI devices lspci lists (same slots, same ids) and
# MemTotal; with a plan and a node it prints drift rows and exits 1 when
# one fails; `--from DIR` compares facts saved earlier.
#
#   sh tests/e2e/t020-facts-local.sh

. "$(dirname "$0")/lib.sh"

command -v python3 >/dev/null 2>&1 || skip_all "python3 is needed to read JSON"
command -v lspci >/dev/null 2>&1 || skip_all "lspci (pciutils) is needed"

tmp=$(mktemp -d /tmp/t020.XXXXXX) || exit 1
trap 'rm -rf "$tmp"' EXIT
P=$PROVISION

expect_code 0 "facts --local --json runs" sh -c "'$P' facts --local --json >'$tmp/f.json' 2>'$tmp/err'"
check "its output is JSON" python3 -c "import json,sys; json.load(open(sys.argv[1]))" "$tmp/f.json"

# slot and vendor:device of every device, as lspci and as provision see them
lspci -D -n | awk '{ print $1, $3 }' | sort >"$tmp/lspci.txt"
python3 - "$tmp/f.json" >"$tmp/ours.txt" <<'PY'
import json, sys
f = json.load(open(sys.argv[1]))
for d in f["pci"]:
    print(d["slot"], "%s:%s" % (d["vendor"], d["device"]))
PY
sort -o "$tmp/ours.txt" "$tmp/ours.txt"
check "it lists the PCI devices lspci lists" cmp -s "$tmp/lspci.txt" "$tmp/ours.txt"
check "lspci lists some" test -s "$tmp/lspci.txt"

# every device lspci names, named the same (both read pci.ids)
lspci -D -vmm | awk -F'\t' '/^Slot:/ { s = $2 } /^Device:/ { print s "\t" $2 }' |
	grep -v '	Device [0-9a-f]*$' | sort >"$tmp/lnames.txt"
python3 - "$tmp/f.json" >"$tmp/onames.txt" <<'PY'
import json, sys
for d in json.load(open(sys.argv[1]))["pci"]:
    if d["device_name"] and d["name_source"] == "pci.ids":
        print("%s\t%s" % (d["slot"], d["device_name"]))
PY
sort -o "$tmp/onames.txt" "$tmp/onames.txt"
check "device names agree with lspci" cmp -s "$tmp/lnames.txt" "$tmp/onames.txt"

mem=$(awk '/^MemTotal:/ { print $2 }' /proc/meminfo)
check "memory_kb is MemTotal" python3 -c "
import json, sys
f = json.load(open(sys.argv[1]))
sys.exit(0 if f['memory_kb'] == int(sys.argv[2]) and f['kernel'] == sys.argv[3] else 1)
" "$tmp/f.json" "$mem" "$(uname -r)"

expect_code 0 "facts --local prints a table" sh -c "'$P' facts --local >'$tmp/t.txt'"
n=$(lspci | wc -l)
check "the table counts the devices" grep -q "^PCI devices ($n)" "$tmp/t.txt"

expect_code 2 "facts without a plan or --local is a usage error" \
	sh -c "'$P' facts 2>/dev/null"
expect_code 2 "--local with a plan needs -n" \
	sh -c "'$P' facts --local '$TOP/examples/testbed.yaml' 2>/dev/null"
expect_code 2 "-n must name a node of the plan" \
	sh -c "'$P' facts --local '$TOP/examples/testbed.yaml' -n nosuch 2>/dev/null"

# this machine as a node of the testbed plan (no hardware model there)
expect_code 0 "--local compared with a testbed node" \
	sh -c "'$P' facts --local --json '$TOP/examples/testbed.yaml' -n head-01 >'$tmp/rows.json'"
check "rows are JSON with a hardware skip row" python3 -c "
import json, sys
r = json.load(open(sys.argv[1]))
w = {x['check']: x['verdict'] for x in r['rows']}
sys.exit(0 if w.get('hardware') == 'skip' and r['summary']['fail'] == 0 else 1)
" "$tmp/rows.json"

# this machine as a GPU node of the PCIe lab: 8 A100 missing
expect_code 1 "--local against an 8-GPU node fails" \
	sh -c "'$P' facts --local '$TOP/examples/pcie-lab.yaml' -n gpu01 >'$tmp/lab.txt'"
check "the gpu count row says fail" sh -c "grep -A1 -E '^  fail  gpu01 +gpu count +0 +8\$' '$tmp/lab.txt' | grep -q '^ *8 GPUs missing'"
check "the summary line counts the fails" grep -Eq '^1 node: [0-9]+ ok, [0-9]+ warn, [1-9][0-9]* fail' "$tmp/lab.txt"

# saved facts compared again without connecting
mkdir "$tmp/saved"
cp "$tmp/f.json" "$tmp/saved/worker-01.json"
expect_code 0 "--from compares saved facts" \
	sh -c "'$P' facts '$TOP/examples/testbed.yaml' -n worker-01 --from '$tmp/saved' --json >'$tmp/from.json'"
check "... with the same rows as --local" python3 -c "
import json, sys
a = json.load(open(sys.argv[1]))['rows']
b = json.load(open(sys.argv[2]))['rows']
strip = lambda rows: [(x['check'], x['limit'], x['measured'], x['verdict']) for x in rows]
sys.exit(0 if strip(a) == strip(b) else 1)
" "$tmp/rows.json" "$tmp/from.json"
echo '{"version": 1, "pci": 7}' >"$tmp/saved/worker-02.json"
expect_code 1 "--from with a broken file fails that node" \
	sh -c "'$P' facts '$TOP/examples/testbed.yaml' -n 'worker-[01-02]' --from '$tmp/saved' >'$tmp/from2.txt'"
check "... naming the file" sh -c "grep -A1 '^  fail  worker-02 ' '$tmp/from2.txt' | grep -q 'worker-02.json'"

done_testing

#!/bin/sh
# t021-facts-ssh: `provision facts PLAN` over real SSH (a private sshd on
# a loopback address, sshd-lib.sh).  The node is this machine, so its
# saved facts (RUN_DIR/facts/NODE.json) must list the PCI devices lspci
# lists and equal `facts --local`; an address nothing listens on and a
# changed host key are failed rows; the exit status is then 1.
#
#   sh tests/e2e/t021-facts-ssh.sh        (as root)

set -u
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/sshd-lib.sh"

command -v lspci >/dev/null 2>&1 || skip_all "lspci (pciutils) is needed"
sshd_setup
: "${PROVISION_PROFILES:=$TOP/profiles}"
export PROVISION_PROFILES
PORT=$(free_port)
NET=127.0.121
P=$PROVISION
T=$SSHT
sshd_start node "$PORT" $NET.1 || exit 1
known_hosts_for node "$PORT" node-a >"$T/known_hosts"

. /etc/os-release
cat >"$T/plan.yaml" <<YAML
version: 1
cluster: { name: t021 }
networks:
  lo: { cidr: $NET.0/24, kind: ethernet, gbps: 10, role: management }
ssh: { user: root, identity: $T/id_ed25519, known_hosts: $T/known_hosts,
       host_keys: strict, port: $PORT, connect_timeout_s: 3 }
nodes:
  - { name: node-a, role: head, address: $NET.1 }
  - { name: node-b, role: worker, address: $NET.2 }
software:
  os: { distro: $ID, release: "$VERSION_ID" }
YAML

expect_code 0 "facts over SSH from a reachable node" \
	sh -c "SSH_AUTH_SOCK= '$P' facts '$T/plan.yaml' -n node-a --run-dir '$T/run' >'$T/a.txt' 2>'$T/a.err'"
show "$T/a.txt" "$T/a.err" >/dev/null
check "its facts are saved as JSON" \
	"$PY" -c "import json,sys; json.load(open(sys.argv[1]))" "$T/run/facts/node-a.json"
lspci -D -n | awk '{ print $1, $3 }' | sort >"$T/lspci.txt"
"$PY" - "$T/run/facts/node-a.json" >"$T/ours.txt" <<'PY'
import json, sys
for d in json.load(open(sys.argv[1]))["pci"]:
    print(d["slot"], "%s:%s" % (d["vendor"], d["device"]))
PY
sort -o "$T/ours.txt" "$T/ours.txt"
check "they list the PCI devices lspci lists" cmp -s "$T/lspci.txt" "$T/ours.txt"
"$P" facts --local --json >"$T/local.json"
check "they equal facts --local, notes aside" "$PY" -c '
import json, sys
a = json.load(open(sys.argv[1])); b = json.load(open(sys.argv[2]))
for x in (a, b):
    x.pop("notes")
sys.exit(0 if a == b else 1)
' "$T/local.json" "$T/run/facts/node-a.json"
check "the os row is ok" grep -Eq '^ *ok +node-a +os ' "$T/a.txt"
check "the summary names the facts folder" grep -q "facts in $T/run/facts" "$T/a.txt"

expect_code 1 "a node that cannot be reached fails the run" \
	sh -c "SSH_AUTH_SOCK= '$P' facts '$T/plan.yaml' --json --run-dir '$T/run2' >'$T/b.json' 2>'$T/b.err'"
check "... as an unreachable row; the other node is still read" "$PY" -c "
import json, sys
r = json.load(open(sys.argv[1]))
rows = {(x['subject'], x['check']): x for x in r['rows']}
b = rows[('node-b', 'facts')]
ok = b['verdict'] == 'fail' and b['hint'].startswith('unreachable')
ok = ok and rows[('node-a', 'os')]['verdict'] == 'ok'
ok = ok and r['summary']['nodes'] == 2 and r['summary']['fail'] == 1
sys.exit(0 if ok else 1)
" "$T/b.json"
check "only the reachable node's facts are saved" sh -c "
test -f '$T/run2/facts/node-a.json' && ! test -e '$T/run2/facts/node-b.json'"

# the node's key is not the one known: refused, nothing saved
ssh-keygen -q -t ed25519 -N '' -f "$T/other" || exit 1
echo "[node-a]:$PORT $(cut -d' ' -f1,2 "$T/other.pub")" >"$T/known_hosts"
expect_code 1 "a changed host key fails the node" \
	sh -c "SSH_AUTH_SOCK= '$P' facts '$T/plan.yaml' -n node-a --run-dir '$T/run3' >'$T/c.txt' 2>&1"
check "... as a hostkey row" sh -c "grep -A1 -E '^  fail  node-a +facts ' '$T/c.txt' | grep -q '^ *hostkey'"
check "... and saves nothing" test ! -e "$T/run3/facts/node-a.json"

done_testing

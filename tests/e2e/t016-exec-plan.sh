#!/bin/sh
# t016-exec-plan: `provision exec PLAN`: nodes, addresses and the ssh:
# section from a plan; -n node sets; known_hosts by node name; the plan's
# passphrase_env, host_keys: accept-new and a jump host named by node.
#
#   sh tests/e2e/t016-exec-plan.sh        (as root)

# shellcheck source-path=SCRIPTDIR disable=SC2016
set -u
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/sshd-lib.sh"

sshd_setup
: "${PROVISION_PROFILES:=$TOP/profiles}"
export PROVISION_PROFILES
PORT=$(free_port)
NET=127.0.116
O=$SSHT/out E=$SSHT/err
sshd_start bastion "$PORT" $NET.1 || exit 1
# shellcheck disable=SC2046
sshd_start nodes "$PORT" $(addrs $NET 11 18) || exit 1
ssh-keygen -q -t ed25519 -N 'plan secret' -C enc -f "$SSHT/enc"
cat "$SSHT/enc.pub" >>"$SSHT/authorized_keys"

# known_hosts by node name only, as a user who ssh'd to gpu01 would have.
{
	known_hosts_for bastion "$PORT" bastion
	for i in 1 2 3 4 5 6 7 8; do
		known_hosts_for nodes "$PORT" gpu0$i
	done
} >"$SSHT/known_hosts"

# plan [EXTRA-SSH-LINE...]: write $SSHT/plan.yaml
plan() {
	{
		cat <<EOF
version: 1
cluster: { name: e2e, domain: e2e.internal }
networks:
  lo: { cidr: $NET.0/24, kind: ethernet, gbps: 10, role: management }
ssh:
  user: root
  identity: $SSHT/enc
  known_hosts: $SSHT/known_hosts
  port: $PORT
  forks: 4
  passphrase_env: E2E_PASS
EOF
		for l in "$@"; do echo "  $l"; done
		cat <<EOF
nodes:
  - { name: bastion, role: head, address: $NET.1 }
  - { name: "gpu[01-08]", role: worker, address: "$NET.[11-18]" }
software:
  os: { distro: debian, release: "12" }
EOF
	} >"$SSHT/plan.yaml"
}
pexec() {
		E2E_PASS='plan secret' "$PROVISION" exec "$@" >"$O" 2>"$E"
	rc=$?
	}

plan
pexec "$SSHT/plan.yaml" -- echo same
if [ "$rc" = 0 ] && grep -qx "bastion,gpu\[01-08\] (9)" "$O" &&
    grep -qx "9 ok, 0 failed, 0 unreachable, 0 timed out" "$E"; then
	ok "every plan node, by name; encrypted key via the plan's passphrase_env"
else
	not_ok "plan, all nodes (rc $rc)"; show "$O" "$E"
fi

pexec "$SSHT/plan.yaml" -n 'gpu[02-04]' -- 'echo $SSH_CONNECTION | cut -d" " -f3'
if [ "$rc" = 0 ] && grep -qx "gpu02 (1)" "$O" && grep -qx "$NET.12" "$O" &&
    grep -qx "gpu04 (1)" "$O" && grep -qx "$NET.14" "$O" &&
    grep -qx "3 ok, 0 failed, 0 unreachable, 0 timed out" "$E"; then
	ok "-n gpu[02-04]: three nodes, each at its plan address"
else
	not_ok "-n (rc $rc)"; show "$O" "$E"
fi

pexec "$SSHT/plan.yaml" -n 'gpu[07-09]' -- true
if [ "$rc" = 2 ] && grep -q "gpu09" "$E"; then
	ok "-n naming a node not in the plan: exit 2"
else
	not_ok "-n unknown node (rc $rc)"; show "$E"
fi

echo 'version: 1
nodes: [ { name: x, bogus: 1 } ]' >"$SSHT/bad.yaml"
pexec "$SSHT/bad.yaml" -- true
if [ "$rc" = 2 ] && grep -q "bad.yaml:" "$E"; then
	ok "a bad plan: its errors, exit 2"
else
	not_ok "bad plan (rc $rc)"; show "$E"
fi

# host_keys: accept-new from the plan records name and address.
grep -v gpu05 "$SSHT/known_hosts" >"$SSHT/kh.tmp"
mv "$SSHT/kh.tmp" "$SSHT/known_hosts"
pexec "$SSHT/plan.yaml" -n gpu05 -- true
if [ "$rc" = 1 ] && grep -q "host key of 'gpu05' ($NET.15 port $PORT) is not known" "$E"
then
	ok "strict by default: unknown gpu05 refused"
else
	not_ok "strict plan (rc $rc)"; show "$E"
fi
plan "host_keys: accept-new"
pexec "$SSHT/plan.yaml" -n gpu05 -- true
if [ "$rc" = 0 ] &&
    grep -q "^\[gpu05\]:$PORT,\[$NET.15\]:$PORT ssh-ed25519 " "$SSHT/known_hosts"
then
	ok "plan host_keys: accept-new records [gpu05]:port,[address]:port"
else
	not_ok "plan accept-new (rc $rc)"; show "$E" "$SSHT/known_hosts"
fi

# jump: a node of the plan (its sshd logs each direct-tcpip at DEBUG1).
sshd_stop bastion
SSHD_LOGLEVEL=DEBUG1 sshd_start bastion "$PORT" $NET.1 || exit 1
plan "jump: bastion"
pexec "$SSHT/plan.yaml" -n 'gpu[01-08]' -- true
tunnels=$(grep -c "server_request_direct_tcpip: .* target $NET\.1[1-8] port $PORT" "$SSHT/bastion.log")
if [ "$rc" = 0 ] && [ "$tunnels" = 8 ]; then
	ok "plan jump: bastion (a node name) carries all 8 nodes"
else
	not_ok "plan jump (rc $rc, $tunnels tunnels)"; show "$E"
fi

# The plan's jump host is every command's, not exec's alone: facts,
# verify and apply once failed with "cannot resolve" where exec got
# through.  (apply runs t101's test step, which changes nothing outside
# its scratch folder and fails here without one: reached, not unreachable.)
tunnels_now() {
	grep -c "server_request_direct_tcpip: .* target $NET\.1[1-8] port $PORT" \
	    "$SSHT/bastion.log"
}
t0=$(tunnels_now)
E2E_PASS='plan secret' "$PROVISION" facts "$SSHT/plan.yaml" -n 'gpu[01-02]' \
    --run-dir "$SSHT/frun" >"$O" 2>"$E"
rc=$?
if [ "$rc" = 0 ] && [ -s "$SSHT/frun/facts/gpu01.json" ] &&
    [ -s "$SSHT/frun/facts/gpu02.json" ] && [ $(($(tunnels_now) - t0)) -ge 2 ]
then
	ok "facts: both nodes through the plan's jump host"
else
	not_ok "facts through the jump (rc $rc)"; show "$O" "$E"
fi
t0=$(tunnels_now)
E2E_PASS='plan secret' "$PROVISION" verify --json "$SSHT/plan.yaml" -n gpu01 \
    >"$O" 2>"$E"
rc=$?
if [ "$rc" != 2 ] && python3 -c 'import json, sys
sys.exit(0 if json.load(open(sys.argv[1]))["summary"]["reached"] == 1 else 1)' \
    "$O" && [ $(($(tunnels_now) - t0)) -ge 1 ]; then
	ok "verify: the node answers through the plan's jump host"
else
	not_ok "verify through the jump (rc $rc)"; show "$E"
fi
t0=$(tunnels_now)
E2E_PASS='plan secret' "$PROVISION" apply "$SSHT/plan.yaml" -n gpu01 \
    --templates "$TOP/tests/fixtures/apply-faults/templates" --step base \
    --state-dir "$SSHT/astate" >"$O" 2>"$E"
rc=$?
if [ "$rc" = 1 ] && grep -q "1 nodes: 0 ok, 1 failed (0 unreachable)" "$O" &&
    [ $(($(tunnels_now) - t0)) -ge 1 ]; then
	ok "apply: the node is reached through the plan's jump host"
else
	not_ok "apply through the jump (rc $rc)"; show "$O" "$E"
fi

# Flags win over the plan.
plan
pexec "$SSHT/plan.yaml" -n gpu01 -p "$(free_port)" --connect-timeout 2 -- true
if [ "$rc" = 1 ] && grep -q "unreachable" "$E"; then
	ok "--port overrides the plan's port"
else
	not_ok "--port override (rc $rc)"; show "$E"
fi

done_testing

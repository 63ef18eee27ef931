#!/bin/sh
# t022-learn-ssh: `provision catalog learn PLAN -n NODE` for real: the node
# is this machine behind a private sshd on loopback (sshd-lib.sh), its
# BMC the Redfish emulator on the DMTF mockup public-rackmount1 over TLS
# (redfish-lib.sh).  The draft must be --local's (one gathering, run over
# SSH) with the BMC's PSUs in it (count, inlet from PlugType, ratings from
# InputRanges: tests/fixtures/learn/psu-rackmount1.golden); a node without
# a BMC, or whose BMC does not answer, gets `psu: null` and a note; the
# draft with its unknowns filled in passes `check` (the round trip).
#
#   sh tests/e2e/t022-learn-ssh.sh      (as root; PROVISION=path/to/binary)

set -u
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/sshd-lib.sh"

MOCKUP=${REDFISH_MOCKUP:-$TOP/../shared/redfish/public-rackmount1}
sshd_setup
W=$SSHT/rf
mkdir -p "$W" || exit 1
. "$(dirname "$0")/redfish-lib.sh"
rf_need
[ -f "$MOCKUP/index.json" ] || skip_all "no Redfish mockup at $MOCKUP"
trap 'rf_cleanup; sshd_cleanup' EXIT
# evidence FILE...: after a failed check (T_FAIL grew), its files as
# TAP comments
FAILS=0
evidence() {
	[ "$T_FAIL" -gt "$FAILS" ] || return 0
	FAILS=$T_FAIL
	for f in "$@"; do
		[ -f "$f" ] && head -n 40 "$f" | sed "s|^|#   ${f##*/}: |"
	done
	return 0
}
: "${PROVISION_PROFILES:=$TOP/profiles}"
export PROVISION_PROFILES
P=$PROVISION
T=$SSHT
NET=127.0.122
PORT=$(free_port)
sshd_start node "$PORT" $NET.1 $NET.2 $NET.3 || exit 1
known_hosts_for node "$PORT" node-a node-b node-c >"$T/known_hosts"

printf '%s\n' 'learn "pw"' >"$W/pw"
chmod 600 "$W/pw"
export BMC_PW='learn "pw"'
rf_certs "IP:$NET.10"
rf_emu bmc --mockup "$MOCKUP" --listen "$NET.10:0" --cert "$W/srv.pem" \
    --key "$W/srv.key" || skip_all "the emulator did not start"
BP=$(cat "$W/bmc.port")
CLOSED=$(free_port)

mkdir -p "$T/profiles"
cp "$W/ca.pem" "$T/ca.pem"
# a small CPU of the test's own, so one 400 W supply carries the node
cat >"$T/profiles/cpus.yaml" <<'EOF'
cpus:
  t022-cpu:
    name: t022 test CPU
    vendor: test
    cores: 4
    threads: 8
    power_w: 65
    pcie_gen: 4
    pcie_lanes: 20
    pcie_lanes_2s: null
    memory_channels: 2
    sources: [S-T022]
sources:
  S-T022: { title: "t022 test profile", url: "https://www.dmtf.org/standards/redfish" }
EOF
B="user: admin, password_env: BMC_PW, ca_file: ca.pem"
cat >"$T/plan.yaml" <<EOF
version: 1
cluster: { name: t022, domain: t022.internal }
profiles: [ ./profiles ]
ssh: { user: root, identity: $T/id_ed25519, known_hosts: $T/known_hosts,
       host_keys: strict, port: $PORT, connect_timeout_s: 3 }
racks:
  r01:
    units: 42
    depth_mm: 1000
    cooling_kw: 10
    max_load_kg: 500
    pdus:
      - { volts: 230, amps: 16, feed: A, c13: 8, c19: 2 }
networks:
  lo: { cidr: $NET.0/24, kind: ethernet, gbps: 10, role: management }
nodes:
  - { name: node-a, address: $NET.1, bmc: { address: $NET.10, port: $BP, $B } }
  - { name: node-b, address: $NET.2 }
  - { name: node-c, address: $NET.3, bmc: { address: $NET.10, port: $CLOSED, $B } }
  - { name: node-d, address: $NET.4 }
EOF
# the round trip's plan: node-a on its own drafted system, in a rack
sed -e 's/^  - { name: node-a, address/  - { name: node-a, hardware: here, rack: r01, u: 1, address/' \
    -e '/name: node-[bcd]/d' -e 's/^racks:/hardware:\
  here:\
    system: learned-a\
    cpu: { model: t022-cpu, count: 1 }\
    memory_gb: 32\
    nics:\
      - { model: onboard-1gbe, count: 2, network: lo }\
racks:/' "$T/plan.yaml" >"$T/plan-rt.yaml"

expect_code 0 "learn node-a over SSH, its PSUs through its BMC" \
	sh -c "SSH_AUTH_SOCK= '$P' catalog learn '$T/plan.yaml' -n node-a --id learned-a -o '$T/profiles/systems.yaml' >'$T/a.out' 2>'$T/a.err'"
evidence "$T/a.out" "$T/a.err"
sed -n '/^    psu:/,/^    [a-z]/p' "$T/profiles/systems.yaml" | sed '$d' |
    sed 's/127\.0\.122\.10/ADDRESS/' >"$T/psu.txt"
check "its psu block is the mockup's: 1 PSU, C14, 400 W at 200-240 V, 350 W at 120 V" \
	diff -u "$TOP/tests/fixtures/learn/psu-rackmount1.golden" "$T/psu.txt"
check "what the BMC said is unconfirmed, its redundancy unknown" sh -c "
	grep -q '^    unconfirmed: .*psu.count, psu.inlet, psu.ratings' '$T/profiles/systems.yaml' &&
	grep -q '^    unknown: .*psu.redundancy' '$T/profiles/systems.yaml'"
check "the password never shows" sh -c "! grep -q 'learn \"pw\"' '$T/a.out' '$T/a.err' '$T/profiles/systems.yaml'"

# one gathering: --local here and the node over SSH draft the same entry
"$P" catalog learn --local --id learned-a >"$T/local.yaml" 2>"$T/local.err"
strip() {
	sed -e '/^# Draft of/d' -e '/^    psu:/,/^    slots:/{/^    slots:/!d}' \
	    -e 's/, psu[.a-z]*//g' -e 's/\[psu[.a-z]*, /[/' "$1"
}
strip "$T/local.yaml" >"$T/local.cut"
strip "$T/profiles/systems.yaml" >"$T/node.cut"
check "the node's draft is --local's, the PSUs aside" diff -u "$T/local.cut" "$T/node.cut"

expect_code 0 "learn node-b: no bmc" \
	sh -c "SSH_AUTH_SOCK= '$P' catalog learn '$T/plan.yaml' -n node-b --id learned-b >'$T/b.yaml' 2>'$T/b.err'"
check "... psu null and unknown" sh -c "
	grep -q '^    psu: null  *# UNKNOWN' '$T/b.yaml' && grep -q '^    unknown: .*psu' '$T/b.yaml'"

expect_code 0 "learn node-c: its BMC does not answer, the draft stands" \
	sh -c "SSH_AUTH_SOCK= '$P' catalog learn '$T/plan.yaml' -n node-c --id learned-c >'$T/c.yaml' 2>'$T/c.err'"
check "... psu null, and a note says why" sh -c "
	grep -q '^    psu: null' '$T/c.yaml' && grep -q '^# note: BMC at $NET.10: .*the PSUs are unknown' '$T/c.yaml'"

expect_code 1 "a node nothing answers on fails, no draft" \
	sh -c "SSH_AUTH_SOCK= '$P' catalog learn '$T/plan.yaml' -n node-d -o '$T/d.yaml' >'$T/d.out' 2>'$T/d.err'"
check "... saying why, and writes nothing" sh -c "
	grep -q 'node-d: unreachable' '$T/d.err' && test ! -e '$T/d.yaml'"
expect_code 2 "learn PLAN without -n is a usage error" \
	sh -c "'$P' catalog learn '$T/plan.yaml' >/dev/null 2>&1"
expect_code 2 "a node not in the plan is a usage error" \
	sh -c "'$P' catalog learn '$T/plan.yaml' -n nosuch >/dev/null 2>&1"

# the round trip: unknowns filled in as a person would, then check
sed -f "$TOP/tests/fixtures/learn/fill-in.sed" \
    -e 's/^\(      redundancy:\) null .*/\1 "N"/' \
    "$T/profiles/systems.yaml" |
    sed 's/^\(    unconfirmed:.*\), psu, slots\]/\1, psu.redundancy, slots]/' \
    >"$T/filled.yaml" &&
    mv "$T/filled.yaml" "$T/profiles/systems.yaml"
check "filled in, nothing but max_power_w is unknown" sh -c "
	! grep -v max_power_w '$T/profiles/systems.yaml' | grep -q ': null  *# UNKNOWN'"
expect_code 0 "the filled-in draft passes check" \
	sh -c "'$P' check '$T/plan-rt.yaml' >'$T/check.out' 2>&1"
evidence "$T/check.out"
check "... its power from the BMC's rating: 400 W at 230 V" \
	grep -q '400 W (1 of 1 x 400 W PSUs at 230 V' "$T/check.out"
check "... its C14 inlet on a C13 outlet" \
	grep -Eq "ok +rack 'r01' feed A +outlets +1 C13, 0 C19" "$T/check.out"

done_testing

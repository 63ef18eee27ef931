#!/bin/sh
# t041-bmc-shapes: `provision bmc` against BMCs shaped like real ones
# (tests/redfish/shapes: HPE iLO 5, Dell iDRAC 9, AMI MegaRAC, written
# after the vendors' documents) and DMTF's public mockups with several
# systems, a DPU, a rack PDU and a liquid-cooled server
# (../shared/redfish): every action, checked in the emulator's state,
# and `power` against check's model and the racks' feeds.
#
#   sh tests/e2e/t041-bmc-shapes.sh   (PROVISION=path/to/binary)
#
# Needs python3, openssl and curl; exits 77 when something is missing.

set -u
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/redfish-lib.sh"

SHARED=${REDFISH_SHARED:-$TOP/../shared/redfish}
SHAPES=$TOP/tests/redfish/shapes
rf_need
for m in public-bladed public-smartnic public-pdu public-liquid-cooled-server; do
	[ -f "$SHARED/$m/index.json" ] || skip_all "no mockup $SHARED/$m (set REDFISH_SHARED)"
done

W=$(mktemp -d /tmp/t041-bmc.XXXXXX) || exit 1
trap rf_cleanup EXIT
trap 'exit 1' INT TERM

PW='t041 "secret" \ pw'
printf '%s\n' "$PW" >"$W/pw"
chmod 600 "$W/pw"
export BMC_PW="$PW"
ALL="$W/all-output"
: >"$ALL"

A=127.0.52
rf_certs "IP:$A.1,IP:$A.2,IP:$A.3,IP:$A.4,IP:$A.5,IP:$A.6,IP:$A.7"
i=1
for m in "$SHAPES/ilo5.json" "$SHAPES/idrac9.json" "$SHAPES/ami.json" \
    "$SHARED/public-bladed" "$SHARED/public-smartnic" "$SHARED/public-pdu" \
    "$SHARED/public-liquid-cooled-server"; do
	rf_emu "e$i" --mockup "$m" --listen "$A.$i:0" --cert "$W/srv.pem" \
	    --key "$W/srv.key" || skip_all "the emulator did not start on $m"
	i=$((i + 1))
done
for i in 1 2 3 4 5 6 7; do
	eval "P$i=\$(cat \"\$W/e$i.port\")"
done

# The planned hardware: an Apollo with 8 A100 (modelled at 6,500 W), an
# XE8545 modelled at 2,900 W (below what it draws), the rest anything.
mkdir -p "$W/profiles"
cat >"$W/profiles/t041.yaml" <<'EOF'
cpus:
  epyc-7763-t041:
    name: AMD EPYC 7763 64-Core Processor
    vendor: AMD
    cores: 64
    threads: 128
    power_w: 280
    sources: [S-T041]
systems:
  xe8545-t041:
    name: PowerEdge XE8545 (test)
    vendor: Dell
    rack_units: 4
    base_power_w: 100
    max_power_w: 2900
    cpu_sockets: 2
    psu: { count: 4, ratings: [ { volts_min: 200, volts_max: 240, watts: 2400 } ] }
    sources: [S-T041]
sources:
  S-T041: { title: "t041 test profile", url: "https://www.dmtf.org/standards/redfish" }
EOF

B="user: admin, password_env: BMC_PW, ca_file: ca.pem"
cat >"$W/plan.yaml" <<EOF
version: 1
cluster: { name: t041 }
profiles: [ ./profiles ]
hardware:
  apollo: { system: dgx-a100, gpus: { model: a100-sxm4-40gb, count: 8 },
            psu: { count: 4, watts: 3000 } }
  xe: { system: xe8545-t041, cpu: { model: epyc-7763-t041, count: 2 }, memory_gb: 512,
        gpus: { model: a100-sxm4-40gb, count: 4 } }
  ami: { system: dgx-h100, gpus: { model: h100-sxm5, count: 8 }, psu: { count: 4, watts: 3000 } }
racks:
  r01:
    units: 42
    pdus:
      - { volts: 208, amps: 30, phases: 3, feed: A, redfish: { address: $A.6, port: $P6, $B } }
      - { volts: 208, amps: 30, phases: 3, feed: B }
  r02:
    units: 42
    pdus:
      - { volts: 230, amps: 16, feed: A, redfish: { address: $A.6, port: $P6, $B, pdu: "1" } }
nodes:
  - { name: ilo01, hardware: apollo, rack: r01, u: 1, address: 10.41.0.1,
      bmc: { address: $A.1, port: $P1, $B } }
  - { name: idrac01, hardware: xe, rack: r01, u: 10, address: 10.41.0.2,
      bmc: { address: $A.2, port: $P2, $B } }
  - { name: ami01, hardware: ami, rack: r02, u: 1, address: 10.41.0.3,
      bmc: { address: $A.3, port: $P3, $B } }
  - { name: encl, address: 10.41.0.10, bmc: { address: $A.4, port: $P4, $B } }
  - { name: blade2, address: 10.41.0.12, bmc: { address: $A.4, port: $P4, $B, system: 529QB9451R6 } }
  - { name: blade3, address: 10.41.0.13, bmc: { address: $A.4, port: $P4, $B, system: "3" } }
  - { name: blade9, address: 10.41.0.19, bmc: { address: $A.4, port: $P4, $B, system: "9" } }
  - { name: host01, address: 10.41.0.20, bmc: { address: $A.5, port: $P5, $B } }
  - { name: dpu01, address: 10.41.0.21, bmc: { address: $A.5, port: $P5, $B, system: Card1-SoC } }
  - { name: cool01, address: 10.41.0.30, bmc: { address: $A.7, port: $P7, $B } }
EOF
PLAN=$W/plan.yaml

# has NAME PATTERN: the output NAME has a line matching PATTERN.
has() {
	grep -q -- "$2" "$W/$1.out"
}

# sys IP PORT ID EXPR: EXPR over the system ID's state as s.
sys() {
	rf_state "$1" "$2" "d[\"systems\"][\"$3\"]" >/dev/null &&
	    rf_state "$1" "$2" "(lambda s: $4)(d[\"systems\"][\"$3\"])"
}

# media IP PORT SUFFIX EXPR: EXPR over the slot whose URI ends in SUFFIX.
media() {
	rf_state "$1" "$2" "(lambda m: $4)([v for k, v in d[\"virtual_media\"].items() if k.endswith(\"$3\")][0])"
}

URL=http://10.41.0.254/images/debian-12.iso

# --- HPE iLO 5: decimal PCI ids, OEM GPU list, URIs ending in '/' -----------

bmc ilo_inv -n ilo01 inventory
if [ $rc = 0 ] && has ilo_inv "^ilo01 .* ok  *2 CPUs, 1024 GiB, 8 GPUs, 4 PSUs x 3000 W$" &&
    has ilo_inv "^  ok  *ilo01  *gpu count  *8  *8$" &&
    has ilo_inv "^  ok  *ilo01  *gpu model  *a100-sxm4-40gb  *a100-sxm4-40gb$"; then
	ok "iLO 5: 8 GPUs from HPE's PCIDevices, the Matrox VGA ('4139' = 0x102b) not one"
else
	not_ok "iLO 5 inventory (rc $rc)"; show ilo_inv
fi

bmc ilo_invj -n ilo01 inventory --json
if [ $rc = 0 ] && python3 -c '
import json, sys
r = json.load(open(sys.argv[1]))["results"][0]
i = r["inventory"]
assert i["gpu_pci_ids"] == ["10de:20b0"] * 8, i["gpu_pci_ids"]
assert r["system"] == "/redfish/v1/Systems/1/", r["system"]
assert r["auth"] == "session"
' "$W/ilo_invj.out"; then
	ok "iLO 5 --json: PCI ids 10de:20b0 from decimal 4318/8368"
else
	not_ok "iLO 5 --json (rc $rc)"; show ilo_invj
fi

bmc ilo_media -n ilo01 media insert "$URL"
if [ $rc = 0 ] && has ilo_media "ok  *2: $URL$" &&
    [ "$(media $A.1 "$P1" /VirtualMedia/2 'm["Image"]')" = "$URL" ] &&
    [ "$(media $A.1 "$P1" /VirtualMedia/1 'm["Inserted"]')" = false ]; then
	ok "iLO 5 media insert: slot '2' (CD/DVD), named by the last segment of '.../2/'"
else
	not_ok "iLO 5 media insert (rc $rc)"; show ilo_media
fi

bmc ilo_eject -n ilo01 media eject
if [ $rc = 0 ] && has ilo_eject "ok  *2 ejected$" &&
    [ "$(media $A.1 "$P1" /VirtualMedia/2 'm["Inserted"]')" = false ]; then
	ok "iLO 5 media eject"
else
	not_ok "iLO 5 media eject (rc $rc)"; show ilo_eject
fi

bmc ilo_off -n ilo01 off
if [ $rc = 0 ] && [ "$(sys $A.1 "$P1" 1 's["PowerState"]')" = Off ] &&
    [ "$(rf_state $A.1 "$P1" 'len(d["sessions"])')" = 0 ]; then
	ok "iLO 5 off: the system is Off, the session deleted"
else
	not_ok "iLO 5 off (rc $rc)"; show ilo_off
fi

bmc ilo_boot -n ilo01 boot pxe --once
bmc ilo_on -n ilo01 on
if [ $rc = 0 ] && [ "$(sys $A.1 "$P1" 1 's["boots"][-1]["override"]')" = Pxe ] &&
    [ "$(sys $A.1 "$P1" 1 's["PowerState"]')" = On ]; then
	ok "iLO 5 boot pxe --once then on: it booted from PXE"
else
	not_ok "iLO 5 boot and on (rc $rc)"; show ilo_boot; show ilo_on
fi

# --- Dell iDRAC 9: PCIe device links that all answer 404 --------------------

bmc idrac_inv -n idrac01 inventory
if [ $rc = 0 ] && has idrac_inv "^idrac01 .* ok  *2 CPUs, 512 GiB, GPUs ?, 4 PSUs x 2400 W$" &&
    grep -A1 "^  skip  idrac01  *gpu count  *-  *4$" "$W/idrac_inv.out" |
    grep -q "4 of 4 PCIe device links could not be read (0 GPUs among the rest)"; then
	ok "iDRAC 9: unreadable PCIe links make the GPU count unknown (a skip with the reason), not 0"
else
	not_ok "iDRAC 9 inventory (rc $rc)"; show idrac_inv
fi

bmc idrac_media -n idrac01 media insert "$URL"
if [ $rc = 0 ] && has idrac_media "ok  *CD: $URL$" &&
    [ "$(media $A.2 "$P2" /VirtualMedia/RemovableDisk 'm["Inserted"]')" = false ]; then
	ok "iDRAC 9 media insert: the CD slot, not the removable disk listed first"
else
	not_ok "iDRAC 9 media (rc $rc)"; show idrac_media
fi

bmc idrac_cycle -n idrac01 cycle
if [ $rc = 0 ] && [ "$(sys $A.2 "$P2" System.Embedded.1 's["resets"][-1]["ResetType"]')" = PowerCycle ]; then
	ok "iDRAC 9 cycle: PowerCycle"
else
	not_ok "iDRAC 9 cycle (rc $rc)"; show idrac_cycle
fi

bmc idrac_boot -n idrac01 boot cd
if [ $rc = 0 ] && [ "$(sys $A.2 "$P2" System.Embedded.1 '[s["Boot"]["BootSourceOverrideTarget"], s["Boot"]["BootSourceOverrideEnabled"]]')" = '["Cd", "Continuous"]' ]; then
	ok "iDRAC 9 boot cd: Continuous (allowed)"
else
	not_ok "iDRAC 9 boot (rc $rc)"; show idrac_boot
fi

# --- AMI MegaRAC: 204 login, CD without MediaTypes, Once-only boot -----------

bmc ami_status -n ami01 status
if [ $rc = 0 ] && has ami_status "^ami01 .* ok  *On, no boot override$" &&
    [ "$(rf_state $A.3 "$P3" '[(e["method"], e["status"]) for e in d["log"] if "/Sessions" in e["path"]]')" = '[["POST", 204], ["DELETE", 204]]' ] &&
    [ "$(rf_state $A.3 "$P3" 'sorted(set(str(e["auth"]) for e in d["log"][2:]))')" = '["session"]' ] &&
    [ "$(rf_state $A.3 "$P3" 'len(d["sessions"])')" = 0 ]; then
	ok "AMI: a 204 login with X-Auth-Token and Location is a session, used and deleted"
else
	not_ok "AMI 204 login (rc $rc)"; show ami_status
	rf_state $A.3 "$P3" '[(e["method"], e["path"], e["status"], e["auth"]) for e in d["log"]]' | sed 's/^/#   /'
fi

rf_fault $A.3 "$P3" '{"mode": "405", "count": 1, "path_prefix": "/redfish/v1/SessionService/Sessions"}'
bmc ami_405 -n ami01 status
if [ $rc = 1 ] && has ami_405 "FAILED  *login: POST /redfish/v1/SessionService/Sessions: 405 Method Not Allowed" &&
    has ami_405 "(--basic-auth uses basic auth instead)" &&
    [ "$(rf_state $A.3 "$P3" 'len([e for e in d["log"] if e["auth"] == "basic"])')" = 0 ]; then
	ok "AMI: a refused login fails, no silent fall back to basic auth"
else
	not_ok "AMI refused login (rc $rc)"; show ami_405
fi

bmc ami_basic -n ami01 status --basic-auth
if [ $rc = 0 ] && has ami_basic "^ami01 .* ok  *basic auth (--basic-auth); On" &&
    [ "$(rf_state $A.3 "$P3" 'd["log"][-1]["auth"]')" = basic ]; then
	ok "AMI --basic-auth: basic auth, and the row says so"
else
	not_ok "AMI --basic-auth (rc $rc)"; show ami_basic
fi

bmc ami_boot -n ami01 boot pxe
if [ $rc = 0 ] && has ami_boot "ok  *boot override Pxe (Once); the BMC allows only Once$" &&
    [ "$(sys $A.3 "$P3" Self 's["Boot"]["BootSourceOverrideEnabled"]')" = Once ]; then
	ok "AMI boot pxe: only Once allowed, so Once, and the row says so"
else
	not_ok "AMI boot (rc $rc)"; show ami_boot
fi

bmc ami_media -n ami01 media insert "$URL"
if [ $rc = 0 ] && has ami_media "ok  *CD1: $URL$" &&
    [ "$(media $A.3 "$P3" /VirtualMedia/CD1 'm["Image"]')" = "$URL" ] &&
    [ "$(media $A.3 "$P3" /VirtualMedia/HD1 'm["Inserted"]')" = false ]; then
	ok "AMI media insert: CD1 by its actions (no MediaTypes), not the USB slot"
else
	not_ok "AMI media (rc $rc)"; show ami_media
fi

bmc ami_inv -n ami01 inventory
if [ $rc = 0 ] && grep -A1 "^  skip  ami01  *gpu count  *-  *8$" "$W/ami_inv.out" |
    grep -q "PCIe device list is empty"; then
	ok "AMI: an empty PCIe device list is unknown, not 0 GPUs"
else
	not_ok "AMI inventory (rc $rc)"; show ami_inv
fi

bmc ami_reset -n ami01 reset
if [ $rc = 0 ] && [ "$(sys $A.3 "$P3" Self 's["resets"][-1]["ResetType"]')" = ForceRestart ] &&
    [ "$(rf_state $A.3 "$P3" 'any(e["path"].endswith("/ResetActionInfo") for e in d["log"])')" = true ]; then
	ok "AMI reset: ForceRestart, allowed by its ActionInfo"
else
	not_ok "AMI reset (rc $rc)"; show ami_reset
fi

# --- public-bladed: 4 blades behind one manager ------------------------------

bmc bl_none -n encl status
if [ $rc = 1 ] && has bl_none "FAILED  *the BMC has 4 systems (529QB9450R6, 529QB9451R6, 529QB9452R6, 529QB9453R6): name the node's in bmc.system" &&
    [ "$(rf_state $A.4 "$P4" 'len([e for e in d["log"] if e["method"] == "POST" and "Actions" in e["path"]])')" = 0 ]; then
	ok "bladed: no bmc.system with 4 systems: refused, the ids listed, nothing done"
else
	not_ok "bladed without bmc.system (rc $rc)"; show bl_none
fi

bmc bl_off -n blade2 off
if [ $rc = 0 ] && has bl_off "^blade2 .* ok  *system 529QB9451R6: Off (was On; ForceOff)$" &&
    [ "$(rf_state $A.4 "$P4" '{k: v["PowerState"] for k, v in d["systems"].items()}')" = \
    '{"529QB9450R6": "On", "529QB9451R6": "Off", "529QB9452R6": "On", "529QB9453R6": "On"}' ]; then
	ok "bladed off -n blade2: blade 529QB9451R6 only"
else
	not_ok "bladed off (rc $rc)"; show bl_off
fi

bmc bl_on -n blade2 on
if [ $rc = 0 ] && [ "$(sys $A.4 "$P4" 529QB9451R6 's["PowerState"]')" = On ]; then
	ok "bladed on -n blade2"
else
	not_ok "bladed on (rc $rc)"; show bl_on
fi

bmc bl_boot -n blade3 boot pxe --once
if [ $rc = 0 ] && [ "$(sys $A.4 "$P4" 529QB9452R6 's["Boot"]["BootSourceOverrideTarget"]')" = Pxe ] &&
    [ "$(sys $A.4 "$P4" 529QB9450R6 's["Boot"]["BootSourceOverrideTarget"]')" = None ]; then
	ok "bladed boot -n blade3 (bmc.system: \"3\", an index): the third blade"
else
	not_ok "bladed boot by index (rc $rc)"; show bl_boot
fi

bmc bl_cycle -n blade3 cycle
if [ $rc = 0 ] && [ "$(sys $A.4 "$P4" 529QB9452R6 's["resets"][-1]["ResetType"]')" = PowerCycle ]; then
	ok "bladed cycle -n blade3"
else
	not_ok "bladed cycle (rc $rc)"; show bl_cycle
fi

bmc bl_bad -n blade9 status
if [ $rc = 1 ] && has bl_bad "FAILED  *the BMC has no system '9' (its systems: 529QB9450R6, 529QB9451R6, 529QB9452R6, 529QB9453R6;"; then
	ok "bladed: a bmc.system that is not there: refused with the ids"
else
	not_ok "bladed bad bmc.system (rc $rc)"; show bl_bad
fi

bmc bl_media -n blade2 media insert "$URL"
if [ $rc = 1 ] && has bl_media "FAILED  *system 529QB9451R6: the BMC has no virtual media: neither system /redfish/v1/Systems/529QB9451R6 nor its manager /redfish/v1/Managers/Blade2BMC links VirtualMedia"; then
	ok "bladed media insert: 'the BMC has no virtual media', clearly"
else
	not_ok "bladed media (rc $rc)"; show bl_media
fi

bmc bl_inv -n blade2 inventory
if [ $rc = 0 ] && has bl_inv "^blade2 .* ok  *system 529QB9451R6: 1 CPU, 64 GiB, GPUs ?, PSUs ?$"; then
	ok "bladed inventory of blade 2"
else
	not_ok "bladed inventory (rc $rc)"; show bl_inv
fi

# --- public-smartnic: a host and a DPU --------------------------------------

bmc sn_off -n host01 off
if [ $rc = 0 ] && has sn_off "system 437XR1138R2: Off" &&
    [ "$(sys $A.5 "$P5" 437XR1138R2 's["PowerState"]')" = Off ] &&
    [ "$(sys $A.5 "$P5" Card1-SoC 's["PowerState"]')" = On ]; then
	ok "smartnic: without bmc.system the host, never the DPU"
else
	not_ok "smartnic host (rc $rc)"; show sn_off
fi

bmc sn_on -n host01 on
bmc sn_dpu -n dpu01 reset
if [ $rc = 0 ] && [ "$(sys $A.5 "$P5" Card1-SoC 's["resets"][-1]["ResetType"]')" = ForceRestart ] &&
    [ "$(sys $A.5 "$P5" 437XR1138R2 's["resets"][-1]["ResetType"]')" = On ]; then
	ok "smartnic: the DPU when bmc.system names it"
else
	not_ok "smartnic DPU (rc $rc)"; show sn_on; show sn_dpu
fi

bmc sn_boot -n host01 boot disk
bmc sn_media -n host01 media insert "$URL"
if [ $rc = 0 ] && [ "$(sys $A.5 "$P5" 437XR1138R2 's["Boot"]["BootSourceOverrideTarget"]')" = Hdd ] &&
    [ "$(media $A.5 "$P5" /VirtualMedia/CD1 'm["Image"]')" = "$URL" ]; then
	ok "smartnic host: boot disk, media insert (the manager's CD1)"
else
	not_ok "smartnic boot/media (rc $rc)"; show sn_boot; show sn_media
fi

# --- public-liquid-cooled-server ---------------------------------------------

bmc lq_off -n cool01 off
bmc lq_on -n cool01 on
if [ $rc = 0 ] && [ "$(sys $A.7 "$P7" 437XR1138R2 '[r["ResetType"] for r in s["resets"]]')" = '["ForceOff", "On"]' ]; then
	ok "liquid-cooled: off, on"
else
	not_ok "liquid-cooled power (rc $rc)"; show lq_off; show lq_on
fi

bmc lq_boot -n cool01 boot cd --once
bmc lq_media -n cool01 media insert "$URL"
bmc lq_eject -n cool01 media eject
if [ $rc = 0 ] && [ "$(sys $A.7 "$P7" 437XR1138R2 's["Boot"]["BootSourceOverrideTarget"]')" = Cd ] &&
    [ "$(media $A.7 "$P7" /VirtualMedia/CD1 'm["Inserted"]')" = false ] &&
    has lq_media "ok  *CD1: $URL$"; then
	ok "liquid-cooled: boot cd, media insert and eject"
else
	not_ok "liquid-cooled boot/media (rc $rc)"; show lq_boot; show lq_media; show lq_eject
fi

# --- power: measured against check's model and the feeds ---------------------

bmc pw -n 'ilo01,idrac01,ami01,blade2,host01,cool01' power
if [ $rc = 0 ] &&
    has pw "^ilo01 .* ok  *4620 W (PowerControl), 4 PSUs at 207-208 V$" &&
    has pw "^idrac01 .* warn  *3015 W (PowerControl), 4 PSUs at 230-231 V$" &&
    has pw "^ami01 .* ok  *6840 W (EnvironmentMetrics), 4 PSUs at 207.5-208.1 V$" &&
    has pw "^cool01 .* ok  *374 W (EnvironmentMetrics), 1 PSU at 230.2 V$" &&
    has pw "^blade2 .* ok  *system 529QB9451R6: no power reading$" &&
    has pw "^  ok    ilo01  *draw  *4,620 W  *6,500 W modelled$" &&
    grep -A1 "^  warn  idrac01  *draw  *3,015 W  *2,900 W modelled$" "$W/pw.out" |
    grep -q "draws 115 W more than modelled (3,015 W against 2,900 W)" &&
    has pw "^r01 PDU 1 (A) .* ok  *PDU 1: 6438 W, 1 mains at 202.8 V, 3 branches, 11 outlets (10 on)$" &&
    has pw "^  ok    rack 'r01' feed A  *feed draw  *6,438 W (74.5%)  *8,646 W derated$" &&
    grep -A1 "^  warn  rack 'r02' feed A  *feed draw  *6,438 W (218.7%)  *2,944 W derated$" "$W/pw.out" |
    grep -q "3,494 W above the derated limit" &&
    has pw "^  ok    rack 'r01' feed A PDU 1 branch A  *branch  *5.19 A  *12.8 A (16 A rated x 0.8)$" &&
    has pw "^power: 8 ok, 0 failed, 2 warnings$"; then
	ok "power: watts per node beside the model (a warning above it), per feed against its derated limit"
else
	not_ok "power (rc $rc)"; show pw
fi

bmc pwj -n 'idrac01' power --json
if [ $rc = 0 ] && python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
n = [r for r in d["results"] if r.get("node") == "idrac01"][0]
assert n["inventory"]["watts"] == 3015 and n["power"][0]["verdict"] == "warn", n
p = [r for r in d["results"] if r.get("rack") == "r01"][0]
assert p["pdu"]["watts"] == 6438 and len(p["pdu"]["branches"]) == 3, p
f = {x["subject"]: x for x in d["feeds"]}
assert f["rack '"'"'r01'"'"' feed A"]["value"] == 6438, f
' "$W/pwj.out"; then
	ok "power --json: node watts, the PDU and its feeds"
else
	not_ok "power --json (rc $rc)"; show pwj
fi

"$PROVISION" report "$PLAN" --power-json "$W/pwj.out" -o "$W/report.html" \
    >"$W/report.out" 2>"$W/report.err"
rc=$?
if [ $rc = 0 ] && grep -q '<td>r01 feed A</td>' "$W/report.html" &&
    grep -q '<tr class="power ok"><td>r01 feed A measured</td>' "$W/report.html" &&
    grep -q '<tr class="power warn"><td>idrac01 measured</td>' "$W/report.html"; then
	ok "report --power-json: the measured bar beside the planned one, per feed and node"
else
	not_ok "report --power-json (rc $rc)"; show report
fi

# --- the password never shows -------------------------------------------------

if [ -s "$ALL" ] && ! grep -qF -- "$PW" "$ALL" && ! grep -qF secret "$ALL"; then
	ok "the password appears in no output"
else
	not_ok "the password was printed"
fi

done_testing

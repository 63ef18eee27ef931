#!/bin/sh
# t040-bmc: `provision bmc` for real against the Redfish emulator
# (tests/redfish/emulator.py) over TLS with a CA and certificates made
# here: every action, checked in the emulator's own state; a bad password,
# an untrusted certificate (fails closed), `insecure: true` (works, and
# says so), 500 answers, a dropped connection, a slow BMC, task monitors
# and power-state waits, 50 BMCs at once; and the password never shows.
#
#   sh tests/e2e/t040-bmc.sh      (PROVISION=path/to/binary; REDFISH_MOCKUP=DIR)
#
# Needs python3, openssl and curl; the mockup defaults to
# ../shared/redfish/public-rackmount1 beside the repository.  Exits 77
# when something is missing.

set -u
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/redfish-lib.sh"

MOCKUP=${REDFISH_MOCKUP:-$TOP/../shared/redfish/public-rackmount1}
rf_need
[ -f "$MOCKUP/index.json" ] || skip_all "no Redfish mockup at $MOCKUP (set REDFISH_MOCKUP)"

W=$(mktemp -d /tmp/t040-bmc.XXXXXX) || exit 1
trap rf_cleanup EXIT
trap 'exit 1' INT TERM

# The password has what breaks careless code: quotes, a backslash, a
# colon (basic auth), spaces.
PW='S3cr3t "pw" \ with:colon'
PW_B64=$(printf '%s' "admin:$PW" | base64 | tr -d '\n')
printf '%s\n' "$PW" >"$W/pw"
chmod 600 "$W/pw"
export BMC_PW="$PW"
ALL="$W/all-output"		# every stdout and stderr, for the password grep
: >"$ALL"

# --- certificates -----------------------------------------------------------

sans=""
i=1
while [ $i -le 60 ]; do
	sans="${sans}IP:127.0.50.$i,"
	i=$((i + 1))
done
sans=${sans%,}
rf_certs "$sans"
# A BMC's factory certificate: self-signed, trusted by nobody.
(cd "$W" && openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 \
    -nodes -keyout rogue.key -out rogue.pem -days 2 -subj /CN=bmc-factory \
    -addext "subjectAltName=IP:127.0.50.53") >"$W/openssl.log" 2>&1 ||
    { cat "$W/openssl.log"; skip_all "openssl could not make certificates"; }

# --- emulators --------------------------------------------------------------

# start_emu NAME ARGS...: an emulator of the mockup (a later --mockup wins).
start_emu() {
	sname=$1
	shift
	rf_emu "$sname" --mockup "$MOCKUP" "$@"
}

start_emu fleet --listen-many 127.0.50.1-50:0 --cert "$W/srv.pem" \
    --key "$W/srv.key" || skip_all "the emulator did not start"
start_emu slow --listen 127.0.50.51:0 --cert "$W/srv.pem" --key "$W/srv.key" \
    --async-actions --task-delay 1 --power-delay 1 ||
    skip_all "the emulator did not start"
# A second BMC shape, made from the mockup: no sessions (basic auth),
# reset types only in an @Redfish.ActionInfo, virtual media under the
# manager, two GPUs and the BMC's VGA as chassis PCIe devices.
python3 - "$MOCKUP" "$W/variant" <<'PYEOF' || skip_all "cannot make the variant mockup"
import json, os, shutil, sys
src, dst = sys.argv[1], sys.argv[2]
shutil.copytree(src, dst)
R = "/redfish/v1"
S, M, C = "/Systems/437XR1138R2", "/Managers/BMC", "/Chassis/1U"

def path(p):
    return dst + p + "/index.json"

def load(p):
    with open(path(p)) as f:
        return json.load(f)

def save(p, d):
    os.makedirs(os.path.dirname(path(p)), exist_ok=True)
    with open(path(p), "w") as f:
        json.dump(d, f, indent=1)

root = load("")
del root["SessionService"]
del root["Links"]["Sessions"]
save("", root)

shutil.move(dst + S + "/VirtualMedia", dst + M + "/VirtualMedia")
for d, _, files in os.walk(dst + M + "/VirtualMedia"):
    for fn in files:
        with open(os.path.join(d, fn)) as f:
            t = f.read()
        with open(os.path.join(d, fn), "w") as f:
            f.write(t.replace(R + S + "/VirtualMedia", R + M + "/VirtualMedia"))
mgr = load(M)
mgr["VirtualMedia"] = {"@odata.id": R + M + "/VirtualMedia"}
save(M, mgr)

sysd = load(S)
del sysd["VirtualMedia"]
act = sysd["Actions"]["#ComputerSystem.Reset"]
del act["ResetType@Redfish.AllowableValues"]
act["@Redfish.ActionInfo"] = R + S + "/ResetActionInfo"
save(S, sysd)
save(S + "/ResetActionInfo", {
    "@odata.type": "#ActionInfo.v1_3_0.ActionInfo",
    "@odata.id": R + S + "/ResetActionInfo", "Id": "ResetActionInfo",
    "Name": "Reset Action Info",
    "Parameters": [{"Name": "ResetType", "Required": True,
                    "DataType": "String",
                    "AllowableValues": ["On", "ForceOff", "PowerCycle"]}]})

ch = load(C)
ch["PCIeDevices"] = {"@odata.id": R + C + "/PCIeDevices"}
save(C, ch)
devs = [("GPU0", "0x10de", "0x2330", "0x030200"),
        ("GPU1", "0x10de", "0x2330", "0x030200"),
        ("VGA", "0x1a03", "0x2000", "0x030000")]
save(C + "/PCIeDevices", {
    "@odata.type": "#PCIeDeviceCollection.PCIeDeviceCollection",
    "@odata.id": R + C + "/PCIeDevices", "Name": "PCIe Devices",
    "Members": [{"@odata.id": R + C + "/PCIeDevices/" + d[0]} for d in devs],
    "Members@odata.count": len(devs)})
for name, ven, dev, cls in devs:
    base = C + "/PCIeDevices/" + name
    save(base, {"@odata.type": "#PCIeDevice.v1_11_0.PCIeDevice",
                "@odata.id": R + base, "Id": name, "Name": name,
                "Status": {"State": "Enabled", "Health": "OK"},
                "PCIeFunctions": {"@odata.id": R + base + "/PCIeFunctions"}})
    save(base + "/PCIeFunctions", {
        "@odata.type": "#PCIeFunctionCollection.PCIeFunctionCollection",
        "@odata.id": R + base + "/PCIeFunctions", "Name": "Functions",
        "Members": [{"@odata.id": R + base + "/PCIeFunctions/0"}],
        "Members@odata.count": 1})
    save(base + "/PCIeFunctions/0", {
        "@odata.type": "#PCIeFunction.v1_5_0.PCIeFunction",
        "@odata.id": R + base + "/PCIeFunctions/0", "Id": "0",
        "DeviceClass": "DisplayController", "ClassCode": cls,
        "VendorId": ven, "DeviceId": dev})
PYEOF
# (the second --mockup wins)
start_emu variant --listen 127.0.50.52:0 --cert "$W/srv.pem" --key "$W/srv.key" \
    --mockup "$W/variant" || skip_all "the emulator did not start"
start_emu rogue --listen 127.0.50.53:0 --cert "$W/rogue.pem" \
    --key "$W/rogue.key" || skip_all "the emulator did not start"
P1=$(cat "$W/fleet.port")
P2=$(cat "$W/slow.port")
P3=$(cat "$W/rogue.port")
P4=$(cat "$W/variant.port")

# --- the plan ---------------------------------------------------------------

# Some test nodes reach a fleet BMC a second time: they name its one
# system by index, as two plan nodes behind one BMC must (bmc.system).

# A catalog entry for the mockup's machine, so inventory has a plan to
# be compared with: one Xeon 7xxx (the second socket is empty), 96 GiB,
# one 400 W PSU (the second bay is empty).
mkdir -p "$W/profiles"
cat >"$W/profiles/mockup.yaml" <<'EOF'
cpus:
  xeon-7xxx:
    name: Intel Xeon processor 7xxx
    vendor: Intel
    cores: 8
    threads: 16
    power_w: 130
    sources: [S-MOCKUP]
systems:
  contoso-3500rx:
    name: Contoso 3500 RX
    vendor: Contoso
    rack_units: 1
    depth_mm: 711
    cpu_sockets: 2
    psu:
      count: 1
      ratings:
        - { volts_min: 200, volts_max: 240, watts: 400 }
    sources: [S-MOCKUP]
sources:
  S-MOCKUP: { title: "DMTF Redfish mockup public-rackmount1", url: "https://www.dmtf.org/standards/redfish" }
EOF

B="user: admin, password_env: BMC_PW"
cat >"$W/plan.yaml" <<EOF
version: 1
cluster: { name: t040 }
profiles: [ ./profiles ]
hardware:
  rx: { system: contoso-3500rx, cpu: { model: xeon-7xxx, count: 1 }, memory_gb: 96 }
  big: { system: contoso-3500rx, cpu: { model: xeon-7xxx, count: 2 }, memory_gb: 192 }
  gpu: { system: contoso-3500rx, cpu: { model: xeon-7xxx, count: 1 }, memory_gb: 96,
         gpus: { model: h100-sxm5, count: 2 } }
nodes:
  - { name: "n[01-50]", hardware: rx, address: "10.40.0.[1-50]",
      bmc: { address: "127.0.50.[1-50]", port: $P1, $B, ca_file: ca.pem } }
  - { name: drift01, hardware: big, address: 10.40.1.1,
      bmc: { address: 127.0.50.50, port: $P1, $B, ca_file: ca.pem, system: "1" } }
  - { name: file01, hardware: rx, address: 10.40.1.2,
      bmc: { address: 127.0.50.49, port: $P1, user: admin, password_file: pw, ca_file: ca.pem, system: "1" } }
  - { name: noca01, address: 10.40.1.3,
      bmc: { address: 127.0.50.48, port: $P1, $B, system: "1" } }
  - { name: async01, address: 10.40.1.4,
      bmc: { address: 127.0.50.51, port: $P2, $B, ca_file: ca.pem } }
  - { name: rogue01, address: 10.40.1.5,
      bmc: { address: 127.0.50.53, port: $P3, $B, ca_file: ca.pem } }
  - { name: insecure01, address: 10.40.1.6,
      bmc: { address: 127.0.50.53, port: $P3, $B, insecure: true, system: "1" } }
  - { name: nobmc01, address: 10.40.1.7 }
  - { name: var01, hardware: gpu, address: 10.40.1.8,
      bmc: { address: 127.0.50.52, port: $P4, $B, ca_file: ca.pem } }
EOF
PLAN=$W/plan.yaml

# --- helpers ----------------------------------------------------------------

# st IP PORT EXPR: a Python expression over the BMC's /_emulator/state as
# d, with s its (only) system and m its CD slot.
st() {
	curl -s --cacert "$W/ca.pem" "https://$1:$2/_emulator/state" |
	    python3 -c '
import json, sys
d = json.load(sys.stdin)
s = list(d["systems"].values())[0]
m = [v for k, v in d["virtual_media"].items() if k.endswith("/CD1")][0]
v = eval(sys.argv[1])
print(json.dumps(v) if not isinstance(v, str) else v)' "$3"
}

fault() {
	rf_fault "$@"
}

F=127.0.50		# the fleet's addresses

# --- status -------------------------------------------------------------------

bmc status1 -n n01 status
if [ $rc = 0 ] && grep -q "^n01  *$F.1:$P1  *ok  *On, boot override Pxe (Once)$" "$W/status1.out" &&
    grep -qx "status: 1 ok, 0 failed" "$W/status1.out"; then
	ok "status: power state and boot override, exit 0"
else
	not_ok "status (rc $rc)"; show status1
fi
if [ "$(st $F.1 "$P1" '[e["method"] + " " + e["path"] for e in d["log"]][:4]')" = \
    '["GET /redfish/v1", "POST /redfish/v1/SessionService/Sessions", "GET /redfish/v1/Systems", "GET /redfish/v1/Systems/437XR1138R2"]' ] &&
    [ "$(st $F.1 "$P1" 'len(d["log"]) == 5 and d["log"][4]["method"] == "DELETE" and d["log"][4]["path"].startswith("/redfish/v1/SessionService/Sessions/")')" = true ] &&
    [ "$(st $F.1 "$P1" 'len(d["sessions"])')" = 0 ] &&
    [ "$(st $F.1 "$P1" 'sorted(set(e["auth"] for e in d["log"][2:]))')" = '["session"]' ]; then
	ok "status: service root, session login, Systems, system, session deleted"
else
	not_ok "status: request sequence"
	st $F.1 "$P1" '[(e["method"], e["path"], e["status"], e["auth"]) for e in d["log"]]' | sed 's/^/#   /'
fi

bmc basic -n n02 --basic-auth status
if [ $rc = 0 ] && [ "$(st $F.2 "$P1" 'sorted(set(str(e["auth"]) for e in d["log"]))')" = '["None", "basic"]' ] &&
    [ "$(st $F.2 "$P1" 'len([e for e in d["log"] if e["method"] == "POST"])')" = 0 ]; then
	ok "--basic-auth: no session, basic auth on every request"
else
	not_ok "--basic-auth (rc $rc)"; show basic
fi

# --- power --------------------------------------------------------------------

bmc off -n n01 off
if [ $rc = 0 ] && grep -q "ok  *Off (was On; ForceOff)$" "$W/off.out" &&
    [ "$(st $F.1 "$P1" 's["PowerState"]')" = Off ] &&
    [ "$(st $F.1 "$P1" 's["resets"][-1]["ResetType"]')" = ForceOff ]; then
	ok "off: ForceOff, the system is Off"
else
	not_ok "off (rc $rc)"; show off
fi

bmc off2 -n n01 off
if [ $rc = 0 ] && grep -q "ok  *already Off$" "$W/off2.out" &&
    [ "$(st $F.1 "$P1" 'len(s["resets"])')" = 1 ]; then
	ok "off again: already Off, no reset sent"
else
	not_ok "off again (rc $rc)"; show off2
fi

bmc on -n n01 on
if [ $rc = 0 ] && grep -q "ok  *On (was Off; On)$" "$W/on.out" &&
    [ "$(st $F.1 "$P1" 's["PowerState"]')" = On ] &&
    [ "$(st $F.1 "$P1" 's["resets"][-1]["ResetType"]')" = On ]; then
	ok "on: ResetType On, the system is On"
else
	not_ok "on (rc $rc)"; show on
fi

bmc graceful -n n03 off --graceful
if [ $rc = 0 ] && [ "$(st $F.3 "$P1" 's["resets"][-1]["ResetType"]')" = GracefulShutdown ] &&
    [ "$(st $F.3 "$P1" 's["PowerState"]')" = Off ]; then
	ok "off --graceful: GracefulShutdown"
else
	not_ok "off --graceful (rc $rc)"; show graceful
fi

bmc cycle -n n01 cycle
if [ $rc = 0 ] && [ "$(st $F.1 "$P1" 's["resets"][-1]["ResetType"]')" = PowerCycle ] &&
    [ "$(st $F.1 "$P1" 's["PowerState"]')" = On ]; then
	ok "cycle: PowerCycle (in AllowableValues)"
else
	not_ok "cycle (rc $rc)"; show cycle
fi

bmc reset -n n01 reset
if [ $rc = 0 ] && [ "$(st $F.1 "$P1" 's["resets"][-1]["ResetType"]')" = ForceRestart ]; then
	ok "reset: ForceRestart"
else
	not_ok "reset (rc $rc)"; show reset
fi

bmc greset -n n01 reset --graceful
if [ $rc = 0 ] && [ "$(st $F.1 "$P1" 's["resets"][-1]["ResetType"]')" = GracefulRestart ]; then
	ok "reset --graceful: GracefulRestart"
else
	not_ok "reset --graceful (rc $rc)"; show greset
fi

# --- boot ---------------------------------------------------------------------

bmc bootcd -n n04 boot cd
if [ $rc = 0 ] && grep -q "ok  *boot override Cd (Continuous)$" "$W/bootcd.out" &&
    [ "$(st $F.4 "$P1" '[s["Boot"]["BootSourceOverrideTarget"], s["Boot"]["BootSourceOverrideEnabled"]]')" = '["Cd", "Continuous"]' ]; then
	ok "boot cd: Cd, Continuous"
else
	not_ok "boot cd (rc $rc)"; show bootcd
fi

bmc bootdisk -n n04 boot disk
if [ $rc = 0 ] && [ "$(st $F.4 "$P1" 's["Boot"]["BootSourceOverrideTarget"]')" = Hdd ]; then
	ok "boot disk: Hdd"
else
	not_ok "boot disk (rc $rc)"; show bootdisk
fi

bmc bootpxe -n n04 boot pxe --once
bmc bootreset -n n04 reset
if [ $rc = 0 ] && grep -q "ok  *boot override Pxe (Once)$" "$W/bootpxe.out" &&
    [ "$(st $F.4 "$P1" 's["boots"][-1]["override"]')" = Pxe ] &&
    [ "$(st $F.4 "$P1" 's["Boot"]["BootSourceOverrideEnabled"]')" = Disabled ]; then
	ok "boot pxe --once: the next boot is PXE, then the override is spent"
else
	not_ok "boot pxe --once"; show bootpxe; show bootreset
fi
if [ "$(st $F.4 "$P1" '[e["method"] for e in d["log"] if e["method"] == "PATCH"]')" = '["PATCH", "PATCH", "PATCH"]' ]; then
	ok "boot: one PATCH per change"
else
	not_ok "boot: PATCH count"
fi

# --- virtual media ------------------------------------------------------------

URL=http://10.40.0.254/images/debian-12.iso
bmc insert -n n05 media insert "$URL"
if [ $rc = 0 ] && grep -q "ok  *CD1: $URL$" "$W/insert.out" &&
    [ "$(st $F.5 "$P1" '[m["Image"], m["Inserted"], m["ConnectedVia"]]')" = "[\"$URL\", true, \"URI\"]" ] &&
    [ "$(st $F.5 "$P1" '[e["path"].rsplit(".", 1)[1] for e in d["log"] if e["method"] == "POST" and "VirtualMedia" in e["path"]]')" = '["EjectMedia", "InsertMedia"]' ]; then
	ok "media insert: the mockup's old image ejected, ours inserted in CD1"
else
	not_ok "media insert (rc $rc)"; show insert
fi

bmc eject -n n05 media eject
if [ $rc = 0 ] && grep -q "ok  *CD1 ejected$" "$W/eject.out" &&
    [ "$(st $F.5 "$P1" '[m["Image"], m["Inserted"]]')" = '[null, false]' ]; then
	ok "media eject: CD1 empty"
else
	not_ok "media eject (rc $rc)"; show eject
fi

# --- inventory ----------------------------------------------------------------

bmc inv -n 'n[06-07]' inventory
if [ $rc = 0 ] && grep -q "^n06 .* ok  *1 CPU, 96 GiB, GPUs ?, 1 PSU x 400 W$" "$W/inv.out" &&
    grep -q "^  ok  *n06  *cpu count  *1  *1$" "$W/inv.out" &&
    grep -q "^  ok  *n06  *memory  *96 GiB  *96 GB$" "$W/inv.out" &&
    grep -q "^  ok  *n06  *psu watts  *400 W  *400 W$" "$W/inv.out" &&
    grep -A1 "^  skip  n06  *gpu count  *-  *0$" "$W/inv.out" |
    grep -q "^ *the BMC lists no PCIe devices"; then
	ok "inventory: CPUs, memory, PSUs match the plan; GPUs unknown, a skip row"
else
	not_ok "inventory (rc $rc)"; show inv
fi

bmc drift -n drift01 inventory
if [ $rc = 1 ] && grep -q "^drift01 .* drift " "$W/drift.out" &&
    grep -A1 "^  fail  drift01  *cpu count  *1  *2$" "$W/drift.out" |
    grep -qx " *fewer than planned" &&
    grep -A1 "^  fail  drift01  *memory  *96 GiB  *192 GB$" "$W/drift.out" |
    grep -qx " *less than planned" &&
    grep -qx "inventory: 0 ok, 1 failed" "$W/drift.out"; then
	ok "inventory: drift from the plan is a failure, row by row"
else
	not_ok "inventory drift (rc $rc)"; show drift
fi

bmc invjson -n n06 inventory --json
if [ $rc = 0 ] && python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
r = d["results"][0]
i = r["inventory"]
assert d["action"] == "inventory" and d["ok"] == 1 and d["failed"] == 0
assert r["node"] == "n06" and r["ok"] is True and r["tls_verified"] is True
assert i["cpus"] == 1 and i["memory_gib"] == 96 and i["psus"] == 1, i
assert i["psu_watts_min"] == 400 and i["gpus"] is None, i
assert {x["check"]: x["verdict"] for x in r["drift"]}["memory"] == "ok"
' "$W/invjson.out"; then
	ok "inventory --json"
else
	not_ok "inventory --json (rc $rc)"; show invjson
fi

# --- credentials --------------------------------------------------------------

seq0=$(st $F.8 "$P1" 'd["log_seq"]')
BMC_PW='wrong password' bmc badpw -n n08 status
if [ $rc = 1 ] && grep -q "FAILED  *login as 'admin' refused (401 Unauthorized)" "$W/badpw.out" &&
    [ "$(st $F.8 "$P1" 'len(d["sessions"])')" = 0 ] &&
    [ "$(st $F.8 "$P1" "[e['status'] for e in d['log'] if e['seq'] > $seq0]")" = '[200, 401]' ]; then
	ok "bad password: 401 at login, a clear error, exit 1, nothing after"
else
	not_ok "bad password (rc $rc)"; show badpw
fi

seq0=$(st $F.8 "$P1" 'd["log_seq"]')
(unset BMC_PW; bmc nopw -n n08 status; echo "$rc" >"$W/nopw.rc")
rc=$(cat "$W/nopw.rc")
if [ "$rc" = 1 ] && grep -q "FAILED  *environment variable 'BMC_PW' (password_env) is not set$" "$W/nopw.out" &&
    [ "$(st $F.8 "$P1" 'd["log_seq"]')" = "$seq0" ]; then
	ok "password_env not set: failed row, no request to the BMC"
else
	not_ok "password_env not set (rc $rc)"; show nopw
fi

bmc pwfile -n file01 status
if [ $rc = 0 ] && grep -q "^file01 .* ok " "$W/pwfile.out"; then
	ok "password_file: its first line is the password"
else
	not_ok "password_file (rc $rc)"; show pwfile
fi

# --- TLS ----------------------------------------------------------------------

seq0=$(st $F.48 "$P1" 'd["log_seq"]')
bmc noca -n noca01 status
if [ $rc = 1 ] && grep -q "FAILED  *GET https://$F.48:$P1/redfish/v1: SSL certificate problem" "$W/noca.out" &&
    grep -q "ca_file:" "$W/noca.out" &&
    [ "$(st $F.48 "$P1" 'd["log_seq"]')" = "$seq0" ]; then
	ok "no ca_file: the test CA is not trusted, fails closed before any request"
else
	not_ok "no ca_file (rc $rc)"; show noca
fi

bmc rogue -n rogue01 status
if [ $rc = 1 ] && grep -q "FAILED  *GET https://127.0.50.53:$P3/redfish/v1: SSL certificate problem" "$W/rogue.out"; then
	ok "a self-signed BMC certificate with ca_file set: refused"
else
	not_ok "self-signed certificate (rc $rc)"; show rogue
fi

bmc insecure -n insecure01 status
if [ $rc = 0 ] && grep -q "^insecure01 .* ok  *TLS NOT VERIFIED (insecure: true); On, boot override" "$W/insecure.out" &&
    grep -q "1 BMC with TLS NOT VERIFIED (insecure: true)$" "$W/insecure.out"; then
	ok "insecure: true: accepted, and flagged in the row and the summary"
else
	not_ok "insecure: true (rc $rc)"; show insecure
fi

bmc insecurej -n insecure01 status --json
if [ $rc = 0 ] && python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
r = d["results"][0]
assert r["tls_verified"] is False and "TLS NOT VERIFIED" in r["tls_note"]
assert d["tls_not_verified"] == 1 and r["power_state"] == "On"
' "$W/insecurej.out"; then
	ok "insecure: true in --json: tls_verified false"
else
	not_ok "insecure --json (rc $rc)"; show insecurej
fi

# --- faults -------------------------------------------------------------------

fault $F.9 "$P1" '{"mode": "500"}'
bmc e500 -n n09 status
fault $F.9 "$P1" '{"mode": "none"}'
if [ $rc = 1 ] && grep -q "FAILED  *GET /redfish/v1: 500 Internal Server Error: The request failed due to an internal service error" "$W/e500.out"; then
	ok "500 answers: the BMC's message, exit 1"
else
	not_ok "500 (rc $rc)"; show e500
fi

fault $F.10 "$P1" '{"mode": "500", "path_prefix": "/redfish/v1/Systems/437XR1138R2/Actions"}'
bmc e500a -n n10 off
fault $F.10 "$P1" '{"mode": "none"}'
if [ $rc = 1 ] && grep -q "FAILED  *POST /redfish/v1/Systems/437XR1138R2/Actions/ComputerSystem.Reset: 500 Internal Server Error" "$W/e500a.out" &&
    [ "$(st $F.10 "$P1" 's["PowerState"]')" = On ] &&
    [ "$(st $F.10 "$P1" 'len(d["sessions"])')" = 0 ]; then
	ok "500 on the reset action: failed, nothing changed, session still deleted"
else
	not_ok "500 on the action (rc $rc)"; show e500a
fi

fault $F.11 "$P1" '{"mode": "drop", "count": 1}'
bmc drop1 -n n11 status
if [ $rc = 0 ] && [ "$(st $F.11 "$P1" 'd["faults"]["fired"]')" = 1 ]; then
	ok "a dropped connection: retried, then ok"
else
	not_ok "dropped once (rc $rc)"; show drop1
fi

fault $F.11 "$P1" '{"mode": "drop"}'
bmc drop -n n11 status
fault $F.11 "$P1" '{"mode": "none"}'
if [ $rc = 1 ] && grep -q "FAILED  *GET https://$F.11:$P1/redfish/v1: .*(3 tries)$" "$W/drop.out"; then
	ok "a BMC that always drops: failed after 3 tries"
else
	not_ok "always dropped (rc $rc)"; show drop
fi

fault $F.12 "$P1" '{"mode": "slow", "delay_s": 5}'
t0=$(date +%s)
bmc slow -n 'n[12-13]' status --timeout 1
t1=$(date +%s)
fault $F.12 "$P1" '{"mode": "none"}'
if [ $rc = 1 ] && grep -q "^n12 .* FAILED  *GET https://$F.12:$P1/redfish/v1: Operation timed out after" "$W/slow.out" &&
    grep -q "^n13 .* ok " "$W/slow.out" && [ $((t1 - t0)) -le 3 ]; then
	ok "a slow BMC times out (--timeout 1) without holding up the others"
else
	not_ok "slow BMC (rc $rc, $((t1 - t0)) s)"; show slow
fi

# --- task monitors and power waits (async BMC, 1 s tasks, 1 s power) ----------

A=127.0.50.51
t0=$(date +%s)
bmc aoff -n async01 off
t1=$(date +%s)
if [ $rc = 0 ] && [ "$(st $A "$P2" 's["PowerState"]')" = Off ] &&
    [ "$(st $A "$P2" 'len([e for e in d["log"] if "/TaskMonitors/" in e["path"]]) >= 1')" = true ] &&
    [ "$(st $A "$P2" 'len([e for e in d["log"] if e["path"].endswith("/437XR1138R2") and e["method"] == "GET"]) >= 2')" = true ] &&
    [ $((t1 - t0)) -ge 1 ]; then
	ok "202 Accepted: task monitor followed, then PowerState waited for"
else
	not_ok "async off (rc $rc, $((t1 - t0)) s)"; show aoff
fi

bmc ainsert -n async01 media insert "$URL"
if [ $rc = 0 ] && [ "$(st $A "$P2" 'm["Image"]')" = "$URL" ] &&
    [ "$(st $A "$P2" '[t["TaskState"] for t in d["tasks"]][-2:]')" = '["Completed", "Completed"]' ]; then
	ok "media insert through task monitors"
else
	not_ok "async media insert (rc $rc)"; show ainsert
fi

bmc await -n async01 on --wait 1
if [ $rc = 1 ] && grep -q "FAILED .*(see --wait)$" "$W/await.out"; then
	ok "--wait 1 on a 2 s power-on: timed out, exit 1"
else
	not_ok "power wait timeout (rc $rc)"; show await
fi

# --- another BMC shape: basic auth, ActionInfo, manager media, PCIe GPUs ------

V=127.0.50.52
bmc vstatus -n var01 status
if [ $rc = 0 ] && grep -q "^var01 .* ok  *basic auth (the service has no SessionService); On, boot override Pxe (Once)$" "$W/vstatus.out" &&
    [ "$(st $V "$P4" 'len([e for e in d["log"] if e["method"] == "POST"])')" = 0 ] &&
    [ "$(st $V "$P4" 'sorted(set(str(e["auth"]) for e in d["log"]))')" = '["None", "basic"]' ]; then
	ok "a service without sessions: basic auth"
else
	not_ok "no sessions (rc $rc)"; show vstatus
fi

bmc vcycle -n var01 cycle
if [ $rc = 0 ] && [ "$(st $V "$P4" 's["resets"][-1]["ResetType"]')" = PowerCycle ] &&
    [ "$(st $V "$P4" 'any(e["path"].endswith("/ResetActionInfo") for e in d["log"])')" = true ]; then
	ok "reset types from @Redfish.ActionInfo: PowerCycle"
else
	not_ok "ActionInfo (rc $rc)"; show vcycle
fi

bmc vmedia -n var01 media insert "$URL"
if [ $rc = 0 ] && [ "$(st $V "$P4" '[v["Image"] for k, v in d["virtual_media"].items() if k.startswith("/redfish/v1/Managers/BMC/VirtualMedia/CD")]')" = "[\"$URL\"]" ]; then
	ok "virtual media of the manager (none on the system)"
else
	not_ok "manager virtual media (rc $rc)"; show vmedia
fi

bmc vinv -n var01 inventory
if [ $rc = 0 ] && grep -q "^var01 .* ok  *basic auth (the service has no SessionService); 1 CPU, 96 GiB, 2 GPUs, 1 PSU x 400 W$" "$W/vinv.out" &&
    grep -q "^  ok  *var01  *gpu count  *2  *2$" "$W/vinv.out" &&
    grep -q "^  ok  *var01  *gpu model  *h100-sxm5  *h100-sxm5$" "$W/vinv.out"; then
	ok "inventory: GPUs counted over PCIe (not the BMC's VGA), model by PCI id"
else
	not_ok "PCIe GPUs (rc $rc)"; show vinv
fi

# --- 50 BMCs at once ----------------------------------------------------------

bmc all -n 'n[01-50]' status
if [ $rc = 0 ] && grep -qx "status: 50 ok, 0 failed" "$W/all.out" &&
    [ "$(grep -c ' ok  ' "$W/all.out")" = 50 ]; then
	ok "50 BMCs at once: status all ok"
else
	not_ok "50 BMCs status (rc $rc)"; show all
fi

t0=$(date +%s)
bmc alloff -n 'n[01-50]' off
bmc allon -n 'n[01-50]' on
t1=$(date +%s)
n_on=0
i=1
while [ $i -le 50 ]; do
	[ "$(st $F.$i "$P1" 's["resets"][-1]["ResetType"] + s["PowerState"]')" = OnOn ] && n_on=$((n_on + 1))
	i=$((i + 1))
done
if grep -qx "off: 50 ok, 0 failed" "$W/alloff.out" &&
    grep -qx "on: 50 ok, 0 failed" "$W/allon.out" && [ $n_on = 50 ] &&
    [ $((t1 - t0)) -le 20 ]; then
	ok "50 BMCs at once: off then on, every system On again"
else
	not_ok "50 BMCs off/on ($n_on on, $((t1 - t0)) s)"; show alloff; show allon
fi

# --- usage --------------------------------------------------------------------

bmc u1 status -n nobmc01
if [ $rc = 1 ] && grep -q "^nobmc01  *-  *FAILED  *no 'bmc:' entry in the plan$" "$W/u1.out"; then
	ok "a selected node without bmc: a failed row"
else
	not_ok "node without bmc (rc $rc)"; show u1
fi
# usage_case NAME PATTERN DESCRIPTION ARGS...: exit 2, PATTERN on stderr.
usage_case() {
	uname=$1 upat=$2 udesc=$3
	shift 3
	bmc "$uname" "$@"
	if [ $rc = 2 ] && grep -q -- "$upat" "$W/$uname.err"; then
		ok "$udesc: exit 2"
	else
		not_ok "$udesc (rc $rc)"; show "$uname"
	fi
}
usage_case u2 "missing action" "no action"
usage_case u3 "unknown action 'stauts' (did you mean 'status'?)" \
    "unknown action, with a suggestion" stauts
usage_case u4 "unknown boot target 'floppy'" "boot floppy" boot floppy
usage_case u5 "media insert needs the image URL" "media insert without URL" \
    media insert
usage_case u6 "is not a URL" "media insert of a file name" media insert x.iso
usage_case u7 "--once is for 'boot'" "--once with status" status --once
usage_case u8 "unknown node 'nosuch'" "-n with an unknown node" \
    -n nosuch status

# --- the password never shows -------------------------------------------------

# "S3cr3t" catches the password in any quoting (JSON escapes it).
if [ -s "$ALL" ] && ! grep -qF -- "$PW" "$ALL" && ! grep -qF S3cr3t "$ALL" &&
    ! grep -qF -- "$PW_B64" "$ALL"; then
	ok "the password appears in no output (stdout, stderr, --json)"
else
	not_ok "the password was printed"
	grep -nF -- "$PW" "$ALL" | head -n 5 | sed 's/^/#   /'
fi

done_testing

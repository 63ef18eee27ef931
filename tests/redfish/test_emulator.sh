#!/bin/bash
# Self-test of the Redfish emulator with real TLS (an openssl CA and server
# certificate made here) and real curl.
#
# usage: tests/redfish/test_emulator.sh [MOCKUP_DIR]
#   MOCKUP_DIR defaults to $REDFISH_MOCKUP, else ../shared/redfish/public-rackmount1
#   beside the repository.  Needs python3, openssl, curl.
# Prints "ok N - ..." / "not ok N - ..." lines and "N passed, M failed";
# exits 1 when a check failed, 2 when it could not run.

set -u

here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
MOCKUP=${1:-${REDFISH_MOCKUP:-$repo/../shared/redfish/public-rackmount1}}
PY=${PYTHON:-python3}
EMU="$here/emulator.py"
PW='s3cret-Pw:with colon'

for tool in "$PY" openssl curl; do
	if ! command -v "$tool" >/dev/null 2>&1; then
		echo "test_emulator: $tool not found" >&2
		exit 2
	fi
done
if [ ! -f "$MOCKUP/index.json" ]; then
	echo "test_emulator: no mockup at $MOCKUP (give the directory as" \
	     "the first argument or in REDFISH_MOCKUP)" >&2
	exit 2
fi

work=$(mktemp -d "${TMPDIR:-/tmp}/redfish-emu-test.XXXXXX")
pids=()
npass=0
nfail=0
n=0

cleanup() {
	local p
	for p in "${pids[@]}"; do
		kill "$p" 2>/dev/null
		wait "$p" 2>/dev/null
	done
	rm -rf "$work"
}
trap cleanup EXIT

ok() {
	n=$((n + 1))
	npass=$((npass + 1))
	echo "ok $n - $1"
}

notok() {
	n=$((n + 1))
	nfail=$((nfail + 1))
	echo "not ok $n - $1"
	if [ -n "${2:-}" ]; then
		echo "#   $2"
	fi
}

# check DESC COMMAND...: one result line from a command's exit status.
check() {
	local desc=$1
	shift
	if "$@"; then
		ok "$desc"
	else
		notok "$desc" "failed: $*"
	fi
}

# jget FILE EXPR: print a Python expression over the JSON in FILE as d.
jget() {
	"$PY" -c 'import json, sys
d = json.load(open(sys.argv[1]))
v = eval(sys.argv[2], {"d": d})
print(json.dumps(v) if isinstance(v, (dict, list, bool)) or v is None else v)' "$1" "$2" 2>/dev/null
}

# jis FILE EXPR WANT: the expression's value prints as WANT.
jis() {
	local got
	got=$(jget "$1" "$2")
	if [ "$got" = "$3" ]; then
		return 0
	fi
	echo "#   $2 is '$got', want '$3'"
	return 1
}

# hdr NAME: the value of a header of the last answer (first match).
hdr() {
	tr -d '\r' <"$work/hdr" | awk -v n="$(echo "$1" | tr 'A-Z' 'a-z')" '
		{ split($0, a, ":"); if (tolower(a[1]) == n) {
			sub(/^[^:]*:[ \t]*/, ""); print; exit } }'
}

# req METHOD URL [curl args]: answer body in $work/body, headers in
# $work/hdr, HTTP code in $code, curl's exit status in $rc.
req() {
	local m=$1 u=$2
	shift 2
	: >"$work/body"
	: >"$work/hdr"
	code=$(curl -sS --cacert "$work/ca.pem" -X "$m" -o "$work/body" \
		-D "$work/hdr" -w '%{http_code}' "$@" "$u" 2>"$work/curl.err")
	rc=$?
}

# areq METHOD PATH [curl args]: req against BMC A with Basic auth.
areq() {
	local m=$1 p=$2
	shift 2
	req "$m" "$A$p" -u "admin:$PW" "$@"
}

# json_post PATH JSON [curl args], json_patch PATH JSON [curl args]
json_post() {
	areq POST "$1" -H 'Content-Type: application/json' -d "$2" "${@:3}"
}

json_patch() {
	areq PATCH "$1" -H 'Content-Type: application/json' -d "$2" "${@:3}"
}

# control BASE PATH JSON: POST to an emulator control endpoint.
control() {
	curl -sS --cacert "$work/ca.pem" -o "$work/ctl" -w '%{http_code}' \
		-H 'Content-Type: application/json' -d "$3" "$1$2"
}

state() {
	curl -sS --cacert "$work/ca.pem" -o "$work/state" "$1/_emulator/state"
}

# start_emu NAME ARGS...: start an emulator; sets EMU_PID and EMU_PORT.
start_emu() {
	local name=$1 i
	shift
	"$PY" "$EMU" --mockup "$MOCKUP" --password-file "$work/pw" \
		--user admin "$@" >"$work/$name.out" 2>"$work/$name.err" &
	EMU_PID=$!
	pids+=("$EMU_PID")
	EMU_PORT=
	for i in $(seq 1 100); do
		if [ -s "$work/$name.out" ]; then
			EMU_PORT=$(awk 'NR == 1 && $1 == "PORT" { print $2 }' \
				"$work/$name.out")
			break
		fi
		if ! kill -0 "$EMU_PID" 2>/dev/null; then
			break
		fi
		sleep 0.1
	done
	if [ -z "$EMU_PORT" ]; then
		echo "# emulator $name did not start:" >&2
		sed 's/^/#   /' "$work/$name.err" >&2
		return 1
	fi
}

# --- certificates ----------------------------------------------------

printf '%s\n' "$PW" >"$work/pw"
chmod 600 "$work/pw"
san="DNS:localhost,IP:127.0.0.1"
for i in $(seq 1 50); do
	san="$san,IP:127.0.50.$i"
done
cat >"$work/srv.ext" <<EOF
basicConstraints = critical, CA:FALSE
keyUsage = critical, digitalSignature
extendedKeyUsage = serverAuth
subjectAltName = $san
EOF
if ! {
	openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 \
		-nodes -keyout "$work/ca.key" -out "$work/ca.pem" -days 2 \
		-subj "/CN=redfish emulator test CA" \
		-addext "basicConstraints=critical,CA:TRUE" \
		-addext "keyUsage=critical,keyCertSign,cRLSign" &&
	openssl req -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes \
		-keyout "$work/srv.key" -out "$work/srv.csr" -subj "/CN=localhost" &&
	openssl x509 -req -in "$work/srv.csr" -CA "$work/ca.pem" \
		-CAkey "$work/ca.key" -CAcreateserial -out "$work/srv.pem" \
		-days 2 -extfile "$work/srv.ext"
} >"$work/openssl.log" 2>&1; then
	echo "test_emulator: openssl failed:" >&2
	cat "$work/openssl.log" >&2
	exit 2
fi
TLS=(--cert "$work/srv.pem" --key "$work/srv.key")

# --- BMC A: synchronous actions, no power delay ---------------------

if ! start_emu a "${TLS[@]}" --listen 127.0.0.1:0; then
	exit 2
fi
A_PID=$EMU_PID
A="https://127.0.0.1:$EMU_PORT"
ok "emulator started on port $EMU_PORT (pid $A_PID)"

req GET "$A/redfish/v1/"
check "service root answers 200 without credentials" [ "$code" = 200 ]
check "service root carries OData-Version: 4.0" [ "$(hdr OData-Version)" = 4.0 ]
check "service root is application/json" \
	eval '[[ "$(hdr Content-Type)" == application/json* ]]'
check "service root has RedfishVersion" jis "$work/body" 'd["RedfishVersion"]' 1.15.0

req GET "$A/redfish"
check "/redfish lists v1" jis "$work/body" 'd["v1"]' /redfish/v1/

req GET "$A/redfish/v1/Systems"
check "Systems without credentials is 401" [ "$code" = 401 ]
check "the 401 has a Redfish error body" \
	jis "$work/body" 'd["error"]["@Message.ExtendedInfo"][0]["MessageId"]' \
	Base.1.5.0.NoValidSession

areq GET /redfish/v1/Systems
check "Systems with Basic auth is 200" [ "$code" = 200 ]
SYS=$(jget "$work/body" 'd["Members"][0]["@odata.id"]')
SYSID=${SYS##*/}
check "Systems lists one system ($SYS)" [ -n "$SYSID" ]

req GET "$A$SYS" -u admin:wrong
check "Basic auth with a bad password is 401" [ "$code" = 401 ]

# Sessions: login, use, logout.
req POST "$A/redfish/v1/SessionService/Sessions" \
	-H 'Content-Type: application/json' \
	-d "{\"UserName\": \"admin\", \"Password\": \"$PW\"}"
TOKEN=$(hdr X-Auth-Token)
LOC=$(hdr Location)
check "login answers 201" [ "$code" = 201 ]
check "login returns X-Auth-Token and Location" \
	eval '[ -n "$TOKEN" ] && [[ "$LOC" == /redfish/v1/SessionService/Sessions/* ]]'
req GET "$A$SYS" -H "X-Auth-Token: $TOKEN"
check "the session token reads $SYS" [ "$code" = 200 ]
req GET "$A/redfish/v1/SessionService/Sessions" -H "X-Auth-Token: $TOKEN"
check "Sessions lists the session" \
	jis "$work/body" 'd["Members"][0]["@odata.id"]' "$LOC"
req DELETE "$A$LOC" -H "X-Auth-Token: $TOKEN"
check "logout (DELETE the session) is 204" [ "$code" = 204 ]
req GET "$A$SYS" -H "X-Auth-Token: $TOKEN"
check "the token is refused after logout (401)" [ "$code" = 401 ]
req POST "$A/redfish/v1/SessionService/Sessions" \
	-H 'Content-Type: application/json' \
	-d '{"UserName": "admin", "Password": "not-it"}'
check "login with a bad password is 401" [ "$code" = 401 ]
check "the bad login has @Message.ExtendedInfo" \
	jis "$work/body" 'len(d["error"]["@Message.ExtendedInfo"]) > 0' true

# Power.
RESET="$SYS/Actions/ComputerSystem.Reset"
json_post "$RESET" '{"ResetType": "ForceOff"}'
check "Reset ForceOff is 204" [ "$code" = 204 ]
areq GET "$SYS"
check "PowerState is Off after ForceOff" jis "$work/body" 'd["PowerState"]' Off
state "$A"
check "the state endpoint says Off" \
	jis "$work/state" "d['systems']['$SYSID']['PowerState']" Off
json_post "$RESET" '{"ResetType": "On"}'
areq GET "$SYS"
check "PowerState is On after On" jis "$work/body" 'd["PowerState"]' On
json_post "$RESET" '{"ResetType": "Explode"}'
check "an unknown ResetType is 400" [ "$code" = 400 ]
check "... with @Message.ExtendedInfo" \
	jis "$work/body" 'd["error"]["@Message.ExtendedInfo"][0]["MessageId"]' \
	Base.1.5.0.PropertyValueNotInList
json_post "$RESET" '{}'
check "a Reset without ResetType is 400" [ "$code" = 400 ]
json_post "$RESET" '{"ResetType": '
check "bad JSON is 400 MalformedJSON" \
	eval '[ "$code" = 400 ] && jis "$work/body" "d[\"error\"][\"code\"]" Base.1.5.0.MalformedJSON'
areq POST "$RESET" -d '{"ResetType": "On"}'
check "a body that is not application/json is 415" [ "$code" = 415 ]
json_post "$RESET" '{"ResetType": "PowerCycle"}'
check "PowerCycle is accepted" [ "$code" = 204 ]

# Boot override.
json_patch "$SYS" '{"Boot": {"BootSourceOverrideTarget": "Hdd", "BootSourceOverrideEnabled": "Continuous"}}'
check "PATCH Boot Hdd Continuous is 200" [ "$code" = 200 ]
json_patch "$SYS" '{"Boot": {"BootSourceOverrideTarget": "Pxe", "BootSourceOverrideEnabled": "Once"}}'
check "PATCH Boot Pxe Once is 200" [ "$code" = 200 ]
areq GET "$SYS"
check "Boot reads back Pxe Once" jis "$work/body" \
	'd["Boot"]["BootSourceOverrideTarget"] + " " + d["Boot"]["BootSourceOverrideEnabled"]' \
	"Pxe Once"
json_patch "$SYS" '{"Boot": {"BootSourceOverrideTarget": "Tape"}}'
check "a target outside AllowableValues is 400" [ "$code" = 400 ]
json_patch "$SYS" '{"Boot": {"BootSourceOverrideEnabled": "Sometimes"}}'
check "a bad BootSourceOverrideEnabled is 400" [ "$code" = 400 ]
json_patch "$SYS" '{"SerialNumber": "X"}'
check "PATCH of a read-only property is 400" [ "$code" = 400 ]
json_post "$RESET" '{"ResetType": "ForceRestart"}'
state "$A"
check "the restart booted from Pxe" \
	jis "$work/state" "d['systems']['$SYSID']['boots'][-1]['override']" Pxe
check "... and the Once override is spent (Disabled)" \
	jis "$work/state" "d['systems']['$SYSID']['Boot']['BootSourceOverrideEnabled']" Disabled

# ETag / If-Match.
areq GET "$SYS"
ETAG=$(hdr ETag)
json_patch "$SYS" '{"AssetTag": "rack1"}' -H 'If-Match: W/"00000000"'
check "PATCH with a stale If-Match is 412" [ "$code" = 412 ]
json_patch "$SYS" '{"AssetTag": "rack1"}' -H "If-Match: $ETAG"
check "PATCH with the current ETag is 200" [ "$code" = 200 ]

# Virtual media.
areq GET "$SYS/VirtualMedia"
VM=$(jget "$work/body" '[m["@odata.id"] for m in d["Members"] if m["@odata.id"].endswith("CD1")][0]')
ISO=http://192.0.2.1/images/installer.iso
json_post "$VM/Actions/VirtualMedia.InsertMedia" "{\"Image\": \"$ISO\", \"Inserted\": true, \"WriteProtected\": true}"
check "InsertMedia is 204" [ "$code" = 204 ]
areq GET "$VM"
check "the media reads back inserted with the image" jis "$work/body" \
	'"%s %s %s" % (d["Image"], d["Inserted"], d["WriteProtected"])' "$ISO True True"
json_post "$VM/Actions/VirtualMedia.InsertMedia" '{"Inserted": true}'
check "InsertMedia without Image is 400" [ "$code" = 400 ]
json_post "$VM/Actions/VirtualMedia.EjectMedia" '{}'
check "EjectMedia is 204" [ "$code" = 204 ]
areq GET "$VM"
check "the media reads back ejected" jis "$work/body" \
	'"%s %s" % (d["Image"], d["Inserted"])' "None False"

# $expand.
areq GET "/redfish/v1/Systems?\$expand=."
check "\$expand=. inlines the members" \
	jis "$work/body" 'd["Members"][0]["PowerState"]' On

# Faults.
check "setting a 500 fault is accepted" \
	[ "$(control "$A" /_emulator/faults '{"mode": "500", "count": 1}')" = 200 ]
areq GET "$SYS"
check "the faulted request is 500" [ "$code" = 500 ]
check "... with a Redfish error body" \
	jis "$work/body" 'd["error"]["code"]' Base.1.5.0.InternalError
areq GET "$SYS"
check "count 1: the next request is 200 again" [ "$code" = 200 ]

control "$A" /_emulator/faults '{"mode": "401"}' >/dev/null
areq GET "$SYS"
check "fault 401 refuses the right password" [ "$code" = 401 ]
control "$A" /_emulator/faults '{"mode": "none"}' >/dev/null
areq GET "$SYS"
check "fault none: the right password works again" [ "$code" = 200 ]

control "$A" /_emulator/faults '{"mode": "500", "path_prefix": "/redfish/v1/Chassis"}' >/dev/null
areq GET "$SYS"
c1=$code
areq GET /redfish/v1/Chassis
check "path_prefix limits the fault to /redfish/v1/Chassis" \
	eval '[ "$c1" = 200 ] && [ "$code" = 500 ]'

control "$A" /_emulator/faults '{"mode": "slow", "delay_s": 1}' >/dev/null
t0=$(date +%s.%N)
areq GET "$SYS"
t1=$(date +%s.%N)
check "fault slow answers after delay_s" \
	eval '[ "$code" = 200 ] && awk -v a="$t0" -v b="$t1" "BEGIN { exit !(b - a >= 0.95) }"'

control "$A" /_emulator/faults '{"mode": "drop", "count": 1}' >/dev/null
areq GET "$SYS"
check "fault drop closes without an answer (curl rc $rc)" \
	eval '[ "$rc" != 0 ] && [ "$code" = 000 ]'

control "$A" /_emulator/faults '{"mode": "hang", "count": 1}' >/dev/null
areq GET "$SYS" --max-time 2
check "fault hang never answers (curl rc 28, timeout)" [ "$rc" = 28 ]
areq GET "$SYS"
check "after the faults the BMC answers again" [ "$code" = 200 ]

# TLS.
curl -sS -o /dev/null "$A/redfish/v1/" 2>/dev/null
rc=$?
check "curl without the CA fails certificate verification (rc 60)" [ "$rc" = 60 ]
req GET "https://localhost:${A##*:}/redfish/v1/"
check "the certificate is valid for localhost too" [ "$code" = 200 ]

# Request log.
state "$A"
check "the request log records method, path and auth" \
	jis "$work/state" '[e["auth"] for e in d["log"] if e["path"] == "/redfish/v1/Systems"][:2]' \
	'[null, "basic"]'
check "the log marks a bad password (auth_ok false)" \
	jis "$work/state" 'any(e["auth_ok"] is False for e in d["log"])' true
check "the state and log never hold the password" \
	eval '! grep -qF "$PW" "$work/state"'
check "the state and log never hold a session token" \
	eval '! grep -qF "$TOKEN" "$work/state"'
check "POST /_emulator/reset restores the mockup state" \
	eval '[ "$(control "$A" /_emulator/reset "{}")" = 204 ]'
state "$A"
check "... (the log is empty again)" jis "$work/state" 'len(d["log"])' 0

# --- BMC B: async actions with task monitors, power delay -----------

if start_emu b "${TLS[@]}" --listen 127.0.0.1:0 --async-actions \
		--task-delay 2 --power-delay 4; then
	# Delays leave room for a loaded CI machine: each check must land
	# inside its window (task running: 2 s; powering off: 4 s after).
	B="https://127.0.0.1:$EMU_PORT"
	req POST "$B$RESET" -u "admin:$PW" -H 'Content-Type: application/json' \
		-d '{"ResetType": "ForceOff"}'
	MON=$(hdr Location)
	check "async Reset answers 202 with a task monitor Location" \
		eval '[ "$code" = 202 ] && [[ "$MON" == /redfish/v1/TaskService/TaskMonitors/* ]]'
	TASK=$(jget "$work/body" 'd["@odata.id"]')
	req GET "$B$MON" -u "admin:$PW"
	check "the monitor answers 202 while the task runs" [ "$code" = 202 ]
	req GET "$B$SYS" -u "admin:$PW"
	check "the power is unchanged while the task runs" \
		jis "$work/body" 'd["PowerState"]' On
	sleep 2.2
	req GET "$B$MON" -u "admin:$PW"
	check "the monitor answers 200 with the completed task" \
		eval '[ "$code" = 200 ] && jis "$work/body" "d[\"TaskState\"]" Completed'
	req GET "$B$SYS" -u "admin:$PW"
	check "during --power-delay PowerState is PoweringOff" \
		jis "$work/body" 'd["PowerState"]' PoweringOff
	req GET "$B$TASK" -u "admin:$PW"
	check "the task resource is Completed" jis "$work/body" 'd["TaskState"]' Completed
	sleep 4.1
	req GET "$B$SYS" -u "admin:$PW"
	check "after the delay PowerState is Off" jis "$work/body" 'd["PowerState"]' Off
	req POST "$B$RESET" -u "admin:$PW" -H 'Content-Type: application/json' \
		-d '{"ResetType": "On"}'
	MON=$(hdr Location)
	req DELETE "$B$MON" -u "admin:$PW"
	check "DELETE on a running task monitor cancels it (204)" [ "$code" = 204 ]
	sleep 2.2
	state "$B"
	check "the cancelled task never powered on" \
		jis "$work/state" "[d['tasks'][-1]['TaskState'], d['systems']['$SYSID']['PowerState']]" \
		'["Cancelled", "Off"]'
	kill "$EMU_PID"
else
	notok "emulator b (async actions) starts"
fi

# --- 50 BMCs in one process ------------------------------------------

if start_emu many "${TLS[@]}" --listen-many 127.0.50.1-50:0; then
	MPORT=$EMU_PORT
	check "--listen-many prints one PORT line" \
		[ "$(wc -l <"$work/many.out")" = 1 ]
	cpids=()
	for i in $(seq 1 50); do
		curl -sS --cacert "$work/ca.pem" -u "admin:$PW" -o "$work/m.$i" \
			-w '%{http_code}' \
			"https://127.0.50.$i:$MPORT$SYS" >"$work/code.$i" 2>&1 &
		cpids+=($!)
	done
	for p in "${cpids[@]}"; do
		wait "$p"
	done
	good=0
	for i in $(seq 1 50); do
		if [ "$(cat "$work/code.$i")" = 200 ] &&
		   [ "$(jget "$work/m.$i" 'd["Id"]')" = "$SYSID" ]; then
			good=$((good + 1))
		fi
	done
	check "50 BMCs answer 50 clients at once ($good/50)" [ "$good" = 50 ]
	req POST "https://127.0.50.7:$MPORT$RESET" -u "admin:$PW" \
		-H 'Content-Type: application/json' -d '{"ResetType": "ForceOff"}'
	req GET "https://127.0.50.7:$MPORT$SYS" -u "admin:$PW"
	p7=$(jget "$work/body" 'd["PowerState"]')
	req GET "https://127.0.50.8:$MPORT$SYS" -u "admin:$PW"
	p8=$(jget "$work/body" 'd["PowerState"]')
	check "each BMC keeps its own state (.7 $p7, .8 $p8)" \
		eval '[ "$p7" = Off ] && [ "$p8" = On ]'
	state "https://127.0.50.7:$MPORT"
	check "each BMC has its own state endpoint" \
		jis "$work/state" 'd["address"]' 127.0.50.7
else
	notok "emulator with --listen-many starts"
fi

# --- stop by PID -----------------------------------------------------

kill "$A_PID"
wait "$A_PID" 2>/dev/null
arc=$?
check "the emulator exits 0 on SIGTERM" [ "$arc" = 0 ]
check "the emulator (pid $A_PID) is gone" eval '! kill -0 "$A_PID" 2>/dev/null'

echo "$npass passed, $nfail failed"
if [ "$nfail" -ne 0 ]; then
	exit 1
fi
exit 0

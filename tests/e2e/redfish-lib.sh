# redfish-lib.sh: the Redfish emulator for the bmc tests (t040, t041),
# sourced after lib.sh.  $W is the test's scratch folder; PIDS collects
# the emulators, which the test's cleanup kills.
#
#	rf_certs "IP:127.0.52.1,IP:127.0.52.2"	$W/ca.pem, srv.pem, srv.key
#	rf_emu NAME --mockup M --listen A:0 ...	its port in $W/NAME.port
#	rf_state IP PORT EXPR			Python over /_emulator/state
#	bmc NAME ARGS...			provision bmc $PLAN ARGS

EMU=$TOP/tests/redfish/emulator.py
PIDS=${PIDS:-}

rf_cleanup() {
	for p in $PIDS; do
		kill "$p" 2>/dev/null
		wait "$p" 2>/dev/null
	done
	rm -rf "$W"
}

# bmc NAME ARGS...: run `provision bmc $PLAN ARGS`: $W/NAME.out and .err,
# both also appended to $ALL (for the password grep), $rc.
bmc() {
	name=$1
	shift
	"$PROVISION" bmc "$PLAN" "$@" >"$W/$name.out" 2>"$W/$name.err"
	rc=$?
	cat "$W/$name.out" "$W/$name.err" >>"$ALL"
}

show() {
	sed 's/^/#   /' "$W/$1.out" "$W/$1.err" | head -n 40
}

rf_need() {
	for tool in python3 openssl curl; do
		command -v "$tool" >/dev/null 2>&1 || skip_all "$tool not found"
	done
	[ -x "$PROVISION" ] || skip_all "no binary at $PROVISION"
}

# rf_certs SANS: a CA and a server certificate for the addresses SANS.
rf_certs() {
	(
		cd "$W" || exit 1
		openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes \
		    -keyout ca.key -out ca.pem -days 2 -subj /CN=bmc-test-ca &&
		openssl req -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes \
		    -keyout srv.key -out srv.csr -subj /CN=bmc &&
		printf 'subjectAltName=%s\nbasicConstraints=CA:FALSE\nextendedKeyUsage=serverAuth\n' \
		    "$1" >ext.cnf &&
		openssl x509 -req -in srv.csr -CA ca.pem -CAkey ca.key -CAcreateserial \
		    -out srv.pem -days 2 -extfile ext.cnf
	) >"$W/openssl.log" 2>&1 || { cat "$W/openssl.log"; skip_all "openssl could not make certificates"; }
}

# rf_emu NAME ARGS...: start one emulator (password $W/pw); its port in
# $W/NAME.port.  A later --mockup wins over an earlier one.
rf_emu() {
	name=$1
	shift
	python3 "$EMU" --password-file "$W/pw" "$@" \
	    >"$W/$name.out" 2>"$W/$name.err" &
	PIDS="$PIDS $!"
	n=0
	while [ $n -lt 150 ]; do
		if grep -q '^PORT ' "$W/$name.out" 2>/dev/null; then
			sed -n 's/^PORT //p' "$W/$name.out" >"$W/$name.port"
			return 0
		fi
		sleep 0.1
		n=$((n + 1))
	done
	cat "$W/$name.err"
	return 1
}

# rf_state IP PORT EXPR: a Python expression over the BMC's
# /_emulator/state as d; strings print bare, the rest as JSON.
rf_state() {
	curl -s --cacert "$W/ca.pem" "https://$1:$2/_emulator/state" |
	    python3 -c '
import json, sys
d = json.load(sys.stdin)
v = eval(sys.argv[1])
print(json.dumps(v) if not isinstance(v, str) else v)' "$3"
}

# rf_fault IP PORT JSON: set the BMC's fault injection.
rf_fault() {
	curl -s --cacert "$W/ca.pem" -X POST -H 'Content-Type: application/json' \
	    -d "$3" "https://$1:$2/_emulator/faults" >/dev/null
}

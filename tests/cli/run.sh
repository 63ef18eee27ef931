#!/bin/sh
# run.sh: golden tests of the provision binary (make cli).
#
#   tests/fixtures/plan/bad-NAME.yaml   `provision check` must exit 2 and
#   tests/fixtures/plan/bad-NAME.err    print exactly this on stderr
#
#   tests/fixtures/check/NAME.yaml      `provision check`, compared with
#   tests/fixtures/check/NAME.out       its stdout, when this file exists
#   tests/fixtures/check/NAME.err       its stderr, when this file exists
#   tests/fixtures/check/NAME.code      its exit code, when this file exists
#
#   tests/fixtures/catalog/NAME.args    `provision catalog ARGS` must exit 0
#   tests/fixtures/catalog/NAME.out     and print exactly this (the profiles
#                                       path relative to the root, no line)
#
#   tests/fixtures/estimate/NAME.args   `provision estimate` with the
#                                       arguments on this one line (the
#                                       plan among them), then .out, .err
#                                       and .code as for check; with
#                                       --json its stdout must also parse
#
#   tests/fixtures/cli/NAME.args        a command line, one argument a line
#   tests/fixtures/cli/NAME.code        (an empty line is an empty argument):
#   tests/fixtures/cli/NAME.out         its exit code, and its stdout and
#   tests/fixtures/cli/NAME.err         stderr when those files exist
#
# And every --json a command prints here (check, ls and pxe of every plan
# above and in examples/, facts --local) must be one JSON document that
# python3's json module reads.
#
# Paths are given to provision as tests/fixtures/..., from the repository
# root, so messages name files the same way on every machine.  PROVISION
# is the binary (default ./provision); ONLY=PATTERN runs the fixtures whose
# path matches the shell pattern.  Prints "ok N - ..." or "not ok N - ..."
# per fixture (a diff -u on a mismatch), then "N passed, M failed"; exits
# 1 on any failure.
#
# To (re)write the expected files after a deliberate change of messages:
#   UPDATE=1 sh tests/cli/run.sh    (then read the diff before committing)

cd "$(dirname "$0")/../.." || exit 1

PROVISION=${PROVISION:-./provision}
case $PROVISION in
/*) ;;
*) PROVISION=$PWD/$PROVISION ;;
esac
# The messages must not depend on the caller's environment.
PROVISION_PROFILES=$PWD/profiles
LC_ALL=C
export PROVISION_PROFILES LC_ALL
unset NO_COLOR CLICOLOR_FORCE

tmp=$(mktemp -d "${TMPDIR:-/tmp}/provision-cli.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
trap 'exit 1' INT TERM

n=0
passed=0
failed=0

# report OK DESCRIPTION: one result line.
report() {
	n=$((n + 1))
	if [ "$1" = 0 ]; then
		passed=$((passed + 1))
		echo "ok $n - $2"
	else
		failed=$((failed + 1))
		echo "not ok $n - $2"
	fi
}

# same WANT GOT: 0 when the files are equal, else a diff -u and 1.
# With UPDATE=1 the expected file is rewritten instead.
same() {
	if cmp -s "$1" "$2"; then
		return 0
	fi
	if [ "${UPDATE:-0}" = 1 ]; then
		cp "$2" "$1"
		echo "# updated $1"
		return 0
	fi
	diff -u "$1" "$2" | sed 's/^/# /'
	return 1
}

# expect WANT GOT: same, for a file that must exist; with UPDATE=1 a
# missing WANT is written.
expect() {
	if [ -f "$1" ]; then
		same "$1" "$2"
		return
	fi
	if [ "${UPDATE:-0}" = 1 ]; then
		cp "$2" "$1"
		echo "# wrote $1"
		return 0
	fi
	echo "# missing $1"
	return 1
}

# code_is FILE GOT DEFAULT: 0 when exit code GOT is the one FILE holds,
# or DEFAULT when there is no FILE ("": any code); with UPDATE=1 a
# different code is written to FILE instead.
code_is() {
	want=$3
	if [ -f "$1" ]; then
		read -r want <"$1"
	fi
	if [ -z "$want" ] || [ "$2" = "$want" ]; then
		return 0
	fi
	if [ "${UPDATE:-0}" = 1 ]; then
		echo "$2" >"$1"
		echo "# updated $1"
		return 0
	fi
	echo "# exit code $2, want $want"
	return 1
}

# selected FILE: whether ONLY lets this fixture run.
selected() {
	[ -z "${ONLY:-}" ] && return 0
	# shellcheck disable=SC2254 # ONLY is a pattern on purpose
	case $1 in
	$ONLY) return 0 ;;
	esac
	return 1
}

if [ ! -x "$PROVISION" ]; then
	echo "not ok 1 - no binary at $PROVISION (run make first)"
	echo "0 passed, 1 failed"
	exit 1
fi

# Plans with mistakes: exit 2 and the exact messages on stderr.
for plan in tests/fixtures/plan/bad-*.yaml; do
	[ -f "$plan" ] || continue
	selected "$plan" || continue
	want=${plan%.yaml}.err
	name=${plan#tests/fixtures/}
	"$PROVISION" check "$plan" >"$tmp/out" 2>"$tmp/err"
	code=$?
	ok=0
	if [ "$code" != 2 ]; then
		echo "# exit code $code, want 2"
		ok=1
	fi
	expect "$want" "$tmp/err" || ok=1
	if [ -s "$tmp/out" ]; then
		echo "# unexpected stdout:"
		sed 's/^/#   /' "$tmp/out"
		ok=1
	fi
	report "$ok" "check $name"
done

# Plans that load: stdout, stderr and exit code as recorded, when recorded.
for plan in tests/fixtures/check/*.yaml; do
	[ -f "$plan" ] || continue
	selected "$plan" || continue
	base=${plan%.yaml}
	name=${plan#tests/fixtures/}
	if [ ! -f "$base.out" ] && [ ! -f "$base.err" ] &&
	    [ ! -f "$base.code" ]; then
		echo "# $name: no .out, .err or .code to compare"
		report 1 "check $name"
		continue
	fi
	"$PROVISION" check "$plan" >"$tmp/out" 2>"$tmp/err"
	code=$?
	ok=0
	if [ -f "$base.out" ]; then
		same "$base.out" "$tmp/out" || ok=1
	fi
	if [ -f "$base.err" ]; then
		same "$base.err" "$tmp/err" || ok=1
	fi
	code_is "$base.code" "$code" "" || ok=1
	report "$ok" "check $name"
done

# Catalog entries as loaded: every field `check` reads, new ones included.
for args in tests/fixtures/catalog/*.args; do
	[ -f "$args" ] || continue
	selected "$args" || continue
	want=${args%.args}.out
	name=${args#tests/fixtures/}
	# shellcheck disable=SC2046 # ARGS is a word list on purpose
	"$PROVISION" catalog $(cat "$args") >"$tmp/raw" 2>"$tmp/err"
	code=$?
	# Line numbers move whenever an entry above is edited.
	sed -e "s|$PWD/||" -e 's/^\(  defined at .*\):[0-9]*$/\1/' "$tmp/raw" \
	    >"$tmp/out"
	ok=0
	if [ "$code" != 0 ] || [ -s "$tmp/err" ]; then
		echo "# exit code $code, want 0"
		sed 's/^/#   /' "$tmp/err"
		ok=1
	fi
	expect "$want" "$tmp/out" || ok=1
	report "$ok" "catalog $name"
done

# docs/catalog.md's per-entry source tables are the catalog's own.
if selected docs/catalog.md; then
	ok=0
	sed -n '/<!-- sources:begin -->/,/<!-- sources:end -->/p' \
	    docs/catalog.md | sed '1d;$d' >"$tmp/doc"
	if ! PROVISION=$PROVISION scripts/catalog-sources >"$tmp/gen"; then
		echo "# scripts/catalog-sources failed"
		ok=1
	elif ! cmp -s "$tmp/doc" "$tmp/gen"; then
		if [ "${UPDATE:-0}" = 1 ]; then
			PROVISION=$PROVISION scripts/catalog-sources --update
			echo "# updated docs/catalog.md"
		else
			diff -u "$tmp/doc" "$tmp/gen" | sed 's/^/# /'
			echo "# run scripts/catalog-sources --update"
			ok=1
		fi
	fi
	report "$ok" "docs/catalog.md source tables"
fi

# Estimates: arguments from NAME.args, outputs compared the same way.
for args in tests/fixtures/estimate/*.args; do
	[ -f "$args" ] || continue
	selected "$args" || continue
	base=${args%.args}
	name=${args#tests/fixtures/}
	line=$(cat "$args")
	# shellcheck disable=SC2086 # the line is split into arguments on purpose
	"$PROVISION" estimate $line >"$tmp/out" 2>"$tmp/err"
	code=$?
	ok=0
	# No expected file: that output must be empty.
	for f in out err; do
		if [ -f "$base.$f" ] || [ -s "$tmp/$f" ]; then
			expect "$base.$f" "$tmp/$f" || ok=1
		fi
	done
	code_is "$base.code" "$code" 0 || ok=1
	case " $line " in
	*" --json "*)
		if ! python3 -m json.tool "$tmp/out" >/dev/null 2>"$tmp/json"; then
			echo "# --json output does not parse:"
			sed 's/^/#   /' "$tmp/json"
			ok=1
		fi
		;;
	esac
	report "$ok" "estimate $name"
done

# Command lines: usage errors, error messages, any command's output.
for args in tests/fixtures/cli/*.args; do
	[ -f "$args" ] || continue
	selected "$args" || continue
	base=${args%.args}
	name=${args#tests/fixtures/}
	set --
	while IFS= read -r a || [ -n "$a" ]; do
		set -- "$@" "$a"
	done <"$args"
	"$PROVISION" "$@" >"$tmp/out" 2>"$tmp/err" </dev/null
	code=$?
	ok=0
	for f in out err; do
		if [ -f "$base.$f" ]; then
			same "$base.$f" "$tmp/$f" || ok=1
		fi
	done
	code_is "$base.code" "$code" "" || ok=1
	report "$ok" "$name"
done

# catalog learn --local, round trip: the draft of this machine loads and
# marks its unknowns; filled in (tests/fixtures/learn/fill-in.sed) it
# passes check in a plan (tests/fixtures/learn/plan.yaml.in).
if selected learn; then
	ok=0
	mkdir -p "$tmp/learn/profiles"
	"$PROVISION" catalog learn --local --id learned-here \
	    -o "$tmp/learn/profiles/systems.yaml" >"$tmp/out" 2>"$tmp/err" ||
	    ok=1
	grep -q 'rack_units: null  *# UNKNOWN' "$tmp/learn/profiles/systems.yaml" ||
	    ok=1
	sed 's/SYSTEM/learned-here/' tests/fixtures/learn/plan.yaml.in \
	    >"$tmp/learn/plan.yaml"
	# as drafted: it loads, and check says what is unknown
	"$PROVISION" check "$tmp/learn/plan.yaml" >"$tmp/out" 2>&1
	case $? in 0|1) ;; *) ok=1; sed 's/^/#   /' "$tmp/out" ;; esac
	grep -q "weight of 'learned-here' unknown" "$tmp/out" || ok=1
	grep -q "height of 'learned-here' unknown" "$tmp/out" || ok=1
	sed -f tests/fixtures/learn/fill-in.sed \
	    "$tmp/learn/profiles/systems.yaml" >"$tmp/learn/filled.yaml" &&
	    mv "$tmp/learn/filled.yaml" "$tmp/learn/profiles/systems.yaml"
	# max_power_w stays unknown: few vendors publish one
	if grep -v max_power_w "$tmp/learn/profiles/systems.yaml" |
	    grep -q ': null  *# UNKNOWN'; then
		echo "# still unknown after filling in:"
		grep ': null  *# UNKNOWN' "$tmp/learn/profiles/systems.yaml" |
		    sed 's/^/#   /'
		ok=1
	fi
	if ! "$PROVISION" check "$tmp/learn/plan.yaml" >"$tmp/out" 2>&1; then
		sed 's/^/#   /' "$tmp/out" | grep -v '^#   *ok' | head -n 30
		ok=1
	fi
	grep -q "learned-here' unknown" "$tmp/out" && ok=1
	report "$ok" "catalog learn --local: the draft, filled in, passes check"
fi

# is_json DESCRIPTION CODES COMMAND...: COMMAND exits with one of CODES
# ("0 1") and its stdout parses as JSON.
is_json() {
	desc=$1
	codes=$2
	shift 2
	"$@" >"$tmp/out" 2>"$tmp/err" </dev/null
	code=$?
	ok=0
	case " $codes " in
	*" $code "*) ;;
	*)
		echo "# exit code $code, want one of $codes"
		sed 's/^/#   /' "$tmp/err" | head -n 5
		ok=1
		;;
	esac
	if ! python3 -m json.tool "$tmp/out" >/dev/null 2>"$tmp/jerr"; then
		echo "# not JSON: $(cat "$tmp/jerr")"
		head -c 300 "$tmp/out" | sed 's/^/#   /'
		ok=1
	fi
	report "$ok" "$desc"
}

# Verdicts are coloured on a terminal (script(1) gives one), never in a
# pipe, and not with NO_COLOR set.
if command -v script >/dev/null 2>&1 && selected color; then
	esc=$(printf '\033')
	tty_run() {
		script -qec "$PROVISION check -q tests/fixtures/check/fail-psu.yaml" \
		    /dev/null >"$tmp/tty" 2>&1 </dev/null
	}
	tty_run
	ok=0
	grep -q "$esc\[1;31mFAIL$esc\[0m" "$tmp/tty" || ok=1
	report "$ok" "check on a terminal: coloured verdicts"
	NO_COLOR=1 tty_run
	ok=0
	grep -q "$esc" "$tmp/tty" && ok=1
	grep -q '^  fail  hardware' "$tmp/tty" || ok=1
	report "$ok" "check on a terminal with NO_COLOR: plain verdicts"
fi

KEY=tests/fixtures/cli/id_ed25519.pub
for plan in examples/*.yaml tests/fixtures/check/*.yaml \
    tests/fixtures/cli/*.yaml; do
	[ -f "$plan" ] || continue
	selected "$plan" || continue
	is_json "check --json $plan" "0 1" "$PROVISION" check --json "$plan"
	is_json "ls --json $plan" 0 "$PROVISION" ls --json "$plan"
	if grep -q 'macs\{0,1\}:' "$plan"; then
		rm -rf "$tmp/pxe"
		is_json "pxe --json $plan" "0 1" "$PROVISION" pxe --json \
		    -o "$tmp/pxe" --ssh-key "$KEY" "$plan"
	fi
done
if selected facts; then
	is_json "facts --local --json" 0 "$PROVISION" facts --local --json
	is_json "facts --local --json PLAN -n NODE" "0 1" "$PROVISION" facts \
	    --local --json tests/fixtures/check/pass-small.yaml -n gpu01
fi

echo "$passed passed, $failed failed"
[ "$failed" = 0 ]

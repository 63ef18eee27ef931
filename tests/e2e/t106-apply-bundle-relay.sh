#!/bin/sh
# t106-apply-bundle-relay: an offline bundle served by the package relay,
# on the local testbed (tests/fixtures/relay/bundle-relay.yaml: a head
# and two workers, cut off from every mirror).  apply --bundle sends the
# bundle to the relay alone; the relay installs apt-cacher-ng from it and
# serves it over HTTP; the workers install base and the extras from what
# it serves; a second apply sends nothing and changes nothing; a Release
# changed on the relay is refused by the workers, which check it against
# the bundle's manifest, signed (--sign) with the key the plan pins.
#
#   sh tests/e2e/t106-apply-bundle-relay.sh   (as root, under the e2e lock)
# shellcheck disable=SC2015
# SAN=1: not run: apt-cacher-ng and dpkg take its time: the engine is
#   t100's and t101's
. "$(dirname "$0")/lib.sh"
set -u
[ "$(id -u)" -eq 0 ] || skip_all "needs root (namespaces, debootstrap)"
[ -r /usr/share/keyrings/debian-archive-keyring.gpg ] ||
	skip_all "no Debian archive keyring (package debian-archive-keyring)"
cd "$TOP" || exit 1

TB=${TESTBED_DIR:-/var/tmp/provision-testbed}
W=$(mktemp -d /tmp/t106.XXXXXX) || exit 1
# The fixture's plan, pinning the key the bundle is signed with.
(umask 077 && openssl genpkey -algorithm ed25519 -out "$W/bundle.key") 2>/dev/null || exit 1
openssl pkey -in "$W/bundle.key" -pubout -out "$W/bundle.pub" 2>/dev/null || exit 1
PLAN=$W/plan.yaml
sed "s|^software:|offline: { bundle_key: $W/bundle.pub }\nsoftware:|" \
	tests/fixtures/relay/bundle-relay.yaml >"$PLAN"
KEY=$TB/id_ed25519
KH=$TB/known_hosts
HEAD=127.0.10.31
W1=127.0.10.32
W2=127.0.10.33
export PROVISION

cleanup() {
	scripts/testbed down --purge "$PLAN" >/dev/null 2>&1
	rm -rf "$W"
}
if command -v testbed_lock >/dev/null 2>&1; then
	testbed_lock
fi
trap cleanup EXIT INT TERM


"$PROVISION" bundle "$PLAN" -o "$W/b.tar.zst" --cache "$TB/bundle-cache" \
	--sign "$W/bundle.key" >"$W/bundle.txt" 2>&1
rc=$?
if [ $rc -eq 0 ]; then ok "bundle of the plan (apt-cacher-ng in it)"; else
	not_ok "bundle of the plan (exit $rc)"; show_end "$W/bundle.txt"
	done_testing; exit 1
fi

scripts/testbed down --purge "$PLAN" >/dev/null 2>&1
check "testbed up" scripts/testbed up "$PLAN"
# Every mirror out of reach; the relay (127.0.10.31) alone in reach.
cut_off() {
	on "$1" 'set -e
		printf "%s\n" "Acquire::http::Proxy \"http://127.0.0.1:9/\";" \
			"Acquire::http::Proxy::127.0.10.31 \"DIRECT\";" \
			"Acquire::https::Proxy \"http://127.0.0.1:9/\";" \
			"Acquire::Retries \"0\";" >/etc/apt/apt.conf.d/99t106-offline
		rm -rf /var/lib/apt/lists /var/cache/apt/archives/hello_*.deb /var/cache/apt/archives/figlet_*.deb
		mkdir -p /var/lib/apt/lists/partial
		! apt-get update -q --error-on=any >/dev/null 2>&1
		! apt-cache show --no-all-versions hello >/dev/null 2>&1'
}
cut_off $HEAD && cut_off $W1 && cut_off $W2 &&
	ok "nodes cut off from the mirrors" || not_ok "nodes cut off from the mirrors"

"$PROVISION" apply --plain --state-dir "$W/s1" --bundle "$W/b.tar.zst" "$PLAN" \
	>"$W/apply1.txt" 2>&1
rc=$?
[ $rc -eq 0 ] && grep -q '3 nodes: 3 ok, 0 failed' "$W/apply1.txt" &&
	ok "apply --bundle: 3 nodes ok" || { not_ok "apply --bundle: 3 nodes ok (exit $rc)"; show_end "$W/apply1.txt" 40; }
ID=$(sed -n 's/^bundle \([0-9a-f]\{16\}\): .* verified, .*/\1/p' "$W/apply1.txt")
grep -q "^bundle $ID on 1 node (the relay rb-head, which serves it to the others): 1 sent, 0 already there$" "$W/apply1.txt" &&
	ok "the bundle went to the relay alone" || { not_ok "the bundle went to the relay alone"; grep bundle "$W/apply1.txt" | sed 's/^/# /'; }
on $W1 "test ! -e /var/lib/provision/bundle/$ID/repo" && on $W2 "test ! -e /var/lib/provision/bundle/$ID/repo" &&
	ok "  ... no worker holds a copy" || not_ok "  ... no worker holds a copy"

URL=http://127.0.10.31:3149/provision-bundle/$ID/repo/
served() {	# served ADDR PKG: installed, and the relay's copy is its source
	on "$1" "set -e
		d=/var/lib/provision/bundle/$ID
		test \"\$(cat \$d/sources.list)\" = 'deb [trusted=yes] $URL ./'
		dpkg-query -W -f='\${Status}' $2 | grep -qx 'install ok installed'
		apt-cache -o Dir::Etc::sourcelist=\$d/sources.list -o Dir::Etc::sourceparts=- \
			-o Dir::State::Lists=\$d/lists -o Dir::Cache::pkgcache= -o Dir::Cache::srcpkgcache= \
			policy $2 >/tmp/t106.policy
		grep -Eq ' ${URL%/}/? \./ Packages' /tmp/t106.policy" || {
		on "$1" "cat /var/lib/provision/bundle/$ID/sources.list /tmp/t106.policy" 2>&1 | sed 's/^/# /'
		return 1
	}
}
served $W1 hello && served $W1 figlet && served $W2 hello && served $W2 chrony &&
	ok "the workers installed from the relay's copy ($URL)" || not_ok "the workers installed from the relay's copy"
on $W1 hello 2>&1 | grep -q 'Hello, world!' && ok "  ... and hello runs" || not_ok "  ... and hello runs"

"$PROVISION" apply --plain --state-dir "$W/s1" --bundle "$W/b.tar.zst" "$PLAN" \
	>"$W/apply2.txt" 2>&1
rc=$?
[ $rc -eq 0 ] && grep -q "^bundle $ID on 1 node (the relay rb-head, which serves it to the others): 0 sent, 1 already there$" "$W/apply2.txt" &&
	grep -q ' 0 changed, ' "$W/apply2.txt" &&
	ok "second apply: nothing sent, 0 changed" || { not_ok "second apply: nothing sent, 0 changed (exit $rc)"; show_end "$W/apply2.txt"; }

# The relay's copy changed (a package added to the index and the Release
# made to match): the workers refuse it.
on $HEAD "set -e; cd /var/lib/provision/bundle/$ID/repo
	cp Release Release.orig
	printf 'Origin: somebody else\n' >>Release"
on $W1 'apt-get remove -y -q hello >/dev/null 2>&1; rm -rf /var/lib/provision/bundle/*/lists'
"$PROVISION" apply --plain --state-dir "$W/s1" --bundle "$W/b.tar.zst" -n rb-w1 "$PLAN" \
	>"$W/apply3.txt" 2>&1
rc=$?
[ $rc -eq 1 ] && grep -q 'rb-w1 *relay *failed: .*the relay does not serve this bundle' "$W/apply3.txt" &&
	ok "a changed Release on the relay is refused by the worker" || { not_ok "a changed Release is refused (exit $rc)"; show_end "$W/apply3.txt"; }
"$PROVISION" apply --plain --state-dir "$W/s1" --bundle "$W/b.tar.zst" -n rb-w1 --step extras "$PLAN" \
	>"$W/apply4.txt" 2>&1
rc=$?
[ $rc -eq 1 ] && grep -q 'rb-w1 *extras *failed' "$W/apply4.txt" &&
	grep -qs "refusing what the relay serves" "$W/s1"/runs/*/logs/rb-w1.log &&
	on $W1 '! dpkg-query -W -f="\${Status}" hello 2>/dev/null | grep -q "install ok"' &&
	ok "  ... and apt-get update's check refuses it too: nothing installed" ||
	{ not_ok "  ... apt-get update's check refuses it (exit $rc)"; show_end "$W/apply4.txt"; }
on $HEAD "cd /var/lib/provision/bundle/$ID/repo && mv Release.orig Release"
"$PROVISION" apply --plain --state-dir "$W/s1" --bundle "$W/b.tar.zst" -n rb-w1 "$PLAN" \
	>"$W/apply5.txt" 2>&1
rc=$?
[ $rc -eq 0 ] && on $W1 hello 2>&1 | grep -q 'Hello, world!' &&
	ok "  ... the bundle's own Release back: the worker installs again" || { not_ok "  ... installs again (exit $rc)"; show_end "$W/apply5.txt"; }

done_testing

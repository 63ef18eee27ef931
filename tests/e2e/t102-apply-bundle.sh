#!/bin/sh
# t102-apply-bundle: `provision apply --bundle` on the local testbed with no
# network for apt.  A bundle of the plan (one head, one worker, Slurm) is
# built from deb.debian.org; the two nodes get an apt proxy that refuses
# everything and lose their package lists; then apply --bundle installs
# Slurm from the bundle alone (apt-cache policy shows the file: source), a
# second apply sends nothing and changes nothing, a package the bundle
# lacks fails its step naming it, a node that cannot be reached is reported
# and left out while the others go on, and a broken bundle is refused
# before any node is touched.  The bundle is signed (--sign) and the plan
# pins its key (offline.bundle_key): apply says so, and refuses the same
# bundle with its signature stripped.
#
#   sh tests/e2e/t102-apply-bundle.sh        (as root; PROVISION=binary;
#                                            T102_KEEP=1 keeps its folder)
#
# The testbed nodes are off-head and off-worker (127.0.12.1-2): t100's
# nodes are not touched.  Downloads are cached in $TESTBED_DIR/bundle-cache.
# shellcheck disable=SC2015
# SAN=1: not run: dpkg in the roots takes its time: the bundle code is
#   t051's, the engine t100's and t101's
. "$(dirname "$0")/lib.sh"
set -u
[ "$(id -u)" -eq 0 ] || skip_all "needs root (namespaces, debootstrap)"
[ -r /usr/share/keyrings/debian-archive-keyring.gpg ] ||
	skip_all "no Debian archive keyring (package debian-archive-keyring)"
cd "$TOP" || exit 1

TB=${TESTBED_DIR:-/var/tmp/provision-testbed}
NODES="off-head=127.0.12.1 off-worker=127.0.12.2"
W=$(mktemp -d /tmp/t102.XXXXXX) || exit 1
# The fixture's plan, pinning the key the bundle is signed with.
(umask 077 && openssl genpkey -algorithm ed25519 -out "$W/bundle.key") 2>/dev/null || exit 1
openssl pkey -in "$W/bundle.key" -pubout -out "$W/bundle.pub" 2>/dev/null || exit 1
PLAN=$W/plan.yaml
sed "s|^software:|offline: { bundle_key: $W/bundle.pub }\nsoftware:|" \
	tests/fixtures/offline/plan.yaml >"$PLAN"
KEY=$TB/id_ed25519
KH=$TB/known_hosts
export PROVISION

cleanup() {
	scripts/testbed down --purge --nodes "$NODES" >/dev/null 2>&1
	if [ -n "${T102_KEEP:-}" ]; then echo "# kept $W"; else rm -rf "$W"; fi
}
testbed_lock
trap cleanup EXIT
trap 'exit 130' INT TERM


# ------------------------------------------------------------ the bundle

"$PROVISION" bundle "$PLAN" -o "$W/b.tar.zst" --cache "$TB/bundle-cache" \
	--sign "$W/bundle.key" >"$W/bundle.txt" 2>&1
rc=$?
if [ $rc -eq 0 ]; then ok "bundle of the plan from deb.debian.org"; else
	not_ok "bundle of the plan from deb.debian.org (exit $rc)"; show_end "$W/bundle.txt"
	done_testing; exit 1
fi

# A broken bundle is refused before anything connects (nodes are not up).
head -c 100000 "$W/b.tar.zst" >"$W/cut.tar.zst"
"$PROVISION" apply --plain --state-dir "$W/s0" --bundle "$W/cut.tar.zst" "$PLAN" \
	>"$W/cut.txt" 2>&1
rc=$?
[ $rc -eq 1 ] && grep -q "provision apply: cannot read '$W/cut.tar.zst'" "$W/cut.txt" &&
	ok "a cut bundle is refused, naming it" || { not_ok "a cut bundle is refused (exit $rc)"; show_end "$W/cut.txt"; }
"$PROVISION" apply --plain --state-dir "$W/s0" --bundle "$W/none.tar.zst" "$PLAN" \
	>"$W/none.txt" 2>&1
rc=$?
[ $rc -eq 1 ] && grep -q "cannot open '$W/none.tar.zst'" "$W/none.txt" &&
	ok "a missing bundle is refused, naming it" || { not_ok "a missing bundle is refused (exit $rc)"; show_end "$W/none.txt"; }
# Its signature stripped, the bundle is refused: the plan pins a key.
mkdir "$W/strip" && zstd -dc "$W/b.tar.zst" | tar -xf - -C "$W/strip" &&
	rm "$W/strip/manifest.sig" "$W/strip/manifest.pub" &&
	(cd "$W/strip" && tar -cf - ./* | zstd -q -o "$W/strip.tar.zst")
"$PROVISION" apply --plain --state-dir "$W/s0" --bundle "$W/strip.tar.zst" "$PLAN" \
	>"$W/strip.txt" 2>&1
rc=$?
[ $rc -eq 1 ] && grep -q "fails verification (1 problem): the bundle is not signed, and key SHA256:[A-Za-z0-9+/]* is pinned" "$W/strip.txt" &&
	ok "a bundle whose signature was stripped is refused" || { not_ok "a stripped bundle is refused (exit $rc)"; show_end "$W/strip.txt"; }
rm -rf "$W/strip"
! grep -q "bundle .* on " "$W/cut.txt" "$W/none.txt" "$W/strip.txt" &&
	ok "  ... before any node is asked" || not_ok "  ... before any node is asked"

# --dry-run renders the scripts that would run, with the bundle's folder.
"$PROVISION" apply --dry-run "$W/dry" --bundle "$W/b.tar.zst" "$PLAN" >"$W/dry.txt" 2>&1
ID=$(sed -n 's/^bundle \([0-9a-f]\{16\}\): .* verified, \([0-9]*\) packages$/\1/p' "$W/dry.txt")
REPO=/var/lib/provision/bundle/$ID
[ -n "$ID" ] && grep -qx "PROV_APT_REPO='$REPO'" "$W/dry/off-head/01-base.sh" &&
	ok "--dry-run --bundle renders PROV_APT_REPO='$REPO'" ||
	{ not_ok "--dry-run --bundle renders PROV_APT_REPO"; show_end "$W/dry.txt"; }

# ------------------------------------------------------------ nodes off the net

scripts/testbed down --purge --nodes "$NODES" >/dev/null 2>&1
check "testbed up (off-head, off-worker)" scripts/testbed up "$PLAN"
cut_off() {	# every fetch over the network fails; no package lists
	on "$1" 'set -e
		printf "%s\n" "Acquire::http::Proxy \"http://127.0.0.1:9/\";" \
			"Acquire::https::Proxy \"http://127.0.0.1:9/\";" \
			"Acquire::Retries \"0\";" >/etc/apt/apt.conf.d/99t102-offline
		rm -rf /var/lib/apt/lists
		mkdir -p /var/lib/apt/lists/partial
		! apt-get update -q >/dev/null 2>&1
		! apt-cache show --no-all-versions munge >/dev/null 2>&1'
}
if cut_off 127.0.12.1 && cut_off 127.0.12.2; then
	ok "nodes cut off: apt-get update fails, no lists, munge unknown"
else
	not_ok "nodes cut off from the network for apt"
fi

# Without the bundle the same nodes cannot install anything.
"$PROVISION" apply --plain --state-dir "$W/s0" --step base "$PLAN" >"$W/apply0.txt" 2>&1
rc=$?
[ $rc -eq 1 ] && grep -q 'off-head *base *failed' "$W/apply0.txt" &&
	ok "  ... so apply without --bundle fails there" || { not_ok "  ... apply without --bundle fails (exit $rc)"; show_end "$W/apply0.txt"; }

# ------------------------------------------------------------ apply --bundle

"$PROVISION" apply --plain --state-dir "$W/s1" --bundle "$W/b.tar.zst" "$PLAN" \
	>"$W/apply1.txt" 2>&1
rc=$?
[ $rc -eq 0 ] && ok "apply --bundle succeeds" || { not_ok "apply --bundle succeeds (exit $rc)"; show_end "$W/apply1.txt" 40; }
grep -q "^bundle $ID: signed by key SHA256:[A-Za-z0-9+/]* (the pinned key)$" "$W/apply1.txt" &&
	ok "  ... signed by the key the plan pins, it says" || { not_ok "  ... says whose signature"; show_end "$W/apply1.txt"; }
grep -q "^bundle $ID on 2 nodes: 2 sent, 0 already there$" "$W/apply1.txt" &&
	ok "  ... the bundle went to both nodes" || { not_ok "  ... bundle sent to both"; grep bundle "$W/apply1.txt" | sed 's/^/# /'; }
grep -q '2 nodes: 2 ok, 0 failed' "$W/apply1.txt" && grep -q 'off-worker *slurm *changed' "$W/apply1.txt" &&
	ok "  ... 2 nodes ok, slurm installed" || not_ok "  ... 2 nodes ok, slurm installed"
[ -z "$(find "$W/s1" -maxdepth 1 -name 'provision-bundle-*')" ] &&
	ok "  ... the local tar of repo/ is gone" || not_ok "  ... the local tar of repo/ is gone"

from_bundle() {	# from_bundle ADDR PKG: installed, and the bundle is its source
	on "$1" "set -e
		d=$REPO
		test -f \$d/.complete && test -f \$d/repo/Packages && test ! -e \$d.tar && test ! -e \$d.tmp
		test \"\$(cat \$d/sources.list)\" = 'deb [trusted=yes] file:$REPO/repo ./'
		dpkg-query -W -f='\${Status}' $2 | grep -qx 'install ok installed'
		apt-cache -o Dir::Etc::sourcelist=\$d/sources.list -o Dir::Etc::sourceparts=- \
			-o Dir::State::Lists=\$d/lists -o Dir::Cache::pkgcache= -o Dir::Cache::srcpkgcache= \
			policy $2 >/tmp/t102.policy
		v=\$(dpkg-query -W -f='\${Version}' $2)
		grep -q \"^ \\*\\*\\* \$v \" /tmp/t102.policy
		grep -q ' file:$REPO/repo ./ Packages' /tmp/t102.policy
		# and the node's own apt still knows nothing: nothing else served it
		! apt-cache policy $2 2>/dev/null | grep -q 'http'"
}
check "slurmctld on the head came from the bundle (apt-cache policy: file:$REPO/repo)" \
	from_bundle 127.0.12.1 slurmctld
if from_bundle 127.0.12.2 slurmd && from_bundle 127.0.12.2 munge; then
	ok "slurmd and munge on the worker came from the bundle"
else
	not_ok "slurmd and munge on the worker came from the bundle"
fi
on 127.0.12.1 "timeout 60 srun -N1 hostname" >"$W/srun.txt" 2>&1
grep -qx off-worker "$W/srun.txt" && ok "srun runs a job on the worker" ||
	{ not_ok "srun runs a job on the worker"; show_end "$W/srun.txt"; }

# A second apply (plain `provision PLAN --bundle`) sends nothing, changes nothing.
"$PROVISION" "$PLAN" --bundle "$W/b.tar.zst" --plain --state-dir "$W/s1" \
	>"$W/apply2.txt" 2>&1
rc=$?
[ $rc -eq 0 ] && grep -q "^bundle $ID on 2 nodes: 0 sent, 2 already there$" "$W/apply2.txt" &&
	ok "second apply: the bundle is not sent again" || { not_ok "second apply: not sent again (exit $rc)"; show_end "$W/apply2.txt"; }
grep -q ' 0 changed, ' "$W/apply2.txt" && ok "  ... and 0 changed" ||
	{ not_ok "  ... and 0 changed"; grep -E 'changed|failed' "$W/apply2.txt" | sed 's/^/# /' | head; }

# ------------------------------------------------------------ what the bundle lacks

# The same cluster with an extra the bundle does not hold (jq), and a third
# node that is not there: it is reported and left out, the others go on,
# and the extras step fails naming the package.
sed -e 's/^  monitoring: { node_exporter: false }$/&\n  extras: [ jq ]/' \
    -e 's/^  - { name: off-worker, role: worker, address: 127.0.12.2 }$/&\n  - { name: off-gone, role: worker, address: 127.0.12.3 }/' \
    "$PLAN" >"$W/plan-more.yaml"
grep -q 'extras: \[ jq \]' "$W/plan-more.yaml" && grep -q off-gone "$W/plan-more.yaml" ||
	not_ok "making plan-more.yaml"
"$PROVISION" apply --plain --state-dir "$W/s2" --step extras --bundle "$W/b.tar.zst" \
	"$W/plan-more.yaml" >"$W/apply3.txt" 2>&1
rc=$?
[ $rc -eq 1 ] && ok "apply with a package the bundle lacks exits 1" || { not_ok "missing package: exit 1 (exit $rc)"; show_end "$W/apply3.txt"; }
grep -q "^provision apply: off-gone: bundle not copied, left out of this run: unreachable" "$W/apply3.txt" &&
	ok "  ... the unreachable node is named, with why" || { not_ok "  ... unreachable node reported"; show_end "$W/apply3.txt"; }
grep -q "^bundle $ID on 3 nodes: 0 sent, 2 already there, 1 failed$" "$W/apply3.txt" &&
	ok "  ... summary: 0 sent, 2 already there, 1 failed" || not_ok "  ... push summary with the failed node"
grep -q "off-worker *extras *failed: exit 1: extras: not in the offline bundle: jq (rebuild the bundle with it" "$W/apply3.txt" &&
	ok "  ... the extras step fails naming jq and saying to rebuild the bundle" ||
	{ not_ok "  ... extras fails naming jq"; grep extras "$W/apply3.txt" | sed 's/^/# /'; }
grep -q '2 nodes: 0 ok, 2 failed' "$W/apply3.txt" && ! grep -q '^[0-9:]* off-gone ' "$W/apply3.txt" &&
	ok "  ... the step ran on the two reachable nodes only" || not_ok "  ... ran on the reachable nodes only"

done_testing

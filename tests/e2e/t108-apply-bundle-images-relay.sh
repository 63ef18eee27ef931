#!/bin/sh
# t108-apply-bundle-images-relay: an offline bundle with a container image,
# served by the package relay, on the local testbed
# (tests/fixtures/relay/bundle-images-relay.yaml: a head and two workers
# with containerd, cut off from every mirror).  apply --bundle sends the
# bundle, its images tar included, to the relay alone (the workstation
# sends the image bytes once); each worker fetches the tar from the
# relay over HTTP, checked against the digest of the verified bundle,
# and imports it: `ctr images ls` names the image with the registry's
# digest on every node.  A second apply sends nothing and changes
# nothing; a tar changed on the relay is refused by a worker that needs
# it.  The bundle is unsigned (--insecure-unsigned: signatures are t051's
# and t102's).  As in t103, a cgroup2 hierarchy is mounted into each
# node for containerd; no container is ever run.
#
#   sh tests/e2e/t108-apply-bundle-images-relay.sh  (as root, under the e2e
#                                                   lock; T108_KEEP=1 keeps
#                                                   its folder)
# SAN=1: not run: dpkg, containerd and apt-cacher-ng take its time: the
#   images code is t053's, the engine t100's and t101's
# shellcheck disable=SC2015
. "$(dirname "$0")/lib.sh"
set -u
[ "$(id -u)" -eq 0 ] || skip_all "needs root (namespaces, debootstrap)"
[ -r /usr/share/keyrings/debian-archive-keyring.gpg ] ||
	skip_all "no Debian archive keyring (package debian-archive-keyring)"
command -v python3 >/dev/null 2>&1 || skip_all "python3 is not installed"
grep -qw cgroup2 /proc/filesystems || skip_all "the kernel has no cgroup2"
cd "$TOP" || exit 1

PLAN=tests/fixtures/relay/bundle-images-relay.yaml
TB=${TESTBED_DIR:-/var/tmp/provision-testbed}
W=$(mktemp -d /tmp/t108.XXXXXX) || exit 1
# lib.sh's on() logs in with these; shellcheck cannot see that use.
# shellcheck disable=SC2034
KEY=$TB/id_ed25519 KH=$TB/known_hosts
HEAD=127.0.10.51
W1=127.0.10.52
W2=127.0.10.53
IMG=library/busybox:1.36
REF=docker.io/$IMG
REG_PID=
export PROVISION

cleanup() {
	[ -n "$REG_PID" ] && kill "$REG_PID" 2>/dev/null
	scripts/testbed down --purge "$PLAN" >/dev/null 2>&1
	if [ -n "${T108_KEEP:-}" ]; then echo "# kept $W"; else rm -rf "$W"; fi
}
testbed_lock
trap cleanup EXIT
trap 'exit 130' INT TERM


python3 tests/e2e/oci_registry.py "$W/reg" --port-file "$W/rport" \
	--log "$W/reg.log" --diff-ids --image "$IMG" &
REG_PID=$!
for _ in 1 2 3 4 5; do	# making the image's layers takes a while on a busy machine
	[ -s "$W/rport" ] && break
	sleep 1
done
URL=http://127.0.0.1:$(wait_port "$W/rport")
DIG=$(reg_digest "$W/reg/images.json" "$IMG" amd64 manifest)

"$PROVISION" bundle "$PLAN" -o "$W/b.tar.zst" --cache "$TB/bundle-cache" \
	--registry-mirror "docker.io=$URL" --image "$REF" >"$W/bundle.txt" 2>&1
rc=$?
if [ $rc -eq 0 ]; then ok "bundle of the plan (containerd, apt-cacher-ng) and $REF"; else
	not_ok "bundle of the plan (exit $rc)"; show_end "$W/bundle.txt"
	done_testing; exit 1
fi

scripts/testbed down --purge "$PLAN" >/dev/null 2>&1
check "testbed up" scripts/testbed up "$PLAN"
# Every mirror out of reach, the relay alone in reach; a cgroup hierarchy.
prepare() {
	on "$1" 'set -e
		printf "%s\n" "Acquire::http::Proxy \"http://127.0.0.1:9/\";" \
			"Acquire::http::Proxy::127.0.10.51 \"DIRECT\";" \
			"Acquire::https::Proxy \"http://127.0.0.1:9/\";" \
			"Acquire::Retries \"0\";" >/etc/apt/apt.conf.d/99t108-offline
		rm -rf /var/lib/apt/lists
		mkdir -p /var/lib/apt/lists/partial
		! apt-get update -q --error-on=any >/dev/null 2>&1
		! apt-cache show --no-all-versions containerd >/dev/null 2>&1
		grep -qs " /sys/fs/cgroup cgroup" /proc/self/mounts ||
			mount -t cgroup2 cgroup2 /sys/fs/cgroup
		! command -v ctr'
}
prepare $HEAD && prepare $W1 && prepare $W2 &&
	ok "nodes cut off from the mirrors, no containerd, a cgroup hierarchy" ||
	not_ok "preparing the nodes"

"$PROVISION" apply --plain --state-dir "$W/s1" --bundle "$W/b.tar.zst" --insecure-unsigned "$PLAN" \
	>"$W/apply1.txt" 2>&1
rc=$?
[ $rc -eq 0 ] && grep -q '3 nodes: 3 ok, 0 failed' "$W/apply1.txt" &&
	ok "apply --bundle: 3 nodes ok" || { not_ok "apply --bundle: 3 nodes ok (exit $rc)"; show_end "$W/apply1.txt" 40; }
ID=$(sed -n 's/^bundle \([0-9a-f]\{16\}\): .* verified, .*/\1/p' "$W/apply1.txt")
D=/var/lib/provision/bundle/$ID
grep -q "^bundle $ID on 1 node (the relay bi-head, which serves it to the others): 1 sent, 0 already there$" "$W/apply1.txt" &&
	grep -q "^bundle $ID images (1) on 1 node: 1 sent, 0 already there$" "$W/apply1.txt" &&
	ok "the bundle and its images went to the relay alone" ||
	{ not_ok "the bundle and its images went to the relay alone"; grep bundle "$W/apply1.txt" | sed 's/^/# /'; }

imported() {	# imported ADDR: ctr knows REF as the registry's manifest, complete
	on "$1" "ctr -n k8s.io images ls" >"$W/ls.$1" 2>&1 || return 1
	awk -v r="$REF" -v d="$DIG" '$1 == r && $3 == d { f = 1 } END { exit !f }' "$W/ls.$1" || return 1
	on "$1" "ctr -n k8s.io images check" | awk -v r="$REF" '$1 == r && /complete/ { f = 1 } END { exit !f }'
}
for a in $HEAD $W1 $W2; do
	imported "$a" && ok "$a: $REF imported, digest $DIG, content complete" ||
		{ not_ok "$a: $REF imported"; show_end "$W/ls.$a" 5; }
done
fetched() {	# fetched ADDR: no repo/ copy, the images tar from the relay
	on "$1" "test ! -e $D/repo && test -f $D/images/.complete &&
		grep -qx '$REF $DIG sha256:[0-9a-f]*' $D/images/images.list &&
		test \"\$(cat $D/images/images.sha256)\" = \"\$(sha256sum <$D/images/images.tar | cut -d' ' -f1)\""
}
fetched $W1 && fetched $W2 &&
	ok "the workers fetched the images tar from the relay (checked), and hold no repo/ copy" ||
	not_ok "the workers fetched the images tar from the relay"
grep -qs "fetching the bundle's images from the relay: http://127.0.10.51:3151/provision-bundle/$ID/images/images.tar" \
	"$W/s1"/runs/*/logs/bi-w1.log && ok "  ... over HTTP from the relay, its log says" ||
	not_ok "  ... over HTTP from the relay, its log says"

"$PROVISION" apply --plain --state-dir "$W/s1" --bundle "$W/b.tar.zst" --insecure-unsigned "$PLAN" \
	>"$W/apply2.txt" 2>&1
rc=$?
[ $rc -eq 0 ] && grep -q "^bundle $ID on 1 node (the relay bi-head, which serves it to the others): 0 sent, 1 already there$" "$W/apply2.txt" &&
	grep -q "^bundle $ID images (1) on 1 node: 0 sent, 1 already there$" "$W/apply2.txt" &&
	grep -q ' 0 changed, ' "$W/apply2.txt" &&
	ok "second apply: nothing sent, 0 changed" || { not_ok "second apply: nothing sent, 0 changed (exit $rc)"; show_end "$W/apply2.txt"; }

# The relay's tar changed: a worker that needs it refuses it, imports nothing.
on $HEAD "cp $D/images/images.tar $D/images/images.tar.orig && printf x >>$D/images/images.tar"
on $W1 "ctr -n k8s.io images rm $REF >/dev/null; rm -rf $D/images"
"$PROVISION" apply --plain --state-dir "$W/s1" --bundle "$W/b.tar.zst" --insecure-unsigned -n bi-w1 \
	--step container-runtime "$PLAN" >"$W/apply3.txt" 2>&1
rc=$?
[ $rc -eq 1 ] && grep -q 'bi-w1 *container-runtime *failed' "$W/apply3.txt" &&
	grep -qs "could not fetch the bundle's images from the relay" "$W/s1"/runs/*/logs/bi-w1.log &&
	on $W1 "test ! -e $D/images" && ! imported $W1 &&
	ok "a changed images tar on the relay is refused: nothing imported" ||
	{ not_ok "a changed images tar is refused (exit $rc)"; show_end "$W/apply3.txt"; }
on $HEAD "mv $D/images/images.tar.orig $D/images/images.tar"
"$PROVISION" apply --plain --state-dir "$W/s1" --bundle "$W/b.tar.zst" --insecure-unsigned -n bi-w1 \
	--step container-runtime "$PLAN" >"$W/apply4.txt" 2>&1
rc=$?
[ $rc -eq 0 ] && grep -q 'bi-w1 *container-runtime *changed' "$W/apply4.txt" && imported $W1 &&
	ok "  ... the bundle's own tar back: the worker imports it again" ||
	{ not_ok "  ... imports again (exit $rc)"; show_end "$W/apply4.txt"; }

done_testing

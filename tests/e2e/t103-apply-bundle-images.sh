#!/bin/sh
# t103-apply-bundle-images: `provision apply --bundle` brings the bundle's
# container images onto the nodes and imports them into containerd.  A
# bundle of the plan (two nodes, containerd, the DCGM exporter's image and
# one more with --image) is built from deb.debian.org and a registry on
# 127.0.0.1 (oci_registry.py --diff-ids: images a runtime can unpack); the
# nodes are cut off from apt; apply --bundle sends each node repo/ and the
# images tar once, containerd comes from the bundle, and `ctr -n k8s.io
# images ls` names every image with the digest the registry gave.  A
# second apply sends nothing and changes nothing; an image removed behind
# provision's back is imported again.  The bundle is unsigned (--insecure-
# unsigned: signatures are t051's and t102's).
#
#   sh tests/e2e/t103-apply-bundle-images.sh   (as root; PROVISION=binary;
#                                              T103_KEEP=1 keeps its folder)
#
# The testbed has no cgroup hierarchy (the container-runtime step refuses
# containerd there); containerd itself runs without one, and importing
# needs only its content store and snapshotter, so the test mounts a
# cgroup2 hierarchy into each node's /sys/fs/cgroup first.  No container
# is ever run.  Its own testbed folder (TESTBED_DIR, default
# /var/tmp/provision-testbed-t103, sharing the base root of
# /var/tmp/provision-testbed) and addresses 127.0.13.1-2.
# shellcheck disable=SC2015
# SAN=1: not run: dpkg and containerd take its time: the images code is
#   t053's
. "$(dirname "$0")/lib.sh"
set -u
[ "$(id -u)" -eq 0 ] || skip_all "needs root (namespaces, debootstrap)"
[ -r /usr/share/keyrings/debian-archive-keyring.gpg ] ||
	skip_all "no Debian archive keyring (package debian-archive-keyring)"
command -v python3 >/dev/null 2>&1 || skip_all "python3 is not installed"
grep -qw cgroup2 /proc/filesystems || skip_all "the kernel has no cgroup2"
cd "$TOP" || exit 1

PLAN=tests/fixtures/offline-images/plan.yaml
TESTBED_DIR=${T103_TESTBED_DIR:-/var/tmp/provision-testbed-t103}
TESTBED_BASE=${TESTBED_BASE:-/var/tmp/provision-testbed/base}
export TESTBED_DIR TESTBED_BASE PROVISION
TB=$TESTBED_DIR
NODES="img-a=127.0.13.1 img-b=127.0.13.2"
W=$(mktemp -d /tmp/t103.XXXXXX) || exit 1
KEY=$TB/id_ed25519
KH=$TB/known_hosts
REG_PID=
DCGM=nvcr.io/nvidia/k8s/dcgm-exporter:3.3.5-3.4.1-ubuntu22.04
BUSY=docker.io/library/busybox:1.36

cleanup() {
	[ -n "$REG_PID" ] && kill "$REG_PID" 2>/dev/null
	scripts/testbed down --purge --nodes "$NODES" >/dev/null 2>&1
	if [ -n "${T103_KEEP:-}" ]; then echo "# kept $W"; else rm -rf "$W"; fi
}
testbed_lock
trap cleanup EXIT
trap 'exit 130' INT TERM


d() {	# d IMAGE KEY...: a digest from the registry's description
	reg_digest "$W/reg/images.json" "$@"
}

# ------------------------------------------------------------ the bundle

python3 "$TOP/tests/e2e/oci_registry.py" "$W/reg" --port-file "$W/rport" \
	--log "$W/reg.log" --diff-ids --image nvidia/k8s/dcgm-exporter:3.3.5-3.4.1-ubuntu22.04 \
	--image library/busybox:1.36 &
REG_PID=$!
URL=http://127.0.0.1:$(wait_port "$W/rport")
DCGM_DIG=$(d nvidia/k8s/dcgm-exporter:3.3.5-3.4.1-ubuntu22.04 amd64 manifest)
BUSY_DIG=$(d library/busybox:1.36 amd64 manifest)

"$PROVISION" bundle "$PLAN" -o "$W/b.tar.zst" --cache "$TB/bundle-cache" \
	--registry-mirror "nvcr.io=$URL" --registry-mirror "docker.io=$URL" \
	--image "$BUSY" >"$W/bundle.txt" 2>&1
rc=$?
if [ $rc -eq 0 ]; then ok "bundle of the plan: packages from deb.debian.org, 2 images from the registry"; else
	not_ok "bundle of the plan (exit $rc)"; show_end "$W/bundle.txt"
	done_testing; exit 1
fi
grep -q "^image    $DCGM $DCGM_DIG (linux/amd64)" "$W/bundle.txt" &&
	grep -q "^image    $BUSY $BUSY_DIG (linux/amd64)" "$W/bundle.txt" &&
	ok "  ... the DCGM exporter's image and --image $BUSY" ||
	{ not_ok "  ... both images"; grep '^image' "$W/bundle.txt" | sed 's/^/# /'; }

"$PROVISION" apply --dry-run "$W/dry" --bundle "$W/b.tar.zst" --insecure-unsigned "$PLAN" >"$W/dry.txt" 2>&1
ID=$(sed -n 's/^bundle \([0-9a-f]\{16\}\): .* verified, [0-9]* packages, 2 images$/\1/p' "$W/dry.txt")
REPO=/var/lib/provision/bundle/$ID
[ -n "$ID" ] && ok "--dry-run --bundle: bundle $ID, 2 images" ||
	{ not_ok "--dry-run --bundle names the bundle and its 2 images"; show_end "$W/dry.txt"; }

# ------------------------------------------------------------ the nodes

scripts/testbed down --purge --nodes "$NODES" >/dev/null 2>&1
check "testbed up (img-a, img-b)" scripts/testbed up --nodes "$NODES"
prepare() {	# no apt from the network; a cgroup hierarchy for containerd
	on "$1" 'set -e
		printf "%s\n" "Acquire::http::Proxy \"http://127.0.0.1:9/\";" \
			"Acquire::https::Proxy \"http://127.0.0.1:9/\";" \
			"Acquire::Retries \"0\";" >/etc/apt/apt.conf.d/99t103-offline
		rm -rf /var/lib/apt/lists
		mkdir -p /var/lib/apt/lists/partial
		! apt-get update -q >/dev/null 2>&1
		! apt-cache show --no-all-versions containerd >/dev/null 2>&1
		grep -qs " /sys/fs/cgroup cgroup" /proc/self/mounts ||
			mount -t cgroup2 cgroup2 /sys/fs/cgroup
		! command -v ctr'
}
if prepare 127.0.13.1 && prepare 127.0.13.2; then
	ok "nodes cut off from apt, no containerd, a cgroup hierarchy"
else
	not_ok "preparing the nodes"
fi

# ------------------------------------------------------------ apply --bundle

"$PROVISION" apply --plain --state-dir "$W/s1" --bundle "$W/b.tar.zst" --insecure-unsigned "$PLAN" \
	>"$W/apply1.txt" 2>&1
rc=$?
[ $rc -eq 0 ] && ok "apply --bundle succeeds" || { not_ok "apply --bundle succeeds (exit $rc)"; show_end "$W/apply1.txt" 40; }
grep -q "^bundle $ID on 2 nodes: 2 sent, 0 already there$" "$W/apply1.txt" &&
	grep -q "^bundle $ID images (2) on 2 nodes: 2 sent, 0 already there$" "$W/apply1.txt" &&
	ok "  ... repo/ and the images went to both nodes" ||
	{ not_ok "  ... repo/ and images sent to both"; grep bundle "$W/apply1.txt" | sed 's/^/# /'; }
grep -q 'img-a *container-runtime *changed' "$W/apply1.txt" &&
	grep -q 'img-b *container-runtime *changed' "$W/apply1.txt" &&
	ok "  ... container-runtime changed on both" || not_ok "  ... container-runtime changed on both"

on_node_images() {	# the images folder is whole, the upload gone
	on "$1" "set -e
		d=$REPO
		test -f \$d/images/.complete && test -f \$d/images/images.tar
		test ! -e \$d.images.tar && test ! -e \$d/images.tmp
		test \"\$(wc -l <\$d/images/images.list)\" -eq 2
		grep -qx '$DCGM $DCGM_DIG sha256:[0-9a-f]*' \$d/images/images.list
		dpkg-query -W -f='\${Status}' containerd | grep -qx 'install ok installed'
		apt-cache -o Dir::Etc::sourcelist=\$d/sources.list -o Dir::Etc::sourceparts=- \
			-o Dir::State::Lists=\$d/lists -o Dir::Cache::pkgcache= -o Dir::Cache::srcpkgcache= \
			policy containerd | grep -q ' file:$REPO/repo ./ Packages'"
}
if on_node_images 127.0.13.1 && on_node_images 127.0.13.2; then
	ok "on both nodes: $REPO/images/ holds the tar and the list; containerd came from the bundle"
else
	not_ok "images folder on the nodes, containerd from the bundle"
fi

imported() {	# imported ADDR REF DIGEST: ctr knows REF as that manifest, unpacked
	on "$1" "ctr -n k8s.io images ls" >"$W/ls.$1" 2>&1 || return 1
	awk -v r="$2" -v d="$3" '$1 == r && $3 == d { f = 1 } END { exit !f }' "$W/ls.$1" || return 1
	on "$1" "ctr -n k8s.io images check" | awk -v r="$2" '$1 == r && /complete/ { f = 1 } END { exit !f }'
}
for a in 127.0.13.1 127.0.13.2; do
	if imported "$a" "$DCGM" "$DCGM_DIG" && imported "$a" "$BUSY" "$BUSY_DIG"; then
		ok "$a: ctr -n k8s.io images ls names both images with the registry's digests, content complete"
	else
		not_ok "$a: both images imported into containerd (k8s.io)"; show_end "$W/ls.$a"
	fi
done
on 127.0.13.1 "ctr -n k8s.io snapshots ls" >"$W/snap.txt" 2>&1
[ "$(grep -c Committed "$W/snap.txt")" -ge 4 ] &&
	ok "  ... and unpacked (4 committed layer snapshots)" || { not_ok "  ... unpacked"; show_end "$W/snap.txt"; }
cp "$W/reg.log" "$W/reg.log.before"

# The same tar as docker load reads it (a docker-save manifest.json beside
# the OCI layout): skopeo's docker-archive: reader, config and every layer
# (no dockerd here: it would take over the host's network namespace).
if command -v skopeo >/dev/null 2>&1; then
	on 127.0.13.1 "cat $REPO/images/images.tar" >"$W/images.tar"
	if skopeo copy -q "docker-archive:$W/images.tar:$DCGM" "dir:$W/d1" >"$W/sk.txt" 2>&1 &&
		skopeo copy -q "docker-archive:$W/images.tar:$BUSY" "dir:$W/d2" >>"$W/sk.txt" 2>&1 &&
		skopeo copy -q "oci-archive:$W/images.tar:$BUSY" "dir:$W/d3" >>"$W/sk.txt" 2>&1 &&
		test -f "$W/d1/$(d nvidia/k8s/dcgm-exporter:3.3.5-3.4.1-ubuntu22.04 amd64 config | cut -d: -f2)"; then
		ok "skopeo reads the node's tar as docker-archive: (docker load) and oci-archive:"
	else
		not_ok "skopeo reads the node's tar as docker-archive: and oci-archive:"; show_end "$W/sk.txt"
	fi
else
	not_ok "skopeo is missing (make deps installs it): docker-archive: reading not checked"
fi

# ------------------------------------------------------------ again

"$PROVISION" "$PLAN" --bundle "$W/b.tar.zst" --insecure-unsigned --plain --state-dir "$W/s1" \
	>"$W/apply2.txt" 2>&1
rc=$?
[ $rc -eq 0 ] && grep -q "^bundle $ID images (2) on 2 nodes: 0 sent, 2 already there$" "$W/apply2.txt" &&
	grep -q "^bundle $ID on 2 nodes: 0 sent, 2 already there$" "$W/apply2.txt" &&
	ok "second apply: nothing sent again" || { not_ok "second apply: nothing sent (exit $rc)"; show_end "$W/apply2.txt"; }
grep -q ' 0 changed, ' "$W/apply2.txt" && ok "  ... and 0 changed" ||
	{ not_ok "  ... and 0 changed"; grep -E 'changed|failed' "$W/apply2.txt" | sed 's/^/# /' | head; }

# An image removed behind provision's back: the check sees it, apply imports it.
on 127.0.13.2 "ctr -n k8s.io images rm $BUSY" >/dev/null 2>&1
! imported 127.0.13.2 "$BUSY" "$BUSY_DIG" && ok "busybox removed from img-b" || not_ok "busybox removed from img-b"
"$PROVISION" apply --plain --state-dir "$W/s1" --step container-runtime --bundle "$W/b.tar.zst" --insecure-unsigned "$PLAN" \
	>"$W/apply3.txt" 2>&1
rc=$?
[ $rc -eq 0 ] && grep -q 'img-b *container-runtime *changed' "$W/apply3.txt" &&
	grep -q 'img-a *container-runtime *ok' "$W/apply3.txt" &&
	imported 127.0.13.2 "$BUSY" "$BUSY_DIG" &&
	ok "  ... the next apply imports it again (img-b changed, img-a ok)" ||
	{ not_ok "  ... imported again (exit $rc)"; show_end "$W/apply3.txt"; }
cmp -s "$W/reg.log" "$W/reg.log.before" && ok "the nodes never asked the registry" ||
	not_ok "the nodes never asked the registry"

done_testing

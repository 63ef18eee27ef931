#!/bin/sh
# t107-apply-relay-images: container images through the relay, on the
# local testbed (tests/fixtures/relay/images-relay.yaml: a head relaying
# packages and images for two workers, containerd on all three).  The
# upstream registry is the test one (oci_registry.py --diff-ids, behind a
# Bearer token, as docker.io is), named docker.io in the plan.  apply sets
# up apt-cacher-ng and a pull-through cache of docker.io (Debian's
# docker-registry) on the head before any node installs; every node's
# containerd reads certs.d/docker.io/hosts.toml naming the cache.  The
# three nodes pull the image in turn (ctr, with those hosts): each gets
# the digest the upstream gives and complete content, while the
# upstream's request log shows the blobs fetched for the first node alone
# (Distribution's proxy fetches a missing blob twice, to serve and to
# store it), none for the second and third.  A second apply changes
# nothing; a cache the plan drops is stopped and its configuration goes.
#
#   sh tests/e2e/t107-apply-relay-images.sh   (as root, under the e2e lock;
#                                             T107_KEEP=1 keeps its folder)
#
# The testbed has no cgroup hierarchy (the container-runtime step refuses
# containerd there); containerd runs without one and pulling needs only
# its content store and snapshotter, so the test mounts a cgroup2
# hierarchy into each node's /sys/fs/cgroup first, as t103 does.  No
# container is ever run.
# shellcheck disable=SC2015
# SAN=1: not run: the registries and dpkg take its time: the engine is
#   t100's and t101's
. "$(dirname "$0")/lib.sh"
set -u
[ "$(id -u)" -eq 0 ] || skip_all "needs root (namespaces, debootstrap)"
command -v python3 >/dev/null 2>&1 || skip_all "python3 is not installed"
grep -qw cgroup2 /proc/filesystems || skip_all "the kernel has no cgroup2"
cd "$TOP" || exit 1

TB=${TESTBED_DIR:-/var/tmp/provision-testbed}
W=$(mktemp -d /tmp/t107.XXXXXX) || exit 1
KEY=$TB/id_ed25519
KH=$TB/known_hosts
HEAD=127.0.10.41
W1=127.0.10.42
W2=127.0.10.43
PLAN=$W/plan.yaml
IMG=library/busybox:1.36
REF=docker.io/$IMG
REG_PID=
export PROVISION

cleanup() {
	[ -n "$REG_PID" ] && kill "$REG_PID" 2>/dev/null
	scripts/testbed down --purge "$PLAN" >/dev/null 2>&1
	if [ -n "${T107_KEEP:-}" ]; then echo "# kept $W"; else rm -rf "$W"; fi
}
testbed_lock
trap cleanup EXIT
trap 'exit 130' INT TERM


d() {	# d KEY...: a digest of the image from the registry's description
	reg_digest "$W/reg/images.json" "$IMG" "$@"
}

python3 tests/e2e/oci_registry.py "$W/reg" --port-file "$W/rport" \
	--log "$W/reg.log" --diff-ids --image "$IMG" &
REG_PID=$!
for _ in 1 2 3 4 5; do	# making the image's layers takes a while on a busy machine
	[ -s "$W/rport" ] && break
	sleep 1
done
UP=$(wait_port "$W/rport")
[ -n "$UP" ] || { not_ok "the test registry starts"; done_testing; exit 1; }
sed "s|http://127.0.0.1:9\"|http://127.0.0.1:$UP\"|" tests/fixtures/relay/images-relay.yaml >"$PLAN"
INDEX=$(d index)

scripts/testbed down --purge "$PLAN" >/dev/null 2>&1
check "testbed up" scripts/testbed up "$PLAN"
prepare() {	# a cgroup hierarchy for containerd
	on "$1" 'grep -qs " /sys/fs/cgroup cgroup" /proc/self/mounts ||
		mount -t cgroup2 cgroup2 /sys/fs/cgroup'
}
prepare $HEAD && prepare $W1 && prepare $W2 &&
	ok "a cgroup hierarchy on each node" || not_ok "a cgroup hierarchy on each node"

"$PROVISION" apply --plain --state-dir "$W/s1" "$PLAN" >"$W/apply1.txt" 2>&1
rc=$?
[ $rc -eq 0 ] && grep -q '3 nodes: 3 ok, 0 failed' "$W/apply1.txt" &&
	ok "first apply: 3 nodes ok" || { not_ok "first apply: 3 nodes ok (exit $rc)"; show_end "$W/apply1.txt" 40; }
first=$(grep -E ' (relay|base|container-runtime) +(ok|changed|skipped|failed)' "$W/apply1.txt" | head -n 1)
case $first in
*ri-head*relay*) ok "the relay (and its image cache) is set up on the head first" ;;
*) not_ok "the relay is set up on the head first (first result: $first)" ;;
esac
on $HEAD 'cat /etc/docker/registry/provision-docker.io.yml' >"$W/reg.yml" 2>&1
grep -qx "  remoteurl: http://127.0.0.1:$UP" "$W/reg.yml" && grep -qx '  addr: 127.0.10.41:5150' "$W/reg.yml" &&
	ok "the head runs docker-registry as a cache of the upstream on 127.0.10.41:5150" ||
	{ not_ok "the head's docker-registry config"; show_end "$W/reg.yml"; }

hosts_ok() {	# every node's containerd mirrors docker.io through the cache
	on "$1" 'cat /etc/containerd/certs.d/docker.io/hosts.toml; grep config_path /etc/containerd/config.toml' >"$W/hosts.$1" 2>&1
	grep -qF '[host."http://127.0.10.41:5150"]' "$W/hosts.$1" &&
		grep -qF 'config_path = "/etc/containerd/certs.d"' "$W/hosts.$1"
}
hosts_ok $HEAD && hosts_ok $W1 && hosts_ok $W2 &&
	ok "every node's containerd names the cache in certs.d/docker.io/hosts.toml" ||
	{ not_ok "every node's containerd names the cache"; show_end "$W/hosts.$W1"; }

pull() {	# pull ADDR: the image through the node's registry hosts
	on "$1" "ctr -n k8s.io images pull --hosts-dir /etc/containerd/certs.d $REF" >"$W/pull.$1" 2>&1
}
pulled() {	# pulled ADDR: the upstream's digest, content complete
	on "$1" "ctr -n k8s.io images ls" >"$W/ls.$1" 2>&1 || return 1
	awk -v r="$REF" -v d="$INDEX" '$1 == r && $3 == d { f = 1 } END { exit !f }' "$W/ls.$1" || return 1
	on "$1" "ctr -n k8s.io images check" | awk -v r="$REF" '$1 == r && /complete/ { f = 1 } END { exit !f }'
}
# The upstream's log: "METHOD PATH RANGE AUTH STATUS".  The blobs of the
# linux/amd64 image (config, two layers), each with the count of its GETs.
blob_gets() {
	for b in "$(d amd64 config)" "$(d amd64 layers 0)" "$(d amd64 layers 1)"; do
		echo "$b $(grep -c "^GET /v2/library/busybox/blobs/$b - token 200\$" "$W/reg.log")"
	done
}
settled() {	# the cache's own copies done: the counts stop moving
	blob_gets >"$W/gets.a"
	sleep 2
	blob_gets >"$W/gets.b"
	cmp -s "$W/gets.a" "$W/gets.b"
}
wait_settled() {
	for _ in 1 2 3 4 5 6 7 8 9 10; do settled && return 0; done
	return 1
}
for a in $W1 $W2 $HEAD; do
	if pull "$a" && pulled "$a"; then
		ok "$a pulls $REF through the cache: digest $INDEX, content complete"
	else
		not_ok "$a pulls $REF through the cache"; show_end "$W/pull.$a"; show_end "$W/ls.$a" 5
	fi
	wait_settled
	cp "$W/gets.b" "$W/gets.$a"
done
# Distribution's proxy (2.8) fetches a blob it lacks twice: once to serve
# the node that asked, once to store it; from then on the cache serves it.
if awk '$2 < 1 || $2 > 2 { bad = 1 } END { exit bad }' "$W/gets.$W1"; then
	ok "the first node's pull fetched each blob from upstream (once or twice: served and stored)"
else
	not_ok "the first node's pull fetched each blob from upstream once or twice"; sed 's/^/# /' "$W/gets.$W1"
fi
if cmp -s "$W/gets.$W1" "$W/gets.$HEAD"; then
	ok "the second and third nodes' pulls fetched no blob from upstream: the cache served them"
else
	not_ok "the other nodes' pulls fetched no blob from upstream"; sed 's/^/# /' "$W/gets.$W1" "$W/gets.$HEAD"
fi

"$PROVISION" apply --plain --state-dir "$W/s1" "$PLAN" >"$W/apply2.txt" 2>&1
rc=$?
[ $rc -eq 0 ] && grep -q ' 0 changed, ' "$W/apply2.txt" &&
	ok "second apply: 0 changed" || { not_ok "second apply: 0 changed (exit $rc)"; grep -E 'changed|failed' "$W/apply2.txt" | sed 's/^/# /' | head; }

# The plan drops the images: the cache stops, its configuration goes, and
# the nodes' containerd no longer names it.
sed '/^    image_port:/,$d' "$PLAN" >"$W/noimages.yaml"
"$PROVISION" apply --plain --state-dir "$W/s2" "$W/noimages.yaml" >"$W/apply3.txt" 2>&1
rc=$?
[ $rc -eq 0 ] && grep -q 'ri-head *relay *changed' "$W/apply3.txt" &&
	on $HEAD 'test ! -e /etc/docker/registry/provision-docker.io.yml && test ! -e /run/provision/registry-cache-docker.io.pid' &&
	on $W1 'test ! -e /etc/containerd/certs.d/docker.io/hosts.toml' &&
	ok "without images in the plan: the cache stopped, its config and the nodes' hosts.toml gone" ||
	{ not_ok "without images: the cache stopped and its files gone (exit $rc)"; show_end "$W/apply3.txt"; }

done_testing

#!/bin/sh
# t053-bundle-images: `provision bundle` pulls the container images the plan
# needs (the DCGM exporter's) from a registry on 127.0.0.1 (oci_registry.py:
# a multi-arch index, a Bearer token from its own /token endpoint), named
# by --registry-mirror nvcr.io=http://127.0.0.1:PORT.  Checks: the token
# dance, only linux/amd64's blobs are fetched, the archive holds a valid
# OCI image layout under images/ that --verify covers, a corrupt blob is
# refused and never packed, a cut blob resumes with a Range request (in
# the run and in the next one), an image the registry lacks fails the run
# unless --allow-missing, and --no-images skips them.
#
#   sh tests/e2e/t053-bundle-images.sh
#
# Needs apt-get, dpkg-deb, dpkg-scanpackages (dpkg-dev), python3, zstd;
# skopeo, when installed, reads the layout too.

. "$(dirname "$0")/lib.sh"
set -u

for t in apt-get apt-cache dpkg-deb dpkg-scanpackages python3 zstd; do
	command -v "$t" >/dev/null 2>&1 || skip_all "$t is not installed"
done

W=$(mktemp -d /tmp/t053-bundle-images.XXXXXX) || exit 1
HTTPD_PID=
REG_PID=
cleanup() {
	[ -n "$HTTPD_PID" ] && kill "$HTTPD_PID" 2>/dev/null
	[ -n "$REG_PID" ] && kill "$REG_PID" 2>/dev/null
	rm -rf "$W"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
out=$W/out
err=$W/err

# ------------------------------------------------------------ packages

REPO=$W/repo
mkdir -p "$REPO" "$W/src"
mkdeb ca-certificates 20230311 "" 0 all
mkdeb curl 7.88.1-10 ""
mkdeb chrony 4.3-2 ""
mkdeb prometheus-node-exporter 1.5.0-1 ""
(cd "$REPO" && dpkg-scanpackages -m . /dev/null >Packages 2>/dev/null)
python3 "$TOP/tests/e2e/bundle_httpd.py" "$REPO" --port-file "$W/hport" &
HTTPD_PID=$!
SRC="deb [trusted=yes] http://127.0.0.1:$(wait_port "$W/hport")/ ./"

# ------------------------------------------------------------ the registry

IMAGE=nvcr.io/nvidia/k8s/dcgm-exporter:3.3.5-3.4.1-ubuntu22.04
start_registry() {	# start_registry [oci_registry.py options]
	[ -n "$REG_PID" ] && kill "$REG_PID" 2>/dev/null && wait "$REG_PID" 2>/dev/null
	rm -f "$W/rport" "$W/reg.log"
	python3 "$TOP/tests/e2e/oci_registry.py" "$W/reg" --port-file "$W/rport" \
		--log "$W/reg.log" --image nvidia/k8s/dcgm-exporter:3.3.5-3.4.1-ubuntu22.04 "$@" &
	REG_PID=$!
	MIRROR="nvcr.io=http://127.0.0.1:$(wait_port "$W/rport")"
}
d() {	# d KEY...: a digest from the registry's description
	reg_digest "$W/reg/images.json" nvidia/k8s/dcgm-exporter:3.3.5-3.4.1-ubuntu22.04 "$@"
}

cat >"$W/plan.yaml" <<EOF
version: 1
cluster: { name: imgs, domain: imgs.example }
networks: { m: { cidr: 192.0.2.0/24, kind: ethernet, gbps: 1 } }
nodes:
  - { name: n1, role: worker, address: 192.0.2.11 }
software:
  os: { distro: debian, release: "12" }
  monitoring: { dcgm_exporter: true }
EOF
P=$W/plan.yaml
bundle() {	# bundle OUT [options]
	o=$1
	shift
	"$PROVISION" bundle "$P" -o "$o" --cache "$W/cache" --source "$SRC" \
		--templates "$W/none" "$@"
}

start_registry
LAYER0=$(d amd64 layers 0)
LAYER0_HEX=${LAYER0#sha256:}

check "bundle pulls the plan's image from the registry" run bundle "$W/b1.tar.zst" --registry-mirror "$MIRROR"
check "  ... and says so" grep -q "^image    $IMAGE $(d amd64 manifest) (linux/amd64)" "$out"
check "  ... 4 packages and 1 image" grep -q "4 packages and 1 image (7 files fetched, 0 from the cache)" "$out"
check "  ... after a 401, with a token from the realm" sh -c "
	grep -q '^GET /v2/nvidia/k8s/dcgm-exporter/manifests/3.3.5-3.4.1-ubuntu22.04 - - 401\$' '$W/reg.log' &&
	grep -q '^GET /token?service=test-registry&scope=repository%3Anvidia%2Fk8s%2Fdcgm-exporter%3Apull - - 200\$' '$W/reg.log' &&
	grep -q '^GET /v2/nvidia/k8s/dcgm-exporter/manifests/3.3.5-3.4.1-ubuntu22.04 - token 200\$' '$W/reg.log'"
check "  ... the amd64 manifest out of the index" grep -q "^GET /v2/nvidia/k8s/dcgm-exporter/manifests/$(d amd64 manifest) - token 200\$" "$W/reg.log"
check "  ... its config and both layers, with the token" sh -c "
	grep -q '^GET /v2/nvidia/k8s/dcgm-exporter/blobs/$(d amd64 config) - token 200\$' '$W/reg.log' &&
	grep -q '^GET /v2/nvidia/k8s/dcgm-exporter/blobs/$(d amd64 layers 0) - token 200\$' '$W/reg.log' &&
	grep -q '^GET /v2/nvidia/k8s/dcgm-exporter/blobs/$(d amd64 layers 1) - token 200\$' '$W/reg.log'"
check "  ... and nothing of arm64" sh -c "! grep -q -e '$(d arm64 manifest)' -e '$(d arm64 config)' -e '$(d arm64 layers 0)' '$W/reg.log'"
check "--verify accepts it" run "$PROVISION" bundle --verify "$W/b1.tar.zst" --insecure-unsigned
check "  ... counting the image's members" grep -q "b1.tar.zst: 14 files, 4 packages: ok" "$out"

mkdir -p "$W/x1"
zstd -dc "$W/b1.tar.zst" | tar -xf - -C "$W/x1"
layout_ok() {	# an OCI image layout whose every blob is there with its digest
	python3 - "$W/x1" "$IMAGE" "$(d amd64 manifest)" <<'EOF'
import hashlib, json, os, sys
root, ref, want = sys.argv[1], sys.argv[2], sys.argv[3]
img = os.path.join(root, "images")
assert json.load(open(os.path.join(img, "oci-layout"))) == {"imageLayoutVersion": "1.0.0"}
def blob(d):
    assert d.startswith("sha256:"), d
    data = open(os.path.join(img, "blobs", "sha256", d[7:]), "rb").read()
    assert hashlib.sha256(data).hexdigest() == d[7:], d
    return data
idx = json.load(open(os.path.join(img, "index.json")))
assert idx["schemaVersion"] == 2 and len(idx["manifests"]) == 1, idx
e = idx["manifests"][0]
assert e["annotations"]["org.opencontainers.image.ref.name"] == ref, e
assert e["digest"] == want and e["platform"] == {"architecture": "amd64", "os": "linux"}, e
data = blob(e["digest"])
assert len(data) == e["size"]
man = json.loads(data)
refd = [man["config"]] + man["layers"]
for r in refd:
    assert len(blob(r["digest"])) == r["size"], r
have = set(os.listdir(os.path.join(img, "blobs", "sha256")))
assert have == {x["digest"][7:] for x in refd + [e]}, have
m = json.load(open(os.path.join(root, "manifest.json")))
files = {f["path"]: f for f in m["files"]}
for h in have:
    f = files["images/blobs/sha256/" + h]
    assert f["sha256"] == h, f
for p in ("images/index.json", "images/oci-layout"):
    assert p in files, p
assert m["images"][0]["ref"] == ref and m["images"][0]["digest"] == want, m["images"]
assert m["images_not_fetched"] == [], m["images_not_fetched"]
EOF
}
check "  ... images/ is an OCI layout: index.json names the image, every blob there with its digest, all in the manifest" layout_ok
if command -v skopeo >/dev/null 2>&1; then
	check "  ... skopeo reads it" run skopeo inspect --raw "oci:$W/x1/images:$IMAGE"
	check "  ... skopeo copies it whole (every layer checked)" run skopeo copy -q \
		"oci:$W/x1/images:$IMAGE" "dir:$W/skopeo-dir"
else
	echo "# skopeo not installed: the layout is checked by the script above only"
fi

check "a second run takes the blobs from the cache" run bundle "$W/b2.tar.zst" --registry-mirror "$MIRROR"
check "  ... all of them" grep -q "(0 files fetched, 7 from the cache)" "$out"

# ------------------------------------------------------------ a corrupt blob

rm -rf "$W/cache"
start_registry --corrupt amd64-layer0
expect_code 1 "a blob whose SHA-256 differs from its digest is refused" run bundle "$W/b3.tar.zst" --registry-mirror "$MIRROR"
check "  ... naming the image and the digest" grep -q "image '$IMAGE': blob $LAYER0: checksum mismatch: SHA-256 [0-9a-f]*, the index says $LAYER0_HEX: deleted, not packed" "$err"
check "  ... no archive" sh -c "! ls '$W'/b3.tar.zst* >/dev/null 2>&1"
check "  ... not in the cache, not even partly" sh -c \
	"test ! -e '$W/cache/pool/sha256-$LAYER0_HEX' && test ! -e '$W/cache/partial/sha256-$LAYER0_HEX'"

# ------------------------------------------------------------ cut transfers

rm -rf "$W/cache"
start_registry --cut amd64-layer0:100000:1
check "a blob cut mid-transfer is resumed in the same run" run bundle "$W/b4.tar.zst" --registry-mirror "$MIRROR"
check "  ... it said so" grep -q "^resuming $IMAGE blob $LAYER0" "$out"
check "  ... with a Range request from where it broke" \
	grep -q "^GET /v2/nvidia/k8s/dcgm-exporter/blobs/$LAYER0 bytes=100000- token 206\$" "$W/reg.log"
check "  ... and the bundle verifies" run "$PROVISION" bundle --verify "$W/b4.tar.zst" --insecure-unsigned

rm -rf "$W/cache"
start_registry --cut amd64-layer0:150000:1
expect_code 1 "with --retries 0 the cut blob fails the run" run bundle "$W/b5.tar.zst" --registry-mirror "$MIRROR" --retries 0
check "  ... naming the image and the digest" grep -q "image '$IMAGE': blob $LAYER0: transfer closed" "$err"
check "  ... the part stays in cache/partial" test "$(wc -c <"$W/cache/partial/sha256-$LAYER0_HEX")" -eq 150000
check "the next run resumes it" run bundle "$W/b5.tar.zst" --registry-mirror "$MIRROR"
check "  ... from byte 150000" grep -q "^GET /v2/nvidia/k8s/dcgm-exporter/blobs/$LAYER0 bytes=150000- token 206\$" "$W/reg.log"
check "  ... fetching only that blob" grep -q "(1 files fetched, 6 from the cache)" "$out"
check "  ... and it is whole" cmp "$W/cache/pool/sha256-$LAYER0_HEX" "$W/reg/blobs/$LAYER0_HEX"

# ------------------------------------------------------------ missing images

rm -rf "$W/reg2"
[ -n "$REG_PID" ] && kill "$REG_PID" 2>/dev/null && wait "$REG_PID" 2>/dev/null
rm -f "$W/rport"
python3 "$TOP/tests/e2e/oci_registry.py" "$W/reg2" --port-file "$W/rport" --image other/thing:1 &
REG_PID=$!
MIRROR2="nvcr.io=http://127.0.0.1:$(wait_port "$W/rport")"
expect_code 1 "an image the registry does not have fails the run" run bundle "$W/b6.tar.zst" --registry-mirror "$MIRROR2"
check "  ... naming it" grep -q "image '$IMAGE': GET http://127.0.0.1:[0-9]*/v2/nvidia/k8s/dcgm-exporter/manifests/3.3.5-3.4.1-ubuntu22.04: HTTP 404" "$err"
check "  ... and what to do" grep -q "1 image could not be fetched: $IMAGE (--allow-missing" "$err"
check "  ... no archive" test ! -e "$W/b6.tar.zst"
check "--allow-missing bundles the rest" run bundle "$W/b7.tar.zst" --registry-mirror "$MIRROR2" --allow-missing
check "  ... with a warning" grep -q "warning: image '$IMAGE': .*HTTP 404: not bundled" "$err"
check "  ... said once" test "$(grep -c 'warning: .*not bundled' "$err")" = 1
manifest_images() {	# manifest_images ARCHIVE NOT-FETCHED-COUNT HAS-IMAGES-DIR
	zstd -dc "$1" | tar -tf - >"$W/list" || return 1
	if [ "$3" = no ] && grep -q '^images/' "$W/list"; then return 1; fi
	zstd -dc "$1" | tar -xOf - manifest.json | python3 -c '
import json, sys
m = json.load(sys.stdin)
assert m["images_not_fetched"] == ["'"$IMAGE"'"] and m["images"] == [], m' || return 1
}
check "  ... listed under images_not_fetched, no images/" manifest_images "$W/b7.tar.zst" 1 no
check "  ... and --verify passes" run "$PROVISION" bundle --verify "$W/b7.tar.zst" --insecure-unsigned

: >"$W/reg.log"
start_registry
check "--no-images skips them" run bundle "$W/b8.tar.zst" --registry-mirror "$MIRROR" --no-images
check "  ... asking the registry nothing" test ! -s "$W/reg.log"
check "  ... listed under images_not_fetched, no images/" manifest_images "$W/b8.tar.zst" 1 no

check "--manifest-only lists the image as not fetched" run "$PROVISION" bundle "$P" --manifest-only \
	--cache "$W/cache" --source "$SRC"
check "  ... without asking the registry" test ! -s "$W/reg.log"

expect_code 1 "a mirror that is no URL is refused" run bundle "$W/b9.tar.zst" --registry-mirror "nvcr.io=127.0.0.1:1"
check "  ... saying so" grep -q "registry mirror 'nvcr.io=127.0.0.1:1': the URL must start with http:// or https://" "$err"

done_testing

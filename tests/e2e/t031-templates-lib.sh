#!/bin/sh
# t031-templates-lib: the helpers of templates/lib.sh under dash, on this
# machine, in a scratch folder: results and exit statuses of prov_run_step,
# file_put / block_put (exact, atomic, idempotent), the NVIDIA device test
# on a fake sysfs tree, svc_start / svc_running / svc_stop without systemd
# (a real daemon, restarted when its files change), http_get through perl.
#
#   sh tests/e2e/t031-templates-lib.sh
#
# Needs dash and perl (exit 77 without them).  No root, no network beyond
# 127.0.0.1.
# SAN=1: not run: lib.sh under dash: no provision code runs

# Most test bodies are dash code in single quotes, expanded there.
# shellcheck disable=SC2016

set -u

top=$(cd "$(dirname "$0")/../.." && pwd)
lib=$top/templates/lib.sh

for c in dash perl; do
	if ! command -v "$c" >/dev/null 2>&1; then
		echo "# skip: t031 needs $c"
		echo "0 passed, 0 failed, 1 skipped"
		exit 77
	fi
done

work=$(mktemp -d /tmp/t031.XXXXXX) || exit 1
cleanup() {
	# the test daemon, if a check failed before stopping it
	if [ -f "$work/run/t031d.pid" ]; then
		read -r pid _ <"$work/run/t031d.pid" && kill "$pid" 2>/dev/null
	fi
	if [ -n "${http_pid:-}" ]; then
		kill "$http_pid" 2>/dev/null
	fi
	rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

num=0
passed=0
failed=0

ok() {
	num=$((num + 1))
	passed=$((passed + 1))
	echo "ok $num - $1"
}

not_ok() {
	num=$((num + 1))
	failed=$((failed + 1))
	echo "not ok $num - $1"
	if [ -s "$work/out" ]; then
		sed 's/^/#   /' "$work/out" | head -n 30
	fi
}

check() {
	desc=$1
	shift
	if "$@" >"$work/out" 2>&1; then ok "$desc"; else not_ok "$desc"; fi
}

me=$(id -un):$(id -gn)

# shellcheck disable=SC2016
# lsh BODY: run BODY under dash after lib.sh, with its folders in $work.
lsh() {
	{
		echo "PROV_STEP=t031 PROV_SECRET_DIR=''"
		cat "$lib"
		echo "PROV_RUN_DIR=$work/run PROV_LOG_DIR=$work/log PROV_STATE_DIR=$work/state"
		echo "PROV_PCI_DIR=$work/pci W=$work ME=$me"
		echo "prov_os_detect"
		printf '%s\n' "$1"
	} >"$work/script.sh"
	dash "$work/script.sh"
}

# step CHECK APPLY [SECRET_DIR]: a rendered step; prints the exit status.
step() {
	{
		echo "PROV_STEP=t031 OS_DISTRO='' OS_RELEASE='' PROV_SECRET_DIR='${3:-}'"
		cat "$lib"
		printf 'step_check() { %s\n}\n' "$1"
		printf 'step_apply() { %s\n}\n' "$2"
		echo "prov_run_step"
	} >"$work/step.sh"
	# the script on stdin too, as with `ssh NODE sh -s`
	cp "$work/step.sh" "$work/step.in"
	dash "$work/step.sh" <"$work/step.in"
	echo "exit $?"
}

expect_step() {
	want=$1
	shift
	got=$(step "$@" 2>&1)
	echo "$got"
	[ "$(echo "$got" | tail -n 1)" = "exit $want" ]
}

# ------------------------------------------------------------------ the OS

# os-release as distributions write it: quoted and bare values, ID_LIKE, a
# key twice (the first counts), no newline at the end.
printf '%s\n' 'NAME="Rocky Linux"' 'ID="rocky"' 'ID_LIKE="rhel centos fedora"' \
    "VERSION_ID='9.4'" 'ID=other' >"$work/os-rocky"
printf 'ID=ubuntu\nID_LIKE=debian\nVERSION_ID="22.04"\nVERSION_CODENAME=jammy' \
    >"$work/os-ubuntu"
os_of() {
	lsh "PROV_OS_RELEASE=$work/$1"'
	prov_os_detect
	echo "$PROV_OS_ID|$PROV_OS_VERSION|$PROV_OS_MAJOR|$PROV_OS_CODENAME|$PROV_OS_FAMILY"'
}
expect_os() {
	got=$(os_of "$1" 2>&1)
	echo "$got"
	[ "$got" = "$2" ]
}
check "os-release: quoted values, ID_LIKE, the first key wins" \
    expect_os os-rocky 'rocky|9.4|9||rhel'
check "os-release: bare values, no final newline" \
    expect_os os-ubuntu 'ubuntu|22.04|22|jammy|debian'
check "os-release: missing means an unknown OS" \
    expect_os os-none '||||unknown'
# shellcheck disable=SC1091
check "this machine's own os-release is read" \
    expect_os ../../etc/os-release "$(. /etc/os-release && echo "$ID|$VERSION_ID|${VERSION_ID%%.*}|${VERSION_CODENAME:-}|debian")"

# ------------------------------------------------------------------ packages

# A dpkg database of our own: pkg_installed answers from a listing of it,
# and the listing follows every change to the database.
mkdir -p "$work/dpkg/updates" "$work/dpkg/info"
status_of() {
	printf 'Package: %s\nStatus: %s\nArchitecture: all\nVersion: 1\nMaintainer: t\nDescription: t\n\n' "$1" "$2"
}
{ status_of alpha "install ok installed"; status_of beta "deinstall ok config-files"; } \
    >"$work/dpkg/status"
pkgs() {
	lsh "PROV_DPKG_DIR=$work/dpkg"'
	PROV_OS_FAMILY=debian
	for p in alpha beta gamma; do
		if pkg_installed "$p"; then printf "%s=yes " "$p"; else printf "%s=no " "$p"; fi
	done'
}
expect_pkgs() {
	got=$(pkgs 2>&1)
	echo "$got"
	[ "$got" = "$1" ]
}
check "pkg_installed: installed, config-files only, unknown" \
    expect_pkgs "alpha=yes beta=no gamma=no "
check "pkg_installed: the listing was made, newer than the database" \
    sh -c "grep -qx 'PROV_PKGS=\" alpha \"' '$work/run/dpkg-installed' &&
	[ '$work/run/dpkg-installed' -nt '$work/dpkg/status' ]"
# while it is newer than the database, the listing answers alone
cp "$work/run/dpkg-installed" "$work/listing.saved"
printf 'PROV_PKGS=" beta "\n' >"$work/run/dpkg-installed"
check "pkg_installed: a listing newer than the database is what answers" \
    expect_pkgs "alpha=no beta=yes gamma=no "
cp -p "$work/listing.saved" "$work/run/dpkg-installed"
# dpkg replaces the file (a new inode, a new ctime), in the same second
{ status_of alpha "deinstall ok config-files"; status_of gamma "install ok installed"; } \
    >"$work/dpkg/status.new" && mv "$work/dpkg/status.new" "$work/dpkg/status"
check "pkg_installed: a changed database is listed again" \
    expect_pkgs "alpha=no beta=no gamma=yes "
# an operation under way, journalled in updates/
status_of beta "install ok installed" >"$work/dpkg/updates/0001"
check "pkg_installed: the journal counts (dpkg-query merges it)" \
    expect_pkgs "alpha=no beta=yes gamma=yes "
# a listing older than the database (made before a change) is never used
printf 'PROV_PKGS=" alpha "\n' >"$work/run/dpkg-installed"
touch -d '2000-01-01' "$work/run/dpkg-installed"
check "pkg_installed: a listing older than the database is never used" \
    expect_pkgs "alpha=no beta=yes gamma=yes "
# dpkg's checkpoint: the journal merged into the status file, then gone;
# with no journal the listing is awk's reading of the status file
{ status_of alpha "deinstall ok config-files"; status_of gamma "install ok installed"
  status_of beta "install ok installed"; status_of "bad'name" "install ok installed"; } \
    >"$work/dpkg/status.new" && mv "$work/dpkg/status.new" "$work/dpkg/status"
rm -f "$work/dpkg/updates/0001"
rm -f "$work/run/dpkg-installed"
pkgs >/dev/null 2>&1
check "pkg_installed: listed anew from the status file, odd names left out, no temporary left" \
    sh -c "grep -qx 'PROV_PKGS=\" gamma beta \"' '$work/run/dpkg-installed' &&
	[ -z \"\$(find '$work/run' -name 'dpkg-installed.[0-9]*')\" ]"
# nowhere to keep a listing: dpkg-query is asked directly (it refuses a
# database with a name dpkg forbids, so that one goes first)
{ status_of alpha "deinstall ok config-files"; status_of gamma "install ok installed"
  status_of beta "install ok installed"; } >"$work/dpkg/status"
: >"$work/not-a-dir"
pkgs_norun() {
	lsh "PROV_DPKG_DIR=$work/dpkg PROV_RUN_DIR=$work/not-a-dir"'
	PROV_OS_FAMILY=debian
	for p in alpha beta gamma; do
		if pkg_installed "$p"; then printf "%s=yes " "$p"; else printf "%s=no " "$p"; fi
	done' 2>/dev/null
}
check "pkg_installed: without a listing, dpkg-query answers the same" \
    sh -c "[ \"\$1\" = 'alpha=no beta=yes gamma=yes ' ]" - "$(pkgs_norun)"

# ------------------------------------------------------------------ results

check "a step already done is ok (0)" expect_step 0 'true' 'false'
check "a step that does its work is changed (100)" expect_step 100 \
	"[ -f $work/done ]" "touch $work/done; prov_changed"
rm -f "$work/done"
check "apply that changed nothing, then a passing check, is ok (0)" expect_step 0 \
	"[ -f $work/flag ] || { touch $work/flag; false; }" 'true'
skip_out() {
	got=$(step 'prov_skip "no NVIDIA device"' 'true' 2>/dev/null)
	echo "$got"
	[ "$got" = "skipped: no NVIDIA device
exit 101" ]
}
check "prov_skip prints 'skipped: REASON' on stdout and exits 101" skip_out
check "a failing command in apply fails the step (1)" expect_step 1 'false' 'false; touch /nonexistent/x'
check "apt-get's exit status 100 in apply is failed, not changed" expect_step 1 \
	'false' "sh -c 'exit 100'"
check "a stray 'exit 0' in apply is failed, not ok" expect_step 1 'false' 'exit 0'
check "a check still failing after apply is failed" expect_step 1 'false' 'prov_changed'
check "prov_fail is failed (1)" expect_step 1 'prov_fail "broken"' 'true'
check "apply cannot read the rest of the script from stdin" expect_step 1 \
	'false' "cat >$work/stdin; [ ! -s $work/stdin ] && prov_changed && false"
secret_gone() {
	mkdir -p "$work/secret" && echo key >"$work/secret/munge.key" || return 1
	expect_step 0 'true' 'true' "$work/secret" || return 1
	[ ! -e "$work/secret" ] || { echo "secret dir left"; return 1; }
	mkdir -p "$work/secret2" && echo key >"$work/secret2/munge.key" || return 1
	expect_step 1 'false' 'false' "$work/secret2" || return 1
	[ ! -e "$work/secret2" ] || { echo "secret dir left after a failure"; return 1; }
}
check "PROV_SECRET_DIR is removed at the end, also after a failure" secret_gone

# ------------------------------------------------------------------ files

file_put_cases() {
	lsh '
		f=$W/etc/a.conf
		file_put "$f" 0640 "$ME" "line one
line two"
		[ "$PROV_FILE_CHANGED" = 1 ] || { echo "first write not recorded"; exit 1; }
		[ "$(stat -c %a "$f")" = 640 ] || { echo "mode $(stat -c %a "$f")"; exit 1; }
		[ "$(tail -c 1 "$f" | od -An -c | tr -d " ")" = "\n" ] || { echo "no final newline"; exit 1; }
		ino=$(stat -c %i "$f")
		file_put "$f" 0640 "$ME" "line one
line two"
		[ "$PROV_FILE_CHANGED" = 0 ] || { echo "same content rewritten"; exit 1; }
		[ "$(stat -c %i "$f")" = "$ino" ] || { echo "same content replaced the file"; exit 1; }
		file_same "$f" 0640 "$ME" "line one
line two" || exit 1
		file_same "$f" 0644 "$ME" "line one
line two" && { echo "mode difference not seen"; exit 1; }
		file_put "$f" 0644 "$ME" "line one
line two"
		[ "$PROV_FILE_CHANGED" = 1 ] && [ "$(stat -c %a "$f")" = 644 ] || { echo "mode not fixed"; exit 1; }
		file_put "$f" 0644 "$ME" "new"
		[ "$(cat "$f")" = new ] || exit 1
		[ -z "$(ls -A "$W/etc" | grep -v "^a.conf$")" ] || { echo "temporary files left: $(ls -A "$W/etc")"; exit 1; }
		file_put "$W/etc/empty" 0644 "$ME" ""
		[ -f "$W/etc/empty" ] && [ ! -s "$W/etc/empty" ] || { echo "empty content"; exit 1; }
		file_put "$W/etc/two" 0644 "$ME" "x
"
		[ "$(wc -c <"$W/etc/two")" -eq 2 ] || { echo "content ending in a newline got another"; exit 1; }
		[ "$PROV_CHANGED" = 1 ] || exit 1
		echo fine'
}
check "file_put writes exactly, atomically, once; fixes the mode alone" file_put_cases

block_cases() {
	lsh '
		f=$W/hosts
		printf "127.0.0.1 localhost\n\n# BEGIN provision\nold line\n# END provision\n# after\n\n\n" >"$f"
		block_put "$f" "10.0.0.1 a
10.0.0.2 b"
		want=$(printf "127.0.0.1 localhost\n\n# BEGIN provision\n10.0.0.1 a\n10.0.0.2 b\n# END provision\n# after\n\n\nx")
		have=$(cat "$f"; printf x)
		[ "$have" = "$want" ] || { echo "got:"; cat -A "$f"; exit 1; }
		block_put "$f" "10.0.0.1 a
10.0.0.2 b"
		[ "$PROV_FILE_CHANGED" = 0 ] || { echo "second block_put rewrote"; exit 1; }
		block_same "$f" "10.0.0.1 a
10.0.0.2 b" || exit 1
		block_same "$f" "10.0.0.1 a" && { echo "a changed block not seen"; exit 1; }
		block_put "$W/new" "x y"
		[ "$(cat "$W/new")" = "# BEGIN provision
x y
# END provision" ] || { cat -A "$W/new"; exit 1; }
		block_put "$W/new" "x y"
		[ "$PROV_FILE_CHANGED" = 0 ] || exit 1
		echo fine'
}
check "block_put replaces the managed block in place and is idempotent" block_cases

# base.sh: no line outside the provision block may name a node (Debian's
# installer, cloud images and Vagrant leave "127.0.1.1 NAME" above it, and
# getent answers with the first line that has the name).
hosts_cases() {
	lsh '
		. "$W/base.sh"
		HOSTS_BLOCK="10.0.0.1 a.c.internal a
10.0.0.2 b.c.internal b"
		f=$W/hosts2
		printf "127.0.0.1\tlocalhost\n127.0.1.1\ta.c.internal a\n127.0.0.1 localhost b   # b too\n::1 ip6-localhost\n10.9.9.9 other  a\n# a comment names a\n# BEGIN provision\n10.0.0.1 a.c.internal a\n# END provision\n" >"$f"
		want=$(printf "127.0.0.1\tlocalhost\n127.0.0.1\tlocalhost # b too\n::1 ip6-localhost\n10.9.9.9\tother\n# a comment names a\n# BEGIN provision\n10.0.0.1 a.c.internal a\n# END provision\nx")
		have=$(base_hosts_strip "$f"; printf x)
		[ "$have" = "$want" ] || { echo "got:"; base_hosts_strip "$f" | cat -A; exit 1; }
		printf "127.0.0.1 localhost\n" >"$f"
		[ "$(base_hosts_strip "$f")" = "127.0.0.1 localhost" ] || { echo "a clean file changed"; exit 1; }
		echo fine'
}
cp "$top/templates/base.sh" "$work/base.sh"
check "base: no line outside the block names a node (127.0.1.1 NAME goes)" hosts_cases

# ------------------------------------------------------------------ GPUs

fake_dev() {
	mkdir -p "$work/pci/$1"
	echo "$2" >"$work/pci/$1/vendor"
	echo "$3" >"$work/pci/$1/class"
}
gpu_cases() {
	rm -rf "$work/pci"
	fake_dev 0000:00:02.0 0x8086 0x030000	# Intel VGA
	fake_dev 0000:3b:00.1 0x10de 0x040300	# NVIDIA HDMI audio
	fake_dev 0000:00:1f.0 0x8086 0x060100
	lsh 'if has_nvidia_gpu; then echo "no GPU seen as one"; exit 1; fi' || return 1
	fake_dev 0000:17:00.0 0x10de 0x030200	# NVIDIA 3D controller (A100, H100)
	fake_dev 0000:65:00.0 0x10de 0x030000	# NVIDIA VGA (workstation)
	lsh 'has_nvidia_gpu || exit 1; [ "$(nvidia_gpu_count)" = 2 ] || { nvidia_gpu_count; exit 1; }' || return 1
	rm -rf "$work/pci"
	lsh 'if has_nvidia_gpu; then exit 1; fi; [ "$(nvidia_gpu_count)" = 0 ]'
}
check "has_nvidia_gpu: vendor 0x10de with class 0x0300xx/0x0302xx only" gpu_cases

# gpu-driver's checks against a stand-in nvidia-smi printing what the real
# one prints (driver version, MIG mode, `nvidia-smi mig -lgi` table).
gpu_driver_cases() {
	rm -rf "$work/pci"
	fake_dev 0000:17:00.0 0x10de 0x030200
	fake_dev 0000:65:00.0 0x10de 0x030200
	mkdir -p "$work/bin"
	cat >"$work/bin/nvidia-smi" <<'EOF'
#!/bin/sh
case "$*" in
*driver_version*) printf '550.90.07\n550.90.07\n' ;;
*--query-gpu=index*) printf '0\n1\n' ;;
*mig.mode.current*) echo Enabled ;;
"mig -i 0 -lgi" | "mig -i 1 -lgi")
	cat <<'T'
+-------------------------------------------------------+
| GPU instances:                                        |
| GPU   Name             Profile  Instance   Placement  |
|                          ID       ID       Start:Size |
|=======================================================|
|   0  MIG 3g.40gb          9        2          4:4     |
+-------------------------------------------------------+
|   0  MIG 3g.40gb          9        1          0:4     |
+-------------------------------------------------------+
T
	;;
*) exit 9 ;;
esac
EOF
	chmod +x "$work/bin/nvidia-smi"
	lsh "$(cat "$top/templates/gpu-driver.sh")"'
		PATH=$W/bin:$PATH PROV_PHASE=recheck
		DRIVER_BRANCH=550 DRIVER_VERSION="" CUDA_VERSION="" MIG_PROFILES="3g.40gb 3g.40gb"
		gd_driver_ok || { echo "550.90.07 not of branch 550"; exit 1; }
		DRIVER_VERSION=550.90.07; gd_driver_ok || exit 1
		DRIVER_VERSION=550.54.15; gd_driver_ok && { echo "wrong exact version accepted"; exit 1; }
		DRIVER_VERSION=""; DRIVER_BRANCH=535; gd_driver_ok && { echo "wrong branch accepted"; exit 1; }
		DRIVER_BRANCH=5; gd_driver_ok && { echo "branch 5 matched 550"; exit 1; }
		[ "$(gd_mig_have 0)" = "3g.40gb 3g.40gb " ] || { echo "lgi parsed as [$(gd_mig_have 0)]"; exit 1; }
		gd_mig_ok || exit 1
		MIG_PROFILES="1g.10gb 3g.40gb"; gd_mig_ok && { echo "other layout accepted"; exit 1; }
		MIG_PROFILES=""; gd_mig_ok || exit 1
		CUDA_VERSION=12.4; [ "$(gd_cuda_mm)" = 12-4 ] || exit 1
		CUDA_VERSION=12.4.1; [ "$(gd_cuda_mm)" = 12-4 ] || exit 1
		gd_cuda_ok && { echo "missing nvcc accepted"; exit 1; }
		gd_has_nvswitch && exit 1
		echo fine'
}
check "gpu-driver: driver branch/version and MIG layout read from nvidia-smi" gpu_driver_cases

extras_gpu() {
	rm -rf "$work/pci"
	fake_dev 0000:17:00.0 0x10de 0x030200
	lsh "$(cat "$top/templates/extras.sh")"'
		EXTRAS="python3 pytorch"
		extras_plan
		[ "$EXTRAS_PKGS" = " python3" ] || { echo "pkgs [$EXTRAS_PKGS]"; exit 1; }
		case $EXTRAS_SKIPPED in pytorch:*) ;; *) echo "skipped [$EXTRAS_SKIPPED]"; exit 1 ;; esac
		echo "$EXTRAS_SKIPPED"'
}
check "extras: pytorch on a GPU node is skipped with the reason, never a CPU-only install" extras_gpu
rm -rf "$work/pci"

# ------------------------------------------------------------------ services

# alive PID: a process, not a zombie (this machine's PID 1 may not reap)
alive_fn='alive() { [ -r "/proc/$1/stat" ] && ! sed "s/.*) //" "/proc/$1/stat" | grep -q "^[ZX]"; }'

svc_cases() {
	echo one >"$work/d.conf"
	lsh "$alive_fn"'
		PROV_SYSTEMD=0
		svc_running -f "$W/d.conf" t031d -- sleep 3000 && { echo "running before start"; exit 1; }
		svc_start -f "$W/d.conf" t031d -- sleep 3000
		[ "$PROV_CHANGED" = 1 ] || exit 1
		svc_running -f "$W/d.conf" t031d -- sleep 3000 || { echo "not running after start"; exit 1; }
		pid=$(svc_pid t031d)
		[ "$(cat /proc/$pid/comm)" = sleep ] || { echo "pid file names $(cat /proc/$pid/comm)"; exit 1; }
		[ "$(ps -o sid= -p "$pid" | tr -d " ")" = "$pid" ] || { echo "not in its own session"; exit 1; }
		PROV_CHANGED=0
		svc_start -f "$W/d.conf" t031d -- sleep 3000
		[ "$PROV_CHANGED" = 0 ] && [ "$(svc_pid t031d)" = "$pid" ] || { echo "restarted for nothing"; exit 1; }
		echo "$pid" >"$W/pid1"
		echo fine' || return 1
	echo two >"$work/d.conf"
	lsh "$alive_fn"'
		PROV_SYSTEMD=0
		svc_running -f "$W/d.conf" t031d -- sleep 3000 && { echo "a changed file not seen"; exit 1; }
		svc_running -f "$W/d.conf" t031d -- sleep 3001 && { echo "a changed command not seen"; exit 1; }
		svc_start -f "$W/d.conf" t031d -- sleep 3000
		new=$(svc_pid t031d)
		[ "$new" != "$(cat "$W/pid1")" ] || { echo "not restarted"; exit 1; }
		alive "$(cat "$W/pid1")" && { echo "old daemon still runs"; exit 1; }
		svc_running -f "$W/d.conf" t031d -- sleep 3000 || exit 1
		svc_stop t031d
		svc_running -f "$W/d.conf" t031d -- sleep 3000 && exit 1
		alive "$new" && { echo "svc_stop left it running"; exit 1; }
		echo fine'
}
check "svc_start without systemd: own session, pid file, restart on a changed file, svc_stop" svc_cases

svc_dies() {
	out=$(lsh 'PROV_SYSTEMD=0; svc_start t031x -- sh -c "echo boom >&2; exit 3"' 2>&1)
	rc=$?
	echo "$out"
	[ "$rc" -ne 0 ] && echo "$out" | grep -q boom
}
check "a daemon that dies at once fails svc_start, with the end of its log" svc_dies

# ------------------------------------------------------------------ images

# image_ref: an image of the offline bundle by its ID on docker; on
# containerd, and any image not bundled, by name.
mkdir -p "$work/bundle/images" && : >"$work/bundle/images/.complete"
printf '%s\n' "nvcr.io/x/y:1.0 sha256:$(printf '%064d' 1) sha256:$(printf '%064d' 2)" \
    >"$work/bundle/images/images.list"
image_refs() {
	lsh "PROV_APT_REPO=$work/bundle
	[ \"\$(RUNTIME=docker image_ref nvcr.io/x/y:1.0)\" = sha256:$(printf '%064d' 2) ] || exit 1
	[ \"\$(RUNTIME=containerd image_ref nvcr.io/x/y:1.0)\" = nvcr.io/x/y:1.0 ] || exit 1
	[ \"\$(RUNTIME=docker image_ref other:2)\" = other:2 ] || exit 1
	PROV_APT_REPO=
	[ \"\$(RUNTIME=docker image_ref nvcr.io/x/y:1.0)\" = nvcr.io/x/y:1.0 ]"
}
check "image_ref: a bundled image by its ID on docker, by name otherwise" image_refs

# ------------------------------------------------------------------ secrets

# prov_secret: the value hex-encoded on both streams, only under the engine.
secrets() {
	out=$(lsh 'PROV_REDACT=1; prov_secret "pa ss
word"' 2>&1)
	[ "$(printf '%s' "$out" | tr -d '\n\036')" = "provision secret 70612073730a776f7264provision secret 70612073730a776f7264" ] ||
	    { echo "got: $out"; return 1; }
	out=$(lsh 'prov_secret "password"; prov_secret_file /etc/hostname' 2>&1)
	[ -z "$out" ] || { echo "without the engine: $out"; return 1; }
}
check "prov_secret: hex on both streams under the engine, nothing by hand" secrets

# ------------------------------------------------------------------ http

if command -v python3 >/dev/null 2>&1; then
	mkdir -p "$work/www/-" && echo ready >"$work/www/-/ready"
	port=$((20000 + $$ % 20000))
	(cd "$work/www" && exec python3 -m http.server --bind 127.0.0.1 "$port") >/dev/null 2>&1 &
	http_pid=$!
	http_cases() {
		lsh "prov_wait 10 prov_http_perl http://127.0.0.1:$port/-/ready || exit 1
			[ \"\$(prov_http_perl http://127.0.0.1:$port/-/ready)\" = ready ] || exit 1
			prov_http_perl http://127.0.0.1:$port/missing && { echo '404 taken as success'; exit 1; }
			prov_http_perl http://127.0.0.1:1/ && exit 1
			[ \"\$(http_get http://127.0.0.1:$port/-/ready)\" = ready ]"
	}
	check "http_get (and its perl fallback) reads 2xx bodies, fails on 404 and refusal" http_cases
else
	echo "# python3 missing: http_get not tested"
fi

# Registry mirrors (container-runtime.sh): containerd's certs.d files,
# exact and idempotent, a removed mirror's files gone (not a file of
# someone else's), docker's daemon.json, and a mirror line that is not
# plain refused.
mirror_cases() {
	printf -- '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n' >"$work/ca.pem"
	mkdir -p "$work/certs.d/quay.io"
	echo 'server = "https://quay.io"' >"$work/certs.d/quay.io/hosts.toml"
	lsh '
		. '"$top"'/templates/container-runtime.sh
		CR_CERTS_D=$W/certs.d
		RUNTIME=docker NVIDIA_TOOLKIT=0
		REGISTRY_MIRRORS="docker.io https://m.example:5000 0
nvcr.io http://10.0.0.5:5000 1
"
		REGISTRY_CA_1=$(cat "$W/ca.pem")
		cr_certs_d same 2>/dev/null && { echo "missing files pass"; exit 1; }
		cr_certs_d put || exit 1
		PROV_CHANGED=0
		cr_certs_d same || exit 1
		cr_certs_d put && [ "$PROV_CHANGED" = 0 ] || { echo "not idempotent"; exit 1; }
		want="# Managed by provision (step container-runtime).
server = \"https://registry-1.docker.io\"

[host.\"https://m.example:5000\"]
  capabilities = [\"pull\", \"resolve\"]
  ca = \"$W/certs.d/docker.io/mirror-ca.crt\""
		[ "$(cat "$W/certs.d/docker.io/hosts.toml")" = "$want" ] || { cat "$W/certs.d/docker.io/hosts.toml"; exit 1; }
		cmp -s "$W/certs.d/docker.io/mirror-ca.crt" "$W/ca.pem" || { echo "CA differs"; exit 1; }
		grep -q "^\[host.\"http://10.0.0.5:5000\"\]$" "$W/certs.d/nvcr.io/hosts.toml" || exit 1
		grep -q "skip_verify\|ca =" "$W/certs.d/nvcr.io/hosts.toml" && { echo "http mirror with TLS settings"; exit 1; }
		j=$(cr_docker_json) || exit 1
		printf "%s" "$j" | python3 -c "import json, sys
d = json.load(sys.stdin)
assert d[\"registry-mirrors\"] == [\"https://m.example:5000\", \"http://10.0.0.5:5000\"], d
assert d[\"insecure-registries\"] == [\"10.0.0.5:5000\"], d" || exit 1
		REGISTRY_MIRRORS="docker.io https://m.example:5000 0"
		cr_certs_d same 2>/dev/null && { echo "a removed mirror passes"; exit 1; }
		cr_certs_d put || exit 1
		[ ! -e "$W/certs.d/nvcr.io/hosts.toml" ] || { echo "a removed mirror kept"; exit 1; }
		[ -f "$W/certs.d/quay.io/hosts.toml" ] || { echo "removed a file not ours"; exit 1; }
		REGISTRY_MIRRORS="docker.io https://m.example/\$(id) 0"
		cr_mirrors >/dev/null 2>&1 && { echo "a hostile URL passed"; exit 1; }
		REGISTRY_MIRRORS="docker.io https://m.example 0 x"
		cr_mirrors >/dev/null 2>&1 && { echo "a long line passed"; exit 1; }
		echo fine'
}
if command -v python3 >/dev/null 2>&1; then
	check "container-runtime: registry mirrors in containerd's certs.d and docker's daemon.json" mirror_cases
fi

# prov_fetch against an HTTPS server on loopback (its own CA, given to curl
# as CURL_CA_BUNDLE): a pinned sha256 that matches, one that does not (a
# file changed upstream or on the way), and plain http.
if command -v python3 >/dev/null 2>&1 && command -v openssl >/dev/null 2>&1 &&
	command -v curl >/dev/null 2>&1; then
	mkdir -p "$work/tls/www"
	openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes \
		-keyout "$work/tls/key.pem" -out "$work/tls/cert.pem" -days 1 \
		-subj /CN=127.0.0.1 -addext subjectAltName=IP:127.0.0.1 2>/dev/null
	echo "the vendor's manifest" >"$work/tls/www/manifest.yml"
	good=$(sha256sum <"$work/tls/www/manifest.yml" | cut -d' ' -f1)
	tport=$((20000 + ($$ + 7) % 20000))
	(cd "$work/tls/www" && exec python3 -c '
import http.server, ssl, sys
s = http.server.HTTPServer(("127.0.0.1", int(sys.argv[1])), http.server.SimpleHTTPRequestHandler)
c = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
c.load_cert_chain(sys.argv[2], sys.argv[3])
s.socket = c.wrap_socket(s.socket, server_side=True)
s.serve_forever()' "$tport" "$work/tls/cert.pem" "$work/tls/key.pem") >/dev/null 2>&1 &
	tls_pid=$!
	fetch_cases() {
		CURL_CA_BUNDLE=$work/tls/cert.pem lsh "
			U=https://127.0.0.1:$tport/manifest.yml
			prov_wait 10 curl -fsS --cacert \"\$CURL_CA_BUNDLE\" \"\$U\" || { echo 'no server'; exit 1; }
			prov_fetch \"\$U\" \"\$W/ok\" $good || { echo 'the right sum refused'; exit 1; }
			cmp -s \"\$W/ok\" '$work/tls/www/manifest.yml' || { echo 'wrong content'; exit 1; }
			if prov_fetch \"\$U\" \"\$W/bad\" 0000000000000000000000000000000000000000000000000000000000000000 2>\"\$W/bad.err\"; then
				echo 'a wrong sum accepted'; exit 1
			fi
			[ ! -e \"\$W/bad\" ] || { echo 'a refused file was kept'; exit 1; }
			grep -q 'refusing .*sha256 is $good, not the pinned 0000' \"\$W/bad.err\" || { cat \"\$W/bad.err\"; exit 1; }
			ls \"\$W\" | grep -q provision && { echo 'a temporary file left'; exit 1; }
			if prov_fetch http://127.0.0.1:$port/-/ready \"\$W/plain\" 2>/dev/null; then
				echo 'plain http accepted'; exit 1
			fi
			echo fine"
	}
	check "prov_fetch: a pinned sha256 matches; a mismatch or http:// is refused and leaves nothing" fetch_cases
	kill "$tls_pid" 2>/dev/null
else
	echo "# python3, openssl or curl missing: prov_fetch not tested"
fi

# Slurm's prolog and epilog for the DCGM exporter's job mapping
# (templates/slurm.sh), run as slurmd runs them: by their path, with the
# job's environment.  Jobs 5 (GPUs 0-1) and 6 (GPU 1, a shard beside
# 5's); 5 ends: GPU 0's file goes, GPU 1's keeps 6 alone; 6 ends: none.
jobmap_cases() {
	lsh "TOP='$top'"'
		. "$TOP/templates/slurm.sh"
		DCGM_JOB_MAP_DIR=$W/map
		mkdir -p "$W/map" "$W/etc"
		slurm_jobmap_script >"$W/etc/prolog-dcgm-job-map"
		slurm_jobmap_script >"$W/etc/epilog-dcgm-job-map"
		chmod 0755 "$W/etc/prolog-dcgm-job-map" "$W/etc/epilog-dcgm-job-map"
		set +e
		got() {
			for f in "$W"/map/*; do
				[ -e "$f" ] && printf "%s=%s;" "${f##*/}" "$(tr "\n" , <"$f")"
			done
			echo
		}
		run() { # prolog|epilog ID [GPUS]
			if [ $# -eq 3 ]; then
				env -i SLURM_JOB_ID="$2" SLURM_JOB_GPUS="$3" "$W/etc/$1-dcgm-job-map"
			else
				env -i SLURM_JOB_ID="$2" "$W/etc/$1-dcgm-job-map"
			fi || echo "$1 $2 exited $?"
		}
		run prolog 5 0-1
		run prolog 6 1
		run prolog 7
		run prolog 6 1
		a=$(got)
		run epilog 5 0,1
		b=$(got)
		run epilog 6 1
		run epilog "6;x" 1
		c=$(got)
		echo "$a|$b|$c"
		[ "$a|$b|$c" = "0=5,;1=5,6,;|1=6,;|" ] || exit 1
		[ -z "$(ls -A "$W/map")" ] || { echo "a file left in the folder"; exit 1; }
		! ls "$W" | grep -q "^map\.[0-9]" || { echo "a temporary file left"; exit 1; }'
}
check "slurm prolog/epilog: each GPU's file lists its jobs; a job's end removes its id alone, and an empty file" jobmap_cases

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]

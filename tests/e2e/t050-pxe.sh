#!/bin/sh
# t050-pxe: `provision pxe` renders, for every example plan (copied with a
# MAC per node), the iPXE scripts, answer files and dnsmasq.conf; the
# answer files pass the tools Debian has for them; plan values and the
# SSH key survive quoting exactly; --iso takes kernel and initrd out of
# ISOs built here with xorriso; --serve serves the directory read-only;
# an output folder another user owns or can write is refused.
#
#   sh tests/e2e/t050-pxe.sh
#
# Tools used when installed, each check skipped (with the reason) when not:
# cloud-init (schema), python3-yaml, debconf-set-selections, dnsmasq
# (dnsmasq-base), xorriso, curl.  No network beyond 127.0.0.1.

. "$(dirname "$0")/lib.sh"
set -u

W=$(mktemp -d /tmp/t050-pxe.XXXXXX) || exit 1
SERVER_PID=
cleanup() {
	[ -n "$SERVER_PID" ] && kill "$SERVER_PID" 2>/dev/null
	rm -rf "$W"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
CHECK=$TOP/tests/e2e/pxe_check.py
out=$W/out

skip() {
	echo "# skip: $*"
}

have() {
	command -v "$1" >/dev/null 2>&1
}

# show the last command's output on failure
run() {
	"$@" >"$out" 2>&1
	rc=$?
	[ $rc -ne 0 ] && sed 's/^/#   /' "$out" | head -n 20
	return $rc
}

# A key whose comment has every character the formats care about.
ssh-keygen -q -t ed25519 -N '' -C "prov \"q\" #x: {y} 'z' & \$HOME ;" \
	-f "$W/id" </dev/null >/dev/null 2>&1 || { echo "# ssh-keygen failed"; exit 1; }
KEY=$W/id.pub

# Every @NAME@ was replaced.
no_placeholders() {
	! grep -rEn '@[A-Z][A-Z0-9_]*@' "$1" --include='*.ipxe' \
		--include='*.cfg' --include='user-data' --include='meta-data' \
		--include='dnsmasq.conf'
}

# Run a late command with /target moved into a scratch root; the key
# must come out byte for byte.
late_ok() {
	root=$W/target.$$
	rm -rf "$root"
	mkdir -p "$root/etc/sudoers.d" "$root/root"
	cmd=$(printf '%s' "$1" | sed "s#/target#$root#g")
	case $cmd in *in-target*) return 0 ;; esac	# needs the installed OS
	sh -c "$cmd" || return 1
	if [ -f "$root/root/.ssh/authorized_keys" ]; then
		cmp -s "$root/root/.ssh/authorized_keys" "$KEY" || return 1
	fi
	return 0
}

# ------------------------------------------------------------ examples

for ex in "$TOP"/examples/*.yaml; do
	name=$(basename "$ex" .yaml)
	d=$W/$name
	"$PROVISION" ls --json "$ex" >"$W/$name.ls.json" &&
		python3 "$CHECK" plan-with-macs "$ex" "$W/$name.ls.json" "$W/$name.yaml" ||
		{ not_ok "$name: a copy of the plan with MACs"; continue; }
	n=$(grep -c '"mac"' "$W/$name.yaml")
	check "$name: pxe renders all $n nodes" run "$PROVISION" pxe "$W/$name.yaml" \
		-o "$d" --ssh-key "$KEY" --gateway 10.255.255.254 --dns 10.255.255.53,10.255.255.54
	check "$name: the table says $n rendered" grep -q "$n rendered, 0 skipped, 0 failed" "$out"
	check "$name: one iPXE script per node" test "$(ls "$d/ipxe" | wc -l)" -eq "$n"
	check "$name: no placeholder is left" no_placeholders "$d"
	check "$name: SHA256SUMS matches the files" run sh -c "cd '$d' && sha256sum -c --quiet SHA256SUMS"
	if have dnsmasq; then
		check "$name: dnsmasq --test accepts dnsmasq.conf" run dnsmasq --test --conf-file="$d/dnsmasq.conf"
	else
		skip "$name: dnsmasq is not installed (dnsmasq-base)"
	fi
	check "$name: one dhcp-host per node" test "$(grep -c '^dhcp-host=' "$d/dnsmasq.conf")" -eq "$n"

	distro=$(sed -n 's/^ *os: *{ *distro: *\([a-z]*\).*/\1/p' "$W/$name.yaml")
	# Check every answer file.
	python3 -c 'import json,sys; [print(n["name"], n["address"]) for n in json.load(open(sys.argv[1]))["nodes"]]' \
		"$W/$name.ls.json" >"$W/$name.nodes"
	i=0
	bad=0
	while read -r node addr; do
		mac=$(printf '02:00:5e:%02x:%02x:%02x' $((i >> 16 & 255)) $((i >> 8 & 255)) $((i & 255)))
		dash=$(echo "$mac" | tr : -)
		i=$((i + 1))
		ipxe=$d/ipxe/$dash.ipxe
		head -n 1 "$ipxe" | grep -qx '#!ipxe' || { echo "# $ipxe: no #!ipxe"; bad=1; }
		grep -q "^kernel .*BOOTIF=01-$dash" "$ipxe" || { echo "# $ipxe: no kernel line"; bad=1; }
		if ! grep -q '^initrd ' "$ipxe" || ! grep -qx boot "$ipxe"; then
			echo "# $ipxe: no initrd/boot"
			bad=1
		fi
		case $distro in
		ubuntu)
			ud=$d/answers/$dash/user-data
			if have cloud-init; then
				cloud-init schema --config-file "$ud" >"$out" 2>&1 ||
					{ echo "# cloud-init schema: $ud"; sed 's/^/#   /' "$out"; bad=1; }
			fi
			cidr=$(sed -n 's|^ *- "\([0-9.]*/[0-9]*\)"$|\1|p' "$ud")
			case $cidr in "$addr"/*) ;; *) echo "# $ud: address $cidr"; bad=1 ;; esac
			python3 "$CHECK" user-data "$ud" "$KEY" "$node" "$cidr" "$mac" >"$W/late" 2>"$out"
			rc=$?
			if [ $rc -eq 77 ]; then
				:
			elif [ $rc -ne 0 ]; then
				echo "# $ud:"; sed 's/^/#   /' "$out"; bad=1
			else
				while IFS= read -r c; do
					late_ok "$c" || { echo "# late-command failed: $c"; bad=1; }
				done <"$W/late"
			fi
			grep -q "^local-hostname: \"$node\"\$" "$d/answers/$dash/meta-data" || bad=1
			;;
		debian)
			ps=$d/answers/$dash/preseed.cfg
			if ! debconf-set-selections -c "$ps" >"$out" 2>&1 || [ -s "$out" ]; then
				echo "# debconf-set-selections -c $ps:"; sed 's/^/#   /' "$out"; bad=1
			fi
			grep -qx "d-i netcfg/get_ipaddress string $addr" "$ps" || bad=1
			grep -qx "d-i netcfg/get_hostname string $node" "$ps" || bad=1
			late=$(sed -n 's/^d-i preseed\/late_command string //p' "$ps")
			late_ok "$late" || { echo "# late_command failed: $late"; bad=1; }
			;;
		esac
	done <"$W/$name.nodes"
	check "$name: every $distro answer file is valid and carries the key exactly" test $bad -eq 0
done
have cloud-init || skip "cloud-init is not installed: user-data not schema-checked"
python3 -c 'import yaml' 2>/dev/null || skip "python3-yaml is not installed: user-data not parsed"

# ------------------------------------------------------------ rocky, users

cat >"$W/rocky.yaml" <<EOF
version: 1
cluster: { name: rk, domain: rk.example }
networks: { m: { cidr: 192.0.2.0/24, kind: ethernet, gbps: 1 } }
ssh: { user: deploy, identity: $W/id }
nodes:
  - { name: r1, role: head, address: 192.0.2.10, mac: "02:00:00:00:01:01" }
  - { name: r2, address: 192.0.2.11, mac: "02:00:00:00:01:02" }
  - { name: r3, address: 192.0.2.12 }
  - { name: r4, address: 192.0.2.13, mac: "01:00:5e:00:00:01" }
software: { os: { distro: rocky, release: "9" } }
EOF
expect_code 1 "rocky: a node with a multicast MAC fails (exit 1), the others render" \
	run "$PROVISION" pxe "$W/rocky.yaml" -o "$W/rocky" --dns 192.0.2.53
check "rocky: r3 is skipped with the reason" grep -q "^r3 .*skipped .*no 'mac' in the plan" "$out"
check "rocky: r4 fails naming its MAC" grep -q "^r4 .*failed .*mac '01:00:5e:00:00:01' is a multicast" "$out"
check "rocky: r4 has no files" test ! -e "$W/rocky/ipxe/01-00-5e-00-00-01.ipxe"
sed 's/mac: "01:00:5e:00:00:01"/mac: "02:00:00:00:01:04\\ndhcp-range=evil"/' "$W/rocky.yaml" >"$W/evil.yaml"
expect_code 2 "a MAC with a newline in it is refused before anything is written" \
	run "$PROVISION" pxe "$W/evil.yaml" -o "$W/evil" --dns 192.0.2.53
check "  ... and nothing of it reached a file" test ! -e "$W/evil"
ks=$W/rocky/answers/02-00-00-00-01-01/ks.cfg
if have ksvalidator; then
	check "rocky: ksvalidator accepts ks.cfg" run ksvalidator -v RHEL9 "$ks"
else
	skip "ksvalidator (pykickstart) is not packaged in Debian 12: ks.cfg checked by shlex only"
fi
check "rocky: kickstart splits as pykickstart does; sshkey and network exact" \
	run python3 "$CHECK" kickstart "$ks" "$KEY" deploy 192.0.2.10 02:00:00:00:01:01
check "rocky: the SSH user gets passwordless sudo" \
	grep -qx "echo 'deploy ALL=(ALL) NOPASSWD:ALL' > /etc/sudoers.d/provision && chmod 440 /etc/sudoers.d/provision" "$ks"
check "rocky: the iPXE script points at the kickstart" \
	grep -q 'inst.ks=http://${next-server}/answers/02-00-00-00-01-01/ks.cfg' "$W/rocky/ipxe/02-00-00-00-01-01.ipxe"

# ------------------------------------------------------------ options

t=$W/testbed.yaml
expect_code 0 "proxy-DHCP with --interface and --url" run "$PROVISION" pxe "$t" -o "$W/proxy" \
	--ssh-key "$KEY" --proxy-dhcp --interface eth1 --url http://192.0.2.1:8080/
check "proxy-DHCP: dhcp-range is proxy, hosts are tagged" sh -c \
	"grep -q '^dhcp-range=127.0.10.0,proxy,255.255.255.0\$' '$W/proxy/dnsmasq.conf' &&
	 grep -q '^dhcp-host=02:00:5e:00:00:00,set:provision\$' '$W/proxy/dnsmasq.conf' &&
	 grep -q '^interface=eth1\$' '$W/proxy/dnsmasq.conf'"
if have dnsmasq; then
	check "proxy-DHCP: dnsmasq --test accepts it" run dnsmasq --test --conf-file="$W/proxy/dnsmasq.conf"
fi
check "--url is the base of every URL" grep -q '^chain http://192.0.2.1:8080/ipxe/${mac:hexhyp}.ipxe' "$W/proxy/boot.ipxe"
printf 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIBCrhEdNRcS back\\slash\n' >"$W/bs.pub"
expect_code 2 "a key with a backslash is refused" run "$PROVISION" pxe "$t" -o "$W/bs" --ssh-key "$W/bs.pub"
check "  ... saying why" grep -q "backslash" "$out"
expect_code 2 "a missing key file is an error" run "$PROVISION" pxe "$t" -o "$W/nokey" --ssh-key "$W/none.pub"
expect_code 2 "-o is required" run "$PROVISION" pxe "$t"
expect_code 2 "--gateway must be an address" run "$PROVISION" pxe "$t" -o "$W/gw" --ssh-key "$KEY" --gateway 'x; reboot'
expect_code 1 "a node set that names no node of the plan" run "$PROVISION" pxe "$t" -o "$W/ns" --ssh-key "$KEY" -n nosuch
check "--json lists every node" sh -c "'$PROVISION' pxe '$t' -o '$W/js' --ssh-key '$KEY' --json |
	python3 -c 'import json,sys; d=json.load(sys.stdin); assert d[\"rendered\"] == 3 and len(d[\"nodes\"]) == 3'"

# ------------------------------------------------------------ the output folder

# Another user's folder under /tmp, with links planted at the names pxe
# once wrote through (PATH.tmp.PID, for the next few hundred pids), and a
# shared sticky folder: refused with the reason; nothing is written, and
# never through a link.
if [ "$(id -u)" -eq 0 ]; then
	echo precious >"$W/victim"
	F=$(mktemp -d /tmp/t050-foreign.XXXXXX) && chmod 755 "$F"
	last=$(cat /proc/sys/kernel/ns_last_pid)
	for i in $(seq 1 400); do
		for f in SHA256SUMS boot.ipxe dnsmasq.conf; do
			ln -s "$W/victim" "$F/$f.tmp.$((last + i))"
		done
	done
	chown -hR 65534:65534 "$F"
	expect_code 1 "-o in a folder another user owns is refused" run "$PROVISION" pxe "$t" -o "$F" --ssh-key "$KEY"
	check "  ... saying whose it is and what to do" grep -q "'$F' belongs to user 'nobody' (uid 65534), not to you or root: .*mkdir -m 700" "$out"
	check "  ... nothing written through the planted links" grep -qx precious "$W/victim"
	check "  ... nothing written at all" test -z "$(find "$F" ! -type l ! -path "$F")"
	chown 0:0 "$F" && chmod 1777 "$F"
	expect_code 1 "-o in a shared sticky folder like /tmp is refused" run "$PROVISION" pxe "$t" -o "$F" --ssh-key "$KEY"
	check "  ... saying so" grep -q "'$F' can be written by other users (mode 1777, a shared sticky folder like /tmp)" "$out"
	rm -rf "$F"
else
	skip "not root: the foreign output folder is not tested"
fi

# ------------------------------------------------------------ --iso

if have xorriso; then
	mkiso() {	# mkiso ISO DIR KERNEL INITRD [xorriso args]
		iso=$1 dir=$2 k=$3 i=$4
		shift 4
		mkdir -p "$dir/$(dirname "$k")" "$dir/$(dirname "$i")"
		head -c 300000 /dev/urandom >"$dir/$k"
		head -c 700000 /dev/urandom >"$dir/$i"
		xorriso -as mkisofs -quiet "$@" -V PROVTEST -o "$iso" "$dir" >/dev/null 2>&1
	}
	mkiso "$W/debian.iso" "$W/iso-d" install.amd/vmlinuz install.amd/initrd.gz -R -J
	mkiso "$W/ubuntu.iso" "$W/iso-u" casper/vmlinuz casper/initrd -R -J
	mkiso "$W/rocky.iso" "$W/iso-r" images/pxeboot/vmlinuz images/pxeboot/initrd.img
	check "debian: --iso extracts from a netinst layout" run "$PROVISION" pxe "$t" -o "$W/isod" \
		--ssh-key "$KEY" --iso "$W/debian.iso"
	check "  ... vmlinuz and initrd, byte for byte" sh -c \
		"cmp '$W/iso-d/install.amd/vmlinuz' '$W/isod/boot/debian-12/vmlinuz' &&
		 cmp '$W/iso-d/install.amd/initrd.gz' '$W/isod/boot/debian-12/initrd'"
	check "  ... listed in SHA256SUMS" sh -c "cd '$W/isod' && grep -q ' boot/debian-12/vmlinuz\$' SHA256SUMS &&
		grep -q ' boot/debian-12/initrd\$' SHA256SUMS && sha256sum -c --quiet SHA256SUMS"
	check "  ... with the netinst caveat" grep -q "netboot.tar.gz" "$out"
	mkdir -p "$W/nb/debian-installer/amd64"
	head -c 1000 /dev/urandom >"$W/nb/debian-installer/amd64/linux"
	head -c 2000 /dev/urandom >"$W/nb/debian-installer/amd64/initrd.gz"
	tar -C "$W/nb" -czf "$W/netboot.tar.gz" ./debian-installer
	check "debian: --iso takes a netboot.tar.gz too" run "$PROVISION" pxe "$t" -o "$W/inb" \
		--ssh-key "$KEY" --iso "$W/netboot.tar.gz"
	check "  ... its linux and initrd.gz" cmp "$W/nb/debian-installer/amd64/linux" "$W/inb/boot/debian-12/vmlinuz"
	sed 's/distro: debian, release: "12"/distro: ubuntu, release: "24.04"/' "$t" >"$W/tu.yaml"
	check "ubuntu: --iso extracts casper/vmlinuz and casper/initrd" run "$PROVISION" pxe "$W/tu.yaml" \
		-o "$W/iu" --ssh-key "$KEY" --iso "$W/ubuntu.iso"
	check "  ... byte for byte, and the ISO is linked for casper's url=" sh -c \
		"cmp '$W/iso-u/casper/initrd' '$W/iu/boot/ubuntu-24.04/initrd' &&
		 cmp '$W/ubuntu.iso' '$W/iu/iso/ubuntu-24.04.iso'"
	sed 's/distro: debian, release: "12"/distro: rocky, release: "9"/' "$t" >"$W/tr.yaml"
	check "rocky: --iso reads a plain ISO 9660 image (no Rock Ridge)" run "$PROVISION" pxe "$W/tr.yaml" \
		-o "$W/ir" --ssh-key "$KEY" --iso "$W/rocky.iso"
	check "  ... images/pxeboot/initrd.img" cmp "$W/iso-r/images/pxeboot/initrd.img" "$W/ir/boot/rocky-9/initrd"
	expect_code 1 "an ISO of another distribution is refused" run "$PROVISION" pxe "$W/tr.yaml" \
		-o "$W/iw" --ssh-key "$KEY" --iso "$W/debian.iso"
	check "  ... naming what it looked for" grep -q "images/pxeboot/vmlinuz" "$out"
	expect_code 1 "a file that is no archive is refused" run "$PROVISION" pxe "$t" -o "$W/ix" \
		--ssh-key "$KEY" --iso "$t"
else
	skip "xorriso is not installed: --iso not tested"
fi

# ------------------------------------------------------------ --serve

if have curl; then
	sd=$W/testbed
	ln -s /etc/passwd "$sd/passwd-link"
	mkdir -p "$sd/.git" && echo secret >"$sd/.git/config"
	mkdir -p "$sd/boot/debian-12"
	head -c 20000000 /dev/urandom >"$sd/boot/debian-12/initrd"
	"$PROVISION" pxe "$t" -o "$sd" --ssh-key "$KEY" --serve 127.0.0.1:0 >"$W/serve.log" 2>&1 &
	SERVER_PID=$!
	port=
	for _ in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20; do
		port=$(sed -n 's|^serving .* at http://127.0.0.1:\([0-9]*\)/ .*|\1|p' "$W/serve.log")
		[ -n "$port" ] && break
		sleep 0.25
	done
	check "--serve listens and says where" test -n "$port"
	u=http://127.0.0.1:$port
	code() { curl -s --path-as-is -o /dev/null -w '%{http_code}' "$@"; }
	check "the rendered files now point at the server" grep -q "^chain $u/ipxe/" "$sd/boot.ipxe"
	curl -s -o "$W/got-initrd" "$u/boot/debian-12/initrd" &
	big=$!
	check "GET a per-node script" sh -c "curl -sf '$u/ipxe/02-00-5e-00-00-00.ipxe' | cmp - '$sd/ipxe/02-00-5e-00-00-00.ipxe'"
	check "GET an answer file while a 20 MB download runs" sh -c \
		"curl -sf '$u/answers/02-00-5e-00-00-01/preseed.cfg' | cmp - '$sd/answers/02-00-5e-00-00-01/preseed.cfg'"
	wait $big
	check "the 20 MB file arrives whole" cmp "$W/got-initrd" "$sd/boot/debian-12/initrd"
	check "HEAD gives the length" sh -c "curl -sI '$u/boot.ipxe' | tr -d '\r' | grep -qx \"Content-Length: \$(wc -c <'$sd/boot.ipxe')\""
	check "../ is refused (400)" test "$(code "$u/../../../etc/passwd")" = 400
	check "%2e%2e is refused (400)" test "$(code "$u/%2e%2e/%2e%2e/etc/passwd")" = 400
	check "a symbolic link out of DIR is not followed (404)" test "$(code "$u/passwd-link")" = 404
	check "dot files are not served (400)" test "$(code "$u/.git/config")" = 400
	check "no directory listing (404)" test "$(code "$u/ipxe/")" = 404
	check "a missing file is 404" test "$(code "$u/nope")" = 404
	check "POST is 405" test "$(code -X POST -d x "$u/boot.ipxe")" = 405
	check "the log has one line per request" grep -q "^GET /boot/debian-12/initrd 200 20000000\$" "$W/serve.log"
	kill "$SERVER_PID"
	wait "$SERVER_PID"
	rc=$?
	SERVER_PID=
	check "SIGTERM stops the server cleanly (exit 0)" test "$rc" -eq 0
else
	skip "curl is not installed: --serve not tested"
fi

done_testing

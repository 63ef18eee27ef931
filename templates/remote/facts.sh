# shellcheck shell=sh
# templates/remote/facts.sh: what `provision facts` (and apply, for the
# steps that render from facts, and verify) runs on a node: everything in
# one run, read-only, POSIX sh, few forks (read and printf are builtins)
# so a node with hundreds of PCI functions answers fast.
#
# Its answer is framed in sections: "@@facts NAME", the raw text, then
# "@@rc N" after the commands whose status matters (facts_parse_script()
# in lib/facts-script.c reads it).  Compiled into the binary at build
# time (scripts/embed-sh), so the binary stays one file.
export LC_ALL=C
PATH=$PATH:/usr/local/sbin:/usr/local/bin:/usr/sbin:/sbin:/usr/bin:/bin
T=
command -v timeout >/dev/null 2>&1 && T='timeout 60'
s() { echo "@@facts $1"; }
r() { echo "@@rc $?"; }
# nv NAME ARGS...: nvidia-smi ARGS, its stdout in section NAME and what it
# writes to stderr ("WARNING: infoROM is corrupted at gpu ...") in
# NAME-stderr, so a warning never lands inside the CSV.
nv() {
	nv_n=$1
	shift
	s "$nv_n"
	exec 3>&1
	nv_e=$($T nvidia-smi "$@" </dev/null 2>&1 >&3 3>&-)
	nv_c=$?
	exec 3>&-
	echo "@@rc $nv_c"
	if [ -n "$nv_e" ]; then s "$nv_n-stderr"; printf '%s\n' "$nv_e"; fi
}
s os-release; cat /etc/os-release 2>/dev/null || cat /usr/lib/os-release; r
s kernel; uname -r; r
s hostname; uname -n; r
s arch; uname -m; r
s meminfo; cat /proc/meminfo; r
s cpuinfo; cat /proc/cpuinfo; r
if command -v lscpu >/dev/null 2>&1; then s lscpu; lscpu; r; fi
if command -v lspci >/dev/null 2>&1; then
	s lspci; lspci -vmm -nn -D -k 2>/dev/null; r
else s missing; echo lspci; fi
s pci-sysfs
for d in /sys/bus/pci/devices/*; do
	[ -e "$d/class" ] || continue
	c='' v='' i='' cs='' ms='' cw='' mw='' nn=''
	read -r c < "$d/class"; read -r v < "$d/vendor"
	read -r i < "$d/device"
	[ -e "$d/numa_node" ] && read -r nn < "$d/numa_node"
	if [ -e "$d/current_link_speed" ]; then
		read -r cs 2>/dev/null < "$d/current_link_speed"
		read -r ms 2>/dev/null < "$d/max_link_speed"
		read -r cw 2>/dev/null < "$d/current_link_width"
		read -r mw 2>/dev/null < "$d/max_link_width"
	fi
	printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t\t%s\n' "${d##*/}" "$c" "$v" "$i" "$cs" "$ms" "$cw" "$mw" "$nn"
done
s pci-drivers
for l in /sys/bus/pci/drivers/*/*:*.*; do
	[ -e "$l" ] || continue
	x=${l%/*}
	printf '%s\t%s\n' "${l##*/}" "${x##*/}"
done
if command -v nvidia-smi >/dev/null 2>&1; then
	nv nvidia-smi --query-gpu=index,name,pci.bus_id,pci.device_id,uuid,memory.total,driver_version,persistence_mode,pcie.link.gen.current,pcie.link.gen.max,pcie.link.width.current,pcie.link.width.max --format=csv,nounits
	# apart: drivers before R450 know no MIG field and refuse the query
	nv nvidia-smi-modes --query-gpu=index,pci.bus_id,mig.mode.current,ecc.mode.current --format=csv,nounits
else s missing; echo nvidia-smi; fi
s ib
for p in /sys/class/infiniband/*/ports/*; do
	[ -e "$p/state" ] || continue
	st='' ph='' ra='' ll=''
	read -r st < "$p/state"; read -r ph < "$p/phys_state"
	read -r ra 2>/dev/null < "$p/rate"; read -r ll < "$p/link_layer"
	ca=${p%/ports/*}
	printf "Infiniband device '%s' port %s status:\n\tstate:\t%s\n\tphys state:\t%s\n\trate:\t%s\n\tlink_layer:\t%s\n\n" "${ca##*/}" "${p##*/}" "$st" "$ph" "$ra" "$ll"
done
s net
for n in /sys/class/net/*; do
	[ -e "$n/device" ] || continue
	sp='' mt='' st='' ad='' sl=''
	read -r sp 2>/dev/null < "$n/speed"; read -r mt < "$n/mtu"
	read -r st < "$n/operstate"; read -r ad < "$n/address"
	sl=$(readlink "$n/device" 2>/dev/null)
	printf '%s\t%s\t%s\t%s\t%s\t%s\n' "${n##*/}" "$sp" "$mt" "$st" "$ad" "${sl##*/}"
done
s block
for b in /sys/block/*; do
	[ -e "$b/device" ] || continue
	sz='' ro='' mo=''
	read -r sz < "$b/size"; read -r ro < "$b/queue/rotational"
	read -r mo 2>/dev/null < "$b/device/model"
	printf '%s\t%s\t%s\t%s\n' "${b##*/}" "$sz" "$ro" "$mo"
done
s end

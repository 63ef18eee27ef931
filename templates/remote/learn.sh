# shellcheck shell=sh
# templates/remote/learn.sh: what `provision catalog learn` reads of a
# machine besides its facts (facts.sh): the SMBIOS records of the system
# (type 1), its slots (9), memory arrays (16) and DIMM sockets (17), and
# the same from sysfs where dmidecode cannot run (no root, no SMBIOS).
# Read-only, POSIX sh.  `catalog learn --local` runs it on this machine,
# `catalog learn PLAN -n NODE` on the node after facts.sh: one gathering.
#
# Its answer is framed as facts.sh's ("@@facts NAME", the text, "@@rc N");
# learn_parse_script() in lib/learn.c reads it.  Compiled into the binary
# (scripts/embed-sh).
export LC_ALL=C
PATH=$PATH:/usr/local/sbin:/usr/local/bin:/usr/sbin:/sbin:/usr/bin:/bin
s() { echo "@@facts $1"; }
r() { echo "@@rc $?"; }
if command -v dmidecode >/dev/null 2>&1; then
	# stderr apart: "Permission denied" is a note, not a record
	s dmidecode; dmidecode -t 1 -t 9 -t 16 -t 17 2>/dev/null; r
else s missing; echo dmidecode; fi
# /sys/class/dmi/id is world-readable for these two, root or not
s dmi-id
for k in sys_vendor product_name; do
	v=''
	[ -r "/sys/class/dmi/id/$k" ] && read -r v < "/sys/class/dmi/id/$k"
	printf '%s\t%s\n' "$k" "$v"
done
# the hotplug slots the kernel knows: NAME ADDRESS MAX_BUS_SPEED
s pci-slots
for d in /sys/bus/pci/slots/*; do
	[ -e "$d/address" ] || continue
	a='' m=''
	read -r a < "$d/address"
	[ -r "$d/max_bus_speed" ] && read -r m 2>/dev/null < "$d/max_bus_speed"
	printf '%s\t%s\t%s\n' "${d##*/}" "$a" "$m"
done
s end

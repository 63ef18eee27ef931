#!/bin/sh
# The whole stack of examples/testbed-vm.yaml on three real machines
# (systemd, their own kernels, two networks): apply, a second apply that
# changes nothing, a changed slurm.conf that restarts the Slurm daemons,
# verify, then every node rebooted: back with everything enabled at boot,
# verify passes with no apply in between.
. "$(dirname "$0")/../e2e/lib.sh"
. "$(dirname "$0")/lib.sh"
set -u
cd "$TOP" || exit 1
in_testbed
OUT=$(mktemp -d /tmp/tvm010.XXXXXX)
trap 'rm -rf "$OUT"' EXIT
rm -rf "$STATE"
mkdir -p "$STATE"

check "check passes" "$PROVISION" check -q "$PLAN"

# Each VM is as large as the plan's vm: says (the head), else the default.
mem_mib() {
	on "$1" "awk '/^MemTotal:/ { print int(\$2 / 1024) }' /proc/meminfo"
}
m=$(mem_mib $HEAD)
[ "${m:-0}" -gt 1300 ] && [ "$m" -le 1536 ] && ok "head-01 has the plan's 1536 MiB ($m MiB usable)" ||
	not_ok "head-01 has the plan's 1536 MiB (${m:-?} MiB usable)"
m=$(mem_mib $W1)
[ "${m:-0}" -gt 700 ] && [ "$m" -le 1024 ] && ok "worker-01 has the default 1024 MiB ($m MiB usable)" ||
	not_ok "worker-01 has the default 1024 MiB (${m:-?} MiB usable)"

# The images leave "127.0.1.1 NAME" in /etc/hosts, as Debian's installer does.
on $W1 "grep -q '^127.0.1.1[[:space:]]*worker-01' /etc/hosts" &&
	ok "before apply: /etc/hosts names worker-01 127.0.1.1" ||
	not_ok "before apply: /etc/hosts names worker-01 127.0.1.1"

if apply_to "$OUT/apply1.txt" "$PLAN"; then ok "first apply succeeds"; else
	not_ok "first apply succeeds"; tail -30 "$OUT/apply1.txt" | sed 's/^/# /'; fi
grep -q '^3 nodes: 3 ok, 0 failed' "$OUT/apply1.txt" && ok "3 nodes ok" || not_ok "3 nodes ok"

# The base step owns the nodes' names in /etc/hosts.
for a in $HEAD $W1 $W2; do
	on $a "getent hosts head-01 worker-01 worker-02" | awk '{ print $1 }' | tr '\n' ' ' >"$OUT/getent"
	[ "$(cat "$OUT/getent")" = "192.168.56.10 192.168.56.11 192.168.56.12 " ] &&
		ok "$a: getent answers the plan's addresses" ||
		{ not_ok "$a: getent answers the plan's addresses"; sed 's/^/# /' "$OUT/getent"; }
done
on $W1 "grep -q '^127.0.1.1' /etc/hosts" &&
	not_ok "no 127.0.1.1 line is left" || ok "no 127.0.1.1 line is left"

# Units enabled (they come back at boot) and running.
units_ok() {
	on "$1" "for u in $2; do systemctl is-enabled --quiet \$u && systemctl is-active --quiet \$u || echo \$u; done" >"$OUT/units" 2>&1
	[ ! -s "$OUT/units" ]
}
units_ok $HEAD "chrony munge slurmctld prometheus-node-exporter prometheus containerd" &&
	ok "head: every daemon enabled and active" || { not_ok "head: every daemon enabled and active"; sed 's/^/# not: /' "$OUT/units"; }
for a in $W1 $W2; do
	units_ok $a "chrony munge slurmd prometheus-node-exporter containerd" &&
		ok "$a: every daemon enabled and active" || { not_ok "$a: every daemon enabled and active"; sed 's/^/# not: /' "$OUT/units"; }
done

# Kernel modules and sysctls of the container runtime, persisted.
kernel_ok() {
	on "$1" 'test -d /sys/module/overlay && test -d /sys/module/br_netfilter &&
		grep -qx br_netfilter /etc/modules-load.d/90-provision-containers.conf &&
		[ "$(sysctl -n net.bridge.bridge-nf-call-iptables)" = 1 ]'
}
check "worker-01: overlay and br_netfilter loaded, listed, bridge-nf-call-iptables 1" kernel_ok $W1

# Slurm with cgroup v2: a job step lands in its own cgroup.
on $HEAD "timeout 60 srun -N1 -w worker-01 cat /proc/self/cgroup" >"$OUT/cg" 2>&1
grep -q '^0::/.*job_[0-9]*/step_0' "$OUT/cg" && ok "srun: the step runs in a cgroup v2 of its own" ||
	{ not_ok "srun: the step runs in a cgroup v2 of its own"; sed 's/^/# /' "$OUT/cg"; }
on $HEAD "timeout 60 srun -N2 hostname" 2>&1 | sort >"$OUT/srun"
printf 'worker-01\nworker-02\n' | cmp -s - "$OUT/srun" && ok "srun -N2 runs on both workers" ||
	{ not_ok "srun -N2 runs on both workers"; sed 's/^/# /' "$OUT/srun"; }

apply_to "$OUT/apply2.txt" "$PLAN"
rc=$?
[ $rc -eq 0 ] && grep -q ' 0 changed, ' "$OUT/apply2.txt" && ok "second apply: 0 changed" ||
	{ not_ok "second apply: 0 changed (exit $rc)"; grep -E 'changed|failed' "$OUT/apply2.txt" | sed 's/^/# /' | head; }

# A changed slurm.conf restarts the daemons that read it.
pid_of() {
	on "$1" "systemctl show -p MainPID --value $2"
}
c0=$(pid_of $HEAD slurmctld)
d0=$(pid_of $W1 slurmd)
PB=$(plan_variant maxtime)
apply_to "$OUT/apply3.txt" "$PB"
rc=$?
[ $rc -eq 0 ] && ok "apply of a changed partition succeeds" || { not_ok "apply of a changed partition (exit $rc)"; tail -20 "$OUT/apply3.txt" | sed 's/^/# /'; }
c1=$(pid_of $HEAD slurmctld)
d1=$(pid_of $W1 slurmd)
[ -n "$c1" ] && [ "$c1" != 0 ] && [ "$c1" != "$c0" ] && [ -n "$d1" ] && [ "$d1" != 0 ] && [ "$d1" != "$d0" ] &&
	ok "slurmctld and slurmd restarted on the new slurm.conf" ||
	not_ok "slurmctld and slurmd restarted (slurmctld $c0 -> $c1, slurmd $d0 -> $d1)"
on $HEAD "scontrol show partition debug" | grep -q 'MaxTime=00:30:00' &&
	ok "the controller runs with the new limit" || not_ok "the controller runs with the new limit"

"$PROVISION" verify --json "$PB" >"$OUT/v1.json" 2>"$OUT/v1.err"
rc=$?
[ $rc -eq 0 ] && ok "verify passes" || { not_ok "verify passes (exit $rc)"; failed_checks "$OUT/v1.json"; }

# Every node rebooted at once: back, and verify passes with no apply.
for n in head-01 worker-01 worker-02; do
	scripts/testbed-vm reboot "$n" >"$OUT/reboot-$n" 2>&1 &
done
wait
grep -h 'back after' "$OUT"/reboot-* | sed 's/^/# /'
for n in head-01 worker-01 worker-02; do
	grep -q "$n: back after" "$OUT/reboot-$n" && ok "$n rebooted and back" ||
		{ not_ok "$n rebooted and back"; sed 's/^/# /' "$OUT/reboot-$n"; }
done
"$PROVISION" verify --json "$PB" >"$OUT/v2.json" 2>"$OUT/v2.err"
rc=$?
[ $rc -eq 0 ] && ok "verify passes after the reboot, with no apply" ||
	{ not_ok "verify passes after the reboot (exit $rc)"; failed_checks "$OUT/v2.json"; }
check "worker-01 after the reboot: modules loaded, sysctl set" kernel_ok $W1
done_testing

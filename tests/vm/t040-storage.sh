#!/bin/sh
# Shared storage and two heads on real machines (plan_variant storage):
# head-01 exports /home and Slurm's state over NFS (the kernel's server),
# the others mount them through systemd's automount; worker-02 becomes a
# second head, Slurm's backup controller, with the state on the export.
# Proves: apply and a second apply that changes nothing; a user's file
# written on one node is read on another; verify's storage and backup
# rows; a client rebooted while the NFS server is stopped finishes its
# boot with no unit failed but /home's mount (chrony's ProtectHome= and
# /home: a plain mount, not an automount), answers SSH, and the remount
# timer mounts /home once the server is back, with no one's help; slurmctld killed on the primary: the backup takes over
# and a job still runs; then the primary takes back; an export removed
# from the plan is unexported and unmounted.  Times each part.
. "$(dirname "$0")/../e2e/lib.sh"
. "$(dirname "$0")/lib.sh"
set -u
cd "$TOP" || exit 1
in_testbed
OUT=$(mktemp -d /tmp/tvm040.XXXXXX)
trap 'rm -rf "$OUT"' EXIT
PS=$(plan_variant storage)
t0=$(date +%s)
lap() {
	echo "# time: $1 $(($(date +%s) - t0)) s"
	t0=$(date +%s)
}

check "check passes with storage: and two heads" "$PROVISION" check -q "$PS"

# worker-02 was a compute node of the earlier tests: it changes role.
on $W2 "systemctl disable --now slurmd" >/dev/null 2>&1

apply_to "$OUT/a1.txt" "$PS"
rc=$?
[ $rc -eq 0 ] && ok "apply with storage and two heads succeeds" ||
	{ not_ok "apply with storage and two heads succeeds (exit $rc)"; tail -30 "$OUT/a1.txt" | sed 's/^/# /'; }
grep -E '^[0-9:]+ +[a-z0-9-]+ +storage ' "$OUT/a1.txt" | sed 's/^/# /'
# the server runs the step first: its line comes before the others'
python3 - "$OUT/a1.txt" <<'PY' && ok "storage ran on head-01 before its clients" || not_ok "storage ran on head-01 before its clients"
import re, sys
ls = [l for l in open(sys.argv[1]) if re.match(r"^[0-9:]+ +\S+ +storage +(ok|changed)", l)]
names = [l.split()[1] for l in ls]
assert names and names[0] == "head-01" and sorted(names) == ["head-01", "worker-01", "worker-02"], names
PY
lap apply

on $HEAD "cat /etc/exports.d/provision.exports; exportfs -s" | sed 's/^/# /'
on $W1 "grep -A3 '^# BEGIN provision' /etc/fstab" | sed 's/^/# /'
on $W1 "findmnt -n -o SOURCE,FSTYPE --target /home/alice" >"$OUT/fm" 2>&1
grep -q '^192.168.56.10:/srv/nfs/home nfs' "$OUT/fm" && ok "worker-01: /home is head-01's export over NFS" ||
	{ not_ok "worker-01: /home is head-01's export over NFS"; sed 's/^/# /' "$OUT/fm"; }

# A user's file: written on worker-01, read on worker-02 and on the server.
on $W1 "setpriv --reuid=alice --regid=alice --init-groups sh -c 'echo written-on-worker-01 >/home/alice/shared.txt'" &&
	ok "alice writes in her home on worker-01" || not_ok "alice writes in her home on worker-01"
[ "$(on $W2 "setpriv --reuid=alice --regid=alice --init-groups cat /home/alice/shared.txt")" = written-on-worker-01 ] &&
	ok "worker-02 reads alice's file" || not_ok "worker-02 reads alice's file"
[ "$(on $HEAD "stat -c '%u %U' /srv/nfs/home/alice/shared.txt")" = "2001 alice" ] &&
	ok "the file is on head-01's disk, alice's" || not_ok "the file is on head-01's disk, alice's"

# Slurm: two SlurmctldHost lines, the state on the export, both answer.
on $W1 "grep -E '^(SlurmctldHost|StateSaveLocation)=' /etc/slurm/slurm.conf" | sed 's/^/# /'
on $W1 "scontrol ping" >"$OUT/ping" 2>&1
grep -q 'Slurmctld(primary) at head-01 is UP' "$OUT/ping" && grep -q 'Slurmctld(backup) at worker-02 is UP' "$OUT/ping" &&
	ok "scontrol ping: primary and backup UP" || { not_ok "scontrol ping: primary and backup UP"; sed 's/^/# /' "$OUT/ping"; }
u1=$(on $HEAD "id -u slurm")
u2=$(on $W2 "id -u slurm")
[ -n "$u1" ] && [ "$u1" = "$u2" ] && ok "slurm is uid $u1 on both heads (the state folder is its own on both)" ||
	not_ok "slurm has one uid on both heads ($u1, $u2)"
on $W2 "findmnt -n -o FSTYPE --target /var/spool/slurmctld-shared" | grep -q '^nfs' &&
	ok "worker-02: Slurm's state folder is the NFS export" || not_ok "worker-02: Slurm's state folder is the NFS export"

"$PROVISION" verify --json "$PS" >"$OUT/v1.json" 2>"$OUT/v1.err"
rc=$?
[ $rc -eq 0 ] && ok "verify passes" || { not_ok "verify passes (exit $rc)"; failed_checks "$OUT/v1.json"; }
python3 - "$OUT/v1.json" <<'PY' && ok "verify: storage rows on every node, the backup controller UP" || not_ok "verify: storage rows on every node, the backup controller UP"
import json, sys
rows = json.load(open(sys.argv[1]))["checks"]
def row(n, c):
    r = [r for r in rows if r["subject"] == n and r["check"] == c]
    assert len(r) == 1, (n, c, r)
    return r[0]
for n in ("head-01", "worker-01", "worker-02"):
    r = row(n, "storage /home")
    assert r["verdict"] == "ok" and "alice" in r["measured"], r
    print("#", n, r["check"], r["measured"])
for n in ("head-01", "worker-02"):
    assert row(n, "storage /var/spool/slurmctld-shared")["verdict"] == "ok"
r = row("worker-02", "slurm backup controller")
assert r["verdict"] == "ok", r
PY
lap verify

apply_to "$OUT/a2.txt" "$PS"
rc=$?
[ $rc -eq 0 ] && grep -q ' 0 changed, ' "$OUT/a2.txt" && ok "second apply: 0 changed" ||
	{ not_ok "second apply: 0 changed (exit $rc)"; grep -E 'changed|failed' "$OUT/a2.txt" | sed 's/^/# /' | head; }
lap apply2

# A client boots while the server is down: no hang, and /home comes back.
on $HEAD "systemctl stop nfs-server" && ok "head-01: nfs-server stopped" || not_ok "head-01: nfs-server stopped"
s=$(date +%s)
scripts/testbed-vm reboot worker-01 >"$OUT/reboot" 2>&1
rc=$?
sed 's/^/# /' "$OUT/reboot"
[ $rc -eq 0 ] && ok "worker-01 rebooted with the NFS server down, back in $(($(date +%s) - s)) s" ||
	not_ok "worker-01 rebooted with the NFS server down (exit $rc)"
st=$(on $W1 "timeout 120 systemctl is-system-running --wait")
case $st in
running | degraded) ok "worker-01: boot finished ($st)" ;;
*) not_ok "worker-01: boot finished ($st)" ;;
esac
on $W1 "systemctl --failed --no-legend --plain" >"$OUT/failed" 2>&1
sed 's/^/# failed: /' "$OUT/failed"
# chrony's ProtectHome= touches /home: no other unit may fail with it
awk '$1 != "home.mount" { print $1 }' "$OUT/failed" >"$OUT/failed-others"
[ ! -s "$OUT/failed-others" ] && ok "worker-01: no unit but home.mount failed" ||
	not_ok "worker-01: no unit but home.mount failed ($(tr '\n' ' ' <"$OUT/failed-others"))"
# failed at boot, then failed or being tried again by the timer
hm=$(on $W1 "systemctl show -p ActiveState --value home.mount")
case $hm in
failed | activating) ok "worker-01: home.mount $hm (the timer tries it again)" ;;
*) not_ok "worker-01: home.mount $hm, want failed or activating" ;;
esac
on $W1 "systemctl is-active chrony" | grep -qx active && ok "worker-01: chrony runs" ||
	not_ok "worker-01: chrony runs"
on $W1 "systemctl is-active provision-remount.timer" | grep -qx active &&
	ok "worker-01: provision-remount.timer runs" || not_ok "worker-01: provision-remount.timer runs"
on $W1 "mountpoint /home" | grep -qx '/home is not a mountpoint' &&
	ok "worker-01: /home not mounted while the server is down" ||
	not_ok "worker-01: /home not mounted while the server is down"
on $HEAD "systemctl start nfs-server" && ok "head-01: nfs-server started" || not_ok "head-01: nfs-server started"
got=
for _ in 1 2 3 4 5 6 7 8 9 10 11 12; do
	got=$(on $W1 "timeout -s KILL 30 cat /home/alice/shared.txt" 2>/dev/null) && [ -n "$got" ] && break
	sleep 5
done
[ "$got" = written-on-worker-01 ] && ok "worker-01 mounts /home again once the server is back" ||
	not_ok "worker-01 mounts /home again once the server is back ($got)"
st=$(on $W1 "systemctl is-system-running")
[ "$st" = running ] && ok "worker-01: nothing failed once /home is mounted ($st)" ||
	not_ok "worker-01: nothing failed once /home is mounted ($st)"
lap "boot-without-server"

# Failover: slurmctld killed on the primary; the backup takes over.
on $HEAD "systemctl kill -s KILL slurmctld; systemctl stop slurmctld" >/dev/null 2>&1
taken=
s=$(date +%s)
while [ $(($(date +%s) - s)) -lt 300 ]; do
	# a backup in standby refuses requests: sinfo answering is the takeover
	if on $W1 "scontrol ping" 2>&1 | grep -q 'Slurmctld(primary) at head-01 is DOWN' &&
		on $W1 "timeout 20 sinfo -h" >/dev/null 2>&1; then
		taken=$(($(date +%s) - s))
		break
	fi
	sleep 5
done
on $W2 "grep -iE 'primary controller|taking over|backup' /var/log/slurm/slurmctld.log | tail -n 4" | sed 's/^/# /'
[ -n "$taken" ] && ok "the backup took over ${taken} s after slurmctld died on head-01" ||
	{ not_ok "the backup took over"; on $W1 "scontrol ping" 2>&1 | sed 's/^/# /'; }
on $W2 "timeout 120 srun -N1 -w worker-01 hostname" >"$OUT/srun" 2>&1
grep -qx worker-01 "$OUT/srun" && ok "a job runs with the backup in control" ||
	{ not_ok "a job runs with the backup in control"; sed 's/^/# /' "$OUT/srun"; }
on $HEAD "systemctl start slurmctld" >/dev/null 2>&1
back=
s=$(date +%s)
while [ $(($(date +%s) - s)) -lt 180 ]; do
	if on $W1 "scontrol ping" 2>&1 | grep -q 'Slurmctld(primary) at head-01 is UP'; then
		back=$(($(date +%s) - s))
		break
	fi
	sleep 5
done
[ -n "$back" ] && ok "the primary is back in control after ${back} s" || not_ok "the primary is back in control"
on $HEAD "timeout 120 srun -N1 -w worker-01 hostname" 2>&1 | grep -qx worker-01 &&
	ok "a job runs with the primary back" || not_ok "a job runs with the primary back"
lap failover

# An export that leaves the plan leaves the exports and the fstab, unmounted.
on $W1 "timeout 30 ls /datasets" >/dev/null 2>&1 && on $W1 "mountpoint -q /datasets" &&
	ok "worker-01: /datasets mounted (read-only export)" || not_ok "worker-01: /datasets mounted (read-only export)"
on $W1 "touch /datasets/x" 2>/dev/null && not_ok "/datasets is read-only" || ok "/datasets is read-only"
PL=$(plan_variant storage-less)
apply_to "$OUT/a3.txt" "$PL"
rc=$?
[ $rc -eq 0 ] && ok "apply without /datasets succeeds" || { not_ok "apply without /datasets (exit $rc)"; tail -20 "$OUT/a3.txt" | sed 's/^/# /'; }
grep -E ' storage +changed' "$OUT/a3.txt" | sed 's/^/# /'
on $W1 "grep -q ' /datasets ' /etc/fstab || mountpoint -q /datasets || systemctl is-active --quiet datasets.automount" &&
	not_ok "worker-01: /datasets unmounted, out of fstab" || ok "worker-01: /datasets unmounted, out of fstab"
on $HEAD "grep -q datasets /etc/exports.d/provision.exports || exportfs -s | grep -q datasets" &&
	not_ok "head-01: /srv/nfs/datasets no longer exported" || ok "head-01: /srv/nfs/datasets no longer exported"
apply_to "$OUT/a4.txt" "$PL"
rc=$?
[ $rc -eq 0 ] && grep -q ' 0 changed, ' "$OUT/a4.txt" && ok "another apply: 0 changed" ||
	{ not_ok "another apply: 0 changed (exit $rc)"; grep -E 'changed|failed' "$OUT/a4.txt" | sed 's/^/# /' | head; }
lap removal
done_testing

# lib.sh: helpers of the VM suite (sourced by tests/vm/t*.sh after
# tests/e2e/lib.sh).  The tests run inside the VM testbed's network
# namespace (run.sh starts them with `scripts/testbed-vm exec`), on the
# three VMs of examples/testbed-vm.yaml, one after the other.

VD=${TESTBED_VM_DIR:-/var/tmp/provision-vm}
KEY=$VD/id_ed25519
KH=$VD/known_hosts
PLAN=examples/testbed-vm.yaml
# The suite's state: one cluster, one state file, across the tests.
STATE=$VD/suite-state
HEAD=192.168.56.10
W1=192.168.56.11
W2=192.168.56.12

in_testbed() {
	[ "$(id -u)" -eq 0 ] || skip_all "needs root"
	ip -br addr 2>/dev/null | grep -q ' 192\.168\.56\.1/24' ||
		skip_all "not inside the VM testbed's namespace (run tests/vm/run.sh)"
	mkdir -p "$STATE"
}

# plan_variant NAME: the example plan with a change, in $VD:
#   maxtime  the debug partition limited to 30 minutes (a changed slurm.conf)
#   kargs    maxtime, and hugepages=16 on the kernel command line, the
#            workers rebooted two at a time
#   storage  maxtime, and worker-02 a second head (Slurm's backup
#            controller; the debug partition is worker-01 alone), user
#            alice, /home and Slurm's state served by head-01 over NFS
#            (no kernel_args: it runs after kargs, or on fresh nodes
#            alone), and /datasets read-only on worker-01
#   storage-less  storage without /datasets
plan_variant() {
	_pv=$VD/plan-$1.yaml
	case $1 in
	maxtime)
		sed 's/default: true }/default: true, max_time: "30" }/' "$PLAN" ;;
	kargs)
		sed 's/default: true }/default: true, max_time: "30" }/' "$PLAN"
		printf '  kernel_args: [ "hugepages=16" ]\napply: { reboot_parallel: 2 }\n' ;;
	storage)
		# the workers' range split in two, the second one a head
		awk '
			/name: "worker-\[01-02\]"/ { skip = 1
				print "  - { name: worker-01, role: worker, address: 192.168.56.11,"
				print "      interfaces: { fabric: 192.168.57.11 } }"
				print "  - { name: worker-02, role: head, address: 192.168.56.12,"
				print "      interfaces: { fabric: 192.168.57.12 } }"
			}
			skip && /} }$/ { skip = 0; next }
			skip { next }
			/^      cluster_name: vmtest$/ { print; print "      state_storage: slurm-state"; next }
			{ sub(/nodes: "worker-\[01-02\]", default: true }/, "nodes: worker-01, default: true, max_time: \"30\" }"); print }
		' "$PLAN"
		cat <<'EOF'
users:
  alice: { uid: 2001 }
storage:
  home: { server: head-01, path: /srv/nfs/home, mount: /home, root_squash: false }
  slurm-state: { server: head-01, path: /srv/nfs/slurm, mount: /var/spool/slurmctld-shared,
                 roles: [ head ], root_squash: false, timeout_s: 20 }
  datasets: { server: head-01, path: /srv/nfs/datasets, mount: /datasets, readonly: true,
              clients: worker-01 }
EOF
		;;
	storage-less)
		grep -v -e 'datasets: {' -e 'clients: worker-01 }' "$(plan_variant storage)" ;;
	esac >"$_pv"
	echo "$_pv"
}

# apply_to OUT PLAN ARG...: apply with the suite's state, output to OUT;
# the exit status.
apply_to() {
	_out=$1
	shift
	"$PROVISION" apply --plain --state-dir "$STATE" "$@" >"$_out" 2>&1
}

# failed_checks JSON: the failing verify rows, as comments.
failed_checks() {
	python3 -c 'import json,sys
for r in json.load(open(sys.argv[1]))["checks"]:
    if r["verdict"] == "fail":
        print("#", r["subject"], r["check"], r.get("measured") or "", r.get("hint") or "")' "$1"
}

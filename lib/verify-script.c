/*
 * verify-script.c: the script verify runs on each node, one SSH round
 * trip a node, its sections in the facts script's framing.
 */
#include "compat.h"

#include "hostlist.h"
#include "plan.h"
#include "render.h"
#include "verify-int.h"

/* ------------------------------------------------------------------ */
/* The script */

/*
 * Prefixed to the facts script: the node's clock, first, so it is read
 * as close to the connection as can be.  Sections after the facts:
 * see verify_script().
 */
static const char verify_script_head[] =
"echo '@@facts v-clock'; date +%s.%N; echo \"@@rc $?\"\n";

static const char verify_script_funcs[] =
"vs() { echo \"@@facts v-$1\"; }\n"
"vr() { echo \"@@rc $?\"; }\n"
"vd() {\n"
"\tif ! command -v pgrep >/dev/null 2>&1; then\n"
"\t\techo \"$1 unknown -\"; return\n"
"\tfi\n"
"\tp=$(pgrep -f \"^([^ ]*/)?($2)( |\\$)\" | head -n 1)\n"
"\tif [ -n \"$p\" ]; then echo \"$1 running $p\"\n"
"\telse echo \"$1 stopped -\"; fi\n"
"}\n"
"vjob() {\n"
"\tvj_o=$(timeout \"$VJT\" srun ${1:+-p \"$1\"} -N \"$3\" -n \"$3\" "
    "--ntasks-per-node=1 -w \"$2\" -t 2 --immediate=30 "
    "-J provision-verify sh -c 'echo \"verify-ok $SLURMD_NODENAME\"' "
    "</dev/null 2>&1)\n"
"\tvj_rc=$?\n"
"\tprintf '%s\\t%s\\t%s\\t%s\\n' \"$1\" \"$2\" \"$vj_rc\" "
    "\"$(printf '%s' \"$vj_o\" | tr '\\t\\n' '  ' | cut -c1-1500)\"\n"
"\treturn $vj_rc\n"
"}\n"
/*
 * A job across nodes of which one is dead holds the live ones in
 * "completing" a while after it fails, and Slurm may leave a job queued
 * for them until its next backfill pass (30 s): longer than --immediate.
 * So each node's own job waits (30 s at most) for its node to be free;
 * one still completing then (its slurmd gone) fails without a job.
 */
"vfree() {\n"
"\tvf=0\n"
"\twhile [ $vf -lt 60 ]; do\n"
"\t\tcase $($T sinfo -h -n \"$2\" -o %t </dev/null 2>/dev/null) in\n"
"\t\tcomp*) sleep 0.5; vf=$((vf + 1)) ;;\n"
"\t\t*) return 0 ;;\n"
"\t\tesac\n"
"\tdone\n"
"\tprintf '%s\\t%s\\t1\\t%s\\n' \"$1\" \"$2\" "
    "'still completing an earlier job 30 s later (Slurm state comp): "
    "is its slurmd running?'\n"
"\treturn 1\n"
"}\n";

static void
verify_script_names(struct buf *b, const struct plan *p,
    const struct plan_node *skip)
{
	size_t	i;

	for (i = 0; i < p->nnodes; i++) {
		if (&p->nodes[i] == skip)
			continue;
		buf_addch(b, ' ');
		buf_add_shquote(b, p->nodes[i].name);
	}
}

static void
verify_script_slurm(struct buf *b, const struct plan *p,
    struct plan_node *const *sel, size_t nsel, const struct verify_opts *o)
{
	const char	**parts = xcalloc(nsel + 1, sizeof *parts);
	const char	**done = xcalloc(nsel + 1, sizeof *done);
	size_t		  i, j, ndone = 0;

	buf_adds(b, "vs slurm-ping; $T scontrol ping </dev/null 2>&1; vr\n");
	buf_adds(b, "vs sinfo; $T sinfo -h -N -o '%N %t %G' </dev/null 2>&1; "
	    "vr\n");
	buf_adds(b, "vs scontrol; $T scontrol -o show node </dev/null 2>&1; "
	    "vr\n");
	for (i = 0; i < nsel; i++) {
		if (!plan_slurm_compute(p, sel[i], &parts[i]))
			parts[i] = "-";
		else if (parts[i] == NULL)
			parts[i] = "";	/* no partitions: the default one */
	}
	buf_addf(b, "VJT=%ld\n", o->job_timeout_s > 0 ? o->job_timeout_s :
	    60);
	buf_adds(b, "vs srun\n");
	/* one job per partition across its nodes; if it fails, one job per
	 * node of it, 16 at a time, to name the nodes that cannot run one */
	for (i = 0; i < nsel; i++) {
		const char	*pt = parts[i];
		const char	**names;
		char		 *list;
		size_t		  n = 0, k;

		if (strcmp(pt, "-") == 0)
			continue;
		for (j = 0; j < ndone; j++)
			if (strcmp(done[j], pt) == 0)
				break;
		if (j < ndone)
			continue;
		done[ndone++] = pt;
		names = xcalloc(nsel + 1, sizeof *names);
		for (k = 0; k < nsel; k++)
			if (strcmp(parts[k], pt) == 0)
				names[n++] = sel[k]->name;
		list = hostlist_fold(names, n);
		buf_adds(b, "if ! vjob ");
		buf_add_shquote(b, p->sw.npartitions > 0 ? pt : "");
		buf_addch(b, ' ');
		buf_add_shquote(b, list);
		buf_addf(b, " %zu; then\n\tvk=0\n\tfor h in", n);
		for (k = 0; k < n; k++) {
			buf_addch(b, ' ');
			buf_add_shquote(b, names[k]);
		}
		buf_adds(b, "; do\n\t\t{ vfree ");
		buf_add_shquote(b, p->sw.npartitions > 0 ? pt : "");
		buf_adds(b, " \"$h\" && vjob ");
		buf_add_shquote(b, p->sw.npartitions > 0 ? pt : "");
		buf_adds(b, " \"$h\" 1; } &\n\t\tvk=$((vk + 1))\n"
		    "\t\tif [ $vk -ge 16 ]; then wait; vk=0; fi\n"
		    "\tdone\n\twait\nfi\n");
		free(list);
		free(names);
	}
	buf_adds(b, "echo '@@rc 0'\n");
	free(parts);
	free(done);
}

static void
verify_script_nccl(struct buf *b, const struct plan *p,
    struct plan_node *const *sel, size_t nsel)
{
	const char	**names = xcalloc(nsel + 1, sizeof *names);
	char		 *list;
	long		  g = 0;
	size_t		  i, n = 0;

	for (i = 0; i < nsel; i++) {
		long	k = verify_gpus(sel[i]);

		if (k <= 0)
			continue;
		names[n++] = sel[i]->name;
		if (g == 0 || k < g)
			g = k;
	}
	buf_adds(b, "vs nccl\n");
	if (n == 0) {
		buf_adds(b, "echo 'no GPU node to run it on'; "
		    "echo '@@rc 125'\n");
		free(names);
		return;
	}
	list = hostlist_fold(names, n);
	buf_adds(b, "B=$(command -v all_reduce_perf 2>/dev/null)\n"
	    "for f in /usr/local/bin/all_reduce_perf "
	    "/opt/nccl-tests/build/all_reduce_perf "
	    "/usr/local/nccl-tests/build/all_reduce_perf; do\n"
	    "\t[ -n \"$B\" ] || { [ -x \"$f\" ] && B=$f; }\n"
	    "done\n"
	    "if [ -z \"$B\" ]; then echo 'all_reduce_perf (nccl-tests) not "
	    "found'; echo '@@rc 127'\n");
	if (verify_is_slurm(p)) {
		buf_addf(b, "else timeout 1800 srun -N %zu --ntasks-per-node="
		    "%ld --gpus-per-node=%ld -w ", n, g, g);
		buf_add_shquote(b, list);
		buf_adds(b, " -t 30 -J provision-verify-nccl \"$B\" -b 8 -e 1G "
		    "-f 2 -g 1 </dev/null 2>&1; vr\n");
	} else {
		buf_addf(b, "elif command -v mpirun >/dev/null 2>&1; then "
		    "timeout 1800 mpirun --allow-run-as-root -np %ld -H ",
		    (long)n * g);
		for (i = 0; i < n; i++) {
			char	*h = xasprintf("%s:%ld", names[i], g);

			if (i > 0)
				buf_addch(b, ',');
			buf_add_shquote(b, h);
			free(h);
		}
		buf_adds(b, " \"$B\" -b 8 -e 1G -f 2 -g 1 </dev/null 2>&1; vr\n"
		    "else echo 'no srun or mpirun to start it on the nodes'; "
		    "echo '@@rc 127'\n");
	}
	buf_adds(b, "fi\n");
	free(list);
	free(names);
}

void
verify_script(struct buf *b, const struct plan *p,
    const struct plan_node *node, struct plan_node *const *sel, size_t nsel,
    const struct verify_opts *o)
{
	const struct plan_node	*head = render_head(p);
	struct verify_daemon	 d[16];
	size_t			 nd, i;
	long			 gpus = verify_gpus(node);
	const char		*rt = p->sw.runtime;

	buf_adds(b, verify_script_head);
	buf_adds(b, facts_script());
	buf_adds(b, verify_script_funcs);

	buf_adds(b, "vs ip; ip -o addr show </dev/null 2>&1; vr\n");
	buf_adds(b, "vs links\n"
	    "for n in /sys/class/net/*; do\n"
	    "\t[ -e \"$n/mtu\" ] || continue\n"
	    "\tsp='' mt='' st=''\n"
	    "\tread -r mt < \"$n/mtu\"; read -r sp 2>/dev/null < \"$n/speed\"\n"
	    "\tread -r st 2>/dev/null < \"$n/operstate\"\n"
	    "\tprintf '%s\\t%s\\t%s\\t%s\\n' \"${n##*/}\" \"$sp\" \"$mt\" "
	    "\"$st\"\n"
	    "done\n");

	/* every planned name resolves; every other node answers */
	buf_adds(b, "vs getent\nfor h in");
	verify_script_names(b, p, NULL);
	buf_adds(b, "; do\n"
	    "\ta=$(getent ahostsv4 \"$h\" 2>/dev/null | head -n 1)\n"
	    "\t[ -n \"$a\" ] || a=$(getent hosts \"$h\" 2>/dev/null | "
	    "head -n 1)\n"
	    "\tprintf '%s\\t%s\\n' \"$h\" \"${a%% *}\"\n"
	    "done\n");
	buf_adds(b, "vs reach\n");
	if (p->nnodes > 1) {
		buf_adds(b, "printf '%s\\n'");
		verify_script_names(b, p, node);
		buf_addf(b, " | xargs -r -n 1 -P 32 sh -c '"
		    "if command -v ping >/dev/null 2>&1; then "
		    "if ping -c1 -W1 \"$1\" >/dev/null 2>&1; then "
		    "echo \"$1 ok icmp\"; else echo \"$1 fail icmp\"; fi; "
		    "elif command -v bash >/dev/null 2>&1; then "
		    "if timeout 3 bash -c \"exec 3<>/dev/tcp/\\$1/%ld\" _ "
		    "\"$1\" 2>/dev/null; then echo \"$1 ok tcp/%ld\"; "
		    "else echo \"$1 fail tcp/%ld\"; fi; "
		    "else echo \"$1 skip none\"; fi' _\n",
		    p->ssh.port > 0 ? p->ssh.port : 22L,
		    p->ssh.port > 0 ? p->ssh.port : 22L,
		    p->ssh.port > 0 ? p->ssh.port : 22L);
	}

	buf_adds(b, "vs time\n"
	    "if command -v chronyc >/dev/null 2>&1; then echo chrony; "
	    "$T chronyc -n tracking </dev/null 2>&1\n"
	    "elif command -v timedatectl >/dev/null 2>&1; then echo "
	    "timedatectl; timedatectl show </dev/null 2>&1 || "
	    "timedatectl status </dev/null 2>&1\n"
	    "else echo none; false; fi\nvr\n");

	nd = verify_daemons(p, node, d);
	buf_adds(b, "vs daemons\n");
	for (i = 0; i < nd; i++) {
		buf_adds(b, "vd ");
		buf_add_shquote(b, d[i].label);
		buf_addch(b, ' ');
		buf_add_shquote(b, d[i].regex);
		buf_addch(b, '\n');
	}

	/* GPUs: health from nvidia-smi, driver module, XIDs in the log */
	if (gpus > 0)
		buf_adds(b, "if :; then\n");
	else
		buf_adds(b, "if command -v nvidia-smi >/dev/null 2>&1; then\n");
	buf_adds(b, "\tif command -v nvidia-smi >/dev/null 2>&1; then\n"
	    "\t\tvs nvsmi-xml; $T nvidia-smi -q -x </dev/null 2>&1; vr\n"
	    "\tfi\n"
	    "\tvs nvidia-module; cat /proc/driver/nvidia/version 2>&1; vr\n"
	    "\tvs xid\n"
	    "\tif dmesg >/dev/null 2>&1; then echo 'log dmesg'; "
	    "dmesg 2>/dev/null | grep -i 'NVRM: Xid'\n"
	    "\telif command -v journalctl >/dev/null 2>&1 && "
	    "journalctl -k -q -n 1 >/dev/null 2>&1; then echo 'log journal'; "
	    "journalctl -k -b -q --no-pager 2>/dev/null | grep -i 'NVRM: Xid'\n"
	    "\telse echo 'log none'; fi\n"
	    "\techo '@@rc 0'\n"
	    "fi\n");

	if (rt != NULL && strcmp(rt, "none") != 0) {
		buf_adds(b, "vs runtime\n");
		if (strcmp(rt, "containerd") == 0)
			buf_adds(b, "$T ctr version </dev/null 2>&1; vr\n");
		else if (strcmp(rt, "docker") == 0)
			buf_adds(b, "$T docker info --format "
			    "'{{.ServerVersion}}' </dev/null 2>&1; vr\n");
		else
			buf_adds(b, "if command -v apptainer >/dev/null 2>&1; "
			    "then apptainer --version 2>&1; else singularity "
			    "--version 2>&1; fi </dev/null; vr\n");
		if (p->sw.nvidia_toolkit && gpus > 0)
			buf_adds(b, "vs runtime-gpus\n"
			    "if command -v nvidia-container-cli >/dev/null "
			    "2>&1; then $T nvidia-container-cli info "
			    "</dev/null 2>&1; vr\n"
			    "else echo 'nvidia-container-cli not found'; "
			    "echo '@@rc 127'; fi\n");
	}

	if (node == head) {
		if (verify_is_slurm(p))
			verify_script_slurm(b, p, sel, nsel, o);
		if (verify_is_k8s(p))
			buf_adds(b, "vs k8s\n"
			    "if command -v kubectl >/dev/null 2>&1; then\n"
			    "\tif [ -r /etc/kubernetes/admin.conf ]; then $T "
			    "kubectl --kubeconfig /etc/kubernetes/admin.conf "
			    "get nodes -o json </dev/null 2>&1\n"
			    "\telse $T kubectl get nodes -o json </dev/null "
			    "2>&1; fi\n\tvr\n"
			    "else echo 'kubectl not found'; echo '@@rc 127'; "
			    "fi\n");
		if (o->burn_in)
			verify_script_nccl(b, p, sel, nsel);
	}
	if (o->burn_in && gpus > 0)
		buf_adds(b, "vs dcgmi\n"
		    "if command -v dcgmi >/dev/null 2>&1; then timeout 1800 "
		    "dcgmi diag -r 2 </dev/null 2>&1; vr\n"
		    "else echo 'dcgmi (DCGM) not found'; echo '@@rc 127'; "
		    "fi\n");
	buf_adds(b, "vs end\necho '@@rc 0'\n");
}

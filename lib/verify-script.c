/*
 * verify-script.c: the script verify runs on each node, one SSH round
 * trip a node: templates/remote/verify.sh with the facts script spliced
 * in, after a preamble that tells it the plan (values shell-quoted).
 */
#include "compat.h"

#include "hostlist.h"
#include "plan.h"
#include "remote.h"
#include "render.h"
#include "verify-int.h"

/* Where verify.sh takes the facts script. */
#define VERIFY_FACTS_LINE	"#@facts@\n"

/* `NAME() { printf '%s\n' 'a' 'b' ...; }`: the plan's node names. */
static void
verify_script_names(struct buf *b, const char *fn, const struct plan *p,
    const struct plan_node *skip)
{
	size_t	i;

	buf_addf(b, "%s() {\n\tprintf '%%s\\n'", fn);
	for (i = 0; i < p->nnodes; i++) {
		if (&p->nodes[i] == skip)
			continue;
		buf_addch(b, ' ');
		buf_add_shquote(b, p->nodes[i].name);
	}
	buf_adds(b, " | grep .\n}\n");	/* none: printf's empty line */
}

/*
 * v_srun_all(): one v_srun call per partition the selected nodes are
 * compute nodes of, with the partition's nodes.
 */
static void
verify_script_slurm(struct buf *b, const struct plan *p,
    struct plan_node *const *sel, size_t nsel)
{
	const char	**parts = xcalloc(nsel + 1, sizeof *parts);
	const char	**done = xcalloc(nsel + 1, sizeof *done);
	size_t		  i, j, ndone = 0;

	for (i = 0; i < nsel; i++) {
		if (!plan_slurm_compute(p, sel[i], &parts[i]))
			parts[i] = "-";
		else if (parts[i] == NULL)
			parts[i] = "";	/* no partitions: the default one */
	}
	buf_adds(b, "v_srun_all() {\n\t:\n");
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
		buf_adds(b, "\tv_srun ");
		buf_add_shquote(b, p->sw.npartitions > 0 ? pt : "");
		buf_addch(b, ' ');
		buf_add_shquote(b, list);
		buf_addf(b, " %zu", n);
		for (k = 0; k < n; k++) {
			buf_addch(b, ' ');
			buf_add_shquote(b, names[k]);
		}
		buf_addch(b, '\n');
		free(list);
		free(names);
	}
	buf_adds(b, "}\n");
	free(parts);
	free(done);
}

/* v_nccl(): all_reduce_perf across the GPU nodes, by srun or mpirun. */
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
	buf_adds(b, "v_nccl() {\n\t");
	if (n == 0)
		buf_adds(b, "v_nccl_none\n}\n");
	else if (verify_is_slurm(p)) {
		list = hostlist_fold(names, n);
		buf_addf(b, "v_nccl_srun %zu %ld ", n, g);
		buf_add_shquote(b, list);
		buf_adds(b, "\n}\n");
		free(list);
	} else {
		struct buf	hosts = BUF_INIT;

		for (i = 0; i < n; i++)
			buf_addf(&hosts, "%s%s:%ld", i > 0 ? "," : "", names[i],
			    g);
		buf_addf(b, "v_nccl_mpirun %ld ", (long)n * g);
		buf_add_shquote(b, hosts.buf);
		buf_adds(b, "\n}\n");
		buf_release(&hosts);
	}
	free(names);
}

/*
 * V_USERS: the plan's users (their ids are read on every node); V_DIR, V_DIRUSER:
 * the directory and a user sssd must know; V_ACCT: 1
 * on the head with accounting (sacctmgr's associations); V_LOGS: 1 on the
 * log server (when each other node's log file was last written).
 */
static void
verify_script_people(struct buf *b, const struct plan *p,
    const struct plan_node *node)
{
	struct buf	u = BUF_INIT;
	const char	*dir_user;
	size_t		i;
	int		acct, logs;

	for (i = 0; i < p->nusers; i++)
		buf_addf(&u, "%s%s", i > 0 ? " " : "", p->users[i].name);
	buf_adds(b, "V_USERS=");
	buf_add_shquote(b, u.buf != NULL ? u.buf : "");
	/* V_DIR: 1 with a directory; V_DIRUSER: the user sssd is asked for */
	buf_addf(b, "\nV_DIR=%d\nV_DIRUSER=", p->directory.src != NULL);
	dir_user = NULL;
	if (p->directory.src != NULL)
		dir_user = p->directory.ldap.verify_user;
	buf_add_shquote(b, dir_user != NULL ? dir_user : "");
	acct = node == render_head(p) && verify_is_slurm(p) &&
	    plan_accounting(p);
	logs = p->logging.server != NULL &&
	    strcmp(p->logging.server, node->name) == 0;
	buf_addf(b, "\nV_ACCT=%d\nV_LOGS=%d\n", acct, logs);
	buf_release(&u);
}

/*
 * V_MOUNTS: "MOUNT rw|ro" a line, the exports this node mounts; V_WUSER:
 * who writes there (the plan's first user, in its own folder when the
 * mount has one, else the script takes the mount point's owner).
 */
static void
verify_script_storage(struct buf *b, const struct plan *p,
    const struct plan_node *node)
{
	struct buf	m = BUF_INIT;
	size_t		i;

	for (i = 0; i < p->nexports; i++)
		if (plan_export_client(p, &p->exports[i], node))
			buf_addf(&m, "%s %s\n", p->exports[i].mount,
			    p->exports[i].readonly ? "ro" : "rw");
	buf_adds(b, "V_MOUNTS=");
	buf_add_shquote(b, m.buf != NULL ? m.buf : "");
	buf_adds(b, "\nV_WUSER=");
	buf_add_shquote(b, p->nusers > 0 ? p->users[0].name : "root");
	buf_addch(b, '\n');
	buf_release(&m);
}

void
verify_script(struct buf *b, const struct plan *p, const struct plan_node *node,
    struct plan_node *const *sel, size_t nsel, const struct verify_opts *o)
{
	const struct plan_node	*head = render_head(p);
	const char		*rt = p->sw.runtime, *tail;
	struct verify_daemon	 d[16];
	size_t			 nd, i;
	long			 gpus = verify_gpus(node);
	int			 on_head = node == head;

	buf_addf(b, "V_PORT=%ld\n", p->ssh.port > 0 ? p->ssh.port : 22L);
	buf_addf(b, "V_GPUS=%d\n", gpus > 0);
	buf_adds(b, "V_RUNTIME=");
	buf_add_shquote(b, rt != NULL ? rt : "none");
	buf_addf(b, "\nV_TOOLKIT=%d\n", p->sw.nvidia_toolkit && gpus > 0);
	buf_addf(b, "V_SLURM=%d\n", on_head && verify_is_slurm(p));
	buf_addf(b, "V_K8S=%d\n", on_head && verify_is_k8s(p));
	buf_addf(b, "V_NCCL=%d\n", on_head && o->burn_in);
	buf_addf(b, "V_DCGM=%d\n", o->burn_in && gpus > 0);
	buf_addf(b, "V_GEMM=%d\nVGT=%d\n", o->burn_in && gpus > 0,
	    VERIFY_GEMM_SECONDS);
	buf_adds(b, "v_gemm_tests() {\n");
	for (i = 0; i < VERIFY_NGEMM; i++)
		buf_addf(b, "\tvg %s %ld %s\n", verify_gemm_tests[i].prec,
		    verify_gemm_tests[i].field, verify_gemm_tests[i].args);
	buf_adds(b, "}\n");
	buf_addf(b, "VJT=%ld\n", o->job_timeout_s > 0 ? o->job_timeout_s : 60);
	verify_script_people(b, p, node);
	verify_script_storage(b, p, node);
	verify_script_names(b, "v_names", p, NULL);
	verify_script_names(b, "v_others", p, node);
	nd = verify_daemons(p, node, d);
	buf_adds(b, "v_daemons() {\n\t:\n");
	for (i = 0; i < nd; i++) {
		buf_adds(b, "\tvd ");
		buf_add_shquote(b, d[i].label);
		buf_addch(b, ' ');
		buf_add_shquote(b, d[i].regex);
		buf_addch(b, '\n');
	}
	buf_adds(b, "}\n");
	verify_script_slurm(b, p, sel, nsel);
	verify_script_nccl(b, p, sel, nsel);

	/* the template, the facts script in it */
	tail = strstr(remote_verify_sh, VERIFY_FACTS_LINE);
	if (tail == NULL)
		abort();	/* the build embedded another verify.sh */
	buf_add(b, remote_verify_sh, (size_t)(tail - remote_verify_sh));
	buf_adds(b, facts_script());
	buf_adds(b, tail + strlen(VERIFY_FACTS_LINE));
}

/*
 * verify-services.c: the cluster's services as the head sees them:
 * Slurm (nodes, GRES, a test job on each), Kubernetes, Prometheus's
 * targets, and on request DCGM diagnostics and nccl-tests.
 */
#include "compat.h"

#include <math.h>
#include <time.h>

#include "hostlist.h"
#include "plan.h"
#include "render.h"
#include "str.h"
#include "verify-int.h"

/* The result of node `name` in the head's srun lines: 1 ok, 0 not. */
static int
verify_srun_result(const struct verify_sec *s, const char *name,
    char **detail)
{
	struct strvec	 lines = STRVEC_INIT;
	char		*single = NULL, *group = NULL, *ok = NULL;
	int		 r = -1;
	size_t		 i;

	ok = xasprintf("verify-ok %s", name);
	strvec_split_lines(&lines, s->body);
	for (i = 0; i < lines.n; i++) {
		struct strvec	 f = STRVEC_INIT;
		struct strvec	 names = STRVEC_INIT;
		struct prov_err	 e = PROV_ERR_INIT;

		strvec_split(&f, lines.v[i], '\t', 0);
		if (f.n == 4 && hostlist_expand(&names, f.v[1], 1000000,
		    &e) == 0 && strvec_find(&names, name) >= 0) {
			char	*o = strstr(f.v[3], ok);
			int	 hit = o != NULL && (o[strlen(ok)] == ' ' ||
			    o[strlen(ok)] == '\0');

			if (names.n == 1 && strcmp(names.v[0], name) == 0) {
				free(single);
				single = xasprintf("%c%s (exit %s)", hit ? '+' :
				    '-', str_trim(f.v[3]), f.v[2]);
			} else if (group == NULL)
				group = xasprintf("%c%s (exit %s)", hit ? '+' :
				    '-', str_trim(f.v[3]), f.v[2]);
		}
		prov_err_release(&e);
		strvec_clear(&names);
		strvec_clear(&f);
	}
	if (single != NULL || group != NULL) {
		const char	*use = single != NULL ? single : group;

		r = use[0] == '+';
		*detail = xstrdup(use + 1);
	}
	free(single);
	free(group);
	free(ok);
	strvec_clear(&lines);
	return r;
}

/*
 * Two heads: the backup controller answers scontrol ping on the head
 * ("Slurmctld(backup) at head-02 is UP"), as a row of the backup.
 */
static void
verify_eval_backup(struct verify_ctx *c, const char *ping)
{
	const struct plan_node	*b = plan_backup_head(c->p);
	struct strvec		 lines = STRVEC_INIT;
	const char		*got = NULL;
	size_t			 i;

	if (b == NULL)
		return;
	strvec_split_lines(&lines, ping);
	for (i = 0; i < lines.n; i++)
		if (strstr(lines.v[i], "(backup)") != NULL)
			got = lines.v[i];
	verify_row(c, got != NULL && strstr(got, "is UP") != NULL ? ROW_OK :
	    ROW_FAIL, b->name, "slurm backup controller", "UP",
	    got != NULL ? got : "not in scontrol ping", got != NULL &&
	    strstr(got, "is UP") != NULL ? NULL : "slurmctld on %s does not "
	    "answer: it takes over only when it runs (step slurm)", b->name);
	strvec_clear(&lines);
}

void
verify_eval_slurm(struct verify_ctx *c, size_t k)
{
	const struct verify_node	*vn = &c->nodes[k];
	const struct plan_node		*pn = vn->pn;
	const char			*node = pn->name, *part, *why;
	const struct verify_snode	*sn;
	char				 exp[64], got[96];
	char				*detail = NULL;
	long				 want, have;
	int				 r;

	if (!verify_is_slurm(c->p))
		return;
	if (pn == render_head(c->p)) {
		const struct verify_sec	*s = verify_node_sec(vn,
					    "slurm-ping");

		if (s == NULL)
			verify_row(c, ROW_SKIP, node, "slurm controller", "UP",
			    NULL, "not gathered");
		else {
			char	*l = verify_oneline(s->body, 200);

			verify_row(c, s->rc == 0 && strstr(s->body, "is UP") !=
			    NULL ? ROW_OK : ROW_FAIL, node,
			    "slurm controller", "UP", l, s->rc == 0 ? NULL :
			    "scontrol ping: slurmctld does not answer");
			free(l);
			verify_eval_backup(c, s->body);
		}
	}
	if (!plan_slurm_compute(c->p, pn, &part))
		return;
	if (!c->slurm_ok) {
		verify_row(c, ROW_SKIP, node, "slurm node", "idle, allocated "
		    "or mixed", NULL, "%s", c->slurm_why);
		return;
	}
	/* state */
	sn = verify_slurm_find(&c->sl, node);
	if (sn == NULL) {
		verify_row(c, ROW_FAIL, node, "slurm node", "idle, allocated "
		    "or mixed", "not in sinfo", "Slurm does not know the node: "
		    "slurm.conf lacks it, or slurmctld runs an old one");
		return;
	}
	if (verify_slurm_state_ok(sn->state, &why))
		verify_row(c, ROW_OK, node, "slurm node", "idle, allocated "
		    "or mixed", sn->state, NULL);
	else
		verify_row(c, ROW_FAIL, node, "slurm node", "idle, allocated "
		    "or mixed", sn->state, "%s%s%s", why,
		    sn->reason ? ": " : "", sn->reason ? sn->reason : "");
	/* GRES */
	want = verify_gpus(pn);
	have = verify_gres_gpus(sn->gres);
	if (want > 0)
		snprintf(exp, sizeof exp, "gpu:%ld", want);
	else
		snprintf(exp, sizeof exp, "no GPU GRES");
	if (sn->gpus_used >= 0 && (want > 0 || have > 0))
		snprintf(got, sizeof got, "%s (%ld in use)", sn->gres != NULL ?
		    sn->gres : "?", sn->gpus_used);
	else
		snprintf(got, sizeof got, "%s", sn->gres != NULL ? sn->gres :
		    "?");
	if (sn->gres == NULL)
		verify_row(c, ROW_SKIP, node, "slurm gres", exp, NULL,
		    "sinfo gave no GRES column");
	else if (have == want)
		verify_row(c, ROW_OK, node, "slurm gres", exp, got, NULL);
	else
		verify_row(c, ROW_FAIL, node, "slurm gres", exp, got,
		    "Slurm %s %ld GPU%s where the plan has %ld: gres.conf and "
		    "slurm.conf", have < want ? "offers only" : "offers", have,
		    have == 1 ? "" : "s", want);
	/* a job */
	{
		const struct verify_sec	*s = verify_node_sec(c->head,
					    "srun");

		if (s == NULL) {
			verify_row(c, ROW_SKIP, node, "slurm job", "runs",
			    NULL, "no job was started");
			return;
		}
		r = verify_srun_result(s, node, &detail);
		if (r < 0)
			verify_row(c, ROW_SKIP, node, "slurm job", "runs",
			    NULL, "no job was started on it");
		else if (r == 1)
			verify_row(c, ROW_OK, node, "slurm job", "runs",
			    "ran (srun)", NULL);
		else
			verify_row(c, ROW_FAIL, node, "slurm job", "runs",
			    "did not run", "srun: %s", detail);
		free(detail);
	}
}

void
verify_eval_k8s(struct verify_ctx *c, size_t k)
{
	const struct plan_node	*pn = c->nodes[k].pn;
	const char		*node = pn->name;
	const struct verify_k8s_node *kn = NULL;
	long			 want = verify_gpus(pn);
	size_t			 i;
	char			 exp[48], got[48];

	if (!verify_is_k8s(c->p))
		return;
	if (!c->k8s_ok) {
		verify_row(c, ROW_SKIP, node, "k8s node", "Ready", NULL, "%s",
		    c->k8s_why);
		return;
	}
	for (i = 0; i < c->k8.n; i++)
		if (strcmp(c->k8.v[i].name, node) == 0)
			kn = &c->k8.v[i];
	if (kn == NULL) {
		verify_row(c, ROW_FAIL, node, "k8s node", "Ready",
		    "not a node", "the node has not joined the cluster");
		return;
	}
	verify_row(c, kn->ready == 1 ? ROW_OK : ROW_FAIL, node, "k8s node",
	    "Ready", kn->ready == 1 ? "Ready" : "NotReady", kn->ready == 1 ?
	    NULL : "%s", kn->ready_reason ? kn->ready_reason : "no Ready "
	    "condition");
	if (want <= 0)
		return;
	snprintf(exp, sizeof exp, "nvidia.com/gpu: %ld", want);
	snprintf(got, sizeof got, "%ld", kn->gpus < 0 ? 0 : kn->gpus);
	verify_row(c, kn->gpus == want ? ROW_OK : ROW_FAIL, node, "k8s gpus",
	    exp, got, kn->gpus == want ? NULL : kn->gpus < 0 ?
	    "no nvidia.com/gpu allocatable: the NVIDIA device plugin is not "
	    "running there" : "fewer GPUs than planned");
}

/*
 * A target that is not up: its error, and when Prometheus scraped it, so
 * that a reader sees whether the scrape was verify's own or one older
 * that no newer scrape followed within verify's wait.
 */
static void
verify_prom_down(struct verify_ctx *c, const char *node, const char *what,
    const struct verify_target *t)
{
	const char	*e = t->error && *t->error ? t->error : "scrape failed";
	char		 at[32] = "";
	struct tm	 tm;
	time_t		 s = (time_t)t->last_scrape;

	if (t->last_scrape > 0 && gmtime_r(&s, &tm) != NULL)
		strftime(at, sizeof at, "%H:%M:%S UTC", &tm);
	if (*at == '\0')
		verify_row(c, ROW_FAIL, node, what, "up", t->health ?
		    t->health : "?", "%s", e);
	else if (c->env->since > 0 && t->last_scrape < c->env->since)
		verify_row(c, ROW_FAIL, node, what, "up", t->health ?
		    t->health : "?", "%s (last scraped at %s, %.0f s before "
		    "verify began; no scrape since)", e, at,
		    c->env->since - t->last_scrape);
	else
		verify_row(c, ROW_FAIL, node, what, "up", t->health ?
		    t->health : "?", "%s (scraped at %s)", e, at);
}

void
verify_eval_prom(struct verify_ctx *c, size_t k)
{
	const struct plan	*p = c->p;
	const struct plan_node	*pn = c->nodes[k].pn;
	static const struct {
		const char	*job;
		const char	*port;
	} jobs[] = { { "node", "9100" }, { "dcgm", "9400" } };
	size_t			 j, i;

	if (p->sw.prometheus == NULL)
		return;
	if (strcmp(p->sw.prometheus, pn->name) == 0 && c->env->prom_url) {
		if (c->prom_ok)
			verify_row(c, ROW_OK, pn->name, "prometheus api",
			    "answers", "answers", "%s", c->env->prom_url);
		else
			verify_row(c, ROW_FAIL, pn->name, "prometheus api",
			    "answers", NULL, "%s", c->prom_why);
	}
	for (j = 0; j < ARRAY_SIZE(jobs); j++) {
		const struct verify_target	*t = NULL;
		char				*what, *inst;

		if (j == 0 && !p->sw.node_exporter)
			continue;
		if (j == 1 && (!p->sw.dcgm_exporter || verify_gpus(pn) == 0))
			continue;
		what = xasprintf("prometheus %s", jobs[j].job);
		inst = xasprintf("%s:%s", pn->address != NULL ? pn->address :
		    pn->name, jobs[j].port);
		if (!c->prom_ok) {
			verify_row(c, ROW_SKIP, pn->name, what, "up", NULL,
			    "%s", c->prom_why);
			goto next;
		}
		for (i = 0; i < c->tg.n && t == NULL; i++) {
			const struct verify_target	*x = &c->tg.v[i];

			if (x->job == NULL || strcmp(x->job, jobs[j].job) != 0)
				continue;
			if ((x->node != NULL && strcmp(x->node, pn->name) ==
			    0) || (x->instance != NULL && strcmp(x->instance,
			    inst) == 0))
				t = x;
		}
		if (t == NULL)
			verify_row(c, ROW_FAIL, pn->name, what, "up",
			    "no target", "Prometheus does not scrape %s (job "
			    "'%s'): prometheus.yml is not the plan's", inst,
			    jobs[j].job);
		else if (t->health != NULL && strcmp(t->health, "up") == 0)
			verify_row(c, ROW_OK, pn->name, what, "up", "up",
			    NULL);
		else if (t->health != NULL && strcmp(t->health, "unknown") ==
		    0)
			verify_row(c, ROW_WARN, pn->name, what, "up",
			    "unknown", "not scraped yet");
		else
			verify_prom_down(c, pn->name, what, t);
next:
		free(what);
		free(inst);
	}
}

void
verify_eval_dcgm(struct verify_ctx *c, size_t k)
{
	const struct verify_node	*vn = &c->nodes[k];
	const char			*node = vn->pn->name;
	const struct verify_sec		*s = verify_node_sec(vn, "dcgmi");
	struct verify_dcgm		 d;
	struct prov_err			 err = PROV_ERR_INIT;
	char				 got[64], *l;

	if (!c->o->burn_in || verify_gpus(vn->pn) == 0)
		return;
	memset(&d, 0, sizeof d);
	d.failed = (struct strvec)STRVEC_INIT;
	if (s == NULL) {
		verify_row(c, ROW_SKIP, node, "dcgm diag", "pass", NULL,
		    "not gathered");
		return;
	}
	if (s->rc == 127) {
		verify_row(c, ROW_SKIP, node, "dcgm diag", "pass", NULL,
		    "dcgmi (NVIDIA DCGM) is not installed");
		return;
	}
	if (verify_parse_dcgmi(&d, s->body, &err) != 0) {
		l = verify_oneline(s->body, 200);
		if (strstr(s->body, "host engine") != NULL ||
		    strstr(s->body, "hostengine") != NULL)
			verify_row(c, ROW_SKIP, node, "dcgm diag", "pass",
			    NULL, "DCGM's nv-hostengine is not running: %s", l);
		else
			verify_row(c, ROW_FAIL, node, "dcgm diag", "pass",
			    NULL, "dcgmi diag -r 2 (exit %ld): %s", s->rc, l);
		free(l);
		goto out;
	}
	snprintf(got, sizeof got, "%ld pass, %ld fail, %ld warn, %ld skip",
	    d.pass, d.fail, d.warn, d.skip);
	if (d.fail > 0) {
		struct buf	b = BUF_INIT;
		size_t		i;

		for (i = 0; i < d.failed.n && i < 4; i++)
			buf_addf(&b, "%s%s", i ? "; " : "", d.failed.v[i]);
		verify_row(c, ROW_FAIL, node, "dcgm diag", "pass", got, "%s",
		    b.buf);
		buf_release(&b);
	} else
		verify_row(c, d.warn > 0 ? ROW_WARN : ROW_OK, node,
		    "dcgm diag", "pass", got, NULL);
out:
	verify_dcgm_release(&d);
	prov_err_release(&err);
}

/*
 * What all_reduce_perf should reach, GB/s of bus bandwidth: within a
 * node NVLink one way (the catalog's figure is both ways), or PCIe;
 * across nodes also at most the node's fabric ports.
 */
static double
verify_busbw_ref(const struct plan *p, struct plan_node *const *gpu_nodes,
    size_t n, char **how)
{
	const struct plan_hw	*hw = gpu_nodes[0]->hw;
	const struct cat_gpu	*g = hw->gpu_cat;
	double			 intra = -1, fabric = 0;
	size_t			 i;

	if (g != NULL && !isnan(g->nvlink_gbs) && g->nvlink_gbs > 0) {
		intra = g->nvlink_gbs / 2;
		*how = xasprintf("NVLink %g GB/s one way", intra);
	} else if (g != NULL && g->pcie_gen > 0 && g->pcie_lanes > 0) {
		static const double	lane[] = { 0, 0.25, 0.5, 0.985, 1.969,
		    3.938, 7.563 };

		intra = g->pcie_gen < (long)ARRAY_SIZE(lane) ?
		    lane[g->pcie_gen] * (double)g->pcie_lanes : -1;
		*how = xasprintf("PCIe Gen%ld x%ld %.1f GB/s", g->pcie_gen,
		    g->pcie_lanes, intra);
	} else {
		*how = xstrdup("no GPU interconnect figure in the catalog");
		return -1;
	}
	if (n < 2)
		return intra;
	for (i = 0; i < hw->nnics; i++) {
		const struct plan_nic	*nic = &hw->nics[i];
		const struct plan_net	*net = nic->network ?
		    plan_net_find(p, nic->network) : NULL;
		long			 ports = nic->cat != NULL &&
		    nic->cat->ports > 0 ? nic->cat->ports : 1;
		double			 gbps = nic->cat != NULL &&
		    !isnan(nic->cat->gbps) ? nic->cat->gbps : -1;

		if (net == NULL || net->role == NULL ||
		    strcmp(net->role, "fabric") != 0)
			continue;
		if (!isnan(net->gbps) && (gbps < 0 || net->gbps < gbps))
			gbps = net->gbps;
		if (gbps > 0)
			fabric += gbps / 8.0 * (double)(nic->count > 0 ?
			    nic->count : 1) * (double)ports;
	}
	if (fabric > 0 && fabric < intra) {
		free(*how);
		*how = xasprintf("fabric %g GB/s per node", fabric);
		return fabric;
	}
	return intra;
}

void
verify_eval_nccl(struct verify_ctx *c)
{
	const struct verify_sec	*s;
	struct verify_nccl	 r;
	struct prov_err		 err = PROV_ERR_INIT;
	struct plan_node	**gn;
	char			*how = NULL, exp[96], got[96], *l, *why = NULL;
	double			 ref, ratio;
	size_t			 i, n = 0;
	long			 planned = 0;

	if (!c->o->burn_in)
		return;
	memset(&r, 0, sizeof r);
	r.hosts = (struct strvec)STRVEC_INIT;
	gn = xcalloc(c->n + 1, sizeof *gn);
	for (i = 0; i < c->n; i++)
		if (verify_gpus(c->nodes[i].pn) > 0) {
			gn[n++] = (struct plan_node *)c->nodes[i].pn;
			planned += verify_gpus(c->nodes[i].pn);
		}
	if (n == 0)
		goto out;
	if (c->meas != NULL)
		c->meas->planned = planned;
	if (c->head == NULL || !c->head->reached ||
	    (s = verify_node_sec(c->head, "nccl")) == NULL) {
		verify_row(c, ROW_SKIP, VERIFY_CLUSTER, "nccl all_reduce",
		    "bus bandwidth", NULL, "the head did not run it");
		why = xstrdup("the head did not run it");
		goto out;
	}
	if (s->rc == 127) {
		l = verify_first_line(s->body);
		verify_row(c, ROW_SKIP, VERIFY_CLUSTER, "nccl all_reduce",
		    "bus bandwidth", NULL, "%s", l);
		why = l;
		goto out;
	}
	if (verify_parse_nccl(&r, s->body, &err) != 0) {
		l = verify_oneline(s->body, 200);
		verify_row(c, ROW_FAIL, VERIFY_CLUSTER, "nccl all_reduce",
		    "bus bandwidth", NULL, "all_reduce_perf (exit %ld): %s",
		    s->rc, l);
		why = xasprintf("all_reduce_perf (exit %ld): %s", s->rc, l);
		free(l);
		goto out;
	}
	ref = verify_busbw_ref(c->p, gn, n, &how);
	snprintf(got, sizeof got, "peak %.1f GB/s, average %.1f GB/s",
	    r.peak_busbw, r.avg_busbw);
	if (r.wrong > 0) {
		verify_row(c, ROW_FAIL, VERIFY_CLUSTER, "nccl all_reduce",
		    "0 wrong", got, "%ld wrong results: data corruption on a "
		    "GPU or link", r.wrong);
		why = xasprintf("all_reduce_perf: %ld wrong results", r.wrong);
		goto out;
	}
	/* A bandwidth measured on right results is a figure estimate can
	 * use, whatever the catalog says it should be. */
	if (c->meas != NULL && r.peak_busbw > 0) {
		struct verify_measured	*m = c->meas;

		m->busbw = r.peak_busbw;
		m->bytes = r.peak_bytes;
		m->ranks = r.ranks;
		for (i = 0; i < r.hosts.n; i++)
			strvec_push(&m->ar_nodes, r.hosts.v[i]);
		m->ar_tool = r.version != NULL ? xasprintf("all_reduce_perf "
		    "(%s)", r.version) : xstrdup("nccl-tests all_reduce_perf");
	}
	if (ref <= 0) {
		verify_row(c, ROW_SKIP, VERIFY_CLUSTER, "nccl all_reduce",
		    NULL, got, "%s: no ratio", how);
		goto out;
	}
	ratio = r.peak_busbw / ref;
	snprintf(exp, sizeof exp, "~%.0f GB/s (%s)", ref, how);
	snprintf(got, sizeof got, "peak %.1f GB/s (%.2f of it), avg %.1f",
	    r.peak_busbw, ratio, r.avg_busbw);
	verify_row(c, ratio >= VERIFY_BUSBW_OK ? ROW_OK : ratio >=
	    VERIFY_BUSBW_WARN ? ROW_WARN : ROW_FAIL, VERIFY_CLUSTER,
	    "nccl all_reduce", exp, got, ratio >= VERIFY_BUSBW_OK ? "%zu node%s"
	    : "%zu node%s: below %.0f%% of what the interconnect allows", n, n
	    == 1 ? "" : "s", VERIFY_BUSBW_OK * 100);
out:
	if (why != NULL && c->meas != NULL)
		strvec_pushf(&c->meas->missing, "all-reduce: %s", why);
	free(why);
	free(how);
	free(gn);
	verify_nccl_release(&r);
	prov_err_release(&err);
}

/* The head's Slurm and Kubernetes views, and Prometheus's. */

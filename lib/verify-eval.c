/*
 * verify-eval.c: judge each node's answer against the plan: identity,
 * InfiniBand, GPUs, names, time, daemons and the container runtime; and
 * verify_eval(), which prepares the cluster-wide views and runs every
 * check.
 */
#include "compat.h"

#include <math.h>

#include "plan.h"
#include "render.h"
#include "str.h"
#include "verify-int.h"

/* ------------------------------------------------------------------ */
/* What the plan expects of a node */

int
verify_is_slurm(const struct plan *p)
{
	return p->sw.orchestrator != NULL &&
	    strcmp(p->sw.orchestrator, "slurm") == 0;
}

int
verify_is_k8s(const struct plan *p)
{
	return p->sw.orchestrator != NULL &&
	    strcmp(p->sw.orchestrator, "kubernetes") == 0;
}

long
verify_gpus(const struct plan_node *n)
{
	return n->hw != NULL && n->hw->ngpus > 0 ? n->hw->ngpus : 0;
}

/* The daemons the plan puts on node n (at most 12). */
size_t
verify_daemons(const struct plan *p, const struct plan_node *n,
    struct verify_daemon *d)
{
	const struct plan_node	*head = render_head(p);
	const char		*part;
	const char		*rt = p->sw.runtime;
	size_t			 k = 0;

	if (verify_is_slurm(p)) {
		int	compute = plan_slurm_compute(p, n, &part);

		if (n == head || n == plan_backup_head(p))
			d[k++] = (struct verify_daemon){ "slurmctld",
			    "slurmctld" };
		if (compute)
			d[k++] = (struct verify_daemon){ "slurmd", "slurmd" };
		if (n == head || n == plan_backup_head(p) || compute)
			d[k++] = (struct verify_daemon){ "munged", "munged" };
	}
	if (verify_is_k8s(p)) {
		d[k++] = (struct verify_daemon){ "kubelet", "kubelet" };
		if (n == head)
			d[k++] = (struct verify_daemon){ "kube-apiserver",
			    "kube-apiserver" };
	}
	if (rt != NULL && strcmp(rt, "containerd") == 0)
		d[k++] = (struct verify_daemon){ "containerd", "containerd" };
	else if (rt != NULL && strcmp(rt, "docker") == 0)
		d[k++] = (struct verify_daemon){ "dockerd", "dockerd" };
	if (p->sw.node_exporter)
		d[k++] = (struct verify_daemon){ "node_exporter",
		    "prometheus-node-exporter|node_exporter" };
	if (p->sw.dcgm_exporter && verify_gpus(n) > 0)
		d[k++] = (struct verify_daemon){ "dcgm-exporter",
		    "dcgm-exporter" };
	if (p->sw.prometheus != NULL && strcmp(p->sw.prometheus,
	    n->name) == 0)
		d[k++] = (struct verify_daemon){ "prometheus", "prometheus" };
	return k;
}

/* The node's address on net (NULL: not on it). */
static const char *
verify_net_addr(const struct plan *p, const struct plan_node *n,
    const struct plan_net *net)
{
	const char	*a = plan_node_addr(n, net->name);
	uint32_t	 ip;

	if (a != NULL)
		return a;
	if (n->address == NULL || plan_parse_ipv4(n->address, &ip) != 0)
		return NULL;
	if (net->role != NULL && strcmp(net->role, "management") == 0)
		return n->address;
	if (net->cidr != NULL && (ip & net->mask) == net->addr) {
		size_t	i;

		/* the management net is the one whose cidr holds it, unless
		 * another net has the management role */
		for (i = 0; i < p->nnets; i++)
			if (p->nets[i].role != NULL &&
			    strcmp(p->nets[i].role, "management") == 0 &&
			    &p->nets[i] != net)
				return NULL;
		return n->address;
	}
	return NULL;
}

/* ------------------------------------------------------------------ */
/* Judgement */

struct verify_ifaddr {
	char		*name;
	uint32_t	 addr;
	int		 prefix;
	char		*text;		/* "10.0.0.5/24" */
};

struct verify_link {
	char	*name;
	long	 speed;		/* Mb/s, -1 unknown */
	long	 mtu;
	char	*state;
};

struct verify_nd {
	struct verify_ifaddr	*ifa;
	size_t			 nifa, aifa;
	struct verify_link	*links;
	size_t			 nlinks, alinks;
};

static void
verify_nd_parse(struct verify_nd *d, const struct verify_node *n)
{
	const struct verify_sec	*s;
	struct strvec		 lines = STRVEC_INIT, w = STRVEC_INIT;
	size_t			 i;

	if ((s = verify_node_sec(n, "ip")) != NULL) {
		strvec_split_lines(&lines, s->body);
		for (i = 0; i < lines.n; i++) {
			struct verify_ifaddr	*a;
			char			*slash, *at;
			uint32_t		 ip;
			long			 pfx = 32;

			strvec_clear(&w);
			verify_words(&w, lines.v[i]);
			/* "2: eth0    inet 10.0.0.5/24 brd ..." */
			if (w.n < 4 || strcmp(w.v[2], "inet") != 0)
				continue;
			if ((slash = strchr(w.v[3], '/')) != NULL) {
				*slash = '\0';
				if (str_to_long(slash + 1, &pfx) != 0 ||
				    pfx < 0 || pfx > 32)
					continue;
			}
			if (plan_parse_ipv4(w.v[3], &ip) != 0)
				continue;
			if (slash != NULL)
				*slash = '/';
			if ((at = strchr(w.v[1], '@')) != NULL)
				*at = '\0';
			ALLOC_GROW(d->ifa, d->nifa + 1, d->aifa);
			a = &d->ifa[d->nifa++];
			a->name = xstrdup(w.v[1]);
			a->addr = ip;
			a->prefix = (int)pfx;
			a->text = xstrdup(w.v[3]);
		}
		strvec_clear(&lines);
	}
	if ((s = verify_node_sec(n, "links")) != NULL) {
		strvec_split_lines(&lines, s->body);
		for (i = 0; i < lines.n; i++) {
			struct verify_link	*l;

			strvec_clear(&w);
			strvec_split(&w, lines.v[i], '\t', 0);
			if (w.n < 4 || *w.v[0] == '\0')
				continue;
			ALLOC_GROW(d->links, d->nlinks + 1, d->alinks);
			l = &d->links[d->nlinks++];
			l->name = xstrdup(w.v[0]);
			l->speed = verify_long(w.v[1]);
			l->mtu = verify_long(w.v[2]);
			l->state = xstrdup(w.v[3]);
		}
	}
	strvec_clear(&w);
	strvec_clear(&lines);
}

static void
verify_nd_release(struct verify_nd *d)
{
	size_t	i;

	for (i = 0; i < d->nifa; i++) {
		free(d->ifa[i].name);
		free(d->ifa[i].text);
	}
	free(d->ifa);
	for (i = 0; i < d->nlinks; i++) {
		free(d->links[i].name);
		free(d->links[i].state);
	}
	free(d->links);
}

static uint32_t
verify_mask(int prefix)
{
	return prefix <= 0 ? 0 : prefix >= 32 ? 0xffffffffu :
	    ~((1u << (32 - prefix)) - 1);
}

/* The interface holding addr: exactly, else a loopback prefix holding it. */
static const struct verify_ifaddr *
verify_nd_addr(const struct verify_nd *d, const char *addr, int *exact)
{
	uint32_t	ip;
	size_t		i;

	*exact = 0;
	if (addr == NULL || plan_parse_ipv4(addr, &ip) != 0)
		return NULL;
	for (i = 0; i < d->nifa; i++)
		if (d->ifa[i].addr == ip) {
			*exact = 1;
			return &d->ifa[i];
		}
	for (i = 0; i < d->nifa; i++)
		if (strcmp(d->ifa[i].name, "lo") == 0 &&
		    (ip & verify_mask(d->ifa[i].prefix)) ==
		    (d->ifa[i].addr & verify_mask(d->ifa[i].prefix)))
			return &d->ifa[i];
	return NULL;
}

static const struct verify_link *
verify_nd_link(const struct verify_nd *d, const char *name)
{
	size_t	i;

	for (i = 0; i < d->nlinks; i++)
		if (strcmp(d->links[i].name, name) == 0)
			return &d->links[i];
	return NULL;
}

/* A row of node `node` (row.h); the hint from fmt, NULL for none. */
void
verify_row(struct verify_ctx *c, enum row_verdict v, const char *node,
    const char *what, const char *exp, const char *found, const char *fmt,
    ...)
{
	struct row	*r = rows_addf(c->out, v, node, what, exp, found, NULL);
	va_list		 ap;

	if (fmt != NULL) {
		va_start(ap, fmt);
		r->hint = xvasprintf(fmt, ap);
		va_end(ap);
	}
}

/* hostname, addresses, and per network the link's speed and MTU */
static void
verify_eval_identity(struct verify_ctx *c, size_t k)
{
	const struct verify_node	*vn = &c->nodes[k];
	const struct plan_node		*pn = vn->pn;
	const struct verify_nd		*d = &c->nd[k];
	const struct plan		*p = c->p;
	const char			*h = vn->facts->node;
	size_t				 i, len = strlen(pn->name);

	if (h == NULL)
		verify_row(c, ROW_SKIP, pn->name, "hostname", pn->name, NULL,
		    "uname -n printed nothing");
	else if (strcmp(h, pn->name) == 0 || (strncmp(h, pn->name, len) == 0 &&
	    h[len] == '.'))
		verify_row(c, ROW_OK, pn->name, "hostname", pn->name, h,
		    NULL);
	else
		verify_row(c, ROW_FAIL, pn->name, "hostname", pn->name, h,
		    "the node calls itself '%s' (apply's base step sets it)",
		    h);

	for (i = 0; i < p->nnets; i++) {
		const struct plan_net		*net = &p->nets[i];
		const char			*addr = verify_net_addr(p, pn,
						    net);
		const struct verify_ifaddr	*ia;
		const struct verify_link	*l;
		char				*what, *found;
		int				 exact;

		if (addr == NULL)
			continue;
		what = xasprintf("address %s", net->name);
		if (verify_node_sec(vn, "ip") == NULL ||
		    verify_node_sec(vn, "ip")->rc != 0) {
			verify_row(c, ROW_SKIP, pn->name, what, addr, NULL,
			    "'ip -o addr' did not run");
			free(what);
			continue;
		}
		ia = verify_nd_addr(d, addr, &exact);
		if (ia == NULL) {
			struct buf	have = BUF_INIT;
			size_t		j;

			for (j = 0; j < d->nifa && j < 6; j++)
				buf_addf(&have, "%s%s %s", j ? ", " : "",
				    d->ifa[j].name, d->ifa[j].text);
			verify_row(c, ROW_FAIL, pn->name, what, addr, have.len
			    ? have.buf : "none", "no interface holds the "
			    "planned address");
			buf_release(&have);
			free(what);
			continue;
		}
		found = xasprintf("%s %s", ia->name, ia->text);
		verify_row(c, ROW_OK, pn->name, what, addr, found, exact ?
		    NULL : "inside the loopback prefix of '%s'", ia->name);
		free(found);
		free(what);

		if (net->kind != NULL && strcmp(net->kind, "ethernet") != 0)
			continue;
		l = verify_nd_link(d, ia->name);
		what = xasprintf("mtu %s", net->name);
		if (l == NULL || l->mtu < 0)
			verify_row(c, ROW_SKIP, pn->name, what, NULL, NULL,
			    "no MTU for '%s' in /sys/class/net", ia->name);
		else {
			char	exp[48], got[64];

			snprintf(got, sizeof got, "%ld (%s)", l->mtu, ia->name);
			snprintf(exp, sizeof exp, "%ld (as the other nodes)",
			    c->mtu[i]);
			if (c->mtu[i] <= 0 || l->mtu == c->mtu[i])
				verify_row(c, ROW_OK, pn->name, what, exp,
				    got, NULL);
			else
				verify_row(c, ROW_FAIL, pn->name, what, exp,
				    got, "MTU differs from the rest of network "
				    "'%s': large frames get dropped",
				    net->name);
		}
		free(what);
		what = xasprintf("speed %s", net->name);
		{
			char	exp[48], got[64];

			snprintf(exp, sizeof exp, ">= %g Gb/s", net->gbps);
			if (l == NULL || l->speed <= 0)
				verify_row(c, ROW_SKIP, pn->name, what, exp,
				    NULL, "'%s' reports no link speed (virtual "
				    "or loopback interface)", ia->name);
			else {
				snprintf(got, sizeof got, "%g Gb/s (%s)",
				    (double)l->speed / 1000.0, ia->name);
				if (isnan(net->gbps) ||
				    (double)l->speed >= net->gbps * 1000 - 0.5)
					verify_row(c, ROW_OK, pn->name, what,
					    exp, got, NULL);
				else
					verify_row(c, ROW_FAIL, pn->name,
					    what, exp, got, "the link runs "
					    "slower than planned: cable, "
					    "transceiver or switch port");
			}
		}
		free(what);
	}
}

/* InfiniBand ports of the planned fabric cards: Active at the plan's rate */
static void
verify_eval_ib(struct verify_ctx *c, size_t k)
{
	const struct verify_node	*vn = &c->nodes[k];
	const struct plan_node		*pn = vn->pn;
	const struct plan		*p = c->p;
	const struct facts		*f = vn->facts;
	size_t				 i, j;

	if (pn->hw == NULL)
		return;
	for (i = 0; i < p->nnets; i++) {
		const struct plan_net	*net = &p->nets[i];
		struct buf		 bad = BUF_INIT;
		char			*what, exp[64], got[96];
		long			 want = 0, active = 0, ports = 0;
		double			 rate = -1;

		if (net->kind == NULL || strcmp(net->kind, "infiniband") != 0)
			continue;
		for (j = 0; j < pn->hw->nnics; j++)
			if (pn->hw->nics[j].network != NULL &&
			    strcmp(pn->hw->nics[j].network, net->name) == 0)
				want += pn->hw->nics[j].count > 0 ?
				    pn->hw->nics[j].count : 1;
		if (want == 0)
			continue;
		what = xasprintf("ib %s", net->name);
		snprintf(exp, sizeof exp, "%ld port%s Active at >= %g Gb/s",
		    want, want == 1 ? "" : "s", net->gbps);
		for (j = 0; j < f->nib; j++) {
			const struct facts_ib	*ib = &f->ib[j];

			if (ib->link_layer != NULL &&
			    strcasecmp(ib->link_layer, "InfiniBand") != 0)
				continue;
			ports++;
			if (ib->state != NULL && strcmp(ib->state, "active") ==
			    0 && (isnan(net->gbps) ||
			    ib->rate_gbps >= net->gbps - 0.01)) {
				active++;
				if (rate < 0 || ib->rate_gbps < rate)
					rate = ib->rate_gbps;
			} else if (bad.len < 300)
				buf_addf(&bad, "%s%s/%ld %s%s%s at %g Gb/s",
				    bad.len ? ", " : "", ib->ca, ib->port,
				    ib->state ? ib->state : "?",
				    ib->phys_state ? " " : "",
				    ib->phys_state ? ib->phys_state : "",
				    ib->rate_gbps);
		}
		if (ports == 0)
			verify_row(c, ROW_FAIL, pn->name, what, exp,
			    "no InfiniBand port", "/sys/class/infiniband is "
			    "empty: card missing or the driver (mlx5_ib) not "
			    "loaded");
		else {
			snprintf(got, sizeof got, "%ld of %ld Active at "
			    ">= %g Gb/s", active, ports, net->gbps);
			if (active >= want)
				verify_row(c, ROW_OK, pn->name, what, exp,
				    got, bad.len ? "also: %s" : NULL, bad.buf);
			else
				verify_row(c, ROW_FAIL, pn->name, what, exp,
				    got, "%s", bad.len ? bad.buf :
				    "too few ports");
		}
		buf_release(&bad);
		free(what);
	}
}

/* What nvidia-smi says of a node's GPUs, summed over them. */
struct verify_gpu_tally {
	size_t		 n;
	long		 on, off;		/* persistence mode */
	long		 na;			/* without ECC memory */
	const char	*nm;			/* the first with ECC off */
	const char	*name0;			/* the first GPU's name */
	long		 unc, cor;		/* ECC errors */
	long		 retired, retired_known, pending, rfail;
};

static void
verify_gpu_tally(struct verify_gpu_tally *t, const struct verify_nvsmi *nv)
{
	size_t	i;

	memset(t, 0, sizeof *t);
	t->n = nv->n;
	t->name0 = nv->n > 0 && nv->gpus[0].name != NULL ? nv->gpus[0].name :
	    "GPU";
	for (i = 0; i < nv->n; i++) {
		const struct verify_gpu	*g = &nv->gpus[i];

		if (g->persistence != NULL && strcmp(g->persistence,
		    "Enabled") == 0)
			t->on++;
		else
			t->off++;
		if (g->ecc_mode == NULL)
			t->na++;
		else if (strcmp(g->ecc_mode, "Enabled") != 0 && t->nm == NULL)
			t->nm = g->name != NULL ? g->name : "?";
		if (g->ecc_vol_unc > 0)
			t->unc += g->ecc_vol_unc;
		if (g->ecc_agg_unc > 0)
			t->unc += g->ecc_agg_unc;
		if (g->ecc_agg_cor > 0)
			t->cor += g->ecc_agg_cor;
		if (g->retired_sbe >= 0 || g->retired_dbe >= 0) {
			long	r = (g->retired_sbe > 0 ? g->retired_sbe : 0) +
			    (g->retired_dbe > 0 ? g->retired_dbe : 0);

			t->retired_known++;
			if (r > t->retired)
				t->retired = r;
		}
		if (g->retire_pending == 1 || g->remap_pending == 1)
			t->pending++;
		if (g->remap_failure == 1)
			t->rfail++;
		if (g->remap_failure >= 0 && g->retired_sbe < 0 &&
		    g->retired_dbe < 0)
			t->retired_known++;
	}
}

/* The driver nvidia-smi runs against the plan's branch or version. */
static void
verify_eval_driver(struct verify_ctx *c, const struct plan_node *pn,
    const struct buf *exp, const struct verify_nvsmi *nv)
{
	const struct plan	*p = c->p;
	const char	*v = nv->driver_version;
	size_t		 bl = p->sw.driver_branch ?
	    strlen(p->sw.driver_branch) : 0;

	if (exp->len == 0)
		verify_row(c, ROW_SKIP, pn->name, "gpu driver", NULL,
		    v, "the plan names no driver branch");
	else if (v == NULL)
		verify_row(c, ROW_FAIL, pn->name, "gpu driver",
		    exp->buf, NULL, "nvidia-smi reports no driver "
		    "version");
	else if (p->sw.driver_version != NULL ?
	    strcmp(v, p->sw.driver_version) == 0 :
	    (strncmp(v, p->sw.driver_branch, bl) == 0 &&
	    (v[bl] == '.' || v[bl] == '\0')))
		verify_row(c, ROW_OK, pn->name, "gpu driver", exp->buf,
		    v, NULL);
	else
		verify_row(c, ROW_FAIL, pn->name, "gpu driver",
		    exp->buf, v, "another driver than planned: apply "
		    "the gpu-driver step (a reboot may be needed)");
}

static void
verify_eval_persistence(struct verify_ctx *c, const struct plan_node *pn,
    const struct verify_gpu_tally *t)
{
	struct buf	b = BUF_INIT;

	buf_addf(&b, "%ld of %zu Enabled", t->on, t->n);
	if (t->n == 0)
		verify_row(c, ROW_SKIP, pn->name, "gpu persistence",
		    "Enabled", NULL, "nvidia-smi lists no GPU");
	else if (t->off == 0)
		verify_row(c, ROW_OK, pn->name, "gpu persistence", "Enabled",
		    b.buf, NULL);
	else
		verify_row(c, ROW_WARN, pn->name, "gpu persistence",
		    "Enabled", b.buf, "persistence mode off: the driver "
		    "unloads between jobs (start nvidia-persistenced)");
	buf_release(&b);
}

static void
verify_eval_ecc(struct verify_ctx *c, const struct plan_node *pn,
    const struct verify_gpu_tally *t)
{
	struct buf	b = BUF_INIT;

	buf_addf(&b, "%ld uncorrectable, %ld corrected", t->unc, t->cor);
	if (t->unc > 0)
		verify_row(c, ROW_FAIL, pn->name, "gpu ecc",
		    "0 uncorrectable", b.buf, "uncorrectable ECC errors: drain "
		    "the node and run dcgmi diag -r 3; RMA when they recur");
	else if (t->na == (long)t->n)
		verify_row(c, ROW_SKIP, pn->name, "gpu ecc",
		    "0 uncorrectable", NULL, "'%s' has no ECC memory "
		    "(nvidia-smi: N/A)", t->name0);
	else if (t->nm != NULL)
		verify_row(c, ROW_WARN, pn->name, "gpu ecc", "Enabled, 0 "
		    "uncorrectable", b.buf, "ECC is off on a '%s': enable it "
		    "(nvidia-smi -e 1, then reset)", t->nm);
	else
		verify_row(c, ROW_OK, pn->name, "gpu ecc", "0 uncorrectable",
		    b.buf, NULL);
	buf_release(&b);
}

/* Retired pages and row remapping. */
static void
verify_eval_retired(struct verify_ctx *c, const struct plan_node *pn,
    const struct verify_gpu_tally *t)
{
	struct buf	b = BUF_INIT;

	buf_addf(&b, "max %ld retired, %ld pending, %ld remap failures",
	    t->retired, t->pending, t->rfail);
	if (t->rfail > 0)
		verify_row(c, ROW_FAIL, pn->name, "gpu retired pages",
		    "no remap failure", b.buf, "row remapping failed on %ld "
		    "GPU%s: the memory is exhausted, RMA", t->rfail,
		    t->rfail == 1 ? "" : "s");
	else if (t->retired >= VERIFY_RETIRED_MAX)
		verify_row(c, ROW_FAIL, pn->name, "gpu retired pages",
		    "< 60 retired", b.buf, "%ld retired pages: at NVIDIA's RMA "
		    "mark", t->retired);
	else if (t->pending > 0)
		verify_row(c, ROW_WARN, pn->name, "gpu retired pages",
		    "none pending", b.buf, "a retirement or remap waits for a "
		    "GPU reset or reboot");
	else if (t->retired_known == 0)
		verify_row(c, ROW_SKIP, pn->name, "gpu retired pages", NULL,
		    NULL, "nvidia-smi reports neither retired pages nor row "
		    "remapping (N/A)");
	else
		verify_row(c, ROW_OK, pn->name, "gpu retired pages",
		    "< 60 retired, none pending", b.buf, NULL);
	buf_release(&b);
}

/*
 * MIG instances: with the plan's layout (hardware.*.mig, the same
 * profiles on every GPU), each GPU with MIG on lists that many instances
 * (nvidia-smi lists instances, not their profiles: the count is
 * compared).  The mode itself is the facts' row ("gpu mig mode"), so a
 * GPU with MIG off is not counted twice.
 */
static void
verify_eval_mig(struct verify_ctx *c, const struct plan_node *pn,
    const struct verify_nvsmi *nv)
{
	const struct strvec	*want = pn->hw != NULL ? &pn->hw->mig : NULL;
	struct buf		 exp = BUF_INIT, got = BUF_INIT;
	size_t			 i, on = 0, na = 0, wrong = 0;
	const char		*bad = NULL;

	if (want == NULL || want->n == 0)
		return;
	for (i = 0; i < nv->n; i++) {
		const struct verify_gpu	*g = &nv->gpus[i];

		if (g->mig_mode == NULL)
			na++;
		else if (strcmp(g->mig_mode, "Enabled") == 0) {
			on++;
			if (g->mig_devices != (long)want->n && wrong++ == 0)
				bad = g->bus_id != NULL ? g->bus_id : "?";
		}
	}
	buf_addf(&exp, "%zu instance%s a GPU (", want->n, want->n == 1 ? "" :
	    "s");
	for (i = 0; i < want->n; i++)
		buf_addf(&exp, "%s%s", i ? " " : "", want->v[i]);
	buf_addch(&exp, ')');
	buf_addf(&got, "%zu of %zu GPU%s as planned", on - wrong, nv->n,
	    nv->n == 1 ? "" : "s");
	if (na == nv->n)
		verify_row(c, ROW_FAIL, pn->name, "gpu mig instances", exp.buf,
		    NULL, "'%s' reports no MIG mode (N/A): it does not support "
		    "MIG", nv->n > 0 && nv->gpus[0].name ? nv->gpus[0].name :
		    "GPU");
	else if (wrong > 0)
		verify_row(c, ROW_FAIL, pn->name, "gpu mig instances", exp.buf,
		    got.buf, "GPU %s has not the plan's MIG instances: apply the "
		    "gpu-driver step", bad);
	else if (on < nv->n)
		verify_row(c, ROW_SKIP, pn->name, "gpu mig instances", exp.buf,
		    got.buf, "MIG is off on %zu GPU%s (the 'gpu mig mode' row)",
		    nv->n - on, nv->n - on == 1 ? "" : "s");
	else
		verify_row(c, ROW_OK, pn->name, "gpu mig instances", exp.buf,
		    got.buf, NULL);
	buf_release(&exp);
	buf_release(&got);
}

/* XIDs in the kernel log since boot: a fatal one or a storm fails. */
static void
verify_eval_xid(struct verify_ctx *c, const struct plan_node *pn,
    const struct verify_sec *sxid)
{
	struct buf	b = BUF_INIT;
	size_t		i;

	if (sxid == NULL)
		verify_row(c, ROW_SKIP, pn->name, "gpu xid", "no XID storm",
		    NULL, "the kernel log was not read");
	else if (str_starts(sxid->body, "log none"))
		verify_row(c, ROW_SKIP, pn->name, "gpu xid", "no XID storm",
		    NULL, "neither dmesg nor journalctl could read the kernel "
		    "log");
	else {
		struct verify_xid	x;
		long			fatal = -1, storm = -1;

		verify_parse_xid(&x, sxid->body);
		for (i = 0; i < ARRAY_SIZE(x.codes); i++) {
			if (x.codes[i] > 0 && verify_xid_fatal((long)i) &&
			    fatal < 0)
				fatal = (long)i;
			if (x.codes[i] >= VERIFY_XID_STORM && storm < 0)
				storm = (long)i;
		}
		buf_reset(&b);
		if (x.lines == 0)
			buf_adds(&b, "none since boot");
		else
			buf_addf(&b, "%ld events, most: XID %ld (%ld)",
			    x.lines, x.worst, x.codes[x.worst]);
		if (x.lines == 0)
			verify_row(c, ROW_OK, pn->name, "gpu xid",
			    "no XID storm", b.buf, NULL);
		else if (fatal >= 0)
			verify_row(c, ROW_FAIL, pn->name, "gpu xid",
			    "no XID storm", b.buf, "XID %ld means lost or "
			    "failing hardware (NVIDIA XID catalog): drain the "
			    "node", fatal);
		else if (storm >= 0)
			verify_row(c, ROW_FAIL, pn->name, "gpu xid",
			    "no XID storm", b.buf, "XID storm: %ld events of "
			    "XID %ld since boot", x.codes[storm], storm);
		else
			verify_row(c, ROW_WARN, pn->name, "gpu xid",
			    "no XID storm", b.buf, "application-level XIDs; "
			    "look at the jobs that ran");
	}
	buf_release(&b);
}

/*
 * What nvidia-smi wrote to stderr while it answered: "WARNING: infoROM is
 * corrupted at gpu ..." and the like are the driver's own health
 * warnings, shown rather than lost (and kept out of the XML).
 */
static void
verify_eval_nvsmi_stderr(struct verify_ctx *c, const struct plan_node *pn,
    const struct verify_sec *s)
{
	char	*first;

	if (s == NULL || s->body[strspn(s->body, " \t\r\n")] == '\0')
		return;
	first = verify_first_line(s->body);
	verify_row(c, ROW_WARN, pn->name, "gpu warnings", "none", first,
	    "nvidia-smi warns on stderr; an infoROM warning means the "
	    "board's firmware store is damaged (NVIDIA support: reflash or "
	    "RMA)");
	free(first);
}

/* ECC, retired pages, persistence, XID, driver */
static void
verify_eval_gpus(struct verify_ctx *c, size_t k)
{
	const struct verify_node	*vn = &c->nodes[k];
	const struct plan_node		*pn = vn->pn;
	const struct plan		*p = c->p;
	const struct verify_sec		*sx, *sm;
	struct verify_nvsmi		 nv;
	struct verify_gpu_tally		 t;
	struct prov_err			 err = PROV_ERR_INIT;
	struct buf			 exp = BUF_INIT;

	memset(&nv, 0, sizeof nv);
	if (verify_gpus(pn) == 0 && vn->facts->ngpus == 0) {
		verify_row(c, ROW_SKIP, pn->name, "gpu", NULL, NULL,
		    "no GPU in the plan for this node and no NVIDIA device "
		    "found: GPU checks skipped");
		return;
	}
	sx = verify_node_sec(vn, "nvsmi-xml");
	sm = verify_node_sec(vn, "nvidia-module");
	if (p->sw.driver_version != NULL)
		buf_adds(&exp, p->sw.driver_version);
	else if (p->sw.driver_branch != NULL)
		buf_addf(&exp, "%s.x", p->sw.driver_branch);

	if (sx == NULL) {
		verify_row(c, ROW_FAIL, pn->name, "gpu driver", exp.len ?
		    exp.buf : NULL, NULL, "nvidia-smi not found: the NVIDIA "
		    "driver is not installed");
		verify_row(c, ROW_SKIP, pn->name, "gpu health", NULL, NULL,
		    "needs nvidia-smi");
	} else if (sx->rc != 0 ||
	    verify_parse_nvsmi_xml(&nv, sx->body, &err) != 0) {
		char	*why = sx->rc != 0 ? verify_first_line(sx->body) :
		    xstrdup(err.msg);

		verify_row(c, ROW_FAIL, pn->name, "gpu driver", exp.len ?
		    exp.buf : NULL, sm != NULL && sm->rc == 0 ? "module loaded"
		    : "not loaded", "nvidia-smi -q -x: %s", why);
		verify_row(c, ROW_SKIP, pn->name, "gpu health", NULL, NULL,
		    "nvidia-smi did not answer");
		free(why);
	} else {
		verify_eval_driver(c, pn, &exp, &nv);
		verify_eval_nvsmi_stderr(c, pn,
		    verify_node_sec(vn, "nvsmi-xml-stderr"));
		verify_gpu_tally(&t, &nv);
		verify_eval_persistence(c, pn, &t);
		if (t.n > 0) {
			verify_eval_ecc(c, pn, &t);
			verify_eval_retired(c, pn, &t);
			verify_eval_mig(c, pn, &nv);
		}
	}
	verify_eval_xid(c, pn, verify_node_sec(vn, "xid"));
	verify_nvsmi_release(&nv);
	prov_err_release(&err);
	buf_release(&exp);
}

/* Planned names resolve to their planned addresses; the others answer. */
static void
verify_eval_names(struct verify_ctx *c, size_t k)
{
	const struct verify_node	*vn = &c->nodes[k];
	const struct plan_node		*pn = vn->pn;
	const struct plan		*p = c->p;
	const struct verify_sec		*s;
	struct strvec			 lines = STRVEC_INIT;
	struct buf			 bad = BUF_INIT, got = BUF_INIT;
	char				 exp[64];
	size_t				 i, j, ok = 0, nbad = 0, total = 0;
	const char			*method = NULL;

	if ((s = verify_node_sec(vn, "getent")) != NULL) {
		strvec_split_lines(&lines, s->body);
		for (i = 0; i < lines.n; i++) {
			char			*tab = strchr(lines.v[i], '\t');
			const struct plan_node	*o;
			const char		*a;
			int			 hit = 0;

			if (tab == NULL)
				continue;
			*tab = '\0';
			a = tab + 1;
			if ((o = plan_node(p, lines.v[i])) == NULL)
				continue;
			total++;
			if (o->address != NULL && strcmp(a, o->address) == 0)
				hit = 1;
			for (j = 0; !hit && j < o->nifaces; j++)
				if (strcmp(a, o->ifaces[j].address) == 0)
					hit = 1;
			if (hit) {
				ok++;
				continue;
			}
			if (nbad++ < 5)
				buf_addf(&bad, "%s%s -> %s (plan %s)",
				    bad.len ? ", " : "", o->name,
				    *a ? a : "nothing", o->address ?
				    o->address : "no address");
		}
		strvec_clear(&lines);
		snprintf(exp, sizeof exp, "%zu names to their addresses",
		    p->nnodes);
		buf_addf(&got, "%zu of %zu", ok, total);
		if (total == 0)
			verify_row(c, ROW_SKIP, pn->name, "resolve", exp,
			    NULL, "getent printed nothing");
		else if (nbad == 0)
			verify_row(c, ROW_OK, pn->name, "resolve", exp,
			    got.buf, NULL);
		else
			verify_row(c, ROW_FAIL, pn->name, "resolve", exp,
			    got.buf, "%s%s: fix /etc/hosts or DNS (apply's "
			    "base step writes /etc/hosts)", bad.buf, nbad > 5 ?
			    ", ..." : "");
	}
	if (p->nnodes < 2 || (s = verify_node_sec(vn, "reach")) == NULL)
		goto out;
	buf_reset(&bad);
	buf_reset(&got);
	ok = nbad = total = 0;
	strvec_split_lines(&lines, s->body);
	for (i = 0; i < lines.n; i++) {
		struct strvec	w = STRVEC_INIT;

		verify_words(&w, lines.v[i]);
		if (w.n == 3 && plan_node(p, w.v[0]) != NULL) {
			total++;
			if (strcmp(w.v[2], "none") != 0)
				method = strcmp(w.v[2], "icmp") == 0 ? "ping" :
				    "tcp";
			if (strcmp(w.v[1], "ok") == 0)
				ok++;
			else if (strcmp(w.v[1], "fail") == 0 && nbad++ < 8)
				buf_addf(&bad, "%s%s", bad.len ? ", " : "",
				    w.v[0]);
		}
		strvec_clear(&w);
	}
	snprintf(exp, sizeof exp, "%zu other nodes by name", p->nnodes - 1);
	if (method == NULL)
		verify_row(c, ROW_SKIP, pn->name, "reach", exp, NULL,
		    "neither ping nor bash (for a TCP probe) on the node");
	else {
		buf_addf(&got, "%zu of %zu (%s%s)", ok, total, method,
		    strcmp(method, "tcp") == 0 ? " to the SSH port" : "");
		if (nbad == 0 && ok == p->nnodes - 1)
			verify_row(c, ROW_OK, pn->name, "reach", exp, got.buf,
			    NULL);
		else
			verify_row(c, ROW_FAIL, pn->name, "reach", exp,
			    got.buf, "no answer from %s%s", bad.len ? bad.buf :
			    "some nodes", nbad > 8 ? ", ..." : "");
	}
out:
	strvec_clear(&lines);
	buf_release(&bad);
	buf_release(&got);
}

static void
verify_eval_time(struct verify_ctx *c, size_t k)
{
	const struct verify_node	*vn = &c->nodes[k];
	const char			*node = vn->pn->name;
	const struct verify_sec		*s = verify_node_sec(vn, "time");
	const struct verify_sec		*sc = verify_node_sec(vn, "clock");
	struct verify_time		 t;
	struct prov_err			 err = PROV_ERR_INIT;
	char				*tool = NULL, *why = NULL, found[96];
	const char			*body;
	double				 tn, off = -1;
	int				 have = 0;

	memset(&t, 0, sizeof t);
	/* the node's clock against this workstation's, during the run */
	if (sc != NULL && c->env->t0 > 0 && verify_is_num(str_trim(
	    sc->body), &tn)) {
		off = tn < c->env->t0 - 0.5 ? c->env->t0 - tn :
		    tn > c->env->t1 + 0.5 ? tn - c->env->t1 : 0;
	}
	if (s == NULL) {
		verify_row(c, ROW_SKIP, node, "time sync", "synchronised",
		    NULL, "not gathered");
		return;
	}
	tool = verify_first_line(s->body);
	body = s->body + strcspn(s->body, "\n");
	if (*body == '\n')
		body++;
	if (strcmp(tool, "chrony") == 0 && s->rc == 0)
		have = verify_parse_chrony(&t, body, &err) == 0;
	else if (strcmp(tool, "timedatectl") == 0 && s->rc == 0)
		have = verify_parse_timedatectl(&t, body, &err) == 0;
	if (have && t.synced) {
		if (t.offset_s >= 0)
			snprintf(found, sizeof found, "%s: offset %.3g s",
			    t.source, t.offset_s);
		else
			snprintf(found, sizeof found, "%s: synchronised",
			    t.source);
		if (t.offset_s <= VERIFY_TIME_OK_S)
			verify_row(c, ROW_OK, node, "time sync",
			    "synchronised", found, "%s", t.detail);
		else if (t.offset_s <= VERIFY_TIME_FAIL_S)
			verify_row(c, ROW_WARN, node, "time sync",
			    "synchronised", found, "offset above %g s: still "
			    "converging?", VERIFY_TIME_OK_S);
		else
			verify_row(c, ROW_FAIL, node, "time sync",
			    "synchronised", found, "offset above %g s",
			    VERIFY_TIME_FAIL_S);
		goto out;
	}
	if (have)
		why = xasprintf("%s is not synchronised (%s)", t.source,
		    t.detail);
	else if (strcmp(tool, "none") == 0)
		why = xstrdup("neither chronyc nor timedatectl on the node");
	else {
		char	*l = err.msg != NULL ? xstrdup(err.msg) :
		    verify_first_line(body);

		why = xasprintf("%s: %s", tool, l);
		free(l);
	}
	if (off < 0)
		verify_row(c, ROW_FAIL, node, "time sync", "synchronised",
		    NULL, "%s; the clock could not be compared", why);
	else if (off <= VERIFY_TIME_FAIL_S) {
		/* off is 0 inside the run's window: the bound is its width */
		snprintf(found, sizeof found, "clock within %.1f s of this "
		    "workstation", off > 0 ? off : c->env->t1 - c->env->t0 +
		    0.5);
		verify_row(c, ROW_WARN, node, "time sync", "synchronised",
		    found, "%s; the clock agrees today, nothing keeps it so",
		    why);
	} else {
		snprintf(found, sizeof found, "clock %.1f s off this "
		    "workstation", off);
		verify_row(c, ROW_FAIL, node, "time sync", "synchronised",
		    found, "%s", why);
	}
out:
	free(why);
	free(tool);
	verify_time_release(&t);
	prov_err_release(&err);
}

static void
verify_eval_daemons(struct verify_ctx *c, size_t k)
{
	const struct verify_node	*vn = &c->nodes[k];
	const char			*node = vn->pn->name;
	const struct verify_sec		*s = verify_node_sec(vn, "daemons");
	struct verify_daemon		 d[16];
	struct strvec			 lines = STRVEC_INIT;
	size_t				 nd, i, j;

	nd = verify_daemons(c->p, vn->pn, d);
	if (s != NULL)
		strvec_split_lines(&lines, s->body);
	for (i = 0; i < nd; i++) {
		char	*what = xasprintf("daemon %s", d[i].label);
		int	 done = 0;

		for (j = 0; j < lines.n && !done; j++) {
			struct strvec	w = STRVEC_INIT;

			verify_words(&w, lines.v[j]);
			if (w.n == 3 && strcmp(w.v[0], d[i].label) == 0) {
				char	*f = xasprintf("running (pid %s)",
				    w.v[2]);

				done = 1;
				if (strcmp(w.v[1], "running") == 0)
					verify_row(c, ROW_OK, node, what,
					    "running", f, NULL);
				else if (strcmp(w.v[1], "stopped") == 0)
					verify_row(c, ROW_FAIL, node, what,
					    "running", "not running",
					    "no process '%s' on the node",
					    d[i].label);
				else
					verify_row(c, ROW_SKIP, node, what,
					    "running", NULL, "no pgrep on the "
					    "node");
				free(f);
			}
			strvec_clear(&w);
		}
		if (!done)
			verify_row(c, ROW_SKIP, node, what, "running", NULL,
			    "not gathered");
		free(what);
	}
	strvec_clear(&lines);
}

static void
verify_eval_runtime(struct verify_ctx *c, size_t k)
{
	const struct verify_node	*vn = &c->nodes[k];
	const char			*node = vn->pn->name;
	const struct verify_sec		*s = verify_node_sec(vn, "runtime");
	const struct verify_sec		*g = verify_node_sec(vn,
					    "runtime-gpus");
	const char			*rt = c->p->sw.runtime;
	char				*l;

	if (rt == NULL || strcmp(rt, "none") == 0)
		return;
	if (s == NULL)
		verify_row(c, ROW_SKIP, node, "container runtime", rt, NULL,
		    "not gathered");
	else {
		l = verify_oneline(s->body, 160);
		if (s->rc == 0)
			verify_row(c, ROW_OK, node, "container runtime", rt,
			    l, NULL);
		else
			verify_row(c, ROW_FAIL, node, "container runtime", rt,
			    NULL, "%s does not answer: %s", rt, l);
		free(l);
	}
	if (g != NULL) {
		long	want = verify_gpus(vn->pn), have = 0;
		char	exp[48], got[48];
		const char *q = g->body;

		while ((q = strstr(q, "Device Index:")) != NULL) {
			have++;
			q++;
		}
		snprintf(exp, sizeof exp, "%ld GPUs through the toolkit", want);
		snprintf(got, sizeof got, "%ld", have);
		if (g->rc == 127)
			verify_row(c, ROW_FAIL, node, "runtime gpus", exp,
			    NULL, "nvidia-container-cli not found: the NVIDIA "
			    "container toolkit is not installed");
		else if (g->rc != 0) {
			l = verify_oneline(g->body, 160);
			verify_row(c, ROW_FAIL, node, "runtime gpus", exp,
			    NULL, "nvidia-container-cli info: %s", l);
			free(l);
		} else
			verify_row(c, have == want ? ROW_OK : ROW_FAIL,
			    node, "runtime gpus", exp, got, have == want ? NULL
			    : "containers would not see every GPU");
	}
}

/* Slurm's view of the nodes, from the head's sinfo and scontrol. */
static void
verify_prepare_slurm(struct verify_ctx *c)
{
	const struct verify_node	*h = c->head;
	const struct verify_sec		*s;
	struct prov_err			 err = PROV_ERR_INIT;
	size_t				 i;

	if (!verify_is_slurm(c->p))
		return;
	if (h == NULL)
		c->slurm_why = xstrdup("no head node in the plan");
	else if (!h->reached)
		c->slurm_why = xasprintf("the head '%s' did not answer",
		    h->pn->name);
	else if ((s = verify_node_sec(h, "sinfo")) == NULL)
		c->slurm_why = xstrdup("sinfo was not run");
	else if (s->rc != 0) {
		char	*l = verify_oneline(s->body, 200);

		c->slurm_why = xasprintf("sinfo on '%s' failed: %s",
		    h->pn->name, l);
		free(l);
	} else if (verify_parse_sinfo(&c->sl, s->body,
	    "node,state,gres", &err) != 0)
		c->slurm_why = xstrdup(err.msg);
	else
		c->slurm_ok = 1;
	prov_err_release(&err);
	/* scontrol adds the reasons */
	if (c->slurm_ok && (s = verify_node_sec(h, "scontrol")) !=
	    NULL && s->rc == 0) {
		struct verify_slurm	sc;

		memset(&sc, 0, sizeof sc);
		if (verify_parse_scontrol(&sc, s->body, &err) == 0)
			for (i = 0; i < sc.n; i++) {
				struct verify_snode	*x = verify_slurm_find(
				    &c->sl, sc.v[i].name);

				if (x == NULL)
					continue;
				if (x->reason == NULL && sc.v[i].reason != NULL)
					x->reason = xstrdup(sc.v[i].reason);
				if (x->gres == NULL && sc.v[i].gres)
					x->gres = xstrdup(sc.v[i].gres);
			}
		verify_slurm_release(&sc);
		prov_err_release(&err);
	}
}

/* Kubernetes's view of the nodes, from the head's kubectl. */
static void
verify_prepare_k8s(struct verify_ctx *c)
{
	const struct verify_node	*h = c->head;
	const struct verify_sec		*s;
	struct prov_err			 err = PROV_ERR_INIT;

	if (!verify_is_k8s(c->p))
		return;
	if (h == NULL || !h->reached)
		c->k8s_why = xstrdup("the head did not answer");
	else if ((s = verify_node_sec(h, "k8s")) == NULL)
		c->k8s_why = xstrdup("kubectl was not run");
	else if (s->rc != 0) {
		char	*l = verify_oneline(s->body, 200);

		c->k8s_why = xasprintf("kubectl on '%s' failed: %s",
		    h->pn->name, l);
		free(l);
	} else if (verify_parse_k8s_nodes(&c->k8, s->body,
	    strlen(s->body), &err) != 0)
		c->k8s_why = xstrdup(err.msg);
	else
		c->k8s_ok = 1;
	prov_err_release(&err);
}

/* Prometheus's targets, as verify_run fetched them. */
static void
verify_prepare_prom(struct verify_ctx *c)
{
	struct prov_err	err = PROV_ERR_INIT;

	if (c->p->sw.prometheus == NULL)
		return;
	if (c->env->prom_url == NULL)
		c->prom_why = xstrdup("Prometheus was not asked");
	else if (c->env->prom_json == NULL)
		c->prom_why = xasprintf("%s: %s", c->env->prom_url,
		    c->env->prom_error ? c->env->prom_error :
		    "no answer");
	else if (verify_parse_prom_targets(&c->tg, c->env->prom_json,
	    c->env->prom_len, &err) != 0)
		c->prom_why = xasprintf("%s: %s", c->env->prom_url,
		    err.msg);
	else
		c->prom_ok = 1;
	prov_err_release(&err);
}

/* The MTU most nodes use, per network. */
static void
verify_prepare_mtu(struct verify_ctx *c)
{
	size_t	i, j;

	c->mtu = xcalloc(c->p->nnets + 1, sizeof *c->mtu);
	for (i = 0; i < c->p->nnets; i++) {
		long	*seen = xcalloc(c->n + 1, sizeof *seen);
		size_t	*cnt = xcalloc(c->n + 1, sizeof *cnt), ns = 0, best = 0;

		for (j = 0; j < c->n; j++) {
			const char			*a;
			const struct verify_ifaddr	*ia;
			const struct verify_link	*l;
			size_t				 q;
			int				 ex;

			if (!c->nodes[j].reached)
				continue;
			a = verify_net_addr(c->p, c->nodes[j].pn,
			    &c->p->nets[i]);
			if ((ia = verify_nd_addr(&c->nd[j], a, &ex)) == NULL ||
			    (l = verify_nd_link(&c->nd[j], ia->name)) == NULL ||
			    l->mtu <= 0)
				continue;
			for (q = 0; q < ns; q++)
				if (seen[q] == l->mtu)
					break;
			if (q == ns)
				seen[ns++] = l->mtu;
			cnt[q]++;
		}
		for (j = 0; j < ns; j++)
			if (cnt[j] > best) {
				best = cnt[j];
				c->mtu[i] = seen[j];
			}
		free(seen);
		free(cnt);
	}
}

/* What the head knows of all nodes, and the common MTUs, before the rows. */
static void
verify_eval_prepare(struct verify_ctx *c)
{
	verify_prepare_slurm(c);
	verify_prepare_k8s(c);
	verify_prepare_prom(c);
	verify_prepare_mtu(c);
}

void
verify_eval(struct rows *out, struct verify_measured *meas,
    const struct plan *p, struct verify_node *nodes, size_t n,
    const struct verify_node *head,
    const struct verify_env *env, const struct verify_opts *o)
{
	struct verify_ctx	c;
	size_t			i;

	memset(&c, 0, sizeof c);
	c.p = p;
	c.out = out;
	c.meas = meas;
	c.o = o;
	c.env = env;
	c.head = head;
	c.nodes = nodes;
	c.n = n;
	c.nd = xcalloc(n + 1, sizeof *c.nd);
	for (i = 0; i < n; i++)
		if (nodes[i].reached)
			verify_nd_parse(&c.nd[i], &nodes[i]);
	verify_eval_prepare(&c);

	for (i = 0; i < n; i++) {
		struct verify_node	*vn = &nodes[i];
		const char		*name = vn->pn->name;

		if (!vn->reached) {
			verify_row(&c, ROW_FAIL, name, "ssh", "answers", NULL,
			    "%s", vn->error ? vn->error : "no answer");
		} else {
			if (vn->error != NULL)
				verify_row(&c, ROW_FAIL, name, "ssh",
				    "answers", "partly", "%s", vn->error);
			verify_eval_identity(&c, i);
			facts_compare(out, p, vn->pn, vn->facts);
			verify_eval_gpus(&c, i);
			verify_eval_ib(&c, i);
			verify_eval_names(&c, i);
			verify_eval_time(&c, i);
			verify_eval_daemons(&c, i);
			verify_eval_runtime(&c, i);
			verify_eval_people(&c, i);
		}
		verify_eval_slurm(&c, i);
		verify_eval_k8s(&c, i);
		verify_eval_prom(&c, i);
		if (vn->reached)
			verify_eval_dcgm(&c, i);
	}
	verify_eval_nccl(&c);
	verify_eval_gemm(&c);
	if (meas != NULL && o->burn_in)
		meas->at = env->t1;

	for (i = 0; i < n; i++)
		verify_nd_release(&c.nd[i]);
	free(c.nd);
	free(c.mtu);
	free(c.slurm_why);
	free(c.k8s_why);
	free(c.prom_why);
	verify_slurm_release(&c.sl);
	verify_k8s_release(&c.k8);
	verify_targets_release(&c.tg);
}

/*
 * check-network.c: the network rows: host ports, the fast fabric, switch
 * ports, addresses, MACs and names (the rules are in check.c).
 */
#include "compat.h"

#include <ctype.h>
#include <math.h>

#include "check-int.h"

/* ------------------------------------------------------------------ */
/* network rows.                                                       */

struct check_addr {
	const struct plan_node	*node;
	const char		*kind;		/* "address" "bmc" or a net */
	int			 iface;
};

struct check_net {
	long long	 links;
	long long	 ports;
	size_t		 nswitches;
	const char	*model;		/* of the switches, NULL when mixed */
	size_t		 nin, nout;	/* addresses inside / outside */
};

struct check_addrs {
	struct strmap		 map;
	struct check_addr	*v;
	size_t			 n;
	struct check_cap	 cap_dup, cap_cidr;
	size_t			 ndup, nonip, nout;
	const char		*nonip_example;
};

static char *
check_addr_desc(const struct check_addr *a, int with_kind)
{
	if (!with_kind)
		return xstrdup(a->node->name);
	if (a->iface)
		return xasprintf("%s (interface '%s')", a->node->name, a->kind);
	return xasprintf("%s (%s)", a->node->name, a->kind);
}

static void
check_addr_unique(struct check_ctx *c, struct check_addrs *as,
    const struct plan_node *nd, const char *addr, const char *kind,
    int iface, struct prov_loc loc)
{
	struct row		*row;
	struct check_addr	*rec = &as->v[as->n++], *prev;
	char			*a, *b;
	int			 kinds;

	rec->node = nd;
	rec->kind = kind;
	rec->iface = iface;
	if ((prev = strmap_add(&as->map, addr, rec)) == NULL)
		return;
	as->ndup++;
	if (!check_cap_take(&as->cap_dup))
		return;
	kinds = prev->node == nd || prev->iface != iface ||
	    strcmp(prev->kind, kind) != 0;
	a = check_addr_desc(prev, kinds);
	b = check_addr_desc(rec, kinds);
	row = check_row(c, ROW_FAIL, "network", "unique address", loc);
	row->subject = xasprintf("node '%s'", nd->name);
	row->measured = xasprintf("duplicate address %s: %s, %s", addr, a, b);
	row->limit = xstrdup("one owner per address");
	row->hint = xasprintf("give one of them another address");
	free(a);
	free(b);
}

static void
check_addr_outside(struct check_ctx *c, struct check_addrs *as,
    const struct plan_node *nd, const char *what, char *measured,
    const struct plan_net *want, const char *why, struct prov_loc loc)
{
	struct row	*row;

	as->nout++;
	if (!check_cap_take(&as->cap_cidr)) {
		free(measured);
		return;
	}
	row = check_row(c, ROW_FAIL, "network", what, loc);
	row->subject = xasprintf("node '%s'", nd->name);
	row->measured = measured;
	row->limit = want != NULL ? xasprintf("inside %s '%s' %s", why,
	    want->name, want->cidr) : xstrdup("inside one of the plan's "
	    "networks");
	row->hint = want != NULL ? xasprintf("use an address in %s, or fix the "
	    "network's cidr", want->cidr) : xstrdup("add the network under "
	    "networks: or fix the address");
}

/* The first network holding a, preferring those with `role`; NULL when none. */
static const struct plan_net *
check_net_holding(const struct plan *p, uint32_t a, const char *role)
{
	size_t	i;

	for (i = 0; i < p->nnets; i++)
		if ((role == NULL || (p->nets[i].role != NULL &&
		    strcmp(p->nets[i].role, role) == 0)) &&
		    check_in_net(&p->nets[i], a))
			return &p->nets[i];
	return NULL;
}

static const struct plan_net *
check_net_first_role(const struct plan *p, const char *role)
{
	size_t	i;

	for (i = 0; i < p->nnets; i++)
		if (p->nets[i].role != NULL &&
		    strcmp(p->nets[i].role, role) == 0)
			return &p->nets[i];
	return NULL;
}

/*
 * Addresses of one node: inside their networks and unique.  Returns the
 * network of its management address, or NULL.
 */
static const struct plan_net *
check_node_addrs(struct check_ctx *c, struct check_addrs *as,
    struct check_net *nets, const struct plan_node *nd,
    const struct plan_net *mgmt_role, const struct plan_net *bmc_role)
{
	const struct plan	*p = c->p;
	const struct plan_net	*mn = NULL, *n;
	uint32_t		 a;
	size_t			 i;

	if (nd->address != NULL) {
		struct prov_loc	loc = plan_loc(p, nd->src, "address");

		check_addr_unique(c, as, nd, nd->address, "address", 0, loc);
		if (plan_parse_ipv4(nd->address, &a) != 0) {
			if (as->nonip++ == 0)
				as->nonip_example = nd->address;
		} else if (p->nnets > 0) {
			mn = check_net_holding(p, a, mgmt_role != NULL ?
			    "management" : NULL);
			if (mn != NULL)
				nets[mn - p->nets].nin++;
			else {
				const struct plan_net	*want = mgmt_role;
				const char		*why;

				why = "management network";

				if (want == NULL && nd->hw != NULL) {
					const struct check_hw	*ch =
					    &c->hw[nd->hw - p->hw];

					why = "on-board NIC network";
					for (i = 0; i < ch->nnics &&
					    want == NULL; i++)
						if (ch->nics[i].cat != NULL &&
						    ch->nics[i].cat->onboard &&
						    ch->nics[i].net != NULL)
							want = ch->nics[i].net;
				}
				if (want != NULL)
					nets[want - p->nets].nout++;
				check_addr_outside(c, as, nd, "address",
				    xstrdup(nd->address), want, why, loc);
			}
		}
	}
	for (i = 0; i < nd->nifaces; i++) {
		const struct plan_iface	*f = &nd->ifaces[i];
		struct prov_loc		 loc = plan_loc(p,
		    yml_map_get(nd->src, "interfaces"), f->network);

		if (f->address == NULL)
			continue;
		check_addr_unique(c, as, nd, f->address, f->network, 1, loc);
		n = plan_net_find(p, f->network);
		if (plan_parse_ipv4(f->address, &a) != 0) {
			if (as->nonip++ == 0)
				as->nonip_example = f->address;
		} else if (n != NULL && check_in_net(n, a))
			nets[n - p->nets].nin++;
		else if (n != NULL) {
			nets[n - p->nets].nout++;
			check_addr_outside(c, as, nd, "address",
			    xasprintf("%s (interface '%s')", f->address,
			    f->network), n, "network", loc);
		}
	}
	if (nd->bmc != NULL && nd->bmc->address != NULL) {
		struct prov_loc	loc = plan_loc(p, yml_map_get(nd->src, "bmc"),
		    "address");

		check_addr_unique(c, as, nd, nd->bmc->address, "bmc", 0, loc);
		if (plan_parse_ipv4(nd->bmc->address, &a) != 0) {
			if (as->nonip++ == 0)
				as->nonip_example = nd->bmc->address;
		} else if ((n = check_net_holding(p, a, bmc_role != NULL ?
		    "bmc" : NULL)) != NULL) {
			nets[n - p->nets].nin++;
			/* The BMC port's cable. */
			nets[n - p->nets].links++;
		} else if (bmc_role != NULL) {
			nets[bmc_role - p->nets].nout++;
			check_addr_outside(c, as, nd, "BMC address",
			    xstrdup(nd->bmc->address), bmc_role, "BMC network",
			    loc);
		}
	}
	return mn;
}

static void
check_net_ports(struct check_ctx *c)
{
	struct row		*row;
	const struct plan	*p = c->p;
	size_t			 h, i;

	for (h = 0; h < p->nhw; h++) {
		const struct check_hw	*ch = &c->hw[h];
		const struct plan_hw	*hw = ch->hw;
		struct buf		 d = BUF_INIT;
		enum row_verdict		 sev;

		for (i = 0; i < ch->nnics; i++) {
			const struct check_nic	*cn = &ch->nics[i];
			long			 cnt = 0;
			size_t			 k;

			if (cn->bmc)
				continue;
			/* One entry per model, the plan's and built-in. */
			for (k = 0; k < ch->nnics; k++)
				if (!ch->nics[k].bmc &&
				    strcmp(ch->nics[k].model, cn->model) == 0) {
					if (k < i)
						break;
					cnt += ch->nics[k].count;
				}
			if (k < i)
				continue;
			buf_addf(&d, "%s%ld x %s", d.len ? ", " : "", cnt,
			    cn->model);
			if (cn->cat != NULL && cn->cat->ports > 0)
				buf_addf(&d, " (%ld %s)", cn->cat->ports,
				    check_plural(cn->cat->ports, "port",
				    "ports"));
			else
				buf_adds(&d, " (ports unknown)");
		}
		if (ch->ports >= CHECK_MIN_PORTS)
			sev = ROW_OK;
		else
			sev = ch->ports_unknown ? ROW_WARN : ROW_FAIL;
		row = check_row(c, sev, "network", "ports", plan_loc(p, hw->src,
		    hw->nnics > 0 ? "nics" : "system"));
		row->subject = check_hw_subject(hw);
		row->measured = xasprintf("%ld %s", ch->ports,
		    check_plural(ch->ports, "port", "ports"));
		row->limit = xasprintf(">= %d (cluster + management)",
		    CHECK_MIN_PORTS);
		row->hint = sev == ROW_FAIL ? xasprintf("every node needs "
		    "one port for cluster traffic and one for management: add "
		    "a NIC%s%s", d.len ? "; has " : "", d.buf) : d.len ?
		    xstrdup(d.buf) : NULL;
		row->value = (double)ch->ports;
		row->max = CHECK_MIN_PORTS;
		buf_release(&d);

		/* A NIC on a network of another kind or a faster speed. */
		for (i = 0; i < ch->nnics; i++) {
			const struct check_nic	*cn = &ch->nics[i];
			const struct cat_nic	*n = cn->cat;
			struct prov_loc		 loc;

			if (cn->bmc || cn->net == NULL || n == NULL)
				continue;
			loc = plan_loc(p, cn->src != NULL ? cn->src : hw->src,
			    cn->src != NULL ? "network" : "system");
			if (n->kind != NULL && cn->net->kind != NULL &&
			    strcmp(n->kind, "vpi") != 0 &&
			    strcmp(n->kind, cn->net->kind) != 0) {
				row = check_row(c, ROW_FAIL, "network",
				    "NIC kind", loc);
				row->subject = check_hw_subject(hw);
				row->measured = xasprintf("%s (%s)", n->m.id,
				    n->kind);
				row->limit = xasprintf("network '%s': %s",
				    cn->net->name, cn->net->kind);
				row->hint = xasprintf("an %s NIC cannot join "
				    "an %s network: use a %s or VPI NIC",
				    n->kind, cn->net->kind, cn->net->kind);
			} else if (!isnan(n->gbps) && !isnan(cn->net->gbps) &&
			    n->gbps < cn->net->gbps) {
				row = check_row(c, ROW_WARN, "network",
				    "NIC speed", loc);
				row->subject = check_hw_subject(hw);
				row->measured = xasprintf("%s Gb/s (%s)",
				    check_num(n->gbps).s, n->m.id);
				row->limit = xasprintf("network '%s': %s Gb/s",
				    cn->net->name, check_num(cn->net->gbps).s);
				row->hint = xasprintf("the link runs at the "
				    "NIC's %s Gb/s", check_num(n->gbps).s);
				row->value = n->gbps;
				row->max = cn->net->gbps;
			}
		}
	}
}

static char *
check_fast_nets(const struct plan *p)
{
	struct buf	b = BUF_INIT;
	size_t		i;

	for (i = 0; i < p->nnets; i++) {
		const struct plan_net	*n = &p->nets[i];

		if (!check_net_fast(n))
			continue;
		buf_addf(&b, "%s%s (%s", b.len ? ", " : "", n->name, n->kind);
		if (!isnan(n->gbps))
			buf_addf(&b, " %s Gb/s", check_num(n->gbps).s);
		buf_addch(&b, ')');
	}
	return buf_detach(&b, NULL);
}

/* What the network checks gather over the nodes, for the rows after. */
struct check_netw {
	struct check_net	*nets;		/* per plan network */
	struct check_addrs	 as;
	struct check_cap	 cap_fab, cap_mac, cap_name;
	struct strmap		 macs;
	struct strvec		 macstore;
	const struct plan_net	*mgmt_role, *bmc_role;
	size_t			 ngpun, nfast, nmac, nmacdup, nfastnets;
	char			*fastnets;
	struct prov_loc		 ploc;
	int			 inference;	/* no fabric between nodes */
};

/* A node's MAC, normalised (lower case, colons), once over the plan. */
static void
check_network_mac(struct check_ctx *c, struct check_netw *nw,
    const struct plan_node *nd)
{
	const struct plan_node	*prev;
	struct row		*row;
	char			*m, *q;

	if (nd->mac == NULL)
		return;
	m = xstrdup(nd->mac);
	for (q = m; *q != '\0'; q++)
		*q = *q == '-' ? ':' : (char)tolower((unsigned char)*q);
	strvec_push_nodup(&nw->macstore, m);
	nw->nmac++;
	if ((prev = strmap_add(&nw->macs, m, (void *)nd)) == NULL)
		return;
	nw->nmacdup++;
	if (!check_cap_take(&nw->cap_mac))
		return;
	row = check_row(c, ROW_FAIL, "network", "unique MAC",
	    plan_loc(c->p, nd->src, "mac"));
	row->subject = xasprintf("node '%s'", nd->name);
	row->measured = xasprintf("duplicate MAC %s: %s, %s", m, prev->name,
	    nd->name);
	row->limit = xstrdup("one node per MAC");
	row->hint = xstrdup("fix the MAC of one of them");
}

/* Per node: its addresses, links, MAC and fast NIC. */
static void
check_network_nodes(struct check_ctx *c, struct check_netw *nw)
{
	const struct plan	*p = c->p;
	struct row		*row;
	size_t			 i, j;

	for (i = 0; i < p->nnodes; i++) {
		const struct plan_node	*nd = &p->nodes[i];
		const struct check_hw	*ch = nd->hw != NULL ?
		    &c->hw[nd->hw - p->hw] : NULL;
		const struct plan_net	*mn, *n;
		int			 fast, onmn = 0;

		fast = ch != NULL && ch->fast;
		mn = check_node_addrs(c, &nw->as, nw->nets, nd, nw->mgmt_role,
		    nw->bmc_role);
		for (j = 0; j < nd->nifaces; j++) {
			n = plan_net_find(p, nd->ifaces[j].network);
			if (n == NULL)
				continue;
			if (ch == NULL || ch->links[n - p->nets] == 0)
				nw->nets[n - p->nets].links++;
			if (check_net_fast(n))
				fast = 1;
			if (n == mn)
				onmn = 1;
		}
		if (mn != NULL && !onmn && (ch == NULL ||
		    ch->links[mn - p->nets] == 0))
			nw->nets[mn - p->nets].links++;
		check_network_mac(c, nw, nd);
		if (nw->ngpun < 2 || nw->nfastnets == 0 || ch == NULL ||
		    ch->hw->ngpus == 0 || nw->inference)
			continue;
		if (fast) {
			nw->nfast++;
			continue;
		}
		if (!check_cap_take(&nw->cap_fab))
			continue;
		row = check_row(c, ROW_FAIL, "network", "fabric",
		    plan_loc(p, nd->src, "hardware"));
		row->subject = xasprintf("node '%s'", nd->name);
		row->measured = xstrdup("no fast NIC on an InfiniBand or >= "
		    "100 Gb/s network");
		row->limit = xasprintf("fabric: %s", nw->fastnets);
		row->hint = xasprintf("attach a fast NIC of '%s' to the fabric "
		    "(nics: network:) or give the node an interface on it",
		    ch->hw->name);
	}
	check_cap_flush(c, &nw->cap_fab, "network", "fabric");
	check_cap_flush(c, &nw->as.cap_dup, "network", "unique address");
	check_cap_flush(c, &nw->as.cap_cidr, "network", "address");
	check_cap_flush(c, &nw->cap_mac, "network", "unique MAC");
}

/* GPU nodes on a fast network, or why that does not apply. */
static void
check_network_fabric(struct check_ctx *c, const struct check_netw *nw)
{
	struct row	*row;

	if (nw->inference && nw->ngpun >= 2) {
		row = check_row(c, ROW_SKIP, "network", "fabric", nw->ploc);
		row->subject = xstrdup("GPU nodes");
		row->measured = xasprintf("%s GPU %s",
		    check_int((double)nw->ngpun).s,
		    check_plural((long)nw->ngpun, "node", "nodes"));
		row->limit = xstrdup("workload: inference");
		row->hint = xstrdup("inference runs within a node: no "
		    "GPU-to-GPU traffic between nodes");
		row->value = (double)nw->ngpun;
	} else if (nw->ngpun < 2) {
		row = check_row(c, ROW_SKIP, "network", "fabric", nw->ploc);
		row->subject = xstrdup("GPU nodes");
		row->measured = xasprintf("%s GPU %s",
		    check_int((double)nw->ngpun).s,
		    check_plural((long)nw->ngpun, "node", "nodes"));
		row->limit = xstrdup("needed from 2 GPU nodes");
		row->value = (double)nw->ngpun;
		row->max = 2;
	} else if (nw->nfastnets == 0) {
		row = check_row(c, ROW_FAIL, "network", "fabric", nw->ploc);
		row->subject = xstrdup("networks");
		row->measured = xstrdup("no InfiniBand or >= 100 Gb/s network");
		row->limit = xasprintf("InfiniBand or >= 100 GbE for %s GPU "
		    "nodes", check_int((double)nw->ngpun).s);
		row->hint = xstrdup("GPU-to-GPU traffic between nodes wants "
		    "InfiniBand or 100 GbE or faster: add a network with kind: "
		    "infiniband or gbps: 100 (or more) and attach the GPU "
		    "nodes' NICs to it");
		row->value = 0;
		row->max = CHECK_FAST_GBPS;
	} else if (nw->nfast == nw->ngpun) {
		row = check_row(c, ROW_OK, "network", "fabric", nw->ploc);
		row->subject = xstrdup("GPU nodes");
		row->measured = xasprintf("%s of %s on a fast network",
		    check_int((double)nw->nfast).s, check_int((double)nw->ngpun).s);
		row->limit = xasprintf("InfiniBand or >= 100 Gb/s: %s",
		    nw->fastnets);
		row->value = (double)nw->nfast;
		row->max = (double)nw->ngpun;
	}

}

/* Switch ports against the links of each network, and its addresses. */
static void
check_network_switches(struct check_ctx *c, struct check_netw *nw)
{
	const struct plan	*p = c->p;
	struct row		*row;
	size_t			 i, j, h;

	for (h = 0; h < p->nhw; h++)
		for (i = 0; i < p->nnets; i++)
			nw->nets[i].links += (long long)c->hw[h].links[i] *
			    (long long)c->hw[h].nnodes;
	for (i = 0; i < p->nswitches; i++) {
		const struct plan_switch	*s = &p->switches[i];
		const struct plan_net		*n;
		struct check_net		*cn;

		if (s->network == NULL || (n = plan_net_find(p, s->network)) ==
		    NULL)
			continue;
		cn = &nw->nets[n - p->nets];
		if (cn->nswitches++ == 0)
			cn->model = s->cat != NULL ? s->cat->m.id : s->model;
		else if (cn->model != NULL && (s->cat == NULL ||
		    strcmp(cn->model, s->cat->m.id) != 0))
			cn->model = NULL;
		for (j = 0; s->cat != NULL && j < s->cat->nports; j++)
			cn->ports += s->cat->ports[j].count;
	}
	for (i = 0; i < p->nnets; i++) {
		const struct plan_net	*n = &p->nets[i];
		const struct check_net	*cn = &nw->nets[i];
		struct prov_loc		 loc = plan_loc(p, n->src, NULL);

		if (cn->nswitches == 0) {
			if (cn->links > 0) {
				row = check_row(c, ROW_SKIP, "network",
				    "switch ports", loc);
				row->subject = xasprintf("network '%s'",
				    n->name);
				row->measured = xasprintf("%s %s",
				    check_int((double)cn->links).s,
				    check_plural((long)cn->links, "link",
				    "links"));
				row->limit = xstrdup("no switch on this "
				    "network in the plan");
				row->hint = xasprintf("list its switches under "
				    "switches: with network: %s", n->name);
				row->value = (double)cn->links;
			}
		} else {
			row = check_row(c, cn->links > cn->ports ? ROW_FAIL :
			    ROW_OK, "network", "switch ports", loc);
			row->subject = xasprintf("network '%s'", n->name);
			row->measured = xasprintf("%s %s",
			    check_int((double)cn->links).s,
			    check_plural((long)cn->links, "link", "links"));
			row->limit = cn->model != NULL ? xasprintf("%s ports "
			    "(%zu x %s)", check_int((double)cn->ports).s,
			    cn->nswitches, cn->model) : xasprintf("%s ports "
			    "(%zu switches)", check_int((double)cn->ports).s,
			    cn->nswitches);
			row->hint = cn->links > cn->ports ? xasprintf(
			    "short by %s ports: add a switch, or use splitter "
			    "cables where the switch supports them",
			    check_int((double) (cn->links - cn->ports)).s) :
			    NULL;
			row->value = (double)cn->links;
			row->max = (double)cn->ports;
		}
		if (cn->nin > 0 && cn->nout == 0) {
			row = check_row(c, ROW_OK, "network", "addresses",
			    plan_loc(p, n->src, "cidr"));
			row->subject = xasprintf("network '%s'", n->name);
			row->measured = xasprintf("%s %s inside",
			    check_int((double)cn->nin).s,
			    check_plural((long)cn->nin, "address",
			    "addresses"));
			row->limit = xstrdup(n->cidr);
			row->value = (double)cn->nin;
		}
	}

}

/* Addresses, MACs and names over the whole plan. */
static void
check_network_unique(struct check_ctx *c, struct check_netw *nw)
{
	const struct plan	*p = c->p;
	struct row		*row;
	size_t			 i;

	if (nw->as.nonip > 0) {
		row = check_row(c, ROW_WARN, "network", "addresses", nw->ploc);
		row->subject = xstrdup("nodes");
		row->measured = xasprintf("%s not IPv4 (e.g. '%s')",
		    check_int((double)nw->as.nonip).s, nw->as.nonip_example);
		row->limit = xstrdup("IPv4 inside a network");
		row->hint = xstrdup("names are not checked against the "
		    "networks");
		row->value = (double)nw->as.nonip;
	}
	if (p->nnets == 0 && nw->as.n > nw->as.nonip) {
		row = check_row(c, ROW_SKIP, "network", "addresses", nw->ploc);
		row->subject = xstrdup("nodes");
		row->measured = xasprintf("%s %s", check_int((double)nw->as.n).s,
		    check_plural((long)nw->as.n, "address", "addresses"));
		row->limit = xstrdup("no networks in the plan");
		row->hint = xstrdup("define networks: to check the addresses "
		    "against them");
		row->value = (double)nw->as.n;
	}
	if (nw->as.n > 0 && nw->as.ndup == 0) {
		row = check_row(c, ROW_OK, "network", "unique address", nw->ploc);
		row->subject = xstrdup("all nodes");
		row->measured = xasprintf("%s %s", check_int((double)nw->as.n).s,
		    check_plural((long)nw->as.n, "address", "addresses"));
		row->limit = xstrdup("no duplicates");
		row->value = (double)nw->as.n;
	}
	if (nw->nmac > 0 && nw->nmacdup == 0) {
		row = check_row(c, ROW_OK, "network", "unique MAC", nw->ploc);
		row->subject = xstrdup("all nodes");
		row->measured = xasprintf("%s %s", check_int((double)nw->nmac).s,
		    check_plural((long)nw->nmac, "MAC", "MACs"));
		row->limit = xstrdup("no duplicates");
		row->value = (double)nw->nmac;
	}
	for (i = 0; i < p->nswitches; i++) {
		const struct plan_switch	*s = &p->switches[i];

		if (s->name == NULL || plan_node(p, s->name) == NULL)
			continue;
		if (check_cap_take(&nw->cap_name)) {
			row = check_row(c, ROW_FAIL, "network", "unique name",
			    plan_loc(p, s->src, NULL));
			row->subject = xasprintf("switch '%s'", s->name);
			row->measured = xasprintf("'%s' is also a node",
			    s->name);
			row->limit = xstrdup("one host name per device");
			row->hint = xstrdup("rename the switch or the node");
		}
	}
	check_cap_flush(c, &nw->cap_name, "network", "unique name");
	if (nw->cap_name.shown == 0 && p->nnodes + p->nswitches > 0) {
		row = check_row(c, ROW_OK, "network", "unique name", nw->ploc);
		row->subject = xstrdup("all nodes");
		row->measured = xasprintf("%s %s, %zu %s",
		    check_int((double)p->nnodes).s,
		    check_plural((long)p->nnodes, "node", "nodes"),
		    p->nswitches, check_plural((long)p->nswitches, "switch",
		    "switches"));
		row->limit = xstrdup("no duplicates");
		row->value = (double)(p->nnodes + p->nswitches);
	}

}

void
check_network(struct check_ctx *c)
{
	const struct plan	*p = c->p;
	struct check_netw	 nw;
	size_t			 i, h, naddr = 0;

	memset(&nw, 0, sizeof nw);
	nw.nets = xcalloc(p->nnets + 1, sizeof *nw.nets);
	nw.macs = (struct strmap)STRMAP_INIT;
	nw.macstore = (struct strvec)STRVEC_INIT;
	nw.ploc = (struct prov_loc){ p->file, 0, 0 };
	nw.inference = p->workload != NULL &&
	    strcmp(p->workload, "inference") == 0;
	nw.mgmt_role = check_net_first_role(p, "management");
	nw.bmc_role = check_net_first_role(p, "bmc");
	for (i = 0; i < p->nnets; i++)
		if (check_net_fast(&p->nets[i]))
			nw.nfastnets++;
	for (h = 0; h < p->nhw; h++)
		if (c->hw[h].hw->ngpus > 0)
			nw.ngpun += c->hw[h].nnodes;
	for (i = 0; i < p->nnodes; i++)
		naddr += (p->nodes[i].address != NULL) + p->nodes[i].nifaces +
		    (p->nodes[i].bmc != NULL);
	nw.as.v = xcalloc(naddr + 1, sizeof *nw.as.v);
	nw.fastnets = check_fast_nets(p);

	check_net_ports(c);
	check_network_nodes(c, &nw);
	check_network_fabric(c, &nw);
	check_network_switches(c, &nw);
	check_network_unique(c, &nw);

	free(nw.fastnets);
	free(nw.as.v);
	strmap_clear(&nw.as.map);
	strmap_clear(&nw.macs);
	strvec_clear(&nw.macstore);
	free(nw.nets);
}


/*
 * Questions asked of a loaded plan: a node, a rack, a network by name or
 * role, a node's address, a selection by hostlist, Slurm's compute nodes
 * and the huge pages the kernel arguments pin.  plan.c loads and checks
 * a plan; this file only reads one.
 */

#include "compat.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "hostlist.h"
#include "plan-int.h"
#include "plan.h"
#include "str.h"
#include "strmap.h"


struct plan_node *
plan_node(const struct plan *p, const char *name)
{
	uintptr_t	i = (uintptr_t)strmap_get(&p->index->nodes, name);

	return i == 0 ? NULL : &p->nodes[i - 1];
}

struct plan_hw *
plan_hw_find(const struct plan *p, const char *name)
{
	return strmap_get(&p->index->hw, name);
}

struct plan_rack *
plan_rack_find(const struct plan *p, const char *name)
{
	return strmap_get(&p->index->racks, name);
}

struct plan_net *
plan_net_find(const struct plan *p, const char *name)
{
	return strmap_get(&p->index->nets, name);
}

const struct plan_net *
plan_net_by_role(const struct plan *p, const char *role)
{
	const struct plan_net	*found = NULL;
	size_t			 i;

	for (i = 0; i < p->nnets; i++)
		if (p->nets[i].role != NULL &&
		    strcmp(p->nets[i].role, role) == 0) {
			if (found != NULL)
				return NULL;
			found = &p->nets[i];
		}
	return found;
}

const char *
plan_node_addr(const struct plan_node *n, const char *net)
{
	size_t	i;

	for (i = 0; i < n->nifaces; i++)
		if (strcmp(n->ifaces[i].network, net) == 0)
			return n->ifaces[i].address;
	return NULL;
}

/* "did you mean 'gpu01'?" for a name that is no node, or NULL. */
static char *
plan_node_hint(const struct plan *p, const char *name)
{
	const char	**names = xcalloc(p->nnodes + 1, sizeof *names);
	char		 *hint;
	size_t		  i;

	for (i = 0; i < p->nnodes; i++)
		names[i] = p->nodes[i].name;
	hint = plan_hint(name, names, NULL);
	free(names);
	return hint;
}

int
plan_select(struct plan_node ***out, size_t *nout, const struct plan *p,
    const char *hostlist, struct prov_err *err)
{
	struct strvec		  names = STRVEC_INIT;
	struct plan_node	**v = NULL;
	size_t			  i, n = 0;
	int			  r = -1;

	*out = NULL;
	*nout = 0;
	if (hostlist == NULL) {
		v = xcalloc(p->nnodes + 1, sizeof *v);
		for (i = 0; i < p->nnodes; i++)
			v[n++] = &p->nodes[i];
		goto done;
	}
	if (hostlist_expand(&names, hostlist, p->nnodes + 1000000, err) != 0)
		goto out;
	v = xcalloc(names.n + 1, sizeof *v);
	for (i = 0; i < names.n; i++) {
		struct plan_node	*nd = plan_node(p, names.v[i]);

		if (nd == NULL) {
			/* a typo in a name, not a range wider than the plan */
			char	*hint = NULL;

			if (!hostlist_is_pattern(hostlist))
				hint = plan_node_hint(p, names.v[i]);

			prov_err_setloc(err, PROV_E_PLAN, NULL, hint,
			    "unknown node '%s' in '%s'", names.v[i], hostlist);
			free(hint);
			goto out;
		}
		v[n++] = nd;
	}
done:
	*out = v;
	*nout = n;
	v = NULL;
	r = 0;
out:
	free(v);
	strvec_clear(&names);
	return r;
}

int
plan_slurm_compute(const struct plan *p, const struct plan_node *n,
    const char **part)
{
	size_t	i;

	if (part != NULL)
		*part = NULL;
	if (p->sw.npartitions == 0)
		return n->role == PLAN_ROLE_WORKER;
	for (i = 0; i < p->sw.npartitions; i++) {
		const struct plan_partition	*pt = &p->sw.partitions[i];
		struct plan_node		**sel = NULL;
		struct prov_err			  e = PROV_ERR_INIT;
		size_t				  k, m;
		int				  hit = 0;

		if (plan_select(&sel, &m, p, pt->nodes, &e) != 0) {
			prov_err_release(&e);
			continue;
		}
		for (k = 0; k < m; k++)
			if (sel[k] == n)
				hit = 1;
		free(sel);
		if (hit) {
			if (part != NULL)
				*part = pt->name;
			return 1;
		}
	}
	return 0;
}

/* A kernel size argument ("2M", "1G", "2048K") in KiB; 0 if unreadable. */
static long long
plan_karg_kb(const char *v)
{
	char		*end;
	long long	 n = strtoll(v, &end, 10);

	/* at most 1 TiB a page: no product below overflows */
	if (end == v || n < 0 || n > 1LL << 30)
		return 0;
	switch (*end) {
	case 'K':
	case 'k':
		return n;
	case 'M':
	case 'm':
		return n <= 1LL << 20 ? n * 1024 : 0;
	case 'G':
	case 'g':
		return n <= 1024 ? n * 1024 * 1024 : 0;
	case '\0':
		return n / 1024;
	default:
		return 0;
	}
}

/*
 * The memory the plan's kernel arguments pin in huge pages, in KiB: each
 * "hugepages=N" counts in the size of the "hugepagesz=" before it, or the
 * default ("default_hugepagesz=", else 2 MiB, x86's and arm64's).  Apply
 * leaves it out of Slurm's RealMemory before the reboot that makes the
 * pages too, so slurm.conf is the same before and after it (t020: the
 * apply after a managed reboot changed slurm.conf).
 */
long long
plan_hugepages_kb(const struct plan *p)
{
	const struct strvec	*a = &p->sw.kernel_args;
	long long		 def = 2048, size = -1, total = 0;
	size_t			 i;

	for (i = 0; i < a->n; i++)
		if (strncmp(a->v[i], "default_hugepagesz=", 19) == 0)
			def = plan_karg_kb(a->v[i] + 19);
	for (i = 0; i < a->n; i++) {
		if (strncmp(a->v[i], "hugepagesz=", 11) == 0)
			size = plan_karg_kb(a->v[i] + 11);
		else if (strncmp(a->v[i], "hugepages=", 10) == 0) {
			long long	n = strtoll(a->v[i] + 10, NULL, 10);

			/* below 2^31 pages of 1 TiB, totals below 2^62 */
			if (n > 0 && n < 1LL << 31 && total < 1LL << 50)
				total += n * (size >= 0 ? size : def);
		}
	}
	return total;
}

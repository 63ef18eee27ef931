/*
 * fuzz_plan.c: the plan parser and validator, then the hardware checks.
 *
 * The input is a plan (YAML) loaded with plan_load_buf() against the real
 * catalog in profiles/.  A plan that loads must satisfy what callers rely
 * on: every node found by its name, every hardware model by its name,
 * every partition's hostlist selecting plan nodes, and check_plan()
 * giving rows whose counts add up.  A plan that does not load must say
 * why.  Plans are capped at 10,000 nodes (the default cap is 1,000,000,
 * which would only measure the allocator).
 */
#include "compat.h"

#include "check.h"
#include "err.h"
#include "plan.h"
#include "row.h"

#include "fuzz.h"

int	LLVMFuzzerInitialize(int *, char ***);
int	LLVMFuzzerTestOneInput(const uint8_t *, size_t);

static char	*fuzz_plan_profiles;

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	fuzz_plan_profiles = fuzz_path("profiles");
	return 0;
}

static void
fuzz_plan_invariants(const struct plan *p)
{
	struct rows		  res = ROWS_INIT;
	struct prov_err		  err = PROV_ERR_INIT;
	struct plan_node	**sel;
	size_t			  i, nsel;

	FUZZ_ASSERT(p->catalog != NULL);
	for (i = 0; i < p->nnodes; i++) {
		FUZZ_ASSERT(p->nodes[i].name != NULL);
		FUZZ_ASSERT(plan_node(p, p->nodes[i].name) == &p->nodes[i]);
		(void)plan_loc(p, p->nodes[i].src, "name");
	}
	for (i = 0; i < p->nhw; i++)
		FUZZ_ASSERT(plan_hw_find(p, p->hw[i].name) == &p->hw[i]);
	for (i = 0; i < p->nracks; i++)
		FUZZ_ASSERT(plan_rack_find(p, p->racks[i].name) ==
		    &p->racks[i]);
	for (i = 0; i < p->nnets; i++)
		FUZZ_ASSERT(plan_net_find(p, p->nets[i].name) == &p->nets[i]);
	for (i = 0; i < p->sw.npartitions; i++) {
		sel = NULL;
		nsel = 0;
		if (plan_select(&sel, &nsel, p, p->sw.partitions[i].nodes,
		    &err) == 0)
			FUZZ_ASSERT(nsel == 0 || sel != NULL);
		free(sel);
		prov_err_release(&err);
	}
	if (check_plan(&res, p, &err) == 0) {
		FUZZ_ASSERT(res.n == rows_count(&res, ROW_OK) +
		    rows_count(&res, ROW_WARN) + rows_count(&res, ROW_FAIL) +
		    rows_count(&res, ROW_SKIP));
		for (i = 0; i < res.n; i++) {
			FUZZ_ASSERT(res.v[i].group != NULL);
			FUZZ_ASSERT(res.v[i].subject != NULL);
			FUZZ_ASSERT(res.v[i].what != NULL);
			(void)row_verdict_name(res.v[i].verdict);
		}
	} else
		FUZZ_ASSERT(err.msg != NULL);
	rows_release(&res);
	prov_err_release(&err);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct plan_opts	 o = PLAN_OPTS_INIT;
	struct prov_errs	 errs = PROV_ERRS_INIT;
	struct plan		*p = NULL;
	size_t			 i;
	char			*s;

	o.builtin_dir = fuzz_plan_profiles;
	o.max_nodes = 10000;
	if (plan_load_buf(&p, "fuzz.yaml", (const char *)data, size, &o,
	    &errs) == 0) {
		FUZZ_ASSERT(p != NULL);
		fuzz_plan_invariants(p);
	} else {
		FUZZ_ASSERT(p == NULL);
		FUZZ_ASSERT(errs.n > 0);
	}
	for (i = 0; i < errs.n; i++) {
		FUZZ_ASSERT(errs.v[i].msg != NULL);
		s = prov_err_format(&errs.v[i]);
		free(s);
	}
	prov_errs_release(&errs);
	plan_free(p);
	return 0;
}

/*
 * plan-int.h: what plan.c (loading) shares with plan-query.c (questions
 * asked of a loaded plan).  Not for the rest of lib/.
 */
#ifndef PROV_PLAN_INT_H
#define PROV_PLAN_INT_H

#include "strmap.h"

/* The plan's names, indexed when it loads. */
struct plan_index {
	struct strmap	nodes;
	struct strmap	hw;
	struct strmap	racks;
	struct strmap	nets;
};

/*
 * "did you mean 'x'?" for `name` among the names `c`, else "define it under
 * 'what:'" when what is given, else NULL (caller frees).
 */
char	*plan_hint(const char *name, const char *const *c, const char *what);

#endif

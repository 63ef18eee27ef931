/*
 * plan-int.h: what plan.c (loading) shares with plan-query.c (questions
 * asked of a loaded plan).  Not for the rest of lib/.
 */
#ifndef PROV_PLAN_INT_H
#define PROV_PLAN_INT_H

#include "strmap.h"

#include "err.h"
#include "plan.h"
#include "schema.h"

/* The hint of an error about a file the plan names. */
#define PLAN_PATH_HINT	"paths are relative to the plan's directory"

/* The loader's context, while plan_load() runs. */
struct plan_ld {
	struct plan		*p;
	struct schema_ctx	 sc;
	struct prov_errs	*errs;
	const struct plan_opts	*opts;
	size_t			 max_nodes;
	size_t			 nodes_alloc;
};

/* The section schemas of plan.c that plan-people.c binds. */
extern const char *const		plan_roles[];
extern const struct schema_field	plan_group_fields[], plan_user_fields[],
    plan_team_fields[], plan_qos_fields[], plan_sched_fields[],
    plan_logging_fields[], plan_directory_fields[], plan_export_fields[];

/* An error at node n of the plan, with a hint; returns -1. */
int	plan_ld_err(struct plan_ld *ld, const struct yml_node *n, const char *hint,
    const char *fmt, ...) PROV_PRINTF(4, 5);
/* The value at key k of map, else map itself. */
const struct yml_node	*plan_key_or(const struct yml_node *map, const char *k);
/* A CA file of the plan, read and checked (NULL: an error was set). */
const char	*plan_load_ca(struct plan_ld *ld, const struct yml_node *at,
    const char *file, const char *whose);
/* A path of the plan, relative to its folder. */
const char	*plan_path(struct plan_ld *ld, const char *path);

/* plan-people.c: the day-2 sections. */
void	plan_load_people(struct plan_ld *ld, const struct yml_node *root);
void	plan_load_logging(struct plan_ld *ld, const struct yml_node *v);
void	plan_load_directory(struct plan_ld *ld, const struct yml_node *v);
void	plan_load_storage(struct plan_ld *ld, const struct yml_node *v);
void	plan_resolve_storage(struct plan_ld *ld);
void	plan_resolve_heads(struct plan_ld *ld);
void	plan_resolve_people(struct plan_ld *ld);

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

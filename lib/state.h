/*
 * state.h: what apply has done, per node and step, kept on disk.
 *
 * One JSON file per cluster (by default .provision/CLUSTER/state.json),
 * rewritten atomically (temporary file, fsync, rename) so that a crash, a
 * full disk or a kill at any moment leaves either the previous or the new
 * state, never a torn one.  `apply --resume` reads it and runs only steps
 * whose last result is not ok, changed or skipped.
 *
 *	struct state *st;
 *	state_open(&st, path, &err);		(empty state when the file is absent)
 *	state_set(st, "gpu01", "base", STATE_CHANGED, NULL, 1.5);
 *	state_save(st, &err);
 *	state_free(st);
 */
#ifndef PROV_STATE_H
#define PROV_STATE_H

#include <stddef.h>
#include <time.h>

#include "buf.h"
#include "err.h"

enum state_res {
	STATE_PENDING = 0,
	STATE_RUNNING,
	STATE_OK,
	STATE_CHANGED,
	STATE_SKIPPED,
	STATE_FAILED,
	STATE_UNREACHABLE,
	STATE_INTERRUPTED,
};

struct state_step {
	char		*name;
	enum state_res	 res;
	double		 elapsed;	/* seconds */
	char		*msg;		/* skip reason or error; never a secret */
	time_t		 at;
};

struct state_node {
	char			*name;
	struct state_step	*steps;
	size_t			 n, alloc;
};

struct state {
	char			*path;
	char			*run_id;	/* the run that wrote it last */
	char			*status;	/* running done failed interrupted */
	struct state_node	*nodes;
	size_t			 n, alloc;
};

int		 state_open(struct state **out, const char *path,
		    struct prov_err *err);
int		 state_save(struct state *, struct prov_err *err);
void		 state_free(struct state *);
void		 state_set(struct state *, const char *node, const char *step,
		    enum state_res, const char *msg, double elapsed);
/* The step's last result, STATE_PENDING when never run. */
enum state_res	 state_get(const struct state *, const char *node,
		    const char *step);
/* 1 when the node has a row for the step, whatever its result. */
int		 state_has(const struct state *, const char *node,
		    const char *step);
/* 1 when the result needs no rerun on --resume. */
int		 state_res_done(enum state_res);
const char	*state_res_name(enum state_res);
void		 state_to_json(struct buf *, const struct state *);

#endif

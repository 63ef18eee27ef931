/*
 * state.h: what apply has done, per node and step, kept on disk.
 *
 * One JSON file per cluster (by default .provision/CLUSTER/state.json),
 * rewritten atomically (temporary file, fsync, rename) so that a crash, a
 * full disk or a kill at any moment leaves either the previous or the new
 * state, never a torn one.  `apply --resume` reads it and runs only steps
 * whose last result is not ok, changed or skipped.
 *
 * apply saves every half second while nodes finish steps, so a save costs
 * what changed, not the whole cluster: each node keeps its JSON text from
 * the last save and only the nodes state_set() touched since are written
 * again; a save when nothing changed (rows, run or status) writes nothing,
 * since the file already holds exactly that.  Change rows only through
 * state_set(): a row edited in place after a save is not seen by the next.
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
#include "strmap.h"

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
	/* state.c's own: the node's text as last saved, stale when dirty. */
	struct buf		 json;
	int			 dirty;
};

struct state {
	char			*path;
	char			*run_id;	/* the run that wrote it last */
	char			*status;	/* running done failed interrupted */
	struct state_node	*nodes;
	size_t			 n, alloc;
	/* state.c's own, for state_save(): */
	struct strmap		 index;		/* node name -> position + 1 */
	struct buf		 out;		/* the file's bytes, reused */
	char			*saved_run;	/* run and status in the file */
	char			*saved_status;
	int			 saved;		/* the file holds every row */
};

int		 state_open(struct state **out, const char *path,
		    struct prov_err *err);
/*
 * Write the file (temporary file, fsync, rename) unless it already holds
 * every row, the run and the status.  On failure the file keeps its last
 * good contents and the next save writes again.
 */
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
/* Append the whole file's text, every node serialized afresh. */
void		 state_to_json(struct buf *, const struct state *);

#endif

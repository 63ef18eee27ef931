/*
 * proc.h: run a program on this machine and keep what it says (after
 * git's struct child_process): nvidia-smi for facts --local, sh -n for
 * apply's lib.sh, apt-get and apt-cache for bundle.
 *
 *	struct proc	p = PROC_INIT;
 *	struct buf	out = BUF_INIT;
 *
 *	strvec_push(&p.args, "apt-get");
 *	strvec_push(&p.env, "LC_ALL=C");
 *	p.out = &out;
 *	if (proc_run(&p) != 0)
 *		... errno: ENOENT (not installed), ETIMEDOUT ...
 *	else if (WIFEXITED(p.status) && WEXITSTATUS(p.status) == 0)
 *		... out.buf ...
 *	proc_release(&p);
 *
 * The program never sees a terminal: stdin is /dev/null, and what it
 * writes is kept, never shown.  The caller owns the bufs.
 */
#ifndef PROV_PROC_H
#define PROV_PROC_H

#include "strvec.h"

struct buf;

struct proc {
	struct strvec	 args;		/* args.v[0] is searched in PATH */
	struct strvec	 env;		/* "NAME=value" sets, "NAME" unsets */
	struct buf	*out;		/* stdout; NULL: read and dropped */
	struct buf	*err;		/* stderr; NULL: with stdout (2>&1) */
	size_t		 max;		/* bytes kept per stream; 0: 16 MiB */
	int		 timeout_s;	/* 0: no limit */
	int		 status;	/* the wait status, once run */
};

/* clang-format off */
#define PROC_INIT { STRVEC_INIT, STRVEC_INIT, NULL, NULL, 0, 0, 0 }
/* clang-format on */

/*
 * Run p and wait for it.  0 when it ran (p->status holds how it ended),
 * -1 with errno when it could not start (ENOENT: not installed) or ran
 * past timeout_s (ETIMEDOUT; it is killed).
 */
int	proc_run(struct proc *p);
/* Free args and env; p can be run again after new args. */
void	proc_release(struct proc *p);

/* Seconds on the monotonic clock: for deadlines and durations. */
double	proc_now(void);

/* Sleep S seconds (fractions too), through signals that interrupt it. */
void	proc_sleep(double s);

#endif

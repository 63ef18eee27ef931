/*
 * apply.h: turn bare nodes into the planned cluster (docs/architecture.md,
 * "What happens in provision apply PLAN").
 *
 * The run is a few waves (a barrier between two): the steps up to the
 * first head-first step, that step on the head, the steps up to the next,
 * and so on.  In a wave each node gets ONE job: an `sh -s` on one SSH
 * channel that the engine feeds part by part (ssh_pool_feed):
 *	1. the first wave locks the node (a lock directory on the node
 *	   names this run; a lock left by a dead run of this workstation is
 *	   taken over and said so, any other lock stops that node with who
 *	   holds it) and, when a step to run renders from them, gathers its
 *	   facts (real CPUs, memory, GPUs for slurm.conf);
 *	2. the steps of apply_steps[], each a template rendered per node
 *	   (render.h), sent as a here-document only once the previous one's
 *	   result is in, so a failure, --max-fail or ^C stops between steps.
 *	   A step marked head-first runs on the head, the engine reads the
 *	   value it produced (munge key, join command) over the session into
 *	   memory, and only then runs on the other nodes, which get the value
 *	   on stdin (base64 in a here-document, decoded into a 0600 file under
 *	   a 0700 directory the step consumes): never in argv, never in a
 *	   log, never in the run folder;
 *	3. the node's last job unlocks it.
 * A step that says its node must reboot ("reboot: REASON" after its
 * result, templates/lib.sh prov_reboot) ends that node's job there; once
 * the wave is over, those nodes reboot (reboot.h: K at a time, heads
 * last) and, back, run the rest of the wave from that step on, which must
 * no longer ask.  The state has a "reboot" row per node that needed one:
 * pending while it is due, changed once done, failed when the node did
 * not come back; --resume reruns every step of a node whose reboot is
 * not done.
 * One session and one shell per node and wave: a re-apply of a finished
 * cluster costs the nodes their checks, not plumbing.
 * A node whose step fails stops there; the others go on.  Results land in
 * the state file (state.h) at most half a second after they happen, and
 * failures at once; the file is replaced atomically, so a crash leaves
 * the last good state, and --resume (which skips what is ok, changed or
 * skipped) reruns the few steps a kill -9 lost: they report ok.
 *
 * lib/ never prints: progress reaches the caller through `event`.
 */
#ifndef PROV_APPLY_H
#define PROV_APPLY_H

#include <signal.h>
#include <stddef.h>

#include "err.h"
#include "state.h"

struct plan;
struct plan_node;

#define APPLY_HEAD_FIRST	0x1	/* head, then a barrier, then the rest */
#define APPLY_NEEDS_FACTS	0x2	/* renders from every node's facts: runs
					   after the first wave, which gathers
					   them (head-first steps do) */
#define APPLY_STORAGE_FIRST	0x8	/* head-first, on the node that serves
					   the plan's NFS exports (the head
					   when none does); where it fails
					   there, the others fail it at once */
#define APPLY_RELAY_FIRST	0x4	/* head-first, on the package relay node
					   rather than the head; where it fails
					   there, the others fail it at once */
#define APPLY_PLAN_SECRET	0x10	/* `secret` is the plan's, read by apply
					   from the operator's file (the
					   directory's bind password), and
					   given to the step on every node */

struct apply_step {
	const char	*name;		/* template name, state key */
	int		 flags;
	const char	*secret;	/* value the head makes for the others
					   (with APPLY_PLAN_SECRET: the
					   plan's), its file's name in
					   $PROV_SECRET_DIR */
	/* Whether the plan asks for this step on this node. */
	int		(*wanted)(const struct plan *, const struct plan_node *);
	/*
	 * What of `secret` is secret: the values of these options (the
	 * join command's token, not its CA hash), or NULL: all of it.
	 */
	const char *const *secret_args;
};

extern const struct apply_step apply_steps[];

enum apply_event_kind {
	APPLY_EV_START,		/* a step starts on a node */
	APPLY_EV_DONE,		/* a step ended: res, msg, elapsed */
	APPLY_EV_OUTPUT,	/* output of a step (never of a secret read) */
	APPLY_EV_NOTE,		/* a message for the user (node may be NULL) */
};

struct apply_event {
	enum apply_event_kind	 kind;
	const char		*node;
	const char		*step;
	enum state_res		 res;
	const char		*msg;
	double			 elapsed;
	const char		*data;		/* output bytes */
	size_t			 len;
	size_t			 index;		/* node index in the run */
	size_t			 nsteps, stepno; /* progress of this node */
};

struct apply_opts {
	const char	*templates;	/* dir */
	const char	*run_dir;	/* logs, facts: created */
	const char	*state_path;
	const char	*dry_run_dir;	/* render only, into this dir */
	const char	*nodes;		/* hostlist, or NULL: all */
	const char	*only_step;	/* run only this step, or NULL */
	const char	*apt_repo;	/* on every node: the unpacked bundle's
					   repository (offline.h), or NULL */
	const char	*apt_release;	/* SHA-256 of its repo/Release, or NULL */
	int		 apt_served;	/* the relay alone has it and serves it
					   to the others (software.relay) */
	const char	*images_sha256;	/* of the bundle's images tar, or
					   NULL: the bundle has none */
	int		 resume;
	int		 break_lock;
	int		 no_reboot;	/* stop the nodes that need a reboot */
	long		 reboot_parallel; /* 0: the plan's */
	long		 reboot_timeout_s; /* 0: the plan's */
	long		 forks;		/* 0: the plan's */
	long		 max_fail;	/* -1: no limit */
	const char	*run_id;
	const char	*passphrase;	/* for an encrypted identity */
	volatile sig_atomic_t *interrupted; /* set by the caller's handler */
	void		(*event)(void *, const struct apply_event *);
	void		*event_arg;
};

struct apply_summary {
	size_t	nodes, nodes_ok, nodes_failed, nodes_unreachable;
	size_t	nodes_reboot;		/* stopped for a reboot (--no-reboot) */
	size_t	reboots;		/* done in this run */
	size_t	ok, changed, skipped, failed;
	int	interrupted, stopped_max_fail;
};

/*
 * Run the plan.  0 when the run happened (nodes may have failed: see
 * `sum`); -1 with err when it could not (state unreadable, templates
 * missing, no such nodes).
 */
int	apply_run(struct apply_summary *sum, const struct plan *,
	    const struct apply_opts *, struct prov_err *err);

/* The steps that apply to node i, in order (count). */
size_t	apply_steps_for(const struct plan *, const struct plan_node *,
	    const struct apply_step **out, size_t max);

#endif

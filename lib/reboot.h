/*
 * reboot.h: apply's managed reboots.  A step says its node must reboot
 * (templates/lib.sh prov_reboot: a kernel command line, a driver, a new
 * kernel); apply then reboots those nodes here and goes on with their
 * remaining steps once they are back.
 *
 * Order: every node that is not a head first, at most `parallel` at a
 * time; then the heads, one at a time.  Workers come back while their
 * controller (Slurm, the Kubernetes control plane, an NFS server on the
 * head) is up, and a cluster with two heads never loses both.
 *
 * A node is rebooted through templates/reboot.sh (systemctl reboot from a
 * timer, once the session has closed) and is back when its boot ID has
 * changed and systemd's boot has finished: "running", or "degraded" (a
 * unit failed: said, not fatal).  A node that is not back within
 * `timeout_s` fails alone, with the reason; the others go on.
 */
#ifndef PROV_REBOOT_H
#define PROV_REBOOT_H

#include <signal.h>
#include <stddef.h>

#include "err.h"

struct ssh_config;

enum reboot_result {
	REBOOT_PENDING = 0,
	REBOOT_OK,		/* back, running */
	REBOOT_DEGRADED,	/* back, a unit failed (msg names them) */
	REBOOT_FAILED,		/* not rebooted, or not back (msg says why) */
};

struct reboot_node {
	const char		*name;
	const char		*addr;
	int			 head;
	/* filled by reboot_run */
	enum reboot_result	 res;
	char			*msg;		/* the caller frees it */
	double			 elapsed;	/* from the reboot to back */
};

enum reboot_event_kind {
	REBOOT_EV_START,	/* the node reboots now */
	REBOOT_EV_DONE,		/* its res, msg and elapsed are final */
};

typedef void (*reboot_event_fn)(void *, enum reboot_event_kind,
    const struct reboot_node *);

struct reboot_opts {
	const struct ssh_config	*cfg;		/* as for the steps */
	const char		*script;	/* templates/reboot.sh */
	long			 parallel;	/* nodes at once: >= 1 */
	long			 timeout_s;	/* to come back */
	double			 poll_s;	/* between two looks: 0 = 5 */
	volatile sig_atomic_t	*interrupted;
	reboot_event_fn		 event;
	void			*event_arg;
};

/*
 * The reboot order of nodes[0..n): order[] gets the indexes, sizes[] the
 * size of each batch (n entries are enough for both).  Returns the number
 * of batches.
 */
size_t	reboot_batches(const struct reboot_node *nodes, size_t n, long parallel,
    size_t *order, size_t *sizes);

/*
 * Reboot every node, batch after batch, each batch once its nodes are
 * back or failed.  0 when it ran (see each node's res); -1 with err when
 * it could not (no memory for a pool, an unreadable key).
 */
int	reboot_run(struct reboot_node *nodes, size_t n, const struct reboot_opts *,
    struct prov_err *err);

#endif

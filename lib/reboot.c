/*
 * reboot.c: apply's managed reboots (reboot.h says the rules).
 *
 * Each batch is one ssh_run_all() that starts the reboots (and reads each
 * node's boot ID), then rounds of ssh_run_all() over the nodes not back
 * yet, every poll_s seconds, with one connection try each: a node that is
 * down refuses or times out, which only means "not yet".  A new session
 * per round: the sessions of before the reboot are dead.
 */
#include "compat.h"

#include <time.h>

#include "buf.h"
#include "proc.h"
#include "reboot.h"
#include "ssh.h"
#include "str.h"

#define REBOOT_POLL_S		5.0
#define REBOOT_CONNECT_S	10

size_t
reboot_batches(const struct reboot_node *nodes, size_t n, long parallel,
    size_t *order, size_t *sizes)
{
	size_t	i, k = 0, nb = 0, in = 0;
	size_t	per = parallel > 0 ? (size_t)parallel : 1;

	for (i = 0; i < n; i++) {
		if (nodes[i].head)
			continue;
		order[k++] = i;
		if (in == 0)
			sizes[nb++] = 0;
		sizes[nb - 1]++;
		in = (in + 1) % per;
	}
	for (i = 0; i < n; i++) {
		if (!nodes[i].head)
			continue;
		order[k++] = i;
		sizes[nb++] = 1;
	}
	return nb;
}

static void
reboot_emit(const struct reboot_opts *o, enum reboot_event_kind kind,
    const struct reboot_node *rn)
{
	if (o->event != NULL)
		o->event(o->event_arg, kind, rn);
}

static void
reboot_finish(const struct reboot_opts *o, struct reboot_node *rn,
    enum reboot_result res, double t0, char *msg)
{
	rn->res = res;
	free(rn->msg);
	rn->msg = msg;
	rn->elapsed = t0 > 0 ? proc_now() - t0 : 0;
	reboot_emit(o, REBOOT_EV_DONE, rn);
}

/* "boot ID [STATE [UNIT...]]" of reboot.sh: the ID, and the rest. */
static int
reboot_parse(const struct buf *out, char *id, size_t idlen, const char **rest)
{
	const char	*p = out->buf, *e;
	size_t		 len;

	if (p == NULL || !str_starts(p, "boot "))
		return -1;
	p += 5;
	len = strspn(p, "0123456789abcdef-");
	if (len == 0 || len >= idlen)
		return -1;
	memcpy(id, p, len);
	id[len] = '\0';
	p += len;
	while (*p == ' ')
		p++;
	*rest = p;
	e = p + strcspn(p, "\n");
	if (*e != '\n' && *e != '\0')
		return -1;
	return 0;
}

/* The first line of what went wrong, for a reason. */
static char *
reboot_why(const struct ssh_result *r)
{
	const char	*s;
	size_t		 len;

	if (r->error != NULL)
		return xstrdup(r->error);
	s = r->err.len > 0 ? r->err.buf : "no detail";
	len = strcspn(s, "\n");
	return xasprintf("exit %d: %.*s", r->exit_code, (int)len, s);
}

/* The job: reboot.sh on stdin, then one call. */
static void
reboot_job(struct ssh_job *job, struct buf *in, const char *script,
    const char *call)
{
	buf_reset(in);
	buf_adds(in, script);
	buf_addf(in, "\n%s\n", call);
	*job = (struct ssh_job)SSH_JOB_INIT;
	job->command = "sh -s";
	job->stdin_data = in->buf;
	job->stdin_len = in->len;
	job->label = "reboot";
}

/*
 * One batch: its nodes (indices into nodes), their hosts and results for
 * ssh_run_all(), and per node the boot ID before the reboot and when it
 * started (0: it did not).
 */
struct reboot_was {
	char	old[64];
	double	t0;
};

struct reboot_batch {
	struct reboot_node	 *nodes;
	const size_t		 *idx;
	size_t			  nb;
	const struct reboot_opts *o;
	struct ssh_config	  cfg;
	struct ssh_host		 *hosts;
	struct ssh_result	 *res;
	struct reboot_was	 *was;
	size_t			 *map;
	struct ssh_job		  job;
	struct buf		  in;
};

/* Starts every reboot of the batch; *left: the nodes now on their way. */
static int
reboot_batch_start(struct reboot_batch *b, size_t *left, struct prov_err *err)
{
	const char	*rest;
	size_t		 i;

	for (i = 0; i < b->nb; i++) {
		b->hosts[i].name = b->nodes[b->idx[i]].name;
		b->hosts[i].addr = b->nodes[b->idx[i]].addr;
	}
	b->cfg.forks = (long)b->nb;
	b->cfg.keep_open = 0;
	reboot_job(&b->job, &b->in, b->o->script, "reboot_start");
	if (ssh_run_all(&b->cfg, b->hosts, b->nb, &b->job, b->res, NULL, NULL,
	        err) != 0)
		return -1;
	for (i = 0; i < b->nb; i++) {
		struct reboot_node	*rn = &b->nodes[b->idx[i]];
		struct reboot_was	*w = &b->was[i];
		char			*why;

		if (b->res[i].status == SSH_OK &&
		    reboot_parse(&b->res[i].out, w->old, sizeof w->old,
		        &rest) == 0) {
			w->t0 = proc_now();
			rn->res = REBOOT_PENDING;
			reboot_emit(b->o, REBOOT_EV_START, rn);
			(*left)++;
		} else {
			why = reboot_why(&b->res[i]);
			reboot_finish(b->o, rn, REBOOT_FAILED, 0,
			    xasprintf("cannot reboot: %s", why));
			free(why);
		}
		ssh_result_release(&b->res[i]);
	}
	return 0;
}

/*
 * What a node's answer says after its reboot: 1 when it is done (back
 * and booted, degraded or failed, or refusing us), 0 while it is not
 * back (no answer, or the boot ID of before).
 */
static int
reboot_back(const struct reboot_opts *o, struct reboot_node *rn,
    const struct reboot_was *w, const struct ssh_result *res)
{
	const char	*rest;
	char		 id[64], *why;
	int		 sl;

	if (res->status == SSH_HOSTKEY || res->status == SSH_AUTH) {
		why = reboot_why(res);
		reboot_finish(o, rn, REBOOT_FAILED, w->t0,
		    xasprintf("back, but %s", why));
		free(why);
		return 1;
	}
	if (res->status != SSH_OK ||
	    reboot_parse(&res->out, id, sizeof id, &rest) != 0 ||
	    strcmp(id, w->old) == 0)
		return 0;
	sl = (int)strcspn(rest, " \n");
	if (sl == 7 && strncmp(rest, "running", 7) == 0)
		reboot_finish(o, rn, REBOOT_OK, w->t0, NULL);
	else if (sl == 8 && strncmp(rest, "degraded", 8) == 0)
		reboot_finish(o, rn, REBOOT_DEGRADED, w->t0,
		    xasprintf("degraded, failed units:%.*s",
		        (int)strcspn(rest + sl, "\n"), rest + sl));
	else if (sl == 8 && strncmp(rest, "starting", 8) == 0 &&
	    strcspn(rest + sl, "\n") > 0)
		reboot_finish(o, rn, REBOOT_FAILED, w->t0,
		    xasprintf("back, but its boot did not finish: "
		              "systemd says starting, still at work on:%.*s",
		        (int)strcspn(rest + sl, "\n"), rest + sl));
	else
		reboot_finish(o, rn, REBOOT_FAILED, w->t0,
		    xasprintf("back, but its boot did not finish: "
		              "systemd says %.*s",
		        sl, rest));
	return 1;
}

/* One look at the nodes not back yet; *left drops by those done. */
static int
reboot_batch_round(struct reboot_batch *b, double deadline, size_t *left,
    struct prov_err *err)
{
	char	call[64];
	long	wait_s;
	size_t	i, k = 0;

	for (i = 0; i < b->nb; i++)
		if (b->was[i].t0 > 0 &&
		    b->nodes[b->idx[i]].res == REBOOT_PENDING) {
			b->hosts[k].name = b->nodes[b->idx[i]].name;
			b->hosts[k].addr = b->nodes[b->idx[i]].addr;
			b->map[k++] = i;
		}
	wait_s = (long)(deadline - proc_now()) + 1;
	snprintf(call, sizeof call, "reboot_wait %ld", wait_s);
	reboot_job(&b->job, &b->in, b->o->script, call);
	b->job.timeout_s = wait_s + 30;
	b->cfg.forks = (long)k;
	if (ssh_run_all(&b->cfg, b->hosts, k, &b->job, b->res, NULL, NULL,
	        err) != 0)
		return -1;
	for (i = 0; i < k; i++) {
		size_t	j = b->map[i];

		if (reboot_back(b->o, &b->nodes[b->idx[j]], &b->was[j],
		        &b->res[i]))
			(*left)--;
		ssh_result_release(&b->res[i]);
	}
	return 0;
}

static int
reboot_batch(struct reboot_node *nodes, const size_t *idx, size_t nb,
    const struct reboot_opts *o, struct prov_err *err)
{
	struct reboot_batch	 b;
	double			 deadline, poll;
	size_t			 i, left = 0;
	int			 r = -1;

	memset(&b, 0, sizeof b);
	b.nodes = nodes;
	b.idx = idx;
	b.nb = nb;
	b.o = o;
	b.cfg = *o->cfg;
	b.hosts = xcalloc(nb, sizeof *b.hosts);
	b.res = xcalloc(nb, sizeof *b.res);
	b.was = xcalloc(nb, sizeof *b.was);
	b.map = xcalloc(nb, sizeof *b.map);
	b.in = (struct buf)BUF_INIT;
	poll = o->poll_s > 0 ? o->poll_s : REBOOT_POLL_S;
	if (reboot_batch_start(&b, &left, err) != 0)
		goto out;

	/* One try per round, short: a node down only means "not yet". */
	b.cfg.tries = 1;
	if (b.cfg.connect_timeout_s <= 0 ||
	    b.cfg.connect_timeout_s > REBOOT_CONNECT_S)
		b.cfg.connect_timeout_s = REBOOT_CONNECT_S;
	deadline = proc_now() + (double)o->timeout_s;
	while (left > 0) {
		if (o->interrupted != NULL && *o->interrupted)
			break;
		proc_sleep(poll);
		if (proc_now() >= deadline)
			break;
		if (reboot_batch_round(&b, deadline, &left, err) != 0)
			goto out;
	}
	for (i = 0; i < nb; i++) {
		struct reboot_node	*rn = &nodes[idx[i]];

		if (b.was[i].t0 > 0 && rn->res == REBOOT_PENDING)
			reboot_finish(o, rn, REBOOT_FAILED, b.was[i].t0,
			    o->interrupted != NULL && *o->interrupted ?
			        xstrdup("interrupted while it rebooted") :
			        xasprintf("not back within %ld s of its reboot",
			            o->timeout_s));
	}
	r = 0;
out:
	buf_release(&b.in);
	free(b.hosts);
	free(b.res);
	free(b.was);
	free(b.map);
	return r;
}

int
reboot_run(struct reboot_node *nodes, size_t n, const struct reboot_opts *o,
    struct prov_err *err)
{
	size_t	*order = xcalloc(n + 1, sizeof *order);
	size_t	*sizes = xcalloc(n + 1, sizeof *sizes);
	size_t	 nb, b, at = 0, i;
	int	 r = 0;

	for (i = 0; i < n; i++) {
		nodes[i].res = REBOOT_PENDING;
		nodes[i].elapsed = 0;
	}
	nb = reboot_batches(nodes, n, o->parallel, order, sizes);
	for (b = 0; b < nb && r == 0; b++) {
		if (o->interrupted != NULL && *o->interrupted) {
			for (i = at; i < n; i++)
				reboot_finish(o, &nodes[order[i]],
				    REBOOT_FAILED, 0,
				    xstrdup("interrupted before its reboot"));
			break;
		}
		r = reboot_batch(nodes, order + at, sizes[b], o, err);
		at += sizes[b];
	}
	free(order);
	free(sizes);
	return r;
}

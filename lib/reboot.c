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
#include "reboot.h"
#include "ssh.h"
#include "str.h"

#define REBOOT_POLL_S		5.0
#define REBOOT_CONNECT_S	10

static double
reboot_now(void)
{
	struct timespec	ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void
reboot_sleep(double s)
{
	struct timespec	ts;

	ts.tv_sec = (time_t)s;
	ts.tv_nsec = (long)((s - (double)ts.tv_sec) * 1e9);
	while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
		;
}

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
	rn->elapsed = t0 > 0 ? reboot_now() - t0 : 0;
	reboot_emit(o, REBOOT_EV_DONE, rn);
}

/* "boot ID [STATE [UNIT...]]" of reboot.sh: the ID, and the rest. */
static int
reboot_parse(const struct buf *out, char *id, size_t idlen,
    const char **rest)
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

static int
reboot_batch(struct reboot_node *nodes, const size_t *idx, size_t nb,
    const struct reboot_opts *o, struct prov_err *err)
{
	struct ssh_config	 cfg = *o->cfg;
	struct ssh_host		*hosts = xcalloc(nb, sizeof *hosts);
	struct ssh_result	*res = xcalloc(nb, sizeof *res);
	char			(*old)[64] = xcalloc(nb, sizeof *old);
	double			*t0 = xcalloc(nb, sizeof *t0);
	size_t			*map = xcalloc(nb, sizeof *map);
	struct ssh_job		 job;
	struct buf		 in = BUF_INIT;
	double			 deadline, poll = o->poll_s > 0 ? o->poll_s :
				    REBOOT_POLL_S;
	size_t			 i, k, left = 0;
	int			 r = -1;
	char			 call[64], id[64];
	const char		*rest;

	for (i = 0; i < nb; i++) {
		hosts[i].name = nodes[idx[i]].name;
		hosts[i].addr = nodes[idx[i]].addr;
	}
	cfg.forks = (long)nb;
	cfg.keep_open = 0;
	reboot_job(&job, &in, o->script, "reboot_start");
	if (ssh_run_all(&cfg, hosts, nb, &job, res, NULL, NULL, err) != 0)
		goto out;
	for (i = 0; i < nb; i++) {
		struct reboot_node	*rn = &nodes[idx[i]];

		if (res[i].status == SSH_OK &&
		    reboot_parse(&res[i].out, old[i], sizeof old[i], &rest) == 0) {
			t0[i] = reboot_now();
			rn->res = REBOOT_PENDING;
			reboot_emit(o, REBOOT_EV_START, rn);
			left++;
		} else {
			char	*why = reboot_why(&res[i]);

			reboot_finish(o, rn, REBOOT_FAILED, 0, xasprintf(
			    "cannot reboot: %s", why));
			free(why);
		}
		ssh_result_release(&res[i]);
	}

	/* One try per round, short: a node down only means "not yet". */
	cfg.tries = 1;
	if (cfg.connect_timeout_s <= 0 || cfg.connect_timeout_s > REBOOT_CONNECT_S)
		cfg.connect_timeout_s = REBOOT_CONNECT_S;
	deadline = reboot_now() + (double)o->timeout_s;
	while (left > 0) {
		long	wait_s;

		if (o->interrupted != NULL && *o->interrupted)
			break;
		reboot_sleep(poll);
		if (reboot_now() >= deadline)
			break;
		k = 0;
		for (i = 0; i < nb; i++)
			if (t0[i] > 0 && nodes[idx[i]].res == REBOOT_PENDING) {
				hosts[k].name = nodes[idx[i]].name;
				hosts[k].addr = nodes[idx[i]].addr;
				map[k++] = i;
			}
		wait_s = (long)(deadline - reboot_now()) + 1;
		snprintf(call, sizeof call, "reboot_wait %ld", wait_s);
		reboot_job(&job, &in, o->script, call);
		job.timeout_s = wait_s + 30;
		cfg.forks = (long)k;
		if (ssh_run_all(&cfg, hosts, k, &job, res, NULL, NULL, err) != 0)
			goto out;
		for (i = 0; i < k; i++) {
			size_t			 j = map[i];
			struct reboot_node	*rn = &nodes[idx[j]];

			if (res[i].status == SSH_HOSTKEY ||
			    res[i].status == SSH_AUTH) {
				char	*why = reboot_why(&res[i]);

				reboot_finish(o, rn, REBOOT_FAILED, t0[j],
				    xasprintf("back, but %s", why));
				free(why);
				left--;
			} else if (res[i].status == SSH_OK &&
			    reboot_parse(&res[i].out, id, sizeof id, &rest) == 0 &&
			    strcmp(id, old[j]) != 0) {
				size_t	sl = strcspn(rest, " \n");

				if (sl == 7 && strncmp(rest, "running", 7) == 0)
					reboot_finish(o, rn, REBOOT_OK, t0[j],
					    NULL);
				else if (sl == 8 && strncmp(rest, "degraded",
				    8) == 0)
					reboot_finish(o, rn, REBOOT_DEGRADED,
					    t0[j], xasprintf("degraded, failed "
					    "units:%.*s", (int)strcspn(rest + sl,
					    "\n"), rest + sl));
				else
					reboot_finish(o, rn, REBOOT_FAILED,
					    t0[j], xasprintf("back, but its boot "
					    "did not finish: systemd says %.*s",
					    (int)sl, rest));
				left--;
			}
			ssh_result_release(&res[i]);
		}
	}
	for (i = 0; i < nb; i++) {
		struct reboot_node	*rn = &nodes[idx[i]];

		if (t0[i] > 0 && rn->res == REBOOT_PENDING)
			reboot_finish(o, rn, REBOOT_FAILED, t0[i],
			    o->interrupted != NULL && *o->interrupted ?
			    xstrdup("interrupted while it rebooted") :
			    xasprintf("not back within %ld s of its reboot",
			    o->timeout_s));
	}
	r = 0;
out:
	buf_release(&in);
	free(hosts);
	free(res);
	free(old);
	free(t0);
	free(map);
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
				reboot_finish(o, &nodes[order[i]], REBOOT_FAILED,
				    0, xstrdup("interrupted before its reboot"));
			break;
		}
		r = reboot_batch(nodes, order + at, sizes[b], o, err);
		at += sizes[b];
	}
	free(order);
	free(sizes);
	return r;
}

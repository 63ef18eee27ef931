/*
 * apply.c: the apply engine.  See apply.h for the shape of a run.
 *
 * The run is a list of waves; each wave is one ssh_pool_run() and so a
 * barrier.  Within a wave every node works through its own queue of steps
 * as fast as it can: barriers sit only before a head-first step, where
 * the other nodes need what the head made.  Steps reach a node on stdin
 * (`cat > FILE; sh FILE </dev/null`), so a step's own commands can never
 * eat the script, and secrets travel the same way, ahead of the script,
 * read with `dd` into a private directory.
 */
#include "compat.h"

#include <math.h>
#include <signal.h>
#include <sys/stat.h>
#include <time.h>

#include "apply.h"
#include "buf.h"
#include "facts.h"
#include "hostlist.h"
#include "plan.h"
#include "render.h"
#include "ssh.h"
#include "state.h"
#include "str.h"
#include "strvec.h"

#define APPLY_MAX_STEPS		16
#define APPLY_EXIT_CHANGED	100
#define APPLY_EXIT_SKIPPED	101
#define APPLY_EXIT_LOCKED	75
#define APPLY_SAVE_EVERY_S	0.5

static int
apply_want_always(const struct plan *p, const struct plan_node *n)
{
	return 1;
}

static int
apply_want_driver(const struct plan *p, const struct plan_node *n)
{
	return p->sw.driver_branch != NULL;
}

static int
apply_want_runtime(const struct plan *p, const struct plan_node *n)
{
	return p->sw.runtime != NULL && strcmp(p->sw.runtime, "none") != 0;
}

static int
apply_want_slurm(const struct plan *p, const struct plan_node *n)
{
	return strcmp(p->sw.orchestrator, "slurm") == 0;
}

static int
apply_want_k8s(const struct plan *p, const struct plan_node *n)
{
	return strcmp(p->sw.orchestrator, "kubernetes") == 0;
}

static int
apply_want_node_exporter(const struct plan *p, const struct plan_node *n)
{
	return p->sw.node_exporter;
}

static int
apply_want_dcgm(const struct plan *p, const struct plan_node *n)
{
	return p->sw.dcgm_exporter;
}

static int
apply_want_prometheus(const struct plan *p, const struct plan_node *n)
{
	return p->sw.prometheus != NULL && strcmp(p->sw.prometheus, n->name) == 0;
}

static int
apply_want_grafana(const struct plan *p, const struct plan_node *n)
{
	return p->sw.grafana != NULL && strcmp(p->sw.grafana, n->name) == 0;
}

static int
apply_want_extras(const struct plan *p, const struct plan_node *n)
{
	return p->sw.extras.n > 0;
}

const struct apply_step apply_steps[] = {
	{ "base", 0, NULL, apply_want_always },
	{ "gpu-driver", 0, NULL, apply_want_driver },
	{ "container-runtime", 0, NULL, apply_want_runtime },
	{ "munge", APPLY_HEAD_FIRST, "munge.key", apply_want_slurm },
	{ "slurm", APPLY_HEAD_FIRST, NULL, apply_want_slurm },
	{ "kubernetes", APPLY_HEAD_FIRST, "join", apply_want_k8s },
	{ "node-exporter", 0, NULL, apply_want_node_exporter },
	{ "dcgm-exporter", 0, NULL, apply_want_dcgm },
	{ "prometheus", 0, NULL, apply_want_prometheus },
	{ "grafana", 0, NULL, apply_want_grafana },
	{ "extras", 0, NULL, apply_want_extras },
	{ NULL, 0, NULL, NULL }
};

size_t
apply_steps_for(const struct plan *p, const struct plan_node *n,
    const struct apply_step **out, size_t max)
{
	size_t	i, k = 0;

	for (i = 0; apply_steps[i].name != NULL && k < max; i++)
		if (apply_steps[i].wanted(p, n))
			out[k++] = &apply_steps[i];
	return k;
}

enum apply_job_kind {
	AJ_NONE = 0,
	AJ_LOCK,
	AJ_LOCK_FORCE,
	AJ_FACTS,
	AJ_STEP,
	AJ_FETCH,
	AJ_UNLOCK,
};

struct apply_node {
	size_t			 pi;		/* index in plan->nodes */
	const struct plan_node	*pn;
	int			 selected;	/* steps run here (else: head helper) */
	int			 dead;		/* failed or unreachable: no more jobs */
	int			 conn_lost;	/* a job ended without its command's
						   exit: session gone or step hung */
	int			 locked;
	int			 force_lock;
	/* this wave's queue */
	const struct apply_step	*queue[APPLY_MAX_STEPS];
	size_t			 nqueue, cursor;
	int			 wave_job;	/* lock/facts/unlock/fetch pending */
	/* the job in flight */
	enum apply_job_kind	 kind;
	const struct apply_step	*step;
	struct ssh_job		 job;
	struct buf		 in;		/* the job's stdin */
	char			*cmd;
	double			 t0;
	size_t			 nsteps, stepno;
	FILE			*log;
	int			 log_midline;	/* step output ended without \n */
};

struct apply_ctx {
	const struct plan		*p;
	const struct apply_opts		*o;
	struct state			*st;
	struct apply_summary		*sum;
	struct apply_node		*nodes;
	size_t				 n;
	struct render_hostinfo		*info;	/* per plan node */
	struct render_in		 rin;
	enum apply_job_kind		 wave;	/* AJ_LOCK, AJ_FACTS, AJ_STEP, AJ_UNLOCK */
	const struct apply_step		*hf;	/* head-first step of this wave */
	struct buf			 secret;	/* the head's value for hf */
	int				 have_secret;
	size_t				 nfailed;
	int				 stop;
	int				 save_failed;
	double				 last_save;
	char				 owner[640];
	char				 hostname[256];
	struct prov_err			 save_err;
};

static double
apply_now(void)
{
	struct timespec	ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void
apply_emit(struct apply_ctx *c, struct apply_event *ev)
{
	if (c->o->event != NULL)
		c->o->event(c->o->event_arg, ev);
}

static void
apply_note(struct apply_ctx *c, const char *node, const char *fmt, ...)
	PROV_PRINTF(3, 4);

static void
apply_note(struct apply_ctx *c, const char *node, const char *fmt, ...)
{
	struct apply_event	 ev;
	va_list			 ap;
	char			*msg;

	va_start(ap, fmt);
	if (vasprintf(&msg, fmt, ap) < 0)
		msg = NULL;
	va_end(ap);
	memset(&ev, 0, sizeof ev);
	ev.kind = APPLY_EV_NOTE;
	ev.node = node;
	ev.msg = msg != NULL ? msg : fmt;
	apply_emit(c, &ev);
	free(msg);
}

static void
apply_save(struct apply_ctx *c, int force)
{
	double	now = apply_now();

	if (!force && now - c->last_save < APPLY_SAVE_EVERY_S)
		return;
	c->last_save = now;
	if (state_save(c->st, &c->save_err) == 0)
		return;
	/*
	 * What runs from here on could not be recorded: say it once and
	 * start nothing new.  The file keeps its last good contents.
	 */
	if (!c->save_failed)
		apply_note(c, NULL, "%s: stopping, no new step starts (make "
		    "room, then run again with --resume)", c->save_err.msg);
	c->save_failed = 1;
	c->stop = 1;
}

static void
apply_log(struct apply_node *an, const char *fmt, ...) PROV_PRINTF(2, 3);

static void
apply_log(struct apply_node *an, const char *fmt, ...)
{
	va_list	ap;

	if (an->log == NULL)
		return;
	/* Our lines start a line, even after output without a newline. */
	if (an->log_midline)
		fputc('\n', an->log);
	an->log_midline = 0;
	va_start(ap, fmt);
	vfprintf(an->log, fmt, ap);
	va_end(ap);
	fflush(an->log);
}

/*
 * The lock: a directory on the node; its owner file says whose.  Named
 * after the node ($3, a checked host name), so hosts that share one
 * filesystem (containers, a test fleet) still lock apart.
 */
static const char apply_lock_sh[] =
    "l=/var/lock/provision.$3.lock\n"
    "mkdir -p /var/lock\n"
    "if [ \"$1\" = force ]; then rm -rf \"$l\"; fi\n"
    "if mkdir \"$l\" 2>/dev/null; then\n"
    "  printf '%s\\n' \"$2\" > \"$l/owner\"; exit 0\n"
    "fi\n"
    "cat \"$l/owner\" 2>/dev/null || echo unknown\n"
    "exit 75\n";

static const char apply_unlock_sh[] =
    "l=/var/lock/provision.$3.lock\n"
    "if grep -qF -- \"$2\" \"$l/owner\" 2>/dev/null; then rm -rf \"$l\"; fi\n"
    "exit 0\n";

static char *
apply_script_cmd(const char *script, const char *arg1, const char *arg2,
    const char *node)
{
	struct buf	b = BUF_INIT;

	buf_adds(&b, "sh -c ");
	buf_add_shquote(&b, script);
	buf_adds(&b, " provision-lock ");
	buf_add_shquote(&b, arg1);
	buf_addch(&b, ' ');
	buf_add_shquote(&b, arg2);
	buf_addch(&b, ' ');
	buf_add_shquote(&b, node);
	return buf_detach(&b, NULL);
}

/*
 * The command that runs a step: the secret (if any) is read first from
 * stdin into a private directory, then the script, then the script runs
 * with stdin closed.  Nothing of either is on the command line.
 */
static char *
apply_step_cmd(const char *secret, size_t secret_len)
{
	struct buf	b = BUF_INIT;

	buf_adds(&b, "umask 077; d=$(mktemp -d /tmp/provision.XXXXXX) || exit 1; "
	    "trap 'rm -rf \"$d\"' HUP INT TERM; mkdir \"$d/s\"; ");
	if (secret != NULL)
		buf_addf(&b, "dd bs=1 count=%zu of=\"$d/s/%s\" 2>/dev/null; ",
		    secret_len, secret);
	buf_adds(&b, "cat > \"$d/step.sh\"; PROV_SECRET_DIR=\"$d/s\" "
	    "sh \"$d/step.sh\" </dev/null; rc=$?; rm -rf \"$d\"; exit $rc");
	return buf_detach(&b, NULL);
}

static void
apply_job_reset(struct apply_node *an)
{
	buf_release_secret(&an->in);
	free(an->cmd);
	an->cmd = NULL;
	an->job = (struct ssh_job)SSH_JOB_INIT;
	an->kind = AJ_NONE;
	an->step = NULL;
}

static const struct ssh_job *
apply_job_start(struct apply_ctx *c, struct apply_node *an,
    enum apply_job_kind kind)
{
	an->kind = kind;
	an->t0 = apply_now();
	an->job.command = an->cmd;
	an->job.stdin_data = an->in.buf;
	an->job.stdin_len = an->in.len;
	an->job.label = an->step != NULL ? an->step->name : "provision";
	return &an->job;
}

static const struct ssh_job *
apply_next_step(struct apply_ctx *c, struct apply_node *an)
{
	struct prov_err		 err = PROV_ERR_INIT;
	struct apply_event	 ev;
	const struct apply_step	*s;
	int			 hf_secret;

	s = an->queue[an->cursor++];
	an->step = s;
	hf_secret = s->secret != NULL && c->hf == s && an->pn != render_head(c->p);
	if (hf_secret && !c->have_secret) {
		char	*m = xasprintf("'%s' from the head is not available "
		    "(the head's step did not succeed)", s->secret);

		state_set(c->st, an->pn->name, s->name, STATE_FAILED, m, 0);
		memset(&ev, 0, sizeof ev);
		ev.kind = APPLY_EV_DONE;
		ev.node = an->pn->name;
		ev.step = s->name;
		ev.res = STATE_FAILED;
		ev.msg = m;
		an->stepno++;
		ev.stepno = an->stepno;
		ev.nsteps = an->nsteps;
		apply_emit(c, &ev);
		free(m);
		an->dead = 1;
		c->sum->failed++;
		c->nfailed++;
		return NULL;
	}
	if (hf_secret) {
		buf_add(&an->in, c->secret.buf, c->secret.len);
		an->cmd = apply_step_cmd(s->secret, c->secret.len);
	} else
		an->cmd = apply_step_cmd(NULL, 0);
	if (render_step(&an->in, &c->rin, an->pi, s->name, &err) != 0) {
		apply_note(c, an->pn->name, "%s", err.msg);
		prov_err_release(&err);
		an->dead = 1;
		return NULL;
	}
	memset(&ev, 0, sizeof ev);
	ev.kind = APPLY_EV_START;
	ev.node = an->pn->name;
	ev.step = s->name;
	ev.index = (size_t)(an - c->nodes);
	ev.stepno = an->stepno;
	ev.nsteps = an->nsteps;
	apply_emit(c, &ev);
	apply_log(an, "\n=== step %s (%s)\n", s->name, c->o->run_id);
	return apply_job_start(c, an, AJ_STEP);
}

static const struct ssh_job *
apply_next(void *arg, size_t host)
{
	struct apply_ctx	*c = arg;
	struct apply_node	*an = &c->nodes[host];

	apply_job_reset(an);
	if (c->o->interrupted != NULL && *c->o->interrupted)
		c->stop = 1;
	/*
	 * A node whose step failed still has its session: its lock goes.
	 * One whose session was lost, or whose step hung (it may still run
	 * there), keeps it; the next apply from here takes it over as stale.
	 */
	if (c->wave == AJ_UNLOCK) {
		if (!an->locked || an->conn_lost)
			return NULL;
		an->locked = 0;
		an->cmd = apply_script_cmd(apply_unlock_sh, "release", c->owner,
		    an->pn->name);
		return apply_job_start(c, an, AJ_UNLOCK);
	}
	if (an->dead || c->stop)
		return NULL;
	switch (c->wave) {
	case AJ_LOCK:
		if (!an->wave_job)
			return NULL;
		an->wave_job = 0;
		an->cmd = apply_script_cmd(apply_lock_sh, an->force_lock ?
		    "force" : "take", c->owner, an->pn->name);
		return apply_job_start(c, an, an->force_lock ? AJ_LOCK_FORCE :
		    AJ_LOCK);
	case AJ_FACTS:
		if (!an->wave_job)
			return NULL;
		an->wave_job = 0;
		an->cmd = xstrdup("sh -s");
		buf_adds(&an->in, facts_script());
		return apply_job_start(c, an, AJ_FACTS);
	case AJ_FETCH:
		if (!an->wave_job)
			return NULL;
		an->wave_job = 0;
		an->cmd = xasprintf("cat /etc/provision/out/%s", c->hf->secret);
		return apply_job_start(c, an, AJ_FETCH);
	default:
		break;
	}
	while (an->cursor < an->nqueue) {
		const struct ssh_job	*j = apply_next_step(c, an);

		if (j != NULL || an->dead)
			return j;
	}
	return NULL;
}

static enum state_res
apply_result_of(const struct ssh_result *r)
{
	switch (r->status) {
	case SSH_OK:
		return STATE_OK;
	case SSH_FAILED:
		return r->exit_code == APPLY_EXIT_CHANGED ? STATE_CHANGED :
		    r->exit_code == APPLY_EXIT_SKIPPED ? STATE_SKIPPED :
		    STATE_FAILED;
	case SSH_UNREACHABLE:
	case SSH_TIMEOUT:
		return r->exit_code < 0 && r->out_total == 0 ?
		    STATE_UNREACHABLE : STATE_FAILED;
	default:
		return STATE_FAILED;
	}
}

/* The last non-empty line of a buffer, for a one-line reason. */
static char *
apply_last_line(const struct buf *b)
{
	const char	*end = b->buf + b->len, *s;

	while (end > b->buf && (end[-1] == '\n' || end[-1] == ' ' ||
	    end[-1] == '\r'))
		end--;
	s = end;
	while (s > b->buf && s[-1] != '\n')
		s--;
	return s < end ? xstrndup(s, (size_t)(end - s)) : NULL;
}

static void
apply_fail_node(struct apply_ctx *c, struct apply_node *an, enum state_res res)
{
	an->dead = 1;
	c->nfailed++;
	if (c->o->max_fail >= 0 && c->nfailed > (size_t)c->o->max_fail &&
	    !c->stop) {
		c->stop = 1;
		c->sum->stopped_max_fail = 1;
		apply_note(c, NULL, "%zu node%s failed, more than --max-fail "
		    "%ld: stopping", c->nfailed, c->nfailed == 1 ? "" : "s",
		    c->o->max_fail);
	}
	(void)res;
}

/*
 * The lock or facts row of a node is written only when that part failed;
 * once it succeeds again, an old failure there would be a lie: say ok.
 */
static void
apply_clear_row(struct apply_ctx *c, struct apply_node *an, const char *row,
    double el)
{
	if (an->selected && state_get(c->st, an->pn->name, row) !=
	    STATE_PENDING)
		state_set(c->st, an->pn->name, row, STATE_OK, NULL, el);
}

/* Parse "run=... host=... pid=... since=..." of a foreign lock. */
static int
apply_lock_is_stale(struct apply_ctx *c, const char *owner)
{
	const char	*h = strstr(owner, "host="), *pp = strstr(owner, "pid=");
	char		 host[256];
	long		 pid;
	size_t		 len;

	if (h == NULL || pp == NULL)
		return 0;
	h += 5;
	len = strcspn(h, " \n");
	if (len >= sizeof host)
		return 0;
	memcpy(host, h, len);
	host[len] = '\0';
	if (strcmp(host, c->hostname) != 0)
		return 0;
	if (sscanf(pp + 4, "%ld", &pid) != 1 || pid <= 0)
		return 0;
	return kill((pid_t)pid, 0) != 0 && errno == ESRCH;
}

static void
apply_done(void *arg, size_t host, const struct ssh_job *job,
    struct ssh_result *r)
{
	struct apply_ctx	*c = arg;
	struct apply_node	*an = &c->nodes[host];
	struct apply_event	 ev;
	enum state_res		 res;
	char			*msg = NULL;
	double			 el = apply_now() - an->t0;

	if (r->status != SSH_OK && r->status != SSH_FAILED) {
		/*
		 * No exit status: the session failed or the command hung.
		 * Before any step ran, a node that is down and one that never
		 * answers (no banner, no key exchange) are both unreachable.
		 */
		int	pre = an->kind == AJ_LOCK || an->kind == AJ_LOCK_FORCE ||
		    an->kind == AJ_FACTS;

		an->conn_lost = 1;
		res = r->status == SSH_UNREACHABLE || (pre &&
		    r->status == SSH_TIMEOUT) ? STATE_UNREACHABLE :
		    STATE_FAILED;
		msg = xasprintf("%s: %s", ssh_status_name(r->status),
		    r->error != NULL ? r->error : "no detail");
		if (pre && an->selected) {
			state_set(c->st, an->pn->name, an->kind == AJ_FACTS ?
			    "facts" : "lock", res, msg, el);
			c->sum->nodes_unreachable += res == STATE_UNREACHABLE;
		}
		if (an->step != NULL)
			goto step_result;
		memset(&ev, 0, sizeof ev);
		ev.kind = APPLY_EV_DONE;
		ev.node = an->pn->name;
		ev.step = an->kind == AJ_FACTS ? "facts" : an->kind == AJ_FETCH ?
		    c->hf->secret : an->kind == AJ_UNLOCK ? "unlock" : "lock";
		ev.res = res;
		ev.msg = msg;
		ev.elapsed = el;
		apply_emit(c, &ev);
		if (an->kind != AJ_UNLOCK)
			apply_fail_node(c, an, res);
		apply_save(c, 1);
		free(msg);
		return;
	}
	switch (an->kind) {
	case AJ_LOCK:
	case AJ_LOCK_FORCE:
		if (r->status == SSH_OK) {
			an->locked = 1;
			apply_clear_row(c, an, "lock", el);
			return;
		}
		msg = apply_last_line(&r->out);
		if (r->exit_code == APPLY_EXIT_LOCKED && an->kind == AJ_LOCK &&
		    (c->o->break_lock || apply_lock_is_stale(c, msg != NULL ?
		    msg : ""))) {
			apply_note(c, an->pn->name, "%s lock (%s): taken over",
			    c->o->break_lock ? "breaking the" :
			    "stale: the apply that held it is gone;",
			    msg != NULL ? msg : "unknown owner");
			an->force_lock = 1;
			an->wave_job = 1;
			free(msg);
			return;
		}
		{
			char	*m = xasprintf("locked by another apply (%s): "
			    "wait for it, or if it died on another machine "
			    "run with --break-lock", msg != NULL ? msg :
			    "unknown owner");

			state_set(c->st, an->pn->name, "lock", STATE_FAILED, m,
			    el);
			memset(&ev, 0, sizeof ev);
			ev.kind = APPLY_EV_DONE;
			ev.node = an->pn->name;
			ev.step = "lock";
			ev.res = STATE_FAILED;
			ev.msg = m;
			apply_emit(c, &ev);
			free(m);
		}
		apply_fail_node(c, an, STATE_FAILED);
		free(msg);
		return;
	case AJ_UNLOCK:
		return;
	case AJ_FETCH:
		/* A secret: into memory only, never logged or shown. */
		if (r->status == SSH_OK && r->out.len > 0 && !r->out.truncated) {
			buf_release_secret(&c->secret);
			buf_add(&c->secret, r->out.buf, r->out.len);
			c->have_secret = 1;
		} else
			apply_note(c, an->pn->name, "cannot read '%s' from the "
			    "head: exit %d", c->hf->secret, r->exit_code);
		buf_release_secret(&r->out);
		return;
	case AJ_FACTS: {
		struct facts	*f = facts_new();
		struct prov_err	 err = PROV_ERR_INIT;

		if (r->status != SSH_OK ||
		    facts_parse_script(f, r->out.buf, &err) != 0) {
			msg = xasprintf("facts: %s", err.msg != NULL ? err.msg :
			    "the facts script failed");
			state_set(c->st, an->pn->name, "facts", STATE_FAILED, msg,
			    el);
			apply_note(c, an->pn->name, "%s", msg);
			apply_fail_node(c, an, STATE_FAILED);
		} else {
			struct render_hostinfo	*hi = &c->info[an->pi];

			apply_clear_row(c, an, "facts", el);
			facts_finish(f, c->p->catalog);
			hi->have = 1;
			hi->cpus = f->cpu_threads > 0 ? f->cpu_threads : 1;
			hi->mem_mb = (long)(f->mem_kb / 1024);
			hi->gpus = (long)f->ngpus;
			if (c->o->run_dir != NULL) {
				struct buf	 j = BUF_INIT;
				char		*path = xasprintf("%s/facts/%s.json",
				    c->o->run_dir, an->pn->name);

				facts_to_json(&j, f);
				if (buf_write_file_atomic(path, j.buf, j.len,
				    0644) != 0)
					apply_note(c, an->pn->name, "cannot "
					    "write %s: %s", path, strerror(errno));
				free(path);
				buf_release(&j);
			}
		}
		prov_err_release(&err);
		facts_free(f);
		free(msg);
		return;
	}
	default:
		break;
	}
	res = apply_result_of(r);
	if (res == STATE_SKIPPED) {
		char	*l = apply_last_line(&r->out);

		if (l != NULL && str_starts(l, "skipped: "))
			msg = xstrdup(l + 9);
		else
			msg = l, l = NULL;
		free(l);
	} else if (res == STATE_FAILED) {
		char	*l = apply_last_line(&r->err);

		msg = xasprintf("exit %d%s%s", r->exit_code, l != NULL ? ": " :
		    "", l != NULL ? l : "");
		free(l);
	}
step_result:
	apply_log(an, "=== %s: %s%s%s (%.1f s)\n", an->step->name,
	    state_res_name(res), msg != NULL ? ": " : "", msg != NULL ? msg : "",
	    el);
	state_set(c->st, an->pn->name, an->step->name, res, msg, el);
	an->stepno++;
	memset(&ev, 0, sizeof ev);
	ev.kind = APPLY_EV_DONE;
	ev.node = an->pn->name;
	ev.step = an->step->name;
	ev.res = res;
	ev.msg = msg;
	ev.elapsed = el;
	ev.index = host;
	ev.stepno = an->stepno;
	ev.nsteps = an->nsteps;
	apply_emit(c, &ev);
	switch (res) {
	case STATE_OK:
		c->sum->ok++;
		break;
	case STATE_CHANGED:
		c->sum->changed++;
		break;
	case STATE_SKIPPED:
		c->sum->skipped++;
		break;
	default:
		c->sum->failed++;
		apply_fail_node(c, an, res);
		break;
	}
	apply_save(c, res == STATE_FAILED || res == STATE_UNREACHABLE);
	free(msg);
}

static void
apply_output(void *arg, size_t host, int stream, const char *data, size_t len)
{
	struct apply_ctx	*c = arg;
	struct apply_node	*an = &c->nodes[host];
	struct apply_event	 ev;

	/* Only step output: never facts noise, never a secret read. */
	if (an->kind != AJ_STEP)
		return;
	if (an->log != NULL && len > 0) {
		fwrite(data, 1, len, an->log);
		an->log_midline = data[len - 1] != '\n';
	}
	memset(&ev, 0, sizeof ev);
	ev.kind = APPLY_EV_OUTPUT;
	ev.node = an->pn->name;
	ev.step = an->step != NULL ? an->step->name : NULL;
	ev.data = data;
	ev.len = len;
	ev.index = host;
	apply_emit(c, &ev);
	(void)stream;
}

static int
apply_wave(struct apply_ctx *c, struct ssh_pool *pool,
    enum apply_job_kind wave, struct prov_err *err)
{
	struct ssh_handler	h = { apply_next, apply_done, apply_output, c };

	c->wave = wave;
	if (ssh_pool_run(pool, &h, err) != 0)
		return -1;
	apply_save(c, 1);
	return 0;
}

/* Queue, for every live selected node, the steps from..to (head-first rules). */
static size_t
apply_fill(struct apply_ctx *c, size_t from, size_t to, int head_only,
    int skip_head_hf)
{
	const struct plan_node	*head = render_head(c->p);
	size_t			 i, s, total = 0;

	for (i = 0; i < c->n; i++) {
		struct apply_node	*an = &c->nodes[i];

		an->nqueue = an->cursor = 0;
		if (an->dead || !an->selected)
			continue;
		if (head_only && an->pn != head)
			continue;
		for (s = from; s < to; s++) {
			const struct apply_step	*st = &apply_steps[s];

			if (!st->wanted(c->p, an->pn))
				continue;
			if (c->o->only_step != NULL &&
			    strcmp(c->o->only_step, st->name) != 0)
				continue;
			if (skip_head_hf && s == from && an->pn == head &&
			    (st->flags & APPLY_HEAD_FIRST))
				continue;
			if (c->o->resume && state_res_done(state_get(c->st,
			    an->pn->name, st->name))) {
				an->stepno++;
				continue;
			}
			an->queue[an->nqueue++] = st;
			total++;
		}
	}
	return total;
}

static int
apply_mkdirs(const char *dir, struct prov_err *err)
{
	char	*p = xstrdup(dir), *q;
	int	 r = 0;

	for (q = p + 1; ; q++) {
		if (*q == '/' || *q == '\0') {
			char	save = *q;

			*q = '\0';
			if (mkdir(p, 0755) != 0 && errno != EEXIST) {
				r = prov_err_sys(err, "cannot create '%s'", p);
				break;
			}
			*q = save;
			if (save == '\0')
				break;
		}
	}
	free(p);
	return r;
}

static int
apply_dry_run(const struct plan *p, const struct apply_opts *o,
    struct plan_node **sel, size_t nsel, struct prov_err *err)
{
	struct render_in	 rin;
	const struct apply_step	*steps[APPLY_MAX_STEPS];
	size_t			 i, k, ns;
	int			 r = 0;

	memset(&rin, 0, sizeof rin);
	rin.plan = p;
	rin.templates = o->templates;
	rin.apt_repo = o->apt_repo;
	for (i = 0; i < nsel && r == 0; i++) {
		char	*dir = xasprintf("%s/%s", o->dry_run_dir, sel[i]->name);

		if (apply_mkdirs(dir, err) != 0)
			r = -1;
		ns = apply_steps_for(p, sel[i], steps, APPLY_MAX_STEPS);
		for (k = 0; k < ns && r == 0; k++) {
			struct buf	 b = BUF_INIT;
			char		*path = xasprintf("%s/%02zu-%s.sh", dir, k + 1,
			    steps[k]->name);

			if (render_step(&b, &rin, (size_t)(sel[i] - p->nodes),
			    steps[k]->name, err) != 0 ||
			    buf_write_file_atomic(path, b.buf, b.len, 0755) != 0) {
				if (err->msg == NULL)
					prov_err_sys(err, "cannot write '%s'",
					    path);
				r = -1;
			}
			free(path);
			buf_release(&b);
		}
		free(dir);
	}
	return r;
}

int
apply_run(struct apply_summary *sum, const struct plan *p,
    const struct apply_opts *o, struct prov_err *err)
{
	struct apply_ctx	 c;
	struct ssh_config	 cfg = SSH_CONFIG_INIT;
	struct ssh_host		*hosts = NULL;
	struct ssh_pool		*pool = NULL;
	struct plan_node	**sel = NULL;
	const struct plan_node	*head = render_head(p);
	size_t			 nsel = 0, i, s, seg, nhosts = 0;
	int			 head_in = 0, r = -1;
	char			*dir = NULL;

	memset(sum, 0, sizeof *sum);
	memset(&c, 0, sizeof c);
	c.secret = (struct buf)BUF_INIT;
	if (o->nodes != NULL) {
		if (plan_select(&sel, &nsel, p, o->nodes, err) != 0)
			return -1;
	} else {
		sel = xcalloc(p->nnodes + 1, sizeof *sel);
		for (i = 0; i < p->nnodes; i++)
			sel[nsel++] = &p->nodes[i];
	}
	if (nsel == 0) {
		prov_err_set(err, PROV_E_USAGE, "no nodes selected");
		goto out;
	}
	if (o->dry_run_dir != NULL) {
		r = apply_dry_run(p, o, sel, nsel, err);
		sum->nodes = nsel;
		goto out;
	}
	if (state_open(&c.st, o->state_path, err) != 0)
		goto out;
	free(c.st->run_id);
	c.st->run_id = xstrdup(o->run_id);
	free(c.st->status);
	c.st->status = xstrdup("running");
	if (o->run_dir != NULL) {
		dir = xasprintf("%s/logs", o->run_dir);
		if (apply_mkdirs(dir, err) != 0)
			goto out;
		free(dir);
		dir = xasprintf("%s/facts", o->run_dir);
		if (apply_mkdirs(dir, err) != 0)
			goto out;
	}
	c.p = p;
	c.o = o;
	c.sum = sum;
	c.info = xcalloc(p->nnodes + 1, sizeof *c.info);
	c.rin.plan = p;
	c.rin.templates = o->templates;
	c.rin.info = c.info;
	c.rin.apt_repo = o->apt_repo;
	if (gethostname(c.hostname, sizeof c.hostname) != 0)
		snprintf(c.hostname, sizeof c.hostname, "unknown");
	c.hostname[sizeof c.hostname - 1] = '\0';
	snprintf(c.owner, sizeof c.owner, "run=%s host=%s pid=%ld since=%lld",
	    o->run_id, c.hostname, (long)getpid(), (long long)time(NULL));

	/* The head joins the pool when workers need its values. */
	for (i = 0; i < nsel; i++)
		if (sel[i] == head)
			head_in = 1;
	c.n = nsel + (!head_in && head != NULL);
	c.nodes = xcalloc(c.n + 1, sizeof *c.nodes);
	hosts = xcalloc(c.n + 1, sizeof *hosts);
	for (i = 0; i < c.n; i++) {
		struct apply_node	*an = &c.nodes[i];
		const struct apply_step	*steps[APPLY_MAX_STEPS];

		an->pn = i < nsel ? sel[i] : head;
		an->pi = (size_t)(an->pn - p->nodes);
		an->selected = i < nsel;
		an->in = (struct buf)BUF_INIT;
		an->job = (struct ssh_job)SSH_JOB_INIT;
		an->nsteps = apply_steps_for(p, an->pn, steps, APPLY_MAX_STEPS);
		hosts[nhosts].name = an->pn->name;
		hosts[nhosts].addr = an->pn->address;
		nhosts++;
		if (o->run_dir != NULL && an->selected) {
			char	*path = xasprintf("%s/logs/%s.log", o->run_dir,
			    an->pn->name);

			an->log = fopen(path, "a");
			free(path);
		}
	}
	sum->nodes = nsel;
	ssh_config_from_plan(&cfg, &p->ssh);
	if (o->forks > 0)
		cfg.forks = o->forks;
	cfg.passphrase = o->passphrase;
	cfg.keep_open = 1;
	if (ssh_pool_new(&pool, &cfg, hosts, nhosts, err) != 0)
		goto out;

	for (i = 0; i < c.n; i++)
		c.nodes[i].wave_job = 1;
	if (apply_wave(&c, pool, AJ_LOCK, err) != 0)
		goto out;
	for (i = 0; i < c.n; i++)
		c.nodes[i].wave_job = !c.nodes[i].dead;
	if (apply_wave(&c, pool, AJ_FACTS, err) != 0)
		goto out;

	/* Segments of steps between head-first steps. */
	seg = 0;
	for (s = 0; ; s++) {
		const struct apply_step	*st = &apply_steps[s];

		if (st->name != NULL && !(st->flags & APPLY_HEAD_FIRST))
			continue;
		/* steps [seg, s) run as one wave, nodes independently */
		if (s > seg && apply_fill(&c, seg, s, 0, seg > 0 &&
		    (apply_steps[seg].flags & APPLY_HEAD_FIRST)) > 0 &&
		    apply_wave(&c, pool, AJ_STEP, err) != 0)
			goto out;
		if (st->name == NULL || c.stop)
			break;
		/* the head-first step on the head, then fetch its value */
		c.hf = st;
		c.have_secret = 0;
		buf_release_secret(&c.secret);
		if (apply_fill(&c, s, s + 1, 1, 0) > 0 &&
		    apply_wave(&c, pool, AJ_STEP, err) != 0)
			goto out;
		if (st->secret != NULL && head != NULL && st->wanted(p, head)) {
			for (i = 0; i < c.n; i++)
				c.nodes[i].wave_job = c.nodes[i].pn == head &&
				    !c.nodes[i].dead;
			if (apply_wave(&c, pool, AJ_FETCH, err) != 0)
				goto out;
		}
		seg = s;
	}
	c.stop = 0;
	if (apply_wave(&c, pool, AJ_UNLOCK, err) != 0)
		goto out;
	for (i = 0; i < c.n; i++) {
		struct apply_node	*an = &c.nodes[i];

		if (!an->selected)
			continue;
		if (an->dead)
			sum->nodes_failed++;
		else
			sum->nodes_ok++;
	}
	sum->interrupted = o->interrupted != NULL && *o->interrupted;
	free(c.st->status);
	c.st->status = xstrdup(sum->interrupted ? "interrupted" :
	    sum->stopped_max_fail ? "stopped" : sum->nodes_failed ? "failed" :
	    "done");
	if (state_save(c.st, err) != 0)
		goto out;
	r = 0;
out:
	if (pool != NULL) {
		ssh_pool_close(pool);
		ssh_pool_free(pool);
	}
	for (i = 0; i < c.n; i++) {
		apply_job_reset(&c.nodes[i]);
		if (c.nodes[i].log != NULL)
			fclose(c.nodes[i].log);
	}
	buf_release_secret(&c.secret);
	prov_err_release(&c.save_err);
	free(c.nodes);
	free(c.info);
	free(hosts);
	free(sel);
	free(dir);
	state_free(c.st);
	return r;
}

/*
 * apply.c: the apply engine.  See apply.h for the shape of a run.
 *
 * The run is a list of waves; each wave is one ssh_pool_run() and so a
 * barrier.  Within a wave every node works through its own queue of steps
 * as fast as it can, in one shell fed part by part (apply_chunk): barriers
 * sit only before a head-first step, where the other nodes need what the
 * head made.  Each part ends with a marker on both streams, which splits
 * the output back into parts (apply_stream_in) and says the exit status.
 */
#include "compat.h"

#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>

#include <openssl/evp.h>

#include "apply.h"
#include "buf.h"
#include "facts.h"
#include "fs.h"
#include "hostlist.h"
#include "plan.h"
#include "proc.h"
#include "reboot.h"
#include "redact.h"
#include "redfish.h"
#include "render.h"
#include "ssh.h"
#include "state.h"
#include "str.h"
#include "strvec.h"

#define APPLY_MAX_STEPS		24
#define APPLY_EXIT_CHANGED	100
#define APPLY_EXIT_SKIPPED	101
#define APPLY_EXIT_LOCKED	75
#define APPLY_EXIT_LOCKDIR	76	/* the lock's folder is not root's */
#define APPLY_LOCK_DIR		"/run/provision"
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
apply_want_users(const struct plan *p, const struct plan_node *n)
{
	return p->users_src != NULL || p->ngroups > 0;
}

/* Accounting and the teams' accounts live on the head alone. */
static int
apply_want_accounting(const struct plan *p, const struct plan_node *n)
{
	return apply_want_slurm(p, n) && plan_accounting(p) &&
	    n == render_head(p);
}

/*
 * slurmdbd also runs on a Slurm head whose plan has no scheduling: (and
 * logging and directory on every node whose plan has no logging: or
 * directory:), to remove what an earlier plan's left; with nothing left
 * it says skipped.
 */
static int
apply_want_slurmdbd(const struct plan *p, const struct plan_node *n)
{
	return apply_want_slurm(p, n) && n == render_head(p);
}

/* Every node, once the plan has a storage: section (an empty one cleans up). */
static int
apply_want_storage(const struct plan *p, const struct plan_node *n)
{
	return p->storage_src != NULL;
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

/* "kubeadm join HOST:6443 --token T --discovery-token-ca-cert-hash H" */
static const char *const apply_join_secrets[] = { "--token",
    "--certificate-key", NULL };

static int
apply_want_relay(const struct plan *p, const struct plan_node *n)
{
	return render_relay(p) != NULL;
}

/*
 * The package relay comes first: every node's packages, from base on, go
 * through it (templates/relay.sh).  Storage comes before users and Slurm:
 * homes are made on the shared /home and Slurm's state folder on its
 * export; the node serving the exports runs it before its clients mount.
 */
const struct apply_step apply_steps[] = {
	{ "relay", APPLY_HEAD_FIRST | APPLY_RELAY_FIRST, NULL, apply_want_relay,
	  NULL },
	{ "base", 0, NULL, apply_want_always, NULL },
	{ "gpu-driver", 0, NULL, apply_want_driver, NULL },
	{ "container-runtime", 0, NULL, apply_want_runtime, NULL },
	{ "storage", APPLY_HEAD_FIRST | APPLY_STORAGE_FIRST, NULL,
	  apply_want_storage, NULL },
	{ "users", 0, NULL, apply_want_users, NULL },
	{ "directory", APPLY_PLAN_SECRET, "ldap_bind_password",
	  apply_want_always, NULL },
	{ "logging", 0, NULL, apply_want_always, NULL },
	{ "munge", APPLY_HEAD_FIRST, "munge.key", apply_want_slurm, NULL },
	{ "slurmdbd", 0, NULL, apply_want_slurmdbd, NULL },
	{ "slurm", APPLY_HEAD_FIRST | APPLY_NEEDS_FACTS, NULL, apply_want_slurm,
	  NULL },
	{ "slurm-accounts", 0, NULL, apply_want_accounting, NULL },
	{ "kubernetes", APPLY_HEAD_FIRST, "join", apply_want_k8s,
	  apply_join_secrets },
	{ "node-exporter", 0, NULL, apply_want_node_exporter, NULL },
	{ "dcgm-exporter", 0, NULL, apply_want_dcgm, NULL },
	{ "prometheus", 0, NULL, apply_want_prometheus, NULL },
	{ "grafana", 0, NULL, apply_want_grafana, NULL },
	{ "extras", 0, NULL, apply_want_extras, NULL },
	{ NULL, 0, NULL, NULL, NULL }
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

/*
 * The package relay is apt-cacher-ng: an RPM distribution's plan with one
 * is refused before any node is touched.  (Not at plan load: check, pxe
 * and the rest have no use for the relay.)
 */
static int
apply_relay_check(const struct plan *p, struct prov_err *err)
{
	const char	*d = p->sw.os_distro;
	struct prov_loc	 loc;

	if (render_relay(p) == NULL || d == NULL || strcmp(d, "debian") == 0 ||
	    strcmp(d, "ubuntu") == 0)
		return 0;
	loc = plan_loc(p, p->sw.relay.src, NULL);
	return prov_err_setloc(err, PROV_E_USAGE, &loc, "leave 'relay' out: "
	    "the nodes then download their packages themselves", "the package "
	    "relay is apt-cacher-ng, for Debian and Ubuntu; the plan's OS is "
	    "%s", d);
}

/*
 * The directory step is sssd with Debian's pam-auth-update and maintainer
 * scripts: an RPM distribution's plan with a directory: is refused before
 * any node is touched (not at plan load, as for the relay).
 */
static int
apply_directory_check(const struct plan *p, struct prov_err *err)
{
	const char	*d = p->sw.os_distro;
	struct prov_loc	 loc;

	if (p->directory.src == NULL || d == NULL || strcmp(d, "debian") == 0 ||
	    strcmp(d, "ubuntu") == 0)
		return 0;
	loc = plan_loc(p, p->directory.src, NULL);
	return prov_err_setloc(err, PROV_E_USAGE, &loc, "set the nodes' PAM "
	    "and NSS up with the distribution's own tools (authselect), and "
	    "leave 'directory' out", "the directory step is for Debian and "
	    "Ubuntu (pam-auth-update); the plan's OS is %s", d);
}

/* The node a head-first step runs on before the others. */
static const struct plan_node *
apply_first(const struct plan *p, const struct apply_step *st)
{
	const struct plan_node	*srv;

	if (st->flags & APPLY_RELAY_FIRST)
		return render_relay(p);
	if ((st->flags & APPLY_STORAGE_FIRST) &&
	    (srv = plan_storage_server(p)) != NULL)
		return srv;
	return render_head(p);
}

enum apply_job_kind {
	AJ_NONE = 0,
	AJ_RUN,		/* the node's shell: lock, facts, steps, unlock */
	AJ_FETCH,	/* read the head's value for a head-first step */
};

enum apply_sec_kind {
	SEC_LOCK,
	SEC_FACTS,
	SEC_STEP,
	SEC_UNLOCK,
};

/* One part of a node's job, ended by a marker on stdout and on stderr. */
struct apply_sec {
	enum apply_sec_kind	 kind;
	const struct apply_step	*step;
	struct buf		 out, err;	/* its output (a step's: the tail) */
	int			 rc;
	int			 ended[2];	/* marker seen on stdout, stderr */
	double			 t0;
};

/* A stream of the job's output, cut into sections at the markers. */
struct apply_stream {
	struct buf	pend;		/* bytes that may begin a marker */
	struct buf	line;		/* a section's bytes up to a whole
					   line: redacted only then */
	size_t		sec;		/* the section its bytes belong to */
};

enum apply_phase {
	PH_START,	/* nothing sent yet */
	PH_STEPS,	/* steps are fed one at a time */
	PH_END,		/* everything sent */
};

#define APPLY_MAX_SECS	(APPLY_MAX_STEPS + 3)
#define APPLY_SEC_KEEP	(64 * 1024)	/* bytes of a step's output kept */
#define APPLY_MARK	"\n\036provision "	/* then "end K RC" or
						   "secret HEX" */
#define APPLY_LINE_MAX	(16 * 1024)	/* a longer line is cut */

struct apply_node {
	size_t			 pi;		/* index in plan->nodes */
	const struct plan_node	*pn;
	int			 selected;	/* steps run here (else: head helper) */
	int			 dead;		/* failed or unreachable: no more jobs */
	int			 conn_lost;	/* a job ended without its command's
						   exit: session gone or step hung */
	int			 locked;
	int			 force_lock;
	int			 retry;		/* the lock was stale: again, forced */
	int			 have_facts;
	const struct apply_step	*last;		/* the last step this run runs here */
	/* this wave's queue */
	const struct apply_step	*queue[APPLY_MAX_STEPS];
	size_t			 nqueue, cursor;
	int			 ran;		/* had its job in this wave */
	int			 wave_job;	/* fetch pending */
	/* the job in flight */
	enum apply_job_kind	 kind;
	enum apply_phase	 ph;
	struct apply_sec	 sec[APPLY_MAX_SECS];
	size_t			 nsec, nsec_done;
	struct apply_stream	 strm[2];
	struct ssh_job		 job;
	struct buf		 in;		/* the job's first stdin */
	int			 lib_sent;	/* this job's shell has pv_lib, pv_vars */
	char			*cmd;
	size_t			 nsteps, stepno;
	FILE			*log;
	int			 log_midline;	/* step output ended without \n */
	/* a step said the node must reboot (reboot.h) */
	int			 reboot_due;
	char			*reboot_why;
	const struct apply_step	*reboot_step;	/* the step that said so */
	size_t			 reboot_from;	/* its place in the queue */
	const struct apply_step	*rebooted_for;	/* must not ask again */
	int			 held;		/* --no-reboot stopped it */
	int			 requeued;	/* back: the rest of its wave */
	/*
	 * --resume with a reboot owed: every step runs again.  Read once,
	 * at the run's start: the reboot this run makes settles the state's
	 * row, and the steps after it must still run (t020's slurm did not).
	 */
	int			 owed_known, owed;
};

struct apply_ctx {
	const struct plan		*p;
	const struct apply_opts		*o;
	struct state			*st;
	struct apply_summary		*sum;
	struct apply_node		*nodes;
	size_t				 n;
	struct ssh_pool			*pool;
	struct ssh_config		 cfg;
	struct ssh_host			*hosts;
	size_t				 nhosts;
	struct buf			 reboot_script;	/* templates/reboot.sh */
	struct render_hostinfo		*info;	/* per plan node */
	struct render_in		 rin;
	enum apply_job_kind		 wave;	/* AJ_RUN or AJ_FETCH */
	int				 first;	/* the wave that locks every node */
	int				 unlock_only; /* the last: stray locks */
	int				 need_facts; /* a step renders from them */
	const struct apply_step		*hf;	/* head-first step of this wave */
	int				 hf_failed; /* on the relay node */
	struct buf			 secret;	/* the head's value for hf */
	struct buf			 plan_secret;	/* the directory's bind
							   password, or empty */
	struct redact			 red;	/* secrets out of all output */
	struct buf			 lib_def;	/* "pv_lib() { lib.sh }" */
	int				 have_secret;
	size_t				 nfailed;
	int				 stop;
	int				 save_failed;
	double				 last_save;
	char				 owner[640];
	char				 hostname[256];
	struct prov_err			 save_err;
};

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
	msg = xvasprintf(fmt, ap);
	va_end(ap);
	memset(&ev, 0, sizeof ev);
	ev.kind = APPLY_EV_NOTE;
	ev.node = node;
	ev.msg = msg;
	apply_emit(c, &ev);
	free(msg);
}

static void
apply_save(struct apply_ctx *c, int force)
{
	double	now = proc_now();

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

/* A node's log: 0600, appended to, never through a link. */
static FILE *
apply_log_open(const char *path)
{
	FILE	*fp;
	int	 fd;

	fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_NOFOLLOW | O_CLOEXEC,
	    0600);
	if (fd < 0)
		return NULL;
	if ((fp = fdopen(fd, "a")) == NULL)
		close(fd);
	return fp;
}

static int
apply_same(const char *a, const char *b)
{
	return a == b || (a != NULL && b != NULL && strcmp(a, b) == 0);
}

/*
 * Secrets of the plan a node could echo: the BMC passwords (a node never
 * gets them, but a step might read one from a BMC's own configuration).
 * One that cannot be read is no secret this run holds.
 */
static void
apply_known_secrets(struct apply_ctx *c)
{
	struct prov_err		 err = PROV_ERR_INIT;
	const struct plan_bmc	*b, *last = NULL;
	char			*pw;
	size_t			 i;

	for (i = 0; i < c->p->nnodes; i++) {
		if ((b = c->p->nodes[i].bmc) == NULL)
			continue;
		/* nodes of one range share their source: read it once */
		if (last != NULL && apply_same(b->password_env,
		    last->password_env) && apply_same(b->password_file,
		    last->password_file))
			continue;
		last = b;
		if (redfish_password_load(&pw, b, &err) == 0) {
			redact_add(&c->red, pw, strlen(pw));
			freezero_str(pw);
		}
		prov_err_release(&err);
	}
}

/*
 * The directory's bind password (directory.ldap.bind_password_file): its
 * first line, refused when anyone may read the file, or when sssd.conf
 * could not hold it as it is.  Kept in memory for the directory step
 * alone, and hidden from every output.
 */
static int
apply_plan_secret(struct apply_ctx *c, struct prov_err *err)
{
	const struct plan_ldap	*l = &c->p->directory.ldap;
	const char		*f = l->bind_password_file;
	struct prov_loc		 loc;
	struct buf		 b = BUF_INIT;
	struct stat		 st;
	size_t			 n, i;
	int			 r = -1;

	if (c->p->directory.src == NULL || f == NULL)
		return 0;
	loc = plan_loc(c->p, yml_map_get(c->p->directory.src, "ldap"),
	    "bind_password_file");
	if (stat(f, &st) != 0 || buf_read_file(&b, f) != 0) {
		prov_err_sys(err, "bind_password_file '%s'", f);
		err->loc = loc;
		goto out;
	}
	if (st.st_mode & S_IROTH) {
		prov_err_setloc(err, PROV_E_PLAN, &loc, "chmod o-r the file",
		    "bind_password_file '%s' can be read by anyone", f);
		goto out;
	}
	n = strcspn(b.buf, "\r\n");
	for (i = 0; i < n; i++)
		if ((unsigned char)b.buf[i] < 0x20 || b.buf[i] == 0x7f)
			break;
	if (n == 0 || i < n || b.buf[0] == ' ' || b.buf[n - 1] == ' ') {
		prov_err_setloc(err, PROV_E_PLAN, &loc, "the password alone on "
		    "the first line: sssd.conf drops blanks at either end "
		    "and cannot hold control characters", "bind_password_file "
		    "'%s' has no usable first line", f);
		goto out;
	}
	buf_add(&c->plan_secret, b.buf, n);
	redact_add(&c->red, c->plan_secret.buf, c->plan_secret.len);
	r = 0;
out:
	buf_release_secret(&b);
	return r;
}

/* Is `line` a whole line of text? */
static int
apply_has_line(const char *text, size_t len, const char *line)
{
	size_t		 ll = strlen(line);
	const char	*p = text, *end = text + len, *nl;

	while (p < end) {
		nl = memchr(p, '\n', (size_t)(end - p));
		if (nl == NULL)
			nl = end;
		if ((size_t)(nl - p) == ll && memcmp(p, line, ll) == 0)
			return 1;
		p = nl + 1;
	}
	return 0;
}

/*
 * `<<'DELIM'`, TEXT and DELIM: a here-document whose delimiter is no line
 * of TEXT.  Plan values are quoted inside the scripts, but one holding a
 * newline and the delimiter would otherwise end the document early and
 * hand the rest to the node's shell.
 */
static void
apply_heredoc(struct buf *b, const char *text, size_t len)
{
	char		delim[40];
	unsigned	n = 0;

	do
		snprintf(delim, sizeof delim, "PROVISION_EOF_%u", n++);
	while (apply_has_line(text, len, delim));
	buf_addf(b, "<<'%s'\n", delim);
	buf_add(b, text, len);
	if (len > 0 && text[len - 1] != '\n')
		buf_addch(b, '\n');
	buf_addf(b, "%s\n", delim);
}

/*
 * The node's side of a job is one `sh -s` fed from here: the lock, facts,
 * then one step at a time (the next only once the last one's result is
 * in, so that a failure, --max-fail or ^C stops the node between steps),
 * then the unlock.  Each part ends with a marker on stdout and on stderr;
 * a step's script is a here-document its own `sh -s` reads, and it closes
 * its stdin first thing (prov_run_step), so nothing of what follows can
 * be eaten.  One session, one shell: what a re-apply costs a node is its
 * checks, not our plumbing.
 */
static void
apply_prelude(struct apply_ctx *c, struct apply_node *an, struct buf *b)
{
	buf_adds(b, "umask 077\npv_l=" APPLY_LOCK_DIR "/lock.");
	buf_add_shquote(b, an->pn->name);
	buf_adds(b, "\npv_d=\n"
	    "trap 'if [ -n \"$pv_d\" ]; then rm -rf \"$pv_d\"; fi' EXIT\n"
	    "trap 'exit 129' HUP\ntrap 'exit 130' INT\ntrap 'exit 143' TERM\n"
	    "pv_m() {\n"
	    "\tprintf '\\n\\036provision end %s\\n' \"$1\"\n"
	    "\tprintf '\\n\\036provision end %s\\n' \"$1\" >&2\n"
	    "}\n");
}

static struct apply_sec *
apply_sec_add(struct apply_node *an, enum apply_sec_kind kind,
    const struct apply_step *step)
{
	struct apply_sec	*s = &an->sec[an->nsec++];

	memset(s, 0, sizeof *s);
	s->kind = kind;
	s->step = step;
	s->out = (struct buf)BUF_INIT;
	s->err = (struct buf)BUF_INIT;
	s->rc = -1;
	s->t0 = proc_now();
	return s;
}

/*
 * The lock: a directory on the node; its owner file says whose.  It lives
 * in a folder only root can write (never the world-writable /run/lock,
 * where any user could take it first and write what we show): one that
 * others can write, or a link, is refused with the reason.
 */
static void
apply_add_lock(struct apply_ctx *c, struct apply_node *an, struct buf *b)
{
	apply_sec_add(an, SEC_LOCK, NULL);
	buf_addf(b, "[ -d " APPLY_LOCK_DIR " ] || mkdir -m 0700 "
	    APPLY_LOCK_DIR " 2>/dev/null\n"
	    "case $(stat -c '%%u:%%A' " APPLY_LOCK_DIR " 2>/dev/null) in\n"
	    "0:d?\?\?\?-?\?-?*) ;;\n"		/* no write for group, other */
	    "*)\techo \"" APPLY_LOCK_DIR " is not a folder only root can "
	    "write ($(stat -c '%%U %%A' " APPLY_LOCK_DIR " 2>&1)): remove it, "
	    "or make it one (chown root, chmod go-w)\"\n"
	    "\tpv_m '%zu %d'\n\texit 0 ;;\nesac\n", an->nsec - 1,
	    APPLY_EXIT_LOCKDIR);
	if (an->force_lock)
		buf_adds(b, "rm -rf \"$pv_l\"\n");
	buf_adds(b, "if mkdir \"$pv_l\" 2>/dev/null; then\n\tprintf '%s\\n' ");
	buf_add_shquote(b, c->owner);
	buf_addf(b, " >\"$pv_l/owner\"\n\tpv_m '%zu 0'\nelse\n"
	    "\tcat \"$pv_l/owner\" 2>/dev/null || echo unknown\n"
	    "\tpv_m '%zu %d'\n\texit 0\nfi\n", an->nsec - 1, an->nsec - 1,
	    APPLY_EXIT_LOCKED);
}

static void
apply_add_facts(struct apply_node *an, struct buf *b)
{
	const char	*f = facts_script();

	apply_sec_add(an, SEC_FACTS, NULL);
	buf_adds(b, "sh -s ");
	apply_heredoc(b, f, strlen(f));
	buf_addf(b, "pv_m \"%zu $?\"\n", an->nsec - 1);
}

static void
apply_add_unlock(struct apply_ctx *c, struct apply_node *an, struct buf *b)
{
	apply_sec_add(an, SEC_UNLOCK, NULL);
	buf_adds(b, "if read -r pv_o <\"$pv_l/owner\" && [ \"$pv_o\" = ");
	buf_add_shquote(b, c->owner);
	buf_addf(b, " ]; then rm -rf \"$pv_l\"; fi 2>/dev/null\n"
	    "pv_m '%zu 0'\n", an->nsec - 1);
}

/*
 * A step's secret (the head's value for a head-first step, or the plan's),
 * base64 on the node's stdin only.
 */
static void
apply_add_secret(const struct buf *secret, const char *name, struct buf *b)
{
	struct buf	enc = BUF_INIT;
	size_t		n = 4 * ((secret->len + 2) / 3) + 1;

	buf_grow(&enc, n);
	buf_setlen(&enc, (size_t)EVP_EncodeBlock((unsigned char *)enc.buf,
	    (const unsigned char *)secret->buf, (int)secret->len));
	buf_adds(b, "pv_d=$(mktemp -d /tmp/provision.XXXXXX) && "
	    "mkdir \"$pv_d/s\" && base64 -d >\"$pv_d/s/");
	buf_adds(b, name);
	buf_adds(b, "\" ");
	apply_heredoc(b, enc.buf, enc.len);
	buf_release_secret(&enc);
}

static void apply_fail_node(struct apply_ctx *, struct apply_node *,
    enum state_res);
static void apply_step_result(struct apply_ctx *, struct apply_node *,
    const struct apply_step *, enum state_res, const char *msg, double el);

/* The next step of the queue; -1 when the node cannot go on. */
static int
apply_add_step(struct apply_ctx *c, struct apply_node *an, struct buf *b)
{
	struct prov_err		 err = PROV_ERR_INIT;
	struct apply_event	 ev;
	const struct apply_step	*s = an->queue[an->cursor++];
	struct buf		 script = BUF_INIT;
	int			 hf_secret, plan_secret;

	hf_secret = s->secret != NULL && !(s->flags & APPLY_PLAN_SECRET) &&
	    c->hf == s && an->pn != render_head(c->p);
	plan_secret = (s->flags & APPLY_PLAN_SECRET) && c->plan_secret.len > 0;
	if (c->hf == s && c->hf_failed) {
		char	*m = xasprintf("'%s' did not succeed on %s, which the "
		    "others need first", s->name, apply_first(c->p, s)->name);

		apply_step_result(c, an, s, STATE_FAILED, m, 0);
		free(m);
		return -1;
	}
	if (hf_secret && !c->have_secret) {
		char	*m = xasprintf("'%s' from the head is not available "
		    "(the head's step did not succeed)", s->secret);

		apply_step_result(c, an, s, STATE_FAILED, m, 0);
		free(m);
		return -1;
	}
	if (render_step(&script, &c->rin, an->pi, s->name, &err) != 0) {
		apply_note(c, an->pn->name, "%s", err.msg);
		prov_err_release(&err);
		buf_release(&script);
		apply_fail_node(c, an, STATE_FAILED);
		return -1;
	}
	apply_sec_add(an, SEC_STEP, s);
	if (hf_secret)
		apply_add_secret(&c->secret, s->secret, b);
	else if (plan_secret)
		apply_add_secret(&c->plan_secret, s->secret, b);
	/*
	 * Once a session, lib.sh and the node's variables (all but
	 * PROV_STEP, the same for every step: 30 kB of a 200-node plan's
	 * hosts and targets, which grow with the cluster) as functions.
	 */
	if (!an->lib_sent) {
		buf_add(b, c->lib_def.buf, c->lib_def.len);
		buf_adds(b, "pv_vars() {\n");
		render_vars(b, &c->rin, an->pi);
		buf_adds(b, "}\n");
		an->lib_sent = 1;
	}
	/*
	 * A subshell of this shell, not a new sh: no exec and lib.sh parsed
	 * once a session, where each step's own sh cost a third of what a
	 * re-applied step costs.  eval keeps a syntax error of the step to
	 * its subshell, and stdin is not the rest of this script.
	 */
	buf_adds(b, "pv_s=");
	buf_add_shquote(b, script.buf);
	buf_addf(b, "\n(PROV_SECRET_DIR=${pv_d:+\"$pv_d/s\"}; PROV_REDACT=1; "
	    "export PROV_SECRET_DIR PROV_REDACT; eval \"$pv_s\") </dev/null\n"
	    "pv_m \"%zu $?\"\n", an->nsec - 1);
	if (hf_secret || plan_secret)
		buf_adds(b, "rm -rf \"$pv_d\"\npv_d=\n");
	buf_release(&script);

	memset(&ev, 0, sizeof ev);
	ev.kind = APPLY_EV_START;
	ev.node = an->pn->name;
	ev.step = s->name;
	ev.index = (size_t)(an - c->nodes);
	ev.stepno = an->stepno;
	ev.nsteps = an->nsteps;
	apply_emit(c, &ev);
	apply_log(an, "\n=== step %s (%s)\n", s->name, c->o->run_id);
	return 0;
}

/*
 * lib.sh as the function pv_lib, which each step's subshell calls first.
 * It is parsed by the shell that drives the whole session, where a syntax
 * error would end the session with no word on why: so this machine's sh
 * reads it first (-n), and a lib.sh it refuses stops the run here.
 */
static int
apply_lib_def(struct apply_ctx *c, struct prov_err *err)
{
	struct proc	 pr = PROC_INIT;
	struct buf	 lib = BUF_INIT, msg = BUF_INIT;
	char		*path = xasprintf("%s/lib.sh", c->o->templates);
	int		 r = -1;

	if (render_lib(&lib, &c->rin, err) != 0)
		goto out;
	strvec_push(&pr.args, "sh");
	strvec_push(&pr.args, "-n");
	strvec_push(&pr.args, path);
	pr.out = &msg;
	pr.timeout_s = 30;
	/* no sh here (or it hangs): the nodes' sh will say it */
	if (proc_run(&pr) == 0 && WIFEXITED(pr.status) &&
	    WEXITSTATUS(pr.status) != 0) {
		buf_rtrim(&msg);
		prov_err_set(err, PROV_E_USAGE, "%s: the shell refuses it: %s",
		    path, msg.len > 0 ? msg.buf : "(sh -n says no more)");
		goto out;
	}
	buf_adds(&c->lib_def, "pv_lib() {\n");
	buf_add(&c->lib_def, lib.buf, lib.len);
	buf_adds(&c->lib_def, "\n}\n");
	r = 0;
out:
	proc_release(&pr);
	buf_release(&lib);
	buf_release(&msg);
	free(path);
	return r;
}

/* The node's last job of the run: its lock goes at the end. */
static int
apply_is_final(const struct apply_node *an)
{
	return an->last == NULL ||
	    (an->nqueue > 0 && an->queue[an->nqueue - 1] == an->last);
}

/*
 * Append what the node's shell runs next: the prelude, lock and facts at
 * first, then one step, then the tail.  1 when that was the tail (EOF).
 */
static int
apply_chunk(struct apply_ctx *c, struct apply_node *an, struct buf *b)
{
	if (c->o->interrupted != NULL && *c->o->interrupted)
		c->stop = 1;
	if (an->ph == PH_START) {
		apply_prelude(c, an, b);
		an->ph = PH_STEPS;
		if (!c->unlock_only) {
			if (!an->locked)
				apply_add_lock(c, an, b);
			if (c->need_facts && !an->have_facts)
				apply_add_facts(an, b);
		}
		if (an->nsec > 0)
			return 0;
	}
	while (!an->dead && !c->stop && !an->reboot_due &&
	    an->cursor < an->nqueue)
		if (apply_add_step(c, an, b) == 0)
			return 0;
	an->ph = PH_END;
	if (an->locked && (c->unlock_only || an->dead || c->stop ||
	    an->reboot_due || apply_is_final(an)))
		apply_add_unlock(c, an, b);
	buf_adds(b, "exit 0\n");
	return 1;
}

static void
apply_job_reset(struct apply_node *an)
{
	size_t	i;

	buf_release_secret(&an->in);
	free(an->cmd);
	an->cmd = NULL;
	an->job = (struct ssh_job)SSH_JOB_INIT;
	an->kind = AJ_NONE;
	for (i = 0; i < an->nsec; i++) {
		buf_release(&an->sec[i].out);
		buf_release(&an->sec[i].err);
	}
	an->nsec = an->nsec_done = 0;
	an->lib_sent = 0;
	for (i = 0; i < 2; i++) {
		buf_release(&an->strm[i].pend);
		buf_release_secret(&an->strm[i].line);
		an->strm[i].sec = 0;
	}
	an->ph = PH_START;
}

static const struct ssh_job *
apply_job_start(struct apply_ctx *c, struct apply_node *an,
    enum apply_job_kind kind)
{
	an->kind = kind;
	an->job.command = an->cmd;
	an->job.stdin_data = an->in.buf;
	an->job.stdin_len = an->in.len;
	an->job.label = "provision";
	return &an->job;
}

static const struct ssh_job *
apply_next(void *arg, size_t host)
{
	struct apply_ctx	*c = arg;
	struct apply_node	*an = &c->nodes[host];

	apply_job_reset(an);
	if (c->o->interrupted != NULL && *c->o->interrupted)
		c->stop = 1;
	if (c->unlock_only) {
		/*
		 * A node whose session was lost, or whose step hung (it may
		 * still run there), keeps its lock; the next apply from here
		 * takes it over as stale.
		 */
		if (an->ran || !an->locked || an->conn_lost)
			return NULL;
	} else {
		if (an->dead || c->stop)
			return NULL;
		if (c->wave == AJ_FETCH) {
			if (!an->wave_job)
				return NULL;
			an->wave_job = 0;
			an->cmd = xasprintf("cat /etc/provision/out/%s",
			    c->hf->secret);
			return apply_job_start(c, an, AJ_FETCH);
		}
		if (an->ran && !an->retry)
			return NULL;
		if (!c->first && an->nqueue == 0)
			return NULL;
	}
	an->ran = 1;
	an->retry = 0;
	an->cursor = 0;
	an->cmd = xstrdup("sh -s");
	an->job.stdin_open = !apply_chunk(c, an, &an->in);
	return apply_job_start(c, an, AJ_RUN);
}

/* Feed the node's shell its next part, once every part sent has ended. */
static void
apply_feed(struct apply_ctx *c, struct apply_node *an, size_t host)
{
	struct buf	b = BUF_INIT;
	int		eof;

	if (an->ph == PH_END || an->nsec_done < an->nsec)
		return;
	eof = apply_chunk(c, an, &b);
	if (ssh_pool_feed(c->pool, host, b.buf, b.len, eof) != 0)
		an->ph = PH_END;
	buf_release_secret(&b);
}

static enum state_res
apply_result_of(int rc)
{
	return rc == 0 ? STATE_OK : rc == APPLY_EXIT_CHANGED ? STATE_CHANGED :
	    rc == APPLY_EXIT_SKIPPED ? STATE_SKIPPED : STATE_FAILED;
}

/*
 * The last non-empty line of a buffer, for a one-line reason: text a node
 * wrote, escaped (buf_add_visible) before it reaches a terminal or the
 * state.
 */
static char *
apply_last_line(const struct buf *b)
{
	const char	*end = b->buf + b->len, *s;
	struct buf	 v = BUF_INIT;

	while (end > b->buf && (end[-1] == '\n' || end[-1] == ' ' ||
	    end[-1] == '\r'))
		end--;
	s = end;
	while (s > b->buf && s[-1] != '\n')
		s--;
	if (s == end)
		return NULL;
	buf_add_visible(&v, s, (size_t)(end - s), "\t");
	return buf_detach(&v, NULL);
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

/* A failed lock or facts part: its row, an event, the node stops. */
static void
apply_pre_failed(struct apply_ctx *c, struct apply_node *an, const char *row,
    enum state_res res, const char *msg, double el)
{
	struct apply_event	ev;

	if (an->selected) {
		state_set(c->st, an->pn->name, row, res, msg, el);
		c->sum->nodes_unreachable += res == STATE_UNREACHABLE;
	}
	memset(&ev, 0, sizeof ev);
	ev.kind = APPLY_EV_DONE;
	ev.node = an->pn->name;
	ev.step = row;
	ev.res = res;
	ev.msg = msg;
	ev.elapsed = el;
	apply_emit(c, &ev);
	apply_fail_node(c, an, res);
	apply_save(c, 1);
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
apply_step_result(struct apply_ctx *c, struct apply_node *an,
    const struct apply_step *s, enum state_res res, const char *msg,
    double el)
{
	struct apply_event	ev;

	apply_log(an, "=== %s: %s%s%s (%.1f s)\n", s->name, state_res_name(res),
	    msg != NULL ? ": " : "", msg != NULL ? msg : "", el);
	state_set(c->st, an->pn->name, s->name, res, msg, el);
	an->stepno++;
	memset(&ev, 0, sizeof ev);
	ev.kind = APPLY_EV_DONE;
	ev.node = an->pn->name;
	ev.step = s->name;
	ev.res = res;
	ev.msg = msg;
	ev.elapsed = el;
	ev.index = (size_t)(an - c->nodes);
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
}

static void
apply_lock_done(struct apply_ctx *c, struct apply_node *an,
    struct apply_sec *s, double el)
{
	char	*owner, *m;

	if (s->rc == 0) {
		an->locked = 1;
		apply_clear_row(c, an, "lock", el);
		return;
	}
	an->ph = PH_END;	/* the node's shell has left */
	owner = apply_last_line(&s->out);
	if (s->rc == APPLY_EXIT_LOCKED && !an->force_lock &&
	    (c->o->break_lock || apply_lock_is_stale(c, owner != NULL ?
	    owner : ""))) {
		apply_note(c, an->pn->name, "%s lock (%s): taken over",
		    c->o->break_lock ? "breaking the" :
		    "stale: the apply that held it is gone;",
		    owner != NULL ? owner : "unknown owner");
		an->force_lock = 1;
		an->retry = 1;
		free(owner);
		return;
	}
	if (s->rc == APPLY_EXIT_LOCKDIR)
		m = xasprintf("cannot lock: %s", owner != NULL ? owner :
		    "no reason given");
	else
		m = xasprintf("locked by another apply (%s): wait for it, or "
		    "if it died on another machine run with --break-lock",
		    owner != NULL ? owner : "unknown owner");
	apply_pre_failed(c, an, "lock", STATE_FAILED, m, el);
	free(m);
	free(owner);
}

static void
apply_facts_done(struct apply_ctx *c, struct apply_node *an,
    struct apply_sec *s, double el)
{
	struct facts		*f = facts_new();
	struct prov_err		 err = PROV_ERR_INIT;
	struct render_hostinfo	*hi = &c->info[an->pi];
	long long		 huge;

	if (s->rc != 0 || facts_parse_script(f, s->out.buf, &err) != 0) {
		char	*msg = xasprintf("facts: %s", err.msg != NULL ?
		    err.msg : "the facts script failed");

		apply_note(c, an->pn->name, "%s", msg);
		apply_pre_failed(c, an, "facts", STATE_FAILED, msg, el);
		free(msg);
		goto out;
	}
	apply_clear_row(c, an, "facts", el);
	facts_finish(f, c->p->catalog);
	an->have_facts = 1;
	hi->have = 1;
	hi->cpus = f->cpu_threads > 0 ? f->cpu_threads : 1;
	/*
	 * Huge pages are pinned: Slurm's RealMemory leaves them out, those
	 * the node has or those the plan will make, whichever is more.
	 */
	huge = plan_hugepages_kb(c->p);
	if (f->hugepages_kb > huge)
		huge = f->hugepages_kb;
	if (huge > f->mem_kb)
		huge = f->mem_kb;
	hi->mem_mb = (long)((f->mem_kb - huge) / 1024);
	hi->gpus = (long)f->ngpus;
	if (c->o->run_dir != NULL) {
		struct buf	 j = BUF_INIT;
		char		*path = xasprintf("%s/facts/%s.json",
		    c->o->run_dir, an->pn->name);

		facts_to_json(&j, f);
		if (buf_write_file_atomic(path, j.buf, j.len, 0600) != 0)
			apply_note(c, an->pn->name, "cannot write %s: %s", path,
			    strerror(errno));
		free(path);
		buf_release(&j);
	}
out:
	prov_err_release(&err);
	facts_free(f);
}

/* The reason on the last "reboot: REASON" line of a step's stdout. */
static char *
apply_reboot_line(const struct buf *out)
{
	const char	*p = out->buf, *end = out->buf + out->len, *nl;
	const char	*found = NULL;
	size_t		 flen = 0;

	while (p != NULL && p < end) {
		nl = memchr(p, '\n', (size_t)(end - p));
		if (nl == NULL)
			nl = end;
		if ((size_t)(nl - p) > 8 && memcmp(p, "reboot: ", 8) == 0) {
			found = p + 8;
			flen = (size_t)(nl - p) - 8;
		}
		p = nl + 1;
	}
	return found != NULL ? xstrndup(found, flen) : NULL;
}

/* The node stops after this step; it reboots once the wave is over. */
static void
apply_reboot_due(struct apply_ctx *c, struct apply_node *an,
    const struct apply_step *step, const char *why)
{
	an->reboot_due = 1;
	free(an->reboot_why);
	an->reboot_why = xstrdup(why);
	an->reboot_step = step;
	an->reboot_from = an->cursor > 0 ? an->cursor - 1 : 0;
	state_set(c->st, an->pn->name, "reboot", STATE_PENDING, why, 0);
	apply_save(c, 1);
	apply_note(c, an->pn->name, "needs a reboot (step %s): %s", step->name,
	    why);
}

static void
apply_step_done(struct apply_ctx *c, struct apply_node *an,
    struct apply_sec *s, double el)
{
	enum state_res	 res = apply_result_of(s->rc);
	char		*msg = NULL, *l, *why = NULL;

	if (res == STATE_SKIPPED) {
		l = apply_last_line(&s->out);
		if (l != NULL && str_starts(l, "skipped: ")) {
			msg = xstrdup(l + 9);
			free(l);
		} else
			msg = l;
	} else if (res == STATE_FAILED) {
		l = apply_last_line(&s->err);
		msg = xasprintf("exit %d%s%s", s->rc, l != NULL ? ": " : "",
		    l != NULL ? l : "");
		free(l);
	} else if ((why = apply_reboot_line(&s->out)) != NULL &&
	    an->rebooted_for == s->step) {
		/* rebooted for it, and it still asks: never loop */
		res = STATE_FAILED;
		msg = xasprintf("still needs a reboot after one: %s", why);
		free(why);
		why = NULL;
	}
	apply_step_result(c, an, s->step, res, msg, el);
	if (why != NULL && !an->dead)
		apply_reboot_due(c, an, s->step, why);
	free(why);
	free(msg);
}

/* Every section both streams have ended, in order; then feed the next. */
static void
apply_settle(struct apply_ctx *c, struct apply_node *an, size_t host)
{
	while (an->nsec_done < an->nsec) {
		struct apply_sec	*s = &an->sec[an->nsec_done];
		double			 el = proc_now() - s->t0;

		if (!s->ended[0] || !s->ended[1])
			return;
		an->nsec_done++;
		switch (s->kind) {
		case SEC_LOCK:
			apply_lock_done(c, an, s, el);
			break;
		case SEC_FACTS:
			apply_facts_done(c, an, s, el);
			break;
		case SEC_STEP:
			apply_step_done(c, an, s, el);
			break;
		case SEC_UNLOCK:
			an->locked = 0;
			break;
		}
	}
	apply_feed(c, an, host);
}

/* Redacted output of the section a stream is in (0 stdout, 1 stderr). */
static void
apply_sec_put(struct apply_ctx *c, struct apply_node *an, size_t host,
    int sn, const char *d, size_t n)
{
	struct apply_sec	*s;
	struct apply_event	 ev;
	struct buf		*b;

	if (n == 0 || an->strm[sn].sec >= an->nsec)
		return;
	s = &an->sec[an->strm[sn].sec];
	b = sn == 0 ? &s->out : &s->err;
	if (s->kind == SEC_STEP && b->len + n > APPLY_SEC_KEEP &&
	    b->len > APPLY_SEC_KEEP / 2) {
		/* a chatty step: its reason is at the end */
		memmove(b->buf, b->buf + b->len - APPLY_SEC_KEEP / 2,
		    APPLY_SEC_KEEP / 2);
		buf_setlen(b, APPLY_SEC_KEEP / 2);
	}
	buf_add(b, d, n);
	/* Only step output reaches the log: never facts, never a secret. */
	if (s->kind != SEC_STEP)
		return;
	if (an->log != NULL) {
		/* flushed: `tail -f` shows a long step (a wait) as it goes */
		fwrite(d, 1, n, an->log);
		fflush(an->log);
		an->log_midline = d[n - 1] != '\n';
	}
	memset(&ev, 0, sizeof ev);
	ev.kind = APPLY_EV_OUTPUT;
	ev.node = an->pn->name;
	ev.step = s->step->name;
	ev.data = d;
	ev.len = n;
	ev.index = host;
	apply_emit(c, &ev);
}

/*
 * The first `len` bytes held for stream sn, with every secret the run
 * knows replaced, on to the section: the only way output leaves here.
 */
static void
apply_sec_release(struct apply_ctx *c, struct apply_node *an, size_t host,
    int sn, size_t len)
{
	struct buf	*l = &an->strm[sn].line, b = BUF_INIT;

	if (len == 0)
		return;
	buf_add(&b, l->buf, len);
	memmove(l->buf, l->buf + len, l->len - len);
	explicit_bzero(l->buf + l->len - len, len);
	buf_setlen(l, l->len - len);
	redact_buf(&c->red, &b);
	apply_sec_put(c, an, host, sn, b.buf, b.len);
	buf_release_secret(&b);
}

/*
 * Output of the section a stream is in: held until a line is whole (a
 * secret is never cut in two before it is redacted), or while a very
 * long line could still end in one.
 */
static void
apply_sec_data(struct apply_ctx *c, struct apply_node *an, size_t host,
    int sn, const char *d, size_t n)
{
	struct buf	*l = &an->strm[sn].line;
	const char	*nl;
	size_t		 span = redact_span(&c->red);

	if (n == 0)
		return;
	buf_add(l, d, n);
	if ((nl = memrchr(l->buf, '\n', l->len)) != NULL)
		apply_sec_release(c, an, host, sn, (size_t)(nl + 1 - l->buf));
	if (l->len > APPLY_LINE_MAX + span)
		apply_sec_release(c, an, host, sn, l->len - span);
}

/* The section of stream sn ends: what it holds goes out. */
static void
apply_sec_flush(struct apply_ctx *c, struct apply_node *an, size_t host,
    int sn)
{
	apply_sec_release(c, an, host, sn, an->strm[sn].line.len);
}

/*
 * "secret HEX": a step declared a value secret (lib.sh prov_secret).  It
 * is hidden from everything any node prints from now on.
 */
static void
apply_learn_secret(struct apply_ctx *c, const char *arg, size_t len)
{
	static const char	hex[] = "0123456789abcdef";
	struct buf		v = BUF_INIT;
	const char		*hi, *lo;
	size_t			i;

	for (i = 0; i + 1 < len; i += 2) {
		if ((hi = memchr(hex, arg[i], 16)) == NULL ||
		    (lo = memchr(hex, arg[i + 1], 16)) == NULL)
			break;
		buf_addch(&v, (int)((hi - hex) << 4 | (lo - hex)));
	}
	redact_add(&c->red, v.buf, v.len);
	buf_release_secret(&v);
}

/* How many bytes at the end of p could begin a marker. */
static size_t
apply_mark_prefix(const char *p, size_t len)
{
	static const char	mark[] = APPLY_MARK;
	size_t			k = sizeof mark - 2;

	if (k > len)
		k = len;
	for (; k > 0; k--)
		if (memcmp(p + len - k, mark, k) == 0)
			return k;
	return 0;
}

/* A marker "end K RC" ended section K of stream sn. */
static void
apply_sec_end(struct apply_node *an, int sn, const char *arg, size_t len)
{
	char		 tmp[48];
	unsigned long	 k;
	int		 rc;

	if (len >= sizeof tmp)
		return;
	memcpy(tmp, arg, len);
	tmp[len] = '\0';
	if (sscanf(tmp, "end %lu %d", &k, &rc) != 2 ||
	    k != an->strm[sn].sec || k >= an->nsec)
		return;
	an->sec[k].ended[sn] = 1;
	if (sn == 0)
		an->sec[k].rc = rc;
	an->strm[sn].sec++;
}

/* Bytes of stream sn; `end`: no more will come. */
static void
apply_stream_in(struct apply_ctx *c, struct apply_node *an, size_t host,
    int sn, const char *d, size_t n, int end)
{
	static const char	 mark[] = APPLY_MARK;
	const size_t		 ml = sizeof mark - 1;
	struct buf		*pb = &an->strm[sn].pend;
	char			*p, *m, *eol, *arg;
	size_t			 used, keep, al;

	buf_add(pb, d, n);
	for (;;) {
		p = pb->buf;
		m = memmem(p, pb->len, mark, ml);
		eol = m != NULL ? memchr(m + ml, '\n', pb->len -
		    (size_t)(m + ml - p)) : NULL;
		if (eol == NULL) {
			/* hold back what may be a marker still coming */
			used = m != NULL ? (size_t)(m - p) : pb->len -
			    apply_mark_prefix(p, pb->len);
			if (end)
				used = pb->len;
			apply_sec_data(c, an, host, sn, p, used);
			if (end)
				apply_sec_flush(c, an, host, sn);
			keep = pb->len - used;
			memmove(pb->buf, pb->buf + used, keep);
			buf_setlen(pb, keep);
			return;
		}
		apply_sec_data(c, an, host, sn, p, (size_t)(m - p));
		arg = m + ml;
		al = (size_t)(eol - arg);
		if (al > 7 && memcmp(arg, "secret ", 7) == 0)
			apply_learn_secret(c, arg + 7, al - 7);
		else {
			apply_sec_flush(c, an, host, sn);
			apply_sec_end(an, sn, arg, al);
		}
		used = (size_t)(eol + 1 - p);
		/* a declared secret is in the marker: wipe it */
		explicit_bzero(p, used);
		memmove(pb->buf, pb->buf + used, pb->len - used);
		buf_setlen(pb, pb->len - used);
	}
}

static void
apply_output(void *arg, size_t host, int stream, const char *data, size_t len)
{
	struct apply_ctx	*c = arg;
	struct apply_node	*an = &c->nodes[host];

	/* a fetch reads a secret: it goes nowhere but memory */
	if (an->kind != AJ_RUN)
		return;
	apply_stream_in(c, an, host, stream == 1 ? 0 : 1, data, len, 0);
	apply_settle(c, an, host);
}

static void
apply_done(void *arg, size_t host, const struct ssh_job *job,
    struct ssh_result *r)
{
	struct apply_ctx	*c = arg;
	struct apply_node	*an = &c->nodes[host];
	struct apply_sec	*s;
	enum state_res		 res;
	char			*msg;
	double			 el;

	if (an->kind == AJ_FETCH) {
		/* A secret: into memory only, never logged or shown. */
		if (r->status == SSH_OK && r->out.len > 0 && !r->out.truncated) {
			buf_release_secret(&c->secret);
			buf_add(&c->secret, r->out.buf, r->out.len);
			c->have_secret = 1;
			/* and hidden from every output from now on */
			if (c->hf->secret_args != NULL)
				redact_add_args(&c->red, c->secret.buf,
				    c->hf->secret_args);
			else
				redact_add(&c->red, c->secret.buf,
				    c->secret.len);
		} else
			apply_note(c, an->pn->name, "cannot read '%s' from the "
			    "head: %s", c->hf->secret, r->error != NULL ?
			    r->error : "exit status not 0");
		buf_release_secret(&r->out);
		return;
	}
	an->ph = PH_END;	/* nothing more can be fed */
	apply_stream_in(c, an, host, 0, NULL, 0, 1);
	apply_stream_in(c, an, host, 1, NULL, 0, 1);
	apply_settle(c, an, host);
	if (r->status != SSH_OK && r->status != SSH_FAILED)
		an->conn_lost = 1;
	/* a lock refused (the shell leaves at once) was said already */
	if (an->nsec_done >= an->nsec || an->dead || an->retry)
		return;
	/* The job ended inside a part: that part failed. */
	s = &an->sec[an->nsec_done];
	el = proc_now() - s->t0;
	if (r->status != SSH_OK && r->status != SSH_FAILED) {
		/*
		 * No exit status: the session failed or the command hung.
		 * Before any step ran, a node that is down and one that never
		 * answers (no banner, no key exchange) are both unreachable.
		 */
		int	pre = s->kind == SEC_LOCK || s->kind == SEC_FACTS;

		res = r->status == SSH_UNREACHABLE || (pre &&
		    r->status == SSH_TIMEOUT) ? STATE_UNREACHABLE :
		    STATE_FAILED;
		msg = xasprintf("%s: %s", ssh_status_name(r->status),
		    r->error != NULL ? r->error : "no detail");
	} else {
		res = STATE_FAILED;
		msg = xasprintf("the node's shell ended (exit %d%s%s) before "
		    "this part did", r->exit_code, r->exit_signal != NULL ?
		    ", signal " : "", r->exit_signal != NULL ?
		    r->exit_signal : "");
	}
	switch (s->kind) {
	case SEC_LOCK:
		apply_pre_failed(c, an, "lock", res, msg, el);
		break;
	case SEC_FACTS:
		apply_pre_failed(c, an, "facts", res, msg, el);
		break;
	case SEC_STEP:
		apply_step_result(c, an, s->step, res, msg, el);
		break;
	case SEC_UNLOCK:
		break;
	}
	free(msg);
	(void)job;
}

static int
apply_wave(struct apply_ctx *c, enum apply_job_kind wave, struct prov_err *err)
{
	struct ssh_handler	h = { apply_next, apply_done, apply_output, c };
	size_t			i;

	c->wave = wave;
	for (i = 0; i < c->n; i++)
		c->nodes[i].ran = 0;
	if (ssh_pool_run(c->pool, &h, err) != 0)
		return -1;
	apply_save(c, 1);
	return 0;
}

/*
 * A reboot a step asked for and that did not happen (--no-reboot, or the
 * node did not come back): --resume runs all of the node's steps again,
 * so that the step that asked says whether it still must.
 */
static int
apply_reboot_owed(const struct apply_ctx *c, const struct apply_node *an)
{
	enum state_res	r = state_get(c->st, an->pn->name, "reboot");

	return r == STATE_FAILED || (r == STATE_PENDING &&
	    state_has(c->st, an->pn->name, "reboot"));
}

/* Does this run run `st` on this node (plan, --step, --resume)? */
static int
apply_runs_on(const struct apply_ctx *c, struct apply_node *an,
    const struct apply_step *st)
{
	if (!an->owed_known) {
		an->owed = apply_reboot_owed(c, an);
		an->owed_known = 1;
	}
	return an->selected && st->wanted(c->p, an->pn) &&
	    (c->o->only_step == NULL ||
	    strcmp(c->o->only_step, st->name) == 0) &&
	    !(c->o->resume && state_res_done(state_get(c->st, an->pn->name,
	    st->name)) && !an->owed);
}

/* Queue, for every live selected node, the steps from..to (head-first rules). */
static size_t
apply_fill(struct apply_ctx *c, size_t from, size_t to, int head_only,
    int skip_head_hf)
{
	const struct plan_node	*head = apply_steps[from].name != NULL ?
	    apply_first(c->p, &apply_steps[from]) : NULL;
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

			if (skip_head_hf && s == from && an->pn == head &&
			    (st->flags & APPLY_HEAD_FIRST))
				continue;
			if (!apply_runs_on(c, an, st)) {
				/* done before (--resume): counts as progress */
				if (c->o->resume && st->wanted(c->p, an->pn) &&
				    (c->o->only_step == NULL ||
				    strcmp(c->o->only_step, st->name) == 0))
					an->stepno++;
				continue;
			}
			an->queue[an->nqueue++] = st;
			total++;
		}
	}
	return total;
}

/* Did `st` fail (or not run for a failure) on its first node this run? */
static int
apply_first_failed(const struct apply_ctx *c, const struct apply_step *st)
{
	const struct plan_node	*first = apply_first(c->p, st);
	size_t			 i;

	for (i = 0; i < c->n; i++)
		if (c->nodes[i].pn == first && c->nodes[i].selected)
			return c->nodes[i].dead || state_get(c->st,
			    first->name, st->name) == STATE_FAILED;
	return 0;
}

/* Will `st` run on some live node?  Else it is no barrier. */
static int
apply_step_runs(const struct apply_ctx *c, const struct apply_step *st)
{
	size_t	i;

	for (i = 0; i < c->n; i++)
		if (!c->nodes[i].dead && apply_runs_on(c, &c->nodes[i], st))
			return 1;
	return 0;
}

/*
 * Each node's last step of the run (its lock goes with it), and whether
 * any step to run renders from facts (else no node is asked for them).
 */
static void
apply_plan_nodes(struct apply_ctx *c)
{
	size_t	i, s;

	for (i = 0; i < c->n; i++) {
		struct apply_node	*an = &c->nodes[i];

		an->last = NULL;
		if (!an->selected)
			continue;
		for (s = 0; apply_steps[s].name != NULL; s++) {
			const struct apply_step	*st = &apply_steps[s];

			if (!apply_runs_on(c, an, st))
				continue;
			an->last = st;
			if (st->flags & APPLY_NEEDS_FACTS)
				c->need_facts = 1;
		}
	}
}

/* The reboot's row: an event like a step's, and the state. */
static void
apply_reboot_event(void *arg, enum reboot_event_kind kind,
    const struct reboot_node *rn)
{
	struct apply_ctx	*c = arg;
	struct apply_event	 ev;
	size_t			 i;

	if (kind == REBOOT_EV_START) {
		apply_note(c, rn->name, "rebooting");
		return;
	}
	memset(&ev, 0, sizeof ev);
	ev.kind = APPLY_EV_DONE;
	ev.node = rn->name;
	ev.step = "reboot";
	ev.res = rn->res == REBOOT_FAILED ? STATE_FAILED : STATE_CHANGED;
	ev.msg = rn->msg;
	ev.elapsed = rn->elapsed;
	for (i = 0; i < c->n; i++)
		if (strcmp(c->nodes[i].pn->name, rn->name) == 0) {
			ev.index = i;
			ev.stepno = c->nodes[i].stepno;
			ev.nsteps = c->nodes[i].nsteps;
		}
	apply_emit(c, &ev);
}

/* Sessions made before a reboot are dead: a new pool. */
static int
apply_pool_renew(struct apply_ctx *c, struct prov_err *err)
{
	ssh_pool_close(c->pool);
	ssh_pool_free(c->pool);
	c->pool = NULL;
	return ssh_pool_new(&c->pool, &c->cfg, c->hosts, c->nhosts, err);
}

/* A rebooted node runs the rest of its queue, from the step that asked. */
static void
apply_requeue(struct apply_node *an)
{
	size_t	from = an->reboot_from < an->nqueue ? an->reboot_from :
	    an->nqueue;

	memmove(an->queue, an->queue + from, (an->nqueue - from) *
	    sizeof an->queue[0]);
	an->nqueue -= from;
	an->cursor = 0;
	if (an->stepno > 0)
		an->stepno--;	/* that step runs again */
	an->rebooted_for = an->reboot_step;
	an->locked = 0;		/* the lock lived in /run */
	an->requeued = 1;
}

/*
 * After a wave: reboot the nodes a step asked it of (reboot.h), then run
 * the rest of their wave; again while steps ask.  With --no-reboot they
 * stop there instead, their reboot pending in the state.
 */
static int
apply_reboots(struct apply_ctx *c, struct prov_err *err)
{
	const struct plan_apply	*pa = &c->p->apply;
	struct reboot_opts	 ro;
	struct reboot_node	*rn;
	struct apply_node	**who;
	size_t			 i, k;
	int			 r;
	char			*msg;

	for (;;) {
		for (i = k = 0; i < c->n; i++)
			k += c->nodes[i].reboot_due && !c->nodes[i].dead;
		if (k == 0)
			return 0;
		/* not now: they stop, their reboot pending in the state */
		if (c->o->no_reboot || c->stop) {
			for (i = 0; i < c->n; i++) {
				struct apply_node	*an = &c->nodes[i];

				if (!an->reboot_due || an->dead)
					continue;
				an->held = an->dead = 1;
				apply_note(c, an->pn->name, "stopped here: it "
				    "needs a reboot (%s)", c->o->no_reboot ?
				    "--no-reboot" : "the run stops");
			}
			return 0;
		}
		if (c->reboot_script.len == 0) {
			char	*path = xasprintf("%s/reboot.sh", c->o->templates);

			r = buf_read_file(&c->reboot_script, path);
			if (r != 0)
				prov_err_sys(err, "cannot read '%s'", path);
			free(path);
			if (r != 0)
				return -1;
		}
		rn = xcalloc(k, sizeof *rn);
		who = xcalloc(k, sizeof *who);
		for (i = k = 0; i < c->n; i++) {
			struct apply_node	*an = &c->nodes[i];

			if (!an->reboot_due || an->dead)
				continue;
			who[k] = an;
			rn[k].name = an->pn->name;
			rn[k].addr = an->pn->address;
			rn[k].head = an->pn->role == PLAN_ROLE_HEAD;
			k++;
		}
		memset(&ro, 0, sizeof ro);
		ro.cfg = &c->cfg;
		ro.script = c->reboot_script.buf;
		ro.parallel = c->o->reboot_parallel > 0 ? c->o->reboot_parallel :
		    pa->reboot_parallel > 0 ? pa->reboot_parallel : 8;
		ro.timeout_s = c->o->reboot_timeout_s > 0 ?
		    c->o->reboot_timeout_s : pa->reboot_timeout_s > 0 ?
		    pa->reboot_timeout_s : 900;
		ro.interrupted = c->o->interrupted;
		ro.event = apply_reboot_event;
		ro.event_arg = c;
		r = reboot_run(rn, k, &ro, err);
		for (i = 0; i < k; i++) {
			struct apply_node	*an = who[i];

			if (r != 0)
				break;
			an->reboot_due = 0;
			if (rn[i].res == REBOOT_FAILED) {
				state_set(c->st, an->pn->name, "reboot",
				    STATE_FAILED, rn[i].msg, rn[i].elapsed);
				apply_fail_node(c, an, STATE_FAILED);
				continue;
			}
			msg = xasprintf("for step %s (%s)%s%s",
			    an->reboot_step->name, an->reboot_why,
			    rn[i].msg != NULL ? ": " : "",
			    rn[i].msg != NULL ? rn[i].msg : "");
			state_set(c->st, an->pn->name, "reboot", STATE_CHANGED,
			    msg, rn[i].elapsed);
			free(msg);
			c->sum->reboots++;
			apply_requeue(an);
		}
		for (i = 0; i < k; i++)
			free(rn[i].msg);
		free(rn);
		free(who);
		apply_save(c, 1);
		if (r != 0)
			return -1;
		/* only the nodes back from this round have steps left */
		for (i = 0; i < c->n; i++) {
			if (!c->nodes[i].requeued)
				c->nodes[i].nqueue = 0;
			c->nodes[i].requeued = 0;
		}
		if (apply_pool_renew(c, err) != 0 ||
		    apply_wave(c, AJ_RUN, err) != 0)
			return -1;
	}
}

/*
 * What every rendering of a step gets from the options, in one place: a
 * field set for the dry run alone (the relay's "served" flag once) makes
 * a real run render a different script.
 */
static void
apply_rin_init(struct render_in *rin, const struct plan *p,
    const struct apply_opts *o)
{
	memset(rin, 0, sizeof *rin);
	rin->plan = p;
	rin->templates = o->templates;
	rin->apt_repo = o->apt_repo;
	rin->apt_release = o->apt_release;
	rin->apt_served = o->apt_served;
	rin->images_sha256 = o->images_sha256;
}

static int
apply_dry_run(const struct plan *p, const struct apply_opts *o,
    struct plan_node **sel, size_t nsel, struct prov_err *err)
{
	struct render_in	 rin;
	const struct apply_step	*steps[APPLY_MAX_STEPS];
	size_t			 i, k, ns;
	int			 r = 0;

	apply_rin_init(&rin, p, o);
	for (i = 0; i < nsel && r == 0; i++) {
		char	*dir = xasprintf("%s/%s", o->dry_run_dir, sel[i]->name);

		/* scripts someone may run as root: nobody else writes them */
		if (fs_mkdirs(dir, 0755, err) != 0)
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

/*
 * The run's state ("running"), its folders (this user's alone,
 * docs/reliability.md), the secrets to redact, the rendering inputs and
 * the owner written into node locks.
 */
static int
apply_begin(struct apply_ctx *c, struct prov_err *err)
{
	const struct apply_opts	*o = c->o;
	char			*dir;
	int			 r;

	if (state_open(&c->st, o->state_path, err) != 0)
		return -1;
	free(c->st->run_id);
	c->st->run_id = xstrdup(o->run_id);
	free(c->st->status);
	c->st->status = xstrdup("running");
	if (o->run_dir != NULL) {
		dir = xasprintf("%s/logs", o->run_dir);
		r = fs_mkdirs(dir, 0700, err);
		free(dir);
		if (r != 0)
			return -1;
		dir = xasprintf("%s/facts", o->run_dir);
		r = fs_mkdirs(dir, 0700, err);
		free(dir);
		if (r != 0)
			return -1;
	}
	apply_known_secrets(c);
	if (apply_plan_secret(c, err) != 0)
		return -1;
	c->info = xcalloc(c->p->nnodes + 1, sizeof *c->info);
	apply_rin_init(&c->rin, c->p, o);
	c->rin.info = c->info;
	c->rin.lib_call = "pv_lib";
	c->rin.vars_call = "pv_vars";
	if (apply_lib_def(c, err) != 0)
		return -1;
	if (gethostname(c->hostname, sizeof c->hostname) != 0)
		snprintf(c->hostname, sizeof c->hostname, "unknown");
	c->hostname[sizeof c->hostname - 1] = '\0';
	snprintf(c->owner, sizeof c->owner, "run=%s host=%s pid=%ld since=%lld",
	    o->run_id, c->hostname, (long)getpid(), (long long)time(NULL));
	return 0;
}

/*
 * The selected nodes, and the head when workers need its values though
 * it is not selected; their hosts for the pool and their logs.
 */
static void
apply_nodes_new(struct apply_ctx *c, struct plan_node **sel, size_t nsel,
    const struct plan_node *head)
{
	size_t	i;
	int	head_in = 0;

	for (i = 0; i < nsel; i++)
		if (sel[i] == head)
			head_in = 1;
	c->n = nsel + (!head_in && head != NULL);
	c->nodes = xcalloc(c->n + 1, sizeof *c->nodes);
	c->hosts = xcalloc(c->n + 1, sizeof *c->hosts);
	for (i = 0; i < c->n; i++) {
		struct apply_node	*an = &c->nodes[i];
		const struct apply_step	*steps[APPLY_MAX_STEPS];

		an->pn = i < nsel ? sel[i] : head;
		an->pi = (size_t)(an->pn - c->p->nodes);
		an->selected = i < nsel;
		an->in = (struct buf)BUF_INIT;
		an->job = (struct ssh_job)SSH_JOB_INIT;
		an->nsteps = apply_steps_for(c->p, an->pn, steps,
		    APPLY_MAX_STEPS);
		c->hosts[i].name = an->pn->name;
		c->hosts[i].addr = an->pn->address;
		if (c->o->run_dir != NULL && an->selected) {
			char	*path = xasprintf("%s/logs/%s.log",
			    c->o->run_dir, an->pn->name);

			an->log = apply_log_open(path);
			free(path);
		}
	}
	c->nhosts = c->n;
}

/*
 * Segments of steps between head-first steps.  The first wave also
 * locks every node and gathers the facts, even where it has no step.
 */
static int
apply_segments(struct apply_ctx *c, const struct plan_node *head,
    struct prov_err *err)
{
	size_t	i, s, seg = 0;

	c->first = 1;
	for (s = 0;; s++) {
		const struct apply_step	*st = &apply_steps[s];

		if (st->name != NULL && (!(st->flags & APPLY_HEAD_FIRST) ||
		    !apply_step_runs(c, st)))
			continue;
		/* steps [seg, s) run as one wave, nodes independently */
		if ((apply_fill(c, seg, s, 0, seg > 0 &&
		    (apply_steps[seg].flags & APPLY_HEAD_FIRST)) > 0 ||
		    c->first) && apply_wave(c, AJ_RUN, err) != 0)
			return -1;
		c->first = 0;
		if (apply_reboots(c, err) != 0)
			return -1;
		if (st->name == NULL || c->stop)
			return 0;
		/* the head-first step on the head, then fetch its value */
		c->hf = st;
		c->hf_failed = 0;
		c->have_secret = 0;
		buf_release_secret(&c->secret);
		if (apply_fill(c, s, s + 1, 1, 0) > 0 &&
		    (apply_wave(c, AJ_RUN, err) != 0 ||
		    apply_reboots(c, err) != 0))
			return -1;
		if (st->flags & (APPLY_RELAY_FIRST | APPLY_STORAGE_FIRST))
			c->hf_failed = apply_first_failed(c, st);
		if (st->secret != NULL && head != NULL &&
		    st->wanted(c->p, head)) {
			for (i = 0; i < c->n; i++)
				c->nodes[i].wave_job = c->nodes[i].pn == head &&
				    !c->nodes[i].dead;
			if (apply_wave(c, AJ_FETCH, err) != 0)
				return -1;
		}
		seg = s;
	}
}

/* Unlocks what a stop left locked, counts the nodes, saves the state. */
static int
apply_end(struct apply_ctx *c, struct prov_err *err)
{
	struct apply_summary	*sum = c->sum;
	size_t			 i;

	c->stop = 0;
	c->unlock_only = 1;
	for (i = 0; i < c->n; i++)
		c->nodes[i].nqueue = 0;
	if (apply_wave(c, AJ_RUN, err) != 0)
		return -1;
	for (i = 0; i < c->n; i++) {
		struct apply_node	*an = &c->nodes[i];

		if (!an->selected)
			continue;
		if (an->held)
			sum->nodes_reboot++;
		else if (an->dead)
			sum->nodes_failed++;
		else
			sum->nodes_ok++;
	}
	sum->interrupted = c->o->interrupted != NULL && *c->o->interrupted;
	free(c->st->status);
	c->st->status = xstrdup(sum->interrupted ? "interrupted" :
	    sum->stopped_max_fail ? "stopped" : sum->nodes_failed ? "failed" :
	    sum->nodes_reboot ? "reboot-pending" :
	    "done");
	return state_save(c->st, err);
}

static void
apply_ctx_release(struct apply_ctx *c)
{
	size_t	i;

	if (c->pool != NULL) {
		ssh_pool_close(c->pool);
		ssh_pool_free(c->pool);
	}
	for (i = 0; i < c->n; i++) {
		apply_job_reset(&c->nodes[i]);
		free(c->nodes[i].reboot_why);
		if (c->nodes[i].log != NULL)
			fclose(c->nodes[i].log);
	}
	buf_release_secret(&c->secret);
	buf_release_secret(&c->plan_secret);
	redact_release(&c->red);
	buf_release(&c->lib_def);
	buf_release(&c->reboot_script);
	prov_err_release(&c->save_err);
	free(c->nodes);
	free(c->info);
	free(c->hosts);
	state_free(c->st);
}

int
apply_run(struct apply_summary *sum, const struct plan *p,
    const struct apply_opts *o, struct prov_err *err)
{
	struct apply_ctx	 c;
	struct plan_node	**sel = NULL;
	const struct plan_node	*head = render_head(p);
	size_t			 nsel = 0;
	int			 r = -1;

	memset(sum, 0, sizeof *sum);
	memset(&c, 0, sizeof c);
	c.secret = (struct buf)BUF_INIT;
	c.plan_secret = (struct buf)BUF_INIT;
	c.lib_def = (struct buf)BUF_INIT;
	c.reboot_script = (struct buf)BUF_INIT;
	c.cfg = (struct ssh_config)SSH_CONFIG_INIT;
	c.p = p;
	c.o = o;
	c.sum = sum;
	if (plan_select(&sel, &nsel, p, o->nodes, err) != 0)
		return -1;
	if (nsel == 0) {
		prov_err_set(err, PROV_E_USAGE, "no nodes selected");
		goto out;
	}
	if (apply_relay_check(p, err) != 0 ||
	    apply_directory_check(p, err) != 0)
		goto out;
	if (o->dry_run_dir != NULL) {
		r = apply_dry_run(p, o, sel, nsel, err);
		sum->nodes = nsel;
		goto out;
	}
	if (apply_begin(&c, err) != 0)
		goto out;
	apply_nodes_new(&c, sel, nsel, head);
	sum->nodes = nsel;
	ssh_config_from_plan(&c.cfg, &p->ssh);
	if (o->forks > 0)
		c.cfg.forks = o->forks;
	c.cfg.passphrase = o->passphrase;
	c.cfg.keep_open = 1;
	if (ssh_pool_new(&c.pool, &c.cfg, c.hosts, c.nhosts, err) != 0)
		goto out;
	apply_plan_nodes(&c);
	/* "running" on disk before anything runs: a kill leaves a true file */
	apply_save(&c, 1);
	if (apply_segments(&c, head, err) != 0 || apply_end(&c, err) != 0)
		goto out;
	r = 0;
out:
	apply_ctx_release(&c);
	free(sel);
	return r;
}

/*
 * apply.c: `provision apply PLAN` (and plain `provision PLAN`): install
 * every node of the plan over SSH, idempotently, in parallel, resumable.
 *
 * The engine is lib/apply.c; this file picks the state and run folders,
 * shows progress (a live line per node on a terminal, one line per event
 * in a pipe or with --plain), handles SIGINT/SIGTERM (stop starting new
 * steps, finish the running ones, save; a second signal ends at once,
 * the state file being valid at every moment) and prints the summary.
 *
 * With --bundle FILE the nodes install from an offline bundle alone
 * (lib/offline.c): it is verified (signed by the key the plan pins in
 * offline.bundle_key, or accepted with --insecure-unsigned), its
 * repository (and, where a container engine runs, its images) copied to
 * the nodes that lack it, and apply runs on the nodes that have it.
 * With a package relay in the plan the bundle goes to the relay node
 * alone, which serves it to the others.
 */
#include "compat.h"

#include <signal.h>
#include <sys/stat.h>
#include <time.h>

#include "apply.h"
#include "buf.h"
#include "bundle.h"
#include "cmd.h"
#include "fs.h"
#include "hostlist.h"
#include "offline.h"
#include "render.h"
#include "sig.h"
#include "state.h"

struct apply_cmd_opts {
	int		 resume;
	const char	*dry_run;
	const char	*nodes;
	long		 forks;
	long		 max_fail;
	int		 plain;
	int		 verbose;
	const char	*state_dir;
	const char	*templates;
	const char	*step;
	int		 break_lock;
	const char	*bundle;
	int		 no_reboot;
	long		 reboot_parallel;
	int		 insecure_unsigned;
};

static const struct opt_spec apply_opts_spec[] = {
	{ "resume", 0, OPT_BOOL, offsetof(struct apply_cmd_opts, resume), NULL,
	  "run only the steps not yet ok, changed or skipped" },
	{ "dry-run", 0, OPT_STR, offsetof(struct apply_cmd_opts, dry_run), "DIR",
	  "render every node's scripts into DIR; connect to nothing" },
	{ "nodes", 'n', OPT_STR, offsetof(struct apply_cmd_opts, nodes),
	  "NODESET", "only these nodes (hostlist); the others are left alone" },
	{ "forks", 'f', OPT_LONG, offsetof(struct apply_cmd_opts, forks), "N",
	  "nodes at once (default: the plan's ssh.forks)" },
	{ "max-fail", 0, OPT_LONG, offsetof(struct apply_cmd_opts, max_fail),
	  "N", "stop starting steps once more than N nodes failed" },
	{ "plain", 0, OPT_BOOL, offsetof(struct apply_cmd_opts, plain), NULL,
	  "one line per event, also on a terminal" },
	{ "verbose", 'v', OPT_BOOL, offsetof(struct apply_cmd_opts, verbose),
	  NULL, "show the steps' output as it comes (prefixed by node)" },
	{ "state-dir", 0, OPT_STR, offsetof(struct apply_cmd_opts, state_dir),
	  "DIR", "state and run folders (default: .provision/CLUSTER beside "
	  "the plan)" },
	{ "templates", 0, OPT_STR, offsetof(struct apply_cmd_opts, templates),
	  "DIR", "step templates (default: the installed templates/)" },
	{ "step", 0, OPT_STR, offsetof(struct apply_cmd_opts, step), "NAME",
	  "run only this step" },
	{ "break-lock", 0, OPT_BOOL, offsetof(struct apply_cmd_opts, break_lock),
	  NULL, "take over node locks left by an apply that died elsewhere" },
	{ "no-reboot", 0, OPT_BOOL, offsetof(struct apply_cmd_opts, no_reboot),
	  NULL, "never reboot: a node that needs it stops there, and is "
	  "listed" },
	{ "reboot-parallel", 0, OPT_LONG, offsetof(struct apply_cmd_opts,
	  reboot_parallel), "K", "reboot at most K nodes at once (default: "
	  "the plan's apply.reboot_parallel, 8); heads one at a time, last" },
	{ "bundle", 0, OPT_STR, offsetof(struct apply_cmd_opts, bundle), "FILE",
	  "install from this offline bundle alone, never from the network "
	  "(docs/bundle.md)" },
	{ "insecure-unsigned", 0, OPT_BOOL,
	  offsetof(struct apply_cmd_opts, insecure_unsigned), NULL,
	  "--bundle: accept a bundle that no key pinned in the plan signed" },
	{ NULL, 0, OPT_END, 0, NULL, NULL }
};

static void
apply_cmd_opts_init(void *p)
{
	struct apply_cmd_opts	*o = p;

	o->max_fail = -1;
}

static int cmd_apply_exec(struct cmd_ctx *, void *, int, char **);

const struct cmd_entry cmd_apply_entry = {
	.name = "apply",
	.usage = "[--resume] [-n NODESET] [--bundle FILE] [--dry-run DIR] "
	    "[--plain] PLAN",
	.summary = "install the plan on its nodes over SSH: base, GPU driver, "
	    "container runtime, Slurm or Kubernetes, monitoring",
	.opts = apply_opts_spec,
	.opts_size = sizeof(struct apply_cmd_opts),
	.opts_init = apply_cmd_opts_init,
	.flags = CMD_LOADS_PLAN,
	.exec = cmd_apply_exec,
};

/*
 * Set from the signal handler, read by the engine between steps.  The one
 * mutable static here: a signal handler has no other way to talk.
 */
static volatile sig_atomic_t apply_interrupted;

static void
apply_on_signal(int sig)
{
	if (apply_interrupted) {
		signal(sig, SIG_DFL);
		raise(sig);
		return;
	}
	apply_interrupted = 1;
}

struct apply_view {
	struct cmd_ctx	*ctx;
	int		 live;
	int		 verbose;
	size_t		 n;
	char		**names;
	char		**line;		/* per node: what the live view shows */
	size_t		 drawn;
	time_t		 t0;
};

static size_t
apply_view_index(struct apply_view *v, const char *node)
{
	size_t	i;

	for (i = 0; i < v->n; i++)
		if (strcmp(v->names[i], node) == 0)
			return i;
	return SIZE_MAX;
}

static void
apply_view_draw(struct apply_view *v)
{
	size_t	i;
	FILE	*fp = v->ctx->out;

	if (v->drawn > 0)
		fprintf(fp, "\033[%zuA", v->drawn);
	for (i = 0; i < v->n; i++)
		fprintf(fp, "\033[2K%s\n", v->line[i] != NULL ? v->line[i] : "");
	v->drawn = v->n;
	fflush(fp);
}

static void
apply_view_bar(char *bar, size_t w, size_t done, size_t total)
{
	size_t	i, k = total > 0 ? done * w / total : w;

	for (i = 0; i < w; i++)
		bar[i] = i < k ? '#' : '.';
	bar[w] = '\0';
}

static void
apply_view_event(void *arg, const struct apply_event *ev)
{
	struct apply_view	*v = arg;
	FILE			*fp = v->ctx->out;
	char			 ts[16], bar[21];
	time_t			 now = time(NULL);
	struct tm		 tm;
	size_t			 i;

	localtime_r(&now, &tm);
	strftime(ts, sizeof ts, "%H:%M:%S", &tm);
	if (ev->kind == APPLY_EV_OUTPUT) {
		struct buf	vis = BUF_INIT;

		if (!v->verbose || v->live)
			return;
		/* Line-prefixed, as it arrives; a node's escapes shown, not
		   obeyed by this terminal. */
		buf_add_visible(&vis, ev->data, ev->len, "\n\t");
		fprintf(fp, "%s: ", ev->node);
		for (i = 0; i < vis.len; i++) {
			fputc(vis.buf[i], fp);
			if (vis.buf[i] == '\n' && i + 1 < vis.len)
				fprintf(fp, "%s: ", ev->node);
		}
		if (vis.len > 0 && vis.buf[vis.len - 1] != '\n')
			fputc('\n', fp);
		buf_release(&vis);
		return;
	}
	if (ev->kind == APPLY_EV_NOTE) {
		if (v->live && v->drawn > 0) {
			fprintf(fp, "\033[%zuA\033[J", v->drawn);
			v->drawn = 0;
		}
		fprintf(v->ctx->err, "%s%s%s\n", ev->node != NULL ? ev->node : "",
		    ev->node != NULL ? ": " : "", ev->msg);
		if (v->live)
			apply_view_draw(v);
		return;
	}
	if (!v->live) {
		if (ev->kind == APPLY_EV_START)
			return;
		fprintf(fp, "%s %-12s %-18s %s", ts, ev->node, ev->step,
		    state_res_name(ev->res));
		if (ev->msg != NULL)
			fprintf(fp, ": %s", ev->msg);
		fprintf(fp, " (%.1f s)\n", ev->elapsed);
		fflush(fp);
		return;
	}
	if ((i = apply_view_index(v, ev->node)) == SIZE_MAX)
		return;
	free(v->line[i]);
	apply_view_bar(bar, 20, ev->stepno, ev->nsteps);
	if (ev->kind == APPLY_EV_START)
		v->line[i] = xasprintf("%-12s [%s] %zu/%zu %-18s %lds",
		    ev->node, bar, ev->stepno, ev->nsteps, ev->step,
		    (long)(now - v->t0));
	else
		v->line[i] = xasprintf("%-12s [%s] %zu/%zu %-18s %s%s%s",
		    ev->node, bar, ev->stepno, ev->nsteps, ev->step,
		    state_res_name(ev->res), ev->msg != NULL &&
		    ev->res == STATE_FAILED ? ": " : "",
		    ev->msg != NULL && ev->res == STATE_FAILED ? ev->msg : "");
	apply_view_draw(v);
}

/*
 * Folders: DIR or .provision/CLUSTER beside the plan; runs/ID inside.
 * Ours alone (0700): the state says what ran where, the run folder keeps
 * every node's output, and another user able to write there could plant
 * links where they are written.
 */
static int
cmd_apply_dirs(struct cmd_ctx *ctx, const struct apply_cmd_opts *o,
    char **state_dir, char **run_id, char **run_dir)
{
	struct prov_err	 err = PROV_ERR_INIT;
	char		 id[64];
	time_t		 now = time(NULL);
	struct tm	 tm;

	gmtime_r(&now, &tm);
	strftime(id, sizeof id, "%Y%m%dT%H%M%SZ", &tm);
	*run_id = xasprintf("%s-%ld", id, (long)getpid());
	*state_dir = o->state_dir != NULL ? xstrdup(o->state_dir) :
	    xasprintf("%s/.provision/%s", ctx->plan->dir, ctx->plan->cluster);
	*run_dir = xasprintf("%s/runs/%s", *state_dir, *run_id);
	if (fs_mkdirs(*state_dir, 0700, &err) != 0) {
		cmd_error(ctx, &err);
		prov_err_release(&err);
		return -1;
	}
	return 0;
}

/* What --bundle leaves for apply_opts (the strings are the caller's). */
struct apply_bundle {
	char	*apt_repo;	/* the repository's folder on the nodes */
	char	*nodes;		/* the nodes that have it when some do not
				   (else NULL: the selection stands) */
	char	 release[OFFLINE_SHA256_HEX];
	char	 images_sha256[OFFLINE_SHA256_HEX];	/* "": no images */
	int	 served;	/* on the relay alone, served to the others */
	size_t	 lost;		/* nodes it could not reach */
};


/*
 * --bundle: verify the bundle and, unless `dry_run`, copy its repository
 * to the relay node or to the selected nodes that lack it (see above).
 * Returns 0 with `out` filled, or -1 (reported) when apply must not run.
 */
static int
cmd_apply_bundle(struct cmd_ctx *ctx, const struct apply_cmd_opts *o,
    const char *workdir, int dry_run, struct apply_bundle *out)
{
	struct offline_bundle	 ob = OFFLINE_BUNDLE_INIT;
	struct offline_push	 push = OFFLINE_PUSH_INIT;
	struct offline_opts	 oo = OFFLINE_OPTS_INIT;
	struct bundle_trust	 trust = { NULL, 0 };
	struct sig_key		*pin = NULL;
	struct prov_err		 err = PROV_ERR_INIT;
	const struct plan_node	*relay;
	const char		**ok = NULL;
	size_t			 i, k = 0;
	int			 r = -1;

	memset(out, 0, sizeof *out);
	if (ctx->plan->offline.bundle_key != NULL &&
	    sig_key_load(&pin, ctx->plan->offline.bundle_key, SIG_PUBLIC,
	    &err) != 0) {
		prov_err_prefix(&err, "offline.bundle_key: ");
		cmd_error(ctx, &err);
		goto out;
	}
	trust.pinned = pin;
	trust.insecure_unsigned = o->insecure_unsigned;
	if (offline_prepare(&ob, o->bundle, workdir, &trust, &err) != 0) {
		cmd_error(ctx, &err);
		for (i = 1; i < ob.problems.n; i++)
			cmd_errorf(ctx, "bad: %s", ob.problems.v[i]);
		goto out;
	}
	if (offline_check_plan(&ob, ctx->plan, &err) != 0) {
		prov_err_prefix(&err, "%s: ", o->bundle);
		cmd_error(ctx, &err);
		goto out;
	}
	fprintf(ctx->out, "bundle %s: %s\n", ob.id, ob.trust);
	fprintf(ctx->out, "bundle %s: %s verified, %zu packages", ob.id,
	    o->bundle, ob.debs);
	if (ob.nimages > 0)
		fprintf(ctx->out, ", %zu image%s", ob.nimages,
		    ob.nimages == 1 ? "" : "s");
	fputc('\n', ctx->out);
	memcpy(out->release, ob.release_sha256, sizeof out->release);
	memcpy(out->images_sha256, ob.images_sha256,
	    sizeof out->images_sha256);
	/*
	 * With a package relay in the plan the bundle, images included, goes
	 * to the relay node alone, which serves it to the others: the
	 * workstation sends it once, whatever the node count.
	 */
	relay = render_relay(ctx->plan);
	out->served = relay != NULL;
	if (dry_run) {
		out->apt_repo = xstrdup(ob.dir);
		r = 0;
		goto out;
	}
	oo.nodes = relay != NULL ? relay->name : o->nodes;
	oo.forks = o->forks;
	if (ctx->plan->ssh.passphrase_env != NULL)
		oo.passphrase = getenv(ctx->plan->ssh.passphrase_env);
	if (offline_push_run(&push, ctx->plan, &ob, &oo, &err) != 0) {
		cmd_error(ctx, &err);
		goto out;
	}
	ok = xcalloc(push.n + 1, sizeof *ok);
	for (i = 0; i < push.n; i++) {
		if (OFFLINE_NODE_OK(&push.nodes[i])) {
			ok[k++] = push.nodes[i].name;
			continue;
		}
		cmd_errorf(ctx, "%s: bundle not copied, left out of this "
		    "run: %s", push.nodes[i].name,
		    push.nodes[i].msg != NULL ? push.nodes[i].msg :
		    "no detail");
	}
	fprintf(ctx->out, "bundle %s on %zu node%s%s%s%s: %zu sent, %zu "
	    "already there%s", ob.id, push.n, push.n == 1 ? "" : "s",
	    relay != NULL ? " (the relay " : "",
	    relay != NULL ? relay->name : "",
	    relay != NULL ? ", which serves it to the others)" : "",
	    push.sent, push.present, push.failed > 0 ? "" : "\n");
	if (push.failed > 0)
		fprintf(ctx->out, ", %zu failed\n", push.failed);
	if (push.images_sent + push.images_present + push.images_failed > 0)
		fprintf(ctx->out, "bundle %s images (%zu) on %zu node%s: %zu "
		    "sent, %zu already there%s", ob.id, ob.nimages,
		    push.images_sent + push.images_present + push.images_failed,
		    push.images_sent + push.images_present +
		    push.images_failed == 1 ? "" : "s", push.images_sent,
		    push.images_present, push.images_failed > 0 ? "" : "\n");
	if (push.images_failed > 0)
		fprintf(ctx->out, ", %zu failed\n", push.images_failed);
	if (k == 0) {
		cmd_errorf(ctx, relay != NULL ? "the relay has no bundle: "
		    "nothing to apply" : "no node has the bundle: nothing to "
		    "apply");
		goto out;
	}
	/* served: every selected node reads it from the relay */
	if (relay == NULL) {
		out->lost = push.n - k;
		if (push.failed > 0)
			out->nodes = hostlist_fold(ok, k);
	}
	out->apt_repo = xstrdup(ob.dir);
	r = 0;
out:
	free(ok);
	sig_key_free(pin);
	offline_push_release(&push);
	offline_bundle_release(&ob);
	prov_err_release(&err);
	return r;
}

/* apply_opts from --bundle's result. */
static void
cmd_apply_bundle_opts(struct apply_opts *ao, const struct apply_bundle *ab)
{
	ao->apt_repo = ab->apt_repo;
	ao->apt_release = ab->release[0] != '\0' ? ab->release : NULL;
	ao->apt_served = ab->served;
	ao->images_sha256 = ab->images_sha256[0] != '\0' ? ab->images_sha256 :
	    NULL;
	if (ab->nodes != NULL)
		ao->nodes = ab->nodes;
}

/* The nodes that stopped before a reboot (--no-reboot), with the reason. */
static void
cmd_apply_held(struct cmd_ctx *ctx, const char *state_path, size_t nheld)
{
	struct state	*st = NULL;
	struct prov_err	 err = PROV_ERR_INIT;
	size_t		 i, j, n = 0;

	if (state_open(&st, state_path, &err) != 0) {
		cmd_error(ctx, &err);
		prov_err_release(&err);
		return;
	}
	for (i = 0; i < st->n; i++)
		for (j = 0; j < st->nodes[i].n; j++) {
			const struct state_step	*s = &st->nodes[i].steps[j];

			if (strcmp(s->name, "reboot") != 0 ||
			    s->res != STATE_PENDING)
				continue;
			if (n++ == 0)
				fprintf(ctx->out, "%zu node%s stopped: a reboot "
				    "is due; apply --resume reboots %s and "
				    "goes on (or reboot by hand first)\n",
				    nheld, nheld == 1 ? "" : "s", nheld == 1 ?
				    "it" : "them");
			fprintf(ctx->out, "  %-12s %s\n", st->nodes[i].name,
			    s->msg != NULL ? s->msg : "");
		}
	state_free(st);
}

/* --dry-run DIR: every node's scripts rendered, nothing connected. */
static int
cmd_apply_dry_run(struct cmd_ctx *ctx, const struct apply_cmd_opts *o,
    struct apply_opts *ao)
{
	struct apply_summary	 sum;
	struct prov_err		 err = PROV_ERR_INIT;
	struct apply_bundle	 ab;
	int			 r = PROV_EXIT_FAIL;

	memset(&ab, 0, sizeof ab);
	if (o->bundle != NULL) {
		if (cmd_apply_bundle(ctx, o, NULL, 1, &ab) != 0)
			goto out;
		cmd_apply_bundle_opts(ao, &ab);
	}
	ao->dry_run_dir = o->dry_run;
	ao->run_id = "dry-run";
	if (apply_run(&sum, ctx->plan, ao, &err) != 0) {
		cmd_error(ctx, &err);
		goto out;
	}
	fprintf(ctx->out, "rendered the scripts of %zu nodes into %s\n",
	    sum.nodes, o->dry_run);
	r = 0;
out:
	prov_err_release(&err);
	free(ab.apt_repo);
	free(ab.nodes);
	return r;
}

/* One line per node on a terminal, else one line per event. */
static void
cmd_apply_view_init(struct apply_view *view, struct cmd_ctx *ctx,
    const struct apply_cmd_opts *o)
{
	size_t	i;

	memset(view, 0, sizeof *view);
	view->ctx = ctx;
	view->live = ctx->tty && !o->plain && !o->verbose &&
	    ctx->plan->nnodes <= 60;
	view->verbose = o->verbose;
	view->t0 = time(NULL);
	view->n = ctx->plan->nnodes;
	view->names = xcalloc(view->n + 1, sizeof *view->names);
	view->line = xcalloc(view->n + 1, sizeof *view->line);
	for (i = 0; i < view->n; i++)
		view->names[i] = (char *)ctx->plan->nodes[i].name;
}

static void
cmd_apply_view_release(struct apply_view *view)
{
	size_t	i;

	for (i = 0; i < view->n; i++)
		free(view->line[i]);
	free(view->line);
	free(view->names);
}

/* The closing lines; the exit code. */
static int
cmd_apply_summary(struct cmd_ctx *ctx, const struct apply_summary *sum,
    const char *state_path, size_t lost)
{
	fprintf(ctx->out, "\n%zu nodes: %zu ok, %zu failed (%zu unreachable); "
	    "steps: %zu ok, %zu changed, %zu skipped, %zu failed%s\n",
	    sum->nodes, sum->nodes_ok, sum->nodes_failed,
	    sum->nodes_unreachable, sum->ok, sum->changed, sum->skipped,
	    sum->failed,
	    sum->interrupted ? " (interrupted: run again with --resume)" :
	    sum->stopped_max_fail ? " (stopped: --max-fail reached)" : "");
	if (sum->reboots > 0)
		fprintf(ctx->out, "%zu node%s rebooted\n", sum->reboots,
		    sum->reboots == 1 ? "" : "s");
	if (sum->nodes_reboot > 0)
		cmd_apply_held(ctx, state_path, sum->nodes_reboot);
	fprintf(ctx->out, "state: %s\n", state_path);
	return sum->nodes_failed > 0 || sum->nodes_reboot > 0 || lost > 0 ||
	    sum->interrupted || sum->stopped_max_fail ? PROV_EXIT_FAIL :
	    PROV_EXIT_OK;
}

static int
cmd_apply_exec(struct cmd_ctx *ctx, void *optsp, int argc, char **argv)
{
	struct apply_cmd_opts	*o = optsp;
	struct apply_opts	 ao;
	struct apply_summary	 sum;
	struct apply_view	 view;
	struct prov_err		 err = PROV_ERR_INIT;
	struct sigaction	 sa, old_int, old_term;
	char			*state_dir = NULL, *run_id = NULL, *run_dir = NULL;
	char			*templates = NULL, *state_path = NULL;
	struct apply_bundle	 ab;
	int			 r = PROV_EXIT_FAIL;

	if (argc > 0)
		return cmd_usage_error(ctx, &cmd_apply_entry, "unexpected "
		    "argument '%s'", argv[0]);
	if (o->reboot_parallel < 0 || o->reboot_parallel > 4096)
		return cmd_usage_error(ctx, &cmd_apply_entry, "--reboot-parallel "
		    "must be 1 to 4096");
	memset(&ao, 0, sizeof ao);
	memset(&view, 0, sizeof view);
	memset(&ab, 0, sizeof ab);
	templates = o->templates != NULL ? xstrdup(o->templates) :
	    fs_data_dir("templates", "PROVISION_TEMPLATES");
	ao.templates = templates;
	ao.nodes = o->nodes;
	ao.forks = o->forks;
	ao.max_fail = o->max_fail;
	ao.resume = o->resume;
	ao.only_step = o->step;
	ao.break_lock = o->break_lock;
	ao.no_reboot = o->no_reboot;
	ao.reboot_parallel = o->reboot_parallel;
	ao.interrupted = &apply_interrupted;
	if (o->dry_run != NULL) {
		r = cmd_apply_dry_run(ctx, o, &ao);
		goto out;
	}
	if (cmd_apply_dirs(ctx, o, &state_dir, &run_id, &run_dir) != 0)
		goto out;
	if (o->bundle != NULL) {
		if (cmd_apply_bundle(ctx, o, state_dir, 0, &ab) != 0)
			goto out;
		cmd_apply_bundle_opts(&ao, &ab);
	}
	state_path = xasprintf("%s/state.json", state_dir);
	ao.state_path = state_path;
	ao.run_dir = run_dir;
	ao.run_id = run_id;
	if (ctx->plan->ssh.passphrase_env != NULL)
		ao.passphrase = getenv(ctx->plan->ssh.passphrase_env);
	cmd_apply_view_init(&view, ctx, o);
	ao.event = apply_view_event;
	ao.event_arg = &view;

	memset(&sa, 0, sizeof sa);
	sa.sa_handler = apply_on_signal;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, &old_int);
	sigaction(SIGTERM, &sa, &old_term);
	fprintf(ctx->out, "apply %s: run %s, logs in %s\n", ctx->plan_path,
	    run_id, run_dir);
	if (apply_run(&sum, ctx->plan, &ao, &err) != 0) {
		cmd_error(ctx, &err);
		/* a broken templates folder, no node selected: nothing ran */
		if (err.code == PROV_E_USAGE)
			r = PROV_EXIT_USAGE;
	} else
		r = cmd_apply_summary(ctx, &sum, state_path, ab.lost);
	sigaction(SIGINT, &old_int, NULL);
	sigaction(SIGTERM, &old_term, NULL);
out:
	prov_err_release(&err);
	cmd_apply_view_release(&view);
	free(templates);
	free(state_dir);
	free(state_path);
	free(run_id);
	free(run_dir);
	free(ab.apt_repo);
	free(ab.nodes);
	return r;
}

/*
 * verify.c: `provision verify PLAN`: prove that the running cluster is
 * the planned one.
 *
 *	provision verify PLAN [-n NODESET] [--burn-in] [--json]
 *	    [--junit FILE] [-q]
 *
 * Every node answers one script over SSH (lib/verify.c); the head also
 * asks Slurm or Kubernetes about the others and runs a test job on
 * them; Prometheus is read from here.  Each check is a row: node, check,
 * expected, found, verdict, reason.  A check that cannot run is a skip
 * row with its reason, never an ok.
 *
 * Exit 0 when nothing failed, 1 when a check failed, 2 when verify could
 * not run: the plan is unreadable, the options are wrong, or no node
 * answered at all.
 */
#include "compat.h"

#include <errno.h>

#include "buf.h"
#include "cmd.h"
#include "facts.h"
#include "fs.h"
#include "row.h"
#include "verify.h"

struct verify_cmd_opts {
	int		 json;
	int		 quiet;
	int		 burn_in;
	const char	*junit;
	const char	*nodes;
	long		 forks;
	long		 job_timeout;
	long		 timeout;
	const char	*prometheus;
};

static const struct opt_spec verify_opts_spec[] = {
	{ "json", 0, OPT_BOOL, offsetof(struct verify_cmd_opts, json), NULL,
	  "print one JSON object per check, with totals" },
	{ "junit", 0, OPT_STR, offsetof(struct verify_cmd_opts, junit), "FILE",
	  "also write the checks as JUnit XML (for CI) to FILE" },
	{ "quiet", 'q', OPT_BOOL, offsetof(struct verify_cmd_opts, quiet),
	  NULL, "print only warnings, failures and the summary" },
	{ "nodes", 'n', OPT_STR, offsetof(struct verify_cmd_opts, nodes),
	  "NODESET", "only these nodes (hostlist, e.g. gpu[01-04])" },
	{ "burn-in", 0, OPT_BOOL, offsetof(struct verify_cmd_opts, burn_in),
	  NULL, "also run dcgmi diag -r 2, dcgmproftester's GEMM and nccl-tests "
	  "all_reduce_perf; write what they measured for estimate" },
	{ "forks", 0, OPT_LONG, offsetof(struct verify_cmd_opts, forks), "N",
	  "nodes at once (default: the plan's ssh.forks)" },
	{ "job-timeout", 0, OPT_LONG, offsetof(struct verify_cmd_opts,
	  job_timeout), "S", "seconds a Slurm test job may take (default 60)" },
	{ "timeout", 0, OPT_LONG, offsetof(struct verify_cmd_opts, timeout),
	  "S", "seconds per node (default 300, 3600 with --burn-in)" },
	{ "prometheus", 0, OPT_STR, offsetof(struct verify_cmd_opts,
	  prometheus), "URL", "Prometheus to ask (default: http://HOST:9090 "
	  "of the plan's monitoring host)" },
	{ NULL, 0, OPT_END, 0, NULL, NULL }
};

static int cmd_verify_exec(struct cmd_ctx *, void *, int, char **);

const struct cmd_entry cmd_verify_entry = {
	.name = "verify",
	.usage = "[-n NODESET] [--burn-in] [--json] [--junit FILE] [-q] PLAN",
	.summary = "prove the running cluster matches the plan: GPUs, driver, "
	    "ECC, links, fabric, names, time, Slurm/Kubernetes, Prometheus",
	.opts = verify_opts_spec,
	.opts_size = sizeof(struct verify_cmd_opts),
	.flags = CMD_LOADS_PLAN,
	.exec = cmd_verify_exec,
};

/*
 * --burn-in: write what the tools measured to the state folder beside the
 * plan, where estimate reads it; say so, or say why nothing was written.
 */
static void
cmd_verify_measured(struct cmd_ctx *ctx, const struct verify_measured *m,
    FILE *to)
{
	struct prov_err	 err = PROV_ERR_INIT;
	struct buf	 why = BUF_INIT;
	char		*dir = NULL, *path = NULL;
	size_t		 i, t;
	long		 planned = m->planned;

	for (t = 0; t < VERIFY_NGEMM; t++)
		if (m->gemm[t].planned > planned)
			planned = m->gemm[t].planned;
	for (i = 0; i < m->missing.n && i < 3; i++)
		buf_addf(&why, "%s%s", i ? "; " : "", m->missing.v[i]);
	if (m->missing.n > 3)
		buf_addf(&why, "; and %zu more", m->missing.n - 3);
	if (!verify_measured_any(m)) {
		if (planned == 0)
			fprintf(to, "burn-in: the plan gives the nodes verified "
			    "no GPU: nothing to measure\n");
		else
			fprintf(to, "burn-in measured nothing: no measured.json "
			    "written (%s)\n", why.len ? why.buf :
			    "no tool printed a figure");
		goto out;
	}
	dir = xasprintf("%s/.provision/%s", ctx->plan->dir,
	    ctx->plan->cluster);
	path = xasprintf("%s/measured.json", dir);
	if (fs_mkdirs(dir, 0700, &err) != 0 ||
	    verify_measured_write(m, path, &err) != 0) {
		cmd_error(ctx, &err);
		goto out;
	}
	fprintf(to, "burn-in figures written to %s for estimate%s%s%s\n", path,
	    verify_measured_partial(m) ? " (partial: " : "",
	    verify_measured_partial(m) ? (why.len ? why.buf : "fewer GPUs "
	    "than planned") : "", verify_measured_partial(m) ? ")" : "");
out:
	buf_release(&why);
	free(dir);
	free(path);
	prov_err_release(&err);
}

static int
cmd_verify_exec(struct cmd_ctx *ctx, void *optsp, int argc, char **argv)
{
	struct verify_cmd_opts	*o = optsp;
	struct verify_opts	 vo = VERIFY_OPTS_INIT;
	struct verify_stats	 st;
	struct verify_measured	 meas;
	struct rows		 rows = ROWS_INIT;
	struct cmd_rows_view	 view = { "NODE", "CHECK", "FOUND",
				    "EXPECTED", NULL, 0 };
	struct strvec		 notes = STRVEC_INIT;
	struct prov_err		 err = PROV_ERR_INIT;
	struct buf		 b = BUF_INIT;
	size_t			 i, nfail;
	int			 r = PROV_EXIT_USAGE;

	if (argc > 0)
		return cmd_usage_error(ctx, &cmd_verify_entry, "unexpected "
		    "argument '%s'", argv[0]);
	verify_measured_init(&meas);
	vo.burn_in = o->burn_in;
	vo.nodes = o->nodes;
	vo.forks = o->forks;
	if (o->job_timeout > 0)
		vo.job_timeout_s = o->job_timeout;
	vo.command_timeout_s = o->timeout;
	vo.prometheus_url = o->prometheus;
	if (ctx->plan->ssh.passphrase_env != NULL)
		vo.passphrase = getenv(ctx->plan->ssh.passphrase_env);
	if (verify_run(&rows, &st, &meas, ctx->plan, &vo, &notes, &err) !=
	    0) {
		cmd_error(ctx, &err);
		goto out;
	}
	for (i = 0; i < notes.n; i++)
		cmd_errorf(ctx, "%s", notes.v[i]);
	if (o->junit != NULL) {
		rows_to_junit(&b, "provision verify", ctx->plan_path, &rows);
		if (buf_write_file_atomic(o->junit, b.buf, b.len, 0644) != 0) {
			cmd_errorf(ctx, "cannot write "
			    "'%s': %s", o->junit, strerror(errno));
			goto out;
		}
		buf_reset(&b);
	}
	if (o->json) {
		verify_to_json(&b, ctx->plan_path, &rows, &st);
		fwrite(b.buf, 1, b.len, ctx->out);
	} else {
		view.quiet = o->quiet;
		cmd_rows_print(ctx, &rows, &view);
		fprintf(ctx->out, "%zu node%s, %zu answered: %zu ok, %zu warn, "
		    "%zu fail, %zu skip\n", st.nodes, st.nodes == 1 ? "" : "s",
		    st.reached, rows_count(&rows, ROW_OK),
		    rows_count(&rows, ROW_WARN),
		    rows_count(&rows, ROW_FAIL),
		    rows_count(&rows, ROW_SKIP));
	}
	if (o->burn_in && st.reached > 0)
		cmd_verify_measured(ctx, &meas, o->json ? ctx->err : ctx->out);
	nfail = rows_count(&rows, ROW_FAIL);
	if (st.reached == 0) {
		cmd_errorf(ctx, "no node answered");
		r = PROV_EXIT_USAGE;
	} else
		r = nfail > 0 ? PROV_EXIT_FAIL : PROV_EXIT_OK;
out:
	verify_measured_release(&meas);
	buf_release(&b);
	rows_release(&rows);
	strvec_clear(&notes);
	prov_err_release(&err);
	return r;
}

/*
 * report.c: `provision report PLAN -o report.html`: the plan, its checks
 * and the cluster's state as one self-contained HTML page
 * (lib/report.c).
 *
 *	provision report PLAN [-o FILE] [--state FILE] [--verify-json FILE]
 *
 * The checks run as `provision check` runs them.  The apply state comes
 * from --state, or from .provision/CLUSTER/state.json beside the plan
 * when apply left one there; verify results from the output of
 * `provision verify --json` given with --verify-json.  The page is
 * written atomically.  Exit 0 when it was written (failed checks are in
 * the page, not in the exit status), 1 when it could not be, 2 when the
 * plan or an input file cannot be read.
 */
#include "compat.h"

#include <errno.h>
#include <time.h>
#include <unistd.h>

#include "buf.h"
#include "check.h"
#include "cmd.h"
#include "facts.h"
#include "redfish.h"
#include "report.h"
#include "row.h"
#include "state.h"
#include "usage.h"
#include "verify.h"

struct report_opts {
	const char	*output;
	const char	*state;
	const char	*verify_json;
	const char	*usage_json;
	const char	*power_json;
};

static const struct opt_spec report_opts_spec[] = {
	{ "output", 'o', OPT_STR, offsetof(struct report_opts, output), "FILE",
	  "write the page here (default report.html; - for stdout)" },
	{ "state", 0, OPT_STR, offsetof(struct report_opts, state), "FILE",
	  "apply's state file (default .provision/CLUSTER/state.json beside "
	  "the plan, when there)" },
	{ "verify-json", 0, OPT_STR, offsetof(struct report_opts,
	  verify_json), "FILE", "results of provision verify --json to show" },
	{ "usage-json", 0, OPT_STR, offsetof(struct report_opts, usage_json),
	  "FILE", "what provision usage --json found, as a usage section" },
	{ "power-json", 0, OPT_STR, offsetof(struct report_opts, power_json),
	  "FILE", "what provision bmc PLAN power --json measured, beside the "
	  "planned power bars" },
	{ NULL, 0, OPT_END, 0, NULL, NULL }
};

static int cmd_report_exec(struct cmd_ctx *, void *, int, char **);

const struct cmd_entry cmd_report_entry = {
	.name = "report",
	.usage = "[-o FILE] [--state FILE] [--verify-json FILE] "
	    "[--power-json FILE] [--usage-json FILE] PLAN",
	.summary = "write one self-contained HTML page: rack elevations, "
	    "power and cooling, PSU budgets, PCIe slot maps, checks, apply "
	    "and verify results",
	.opts = report_opts_spec,
	.opts_size = sizeof(struct report_opts),
	.flags = CMD_LOADS_PLAN,
	.exec = cmd_report_exec,
};

static int
cmd_report_exec(struct cmd_ctx *ctx, void *optsp, int argc, char **argv)
{
	struct report_opts	*o = optsp;
	struct report_in	 in = REPORT_IN_INIT;
	struct rows		 cr = ROWS_INIT;
	struct rows		 vrows = ROWS_INIT, urows = ROWS_INIT;
	struct rows		 prows = ROWS_INIT;
	struct prov_err		 err = PROV_ERR_INIT;
	struct state		*st = NULL;
	struct buf		 b = BUF_INIT, vj = BUF_INIT, pj = BUF_INIT, uj = BUF_INIT;
	char			*state_path = NULL, when[64];
	const char		*out = o->output != NULL ? o->output :
				    "report.html";
	time_t			 now = time(NULL);
	struct tm		 tm;
	int			 r = PROV_EXIT_USAGE;

	if (argc > 0)
		return cmd_usage_error(ctx, &cmd_report_entry, "unexpected "
		    "argument '%s'", argv[0]);
	if (check_plan(&cr, ctx->plan, &err) != 0) {
		cmd_error(ctx, &err);
		goto out;
	}
	/* apply's state: given, or the default one when it exists */
	if (o->state != NULL)
		state_path = xstrdup(o->state);
	else {
		state_path = xasprintf("%s/.provision/%s/state.json",
		    ctx->plan->dir, ctx->plan->cluster);
		if (access(state_path, R_OK) != 0) {
			free(state_path);
			state_path = NULL;
		}
	}
	if (state_path != NULL) {
		if (o->state != NULL && access(state_path, R_OK) != 0) {
			cmd_errorf(ctx, "cannot read '%s': "
			    "%s", state_path, strerror(errno));
			goto out;
		}
		if (state_open(&st, state_path, &err) != 0) {
			cmd_error(ctx, &err);
			goto out;
		}
	}
	if (o->verify_json != NULL) {
		if (buf_read_file(&vj, o->verify_json) != 0) {
			cmd_errorf(ctx, "cannot read '%s': "
			    "%s", o->verify_json, strerror(errno));
			goto out;
		}
		if (verify_from_json(&vrows, o->verify_json, vj.buf, vj.len,
		    &err) != 0) {
			cmd_error(ctx, &err);
			goto out;
		}
	}
	if (o->usage_json != NULL) {
		if (buf_read_file(&uj, o->usage_json) != 0) {
			cmd_errorf(ctx, "cannot read '%s': %s", o->usage_json,
			    strerror(errno));
			goto out;
		}
		if (usage_from_json(&urows, o->usage_json, uj.buf, uj.len,
		    &err) != 0) {
			cmd_error(ctx, &err);
			goto out;
		}
	}
	if (o->power_json != NULL) {
		if (buf_read_file(&pj, o->power_json) != 0) {
			cmd_errorf(ctx, "cannot read '%s': %s", o->power_json,
			    strerror(errno));
			goto out;
		}
		if (redfish_power_from_json(&prows, o->power_json, pj.buf,
		    pj.len, &err) != 0) {
			cmd_error(ctx, &err);
			goto out;
		}
	}
	gmtime_r(&now, &tm);
	strftime(when, sizeof when, "%Y-%m-%d %H:%M UTC", &tm);
	in.plan = ctx->plan;
	in.checks = &cr;
	in.state = st;
	in.state_path = state_path;
	in.verify = o->verify_json != NULL ? &vrows : NULL;
	in.verify_path = o->verify_json;
	in.power = o->power_json != NULL ? &prows : NULL;
	in.power_path = o->power_json;
	in.usage = o->usage_json != NULL ? &urows : NULL;
	in.usage_path = o->usage_json;
	in.generated = when;
	report_html(&b, &in);
	if (strcmp(out, "-") == 0)
		fwrite(b.buf, 1, b.len, ctx->out);
	else if (buf_write_file_atomic(out, b.buf, b.len, 0644) != 0) {
		cmd_errorf(ctx, "cannot write '%s': %s",
		    out, strerror(errno));
		r = PROV_EXIT_FAIL;
		goto out;
	} else
		cmd_errorf(ctx, "%s (%zu bytes): %zu ok, "
		    "%zu warn, %zu fail, %zu skip", out, b.len,
		    rows_count(&cr, ROW_OK), rows_count(&cr, ROW_WARN),
		    rows_count(&cr, ROW_FAIL), rows_count(&cr, ROW_SKIP));
	r = PROV_EXIT_OK;
out:
	buf_release(&b);
	buf_release(&vj);
	buf_release(&uj);
	buf_release(&pj);
	rows_release(&cr);
	rows_release(&vrows);
	rows_release(&urows);
	rows_release(&prows);
	state_free(st);
	free(state_path);
	prov_err_release(&err);
	return r;
}

/*
 * check.c: `provision check PLAN`: can this cluster work, in numbers.
 *
 * Runs every hardware check (lib/check.c) and shows the rows grouped by
 * check: an aligned table on a terminal or in a pipe, `--json` for
 * machines.  Exit 0 when nothing fails, 1 when something fails, 2 when
 * the plan cannot be read (the dispatcher handles that before exec).
 */
#include "compat.h"

#include "buf.h"
#include "check.h"
#include "cmd.h"
#include "json.h"
#include "row.h"

struct check_opts {
	int	 json;
	int	 quiet;
	int	 strict;
};

static const struct opt_spec check_opts_spec[] = {
	{ "json", 0, OPT_BOOL, offsetof(struct check_opts, json), NULL,
	  "print every row as JSON, with totals" },
	{ "quiet", 'q', OPT_BOOL, offsetof(struct check_opts, quiet), NULL,
	  "print only warnings, failures and the summary" },
	{ "strict", 0, OPT_BOOL, offsetof(struct check_opts, strict), NULL,
	  "treat warnings as failures (exit 1)" },
	{ NULL, 0, OPT_END, 0, NULL, NULL }
};

static int cmd_check_exec(struct cmd_ctx *, void *, int, char **);

const struct cmd_entry cmd_check_entry = {
	.name = "check",
	.alias = "validate",
	.usage = "[--json] [-q] [--strict] PLAN",
	.summary = "check PCIe slots, PSU budgets, racks, power, cooling, "
	    "network and memory",
	.opts = check_opts_spec,
	.opts_size = sizeof(struct check_opts),
	.flags = CMD_LOADS_PLAN,
	.exec = cmd_check_exec,
};

static const char *const check_groups[] = { "pcie", "power", "rack",
    "network", "memory", NULL };
static void
cmd_check_json(struct cmd_ctx *ctx, const struct rows *rows)
{
	struct buf		b = BUF_INIT;
	struct json_writer	jw;

	json_init(&jw, &b);
	json_object_begin(&jw, NULL, 0);
	json_str(&jw, "plan", ctx->plan_path);
	rows_to_json(&jw, "rows", rows);
	json_object_begin(&jw, "summary", 0);
	rows_count_json(&jw, rows);
	json_end(&jw);
	json_end(&jw);
	json_finish(&jw);
	fwrite(b.buf, 1, b.len, ctx->out);
	buf_release(&b);
}

static int
cmd_check_exec(struct cmd_ctx *ctx, void *optsp, int argc, char **argv)
{
	struct check_opts	*o = optsp;
	struct rows		 rows = ROWS_INIT;
	struct cmd_rows_view	 view = { "SUBJECT", "CHECK", "MEASURED",
				    "LIMIT", check_groups, 0 };
	struct prov_err		 err = PROV_ERR_INIT;
	size_t			 nok, nwarn, nfail, nskip, shown;
	int			 r;

	if (argc > 0)
		return cmd_usage_error(ctx, &cmd_check_entry, "unexpected "
		    "argument '%s'", argv[0]);
	if (check_plan(&rows, ctx->plan, &err) != 0) {
		cmd_error(ctx, &err);
		prov_err_release(&err);
		rows_release(&rows);
		return PROV_EXIT_USAGE;
	}
	nok = rows_count(&rows, ROW_OK);
	nwarn = rows_count(&rows, ROW_WARN);
	nfail = rows_count(&rows, ROW_FAIL);
	nskip = rows_count(&rows, ROW_SKIP);
	if (o->json)
		cmd_check_json(ctx, &rows);
	else {
		view.quiet = o->quiet;
		shown = cmd_rows_print(ctx, &rows, &view);
		fprintf(ctx->out, "%s%s: %zu ok, %zu warnings, %zu failed, "
		    "%zu skipped: %s\n", shown > 0 ? "\n" : "", ctx->plan_path,
		    nok, nwarn, nfail, nskip, nfail > 0 ? "FAIL" :
		    nwarn > 0 && o->strict ? "FAIL (strict)" : "PASS");
	}
	r = nfail > 0 || (o->strict && nwarn > 0) ? PROV_EXIT_FAIL :
	    PROV_EXIT_OK;
	rows_release(&rows);
	return r;
}

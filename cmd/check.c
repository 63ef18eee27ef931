/*
 * check.c: `provision check PLAN`: can this cluster work, in numbers.
 *
 * Runs every hardware check (lib/check.c) and shows the rows grouped by
 * check: an aligned table on a terminal or in a pipe, `--json` for
 * machines.  Exit 0 when nothing fails, 1 when something fails, 2 when
 * the plan cannot be read (the dispatcher handles that before exec).
 */
#include "compat.h"

#include <math.h>

#include "buf.h"
#include "check.h"
#include "cmd.h"
#include "json.h"

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
	"check", "validate", "[--json] [-q] [--strict] PLAN",
	"check PCIe slots, PSU budgets, racks, power, cooling, network and "
	"memory",
	check_opts_spec, sizeof(struct check_opts), NULL, CMD_LOADS_PLAN,
	cmd_check_exec
};

static const char *const check_groups[] = { "pcie", "power", "rack",
    "network", "memory", NULL };
static const char *const check_labels[4] = { "SUBJECT", "CHECK", "MEASURED",
    "LIMIT" };

void
cmd_check_json_rows(struct json_writer *jw, const struct check_result *res)
{
	size_t	i;

	json_array_begin(jw, "rows", JSON_LINES);
	for (i = 0; i < res->n; i++) {
		const struct check_row	*r = &res->rows[i];

		json_object_begin(jw, NULL, 0);
		json_str(jw, "severity", check_sev_name(r->sev));
		json_str(jw, "group", r->group);
		json_str(jw, "subject", r->subject);
		json_str(jw, "check", r->what);
		json_str(jw, "measured", r->measured);
		json_str(jw, "limit", r->limit);
		json_str(jw, "hint", r->hint);
		json_num(jw, "value", r->value, -1);
		json_num(jw, "max", r->max, -1);
		if (r->loc.line > 0) {
			json_str(jw, "file", r->loc.file);
			json_int(jw, "line", r->loc.line);
			json_int(jw, "col", r->loc.col);
		}
		json_end(jw);
	}
	json_end(jw);
	json_object_begin(jw, "summary", 0);
	json_int(jw, "ok", (long long)res->nok);
	json_int(jw, "warn", (long long)res->nwarn);
	json_int(jw, "fail", (long long)res->nfail);
	json_int(jw, "skip", (long long)res->nskip);
	json_end(jw);
}

static void
cmd_check_json(struct cmd_ctx *ctx, const struct check_result *res)
{
	struct buf		b = BUF_INIT;
	struct json_writer	jw;

	json_init(&jw, &b);
	json_object_begin(&jw, NULL, 0);
	json_str(&jw, "plan", ctx->plan_path);
	cmd_check_json_rows(&jw, res);
	json_end(&jw);
	json_finish(&jw);
	fwrite(b.buf, 1, b.len, ctx->out);
	buf_release(&b);
}

static size_t
cmd_check_width(const char *s)
{
	size_t	n = 0;

	/* Display width: count UTF-8 lead bytes only. */
	for (; s != NULL && *s != '\0'; s++)
		if (((unsigned char)*s & 0xc0) != 0x80)
			n++;
	return n;
}

static void
cmd_check_pad(FILE *fp, const char *s, size_t w)
{
	size_t	n = cmd_check_width(s);

	fputs(s != NULL ? s : "", fp);
	for (; n < w; n++)
		fputc(' ', fp);
}

static const char *
cmd_check_sev_label(const struct cmd_ctx *ctx, enum check_sev s)
{
	if (!ctx->tty)
		return check_sev_name(s);
	switch (s) {
	case CHECK_OK:
		return "\033[32mok\033[0m  ";
	case CHECK_WARN:
		return "\033[33mwarn\033[0m";
	case CHECK_FAIL:
		return "\033[1;31mFAIL\033[0m";
	default:
		return "\033[2mskip\033[0m";
	}
}

size_t
cmd_check_table(struct cmd_ctx *ctx, const char *const *groups,
    const char *const labels[4], int quiet, const struct check_result *res)
{
	size_t	 shown = 0;
	size_t	 wsub = 7, wwhat = 5, wmeas = 8, i, g;
	FILE	*fp = ctx->out;

	for (i = 0; i < res->n; i++) {
		const struct check_row	*r = &res->rows[i];
		size_t			 n;

		if ((n = cmd_check_width(r->subject)) > wsub)
			wsub = n;
		if ((n = cmd_check_width(r->what)) > wwhat)
			wwhat = n;
		if ((n = cmd_check_width(r->measured)) > wmeas)
			wmeas = n;
	}
	if (wmeas > 40)
		wmeas = 40;
	for (g = 0; groups[g] != NULL; g++) {
		int	header = 0;

		for (i = 0; i < res->n; i++) {
			const struct check_row	*r = &res->rows[i];

			if (strcmp(r->group, groups[g]) != 0)
				continue;
			if (quiet && (r->sev == CHECK_OK ||
			    r->sev == CHECK_SKIP))
				continue;
			if (!header) {
				fprintf(fp, "%s%s\n", g > 0 ? "\n" : "",
				    groups[g]);
				fprintf(fp, "  %-4s  ", "");
				cmd_check_pad(fp, labels[0], wsub);
				fputs("  ", fp);
				cmd_check_pad(fp, labels[1], wwhat);
				fputs("  ", fp);
				cmd_check_pad(fp, labels[2], wmeas);
				fprintf(fp, "  %s\n", labels[3]);
				header = 1;
			}
			shown++;
			fprintf(fp, "  %-4s  ", cmd_check_sev_label(ctx, r->sev));
			cmd_check_pad(fp, r->subject, wsub);
			fputs("  ", fp);
			cmd_check_pad(fp, r->what, wwhat);
			fputs("  ", fp);
			cmd_check_pad(fp, r->measured, wmeas);
			fprintf(fp, "  %s\n", r->limit != NULL ? r->limit : "");
			if (r->hint != NULL)
				fprintf(fp, "        %s\n", r->hint);
			if (r->sev == CHECK_FAIL && r->loc.line > 0)
				fprintf(fp, "        at %s:%u:%u\n", r->loc.file,
				    r->loc.line, r->loc.col);
		}
	}
	return shown;
}

static int
cmd_check_exec(struct cmd_ctx *ctx, void *optsp, int argc, char **argv)
{
	struct check_opts	*o = optsp;
	struct check_result	 res = CHECK_RESULT_INIT;
	struct prov_err		 err = PROV_ERR_INIT;
	int			 r;

	if (argc > 0)
		return cmd_usage_error(ctx, &cmd_check_entry, "unexpected "
		    "argument '%s'", argv[0]);
	if (check_plan(&res, ctx->plan, &err) != 0) {
		fprintf(ctx->err, "provision check: ");
		prov_err_print(&err, ctx->err);
		prov_err_release(&err);
		check_result_release(&res);
		return PROV_EXIT_USAGE;
	}
	if (o->json)
		cmd_check_json(ctx, &res);
	else {
		fprintf(ctx->out, "%s%s: %zu ok, %zu warnings, %zu failed, "
		    "%zu skipped: %s\n", cmd_check_table(ctx, check_groups,
		    check_labels, o->quiet, &res) > 0 ?
		    "\n" : "", ctx->plan_path, res.nok, res.nwarn,
		    res.nfail, res.nskip, res.nfail > 0 ? "FAIL" :
		    res.nwarn > 0 && o->strict ? "FAIL (strict)" : "PASS");
	}
	r = res.nfail > 0 || (o->strict && res.nwarn > 0) ? PROV_EXIT_FAIL :
	    PROV_EXIT_OK;
	check_result_release(&res);
	return r;
}

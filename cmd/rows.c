/*
 * rows.c: result rows as a table, the same for every command.  See
 * cmd_rows_print() in cmd.h.
 *
 *	pcie
 *	        SUBJECT            CHECK       MEASURED   LIMIT
 *	  ok    hardware 'head'    slot fit    1 card     3 slots
 *	        nic connectx-6-hdr-1p -> slot1
 *	  FAIL  hardware 'dgx'     lanes       80 lanes   64 lanes
 *	        at plan.yaml:12:7
 */
#include "compat.h"

#include "cmd.h"
#include "row.h"

/* Display width: UTF-8 lead bytes only. */
static size_t
cmd_rows_width(const char *s)
{
	size_t	n = 0;

	for (; s != NULL && *s != '\0'; s++)
		if (((unsigned char)*s & 0xc0) != 0x80)
			n++;
	return n;
}

static void
cmd_rows_pad(FILE *fp, const char *s, size_t w)
{
	size_t	n = cmd_rows_width(s);

	fputs(s, fp);
	for (; n < w; n++)
		fputc(' ', fp);
}

/* Four columns wide either way: the escapes take no room. */
static const char *
cmd_rows_label(const struct cmd_ctx *ctx, enum row_verdict v)
{
	if (!ctx->color)
		return row_verdict_name(v);
	switch (v) {
	case ROW_OK:
		return "\033[32mok\033[0m  ";
	case ROW_WARN:
		return "\033[33mwarn\033[0m";
	case ROW_FAIL:
		return "\033[1;31mFAIL\033[0m";
	default:
		return "\033[2mskip\033[0m";
	}
}

/* A missing measure or limit shows as "-"; check's are never missing. */
static const char *
cmd_rows_s(const char *s)
{
	return s != NULL ? s : "-";
}

static int
cmd_rows_shown(const struct row *r, const struct cmd_rows_view *v,
    const char *group)
{
	if (v->quiet && (r->verdict == ROW_OK || r->verdict == ROW_SKIP))
		return 0;
	if (group == NULL)
		return 1;
	return r->group != NULL && strcmp(r->group, group) == 0;
}

struct cmd_rows_widths {
	size_t	subject, what, measured;
};

static void
cmd_rows_line(struct cmd_ctx *ctx, const struct row *r,
    const struct cmd_rows_widths *w)
{
	FILE	*fp = ctx->out;

	fprintf(fp, "  %-4s  ", cmd_rows_label(ctx, r->verdict));
	cmd_rows_pad(fp, r->subject != NULL ? r->subject : "", w->subject);
	fputs("  ", fp);
	cmd_rows_pad(fp, r->what, w->what);
	fputs("  ", fp);
	cmd_rows_pad(fp, cmd_rows_s(r->measured), w->measured);
	fprintf(fp, "  %s\n", cmd_rows_s(r->limit));
	if (r->hint != NULL)
		fprintf(fp, "        %s\n", r->hint);
	if (r->verdict == ROW_FAIL && r->loc.line > 0)
		fprintf(fp, "        at %s:%u:%u\n", r->loc.file, r->loc.line,
		    r->loc.col);
}

size_t
cmd_rows_print(struct cmd_ctx *ctx, const struct rows *rows,
    const struct cmd_rows_view *v)
{
	static const char *const one[] = { NULL };
	const char *const	*groups = v->groups != NULL ? v->groups : one;
	struct cmd_rows_widths	 w;
	FILE			*fp = ctx->out;
	size_t			 shown = 0, i, g, n;

	w.subject = cmd_rows_width(v->subject);
	w.what = cmd_rows_width(v->what);
	w.measured = cmd_rows_width(v->measured);
	for (i = 0; i < rows->n; i++) {
		const struct row	*r = &rows->v[i];

		if ((n = cmd_rows_width(r->subject)) > w.subject)
			w.subject = n;
		if ((n = cmd_rows_width(r->what)) > w.what)
			w.what = n;
		if ((n = cmd_rows_width(cmd_rows_s(r->measured))) > w.measured)
			w.measured = n;
	}
	if (w.measured > 40)
		w.measured = 40;
	g = 0;
	do {
		int	header = 0;

		for (i = 0; i < rows->n; i++) {
			const struct row	*r = &rows->v[i];

			if (!cmd_rows_shown(r, v, groups[g]))
				continue;
			if (!header) {
				if (groups[g] != NULL)
					fprintf(fp, "%s%s\n", g > 0 ? "\n" : "",
					    groups[g]);
				fprintf(fp, "  %-4s  ", "");
				cmd_rows_pad(fp, v->subject, w.subject);
				fputs("  ", fp);
				cmd_rows_pad(fp, v->what, w.what);
				fputs("  ", fp);
				cmd_rows_pad(fp, v->measured, w.measured);
				fprintf(fp, "  %s\n", v->limit);
				header = 1;
			}
			shown++;
			cmd_rows_line(ctx, r, &w);
		}
	} while (groups[g] != NULL && groups[++g] != NULL);
	return shown;
}

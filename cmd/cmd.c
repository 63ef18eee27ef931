/*
 * cmd.c: the command table and the dispatcher shared by every command.
 * See cmd.h.
 */
#include "compat.h"

#include "buf.h"
#include "cmd.h"
#include "str.h"

const struct cmd_entry *const cmd_table[] = {
	&cmd_apply_entry,
	&cmd_check_entry,
	&cmd_estimate_entry,
	&cmd_ls_entry,
	&cmd_catalog_entry,
	&cmd_exec_entry,
	&cmd_facts_entry,
	&cmd_bmc_entry,
	&cmd_pxe_entry,
	&cmd_bundle_entry,
	&cmd_verify_entry,
	&cmd_usage_entry,
	&cmd_report_entry,
	&cmd_help_entry,
	NULL
};

/* Options every command takes, bound to the context. */
static const struct opt_spec cmd_common_opts[] = {
	{ "profiles", 0, OPT_LIST, offsetof(struct cmd_ctx, profiles), "DIR",
	  "extra catalog dir (repeatable), after the plan's own" },
	{ "help", 'h', OPT_BOOL, 0, NULL, "show this help" },
	{ NULL, 0, OPT_END, 0, NULL, NULL }
};

const struct cmd_entry *
cmd_find(const char *name)
{
	size_t	i;

	for (i = 0; cmd_table[i] != NULL; i++)
		if (strcmp(cmd_table[i]->name, name) == 0 ||
		    (cmd_table[i]->alias != NULL &&
		    strcmp(cmd_table[i]->alias, name) == 0))
			return cmd_table[i];
	return NULL;
}

void
cmd_usage(const struct cmd_entry *e, FILE *fp)
{
	fprintf(fp, "usage: provision %s %s\n", e->name, e->usage);
}

static void
cmd_help_opts(const struct opt_spec *o, FILE *fp)
{
	char	left[64];

	for (; o != NULL && o->name != NULL; o++) {
		if (o->shortopt)
			snprintf(left, sizeof left, "-%c, --%s%s%s", o->shortopt,
			    o->name, o->argname ? " " : "",
			    o->argname ? o->argname : "");
		else
			snprintf(left, sizeof left, "    --%s%s%s", o->name,
			    o->argname ? " " : "", o->argname ? o->argname : "");
		fprintf(fp, "  %-28s %s\n", left, o->help);
	}
}

void
cmd_help(const struct cmd_entry *e, FILE *fp)
{
	cmd_usage(e, fp);
	fprintf(fp, "\n%s\n", e->summary);
	if (e->alias != NULL)
		fprintf(fp, "alias: %s\n", e->alias);
	fprintf(fp, "\noptions:\n");
	cmd_help_opts(e->opts, fp);
	cmd_help_opts(cmd_common_opts, fp);
}

/* "provision CMD: ", or "provision: " outside a command. */
static void
cmd_prefix(struct cmd_ctx *ctx)
{
	if (ctx->cmd != NULL)
		fprintf(ctx->err, "%s %s: ", ctx->prog, ctx->cmd->name);
	else
		fprintf(ctx->err, "%s: ", ctx->prog);
}

void
cmd_error(struct cmd_ctx *ctx, const struct prov_err *err)
{
	cmd_prefix(ctx);
	prov_err_print(err, ctx->err);
}

void
cmd_errorf(struct cmd_ctx *ctx, const char *fmt, ...)
{
	va_list	ap;

	cmd_prefix(ctx);
	va_start(ap, fmt);
	vfprintf(ctx->err, fmt, ap);
	va_end(ap);
	fputc('\n', ctx->err);
}

int
cmd_usage_error(struct cmd_ctx *ctx, const struct cmd_entry *e,
    const char *fmt, ...)
{
	va_list	ap;

	fprintf(ctx->err, "%s %s: ", ctx->prog, e->name);
	va_start(ap, fmt);
	vfprintf(ctx->err, fmt, ap);
	va_end(ap);
	fputc('\n', ctx->err);
	cmd_usage(e, ctx->err);
	return PROV_EXIT_USAGE;
}

static const struct opt_spec *
cmd_opt_lookup(const struct opt_spec *specs, const char *name, int shortopt)
{
	for (; specs != NULL && specs->name != NULL; specs++)
		if ((name != NULL && strcmp(specs->name, name) == 0) ||
		    (shortopt && specs->shortopt == shortopt))
			return specs;
	return NULL;
}

static char *
cmd_opt_suggest(const struct cmd_entry *e, const char *name)
{
	const char		*names[128], *near;
	const struct opt_spec	*o;
	size_t			 n = 0;

	for (o = e->opts; o != NULL && o->name != NULL && n < 120; o++)
		names[n++] = o->name;
	for (o = cmd_common_opts; o->name != NULL && n < 127; o++)
		names[n++] = o->name;
	names[n] = NULL;
	near = str_suggest(name, names);
	return near != NULL ? xasprintf(" (did you mean '--%s'?)", near) :
	    xstrdup("");
}

static int
cmd_opt_set(struct cmd_ctx *ctx, const struct cmd_entry *e,
    const struct opt_spec *o, void *base, const char *val, const char *shown)
{
	char	*dst = (char *)base + o->off;
	long	 v;

	switch (o->type) {
	case OPT_BOOL:
		*(int *)dst = 1;
		break;
	case OPT_STR:
		*(const char **)dst = val;
		break;
	case OPT_LONG:
		if (str_to_long(val, &v) != 0)
			return cmd_usage_error(ctx, e, "option '%s' needs a "
			    "number, not '%s'", shown, val);
		*(long *)dst = v;
		break;
	case OPT_LIST:
		strvec_push((struct strvec *)dst, val);
		break;
	case OPT_END:
		break;
	}
	return 0;
}

/* The spec of long option `name` or short option `c`, the command's
 * first; *common says it is one every command has. */
static const struct opt_spec *
cmd_opt_find(const struct cmd_entry *e, const char *name, int c, int *common)
{
	const struct opt_spec	*o = cmd_opt_lookup(e->opts, name, c);

	*common = o == NULL;
	return o != NULL ? o : cmd_opt_lookup(cmd_common_opts, name, c);
}

static int
cmd_opt_unknown(struct cmd_ctx *ctx, const struct cmd_entry *e,
    const char *name, const char *shown)
{
	char	*s = cmd_opt_suggest(e, name);
	int	 r;

	r = cmd_usage_error(ctx, e, "unknown option '%s'%s", shown, s);
	free(s);
	return r;
}

/*
 * Set option o (written `shown` on the command line) to val, or to the
 * next argument when it takes one and val is NULL (*i then moves on).
 */
static int
cmd_opt_apply(struct cmd_ctx *ctx, const struct cmd_entry *e, void *opts,
    const struct opt_spec *o, int common, const char *val, const char *shown,
    int argc, char **argv, int *i, int *help)
{
	if (common && strcmp(o->name, "help") == 0) {
		*help = 1;
		return 0;
	}
	if (o->type != OPT_BOOL && val == NULL) {
		if (*i + 1 >= argc)
			return cmd_usage_error(ctx, e, "option '%s' needs a "
			    "value", shown);
		val = argv[++*i];
	} else if (o->type == OPT_BOOL && val != NULL)
		return cmd_usage_error(ctx, e, "option '%s' takes no value",
		    shown);
	if (cmd_opt_set(ctx, e, o, common ? (void *)ctx : opts, val,
	    shown) != 0)
		return PROV_EXIT_USAGE;
	return 0;
}

/* --name, --name=value, --name value. */
static int
cmd_parse_long(struct cmd_ctx *ctx, const struct cmd_entry *e, void *opts,
    int argc, char **argv, int *i, int *help)
{
	const char		*a = argv[*i], *eq = strchr(a + 2, '=');
	const struct opt_spec	*o;
	char			 name[64];
	size_t			 len = eq ? (size_t)(eq - a - 2) : strlen(a + 2);
	int			 common;

	if (len >= sizeof name)
		len = sizeof name - 1;
	memcpy(name, a + 2, len);
	name[len] = '\0';
	if ((o = cmd_opt_find(e, name, 0, &common)) == NULL)
		return cmd_opt_unknown(ctx, e, name, a);
	return cmd_opt_apply(ctx, e, opts, o, common, eq != NULL ? eq + 1 :
	    NULL, a, argc, argv, i, help);
}

/*
 * -q, -n3, -n 3, and flags bundled as getopt(3) takes them: -qv is -q -v,
 * -qn3 is -q -n 3; -qzz is an error (no -z), not -q.
 */
static int
cmd_parse_short(struct cmd_ctx *ctx, const struct cmd_entry *e, void *opts,
    int argc, char **argv, int *i, int *help)
{
	const char		*p;
	const struct opt_spec	*o;
	char			 shown[3] = "-";
	int			 common, r;

	for (p = argv[*i] + 1; *p != '\0'; p++) {
		shown[1] = *p;
		if ((o = cmd_opt_find(e, NULL, *p, &common)) == NULL)
			return cmd_opt_unknown(ctx, e, shown + 1, shown);
		if (o->type == OPT_BOOL) {
			if ((r = cmd_opt_apply(ctx, e, opts, o, common, NULL,
			    shown, argc, argv, i, help)) != 0)
				return r;
			continue;
		}
		return cmd_opt_apply(ctx, e, opts, o, common, p[1] != '\0' ?
		    p + 1 : NULL, shown, argc, argv, i, help);
	}
	return 0;
}

/*
 * GNU-style parsing: options and positionals may mix until "--", after
 * which everything is positional.  Positionals are collected in `pos`.
 */
static int
cmd_parse(struct cmd_ctx *ctx, const struct cmd_entry *e, void *opts,
    int argc, char **argv, struct strvec *pos, int *help)
{
	int	i, r;

	for (i = 0; i < argc; i++) {
		const char	*a = argv[i];

		if (strcmp(a, "--") == 0) {
			for (i++; i < argc; i++)
				strvec_push(pos, argv[i]);
			break;
		}
		if (a[0] != '-' || a[1] == '\0')
			strvec_push(pos, a);
		else if ((r = a[1] == '-' ? cmd_parse_long(ctx, e, opts, argc,
		    argv, &i, help) : cmd_parse_short(ctx, e, opts, argc, argv,
		    &i, help)) != 0)
			return r;
	}
	return 0;
}

void
cmd_print_errs(struct cmd_ctx *ctx, const struct prov_errs *errs)
{
	prov_errs_print(errs, ctx->err);
	if (errs->n > 1)
		fprintf(ctx->err, "%zu errors\n", errs->n);
}

struct plan *
cmd_load_plan(struct cmd_ctx *ctx, const char *path)
{
	struct plan_opts	o = PLAN_OPTS_INIT;
	struct prov_errs	errs = PROV_ERRS_INIT;
	struct plan		*p = NULL;

	o.profile_dirs = ctx->profiles;
	if (plan_load(&p, path, &o, &errs) != 0) {
		cmd_print_errs(ctx, &errs);
		p = NULL;
	}
	prov_errs_release(&errs);
	return p;
}

int
cmd_run(struct cmd_ctx *ctx, const struct cmd_entry *e, int argc, char **argv)
{
	struct strvec	 pos = STRVEC_INIT;
	void		*opts = NULL;
	int		 r, help = 0;

	ctx->cmd = e;
	opts = xcalloc(1, e->opts_size ? e->opts_size : 1);
	if (e->opts_init != NULL)
		e->opts_init(opts);
	r = cmd_parse(ctx, e, opts, argc, argv, &pos, &help);
	if (r != 0)
		goto out;
	if (help) {
		cmd_help(e, ctx->out);
		r = 0;
		goto out;
	}
	if (e->flags & CMD_LOADS_PLAN) {
		if (pos.n == 0 && !(e->flags & CMD_PLAN_OPTIONAL)) {
			r = cmd_usage_error(ctx, e, "missing plan file");
			goto out;
		}
		if (pos.n > 0) {
			ctx->plan_path = pos.v[0];
			ctx->plan = cmd_load_plan(ctx, pos.v[0]);
			if (ctx->plan == NULL) {
				r = PROV_EXIT_USAGE;
				goto out;
			}
		}
	}
	{
		int	skip = ctx->plan != NULL ? 1 : 0;

		r = e->exec(ctx, opts, (int)pos.n - skip, pos.v + skip);
	}
out:
	plan_free(ctx->plan);
	ctx->plan = NULL;
	if (e->opts_size && e->opts != NULL) {
		const struct opt_spec	*o;

		for (o = e->opts; o->name != NULL; o++)
			if (o->type == OPT_LIST)
				strvec_clear((struct strvec *)((char *)opts +
				    o->off));
	}
	free(opts);
	strvec_clear(&pos);
	return r;
}

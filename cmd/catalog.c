/*
 * catalog.c: `provision catalog [KIND] [ID]`: what the hardware catalog
 * knows, so a user can pick part ids for a plan and see where each number
 * comes from.
 */
#include "compat.h"

#include <math.h>

#include "catalog.h"
#include "cmd.h"

struct catalog_opts {
	int	validate;
};

static const struct opt_spec catalog_opts_spec[] = {
	{ "validate", 0, OPT_BOOL, offsetof(struct catalog_opts, validate), NULL,
	  "check sources and cross-references of every entry" },
	{ NULL, 0, OPT_END, 0, NULL, NULL }
};

static int cmd_catalog_exec(struct cmd_ctx *, void *, int, char **);

const struct cmd_entry cmd_catalog_entry = {
	"catalog", NULL, "[--validate] [gpu|nic|cpu|system|switch] [ID]",
	"list the hardware catalog (profiles/ plus --profiles dirs)",
	catalog_opts_spec, sizeof(struct catalog_opts), NULL, 0,
	cmd_catalog_exec
};

static void
cmd_catalog_list(struct cmd_ctx *ctx, const struct catalog *c, enum cat_kind k)
{
	size_t	i;

	fprintf(ctx->out, "%s:\n", k == CAT_SWITCH ? "switches" : k == CAT_GPU ? "gpus" : k == CAT_NIC ? "nics" : k == CAT_CPU ? "cpus" : "systems");
	for (i = 0; i < catalog_count(c, k); i++) {
		const struct cat_meta	*m = catalog_meta_at(c, k, i);

		fprintf(ctx->out, "  %-28s %s\n", m->id, m->name);
	}
}

static void
cmd_catalog_sv(struct cmd_ctx *ctx, const char *label, const struct strvec *sv)
{
	size_t	i;

	if (sv->n == 0)
		return;
	fprintf(ctx->out, "  %-14s", label);
	for (i = 0; i < sv->n; i++)
		fprintf(ctx->out, "%s%s", i ? ", " : "", sv->v[i]);
	fprintf(ctx->out, "\n");
}

static int
cmd_catalog_exec(struct cmd_ctx *ctx, void *optsp, int argc, char **argv)
{
	struct catalog_opts	*o = optsp;
	struct catalog		*c = catalog_new();
	struct prov_errs	 errs = PROV_ERRS_INIT;
	char			*dir = catalog_default_dir();
	size_t			 i;
	int			 k, r = PROV_EXIT_USAGE;

	if (catalog_load_dir(c, dir, &errs) != 0)
		goto fail;
	for (i = 0; i < ctx->profiles.n; i++)
		if (catalog_load_dir(c, ctx->profiles.v[i], &errs) != 0)
			goto fail;
	if (o->validate) {
		if (catalog_validate(c, &errs) != 0) {
			cmd_print_errs(ctx, &errs);
			r = PROV_EXIT_FAIL;
			goto out;
		}
		for (k = 0; k < CAT_NKINDS; k++)
			fprintf(ctx->out, "%zu %ss\n",
			    catalog_count(c, (enum cat_kind)k),
			    catalog_kind_name((enum cat_kind)k));
		fprintf(ctx->out, "catalog ok\n");
		r = 0;
		goto out;
	}
	if (argc == 0) {
		for (k = 0; k < CAT_NKINDS; k++)
			cmd_catalog_list(ctx, c, (enum cat_kind)k);
		r = 0;
		goto out;
	}
	for (k = 0; k < CAT_NKINDS; k++)
		if (strcmp(argv[0], catalog_kind_name((enum cat_kind)k)) == 0)
			break;
	if (k == CAT_NKINDS) {
		r = cmd_usage_error(ctx, &cmd_catalog_entry, "unknown kind "
		    "'%s' (one of gpu, nic, cpu, system, switch)", argv[0]);
		goto out;
	}
	if (argc == 1) {
		cmd_catalog_list(ctx, c, (enum cat_kind)k);
		r = 0;
		goto out;
	}
	for (i = 0; i < catalog_count(c, (enum cat_kind)k); i++) {
		const struct cat_meta	*m = catalog_meta_at(c,
		    (enum cat_kind)k, i);

		if (strcmp(m->id, argv[1]) != 0 &&
		    strvec_find(&m->aliases, argv[1]) < 0)
			continue;
		fprintf(ctx->out, "%s %s: %s %s\n  defined at %s:%u\n",
		    catalog_kind_name((enum cat_kind)k), m->id,
		    m->vendor ? m->vendor : "", m->name, m->loc.file,
		    m->loc.line);
		cmd_catalog_sv(ctx, "aliases:", &m->aliases);
		cmd_catalog_sv(ctx, "sources:", &m->sources);
		cmd_catalog_sv(ctx, "unconfirmed:", &m->unconfirmed);
		cmd_catalog_sv(ctx, "unknown:", &m->unknown);
		r = 0;
		goto out;
	}
	fprintf(ctx->err, "provision catalog: no %s '%s'\n",
	    catalog_kind_name((enum cat_kind)k), argv[1]);
	r = PROV_EXIT_FAIL;
	goto out;
fail:
	cmd_print_errs(ctx, &errs);
out:
	prov_errs_release(&errs);
	catalog_free(c);
	free(dir);
	return r;
}

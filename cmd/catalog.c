/*
 * catalog.c: `provision catalog [KIND] [ID]`: what the hardware catalog
 * knows, so a user can pick part ids for a plan (and model presets for
 * `estimate`) and see where each number comes from; `catalog learn`
 * drafts an entry for a machine the catalog does not know.
 *
 *	provision catalog learn --local [--id ID] [-o FILE]
 *	provision catalog learn --read FILE... [--id ID] [-o FILE]
 *	provision catalog learn PLAN -n NODE [--id ID] [-o FILE]
 */
#include "compat.h"

#include <math.h>

#include <ctype.h>
#include <errno.h>

#include "catalog.h"
#include "cmd.h"
#include "facts.h"
#include "fs.h"
#include "hw.h"
#include "learn.h"
#include "plan.h"
#include "str.h"

struct catalog_opts {
	int		 validate;
	int		 local;
	struct strvec	 read;
	const char	*nodes;
	const char	*id;
	const char	*output;
};

static const struct opt_spec catalog_opts_spec[] = {
	{ "validate", 0, OPT_BOOL, offsetof(struct catalog_opts, validate), NULL,
	  "check sources and cross-references of every entry" },
	{ "local", 0, OPT_BOOL, offsetof(struct catalog_opts, local), NULL,
	  "learn: read this machine (libpci, /proc, /sys, dmidecode)" },
	{ "read", 0, OPT_LIST, offsetof(struct catalog_opts, read), "FILE",
	  "learn: read saved outputs (dmidecode, lspci, nvidia-smi, lscpu, "
	  "...) instead; repeatable" },
	{ "nodes", 'n', OPT_STR, offsetof(struct catalog_opts, nodes), "NODE",
	  "learn: read this node of PLAN over SSH (and its PSUs through its "
	  "bmc:, if any)" },
	{ "id", 0, OPT_STR, offsetof(struct catalog_opts, id), "ID",
	  "learn: the draft entry's id (default: from the model, or the host)" },
	{ "output", 'o', OPT_STR, offsetof(struct catalog_opts, output), "FILE",
	  "learn: write the draft to FILE (default: standard output)" },
	{ NULL, 0, OPT_END, 0, NULL, NULL }
};

static int cmd_catalog_exec(struct cmd_ctx *, void *, int, char **);

const struct cmd_entry cmd_catalog_entry = {
	.name = "catalog",
	.usage = "[--validate] [gpu|nic|cpu|system|switch|model] [ID] | learn "
	    "(--local | --read FILE... | PLAN -n NODE) [--id ID] [-o FILE]",
	.summary = "list the hardware catalog and model presets (profiles/ "
	    "plus --profiles dirs)",
	.opts = catalog_opts_spec,
	.opts_size = sizeof(struct catalog_opts),
	.exec = cmd_catalog_exec,
};

static void
cmd_catalog_list(struct cmd_ctx *ctx, const struct catalog *c, enum cat_kind k)
{
	size_t	i;

	fprintf(ctx->out, "%s:\n", catalog_section_name(k));
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
	fprintf(ctx->out, "  %-19s ", label);
	for (i = 0; i < sv->n; i++)
		fprintf(ctx->out, "%s%s", i ? ", " : "", sv->v[i]);
	fprintf(ctx->out, "\n");
}

/* One "label value unit" line; NAN (not given) prints as "-". */
static void
cmd_catalog_num(struct cmd_ctx *ctx, const char *label, double v,
    const char *unit)
{
	if (isnan(v))
		fprintf(ctx->out, "  %-19s -\n", label);
	else
		fprintf(ctx->out, "  %-19s %g%s%s\n", label, v, *unit ? " " : "",
		    unit);
}

/* As cmd_catalog_num for counts, where -1 is "not given". */
static void
cmd_catalog_long(struct cmd_ctx *ctx, const char *label, long v)
{
	cmd_catalog_num(ctx, label, v < 0 ? NAN : (double)v, "");
}

static void
cmd_catalog_str(struct cmd_ctx *ctx, const char *label, const char *v)
{
	fprintf(ctx->out, "  %-19s %s\n", label, v != NULL ? v : "-");
}

static void
cmd_catalog_gpu(struct cmd_ctx *ctx, const struct cat_gpu *g)
{
	cmd_catalog_sv(ctx, "pci ids:", &g->pci_ids);
	cmd_catalog_num(ctx, "memory:", g->memory_gb, "GB");
	cmd_catalog_str(ctx, "memory type:", g->memory_type);
	cmd_catalog_num(ctx, "memory bandwidth:", g->memory_bw_gbs, "GB/s");
	cmd_catalog_num(ctx, "power:", g->power_w, "W");
	cmd_catalog_str(ctx, "form factor:", g->form_factor);
	cmd_catalog_long(ctx, "slot width:", g->slot_width);
	cmd_catalog_long(ctx, "pcie gen:", g->pcie_gen);
	cmd_catalog_long(ctx, "pcie lanes:", g->pcie_lanes);
	cmd_catalog_str(ctx, "cooling:", g->cooling);
	cmd_catalog_num(ctx, "nvlink:", g->nvlink_gbs, "GB/s");
	cmd_catalog_long(ctx, "mig instances:", g->mig_max);
	cmd_catalog_num(ctx, "fp16 dense:", g->fp16_tflops, "TFLOPS");
	cmd_catalog_num(ctx, "bf16 dense:", g->bf16_tflops, "TFLOPS");
	cmd_catalog_num(ctx, "tf32 dense:", g->tf32_tflops, "TFLOPS");
	cmd_catalog_num(ctx, "fp8 dense:", g->fp8_tflops, "TFLOPS");
	cmd_catalog_num(ctx, "fp4 dense:", g->fp4_tflops, "TFLOPS");
	cmd_catalog_num(ctx, "fp64 dense:", g->fp64_tflops, "TFLOPS");
	cmd_catalog_num(ctx, "int8 dense:", g->int8_tops, "TOPS");
}

static void
cmd_catalog_nic(struct cmd_ctx *ctx, const struct cat_nic *n)
{
	cmd_catalog_sv(ctx, "pci ids:", &n->pci_ids);
	cmd_catalog_str(ctx, "kind:", n->kind);
	cmd_catalog_long(ctx, "ports:", n->ports);
	cmd_catalog_num(ctx, "speed per port:", n->gbps, "Gb/s");
	cmd_catalog_long(ctx, "pcie gen:", n->pcie_gen);
	cmd_catalog_long(ctx, "pcie lanes:", n->pcie_lanes);
	cmd_catalog_str(ctx, "form factor:", n->form_factor);
	cmd_catalog_long(ctx, "slot width:", n->slot_width);
	cmd_catalog_num(ctx, "power:", n->power_w, "W");
	cmd_catalog_str(ctx, "on board:", n->onboard ? "yes" : "no");
}

static void
cmd_catalog_cpu(struct cmd_ctx *ctx, const struct cat_cpu *c)
{
	cmd_catalog_long(ctx, "cores:", c->cores);
	cmd_catalog_long(ctx, "threads:", c->threads);
	cmd_catalog_num(ctx, "power:", c->power_w, "W");
	cmd_catalog_long(ctx, "pcie gen:", c->pcie_gen);
	cmd_catalog_long(ctx, "pcie lanes:", c->pcie_lanes);
	cmd_catalog_long(ctx, "pcie lanes 2s:", c->pcie_lanes_2s);
	cmd_catalog_long(ctx, "memory channels:", c->memory_channels);
}

static void
cmd_catalog_fixed(struct cmd_ctx *ctx, const char *label,
    const struct cat_fixed *f)
{
	if (f->model == NULL)
		return;
	if (f->role != NULL)
		fprintf(ctx->out, "  %-19s %ld x %s (%s)\n", label, f->count,
		    f->model, f->role);
	else
		fprintf(ctx->out, "  %-19s %ld x %s\n", label, f->count,
		    f->model);
}

static void
cmd_catalog_system(struct cmd_ctx *ctx, const struct cat_system *s)
{
	size_t	i;

	cmd_catalog_long(ctx, "rack units:", s->rack_units);
	cmd_catalog_num(ctx, "depth:", s->depth_mm, "mm");
	cmd_catalog_num(ctx, "weight:", s->weight_kg, "kg");
	cmd_catalog_num(ctx, "base power:", s->base_power_w, "W");
	cmd_catalog_num(ctx, "max power:", s->max_power_w, "W");
	cmd_catalog_str(ctx, "cooling:", s->cooling);
	cmd_catalog_num(ctx, "heat to liquid:", s->heat_to_liquid_pct, "%");
	cmd_catalog_long(ctx, "cpu sockets:", s->cpu_sockets);
	cmd_catalog_fixed(ctx, "cpu:", &s->cpu);
	cmd_catalog_long(ctx, "memory slots:", s->memory_slots);
	cmd_catalog_num(ctx, "max memory:", s->max_memory_gb, "GB");
	if (!isnan(s->memory_gb))
		cmd_catalog_num(ctx, "memory:", s->memory_gb, "GB");
	cmd_catalog_fixed(ctx, "gpus:", &s->gpus);
	cmd_catalog_sv(ctx, "gpu models:", &s->gpu_models);
	if (s->nvlink_domain_gpus > 0)
		cmd_catalog_long(ctx, "nvlink domain:", s->nvlink_domain_gpus);
	cmd_catalog_sv(ctx, "gpu form factors:", &s->gpu_form_factors);
	for (i = 0; i < s->nnics; i++)
		cmd_catalog_fixed(ctx, "nic:", &s->nics[i]);
	for (i = 0; i < s->ndrives; i++)
		fprintf(ctx->out, "  %-19s %ld x %g TB %s\n", "drive:",
		    s->drives[i].count, s->drives[i].tb, s->drives[i].kind);
	cmd_catalog_long(ctx, "psu count:", s->psu_count);
	cmd_catalog_str(ctx, "psu redundancy:", s->psu_redundancy);
	cmd_catalog_str(ctx, "psu inlet:", s->psu_inlet);
	for (i = 0; i < s->npsu_ratings; i++)
		fprintf(ctx->out, "  %-19s %g W at %g-%g V\n", "psu rating:",
		    s->psu_ratings[i].watts, s->psu_ratings[i].volts_min,
		    s->psu_ratings[i].volts_max);
	/* slots: null is unknown, not none: "-" as for the other unknowns. */
	if (s->nslots == 0 && strvec_find(&s->m.unknown, "slots") >= 0)
		cmd_catalog_str(ctx, "pcie slots:", NULL);
	else
		fprintf(ctx->out, "  %-19s %zu\n", "pcie slots:", s->nslots);
}

static void
cmd_catalog_switch(struct cmd_ctx *ctx, const struct cat_switch *w)
{
	size_t	i;

	cmd_catalog_str(ctx, "kind:", w->kind);
	for (i = 0; i < w->nports; i++)
		fprintf(ctx->out, "  %-19s %ld x %g Gb/s\n", "ports:",
		    w->ports[i].count, w->ports[i].gbps);
	cmd_catalog_long(ctx, "rack units:", w->rack_units);
	cmd_catalog_num(ctx, "depth:", w->depth_mm, "mm");
	cmd_catalog_num(ctx, "weight:", w->weight_kg, "kg");
	cmd_catalog_num(ctx, "power:", w->power_w, "W");
	cmd_catalog_num(ctx, "typical power:", w->power_typical_w, "W");
	cmd_catalog_long(ctx, "psu count:", w->psu_count);
	cmd_catalog_str(ctx, "psu redundancy:", w->psu_redundancy);
	cmd_catalog_str(ctx, "psu inlet:", w->psu_inlet);
}

static void
cmd_catalog_model(struct cmd_ctx *ctx, const struct cat_model *m)
{
	cmd_catalog_num(ctx, "parameters:", m->params, "");
	cmd_catalog_long(ctx, "layers:", m->layers);
	cmd_catalog_long(ctx, "hidden:", m->hidden);
	cmd_catalog_long(ctx, "heads:", m->heads);
	cmd_catalog_long(ctx, "kv heads:", m->kv_heads);
	cmd_catalog_long(ctx, "ffn:", m->ffn);
	cmd_catalog_str(ctx, "mlp:", m->mlp);
	cmd_catalog_long(ctx, "vocab:", m->vocab);
	cmd_catalog_long(ctx, "seq:", m->seq);
	cmd_catalog_str(ctx, "tied embeddings:", m->tied ? "yes" : "no");
	cmd_catalog_num(ctx, "tokens:", m->tokens, "");
	cmd_catalog_num(ctx, "batch tokens:", m->batch_tokens, "");
}

/* Every field of one entry, as loaded: what `check` will use. */
static void
cmd_catalog_fields(struct cmd_ctx *ctx, const struct catalog *c,
    enum cat_kind k, const char *id)
{
	switch (k) {
	case CAT_GPU:
		cmd_catalog_gpu(ctx, catalog_gpu(c, id));
		break;
	case CAT_NIC:
		cmd_catalog_nic(ctx, catalog_nic(c, id));
		break;
	case CAT_CPU:
		cmd_catalog_cpu(ctx, catalog_cpu(c, id));
		break;
	case CAT_SYSTEM:
		cmd_catalog_system(ctx, catalog_system(c, id));
		break;
	case CAT_SWITCH:
		cmd_catalog_switch(ctx, catalog_switch(c, id));
		break;
	case CAT_MODEL:
		cmd_catalog_model(ctx, catalog_model(c, id));
		break;
	default:
		break;
	}
}

/* ------------------------------------------------------------------ */
/* learn */

/* An id from the model name or host: lower case, [a-z0-9-], at most 40. */
static char *
cmd_catalog_learn_id(const struct learn *l, const struct facts *f)
{
	const char	*s = l->product != NULL ? l->product : f->node != NULL ?
			    f->node : "this-machine";
	struct buf	 b = BUF_INIT;

	if (l->product == NULL)
		buf_adds(&b, "local-");
	for (; *s != '\0' && b.len < 40; s++) {
		if (isalnum((unsigned char)*s))
			buf_addch(&b, (char)tolower((unsigned char)*s));
		else if (b.len > 0 && b.buf[b.len - 1] != '-')
			buf_addch(&b, '-');
	}
	while (b.len > 0 && b.buf[b.len - 1] == '-')
		buf_setlen(&b, b.len - 1);
	if (b.len == 0)
		buf_adds(&b, "this-machine");
	return buf_detach(&b, NULL);
}

/* --read: dmidecode output to learn, every other output to the facts. */
static int
cmd_catalog_learn_read(struct cmd_ctx *ctx, const struct catalog_opts *o,
    struct learn *l, struct facts *f)
{
	struct prov_err	 err = PROV_ERR_INIT;
	struct buf	 b = BUF_INIT;
	const char	*kind;
	size_t		 i;
	int		 r = -1;

	for (i = 0; i < o->read.n; i++) {
		buf_reset(&b);
		if (buf_read_file(&b, o->read.v[i]) != 0) {
			cmd_errorf(ctx, "%s: %s", o->read.v[i],
			    strerror(errno));
			goto out;
		}
		if (b.len > 0 && strstr(b.buf, "DMI type ") != NULL) {
			if (learn_parse_dmi(l, b.buf, &err) != 0) {
				cmd_error(ctx, &err);
				goto out;
			}
		} else if (facts_parse_any(f, o->read.v[i], b.len ? b.buf : "",
		    &kind, &err) != 0) {
			cmd_error(ctx, &err);
			goto out;
		}
	}
	r = 0;
out:
	prov_err_release(&err);
	buf_release(&b);
	return r;
}

/*
 * PLAN -n NODE: the node over SSH (and its BMC).  *pp is the plan, kept
 * for the catalog that names the node's parts.
 */
static int
cmd_catalog_learn_node(struct cmd_ctx *ctx, const struct catalog_opts *o,
    const char *path, struct plan **pp, struct learn *l, struct facts **f)
{
	struct learn_node_opts	 lo;
	struct plan_node	**sel = NULL;
	struct prov_err		  err = PROV_ERR_INIT;
	size_t			  n = 0;
	int			  r = PROV_EXIT_USAGE;

	memset(&lo, 0, sizeof lo);
	if ((*pp = cmd_load_plan(ctx, path)) == NULL)
		goto out;
	if (plan_select(&sel, &n, *pp, o->nodes, &err) != 0) {
		cmd_error(ctx, &err);
		goto out;
	}
	if (n != 1) {
		r = cmd_usage_error(ctx, &cmd_catalog_entry, "learn reads "
		    "one node, not %zu", n);
		goto out;
	}
	if ((*pp)->ssh.passphrase_env != NULL)
		lo.passphrase = getenv((*pp)->ssh.passphrase_env);
	if (learn_node(l, f, *pp, sel[0], &lo, &err) != 0) {
		cmd_error(ctx, &err);
		r = PROV_EXIT_FAIL;
		goto out;
	}
	r = PROV_EXIT_OK;
out:
	free(sel);
	prov_err_release(&err);
	return r;
}

static int
cmd_catalog_learn(struct cmd_ctx *ctx, const struct catalog_opts *o,
    const struct catalog *c, int argc, char **argv)
{
	struct hw_opts	 ho = HW_OPTS_INIT;
	struct prov_err	 err = PROV_ERR_INIT;
	struct learn	 l;
	struct facts	*f = NULL;
	struct plan	*p = NULL;
	struct buf	 b = BUF_INIT;
	char		*id = NULL;
	size_t		 i;
	int		 r = PROV_EXIT_USAGE;

	learn_init(&l);
	if (argc > 2 || o->local + (o->read.n > 0) + (argc == 2) != 1) {
		r = cmd_usage_error(ctx, &cmd_catalog_entry, "learn takes "
		    "--local, --read FILE... or PLAN -n NODE");
		goto out;
	}
	if ((argc == 2) != (o->nodes != NULL)) {
		r = cmd_usage_error(ctx, &cmd_catalog_entry, argc == 2 ?
		    "learn PLAN needs -n NODE: the node to read" :
		    "-n NODE belongs to 'catalog learn PLAN'");
		goto out;
	}
	if (argc == 2) {
		if ((r = cmd_catalog_learn_node(ctx, o, argv[1], &p, &l,
		    &f)) != PROV_EXIT_OK)
			goto out;
		r = PROV_EXIT_USAGE;
		c = p->catalog;
	} else if (o->local) {
		if (hw_gather(&f, c, &ho, &err) != 0) {
			cmd_error(ctx, &err);
			r = PROV_EXIT_FAIL;
			goto out;
		}
		learn_local(&l);
	} else {
		f = facts_new();
		if (cmd_catalog_learn_read(ctx, o, &l, f) != 0)
			goto out;
		if (hw_pci_names(&f, 1, &ho, &err) != 0)
			facts_note(f, "%s", err.msg);
		facts_finish(f, c);
	}
	id = o->id != NULL ? xstrdup(o->id) : cmd_catalog_learn_id(&l, f);
	if (!str_is_safe_word(id)) {
		r = cmd_usage_error(ctx, &cmd_catalog_entry, "'%s' is not an "
		    "id (letters, digits, '-', '_', '.')", id);
		goto out;
	}
	learn_draft(&b, &l, f, c, id);
	if (o->output == NULL)
		fwrite(b.buf, 1, b.len, ctx->out);
	else if (buf_write_file_atomic(o->output, b.buf, b.len, 0644) != 0) {
		cmd_errorf(ctx, "cannot write %s: %s", o->output,
		    strerror(errno));
		r = PROV_EXIT_FAIL;
		goto out;
	} else {
		for (i = 0; i < l.notes.n; i++)
			cmd_errorf(ctx, "note: %s", l.notes.v[i]);
		fprintf(ctx->out, "draft of '%s' written to %s: fill in each "
		    "UNKNOWN, then give its dir to --profiles\n", id,
		    o->output);
	}
	r = PROV_EXIT_OK;
out:
	free(id);
	buf_release(&b);
	facts_free(f);
	plan_free(p);
	learn_release(&l);
	prov_err_release(&err);
	return r;
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
	if (argc > 0 && strcmp(argv[0], "learn") == 0) {
		r = cmd_catalog_learn(ctx, o, c, argc, argv);
		goto out;
	}
	if (o->local || o->read.n > 0 || o->id != NULL || o->output != NULL ||
	    o->nodes != NULL) {
		r = cmd_usage_error(ctx, &cmd_catalog_entry, "--local, --read, "
		    "-n, --id and -o belong to 'catalog learn'");
		goto out;
	}
	if (o->validate) {
		if (catalog_validate(c, &errs) != 0) {
			cmd_print_errs(ctx, &errs);
			r = PROV_EXIT_FAIL;
			goto out;
		}
		for (k = 0; k < CAT_NKINDS; k++)
			fprintf(ctx->out, "%zu %s\n",
			    catalog_count(c, (enum cat_kind)k),
			    catalog_section_name((enum cat_kind)k));
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
		    "'%s' (one of gpu, nic, cpu, system, switch, model)",
		    argv[0]);
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
		cmd_catalog_fields(ctx, c, (enum cat_kind)k, m->id);
		r = 0;
		goto out;
	}
	cmd_errorf(ctx, "no %s '%s'",
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

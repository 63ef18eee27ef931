/*
 * estimate.c: `provision estimate PLAN --model SPEC`: will this cluster
 * train (or with --serve, serve) the model, and how long will it take.
 *
 * Parses the options, reads the measured figures when there are any
 * (--measured FILE, else .provision/CLUSTER/measured.json beside the
 * plan), runs lib/estimate.c and prints its rows as check does: a table
 * by group, or --json.  Exit 0 when it fits, 1 when it does not (a fail
 * row), 2 on a bad plan, option or measured file.
 */
#include "compat.h"

#include <limits.h>
#include <math.h>

#include "buf.h"
#include "check.h"
#include "cmd.h"
#include "estimate.h"
#include "json.h"
#include "row.h"
#include "str.h"

struct estimate_cmd_opts {
	const char	*model;
	const char	*tokens;
	const char	*mfu;
	const char	*tflops;
	const char	*model_tflops;
	const char	*precision;
	const char	*recompute;
	const char	*hardware;
	const char	*measured;
	long		 batch;
	long		 seq;
	long		 micro_batch;
	long		 zero;
	long		 tp, pp;
	long		 gpus;
	long		 context;
	long		 requests;
	int		 serve;
	int		 json;
	int		 quiet;
};

static const struct opt_spec estimate_opts_spec[] = {
	{ "model", 'm', OPT_STR, offsetof(struct estimate_cmd_opts, model),
	  "SPEC", "a preset ('provision catalog model'), PRESET,key=value,... "
	  "or layers=,hidden=,heads=,vocab=,seq=,..." },
	{ "tokens", 0, OPT_STR, offsetof(struct estimate_cmd_opts, tokens),
	  "N", "training tokens, e.g. 300B, 2T (default: the preset's run, "
	  "else 20 per parameter)" },
	{ "mfu", 0, OPT_STR, offsetof(struct estimate_cmd_opts, mfu), "F",
	  "model FLOPs utilization, 0.4 or 40% (default 0.40)" },
	{ "tflops", 0, OPT_STR, offsetof(struct estimate_cmd_opts, tflops),
	  "X", "achieved TFLOPS per GPU in hardware FLOPs, with what "
	  "--recompute recomputes (Megatron papers)" },
	{ "model-tflops", 0, OPT_STR, offsetof(struct estimate_cmd_opts,
	  model_tflops), "X", "achieved TFLOPS per GPU in model FLOPs, MFU x "
	  "peak (Llama 3, NeMo)" },
	{ "precision", 'p', OPT_STR, offsetof(struct estimate_cmd_opts,
	  precision), "P", "bf16 fp16 fp8 fp4 tf32 fp64 int8 (default bf16, "
	  "fp16 without bf16)" },
	{ "batch", 'b', OPT_LONG, offsetof(struct estimate_cmd_opts, batch),
	  "N", "global batch in sequences (default: the preset's, else 4M "
	  "tokens)" },
	{ "seq", 0, OPT_LONG, offsetof(struct estimate_cmd_opts, seq), "N",
	  "sequence length (default: the model's; same as --model M,seq=N)" },
	{ "micro-batch", 0, OPT_LONG, offsetof(struct estimate_cmd_opts,
	  micro_batch), "N", "sequences per GPU per micro-batch (default 1)" },
	{ "recompute", 0, OPT_STR, offsetof(struct estimate_cmd_opts,
	  recompute), "R", "activation recomputation: selective (default), "
	  "none, full" },
	{ "zero", 0, OPT_LONG, offsetof(struct estimate_cmd_opts, zero), "N",
	  "ZeRO stage 0-3: shard optimizer state (1, default), gradients (2), "
	  "weights (3) over data-parallel ranks" },
	{ "tp", 0, OPT_LONG, offsetof(struct estimate_cmd_opts, tp), "N",
	  "tensor parallel size (default: the smallest layout that fits)" },
	{ "pp", 0, OPT_LONG, offsetof(struct estimate_cmd_opts, pp), "N",
	  "pipeline parallel size (default: the smallest layout that fits)" },
	{ "gpus", 0, OPT_LONG, offsetof(struct estimate_cmd_opts, gpus), "N",
	  "use N of the plan's GPUs (default all)" },
	{ "hardware", 0, OPT_STR, offsetof(struct estimate_cmd_opts, hardware),
	  "NAME", "the plan's hardware model to size on (default: the one "
	  "with the most GPUs)" },
	{ "serve", 0, OPT_BOOL, offsetof(struct estimate_cmd_opts, serve), NULL,
	  "size inference instead: weights, KV cache, replicas, decode bound" },
	{ "context", 0, OPT_LONG, offsetof(struct estimate_cmd_opts, context),
	  "N", "--serve: tokens per request (default: the model's seq)" },
	{ "requests", 0, OPT_LONG, offsetof(struct estimate_cmd_opts,
	  requests), "N", "--serve: concurrent requests per replica (default: "
	  "as many as fit)" },
	{ "measured", 0, OPT_STR, offsetof(struct estimate_cmd_opts, measured),
	  "FILE", "measured all-reduce and GEMM figures (default "
	  ".provision/CLUSTER/measured.json beside the plan, if present)" },
	{ "json", 0, OPT_BOOL, offsetof(struct estimate_cmd_opts, json), NULL,
	  "print every row and the numbers as JSON" },
	{ "quiet", 'q', OPT_BOOL, offsetof(struct estimate_cmd_opts, quiet),
	  NULL, "print only warnings, failures and the summary" },
	{ NULL, 0, OPT_END, 0, NULL, NULL }
};

/* A count option not given (any number typed, -1 too, is checked). */
#define ESTIMATE_UNSET	LONG_MIN

static void
cmd_estimate_init(void *p)
{
	struct estimate_cmd_opts	*o = p;

	o->zero = 1;
	o->micro_batch = 1;
	o->tp = o->pp = o->gpus = o->batch = o->seq = o->context =
	    o->requests = ESTIMATE_UNSET;
}

static int cmd_estimate_exec(struct cmd_ctx *, void *, int, char **);

const struct cmd_entry cmd_estimate_entry = {
	.name = "estimate",
	.usage = "--model SPEC [--tokens N] [--mfu F | --tflops X | "
	    "--model-tflops X] [--precision P] [--batch N] [--seq N] "
	    "[--serve] [--json] PLAN",
	.summary = "will this cluster train (or serve) a model, and in how "
	    "long: FLOPs, memory per GPU, layout, all-reduce",
	.opts = estimate_opts_spec,
	.opts_size = sizeof(struct estimate_cmd_opts),
	.opts_init = cmd_estimate_init,
	.flags = CMD_LOADS_PLAN,
	.exec = cmd_estimate_exec,
};


/* A positive count option, or not given; a usage error otherwise. */
static int
cmd_estimate_count(struct cmd_ctx *ctx, const char *name, long v, long max,
    long *out)
{
	if (v == ESTIMATE_UNSET)
		return 0;
	if (v < 1 || v > max)
		return cmd_usage_error(ctx, &cmd_estimate_entry, "--%s %ld: "
		    "give 1 to %ld", name, v, max);
	*out = v;
	return 0;
}

/* A positive number of TFLOPS (NULL: not given, out untouched). */
static int
cmd_estimate_tflops(struct cmd_ctx *ctx, const char *name, const char *s,
    double *out)
{
	if (s == NULL)
		return 0;
	if (str_to_double(s, out) != 0 || !(*out > 0) || isinf(*out))
		return cmd_usage_error(ctx, &cmd_estimate_entry, "--%s '%s' is "
		    "not a positive number", name, s);
	return 0;
}

/* Options into lib's struct; PROV_EXIT_USAGE after printing why. */
static int
cmd_estimate_opts(struct cmd_ctx *ctx, const struct estimate_cmd_opts *c,
    struct estimate_opts *o)
{
	double	v;
	char	buf[32];
	size_t	n;

	estimate_opts_init(o);
	if (c->tokens != NULL) {
		if (estimate_parse_count(c->tokens, &o->tokens) != 0)
			return cmd_usage_error(ctx, &cmd_estimate_entry,
			    "--tokens '%s' is not a count (300B, 2T, 1.4e12)",
			    c->tokens);
	}
	if (c->mfu != NULL) {
		int	pct;

		n = strlen(c->mfu);
		pct = n > 0 && c->mfu[n - 1] == '%';
		snprintf(buf, sizeof buf, "%.*s", (int)(pct ? n - 1 : n),
		    c->mfu);
		if (n >= sizeof buf || str_to_double(buf, &v) != 0 ||
		    !((pct ? v / 100 : v) > 0) || (pct ? v / 100 : v) > 1)
			return cmd_usage_error(ctx, &cmd_estimate_entry,
			    "--mfu '%s': give a fraction of peak, 0.4 or 40%%",
			    c->mfu);
		o->mfu = pct ? v / 100 : v;
	}
	if ((c->mfu != NULL) + (c->tflops != NULL) +
	    (c->model_tflops != NULL) > 1)
		return cmd_usage_error(ctx, &cmd_estimate_entry, "give one of "
		    "--mfu, --tflops and --model-tflops");
	if (cmd_estimate_tflops(ctx, "tflops", c->tflops, &o->tflops) != 0 ||
	    cmd_estimate_tflops(ctx, "model-tflops", c->model_tflops,
	    &o->model_tflops) != 0)
		return PROV_EXIT_USAGE;
	if (c->precision != NULL &&
	    estimate_prec_parse(c->precision, &o->prec) != 0) {
		const char	*near = str_suggest(c->precision,
		    estimate_prec_names);

		return cmd_usage_error(ctx, &cmd_estimate_entry, "unknown "
		    "precision '%s' (%s%s%s)", c->precision, near ?
		    "did you mean '" : "one of bf16, fp16, fp8, fp4, tf32, "
		    "fp64, int8", near ? near : "", near ? "'?" : "");
	}
	if (c->recompute != NULL &&
	    estimate_recompute_parse(c->recompute, &o->recompute) != 0)
		return cmd_usage_error(ctx, &cmd_estimate_entry, "--recompute "
		    "'%s': selective, none or full", c->recompute);
	if (c->zero < 0 || c->zero > 3)
		return cmd_usage_error(ctx, &cmd_estimate_entry, "--zero %ld: "
		    "a ZeRO stage is 0, 1, 2 or 3", c->zero);
	o->zero = (int)c->zero;
	if (cmd_estimate_count(ctx, "batch", c->batch, 100000000, &o->batch) ||
	    cmd_estimate_count(ctx, "micro-batch", c->micro_batch, 65536,
	    &o->micro_batch) ||
	    cmd_estimate_count(ctx, "tp", c->tp, 65536, &o->tp) ||
	    cmd_estimate_count(ctx, "pp", c->pp, 65536, &o->pp) ||
	    cmd_estimate_count(ctx, "gpus", c->gpus, 100000000, &o->gpus) ||
	    cmd_estimate_count(ctx, "context", c->context, 100000000,
	    &o->context) ||
	    cmd_estimate_count(ctx, "requests", c->requests, 100000000,
	    &o->requests))
		return PROV_EXIT_USAGE;
	if (!c->serve && (c->context != ESTIMATE_UNSET ||
	    c->requests != ESTIMATE_UNSET))
		return cmd_usage_error(ctx, &cmd_estimate_entry, "--context "
		    "and --requests size serving: add --serve");
	o->serve = c->serve;
	o->hardware = c->hardware;
	return 0;
}

static void
cmd_estimate_json(struct cmd_ctx *ctx, const struct estimate_model *m,
    const struct estimate_opts *o, const struct estimate_result *r)
{
	struct buf		b = BUF_INIT;
	struct json_writer	jw;

	json_init(&jw, &b);
	json_object_begin(&jw, NULL, 0);
	json_str(&jw, "plan", ctx->plan_path);
	json_str(&jw, "mode", o->serve ? "serve" : "train");
	json_object_begin(&jw, "model", 0);
	json_str(&jw, "id", m->id);
	json_str(&jw, "name", m->name);
	json_num(&jw, "params", r->params, -1);
	json_int(&jw, "layers", m->layers);
	json_int(&jw, "hidden", m->hidden);
	json_int(&jw, "heads", m->heads);
	json_int(&jw, "kv_heads", m->kv_heads);
	json_int(&jw, "ffn", m->ffn);
	json_int(&jw, "vocab", m->vocab);
	json_int(&jw, "seq", m->seq);
	json_end(&jw);
	json_object_begin(&jw, "estimate", 0);
	json_str(&jw, "gpu", r->gpu);
	json_int(&jw, "gpus", r->gpus);
	json_int(&jw, "nodes", r->nodes);
	json_int(&jw, "gpus_per_node", r->gpus_per_node);
	json_int(&jw, "nvlink_domain", r->nvlink_domain);
	json_str(&jw, "precision", estimate_prec_name(r->prec));
	json_num(&jw, "peak_tflops", r->peak_tflops, -1);
	json_num(&jw, "gpu_memory_bytes", r->gpu_mem_bytes, -1);
	json_bool(&jw, "fits", r->fits);
	json_int(&jw, "tp", r->tp);
	if (o->serve) {
		json_num(&jw, "weight_bytes", r->weight_bytes, -1);
		json_num(&jw, "kv_bytes_per_token", r->kv_bytes_token, -1);
		json_num(&jw, "kv_bytes_per_request", r->kv_bytes_request, -1);
		json_int(&jw, "context", r->context);
		json_int(&jw, "replica_gpus", r->replica_gpus);
		json_int(&jw, "replicas", r->replicas);
		json_int(&jw, "max_requests", r->max_requests);
		json_num(&jw, "decode_tokens_per_s", r->decode_tok_s, -1);
	} else {
		json_int(&jw, "pp", r->pp);
		json_int(&jw, "dp", r->dp);
		json_int(&jw, "batch", r->batch);
		json_num(&jw, "tokens", r->tokens, -1);
		json_num(&jw, "achieved_tflops", r->achieved_tflops, -1);
		json_num(&jw, "model_flops", r->model_flops, -1);
		json_num(&jw, "hardware_flops", r->hw_flops, -1);
		json_num(&jw, "seconds", r->seconds, -1);
		json_num(&jw, "days", r->days, -1);
		json_num(&jw, "gpu_hours", r->gpu_hours, -1);
		json_num(&jw, "steps", r->steps, -1);
		json_num(&jw, "step_seconds", r->step_s, -1);
		json_num(&jw, "state_bytes_per_gpu", r->state_bytes, -1);
		json_num(&jw, "activation_bytes_per_gpu", r->act_bytes, -1);
		json_num(&jw, "allreduce_seconds", r->allreduce_s, -1);
	}
	json_str(&jw, "measured", o->measured != NULL ? o->measured->file :
	    NULL);
	json_end(&jw);
	rows_to_json(&jw, "rows", &r->rows);
	json_object_begin(&jw, "summary", 0);
	rows_count_json(&jw, &r->rows);
	json_end(&jw);
	json_end(&jw);
	json_finish(&jw);
	fwrite(b.buf, 1, b.len, ctx->out);
	buf_release(&b);
}

static void
cmd_estimate_summary(struct cmd_ctx *ctx, const struct estimate_model *m,
    const struct estimate_opts *o, const struct estimate_result *r)
{
	fprintf(ctx->out, "%s: %s on %s x %s: ", ctx->plan_path, m->id,
	    check_fmt((double)r->gpus, 0).s, r->gpu);
	if (o->serve && r->replicas > 0)
		fprintf(ctx->out, "%s replica%s of %ld GPU%s, %s request%s "
		    "each: ", check_fmt((double)r->replicas, 0).s,
		    r->replicas == 1 ? "" : "s", r->replica_gpus,
		    r->replica_gpus == 1 ? "" : "s",
		    check_fmt((double)r->max_requests, 0).s,
		    r->max_requests == 1 ? "" : "s");
	else if (!o->serve)
		fprintf(ctx->out, "%s days, %s GPU-hours, t=%ld x p=%ld x "
		    "d=%ld: ", check_fmt(r->days, 1).s,
		    check_fmt(r->gpu_hours, 0).s, r->tp, r->pp, r->dp);
	fprintf(ctx->out, "%s (%zu ok, %zu warnings, %zu failed)\n",
	    rows_count(&r->rows, ROW_FAIL) > 0 ? "DOES NOT FIT" : "FITS",
	    rows_count(&r->rows, ROW_OK), rows_count(&r->rows, ROW_WARN),
	    rows_count(&r->rows, ROW_FAIL));
}

/* --measured, else the state folder's measured.json when present. */
static int
cmd_estimate_measured(struct cmd_ctx *ctx, const char *given,
    struct estimate_measured *me, char **path)
{
	struct prov_errs	errs = PROV_ERRS_INIT;
	int			r = 0;

	*path = given != NULL ? xstrdup(given) :
	    xasprintf("%s/.provision/%s/measured.json", ctx->plan->dir,
	    ctx->plan->cluster);
	if (given == NULL && access(*path, F_OK) != 0) {
		free(*path);
		*path = NULL;
		return 1;
	}
	if (estimate_measured_load(me, *path, &errs) != 0) {
		cmd_print_errs(ctx, &errs);
		r = -1;
	}
	prov_errs_release(&errs);
	return r;
}

static int
cmd_estimate_exec(struct cmd_ctx *ctx, void *optsp, int argc, char **argv)
{
	struct estimate_cmd_opts	*c = optsp;
	struct estimate_opts		 o;
	struct estimate_model		 m;
	struct estimate_measured	 me;
	struct estimate_result		 res = ESTIMATE_RESULT_INIT;
	struct cmd_rows_view		 view = { "SUBJECT", "WHAT", "VALUE",
					    "LIMIT", estimate_groups, 0 };
	struct prov_err			 err = PROV_ERR_INIT;
	char				*mpath = NULL;
	int				 r;

	memset(&me, 0, sizeof me);
	yml_doc_init(&me.doc);
	if (argc > 0)
		return cmd_usage_error(ctx, &cmd_estimate_entry, "unexpected "
		    "argument '%s'", argv[0]);
	if (c->model == NULL)
		return cmd_usage_error(ctx, &cmd_estimate_entry, "missing "
		    "--model (a preset: 'provision catalog model')");
	if ((r = cmd_estimate_opts(ctx, c, &o)) != 0)
		return r;
	if (estimate_model_parse(&m, ctx->plan->catalog, c->model, &err) != 0)
		goto usage;
	if (cmd_estimate_count(ctx, "seq", c->seq, 10000000, &m.seq) != 0) {
		r = PROV_EXIT_USAGE;
		goto out;
	}
	switch (cmd_estimate_measured(ctx, c->measured, &me, &mpath)) {
	case -1:
		r = PROV_EXIT_USAGE;
		goto out;
	case 0:
		o.measured = &me;
		break;
	}
	if (estimate_plan(&res, ctx->plan, &m, &o, &err) != 0)
		goto usage;
	if (c->json)
		cmd_estimate_json(ctx, &m, &o, &res);
	else {
		view.quiet = c->quiet;
		if (cmd_rows_print(ctx, &res.rows, &view) > 0)
			fputc('\n', ctx->out);
		cmd_estimate_summary(ctx, &m, &o, &res);
	}
	r = rows_count(&res.rows, ROW_FAIL) > 0 ? PROV_EXIT_FAIL :
	    PROV_EXIT_OK;
	goto out;
usage:
	cmd_error(ctx, &err);
	r = PROV_EXIT_USAGE;
out:
	estimate_measured_release(&me);
	free(mpath);
	estimate_result_release(&res);
	prov_err_release(&err);
	return r;
}

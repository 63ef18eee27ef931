/*
 * estimate.c: size a model on a plan's GPUs (estimate.h, docs/estimate.md).
 *
 * Training, group by group:
 * model	parameters (published, or counted from the shape), tokens
 *		(given, published, or 20 per parameter) and the batch.
 * compute	the GPU's dense peak at the precision (catalog, or a measured
 *		GEMM figure), the throughput reached (peak x MFU, --tflops or
 *		--model-tflops),
 *		the run's FLOPs (model FLOPs: three passes; hardware FLOPs: with
 *		what is recomputed), and so days, GPU-hours and a step's time.
 * memory	Adam state (16 bytes per parameter, ZeRO-sharded) and
 *		activations (Korthikanti et al.) per GPU for tensor x pipeline
 *		layouts, smallest first; the first that fits is the layout.
 * network	tensor parallelism inside one NVLink domain, and the gradient
 *		all-reduce of a step (NVLink inside a node, the node's fabric
 *		ports between nodes, or a measured bus bandwidth) against the
 *		backward pass it hides behind.
 * Serving (--serve): weights and KV cache per request, the smallest
 * tensor-parallel replica that holds them, the replicas the plan holds,
 * and the memory-bandwidth bound on decoding.
 *
 * Each row's hint says where its number came from; the formulas are
 * the exported functions at the top.
 */
#include "compat.h"

#include <math.h>

#include "buf.h"
#include "catalog.h"
#include "check.h"
#include "estimate.h"
#include "plan.h"
#include "row.h"
#include "schema.h"
#include "str.h"

const char *const estimate_groups[] = { "model", "compute", "memory",
    "network", "serve", NULL };

/* In enum order from ESTIMATE_BF16. */
const char *const estimate_prec_names[] = { "bf16", "fp16", "fp8", "fp4",
    "tf32", "fp64", "int8", NULL };
static const char *const estimate_prec_fields[] = { "bf16_tflops",
    "fp16_tflops", "fp8_tflops", "fp4_tflops", "tf32_tflops", "fp64_tflops",
    "int8_tops" };
static const double estimate_prec_size[] = { 2, 2, 1, 0.5, 4, 8, 1 };

static const char *const estimate_rc_names[] = { "selective", "none",
    "full", NULL };

/* ------------------------------------------------------------------ */
/* Formulas.                                                           */

/* Weight matrices of one layer: attention (Q, K, V, O) and the MLP. */
static double
estimate_layer_weights(const struct estimate_model *m)
{
	double	h = (double)m->hidden, kvd = (double)m->kv_heads *
	    (double)m->hidden / (double)m->heads;

	return 2 * h * h + 2 * h * kvd + (m->gated ? 3 : 2) * h *
	    (double)m->ffn;
}

double
estimate_params(const struct estimate_model *m)
{
	double	h = (double)m->hidden, kvd = (double)m->kv_heads * h /
	    (double)m->heads, layer = estimate_layer_weights(m), extra;

	/*
	 * GPT-style layers carry biases and two LayerNorms (weight and
	 * bias); Llama-style ones no biases and two RMSNorms.
	 */
	if (m->gated)
		extra = 2 * h;
	else
		extra = (h + 2 * kvd) + h + (double)m->ffn + h + 4 * h;
	return (double)m->layers * (layer + extra) + (double)m->vocab * h *
	    (m->tied ? 1 : 2) + (m->gated ? h : 2 * h);
}

double
estimate_flops_6nd(double params, double tokens)
{
	return 6 * params * tokens;
}

double
estimate_flops_token(const struct estimate_model *m, long seq,
    enum estimate_recompute rc)
{
	double	l = (double)m->layers, h = (double)m->hidden;
	double	matmul = 2 * l * estimate_layer_weights(m);
	double	attn = 4 * l * (double)seq * h;
	double	logits = 2 * (double)m->vocab * h;
	double	f = 3 * (matmul + attn + logits);

	if (rc == ESTIMATE_RC_SELECTIVE)
		f += attn;
	else if (rc == ESTIMATE_RC_FULL)
		f += matmul + attn;
	return f;
}

double
estimate_state_bytes(double params, int zero, long tp, long pp, long dp)
{
	double	mp = (double)tp * (double)pp, d = (double)(dp > 0 ? dp : 1);
	double	w = 2 * params / mp, g = 2 * params / mp;
	double	opt = 12 * params / mp;

	if (zero >= 1)
		opt /= d;
	if (zero >= 2)
		g /= d;
	if (zero >= 3)
		w /= d;
	return w + g + opt;
}

double
estimate_act_bytes(const struct estimate_model *m, long seq, long micro,
    long tp, long pp, long inflight, enum estimate_recompute rc)
{
	double	sbh = (double)seq * (double)micro * (double)m->hidden;
	double	t = (double)tp, per;
	long	stage = (m->layers + pp - 1) / pp;

	switch (rc) {
	case ESTIMATE_RC_NONE:
		per = sbh * (34 + 5 * (double)m->heads * (double)seq /
		    (double)m->hidden) / t;
		break;
	case ESTIMATE_RC_FULL:
		per = 2 * sbh;
		break;
	default:
		per = 34 * sbh / t;
		break;
	}
	return per * (double)stage * (double)inflight;
}

double
estimate_allreduce_s(double bytes, long n, double busbw_gbs)
{
	if (n <= 1 || bytes <= 0)
		return 0;
	return 2.0 * (double)(n - 1) / (double)n * bytes / (busbw_gbs * 1e9);
}

double
estimate_kv_bytes_token(const struct estimate_model *m, double bytes)
{
	return 2 * (double)m->layers * (double)m->kv_heads *
	    ((double)m->hidden / (double)m->heads) * bytes;
}

double
estimate_prec_bytes(enum estimate_prec p)
{
	return p > ESTIMATE_PREC_AUTO && p < ESTIMATE_NPREC ?
	    estimate_prec_size[p - 1] : 2;
}

double
estimate_peak_tflops(const struct cat_gpu *g, enum estimate_prec p)
{
	switch (p) {
	case ESTIMATE_BF16:
		return g->bf16_tflops;
	case ESTIMATE_FP16:
		return g->fp16_tflops;
	case ESTIMATE_FP8:
		return g->fp8_tflops;
	case ESTIMATE_FP4:
		return g->fp4_tflops;
	case ESTIMATE_TF32:
		return g->tf32_tflops;
	case ESTIMATE_FP64:
		return g->fp64_tflops;
	case ESTIMATE_INT8:
		return g->int8_tops;
	default:
		return NAN;
	}
}

/* ------------------------------------------------------------------ */
/* Parsing.                                                            */

int
estimate_parse_count(const char *s, double *out)
{
	char	buf[64];
	size_t	n;
	double	v, mul = 1;

	if (s == NULL || (n = strlen(s)) == 0 || n >= sizeof buf)
		return -1;
	memcpy(buf, s, n + 1);
	switch (buf[n - 1]) {
	case 'K':
	case 'k':
		mul = 1e3;
		break;
	case 'M':
		mul = 1e6;
		break;
	case 'B':
	case 'G':
		mul = 1e9;
		break;
	case 'T':
		mul = 1e12;
		break;
	}
	if (mul != 1)
		buf[n - 1] = '\0';
	if (str_to_double(buf, &v) != 0 || !(v > 0) || isinf(v))
		return -1;
	*out = v * mul;
	return 0;
}

/* Index of `s` in a NULL-terminated list, or -1. */
static int
estimate_lookup(const char *const *list, const char *s)
{
	int	i;

	for (i = 0; list[i] != NULL; i++)
		if (strcmp(list[i], s) == 0)
			return i;
	return -1;
}

int
estimate_prec_parse(const char *s, enum estimate_prec *out)
{
	int	i = estimate_lookup(estimate_prec_names, s);

	if (i < 0)
		return -1;
	*out = (enum estimate_prec)(i + 1);
	return 0;
}

const char *
estimate_prec_name(enum estimate_prec p)
{
	return p > ESTIMATE_PREC_AUTO && p < ESTIMATE_NPREC ?
	    estimate_prec_names[p - 1] : "auto";
}

int
estimate_recompute_parse(const char *s, enum estimate_recompute *out)
{
	int	i = estimate_lookup(estimate_rc_names, s);

	if (i < 0)
		return -1;
	*out = (enum estimate_recompute)i;
	return 0;
}

const char *
estimate_recompute_name(enum estimate_recompute rc)
{
	return (size_t)rc < ARRAY_SIZE(estimate_rc_names) - 1 ?
	    estimate_rc_names[rc] : "?";
}

/* "selective recomputation", "no recomputation": for hints. */
static const char *
estimate_recompute_phrase(enum estimate_recompute rc)
{
	switch (rc) {
	case ESTIMATE_RC_NONE:
		return "no recomputation";
	case ESTIMATE_RC_FULL:
		return "full recomputation";
	default:
		return "selective recomputation";
	}
}

static const char *const estimate_model_keys[] = { "params", "layers",
    "hidden", "heads", "kv_heads", "ffn", "vocab", "seq", "mlp", "tied",
    NULL };

static void
estimate_model_from(struct estimate_model *m, const struct cat_model *c)
{
	m->id = c->m.id;
	m->name = c->m.name;
	m->preset = c;
	m->params = c->params;
	m->layers = c->layers;
	m->hidden = c->hidden;
	m->heads = c->heads;
	m->kv_heads = c->kv_heads > 0 ? c->kv_heads : 0;
	m->ffn = c->ffn;
	m->vocab = c->vocab;
	m->seq = c->seq;
	m->gated = c->mlp != NULL && strcmp(c->mlp, "swiglu") == 0;
	m->tied = c->tied;
	m->tokens = c->tokens;
	m->batch_tokens = c->batch_tokens;
}

/* One key=value of --model; -1 with err set. */
static int
estimate_model_set(struct estimate_model *m, const char *key,
    const char *val, struct prov_err *err)
{
	long	*dst = NULL;
	double	 v;

	if (strcmp(key, "mlp") == 0) {
		if (strcmp(val, "gelu") != 0 && strcmp(val, "swiglu") != 0)
			return prov_err_setloc(err, PROV_E_USAGE, NULL,
			    "gelu or swiglu", "--model: unknown mlp '%s'", val);
		m->gated = strcmp(val, "swiglu") == 0;
		return 0;
	}
	if (strcmp(key, "tied") == 0) {
		if (strcmp(val, "yes") != 0 && strcmp(val, "no") != 0)
			return prov_err_setloc(err, PROV_E_USAGE, NULL,
			    "yes or no", "--model: tied must be yes or no, "
			    "not '%s'", val);
		m->tied = strcmp(val, "yes") == 0;
		return 0;
	}
	if (estimate_parse_count(val, &v) != 0)
		return prov_err_setloc(err, PROV_E_USAGE, NULL,
		    "a positive number, e.g. 4096, 70B or 1.4e12",
		    "--model: %s '%s' is not a count", key, val);
	if (strcmp(key, "params") == 0) {
		m->params = v;
		return 0;
	}
	if (strcmp(key, "layers") == 0)
		dst = &m->layers;
	else if (strcmp(key, "hidden") == 0)
		dst = &m->hidden;
	else if (strcmp(key, "heads") == 0)
		dst = &m->heads;
	else if (strcmp(key, "kv_heads") == 0)
		dst = &m->kv_heads;
	else if (strcmp(key, "ffn") == 0)
		dst = &m->ffn;
	else if (strcmp(key, "vocab") == 0)
		dst = &m->vocab;
	else if (strcmp(key, "seq") == 0)
		dst = &m->seq;
	if (v != floor(v) || v > 1e9)
		return prov_err_setloc(err, PROV_E_USAGE, NULL,
		    "a whole number up to 1e9", "--model: %s '%s' is not a "
		    "whole number", key, val);
	*dst = (long)v;
	return 0;
}

/* The shape must hold together before any formula divides by it. */
static int
estimate_model_check(struct estimate_model *m, struct prov_err *err)
{
	struct buf	miss = BUF_INIT;
	int		r = -1;

	if (m->layers <= 0)
		buf_adds(&miss, ", layers");
	if (m->hidden <= 0)
		buf_adds(&miss, ", hidden");
	if (m->heads <= 0)
		buf_adds(&miss, ", heads");
	if (m->vocab <= 0)
		buf_adds(&miss, ", vocab");
	if (m->seq <= 0)
		buf_adds(&miss, ", seq");
	if (m->ffn <= 0 && m->gated)
		buf_adds(&miss, ", ffn (mlp=swiglu has no default width)");
	if (miss.len > 0) {
		prov_err_setloc(err, PROV_E_USAGE, NULL, "or name a preset: "
		    "see 'provision catalog model'", "--model: missing %s",
		    miss.buf + 2);
		goto out;
	}
	if (m->ffn <= 0)
		m->ffn = 4 * m->hidden;
	if (m->kv_heads <= 0)
		m->kv_heads = m->heads;
	if (m->hidden % m->heads != 0) {
		prov_err_setloc(err, PROV_E_USAGE, NULL, "the head size is "
		    "hidden / heads", "--model: hidden %ld is not a multiple "
		    "of heads %ld", m->hidden, m->heads);
		goto out;
	}
	if (m->kv_heads > m->heads || m->heads % m->kv_heads != 0) {
		prov_err_setloc(err, PROV_E_USAGE, NULL, "each key/value head "
		    "serves a whole group of query heads", "--model: heads "
		    "%ld is not a multiple of kv_heads %ld", m->heads,
		    m->kv_heads);
		goto out;
	}
	r = 0;
out:
	buf_release(&miss);
	return r;
}

static int
estimate_model_unknown(const struct catalog *cat, const char *id,
    struct prov_err *err)
{
	const char	*near = str_suggest(id, catalog_ids(cat, CAT_MODEL));

	if (near != NULL)
		return prov_err_setloc(err, PROV_E_USAGE, NULL, NULL,
		    "--model: unknown model '%s' (did you mean '%s'?)", id,
		    near);
	return prov_err_setloc(err, PROV_E_USAGE, NULL, "see 'provision "
	    "catalog model', or give layers=,hidden=,...", "--model: unknown "
	    "model '%s'", id);
}

int
estimate_model_parse(struct estimate_model *out, const struct catalog *cat,
    const char *spec, struct prov_err *err)
{
	struct estimate_model	 m;
	char			*copy = xstrdup(spec), *item, *next, *eq;
	int			 first = 1, shape = 0, r = -1;

	memset(&m, 0, sizeof m);
	m.id = "custom";
	m.name = "custom model";
	m.params = m.tokens = m.batch_tokens = NAN;
	for (item = copy; item != NULL; item = next, first = 0) {
		if ((next = strchr(item, ',')) != NULL)
			*next++ = '\0';
		item = str_trim(item);
		if ((eq = strchr(item, '=')) == NULL) {
			const struct cat_model	*c = catalog_model(cat, item);

			if (!first) {
				prov_err_setloc(err, PROV_E_USAGE, NULL,
				    "write key=value after the preset",
				    "--model: '%s' is not key=value", item);
				goto out;
			}
			if (c == NULL) {
				estimate_model_unknown(cat, item, err);
				goto out;
			}
			estimate_model_from(&m, c);
			continue;
		}
		*eq = '\0';
		if (estimate_lookup(estimate_model_keys, item) < 0) {
			const char	*near = str_suggest(item,
			    estimate_model_keys);

			if (near != NULL)
				prov_err_setloc(err, PROV_E_USAGE, NULL, NULL,
				    "--model: unknown key '%s' (did you mean "
				    "'%s'?)", item, near);
			else
				prov_err_setloc(err, PROV_E_USAGE, NULL,
				    "params, layers, hidden, heads, kv_heads, "
				    "ffn, vocab, seq, mlp, tied",
				    "--model: unknown key '%s'", item);
			goto out;
		}
		if (estimate_model_set(&m, item, eq + 1, err) != 0)
			goto out;
		/* A changed shape is no longer the published model. */
		if (strcmp(item, "params") != 0 && strcmp(item, "seq") != 0)
			shape = 1;
	}
	if (shape && m.preset != NULL && !isnan(m.preset->params) &&
	    m.params == m.preset->params)
		m.params = NAN;
	if (estimate_model_check(&m, err) != 0)
		goto out;
	*out = m;
	r = 0;
out:
	free(copy);
	return r;
}

/* ------------------------------------------------------------------ */
/* Measured figures.                                                   */

#define MEAS(k, t, m, lo, hi) { k, t, offsetof(struct estimate_measured, m), \
	0, NULL, NULL, lo, hi }
#define GEMM(k, p) { k, SCHEMA_NUM, (size_t)(p) * sizeof(double), 0, NULL, \
	NULL, 1e-3, 1e6 }

static const struct schema_field estimate_gemm_fields[] = {
	GEMM("bf16", ESTIMATE_BF16),
	GEMM("fp16", ESTIMATE_FP16),
	GEMM("fp8", ESTIMATE_FP8),
	GEMM("fp4", ESTIMATE_FP4),
	GEMM("tf32", ESTIMATE_TF32),
	GEMM("fp64", ESTIMATE_FP64),
	GEMM("int8", ESTIMATE_INT8),
	{ NULL, SCHEMA_END, 0, 0, NULL, NULL, 1, 0 }
};

static const struct schema_field estimate_measured_fields[] = {
	{ "version", SCHEMA_INT, offsetof(struct estimate_measured, version),
	  SCHEMA_REQUIRED, NULL, NULL, 1, 1 },
	MEAS("written_by", SCHEMA_STR, written_by, 1, 0),
	MEAS("at", SCHEMA_STR, at, 1, 0),
	MEAS("partial", SCHEMA_BOOL, partial, 1, 0),
	{ "missing", SCHEMA_TEXT, offsetof(struct estimate_measured, missing),
	  SCHEMA_LIST, NULL, NULL, 1, 0 },
	MEAS("allreduce_busbw_gbs", SCHEMA_NUM, allreduce_busbw_gbs, 1e-3, 1e6),
	MEAS("allreduce_gpus", SCHEMA_INT, allreduce_gpus, 2, 1e9),
	MEAS("allreduce_bytes", SCHEMA_NUM, allreduce_bytes, 1, 1e15),
	{ "allreduce_nodes", SCHEMA_TEXT, offsetof(struct estimate_measured,
	  allreduce_nodes), SCHEMA_LIST, NULL, NULL, 1, 0 },
	MEAS("allreduce_tool", SCHEMA_TEXT, allreduce_tool, 1, 0),
	{ "gemm_tflops", SCHEMA_OBJ, offsetof(struct estimate_measured,
	  gemm_tflops), 0, NULL, estimate_gemm_fields, 1, 0 },
	{ "gemm_gpus", SCHEMA_OBJ, offsetof(struct estimate_measured,
	  gemm_gpus), 0, NULL, estimate_gemm_fields, 1, 0 },
	{ "gemm_nodes", SCHEMA_TEXT, offsetof(struct estimate_measured,
	  gemm_nodes), SCHEMA_LIST, NULL, NULL, 1, 0 },
	MEAS("gemm_tool", SCHEMA_TEXT, gemm_tool, 1, 0),
	{ NULL, SCHEMA_END, 0, 0, NULL, NULL, 1, 0 }
};

int
estimate_measured_load(struct estimate_measured *out, const char *path,
    struct prov_errs *errs)
{
	struct buf		 b = BUF_INIT;
	struct schema_ctx	 sc;
	size_t			 i, n0 = errs->n;
	int			 r = -1;

	memset(out, 0, sizeof *out);
	out->file = path;
	out->missing = (struct strvec)STRVEC_INIT;
	out->allreduce_nodes = (struct strvec)STRVEC_INIT;
	out->gemm_nodes = (struct strvec)STRVEC_INIT;
	out->allreduce_busbw_gbs = NAN;
	out->allreduce_bytes = NAN;
	out->allreduce_gpus = -1;
	for (i = 0; i < ESTIMATE_NPREC; i++)
		out->gemm_tflops[i] = out->gemm_gpus[i] = NAN;
	yml_doc_init(&out->doc);
	if (buf_read_file(&b, path) != 0) {
		struct prov_loc	loc = { NULL, 0, 0 };

		prov_errs_add(errs, PROV_E_USAGE, &loc, NULL, "cannot read "
		    "measured file '%s': %s", path, strerror(errno));
		goto out;
	}
	if (yml_load(&out->doc, path, b.buf, b.len, errs) != 0)
		goto out;
	sc.doc = &out->doc;
	sc.errs = errs;
	if (out->doc.root == NULL || out->doc.root->kind != YML_MAP) {
		struct prov_loc	loc = { path, 1, 1 };

		prov_errs_add(errs, PROV_E_USAGE, &loc, "see docs/estimate.md",
		    "a measured file is a mapping of figures");
		goto out;
	}
	schema_bind(&sc, out->doc.root, estimate_measured_fields, out);
	r = errs->n > n0 ? -1 : 0;
out:
	buf_release(&b);
	return r;
}

void
estimate_measured_release(struct estimate_measured *m)
{
	if (m == NULL)
		return;
	strvec_clear(&m->missing);
	strvec_clear(&m->allreduce_nodes);
	strvec_clear(&m->gemm_nodes);
	yml_doc_release(&m->doc);
}

/* ------------------------------------------------------------------ */
/* Rows.                                                               */

void
estimate_opts_init(struct estimate_opts *o)
{
	memset(o, 0, sizeof *o);
	o->tokens = o->mfu = o->tflops = o->model_tflops = NAN;
	o->prec = ESTIMATE_PREC_AUTO;
	o->micro_batch = 1;
	o->recompute = ESTIMATE_RC_SELECTIVE;
	o->zero = 1;
}

/* The GPU hardware of the plan that the estimate runs on. */
struct estimate_hw {
	const struct plan_hw	*hw;
	const struct cat_gpu	*gpu;
	long			 gpn, nodes;	/* GPUs per node; nodes */
	long			 domain;	/* GPUs per NVLink domain */
	double			 intra_gbs;	/* GPU to GPU, one way */
	char			*intra_how;
	double			 fabric_gbs;	/* per node, between nodes */
	char			*fabric_how;
	char			*others;	/* other GPU hardware; NULL */
	struct prov_loc		 loc;
};

struct estimate_ctx {
	const struct plan		*p;
	const struct estimate_model	*m;
	const struct estimate_opts	*o;
	struct estimate_result		*out;
	struct estimate_hw		 hw;
	char				*gpus_subject;	/* "1,024 x a100-..." */
};

/* About three significant digits, separators: 0.123, 12.3, 1,234. */
static struct check_num
estimate_sig(double v)
{
	double	a = fabs(v);

	return check_fmt(v, a < 1 ? 3 : a < 10 ? 2 : a < 100 ? 1 : 0);
}

/* 175 B, 1.4 T, 6.74 B, 512 M: counts of parameters and tokens. */
static struct check_num
estimate_count(double v)
{
	static const struct {
		double		 unit;
		const char	*name;
	} u[] = { { 1e12, "T" }, { 1e9, "B" }, { 1e6, "M" }, { 1e3, "K" } };
	struct check_num	n;
	size_t			i;

	for (i = 0; i < ARRAY_SIZE(u); i++)
		if (fabs(v) >= u[i].unit) {
			snprintf(n.s, sizeof n.s, "%.40s %s",
			    estimate_sig(v / u[i].unit).s, u[i].name);
			return n;
		}
	return estimate_sig(v);
}

/* 4.31e23: FLOP counts. */
static struct check_num
estimate_sci(double v)
{
	struct check_num	n;
	int			e;

	if (!(v > 0) || isinf(v))
		return check_fmt(v, 0);
	e = (int)floor(log10(v));
	if (v / pow(10, e) >= 9.995)
		e++;
	snprintf(n.s, sizeof n.s, "%.2fe%d", v / pow(10, e), e);
	return n;
}

/* 62.3 GB, 1,120 GB (decimal, as the catalog's memory_gb). */
static struct check_num
estimate_gb(double bytes)
{
	struct check_num	n;

	snprintf(n.s, sizeof n.s, "%.40s GB", estimate_sig(bytes / 1e9).s);
	return n;
}

/* A row of `group` about `what`, at the plan's hardware (check_row()). */
static struct row *
estimate_row(struct estimate_ctx *c, enum row_verdict v, const char *group,
    const char *what)
{
	struct row	*row = rows_add(&c->out->rows, v, what);

	row->group = group;
	row->loc = c->hw.loc;
	return row;
}

/* "(S-A, S-B)" of a catalog entry, "" when it has none. */
static char *
estimate_sources(const struct cat_meta *m)
{
	struct buf	b = BUF_INIT;
	size_t		i;

	for (i = 0; i < m->sources.n; i++)
		buf_addf(&b, "%s%s", i ? ", " : " (", m->sources.v[i]);
	if (b.len > 0)
		buf_addch(&b, ')');
	return buf_detach(&b, NULL);
}

/* `hint` (taken), and the plan's other GPU hardware when it has some. */
static char *
estimate_others(const struct estimate_ctx *c, char *hint)
{
	char	*s;

	if (c->hw.others == NULL)
		return hint;
	s = xasprintf("%s; only hardware '%s' counted, the plan also has %s "
	    "(--hardware to size those)", hint, c->hw.hw->name, c->hw.others);
	free(hint);
	return s;
}

/* ------------------------------------------------------------------ */
/* The plan's GPUs, NVLink and fabric.                                 */

static double
estimate_pcie_gbs(long gen, long lanes)
{
	/* GB/s per lane and direction after encoding, Gen1..Gen6. */
	static const double	lane[] = { 0, 0.25, 0.5, 0.985, 1.969, 3.938,
	    7.563 };

	if (gen <= 0 || gen >= (long)ARRAY_SIZE(lane) || lanes <= 0)
		return NAN;
	return lane[gen] * (double)lanes;
}

static int
estimate_is_baseboard(const struct cat_gpu *g)
{
	return g->form_factor != NULL && (str_starts(g->form_factor, "sxm") ||
	    strcmp(g->form_factor, "oam") == 0);
}

/* NVLink domain and the one-way GPU-to-GPU bandwidth inside a node. */
static void
estimate_hw_intra(struct estimate_hw *e)
{
	const struct cat_gpu	*g = e->gpu;
	const struct cat_system	*sys = e->hw->sys;

	if (!isnan(g->nvlink_gbs) && g->nvlink_gbs > 0) {
		if (sys != NULL && sys->nvlink_domain_gpus > 0)
			e->domain = sys->nvlink_domain_gpus;
		else if (estimate_is_baseboard(g))
			e->domain = e->gpn;
		else
			e->domain = e->gpn >= 2 ? 2 : 1;	/* bridges */
		e->intra_gbs = g->nvlink_gbs / 2;
		e->intra_how = xasprintf("NVLink %s GB/s one way (%s "
		    "nvlink_gbs %s both ways)%s", estimate_sig(e->intra_gbs).s,
		    g->m.id, estimate_sig(g->nvlink_gbs).s,
		    estimate_is_baseboard(g) ? "" : ", bridged pairs");
		return;
	}
	e->domain = 1;
	e->intra_gbs = estimate_pcie_gbs(g->pcie_gen, g->pcie_lanes);
	e->intra_how = xasprintf("PCIe Gen%ld x%ld %s GB/s one way, no "
	    "NVLink", g->pcie_gen, g->pcie_lanes,
	    estimate_sig(e->intra_gbs).s);
}

/*
 * The node's bandwidth between nodes, GB/s: its NICs on the networks with
 * role fabric; without one, on fast networks; without those, on any
 * network but management; without any, the system's built-in fabric
 * ports on the plan's fabric network.  Each port counts at the slower of
 * the NIC's and the network's speed.
 */
static void
estimate_hw_fabric(const struct plan *p, struct estimate_hw *e)
{
	struct buf	how = BUF_INIT;
	int		pass;
	size_t		i;

	for (pass = 0; pass < 3 && e->fabric_gbs <= 0; pass++) {
		for (i = 0; i < e->hw->nnics; i++) {
			const struct plan_nic	*nic = &e->hw->nics[i];
			const struct plan_net	*net = nic->network != NULL ?
			    plan_net_find(p, nic->network) : NULL;
			double			 gbps = NAN;
			long			 ports;
			int			 role_fabric, mgmt;

			if (net == NULL)
				continue;
			role_fabric = net->role != NULL &&
			    strcmp(net->role, "fabric") == 0;
			mgmt = net->role != NULL &&
			    (strcmp(net->role, "management") == 0 ||
			    strcmp(net->role, "bmc") == 0);
			if ((pass == 0 && !role_fabric) || (pass == 1 &&
			    !check_net_fast(net)) || (pass == 2 && mgmt))
				continue;
			if (nic->cat != NULL && !isnan(nic->cat->gbps))
				gbps = nic->cat->gbps;
			if (!isnan(net->gbps) && (isnan(gbps) ||
			    net->gbps < gbps))
				gbps = net->gbps;
			if (isnan(gbps))
				continue;
			ports = nic->cat != NULL && nic->cat->ports > 0 ?
			    nic->cat->ports : 1;
			e->fabric_gbs += gbps / 8 * (double)ports *
			    (double)(nic->count > 0 ? nic->count : 1);
			buf_addf(&how, "%s%ld x %s on '%s' (%s Gb/s",
			    how.len ? ", " : "", nic->count > 0 ? nic->count :
			    1, nic->model, net->name, estimate_sig(gbps).s);
			if (ports > 1)
				buf_addf(&how, " x %ld ports", ports);
			buf_addch(&how, ')');
		}
	}
	/* A system's built-in fabric ports, when the plan names no NIC. */
	if (e->fabric_gbs <= 0 && e->hw->sys != NULL) {
		const struct plan_net	*fab = plan_net_by_role(p, "fabric");

		for (i = 0; fab != NULL && i < e->hw->sys->nnics; i++) {
			const struct cat_fixed	*f = &e->hw->sys->nics[i];
			const struct cat_nic	*n = catalog_nic(p->catalog,
			    f->model);
			double			 gbps;

			if (n == NULL || f->role == NULL ||
			    strcmp(f->role, "fabric") != 0 || isnan(n->gbps))
				continue;
			gbps = !isnan(fab->gbps) && fab->gbps < n->gbps ?
			    fab->gbps : n->gbps;
			e->fabric_gbs += gbps / 8 * (double)(n->ports > 0 ?
			    n->ports : 1) * (double)f->count;
			buf_addf(&how, "%s%ld x %s built in, on '%s' (%s Gb/s)",
			    how.len ? ", " : "", f->count, f->model, fab->name,
			    estimate_sig(gbps).s);
		}
	}
	e->fabric_how = buf_detach(&how, NULL);
}

static int
estimate_hw_pick(struct estimate_ctx *c, struct prov_err *err)
{
	const struct plan	*p = c->p;
	struct estimate_hw	*e = &c->hw;
	long			*nodes = xcalloc(p->nhw + 1, sizeof *nodes);
	struct buf		 others = BUF_INIT;
	const struct plan_hw	*best = NULL;
	long			 bestn = 0;
	size_t			 i;
	int			 r = -1;

	for (i = 0; i < p->nnodes; i++)
		if (p->nodes[i].hw != NULL)
			nodes[p->nodes[i].hw - p->hw]++;
	if (c->o->hardware != NULL) {
		const struct plan_hw	*h = plan_hw_find(p, c->o->hardware);

		if (h == NULL) {
			const char	**names = xcalloc(p->nhw + 1,
			    sizeof *names);
			const char	 *near;

			for (i = 0; i < p->nhw; i++)
				names[i] = p->hw[i].name;
			near = str_suggest(c->o->hardware, names);
			prov_err_setloc(err, PROV_E_USAGE, NULL, NULL,
			    "--hardware: no hardware '%s' in the plan%s%s%s",
			    c->o->hardware, near ? " (did you mean '" : "",
			    near ? near : "", near ? "'?)" : "");
			free(names);
			goto out;
		}
		if (h->ngpus <= 0 || h->gpu_cat == NULL ||
		    nodes[h - p->hw] == 0) {
			prov_err_setloc(err, PROV_E_USAGE, NULL, NULL,
			    "--hardware: '%s' %s", h->name, h->ngpus <= 0 ||
			    h->gpu_cat == NULL ? "has no GPUs" :
			    "is used by no node");
			goto out;
		}
		best = h;
	}
	for (i = 0; best == NULL && i < p->nhw; i++) {
		long	n = p->hw[i].gpu_cat != NULL ? p->hw[i].ngpus *
		    nodes[i] : 0;

		if (n > bestn) {
			best = &p->hw[i];
			bestn = n;
		}
	}
	if (best == NULL) {
		prov_err_setloc(err, PROV_E_USAGE, NULL, "add nodes whose "
		    "hardware has gpus:", "the plan has no GPU nodes to "
		    "estimate on");
		goto out;
	}
	for (i = 0; i < p->nhw; i++)
		if (&p->hw[i] != best && p->hw[i].gpu_cat != NULL &&
		    p->hw[i].ngpus > 0 && nodes[i] > 0)
			buf_addf(&others, "%s'%s' (%ld x %s)", others.len ?
			    ", " : "", p->hw[i].name, p->hw[i].ngpus * nodes[i],
			    p->hw[i].gpu_cat->m.id);
	e->hw = best;
	e->gpu = best->gpu_cat;
	e->gpn = best->ngpus;
	e->nodes = nodes[best - p->hw];
	e->others = others.len ? buf_detach(&others, NULL) : NULL;
	e->loc = plan_loc(p, best->gpus.src != NULL ? best->gpus.src :
	    best->src, NULL);
	estimate_hw_intra(e);
	estimate_hw_fabric(p, e);
	r = 0;
out:
	buf_release(&others);
	free(nodes);
	return r;
}

/* ------------------------------------------------------------------ */
/* Model, compute.                                                     */

static void
estimate_rows_model(struct estimate_ctx *c)
{
	struct row			*row;
	const struct estimate_model	*m = c->m;
	struct estimate_result		*r = c->out;
	double				 counted = estimate_params(m);
	char				*src = m->preset != NULL ?
	    estimate_sources(&m->preset->m) : xstrdup("");

	r->params = isnan(m->params) ? counted : m->params;
	row = estimate_row(c, ROW_OK, "model", "parameters");
	row->subject = xasprintf("model '%s'", m->id);
	row->measured = xstrdup(estimate_count(r->params).s);
	row->hint = isnan(m->params) ? xasprintf("counted from the shape: "
	    "layer weights, biases and norms, %s embedding%s", m->tied ? "tied"
	    : "untied", m->tied ? "" : "s") : xasprintf("published%s; the "
	    "shape counts %s", src, estimate_count(counted).s);
	row->value = r->params;
	row = estimate_row(c, ROW_OK, "model", "shape");
	row->subject = xasprintf("model '%s'", m->id);
	row->measured = xasprintf("%ld layers x hidden %s", m->layers,
	    check_fmt((double)m->hidden, 0).s);
	row->hint = xasprintf("%ld heads of %ld, %ld key/value heads, %s %s, "
	    "vocab %s, seq %s%s", m->heads, m->hidden / m->heads, m->kv_heads,
	    m->gated ? "swiglu" : "gelu", check_fmt((double)m->ffn, 0).s,
	    check_fmt((double)m->vocab, 0).s, check_fmt((double)m->seq, 0).s,
	    src);
	free(src);
}

/* ", by WHO, at WHEN (partial: ...)": who measured, as the file says. */
static char *
estimate_measured_by(const struct estimate_measured *me)
{
	return xasprintf("%s%s%s%s%s", me->written_by ? ", by " : "",
	    me->written_by ? me->written_by : "", me->at ? ", at " : "",
	    me->at ? me->at : "", me->partial ? " (partial: see its "
	    "'missing')" : "");
}

/* Peak per GPU: the measured GEMM figure, else the catalog's. */
static char *
estimate_peak(struct estimate_ctx *c, double *peak)
{
	const struct estimate_measured	*me = c->o->measured;
	const struct cat_gpu		*g = c->hw.gpu;
	enum estimate_prec		 pr = c->out->prec;
	const char			*field = estimate_prec_fields[pr - 1];
	char				*src, *how, *by;
	struct buf			 other = BUF_INIT;
	size_t				 i;

	if (me != NULL && !isnan(me->gemm_tflops[pr])) {
		*peak = me->gemm_tflops[pr];
		by = estimate_measured_by(me);
		how = xasprintf("measured: %s gemm_tflops.%s%s; the catalog "
		    "says %s", me->file, estimate_prec_name(pr), by,
		    estimate_sig(estimate_peak_tflops(g, pr)).s);
		free(by);
		return how;
	}
	/* Measured at other precisions only: say so, use none of them. */
	for (i = 1; me != NULL && i < ESTIMATE_NPREC; i++)
		if (!isnan(me->gemm_tflops[i]))
			buf_addf(&other, "%s%s", other.len ? ", " : "",
			    estimate_prec_name((enum estimate_prec)i));
	*peak = estimate_peak_tflops(g, pr);
	src = estimate_sources(&g->m);
	how = xasprintf("datasheet: catalog %s %s%s%s%s%s%s%s", g->m.id, field,
	    strvec_find(&g->m.unconfirmed, field) >= 0 ? " (unconfirmed)" : "",
	    src, other.len ? "; " : "", other.len ? me->file : "",
	    other.len ? " has GEMM figures for " : "", other.len ? other.buf :
	    "");
	if (other.len) {
		char	*t = xasprintf("%s only (--precision to use one)", how);

		free(how);
		how = t;
	}
	buf_release(&other);
	free(src);
	return how;
}

static void
estimate_rows_compute(struct estimate_ctx *c, long batch,
    const char *batch_how)
{
	struct row			*row;
	const struct estimate_model	*m = c->m;
	const struct estimate_opts	*o = c->o;
	struct estimate_result		*r = c->out;
	double				 n = (double)r->gpus, peak, mfu;
	double				 ftok_model, ftok_hw;
	char				*peak_how, *ach_how;
	int				 hw;

	peak_how = estimate_peak(c, &peak);
	r->peak_tflops = peak;
	ftok_model = estimate_flops_token(m, m->seq, ESTIMATE_RC_NONE);
	ftok_hw = estimate_flops_token(m, m->seq, o->recompute);
	r->model_flops = ftok_model * r->tokens;
	r->hw_flops = ftok_hw * r->tokens;
	if (!isnan(o->tflops)) {
		r->achieved_tflops = o->tflops;
		r->seconds = r->hw_flops / (n * o->tflops * 1e12);
		mfu = r->model_flops / (r->seconds * n * peak * 1e12);
		ach_how = xasprintf("--tflops %s, hardware FLOPs with %s: "
		    "%s%% MFU", estimate_sig(o->tflops).s,
		    estimate_recompute_phrase(o->recompute),
		    estimate_sig(mfu * 100).s);
	} else if (!isnan(o->model_tflops)) {
		mfu = o->model_tflops / peak;
		r->achieved_tflops = o->model_tflops;
		r->seconds = r->model_flops / (n * o->model_tflops * 1e12);
		ach_how = xasprintf("--model-tflops %s: model FLOPs, %s%% MFU",
		    estimate_sig(o->model_tflops).s, estimate_sig(mfu * 100).s);
	} else {
		mfu = !isnan(o->mfu) ? o->mfu : ESTIMATE_MFU;
		r->achieved_tflops = peak * mfu;
		r->seconds = r->model_flops / (n * r->achieved_tflops * 1e12);
		ach_how = !isnan(o->mfu) ? xasprintf("--mfu %s: model FLOPs "
		    "per second over peak", estimate_sig(o->mfu).s) :
		    xasprintf("%s%% MFU by default: Llama 3 405B pre-training "
		    "reached 38-43%% on 8,192-16,384 H100 (S-LLAMA3 Table 4); "
		    "--mfu to change", estimate_sig(mfu * 100).s);
	}
	r->days = r->seconds / 86400;
	r->gpu_hours = r->seconds * n / 3600;
	r->batch = batch;
	r->steps = r->tokens / ((double)batch * (double)m->seq);
	r->step_s = r->seconds / r->steps;

	row = estimate_row(c, ROW_OK, "compute", "peak");
	row->subject = xstrdup(r->gpu);
	row->measured = xasprintf("%s TFLOPS %s", estimate_sig(peak).s,
	    estimate_prec_name(r->prec));
	row->hint = estimate_others(c, peak_how);
	row->value = peak;
	row = estimate_row(c, ROW_OK, "compute", "achieved");
	row->subject = xstrdup(r->gpu);
	row->measured = xasprintf("%s TFLOPS",
	    estimate_sig(r->achieved_tflops).s);
	row->hint = ach_how;
	row->value = r->achieved_tflops;
	row->max = peak;
	hw = !isnan(o->tflops);
	row = estimate_row(c, ROW_OK, "compute", "training FLOPs");
	row->subject = xstrdup(c->gpus_subject);
	row->measured = xstrdup(estimate_sci(hw ? r->hw_flops :
	    r->model_flops).s);
	row->limit = xasprintf("%s", hw ? "hardware FLOPs" : "model FLOPs");
	row->hint = xasprintf("%s per token = 3 passes x (2 x %s layer weights "
	    "+ 4 x %ld layers x %s seq x %s hidden (attention) + 2 x %s vocab "
	    "x hidden (logits)) (S-MEGATRON21 eq. 3); with %s the GPUs compute "
	    "%s (S-KORTHIKANTI22); 6ND: %s (S-KAPLAN20)",
	    estimate_sci(ftok_model).s, estimate_count((double)m->layers *
	    estimate_layer_weights(m)).s, m->layers, check_fmt((double)m->seq,
	    0).s, check_fmt((double)m->hidden, 0).s, check_fmt((double)m->vocab,
	    0).s, estimate_recompute_phrase(o->recompute),
	    estimate_sci(r->hw_flops).s,
	    estimate_sci(estimate_flops_6nd(r->params, r->tokens)).s);
	row->value = hw ? r->hw_flops : r->model_flops;
	row = estimate_row(c, ROW_OK, "compute", "time");
	row->subject = xstrdup(c->gpus_subject);
	row->measured = xasprintf("%s days", estimate_sig(r->days).s);
	row->limit = xasprintf("%s tokens", estimate_count(r->tokens).s);
	row->hint = xasprintf("%s GPU-hours: FLOPs / (%s GPUs x %s TFLOPS)",
	    check_fmt(r->gpu_hours, 0).s, check_fmt(n, 0).s,
	    estimate_sig(r->achieved_tflops).s);
	row->value = r->days;
	row = estimate_row(c, ROW_OK, "compute", "step");
	row->subject = xstrdup(c->gpus_subject);
	row->measured = xasprintf("%s s", estimate_sig(r->step_s).s);
	row->limit = xasprintf("%s x %s tokens", check_fmt((double)batch, 0).s,
	    check_fmt((double)m->seq, 0).s);
	row->hint = xasprintf("%s steps; batch %s", check_fmt(r->steps, 0).s,
	    batch_how);
	row->value = r->step_s;
}

/* ------------------------------------------------------------------ */
/* Memory: the smallest tensor x pipeline layout that fits.            */

struct estimate_fit {
	long	tp, pp, dp, inflight;
	double	state, act;
};

static void
estimate_fit_eval(const struct estimate_ctx *c, struct estimate_fit *f,
    long tp, long pp)
{
	const struct estimate_opts	*o = c->o;
	long				 micro = o->micro_batch, mbs;

	f->tp = tp;
	f->pp = pp;
	f->dp = c->out->gpus / (tp * pp);
	mbs = c->out->batch / (f->dp * micro);
	f->inflight = pp < mbs ? pp : mbs > 0 ? mbs : 1;
	f->state = estimate_state_bytes(c->out->params, o->zero, tp, pp,
	    f->dp);
	f->act = estimate_act_bytes(c->m, c->m->seq, micro, tp, pp,
	    f->inflight, o->recompute);
}

/*
 * Candidates by model-parallel size t x p, smallest first; for one size,
 * tensor parallelism as wide as the NVLink domain allows first
 * (S-MEGATRON21 takeaway 1).  The first under `limit` bytes per GPU wins;
 * 0 when none is (*best: the one needing the least memory).
 */
static int
estimate_layout_under(const struct estimate_ctx *c, double limit,
    struct estimate_fit *best)
{
	const struct estimate_model	*m = c->m;
	long				 gpus = c->out->gpus, mp, tp, top;
	int				 pass;

	memset(best, 0, sizeof *best);
	for (mp = 1; mp <= gpus; mp++) {
		if (gpus % mp != 0)
			continue;
		for (top = 1; top * 2 <= mp; top *= 2)
			;
		for (pass = 0; pass < 2; pass++)
			for (tp = top; tp >= 1; tp /= 2) {
				struct estimate_fit	f;

				if (mp % tp != 0 || m->heads % tp != 0 ||
				    mp / tp > m->layers ||
				    (pass == 0) != (tp <= c->hw.domain))
					continue;
				estimate_fit_eval(c, &f, tp, mp / tp);
				if (best->tp == 0 || f.state + f.act <
				    best->state + best->act)
					*best = f;
				if (f.state + f.act <= limit) {
					*best = f;
					return 1;
				}
			}
	}
	return 0;
}

/* Under 90% of a GPU's memory if any layout is, else under all of it. */
static int
estimate_layout(const struct estimate_ctx *c, struct estimate_fit *best)
{
	double	mem = c->out->gpu_mem_bytes;

	return estimate_layout_under(c, mem * ESTIMATE_WARN_RATIO, best) ||
	    estimate_layout_under(c, mem, best);
}

static void
estimate_rows_memory(struct estimate_ctx *c)
{
	struct row			*row;
	const struct estimate_opts	*o = c->o;
	struct estimate_result		*r = c->out;
	struct estimate_fit		 f, dp1;
	double				 mem = r->gpu_mem_bytes, tot;
	char				*hint, *zero;
	int				 fits;

	if (o->tp > 0 || o->pp > 0) {
		estimate_fit_eval(c, &f, o->tp > 0 ? o->tp : 1,
		    o->pp > 0 ? o->pp : 1);
		fits = f.state + f.act <= mem;
	} else
		fits = estimate_layout(c, &f);
	estimate_fit_eval(c, &dp1, 1, 1);
	r->tp = f.tp;
	r->pp = f.pp;
	r->dp = f.dp;
	r->state_bytes = f.state;
	r->act_bytes = f.act;
	r->fits = fits;
	tot = f.state + f.act;

	row = estimate_row(c, ROW_OK, "memory", "training state");
	row->subject = xasprintf("model '%s'", c->m->id);
	row->measured = xstrdup(estimate_gb(ESTIMATE_STATE_BYTES *
	    r->params).s);
	row->hint = xasprintf("16 bytes per parameter: bf16 weights and "
	    "gradients, fp32 master weights and Adam moments (S-ZERO20); data "
	    "parallel alone with ZeRO-%d needs %s per GPU", o->zero,
	    estimate_gb(dp1.state + dp1.act).s);
	row->value = ESTIMATE_STATE_BYTES * r->params;
	if (o->tp > 0 || o->pp > 0)
		hint = xasprintf("given: %ld GPUs per replica, %ld replicas",
		    f.tp * f.pp, f.dp);
	else if (fits)
		hint = xasprintf("the smallest tensor x pipeline split that "
		    "fits: %ld GPUs per replica, %ld replicas; tensor parallel "
		    "first, up to the NVLink domain (S-MEGATRON21)",
		    f.tp * f.pp, f.dp);
	else
		hint = xasprintf("no split fits: the best (t=%ld x p=%ld) "
		    "needs %s per GPU; more or larger GPUs, --zero 3, or "
		    "--recompute full", f.tp, f.pp, estimate_gb(tot).s);
	row = estimate_row(c, fits ? ROW_OK : ROW_FAIL, "memory", "layout");
	row->subject = xstrdup(c->gpus_subject);
	row->measured = xasprintf("t=%ld x p=%ld, d=%ld", f.tp, f.pp, f.dp);
	row->limit = xasprintf("%s GPUs", check_fmt((double)r->gpus, 0).s);
	row->hint = hint;
	row->value = (double)(f.tp * f.pp);
	row->max = (double)r->gpus;
	zero = o->zero > 0 ? xasprintf(", ZeRO-%d over d = %ld", o->zero,
	    f.dp) : xstrdup("");
	row = estimate_row(c, tot > mem ? ROW_FAIL : tot > mem *
	    ESTIMATE_WARN_RATIO ? ROW_WARN : ROW_OK, "memory", "per GPU");
	row->subject = xstrdup(r->gpu);
	row->measured = xasprintf("%s (%s%%)", estimate_gb(tot).s,
	    estimate_sig(tot * 100 / mem).s);
	row->limit = xstrdup(estimate_gb(mem).s);
	row->hint = xasprintf("state %s (over t x p = %ld%s) + activations %s "
	    "(%ld micro-batch%s of %ld in flight x %ld layers, %s, "
	    "S-KORTHIKANTI22); buffers and the CUDA context are not counted",
	    estimate_gb(f.state).s, f.tp * f.pp, zero, estimate_gb(f.act).s,
	    f.inflight, f.inflight == 1 ? "" : "es", o->micro_batch,
	    (c->m->layers + f.pp - 1) / f.pp,
	    estimate_recompute_phrase(o->recompute));
	row->value = tot;
	row->max = mem;
	free(zero);
	if (r->batch < f.dp * o->micro_batch) {
		row = estimate_row(c, ROW_WARN, "memory", "batch");
		row->subject = xstrdup(c->gpus_subject);
		row->measured = xasprintf("%ld sequences", r->batch);
		row->limit = xasprintf("%ld replicas x %ld", f.dp,
		    o->micro_batch);
		row->hint = xstrdup("the batch does not give every replica a "
		    "micro-batch: a larger --batch, or fewer GPUs (--gpus)");
		row->value = (double)r->batch;
		row->max = (double)(f.dp * o->micro_batch);
	}
}

/* ------------------------------------------------------------------ */
/* Network.                                                            */

static void
estimate_rows_network(struct estimate_ctx *c)
{
	struct row			*row;
	const struct estimate_hw	*e = &c->hw;
	const struct estimate_measured	*me = c->o->measured;
	struct estimate_result		*r = c->out;
	double				 grad, backward, t;
	long				 k, nd;
	char				*how, *tsub, *by;

	tsub = xasprintf("t=%ld", r->tp);
	row = estimate_row(c, r->tp <= e->domain ? ROW_OK : ROW_WARN, "network",
	    "NVLink domain");
	row->subject = xstrdup("tensor parallel");
	row->measured = tsub;
	row->limit = xasprintf("%ld GPU%s per domain", e->domain, e->domain == 1
	    ? "" : "s");
	row->hint = r->tp == 1 ? xstrdup("no tensor-parallel traffic") : r->tp
	    <= e->domain ? xasprintf("each layer's all-reduces stay on %s",
	    e->intra_how) : xasprintf("tensor parallelism crosses %s: every "
	    "layer waits on it; keep t within %ld", e->domain > 1 ?
	    "the NVLink domain" : "PCIe and the fabric", e->domain);
	row->value = (double)r->tp;
	row->max = (double)e->domain;

	if (r->dp <= 1) {
		row = estimate_row(c, ROW_OK, "network", "gradient all-reduce");
		row->subject = xstrdup("data parallel");
		row->measured = xstrdup("none");
		row->hint = xstrdup("one replica: no gradients to exchange");
		row->value = 0;
		return;
	}
	/* bf16 gradients of this GPU's share of the model. */
	grad = 2 * r->params / (double)(r->tp * r->pp);
	k = e->gpn / r->tp;
	if (k < 1)
		k = 1;
	if (k > r->dp)
		k = r->dp;
	nd = (r->dp + k - 1) / k;
	if (me != NULL && !isnan(me->allreduce_busbw_gbs)) {
		t = estimate_allreduce_s(grad, r->dp, me->allreduce_busbw_gbs);
		by = estimate_measured_by(me);
		how = xasprintf("measured bus bandwidth %s GB/s: %s%s",
		    estimate_sig(me->allreduce_busbw_gbs).s, me->file, by);
		free(by);
	} else if (nd > 1 && e->fabric_gbs <= 0) {
		row = estimate_row(c, ROW_WARN, "network",
		    "gradient all-reduce");
		row->subject = xstrdup("data parallel");
		row->measured = xstrdup("unknown");
		row->hint = xasprintf("replicas span %ld nodes and hardware "
		    "'%s' has no NIC on a network between them", nd,
		    e->hw->name);
		return;
	} else {
		/*
		 * Hierarchical ring: the k replicas inside a node reduce over
		 * NVLink (or PCIe), then each GPU's 1/k share crosses the
		 * fabric on its own share of the node's ports.
		 */
		t = estimate_allreduce_s(grad, k, e->intra_gbs) +
		    estimate_allreduce_s(grad / (double)k, nd,
		    e->fabric_gbs / (double)e->gpn);
		if (nd == 1)
			how = xasprintf("inside one node over %s",
			    e->intra_how);
		else if (k == 1)
			how = xasprintf("one GPU per node in each ring: "
			    "across %ld nodes over %s = %s GB/s per node, 1/%ld "
			    "per GPU", nd, e->fabric_how,
			    estimate_sig(e->fabric_gbs).s, e->gpn);
		else
			how = xasprintf("%ld GPUs per node in each ring over "
			    "%s, then across %ld nodes over %s = %s GB/s per "
			    "node", k, e->intra_how, nd, e->fabric_how,
			    estimate_sig(e->fabric_gbs).s);
	}
	r->allreduce_s = t;
	backward = r->step_s * ESTIMATE_BACKWARD_SHARE;
	row = estimate_row(c, t > backward ? ROW_WARN : ROW_OK, "network",
	    "gradient all-reduce");
	row->subject = xstrdup("data parallel");
	row->measured = xasprintf("%s s per step", estimate_sig(t).s);
	row->limit = xasprintf("%s s backward", estimate_sig(backward).s);
	row->hint = xasprintf("%s%s of bf16 gradients per GPU, ring over "
	    "d=%ld: 2(d-1)/d x bytes / bus bandwidth (S-NCCLTESTS); %s", t >
	    backward ? "the network, not the GPUs, sets the pace: " : "",
	    estimate_gb(grad).s, r->dp, how);
	row->value = t;
	row->max = backward;
	free(how);
}

/* ------------------------------------------------------------------ */
/* Serving.                                                            */

static void
estimate_rows_serve(struct estimate_ctx *c)
{
	struct row			*row;
	const struct estimate_model	*m = c->m;
	const struct estimate_opts	*o = c->o;
	const struct estimate_hw	*e = &c->hw;
	struct estimate_result		*r = c->out;
	double				 bytes = estimate_prec_bytes(r->prec);
	double				 kvb = bytes < 1 ? 1 : bytes;
	double				 usable, need, step;
	long				 tp, want = o->requests > 0 ?
	    o->requests : 1, active;

	r->weight_bytes = r->params * bytes;
	r->context = o->context > 0 ? o->context : m->seq;
	r->kv_bytes_token = estimate_kv_bytes_token(m, kvb);
	r->kv_bytes_request = r->kv_bytes_token * (double)r->context;
	usable = r->gpu_mem_bytes * ESTIMATE_SERVE_MEM;

	row = estimate_row(c, ROW_OK, "serve", "weights");
	row->subject = xasprintf("model '%s'", m->id);
	row->measured = xstrdup(estimate_gb(r->weight_bytes).s);
	row->hint = xasprintf("%s parameters x %s bytes (%s)",
	    estimate_count(r->params).s, estimate_sig(bytes).s,
	    estimate_prec_name(r->prec));
	row->value = r->weight_bytes;
	row = estimate_row(c, ROW_OK, "serve", "KV cache");
	row->subject = xasprintf("model '%s'", m->id);
	row->measured = xasprintf("%s per request",
	    estimate_gb(r->kv_bytes_request).s);
	row->limit = xasprintf("%s tokens", check_fmt((double)r->context, 0).s);
	row->hint = xasprintf("%s bytes per token: 2 (K, V) x %ld layers x %ld "
	    "key/value heads x %ld x %s bytes", check_fmt(r->kv_bytes_token,
	    0).s, m->layers, m->kv_heads, m->hidden / m->heads,
	    estimate_sig(kvb).s);
	row->value = r->kv_bytes_request;

	/* The smallest power-of-two tensor-parallel replica that holds it. */
	for (tp = 1; tp <= r->gpus; tp *= 2)
		if ((r->weight_bytes + (double)want * r->kv_bytes_request) /
		    (double)tp <= usable)
			break;
	if (tp > r->gpus) {
		r->fits = 0;
		row = estimate_row(c, ROW_FAIL, "serve", "replica");
		row->subject = xstrdup(c->gpus_subject);
		row->measured = xstrdup("does not fit");
		row->limit = xasprintf("%s GB on %s GPUs", estimate_sig(usable *
		    (double)r->gpus / 1e9).s, check_fmt((double)r->gpus, 0).s);
		row->hint = xasprintf("weights and %ld request%s need %s; %s%% "
		    "of each GPU's memory is usable (S-VLLM)", want, want == 1 ?
		    "" : "s", estimate_gb(r->weight_bytes + (double)want *
		    r->kv_bytes_request).s, estimate_sig(ESTIMATE_SERVE_MEM *
		    100).s);
		row->value = r->weight_bytes;
		row->max = usable * (double)r->gpus;
		return;
	}
	r->fits = 1;
	r->tp = tp;
	r->replica_gpus = tp;
	r->replicas = r->gpus / tp;
	r->max_requests = (long)floor(((double)tp * usable - r->weight_bytes) /
	    r->kv_bytes_request);
	need = (r->weight_bytes + (double)want * r->kv_bytes_request) /
	    (double)tp;
	row = estimate_row(c, tp > e->domain && tp > 1 ? ROW_WARN : ROW_OK,
	    "serve", "replica");
	row->subject = xstrdup(c->gpus_subject);
	row->measured = xasprintf("t=%ld: %s per GPU", tp, estimate_gb(need).s);
	row->limit = xasprintf("%s (%s%% of %s)", estimate_gb(usable).s,
	    estimate_sig(ESTIMATE_SERVE_MEM * 100).s,
	    estimate_gb(r->gpu_mem_bytes).s);
	row->hint = estimate_others(c, xasprintf("the smallest tensor-parallel "
	    "split that holds the weights and %ld request%s (S-VLLM for the "
	    "usable share)%s", want, want == 1 ? "" : "s", tp > e->domain && tp
	    > 1 ? "; it crosses the NVLink domain, every layer waits on PCIe "
	    "or the fabric" : ""));
	row->value = need;
	row->max = usable;
	row = estimate_row(c, o->requests > r->max_requests ? ROW_FAIL : ROW_OK,
	    "serve", "requests");
	row->subject = xstrdup(c->gpus_subject);
	row->measured = xasprintf("%s per replica",
	    check_fmt((double)r->max_requests, 0).s);
	row->limit = o->requests > 0 ? xasprintf("%ld asked", o->requests) :
	    NULL;
	row->hint = xasprintf("concurrent requests of %s tokens whose KV cache "
	    "fits beside the weights; %s replicas of %ld GPU%s: %s at once",
	    check_fmt((double)r->context, 0).s, check_fmt((double)r->replicas,
	    0).s, tp, tp == 1 ? "" : "s", check_fmt((double)r->replicas *
	    (double)r->max_requests, 0).s);
	row->value = (double)r->max_requests;
	row->max = o->requests > 0 ? (double)o->requests : NAN;
	if (o->requests > r->max_requests)
		r->fits = 0;
	active = o->requests > 0 ? o->requests : r->max_requests;
	if (active < 1)
		active = 1;
	step = (r->weight_bytes + (double)active * r->kv_bytes_request) /
	    ((double)tp * e->gpu->memory_bw_gbs * 1e9);
	r->decode_tok_s = 1 / step;
	row = estimate_row(c, ROW_OK, "serve", "decode");
	row->subject = xstrdup(c->gpus_subject);
	row->measured = xasprintf("<= %s tokens/s per request", estimate_sig(1 /
	    step).s);
	row->limit = xasprintf("%s at %ld requests", estimate_sig((double)active
	    / step).s, active);
	row->hint = xasprintf("memory bound: a step reads the weights and "
	    "every active KV cache once, (%s + %ld x %s) / (%ld x %s GB/s, "
	    "catalog %s memory_bw_gbs) (S-POPE22); %s tokens/s on the whole "
	    "plan", estimate_gb(r->weight_bytes).s, active,
	    estimate_gb(r->kv_bytes_request).s, tp,
	    estimate_sig(e->gpu->memory_bw_gbs).s, e->gpu->m.id,
	    check_fmt((double)active / step * (double)r->replicas, 0).s);
	row->value = 1 / step;
}

/* ------------------------------------------------------------------ */

/*
 * The precision asked, or bf16 (fp16 where the GPU has no bf16).  Training
 * needs the GPU's throughput at it (catalog or measured).
 */
static int
estimate_pick_prec(struct estimate_ctx *c, struct prov_err *err)
{
	const struct cat_gpu	*g = c->hw.gpu;
	enum estimate_prec	 p = c->o->prec;
	struct buf		 have = BUF_INIT;
	size_t			 i;

	if (p == ESTIMATE_PREC_AUTO)
		p = isnan(g->bf16_tflops) && !isnan(g->fp16_tflops) ?
		    ESTIMATE_FP16 : ESTIMATE_BF16;
	c->out->prec = p;
	/* Serving is sized by bytes: any precision can store the weights. */
	if (c->o->serve || !isnan(estimate_peak_tflops(g, p)) ||
	    (c->o->measured != NULL &&
	    !isnan(c->o->measured->gemm_tflops[p])))
		return 0;
	for (i = ESTIMATE_BF16; i < ESTIMATE_NPREC; i++)
		if (!isnan(estimate_peak_tflops(g, (enum estimate_prec)i)))
			buf_addf(&have, "%s%s", have.len ? ", " : "",
			    estimate_prec_name((enum estimate_prec)i));
	prov_err_setloc(err, PROV_E_USAGE, NULL, have.len ? have.buf : NULL,
	    "%s has no %s throughput in the catalog", g->m.id,
	    estimate_prec_name(p));
	buf_release(&have);
	return -1;
}

int
estimate_plan(struct estimate_result *out, const struct plan *p,
    const struct estimate_model *m, const struct estimate_opts *o,
    struct prov_err *err)
{
	struct row		*row;
	struct estimate_ctx	 c;
	long			 total, batch;
	char			*batch_how = NULL;
	int			 r = -1;

	memset(&c, 0, sizeof c);
	c.p = p;
	c.m = m;
	c.o = o;
	c.out = out;
	if (estimate_hw_pick(&c, err) != 0 || estimate_pick_prec(&c, err) != 0)
		goto out;
	total = c.hw.gpn * c.hw.nodes;
	if (o->gpus > total) {
		prov_err_setloc(err, PROV_E_USAGE, NULL, NULL, "--gpus %ld: "
		    "hardware '%s' has %ld GPUs in the plan", o->gpus,
		    c.hw.hw->name, total);
		goto out;
	}
	out->gpus = o->gpus > 0 ? o->gpus : total;
	out->gpus_per_node = c.hw.gpn;
	out->nodes = (out->gpus + c.hw.gpn - 1) / c.hw.gpn;
	out->nvlink_domain = c.hw.domain;
	out->gpu = c.hw.gpu->m.id;
	out->gpu_mem_bytes = c.hw.gpu->memory_gb * 1e9;
	if (!o->serve && (o->tp > 0 || o->pp > 0) && out->gpus %
	    ((o->tp > 0 ? o->tp : 1) * (o->pp > 0 ? o->pp : 1)) != 0) {
		prov_err_setloc(err, PROV_E_USAGE, NULL, "tensor x pipeline "
		    "must divide the GPUs into whole replicas", "--tp %ld --pp "
		    "%ld: %ld GPUs per replica do not divide %ld GPUs",
		    o->tp > 0 ? o->tp : 1, o->pp > 0 ? o->pp : 1,
		    (o->tp > 0 ? o->tp : 1) * (o->pp > 0 ? o->pp : 1),
		    out->gpus);
		goto out;
	}
	c.gpus_subject = xasprintf("%s x %s", check_fmt((double)out->gpus,
	    0).s, out->gpu);
	estimate_rows_model(&c);
	if (o->serve) {
		estimate_rows_serve(&c);
		r = 0;
		goto out;
	}
	out->tokens = !isnan(o->tokens) ? o->tokens : !isnan(m->tokens) ?
	    m->tokens : ESTIMATE_TOKENS_PER_PARAM * out->params;
	row = estimate_row(&c, ROW_OK, "model", "tokens");
	row->subject = xasprintf("model '%s'", m->id);
	row->measured = xstrdup(estimate_count(out->tokens).s);
	row->hint = !isnan(o->tokens) ? xstrdup("--tokens") : !isnan(m->tokens)
	    ? xstrdup("the published pre-training run") : xstrdup(
	    "20 per parameter: compute-optimal (S-CHINCHILLA22); --tokens to "
	    "change");
	row->value = out->tokens;
	if (o->batch > 0) {
		batch = o->batch;
		batch_how = xstrdup("--batch");
	} else if (!isnan(m->batch_tokens)) {
		batch = lround(m->batch_tokens / (double)m->seq);
		batch_how = xasprintf("the published %s tokens",
		    estimate_count(m->batch_tokens).s);
	} else {
		batch = lround(ESTIMATE_BATCH_TOKENS / (double)m->seq);
		batch_how = xstrdup("4M tokens by default, as Llama 2 "
		    "(S-LLAMA2); --batch to change");
	}
	if (batch < 1)
		batch = 1;
	estimate_rows_compute(&c, batch, batch_how);
	estimate_rows_memory(&c);
	estimate_rows_network(&c);
	r = 0;
out:
	rows_blank(&out->rows);
	free(batch_how);
	free(c.gpus_subject);
	free(c.hw.intra_how);
	free(c.hw.fabric_how);
	free(c.hw.others);
	return r;
}

void
estimate_result_release(struct estimate_result *r)
{
	if (r == NULL)
		return;
	rows_release(&r->rows);
}

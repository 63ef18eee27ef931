#include "test.h"

#include <math.h>
#include <stdio.h>
#include <unistd.h>

#include "buf.h"
#include "catalog.h"
#include "check.h"
#include "err.h"
#include "estimate.h"
#include "plan.h"
#include "row.h"
#include "strvec.h"

/*
 * The formulas against hand-computed cases and the papers' closed forms;
 * --model parsing and its errors; the measured file; then whole estimates
 * of the example plans against training runs the papers report (each
 * within 10%, docs/estimate.md "Proof"), and the verdicts (fits or not).
 */

/* |got - want| <= tol * |want|. */
static void
test_near(double got, double want, double tol, const char *what)
{
	if (!(fabs(got - want) <= tol * fabs(want)))
		ck_abort_msg("%s: got %.10g, want %.10g (within %g%%)", what,
		    got, want, tol * 100);
}

static struct catalog *
test_estimate_catalog(void)
{
	struct catalog		*c = catalog_new();
	struct prov_errs	 errs = PROV_ERRS_INIT;
	char			*dir = test_path("profiles");

	if (catalog_load_dir(c, dir, &errs) != 0) {
		prov_errs_print(&errs, stderr);
		ck_abort_msg("catalog did not load");
	}
	prov_errs_release(&errs);
	free(dir);
	return c;
}

static struct plan *
test_estimate_plan_buf(const char *label, const char *yaml)
{
	struct plan_opts	 o = PLAN_OPTS_INIT;
	struct prov_errs	 errs = PROV_ERRS_INIT;
	struct plan		*p = NULL;
	char			*dir = test_path("profiles");

	o.builtin_dir = dir;
	if (plan_load_buf(&p, label, yaml, strlen(yaml), &o, &errs) != 0) {
		prov_errs_print(&errs, stderr);
		ck_abort_msg("plan %s did not load", label);
	}
	prov_errs_release(&errs);
	free(dir);
	return p;
}

static struct plan *
test_estimate_plan(const char *rel)
{
	struct buf	 b = BUF_INIT;
	char		*path = test_path(rel);
	struct plan	*p;

	ck_assert_int_eq(buf_read_file(&b, path), 0);
	p = test_estimate_plan_buf(rel, b.buf);
	buf_release(&b);
	free(path);
	return p;
}

/* A GPT-style shape: gelu, one key/value head per head, ffn = 4h. */
static struct estimate_model
test_gpt(long l, long h, long a, long v, long s)
{
	struct estimate_model	m;

	memset(&m, 0, sizeof m);
	m.id = "test";
	m.params = m.tokens = m.batch_tokens = NAN;
	m.layers = l;
	m.hidden = h;
	m.heads = a;
	m.kv_heads = a;
	m.ffn = 4 * h;
	m.vocab = v;
	m.seq = s;
	m.tied = 1;
	return m;
}

/* ------------------------------------------------------------------ */

START_TEST(test_estimate_parse_count)
{
	static const struct {
		const char	*s;
		int		 ok;
		double		 want;
	} cases[] = {
		{ "70B", 1, 70e9 },
		{ "1.4T", 1, 1.4e12 },
		{ "300e9", 1, 300e9 },
		{ "2048", 1, 2048 },
		{ "4k", 1, 4000 },
		{ "16M", 1, 16e6 },
		{ "", 0, 0 },
		{ "B", 0, 0 },
		{ "x", 0, 0 },
		{ "-1", 0, 0 },
		{ "0", 0, 0 },
		{ "1.5Q", 0, 0 },
		{ "nan", 0, 0 },
		{ "inf", 0, 0 },
	};
	size_t	i;
	double	v;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		int	r = estimate_parse_count(cases[i].s, &v);

		ck_assert_msg((r == 0) == cases[i].ok, "'%s': %d", cases[i].s, r);
		if (cases[i].ok)
			test_near(v, cases[i].want, 1e-12, cases[i].s);
	}
}
END_TEST

/*
 * Counted parameters against the released checkpoints' exact counts
 * (Llama: no biases, RMSNorm weights, untied embeddings) and GPT-3 by
 * hand: 96 x (12h^2 + 13h) + V h + 2h with h = 12,288, V = 50,257.
 */
START_TEST(test_estimate_params)
{
	static const struct {
		const char	*id;
		double		 want;
	} cases[] = {
		{ "llama2-7b", 6738415616.0 },
		{ "llama2-13b", 13015864320.0 },
		{ "llama2-70b", 68976648192.0 },
		{ "llama3-8b", 8030261248.0 },
		{ "llama3-70b", 70553706496.0 },
		{ "llama3-405b", 405853388800.0 },
		{ "gpt3-175b", 96.0 * (12.0 * 12288 * 12288 + 13.0 * 12288) +
		    50257.0 * 12288 + 2 * 12288 },
	};
	struct catalog		*c = test_estimate_catalog();
	struct prov_err		 err = PROV_ERR_INIT;
	struct estimate_model	 m;
	size_t			 i;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		ck_assert_ok(estimate_model_parse(&m, c, cases[i].id, &err),
		    &err);
		test_near(estimate_params(&m), cases[i].want, 1e-12,
		    cases[i].id);
	}
	catalog_free(c);
}
END_TEST

/*
 * The general per-token count reduces to Narayanan et al. eq. 3 for a
 * GPT shape: per iteration 96 B s l h^2 (1 + s/6h + V/16lh) with full
 * recomputation, 72 B s l h^2 (1 + s/6h + V/12lh) without; selective adds
 * the attention core's forward, 4 s h per layer and token.
 */
START_TEST(test_estimate_flops_token)
{
	static const long	shapes[][5] = {
		{ 96, 12288, 96, 51200, 2048 },		/* GPT-3 in Megatron */
		{ 128, 25600, 160, 51200, 2048 },	/* 1T */
		{ 105, 20480, 128, 50257, 2048 },	/* MT-NLG */
		{ 2, 64, 4, 100, 16 },			/* tiny */
	};
	size_t	i;

	for (i = 0; i < ARRAY_SIZE(shapes); i++) {
		struct estimate_model	m = test_gpt(shapes[i][0],
		    shapes[i][1], shapes[i][2], shapes[i][3], shapes[i][4]);
		double			l = (double)m.layers, h = (double)m.hidden;
		double			s = (double)m.seq, v = (double)m.vocab;

		test_near(estimate_flops_token(&m, m.seq, ESTIMATE_RC_FULL),
		    96 * l * h * h * (1 + s / (6 * h) + v / (16 * l * h)),
		    1e-12, "full");
		test_near(estimate_flops_token(&m, m.seq, ESTIMATE_RC_NONE),
		    72 * l * h * h * (1 + s / (6 * h) + v / (12 * l * h)),
		    1e-12, "none");
		test_near(estimate_flops_token(&m, m.seq,
		    ESTIMATE_RC_SELECTIVE), 72 * l * h * h * (1 + s / (6 * h) +
		    v / (12 * l * h)) + 4 * l * s * h, 1e-12, "selective");
	}
	test_near(estimate_flops_6nd(175e9, 300e9), 3.15e23, 1e-12, "6ND");
}
END_TEST

/* 16 bytes per parameter (2 + 2 + 12), split by t x p, sharded by ZeRO. */
START_TEST(test_estimate_state_bytes)
{
	static const struct {
		double	 params;
		int	 zero;
		long	 tp, pp, dp;
		double	 want;
	} cases[] = {
		{ 1e9, 0, 1, 1, 1, 16e9 },
		{ 1e9, 0, 1, 1, 64, 16e9 },
		{ 1e9, 0, 8, 2, 4, 1e9 },
		{ 1e9, 1, 1, 1, 4, 4e9 + 3e9 },
		{ 1e9, 2, 1, 1, 4, 2e9 + 0.5e9 + 3e9 },
		{ 1e9, 3, 1, 1, 4, 0.5e9 + 0.5e9 + 3e9 },
		{ 175e9, 1, 8, 8, 16, (4 + 12.0 / 16) * 175e9 / 64 },
	};
	size_t	i;

	for (i = 0; i < ARRAY_SIZE(cases); i++)
		test_near(estimate_state_bytes(cases[i].params, cases[i].zero,
		    cases[i].tp, cases[i].pp, cases[i].dp), cases[i].want,
		    1e-12, "state");
}
END_TEST

/*
 * Korthikanti et al. section 4: per layer and micro-batch s b h (34 +
 * 5 a s / h) / t without recomputation (tensor and sequence parallel),
 * 34 s b h / t selective, 2 s b h full; the first pipeline stage holds
 * ceil(L/p) layers of `inflight` micro-batches.  GPT-3, t = 8, p = 12:
 * 8 layers x 12 micro-batches.
 */
START_TEST(test_estimate_act_bytes)
{
	struct estimate_model	m = test_gpt(96, 12288, 96, 51200, 2048);
	double			sbh = 2048.0 * 12288;

	test_near(estimate_act_bytes(&m, 2048, 1, 8, 12, 12,
	    ESTIMATE_RC_SELECTIVE), 34 * sbh / 8 * 8 * 12, 1e-12, "selective");
	test_near(estimate_act_bytes(&m, 2048, 1, 8, 12, 12,
	    ESTIMATE_RC_NONE), (34 + 5 * 96 * 2048 / 12288.0) * sbh / 8 * 96,
	    1e-12, "none");
	test_near(estimate_act_bytes(&m, 2048, 1, 8, 12, 12,
	    ESTIMATE_RC_FULL), 2 * sbh * 96, 1e-12, "full");
	/* 96 layers over p = 7: 14 on the first stage; micro-batch 2. */
	test_near(estimate_act_bytes(&m, 2048, 2, 1, 7, 3,
	    ESTIMATE_RC_SELECTIVE), 34 * 2 * sbh * 14 * 3, 1e-12, "ceil");
}
END_TEST

START_TEST(test_estimate_comm_kv)
{
	struct catalog		*c = test_estimate_catalog();
	struct prov_err		 err = PROV_ERR_INIT;
	struct estimate_model	 m;

	/* 2 (n-1)/n x 1 GB over 8 ranks at 100 GB/s. */
	test_near(estimate_allreduce_s(1e9, 8, 100), 2.0 * 7 / 8 * 1e9 / 1e11,
	    1e-12, "ring");
	ck_assert(estimate_allreduce_s(1e9, 1, 100) == 0);
	/* Llama 2 70B: 2 x 80 layers x 8 KV heads x 128 x 2 bytes. */
	ck_assert_ok(estimate_model_parse(&m, c, "llama2-70b", &err), &err);
	test_near(estimate_kv_bytes_token(&m, 2), 327680, 1e-12, "kv 70b");
	/* Without GQA the cache is 8 times larger. */
	ck_assert_ok(estimate_model_parse(&m, c, "llama2-70b,kv_heads=64",
	    &err), &err);
	test_near(estimate_kv_bytes_token(&m, 2), 8 * 327680, 1e-12, "kv mha");
	test_near(estimate_prec_bytes(ESTIMATE_FP8), 1, 0, "fp8");
	test_near(estimate_prec_bytes(ESTIMATE_FP4), 0.5, 0, "fp4");
	test_near(estimate_prec_bytes(ESTIMATE_BF16), 2, 0, "bf16");
	catalog_free(c);
}
END_TEST

START_TEST(test_estimate_peak)
{
	struct catalog	*c = test_estimate_catalog();

	test_near(estimate_peak_tflops(catalog_gpu(c, "a100-sxm4-80gb"),
	    ESTIMATE_BF16), 312, 0, "a100 bf16");
	test_near(estimate_peak_tflops(catalog_gpu(c, "a100-sxm4-80gb"),
	    ESTIMATE_TF32), 156, 0, "a100 tf32");
	ck_assert(isnan(estimate_peak_tflops(catalog_gpu(c, "a100-sxm4-80gb"),
	    ESTIMATE_FP8)));
	test_near(estimate_peak_tflops(catalog_gpu(c, "h100-sxm5"),
	    ESTIMATE_FP8), 1978.9, 0, "h100 fp8");
	ck_assert(isnan(estimate_peak_tflops(catalog_gpu(c, "v100-sxm2-32gb"),
	    ESTIMATE_BF16)));
	catalog_free(c);
}
END_TEST

/* ------------------------------------------------------------------ */

START_TEST(test_estimate_model_parse)
{
	static const struct {
		const char	*spec;
		const char	*err;		/* NULL: parses */
	} cases[] = {
		{ "gpt3-175b", NULL },
		{ "gpt-3", NULL },
		{ "llama2-70b,seq=8192", NULL },
		{ "layers=2,hidden=64,heads=4,vocab=100,seq=16", NULL },
		{ "layers=2,hidden=64,heads=4,vocab=100,seq=16,mlp=swiglu,"
		  "ffn=172,kv_heads=2,tied=no,params=1M", NULL },
		{ "gtp3-175b", "--model: unknown model 'gtp3-175b' (did you "
		  "mean 'gpt3-175b'?)" },
		{ "nothing-like-it", "--model: unknown model 'nothing-like-it' "
		  "(see 'provision catalog model', or give layers=,hidden=,...)" },
		{ "llama2-7b,layer=3", "--model: unknown key 'layer' (did you "
		  "mean 'layers'?)" },
		{ "llama2-7b,gpt3-175b", "--model: 'gpt3-175b' is not "
		  "key=value (write key=value after the preset)" },
		{ "layers=2,hidden=64", "--model: missing heads, vocab, seq (or "
		  "name a preset: see 'provision catalog model')" },
		{ "layers=2,hidden=64,heads=3,vocab=10,seq=8", "--model: hidden "
		  "64 is not a multiple of heads 3 (the head size is hidden / "
		  "heads)" },
		{ "llama2-7b,kv_heads=5", "--model: heads 32 is not a multiple "
		  "of kv_heads 5 (each key/value head serves a whole group of "
		  "query heads)" },
		{ "layers=2,hidden=64,heads=4,vocab=10,seq=8,mlp=swiglu",
		  "--model: missing ffn (mlp=swiglu has no default width) (or "
		  "name a preset: see 'provision catalog model')" },
		{ "llama2-7b,layers=abc", "--model: layers 'abc' is not a count "
		  "(a positive number, e.g. 4096, 70B or 1.4e12)" },
		{ "llama2-7b,layers=2.5", "--model: layers '2.5' is not a whole "
		  "number (a whole number up to 1e9)" },
		{ "llama2-7b,mlp=relu", "--model: unknown mlp 'relu' (gelu or "
		  "swiglu)" },
	};
	struct catalog		*c = test_estimate_catalog();
	struct estimate_model	 m;
	size_t			 i;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		struct prov_err	 err = PROV_ERR_INIT;
		int		 r = estimate_model_parse(&m, c, cases[i].spec,
		    &err);
		char		*msg;

		if (cases[i].err == NULL) {
			ck_assert_ok(r, &err);
			continue;
		}
		ck_assert_msg(r != 0, "'%s' parsed", cases[i].spec);
		msg = prov_err_format(&err);
		ck_assert_str_eq(msg, cases[i].err);
		free(msg);
		prov_err_release(&err);
	}
	catalog_free(c);
}
END_TEST

/* What a spec keeps of the preset and what it changes. */
START_TEST(test_estimate_model_override)
{
	struct catalog		*c = test_estimate_catalog();
	struct prov_err		 err = PROV_ERR_INIT;
	struct estimate_model	 m;

	ck_assert_ok(estimate_model_parse(&m, c, "gpt3-175b,seq=4096", &err),
	    &err);
	ck_assert_int_eq(m.seq, 4096);
	test_near(m.params, 175e9, 0, "seq keeps the published count");
	ck_assert_ok(estimate_model_parse(&m, c, "gpt3-175b,layers=48", &err),
	    &err);
	ck_assert(isnan(m.params));	/* another shape: counted */
	ck_assert_ok(estimate_model_parse(&m, c, "layers=2,hidden=64,heads=4,"
	    "vocab=100,seq=16", &err), &err);
	ck_assert_int_eq(m.ffn, 256);
	ck_assert_int_eq(m.kv_heads, 4);
	ck_assert_str_eq(m.id, "custom");
	catalog_free(c);
}
END_TEST

/* Every source key the code and the presets cite is in the catalog. */
START_TEST(test_estimate_sources_defined)
{
	static const char *const keys[] = { "S-KAPLAN20", "S-MEGATRON21",
	    "S-KORTHIKANTI22", "S-ZERO20", "S-LLAMA3", "S-LLAMA2",
	    "S-CHINCHILLA22", "S-POPE22", "S-NCCLTESTS", "S-VLLM",
	    "S-MTNLG22", "S-BLOOM22", "S-LLAMA31CARD", "S-NEMOPERF" };
	struct catalog		*c = test_estimate_catalog();
	struct prov_errs	 errs = PROV_ERRS_INIT;
	size_t			 i;

	for (i = 0; i < ARRAY_SIZE(keys); i++)
		ck_assert_msg(catalog_source_title(c, keys[i]) != NULL,
		    "%s is not defined", keys[i]);
	if (catalog_validate(c, &errs) != 0) {
		prov_errs_print(&errs, stderr);
		ck_abort_msg("catalog does not validate");
	}
	prov_errs_release(&errs);
	catalog_free(c);
}
END_TEST

/* ------------------------------------------------------------------ */

static void
test_write(const char *path, const char *s)
{
	FILE	*f = fopen(path, "w");

	ck_assert_ptr_nonnull(f);
	fputs(s, f);
	fclose(f);
}

START_TEST(test_estimate_measured)
{
	static const struct {
		const char	*text;
		const char	*err;		/* NULL: loads */
	} cases[] = {
		{ "{\"version\": 1, \"written_by\": \"nccl-tests by hand\", "
		  "\"at\": \"2026-01-05T10:00:00Z\", \"allreduce_busbw_gbs\": "
		  "185.5, \"allreduce_gpus\": 32, \"gemm_tflops\": {\"bf16\": "
		  "280}}\n", NULL },
		{ "version: 1\ngemm_tflops: { bf17: 280 }\n",
		  "M:2:16: unknown key 'bf17' (did you mean 'bf16'?)" },
		{ "version: 2\n", "M:1:10: 'version' is 2, outside 1..1" },
		{ "allreduce_busbw_gbs: 10\n", "M:1:1: missing key 'version'" },
		{ "version: 1\nallreduce_busbw_gbs: -3\n",
		  "M:2:22: 'allreduce_busbw_gbs' is -3, outside 0.001..1e+06" },
		{ "[1, 2]\n", "M:1:1: a measured file is a mapping of figures "
		  "(see docs/estimate.md)" },
	};
	char			 path[] = "/tmp/test-estimate-XXXXXX";
	int			 fd = mkstemp(path);
	size_t			 i;

	ck_assert_int_ge(fd, 0);
	close(fd);
	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		struct estimate_measured	 me;
		struct prov_errs		 errs = PROV_ERRS_INIT;
		struct buf			 want = BUF_INIT;
		char				*got;
		const char			*m;
		int				 r;

		test_write(path, cases[i].text);
		r = estimate_measured_load(&me, path, &errs);
		if (cases[i].err == NULL) {
			ck_assert_int_eq(r, 0);
			test_near(me.allreduce_busbw_gbs, 185.5, 0, "busbw");
			ck_assert_int_eq(me.allreduce_gpus, 32);
			test_near(me.gemm_tflops[ESTIMATE_BF16], 280, 0, "gemm");
			ck_assert(isnan(me.gemm_tflops[ESTIMATE_FP8]));
			ck_assert_str_eq(me.written_by, "nccl-tests by hand");
		} else {
			ck_assert_int_ne(r, 0);
			ck_assert_int_ge(errs.n, 1);
			got = prov_err_format(&errs.v[0]);
			for (m = cases[i].err; *m != '\0'; m++)
				if (*m == 'M' && m == cases[i].err)
					buf_adds(&want, path);
				else
					buf_addch(&want, *m);
			ck_assert_str_eq(got, want.buf);
			free(got);
		}
		buf_release(&want);
		prov_errs_release(&errs);
		estimate_measured_release(&me);
	}
	unlink(path);
}
END_TEST

/* ------------------------------------------------------------------ */

/*
 * Training runs the papers report, with the papers' own inputs; the
 * estimate must land within 10% (docs/estimate.md, "Proof").
 */
struct test_run {
	const char	*name;
	const char	*plan;
	const char	*model;
	long		 gpus;
	double		 tflops, model_tflops, tokens;
	enum estimate_recompute rc;
	enum estimate_prec prec;
	const char	*measure;	/* "days" "gpu_hours" "step_s" */
	double		 want;
	double		 lo, hi;	/* allowed relative error */
};

static double
test_run_one(const struct test_run *t)
{
	struct plan		*p = test_estimate_plan(t->plan);
	struct estimate_model	 m;
	struct estimate_opts	 o;
	struct estimate_result	 r = ESTIMATE_RESULT_INIT;
	struct prov_err		 err = PROV_ERR_INIT;
	double			 got;

	ck_assert_ok(estimate_model_parse(&m, p->catalog, t->model, &err),
	    &err);
	estimate_opts_init(&o);
	o.gpus = t->gpus;
	o.tflops = t->tflops;
	o.model_tflops = t->model_tflops;
	if (t->tokens > 0)
		o.tokens = t->tokens;
	o.recompute = t->rc;
	o.prec = t->prec;
	ck_assert_ok(estimate_plan(&r, p, &m, &o, &err), &err);
	ck_assert_msg(r.fits, "%s: does not fit", t->name);
	ck_assert_int_eq(rows_count(&r.rows, ROW_FAIL), 0);
	got = strcmp(t->measure, "days") == 0 ? r.days :
	    strcmp(t->measure, "gpu_hours") == 0 ? r.gpu_hours : r.step_s;
	estimate_result_release(&r);
	plan_free(p);
	return got;
}

START_TEST(test_estimate_papers)
{
	static const struct test_run	runs[] = {
		/* Narayanan et al. 2021 section 5.1: ~34 days. */
		{ "gpt3-1024", "examples/sizing/selene.yaml", "gpt3-175b", 1024, 140,
		  NAN, 0, ESTIMATE_RC_FULL, ESTIMATE_PREC_AUTO, "days", 34,
		  -0.1, 0.1 },
		/* The same section: 1T on 3,072 GPUs, 450B tokens, ~84 days. */
		{ "1t-3072", "examples/sizing/selene.yaml", "megatron-1t", 3072, 163,
		  NAN, 0, ESTIMATE_RC_FULL, ESTIMATE_PREC_AUTO, "days", 84,
		  -0.1, 0.1 },
		/* Smith et al. 2022 section 2.4: 60.1 s per iteration. */
		{ "mt-nlg-2240", "examples/sizing/selene.yaml", "mt-nlg-530b", 2240,
		  126, NAN, 0, ESTIMATE_RC_FULL, ESTIMATE_PREC_AUTO, "step_s",
		  60.1, -0.1, 0.1 },
		/* The same at 350 and 420 DGX: 50.2 s and 44.4 s. */
		{ "mt-nlg-2800", "examples/sizing/selene.yaml", "mt-nlg-530b", 2800,
		  121, NAN, 0, ESTIMATE_RC_FULL, ESTIMATE_PREC_AUTO, "step_s",
		  50.2, -0.1, 0.1 },
		{ "mt-nlg-3360", "examples/sizing/selene.yaml", "mt-nlg-530b", 3360,
		  113, NAN, 0, ESTIMATE_RC_FULL, ESTIMATE_PREC_AUTO, "step_s",
		  44.4, -0.1, 0.1 },
		/* Llama 3.1 model card: 30.84M H100 hours; Table 4: 400 TFLOPS. */
		{ "llama3-405b", "examples/sizing/h100-16k.yaml", "llama3-405b", 0,
		  NAN, 400, 0, ESTIMATE_RC_SELECTIVE, ESTIMATE_PREC_AUTO,
		  "gpu_hours", 30.84e6, -0.1, 0.1 },
		/* NeMo performance summary: 10T tokens on 1,024 H100, FP8. */
		{ "nemo-llama3-70b", "examples/sizing/h100-16k.yaml", "llama3-70b",
		  1024, NAN, 734, 10e12, ESTIMATE_RC_SELECTIVE, ESTIMATE_FP8,
		  "days", 74, -0.1, 0.1 },
		{ "nemo-gpt3-175b", "examples/sizing/h100-16k.yaml", "gpt3-175b",
		  1024, NAN, 888, 10e12, ESTIMATE_RC_SELECTIVE, ESTIMATE_FP8,
		  "days", 137, -0.1, 0.1 },
		/*
		 * Not reproduced, and said so in docs/estimate.md: BLOOM's
		 * 1,082,990 GPU-hours are wall-clock time with its restarts,
		 * 13.6% above the FLOPs at 156 TFLOPS; Llama 2 70B's
		 * 1,720,320 with no throughput published: the default 40% MFU
		 * lands 15% above (Meta's figure means 46% MFU).
		 */
		{ "bloom", "examples/sizing/selene.yaml", "bloom-176b", 384, 156, NAN,
		  0, ESTIMATE_RC_FULL, ESTIMATE_PREC_AUTO, "gpu_hours",
		  1082990, -0.145, -0.125 },
		{ "llama2-70b", "examples/sizing/selene.yaml", "llama2-70b", 2048, NAN,
		  NAN, 0, ESTIMATE_RC_SELECTIVE, ESTIMATE_PREC_AUTO,
		  "gpu_hours", 1720320, 0.14, 0.16 },
	};
	size_t	i;

	for (i = 0; i < ARRAY_SIZE(runs); i++) {
		double	got = test_run_one(&runs[i]);
		double	rel = (got - runs[i].want) / runs[i].want;

		ck_assert_msg(rel >= runs[i].lo && rel <= runs[i].hi,
		    "%s: %s %.6g against the paper's %.6g: %+.1f%%, want "
		    "%+.1f%% to %+.1f%%", runs[i].name, runs[i].measure, got,
		    runs[i].want, rel * 100, runs[i].lo * 100,
		    runs[i].hi * 100);
	}
}
END_TEST

/* ------------------------------------------------------------------ */

#define PLAN_HEAD							\
	"version: 1\n"							\
	"cluster: { name: t }\n"					\
	"networks:\n"							\
	"  mgmt: { cidr: 10.0.0.0/24, kind: ethernet, gbps: 1, "	\
	"role: management }\n"						\
	"  fabric: { cidr: 10.1.0.0/24, kind: infiniband, gbps: 200, "	\
	"role: fabric }\n"

/* Two DGX A100 80GB: 16 GPUs, 8 per NVLink domain, 200 GB/s per node. */
static const char test_two_dgx[] = PLAN_HEAD
    "hardware:\n"
    "  dgx:\n"
    "    system: dgx-a100-640gb\n"
    "    nics:\n"
    "      - { model: connectx-6-hdr-1p, count: 8, network: fabric }\n"
    "      - { model: onboard-1gbe, count: 1, network: mgmt }\n"
    "  head:\n"
    "    system: dell-r650\n"
    "    cpu: { model: xeon-8380, count: 1 }\n"
    "    memory_gb: 64\n"
    "    nics: [ { model: onboard-1gbe, count: 2, network: mgmt } ]\n"
    "    psu: { count: 2, watts: 800, redundancy: \"N+1\" }\n"
    "nodes:\n"
    "  - { name: head, role: head, hardware: head, address: 10.0.0.1 }\n"
    "  - { name: \"dgx[1-2]\", hardware: dgx, address: \"10.0.0.[11-12]\","
    " interfaces: { fabric: \"10.1.0.[11-12]\" } }\n";

/*
 * The same two DGX with no NIC on a network between them (and no fabric
 * network for their built-in ports).
 */
static const char test_two_dgx_nofabric[] =
    "version: 1\n"
    "cluster: { name: t }\n"
    "networks:\n"
    "  mgmt: { cidr: 10.0.0.0/24, kind: ethernet, gbps: 1, "
    "role: management }\n"
    "hardware:\n"
    "  dgx:\n"
    "    system: dgx-a100-640gb\n"
    "    nics:\n"
    "      - { model: onboard-1gbe, count: 1, network: mgmt }\n"
    "nodes:\n"
    "  - { name: \"dgx[1-2]\", hardware: dgx, address: \"10.0.0.[11-12]\" }\n";

static const struct row *
test_row(const struct estimate_result *r, const char *what)
{
	size_t	i;

	for (i = 0; i < r->rows.n; i++)
		if (strcmp(r->rows.v[i].what, what) == 0)
			return &r->rows.v[i];
	ck_abort_msg("no row '%s'", what);
	return NULL;
}

static struct estimate_result
test_estimate(struct plan *p, const char *spec, struct estimate_opts *o)
{
	struct estimate_model	 m;
	struct estimate_result	 r = ESTIMATE_RESULT_INIT;
	struct prov_err		 err = PROV_ERR_INIT;

	ck_assert_ok(estimate_model_parse(&m, p->catalog, spec, &err), &err);
	ck_assert_ok(estimate_plan(&r, p, &m, o, &err), &err);
	return r;
}

/*
 * Llama 2 7B on 16 A100 80GB: state 16 x 6.74 B over t x p, activations
 * 34 s h per layer (selective), so data parallel alone (ZeRO-1 over 16)
 * needs 4.75 x 6.74 + 34 x 4,096 x 4,096 x 32 / 1e9 = 50.3 GB: t = p = 1.
 */
START_TEST(test_estimate_layout_fits)
{
	struct plan		*p = test_estimate_plan_buf("t.yaml", test_two_dgx);
	struct estimate_opts	 o;
	struct estimate_result	 r;
	double			 n = 6738415616.0, want;

	estimate_opts_init(&o);
	r = test_estimate(p, "llama2-7b", &o);
	ck_assert(r.fits);
	ck_assert_int_eq(r.gpus, 16);
	ck_assert_int_eq(r.tp, 1);
	ck_assert_int_eq(r.pp, 1);
	ck_assert_int_eq(r.dp, 16);
	want = (4 + 12.0 / 16) * n + 34.0 * 4096 * 4096 * 32;
	test_near(r.state_bytes + r.act_bytes, want, 1e-12, "per GPU");
	ck_assert_int_eq(test_row(&r, "per GPU")->verdict, ROW_OK);
	/* 8 GPUs per node: 7 of 8 all-reduce over NVLink, 2 nodes over IB. */
	test_near(r.allreduce_s, estimate_allreduce_s(2 * n, 8, 300) +
	    estimate_allreduce_s(2 * n / 8, 2, 200.0 / 8), 1e-12, "ring");
	estimate_result_release(&r);

	/* 70B: 16 x 69 B does not fit 8 GPUs of 80 GB without sharding. */
	estimate_opts_init(&o);
	o.zero = 0;
	o.gpus = 8;
	r = test_estimate(p, "llama2-70b", &o);
	ck_assert(!r.fits);
	ck_assert_int_eq(rows_count(&r.rows, ROW_FAIL), 2);
	ck_assert_int_eq(test_row(&r, "layout")->verdict, ROW_FAIL);
	ck_assert_ptr_nonnull(strstr(test_row(&r, "layout")->hint,
	    "no split fits"));
	ck_assert_uint_gt(test_row(&r, "layout")->loc.line, 0);
	estimate_result_release(&r);

	/*
	 * ZeRO-3 shards all 16 bytes over every GPU (69 GB each, whatever
	 * the split) and full recomputation keeps 2 s h per layer (5.4 GB):
	 * 74.4 GB fits 80 GB, above 90%, so data parallel alone, warned.
	 */
	estimate_opts_init(&o);
	o.zero = 3;
	o.recompute = ESTIMATE_RC_FULL;
	r = test_estimate(p, "llama2-70b", &o);
	ck_assert(r.fits);
	ck_assert_int_eq(r.tp * r.pp, 1);
	test_near(r.state_bytes + r.act_bytes, 68976648192.0 + 2.0 * 4096 *
	    8192 * 80, 1e-12, "zero-3");
	ck_assert_int_eq(test_row(&r, "per GPU")->verdict, ROW_WARN);
	estimate_result_release(&r);

	/* A forced layout is kept, even across the NVLink domain (a warning). */
	estimate_opts_init(&o);
	o.tp = 16;
	r = test_estimate(p, "llama2-7b", &o);
	ck_assert_int_eq(r.tp, 16);
	ck_assert_int_eq(test_row(&r, "NVLink domain")->verdict, ROW_WARN);
	estimate_result_release(&r);
	plan_free(p);
}
END_TEST

START_TEST(test_estimate_network)
{
	struct plan		*p;
	struct estimate_opts	 o;
	struct estimate_result	 r;
	struct estimate_measured me;
	size_t			 i;

	/* No fabric between the two nodes: the all-reduce is unknown. */
	p = test_estimate_plan_buf("t.yaml", test_two_dgx_nofabric);
	estimate_opts_init(&o);
	o.zero = 3;
	r = test_estimate(p, "llama2-7b", &o);
	ck_assert_int_eq(test_row(&r, "gradient all-reduce")->verdict,
	    ROW_WARN);
	ck_assert_str_eq(test_row(&r, "gradient all-reduce")->measured,
	    "unknown");
	estimate_result_release(&r);

	/* A measured bus bandwidth and GEMM figure replace the datasheet. */
	memset(&me, 0, sizeof me);
	me.file = "measured.json";
	me.allreduce_busbw_gbs = 10;
	me.allreduce_gpus = -1;
	for (i = 0; i < ESTIMATE_NPREC; i++)
		me.gemm_tflops[i] = NAN;
	me.gemm_tflops[ESTIMATE_BF16] = 250;
	o.measured = &me;
	o.batch = 16;
	r = test_estimate(p, "llama2-7b", &o);
	test_near(r.peak_tflops, 250, 0, "measured peak");
	test_near(r.allreduce_s, estimate_allreduce_s(2 * 6738415616.0, 16,
	    10), 1e-12, "measured ring");
	ck_assert_ptr_nonnull(strstr(test_row(&r, "peak")->hint,
	    "measured: measured.json"));
	ck_assert_ptr_nonnull(strstr(test_row(&r, "gradient all-reduce")->hint,
	    "measured bus bandwidth 10 GB/s"));
	/*
	 * 2.5 s for 13.5 GB of gradients at 10 GB/s, against the backward
	 * pass of a 16-sequence step (16 x 4,096 x 44 GFLOP / (16 x 100
	 * TFLOPS) x 2/3 = 1.2 s): the network sets the pace.
	 */
	ck_assert_int_eq(test_row(&r, "gradient all-reduce")->verdict,
	    ROW_WARN);
	estimate_result_release(&r);
	plan_free(p);
}
END_TEST

/*
 * Serving Llama 2 70B in bf16 on 16 A100 80GB: 137.95 GB of weights need
 * t = 2 (2 x 72 GB usable); requests of 4,096 tokens at 1.34 GB each:
 * floor((144 - 137.95) / 1.342) = 4 per replica, 8 replicas.
 */
START_TEST(test_estimate_serve)
{
	struct plan		*p = test_estimate_plan_buf("t.yaml", test_two_dgx);
	struct estimate_opts	 o;
	struct estimate_result	 r;
	double			 w = 68976648192.0 * 2, kv = 327680.0 * 4096;

	estimate_opts_init(&o);
	o.serve = 1;
	r = test_estimate(p, "llama2-70b", &o);
	ck_assert(r.fits);
	test_near(r.weight_bytes, w, 1e-12, "weights");
	test_near(r.kv_bytes_request, kv, 1e-12, "kv");
	ck_assert_int_eq(r.replica_gpus, 2);
	ck_assert_int_eq(r.replicas, 8);
	ck_assert_int_eq(r.max_requests, (long)floor((2 * 72e9 - w) / kv));
	/* A step reads the weights and 4 caches over 2 x 2,039 GB/s. */
	test_near(r.decode_tok_s, 2 * 2039e9 / (w + 4 * kv), 1e-12, "decode");
	estimate_result_release(&r);

	/* 64 requests per replica: a replica of 4, and so 4 replicas. */
	o.requests = 64;
	r = test_estimate(p, "llama2-70b", &o);
	ck_assert_int_eq(r.replica_gpus, 4);
	ck_assert_int_eq(r.replicas, 4);
	ck_assert_int_eq(rows_count(&r.rows, ROW_FAIL), 0);
	estimate_result_release(&r);

	/* fp8 halves the weights: one GPU holds a replica. */
	o.requests = 0;
	o.prec = ESTIMATE_FP8;
	r = test_estimate(p, "llama2-70b", &o);
	ck_assert_int_eq(r.replica_gpus, 1);
	estimate_result_release(&r);
	plan_free(p);
}
END_TEST

/* Options that cannot apply to the plan are errors, not rows. */
START_TEST(test_estimate_plan_errors)
{
	static const struct {
		const char	*plan;
		const char	*hardware;
		enum estimate_prec prec;
		long		 gpus, tp, pp;
		const char	*err;
	} cases[] = {
		{ "examples/dgx-a100-pod.yaml", "dgz", ESTIMATE_PREC_AUTO, 0, 0,
		  0, "--hardware: no hardware 'dgz' in the plan (did you mean "
		  "'dgx'?)" },
		{ "examples/dgx-a100-pod.yaml", "head", ESTIMATE_PREC_AUTO, 0,
		  0, 0, "--hardware: 'head' has no GPUs" },
		{ "examples/dgx-a100-pod.yaml", NULL, ESTIMATE_FP8, 0, 0, 0,
		  "a100-sxm4-40gb has no fp8 throughput in the catalog (bf16, "
		  "fp16, tf32, fp64, int8)" },
		{ "examples/dgx-a100-pod.yaml", NULL, ESTIMATE_PREC_AUTO, 64, 0,
		  0, "--gpus 64: hardware 'dgx' has 32 GPUs in the plan" },
		{ "examples/dgx-a100-pod.yaml", NULL, ESTIMATE_PREC_AUTO, 0, 3,
		  1, "--tp 3 --pp 1: 3 GPUs per replica do not divide 32 GPUs "
		  "(tensor x pipeline must divide the GPUs into whole "
		  "replicas)" },
		{ "examples/testbed.yaml", NULL, ESTIMATE_PREC_AUTO, 0, 0, 0,
		  "the plan has no GPU nodes to estimate on (add nodes whose "
		  "hardware has gpus:)" },
	};
	size_t	i;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		struct plan		*p = test_estimate_plan(cases[i].plan);
		struct estimate_model	 m;
		struct estimate_opts	 o;
		struct estimate_result	 r = ESTIMATE_RESULT_INIT;
		struct prov_err		 err = PROV_ERR_INIT;
		char			*msg;

		ck_assert_ok(estimate_model_parse(&m, p->catalog, "llama2-7b",
		    &err), &err);
		estimate_opts_init(&o);
		o.hardware = cases[i].hardware;
		o.prec = cases[i].prec;
		o.gpus = cases[i].gpus;
		o.tp = cases[i].tp;
		o.pp = cases[i].pp;
		ck_assert_int_ne(estimate_plan(&r, p, &m, &o, &err), 0);
		msg = prov_err_format(&err);
		ck_assert_str_eq(msg, cases[i].err);
		free(msg);
		prov_err_release(&err);
		estimate_result_release(&r);
		plan_free(p);
	}
}
END_TEST

/* T4 has no bf16: the default precision falls back to fp16. */
START_TEST(test_estimate_prec_auto)
{
	struct plan		*p = test_estimate_plan("examples/edge-inference.yaml");
	struct estimate_opts	 o;
	struct estimate_result	 r;

	estimate_opts_init(&o);
	o.serve = 1;
	o.hardware = "t4-node";
	r = test_estimate(p, "llama2-7b", &o);
	ck_assert_int_eq(r.prec, ESTIMATE_FP16);
	ck_assert_str_eq(r.gpu, "t4");
	estimate_result_release(&r);
	plan_free(p);
}
END_TEST

static Suite *
estimate_suite(void)
{
	Suite	*s = suite_create("estimate");
	TCase	*tc;

	tc = tcase_create("formulas");
	tcase_add_test(tc, test_estimate_parse_count);
	tcase_add_test(tc, test_estimate_params);
	tcase_add_test(tc, test_estimate_flops_token);
	tcase_add_test(tc, test_estimate_state_bytes);
	tcase_add_test(tc, test_estimate_act_bytes);
	tcase_add_test(tc, test_estimate_comm_kv);
	tcase_add_test(tc, test_estimate_peak);
	suite_add_tcase(s, tc);

	tc = tcase_create("model");
	tcase_add_test(tc, test_estimate_model_parse);
	tcase_add_test(tc, test_estimate_model_override);
	tcase_add_test(tc, test_estimate_sources_defined);
	tcase_add_test(tc, test_estimate_measured);
	suite_add_tcase(s, tc);

	tc = tcase_create("plan");
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_estimate_papers);
	tcase_add_test(tc, test_estimate_layout_fits);
	tcase_add_test(tc, test_estimate_network);
	tcase_add_test(tc, test_estimate_serve);
	tcase_add_test(tc, test_estimate_plan_errors);
	tcase_add_test(tc, test_estimate_prec_auto);
	suite_add_tcase(s, tc);
	return s;
}

TEST_MAIN(estimate_suite)

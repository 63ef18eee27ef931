/*
 * estimate.h: will this cluster train (or serve) a model, and how long will
 * it take: `provision estimate` (docs/estimate.md).
 *
 *	struct estimate_model m;
 *	if (estimate_model_parse(&m, plan->catalog, "llama2-70b,seq=8192",
 *	    &err) != 0)
 *		... a bad --model: err says why (exit 2) ...
 *	struct estimate_opts o;
 *	estimate_opts_init(&o);		(then set what the user gave)
 *	struct estimate_result r = ESTIMATE_RESULT_INIT;
 *	if (estimate_plan(&r, plan, &m, &o, &err) != 0)
 *		... the options do not fit the plan (exit 2) ...
 *	... r.rows: check rows in the groups of estimate_groups ...
 *	exit r.rows.nfail > 0 ? 1 : 0;	(a fail row: the model does not fit)
 *	estimate_result_release(&r);
 *
 * Every row says where its number came from: a catalog entry and its
 * sources, a paper (a source key of profiles/models.yaml), an option the
 * user gave, or a measured file (estimate_measured_load).  The formulas
 * are exported for the unit tests; each names its source.  Nothing here
 * prints; the result owns its rows.
 */
#ifndef PROV_ESTIMATE_H
#define PROV_ESTIMATE_H

#include <stddef.h>

#include "check.h"
#include "err.h"
#include "row.h"
#include "strvec.h"
#include "yml.h"

struct catalog;
struct cat_model;
struct cat_gpu;
struct plan;

/* Defaults, each with the published figure it comes from (docs/estimate.md). */
/* S-LLAMA3 Table 4: 38-43% BF16 MFU on 8,192-16,384 H100. */
#define ESTIMATE_MFU		0.40
/* S-ZERO20: 2 + 2 + 12 bytes per parameter (mixed-precision Adam). */
#define ESTIMATE_STATE_BYTES	16.0
/* S-CHINCHILLA22: compute-optimal tokens per parameter. */
#define ESTIMATE_TOKENS_PER_PARAM 20.0
/* S-LLAMA2: 4M tokens per step. */
#define ESTIMATE_BATCH_TOKENS	4e6
/* Memory above 90% of a GPU: a warning (buffers are not counted). */
#define ESTIMATE_WARN_RATIO	0.9
/* S-VLLM: the default gpu_memory_utilization. */
#define ESTIMATE_SERVE_MEM	0.9
/* The backward pass is 2 of the 3 passes (S-KAPLAN20). */
#define ESTIMATE_BACKWARD_SHARE	(2.0 / 3.0)

enum estimate_prec {
	ESTIMATE_PREC_AUTO = 0,		/* bf16; fp16 where there is no bf16 */
	ESTIMATE_BF16,
	ESTIMATE_FP16,
	ESTIMATE_FP8,
	ESTIMATE_FP4,
	ESTIMATE_TF32,
	ESTIMATE_FP64,
	ESTIMATE_INT8,
	ESTIMATE_NPREC
};

enum estimate_recompute {
	ESTIMATE_RC_SELECTIVE = 0,	/* attention core (S-KORTHIKANTI22) */
	ESTIMATE_RC_NONE,
	ESTIMATE_RC_FULL,		/* every layer's forward again */
};

/* A model: a preset of the catalog, changed or made by key=value. */
struct estimate_model {
	const char		*id;		/* preset id, or "custom" */
	const char		*name;
	const struct cat_model	*preset;	/* NULL: key=value alone */
	double			 params;	/* published; NAN: count it */
	long			 layers, hidden, heads, kv_heads, ffn, vocab,
				 seq;
	int			 gated;		/* swiglu: three MLP matrices */
	int			 tied;		/* output layer = embedding */
	double			 tokens;	/* published run; NAN */
	double			 batch_tokens;	/* published run; NAN */
};

/*
 * Parse --model: "PRESET", "PRESET,key=value,...", or "key=value,..."
 * with keys params (K, M, B, T suffixes), layers, hidden, heads, kv_heads,
 * ffn, vocab, seq, mlp (gelu swiglu), tied (yes no).  -1 with err set
 * on an unknown preset or key, a bad value or a shape that does not hold
 * together.  Strings in *out are borrowed from the catalog and `spec`.
 */
int	estimate_model_parse(struct estimate_model *out, const struct catalog *,
	    const char *spec, struct prov_err *err);
/* "70B", "1.4T", "300e9", "2048": a positive count; -1 when not one. */
int	estimate_parse_count(const char *s, double *out);
/* "bf16" ...; -1 when unknown. */
int	estimate_prec_parse(const char *s, enum estimate_prec *out);
const char *estimate_prec_name(enum estimate_prec);
/* NULL-terminated names for "did you mean" and help. */
extern const char *const estimate_prec_names[];
int	estimate_recompute_parse(const char *s, enum estimate_recompute *out);
const char *estimate_recompute_name(enum estimate_recompute);

/*
 * What `verify --burn-in` (or the user) measured on the cluster, read from
 * a small JSON or YAML file (docs/estimate.md, "Measured, not assumed"):
 *
 *	{ "version": 1, "written_by": "...", "at": "2026-01-05T10:00:00Z",
 *	  "allreduce_busbw_gbs": 185.0, "allreduce_gpus": 32,
 *	  "gemm_tflops": { "bf16": 280.0, "fp8": 560.0 } }
 *
 * plus, as verify --burn-in writes them, "partial" and "missing" (what
 * was not measured), who ran the all-reduce and the GEMM and with which
 * tool (allreduce_bytes, allreduce_nodes, allreduce_tool, gemm_gpus,
 * gemm_nodes, gemm_tool).  Unknown keys and bad values are located
 * errors.  NAN / -1: not given.
 */
struct estimate_measured {
	const char	*file;
	long		 version;	/* 1 */
	const char	*written_by, *at;
	int		 partial;	/* some figure was not measured */
	struct strvec	 missing;	/* what, and why */
	double		 allreduce_busbw_gbs;
	long		 allreduce_gpus;
	double		 allreduce_bytes;
	struct strvec	 allreduce_nodes;
	const char	*allreduce_tool;
	double		 gemm_tflops[ESTIMATE_NPREC];
	double		 gemm_gpus[ESTIMATE_NPREC];
	struct strvec	 gemm_nodes;
	const char	*gemm_tool;
	struct yml_doc	 doc;		/* the strings above live here */
};

int	estimate_measured_load(struct estimate_measured *out, const char *path,
	    struct prov_errs *errs);
void	estimate_measured_release(struct estimate_measured *);

struct estimate_opts {
	double		 tokens;	/* NAN: the preset's, else 20 per
					   parameter */
	double		 mfu;		/* NAN: ESTIMATE_MFU */
	double		 tflops;	/* achieved per GPU in hardware FLOPs
					   (with `recompute`), as Megatron
					   papers count; NAN: not given */
	double		 model_tflops;	/* achieved per GPU in model FLOPs
					   (MFU x peak); NAN: not given */
	enum estimate_prec prec;
	long		 batch;		/* sequences per step; 0: preset's */
	long		 micro_batch;	/* 1 */
	enum estimate_recompute recompute;
	int		 zero;		/* ZeRO stage 0..3; 1 */
	long		 tp, pp;	/* 0: the smallest layout that fits */
	long		 gpus;		/* 0: every GPU of the hardware */
	const char	*hardware;	/* NULL: the plan's GPU hardware */
	int		 serve;
	long		 context;	/* serve: tokens per request; 0: seq */
	long		 requests;	/* serve: per replica; 0: as many
					   as fit */
	const struct estimate_measured *measured;	/* NULL: none */
};

void	estimate_opts_init(struct estimate_opts *);

/* The headline numbers behind the rows (NAN / 0 where they do not apply). */
struct estimate_result {
	struct rows	 rows;
	double		 params, tokens;
	const char	*gpu;		/* catalog id */
	long		 gpus, gpus_per_node, nodes, nvlink_domain;
	enum estimate_prec prec;
	double		 peak_tflops, achieved_tflops;	/* per GPU */
	double		 model_flops, hw_flops;		/* whole run */
	double		 seconds, days, gpu_hours, steps, step_s;
	long		 batch;
	long		 tp, pp, dp;
	double		 gpu_mem_bytes, state_bytes, act_bytes;
	double		 allreduce_s;
	int		 fits;
	/* --serve */
	double		 weight_bytes, kv_bytes_token, kv_bytes_request;
	long		 context, replica_gpus, replicas, max_requests;
	double		 decode_tok_s;	/* per request, memory bound */
};

#define ESTIMATE_RESULT_INIT { .rows = ROWS_INIT }

/* The row groups in the order they print. */
extern const char *const estimate_groups[];

/*
 * Size `m` on the GPUs of plan `p` (plan_load(): catalog resolved).  0
 * with the rows in *out; -1 with err set when the options cannot apply to
 * this plan (no GPU hardware, --hardware unknown, a precision the GPU
 * lacks, --gpus more than the plan has, a forced layout that does not
 * divide the GPUs).
 */
int	estimate_plan(struct estimate_result *out, const struct plan *p,
	    const struct estimate_model *m, const struct estimate_opts *o,
	    struct prov_err *err);
void	estimate_result_release(struct estimate_result *);

/* The formulas (docs/estimate.md), exported for the unit tests. */

/* Parameters counted from the shape: weights, biases and norms, embeddings. */
double	estimate_params(const struct estimate_model *);
/* 6 N D (S-KAPLAN20). */
double	estimate_flops_6nd(double params, double tokens);
/*
 * Training FLOPs per token at sequence length `seq`: three passes of
 * 2 x layer weights + 4 l s h (attention) + 2 V h (logits), plus what
 * `rc` computes again (S-MEGATRON21 eq. 3, S-KORTHIKANTI22).  With
 * ESTIMATE_RC_NONE this is the model FLOPs that MFU counts.
 */
double	estimate_flops_token(const struct estimate_model *, long seq,
	    enum estimate_recompute rc);
/* Weights, gradients and Adam state per GPU (S-ZERO20). */
double	estimate_state_bytes(double params, int zero, long tp, long pp,
	    long dp);
/*
 * Activation bytes on the first pipeline stage, which holds `inflight`
 * micro-batches of `micro` sequences (S-KORTHIKANTI22 section 4, with
 * sequence parallelism when tp > 1).
 */
double	estimate_act_bytes(const struct estimate_model *, long seq, long micro,
	    long tp, long pp, long inflight, enum estimate_recompute rc);
/* Seconds of a ring all-reduce of `bytes`, n ranks, busbw GB/s (S-NCCLTESTS). */
double	estimate_allreduce_s(double bytes, long n, double busbw_gbs);
/* KV cache bytes per token: 2 x layers x kv_heads x head size x bytes. */
double	estimate_kv_bytes_token(const struct estimate_model *, double bytes);
/* Bytes per value at a precision (bf16 2, fp8 1, fp4 0.5 ...). */
double	estimate_prec_bytes(enum estimate_prec);
/* Dense peak of `g` at `prec` in the catalog, TFLOPS (int8: TOPS); NAN: none. */
double	estimate_peak_tflops(const struct cat_gpu *g, enum estimate_prec prec);

#endif

/*
 * verify-gemm.c: the burn-in's GEMM throughput.  Every GPU node runs
 * DCGM's dcgmproftester (a cuBLAS GEMM on all its GPUs at once, NVIDIA's
 * own engine: nothing here computes a FLOP); this file reads what it
 * printed, holds each GPU against the catalog's dense peak and the
 * cluster's median, and hands the figures to the measured file
 * (verify-measured.c).  See verify.h for the output's shape.
 */
#include "compat.h"

#include <math.h>

#include "catalog.h"
#include "plan.h"
#include "str.h"
#include "verify-int.h"

const struct verify_gemm_test verify_gemm_tests[VERIFY_NGEMM] = {
	{ "fp16", 1004, "" },
	{ "fp64", 1006, "--cublas" },
};

/* ------------------------------------------------------------------ */
/* Parsing */

struct verify_gemm_worker {
	long gpu, idx;
	double *v;
	size_t n, alloc;
};

static int
verify_gemm_cmp(const void *a, const void *b)
{
	double	 x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static int
verify_gemm_gpu_cmp(const void *a, const void *b)
{
	const struct verify_gemm_gpu	*x = a, *y = b;

	return x->gpu < y->gpu ? -1 : x->gpu > y->gpu;
}

static double
verify_median(double *v, size_t n)
{
	qsort(v, n, sizeof *v, verify_gemm_cmp);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/*
 * "Worker 0:1[1004]: ..." or "Worker 0:1 [1004]: ...": GPU, worker and
 * field; 0 when the line does not start so (older releases).
 */
static int
verify_gemm_worker_id(const char *l, long *gpu, long *idx, long *field)
{
	char	*end;

	if (!str_starts(l, "Worker "))
		return 0;
	l += 7;
	*gpu = strtol(l, &end, 10);
	if (end == l || *end != ':')
		return 0;
	l = end + 1;
	*idx = strtol(l, &end, 10);
	if (end == l)
		return 0;
	l = end + strspn(end, " ");
	if (*l == '[')
		*field = strtol(l + 1, NULL, 10);
	return 1;
}

void
verify_gemm_release(struct verify_gemm *g)
{
	if (g == NULL)
		return;
	free(g->gpus);
	g->gpus = NULL;
	g->n = g->alloc = 0;
}

int
verify_parse_dcgmproftester(struct verify_gemm *g, const char *text,
    struct prov_err *err)
{
	struct strvec			 lines = STRVEC_INIT;
	struct verify_gemm_worker	*w = NULL;
	const char			*failed = NULL;
	size_t				 nw = 0, aw = 0, i, j;
	int				 r = -1;

	memset(g, 0, sizeof *g);
	g->field = -1;
	strvec_split_lines(&lines, text);
	for (i = 0; i < lines.n; i++) {
		const char	*l = lines.v[i], *gf, *open;
		long		 gpu = -1, idx = 0, field = -1;
		double		 v;
		char		*num;
		int		 ok;

		gf = strstr(l, " gflops)");
		if (gf == NULL || strstr(l, "EngineActive:") == NULL) {
			if (failed == NULL && strstr(l, "Error") != NULL)
				failed = l;
			continue;
		}
		for (open = gf; open > l && open[-1] != '('; open--)
			;
		if (open == l)
			continue;
		num = xstrndup(open, (size_t)(gf - open));
		ok = verify_is_num(str_trim(num), &v) && v >= 0;
		if (!ok) {
			struct prov_loc loc = { "dcgmproftester",
				(unsigned)i + 1, (unsigned)(open - l) + 1 };

			prov_err_setloc(err, PROV_E_PARSE, &loc,
			    "a worker "
			    "reports '(250362.2 gflops)'",
			    "'%s' is not a "
			    "number of gflops",
			    num);
			free(num);
			goto out;
		}
		free(num);
		if (verify_gemm_worker_id(l, &gpu, &idx, &field) && field >= 0)
			g->field = field;
		for (j = 0; j < nw; j++)
			if (w[j].gpu == gpu && w[j].idx == idx)
				break;
		if (j == nw) {
			ALLOC_GROW(w, nw + 1, aw);
			memset(&w[nw], 0, sizeof w[nw]);
			w[nw].gpu = gpu;
			w[nw].idx = idx;
			nw++;
		}
		ALLOC_GROW(w[j].v, w[j].n + 1, w[j].alloc);
		w[j].v[w[j].n++] = v / 1000; /* TFLOPS */
	}
	if (nw == 0) {
		if (failed != NULL)
			prov_err_parse(err, "dcgmproftester", "%s",
			    str_trim((char *)failed));
		else
			prov_err_parse(err, "dcgmproftester",
			    "no worker "
			    "reported its throughput ('(N gflops)'): only "
			    "-t 1004, and -t 1006/1007/1008 with --cublas, "
			    "run a GEMM");
		goto out;
	}
	for (j = 0; j < nw; j++) {
		struct verify_gemm_gpu	*gg = NULL;
		size_t			 k;

		for (k = 0; k < g->n; k++)
			if (g->gpus[k].gpu == w[j].gpu)
				gg = &g->gpus[k];
		if (gg == NULL) {
			ALLOC_GROW(g->gpus, g->n + 1, g->alloc);
			gg = &g->gpus[g->n++];
			memset(gg, 0, sizeof *gg);
			gg->gpu = w[j].gpu;
		}
		gg->workers++;
		gg->samples += (long)w[j].n;
		gg->tflops += verify_median(w[j].v, w[j].n);
	}
	qsort(g->gpus, g->n, sizeof *g->gpus, verify_gemm_gpu_cmp);
	r = 0;
out:
	for (j = 0; j < nw; j++)
		free(w[j].v);
	free(w);
	strvec_clear(&lines);
	if (r != 0)
		verify_gemm_release(g);
	return r;
}

/* ------------------------------------------------------------------ */
/* Judgement */

/* The catalog's dense peak of GPU g at precision prec; NAN unknown. */
static double
verify_gemm_peak(const struct cat_gpu *g, const char *prec)
{
	if (g == NULL)
		return NAN;
	if (strcmp(prec, "fp16") == 0)
		return g->fp16_tflops;
	if (strcmp(prec, "fp64") == 0)
		return g->fp64_tflops;
	return NAN;
}

/* "dcgmproftester12 (datacenter-gpu-manager 1:3.3.5)" from node k. */
static char *
verify_gemm_tool(const struct verify_node *vn)
{
	const struct verify_sec	*s = verify_node_sec(vn, "gemm-tool");
	struct strvec		 l = STRVEC_INIT;
	char			*r = NULL;

	if (s == NULL || s->rc != 0)
		return NULL;
	strvec_split_lines(&l, s->body);
	if (l.n > 0 && *str_trim(l.v[0]) != '\0')
		r = l.n > 1 && *str_trim(l.v[1]) != '\0' ?
		    xasprintf("%s (%s)", l.v[0], l.v[1]) :
		    xstrdup(l.v[0]);
	strvec_clear(&l);
	return r;
}

/* One test on every burnt-in GPU node: rows, and the measured figure. */
static void
verify_eval_gemm_test(struct verify_ctx *c, size_t t)
{
	const struct verify_gemm_test	*gt = &verify_gemm_tests[t];
	struct verify_gemm		*g = xcalloc(c->n + 1, sizeof *g);
	struct verify_measured_gemm	*m = NULL;
	char				 what[32];
	double				*all = NULL, median = NAN, low = NAN;
	size_t				 i, k, nall = 0, aall = 0;

	if (c->meas != NULL)
		m = &c->meas->gemm[t];
	snprintf(what, sizeof what, "gemm %s", gt->prec);
	for (i = 0; i < c->n; i++) {
		const struct verify_node	*vn = &c->nodes[i];
		const struct verify_sec		*s;
		struct prov_err			 err = PROV_ERR_INIT;
		char				 sec[32], *l;

		g[i].field = -2; /* not measured */
		if (verify_gpus(vn->pn) == 0 || !vn->reached)
			continue;
		if (m != NULL)
			m->planned += verify_gpus(vn->pn);
		snprintf(sec, sizeof sec, "gemm-%s", gt->prec);
		s = verify_node_sec(vn, sec);
		if (s == NULL) {
			verify_row(c, ROW_SKIP, vn->pn->name, what, NULL, NULL,
			    "not gathered");
			if (c->meas != NULL)
				strvec_pushf(&c->meas->missing,
				    "%s GEMM on "
				    "%s: not gathered",
				    gt->prec, vn->pn->name);
			continue;
		}
		if (s->rc == 127) {
			l = verify_first_line(s->body);
			verify_row(c, ROW_SKIP, vn->pn->name, what, NULL, NULL,
			    "%s", l);
			if (c->meas != NULL)
				strvec_pushf(&c->meas->missing,
				    "%s GEMM on "
				    "%s: %s",
				    gt->prec, vn->pn->name, l);
			free(l);
			continue;
		}
		if (verify_parse_dcgmproftester(&g[i], s->body, &err) != 0) {
			verify_row(c, ROW_FAIL, vn->pn->name, what, NULL, NULL,
			    "%s (-t %ld, exit %ld)", err.msg, gt->field, s->rc);
			if (c->meas != NULL)
				strvec_pushf(&c->meas->missing,
				    "%s GEMM on "
				    "%s: %s",
				    gt->prec, vn->pn->name, err.msg);
			prov_err_release(&err);
			g[i].field = -2;
			continue;
		}
		for (k = 0; k < g[i].n; k++) {
			ALLOC_GROW(all, nall + 1, aall);
			all[nall++] = g[i].gpus[k].tflops;
		}
	}
	if (nall > 0) {
		double	*sorted = xcalloc(nall, sizeof *sorted);

		memcpy(sorted, all, nall * sizeof *sorted);

		median = verify_median(sorted, nall);
		low = sorted[0];
		free(sorted);
	}
	for (i = 0; i < c->n; i++) {
		const struct plan_node	*pn = c->nodes[i].pn;
		const struct cat_gpu	*cg = NULL;
		const struct verify_sec	*s;
		double			 peak, lo = INFINITY, hi = 0;
		struct buf		 why = BUF_INIT;
		enum row_verdict	 v = ROW_OK;
		char			 exp[160], got[160], sec[32];
		long			 slow = -1, nslow = 0;

		if (g[i].field == -2)
			continue;
		if (pn->hw != NULL)
			cg = pn->hw->gpu_cat;
		peak = verify_gemm_peak(cg, gt->prec);
		for (k = 0; k < g[i].n; k++) {
			double	 x = g[i].gpus[k].tflops;

			lo = x < lo ? x : lo;
			hi = x > hi ? x : hi;
			if (x < VERIFY_GEMM_PEER * median) {
				if (nslow++ == 0)
					slow = g[i].gpus[k].gpu;
			}
		}
		if (lo == hi)
			snprintf(got, sizeof got, "%zu GPU%s: %.1f TFLOPS",
			    g[i].n, g[i].n == 1 ? "" : "s", lo);
		else
			snprintf(got, sizeof got, "%zu GPUs: %.1f-%.1f TFLOPS",
			    g[i].n, lo, hi);
		if (isnan(peak) || !(peak > 0)) {
			snprintf(exp, sizeof exp, "no catalog %s_tflops",
			    gt->prec);
			v = ROW_SKIP;
			buf_addf(&why,
			    "the catalog has no %s peak for %s: "
			    "recorded, not graded",
			    gt->prec, cg != NULL ? cg->m.id : "this GPU");
		} else {
			double	 ratio = lo / peak;

			snprintf(exp, sizeof exp,
			    ">= %.0f%% of %g TFLOPS "
			    "(catalog %s %s_tflops)",
			    VERIFY_GEMM_OK * 100, peak, cg->m.id, gt->prec);
			snprintf(got + strlen(got), sizeof got - strlen(got),
			    " (%.2f of peak)", ratio);
			if (ratio < VERIFY_GEMM_WARN) {
				v = ROW_FAIL;
				buf_addf(&why,
				    "below %.0f%% of the datasheet: a "
				    "GPU this slow is broken or held back "
				    "(clocks, power cap, heat: nvidia-smi -q "
				    "-d PERFORMANCE)",
				    VERIFY_GEMM_WARN * 100);
			} else if (ratio < VERIFY_GEMM_OK) {
				v = ROW_WARN;
				buf_addf(&why,
				    "below %.0f%% of the datasheet: "
				    "throttled? (nvidia-smi -q -d PERFORMANCE)",
				    VERIFY_GEMM_OK * 100);
			}
		}
		if (nslow > 0) {
			if (v == ROW_OK)
				v = ROW_WARN;
			buf_addf(&why,
			    "%sGPU %ld%s below %.0f%% of the "
			    "cluster's median %.1f TFLOPS: a straggler paces "
			    "every synchronous step",
			    why.len ? "; " : "", slow,
			    nslow > 1 ? " and others" : "",
			    VERIFY_GEMM_PEER * 100, median);
		}
		if ((long)g[i].n < verify_gpus(pn) && g[i].gpus[0].gpu >= 0) {
			if (v == ROW_OK)
				v = ROW_WARN;
			buf_addf(&why, "%s%zu of the plan's %ld GPUs reported",
			    why.len ? "; " : "", g[i].n, verify_gpus(pn));
		}
		snprintf(sec, sizeof sec, "gemm-%s", gt->prec);
		s = verify_node_sec(&c->nodes[i], sec);
		if (s != NULL && s->rc != 0) {
			if (v == ROW_OK)
				v = ROW_WARN;
			buf_addf(&why, "%sdcgmproftester exited %ld%s",
			    why.len ? "; " : "", s->rc,
			    s->rc == 124 ? " (timed out)" : "");
		}
		if (why.len == 0)
			buf_addf(&why,
			    "dcgmproftester -t %ld%s%s, every GPU "
			    "at once: the median of each GPU's reports",
			    gt->field, *gt->args ? " " : "", gt->args);
		verify_row(c, v, pn->name, what, exp, got, "%s", why.buf);
		buf_release(&why);
		if (m != NULL) {
			strvec_push(&m->nodes, pn->name);
			m->gpus += (long)g[i].n;
		}
	}
	if (m != NULL && nall > 0) {
		m->tflops = low;
		if (c->meas->gemm_tool == NULL)
			for (i = 0; i < c->n && c->meas->gemm_tool == NULL; i++)
				if (g[i].field != -2)
					c->meas->gemm_tool = verify_gemm_tool(
					    &c->nodes[i]);
	}
	for (i = 0; i < c->n; i++)
		verify_gemm_release(&g[i]);
	free(g);
	free(all);
}

void
verify_eval_gemm(struct verify_ctx *c)
{
	size_t	 t;

	if (!c->o->burn_in)
		return;
	for (t = 0; t < VERIFY_NGEMM; t++)
		verify_eval_gemm_test(c, t);
}

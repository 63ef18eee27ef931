/*
 * verify-measured.c: what `verify --burn-in` measured, kept for
 * `estimate` as .provision/CLUSTER/measured.json (docs/estimate.md,
 * "Measured, not assumed").  The figures come from verify-services.c
 * (all_reduce_perf's bus bandwidth) and verify-gemm.c (dcgmproftester's
 * GEMM TFLOPS); this file only writes them down.  A figure no tool
 * printed is left out, never filled in from the catalog, and what was
 * not measured is listed under "missing" with "partial": true.
 */
#include "compat.h"

#include <errno.h>
#include <math.h>
#include <time.h>

#include "json.h"
#include "verify.h"

void
verify_measured_init(struct verify_measured *m)
{
	size_t	 t;

	memset(m, 0, sizeof *m);
	m->busbw = NAN;
	m->bytes = NAN;
	m->ar_nodes = (struct strvec)STRVEC_INIT;
	m->missing = (struct strvec)STRVEC_INIT;
	for (t = 0; t < VERIFY_NGEMM; t++) {
		m->gemm[t].tflops = NAN;
		m->gemm[t].nodes = (struct strvec)STRVEC_INIT;
	}
}

void
verify_measured_release(struct verify_measured *m)
{
	size_t	 t;

	if (m == NULL)
		return;
	strvec_clear(&m->ar_nodes);
	strvec_clear(&m->missing);
	for (t = 0; t < VERIFY_NGEMM; t++)
		strvec_clear(&m->gemm[t].nodes);
	free(m->ar_tool);
	free(m->gemm_tool);
	verify_measured_init(m);
}

int
verify_measured_any(const struct verify_measured *m)
{
	size_t	 t;

	if (!isnan(m->busbw))
		return 1;
	for (t = 0; t < VERIFY_NGEMM; t++)
		if (!isnan(m->gemm[t].tflops))
			return 1;
	return 0;
}

int
verify_measured_partial(const struct verify_measured *m)
{
	size_t	 t;

	if (m->missing.n > 0)
		return 1;
	if (!isnan(m->busbw) && m->ranks > 0 && m->ranks < m->planned)
		return 1;
	for (t = 0; t < VERIFY_NGEMM; t++)
		if (!isnan(m->gemm[t].tflops) &&
		    m->gemm[t].gpus < m->gemm[t].planned)
			return 1;
	return 0;
}

void
verify_measured_json(struct buf *b, const struct verify_measured *m)
{
	struct json_writer	 jw;
	size_t			 t;
	int			 gemm = 0;

	json_init(&jw, b);
	json_object_begin(&jw, NULL, JSON_LINES);
	json_int(&jw, "version", 1);
	json_str(&jw, "written_by", "provision verify --burn-in");
	if (m->at > 0) {
		time_t		 tt = (time_t)m->at;
		struct tm	 tm;
		char		 at[32];

		if (gmtime_r(&tt, &tm) != NULL &&
		    strftime(at, sizeof at, "%Y-%m-%dT%H:%M:%SZ", &tm) > 0)
			json_str(&jw, "at", at);
	}
	json_bool(&jw, "partial", verify_measured_partial(m));
	json_strvec(&jw, "missing", &m->missing);
	if (!isnan(m->busbw)) {
		json_num(&jw, "allreduce_busbw_gbs", m->busbw, -1);
		if (!isnan(m->bytes) && m->bytes > 0)
			json_num(&jw, "allreduce_bytes", m->bytes, -1);
		if (m->ranks >= 2)
			json_int(&jw, "allreduce_gpus", m->ranks);
		json_strvec(&jw, "allreduce_nodes", &m->ar_nodes);
		json_str(&jw, "allreduce_tool", m->ar_tool);
	}
	for (t = 0; t < VERIFY_NGEMM; t++)
		gemm |= !isnan(m->gemm[t].tflops);
	if (gemm) {
		struct strvec	 nodes = STRVEC_INIT;
		size_t		 i;

		json_object_begin(&jw, "gemm_tflops", 0);
		for (t = 0; t < VERIFY_NGEMM; t++)
			if (!isnan(m->gemm[t].tflops))
				json_num(&jw, verify_gemm_tests[t].prec,
				    m->gemm[t].tflops, 1);
		json_end(&jw);
		json_object_begin(&jw, "gemm_gpus", 0);
		for (t = 0; t < VERIFY_NGEMM; t++)
			if (!isnan(m->gemm[t].tflops))
				json_int(&jw, verify_gemm_tests[t].prec,
				    m->gemm[t].gpus);
		json_end(&jw);
		for (t = 0; t < VERIFY_NGEMM; t++)
			for (i = 0; i < m->gemm[t].nodes.n; i++)
				if (strvec_find(&nodes, m->gemm[t].nodes.v[i]) <
				    0)
					strvec_push(&nodes,
					    m->gemm[t].nodes.v[i]);
		json_strvec(&jw, "gemm_nodes", &nodes);
		strvec_clear(&nodes);
		json_str(&jw, "gemm_tool",
		    m->gemm_tool != NULL ? m->gemm_tool : "dcgmproftester");
	}
	json_end(&jw);
	json_finish(&jw);
}

int
verify_measured_write(const struct verify_measured *m, const char *path,
    struct prov_err *err)
{
	struct buf	 b = BUF_INIT;
	int		 r = 0;

	verify_measured_json(&b, m);
	/* 0644: figures and node names, nothing secret. */
	if (buf_write_file_atomic(path, b.buf, b.len, 0644) != 0)
		r = prov_err_sys(err, "cannot write '%s'", path);
	buf_release(&b);
	return r;
}

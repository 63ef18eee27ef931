#include "test.h"

#include <math.h>

#include "buf.h"
#include "err.h"
#include "plan.h"
#include "row.h"
#include "strvec.h"
#include "usage.h"

START_TEST(test_usage_since)
{
	static const struct { const char *in, *out; } ok[] = {
		{ "30d", "now-30days" }, { "12h", "now-12hours" },
		{ "2w", "now-2weeks" }, { "2026-11-01", "2026-11-01" },
		{ "2026-11-01T08:30", "2026-11-01T08:30" },
		{ "2026-11-01T08:30:05", "2026-11-01T08:30:05" },
	};
	static const char *const bad[] = { "", "d", "0d", "30", "30x",
	    "-3d", "30d;id", "2026-11-1", "2026-11-01 08:30", "now-30days",
	    "1000000d" };
	struct prov_err	 err = PROV_ERR_INIT;
	char		*s;
	size_t		 i;

	for (i = 0; i < ARRAY_SIZE(ok); i++) {
		ck_assert_ok(usage_since(&s, ok[i].in, &err), &err);
		ck_assert_str_eq(s, ok[i].out);
		free(s);
	}
	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		ck_assert_int_eq(usage_since(&s, bad[i], &err), -1);
		ck_assert_ptr_null(s);
		ck_assert_ptr_nonnull(strstr(err.msg, "bad --since"));
		prov_err_release(&err);
	}
}
END_TEST

static struct plan *
test_usage_plan(void)
{
	struct plan_opts	 o = PLAN_OPTS_INIT;
	struct prov_errs	 errs = PROV_ERRS_INIT;
	struct plan		*p = NULL;
	char			*path = test_path("examples/testbed-shared.yaml");
	char			*prof = test_path("profiles");

	o.builtin_dir = prof;
	ck_assert_int_eq(plan_load(&p, path, &o, &errs), 0);
	prov_errs_release(&errs);
	free(path);
	free(prof);
	return p;
}

static const struct row *
test_usage_row(const struct rows *rows, const char *group, const char *subj)
{
	size_t	i;

	for (i = 0; i < rows->n; i++)
		if (strcmp(rows->v[i].group, group) == 0 &&
		    strcmp(rows->v[i].subject, subj) == 0)
			return &rows->v[i];
	ck_abort_msg("no %s row for %s", group, subj);
	return NULL;
}

/* What the head printed (sacct -X -P, squeue) after t120's jobs. */
START_TEST(test_usage_parse)
{
	static const char out[] =
	    "@@facts u-jobs\n"
	    "2|vision|alice|600|billing=1,cpu=1,gres/gpu=1,mem=50M,node=1|CANCELLED by 0\n"
	    "3|vision|alice|1800|billing=2,cpu=2,gres/gpu:a100=2,gres/gpu=2,mem=50M,node=1|COMPLETED\n"
	    "4|vision|bob|3600|cpu=1,mem=50M,node=1|COMPLETED\n"
	    "5|root|root|7200|cpu=1,gres/gpu=1,node=1|COMPLETED\n"
	    "6|vision|alice|0||PENDING\n"
	    "@@rc 0\n"
	    "@@facts u-waiting\n"
	    "6|vision|alice|AssocGrpGRES\n"
	    "@@rc 0\n";
	struct plan	*p = test_usage_plan();
	struct rows	 rows = ROWS_INIT;
	struct prov_err	 err = PROV_ERR_INIT;
	const struct row *r;

	ck_assert_ok(usage_parse(&rows, p, out, &err), &err);
	r = test_usage_row(&rows, "teams", "vision");
	ck_assert(fabs(r->value - (600.0 + 2 * 1800.0) / 3600.0) < 1e-9);
	ck_assert_str_eq(r->measured, "1.17 (2 jobs)");
	ck_assert_str_eq(r->limit, "2 GPUs at once");
	r = test_usage_row(&rows, "teams", "nlp");
	ck_assert(r->value == 0.0);
	ck_assert_str_eq(r->limit, "no GPU limit");
	r = test_usage_row(&rows, "teams", "root");
	ck_assert(fabs(r->value - 2.0) < 1e-9);
	ck_assert_str_eq(r->limit, "not in the plan");
	r = test_usage_row(&rows, "users", "alice");
	ck_assert(fabs(r->value - 4200.0 / 3600.0) < 1e-9);
	ck_assert_str_eq(r->limit, "team vision");
	/* bob's job held no GPU */
	r = test_usage_row(&rows, "users", "bob");
	ck_assert(r->value == 0.0);
	r = test_usage_row(&rows, "waiting", "job 6");
	ck_assert_int_eq(r->verdict, ROW_WARN);
	ck_assert_str_eq(r->measured, "AssocGrpGRES");
	ck_assert_str_eq(r->limit, "alice in vision");
	ck_assert_ptr_nonnull(strstr(r->hint, "limit"));
	rows_release(&rows);

	/* no accounting: sacct's own words, and where accounting comes from */
	ck_assert_int_eq(usage_parse(&rows, p, "@@facts u-jobs\nsacct: error: "
	    "Problem talking to the database: Connection refused\n@@rc 1\n",
	    &err), -1);
	ck_assert_ptr_nonnull(strstr(err.msg, "sacct failed on the head: "
	    "sacct: error: Problem talking to the database"));
	prov_err_release(&err);
	ck_assert_int_eq(usage_parse(&rows, p, "bash: sacct: not found\n",
	    &err), -1);
	prov_err_release(&err);
	rows_release(&rows);
	plan_free(p);
}
END_TEST

/*
 * Answers to the three DCGM queries, in the shape of Prometheus.s
 * /api/v1/query (t120 asks a real one): worker-01.s GPUs at 80 and 40 %
 * for jobs 7 and 8, worker-02's at 10 and 30 % with no job, and a job 99
 * that sacct does not list.
 */
static const char test_usage_dcgm_nodes[] = "{\"status\":\"success\","
    "\"data\":{\"resultType\":\"vector\",\"result\":["
    "{\"metric\":{\"node\":\"worker-02\"},\"value\":[1764680000.5,\"20\"]},"
    "{\"metric\":{\"node\":\"worker-01\"},\"value\":[1764680000.5,\"60\"]},"
    "{\"metric\":{\"node\":\"gpu-x\"},\"value\":[1764680000.5,\"5.25\"]}]}}";
static const char test_usage_dcgm_sums[] = "{\"status\":\"success\","
    "\"data\":{\"resultType\":\"vector\",\"result\":["
    "{\"metric\":{\"hpc_job\":\"7\"},\"value\":[1764680000.5,\"800\"]},"
    "{\"metric\":{\"hpc_job\":\"8\"},\"value\":[1764680000.5,\"1200\"]},"
    "{\"metric\":{\"hpc_job\":\"99\"},\"value\":[1764680000.5,\"50\"]}]}}";
static const char test_usage_dcgm_counts[] = "{\"status\":\"success\","
    "\"data\":{\"resultType\":\"vector\",\"result\":["
    "{\"metric\":{\"hpc_job\":\"8\"},\"value\":[1764680000.5,\"30\"]},"
    "{\"metric\":{\"hpc_job\":\"7\"},\"value\":[1764680000.5,\"10\"]},"
    "{\"metric\":{\"hpc_job\":\"99\"},\"value\":[1764680000.5,\"5\"]}]}}";
static const char test_usage_dcgm_empty[] = "{\"status\":\"success\","
    "\"data\":{\"resultType\":\"vector\",\"result\":[]}}";
static const char test_usage_dcgm_head[] = "@@facts u-jobs\n"
    "7|vision|alice|60|billing=1,cpu=1,gres/gpu=1,mem=50M,node=1|COMPLETED\n"
    "8|nlp|carol|60|billing=1,cpu=1,gres/gpu=1,mem=50M,node=1|COMPLETED\n"
    "@@rc 0\n@@facts u-waiting\n@@rc 0\n";

/*
 * Nodes in plan order then the others; a team's figure weighs its jobs
 * by their samples; jobs sacct does not know are said, not counted.
 */
START_TEST(test_usage_dcgm)
{
	struct plan	*p = test_usage_plan();
	struct rows	 rows = ROWS_INIT;
	struct prov_err	 err = PROV_ERR_INIT;
	const char	*ans[3] = { test_usage_dcgm_nodes, test_usage_dcgm_sums,
			    test_usage_dcgm_counts };
	const struct row *r;

	ck_assert_ok(usage_dcgm_parse(&rows, p, ans, test_usage_dcgm_head,
	    &err), &err);
	ck_assert_str_eq(rows.v[0].subject, "worker-01");
	ck_assert_str_eq(rows.v[1].subject, "worker-02");
	ck_assert_str_eq(rows.v[2].subject, "gpu-x");
	ck_assert_str_eq(rows.v[2].limit, "not in the plan");
	r = test_usage_row(&rows, "gpu-util", "worker-01");
	ck_assert_str_eq(r->measured, "60.0 %");
	ck_assert(fabs(r->value - 60) < 1e-9);
	r = test_usage_row(&rows, "team-util", "vision");
	ck_assert(fabs(r->value - 80) < 1e-9);
	ck_assert_str_eq(r->limit, "1 job");
	r = test_usage_row(&rows, "team-util", "nlp");
	ck_assert(fabs(r->value - 40) < 1e-9);
	r = test_usage_row(&rows, "team-util", "other jobs");
	ck_assert_int_eq(r->verdict, ROW_SKIP);
	ck_assert_str_eq(r->measured, "1 job");
	rows_release(&rows);
	/* no metrics at all: one row says so */
	ans[0] = ans[1] = ans[2] = test_usage_dcgm_empty;
	ck_assert_ok(usage_dcgm_parse(&rows, p, ans, test_usage_dcgm_head,
	    &err), &err);
	ck_assert_uint_eq(rows.n, 1);
	ck_assert_str_eq(rows.v[0].measured, "no DCGM metrics");
	ck_assert_int_eq(rows.v[0].verdict, ROW_SKIP);
	rows_release(&rows);
	/* metrics without job labels: nodes, and why no teams */
	ans[0] = test_usage_dcgm_nodes;
	ck_assert_ok(usage_dcgm_parse(&rows, p, ans, test_usage_dcgm_head,
	    &err), &err);
	r = test_usage_row(&rows, "team-util", "teams");
	ck_assert_str_eq(r->measured, "no job labels on the DCGM metrics");
	/* where the labels come from: the Slurm prolog's files */
	ck_assert_ptr_nonnull(strstr(r->hint, "/run/dcgm-job-map"));
	rows_release(&rows);
	/* not Prometheus's answer */
	ans[1] = "{\"status\":\"error\",\"error\":\"parse error\"}";
	ck_assert_int_eq(usage_dcgm_parse(&rows, p, ans, NULL, &err), -1);
	ck_assert_ptr_nonnull(strstr(err.msg, "vector"));
	prov_err_release(&err);
	rows_release(&rows);
	plan_free(p);
}
END_TEST

START_TEST(test_usage_dcgm_range)
{
	struct prov_err	 err = PROV_ERR_INIT;
	struct strvec	 q = STRVEC_INIT;
	char		*s;

	ck_assert_ok(usage_dcgm_range(&s, "30d", 0, &err), &err);
	ck_assert_str_eq(s, "30d");
	free(s);
	/* 2026-12-01T00:00:00Z is 1796083200 */
	ck_assert_ok(usage_dcgm_range(&s, "2026-11-30", 1796083200, &err),
	    &err);
	ck_assert_str_eq(s, "86400s");
	free(s);
	ck_assert_ok(usage_dcgm_range(&s, "2026-11-30T23:00:30", 1796083200,
	    &err), &err);
	ck_assert_str_eq(s, "3570s");
	free(s);
	ck_assert_int_eq(usage_dcgm_range(&s, "2027-01-01", 1796083200, &err),
	    -1);
	prov_err_release(&err);
	usage_dcgm_queries(&q, "1d");
	ck_assert_str_eq(q.v[0], "avg by (node) (avg_over_time("
	    "DCGM_FI_DEV_GPU_UTIL[1d]))");
	ck_assert_str_eq(q.v[1], "sum by (hpc_job) (sum_over_time("
	    "DCGM_FI_DEV_GPU_UTIL{hpc_job!=\"\"}[1d]))");
	strvec_clear(&q);
}
END_TEST

/* usage --json read back for the report: rows and their groups. */
START_TEST(test_usage_from_json)
{
	static const char j[] = "{\"usage\":["
	    "{\"verdict\":\"ok\",\"group\":\"teams\",\"subject\":\"vision\","
	    "\"check\":\"GPU-hours\",\"measured\":\"1.50 (2 jobs)\"},"
	    "{\"verdict\":\"warn\",\"group\":\"waiting\",\"subject\":\"job 3\","
	    "\"check\":\"waiting\",\"measured\":\"AssocGrpGRES\"},"
	    "{\"verdict\":\"skip\",\"group\":\"odd\",\"subject\":\"x\","
	    "\"check\":\"y\"}]}";
	struct rows	 rows = ROWS_INIT;
	struct prov_err	 err = PROV_ERR_INIT;

	ck_assert_ok(usage_from_json(&rows, "u.json", j, strlen(j), &err),
	    &err);
	ck_assert_uint_eq(rows.n, 3);
	ck_assert_str_eq(rows.v[0].group, "teams");
	ck_assert_str_eq(rows.v[0].measured, "1.50 (2 jobs)");
	ck_assert_str_eq(rows.v[1].group, "waiting");
	ck_assert_int_eq(rows.v[1].verdict, ROW_WARN);
	ck_assert_ptr_null(rows.v[2].group);
	rows_release(&rows);
	ck_assert_int_eq(usage_from_json(&rows, "v.json", "{\"checks\":[]}",
	    13, &err), -1);
	ck_assert_msg(strstr(err.msg, "usage") != NULL, "%s", err.msg);
	prov_err_release(&err);
}
END_TEST

static Suite *
usage_suite(void)
{
	Suite	*s = suite_create("usage");
	TCase	*tc = tcase_create("usage");

	tcase_add_test(tc, test_usage_since);
	tcase_add_test(tc, test_usage_parse);
	tcase_add_test(tc, test_usage_dcgm);
	tcase_add_test(tc, test_usage_dcgm_range);
	tcase_add_test(tc, test_usage_from_json);
	suite_add_tcase(s, tc);
	return s;
}

TEST_MAIN(usage_suite)

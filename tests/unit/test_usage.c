#include "test.h"

#include <math.h>

#include "buf.h"
#include "err.h"
#include "plan.h"
#include "row.h"
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

static Suite *
usage_suite(void)
{
	Suite	*s = suite_create("usage");
	TCase	*tc = tcase_create("usage");

	tcase_add_test(tc, test_usage_since);
	tcase_add_test(tc, test_usage_parse);
	suite_add_tcase(s, tc);
	return s;
}

TEST_MAIN(usage_suite)

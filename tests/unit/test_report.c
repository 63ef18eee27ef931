/*
 * test_report.c: the HTML report of lib/report.c for the example plans
 * and a plan that fails on purpose: every rack, node, switch and failing
 * check has its element, the elevations are to scale, the numbers are the
 * checks' own, and text from state and verify files is escaped.  (The
 * page as a browser renders it is tested by tests/e2e/t060-report.sh.)
 */
#include "compat.h"

#include <math.h>

#include "buf.h"
#include "check.h"
#include "facts.h"
#include "plan.h"
#include "row.h"
#include "report.h"
#include "state.h"
#include "str.h"
#include "test.h"

static struct plan *
load_plan(const char *rel)
{
	struct plan_opts	 o = PLAN_OPTS_INIT;
	struct prov_errs	 errs = PROV_ERRS_INIT;
	struct plan		*p = NULL;
	char			*dir = test_path("profiles");
	char			*path = test_path(rel);

	o.builtin_dir = dir;
	if (plan_load(&p, path, &o, &errs) != 0) {
		prov_errs_print(&errs, stderr);
		ck_abort_msg("plan %s did not load", rel);
	}
	prov_errs_release(&errs);
	free(dir);
	free(path);	/* the plan keeps its own copy */
	return p;
}

static size_t
count(const char *hay, const char *needle)
{
	size_t		 n = 0;
	const char	*p = hay;

	while ((p = strstr(p, needle)) != NULL) {
		n++;
		p += strlen(needle);
	}
	return n;
}

static char *
render(struct plan *p, struct rows *cr, const struct state *st,
    const struct rows *v)
{
	struct report_in	in = REPORT_IN_INIT;
	struct buf		b = BUF_INIT;
	struct prov_err		err = PROV_ERR_INIT;

	ck_assert_ok(check_plan(cr, p, &err), &err);
	in.plan = p;
	in.checks = cr;
	in.state = st;
	in.state_path = "state.json";
	in.verify = v;
	in.verify_path = "verify.json";
	report_html(&b, &in);
	return buf_detach(&b, NULL);
}

START_TEST(test_report_examples)
{
	static const char *const plans[] = { "examples/dgx-a100-pod.yaml",
	    "examples/pcie-lab.yaml", "examples/edge-inference.yaml",
	    "examples/testbed.yaml", "tests/fixtures/report/overloaded.yaml" };
	size_t	k, i;

	for (k = 0; k < ARRAY_SIZE(plans); k++) {
		struct plan	*p = load_plan(plans[k]);
		struct rows	 cr = ROWS_INIT;
		char		*h = render(p, &cr, NULL, NULL), *s;

		ck_assert(str_starts(h, "<!DOCTYPE html>"));
		ck_assert_ptr_null(strstr(h, "<script"));
		ck_assert_ptr_null(strstr(h, "src=\"http"));
		for (i = 0; i < p->nracks; i++) {
			s = xasprintf("<g class=\"rack\" data-rack=\"%s\" "
			    "data-units=\"%ld\">", p->racks[i].name,
			    p->racks[i].units);
			ck_assert_msg(strstr(h, s) != NULL, "%s: no %s",
			    plans[k], s);
			free(s);
		}
		for (i = 0; i < p->nnodes; i++) {
			s = xasprintf("data-node=\"%s\"", p->nodes[i].name);
			ck_assert_msg(count(h, s) == 1, "%s: %s %zu times",
			    plans[k], s, count(h, s));
			free(s);
		}
		for (i = 0; i < p->nswitches; i++) {
			s = xasprintf("data-switch=\"%s\"",
			    p->switches[i].name);
			ck_assert_msg(strstr(h, s) != NULL, "%s: no %s",
			    plans[k], s);
			free(s);
		}
		ck_assert_uint_eq(count(h, "<tr class=\"check fail\""),
		    rows_count(&cr, ROW_FAIL));
		ck_assert_uint_eq(count(h, "<tr class=\"check "), cr.n);
		rows_release(&cr);
		plan_free(p);
		free(h);
	}
}
END_TEST

/* Drawn to scale: a 6 U DGX at U2 of a 42 U rack. */
START_TEST(test_report_scale)
{
	struct plan	*p = load_plan("examples/dgx-a100-pod.yaml");
	struct rows	 cr = ROWS_INIT;
	char		*h = render(p, &cr, NULL, NULL), *g, *want;
	double			 draw = check_hw_draw_w(p, plan_hw_find(p,
				    "dgx"), NULL);

	g = strstr(h, "data-node=\"dgx01\"");
	ck_assert_ptr_nonnull(g);
	ck_assert(str_starts(g, "data-node=\"dgx01\" data-u=\"2\" "
	    "data-height=\"6\""));
	/* top of U7 is (42 - 7) units below the rack's top edge at y=10 */
	want = xasprintf("y=\"%.1f\" width=\"296\" height=\"%d\"",
	    10.0 + 35 * REPORT_PX_PER_U + 1, 6 * REPORT_PX_PER_U - 2);
	ck_assert_msg(strstr(g, want) != NULL && strstr(g, want) <
	    strstr(g, "</g>"), "no %s", want);
	/* the label is the PSU budget row's draw */
	ck_assert(fabs(draw - 6500) < 0.5);
	ck_assert_ptr_nonnull(strstr(g, "6,500 W"));
	free(want);
	rows_release(&cr);
	plan_free(p);
	free(h);
}
END_TEST

/* Chassis sharing units and sticking out of the rack are marked. */
START_TEST(test_report_conflicts)
{
	struct plan		*p = load_plan(
	    "tests/fixtures/report/overloaded.yaml");
	struct rows	 cr = ROWS_INIT;
	char			*h = render(p, &cr, NULL, NULL);

	ck_assert_ptr_nonnull(strstr(h, "<g class=\"node role-worker "
	    "conflict\" data-node=\"gpu02\""));
	ck_assert_ptr_nonnull(strstr(h, "<g class=\"node role-worker "
	    "conflict\" data-node=\"gpu04\""));
	ck_assert_ptr_nonnull(strstr(h, "<g class=\"node role-worker\" "
	    "data-node=\"gpu01\""));
	ck_assert_ptr_nonnull(strstr(h, "<span class=\"node unracked\" "
	    "data-node=\"login01\">"));
	/* the feed bar is over the limit and red */
	ck_assert_ptr_nonnull(strstr(h, "<tr class=\"power fail\"><td>r01 "
	    "feed A</td>"));
	ck_assert_ptr_nonnull(strstr(h, "<p class=\"note pcie-misfit\">"));
	rows_release(&cr);
	plan_free(p);
	free(h);
}
END_TEST

START_TEST(test_report_state_verify_escaped)
{
	struct plan	*p = load_plan("examples/testbed.yaml");
	struct rows	 cr = ROWS_INIT;
	struct state	*st = NULL;
	struct rows	 v = ROWS_INIT;
	struct prov_err	 err = PROV_ERR_INIT;
	char		 dir[] = "/tmp/test-report.XXXXXX", *path, *h;

	ck_assert_ptr_nonnull(mkdtemp(dir));
	path = xasprintf("%s/state.json", dir);
	ck_assert_ok(state_open(&st, path, &err), &err);
	state_set(st, "head-01", "base", STATE_CHANGED, NULL, 1.0);
	state_set(st, "worker-01", "slurm", STATE_FAILED,
	    "slurmd <b>died</b> & \"left\"", 2.0);
	rows_addf(&v, ROW_FAIL, "worker-02", "daemon slurmd", "running",
	    "not running", "<script>alert(1)</script>");
	h = render(p, &cr, st, &v);
	ck_assert_ptr_nonnull(strstr(h, "<td class=\"step failed\" "
	    "data-step=\"slurm\" title=\"slurmd &lt;b&gt;died&lt;/b&gt; &amp; "
	    "&quot;left&quot;\">failed</td>"));
	ck_assert_ptr_nonnull(strstr(h, "<td class=\"step changed\""));
	ck_assert_ptr_nonnull(strstr(h, "<tr class=\"verify fail\" "
	    "data-group=\"\" data-subject=\"worker-02\">"));
	ck_assert_ptr_nonnull(strstr(h, "&lt;script&gt;alert(1)"));
	ck_assert_ptr_null(strstr(h, "<script"));
	ck_assert_ptr_null(strstr(h, "<b>"));
	state_free(st);
	rows_release(&v);
	rows_release(&cr);
	plan_free(p);
	free(h);
	unlink(path);
	rmdir(dir);
	free(path);
}
END_TEST

static Suite *
report_suite(void)
{
	Suite	*s = suite_create("report");
	TCase	*tc = tcase_create("html");

	tcase_add_test(tc, test_report_examples);
	tcase_add_test(tc, test_report_scale);
	tcase_add_test(tc, test_report_conflicts);
	tcase_add_test(tc, test_report_state_verify_escaped);
	suite_add_tcase(s, tc);
	return s;
}

TEST_MAIN(report_suite)

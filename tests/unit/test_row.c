/*
 * test_row.c: unit tests for lib/row.c: rows, their counts, their JSON
 * and their JUnit.
 */
#include "compat.h"

#include <check.h>
#include <math.h>

#include "buf.h"
#include "json.h"
#include "row.h"
#include "test.h"
#include "yml.h"

START_TEST(test_rows_add)
{
	struct rows	 rows = ROWS_INIT, more = ROWS_INIT;
	struct row	*r;
	const char	*subject = "gpu01";

	r = rows_add(&rows, ROW_FAIL, "PSU budget");
	ck_assert_str_eq(r->what, "PSU budget");
	ck_assert_ptr_null(r->subject);
	ck_assert(isnan(r->value) && isnan(r->max));
	ck_assert_uint_eq(r->loc.line, 0);
	r->value = 2569;
	r->max = 1000;
	r = rows_addf(&rows, ROW_OK, subject, "gpu count", "8", "8", NULL);
	ck_assert_ptr_ne(r->subject, subject);	/* copied */
	ck_assert_ptr_null(r->hint);
	r = rows_addf(&rows, ROW_SKIP, "gpu02", "gpu", NULL, NULL,
	    "no %s device", "NVIDIA");
	ck_assert_ptr_null(r->limit);
	ck_assert_str_eq(r->hint, "no NVIDIA device");
	rows_addf(&more, ROW_WARN, "gpu03", "ecc", NULL, NULL, NULL);
	rows_append(&rows, &more);
	ck_assert_uint_eq(more.n, 0);
	ck_assert_ptr_null(more.v);
	ck_assert_uint_eq(rows.n, 4);
	ck_assert_uint_eq(rows_count(&rows, ROW_OK), 1);
	ck_assert_uint_eq(rows_count(&rows, ROW_WARN), 1);
	ck_assert_uint_eq(rows_count(&rows, ROW_FAIL), 1);
	ck_assert_uint_eq(rows_count(&rows, ROW_SKIP), 1);
	rows_release(&rows);
	ck_assert_uint_eq(rows.n, 0);
	rows_release(&rows);	/* twice is fine */
}
END_TEST

START_TEST(test_row_verdict_names)
{
	enum row_verdict	v;
	int			i;

	for (i = 0; i < ROW_NVERDICTS; i++) {
		ck_assert_int_eq(row_verdict_parse(
		    row_verdict_name((enum row_verdict)i), &v), 0);
		ck_assert_int_eq(v, i);
	}
	ck_assert_int_eq(row_verdict_parse("FAIL", &v), -1);
	ck_assert_int_eq(row_verdict_parse(NULL, &v), -1);
	ck_assert_str_eq(row_verdict_name((enum row_verdict)9), "?");
}
END_TEST

/* Every row has the same keys, whichever command made it. */
START_TEST(test_rows_json)
{
	struct rows		 rows = ROWS_INIT;
	struct row		*r;
	struct buf		 b = BUF_INIT;
	struct json_writer	 jw;
	struct yml_doc		 doc;
	struct prov_err		 err = PROV_ERR_INIT;
	const struct yml_node	*a, *e;
	static const char *const keys[] = { "verdict", "group", "subject",
	    "check", "measured", "limit", "hint", "value", "max" };
	size_t			 i, k;

	r = rows_add(&rows, ROW_FAIL, "PSU budget");
	r->group = "power";
	r->subject = xstrdup("hardware 'gpu'");
	r->measured = xstrdup("2,569 W");
	r->limit = xstrdup("1,000 W");
	r->value = 2569;
	r->max = 1000;
	r->loc = (struct prov_loc){ "p.yaml", 13, 10 };
	rows_addf(&rows, ROW_SKIP, "gpu02", "gpu", NULL, NULL, "no \"GPU\"");
	json_init(&jw, &b);
	json_object_begin(&jw, NULL, 0);
	rows_to_json(&jw, "rows", &rows);
	json_end(&jw);
	json_finish(&jw);
	ck_assert_ok(yml_load_json(&doc, "t", b.buf, b.len, &err), &err);
	a = yml_map_get(doc.root, "rows");
	ck_assert_uint_eq(a->n, 2);
	for (i = 0; i < a->n; i++)
		for (k = 0; k < ARRAY_SIZE(keys); k++)
			ck_assert_msg(yml_map_get(a->u.items[i], keys[k]) != NULL,
			    "row %zu lacks '%s'", i, keys[k]);
	e = a->u.items[0];
	ck_assert_str_eq(yml_map_str(e, "verdict"), "fail");
	ck_assert_str_eq(yml_map_str(e, "group"), "power");
	ck_assert_str_eq(yml_map_get(e, "value")->u.s, "2569");
	ck_assert_str_eq(yml_map_str(e, "file"), "p.yaml");
	ck_assert_str_eq(yml_map_get(e, "line")->u.s, "13");
	e = a->u.items[1];
	ck_assert(yml_is_null(yml_map_get(e, "limit")));
	ck_assert(yml_is_null(yml_map_get(e, "max")));
	ck_assert_ptr_null(yml_map_get(e, "file"));
	ck_assert_str_eq(yml_map_str(e, "hint"), "no \"GPU\"");
	yml_doc_release(&doc);
	buf_release(&b);
	rows_release(&rows);
}
END_TEST

START_TEST(test_rows_junit)
{
	struct rows	rows = ROWS_INIT;
	struct buf	b = BUF_INIT;

	rows_addf(&rows, ROW_FAIL, "gpu01", "ecc", "0", "2 <bad>", "drain");
	rows_addf(&rows, ROW_OK, "gpu02", "hostname", "gpu02", "gpu02", NULL);
	rows_addf(&rows, ROW_SKIP, "gpu01", "gpu", NULL, NULL, NULL);
	rows_addf(&rows, ROW_WARN, "gpu02", "time", NULL, NULL, "drifts");
	rows_to_junit(&b, "provision verify", "p.yaml", &rows);
	ck_assert_ptr_nonnull(strstr(b.buf, "<testsuites name=\"provision "
	    "verify\" tests=\"4\" failures=\"1\" skipped=\"1\">"));
	/* a suite per subject, in first-seen order */
	ck_assert_ptr_nonnull(strstr(b.buf, "<testsuite name=\"gpu01\" "
	    "tests=\"2\" failures=\"1\" errors=\"0\" skipped=\"1\" "
	    "package=\"p.yaml\">"));
	ck_assert(strstr(b.buf, "\"gpu01\"") < strstr(b.buf, "\"gpu02\""));
	ck_assert_ptr_nonnull(strstr(b.buf, "found: 2 &lt;bad&gt;</failure>"));
	ck_assert_ptr_nonnull(strstr(b.buf, "<testcase classname=\"gpu02\" "
	    "name=\"hostname\"/>"));
	ck_assert_ptr_nonnull(strstr(b.buf, "<system-out>warn: drifts"));
	ck_assert_ptr_nonnull(strstr(b.buf, "<skipped message=\"skipped\"/>"));
	buf_release(&b);
	rows_release(&rows);
}
END_TEST

START_TEST(test_rows_from_json)
{
	struct rows		 rows = ROWS_INIT, back = ROWS_INIT;
	struct row		*r;
	struct buf		 b = BUF_INIT;
	struct json_writer	 jw;
	struct yml_doc		 doc;
	struct prov_err		 err = PROV_ERR_INIT;
	static const char	 bad[] = "{\"rows\": [{\"subject\": \"x\"}]}";

	r = rows_add(&rows, ROW_WARN, "draw");
	r->group = "power";
	r->subject = xstrdup("gpu01");
	r->measured = xstrdup("3,015 W");
	r->limit = xstrdup("2,900 W modelled");
	r->value = 3015;
	r->max = 2900;
	rows_addf(&rows, ROW_SKIP, "gpu02", "draw", NULL, NULL, "no reading");
	json_init(&jw, &b);
	json_object_begin(&jw, NULL, 0);
	rows_to_json(&jw, "rows", &rows);
	json_end(&jw);
	json_finish(&jw);
	ck_assert_ok(yml_load_json(&doc, "t", b.buf, b.len, &err), &err);
	ck_assert_ok(rows_from_json(&back, "t", yml_map_get(doc.root, "rows"),
	    &err), &err);
	ck_assert_uint_eq(back.n, 2);
	ck_assert_int_eq(back.v[0].verdict, ROW_WARN);
	ck_assert_str_eq(back.v[0].subject, "gpu01");
	ck_assert_str_eq(back.v[0].limit, "2,900 W modelled");
	ck_assert(back.v[0].value == 3015 && back.v[0].max == 2900);
	ck_assert_int_eq(back.v[1].verdict, ROW_SKIP);
	ck_assert_ptr_null(back.v[1].measured);
	ck_assert(isnan(back.v[1].value));
	ck_assert_str_eq(back.v[1].hint, "no reading");
	yml_doc_release(&doc);
	ck_assert_ok(yml_load_json(&doc, "t", bad, strlen(bad), &err), &err);
	ck_assert_int_eq(rows_from_json(&back, "t", yml_map_get(doc.root,
	    "rows"), &err), -1);
	ck_assert_msg(strstr(err.msg, "row 1 lacks a verdict or a check"),
	    "%s", err.msg);
	prov_err_release(&err);
	yml_doc_release(&doc);
	rows_release(&rows);
	rows_release(&back);
	buf_release(&b);
}
END_TEST

static Suite *
row_suite(void)
{
	Suite	*s = suite_create("row");
	TCase	*tc = tcase_create("rows");

	tcase_add_test(tc, test_rows_add);
	tcase_add_test(tc, test_row_verdict_names);
	suite_add_tcase(s, tc);
	tc = tcase_create("output");
	tcase_add_test(tc, test_rows_json);
	tcase_add_test(tc, test_rows_from_json);
	tcase_add_test(tc, test_rows_junit);
	suite_add_tcase(s, tc);
	return s;
}

TEST_MAIN(row_suite)

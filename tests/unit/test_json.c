/*
 * test_json.c: unit tests for lib/json.c: string escaping (control
 * bytes, invalid UTF-8), read back through libyaml, and the writer's
 * layout and misuse.
 */
#include "compat.h"

#include <check.h>
#include <math.h>
#include <signal.h>

#include "buf.h"
#include "err.h"
#include "json.h"
#include "test.h"
#include "yml.h"

/* JSON strings. */

static const struct {
	const char	*in;
	const char	*want;		/* the literal; NULL: any */
	const char	*back;		/* what reads back, NULL: in */
} json_cases[] = {
	{ "", "\"\"", NULL },
	{ "plain", "\"plain\"", NULL },
	{ "say \"hi\"", "\"say \\\"hi\\\"\"", NULL },
	{ "back\\slash", "\"back\\\\slash\"", NULL },
	{ "a\nb\rc\td", "\"a\\nb\\rc\\td\"", NULL },
	{ "\x01\x1f", "\"\\u0001\\u001f\"", NULL },
	{ "del\x7f", "\"del\\u007f\"", NULL },
	{ "/slash/", "\"/slash/\"", NULL },
	{ "caf\xc3\xa9", "\"caf\xc3\xa9\"", NULL },
	{ "\xe6\x97\xa5\xe6\x9c\xac", "\"\xe6\x97\xa5\xe6\x9c\xac\"", NULL },
	{ "rocket \xf0\x9f\x9a\x80", "\"rocket \xf0\x9f\x9a\x80\"", NULL },
	/* NEL, LS, PS: line breaks to YAML, so escaped. */
	{ "nel\xc2\x85", "\"nel\\u0085\"", NULL },
	{ "ls\xe2\x80\xa8ps\xe2\x80\xa9", "\"ls\\u2028ps\\u2029\"", NULL },
	{ "\xef\xbb\xbf" "bom", "\"\\ufeffbom\"", NULL },
	/* Not UTF-8: replaced, so the text always reads back. */
	{ "bad\xff", "\"bad\xef\xbf\xbd\"", "bad\xef\xbf\xbd" },
	{ "cut\xc3", "\"cut\xef\xbf\xbd\"", "cut\xef\xbf\xbd" },
	{ "over\xc0\xaf", NULL, NULL },
	{ "surrogate\xed\xa0\x80", NULL, NULL },
	{ "{\"k\": [1, 2]}: - # &a *a !t |>%@`", NULL, NULL },
	{ "null", "\"null\"", NULL },
	{ "true", "\"true\"", NULL },
	{ "0x1F", "\"0x1F\"", NULL },
	{ " lead and trail ", "\" lead and trail \"", NULL },
};

START_TEST(test_json_string)
{
	const char		*in = json_cases[_i].in;
	const char		*back = json_cases[_i].back;
	struct buf		 b = BUF_INIT;
	struct yml_doc		 doc;
	struct prov_errs	 errs = PROV_ERRS_INIT;
	const unsigned char	*p;

	json_add_string(&b, in);
	if (json_cases[_i].want != NULL)
		ck_assert_str_eq(b.buf, json_cases[_i].want);
	/* Only printable ASCII and well-formed UTF-8 come out. */
	for (p = (const unsigned char *)b.buf; *p != '\0'; p++)
		ck_assert_msg(*p >= 0x20 && *p != 0x7f, "raw byte 0x%02x in %s",
		    *p, b.buf);

	yml_doc_init(&doc);
	ck_assert_int_eq(yml_load(&doc, "json", b.buf, b.len, &errs), 0);
	if (errs.n > 0)
		ck_assert_ok(-1, &errs.v[0]);
	ck_assert_ptr_nonnull(doc.root);
	ck_assert_int_eq(doc.root->kind, YML_SCALAR);
	ck_assert_int_eq(doc.root->plain, 0);
	if (back == NULL && json_cases[_i].want == NULL &&
	    (strstr(in, "\xc0") != NULL || strstr(in, "\xed") != NULL))
		/* Ill-formed input: its bad bytes became U+FFFD. */
		ck_assert_ptr_nonnull(strstr(doc.root->u.s, "\xef\xbf\xbd"));
	else
		ck_assert_str_eq(doc.root->u.s, back != NULL ? back : in);
	yml_doc_release(&doc);
	prov_errs_release(&errs);
	buf_release(&b);
}
END_TEST

/* Every single byte and every code point class, through libyaml. */
START_TEST(test_json_string_all_bytes)
{
	struct buf		 in = BUF_INIT, b = BUF_INIT;
	struct yml_doc		 doc;
	struct prov_errs	 errs = PROV_ERRS_INIT;
	int			 c;

	for (c = 1; c < 0x80; c++)
		buf_addch(&in, c);
	buf_adds(&in, "\xc2\x80\xc2\x9f\xc2\xa0\xe2\x80\x8b\xef\xbf\xbe"
	    "\xef\xbf\xbf\xf4\x8f\xbf\xbf");
	json_add_string(&b, in.buf);
	yml_doc_init(&doc);
	ck_assert_int_eq(yml_load(&doc, "json", b.buf, b.len, &errs), 0);
	ck_assert_uint_eq(errs.n, 0);
	ck_assert_int_eq(doc.root->kind, YML_SCALAR);
	ck_assert_uint_eq(doc.root->n, in.len);
	ck_assert_int_eq(memcmp(doc.root->u.s, in.buf, in.len), 0);
	yml_doc_release(&doc);
	prov_errs_release(&errs);
	buf_release(&in);
	buf_release(&b);
}
END_TEST

/* Any bytes at all make a literal libyaml reads (seeded: repeatable). */
START_TEST(test_json_string_random)
{
	unsigned	seed = 14;
	int		k;

	for (k = 0; k < 2000; k++) {
		struct buf		 in = BUF_INIT, b = BUF_INIT;
		struct yml_doc		 doc;
		struct prov_errs	 errs = PROV_ERRS_INIT;
		int			 n = rand_r(&seed) % 24;

		while (n-- > 0) {
			int	c = rand_r(&seed) % 255 + 1;

			/* half the time a byte of a real UTF-8 sequence */
			if (rand_r(&seed) % 2)
				c = "a\xc3\xa9\xe2\x80\xa8\xf0\x9f\x9a\x80\n\x7f"[c % 12];
			buf_addch(&in, c);
		}
		json_add_string(&b, in.buf);
		yml_doc_init(&doc);
		ck_assert_msg(yml_load(&doc, "json", b.buf, b.len, &errs) == 0 &&
		    errs.n == 0 && doc.root != NULL &&
		    doc.root->kind == YML_SCALAR, "%s", b.buf);
		yml_doc_release(&doc);
		prov_errs_release(&errs);
		buf_release(&in);
		buf_release(&b);
	}
}
END_TEST

/* The writer. */

START_TEST(test_json_writer_layout)
{
	struct buf		b = BUF_INIT;
	struct json_writer	jw;

	json_init(&jw, &b);
	json_object_begin(&jw, NULL, 0);
	json_str(&jw, "plan", "p.yaml");
	json_array_begin(&jw, "rows", JSON_LINES);
	json_object_begin(&jw, NULL, 0);
	json_str(&jw, "node", "gpu01");
	json_str(&jw, "hint", NULL);
	json_int(&jw, "line", -3);
	json_end(&jw);
	json_object_begin(&jw, NULL, 0);
	json_num(&jw, "value", 34585.6, -1);
	json_num(&jw, "third", 1.0 / 3, -1);
	json_num(&jw, "max", NAN, -1);
	json_num(&jw, "elapsed", 1.23456, 3);
	json_end(&jw);
	json_end(&jw);
	json_array_begin(&jw, "empty", JSON_LINES);
	json_end(&jw);
	json_object_begin(&jw, "summary", 0);
	json_bool(&jw, "ok", 1);
	json_bool(&jw, "failed", 0);
	json_null(&jw, "why");
	json_end(&jw);
	json_end(&jw);
	json_finish(&jw);
	ck_assert_str_eq(b.buf, "{\"plan\": \"p.yaml\", \"rows\": [\n"
	    "  {\"node\": \"gpu01\", \"hint\": null, \"line\": -3},\n"
	    "  {\"value\": 34585.6, \"third\": 0.3333333333333333, "
	    "\"max\": null, \"elapsed\": 1.235}\n"
	    "], \"empty\": [], \"summary\": {\"ok\": true, \"failed\": false, "
	    "\"why\": null}}\n");
	buf_release(&b);
}
END_TEST

/* Nested JSON_LINES containers indent a level each. */
START_TEST(test_json_writer_nested_lines)
{
	struct buf		b = BUF_INIT;
	struct json_writer	jw;

	json_init(&jw, &b);
	json_object_begin(&jw, NULL, JSON_LINES);
	json_int(&jw, "version", 1);
	json_array_begin(&jw, "pci", JSON_LINES);
	json_object_begin(&jw, NULL, 0);
	json_array_begin(&jw, "ids", 0);
	json_str(&jw, NULL, "a");
	json_int(&jw, NULL, 2);
	json_end(&jw);
	json_end(&jw);
	json_end(&jw);
	json_end(&jw);
	json_finish(&jw);
	ck_assert_str_eq(b.buf, "{\n  \"version\": 1,\n  \"pci\": [\n"
	    "    {\"ids\": [\"a\", 2]}\n  ]\n}\n");
	buf_release(&b);
}
END_TEST

/* What the writer writes, libyaml reads back as the same tree. */
START_TEST(test_json_writer_reads_back)
{
	struct buf		 b = BUF_INIT;
	struct json_writer	 jw;
	struct yml_doc		 doc;
	struct prov_err		 err = PROV_ERR_INIT;
	const struct yml_node	*rows;

	json_init(&jw, &b);
	json_object_begin(&jw, NULL, JSON_LINES);
	json_str(&jw, "k\"ey\n", "v\xff\x01");
	json_array_begin(&jw, "rows", JSON_LINES);
	json_int(&jw, NULL, 1);
	json_num(&jw, NULL, 2.5, -1);
	json_null(&jw, NULL);
	json_end(&jw);
	json_end(&jw);
	json_finish(&jw);
	ck_assert_ok(yml_load_json(&doc, "t", b.buf, b.len, &err), &err);
	ck_assert_str_eq(yml_map_str(doc.root, "k\"ey\n"),
	    "v\xef\xbf\xbd\x01");
	rows = yml_map_get(doc.root, "rows");
	ck_assert_ptr_nonnull(rows);
	ck_assert_int_eq(rows->kind, YML_SEQ);
	ck_assert_uint_eq(rows->n, 3);
	yml_doc_release(&doc);
	buf_release(&b);
}
END_TEST

/* Misuse is a bug: it aborts rather than write what is not JSON. */
static void
json_misuse(int how)
{
	struct buf		b = BUF_INIT;
	struct json_writer	jw;

	json_init(&jw, &b);
	switch (how) {
	case 0:		/* a value without a key in an object */
		json_object_begin(&jw, NULL, 0);
		json_str(&jw, NULL, "x");
		break;
	case 1:		/* a key in an array */
		json_array_begin(&jw, NULL, 0);
		json_str(&jw, "k", "x");
		break;
	case 2:		/* an end too many */
		json_end(&jw);
		break;
	case 3:		/* finished with a container open */
		json_array_begin(&jw, NULL, 0);
		json_finish(&jw);
		break;
	default:	/* two documents */
		json_int(&jw, NULL, 1);
		json_int(&jw, NULL, 2);
		break;
	}
}

START_TEST(test_json_writer_misuse)
{
	json_misuse(_i);
}
END_TEST

static Suite *
json_suite(void)
{
	Suite	*s = suite_create("json");
	TCase	*tc = tcase_create("string");

	tcase_add_loop_test(tc, test_json_string, 0, (int)ARRAY_SIZE(json_cases));
	tcase_add_test(tc, test_json_string_all_bytes);
	tcase_add_test(tc, test_json_string_random);
	suite_add_tcase(s, tc);

	tc = tcase_create("writer");
	tcase_add_test(tc, test_json_writer_layout);
	tcase_add_test(tc, test_json_writer_nested_lines);
	tcase_add_test(tc, test_json_writer_reads_back);
	tcase_add_loop_test_raise_signal(tc, test_json_writer_misuse, SIGABRT,
	    0, 5);
	suite_add_tcase(s, tc);
	return s;
}

TEST_MAIN(json_suite)

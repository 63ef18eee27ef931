#include "test.h"

#include "buf.h"
#include "err.h"

/* What prov_errs_print writes (caller frees). */
static char *
test_err_print_all(const struct prov_errs *l)
{
	char	*s = NULL;
	size_t	 len = 0;
	FILE	*fp = open_memstream(&s, &len);

	ck_assert_ptr_nonnull(fp);
	prov_errs_print(l, fp);
	ck_assert_int_eq(fclose(fp), 0);
	return s;
}

/* Single errors. */

START_TEST(test_err_set)
{
	struct prov_err	 e = PROV_ERR_INIT;
	char		*s;

	ck_assert_int_eq(prov_err_set(&e, PROV_E_SSH, "cannot connect to "
	    "'%s' port %d", "gpu01", 22), -1);
	ck_assert_int_eq(e.code, PROV_E_SSH);
	ck_assert_str_eq(e.msg, "cannot connect to 'gpu01' port 22");
	ck_assert_ptr_null(e.hint);
	ck_assert_ptr_null(e.loc.file);
	ck_assert_uint_eq(e.loc.line, 0);
	s = prov_err_format(&e);
	ck_assert_str_eq(s, "cannot connect to 'gpu01' port 22");
	free(s);

	/* Setting again replaces everything (and frees: ASan checks). */
	ck_assert_int_eq(prov_err_set(&e, PROV_E_TIMEOUT, "timed out"), -1);
	ck_assert_int_eq(e.code, PROV_E_TIMEOUT);
	ck_assert_str_eq(e.msg, "timed out");

	/* A format with '%' in the argument is not re-expanded. */
	prov_err_set(&e, PROV_E_PARSE, "bad value '%s'", "100%s%n");
	ck_assert_str_eq(e.msg, "bad value '100%s%n'");

	prov_err_release(&e);
	ck_assert_ptr_null(e.msg);
	ck_assert_int_eq(e.code, PROV_E_NONE);
	/* Releasing twice, and a NULL err, are harmless. */
	prov_err_release(&e);
	prov_err_release(NULL);
	ck_assert_int_eq(prov_err_set(NULL, PROV_E_SYS, "x"), -1);
	ck_assert_int_eq(prov_err_setloc(NULL, PROV_E_SYS, NULL, "h", "x"), -1);
	ck_assert_int_eq(prov_err_sys(NULL, "x"), -1);
	prov_err_prefix(NULL, "x: ");
}
END_TEST

START_TEST(test_err_setloc)
{
	struct prov_err	 e = PROV_ERR_INIT;
	struct prov_loc	 loc = { "plan.yaml", 12, 7 };
	char		*s;

	ck_assert_int_eq(prov_err_setloc(&e, PROV_E_PLAN, &loc,
	    "did you mean 'gpus'?", "unknown key '%s'", "gpu"), -1);
	ck_assert_int_eq(e.code, PROV_E_PLAN);
	ck_assert_str_eq(e.loc.file, "plan.yaml");
	ck_assert_uint_eq(e.loc.line, 12);
	ck_assert_uint_eq(e.loc.col, 7);
	ck_assert_str_eq(e.hint, "did you mean 'gpus'?");
	s = prov_err_format(&e);
	ck_assert_str_eq(s, "plan.yaml:12:7: unknown key 'gpu' "
	    "(did you mean 'gpus'?)");
	free(s);

	/* The hint is copied: the caller's may go away. */
	{
		char	*hint = xstrdup("temporary hint");

		prov_err_setloc(&e, PROV_E_PLAN, &loc, hint, "m");
		free(hint);
		ck_assert_str_eq(e.hint, "temporary hint");
	}
	/* A NULL loc leaves no location; a later set forgets the old one. */
	prov_err_setloc(&e, PROV_E_PLAN, NULL, NULL, "no place");
	ck_assert_ptr_null(e.loc.file);
	ck_assert_ptr_null(e.hint);
	s = prov_err_format(&e);
	ck_assert_str_eq(s, "no place");
	free(s);
	prov_err_release(&e);
}
END_TEST

static const struct {
	const char	*file;
	unsigned	 line, col;
	const char	*msg;
	const char	*hint;
	const char	*want;
} format_cases[] = {
	{ "plan.yaml", 3, 1, "bad", "fix it", "plan.yaml:3:1: bad (fix it)" },
	{ "plan.yaml", 3, 1, "bad", NULL, "plan.yaml:3:1: bad" },
	{ "plan.yaml", 0, 0, "bad", NULL, "plan.yaml: bad" },
	{ "plan.yaml", 0, 9, "bad", "h", "plan.yaml: bad (h)" },
	{ NULL, 5, 5, "bad", "h", "bad (h)" },
	{ NULL, 0, 0, "bad", NULL, "bad" },
	{ NULL, 0, 0, NULL, NULL, "unknown error" },
	{ "dir/with space.yaml", 4294967295u, 1, "big", NULL,
	    "dir/with space.yaml:4294967295:1: big" },
};

START_TEST(test_err_format)
{
	struct prov_err	 e = PROV_ERR_INIT;
	char		*s, *p = NULL;
	size_t		 len = 0;
	FILE		*fp;

	e.loc.file = format_cases[_i].file;
	e.loc.line = format_cases[_i].line;
	e.loc.col = format_cases[_i].col;
	e.msg = format_cases[_i].msg ? xstrdup(format_cases[_i].msg) : NULL;
	e.hint = format_cases[_i].hint ? xstrdup(format_cases[_i].hint) : NULL;
	s = prov_err_format(&e);
	ck_assert_str_eq(s, format_cases[_i].want);

	/* print is format and a newline. */
	fp = open_memstream(&p, &len);
	ck_assert_ptr_nonnull(fp);
	prov_err_print(&e, fp);
	ck_assert_int_eq(fclose(fp), 0);
	ck_assert_uint_eq(len, strlen(s) + 1);
	ck_assert_int_eq(strncmp(p, s, strlen(s)), 0);
	ck_assert_int_eq(p[len - 1], '\n');
	free(p);
	free(s);
	prov_err_release(&e);
}
END_TEST

START_TEST(test_err_sys)
{
	struct prov_err	 e = PROV_ERR_INIT;

	errno = ENOENT;
	ck_assert_int_eq(prov_err_sys(&e, "open '%s'", "x"), -1);
	ck_assert_int_eq(e.code, PROV_E_SYS);
	ck_assert_str_eq(e.msg, "open 'x': No such file or directory");
	/* errno survives, for callers that branch on it after. */
	ck_assert_int_eq(errno, ENOENT);

	errno = EACCES;
	prov_err_sys(&e, "cannot write '%s'", "/etc/x");
	ck_assert_str_eq(e.msg, "cannot write '/etc/x': Permission denied");
	ck_assert_int_eq(errno, EACCES);
	prov_err_release(&e);
}
END_TEST

START_TEST(test_err_prefix)
{
	struct prov_err	 e = PROV_ERR_INIT;
	struct prov_loc	 loc = { "p.yaml", 2, 3 };
	char		*s;

	prov_err_setloc(&e, PROV_E_SSH, &loc, "check the key", "auth refused");
	prov_err_prefix(&e, "node '%s': ", "gpu01");
	ck_assert_str_eq(e.msg, "node 'gpu01': auth refused");
	prov_err_prefix(&e, "%s", "apply: ");
	ck_assert_str_eq(e.msg, "apply: node 'gpu01': auth refused");
	/* Location, code and hint are kept. */
	ck_assert_int_eq(e.code, PROV_E_SSH);
	s = prov_err_format(&e);
	ck_assert_str_eq(s, "p.yaml:2:3: apply: node 'gpu01': auth refused "
	    "(check the key)");
	free(s);
	prov_err_release(&e);

	/* An empty err gets a message to prefix. */
	prov_err_prefix(&e, "step '%s': ", "base");
	ck_assert_str_eq(e.msg, "step 'base': unknown error");
	prov_err_release(&e);
}
END_TEST

START_TEST(test_err_move)
{
	struct prov_err	dst = PROV_ERR_INIT, src = PROV_ERR_INIT;
	struct prov_loc	loc = { "f", 1, 2 };
	char		*msg;

	prov_err_set(&dst, PROV_E_SYS, "old, freed by the move");
	prov_err_setloc(&src, PROV_E_PLAN, &loc, "hint", "moved");
	msg = src.msg;
	prov_err_move(&dst, &src);
	/* The strings change hands, they are not copied. */
	ck_assert_ptr_eq(dst.msg, msg);
	ck_assert_str_eq(dst.msg, "moved");
	ck_assert_str_eq(dst.hint, "hint");
	ck_assert_int_eq(dst.code, PROV_E_PLAN);
	ck_assert_uint_eq(dst.loc.line, 1);
	ck_assert_ptr_null(src.msg);
	ck_assert_ptr_null(src.hint);
	ck_assert_int_eq(src.code, PROV_E_NONE);
	ck_assert_ptr_null(src.loc.file);

	/* Moving an empty err empties dst. */
	prov_err_move(&dst, &src);
	ck_assert_ptr_null(dst.msg);
	ck_assert_int_eq(dst.code, PROV_E_NONE);
}
END_TEST

/* Lists. */

START_TEST(test_err_errs_add_push)
{
	struct prov_errs l = PROV_ERRS_INIT;
	struct prov_err	 e = PROV_ERR_INIT;
	struct prov_loc	 loc = { "a.yaml", 4, 2 };
	char		*s, *msg;

	ck_assert_int_eq(prov_errs_add(&l, PROV_E_PLAN, &loc, "h1",
	    "first %d", 1), -1);
	ck_assert_int_eq(prov_errs_add(&l, PROV_E_CATALOG, NULL, NULL,
	    "second"), -1);
	prov_err_set(&e, PROV_E_SSH, "third");
	msg = e.msg;
	prov_errs_push(&l, &e);
	/* push moves: e is empty, the list holds the same string. */
	ck_assert_ptr_null(e.msg);
	ck_assert_int_eq(e.code, PROV_E_NONE);
	ck_assert_ptr_eq(l.v[2].msg, msg);

	ck_assert_uint_eq(l.n, 3);
	ck_assert_int_eq(l.v[0].code, PROV_E_PLAN);
	ck_assert_int_eq(l.v[1].code, PROV_E_CATALOG);
	ck_assert_int_eq(l.v[2].code, PROV_E_SSH);
	s = test_err_print_all(&l);
	ck_assert_str_eq(s, "a.yaml:4:2: first 1 (h1)\nsecond\nthird\n");
	free(s);

	prov_errs_release(&l);
	ck_assert_uint_eq(l.n, 0);
	ck_assert_ptr_null(l.v);
	/* A released list is reusable. */
	prov_errs_add(&l, PROV_E_PLAN, NULL, NULL, "again");
	ck_assert_uint_eq(l.n, 1);
	prov_errs_release(&l);
	prov_errs_release(&l);
}
END_TEST

START_TEST(test_err_errs_max)
{
	struct prov_errs l = PROV_ERRS_INIT;
	struct prov_err	 e = PROV_ERR_INIT;
	size_t		 i;

	l.max = 3;
	for (i = 0; i < 5; i++)
		prov_errs_add(&l, PROV_E_PLAN, NULL, NULL, "e%zu", i);
	ck_assert_uint_eq(l.n, 3);
	ck_assert_str_eq(l.v[2].msg, "e2");
	/* A push past the cap still takes (and frees) the error. */
	prov_err_set(&e, PROV_E_PLAN, "dropped");
	prov_errs_push(&l, &e);
	ck_assert_uint_eq(l.n, 3);
	ck_assert_ptr_null(e.msg);
	prov_errs_release(&l);

	/* The default cap is 1000. */
	l = (struct prov_errs)PROV_ERRS_INIT;
	for (i = 0; i < 1234; i++)
		prov_errs_add(&l, PROV_E_PLAN, NULL, NULL, "e%zu", i);
	ck_assert_uint_eq(l.n, 1000);
	ck_assert_str_eq(l.v[999].msg, "e999");
	prov_errs_release(&l);
}
END_TEST

START_TEST(test_err_errs_sort)
{
	static const struct {
		const char	*file;
		unsigned	 line, col;
		const char	*msg;
	} in[] = {
		{ "b.yaml", 1, 1, "b1" },
		{ "a.yaml", 10, 1, "a10" },
		{ "a.yaml", 2, 5, "a2:5 first" },
		{ NULL, 0, 0, "no place first" },
		{ "a.yaml", 2, 5, "a2:5 second" },
		{ "a.yaml", 2, 1, "a2:1" },
		{ "a.yaml", 9, 30, "a9" },
		{ NULL, 0, 0, "no place second" },
		{ "a.yaml", 2, 5, "a2:5 third" },
		{ "b.yaml", 0, 0, "b whole file" },
	};
	static const char *const want[] = {
		"no place first", "no place second", "a2:1", "a2:5 first",
		"a2:5 second", "a2:5 third", "a9", "a10", "b whole file", "b1",
	};
	struct prov_errs l = PROV_ERRS_INIT;
	size_t		 i;

	for (i = 0; i < ARRAY_SIZE(in); i++) {
		struct prov_loc	loc = { in[i].file, in[i].line,
		    in[i].col };

		prov_errs_add(&l, PROV_E_PLAN, &loc, NULL, "%s", in[i].msg);
	}
	prov_errs_sort(&l);
	ck_assert_uint_eq(l.n, ARRAY_SIZE(want));
	for (i = 0; i < ARRAY_SIZE(want); i++)
		ck_assert_str_eq(l.v[i].msg, want[i]);
	/* Sorting a sorted list changes nothing (stable). */
	prov_errs_sort(&l);
	for (i = 0; i < ARRAY_SIZE(want); i++)
		ck_assert_str_eq(l.v[i].msg, want[i]);
	prov_errs_release(&l);

	/* Empty and one-element lists. */
	prov_errs_sort(&l);
	prov_errs_add(&l, PROV_E_PLAN, NULL, NULL, "one");
	prov_errs_sort(&l);
	ck_assert_str_eq(l.v[0].msg, "one");
	prov_errs_release(&l);
}
END_TEST

/* Many equal keys in reverse insertion: stability at scale. */
START_TEST(test_err_errs_sort_stable_many)
{
	struct prov_errs l = PROV_ERRS_INIT;
	size_t		 i;
	unsigned	 line;

	for (i = 0; i < 900; i++) {
		struct prov_loc	loc = { "f", (unsigned)(3 - i % 3), 1 };

		prov_errs_add(&l, PROV_E_PLAN, &loc, NULL, "%zu", i);
	}
	prov_errs_sort(&l);
	for (i = 0; i < 900; i++) {
		line = (unsigned)(i / 300 + 1);
		ck_assert_uint_eq(l.v[i].loc.line, line);
		if (i % 300 > 0) {
			long	a = strtol(l.v[i - 1].msg, NULL, 10);
			long	b = strtol(l.v[i].msg, NULL, 10);

			ck_assert_int_lt(a, b);
		}
	}
	prov_errs_release(&l);
}
END_TEST

static Suite *
err_suite(void)
{
	Suite	*s = suite_create("err");
	TCase	*tc;

	tc = tcase_create("err");
	tcase_add_test(tc, test_err_set);
	tcase_add_test(tc, test_err_setloc);
	tcase_add_loop_test(tc, test_err_format, 0,
	    (int)ARRAY_SIZE(format_cases));
	tcase_add_test(tc, test_err_sys);
	tcase_add_test(tc, test_err_prefix);
	tcase_add_test(tc, test_err_move);
	suite_add_tcase(s, tc);

	tc = tcase_create("errs");
	tcase_add_test(tc, test_err_errs_add_push);
	tcase_add_test(tc, test_err_errs_max);
	tcase_add_test(tc, test_err_errs_sort);
	tcase_add_test(tc, test_err_errs_sort_stable_many);
	suite_add_tcase(s, tc);
	return s;
}

TEST_MAIN(err_suite)

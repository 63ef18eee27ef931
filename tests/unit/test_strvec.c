#include "test.h"

#include "buf.h"
#include "strvec.h"

/* The vector as "[a|b|c]" (caller frees); checks the NULL terminator. */
static char *
test_strvec_show(const struct strvec *sv)
{
	struct buf	b = BUF_INIT;
	size_t		i;

	ck_assert_ptr_nonnull(sv->v);
	ck_assert_ptr_null(sv->v[sv->n]);
	buf_addch(&b, '[');
	for (i = 0; i < sv->n; i++) {
		ck_assert_ptr_nonnull(sv->v[i]);
		buf_addf(&b, "%s%s", i ? "|" : "", sv->v[i]);
	}
	buf_addch(&b, ']');
	return buf_detach(&b, NULL);
}

START_TEST(test_strvec_init)
{
	struct strvec	sv = STRVEC_INIT;

	/* Empty but already NULL-terminated: fine for execvp and loops. */
	ck_assert_uint_eq(sv.n, 0);
	ck_assert_ptr_nonnull(sv.v);
	ck_assert_ptr_null(sv.v[0]);
	ck_assert_int_eq(strvec_find(&sv, "x"), -1);
	strvec_clear(&sv);
	ck_assert_ptr_null(sv.v[0]);
	strvec_clear(&sv);
}
END_TEST

START_TEST(test_strvec_push)
{
	struct strvec	 sv = STRVEC_INIT;
	char		 buf[] = "mutable";
	char		*s, *own = xstrdup("owned");

	strvec_push(&sv, "ssh");
	strvec_push(&sv, buf);
	/* push copies: changing the source does not change the vector. */
	buf[0] = 'M';
	strvec_pushf(&sv, "-p%d", 2222);
	strvec_pushf(&sv, "%s@%s", "root", "127.0.10.1");
	strvec_push_nodup(&sv, own);
	ck_assert_ptr_eq(sv.v[4], own);
	strvec_push(&sv, "");
	s = test_strvec_show(&sv);
	ck_assert_str_eq(s, "[ssh|mutable|-p2222|root@127.0.10.1|owned|]");
	free(s);
	ck_assert_int_eq(strvec_find(&sv, "ssh"), 0);
	ck_assert_int_eq(strvec_find(&sv, "owned"), 4);
	ck_assert_int_eq(strvec_find(&sv, ""), 5);
	ck_assert_int_eq(strvec_find(&sv, "Mutable"), -1);
	ck_assert_int_eq(strvec_find(&sv, "-p"), -1);
	strvec_clear(&sv);
	ck_assert_uint_eq(sv.n, 0);
	ck_assert_ptr_null(sv.v[0]);
	/* Reusable after clear. */
	strvec_push(&sv, "again");
	s = test_strvec_show(&sv);
	ck_assert_str_eq(s, "[again]");
	free(s);
	strvec_clear(&sv);
}
END_TEST

/* A zeroed strvec (calloc'd struct member) works like STRVEC_INIT. */
START_TEST(test_strvec_zeroed)
{
	struct strvec	sv;
	char		*s;

	memset(&sv, 0, sizeof sv);
	strvec_push(&sv, "a");
	s = test_strvec_show(&sv);
	ck_assert_str_eq(s, "[a]");
	free(s);
	strvec_clear(&sv);
	memset(&sv, 0, sizeof sv);
	strvec_clear(&sv);
	ck_assert_ptr_nonnull(sv.v);
}
END_TEST

START_TEST(test_strvec_many)
{
	struct strvec	sv = STRVEC_INIT;
	size_t		i;
	char		want[32];

	for (i = 0; i < 20000; i++) {
		strvec_pushf(&sv, "n%zu", i);
		ck_assert_ptr_null(sv.v[sv.n]);
	}
	ck_assert_uint_eq(sv.n, 20000);
	ck_assert_uint_ge(sv.alloc, sv.n + 1);
	for (i = 0; i < 20000; i++) {
		snprintf(want, sizeof want, "n%zu", i);
		ck_assert_str_eq(sv.v[i], want);
	}
	ck_assert_int_eq(strvec_find(&sv, "n19999"), 19999);
	strvec_clear(&sv);
}
END_TEST

static const struct {
	const char	*in;
	int		 sep;
	int		 skip_empty;
	const char	*want;
} split_cases[] = {
	{ "a,b,c", ',', 0, "[a|b|c]" },
	{ "a,b,c", ',', 1, "[a|b|c]" },
	{ "a,,b", ',', 0, "[a||b]" },
	{ "a,,b", ',', 1, "[a|b]" },
	{ ",a,", ',', 0, "[|a|]" },
	{ ",a,", ',', 1, "[a]" },
	{ "", ',', 0, "[]" },
	{ "", ',', 1, "[]" },
	{ ",", ',', 0, "[|]" },
	{ ",,,", ',', 1, "[]" },
	{ "abc", ',', 0, "[abc]" },
	{ "line1\nline2\n", '\n', 1, "[line1|line2]" },
	{ "line1\nline2\n", '\n', 0, "[line1|line2|]" },
	{ "a b  c", ' ', 1, "[a|b|c]" },
	{ "a:b:c", ',', 0, "[a:b:c]" },
};

START_TEST(test_strvec_split_table)
{
	struct strvec	 sv = STRVEC_INIT;
	char		*s;

	strvec_split(&sv, split_cases[_i].in, split_cases[_i].sep,
	    split_cases[_i].skip_empty);
	s = test_strvec_show(&sv);
	/* "" kept as one empty field shows as "[]" too: count it. */
	if (strcmp(split_cases[_i].in, "") == 0)
		ck_assert_uint_eq(sv.n, split_cases[_i].skip_empty ? 0 : 1);
	ck_assert_msg(strcmp(s, split_cases[_i].want) == 0,
	    "split('%s', '%c', %d) = %s, want %s", split_cases[_i].in,
	    split_cases[_i].sep, split_cases[_i].skip_empty, s,
	    split_cases[_i].want);
	free(s);
	strvec_clear(&sv);
}
END_TEST

/* split appends to what is there. */
START_TEST(test_strvec_split_appends)
{
	struct strvec	 sv = STRVEC_INIT;
	char		*s;

	strvec_push(&sv, "first");
	strvec_split(&sv, "x y", ' ', 1);
	s = test_strvec_show(&sv);
	ck_assert_str_eq(s, "[first|x|y]");
	free(s);
	strvec_clear(&sv);
}
END_TEST

static Suite *
strvec_suite(void)
{
	Suite	*s = suite_create("strvec");
	TCase	*tc;

	tc = tcase_create("push");
	tcase_add_test(tc, test_strvec_init);
	tcase_add_test(tc, test_strvec_push);
	tcase_add_test(tc, test_strvec_zeroed);
	tcase_add_test(tc, test_strvec_many);
	suite_add_tcase(s, tc);

	tc = tcase_create("split");
	tcase_add_loop_test(tc, test_strvec_split_table, 0,
	    (int)ARRAY_SIZE(split_cases));
	tcase_add_test(tc, test_strvec_split_appends);
	suite_add_tcase(s, tc);
	return s;
}

TEST_MAIN(strvec_suite)

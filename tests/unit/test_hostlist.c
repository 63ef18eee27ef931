#include "test.h"

#include <time.h>

#include "buf.h"
#include "err.h"
#include "hostlist.h"
#include "strvec.h"

/* Names joined by single spaces (caller frees). */
static char *
test_hostlist_join(const struct strvec *sv, size_t from)
{
	struct buf	b = BUF_INIT;
	size_t		i;

	for (i = from; i < sv->n; i++) {
		if (i > from)
			buf_addch(&b, ' ');
		buf_adds(&b, sv->v[i]);
	}
	return buf_detach(&b, NULL);
}

static double
test_hostlist_now(void)
{
	struct timespec	ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Expansion. */

static const struct {
	const char	*in;
	const char	*want;		/* names joined by ' ' */
} expand_cases[] = {
	{ "gpu[01-16]", "gpu01 gpu02 gpu03 gpu04 gpu05 gpu06 gpu07 gpu08 "
	    "gpu09 gpu10 gpu11 gpu12 gpu13 gpu14 gpu15 gpu16" },
	{ "gpu[1-16]", "gpu1 gpu2 gpu3 gpu4 gpu5 gpu6 gpu7 gpu8 gpu9 gpu10 "
	    "gpu11 gpu12 gpu13 gpu14 gpu15 gpu16" },
	{ "gpu[08-10]", "gpu08 gpu09 gpu10" },
	{ "gpu[01-04,08,10-12]",
	    "gpu01 gpu02 gpu03 gpu04 gpu08 gpu10 gpu11 gpu12" },
	{ "rack[1-2]-n[01-04]", "rack1-n01 rack1-n02 rack1-n03 rack1-n04 "
	    "rack2-n01 rack2-n02 rack2-n03 rack2-n04" },
	{ "head-01,gpu[01-08],[10-20].example", "head-01 gpu01 gpu02 gpu03 "
	    "gpu04 gpu05 gpu06 gpu07 gpu08 10.example 11.example 12.example "
	    "13.example 14.example 15.example 16.example 17.example "
	    "18.example 19.example 20.example" },
	{ "192.0.2.[11-18]", "192.0.2.11 192.0.2.12 192.0.2.13 192.0.2.14 "
	    "192.0.2.15 192.0.2.16 192.0.2.17 192.0.2.18" },
	{ "node", "node" },
	{ "gpu01", "gpu01" },
	{ "n[0-2]", "n0 n1 n2" },
	{ "n[00-02]", "n00 n01 n02" },
	{ "n[007]", "n007" },
	{ "n[001-10]", "n001 n002 n003 n004 n005 n006 n007 n008 n009 n010" },
	{ "n[98-101]", "n98 n99 n100 n101" },
	{ "n[098-101]", "n098 n099 n100 n101" },
	{ "n[1,01,001]", "n1 n01 n001" },
	{ "n[3,1-2]", "n3 n1 n2" },
	{ "x[1-2]y[3-4]z", "x1y3z x1y4z x2y3z x2y4z" },
	{ "[1-2][1-2]", "11 12 21 22" },
	{ "a[1,2],b", "a1 a2 b" },
	{ "a,a", "a a" },
	{ " a , b[1-2]\t,\nc ", "a b1 b2 c" },
	{ "n[1000000000]", "n1000000000" },
	{ "n[999999999-1000000000]", "n999999999 n1000000000" },
	{ "n[0000000000001]", "n0000000000001" },
};

START_TEST(test_hostlist_expand_table)
{
	struct strvec	 sv = STRVEC_INIT;
	struct prov_err	 err = PROV_ERR_INIT;
	char		*got;

	/* Names are appended after what the vector holds. */
	strvec_push(&sv, "before");
	ck_assert_ok(hostlist_expand(&sv, expand_cases[_i].in, 0, &err), &err);
	ck_assert_str_eq(sv.v[0], "before");
	got = test_hostlist_join(&sv, 1);
	ck_assert_msg(strcmp(got, expand_cases[_i].want) == 0,
	    "'%s' gave '%s', want '%s'", expand_cases[_i].in, got,
	    expand_cases[_i].want);
	free(got);
	strvec_clear(&sv);
}
END_TEST

/* Wide ranges, checked against names built here with snprintf. */
START_TEST(test_hostlist_expand_generated)
{
	struct strvec	 sv = STRVEC_INIT;
	struct prov_err	 err = PROV_ERR_INIT;
	char		 want[64];
	size_t		 k = 0;
	int		 a, b;

	ck_assert_ok(hostlist_expand(&sv, "10.0.[0-1].[1-254]", 0, &err),
	    &err);
	ck_assert_uint_eq(sv.n, 508);
	for (a = 0; a <= 1; a++)
		for (b = 1; b <= 254; b++) {
			snprintf(want, sizeof want, "10.0.%d.%d", a, b);
			ck_assert_str_eq(sv.v[k++], want);
		}
	strvec_clear(&sv);

	/* ClusterShell pads [01-100] to the lower bound: 01..99,100. */
	ck_assert_ok(hostlist_expand(&sv, "gpu[01-100]", 0, &err), &err);
	ck_assert_uint_eq(sv.n, 100);
	for (a = 1; a <= 100; a++) {
		snprintf(want, sizeof want, "gpu%02d", a);
		ck_assert_str_eq(sv.v[a - 1], want);
	}
	ck_assert_str_eq(sv.v[98], "gpu99");
	ck_assert_str_eq(sv.v[99], "gpu100");
	strvec_clear(&sv);
}
END_TEST

/* Errors. */

static const struct {
	const char	*in;
	const char	*msg;
} error_cases[] = {
	{ "gpu[5-1]", "reversed range '5-1' in 'gpu[5-1]'" },
	{ "a,gpu[05-01],b", "reversed range '05-01' in 'gpu[05-01]'" },
	{ "gpu[01-04", "unbalanced '[' in 'gpu[01-04'" },
	{ "gpu[01-04,b", "unbalanced '[' in 'gpu[01-04,b'" },
	{ "gpu01]", "unbalanced ']' in 'gpu01]'" },
	{ "gpu[1]]", "unbalanced ']' in 'gpu[1]]'" },
	{ "]gpu[", "unbalanced ']' in ']gpu['" },
	{ "gpu[[1]]", "nested '[' in 'gpu[[1]]'" },
	{ "gpu[1[2]]", "nested '[' in 'gpu[1[2]]'" },
	{ "gpu[]", "empty range in 'gpu[]'" },
	{ "gpu[1,,2]", "empty range in 'gpu[1,,2]'" },
	{ "gpu[1,]", "empty range in 'gpu[1,]'" },
	{ "gpu[,1]", "empty range in 'gpu[,1]'" },
	{ "gpu[1-]", "incomplete range '1-' in 'gpu[1-]'" },
	{ "gpu[-3]", "incomplete range '-3' in 'gpu[-3]'" },
	{ "gpu[-]", "incomplete range '-' in 'gpu[-]'" },
	{ "gpu[a-3]", "non-digit 'a' in range 'a-3' in 'gpu[a-3]'" },
	{ "gpu[1-x]", "non-digit 'x' in range '1-x' in 'gpu[1-x]'" },
	{ "gpu[1-2-3]", "non-digit '-' in range '1-2-3' in 'gpu[1-2-3]'" },
	{ "gpu[1-10/2]", "non-digit '/' in range '1-10/2' in 'gpu[1-10/2]'" },
	{ "gpu[1, 2]", "non-digit ' ' in range ' 2' in 'gpu[1, 2]'" },
	{ "gpu[0-1000000001]", "number '1000000001' too large in "
	    "'gpu[0-1000000001]' (at most 1000000000)" },
	{ "gpu[99999999999999999999]", "number '99999999999999999999' too "
	    "large in 'gpu[99999999999999999999]' (at most 1000000000)" },
	{ "gpu[1-010]", "ambiguous padding in range '1-010' in 'gpu[1-010]' "
	    "(zero-padded bounds must have the same width)" },
	{ "gpu[01-001]", "ambiguous padding in range '01-001' in "
	    "'gpu[01-001]' (zero-padded bounds must have the same width)" },
	{ "gpu[0-00]", "ambiguous padding in range '0-00' in 'gpu[0-00]' "
	    "(zero-padded bounds must have the same width)" },
	{ "a,,b", "empty element in 'a,,b'" },
	{ "a,", "empty element in 'a,'" },
	{ ",a", "empty element in ',a'" },
	{ "a, ,b", "empty element in 'a, ,b'" },
	{ "", "empty hostlist" },
	{ " \t", "empty hostlist" },
	{ "gpu 01", "invalid character ' ' in 'gpu 01'" },
	{ "gpu\00101", "invalid character '?' in 'gpu\00101'" },
	/* Long patterns are quoted in part. */
	{ "a-very-long-pattern-name-that-goes-on-and-on-and-on-and-on-and-on-"
	    "and-on-and-on[2-1]", "reversed range '2-1' in 'a-very-long-"
	    "pattern-name-that-goes-on-and-on-and-on-and-on-and-on-and-on-"
	    "and-...'" },
};

START_TEST(test_hostlist_errors)
{
	struct strvec		 sv = STRVEC_INIT;
	struct prov_err		 err = PROV_ERR_INIT;
	struct hostlist_iter	*it = (struct hostlist_iter *)&sv;
	size_t			 n = 12345;
	const char		*in = error_cases[_i].in;

	strvec_push(&sv, "before");
	ck_assert_int_eq(hostlist_expand(&sv, in, 0, &err), -1);
	ck_assert_int_eq(err.code, PROV_E_PLAN);
	ck_assert_msg(strcmp(err.msg, error_cases[_i].msg) == 0,
	    "'%s' gave \"%s\", want \"%s\"", in, err.msg, error_cases[_i].msg);
	/* Nothing appended. */
	ck_assert_uint_eq(sv.n, 1);
	prov_err_release(&err);

	ck_assert_int_eq(hostlist_count(&n, in, &err), -1);
	ck_assert_uint_eq(n, 12345);
	ck_assert_str_eq(err.msg, error_cases[_i].msg);
	prov_err_release(&err);

	ck_assert_int_eq(hostlist_iter_init(&it, in, &err), -1);
	ck_assert_ptr_null(it);
	ck_assert_str_eq(err.msg, error_cases[_i].msg);
	prov_err_release(&err);
	strvec_clear(&sv);
}
END_TEST

/* The limit on names. */

START_TEST(test_hostlist_max)
{
	struct strvec	 sv = STRVEC_INIT;
	struct prov_err	 err = PROV_ERR_INIT;
	double		 t0;

	ck_assert_ok(hostlist_expand(&sv, "gpu[01-16]", 16, &err), &err);
	ck_assert_uint_eq(sv.n, 16);
	strvec_clear(&sv);

	ck_assert_int_eq(hostlist_expand(&sv, "gpu[01-16]", 15, &err), -1);
	ck_assert_str_eq(err.msg,
	    "'gpu[01-16]' expands to 16 names, more than the limit of 15");
	ck_assert_uint_eq(sv.n, 0);
	prov_err_release(&err);

	ck_assert_int_eq(hostlist_expand(&sv, "a,b[1-2],c", 3, &err), -1);
	ck_assert_str_eq(err.msg,
	    "'a,b[1-2],c' expands to 4 names, more than the limit of 3");
	prov_err_release(&err);

	/* A hostile range is refused before a single name is made. */
	t0 = test_hostlist_now();
	ck_assert_int_eq(hostlist_expand(&sv, "n[0-999999999]", 100000,
	    &err), -1);
	ck_assert_str_eq(err.msg, "'n[0-999999999]' expands to 1000000000 "
	    "names, more than the limit of 100000");
	ck_assert_uint_eq(sv.n, 0);
	ck_assert_msg(test_hostlist_now() - t0 < 0.05, "took %.3fs",
	    test_hostlist_now() - t0);
	prov_err_release(&err);
}
END_TEST

/* Counting. */

static const struct {
	const char	*in;
	size_t		 n;
} count_cases[] = {
	{ "gpu01", 1 },
	{ "gpu[01-16]", 16 },
	{ "gpu[01-04,08,10-12]", 8 },
	{ "rack[1-2]-n[01-04]", 8 },
	{ "head-01,gpu[01-08],[10-20].example", 20 },
	{ "10.0.[0-1].[1-254]", 508 },
	{ "n[1-1000000]", 1000000 },
	{ "n[0-1000000000]", 1000000001 },
	{ "a[1-3],b[1-3][1-3],c", 13 },
#if SIZE_MAX > 0xffffffffu
	{ "[0-1000000000]x[0-1000000000]", 1000000002000000001ULL },
#endif
};

START_TEST(test_hostlist_count_table)
{
	struct prov_err	err = PROV_ERR_INIT;
	size_t		n = 0;

	ck_assert_ok(hostlist_count(&n, count_cases[_i].in, &err), &err);
	ck_assert_msg(n == count_cases[_i].n, "'%s' counted %zu, want %zu",
	    count_cases[_i].in, n, count_cases[_i].n);
}
END_TEST

START_TEST(test_hostlist_count_instant)
{
	struct prov_err	 err = PROV_ERR_INIT;
	size_t		 n = 0;
	double		 t0 = test_hostlist_now();

	ck_assert_ok(hostlist_count(&n, "node[0000001-1000000]", &err), &err);
	ck_assert_uint_eq(n, 1000000);
	ck_assert_ok(hostlist_count(&n, "n[0-999999999],m[1-1000000000]",
	    &err), &err);
	ck_assert_uint_eq(n, 2000000000);
	ck_assert_msg(test_hostlist_now() - t0 < 0.05, "took %.3fs",
	    test_hostlist_now() - t0);
}
END_TEST

START_TEST(test_hostlist_count_overflow)
{
	struct prov_err	 err = PROV_ERR_INIT;
	size_t		 n = 7;
	struct buf	 b = BUF_INIT;
	int		 i;

#if SIZE_MAX > 0xffffffffu
	/* (10^9)^2 fits in 64 bits, (10^9)^3 does not. */
	for (i = 0; i < 2; i++)
		buf_adds(&b, "[0-999999999]");
	ck_assert_ok(hostlist_count(&n, b.buf, &err), &err);
	ck_assert_uint_eq(n, (size_t)1000000000 * 1000000000);
	buf_adds(&b, "[0-999999999]");
	ck_assert_int_eq(hostlist_count(&n, b.buf, &err), -1);
	ck_assert_str_eq(err.msg, "too many names in '[0-999999999][0-"
	    "999999999][0-999999999]'");
	/* So do a few lists of 10^18. */
	buf_reset(&b);
	for (i = 0; i < 20; i++)
		buf_adds(&b, i > 0 ? ",[0-999999999][0-999999999]" :
		    "[0-999999999][0-999999999]");
	ck_assert_int_eq(hostlist_count(&n, b.buf, &err), -1);
	ck_assert(strncmp(err.msg, "too many names in '", 19) == 0);
#endif
	prov_err_release(&err);
	buf_release(&b);
}
END_TEST

/* The iterator. */

static const char *const iter_cases[] = {
	"gpu[01-16]",
	"rack[1-2]-n[01-04]",
	"head-01,gpu[01-08],[10-20].example",
	"10.0.[0-1].[1-254]",
	"a,b[3,1-2,7-9]c[08-10,1]d,e[1-2][1-2][1-2]",
	"x",
};

START_TEST(test_hostlist_iter_equals_expand)
{
	struct strvec		 sv = STRVEC_INIT;
	struct prov_err		 err = PROV_ERR_INIT;
	struct hostlist_iter	*it = NULL;
	const char		*name;
	size_t			 k = 0;

	ck_assert_ok(hostlist_expand(&sv, iter_cases[_i], 0, &err), &err);
	ck_assert_ok(hostlist_iter_init(&it, iter_cases[_i], &err), &err);
	ck_assert_uint_eq(hostlist_iter_count(it), sv.n);
	while ((name = hostlist_iter_next(it)) != NULL) {
		ck_assert_uint_lt(k, sv.n);
		ck_assert_str_eq(name, sv.v[k]);
		k++;
	}
	ck_assert_uint_eq(k, sv.n);
	ck_assert_ptr_null(hostlist_iter_next(it));
	ck_assert_ptr_null(hostlist_iter_next(it));
	hostlist_iter_free(it);
	hostlist_iter_free(NULL);
	strvec_clear(&sv);
}
END_TEST

/* The iterator keeps its own copy of the list. */
START_TEST(test_hostlist_iter_copies)
{
	struct prov_err		 err = PROV_ERR_INIT;
	struct hostlist_iter	*it = NULL;
	char			*list = xstrdup("gpu[1-2]");

	ck_assert_ok(hostlist_iter_init(&it, list, &err), &err);
	memset(list, 'x', strlen(list));
	free(list);
	ck_assert_str_eq(hostlist_iter_next(it), "gpu1");
	ck_assert_str_eq(hostlist_iter_next(it), "gpu2");
	ck_assert_ptr_null(hostlist_iter_next(it));
	hostlist_iter_free(it);
}
END_TEST

START_TEST(test_hostlist_iter_million)
{
	struct prov_err		 err = PROV_ERR_INIT;
	struct hostlist_iter	*it = NULL;
	const char		*name;
	char			 last[32] = "";
	size_t			 k = 0;

	ck_assert_ok(hostlist_iter_init(&it, "n[000001-1000000]", &err),
	    &err);
	while ((name = hostlist_iter_next(it)) != NULL) {
		if (k == 0)
			ck_assert_str_eq(name, "n000001");
		if (k == 99999)
			ck_assert_str_eq(name, "n100000");
		snprintf(last, sizeof last, "%s", name);
		k++;
	}
	ck_assert_uint_eq(k, 1000000);
	ck_assert_str_eq(last, "n1000000");
	hostlist_iter_free(it);
}
END_TEST

/* Folding. */

static const struct {
	const char	*in;		/* names split at ' ' */
	const char	*want;
} fold_cases[] = {
	{ "gpu01 gpu02 gpu03 gpu05", "gpu[01-03,05]" },
	{ "gpu05 gpu03 gpu01 gpu02", "gpu[01-03,05]" },
	{ "gpu1 gpu2 gpu2 gpu1", "gpu[1-2]" },
	{ "gpu7", "gpu7" },
	{ "x", "x" },
	{ "b a c a", "a,b,c" },
	{ "gpu09 gpu10", "gpu[09-10]" },
	{ "gpu9 gpu10", "gpu[9-10]" },
	{ "gpu99 gpu100 gpu98", "gpu[98-100]" },
	{ "gpu099 gpu100 gpu101", "gpu[099-101]" },
	{ "gpu1 gpu01", "gpu[1,01]" },
	/* By value, then width: a range never skips a name. */
	{ "gpu2 gpu01 gpu02 gpu1", "gpu[1,01,2,02]" },
	{ "n0 n000 n00", "n[0,00,000]" },
	{ "head-01 gpu02 gpu01", "gpu[01-02],head-01" },
	{ "n1.example n2.example n3.other", "n[1-2].example,n3.other" },
	{ "rack2-n01 rack1-n01 rack1-n02 rack2-n02", "rack[1-2]-n[01-02]" },
	{ "rack1-n01 rack1-n02 rack1-n03 rack1-n04 rack2-n01 rack2-n02 "
	    "rack2-n03 rack2-n04", "rack[1-2]-n[01-04]" },
	{ "a1-b1 a1-b2 a2-b1 a3-b1 a3-b2", "a1-b[1-2],a2-b1,a3-b[1-2]" },
	{ "a1-b1 a1-b2 a3-b1 a3-b2", "a[1,3]-b[1-2]" },
	{ "r1n1 r1n2 r2n1 r2n2 r2n3", "r1n[1-2],r2n[1-3]" },
	{ "10.0.0.1 10.0.0.2 10.0.1.1 10.0.1.2", "10.0.[0-1].[1-2]" },
	/* Digit runs past 10^9 are text. */
	{ "node12345678901 node12345678902",
	    "node12345678901,node12345678902" },
	{ "n1000000000 n999999999", "n[999999999-1000000000]" },
	{ "gpu1 gpu1a gpu2", "gpu[1-2],gpu1a" },
};

START_TEST(test_hostlist_fold_table)
{
	struct strvec	 sv = STRVEC_INIT;
	char		*got;

	strvec_split(&sv, fold_cases[_i].in, ' ', 1);
	got = hostlist_fold((const char *const *)sv.v, sv.n);
	ck_assert_msg(strcmp(got, fold_cases[_i].want) == 0,
	    "'%s' folded to '%s', want '%s'", fold_cases[_i].in, got,
	    fold_cases[_i].want);
	free(got);
	strvec_clear(&sv);
}
END_TEST

START_TEST(test_hostlist_fold_empty)
{
	char	*got = hostlist_fold(NULL, 0);

	ck_assert_str_eq(got, "");
	free(got);
}
END_TEST

/* Lists whose expansion is in fold order: fold(expand(x)) == x. */
static const char *const fold_round_cases[] = {
	"gpu[01-16]",
	"gpu[01-04,08,10-12]",
	"gpu[01-100]",
	"rack[1-2]-n[01-04]",
	"192.0.2.[11-18]",
	"10.0.[0-1].[1-254]",
	"[10-20].example,gpu[01-08],head-01",
	"n[1-3,5,7-9]",
	"a[1-2]b[1-2]c[1-2]d",
	"node[000001-100000]",
};

/* A reproducible shuffle (xorshift; rand() would do, but be explicit). */
static uint32_t
test_hostlist_rand(uint32_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 17;
	*s ^= *s << 5;
	return *s;
}

static void
test_hostlist_shuffle(char **v, size_t n, uint32_t *seed)
{
	size_t	 i, j;
	char	*t;

	for (i = n; i > 1; i--) {
		j = test_hostlist_rand(seed) % i;
		t = v[i - 1];
		v[i - 1] = v[j];
		v[j] = t;
	}
}

START_TEST(test_hostlist_fold_round_trip)
{
	struct strvec	 names = STRVEC_INIT, again = STRVEC_INIT;
	struct prov_err	 err = PROV_ERR_INIT;
	const char	*in = fold_round_cases[_i];
	uint32_t	 seed = 12345;
	char		*got;
	size_t		 k;

	ck_assert_ok(hostlist_expand(&names, in, 0, &err), &err);
	got = hostlist_fold((const char *const *)names.v, names.n);
	ck_assert_str_eq(got, in);
	free(got);

	test_hostlist_shuffle(names.v, names.n, &seed);
	got = hostlist_fold((const char *const *)names.v, names.n);
	ck_assert_str_eq(got, in);
	ck_assert_ok(hostlist_expand(&again, got, 0, &err), &err);
	free(got);
	strvec_clear(&names);
	ck_assert_ok(hostlist_expand(&names, in, 0, &err), &err);
	ck_assert_uint_eq(again.n, names.n);
	for (k = 0; k < names.n; k++)
		ck_assert_str_eq(again.v[k], names.v[k]);
	strvec_clear(&names);
	strvec_clear(&again);
}
END_TEST

/*
 * Random subsets, built in sorted order, shuffled, folded: expanding the
 * fold gives the subset back in the order it was built.
 */
START_TEST(test_hostlist_fold_random)
{
	struct strvec	 want = STRVEC_INIT, shuffled = STRVEC_INIT;
	struct strvec	 got = STRVEC_INIT;
	struct prov_err	 err = PROV_ERR_INIT;
	uint32_t	 seed = 2463534242u, density;
	char		*folded;
	size_t		 k;
	int		 round, r, n, v;

	for (round = 0; round < 300; round++) {
		density = 1 + test_hostlist_rand(&seed) % 8;
		/* Two dimensions, 01..99 padded and 100..120 natural. */
		for (r = 1; r <= 5; r++)
			for (n = 1; n <= 120; n++)
				if (test_hostlist_rand(&seed) % 8 < density)
					strvec_pushf(&want, "r%d-n%02d", r, n);
		/* Mixed widths of one value: n7 sorts before n007. */
		for (v = 0; v <= 120; v++) {
			if (test_hostlist_rand(&seed) % 8 < density)
				strvec_pushf(&want, "v%d", v);
			if (v < 100 && test_hostlist_rand(&seed) % 8 < density)
				strvec_pushf(&want, "v%03d", v);
		}
		if (want.n == 0)
			continue;
		for (k = 0; k < want.n; k++)
			strvec_push(&shuffled, want.v[k]);
		test_hostlist_shuffle(shuffled.v, shuffled.n, &seed);
		folded = hostlist_fold((const char *const *)shuffled.v,
		    shuffled.n);
		ck_assert_ok(hostlist_expand(&got, folded, 0, &err), &err);
		ck_assert_msg(got.n == want.n, "'%s' gave %zu names, want %zu",
		    folded, got.n, want.n);
		for (k = 0; k < want.n; k++)
			ck_assert_msg(strcmp(got.v[k], want.v[k]) == 0,
			    "'%s' name %zu is '%s', want '%s'", folded, k,
			    got.v[k], want.v[k]);
		free(folded);
		strvec_clear(&want);
		strvec_clear(&shuffled);
		strvec_clear(&got);
	}
}
END_TEST

/* Folding a large plan is fast enough to run on every command. */
START_TEST(test_hostlist_fold_large)
{
	struct strvec	 names = STRVEC_INIT;
	struct prov_err	 err = PROV_ERR_INIT;
	uint32_t	 seed = 99;
	char		*got;

	ck_assert_ok(hostlist_expand(&names,
	    "rack[01-50]-gpu[001-100],10.1.[0-99].[1-200]", 0, &err), &err);
	ck_assert_uint_eq(names.n, 25000);
	test_hostlist_shuffle(names.v, names.n, &seed);
	got = hostlist_fold((const char *const *)names.v, names.n);
	ck_assert_str_eq(got, "10.1.[0-99].[1-200],rack[01-50]-gpu[001-100]");
	free(got);
	strvec_clear(&names);
}
END_TEST

/* Patterns. */

static const struct {
	const char	*in;
	int		 want;
} is_pattern_cases[] = {
	{ "gpu[01-04]", 1 },
	{ "[1]", 1 },
	{ "a,b[1-2]", 1 },
	{ "gpu01", 0 },
	{ "a,b", 0 },
	{ "gpu[", 0 },
	{ "gpu]", 0 },
	{ "][", 0 },
	{ "", 0 },
};

START_TEST(test_hostlist_is_pattern_table)
{
	ck_assert_msg(hostlist_is_pattern(is_pattern_cases[_i].in) ==
	    is_pattern_cases[_i].want, "'%s'", is_pattern_cases[_i].in);
}
END_TEST

static Suite *
hostlist_suite(void)
{
	Suite	*s = suite_create("hostlist");
	TCase	*tc;

	tc = tcase_create("expand");
	tcase_add_loop_test(tc, test_hostlist_expand_table, 0,
	    (int)ARRAY_SIZE(expand_cases));
	tcase_add_test(tc, test_hostlist_expand_generated);
	tcase_add_loop_test(tc, test_hostlist_errors, 0,
	    (int)ARRAY_SIZE(error_cases));
	tcase_add_test(tc, test_hostlist_max);
	suite_add_tcase(s, tc);

	tc = tcase_create("count");
	tcase_add_loop_test(tc, test_hostlist_count_table, 0,
	    (int)ARRAY_SIZE(count_cases));
	tcase_add_test(tc, test_hostlist_count_instant);
	tcase_add_test(tc, test_hostlist_count_overflow);
	suite_add_tcase(s, tc);

	tc = tcase_create("iter");
	tcase_set_timeout(tc, 30);
	tcase_add_loop_test(tc, test_hostlist_iter_equals_expand, 0,
	    (int)ARRAY_SIZE(iter_cases));
	tcase_add_test(tc, test_hostlist_iter_copies);
	tcase_add_test(tc, test_hostlist_iter_million);
	suite_add_tcase(s, tc);

	tc = tcase_create("fold");
	tcase_set_timeout(tc, 60);
	tcase_add_loop_test(tc, test_hostlist_fold_table, 0,
	    (int)ARRAY_SIZE(fold_cases));
	tcase_add_test(tc, test_hostlist_fold_empty);
	tcase_add_loop_test(tc, test_hostlist_fold_round_trip, 0,
	    (int)ARRAY_SIZE(fold_round_cases));
	tcase_add_test(tc, test_hostlist_fold_random);
	tcase_add_test(tc, test_hostlist_fold_large);
	suite_add_tcase(s, tc);

	tc = tcase_create("is_pattern");
	tcase_add_loop_test(tc, test_hostlist_is_pattern_table, 0,
	    (int)ARRAY_SIZE(is_pattern_cases));
	suite_add_tcase(s, tc);
	return s;
}

TEST_MAIN(hostlist_suite)

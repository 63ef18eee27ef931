#include "test.h"

#include "strmap.h"
#include "strvec.h"

/* A value that is not a real pointer, to tell entries apart. */
#define VAL(i)	((void *)(uintptr_t)((i) + 1))

START_TEST(test_strmap_empty)
{
	struct strmap	m = STRMAP_INIT;

	ck_assert_ptr_null(strmap_get(&m, "a"));
	ck_assert_ptr_null(strmap_get(&m, ""));
	ck_assert_uint_eq(m.n, 0);
	strmap_clear(&m);
	strmap_clear(&m);
	ck_assert_ptr_null(m.v);
}
END_TEST

START_TEST(test_strmap_put_add_get)
{
	struct strmap	 m = STRMAP_INIT;
	int		 a, b, c;
	char		 key2[] = "alpha";

	ck_assert_ptr_null(strmap_put(&m, "alpha", &a));
	ck_assert_ptr_null(strmap_put(&m, "beta", &b));
	ck_assert_ptr_null(strmap_put(&m, "", &c));
	ck_assert_uint_eq(m.n, 3);
	ck_assert_ptr_eq(strmap_get(&m, "alpha"), &a);
	ck_assert_ptr_eq(strmap_get(&m, "beta"), &b);
	ck_assert_ptr_eq(strmap_get(&m, ""), &c);
	ck_assert_ptr_null(strmap_get(&m, "alph"));
	ck_assert_ptr_null(strmap_get(&m, "alphaa"));
	ck_assert_ptr_null(strmap_get(&m, "Alpha"));

	/* Keys compare by content, not by pointer. */
	ck_assert_ptr_eq(strmap_get(&m, key2), &a);

	/* put replaces and returns the old value. */
	ck_assert_ptr_eq(strmap_put(&m, key2, &b), &a);
	ck_assert_ptr_eq(strmap_get(&m, "alpha"), &b);
	ck_assert_uint_eq(m.n, 3);

	/* add keeps the first value and returns it. */
	ck_assert_ptr_eq(strmap_add(&m, "alpha", &c), &b);
	ck_assert_ptr_eq(strmap_get(&m, "alpha"), &b);
	ck_assert_ptr_null(strmap_add(&m, "gamma", &c));
	ck_assert_ptr_eq(strmap_get(&m, "gamma"), &c);
	ck_assert_uint_eq(m.n, 4);

	/* A NULL value is stored (and reads back as absent). */
	ck_assert_ptr_eq(strmap_put(&m, "gamma", NULL), &c);
	ck_assert_ptr_null(strmap_get(&m, "gamma"));
	ck_assert_uint_eq(m.n, 4);

	strmap_clear(&m);
	ck_assert_uint_eq(m.n, 0);
	ck_assert_ptr_null(strmap_get(&m, "alpha"));
	/* Reusable after clear. */
	ck_assert_ptr_null(strmap_put(&m, "alpha", &a));
	ck_assert_ptr_eq(strmap_get(&m, "alpha"), &a);
	strmap_clear(&m);
}
END_TEST

/* 100,000 keys: every one found, none invented, the table stays sparse. */
START_TEST(test_strmap_large)
{
	struct strmap	m = STRMAP_INIT;
	struct strvec	keys = STRVEC_INIT;
	size_t		i, n = 100000, last_alloc = 0;
	char		miss[32];

	for (i = 0; i < n; i++)
		strvec_pushf(&keys, "gpu%06zu.rack%zu", i, i % 97);
	for (i = 0; i < n; i++) {
		ck_assert_ptr_null(strmap_put(&m, keys.v[i], VAL(i)));
		if (m.alloc != last_alloc) {
			/* A power of two, at most three quarters full. */
			ck_assert_uint_eq(m.alloc & (m.alloc - 1), 0);
			last_alloc = m.alloc;
		}
		ck_assert_uint_le(m.n * 4, m.alloc * 3);
	}
	ck_assert_uint_eq(m.n, n);
	for (i = 0; i < n; i++)
		ck_assert_ptr_eq(strmap_get(&m, keys.v[i]), VAL(i));
	for (i = 0; i < 1000; i++) {
		snprintf(miss, sizeof miss, "gpu%06zu.rack%zu", i, i % 97 + 1);
		ck_assert_ptr_null(strmap_get(&m, miss));
		snprintf(miss, sizeof miss, "gpu%06zu", i);
		ck_assert_ptr_null(strmap_get(&m, miss));
	}
	/* Replacing every value keeps the count. */
	for (i = 0; i < n; i += 3)
		ck_assert_ptr_eq(strmap_put(&m, keys.v[i], VAL(i + n)), VAL(i));
	for (i = 0; i < n; i++)
		ck_assert_ptr_eq(strmap_get(&m, keys.v[i]),
		    i % 3 == 0 ? VAL(i + n) : VAL(i));
	ck_assert_uint_eq(m.n, n);
	strmap_clear(&m);
	strvec_clear(&keys);
}
END_TEST

/* Keys that differ in one byte, and keys that are prefixes of others. */
START_TEST(test_strmap_similar_keys)
{
	struct strmap	m = STRMAP_INIT;
	struct strvec	keys = STRVEC_INIT;
	size_t		i;
	char		k[64];

	for (i = 0; i < 64; i++) {
		memset(k, 'x', i);
		k[i] = '\0';
		strvec_push(&keys, k);
	}
	for (i = 0; i < keys.n; i++)
		strmap_add(&m, keys.v[i], VAL(i));
	ck_assert_uint_eq(m.n, 64);
	for (i = 0; i < keys.n; i++)
		ck_assert_ptr_eq(strmap_get(&m, keys.v[i]), VAL(i));
	strmap_clear(&m);
	strvec_clear(&keys);
}
END_TEST

static Suite *
strmap_suite(void)
{
	Suite	*s = suite_create("strmap");
	TCase	*tc;

	tc = tcase_create("map");
	tcase_set_timeout(tc, 30);
	tcase_add_test(tc, test_strmap_empty);
	tcase_add_test(tc, test_strmap_put_add_get);
	tcase_add_test(tc, test_strmap_large);
	tcase_add_test(tc, test_strmap_similar_keys);
	suite_add_tcase(s, tc);
	return s;
}

TEST_MAIN(strmap_suite)

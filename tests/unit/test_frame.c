/*
 * test_frame.c: unit tests for lib/frame.c (sectioned output of the
 * scripts in templates/remote/).
 */
#include "compat.h"

#include <check.h>

#include "buf.h"
#include "frame.h"
#include "test.h"

/* Each section as "NAME rc=N [TEXT]", one after the other. */
static void
frame_collect(void *arg, const char *name, const char *text, long rc)
{
	buf_addf(arg, "%s rc=%ld [%s]\n", name, rc, text);
}

static const struct {
	const char	*out;
	size_t		 n;
	const char	*want;
} cases[] = {
	{ "", 0, "" },
	{ "noise before\n", 0, "" },
	{ "noise\n@@facts a\none\ntwo\n@@rc 0\n", 1, "a rc=0 [one\ntwo\n]\n" },
	/* no status, a CRLF, no newline at the end, a trimmed name */
	{ "@@facts  b \r\nx\r\ny", 1, "b rc=-1 [x\ny\n]\n" },
	/* the last status wins; a bad one is none */
	{ "@@facts c\n@@rc 1\n@@rc 2\n@@facts d\n@@rc x\n", 2,
	    "c rc=2 []\nd rc=-1 []\n" },
	/* a status before any section is noise */
	{ "@@rc 3\n@@facts e\ntext @@facts f\n", 1,
	    "e rc=-1 [text @@facts f\n]\n" },
};

START_TEST(test_frame_each)
{
	struct buf	b = BUF_INIT;

	ck_assert_uint_eq(frame_each(cases[_i].out, frame_collect, &b),
	    cases[_i].n);
	ck_assert_str_eq(b.buf != NULL ? b.buf : "", cases[_i].want);
	buf_release(&b);
}
END_TEST

static Suite *
frame_suite(void)
{
	Suite	*s = suite_create("frame");
	TCase	*tc = tcase_create("each");

	tcase_add_loop_test(tc, test_frame_each, 0, (int)ARRAY_SIZE(cases));
	suite_add_tcase(s, tc);
	return s;
}

TEST_MAIN(frame_suite)

/*
 * test_proc.c: unit tests for lib/proc.c: real processes (sh).
 */
#include "compat.h"

#include <check.h>
#include <sys/wait.h>

#include "buf.h"
#include "proc.h"
#include "test.h"

static int
exit_code(const struct proc *p)
{
	return WIFEXITED(p->status) ? WEXITSTATUS(p->status) : -1;
}

START_TEST(test_proc_streams)
{
	struct proc	p = PROC_INIT;
	struct buf	out = BUF_INIT, err = BUF_INIT;

	strvec_push(&p.args, "sh");
	strvec_push(&p.args, "-c");
	strvec_push(&p.args, "echo out; echo err >&2; read x || echo eof; "
	    "exit 3");
	p.out = &out;
	p.err = &err;
	ck_assert_int_eq(proc_run(&p), 0);
	ck_assert_int_eq(exit_code(&p), 3);
	ck_assert_str_eq(out.buf, "out\neof\n");
	ck_assert_str_eq(err.buf, "err\n");

	/* without err, stderr joins stdout */
	buf_reset(&out);
	p.err = NULL;
	ck_assert_int_eq(proc_run(&p), 0);
	ck_assert_str_eq(out.buf, "out\nerr\neof\n");
	proc_release(&p);
	buf_release(&out);
	buf_release(&err);
}
END_TEST

START_TEST(test_proc_env)
{
	struct proc	p = PROC_INIT;
	struct buf	out = BUF_INIT;

	ck_assert_int_eq(setenv("PROV_TEST_GONE", "x", 1), 0);
	ck_assert_int_eq(setenv("PROV_TEST_SET", "old", 1), 0);
	strvec_push(&p.args, "sh");
	strvec_push(&p.args, "-c");
	strvec_push(&p.args, "echo \"${PROV_TEST_GONE-unset} $PROV_TEST_SET\"");
	strvec_push(&p.env, "PROV_TEST_GONE");
	strvec_push(&p.env, "PROV_TEST_SET=new");
	p.out = &out;
	ck_assert_int_eq(proc_run(&p), 0);
	ck_assert_str_eq(out.buf, "unset new\n");
	proc_release(&p);
	buf_release(&out);
	unsetenv("PROV_TEST_GONE");
	unsetenv("PROV_TEST_SET");
}
END_TEST

START_TEST(test_proc_cap_and_timeout)
{
	struct proc	p = PROC_INIT;
	struct buf	out = BUF_INIT;

	strvec_push(&p.args, "sh");
	strvec_push(&p.args, "-c");
	strvec_push(&p.args, "printf 0123456789; exec sleep 10");
	p.out = &out;
	p.max = 4;
	p.timeout_s = 1;
	ck_assert_int_eq(proc_run(&p), -1);
	ck_assert_int_eq(errno, ETIMEDOUT);
	ck_assert_str_eq(out.buf, "0123");
	ck_assert(WIFSIGNALED(p.status));
	proc_release(&p);
	buf_release(&out);
}
END_TEST

START_TEST(test_proc_not_installed)
{
	struct proc	p = PROC_INIT;

	strvec_push(&p.args, "/nonexistent/prov-test-tool");
	ck_assert_int_eq(proc_run(&p), -1);
	ck_assert_int_eq(errno, ENOENT);
	proc_release(&p);
}
END_TEST

static Suite *
proc_suite(void)
{
	Suite	*s = suite_create("proc");
	TCase	*tc = tcase_create("run");

	tcase_add_test(tc, test_proc_streams);
	tcase_add_test(tc, test_proc_env);
	tcase_add_test(tc, test_proc_cap_and_timeout);
	tcase_add_test(tc, test_proc_not_installed);
	suite_add_tcase(s, tc);
	return s;
}

TEST_MAIN(proc_suite)

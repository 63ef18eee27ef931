#include "test.h"

#include <fcntl.h>
#include <sys/stat.h>

#include "buf.h"
#include "err.h"
#include "fs.h"

#define NOBODY	65534

static char *
test_fs_tmpdir(void)
{
	char	*d = xstrdup("/tmp/test_fs.XXXXXX");

	ck_assert_ptr_nonnull(mkdtemp(d));
	return d;
}

static void
test_fs_rm(const char *dir)
{
	char	*cmd = xasprintf("rm -rf '%s'", dir);

	ck_assert_int_eq(system(cmd), 0);
	free(cmd);
}

START_TEST(test_fs_tmp_open)
{
	char		*dir = test_fs_tmpdir();
	char		*path = xasprintf("%s/out", dir), *t1, *t2;
	struct stat	 st;
	int		 fd1, fd2;

	fd1 = fs_tmp_open(&t1, path, 0640);
	fd2 = fs_tmp_open(&t2, path, 0600);
	ck_assert_int_ge(fd1, 0);
	ck_assert_int_ge(fd2, 0);
	ck_assert(strncmp(t1, path, strlen(path)) == 0);
	ck_assert(strncmp(t1 + strlen(path), ".tmp.", 5) == 0);
	ck_assert_str_ne(t1, t2);
	ck_assert_int_eq(fstat(fd1, &st), 0);
	ck_assert_uint_eq(st.st_mode & 07777, 0640 & ~(unsigned)umask(022));
	umask(022);
	close(fd1);
	close(fd2);
	unlink(t1);
	unlink(t2);
	free(t1);
	free(t2);
	free(path);
	test_fs_rm(dir);
	free(dir);
}
END_TEST

/*
 * The old temporary name, PATH.tmp.PID, planted as a link to a file of
 * someone else's choosing: the write goes beside it, never through it.
 */
START_TEST(test_fs_write_planted_link)
{
	char		*dir = test_fs_tmpdir();
	char		*path = xasprintf("%s/state.json", dir);
	char		*victim = xasprintf("%s/victim", dir);
	char		*plant = xasprintf("%s.tmp.%ld", path, (long)getpid());
	struct buf	 b = BUF_INIT;

	ck_assert_int_eq(buf_write_file_atomic(victim, "precious\n", 9, 0600),
	    0);
	ck_assert_int_eq(symlink(victim, plant), 0);
	ck_assert_int_eq(buf_write_file_atomic(path, "{}\n", 3, 0600), 0);
	ck_assert_int_eq(buf_read_file(&b, victim), 0);
	ck_assert_str_eq(b.buf, "precious\n");
	buf_reset(&b);
	ck_assert_int_eq(buf_read_file(&b, path), 0);
	ck_assert_str_eq(b.buf, "{}\n");
	buf_release(&b);
	free(path);
	free(victim);
	free(plant);
	test_fs_rm(dir);
	free(dir);
}
END_TEST

enum { D_OWN, D_GROUP_W, D_WORLD_W, D_STICKY, D_UNDER_SHARED, D_LINK_IN_SHARED,
    D_FOREIGN, D_FOREIGN_IN_STICKY, D_UNDER_STICKY, D_NOT_DIR };

static const struct {
	const char	*what;
	int		 ok;
	const char	*msg;		/* part of the refusal */
} safe_cases[] = {
	[D_OWN] = { "a 0700 folder of ours", 1, NULL },
	[D_GROUP_W] = { "group-writable", 0,
	    "can be written by other users (mode 0770)" },
	[D_WORLD_W] = { "world-writable", 0,
	    "can be written by other users (mode 0777)" },
	[D_STICKY] = { "sticky like /tmp", 0,
	    "a shared sticky folder like /tmp" },
	[D_UNDER_SHARED] = { "ours, in a world-writable folder", 0,
	    "no sticky bit" },
	[D_LINK_IN_SHARED] = { "a link in a sticky folder", 0,
	    "symbolic link" },
	[D_FOREIGN] = { "nobody's", 0, "belongs to user 'nobody'" },
	[D_FOREIGN_IN_STICKY] = { "ours, in nobody's folder in a sticky one",
	    0, "in a folder other users can write" },
	[D_UNDER_STICKY] = { "ours, in a sticky folder", 1, NULL },
	[D_NOT_DIR] = { "a file", 0, "not a folder" },
};

START_TEST(test_fs_dir_safe)
{
	struct prov_err	 err = PROV_ERR_INIT;
	char		*top = test_fs_tmpdir();
	char		*d = xasprintf("%s/d", top), *x = NULL;
	int		 r;

	if (geteuid() != 0 && (_i == D_FOREIGN || _i == D_FOREIGN_IN_STICKY)) {
		test_fs_rm(top);
		free(top);
		free(d);
		return;		/* chown needs root */
	}
	switch (_i) {
	case D_OWN:
		ck_assert_int_eq(mkdir(d, 0700), 0);
		break;
	case D_GROUP_W:
	case D_WORLD_W:
	case D_STICKY:
		ck_assert_int_eq(mkdir(d, 0700), 0);
		ck_assert_int_eq(chmod(d, _i == D_GROUP_W ? 0770 : _i ==
		    D_WORLD_W ? 0777 : 01777), 0);
		break;
	case D_UNDER_SHARED:
	case D_UNDER_STICKY:
		ck_assert_int_eq(chmod(top, _i == D_UNDER_SHARED ? 0777 :
		    01777), 0);
		ck_assert_int_eq(mkdir(d, 0700), 0);
		break;
	case D_LINK_IN_SHARED:
		x = xasprintf("%s/real", top);
		ck_assert_int_eq(mkdir(x, 0700), 0);
		ck_assert_int_eq(symlink(x, d), 0);
		ck_assert_int_eq(chmod(top, 01777), 0);
		break;
	case D_FOREIGN:
		ck_assert_int_eq(mkdir(d, 0755), 0);
		ck_assert_int_eq(chown(d, NOBODY, NOBODY), 0);
		break;
	case D_FOREIGN_IN_STICKY:
		ck_assert_int_eq(chmod(top, 01777), 0);
		ck_assert_int_eq(mkdir(d, 0755), 0);
		ck_assert_int_eq(chown(d, NOBODY, NOBODY), 0);
		x = d;
		d = xasprintf("%s/mine", x);
		ck_assert_int_eq(mkdir(d, 0700), 0);
		break;
	case D_NOT_DIR:
		ck_assert_int_eq(buf_write_file_atomic(d, "x", 1, 0600), 0);
		break;
	}
	r = fs_dir_safe(d, &err);
	if (safe_cases[_i].ok)
		ck_assert_ok(r, &err);
	else {
		ck_assert_msg(r == -1, "%s: accepted", safe_cases[_i].what);
		ck_assert_msg(strstr(err.msg, safe_cases[_i].msg) != NULL,
		    "%s: '%s' lacks '%s'", safe_cases[_i].what, err.msg,
		    safe_cases[_i].msg);
	}
	prov_err_release(&err);
	test_fs_rm(top);
	free(top);
	free(d);
	free(x);
}
END_TEST

START_TEST(test_fs_mkdirs)
{
	struct prov_err	 err = PROV_ERR_INIT;
	char		*top = test_fs_tmpdir();
	char		*d = xasprintf("%s/a/b/c", top);
	struct stat	 st;

	ck_assert_ok(fs_mkdirs(d, 0700, &err), &err);
	ck_assert_int_eq(stat(d, &st), 0);
	ck_assert_uint_eq(st.st_mode & 07777, 0700);
	ck_assert_ok(fs_mkdirs(d, 0700, &err), &err);
	/* made, and refused once another user may write it */
	ck_assert_int_eq(chmod(d, 0777), 0);
	ck_assert_int_eq(fs_mkdirs(d, 0700, &err), -1);
	ck_assert_ptr_nonnull(strstr(err.msg, "mkdir -m 700"));
	prov_err_release(&err);
	test_fs_rm(top);
	free(top);
	free(d);
}
END_TEST

/* Never a shared /tmp path: XDG, HOME, else the passwd entry. */
START_TEST(test_fs_cache_home)
{
	struct prov_err	 err = PROV_ERR_INIT;
	char		*h;

	setenv("XDG_CACHE_HOME", "/x/cache", 1);
	setenv("HOME", "/h", 1);
	h = fs_cache_home(&err);
	ck_assert_str_eq(h, "/x/cache");
	free(h);
	setenv("XDG_CACHE_HOME", "relative", 1);
	h = fs_cache_home(&err);
	ck_assert_str_eq(h, "/h/.cache");
	free(h);
	unsetenv("XDG_CACHE_HOME");
	unsetenv("HOME");
	h = fs_cache_home(&err);
	ck_assert_ptr_nonnull(h);
	ck_assert(strncmp(h, "/tmp", 4) != 0);
	ck_assert(strcmp(h + strlen(h) - 7, "/.cache") == 0);
	free(h);
	prov_err_release(&err);
}
END_TEST

/* $ENV wins; without it a unit test binary (build/tests/) finds no
 * templates beside it, so the compiled-in install path is the answer. */
START_TEST(test_fs_data_dir)
{
	char	*d;

	ck_assert_int_eq(setenv("PROV_TEST_DATA", "/opt/site/templates", 1), 0);
	d = fs_data_dir("templates", "PROV_TEST_DATA");
	ck_assert_str_eq(d, "/opt/site/templates");
	free(d);
	ck_assert_int_eq(setenv("PROV_TEST_DATA", "", 1), 0);
	d = fs_data_dir("no-such-dir", "PROV_TEST_DATA");
	ck_assert_str_eq(d, PROV_DATADIR "/no-such-dir");
	free(d);
	ck_assert_int_eq(unsetenv("PROV_TEST_DATA"), 0);
}
END_TEST

START_TEST(test_fs_mkdir_p)
{
	struct prov_err	 err = PROV_ERR_INIT;
	char		 tmpl[] = "/tmp/prov-test-fs.XXXXXX", *top, *deep;
	struct stat	 st;

	top = mkdtemp(tmpl);
	ck_assert_ptr_nonnull(top);
	deep = xasprintf("%s/a/b//c/", top);
	ck_assert_ok(fs_mkdir_p(deep, 0700, &err), &err);
	ck_assert_int_eq(stat(deep, &st), 0);
	ck_assert(S_ISDIR(st.st_mode));
	/* again: nothing to do */
	ck_assert_ok(fs_mkdir_p(deep, 0700, &err), &err);
	free(deep);

	/* a file in the way names itself */
	deep = xasprintf("%s/a/f", top);
	ck_assert_int_eq(close(open(deep, O_CREAT | O_WRONLY, 0600)), 0);
	free(deep);
	deep = xasprintf("%s/a/f/g", top);
	ck_assert_int_eq(fs_mkdir_p(deep, 0700, &err), -1);
	ck_assert_msg(strstr(err.msg, "/a/f/g'") != NULL, "%s", err.msg);
	prov_err_release(&err);
	free(deep);

	/* an empty path was read past its NUL (pxe -o ""): an error now */
	ck_assert_int_eq(fs_mkdir_p("", 0700, &err), -1);
	ck_assert_str_eq(err.msg, "cannot create '': No such file or "
	    "directory");
	prov_err_release(&err);

	deep = xasprintf("rm -rf '%s'", top);
	ck_assert_int_eq(system(deep), 0);
	free(deep);
}
END_TEST

START_TEST(test_fs_write_all)
{
	int	p[2];
	char	got[8] = "";

	ck_assert_int_eq(pipe(p), 0);
	ck_assert_int_eq(fs_write_all(p[1], "abcdef", 6), 0);
	close(p[1]);
	ck_assert_int_eq(read(p[0], got, sizeof got - 1), 6);
	ck_assert_str_eq(got, "abcdef");
	close(p[0]);
	ck_assert_int_eq(fs_write_all(-1, "x", 1), -1);
	ck_assert_int_eq(errno, EBADF);
}
END_TEST

static Suite *
fs_suite(void)
{
	Suite	*s = suite_create("fs");
	TCase	*tc;

	tc = tcase_create("tmp");
	tcase_add_test(tc, test_fs_tmp_open);
	tcase_add_test(tc, test_fs_write_planted_link);
	suite_add_tcase(s, tc);
	tc = tcase_create("dirs");
	tcase_add_loop_test(tc, test_fs_dir_safe, 0,
	    (int)ARRAY_SIZE(safe_cases));
	tcase_add_test(tc, test_fs_mkdirs);
	tcase_add_test(tc, test_fs_cache_home);
	suite_add_tcase(s, tc);
	tc = tcase_create("data_dir");
	tcase_add_test(tc, test_fs_data_dir);
	suite_add_tcase(s, tc);
	tc = tcase_create("files");
	tcase_add_test(tc, test_fs_mkdir_p);
	tcase_add_test(tc, test_fs_write_all);
	suite_add_tcase(s, tc);
	return s;
}

TEST_MAIN(fs_suite)

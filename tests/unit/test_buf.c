#include "test.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "buf.h"
#include "err.h"
#include "yml.h"

static char *
test_buf_tmpdir(void)
{
	char	*d = xstrdup("/tmp/test_buf.XXXXXX");

	ck_assert_ptr_nonnull(mkdtemp(d));
	return d;
}

static void
test_buf_rmdir(char *d)
{
	char	*cmd = xasprintf("rm -rf '%s'", d);

	ck_assert_int_eq(system(cmd), 0);
	free(cmd);
	free(d);
}

/* Names in dir, sorted and joined by ' ' (caller frees). */
static char *
test_buf_ls(const char *dir)
{
	struct dirent	**ents = NULL;
	struct buf	  b = BUF_INIT;
	int		  n, i;

	n = scandir(dir, &ents, NULL, alphasort);
	ck_assert_int_ge(n, 0);
	for (i = 0; i < n; i++) {
		if (strcmp(ents[i]->d_name, ".") != 0 &&
		    strcmp(ents[i]->d_name, "..") != 0) {
			if (b.len > 0)
				buf_addch(&b, ' ');
			buf_adds(&b, ents[i]->d_name);
		}
		free(ents[i]);
	}
	free(ents);
	return buf_detach(&b, NULL);
}

/* The invariants every buf keeps. */
static void
test_buf_sane(const struct buf *b)
{
	ck_assert_ptr_nonnull(b->buf);
	ck_assert_int_eq(b->buf[b->len], '\0');
	if (b->alloc > 0)
		ck_assert_uint_lt(b->len, b->alloc);
	else
		ck_assert_uint_eq(b->len, 0);
	if (b->max > 0)
		ck_assert_uint_le(b->len, b->max);
}

/* Basics and growth. */

START_TEST(test_buf_init_empty)
{
	struct buf	 b = BUF_INIT;
	char		*s;
	size_t		 len = 99;

	test_buf_sane(&b);
	ck_assert_str_eq(b.buf, "");
	ck_assert_uint_eq(b.alloc, 0);
	/* Releasing or resetting an unused buf is harmless. */
	buf_reset(&b);
	buf_release(&b);
	test_buf_sane(&b);
	/* Detaching an empty buf still hands over memory the caller frees. */
	s = buf_detach(&b, &len);
	ck_assert_uint_eq(len, 0);
	ck_assert_str_eq(s, "");
	ck_assert_ptr_ne(s, buf_empty_);
	free(s);

	buf_init(&b, 1000);
	ck_assert_uint_ge(b.alloc, 1001);
	ck_assert_uint_eq(b.len, 0);
	test_buf_sane(&b);
	buf_release(&b);
	ck_assert_ptr_eq(b.buf, buf_empty_);
	ck_assert_uint_eq(b.alloc, 0);
}
END_TEST

START_TEST(test_buf_growth)
{
	struct buf	 b = BUF_INIT;
	char		*s;
	size_t		 i, len, last_alloc = 0, reallocs = 0, bad;

	/*
	 * Each ck_assert is a message to Check's parent process: 300,000 of
	 * them overran the test's timeout under the sanitizers on a loaded
	 * machine.  So the loops count what is wrong and assert once.
	 */
	for (i = 0, bad = 0; i < 100000; i++) {
		buf_addch(&b, 'a' + (int)(i % 26));
		if (b.alloc != last_alloc) {
			reallocs++;
			last_alloc = b.alloc;
		}
		bad += b.len != i + 1 || b.buf[b.len] != '\0';
	}
	ck_assert_uint_eq(bad, 0);
	test_buf_sane(&b);
	/* Doubling: a handful of reallocations, not one per byte. */
	ck_assert_uint_le(reallocs, 20);
	for (i = 0; i < 100000; i++)
		bad += b.buf[i] != 'a' + (int)(i % 26);
	ck_assert_uint_eq(bad, 0);
	ck_assert_uint_eq(strlen(b.buf), 100000);

	/* Bytes with NULs inside are kept; len, not strlen, counts. */
	buf_reset(&b);
	buf_add(&b, "x\0y", 3);
	ck_assert_uint_eq(b.len, 3);
	ck_assert_int_eq(memcmp(b.buf, "x\0y", 4), 0);

	/* setlen cuts and terminates. */
	buf_reset(&b);
	buf_adds(&b, "hello world");
	buf_setlen(&b, 5);
	ck_assert_str_eq(b.buf, "hello");
	ck_assert_uint_eq(b.len, 5);

	/* grow reserves: no realloc for what was asked. */
	buf_grow(&b, 5000);
	last_alloc = b.alloc;
	ck_assert_uint_ge(last_alloc, 5 + 5000 + 1);
	for (i = 0; i < 5000; i++)
		buf_addch(&b, '.');
	ck_assert_uint_eq(b.alloc, last_alloc);

	s = buf_detach(&b, &len);
	ck_assert_uint_eq(len, 5005);
	ck_assert_uint_eq(strlen(s), 5005);
	ck_assert_int_eq(strncmp(s, "hello.....", 10), 0);
	free(s);
	/* Detach leaves an empty, reusable buf. */
	test_buf_sane(&b);
	ck_assert_uint_eq(b.alloc, 0);
	buf_adds(&b, "again");
	ck_assert_str_eq(b.buf, "again");
	buf_release(&b);
}
END_TEST

START_TEST(test_buf_addf)
{
	struct buf	 b = BUF_INIT;
	char		*big;
	size_t		 sizes[] = { 0, 1, 254, 255, 256, 257, 1000,
	    70000 };
	size_t		 i, k;

	buf_addf(&b, "%s=%d;%05.1f|%x", "n", -42, 3.14159, 255);
	ck_assert_str_eq(b.buf, "n=-42;003.1|ff");

	/* Around the 256-byte stack buffer and far past it, appended. */
	for (k = 0; k < ARRAY_SIZE(sizes); k++) {
		big = xmalloc(sizes[k] + 1);
		for (i = 0; i < sizes[k]; i++)
			big[i] = (char)('A' + (int)(i % 23));
		big[sizes[k]] = '\0';
		buf_reset(&b);
		buf_adds(&b, "<");
		buf_addf(&b, "%s>%zu", big, sizes[k]);
		test_buf_sane(&b);
		ck_assert_uint_eq(b.len, 1 + sizes[k] + 1 +
		    (size_t)snprintf(NULL, 0, "%zu", sizes[k]));
		ck_assert_int_eq(b.buf[0], '<');
		ck_assert_int_eq(memcmp(b.buf + 1, big, sizes[k]), 0);
		ck_assert_int_eq(b.buf[1 + sizes[k]], '>');
		free(big);
	}
	buf_release(&b);
}
END_TEST

/* The cap. */

START_TEST(test_buf_max)
{
	struct buf	 b = BUF_INIT;
	char		 big[1000];

	b.max = 10;
	buf_adds(&b, "hello");
	ck_assert_int_eq(b.truncated, 0);
	buf_adds(&b, "world");
	/* Exactly at the cap is not truncation. */
	ck_assert_str_eq(b.buf, "helloworld");
	ck_assert_int_eq(b.truncated, 0);
	buf_addch(&b, '!');
	ck_assert_str_eq(b.buf, "helloworld");
	ck_assert_int_eq(b.truncated, 1);
	test_buf_sane(&b);

	/* A partial append keeps what fits. */
	buf_reset(&b);
	ck_assert_int_eq(b.truncated, 0);
	ck_assert_uint_eq(b.max, 10);
	buf_adds(&b, "12345678");
	buf_adds(&b, "abcdef");
	ck_assert_str_eq(b.buf, "12345678ab");
	ck_assert_int_eq(b.truncated, 1);
	buf_adds(&b, "more");
	ck_assert_str_eq(b.buf, "12345678ab");
	test_buf_sane(&b);

	/* addf short and long (past the stack buffer) obey the cap too. */
	buf_reset(&b);
	buf_addf(&b, "%d-%d", 1234, 5678);
	buf_addf(&b, "%s", "xyz");
	ck_assert_str_eq(b.buf, "1234-5678x");
	ck_assert_int_eq(b.truncated, 1);
	buf_reset(&b);
	memset(big, 'q', sizeof big - 1);
	big[sizeof big - 1] = '\0';
	buf_addf(&b, "[%s]", big);
	ck_assert_str_eq(b.buf, "[qqqqqqqqq");
	ck_assert_uint_eq(b.len, 10);
	ck_assert_int_eq(b.truncated, 1);
	test_buf_sane(&b);
	/* A large cap never allocates past itself plus the NUL. */
	buf_release(&b);
	b.max = 100;
	buf_addf(&b, "%s", big);
	ck_assert_uint_eq(b.len, 100);
	ck_assert_uint_le(b.alloc, 128);
	test_buf_sane(&b);
	buf_release(&b);
	/* buf_release forgets the cap. */
	ck_assert_uint_eq(b.max, 0);
}
END_TEST

/* Shell quoting. */

static const char *const shquote_cases[] = {
	"",
	"plain",
	"two words",
	"it's",
	"''",
	"'",
	"\"double\" quotes",
	"line one\nline two\n",
	"\n",
	"$(touch /tmp/provision-test-shquote-pwned)",
	"`touch /tmp/provision-test-shquote-pwned`",
	"${HOME} $HOME $0 $1 $@ $*",
	"back\\slash \\n \\' \\\\",
	"semi; colon && and || or | pipe & bg",
	"glob * ? [a-z] ~ ~root",
	"redirect > /tmp/provision-test-shquote-pwned < /dev/null",
	"tab\there\tcr\r",
	"# not a comment",
	"-n",
	"--",
	"caf\xc3\xa9 \xe6\x97\xa5\xe6\x9c\xac \xf0\x9f\x9a\x80",
	"\x01\x02\x1f\x7f",
	"'\\''",
	"!history! {a,b} (sub)",
	"a'b'c'd'e'f'g'h'i'j'k'l'm'n'o'p'",
};

START_TEST(test_buf_shquote_round_trip)
{
	const char	*in = shquote_cases[_i];
	struct buf	 cmd = BUF_INIT, out = BUF_INIT;
	struct stat	 st;
	FILE		*fp;
	char		 chunk[4096];
	size_t		 n;

	/* The quoted word, parsed by a real shell, is the input again. */
	buf_adds(&cmd, "printf %s ");
	buf_add_shquote(&cmd, in);
	fp = popen(cmd.buf, "r");
	ck_assert_ptr_nonnull(fp);
	while ((n = fread(chunk, 1, sizeof chunk, fp)) > 0)
		buf_add(&out, chunk, n);
	ck_assert_int_eq(pclose(fp), 0);
	ck_assert_msg(out.len == strlen(in) &&
	    memcmp(out.buf, in, out.len) == 0,
	    "quoted '%s' came back as '%s' via: %s", in, out.buf, cmd.buf);
	ck_assert_int_ne(stat("/tmp/provision-test-shquote-pwned", &st), 0);
	buf_release(&cmd);
	buf_release(&out);
}
END_TEST

static const struct {
	const char	*in;
	const char	*want;
} shquote_exact[] = {
	{ "", "''" },
	{ "abc", "'abc'" },
	{ "it's", "'it'\\''s'" },
	{ "'", "''\\'''" },
	{ "a b\n", "'a b\n'" },
};

START_TEST(test_buf_shquote_exact)
{
	struct buf	b = BUF_INIT;

	buf_adds(&b, "x=");
	buf_add_shquote(&b, shquote_exact[_i].in);
	ck_assert_int_eq(strncmp(b.buf, "x=", 2), 0);
	ck_assert_str_eq(b.buf + 2, shquote_exact[_i].want);
	buf_release(&b);
}
END_TEST

/* HTML. */

static const struct {
	const char	*in;
	const char	*want;
} html_cases[] = {
	{ "", "" },
	{ "plain text", "plain text" },
	{ "<script>alert('x')</script>",
	    "&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;" },
	{ "a & b && c", "a &amp; b &amp;&amp; c" },
	{ "\"quoted\" attr", "&quot;quoted&quot; attr" },
	{ "&amp;", "&amp;amp;" },
	{ "caf\xc3\xa9\n", "caf\xc3\xa9\n" },
};

START_TEST(test_buf_html)
{
	struct buf	b = BUF_INIT;

	buf_add_html(&b, html_cases[_i].in);
	ck_assert_str_eq(b.buf, html_cases[_i].want);
	buf_release(&b);
}
END_TEST

/* Foreign text made visible. */

static const struct {
	const char	*in;
	size_t		 len;		/* 0: strlen */
	const char	*keep;
	const char	*want;
} visible_cases[] = {
	{ "run=x host=h pid=1", 0, NULL, "run=x host=h pid=1" },
	/* a lock's owner that would clear the screen and retitle it */
	{ "owner \033[2J\033]0;pwned\007", 0, NULL,
	  "owner \\x1b[2J\\x1b]0;pwned\\x07" },
	{ "a\r\nb\tc", 0, NULL, "a\\x0d\\x0ab\\x09c" },
	{ "a\r\nb\tc", 0, "\n\t", "a\\x0d\nb\tc" },
	{ "back\\slash", 0, NULL, "back\\\\slash" },
	{ "nul\0in", 6, "\n", "nul\\x00in" },
	{ "del\177", 0, NULL, "del\\x7f" },
	/* UTF-8 passes; C1 controls (U+009B is CSI) and stray bytes do not */
	{ "caf\xc3\xa9", 0, NULL, "caf\xc3\xa9" },
	{ "\xc2\x9b" "31m", 0, NULL, "\\u009b" "31m" },
	{ "\x9b" "31m", 0, NULL, "\\x9b" "31m" },
	{ "cut \xe2\x82", 0, NULL, "cut \\xe2\\x82" },
	{ "\xe2\x82\xac", 2, NULL, "\\xe2\\x82" },
};

START_TEST(test_buf_visible)
{
	struct buf	b = BUF_INIT;
	size_t		len = visible_cases[_i].len;

	if (len == 0)
		len = strlen(visible_cases[_i].in);
	buf_add_visible(&b, visible_cases[_i].in, len, visible_cases[_i].keep);
	ck_assert_str_eq(b.buf, visible_cases[_i].want);
	buf_release(&b);
}
END_TEST

/* rtrim. */

static const struct {
	const char	*in;
	const char	*want;
} rtrim_cases[] = {
	{ "", "" },
	{ "abc", "abc" },
	{ "abc \t\r\n", "abc" },
	{ "  lead", "  lead" },
	{ "mid  dle\n\n", "mid  dle" },
	{ " \t\n\r ", "" },
	{ "keep\v", "keep\v" },
};

START_TEST(test_buf_rtrim)
{
	struct buf	b = BUF_INIT;

	buf_adds(&b, rtrim_cases[_i].in);
	buf_rtrim(&b);
	ck_assert_str_eq(b.buf, rtrim_cases[_i].want);
	ck_assert_uint_eq(b.len, strlen(rtrim_cases[_i].want));
	buf_release(&b);
}
END_TEST

/* Files. */

START_TEST(test_buf_read_file)
{
	char		*dir = test_buf_tmpdir();
	char		*path = xasprintf("%s/data", dir);
	struct buf	 want = BUF_INIT, b = BUF_INIT;
	size_t		 i;
	FILE		*fp;

	/* Bigger than one 64 KiB read, with NULs and high bytes. */
	for (i = 0; i < 200001; i++)
		buf_addch(&want, (int)((i * 7) % 256));
	fp = fopen(path, "w");
	ck_assert_ptr_nonnull(fp);
	ck_assert_uint_eq(fwrite(want.buf, 1, want.len, fp), want.len);
	ck_assert_int_eq(fclose(fp), 0);

	buf_adds(&b, "prefix:");
	ck_assert_int_eq(buf_read_file(&b, path), 0);
	ck_assert_uint_eq(b.len, 7 + want.len);
	ck_assert_int_eq(memcmp(b.buf, "prefix:", 7), 0);
	ck_assert_int_eq(memcmp(b.buf + 7, want.buf, want.len), 0);
	test_buf_sane(&b);

	/* The cap applies to files too. */
	buf_release(&b);
	b.max = 1000;
	ck_assert_int_eq(buf_read_file(&b, path), 0);
	ck_assert_uint_eq(b.len, 1000);
	ck_assert_int_eq(b.truncated, 1);
	ck_assert_int_eq(memcmp(b.buf, want.buf, 1000), 0);
	buf_release(&b);

	/* An empty file. */
	fp = fopen(path, "w");
	ck_assert_ptr_nonnull(fp);
	ck_assert_int_eq(fclose(fp), 0);
	ck_assert_int_eq(buf_read_file(&b, path), 0);
	ck_assert_uint_eq(b.len, 0);
	test_buf_sane(&b);

	/* Errors keep errno and leave the buf as it was. */
	buf_adds(&b, "kept");
	free(path);
	path = xasprintf("%s/missing", dir);
	errno = 0;
	ck_assert_int_eq(buf_read_file(&b, path), -1);
	ck_assert_int_eq(errno, ENOENT);
	errno = 0;
	ck_assert_int_eq(buf_read_file(&b, dir), -1);
	ck_assert_int_eq(errno, EISDIR);
	ck_assert_str_eq(b.buf, "kept");

	buf_release(&b);
	buf_release(&want);
	free(path);
	test_buf_rmdir(dir);
}
END_TEST

START_TEST(test_buf_write_file_atomic)
{
	char		*dir = test_buf_tmpdir();
	char		*path = xasprintf("%s/state.json", dir);
	char		*ls;
	struct buf	 b = BUF_INIT, big = BUF_INIT;
	struct stat	 st;
	mode_t		 old_umask;
	size_t		 i;

	/* The mode is what was asked, whatever the umask. */
	old_umask = umask(077);
	ck_assert_int_eq(buf_write_file_atomic(path, "first\n", 6, 0644), 0);
	umask(old_umask);
	ck_assert_int_eq(stat(path, &st), 0);
	ck_assert_uint_eq(st.st_mode & 07777, 0644);
	ck_assert_int_eq(buf_read_file(&b, path), 0);
	ck_assert_str_eq(b.buf, "first\n");
	buf_reset(&b);

	/* Replacing: new content, new mode, no temporary file left. */
	for (i = 0; i < 300000; i++)
		buf_addch(&big, (int)(i % 251));
	ck_assert_int_eq(buf_write_file_atomic(path, big.buf, big.len, 0600),
	    0);
	ck_assert_int_eq(stat(path, &st), 0);
	ck_assert_uint_eq(st.st_mode & 07777, 0600);
	ck_assert_int_eq((long long)st.st_size, (long long)big.len);
	ck_assert_int_eq(buf_read_file(&b, path), 0);
	ck_assert_uint_eq(b.len, big.len);
	ck_assert_int_eq(memcmp(b.buf, big.buf, big.len), 0);
	buf_reset(&b);
	ls = test_buf_ls(dir);
	ck_assert_str_eq(ls, "state.json");
	free(ls);

	/* An empty file is a file. */
	ck_assert_int_eq(buf_write_file_atomic(path, "", 0, 0600), 0);
	ck_assert_int_eq(stat(path, &st), 0);
	ck_assert_int_eq((int)st.st_size, 0);
	buf_release(&b);
	buf_release(&big);
	free(path);

	/* A missing directory: fails with ENOENT, creates nothing. */
	path = xasprintf("%s/no/such/dir/file", dir);
	errno = 0;
	ck_assert_int_eq(buf_write_file_atomic(path, "x", 1, 0600), -1);
	ck_assert_int_eq(errno, ENOENT);
	ls = test_buf_ls(dir);
	ck_assert_str_eq(ls, "state.json");
	free(ls);
	free(path);

	/*
	 * The rename fails (the target is a directory): the temporary file
	 * is removed and the target is untouched.
	 */
	path = xasprintf("%s/adir", dir);
	ck_assert_int_eq(mkdir(path, 0700), 0);
	free(path);
	path = xasprintf("%s/adir/inside", dir);
	ck_assert_int_eq(buf_write_file_atomic(path, "old", 3, 0600), 0);
	free(path);
	path = xasprintf("%s/adir", dir);
	errno = 0;
	ck_assert_int_eq(buf_write_file_atomic(path, "new", 3, 0600), -1);
	ck_assert_int_eq(errno, EISDIR);
	ls = test_buf_ls(dir);
	ck_assert_str_eq(ls, "adir state.json");
	free(ls);
	ls = test_buf_ls(path);
	ck_assert_str_eq(ls, "inside");
	free(ls);
	free(path);

	test_buf_rmdir(dir);
}
END_TEST

/*
 * A directory the writer may not write to: the old file stays intact and
 * nothing is left behind.  Root may write anywhere, so as root the write
 * is tried from a child that drops to nobody.
 */
static int
test_buf_try_write(const char *path)
{
	int	r;

	errno = 0;
	r = buf_write_file_atomic(path, "new", 3, 0644);
	if (r == -1 && errno == EACCES)
		return 0;
	return r == 0 ? 1 : 2;
}

START_TEST(test_buf_write_file_readonly_dir)
{
	char		*dir = test_buf_tmpdir();
	char		*sub = xasprintf("%s/ro", dir);
	char		*path = xasprintf("%s/file", sub);
	char		*ls;
	struct buf	 b = BUF_INIT;
	pid_t		 pid;
	int		 status;

	ck_assert_int_eq(chmod(dir, 0755), 0);
	ck_assert_int_eq(mkdir(sub, 0755), 0);
	ck_assert_int_eq(buf_write_file_atomic(path, "old", 3, 0644), 0);
	ck_assert_int_eq(chmod(sub, 0555), 0);
	if (geteuid() != 0)
		ck_assert_int_eq(test_buf_try_write(path), 0);
	else {
		pid = fork();
		ck_assert_int_ge(pid, 0);
		if (pid == 0) {
			if (setgid(65534) != 0 || setuid(65534) != 0)
				_exit(3);
			_exit(test_buf_try_write(path));
		}
		ck_assert_int_eq(waitpid(pid, &status, 0), pid);
		ck_assert(WIFEXITED(status));
		ck_assert_int_eq(WEXITSTATUS(status), 0);
	}
	ck_assert_int_eq(buf_read_file(&b, path), 0);
	ck_assert_str_eq(b.buf, "old");
	ls = test_buf_ls(sub);
	ck_assert_str_eq(ls, "file");
	free(ls);
	ck_assert_int_eq(chmod(sub, 0700), 0);
	buf_release(&b);
	free(path);
	free(sub);
	test_buf_rmdir(dir);
}
END_TEST

static Suite *
buf_suite(void)
{
	Suite	*s = suite_create("buf");
	TCase	*tc;

	tc = tcase_create("core");
	tcase_add_test(tc, test_buf_init_empty);
	tcase_add_test(tc, test_buf_growth);
	tcase_add_test(tc, test_buf_addf);
	tcase_add_test(tc, test_buf_max);
	suite_add_tcase(s, tc);

	tc = tcase_create("shquote");
	tcase_add_loop_test(tc, test_buf_shquote_round_trip, 0,
	    (int)ARRAY_SIZE(shquote_cases));
	tcase_add_loop_test(tc, test_buf_shquote_exact, 0,
	    (int)ARRAY_SIZE(shquote_exact));
	suite_add_tcase(s, tc);

	tc = tcase_create("html");
	tcase_add_loop_test(tc, test_buf_html, 0, (int)ARRAY_SIZE(html_cases));
	suite_add_tcase(s, tc);

	tc = tcase_create("visible");
	tcase_add_loop_test(tc, test_buf_visible, 0,
	    (int)ARRAY_SIZE(visible_cases));
	suite_add_tcase(s, tc);

	tc = tcase_create("rtrim");
	tcase_add_loop_test(tc, test_buf_rtrim, 0,
	    (int)ARRAY_SIZE(rtrim_cases));
	suite_add_tcase(s, tc);

	tc = tcase_create("files");
	tcase_add_test(tc, test_buf_read_file);
	tcase_add_test(tc, test_buf_write_file_atomic);
	tcase_add_test(tc, test_buf_write_file_readonly_dir);
	suite_add_tcase(s, tc);
	return s;
}

TEST_MAIN(buf_suite)

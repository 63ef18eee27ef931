#include "test.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <openssl/evp.h>

#include "buf.h"
#include "err.h"
#include "knownhosts.h"
#include "strvec.h"

/*
 * Fixtures in tests/fixtures/knownhosts/ were made with OpenSSH 9.2:
 * a, b, r: ed25519 keys; c: an ECDSA key; X.fp: `ssh-keygen -lf X.pub`;
 * hashed_known_hosts: `ssh-keygen -H` of "hashed01 A" and
 * "[hashed02]:2200 C".
 */

/* Path of a fixture (caller frees). */
static char *
test_kh_path(const char *name, const char *ext)
{
	char	*rel, *path;

	rel = xasprintf("tests/fixtures/knownhosts/%s%s", name, ext);
	path = test_path(rel);
	free(rel);
	return path;
}

struct test_key {
	unsigned char	*blob;
	size_t		 len;
};

/* The wire-form key of tests/fixtures/knownhosts/NAME.pub. */
static struct test_key
test_kh_key(const char *name)
{
	struct buf	 b = BUF_INIT;
	struct test_key	 k;
	char		*path, *sp, *end;
	int		 n;

	path = test_kh_path(name, ".pub");
	ck_assert_int_eq(buf_read_file(&b, path), 0);
	sp = strchr(b.buf, ' ');
	ck_assert_ptr_nonnull(sp);
	sp++;
	end = strpbrk(sp, " \n");
	if (end != NULL)
		*end = '\0';
	k.blob = xmalloc(strlen(sp));
	n = EVP_DecodeBlock(k.blob, (unsigned char *)sp, (int)strlen(sp));
	ck_assert_int_gt(n, 0);
	while (sp[0] != '\0' && sp[strlen(sp) - 1] == '=') {
		sp[strlen(sp) - 1] = '\0';
		n--;
	}
	k.len = (size_t)n;
	buf_release(&b);
	free(path);
	return k;
}

static char *
test_kh_fp(const char *name)
{
	struct buf	 b = BUF_INIT;
	char		*path;

	path = test_kh_path(name, ".fp");
	ck_assert_int_eq(buf_read_file(&b, path), 0);
	buf_rtrim(&b);
	free(path);
	return buf_detach(&b, NULL);
}

static struct knownhosts *
test_kh_load(const char *file)
{
	struct knownhosts	*kh = NULL;
	struct prov_err		 err = PROV_ERR_INIT;
	char			*path;

	path = test_kh_path(file, "");
	ck_assert_ok(knownhosts_load(&kh, path, &err), &err);
	free(path);
	return kh;
}

/* Patterns. */

static const struct {
	const char	*name, *pattern;
	int		 want;
} pattern_cases[] = {
	{ "gpu01", "gpu01", 1 },
	{ "GPU01", "gpu01", 1 },
	{ "gpu01", "gpu0?", 1 },
	{ "gpu01", "gpu?", 0 },
	{ "gpu01.lab", "*.lab", 1 },
	{ "lab", "*.lab", 0 },
	{ "a.b.lab", "*.lab", 1 },
	{ "anything", "*", 1 },
	{ "", "*", 1 },
	{ "gpu01", "g*1", 1 },
	{ "gpu01", "g*2", 0 },
	{ "[gpu03]:2222", "[gpu03]:2222", 1 },
	{ "[gpu03]:2222", "[gpu0?]:2222", 1 },
	{ "[gpu03]:22", "[gpu03]:2222", 0 },
};

START_TEST(test_knownhosts_pattern)
{
	ck_assert_msg(knownhosts_pattern_match(pattern_cases[_i].name,
	    pattern_cases[_i].pattern) == pattern_cases[_i].want,
	    "'%s' against '%s'", pattern_cases[_i].name,
	    pattern_cases[_i].pattern);
}
END_TEST

START_TEST(test_knownhosts_hostname)
{
	char	*s;

	s = knownhosts_hostname("GPU01", 22);
	ck_assert_str_eq(s, "gpu01");
	free(s);
	s = knownhosts_hostname("10.0.0.1", 2222);
	ck_assert_str_eq(s, "[10.0.0.1]:2222");
	free(s);
	s = knownhosts_hostname("h", 0);
	ck_assert_str_eq(s, "h");
	free(s);
}
END_TEST

/* Fingerprints match what ssh-keygen -l prints. */
START_TEST(test_knownhosts_fingerprint)
{
	const char	*names[] = { "a", "b", "c", "r" };
	size_t		 i;

	for (i = 0; i < ARRAY_SIZE(names); i++) {
		struct test_key	 k = test_kh_key(names[i]);
		char		*fp = knownhosts_fingerprint(k.blob, k.len);
		char		*want = test_kh_fp(names[i]);

		ck_assert_str_eq(fp, want);
		free(fp);
		free(want);
		free(k.blob);
	}
}
END_TEST

START_TEST(test_knownhosts_blob_type)
{
	struct test_key	 a = test_kh_key("a"), c = test_kh_key("c");
	char		*t;

	t = knownhosts_blob_type(a.blob, a.len);
	ck_assert_str_eq(t, "ssh-ed25519");
	free(t);
	t = knownhosts_blob_type(c.blob, c.len);
	ck_assert_str_eq(t, "ecdsa-sha2-nistp256");
	free(t);
	ck_assert_ptr_null(knownhosts_blob_type(a.blob, 3));
	ck_assert_ptr_null(knownhosts_blob_type((const unsigned char *)
	    "\xff\xff\xff\xff", 4));
	ck_assert_str_eq(knownhosts_type_label("ssh-ed25519"), "ED25519");
	ck_assert_str_eq(knownhosts_type_label("ecdsa-sha2-nistp384"),
	    "ECDSA");
	ck_assert_str_eq(knownhosts_type_label("ssh-rsa"), "RSA");
	free(a.blob);
	free(c.blob);
}
END_TEST

/* Checks against the plain fixture. */

static const struct {
	const char	*name1, *name2;	/* name2 may be NULL */
	long		 port;
	const char	*key;
	enum knownhosts_status want;
	unsigned	 line;		/* deciding line; 0: none */
} check_cases[] = {
	{ "gpu01", NULL, 22, "a", KNOWNHOSTS_OK, 2 },
	{ "GPU01", NULL, 22, "a", KNOWNHOSTS_OK, 2 },
	{ "192.0.2.11", NULL, 22, "a", KNOWNHOSTS_OK, 2 },
	{ "nosuch", "192.0.2.11", 22, "a", KNOWNHOSTS_OK, 2 },
	{ "gpu01", NULL, 22, "b", KNOWNHOSTS_CHANGED, 2 },
	{ "gpu01", NULL, 2222, "a", KNOWNHOSTS_NEW, 0 },
	{ "gpu01", NULL, 22, "c", KNOWNHOSTS_OTHER_TYPE, 2 },
	/* Several keys for one host: each is accepted. */
	{ "gpu02", NULL, 22, "a", KNOWNHOSTS_OK, 3 },
	{ "gpu02", NULL, 22, "c", KNOWNHOSTS_OK, 4 },
	{ "gpu02", NULL, 22, "b", KNOWNHOSTS_CHANGED, 3 },
	/* [host]:port */
	{ "gpu03", NULL, 2222, "a", KNOWNHOSTS_OK, 5 },
	{ "gpu03", NULL, 22, "a", KNOWNHOSTS_NEW, 0 },
	{ "gpu03", NULL, 2223, "a", KNOWNHOSTS_NEW, 0 },
	/* Wildcards and negation. */
	{ "n1.lab.internal", NULL, 22, "b", KNOWNHOSTS_OK, 6 },
	{ "n1.lab.internal", NULL, 22, "a", KNOWNHOSTS_CHANGED, 6 },
	{ "bad.lab.internal", NULL, 22, "b", KNOWNHOSTS_NEW, 0 },
	{ "node42", NULL, 22, "b", KNOWNHOSTS_OK, 13 },
	{ "node420", NULL, 22, "b", KNOWNHOSTS_NEW, 0 },
	/* @revoked * beats a plain line holding the same key. */
	{ "gpu04", NULL, 22, "r", KNOWNHOSTS_REVOKED, 9 },
	{ "anyhost", NULL, 22, "r", KNOWNHOSTS_REVOKED, 9 },
	/* @cert-authority lines are ignored, not treated as keys. */
	{ "www.example.com", NULL, 22, "c", KNOWNHOSTS_NEW, 0 },
	/* A line whose type does not match its key is skipped. */
	{ "gpu06", NULL, 22, "a", KNOWNHOSTS_NEW, 0 },
	{ "gpu05", NULL, 22, "a", KNOWNHOSTS_NEW, 0 },
};

START_TEST(test_knownhosts_check)
{
	struct knownhosts	*kh = test_kh_load("known_hosts");
	struct knownhosts_match	 m = KNOWNHOSTS_MATCH_INIT;
	struct test_key		 k = test_kh_key(check_cases[_i].key);
	const char		*names[2];
	size_t			 n = 1;

	names[0] = check_cases[_i].name1;
	if (check_cases[_i].name2 != NULL)
		names[n++] = check_cases[_i].name2;
	knownhosts_check(kh, names, n, check_cases[_i].port, k.blob, k.len,
	    &m);
	ck_assert_msg(m.status == check_cases[_i].want,
	    "%s:%ld key %s: status %d, want %d", names[0],
	    check_cases[_i].port, check_cases[_i].key, (int)m.status,
	    (int)check_cases[_i].want);
	ck_assert_uint_eq(m.line, check_cases[_i].line);
	if (m.line > 0) {
		ck_assert_ptr_nonnull(m.file);
		ck_assert_ptr_nonnull(strstr(m.file, "known_hosts"));
		ck_assert_ptr_nonnull(m.known_fp);
		ck_assert(strncmp(m.known_fp, "SHA256:", 7) == 0);
	}
	knownhosts_match_release(&m);
	knownhosts_free(kh);
	free(k.blob);
}
END_TEST

/* The fingerprint reported for a changed key is the one in the file. */
START_TEST(test_knownhosts_changed_reports_old)
{
	struct knownhosts	*kh = test_kh_load("known_hosts");
	struct knownhosts_match	 m = KNOWNHOSTS_MATCH_INIT;
	struct test_key		 b = test_kh_key("b");
	const char		*names[] = { "gpu01" };
	char			*afp = test_kh_fp("a");

	knownhosts_check(kh, names, 1, 22, b.blob, b.len, &m);
	ck_assert_int_eq(m.status, KNOWNHOSTS_CHANGED);
	ck_assert_str_eq(m.known_fp, afp);
	ck_assert_str_eq(m.known_type, "ssh-ed25519");
	knownhosts_match_release(&m);
	knownhosts_free(kh);
	free(b.blob);
	free(afp);
}
END_TEST

START_TEST(test_knownhosts_notes)
{
	struct knownhosts	*kh = test_kh_load("known_hosts");
	const struct strvec	*notes = knownhosts_notes(kh);

	ck_assert_uint_eq(notes->n, 3);
	ck_assert_ptr_nonnull(strstr(notes->v[0], "known_hosts:8: "
	    "@cert-authority line ignored"));
	ck_assert_ptr_nonnull(strstr(notes->v[1], "known_hosts:11: "
	    "malformed"));
	ck_assert_ptr_nonnull(strstr(notes->v[2], "known_hosts:12: key type"));
	/* 2,3,4,5,6,9(revoked),10,13 */
	ck_assert_uint_eq(knownhosts_count(kh), 8);
	knownhosts_free(kh);
}
END_TEST

/* Hashed entries made by ssh-keygen -H. */
START_TEST(test_knownhosts_hashed)
{
	struct knownhosts	*kh = test_kh_load("hashed_known_hosts");
	struct knownhosts_match	 m = KNOWNHOSTS_MATCH_INIT;
	struct test_key		 a = test_kh_key("a"), b = test_kh_key("b"),
				 c = test_kh_key("c");
	const char		*h1[] = { "hashed01" }, *h2[] = { "hashed02" },
				*h3[] = { "other" };

	ck_assert_uint_eq(knownhosts_notes(kh)->n, 0);
	knownhosts_check(kh, h1, 1, 22, a.blob, a.len, &m);
	ck_assert_int_eq(m.status, KNOWNHOSTS_OK);
	ck_assert_uint_eq(m.line, 1);
	knownhosts_check(kh, h1, 1, 22, b.blob, b.len, &m);
	ck_assert_int_eq(m.status, KNOWNHOSTS_CHANGED);
	knownhosts_check(kh, h1, 1, 2200, a.blob, a.len, &m);
	ck_assert_int_eq(m.status, KNOWNHOSTS_NEW);
	knownhosts_check(kh, h2, 1, 2200, c.blob, c.len, &m);
	ck_assert_int_eq(m.status, KNOWNHOSTS_OK);
	ck_assert_uint_eq(m.line, 2);
	knownhosts_check(kh, h2, 1, 22, c.blob, c.len, &m);
	ck_assert_int_eq(m.status, KNOWNHOSTS_NEW);
	knownhosts_check(kh, h3, 1, 22, a.blob, a.len, &m);
	ck_assert_int_eq(m.status, KNOWNHOSTS_NEW);
	knownhosts_match_release(&m);
	knownhosts_free(kh);
	free(a.blob);
	free(b.blob);
	free(c.blob);
}
END_TEST

START_TEST(test_knownhosts_types)
{
	struct knownhosts	*kh = test_kh_load("known_hosts");
	struct strvec		 t = STRVEC_INIT;
	const char		*g2[] = { "gpu02" }, *g4[] = { "gpu04" };

	knownhosts_types(kh, g2, 1, 22, &t);
	ck_assert_uint_eq(t.n, 2);
	ck_assert_str_eq(t.v[0], "ssh-ed25519");
	ck_assert_str_eq(t.v[1], "ecdsa-sha2-nistp256");
	strvec_clear(&t);
	knownhosts_types(kh, g4, 1, 22, &t);	/* revoked line not listed */
	ck_assert_uint_eq(t.n, 1);
	strvec_clear(&t);
	knownhosts_free(kh);
}
END_TEST

START_TEST(test_knownhosts_missing_file)
{
	struct knownhosts	*kh = NULL;
	struct prov_err		 err = PROV_ERR_INIT;

	ck_assert_ok(knownhosts_load(&kh, "/nonexistent/dir/known_hosts",
	    &err), &err);
	ck_assert_uint_eq(knownhosts_count(kh), 0);
	knownhosts_free(kh);
	/* A directory is not readable as a file: an error. */
	ck_assert_int_eq(knownhosts_load(&kh, "/", &err), -1);
	ck_assert_ptr_null(kh);
	prov_err_release(&err);
}
END_TEST

/* accept-new: appended, readable by us and in OpenSSH's form. */

static char *
test_kh_tmpdir(void)
{
	char	tmpl[] = "/tmp/test_knownhosts.XXXXXX";

	ck_assert_ptr_nonnull(mkdtemp(tmpl));
	return xstrdup(tmpl);
}

START_TEST(test_knownhosts_add)
{
	struct knownhosts	*kh = NULL;
	struct knownhosts_match	 m = KNOWNHOSTS_MATCH_INIT;
	struct prov_err		 err = PROV_ERR_INIT;
	struct test_key		 a = test_kh_key("a"), b = test_kh_key("b");
	struct buf		 f = BUF_INIT;
	const char		*names[] = { "gpu09", "192.0.2.19", "GPU09" };
	char			*dir = test_kh_tmpdir(), *path, *b64;
	struct stat		 st;

	/* The directory is created, as ~/.ssh may not exist yet. */
	path = xasprintf("%s/ssh/known_hosts", dir);
	ck_assert_ok(knownhosts_load(&kh, path, &err), &err);
	ck_assert_ok(knownhosts_add(kh, names, 3, 2222, a.blob, a.len, &m,
	    &err), &err);
	ck_assert_int_eq(m.status, KNOWNHOSTS_OK);
	ck_assert_uint_eq(m.line, 1);
	ck_assert_int_eq(buf_read_file(&f, path), 0);
	b64 = xmalloc(4 * a.len);
	EVP_EncodeBlock((unsigned char *)b64, a.blob, (int)a.len);
	{
		char	*want = xasprintf("[gpu09]:2222,[192.0.2.19]:2222 "
		    "ssh-ed25519 %s\n", b64);

		ck_assert_str_eq(f.buf, want);
		free(want);
	}
	ck_assert_int_eq(stat(path, &st), 0);
	ck_assert_int_eq(st.st_mode & 0777, 0600);
	/* The same host again: nothing written. */
	ck_assert_ok(knownhosts_add(kh, names, 2, 2222, a.blob, a.len, &m,
	    &err), &err);
	ck_assert_int_eq(m.status, KNOWNHOSTS_OK);
	/* A changed key is never written over the old one. */
	ck_assert_ok(knownhosts_add(kh, names, 2, 2222, b.blob, b.len, &m,
	    &err), &err);
	ck_assert_int_eq(m.status, KNOWNHOSTS_CHANGED);
	buf_reset(&f);
	ck_assert_int_eq(buf_read_file(&f, path), 0);
	ck_assert_ptr_eq(strchr(f.buf, '\n'), f.buf + f.len - 1);
	knownhosts_free(kh);
	/* A fresh load sees the appended key. */
	ck_assert_ok(knownhosts_load(&kh, path, &err), &err);
	knownhosts_check(kh, names + 1, 1, 2222, a.blob, a.len, &m);
	ck_assert_int_eq(m.status, KNOWNHOSTS_OK);
	knownhosts_match_release(&m);
	knownhosts_free(kh);
	buf_release(&f);
	free(b64);
	unlink(path);
	free(path);
	path = xasprintf("%s/ssh", dir);
	rmdir(path);
	free(path);
	rmdir(dir);
	free(dir);
	free(a.blob);
	free(b.blob);
}
END_TEST

/* A file without a final newline gets one before the new line. */
START_TEST(test_knownhosts_add_no_newline)
{
	struct knownhosts	*kh = NULL;
	struct knownhosts_match	 m = KNOWNHOSTS_MATCH_INIT;
	struct prov_err		 err = PROV_ERR_INIT;
	struct test_key		 a = test_kh_key("a");
	struct buf		 f = BUF_INIT;
	const char		*n1[] = { "x1" }, *n2[] = { "x2" };
	char			*dir = test_kh_tmpdir(), *path;

	path = xasprintf("%s/kh", dir);
	ck_assert_int_eq(buf_write_file_atomic(path, "# no newline", 12,
	    0600), 0);
	ck_assert_ok(knownhosts_load(&kh, path, &err), &err);
	ck_assert_ok(knownhosts_add(kh, n1, 1, 22, a.blob, a.len, &m, &err),
	    &err);
	ck_assert_uint_eq(m.line, 2);
	ck_assert_ok(knownhosts_add(kh, n2, 1, 22, a.blob, a.len, &m, &err),
	    &err);
	ck_assert_uint_eq(m.line, 3);
	ck_assert_int_eq(buf_read_file(&f, path), 0);
	ck_assert(strncmp(f.buf, "# no newline\nx1 ssh-ed25519 ", 28) == 0);
	ck_assert_ptr_nonnull(strstr(f.buf, "\nx2 ssh-ed25519 "));
	knownhosts_match_release(&m);
	knownhosts_free(kh);
	buf_release(&f);
	unlink(path);
	rmdir(dir);
	free(path);
	free(dir);
	free(a.blob);
}
END_TEST

/*
 * A NUL byte ends its line; what follows up to the newline is ignored
 * (found by fuzz/fuzz_knownhosts.c: the '\r' check indexed the raw line
 * length into the shorter copy, past its end).
 */
START_TEST(test_knownhosts_nul_in_line)
{
	static const char	 key[] = "AAAAC3NzaC1lZDI1NTE5AAAAIESNKOv3hof2nuOa"
	    "Un2oqwaOx6nLH312zIx1CVBMgXaQ";
	struct knownhosts	*kh = NULL;
	struct knownhosts_match	 m = KNOWNHOSTS_MATCH_INIT;
	struct prov_err		 err = PROV_ERR_INIT;
	struct test_key		 a = test_kh_key("a");
	struct buf		 f = BUF_INIT;
	const char		*g7[] = { "gpu07" }, *g8[] = { "gpu08" };
	char			*dir = test_kh_tmpdir(), *path;
	size_t			 i;

	buf_addf(&f, "gpu07 ssh-ed25519 %s", key);
	buf_add(&f, "\0junk\r\n", 7);
	buf_add(&f, "x\0", 2);
	for (i = 0; i < 200; i++)
		buf_addch(&f, 'y');
	buf_addf(&f, "\r\ngpu08 ssh-ed25519 %s\r\n", key);
	path = xasprintf("%s/kh", dir);
	ck_assert_int_eq(buf_write_file_atomic(path, f.buf, f.len, 0600), 0);
	ck_assert_ok(knownhosts_load(&kh, path, &err), &err);
	ck_assert_uint_eq(knownhosts_count(kh), 2);
	knownhosts_check(kh, g7, 1, 22, a.blob, a.len, &m);
	ck_assert_int_eq(m.status, KNOWNHOSTS_OK);
	ck_assert_uint_eq(m.line, 1);
	knownhosts_check(kh, g8, 1, 22, a.blob, a.len, &m);
	ck_assert_int_eq(m.status, KNOWNHOSTS_OK);
	ck_assert_uint_eq(m.line, 3);
	knownhosts_match_release(&m);
	knownhosts_free(kh);
	buf_release(&f);
	unlink(path);
	rmdir(dir);
	free(path);
	free(dir);
	free(a.blob);
}
END_TEST

/* Many processes accepting the same new host write it once. */
START_TEST(test_knownhosts_add_concurrent)
{
	struct test_key	 a = test_kh_key("a"), b = test_kh_key("b");
	struct buf	 f = BUF_INIT;
	char		*dir = test_kh_tmpdir(), *path, *p;
	int		 i, status, lines = 0;
	pid_t		 pids[16];

	path = xasprintf("%s/kh", dir);
	for (i = 0; i < 16; i++) {
		pids[i] = fork();
		ck_assert_int_ge(pids[i], 0);
		if (pids[i] == 0) {
			struct knownhosts	*kh = NULL;
			struct knownhosts_match	 m = KNOWNHOSTS_MATCH_INIT;
			struct prov_err		 err = PROV_ERR_INIT;
			const char		*names[] = { "race" };
			struct test_key		*k = i % 2 ? &b : &a;

			if (knownhosts_load(&kh, path, &err) != 0 ||
			    knownhosts_add(kh, names, 1, 22, k->blob, k->len,
			    &m, &err) != 0)
				_exit(2);
			_exit(m.status == KNOWNHOSTS_OK ? 0 :
			    m.status == KNOWNHOSTS_CHANGED ? 1 : 3);
		}
	}
	{
		int	ok = 0, changed = 0;

		for (i = 0; i < 16; i++) {
			ck_assert_int_eq(waitpid(pids[i], &status, 0), pids[i]);
			ck_assert(WIFEXITED(status));
			ck_assert_int_le(WEXITSTATUS(status), 1);
			if (WEXITSTATUS(status) == 0)
				ok++;
			else
				changed++;
		}
		/* One key won; everyone holding the other saw a change. */
		ck_assert(ok == 8 && changed == 8);
	}
	ck_assert_int_eq(buf_read_file(&f, path), 0);
	for (p = f.buf; *p != '\0'; p++)
		lines += *p == '\n';
	ck_assert_int_eq(lines, 1);
	buf_release(&f);
	unlink(path);
	rmdir(dir);
	free(path);
	free(dir);
	free(a.blob);
	free(b.blob);
}
END_TEST

static Suite *
knownhosts_suite(void)
{
	Suite	*s = suite_create("knownhosts");
	TCase	*tc;

	tc = tcase_create("pattern");
	tcase_add_loop_test(tc, test_knownhosts_pattern, 0,
	    (int)ARRAY_SIZE(pattern_cases));
	tcase_add_test(tc, test_knownhosts_hostname);
	suite_add_tcase(s, tc);

	tc = tcase_create("keys");
	tcase_add_test(tc, test_knownhosts_fingerprint);
	tcase_add_test(tc, test_knownhosts_blob_type);
	suite_add_tcase(s, tc);

	tc = tcase_create("check");
	tcase_add_loop_test(tc, test_knownhosts_check, 0,
	    (int)ARRAY_SIZE(check_cases));
	tcase_add_test(tc, test_knownhosts_changed_reports_old);
	tcase_add_test(tc, test_knownhosts_notes);
	tcase_add_test(tc, test_knownhosts_hashed);
	tcase_add_test(tc, test_knownhosts_types);
	tcase_add_test(tc, test_knownhosts_missing_file);
	tcase_add_test(tc, test_knownhosts_nul_in_line);
	suite_add_tcase(s, tc);

	tc = tcase_create("add");
	tcase_add_test(tc, test_knownhosts_add);
	tcase_add_test(tc, test_knownhosts_add_no_newline);
	tcase_add_test(tc, test_knownhosts_add_concurrent);
	suite_add_tcase(s, tc);
	return s;
}

TEST_MAIN(knownhosts_suite)

#include "test.h"

#include <archive.h>
#include <archive_entry.h>

#include "arc.h"
#include "buf.h"
#include "err.h"

static char *
test_arc_tmpdir(void)
{
	char	*d = xstrdup("/tmp/test_arc.XXXXXX");

	ck_assert_ptr_nonnull(mkdtemp(d));
	return d;
}

static void
test_arc_rmdir(char *d)
{
	char	*cmd = xasprintf("rm -rf '%s'", d);

	ck_assert_int_eq(system(cmd), 0);
	free(cmd);
	free(d);
}

/* SHA-256 (FIPS 180-2 vectors). */

static const struct {
	const char	*in;
	const char	*hex;
} sha_cases[] = {
	{ "", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855" },
	{ "abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad" },
	{ "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
	  "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1" },
};

START_TEST(test_arc_sha256_vectors)
{
	struct prov_err	err = PROV_ERR_INIT;
	char		hex[ARC_SHA256_HEX];

	ck_assert_ok(arc_sha256_buf(hex, sha_cases[_i].in,
	    strlen(sha_cases[_i].in), &err), &err);
	ck_assert_str_eq(hex, sha_cases[_i].hex);
	ck_assert(arc_sha256_valid(hex));
}
END_TEST

START_TEST(test_arc_sha256_stream_and_file)
{
	struct arc_sha256	 s = ARC_SHA256_INIT;
	struct prov_err		 err = PROV_ERR_INIT;
	char			*dir = test_arc_tmpdir();
	char			*path = xasprintf("%s/f", dir);
	char			 a[ARC_SHA256_HEX], b[ARC_SHA256_HEX];
	char			*big = xmalloc(200000);
	int64_t			 size = 0;
	size_t			 i;

	for (i = 0; i < 200000; i++)
		big[i] = (char)(i * 7 + 3);
	ck_assert_ok(arc_sha256_init(&s, &err), &err);
	for (i = 0; i < 200000; i += 1000)
		arc_sha256_update(&s, big + i, 1000);
	arc_sha256_final(&s, a);
	ck_assert_int_eq(buf_write_file_atomic(path, big, 200000, 0644), 0);
	ck_assert_ok(arc_sha256_file(b, &size, path, &err), &err);
	ck_assert_str_eq(a, b);
	ck_assert_int_eq(size, 200000);
	ck_assert_int_eq(arc_sha256_file(b, NULL, "/nonexistent/x", &err), -1);
	ck_assert_ptr_nonnull(strstr(err.msg, "/nonexistent/x"));
	ck_assert(!arc_sha256_valid("abc"));
	ck_assert(!arc_sha256_valid("g3b0c44298fc1c149afbf4c8996fb92427ae41e4649"
	    "b934ca495991b7852b855"));
	prov_err_release(&err);
	free(big);
	free(path);
	test_arc_rmdir(dir);
}
END_TEST

/* Writing, then reading back. */

struct test_arc_seen {
	size_t		n;
	char		names[8][64];
	char		sha[8][ARC_SHA256_HEX];
	int64_t		size[8];
	int		kept[8];
	struct buf	data;
};

static int
test_arc_collect(void *arg, const struct arc_member *m, struct prov_err *err)
{
	struct test_arc_seen	*s = arg;

	(void)err;
	ck_assert_uint_lt(s->n, 8);
	ck_assert_int_eq(m->type, 'f');
	snprintf(s->names[s->n], 64, "%s", m->name);
	memcpy(s->sha[s->n], m->sha256, ARC_SHA256_HEX);
	s->size[s->n] = m->size;
	s->kept[s->n] = m->data != NULL;
	if (m->data != NULL)
		buf_add(&s->data, m->data, m->len);
	s->n++;
	return 0;
}

START_TEST(test_arc_write_scan)
{
	static const char *const keep[] = { "manifest.json", NULL };
	struct arc_writer	*w = NULL;
	struct prov_err		 err = PROV_ERR_INIT;
	struct test_arc_seen	 seen;
	struct buf		 b = BUF_INIT;
	char			*dir = test_arc_tmpdir();
	char			*src = xasprintf("%s/src.bin", dir);
	char			*out = xasprintf("%s/out.tar.zst", dir);
	char			 want[ARC_SHA256_HEX], got[ARC_SHA256_HEX];
	char			 h[ARC_SHA256_HEX];
	int64_t			 size = 0;

	memset(&seen, 0, sizeof seen);
	seen.data = (struct buf)BUF_INIT;
	ck_assert_int_eq(buf_write_file_atomic(src, "0123456789", 10, 0644), 0);
	ck_assert_ok(arc_sha256_buf(want, "0123456789", 10, &err), &err);
	ck_assert_ok(arc_writer_open(&w, out, &err), &err);
	ck_assert_ok(arc_writer_add_buf(w, "manifest.json", "{}\n", 3, 0644,
	    &err), &err);
	ck_assert_ok(arc_writer_add_file(w, "repo/x.deb", src, want, got, &size,
	    &err), &err);
	ck_assert_str_eq(got, want);
	ck_assert_int_eq(size, 10);
	/* Not there before the commit: only the part file is. */
	ck_assert_int_ne(access(out, F_OK), 0);
	ck_assert_ok(arc_writer_commit(w, &err), &err);
	arc_writer_free(w);
	ck_assert_int_eq(access(out, F_OK), 0);

	/* zstd magic: 28 b5 2f fd */
	ck_assert_int_eq(buf_read_file(&b, out), 0);
	ck_assert_uint_ge(b.len, 4);
	ck_assert_int_eq((unsigned char)b.buf[0], 0x28);
	ck_assert_int_eq((unsigned char)b.buf[1], 0xb5);
	ck_assert_int_eq((unsigned char)b.buf[2], 0x2f);
	ck_assert_int_eq((unsigned char)b.buf[3], 0xfd);

	ck_assert_ok(arc_scan(out, keep, 1024, test_arc_collect, &seen, &err),
	    &err);
	ck_assert_uint_eq(seen.n, 2);
	ck_assert_str_eq(seen.names[0], "manifest.json");
	ck_assert(seen.kept[0]);
	ck_assert_str_eq(seen.data.buf, "{}\n");
	ck_assert_str_eq(seen.names[1], "repo/x.deb");
	ck_assert(!seen.kept[1]);
	ck_assert_str_eq(seen.sha[1], want);
	ck_assert_int_eq(seen.size[1], 10);
	ck_assert_ok(arc_sha256_buf(h, "{}\n", 3, &err), &err);
	ck_assert_str_eq(seen.sha[0], h);

	buf_release(&b);
	buf_release(&seen.data);
	prov_err_release(&err);
	free(src);
	free(out);
	test_arc_rmdir(dir);
}
END_TEST

START_TEST(test_arc_write_refuses_corrupt)
{
	struct arc_writer	*w = NULL;
	struct prov_err		 err = PROV_ERR_INIT;
	char			*dir = test_arc_tmpdir();
	char			*src = xasprintf("%s/src.bin", dir);
	char			*out = xasprintf("%s/out.tar.zst", dir);
	char			*ls = xasprintf("ls -A '%s' | "
				    "grep -v '^src.bin$'", dir);
	char			 want[ARC_SHA256_HEX];

	ck_assert_int_eq(buf_write_file_atomic(src, "corrupt", 7, 0644), 0);
	ck_assert_ok(arc_sha256_buf(want, "original", 8, &err), &err);
	ck_assert_ok(arc_writer_open(&w, out, &err), &err);
	ck_assert_int_eq(arc_writer_add_file(w, "x.deb", src, want, NULL, NULL,
	    &err), -1);
	ck_assert_ptr_nonnull(strstr(err.msg, "not packed"));
	prov_err_release(&err);
	ck_assert_int_eq(arc_writer_commit(w, &err), -1);
	arc_writer_free(w);
	ck_assert_int_ne(access(out, F_OK), 0);
	/* nor its temporary file: grep finds no other name */
	ck_assert_int_ne(system(ls), 0);
	prov_err_release(&err);
	free(src);
	free(out);
	free(ls);
	test_arc_rmdir(dir);
}
END_TEST

START_TEST(test_arc_extract)
{
	struct arc_writer	*w = NULL;
	struct prov_err		 err = PROV_ERR_INIT;
	struct buf		 b = BUF_INIT;
	char			*dir = test_arc_tmpdir();
	char			*out = xasprintf("%s/img.tar.zst", dir);
	char			*d1 = xasprintf("%s/kernel", dir);
	char			*d2 = xasprintf("%s/nothere", dir);
	struct arc_pick		 picks[2];
	char			 want[ARC_SHA256_HEX];

	ck_assert_ok(arc_writer_open(&w, out, &err), &err);
	ck_assert_ok(arc_writer_add_buf(w, "./CASPER/VMLINUZ", "kernel!", 7,
	    0644, &err), &err);
	ck_assert_ok(arc_writer_add_buf(w, "casper/other", "x", 1, 0644, &err),
	    &err);
	ck_assert_ok(arc_writer_commit(w, &err), &err);
	arc_writer_free(w);
	memset(picks, 0, sizeof picks);
	picks[0].member = "casper/vmlinuz";
	picks[0].dest = d1;
	picks[1].member = "/casper/initrd";
	picks[1].dest = d2;
	ck_assert_ok(arc_extract(out, picks, 2, &err), &err);
	ck_assert(picks[0].found);
	ck_assert(!picks[1].found);
	ck_assert_int_eq(picks[0].size, 7);
	ck_assert_ok(arc_sha256_buf(want, "kernel!", 7, &err), &err);
	ck_assert_str_eq(picks[0].sha256, want);
	ck_assert_int_eq(buf_read_file(&b, d1), 0);
	ck_assert_str_eq(b.buf, "kernel!");
	ck_assert_int_ne(access(d2, F_OK), 0);
	/* Not an archive. */
	ck_assert_int_eq(arc_extract(d1, picks, 1, &err), -1);
	ck_assert_ptr_nonnull(strstr(err.msg, "cannot read"));
	buf_release(&b);
	prov_err_release(&err);
	free(out);
	free(d1);
	free(d2);
	test_arc_rmdir(dir);
}
END_TEST

/* A .deb made here with libarchive: ar of debian-binary + control.tar.gz. */
static void
test_arc_make_deb(const char *path, const char *control)
{
	struct archive		*t = archive_write_new(), *a = archive_write_new();
	struct archive_entry	*e;
	char			*ctl = xmalloc(65536);
	size_t			 used = 0;

	archive_write_add_filter_gzip(t);
	archive_write_set_format_ustar(t);
	ck_assert_int_eq(archive_write_open_memory(t, ctl, 65536, &used),
	    ARCHIVE_OK);
	e = archive_entry_new();
	archive_entry_set_pathname(e, "./control");
	archive_entry_set_size(e, (la_int64_t)strlen(control));
	archive_entry_set_filetype(e, AE_IFREG);
	archive_entry_set_perm(e, 0644);
	archive_write_header(t, e);
	archive_write_data(t, control, strlen(control));
	archive_entry_free(e);
	archive_write_close(t);
	archive_write_free(t);

	archive_write_set_format_ar_svr4(a);
	ck_assert_int_eq(archive_write_open_filename(a, path), ARCHIVE_OK);
	e = archive_entry_new();
	archive_entry_set_pathname(e, "debian-binary");
	archive_entry_set_size(e, 4);
	archive_entry_set_filetype(e, AE_IFREG);
	archive_entry_set_perm(e, 0644);
	archive_write_header(a, e);
	archive_write_data(a, "2.0\n", 4);
	archive_entry_clear(e);
	archive_entry_set_pathname(e, "control.tar.gz");
	archive_entry_set_size(e, (la_int64_t)used);
	archive_entry_set_filetype(e, AE_IFREG);
	archive_entry_set_perm(e, 0644);
	archive_write_header(a, e);
	archive_write_data(a, ctl, used);
	archive_entry_free(e);
	archive_write_close(a);
	archive_write_free(a);
	free(ctl);
}

START_TEST(test_arc_deb_control)
{
	static const char	 control[] = "Package: munge\nVersion: 1.0\n"
				    "Architecture: amd64\n";
	struct prov_err		 err = PROV_ERR_INIT;
	struct buf		 b = BUF_INIT;
	char			*dir = test_arc_tmpdir();
	char			*deb = xasprintf("%s/munge_1.0_amd64.deb", dir);
	char			*txt = xasprintf("%s/not.deb", dir);

	test_arc_make_deb(deb, control);
	ck_assert_ok(arc_deb_control(&b, deb, &err), &err);
	ck_assert_str_eq(b.buf, control);
	buf_reset(&b);
	ck_assert_int_eq(buf_write_file_atomic(txt, "hello\n", 6, 0644), 0);
	ck_assert_int_eq(arc_deb_control(&b, txt, &err), -1);
	ck_assert_ptr_nonnull(err.msg);
	buf_release(&b);
	prov_err_release(&err);
	free(deb);
	free(txt);
	test_arc_rmdir(dir);
}
END_TEST

static Suite *
arc_suite(void)
{
	Suite	*s = suite_create("arc");
	TCase	*tc;

	tc = tcase_create("sha256");
	tcase_add_loop_test(tc, test_arc_sha256_vectors, 0,
	    (int)ARRAY_SIZE(sha_cases));
	tcase_add_test(tc, test_arc_sha256_stream_and_file);
	suite_add_tcase(s, tc);

	tc = tcase_create("writer");
	tcase_add_test(tc, test_arc_write_scan);
	tcase_add_test(tc, test_arc_write_refuses_corrupt);
	suite_add_tcase(s, tc);

	tc = tcase_create("extract");
	tcase_add_test(tc, test_arc_extract);
	tcase_add_test(tc, test_arc_deb_control);
	suite_add_tcase(s, tc);
	return s;
}

TEST_MAIN(arc_suite)

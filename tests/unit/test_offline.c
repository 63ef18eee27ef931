#include "test.h"

#include <dirent.h>
#include <sys/stat.h>

#include "arc.h"
#include "buf.h"
#include "err.h"
#include "offline.h"
#include "plan.h"
#include "strvec.h"

/*
 * Bundles made here with arc_writer, as bundle_pack() lays them out:
 * repo/ (two .debs, Packages, Release), scripts/, README, manifest.json
 * last.  Each variant breaks one thing.
 */
enum { B_GOOD, B_FLIPPED, B_UNLISTED, B_SUBDIR, B_NOPACKAGES };

struct test_member {
	const char	*name;
	struct buf	 data;
	char		 sha[ARC_SHA256_HEX];
};

#define TEST_NMEMBERS	7

struct test_bundle {
	char			*dir;
	char			*path;
	struct test_member	 m[TEST_NMEMBERS];
	struct buf		 manifest;
	char			 manifest_sha[ARC_SHA256_HEX];
};

static char *
test_offline_tmpdir(void)
{
	char	*dir = xstrdup("/tmp/test_offline.XXXXXX");

	ck_assert_ptr_nonnull(mkdtemp(dir));
	return dir;
}

static void
test_offline_rmdir(char *dir)
{
	char	*cmd = xasprintf("rm -rf '%s'", dir);

	ck_assert_int_eq(system(cmd), 0);
	free(cmd);
	free(dir);
}

/* Entries of dir other than . and .. */
static size_t
test_offline_count(const char *dir)
{
	DIR		*d = opendir(dir);
	struct dirent	*e;
	size_t		 n = 0;

	ck_assert_ptr_nonnull(d);
	while ((e = readdir(d)) != NULL)
		if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0)
			n++;
	closedir(d);
	return n;
}

static void
test_offline_make(struct test_bundle *tb, int variant)
{
	static const char *const names[TEST_NMEMBERS] = {
		"repo/a_1.0_all.deb", "repo/b_2.0-1+deb12u1_amd64.deb",
		"repo/Packages", "repo/Release", "scripts/n1/base.sh",
		"README", "repo/sub/c_1_all.deb",
	};
	struct arc_writer	*w = NULL;
	struct prov_err		 err = PROV_ERR_INIT;
	size_t			 i, k, n = TEST_NMEMBERS - 1;

	memset(tb, 0, sizeof *tb);
	tb->dir = test_offline_tmpdir();
	tb->path = xasprintf("%s/b.tar.zst", tb->dir);
	tb->manifest = (struct buf)BUF_INIT;
	if (variant == B_SUBDIR)
		n = TEST_NMEMBERS;
	for (i = 0; i < TEST_NMEMBERS; i++) {
		tb->m[i].name = names[i];
		tb->m[i].data = (struct buf)BUF_INIT;
	}
	/* A .deb of 200 KiB with every byte value, NULs included. */
	for (k = 0; k < 200 * 1024; k++)
		buf_addch(&tb->m[0].data, (int)((k * 7 + k / 251) & 0xff));
	buf_adds(&tb->m[1].data, "!<arch>\nsmall\n");
	for (i = 0; i < 2; i++) {
		ck_assert_ok(arc_sha256_buf(tb->m[i].sha, tb->m[i].data.buf,
		    tb->m[i].data.len, &err), &err);
		buf_addf(&tb->m[2].data, "Package: %c\nFilename: ./%s\n"
		    "Size: %zu\nSHA256: %s\n\n", 'a' + (int)i,
		    tb->m[i].name + 5, tb->m[i].data.len, tb->m[i].sha);
	}
	buf_adds(&tb->m[3].data, "Origin: provision\n");
	buf_adds(&tb->m[4].data, "#!/bin/sh\n");
	buf_adds(&tb->m[5].data, "read me\n");
	buf_adds(&tb->m[6].data, "nested\n");
	for (i = 0; i < TEST_NMEMBERS; i++)
		ck_assert_ok(arc_sha256_buf(tb->m[i].sha, tb->m[i].data.buf,
		    tb->m[i].data.len, &err), &err);

	buf_adds(&tb->manifest, "{\"format\": \"provision-bundle/1\", "
	    "\"cluster\": \"t\", \"os\": {\"distro\": \"debian\", "
	    "\"release\": \"12\", \"codename\": \"bookworm\", "
	    "\"arch\": \"amd64\"},\n\"artifacts\": [");
	for (i = 0; i < 2; i++)
		buf_addf(&tb->manifest, "%s{\"path\": \"%s\", \"sha256\": "
		    "\"%s\", \"size\": %zu}", i ? ", " : "", tb->m[i].name,
		    tb->m[i].sha, tb->m[i].data.len);
	buf_adds(&tb->manifest, "],\n\"files\": [");
	for (i = 2; i < n; i++) {
		if (variant == B_UNLISTED && i == 3)
			continue;
		if (variant == B_NOPACKAGES && i == 2)
			continue;
		buf_addf(&tb->manifest, "%s{\"path\": \"%s\", \"sha256\": "
		    "\"%s\", \"size\": %zu}", i > 2 &&
		    !(variant == B_NOPACKAGES && i == 3) ? ", " : "",
		    tb->m[i].name, tb->m[i].sha, tb->m[i].data.len);
	}
	buf_adds(&tb->manifest, "]}\n");
	ck_assert_ok(arc_sha256_buf(tb->manifest_sha, tb->manifest.buf,
	    tb->manifest.len, &err), &err);

	ck_assert_ok(arc_writer_open(&w, tb->path, &err), &err);
	for (i = 0; i < n; i++) {
		const struct buf	*d = &tb->m[i].data;

		if (variant == B_NOPACKAGES && i == 2)
			continue;
		if (variant == B_FLIPPED && i == 0) {
			/* same size, one byte changed: the manifest disagrees */
			struct buf	 x = BUF_INIT;

			buf_add(&x, d->buf, d->len);
			x.buf[1000] ^= 0x20;
			ck_assert_ok(arc_writer_add_buf(w, tb->m[i].name,
			    x.buf, x.len, 0644, &err), &err);
			buf_release(&x);
			continue;
		}
		ck_assert_ok(arc_writer_add_buf(w, tb->m[i].name, d->buf,
		    d->len, 0644, &err), &err);
	}
	ck_assert_ok(arc_writer_add_buf(w, "manifest.json", tb->manifest.buf,
	    tb->manifest.len, 0644, &err), &err);
	ck_assert_ok(arc_writer_commit(w, &err), &err);
	arc_writer_free(w);
	prov_err_release(&err);
}

static void
test_offline_free(struct test_bundle *tb)
{
	size_t	i;

	for (i = 0; i < TEST_NMEMBERS; i++)
		buf_release(&tb->m[i].data);
	buf_release(&tb->manifest);
	free(tb->path);
	test_offline_rmdir(tb->dir);
}

struct test_seen {
	struct strvec	 names;
	struct strvec	 sha;
	int		 bad_type;
};

static int
test_offline_collect(void *arg, const struct arc_member *m,
    struct prov_err *err)
{
	struct test_seen	*s = arg;

	(void)err;
	if (m->type != 'f') {
		s->bad_type = 1;
		return 0;
	}
	strvec_push(&s->names, m->name);
	strvec_push(&s->sha, m->sha256);
	return 0;
}

/* The tar holds repo/ exactly: same names, same bytes, nothing else. */
START_TEST(test_offline_repo_tar)
{
	struct test_bundle	 tb;
	struct offline_tar_info	 info;
	struct prov_err		 err = PROV_ERR_INIT;
	struct test_seen	 seen;
	struct buf		 raw = BUF_INIT, got = BUF_INIT;
	char			 id[OFFLINE_ID_LEN + 1];
	char			*out, *x, *cmd, *p;
	size_t			 i;

	test_offline_make(&tb, B_GOOD);
	out = xasprintf("%s/repo.tar", tb.dir);
	ck_assert_ok(offline_repo_tar(id, &info, tb.path, out, &err), &err);
	ck_assert_int_eq(access(out, F_OK), 0);
	p = xasprintf("%s.part", out);
	ck_assert_int_ne(access(p, F_OK), 0);
	free(p);

	/* The ID is the manifest's digest, shortened. */
	ck_assert_uint_eq(strlen(id), OFFLINE_ID_LEN);
	ck_assert_int_eq(strncmp(id, tb.manifest_sha, OFFLINE_ID_LEN), 0);
	ck_assert_uint_eq(info.members, 4);
	ck_assert_uint_eq(info.debs, 2);
	ck_assert_str_eq(info.distro, "debian");
	ck_assert_str_eq(info.release, "12");

	/* Plain tar: "ustar" at offset 257, no compression. */
	ck_assert_int_eq(buf_read_file(&raw, out), 0);
	ck_assert_int_eq(info.size, (int64_t)raw.len);
	ck_assert_uint_gt(raw.len, 200 * 1024);
	ck_assert_int_eq(memcmp(raw.buf + 257, "ustar", 5), 0);

	/* Exactly the repo/ members, in order, with their digests. */
	memset(&seen, 0, sizeof seen);
	seen.names = (struct strvec)STRVEC_INIT;
	seen.sha = (struct strvec)STRVEC_INIT;
	ck_assert_ok(arc_scan(out, NULL, 0, test_offline_collect, &seen,
	    &err), &err);
	ck_assert(!seen.bad_type);
	ck_assert_uint_eq(seen.names.n, 4);
	for (i = 0; i < 4; i++) {
		ck_assert_str_eq(seen.names.v[i], tb.m[i].name);
		ck_assert_str_eq(seen.sha.v[i], tb.m[i].sha);
	}

	/* What a node does with it: tar without zstd, byte for byte. */
	x = xasprintf("%s/x", tb.dir);
	cmd = xasprintf("mkdir '%s' && tar -xf '%s' -C '%s'", x, out, x);
	ck_assert_int_eq(system(cmd), 0);
	free(cmd);
	for (i = 0; i < 4; i++) {
		p = xasprintf("%s/%s", x, tb.m[i].name);
		buf_reset(&got);
		ck_assert_int_eq(buf_read_file(&got, p), 0);
		ck_assert_uint_eq(got.len, tb.m[i].data.len);
		ck_assert(memcmp(got.buf, tb.m[i].data.buf, got.len) == 0);
		free(p);
	}
	/* Only repo/ came out. */
	ck_assert_uint_eq(test_offline_count(x), 1);
	p = xasprintf("%s/repo", x);
	ck_assert_uint_eq(test_offline_count(p), 4);
	free(p);

	free(info.distro);
	free(info.release);
	strvec_clear(&seen.names);
	strvec_clear(&seen.sha);
	buf_release(&raw);
	buf_release(&got);
	prov_err_release(&err);
	free(x);
	free(out);
	test_offline_free(&tb);
}
END_TEST

/*
 * The conversion checks what it copies against the manifest itself (a
 * file changed after bundle_verify() read it), and refuses names that
 * are not flat repo/ files; nothing is left behind.
 */
START_TEST(test_offline_repo_tar_refuses)
{
	static const struct {
		int		 variant;
		const char	*want;
	} cases[] = {
		{ B_FLIPPED, "'repo/a_1.0_all.deb' in '%s' differs from its "
		    "manifest" },
		{ B_UNLISTED, "'repo/Release' is in '%s' but not in its "
		    "manifest" },
		{ B_SUBDIR, "'repo/sub/c_1_all.deb' in '%s': not a plain file "
		    "name under repo/" },
		{ B_NOPACKAGES, "no repo/Packages in '%s'" },
	};
	struct test_bundle	 tb;
	struct prov_err		 err = PROV_ERR_INIT;
	char			 id[OFFLINE_ID_LEN + 1];
	char			*out, *want;

	test_offline_make(&tb, cases[_i].variant);
	out = xasprintf("%s/repo.tar", tb.dir);
	ck_assert_int_eq(offline_repo_tar(id, NULL, tb.path, out, &err), -1);
	want = xasprintf(cases[_i].want, tb.path);
	ck_assert_msg(err.msg != NULL && strstr(err.msg, want) != NULL,
	    "case %d: got '%s', want '%s'", _i, err.msg, want);
	ck_assert_str_eq(id, "");
	/* b.tar.zst alone: no tar, no part file */
	ck_assert_uint_eq(test_offline_count(tb.dir), 1);
	free(want);
	free(out);
	prov_err_release(&err);
	test_offline_free(&tb);
}
END_TEST

/* prepare = verify + convert; release removes what it made. */
START_TEST(test_offline_prepare)
{
	struct test_bundle	 tb;
	struct offline_bundle	 ob = OFFLINE_BUNDLE_INIT;
	struct prov_err		 err = PROV_ERR_INIT;
	char			*work, *want;

	test_offline_make(&tb, B_GOOD);
	work = xasprintf("%s/work", tb.dir);
	ck_assert_int_eq(mkdir(work, 0700), 0);
	ck_assert_ok(offline_prepare(&ob, tb.path, work, &err), &err);
	want = xasprintf("/var/lib/provision/bundle/%.16s", tb.manifest_sha);
	ck_assert_str_eq(ob.dir, want);
	ck_assert_int_eq(strncmp(ob.id, tb.manifest_sha, 16), 0);
	ck_assert_uint_eq(ob.debs, 2);
	ck_assert_uint_eq(ob.members, 4);
	ck_assert_int_eq(access(ob.tar, R_OK), 0);
	ck_assert_int_eq(strncmp(ob.tar, work, strlen(work)), 0);
	ck_assert_uint_eq(ob.problems.n, 0);
	offline_bundle_release(&ob);
	ck_assert_uint_eq(test_offline_count(work), 0);
	offline_bundle_release(&ob);	/* twice is fine */
	free(want);
	free(work);
	prov_err_release(&err);
	test_offline_free(&tb);
}
END_TEST

/* A corrupt bundle is refused before anything is made. */
START_TEST(test_offline_prepare_corrupt)
{
	struct test_bundle	 tb;
	struct offline_bundle	 ob = OFFLINE_BUNDLE_INIT;
	struct prov_err		 err = PROV_ERR_INIT;
	struct buf		 b = BUF_INIT;
	char			*work, *trunc;

	test_offline_make(&tb, B_FLIPPED);
	work = xasprintf("%s/work", tb.dir);
	ck_assert_int_eq(mkdir(work, 0700), 0);
	ck_assert_int_eq(offline_prepare(&ob, tb.path, work, &err), -1);
	ck_assert_ptr_nonnull(strstr(err.msg, "fails verification"));
	ck_assert_ptr_nonnull(strstr(err.msg, "repo/a_1.0_all.deb"));
	ck_assert_uint_ge(ob.problems.n, 1);
	ck_assert_ptr_null(ob.tar);
	ck_assert_uint_eq(test_offline_count(work), 0);
	offline_bundle_release(&ob);
	prov_err_release(&err);

	/* Cut in the middle: unreadable, an error naming the file. */
	ck_assert_int_eq(buf_read_file(&b, tb.path), 0);
	trunc = xasprintf("%s/cut.tar.zst", tb.dir);
	ck_assert_int_eq(buf_write_file_atomic(trunc, b.buf, b.len / 2, 0644),
	    0);
	ck_assert_int_eq(offline_prepare(&ob, trunc, work, &err), -1);
	ck_assert_ptr_nonnull(strstr(err.msg, "cut.tar.zst"));
	ck_assert_uint_eq(test_offline_count(work), 0);
	offline_bundle_release(&ob);
	prov_err_release(&err);

	/* Missing. */
	ck_assert_int_eq(offline_prepare(&ob, "/nonexistent/b.tar.zst", work,
	    &err), -1);
	ck_assert_ptr_nonnull(strstr(err.msg, "/nonexistent/b.tar.zst"));
	offline_bundle_release(&ob);
	prov_err_release(&err);

	buf_release(&b);
	free(trunc);
	free(work);
	test_offline_free(&tb);
}
END_TEST

START_TEST(test_offline_check_plan)
{
	struct offline_bundle	 ob = OFFLINE_BUNDLE_INIT;
	struct plan		 p;
	struct prov_err		 err = PROV_ERR_INIT;

	memset(&p, 0, sizeof p);
	ob.distro = xstrdup("debian");
	ob.release = xstrdup("12");
	p.sw.os_distro = "debian";
	p.sw.os_release = "12";
	ck_assert_ok(offline_check_plan(&ob, &p, &err), &err);
	p.sw.os_release = "12.5";
	ck_assert_ok(offline_check_plan(&ob, &p, &err), &err);
	p.sw.os_release = "11";
	ck_assert_int_eq(offline_check_plan(&ob, &p, &err), -1);
	ck_assert_str_eq(err.msg, "the bundle is for debian 12, the plan says "
	    "debian 11");
	p.sw.os_distro = "ubuntu";
	p.sw.os_release = "22.04";
	ck_assert_int_eq(offline_check_plan(&ob, &p, &err), -1);
	prov_err_release(&err);
	offline_bundle_release(&ob);
}
END_TEST

/* The node side is POSIX sh that dash accepts. */
START_TEST(test_offline_unpack_script)
{
	char	*s = offline_unpack_script("0123456789abcdef");
	char	*dir = test_offline_tmpdir();
	char	*f = xasprintf("%s/u.sh", dir), *cmd;

	ck_assert_ptr_nonnull(strstr(s, "cd '/var/lib/provision/bundle'"));
	ck_assert_ptr_nonnull(strstr(s, "id='0123456789abcdef'"));
	ck_assert_ptr_nonnull(strstr(s, "deb [trusted=yes] file:%s/repo ./"));
	ck_assert_int_eq(buf_write_file_atomic(f, s, strlen(s), 0644), 0);
	cmd = xasprintf("sh -n '%s'", f);
	ck_assert_int_eq(system(cmd), 0);
	free(cmd);
	free(f);
	free(s);
	test_offline_rmdir(dir);
}
END_TEST

static Suite *
offline_suite(void)
{
	Suite	*s = suite_create("offline");
	TCase	*tc;

	tc = tcase_create("repo_tar");
	tcase_add_test(tc, test_offline_repo_tar);
	tcase_add_loop_test(tc, test_offline_repo_tar_refuses, 0, 4);
	suite_add_tcase(s, tc);

	tc = tcase_create("prepare");
	tcase_add_test(tc, test_offline_prepare);
	tcase_add_test(tc, test_offline_prepare_corrupt);
	tcase_add_test(tc, test_offline_check_plan);
	suite_add_tcase(s, tc);

	tc = tcase_create("node");
	tcase_add_test(tc, test_offline_unpack_script);
	suite_add_tcase(s, tc);
	return s;
}

TEST_MAIN(offline_suite)

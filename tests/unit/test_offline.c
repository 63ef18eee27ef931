#include "test.h"

#include <dirent.h>
#include <sys/stat.h>

#include "arc.h"
#include "buf.h"
#include "bundle.h"
#include "err.h"
#include "offline.h"
#include "plan.h"
#include "strvec.h"
#include "yml.h"


/* These bundles are unsigned: the tests are about their members. */
static const struct bundle_trust insecure = { NULL, 1 };

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
	ck_assert_ok(offline_bundle_tars(id, &info, tb.path, out, NULL, &err),
	    &err);
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
	/* repo/Release's digest, which the nodes a relay serves check */
	ck_assert_str_eq(tb.m[3].name, "repo/Release");
	ck_assert_str_eq(info.release_sha256, tb.m[3].sha);

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
	ck_assert_int_eq(offline_bundle_tars(id, NULL, tb.path, out, NULL,
	    &err), -1);
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
	ck_assert_ok(offline_prepare(&ob, tb.path, work, &insecure, &err), &err);
	want = xasprintf("/var/lib/provision/bundle/%.16s", tb.manifest_sha);
	ck_assert_str_eq(ob.dir, want);
	ck_assert_int_eq(strncmp(ob.id, tb.manifest_sha, 16), 0);
	ck_assert_uint_eq(ob.debs, 2);
	ck_assert_uint_eq(ob.members, 4);
	ck_assert_int_eq(access(ob.tar, R_OK), 0);
	ck_assert_int_eq(strncmp(ob.tar, work, strlen(work)), 0);
	ck_assert_uint_eq(ob.problems.n, 0);
	ck_assert_str_eq(ob.trust, "accepted unsigned because "
	    "--insecure-unsigned");
	offline_bundle_release(&ob);
	ck_assert_uint_eq(test_offline_count(work), 0);
	offline_bundle_release(&ob);	/* twice is fine */

	/* Unsigned, and nobody said that is fine: refused, nothing made. */
	ck_assert_int_eq(offline_prepare(&ob, tb.path, work, NULL, &err), -1);
	ck_assert_ptr_nonnull(strstr(err.msg, "the bundle is not signed"));
	ck_assert_ptr_null(ob.tar);
	ck_assert_uint_eq(test_offline_count(work), 0);
	offline_bundle_release(&ob);
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
	ck_assert_int_eq(offline_prepare(&ob, tb.path, work, &insecure, &err), -1);
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
	ck_assert_int_eq(offline_prepare(&ob, trunc, work, &insecure, &err), -1);
	ck_assert_ptr_nonnull(strstr(err.msg, "cut.tar.zst"));
	ck_assert_uint_eq(test_offline_count(work), 0);
	offline_bundle_release(&ob);
	prov_err_release(&err);

	/* Missing. */
	ck_assert_int_eq(offline_prepare(&ob, "/nonexistent/b.tar.zst", work,
	    &insecure, &err), -1);
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

/*
 * A bundle with container images: repo/ (one .deb, Packages) and images/
 * as bundle_pack() lays it out (oci-layout, index.json, the blobs), two
 * images sharing a layer, the second named by digest alone.  Variants
 * break one thing each.
 */
enum { I_GOOD, I_FLIPPED, I_BADNAME, I_NOBLOB, I_NOINDEX };

#define TEST_NIMG	8

struct test_ibundle {
	char			*dir;
	char			*path;
	const char		*name[TEST_NIMG];
	struct buf		 data[TEST_NIMG];
	char			 sha[TEST_NIMG][ARC_SHA256_HEX];
	struct buf		 manifest;
};

static void
test_offline_make_images(struct test_ibundle *tb, int variant)
{
	/* 0 deb, 1 Packages, 2 oci-layout, 3 index.json, 4 manifest of
	   image 1, 5 config, 6 layer (both images), 7 manifest of image 2 */
	static const char *const names[TEST_NIMG] = {
		"repo/a_1.0_all.deb", "repo/Packages", "images/oci-layout",
		"images/index.json", NULL, NULL, NULL, NULL,
	};
	struct arc_writer	*w = NULL;
	struct prov_err		 err = PROV_ERR_INIT;
	char			*bn[TEST_NIMG];
	size_t			 i, k;

	memset(tb, 0, sizeof *tb);
	memset(bn, 0, sizeof bn);
	tb->dir = test_offline_tmpdir();
	tb->path = xasprintf("%s/b.tar.zst", tb->dir);
	tb->manifest = (struct buf)BUF_INIT;
	for (i = 0; i < TEST_NIMG; i++)
		tb->data[i] = (struct buf)BUF_INIT;
	buf_adds(&tb->data[0], "!<arch>\ndeb\n");
	buf_adds(&tb->data[2], "{\"imageLayoutVersion\": \"1.0.0\"}");
	buf_adds(&tb->data[5], "{\"architecture\": \"amd64\", \"os\": "
	    "\"linux\", \"rootfs\": {\"type\": \"layers\"}}");
	for (k = 0; k < 100 * 1024; k++)
		buf_addch(&tb->data[6], (int)((k * 13 + k / 7) & 0xff));
	for (i = 5; i < 7; i++)
		ck_assert_ok(arc_sha256_buf(tb->sha[i], tb->data[i].buf,
		    tb->data[i].len, &err), &err);
	for (i = 4; i < 8; i += 3) {
		buf_addf(&tb->data[i], "{\"schemaVersion\": 2, \"config\": "
		    "{\"digest\": \"sha256:%s\"}, \"layers\": [{\"digest\": "
		    "\"sha256:%s\"}], \"n\": %zu}", tb->sha[5], tb->sha[6], i);
		ck_assert_ok(arc_sha256_buf(tb->sha[i], tb->data[i].buf,
		    tb->data[i].len, &err), &err);
	}
	buf_addf(&tb->data[3], "{\"schemaVersion\": 2, \"manifests\": ["
	    "{\"digest\": \"sha256:%s\"}, {\"digest\": \"sha256:%s\"}]}",
	    tb->sha[4], tb->sha[7]);
	buf_addf(&tb->data[1], "Package: a\nFilename: ./a_1.0_all.deb\n\n");
	for (i = 0; i < TEST_NIMG; i++) {
		if (i < 4 || i == 5 || i == 6)
			ck_assert_ok(arc_sha256_buf(tb->sha[i],
			    tb->data[i].buf, tb->data[i].len, &err), &err);
		if (names[i] != NULL)
			bn[i] = xstrdup(names[i]);
		else
			bn[i] = xasprintf("images/blobs/sha256/%s", tb->sha[i]);
		tb->name[i] = bn[i];
	}
	if (variant == I_BADNAME) {
		free(bn[2]);
		bn[2] = xstrdup("images/blobs/md5/x");
		tb->name[2] = bn[2];
	}

	buf_adds(&tb->manifest, "{\"format\": \"provision-bundle/1\", "
	    "\"os\": {\"distro\": \"debian\", \"release\": \"12\"},\n"
	    "\"images\": [");
	buf_addf(&tb->manifest, "{\"ref\": \"nvcr.io/nvidia/k8s/x:1.2\", "
	    "\"digest\": \"sha256:%s\", \"blobs\": [\"sha256:%s\", "
	    "\"sha256:%s\"]}, ", tb->sha[4], tb->sha[5], tb->sha[6]);
	buf_addf(&tb->manifest, "{\"ref\": "
	    "\"registry.k8s.io/pause@sha256:%s\", "
	    "\"digest\": \"sha256:%s\", \"blobs\": [\"sha256:%s\", "
	    "\"sha256:%s\"]}", tb->sha[7], tb->sha[7], tb->sha[5],
	    variant == I_NOBLOB ? "0123456789abcdef0123456789abcdef"
	    "0123456789abcdef0123456789abcdef" : tb->sha[6]);
	buf_addf(&tb->manifest, "],\n\"artifacts\": [{\"path\": \"%s\", "
	    "\"sha256\": \"%s\", \"size\": %zu}],\n\"files\": [", tb->name[0],
	    tb->sha[0], tb->data[0].len);
	for (i = 1; i < TEST_NIMG; i++) {
		if (variant == I_NOINDEX && i == 3)
			continue;
		buf_addf(&tb->manifest, "%s{\"path\": \"%s\", \"sha256\": "
		    "\"%s\", \"size\": %zu}", i > 1 ? ", " : "", tb->name[i],
		    tb->sha[i], tb->data[i].len);
	}
	buf_adds(&tb->manifest, "]}\n");

	ck_assert_ok(arc_writer_open(&w, tb->path, &err), &err);
	for (i = 0; i < TEST_NIMG; i++) {
		struct buf	x = BUF_INIT;

		if (variant == I_NOINDEX && i == 3)
			continue;
		buf_add(&x, tb->data[i].buf, tb->data[i].len);
		if (variant == I_FLIPPED && i == 6)
			x.buf[5000] ^= 0x01;
		ck_assert_ok(arc_writer_add_buf(w, tb->name[i], x.buf, x.len,
		    0644, &err), &err);
		buf_release(&x);
	}
	ck_assert_ok(arc_writer_add_buf(w, "manifest.json", tb->manifest.buf,
	    tb->manifest.len, 0644, &err), &err);
	ck_assert_ok(arc_writer_commit(w, &err), &err);
	arc_writer_free(w);
	prov_err_release(&err);	/* tb->name owns bn's strings */
}

static void
test_offline_free_images(struct test_ibundle *tb)
{
	size_t	i;

	for (i = 0; i < TEST_NIMG; i++) {
		buf_release(&tb->data[i]);
		free((char *)tb->name[i]);
	}
	buf_release(&tb->manifest);
	free(tb->path);
	test_offline_rmdir(tb->dir);
}

/*
 * The images tar: the OCI layout at its root, byte for byte, then a
 * docker-save manifest.json and the list, and what containerd and docker
 * need of them; repo/'s tar stays as it was.
 */
START_TEST(test_offline_images_tar)
{
	struct test_ibundle	 tb;
	struct offline_tar_info	 info;
	struct prov_err		 err = PROV_ERR_INIT;
	struct prov_errs	 errs = PROV_ERRS_INIT;
	struct test_seen	 seen;
	struct yml_doc		 doc;
	struct buf		 got = BUF_INIT, want = BUF_INIT;
	const struct yml_node	*e, *n;
	char			 id[OFFLINE_ID_LEN + 1];
	char			*out, *img, *x, *cmd, *p;
	size_t			 i;

	yml_doc_init(&doc);
	test_offline_make_images(&tb, I_GOOD);
	out = xasprintf("%s/repo.tar", tb.dir);
	img = xasprintf("%s/images.tar", tb.dir);
	ck_assert_ok(offline_bundle_tars(id, &info, tb.path, out, img, &err),
	    &err);
	ck_assert_uint_eq(info.members, 2);
	ck_assert_uint_eq(info.images, 2);
	p = xasprintf("%s.part", img);
	ck_assert_int_ne(access(p, F_OK), 0);
	free(p);

	memset(&seen, 0, sizeof seen);
	seen.names = (struct strvec)STRVEC_INIT;
	seen.sha = (struct strvec)STRVEC_INIT;
	ck_assert_ok(arc_scan(out, NULL, 0, test_offline_collect, &seen,
	    &err), &err);
	ck_assert_uint_eq(seen.names.n, 2);
	ck_assert_str_eq(seen.names.v[0], "repo/a_1.0_all.deb");
	strvec_clear(&seen.names);
	strvec_clear(&seen.sha);
	ck_assert_ok(arc_scan(img, NULL, 0, test_offline_collect, &seen,
	    &err), &err);
	ck_assert(!seen.bad_type);
	/* the layout's 6 members, renamed to the root, then the two made */
	ck_assert_uint_eq(seen.names.n, 8);
	for (i = 2; i < TEST_NIMG; i++) {
		ck_assert_str_eq(seen.names.v[i - 2], tb.name[i] + 7);
		ck_assert_str_eq(seen.sha.v[i - 2], tb.sha[i]);
	}
	ck_assert_str_eq(seen.names.v[6], "manifest.json");
	ck_assert_str_eq(seen.names.v[7], OFFLINE_IMAGES_LIST);
	/* plain tar */
	ck_assert_int_eq(buf_read_file(&got, img), 0);
	ck_assert_int_eq(info.images_size, (int64_t)got.len);
	ck_assert_int_eq(memcmp(got.buf + 257, "ustar", 5), 0);
	/* The same bundle, a second later, gives the same tar byte for byte:
	   nodes check the relay's copy against the digest of this one. */
	sleep(1);
	p = xasprintf("%s/again.tar", tb.dir);
	x = xasprintf("%s/again-repo.tar", tb.dir);
	free(info.distro);
	free(info.release);
	ck_assert_ok(offline_bundle_tars(id, &info, tb.path, x, p, &err),
	    &err);
	ck_assert_int_eq(buf_read_file(&want, p), 0);
	ck_assert_uint_eq(want.len, got.len);
	ck_assert(memcmp(want.buf, got.buf, got.len) == 0);
	buf_reset(&want);
	free(x);
	free(p);

	/* Unpacked as docker load does: every path of manifest.json is a
	   file there, the tag kept, the digest-only image untagged. */
	x = xasprintf("%s/x", tb.dir);
	cmd = xasprintf("mkdir '%s' && tar -xf '%s' -C '%s'", x, img, x);
	ck_assert_int_eq(system(cmd), 0);
	free(cmd);
	p = xasprintf("%s/manifest.json", x);
	buf_reset(&got);
	ck_assert_int_eq(buf_read_file(&got, p), 0);
	free(p);
	ck_assert_int_eq(yml_load(&doc, "manifest.json", got.buf, got.len,
	    &errs), 0);
	ck_assert_uint_eq(errs.n, 0);
	ck_assert_int_eq(doc.root->kind, YML_SEQ);
	ck_assert_uint_eq(doc.root->n, 2);
	for (i = 0; i < 2; i++) {
		e = doc.root->u.items[i];
		n = yml_map_get(e, "Config");
		ck_assert_ptr_nonnull(n);
		p = xasprintf("blobs/sha256/%s", tb.sha[5]);
		ck_assert_str_eq(n->u.s, p);
		free(p);
		n = yml_map_get(e, "Layers");
		ck_assert_int_eq(n->kind, YML_SEQ);
		ck_assert_uint_eq(n->n, 1);
		p = xasprintf("%s/%s", x, n->u.items[0]->u.s);
		buf_reset(&want);
		ck_assert_int_eq(buf_read_file(&want, p), 0);
		ck_assert_uint_eq(want.len, tb.data[6].len);
		ck_assert(memcmp(want.buf, tb.data[6].buf, want.len) == 0);
		free(p);
		n = yml_map_get(e, "RepoTags");
		ck_assert_int_eq(n->kind, YML_SEQ);
		if (i == 0) {
			ck_assert_uint_eq(n->n, 1);
			ck_assert_str_eq(n->u.items[0]->u.s,
			    "nvcr.io/nvidia/k8s/x:1.2");
		} else
			ck_assert_uint_eq(n->n, 0);
	}
	/* OCI layout for ctr: index.json and oci-layout at the root */
	p = xasprintf("%s/index.json", x);
	ck_assert_int_eq(access(p, R_OK), 0);
	free(p);
	p = xasprintf("%s/oci-layout", x);
	ck_assert_int_eq(access(p, R_OK), 0);
	free(p);
	p = xasprintf("%s/%s", x, OFFLINE_IMAGES_LIST);
	buf_reset(&got);
	ck_assert_int_eq(buf_read_file(&got, p), 0);
	free(p);
	buf_reset(&want);
	buf_addf(&want, "nvcr.io/nvidia/k8s/x:1.2 sha256:%s sha256:%s\n"
	    "registry.k8s.io/pause@sha256:%s sha256:%s sha256:%s\n",
	    tb.sha[4], tb.sha[5], tb.sha[7], tb.sha[7], tb.sha[5]);
	ck_assert_str_eq(got.buf, want.buf);

	free(info.distro);
	free(info.release);
	yml_doc_release(&doc);
	prov_errs_release(&errs);
	strvec_clear(&seen.names);
	strvec_clear(&seen.sha);
	buf_release(&got);
	buf_release(&want);
	prov_err_release(&err);
	free(x);
	free(img);
	free(out);
	test_offline_free_images(&tb);
}
END_TEST

/* A bundle without images/ makes no images tar; repo/'s is the same. */
START_TEST(test_offline_images_none)
{
	struct test_bundle	 tb;
	struct offline_tar_info	 info;
	struct prov_err		 err = PROV_ERR_INIT;
	char			 id[OFFLINE_ID_LEN + 1];
	char			*out, *img;

	test_offline_make(&tb, B_GOOD);
	out = xasprintf("%s/repo.tar", tb.dir);
	img = xasprintf("%s/images.tar", tb.dir);
	ck_assert_ok(offline_bundle_tars(id, &info, tb.path, out, img, &err),
	    &err);
	ck_assert_uint_eq(info.images, 0);
	ck_assert_uint_eq(info.members, 4);
	ck_assert_int_ne(access(img, F_OK), 0);
	/* b.tar.zst and repo.tar: no images tar, no part file */
	ck_assert_uint_eq(test_offline_count(tb.dir), 2);
	free(info.distro);
	free(info.release);
	free(img);
	free(out);
	prov_err_release(&err);
	test_offline_free(&tb);
}
END_TEST

START_TEST(test_offline_images_refuses)
{
	static const struct {
		int		 variant;
		const char	*want;
	} cases[] = {
		{ I_FLIPPED, "' in '%s' differs from its manifest" },
		{ I_BADNAME, "'images/blobs/md5/x' in '%s': not a member of an "
		    "OCI image layout" },
		{ I_NOBLOB, "image 'registry.k8s.io/pause@sha256:" },
		{ I_NOINDEX, "images/ of '%s' is no OCI image layout" },
	};
	struct test_ibundle	 tb;
	struct prov_err		 err = PROV_ERR_INIT;
	char			 id[OFFLINE_ID_LEN + 1];
	char			*out, *img, *want;

	test_offline_make_images(&tb, cases[_i].variant);
	out = xasprintf("%s/repo.tar", tb.dir);
	img = xasprintf("%s/images.tar", tb.dir);
	ck_assert_int_eq(offline_bundle_tars(id, NULL, tb.path, out, img,
	    &err), -1);
	want = strstr(cases[_i].want, "%s") != NULL ?
	    xasprintf(cases[_i].want, tb.path) : xstrdup(cases[_i].want);
	ck_assert_msg(err.msg != NULL && strstr(err.msg, want) != NULL,
	    "case %d: got '%s', want '%s'", _i, err.msg, want);
	ck_assert_str_eq(id, "");
	/* b.tar.zst alone: neither tar, no part file */
	ck_assert_uint_eq(test_offline_count(tb.dir), 1);
	free(want);
	free(img);
	free(out);
	prov_err_release(&err);
	test_offline_free_images(&tb);
}
END_TEST

/* Which nodes get the images: a container engine runs there. */
START_TEST(test_offline_needs_images)
{
	static const struct {
		const char	*runtime, *orchestrator;
		int		 want;
	} cases[] = {
		{ "containerd", "none", 1 },
		{ "docker", "slurm", 1 },
		{ "apptainer", "slurm", 0 },
		{ "none", "slurm", 0 },
		{ NULL, NULL, 0 },
		{ "containerd", "kubernetes", 1 },
		{ NULL, "kubernetes", 1 },
	};
	struct plan	p;
	size_t		i;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		memset(&p, 0, sizeof p);
		p.sw.runtime = (char *)cases[i].runtime;
		p.sw.orchestrator = (char *)cases[i].orchestrator;
		ck_assert_msg(offline_plan_needs_images(&p) ==
		    cases[i].want, "case %zu", i);
	}
}
END_TEST

/*
 * The node's images script, run for real in a folder standing for
 * OFFLINE_NODE_DIR: it needs a complete ID/, moves the tar into
 * ID/images/ with the list beside it in one rename, and a second run
 * answers present and drops a stray upload.
 */
START_TEST(test_offline_images_script)
{
	char		*s = offline_images_script("0123456789abcdef");
	char		*dir = test_offline_tmpdir();
	char		*f = xasprintf("%s/i.sh", dir), *cmd, *p;
	struct buf	 b = BUF_INIT, o = BUF_INIT;
	const char	*at;

	ck_assert_ptr_nonnull(strstr(s, "cd '/var/lib/provision/bundle'"));
	/* the same script, in dir */
	at = strstr(s, "/var/lib/provision/bundle");
	buf_add(&b, s, (size_t)(at - s));
	buf_adds(&b, dir);
	buf_adds(&b, at + strlen("/var/lib/provision/bundle"));
	ck_assert_int_eq(buf_write_file_atomic(f, b.buf, b.len, 0644), 0);

	/* ID/ not complete: refused, the upload left alone */
	cmd = xasprintf("cd '%s' && mkdir -p l 0123456789abcdef && "
	    "printf 'r sha256:a sha256:b\\n' >l/%s && echo blob >l/index.json "
	    "&& tar -cf 0123456789abcdef.images.tar -C l %s index.json && "
	    "! sh i.sh >out 2>err && grep -q 'is not complete' err && "
	    "test -f 0123456789abcdef.images.tar", dir, OFFLINE_IMAGES_LIST,
	    OFFLINE_IMAGES_LIST);
	ck_assert_int_eq(system(cmd), 0);
	free(cmd);
	cmd = xasprintf("cd '%s' && : >0123456789abcdef/.complete && "
	    "sh i.sh >out && test \"$(cat out)\" = unpacked && "
	    "test ! -e 0123456789abcdef.images.tar && "
	    "test ! -e 0123456789abcdef/images.tmp && "
	    "test -f 0123456789abcdef/images/.complete && "
	    "tar -tf 0123456789abcdef/images/images.tar | grep -q index.json "
	    "&& test \"$(cat 0123456789abcdef/images/images.list)\" = "
	    "'r sha256:a sha256:b' && "
	    "test ! -e 0123456789abcdef/images/%s && "
	    "tar -cf 0123456789abcdef.images.tar -C l %s index.json && "
	    "sh i.sh >out && test \"$(cat out)\" = present && "
	    "test ! -e 0123456789abcdef.images.tar", dir, OFFLINE_IMAGES_LIST,
	    OFFLINE_IMAGES_LIST);
	ck_assert_int_eq(system(cmd), 0);
	free(cmd);
	/* a tar without the list: refused, nothing half made */
	cmd = xasprintf("cd '%s' && rm -rf 0123456789abcdef/images && "
	    "rm l/%s && tar -cf 0123456789abcdef.images.tar -C l index.json && "
	    "! sh i.sh >out 2>err && grep -q 'has no %s' err && "
	    "test ! -e 0123456789abcdef/images && "
	    "test ! -e 0123456789abcdef/images.tmp", dir, OFFLINE_IMAGES_LIST,
	    OFFLINE_IMAGES_LIST);
	ck_assert_int_eq(system(cmd), 0);
	free(cmd);
	p = xasprintf("%s/out", dir);
	(void)buf_read_file(&o, p);
	free(p);
	buf_release(&o);
	buf_release(&b);
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

	tc = tcase_create("images");
	tcase_add_test(tc, test_offline_images_tar);
	tcase_add_test(tc, test_offline_images_none);
	tcase_add_loop_test(tc, test_offline_images_refuses, 0, 4);
	tcase_add_test(tc, test_offline_needs_images);
	suite_add_tcase(s, tc);

	tc = tcase_create("node");
	tcase_add_test(tc, test_offline_unpack_script);
	tcase_add_test(tc, test_offline_images_script);
	suite_add_tcase(s, tc);
	return s;
}

TEST_MAIN(offline_suite)

#include "test.h"

#include "arc.h"
#include "buf.h"
#include "bundle.h"
#include "err.h"
#include "plan.h"
#include "strvec.h"
#include "yml.h"

/* apt's --print-uris lines. */

START_TEST(test_bundle_parse_uris)
{
	static const char	 text[] =
	    "'http://deb.debian.org/debian/pool/main/s/slurm-wlm/slurmd_22.05.8"
	    "-4%2bdeb12u3_amd64.deb' slurmd_22.05.8-4+deb12u3_amd64.deb 1234 "
	    "MD5Sum:0ee156348116594f97889b354e0f104f\n"
	    "'file:/srv/repo/./libfoo_2.0~rc1-1_all.deb' "
	    "libfoo_1%3a2.0~rc1-1_all.deb 640 SHA256:abcd\n"
	    "\n"
	    "Some other line apt printed\n";
	struct bundle		 b = BUNDLE_INIT;
	struct prov_err		 err = PROV_ERR_INIT;

	ck_assert_ok(bundle_parse_uris(&b, text, &err), &err);
	ck_assert_uint_eq(b.n, 2);
	ck_assert_str_eq(b.items[0].name, "slurmd");
	ck_assert_str_eq(b.items[0].version, "22.05.8-4+deb12u3");
	ck_assert_str_eq(b.items[0].arch, "amd64");
	ck_assert_str_eq(b.items[0].filename,
	    "slurmd_22.05.8-4+deb12u3_amd64.deb");
	ck_assert_int_eq(b.items[0].size, 1234);
	ck_assert_str_eq(b.items[1].name, "libfoo");
	ck_assert_str_eq(b.items[1].version, "1:2.0~rc1-1");
	ck_assert_str_eq(b.items[1].arch, "all");
	ck_assert_str_eq(b.items[1].url,
	    "file:/srv/repo/./libfoo_2.0~rc1-1_all.deb");
	/* The pool's name (no epoch), not apt's local one. */
	ck_assert_str_eq(b.items[1].filename, "libfoo_2.0~rc1-1_all.deb");
	bundle_release(&b);
	prov_err_release(&err);
}
END_TEST

static const char *const bad_uris[] = {
	"'http://x/a.deb' a.deb 12\n",			/* no name_version_arch */
	"'http://x/a_1_amd64.deb a_1_amd64.deb 12\n",	/* unterminated quote */
	"'http://x/a_1_amd64.deb' a_1_amd64.deb twelve\n",
	"'http://x/..%2f..%2fetc_1_amd64.deb' a_1_amd64.deb 12\n",
	"'http://x/a_1_amd64.deb' a_1_amd64.deb\n",
};

START_TEST(test_bundle_parse_uris_bad)
{
	struct bundle	b = BUNDLE_INIT;
	struct prov_err	err = PROV_ERR_INIT;

	ck_assert_int_eq(bundle_parse_uris(&b, bad_uris[_i], &err), -1);
	ck_assert_ptr_nonnull(err.msg);
	bundle_release(&b);
	prov_err_release(&err);
}
END_TEST

/* Index stanzas. */

static const char index_text[] =
    "Package: slurmd\n"
    "Version: 22.05.8-4+deb12u3\n"
    "Architecture: amd64\n"
    "Depends: slurm-common (= 22.05.8-4+deb12u3),\n"
    " libc6 (>= 2.34)\n"
    "Filename: pool/main/s/slurm-wlm/slurmd_22.05.8-4+deb12u3_amd64.deb\n"
    "Size: 1234\n"
    "SHA256: ABCDEF0123456789abcdef0123456789abcdef0123456789abcdef0123456789\n"
    "\n"
    "Package: unrelated\n"
    "Version: 1\n"
    "Filename: pool/u/unrelated_1_amd64.deb\n"
    "Size: 1\n"
    "SHA256: 1111111111111111111111111111111111111111111111111111111111111111\n";

START_TEST(test_bundle_field)
{
	char	*v;

	v = bundle_field(index_text, strlen(index_text), "Version");
	ck_assert_str_eq(v, "22.05.8-4+deb12u3");
	free(v);
	v = bundle_field(index_text, strlen(index_text), "depends");
	ck_assert_str_eq(v, "slurm-common (= 22.05.8-4+deb12u3),");
	free(v);
	ck_assert_ptr_null(bundle_field(index_text, strlen(index_text), "Nope"));
	/* "Package" must not match "Packages:" */
	ck_assert_ptr_null(bundle_field("Packages: x\n", 12, "Package"));
}
END_TEST

static void
test_bundle_one_item(struct bundle *b, int64_t size)
{
	ALLOC_GROW(b->items, 1, b->alloc);
	memset(&b->items[0], 0, sizeof b->items[0]);
	b->items[0].name = xstrdup("slurmd");
	b->items[0].version = xstrdup("x");
	b->items[0].arch = xstrdup("amd64");
	b->items[0].filename = xstrdup("slurmd_22.05.8-4+deb12u3_amd64.deb");
	b->items[0].url = xstrdup("http://x/slurmd.deb");
	b->items[0].size = size;
	b->n = 1;
}

START_TEST(test_bundle_parse_index)
{
	struct bundle	b = BUNDLE_INIT;
	struct prov_err	err = PROV_ERR_INIT;

	test_bundle_one_item(&b, 1234);
	ck_assert_ok(bundle_parse_index(&b, index_text, &err), &err);
	ck_assert_str_eq(b.items[0].sha256, "abcdef0123456789abcdef0123456789"
	    "abcdef0123456789abcdef0123456789");
	ck_assert_str_eq(b.items[0].version, "22.05.8-4+deb12u3");
	bundle_release(&b);

	/* The index and apt disagree on the size. */
	test_bundle_one_item(&b, 999);
	ck_assert_int_eq(bundle_parse_index(&b, index_text, &err), -1);
	ck_assert_ptr_nonnull(strstr(err.msg, "1234 bytes"));
	bundle_release(&b);
	prov_err_release(&err);
}
END_TEST

START_TEST(test_bundle_parse_index_conflict)
{
	struct bundle	 b = BUNDLE_INIT;
	struct prov_err	 err = PROV_ERR_INIT;
	struct buf	 t = BUF_INIT;

	buf_adds(&t, index_text);
	buf_adds(&t, "\nPackage: slurmd\nFilename: other/slurmd_22.05.8-4+"
	    "deb12u3_amd64.deb\nSize: 1234\nSHA256: 2222222222222222222222222"
	    "222222222222222222222222222222222222222\n");
	test_bundle_one_item(&b, 1234);
	ck_assert_int_eq(bundle_parse_index(&b, t.buf, &err), -1);
	ck_assert_ptr_nonnull(strstr(err.msg, "disagree"));
	bundle_release(&b);
	buf_release(&t);
	prov_err_release(&err);
}
END_TEST

START_TEST(test_bundle_names)
{
	char	*s;

	ck_assert(bundle_filename_ok("libfoo_1.0~rc1+b2_amd64.deb"));
	ck_assert(!bundle_filename_ok("../x.deb"));
	ck_assert(!bundle_filename_ok(".x.deb"));
	ck_assert(!bundle_filename_ok("a/b.deb"));
	ck_assert(!bundle_filename_ok("a:b.deb"));
	ck_assert(!bundle_filename_ok(""));
	s = bundle_unescape("a%3Ab%2bc");
	ck_assert_str_eq(s, "a:b+c");
	free(s);
	ck_assert_ptr_null(bundle_unescape("a%3"));
	ck_assert_ptr_null(bundle_unescape("a%zz"));
}
END_TEST

/* What a plan asks for. */

static struct plan *
test_bundle_plan(const char *software)
{
	struct plan		*p = NULL;
	struct plan_opts	 o = PLAN_OPTS_INIT;
	struct prov_errs	 errs = PROV_ERRS_INIT;
	char			*dir = test_path("profiles");
	char			*y = xasprintf(
	    "version: 1\n"
	    "cluster: { name: t }\n"
	    "networks: { m: { cidr: 10.1.0.0/16, kind: ethernet, gbps: 1 } }\n"
	    "nodes:\n"
	    "  - { name: h, role: head, address: 10.1.0.1 }\n"
	    "software: %s\n", software);

	o.builtin_dir = dir;
	if (plan_load_buf(&p, "t.yaml", y, strlen(y), &o, &errs) != 0) {
		prov_errs_print(&errs, stderr);
		ck_abort_msg("plan did not load");
	}
	prov_errs_release(&errs);
	free(y);
	free(dir);
	return p;
}

START_TEST(test_bundle_plan_wants)
{
	struct plan		*p = test_bundle_plan("{ os: { distro: ubuntu, "
	    "release: \"22.04\" }, gpu_driver: { branch: \"550\", cuda: \"12.4\" },"
	    " container_runtime: { engine: containerd, nvidia_toolkit: true },"
	    " orchestrator: { kind: slurm }, monitoring: { node_exporter: true,"
	    " dcgm_exporter: true, prometheus: h }, extras: [ htop ] }");
	struct bundle		 b = BUNDLE_INIT;
	struct bundle_opts	 o = BUNDLE_OPTS_INIT;
	struct strvec		 src = STRVEC_INIT, pk = STRVEC_INIT;
	struct prov_err		 err = PROV_ERR_INIT;
	static const char *const want[] = {
		"chrony", "munge", "slurmctld", "slurmd", "slurm-client",
		"containerd", "nvidia-container-toolkit",
		"nvidia-driver-550-server", "nvidia-utils-550-server",
		"cuda-toolkit-12-4", "prometheus-node-exporter", "prometheus",
		"datacenter-gpu-manager", "htop", "jq", NULL
	};
	size_t			 i;

	strvec_push(&src, "deb [trusted=yes] http://127.0.0.1/ ./");
	strvec_push(&pk, "jq");
	o.sources = &src;
	o.packages = &pk;
	ck_assert_ok(bundle_plan(&b, p, &o, &err), &err);
	for (i = 0; want[i] != NULL; i++)
		ck_assert_msg(strvec_find(&b.wanted, want[i]) >= 0, "'%s' not "
		    "wanted", want[i]);
	ck_assert_uint_eq(b.wanted.n, b.why.n);
	ck_assert_str_eq(b.codename, "jammy");
	ck_assert_uint_eq(b.sources.n, 1);
	ck_assert_uint_eq(b.images.n, 1);
	bundle_release(&b);

	/* One bad source line is refused. */
	strvec_push(&src, "deb http://x/ ./\ndeb http://evil/ ./");
	ck_assert_int_eq(bundle_plan(&b, p, &o, &err), -1);
	bundle_release(&b);
	strvec_clear(&src);
	strvec_clear(&pk);
	plan_free(p);
	prov_err_release(&err);
}
END_TEST

START_TEST(test_bundle_plan_rocky)
{
	struct plan		*p = test_bundle_plan("{ os: { distro: rocky, "
	    "release: \"9\" } }");
	struct bundle		 b = BUNDLE_INIT;
	struct bundle_opts	 o = BUNDLE_OPTS_INIT;
	struct prov_err		 err = PROV_ERR_INIT;

	ck_assert_int_eq(bundle_plan(&b, p, &o, &err), -1);
	ck_assert_ptr_nonnull(strstr(err.msg, "not Debian or Ubuntu"));
	bundle_release(&b);
	plan_free(p);
	prov_err_release(&err);
}
END_TEST

/* The manifest is JSON our YAML reader takes back. */

START_TEST(test_bundle_manifest_json)
{
	struct bundle		 b = BUNDLE_INIT;
	struct bundle_file	 f;
	struct buf		 m = BUF_INIT;
	struct yml_doc		 doc;
	struct prov_errs	 errs = PROV_ERRS_INIT;
	struct yml_node		*a, *e;

	test_bundle_one_item(&b, 1234);
	b.items[0].sha256 = xstrdup("ab");
	b.cluster = xstrdup("c\"q");
	b.distro = xstrdup("debian");
	strvec_push(&b.wanted, "slurmd");
	strvec_push(&b.why, "slurm");
	memset(&f, 0, sizeof f);
	f.path = (char *)"repo/Packages";
	snprintf(f.sha256, sizeof f.sha256, "cd");
	f.size = 7;
	bundle_manifest(&m, &b, &f, 1);
	yml_doc_init(&doc);
	ck_assert_int_eq(yml_load(&doc, "m.json", m.buf, m.len, &errs), 0);
	ck_assert_uint_eq(errs.n, 0);
	ck_assert_str_eq(yml_map_get(doc.root, "cluster")->u.s, "c\"q");
	a = yml_map_get(doc.root, "artifacts");
	ck_assert_uint_eq(a->n, 1);
	e = a->u.items[0];
	ck_assert_str_eq(yml_map_get(e, "path")->u.s,
	    "repo/slurmd_22.05.8-4+deb12u3_amd64.deb");
	ck_assert_str_eq(yml_map_get(e, "size")->u.s, "1234");
	ck_assert_str_eq(yml_map_get(e, "url")->u.s, "http://x/slurmd.deb");
	a = yml_map_get(doc.root, "files");
	ck_assert_str_eq(yml_map_get(a->u.items[0], "sha256")->u.s, "cd");
	yml_doc_release(&doc);
	prov_errs_release(&errs);
	buf_release(&m);
	bundle_release(&b);
}
END_TEST

/* Verify: an archive made here, then broken in each way we know. */

enum { V_GOOD, V_EXTRA, V_MISSING, V_BADSHA, V_BADPKG, V_NOMANIFEST,
    V_DUP };

START_TEST(test_bundle_verify)
{
	struct arc_writer	*w = NULL;
	struct prov_err		 err = PROV_ERR_INIT;
	struct bundle_check	 chk = BUNDLE_CHECK_INIT;
	struct buf		 man = BUF_INIT, pkgs = BUF_INIT;
	char			*dir = xstrdup("/tmp/test_bundle.XXXXXX");
	char			*out, *cmd;
	char			 hdeb[ARC_SHA256_HEX], hpk[ARC_SHA256_HEX];
	const char		*deb = "not really a deb";

	ck_assert_ptr_nonnull(mkdtemp(dir));
	out = xasprintf("%s/b.tar.zst", dir);
	ck_assert_ok(arc_sha256_buf(hdeb, deb, strlen(deb), &err), &err);
	buf_addf(&pkgs, "Package: x\nVersion: 1\nFilename: ./x_1_all.deb\n"
	    "Size: %zu\nSHA256: %s\n\n", strlen(deb),
	    _i == V_BADPKG ? "0000000000000000000000000000000000000000000000"
	    "000000000000000000" : hdeb);
	ck_assert_ok(arc_sha256_buf(hpk, pkgs.buf, pkgs.len, &err), &err);
	buf_addf(&man, "{\"format\": \"provision-bundle/1\", \"artifacts\": ["
	    "{\"name\": \"x\", \"path\": \"repo/x_1_all.deb\", \"sha256\": "
	    "\"%s\", \"size\": %zu}%s], \"files\": [{\"path\": "
	    "\"repo/Packages\", \"sha256\": \"%s\", \"size\": %zu}]}\n",
	    _i == V_BADSHA ? hpk : hdeb, strlen(deb),
	    _i == V_MISSING ? ", {\"path\": \"repo/y_1_all.deb\", \"sha256\": "
	    "\"00\", \"size\": 1}" : "", hpk, pkgs.len);
	ck_assert_ok(arc_writer_open(&w, out, &err), &err);
	ck_assert_ok(arc_writer_add_buf(w, "repo/x_1_all.deb", deb, strlen(deb),
	    0644, &err), &err);
	if (_i == V_DUP)
		ck_assert_ok(arc_writer_add_buf(w, "repo/x_1_all.deb", deb,
		    strlen(deb), 0644, &err), &err);
	ck_assert_ok(arc_writer_add_buf(w, "repo/Packages", pkgs.buf, pkgs.len,
	    0644, &err), &err);
	if (_i == V_EXTRA)
		ck_assert_ok(arc_writer_add_buf(w, "scripts/evil.sh", "x", 1,
		    0755, &err), &err);
	if (_i != V_NOMANIFEST)
		ck_assert_ok(arc_writer_add_buf(w, "manifest.json", man.buf,
		    man.len, 0644, &err), &err);
	ck_assert_ok(arc_writer_commit(w, &err), &err);
	arc_writer_free(w);

	ck_assert_ok(bundle_verify(&chk, out, &err), &err);
	if (_i == V_GOOD) {
		ck_assert_msg(chk.problems.n == 0, "%s", chk.problems.v[0]);
		ck_assert_uint_eq(chk.members, 3);
		ck_assert_uint_eq(chk.artifacts, 1);
	} else {
		static const char *const want[] = {
			[V_EXTRA] = "but not in the manifest",
			[V_MISSING] = "not in the archive",
			[V_BADSHA] = "the manifest says",
			[V_BADPKG] = "repo/Packages does not match",
			[V_NOMANIFEST] = "no manifest.json",
			[V_DUP] = "in the archive twice",
		};

		ck_assert_uint_ge(chk.problems.n, 1);
		ck_assert_msg(strstr(chk.problems.v[0], want[_i]) != NULL,
		    "case %d: '%s'", _i, chk.problems.v[0]);
	}
	bundle_check_release(&chk);
	ck_assert_int_eq(bundle_verify(&chk, "/nonexistent.tar.zst", &err), -1);
	bundle_check_release(&chk);
	cmd = xasprintf("rm -rf '%s'", dir);
	ck_assert_int_eq(system(cmd), 0);
	free(cmd);
	free(out);
	free(dir);
	buf_release(&man);
	buf_release(&pkgs);
	prov_err_release(&err);
}
END_TEST

static Suite *
bundle_suite(void)
{
	Suite	*s = suite_create("bundle");
	TCase	*tc;

	tc = tcase_create("parse");
	tcase_add_test(tc, test_bundle_parse_uris);
	tcase_add_loop_test(tc, test_bundle_parse_uris_bad, 0,
	    (int)ARRAY_SIZE(bad_uris));
	tcase_add_test(tc, test_bundle_field);
	tcase_add_test(tc, test_bundle_parse_index);
	tcase_add_test(tc, test_bundle_parse_index_conflict);
	tcase_add_test(tc, test_bundle_names);
	suite_add_tcase(s, tc);

	tc = tcase_create("plan");
	tcase_add_test(tc, test_bundle_plan_wants);
	tcase_add_test(tc, test_bundle_plan_rocky);
	suite_add_tcase(s, tc);

	tc = tcase_create("manifest");
	tcase_add_test(tc, test_bundle_manifest_json);
	tcase_add_loop_test(tc, test_bundle_verify, V_GOOD, V_DUP + 1);
	suite_add_tcase(s, tc);
	return s;
}

TEST_MAIN(bundle_suite)

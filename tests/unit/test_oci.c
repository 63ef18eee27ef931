/*
 * test_oci.c: image references, WWW-Authenticate challenges, manifests
 * and indexes, platform choice (lib/oci.c's pure parts; the network part
 * runs against tests/e2e/oci_registry.py in t053-bundle-images.sh).
 */
#include "test.h"

#include "oci.h"

#define H64 "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"
#define H64B "fedcba9876543210fedcba9876543210fedcba9876543210fedcba9876543210"

static const struct {
	const char	*in;
	const char	*registry, *repo, *tag, *digest;	/* NULL registry: bad */
} ref_cases[] = {
	{ "nvcr.io/nvidia/k8s/dcgm-exporter:3.3.5-3.4.1-ubuntu22.04", "nvcr.io",
	  "nvidia/k8s/dcgm-exporter", "3.3.5-3.4.1-ubuntu22.04", NULL },
	{ "registry.k8s.io/kube-apiserver:v1.30.2", "registry.k8s.io",
	  "kube-apiserver", "v1.30.2", NULL },
	{ "ubuntu", "docker.io", "library/ubuntu", "latest", NULL },
	{ "ubuntu:22.04", "docker.io", "library/ubuntu", "22.04", NULL },
	{ "grafana/grafana:10.4.2", "docker.io", "grafana/grafana", "10.4.2",
	  NULL },
	{ "localhost/x", "localhost", "x", "latest", NULL },
	{ "127.0.0.1:5000/a/b:c", "127.0.0.1:5000", "a/b", "c", NULL },
	{ "reg.example:5000/a_b__c/d-e.f", "reg.example:5000", "a_b__c/d-e.f",
	  "latest", NULL },
	{ "nvcr.io/x@sha256:" H64, "nvcr.io", "x", NULL, "sha256:" H64 },
	{ "nvcr.io/x:1@sha256:" H64, "nvcr.io", "x", "1", "sha256:" H64 },
	/* refused */
	{ "", NULL, NULL, NULL, NULL },
	{ "nvcr.io/X/Upper:1", NULL, NULL, NULL, NULL },
	{ "nvcr.io/x:", NULL, NULL, NULL, NULL },
	{ "nvcr.io/x:a/b", NULL, NULL, NULL, NULL },
	{ "nvcr.io/x@sha256:abc", NULL, NULL, NULL, NULL },
	{ "nvcr.io/x@sha256:" "ABCDEF0123456789abcdef0123456789"
	  "abcdef0123456789abcdef0123456789", NULL, NULL, NULL, NULL },
	{ "nvcr.io/x@md5:" H64, NULL, NULL, NULL, NULL },
	{ "nvcr.io/x y", NULL, NULL, NULL, NULL },
	{ "nvcr.io//x", NULL, NULL, NULL, NULL },
	{ "nvcr.io/x-/y", NULL, NULL, NULL, NULL },
	{ "nvcr.io:99999/x", NULL, NULL, NULL, NULL },
	{ "nvcr.io/x:-bad", NULL, NULL, NULL, NULL },
};

static void
test_oci_str_eq(const char *got, const char *want, const char *what)
{
	if (want == NULL)
		ck_assert_msg(got == NULL, "%s: '%s', want none", what, got);
	else
		ck_assert_msg(got != NULL && strcmp(got, want) == 0,
		    "%s: '%s', want '%s'", what, got ? got : "(null)", want);
}

START_TEST(test_oci_ref_parse)
{
	struct oci_ref	r = OCI_REF_INIT;
	struct prov_err	err = PROV_ERR_INIT;
	int		rc;

	rc = oci_ref_parse(&r, ref_cases[_i].in, &err);
	if (ref_cases[_i].registry == NULL) {
		ck_assert_msg(rc == -1, "'%s' accepted", ref_cases[_i].in);
		ck_assert_ptr_nonnull(err.msg);
		ck_assert_ptr_null(r.repo);
	} else {
		ck_assert_ok(rc, &err);
		test_oci_str_eq(r.registry, ref_cases[_i].registry, "registry");
		test_oci_str_eq(r.repo, ref_cases[_i].repo, "repo");
		test_oci_str_eq(r.tag, ref_cases[_i].tag, "tag");
		test_oci_str_eq(r.digest, ref_cases[_i].digest, "digest");
		ck_assert_str_eq(oci_ref_target(&r), ref_cases[_i].digest ?
		    ref_cases[_i].digest : ref_cases[_i].tag);
	}
	oci_ref_release(&r);
	prov_err_release(&err);
}
END_TEST

START_TEST(test_oci_base_url)
{
	struct oci_ref	 r = OCI_REF_INIT;
	struct oci_opts	 o = OCI_OPTS_INIT;
	struct strvec	 m = STRVEC_INIT;
	struct prov_err	 err = PROV_ERR_INIT;
	char		*u;

	ck_assert_ok(oci_ref_parse(&r, "nvcr.io/nvidia/x:1", &err), &err);
	u = oci_base_url(&r, &o, &err);
	ck_assert_str_eq(u, "https://nvcr.io");
	free(u);
	/* "nvcr.io.evil" must not match "nvcr.io" */
	strvec_push(&m, "nvcr.io.evil=http://evil/");
	strvec_push(&m, "nvcr.io=http://127.0.0.1:5000/");
	o.mirrors = &m;
	u = oci_base_url(&r, &o, &err);
	ck_assert_str_eq(u, "http://127.0.0.1:5000");
	free(u);
	oci_ref_release(&r);
	ck_assert_ok(oci_ref_parse(&r, "ubuntu", &err), &err);
	u = oci_base_url(&r, &o, &err);
	ck_assert_str_eq(u, "https://registry-1.docker.io");
	free(u);
	oci_ref_release(&r);
	strvec_clear(&m);
	strvec_push(&m, "nvcr.io=ftp://x");
	ck_assert_ok(oci_ref_parse(&r, "nvcr.io/a", &err), &err);
	ck_assert_ptr_null(oci_base_url(&r, &o, &err));
	ck_assert_ptr_nonnull(strstr(err.msg, "must start with http://"));
	oci_ref_release(&r);
	strvec_clear(&m);
	prov_err_release(&err);
}
END_TEST

START_TEST(test_oci_challenge)
{
	struct oci_challenge	c = OCI_CHALLENGE_INIT;
	struct prov_err		err = PROV_ERR_INIT;

	ck_assert_ok(oci_challenge_parse(&c, "Bearer realm=\"https://auth."
	    "docker.io/token\",service=\"registry.docker.io\",scope=\""
	    "repository:library/ubuntu:pull\"", &err), &err);
	ck_assert_str_eq(c.scheme, "Bearer");
	ck_assert_str_eq(c.realm, "https://auth.docker.io/token");
	ck_assert_str_eq(c.service, "registry.docker.io");
	ck_assert_str_eq(c.scope, "repository:library/ubuntu:pull");
	oci_challenge_release(&c);

	/* spaces, unquoted values, escapes, unknown keys, no scope */
	ck_assert_ok(oci_challenge_parse(&c, "  Bearer  realm = https://r/t , "
	    "error=\"insufficient_scope\", service=\"a\\\"b\"", &err), &err);
	ck_assert_str_eq(c.realm, "https://r/t");
	ck_assert_str_eq(c.service, "a\"b");
	ck_assert_ptr_null(c.scope);
	oci_challenge_release(&c);

	ck_assert_ok(oci_challenge_parse(&c, "Basic realm=\"Registry\"", &err),
	    &err);
	ck_assert_str_eq(c.scheme, "Basic");
	oci_challenge_release(&c);

	ck_assert_int_eq(oci_challenge_parse(&c, "Bearer service=\"x\"", &err),
	    -1);
	ck_assert_ptr_nonnull(strstr(err.msg, "no realm"));
	ck_assert_int_eq(oci_challenge_parse(&c, "Bearer realm=\"x", &err), -1);
	ck_assert_int_eq(oci_challenge_parse(&c, "Bearer realm", &err), -1);
	ck_assert_int_eq(oci_challenge_parse(&c, "", &err), -1);
	ck_assert_ptr_null(c.scheme);
	prov_err_release(&err);
}
END_TEST

static const char oci_index_json[] =
	"{\"schemaVersion\": 2, \"mediaType\": \"" OCI_MT_INDEX "\",\n"
	" \"manifests\": [\n"
	"  {\"mediaType\": \"" OCI_MT_MANIFEST "\", \"digest\": \"sha256:" H64
	"\", \"size\": 1234, \"platform\": {\"architecture\": \"arm64\", "
	"\"os\": \"linux\", \"variant\": \"v8\"}},\n"
	"  {\"mediaType\": \"" OCI_MT_MANIFEST "\", \"digest\": \"sha256:" H64B
	"\", \"size\": 99, \"platform\": {\"architecture\": \"unknown\", "
	"\"os\": \"unknown\"}},\n"
	"  {\"mediaType\": \"" OCI_MT_MANIFEST "\", \"digest\": \"sha256:" H64B
	"\", \"size\": 567, \"platform\": {\"architecture\": \"amd64\", "
	"\"os\": \"linux\"}},\n"
	"  {\"mediaType\": \"" OCI_MT_MANIFEST "\", \"digest\": \"sha256:" H64
	"\", \"size\": 5, \"platform\": {\"architecture\": \"arm\", "
	"\"os\": \"linux\", \"variant\": \"v6\"}},\n"
	"  {\"mediaType\": \"" OCI_MT_MANIFEST "\", \"digest\": \"sha256:" H64B
	"\", \"size\": 6, \"platform\": {\"architecture\": \"arm\", "
	"\"os\": \"linux\", \"variant\": \"v7\"}}\n"
	" ]}\n";

/* A Docker v2 manifest, its type only in the Content-Type header. */
static const char oci_docker_json[] =
	"{\n   \"schemaVersion\": 2,\n   \"config\": {\n      \"mediaType\": "
	"\"application/vnd.docker.container.image.v1+json\",\n      \"size\": "
	"7023,\n      \"digest\": \"sha256:" H64 "\"\n   },\n   \"layers\": [\n"
	"      {\"mediaType\": \"application/vnd.docker.image.rootfs.diff.tar."
	"gzip\", \"size\": 32654, \"digest\": \"sha256:" H64B "\"},\n"
	"      {\"mediaType\": \"application/vnd.docker.image.rootfs.diff.tar."
	"gzip\", \"size\": 16724, \"digest\": \"sha256:" H64 "\"}\n   ]\n}";

START_TEST(test_oci_manifest_index)
{
	struct oci_manifest	m = OCI_MANIFEST_INIT;
	struct prov_err		err = PROV_ERR_INIT;

	ck_assert_ok(oci_manifest_parse(&m, oci_index_json,
	    strlen(oci_index_json), NULL, &err), &err);
	ck_assert_int_eq(m.is_index, 1);
	ck_assert_str_eq(m.media_type, OCI_MT_INDEX);
	ck_assert_uint_eq(m.n, 5);
	ck_assert_str_eq(m.descs[2].digest, "sha256:" H64B);
	ck_assert_int_eq(m.descs[2].size, 567);
	ck_assert_str_eq(m.descs[2].arch, "amd64");
	ck_assert_str_eq(m.descs[0].variant, "v8");
	/* platform choice */
	ck_assert_int_eq(oci_pick(&m, "amd64"), 2);
	ck_assert_int_eq(oci_pick(&m, "arm64"), 0);	/* v8 given, none asked */
	ck_assert_int_eq(oci_pick(&m, "armhf"), 4);	/* v7, not v6 */
	ck_assert_int_eq(oci_pick(&m, "armel"), 3);
	ck_assert_int_eq(oci_pick(&m, "ppc64el"), -1);
	ck_assert_int_eq(oci_pick(&m, "nonsense"), -1);
	oci_manifest_release(&m);
	prov_err_release(&err);
}
END_TEST

START_TEST(test_oci_manifest_docker)
{
	struct oci_manifest	m = OCI_MANIFEST_INIT;
	struct prov_err		err = PROV_ERR_INIT;

	ck_assert_ok(oci_manifest_parse(&m, oci_docker_json,
	    strlen(oci_docker_json), OCI_MT_DOCKER_MANIFEST "; charset=utf-8",
	    &err), &err);
	ck_assert_int_eq(m.is_index, 0);
	ck_assert_str_eq(m.media_type, OCI_MT_DOCKER_MANIFEST);
	ck_assert_str_eq(m.config.digest, "sha256:" H64);
	ck_assert_int_eq(m.config.size, 7023);
	ck_assert_uint_eq(m.n, 2);
	ck_assert_str_eq(m.descs[0].digest, "sha256:" H64B);
	ck_assert_int_eq(m.descs[1].size, 16724);
	ck_assert_int_eq(oci_pick(&m, "amd64"), -1);	/* not an index */
	oci_manifest_release(&m);

	/* no mediaType, no Content-Type: by its shape */
	ck_assert_ok(oci_manifest_parse(&m, oci_docker_json,
	    strlen(oci_docker_json), NULL, &err), &err);
	ck_assert_str_eq(m.media_type, OCI_MT_MANIFEST);
	oci_manifest_release(&m);
	prov_err_release(&err);
}
END_TEST

static const struct {
	const char	*json, *msg;
} bad_manifests[] = {
	{ "[1, 2]", "not a JSON object" },
	{ "{\"schemaVersion\": 1, \"fsLayers\": []}", "schemaVersion 1" },
	{ "{\"schemaVersion\": 2, \"mediaType\": \"text/plain\"}",
	  "unsupported manifest type 'text/plain'" },
	{ "{\"schemaVersion\": 2}", "neither" },
	{ "{\"schemaVersion\": 2, \"layers\": []}", "config is not a JSON" },
	{ "{\"schemaVersion\": 2, \"config\": {\"digest\": \"sha256:" H64
	  "\", \"size\": 1}, \"layers\": [{\"digest\": \"sha512:" H64 "\", "
	  "\"size\": 1}]}", "layer 1 has no sha256 digest" },
	{ "{\"schemaVersion\": 2, \"config\": {\"digest\": \"sha256:" H64
	  "\", \"size\": -1}, \"layers\": []}", "config has no size" },
	{ "{\"schemaVersion\": 2, \"manifests\": {}}", "is not a list" },
	{ "{\"schemaVersion\": 2, \"manifests\": [{\"digest\": \"sha256:" H64
	  "\"}]}", "manifest 1 has no size" },
};

START_TEST(test_oci_manifest_bad)
{
	struct oci_manifest	m = OCI_MANIFEST_INIT;
	struct prov_err		err = PROV_ERR_INIT;
	const char		*j = bad_manifests[_i].json;

	ck_assert_int_eq(oci_manifest_parse(&m, j, strlen(j), NULL, &err), -1);
	ck_assert_msg(err.msg != NULL && strstr(err.msg,
	    bad_manifests[_i].msg) != NULL, "'%s': got '%s'", j, err.msg);
	ck_assert_ptr_null(m.descs);
	prov_err_release(&err);
}
END_TEST

START_TEST(test_oci_platform)
{
	const char	*v;

	ck_assert_str_eq(oci_platform("amd64", &v), "amd64");
	ck_assert_ptr_null(v);
	ck_assert_str_eq(oci_platform("armhf", &v), "arm");
	ck_assert_str_eq(v, "v7");
	ck_assert_str_eq(oci_platform("ppc64el", &v), "ppc64le");
	ck_assert_str_eq(oci_platform("i386", NULL), "386");
	ck_assert_ptr_null(oci_platform("hurd-i386", &v));
}
END_TEST

START_TEST(test_oci_resolve_refused)
{
	struct oci_image	img = OCI_IMAGE_INIT;
	struct oci_opts		o = OCI_OPTS_INIT;
	struct prov_err		err = PROV_ERR_INIT;

	/* no network needed: each is refused before any request */
	ck_assert_int_eq(oci_resolve(&img, "nvcr.io/x:1", "hurd", &o, &err),
	    -1);
	ck_assert_ptr_nonnull(strstr(err.msg, "no container platform"));
	ck_assert_int_eq(oci_resolve(&img, "nvcr.io/X", "amd64", &o, &err),
	    -1);
	ck_assert_ptr_nonnull(strstr(err.msg, "not a repository name"));
	ck_assert_ptr_null(img.ref);
	prov_err_release(&err);
}
END_TEST

static Suite *
oci_suite(void)
{
	Suite	*s = suite_create("oci");
	TCase	*tc;

	tc = tcase_create("ref");
	tcase_add_loop_test(tc, test_oci_ref_parse, 0,
	    (int)ARRAY_SIZE(ref_cases));
	tcase_add_test(tc, test_oci_base_url);
	suite_add_tcase(s, tc);

	tc = tcase_create("challenge");
	tcase_add_test(tc, test_oci_challenge);
	suite_add_tcase(s, tc);

	tc = tcase_create("manifest");
	tcase_add_test(tc, test_oci_manifest_index);
	tcase_add_test(tc, test_oci_manifest_docker);
	tcase_add_loop_test(tc, test_oci_manifest_bad, 0,
	    (int)ARRAY_SIZE(bad_manifests));
	suite_add_tcase(s, tc);

	tc = tcase_create("platform");
	tcase_add_test(tc, test_oci_platform);
	tcase_add_test(tc, test_oci_resolve_refused);
	suite_add_tcase(s, tc);
	return s;
}

TEST_MAIN(oci_suite)

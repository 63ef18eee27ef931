#include "test.h"

#include <sys/stat.h>

#include "buf.h"
#include "err.h"
#include "plan.h"
#include "pxe.h"
#include "strvec.h"
#include "yml.h"

/* MACs. */

static const struct {
	const char	*in;
	const char	*want;		/* NULL: refused */
} mac_cases[] = {
	{ "0c:c4:7a:00:00:10", "0c:c4:7a:00:00:10" },
	{ "0C:C4:7A:00:00:1F", "0c:c4:7a:00:00:1f" },
	{ "0c-c4-7a-00-00-10", "0c:c4:7a:00:00:10" },
	{ "02:00:00:00:00:01", "02:00:00:00:00:01" },	/* locally administered */
	{ "0c:c4:7a:00:00", NULL },
	{ "0c:c4:7a:00:00:10:11", NULL },
	{ "0c:c4-7a:00:00:10", NULL },			/* mixed separators */
	{ "0cc4.7a00.0010", NULL },
	{ "0c:c4:7a:00:00:1g", NULL },
	{ "0c:c4:7a:00:00:1", NULL },
	{ "01:00:5e:00:00:01", NULL },			/* multicast */
	{ "ff:ff:ff:ff:ff:ff", NULL },			/* broadcast */
	{ "00:00:00:00:00:00", NULL },
	{ "", NULL },
	{ "0c:c4:7a:00:00:10\n", NULL },
};

START_TEST(test_pxe_mac_parse)
{
	char		 out[18];
	const char	*why = NULL;
	int		 r = pxe_mac_parse(out, mac_cases[_i].in, &why);

	if (mac_cases[_i].want == NULL) {
		ck_assert_msg(r == -1, "'%s' accepted", mac_cases[_i].in);
		ck_assert_ptr_nonnull(why);
	} else {
		ck_assert_msg(r == 0, "'%s' refused: %s", mac_cases[_i].in, why);
		ck_assert_str_eq(out, mac_cases[_i].want);
	}
}
END_TEST

START_TEST(test_pxe_mac_dashes)
{
	char	out[18];

	pxe_mac_dashes(out, "0c:c4:7a:00:00:10");
	ck_assert_str_eq(out, "0c-c4-7a-00-00-10");
}
END_TEST

/* Quoting: what goes in comes back out of a YAML parser unchanged. */

static const char *const yaml_cases[] = {
	"gpu01",
	"ssh-ed25519 AAAA key \"quoted\" #not-a-comment: {x} [y] & *z !t",
	"back\\slash",
	"line\nbreak\ttab",
	"'single' and \"double\"",
	"null",
	"yes",
	"- dash",
	"% percent @ at ` backtick",
	"ctrl\x01\x1f\x7f",
	"",
	"caf\xc3\xa9 utf-8",
};

START_TEST(test_pxe_yaml_roundtrip)
{
	struct buf		 b = BUF_INIT;
	struct yml_doc		 doc;
	struct prov_errs	 errs = PROV_ERRS_INIT;
	struct yml_node		*v;

	buf_adds(&b, "k: ");
	pxe_yaml_str(&b, yaml_cases[_i]);
	buf_adds(&b, "\n");
	yml_doc_init(&doc);
	ck_assert_int_eq(yml_load(&doc, "t.yaml", b.buf, b.len, &errs), 0);
	ck_assert_uint_eq(errs.n, 0);
	v = yml_map_get(doc.root, "k");
	ck_assert_ptr_nonnull(v);
	ck_assert_int_eq(v->kind, YML_SCALAR);
	ck_assert_int_eq(v->plain, 0);
	ck_assert_str_eq(v->u.s, yaml_cases[_i]);
	yml_doc_release(&doc);
	prov_errs_release(&errs);
	buf_release(&b);
}
END_TEST

START_TEST(test_pxe_ks_str)
{
	struct buf	b = BUF_INIT;

	pxe_ks_str(&b, "ssh-ed25519 AAAA a \"b\" c\\d");
	ck_assert_str_eq(b.buf, "\"ssh-ed25519 AAAA a \\\"b\\\" c\\\\d\"");
	buf_release(&b);
}
END_TEST

/* SSH public keys. */

static const struct {
	const char	*in;
	const char	*want;		/* NULL: refused */
} key_cases[] = {
	{ "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIBCrhEdNRcS/R1A1aOCRLY0brCozl "
	  "me@host\n", "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIBCrhEdNRcS/R1A1aO"
	  "CRLY0brCozl me@host" },
	{ "ssh-rsa AAAAB3NzaC1yc2EAAAADAQABAAABAQ==", "ssh-rsa AAAAB3NzaC1yc2E"
	  "AAAADAQABAAABAQ==" },
	{ "ecdsa-sha2-nistp256 AAAAE2VjZHNhLXNoYTItbmlzdHAyNTY= a b c  ",
	  "ecdsa-sha2-nistp256 AAAAE2VjZHNhLXNoYTItbmlzdHAyNTY= a b c" },
	{ "ssh-dss AAAAB3NzaC1kc3MAAACBAP", NULL },
	{ "ssh-ed25519", NULL },
	{ "ssh-ed25519 short", NULL },
	{ "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5$$$AAAAIBCrh", NULL },
	{ "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIBCrh x\ny", NULL },
	{ "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIBCrh x\\y", NULL },
	{ "-----BEGIN OPENSSH PRIVATE KEY-----", NULL },
	{ "", NULL },
};

START_TEST(test_pxe_pubkey)
{
	struct prov_err	 err = PROV_ERR_INIT;
	char		*out = NULL;
	int		 r = pxe_pubkey_check(&out, key_cases[_i].in, &err);

	if (key_cases[_i].want == NULL) {
		ck_assert_msg(r == -1, "'%s' accepted", key_cases[_i].in);
		ck_assert_ptr_null(out);
		ck_assert_ptr_nonnull(err.msg);
	} else {
		ck_assert_ok(r, &err);
		ck_assert_str_eq(out, key_cases[_i].want);
	}
	free(out);
	prov_err_release(&err);
}
END_TEST

static const struct {
	const char	*in;
	int		 ok;
} url_cases[] = {
	{ "http://deb.debian.org/debian", 1 },
	{ "https://dl.rockylinux.org/pub/rocky/9/BaseOS/x86_64/os/", 1 },
	{ "http://10.0.0.1:8080", 1 },
	{ "ftp://mirror/debian", 1 },
	{ "http://${next-server}", 1 },
	{ "file:///etc", 0 },
	{ "http://", 0 },
	{ "http:///x", 0 },
	{ "http://a b/", 0 },
	{ "http://a/\"x", 0 },
	{ "http://a/'x", 0 },
	{ "http://a/x\ny", 0 },
	{ "http://a/x,y", 0 },
	{ "deb.debian.org", 0 },
};

START_TEST(test_pxe_url_ok)
{
	ck_assert_msg(pxe_url_ok(url_cases[_i].in) == url_cases[_i].ok,
	    "'%s'", url_cases[_i].in);
}
END_TEST

START_TEST(test_pxe_netmask)
{
	static const struct {
		int		 prefix;
		const char	*want;
	} c[] = {
		{ 0, "0.0.0.0" }, { 8, "255.0.0.0" }, { 20, "255.255.240.0" },
		{ 24, "255.255.255.0" }, { 31, "255.255.255.254" },
		{ 32, "255.255.255.255" },
	};
	char	out[16];
	size_t	i;

	for (i = 0; i < ARRAY_SIZE(c); i++) {
		pxe_netmask(out, c[i].prefix);
		ck_assert_str_eq(out, c[i].want);
	}
}
END_TEST

/* Templates. */

static const struct pxe_var subst_vars[] = {
	{ "NODE", "gpu01" },
	{ "LIST", "- a\n- b" },
	{ "EMPTY", "" },
	{ "AT", "x@y" },
};

static const struct {
	const char	*tmpl;
	const char	*want;		/* NULL: an error */
} subst_cases[] = {
	{ "host @NODE@\n", "host gpu01\n" },
	{ "@NODE@@NODE@", "gpu01gpu01" },
	{ "  items:\n    @LIST@\n", "  items:\n    - a\n    - b\n" },
	{ "a\n  @EMPTY@\nb\n", "a\nb\n" },		/* the line goes */
	{ "a @EMPTY@\nb\n", "a \nb\n" },		/* the line stays */
	{ "mail me@example.org @ home\n", "mail me@example.org @ home\n" },
	{ "@^minimal-environment\n", "@^minimal-environment\n" },
	{ "${mac:hexhyp} @NODE@", "${mac:hexhyp} gpu01" },
	{ "@AT@ stays", "x@y stays" },
	{ "@lower@ is not a name", "@lower@ is not a name" },
	{ "no newline at end @NODE@", "no newline at end gpu01" },
	{ "x @NOPE@\n", NULL },
};

START_TEST(test_pxe_subst)
{
	struct buf	b = BUF_INIT;
	struct prov_err	err = PROV_ERR_INIT;
	int		r = pxe_subst(&b, subst_cases[_i].tmpl, "t", subst_vars,
			    ARRAY_SIZE(subst_vars), &err);

	if (subst_cases[_i].want == NULL) {
		ck_assert_int_eq(r, -1);
		ck_assert_ptr_nonnull(strstr(err.msg, "'@NOPE@'"));
		ck_assert_ptr_nonnull(strstr(err.msg, "t:1:"));
	} else {
		ck_assert_ok(r, &err);
		ck_assert_str_eq(b.buf, subst_cases[_i].want);
	}
	buf_release(&b);
	prov_err_release(&err);
}
END_TEST

/* HTTP request targets. */

static const struct {
	const char	*in;
	const char	*want;		/* NULL: refused */
} path_cases[] = {
	{ "/", "" },
	{ "/boot.ipxe", "boot.ipxe" },
	{ "/ipxe/0c-c4-7a-00-00-10.ipxe", "ipxe/0c-c4-7a-00-00-10.ipxe" },
	{ "//ipxe///x.ipxe", "ipxe/x.ipxe" },
	{ "/answers/x/user-data?x=1", "answers/x/user-data" },
	{ "/a%20b", "a b" },
	{ "/../etc/passwd", NULL },
	{ "/a/../../etc/passwd", NULL },
	{ "/%2e%2e/etc/passwd", NULL },
	{ "/%2E%2E%2fetc%2fpasswd", NULL },
	{ "/./x", NULL },
	{ "/.hidden", NULL },
	{ "/a%00b", NULL },
	{ "/a%0ab", NULL },
	{ "/a\\b", NULL },
	{ "/a%5cb", NULL },
	{ "/a%zz", NULL },
	{ "/a%2", NULL },
	{ "relative", NULL },
	{ "http://host/x", NULL },
};

START_TEST(test_pxe_serve_path)
{
	struct buf	b = BUF_INIT;
	int		r = pxe_serve_path(&b, path_cases[_i].in);

	if (path_cases[_i].want == NULL)
		ck_assert_msg(r == -1, "'%s' gave '%s'", path_cases[_i].in,
		    b.buf);
	else {
		ck_assert_msg(r == 0, "'%s' refused", path_cases[_i].in);
		ck_assert_str_eq(b.buf, path_cases[_i].want);
	}
	buf_release(&b);
}
END_TEST

/* Whole renders, from a plan in memory, with the real templates. */

static char *
test_pxe_tmpdir(void)
{
	char	*d = xstrdup("/tmp/test_pxe.XXXXXX");

	ck_assert_ptr_nonnull(mkdtemp(d));
	return d;
}

static struct plan *
test_pxe_plan(const char *distro, const char *release, const char *keyfile)
{
	struct plan		*p = NULL;
	struct plan_opts	 o = PLAN_OPTS_INIT;
	struct prov_errs	 errs = PROV_ERRS_INIT;
	char			*dir = test_path("profiles");
	char			*y = xasprintf(
	    "version: 1\n"
	    "cluster: { name: t, domain: t.example }\n"
	    "networks: { m: { cidr: 10.1.0.0/16, kind: ethernet, gbps: 1 } }\n"
	    "ssh: { user: root, identity: %s }\n"
	    "nodes:\n"
	    "  - { name: a1, address: 10.1.2.3, mac: \"02:00:00:00:00:01\" }\n"
	    "  - { name: a2, address: 10.1.2.4 }\n"
	    "  - { name: a3, address: 10.9.9.9, mac: \"02:00:00:00:00:03\" }\n"
	    "  - { name: a4, address: 10.1.2.5, mac: \"02:00:00:00:00:01\" }\n"
	    "software: { os: { distro: %s, release: \"%s\" } }\n",
	    keyfile, distro, release);

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

START_TEST(test_pxe_render_rows)
{
	static const char *const distros[][2] = {
		{ "debian", "12" }, { "ubuntu", "24.04" }, { "rocky", "9" },
	};
	static const char *const answer[] = {
		"answers/02-00-00-00-00-01/preseed.cfg",
		"answers/02-00-00-00-00-01/user-data",
		"answers/02-00-00-00-00-01/ks.cfg",
	};
	struct pxe_opts		 o = PXE_OPTS_INIT;
	struct pxe_result	 res = PXE_RESULT_INIT;
	struct prov_err		 err = PROV_ERR_INIT;
	struct buf		 b = BUF_INIT;
	char			*dir = test_pxe_tmpdir();
	char			*key = xasprintf("%s/id.pub", dir);
	char			*tpl = test_path("templates");
	char			*path;
	struct plan		*p;
	static const char	 pub[] = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIB"
				    "CrhEdNRcS/R1A1aOCRLY0br x@y\n";

	ck_assert_int_eq(buf_write_file_atomic(key, pub, sizeof pub - 1,
	    0644), 0);
	p = test_pxe_plan(distros[_i][0], distros[_i][1], key);
	o.outdir = dir;
	o.templates = tpl;
	o.pubkey_file = key;
	ck_assert_ok(pxe_render(&res, p, &o, &err), &err);
	ck_assert_uint_eq(res.n, 4);
	ck_assert_int_eq(res.rows[0].status, PXE_RENDERED);
	ck_assert_int_eq(res.rows[1].status, PXE_SKIPPED);
	ck_assert_str_eq(res.rows[1].why, "no 'mac' in the plan");
	ck_assert_int_eq(res.rows[2].status, PXE_FAILED);
	ck_assert_ptr_nonnull(strstr(res.rows[2].why, "none of the plan's "
	    "networks"));
	ck_assert_int_eq(res.rows[3].status, PXE_FAILED);
	ck_assert_ptr_nonnull(strstr(res.rows[3].why, "another node's"));
	ck_assert_uint_eq(res.rendered, 1);
	ck_assert_int_ge(strvec_find(&res.files, answer[_i]), 0);
	ck_assert_int_ge(strvec_find(&res.files, "dnsmasq.conf"), 0);
	ck_assert_int_ge(strvec_find(&res.files, "SHA256SUMS"), 0);
	path = xasprintf("%s/%s", dir, answer[_i]);
	ck_assert_int_eq(buf_read_file(&b, path), 0);
	ck_assert_ptr_nonnull(strstr(b.buf, "AAAAC3NzaC1lZDI1NTE5AAAAIBCrhEdN"));
	ck_assert_ptr_nonnull(strstr(b.buf, "10.1.2.3"));
	ck_assert_ptr_null(strstr(b.buf, "@"  "NODE@"));
	free(path);
	buf_reset(&b);
	path = xasprintf("%s/dnsmasq.conf", dir);
	ck_assert_int_eq(buf_read_file(&b, path), 0);
	ck_assert_ptr_nonnull(strstr(b.buf,
	    "dhcp-host=02:00:00:00:00:01,10.1.2.3,a1\n"));
	ck_assert_ptr_null(strstr(b.buf, "10.1.2.5"));
	ck_assert_ptr_nonnull(strstr(b.buf,
	    "dhcp-range=10.1.0.0,static,255.255.0.0,12h\n"));
	free(path);
	pxe_result_release(&res);
	plan_free(p);
	buf_release(&b);
	prov_err_release(&err);
	path = xasprintf("rm -rf '%s'", dir);
	ck_assert_int_eq(system(path), 0);
	free(path);
	free(key);
	free(tpl);
	free(dir);
}
END_TEST

START_TEST(test_pxe_render_errors)
{
	struct pxe_opts		 o = PXE_OPTS_INIT;
	struct pxe_result	 res = PXE_RESULT_INIT;
	struct prov_err		 err = PROV_ERR_INIT;
	char			*dir = test_pxe_tmpdir();
	char			*key = xasprintf("%s/missing.pub", dir);
	char			*tpl = test_path("templates");
	char			*cmd;
	struct plan		*p = test_pxe_plan("debian", "12", key);

	o.outdir = dir;
	o.templates = tpl;
	/* The key: from ssh.identity + .pub, which is not there. */
	ck_assert_int_eq(pxe_render(&res, p, &o, &err), -1);
	ck_assert_ptr_nonnull(strstr(err.msg, "missing.pub.pub"));
	pxe_result_release(&res);
	prov_err_release(&err);
	o.pubkey_file = "/dev/null";
	ck_assert_int_eq(pxe_render(&res, p, &o, &err), -1);
	ck_assert_ptr_nonnull(strstr(err.msg, "not an OpenSSH public key"));
	pxe_result_release(&res);
	prov_err_release(&err);
	o.pubkey_file = NULL;
	o.gateway = "10.1.0.1; reboot";
	ck_assert_int_eq(pxe_render(&res, p, &o, &err), -1);
	ck_assert_ptr_nonnull(strstr(err.msg, "--gateway"));
	pxe_result_release(&res);
	prov_err_release(&err);
	o.gateway = NULL;
	o.base_url = "http://x/ y";
	ck_assert_int_eq(pxe_render(&res, p, &o, &err), -1);
	pxe_result_release(&res);
	prov_err_release(&err);
	plan_free(p);
	cmd = xasprintf("rm -rf '%s'", dir);
	ck_assert_int_eq(system(cmd), 0);
	free(cmd);
	free(key);
	free(tpl);
	free(dir);
}
END_TEST

static Suite *
pxe_suite(void)
{
	Suite	*s = suite_create("pxe");
	TCase	*tc;

	tc = tcase_create("mac");
	tcase_add_loop_test(tc, test_pxe_mac_parse, 0,
	    (int)ARRAY_SIZE(mac_cases));
	tcase_add_test(tc, test_pxe_mac_dashes);
	suite_add_tcase(s, tc);

	tc = tcase_create("quote");
	tcase_add_loop_test(tc, test_pxe_yaml_roundtrip, 0,
	    (int)ARRAY_SIZE(yaml_cases));
	tcase_add_test(tc, test_pxe_ks_str);
	tcase_add_loop_test(tc, test_pxe_pubkey, 0,
	    (int)ARRAY_SIZE(key_cases));
	tcase_add_loop_test(tc, test_pxe_url_ok, 0,
	    (int)ARRAY_SIZE(url_cases));
	tcase_add_test(tc, test_pxe_netmask);
	suite_add_tcase(s, tc);

	tc = tcase_create("subst");
	tcase_add_loop_test(tc, test_pxe_subst, 0,
	    (int)ARRAY_SIZE(subst_cases));
	suite_add_tcase(s, tc);

	tc = tcase_create("serve_path");
	tcase_add_loop_test(tc, test_pxe_serve_path, 0,
	    (int)ARRAY_SIZE(path_cases));
	suite_add_tcase(s, tc);

	tc = tcase_create("render");
	tcase_set_timeout(tc, 30);
	tcase_add_loop_test(tc, test_pxe_render_rows, 0, 3);
	tcase_add_test(tc, test_pxe_render_errors);
	suite_add_tcase(s, tc);
	return s;
}

TEST_MAIN(pxe_suite)

#include "test.h"

#include <dirent.h>
#include <sys/stat.h>

#include "apply.h"
#include "buf.h"
#include "err.h"
#include "plan.h"
#include "render.h"
#include "strvec.h"

/*
 * Only the parts of apply that need no network: which steps a node gets,
 * and --dry-run, which renders every step of every selected node into a
 * directory and stops there.
 */

struct test_apply {
	struct plan		*p;
	struct prov_errs	 errs;
	struct plan_opts	 opts;
	char			*profiles;
	char			*templates;
};

static void
test_apply_loaded(struct test_apply *t)
{
	char	*e = NULL;

	if (t->errs.n > 0)
		e = prov_err_format(&t->errs.v[0]);
	ck_assert_msg(t->p != NULL, "plan did not load: %s", e);
	free(e);
}

static void
test_apply_init(struct test_apply *t)
{
	memset(t, 0, sizeof *t);
	t->opts = (struct plan_opts)PLAN_OPTS_INIT;
	t->profiles = test_path("profiles");
	t->templates = test_path("templates");
	t->opts.builtin_dir = t->profiles;
}

static void
test_apply_file(struct test_apply *t, const char *rel)
{
	char	*path = test_path(rel);

	test_apply_init(t);
	plan_load(&t->p, path, &t->opts, &t->errs);
	free(path);
	test_apply_loaded(t);
}

static void
test_apply_text(struct test_apply *t, const char *text)
{
	test_apply_init(t);
	plan_load_buf(&t->p, "t.yaml", text, strlen(text), &t->opts, &t->errs);
	test_apply_loaded(t);
}

static void
test_apply_release(struct test_apply *t)
{
	plan_free(t->p);
	prov_errs_release(&t->errs);
	strvec_clear(&t->opts.profile_dirs);
	free(t->profiles);
	free(t->templates);
}

static char *
test_apply_tmpdir(void)
{
	char	*d = xstrdup("/tmp/test_apply.XXXXXX");

	ck_assert_ptr_nonnull(mkdtemp(d));
	return d;
}

static void
test_apply_rmdir(char *d)
{
	char	*cmd = xasprintf("rm -rf '%s'", d);

	ck_assert_int_eq(system(cmd), 0);
	free(cmd);
	free(d);
}

/* Entries in dir other than . and .., joined by ' ' (caller frees). */
static char *
test_apply_ls(const char *dir)
{
	struct dirent	**ents = NULL;
	struct buf	  b = BUF_INIT;
	int		  n, i;

	n = scandir(dir, &ents, NULL, alphasort);
	if (n < 0)
		return xstrdup("(none)");
	for (i = 0; i < n; i++) {
		if (strcmp(ents[i]->d_name, ".") != 0 &&
		    strcmp(ents[i]->d_name, "..") != 0)
			buf_addf(&b, "%s%s", b.len ? " " : "", ents[i]->d_name);
		free(ents[i]);
	}
	free(ents);
	return buf_detach(&b, NULL);
}

/* The steps of node i, names joined by ' ' (caller frees). */
static char *
test_apply_steps(const struct plan *p, size_t i, size_t max)
{
	const struct apply_step	*steps[32];
	struct buf		 b = BUF_INIT;
	size_t			 n, k;

	n = apply_steps_for(p, &p->nodes[i], steps, max);
	ck_assert_uint_le(n, max);
	for (k = 0; k < n; k++)
		buf_addf(&b, "%s%s", k ? " " : "", steps[k]->name);
	return buf_detach(&b, NULL);
}

/* Steps per node. */

START_TEST(test_apply_table)
{
	static const struct {
		const char	*name;
		int		 flags;
		const char	*secret;
	} want[] = {
		{ "relay", APPLY_HEAD_FIRST | APPLY_RELAY_FIRST, NULL },
		{ "base", 0, NULL },
		{ "gpu-driver", 0, NULL },
		{ "container-runtime", 0, NULL },
		{ "storage", APPLY_HEAD_FIRST | APPLY_STORAGE_FIRST, NULL },
		{ "users", 0, NULL },
		{ "directory", APPLY_PLAN_SECRET, "ldap_bind_password" },
		{ "logging", 0, NULL },
		{ "munge", APPLY_HEAD_FIRST, "munge.key" },
		{ "slurmdbd", 0, NULL },
		{ "slurm", APPLY_HEAD_FIRST | APPLY_NEEDS_FACTS, NULL },
		{ "slurm-accounts", 0, NULL },
		{ "kubernetes", APPLY_HEAD_FIRST, "join" },
		{ "node-exporter", 0, NULL },
		{ "dcgm-exporter", 0, NULL },
		{ "prometheus", 0, NULL },
		{ "grafana", 0, NULL },
		{ "extras", 0, NULL },
	};
	char	*tdir = test_path("templates");
	size_t	 i;

	for (i = 0; i < ARRAY_SIZE(want); i++) {
		char		*path = xasprintf("%s/%s.sh", tdir,
		    apply_steps[i].name);
		struct stat	 st;

		ck_assert_str_eq(apply_steps[i].name, want[i].name);
		ck_assert_int_eq(apply_steps[i].flags, want[i].flags);
		if (want[i].secret == NULL)
			ck_assert_ptr_null(apply_steps[i].secret);
		else
			ck_assert_str_eq(apply_steps[i].secret, want[i].secret);
		ck_assert_ptr_nonnull(apply_steps[i].wanted);
		/* Every step has its template. */
		ck_assert_msg(stat(path, &st) == 0, "no template %s", path);
		free(path);
	}
	ck_assert_ptr_null(apply_steps[i].name);
	free(tdir);
}
END_TEST

START_TEST(test_apply_steps_testbed)
{
	struct test_apply	 t;
	char			*s;

	test_apply_file(&t, "examples/testbed.yaml");
	/*
	 * Driver branch set, no runtime, Slurm, node_exporter, Prometheus
	 * on head-01; directory, logging and slurmdbd too, which remove
	 * what an earlier plan's directory:, logging: and scheduling: left
	 * (or skip).
	 */
	s = test_apply_steps(t.p, 0, 32);
	ck_assert_str_eq(s, "base gpu-driver directory logging munge slurmdbd "
	    "slurm node-exporter prometheus");
	free(s);
	s = test_apply_steps(t.p, 1, 32);
	ck_assert_str_eq(s, "base gpu-driver directory logging munge slurm "
	    "node-exporter");
	free(s);
	s = test_apply_steps(t.p, 2, 32);
	ck_assert_str_eq(s, "base gpu-driver directory logging munge slurm "
	    "node-exporter");
	free(s);
	/* max bounds the answer. */
	s = test_apply_steps(t.p, 0, 2);
	ck_assert_str_eq(s, "base gpu-driver");
	free(s);
	s = test_apply_steps(t.p, 0, 0);
	ck_assert_str_eq(s, "");
	free(s);
	test_apply_release(&t);
}
END_TEST

/* Users and logs everywhere; accounting and the teams on the head. */
START_TEST(test_apply_steps_shared)
{
	struct test_apply	 t;
	char			*s;

	test_apply_file(&t, "examples/testbed-shared.yaml");
	s = test_apply_steps(t.p, 0, 32);
	ck_assert_str_eq(s, "base users directory logging munge slurmdbd "
	    "slurm slurm-accounts");
	free(s);
	s = test_apply_steps(t.p, 1, 32);
	ck_assert_str_eq(s, "base users directory logging munge slurm");
	free(s);
	test_apply_release(&t);
}
END_TEST

START_TEST(test_apply_steps_dgx)
{
	struct test_apply	 t;
	char			*s;
	size_t			 i;

	test_apply_file(&t, "examples/dgx-a100-pod.yaml");
	s = test_apply_steps(t.p, 0, 32);
	ck_assert_str_eq(s, "base gpu-driver container-runtime directory "
	    "logging munge slurmdbd slurm node-exporter dcgm-exporter prometheus grafana "
	    "extras");
	free(s);
	for (i = 1; i < 5; i++) {
		s = test_apply_steps(t.p, i, 32);
		ck_assert_str_eq(s, "base gpu-driver container-runtime "
		    "directory logging munge slurm node-exporter dcgm-exporter extras");
		free(s);
	}
	test_apply_release(&t);
}
END_TEST

static const struct {
	const char	*software;	/* after "software:\n" */
	const char	*head, *worker;
} steps_cases[] = {
	/* Only the OS: base, and node_exporter which is on by default. */
	{ "  os: { distro: debian, release: \"12\" }\n",
	  "base directory logging node-exporter",
	  "base directory logging node-exporter" },
	{ "  os: { distro: debian, release: \"12\" }\n"
	  "  monitoring: { node_exporter: false }\n",
	  "base directory logging", "base directory logging" },
	{ "  os: { distro: ubuntu, release: \"22.04\" }\n"
	  "  container_runtime: { engine: docker }\n"
	  "  orchestrator: { kind: kubernetes }\n"
	  "  monitoring: { node_exporter: false, grafana: w2 }\n",
	  "base container-runtime directory logging kubernetes",
	  "base container-runtime directory logging kubernetes" },
	{ "  os: { distro: rocky, release: \"9\" }\n"
	  "  container_runtime: { engine: none }\n"
	  "  orchestrator: { kind: none }\n"
	  "  monitoring: { node_exporter: false, dcgm_exporter: true, "
	  "prometheus: w1 }\n"
	  "  extras: [htop]\n",
	  "base directory logging dcgm-exporter extras",
	  "base directory logging dcgm-exporter prometheus extras" },
};

START_TEST(test_apply_steps_table)
{
	struct test_apply	 t;
	char			*text, *s;

	text = xasprintf("version: 1\ncluster: { name: c }\nnodes:\n"
	    "  - { name: h, role: head }\n  - { name: \"w[1-2]\" }\n"
	    "software:\n%s", steps_cases[_i].software);
	test_apply_text(&t, text);
	s = test_apply_steps(t.p, 0, 32);
	ck_assert_str_eq(s, steps_cases[_i].head);
	free(s);
	s = test_apply_steps(t.p, 1, 32);
	ck_assert_str_eq(s, steps_cases[_i].worker);
	free(s);
	free(text);
	test_apply_release(&t);
}
END_TEST

/* Dry run. */

static void
test_apply_dry_opts(struct apply_opts *o, const struct test_apply *t,
    const char *dir)
{
	memset(o, 0, sizeof *o);
	o->templates = t->templates;
	o->dry_run_dir = dir;
	o->max_fail = -1;
	o->run_id = "test";
}

/* Each file is exactly what render_step gives, and executable. */
static void
test_apply_check_file(const struct test_apply *t, const char *dir,
    size_t node, size_t k, const char *step)
{
	struct render_in	 rin;
	struct buf		 want = BUF_INIT, got = BUF_INIT;
	struct prov_err		 err = PROV_ERR_INIT;
	struct stat		 st;
	char			*path;

	memset(&rin, 0, sizeof rin);
	rin.plan = t->p;
	rin.templates = t->templates;
	ck_assert_ok(render_step(&want, &rin, node, step, &err), &err);
	path = xasprintf("%s/%s/%02zu-%s.sh", dir, t->p->nodes[node].name, k,
	    step);
	ck_assert_msg(buf_read_file(&got, path) == 0, "cannot read %s", path);
	ck_assert_uint_eq(got.len, want.len);
	ck_assert_int_eq(memcmp(got.buf, want.buf, want.len), 0);
	ck_assert_int_eq(stat(path, &st), 0);
	ck_assert_uint_eq(st.st_mode & 07777, 0755);
	free(path);
	buf_release(&want);
	buf_release(&got);
}

START_TEST(test_apply_dry_run_all)
{
	struct test_apply	 t;
	struct apply_opts	 o;
	struct apply_summary	 sum;
	struct prov_err		 err = PROV_ERR_INIT;
	char			*tmp = test_apply_tmpdir();
	char			*dir = xasprintf("%s/out/deeper", tmp);
	char			*state = xasprintf("%s/state.json", tmp);
	char			*ls, *sub;

	test_apply_file(&t, "examples/testbed.yaml");
	test_apply_dry_opts(&o, &t, dir);
	o.state_path = state;
	ck_assert_ok(apply_run(&sum, t.p, &o, &err), &err);
	ck_assert_uint_eq(sum.nodes, 3);
	ck_assert_uint_eq(sum.failed, 0);

	ls = test_apply_ls(dir);
	ck_assert_str_eq(ls, "head-01 worker-01 worker-02");
	free(ls);
	sub = xasprintf("%s/head-01", dir);
	ls = test_apply_ls(sub);
	ck_assert_str_eq(ls, "01-base.sh 02-gpu-driver.sh 03-directory.sh "
	    "04-logging.sh 05-munge.sh 06-slurmdbd.sh 07-slurm.sh "
	    "08-node-exporter.sh 09-prometheus.sh");
	free(ls);
	free(sub);
	sub = xasprintf("%s/worker-02", dir);
	ls = test_apply_ls(sub);
	ck_assert_str_eq(ls, "01-base.sh 02-gpu-driver.sh 03-directory.sh "
	    "04-logging.sh 05-munge.sh 06-slurm.sh 07-node-exporter.sh");
	free(ls);
	free(sub);
	test_apply_check_file(&t, dir, 0, 1, "base");
	test_apply_check_file(&t, dir, 0, 9, "prometheus");
	test_apply_check_file(&t, dir, 1, 6, "slurm");
	test_apply_check_file(&t, dir, 2, 7, "node-exporter");

	/* A dry run keeps no state and needs no SSH. */
	ls = test_apply_ls(tmp);
	ck_assert_str_eq(ls, "out");
	free(ls);

	/* Again into the same dir: the files are replaced, nothing else. */
	ck_assert_ok(apply_run(&sum, t.p, &o, &err), &err);
	sub = xasprintf("%s/worker-01", dir);
	ls = test_apply_ls(sub);
	ck_assert_str_eq(ls, "01-base.sh 02-gpu-driver.sh 03-directory.sh "
	    "04-logging.sh 05-munge.sh 06-slurm.sh 07-node-exporter.sh");
	free(ls);
	free(sub);

	free(state);
	free(dir);
	test_apply_rmdir(tmp);
	test_apply_release(&t);
}
END_TEST

/*
 * The directory's bind password is read when apply starts, before any
 * node is reached: a file anyone may read, or one whose first line sssd
 * could not hold, stops the run with the plan's location; a dry run
 * reads none (its scripts never hold it).  An RPM distribution's plan
 * with a directory is refused too.
 */
START_TEST(test_apply_directory_secret)
{
	static const struct {
		const char	*content;
		int		 mode;
		const char	*msg;		/* NULL: read, then SSH fails */
	} cases[] = {
		{ "s3cret\n", 0644, "can be read by anyone" },
		{ "\nsecret\n", 0600, "has no usable first line" },
		{ " s3cret\n", 0600, "has no usable first line" },
		{ "s3\tcret\n", 0600, "has no usable first line" },
	};
	struct test_apply	 t;
	struct apply_opts	 o;
	struct apply_summary	 sum;
	struct prov_err		 err = PROV_ERR_INIT;
	char			*tmp = test_apply_tmpdir();
	char			*pw = xasprintf("%s/bind", tmp);
	char			*state = xasprintf("%s/state.json", tmp);
	char			*text;
	size_t			 i;
	FILE			*fp;

	text = xasprintf("version: 1\ncluster: { name: d }\nnodes: [ { name: "
	    "n1, address: 192.0.2.1 } ]\nssh: { connect_timeout_s: 1 }\n"
	    "directory:\n  ldap:\n    uri: ldaps://ldap.example.com\n"
	    "    base: dc=example,dc=com\n    bind_dn: cn=svc,dc=example,"
	    "dc=com\n    bind_password_file: %s\n", pw);
	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		fp = fopen(pw, "w");
		ck_assert_ptr_nonnull(fp);
		fputs(cases[i].content, fp);
		ck_assert_int_eq(fclose(fp), 0);
		ck_assert_int_eq(chmod(pw, (mode_t)cases[i].mode), 0);
		test_apply_text(&t, text);
		test_apply_dry_opts(&o, &t, NULL);
		o.state_path = state;
		ck_assert_int_eq(apply_run(&sum, t.p, &o, &err), -1);
		ck_assert_msg(strstr(err.msg, cases[i].msg) != NULL,
		    "case %zu: %s", i, err.msg);
		ck_assert_uint_eq(err.loc.line, 10);
		ck_assert_uint_eq(err.loc.col, 25);
		prov_err_release(&err);
		/* a dry run does not read it */
		o.dry_run_dir = tmp;
		ck_assert_ok(apply_run(&sum, t.p, &o, &err), &err);
		test_apply_release(&t);
	}
	free(text);

	text = xasprintf("version: 1\ncluster: { name: d }\nnodes: [ { name: "
	    "n1, address: 192.0.2.1 } ]\nsoftware: { os: { distro: rocky, "
	    "release: \"9\" } }\ndirectory: { ldap: { uri: ldaps://ldap."
	    "example.com, base: \"dc=example,dc=com\" } }\n");
	test_apply_text(&t, text);
	test_apply_dry_opts(&o, &t, tmp);
	ck_assert_int_eq(apply_run(&sum, t.p, &o, &err), -1);
	ck_assert_ptr_nonnull(strstr(err.msg, "the plan's OS is rocky"));
	ck_assert_uint_eq(err.loc.line, 5);
	prov_err_release(&err);
	test_apply_release(&t);
	free(text);
	free(pw);
	free(state);
	test_apply_rmdir(tmp);
}
END_TEST

START_TEST(test_apply_dry_run_select)
{
	struct test_apply	 t;
	struct apply_opts	 o;
	struct apply_summary	 sum;
	struct prov_err		 err = PROV_ERR_INIT;
	char			*tmp = test_apply_tmpdir();
	char			*ls, *sub;

	test_apply_file(&t, "examples/dgx-a100-pod.yaml");
	test_apply_dry_opts(&o, &t, tmp);
	o.nodes = "dgx[02-03]";
	ck_assert_ok(apply_run(&sum, t.p, &o, &err), &err);
	ck_assert_uint_eq(sum.nodes, 2);
	ls = test_apply_ls(tmp);
	ck_assert_str_eq(ls, "dgx02 dgx03");
	free(ls);
	sub = xasprintf("%s/dgx03", tmp);
	ls = test_apply_ls(sub);
	ck_assert_str_eq(ls, "01-base.sh 02-gpu-driver.sh "
	    "03-container-runtime.sh 04-directory.sh 05-logging.sh "
	    "06-munge.sh 07-slurm.sh 08-node-exporter.sh 09-dcgm-exporter.sh "
	    "10-extras.sh");
	free(ls);
	free(sub);
	test_apply_check_file(&t, tmp, 2, 7, "slurm");
	test_apply_check_file(&t, tmp, 3, 10, "extras");
	test_apply_rmdir(tmp);
	test_apply_release(&t);
}
END_TEST

START_TEST(test_apply_dry_run_errors)
{
	struct test_apply	 t;
	struct apply_opts	 o;
	struct apply_summary	 sum;
	struct prov_err		 err = PROV_ERR_INIT;
	char			*tmp = test_apply_tmpdir();
	char			*dir, *file, *want, *ls;

	test_apply_file(&t, "examples/testbed.yaml");
	dir = xasprintf("%s/out", tmp);
	test_apply_dry_opts(&o, &t, dir);

	/* A node the plan does not have. */
	o.nodes = "worker-0[1-3]";
	ck_assert_int_eq(apply_run(&sum, t.p, &o, &err), -1);
	ck_assert_str_eq(err.msg, "unknown node 'worker-03' in "
	    "'worker-0[1-3]'");
	prov_err_release(&err);
	/* An empty selection. */
	o.nodes = "";
	ck_assert_int_eq(apply_run(&sum, t.p, &o, &err), -1);
	ck_assert_str_eq(err.msg, "empty hostlist");
	prov_err_release(&err);
	ls = test_apply_ls(tmp);
	ck_assert_str_eq(ls, "");
	free(ls);
	o.nodes = NULL;

	/* Templates missing: the first file fails, the run says why. */
	o.templates = tmp;
	ck_assert_int_eq(apply_run(&sum, t.p, &o, &err), -1);
	want = xasprintf("cannot read template '%s/lib.sh': No such file or "
	    "directory", tmp);
	ck_assert_str_eq(err.msg, want);
	free(want);
	prov_err_release(&err);
	o.templates = t.templates;

	/* A file where the output dir should be. */
	file = xasprintf("%s/file", tmp);
	ck_assert_int_eq(buf_write_file_atomic(file, "x", 1, 0644), 0);
	free(dir);
	dir = xasprintf("%s/file/out", tmp);
	o.dry_run_dir = dir;
	ck_assert_int_eq(apply_run(&sum, t.p, &o, &err), -1);
	want = xasprintf("cannot create '%s': Not a directory", dir);
	ck_assert_str_eq(err.msg, want);
	free(want);
	prov_err_release(&err);

	free(file);
	free(dir);
	test_apply_rmdir(tmp);
	test_apply_release(&t);

	/*
	 * A package relay (apt-cacher-ng) in a Rocky plan: the plan loads
	 * (check and pxe have no use for the relay), apply refuses it,
	 * located at the key, before writing anything.
	 */
	test_apply_text(&t, "version: 1\ncluster: { name: lab }\n"
	    "nodes: [ { name: h1, role: head }, { name: c1 } ]\n"
	    "software:\n  os: { distro: rocky, release: \"9\" }\n"
	    "  relay: { node: c1 }\n");
	tmp = test_apply_tmpdir();
	dir = xasprintf("%s/out", tmp);
	test_apply_dry_opts(&o, &t, dir);
	ck_assert_int_eq(apply_run(&sum, t.p, &o, &err), -1);
	ck_assert_str_eq(err.msg, "the package relay is apt-cacher-ng, for "
	    "Debian and Ubuntu; the plan's OS is rocky");
	ck_assert_uint_eq(err.loc.line, 6);
	prov_err_release(&err);
	ls = test_apply_ls(tmp);
	ck_assert_str_eq(ls, "");
	free(ls);
	free(dir);
	test_apply_rmdir(tmp);
	test_apply_release(&t);
}
END_TEST

static Suite *
apply_suite(void)
{
	Suite	*s = suite_create("apply");
	TCase	*tc;

	tc = tcase_create("steps");
	tcase_set_timeout(tc, 30);
	tcase_add_test(tc, test_apply_table);
	tcase_add_test(tc, test_apply_steps_testbed);
	tcase_add_test(tc, test_apply_steps_shared);
	tcase_add_test(tc, test_apply_steps_dgx);
	tcase_add_loop_test(tc, test_apply_steps_table, 0,
	    (int)ARRAY_SIZE(steps_cases));
	suite_add_tcase(s, tc);

	tc = tcase_create("dry_run");
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_apply_dry_run_all);
	tcase_add_test(tc, test_apply_dry_run_select);
	tcase_add_test(tc, test_apply_directory_secret);
	tcase_add_test(tc, test_apply_dry_run_errors);
	suite_add_tcase(s, tc);
	return s;
}

TEST_MAIN(apply_suite)

#include "test.h"

#include <sys/stat.h>

#include "arc.h"
#include "buf.h"
#include "bundle.h"
#include "err.h"
#include "plan.h"
#include "render.h"
#include "sig.h"
#include "str.h"
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

/* A head without GPUs, an HGX node (SXM GPUs) and a PCIe GPU node. */
static struct plan *
test_bundle_plan_nodes(const char *software)
{
	struct plan		*p = NULL;
	struct plan_opts	 o = PLAN_OPTS_INIT;
	struct prov_errs	 errs = PROV_ERRS_INIT;
	char			*dir = test_path("profiles");
	char			*y = xasprintf(
	    "version: 1\n"
	    "cluster: { name: t }\n"
	    "networks: { m: { cidr: 10.1.0.0/16, kind: ethernet, gbps: 1 } }\n"
	    "hardware:\n"
	    "  hgx: { system: dgx-h100 }\n"
	    "  pcie: { system: dell-r750xa, gpus: { model: a100-pcie-80gb, "
	    "count: 2 } }\n"
	    "nodes:\n"
	    "  - { name: h, role: head, address: 10.1.0.1 }\n"
	    "  - { name: s, role: worker, hardware: hgx, address: 10.1.0.2 }\n"
	    "  - { name: g, role: worker, hardware: pcie, address: 10.1.0.3 }\n"
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
		"nvidia-driver-550-server", "linux-headers-generic",
		"cuda-toolkit-12-4", "prometheus-node-exporter", "prometheus",
		"htop", "jq", NULL
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
	/* the DCGM exporter is an image, no package */
	ck_assert_int_lt(strvec_find(&b.wanted, "datacenter-gpu-manager"), 0);
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

/*
 * kubeadm's own images by release, as `kubeadm config images list
 * --kubernetes-version vX` prints them: pause, etcd and CoreDNS move with
 * kubeadm patch releases, not only with minors.
 */
START_TEST(test_bundle_kubeadm_images)
{
	static const struct {
		const char	*version;
		const char	*pause, *etcd, *coredns;	/* NULL: none */
	} cases[] = {
		{ "1.30.2", "3.9", "3.5.12-0", "v1.11.1" },
		{ "v1.30.4", "3.9", "3.5.12-0", "v1.11.1" },
		{ "1.30.5-1.1", "3.9", "3.5.15-0", "v1.11.3" },
		{ "1.30.14", "3.9", "3.5.15-0", "v1.11.3" },
		{ "1.28.0", "3.9", "3.5.9-0", "v1.10.1" },
		{ "1.29.11-1.1", "3.9", "3.5.16-0", "v1.11.1" },
		{ "1.31.0", "3.10", "3.5.15-0", "v1.11.1" },
		{ "1.31.14", "3.10", "3.5.24-0", "v1.11.3" },
		{ "1.32.9", "3.10", "3.5.16-0", "v1.11.3" },
		{ "1.33.6", "3.10", "3.5.24-0", "v1.12.0" },
		{ "1.34.1", "3.10.1", "3.6.4-0", "v1.12.1" },
		{ "1:1.35.0-1.1", "3.10.1", "3.6.6-0", "v1.13.1" },
		{ "1.36.5", "3.10.2", "3.6.8-0", "v1.14.2" },
		{ "1.30.15", NULL, NULL, NULL },	/* past the table */
		{ "1.26.0", NULL, NULL, NULL },
		{ "1.30", NULL, NULL, NULL },
		{ "2.30.1", NULL, NULL, NULL },
		{ "1.30.2x", NULL, NULL, NULL },
		{ "", NULL, NULL, NULL },
	};
	size_t	i;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		struct strvec	v = STRVEC_INIT;
		char		*w;

		if (cases[i].pause == NULL) {
			ck_assert_msg(bundle_kubeadm_images(&v,
			    cases[i].version) == -1 && v.n == 0, "'%s'",
			    cases[i].version);
			continue;
		}
		ck_assert_msg(bundle_kubeadm_images(&v, cases[i].version) == 0,
		    "'%s'", cases[i].version);
		ck_assert_uint_eq(v.n, 3);
		w = xasprintf("registry.k8s.io/pause:%s", cases[i].pause);
		ck_assert_str_eq(v.v[0], w);
		free(w);
		w = xasprintf("registry.k8s.io/etcd:%s", cases[i].etcd);
		ck_assert_str_eq(v.v[1], w);
		free(w);
		w = xasprintf("registry.k8s.io/coredns/coredns:%s",
		    cases[i].coredns);
		ck_assert_str_eq(v.v[2], w);
		free(w);
		strvec_clear(&v);
	}
}
END_TEST

/* Kubernetes at a whole version: its kube-* images; --image adds more. */
START_TEST(test_bundle_plan_k8s_images)
{
	struct plan		*p = test_bundle_plan("{ os: { distro: debian, "
	    "release: \"12\" }, container_runtime: { engine: containerd },"
	    " orchestrator: { kind: kubernetes, kubernetes: "
	    "{ version: \"1.30.2\" } } }");
	struct bundle		 b = BUNDLE_INIT;
	struct bundle_opts	 o = BUNDLE_OPTS_INIT;
	struct strvec		 src = STRVEC_INIT, im = STRVEC_INIT;
	struct prov_err		 err = PROV_ERR_INIT;

	strvec_push(&src, "deb [trusted=yes] http://127.0.0.1/ ./");
	strvec_push(&im, "docker.io/library/busybox:1.36");
	strvec_push(&im, "registry.k8s.io/kube-proxy:v1.30.2");	/* twice */
	o.sources = &src;
	o.images = &im;
	ck_assert_ok(bundle_plan(&b, p, &o, &err), &err);
	ck_assert_uint_eq(b.images.n, 5);
	ck_assert_str_eq(b.images.v[0],
	    "registry.k8s.io/kube-apiserver:v1.30.2");
	ck_assert_str_eq(b.images.v[3], "registry.k8s.io/kube-proxy:v1.30.2");
	ck_assert_str_eq(b.images.v[4], "docker.io/library/busybox:1.36");
	ck_assert_str_eq(b.k8s_version, "1.30.2");
	bundle_release(&b);
	strvec_push(&im, "Not/An:Image:Ref");
	ck_assert_int_eq(bundle_plan(&b, p, &o, &err), -1);
	bundle_release(&b);
	strvec_clear(&src);
	strvec_clear(&im);
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

START_TEST(test_bundle_plan_cuda_debian)
{
	struct plan		*p = test_bundle_plan("{ os: { distro: debian, "
	    "release: \"12\" }, gpu_driver: { branch: \"550\","
	    " cuda: \"12.4.1\" }, container_runtime: { engine: apptainer },"
	    " extras: [ jupyter, pytorch, python3-torch ] }");
	struct bundle		 b = BUNDLE_INIT;
	struct bundle_opts	 o = BUNDLE_OPTS_INIT;
	struct strvec		 src = STRVEC_INIT;
	struct prov_err		 err = PROV_ERR_INIT;

	strvec_push(&src, "deb [trusted=yes] http://127.0.0.1/ ./");
	o.sources = &src;
	ck_assert_ok(bundle_plan(&b, p, &o, &err), &err);
	/* NVIDIA's Debian driver, the release's kernel headers */
	ck_assert_int_ge(strvec_find(&b.wanted, "cuda-drivers-550"), 0);
	ck_assert_int_ge(strvec_find(&b.wanted, "linux-headers-amd64"), 0);
	ck_assert_int_lt(strvec_find(&b.wanted, "nvidia-driver"), 0);
	/* the toolkit of CUDA 12.4.1 is cuda-toolkit-12-4 */
	ck_assert_int_ge(strvec_find(&b.wanted, "cuda-toolkit-12-4"), 0);
	ck_assert_int_lt(strvec_find(&b.wanted, "cuda-toolkit-12-4-1"), 0);
	/* no SXM GPU in the plan: no Fabric Manager */
	ck_assert_int_lt(strvec_find(&b.wanted, "nvidia-fabricmanager-550"), 0);
	ck_assert_int_ge(strvec_find(&b.wanted, "jupyter-notebook"), 0);
	ck_assert_int_lt(strvec_find(&b.wanted, "jupyter"), 0);
	/* apptainer only where an index has it; python3-torch named as an
	   extra is wanted whatever pytorch says */
	ck_assert_int_ge(strvec_find(&b.optional, "apptainer"), 0);
	ck_assert_int_ge(strvec_find(&b.wanted, "python3-torch"), 0);
	ck_assert_int_lt(strvec_find(&b.optional, "python3-torch"), 0);
	bundle_release(&b);
	strvec_clear(&src);
	plan_free(p);
	prov_err_release(&err);
}
END_TEST

/*
 * An optional package (the step skips it where no index has it) in no
 * index is listed as missing, not an error; a wanted one still is, and
 * the error names it alone.  A flat repository made here with dpkg-deb.
 */
START_TEST(test_bundle_resolve_optional)
{
	struct plan		*p = test_bundle_plan("{ os: { distro: debian, "
	    "release: \"12\" }, container_runtime: { engine: apptainer },"
	    " extras: [ pytorch ] }");
	struct bundle		 b = BUNDLE_INIT;
	struct bundle_opts	 o = BUNDLE_OPTS_INIT;
	struct strvec		 src = STRVEC_INIT, pk = STRVEC_INIT;
	struct prov_err		 err = PROV_ERR_INIT;
	struct buf		 sh = BUF_INIT;
	char			*dir = xstrdup("/tmp/test_bundle.XXXXXX");
	size_t			 i;

	ck_assert_ptr_nonnull(mkdtemp(dir));
	strvec_pushf(&src, "deb [trusted=yes] file:%s/repo ./", dir);
	o.sources = &src;
	ck_assert_ok(bundle_plan(&b, p, &o, &err), &err);
	ck_assert_int_ge(strvec_find(&b.optional, "apptainer"), 0);
	ck_assert_int_ge(strvec_find(&b.optional, "python3-torch"), 0);
	buf_addf(&sh, "set -e; cd '%s'; mkdir repo\n"
	    "mk() {\n\tmkdir -p src/$1/DEBIAN\n"
	    "\tprintf 'Package: %%s\\nVersion: 1\\nArchitecture: all\\n"
	    "Maintainer: t <t@example.org>\\nDescription: t\\n' $1 "
	    ">src/$1/DEBIAN/control\n"
	    "\tdpkg-deb -Znone --root-owner-group --build src/$1 "
	    "repo/$1_1_all.deb >/dev/null\n}\n", dir);
	for (i = 0; i < b.wanted.n; i++)
		if (strvec_find(&b.optional, b.wanted.v[i]) < 0)
			buf_addf(&sh, "mk %s\n", b.wanted.v[i]);
	buf_adds(&sh, "cd repo && dpkg-scanpackages -m . /dev/null >Packages "
	    "2>/dev/null\n");
	ck_assert_msg(system(sh.buf) == 0, "cannot make the repository "
	    "(dpkg-deb, dpkg-scanpackages: package dpkg-dev)");
	ck_assert_ok(bundle_resolve(&b, &o, &err), &err);
	ck_assert_uint_eq(b.missing.n, 2);
	ck_assert_int_ge(strvec_find(&b.missing, "apptainer"), 0);
	ck_assert_int_ge(strvec_find(&b.missing, "python3-torch"), 0);
	ck_assert_uint_eq(b.n, b.wanted.n - 2);
	bundle_release(&b);

	/* Named with --package, python3-torch is wanted for sure. */
	strvec_push(&pk, "python3-torch");
	o.packages = &pk;
	ck_assert_ok(bundle_plan(&b, p, &o, &err), &err);
	ck_assert_int_eq(bundle_resolve(&b, &o, &err), -1);
	ck_assert_msg(strstr(err.msg, "1 package in no index: python3-torch") !=
	    NULL, "%s", err.msg);
	bundle_release(&b);

	buf_reset(&sh);
	buf_addf(&sh, "rm -rf '%s'", dir);
	ck_assert_int_eq(system(sh.buf), 0);
	buf_release(&sh);
	strvec_clear(&src);
	strvec_clear(&pk);
	free(dir);
	plan_free(p);
	prov_err_release(&err);
}
END_TEST

/*
 * The bundle holds what the templates install.
 *
 * Each templates/STEP.sh that installs packages names them in one
 * function, step_packages, and passes only its output to pkg_install
 * (checked first, on the text).  Then, for each distribution and plan
 * below, every step is rendered for every node exactly as apply renders
 * it, with a harness in place of prov_run_step: a fake os-release and PCI
 * tree (the plan's GPUs, an NVSwitch with SXM ones), prov_skip ending the
 * run quietly, the step's *_applies function, then step_packages.  Every
 * name printed must be in bundle_plan()'s list, and every name of that
 * list must be printed by some step (or installed by lib.sh itself).
 *
 * The one name a node computes from itself is linux-headers-$(uname -r):
 * the plan cannot know the kernel, so the bundle holds the meta package
 * whose dependency is the release's kernel headers (docs/bundle.md).
 */

#define TB_KERNEL	"provision-test-kernel"
#define TB_RUNNER	"\nprov_run_step\n"	/* a rendered script's end */
#define TB_LOWER	"abcdefghijklmnopqrstuvwxyz"

struct tb_case {
	const char	*distro, *release, *codename;
	const char	*headers;	/* for linux-headers-$(uname -r) */
	const char	*software;	/* after `os: {...}, ` */
};

static const char tb_slurm[] =
    "gpu_driver: { branch: \"550\", cuda: \"12.4.1\" },"
    " container_runtime: { engine: docker, nvidia_toolkit: true },"
    " orchestrator: { kind: slurm },"
    " monitoring: { node_exporter: true, dcgm_exporter: true, prometheus: h,"
    " grafana: h }, extras: [ python3, jupyter, pytorch, htop ]";
static const char tb_k8s[] =
    "gpu_driver: { branch: \"535\" },"
    " container_runtime: { engine: containerd, nvidia_toolkit: true },"
    " orchestrator: { kind: kubernetes, kubernetes: { version: \"1.30\" } },"
    " monitoring: { node_exporter: true, dcgm_exporter: true, prometheus: h },"
    " extras: [ torch, jq ], relay: { images: [ { registry: docker.io },"
    " { registry: nvcr.io } ] }";
static const char tb_apptainer[] =
    "gpu_driver: { branch: \"560\", cuda: \"12.6\" },"
    " container_runtime: { engine: apptainer, nvidia_toolkit: true },"
    " orchestrator: { kind: none }, monitoring: { grafana: s },"
    " relay: { node: s }";
/*
 * storage: and directory: are top-level keys: they follow the software
 * mapping this closes.
 */
static const char tb_nfs[] =
    "orchestrator: { kind: slurm } }\n"
    "directory: { ldap: { uri: ldaps://ldap.example.com,"
    " base: \"dc=example,dc=com\" } }\n"
    "storage: { home: { server: h, path: /srv/home, mount: /home },"
    " data: { server: nas.example.com, path: /data, mount: /data,"
    " clients: g, readonly: true }";

static const struct tb_case tb_cases[] = {
	{ "debian", "12", "bookworm", "linux-headers-amd64", tb_slurm },
	{ "debian", "12", "bookworm", "linux-headers-amd64", tb_k8s },
	{ "debian", "12", "bookworm", "linux-headers-amd64", tb_apptainer },
	{ "debian", "12", "bookworm", "linux-headers-amd64", tb_nfs },
	{ "ubuntu", "22.04", "jammy", "linux-headers-generic", tb_slurm },
	{ "ubuntu", "22.04", "jammy", "linux-headers-generic", tb_k8s },
	{ "ubuntu", "22.04", "jammy", "linux-headers-generic", tb_apptainer },
	{ "ubuntu", "22.04", "jammy", "linux-headers-generic", tb_nfs },
	{ "ubuntu", "24.04", "noble", "linux-headers-generic", tb_slurm },
	{ "ubuntu", "24.04", "noble", "linux-headers-generic", tb_k8s },
	{ "ubuntu", "24.04", "noble", "linux-headers-generic", tb_apptainer },
};

/* Run `cmd` with sh; its stdout in out, its status returned. */
static int
tb_popen(struct buf *out, const char *cmd)
{
	FILE	*fp = popen(cmd, "r");
	char	 blk[4096];
	size_t	 n;

	ck_assert_ptr_nonnull(fp);
	while ((n = fread(blk, 1, sizeof blk, fp)) > 0)
		buf_add(out, blk, n);
	return pclose(fp);
}

/* The step templates: every templates/STEP.sh but lib.sh, sorted. */
static void
tb_steps(struct strvec *out, const char *dir)
{
	struct buf	 list = BUF_INIT;
	struct strvec	 all = STRVEC_INIT;
	char		*cmd = xasprintf("cd '%s' && ls *.sh", dir);
	size_t		 i;

	ck_assert_int_eq(tb_popen(&list, cmd), 0);
	strvec_split(&all, list.buf, '\n', 1);
	for (i = 0; i < all.n; i++)
		if (strcmp(all.v[i], "lib.sh") != 0)
			strvec_push_nodup(out, xstrndup(all.v[i],
			    strlen(all.v[i]) - 3));
	ck_assert_uint_ge(out->n, 11);
	strvec_clear(&all);
	buf_release(&list);
	free(cmd);
}

static char *
tb_read(const char *dir, const char *step)
{
	struct buf	 b = BUF_INIT;
	char		*path = xasprintf("%s/%s.sh", dir, step);

	ck_assert_msg(buf_read_file(&b, path) == 0, "cannot read %s", path);
	free(path);
	return buf_detach(&b, NULL);
}

static char *
tb_write(const char *dir, const char *name, const char *text)
{
	char	*path = xasprintf("%s/%s", dir, name);

	ck_assert_int_eq(buf_write_file_atomic(path, text, strlen(text), 0644),
	    0);
	return path;
}

/* The code of a line: "" for a comment. */
static const char *
tb_code(const char *line)
{
	line += strspn(line, " \t");
	return *line == '#' ? "" : line;
}

/* The literal names of lib.sh's own pkg_install calls (prov_fetch's). */
static void
tb_lib_names(struct strvec *out, const char *text)
{
	struct strvec	 lines = STRVEC_INIT;
	size_t		 i, k;

	strvec_split(&lines, text, '\n', 1);
	for (i = 0; i < lines.n; i++) {
		const char	*c = tb_code(lines.v[i]);
		struct strvec	 w = STRVEC_INIT;

		if (!str_starts(c, "pkg_install "))
			continue;
		strvec_split(&w, c, ' ', 1);
		for (k = 1; k < w.n && strchr("|&;#", w.v[k][0]) == NULL; k++)
			strvec_push(out, w.v[k]);
		strvec_clear(&w);
	}
	ck_assert_msg(strvec_find(out, "curl") >= 0, "lib.sh's pkg_install "
	    "lines not found");
	strvec_clear(&lines);
}

/*
 * The arguments of a pkg_install call: " $(step_packages [PART])" and
 * then nothing but the end of the command.
 */
static int
tb_call_ok(const char *a)
{
	static const char *const ends[] = { "||", "&&", ">", "2>", ";", "|",
	    NULL };
	size_t	i;

	if (!str_starts(a, " $(step_packages"))
		return 0;
	a += strlen(" $(step_packages");
	if (*a == ' ') {
		a++;
		if (strspn(a, TB_LOWER) == 0)
			return 0;
		a += strspn(a, TB_LOWER);
	}
	if (*a++ != ')')
		return 0;
	a += strspn(a, " \t");
	if (*a == '\0')
		return 1;
	for (i = 0; ends[i] != NULL; i++)
		if (str_starts(a, ends[i]))
			return 1;
	return 0;
}

/*
 * Check one line of templates/STEP.sh: no install around pkg_install, and
 * pkg_install takes step_packages alone.  Returns its pkg_install calls.
 */
static int
tb_check_line(const char *step, size_t lineno, const char *line)
{
	static const char *const banned[] = {
		"apt_install", "apt_offline_install", "apt_cmd",
		"apt-get install", "apt install", "dpkg -i", NULL
	};
	const char	*c = tb_code(line), *q;
	size_t		 j;
	int		 calls = 0;

	for (j = 0; banned[j] != NULL; j++)
		ck_assert_msg(strstr(c, banned[j]) == NULL, "templates/%s.sh:"
		    "%zu: '%s': install with pkg_install $(step_packages) (the"
		    " offline bundle must know the names)", step, lineno,
		    banned[j]);
	for (q = c; (q = strstr(q, "pkg_install")) != NULL; q++) {
		const char	*a = q + strlen("pkg_install");

		if (*a == 'e' || *a == '_' || (q > c && (q[-1] == '_' ||
		    strchr(TB_LOWER, q[-1]) != NULL)))
			continue;	/* pkg_installed, another name */
		calls++;
		ck_assert_msg(tb_call_ok(a), "templates/%s.sh:%zu: '%s': "
		    "pkg_install takes $(step_packages [PART]) only, so that "
		    "the offline bundle can be checked against it", step,
		    lineno, c);
	}
	return calls;
}

START_TEST(test_bundle_templates_use_step_packages)
{
	char		*dir = test_path("templates");
	struct strvec	 steps = STRVEC_INIT;
	size_t		 i, k;

	tb_steps(&steps, dir);
	for (i = 0; i < steps.n; i++) {
		char		*text = tb_read(dir, steps.v[i]);
		struct strvec	 lines = STRVEC_INIT;
		int		 calls = 0;

		strvec_split(&lines, text, '\n', 0);
		for (k = 0; k < lines.n; k++)
			calls += tb_check_line(steps.v[i], k + 1, lines.v[k]);
		ck_assert_msg(calls == 0 ||
		    strstr(text, "\nstep_packages() {") != NULL, "templates/"
		    "%s.sh installs packages but defines no step_packages",
		    steps.v[i]);
		strvec_clear(&lines);
		free(text);
	}
	strvec_clear(&steps);
	free(dir);
}
END_TEST

/* A fake PCI tree: nothing, an NVIDIA GPU, or one and an NVSwitch. */
static char *
tb_pci(const char *dir, const char *kind)
{
	char	*root = xasprintf("%s/pci-%s", dir, kind);
	char	*cmd = xasprintf("mkdir -p '%s' && cd '%s' && "
	    "if [ %s != none ]; then mkdir -p 0000:01:00.0 && "
	    "echo 0x10de >0000:01:00.0/vendor && "
	    "echo 0x030200 >0000:01:00.0/class; fi && "
	    "if [ %s = sxm ]; then mkdir -p 0000:02:00.0 && "
	    "echo 0x10de >0000:02:00.0/vendor && "
	    "echo 0x068000 >0000:02:00.0/class; fi", root, root, kind, kind);

	ck_assert_int_eq(system(cmd), 0);
	free(cmd);
	return root;
}

/* The GPUs the plan gives node n, as lib/bundle.c reads them. */
static const char *
tb_node_gpus(const struct plan_node *n)
{
	const struct cat_gpu	*g = n->hw != NULL ? n->hw->gpu_cat : NULL;

	if (n->hw == NULL || n->hw->ngpus <= 0)
		return "none";
	if (g != NULL && g->form_factor != NULL &&
	    str_starts(g->form_factor, "sxm"))
		return "sxm";
	return "gpu";
}

static const char tb_harness[] =
    "\n# tests/unit/test_bundle.c: print what the step installs here\n"
    "prov_skip() { exit 0; }\n"
    "prov_fail() { printf 'prov_fail: %s\\n' \"$*\" >&2; exit 3; }\n"
    "pkg_available() { return 0; }\n"
    "uname() {\n"
    "\tcase ${1:-} in\n"
    "\t-r) echo " TB_KERNEL " ;;\n"
    "\t-m) echo x86_64 ;;\n"
    "\t*) command uname \"$@\" ;;\n"
    "\tesac\n"
    "}\n"
    "exec </dev/null\n"
    "prov_os_detect\n"
    "prov_os_match\n"
    "PROV_SYSTEMD=1\n";

/* The *_applies function a template defines, or NULL. */
static char *
tb_applies(const char *text)
{
	const char	*p = text;

	while ((p = strstr(p, "_applies() {")) != NULL) {
		const char	*s = p;
		size_t		 n;

		while (s > text && s[-1] != '\n')
			s--;
		n = (size_t)(p - s) + strlen("_applies");
		if (p > s && strspn(s, TB_LOWER "0123456789_") == n)
			return xstrndup(s, n);
		p++;
	}
	return NULL;
}

/*
 * What `step` installs on node i: its rendered script with the harness
 * run under sh, the node's os-release and PCI tree in `env`.
 */
static void
tb_step_packages(struct strvec *out, const struct render_in *in, size_t i,
    const char *step, const char *dir, const char *env)
{
	struct buf	 s = BUF_INIT, o = BUF_INIT;
	struct prov_err	 err = PROV_ERR_INIT;
	char		*text = tb_read(in->templates, step);
	char		*app = tb_applies(text), *path, *cmd;
	size_t		 n = strlen(TB_RUNNER), w;
	int		 st;

	ck_assert_ok(render_step(&s, in, i, step, &err), &err);
	ck_assert(s.len > n && strcmp(s.buf + s.len - n, TB_RUNNER) == 0);
	buf_setlen(&s, s.len - n);
	buf_adds(&s, tb_harness);
	buf_addf(&s, "%s\nif command -v step_packages >/dev/null; then\n"
	    "\tstep_packages\nfi\n", app != NULL ? app : ":");
	path = tb_write(dir, "step.sh", s.buf);
	cmd = xasprintf("%s sh '%s'", env, path);
	st = tb_popen(&o, cmd);
	ck_assert_msg(st == 0, "node %s, step %s: the harness failed (status "
	    "%d): %s", in->plan->nodes[i].name, step, st, o.buf);
	for (w = 0; w < o.len; w++)
		if (o.buf[w] == '\n' || o.buf[w] == '\t')
			o.buf[w] = ' ';
	strvec_split(out, o.buf, ' ', 1);
	buf_release(&s);
	buf_release(&o);
	prov_err_release(&err);
	free(cmd);
	free(path);
	free(app);
	free(text);
}

START_TEST(test_bundle_matches_templates)
{
	const struct tb_case	*tc = &tb_cases[_i];
	char			*dir = xstrdup("/tmp/test_bundle.XXXXXX");
	char			*tdir = test_path("templates");
	char			*sw, *osr, *libtext, *dcgm, *cmd;
	struct plan		*p;
	struct bundle		 b = BUNDLE_INIT;
	struct bundle_opts	 o = BUNDLE_OPTS_INIT;
	struct strvec		 src = STRVEC_INIT, steps = STRVEC_INIT;
	struct strvec		 got = STRVEC_INIT, lib = STRVEC_INIT;
	struct prov_err		 err = PROV_ERR_INIT;
	struct render_in	 in;
	size_t			 i, k, w;

	ck_assert_ptr_nonnull(mkdtemp(dir));
	sw = xasprintf("{ os: { distro: %s, release: \"%s\" }, %s }",
	    tc->distro, tc->release, tc->software);
	p = test_bundle_plan_nodes(sw);
	strvec_push(&src, "deb [trusted=yes] http://127.0.0.1/ ./");
	o.sources = &src;
	ck_assert_ok(bundle_plan(&b, p, &o, &err), &err);

	osr = xasprintf("PRETTY_NAME=\"test\"\nID=%s\nVERSION_ID=\"%s\"\n"
	    "VERSION_CODENAME=%s\n%s", tc->distro, tc->release, tc->codename,
	    strcmp(tc->distro, "ubuntu") == 0 ? "ID_LIKE=debian\n" : "");
	free(tb_write(dir, "os-release", osr));
	libtext = tb_read(tdir, "lib");
	tb_lib_names(&lib, libtext);
	tb_steps(&steps, tdir);
	memset(&in, 0, sizeof in);
	in.plan = p;
	in.templates = tdir;
	for (i = 0; i < p->nnodes; i++) {
		char	*pci = tb_pci(dir, tb_node_gpus(&p->nodes[i]));
		char	*env = xasprintf("PROV_OS_RELEASE='%s/os-release' "
			    "PROV_PCI_DIR='%s'", dir, pci);

		for (k = 0; k < steps.n; k++) {
			struct strvec	names = STRVEC_INIT;

			tb_step_packages(&names, &in, i, steps.v[k], dir, env);
			for (w = 0; w < names.n; w++) {
				const char	*name = names.v[w];

				if (strcmp(name, "linux-headers-" TB_KERNEL) ==
				    0)
					name = tc->headers;
				ck_assert_msg(strvec_find(&b.wanted, name) >= 0,
				    "%s %s: templates/%s.sh installs '%s' on "
				    "node %s, but lib/bundle.c does not bundle "
				    "it for this plan", tc->distro, tc->release,
				    steps.v[k], names.v[w], p->nodes[i].name);
				if (strvec_find(&got, name) < 0)
					strvec_push(&got, name);
			}
			strvec_clear(&names);
		}
		free(env);
		free(pci);
	}
	for (w = 0; w < b.wanted.n; w++)
		ck_assert_msg(strvec_find(&got, b.wanted.v[w]) >= 0 ||
		    strvec_find(&lib, b.wanted.v[w]) >= 0, "%s %s: lib/bundle.c"
		    " bundles '%s' (step %s), which no template installs for "
		    "this plan", tc->distro, tc->release, b.wanted.v[w],
		    b.why.v[w]);

	/* The DCGM exporter's image, as the template names it. */
	dcgm = tb_read(tdir, "dcgm-exporter");
	if (p->sw.dcgm_exporter) {
		const char	*d = strstr(dcgm, "\nDCGM_IMAGE=");
		char		*img;

		ck_assert_ptr_nonnull(d);
		d += strlen("\nDCGM_IMAGE=");
		img = xstrndup(d, strcspn(d, "\n"));
		ck_assert_msg(strvec_find(&b.images, img) >= 0, "templates/"
		    "dcgm-exporter.sh runs %s, lib/bundle.c lists another "
		    "image", img);
		free(img);
	}
	free(dcgm);

	cmd = xasprintf("rm -rf '%s'", dir);
	ck_assert_int_eq(system(cmd), 0);
	free(cmd);
	free(libtext);
	free(osr);
	free(sw);
	free(tdir);
	free(dir);
	strvec_clear(&steps);
	strvec_clear(&got);
	strvec_clear(&lib);
	strvec_clear(&src);
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
	struct bundle_trust	 insecure = { NULL, 1 };
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

	/* these cases are about the members: no signature wanted */
	ck_assert_ok(bundle_verify(&chk, out, &insecure, &err), &err);
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
	ck_assert_int_eq(bundle_verify(&chk, "/nonexistent.tar.zst", &insecure,
	    &err), -1);
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

/*
 * Signatures: a bundle like the above, signed or not, forged or not,
 * checked against a pinned key or none.
 */
enum { S_PINNED, S_UNPINNED, S_UNPINNED_INSECURE, S_OTHER_KEY, S_FORGED,
    S_STRIPPED, S_STRIPPED_INSECURE, S_UNSIGNED, S_UNSIGNED_INSECURE,
    S_HALF };

static const struct {
	int		 sign;		/* 0 none, 1 key, 2 other key */
	int		 pin, insecure;
	const char	*trust;		/* accepted: chk.trust starts so */
	const char	*problem;	/* refused: the problem has this */
} sig_cases[] = {
	[S_PINNED] = { 1, 1, 0, "signed by key SHA256:", NULL },
	[S_UNPINNED] = { 1, 0, 0, NULL, "but no key is pinned" },
	[S_UNPINNED_INSECURE] = { 1, 0, 1, "signed by key SHA256:", NULL },
	[S_OTHER_KEY] = { 2, 1, 1, NULL, "not by the pinned key" },
	[S_FORGED] = { 1, 1, 1, NULL, "was changed after it was signed" },
	[S_STRIPPED] = { 0, 1, 0, NULL, "not signed, and key SHA256:" },
	[S_STRIPPED_INSECURE] = { 0, 1, 1, NULL, "is pinned" },
	[S_UNSIGNED] = { 0, 0, 0, NULL, "--insecure-unsigned" },
	[S_UNSIGNED_INSECURE] = { 0, 0, 1, "accepted unsigned because "
	    "--insecure-unsigned", NULL },
	[S_HALF] = { 1, 1, 0, NULL, "signature is incomplete" },
};

/* The manifest of a one-deb bundle whose deb is `deb`. */
static void
test_bundle_sig_manifest(struct buf *man, struct buf *pkgs, const char *deb)
{
	struct prov_err	err = PROV_ERR_INIT;
	char		hdeb[ARC_SHA256_HEX], hpk[ARC_SHA256_HEX];

	ck_assert_ok(arc_sha256_buf(hdeb, deb, strlen(deb), &err), &err);
	buf_reset(pkgs);
	buf_addf(pkgs, "Package: x\nVersion: 1\nFilename: ./x_1_all.deb\n"
	    "Size: %zu\nSHA256: %s\n\n", strlen(deb), hdeb);
	ck_assert_ok(arc_sha256_buf(hpk, pkgs->buf, pkgs->len, &err), &err);
	buf_reset(man);
	buf_addf(man, "{\"format\": \"provision-bundle/1\", \"artifacts\": ["
	    "{\"name\": \"x\", \"path\": \"repo/x_1_all.deb\", \"sha256\": "
	    "\"%s\", \"size\": %zu}], \"files\": [{\"path\": "
	    "\"repo/Packages\", \"sha256\": \"%s\", \"size\": %zu}]}\n",
	    hdeb, strlen(deb), hpk, pkgs->len);
}

START_TEST(test_bundle_signed)
{
	struct arc_writer	*w = NULL;
	struct prov_err		 err = PROV_ERR_INIT;
	struct bundle_check	 chk = BUNDLE_CHECK_INIT;
	struct bundle_trust	 trust = { NULL, 0 };
	struct sig_key		*key = NULL, *other = NULL, *pub = NULL;
	struct buf		 man = BUF_INIT, pkgs = BUF_INIT;
	struct buf		 sig = BUF_INIT, pem = BUF_INIT;
	char			*dir = xstrdup("/tmp/test_bundle.XXXXXX");
	char			*out, *cmd;
	const char		*deb = "the real package";

	ck_assert_ptr_nonnull(mkdtemp(dir));
	cmd = xasprintf("cd '%s' && umask 077 && "
	    "openssl genpkey -algorithm ed25519 -out k 2>/dev/null && "
	    "openssl genpkey -algorithm ed25519 -out o 2>/dev/null && "
	    "openssl pkey -in k -pubout -out k.pub 2>/dev/null && "
	    "chmod 644 k.pub", dir);
	ck_assert_int_eq(system(cmd), 0);
	free(cmd);
	cmd = xasprintf("%s/k", dir);
	ck_assert_ok(sig_key_load(&key, cmd, SIG_PRIVATE, &err), &err);
	free(cmd);
	cmd = xasprintf("%s/o", dir);
	ck_assert_ok(sig_key_load(&other, cmd, SIG_PRIVATE, &err), &err);
	free(cmd);
	cmd = xasprintf("%s/k.pub", dir);
	ck_assert_ok(sig_key_load(&pub, cmd, SIG_PUBLIC, &err), &err);
	free(cmd);
	ck_assert(sig_key_same(key, pub));
	ck_assert(!sig_key_same(key, other));
	ck_assert_str_eq(sig_key_fingerprint(key), sig_key_fingerprint(pub));

	test_bundle_sig_manifest(&man, &pkgs, deb);
	if (sig_cases[_i].sign)
		ck_assert_ok(sig_sign(&sig, sig_cases[_i].sign == 1 ? key :
		    other, man.buf, man.len, &err), &err);
	ck_assert_ok(sig_key_public_pem(&pem, sig_cases[_i].sign == 2 ? other :
	    key, &err), &err);
	/* a forger swaps the package and rewrites every digest to match */
	if (_i == S_FORGED)
		test_bundle_sig_manifest(&man, &pkgs, deb = "an evil package!");

	out = xasprintf("%s/b.tar.zst", dir);
	ck_assert_ok(arc_writer_open(&w, out, &err), &err);
	ck_assert_ok(arc_writer_add_buf(w, "repo/x_1_all.deb", deb, strlen(deb),
	    0644, &err), &err);
	ck_assert_ok(arc_writer_add_buf(w, "repo/Packages", pkgs.buf, pkgs.len,
	    0644, &err), &err);
	ck_assert_ok(arc_writer_add_buf(w, "manifest.json", man.buf, man.len,
	    0644, &err), &err);
	if (sig_cases[_i].sign) {
		ck_assert_ok(arc_writer_add_buf(w, BUNDLE_SIG, sig.buf, sig.len,
		    0644, &err), &err);
		if (_i != S_HALF)
			ck_assert_ok(arc_writer_add_buf(w, BUNDLE_SIG_KEY,
			    pem.buf, pem.len, 0644, &err), &err);
	}
	ck_assert_ok(arc_writer_commit(w, &err), &err);
	arc_writer_free(w);

	trust.pinned = sig_cases[_i].pin ? pub : NULL;
	trust.insecure_unsigned = sig_cases[_i].insecure;
	ck_assert_ok(bundle_verify(&chk, out, &trust, &err), &err);
	if (sig_cases[_i].trust != NULL) {
		ck_assert_msg(chk.problems.n == 0, "case %d: %s", _i,
		    chk.problems.v[0]);
		ck_assert_ptr_nonnull(chk.trust);
		ck_assert_msg(str_starts(chk.trust, sig_cases[_i].trust),
		    "case %d: '%s'", _i, chk.trust);
		if (sig_cases[_i].sign)
			ck_assert_ptr_nonnull(strstr(chk.trust,
			    sig_key_fingerprint(key)));
	} else {
		ck_assert_msg(chk.problems.n == 1, "case %d: %zu problems",
		    _i, chk.problems.n);
		ck_assert_msg(strstr(chk.problems.v[0],
		    sig_cases[_i].problem) != NULL, "case %d: '%s'", _i,
		    chk.problems.v[0]);
		ck_assert_ptr_null(chk.trust);
	}
	bundle_check_release(&chk);
	cmd = xasprintf("rm -rf '%s'", dir);
	ck_assert_int_eq(system(cmd), 0);
	free(cmd);
	free(out);
	free(dir);
	sig_key_free(key);
	sig_key_free(other);
	sig_key_free(pub);
	buf_release(&man);
	buf_release(&pkgs);
	buf_release(&sig);
	buf_release(&pem);
	prov_err_release(&err);
}
END_TEST

/* Key files: private ones nobody else may read, public ones nobody else
   may write, ed25519 only. */
START_TEST(test_bundle_sig_keys)
{
	struct prov_err	 err = PROV_ERR_INIT;
	struct sig_key	*k = NULL;
	char		*dir = xstrdup("/tmp/test_bundle.XXXXXX");
	char		*cmd, *path;

	ck_assert_ptr_nonnull(mkdtemp(dir));
	cmd = xasprintf("cd '%s' && umask 077 && "
	    "openssl genpkey -algorithm ed25519 -out k 2>/dev/null && "
	    "openssl pkey -in k -pubout -out k.pub 2>/dev/null && "
	    "openssl genpkey -algorithm rsa -pkeyopt rsa_keygen_bits:1024 "
	    "-out rsa 2>/dev/null && chmod 644 k.pub", dir);
	ck_assert_int_eq(system(cmd), 0);
	free(cmd);
	path = xasprintf("%s/k", dir);
	ck_assert_int_eq(chmod(path, 0640), 0);
	ck_assert_int_eq(sig_key_load(&k, path, SIG_PRIVATE, &err), -1);
	ck_assert_ptr_nonnull(strstr(err.msg, "can be read by other users "
	    "(mode 0640)"));
	ck_assert_ptr_nonnull(strstr(err.msg, "chmod 600"));
	prov_err_release(&err);
	free(path);
	path = xasprintf("%s/k.pub", dir);
	ck_assert_int_eq(chmod(path, 0666), 0);
	ck_assert_int_eq(sig_key_load(&k, path, SIG_PUBLIC, &err), -1);
	ck_assert_ptr_nonnull(strstr(err.msg, "can be written by other users"));
	prov_err_release(&err);
	ck_assert_int_eq(chmod(path, 0600), 0);
	/* a public key is no private key */
	ck_assert_int_eq(sig_key_load(&k, path, SIG_PRIVATE, &err), -1);
	ck_assert_ptr_nonnull(strstr(err.msg, "holds no PEM private key"));
	prov_err_release(&err);
	free(path);
	path = xasprintf("%s/rsa", dir);
	ck_assert_int_eq(sig_key_load(&k, path, SIG_PRIVATE, &err), -1);
	ck_assert_ptr_nonnull(strstr(err.msg, "not an ed25519 key"));
	prov_err_release(&err);
	free(path);
	cmd = xasprintf("rm -rf '%s'", dir);
	ck_assert_int_eq(system(cmd), 0);
	free(cmd);
	free(dir);
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
	tcase_add_test(tc, test_bundle_plan_cuda_debian);
	tcase_add_test(tc, test_bundle_plan_rocky);
	tcase_add_test(tc, test_bundle_plan_k8s_images);
	tcase_add_test(tc, test_bundle_kubeadm_images);
	suite_add_tcase(s, tc);

	tc = tcase_create("resolve");
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_bundle_resolve_optional);
	suite_add_tcase(s, tc);

	tc = tcase_create("templates");
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, test_bundle_templates_use_step_packages);
	tcase_add_loop_test(tc, test_bundle_matches_templates, 0,
	    (int)ARRAY_SIZE(tb_cases));
	suite_add_tcase(s, tc);

	tc = tcase_create("manifest");
	tcase_add_test(tc, test_bundle_manifest_json);
	tcase_add_loop_test(tc, test_bundle_verify, V_GOOD, V_DUP + 1);
	suite_add_tcase(s, tc);

	tc = tcase_create("signature");
	tcase_add_loop_test(tc, test_bundle_signed, 0,
	    (int)ARRAY_SIZE(sig_cases));
	tcase_add_test(tc, test_bundle_sig_keys);
	suite_add_tcase(s, tc);
	return s;
}

TEST_MAIN(bundle_suite)

/*
 * bundle.c: list, resolve, fetch and pack what a plan needs offline.
 * See bundle.h and docs/bundle.md.
 *
 * Resolution is apt's own: apt-get and apt-cache run against a state
 * directory made for this run (an empty dpkg status, the target
 * release's sources, no host configuration), so the answer is the whole
 * dependency closure of the plan's packages for that release, whatever
 * the machine running provision has installed.  apt verifies the
 * sources' signatures (signed-by keyrings) and the indexes' hashes; the
 * SHA-256 of each .deb comes from those verified indexes.
 *
 * Downloads use the curl multi interface: up to `jobs` at once, each
 * into CACHE/partial/FILE, resumed from its current length with a Range
 * request after a cut (or restarted when the server ignores Range).  A
 * finished file moves into CACHE/pool/ only when its size and SHA-256
 * match the index; otherwise it is deleted and the run fails.
 *
 * Container images go the same way: lib/oci.c reads their manifests from
 * the registries, and their config and layer blobs are downloaded with
 * the packages, named by digest (CACHE/pool/sha256-HEX), each checked
 * against its digest.  bundle_pack() lays them out as an OCI image
 * layout under images/.
 */
#include "compat.h"

#include <dirent.h>
#include <fcntl.h>
#include <ftw.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>

#include <curl/curl.h>

#include "arc.h"
#include "buf.h"
#include "bundle.h"
#include "catalog.h"
#include "fs.h"
#include "json.h"
#include "oci.h"
#include "plan.h"
#include "proc.h"
#include "render.h"
#include "sig.h"
#include "str.h"
#include "strmap.h"
#include "strvec.h"
#include "yml.h"

#define BUNDLE_OUT_MAX		(256u << 20)	/* apt output we read */
#define BUNDLE_SHOW_BATCH	200	/* apt-cache show args per run */

struct bundle_release_name {
	const char	*distro, *release, *codename, *components;
};

static const struct bundle_release_name bundle_releases[] = {
	{ "debian", "11", "bullseye", "main contrib non-free" },
	{ "debian", "12", "bookworm",
	  "main contrib non-free non-free-firmware" },
	{ "debian", "13", "trixie", "main contrib non-free non-free-firmware" },
	{ "ubuntu", "20.04", "focal", "main restricted universe multiverse" },
	{ "ubuntu", "22.04", "jammy", "main restricted universe multiverse" },
	{ "ubuntu", "24.04", "noble", "main restricted universe multiverse" },
};

#define BUNDLE_DEBIAN_KEYRING "/usr/share/keyrings/debian-archive-keyring.gpg"
#define BUNDLE_UBUNTU_KEYRING "/usr/share/keyrings/ubuntu-archive-keyring.gpg"

/*
 * Packages by step: the names each templates/STEP.sh installs (its
 * step_packages) on Debian and Ubuntu.  docs/bundle.md lists the same;
 * tests/unit/test_bundle.c renders every step for the nodes of its plans,
 * runs step_packages and checks that the two agree, both ways.
 */
static const char *const bundle_base_pkgs[] = {
	"chrony",
	/* lib.sh's prov_fetch, on a node with neither curl nor wget: the
	   kubernetes step fetches its manifests even from a bundle */
	"ca-certificates", "curl", NULL
};
static const char *const bundle_slurm_pkgs[] = {
	"munge",				/* step munge */
	"slurmctld", "slurmd", "slurm-client", NULL
};
static const char *const bundle_accounting_pkgs[] = {
	"mariadb-server", "slurmdbd", NULL	/* step slurmdbd */
};
static const char *const bundle_logging_pkgs[] = {
	"rsyslog", "logrotate", NULL		/* step logging */
};
static const char *const bundle_k8s_pkgs[] = {
	"kubelet", "kubeadm", "kubectl", NULL
};

/* templates/dcgm-exporter.sh's DCGM_IMAGE. */
#define BUNDLE_DCGM_IMAGE \
	"nvcr.io/nvidia/k8s/dcgm-exporter:3.3.5-3.4.1-ubuntu22.04"

/* Names and lists. */

static int
bundle_pkg_ok(const char *s)
{
	size_t	i;

	if (s == NULL || strlen(s) < 2 || !((s[0] >= 'a' && s[0] <= 'z') ||
	    (s[0] >= '0' && s[0] <= '9')))
		return 0;
	for (i = 1; s[i] != '\0'; i++)
		if (!((s[i] >= 'a' && s[i] <= 'z') ||
		    (s[i] >= '0' && s[i] <= '9') || s[i] == '+' ||
		    s[i] == '-' || s[i] == '.'))
			return 0;
	return 1;
}

int
bundle_filename_ok(const char *s)
{
	if (s == NULL || *s == '\0' || *s == '.' || strlen(s) > 255)
		return 0;
	for (; *s != '\0'; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') ||
		    (*s >= '0' && *s <= '9') || *s == '.' || *s == '+' ||
		    *s == '~' || *s == '_' || *s == '-'))
			return 0;
	return 1;
}

char *
bundle_unescape(const char *s)
{
	struct buf	b = BUF_INIT;
	static const char hexd[] = "0123456789abcdef";

	for (; *s != '\0'; s++) {
		const char	*h, *l;

		if (*s != '%') {
			buf_addch(&b, *s);
			continue;
		}
		if (s[1] == '\0' || s[2] == '\0' ||
		    (h = strchr(hexd, s[1] | 0x20)) == NULL ||
		    (l = strchr(hexd, s[2] | 0x20)) == NULL || s[1] == '\0') {
			buf_release(&b);
			return NULL;
		}
		buf_addch(&b, (int)((h - hexd) * 16 + (l - hexd)));
		s += 2;
	}
	return buf_detach(&b, NULL);
}

static void
bundle_want(struct bundle *b, const char *name, const char *why)
{
	long	k;

	if ((k = strvec_find(&b->optional, name)) >= 0) {
		/* a step wants it whatever the indexes say */
		free(b->optional.v[k]);
		b->optional.v[k] = b->optional.v[--b->optional.n];
		b->optional.v[b->optional.n] = NULL;
	}
	if (strvec_find(&b->wanted, name) >= 0)
		return;
	strvec_push(&b->wanted, name);
	strvec_push(&b->why, why);
}

static void
bundle_want_list(struct bundle *b, const char *const *names, const char *why)
{
	for (; *names != NULL; names++)
		bundle_want(b, *names, why);
}

/* Wanted when an index has it: the step skips it where none does. */
static void
bundle_want_opt(struct bundle *b, const char *name, const char *why)
{
	if (strvec_find(&b->wanted, name) >= 0)
		return;
	bundle_want(b, name, why);
	strvec_push(&b->optional, name);
}

static void
bundle_wantf(struct bundle *b, const char *why, const char *fmt, ...)
    PROV_PRINTF(3, 4);

static void
bundle_wantf(struct bundle *b, const char *why, const char *fmt, ...)
{
	struct buf	n = BUF_INIT;
	va_list		ap;

	va_start(ap, fmt);
	buf_vaddf(&n, fmt, ap);
	va_end(ap);
	bundle_want(b, n.buf, why);
	buf_release(&n);
}

/*
 * What the plan says of the nodes' GPUs: some node has an SXM one (an HGX
 * baseboard, where NVSwitch needs Fabric Manager), some node has no
 * NVIDIA GPU.  A GPU model the catalog does not name counts as NVIDIA's.
 * Superchip trays (GH200, GB200) are not SXM: their NVLink switches, where
 * there are any, are managed from the switch trays, not by the node.
 */
static void
bundle_plan_gpus(const struct plan *p, int *sxm, int *without)
{
	size_t	i;

	*sxm = *without = 0;
	for (i = 0; i < p->nnodes; i++) {
		const struct plan_hw	*hw = p->nodes[i].hw;
		const struct cat_gpu	*g = hw != NULL ? hw->gpu_cat : NULL;

		if (hw == NULL || hw->ngpus <= 0 || (g != NULL &&
		    g->m.vendor != NULL && strcasecmp(g->m.vendor,
		    "NVIDIA") != 0))
			*without = 1;
		else if (g != NULL && g->form_factor != NULL &&
		    str_starts(g->form_factor, "sxm"))
			*sxm = 1;
	}
}

/*
 * templates/gpu-driver.sh.  The step installs the headers of the kernel a
 * node runs, linux-headers-$(uname -r), which the plan cannot know: the
 * bundle holds the meta package, whose dependency is the headers of the
 * kernel the release ships (docs/bundle.md, "Limits").
 */
static void
bundle_want_driver(struct bundle *b, const struct plan_software *sw,
    int deb, int sxm)
{
	static const struct {
		const char	*arch, *flavour;
	} flavours[] = {
		{ "amd64", "amd64" }, { "arm64", "arm64" },
		{ "ppc64el", "powerpc64le" }, { "armhf", "armmp" },
		{ "i386", "686-pae" },
	};
	const char	*flavour = b->arch;
	size_t		 i, n;

	if (sw->driver_branch == NULL)
		return;
	if (deb) {
		for (i = 0; i < ARRAY_SIZE(flavours); i++)
			if (strcmp(flavours[i].arch, b->arch) == 0)
				flavour = flavours[i].flavour;
		bundle_wantf(b, "driver", "linux-headers-%s", flavour);
		bundle_wantf(b, "driver", "cuda-drivers-%s", sw->driver_branch);
	} else {
		bundle_want(b, "linux-headers-generic", "driver");
		bundle_wantf(b, "driver", "nvidia-driver-%s-server",
		    sw->driver_branch);
	}
	if (sxm)
		bundle_wantf(b, "driver", "nvidia-fabricmanager-%s",
		    sw->driver_branch);
	if (sw->cuda != NULL) {
		/* 12.4 or 12.4.1: cuda-toolkit-12-4 */
		char	*c = xasprintf("cuda-toolkit-%s", sw->cuda), *q;

		for (q = c, n = 0; *q != '\0'; q++) {
			if (*q != '.')
				continue;
			if (++n == 2) {
				*q = '\0';
				break;
			}
			*q = '-';
		}
		bundle_want(b, c, "driver");
		free(c);
	}
}

/*
 * What `kubeadm config images list --kubernetes-version vX.Y.Z` prints
 * besides the four kube-* images: pause, etcd and CoreDNS, pinned in
 * kubeadm's own source (cmd/kubeadm/app/constants/constants.go:
 * PauseVersion, CoreDNSVersion, and SupportedEtcdVersion keyed by the
 * target minor), so they follow the installed kubeadm's release.  Each
 * row is one run of releases with the same three; the data is kubeadm's
 * output for every release as recorded in minikube's
 * pkg/minikube/constants/constants_kubeadm_images.go (generated by
 * running kubeadm), checked up to 1.37.1.  A release past a row's last
 * patch is not guessed: its images are listed as not fetched.
 */
static const struct bundle_kubeadm_row {
	int		 minor, first, last;	/* 1.MINOR.FIRST-LAST */
	const char	*pause, *etcd, *coredns;
} bundle_kubeadm_rows[] = {
	{ 27, 0, 6, "3.9", "3.5.7-0", "v1.10.1" },
	{ 27, 7, 9, "3.9", "3.5.9-0", "v1.10.1" },
	{ 27, 10, 11, "3.9", "3.5.10-0", "v1.10.1" },
	{ 27, 12, 16, "3.9", "3.5.12-0", "v1.10.1" },
	{ 28, 0, 5, "3.9", "3.5.9-0", "v1.10.1" },
	{ 28, 6, 7, "3.9", "3.5.10-0", "v1.10.1" },
	{ 28, 8, 13, "3.9", "3.5.12-0", "v1.10.1" },
	{ 28, 14, 15, "3.9", "3.5.15-0", "v1.10.1" },
	{ 29, 0, 2, "3.9", "3.5.10-0", "v1.11.1" },
	{ 29, 3, 8, "3.9", "3.5.12-0", "v1.11.1" },
	{ 29, 9, 10, "3.9", "3.5.15-0", "v1.11.1" },
	{ 29, 11, 15, "3.9", "3.5.16-0", "v1.11.1" },
	{ 30, 0, 4, "3.9", "3.5.12-0", "v1.11.1" },
	{ 30, 5, 14, "3.9", "3.5.15-0", "v1.11.3" },
	{ 31, 0, 0, "3.10", "3.5.15-0", "v1.11.1" },
	{ 31, 1, 13, "3.10", "3.5.15-0", "v1.11.3" },
	{ 31, 14, 14, "3.10", "3.5.24-0", "v1.11.3" },
	{ 32, 0, 9, "3.10", "3.5.16-0", "v1.11.3" },
	{ 32, 10, 13, "3.10", "3.5.24-0", "v1.11.3" },
	{ 33, 0, 5, "3.10", "3.5.21-0", "v1.12.0" },
	{ 33, 6, 13, "3.10", "3.5.24-0", "v1.12.0" },
	{ 34, 0, 1, "3.10.1", "3.6.4-0", "v1.12.1" },
	{ 34, 2, 12, "3.10.1", "3.6.5-0", "v1.12.1" },
	{ 35, 0, 9, "3.10.1", "3.6.6-0", "v1.13.1" },
	{ 36, 0, 5, "3.10.2", "3.6.8-0", "v1.14.2" },
	{ 37, 0, 1, "3.10.2", "3.7.0-0", "v1.14.6" },
};

/* "1.30.2", "v1.30.2", "1.30.2-1.1" (a .deb version), "1:1.30.2-1.1". */
static int
bundle_k8s_split(const char *v, int *minor, int *patch)
{
	const char	*p = v, *c;
	int		 n[3] = { 0, 0, 0 };
	size_t		 i;

	if ((c = strchr(p, ':')) != NULL)
		p = c + 1;
	if (*p == 'v')
		p++;
	for (i = 0; i < 3; i++) {
		if (*p < '0' || *p > '9')
			return -1;
		while (*p >= '0' && *p <= '9') {
			if (n[i] > 1000)
				return -1;
			n[i] = n[i] * 10 + (*p++ - '0');
		}
		if (i < 2 && *p++ != '.')
			return -1;
	}
	if (*p != '\0' && *p != '-' && *p != '+' && *p != '~')
		return -1;
	if (n[0] != 1)
		return -1;
	*minor = n[1];
	*patch = n[2];
	return 0;
}

int
bundle_kubeadm_images(struct strvec *out, const char *version)
{
	size_t	i;
	int	minor, patch;

	if (version == NULL || bundle_k8s_split(version, &minor, &patch) != 0)
		return -1;
	for (i = 0; i < ARRAY_SIZE(bundle_kubeadm_rows); i++) {
		const struct bundle_kubeadm_row	*r = &bundle_kubeadm_rows[i];

		if (r->minor != minor || patch < r->first || patch > r->last)
			continue;
		strvec_pushf(out, "registry.k8s.io/pause:%s", r->pause);
		strvec_pushf(out, "registry.k8s.io/etcd:%s", r->etcd);
		strvec_pushf(out, "registry.k8s.io/coredns/coredns:%s",
		    r->coredns);
		return 0;
	}
	return -1;
}

static void
bundle_want_image(struct bundle *b, const char *ref)
{
	if (strvec_find(&b->images, ref) < 0)
		strvec_push(&b->images, ref);
}

/* The four kube-* images of Kubernetes 1.MINOR.PATCH. */
static void
bundle_want_kube(struct bundle *b, int minor, int patch)
{
	static const char *const comps[] = { "kube-apiserver",
	    "kube-controller-manager", "kube-scheduler", "kube-proxy" };
	char	*ref;
	size_t	 i;

	for (i = 0; i < ARRAY_SIZE(comps); i++) {
		ref = xasprintf("registry.k8s.io/%s:v1.%d.%d", comps[i], minor,
		    patch);
		bundle_want_image(b, ref);
		free(ref);
	}
}

/*
 * kubeadm's control-plane images.  With a whole version (1.30.2, which
 * templates/kubernetes.sh passes to kubeadm init) the four kube-* images
 * are known now; pause, etcd and CoreDNS follow the kubeadm the bundle
 * holds (bundle_want_kubeadm(), once apt has resolved it).
 */
static void
bundle_want_k8s_images(struct bundle *b, const char *ver)
{
	const char	*v = ver != NULL ? ver : "";
	int		 minor, patch;

	free(b->k8s_version);
	b->k8s_version = xstrdup(v);
	if (bundle_k8s_split(v, &minor, &patch) == 0)
		bundle_want_kube(b, minor, patch);
}

/*
 * After bundle_resolve(): the images of the kubeadm release the bundle
 * holds (the one the nodes will run).  Without kubeadm in the bundle
 * (--allow-missing), the plan's whole version stands for it.  For a
 * version like 1.30 the kube-* images are the bundled kubeadm's own
 * version too: offline, templates/kubernetes.sh passes that one to
 * kubeadm init.
 */
static void
bundle_want_kubeadm(struct bundle *b)
{
	struct strvec	 imgs = STRVEC_INIT;
	const char	*kv = NULL, *pv = b->k8s_version;
	char		*up = NULL, *dash;
	size_t		 i;
	int		 pmin = -1, ppatch, kmin, kpatch, whole;

	if (pv == NULL)
		return;
	for (i = 0; i < b->n; i++)
		if (strcmp(b->items[i].name, "kubeadm") == 0)
			kv = b->items[i].version;
	whole = bundle_k8s_split(pv, &pmin, &ppatch) == 0;
	if (kv != NULL && bundle_k8s_split(kv, &kmin, &kpatch) == 0) {
		up = xasprintf("%d.%d.%d", 1, kmin, kpatch);
		if (!whole && str_starts(up, pv) && up[strlen(pv)] == '.')
			bundle_want_kube(b, kmin, kpatch);
	} else if (whole)
		up = xstrdup(pv);
	if (up == NULL) {
		strvec_pushf(&b->images_not_fetched, "kubeadm control-plane "
		    "images for Kubernetes %s (no kubeadm in the bundle to "
		    "take the version from: add its repository with --source, "
		    "or give a whole version like 1.30.2)", pv);
		goto out;
	}
	if (bundle_kubeadm_images(&imgs, up) != 0) {
		dash = strchr(up, '-');
		if (dash != NULL)
			*dash = '\0';
		strvec_pushf(&b->images_not_fetched, "kubeadm's pause, etcd "
		    "and coredns images for kubeadm %s (not in provision's "
		    "table, lib/bundle.c: kubeadm config images list "
		    "--kubernetes-version v%s names them; add them with "
		    "--image)", up, up);
		goto out;
	}
	for (i = 0; i < imgs.n; i++)
		bundle_want_image(b, imgs.v[i]);
out:
	strvec_clear(&imgs);
	free(up);
}

/* templates/extras.sh's extras_map, on Debian and Ubuntu. */
static void
bundle_want_extra(struct bundle *b, const char *x, int without_gpu)
{
	if (strcmp(x, "jupyter") == 0)
		bundle_want(b, "jupyter-notebook", "extras");
	else if (strcmp(x, "pytorch") == 0 || strcmp(x, "torch") == 0) {
		/* where the release has it, on nodes without an NVIDIA GPU
		   (its build has no CUDA) */
		if (without_gpu)
			bundle_want_opt(b, "python3-torch", "extras");
	} else
		bundle_want(b, x, "extras");
}

static int
bundle_default_sources(struct bundle *b, const struct bundle_release_name *rn,
    struct prov_err *err)
{
	int	deb = strcmp(b->distro, "debian") == 0;
	const char *key = deb ? BUNDLE_DEBIAN_KEYRING : BUNDLE_UBUNTU_KEYRING;

	if (access(key, R_OK) != 0)
		return prov_err_setloc(err, PROV_E_USAGE, NULL, deb ?
		    "apt-get install debian-archive-keyring, or give --source" :
		    "apt-get install ubuntu-keyring, or give --source",
		    "cannot read %s's archive keyring '%s'", b->distro, key);
	if (deb) {
		strvec_pushf(&b->sources, "deb [signed-by=%s] "
		    "http://deb.debian.org/debian %s %s", key, rn->codename,
		    rn->components);
		strvec_pushf(&b->sources, "deb [signed-by=%s] "
		    "http://deb.debian.org/debian %s-updates %s", key,
		    rn->codename, rn->components);
		strvec_pushf(&b->sources, "deb [signed-by=%s] "
		    "http://deb.debian.org/debian-security %s-security %s", key,
		    rn->codename, rn->components);
	} else {
		strvec_pushf(&b->sources, "deb [signed-by=%s] "
		    "http://archive.ubuntu.com/ubuntu %s %s", key, rn->codename,
		    rn->components);
		strvec_pushf(&b->sources, "deb [signed-by=%s] "
		    "http://archive.ubuntu.com/ubuntu %s-updates %s", key,
		    rn->codename, rn->components);
		strvec_pushf(&b->sources, "deb [signed-by=%s] "
		    "http://security.ubuntu.com/ubuntu %s-security %s", key,
		    rn->codename, rn->components);
	}
	return 0;
}

int
bundle_plan(struct bundle *b, const struct plan *p,
    const struct bundle_opts *o, struct prov_err *err)
{
	const struct plan_software		*sw = &p->sw;
	const struct bundle_release_name	*rn = NULL;
	size_t					 i;
	int					 deb, sxm, without_gpu;

	if (sw->os_distro == NULL || sw->os_release == NULL)
		return prov_err_set(err, PROV_E_PLAN, "the plan has no "
		    "software.os");
	if (strcmp(sw->os_distro, "debian") != 0 &&
	    strcmp(sw->os_distro, "ubuntu") != 0)
		return prov_err_set(err, PROV_E_PLAN, "bundles hold .deb "
		    "packages: '%s' is not Debian or Ubuntu", sw->os_distro);
	deb = strcmp(sw->os_distro, "debian") == 0;
	b->distro = xstrdup(sw->os_distro);
	b->release = xstrdup(sw->os_release);
	b->arch = xstrdup(o->arch != NULL ? o->arch : "amd64");
	if (!str_is_safe_word(b->arch))
		return prov_err_set(err, PROV_E_USAGE, "'%s' is not an "
		    "architecture", b->arch);
	b->cluster = xstrdup(p->cluster != NULL ? p->cluster : "");
	for (i = 0; i < ARRAY_SIZE(bundle_releases); i++)
		if (strcmp(bundle_releases[i].distro, b->distro) == 0 &&
		    strcmp(bundle_releases[i].release, b->release) == 0)
			rn = &bundle_releases[i];
	b->codename = xstrdup(rn != NULL ? rn->codename : "");
	if (o->sources != NULL && o->sources->n > 0) {
		for (i = 0; i < o->sources->n; i++) {
			const char	*s = o->sources->v[i];

			if (!str_starts(s, "deb ") || strpbrk(s, "\n\r") != NULL)
				return prov_err_set(err, PROV_E_USAGE, "--source "
				    "'%s' is not one 'deb ...' line", s);
			strvec_push(&b->sources, s);
		}
	} else if (rn == NULL)
		return prov_err_setloc(err, PROV_E_USAGE, NULL, "give the "
		    "repositories with --source", "no default repositories "
		    "for %s %s", b->distro, b->release);
	else if (bundle_default_sources(b, rn, err) != 0)
		return -1;

	bundle_plan_gpus(p, &sxm, &without_gpu);
	bundle_want_list(b, bundle_base_pkgs, "base");
	if (sw->relay.src != NULL)
		bundle_want(b, "apt-cacher-ng", "relay");
	if (sw->orchestrator != NULL && strcmp(sw->orchestrator, "slurm") == 0)
		bundle_want_list(b, bundle_slurm_pkgs, "slurm");
	if (plan_accounting(p))
		bundle_want_list(b, bundle_accounting_pkgs, "slurmdbd");
	if (p->logging.server != NULL)
		bundle_want_list(b, bundle_logging_pkgs, "logging");
	if (sw->orchestrator != NULL &&
	    strcmp(sw->orchestrator, "kubernetes") == 0) {
		bundle_want_list(b, bundle_k8s_pkgs, "kubernetes");
		bundle_want_k8s_images(b, sw->k8s_version);
	}
	if (sw->runtime != NULL) {
		if (strcmp(sw->runtime, "containerd") == 0)
			bundle_want(b, "containerd", "runtime");
		else if (strcmp(sw->runtime, "docker") == 0)
			bundle_want(b, "docker.io", "runtime");
		else if (strcmp(sw->runtime, "apptainer") == 0)
			bundle_want_opt(b, "apptainer", "runtime");
	}
	if (sw->nvidia_toolkit && sw->runtime != NULL &&
	    strcmp(sw->runtime, "none") != 0)
		bundle_want(b, "nvidia-container-toolkit", "runtime");
	bundle_want_driver(b, sw, deb, sxm);
	if (sw->node_exporter)
		bundle_want(b, "prometheus-node-exporter", "monitoring");
	if (sw->prometheus != NULL)
		bundle_want(b, "prometheus", "monitoring");
	if (sw->grafana != NULL)
		bundle_want(b, "grafana", "monitoring");
	/* a container image, on docker or as a Kubernetes DaemonSet */
	if (sw->dcgm_exporter)
		bundle_want_image(b, BUNDLE_DCGM_IMAGE);
	for (i = 0; i < sw->extras.n; i++)
		bundle_want_extra(b, sw->extras.v[i], without_gpu);
	for (i = 0; o->packages != NULL && i < o->packages->n; i++)
		bundle_want(b, o->packages->v[i], "--package");
	for (i = 0; o->images != NULL && i < o->images->n; i++) {
		struct oci_ref	ref = OCI_REF_INIT;

		if (oci_ref_parse(&ref, o->images->v[i], err) != 0)
			return -1;
		oci_ref_release(&ref);
		bundle_want_image(b, o->images->v[i]);
	}
	for (i = 0; i < b->wanted.n; i++)
		if (!bundle_pkg_ok(b->wanted.v[i]))
			return prov_err_set(err, PROV_E_USAGE, "'%s' is not a "
			    "Debian package name", b->wanted.v[i]);
	return 0;
}

/* Running apt. */

/*
 * Run argv with APT_CONFIG set and the C locale, capturing stdout and
 * stderr (each capped).  Returns the exit status (0..255, 128 when
 * killed), or -1 with err when it could not run.
 */
static int
bundle_run(struct buf *out, struct buf *errb, const struct strvec *argv,
    const char *aptconf, struct prov_err *err)
{
	struct proc	p = PROC_INIT;
	int		r = -1;

	strvec_pushv(&p.args, argv);
	strvec_pushf(&p.env, "APT_CONFIG=%s", aptconf);
	strvec_push(&p.env, "LC_ALL=C");
	strvec_push(&p.env, "LANGUAGE");
	p.out = out;
	p.err = errb;
	p.max = BUNDLE_OUT_MAX;
	if (proc_run(&p) != 0)
		prov_err_sys(err, "cannot run %s", argv->v[0]);
	else
		r = WIFEXITED(p.status) ? WEXITSTATUS(p.status) : 128;
	proc_release(&p);
	return r;
}

static int
bundle_rm_one(const char *path, const struct stat *st, int flag,
    struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	(void)remove(path);
	return 0;
}

static void
bundle_rm_tree(const char *dir)
{
	(void)nftw(dir, bundle_rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

/* The apt state directory: config, sources, empty dpkg status. */
static int
bundle_apt_dir(char **conf_out, const char *dir, const struct bundle *b,
    struct prov_err *err)
{
	static const char *const dirs[] = {
		"state", "state/lists", "state/lists/partial", "cache",
		"cache/archives", "cache/archives/partial", "etc",
		"etc/apt.conf.d", "etc/sources.list.d", "etc/preferences.d",
		"etc/trusted.gpg.d", "log", NULL
	};
	struct buf	 c = BUF_INIT;
	char		*path = NULL;
	size_t		 i;
	int		 r = -1;

	*conf_out = NULL;
	for (i = 0; dirs[i] != NULL; i++) {
		free(path);
		path = xasprintf("%s/%s", dir, dirs[i]);
		if (mkdir(path, 0700) != 0) {
			prov_err_sys(err, "cannot create '%s'", path);
			goto out;
		}
	}
	free(path);
	path = xasprintf("%s/state/status", dir);
	if (buf_write_file_atomic(path, "", 0, 0600) != 0) {
		prov_err_sys(err, "cannot write '%s'", path);
		goto out;
	}
	for (i = 0; i < b->sources.n; i++)
		buf_addf(&c, "%s\n", b->sources.v[i]);
	free(path);
	path = xasprintf("%s/etc/sources.list", dir);
	if (buf_write_file_atomic(path, c.buf, c.len, 0600) != 0) {
		prov_err_sys(err, "cannot write '%s'", path);
		goto out;
	}
	buf_reset(&c);
	buf_addf(&c, "Dir \"%s/\";\n"
	    "Dir::State \"state/\";\n"
	    "Dir::State::status \"state/status\";\n"
	    "Dir::Cache \"cache/\";\n"
	    "Dir::Etc \"etc/\";\n"
	    "Dir::Etc::sourcelist \"sources.list\";\n"
	    "Dir::Etc::sourceparts \"sources.list.d/\";\n"
	    "Dir::Etc::parts \"apt.conf.d/\";\n"
	    "Dir::Etc::preferences \"preferences\";\n"
	    "Dir::Etc::preferencesparts \"preferences.d/\";\n"
	    "Dir::Etc::trusted \"trusted.gpg\";\n"
	    "Dir::Etc::trustedparts \"trusted.gpg.d/\";\n"
	    "Dir::Log \"log/\";\n"
	    "APT::Architecture \"%s\";\n"
	    "APT::Architectures { \"%s\"; };\n"
	    "APT::Install-Recommends \"false\";\n"
	    "APT::Install-Suggests \"false\";\n"
	    "APT::Sandbox::User \"root\";\n"
	    "Debug::NoLocking \"true\";\n"
	    "Acquire::Languages \"none\";\n"
	    "Acquire::GzipIndexes \"false\";\n", dir, b->arch, b->arch);
	free(path);
	path = xasprintf("%s/apt.conf", dir);
	if (buf_write_file_atomic(path, c.buf, c.len, 0600) != 0) {
		prov_err_sys(err, "cannot write '%s'", path);
		goto out;
	}
	*conf_out = path;
	path = NULL;
	r = 0;
out:
	free(path);
	buf_release(&c);
	return r;
}

/* apt's messages, trimmed to the lines that say what went wrong. */
static char *
bundle_apt_msg(const struct buf *e)
{
	struct strvec	 lines = STRVEC_INIT;
	struct buf	 b = BUF_INIT;
	size_t		 i, n = 0;

	strvec_split(&lines, e->buf, '\n', 1);
	for (i = 0; i < lines.n && n < 8; i++)
		if (str_starts(lines.v[i], "E:") || str_starts(lines.v[i], "W:") ||
		    strstr(lines.v[i], "Depends:") != NULL || lines.n <= 8 ||
		    strstr(lines.v[i], "Failed to fetch") != NULL ||
		    strstr(lines.v[i], "Could not") != NULL) {
			buf_addf(&b, "%s%s", n ? "; " : "", lines.v[i]);
			n++;
		}
	strvec_clear(&lines);
	if (b.len == 0)
		buf_adds(&b, "no message");
	return buf_detach(&b, NULL);
}

static int
bundle_item_cmp(const void *a, const void *b)
{
	const struct bundle_item	*x = a, *y = b;

	return strcmp(x->filename, y->filename);
}

/*
 * Runs an apt command under aptconf, its output in *out; -1 with err
 * ("what: apt's words", code) when it fails.
 */
static int
bundle_apt(struct buf *out, const struct strvec *argv, const char *aptconf,
    enum prov_code code, const char *what, struct prov_err *err)
{
	struct buf	 eb = BUF_INIT;
	char		*msg;
	int		 st;

	buf_reset(out);
	if ((st = bundle_run(out, &eb, argv, aptconf, err)) > 0) {
		msg = bundle_apt_msg(&eb);
		prov_err_set(err, code, "%s: %s", what, msg);
		free(msg);
	}
	buf_release(&eb);
	return st == 0 ? 0 : -1;
}

/* apt-get update, where a source that cannot be read is fatal. */
static int
bundle_apt_update(const char *aptconf, struct prov_err *err)
{
	struct strvec	 argv = STRVEC_INIT;
	struct buf	 out = BUF_INIT, eb = BUF_INIT;
	char		*msg;
	int		 st;

	strvec_push(&argv, "apt-get");
	strvec_push(&argv, "update");
	strvec_push(&argv, "-q");
	st = bundle_run(&out, &eb, &argv, aptconf, err);
	/* apt 2.x only warns when a source cannot be read: fatal here. */
	if (st > 0 || (st == 0 && (strstr(eb.buf, "\nE:") != NULL ||
	    str_starts(eb.buf, "E:") || strstr(eb.buf, "Failed to fetch") ||
	    strstr(eb.buf, "failed to download") != NULL))) {
		msg = bundle_apt_msg(&eb);
		prov_err_set(err, PROV_E_HTTP, "cannot read the package "
		    "indexes: %s", msg);
		free(msg);
		st = -1;
	}
	strvec_clear(&argv);
	buf_release(&out);
	buf_release(&eb);
	return st;
}

/*
 * The wanted packages the indexes have go on argv; those they lack on
 * b->missing, an error unless each is optional or --allow-missing.
 */
static int
bundle_resolve_wanted(struct bundle *b, const struct bundle_opts *o,
    const char *aptconf, struct strvec *argv, struct prov_err *err)
{
	struct strvec	 cmd = STRVEC_INIT, have = STRVEC_INIT;
	struct strmap	 names = STRMAP_INIT;
	struct buf	 out = BUF_INIT, l = BUF_INIT;
	size_t		 i, start = argv->n, nreq = 0;
	int		 r = -1;

	strvec_push(&cmd, "apt-cache");
	strvec_push(&cmd, "pkgnames");
	if (bundle_apt(&out, &cmd, aptconf, PROV_E_SYS,
	    "apt-cache pkgnames failed", err) != 0)
		goto out;
	strvec_split(&have, out.buf, '\n', 1);
	for (i = 0; i < have.n; i++)
		strmap_put(&names, have.v[i], have.v[i]);
	for (i = 0; i < b->wanted.n; i++) {
		if (strmap_get(&names, b->wanted.v[i]) == NULL) {
			strvec_push(&b->missing, b->wanted.v[i]);
			if (strvec_find(&b->optional, b->wanted.v[i]) < 0)
				nreq++;
		} else
			strvec_push(argv, b->wanted.v[i]);
	}
	if (nreq > 0 && !o->allow_missing) {
		for (i = 0; i < b->missing.n; i++)
			if (strvec_find(&b->optional, b->missing.v[i]) < 0)
				buf_addf(&l, "%s%s", l.len ? ", " : "",
				    b->missing.v[i]);
		prov_err_setloc(err, PROV_E_USAGE, NULL, "add their repository "
		    "with --source 'deb [signed-by=KEYRING] URL SUITE "
		    "COMPONENTS', or pass --allow-missing", "%zu package%s in no "
		    "index: %s", nreq, nreq == 1 ? "" : "s", l.buf);
		goto out;
	}
	if (argv->n == start) {
		prov_err_set(err, PROV_E_USAGE, "none of the plan's packages is "
		    "in the indexes");
		goto out;
	}
	r = 0;
out:
	strmap_clear(&names);
	strvec_clear(&have);
	strvec_clear(&cmd);
	buf_release(&out);
	buf_release(&l);
	return r;
}

/* The SHA-256 of every file, from the verified indexes. */
static int
bundle_resolve_hashes(struct bundle *b, const char *aptconf,
    struct prov_err *err)
{
	struct strvec	argv = STRVEC_INIT;
	struct buf	out = BUF_INIT;
	size_t		i, start;
	int		r = -1;

	for (start = 0; start < b->n; start += BUNDLE_SHOW_BATCH) {
		strvec_clear(&argv);
		strvec_push(&argv, "apt-cache");
		strvec_push(&argv, "show");
		for (i = start; i < b->n && i < start + BUNDLE_SHOW_BATCH; i++)
			strvec_pushf(&argv, "%s=%s", b->items[i].name,
			    b->items[i].version);
		if (bundle_apt(&out, &argv, aptconf, PROV_E_SYS,
		    "apt-cache show failed", err) != 0 ||
		    bundle_parse_index(b, out.buf, err) != 0)
			goto out;
	}
	for (i = 0; i < b->n; i++)
		if (b->items[i].sha256 == NULL) {
			prov_err_set(err, PROV_E_PARSE, "the index has no "
			    "SHA256 for '%s'", b->items[i].filename);
			goto out;
		}
	r = 0;
out:
	strvec_clear(&argv);
	buf_release(&out);
	return r;
}

int
bundle_resolve(struct bundle *b, const struct bundle_opts *o,
    struct prov_err *err)
{
	struct strvec	 argv = STRVEC_INIT;
	struct buf	 out = BUF_INIT;
	const char	*tmpdir = getenv("TMPDIR");
	char		*dir = NULL, *conf = NULL;
	int		 r = -1;

	dir = xasprintf("%s/provision-apt.XXXXXX", tmpdir != NULL &&
	    *tmpdir != '\0' ? tmpdir : "/tmp");
	if (mkdtemp(dir) == NULL) {
		prov_err_sys(err, "cannot create '%s'", dir);
		free(dir);
		dir = NULL;
		goto out;
	}
	if (bundle_apt_dir(&conf, dir, b, err) != 0 ||
	    bundle_apt_update(conf, err) != 0)
		goto out;
	strvec_push(&argv, "apt-get");
	strvec_push(&argv, "install");
	strvec_push(&argv, "--print-uris");
	strvec_push(&argv, "-qq");
	strvec_push(&argv, "--no-install-recommends");
	if (bundle_resolve_wanted(b, o, conf, &argv, err) != 0 ||
	    bundle_apt(&out, &argv, conf, PROV_E_USAGE, "apt cannot install "
	    "the plan's packages together", err) != 0 ||
	    bundle_parse_uris(b, out.buf, err) != 0 ||
	    bundle_resolve_hashes(b, conf, err) != 0)
		goto out;
	qsort(b->items, b->n, sizeof *b->items, bundle_item_cmp);
	bundle_want_kubeadm(b);
	r = 0;
out:
	if (dir != NULL)
		bundle_rm_tree(dir);
	free(dir);
	free(conf);
	strvec_clear(&argv);
	buf_release(&out);
	return r;
}

/* Parsers. */

int
bundle_parse_uris(struct bundle *b, const char *text, struct prov_err *err)
{
	const char	*line = text;

	while (*line != '\0') {
		const char		*eol = strchr(line, '\n');
		size_t			 len = eol ? (size_t)(eol - line) :
					    strlen(line);
		char			*l = xstrndup(line, len), *q, *sp;
		char			*url = NULL, *file = NULL, *base;
		char			*us1, *us2;
		struct bundle_item	*it;
		unsigned long		 size;
		int			 bad = 1;

		line = eol != NULL ? eol + 1 : line + len;
		if (len == 0 || l[0] != '\'') {
			free(l);
			continue;	/* not a URI line */
		}
		if ((q = strchr(l + 1, '\'')) == NULL || q[1] != ' ')
			goto next;
		*q = '\0';
		url = xstrdup(l + 1);
		/* FILE SIZE [HASH] */
		if ((sp = strchr(q + 2, ' ')) == NULL)
			goto next;
		*sp = '\0';
		file = bundle_unescape(q + 2);
		q = sp + 1;
		if ((sp = strchr(q, ' ')) != NULL)
			*sp = '\0';
		if (str_to_ulong(q, &size) != 0 || file == NULL)
			goto next;
		/* name_version_arch.deb */
		if ((us1 = strchr(file, '_')) == NULL ||
		    (us2 = strchr(us1 + 1, '_')) == NULL ||
		    strlen(us2) < 5 || strcmp(us2 + strlen(us2) - 4, ".deb") != 0)
			goto next;
		ALLOC_GROW(b->items, b->n + 1, b->alloc);
		it = &b->items[b->n++];
		memset(it, 0, sizeof *it);
		it->name = xstrndup(file, (size_t)(us1 - file));
		it->version = xstrndup(us1 + 1, (size_t)(us2 - us1 - 1));
		it->arch = xstrndup(us2 + 1, strlen(us2 + 1) - 4);
		base = strrchr(url, '/');
		it->filename = bundle_unescape(base != NULL ? base + 1 : url);
		it->url = url;
		url = NULL;
		it->size = (int64_t)size;
		if (it->filename == NULL || !bundle_filename_ok(it->filename)) {
			prov_err_set(err, PROV_E_PARSE, "unusable file name in "
			    "'%s'", it->url);
			free(l);
			free(file);
			return -1;
		}
		if (!bundle_pkg_ok(it->name)) {
			prov_err_set(err, PROV_E_PARSE, "unusable package name "
			    "'%s'", it->name);
			free(l);
			free(file);
			return -1;
		}
		bad = 0;
next:
		if (bad) {
			prov_err_set(err, PROV_E_PARSE, "cannot read apt's URI "
			    "line '%s'", l);
			free(l);
			free(url);
			free(file);
			return -1;
		}
		free(l);
		free(file);
	}
	return 0;
}

char *
bundle_field(const char *stanza, size_t len, const char *name)
{
	const char	*p = stanza, *end = stanza + len;
	size_t		 nl = strlen(name);

	while (p < end) {
		const char	*eol = memchr(p, '\n', (size_t)(end - p));
		const char	*le = eol != NULL ? eol : end;

		if ((size_t)(le - p) > nl && strncasecmp(p, name, nl) == 0 &&
		    p[nl] == ':') {
			const char	*v = p + nl + 1;

			while (v < le && (*v == ' ' || *v == '\t'))
				v++;
			while (le > v && (le[-1] == ' ' || le[-1] == '\r'))
				le--;
			return xstrndup(v, (size_t)(le - v));
		}
		p = le + 1;
	}
	return NULL;
}

int
bundle_parse_index(struct bundle *b, const char *text, struct prov_err *err)
{
	struct strmap	 byfile = STRMAP_INIT;
	const char	*p = text;
	size_t		 i;
	int		 r = -1;

	for (i = 0; i < b->n; i++)
		strmap_put(&byfile, b->items[i].filename, &b->items[i]);
	while (*p != '\0') {
		const char		*end = strstr(p, "\n\n");
		size_t			 len = end ? (size_t)(end - p) + 1 :
					    strlen(p);
		char			*fn = bundle_field(p, len, "Filename");
		char			*sha = bundle_field(p, len, "SHA256");
		char			*size = bundle_field(p, len, "Size");
		char			*base, *name;
		struct bundle_item	*it = NULL;
		unsigned long		 sz = 0;
		int			 bad = 0;

		if (fn != NULL) {
			base = strrchr(fn, '/');
			name = base != NULL ? base + 1 : fn;
			it = strmap_get(&byfile, name);
		}
		if (it != NULL) {
			if (sha == NULL || !arc_sha256_valid(sha)) {
				/* Keep looking: another stanza may have it. */
			} else if (size == NULL || str_to_ulong(size, &sz) != 0 ||
			    (int64_t)sz != it->size) {
				prov_err_set(err, PROV_E_PARSE, "the index says "
				    "'%s' has %s bytes, apt said %lld",
				    it->filename, size != NULL ? size : "no",
				    (long long)it->size);
				bad = 1;
			} else if (it->sha256 != NULL &&
			    strcasecmp(it->sha256, sha) != 0) {
				prov_err_set(err, PROV_E_PARSE, "two indexes "
				    "disagree on the SHA-256 of '%s'",
				    it->filename);
				bad = 1;
			} else if (it->sha256 == NULL) {
				char	*q;

				for (q = sha; *q != '\0'; q++)
					*q = (char)(*q >= 'A' && *q <= 'F' ?
					    *q + 32 : *q);
				it->sha256 = sha;
				sha = NULL;
				if ((q = bundle_field(p, len, "Package")) != NULL) {
					free(it->name);
					it->name = q;
				}
				if ((q = bundle_field(p, len, "Version")) != NULL) {
					free(it->version);
					it->version = q;
				}
				if ((q = bundle_field(p, len,
				    "Architecture")) != NULL) {
					free(it->arch);
					it->arch = q;
				}
			}
		}
		free(fn);
		free(sha);
		free(size);
		if (bad)
			goto out;
		if (end == NULL)
			break;
		p = end + 2;
	}
	r = 0;
out:
	strmap_clear(&byfile);
	return r;
}

/* Fetching. */

struct bundle_xfer {
	struct bundle_item	*it;
	CURL			*h;
	int			 fd;
	char			*part;
	int64_t			 resume;	/* offset asked for */
	int64_t			 written;
	int			 first;
	int			 too_big;
	int			 io_err;
	int			 no_range;	/* the server ignores Range */
	struct curl_slist	*hdrs;		/* the item's auth header */
	long			 tries;
	char			 errbuf[CURL_ERROR_SIZE];
};

static size_t
bundle_write_cb(char *p, size_t sz, size_t nm, void *arg)
{
	struct bundle_xfer	*x = arg;
	size_t			 n = sz * nm;

	if (!x->first) {
		long	code = 0;

		x->first = 1;
		(void)curl_easy_getinfo(x->h, CURLINFO_RESPONSE_CODE, &code);
		if (x->resume > 0 && code == 200) {
			/* The server ignored Range: start over. */
			if (ftruncate(x->fd, 0) != 0 ||
			    lseek(x->fd, 0, SEEK_SET) != 0) {
				x->io_err = errno;
				return 0;
			}
			x->resume = 0;
		}
	}
	if (x->resume + x->written + (int64_t)n > x->it->size) {
		x->too_big = 1;
		return 0;
	}
	if (fs_write_all(x->fd, p, n) != 0) {
		x->io_err = errno;
		return 0;
	}
	x->written += (int64_t)n;
	return n;
}

static char *
bundle_pool_path(const struct bundle_opts *o, const char *sub,
    const char *file)
{
	return xasprintf("%s/%s/%s", o->cache, sub, file);
}

/* Is the cached copy good?  1 yes, 0 no (removed if present and bad). */
static int
bundle_cached(const struct bundle_opts *o, const struct bundle_item *it)
{
	char		*path = bundle_pool_path(o, "pool", it->filename);
	char		 hex[ARC_SHA256_HEX];
	int64_t		 size;
	struct prov_err	 e = PROV_ERR_INIT;
	int		 ok = 0;

	if (access(path, F_OK) == 0) {
		if (arc_sha256_file(hex, &size, path, &e) == 0 &&
		    size == it->size && strcmp(hex, it->sha256) == 0)
			ok = 1;
		else
			(void)unlink(path);
	}
	prov_err_release(&e);
	free(path);
	return ok;
}

/*
 * Check a finished partial file and move it into the pool.  0: done;
 * -1: it is wrong (deleted), *why says how.
 */
static int
bundle_settle(const struct bundle_opts *o, const struct bundle_item *it,
    const char *part, char **why)
{
	char		*pool = bundle_pool_path(o, "pool", it->filename);
	char		 hex[ARC_SHA256_HEX];
	int64_t		 size = -1;
	struct prov_err	 e = PROV_ERR_INIT;
	int		 r = -1;

	if (arc_sha256_file(hex, &size, part, &e) != 0) {
		*why = xstrdup(e.msg);
		goto out;
	}
	if (size != it->size) {
		*why = xasprintf("%lld bytes, the index says %lld: deleted, "
		    "not packed", (long long)size, (long long)it->size);
		(void)unlink(part);
		goto out;
	}
	if (strcmp(hex, it->sha256) != 0) {
		*why = xasprintf("checksum mismatch: SHA-256 %s, the index "
		    "says %s: deleted, not packed", hex, it->sha256);
		(void)unlink(part);
		goto out;
	}
	if (rename(part, pool) != 0) {
		*why = xasprintf("cannot move into the cache: %s",
		    strerror(errno));
		goto out;
	}
	r = 0;
out:
	prov_err_release(&e);
	free(pool);
	return r;
}

static void
bundle_xfer_free(struct bundle_xfer *x)
{
	if (x == NULL)
		return;
	if (x->h != NULL)
		curl_easy_cleanup(x->h);
	curl_slist_free_all(x->hdrs);
	if (x->fd >= 0)
		close(x->fd);
	free(x->part);
	free(x);
}

/*
 * Start (or resume) a transfer.  0: started; 1: nothing to fetch, the
 * partial file is already whole (settle it); -1: *why.
 */
static int
bundle_xfer_start(CURLM *m, struct bundle_xfer *x,
    const struct bundle_opts *o, char **why)
{
	struct stat	 st;
	char		*url = NULL;

	x->first = x->too_big = x->io_err = 0;
	x->written = 0;
	x->errbuf[0] = '\0';
	if (x->fd < 0 && (x->fd = open(x->part, O_RDWR | O_CREAT | O_NOFOLLOW |
	    O_CLOEXEC, 0644)) < 0) {
		*why = xasprintf("cannot open '%s': %s", x->part,
		    strerror(errno));
		return -1;
	}
	if (fstat(x->fd, &st) != 0) {
		*why = xasprintf("cannot stat '%s': %s", x->part,
		    strerror(errno));
		return -1;
	}
	if ((int64_t)st.st_size > x->it->size ||
	    (x->no_range && st.st_size > 0)) {
		if (ftruncate(x->fd, 0) != 0) {
			*why = xasprintf("cannot truncate '%s'", x->part);
			return -1;
		}
		st.st_size = 0;
	}
	if ((int64_t)st.st_size == x->it->size && x->it->size > 0)
		return 1;
	if (lseek(x->fd, st.st_size, SEEK_SET) < 0) {
		*why = xasprintf("cannot seek '%s'", x->part);
		return -1;
	}
	x->resume = (int64_t)st.st_size;
	/* apt writes local repositories as file:/path. */
	if (str_starts(x->it->url, "file:/") &&
	    !str_starts(x->it->url, "file://"))
		url = xasprintf("file://%s", x->it->url + 5);
	else
		url = xstrdup(x->it->url);
	if (x->h == NULL && (x->h = curl_easy_init()) == NULL) {
		free(url);
		*why = xstrdup("cannot start libcurl");
		return -1;
	}
	curl_easy_reset(x->h);
	curl_easy_setopt(x->h, CURLOPT_URL, url);
	curl_easy_setopt(x->h, CURLOPT_PROTOCOLS_STR, "http,https,ftp,file");
	curl_easy_setopt(x->h, CURLOPT_REDIR_PROTOCOLS_STR, "http,https,ftp");
	curl_easy_setopt(x->h, CURLOPT_FOLLOWLOCATION, 1L);
	curl_easy_setopt(x->h, CURLOPT_MAXREDIRS, 5L);
	curl_easy_setopt(x->h, CURLOPT_FAILONERROR, 1L);
	curl_easy_setopt(x->h, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(x->h, CURLOPT_CONNECTTIMEOUT, 30L);
	curl_easy_setopt(x->h, CURLOPT_LOW_SPEED_LIMIT, 1L);
	curl_easy_setopt(x->h, CURLOPT_LOW_SPEED_TIME,
	    o->timeout_s > 0 ? o->timeout_s : 60L);
	curl_easy_setopt(x->h, CURLOPT_USERAGENT, "provision-bundle");
	curl_easy_setopt(x->h, CURLOPT_ERRORBUFFER, x->errbuf);
	curl_easy_setopt(x->h, CURLOPT_WRITEFUNCTION, bundle_write_cb);
	curl_easy_setopt(x->h, CURLOPT_WRITEDATA, x);
	curl_easy_setopt(x->h, CURLOPT_PRIVATE, x);
	if (x->resume > 0)
		curl_easy_setopt(x->h, CURLOPT_RESUME_FROM_LARGE,
		    (curl_off_t)x->resume);
	if (x->it->auth != NULL && x->hdrs == NULL &&
	    (x->hdrs = curl_slist_append(NULL, x->it->auth)) == NULL) {
		free(url);
		*why = xstrdup("cannot start the transfer");
		return -1;
	}
	/* libcurl sends it to this host only, never after a redirect */
	if (x->hdrs != NULL)
		curl_easy_setopt(x->h, CURLOPT_HTTPHEADER, x->hdrs);
	free(url);
	if (curl_multi_add_handle(m, x->h) != CURLM_OK) {
		*why = xstrdup("cannot start the transfer");
		return -1;
	}
	return 0;
}

/* Images. */

static void
bundle_item_release(struct bundle_item *it)
{
	free(it->name);
	free(it->version);
	free(it->arch);
	free(it->filename);
	free(it->url);
	free(it->sha256);
	freezero_str(it->auth);
}

/* The cache and its pool/ and partial/, for images and packages alike. */
static int
bundle_cache_dirs(const struct bundle_opts *o, struct prov_err *err)
{
	static const char *const sub[] = { "", "/pool", "/partial" };
	char	*d;
	size_t	 i;
	int	 r = 0;

	if (o->cache == NULL)
		return prov_err_set(err, PROV_E_USAGE, "no cache directory");
	/* What lands in pool/ gets packed: nobody else may write there. */
	for (i = 0; i < ARRAY_SIZE(sub) && r == 0; i++) {
		d = xasprintf("%s%s", o->cache, sub[i]);
		r = fs_mkdirs(d, 0700, err);
		free(d);
	}
	return r;
}

/* Keep a resolved image: its manifest into the pool, its blobs queued. */
static int
bundle_image_add(struct bundle *b, const struct oci_image *img,
    const struct bundle_opts *o, struct prov_err *err)
{
	struct bundle_image	*bi;
	char			*file = xasprintf("sha256-%s", img->digest + 7);
	char			*path = bundle_pool_path(o, "pool", file);
	size_t			 i, k;
	int			 r = -1;

	if (buf_write_file_atomic(path, img->manifest.buf, img->manifest.len,
	    0644) != 0) {
		prov_err_sys(err, "cannot write '%s'", path);
		goto out;
	}
	ALLOC_GROW(b->imgs, b->nimgs + 1, b->aimgs);
	bi = &b->imgs[b->nimgs++];
	memset(bi, 0, sizeof *bi);
	bi->ref = xstrdup(img->ref);
	bi->digest = xstrdup(img->digest);
	bi->media_type = xstrdup(img->media_type);
	bi->platform = xstrdup(img->platform);
	bi->size = (int64_t)img->manifest.len;
	bi->first = b->image_blobs.n;
	bi->n = img->n;
	for (i = 0; i < img->n; i++) {
		const struct oci_blob	*ob = &img->blobs[i];
		struct bundle_item	*it;

		strvec_push(&b->image_blobs, ob->digest + 7);
		for (k = 0; k < b->nblobs; k++)
			if (strcmp(b->blobs[k].sha256, ob->digest + 7) == 0)
				break;
		if (k < b->nblobs)
			continue;
		ALLOC_GROW(b->blobs, b->nblobs + 1, b->ablobs);
		it = &b->blobs[b->nblobs++];
		memset(it, 0, sizeof *it);
		it->name = xstrdup(img->ref);
		it->version = xstrdup(ob->digest);
		it->arch = xstrdup("oci");
		it->filename = xasprintf("sha256-%s", ob->digest + 7);
		it->url = xstrdup(ob->url);
		it->sha256 = xstrdup(ob->digest + 7);
		it->size = ob->size;
		it->blob = 1;
		it->auth = img->auth != NULL ? xstrdup(img->auth) : NULL;
	}
	r = 0;
out:
	free(path);
	free(file);
	return r;
}

int
bundle_images(struct bundle *b, const struct bundle_opts *o,
    bundle_event_fn fn, void *arg, struct prov_err *err)
{
	struct oci_opts	oo = OCI_OPTS_INIT;
	struct buf	failed = BUF_INIT;
	size_t		i, nfailed = 0;
	int		r = -1;

	if (bundle_cache_dirs(o, err) != 0)
		return -1;
	oo.mirrors = o->registry_mirrors;
	oo.timeout_s = o->timeout_s;
	for (i = 0; i < b->images.n; i++) {
		const char		*ref = b->images.v[i];
		struct oci_image	 img = OCI_IMAGE_INIT;
		struct prov_err		 e = PROV_ERR_INIT;
		struct bundle_item	 ev;

		memset(&ev, 0, sizeof ev);
		ev.name = (char *)ref;
		ev.filename = (char *)ref;
		ev.blob = 1;
		if (oci_resolve(&img, ref, b->arch, &oo, &e) == 0 &&
		    bundle_image_add(b, &img, o, &e) == 0) {
			ev.version = img.digest;
			if (fn != NULL)
				fn(arg, BUNDLE_EV_IMAGE, &ev, img.platform);
		} else if (o->allow_missing) {
			strvec_push(&b->images_not_fetched, ref);
			if (fn != NULL)
				fn(arg, BUNDLE_EV_IMAGE_SKIPPED, &ev, e.msg);
		} else {
			buf_addf(&failed, "%s%s", nfailed ? ", " : "", ref);
			nfailed++;
			if (fn != NULL)
				fn(arg, BUNDLE_EV_FAILED, &ev, e.msg);
		}
		oci_image_release(&img);
		prov_err_release(&e);
	}
	b->images_done = 1;
	if (nfailed > 0) {
		prov_err_setloc(err, PROV_E_HTTP, NULL, "--allow-missing "
		    "lists them as not fetched; --no-images skips images",
		    "%zu image%s could not be fetched: %s", nfailed,
		    nfailed == 1 ? "" : "s", failed.buf);
		goto out;
	}
	r = 0;
out:
	buf_release(&failed);
	return r;
}

/*
 * One bundle_fetch(): the transfers, a ring of those waiting for a slot
 * (new ones, then retries: pend[ph], np of them), and the counts.
 */
struct bundle_fetcher {
	const struct bundle_opts *o;
	bundle_event_fn		  fn;
	void			 *arg;
	CURLM			 *m;
	struct bundle_xfer	**queue, **pend;
	size_t			  nq, ph, np, failed;
	long			  jobs, retries;
	int			  active;
};

static void
bundle_fetcher_event(struct bundle_fetcher *f, enum bundle_event ev,
    struct bundle_item *it, const char *why)
{
	if (f->fn != NULL)
		f->fn(f->arg, ev, it, why);
}

/* A transfer that is over: failed, with why (freed here). */
static void
bundle_fetcher_failed(struct bundle_fetcher *f, struct bundle_xfer *x,
    char *why)
{
	f->failed++;
	bundle_fetcher_event(f, BUNDLE_EV_FAILED, x->it, why);
	free(why);
}

/* A transfer whose body is all there: checked and moved into the pool. */
static void
bundle_fetcher_settle(struct bundle_fetcher *f, struct bundle_xfer *x)
{
	char	*why = NULL;

	close(x->fd);
	x->fd = -1;
	if (bundle_settle(f->o, x->it, x->part, &why) == 0)
		bundle_fetcher_event(f, BUNDLE_EV_FETCHED, x->it, NULL);
	else
		bundle_fetcher_failed(f, x, why);
}

/* Every item not in the cache yet, as a transfer. */
static void
bundle_fetcher_queue(struct bundle_fetcher *f, struct bundle *b)
{
	size_t	i;

	f->queue = xcalloc(b->n + b->nblobs + 1, sizeof *f->queue);
	for (i = 0; i < b->n + b->nblobs; i++) {
		struct bundle_item	*it = i < b->n ? &b->items[i] :
					    &b->blobs[i - b->n];
		struct bundle_xfer	*x;

		if (bundle_cached(f->o, it)) {
			bundle_fetcher_event(f, BUNDLE_EV_CACHED, it, NULL);
			continue;
		}
		x = xcalloc(1, sizeof *x);
		x->it = it;
		x->fd = -1;
		x->part = bundle_pool_path(f->o, "partial", x->it->filename);
		f->queue[f->nq++] = x;
	}
	f->pend = xcalloc(f->nq + 1, sizeof *f->pend);
	for (i = 0; i < f->nq; i++)
		f->pend[i] = f->queue[i];
	f->np = f->nq;
}

/* Fill the free slots from the ring. */
static void
bundle_fetcher_fill(struct bundle_fetcher *f)
{
	char	*why = NULL;

	while (f->active < f->jobs && f->np > 0) {
		struct bundle_xfer	*x = f->pend[f->ph];
		int			 st;

		f->ph = (f->ph + 1) % f->nq;
		f->np--;
		st = bundle_xfer_start(f->m, x, f->o, &why);
		if (st == 0)
			f->active++;
		else if (st == 1)
			bundle_fetcher_settle(f, x);	/* whole already */
		else
			bundle_fetcher_failed(f, x, why);
		why = NULL;
	}
}

/*
 * Why a transfer that libcurl finished without the file failed, and
 * whether to try again (*retry).
 */
static char *
bundle_fetcher_why(struct bundle_fetcher *f, struct bundle_xfer *x,
    CURLcode rc, long code, int *retry)
{
	*retry = 0;
	if (x->too_big) {
		(void)unlink(x->part);
		return xasprintf("larger than the %lld bytes the index says: "
		    "deleted, not packed", (long long)x->it->size);
	}
	if (x->io_err != 0)
		return xasprintf("cannot write '%s': %s", x->part,
		    strerror(x->io_err));
	/* Our partial file is not a prefix. */
	if (code == 416)
		(void)ftruncate(x->fd, 0);
	*retry = rc != CURLE_HTTP_RETURNED_ERROR || code >= 500 ||
	    code == 416 || code == 408 || code == 429;
	if (rc == CURLE_RANGE_ERROR) {
		/* From now on, whole files only. */
		x->no_range = 1;
		if (x->tries == f->retries)
			x->tries--;
		return xstrdup("the server ignores Range: downloading the "
		    "whole file again");
	}
	return xstrdup(x->errbuf[0] ? x->errbuf : curl_easy_strerror(rc));
}

/* A transfer libcurl says is over: settled, retried or failed. */
static void
bundle_fetcher_done(struct bundle_fetcher *f, CURLMsg *msg)
{
	struct bundle_xfer	*x = NULL;
	CURLcode		 rc = msg->data.result;
	long			 code = 0;
	int			 retry;
	char			*why;

	curl_easy_getinfo(msg->easy_handle, CURLINFO_PRIVATE, (char **)&x);
	curl_easy_getinfo(x->h, CURLINFO_RESPONSE_CODE, &code);
	curl_multi_remove_handle(f->m, x->h);
	f->active--;
	if (rc == CURLE_OK) {
		bundle_fetcher_settle(f, x);
		return;
	}
	why = bundle_fetcher_why(f, x, rc, code, &retry);
	if (retry && x->tries < f->retries) {
		x->tries++;
		bundle_fetcher_event(f, BUNDLE_EV_RETRY, x->it, why);
		free(why);
		/* Back on the ring, resumed from its length. */
		f->pend[(f->ph + f->np++) % f->nq] = x;
		return;
	}
	bundle_fetcher_failed(f, x, why);
}

int
bundle_fetch(struct bundle *b, const struct bundle_opts *o,
    bundle_event_fn fn, void *arg, struct prov_err *err)
{
	struct bundle_fetcher	 f;
	CURLMsg			*msg;
	size_t			 i;
	int			 running, left, r = -1, global = 0;

	if (bundle_cache_dirs(o, err) != 0)
		return -1;
	memset(&f, 0, sizeof f);
	f.o = o;
	f.fn = fn;
	f.arg = arg;
	f.jobs = o->jobs > 0 ? o->jobs : 8;
	f.retries = o->retries >= 0 ? o->retries : 3;
	bundle_fetcher_queue(&f, b);
	if (f.nq == 0) {
		r = 0;
		goto out;
	}
	if (curl_global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK) {
		prov_err_set(err, PROV_E_HTTP, "cannot start libcurl");
		goto out;
	}
	global = 1;
	if ((f.m = curl_multi_init()) == NULL) {
		prov_err_set(err, PROV_E_HTTP, "cannot start libcurl");
		goto out;
	}
	for (;;) {
		bundle_fetcher_fill(&f);
		if (f.active == 0)
			break;
		if (curl_multi_perform(f.m, &running) != CURLM_OK) {
			prov_err_set(err, PROV_E_HTTP, "libcurl multi failed");
			goto out;
		}
		while ((msg = curl_multi_info_read(f.m, &left)) != NULL)
			if (msg->msg == CURLMSG_DONE)
				bundle_fetcher_done(&f, msg);
		if (f.active > 0 && curl_multi_poll(f.m, NULL, 0, 1000,
		    NULL) != CURLM_OK) {
			prov_err_set(err, PROV_E_HTTP, "libcurl multi failed");
			goto out;
		}
	}
	if (f.failed > 0) {
		prov_err_set(err, PROV_E_HTTP, "%zu of %zu downloads failed",
		    f.failed, b->n + b->nblobs);
		goto out;
	}
	r = 0;
out:
	for (i = 0; i < f.nq; i++) {
		if (f.m != NULL && f.queue[i]->h != NULL)
			curl_multi_remove_handle(f.m, f.queue[i]->h);
		bundle_xfer_free(f.queue[i]);
	}
	if (f.m != NULL)
		curl_multi_cleanup(f.m);
	if (global)
		curl_global_cleanup();
	free(f.queue);
	free(f.pend);
	return r;
}

/* Packing. */

static void
bundle_json_list(struct json_writer *jw, const char *k,
    const struct strvec *v)
{
	size_t	i;

	json_array_begin(jw, k, 0);
	for (i = 0; i < v->n; i++)
		json_str(jw, NULL, v->v[i]);
	json_end(jw);
}

static void
bundle_json_images(struct json_writer *jw, const struct bundle *bu)
{
	size_t	i, k;
	char	blob[80];

	json_array_begin(jw, "images", JSON_LINES);
	for (i = 0; i < bu->nimgs; i++) {
		const struct bundle_image	*im = &bu->imgs[i];

		json_object_begin(jw, NULL, 0);
		json_str(jw, "ref", im->ref);
		json_str(jw, "digest", im->digest);
		json_str(jw, "media_type", im->media_type);
		json_str(jw, "platform", im->platform);
		json_int(jw, "size", (long long)im->size);
		json_array_begin(jw, "blobs", 0);
		for (k = 0; k < im->n; k++) {
			snprintf(blob, sizeof blob, "sha256:%s",
			    bu->image_blobs.v[im->first + k]);
			json_str(jw, NULL, blob);
		}
		json_end(jw);
		json_end(jw);
	}
	json_end(jw);
	json_array_begin(jw, "images_not_fetched", 0);
	for (i = 0; i < bu->images_not_fetched.n; i++)
		json_str(jw, NULL, bu->images_not_fetched.v[i]);
	for (i = 0; !bu->images_done && i < bu->images.n; i++)
		json_str(jw, NULL, bu->images.v[i]);
	json_end(jw);
}

void
bundle_manifest(struct buf *b, const struct bundle *bu,
    const struct bundle_file *files, size_t nfiles)
{
	struct json_writer	jw;
	size_t			i;

	json_init(&jw, b);
	json_object_begin(&jw, NULL, JSON_LINES);
	json_str(&jw, "format", "provision-bundle/1");
	json_str(&jw, "cluster", bu->cluster);
	json_object_begin(&jw, "os", 0);
	json_str(&jw, "distro", bu->distro);
	json_str(&jw, "release", bu->release);
	json_str(&jw, "codename", bu->codename);
	json_str(&jw, "arch", bu->arch);
	json_end(&jw);
	json_str(&jw, "apt_source", "deb [trusted=yes] file:BUNDLE/repo ./");
	bundle_json_list(&jw, "sources", &bu->sources);
	json_array_begin(&jw, "requested", JSON_LINES);
	for (i = 0; i < bu->wanted.n; i++) {
		json_object_begin(&jw, NULL, 0);
		json_str(&jw, "name", bu->wanted.v[i]);
		json_str(&jw, "step", bu->why.v[i]);
		json_end(&jw);
	}
	json_end(&jw);
	bundle_json_list(&jw, "missing", &bu->missing);
	bundle_json_images(&jw, bu);
	json_array_begin(&jw, "artifacts", JSON_LINES);
	for (i = 0; i < bu->n; i++) {
		const struct bundle_item	*it = &bu->items[i];
		char				*path = xasprintf("repo/%s",
						    it->filename);

		json_object_begin(&jw, NULL, 0);
		json_str(&jw, "name", it->name);
		json_str(&jw, "version", it->version);
		json_str(&jw, "arch", it->arch);
		json_str(&jw, "kind", "deb");
		json_str(&jw, "path", path);
		json_str(&jw, "sha256", it->sha256);
		json_int(&jw, "size", (long long)it->size);
		json_str(&jw, "url", it->url);
		json_end(&jw);
		free(path);
	}
	json_end(&jw);
	json_array_begin(&jw, "files", JSON_LINES);
	for (i = 0; files != NULL && i < nfiles; i++) {
		json_object_begin(&jw, NULL, 0);
		json_str(&jw, "path", files[i].path);
		json_str(&jw, "sha256", files[i].sha256);
		json_int(&jw, "size", (long long)files[i].size);
		json_end(&jw);
	}
	json_end(&jw);
	json_end(&jw);
	json_finish(&jw);
}

struct bundle_packer {
	struct arc_writer	*w;
	struct bundle_file	*files;
	size_t			 n, alloc;
};

static int
bundle_pack_buf(struct bundle_packer *pk, const char *path,
    const struct buf *data, int mode, struct prov_err *err)
{
	struct bundle_file	*f;

	if (arc_writer_add_buf(pk->w, path, data->buf, data->len, mode,
	    err) != 0)
		return -1;
	ALLOC_GROW(pk->files, pk->n + 1, pk->alloc);
	f = &pk->files[pk->n++];
	f->path = xstrdup(path);
	f->size = (int64_t)data->len;
	return arc_sha256_buf(f->sha256, data->buf, data->len, err);
}

/* Stream a cache file in, checked against its digest, and list it. */
static int
bundle_pack_file(struct bundle_packer *pk, const char *path, const char *src,
    const char *sha256, struct prov_err *err)
{
	struct bundle_file	*f;

	ALLOC_GROW(pk->files, pk->n + 1, pk->alloc);
	f = &pk->files[pk->n];
	if (arc_writer_add_file(pk->w, path, src, sha256, f->sha256, &f->size,
	    err) != 0)
		return -1;
	f->path = xstrdup(path);
	pk->n++;
	return 0;
}

/*
 * images/: an OCI image layout (image-spec's image-layout.md): oci-layout,
 * every manifest, config and layer under blobs/sha256/, and index.json
 * with one descriptor per image, named by its full reference.
 */
static int
bundle_pack_images(struct bundle_packer *pk, const struct bundle *b,
    const struct bundle_opts *o, struct prov_err *err)
{
	static const char layout[] = "{\"imageLayoutVersion\": \"1.0.0\"}\n";
	struct strmap		 done = STRMAP_INIT;
	struct buf		 idx = BUF_INIT, tmp = BUF_INIT;
	struct json_writer	 jw;
	size_t			 i, k;
	int			 r = -1;

	if (b->nimgs == 0)
		return 0;
	buf_adds(&tmp, layout);
	if (bundle_pack_buf(pk, "images/oci-layout", &tmp, 0644, err) != 0)
		goto out;
	json_init(&jw, &idx);
	json_object_begin(&jw, NULL, JSON_LINES);
	json_int(&jw, "schemaVersion", 2);
	json_str(&jw, "mediaType", OCI_MT_INDEX);
	json_array_begin(&jw, "manifests", JSON_LINES);
	for (i = 0; i < b->nimgs; i++) {
		const struct bundle_image	*im = &b->imgs[i];
		const char			*arch, *variant;
		char				*p;

		for (k = 0; k <= im->n; k++) {
			const char	*hex = k == 0 ? im->digest + 7 :
					    b->image_blobs.v[im->first + k - 1];
			char		*file, *src, *dst;
			int		 rr;

			if (strmap_get(&done, hex) != NULL)
				continue;
			strmap_put(&done, hex, (void *)hex);
			file = xasprintf("sha256-%s", hex);
			src = bundle_pool_path(o, "pool", file);
			dst = xasprintf("images/blobs/sha256/%s", hex);
			rr = bundle_pack_file(pk, dst, src, hex, err);
			free(file);
			free(src);
			free(dst);
			if (rr != 0)
				goto out;
		}
		/* "linux/arm/v7" */
		p = xstrdup(im->platform);
		arch = strchr(p, '/') != NULL ? strchr(p, '/') + 1 : p;
		if ((variant = strchr(arch, '/')) != NULL)
			*(char *)variant++ = '\0';
		json_object_begin(&jw, NULL, 0);
		json_str(&jw, "mediaType", im->media_type);
		json_str(&jw, "digest", im->digest);
		json_int(&jw, "size", (long long)im->size);
		json_object_begin(&jw, "platform", 0);
		json_str(&jw, "architecture", arch);
		json_str(&jw, "os", "linux");
		if (variant != NULL)
			json_str(&jw, "variant", variant);
		json_end(&jw);
		json_object_begin(&jw, "annotations", 0);
		json_str(&jw, "org.opencontainers.image.ref.name", im->ref);
		json_str(&jw, "io.containerd.image.name", im->ref);
		json_end(&jw);
		json_end(&jw);
		free(p);
	}
	json_end(&jw);
	json_end(&jw);
	json_finish(&jw);
	if (bundle_pack_buf(pk, "images/index.json", &idx, 0644, err) != 0)
		goto out;
	r = 0;
out:
	strmap_clear(&done);
	buf_release(&idx);
	buf_release(&tmp);
	return r;
}

static int
bundle_str_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Step templates: templates/STEP.sh but lib.sh, sorted; none without lib.sh. */
static int
bundle_steps(struct strvec *out, const char *dir, struct prov_err *err)
{
	struct dirent	*de;
	DIR		*d;
	char		*lib = xasprintf("%s/lib.sh", dir);
	int		 has_lib = access(lib, R_OK) == 0;

	free(lib);
	if (!has_lib)
		return 0;
	if ((d = opendir(dir)) == NULL)
		return prov_err_sys(err, "cannot read '%s'", dir);
	while ((de = readdir(d)) != NULL) {
		size_t	n = strlen(de->d_name);
		char	*name;

		if (n < 4 || strcmp(de->d_name + n - 3, ".sh") != 0)
			continue;
		name = xstrndup(de->d_name, n - 3);
		if (strcmp(name, "lib") != 0 && str_is_safe_word(name))
			strvec_push_nodup(out, name);
		else
			free(name);
	}
	closedir(d);
	if (out->n > 1)
		qsort(out->v, out->n, sizeof *out->v, bundle_str_cmp);
	return 0;
}

/*
 * The manifest names every other member with its digest, so signing it
 * signs the bundle: BUNDLE_SIG, and the signer's public key to say whose.
 */
static int
bundle_pack_sign(struct arc_writer *w, const struct sig_key *key,
    const struct buf *manifest, struct prov_err *err)
{
	struct buf	sig = BUF_INIT, pem = BUF_INIT;
	int		r = -1;

	if (sig_sign(&sig, key, manifest->buf, manifest->len, err) != 0 ||
	    sig_key_public_pem(&pem, key, err) != 0 ||
	    arc_writer_add_buf(w, BUNDLE_SIG, sig.buf, sig.len, 0644,
	    err) != 0 ||
	    arc_writer_add_buf(w, BUNDLE_SIG_KEY, pem.buf, pem.len, 0644,
	    err) != 0)
		goto out;
	r = 0;
out:
	buf_release(&sig);
	buf_release(&pem);
	return r;
}

int
bundle_pack(const struct bundle *b, const struct plan *p, const char *out,
    const struct bundle_opts *o, struct prov_err *err)
{
	struct bundle_packer	 pk;
	struct buf		 idx = BUF_INIT, ctl = BUF_INIT, tmp = BUF_INIT;
	struct strvec		 steps = STRVEC_INIT;
	char			 hex[ARC_SHA256_HEX], date[64];
	size_t			 i, k;
	time_t			 now = time(NULL);
	int			 r = -1;

	memset(&pk, 0, sizeof pk);
	if (o->cache == NULL)
		return prov_err_set(err, PROV_E_USAGE, "no cache directory");
	if (arc_writer_open(&pk.w, out, err) != 0)
		return -1;
	/* The debs, each checked again as it goes in, and their index. */
	for (i = 0; i < b->n; i++) {
		const struct bundle_item	*it = &b->items[i];
		char				*src = bundle_pool_path(o,
						    "pool", it->filename);
		char				*dst = xasprintf("repo/%s",
						    it->filename);
		int				 rr;

		buf_reset(&ctl);
		rr = arc_deb_control(&ctl, src, err);
		if (rr == 0)
			rr = arc_writer_add_file(pk.w, dst, src, it->sha256,
			    NULL, NULL, err);
		free(src);
		free(dst);
		if (rr != 0)
			goto out;
		while (ctl.len > 0 && (ctl.buf[ctl.len - 1] == '\n' ||
		    ctl.buf[ctl.len - 1] == '\r'))
			buf_setlen(&ctl, ctl.len - 1);
		buf_addf(&idx, "%s\nFilename: ./%s\nSize: %lld\nSHA256: %s\n\n",
		    ctl.buf, it->filename, (long long)it->size, it->sha256);
	}
	if (bundle_pack_buf(&pk, "repo/Packages", &idx, 0644, err) != 0 ||
	    arc_sha256_buf(hex, idx.buf, idx.len, err) != 0)
		goto out;
	strftime(date, sizeof date, "%a, %d %b %Y %H:%M:%S UTC", gmtime(&now));
	buf_addf(&tmp, "Origin: provision\nLabel: provision bundle\n"
	    "Suite: bundle\nCodename: bundle\nDate: %s\n"
	    "Architectures: %s all\nDescription: packages for cluster %s "
	    "(%s %s)\nSHA256:\n %s %zu Packages\n", date, b->arch, b->cluster,
	    b->distro, b->release, hex, idx.len);
	if (bundle_pack_buf(&pk, "repo/Release", &tmp, 0644, err) != 0)
		goto out;
	if (bundle_pack_images(&pk, b, o, err) != 0)
		goto out;

	/* The rendered step scripts, when there are templates. */
	if (o->templates != NULL && p != NULL) {
		struct render_in	in;

		memset(&in, 0, sizeof in);
		in.plan = p;
		in.templates = o->templates;
		if (bundle_steps(&steps, o->templates, err) != 0)
			goto out;
		for (i = 0; i < p->nnodes; i++)
			for (k = 0; k < steps.n; k++) {
				char	*path = xasprintf("scripts/%s/%s.sh",
					    p->nodes[i].name, steps.v[k]);
				int	 rr;

				buf_reset(&tmp);
				rr = render_step(&tmp, &in, i, steps.v[k], err);
				if (rr == 0)
					rr = bundle_pack_buf(&pk, path, &tmp,
					    0755, err);
				free(path);
				if (rr != 0)
					goto out;
			}
	}
	buf_reset(&tmp);
	buf_addf(&tmp, "provision bundle for cluster %s (%s %s, %s)\n\n"
	    "  mkdir -p /opt/provision-bundle\n"
	    "  tar --zstd -xf BUNDLE.tar.zst -C /opt/provision-bundle\n"
	    "  echo 'deb [trusted=yes] file:/opt/provision-bundle/repo ./' \\\n"
	    "      > /etc/apt/sources.list.d/provision-bundle.list\n"
	    "  apt-get update && apt-get install PACKAGE...\n\n"
	    "manifest.json lists every file with its SHA-256; check with\n"
	    "`provision bundle --verify BUNDLE.tar.zst`.  %zu step script%s "
	    "under scripts/NODE/.\n", b->cluster, b->distro, b->release, b->arch,
	    steps.n * (p != NULL ? p->nnodes : 0),
	    steps.n * (p != NULL ? p->nnodes : 0) == 1 ? "" : "s");
	if (bundle_pack_buf(&pk, "README", &tmp, 0644, err) != 0)
		goto out;
	buf_reset(&tmp);
	bundle_manifest(&tmp, b, pk.files, pk.n);
	if (arc_writer_add_buf(pk.w, "manifest.json", tmp.buf, tmp.len, 0644,
	    err) != 0)
		goto out;
	if (o->sign_key != NULL && bundle_pack_sign(pk.w, o->sign_key, &tmp,
	    err) != 0)
		goto out;
	if (arc_writer_commit(pk.w, err) != 0)
		goto out;
	r = 0;
out:
	arc_writer_free(pk.w);
	for (i = 0; i < pk.n; i++)
		free(pk.files[i].path);
	free(pk.files);
	strvec_clear(&steps);
	buf_release(&idx);
	buf_release(&ctl);
	buf_release(&tmp);
	return r;
}

/* Verifying. */

struct bundle_seen {
	char	*name;
	char	 sha256[ARC_SHA256_HEX];
	int64_t	 size;
	int	 expected;
};

struct bundle_vctx {
	struct bundle_seen	*v;
	size_t			 n, alloc;
	struct strmap		 map;		/* name -> index + 1 */
	struct buf		 manifest, packages, sig, sig_key;
	int			 have_manifest, have_packages;
	int			 have_sig, have_sig_key;
	struct bundle_check	*chk;
};

static int
bundle_verify_member(void *arg, const struct arc_member *m,
    struct prov_err *err)
{
	struct bundle_vctx	*v = arg;
	struct bundle_seen	*s;

	(void)err;
	if (m->type == 'd')
		return 0;
	if (m->type != 'f') {
		strvec_pushf(&v->chk->problems, "'%s' is a link or special "
		    "file, not a regular file", m->name);
		return 0;
	}
	v->chk->members++;
	if (strcmp(m->name, "manifest.json") == 0 && m->data != NULL) {
		buf_reset(&v->manifest);
		buf_add(&v->manifest, m->data, m->len);
		v->have_manifest = 1;
	}
	if (strcmp(m->name, "repo/Packages") == 0 && m->data != NULL) {
		buf_reset(&v->packages);
		buf_add(&v->packages, m->data, m->len);
		v->have_packages = 1;
	}
	if (strcmp(m->name, BUNDLE_SIG) == 0 && m->data != NULL) {
		buf_reset(&v->sig);
		buf_add(&v->sig, m->data, m->len);
		v->have_sig = 1;
	}
	if (strcmp(m->name, BUNDLE_SIG_KEY) == 0 && m->data != NULL) {
		buf_reset(&v->sig_key);
		buf_add(&v->sig_key, m->data, m->len);
		v->have_sig_key = 1;
	}
	ALLOC_GROW(v->v, v->n + 1, v->alloc);
	s = &v->v[v->n];
	memset(s, 0, sizeof *s);
	s->name = xstrdup(m->name);
	memcpy(s->sha256, m->sha256, ARC_SHA256_HEX);
	s->size = m->size;
	if (strmap_add(&v->map, s->name, (void *)(uintptr_t)(v->n + 1)) !=
	    NULL) {
		strvec_pushf(&v->chk->problems, "'%s' is in the archive twice",
		    m->name);
		free(s->name);
		return 0;
	}
	v->n++;
	return 0;
}

static struct bundle_seen *
bundle_seen_get(struct bundle_vctx *v, const char *name)
{
	uintptr_t	i = (uintptr_t)strmap_get(&v->map, name);

	return i == 0 ? NULL : &v->v[i - 1];
}

/* Check the manifest's entries in `list` against the members. */
static void
bundle_verify_list(struct bundle_vctx *v, const struct yml_node *root,
    const char *list, size_t *count)
{
	const struct yml_node	*seq = yml_map_get(root, list);
	unsigned		 i;

	if (seq == NULL || seq->kind != YML_SEQ) {
		strvec_pushf(&v->chk->problems, "manifest.json has no '%s' "
		    "list", list);
		return;
	}
	for (i = 0; i < seq->n; i++) {
		const struct yml_node	*e = seq->u.items[i];
		const char		*path = yml_map_str(e, "path");
		const char		*sha = yml_map_str(e, "sha256");
		const char		*size = yml_map_str(e, "size");
		struct bundle_seen	*s;
		long			 sz;

		if (path == NULL || sha == NULL || size == NULL ||
		    str_to_long(size, &sz) != 0) {
			strvec_pushf(&v->chk->problems, "manifest.json: entry "
			    "%u of '%s' lacks path, sha256 or size", i + 1, list);
			continue;
		}
		if (count != NULL)
			(*count)++;
		if ((s = bundle_seen_get(v, path)) == NULL) {
			strvec_pushf(&v->chk->problems, "'%s' is in the manifest "
			    "but not in the archive", path);
			continue;
		}
		s->expected = 1;
		if (s->size != (int64_t)sz)
			strvec_pushf(&v->chk->problems, "'%s' has %lld bytes, "
			    "the manifest says %ld", path, (long long)s->size, sz);
		else if (strcasecmp(s->sha256, sha) != 0)
			strvec_pushf(&v->chk->problems, "'%s' has SHA-256 %s, "
			    "the manifest says %s", path, s->sha256, sha);
	}
}

/* Every .deb in repo/ is in repo/Packages with its size and digest. */
static void
bundle_verify_packages(struct bundle_vctx *v)
{
	const char	*p = v->packages.buf;
	size_t		 i;

	while (*p != '\0') {
		const char		*end = strstr(p, "\n\n");
		size_t			 len = end ? (size_t)(end - p) + 1 :
					    strlen(p);
		char			*fn = bundle_field(p, len, "Filename");
		char			*sha = bundle_field(p, len, "SHA256");
		char			*size = bundle_field(p, len, "Size");
		struct bundle_seen	*s = NULL;
		char			*path = NULL;

		if (fn != NULL) {
			path = xasprintf("repo/%s", str_starts(fn, "./") ?
			    fn + 2 : fn);
			s = bundle_seen_get(v, path);
		}
		if (fn == NULL && len > 1)
			strvec_pushf(&v->chk->problems, "repo/Packages: a "
			    "stanza has no Filename");
		else if (fn != NULL && s == NULL)
			strvec_pushf(&v->chk->problems, "repo/Packages lists "
			    "'%s', which is not in the archive", fn);
		else if (s != NULL && (sha == NULL || size == NULL ||
		    strcasecmp(sha, s->sha256) != 0 ||
		    strtoll(size, NULL, 10) != s->size))
			strvec_pushf(&v->chk->problems, "repo/Packages does not "
			    "match '%s' (size or SHA256)", path);
		else if (s != NULL)
			s->expected |= 2;
		free(fn);
		free(sha);
		free(size);
		free(path);
		if (end == NULL)
			break;
		p = end + 2;
	}
	for (i = 0; i < v->n; i++) {
		size_t	n = strlen(v->v[i].name);

		if (str_starts(v->v[i].name, "repo/") && n > 4 &&
		    strcmp(v->v[i].name + n - 4, ".deb") == 0 &&
		    !(v->v[i].expected & 2))
			strvec_pushf(&v->chk->problems, "'%s' is not in "
			    "repo/Packages", v->v[i].name);
	}
}

/*
 * Whom the manifest (and so every member) comes from, against `t`: a
 * problem when it is refused, chk->trust saying why when it is not.
 */
static void
bundle_verify_trust(struct bundle_vctx *v, const struct bundle_trust *t)
{
	struct bundle_check	*chk = v->chk;
	const struct sig_key	*pin = t != NULL ? t->pinned : NULL;
	int			 insecure = t != NULL && t->insecure_unsigned;
	struct sig_key		*signer = NULL;
	struct prov_err		 e = PROV_ERR_INIT;
	const char		*fp;

	if (!v->have_sig && !v->have_sig_key) {
		if (pin != NULL)
			strvec_pushf(&chk->problems, "the bundle is not "
			    "signed, and key %s is pinned (sign it: "
			    "provision bundle --sign KEY)",
			    sig_key_fingerprint(pin));
		else if (insecure)
			chk->trust = xstrdup("accepted unsigned because "
			    "--insecure-unsigned");
		else
			strvec_push(&chk->problems, "the bundle is not signed: "
			    "anyone who could change it on its way could run "
			    "code on every node (sign it with provision bundle "
			    "--sign KEY and pin the public key in the plan, "
			    "offline: { bundle_key: FILE }; or accept it "
			    "unsigned with --insecure-unsigned)");
		return;
	}
	if (!v->have_sig || !v->have_sig_key) {
		strvec_pushf(&chk->problems, "the signature is incomplete: %s "
		    "without %s", v->have_sig ? BUNDLE_SIG : BUNDLE_SIG_KEY,
		    v->have_sig ? BUNDLE_SIG_KEY : BUNDLE_SIG);
		return;
	}
	if (sig_key_from_pem(&signer, v->sig_key.buf, v->sig_key.len,
	    &e) != 0) {
		strvec_pushf(&chk->problems, "%s: %s", BUNDLE_SIG_KEY, e.msg);
		goto out;
	}
	fp = sig_key_fingerprint(signer);
	if (pin != NULL && !sig_key_same(pin, signer)) {
		strvec_pushf(&chk->problems, "signed by key %s, not by the "
		    "pinned key %s", fp, sig_key_fingerprint(pin));
		goto out;
	}
	if (!sig_verify(signer, v->manifest.buf, v->manifest.len, v->sig.buf,
	    v->sig.len)) {
		strvec_pushf(&chk->problems, "the signature of key %s does not "
		    "match manifest.json: the bundle was changed after it was "
		    "signed", fp);
		goto out;
	}
	if (pin != NULL)
		chk->trust = xasprintf("signed by key %s (the pinned key)", fp);
	else if (insecure)
		chk->trust = xasprintf("signed by key %s, which no pinned key "
		    "vouches for: accepted because --insecure-unsigned", fp);
	else
		strvec_pushf(&chk->problems, "signed by key %s, but no key is "
		    "pinned to check it against (pin it in the plan, offline: "
		    "{ bundle_key: FILE }, or give bundle --verify --key FILE)",
		    fp);
out:
	prov_err_release(&e);
	sig_key_free(signer);
}

int
bundle_verify(struct bundle_check *chk, const char *path,
    const struct bundle_trust *trust, struct prov_err *err)
{
	static const char *const keep[] = { "manifest.json", "repo/Packages",
	    BUNDLE_SIG, BUNDLE_SIG_KEY, NULL };
	struct bundle_vctx	 v;
	struct yml_doc		 doc;
	struct prov_errs	 errs = PROV_ERRS_INIT;
	size_t			 i;
	int			 r = -1;

	memset(&v, 0, sizeof v);
	v.map = (struct strmap)STRMAP_INIT;
	v.manifest = (struct buf)BUF_INIT;
	v.packages = (struct buf)BUF_INIT;
	v.sig = (struct buf)BUF_INIT;
	v.sig_key = (struct buf)BUF_INIT;
	v.chk = chk;
	yml_doc_init(&doc);
	if (arc_scan(path, keep, BUNDLE_OUT_MAX, bundle_verify_member, &v,
	    err) != 0)
		goto out;
	if (!v.have_manifest) {
		strvec_push(&chk->problems, "no manifest.json in the archive");
		r = 0;
		goto out;
	}
	if (arc_sha256_buf(chk->manifest_sha256, v.manifest.buf,
	    v.manifest.len, err) != 0)
		goto out;
	if (yml_load(&doc, "manifest.json", v.manifest.buf, v.manifest.len,
	    &errs) != 0 || errs.n > 0 || doc.root == NULL ||
	    doc.root->kind != YML_MAP) {
		strvec_pushf(&chk->problems, "manifest.json is not a JSON "
		    "object%s%s", errs.n > 0 ? ": " : "",
		    errs.n > 0 ? errs.v[0].msg : "");
		r = 0;
		goto out;
	}
	if (yml_map_str(doc.root, "format") == NULL ||
	    strcmp(yml_map_str(doc.root, "format"),
	    "provision-bundle/1") != 0)
		strvec_push(&chk->problems, "manifest.json is not format "
		    "provision-bundle/1");
	bundle_verify_list(&v, doc.root, "artifacts", &chk->artifacts);
	bundle_verify_list(&v, doc.root, "files", NULL);
	if (v.have_packages)
		bundle_verify_packages(&v);
	else
		strvec_push(&chk->problems, "no repo/Packages in the archive");
	for (i = 0; i < v.n; i++)
		if (!(v.v[i].expected & 1) &&
		    strcmp(v.v[i].name, "manifest.json") != 0 &&
		    strcmp(v.v[i].name, BUNDLE_SIG) != 0 &&
		    strcmp(v.v[i].name, BUNDLE_SIG_KEY) != 0)
			strvec_pushf(&chk->problems, "'%s' is in the archive "
			    "but not in the manifest", v.v[i].name);
	bundle_verify_trust(&v, trust);
	r = 0;
out:
	for (i = 0; i < v.n; i++)
		free(v.v[i].name);
	free(v.v);
	strmap_clear(&v.map);
	buf_release(&v.manifest);
	buf_release(&v.packages);
	buf_release(&v.sig);
	buf_release(&v.sig_key);
	yml_doc_release(&doc);
	prov_errs_release(&errs);
	return r;
}

void
bundle_check_release(struct bundle_check *c)
{
	if (c == NULL)
		return;
	strvec_clear(&c->problems);
	free(c->trust);
	c->trust = NULL;
	c->members = c->artifacts = 0;
}

void
bundle_release(struct bundle *b)
{
	size_t	i;

	if (b == NULL)
		return;
	for (i = 0; i < b->n; i++)
		bundle_item_release(&b->items[i]);
	free(b->items);
	for (i = 0; i < b->nblobs; i++)
		bundle_item_release(&b->blobs[i]);
	free(b->blobs);
	for (i = 0; i < b->nimgs; i++) {
		free(b->imgs[i].ref);
		free(b->imgs[i].digest);
		free(b->imgs[i].media_type);
		free(b->imgs[i].platform);
	}
	free(b->imgs);
	strvec_clear(&b->images_not_fetched);
	strvec_clear(&b->image_blobs);
	free(b->distro);
	free(b->release);
	free(b->codename);
	free(b->arch);
	free(b->cluster);
	strvec_clear(&b->sources);
	strvec_clear(&b->wanted);
	strvec_clear(&b->why);
	strvec_clear(&b->optional);
	strvec_clear(&b->missing);
	strvec_clear(&b->images);
	free(b->k8s_version);
	memset(b, 0, sizeof *b);
	*b = (struct bundle)BUNDLE_INIT;
}

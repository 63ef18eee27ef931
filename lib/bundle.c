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
#include "bundle-int.h"
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
static const char *const bundle_directory_pkgs[] = {
	"sssd-ldap", "libnss-sss", "libpam-sss", NULL	/* step directory */
};
static const char *const bundle_nfs_server_pkgs[] = {
	"nfs-kernel-server", "nfs-common", NULL	/* step storage */
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
	if (sw->relay.nimages > 0)
		bundle_want(b, "docker-registry", "relay");
	if (sw->orchestrator != NULL && strcmp(sw->orchestrator, "slurm") == 0)
		bundle_want_list(b, bundle_slurm_pkgs, "slurm");
	if (plan_accounting(p))
		bundle_want_list(b, bundle_accounting_pkgs, "slurmdbd");
	if (p->logging.server != NULL)
		bundle_want_list(b, bundle_logging_pkgs, "logging");
	if (p->directory.src != NULL)
		bundle_want_list(b, bundle_directory_pkgs, "directory");
	if (plan_storage_server(p) != NULL)
		bundle_want_list(b, bundle_nfs_server_pkgs, "storage");
	else if (p->nexports > 0)
		bundle_want(b, "nfs-common", "storage");
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

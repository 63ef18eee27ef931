/*
 * bundle.h: everything a plan needs, in one archive, for sites with no
 * internet (docs/bundle.md has the layout `apply --bundle` reads).
 *
 * Four steps, each usable alone:
 *
 *	struct bundle b = BUNDLE_INIT;
 *	struct bundle_opts o = BUNDLE_OPTS_INIT;
 *	bundle_plan(&b, plan, &o, &err);	what the plan needs: packages
 *						by step, images, apt sources
 *	bundle_resolve(&b, &o, &err);		apt adds the dependencies, in a
 *						throw-away state directory;
 *						the index gives each .deb's
 *						URL, size and SHA-256
 *	bundle_images(&b, &o, fn, arg, &err);	container images: manifests
 *						from the registries (oci.h)
 *	bundle_fetch(&b, &o, fn, arg, &err);	libcurl, in parallel, resumable
 *						(CACHE/partial/), verified
 *						before it enters CACHE/pool/
 *	bundle_pack(&b, plan, "x.tar.zst", &o, &err);
 *						repo/ (debs + Packages),
 *						images/ (an OCI layout),
 *						scripts/, manifest.json;
 *						tar + zstd
 *	bundle_release(&b);
 *
 * bundle_verify() reads an archive back and checks every member against
 * its manifest, and the manifest against its signature: with
 * bundle_opts.sign_key, bundle_pack() signs the manifest (ed25519, sig.h)
 * and packs the signature and the signer's public key beside it; a
 * bundle is then trusted only when signed by the key the plan pins
 * (offline.bundle_key), or, on the operator's word (--insecure-unsigned),
 * without one.  A file whose size or SHA-256 differs from the index is
 * never moved into the cache, and never packed: bundle_pack() checks the
 * digest again as it streams each file in, and a mismatch leaves no
 * archive behind.
 */
#ifndef PROV_BUNDLE_H
#define PROV_BUNDLE_H

#include <stddef.h>
#include <stdint.h>

#include "buf.h"
#include "err.h"
#include "strvec.h"

struct plan;
struct sig_key;

/* Members beside manifest.json when the bundle is signed. */
#define BUNDLE_SIG		"manifest.sig"	/* 64 bytes: ed25519 of
						   manifest.json */
#define BUNDLE_SIG_KEY		"manifest.pub"	/* the signer's public key,
						   PEM: informative only */

/*
 * One .deb of the bundle, or one blob of a container image (`blob` set:
 * name is the first image that needs it, version its digest, filename
 * "sha256-HEX" in the cache, auth the registry's token header or NULL).
 */
struct bundle_item {
	char	*name;
	char	*version;
	char	*arch;
	char	*filename;	/* in pool/ and repo/: "x_1.0_amd64.deb" */
	char	*url;
	char	*sha256;	/* from the index (lower case hex) */
	int64_t	 size;
	int	 blob;
	char	*auth;		/* "Authorization: ..." or NULL; wiped */
};

/* A container image fetched for the bundle (its manifest is in the pool). */
struct bundle_image {
	char	*ref;		/* as the plan names it */
	char	*digest;	/* "sha256:HEX" of its platform manifest */
	char	*media_type;
	char	*platform;	/* "linux/amd64" */
	int64_t	 size;		/* of the manifest */
	size_t	 first, n;	/* its blobs: image_blobs[first .. first+n) */
};

struct bundle {
	char			*distro, *release, *codename, *arch;
	char			*cluster;
	struct strvec		 sources;	/* sources.list lines */
	struct strvec		 wanted;	/* packages the steps install */
	struct strvec		 why;		/* per wanted: the step */
	struct strvec		 optional;	/* wanted where an index has
						   them: the step skips them
						   otherwise (apptainer) */
	struct strvec		 missing;	/* wanted, in no index */
	struct strvec		 images;	/* container images the plan
						   needs (references) */
	struct strvec		 images_not_fetched;	/* --no-images,
						   --allow-missing, or no
						   reference known */
	int			 images_done;	/* bundle_images() ran */
	struct bundle_image	*imgs;
	size_t			 nimgs, aimgs;
	struct strvec		 image_blobs;	/* per image, its blobs'
						   digests (config, layers) */
	struct bundle_item	*blobs;		/* distinct blobs to fetch */
	size_t			 nblobs, ablobs;
	struct bundle_item	*items;
	size_t			 n, alloc;
	char			*k8s_version;	/* the plan's Kubernetes */
};

#define BUNDLE_INIT { NULL, NULL, NULL, NULL, NULL, STRVEC_INIT, \
	STRVEC_INIT, STRVEC_INIT, STRVEC_INIT, STRVEC_INIT, STRVEC_INIT, \
	STRVEC_INIT, 0, NULL, 0, 0, STRVEC_INIT, NULL, 0, 0, NULL, 0, 0, \
	NULL }

struct bundle_opts {
	const char		*cache;		/* required by fetch and pack */
	const char		*arch;		/* NULL: amd64 */
	const struct strvec	*sources;	/* NULL/empty: the distro's */
	const struct strvec	*packages;	/* more than the plan needs */
	const char		*templates;	/* step templates, or NULL */
	long			 jobs;		/* parallel downloads; 0: 8 */
	long			 retries;	/* per file; <0: 3 */
	long			 timeout_s;	/* stalled transfer; 0: 60 */
	int			 allow_missing;	/* a package in no index, an
						   image that cannot be
						   fetched: not an error */
	const struct strvec	*registry_mirrors;	/* "HOST=URL" */
	const struct strvec	*images;	/* more than the plan needs */
	const struct sig_key	*sign_key;	/* a private key: the pack is
						   signed; NULL: unsigned */
};

#define BUNDLE_OPTS_INIT { NULL, NULL, NULL, NULL, NULL, 0, -1, 0, 0, NULL, \
	NULL, NULL }

/*
 * What the plan's steps install: for each step, the names its template's
 * step_packages prints on the plan's nodes (docs/bundle.md has the list;
 * tests/unit/test_bundle.c runs the templates and compares).
 */
int	bundle_plan(struct bundle *, const struct plan *,
	    const struct bundle_opts *, struct prov_err *);
/*
 * Needs apt-get and apt-cache; reads the sources' indexes (network).
 * With Kubernetes it then adds kubeadm's pause, etcd and CoreDNS images
 * for the kubeadm it resolved (bundle_kubeadm_images()).
 */
int	bundle_resolve(struct bundle *, const struct bundle_opts *,
	    struct prov_err *);

enum bundle_event {
	BUNDLE_EV_CACHED,	/* already in the cache, checksum good */
	BUNDLE_EV_FETCHED,	/* downloaded and verified */
	BUNDLE_EV_RETRY,	/* a transfer broke; resuming (msg says why) */
	BUNDLE_EV_FAILED,	/* given up (msg says why) */
	BUNDLE_EV_IMAGE,	/* bundle_images(): item->name resolved to
				   item->version (its manifest's digest) */
	BUNDLE_EV_IMAGE_SKIPPED,	/* ... could not be (msg), and
				   --allow-missing: listed as not fetched */
};

typedef void (*bundle_event_fn)(void *arg, enum bundle_event,
    const struct bundle_item *, const char *msg);

/*
 * Ask the registries for the manifests of b->images (lib/oci.c): each
 * platform manifest goes into CACHE/pool/sha256-HEX, its config and
 * layers join b->blobs for bundle_fetch().  An image that cannot be
 * resolved fails the call (each one reported as BUNDLE_EV_FAILED with an
 * item whose name is the reference), unless allow_missing: then it is
 * listed in b->images_not_fetched.  Without this call every image is
 * listed as not fetched (--manifest-only, --no-images).
 */
int	bundle_images(struct bundle *, const struct bundle_opts *,
	    bundle_event_fn, void *arg, struct prov_err *);

/*
 * The packages and the image blobs.  -1 when any file could not be
 * fetched and verified (each one reported).
 */
int	bundle_fetch(struct bundle *, const struct bundle_opts *,
	    bundle_event_fn, void *arg, struct prov_err *);
int	bundle_pack(const struct bundle *, const struct plan *,
	    const char *out, const struct bundle_opts *, struct prov_err *);

/* A packed member other than a .deb (Packages, scripts, README). */
struct bundle_file {
	char	*path;
	char	 sha256[65];
	int64_t	 size;
};

/* manifest.json; files may be NULL (--manifest-only). */
void	bundle_manifest(struct buf *, const struct bundle *,
	    const struct bundle_file *, size_t nfiles);

struct bundle_check {
	size_t		 members;	/* regular files read */
	size_t		 artifacts;	/* .debs in the manifest */
	struct strvec	 problems;	/* empty: the archive is good */
	char		*trust;		/* why it is trusted: "signed by
					   key SHA256:... (pinned)", "accepted
					   unsigned because
					   --insecure-unsigned"; NULL when
					   refused (a problem says why) */
	char		 manifest_sha256[65];	/* of the manifest read */
};

#define BUNDLE_CHECK_INIT { 0, 0, STRVEC_INIT, NULL, { 0 } }

/* Whom a bundle must come from. */
struct bundle_trust {
	const struct sig_key	*pinned;	/* public key the plan pins
						   (offline.bundle_key), or
						   NULL */
	int			 insecure_unsigned;	/* accept a bundle
						   no pinned key vouches
						   for */
};

/*
 * -1 when the archive cannot be read; problems are listed, not errors.
 * A bundle is refused (a problem) unless signed by `trust->pinned`, or
 * trust->insecure_unsigned; a signature that does not match its manifest
 * is refused always.  trust NULL: no key pinned, nothing insecure
 * allowed.
 */
int	bundle_verify(struct bundle_check *, const char *path,
	    const struct bundle_trust *trust, struct prov_err *);
void	bundle_check_release(struct bundle_check *);

void	bundle_release(struct bundle *);

/* Pure parts, exposed for the unit tests. */

/* Lines of `apt-get install --print-uris -qq`: 'URL' FILE SIZE HASH. */
int	bundle_parse_uris(struct bundle *, const char *text, struct prov_err *);
/*
 * Stanzas of `apt-cache show` (or a Packages file): fill each item's
 * SHA-256 from the stanza whose Filename ends in the item's file name;
 * an item left without one, or with a different size, is an error.
 */
int	bundle_parse_index(struct bundle *, const char *text,
	    struct prov_err *);
/* The value of field `name` in one deb822 stanza (caller frees), or NULL. */
char	*bundle_field(const char *stanza, size_t len, const char *name);
/* "a%3ab" -> "a:b"; NULL when an escape is malformed. */
char	*bundle_unescape(const char *s);
/* 1 when s is a safe .deb file name: [A-Za-z0-9.+~_-], no leading '.'. */
int	bundle_filename_ok(const char *s);
/*
 * Push the pause, etcd and CoreDNS images `kubeadm config images list`
 * names for kubeadm `version` ("1.30.2", "v1.30.2" or a .deb version
 * "1.30.2-1.1") onto out, from a table of kubeadm releases.  -1 (out
 * untouched) for a release the table does not know.
 */
int	bundle_kubeadm_images(struct strvec *out, const char *version);

#endif

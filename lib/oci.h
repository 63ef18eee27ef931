/*
 * oci.h: container images from a registry (the OCI distribution protocol).
 *
 * oci_resolve() turns an image reference into what has to be downloaded
 * for one platform: it asks the registry for the manifest (OCI index or
 * image manifest, Docker manifest list or v2 manifest), answers a 401
 * `WWW-Authenticate: Bearer realm=...` with an anonymous token from the
 * realm, picks the platform's manifest out of an index, checks every
 * manifest's SHA-256 against the digest that named it, and lists the
 * config and layer blobs with their digests, sizes and URLs.  The blobs
 * themselves are downloaded by the caller (bundle_fetch(): parallel,
 * resumable, each checked against its digest).
 *
 *	struct oci_opts o = OCI_OPTS_INIT;
 *	struct oci_image img = OCI_IMAGE_INIT;
 *	o.mirrors = &mirrors;		("nvcr.io=http://127.0.0.1:5000")
 *	if (oci_resolve(&img, "nvcr.io/nvidia/k8s/dcgm-exporter:3.3.5",
 *	    "amd64", &o, &err) != 0) ...
 *	... img.manifest (bytes), img.blobs[i].url, img.auth ...
 *	oci_image_release(&img);
 *
 * TLS is always verified (libcurl's defaults, the system's CAs).  A
 * registry is reached over plain http only when a mirror says so
 * explicitly (tests, a local mirror in an air-gapped site); a token realm
 * over plain http is refused unless the registry itself is plain http.
 * Only sha256 digests are supported.  Anonymous pulls only: a registry
 * that wants a password (Basic) is an error that says so.
 *
 * The parsers are pure and exposed for the unit tests.
 */
#ifndef PROV_OCI_H
#define PROV_OCI_H

#include <stddef.h>
#include <stdint.h>

#include "buf.h"
#include "err.h"
#include "strvec.h"

#define OCI_MT_INDEX	"application/vnd.oci.image.index.v1+json"
#define OCI_MT_MANIFEST	"application/vnd.oci.image.manifest.v1+json"
#define OCI_MT_DOCKER_LIST \
	"application/vnd.docker.distribution.manifest.list.v2+json"
#define OCI_MT_DOCKER_MANIFEST \
	"application/vnd.docker.distribution.manifest.v2+json"

/* registry/repo[:tag][@sha256:HEX]; Docker Hub names are completed. */
struct oci_ref {
	char	*registry;	/* "nvcr.io"; "docker.io" for Docker Hub */
	char	*repo;		/* "nvidia/k8s/dcgm-exporter" */
	char	*tag;		/* NULL when only a digest is given */
	char	*digest;	/* "sha256:HEX" or NULL */
};

#define OCI_REF_INIT { NULL, NULL, NULL, NULL }

/*
 * Parse an image reference.  "ubuntu" is docker.io/library/ubuntu:latest;
 * the first component is a registry when it has a '.' or ':' or is
 * "localhost".  Names are checked against the distribution spec's
 * grammar (lower case path components, tags of [A-Za-z0-9_.-]).
 */
int	oci_ref_parse(struct oci_ref *out, const char *s, struct prov_err *);
void	oci_ref_release(struct oci_ref *);
/* What to ask /v2/REPO/manifests/ for: the digest if any, else the tag. */
const char *oci_ref_target(const struct oci_ref *);

/* `WWW-Authenticate: Bearer realm="...",service="...",scope="..."`. */
struct oci_challenge {
	char	*scheme;	/* "Bearer", "Basic" */
	char	*realm;
	char	*service;	/* may be NULL */
	char	*scope;		/* may be NULL */
};

#define OCI_CHALLENGE_INIT { NULL, NULL, NULL, NULL }

int	oci_challenge_parse(struct oci_challenge *out, const char *header,
	    struct prov_err *);
void	oci_challenge_release(struct oci_challenge *);

/* A descriptor: an index's entry, a manifest's config or layer. */
struct oci_desc {
	char	*media_type;
	char	*digest;	/* "sha256:HEX" */
	int64_t	 size;
	char	*os, *arch, *variant;	/* index entries; may be NULL */
};

struct oci_manifest {
	int		 is_index;
	char		*media_type;
	struct oci_desc	 config;	/* image manifests */
	struct oci_desc	*descs;		/* index: manifests; else layers */
	size_t		 n;
};

#define OCI_MANIFEST_INIT { 0, NULL, { NULL, NULL, 0, NULL, NULL, NULL }, \
	NULL, 0 }

/*
 * Parse a manifest or index (JSON, read with the yml module).  The kind
 * comes from the body's mediaType, else from `content_type` (may be
 * NULL), else from its shape ("manifests" or "layers").  Every digest
 * must be sha256:64-hex and every size given.  Schema 1 is refused.
 */
int	oci_manifest_parse(struct oci_manifest *out, const char *data,
	    size_t len, const char *content_type, struct prov_err *);
void	oci_manifest_release(struct oci_manifest *);

/*
 * The OCI platform of a Debian architecture: "amd64" -> amd64, "armhf"
 * -> arm v7, "ppc64el" -> ppc64le, "i386" -> 386.  *variant may be NULL.
 * NULL when there is none.
 */
const char *oci_platform(const char *debian_arch, const char **variant);
/*
 * The entry of an index for linux/ARCH (a Debian architecture), or -1.
 * An entry with a variant matches when the platform has none or the same;
 * attestation entries (os "unknown") never match.
 */
long	oci_pick(const struct oci_manifest *index, const char *debian_arch);

/* Registry mirrors: "HOST=URL" (URL http:// or https://, no path). */
struct oci_opts {
	const struct strvec	*mirrors;	/* may be NULL */
	long			 timeout_s;	/* per request; 0: 60 */
	const char		*ca_file;	/* NULL: the system's CAs */
};

#define OCI_OPTS_INIT { NULL, 0, NULL }

/* One blob to download (config, then the layers in order). */
struct oci_blob {
	char	*digest;	/* "sha256:HEX" */
	char	*media_type;
	int64_t	 size;
	char	*url;		/* BASE/v2/REPO/blobs/DIGEST */
};

struct oci_image {
	char		*ref;		/* the reference as given */
	char		*digest;	/* the platform manifest's digest */
	char		*media_type;	/* ... and its media type */
	char		*platform;	/* "linux/amd64" */
	struct buf	 manifest;	/* its bytes (digest checked) */
	char		*auth;		/* "Authorization: Bearer ..." for the
					   blob URLs, or NULL; wiped */
	struct oci_blob	*blobs;
	size_t		 n;
};

#define OCI_IMAGE_INIT { NULL, NULL, NULL, NULL, BUF_INIT, NULL, NULL, 0 }

/*
 * Resolve `ref` for `debian_arch` (network).  On error, err says what
 * failed, naming the image.  The image is filled only on success.
 */
int	oci_resolve(struct oci_image *out, const char *ref,
	    const char *debian_arch, const struct oci_opts *,
	    struct prov_err *);
void	oci_image_release(struct oci_image *);

/* "https://nvcr.io", or the mirror's URL for that host (caller frees). */
char	*oci_base_url(const struct oci_ref *, const struct oci_opts *,
	    struct prov_err *);

#endif

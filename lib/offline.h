/*
 * offline.h: `apply --bundle`: put an offline bundle's apt repository and
 * container images on the nodes, so every step installs from it and
 * never from the network.
 *
 *	struct offline_bundle	 ob = OFFLINE_BUNDLE_INIT;
 *	struct offline_push	 push = OFFLINE_PUSH_INIT;
 *	struct offline_opts	 o = OFFLINE_OPTS_INIT;
 *
 *	offline_prepare(&ob, "cluster.tar.zst", workdir, &err);
 *		bundle_verify() (any problem refuses it: ob.problems lists
 *		them), then a plain tar of the bundle's repo/ (nodes have tar
 *		but not zstd), each member checked again against the
 *		manifest as it is copied; ob.id names it.  In the same pass,
 *		when the bundle has images/, a second tar that containerd
 *		and docker import (ob.images_tar)
 *	offline_check_plan(&ob, plan, &err);	the bundle's OS is the plan's
 *	offline_push_run(&push, plan, &ob, &o, &err);
 *		per node: /var/lib/provision/bundle/ID/.complete there?
 *		then nothing is sent; else the tar goes over SFTP (verified),
 *		is unpacked into ID.tmp with ID/sources.list beside repo/,
 *		and renamed to ID.  Then, on the nodes that run a container
 *		engine, the images tar the same way into ID/images/.
 *		push.nodes[i] says what happened
 *	apply_opts.apt_repo = ob.dir;		only on the nodes that have it
 *	offline_push_release(&push);
 *	offline_bundle_release(&ob);		removes the local tar
 *
 * A node the bundle cannot reach is a row (OFFLINE_FAILED and why), never
 * an error return: an error means nothing could be tried (bundle
 * unreadable or refused, identity file unusable).  lib/ never prints.
 */
#ifndef PROV_OFFLINE_H
#define PROV_OFFLINE_H

#include <stddef.h>
#include <stdint.h>

#include "err.h"
#include "strvec.h"

struct bundle_trust;
struct plan;

/* Where bundles live on a node: DIR/ID/{repo/,sources.list,.complete}. */
#define OFFLINE_NODE_DIR	"/var/lib/provision/bundle"
/* ID: the first hex digits of the manifest's SHA-256. */
#define OFFLINE_ID_LEN		16
/* Under the package relay's URL, OFFLINE_NODE_DIR served (software.relay). */
#define OFFLINE_SERVED_PATH	"provision-bundle"
#define OFFLINE_SHA256_HEX	65
/* In the images tar (and as ID/images/images.list on a node): one line
   "REF MANIFEST-DIGEST CONFIG-DIGEST" per image. */
#define OFFLINE_IMAGES_LIST	"provision-images.list"

struct offline_bundle {
	char		 id[OFFLINE_ID_LEN + 1];
	char		*dir;		/* on the nodes: OFFLINE_NODE_DIR/ID */
	char		*tar;		/* local plain tar of repo/ */
	char		*tmpdir;	/* private folder holding it */
	int64_t		 tar_size;
	char		*images_tar;	/* local images tar, or NULL: the
					   bundle has no images */
	int64_t		 images_size;
	size_t		 nimages;
	/* the images tar's SHA-256: a node that fetches it from the relay
	   checks what it got against it */
	char		 images_sha256[OFFLINE_SHA256_HEX];
	size_t		 members;	/* files in the tar */
	size_t		 debs;
	char		*distro, *release;	/* the manifest's "os" */
	/* repo/Release's SHA-256 as the manifest has it: a node that reads
	   the repository from the relay checks what it got against it */
	char		 release_sha256[OFFLINE_SHA256_HEX];
	struct strvec	 problems;	/* why bundle_verify() refused it */
	char		*trust;		/* why it is trusted (bundle_check) */
};

#define OFFLINE_BUNDLE_INIT { { 0 }, NULL, NULL, NULL, 0, NULL, 0, 0, { 0 }, \
	0, 0, NULL, NULL, { 0 }, STRVEC_INIT, NULL }

/*
 * Verify `path` (its members, and its signature against `trust`: see
 * bundle_verify()) and make its repo/ tar in a new private folder under
 * `workdir` (NULL: $TMPDIR or /tmp), from the manifest that was verified:
 * a bundle changed between the two reads is refused.  -1 with err when
 * the bundle is unreadable, refused (err says how many problems,
 * ob->problems lists each) or cannot be converted; ob->trust says why it
 * was accepted.
 */
int	offline_prepare(struct offline_bundle *ob, const char *path,
	    const char *workdir, const struct bundle_trust *trust,
	    struct prov_err *err);
/* -1 when the bundle was built for another OS than the plan's. */
int	offline_check_plan(const struct offline_bundle *,
	    const struct plan *, struct prov_err *err);
/* Removes the local tar and its folder; keeps nothing.  NULL is fine. */
void	offline_bundle_release(struct offline_bundle *);

/*
 * The conversion alone: write a plain (uncompressed) tar of every
 * repo/ member of the bundle at `bundle` to `out` (through OUT.part),
 * byte for byte, checking each against manifest.json.  `id` gets the
 * first OFFLINE_ID_LEN hex digits of the manifest's SHA-256; info may be
 * NULL.  Does not run bundle_verify(): offline_prepare() does.  When the
 * bundle has images/ (an OCI image layout) and `images_out` is not NULL,
 * also `images_out`: the layout's members at the tar's root, each checked
 * against manifest.json, then a docker-save manifest.json
 * ([{"Config", "RepoTags", "Layers"}], paths in the tar) and
 * OFFLINE_IMAGES_LIST made from the manifest's "images".  Without
 * images/ no `images_out` is made and info->images is 0.
 */
struct offline_tar_info {
	size_t		 members, debs;
	int64_t		 size;		/* of the tar */
	char		*distro, *release;	/* caller frees */
	size_t		 images;	/* images in the images tar (0: none) */
	int64_t		 images_size;
	char		 release_sha256[OFFLINE_SHA256_HEX]; /* "": none */
	char		 manifest_sha256[65];	/* of the manifest it read */
};

int	offline_bundle_tars(char id[OFFLINE_ID_LEN + 1],
	    struct offline_tar_info *, const char *bundle, const char *out,
	    const char *images_out, struct prov_err *err);

enum offline_status {
	OFFLINE_SENT,		/* copied and unpacked now */
	OFFLINE_PRESENT,	/* was there already: nothing sent */
	OFFLINE_FAILED,		/* msg says why */
	OFFLINE_NONE,		/* images: not needed there, or none */
};

struct offline_node {
	const char		*name;		/* borrowed from the plan */
	enum offline_status	 status;	/* of repo/ */
	enum offline_status	 images;	/* of the images tar */
	char			*msg;		/* why it failed, or NULL */
	double			 elapsed_s;
};

/* The node has what apply needs: repo/, and the images where wanted. */
#define OFFLINE_NODE_OK(nd) ((nd)->status != OFFLINE_FAILED && \
	(nd)->images != OFFLINE_FAILED)

struct offline_push {
	struct offline_node	*nodes;
	size_t			 n;
	size_t			 sent, present, failed;	/* repo/ */
	size_t			 images_sent, images_present, images_failed;
};

#define OFFLINE_PUSH_INIT { NULL, 0, 0, 0, 0, 0, 0, 0 }

struct offline_opts {
	const char	*nodes;		/* hostlist, or NULL: every node */
	long		 forks;		/* 0: the plan's */
	const char	*passphrase;	/* for an encrypted identity */
};

#define OFFLINE_OPTS_INIT { NULL, 0, NULL }

/*
 * Put the bundle on every selected node (see the top of this file).  0
 * when the run happened, whatever each node's result.
 */
int	offline_push_run(struct offline_push *out, const struct plan *,
	    const struct offline_bundle *, const struct offline_opts *,
	    struct prov_err *err);
void	offline_push_release(struct offline_push *);

/*
 * Whether the plan's nodes run a container engine that imports images:
 * its runtime is containerd or docker, or its orchestrator kubernetes
 * (the same for every node).
 */
int	offline_plan_needs_images(const struct plan *);

/* The shell run on a node after the upload (exposed for the tests). */
char	*offline_unpack_script(const char *id);
/* ... after the images tar's upload, to ID.images.tar. */
char	*offline_images_script(const char *id);

#endif

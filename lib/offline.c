/*
 * offline.c: an offline bundle's apt repository onto the nodes, for
 * `apply --bundle`.  See offline.h and docs/bundle.md.
 *
 * The bundle is tar + zstd; a Debian minbase node has tar but no zstd,
 * so the nodes get a plain tar of repo/ alone, made here by streaming the
 * bundle member to member through libarchive (nothing is extracted on
 * this machine).  bundle_verify() has checked the whole archive before;
 * the copy checks every member it writes against manifest.json again,
 * so a file swapped between the two reads is caught, not shipped.
 *
 * On a node, in OFFLINE_NODE_DIR:
 *
 *	ID.tar		the upload (removed once unpacked)
 *	ID.tmp/		being unpacked
 *	ID/repo/	the flat apt repository (Packages, Release, *.deb)
 *	ID/sources.list	deb [trusted=yes] file:OFFLINE_NODE_DIR/ID/repo ./
 *	ID/.complete	written last, before ID.tmp is renamed to ID
 *
 * so ID/.complete is there only when everything is, and a re-apply that
 * finds it sends nothing.  ID is the first 16 hex digits of the
 * manifest's SHA-256: the manifest names every file with its digest.
 *
 * The bundle's container images (images/, an OCI image layout) go the
 * same way, in the same pass over the bundle, into a second plain tar
 * that container runtimes import as it is: the layout's members at its
 * root (what `ctr images import` reads), a docker-save manifest.json
 * beside them (what `docker load` reads before Docker 25: config and
 * layers by path; moby's loader decompresses gzip layers itself,
 * image/tarexport/load.go loadLayer), and provision-images.list, one
 * "REF MANIFEST-DIGEST CONFIG-DIGEST" line per image, for the check.  It
 * goes only to nodes that run a container engine
 * (offline_plan_needs_images()), after repo/, to
 *
 *	ID/images/images.tar	the tar, never unpacked
 *	ID/images/images.list	provision-images.list, taken out of it
 *	ID/images/.complete	written last, before ID/images.tmp is
 *				renamed to ID/images
 *
 * templates/lib.sh (images_import) imports what the runtime lacks.
 */
#include "compat.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <time.h>

#include <archive.h>
#include <archive_entry.h>

#include "arc.h"
#include "buf.h"
#include "bundle.h"
#include "json.h"
#include "oci.h"
#include "offline.h"
#include "plan.h"
#include "ssh.h"
#include "str.h"
#include "strmap.h"
#include "strvec.h"
#include "yml.h"

#define OFFLINE_BLOCK		65536
#define OFFLINE_MANIFEST_MAX	(256u << 20)
/* Slowest copy a plan's command timeout is stretched for: 10 MB/s. */
#define OFFLINE_MIN_RATE	(10 * 1000 * 1000)

/* The tar conversion. */

struct offline_member {
	char	*name;
	char	 sha256[ARC_SHA256_HEX];
	int64_t	 size;
	int	 listed;
};

struct offline_conv {
	const char		*bundle;
	const char		*part;
	const char		*img_part;	/* NULL: images/ not wanted */
	struct archive		*in, *out;
	struct archive		*img;		/* the images tar, or NULL */
	size_t			 nimg;		/* images/ members copied */
	size_t			 nimages;	/* images in it */
	struct offline_member	*m;
	size_t			 n, alloc;
	struct strmap		 map;		/* name -> index + 1 */
	struct buf		 manifest;
	char			 manifest_sha[ARC_SHA256_HEX];
	time_t			 manifest_mtime;
	int			 have_manifest;
	char			*blk;
};

static int
offline_read_err(struct offline_conv *c, struct prov_err *err)
{
	const char	*m = archive_error_string(c->in);

	return prov_err_set(err, PROV_E_ARCHIVE, "cannot read '%s': %s",
	    c->bundle, m != NULL ? m : "unknown libarchive error");
}

static int
offline_write_err(struct offline_conv *c, struct archive *a,
    struct prov_err *err)
{
	const char	*m = archive_error_string(a);

	return prov_err_set(err, PROV_E_ARCHIVE, "cannot write '%s': %s",
	    a == c->img ? c->img_part : c->part,
	    m != NULL ? m : "unknown libarchive error");
}

/* A member of images/: oci-layout, index.json or blobs/sha256/HEX. */
static int
offline_image_name_ok(const char *rest)
{
	size_t	i;

	if (strcmp(rest, "oci-layout") == 0 || strcmp(rest, "index.json") == 0)
		return 1;
	if (!str_starts(rest, "blobs/sha256/") || strlen(rest) != 13 + 64)
		return 0;
	for (i = 13; rest[i] != '\0'; i++)
		if (!((rest[i] >= '0' && rest[i] <= '9') ||
		    (rest[i] >= 'a' && rest[i] <= 'f')))
			return 0;
	return 1;
}

/* One new regular file entry (root, 0644) in `out`. */
static int
offline_header(struct offline_conv *c, struct archive *out, const char *name,
    int64_t size, time_t mtime, struct prov_err *err)
{
	struct archive_entry	*e = archive_entry_new();
	int			 r = 0;

	archive_entry_set_pathname(e, name);
	archive_entry_set_filetype(e, AE_IFREG);
	archive_entry_set_perm(e, 0644);
	archive_entry_set_size(e, size);
	archive_entry_set_mtime(e, mtime, 0);
	archive_entry_set_uid(e, 0);
	archive_entry_set_gid(e, 0);
	archive_entry_set_uname(e, "root");
	archive_entry_set_gname(e, "root");
	if (archive_write_header(out, e) != ARCHIVE_OK)
		r = offline_write_err(c, out, err);
	archive_entry_free(e);
	return r;
}

/*
 * Copy the current member, a file of repo/ or images/ (`name`), into
 * `out` as `outname`.
 */
static int
offline_copy(struct offline_conv *c, struct archive *out,
    struct archive_entry *in, const char *name, const char *outname,
    struct prov_err *err)
{
	struct arc_sha256	 s = ARC_SHA256_INIT;
	struct offline_member	*m;
	int64_t			 total = 0, size;
	la_ssize_t		 n;
	int			 r = -1;

	if (archive_entry_hardlink(in) != NULL ||
	    archive_entry_filetype(in) != AE_IFREG)
		return prov_err_set(err, PROV_E_ARCHIVE, "'%s' in '%s' is a "
		    "link or special file", name, c->bundle);
	if (strmap_get(&c->map, name) != NULL)
		return prov_err_set(err, PROV_E_ARCHIVE, "'%s' is in '%s' "
		    "twice", name, c->bundle);
	if (!archive_entry_size_is_set(in))
		return prov_err_set(err, PROV_E_ARCHIVE, "'%s' in '%s' has "
		    "no size", name, c->bundle);
	size = archive_entry_size(in);
	if (offline_header(c, out, outname, size, archive_entry_mtime(in),
	    err) != 0)
		goto out;
	if (arc_sha256_init(&s, err) != 0)
		goto out;
	while ((n = archive_read_data(c->in, c->blk, OFFLINE_BLOCK)) > 0) {
		arc_sha256_update(&s, c->blk, (size_t)n);
		total += n;
		if (archive_write_data(out, c->blk, (size_t)n) != n) {
			offline_write_err(c, out, err);
			goto out;
		}
	}
	if (n < 0) {
		offline_read_err(c, err);
		goto out;
	}
	if (total != size) {
		prov_err_set(err, PROV_E_ARCHIVE, "'%s' in '%s': %lld bytes, "
		    "the header says %lld", name, c->bundle, (long long)total,
		    (long long)size);
		goto out;
	}
	ALLOC_GROW(c->m, c->n + 1, c->alloc);
	m = &c->m[c->n];
	memset(m, 0, sizeof *m);
	m->name = xstrdup(name);
	m->size = total;
	arc_sha256_final(&s, m->sha256);
	strmap_put(&c->map, m->name, (void *)(uintptr_t)(c->n + 1));
	c->n++;
	r = 0;
out:
	arc_sha256_release(&s);
	return r;
}

static int
offline_keep_manifest(struct offline_conv *c, struct prov_err *err)
{
	struct arc_sha256	 s = ARC_SHA256_INIT;
	la_ssize_t		 n;

	if (c->have_manifest)
		return prov_err_set(err, PROV_E_ARCHIVE, "'manifest.json' is "
		    "in '%s' twice", c->bundle);
	if (arc_sha256_init(&s, err) != 0)
		return -1;
	while ((n = archive_read_data(c->in, c->blk, OFFLINE_BLOCK)) > 0) {
		arc_sha256_update(&s, c->blk, (size_t)n);
		if (c->manifest.len + (size_t)n > OFFLINE_MANIFEST_MAX) {
			arc_sha256_release(&s);
			return prov_err_set(err, PROV_E_ARCHIVE,
			    "manifest.json in '%s' is larger than %u MiB",
			    c->bundle,
			    OFFLINE_MANIFEST_MAX >> 20);
		}
		buf_add(&c->manifest, c->blk, (size_t)n);
	}
	if (n < 0) {
		arc_sha256_release(&s);
		return offline_read_err(c, err);
	}
	arc_sha256_final(&s, c->manifest_sha);
	c->have_manifest = 1;
	return 0;
}

/* Every repo/ entry of the manifest's `list` matches a copied member. */
static int
offline_match_list(struct offline_conv *c, const struct yml_node *root,
    const char *list, struct prov_err *err)
{
	const struct yml_node	*seq = yml_map_get(root, list);
	unsigned		 i;

	if (seq == NULL || seq->kind != YML_SEQ)
		return prov_err_set(err, PROV_E_ARCHIVE, "manifest.json of "
		    "'%s' has no '%s' list", c->bundle, list);
	for (i = 0; i < seq->n; i++) {
		const struct yml_node	*e = seq->u.items[i];
		const char		*path = yml_map_str(e, "path");
		const char		*sha = yml_map_str(e, "sha256");
		const char		*size = yml_map_str(e, "size");
		struct offline_member	*m;
		uintptr_t		 k;
		long			 sz;

		if (path == NULL || sha == NULL || size == NULL ||
		    str_to_long(size, &sz) != 0)
			return prov_err_set(err, PROV_E_ARCHIVE,
			    "manifest.json of '%s': entry %u of '%s' lacks "
			    "path, sha256 or size", c->bundle, i + 1, list);
		if (!str_starts(arc_name_norm(path), "repo/") &&
		    !(c->img != NULL && str_starts(arc_name_norm(path),
		    "images/")))
			continue;
		if ((k = (uintptr_t)strmap_get(&c->map,
		    arc_name_norm(path))) == 0)
			return prov_err_set(err, PROV_E_ARCHIVE, "'%s' is in "
			    "the manifest of '%s' but not in the archive",
			    path, c->bundle);
		m = &c->m[k - 1];
		if (m->size != (int64_t)sz || strcasecmp(m->sha256, sha) != 0)
			return prov_err_set(err, PROV_E_ARCHIVE, "'%s' in '%s' "
			    "differs from its manifest (changed after it was "
			    "verified?)", path, c->bundle);
		m->listed = 1;
	}
	return 0;
}

/*
 * Append a file made here (name, bytes) to the images tar.  It bears the
 * bundle manifest's time, not the clock's: the same bundle must give the
 * same tar, byte for byte, because nodes check the tar they fetch from
 * the relay against the digest of the one this apply made (an earlier
 * apply's copy on the relay must still match).
 */
static int
offline_add_buf(struct offline_conv *c, const char *name, const struct buf *b,
    struct prov_err *err)
{
	if (offline_header(c, c->img, name, (int64_t)b->len,
	    c->manifest_mtime, err) != 0)
		return -1;
	if (b->len > 0 && archive_write_data(c->img, b->buf, b->len) !=
	    (la_ssize_t)b->len)
		return offline_write_err(c, c->img, err);
	return 0;
}

/* "registry/repo:tag" for docker's RepoTags, or NULL (digest only). */
static char *
offline_repo_tag(const char *ref)
{
	struct oci_ref	 r = OCI_REF_INIT;
	struct prov_err	 e = PROV_ERR_INIT;
	char		*s = NULL;

	if (oci_ref_parse(&r, ref, &e) == 0 && r.tag != NULL)
		s = xasprintf("%s/%s:%s", r.registry, r.repo, r.tag);
	oci_ref_release(&r);
	prov_err_release(&e);
	return s;
}

/*
 * The end of the images tar, from the manifest's "images": a docker-save
 * manifest.json (Config, RepoTags, Layers by path in the tar) and
 * provision-images.list.  Every blob named must be in the tar.
 */
static int
offline_images_trailer(struct offline_conv *c, const struct yml_node *root,
    struct prov_err *err)
{
	const struct yml_node	*seq = yml_map_get(root, "images");
	struct buf		 dm = BUF_INIT, list = BUF_INIT;
	struct json_writer	 jw;
	char			*path;
	unsigned		 i, k;
	int			 r = -1;

	if (seq == NULL || seq->kind != YML_SEQ || seq->n == 0) {
		prov_err_set(err, PROV_E_ARCHIVE, "'%s' has images/ but its "
		    "manifest lists no images", c->bundle);
		goto out;
	}
	/* docker load's manifest.json, one image a line */
	json_init(&jw, &dm);
	json_array_begin(&jw, NULL, JSON_LINES);
	for (i = 0; i < seq->n; i++) {
		const struct yml_node	*e = seq->u.items[i];
		const struct yml_node	*blobs = e->kind == YML_MAP ?
					    yml_map_get(e, "blobs") : NULL;
		const char		*ref = yml_map_str(e, "ref");
		const char		*dig = yml_map_str(e, "digest");
		char			*tag, *want;

		if (ref == NULL || dig == NULL || blobs == NULL ||
		    blobs->kind != YML_SEQ || blobs->n == 0 ||
		    strpbrk(ref, " \n") != NULL) {
			prov_err_set(err, PROV_E_ARCHIVE, "manifest.json of "
			    "'%s': image %u lacks ref, digest or blobs",
			    c->bundle, i + 1);
			goto out;
		}
		for (k = 0; k <= blobs->n; k++) {
			const char	*d = k == 0 ? dig : blobs->u.items[k -
					    1]->kind == YML_SCALAR ?
					    blobs->u.items[k - 1]->u.s : "";

			want = xasprintf("images/blobs/sha256/%s",
			    str_starts(d, "sha256:") ? d + 7 : "");
			if (strmap_get(&c->map, want) == NULL) {
				prov_err_set(err, PROV_E_ARCHIVE, "image '%s' "
				    "of '%s': blob '%s' is not in images/",
				    ref, c->bundle, d);
				free(want);
				goto out;
			}
			free(want);
		}
		json_object_begin(&jw, NULL, 0);
		path = xasprintf("blobs/sha256/%s", blobs->u.items[0]->u.s + 7);
		json_str(&jw, "Config", path);
		free(path);
		json_array_begin(&jw, "RepoTags", 0);
		if ((tag = offline_repo_tag(ref)) != NULL)
			json_str(&jw, NULL, tag);
		free(tag);
		json_end(&jw);
		json_array_begin(&jw, "Layers", 0);
		for (k = 1; k < blobs->n; k++) {
			path = xasprintf("blobs/sha256/%s",
			    blobs->u.items[k]->u.s + 7);
			json_str(&jw, NULL, path);
			free(path);
		}
		json_end(&jw);
		json_end(&jw);
		buf_addf(&list, "%s %s %s\n", ref, dig, blobs->u.items[0]->u.s);
	}
	json_end(&jw);
	json_finish(&jw);
	if (offline_add_buf(c, "manifest.json", &dm, err) != 0 ||
	    offline_add_buf(c, OFFLINE_IMAGES_LIST, &list, err) != 0)
		goto out;
	c->nimages = seq->n;
	r = 0;
out:
	buf_release(&dm);
	buf_release(&list);
	return r;
}

static int
offline_match(struct offline_conv *c, struct offline_tar_info *info,
    struct prov_err *err)
{
	struct yml_doc		 doc;
	struct prov_errs	 errs = PROV_ERRS_INIT;
	const struct yml_node	*os;
	size_t			 i;
	uintptr_t		 k;
	int			 r = -1;

	yml_doc_init(&doc);
	if (!c->have_manifest) {
		prov_err_set(err, PROV_E_ARCHIVE, "no manifest.json in '%s'",
		    c->bundle);
		goto out;
	}
	if (yml_load(&doc, "manifest.json", c->manifest.buf, c->manifest.len,
	    &errs) != 0 || errs.n > 0 || doc.root == NULL ||
	    doc.root->kind != YML_MAP) {
		prov_err_set(err, PROV_E_ARCHIVE, "manifest.json of '%s' is "
		    "not a JSON object", c->bundle);
		goto out;
	}
	if (offline_match_list(c, doc.root, "artifacts", err) != 0 ||
	    offline_match_list(c, doc.root, "files", err) != 0)
		goto out;
	for (i = 0; i < c->n; i++)
		if (!c->m[i].listed) {
			prov_err_set(err, PROV_E_ARCHIVE, "'%s' is in '%s' but "
			    "not in its manifest", c->m[i].name, c->bundle);
			goto out;
		}
	if (strmap_get(&c->map, "repo/Packages") == NULL) {
		prov_err_set(err, PROV_E_ARCHIVE, "no repo/Packages in '%s'",
		    c->bundle);
		goto out;
	}
	if (c->img != NULL && c->nimg > 0 &&
	    (strmap_get(&c->map, "images/index.json") == NULL ||
	    strmap_get(&c->map, "images/oci-layout") == NULL)) {
		prov_err_set(err, PROV_E_ARCHIVE, "images/ of '%s' is no OCI "
		    "image layout (no index.json or oci-layout)", c->bundle);
		goto out;
	}
	if (c->img != NULL && c->nimg > 0 &&
	    offline_images_trailer(c, doc.root, err) != 0)
		goto out;
	if (info != NULL) {
		os = yml_map_get(doc.root, "os");
		if (yml_map_str(os, "distro") != NULL)
			info->distro = xstrdup(yml_map_str(os, "distro"));
		if (yml_map_str(os, "release") != NULL)
			info->release = xstrdup(yml_map_str(os, "release"));
		info->members = c->n - c->nimg;	/* of repo/ */
		k = (uintptr_t)strmap_get(&c->map, "repo/Release");
		snprintf(info->release_sha256, sizeof info->release_sha256,
		    "%s", k > 0 ? c->m[k - 1].sha256 : "");
		info->debs = 0;
		for (i = 0; i < c->n; i++) {
			size_t	l = strlen(c->m[i].name);

			if (l > 4 && strcmp(c->m[i].name + l - 4, ".deb") == 0)
				info->debs++;
		}
	}
	r = 0;
out:
	yml_doc_release(&doc);
	prov_errs_release(&errs);
	return r;
}

/* Open a plain pax tar at `part` for writing. */
static int
offline_open_out(struct offline_conv *c, struct archive **out,
    const char *part, struct prov_err *err)
{
	const char	*m;

	if ((*out = archive_write_new()) == NULL)
		return prov_err_set(err, PROV_E_ARCHIVE, "cannot start "
		    "libarchive");
	(void)unlink(part);
	if (archive_write_set_format_pax_restricted(*out) == ARCHIVE_OK &&
	    archive_write_add_filter_none(*out) == ARCHIVE_OK &&
	    archive_write_open_filename(*out, part) == ARCHIVE_OK)
		return 0;
	m = archive_error_string(*out);
	return prov_err_set(err, PROV_E_ARCHIVE, "cannot write '%s': %s", part,
	    m != NULL ? m : "unknown libarchive error");
}

/*
 * One member of the bundle: repo/ files to the repo tar, images/ to the
 * images tar (when asked for), the manifest kept; the rest skipped.
 */
static int
offline_tars_entry(struct offline_conv *c, struct archive_entry *ent,
    struct prov_err *err)
{
	const char	*name;
	int		 dir = archive_entry_filetype(ent) == AE_IFDIR;

	name = arc_name_norm(archive_entry_pathname(ent) != NULL ?
	    archive_entry_pathname(ent) : "");
	if (str_starts(name, "repo/") && name[5] != '\0' && !dir) {
		if (!bundle_filename_ok(name + 5))
			return prov_err_set(err, PROV_E_ARCHIVE, "'%s' in "
			    "'%s': not a plain file name under repo/", name,
			    c->bundle);
		return offline_copy(c, c->out, ent, name, name, err);
	}
	if (c->img != NULL && str_starts(name, "images/") &&
	    name[7] != '\0' && !dir) {
		if (!offline_image_name_ok(name + 7))
			return prov_err_set(err, PROV_E_ARCHIVE, "'%s' in "
			    "'%s': not a member of an OCI image layout", name,
			    c->bundle);
		if (offline_copy(c, c->img, ent, name, name + 7, err) != 0)
			return -1;
		c->nimg++;
		return 0;
	}
	if (strcmp(name, "manifest.json") == 0 &&
	    archive_entry_filetype(ent) == AE_IFREG) {
		c->manifest_mtime = archive_entry_mtime(ent);
		return offline_keep_manifest(c, err);
	}
	if (archive_read_data_skip(c->in) != ARCHIVE_OK) {
		offline_read_err(c, err);
		return -1;
	}
	return 0;
}

/* Opens the bundle and the tars it is split into, and reads it through. */
static int
offline_tars_read(struct offline_conv *c, struct prov_err *err)
{
	struct archive_entry	*ent;
	int			 rc;

	if ((c->in = archive_read_new()) == NULL)
		return prov_err_set(err, PROV_E_ARCHIVE,
		    "cannot start libarchive");
	archive_read_support_filter_all(c->in);
	archive_read_support_format_tar(c->in);
	if (archive_read_open_filename(c->in, c->bundle, OFFLINE_BLOCK) !=
	    ARCHIVE_OK) {
		if (access(c->bundle, F_OK) != 0)
			prov_err_sys(err, "cannot open '%s'", c->bundle);
		else
			offline_read_err(c, err);
		return -1;
	}
	if (offline_open_out(c, &c->out, c->part, err) != 0)
		return -1;
	if (c->img_part != NULL && offline_open_out(c, &c->img, c->img_part,
	    err) != 0)
		return -1;
	for (;;) {
		rc = archive_read_next_header(c->in, &ent);
		if (rc == ARCHIVE_EOF)
			return 0;
		if (rc != ARCHIVE_OK && rc != ARCHIVE_WARN) {
			offline_read_err(c, err);
			return -1;
		}
		if (offline_tars_entry(c, ent, err) != 0)
			return -1;
	}
}

/* Closes the tars and puts them in place: the images first, if any. */
static int
offline_tars_close(struct offline_conv *c, const char *out,
    const char *images_out, struct prov_err *err)
{
	if (archive_write_close(c->out) != ARCHIVE_OK) {
		offline_write_err(c, c->out, err);
		return -1;
	}
	if (c->img != NULL && archive_write_close(c->img) != ARCHIVE_OK) {
		offline_write_err(c, c->img, err);
		return -1;
	}
	if (c->img != NULL && c->nimg > 0 &&
	    rename(c->img_part, images_out) != 0)
		return prov_err_sys(err, "cannot rename '%s' to '%s'",
		    c->img_part, images_out);
	if (rename(c->part, out) != 0) {
		prov_err_sys(err, "cannot rename '%s' to '%s'", c->part, out);
		if (c->img != NULL && c->nimg > 0)
			(void)unlink(images_out);
		return -1;
	}
	return 0;
}

static void
offline_conv_release(struct offline_conv *c)
{
	size_t	i;

	if (c->in != NULL)
		archive_read_free(c->in);
	if (c->out != NULL)
		archive_write_free(c->out);
	if (c->img != NULL)
		archive_write_free(c->img);
	for (i = 0; i < c->n; i++)
		free(c->m[i].name);
	free(c->m);
	strmap_clear(&c->map);
	buf_release(&c->manifest);
	free(c->blk);
}

int
offline_bundle_tars(char id[OFFLINE_ID_LEN + 1], struct offline_tar_info *info,
    const char *bundle, const char *out, const char *images_out,
    struct prov_err *err)
{
	struct offline_conv	 c;
	struct stat		 st;
	char			*part = xasprintf("%s.part", out);
	char			*img_part = images_out != NULL ?
				    xasprintf("%s.part", images_out) : NULL;
	int			 r = -1;

	memset(&c, 0, sizeof c);
	c.bundle = bundle;
	c.part = part;
	c.img_part = img_part;
	c.map = (struct strmap)STRMAP_INIT;
	c.manifest = (struct buf)BUF_INIT;
	c.blk = xmalloc(OFFLINE_BLOCK);
	id[0] = '\0';
	if (info != NULL)
		memset(info, 0, sizeof *info);
	if (offline_tars_read(&c, err) != 0 ||
	    offline_match(&c, info, err) != 0 ||
	    offline_tars_close(&c, out, images_out, err) != 0)
		goto out;
	memcpy(id, c.manifest_sha, OFFLINE_ID_LEN);
	id[OFFLINE_ID_LEN] = '\0';
	if (info != NULL)
		memcpy(info->manifest_sha256, c.manifest_sha, ARC_SHA256_HEX);
	if (info != NULL && stat(out, &st) == 0)
		info->size = (int64_t)st.st_size;
	if (info != NULL && c.img != NULL && c.nimg > 0) {
		info->images = c.nimages;
		if (stat(images_out, &st) == 0)
			info->images_size = (int64_t)st.st_size;
	}
	r = 0;
out:
	if (r != 0 && info != NULL) {
		free(info->distro);
		free(info->release);
		memset(info, 0, sizeof *info);
	}
	offline_conv_release(&c);
	(void)unlink(part);
	if (img_part != NULL)
		(void)unlink(img_part);
	free(part);
	free(img_part);
	return r;
}

/* Preparing. */

int
offline_prepare(struct offline_bundle *ob, const char *path,
    const char *workdir, const struct bundle_trust *trust,
    struct prov_err *err)
{
	struct bundle_check	 chk = BUNDLE_CHECK_INIT;
	struct offline_tar_info	 info;
	const char		*base = workdir;
	char			*dir = NULL, *tar = NULL, *images = NULL;
	size_t			 i;
	int			 r = -1;

	memset(&info, 0, sizeof info);
	if (bundle_verify(&chk, path, trust, err) != 0)
		goto out;
	if (chk.problems.n > 0) {
		for (i = 0; i < chk.problems.n; i++)
			strvec_push(&ob->problems, chk.problems.v[i]);
		prov_err_set(err, PROV_E_ARCHIVE, "bundle '%s' fails "
		    "verification (%zu problem%s): %s", path, chk.problems.n,
		    chk.problems.n == 1 ? "" : "s", chk.problems.v[0]);
		goto out;
	}
	if (base == NULL && (base = getenv("TMPDIR")) == NULL)
		base = "/tmp";
	dir = xasprintf("%s/provision-bundle-XXXXXX", base);
	if (mkdtemp(dir) == NULL) {
		prov_err_sys(err, "cannot create a folder in '%s'", base);
		goto out;
	}
	tar = xasprintf("%s/repo.tar", dir);
	images = xasprintf("%s/images.tar", dir);
	if (offline_bundle_tars(ob->id, &info, path, tar, images, err) != 0) {
		(void)rmdir(dir);
		goto out;
	}
	/* What was copied is checked against what was verified and signed. */
	if (strcmp(info.manifest_sha256, chk.manifest_sha256) != 0) {
		prov_err_set(err, PROV_E_ARCHIVE, "bundle '%s' changed while "
		    "it was read (its manifest is not the one verified): "
		    "refused", path);
		(void)unlink(tar);
		(void)unlink(images);
		(void)rmdir(dir);
		free(info.distro);
		free(info.release);
		goto out;
	}
	ob->tmpdir = dir;
	ob->tar = tar;
	dir = tar = NULL;
	if (info.images > 0) {
		ob->images_tar = images;
		images = NULL;
		ob->images_size = info.images_size;
		ob->nimages = info.images;
		/* made here, from members each checked: its digest is ours */
		if (arc_sha256_file(ob->images_sha256, NULL, ob->images_tar,
		    err) != 0) {
			free(info.distro);
			free(info.release);
			goto out;
		}
	}
	ob->dir = xasprintf("%s/%s", OFFLINE_NODE_DIR, ob->id);
	ob->tar_size = info.size;
	ob->members = info.members;
	ob->debs = info.debs;
	ob->distro = info.distro;
	ob->release = info.release;
	memcpy(ob->release_sha256, info.release_sha256,
	    sizeof ob->release_sha256);
	info.distro = info.release = NULL;
	ob->trust = chk.trust;
	chk.trust = NULL;
	r = 0;
out:
	bundle_check_release(&chk);
	free(dir);
	free(tar);
	free(images);
	return r;
}

/* "12" matches "12" and "12.4"; "22.04" matches "22.04". */
static int
offline_release_match(const char *a, const char *b)
{
	size_t	la = strlen(a), lb = strlen(b);

	if (la > lb)
		return offline_release_match(b, a);
	return strncmp(a, b, la) == 0 && (b[la] == '\0' || b[la] == '.');
}

int
offline_check_plan(const struct offline_bundle *ob, const struct plan *p,
    struct prov_err *err)
{
	const char	*d = p->sw.os_distro, *rel = p->sw.os_release;

	if (ob->distro == NULL || ob->release == NULL)
		return prov_err_set(err, PROV_E_ARCHIVE, "the bundle's "
		    "manifest does not say which OS it is for");
	if (d != NULL && (strcmp(d, ob->distro) != 0 || (rel != NULL &&
	    !offline_release_match(rel, ob->release))))
		return prov_err_set(err, PROV_E_USAGE, "the bundle is for %s "
		    "%s, the plan says %s %s", ob->distro, ob->release, d,
		    rel != NULL ? rel : "");
	return 0;
}

void
offline_bundle_release(struct offline_bundle *ob)
{
	if (ob == NULL)
		return;
	if (ob->tar != NULL)
		(void)unlink(ob->tar);
	if (ob->images_tar != NULL)
		(void)unlink(ob->images_tar);
	if (ob->tmpdir != NULL)
		(void)rmdir(ob->tmpdir);
	free(ob->tar);
	free(ob->images_tar);
	free(ob->tmpdir);
	free(ob->dir);
	free(ob->distro);
	free(ob->release);
	free(ob->trust);
	strvec_clear(&ob->problems);
	memset(ob, 0, sizeof *ob);
	ob->problems = (struct strvec)STRVEC_INIT;
}

/* Pushing. */

char *
offline_unpack_script(const char *id)
{
	struct buf	b = BUF_INIT;

	buf_adds(&b, "set -eu; umask 022; cd ");
	buf_add_shquote(&b, OFFLINE_NODE_DIR);
	buf_adds(&b, "; id=");
	buf_add_shquote(&b, id);
	buf_adds(&b, "\n"
	    "if [ -f \"$id/.complete\" ]; then\n"
	    "\trm -f -- \"$id.tar\"; echo present; exit 0\n"
	    "fi\n"
	    "rm -rf -- \"$id.tmp\"\n"
	    "mkdir -- \"$id.tmp\"\n"
	    "if ! tar -xf \"$id.tar\" -C \"$id.tmp\" --no-same-owner >&2\n"
	    "then\n"
	    "\trm -rf -- \"$id.tmp\"\n"
	    "\techo \"cannot unpack $PWD/$id.tar\" >&2; exit 1\n"
	    "fi\n"
	    "if [ ! -f \"$id.tmp/repo/Packages\" ]; then\n"
	    "\trm -rf -- \"$id.tmp\"\n"
	    "\techo \"$PWD/$id.tar has no repo/Packages\" >&2; exit 1\n"
	    "fi\n"
	    "printf 'deb [trusted=yes] file:%s/repo ./\\n' \"$PWD/$id\" "
	    ">\"$id.tmp/sources.list\"\n"
	    ": >\"$id.tmp/.complete\"\n"
	    "sync 2>/dev/null || true\n"
	    "rm -rf -- \"$id\"\n"
	    "mv -T -- \"$id.tmp\" \"$id\"\n"
	    "rm -f -- \"$id.tar\"\n"
	    "echo unpacked\n");
	return buf_detach(&b, NULL);
}

/*
 * The images tar arrives as ID.images.tar beside ID/ (which must be
 * complete: repo/ went first); it moves into ID/images.tmp/, its list is
 * taken out, and ID/images.tmp becomes ID/images in one rename.
 */
char *
offline_images_script(const char *id)
{
	struct buf	b = BUF_INIT;

	buf_adds(&b, "set -eu; umask 022; cd ");
	buf_add_shquote(&b, OFFLINE_NODE_DIR);
	buf_adds(&b, "; id=");
	buf_add_shquote(&b, id);
	buf_adds(&b, "; list=");
	buf_add_shquote(&b, OFFLINE_IMAGES_LIST);
	buf_adds(&b, "\n"
	    "if [ ! -f \"$id/.complete\" ]; then\n"
	    "\techo \"$PWD/$id is not complete\" >&2; exit 1\n"
	    "fi\n"
	    /* readable by the relay's apt-cacher-ng, which serves it (the
	       upload is 0600) */
	    "if [ -f \"$id/images/.complete\" ]; then\n"
	    "\trm -f -- \"$id.images.tar\"\n"
	    "\tchmod 0644 \"$id/images/images.tar\"; echo present; exit 0\n"
	    "fi\n"
	    "rm -rf -- \"$id/images.tmp\"\n"
	    "mkdir -- \"$id/images.tmp\"\n"
	    "mv -- \"$id.images.tar\" \"$id/images.tmp/images.tar\"\n"
	    "chmod 0644 \"$id/images.tmp/images.tar\"\n"
	    "if ! tar -xf \"$id/images.tmp/images.tar\" -C \"$id/images.tmp\" "
	    "--no-same-owner \"$list\" >&2 ||\n"
	    "\t! mv -- \"$id/images.tmp/$list\" "
	    "\"$id/images.tmp/images.list\"\n"
	    "then\n"
	    "\trm -rf -- \"$id/images.tmp\"\n"
	    "\techo \"$PWD/$id.images.tar has no $list\" >&2; exit 1\n"
	    "fi\n"
	    ": >\"$id/images.tmp/.complete\"\n"
	    "sync 2>/dev/null || true\n"
	    "rm -rf -- \"$id/images\"\n"
	    "mv -T -- \"$id/images.tmp\" \"$id/images\"\n"
	    "echo unpacked\n");
	return buf_detach(&b, NULL);
}

int
offline_plan_needs_images(const struct plan *p)
{
	const char	*rt = p->sw.runtime, *orch = p->sw.orchestrator;

	return (rt != NULL && (strcmp(rt, "containerd") == 0 ||
	    strcmp(rt, "docker") == 0)) ||
	    (orch != NULL && strcmp(orch, "kubernetes") == 0);
}

/*
 * One tar to the nodes that want it, in two waves: ask each node whether
 * `marker` (relative to OFFLINE_NODE_DIR) is there and how much room
 * there is; then upload `tar` to `dst` on the others and run `script`,
 * which answers "unpacked" or "present".
 */
struct offline_part {
	const char	*tar;
	int64_t		 size;
	char		*dst;		/* these three: offline_part_release */
	char		*script;
	char		*marker;
	long		 free_kb_min;
	const char	*label;		/* "bundle", "images" */
};

struct offline_ctx {
	const struct offline_part	*part;
	struct offline_node		*res;		/* per host */
	struct ssh_job			*jobs;
	int				*want;		/* this wave */
	int				*upload;	/* needs the tar */
};

static const struct ssh_job *
offline_next(void *arg, size_t host)
{
	struct offline_ctx	*c = arg;

	if (!c->want[host])
		return NULL;
	c->want[host] = 0;
	return &c->jobs[host];
}

/* A one-line reason from a failed job. */
static char *
offline_reason(const struct ssh_result *r)
{
	const char	*e = r->err.buf, *end = e + r->err.len, *s;

	if (r->status != SSH_OK && r->status != SSH_FAILED)
		return xasprintf("%s: %s", ssh_status_name(r->status),
		    r->error != NULL ? r->error : "no detail");
	while (end > e && (end[-1] == '\n' || end[-1] == ' ' ||
	    end[-1] == '\r'))
		end--;
	s = end;
	while (s > e && s[-1] != '\n')
		s--;
	if (s < end)
		return xasprintf("exit %d: %.*s", r->exit_code,
		    (int)(end - s), s);
	return xasprintf("exit %d", r->exit_code);
}

static void
offline_fail(struct offline_node *nd, char *msg)
{
	nd->status = OFFLINE_FAILED;
	free(nd->msg);
	nd->msg = msg;
}

static void
offline_done_check(void *arg, size_t host, const struct ssh_job *job,
    struct ssh_result *r)
{
	struct offline_ctx	*c = arg;
	struct offline_node	*nd = &c->res[host];
	long			 kb;
	char			*sp;

	nd->elapsed_s += r->elapsed_s;
	if (r->status != SSH_OK) {
		offline_fail(nd, offline_reason(r));
		return;
	}
	buf_rtrim(&r->out);
	if (strcmp(r->out.buf, "present") == 0) {
		nd->status = OFFLINE_PRESENT;
		return;
	}
	if (!str_starts(r->out.buf, "absent ") ||
	    (sp = strchr(r->out.buf, ' ')) == NULL ||
	    str_to_long(sp + 1, &kb) != 0) {
		offline_fail(nd, xasprintf("unexpected answer '%s'",
		    r->out.buf));
		return;
	}
	if (kb < c->part->free_kb_min) {
		offline_fail(nd, xasprintf("%s needs %ld MiB free for the "
		    "%s, it has %ld MiB", OFFLINE_NODE_DIR,
		    c->part->free_kb_min / 1024 + 1, c->part->label,
		    kb / 1024));
		return;
	}
	c->upload[host] = 1;
}

static void
offline_done_upload(void *arg, size_t host, const struct ssh_job *job,
    struct ssh_result *r)
{
	struct offline_ctx	*c = arg;
	struct offline_node	*nd = &c->res[host];

	nd->elapsed_s += r->elapsed_s;
	buf_rtrim(&r->out);
	if (r->status != SSH_OK) {
		offline_fail(nd, offline_reason(r));
		return;
	}
	/* Another run may have unpacked it meanwhile: fine either way. */
	if (strcmp(r->out.buf, "unpacked") == 0)
		nd->status = OFFLINE_SENT;
	else if (strcmp(r->out.buf, "present") == 0)
		nd->status = OFFLINE_PRESENT;
	else
		offline_fail(nd, xasprintf("unexpected answer '%s'",
		    r->out.buf));
}

/* Run one part on the hosts with on[i] set; c->res gets the results. */
static int
offline_push_part(struct offline_ctx *c, struct ssh_pool *pool,
    const int *on, size_t n, long command_timeout_s, struct prov_err *err)
{
	const struct offline_part	*pt = c->part;
	struct ssh_handler		 h;
	struct buf			 check = BUF_INIT;
	size_t				 i;
	int				 r = -1, any = 0;

	/* Wave 1: which nodes have it already, and room for it. */
	buf_adds(&check, "umask 022; d=");
	buf_add_shquote(&check, OFFLINE_NODE_DIR);
	buf_adds(&check, "; m=");
	buf_add_shquote(&check, pt->marker);
	buf_adds(&check, "; mkdir -p \"$d\" && cd \"$d\" && "
	    "if [ -f \"$m\" ]; then echo present; "
	    "else echo absent $(df -Pk . | awk 'NR == 2 { print $4 }'); fi");
	for (i = 0; i < n; i++) {
		c->want[i] = on[i];
		c->upload[i] = 0;
		if (!on[i])
			continue;
		c->res[i].status = OFFLINE_FAILED;
		c->jobs[i] = (struct ssh_job)SSH_JOB_INIT;
		c->jobs[i].command = check.buf;
		c->jobs[i].label = "bundle-check";
	}
	memset(&h, 0, sizeof h);
	h.next = offline_next;
	h.done = offline_done_check;
	h.arg = c;
	if (ssh_pool_run(pool, &h, err) != 0)
		goto out;

	/* Wave 2: the tar to the others, put in place. */
	for (i = 0; i < n; i++) {
		c->want[i] = c->upload[i];
		if (!c->upload[i])
			continue;
		any = 1;
		c->jobs[i] = (struct ssh_job)SSH_JOB_INIT;
		c->jobs[i].upload_src = pt->tar;
		c->jobs[i].upload_dst = pt->dst;
		c->jobs[i].upload_mode = 0600;
		c->jobs[i].command = pt->script;
		c->jobs[i].label = "bundle-unpack";
		if (command_timeout_s > 0)
			c->jobs[i].timeout_s = command_timeout_s +
			    (long)(pt->size / OFFLINE_MIN_RATE);
	}
	h.done = offline_done_upload;
	if (any && ssh_pool_run(pool, &h, err) != 0)
		goto out;
	r = 0;
out:
	buf_release(&check);
	return r;
}

/*
 * repo/ to every node: the tar and what it unpacks to, plus a margin for
 * apt's lists.
 */
static void
offline_part_repo(struct offline_part *pt, const struct offline_bundle *ob)
{
	memset(pt, 0, sizeof *pt);
	pt->tar = ob->tar;
	pt->size = ob->tar_size;
	pt->dst = xasprintf("%s/%s.tar", OFFLINE_NODE_DIR, ob->id);
	pt->script = offline_unpack_script(ob->id);
	pt->marker = xasprintf("%s/.complete", ob->id);
	pt->free_kb_min = (long)(ob->tar_size / 1024 * 2) + 16 * 1024;
	pt->label = "bundle";
}

/* The images, where an engine imports them: kept as a tar. */
static void
offline_part_images(struct offline_part *pt, const struct offline_bundle *ob)
{
	memset(pt, 0, sizeof *pt);
	pt->tar = ob->images_tar;
	pt->size = ob->images_size;
	pt->dst = xasprintf("%s/%s.images.tar", OFFLINE_NODE_DIR, ob->id);
	pt->script = offline_images_script(ob->id);
	pt->marker = xasprintf("%s/images/.complete", ob->id);
	pt->free_kb_min = (long)(ob->images_size / 1024) + 16 * 1024;
	pt->label = "bundle's images";
}

static void
offline_part_release(struct offline_part *pt)
{
	free(pt->dst);
	free(pt->script);
	free(pt->marker);
}

/* Each node's images result joins its row; the totals. */
static void
offline_push_tally(struct offline_push *out, const struct offline_node *ires)
{
	size_t	i;

	for (i = 0; i < out->n; i++) {
		struct offline_node	*nd = &out->nodes[i];

		nd->images = ires[i].status;
		nd->elapsed_s += ires[i].elapsed_s;
		if (nd->images == OFFLINE_FAILED && nd->msg == NULL) {
			nd->msg = xasprintf("images: %s", ires[i].msg != NULL ?
			    ires[i].msg : "no detail");
		}
		switch (nd->status) {
		case OFFLINE_SENT:
			out->sent++;
			break;
		case OFFLINE_PRESENT:
			out->present++;
			break;
		default:
			out->failed++;
		}
		if (nd->images == OFFLINE_SENT)
			out->images_sent++;
		else if (nd->images == OFFLINE_PRESENT)
			out->images_present++;
		else if (nd->images == OFFLINE_FAILED)
			out->images_failed++;
	}
}

int
offline_push_run(struct offline_push *out, const struct plan *p,
    const struct offline_bundle *ob, const struct offline_opts *o,
    struct prov_err *err)
{
	struct offline_ctx	 c;
	struct offline_part	 repo, img;
	struct offline_node	*ires = NULL;
	struct ssh_config	 cfg = SSH_CONFIG_INIT;
	struct ssh_host		*hosts = NULL;
	struct ssh_pool		*pool = NULL;
	struct plan_node	**sel = NULL;
	int			*on = NULL;
	size_t			 nsel = 0, i;
	int			 r = -1, any = 0;

	memset(out, 0, sizeof *out);
	memset(&c, 0, sizeof c);
	memset(&repo, 0, sizeof repo);
	memset(&img, 0, sizeof img);
	if (ob->tar == NULL)
		return prov_err_set(err, PROV_E_USAGE, "no bundle prepared");
	if (plan_select(&sel, &nsel, p, o->nodes, err) != 0)
		return -1;
	if (nsel == 0) {
		prov_err_set(err, PROV_E_USAGE, "no nodes selected");
		goto out;
	}
	out->n = nsel;
	out->nodes = xcalloc(nsel, sizeof *out->nodes);
	ires = xcalloc(nsel, sizeof *ires);
	hosts = xcalloc(nsel, sizeof *hosts);
	on = xcalloc(nsel, sizeof *on);
	c.jobs = xcalloc(nsel, sizeof *c.jobs);
	c.want = xcalloc(nsel, sizeof *c.want);
	c.upload = xcalloc(nsel, sizeof *c.upload);
	for (i = 0; i < nsel; i++) {
		out->nodes[i].name = sel[i]->name;
		out->nodes[i].status = OFFLINE_FAILED;
		out->nodes[i].images = OFFLINE_NONE;
		ires[i].name = sel[i]->name;
		ires[i].status = OFFLINE_NONE;
		hosts[i].name = sel[i]->name;
		hosts[i].addr = sel[i]->address;
		on[i] = 1;
	}
	ssh_config_from_plan(&cfg, &p->ssh);
	if (o->forks > 0)
		cfg.forks = o->forks;
	cfg.passphrase = o->passphrase;
	cfg.keep_open = 1;
	if (ssh_pool_new(&pool, &cfg, hosts, nsel, err) != 0)
		goto out;

	offline_part_repo(&repo, ob);
	c.part = &repo;
	c.res = out->nodes;
	if (offline_push_part(&c, pool, on, nsel, cfg.command_timeout_s,
	    err) != 0)
		goto out;
	for (i = 0; i < nsel; i++) {
		on[i] = ob->images_tar != NULL && offline_plan_needs_images(p) &&
		    out->nodes[i].status != OFFLINE_FAILED;
		any |= on[i];
	}
	if (any) {
		offline_part_images(&img, ob);
		c.part = &img;
		c.res = ires;
		if (offline_push_part(&c, pool, on, nsel,
		    cfg.command_timeout_s, err) != 0)
			goto out;
	}
	offline_push_tally(out, ires);
	r = 0;
out:
	if (pool != NULL) {
		ssh_pool_close(pool);
		ssh_pool_free(pool);
	}
	if (r != 0)
		offline_push_release(out);
	for (i = 0; ires != NULL && i < nsel; i++)
		free(ires[i].msg);
	free(ires);
	offline_part_release(&repo);
	offline_part_release(&img);
	free(on);
	free(c.jobs);
	free(c.want);
	free(c.upload);
	free(hosts);
	free(sel);
	return r;
}

void
offline_push_release(struct offline_push *pu)
{
	size_t	i;

	if (pu == NULL)
		return;
	for (i = 0; i < pu->n; i++)
		free(pu->nodes[i].msg);
	free(pu->nodes);
	memset(pu, 0, sizeof *pu);
}

/*
 * bundle-pack.c: write a bundle: its manifest, the cached files,
 * images and step templates, signed.
 * See bundle-int.h, bundle.h and docs/bundle.md.
 */
#include "compat.h"

#include <dirent.h>

#include <curl/curl.h>

#include "arc.h"
#include "bundle-int.h"
#include "json.h"
#include "oci.h"
#include "render.h"
#include "sig.h"
#include "str.h"
#include "strmap.h"

/* Packing. */

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
	json_strvec(&jw, "sources", &bu->sources);
	json_array_begin(&jw, "requested", JSON_LINES);
	for (i = 0; i < bu->wanted.n; i++) {
		json_object_begin(&jw, NULL, 0);
		json_str(&jw, "name", bu->wanted.v[i]);
		json_str(&jw, "step", bu->why.v[i]);
		json_end(&jw);
	}
	json_end(&jw);
	json_strvec(&jw, "missing", &bu->missing);
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

/*
 * bundle-verify.c: check a bundle archive against its manifest,
 * indexes and signature.
 * See bundle-int.h, bundle.h and docs/bundle.md.
 */
#include "compat.h"

#include "arc.h"
#include "bundle-int.h"
#include "render.h"
#include "sig.h"
#include "str.h"
#include "strmap.h"

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

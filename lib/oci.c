/*
 * oci.c: resolve a container image against its registry (oci.h).
 *
 * The dialogue, per image (distribution spec, "pull"):
 *
 *	GET BASE/v2/REPO/manifests/TAG-OR-DIGEST	Accept: the four types
 *	  401 WWW-Authenticate: Bearer realm="R",service="S",scope="P"
 *	GET R?service=S&scope=P				{"token": "..."}
 *	GET BASE/v2/REPO/manifests/...			Authorization: Bearer
 *	  an index: pick linux/ARCH, GET .../manifests/DIGEST
 *	the config and layers: BASE/v2/REPO/blobs/DIGEST (fetched by bundle.c)
 *
 * Every manifest read is checked against the digest that named it (the
 * reference's, the index entry's, or the registry's Docker-Content-Digest
 * for a tag).  JSON is read with the yml module (JSON is YAML).
 */
#include "compat.h"

#include "arc.h"
#include "buf.h"
#include "http.h"
#include "oci.h"
#include "str.h"
#include "strvec.h"
#include "yml.h"

#define OCI_ACCEPT "Accept: " OCI_MT_INDEX ", " OCI_MT_MANIFEST ", " \
	OCI_MT_DOCKER_LIST ", " OCI_MT_DOCKER_MANIFEST

/* References. */

static int
oci_digest_ok(const char *d)
{
	size_t	i;

	if (d == NULL || !str_starts(d, "sha256:") || !arc_sha256_valid(d + 7))
		return 0;
	/* the spec's encoding is lower case, which is how the cache names
	   and compares blobs: an upper-case one would never match */
	for (i = 7; d[i] != '\0'; i++)
		if (d[i] >= 'A' && d[i] <= 'F')
			return 0;
	return 1;
}

/* A path component list: [a-z0-9]+ joined by '.', '_', '__', '-', '/'. */
static int
oci_repo_ok(const char *s)
{
	size_t	i;
	int	prev_sep = 1;

	if (*s == '\0' || strlen(s) > 255)
		return 0;
	for (i = 0; s[i] != '\0'; i++) {
		char	c = s[i];

		if ((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'))
			prev_sep = 0;
		else if (c == '.' || c == '_' || c == '-' || c == '/') {
			if (prev_sep && !(c == '_' && i > 0 && s[i - 1] == '_'))
				return 0;
			if (c == '/' && s[i - 1] != '/' && (s[i - 1] == '.' ||
			    s[i - 1] == '_' || s[i - 1] == '-'))
				return 0;
			prev_sep = 1;
		} else
			return 0;
	}
	return !prev_sep;
}

static int
oci_tag_ok(const char *s)
{
	size_t	i;

	if (*s == '\0' || *s == '.' || *s == '-' || strlen(s) > 128)
		return 0;
	for (i = 0; s[i] != '\0'; i++)
		if (!((s[i] >= 'a' && s[i] <= 'z') ||
		    (s[i] >= 'A' && s[i] <= 'Z') ||
		    (s[i] >= '0' && s[i] <= '9') || s[i] == '_' ||
		    s[i] == '.' || s[i] == '-'))
			return 0;
	return 1;
}

static int
oci_host_ok(const char *s)
{
	const char	*colon = strrchr(s, ':');
	char		*host;
	long		 port;
	int		 ok;

	if (colon != NULL && (str_to_long(colon + 1, &port) != 0 ||
	    port < 1 || port > 65535))
		return 0;
	host = colon != NULL ? xstrndup(s, (size_t)(colon - s)) : xstrdup(s);
	ok = str_is_hostname(host);
	free(host);
	return ok;
}

int
oci_ref_parse(struct oci_ref *out, const char *s, struct prov_err *err)
{
	struct oci_ref	 r = OCI_REF_INIT;
	char		*name = NULL, *at, *slash, *colon;
	int		 ret = -1;

	if (s == NULL || *s == '\0' || strpbrk(s, " \t\r\n") != NULL) {
		prov_err_set(err, PROV_E_USAGE, "'%s' is not an image "
		    "reference", s != NULL ? s : "");
		goto out;
	}
	name = xstrdup(s);
	if ((at = strchr(name, '@')) != NULL) {
		*at = '\0';
		if (!oci_digest_ok(at + 1)) {
			prov_err_set(err, PROV_E_USAGE, "image '%s': '%s' is not "
			    "a sha256 digest", s, at + 1);
			goto out;
		}
		r.digest = xstrdup(at + 1);
	}
	slash = strchr(name, '/');
	if (slash != NULL && (memchr(name, '.', (size_t)(slash - name)) !=
	    NULL || memchr(name, ':', (size_t)(slash - name)) != NULL ||
	    (slash - name == 9 && strncmp(name, "localhost", 9) == 0))) {
		r.registry = xstrndup(name, (size_t)(slash - name));
		memmove(name, slash + 1, strlen(slash + 1) + 1);
		if (!oci_host_ok(r.registry)) {
			prov_err_set(err, PROV_E_USAGE, "image '%s': '%s' is not "
			    "a registry host", s, r.registry);
			goto out;
		}
	} else
		r.registry = xstrdup("docker.io");
	/* The tag: after the last ':' of the path's last component. */
	slash = strrchr(name, '/');
	colon = strrchr(slash != NULL ? slash : name, ':');
	if (colon != NULL) {
		*colon = '\0';
		if (!oci_tag_ok(colon + 1)) {
			prov_err_set(err, PROV_E_USAGE, "image '%s': '%s' is not "
			    "a tag", s, colon + 1);
			goto out;
		}
		r.tag = xstrdup(colon + 1);
	} else if (r.digest == NULL)
		r.tag = xstrdup("latest");
	if (strcmp(r.registry, "docker.io") == 0 && strchr(name, '/') == NULL)
		r.repo = xasprintf("library/%s", name);
	else
		r.repo = xstrdup(name);
	if (!oci_repo_ok(r.repo)) {
		prov_err_set(err, PROV_E_USAGE, "image '%s': '%s' is not a "
		    "repository name", s, r.repo);
		goto out;
	}
	*out = r;
	memset(&r, 0, sizeof r);
	ret = 0;
out:
	oci_ref_release(&r);
	free(name);
	return ret;
}

void
oci_ref_release(struct oci_ref *r)
{
	if (r == NULL)
		return;
	free(r->registry);
	free(r->repo);
	free(r->tag);
	free(r->digest);
	memset(r, 0, sizeof *r);
}

const char *
oci_ref_target(const struct oci_ref *r)
{
	return r->digest != NULL ? r->digest : r->tag;
}

char *
oci_base_url(const struct oci_ref *r, const struct oci_opts *o,
    struct prov_err *err)
{
	size_t	i, n = strlen(r->registry);

	for (i = 0; o != NULL && o->mirrors != NULL && i < o->mirrors->n;
	    i++) {
		const char	*m = o->mirrors->v[i], *u;
		size_t		 ul;

		if (strncmp(m, r->registry, n) != 0 || m[n] != '=')
			continue;
		u = m + n + 1;
		if (!str_starts(u, "http://") && !str_starts(u, "https://")) {
			prov_err_set(err, PROV_E_USAGE, "registry mirror '%s': "
			    "the URL must start with http:// or https://", m);
			return NULL;
		}
		ul = strlen(u);
		while (ul > 0 && u[ul - 1] == '/')
			ul--;
		return xstrndup(u, ul);
	}
	if (strcmp(r->registry, "docker.io") == 0)
		return xstrdup("https://registry-1.docker.io");
	return xasprintf("https://%s", r->registry);
}

/* WWW-Authenticate. */

int
oci_challenge_parse(struct oci_challenge *out, const char *h,
    struct prov_err *err)
{
	struct oci_challenge	 c = OCI_CHALLENGE_INIT;
	struct buf		 k = BUF_INIT, v = BUF_INIT;
	const char		*p = h;
	int			 r = -1;

	while (*p == ' ' || *p == '\t')
		p++;
	while (*p != '\0' && *p != ' ' && *p != '\t')
		p++;
	if (p == h) {
		prov_err_set(err, PROV_E_HTTP, "empty WWW-Authenticate header");
		goto out;
	}
	c.scheme = xstrndup(h, (size_t)(p - h));
	while (*p != '\0') {
		char	**slot = NULL;

		while (*p == ' ' || *p == '\t' || *p == ',')
			p++;
		if (*p == '\0')
			break;
		buf_reset(&k);
		buf_reset(&v);
		while (*p != '\0' && *p != '=' && *p != ',' && *p != ' ')
			buf_addch(&k, *p++);
		while (*p == ' ')
			p++;
		if (*p != '=') {
			prov_err_set(err, PROV_E_HTTP, "cannot read "
			    "WWW-Authenticate '%s'", h);
			goto out;
		}
		p++;
		while (*p == ' ')
			p++;
		if (*p == '"') {
			for (p++; *p != '\0' && *p != '"'; p++) {
				if (*p == '\\' && p[1] != '\0')
					p++;
				buf_addch(&v, *p);
			}
			if (*p != '"') {
				prov_err_set(err, PROV_E_HTTP, "unterminated "
				    "quote in WWW-Authenticate '%s'", h);
				goto out;
			}
			p++;
		} else
			while (*p != '\0' && *p != ',' && *p != ' ')
				buf_addch(&v, *p++);
		if (strcasecmp(k.buf, "realm") == 0)
			slot = &c.realm;
		else if (strcasecmp(k.buf, "service") == 0)
			slot = &c.service;
		else if (strcasecmp(k.buf, "scope") == 0)
			slot = &c.scope;
		if (slot != NULL) {
			free(*slot);
			*slot = xstrdup(v.buf);
		}
	}
	if (strcasecmp(c.scheme, "Bearer") == 0 && (c.realm == NULL ||
	    *c.realm == '\0')) {
		prov_err_set(err, PROV_E_HTTP, "WWW-Authenticate '%s' has no "
		    "realm", h);
		goto out;
	}
	*out = c;
	memset(&c, 0, sizeof c);
	r = 0;
out:
	oci_challenge_release(&c);
	buf_release(&k);
	buf_release(&v);
	return r;
}

void
oci_challenge_release(struct oci_challenge *c)
{
	if (c == NULL)
		return;
	free(c->scheme);
	free(c->realm);
	free(c->service);
	free(c->scope);
	memset(c, 0, sizeof *c);
}

/* Manifests. */

static void
oci_desc_release(struct oci_desc *d)
{
	free(d->media_type);
	free(d->digest);
	free(d->os);
	free(d->arch);
	free(d->variant);
	memset(d, 0, sizeof *d);
}

static int
oci_desc_parse(struct oci_desc *d, const struct yml_node *n,
    const char *what, struct prov_err *err)
{
	const char		*mt = yml_map_str(n, "mediaType");
	const char		*dg = yml_map_str(n, "digest");
	const char		*sz = yml_map_str(n, "size");
	const struct yml_node	*pl;
	char			*end = NULL;
	long long		 size;

	if (n == NULL || n->kind != YML_MAP)
		return prov_err_set(err, PROV_E_PARSE, "%s is not a JSON "
		    "object", what);
	if (!oci_digest_ok(dg))
		return prov_err_set(err, PROV_E_PARSE, "%s has no sha256 "
		    "digest (%s)", what, dg != NULL ? dg : "none");
	errno = 0;
	size = sz != NULL ? strtoll(sz, &end, 10) : -1;
	if (sz == NULL || *sz == '\0' || *end != '\0' || errno != 0 ||
	    size < 0)
		return prov_err_set(err, PROV_E_PARSE, "%s has no size", what);
	d->media_type = mt != NULL ? xstrdup(mt) : NULL;
	d->digest = xstrdup(dg);
	d->size = (int64_t)size;
	if ((pl = yml_map_get(n, "platform")) != NULL && pl->kind == YML_MAP) {
		const char	*os = yml_map_str(pl, "os");
		const char	*ar = yml_map_str(pl, "architecture");
		const char	*va = yml_map_str(pl, "variant");

		d->os = os != NULL ? xstrdup(os) : NULL;
		d->arch = ar != NULL ? xstrdup(ar) : NULL;
		d->variant = va != NULL ? xstrdup(va) : NULL;
	}
	return 0;
}

static int
oci_is_index_type(const char *mt)
{
	return mt != NULL && (strcmp(mt, OCI_MT_INDEX) == 0 ||
	    strcmp(mt, OCI_MT_DOCKER_LIST) == 0);
}

static int
oci_is_manifest_type(const char *mt)
{
	return mt != NULL && (strcmp(mt, OCI_MT_MANIFEST) == 0 ||
	    strcmp(mt, OCI_MT_DOCKER_MANIFEST) == 0);
}

int
oci_manifest_parse(struct oci_manifest *out, const char *data, size_t len,
    const char *ctype, struct prov_err *err)
{
	struct oci_manifest	 m = OCI_MANIFEST_INIT;
	struct yml_doc		 doc;
	struct prov_errs	 errs = PROV_ERRS_INIT;
	const struct yml_node	*list;
	const char		*mt, *sv;
	char			*ct = NULL, *semi;
	unsigned		 i;
	int			 r = -1;

	yml_doc_init(&doc);
	if (yml_load(&doc, "manifest", data, len, &errs) != 0 ||
	    errs.n > 0 || doc.root == NULL || doc.root->kind != YML_MAP) {
		prov_err_set(err, PROV_E_PARSE, "the manifest is not a JSON "
		    "object%s%s", errs.n > 0 ? ": " : "",
		    errs.n > 0 ? errs.v[0].msg : "");
		goto out;
	}
	sv = yml_map_str(doc.root, "schemaVersion");
	if (sv == NULL || strcmp(sv, "2") != 0) {
		prov_err_set(err, PROV_E_PARSE, "manifest schemaVersion %s is "
		    "not supported (only 2)", sv != NULL ? sv : "missing");
		goto out;
	}
	if (ctype != NULL) {
		ct = xstrdup(ctype);
		if ((semi = strchr(ct, ';')) != NULL)
			*semi = '\0';
		str_trim(ct);
	}
	mt = yml_map_str(doc.root, "mediaType");
	if (mt == NULL && (oci_is_index_type(ct) || oci_is_manifest_type(ct)))
		mt = ct;
	if (mt != NULL && !oci_is_index_type(mt) && !oci_is_manifest_type(mt)) {
		prov_err_set(err, PROV_E_PARSE, "unsupported manifest type "
		    "'%s'", mt);
		goto out;
	}
	if (mt != NULL)
		m.is_index = oci_is_index_type(mt);
	else if (yml_map_get(doc.root, "manifests") != NULL)
		m.is_index = 1;
	else if (yml_map_get(doc.root, "layers") == NULL) {
		prov_err_set(err, PROV_E_PARSE, "the manifest has neither "
		    "'manifests' nor 'layers'");
		goto out;
	}
	m.media_type = xstrdup(mt != NULL ? mt : m.is_index ? OCI_MT_INDEX :
	    OCI_MT_MANIFEST);
	if (!m.is_index) {
		if (oci_desc_parse(&m.config, yml_map_get(doc.root, "config"),
		    "the manifest's config", err) != 0)
			goto out;
	}
	list = yml_map_get(doc.root, m.is_index ? "manifests" : "layers");
	if (list == NULL || list->kind != YML_SEQ) {
		prov_err_set(err, PROV_E_PARSE, "the manifest's '%s' is not a "
		    "list", m.is_index ? "manifests" : "layers");
		goto out;
	}
	m.descs = xcalloc(list->n + 1, sizeof *m.descs);
	for (i = 0; i < list->n; i++) {
		char	*what = xasprintf("%s %u", m.is_index ? "manifest" :
			    "layer", i + 1);
		int	 rr = oci_desc_parse(&m.descs[i], list->u.items[i], what,
			    err);

		free(what);
		m.n = i + 1;
		if (rr != 0)
			goto out;
	}
	*out = m;
	memset(&m, 0, sizeof m);
	r = 0;
out:
	oci_manifest_release(&m);
	yml_doc_release(&doc);
	prov_errs_release(&errs);
	free(ct);
	return r;
}

void
oci_manifest_release(struct oci_manifest *m)
{
	size_t	i;

	if (m == NULL)
		return;
	for (i = 0; i < m->n; i++)
		oci_desc_release(&m->descs[i]);
	free(m->descs);
	oci_desc_release(&m->config);
	free(m->media_type);
	memset(m, 0, sizeof *m);
}

/* Platforms. */

const char *
oci_platform(const char *arch, const char **variant)
{
	static const struct {
		const char	*deb, *oci, *variant;
	} map[] = {
		{ "amd64", "amd64", NULL }, { "arm64", "arm64", NULL },
		{ "armhf", "arm", "v7" }, { "armel", "arm", "v6" },
		{ "ppc64el", "ppc64le", NULL }, { "s390x", "s390x", NULL },
		{ "i386", "386", NULL }, { "riscv64", "riscv64", NULL },
	};
	size_t	i;

	if (variant != NULL)
		*variant = NULL;
	for (i = 0; arch != NULL && i < ARRAY_SIZE(map); i++)
		if (strcmp(map[i].deb, arch) == 0) {
			if (variant != NULL)
				*variant = map[i].variant;
			return map[i].oci;
		}
	return NULL;
}

long
oci_pick(const struct oci_manifest *idx, const char *arch)
{
	const char	*variant, *want = oci_platform(arch, &variant);
	size_t		 i;

	if (want == NULL || idx == NULL || !idx->is_index)
		return -1;
	for (i = 0; i < idx->n; i++) {
		const struct oci_desc	*d = &idx->descs[i];

		if (d->os == NULL || d->arch == NULL ||
		    strcmp(d->os, "linux") != 0 || strcmp(d->arch, want) != 0)
			continue;
		if (variant != NULL && d->variant != NULL &&
		    strcmp(variant, d->variant) != 0)
			continue;
		return (long)i;
	}
	return -1;
}

/* The network part. */

struct oci_answer {
	long		 status;
	struct buf	 body;
	char		*ctype, *www, *dcd;
	struct prov_err	 err;
};

static void
oci_answer_release(struct oci_answer *a)
{
	buf_release(&a->body);
	free(a->ctype);
	free(a->www);
	free(a->dcd);
	prov_err_release(&a->err);
	memset(a, 0, sizeof *a);
}

static void
oci_get_done(struct http_req *r, void *arg)
{
	struct oci_answer	*a = arg;
	const char		*h;
	size_t			 len;
	char			*b;

	a->status = r->status;
	if (r->status == 0) {
		prov_err_move(&a->err, &r->err);
		return;
	}
	b = buf_detach(&r->resp, &len);
	buf_add(&a->body, b, len);
	free(b);
	if ((h = http_resp_header(r, "Content-Type")) != NULL)
		a->ctype = xstrdup(h);
	if ((h = http_resp_header(r, "WWW-Authenticate")) != NULL)
		a->www = xstrdup(h);
	if ((h = http_resp_header(r, "Docker-Content-Digest")) != NULL)
		a->dcd = xstrdup(h);
}

/* One GET; -1 only when nothing was answered (err says why). */
static int
oci_get(struct oci_answer *a, const char *url, const char *accept,
    const char *auth, const struct oci_opts *o, struct prov_err *err)
{
	struct http_opts	 ho = HTTP_OPTS_INIT;
	struct http		*h;
	struct http_req		*req;
	int			 r = -1;

	memset(a, 0, sizeof *a);
	a->body = (struct buf)BUF_INIT;
	ho.timeout_ms = (o->timeout_s > 0 ? o->timeout_s : 60) * 1000;
	ho.user_agent = "provision-bundle";
	h = http_new(&ho);
	req = http_req_new("GET", url);
	if (accept != NULL)
		http_req_header(req, accept);
	if (auth != NULL)
		http_req_header(req, auth);
	req->ca_file = o->ca_file;
	req->done = oci_get_done;
	req->arg = a;
	http_add(h, req);
	if (http_run(h, err) != 0)
		goto out;
	if (a->status == 0) {
		prov_err_move(err, &a->err);
		goto out;
	}
	r = 0;
out:
	http_free(h);
	return r;
}

/* Percent-encode everything but RFC 3986's unreserved characters. */
static void
oci_add_escaped(struct buf *b, const char *s)
{
	for (; *s != '\0'; s++) {
		unsigned char	c = (unsigned char)*s;

		if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
		    (c >= '0' && c <= '9') || c == '-' || c == '.' ||
		    c == '_' || c == '~')
			buf_addch(b, c);
		else
			buf_addf(b, "%%%02X", c);
	}
}

/* An anonymous token for the challenge: "Authorization: Bearer T". */
static int
oci_token(char **out, const struct oci_challenge *c, const char *repo,
    const char *base, const struct oci_opts *o, struct prov_err *err)
{
	struct oci_answer	 a;
	struct buf		 url = BUF_INIT;
	struct yml_doc		 doc;
	struct prov_errs	 errs = PROV_ERRS_INIT;
	const char		*tok;
	int			 r = -1;

	memset(&a, 0, sizeof a);
	yml_doc_init(&doc);
	if (!str_starts(c->realm, "https://") &&
	    !(str_starts(c->realm, "http://") && str_starts(base, "http://"))) {
		prov_err_set(err, PROV_E_HTTP, "token realm '%s' is not "
		    "https", c->realm);
		goto out;
	}
	buf_adds(&url, c->realm);
	buf_addch(&url, strchr(c->realm, '?') != NULL ? '&' : '?');
	if (c->service != NULL) {
		buf_adds(&url, "service=");
		oci_add_escaped(&url, c->service);
		buf_addch(&url, '&');
	}
	buf_adds(&url, "scope=");
	if (c->scope != NULL)
		oci_add_escaped(&url, c->scope);
	else {
		char	*s = xasprintf("repository:%s:pull", repo);

		oci_add_escaped(&url, s);
		free(s);
	}
	if (oci_get(&a, url.buf, "Accept: application/json", NULL, o,
	    err) != 0)
		goto out;
	if (a.status != 200) {
		prov_err_set(err, PROV_E_AUTH, "token request to '%s' answered "
		    "HTTP %ld", c->realm, a.status);
		goto out;
	}
	if (yml_load(&doc, "token", a.body.buf, a.body.len, &errs) != 0 ||
	    doc.root == NULL || doc.root->kind != YML_MAP ||
	    ((tok = yml_map_str(doc.root, "token")) == NULL &&
	    (tok = yml_map_str(doc.root, "access_token")) == NULL) ||
	    *tok == '\0' || strpbrk(tok, "\r\n") != NULL) {
		prov_err_set(err, PROV_E_AUTH, "no token in the answer of "
		    "'%s'", c->realm);
		goto out;
	}
	*out = xasprintf("Authorization: Bearer %s", tok);
	r = 0;
out:
	buf_release_secret(&a.body);	/* it held the token */
	oci_answer_release(&a);
	yml_doc_release(&doc);
	prov_errs_release(&errs);
	buf_release(&url);
	return r;
}

/*
 * GET a manifest, with a token when the registry asks for one (*auth
 * keeps it for the next requests).  The body's digest is checked against
 * `want` (or the registry's Docker-Content-Digest when want is NULL);
 * `hex` gets it, the manifest's own digest.
 */
static int
oci_get_manifest(struct oci_answer *a, const struct oci_ref *ref,
    const char *base, const char *target, const char *want, char **auth,
    char hex[ARC_SHA256_HEX], const struct oci_opts *o, struct prov_err *err)
{
	struct oci_challenge	 c = OCI_CHALLENGE_INIT;
	char			*url = xasprintf("%s/v2/%s/manifests/%s", base,
				    ref->repo, target);
	int			 r = -1;

	if (oci_get(a, url, OCI_ACCEPT, *auth, o, err) != 0)
		goto out;
	if (a->status == 401 && *auth == NULL) {
		if (a->www == NULL) {
			prov_err_set(err, PROV_E_AUTH, "%s: HTTP 401 without "
			    "WWW-Authenticate", url);
			goto out;
		}
		if (oci_challenge_parse(&c, a->www, err) != 0)
			goto out;
		if (strcasecmp(c.scheme, "Bearer") != 0) {
			prov_err_set(err, PROV_E_AUTH, "the registry wants "
			    "'%s' authentication: only anonymous pulls are "
			    "supported", c.scheme);
			goto out;
		}
		if (oci_token(auth, &c, ref->repo, base, o, err) != 0)
			goto out;
		oci_answer_release(a);
		if (oci_get(a, url, OCI_ACCEPT, *auth, o, err) != 0)
			goto out;
	}
	if (a->status != 200) {
		prov_err_set(err, PROV_E_HTTP, "GET %s: HTTP %ld", url,
		    a->status);
		goto out;
	}
	if (arc_sha256_buf(hex, a->body.buf, a->body.len, err) != 0)
		goto out;
	if (want == NULL && a->dcd != NULL && str_starts(a->dcd, "sha256:"))
		want = a->dcd;
	if (want != NULL && strcasecmp(want + 7, hex) != 0) {
		prov_err_set(err, PROV_E_HTTP, "manifest %s has SHA-256 %s, "
		    "not the digest that names it", want, hex);
		goto out;
	}
	r = 0;
out:
	oci_challenge_release(&c);
	free(url);
	return r;
}

int
oci_resolve(struct oci_image *out, const char *refs, const char *arch,
    const struct oci_opts *o, struct prov_err *err)
{
	struct oci_ref		 ref = OCI_REF_INIT;
	struct oci_answer	 a;
	struct oci_manifest	 m = OCI_MANIFEST_INIT;
	struct oci_image	 img = OCI_IMAGE_INIT;
	const char		*variant, *plat = oci_platform(arch, &variant);
	char			*base = NULL, *digest = NULL;
	char			 hex[ARC_SHA256_HEX];
	size_t			 i;
	int			 r = -1;

	memset(&a, 0, sizeof a);
	if (plat == NULL) {
		prov_err_set(err, PROV_E_USAGE, "no container platform for "
		    "architecture '%s'", arch);
		goto out;
	}
	if (oci_ref_parse(&ref, refs, err) != 0)
		goto out;
	if ((base = oci_base_url(&ref, o, err)) == NULL)
		goto out;
	if (oci_get_manifest(&a, &ref, base, oci_ref_target(&ref), ref.digest,
	    &img.auth, hex, o, err) != 0)
		goto fail;
	if (oci_manifest_parse(&m, a.body.buf, a.body.len, a.ctype, err) != 0)
		goto fail;
	if (m.is_index) {
		long		 k = oci_pick(&m, arch);
		struct buf	 have = BUF_INIT;

		if (k < 0) {
			for (i = 0; i < m.n; i++)
				buf_addf(&have, "%s%s/%s%s%s", i ? ", " : "",
				    m.descs[i].os ? m.descs[i].os : "?",
				    m.descs[i].arch ? m.descs[i].arch : "?",
				    m.descs[i].variant ? "/" : "",
				    m.descs[i].variant ? m.descs[i].variant : "");
			prov_err_set(err, PROV_E_HTTP, "no linux/%s%s%s image "
			    "in its index (it has %s)", plat, variant ? "/" : "",
			    variant ? variant : "", have.len ? have.buf :
			    "none");
			buf_release(&have);
			goto fail;
		}
		digest = xstrdup(m.descs[k].digest);
		oci_manifest_release(&m);
		oci_answer_release(&a);
		if (oci_get_manifest(&a, &ref, base, digest, digest, &img.auth,
		    hex, o, err) != 0)
			goto fail;
		if (oci_manifest_parse(&m, a.body.buf, a.body.len, a.ctype,
		    err) != 0)
			goto fail;
		if (m.is_index) {
			prov_err_set(err, PROV_E_PARSE, "an index in an index "
			    "(%s) is not supported", digest);
			goto fail;
		}
	} else
		digest = xasprintf("sha256:%s", hex);
	img.ref = xstrdup(refs);
	img.digest = digest;
	digest = NULL;
	img.media_type = xstrdup(m.media_type);
	img.platform = xasprintf("linux/%s%s%s", plat, variant ? "/" : "",
	    variant ? variant : "");
	buf_add(&img.manifest, a.body.buf, a.body.len);
	img.blobs = xcalloc(m.n + 1, sizeof *img.blobs);
	for (i = 0; i <= m.n; i++) {
		const struct oci_desc	*d = i == 0 ? &m.config :
					    &m.descs[i - 1];
		struct oci_blob		*b = &img.blobs[img.n++];

		b->digest = xstrdup(d->digest);
		b->media_type = xstrdup(d->media_type != NULL ?
		    d->media_type : "");
		b->size = d->size;
		b->url = xasprintf("%s/v2/%s/blobs/%s", base, ref.repo,
		    d->digest);
	}
	*out = img;
	memset(&img, 0, sizeof img);
	r = 0;
	goto out;
fail:
	prov_err_prefix(err, "image '%s': ", refs);
out:
	oci_image_release(&img);
	oci_manifest_release(&m);
	oci_answer_release(&a);
	oci_ref_release(&ref);
	free(base);
	free(digest);
	return r;
}

void
oci_image_release(struct oci_image *img)
{
	size_t	i;

	if (img == NULL)
		return;
	for (i = 0; i < img->n; i++) {
		free(img->blobs[i].digest);
		free(img->blobs[i].media_type);
		free(img->blobs[i].url);
	}
	free(img->blobs);
	free(img->ref);
	free(img->digest);
	free(img->media_type);
	free(img->platform);
	buf_release(&img->manifest);
	freezero_str(img->auth);
	memset(img, 0, sizeof *img);
	img->manifest = (struct buf)BUF_INIT;
}

/*
 * knownhosts.c: OpenSSH known_hosts files.  See knownhosts.h.
 *
 * The grammar read, one line at a time (OpenSSH sshd(8) "SSH_KNOWN_HOSTS
 * FILE FORMAT"):
 *
 *	line    = [ marker SP ] hosts SP keytype SP base64 [ SP comment ]
 *	marker  = "@revoked" / "@cert-authority"
 *	hosts   = hashed / pattern *( "," pattern )
 *	hashed  = "|1|" base64(salt) "|" base64(hmac-sha1(salt, name))
 *	pattern = [ "!" ] ( glob / "[" glob "]:" port )
 *
 * Blank lines and lines starting with '#' are skipped.  Names compare
 * without regard to case, as host names do.  libssh2's own knownhost API
 * is not used: it ignores @revoked lines and does not report the line of
 * a changed key, and both matter here.
 */
#include "compat.h"

#include <ctype.h>
#include <fcntl.h>
#include <libgen.h>
#include <sys/file.h>
#include <sys/stat.h>

#include <openssl/evp.h>
#include <openssl/hmac.h>

#include "buf.h"
#include "err.h"
#include "fs.h"
#include "knownhosts.h"
#include "strvec.h"

#define KH_MARK_NONE	0
#define KH_MARK_REVOKED	1

struct kh_line {
	int		 marker;
	size_t		 file;		/* index into files */
	unsigned	 line;
	char		*hosts;		/* pattern list; NULL when hashed */
	unsigned char	 salt[64];
	size_t		 saltlen;
	unsigned char	 hash[20];
	char		*type;
	unsigned char	*blob;
	size_t		 bloblen;
};

struct knownhosts {
	struct kh_line	*v;
	size_t		 n, alloc;
	struct strvec	 files;
	struct strvec	 notes;
};

static void
knownhosts_line_release(struct kh_line *l)
{
	free(l->hosts);
	free(l->type);
	free(l->blob);
	memset(l, 0, sizeof *l);
}

void
knownhosts_free(struct knownhosts *kh)
{
	size_t	i;

	if (kh == NULL)
		return;
	for (i = 0; i < kh->n; i++)
		knownhosts_line_release(&kh->v[i]);
	free(kh->v);
	strvec_clear(&kh->files);
	strvec_clear(&kh->notes);
	free(kh);
}

const struct strvec *
knownhosts_notes(const struct knownhosts *kh)
{
	return &kh->notes;
}

size_t
knownhosts_count(const struct knownhosts *kh)
{
	return kh->n;
}

void
knownhosts_match_release(struct knownhosts_match *m)
{
	if (m == NULL)
		return;
	free(m->known_type);
	free(m->known_fp);
	m->known_type = m->known_fp = NULL;
	m->status = KNOWNHOSTS_NEW;
	m->file = NULL;
	m->line = 0;
}

/*
 * Decode base64 `s` (of length n) into out (room for n bytes).  Returns
 * the decoded length, or -1 when s is not base64.
 */
static long
knownhosts_b64dec(unsigned char *out, const char *s, size_t n)
{
	size_t	pad = 0, i;
	int	r;
	char	*tmp = NULL;

	if (n == 0 || n > INT_MAX)
		return -1;
	for (i = 0; i < n; i++)
		if (!(s[i] >= 'A' && s[i] <= 'Z') &&
		    !(s[i] >= 'a' && s[i] <= 'z') &&
		    !(s[i] >= '0' && s[i] <= '9') &&
		    s[i] != '+' && s[i] != '/' && s[i] != '=')
			return -1;
	/* EVP_DecodeBlock wants a multiple of 4: pad what OpenSSH leaves off. */
	tmp = xmalloc(n + 4);
	memcpy(tmp, s, n);
	while (n % 4 != 0)
		tmp[n++] = '=';
	while (pad < 2 && n > pad && tmp[n - 1 - pad] == '=')
		pad++;
	r = EVP_DecodeBlock(out, (const unsigned char *)tmp, (int)n);
	free(tmp);
	if (r < 0 || (size_t)r < pad)
		return -1;
	return (long)((size_t)r - pad);
}

/* Unpadded base64 of p (caller frees). */
static char *
knownhosts_b64enc(const unsigned char *p, size_t n, int keep_pad)
{
	char	*s = xmalloc(4 * ((n + 2) / 3) + 1);
	int	 len;

	len = EVP_EncodeBlock((unsigned char *)s, p, (int)n);
	if (!keep_pad)
		while (len > 0 && s[len - 1] == '=')
			s[--len] = '\0';
	return s;
}

char *
knownhosts_blob_type(const unsigned char *blob, size_t len)
{
	uint32_t	n;

	if (len < 4)
		return NULL;
	n = (uint32_t)blob[0] << 24 | (uint32_t)blob[1] << 16 |
	    (uint32_t)blob[2] << 8 | blob[3];
	if (n == 0 || n > 64 || n > len - 4)
		return NULL;
	return xstrndup((const char *)blob + 4, n);
}

char *
knownhosts_fingerprint(const unsigned char *blob, size_t len)
{
	unsigned char	md[32];
	unsigned int	mdlen = 0;
	char		*b64, *s;

	if (EVP_Digest(blob, len, md, &mdlen, EVP_sha256(), NULL) != 1)
		return xstrdup("SHA256:?");
	b64 = knownhosts_b64enc(md, mdlen, 0);
	s = xasprintf("SHA256:%s", b64);
	free(b64);
	return s;
}

int
knownhosts_pubkey_ok(const char *s)
{
	const char	*b, *c;
	unsigned char	*blob = NULL;
	char		*type = NULL, *t = NULL;
	long		 n;
	int		 ok = 0;

	if (s == NULL || strlen(s) > 16384 || (b = strchr(s, ' ')) == NULL)
		return 0;
	t = xstrndup(s, (size_t)(b - s));
	b++;
	if ((c = strchr(b, ' ')) == NULL)
		c = b + strlen(b);
	else if (c[1] == '\0' || c[1 + strspn(c + 1, "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
	    "abcdefghijklmnopqrstuvwxyz0123456789._@+:-")] != '\0')
		goto out;
	blob = xmalloc((size_t)(c - b) + 4);
	if ((n = knownhosts_b64dec(blob, b, (size_t)(c - b))) < 0)
		goto out;
	type = knownhosts_blob_type(blob, (size_t)n);
	ok = type != NULL && strcmp(type, t) == 0 &&
	    t[strspn(t, "abcdefghijklmnopqrstuvwxyz0123456789-@.")] == '\0';
out:
	free(blob);
	free(type);
	free(t);
	return ok;
}

const char *
knownhosts_type_label(const char *t)
{
	if (t == NULL)
		return "unknown";
	if (strcmp(t, "ssh-ed25519") == 0)
		return "ED25519";
	if (strncmp(t, "ecdsa-sha2-", 11) == 0)
		return "ECDSA";
	if (strcmp(t, "ssh-rsa") == 0)
		return "RSA";
	if (strcmp(t, "ssh-dss") == 0)
		return "DSA";
	if (strncmp(t, "sk-", 3) == 0)
		return "SK";
	return t;
}

char *
knownhosts_hostname(const char *host, long port)
{
	char	*s, *p;

	if (port <= 0 || port == 22)
		s = xstrdup(host);
	else
		s = xasprintf("[%s]:%ld", host, port);
	for (p = s; *p != '\0'; p++)
		if (*p >= 'A' && *p <= 'Z')
			*p = (char)(*p - 'A' + 'a');
	return s;
}

int
knownhosts_pattern_match(const char *s, const char *p)
{
	for (;;) {
		if (*p == '\0')
			return *s == '\0';
		if (*p == '*') {
			while (*p == '*')
				p++;
			if (*p == '\0')
				return 1;
			for (; *s != '\0'; s++)
				if (knownhosts_pattern_match(s, p))
					return 1;
			return 0;
		}
		if (*s == '\0')
			return 0;
		if (*p != '?' && tolower((unsigned char)*p) !=
		    tolower((unsigned char)*s))
			return 0;
		s++;
		p++;
	}
}

/* 1 when the line's hosts match `name` (already in known_hosts form). */
static int
knownhosts_line_matches(const struct kh_line *l, const char *name)
{
	const char	*p, *e;
	char		 pat[1024];
	int		 pos = 0;

	if (l->hosts == NULL) {
		unsigned char	md[EVP_MAX_MD_SIZE];
		unsigned int	mdlen = 0;

		if (HMAC(EVP_sha1(), l->salt, (int)l->saltlen,
		    (const unsigned char *)name, strlen(name), md,
		    &mdlen) == NULL || mdlen != sizeof l->hash)
			return 0;
		return memcmp(md, l->hash, sizeof l->hash) == 0;
	}
	for (p = l->hosts; *p != '\0'; p = *e != '\0' ? e + 1 : e) {
		size_t	len;
		int	neg = 0;

		e = strchr(p, ',');
		if (e == NULL)
			e = p + strlen(p);
		len = (size_t)(e - p);
		if (len > 0 && *p == '!') {
			neg = 1;
			p++;
			len--;
		}
		if (len == 0 || len >= sizeof pat)
			continue;
		memcpy(pat, p, len);
		pat[len] = '\0';
		if (knownhosts_pattern_match(name, pat)) {
			if (neg)
				return 0;	/* a negated match vetoes the line */
			pos = 1;
		}
	}
	return pos;
}

/* 1 when the line matches any of the names on `port`. */
static int
knownhosts_line_matches_any(const struct kh_line *l, const char *const *names,
    size_t nnames, long port)
{
	size_t	i;
	int	hit = 0;

	for (i = 0; i < nnames && !hit; i++) {
		char	*h = knownhosts_hostname(names[i], port);

		hit = knownhosts_line_matches(l, h);
		free(h);
	}
	return hit;
}

static void
knownhosts_note(struct knownhosts *kh, int quiet, size_t file, unsigned line,
    const char *what)
{
	if (!quiet)
		strvec_pushf(&kh->notes, "%s:%u: %s", kh->files.v[file], line,
		    what);
}

/* Parse the hashed form "|1|salt|hash" into l; -1 when malformed. */
static int
knownhosts_parse_hashed(struct kh_line *l, const char *s, size_t n)
{
	const char	*bar;
	unsigned char	 tmp[128];
	long		 len;

	if (n < 3 || memcmp(s, "|1|", 3) != 0)
		return -1;
	s += 3;
	n -= 3;
	bar = memchr(s, '|', n);
	if (bar == NULL || (size_t)(bar - s) > 80 ||
	    n - (size_t)(bar - s) - 1 > 80)
		return -1;
	len = knownhosts_b64dec(tmp, s, (size_t)(bar - s));
	if (len <= 0 || (size_t)len > sizeof l->salt)
		return -1;
	memcpy(l->salt, tmp, (size_t)len);
	l->saltlen = (size_t)len;
	len = knownhosts_b64dec(tmp, bar + 1, n - (size_t)(bar - s) - 1);
	if (len != (long)sizeof l->hash)
		return -1;
	memcpy(l->hash, tmp, sizeof l->hash);
	return 0;
}

/* Next space-separated field of *p; NULL at the end of the line. */
static const char *
knownhosts_field(const char **p, size_t *len)
{
	const char	*s = *p, *e;

	while (*s == ' ' || *s == '\t')
		s++;
	if (*s == '\0' || *s == '#')
		return NULL;
	for (e = s; *e != '\0' && *e != ' ' && *e != '\t'; e++)
		;
	*len = (size_t)(e - s);
	*p = e;
	return s;
}

static void
knownhosts_parse_line(struct knownhosts *kh, size_t file, unsigned lineno,
    const char *text, int quiet)
{
	struct kh_line	 l;
	const char	*p = text, *f;
	size_t		 len;
	long		 blen;
	char		*embedded = NULL;

	memset(&l, 0, sizeof l);
	l.file = file;
	l.line = lineno;
	if ((f = knownhosts_field(&p, &len)) == NULL)
		return;				/* blank or comment */
	if (*f == '@') {
		if (len == 8 && memcmp(f, "@revoked", 8) == 0)
			l.marker = KH_MARK_REVOKED;
		else if (len == 15 && memcmp(f, "@cert-authority", 15) == 0) {
			knownhosts_note(kh, quiet, file, lineno, "@cert-authority "
			    "line ignored (host certificates are not supported)");
			return;
		} else {
			knownhosts_note(kh, quiet, file, lineno,
			    "unknown marker; line ignored");
			return;
		}
		if ((f = knownhosts_field(&p, &len)) == NULL)
			goto bad;
	}
	if (*f == '|') {
		if (knownhosts_parse_hashed(&l, f, len) != 0) {
			knownhosts_note(kh, quiet, file, lineno,
			    "malformed hashed host name; line ignored");
			return;
		}
	} else
		l.hosts = xstrndup(f, len);
	if ((f = knownhosts_field(&p, &len)) == NULL)
		goto bad;
	l.type = xstrndup(f, len);
	if ((f = knownhosts_field(&p, &len)) == NULL)
		goto bad;
	l.blob = xmalloc(len + 4);
	blen = knownhosts_b64dec(l.blob, f, len);
	if (blen <= 0)
		goto bad;
	l.bloblen = (size_t)blen;
	embedded = knownhosts_blob_type(l.blob, l.bloblen);
	if (embedded == NULL || strcmp(embedded, l.type) != 0) {
		knownhosts_note(kh, quiet, file, lineno, "key type does not "
		    "match the key; line ignored");
		free(embedded);
		knownhosts_line_release(&l);
		return;
	}
	free(embedded);
	ALLOC_GROW(kh->v, kh->n + 1, kh->alloc);
	kh->v[kh->n++] = l;
	return;
bad:
	knownhosts_note(kh, quiet, file, lineno, "malformed line ignored");
	knownhosts_line_release(&l);
}

static void
knownhosts_parse(struct knownhosts *kh, size_t file, const char *data,
    size_t n, int quiet)
{
	const char	*p = data, *end = data + n, *nl;
	unsigned	 lineno = 0;
	size_t		 len;
	char		*line;

	while (p < end) {
		nl = memchr(p, '\n', (size_t)(end - p));
		if (nl == NULL)
			nl = end;
		lineno++;
		line = xstrndup(p, (size_t)(nl - p));
		/* A NUL in the line ends it: xstrndup() stopped there. */
		len = strlen(line);
		if (len > 0 && line[len - 1] == '\r')
			line[len - 1] = '\0';
		knownhosts_parse_line(kh, file, lineno, line, quiet);
		free(line);
		p = nl + 1;
	}
}

static int
knownhosts_read(struct knownhosts *kh, const char *path, struct prov_err *err)
{
	struct buf	b = BUF_INIT;
	size_t		file = kh->files.n;

	strvec_push(&kh->files, path);
	if (buf_read_file(&b, path) != 0) {
		if (errno == ENOENT)
			return 0;
		buf_release(&b);
		return prov_err_sys(err, "read '%s'", path);
	}
	knownhosts_parse(kh, file, b.buf, b.len, 0);
	buf_release(&b);
	return 0;
}

int
knownhosts_load(struct knownhosts **out, const char *path,
    struct prov_err *err)
{
	struct knownhosts	*kh = xcalloc(1, sizeof *kh);

	*out = NULL;
	kh->files = (struct strvec)STRVEC_INIT;
	kh->notes = (struct strvec)STRVEC_INIT;
	if (knownhosts_read(kh, path, err) != 0) {
		knownhosts_free(kh);
		return -1;
	}
	*out = kh;
	return 0;
}

int
knownhosts_load_more(struct knownhosts *kh, const char *path,
    struct prov_err *err)
{
	return knownhosts_read(kh, path, err);
}

static void
knownhosts_set_match(const struct knownhosts *kh, struct knownhosts_match *m,
    enum knownhosts_status st, const struct kh_line *l)
{
	knownhosts_match_release(m);
	m->status = st;
	if (l != NULL) {
		m->file = kh->files.v[l->file];
		m->line = l->line;
		m->known_type = xstrdup(l->type);
		m->known_fp = knownhosts_fingerprint(l->blob, l->bloblen);
	}
}

void
knownhosts_check(const struct knownhosts *kh, const char *const *names,
    size_t nnames, long port, const unsigned char *blob, size_t len,
    struct knownhosts_match *m)
{
	const struct kh_line	*same_type = NULL, *other_type = NULL;
	char			*type = knownhosts_blob_type(blob, len);
	size_t			 i;

	knownhosts_match_release(m);
	/* A revoked key is refused whatever else the file says. */
	for (i = 0; i < kh->n; i++) {
		const struct kh_line	*l = &kh->v[i];

		if (l->marker == KH_MARK_REVOKED && l->bloblen == len &&
		    memcmp(l->blob, blob, len) == 0 &&
		    knownhosts_line_matches_any(l, names, nnames, port)) {
			knownhosts_set_match(kh, m, KNOWNHOSTS_REVOKED, l);
			goto out;
		}
	}
	for (i = 0; i < kh->n; i++) {
		const struct kh_line	*l = &kh->v[i];

		if (l->marker != KH_MARK_NONE ||
		    !knownhosts_line_matches_any(l, names, nnames, port))
			continue;
		if (l->bloblen == len && memcmp(l->blob, blob, len) == 0) {
			knownhosts_set_match(kh, m, KNOWNHOSTS_OK, l);
			goto out;
		}
		if (type != NULL && strcmp(l->type, type) == 0) {
			if (same_type == NULL)
				same_type = l;
		} else if (other_type == NULL)
			other_type = l;
	}
	if (same_type != NULL)
		knownhosts_set_match(kh, m, KNOWNHOSTS_CHANGED, same_type);
	else if (other_type != NULL)
		knownhosts_set_match(kh, m, KNOWNHOSTS_OTHER_TYPE, other_type);
	else
		knownhosts_set_match(kh, m, KNOWNHOSTS_NEW, NULL);
out:
	free(type);
}

void
knownhosts_types(const struct knownhosts *kh, const char *const *names,
    size_t nnames, long port, struct strvec *out)
{
	size_t	i;

	for (i = 0; i < kh->n; i++) {
		const struct kh_line	*l = &kh->v[i];

		if (l->marker != KH_MARK_NONE ||
		    !knownhosts_line_matches_any(l, names, nnames, port))
			continue;
		if (strvec_find(out, l->type) < 0)
			strvec_push(out, l->type);
	}
}

/* Drop the lines read from file 0, to read it again. */
static void
knownhosts_forget_first(struct knownhosts *kh)
{
	size_t	i, j = 0;

	for (i = 0; i < kh->n; i++) {
		if (kh->v[i].file == 0)
			knownhosts_line_release(&kh->v[i]);
		else
			kh->v[j++] = kh->v[i];
	}
	kh->n = j;
}

static int
knownhosts_open_locked(const char *path, struct prov_err *err)
{
	int	fd;

	fd = open(path, O_RDWR | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
	if (fd < 0 && errno == ENOENT) {
		char	*d = xstrdup(path);

		if (mkdir(dirname(d), 0700) != 0 && errno != EEXIST) {
			prov_err_sys(err, "create directory of '%s'", path);
			free(d);
			return -1;
		}
		free(d);
		fd = open(path, O_RDWR | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
	}
	if (fd < 0) {
		prov_err_sys(err, "open '%s'", path);
		return -1;
	}
	while (flock(fd, LOCK_EX) != 0) {
		if (errno != EINTR) {
			prov_err_sys(err, "lock '%s'", path);
			close(fd);
			return -1;
		}
	}
	return fd;
}

/* Read the whole of fd from offset 0 into b. */
static int
knownhosts_pread_all(int fd, struct buf *b)
{
	char	chunk[65536];
	off_t	off = 0;
	ssize_t	n;

	for (;;) {
		n = pread(fd, chunk, sizeof chunk, off);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		if (n == 0)
			return 0;
		buf_add(b, chunk, (size_t)n);
		off += n;
	}
}

int
knownhosts_add(struct knownhosts *kh, const char *const *names, size_t nnames,
    long port, const unsigned char *blob, size_t len,
    struct knownhosts_match *m, struct prov_err *err)
{
	struct buf	 cur = BUF_INIT, line = BUF_INIT;
	const char	*path = kh->files.v[0];
	char		*type = NULL, *b64 = NULL;
	size_t		 i, j;
	int		 fd = -1, r = -1;

	type = knownhosts_blob_type(blob, len);
	if (type == NULL) {
		prov_err_set(err, PROV_E_HOSTKEY, "malformed host key");
		goto out;
	}
	if ((fd = knownhosts_open_locked(path, err)) < 0)
		goto out;
	if (knownhosts_pread_all(fd, &cur) != 0) {
		prov_err_sys(err, "read '%s'", path);
		goto out;
	}
	/* Another process may have written the host meanwhile: look again. */
	knownhosts_forget_first(kh);
	knownhosts_parse(kh, 0, cur.buf, cur.len, 1);
	knownhosts_check(kh, names, nnames, port, blob, len, m);
	if (m->status != KNOWNHOSTS_NEW) {
		r = 0;
		goto out;
	}
	if (cur.len > 0 && cur.buf[cur.len - 1] != '\n')
		buf_addch(&line, '\n');
	for (i = 0; i < nnames; i++) {
		char	*h = knownhosts_hostname(names[i], port);

		for (j = 0; j < i; j++)
			if (strcasecmp(names[i], names[j]) == 0)
				break;
		if (j == i) {
			if (i > 0)
				buf_addch(&line, ',');
			buf_adds(&line, h);
		}
		free(h);
	}
	b64 = knownhosts_b64enc(blob, len, 1);
	buf_addf(&line, " %s %s\n", type, b64);
	if (fs_write_all(fd, line.buf, line.len) != 0 ||
	    fsync(fd) != 0) {
		prov_err_sys(err, "write '%s'", path);
		goto out;
	}
	{
		size_t		 start = line.buf[0] == '\n' ? 1 : 0;
		unsigned	 lineno = 1;
		const char	*p;

		for (p = cur.buf; p < cur.buf + cur.len; p++)
			if (*p == '\n')
				lineno++;
		if (cur.len > 0 && cur.buf[cur.len - 1] == '\n')
			lineno--;
		lineno++;
		line.buf[line.len - 1] = '\0';
		knownhosts_parse_line(kh, 0, cur.len == 0 ? 1 : lineno,
		    line.buf + start, 1);
	}
	knownhosts_check(kh, names, nnames, port, blob, len, m);
	r = 0;
out:
	if (fd >= 0)
		close(fd);			/* releases the lock */
	buf_release(&cur);
	buf_release(&line);
	free(type);
	free(b64);
	return r;
}

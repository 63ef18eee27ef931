/*
 * redact.c: secrets out of captured output.  See redact.h.
 *
 * Known values are found with memmem(), then the shapes by a scan each in
 * what is left.  Every match becomes a byte range; overlapping ranges
 * merge, and each merged range is replaced by one REDACT_MARK.
 */
#include "compat.h"

#include <openssl/evp.h>

#include "buf.h"
#include "redact.h"

/* The longest shape: "certificate-key", separators and 64 hex digits. */
#define REDACT_SHAPE_SPAN	128
#define REDACT_B64_LINE		76	/* base64(1)'s wrap */
#define REDACT_TOKEN_LEN	23	/* [a-z0-9]{6} . [a-z0-9]{16} */
#define REDACT_KEY_HEX		64
/* A node declaring value after value costs every line a scan each. */
#define REDACT_MAX_VALUES	4096

struct redact_range {
	size_t	a, b;		/* [a, b) */
};

struct redact_ranges {
	struct redact_range	*v;
	size_t			 n, alloc;
};

static void
redact_needle(struct redact *r, const char *p, size_t len)
{
	size_t	i;

	if (len < REDACT_MIN || r->n >= REDACT_MAX_VALUES)
		return;
	for (i = 0; i < r->n; i++)
		if (r->v[i].len == len && memcmp(r->v[i].buf, p, len) == 0)
			return;
	ALLOC_GROW(r->v, r->n + 1, r->alloc);
	r->v[r->n] = (struct buf)BUF_INIT;
	buf_add(&r->v[r->n], p, len);
	r->n++;
	if (len > r->maxlen)
		r->maxlen = len;
}

void
redact_add(struct redact *r, const void *secret, size_t len)
{
	const char	*s = secret, *end = s + len, *p, *nl;
	struct buf	 enc = BUF_INIT;
	size_t		 i;

	if (len < REDACT_MIN)
		return;
	/* A value with line breaks is printed a line at a time. */
	if (memchr(s, '\n', len) == NULL && memchr(s, '\r', len) == NULL)
		redact_needle(r, s, len);
	else
		for (p = s; p < end; p = nl + 1) {
			nl = p;
			while (nl < end && *nl != '\n' && *nl != '\r')
				nl++;
			redact_needle(r, p, (size_t)(nl - p));
		}
	/* base64, whole and as base64(1) wraps it */
	buf_grow(&enc, 4 * ((len + 2) / 3) + 1);
	buf_setlen(&enc, (size_t)EVP_EncodeBlock((unsigned char *)enc.buf,
	    (const unsigned char *)s, (int)len));
	redact_needle(r, enc.buf, enc.len);
	if (enc.len > REDACT_B64_LINE)
		for (i = 0; i < enc.len; i += REDACT_B64_LINE)
			redact_needle(r, enc.buf + i, enc.len - i <
			    REDACT_B64_LINE ? enc.len - i : REDACT_B64_LINE);
	buf_release_secret(&enc);
	for (i = 0; i < len; i++)
		buf_addf(&enc, "%02x", (unsigned char)s[i]);
	redact_needle(r, enc.buf, enc.len);
	buf_release_secret(&enc);
}

void
redact_add_args(struct redact *r, const char *text, const char *const *opts)
{
	size_t	i, ol, vl;

	for (i = 0; opts[i] != NULL; i++) {
		const char	*p = text;

		ol = strlen(opts[i]);
		while ((p = strstr(p, opts[i])) != NULL) {
			p += ol;
			if (*p != ' ' && *p != '=' && *p != '\t')
				continue;
			while (*p == ' ' || *p == '=' || *p == '\t')
				p++;
			vl = strcspn(p, " \t\r\n\\");
			redact_add(r, p, vl);
			p += vl;
		}
	}
}

static void
redact_range_add(struct redact_ranges *rs, size_t a, size_t b)
{
	ALLOC_GROW(rs->v, rs->n + 1, rs->alloc);
	rs->v[rs->n].a = a;
	rs->v[rs->n].b = b;
	rs->n++;
}

static int
redact_lower_alnum(int c)
{
	return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
}

static int
redact_hex(int c)
{
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') ||
	    (c >= 'A' && c <= 'F');
}

/* n characters of class `ok` at p. */
static int
redact_run(const char *p, size_t n, int (*ok)(int))
{
	size_t	i;

	for (i = 0; i < n; i++)
		if (!ok((unsigned char)p[i]))
			return 0;
	return 1;
}

/* kubeadm bootstrap tokens: [a-z0-9]{6}.[a-z0-9]{16}, not inside a word. */
static void
redact_tokens(const struct buf *b, struct redact_ranges *rs)
{
	const char	*s = b->buf;
	size_t		 i;

	for (i = 0; i + REDACT_TOKEN_LEN <= b->len; i++) {
		if (s[i + 6] != '.')
			continue;
		if (i > 0 && (redact_lower_alnum((unsigned char)s[i - 1]) ||
		    s[i - 1] == '.'))
			continue;
		if (i + REDACT_TOKEN_LEN < b->len &&
		    redact_lower_alnum((unsigned char)s[i + REDACT_TOKEN_LEN]))
			continue;
		if (redact_run(s + i, 6, redact_lower_alnum) &&
		    redact_run(s + i + 7, 16, redact_lower_alnum)) {
			redact_range_add(rs, i, i + REDACT_TOKEN_LEN);
			i += REDACT_TOKEN_LEN - 1;
		}
	}
}

/* 64 hex digits at p (and no more): a certificate key. */
static int
redact_key_at(const struct buf *b, size_t at)
{
	return at + REDACT_KEY_HEX <= b->len &&
	    redact_run(b->buf + at, REDACT_KEY_HEX, redact_hex) &&
	    (at + REDACT_KEY_HEX == b->len ||
	    !redact_hex((unsigned char)b->buf[at + REDACT_KEY_HEX]));
}

/*
 * kubeadm certificate keys: after "certificate-key" or "certificate key"
 * (`--certificate-key K`, "Using certificate key:\nK"), or a line of 64
 * hex digits alone.
 */
static void
redact_cert_keys(const struct buf *b, struct redact_ranges *rs)
{
	static const char	kw[] = "certificate";
	const char		*s = b->buf;
	size_t			 i, j, k, ls;

	for (i = 0; i + sizeof kw + 3 <= b->len; i++) {
		if (strncasecmp(s + i, kw, sizeof kw - 1) != 0)
			continue;
		j = i + sizeof kw - 1;
		if ((s[j] != '-' && s[j] != ' ') ||
		    strncasecmp(s + j + 1, "key", 3) != 0)
			continue;
		j += 4;
		for (k = 0; k < 8 && j < b->len && strchr(" \t\r\n:=\"'",
		    s[j]) != NULL && s[j] != '\0'; k++)
			j++;
		if (redact_key_at(b, j))
			redact_range_add(rs, j, j + REDACT_KEY_HEX);
	}
	for (ls = 0; ls < b->len; ls = i + 1) {
		const char	*nl = memchr(s + ls, '\n', b->len - ls);

		i = nl != NULL ? (size_t)(nl - s) : b->len;
		j = ls;
		k = i;
		while (j < k && (s[j] == ' ' || s[j] == '\t'))
			j++;
		while (k > j && (s[k - 1] == ' ' || s[k - 1] == '\t' ||
		    s[k - 1] == '\r'))
			k--;
		if (k - j == REDACT_KEY_HEX && redact_key_at(b, j))
			redact_range_add(rs, j, k);
	}
}

static int
redact_range_cmp(const void *x, const void *y)
{
	const struct redact_range	*a = x, *b = y;

	return a->a < b->a ? -1 : a->a > b->a;
}

/* Replace the ranges of rs (sorted, merged here) in b; how many marks. */
static size_t
redact_apply(struct redact_ranges *rs, struct buf *b)
{
	struct buf	out = BUF_INIT;
	size_t		i, at = 0, end, count = 0;

	if (rs->n == 0)
		return 0;
	qsort(rs->v, rs->n, sizeof *rs->v, redact_range_cmp);
	for (i = 0; i < rs->n; ) {
		end = rs->v[i].b;
		buf_add(&out, b->buf + at, rs->v[i].a - at);
		while (++i < rs->n && rs->v[i].a <= end)
			if (rs->v[i].b > end)
				end = rs->v[i].b;
		buf_adds(&out, REDACT_MARK);
		at = end;
		count++;
	}
	buf_add(&out, b->buf + at, b->len - at);
	/* the old bytes held the secrets */
	buf_release_secret(b);
	*b = out;
	rs->n = 0;
	return count;
}

/*
 * The known values first, then the shapes in what is left: a value cut
 * out of a word leaves the rest to be judged as it now stands.
 */
size_t
redact_buf(const struct redact *r, struct buf *b)
{
	struct redact_ranges	 rs = { NULL, 0, 0 };
	size_t			 i, count;

	for (i = 0; i < r->n; i++) {
		const char	*p = b->buf, *e = b->buf + b->len, *m;

		while ((m = memmem(p, (size_t)(e - p), r->v[i].buf,
		    r->v[i].len)) != NULL) {
			redact_range_add(&rs, (size_t)(m - b->buf),
			    (size_t)(m - b->buf) + r->v[i].len);
			p = m + r->v[i].len;
		}
	}
	count = redact_apply(&rs, b);
	redact_tokens(b, &rs);
	redact_cert_keys(b, &rs);
	count += redact_apply(&rs, b);
	free(rs.v);
	return count;
}

size_t
redact_span(const struct redact *r)
{
	return r->maxlen > REDACT_SHAPE_SPAN ? r->maxlen : REDACT_SHAPE_SPAN;
}

void
redact_release(struct redact *r)
{
	size_t	i;

	if (r == NULL)
		return;
	for (i = 0; i < r->n; i++)
		buf_release_secret(&r->v[i]);
	free(r->v);
	r->v = NULL;
	r->n = r->alloc = r->maxlen = 0;
}

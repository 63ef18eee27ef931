/*
 * buf.c: growable NUL-terminated byte strings.  See buf.h.
 */
#include "compat.h"

#include <fcntl.h>
#include <libgen.h>
#include <sys/stat.h>

#include "buf.h"
#include "fs.h"

/* Shared empty string for BUF_INIT: never written, since alloc is 0. */
char buf_empty_[1];

void
buf_init(struct buf *b, size_t hint)
{
	b->buf = buf_empty_;
	b->len = b->alloc = b->max = 0;
	b->truncated = 0;
	if (hint)
		buf_grow(b, hint);
}

void
buf_release(struct buf *b)
{
	if (b->alloc)
		free(b->buf);
	buf_init(b, 0);
}

void
buf_release_secret(struct buf *b)
{
	if (b->alloc)
		explicit_bzero(b->buf, b->alloc);
	buf_release(b);
}

void
buf_reset(struct buf *b)
{
	buf_setlen(b, 0);
	b->truncated = 0;
}

char *
buf_detach(struct buf *b, size_t *len)
{
	char	*p;

	if (len != NULL)
		*len = b->len;
	p = b->alloc ? b->buf : xcalloc(1, 1);
	buf_init(b, 0);
	return p;
}

void
buf_grow(struct buf *b, size_t extra)
{
	size_t	need, na;

	if (extra > SIZE_MAX - b->len - 1)
		abort();
	need = b->len + extra + 1;
	if (need <= b->alloc)
		return;
	na = b->alloc ? b->alloc : 64;
	while (na < need)
		na = na < SIZE_MAX / 2 ? na * 2 : need;
	if (b->alloc == 0) {
		b->buf = xmalloc(na);
		b->buf[0] = '\0';
	} else
		b->buf = xrealloc(b->buf, na);
	b->alloc = na;
}

void
buf_setlen(struct buf *b, size_t len)
{
	if (b->alloc == 0)
		return;
	if (len >= b->alloc)
		abort();
	b->len = len;
	b->buf[len] = '\0';
}

void
buf_add(struct buf *b, const void *p, size_t n)
{
	if (b->max && b->len + n > b->max) {
		b->truncated = 1;
		n = b->len < b->max ? b->max - b->len : 0;
	}
	if (n == 0)
		return;
	buf_grow(b, n);
	memcpy(b->buf + b->len, p, n);
	b->len += n;
	b->buf[b->len] = '\0';
}

void
buf_adds(struct buf *b, const char *s)
{
	buf_add(b, s, strlen(s));
}

void
buf_addch(struct buf *b, int c)
{
	char	ch = (char)c;

	buf_add(b, &ch, 1);
}

void
buf_vaddf(struct buf *b, const char *fmt, va_list ap)
{
	va_list	ap2;
	int	n;
	char	small[256];

	va_copy(ap2, ap);
	n = vsnprintf(small, sizeof small, fmt, ap2);
	va_end(ap2);
	if (n < 0)
		return;
	if ((size_t)n < sizeof small) {
		buf_add(b, small, (size_t)n);
		return;
	}
	if (b->max) {
		char	*tmp = xmalloc((size_t)n + 1);

		vsnprintf(tmp, (size_t)n + 1, fmt, ap);
		buf_add(b, tmp, (size_t)n);
		free(tmp);
		return;
	}
	buf_grow(b, (size_t)n);
	vsnprintf(b->buf + b->len, (size_t)n + 1, fmt, ap);
	b->len += (size_t)n;
}

void
buf_addf(struct buf *b, const char *fmt, ...)
{
	va_list	ap;

	va_start(ap, fmt);
	buf_vaddf(b, fmt, ap);
	va_end(ap);
}

void
buf_add_shquote(struct buf *b, const char *s)
{
	const char	*q;

	/* whole runs between quotes: apply quotes scripts of 30 kB */
	buf_addch(b, '\'');
	while ((q = strchr(s, '\'')) != NULL) {
		buf_add(b, s, (size_t)(q - s));
		buf_adds(b, "'\\''");
		s = q + 1;
	}
	buf_adds(b, s);
	buf_addch(b, '\'');
}

size_t
buf_utf8_len(const unsigned char *p, uint32_t *cp)
{
	uint32_t	c, min;
	size_t		n, i;

	if (p[0] < 0x80) {
		*cp = p[0];
		return 1;
	}
	if ((p[0] & 0xe0) == 0xc0) {
		n = 2;
		c = p[0] & 0x1f;
		min = 0x80;
	} else if ((p[0] & 0xf0) == 0xe0) {
		n = 3;
		c = p[0] & 0x0f;
		min = 0x800;
	} else if ((p[0] & 0xf8) == 0xf0) {
		n = 4;
		c = p[0] & 0x07;
		min = 0x10000;
	} else
		return 0;
	for (i = 1; i < n; i++) {
		if ((p[i] & 0xc0) != 0x80)
			return 0;
		c = c << 6 | (p[i] & 0x3f);
	}
	if (c < min || c > 0x10ffff || (c >= 0xd800 && c <= 0xdfff))
		return 0;
	*cp = c;
	return n;
}

void
buf_add_visible(struct buf *b, const char *s, size_t len, const char *keep)
{
	const unsigned char	*p = (const unsigned char *)s;
	uint32_t		 cp;
	size_t			 i, n, need;

	for (i = 0; i < len; i += n) {
		/* the longest sequence p[i] starts must lie within len */
		need = p[i] < 0xc0 ? 1 : p[i] < 0xe0 ? 2 : p[i] < 0xf0 ? 3 : 4;
		n = need <= len - i ? buf_utf8_len(p + i, &cp) : 0;
		if (n == 0 || n > len - i) {
			buf_addf(b, "\\x%02x", p[i]);
			n = 1;
		} else if (cp == '\\')
			buf_adds(b, "\\\\");
		else if ((cp < 0x20 || cp == 0x7f) && (cp == 0 ||
		    keep == NULL || strchr(keep, (int)cp) == NULL))
			buf_addf(b, "\\x%02x", (unsigned)cp);
		else if (cp >= 0x80 && cp <= 0x9f)
			buf_addf(b, "\\u%04x", (unsigned)cp);
		else
			buf_add(b, p + i, n);
	}
}

void
buf_add_html(struct buf *b, const char *s)
{
	for (; *s != '\0'; s++) {
		switch (*s) {
		case '<':
			buf_adds(b, "&lt;");
			break;
		case '>':
			buf_adds(b, "&gt;");
			break;
		case '&':
			buf_adds(b, "&amp;");
			break;
		case '"':
			buf_adds(b, "&quot;");
			break;
		case '\'':
			buf_adds(b, "&#39;");
			break;
		default:
			buf_addch(b, *s);
		}
	}
}

void
buf_rtrim(struct buf *b)
{
	size_t	n = b->len;

	while (n > 0 && (b->buf[n - 1] == ' ' || b->buf[n - 1] == '\t' ||
	    b->buf[n - 1] == '\n' || b->buf[n - 1] == '\r'))
		n--;
	buf_setlen(b, n);
}

int
buf_read_file(struct buf *b, const char *path)
{
	char	chunk[65536];
	ssize_t	n;
	int	fd, saved;

	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return -1;
	for (;;) {
		n = read(fd, chunk, sizeof chunk);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			saved = errno;
			close(fd);
			errno = saved;
			return -1;
		}
		if (n == 0)
			break;
		buf_add(b, chunk, (size_t)n);
	}
	close(fd);
	return 0;
}

int
buf_write_file_atomic(const char *path, const void *p, size_t len, int mode)
{
	char	*tmp = NULL, *dcopy = NULL;
	int	 fd = -1, dfd = -1, r = -1, saved = 0;

	/* A fresh random name, never through a link (fs.h). */
	if ((fd = fs_tmp_open(&tmp, path, mode)) < 0)
		goto out;
	if (fs_write_all(fd, p, len) != 0)
		goto out;
	if (fchmod(fd, (mode_t)mode) != 0 || fsync(fd) != 0)
		goto out;
	if (close(fd) != 0) {
		fd = -1;
		goto out;
	}
	fd = -1;
	if (rename(tmp, path) != 0)
		goto out;
	free(tmp);
	tmp = NULL;
	dcopy = xstrdup(path);
	if ((dfd = open(dirname(dcopy), O_RDONLY | O_DIRECTORY)) >= 0) {
		(void)fsync(dfd);
		close(dfd);
	}
	r = 0;
out:
	saved = errno;
	if (fd >= 0)
		close(fd);
	if (tmp != NULL) {
		(void)unlink(tmp);
		free(tmp);
	}
	free(dcopy);
	errno = saved;
	return r;
}

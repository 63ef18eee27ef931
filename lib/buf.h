/*
 * buf.h: growable byte strings (after git's strbuf).
 *
 * A `struct buf` starts as BUF_INIT and is always NUL-terminated: `b.buf`
 * is never NULL and may be passed to any string function.  Append with
 * buf_add*(); take the bytes out with buf_detach() (the caller then owns
 * them); give the memory back with buf_release().
 *
 * `max`, when non-zero, caps how many bytes the buffer holds: appends past
 * it are dropped and `truncated` is set.  Remote output and HTTP bodies use
 * it so one noisy node cannot exhaust memory.
 */
#ifndef PROV_BUF_H
#define PROV_BUF_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

struct buf {
	char	*buf;
	size_t	 len;
	size_t	 alloc;
	size_t	 max;
	int	 truncated;
};

extern char buf_empty_[];
#define BUF_INIT { buf_empty_, 0, 0, 0, 0 }

void	 buf_init(struct buf *, size_t hint);
void	 buf_release(struct buf *);
/* Like buf_release() but wipes the bytes first: for secrets. */
void	 buf_release_secret(struct buf *);
void	 buf_reset(struct buf *);
/* Hand the bytes to the caller (who frees them); the buf is reset. */
char	*buf_detach(struct buf *, size_t *len);
void	 buf_grow(struct buf *, size_t extra);
void	 buf_setlen(struct buf *, size_t);

void	 buf_add(struct buf *, const void *, size_t);
void	 buf_adds(struct buf *, const char *);
void	 buf_addch(struct buf *, int);
void	 buf_addf(struct buf *, const char *, ...)
	    __attribute__((format(printf, 2, 3)));
void	 buf_vaddf(struct buf *, const char *, va_list)
	    __attribute__((format(printf, 2, 0)));
/* Append `s` quoted for a POSIX shell: 'it'\''s' (git sq_quote_buf). */
void	 buf_add_shquote(struct buf *, const char *s);
/*
 * Append `len` bytes of text from elsewhere (a node, a lock's owner file)
 * so that it shows as what it is on a terminal: control characters, DEL
 * and bytes that are not UTF-8 as \xHH, C1 controls as \uHHHH, a
 * backslash as \\.  Control characters in `keep` ("\n\t", or NULL for
 * none) pass as they are.
 */
void	 buf_add_visible(struct buf *, const char *s, size_t len,
	    const char *keep);
/*
 * Length (1-4) of the well-formed UTF-8 sequence at p, its code point in
 * *cp; 0 when p starts none: a stray or cut-short byte, an overlong
 * form, a surrogate or past U+10FFFF.  Stops at a NUL, which is never a
 * continuation byte.
 */
size_t	 buf_utf8_len(const unsigned char *p, uint32_t *cp);
/* Append `s` escaped for HTML text and attribute values. */
void	 buf_add_html(struct buf *, const char *s);
/* Strip trailing whitespace. */
void	 buf_rtrim(struct buf *);

/* Read a whole file; -1 with errno set on failure. */
int	 buf_read_file(struct buf *, const char *path);
/*
 * Write `len` bytes to `path` atomically: a temporary file beside it
 * (fs_tmp_open(): a random name, never an existing file or a link), fsync,
 * rename, fsync of the directory.  Readers see the old or the new file,
 * never a torn one.  -1 with errno set on failure.
 */
int	 buf_write_file_atomic(const char *path, const void *, size_t len,
	    int mode);

#endif

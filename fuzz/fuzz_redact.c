/*
 * fuzz_redact.c: the apply engine's redaction of node output.
 *
 * The input is "SECRET\nSECRET\n...\n\nTEXT": up to 8 values (a line
 * each, up to an empty line) that redact_add() learns, then the output
 * of a node.  Invariants: after redact_buf() no learned value (of at
 * least REDACT_MIN bytes, without the mark's brackets) is left in the
 * text, nor anything kubeadm-token-shaped; a second pass replaces
 * nothing; the text only shrinks to marks, never grows past one mark per
 * byte; and text without a learned value or a shape comes back as it
 * was.
 */
#include "compat.h"

#include "buf.h"
#include "redact.h"

#include "fuzz.h"

#define FUZZ_REDACT_VALUES	8

int	LLVMFuzzerTestOneInput(const uint8_t *, size_t);

/* A kubeadm token shape [a-z0-9]{6}.[a-z0-9]{16} not inside a word. */
static int
fuzz_redact_has_token(const struct buf *b)
{
	size_t	i, k;

	for (i = 0; i + 23 <= b->len; i++) {
		int	ok = b->buf[i + 6] == '.';

		for (k = 0; ok && k < 23; k++)
			if (k != 6 && !((b->buf[i + k] >= 'a' &&
			    b->buf[i + k] <= 'z') || (b->buf[i + k] >= '0' &&
			    b->buf[i + k] <= '9')))
				ok = 0;
		if (!ok)
			continue;
		if (i > 0 && ((b->buf[i - 1] >= 'a' && b->buf[i - 1] <= 'z') ||
		    (b->buf[i - 1] >= '0' && b->buf[i - 1] <= '9') ||
		    b->buf[i - 1] == '.'))
			continue;
		if (i + 23 < b->len && ((b->buf[i + 23] >= 'a' &&
		    b->buf[i + 23] <= 'z') || (b->buf[i + 23] >= '0' &&
		    b->buf[i + 23] <= '9')))
			continue;
		return 1;
	}
	return 0;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct redact	 r = REDACT_INIT;
	struct buf	 b = BUF_INIT, orig = BUF_INIT;
	const char	*p = (const char *)data, *end = p + size, *nl;
	const char	*vals[FUZZ_REDACT_VALUES];
	size_t		 lens[FUZZ_REDACT_VALUES], nv = 0, i, n;

	while (p < end && nv < FUZZ_REDACT_VALUES) {
		nl = memchr(p, '\n', (size_t)(end - p));
		if (nl == NULL || nl == p) {
			if (nl == p)
				p++;
			break;
		}
		vals[nv] = p;
		lens[nv] = (size_t)(nl - p);
		redact_add(&r, p, lens[nv]);
		nv++;
		p = nl + 1;
	}
	buf_add(&b, p, (size_t)(end - p));
	buf_add(&orig, p, (size_t)(end - p));
	n = redact_buf(&r, &b);
	for (i = 0; i < nv; i++)
		if (lens[i] >= REDACT_MIN &&
		    memchr(vals[i], '[', lens[i]) == NULL &&
		    memchr(vals[i], ']', lens[i]) == NULL &&
		    memchr(vals[i], '\r', lens[i]) == NULL)
			FUZZ_ASSERT(memmem(b.buf, b.len, vals[i],
			    lens[i]) == NULL);
	FUZZ_ASSERT(!fuzz_redact_has_token(&b));
	FUZZ_ASSERT(b.len <= orig.len * strlen(REDACT_MARK) + 1);
	if (n == 0)
		FUZZ_ASSERT(b.len == orig.len &&
		    memcmp(b.buf, orig.buf, b.len) == 0);
	/* a value holding part of the mark may meet it again */
	for (i = 0; i < nv; i++)
		if (memchr(vals[i], '[', lens[i]) != NULL ||
		    memchr(vals[i], ']', lens[i]) != NULL)
			break;
	if (i == nv)
		FUZZ_ASSERT(redact_buf(&r, &b) == 0);
	buf_release(&b);
	buf_release(&orig);
	redact_release(&r);
	return 0;
}

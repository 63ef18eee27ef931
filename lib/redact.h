/*
 * redact.h: secrets out of captured output.
 *
 * The apply engine keeps one `struct redact` per run: every secret it
 * knows (the munge key and the kubeadm join token it carries from the
 * head, the plan's BMC passwords, whatever a step declares with
 * lib.sh's prov_secret) goes in, and every byte a node prints passes
 * through redact_buf() before it is logged, shown or stored.  Besides
 * the known values, the shapes of well-known secrets are replaced
 * wherever they appear, so that one a step prints before the engine
 * learns it is caught too:
 *
 *	kubeadm bootstrap tokens	[a-z0-9]{6}.[a-z0-9]{16}
 *	kubeadm certificate keys	64 hex digits after "certificate-key"
 *					or "certificate key", or alone on a
 *					line
 *
 * (A CA certificate hash, "sha256:" and 64 hex digits, is public and is
 * left alone.)
 *
 *	struct redact r = REDACT_INIT;
 *	redact_add(&r, value, len);		the value, its base64 and hex
 *	redact_add_args(&r, "kubeadm join ... --token T ...", opts);
 *	redact_buf(&r, &b);			in place
 *	redact_release(&r);			wiped
 *
 * A value cut in two by the way output arrives is not found: callers
 * hold back the last redact_span() - 1 bytes of a stream (the apply
 * engine holds whole lines) until more comes or the stream ends.
 */
#ifndef PROV_REDACT_H
#define PROV_REDACT_H

#include <stddef.h>

struct buf;

#define REDACT_MARK	"[redacted]"
#define REDACT_MIN	6	/* shorter values are not worth hiding */

struct redact {
	struct buf	*v;		/* the needles, wiped on release */
	size_t		 n, alloc;
	size_t		 maxlen;
};

#define REDACT_INIT { NULL, 0, 0, 0 }

/*
 * Hide `len` bytes of `secret` from now on: the bytes themselves (each
 * line of them, for a value with newlines), their base64 (whole, and as
 * 76-column lines) and their lower-case hex.  Values shorter than
 * REDACT_MIN are ignored, and so is anything past a few thousand values
 * (a node declaring secrets without end must not slow every line down;
 * the shapes are still found).
 */
void	redact_add(struct redact *, const void *secret, size_t len);

/*
 * Hide the values that follow each option of `opts` (NULL-terminated,
 * e.g. "--token") in a command line `text`: "--token T" and "--token=T".
 */
void	redact_add_args(struct redact *, const char *text,
	    const char *const *opts);

/* Replace every known value and secret shape in `b`; how many. */
size_t	redact_buf(const struct redact *, struct buf *b);

/* The longest text redact_buf() can match: what a stream holds back. */
size_t	redact_span(const struct redact *);

void	redact_release(struct redact *);

#endif

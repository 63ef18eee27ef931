/*
 * knownhosts.h: OpenSSH known_hosts files: read, match, append.
 *
 * A file holds one key per line:
 *
 *	[@revoked|@cert-authority] HOSTS KEYTYPE BASE64 [COMMENT]
 *
 * HOSTS is a comma list of names or patterns (`*`, `?`, `!negated`), a
 * name with a port other than 22 written `[host]:port`, or one hashed
 * entry `|1|base64(salt)|base64(HMAC-SHA1(salt, name))` as
 * `ssh-keygen -H` writes it.  A host may have several keys (one per
 * type, or more).  `@revoked` keys are refused for the hosts they match;
 * `@cert-authority` lines are skipped with a note (host certificates are
 * not supported).  Lines this module cannot read are skipped with a note,
 * as OpenSSH skips them.
 *
 * Use:
 *
 *	struct knownhosts	*kh = NULL;
 *	struct knownhosts_match	 m = KNOWNHOSTS_MATCH_INIT;
 *	const char		*names[] = { "gpu01", "192.0.2.11" };
 *
 *	if (knownhosts_load(&kh, path, &err) != 0)
 *		...
 *	knownhosts_check(kh, names, 2, 22, blob, bloblen, &m);
 *	switch (m.status) { case KNOWNHOSTS_OK: ... }
 *	knownhosts_match_release(&m);
 *	knownhosts_free(kh);
 *
 * A missing file loads as empty.  The first file loaded is the one
 * knownhosts_add() writes; more (e.g. /etc/ssh/ssh_known_hosts) can be
 * added read-only with knownhosts_load_more().  The module never prints:
 * notes are kept for the caller (knownhosts_notes()).
 */
#ifndef PROV_KNOWNHOSTS_H
#define PROV_KNOWNHOSTS_H

#include <stddef.h>

struct prov_err;
struct strvec;
struct knownhosts;

enum knownhosts_status {
	KNOWNHOSTS_OK = 0,	/* a line for the host holds this key */
	KNOWNHOSTS_NEW,		/* no line for the host */
	KNOWNHOSTS_CHANGED,	/* lines for the host hold other keys of this type */
	KNOWNHOSTS_OTHER_TYPE,	/* lines for the host hold keys of other types only */
	KNOWNHOSTS_REVOKED,	/* an @revoked line matches the host and key */
};

/* The outcome of a check; `file` is borrowed from the knownhosts. */
struct knownhosts_match {
	enum knownhosts_status	 status;
	const char		*file;		/* the deciding line, or NULL */
	unsigned		 line;
	char			*known_type;	/* its key type ("ssh-ed25519") */
	char			*known_fp;	/* its SHA256:... fingerprint */
};

#define KNOWNHOSTS_MATCH_INIT { KNOWNHOSTS_NEW, NULL, 0, NULL, NULL }

/* Parse `path` (missing: empty).  -1 only when it exists but cannot be read. */
int	 knownhosts_load(struct knownhosts **out, const char *path,
	    struct prov_err *err);
/* Add the lines of another file, used for checks but never written. */
int	 knownhosts_load_more(struct knownhosts *, const char *path,
	    struct prov_err *err);
void	 knownhosts_free(struct knownhosts *);

/* Notes about skipped lines, "FILE:LINE: ...", in file order (borrowed). */
const struct strvec *knownhosts_notes(const struct knownhosts *);
/* Number of key lines loaded (revoked ones included). */
size_t	 knownhosts_count(const struct knownhosts *);

/*
 * Check the key `blob` (the SSH wire form: string type, then the key)
 * offered by a host known under any of `names` (e.g. node name and
 * address), reached on `port`.  The key is acceptable only for
 * KNOWNHOSTS_OK.  When several lines match, a line holding the key wins,
 * unless an @revoked line holds it.  Fills *m (release it after).
 */
void	 knownhosts_check(const struct knownhosts *, const char *const *names,
	    size_t nnames, long port, const unsigned char *blob, size_t len,
	    struct knownhosts_match *m);

/*
 * Append the key for `names` (written as one comma list, `[n]:port` when
 * port is not 22) to the first file, for accept-new.  Under an exclusive
 * flock(2) on the file it re-reads it, and appends only when the host is
 * still KNOWNHOSTS_NEW: a key another process added meanwhile is checked
 * instead, and a changed key is never overwritten.  The file (and its
 * directory, mode 0700) is created when missing.  *m gets the outcome of
 * that re-check: KNOWNHOSTS_OK after an append.  -1 when the file cannot
 * be written.
 */
int	 knownhosts_add(struct knownhosts *, const char *const *names,
	    size_t nnames, long port, const unsigned char *blob, size_t len,
	    struct knownhosts_match *m, struct prov_err *err);

/*
 * Key types known for a host, in file order, once each, revoked lines
 * excluded: appended to `out` (used to prefer those host key algorithms).
 */
void	 knownhosts_types(const struct knownhosts *, const char *const *names,
	    size_t nnames, long port, struct strvec *out);

void	 knownhosts_match_release(struct knownhosts_match *);

/* "SHA256:" + unpadded base64 of the key's SHA-256, as OpenSSH prints it. */
char	*knownhosts_fingerprint(const unsigned char *blob, size_t len);
/*
 * The key type named inside a wire-form key ("ssh-ed25519"), or NULL when
 * the blob is malformed.  The caller frees.
 */
char	*knownhosts_blob_type(const unsigned char *blob, size_t len);
/* "ED25519", "ECDSA", "RSA" ... as OpenSSH shows key types to people. */
const char *knownhosts_type_label(const char *keytype);
/*
 * 1 when `s` is one OpenSSH public key line without options, as
 * authorized_keys holds it: TYPE BASE64 [COMMENT], one space apart, whose
 * key blob decodes and names TYPE, and a comment of [A-Za-z0-9._@+:-].
 */
int	 knownhosts_pubkey_ok(const char *s);
/*
 * Name a host the way known_hosts does: `host`, or `[host]:port` when the
 * port is not 22.  The caller frees.
 */
char	*knownhosts_hostname(const char *host, long port);
/* Match one host name against a pattern with `*` and `?` (no lists). */
int	 knownhosts_pattern_match(const char *name, const char *pattern);

#endif

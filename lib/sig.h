/*
 * sig.h: ed25519 keys and signatures (OpenSSL's libcrypto), for signed
 * offline bundles (docs/bundle.md).
 *
 * Keys are PEM files as OpenSSL writes them:
 *
 *	openssl genpkey -algorithm ed25519 -out bundle.key	(private)
 *	openssl pkey -in bundle.key -pubout -out bundle.pub	(public)
 *
 *	struct sig_key *k = NULL;
 *	sig_key_load(&k, "bundle.key", SIG_PRIVATE, &err);
 *	sig_sign(&sig, k, msg, len, &err);		64 bytes
 *	sig_verify(pub, msg, len, sig.buf, sig.len);	1: good
 *	sig_key_free(k);
 *
 * A private key file that other users can read, or that belongs to
 * another user, is refused (as ssh refuses an unprotected identity); so
 * is a public key file that others can write: whoever can change the
 * pinned key decides what is trusted.  The fingerprint, "SHA256:" and the
 * unpadded base64 of the SHA-256 of the 32-byte raw public key, names a
 * key in messages (docs/bundle.md shows how to compute it by hand).
 */
#ifndef PROV_SIG_H
#define PROV_SIG_H

#include <stddef.h>

#include "err.h"

struct buf;
struct sig_key;

#define SIG_LEN		64	/* an ed25519 signature */
#define SIG_FP_MAX	52	/* "SHA256:" + 43 base64 + NUL, rounded */

enum sig_kind {
	SIG_PUBLIC,
	SIG_PRIVATE,
};

/* Read a PEM key file of `kind`; *out is the caller's (sig_key_free). */
int	sig_key_load(struct sig_key **out, const char *path, enum sig_kind,
	    struct prov_err *err);
/* The public key in `pem` (a bundle's manifest.pub). */
int	sig_key_from_pem(struct sig_key **out, const char *pem, size_t len,
	    struct prov_err *err);
void	sig_key_free(struct sig_key *);

/* "SHA256:..." of the key (a private key: of its public half). */
const char *sig_key_fingerprint(const struct sig_key *);
/* The same public key (a private key: its public half)? */
int	sig_key_same(const struct sig_key *, const struct sig_key *);
/* Append the public key as PEM. */
int	sig_key_public_pem(struct buf *, const struct sig_key *,
	    struct prov_err *err);

/* Append the SIG_LEN-byte signature of `msg` with a private key. */
int	sig_sign(struct buf *sig, const struct sig_key *, const void *msg,
	    size_t len, struct prov_err *err);
/* 1 when `sig` is the key's signature of `msg`, else 0. */
int	sig_verify(const struct sig_key *, const void *msg, size_t len,
	    const void *sig, size_t siglen);

#endif

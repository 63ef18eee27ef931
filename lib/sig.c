/*
 * sig.c: ed25519 keys and signatures through libcrypto's EVP interface.
 * See sig.h.
 *
 * Ed25519 signs the message itself (no digest first: EVP_DigestSign with
 * a NULL md), so a bundle's signature can be checked by hand with
 * `openssl pkeyutl -verify -rawin` (docs/bundle.md).
 */
#include "compat.h"

#include <fcntl.h>
#include <sys/stat.h>

#include <openssl/bio.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>

#include "buf.h"
#include "sig.h"

#define SIG_FILE_MAX	(64 * 1024)
#define SIG_RAW_LEN	32	/* an ed25519 public key */

struct sig_key {
	EVP_PKEY	*pk;
	enum sig_kind	 kind;
	unsigned char	 raw[SIG_RAW_LEN];
	char		 fp[SIG_FP_MAX];
};

/* libcrypto's reason for the last failure, then its queue cleared. */
static int
sig_crypto_err(struct prov_err *err, const char *what)
{
	char		b[256];
	unsigned long	e = ERR_get_error();

	if (e != 0)
		ERR_error_string_n(e, b, sizeof b);
	ERR_clear_error();
	return prov_err_set(err, PROV_E_SYS, "%s%s%s", what, e != 0 ? ": " : "",
	    e != 0 ? b : "");
}

/* Never ask for a passphrase (lib/ has no terminal). */
static int
sig_no_passphrase(char *buf, int size, int rwflag, void *u)
{
	return 0;
}

/* The raw public key and its fingerprint; refuses other key types. */
static int
sig_key_finish(struct sig_key *k, const char *what, struct prov_err *err)
{
	unsigned char	md[EVP_MAX_MD_SIZE];
	char		b64[64];
	size_t		len = SIG_RAW_LEN;
	unsigned	mdlen = 0;
	int		n;

	if (EVP_PKEY_base_id(k->pk) != EVP_PKEY_ED25519)
		return prov_err_set(err, PROV_E_USAGE, "%s is not an ed25519 "
		    "key (make one with 'openssl genpkey -algorithm ed25519')",
		    what);
	if (EVP_PKEY_get_raw_public_key(k->pk, k->raw, &len) != 1 ||
	    len != SIG_RAW_LEN ||
	    EVP_Digest(k->raw, len, md, &mdlen, EVP_sha256(), NULL) != 1)
		return sig_crypto_err(err, "cannot read an ed25519 key");
	n = EVP_EncodeBlock((unsigned char *)b64, md, (int)mdlen);
	while (n > 0 && b64[n - 1] == '=')
		n--;
	snprintf(k->fp, sizeof k->fp, "SHA256:%.*s", n, b64);
	return 0;
}

/* A key file's owner and mode, as sig.h says. */
static int
sig_file_ok(const char *path, const struct stat *st, enum sig_kind kind,
    struct prov_err *err)
{
	unsigned	mode = (unsigned)(st->st_mode & 07777);

	if (!S_ISREG(st->st_mode))
		return prov_err_set(err, PROV_E_USAGE, "'%s' is not a file",
		    path);
	if (st->st_uid != 0 && st->st_uid != geteuid())
		return prov_err_set(err, PROV_E_USAGE, "key file '%s' belongs "
		    "to uid %u, not to you or root: refused", path,
		    (unsigned)st->st_uid);
	if (kind == SIG_PRIVATE && (mode & 077) != 0)
		return prov_err_set(err, PROV_E_USAGE, "key file '%s' can be "
		    "read by other users (mode %04o): a signing key must be "
		    "private (chmod 600 '%s')", path, mode, path);
	if (kind == SIG_PUBLIC && (mode & 022) != 0)
		return prov_err_set(err, PROV_E_USAGE, "key file '%s' can be "
		    "written by other users (mode %04o): they could replace "
		    "the key you trust (chmod go-w '%s')", path, mode, path);
	return 0;
}

int
sig_key_load(struct sig_key **out, const char *path, enum sig_kind kind,
    struct prov_err *err)
{
	struct sig_key	*k = xcalloc(1, sizeof *k);
	struct buf	 b = BUF_INIT;
	struct stat	 st;
	BIO		*bio = NULL;
	char		 chunk[4096];
	char		*what = NULL;
	ssize_t		 n;
	int		 fd, r = -1;

	*out = NULL;
	k->kind = kind;
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0) {
		prov_err_sys(err, "cannot read key '%s'", path);
		goto out;
	}
	/* the file opened, not the name: nothing can swap it in between */
	if (fstat(fd, &st) != 0) {
		prov_err_sys(err, "cannot read key '%s'", path);
		close(fd);
		goto out;
	}
	if (sig_file_ok(path, &st, kind, err) != 0) {
		close(fd);
		goto out;
	}
	while ((n = read(fd, chunk, sizeof chunk)) > 0 && b.len < SIG_FILE_MAX)
		buf_add(&b, chunk, (size_t)n);
	explicit_bzero(chunk, sizeof chunk);
	close(fd);
	if (n < 0) {
		prov_err_sys(err, "cannot read key '%s'", path);
		goto out;
	}
	if ((bio = BIO_new_mem_buf(b.buf, (int)b.len)) == NULL) {
		sig_crypto_err(err, "cannot start libcrypto");
		goto out;
	}
	k->pk = kind == SIG_PRIVATE ? PEM_read_bio_PrivateKey(bio, NULL,
	    sig_no_passphrase, NULL) : PEM_read_bio_PUBKEY(bio, NULL,
	    sig_no_passphrase, NULL);
	what = xasprintf("'%s'", path);
	if (k->pk == NULL) {
		if (kind == SIG_PRIVATE && strstr(b.buf, "ENCRYPTED") != NULL)
			prov_err_set(err, PROV_E_USAGE, "key '%s' is "
			    "encrypted: provision reads unencrypted PEM keys "
			    "only (keep it on an encrypted disk, or 'openssl "
			    "pkey -in KEY -out PLAIN' where you sign)", path);
		else
			prov_err_set(err, PROV_E_USAGE, "'%s' holds no PEM %s "
			    "key (make one with 'openssl genpkey -algorithm "
			    "ed25519'%s)", path, kind == SIG_PRIVATE ?
			    "private" : "public", kind == SIG_PRIVATE ? "" :
			    " and 'openssl pkey -pubout'");
		ERR_clear_error();
		goto out;
	}
	if (sig_key_finish(k, what, err) != 0)
		goto out;
	*out = k;
	k = NULL;
	r = 0;
out:
	BIO_free(bio);
	buf_release_secret(&b);
	free(what);
	sig_key_free(k);
	return r;
}

int
sig_key_from_pem(struct sig_key **out, const char *pem, size_t len,
    struct prov_err *err)
{
	struct sig_key	*k = xcalloc(1, sizeof *k);
	BIO		*bio;
	int		 r = -1;

	*out = NULL;
	k->kind = SIG_PUBLIC;
	if ((bio = BIO_new_mem_buf(pem, (int)len)) == NULL) {
		sig_crypto_err(err, "cannot start libcrypto");
		goto out;
	}
	if ((k->pk = PEM_read_bio_PUBKEY(bio, NULL, sig_no_passphrase,
	    NULL)) == NULL) {
		ERR_clear_error();
		prov_err_set(err, PROV_E_ARCHIVE, "not a PEM public key");
		goto out;
	}
	if (sig_key_finish(k, "the key", err) != 0)
		goto out;
	*out = k;
	k = NULL;
	r = 0;
out:
	BIO_free(bio);
	sig_key_free(k);
	return r;
}

void
sig_key_free(struct sig_key *k)
{
	if (k == NULL)
		return;
	EVP_PKEY_free(k->pk);
	free(k);
}

const char *
sig_key_fingerprint(const struct sig_key *k)
{
	return k->fp;
}

int
sig_key_same(const struct sig_key *a, const struct sig_key *b)
{
	return memcmp(a->raw, b->raw, SIG_RAW_LEN) == 0;
}

int
sig_key_public_pem(struct buf *out, const struct sig_key *k,
    struct prov_err *err)
{
	BIO	*bio = BIO_new(BIO_s_mem());
	char	*p;
	long	 n;
	int	 r = -1;

	if (bio == NULL || PEM_write_bio_PUBKEY(bio, k->pk) != 1) {
		sig_crypto_err(err, "cannot write the public key");
		goto out;
	}
	n = BIO_get_mem_data(bio, &p);
	buf_add(out, p, (size_t)n);
	r = 0;
out:
	BIO_free(bio);
	return r;
}

int
sig_sign(struct buf *sig, const struct sig_key *k, const void *msg,
    size_t len, struct prov_err *err)
{
	EVP_MD_CTX	*ctx = NULL;
	size_t		 slen = SIG_LEN;
	int		 r = -1;

	if (k->kind != SIG_PRIVATE)
		return prov_err_set(err, PROV_E_USAGE, "a public key cannot "
		    "sign");
	buf_grow(sig, SIG_LEN);
	if ((ctx = EVP_MD_CTX_new()) == NULL ||
	    EVP_DigestSignInit(ctx, NULL, NULL, NULL, k->pk) != 1 ||
	    EVP_DigestSign(ctx, (unsigned char *)sig->buf + sig->len, &slen,
	    msg, len) != 1 || slen != SIG_LEN) {
		sig_crypto_err(err, "cannot sign");
		goto out;
	}
	buf_setlen(sig, sig->len + slen);
	r = 0;
out:
	EVP_MD_CTX_free(ctx);
	return r;
}

int
sig_verify(const struct sig_key *k, const void *msg, size_t len,
    const void *sig, size_t siglen)
{
	EVP_MD_CTX	*ctx;
	int		 ok = 0;

	if (siglen != SIG_LEN || (ctx = EVP_MD_CTX_new()) == NULL)
		return 0;
	if (EVP_DigestVerifyInit(ctx, NULL, NULL, NULL, k->pk) == 1 &&
	    EVP_DigestVerify(ctx, sig, siglen, msg, len) == 1)
		ok = 1;
	EVP_MD_CTX_free(ctx);
	ERR_clear_error();
	return ok;
}

/*
 * ssh-key.c: the keys a session offers: OpenSSH private key files, loaded
 * once for every session, and the agent.
 */
#include "compat.h"

#include <pwd.h>

#include <openssl/evp.h>

#include "err.h"
#include "knownhosts.h"
#include "ssh-int.h"

/* Keys. */

void
ssh_ident_release(struct ssh_ident *id)
{
	free(id->path);
	free(id->type);
	if (id->priv != NULL) {
		explicit_bzero(id->priv, id->privlen);
		free(id->priv);
	}
	free(id->pub);
	EVP_PKEY_free(id->pkey);
	free(id->blob);
	memset(id, 0, sizeof *id);
}

static uint32_t
ssh_get_u32(const unsigned char *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 |
	    (uint32_t)p[2] << 8 | p[3];
}

/* Read an SSH string at *p (bounded by end); -1 when it overruns. */
static int
ssh_get_string(const unsigned char **p, const unsigned char *end,
    const unsigned char **s, size_t *len)
{
	uint32_t	n;

	if (end - *p < 4)
		return -1;
	n = ssh_get_u32(*p);
	if ((size_t)(end - *p - 4) < n)
		return -1;
	*s = *p + 4;
	*len = n;
	*p += 4 + n;
	return 0;
}

/*
 * The private half of an unencrypted ed25519 "openssh-key-v1" file (at p,
 * after the public key blob pub): check ints, type, public key, seed and
 * public key again, comment.  Decoded once for every login: libssh2 1.10
 * decodes the file anew at each one, through OpenSSL 3's decoder lookup
 * (which fails on this format before libssh2 reads it itself): 14% of
 * the client's CPU of an apply at 200 hosts.  NULL when the file is not
 * such a key or its halves disagree; libssh2 then reads it as before.
 */
static EVP_PKEY *
ssh_ed25519_private(const unsigned char *p, const unsigned char *end,
    const unsigned char *pub, size_t publen)
{
	const unsigned char	*pend = pub + publen, *s, *pk, *sk, *bpk;
	size_t			 len, pklen, sklen, bpklen;
	unsigned char		 derived[32];
	size_t			 dlen = sizeof derived;
	EVP_PKEY		*k;

	/* the blob: string "ssh-ed25519", string key (32) */
	if (ssh_get_string(&pub, pend, &s, &len) != 0 ||
	    len != 11 || memcmp(s, "ssh-ed25519", 11) != 0 ||
	    ssh_get_string(&pub, pend, &bpk, &bpklen) != 0 ||
	    bpklen != 32)
		return NULL;
	if (ssh_get_string(&p, end, &s, &len) != 0)	/* private section */
		return NULL;
	end = s + len;
	p = s;
	if (end - p < 8 || memcmp(p, p + 4, 4) != 0)	/* check ints */
		return NULL;
	p += 8;
	if (ssh_get_string(&p, end, &s, &len) != 0 || len != 11 ||
	    memcmp(s, "ssh-ed25519", 11) != 0 ||
	    ssh_get_string(&p, end, &pk, &pklen) != 0 || pklen != 32 ||
	    ssh_get_string(&p, end, &sk, &sklen) != 0 || sklen != 64 ||
	    memcmp(pk, bpk, 32) != 0 || memcmp(sk + 32, pk, 32) != 0)
		return NULL;
	k = EVP_PKEY_new_raw_private_key(EVP_PKEY_ED25519, NULL, sk, 32);
	if (k == NULL)
		return NULL;
	/* the seed must give the public key the server is offered */
	if (EVP_PKEY_get_raw_public_key(k, derived, &dlen) != 1 ||
	    dlen != 32 || memcmp(derived, pk, 32) != 0) {
		EVP_PKEY_free(k);
		return NULL;
	}
	return k;
}

/* libssh2's signing callback for an ident with a decoded key. */
int
ssh_ident_sign(LIBSSH2_SESSION *s, unsigned char **sig, size_t *siglen,
    const unsigned char *data, size_t len, void **abstract)
{
	const struct ssh_ident	*id = *abstract;
	EVP_MD_CTX		*md = EVP_MD_CTX_new();
	/* libssh2 frees it with the session's allocator: plain free() */
	unsigned char		*out = malloc(64);
	size_t			 n = 64;
	int			 r = -1;

	if (md != NULL && out != NULL &&
	    EVP_DigestSignInit(md, NULL, NULL, NULL, id->pkey) == 1 &&
	    EVP_DigestSign(md, out, &n, data, len) == 1 && n == 64) {
		*sig = out;
		*siglen = n;
		out = NULL;
		r = 0;
	}
	EVP_MD_CTX_free(md);
	free(out);
	return r;
}

/*
 * An "openssh-key-v1" private key file, whose public half is stored
 * unencrypted: type, public key line, cipher; and an unencrypted ed25519
 * key itself (ssh_ed25519_private).
 */
static int
ssh_parse_openssh_key(const char *text, struct ssh_ident *id)
{
	const char		*b = strstr(text, "-----BEGIN OPENSSH PRIVATE KEY-----");
	const char		*e;
	const unsigned char	*p, *end, *s;
	struct buf		 b64 = BUF_INIT;
	unsigned char		*raw = NULL;
	size_t			 len, i;
	uint32_t		 nkeys;
	int			 n, r = -1;
	char			*t = NULL, *enc = NULL;

	if (b == NULL)
		return -1;
	b += 35;
	e = strstr(b, "-----END OPENSSH PRIVATE KEY-----");
	if (e == NULL)
		return -1;
	for (; b < e; b++)
		if (*b != '\n' && *b != '\r' && *b != ' ')
			buf_addch(&b64, *b);
	if (b64.len == 0 || b64.len % 4 != 0)
		goto out;
	raw = xmalloc(b64.len);
	n = EVP_DecodeBlock(raw, (unsigned char *)b64.buf, (int)b64.len);
	if (n < 0)
		goto out;
	p = raw;
	end = raw + n;
	if (end - p < 15 || memcmp(p, "openssh-key-v1\0", 15) != 0)
		goto out;
	p += 15;
	if (ssh_get_string(&p, end, &s, &len) != 0)	/* cipher */
		goto out;
	id->encrypted = !(len == 4 && memcmp(s, "none", 4) == 0);
	if (ssh_get_string(&p, end, &s, &len) != 0 ||	/* kdf */
	    ssh_get_string(&p, end, &s, &len) != 0 ||	/* kdf options */
	    end - p < 4)
		goto out;
	nkeys = ssh_get_u32(p);
	p += 4;
	if (ssh_get_string(&p, end, &s, &len) != 0)
		goto out;
	t = knownhosts_blob_type(s, len);
	if (t == NULL)
		goto out;
	enc = xmalloc(4 * (len + 2) / 3 + 8);
	EVP_EncodeBlock((unsigned char *)enc, s, (int)len);
	id->pub = xasprintf("%s %s", t, enc);
	id->type = t;
	t = NULL;
	if (!id->encrypted && nkeys == 1 &&
	    (id->pkey = ssh_ed25519_private(p, end, s, len)) != NULL) {
		id->blob = xmalloc(len);
		memcpy(id->blob, s, len);
		id->bloblen = len;
	}
	r = 0;
out:
	for (i = 0; raw != NULL && i < b64.len; i++)
		raw[i] = 0;
	free(raw);
	free(t);
	free(enc);
	buf_release(&b64);
	return r;
}

/* Fill id from the key file at path. */
static int
ssh_ident_load(struct ssh_ident *id, const char *path, struct prov_err *err)
{
	struct buf	 b = BUF_INIT, pb = BUF_INIT;
	char		*pubpath = NULL;
	int		 r = -1;

	memset(id, 0, sizeof *id);
	if (buf_read_file(&b, path) != 0) {
		prov_err_sys(err, "identity '%s'", path);
		goto out;
	}
	id->path = xstrdup(path);
	if (strstr(b.buf, "-----BEGIN OPENSSH PRIVATE KEY-----") != NULL) {
		if (ssh_parse_openssh_key(b.buf, id) != 0) {
			prov_err_set(err, PROV_E_AUTH, "identity '%s' is not "
			    "a readable OpenSSH private key", path);
			goto out;
		}
	} else if (strstr(b.buf, "-----BEGIN RSA PRIVATE KEY-----") != NULL) {
		id->type = xstrdup("ssh-rsa");
		id->encrypted = strstr(b.buf, "ENCRYPTED") != NULL;
	} else if (strstr(b.buf, "-----BEGIN EC PRIVATE KEY-----") != NULL) {
		id->type = xstrdup("ecdsa-sha2-nistp256");
		id->encrypted = strstr(b.buf, "ENCRYPTED") != NULL;
	} else if (strstr(b.buf, "-----BEGIN DSA PRIVATE KEY-----") != NULL) {
		id->type = xstrdup("ssh-dss");
		id->encrypted = strstr(b.buf, "ENCRYPTED") != NULL;
	} else if (strstr(b.buf, "-----BEGIN ENCRYPTED PRIVATE KEY-----") !=
	    NULL)
		id->encrypted = 1;
	else if (strstr(b.buf, "-----BEGIN PRIVATE KEY-----") == NULL) {
		prov_err_set(err, PROV_E_AUTH, "identity '%s' is not a private "
		    "key file", path);
		goto out;
	}
	if (id->pub == NULL) {
		pubpath = xasprintf("%s.pub", path);
		if (buf_read_file(&pb, pubpath) == 0) {
			buf_rtrim(&pb);
			id->pub = buf_detach(&pb, NULL);
		}
	}
	if (id->pub != NULL)
		id->publen = strlen(id->pub);
	id->priv = buf_detach(&b, &id->privlen);
	r = 0;
out:
	buf_release_secret(&b);
	buf_release(&pb);
	free(pubpath);
	if (r != 0)
		ssh_ident_release(id);
	return r;
}

int
ssh_key_info(const char *path, char **type_out, int *encrypted,
    struct prov_err *err)
{
	struct ssh_ident	id;

	*type_out = NULL;
	*encrypted = 0;
	if (ssh_ident_load(&id, path, err) != 0)
		return -1;
	*type_out = id.type;
	id.type = NULL;
	*encrypted = id.encrypted;
	ssh_ident_release(&id);
	return 0;
}

const char *
ssh_home(void)
{
	const char	*h = getenv("HOME");
	struct passwd	*pw;

	if (h != NULL && *h != '\0')
		return h;
	pw = getpwuid(getuid());
	return pw != NULL ? pw->pw_dir : "/";
}

static void
ssh_pool_add_ident(struct ssh_pool *p, struct ssh_ident *id)
{
	p->ids = xreallocarray(p->ids, p->nids + 1, sizeof *p->ids);
	p->ids[p->nids++] = *id;
	memset(id, 0, sizeof *id);
}

int
ssh_pool_load_idents(struct ssh_pool *p, struct prov_err *err)
{
	struct ssh_ident	 id;
	const char		*sock = getenv("SSH_AUTH_SOCK");
	int			 agent = !p->cfg.no_agent && sock != NULL &&
				    *sock != '\0';
	static const char *const defaults[] = { "id_ed25519", "id_ecdsa",
	    "id_rsa" };
	size_t			 i;

	if (p->cfg.identity != NULL) {
		if (ssh_ident_load(&id, p->cfg.identity, err) != 0)
			return -1;
		if (id.encrypted && p->cfg.passphrase == NULL) {
			prov_err_set(err, PROV_E_AUTH, "identity '%s' is "
			    "encrypted and no passphrase was given",
			    p->cfg.identity);
			ssh_ident_release(&id);
			return -1;
		}
		ssh_pool_add_ident(p, &id);
	}
	if (agent) {
		memset(&id, 0, sizeof id);
		id.agent = 1;
		ssh_pool_add_ident(p, &id);
	}
	if (p->cfg.identity == NULL) {
		for (i = 0; i < ARRAY_SIZE(defaults); i++) {
			struct prov_err	 e2 = PROV_ERR_INIT;
			char		*path = xasprintf("%s/.ssh/%s", ssh_home(),
					    defaults[i]);

			if (access(path, R_OK) != 0) {
				free(path);
				continue;
			}
			if (ssh_ident_load(&id, path, &e2) != 0) {
				strvec_pushf(&p->notes, "%s", e2.msg);
				prov_err_release(&e2);
			} else if (id.encrypted && p->cfg.passphrase == NULL) {
				strvec_pushf(&p->notes, "identity '%s' skipped: "
				    "encrypted and no passphrase was given", path);
				ssh_ident_release(&id);
			} else
				ssh_pool_add_ident(p, &id);
			free(path);
		}
	}
	if (p->nids == 0)
		return prov_err_set(err, PROV_E_AUTH, "no key to log in with: "
		    "no identity file, no ssh-agent (SSH_AUTH_SOCK), no "
		    "~/.ssh/id_ed25519");
	return 0;
}

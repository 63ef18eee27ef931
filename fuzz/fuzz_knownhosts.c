/*
 * fuzz_knownhosts.c: the known_hosts reader, matcher and accept-new
 * writer (knownhosts.h).
 *
 * The input is a known_hosts file, held in a memfd and loaded through
 * /proc/self/fd/N as a real file.  A first line "#!NAME" (a comment to
 * the parser) adds NAME to the host names checked, so the fuzzer reaches
 * the pattern matcher with names of its own.  Each of a few keys is
 * checked for the names on ports 22 and 2222, and then added as
 * accept-new does.  Invariants: a match names its line, type and
 * fingerprint exactly when it found one; the types listed for a host are
 * distinct; a key for a host that is not new leaves the file byte for
 * byte as it was (a changed key is never written over); a key that was
 * new is appended so that reading the file again finds it, OK, on the
 * line the writer said.
 */
#include "compat.h"

#include <sys/mman.h>

#include "buf.h"
#include "err.h"
#include "knownhosts.h"
#include "strvec.h"

#include "fuzz.h"

int	LLVMFuzzerTestOneInput(const uint8_t *, size_t);

/* Wire-form keys: tests/fixtures/knownhosts/a.pub, c.pub, and a bad one. */
static const char *const fuzz_kh_keys[] = {
	"AAAAC3NzaC1lZDI1NTE5AAAAIESNKOv3hof2nuOaUn2oqwaOx6nLH312zIx1CVBMgXaQ",
	"AAAAE2VjZHNhLXNoYTItbmlzdHAyNTYAAAAIbmlzdHAyNTYAAABBBOnqlKngPw2M4H5E"
	    "c1uTvv870Gg+WZCvvuZfN84sEfg/LasH4seSDXXSspuVZE3RqkewyWRsoMrNk84E8"
	    "8hGsT8=",
	"AAAAC3NzaC1lZDI1NTE5AAAAIKVs4rCME2w0V3woVgOUdIVQO/7urShO8HLV4QA5R7Nm",
};

static size_t
fuzz_kh_b64dec(unsigned char *out, const char *s)
{
	static const char	 a[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
	    "abcdefghijklmnopqrstuvwxyz0123456789+/";
	unsigned long		 acc = 0;
	size_t			 n = 0;
	int			 bits = 0;
	const char		*p;

	for (; *s != '\0' && *s != '='; s++) {
		p = strchr(a, *s);
		FUZZ_ASSERT(p != NULL);
		acc = acc << 6 | (unsigned long)(p - a);
		bits += 6;
		if (bits >= 8) {
			bits -= 8;
			out[n++] = (unsigned char)(acc >> bits);
		}
	}
	return n;
}

static void
fuzz_kh_match_ok(const struct knownhosts_match *m)
{
	switch (m->status) {
	case KNOWNHOSTS_NEW:
		FUZZ_ASSERT(m->file == NULL && m->line == 0);
		FUZZ_ASSERT(m->known_type == NULL && m->known_fp == NULL);
		break;
	case KNOWNHOSTS_OK:
	case KNOWNHOSTS_CHANGED:
	case KNOWNHOSTS_OTHER_TYPE:
	case KNOWNHOSTS_REVOKED:
		FUZZ_ASSERT(m->file != NULL && m->line >= 1);
		FUZZ_ASSERT(m->known_type != NULL);
		FUZZ_ASSERT(m->known_fp != NULL &&
		    strncmp(m->known_fp, "SHA256:", 7) == 0);
		break;
	default:
		FUZZ_ASSERT(!"unknown status");
	}
}

/* The whole memfd, from offset 0. */
static void
fuzz_kh_read(int fd, struct buf *b)
{
	char	chunk[4096];
	off_t	off = 0;
	ssize_t	n;

	buf_reset(b);
	while ((n = pread(fd, chunk, sizeof chunk, off)) > 0) {
		buf_add(b, chunk, (size_t)n);
		off += n;
	}
	FUZZ_ASSERT(n == 0);
}

/* Check, then add, `blob` for the names; see the top of the file. */
static void
fuzz_kh_add(const char *path, int fd, const char *const *names,
    size_t nnames, long port, const unsigned char *blob, size_t len)
{
	struct knownhosts	*kh = NULL, *kh2 = NULL;
	struct knownhosts_match	 m = KNOWNHOSTS_MATCH_INIT;
	struct knownhosts_match	 m2 = KNOWNHOSTS_MATCH_INIT;
	struct prov_err		 err = PROV_ERR_INIT;
	struct buf		 before = BUF_INIT, after = BUF_INIT;
	char			*type = knownhosts_blob_type(blob, len);
	int			 r;

	FUZZ_ASSERT(knownhosts_load(&kh, path, &err) == 0);
	fuzz_kh_read(fd, &before);
	knownhosts_check(kh, names, nnames, port, blob, len, &m);
	fuzz_kh_match_ok(&m);
	if (m.status == KNOWNHOSTS_OK || m.status == KNOWNHOSTS_REVOKED)
		FUZZ_ASSERT(type != NULL && strcmp(m.known_type, type) == 0);
	r = knownhosts_add(kh, names, nnames, port, blob, len, &m2, &err);
	fuzz_kh_read(fd, &after);
	if (type == NULL) {
		FUZZ_ASSERT(r != 0);
		FUZZ_ASSERT(after.len == before.len);
		goto out;
	}
	FUZZ_ASSERT(r == 0);
	fuzz_kh_match_ok(&m2);
	if (m.status != KNOWNHOSTS_NEW) {
		/* Not new: the file is not touched, the answer is the same. */
		FUZZ_ASSERT(m2.status == m.status);
		FUZZ_ASSERT(after.len == before.len &&
		    memcmp(after.buf, before.buf, after.len) == 0);
		goto out;
	}
	FUZZ_ASSERT(m2.status == KNOWNHOSTS_OK);
	FUZZ_ASSERT(after.len > before.len &&
	    memcmp(after.buf, before.buf, before.len) == 0);
	FUZZ_ASSERT(after.buf[after.len - 1] == '\n');
	/* Read back from scratch: the key is there, on the line reported. */
	FUZZ_ASSERT(knownhosts_load(&kh2, path, &err) == 0);
	knownhosts_check(kh2, names, nnames, port, blob, len, &m);
	if (m.status != KNOWNHOSTS_OK || m.line != m2.line) {
		fprintf(stderr, "added on line %u, read back: status %d "
		    "line %u\n", m2.line, (int)m.status, m.line);
		FUZZ_ASSERT(!"an added key does not read back");
	}
	/* Undo, for the next key. */
	FUZZ_ASSERT(ftruncate(fd, (off_t)before.len) == 0);
out:
	free(type);
	knownhosts_match_release(&m);
	knownhosts_match_release(&m2);
	knownhosts_free(kh);
	knownhosts_free(kh2);
	buf_release(&before);
	buf_release(&after);
	prov_err_release(&err);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct knownhosts	*kh = NULL;
	struct knownhosts_match	 m = KNOWNHOSTS_MATCH_INIT;
	struct prov_err		 err = PROV_ERR_INIT;
	struct strvec		 types = STRVEC_INIT;
	const char		*names[3] = { "gpu01", "192.0.2.11", NULL };
	const struct strvec	*notes;
	unsigned char		 blob[256];
	char			 path[64], fname[256];
	size_t			 nnames = 2, len, i, k, j, nlines = 1;
	long			 port;
	int			 fd;

	if (size > 65536)
		return 0;
	if (size > 2 && data[0] == '#' && data[1] == '!') {
		for (i = 2; i < size && i - 2 < sizeof fname - 1 &&
		    data[i] != '\n' && data[i] != '\0'; i++)
			fname[i - 2] = (char)data[i];
		fname[i - 2] = '\0';
		names[nnames++] = fname;
	}
	for (i = 0; i < size; i++)
		nlines += data[i] == '\n';
	fd = memfd_create("known_hosts", MFD_CLOEXEC);
	FUZZ_ASSERT(fd >= 0);
	FUZZ_ASSERT(size == 0 || write(fd, data, size) == (ssize_t)size);
	snprintf(path, sizeof path, "/proc/self/fd/%d", fd);

	FUZZ_ASSERT(knownhosts_load(&kh, path, &err) == 0);
	FUZZ_ASSERT(knownhosts_count(kh) <= nlines);
	notes = knownhosts_notes(kh);
	for (i = 0; i < notes->n; i++)
		FUZZ_ASSERT(strncmp(notes->v[i], path, strlen(path)) == 0);
	for (port = 22; port <= 2222; port += 2200) {
		knownhosts_types(kh, names, nnames, port, &types);
		for (i = 0; i < types.n; i++)
			for (j = 0; j < i; j++)
				FUZZ_ASSERT(strcmp(types.v[i], types.v[j]) != 0);
		strvec_clear(&types);
		for (k = 0; k < ARRAY_SIZE(fuzz_kh_keys); k++) {
			len = fuzz_kh_b64dec(blob, fuzz_kh_keys[k]);
			knownhosts_check(kh, names, nnames, port, blob, len, &m);
			fuzz_kh_match_ok(&m);
			knownhosts_match_release(&m);
			/* accept-new writes only names from a valid plan */
			fuzz_kh_add(path, fd, names, 2, port, blob, len);
		}
		/* A malformed key is never written. */
		fuzz_kh_add(path, fd, names, 2, port, (const unsigned char *)
		    "\0\0\0\x40short", 9);
	}
	knownhosts_free(kh);
	close(fd);
	prov_err_release(&err);
	return 0;
}

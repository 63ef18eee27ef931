/*
 * arc.h: archives and checksums (libarchive, libcrypto).
 *
 * Four jobs, each a small API over libarchive or EVP:
 *
 * - SHA-256 of bytes or a file, as lowercase hex (arc_sha256_*).
 * - Pulling chosen files out of an archive of any format libarchive reads
 *   (ISO 9660 installer images, netboot tarballs): arc_extract() writes
 *   each wanted member to a file of the caller's choosing, never to a
 *   path taken from the archive, and checksums it on the way.
 * - Writing a tar + zstd archive (arc_writer_*): members from memory or
 *   from files; a file member can be checked against an expected SHA-256
 *   as it is streamed in, so a corrupt file is never packed.  The archive
 *   is written to "PATH.part" and renamed by arc_writer_commit(); freeing
 *   an uncommitted writer removes the part file, so a failed run leaves
 *   nothing that looks like a finished archive.
 * - Reading an archive back (arc_scan): every member's name, size and
 *   SHA-256, and the bytes of the few members the caller asks to keep.
 *
 * And one Debian detail: arc_deb_control() reads the control file out of
 * a .deb (an ar archive holding control.tar.*), as dpkg-scanpackages does.
 *
 *	struct arc_writer *w;
 *	if (arc_writer_open(&w, "out.tar.zst", &err) != 0) ...
 *	arc_writer_add_buf(w, "manifest.json", b.buf, b.len, 0644, &err);
 *	arc_writer_add_file(w, "repo/x.deb", path, want_sha, NULL, NULL, &err);
 *	arc_writer_commit(w, &err);
 *	arc_writer_free(w);
 *
 * Errors carry libarchive's own text (archive_error_string) and use
 * PROV_E_ARCHIVE; failed system calls use PROV_E_SYS.
 */
#ifndef PROV_ARC_H
#define PROV_ARC_H

#include <stddef.h>
#include <stdint.h>

#include "buf.h"
#include "err.h"

#define ARC_SHA256_HEX	65	/* 64 hex digits and a NUL */

/* Streaming SHA-256: init, update any number of times, final. */
struct arc_sha256 {
	void	*md;		/* EVP_MD_CTX */
};

#define ARC_SHA256_INIT { NULL }

int	arc_sha256_init(struct arc_sha256 *, struct prov_err *);
void	arc_sha256_update(struct arc_sha256 *, const void *, size_t);
/* Write the digest as hex and release the context. */
void	arc_sha256_final(struct arc_sha256 *, char hex[ARC_SHA256_HEX]);
void	arc_sha256_release(struct arc_sha256 *);
int	arc_sha256_buf(char hex[ARC_SHA256_HEX], const void *, size_t,
	    struct prov_err *);
/* Digest of a whole file; *size (may be NULL) gets its length. */
int	arc_sha256_file(char hex[ARC_SHA256_HEX], int64_t *size,
	    const char *path, struct prov_err *);
/* 1 when s is 64 hex digits. */
int	arc_sha256_valid(const char *s);

/*
 * One file to take out of an archive.  `member` is matched against the
 * archive's names without a leading "/" or "./" and ignoring case (plain
 * ISO 9660 names are upper case).  `dest` is written through a temporary
 * file and renamed, mode 0644.
 */
struct arc_pick {
	const char	*member;
	const char	*dest;
	/* filled in by arc_extract() */
	int		 found;
	int64_t		 size;
	char		 sha256[ARC_SHA256_HEX];
};

/*
 * Extract every pick found in `archive`.  Returns 0 when the archive was
 * read through (check each pick's `found`), -1 on a read or write error.
 */
/* A member's name without leading '/' and './' (names compare alike). */
const char	*arc_name_norm(const char *name);
int	arc_extract(const char *archive, struct arc_pick *, size_t n,
	    struct prov_err *);

struct arc_writer;

/* Start a tar (pax) + zstd archive at `path` (written as PATH.part). */
int	arc_writer_open(struct arc_writer **out, const char *path,
	    struct prov_err *);
int	arc_writer_add_buf(struct arc_writer *, const char *name,
	    const void *, size_t, int mode, struct prov_err *);
/*
 * Stream file `path` in as member `name`.  With `want_sha256`, a file
 * whose digest differs is an error and the archive must not be committed.
 * `sha256` and `size` (either may be NULL) receive what was packed.
 */
int	arc_writer_add_file(struct arc_writer *, const char *name,
	    const char *path, const char *want_sha256,
	    char sha256[ARC_SHA256_HEX], int64_t *size, struct prov_err *);
/* Finish the archive and rename it into place. */
int	arc_writer_commit(struct arc_writer *, struct prov_err *);
/* Free; an uncommitted archive's part file is removed.  NULL is fine. */
void	arc_writer_free(struct arc_writer *);

/* A member seen by arc_scan(); everything is borrowed for the callback. */
struct arc_member {
	const char	*name;		/* without a leading "./" */
	char		 type;		/* 'f' file 'd' dir 'l' link 'o' other */
	int64_t		 size;
	char		 sha256[ARC_SHA256_HEX];	/* files only */
	const char	*data;		/* kept members only, else NULL */
	size_t		 len;
};

typedef int (*arc_scan_fn)(void *arg, const struct arc_member *,
    struct prov_err *);

/*
 * Read every member of `path` in order and call fn for each.  The bytes
 * of members named in `keep` (NULL-terminated, may be NULL) are handed
 * over when no bigger than `keep_max`.  fn returning -1 stops the scan.
 */
int	arc_scan(const char *path, const char *const *keep, size_t keep_max,
	    arc_scan_fn fn, void *arg, struct prov_err *);

/* The control file of a .deb (the `control` member of control.tar.*). */
int	arc_deb_control(struct buf *out, const char *deb, struct prov_err *);

#endif

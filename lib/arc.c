/*
 * arc.c: archives with libarchive, digests with libcrypto's EVP.  See
 * arc.h.
 *
 * libarchive's errors are converted once, here, keeping its text:
 * "cannot read 'x.iso': Unrecognized archive format".  Names coming out
 * of an archive are only ever compared or reported; files are written
 * to paths the caller chose, so a hostile archive cannot place anything.
 */
#include "compat.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <time.h>

#include <archive.h>
#include <archive_entry.h>
#include <openssl/evp.h>

#include "arc.h"
#include "buf.h"
#include "fs.h"

#define ARC_BLOCK	65536
#define ARC_DEB_MAX	(64u << 20)	/* control.tar.* of a .deb */
#define ARC_CONTROL_MAX	(1u << 20)	/* the control file itself */

struct arc_writer {
	struct archive	*a;
	char		*path;
	char		*part;		/* PATH.tmp.RANDOM (fs_tmp_open) */
	int		 fd;
	time_t		 mtime;
	int		 committed;
	int		 broken;	/* a member failed half-way */
};

/* SHA-256. */

int
arc_sha256_init(struct arc_sha256 *s, struct prov_err *err)
{
	EVP_MD_CTX	*c;

	s->md = NULL;
	if ((c = EVP_MD_CTX_new()) == NULL ||
	    EVP_DigestInit_ex(c, EVP_sha256(), NULL) != 1) {
		EVP_MD_CTX_free(c);
		return prov_err_set(err, PROV_E_SYS, "cannot start a "
		    "SHA-256 digest");
	}
	s->md = c;
	return 0;
}

void
arc_sha256_update(struct arc_sha256 *s, const void *p, size_t n)
{
	if (s->md != NULL && n > 0)
		(void)EVP_DigestUpdate(s->md, p, n);
}

void
arc_sha256_final(struct arc_sha256 *s, char hex[ARC_SHA256_HEX])
{
	static const char	 digits[] = "0123456789abcdef";
	unsigned char		 md[EVP_MAX_MD_SIZE];
	unsigned int		 n = 0, i;

	hex[0] = '\0';
	if (s->md != NULL && EVP_DigestFinal_ex(s->md, md, &n) == 1 &&
	    n == 32) {
		for (i = 0; i < n; i++) {
			hex[2 * i] = digits[md[i] >> 4];
			hex[2 * i + 1] = digits[md[i] & 15];
		}
		hex[2 * n] = '\0';
	}
	arc_sha256_release(s);
}

void
arc_sha256_release(struct arc_sha256 *s)
{
	if (s == NULL)
		return;
	EVP_MD_CTX_free(s->md);
	s->md = NULL;
}

int
arc_sha256_buf(char hex[ARC_SHA256_HEX], const void *p, size_t n,
    struct prov_err *err)
{
	struct arc_sha256	s;

	if (arc_sha256_init(&s, err) != 0)
		return -1;
	arc_sha256_update(&s, p, n);
	arc_sha256_final(&s, hex);
	return 0;
}

int
arc_sha256_file(char hex[ARC_SHA256_HEX], int64_t *size, const char *path,
    struct prov_err *err)
{
	struct arc_sha256	 s = ARC_SHA256_INIT;
	char			*blk = NULL;
	int64_t			 total = 0;
	ssize_t			 n;
	int			 fd, r = -1;

	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return prov_err_sys(err, "cannot open '%s'", path);
	if (arc_sha256_init(&s, err) != 0)
		goto out;
	blk = xmalloc(ARC_BLOCK);
	for (;;) {
		n = read(fd, blk, ARC_BLOCK);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			prov_err_sys(err, "cannot read '%s'", path);
			goto out;
		}
		if (n == 0)
			break;
		arc_sha256_update(&s, blk, (size_t)n);
		total += n;
	}
	arc_sha256_final(&s, hex);
	if (size != NULL)
		*size = total;
	r = 0;
out:
	arc_sha256_release(&s);
	free(blk);
	close(fd);
	return r;
}

int
arc_sha256_valid(const char *s)
{
	size_t	i;

	for (i = 0; i < 64; i++)
		if (!((s[i] >= '0' && s[i] <= '9') ||
		    (s[i] >= 'a' && s[i] <= 'f') || (s[i] >= 'A' && s[i] <= 'F')))
			return 0;
	return s[64] == '\0';
}

/* Reading. */

const char *
arc_name_norm(const char *name)
{
	for (;;) {
		if (name[0] == '/')
			name++;
		else if (name[0] == '.' && name[1] == '/')
			name += 2;
		else
			return name;
	}
}

static int
arc_read_err(struct prov_err *err, struct archive *a, const char *path)
{
	const char	*m = archive_error_string(a);

	return prov_err_set(err, PROV_E_ARCHIVE, "cannot read '%s': %s", path,
	    m != NULL ? m : "unknown libarchive error");
}

static struct archive *
arc_read_open(const char *path, struct prov_err *err)
{
	struct archive	*a = archive_read_new();

	if (a == NULL) {
		prov_err_set(err, PROV_E_ARCHIVE, "cannot start libarchive");
		return NULL;
	}
	archive_read_support_filter_all(a);
	archive_read_support_format_all(a);
	if (archive_read_open_filename(a, path, ARC_BLOCK) != ARCHIVE_OK) {
		if (errno == ENOENT && access(path, F_OK) != 0) {
			errno = ENOENT;
			prov_err_sys(err, "cannot open '%s'", path);
		} else
			arc_read_err(err, a, path);
		archive_read_free(a);
		return NULL;
	}
	return a;
}

/* Copy the current member's data to `dest` (tmp + rename), checksumming. */
static int
arc_extract_one(struct archive *a, const char *archive, struct arc_pick *pk,
    struct prov_err *err)
{
	struct arc_sha256	 s = ARC_SHA256_INIT;
	char			*tmp = NULL;
	char			*blk = xmalloc(ARC_BLOCK);
	int64_t			 total = 0;
	la_ssize_t		 n;
	int			 fd = -1, r = -1;

	if ((fd = fs_tmp_open(&tmp, pk->dest, 0644)) < 0) {
		prov_err_sys(err, "cannot create a file beside '%s'", pk->dest);
		goto out;
	}
	if (arc_sha256_init(&s, err) != 0)
		goto out;
	while ((n = archive_read_data(a, blk, ARC_BLOCK)) > 0) {
		arc_sha256_update(&s, blk, (size_t)n);
		total += n;
		if (fs_write_all(fd, blk, (size_t)n) != 0) {
			prov_err_sys(err, "cannot write '%s'", tmp);
			goto out;
		}
	}
	if (n < 0) {
		arc_read_err(err, a, archive);
		goto out;
	}
	if (fsync(fd) != 0 || close(fd) != 0) {
		fd = -1;
		prov_err_sys(err, "cannot write '%s'", tmp);
		goto out;
	}
	fd = -1;
	if (rename(tmp, pk->dest) != 0) {
		prov_err_sys(err, "cannot rename '%s' to '%s'", tmp, pk->dest);
		goto out;
	}
	arc_sha256_final(&s, pk->sha256);
	pk->size = total;
	pk->found = 1;
	r = 0;
out:
	if (fd >= 0)
		close(fd);
	if (r != 0 && tmp != NULL)
		(void)unlink(tmp);
	arc_sha256_release(&s);
	free(blk);
	free(tmp);
	return r;
}

int
arc_extract(const char *archive, struct arc_pick *picks, size_t n,
    struct prov_err *err)
{
	struct archive		*a;
	struct archive_entry	*ent;
	size_t			 i, left = n;
	int			 rc, r = -1;

	for (i = 0; i < n; i++) {
		picks[i].found = 0;
		picks[i].size = 0;
		picks[i].sha256[0] = '\0';
	}
	if ((a = arc_read_open(archive, err)) == NULL)
		return -1;
	while (left > 0) {
		const char	*name;

		rc = archive_read_next_header(a, &ent);
		if (rc == ARCHIVE_EOF)
			break;
		if (rc != ARCHIVE_OK && rc != ARCHIVE_WARN) {
			arc_read_err(err, a, archive);
			goto out;
		}
		if (archive_entry_filetype(ent) != AE_IFREG ||
		    (name = archive_entry_pathname(ent)) == NULL)
			continue;
		name = arc_name_norm(name);
		for (i = 0; i < n; i++) {
			if (picks[i].found ||
			    strcasecmp(arc_name_norm(picks[i].member), name) != 0)
				continue;
			if (arc_extract_one(a, archive, &picks[i], err) != 0)
				goto out;
			left--;
			break;
		}
	}
	r = 0;
out:
	archive_read_free(a);
	return r;
}

int
arc_scan(const char *path, const char *const *keep, size_t keep_max,
    arc_scan_fn fn, void *arg, struct prov_err *err)
{
	struct archive		*a;
	struct archive_entry	*ent;
	struct buf		 data = BUF_INIT;
	char			*blk = xmalloc(ARC_BLOCK);
	int			 rc, r = -1;

	if ((a = arc_read_open(path, err)) == NULL)
		goto out;
	for (;;) {
		struct arc_member	 m;
		struct arc_sha256	 s = ARC_SHA256_INIT;
		const char		*name;
		la_ssize_t		 n;
		int			 kept = 0;
		size_t			 k;

		rc = archive_read_next_header(a, &ent);
		if (rc == ARCHIVE_EOF)
			break;
		if (rc != ARCHIVE_OK && rc != ARCHIVE_WARN) {
			arc_read_err(err, a, path);
			goto out;
		}
		memset(&m, 0, sizeof m);
		name = archive_entry_pathname(ent);
		m.name = arc_name_norm(name != NULL ? name : "");
		if (archive_entry_hardlink(ent) != NULL)
			m.type = 'l';
		else
			switch (archive_entry_filetype(ent)) {
			case AE_IFREG:
				m.type = 'f';
				break;
			case AE_IFDIR:
				m.type = 'd';
				break;
			case AE_IFLNK:
				m.type = 'l';
				break;
			default:
				m.type = 'o';
			}
		if (m.type == 'f') {
			for (k = 0; keep != NULL && keep[k] != NULL; k++)
				if (strcmp(keep[k], m.name) == 0)
					kept = 1;
			buf_reset(&data);
			if (arc_sha256_init(&s, err) != 0)
				goto out;
			while ((n = archive_read_data(a, blk, ARC_BLOCK)) > 0) {
				arc_sha256_update(&s, blk, (size_t)n);
				m.size += n;
				if (kept && (size_t)m.size <= keep_max)
					buf_add(&data, blk, (size_t)n);
			}
			if (n < 0) {
				arc_sha256_release(&s);
				arc_read_err(err, a, path);
				goto out;
			}
			arc_sha256_final(&s, m.sha256);
			if (kept && (size_t)m.size <= keep_max) {
				m.data = data.buf;
				m.len = data.len;
			}
		}
		if (fn(arg, &m, err) != 0)
			goto out;
	}
	r = 0;
out:
	if (a != NULL)
		archive_read_free(a);
	buf_release(&data);
	free(blk);
	return r;
}

/* "control.tar", "control.tar.xz", ... (GNU ar may add a trailing '/'). */
static int
arc_is_control_tar(const char *name)
{
	return strncmp(name, "control.tar", 11) == 0 &&
	    (name[11] == '\0' || name[11] == '.' || name[11] == '/');
}

/* Read the current member whole into `out`, at most `max` bytes. */
static int
arc_read_member(struct buf *out, struct archive *a, const char *what,
    size_t max, struct prov_err *err)
{
	char		blk[8192];
	la_ssize_t	n;

	while ((n = archive_read_data(a, blk, sizeof blk)) > 0) {
		if (out->len + (size_t)n > max)
			return prov_err_set(err, PROV_E_ARCHIVE, "'%s' is "
			    "larger than %zu bytes", what, max);
		buf_add(out, blk, (size_t)n);
	}
	if (n < 0)
		return arc_read_err(err, a, what);
	return 0;
}

int
arc_deb_control(struct buf *out, const char *deb, struct prov_err *err)
{
	struct archive		*a = NULL, *t = NULL;
	struct archive_entry	*ent;
	struct buf		 ctl = BUF_INIT;
	int			 rc, found = 0, r = -1;

	if ((a = archive_read_new()) == NULL)
		return prov_err_set(err, PROV_E_ARCHIVE, "cannot start "
		    "libarchive");
	archive_read_support_format_ar(a);
	if (archive_read_open_filename(a, deb, ARC_BLOCK) != ARCHIVE_OK) {
		arc_read_err(err, a, deb);
		goto out;
	}
	while ((rc = archive_read_next_header(a, &ent)) == ARCHIVE_OK ||
	    rc == ARCHIVE_WARN) {
		const char	*name = archive_entry_pathname(ent);

		if (name != NULL && arc_is_control_tar(name)) {
			if (arc_read_member(&ctl, a, deb, ARC_DEB_MAX, err) != 0)
				goto out;
			found = 1;
			break;
		}
	}
	if (!found) {
		if (rc != ARCHIVE_EOF && rc != ARCHIVE_OK && rc != ARCHIVE_WARN)
			arc_read_err(err, a, deb);
		else
			prov_err_set(err, PROV_E_ARCHIVE, "'%s' is not a Debian "
			    "package: no control.tar member", deb);
		goto out;
	}
	if ((t = archive_read_new()) == NULL) {
		prov_err_set(err, PROV_E_ARCHIVE, "cannot start libarchive");
		goto out;
	}
	archive_read_support_filter_all(t);
	archive_read_support_format_tar(t);
	if (archive_read_open_memory(t, ctl.buf, ctl.len) != ARCHIVE_OK) {
		arc_read_err(err, t, deb);
		goto out;
	}
	found = 0;
	while ((rc = archive_read_next_header(t, &ent)) == ARCHIVE_OK ||
	    rc == ARCHIVE_WARN) {
		const char	*name = archive_entry_pathname(ent);

		if (name != NULL && strcmp(arc_name_norm(name), "control") == 0) {
			if (arc_read_member(out, t, deb, ARC_CONTROL_MAX,
			    err) != 0)
				goto out;
			found = 1;
			break;
		}
	}
	if (!found) {
		if (rc != ARCHIVE_EOF)
			arc_read_err(err, t, deb);
		else
			prov_err_set(err, PROV_E_ARCHIVE, "'%s' has no control "
			    "file", deb);
		goto out;
	}
	r = 0;
out:
	if (t != NULL)
		archive_read_free(t);
	if (a != NULL)
		archive_read_free(a);
	buf_release(&ctl);
	return r;
}

/* Writing. */

static int
arc_write_err(struct prov_err *err, struct arc_writer *w)
{
	const char	*m = archive_error_string(w->a);

	w->broken = 1;
	return prov_err_set(err, PROV_E_ARCHIVE, "cannot write '%s': %s",
	    w->path, m != NULL ? m : "unknown libarchive error");
}

int
arc_writer_open(struct arc_writer **out, const char *path,
    struct prov_err *err)
{
	struct arc_writer	*w = xcalloc(1, sizeof *w);
	int			 r = -1;

	*out = NULL;
	w->path = xstrdup(path);
	w->fd = -1;
	w->mtime = time(NULL);
	if ((w->a = archive_write_new()) == NULL) {
		prov_err_set(err, PROV_E_ARCHIVE, "cannot start libarchive");
		goto out;
	}
	if (archive_write_add_filter_zstd(w->a) != ARCHIVE_OK ||
	    archive_write_set_format_pax_restricted(w->a) != ARCHIVE_OK) {
		arc_write_err(err, w);
		goto out;
	}
	if ((w->fd = fs_tmp_open(&w->part, path, 0644)) < 0) {
		prov_err_sys(err, "cannot create a file beside '%s'", path);
		goto out;
	}
	if (archive_write_open_fd(w->a, w->fd) != ARCHIVE_OK) {
		arc_write_err(err, w);
		goto out;
	}
	*out = w;
	w = NULL;
	r = 0;
out:
	arc_writer_free(w);
	return r;
}

static struct archive_entry *
arc_writer_entry(struct arc_writer *w, const char *name, int64_t size,
    int mode)
{
	struct archive_entry	*e = archive_entry_new();

	archive_entry_set_pathname(e, name);
	archive_entry_set_size(e, size);
	archive_entry_set_filetype(e, AE_IFREG);
	archive_entry_set_perm(e, (mode_t)mode);
	archive_entry_set_mtime(e, w->mtime, 0);
	archive_entry_set_uid(e, 0);
	archive_entry_set_gid(e, 0);
	archive_entry_set_uname(e, "root");
	archive_entry_set_gname(e, "root");
	return e;
}

int
arc_writer_add_buf(struct arc_writer *w, const char *name, const void *p,
    size_t len, int mode, struct prov_err *err)
{
	struct archive_entry	*e;
	const char		*q = p;
	int			 r = -1;

	e = arc_writer_entry(w, name, (int64_t)len, mode);
	if (archive_write_header(w->a, e) != ARCHIVE_OK) {
		arc_write_err(err, w);
		goto out;
	}
	while (len > 0) {
		size_t		chunk = len > ARC_BLOCK ? ARC_BLOCK : len;
		la_ssize_t	n = archive_write_data(w->a, q, chunk);

		if (n <= 0) {
			arc_write_err(err, w);
			goto out;
		}
		q += n;
		len -= (size_t)n;
	}
	r = 0;
out:
	archive_entry_free(e);
	return r;
}

int
arc_writer_add_file(struct arc_writer *w, const char *name, const char *path,
    const char *want_sha256, char sha256[ARC_SHA256_HEX], int64_t *size,
    struct prov_err *err)
{
	struct archive_entry	*e = NULL;
	struct arc_sha256	 s = ARC_SHA256_INIT;
	struct stat		 st;
	char			*blk = NULL, got[ARC_SHA256_HEX];
	int64_t			 left;
	int			 fd, r = -1;

	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return prov_err_sys(err, "cannot open '%s'", path);
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
		if (!S_ISREG(st.st_mode))
			errno = EINVAL;
		prov_err_sys(err, "cannot pack '%s'", path);
		goto out;
	}
	if (arc_sha256_init(&s, err) != 0)
		goto out;
	e = arc_writer_entry(w, name, (int64_t)st.st_size, 0644);
	if (archive_write_header(w->a, e) != ARCHIVE_OK) {
		arc_write_err(err, w);
		goto out;
	}
	blk = xmalloc(ARC_BLOCK);
	for (left = st.st_size; left > 0;) {
		size_t	want = left > ARC_BLOCK ? ARC_BLOCK : (size_t)left;
		ssize_t	n = read(fd, blk, want);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			w->broken = 1;
			if (n == 0)
				prov_err_set(err, PROV_E_SYS, "'%s' shrank "
				    "while it was packed", path);
			else
				prov_err_sys(err, "cannot read '%s'", path);
			goto out;
		}
		arc_sha256_update(&s, blk, (size_t)n);
		if (archive_write_data(w->a, blk, (size_t)n) != n) {
			arc_write_err(err, w);
			goto out;
		}
		left -= n;
	}
	arc_sha256_final(&s, got);
	if (want_sha256 != NULL && strcasecmp(want_sha256, got) != 0) {
		w->broken = 1;
		prov_err_set(err, PROV_E_ARCHIVE, "'%s' has SHA-256 %s, "
		    "expected %s: not packed", path, got, want_sha256);
		goto out;
	}
	if (sha256 != NULL)
		memcpy(sha256, got, ARC_SHA256_HEX);
	if (size != NULL)
		*size = (int64_t)st.st_size;
	r = 0;
out:
	arc_sha256_release(&s);
	if (e != NULL)
		archive_entry_free(e);
	free(blk);
	close(fd);
	return r;
}

int
arc_writer_commit(struct arc_writer *w, struct prov_err *err)
{
	if (w->broken)
		return prov_err_set(err, PROV_E_ARCHIVE, "'%s' is incomplete: "
		    "not committed", w->path);
	if (archive_write_close(w->a) != ARCHIVE_OK)
		return arc_write_err(err, w);
	if (fsync(w->fd) != 0 || close(w->fd) != 0) {
		w->fd = -1;
		w->broken = 1;
		return prov_err_sys(err, "cannot write '%s'", w->part);
	}
	w->fd = -1;
	if (rename(w->part, w->path) != 0) {
		w->broken = 1;
		return prov_err_sys(err, "cannot rename '%s' to '%s'", w->part,
		    w->path);
	}
	w->committed = 1;
	return 0;
}

void
arc_writer_free(struct arc_writer *w)
{
	if (w == NULL)
		return;
	if (w->a != NULL)
		archive_write_free(w->a);
	if (w->fd >= 0)
		close(w->fd);
	if (!w->committed && w->part != NULL)
		(void)unlink(w->part);
	free(w->path);
	free(w->part);
	free(w);
}

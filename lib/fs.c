/*
 * fs.c: files and folders written safely.  See fs.h.
 *
 * The folder rules follow OpenSSH's safe_path() (a path is only as safe
 * as every folder on the way to it), loosened where a shared folder is
 * the norm: a sticky world-writable folder like /tmp is fine *above* the
 * folder provision writes in, as long as what provision walks through
 * inside it is ours (the sticky bit keeps others from renaming it), but
 * never as that folder itself.
 */
#include "compat.h"

#include <fcntl.h>
#include <pwd.h>
#include <sys/random.h>
#include <sys/stat.h>

#include "err.h"
#include "fs.h"

#ifndef PROV_DATADIR
#error "PROV_DATADIR (the install data dir) comes from the Makefile"
#endif

#define FS_TMP_TRIES	16
#define FS_SAFE_HINT	"use a folder only you can write, e.g. made with " \
			"'mkdir -m 700 DIR'"

int
fs_tmp_open(char **tmp, const char *path, int mode)
{
	unsigned char	rnd[8];
	char		*name;
	int		 fd, i;

	*tmp = NULL;
	for (i = 0; i < FS_TMP_TRIES; i++) {
		if (getrandom(rnd, sizeof rnd, 0) != (ssize_t)sizeof rnd)
			return -1;
		name = xasprintf("%s.tmp.%02x%02x%02x%02x%02x%02x%02x%02x",
		    path, rnd[0], rnd[1], rnd[2], rnd[3], rnd[4], rnd[5],
		    rnd[6], rnd[7]);
		fd = open(name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW |
		    O_CLOEXEC, (mode_t)mode);
		if (fd >= 0) {
			*tmp = name;
			return fd;
		}
		free(name);
		if (errno != EEXIST)
			return -1;
	}
	return -1;
}

/* Others (group or world) may create, remove or rename names in it. */
static int
fs_shared(const struct stat *st)
{
	return (st->st_mode & (S_IWGRP | S_IWOTH)) != 0;
}

/* Root or this process's user. */
static int
fs_trusted_owner(const struct stat *st)
{
	return st->st_uid == 0 || st->st_uid == geteuid();
}

static char *
fs_owner_name(uid_t uid)
{
	struct passwd	 pw, *res = NULL;
	char		 b[1024];

	if (getpwuid_r(uid, &pw, b, sizeof b, &res) == 0 && res != NULL)
		return xasprintf("user '%s' (uid %u)", res->pw_name,
		    (unsigned)uid);
	return xasprintf("uid %u", (unsigned)uid);
}

static char *
fs_absolute(const char *dir)
{
	char	cwd[PATH_MAX];

	if (dir[0] == '/')
		return xstrdup(dir);
	if (getcwd(cwd, sizeof cwd) == NULL)
		return NULL;
	return xasprintf("%s/%s", strcmp(cwd, "/") == 0 ? "" : cwd, dir);
}

/*
 * A link on the way that lies in a folder others can write could be
 * swapped for one to anywhere: the path as given, component by component.
 */
static int
fs_links_safe(const char *dir, struct prov_err *err)
{
	char		*abs = fs_absolute(dir), *p;
	struct stat	 st, pst;
	int		 r = -1;

	if (abs == NULL)
		return prov_err_sys(err, "cannot resolve '%s'", dir);
	for (p = abs + 1; ; p++) {
		if (*p != '/' && *p != '\0')
			continue;
		{
			char	save = *p, *slash;

			*p = '\0';
			if (lstat(abs, &st) != 0) {
				prov_err_sys(err, "cannot read '%s'", abs);
				goto out;
			}
			if (S_ISLNK(st.st_mode)) {
				slash = strrchr(abs, '/');
				*slash = '\0';
				if (stat(slash == abs ? "/" : abs, &pst) == 0 &&
				    fs_shared(&pst)) {
					prov_err_set(err, PROV_E_SYS, "'%s' is "
					    "reached through a symbolic link "
					    "in '%s', which other users can "
					    "write: they could point it "
					    "anywhere (%s)", dir, slash == abs ?
					    "/" : abs, FS_SAFE_HINT);
					goto out;
				}
				*slash = '/';
			}
			*p = save;
			if (save == '\0')
				break;
		}
	}
	r = 0;
out:
	free(abs);
	return r;
}

int
fs_dir_safe(const char *dir, struct prov_err *err)
{
	char		*real = NULL, *pre = NULL, *who = NULL;
	struct stat	 st;
	size_t		 i, len;
	int		 r = -1, up_shared = 0;

	if (fs_links_safe(dir, err) != 0)
		return -1;
	if ((real = realpath(dir, NULL)) == NULL)
		return prov_err_sys(err, "cannot resolve '%s'", dir);
	/* Every folder from / down: what others could swap or rename. */
	len = strlen(real);
	for (i = 0; i <= len; i++) {
		if (i > 0 && real[i] != '/' && real[i] != '\0')
			continue;
		if (i == 1 && len == 1)
			break;		/* "/" alone: done at i == 0 */
		free(pre);
		pre = xstrndup(real, i == 0 ? 1 : i);
		if (stat(pre, &st) != 0) {
			prov_err_sys(err, "cannot read '%s'", pre);
			goto out;
		}
		if (i < len && up_shared && !fs_trusted_owner(&st)) {
			who = fs_owner_name(st.st_uid);
			prov_err_set(err, PROV_E_SYS, "'%s' belongs to %s, "
			    "in a folder other users can write: they could "
			    "change what provision writes under '%s' (%s)",
			    pre, who, dir, FS_SAFE_HINT);
			goto out;
		}
		if (i < len && fs_shared(&st) && !(st.st_mode & S_ISVTX)) {
			prov_err_set(err, PROV_E_SYS, "'%s' lies in '%s', "
			    "which other users can write (mode %04o, no "
			    "sticky bit): they could swap it (%s)", dir, pre,
			    (unsigned)(st.st_mode & 07777), FS_SAFE_HINT);
			goto out;
		}
		up_shared = fs_shared(&st);
	}
	if (!S_ISDIR(st.st_mode)) {
		prov_err_set(err, PROV_E_SYS, "'%s' is not a folder", dir);
		goto out;
	}
	if (!fs_trusted_owner(&st)) {
		who = fs_owner_name(st.st_uid);
		prov_err_set(err, PROV_E_SYS, "'%s' belongs to %s, not to you "
		    "or root: that user could plant links where provision "
		    "writes (%s)", dir, who, FS_SAFE_HINT);
		goto out;
	}
	if (fs_shared(&st)) {
		prov_err_set(err, PROV_E_SYS, "'%s' can be written by other "
		    "users (mode %04o%s): they could plant links where "
		    "provision writes (%s, or 'chmod go-w' it)", dir,
		    (unsigned)(st.st_mode & 07777), st.st_mode & S_ISVTX ?
		    ", a shared sticky folder like /tmp" : "", FS_SAFE_HINT);
		goto out;
	}
	r = 0;
out:
	free(who);
	free(pre);
	free(real);
	return r;
}

int
fs_mkdirs(const char *dir, int mode, struct prov_err *err)
{
	if (fs_mkdir_p(dir, (mode_t)mode, err) != 0)
		return -1;
	return fs_dir_safe(dir, err);
}

int
fs_parent_safe(const char *path, struct prov_err *err)
{
	const char	*slash = strrchr(path, '/');
	char		*dir;
	int		 r;

	if (slash == NULL)
		return fs_dir_safe(".", err);
	dir = slash == path ? xstrdup("/") : xstrndup(path,
	    (size_t)(slash - path));
	r = fs_dir_safe(dir, err);
	free(dir);
	return r;
}

char *
fs_cache_home(struct prov_err *err)
{
	const char	*x = getenv("XDG_CACHE_HOME"), *h = getenv("HOME");
	struct passwd	 pw, *res = NULL;
	char		 b[4096];

	/* XDG: a relative value is invalid and ignored */
	if (x != NULL && x[0] == '/')
		return xstrdup(x);
	if (h != NULL && h[0] == '/')
		return xasprintf("%s/.cache", h);
	if (getpwuid_r(geteuid(), &pw, b, sizeof b, &res) == 0 &&
	    res != NULL && res->pw_dir != NULL && res->pw_dir[0] == '/')
		return xasprintf("%s/.cache", res->pw_dir);
	prov_err_set(err, PROV_E_USAGE, "no folder for the cache: neither "
	    "XDG_CACHE_HOME nor HOME is set and uid %u has no home in the "
	    "passwd database (give --cache DIR)", (unsigned)geteuid());
	return NULL;
}

char *
fs_data_dir(const char *name, const char *env)
{
	const char	*e = getenv(env);
	char		 exe[PATH_MAX], *slash, *p;
	ssize_t		 n;

	if (e != NULL && *e != '\0')
		return xstrdup(e);
	n = readlink("/proc/self/exe", exe, sizeof exe - 1);
	if (n > 0) {
		exe[n] = '\0';
		if ((slash = strrchr(exe, '/')) != NULL) {
			*slash = '\0';
			p = xasprintf("%s/%s", exe, name);
			if (access(p, R_OK) == 0)
				return p;
			free(p);
			p = xasprintf("%s/../%s", exe, name);
			if (access(p, R_OK) == 0)
				return p;
			free(p);
		}
	}
	return xasprintf("%s/%s", PROV_DATADIR, name);
}

int
fs_mkdir_p(const char *path, mode_t mode, struct prov_err *err)
{
	char	*d = xstrdup(path), *p;
	int	 r = -1;

	if (*d == '\0') {
		errno = ENOENT;
		prov_err_sys(err, "cannot create ''");
		goto out;
	}
	/* each parent, then path itself (p at its NUL) */
	for (p = d + 1;; p++) {
		char	c = *p;

		if (c != '/' && c != '\0')
			continue;
		*p = '\0';
		if (mkdir(d, mode) != 0 && errno != EEXIST) {
			prov_err_sys(err, "cannot create '%s'", d);
			goto out;
		}
		*p = c;
		if (c == '\0')
			break;
	}
	r = 0;
out:
	free(d);
	return r;
}

int
fs_write_all(int fd, const void *buf, size_t n)
{
	const char	*p = buf;
	ssize_t		 w;

	while (n > 0) {
		if ((w = write(fd, p, n)) < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		p += w;
		n -= (size_t)w;
	}
	return 0;
}

/*
 * fs.h: files and folders this process writes, safe from other local
 * users.
 *
 * Another user who can write a folder provision writes in (/tmp, a
 * group-writable project folder) can plant a symbolic link at a name
 * provision is about to create, and so redirect a root write to any file,
 * or swap the folder's contents under it.  Three rules close that:
 *
 *	fs_tmp_open(&tmp, path, 0600)	a temporary file beside `path`
 *					("PATH.tmp.RANDOM"), created with
 *					O_EXCL|O_NOFOLLOW: never an existing
 *					file, never through a link;
 *	fs_dir_safe(dir, &err)		refuse a folder another user owns or
 *					can write (sticky /tmp-style folders
 *					included), or one reached through a
 *					link or a folder others can change;
 *	fs_mkdirs(dir, 0700, &err)	fs_mkdir_p(), then fs_dir_safe().
 *
 * fs_cache_home() says where per-user caches go without ever falling back
 * to a shared folder.
 *
 * fs_mkdir_p() makes a directory and its parents; fs_write_all() writes
 * a whole buffer through short writes and signals; fs_data_dir() finds
 * the read-only data provision ships (templates/, profiles/): in a built
 * tree beside the binary, or where `make install` put it (PROV_DATADIR,
 * derived from PREFIX at build time).
 */
#ifndef PROV_FS_H
#define PROV_FS_H

#include <sys/types.h>

#include "err.h"

/*
 * Create and open (O_WRONLY) a new file named "PATH.tmp.RANDOM" with
 * `mode`.  Returns the descriptor and sets *tmp to its name (the caller
 * frees it, and unlinks the file unless it renames it); -1 with errno
 * (*tmp NULL) when it cannot.
 */
int	fs_tmp_open(char **tmp, const char *path, int mode);

/*
 * 0 when `dir` is a folder only this user (or root) can change; -1 with
 * err saying why not and what to do: it belongs to another user, it is
 * writable by group or others (sticky or not), a folder above it is
 * writable by others without the sticky bit, or a link or folder on the
 * way lies in a folder others can write (they could swap it).
 */
int	fs_dir_safe(const char *dir, struct prov_err *err);

/* fs_mkdir_p(dir) (new folders get `mode`), then fs_dir_safe(). */
int	fs_mkdirs(const char *dir, int mode, struct prov_err *err);

/* fs_dir_safe() of the folder that holds `path` (a file to write). */
int	fs_parent_safe(const char *path, struct prov_err *err);

/*
 * The folder for per-user caches: $XDG_CACHE_HOME, else $HOME/.cache, else
 * the passwd entry's home + /.cache (caller frees); NULL with err when
 * none is known (never a shared folder like /tmp).
 */
char	*fs_cache_home(struct prov_err *err);

/*
 * mkdir -p: path and every missing parent, each made with mode (existing
 * ones are left as they are).  -1 with err naming the one that could not
 * be made; an empty path is an error (ENOENT), as for mkdir(2).
 */
int	fs_mkdir_p(const char *path, mode_t mode, struct prov_err *err);

/* Write all n bytes to fd, again after EINTR; -1 with errno. */
int	fs_write_all(int fd, const void *p, size_t n);

/*
 * The data dir NAME ("templates", "profiles"): $ENV when set and not
 * empty, else NAME beside the binary or one level up (./provision,
 * build/provision), else PROV_DATADIR/NAME.  The caller frees it.
 */
char	*fs_data_dir(const char *name, const char *env);

#endif

/*
 * err.h: the one error type of provision, and lists of them.
 *
 * lib/ functions return 0 or -1 and fill a caller-owned `struct prov_err`
 * passed last; there is no hidden "last error".  Validation appends to a
 * `struct prov_errs` and keeps going, so a user sees every problem in a
 * plan at once.  Messages are lowercase, without a full stop, and say what
 * is wrong first; hints say what would be right.
 *
 *	struct prov_err err = PROV_ERR_INIT;
 *	if (plan_load(&plan, path, &opts, &err) != 0) {
 *		prov_err_print(&err, stderr);
 *		prov_err_release(&err);
 *	}
 */
#ifndef PROV_ERR_H
#define PROV_ERR_H

#include <stddef.h>
#include <stdio.h>

/* Exit codes shared by every command (docs/architecture.md, "The layers"). */
#define PROV_EXIT_OK		0
#define PROV_EXIT_FAIL		1	/* checks failed, run failed */
#define PROV_EXIT_USAGE		2	/* plan unreadable, bad usage */

enum prov_code {
	PROV_E_NONE = 0,
	PROV_E_SYS,		/* a system call failed */
	PROV_E_PLAN,		/* the plan is wrong */
	PROV_E_CATALOG,		/* a catalog file is wrong */
	PROV_E_USAGE,		/* bad arguments */
	PROV_E_SSH,		/* could not talk SSH */
	PROV_E_HOSTKEY,		/* host key unknown, changed or revoked */
	PROV_E_AUTH,		/* authentication refused */
	PROV_E_TIMEOUT,
	PROV_E_HTTP,
	PROV_E_ARCHIVE,
	PROV_E_PARSE,		/* tool output we could not read */
	PROV_E_STATE,
};

/* A place in a file; 1-based; line 0 means no location. */
struct prov_loc {
	const char	*file;		/* borrowed: lives as long as the plan */
	unsigned	 line, col;
};

struct prov_err {
	enum prov_code	 code;
	struct prov_loc	 loc;
	char		*msg;
	char		*hint;
};

#define PROV_ERR_INIT { PROV_E_NONE, { NULL, 0, 0 }, NULL, NULL }

struct prov_errs {
	struct prov_err	*v;
	size_t		 n, alloc;
	size_t		 max;		/* stop collecting after this many; 0 = 1000 */
};

#define PROV_ERRS_INIT { NULL, 0, 0, 0 }

/* Set err (freeing what it held); always returns -1 for `return prov_err_set(...)`. */
int	prov_err_set(struct prov_err *, enum prov_code, const char *fmt, ...)
	    __attribute__((format(printf, 3, 4)));
int	prov_err_setloc(struct prov_err *, enum prov_code,
	    const struct prov_loc *, const char *hint, const char *fmt, ...)
	    __attribute__((format(printf, 5, 6)));
/* A PROV_E_PARSE error about what was read: "lscpu: no 'CPU(s):' line". */
int	prov_err_parse(struct prov_err *, const char *what, const char *fmt, ...)
	    __attribute__((format(printf, 3, 4)));
/* errno's text appended: "open 'x': No such file or directory". */
int	prov_err_sys(struct prov_err *, const char *fmt, ...)
	    __attribute__((format(printf, 2, 3)));
/* Prefix the message with more context: "node 'gpu01': " + msg. */
void	prov_err_prefix(struct prov_err *, const char *fmt, ...)
	    __attribute__((format(printf, 2, 3)));
void	prov_err_release(struct prov_err *);
/* Move src into dst (dst released first); src becomes empty. */
void	prov_err_move(struct prov_err *dst, struct prov_err *src);
/* "file:line:col: msg (hint)" or "msg (hint)" without a newline. */
char	*prov_err_format(const struct prov_err *);
void	 prov_err_print(const struct prov_err *, FILE *);

/* Append an error with a location; returns -1. */
int	prov_errs_add(struct prov_errs *, enum prov_code,
	    const struct prov_loc *, const char *hint, const char *fmt, ...)
	    __attribute__((format(printf, 5, 6)));
/* Move an error into the list. */
void	prov_errs_push(struct prov_errs *, struct prov_err *);
/* Sort by file, line, column (stable), so output follows the file. */
void	prov_errs_sort(struct prov_errs *);
void	prov_errs_print(const struct prov_errs *, FILE *);
void	prov_errs_release(struct prov_errs *);

#endif

/*
 * compat.h: the first include of every .c file in provision.
 *
 * The only place for feature macros and the system headers every module
 * uses, so that each header can be compiled alone after this one
 * (`make check-headers`).
 */
#ifndef PROV_COMPAT_H
#define PROV_COMPAT_H

#define _GNU_SOURCE 1

#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/types.h>
#include <unistd.h>

#define PROV_PRINTF(f, a) __attribute__((format(printf, f, a)))
#define PROV_NORETURN __attribute__((noreturn))
#define PROV_UNUSED __attribute__((unused))

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* Allocation that never returns NULL: out of memory aborts the process. */
void	*xmalloc(size_t);
void	*xcalloc(size_t, size_t);
void	*xrealloc(void *, size_t);
void	*xreallocarray(void *, size_t, size_t);
char	*xstrdup(const char *);
char	*xstrndup(const char *, size_t);
char	*xasprintf(const char *, ...) PROV_PRINTF(1, 2);
char	*xvasprintf(const char *, va_list) PROV_PRINTF(1, 0);
/* Wipe then free: for passwords, tokens and keys (OpenSSH freezero). */
void	 freezero_str(char *);

/* Grow *arr (of *alloc elements of size sz) to hold at least n. */
#define ALLOC_GROW(arr, n, alloc)					\
	do {								\
		if ((size_t)(n) > (alloc)) {				\
			size_t na_ = (alloc) ? (alloc) * 2 : 8;		\
			while (na_ < (size_t)(n))			\
				na_ *= 2;				\
			(arr) = xreallocarray((arr), na_, sizeof *(arr)); \
			(alloc) = na_;					\
		}							\
	} while (0)

/* Banned functions (STYLE.md section 6); `make style` greps for them too. */
#ifndef PROV_ALLOW_BANNED
#undef strcpy
#define strcpy(a, b) BANNED_strcpy
#undef strcat
#define strcat(a, b) BANNED_strcat
#undef sprintf
#define sprintf(...) BANNED_sprintf
#undef strtok
#define strtok(a, b) BANNED_strtok
#undef atoi
#define atoi(a) BANNED_atoi
#undef strncpy
#define strncpy(a, b, c) BANNED_strncpy
#endif

#endif

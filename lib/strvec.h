/*
 * strvec.h: NULL-terminated vectors of owned strings (git's strvec).
 *
 * STRVEC_INIT, then strvec_push*(); `v` is always NULL-terminated and
 * can be passed to execvp().  strvec_clear() frees every string.
 */
#ifndef PROV_STRVEC_H
#define PROV_STRVEC_H

#include <stddef.h>

struct strvec {
	char	**v;
	size_t	  n, alloc;
};

extern char *strvec_empty_[];
#define STRVEC_INIT { strvec_empty_, 0, 0 }

void	strvec_push(struct strvec *, const char *);
void	strvec_pushf(struct strvec *, const char *, ...)
	    __attribute__((format(printf, 2, 3)));
/* Take ownership of an allocated string. */
void	strvec_push_nodup(struct strvec *, char *);
/* Append copies of every string of src. */
void	strvec_pushv(struct strvec *, const struct strvec *src);
void	strvec_clear(struct strvec *);
/* Split `s` at every `sep`, skipping empty fields when skip_empty. */
void	strvec_split(struct strvec *, const char *s, int sep, int skip_empty);
/* Append the lines of text (empty ones too), a CR before a newline dropped. */
void	strvec_split_lines(struct strvec *, const char *text);
/* Index of `s` in v, or -1. */
long	strvec_find(const struct strvec *, const char *s);

#endif

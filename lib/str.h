/*
 * str.h: small string helpers shared by the modules: edit distance for
 * "did you mean" hints, number parsing that reports errors instead of
 * guessing (no atoi), and RFC 1123 host name checks.
 */
#ifndef PROV_STR_H
#define PROV_STR_H

#include <stddef.h>

/* Levenshtein distance, capped at `cap` (returns cap+1 past it). */
size_t		 str_distance(const char *a, const char *b, size_t cap);
/*
 * The candidate nearest to `s`, or NULL when none is close enough to be a
 * plausible typo.  `cands` is NULL-terminated; the result is borrowed.
 */
const char	*str_suggest(const char *s, const char *const *cands);
/* Parse a whole decimal integer; -1 when s is not one or out of range. */
int		 str_to_long(const char *s, long *out);
int		 str_to_ulong(const char *s, unsigned long *out);
/* Parse a whole decimal number (e.g. "2.5", "1e3"); -1 when not one. */
int		 str_to_double(const char *s, double *out);
/* 1 when s is a valid RFC 1123 host name label sequence (no trailing dot). */
int		 str_is_hostname(const char *s);
/* Trim leading and trailing blanks and line ends in place; returns the start. */
char		*str_trim(char *s);
/* 1 when s starts with prefix. */
int		 str_starts(const char *s, const char *prefix);
/* 1 when s consists only of [A-Za-z0-9._+-] and is non-empty: safe in paths and shells. */
int		 str_is_safe_word(const char *s);

#endif

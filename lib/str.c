/*
 * str.c: string helpers.  See str.h.
 */
#include "compat.h"

#include <ctype.h>
#include <math.h>

#include "str.h"

size_t
str_distance(const char *a, const char *b, size_t cap)
{
	size_t	la = strlen(a), lb = strlen(b), i, j;
	size_t	row[64], prev, tmp;

	if (la > 63 || lb > 63)
		return cap + 1;
	if ((la > lb ? la - lb : lb - la) > cap)
		return cap + 1;
	for (j = 0; j <= lb; j++)
		row[j] = j;
	for (i = 1; i <= la; i++) {
		prev = row[0];
		row[0] = i;
		for (j = 1; j <= lb; j++) {
			size_t	sub = prev + (tolower((unsigned char)a[i - 1]) !=
			    tolower((unsigned char)b[j - 1]));
			size_t	del = row[j] + 1, ins = row[j - 1] + 1;

			tmp = row[j];
			row[j] = sub < del ? (sub < ins ? sub : ins) :
			    (del < ins ? del : ins);
			prev = tmp;
		}
	}
	return row[lb] > cap ? cap + 1 : row[lb];
}

const char *
str_suggest(const char *s, const char *const *cands)
{
	const char	*best = NULL;
	size_t		 bestd = SIZE_MAX, d, cap, len = strlen(s);

	/* Allow roughly one edit per three characters, at least one. */
	cap = len / 3 > 0 ? len / 3 : 1;
	if (cap > 3)
		cap = 3;
	for (; *cands != NULL; cands++) {
		d = str_distance(s, *cands, cap);
		if (d <= cap && d < bestd) {
			best = *cands;
			bestd = d;
		}
	}
	return best;
}

int
str_to_long(const char *s, long *out)
{
	char	*end;
	long	 v;

	if (s == NULL || *s == '\0' || isspace((unsigned char)*s))
		return -1;
	errno = 0;
	v = strtol(s, &end, 10);
	if (errno != 0 || *end != '\0')
		return -1;
	*out = v;
	return 0;
}

int
str_to_ulong(const char *s, unsigned long *out)
{
	long	v;

	if (str_to_long(s, &v) != 0 || v < 0)
		return -1;
	*out = (unsigned long)v;
	return 0;
}

int
str_to_double(const char *s, double *out)
{
	char	*end;
	double	 v;

	if (s == NULL || *s == '\0' || isspace((unsigned char)*s))
		return -1;
	errno = 0;
	v = strtod(s, &end);
	if (errno != 0 || *end != '\0' || !isfinite(v))
		return -1;
	/* strtod takes hex and "inf"; plans take plain decimals. */
	if (strchr(s, 'x') != NULL || strchr(s, 'X') != NULL)
		return -1;
	*out = v;
	return 0;
}

int
str_is_hostname(const char *s)
{
	size_t	label = 0, total = 0;
	int	prev = 0;

	if (s == NULL || *s == '\0')
		return 0;
	for (; *s != '\0'; s++, total++) {
		unsigned char	c = (unsigned char)*s;

		if (c == '.') {
			if (label == 0 || prev == '-')
				return 0;
			label = 0;
		} else if (isalnum(c) && c < 128) {
			label++;
		} else if (c == '-') {
			if (label == 0)
				return 0;
			label++;
		} else
			return 0;
		if (label > 63)
			return 0;
		prev = c;
	}
	return total <= 253 && label > 0 && prev != '-';
}

char *
str_trim(char *s)
{
	char	*e;

	while (*s == ' ' || *s == '\t' || *s == '\r' || *s == '\n')
		s++;
	e = s + strlen(s);
	while (e > s && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\r' ||
	    e[-1] == '\n'))
		*--e = '\0';
	return s;
}

int
str_starts(const char *s, const char *prefix)
{
	return strncmp(s, prefix, strlen(prefix)) == 0;
}

int
str_is_safe_word(const char *s)
{
	if (s == NULL || *s == '\0')
		return 0;
	for (; *s != '\0'; s++)
		if (!isalnum((unsigned char)*s) && strchr("._+-", *s) == NULL)
			return 0;
	return 1;
}

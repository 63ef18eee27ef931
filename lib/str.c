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

long
str_hex(const char *s)
{
	char	*end;
	long	 v;

	if (s == NULL)
		return -1;
	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
		s += 2;
	if (!isxdigit((unsigned char)*s))
		return -1;
	errno = 0;
	v = strtol(s, &end, 16);
	if (errno != 0 || *end != '\0' || v < 0)
		return -1;
	return v;
}

void
str_set(char **dst, const char *s)
{
	char	*c = s != NULL ? xstrdup(s) : NULL;

	free(*dst);
	*dst = c;
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

/*
 * Checks of what a plan value may hold (lib/schema.c types).  Each says
 * yes only to the characters its format needs: none of them lets through
 * a quote, a '$', a backquote, a ';', a '|', a space or a line end, except
 * str_is_text (no line ends nor control characters, for local names).
 */

int
str_is_text(const char *s, size_t max)
{
	size_t	n;

	if (s == NULL || *s == '\0')
		return 0;
	for (n = 0; s[n] != '\0'; n++)
		if ((unsigned char)s[n] < 0x20 || (unsigned char)s[n] == 0x7f)
			return 0;
	return n <= max;
}

/* s[0..n) is 1 to `digits` decimal digits without a leading zero, <= max. */
static int
str_is_num(const char *s, size_t n, size_t digits, unsigned long max)
{
	unsigned long	v = 0;
	size_t		i;

	if (n == 0 || n > digits || (n > 1 && s[0] == '0'))
		return 0;
	for (i = 0; i < n; i++) {
		if (!isdigit((unsigned char)s[i]))
			return 0;
		v = v * 10 + (unsigned long)(s[i] - '0');
	}
	return v <= max;
}

int
str_is_ipv4(const char *s)
{
	const char	*p = s, *dot;
	int		 i;

	if (s == NULL)
		return 0;
	for (i = 0; i < 4; i++) {
		dot = i < 3 ? strchr(p, '.') : p + strlen(p);
		if (dot == NULL || !str_is_num(p, (size_t)(dot - p), 3, 255))
			return 0;
		p = dot + 1;
	}
	return 1;
}

int
str_is_cidr4(const char *s)
{
	const char	*slash;
	char		 addr[16];

	if (s == NULL || (slash = strchr(s, '/')) == NULL ||
	    (size_t)(slash - s) >= sizeof addr)
		return 0;
	memcpy(addr, s, (size_t)(slash - s));
	addr[slash - s] = '\0';
	return str_is_ipv4(addr) && str_is_num(slash + 1, strlen(slash + 1),
	    2, 32);
}

int
str_is_mac(const char *s)
{
	size_t	i;

	if (s == NULL || strlen(s) != 17)
		return 0;
	for (i = 0; i < 17; i++)
		if (i % 3 == 2 ? s[i] != s[2] || (s[i] != ':' && s[i] != '-') :
		    !isxdigit((unsigned char)s[i]))
			return 0;
	return 1;
}

int
str_is_version(const char *s)
{
	size_t	n;

	if (s == NULL || !isdigit((unsigned char)*s))
		return 0;
	for (n = 0; s[n] != '\0'; n++)
		if (s[n] == '.' ? !isdigit((unsigned char)s[n + 1]) :
		    !isdigit((unsigned char)s[n]))
			return 0;
	return n <= 32;
}

int
str_is_user(const char *s)
{
	size_t	n;

	if (s == NULL || !(isalpha((unsigned char)*s) || *s == '_'))
		return 0;
	for (n = 0; s[n] != '\0'; n++)
		if (!isalnum((unsigned char)s[n]) && strchr("_.-", s[n]) == NULL)
			return 0;
	return n <= 64;
}

int
str_is_envvar(const char *s)
{
	size_t	n;

	if (s == NULL || !(isalpha((unsigned char)*s) || *s == '_'))
		return 0;
	for (n = 0; s[n] != '\0'; n++)
		if (!isalnum((unsigned char)s[n]) && s[n] != '_')
			return 0;
	return n <= 255;
}

int
str_is_hostport(const char *s)
{
	const char	*colon;
	char		*host;
	int		 ok;

	if (s == NULL)
		return 0;
	if ((colon = strrchr(s, ':')) == NULL)
		return str_is_hostname(s);
	if (!str_is_num(colon + 1, strlen(colon + 1), 5, 65535) ||
	    strcmp(colon + 1, "0") == 0)
		return 0;
	host = xstrndup(s, (size_t)(colon - s));
	ok = str_is_hostname(host);
	free(host);
	return ok;
}

int
str_is_jump(const char *s)
{
	const char	*at;
	char		*user;
	int		 ok;

	if (s == NULL || (at = strchr(s, '@')) == NULL)
		return str_is_hostport(s);
	user = xstrndup(s, (size_t)(at - s));
	ok = str_is_user(user) && str_is_hostport(at + 1);
	free(user);
	return ok;
}

int
str_is_url(const char *s)
{
	const char	*p, *end;
	char		*hp;
	int		 ok;

	if (s == NULL || strlen(s) > 2048)
		return 0;
	if (str_starts(s, "https://"))
		p = s + 8;
	else if (str_starts(s, "http://"))
		p = s + 7;
	else
		return 0;
	end = p + strcspn(p, "/");
	hp = xstrndup(p, (size_t)(end - p));
	ok = str_is_hostport(hp);
	free(hp);
	if (!ok)
		return 0;
	for (p = end; *p != '\0'; p++)
		if (!isalnum((unsigned char)*p) && strchr("/._~%+=,:@-", *p) ==
		    NULL)
			return 0;
	return 1;
}

int
str_is_ldap_uri(const char *s)
{
	const char	*p;
	char		*hp;
	size_t		 n;
	int		 ok;

	if (s == NULL || strlen(s) > 512)
		return 0;
	if (str_starts(s, "ldaps://"))
		p = s + 8;
	else if (str_starts(s, "ldap://"))
		p = s + 7;
	else
		return 0;
	n = strcspn(p, "/");
	if (p[n] != '\0' && strcmp(p + n, "/") != 0)
		return 0;
	hp = xstrndup(p, n);
	ok = str_is_hostport(hp);
	free(hp);
	return ok;
}

/*
 * The values of a DN are kept to what real bases and service accounts
 * use: no RFC 4514 escapes, quotes or hex values, so the DN is as safe
 * in sssd.conf, a shell word and ldapsearch's filter as it looks.
 */
int
str_is_ldap_dn(const char *s)
{
	const char	*p = s;
	size_t		 n;

	if (s == NULL || *s == '\0' || strlen(s) > 1024)
		return 0;
	for (;;) {
		/* TYPE */
		if (!isalpha((unsigned char)*p))
			return 0;
		p += strspn(p, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
		    "0123456789-");
		if (*p++ != '=')
			return 0;
		/* VALUE: not empty, no blank at either end */
		n = strspn(p, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
		    "0123456789 ._@-");
		if (n == 0 || p[0] == ' ' || p[n - 1] == ' ')
			return 0;
		p += n;
		if (*p == '\0')
			return 1;
		if (*p != ',' && *p != '+')
			return 0;
		p++;
	}
}

int
str_is_pkg(const char *s)
{
	return s != NULL && isalnum((unsigned char)*s) && str_is_safe_word(s) &&
	    strlen(s) <= 128;
}

int
str_is_mig_profile(const char *s)
{
	return s != NULL && isdigit((unsigned char)*s) && str_is_safe_word(s) &&
	    strchr(s, '_') == NULL && strlen(s) <= 32;
}

int
str_is_pciid(const char *s)
{
	size_t	i;

	if (s == NULL || strlen(s) != 9 || s[4] != ':')
		return 0;
	for (i = 0; i < 9; i++)
		if (i != 4 && !isxdigit((unsigned char)s[i]))
			return 0;
	return 1;
}

int
str_is_slurm_time(const char *s)
{
	const char	*p = s;
	int		 groups = 1, days = 0;

	if (s == NULL)
		return 0;
	if (strcmp(s, "UNLIMITED") == 0 || strcmp(s, "INFINITE") == 0)
		return 1;
	if (!isdigit((unsigned char)*p) || strlen(s) > 32)
		return 0;
	for (; *p != '\0'; p++) {
		if (isdigit((unsigned char)*p))
			continue;
		if ((*p != ':' && *p != '-') || !isdigit((unsigned char)p[1]))
			return 0;
		if (*p == '-' && (days++ > 0 || groups > 1))
			return 0;
		if (*p == '-')
			continue;
		if (++groups > 3)
			return 0;
	}
	return 1;
}

int
str_is_redundancy(const char *s)
{
	const char	*plus;

	if (s == NULL)
		return 0;
	if (strcmp(s, "N") == 0 || strcmp(s, "N+N") == 0)
		return 1;
	if ((plus = strchr(s, '+')) == NULL ||
	    !str_is_num(plus + 1, strlen(plus + 1), 3, 999))
		return 0;
	return (plus - s == 1 && s[0] == 'N') ||
	    (str_is_num(s, (size_t)(plus - s), 3, 999) && s[0] != '0');
}

int
str_is_account(const char *s)
{
	size_t	n;

	if (s == NULL || !((*s >= 'a' && *s <= 'z') || *s == '_'))
		return 0;
	n = strspn(s, "abcdefghijklmnopqrstuvwxyz0123456789_-");
	return s[n] == '\0' && n <= 32;
}

int
str_is_node_path(const char *s)
{
	size_t	n;

	if (s == NULL || s[0] != '/' || strstr(s, "/../") != NULL)
		return 0;
	n = strlen(s);
	if (n >= 3 && strcmp(s + n - 3, "/..") == 0)
		return 0;
	n = strspn(s, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
	    "0123456789._/-");
	return s[n] == '\0' && n <= 1024;
}

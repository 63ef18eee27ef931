/*
 * strvec.c: NULL-terminated string vectors.  See strvec.h.
 */
#include "compat.h"

#include "strvec.h"

char *strvec_empty_[1];

void
strvec_push_nodup(struct strvec *sv, char *s)
{
	if (sv->alloc == 0) {
		sv->v = NULL;
		sv->alloc = 0;
	}
	ALLOC_GROW(sv->v, sv->n + 2, sv->alloc);
	sv->v[sv->n++] = s;
	sv->v[sv->n] = NULL;
}

void
strvec_push(struct strvec *sv, const char *s)
{
	strvec_push_nodup(sv, xstrdup(s));
}

void
strvec_pushf(struct strvec *sv, const char *fmt, ...)
{
	va_list	 ap;
	char	*s;

	va_start(ap, fmt);
	s = xvasprintf(fmt, ap);
	va_end(ap);
	strvec_push_nodup(sv, s);
}

void
strvec_pushv(struct strvec *sv, const struct strvec *src)
{
	size_t	i;

	for (i = 0; i < src->n; i++)
		strvec_push(sv, src->v[i]);
}

void
strvec_clear(struct strvec *sv)
{
	size_t	i;

	if (sv->alloc) {
		for (i = 0; i < sv->n; i++)
			free(sv->v[i]);
		free(sv->v);
	}
	sv->v = strvec_empty_;
	sv->n = sv->alloc = 0;
}

void
strvec_split(struct strvec *sv, const char *s, int sep, int skip_empty)
{
	const char	*p;

	for (;;) {
		p = strchr(s, sep);
		if (p == NULL) {
			if (*s != '\0' || !skip_empty)
				strvec_push(sv, s);
			return;
		}
		if (p > s || !skip_empty)
			strvec_push_nodup(sv, xstrndup(s, (size_t)(p - s)));
		s = p + 1;
	}
}

long
strvec_find(const struct strvec *sv, const char *s)
{
	size_t	i;

	for (i = 0; i < sv->n; i++)
		if (strcmp(sv->v[i], s) == 0)
			return (long)i;
	return -1;
}

void
strvec_split_lines(struct strvec *sv, const char *text)
{
	size_t	i, len, from = sv->n;

	strvec_split(sv, text, '\n', 0);
	for (i = from; i < sv->n; i++)
		if ((len = strlen(sv->v[i])) > 0 && sv->v[i][len - 1] == '\r')
			sv->v[i][len - 1] = '\0';
}

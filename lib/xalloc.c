/*
 * xalloc.c: allocators that never fail.
 *
 * A provisioner that runs out of memory cannot do anything useful for
 * the user; aborting with a message beats checking NULL at every call
 * (git's xmalloc, tmux's xmalloc).  This is the one place in lib/ that
 * may end the process.
 */
#include "compat.h"

static void PROV_NORETURN
xalloc_die(size_t n)
{
	/* No allocation here: we are out of memory. */
	char	msg[80];
	int	len;

	len = snprintf(msg, sizeof msg, "provision: out of memory (%zu bytes)\n",
	    n);
	if (len > 0 && write(2, msg, (size_t)len) < 0)
		abort();
	abort();
}

void *
xmalloc(size_t n)
{
	void	*p = malloc(n ? n : 1);

	if (p == NULL)
		xalloc_die(n);
	return p;
}

void *
xcalloc(size_t n, size_t sz)
{
	void	*p = calloc(n ? n : 1, sz ? sz : 1);

	if (p == NULL)
		xalloc_die(n * sz);
	return p;
}

void *
xrealloc(void *old, size_t n)
{
	void	*p = realloc(old, n ? n : 1);

	if (p == NULL)
		xalloc_die(n);
	return p;
}

void *
xreallocarray(void *old, size_t n, size_t sz)
{
	void	*p = reallocarray(old, n ? n : 1, sz ? sz : 1);

	if (p == NULL)
		xalloc_die(n);
	return p;
}

char *
xstrdup(const char *s)
{
	char	*p = strdup(s);

	if (p == NULL)
		xalloc_die(strlen(s));
	return p;
}

char *
xstrndup(const char *s, size_t n)
{
	char	*p = strndup(s, n);

	if (p == NULL)
		xalloc_die(n);
	return p;
}

char *
xvasprintf(const char *fmt, va_list ap)
{
	char	*p;

	if (vasprintf(&p, fmt, ap) < 0)
		xalloc_die(strlen(fmt));
	return p;
}

char *
xasprintf(const char *fmt, ...)
{
	va_list	 ap;
	char	*p;

	va_start(ap, fmt);
	p = xvasprintf(fmt, ap);
	va_end(ap);
	return p;
}

void
freezero_str(char *s)
{
	if (s == NULL)
		return;
	explicit_bzero(s, strlen(s));
	free(s);
}

/*
 * err.c: located errors and lists of them.  See err.h.
 */
#include "compat.h"

#include "buf.h"
#include "err.h"

void
prov_err_release(struct prov_err *e)
{
	if (e == NULL)
		return;
	free(e->msg);
	free(e->hint);
	e->msg = e->hint = NULL;
	e->code = PROV_E_NONE;
	e->loc.file = NULL;
	e->loc.line = e->loc.col = 0;
}

void
prov_err_move(struct prov_err *dst, struct prov_err *src)
{
	prov_err_release(dst);
	*dst = *src;
	src->msg = src->hint = NULL;
	prov_err_release(src);
}

static void
prov_err_vset(struct prov_err *e, enum prov_code code,
    const struct prov_loc *loc, const char *hint, const char *fmt, va_list ap)
{
	char	*msg;

	msg = xvasprintf(fmt, ap);
	prov_err_release(e);
	e->code = code;
	if (loc != NULL)
		e->loc = *loc;
	e->msg = msg;
	e->hint = hint != NULL ? xstrdup(hint) : NULL;
}

int
prov_err_set(struct prov_err *e, enum prov_code code, const char *fmt, ...)
{
	va_list	ap;

	if (e == NULL)
		return -1;
	va_start(ap, fmt);
	prov_err_vset(e, code, NULL, NULL, fmt, ap);
	va_end(ap);
	return -1;
}

int
prov_err_parse(struct prov_err *e, const char *what, const char *fmt, ...)
{
	va_list	 ap;
	char	*msg;

	va_start(ap, fmt);
	msg = xvasprintf(fmt, ap);
	va_end(ap);
	prov_err_set(e, PROV_E_PARSE, "%s: %s", what, msg);
	free(msg);
	return -1;
}

int
prov_err_setloc(struct prov_err *e, enum prov_code code,
    const struct prov_loc *loc, const char *hint, const char *fmt, ...)
{
	va_list	ap;

	if (e == NULL)
		return -1;
	va_start(ap, fmt);
	prov_err_vset(e, code, loc, hint, fmt, ap);
	va_end(ap);
	return -1;
}

int
prov_err_sys(struct prov_err *e, const char *fmt, ...)
{
	va_list	ap;
	int	saved = errno;
	char	*m;

	if (e == NULL)
		return -1;
	va_start(ap, fmt);
	prov_err_vset(e, PROV_E_SYS, NULL, NULL, fmt, ap);
	va_end(ap);
	m = xasprintf("%s: %s", e->msg, strerror(saved));
	free(e->msg);
	e->msg = m;
	errno = saved;
	return -1;
}

void
prov_err_prefix(struct prov_err *e, const char *fmt, ...)
{
	struct buf	b = BUF_INIT;
	va_list		ap;

	if (e == NULL)
		return;
	va_start(ap, fmt);
	buf_vaddf(&b, fmt, ap);
	va_end(ap);
	buf_adds(&b, e->msg != NULL ? e->msg : "unknown error");
	free(e->msg);
	e->msg = buf_detach(&b, NULL);
}

char *
prov_err_format(const struct prov_err *e)
{
	struct buf	b = BUF_INIT;

	if (e->loc.file != NULL && e->loc.line > 0)
		buf_addf(&b, "%s:%u:%u: ", e->loc.file, e->loc.line,
		    e->loc.col);
	else if (e->loc.file != NULL)
		buf_addf(&b, "%s: ", e->loc.file);
	buf_adds(&b, e->msg != NULL ? e->msg : "unknown error");
	if (e->hint != NULL)
		buf_addf(&b, " (%s)", e->hint);
	return buf_detach(&b, NULL);
}

void
prov_err_print(const struct prov_err *e, FILE *fp)
{
	char	*s = prov_err_format(e);

	fprintf(fp, "%s\n", s);
	free(s);
}

int
prov_errs_add(struct prov_errs *l, enum prov_code code,
    const struct prov_loc *loc, const char *hint, const char *fmt, ...)
{
	struct prov_err	e = PROV_ERR_INIT;
	va_list		ap;

	va_start(ap, fmt);
	prov_err_vset(&e, code, loc, hint, fmt, ap);
	va_end(ap);
	prov_errs_push(l, &e);
	return -1;
}

void
prov_errs_push(struct prov_errs *l, struct prov_err *e)
{
	size_t	max = l->max ? l->max : 1000;

	if (l->n >= max) {
		prov_err_release(e);
		return;
	}
	ALLOC_GROW(l->v, l->n + 1, l->alloc);
	l->v[l->n] = *e;
	e->msg = e->hint = NULL;
	prov_err_release(e);
	l->n++;
}


void
prov_errs_sort(struct prov_errs *l)
{
	/*
	 * qsort is not stable; comparing addresses only breaks ties within
	 * the array as it was before the sort, which is what we want but is
	 * not guaranteed by qsort.  Use an insertion sort: error lists are
	 * short (capped by `max`).
	 */
	size_t	i, j;

	for (i = 1; i < l->n; i++) {
		struct prov_err	tmp = l->v[i];

		for (j = i; j > 0; j--) {
			struct prov_err	*p = &l->v[j - 1];
			int		 c;

			c = strcmp(p->loc.file ? p->loc.file : "",
			    tmp.loc.file ? tmp.loc.file : "");
			if (c < 0 || (c == 0 && (p->loc.line < tmp.loc.line ||
			    (p->loc.line == tmp.loc.line &&
			    p->loc.col <= tmp.loc.col))))
				break;
			l->v[j] = l->v[j - 1];
		}
		l->v[j] = tmp;
	}
}

void
prov_errs_print(const struct prov_errs *l, FILE *fp)
{
	size_t	i;

	for (i = 0; i < l->n; i++)
		prov_err_print(&l->v[i], fp);
}

void
prov_errs_release(struct prov_errs *l)
{
	size_t	i;

	for (i = 0; i < l->n; i++)
		prov_err_release(&l->v[i]);
	free(l->v);
	l->v = NULL;
	l->n = l->alloc = 0;
}

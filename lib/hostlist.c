/*
 * hostlist.c: expand and fold node name ranges.  See hostlist.h.
 *
 * The grammar (whitespace only around a pattern):
 *
 *	list	= pattern *( "," pattern )
 *	pattern	= 1*( literal / "[" group "]" )
 *	group	= range *( "," range )
 *	range	= number [ "-" number ]
 *	number	= 1*DIGIT		; value at most 10^9
 *	literal	= any byte but "[" "]" "," space and control characters
 *
 * One parser serves every entry point.  Without a place to record into it
 * only checks and counts (hostlist_count(), no allocation); with one it
 * keeps the literals and ranges, O(pattern), and the iterator steps an
 * odometer over the groups of one pattern at a time.
 *
 * Folding sorts the names, then folds one numeric field at a time from
 * the last: names equal but for that field, and adjacent in sorted order,
 * become one entry whose field is a range set.  Only adjacent entries
 * merge, so expanding the result gives the names back in sorted order.
 */
#include "compat.h"

#include <ctype.h>

#include "buf.h"
#include "err.h"
#include "hostlist.h"
#include "strvec.h"

/* How much of a pattern an error message quotes. */
#define HOSTLIST_QUOTE_MAX	80

struct hostlist_range {
	unsigned long	 lo, hi;
	size_t		 width;		/* of the lower bound's text */
};

/* Literal text, then a bracket group unless nrange is 0 (the tail). */
struct hostlist_seg {
	size_t		 off, len;
	size_t		 range0, nrange;
};

struct hostlist_elem {
	size_t		 seg0, nseg;
	size_t		 ngroup;
};

struct hostlist_parse {
	const char		*text;
	int			 record;	/* 0: check and count only */
	struct hostlist_elem	*elems;
	size_t			 nelem, elem_alloc;
	struct hostlist_seg	*segs;
	size_t			 nseg, seg_alloc;
	struct hostlist_range	*ranges;
	size_t			 nrange, range_alloc;
	size_t			 maxgroup;	/* most groups in one pattern */
	size_t			 total;
};

struct hostlist_iter {
	struct hostlist_parse	 p;
	char			*text;
	size_t			 elem;		/* current pattern */
	int			 started;	/* odometer set for elem */
	size_t			*ri;		/* per group: range index */
	unsigned long		*val;		/* per group: value */
	struct buf		 name;
};

/* "%.*s%s" arguments quoting at most HOSTLIST_QUOTE_MAX bytes of p. */
#define HOSTLIST_Q(p, len)						\
	(int)((len) > HOSTLIST_QUOTE_MAX ? HOSTLIST_QUOTE_MAX - 3 : (len)), \
	(p), ((len) > HOSTLIST_QUOTE_MAX ? "..." : "")

static int
hostlist_mul(size_t *r, size_t a, size_t b)
{
	if (a != 0 && b > SIZE_MAX / a)
		return -1;
	*r = a * b;
	return 0;
}

static int
hostlist_add(size_t *r, size_t a, size_t b)
{
	if (b > SIZE_MAX - a)
		return -1;
	*r = a + b;
	return 0;
}

static void
hostlist_parse_release(struct hostlist_parse *hp)
{
	free(hp->elems);
	free(hp->segs);
	free(hp->ranges);
	memset(hp, 0, sizeof *hp);
}

static void
hostlist_add_seg(struct hostlist_parse *hp, size_t off, size_t len,
    size_t range0, size_t nrange)
{
	struct hostlist_seg	*sg;

	if (!hp->record)
		return;
	ALLOC_GROW(hp->segs, hp->nseg + 1, hp->seg_alloc);
	sg = &hp->segs[hp->nseg++];
	sg->off = off;
	sg->len = len;
	sg->range0 = range0;
	sg->nrange = nrange;
}

/*
 * Check one bound of range [rb, re) of pattern [eb, ee): digits only, at
 * most HOSTLIST_MAX_NUMBER.
 */
static int
hostlist_parse_number(unsigned long *out, const char *s, size_t len,
    const char *rb, size_t rlen, const char *eb, size_t elen,
    struct prov_err *err)
{
	size_t		 i, z;
	uint64_t	 v = 0;

	for (i = 0; i < len; i++)
		if (!isdigit((unsigned char)s[i]))
			return prov_err_set(err, PROV_E_PLAN,
			    "non-digit '%c' in range '%.*s%s' in '%.*s%s'",
			    isprint((unsigned char)s[i]) ? s[i] : '?',
			    HOSTLIST_Q(rb, rlen), HOSTLIST_Q(eb, elen));
	for (z = 0; z + 1 < len && s[z] == '0'; z++)
		;
	if (len - z > 10)
		goto big;
	for (i = z; i < len; i++)
		v = v * 10 + (uint64_t)(s[i] - '0');
	if (v > HOSTLIST_MAX_NUMBER)
		goto big;
	*out = (unsigned long)v;
	return 0;
big:
	return prov_err_set(err, PROV_E_PLAN,
	    "number '%.*s%s' too large in '%.*s%s' (at most %lu)",
	    HOSTLIST_Q(s, len), HOSTLIST_Q(eb, elen), HOSTLIST_MAX_NUMBER);
}

/* One range [rb, re) of the group of pattern [eb, ee); adds its size to *n. */
static int
hostlist_parse_range(struct hostlist_parse *hp, size_t *n, const char *rb,
    const char *re, const char *eb, size_t elen, struct prov_err *err)
{
	const char		*dash;
	size_t			 rlen = (size_t)(re - rb), llen, hlen;
	unsigned long		 lo, hi;
	struct hostlist_range	*r;

	if (rlen == 0)
		return prov_err_set(err, PROV_E_PLAN, "empty range in '%.*s%s'",
		    HOSTLIST_Q(eb, elen));
	dash = memchr(rb, '-', rlen);
	llen = dash != NULL ? (size_t)(dash - rb) : rlen;
	hlen = dash != NULL ? (size_t)(re - dash - 1) : rlen;
	if (llen == 0 || hlen == 0)
		return prov_err_set(err, PROV_E_PLAN,
		    "incomplete range '%.*s%s' in '%.*s%s'",
		    HOSTLIST_Q(rb, rlen), HOSTLIST_Q(eb, elen));
	if (hostlist_parse_number(&lo, rb, llen, rb, rlen, eb, elen, err) != 0)
		return -1;
	if (dash == NULL)
		hi = lo;
	else if (hostlist_parse_number(&hi, dash + 1, hlen, rb, rlen, eb,
	    elen, err) != 0)
		return -1;
	if (lo > hi)
		return prov_err_set(err, PROV_E_PLAN,
		    "reversed range '%.*s%s' in '%.*s%s'",
		    HOSTLIST_Q(rb, rlen), HOSTLIST_Q(eb, elen));
	/* A zero-padded upper bound of another width: which one pads? */
	if (dash != NULL && hlen > 1 && dash[1] == '0' && hlen != llen)
		return prov_err_set(err, PROV_E_PLAN,
		    "ambiguous padding in range '%.*s%s' in '%.*s%s' "
		    "(zero-padded bounds must have the same width)",
		    HOSTLIST_Q(rb, rlen), HOSTLIST_Q(eb, elen));
	if (hostlist_add(n, *n, (size_t)(hi - lo) + 1) != 0)
		return prov_err_set(err, PROV_E_PLAN,
		    "too many names in '%.*s%s'", HOSTLIST_Q(eb, elen));
	if (hp->record) {
		ALLOC_GROW(hp->ranges, hp->nrange + 1, hp->range_alloc);
		r = &hp->ranges[hp->nrange++];
		r->lo = lo;
		r->hi = hi;
		r->width = llen;
	}
	return 0;
}

/* The pattern [eb, eb + elen): check it, record it, add its count to total. */
static int
hostlist_parse_elem(struct hostlist_parse *hp, const char *eb, size_t elen,
    struct prov_err *err)
{
	const char		*ee = eb + elen, *p, *lit, *close, *q, *rb;
	size_t			 count = 1, gcount, range0, ngroup = 0;
	size_t			 seg0 = hp->nseg;
	struct hostlist_elem	*e;

	lit = p = eb;
	while (p < ee) {
		if (*p == ']')
			return prov_err_set(err, PROV_E_PLAN,
			    "unbalanced ']' in '%.*s%s'", HOSTLIST_Q(eb, elen));
		if (isspace((unsigned char)*p) || iscntrl((unsigned char)*p))
			return prov_err_set(err, PROV_E_PLAN,
			    "invalid character '%c' in '%.*s%s'",
			    *p == ' ' ? ' ' : '?',
			    HOSTLIST_Q(eb, elen));
		if (*p != '[') {
			p++;
			continue;
		}
		for (close = p + 1; close < ee; close++)
			if (*close == '[' || *close == ']')
				break;
		if (close == ee)
			return prov_err_set(err, PROV_E_PLAN,
			    "unbalanced '[' in '%.*s%s'", HOSTLIST_Q(eb, elen));
		if (*close == '[')
			return prov_err_set(err, PROV_E_PLAN,
			    "nested '[' in '%.*s%s'", HOSTLIST_Q(eb, elen));
		range0 = hp->nrange;
		gcount = 0;
		for (rb = q = p + 1; ; q++) {
			if (q < close && *q != ',')
				continue;
			if (hostlist_parse_range(hp, &gcount, rb, q, eb, elen,
			    err) != 0)
				return -1;
			if (q == close)
				break;
			rb = q + 1;
		}
		if (hostlist_mul(&count, count, gcount) != 0)
			return prov_err_set(err, PROV_E_PLAN,
			    "too many names in '%.*s%s'", HOSTLIST_Q(eb, elen));
		hostlist_add_seg(hp, (size_t)(lit - hp->text),
		    (size_t)(p - lit), range0, hp->nrange - range0);
		ngroup++;
		lit = p = close + 1;
	}
	hostlist_add_seg(hp, (size_t)(lit - hp->text), (size_t)(ee - lit),
	    0, 0);
	if (hostlist_add(&hp->total, hp->total, count) != 0)
		return prov_err_set(err, PROV_E_PLAN,
		    "too many names in '%.*s%s'",
		    HOSTLIST_Q(hp->text, strlen(hp->text)));
	if (ngroup > hp->maxgroup)
		hp->maxgroup = ngroup;
	if (hp->record) {
		ALLOC_GROW(hp->elems, hp->nelem + 1, hp->elem_alloc);
		e = &hp->elems[hp->nelem++];
		e->seg0 = seg0;
		e->nseg = hp->nseg - seg0;
		e->ngroup = ngroup;
	}
	return 0;
}

/* Parse hp->text; hp->total is its count. */
static int
hostlist_parse(struct hostlist_parse *hp, struct prov_err *err)
{
	const char	*s = hp->text, *p, *b, *e;
	size_t		 len = strlen(s);
	int		 depth = 0;

	for (p = s; isspace((unsigned char)*p); p++)
		;
	if (*p == '\0')
		return prov_err_set(err, PROV_E_PLAN, "empty hostlist");
	hp->total = 0;
	for (p = s; ; p++) {
		b = p;
		/* A comma outside brackets ends the pattern. */
		for (; *p != '\0' && (*p != ',' || depth > 0); p++) {
			if (*p == '[')
				depth++;
			else if (*p == ']' && depth > 0)
				depth--;
		}
		e = p;
		while (b < e && isspace((unsigned char)*b))
			b++;
		while (e > b && isspace((unsigned char)e[-1]))
			e--;
		if (b == e)
			return prov_err_set(err, PROV_E_PLAN,
			    "empty element in '%.*s%s'", HOSTLIST_Q(s, len));
		if (hostlist_parse_elem(hp, b, (size_t)(e - b), err) != 0)
			return -1;
		if (*p == '\0')
			break;
	}
	return 0;
}

int
hostlist_count(size_t *out, const char *pattern_list, struct prov_err *err)
{
	struct hostlist_parse	hp;

	memset(&hp, 0, sizeof hp);
	hp.text = pattern_list;
	if (hostlist_parse(&hp, err) != 0)
		return -1;
	*out = hp.total;
	return 0;
}

int
hostlist_iter_init(struct hostlist_iter **out, const char *patterns,
    struct prov_err *err)
{
	struct hostlist_iter	*it;
	int			 r = -1;

	*out = NULL;
	it = xcalloc(1, sizeof *it);
	buf_init(&it->name, 64);
	it->text = xstrdup(patterns);
	it->p.text = it->text;
	it->p.record = 1;
	if (hostlist_parse(&it->p, err) != 0)
		goto out;
	it->ri = xcalloc(it->p.maxgroup + 1, sizeof *it->ri);
	it->val = xcalloc(it->p.maxgroup + 1, sizeof *it->val);
	*out = it;
	it = NULL;
	r = 0;
out:
	hostlist_iter_free(it);
	return r;
}

size_t
hostlist_iter_count(const struct hostlist_iter *it)
{
	return it->p.total;
}

/* Append v zero-padded to width. */
static void
hostlist_add_number(struct buf *b, unsigned long v, size_t width)
{
	char	 tmp[24];
	size_t	 n = 0;

	do {
		tmp[n++] = (char)('0' + v % 10);
		v /= 10;
	} while (v != 0);
	for (; width > n; width--)
		buf_addch(b, '0');
	while (n > 0)
		buf_addch(b, tmp[--n]);
}

const char *
hostlist_iter_next(struct hostlist_iter *it)
{
	const struct hostlist_elem	*e;
	const struct hostlist_seg	*sg;
	const struct hostlist_range	*r;
	size_t				 i, g;

	for (;;) {
		if (it->elem >= it->p.nelem)
			return NULL;
		e = &it->p.elems[it->elem];
		if (!it->started) {
			for (g = 0; g < e->ngroup; g++) {
				it->ri[g] = 0;
				it->val[g] = it->p.ranges[
				    it->p.segs[e->seg0 + g].range0].lo;
			}
			it->started = 1;
			break;
		}
		/* Step the odometer, the last group fastest. */
		for (g = e->ngroup; g > 0; g--) {
			sg = &it->p.segs[e->seg0 + g - 1];
			r = &it->p.ranges[sg->range0 + it->ri[g - 1]];
			if (it->val[g - 1] < r->hi) {
				it->val[g - 1]++;
				break;
			}
			if (it->ri[g - 1] + 1 < sg->nrange) {
				it->ri[g - 1]++;
				it->val[g - 1] = r[1].lo;
				break;
			}
			it->ri[g - 1] = 0;
			it->val[g - 1] = it->p.ranges[sg->range0].lo;
		}
		if (g > 0)
			break;
		it->elem++;
		it->started = 0;
	}
	buf_reset(&it->name);
	for (i = 0; i < e->nseg; i++) {
		sg = &it->p.segs[e->seg0 + i];
		buf_add(&it->name, it->text + sg->off, sg->len);
		if (sg->nrange > 0)
			hostlist_add_number(&it->name, it->val[i],
			    it->p.ranges[sg->range0 + it->ri[i]].width);
	}
	return it->name.buf;
}

void
hostlist_iter_free(struct hostlist_iter *it)
{
	if (it == NULL)
		return;
	hostlist_parse_release(&it->p);
	free(it->text);
	free(it->ri);
	free(it->val);
	buf_release(&it->name);
	free(it);
}

int
hostlist_expand(struct strvec *out, const char *pattern_list, size_t max,
    struct prov_err *err)
{
	struct hostlist_iter	*it = NULL;
	const char		*name;
	size_t			 len = strlen(pattern_list);

	int			 r = -1;

	if (hostlist_iter_init(&it, pattern_list, err) != 0)
		goto out;
	if (max != 0 && it->p.total > max) {
		prov_err_set(err, PROV_E_PLAN,
		    "'%.*s%s' expands to %zu names, more than the limit of %zu",
		    HOSTLIST_Q(pattern_list, len), it->p.total, max);
		goto out;
	}
	while ((name = hostlist_iter_next(it)) != NULL)
		strvec_push(out, name);
	r = 0;
out:
	hostlist_iter_free(it);
	return r;
}

int
hostlist_is_pattern(const char *s)
{
	const char	*b = strchr(s, '[');

	return b != NULL && strchr(b + 1, ']') != NULL;
}

/* Folding. */

struct hostlist_field {
	size_t		 off, len;
	unsigned long	 val;
};

struct hostlist_name {
	const char		*s;
	size_t			 slen;
	struct hostlist_field	*f;
	size_t			 nf;
};

struct hostlist_entry {
	/* A name whose fields before the folded ones are the entry's. */
	const struct hostlist_name	*name;
	char				*tail;	/* folded fields, text after */
};

/* Find the numeric fields of name; f has room for every digit run. */
static void
hostlist_fold_scan(struct hostlist_name *nm, struct hostlist_field *f)
{
	const char	*s = nm->s;
	size_t		 i = 0, j, z;
	uint64_t	 v;

	nm->f = f;
	nm->nf = 0;
	while (i < nm->slen) {
		if (!isdigit((unsigned char)s[i])) {
			i++;
			continue;
		}
		for (j = i; j < nm->slen && isdigit((unsigned char)s[j]); j++)
			;
		for (z = i; z + 1 < j && s[z] == '0'; z++)
			;
		v = UINT64_MAX;
		if (j - z <= 10)
			for (v = 0; z < j; z++)
				v = v * 10 + (uint64_t)(s[z] - '0');
		if (v <= HOSTLIST_MAX_NUMBER) {
			f[nm->nf].off = i;
			f[nm->nf].len = j - i;
			f[nm->nf].val = (unsigned long)v;
			nm->nf++;
		}
		i = j;
	}
}

/* The text before field i (or after the last one when i == nf). */
static const char *
hostlist_fold_seg(const struct hostlist_name *nm, size_t i, size_t *len)
{
	size_t	b = i == 0 ? 0 : nm->f[i - 1].off + nm->f[i - 1].len;
	size_t	e = i < nm->nf ? nm->f[i].off : nm->slen;

	*len = e - b;
	return nm->s + b;
}

static int
hostlist_fold_cmp_shape(const struct hostlist_name *a,
    const struct hostlist_name *b)
{
	const char	*sa, *sb;
	size_t		 la, lb, i;
	int		 c;

	for (i = 0; ; i++) {
		sa = hostlist_fold_seg(a, i, &la);
		sb = hostlist_fold_seg(b, i, &lb);
		c = memcmp(sa, sb, la < lb ? la : lb);
		if (c != 0)
			return c;
		if (la != lb)
			return la < lb ? -1 : 1;
		if (i == a->nf || i == b->nf)
			return (a->nf > b->nf) - (a->nf < b->nf);
	}
}

static int
hostlist_fold_cmp_field(const struct hostlist_field *a,
    const struct hostlist_field *b)
{
	if (a->val != b->val)
		return a->val < b->val ? -1 : 1;
	return (a->len > b->len) - (a->len < b->len);
}

static int
hostlist_fold_cmp(const void *va, const void *vb)
{
	const struct hostlist_name	*a = va, *b = vb;
	size_t				 i;
	int				 c;

	if ((c = hostlist_fold_cmp_shape(a, b)) != 0)
		return c;
	for (i = 0; i < a->nf; i++)
		if ((c = hostlist_fold_cmp_field(&a->f[i], &b->f[i])) != 0)
			return c;
	return 0;
}

/* Whether field f of its name prints as itself when padded to width. */
static int
hostlist_fold_fits(const struct hostlist_name *nm, size_t i, size_t width)
{
	const struct hostlist_field	*f = &nm->f[i];

	if (f->len == width)
		return 1;
	return f->len > width && nm->s[f->off] != '0';
}

/* Append field d of the entries [b, e) as a range set. */
static void
hostlist_fold_rangeset(struct buf *out, const struct hostlist_entry *v,
    size_t b, size_t e, size_t d)
{
	const struct hostlist_field	*lo, *f;
	size_t				 i, j;

	if (e - b == 1) {
		f = &v[b].name->f[d];
		buf_add(out, v[b].name->s + f->off, f->len);
		return;
	}
	buf_addch(out, '[');
	for (i = b; i < e; i = j + 1) {
		lo = &v[i].name->f[d];
		for (j = i; j + 1 < e; j++) {
			f = &v[j + 1].name->f[d];
			if (f->val != v[j].name->f[d].val + 1 ||
			    !hostlist_fold_fits(v[j + 1].name, d, lo->len))
				break;
		}
		if (i > b)
			buf_addch(out, ',');
		buf_add(out, v[i].name->s + lo->off, lo->len);
		if (j > i) {
			f = &v[j].name->f[d];
			buf_addch(out, '-');
			buf_add(out, v[j].name->s + f->off, f->len);
		}
	}
	buf_addch(out, ']');
}

/* Whether a and b have the same first d fields. */
static int
hostlist_fold_same_prefix(const struct hostlist_name *a,
    const struct hostlist_name *b, size_t d)
{
	size_t	i;

	for (i = 0; i < d; i++)
		if (hostlist_fold_cmp_field(&a->f[i], &b->f[i]) != 0)
			return 0;
	return 1;
}

/* Fold the m names of one shape (sorted, unique) and append them to out. */
static void
hostlist_fold_shape(struct buf *out, const struct hostlist_name *nm, size_t m)
{
	struct hostlist_entry	*v;
	struct buf		 t = BUF_INIT;
	const char		*seg;
	size_t			 k = nm[0].nf, n = m, d, i, j, w, len;

	v = xcalloc(m, sizeof *v);
	/* Without numbers, the tail is the name; else each pass adds to it. */
	for (i = 0; i < m; i++) {
		v[i].name = &nm[i];
		v[i].tail = k == 0 ? xstrdup(nm[i].s) : xstrdup("");
	}
	for (d = k; d > 0; d--) {
		for (i = w = 0; i < n; i = j) {
			for (j = i + 1; j < n; j++)
				if (!hostlist_fold_same_prefix(v[i].name,
				    v[j].name, d - 1) ||
				    strcmp(v[i].tail, v[j].tail) != 0)
					break;
			hostlist_fold_rangeset(&t, v, i, j, d - 1);
			seg = hostlist_fold_seg(v[i].name, d, &len);
			buf_add(&t, seg, len);
			buf_adds(&t, v[i].tail);
			for (; i < j; i++)
				free(v[i].tail);
			v[w].name = v[j - 1].name;
			v[w].tail = buf_detach(&t, NULL);
			w++;
		}
		n = w;
	}
	for (i = 0; i < n; i++) {
		if (out->len > 0)
			buf_addch(out, ',');
		seg = hostlist_fold_seg(v[i].name, 0, &len);
		if (k > 0)
			buf_add(out, seg, len);
		buf_adds(out, v[i].tail);
		free(v[i].tail);
	}
	free(v);
}

char *
hostlist_fold(const char *const *names, size_t n)
{
	struct hostlist_name	*nm = NULL;
	struct hostlist_field	*f = NULL;
	struct buf		 out = BUF_INIT;
	size_t			 i, j, m, runs = 0;
	const char		*s;

	if (n == 0)
		return xstrdup("");
	for (i = 0; i < n; i++)
		for (s = names[i]; *s != '\0'; s++)
			if (isdigit((unsigned char)*s) &&
			    !isdigit((unsigned char)s[1]))
				runs++;
	nm = xcalloc(n, sizeof *nm);
	f = xcalloc(runs + 1, sizeof *f);
	for (i = 0, runs = 0; i < n; i++) {
		nm[i].s = names[i];
		nm[i].slen = strlen(names[i]);
		hostlist_fold_scan(&nm[i], f + runs);
		runs += nm[i].nf;
	}
	qsort(nm, n, sizeof *nm, hostlist_fold_cmp);
	/* Drop duplicates: equal under the order means equal text. */
	for (i = m = 1; i < n; i++)
		if (hostlist_fold_cmp(&nm[m - 1], &nm[i]) != 0)
			nm[m++] = nm[i];
	for (i = 0; i < m; i = j) {
		for (j = i + 1; j < m; j++)
			if (hostlist_fold_cmp_shape(&nm[i], &nm[j]) != 0)
				break;
		hostlist_fold_shape(&out, &nm[i], j - i);
	}
	free(nm);
	free(f);
	return buf_detach(&out, NULL);
}

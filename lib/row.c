/*
 * row.c: results of checks, and the JSON and JUnit of them.  See row.h.
 */
#include "compat.h"

#include <math.h>

#include "buf.h"
#include "json.h"
#include "row.h"
#include "str.h"
#include "yml.h"

static const char *const row_names[] = { "ok", "warn", "fail", "skip" };

struct row *
rows_add(struct rows *rows, enum row_verdict v, const char *what)
{
	struct row	*r;

	ALLOC_GROW(rows->v, rows->n + 1, rows->alloc);
	r = &rows->v[rows->n++];
	memset(r, 0, sizeof *r);
	r->verdict = v;
	r->what = xstrdup(what);
	r->value = r->max = NAN;
	return r;
}

struct row *
rows_addf(struct rows *rows, enum row_verdict v, const char *subject,
    const char *what, const char *limit, const char *measured, const char *fmt,
    ...)
{
	struct row	*r = rows_add(rows, v, what);
	va_list		 ap;

	r->subject = subject != NULL ? xstrdup(subject) : NULL;
	r->limit = limit != NULL ? xstrdup(limit) : NULL;
	r->measured = measured != NULL ? xstrdup(measured) : NULL;
	if (fmt != NULL) {
		va_start(ap, fmt);
		r->hint = xvasprintf(fmt, ap);
		va_end(ap);
	}
	return r;
}

void
rows_blank(struct rows *rows)
{
	size_t	i;

	for (i = 0; i < rows->n; i++) {
		struct row	*r = &rows->v[i];

		if (r->subject == NULL)
			r->subject = xstrdup("");
		if (r->measured == NULL)
			r->measured = xstrdup("");
		if (r->limit == NULL)
			r->limit = xstrdup("");
	}
}

void
rows_append(struct rows *dst, struct rows *src)
{
	size_t	i;

	for (i = 0; i < src->n; i++) {
		ALLOC_GROW(dst->v, dst->n + 1, dst->alloc);
		dst->v[dst->n++] = src->v[i];
	}
	free(src->v);
	memset(src, 0, sizeof *src);
}

void
rows_release(struct rows *rows)
{
	size_t	i;

	if (rows == NULL)
		return;
	for (i = 0; i < rows->n; i++) {
		free(rows->v[i].subject);
		free(rows->v[i].what);
		free(rows->v[i].measured);
		free(rows->v[i].limit);
		free(rows->v[i].hint);
	}
	free(rows->v);
	memset(rows, 0, sizeof *rows);
}

size_t
rows_count(const struct rows *rows, enum row_verdict v)
{
	size_t	i, n = 0;

	for (i = 0; i < rows->n; i++)
		n += rows->v[i].verdict == v;
	return n;
}

const char *
row_verdict_name(enum row_verdict v)
{
	return (unsigned)v < ARRAY_SIZE(row_names) ? row_names[v] : "?";
}

int
row_verdict_parse(const char *s, enum row_verdict *out)
{
	int	i;

	for (i = 0; i < ROW_NVERDICTS; i++)
		if (s != NULL && strcmp(s, row_names[i]) == 0) {
			*out = (enum row_verdict)i;
			return 0;
		}
	return -1;
}

void
rows_to_json(struct json_writer *jw, const char *key, const struct rows *rows)
{
	size_t	i;

	json_array_begin(jw, key, JSON_LINES);
	for (i = 0; i < rows->n; i++) {
		const struct row	*r = &rows->v[i];

		json_object_begin(jw, NULL, 0);
		json_str(jw, "verdict", row_verdict_name(r->verdict));
		json_str(jw, "group", r->group);
		json_str(jw, "subject", r->subject);
		json_str(jw, "check", r->what);
		json_str(jw, "measured", r->measured);
		json_str(jw, "limit", r->limit);
		json_str(jw, "hint", r->hint);
		json_num(jw, "value", r->value, -1);
		json_num(jw, "max", r->max, -1);
		if (r->loc.line > 0) {
			json_str(jw, "file", r->loc.file);
			json_int(jw, "line", r->loc.line);
			json_int(jw, "col", r->loc.col);
		}
		json_end(jw);
	}
	json_end(jw);
}

static double
rows_json_num(const struct yml_node *it, const char *k)
{
	const struct yml_node	*v = yml_map_get(it, k);
	double			 d;

	if (v == NULL || v->kind != YML_SCALAR || !v->plain ||
	    str_to_double(v->u.s, &d) != 0)
		return NAN;
	return d;
}

static char *
rows_json_str(const struct yml_node *it, const char *k)
{
	const char	*s = yml_map_str(it, k);

	return s != NULL ? xstrdup(s) : NULL;
}

int
rows_from_json(struct rows *out, const char *label, const struct yml_node *list,
    struct prov_err *err)
{
	unsigned	i;

	if (list == NULL || list->kind != YML_SEQ)
		return prov_err_parse(err, label, "not a list of rows");
	for (i = 0; i < list->n; i++) {
		const struct yml_node	*it = list->u.items[i];
		const char		*vs = yml_map_str(it, "verdict");
		const char		*what = yml_map_str(it, "check");
		enum row_verdict	 v;
		struct row		*r;

		if (vs == NULL || what == NULL || row_verdict_parse(vs, &v))
			return prov_err_parse(err, label,
			    "row %u lacks a verdict or a check", i + 1);
		r = rows_add(out, v, what);
		r->subject = rows_json_str(it, "subject");
		r->measured = rows_json_str(it, "measured");
		r->limit = rows_json_str(it, "limit");
		r->hint = rows_json_str(it, "hint");
		r->value = rows_json_num(it, "value");
		r->max = rows_json_num(it, "max");
	}
	return 0;
}

void
rows_count_json(struct json_writer *jw, const struct rows *rows)
{
	int	v;

	for (v = 0; v < ROW_NVERDICTS; v++)
		json_int(jw, row_verdict_name((enum row_verdict)v),
		    (long long)rows_count(rows, (enum row_verdict)v));
}

static int
row_same_subject(const struct row *a, const struct row *b)
{
	const char	*sa = a->subject != NULL ? a->subject : "";
	const char	*sb = b->subject != NULL ? b->subject : "";

	return strcmp(sa, sb) == 0;
}

static void
row_junit_case(struct buf *b, const struct row *r)
{
	buf_adds(b, "    <testcase classname=\"");
	buf_add_html(b, r->subject != NULL ? r->subject : "");
	buf_adds(b, "\" name=\"");
	buf_add_html(b, r->what);
	buf_adds(b, "\"");
	if (r->verdict == ROW_OK && r->hint == NULL) {
		buf_adds(b, "/>\n");
		return;
	}
	buf_adds(b, ">\n");
	if (r->verdict == ROW_FAIL) {
		buf_adds(b, "      <failure message=\"");
		buf_add_html(b, r->hint != NULL ? r->hint : "failed");
		buf_adds(b, "\" type=\"verify\">expected: ");
		buf_add_html(b, r->limit != NULL ? r->limit : "-");
		buf_adds(b, "&#10;found: ");
		buf_add_html(b, r->measured != NULL ? r->measured : "-");
		buf_adds(b, "</failure>\n");
	} else if (r->verdict == ROW_SKIP) {
		buf_adds(b, "      <skipped message=\"");
		buf_add_html(b, r->hint != NULL ? r->hint : "skipped");
		buf_adds(b, "\"/>\n");
	} else {
		buf_adds(b, "      <system-out>");
		buf_add_html(b, row_verdict_name(r->verdict));
		buf_adds(b, ": ");
		buf_add_html(b, r->hint != NULL ? r->hint : "");
		buf_adds(b, "</system-out>\n");
	}
	buf_adds(b, "    </testcase>\n");
}

void
rows_to_junit(struct buf *b, const char *name, const char *package,
    const struct rows *rows)
{
	size_t	i, j;

	buf_adds(b, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
	buf_adds(b, "<testsuites name=\"");
	buf_add_html(b, name);
	buf_addf(b, "\" tests=\"%zu\" failures=\"%zu\" skipped=\"%zu\">\n",
	    rows->n, rows_count(rows, ROW_FAIL), rows_count(rows, ROW_SKIP));
	for (i = 0; i < rows->n; i++) {
		const struct row	*r = &rows->v[i];
		size_t			 n = 0, nf = 0, ns = 0;
		int			 seen = 0;

		for (j = 0; j < i && !seen; j++)
			seen = row_same_subject(&rows->v[j], r);
		if (seen)
			continue;
		for (j = i; j < rows->n; j++)
			if (row_same_subject(&rows->v[j], r)) {
				n++;
				nf += rows->v[j].verdict == ROW_FAIL;
				ns += rows->v[j].verdict == ROW_SKIP;
			}
		buf_adds(b, "  <testsuite name=\"");
		buf_add_html(b, r->subject != NULL ? r->subject : "");
		buf_addf(b, "\" tests=\"%zu\" failures=\"%zu\"", n, nf);
		buf_addf(b, " errors=\"0\" skipped=\"%zu\"", ns);
		if (package != NULL) {
			buf_adds(b, " package=\"");
			buf_add_html(b, package);
			buf_adds(b, "\"");
		}
		buf_adds(b, ">\n");
		for (j = i; j < rows->n; j++)
			if (row_same_subject(&rows->v[j], r))
				row_junit_case(b, &rows->v[j]);
		buf_adds(b, "  </testsuite>\n");
	}
	buf_adds(b, "</testsuites>\n");
}

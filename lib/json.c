/*
 * json.c: write JSON.  See json.h.
 */
#include "compat.h"

#include <math.h>

#include "buf.h"
#include "json.h"
#include "strvec.h"

/* Printable ASCII but the quote and the backslash: written as it is. */
static int
json_plain(unsigned char c)
{
	return c >= 0x20 && c < 0x7f && c != '"' && c != '\\';
}

/*
 * JSON is UTF-8 (RFC 8259), and our own reader is libyaml, which refuses
 * control and C1 characters even in quoted strings and reads NEL, LS and
 * PS as line breaks.  Those are written as JSON escapes; a byte that is not
 * UTF-8 (tool output, a file name) becomes U+FFFD, so the text always
 * reads back.
 */
void
json_add_string(struct buf *b, const char *s)
{
	const unsigned char	*p = (const unsigned char *)s;
	uint32_t		 cp;
	size_t			 n;

	buf_addch(b, '"');
	for (; *p != '\0'; p++) {
		/*
		 * A run of printable ASCII needs no escape: one copy, not a
		 * call per byte (state saves escape every row's text).
		 */
		n = 0;
		while (json_plain(p[n]))
			n++;
		if (n > 0) {
			buf_add(b, p, n);
			p += n;
			if (*p == '\0')
				break;
		}
		switch (*p) {
		case '"':
			buf_adds(b, "\\\"");
			break;
		case '\\':
			buf_adds(b, "\\\\");
			break;
		case '\n':
			buf_adds(b, "\\n");
			break;
		case '\r':
			buf_adds(b, "\\r");
			break;
		case '\t':
			buf_adds(b, "\\t");
			break;
		default:
			n = buf_utf8_len(p, &cp);
			if (n == 0)
				buf_adds(b, "\xef\xbf\xbd");	/* U+FFFD */
			else if (cp < 0x20 || cp == 0x7f ||
			    (cp >= 0x80 && cp <= 0x9f) || cp == 0x2028 ||
			    cp == 0x2029 || cp == 0xfeff || cp == 0xfffe ||
			    cp == 0xffff)
				buf_addf(b, "\\u%04x", (unsigned)cp);
			else
				buf_add(b, p, n);
			if (n > 1)
				p += n - 1;
		}
	}
	buf_addch(b, '"');
}

void
json_init(struct json_writer *jw, struct buf *out)
{
	memset(jw, 0, sizeof *jw);
	jw->b = out;
}

/* A new line, indented two spaces for each JSON_LINES level up to d. */
static void
json_newline(struct json_writer *jw, int d)
{
	int	i;

	buf_addch(jw->b, '\n');
	for (i = 1; i <= d; i++)
		if (jw->lines[i])
			buf_adds(jw->b, "  ");
}

/* The separator, indentation and key before a value. */
static void
json_value(struct json_writer *jw, const char *key)
{
	int	d = jw->depth;

	if (d == 0) {
		if (key != NULL || jw->count[0]++ > 0)
			abort();	/* one document, no key */
		return;
	}
	if ((key == NULL) != jw->array[d])
		abort();		/* a key in an array, none in an object */
	if (jw->count[d]++ > 0)
		buf_addch(jw->b, ',');
	if (jw->lines[d])
		json_newline(jw, d);
	else if (jw->count[d] > 1)
		buf_addch(jw->b, ' ');
	if (key != NULL) {
		json_add_string(jw->b, key);
		buf_adds(jw->b, ": ");
	}
}

static void
json_begin(struct json_writer *jw, const char *key, int flags, int array)
{
	json_value(jw, key);
	if (jw->depth + 1 >= JSON_MAX_DEPTH)
		abort();
	jw->depth++;
	jw->array[jw->depth] = (unsigned char)array;
	jw->lines[jw->depth] = (flags & JSON_LINES) != 0;
	jw->count[jw->depth] = 0;
	buf_addch(jw->b, array ? '[' : '{');
}

void
json_object_begin(struct json_writer *jw, const char *key, int flags)
{
	json_begin(jw, key, flags, 0);
}

void
json_array_begin(struct json_writer *jw, const char *key, int flags)
{
	json_begin(jw, key, flags, 1);
}

void
json_end(struct json_writer *jw)
{
	int	d = jw->depth;

	if (d == 0)
		abort();
	if (jw->lines[d] && jw->count[d] > 0)
		json_newline(jw, d - 1);
	buf_addch(jw->b, jw->array[d] ? ']' : '}');
	jw->depth--;
}

void
json_finish(struct json_writer *jw)
{
	if (jw->depth != 0)
		abort();
	buf_addch(jw->b, '\n');
}

void
json_str(struct json_writer *jw, const char *key, const char *v)
{
	json_value(jw, key);
	if (v != NULL)
		json_add_string(jw->b, v);
	else
		buf_adds(jw->b, "null");
}

void
json_int(struct json_writer *jw, const char *key, long long v)
{
	json_value(jw, key);
	buf_addf(jw->b, "%lld", v);
}

void
json_num(struct json_writer *jw, const char *key, double v, int decimals)
{
	char	s[64];
	int	prec;

	json_value(jw, key);
	if (!isfinite(v)) {
		buf_adds(jw->b, "null");
		return;
	}
	if (decimals >= 0) {
		buf_addf(jw->b, "%.*f", decimals, v);
		return;
	}
	for (prec = 15; prec < 17; prec++) {
		snprintf(s, sizeof s, "%.*g", prec, v);
		if (strtod(s, NULL) == v)
			break;
	}
	snprintf(s, sizeof s, "%.*g", prec, v);
	buf_adds(jw->b, s);
}

void
json_bool(struct json_writer *jw, const char *key, int v)
{
	json_value(jw, key);
	buf_adds(jw->b, v ? "true" : "false");
}

void
json_null(struct json_writer *jw, const char *key)
{
	json_value(jw, key);
	buf_adds(jw->b, "null");
}

void
json_strvec(struct json_writer *jw, const char *key, const struct strvec *v)
{
	size_t	i;

	json_array_begin(jw, key, 0);
	for (i = 0; i < v->n; i++)
		json_str(jw, NULL, v->v[i]);
	json_end(jw);
}

/*
 * xml.c: a strict reader for the XML nvidia-smi writes.  See xml.h.
 */
#include "compat.h"

#include <ctype.h>

#include "buf.h"
#include "err.h"
#include "str.h"
#include "xml.h"

struct xml_reader {
	const char		*label;
	const char		*p;
	unsigned		 line;
	struct prov_err		*err;
};

void
xml_free(struct xml_node *x)
{
	while (x != NULL) {
		struct xml_node	*nx = x->next;

		xml_free(x->child);
		free(x->name);
		free(x->id);
		free(x->text);
		free(x);
		x = nx;
	}
}

static int
xml_err(struct xml_reader *rd, const char *what)
{
	return prov_err_set(rd->err, PROV_E_PARSE, "%s: line %u: %s", rd->label,
	    rd->line, what);
}

static void
xml_adv(struct xml_reader *rd, size_t n)
{
	for (; n > 0 && *rd->p != '\0'; n--, rd->p++)
		if (*rd->p == '\n')
			rd->line++;
}

static void
xml_ws(struct xml_reader *rd)
{
	while (
	    *rd->p == ' ' || *rd->p == '\t' || *rd->p == '\r' || *rd->p == '\n')
		xml_adv(rd, 1);
}

/* Skip up to and past `end`; -1 when it never comes. */
static int
xml_skip(struct xml_reader *rd, const char *end)
{
	const char	*e = strstr(rd->p, end);

	if (e == NULL)
		return xml_err(rd, "unterminated markup");
	xml_adv(rd, (size_t)(e - rd->p) + strlen(end));
	return 0;
}

static int
xml_namechar(int c, int first)
{
	return isalpha(c) || c == '_' || c == ':' ||
	    (!first && (isdigit(c) || c == '-' || c == '.'));
}

static char *
xml_name(struct xml_reader *rd)
{
	const char	*s = rd->p;

	if (!xml_namechar((unsigned char)*s, 1))
		return NULL;
	while (xml_namechar((unsigned char)*rd->p, 0))
		rd->p++;
	return xstrndup(s, (size_t)(rd->p - s));
}

/* Append text up to `stop` (a char) with entities decoded. */
static int
xml_text(struct xml_reader *rd, struct buf *b, int stop)
{
	while (*rd->p != '\0' && *rd->p != stop && *rd->p != '<') {
		if (*rd->p == '&') {
			static const struct {
				const char	*e;
				char		 c;
			} ents[] = {
				{ "&amp;", '&' },
				{ "&lt;", '<' },
				{ "&gt;", '>' },
				{ "&quot;", '"' },
				{ "&apos;", '\'' },
			};
			size_t		i;
			unsigned long	cp;
			char		*end;

			for (i = 0; i < ARRAY_SIZE(ents); i++)
				if (str_starts(rd->p, ents[i].e))
					break;
			if (i < ARRAY_SIZE(ents)) {
				buf_addch(b, ents[i].c);
				xml_adv(rd, strlen(ents[i].e));
				continue;
			}
			if (rd->p[1] != '#')
				return xml_err(rd, "unknown entity");
			errno = 0;
			if (rd->p[2] == 'x')
				cp = strtoul(rd->p + 3, &end, 16);
			else
				cp = strtoul(rd->p + 2, &end, 10);
			if (errno != 0 || *end != ';' || cp == 0 ||
			    cp > 0x10ffff)
				return xml_err(rd, "bad character reference");
			if (cp < 0x80)
				buf_addch(b, (int)cp);
			else if (cp < 0x800) {
				buf_addch(b, (int)(0xc0 | (cp >> 6)));
				buf_addch(b, (int)(0x80 | (cp & 0x3f)));
			} else if (cp < 0x10000) {
				buf_addch(b, (int)(0xe0 | (cp >> 12)));
				buf_addch(b, (int)(0x80 | ((cp >> 6) & 0x3f)));
				buf_addch(b, (int)(0x80 | (cp & 0x3f)));
			} else {
				buf_addch(b, (int)(0xf0 | (cp >> 18)));
				buf_addch(b, (int)(0x80 | ((cp >> 12) & 0x3f)));
				buf_addch(b, (int)(0x80 | ((cp >> 6) & 0x3f)));
				buf_addch(b, (int)(0x80 | (cp & 0x3f)));
			}
			xml_adv(rd, (size_t)(end - rd->p) + 1);
			continue;
		}
		buf_addch(b, *rd->p);
		xml_adv(rd, 1);
	}
	return 0;
}

/* Comments, PIs and white space between elements. */
static int
xml_misc(struct xml_reader *rd)
{
	for (;;) {
		xml_ws(rd);
		if (str_starts(rd->p, "<!--")) {
			if (xml_skip(rd, "-->") != 0)
				return -1;
		} else if (str_starts(rd->p, "<?")) {
			if (xml_skip(rd, "?>") != 0)
				return -1;
		} else
			return 0;
	}
}

/*
 * One element at rd->p ('<'); depth bounds recursion.  Attributes, then
 * content up to the matching end tag, in one function: the element being
 * built is all the state there is.
 */
static int
xml_elem(struct xml_reader *rd, struct xml_node **out, int depth)
{
	struct xml_node	*x = NULL, *c = NULL;
	struct buf		 text = BUF_INIT, val = BUF_INIT;
	char			*an = NULL, *en = NULL;
	int			 r = -1;

	*out = NULL;
	if (depth > 64) {
		xml_err(rd, "elements nested too deep");
		goto out;
	}
	xml_adv(rd, 1);
	x = xcalloc(1, sizeof *x);
	if ((x->name = xml_name(rd)) == NULL) {
		xml_err(rd, "bad element name");
		goto out;
	}
	for (;;) {
		char	q;

		xml_ws(rd);
		if (*rd->p == '>' || str_starts(rd->p, "/>"))
			break;
		if ((an = xml_name(rd)) == NULL) {
			xml_err(rd, "bad attribute");
			goto out;
		}
		xml_ws(rd);
		if (*rd->p != '=') {
			xml_err(rd, "attribute without '='");
			goto out;
		}
		xml_adv(rd, 1);
		xml_ws(rd);
		if (*rd->p != '"' && *rd->p != '\'') {
			xml_err(rd, "unquoted attribute value");
			goto out;
		}
		q = *rd->p;
		xml_adv(rd, 1);
		buf_reset(&val);
		if (xml_text(rd, &val, q) != 0)
			goto out;
		if (*rd->p != q) {
			xml_err(rd, "unterminated attribute value");
			goto out;
		}
		xml_adv(rd, 1);
		if (strcmp(an, "id") == 0) {
			free(x->id);
			x->id = xstrdup(val.buf);
		}
		free(an);
		an = NULL;
	}
	if (str_starts(rd->p, "/>")) {
		xml_adv(rd, 2);
		x->text = xstrdup("");
		goto done;
	}
	xml_adv(rd, 1);
	for (;;) {
		if (*rd->p == '\0') {
			xml_err(rd, "unclosed element");
			goto out;
		}
		if (str_starts(rd->p, "</")) {
			xml_adv(rd, 2);
			if ((en = xml_name(rd)) == NULL ||
			    strcmp(en, x->name) != 0) {
				xml_err(rd, "mismatched end tag");
				goto out;
			}
			xml_ws(rd);
			if (*rd->p != '>') {
				xml_err(rd, "bad end tag");
				goto out;
			}
			xml_adv(rd, 1);
			break;
		}
		if (str_starts(rd->p, "<!--")) {
			if (xml_skip(rd, "-->") != 0)
				goto out;
		} else if (str_starts(rd->p, "<![CDATA[")) {
			const char	*e = strstr(rd->p, "]]>");

			if (e == NULL) {
				xml_err(rd, "unterminated CDATA");
				goto out;
			}
			buf_add(&text, rd->p + 9, (size_t)(e - rd->p - 9));
			xml_adv(rd, (size_t)(e - rd->p) + 3);
		} else if (str_starts(rd->p, "<?")) {
			if (xml_skip(rd, "?>") != 0)
				goto out;
		} else if (*rd->p == '<') {
			if (xml_elem(rd, &c, depth + 1) != 0)
				goto out;
			if (x->last != NULL)
				x->last->next = c;
			else
				x->child = c;
			x->last = c;
			c = NULL;
		} else if (xml_text(rd, &text, '<') != 0)
			goto out;
	}
	x->text = xstrdup(str_trim(text.buf));
done:
	*out = x;
	x = NULL;
	r = 0;
out:
	free(an);
	free(en);
	buf_release(&text);
	buf_release(&val);
	xml_free(x);
	return r;
}

int
xml_parse(struct xml_node **out, const char *label, const char *text,
    struct prov_err *err)
{
	struct xml_reader	rd = { label, text, 1, err };

	*out = NULL;
	if (xml_misc(&rd) != 0)
		return -1;
	if (str_starts(rd.p, "<!DOCTYPE")) {
		const char	*gt = strchr(rd.p, '>');
		const char	*lb = strchr(rd.p, '[');

		if (gt == NULL || (lb != NULL && lb < gt))
			return xml_err(&rd, "unsupported DOCTYPE");
		xml_adv(&rd, (size_t)(gt - rd.p) + 1);
		if (xml_misc(&rd) != 0)
			return -1;
	}
	if (*rd.p != '<')
		return xml_err(&rd, "no root element");
	if (xml_elem(&rd, out, 0) != 0)
		return -1;
	if (xml_misc(&rd) != 0 || *rd.p != '\0') {
		xml_free(*out);
		*out = NULL;
		return xml_err(&rd, "content after the root element");
	}
	return 0;
}

const char *
xml_path(const struct xml_node *x, const char *path)
{
	const char	*p = path;

	while (x != NULL && *p != '\0') {
		const char		*slash = strchr(p, '/');
		size_t len = slash ? (size_t)(slash - p) : strlen(p);
		const struct xml_node	*c;

		for (c = x->child; c != NULL; c = c->next)
			if (strlen(c->name) == len &&
			    strncmp(c->name, p, len) == 0)
				break;
		x = c;
		p = slash ? slash + 1 : p + len;
	}
	return x != NULL ? x->text : NULL;
}

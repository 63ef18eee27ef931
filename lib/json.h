/*
 * json.h: write JSON (after git's json-writer): objects and arrays opened
 * and closed in order, typed values, commas, layout and escaping in one
 * place.
 *
 *	struct buf		b = BUF_INIT;
 *	struct json_writer	jw;
 *
 *	json_init(&jw, &b);
 *	json_object_begin(&jw, NULL, 0);
 *	json_str(&jw, "plan", path);
 *	json_array_begin(&jw, "rows", JSON_LINES);
 *	for (each row) {
 *		json_object_begin(&jw, NULL, 0);
 *		json_str(&jw, "node", name);
 *		json_int(&jw, "line", 3);
 *		json_end(&jw);
 *	}
 *	json_end(&jw);
 *	json_end(&jw);
 *	json_finish(&jw);	{"plan": "p.yaml", "rows": [
 *				  {"node": "gpu01", "line": 3}
 *				]}
 *
 * Inside an object every value takes its key; inside an array, and for
 * the document itself, the key is NULL (anything else is a bug and
 * aborts).  A NULL string is written as null, and so is a number that is
 * not finite.  A container begun with JSON_LINES puts each of its values
 * on a line of its own, indented two spaces a level, so a list of rows
 * reads one row a line; others are written on one line.  The writer only
 * appends to the caller's buf and owns nothing.
 */
#ifndef PROV_JSON_H
#define PROV_JSON_H

#include <stddef.h>

struct buf;

#define JSON_MAX_DEPTH	32
#define JSON_LINES	0x1

struct strvec;

struct json_writer {
	struct buf	*b;
	int		 depth;
	unsigned char	 array[JSON_MAX_DEPTH];	/* 1: array, 0: object */
	unsigned char	 lines[JSON_MAX_DEPTH];	/* JSON_LINES */
	size_t		 count[JSON_MAX_DEPTH];	/* values written */
};

void	json_init(struct json_writer *, struct buf *out);
void	json_object_begin(struct json_writer *, const char *key, int flags);
void	json_array_begin(struct json_writer *, const char *key, int flags);
/* Close the innermost object or array. */
void	json_end(struct json_writer *);
/* After the document's last json_end(): a final newline. */
void	json_finish(struct json_writer *);

void	json_str(struct json_writer *, const char *key, const char *v);
void	json_int(struct json_writer *, const char *key, long long v);
/* decimals: digits after the point, or -1: the fewest that read back. */
void	json_num(struct json_writer *, const char *key, double v, int dec);
void	json_bool(struct json_writer *, const char *key, int v);
void	json_null(struct json_writer *, const char *key);
/* An array of strings, every item of v. */
void	json_strvec(struct json_writer *, const char *key, const struct strvec *v);

/*
 * Append s as a JSON string literal, quotes included: control and C1
 * characters, DEL, U+2028/2029 and the non-characters as \u escapes, a
 * byte that is not UTF-8 as U+FFFD, so the text always reads back (our
 * reader is libyaml, which refuses those even in quoted strings).
 */
void	json_add_string(struct buf *, const char *s);

#endif

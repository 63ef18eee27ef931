/*
 * schema.c: table-driven binding of YAML mappings to structs.  See schema.h.
 */
#include "compat.h"

#include <math.h>

#include "buf.h"
#include "schema.h"
#include "str.h"
#include "strvec.h"

/*
 * str_suggest(), but of candidates as near, the one sharing the longest
 * prefix: 'gpu' is nearer to 'gpus' than to 'cpu'.
 */
static const char *
schema_suggest(const char *s, const char *const *cands)
{
	const char	*best = str_suggest(s, cands);
	size_t		 d, i, pb, pc;

	if (best == NULL)
		return NULL;
	d = str_distance(s, best, SIZE_MAX - 1);
	for (pb = 0; s[pb] != '\0' && s[pb] == best[pb]; pb++)
		;
	for (i = 0; cands[i] != NULL; i++) {
		if (str_distance(s, cands[i], d) != d)
			continue;
		for (pc = 0; s[pc] != '\0' && s[pc] == cands[i][pc]; pc++)
			;
		if (pc > pb) {
			best = cands[i];
			pb = pc;
		}
	}
	return best;
}

int
schema_type_error(const struct schema_ctx *c, const struct yml_node *n,
    const char *what, const char *expected)
{
	struct prov_loc	loc = yml_loc(c->doc, n);

	if (n->kind == YML_SCALAR && !yml_is_null(n))
		return prov_errs_add(c->errs, PROV_E_PLAN, &loc, NULL,
		    "'%s' must be %s, not '%s'", what, expected, n->u.s);
	return prov_errs_add(c->errs, PROV_E_PLAN, &loc, NULL,
	    "'%s' must be %s, not %s", what, expected, yml_kind_name(n));
}

int
schema_str(const struct schema_ctx *c, const struct yml_node *n,
    const char *what, const char **out)
{
	if (n->kind != YML_SCALAR || yml_is_null(n))
		return schema_type_error(c, n, what, "a string");
	if (strlen(n->u.s) != n->n) {
		struct prov_loc	loc = yml_loc(c->doc, n);

		return prov_errs_add(c->errs, PROV_E_PLAN, &loc, NULL,
		    "'%s' contains a NUL byte", what);
	}
	*out = n->u.s;
	return 0;
}

/* A number in quotes is a string: say so, it is easy to miss. */
static int
schema_quoted_error(const struct schema_ctx *c, const struct yml_node *n,
    const char *what, const char *expected)
{
	struct prov_loc	loc = yml_loc(c->doc, n);

	return prov_errs_add(c->errs, PROV_E_PLAN, &loc,
	    "write it without quotes", "'%s' must be %s, not the string '%s'",
	    what, expected, n->u.s);
}

int
schema_long(const struct schema_ctx *c, const struct yml_node *n,
    const char *what, long *out)
{
	long	v;

	if (n->kind == YML_SCALAR && !n->plain && str_to_long(n->u.s, &v) == 0)
		return schema_quoted_error(c, n, what, "a whole number");
	if (n->kind != YML_SCALAR || !n->plain || str_to_long(n->u.s, out) != 0)
		return schema_type_error(c, n, what, "a whole number");
	return 0;
}

int
schema_num(const struct schema_ctx *c, const struct yml_node *n,
    const char *what, double *out)
{
	double	v;

	if (n->kind == YML_SCALAR && !n->plain &&
	    str_to_double(n->u.s, &v) == 0)
		return schema_quoted_error(c, n, what, "a number");
	if (n->kind != YML_SCALAR || !n->plain || str_to_double(n->u.s, out) != 0)
		return schema_type_error(c, n, what, "a number");
	return 0;
}

int
schema_bool(const struct schema_ctx *c, const struct yml_node *n,
    const char *what, int *out)
{
	static const char *const yes[] = { "true", "True", "TRUE", "yes", "Yes",
	    "on", NULL };
	static const char *const no[] = { "false", "False", "FALSE", "no", "No",
	    "off", NULL };
	size_t	i;

	if (n->kind == YML_SCALAR && n->plain) {
		for (i = 0; yes[i] != NULL; i++)
			if (strcmp(n->u.s, yes[i]) == 0) {
				*out = 1;
				return 0;
			}
		for (i = 0; no[i] != NULL; i++)
			if (strcmp(n->u.s, no[i]) == 0) {
				*out = 0;
				return 0;
			}
	}
	return schema_type_error(c, n, what, "true or false");
}

static int
schema_range(const struct schema_ctx *c, const struct yml_node *n,
    const struct schema_field *f, double v)
{
	struct prov_loc	loc;

	if (f->min > f->max || (v >= f->min && v <= f->max))
		return 0;
	loc = yml_loc(c->doc, n);
	return prov_errs_add(c->errs, PROV_E_PLAN, &loc, NULL,
	    "'%s' is %s, outside %g..%g", f->key, n->u.s, f->min, f->max);
}

static int
schema_bind_one(const struct schema_ctx *c, const struct yml_node *v,
    const struct schema_field *f, void *base)
{
	char		*dst = (char *)base + f->off;
	const char	*s;
	struct prov_loc	 loc;
	size_t		 i;

	if ((f->flags & SCHEMA_NULLABLE) && yml_is_null(v))
		return 0;
	switch (f->type) {
	case SCHEMA_STR:
		return schema_str(c, v, f->key, (const char **)dst);
	case SCHEMA_WORD:
		if (schema_str(c, v, f->key, &s) != 0)
			return -1;
		if (!str_is_safe_word(s)) {
			loc = yml_loc(c->doc, v);
			return prov_errs_add(c->errs, PROV_E_PLAN, &loc,
			    "use letters, digits, '.', '_', '+' and '-' only",
			    "'%s' has characters that are not allowed: '%s'",
			    f->key, s);
		}
		*(const char **)dst = s;
		return 0;
	case SCHEMA_HOST:
		if (schema_str(c, v, f->key, &s) != 0)
			return -1;
		if (!str_is_hostname(s)) {
			loc = yml_loc(c->doc, v);
			return prov_errs_add(c->errs, PROV_E_PLAN, &loc,
			    "RFC 1123: letters, digits and '-', labels of at "
			    "most 63 characters, not starting or ending with '-'",
			    "'%s' is not a valid host name: '%s'", f->key, s);
		}
		*(const char **)dst = s;
		return 0;
	case SCHEMA_INT:
		if (schema_long(c, v, f->key, (long *)dst) != 0)
			return -1;
		return schema_range(c, v, f, (double)*(long *)dst);
	case SCHEMA_NUM:
		if (schema_num(c, v, f->key, (double *)dst) != 0)
			return -1;
		return schema_range(c, v, f, *(double *)dst);
	case SCHEMA_BOOL:
		return schema_bool(c, v, f->key, (int *)dst);
	case SCHEMA_ENUM:
		if (schema_str(c, v, f->key, &s) != 0)
			return -1;
		for (i = 0; f->enums[i] != NULL; i++)
			if (strcmp(s, f->enums[i]) == 0) {
				*(const char **)dst = f->enums[i];
				return 0;
			}
		{
			struct buf	 b = BUF_INIT;
			const char	*near = schema_suggest(s, f->enums);

			if (near != NULL)
				buf_addf(&b, "did you mean '%s'?", near);
			else {
				buf_adds(&b, "one of");
				for (i = 0; f->enums[i] != NULL; i++)
					buf_addf(&b, "%s '%s'", i ? "," : "",
					    f->enums[i]);
			}
			loc = yml_loc(c->doc, v);
			prov_errs_add(c->errs, PROV_E_PLAN, &loc, b.buf,
			    "unknown %s '%s'", f->key, s);
			buf_release(&b);
			return -1;
		}
	case SCHEMA_STRLIST: {
		struct strvec	*sv = (struct strvec *)dst;

		if (v->kind == YML_SCALAR && !yml_is_null(v)) {
			strvec_push(sv, v->u.s);
			return 0;
		}
		if (v->kind != YML_SEQ)
			return schema_type_error(c, v, f->key, "a list of strings");
		for (i = 0; i < v->n; i++) {
			if (schema_str(c, v->u.items[i], f->key, &s) != 0)
				return -1;
			strvec_push(sv, s);
		}
		return 0;
	}
	case SCHEMA_OBJ:
		return schema_bind(c, v, f->sub, dst);
	case SCHEMA_NODE:
		*(const struct yml_node **)dst = v;
		return 0;
	case SCHEMA_IGNORE:
	case SCHEMA_END:
		return 0;
	}
	return 0;
}

int
schema_bind(const struct schema_ctx *c, const struct yml_node *map,
    const struct schema_field *fields, void *base)
{
	const struct schema_field	*f;
	const char			*keys[64];
	size_t				 i, nkeys = 0;
	int				 r = 0;

	if (map == NULL)
		return -1;
	if (map->kind != YML_MAP) {
		struct prov_loc	loc = yml_loc(c->doc, map);

		/* The caller knows the key, not us: no name to quote. */
		if (map->kind == YML_SCALAR && !yml_is_null(map))
			return prov_errs_add(c->errs, PROV_E_PLAN, &loc,
			    "write 'key: value' pairs", "expected a mapping, "
			    "not '%s'", map->u.s);
		return prov_errs_add(c->errs, PROV_E_PLAN, &loc,
		    "write 'key: value' pairs", "expected a mapping, not %s",
		    yml_kind_name(map));
	}
	for (f = fields; f->key != NULL && nkeys < ARRAY_SIZE(keys) - 1; f++)
		keys[nkeys++] = f->key;
	keys[nkeys] = NULL;

	for (i = 0; i < map->n; i++) {
		const struct yml_node	*k = map->u.pairs[i].key;

		for (f = fields; f->key != NULL; f++)
			if (strcmp(f->key, k->u.s) == 0)
				break;
		if (f->key == NULL) {
			struct prov_loc	 loc = yml_loc(c->doc, k);
			const char	*near = schema_suggest(k->u.s, keys);
			char		*hint = near != NULL ?
			    xasprintf("did you mean '%s'?", near) : NULL;

			prov_errs_add(c->errs, PROV_E_PLAN, &loc, hint,
			    "unknown key '%s'", k->u.s);
			free(hint);
			r = -1;
			continue;
		}
		if (schema_bind_one(c, map->u.pairs[i].val, f, base) != 0)
			r = -1;
	}
	for (f = fields; f->key != NULL; f++) {
		if (!(f->flags & SCHEMA_REQUIRED) || yml_map_pair(map, f->key))
			continue;
		struct prov_loc	loc = yml_loc(c->doc, map);

		prov_errs_add(c->errs, PROV_E_PLAN, &loc, NULL,
		    "missing key '%s'", f->key);
		r = -1;
	}
	return r;
}

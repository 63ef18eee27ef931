/*
 * schema.h: bind a YAML mapping to a C struct through a table of fields.
 *
 * The plan and the catalog are both "mappings with known keys": a table
 * of `struct schema_field` says each key's type and where it goes, and
 * schema_bind() fills the struct, reporting every unknown key (with the
 * nearest known one as a hint), wrong type, bad enum value and missing
 * required key to `errs`, located.  It keeps going after an error, so one
 * run shows every problem.
 *
 * Strings are borrowed from the yml doc (valid while it lives); lists of
 * strings are copied into a `struct strvec` the caller clears.  Fields not
 * present keep whatever the caller put there first: set defaults before
 * binding.
 */
#ifndef PROV_SCHEMA_H
#define PROV_SCHEMA_H

#include <stddef.h>

#include "err.h"
#include "yml.h"

enum schema_type {
	SCHEMA_END = 0,
	SCHEMA_STR,	/* const char * */
	SCHEMA_WORD,	/* const char *: [A-Za-z0-9._+-] only (safe in shells and paths) */
	SCHEMA_HOST,	/* const char *: RFC 1123 host name */
	SCHEMA_INT,	/* long */
	SCHEMA_NUM,	/* double */
	SCHEMA_BOOL,	/* int */
	SCHEMA_ENUM,	/* const char *, one of `enums` */
	SCHEMA_STRLIST,	/* struct strvec: a list of strings, or one string */
	SCHEMA_OBJ,	/* an embedded struct bound with `sub` */
	SCHEMA_NODE,	/* const struct yml_node *: the caller reads it */
	SCHEMA_IGNORE,	/* accepted and not bound (e.g. documentation keys) */
};

#define SCHEMA_REQUIRED	0x1
#define SCHEMA_NULLABLE	0x2	/* `null` is allowed and leaves the default */

struct schema_field {
	const char			*key;
	enum schema_type		 type;
	size_t				 off;
	int				 flags;
	const char *const		*enums;	/* SCHEMA_ENUM: NULL-terminated */
	const struct schema_field	*sub;	/* SCHEMA_OBJ */
	double				 min, max;	/* numbers; min > max: unchecked */
};

struct schema_ctx {
	const struct yml_doc	*doc;
	struct prov_errs	*errs;
};

/* Bind `map` (must be a mapping; an error otherwise) into `base`; -1 on any error. */
int	schema_bind(const struct schema_ctx *, const struct yml_node *map,
	    const struct schema_field *, void *base);
/* Single-value converters, for callers that walk nodes themselves. */
int	schema_str(const struct schema_ctx *, const struct yml_node *,
	    const char *what, const char **out);
int	schema_long(const struct schema_ctx *, const struct yml_node *,
	    const char *what, long *out);
int	schema_num(const struct schema_ctx *, const struct yml_node *,
	    const char *what, double *out);
int	schema_bool(const struct schema_ctx *, const struct yml_node *,
	    const char *what, int *out);
/* "must be a mapping" style error at `n`. */
int	schema_type_error(const struct schema_ctx *, const struct yml_node *,
	    const char *what, const char *expected);

#endif

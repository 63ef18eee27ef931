/*
 * yml.h: a YAML (and so JSON) document as a tree of located nodes.
 *
 * libyaml's event parser fills an arena-backed tree; every node keeps the
 * 1-based line and column where it starts, so plan and catalog errors can
 * say `file:line:col`.  Anchors and aliases share nodes (an alias points at
 * the anchored node; nothing is copied), and `<<` merge keys are resolved
 * while loading: explicit keys win over merged ones, earlier merge sources
 * win over later ones (YAML merge key spec).  A duplicate key in one
 * mapping is an error at the second key; the first value is kept.
 *
 *	struct yml_doc doc;
 *	yml_doc_init(&doc);
 *	if (yml_load(&doc, "plan.yaml", data, len, &errs) != 0)
 *		... syntax error, in errs ...
 *	root = doc.root;		(NULL for an empty document)
 *	yml_doc_release(&doc);		(frees every node and string)
 *
 * Nodes and strings are owned by the doc and valid until yml_doc_release().
 */
#ifndef PROV_YML_H
#define PROV_YML_H

#include <stddef.h>
#include <stdio.h>

#include "err.h"

enum yml_kind {
	YML_SCALAR = 1,
	YML_SEQ,
	YML_MAP,
};

struct yml_pair;

/* 24 bytes: a plan of 100,000 nodes holds over a million of these. */
struct yml_node {
	unsigned	 line, col;	/* 1-based */
	unsigned	 n;		/* scalar length, or item/pair count */
	unsigned char	 kind;		/* enum yml_kind */
	unsigned char	 plain;		/* scalar written without quotes */
	union {
		const char		 *s;	/* scalar, NUL-terminated */
		struct yml_node		**items;
		struct yml_pair		 *pairs;
	} u;
};

struct yml_pair {
	struct yml_node	*key;
	struct yml_node	*val;
};

struct yml_chunk;

struct yml_doc {
	const char		*file;	/* borrowed label for locations */
	struct yml_node		*root;
	struct yml_chunk	*chunks;
	size_t			 bytes;	/* arena bytes in use, for benchmarks */
};

void	yml_doc_init(struct yml_doc *);
void	yml_doc_release(struct yml_doc *);

/*
 * Parse `len` bytes.  `file` is borrowed and must outlive the doc.
 * Returns -1 when the text is not YAML (the error, located, is added to
 * errs and the doc stays empty); 0 otherwise, with duplicate keys and
 * bad merges added to errs.
 */
int	yml_load(struct yml_doc *, const char *file, const char *data,
	    size_t len, struct prov_errs *errs);
/* The same, streaming from an open file (big plans are never held whole). */
int	yml_load_fp(struct yml_doc *, const char *file, FILE *fp,
	    struct prov_errs *errs);
/*
 * An answer that must be a JSON object (a BMC's, Prometheus's,
 * kubectl's, a file provision wrote): -1 with one PROV_E_PARSE error
 * "LABEL: empty answer", "LABEL: not JSON: WHY" or "LABEL: not a JSON
 * object".  The doc is initialised either way and must be released.
 */
int	yml_load_json(struct yml_doc *, const char *label, const char *text,
	    size_t len, struct prov_err *err);

/* Copy a string into the doc's arena: it lives as long as the doc. */
const char	*yml_doc_strdup(struct yml_doc *, const char *s);
/* Raw arena memory (16-byte aligned), freed with the doc. */
void		*yml_doc_alloc(struct yml_doc *, size_t n);

/* The location of a node (never NULL node). */
struct prov_loc	yml_loc(const struct yml_doc *, const struct yml_node *);

/* Kind name for messages: "a mapping", "a list", "a string". */
const char	*yml_kind_name(const struct yml_node *);
/* A plain scalar ``, `~`, `null`, `Null` or `NULL`, or a NULL pointer. */
int		 yml_is_null(const struct yml_node *);
/* The value for key `k` in a mapping, or NULL. */
struct yml_node	*yml_map_get(const struct yml_node *map, const char *k);
/* The scalar value for key `k` in a mapping; NULL when there is none, it
   is not a scalar, or it is null (JSON's null, YAML's ~). */
const char	*yml_map_str(const struct yml_node *map, const char *k);
/* The pair for key `k` (to locate the key itself), or NULL. */
const struct yml_pair *yml_map_pair(const struct yml_node *map, const char *k);

#endif

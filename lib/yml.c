/*
 * yml.c: load YAML into a tree of located nodes with libyaml's event API.
 *
 * Shape: one pass over the events.  Open collections sit on a frame stack;
 * their children are pushed on one shared node stack and copied into the
 * arena, exactly sized, when the collection ends.  So memory is the tree
 * itself plus the deepest open path, and time is linear in the input:
 * mappings with many keys check duplicates with a hash table, anchors live
 * in a hash table too.
 */
#include "compat.h"

#include <yaml.h>

#include "yml.h"

#define YML_CHUNK	(64 * 1024)
/* Bound on pairs merge keys look at, so `<<` chains cannot blow up. */
#define YML_MERGE_MAX	(1u << 20)

struct yml_chunk {
	struct yml_chunk	*next;
	size_t			 used, size;
	/* data follows, 16-byte aligned */
	max_align_t		 data[];
};

struct yml_anchor {
	char		*name;
	struct yml_node	*node;
};

struct yml_frame {
	struct yml_node	*node;
	size_t		 base;		/* first child on the node stack */
	char		*anchor;
};

struct yml_loader {
	struct yml_doc		*doc;
	struct prov_errs	*errs;
	struct yml_node		**stack;
	size_t			 nstack, astack;
	struct yml_frame	*frames;
	size_t			 nframes, aframes;
	struct yml_anchor	*anchors;	/* open addressing */
	size_t			 nanchors, aanchors;
	size_t			 merged;
	int			 merge_full;	/* reported once */
	const char		**interned;	/* open addressing, arena strings */
	size_t			 ninterned, ainterned;
};

static void *
yml_alloc_aligned(struct yml_doc *doc, size_t n, size_t align)
{
	struct yml_chunk	*c = doc->chunks;
	void			*p;

	if (c != NULL)
		c->used = (c->used + align - 1) & ~(align - 1);
	n = (n + align - 1) & ~(align - 1);
	if (c == NULL || c->used > c->size || c->size - c->used < n) {
		size_t	size = n > YML_CHUNK ? n : YML_CHUNK;

		c = xmalloc(sizeof *c + size);
		c->size = size;
		c->used = 0;
		c->next = doc->chunks;
		doc->chunks = c;
	}
	p = (char *)c->data + c->used;
	c->used += n;
	doc->bytes += n;
	return p;
}

static void *
yml_alloc(struct yml_doc *doc, size_t n)
{
	return yml_alloc_aligned(doc, n, 16);
}

static const char *
yml_strdup(struct yml_doc *doc, const char *s, size_t len)
{
	char	*p = yml_alloc_aligned(doc, len + 1, 1);

	memcpy(p, s, len);
	p[len] = '\0';
	return p;
}

const char *
yml_doc_strdup(struct yml_doc *doc, const char *s)
{
	return yml_strdup(doc, s, strlen(s));
}

void *
yml_doc_alloc(struct yml_doc *doc, size_t n)
{
	return yml_alloc(doc, n);
}

void
yml_doc_init(struct yml_doc *doc)
{
	memset(doc, 0, sizeof *doc);
}

void
yml_doc_release(struct yml_doc *doc)
{
	struct yml_chunk	*c, *next;

	if (doc == NULL)
		return;
	for (c = doc->chunks; c != NULL; c = next) {
		next = c->next;
		free(c);
	}
	yml_doc_init(doc);
}

struct prov_loc
yml_loc(const struct yml_doc *doc, const struct yml_node *n)
{
	struct prov_loc	loc = { doc->file, n->line, n->col };

	return loc;
}

static uint64_t
yml_hash(const char *s, size_t len)
{
	uint64_t	h = 1469598103934665603ULL;
	size_t		i;

	for (i = 0; i < len; i++) {
		h ^= (unsigned char)s[i];
		h *= 1099511628211ULL;
	}
	return h;
}

static struct yml_anchor *
yml_anchor_slot(struct yml_loader *ld, const char *name)
{
	size_t	mask = ld->aanchors - 1, i;

	i = (size_t)yml_hash(name, strlen(name)) & mask;
	while (ld->anchors[i].name != NULL &&
	    strcmp(ld->anchors[i].name, name) != 0)
		i = (i + 1) & mask;
	return &ld->anchors[i];
}

static void
yml_anchor_set(struct yml_loader *ld, char *name, struct yml_node *node)
{
	struct yml_anchor	*a;

	if ((ld->nanchors + 1) * 2 > ld->aanchors) {
		struct yml_anchor	*old = ld->anchors;
		size_t			 oldn = ld->aanchors, i;

		ld->aanchors = oldn ? oldn * 2 : 16;
		ld->anchors = xcalloc(ld->aanchors, sizeof *ld->anchors);
		for (i = 0; i < oldn; i++)
			if (old[i].name != NULL)
				*yml_anchor_slot(ld, old[i].name) = old[i];
		free(old);
	}
	a = yml_anchor_slot(ld, name);
	if (a->name != NULL) {
		/* YAML lets a later anchor of the same name replace it. */
		free(name);
	} else {
		a->name = name;
		ld->nanchors++;
	}
	a->node = node;
}

static struct yml_node *
yml_anchor_get(struct yml_loader *ld, const char *name)
{
	if (ld->aanchors == 0)
		return NULL;
	return yml_anchor_slot(ld, name)->node;
}

static struct yml_node *
yml_new(struct yml_loader *ld, int kind, const yaml_mark_t *m)
{
	struct yml_node	*n = yml_alloc(ld->doc, sizeof *n);

	memset(n, 0, sizeof *n);
	n->kind = (unsigned char)kind;
	n->line = (unsigned)m->line + 1;
	n->col = (unsigned)m->column + 1;
	return n;
}

static void
yml_push(struct yml_loader *ld, struct yml_node *n)
{
	ALLOC_GROW(ld->stack, ld->nstack + 1, ld->astack);
	ld->stack[ld->nstack++] = n;
}

static int
yml_is_merge_key(const struct yml_node *k)
{
	return k->kind == YML_SCALAR && k->plain && strcmp(k->u.s, "<<") == 0;
}

/* Hash set of key strings, for duplicate checks in big mappings. */
struct yml_keyset {
	const struct yml_node	**v;
	size_t			  mask;
	size_t			  n;
};

static void yml_keyset_grow(struct yml_keyset *);

static int
yml_keyset_add(struct yml_keyset *ks, const struct yml_node *k)
{
	size_t	i;

	/* Merged keys come on top of the explicit ones it was sized for. */
	if ((ks->n + 1) * 2 > ks->mask + 1)
		yml_keyset_grow(ks);
	i = (size_t)yml_hash(k->u.s, k->n) & ks->mask;
	while (ks->v[i] != NULL) {
		if (ks->v[i]->n == k->n &&
		    memcmp(ks->v[i]->u.s, k->u.s, k->n) == 0)
			return 0;
		i = (i + 1) & ks->mask;
	}
	ks->v[i] = k;
	ks->n++;
	return 1;
}

static void
yml_keyset_grow(struct yml_keyset *ks)
{
	struct yml_keyset	 big;
	size_t			 i;

	big.mask = (ks->mask + 1) * 2 - 1;
	big.v = xcalloc(big.mask + 1, sizeof *big.v);
	big.n = 0;
	for (i = 0; i <= ks->mask; i++)
		if (ks->v[i] != NULL)
			(void)yml_keyset_add(&big, ks->v[i]);
	free(ks->v);
	*ks = big;
}

static int
yml_keyset_has(const struct yml_keyset *ks, const struct yml_node *k)
{
	size_t	i = (size_t)yml_hash(k->u.s, k->n) & ks->mask;

	while (ks->v[i] != NULL) {
		if (ks->v[i]->n == k->n && memcmp(ks->v[i]->u.s, k->u.s, k->n) == 0)
			return 1;
		i = (i + 1) & ks->mask;
	}
	return 0;
}

static void
yml_add_merge_source(struct yml_loader *ld, struct yml_node *src,
    struct yml_pair **extra, size_t *nextra, size_t *aextra,
    struct yml_keyset *ks)
{
	size_t	i;

	for (i = 0; i < src->n; i++) {
		struct yml_pair	*p = &src->u.pairs[i];

		/*
		 * Every pair looked at counts: the same big source merged
		 * again and again copies nothing but still costs time.
		 */
		if (++ld->merged > YML_MERGE_MAX)
			return;
		if (yml_keyset_has(ks, p->key))
			continue;
		yml_keyset_add(ks, p->key);
		ALLOC_GROW(*extra, *nextra + 1, *aextra);
		(*extra)[(*nextra)++] = *p;
	}
}

/* Finish a mapping: duplicate keys, merge keys, copy pairs to the arena. */
static void
yml_end_map(struct yml_loader *ld, struct yml_frame *f)
{
	/* No pointer arithmetic on a NULL stack (an empty first mapping). */
	struct yml_node		**kids = ld->stack != NULL ?
				    ld->stack + f->base : NULL;
	size_t			  nk = (ld->nstack - f->base) / 2, i, j;
	struct yml_keyset	  ks = { NULL, 0, 0 };
	struct yml_pair		 *extra = NULL;
	size_t			  nextra = 0, aextra = 0, nout = 0, size;
	int			  has_merge = 0;

	size = 16;
	while (size < nk * 2 + 2)
		size *= 2;
	ks.v = xcalloc(size, sizeof *ks.v);
	ks.mask = size - 1;

	/* Explicit keys first: they win over merged ones. */
	for (i = 0; i < nk; i++) {
		struct yml_node	*k = kids[2 * i];

		if (yml_is_merge_key(k)) {
			has_merge = 1;
			continue;
		}
		if (k->kind != YML_SCALAR) {
			struct prov_loc	loc = yml_loc(ld->doc, k);

			prov_errs_add(ld->errs, PROV_E_PARSE, &loc,
			    "write the key as a plain string",
			    "a mapping key must be a string, not %s",
			    yml_kind_name(k));
			kids[2 * i] = NULL;
			continue;
		}
		if (!yml_keyset_add(&ks, k)) {
			struct prov_loc	loc = yml_loc(ld->doc, k);

			prov_errs_add(ld->errs, PROV_E_PARSE, &loc,
			    "each key may appear once in a mapping; the first "
			    "one is used", "duplicate key '%s'", k->u.s);
			kids[2 * i] = NULL;
		}
	}
	if (has_merge) {
		for (i = 0; i < nk; i++) {
			struct yml_node	*k = kids[2 * i], *v = kids[2 * i + 1];

			if (k == NULL || !yml_is_merge_key(k))
				continue;
			if (v->kind == YML_MAP) {
				yml_add_merge_source(ld, v, &extra, &nextra,
				    &aextra, &ks);
				continue;
			}
			if (v->kind == YML_SEQ) {
				for (j = 0; j < v->n; j++) {
					if (v->u.items[j]->kind == YML_MAP) {
						yml_add_merge_source(ld,
						    v->u.items[j], &extra,
						    &nextra, &aextra, &ks);
						continue;
					}
					struct prov_loc	loc = yml_loc(ld->doc,
					    v->u.items[j]);

					prov_errs_add(ld->errs, PROV_E_PARSE,
					    &loc, "merge a mapping or a list "
					    "of mappings", "cannot merge %s",
					    yml_kind_name(v->u.items[j]));
				}
				continue;
			}
			struct prov_loc	loc = yml_loc(ld->doc, v);

			prov_errs_add(ld->errs, PROV_E_PARSE, &loc,
			    "merge a mapping or a list of mappings, e.g. "
			    "'<<: *defaults'", "cannot merge %s",
			    yml_kind_name(v));
		}
		if (ld->merged > YML_MERGE_MAX && !ld->merge_full) {
			struct prov_loc	loc = yml_loc(ld->doc, f->node);

			prov_errs_add(ld->errs, PROV_E_PARSE, &loc, NULL,
			    "merge keys expand past %u entries",
			    YML_MERGE_MAX);
			ld->merge_full = 1;
		}
	}
	free(ks.v);

	f->node->u.pairs = yml_alloc(ld->doc,
	    (nk + nextra) * sizeof(struct yml_pair));
	for (i = 0; i < nk; i++) {
		if (kids[2 * i] == NULL || yml_is_merge_key(kids[2 * i]))
			continue;
		f->node->u.pairs[nout].key = kids[2 * i];
		f->node->u.pairs[nout].val = kids[2 * i + 1];
		nout++;
	}
	for (i = 0; i < nextra; i++)
		f->node->u.pairs[nout++] = extra[i];
	f->node->n = nout;
	free(extra);
}

static void
yml_end_collection(struct yml_loader *ld)
{
	struct yml_frame	*f = &ld->frames[--ld->nframes];
	size_t			 nkids = ld->nstack - f->base;

	if (f->node->kind == YML_MAP) {
		yml_end_map(ld, f);
	} else {
		f->node->n = nkids;
		f->node->u.items = yml_alloc(ld->doc,
		    nkids * sizeof(struct yml_node *));
		if (nkids > 0)
			memcpy(f->node->u.items, ld->stack + f->base,
			    nkids * sizeof(struct yml_node *));
	}
	ld->nstack = f->base;
	if (f->anchor != NULL)
		yml_anchor_set(ld, f->anchor, f->node);
	f->anchor = NULL;
	yml_push(ld, f->node);
}

static void
yml_open(struct yml_loader *ld, int kind, const yaml_mark_t *m,
    const yaml_char_t *anchor)
{
	struct yml_frame	*f;

	ALLOC_GROW(ld->frames, ld->nframes + 1, ld->aframes);
	f = &ld->frames[ld->nframes++];
	f->node = yml_new(ld, kind, m);
	f->base = ld->nstack;
	f->anchor = anchor != NULL ? xstrdup((const char *)anchor) : NULL;
}

/* A copy of a short key in the arena, shared by every equal key. */
static const char *
yml_intern(struct yml_loader *ld, const char *s, size_t len)
{
	size_t	mask, i;

	if ((ld->ninterned + 1) * 2 > ld->ainterned) {
		const char	**old = ld->interned;
		size_t		  oldn = ld->ainterned, j;

		ld->ainterned = oldn ? oldn * 2 : 64;
		ld->interned = xcalloc(ld->ainterned, sizeof *ld->interned);
		mask = ld->ainterned - 1;
		for (j = 0; j < oldn; j++) {
			if (old[j] == NULL)
				continue;
			i = (size_t)yml_hash(old[j], strlen(old[j])) & mask;
			while (ld->interned[i] != NULL)
				i = (i + 1) & mask;
			ld->interned[i] = old[j];
		}
		free(old);
	}
	mask = ld->ainterned - 1;
	i = (size_t)yml_hash(s, len) & mask;
	while (ld->interned[i] != NULL) {
		if (strncmp(ld->interned[i], s, len) == 0 &&
		    ld->interned[i][len] == '\0')
			return ld->interned[i];
		i = (i + 1) & mask;
	}
	ld->interned[i] = yml_strdup(ld->doc, s, len);
	ld->ninterned++;
	return ld->interned[i];
}

static void
yml_loader_release(struct yml_loader *ld)
{
	size_t	i;

	free(ld->interned);
	for (i = 0; i < ld->aanchors; i++)
		free(ld->anchors[i].name);
	free(ld->anchors);
	for (i = 0; i < ld->nframes; i++)
		free(ld->frames[i].anchor);
	free(ld->frames);
	free(ld->stack);
}

static int yml_parse(struct yml_doc *, const char *, yaml_parser_t *,
    const char *, size_t, FILE *, struct prov_errs *);

/* Line and column of byte `off` of the input (line 0 when unknown). */
static void
yml_offset_loc(struct prov_loc *loc, size_t off, const char *data,
    size_t len, FILE *fp)
{
	size_t	i;
	int	c;

	loc->line = loc->col = 1;
	if (data == NULL && (fp == NULL || fseek(fp, 0, SEEK_SET) != 0)) {
		loc->line = loc->col = 0;
		return;
	}
	for (i = 0; i < off; i++) {
		if (data != NULL)
			c = i < len ? (unsigned char)data[i] : EOF;
		else
			c = getc(fp);
		if (c == EOF)
			break;
		if (c == '\n') {
			loc->line++;
			loc->col = 1;
		} else if ((c & 0xc0) != 0x80)
			loc->col++;	/* characters, not UTF-8 bytes */
	}
}

int
yml_load(struct yml_doc *doc, const char *file, const char *data,
    size_t len, struct prov_errs *errs)
{
	yaml_parser_t	parser;

	if (!yaml_parser_initialize(&parser))
		abort();
	yaml_parser_set_input_string(&parser, (const unsigned char *)data, len);
	return yml_parse(doc, file, &parser, data, len, NULL, errs);
}

int
yml_load_fp(struct yml_doc *doc, const char *file, FILE *fp,
    struct prov_errs *errs)
{
	yaml_parser_t	parser;

	if (!yaml_parser_initialize(&parser))
		abort();
	yaml_parser_set_input_file(&parser, fp);
	return yml_parse(doc, file, &parser, NULL, 0, fp, errs);
}

/*
 * Consumes and deletes the parser; data or fp is its input, for locations.
 * Long on purpose: one loop over libyaml's events, each case a few lines
 * that share the frame stack; split, they would pass it all around.
 */
static int
yml_parse(struct yml_doc *doc, const char *file, yaml_parser_t *pp,
    const char *data, size_t len, FILE *fp, struct prov_errs *errs)
{
	struct yml_loader	ld;
	yaml_parser_t		*parser = pp;
	yaml_event_t		ev;
	int			done = 0, ndocs = 0, r = -1;

	memset(&ld, 0, sizeof ld);
	ld.doc = doc;
	ld.errs = errs;
	doc->file = file;

	while (!done) {
		if (!yaml_parser_parse(parser, &ev)) {
			struct prov_loc	 loc = { file,
			    (unsigned)parser->problem_mark.line + 1,
			    (unsigned)parser->problem_mark.column + 1 };
			char		*hint = NULL;

			if (parser->error == YAML_READER_ERROR) {
				/* Bad bytes come as an offset only. */
				yml_offset_loc(&loc, parser->problem_offset,
				    data, len, fp);
				hint = xstrdup("a plan is UTF-8 text without "
				    "control characters");
			} else if (parser->context != NULL &&
			    (parser->context_mark.line !=
			    parser->problem_mark.line ||
			    parser->context_mark.column !=
			    parser->problem_mark.column)) {
				/* Where the unclosed thing began. */
				hint = xasprintf("%s at %u:%u", parser->context,
				    (unsigned)parser->context_mark.line + 1,
				    (unsigned)parser->context_mark.column + 1);
			} else if (parser->context != NULL)
				hint = xstrdup(parser->context);
			prov_errs_add(errs, PROV_E_PARSE, &loc, hint,
			    "%s", parser->problem != NULL ? parser->problem :
			    "not valid YAML");
			free(hint);
			goto out;
		}
		switch (ev.type) {
		case YAML_STREAM_END_EVENT:
			done = 1;
			break;
		case YAML_DOCUMENT_START_EVENT:
			if (++ndocs > 1) {
				struct prov_loc	loc = { file,
				    (unsigned)ev.start_mark.line + 1,
				    (unsigned)ev.start_mark.column + 1 };

				prov_errs_add(errs, PROV_E_PARSE, &loc,
				    "put everything in one document",
				    "more than one YAML document");
				yaml_event_delete(&ev);
				goto out;
			}
			break;
		case YAML_SCALAR_EVENT: {
			struct yml_node	*n = yml_new(&ld, YML_SCALAR,
			    &ev.start_mark);
			const char	*v = (const char *)ev.data.scalar.value;
			size_t		 vlen = ev.data.scalar.length;

			if (vlen > UINT_MAX / 2) {
				struct prov_loc	loc = yml_loc(doc, n);

				prov_errs_add(errs, PROV_E_PARSE, &loc, NULL,
				    "string too long");
				yaml_event_delete(&ev);
				goto out;
			}
			n->plain = ev.data.scalar.style == YAML_PLAIN_SCALAR_STYLE;
			n->n = (unsigned)vlen;
			/*
			 * Keys repeat on every entry of a big list, and so do
			 * short plain values (roles, models, rack names, unit
			 * numbers): share them.
			 */
			if ((ld.nframes > 0 &&
			    ld.frames[ld.nframes - 1].node->kind == YML_MAP &&
			    (ld.nstack - ld.frames[ld.nframes - 1].base) % 2 == 0 &&
			    vlen < 32) || (n->plain && vlen < 8))
				n->u.s = yml_intern(&ld, v, vlen);
			else
				n->u.s = yml_strdup(doc, v, vlen);
			if (ev.data.scalar.anchor != NULL)
				yml_anchor_set(&ld,
				    xstrdup((const char *)ev.data.scalar.anchor), n);
			yml_push(&ld, n);
			break;
		}
		case YAML_ALIAS_EVENT: {
			const char	*name = (const char *)ev.data.alias.anchor;
			struct yml_node	*n = yml_anchor_get(&ld, name);

			if (n == NULL) {
				struct prov_loc	loc = { file,
				    (unsigned)ev.start_mark.line + 1,
				    (unsigned)ev.start_mark.column + 1 };

				prov_errs_add(errs, PROV_E_PARSE, &loc,
				    "define '&name' before using '*name'",
				    "unknown anchor '%s'", name);
				yaml_event_delete(&ev);
				goto out;
			}
			yml_push(&ld, n);
			break;
		}
		case YAML_SEQUENCE_START_EVENT:
			yml_open(&ld, YML_SEQ, &ev.start_mark,
			    ev.data.sequence_start.anchor);
			break;
		case YAML_MAPPING_START_EVENT:
			yml_open(&ld, YML_MAP, &ev.start_mark,
			    ev.data.mapping_start.anchor);
			break;
		case YAML_SEQUENCE_END_EVENT:
		case YAML_MAPPING_END_EVENT:
			yml_end_collection(&ld);
			break;
		default:
			break;
		}
		yaml_event_delete(&ev);
	}
	doc->root = ld.nstack > 0 ? ld.stack[0] : NULL;
	r = 0;
out:
	if (r != 0) {
		yml_doc_release(doc);
		doc->file = file;
	}
	yaml_parser_delete(parser);
	yml_loader_release(&ld);
	return r;
}

const char *
yml_kind_name(const struct yml_node *n)
{
	if (n == NULL || yml_is_null(n))
		return "nothing";
	switch (n->kind) {
	case YML_SEQ:
		return "a list";
	case YML_MAP:
		return "a mapping";
	default:
		return "a string";
	}
}

int
yml_is_null(const struct yml_node *n)
{
	if (n == NULL)
		return 1;
	if (n->kind != YML_SCALAR || !n->plain)
		return 0;
	return n->n == 0 || strcmp(n->u.s, "~") == 0 ||
	    strcmp(n->u.s, "null") == 0 || strcmp(n->u.s, "Null") == 0 ||
	    strcmp(n->u.s, "NULL") == 0;
}

const struct yml_pair *
yml_map_pair(const struct yml_node *map, const char *k)
{
	size_t	i;

	if (map == NULL || map->kind != YML_MAP)
		return NULL;
	for (i = 0; i < map->n; i++)
		if (strcmp(map->u.pairs[i].key->u.s, k) == 0)
			return &map->u.pairs[i];
	return NULL;
}

struct yml_node *
yml_map_get(const struct yml_node *map, const char *k)
{
	const struct yml_pair	*p = yml_map_pair(map, k);

	return p != NULL ? p->val : NULL;
}

const char *
yml_map_str(const struct yml_node *map, const char *k)
{
	const struct yml_node	*v = yml_map_get(map, k);

	if (v == NULL || v->kind != YML_SCALAR || yml_is_null(v))
		return NULL;
	return v->u.s;
}

int
yml_load_json(struct yml_doc *doc, const char *label, const char *text,
    size_t len, struct prov_err *err)
{
	struct prov_errs	errs = PROV_ERRS_INIT;
	int			r = -1;

	/*
	 * libyaml reads JSON with three gaps: \uD800-\uDFFF surrogate pairs
	 * (characters outside the BMP) are refused, a key longer than 1024
	 * characters is refused, and \u0000 ends a string.  Duplicate keys
	 * are reported by yml (the first wins); they are ignored here.
	 */
	yml_doc_init(doc);
	if (len == 0) {
		prov_err_set(err, PROV_E_PARSE, "%s: empty answer, expected "
		    "JSON", label);
		goto out;
	}
	if (yml_load(doc, label, text, len, &errs) != 0) {
		prov_err_set(err, PROV_E_PARSE, "%s: not JSON: %s", label,
		    errs.n > 0 && errs.v[0].msg != NULL ? errs.v[0].msg :
		    "unreadable");
		goto out;
	}
	if (doc->root == NULL || doc->root->kind != YML_MAP) {
		prov_err_set(err, PROV_E_PARSE, "%s: not a JSON object", label);
		goto out;
	}
	r = 0;
out:
	prov_errs_release(&errs);
	return r;
}

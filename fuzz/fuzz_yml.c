/*
 * fuzz_yml.c: the YAML reader alone (yml.h), which every plan, catalog
 * file, state file and Redfish body goes through.
 *
 * Invariants: a document that loads from memory loads the same from a
 * stream (yml_load_fp() through fmemopen()), to the same tree; every node
 * is located (line and column from 1); a scalar's length is its string's;
 * a failed load leaves an empty doc and says why.  Walks are bounded, as
 * aliases share nodes and a small document can name a huge tree.
 */
#include "compat.h"

#include "err.h"
#include "yml.h"

#include "fuzz.h"

#define FUZZ_YML_VISITS	100000

int	LLVMFuzzerTestOneInput(const uint8_t *, size_t);

/* Compare two trees; *budget bounds the nodes visited (aliases). */
static void
fuzz_yml_same(const struct yml_node *a, const struct yml_node *b,
    size_t *budget)
{
	unsigned	i;

	if (*budget == 0)
		return;
	(*budget)--;
	FUZZ_ASSERT((a == NULL) == (b == NULL));
	if (a == NULL)
		return;
	FUZZ_ASSERT(a->kind == b->kind);
	FUZZ_ASSERT(a->n == b->n);
	FUZZ_ASSERT(a->line == b->line && a->col == b->col);
	FUZZ_ASSERT(a->line >= 1 && a->col >= 1);
	FUZZ_ASSERT(a->plain == b->plain);
	(void)yml_kind_name(a);
	switch (a->kind) {
	case YML_SCALAR:
		FUZZ_ASSERT(a->u.s != NULL && b->u.s != NULL);
		FUZZ_ASSERT(memcmp(a->u.s, b->u.s, a->n) == 0);
		FUZZ_ASSERT(a->u.s[a->n] == '\0' && b->u.s[b->n] == '\0');
		(void)yml_is_null(a);
		break;
	case YML_SEQ:
		for (i = 0; i < a->n; i++)
			fuzz_yml_same(a->u.items[i], b->u.items[i], budget);
		break;
	case YML_MAP:
		for (i = 0; i < a->n; i++) {
			fuzz_yml_same(a->u.pairs[i].key, b->u.pairs[i].key,
			    budget);
			fuzz_yml_same(a->u.pairs[i].val, b->u.pairs[i].val,
			    budget);
			/* Lookup by a scalar key finds that key or an earlier equal one. */
			if (a->u.pairs[i].key != NULL &&
			    a->u.pairs[i].key->kind == YML_SCALAR &&
			    strlen(a->u.pairs[i].key->u.s) ==
			    a->u.pairs[i].key->n)
				FUZZ_ASSERT(yml_map_pair(a,
				    a->u.pairs[i].key->u.s) != NULL);
		}
		break;
	default:
		FUZZ_ASSERT(!"unknown node kind");
	}
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct yml_doc		 a, b;
	struct prov_errs	 ea = PROV_ERRS_INIT, eb = PROV_ERRS_INIT;
	FILE			*fp;
	size_t			 budget = FUZZ_YML_VISITS, i;
	int			 ra, rb;
	char			*s;

	yml_doc_init(&a);
	yml_doc_init(&b);
	ra = yml_load(&a, "fuzz.yaml", (const char *)data, size, &ea);
	if (ra != 0) {
		FUZZ_ASSERT(a.root == NULL);
		FUZZ_ASSERT(ea.n > 0);
	}
	for (i = 0; i < ea.n; i++) {
		s = prov_err_format(&ea.v[i]);
		free(s);
	}
	/* fmemopen() of 0 bytes fails: an empty input is an empty stream. */
	fp = size > 0 ? fmemopen((void *)data, size, "r") :
	    fopen("/dev/null", "r");
	FUZZ_ASSERT(fp != NULL);
	rb = yml_load_fp(&b, "fuzz.yaml", fp, &eb);
	fclose(fp);
	FUZZ_ASSERT(ra == rb);
	FUZZ_ASSERT(ea.n == eb.n);
	if (ra == 0)
		fuzz_yml_same(a.root, b.root, &budget);
	prov_errs_release(&ea);
	prov_errs_release(&eb);
	yml_doc_release(&a);
	yml_doc_release(&b);
	return 0;
}

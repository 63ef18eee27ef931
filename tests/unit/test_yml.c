#include "test.h"

#include <time.h>

#include "buf.h"
#include "err.h"
#include "yml.h"

/* A loaded document and what loading said. */
struct test_yml {
	struct yml_doc		doc;
	struct prov_errs	errs;
	int			r;
};

static void
test_yml_load(struct test_yml *t, const char *text)
{
	memset(t, 0, sizeof *t);
	yml_doc_init(&t->doc);
	t->r = yml_load(&t->doc, "t.yaml", text, strlen(text), &t->errs);
}

static void
test_yml_release(struct test_yml *t)
{
	yml_doc_release(&t->doc);
	prov_errs_release(&t->errs);
}

/* Every error as printed, one a line (caller frees). */
static char *
test_yml_errs(const struct prov_errs *errs)
{
	struct buf	b = BUF_INIT;
	size_t		i;

	buf_adds(&b, "");
	for (i = 0; i < errs->n; i++) {
		char	*s = prov_err_format(&errs->v[i]);

		buf_addf(&b, "%s\n", s);
		free(s);
	}
	return buf_detach(&b, NULL);
}

static void
test_yml_no_errs(const struct test_yml *t)
{
	char	*s = test_yml_errs(&t->errs);

	ck_assert_msg(t->r == 0 && t->errs.n == 0, "load gave %d:\n%s", t->r,
	    s);
	free(s);
}

/* The node at a path of keys and list indices: "a.b.0.c". */
static struct yml_node *
test_yml_at(struct yml_node *n, const char *path)
{
	char	*copy = xstrdup(path), *seg, *next;

	for (seg = copy; n != NULL && seg != NULL; seg = next) {
		next = strchr(seg, '.');
		if (next != NULL)
			*next++ = '\0';
		if (n->kind == YML_SEQ) {
			long	i = strtol(seg, NULL, 10);

			n = i >= 0 && (unsigned)i < n->n ? n->u.items[i] : NULL;
		} else
			n = yml_map_get(n, seg);
	}
	free(copy);
	return n;
}

/* The scalar at a path, or "(none)" / "(not a string)". */
static const char *
test_yml_str(struct yml_node *root, const char *path)
{
	struct yml_node	*n = test_yml_at(root, path);

	if (n == NULL)
		return "(none)";
	return n->kind == YML_SCALAR ? n->u.s : "(not a string)";
}

static double
test_yml_now(void)
{
	struct timespec	ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Anchors and aliases. */

START_TEST(test_yml_alias_shares)
{
	struct test_yml	t;
	struct yml_node	*base, *use;

	test_yml_load(&t,
	    "base: &b { x: 1, y: [a, b] }\n"
	    "use: *b\n"
	    "s: &s hello\n"
	    "t: *s\n"
	    "list: [*b, *s]\n");
	test_yml_no_errs(&t);
	base = yml_map_get(t.doc.root, "base");
	use = yml_map_get(t.doc.root, "use");
	/* Nothing is copied: an alias is the anchored node itself. */
	ck_assert_ptr_eq(base, use);
	ck_assert_ptr_eq(test_yml_at(t.doc.root, "s"),
	    test_yml_at(t.doc.root, "t"));
	ck_assert_ptr_eq(test_yml_at(t.doc.root, "list.0"), base);
	ck_assert_str_eq(test_yml_str(t.doc.root, "list.1"), "hello");
	ck_assert_str_eq(test_yml_str(t.doc.root, "use.y.1"), "b");
	/* The alias keeps the anchored node's location (at its '&'). */
	ck_assert_uint_eq(use->line, 1);
	ck_assert_uint_eq(use->col, 7);
	test_yml_release(&t);
}
END_TEST

START_TEST(test_yml_anchor_redefined)
{
	struct test_yml	t;

	/* YAML lets a later anchor of the same name replace it. */
	test_yml_load(&t, "a: &x 1\nb: *x\nc: &x 2\nd: *x\n");
	test_yml_no_errs(&t);
	ck_assert_str_eq(test_yml_str(t.doc.root, "b"), "1");
	ck_assert_str_eq(test_yml_str(t.doc.root, "d"), "2");
	test_yml_release(&t);
}
END_TEST

START_TEST(test_yml_alias_unknown)
{
	struct test_yml	 t;
	char		*e;

	test_yml_load(&t, "a: 1\nb: *nope\n");
	ck_assert_int_eq(t.r, -1);
	ck_assert_ptr_null(t.doc.root);
	e = test_yml_errs(&t.errs);
	ck_assert_str_eq(e, "t.yaml:2:4: unknown anchor 'nope' (define "
	    "'&name' before using '*name')\n");
	free(e);
	test_yml_release(&t);

	/* An anchor is defined only once its node is complete. */
	test_yml_load(&t, "a: &me [1, *me]\n");
	ck_assert_int_eq(t.r, -1);
	e = test_yml_errs(&t.errs);
	ck_assert_str_eq(e, "t.yaml:1:12: unknown anchor 'me' (define "
	    "'&name' before using '*name')\n");
	free(e);
	test_yml_release(&t);
}
END_TEST

/* Merge keys. */

START_TEST(test_yml_merge_single)
{
	struct test_yml	 t;
	struct yml_node	*m;

	test_yml_load(&t,
	    "base: &b { x: 1, y: 2 }\n"
	    "m: { <<: *b, y: 3, z: 4 }\n"
	    "n: { y: 5, <<: *b }\n");
	test_yml_no_errs(&t);
	m = yml_map_get(t.doc.root, "m");
	ck_assert_uint_eq(m->n, 3);
	ck_assert_str_eq(test_yml_str(m, "x"), "1");
	/* Explicit keys win, before or after the merge key. */
	ck_assert_str_eq(test_yml_str(m, "y"), "3");
	ck_assert_str_eq(test_yml_str(m, "z"), "4");
	ck_assert_ptr_null(yml_map_get(m, "<<"));
	ck_assert_str_eq(test_yml_str(t.doc.root, "n.y"), "5");
	ck_assert_str_eq(test_yml_str(t.doc.root, "n.x"), "1");
	ck_assert_uint_eq(test_yml_at(t.doc.root, "n")->n, 2);
	/* The source is untouched. */
	ck_assert_uint_eq(test_yml_at(t.doc.root, "base")->n, 2);
	ck_assert_str_eq(test_yml_str(t.doc.root, "base.y"), "2");
	test_yml_release(&t);
}
END_TEST

START_TEST(test_yml_merge_list)
{
	struct test_yml	 t;
	struct yml_node	*m;

	test_yml_load(&t,
	    "a: &a { k: from-a, p: a }\n"
	    "c: &c { k: from-c, q: c }\n"
	    "m:\n"
	    "  <<: [*a, *c]\n"
	    "  q: mine\n"
	    "r: { <<: [*c, *a] }\n");
	test_yml_no_errs(&t);
	m = yml_map_get(t.doc.root, "m");
	ck_assert_uint_eq(m->n, 3);
	/* Earlier sources win over later ones. */
	ck_assert_str_eq(test_yml_str(m, "k"), "from-a");
	ck_assert_str_eq(test_yml_str(m, "p"), "a");
	ck_assert_str_eq(test_yml_str(m, "q"), "mine");
	ck_assert_str_eq(test_yml_str(t.doc.root, "r.k"), "from-c");
	ck_assert_str_eq(test_yml_str(t.doc.root, "r.p"), "a");
	test_yml_release(&t);
}
END_TEST

START_TEST(test_yml_merge_chain)
{
	struct test_yml	t;

	/* A source that merged itself brings its merged keys along. */
	test_yml_load(&t,
	    "a: &a { x: 1 }\n"
	    "b: &b { <<: *a, y: 2 }\n"
	    "c: { <<: *b, z: 3 }\n");
	test_yml_no_errs(&t);
	ck_assert_str_eq(test_yml_str(t.doc.root, "c.x"), "1");
	ck_assert_str_eq(test_yml_str(t.doc.root, "c.y"), "2");
	ck_assert_str_eq(test_yml_str(t.doc.root, "c.z"), "3");
	test_yml_release(&t);
}
END_TEST

/* More merged keys than the mapping has explicit ones (once a hang). */
START_TEST(test_yml_merge_big_source)
{
	struct buf	 b = BUF_INIT;
	struct test_yml	 t;
	struct yml_node	*m;
	char		 k[16];
	int		 i;

	buf_adds(&b, "big: &big {");
	for (i = 0; i < 300; i++)
		buf_addf(&b, "%sk%d: %d", i ? ", " : " ", i, i);
	buf_adds(&b, " }\nm: { <<: *big }\n"
	    "n: { k7: mine, <<: [*big, *big] }\n");
	test_yml_load(&t, b.buf);
	test_yml_no_errs(&t);
	m = yml_map_get(t.doc.root, "m");
	ck_assert_uint_eq(m->n, 300);
	for (i = 0; i < 300; i++) {
		snprintf(k, sizeof k, "k%d", i);
		ck_assert_ptr_nonnull(yml_map_get(m, k));
	}
	ck_assert_uint_eq(test_yml_at(t.doc.root, "n")->n, 300);
	ck_assert_str_eq(test_yml_str(t.doc.root, "n.k7"), "mine");
	ck_assert_str_eq(test_yml_str(t.doc.root, "n.k8"), "8");
	test_yml_release(&t);
	buf_release(&b);
}
END_TEST

START_TEST(test_yml_merge_errors)
{
	struct test_yml	 t;
	char		*e;

	test_yml_load(&t,
	    "a: &a { x: 1 }\n"
	    "m: { <<: 5, y: 2 }\n"
	    "n: { <<: [*a, [1]], y: 2 }\n");
	/* Not fatal: the rest of the mapping stands. */
	ck_assert_int_eq(t.r, 0);
	e = test_yml_errs(&t.errs);
	ck_assert_str_eq(e,
	    "t.yaml:2:10: cannot merge a string (merge a mapping or a list "
	    "of mappings, e.g. '<<: *defaults')\n"
	    "t.yaml:3:15: cannot merge a list (merge a mapping or a list of "
	    "mappings)\n");
	free(e);
	ck_assert_str_eq(test_yml_str(t.doc.root, "m.y"), "2");
	ck_assert_uint_eq(test_yml_at(t.doc.root, "m")->n, 1);
	ck_assert_str_eq(test_yml_str(t.doc.root, "n.x"), "1");
	test_yml_release(&t);
}
END_TEST

START_TEST(test_yml_merge_quoted_key)
{
	struct test_yml	t;

	/* Only a plain << merges; a quoted one is an ordinary key. */
	test_yml_load(&t, "a: &a { x: 1 }\nm: { \"<<\": *a }\n");
	test_yml_no_errs(&t);
	ck_assert_ptr_null(test_yml_at(t.doc.root, "m.x"));
	ck_assert_str_eq(test_yml_str(t.doc.root, "m.<<.x"), "1");
	test_yml_release(&t);
}
END_TEST

/* Duplicate keys. */

START_TEST(test_yml_duplicate_key)
{
	struct test_yml	 t;
	char		*e;

	test_yml_load(&t,
	    "a: first\n"
	    "b: 2\n"
	    "a: second\n"
	    "m: { x: 1, y: 2, x: 3 }\n");
	ck_assert_int_eq(t.r, 0);
	/* Found as each mapping ends, inner ones first: sort to compare. */
	prov_errs_sort(&t.errs);
	e = test_yml_errs(&t.errs);
	ck_assert_str_eq(e,
	    "t.yaml:3:1: duplicate key 'a' (each key may appear once in a "
	    "mapping; the first one is used)\n"
	    "t.yaml:4:18: duplicate key 'x' (each key may appear once in a "
	    "mapping; the first one is used)\n");
	free(e);
	/* The first is kept and the second dropped. */
	ck_assert_str_eq(test_yml_str(t.doc.root, "a"), "first");
	ck_assert_uint_eq(t.doc.root->n, 3);
	ck_assert_str_eq(test_yml_str(t.doc.root, "m.x"), "1");
	ck_assert_uint_eq(test_yml_at(t.doc.root, "m")->n, 2);
	test_yml_release(&t);
}
END_TEST

/* Big mappings use a hash set: every duplicate still found, none invented. */
START_TEST(test_yml_duplicate_key_big)
{
	struct buf	 b = BUF_INIT;
	struct test_yml	 t;
	int		 i;

	for (i = 0; i < 5000; i++)
		buf_addf(&b, "key%d: %d\n", i, i);
	for (i = 0; i < 5000; i += 1000)
		buf_addf(&b, "key%d: again\n", i);
	test_yml_load(&t, b.buf);
	ck_assert_int_eq(t.r, 0);
	ck_assert_uint_eq(t.errs.n, 5);
	ck_assert_uint_eq(t.errs.v[0].loc.line, 5001);
	ck_assert_str_eq(t.errs.v[4].msg, "duplicate key 'key4000'");
	ck_assert_uint_eq(t.doc.root->n, 5000);
	ck_assert_str_eq(test_yml_str(t.doc.root, "key4000"), "4000");
	test_yml_release(&t);
	buf_release(&b);
}
END_TEST

START_TEST(test_yml_merge_not_duplicate)
{
	struct test_yml	t;

	/* A merged key under an explicit one overrides; not a duplicate. */
	test_yml_load(&t, "a: &a { x: 1 }\nm: { <<: *a, x: 2 }\n");
	test_yml_no_errs(&t);
	test_yml_release(&t);
}
END_TEST

START_TEST(test_yml_key_not_string)
{
	struct test_yml	 t;
	char		*e;

	test_yml_load(&t, "? [a, b]\n: 1\nc: 2\n");
	ck_assert_int_eq(t.r, 0);
	e = test_yml_errs(&t.errs);
	ck_assert_str_eq(e, "t.yaml:1:3: a mapping key must be a string, not "
	    "a list (write the key as a plain string)\n");
	free(e);
	ck_assert_uint_eq(t.doc.root->n, 1);
	ck_assert_str_eq(test_yml_str(t.doc.root, "c"), "2");
	test_yml_release(&t);
}
END_TEST

/* Syntax errors, located at libyaml's problem mark. */

static const struct {
	const char	*in;
	const char	*want;
} syntax_cases[] = {
	{ "a: b: c\n",
	    "t.yaml:1:5: mapping values are not allowed in this context\n" },
	{ "a: [1, 2\nb: 3\n",
	    "t.yaml:2:2: did not find expected ',' or ']' (while parsing a "
	    "flow sequence at 1:4)\n" },
	{ "cluster: { name: x\nnodes: []\n",
	    "t.yaml:2:6: did not find expected ',' or '}' (while parsing a "
	    "flow mapping at 1:10)\n" },
	{ "a: 1\nb:\n  c: 1\n d: 2\n",
	    "t.yaml:4:2: did not find expected key (while parsing a block "
	    "mapping at 1:1)\n" },
	{ "a: \"open\nb: 1\n",
	    "t.yaml:3:1: found unexpected end of stream (while scanning a "
	    "quoted scalar at 1:4)\n" },
	{ "a: 1\n\tb: 2\n",
	    "t.yaml:2:1: found a tab character that violates indentation "
	    "(while scanning a plain scalar at 1:4)\n" },
	{ "a: { x: 1 }\n\tb: 2\n",
	    "t.yaml:2:1: found character that cannot start any token (while "
	    "scanning for the next token)\n" },
	{ "- a\nb: 1\n",
	    "t.yaml:2:1: did not find expected '-' indicator (while parsing a "
	    "block collection at 1:1)\n" },
	{ "a: &x\n  - 1\nb: *\n",
	    "t.yaml:3:5: did not find expected alphabetic or numeric character "
	    "(while scanning an alias at 3:4)\n" },
	/* Bytes that are not text: libyaml gives an offset, we a place. */
	{ "a: 1\nb: x\001y\n",
	    "t.yaml:2:5: control characters are not allowed (a plan is UTF-8 "
	    "text without control characters)\n" },
	{ "a: 1\nb: \"h\303\251\377\"\n",
	    "t.yaml:2:7: invalid leading UTF-8 octet (a plan is UTF-8 text "
	    "without control characters)\n" },
};

START_TEST(test_yml_syntax_table)
{
	struct test_yml	 t;
	char		*e;

	test_yml_load(&t, syntax_cases[_i].in);
	ck_assert_int_eq(t.r, -1);
	ck_assert_ptr_null(t.doc.root);
	e = test_yml_errs(&t.errs);
	ck_assert_msg(strcmp(e, syntax_cases[_i].want) == 0,
	    "case %d gave\n%swant\n%s", _i, e, syntax_cases[_i].want);
	free(e);
	test_yml_release(&t);
}
END_TEST

/* The streaming loader locates errors the same, bad bytes included. */
START_TEST(test_yml_syntax_fp)
{
	struct prov_errs	 errs = PROV_ERRS_INIT;
	struct yml_doc		 doc;
	FILE			*fp;
	char			*e;
	size_t			 i;

	for (i = 0; i < ARRAY_SIZE(syntax_cases); i++) {
		fp = tmpfile();
		ck_assert_ptr_nonnull(fp);
		fputs(syntax_cases[i].in, fp);
		rewind(fp);
		yml_doc_init(&doc);
		ck_assert_int_eq(yml_load_fp(&doc, "t.yaml", fp, &errs), -1);
		e = test_yml_errs(&errs);
		ck_assert_msg(strcmp(e, syntax_cases[i].want) == 0,
		    "case %zu gave\n%swant\n%s", i, e, syntax_cases[i].want);
		free(e);
		prov_errs_release(&errs);
		yml_doc_release(&doc);
		fclose(fp);
	}
}
END_TEST

START_TEST(test_yml_fp_reads)
{
	struct prov_errs	 errs = PROV_ERRS_INIT;
	struct yml_doc		 doc;
	FILE			*fp = tmpfile();

	ck_assert_ptr_nonnull(fp);
	fputs("a: &a { x: 1 }\nb: { <<: *a, y: [1, 2] }\n", fp);
	rewind(fp);
	yml_doc_init(&doc);
	ck_assert_int_eq(yml_load_fp(&doc, "f.yaml", fp, &errs), 0);
	ck_assert_uint_eq(errs.n, 0);
	ck_assert_str_eq(test_yml_str(doc.root, "b.x"), "1");
	ck_assert_str_eq(test_yml_str(doc.root, "b.y.1"), "2");
	ck_assert_str_eq(doc.file, "f.yaml");
	yml_doc_release(&doc);
	fclose(fp);
}
END_TEST

START_TEST(test_yml_documents)
{
	struct test_yml	 t;
	char		*e;

	test_yml_load(&t, "a: 1\n---\nb: 2\n");
	ck_assert_int_eq(t.r, -1);
	ck_assert_ptr_null(t.doc.root);
	e = test_yml_errs(&t.errs);
	ck_assert_str_eq(e, "t.yaml:2:1: more than one YAML document (put "
	    "everything in one document)\n");
	free(e);
	test_yml_release(&t);

	/* One document with its markers is fine. */
	test_yml_load(&t, "%YAML 1.1\n---\na: 1\n...\n");
	test_yml_no_errs(&t);
	ck_assert_str_eq(test_yml_str(t.doc.root, "a"), "1");
	test_yml_release(&t);
}
END_TEST

/* JSON is YAML. */
START_TEST(test_yml_json)
{
	struct test_yml	 t;
	struct yml_node	*a;

	test_yml_load(&t,
	    "{\"a\": [1, 2], \"b\": {\"c\": null, \"d\": \"x\"}}");
	test_yml_no_errs(&t);
	ck_assert_int_eq(t.doc.root->kind, YML_MAP);
	a = yml_map_get(t.doc.root, "a");
	ck_assert_ptr_nonnull(a);
	ck_assert_int_eq(a->kind, YML_SEQ);
	ck_assert_uint_eq(a->n, 2);
	ck_assert_str_eq(a->u.items[0]->u.s, "1");
	ck_assert_str_eq(a->u.items[1]->u.s, "2");
	ck_assert_int_eq(a->u.items[1]->plain, 1);
	ck_assert_uint_eq(a->u.items[1]->line, 1);
	ck_assert_uint_eq(a->u.items[1]->col, 11);
	ck_assert(yml_is_null(test_yml_at(t.doc.root, "b.c")));
	/* Quoted: a string, never null. */
	ck_assert_int_eq(test_yml_at(t.doc.root, "b.d")->plain, 0);
	test_yml_release(&t);
}
END_TEST

START_TEST(test_yml_empty)
{
	static const char *const nothing[] = { "", "\n\n", "# only a comment\n",
	    "---\n...\n" };
	struct test_yml	t;
	size_t		i;

	for (i = 0; i < ARRAY_SIZE(nothing); i++) {
		test_yml_load(&t, nothing[i]);
		test_yml_no_errs(&t);
		ck_assert_msg(t.doc.root == NULL || yml_is_null(t.doc.root),
		    "case %zu", i);
		test_yml_release(&t);
	}
	test_yml_load(&t, "~\n");
	test_yml_no_errs(&t);
	ck_assert(yml_is_null(t.doc.root));
	test_yml_release(&t);
}
END_TEST

/*
 * Empty collections before any other (found by fuzz/fuzz_yml.c: the node
 * stack was still NULL, and NULL + 0 is undefined behaviour).
 */
START_TEST(test_yml_empty_collections)
{
	static const struct {
		const char	*text;
		int		 kind;
	} cases[] = {
		{ "{}", YML_MAP }, { "[]", YML_SEQ }, { "- []\n", YML_SEQ },
		{ "{a: []}", YML_MAP }, { "[{}]", YML_SEQ },
	};
	struct test_yml	t;
	size_t		i;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		test_yml_load(&t, cases[i].text);
		test_yml_no_errs(&t);
		ck_assert_ptr_nonnull(t.doc.root);
		ck_assert_int_eq(t.doc.root->kind, cases[i].kind);
		ck_assert_uint_le(t.doc.root->n, 1);
		test_yml_release(&t);
	}
}
END_TEST

/* Scalars keep their bytes, NULs included, with their length. */
START_TEST(test_yml_scalars)
{
	struct test_yml	 t;
	struct yml_node	*n;

	test_yml_load(&t, "a: \"x\\0y\"\nb: 'it''s'\nc: |\n  two\n  lines\n"
	    "d: \"\"\ne:\nf: \"~\"\n");
	test_yml_no_errs(&t);
	n = yml_map_get(t.doc.root, "a");
	ck_assert_uint_eq(n->n, 3);
	ck_assert_int_eq(memcmp(n->u.s, "x\0y", 4), 0);
	ck_assert_str_eq(test_yml_str(t.doc.root, "b"), "it's");
	ck_assert_str_eq(test_yml_str(t.doc.root, "c"), "two\nlines\n");
	/* Quoted empty is a string; nothing after the colon is null. */
	ck_assert(!yml_is_null(yml_map_get(t.doc.root, "d")));
	ck_assert(yml_is_null(yml_map_get(t.doc.root, "e")));
	ck_assert(!yml_is_null(yml_map_get(t.doc.root, "f")));
	ck_assert_ptr_nonnull(yml_map_pair(t.doc.root, "e"));
	ck_assert_ptr_null(yml_map_pair(t.doc.root, "g"));
	ck_assert_uint_eq(yml_map_pair(t.doc.root, "c")->key->line, 3);
	test_yml_release(&t);
}
END_TEST

static const struct {
	const char	*in;
	int		 null;
	const char	*kind;
} null_cases[] = {
	{ "x: ~", 1, "nothing" },
	{ "x: null", 1, "nothing" },
	{ "x: Null", 1, "nothing" },
	{ "x: NULL", 1, "nothing" },
	{ "x:", 1, "nothing" },
	{ "x: nULL", 0, "a string" },
	{ "x: 'null'", 0, "a string" },
	{ "x: \"\"", 0, "a string" },
	{ "x: 0", 0, "a string" },
	{ "x: []", 0, "a list" },
	{ "x: {}", 0, "a mapping" },
};

START_TEST(test_yml_null_table)
{
	struct test_yml	 t;
	struct yml_node	*n;

	test_yml_load(&t, null_cases[_i].in);
	test_yml_no_errs(&t);
	n = yml_map_get(t.doc.root, "x");
	ck_assert_ptr_nonnull(n);
	ck_assert_msg(yml_is_null(n) == null_cases[_i].null, "'%s'",
	    null_cases[_i].in);
	ck_assert_str_eq(yml_kind_name(n), null_cases[_i].kind);
	test_yml_release(&t);
}
END_TEST

START_TEST(test_yml_locations)
{
	struct test_yml	 t;
	struct yml_node	*n;
	struct prov_loc	 loc;

	test_yml_load(&t,
	    "# comment\n"
	    "nodes:\n"
	    "  - { name: a, u: 2 }\n"
	    "  - name: b\n"
	    "    u:   40\n");
	test_yml_no_errs(&t);
	n = test_yml_at(t.doc.root, "nodes.0.u");
	ck_assert_uint_eq(n->line, 3);
	ck_assert_uint_eq(n->col, 19);
	n = test_yml_at(t.doc.root, "nodes.1");
	ck_assert_uint_eq(n->line, 4);
	ck_assert_uint_eq(n->col, 5);
	n = test_yml_at(t.doc.root, "nodes.1.u");
	loc = yml_loc(&t.doc, n);
	ck_assert_str_eq(loc.file, "t.yaml");
	ck_assert_uint_eq(loc.line, 5);
	ck_assert_uint_eq(loc.col, 10);
	test_yml_release(&t);
}
END_TEST

/* Limits: deep nesting and alias bombs stay cheap. */

START_TEST(test_yml_deep_nesting)
{
	struct buf	 b = BUF_INIT;
	struct test_yml	 t;
	struct yml_node	*n;
	int		 i, depth;

	/* 10,000 flow lists. */
	buf_adds(&b, "x: ");
	for (i = 0; i < 10000; i++)
		buf_addch(&b, '[');
	buf_adds(&b, "leaf");
	for (i = 0; i < 10000; i++)
		buf_addch(&b, ']');
	buf_addch(&b, '\n');
	test_yml_load(&t, b.buf);
	test_yml_no_errs(&t);
	for (n = yml_map_get(t.doc.root, "x"), depth = 0; n->kind == YML_SEQ;
	    n = n->u.items[0])
		depth++;
	ck_assert_int_eq(depth, 10000);
	ck_assert_str_eq(n->u.s, "leaf");
	test_yml_release(&t);
	buf_release(&b);

	/* 10,000 block mappings, indented. */
	for (i = 0; i < 10000; i++)
		buf_addf(&b, "%*sk:\n", i, "");
	test_yml_load(&t, b.buf);
	test_yml_no_errs(&t);
	for (n = t.doc.root, depth = 0; n != NULL && n->kind == YML_MAP;
	    n = yml_map_get(n, "k"))
		depth++;
	ck_assert_int_eq(depth, 10000);
	test_yml_release(&t);
	buf_release(&b);

	/* 10,000 flow mappings. */
	for (i = 0; i < 10000; i++)
		buf_adds(&b, "{k: ");
	buf_adds(&b, "v");
	for (i = 0; i < 10000; i++)
		buf_addch(&b, '}');
	test_yml_load(&t, b.buf);
	test_yml_no_errs(&t);
	for (n = t.doc.root, depth = 0; n->kind == YML_MAP;
	    n = yml_map_get(n, "k"))
		depth++;
	ck_assert_int_eq(depth, 10000);
	test_yml_release(&t);
	buf_release(&b);
}
END_TEST

/* Billion laughs: 10^9 strings if expanded; aliases share, so tiny. */
START_TEST(test_yml_alias_bomb)
{
	struct buf	 b = BUF_INIT;
	struct test_yml	 t;
	struct yml_node	*n;
	double		 t0;
	int		 i, j, depth;

	buf_adds(&b, "l0: &l0 [lol, lol, lol, lol, lol, lol, lol, lol, lol, "
	    "lol]\n");
	for (i = 1; i <= 9; i++) {
		buf_addf(&b, "l%d: &l%d [", i, i);
		for (j = 0; j < 10; j++)
			buf_addf(&b, "%s*l%d", j ? ", " : "", i - 1);
		buf_adds(&b, "]\n");
	}
	t0 = test_yml_now();
	test_yml_load(&t, b.buf);
	test_yml_no_errs(&t);
	ck_assert_msg(test_yml_now() - t0 < 5.0, "took %.2fs",
	    test_yml_now() - t0);
	ck_assert_msg(t.doc.bytes < 64 * 1024, "%zu bytes", t.doc.bytes);
	for (n = yml_map_get(t.doc.root, "l9"), depth = 0; n->kind == YML_SEQ;
	    n = n->u.items[9])
		depth++;
	ck_assert_int_eq(depth, 10);
	ck_assert_str_eq(n->u.s, "lol");
	test_yml_release(&t);
	buf_release(&b);
}
END_TEST

/*
 * The merge key version: each level merges every earlier one, and one
 * source is merged over and over.  The work is bounded, with one error.
 */
START_TEST(test_yml_merge_bomb)
{
	struct buf	 b = BUF_INIT;
	struct test_yml	 t;
	double		 t0;
	int		 i;

	buf_adds(&b, "big: &big {");
	for (i = 0; i < 2000; i++)
		buf_addf(&b, "%sk%d: %d", i ? ", " : " ", i, i);
	buf_adds(&b, " }\nmany: &many [");
	for (i = 0; i < 1000; i++)
		buf_addf(&b, "%s*big", i ? ", " : "");
	buf_adds(&b, "]\nuse:\n");
	for (i = 0; i < 1000; i++)
		buf_adds(&b, "  - { <<: *many }\n");
	t0 = test_yml_now();
	test_yml_load(&t, b.buf);
	ck_assert_msg(test_yml_now() - t0 < 5.0, "took %.2fs",
	    test_yml_now() - t0);
	ck_assert_int_eq(t.r, 0);
	ck_assert_uint_eq(t.errs.n, 1);
	ck_assert_str_eq(t.errs.v[0].msg,
	    "merge keys expand past 1048576 entries");
	ck_assert_msg(t.doc.bytes < 64 * 1024 * 1024, "%zu bytes",
	    t.doc.bytes);
	test_yml_release(&t);
	buf_release(&b);
}
END_TEST

/* A plan-sized merge load is well inside the bound. */
START_TEST(test_yml_merge_many_nodes)
{
	struct buf	 b = BUF_INIT;
	struct test_yml	 t;
	int		 i;

	buf_adds(&b, "base: &n { role: worker, hardware: gpu-node, rack: r01, "
	    "u: 2, a: 1, b: 2, c: 3 }\nnodes:\n");
	for (i = 0; i < 20000; i++)
		buf_addf(&b, "  - { <<: *n, name: n%d, address: 10.0.%d.%d }\n",
		    i, i / 250, i % 250 + 1);
	test_yml_load(&t, b.buf);
	test_yml_no_errs(&t);
	ck_assert_uint_eq(test_yml_at(t.doc.root, "nodes")->n, 20000);
	ck_assert_str_eq(test_yml_str(t.doc.root, "nodes.19999.name"),
	    "n19999");
	ck_assert_str_eq(test_yml_str(t.doc.root, "nodes.19999.rack"), "r01");
	ck_assert_uint_eq(test_yml_at(t.doc.root, "nodes.5")->n, 9);
	test_yml_release(&t);
	buf_release(&b);
}
END_TEST

START_TEST(test_yml_doc_strings)
{
	struct yml_doc	 doc;
	const char	*s;
	char		*p;

	yml_doc_init(&doc);
	s = yml_doc_strdup(&doc, "hello");
	ck_assert_str_eq(s, "hello");
	p = yml_doc_alloc(&doc, 100000);
	ck_assert_uint_eq((uintptr_t)p % 16, 0);
	memset(p, 'x', 100000);
	ck_assert_str_eq(s, "hello");
	ck_assert_uint_ge(doc.bytes, 100006);
	yml_doc_release(&doc);
	ck_assert_ptr_null(doc.chunks);
	ck_assert_uint_eq(doc.bytes, 0);
}
END_TEST

static Suite *
yml_suite(void)
{
	Suite	*s = suite_create("yml");
	TCase	*tc;

	tc = tcase_create("alias");
	tcase_add_test(tc, test_yml_alias_shares);
	tcase_add_test(tc, test_yml_anchor_redefined);
	tcase_add_test(tc, test_yml_alias_unknown);
	suite_add_tcase(s, tc);

	tc = tcase_create("merge");
	tcase_add_test(tc, test_yml_merge_single);
	tcase_add_test(tc, test_yml_merge_list);
	tcase_add_test(tc, test_yml_merge_chain);
	tcase_add_test(tc, test_yml_merge_big_source);
	tcase_add_test(tc, test_yml_merge_errors);
	tcase_add_test(tc, test_yml_merge_quoted_key);
	suite_add_tcase(s, tc);

	tc = tcase_create("duplicate");
	tcase_add_test(tc, test_yml_duplicate_key);
	tcase_add_test(tc, test_yml_duplicate_key_big);
	tcase_add_test(tc, test_yml_merge_not_duplicate);
	tcase_add_test(tc, test_yml_key_not_string);
	suite_add_tcase(s, tc);

	tc = tcase_create("syntax");
	tcase_add_loop_test(tc, test_yml_syntax_table, 0,
	    (int)ARRAY_SIZE(syntax_cases));
	tcase_add_test(tc, test_yml_syntax_fp);
	tcase_add_test(tc, test_yml_fp_reads);
	tcase_add_test(tc, test_yml_documents);
	suite_add_tcase(s, tc);

	tc = tcase_create("values");
	tcase_add_test(tc, test_yml_json);
	tcase_add_test(tc, test_yml_empty);
	tcase_add_test(tc, test_yml_empty_collections);
	tcase_add_test(tc, test_yml_scalars);
	tcase_add_loop_test(tc, test_yml_null_table, 0,
	    (int)ARRAY_SIZE(null_cases));
	tcase_add_test(tc, test_yml_locations);
	tcase_add_test(tc, test_yml_doc_strings);
	suite_add_tcase(s, tc);

	tc = tcase_create("limits");
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_yml_deep_nesting);
	tcase_add_test(tc, test_yml_alias_bomb);
	tcase_add_test(tc, test_yml_merge_bomb);
	tcase_add_test(tc, test_yml_merge_many_nodes);
	suite_add_tcase(s, tc);
	return s;
}

TEST_MAIN(yml_suite)

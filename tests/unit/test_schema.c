#include "test.h"

#include <math.h>

#include "buf.h"
#include "err.h"
#include "schema.h"
#include "strvec.h"
#include "yml.h"

/* A struct with one field of every type. */
struct test_schema_sub {
	long		 n;
	const char	*s;
};

struct test_schema_obj {
	const char		*str;
	const char		*word;
	const char		*host;
	long			 i;
	long			 ranged;
	double			 num;
	double			 pct;
	int			 b;
	const char		*e;
	struct strvec		 list;
	struct test_schema_sub	 sub;
	const struct yml_node	*node;
	const char		*req;
	const char		*nstr;
	long			 nint;
	const char		*cidr;
	struct strvec		 cidrs;
	const struct yml_node	*addrs;
};

static const char *const test_schema_enums[] = { "slurm", "kubernetes",
    "none", NULL };

#define NOLIM 1, 0
#define F(k, t, m, fl) \
	{ k, t, offsetof(struct test_schema_obj, m), fl, NULL, NULL, NOLIM }
#define FEND { NULL, SCHEMA_END, 0, 0, NULL, NULL, NOLIM }

static const struct schema_field test_schema_sub_fields[] = {
	{ "n", SCHEMA_INT, offsetof(struct test_schema_sub, n), 0, NULL, NULL,
	    NOLIM },
	{ "s", SCHEMA_STR, offsetof(struct test_schema_sub, s), 0, NULL, NULL,
	    NOLIM },
	FEND
};

static const struct schema_field test_schema_fields[] = {
	F("str", SCHEMA_STR, str, 0),
	F("word", SCHEMA_WORD, word, 0),
	F("host", SCHEMA_HOST, host, 0),
	F("i", SCHEMA_INT, i, 0),
	{ "ranged", SCHEMA_INT, offsetof(struct test_schema_obj, ranged), 0,
	    NULL, NULL, 1, 10 },
	F("num", SCHEMA_NUM, num, 0),
	{ "pct", SCHEMA_NUM, offsetof(struct test_schema_obj, pct), 0,
	    NULL, NULL, 0, 1 },
	F("b", SCHEMA_BOOL, b, 0),
	{ "e", SCHEMA_ENUM, offsetof(struct test_schema_obj, e), 0,
	    test_schema_enums, NULL, NOLIM },
	F("list", SCHEMA_STR, list, SCHEMA_LIST),
	{ "sub", SCHEMA_OBJ, offsetof(struct test_schema_obj, sub), 0, NULL,
	    test_schema_sub_fields, NOLIM },
	F("node", SCHEMA_NODE, node, 0),
	F("doc", SCHEMA_IGNORE, str, 0),
	F("req", SCHEMA_STR, req, SCHEMA_REQUIRED),
	F("nstr", SCHEMA_STR, nstr, SCHEMA_NULLABLE),
	F("nint", SCHEMA_INT, nint, SCHEMA_NULLABLE),
	F("cidr", SCHEMA_CIDR, cidr, 0),
	F("cidrs", SCHEMA_CIDR, cidrs, SCHEMA_LIST),
	F("addrs", SCHEMA_ADDRS, addrs, SCHEMA_NAMES),
	FEND
};

struct test_schema {
	struct yml_doc		doc;
	struct prov_errs	errs;
	struct test_schema_obj	o;
	int			r;
};

/* Defaults, so that "not bound" is visible. */
static void
test_schema_defaults(struct test_schema_obj *o)
{
	memset(o, 0, sizeof *o);
	o->str = o->word = o->host = o->e = o->nstr = "default";
	o->i = o->ranged = o->nint = -7;
	o->num = o->pct = -7.5;
	o->b = -1;
	o->list = (struct strvec)STRVEC_INIT;
	o->cidrs = (struct strvec)STRVEC_INIT;
	o->sub.n = -3;
	o->sub.s = "subdefault";
}

/* Load `text` as t.yaml and bind its root with `fields`. */
static void
test_schema_bind(struct test_schema *t, const char *text,
    const struct schema_field *fields)
{
	struct schema_ctx	sc;

	memset(t, 0, sizeof *t);
	yml_doc_init(&t->doc);
	test_schema_defaults(&t->o);
	ck_assert_int_eq(yml_load(&t->doc, "t.yaml", text, strlen(text),
	    &t->errs), 0);
	ck_assert_uint_eq(t->errs.n, 0);
	sc.doc = &t->doc;
	sc.errs = &t->errs;
	t->r = schema_bind(&sc, t->doc.root, fields, &t->o);
}

static void
test_schema_release(struct test_schema *t)
{
	strvec_clear(&t->o.list);
	strvec_clear(&t->o.cidrs);
	prov_errs_release(&t->errs);
	yml_doc_release(&t->doc);
}

/* Every error as printed, one a line (caller frees). */
static char *
test_schema_errs(const struct prov_errs *errs)
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

/* The required key, so that cases test one thing. */
#define REQ "req: r\n"

/* Values that bind. */

START_TEST(test_schema_all_types)
{
	struct test_schema	 t;
	char			*e;

	test_schema_bind(&t,
	    "str: hello world\n"
	    "word: g++-12.1_x\n"
	    "host: head-01.pod1.example\n"
	    "i: -42\n"
	    "ranged: 10\n"
	    "num: 2.5e2\n"
	    "pct: 0\n"
	    "b: yes\n"
	    "e: kubernetes\n"
	    "list: [a, 'b c', \"d\"]\n"
	    "sub: { n: 3, s: inner }\n"
	    "node: [1, { x: y }]\n"
	    "doc: { anything: [goes, here] }\n"
	    "req: present\n"
	    "nstr: set\n"
	    "nint: 5\n", test_schema_fields);
	e = test_schema_errs(&t.errs);
	ck_assert_str_eq(e, "");
	free(e);
	ck_assert_int_eq(t.r, 0);
	ck_assert_str_eq(t.o.str, "hello world");
	ck_assert_str_eq(t.o.word, "g++-12.1_x");
	ck_assert_str_eq(t.o.host, "head-01.pod1.example");
	ck_assert_int_eq(t.o.i, -42);
	ck_assert_int_eq(t.o.ranged, 10);
	ck_assert_double_eq(t.o.num, 250);
	ck_assert_double_eq(t.o.pct, 0);
	ck_assert_int_eq(t.o.b, 1);
	/* Enums point into the table, not at the document. */
	ck_assert_ptr_eq(t.o.e, test_schema_enums[1]);
	ck_assert_uint_eq(t.o.list.n, 3);
	ck_assert_str_eq(t.o.list.v[0], "a");
	ck_assert_str_eq(t.o.list.v[1], "b c");
	ck_assert_str_eq(t.o.list.v[2], "d");
	ck_assert_ptr_null(t.o.list.v[3]);
	ck_assert_int_eq(t.o.sub.n, 3);
	ck_assert_str_eq(t.o.sub.s, "inner");
	ck_assert_ptr_nonnull(t.o.node);
	ck_assert_int_eq(t.o.node->kind, YML_SEQ);
	ck_assert_uint_eq(t.o.node->n, 2);
	ck_assert_uint_eq(t.o.node->line, 12);
	ck_assert_uint_eq(t.o.node->col, 7);
	ck_assert_str_eq(t.o.req, "present");
	ck_assert_str_eq(t.o.nstr, "set");
	ck_assert_int_eq(t.o.nint, 5);
	/* Strings are borrowed from the document. */
	ck_assert_ptr_eq(t.o.str, yml_map_get(t.doc.root, "str")->u.s);
	test_schema_release(&t);
}
END_TEST

/* Keys not given keep the caller's defaults; an empty map is fine. */
START_TEST(test_schema_defaults_kept)
{
	struct test_schema	t;

	test_schema_bind(&t, REQ, test_schema_fields);
	ck_assert_int_eq(t.r, 0);
	ck_assert_uint_eq(t.errs.n, 0);
	ck_assert_str_eq(t.o.str, "default");
	ck_assert_int_eq(t.o.i, -7);
	ck_assert_double_eq(t.o.num, -7.5);
	ck_assert_int_eq(t.o.b, -1);
	ck_assert_uint_eq(t.o.list.n, 0);
	ck_assert_int_eq(t.o.sub.n, -3);
	ck_assert_ptr_null(t.o.node);
	test_schema_release(&t);

	test_schema_bind(&t, "{}", test_schema_sub_fields);
	ck_assert_int_eq(t.r, 0);
	ck_assert_uint_eq(t.errs.n, 0);
	test_schema_release(&t);
}
END_TEST

/* Booleans: YAML 1.1 spellings a plan writer uses, nothing else. */
static const struct {
	const char	*in;
	int		 want;		/* -1: refused */
} bool_cases[] = {
	{ "true", 1 }, { "True", 1 }, { "TRUE", 1 }, { "yes", 1 },
	{ "Yes", 1 }, { "on", 1 },
	{ "false", 0 }, { "False", 0 }, { "FALSE", 0 }, { "no", 0 },
	{ "No", 0 }, { "off", 0 },
	{ "1", -1 }, { "0", -1 }, { "y", -1 }, { "n", -1 }, { "YES", -1 },
	{ "tru", -1 }, { "'true'", -1 }, { "\"no\"", -1 }, { "~", -1 },
	{ "[true]", -1 },
};

START_TEST(test_schema_bool_table)
{
	struct test_schema	 t;
	char			*text = xasprintf(REQ "b: %s\n",
	    bool_cases[_i].in);

	test_schema_bind(&t, text, test_schema_fields);
	if (bool_cases[_i].want >= 0) {
		ck_assert_int_eq(t.r, 0);
		ck_assert_int_eq(t.o.b, bool_cases[_i].want);
	} else {
		ck_assert_int_eq(t.r, -1);
		ck_assert_uint_eq(t.errs.n, 1);
		ck_assert_int_eq(t.o.b, -1);
		ck_assert_ptr_nonnull(strstr(t.errs.v[0].msg,
		    "'b' must be true or false, not "));
		ck_assert_uint_eq(t.errs.v[0].loc.line, 2);
		ck_assert_uint_eq(t.errs.v[0].loc.col, 4);
	}
	test_schema_release(&t);
	free(text);
}
END_TEST

/* Errors: the exact message, located, with its hint. */
static const struct {
	const char	*text;		/* after REQ, from line 2 */
	const char	*want;
} error_cases[] = {
	/* str */
	{ "str: [a]\n", "t.yaml:2:6: 'str' must be a string, not a list\n" },
	{ "str: {a: b}\n", "t.yaml:2:6: 'str' must be a string, not a "
	    "mapping\n" },
	{ "str:\n", "t.yaml:2:5: 'str' must be a string, not nothing\n" },
	{ "str: ~\n", "t.yaml:2:6: 'str' must be a string, not nothing\n" },
	{ "str: \"a\\0b\"\n", "t.yaml:2:6: 'str' contains a NUL byte\n" },
	/* word */
	{ "word: a b\n", "t.yaml:2:7: 'word' is not a word: 'a b' (use "
	    "letters, digits, '.', '_', '+' and '-' only)\n" },
	{ "word: \"$(x)\"\n", "t.yaml:2:7: 'word' is not a word: '$(x)' "
	    "(use letters, digits, '.', '_', '+' and '-' only)\n" },
	{ "word: [x]\n", "t.yaml:2:7: 'word' must be a string, not a list\n" },
	/* host */
	{ "host: -bad\n", "t.yaml:2:7: 'host' is not a valid host name: "
	    "'-bad' (RFC 1123: letters, digits and '-', labels of at most 63 "
	    "characters, not starting or ending with '-')\n" },
	{ "host: a_b\n", "t.yaml:2:7: 'host' is not a valid host name: "
	    "'a_b' (RFC 1123: letters, digits and '-', labels of at most 63 "
	    "characters, not starting or ending with '-')\n" },
	/* int */
	{ "i: 12x\n", "t.yaml:2:4: 'i' must be a whole number, not '12x'\n" },
	{ "i: 1.5\n", "t.yaml:2:4: 'i' must be a whole number, not '1.5'\n" },
	{ "i: 0x10\n", "t.yaml:2:4: 'i' must be a whole number, not '0x10'\n" },
	{ "i: 99999999999999999999\n", "t.yaml:2:4: 'i' must be a whole "
	    "number, not '99999999999999999999'\n" },
	{ "i: \"12\"\n", "t.yaml:2:4: 'i' must be a whole number, not the "
	    "string '12' (write it without quotes)\n" },
	{ "i: '12'\n", "t.yaml:2:4: 'i' must be a whole number, not the "
	    "string '12' (write it without quotes)\n" },
	{ "i: \"x\"\n", "t.yaml:2:4: 'i' must be a whole number, not 'x'\n" },
	{ "i: [1]\n", "t.yaml:2:4: 'i' must be a whole number, not a list\n" },
	{ "i: ~\n", "t.yaml:2:4: 'i' must be a whole number, not nothing\n" },
	{ "ranged: 0\n", "t.yaml:2:9: 'ranged' is 0, outside 1..10\n" },
	{ "ranged: 11\n", "t.yaml:2:9: 'ranged' is 11, outside 1..10\n" },
	{ "ranged: -5\n", "t.yaml:2:9: 'ranged' is -5, outside 1..10\n" },
	/* num */
	{ "num: 2.5GB\n", "t.yaml:2:6: 'num' must be a number, not '2.5GB'\n" },
	{ "num: .inf\n", "t.yaml:2:6: 'num' must be a number, not '.inf'\n" },
	{ "num: \"2.5\"\n", "t.yaml:2:6: 'num' must be a number, not the "
	    "string '2.5' (write it without quotes)\n" },
	{ "num: {}\n", "t.yaml:2:6: 'num' must be a number, not a mapping\n" },
	{ "pct: 1.01\n", "t.yaml:2:6: 'pct' is 1.01, outside 0..1\n" },
	{ "pct: -1e-3\n", "t.yaml:2:6: 'pct' is -1e-3, outside 0..1\n" },
	/* enum */
	{ "e: slurn\n", "t.yaml:2:4: unknown e 'slurn' (did you mean "
	    "'slurm'?)\n" },
	/* A swap is two edits: too far for a five-letter word. */
	{ "e: slrum\n", "t.yaml:2:4: unknown e 'slrum' (one of 'slurm', "
	    "'kubernetes', 'none')\n" },
	{ "e: Kubernetes\n", "t.yaml:2:4: unknown e 'Kubernetes' (did you "
	    "mean 'kubernetes'?)\n" },
	{ "e: docker\n", "t.yaml:2:4: unknown e 'docker' (one of 'slurm', "
	    "'kubernetes', 'none')\n" },
	{ "e: [slurm]\n", "t.yaml:2:4: 'e' must be a string, not a list\n" },
	/* strlist */
	{ "list: {a: b}\n", "t.yaml:2:7: 'list' must be a list of strings, "
	    "not a mapping\n" },
	{ "list: ~\n", "t.yaml:2:7: 'list' must be a list of strings, not "
	    "nothing\n" },
	{ "list: [a, [b], c]\n", "t.yaml:2:11: 'list' must be a string, not "
	    "a list\n" },
	{ "list:\n  - a\n  - {k: v}\n", "t.yaml:4:5: 'list' must be a string, "
	    "not a mapping\n" },
	/* obj */
	{ "sub: 5\n", "t.yaml:2:6: expected a mapping, not '5' (write "
	    "'key: value' pairs)\n" },
	{ "sub: [1]\n", "t.yaml:2:6: expected a mapping, not a list (write "
	    "'key: value' pairs)\n" },
	{ "sub: ~\n", "t.yaml:2:6: expected a mapping, not nothing (write "
	    "'key: value' pairs)\n" },
	{ "sub: { n: x, s: [y], m: 1 }\n",
	    "t.yaml:2:11: 'n' must be a whole number, not 'x'\n"
	    "t.yaml:2:17: 's' must be a string, not a list\n"
	    "t.yaml:2:22: unknown key 'm' (did you mean 'n'?)\n" },
	{ "sub:\n  n: 1\n  nn: 2\n", "t.yaml:4:3: unknown key 'nn' (did you "
	    "mean 'n'?)\n" },
	/* unknown keys */
	{ "strr: x\n", "t.yaml:2:1: unknown key 'strr' (did you mean "
	    "'str'?)\n" },
	{ "nst: x\n", "t.yaml:2:1: unknown key 'nst' (did you mean "
	    "'nstr'?)\n" },
	{ "nstring: x\n", "t.yaml:2:1: unknown key 'nstring'\n" },
	{ "Host: x\n", "t.yaml:2:1: unknown key 'Host' (did you mean "
	    "'host'?)\n" },
	{ "completely_unrelated: x\n", "t.yaml:2:1: unknown key "
	    "'completely_unrelated'\n" },
	/* nullable: null leaves the default; other wrong values still fail */
	{ "nstr: [x]\n", "t.yaml:2:7: 'nstr' must be a string, not a list\n" },
	{ "nint: x\n", "t.yaml:2:7: 'nint' must be a whole number, not 'x'\n" },
	/* typed strings: refused at the value, shown escaped and short */
	{ "cidr: \"10.0.0.0/8|;e id;#\"\n", "t.yaml:2:7: 'cidr' is not an IPv4 "
	    "network: '10.0.0.0/8|;e id;#' (write it like '10.244.0.0/16')\n" },
	{ "cidr: \"a\\nb\\rc\\x1b[2J\\x7f\"\n", "t.yaml:2:7: 'cidr' is not an "
	    "IPv4 network: 'a\\nb\\rc\\x1b[2J\\x7f' (write it like "
	    "'10.244.0.0/16')\n" },
	{ "cidr: \"0123456789012345678901234567890123456789012345678901234567"
	    "89012345678\"\n", "t.yaml:2:7: 'cidr' is not an IPv4 network: "
	    "'01234567890123456789012345678901234567890123456789012345678901"
	    "23... (69 bytes)' (write it like '10.244.0.0/16')\n" },
	{ "cidrs: [10.0.0.0/8, x, 10.1.0.0/16, \"$(id)\"]\n",
	    "t.yaml:2:21: 'cidrs' is not an IPv4 network: 'x' (write it like "
	    "'10.244.0.0/16')\n"
	    "t.yaml:2:37: 'cidrs' is not an IPv4 network: '$(id)' (write it "
	    "like '10.244.0.0/16')\n" },
	{ "cidrs: 10.0.0.0/8;\n", "t.yaml:2:8: 'cidrs' is not an IPv4 network: "
	    "'10.0.0.0/8;' (write it like '10.244.0.0/16')\n" },
	{ "addrs: { mgmt: 10.0.0.1, ib: \"a b\" }\n", "t.yaml:2:30: 'ib' is "
	    "not an IP address or host name: 'a b' (write an IPv4 address like "
	    "'192.0.2.10', a range like '192.0.2.[11-18]', or a host name)\n" },
	{ "addrs: [10.0.0.1]\n", "t.yaml:2:8: 'addrs' must be a mapping of "
	    "names, not a list\n" },
	{ "e: \"slurm\\n\"\n", "t.yaml:2:4: unknown e 'slurm\\n' (did you "
	    "mean 'slurm'?)\n" },
	{ "\"str\\ny\": x\n", "t.yaml:2:1: unknown key 'str\\ny'\n" },
};

START_TEST(test_schema_error_table)
{
	struct test_schema	 t;
	char			*text, *got;

	text = xasprintf(REQ "%s", error_cases[_i].text);

	test_schema_bind(&t, text, test_schema_fields);
	got = test_schema_errs(&t.errs);
	ck_assert_msg(strcmp(got, error_cases[_i].want) == 0,
	    "for:\n%s\ngot:\n%s\nwant:\n%s", text, got, error_cases[_i].want);
	ck_assert_int_eq(t.r, -1);
	ck_assert_int_eq(t.errs.v[0].code, PROV_E_PLAN);
	ck_assert_str_eq(t.errs.v[0].loc.file, "t.yaml");
	free(got);
	free(text);
	test_schema_release(&t);
}
END_TEST

/* Typed values that pass, and what a mapping of names keeps. */
START_TEST(test_schema_typed_ok)
{
	struct test_schema	t;

	test_schema_bind(&t, REQ "cidr: 10.244.0.0/16\n"
	    "cidrs: [10.0.0.0/8, 192.0.2.0/24]\n"
	    "addrs: { mgmt: \"10.0.0.[1-4]\", ib: node1.lab }\n",
	    test_schema_fields);
	ck_assert_int_eq(t.r, 0);
	ck_assert_str_eq(t.o.cidr, "10.244.0.0/16");
	ck_assert_uint_eq(t.o.cidrs.n, 2);
	ck_assert_str_eq(t.o.cidrs.v[1], "192.0.2.0/24");
	ck_assert_ptr_nonnull(t.o.addrs);
	ck_assert_uint_eq(t.o.addrs->n, 2);
	test_schema_release(&t);
}
END_TEST

/* Every field that holds a value, with its path. */
static void
test_schema_walk_fn(void *arg, const char *path, const struct schema_field *f)
{
	buf_addf(arg, "%s %d\n", path, (int)f->type);
}

START_TEST(test_schema_walk_paths)
{
	static const struct schema_field leaf[] = {
		{ "a", SCHEMA_CIDR, 0, 0, NULL, NULL, NOLIM },
		{ "doc", SCHEMA_IGNORE, 0, 0, NULL, NULL, NOLIM },
		{ "b", SCHEMA_PKG, 0, SCHEMA_LIST, NULL, NULL, NOLIM },
		FEND
	};
	static const struct schema_field top[] = {
		{ "o", SCHEMA_OBJ, 0, 0, NULL, leaf, NOLIM },
		{ "l", SCHEMA_NODE, 0, SCHEMA_LIST, NULL, leaf, NOLIM },
		{ "m", SCHEMA_NODE, 0, SCHEMA_NAMES, NULL, leaf, NOLIM },
		{ "n", SCHEMA_ADDRS, 0, SCHEMA_NAMES, NULL, NULL, NOLIM },
		{ "raw", SCHEMA_NODE, 0, 0, NULL, NULL, NOLIM },
		{ "i", SCHEMA_INT, 0, 0, NULL, NULL, NOLIM },
		FEND
	};
	struct buf	b = BUF_INIT;
	char		*want;

	schema_walk(top, "x.", test_schema_walk_fn, &b);
	want = xasprintf("x.o.a %d\nx.o.b[] %d\nx.l[].a %d\nx.l[].b[] %d\n"
	    "x.m.*.a %d\nx.m.*.b[] %d\nx.n.* %d\nx.raw %d\nx.i %d\n",
	    SCHEMA_CIDR, SCHEMA_PKG, SCHEMA_CIDR, SCHEMA_PKG, SCHEMA_CIDR,
	    SCHEMA_PKG, SCHEMA_ADDRS, SCHEMA_NODE, SCHEMA_INT);
	ck_assert_str_eq(b.buf, want);
	free(want);
	buf_release(&b);
	/* The string types, and only they, have a checker. */
	ck_assert_ptr_nonnull(schema_type_info(SCHEMA_CIDR));
	ck_assert_ptr_null(schema_type_info(SCHEMA_INT));
	ck_assert_ptr_null(schema_type_info(SCHEMA_NODE));
	ck_assert_int_eq(schema_value_ok(SCHEMA_HOSTLIST, "gpu[01-08],h-1"), 1);
	ck_assert_int_eq(schema_value_ok(SCHEMA_HOSTLIST, "gpu01\r"), 0);
	ck_assert_int_eq(schema_value_ok(SCHEMA_INT, "1"), 0);
}
END_TEST

START_TEST(test_schema_nullable)
{
	struct test_schema	t;

	test_schema_bind(&t, REQ "nstr: ~\nnint: null\n", test_schema_fields);
	ck_assert_int_eq(t.r, 0);
	ck_assert_uint_eq(t.errs.n, 0);
	ck_assert_str_eq(t.o.nstr, "default");
	ck_assert_int_eq(t.o.nint, -7);
	test_schema_release(&t);

	test_schema_bind(&t, REQ "nstr:\nnint: NULL\n", test_schema_fields);
	ck_assert_int_eq(t.r, 0);
	ck_assert_str_eq(t.o.nstr, "default");
	test_schema_release(&t);

	/* A quoted "null" is a string. */
	test_schema_bind(&t, REQ "nstr: 'null'\n", test_schema_fields);
	ck_assert_int_eq(t.r, 0);
	ck_assert_str_eq(t.o.nstr, "null");
	test_schema_release(&t);
}
END_TEST

START_TEST(test_schema_strlist_scalar)
{
	struct test_schema	t;

	test_schema_bind(&t, REQ "list: only-one\n", test_schema_fields);
	ck_assert_int_eq(t.r, 0);
	ck_assert_uint_eq(t.o.list.n, 1);
	ck_assert_str_eq(t.o.list.v[0], "only-one");
	test_schema_release(&t);

	test_schema_bind(&t, REQ "list: []\n", test_schema_fields);
	ck_assert_int_eq(t.r, 0);
	ck_assert_uint_eq(t.o.list.n, 0);
	test_schema_release(&t);

	/* Numbers in a list are their text. */
	test_schema_bind(&t, REQ "list: [1, 2.50, true]\n", test_schema_fields);
	ck_assert_int_eq(t.r, 0);
	ck_assert_uint_eq(t.o.list.n, 3);
	ck_assert_str_eq(t.o.list.v[1], "2.50");
	ck_assert_str_eq(t.o.list.v[2], "true");
	test_schema_release(&t);
}
END_TEST

START_TEST(test_schema_required)
{
	struct test_schema	 t;
	char			*e;

	test_schema_bind(&t, "str: x\n", test_schema_fields);
	e = test_schema_errs(&t.errs);
	/* Located at the mapping that lacks it. */
	ck_assert_str_eq(e, "t.yaml:1:1: missing key 'req'\n");
	free(e);
	ck_assert_int_eq(t.r, -1);
	/* What was there is still bound. */
	ck_assert_str_eq(t.o.str, "x");
	test_schema_release(&t);

	/* A required key given as null is present but wrong. */
	test_schema_bind(&t, "req:\n", test_schema_fields);
	e = test_schema_errs(&t.errs);
	ck_assert_str_eq(e, "t.yaml:1:5: 'req' must be a string, not "
	    "nothing\n");
	free(e);
	test_schema_release(&t);

	/* Nested: at the nested mapping. */
	{
		static const struct schema_field req_sub[] = {
			{ "n", SCHEMA_INT, offsetof(struct test_schema_sub, n),
			    SCHEMA_REQUIRED, NULL, NULL, NOLIM },
			FEND
		};
		static const struct schema_field outer[] = {
			{ "sub", SCHEMA_OBJ, offsetof(struct test_schema_obj,
			    sub), 0, NULL, req_sub, NOLIM },
			FEND
		};

		test_schema_bind(&t, "sub:\n  s: x\n", outer);
		e = test_schema_errs(&t.errs);
		ck_assert_str_eq(e, "t.yaml:2:3: unknown key 's' (did you mean "
		    "'n'?)\nt.yaml:2:3: missing key 'n'\n");
		free(e);
		test_schema_release(&t);
	}
}
END_TEST

/* Every problem in one pass; good keys around them still bind. */
START_TEST(test_schema_collects)
{
	struct test_schema	 t;
	char			*e;

	test_schema_bind(&t,
	    "str: fine\n"
	    "i: one\n"
	    "e: slurm\n"
	    "gpu: 8\n"
	    "b: maybe\n"
	    "num: 3\n", test_schema_fields);
	e = test_schema_errs(&t.errs);
	ck_assert_str_eq(e,
	    "t.yaml:2:4: 'i' must be a whole number, not 'one'\n"
	    "t.yaml:4:1: unknown key 'gpu'\n"
	    "t.yaml:5:4: 'b' must be true or false, not 'maybe'\n"
	    "t.yaml:1:1: missing key 'req'\n");
	free(e);
	ck_assert_int_eq(t.r, -1);
	ck_assert_str_eq(t.o.str, "fine");
	ck_assert_ptr_eq(t.o.e, test_schema_enums[0]);
	ck_assert_double_eq(t.o.num, 3);
	test_schema_release(&t);
}
END_TEST

/* The nearest key, and of equally near ones the longest shared prefix. */
START_TEST(test_schema_hint_prefix)
{
	static const struct schema_field f[] = {
		{ "cpu", SCHEMA_IGNORE, 0, 0, NULL, NULL, NOLIM },
		{ "gpus", SCHEMA_IGNORE, 0, 0, NULL, NULL, NOLIM },
		{ "nics", SCHEMA_IGNORE, 0, 0, NULL, NULL, NOLIM },
		FEND
	};
	struct test_schema	 t;
	char			*e;

	test_schema_bind(&t, "gpu: 1\ncpus: 2\nnic: 3\nxyz: 4\n", f);
	e = test_schema_errs(&t.errs);
	ck_assert_str_eq(e,
	    "t.yaml:1:1: unknown key 'gpu' (did you mean 'gpus'?)\n"
	    "t.yaml:2:1: unknown key 'cpus' (did you mean 'cpu'?)\n"
	    "t.yaml:3:1: unknown key 'nic' (did you mean 'nics'?)\n"
	    "t.yaml:4:1: unknown key 'xyz'\n");
	free(e);
	test_schema_release(&t);
}
END_TEST

/* The root must be a mapping; a NULL map is -1 with nothing to say. */
START_TEST(test_schema_not_a_map)
{
	struct test_schema	 t;
	struct schema_ctx	 sc;
	char			*e;

	test_schema_bind(&t, "just text\n", test_schema_fields);
	e = test_schema_errs(&t.errs);
	ck_assert_str_eq(e, "t.yaml:1:1: expected a mapping, not 'just text' "
	    "(write 'key: value' pairs)\n");
	free(e);
	ck_assert_int_eq(t.r, -1);
	test_schema_release(&t);

	test_schema_bind(&t, "- a\n- b\n", test_schema_fields);
	e = test_schema_errs(&t.errs);
	ck_assert_str_eq(e, "t.yaml:1:1: expected a mapping, not a list "
	    "(write 'key: value' pairs)\n");
	free(e);
	sc.doc = &t.doc;
	sc.errs = &t.errs;
	ck_assert_int_eq(schema_bind(&sc, NULL, test_schema_fields, &t.o), -1);
	ck_assert_uint_eq(t.errs.n, 1);
	test_schema_release(&t);
}
END_TEST

/* The single-value converters callers use on their own. */
START_TEST(test_schema_converters)
{
	struct test_schema	 t;
	struct schema_ctx	 sc;
	const struct yml_node	*root;
	const char		*s = NULL;
	long			 l = 0;
	double			 d = 0;
	int			 b = -1;
	char			*e;

	test_schema_bind(&t, "[ 12, 2.5, on, text, '7' ]",
	    test_schema_sub_fields);
	prov_errs_release(&t.errs);
	sc.doc = &t.doc;
	sc.errs = &t.errs;
	root = t.doc.root;
	ck_assert_int_eq(schema_long(&sc, root->u.items[0], "a", &l), 0);
	ck_assert_int_eq(l, 12);
	ck_assert_int_eq(schema_num(&sc, root->u.items[1], "b", &d), 0);
	ck_assert_double_eq(d, 2.5);
	ck_assert_int_eq(schema_num(&sc, root->u.items[0], "b", &d), 0);
	ck_assert_double_eq(d, 12);
	ck_assert_int_eq(schema_bool(&sc, root->u.items[2], "c", &b), 0);
	ck_assert_int_eq(b, 1);
	ck_assert_int_eq(schema_str(&sc, root->u.items[3], "d", &s), 0);
	ck_assert_str_eq(s, "text");
	ck_assert_int_eq(schema_str(&sc, root->u.items[0], "d", &s), 0);
	ck_assert_str_eq(s, "12");
	ck_assert_uint_eq(t.errs.n, 0);

	ck_assert_int_eq(schema_long(&sc, root->u.items[1], "a", &l), -1);
	ck_assert_int_eq(schema_long(&sc, root->u.items[4], "a", &l), -1);
	ck_assert_int_eq(schema_str(&sc, root, "whole", &s), -1);
	ck_assert_int_eq(schema_type_error(&sc, root->u.items[3], "thing",
	    "a number"), -1);
	e = test_schema_errs(&t.errs);
	ck_assert_str_eq(e,
	    "t.yaml:1:7: 'a' must be a whole number, not '2.5'\n"
	    "t.yaml:1:22: 'a' must be a whole number, not the string '7' "
	    "(write it without quotes)\n"
	    "t.yaml:1:1: 'whole' must be a string, not a list\n"
	    "t.yaml:1:16: 'thing' must be a number, not 'text'\n");
	free(e);
	ck_assert_int_eq(l, 12);
	test_schema_release(&t);
}
END_TEST

static Suite *
schema_suite(void)
{
	Suite	*s = suite_create("schema");
	TCase	*tc;

	tc = tcase_create("bind");
	tcase_add_test(tc, test_schema_all_types);
	tcase_add_test(tc, test_schema_defaults_kept);
	tcase_add_test(tc, test_schema_nullable);
	tcase_add_test(tc, test_schema_typed_ok);
	tcase_add_test(tc, test_schema_walk_paths);
	tcase_add_test(tc, test_schema_strlist_scalar);
	tcase_add_loop_test(tc, test_schema_bool_table, 0,
	    (int)ARRAY_SIZE(bool_cases));
	suite_add_tcase(s, tc);

	tc = tcase_create("errors");
	tcase_add_loop_test(tc, test_schema_error_table, 0,
	    (int)ARRAY_SIZE(error_cases));
	tcase_add_test(tc, test_schema_required);
	tcase_add_test(tc, test_schema_collects);
	tcase_add_test(tc, test_schema_hint_prefix);
	tcase_add_test(tc, test_schema_not_a_map);
	suite_add_tcase(s, tc);

	tc = tcase_create("converters");
	tcase_add_test(tc, test_schema_converters);
	suite_add_tcase(s, tc);
	return s;
}

TEST_MAIN(schema_suite)

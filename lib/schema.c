/*
 * schema.c: table-driven binding of YAML mappings to structs.  See schema.h.
 */
#include "compat.h"

#include <ctype.h>
#include <math.h>

#include "buf.h"
#include "knownhosts.h"
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

/*
 * A value quoted in a message: shortened, and with line ends and control
 * characters written as escapes, so a hostile value cannot forge lines or
 * drive the terminal.
 */
static void
schema_add_shown(struct buf *b, const char *s)
{
	size_t	i, n = strlen(s);

	for (i = 0; i < n && i < 64; i++) {
		unsigned char	c = (unsigned char)s[i];

		if (c == '\n')
			buf_adds(b, "\\n");
		else if (c == '\r')
			buf_adds(b, "\\r");
		else if (c == '\t')
			buf_adds(b, "\\t");
		else if (c < 0x20 || c == 0x7f)
			buf_addf(b, "\\x%02x", c);
		else
			buf_addch(b, c);
	}
	if (i < n)
		buf_addf(b, "... (%zu bytes)", n);
}

/*
 * Hostlists of names: the characters of names and ranges.  Their syntax
 * is the loader's to check (hostlist.h says what is wrong with a range),
 * and each name of it is a host name once expanded.
 */
static int
schema_is_hostlist(const char *s)
{
	return s != NULL && *s != '\0' && strlen(s) <= 65536 &&
	    s[strspn(s, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
	    "0123456789._-,[]")] == '\0';
}

/* Addresses with ranges: what IPv4, IPv6, host names and brackets use. */
static int
schema_is_addrs(const char *s)
{
	return s != NULL && *s != '\0' && strlen(s) <= 4096 &&
	    s[strspn(s, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
	    "0123456789.-,[]:")] == '\0';
}

static int
schema_is_any(const char *s)
{
	return s != NULL;
}

static int
schema_is_text(const char *s)
{
	return str_is_text(s, 256);
}

static int
schema_is_path(const char *s)
{
	return str_is_text(s, 4096);
}

static int
schema_is_word(const char *s)
{
	return str_is_safe_word(s) && strlen(s) <= 256;
}

static int
schema_is_host(const char *s)
{
	return str_is_hostname(s);
}

/*
 * A kernel argument goes into GRUB's configuration and onto every later
 * command line: a name or name=value, no blank, quote or shell character.
 */
static int
schema_is_karg(const char *s)
{
	return strlen(s) <= 256 && (isalnum((unsigned char)s[0]) ||
	    s[0] == '_') && strspn(s, "abcdefghijklmnopqrstuvwxyz"
	    "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.,:=/+-") == strlen(s);
}

/* Indexed by enum schema_type; string types only. */
static const struct schema_type_info schema_types[] = {
	[SCHEMA_STR] = { "string", "a string", "anything", schema_is_any },
	[SCHEMA_TEXT] = { "text", "one line of text",
	    "NVIDIA A100 80GB PCIe", schema_is_text },
	[SCHEMA_WORD] = { "word", "a word", "gpu-node", schema_is_word,
	    "use letters, digits, '.', '_', '+' and '-' only" },
	[SCHEMA_HOST] = { "host name", "a valid host name", "head-01",
	    schema_is_host, "RFC 1123: letters, digits and '-', labels of at "
	    "most 63 characters, not starting or ending with '-'" },
	[SCHEMA_HOSTPORT] = { "host[:port]", "a host name with an optional port",
	    "mirror.example:5000", str_is_hostport },
	[SCHEMA_HOSTLIST] = { "hostlist", "a hostlist of node names",
	    "gpu[01-08],head-01", schema_is_hostlist },
	[SCHEMA_ADDRS] = { "address", "an IP address or host name",
	    "192.0.2.10", schema_is_addrs, "write an IPv4 address like "
	    "'192.0.2.10', a range like '192.0.2.[11-18]', or a host name" },
	[SCHEMA_CIDR] = { "cidr", "an IPv4 network", "10.244.0.0/16",
	    str_is_cidr4 },
	[SCHEMA_MAC] = { "MAC", "a MAC address", "0c:c4:7a:00:00:10",
	    str_is_mac, "six hex pairs like '0c:c4:7a:00:00:10'" },
	[SCHEMA_VERSION] = { "version", "a version", "22.04", str_is_version },
	[SCHEMA_PATH] = { "path", "a path", "keys/id_ed25519",
	    schema_is_path },
	[SCHEMA_URL] = { "URL", "an http(s) URL", "https://mirror.example:5000",
	    str_is_url },
	[SCHEMA_USER] = { "user name", "a user name", "deploy", str_is_user },
	[SCHEMA_ENVVAR] = { "variable name", "an environment variable name",
	    "BMC_PASSWORD", str_is_envvar },
	[SCHEMA_JUMP] = { "[user@]host[:port]", "a node name or [user@]host[:port]",
	    "admin@bastion.example:2222", str_is_jump },
	[SCHEMA_PKG] = { "package", "a package name", "python3", str_is_pkg,
	    "use letters, digits, '.', '_', '+' and '-' only, not starting "
	    "with '-' or '.'" },
	[SCHEMA_MIG] = { "MIG profile", "a MIG profile", "1g.10gb",
	    str_is_mig_profile },
	[SCHEMA_DURATION] = { "time limit", "a Slurm time limit", "2-00:00:00",
	    str_is_slurm_time, "Slurm's form: MINUTES, HOURS:MM:SS, "
	    "DAYS-HOURS[:MM[:SS]] or UNLIMITED, e.g. \"2-00:00:00\"" },
	[SCHEMA_REDUNDANCY] = { "redundancy", "a PSU redundancy", "N+1",
	    str_is_redundancy, "write 'N+1', 'N+N', 'N' or counts like '2+2'" },
	[SCHEMA_PCIID] = { "PCI id", "a PCI vendor:device id", "10de:20b0",
	    str_is_pciid },
	[SCHEMA_KARG] = { "kernel argument", "a kernel argument", "hugepages=64",
	    schema_is_karg, "NAME or NAME=VALUE with letters, digits and "
	    "'_.,:=/+-', like 'hugepages=64'" },
	[SCHEMA_ACCOUNT] = { "account name", "an account name", "alice",
	    str_is_account, "a lower-case letter or '_', then lower-case "
	    "letters, digits, '_' and '-', at most 32" },
	[SCHEMA_NODEPATH] = { "node path", "an absolute path", "/bin/bash",
	    str_is_node_path, "an absolute path of letters, digits and "
	    "'._/-', like '/bin/bash'" },
	[SCHEMA_SSHKEY] = { "SSH public key", "an SSH public key",
	    "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAA... alice@laptop",
	    knownhosts_pubkey_ok, "one line of a .pub file: TYPE KEY "
	    "[COMMENT], without options; the comment of letters, digits "
	    "and '._@+:-'" },
	[SCHEMA_LDAPURI] = { "LDAP URI", "an LDAP server's URI",
	    "ldaps://ldap.example.com", str_is_ldap_uri, "ldaps://HOST[:PORT] "
	    "or ldap://HOST[:PORT], without a DN or filter" },
	[SCHEMA_DN] = { "DN", "an LDAP distinguished name",
	    "ou=People,dc=example,dc=com", str_is_ldap_dn, "TYPE=VALUE parts "
	    "joined by ',', values of letters, digits, inner blanks and "
	    "'._@-', like 'ou=People,dc=example,dc=com'" },
};

const struct schema_type_info *
schema_type_info(enum schema_type t)
{
	if ((size_t)t >= ARRAY_SIZE(schema_types) || schema_types[t].ok == NULL)
		return NULL;
	return &schema_types[t];
}

int
schema_value_ok(enum schema_type t, const char *s)
{
	const struct schema_type_info	*ti = schema_type_info(t);

	return ti != NULL && ti->ok(s);
}

/* "'pod_cidr' is not an IPv4 network: 'x' (write it like '10.244.0.0/16')" */
static int
schema_value_error(const struct schema_ctx *c, const struct yml_node *n,
    enum schema_type t, const char *what, const char *s)
{
	const struct schema_type_info	*ti = schema_type_info(t);
	struct prov_loc			 loc = yml_loc(c->doc, n);
	struct buf			 v = BUF_INIT, h = BUF_INIT;
	int				 r;

	schema_add_shown(&v, s);
	if (ti->hint != NULL)
		buf_adds(&h, ti->hint);
	else
		buf_addf(&h, "write it like '%s'", ti->like);
	r = prov_errs_add(c->errs, PROV_E_PLAN, &loc, h.buf,
	    "'%s' is not %s: '%s'", what, ti->what, v.buf);
	buf_release(&v);
	buf_release(&h);
	return r;
}

int
schema_typed(const struct schema_ctx *c, const struct yml_node *n,
    enum schema_type t, const char *what, const char **out)
{
	const char	*s;

	if (schema_str(c, n, what, &s) != 0)
		return -1;
	if (!schema_value_ok(t, s))
		return schema_value_error(c, n, t, what, s);
	*out = s;
	return 0;
}

int
schema_type_error(const struct schema_ctx *c, const struct yml_node *n,
    const char *what, const char *expected)
{
	struct prov_loc	loc = yml_loc(c->doc, n);
	struct buf	shown = BUF_INIT;
	int		r;

	if (n->kind != YML_SCALAR || yml_is_null(n))
		return prov_errs_add(c->errs, PROV_E_PLAN, &loc, NULL,
		    "'%s' must be %s, not %s", what, expected,
		    yml_kind_name(n));
	schema_add_shown(&shown, n->u.s);
	r = prov_errs_add(c->errs, PROV_E_PLAN, &loc, NULL,
	    "'%s' must be %s, not '%s'", what, expected, shown.buf);
	buf_release(&shown);
	return r;
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

/* A list of values of string type f->type (or one value) into a strvec. */
static int
schema_bind_list(const struct schema_ctx *c, const struct yml_node *v,
    const struct schema_field *f, struct strvec *sv)
{
	const char	*s;
	size_t		 i;
	int		 r = 0;

	if (v->kind == YML_SCALAR && !yml_is_null(v)) {
		if (schema_typed(c, v, f->type, f->key, &s) != 0)
			return -1;
		strvec_push(sv, s);
		return 0;
	}
	if (v->kind != YML_SEQ)
		return schema_type_error(c, v, f->key, "a list of strings");
	for (i = 0; i < v->n; i++) {
		if (schema_typed(c, v->u.items[i], f->type, f->key, &s) != 0)
			r = -1;
		else
			strvec_push(sv, s);
	}
	return r;
}

/* A mapping of names to values of string type f->type: checked, then kept. */
static int
schema_bind_names(const struct schema_ctx *c, const struct yml_node *v,
    const struct schema_field *f, const struct yml_node **dst)
{
	const char	*s;
	size_t		 i;
	int		 r = 0;

	if (v->kind != YML_MAP)
		return schema_type_error(c, v, f->key, "a mapping of names");
	for (i = 0; i < v->n; i++)
		if (schema_typed(c, v->u.pairs[i].val, f->type,
		    v->u.pairs[i].key->u.s, &s) != 0)
			r = -1;
	if (r == 0)
		*dst = v;
	return r;
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
	if (schema_type_info(f->type) != NULL) {
		if (f->flags & SCHEMA_LIST)
			return schema_bind_list(c, v, f, (struct strvec *)dst);
		if (f->flags & SCHEMA_NAMES)
			return schema_bind_names(c, v, f,
			    (const struct yml_node **)dst);
		return schema_typed(c, v, f->type, f->key, (const char **)dst);
	}
	switch (f->type) {
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
			struct buf	 b = BUF_INIT, shown = BUF_INIT;
			const char	*near = schema_suggest(s, f->enums);

			if (near != NULL)
				buf_addf(&b, "did you mean '%s'?", near);
			else {
				buf_adds(&b, "one of");
				for (i = 0; f->enums[i] != NULL; i++)
					buf_addf(&b, "%s '%s'", i ? "," : "",
					    f->enums[i]);
			}
			schema_add_shown(&shown, s);
			loc = yml_loc(c->doc, v);
			prov_errs_add(c->errs, PROV_E_PLAN, &loc, b.buf,
			    "unknown %s '%s'", f->key, shown.buf);
			buf_release(&b);
			buf_release(&shown);
			return -1;
		}
	case SCHEMA_OBJ:
		return schema_bind(c, v, f->sub, dst);
	case SCHEMA_NODE:
		*(const struct yml_node **)dst = v;
		return 0;
	default:
		return 0;
	}
}

void
schema_walk(const struct schema_field *fields, const char *prefix,
    void (*fn)(void *, const char *, const struct schema_field *), void *arg)
{
	const struct schema_field	*f;
	struct buf			 path = BUF_INIT;

	for (f = fields; f->key != NULL; f++) {
		if (f->type == SCHEMA_IGNORE)
			continue;
		buf_reset(&path);
		buf_addf(&path, "%s%s%s%s", prefix, f->key,
		    f->flags & SCHEMA_LIST ? "[]" : "",
		    f->flags & SCHEMA_NAMES ? ".*" : "");
		if (f->sub != NULL && (f->type == SCHEMA_OBJ ||
		    f->type == SCHEMA_NODE)) {
			buf_addch(&path, '.');
			schema_walk(f->sub, path.buf, fn, arg);
		} else
			fn(arg, path.buf, f);
	}
	buf_release(&path);
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
		if (map->kind == YML_SCALAR && !yml_is_null(map)) {
			struct buf	shown = BUF_INIT;

			schema_add_shown(&shown, map->u.s);
			prov_errs_add(c->errs, PROV_E_PLAN, &loc,
			    "write 'key: value' pairs", "expected a mapping, "
			    "not '%s'", shown.buf);
			buf_release(&shown);
			return -1;
		}
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
			struct buf	 shown = BUF_INIT;

			schema_add_shown(&shown, k->u.s);
			prov_errs_add(c->errs, PROV_E_PLAN, &loc, hint,
			    "unknown key '%s'", shown.buf);
			buf_release(&shown);
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

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
	/*
	 * Strings: const char *, or with SCHEMA_LIST a struct strvec.  Each
	 * type says what the value may hold and is checked at bind time, so
	 * nothing else reaches a shell, a config or an answer file
	 * (schema_type_info() has the wording of each).
	 */
	SCHEMA_STR,	/* anything without NUL: only for values no node sees */
	SCHEMA_TEXT,	/* one line of printable text: names, titles */
	SCHEMA_WORD,	/* [A-Za-z0-9._+-] only (safe in shells and paths) */
	SCHEMA_HOST,	/* RFC 1123 host name */
	SCHEMA_HOSTPORT,	/* host name or IPv4 address, then :PORT or not */
	SCHEMA_HOSTLIST,	/* host names with pdsh ranges: gpu[01-08],head-01 */
	SCHEMA_ADDRS,	/* IP addresses or host names, with ranges */
	SCHEMA_CIDR,	/* IPv4 network: 10.244.0.0/16 */
	SCHEMA_MAC,	/* 0c:c4:7a:00:00:10 (or with '-') */
	SCHEMA_VERSION,	/* digits and dots: 22.04, 1.30.2, 550 */
	SCHEMA_PATH,	/* a local file: one line, no control characters */
	SCHEMA_URL,	/* http:// or https://, host[:port], a plain path */
	SCHEMA_USER,	/* a login name: [A-Za-z_][A-Za-z0-9_.-]* */
	SCHEMA_ENVVAR,	/* an environment variable's name */
	SCHEMA_JUMP,	/* [user@]host[:port], or a node name */
	SCHEMA_PKG,	/* a package name */
	SCHEMA_MIG,	/* a MIG profile: 1g.10gb, 3g.40gb+me, 19 */
	SCHEMA_DURATION,	/* a Slurm time limit: 30, 4:00:00, 2-00:00:00 */
	SCHEMA_REDUNDANCY,	/* PSU redundancy: N, N+1, N+N, 2+2 */
	SCHEMA_PCIID,	/* vendor:device in hex: 10de:20b0 */
	SCHEMA_KARG,	/* a kernel argument: NAME or NAME=VALUE */
	SCHEMA_ACCOUNT,	/* a Unix/Slurm account or group: alice, ml-team */
	SCHEMA_NODEPATH,	/* an absolute path on a node: /bin/bash */
	SCHEMA_SSHKEY,	/* an OpenSSH public key line: ssh-ed25519 AAAA... c */
	SCHEMA_LDAPURI,	/* an LDAP server: ldaps://ldap.example.com[:636] */
	SCHEMA_DN,	/* an LDAP distinguished name: dc=example,dc=com */
	/* Other values. */
	SCHEMA_INT,	/* long */
	SCHEMA_NUM,	/* double */
	SCHEMA_BOOL,	/* int */
	SCHEMA_ENUM,	/* const char *, one of `enums` */
	SCHEMA_OBJ,	/* an embedded struct bound with `sub` */
	SCHEMA_NODE,	/* const struct yml_node *: the caller reads it; `sub`
			   (when set) says its shape, for schema_walk() */
	SCHEMA_IGNORE,	/* accepted and not bound (e.g. documentation keys) */
};

#define SCHEMA_REQUIRED	0x1
#define SCHEMA_NULLABLE	0x2	/* `null` is allowed and leaves the default */
/*
 * A list of values of the type (a single value is a list of one): strings
 * go into a struct strvec; a SCHEMA_NODE keeps the list for the caller,
 * whose entries have the shape `sub`.
 */
#define SCHEMA_LIST	0x4
/*
 * A mapping of names to values of the type: each string value is checked
 * and the mapping kept as a SCHEMA_NODE would be; a SCHEMA_NODE's entries
 * have the shape `sub`.
 */
#define SCHEMA_NAMES	0x8

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
/* schema_str(), then the value must be of string type `t`. */
int	schema_typed(const struct schema_ctx *, const struct yml_node *,
	    enum schema_type t, const char *what, const char **out);
int	schema_long(const struct schema_ctx *, const struct yml_node *,
	    const char *what, long *out);
int	schema_num(const struct schema_ctx *, const struct yml_node *,
	    const char *what, double *out);
int	schema_bool(const struct schema_ctx *, const struct yml_node *,
	    const char *what, int *out);
/* "must be a mapping" style error at `n`. */
int	schema_type_error(const struct schema_ctx *, const struct yml_node *,
	    const char *what, const char *expected);


/* What a string type may hold, for messages and documentation. */
struct schema_type_info {
	const char	*name;		/* "cidr" */
	const char	*what;		/* "an IPv4 network" */
	const char	*like;		/* "10.244.0.0/16", an example */
	int		(*ok)(const char *);
	const char	*hint;		/* NULL: "write it like '<like>'" */
};

/* The info of string type `t`, or NULL when `t` is not a string type. */
const struct schema_type_info	*schema_type_info(enum schema_type t);
/* 1 when `s` is a valid value of string type `t`. */
int	schema_value_ok(enum schema_type t, const char *s);

/*
 * Call fn for every field of `fields` that holds a value, depth first,
 * with its path: sub-tables of SCHEMA_OBJ and of SCHEMA_NODE fields add
 * "key.", a SCHEMA_LIST field "[]" and a SCHEMA_NAMES field ".*"
 * ("nodes[].bmc.address", "hardware.*.mig[]").  `prefix` starts the paths.
 */
void	schema_walk(const struct schema_field *fields, const char *prefix,
	    void (*fn)(void *arg, const char *path,
	    const struct schema_field *f), void *arg);

#endif

/*
 * str.h: small string helpers shared by the modules: edit distance for
 * "did you mean" hints, number parsing that reports errors instead of
 * guessing (no atoi), RFC 1123 host name checks, and the checks of what
 * each kind of plan value may hold (the string types of lib/schema.h).
 */
#ifndef PROV_STR_H
#define PROV_STR_H

#include <stddef.h>

/* Levenshtein distance, capped at `cap` (returns cap+1 past it). */
size_t		 str_distance(const char *a, const char *b, size_t cap);
/*
 * The candidate nearest to `s`, or NULL when none is close enough to be a
 * plausible typo.  `cands` is NULL-terminated; the result is borrowed.
 */
const char	*str_suggest(const char *s, const char *const *cands);
/* Parse a whole decimal integer; -1 when s is not one or out of range. */
int		 str_to_long(const char *s, long *out);
int		 str_to_ulong(const char *s, unsigned long *out);
/* A whole non-negative hexadecimal number, "0x" optional; -1 when s is
 * not one (or NULL). */
long		 str_hex(const char *s);
/* Parse a whole decimal number (e.g. "2.5", "1e3"); -1 when not one. */
int		 str_to_double(const char *s, double *out);
/* 1 when s is a valid RFC 1123 host name label sequence (no trailing dot). */
int		 str_is_hostname(const char *s);
/* Trim leading and trailing blanks and line ends in place; returns the start. */
char		*str_trim(char *s);
/* Free *dst and set it to a copy of s (NULL stays NULL). */
void		 str_set(char **dst, const char *s);
/* 1 when s starts with prefix. */
int		 str_starts(const char *s, const char *prefix);
/* 1 when s consists only of [A-Za-z0-9._+-] and is non-empty: safe in paths and shells. */
int		 str_is_safe_word(const char *s);

/*
 * What a value may hold: 1 when `s` (NULL: 0) is one of these.  None but
 * str_is_text accepts a quote, '$', '`', ';', '|', '&', a space, a
 * backslash or a control character.
 */
/* One line of printable text (no control characters), 1..max bytes. */
int		 str_is_text(const char *s, size_t max);
/* Dotted-quad IPv4 address, no leading zeros: 192.0.2.10. */
int		 str_is_ipv4(const char *s);
/* IPv4 network ADDRESS/PREFIX, prefix 0..32: 10.244.0.0/16. */
int		 str_is_cidr4(const char *s);
/* Six hex pairs separated by ':' or '-' (the same one). */
int		 str_is_mac(const char *s);
/* Digits separated by single dots: 12, 22.04, 1.30.2. */
int		 str_is_version(const char *s);
/* A login name: [A-Za-z_][A-Za-z0-9_.-]*, at most 64. */
int		 str_is_user(const char *s);
/* An environment variable's name: [A-Za-z_][A-Za-z0-9_]*. */
int		 str_is_envvar(const char *s);
/* A host name, then :PORT (1..65535) or not: mirror.example:5000. */
int		 str_is_hostport(const char *s);
/* [user@]host[:port]. */
int		 str_is_jump(const char *s);
/* http:// or https://, host[:port], then a path of [A-Za-z0-9/._~%+=,:@-]. */
int		 str_is_url(const char *s);
/* A package name: a safe word starting with a letter or digit. */
int		 str_is_pkg(const char *s);
/* An LDAP server: ldap:// or ldaps://, host[:port], '/' or nothing after. */
int		 str_is_ldap_uri(const char *s);
/*
 * An LDAP distinguished name of plain values: RDNs TYPE=VALUE joined by
 * ',' (or '+'), TYPE a letter then letters, digits and '-', VALUE
 * letters, digits, blanks inside and '._@-': dc=example,dc=com.
 */
int		 str_is_ldap_dn(const char *s);
/* A MIG profile: a safe word starting with a digit (1g.10gb, 19). */
int		 str_is_mig_profile(const char *s);
/* A PCI vendor:device pair in hex: 10de:20b0. */
int		 str_is_pciid(const char *s);
/*
 * A name for a Unix account or group that Slurm keeps as written: a
 * lower-case letter or '_', then lower-case letters, digits, '_' and '-';
 * at most 32 (useradd's and sacctmgr's common ground).
 */
int		 str_is_account(const char *s);
/* An absolute path on a node: '/' then [A-Za-z0-9._/-], no '..' part. */
int		 str_is_node_path(const char *s);
/* A Slurm time limit: MINUTES, [DAYS-]HOURS[:MM[:SS]], UNLIMITED. */
int		 str_is_slurm_time(const char *s);
/* PSU redundancy: N, N+N, N+K or NEED+SPARE (2+2). */
int		 str_is_redundancy(const char *s);

#endif

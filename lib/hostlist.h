/*
 * hostlist.h: node name ranges as pdsh, Slurm and ClusterShell write them.
 *
 * A hostlist is a comma-separated list of patterns; commas inside brackets
 * belong to the bracket.  A pattern is literal text with bracket groups,
 * each a comma-separated list of numbers and ranges:
 *
 *	head-01,gpu[01-04,08,10-12],rack[1-2]-n[01-04],10.0.[0-1].[1-254]
 *
 * - A range is padded to the width of its lower bound's text: `[08-10]`
 *   gives 08 09 10, `[1-16]` is unpadded, `[01-100]` gives 01..99,100.
 *   A zero-padded upper bound must have the lower bound's width
 *   (`[1-010]` is refused as ambiguous).
 * - Several groups in one pattern make a cartesian product, the last
 *   group varying fastest (ClusterShell's order): rack1-n01, rack1-n02,
 *   ..., rack2-n01, ...
 * - Names come out in the order written; nothing is sorted or
 *   deduplicated (plan validation reports duplicates).
 * - Numbers are at most HOSTLIST_MAX_NUMBER.  Space around a pattern is
 *   ignored; space or control characters inside one are errors.
 *
 * Every entry point parses and checks the whole list before producing a
 * name, so an error means nothing was produced.  Errors are PROV_E_PLAN
 * with the offending text: "reversed range '5-1' in 'gpu[5-1]'".
 *
 *	struct strvec	names = STRVEC_INIT;
 *	if (hostlist_expand(&names, "gpu[01-16]", 100000, &err) != 0)
 *		...
 *
 * For large lists, hostlist_count() costs no allocation and the iterator
 * keeps memory proportional to the pattern, not to the names.
 */
#ifndef PROV_HOSTLIST_H
#define PROV_HOSTLIST_H

#include <stddef.h>

struct prov_err;
struct strvec;
struct hostlist_iter;

#define HOSTLIST_MAX_NUMBER	1000000000UL

/*
 * Append every name of `pattern_list` to `out`.  When `max` is non-zero
 * and the list holds more than `max` names, fail without generating any
 * (the count is computed first, so `[0-999999999]` costs nothing).
 */
int	 hostlist_expand(struct strvec *out, const char *pattern_list,
	    size_t max, struct prov_err *err);

/* Number of names in `pattern_list`, without allocating (on success). */
int	 hostlist_count(size_t *out, const char *pattern_list,
	    struct prov_err *err);

/*
 * Walk the names one at a time.  init checks the whole list and copies
 * it; next returns NULL at the end, and its string is valid until the next
 * call or hostlist_iter_free() (which accepts NULL).
 */
int	 hostlist_iter_init(struct hostlist_iter **out, const char *patterns,
	    struct prov_err *err);
const char *hostlist_iter_next(struct hostlist_iter *);
/* Total names of the iterator's list (hostlist_count() of it). */
size_t	 hostlist_iter_count(const struct hostlist_iter *);
void	 hostlist_iter_free(struct hostlist_iter *);

/*
 * Fold names back into a short hostlist, as `clush -b` headers do:
 * gpu01,gpu02,gpu03,gpu05 gives gpu[01-03,05]; rack1-n01..rack2-n04 gives
 * rack[1-2]-n[01-04].  Input order and duplicates do not matter.
 *
 * Names are grouped by their text outside the numbers, then ordered by
 * their numbers from the left (each by value, then by width), and
 * hostlist_expand() of the result gives them back in exactly that order.
 * Numbers of different pad widths never share a range (gpu[1,01]).
 * Digit runs above HOSTLIST_MAX_NUMBER stay literal text.  Names must not
 * contain '[', ']', ',' or space.  The result is the caller's to free; n
 * of 0 gives "".
 */
char	*hostlist_fold(const char *const *names, size_t n);

/* 1 when `s` contains a bracket group ('[' and a later ']'). */
int	 hostlist_is_pattern(const char *s);

#endif

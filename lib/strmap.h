/*
 * strmap.h: a hash map from borrowed strings to pointers.
 *
 * Keys are not copied: they must outlive the map (plan strings do).
 * Used for name lookups and uniqueness checks over plans of 100,000
 * nodes, where a linear scan per node would be quadratic.
 */
#ifndef PROV_STRMAP_H
#define PROV_STRMAP_H

#include <stddef.h>

struct strmap_slot {
	const char	*key;
	void		*val;
};

struct strmap {
	struct strmap_slot	*v;
	size_t			 n, alloc;	/* alloc: power of two */
};

#define STRMAP_INIT { NULL, 0, 0 }

/* Insert or replace; returns the previous value or NULL. */
void	*strmap_put(struct strmap *, const char *key, void *val);
/* Insert only if absent; returns the existing value, or NULL after inserting. */
void	*strmap_add(struct strmap *, const char *key, void *val);
void	*strmap_get(const struct strmap *, const char *key);
void	 strmap_clear(struct strmap *);

#endif

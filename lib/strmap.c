/*
 * strmap.c: open-addressing string hash map.  See strmap.h.
 */
#include "compat.h"

#include "strmap.h"

static size_t
strmap_hash(const char *s)
{
	uint64_t	h = 1469598103934665603ULL;

	for (; *s != '\0'; s++) {
		h ^= (unsigned char)*s;
		h *= 1099511628211ULL;
	}
	return (size_t)(h ^ (h >> 32));
}

static struct strmap_slot *
strmap_find(const struct strmap *m, const char *key)
{
	size_t	mask = m->alloc - 1, i = strmap_hash(key) & mask;

	while (m->v[i].key != NULL && strcmp(m->v[i].key, key) != 0)
		i = (i + 1) & mask;
	return &m->v[i];
}

static void
strmap_grow(struct strmap *m)
{
	struct strmap_slot	*old = m->v;
	size_t			 oldn = m->alloc, i;

	m->alloc = oldn ? oldn * 2 : 16;
	m->v = xcalloc(m->alloc, sizeof *m->v);
	for (i = 0; i < oldn; i++)
		if (old[i].key != NULL)
			*strmap_find(m, old[i].key) = old[i];
	free(old);
}

static void *
strmap_insert(struct strmap *m, const char *key, void *val, int replace)
{
	struct strmap_slot	*s;
	void			*prev;

	if ((m->n + 1) * 4 > m->alloc * 3)
		strmap_grow(m);
	s = strmap_find(m, key);
	if (s->key == NULL) {
		s->key = key;
		s->val = val;
		m->n++;
		return NULL;
	}
	prev = s->val;
	if (replace)
		s->val = val;
	return prev;
}

void *
strmap_put(struct strmap *m, const char *key, void *val)
{
	return strmap_insert(m, key, val, 1);
}

void *
strmap_add(struct strmap *m, const char *key, void *val)
{
	return strmap_insert(m, key, val, 0);
}

void *
strmap_get(const struct strmap *m, const char *key)
{
	if (m->alloc == 0)
		return NULL;
	return strmap_find(m, key)->val;
}

void
strmap_clear(struct strmap *m)
{
	free(m->v);
	m->v = NULL;
	m->n = m->alloc = 0;
}

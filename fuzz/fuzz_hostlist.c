/*
 * fuzz_hostlist.c: hostlist expansion, counting, iteration and folding.
 *
 * The input (up to its first NUL) is a hostlist.  Invariants: count,
 * expand (max 100,000 names) and the iterator agree on success, on
 * failure, on the number of names and on every name in order; a list
 * above the max fails without producing a name; and folding the names
 * (up to 2,000 of them, to keep the fuzzer fast) gives a hostlist whose
 * expansion is the same set of names, each once, and folds back to
 * itself.
 */
#include "compat.h"

#include "err.h"
#include "hostlist.h"
#include "strvec.h"

#include "fuzz.h"

#define FUZZ_HOSTLIST_MAX	100000
#define FUZZ_HOSTLIST_WALK	1000	/* names walked past the max */
#define FUZZ_HOSTLIST_FOLD	2000	/* folded and expanded again */

int	LLVMFuzzerTestOneInput(const uint8_t *, size_t);

static int
fuzz_hostlist_cmp(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* Sorted copy of the names, duplicates dropped (pointers borrowed). */
static const char **
fuzz_hostlist_set(const struct strvec *sv, size_t *n)
{
	const char	**v = xcalloc(sv->n + 1, sizeof *v);
	size_t		  i, k = 0;

	for (i = 0; i < sv->n; i++)
		v[i] = sv->v[i];
	qsort(v, sv->n, sizeof *v, fuzz_hostlist_cmp);
	for (i = 0; i < sv->n; i++)
		if (k == 0 || strcmp(v[k - 1], v[i]) != 0)
			v[k++] = v[i];
	*n = k;
	return v;
}

/* Names hostlist_fold() accepts: no '[', ']', ',' or space. */
static int
fuzz_hostlist_foldable(const struct strvec *sv)
{
	size_t	i;

	for (i = 0; i < sv->n; i++)
		if (strpbrk(sv->v[i], "[], \t\n") != NULL)
			return 0;
	return 1;
}

static void
fuzz_hostlist_fold(const struct strvec *names)
{
	struct strvec	  back = STRVEC_INIT;
	struct prov_err	  err = PROV_ERR_INIT;
	const char	**a, **b;
	size_t		  na, nb, i;
	char		 *f, *f2;

	f = hostlist_fold((const char *const *)names->v, names->n);
	FUZZ_ASSERT(f != NULL);
	if (names->n == 0) {
		FUZZ_ASSERT(*f == '\0');
		free(f);
		return;
	}
	if (hostlist_expand(&back, f, 0, &err) != 0) {
		fprintf(stderr, "fold '%s': %s\n", f, err.msg);
		FUZZ_ASSERT(!"the fold does not expand");
	}
	a = fuzz_hostlist_set(names, &na);
	b = fuzz_hostlist_set(&back, &nb);
	FUZZ_ASSERT(nb == back.n);		/* each name once */
	FUZZ_ASSERT(na == nb);
	for (i = 0; i < na; i++)
		FUZZ_ASSERT(strcmp(a[i], b[i]) == 0);
	f2 = hostlist_fold((const char *const *)back.v, back.n);
	FUZZ_ASSERT(strcmp(f, f2) == 0);
	free(f2);
	free(a);
	free(b);
	free(f);
	strvec_clear(&back);
	prov_err_release(&err);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct strvec		 names = STRVEC_INIT;
	struct prov_err		 err = PROV_ERR_INIT;
	struct hostlist_iter	*it = NULL;
	const char		*s;
	size_t			 count = 0, i;
	int			 rc, rx, ri;
	char			*in;

	if (size > 4096)
		return 0;
	in = fuzz_cstr(data, size);
	rc = hostlist_count(&count, in, &err);
	FUZZ_ASSERT(rc == 0 || err.msg != NULL);
	prov_err_release(&err);
	rx = hostlist_expand(&names, in, FUZZ_HOSTLIST_MAX, &err);
	FUZZ_ASSERT(rx == 0 || err.msg != NULL);
	prov_err_release(&err);
	ri = hostlist_iter_init(&it, in, &err);
	prov_err_release(&err);
	FUZZ_ASSERT((rc == 0) == (ri == 0));
	(void)hostlist_is_pattern(in);
	if (rc != 0 || count > FUZZ_HOSTLIST_MAX) {
		FUZZ_ASSERT(rx != 0);
		FUZZ_ASSERT(names.n == 0);
	} else {
		FUZZ_ASSERT(rx == 0);
		FUZZ_ASSERT(names.n == count);
	}
	if (ri == 0) {
		FUZZ_ASSERT(hostlist_iter_count(it) == count);
		for (i = 0; (s = hostlist_iter_next(it)) != NULL; i++) {
			if (rx == 0) {
				FUZZ_ASSERT(i < names.n);
				FUZZ_ASSERT(strcmp(s, names.v[i]) == 0);
			} else if (i >= FUZZ_HOSTLIST_WALK)
				break;
		}
		if (rx == 0)
			FUZZ_ASSERT(i == names.n);
	}
	hostlist_iter_free(it);
	if (rx == 0 && names.n <= FUZZ_HOSTLIST_FOLD &&
	    fuzz_hostlist_foldable(&names))
		fuzz_hostlist_fold(&names);
	strvec_clear(&names);
	free(in);
	return 0;
}

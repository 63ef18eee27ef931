/*
 * test.h: shared scaffolding for the Check unit tests.
 *
 * Each tests/unit/test_<module>.c builds into its own program: it defines
 * a `Suite *` function and ends with TEST_MAIN(that_function).  CK_FORK
 * and CK_VERBOSITY work as Check documents them.  PROV_SRCDIR (set by the
 * Makefile) points at the source tree for fixtures.
 */
#ifndef PROV_TEST_H
#define PROV_TEST_H

#include "compat.h"

#include <check.h>

#include "err.h"

/* Assert a lib call returned 0, printing its error otherwise (libgit2 cl_git_pass). */
#define ck_assert_ok(expr, errp)					\
	do {								\
		if ((expr) != 0) {					\
			char *m_ = prov_err_format(errp);		\
			ck_abort_msg("%s failed: %s", #expr, m_);	\
		}							\
	} while (0)

/* Path of a file under the source tree (caller frees). */
static inline char *
test_path(const char *rel)
{
	const char	*top = getenv("PROV_SRCDIR");

	return xasprintf("%s/%s", top != NULL ? top : ".", rel);
}

#define TEST_MAIN(suite_fn)						\
	int								\
	main(void)							\
	{								\
		SRunner	*sr_ = srunner_create(suite_fn());		\
		int	 nf_;						\
									\
		srunner_run_all(sr_, CK_ENV);				\
		nf_ = srunner_ntests_failed(sr_);			\
		srunner_free(sr_);					\
		return nf_ == 0 ? 0 : 1;				\
	}

#endif

/*
 * fuzz.h: helpers shared by the libFuzzer targets in fuzz/.
 *
 * Each fuzz/fuzz_NAME.c defines LLVMFuzzerTestOneInput() and links the
 * lib/ objects built with -fsanitize=fuzzer-no-link,address,undefined
 * (`make fuzz`, fuzz/run.sh).  Targets check invariants beyond "no
 * crash" with FUZZ_ASSERT(), which prints what failed and aborts, so
 * libFuzzer keeps the input as a crash.  Inputs that once crashed live in
 * fuzz/regress/NAME/ and run on every `make fuzz-regress`.
 *
 * The targets read the real catalog (profiles/) and templates
 * (templates/) of the source tree: PROV_SRCDIR names it, else it is the
 * directory above the binary's (build-fuzz/..).
 */
#ifndef PROV_FUZZ_H
#define PROV_FUZZ_H

#include <stdint.h>

#define FUZZ_ASSERT(c)							\
	do {								\
		if (!(c)) {						\
			fprintf(stderr, "fuzz: %s:%d: assertion '%s' "	\
			    "failed\n", __FILE__, __LINE__, #c);	\
			abort();					\
		}							\
	} while (0)

/* The input as a NUL-terminated string (it stops at an embedded NUL). */
static inline char *
fuzz_cstr(const uint8_t *data, size_t size)
{
	char	*s = xmalloc(size + 1);

	if (size > 0)
		memcpy(s, data, size);
	s[size] = '\0';
	return s;
}

/* "SRCDIR/rel" for a file of the source tree; the caller frees. */
static inline char *
fuzz_path(const char *rel)
{
	const char	*env = getenv("PROV_SRCDIR");
	char		 exe[PATH_MAX], *slash;
	ssize_t		 n;

	if (env != NULL && *env != '\0')
		return xasprintf("%s/%s", env, rel);
	n = readlink("/proc/self/exe", exe, sizeof exe - 1);
	if (n <= 0)
		return xstrdup(rel);
	exe[n] = '\0';
	if ((slash = strrchr(exe, '/')) != NULL)
		*slash = '\0';
	return xasprintf("%s/../%s", exe, rel);
}

#endif

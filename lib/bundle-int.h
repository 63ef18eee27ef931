/*
 * bundle-int.h: what the parts of bundle share (bundle.c lists and
 * resolves, bundle-fetch.c downloads, bundle-pack.c writes the archive,
 * bundle-verify.c checks one).  Private to lib/bundle*.c; the API is
 * bundle.h.
 */
#ifndef PROV_BUNDLE_INT_H
#define PROV_BUNDLE_INT_H

#include "bundle.h"

#define BUNDLE_OUT_MAX		(256u << 20)	/* apt output we read */

/* bundle-fetch.c */
char	*bundle_pool_path(const struct bundle_opts *o, const char *sub,
	    const char *file);
void	 bundle_item_release(struct bundle_item *it);

#endif

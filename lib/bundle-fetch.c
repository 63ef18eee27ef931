/*
 * bundle-fetch.c: download what a bundle lists into the cache (curl
 * multi), container images included.
 * See bundle-int.h, bundle.h and docs/bundle.md.
 */
#include "compat.h"

#include <fcntl.h>
#include <sys/stat.h>

#include <curl/curl.h>

#include "arc.h"
#include "bundle-int.h"
#include "fs.h"
#include "oci.h"
#include "str.h"

/* Fetching. */

struct bundle_xfer {
	struct bundle_item	*it;
	CURL			*h;
	int			 fd;
	char			*part;
	int64_t			 resume;	/* offset asked for */
	int64_t			 written;
	int			 first;
	int			 too_big;
	int			 io_err;
	int			 no_range;	/* the server ignores Range */
	struct curl_slist	*hdrs;		/* the item's auth header */
	long			 tries;
	char			 errbuf[CURL_ERROR_SIZE];
};

static size_t
bundle_write_cb(char *p, size_t sz, size_t nm, void *arg)
{
	struct bundle_xfer	*x = arg;
	size_t			 n = sz * nm;

	if (!x->first) {
		long	code = 0;

		x->first = 1;
		(void)curl_easy_getinfo(x->h, CURLINFO_RESPONSE_CODE, &code);
		if (x->resume > 0 && code == 200) {
			/* The server ignored Range: start over. */
			if (ftruncate(x->fd, 0) != 0 ||
			    lseek(x->fd, 0, SEEK_SET) != 0) {
				x->io_err = errno;
				return 0;
			}
			x->resume = 0;
		}
	}
	if (x->resume + x->written + (int64_t)n > x->it->size) {
		x->too_big = 1;
		return 0;
	}
	if (fs_write_all(x->fd, p, n) != 0) {
		x->io_err = errno;
		return 0;
	}
	x->written += (int64_t)n;
	return n;
}

char *
bundle_pool_path(const struct bundle_opts *o, const char *sub,
    const char *file)
{
	return xasprintf("%s/%s/%s", o->cache, sub, file);
}

/* Is the cached copy good?  1 yes, 0 no (removed if present and bad). */
static int
bundle_cached(const struct bundle_opts *o, const struct bundle_item *it)
{
	char		*path = bundle_pool_path(o, "pool", it->filename);
	char		 hex[ARC_SHA256_HEX];
	int64_t		 size;
	struct prov_err	 e = PROV_ERR_INIT;
	int		 ok = 0;

	if (access(path, F_OK) == 0) {
		if (arc_sha256_file(hex, &size, path, &e) == 0 &&
		    size == it->size && strcmp(hex, it->sha256) == 0)
			ok = 1;
		else
			(void)unlink(path);
	}
	prov_err_release(&e);
	free(path);
	return ok;
}

/*
 * Check a finished partial file and move it into the pool.  0: done;
 * -1: it is wrong (deleted), *why says how.
 */
static int
bundle_settle(const struct bundle_opts *o, const struct bundle_item *it,
    const char *part, char **why)
{
	char		*pool = bundle_pool_path(o, "pool", it->filename);
	char		 hex[ARC_SHA256_HEX];
	int64_t		 size = -1;
	struct prov_err	 e = PROV_ERR_INIT;
	int		 r = -1;

	if (arc_sha256_file(hex, &size, part, &e) != 0) {
		*why = xstrdup(e.msg);
		goto out;
	}
	if (size != it->size) {
		*why = xasprintf("%lld bytes, the index says %lld: deleted, "
		    "not packed", (long long)size, (long long)it->size);
		(void)unlink(part);
		goto out;
	}
	if (strcmp(hex, it->sha256) != 0) {
		*why = xasprintf("checksum mismatch: SHA-256 %s, the index "
		    "says %s: deleted, not packed", hex, it->sha256);
		(void)unlink(part);
		goto out;
	}
	if (rename(part, pool) != 0) {
		*why = xasprintf("cannot move into the cache: %s",
		    strerror(errno));
		goto out;
	}
	r = 0;
out:
	prov_err_release(&e);
	free(pool);
	return r;
}

static void
bundle_xfer_free(struct bundle_xfer *x)
{
	if (x == NULL)
		return;
	if (x->h != NULL)
		curl_easy_cleanup(x->h);
	curl_slist_free_all(x->hdrs);
	if (x->fd >= 0)
		close(x->fd);
	free(x->part);
	free(x);
}

/*
 * Start (or resume) a transfer.  0: started; 1: nothing to fetch, the
 * partial file is already whole (settle it); -1: *why.
 */
static int
bundle_xfer_start(CURLM *m, struct bundle_xfer *x,
    const struct bundle_opts *o, char **why)
{
	struct stat	 st;
	char		*url = NULL;

	x->first = x->too_big = x->io_err = 0;
	x->written = 0;
	x->errbuf[0] = '\0';
	if (x->fd < 0 && (x->fd = open(x->part, O_RDWR | O_CREAT | O_NOFOLLOW |
	    O_CLOEXEC, 0644)) < 0) {
		*why = xasprintf("cannot open '%s': %s", x->part,
		    strerror(errno));
		return -1;
	}
	if (fstat(x->fd, &st) != 0) {
		*why = xasprintf("cannot stat '%s': %s", x->part,
		    strerror(errno));
		return -1;
	}
	if ((int64_t)st.st_size > x->it->size ||
	    (x->no_range && st.st_size > 0)) {
		if (ftruncate(x->fd, 0) != 0) {
			*why = xasprintf("cannot truncate '%s'", x->part);
			return -1;
		}
		st.st_size = 0;
	}
	if ((int64_t)st.st_size == x->it->size && x->it->size > 0)
		return 1;
	if (lseek(x->fd, st.st_size, SEEK_SET) < 0) {
		*why = xasprintf("cannot seek '%s'", x->part);
		return -1;
	}
	x->resume = (int64_t)st.st_size;
	/* apt writes local repositories as file:/path. */
	if (str_starts(x->it->url, "file:/") &&
	    !str_starts(x->it->url, "file://"))
		url = xasprintf("file://%s", x->it->url + 5);
	else
		url = xstrdup(x->it->url);
	if (x->h == NULL && (x->h = curl_easy_init()) == NULL) {
		free(url);
		*why = xstrdup("cannot start libcurl");
		return -1;
	}
	curl_easy_reset(x->h);
	curl_easy_setopt(x->h, CURLOPT_URL, url);
	curl_easy_setopt(x->h, CURLOPT_PROTOCOLS_STR, "http,https,ftp,file");
	curl_easy_setopt(x->h, CURLOPT_REDIR_PROTOCOLS_STR, "http,https,ftp");
	curl_easy_setopt(x->h, CURLOPT_FOLLOWLOCATION, 1L);
	curl_easy_setopt(x->h, CURLOPT_MAXREDIRS, 5L);
	curl_easy_setopt(x->h, CURLOPT_FAILONERROR, 1L);
	curl_easy_setopt(x->h, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(x->h, CURLOPT_CONNECTTIMEOUT, 30L);
	curl_easy_setopt(x->h, CURLOPT_LOW_SPEED_LIMIT, 1L);
	curl_easy_setopt(x->h, CURLOPT_LOW_SPEED_TIME,
	    o->timeout_s > 0 ? o->timeout_s : 60L);
	curl_easy_setopt(x->h, CURLOPT_USERAGENT, "provision-bundle");
	curl_easy_setopt(x->h, CURLOPT_ERRORBUFFER, x->errbuf);
	curl_easy_setopt(x->h, CURLOPT_WRITEFUNCTION, bundle_write_cb);
	curl_easy_setopt(x->h, CURLOPT_WRITEDATA, x);
	curl_easy_setopt(x->h, CURLOPT_PRIVATE, x);
	if (x->resume > 0)
		curl_easy_setopt(x->h, CURLOPT_RESUME_FROM_LARGE,
		    (curl_off_t)x->resume);
	if (x->it->auth != NULL && x->hdrs == NULL &&
	    (x->hdrs = curl_slist_append(NULL, x->it->auth)) == NULL) {
		free(url);
		*why = xstrdup("cannot start the transfer");
		return -1;
	}
	/* libcurl sends it to this host only, never after a redirect */
	if (x->hdrs != NULL)
		curl_easy_setopt(x->h, CURLOPT_HTTPHEADER, x->hdrs);
	free(url);
	if (curl_multi_add_handle(m, x->h) != CURLM_OK) {
		*why = xstrdup("cannot start the transfer");
		return -1;
	}
	return 0;
}

/* Images. */

void
bundle_item_release(struct bundle_item *it)
{
	free(it->name);
	free(it->version);
	free(it->arch);
	free(it->filename);
	free(it->url);
	free(it->sha256);
	freezero_str(it->auth);
}

/* The cache and its pool/ and partial/, for images and packages alike. */
static int
bundle_cache_dirs(const struct bundle_opts *o, struct prov_err *err)
{
	static const char *const sub[] = { "", "/pool", "/partial" };
	char	*d;
	size_t	 i;
	int	 r = 0;

	if (o->cache == NULL)
		return prov_err_set(err, PROV_E_USAGE, "no cache directory");
	/* What lands in pool/ gets packed: nobody else may write there. */
	for (i = 0; i < ARRAY_SIZE(sub) && r == 0; i++) {
		d = xasprintf("%s%s", o->cache, sub[i]);
		r = fs_mkdirs(d, 0700, err);
		free(d);
	}
	return r;
}

/* Keep a resolved image: its manifest into the pool, its blobs queued. */
static int
bundle_image_add(struct bundle *b, const struct oci_image *img,
    const struct bundle_opts *o, struct prov_err *err)
{
	struct bundle_image	*bi;
	char			*file = xasprintf("sha256-%s", img->digest + 7);
	char			*path = bundle_pool_path(o, "pool", file);
	size_t			 i, k;
	int			 r = -1;

	if (buf_write_file_atomic(path, img->manifest.buf, img->manifest.len,
	    0644) != 0) {
		prov_err_sys(err, "cannot write '%s'", path);
		goto out;
	}
	ALLOC_GROW(b->imgs, b->nimgs + 1, b->aimgs);
	bi = &b->imgs[b->nimgs++];
	memset(bi, 0, sizeof *bi);
	bi->ref = xstrdup(img->ref);
	bi->digest = xstrdup(img->digest);
	bi->media_type = xstrdup(img->media_type);
	bi->platform = xstrdup(img->platform);
	bi->size = (int64_t)img->manifest.len;
	bi->first = b->image_blobs.n;
	bi->n = img->n;
	for (i = 0; i < img->n; i++) {
		const struct oci_blob	*ob = &img->blobs[i];
		struct bundle_item	*it;

		strvec_push(&b->image_blobs, ob->digest + 7);
		for (k = 0; k < b->nblobs; k++)
			if (strcmp(b->blobs[k].sha256, ob->digest + 7) == 0)
				break;
		if (k < b->nblobs)
			continue;
		ALLOC_GROW(b->blobs, b->nblobs + 1, b->ablobs);
		it = &b->blobs[b->nblobs++];
		memset(it, 0, sizeof *it);
		it->name = xstrdup(img->ref);
		it->version = xstrdup(ob->digest);
		it->arch = xstrdup("oci");
		it->filename = xasprintf("sha256-%s", ob->digest + 7);
		it->url = xstrdup(ob->url);
		it->sha256 = xstrdup(ob->digest + 7);
		it->size = ob->size;
		it->blob = 1;
		it->auth = img->auth != NULL ? xstrdup(img->auth) : NULL;
	}
	r = 0;
out:
	free(path);
	free(file);
	return r;
}

int
bundle_images(struct bundle *b, const struct bundle_opts *o,
    bundle_event_fn fn, void *arg, struct prov_err *err)
{
	struct oci_opts	oo = OCI_OPTS_INIT;
	struct buf	failed = BUF_INIT;
	size_t		i, nfailed = 0;
	int		r = -1;

	if (bundle_cache_dirs(o, err) != 0)
		return -1;
	oo.mirrors = o->registry_mirrors;
	oo.timeout_s = o->timeout_s;
	for (i = 0; i < b->images.n; i++) {
		const char		*ref = b->images.v[i];
		struct oci_image	 img = OCI_IMAGE_INIT;
		struct prov_err		 e = PROV_ERR_INIT;
		struct bundle_item	 ev;

		memset(&ev, 0, sizeof ev);
		ev.name = (char *)ref;
		ev.filename = (char *)ref;
		ev.blob = 1;
		if (oci_resolve(&img, ref, b->arch, &oo, &e) == 0 &&
		    bundle_image_add(b, &img, o, &e) == 0) {
			ev.version = img.digest;
			if (fn != NULL)
				fn(arg, BUNDLE_EV_IMAGE, &ev, img.platform);
		} else if (o->allow_missing) {
			strvec_push(&b->images_not_fetched, ref);
			if (fn != NULL)
				fn(arg, BUNDLE_EV_IMAGE_SKIPPED, &ev, e.msg);
		} else {
			buf_addf(&failed, "%s%s", nfailed ? ", " : "", ref);
			nfailed++;
			if (fn != NULL)
				fn(arg, BUNDLE_EV_FAILED, &ev, e.msg);
		}
		oci_image_release(&img);
		prov_err_release(&e);
	}
	b->images_done = 1;
	if (nfailed > 0) {
		prov_err_setloc(err, PROV_E_HTTP, NULL, "--allow-missing "
		    "lists them as not fetched; --no-images skips images",
		    "%zu image%s could not be fetched: %s", nfailed,
		    nfailed == 1 ? "" : "s", failed.buf);
		goto out;
	}
	r = 0;
out:
	buf_release(&failed);
	return r;
}

/*
 * One bundle_fetch(): the transfers, a ring of those waiting for a slot
 * (new ones, then retries: pend[ph], np of them), and the counts.
 */
struct bundle_fetcher {
	const struct bundle_opts *o;
	bundle_event_fn		  fn;
	void			 *arg;
	CURLM			 *m;
	struct bundle_xfer	**queue, **pend;
	size_t			  nq, ph, np, failed;
	long			  jobs, retries;
	int			  active;
};

static void
bundle_fetcher_event(struct bundle_fetcher *f, enum bundle_event ev,
    struct bundle_item *it, const char *why)
{
	if (f->fn != NULL)
		f->fn(f->arg, ev, it, why);
}

/* A transfer that is over: failed, with why (freed here). */
static void
bundle_fetcher_failed(struct bundle_fetcher *f, struct bundle_xfer *x,
    char *why)
{
	f->failed++;
	bundle_fetcher_event(f, BUNDLE_EV_FAILED, x->it, why);
	free(why);
}

/* A transfer whose body is all there: checked and moved into the pool. */
static void
bundle_fetcher_settle(struct bundle_fetcher *f, struct bundle_xfer *x)
{
	char	*why = NULL;

	close(x->fd);
	x->fd = -1;
	if (bundle_settle(f->o, x->it, x->part, &why) == 0)
		bundle_fetcher_event(f, BUNDLE_EV_FETCHED, x->it, NULL);
	else
		bundle_fetcher_failed(f, x, why);
}

/* Every item not in the cache yet, as a transfer. */
static void
bundle_fetcher_queue(struct bundle_fetcher *f, struct bundle *b)
{
	size_t	i;

	f->queue = xcalloc(b->n + b->nblobs + 1, sizeof *f->queue);
	for (i = 0; i < b->n + b->nblobs; i++) {
		struct bundle_item	*it = i < b->n ? &b->items[i] :
					    &b->blobs[i - b->n];
		struct bundle_xfer	*x;

		if (bundle_cached(f->o, it)) {
			bundle_fetcher_event(f, BUNDLE_EV_CACHED, it, NULL);
			continue;
		}
		x = xcalloc(1, sizeof *x);
		x->it = it;
		x->fd = -1;
		x->part = bundle_pool_path(f->o, "partial", x->it->filename);
		f->queue[f->nq++] = x;
	}
	f->pend = xcalloc(f->nq + 1, sizeof *f->pend);
	for (i = 0; i < f->nq; i++)
		f->pend[i] = f->queue[i];
	f->np = f->nq;
}

/* Fill the free slots from the ring. */
static void
bundle_fetcher_fill(struct bundle_fetcher *f)
{
	char	*why = NULL;

	while (f->active < f->jobs && f->np > 0) {
		struct bundle_xfer	*x = f->pend[f->ph];
		int			 st;

		f->ph = (f->ph + 1) % f->nq;
		f->np--;
		st = bundle_xfer_start(f->m, x, f->o, &why);
		if (st == 0)
			f->active++;
		else if (st == 1)
			bundle_fetcher_settle(f, x);	/* whole already */
		else
			bundle_fetcher_failed(f, x, why);
		why = NULL;
	}
}

/*
 * Why a transfer that libcurl finished without the file failed, and
 * whether to try again (*retry).
 */
static char *
bundle_fetcher_why(struct bundle_fetcher *f, struct bundle_xfer *x,
    CURLcode rc, long code, int *retry)
{
	*retry = 0;
	if (x->too_big) {
		(void)unlink(x->part);
		return xasprintf("larger than the %lld bytes the index says: "
		    "deleted, not packed", (long long)x->it->size);
	}
	if (x->io_err != 0)
		return xasprintf("cannot write '%s': %s", x->part,
		    strerror(x->io_err));
	/* Our partial file is not a prefix. */
	if (code == 416)
		(void)ftruncate(x->fd, 0);
	*retry = rc != CURLE_HTTP_RETURNED_ERROR || code >= 500 ||
	    code == 416 || code == 408 || code == 429;
	if (rc == CURLE_RANGE_ERROR) {
		/* From now on, whole files only. */
		x->no_range = 1;
		if (x->tries == f->retries)
			x->tries--;
		return xstrdup("the server ignores Range: downloading the "
		    "whole file again");
	}
	return xstrdup(x->errbuf[0] ? x->errbuf : curl_easy_strerror(rc));
}

/* A transfer libcurl says is over: settled, retried or failed. */
static void
bundle_fetcher_done(struct bundle_fetcher *f, CURLMsg *msg)
{
	struct bundle_xfer	*x = NULL;
	CURLcode		 rc = msg->data.result;
	long			 code = 0;
	int			 retry;
	char			*why;

	curl_easy_getinfo(msg->easy_handle, CURLINFO_PRIVATE, (char **)&x);
	curl_easy_getinfo(x->h, CURLINFO_RESPONSE_CODE, &code);
	curl_multi_remove_handle(f->m, x->h);
	f->active--;
	if (rc == CURLE_OK) {
		bundle_fetcher_settle(f, x);
		return;
	}
	why = bundle_fetcher_why(f, x, rc, code, &retry);
	if (retry && x->tries < f->retries) {
		x->tries++;
		bundle_fetcher_event(f, BUNDLE_EV_RETRY, x->it, why);
		free(why);
		/* Back on the ring, resumed from its length. */
		f->pend[(f->ph + f->np++) % f->nq] = x;
		return;
	}
	bundle_fetcher_failed(f, x, why);
}

int
bundle_fetch(struct bundle *b, const struct bundle_opts *o,
    bundle_event_fn fn, void *arg, struct prov_err *err)
{
	struct bundle_fetcher	 f;
	CURLMsg			*msg;
	size_t			 i;
	int			 running, left, r = -1, global = 0;

	if (bundle_cache_dirs(o, err) != 0)
		return -1;
	memset(&f, 0, sizeof f);
	f.o = o;
	f.fn = fn;
	f.arg = arg;
	f.jobs = o->jobs > 0 ? o->jobs : 8;
	f.retries = o->retries >= 0 ? o->retries : 3;
	bundle_fetcher_queue(&f, b);
	if (f.nq == 0) {
		r = 0;
		goto out;
	}
	if (curl_global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK) {
		prov_err_set(err, PROV_E_HTTP, "cannot start libcurl");
		goto out;
	}
	global = 1;
	if ((f.m = curl_multi_init()) == NULL) {
		prov_err_set(err, PROV_E_HTTP, "cannot start libcurl");
		goto out;
	}
	for (;;) {
		bundle_fetcher_fill(&f);
		if (f.active == 0)
			break;
		if (curl_multi_perform(f.m, &running) != CURLM_OK) {
			prov_err_set(err, PROV_E_HTTP, "libcurl multi failed");
			goto out;
		}
		while ((msg = curl_multi_info_read(f.m, &left)) != NULL)
			if (msg->msg == CURLMSG_DONE)
				bundle_fetcher_done(&f, msg);
		if (f.active > 0 && curl_multi_poll(f.m, NULL, 0, 1000,
		    NULL) != CURLM_OK) {
			prov_err_set(err, PROV_E_HTTP, "libcurl multi failed");
			goto out;
		}
	}
	if (f.failed > 0) {
		prov_err_set(err, PROV_E_HTTP, "%zu of %zu downloads failed",
		    f.failed, b->n + b->nblobs);
		goto out;
	}
	r = 0;
out:
	for (i = 0; i < f.nq; i++) {
		if (f.m != NULL && f.queue[i]->h != NULL)
			curl_multi_remove_handle(f.m, f.queue[i]->h);
		bundle_xfer_free(f.queue[i]);
	}
	if (f.m != NULL)
		curl_multi_cleanup(f.m);
	if (global)
		curl_global_cleanup();
	free(f.queue);
	free(f.pend);
	return r;
}

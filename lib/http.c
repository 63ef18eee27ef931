/*
 * http.c: the request loop over libcurl's multi interface.  See http.h.
 *
 * Requests wait in `queue` until they are due (delay_ms, retry backoff)
 * and there is room (max_active in all, max_per_group per server); then
 * each gets a fresh easy handle, added to the one multi handle whose
 * connection cache and shared TLS sessions let the next request to the
 * same server reuse the connection.  The queue is ours rather than
 * libcurl's so that a request's timeout counts from when it really
 * starts, not from when it was queued behind a thousand others.
 *
 * libcurl errors become a `struct prov_err` here and nowhere else: the
 * error buffer when libcurl filled it, else curl_easy_strerror().
 */
#include "compat.h"

#include <time.h>

#include <curl/curl.h>
#include <openssl/evp.h>

#include "buf.h"
#include "http.h"

struct http_priv {
	CURL			*easy;
	struct curl_slist	*slist;
	char			 errbuf[CURL_ERROR_SIZE];
	long long		 due;		/* ms; may start at or after */
	long long		 first;		/* ms of the first attempt */
	int			 toobig;
	size_t			 max_body;
};

struct http {
	struct http_opts	  o;
	CURLM			 *multi;
	CURLSH			 *share;
	struct http_req		**queue;
	size_t			  nqueue, aqueue;
	struct http_req		**active;
	size_t			  nactive, aactive;
};

long long
http_now_ms(void)
{
	struct timespec	ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void
http_strvec_wipe(struct strvec *sv)
{
	size_t	i;

	for (i = 0; i < sv->n; i++)
		explicit_bzero(sv->v[i], strlen(sv->v[i]));
	strvec_clear(sv);
}

static void
http_slist_wipe(struct curl_slist *l)
{
	struct curl_slist	*p;

	for (p = l; p != NULL; p = p->next)
		if (p->data != NULL)
			explicit_bzero(p->data, strlen(p->data));
	curl_slist_free_all(l);
}

struct http *
http_new(const struct http_opts *o)
{
	struct http	*h;

	curl_global_init(CURL_GLOBAL_DEFAULT);
	h = xcalloc(1, sizeof *h);
	h->o = *o;
	if (h->o.max_active == 0)
		h->o.max_active = 128;
	h->multi = curl_multi_init();
	h->share = curl_share_init();
	if (h->multi == NULL || h->share == NULL)
		abort();	/* only out of memory */
	curl_share_setopt(h->share, CURLSHOPT_SHARE,
	    CURL_LOCK_DATA_SSL_SESSION);
	curl_share_setopt(h->share, CURLSHOPT_SHARE, CURL_LOCK_DATA_DNS);
	curl_multi_setopt(h->multi, CURLMOPT_MAXCONNECTS,
	    (long)h->o.max_active + 16);
	return h;
}

void
http_free(struct http *h)
{
	size_t	i;

	if (h == NULL)
		return;
	for (i = 0; i < h->nactive; i++) {
		curl_multi_remove_handle(h->multi, h->active[i]->priv->easy);
		http_req_free(h->active[i]);
	}
	for (i = 0; i < h->nqueue; i++)
		http_req_free(h->queue[i]);
	free(h->active);
	free(h->queue);
	curl_multi_cleanup(h->multi);
	curl_share_cleanup(h->share);
	free(h);
	curl_global_cleanup();
}

struct http_req *
http_req_new(const char *method, const char *url)
{
	struct http_req	*r;

	r = xcalloc(1, sizeof *r);
	r->method = xstrdup(method);
	r->url = xstrdup(url);
	r->headers = (struct strvec)STRVEC_INIT;
	r->body = (struct buf)BUF_INIT;
	r->resp = (struct buf)BUF_INIT;
	r->resp_headers = (struct strvec)STRVEC_INIT;
	r->err = (struct prov_err)PROV_ERR_INIT;
	r->idempotent = -1;
	r->priv = xcalloc(1, sizeof *r->priv);
	return r;
}

void
http_req_free(struct http_req *r)
{
	if (r == NULL)
		return;
	if (r->priv->easy != NULL)
		curl_easy_cleanup(r->priv->easy);
	http_slist_wipe(r->priv->slist);
	http_strvec_wipe(&r->headers);
	http_strvec_wipe(&r->resp_headers);
	buf_release_secret(&r->body);
	buf_release_secret(&r->resp);
	prov_err_release(&r->err);
	free(r->method);
	free(r->url);
	free(r->priv);
	free(r);
}

void
http_req_header(struct http_req *r, const char *line)
{
	strvec_push(&r->headers, line);
}

void
http_req_headerf(struct http_req *r, const char *fmt, ...)
{
	struct buf	b = BUF_INIT;
	va_list		ap;

	va_start(ap, fmt);
	buf_vaddf(&b, fmt, ap);
	va_end(ap);
	strvec_push(&r->headers, b.buf);
	buf_release(&b);
}

void
http_req_basic_auth(struct http_req *r, const char *user, const char *pw)
{
	struct buf	 plain = BUF_INIT, line = BUF_INIT;
	unsigned char	*enc;
	size_t		 cap;

	/*
	 * Sized up front and never formatted: a buf that grows, or printf's
	 * scratch space, would leave copies of the password behind.
	 */
	buf_grow(&plain, strlen(user) + strlen(pw) + 2);
	buf_adds(&plain, user);
	buf_addch(&plain, ':');
	buf_adds(&plain, pw);
	cap = 4 * ((plain.len + 2) / 3) + 1;
	buf_grow(&line, cap + 32);
	enc = xmalloc(cap);
	EVP_EncodeBlock(enc, (const unsigned char *)plain.buf, (int)plain.len);
	buf_adds(&line, "Authorization: Basic ");
	buf_adds(&line, (const char *)enc);
	strvec_push(&r->headers, line.buf);
	explicit_bzero(enc, cap);
	free(enc);
	buf_release_secret(&plain);
	buf_release_secret(&line);
}

const char *
http_resp_header(const struct http_req *r, const char *name)
{
	size_t	i, n = strlen(name);

	for (i = 0; i < r->resp_headers.n; i++) {
		const char	*h = r->resp_headers.v[i];

		if (strncasecmp(h, name, n) == 0 && h[n] == ':') {
			h += n + 1;
			while (*h == ' ' || *h == '\t')
				h++;
			return h;
		}
	}
	return NULL;
}

void
http_add(struct http *h, struct http_req *r)
{
	r->priv->due = http_now_ms() + (r->delay_ms > 0 ? r->delay_ms : 0);
	ALLOC_GROW(h->queue, h->nqueue + 1, h->aqueue);
	h->queue[h->nqueue++] = r;
}

static size_t
http_write_cb(char *data, size_t size, size_t nmemb, void *arg)
{
	struct http_req	*r = arg;
	size_t		 n = size * nmemb;

	if (r->resp.len + n > r->priv->max_body) {
		r->priv->toobig = 1;
		return 0;	/* libcurl stops with CURLE_WRITE_ERROR */
	}
	buf_add(&r->resp, data, n);
	return n;
}

static size_t
http_header_cb(char *data, size_t size, size_t nmemb, void *arg)
{
	struct http_req	*r = arg;
	size_t		 n = size * nmemb, len = n;
	char		*line;

	while (len > 0 && (data[len - 1] == '\n' || data[len - 1] == '\r'))
		len--;
	if (len >= 5 && strncmp(data, "HTTP/", 5) == 0) {
		/* A new answer (after 100 Continue): keep only the last. */
		http_strvec_wipe(&r->resp_headers);
		return n;
	}
	if (len == 0)
		return n;
	line = xstrndup(data, len);
	strvec_push_nodup(&r->resp_headers, line);
	return n;
}

static int
http_is_idempotent(const struct http_req *r)
{
	if (r->idempotent >= 0)
		return r->idempotent;
	return strcmp(r->method, "GET") == 0 ||
	    strcmp(r->method, "HEAD") == 0 ||
	    strcmp(r->method, "PUT") == 0 || strcmp(r->method, "DELETE") == 0 ||
	    strcmp(r->method, "OPTIONS") == 0;
}

/* Set up a fresh easy handle for one attempt; curl code on failure. */
static CURLcode
http_setup(struct http *h, struct http_req *r)
{
	struct http_priv	*p = r->priv;
	CURL			*e;
	CURLcode		 c = CURLE_OK;
	size_t			 i;

	p->easy = e = curl_easy_init();
	if (e == NULL)
		return CURLE_OUT_OF_MEMORY;
	p->errbuf[0] = '\0';
	p->toobig = 0;
	p->max_body = h->o.max_body ? h->o.max_body : (size_t)4 << 20;
	buf_release_secret(&r->resp);
	http_strvec_wipe(&r->resp_headers);
	for (i = 0; i < r->headers.n; i++) {
		struct curl_slist	*l = curl_slist_append(p->slist,
		    r->headers.v[i]);

		if (l == NULL)
			return CURLE_OUT_OF_MEMORY;
		p->slist = l;
	}
	if (r->body.len > 0 || strcmp(r->method, "POST") == 0) {
		/* Bodies beyond 1 KiB would wait for 100 Continue otherwise. */
		struct curl_slist *l = curl_slist_append(p->slist, "Expect:");

		if (l == NULL)
			return CURLE_OUT_OF_MEMORY;
		p->slist = l;
	}
#define SET(opt, val) do {						\
		if (c == CURLE_OK)					\
			c = curl_easy_setopt(e, opt, val);		\
	} while (0)
	SET(CURLOPT_URL, r->url);
	SET(CURLOPT_PRIVATE, (void *)r);
	SET(CURLOPT_ERRORBUFFER, p->errbuf);
	SET(CURLOPT_NOSIGNAL, 1L);
	SET(CURLOPT_PROTOCOLS_STR, "http,https");
	SET(CURLOPT_FOLLOWLOCATION, 0L);
	SET(CURLOPT_SHARE, h->share);
	SET(CURLOPT_USERAGENT, h->o.user_agent ? h->o.user_agent : "provision");
	SET(CURLOPT_CONNECTTIMEOUT_MS, h->o.connect_timeout_ms);
	SET(CURLOPT_TIMEOUT_MS, r->timeout_ms > 0 ? r->timeout_ms :
	    h->o.timeout_ms);
	SET(CURLOPT_TCP_KEEPALIVE, 1L);
	SET(CURLOPT_ACCEPT_ENCODING, "");
	SET(CURLOPT_WRITEFUNCTION, http_write_cb);
	SET(CURLOPT_WRITEDATA, (void *)r);
	SET(CURLOPT_HEADERFUNCTION, http_header_cb);
	SET(CURLOPT_HEADERDATA, (void *)r);
	SET(CURLOPT_HTTPHEADER, p->slist);
	if (!h->o.use_proxy)
		SET(CURLOPT_PROXY, "");
	if (r->insecure) {
		SET(CURLOPT_SSL_VERIFYPEER, 0L);
		SET(CURLOPT_SSL_VERIFYHOST, 0L);
	} else {
		SET(CURLOPT_SSL_VERIFYPEER, 1L);
		SET(CURLOPT_SSL_VERIFYHOST, 2L);
		if (r->ca_file != NULL)
			SET(CURLOPT_CAINFO, r->ca_file);
	}
	if (strcmp(r->method, "GET") == 0)
		SET(CURLOPT_HTTPGET, 1L);
	else if (strcmp(r->method, "HEAD") == 0)
		SET(CURLOPT_NOBODY, 1L);
	else {
		if (r->body.len > 0 || strcmp(r->method, "POST") == 0) {
			SET(CURLOPT_POSTFIELDS, r->body.buf);
			SET(CURLOPT_POSTFIELDSIZE_LARGE,
			    (curl_off_t)r->body.len);
		}
		if (strcmp(r->method, "POST") != 0)
			SET(CURLOPT_CUSTOMREQUEST, r->method);
	}
#undef SET
	return c;
}

static enum http_fail
http_classify(CURLcode c, int toobig)
{
	if (toobig)
		return HTTP_FAIL_TOOBIG;
	switch (c) {
	case CURLE_COULDNT_CONNECT:
	case CURLE_COULDNT_RESOLVE_HOST:
	case CURLE_COULDNT_RESOLVE_PROXY:
		return HTTP_FAIL_CONNECT;
	case CURLE_PEER_FAILED_VERIFICATION:
	case CURLE_SSL_CACERT_BADFILE:
	case CURLE_SSL_ISSUER_ERROR:
	case CURLE_SSL_PINNEDPUBKEYNOTMATCH:
		return HTTP_FAIL_TLS_VERIFY;
	case CURLE_SSL_CONNECT_ERROR:
	case CURLE_SSL_CERTPROBLEM:
	case CURLE_SSL_CIPHER:
	case CURLE_SSL_ENGINE_NOTFOUND:
	case CURLE_SSL_ENGINE_SETFAILED:
	case CURLE_SSL_ENGINE_INITFAILED:
	case CURLE_SSL_CRL_BADFILE:
	case CURLE_SSL_SHUTDOWN_FAILED:
		return HTTP_FAIL_TLS;
	case CURLE_OPERATION_TIMEDOUT:
		return HTTP_FAIL_TIMEOUT;
	case CURLE_GOT_NOTHING:
	case CURLE_RECV_ERROR:
	case CURLE_SEND_ERROR:
	case CURLE_PARTIAL_FILE:
	case CURLE_HTTP2:
	case CURLE_HTTP2_STREAM:
		return HTTP_FAIL_DROPPED;
	default:
		return HTTP_FAIL_OTHER;
	}
}

/* May this failure be tried again?  Only when the server saw nothing, or
 * when doing it twice is harmless. */
static int
http_retryable(const struct http_req *r, CURLcode c, enum http_fail f)
{
	if (c == CURLE_COULDNT_CONNECT || c == CURLE_SSL_CONNECT_ERROR)
		return 1;
	return f == HTTP_FAIL_DROPPED && http_is_idempotent(r);
}

static void
http_done(struct http *h, struct http_req *r)
{
	r->ms = (long)(http_now_ms() - r->priv->first);
	if (r->done != NULL)
		r->done(r, r->arg);
	http_req_free(r);
}

static void
http_fail(struct http *h, struct http_req *r, CURLcode c)
{
	struct http_priv	*p = r->priv;
	enum http_fail		 f = http_classify(c, p->toobig);
	const char		*why;
	size_t			 len;
	long			 backoff;

	if (r->tries <= h->o.retries && http_retryable(r, c, f)) {
		backoff = h->o.retry_ms > 0 ? h->o.retry_ms : 500;
		backoff <<= (r->tries - 1 < 10 ? r->tries - 1 : 10);
		p->due = http_now_ms() + backoff;
		ALLOC_GROW(h->queue, h->nqueue + 1, h->aqueue);
		h->queue[h->nqueue++] = r;
		return;
	}
	len = strlen(p->errbuf);
	while (len > 0 && (p->errbuf[len - 1] == '\n' ||
	    p->errbuf[len - 1] == '.'))
		p->errbuf[--len] = '\0';
	why = len > 0 ? p->errbuf : curl_easy_strerror(c);
	r->status = 0;
	r->fail = f;
	if (f == HTTP_FAIL_TOOBIG)
		prov_err_set(&r->err, PROV_E_HTTP, "%s %s: answer larger than "
		    "%zu bytes", r->method, r->url, p->max_body);
	else if (r->tries > 1)
		prov_err_set(&r->err, f == HTTP_FAIL_TIMEOUT ? PROV_E_TIMEOUT :
		    PROV_E_HTTP, "%s %s: %s (%d tries)", r->method, r->url,
		    why, r->tries);
	else
		prov_err_set(&r->err, f == HTTP_FAIL_TIMEOUT ? PROV_E_TIMEOUT :
		    PROV_E_HTTP, "%s %s: %s", r->method, r->url, why);
	http_done(h, r);
}

static void
http_start(struct http *h, struct http_req *r)
{
	CURLcode	c;
	CURLMcode	mc;

	if (r->tries == 0)
		r->priv->first = http_now_ms();
	r->tries++;
	if (r->priv->easy != NULL) {
		curl_easy_cleanup(r->priv->easy);
		r->priv->easy = NULL;
	}
	http_slist_wipe(r->priv->slist);
	r->priv->slist = NULL;
	c = http_setup(h, r);
	if (c != CURLE_OK) {
		http_fail(h, r, c);
		return;
	}
	mc = curl_multi_add_handle(h->multi, r->priv->easy);
	if (mc != CURLM_OK) {
		snprintf(r->priv->errbuf, sizeof r->priv->errbuf, "%s",
		    curl_multi_strerror(mc));
		http_fail(h, r, CURLE_FAILED_INIT);
		return;
	}
	ALLOC_GROW(h->active, h->nactive + 1, h->aactive);
	h->active[h->nactive++] = r;
}

static void
http_finish(struct http *h, struct http_req *r, CURLcode c)
{
	long	code = 0;

	curl_easy_getinfo(r->priv->easy, CURLINFO_RESPONSE_CODE, &code);
	curl_easy_cleanup(r->priv->easy);
	r->priv->easy = NULL;
	http_slist_wipe(r->priv->slist);
	r->priv->slist = NULL;
	if (c != CURLE_OK) {
		http_fail(h, r, c);
		return;
	}
	r->status = code;
	r->fail = HTTP_FAIL_NONE;
	http_done(h, r);
}

static size_t
http_group_active(const struct http *h, const void *g)
{
	size_t	i, n = 0;

	for (i = 0; i < h->nactive; i++)
		if (h->active[i]->group == g)
			n++;
	return n;
}

/* Start what is due and fits; the ms until the next queued one is due. */
static long
http_start_due(struct http *h)
{
	long long	now = http_now_ms(), next = -1;
	size_t		i = 0;

	while (i < h->nqueue) {
		struct http_req	*r = h->queue[i];

		if (r->priv->due > now) {
			if (next < 0 || r->priv->due < next)
				next = r->priv->due;
			i++;
			continue;
		}
		if (h->nactive >= h->o.max_active || (r->group != NULL &&
		    h->o.max_per_group > 0 &&
		    http_group_active(h, r->group) >= h->o.max_per_group)) {
			i++;
			continue;
		}
		memmove(&h->queue[i], &h->queue[i + 1],
		    (h->nqueue - i - 1) * sizeof *h->queue);
		h->nqueue--;
		http_start(h, r);	/* may append to the queue */
	}
	if (next < 0)
		return 1000;
	return next - now < 1000 ? (long)(next - now) : 1000;
}

int
http_run(struct http *h, struct prov_err *err)
{
	struct http_req	**fin = NULL;
	CURLcode	 *codes = NULL;
	size_t		  nfin, afin = 0, acodes = 0, i;
	CURLMsg		 *m;
	CURLMcode	  mc;
	int		  running, left, r = -1;
	long		  wait;

	while (h->nqueue > 0 || h->nactive > 0) {
		wait = http_start_due(h);
		if (h->nactive == 0) {
			if (h->nqueue == 0)
				break;
			mc = curl_multi_poll(h->multi, NULL, 0, (int)wait,
			    NULL);
			if (mc != CURLM_OK)
				goto fail;
			continue;
		}
		mc = curl_multi_perform(h->multi, &running);
		if (mc != CURLM_OK)
			goto fail;
		nfin = 0;
		while ((m = curl_multi_info_read(h->multi, &left)) != NULL) {
			struct http_req	*req = NULL;

			if (m->msg != CURLMSG_DONE)
				continue;
			curl_easy_getinfo(m->easy_handle, CURLINFO_PRIVATE,
			    (char **)&req);
			ALLOC_GROW(fin, nfin + 1, afin);
			ALLOC_GROW(codes, nfin + 1, acodes);
			fin[nfin] = req;
			codes[nfin++] = m->data.result;
		}
		for (i = 0; i < nfin; i++) {
			size_t	j;

			curl_multi_remove_handle(h->multi, fin[i]->priv->easy);
			for (j = 0; j < h->nactive; j++)
				if (h->active[j] == fin[i]) {
					h->active[j] = h->active[--h->nactive];
					break;
				}
		}
		for (i = 0; i < nfin; i++)
			http_finish(h, fin[i], codes[i]);
		if (nfin > 0)
			continue;	/* start what the answers allow */
		mc = curl_multi_poll(h->multi, NULL, 0, (int)wait, NULL);
		if (mc != CURLM_OK)
			goto fail;
	}
	r = 0;
	goto out;
fail:
	prov_err_set(err, PROV_E_HTTP, "http loop: %s",
	    curl_multi_strerror(mc));
out:
	free(fin);
	free(codes);
	return r;
}

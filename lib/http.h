/*
 * http.h: many HTTP(S) requests at once, in one loop (libcurl multi).
 *
 * One `struct http` runs any number of requests concurrently in the
 * calling thread: every BMC of a cluster at once, or every download of a
 * bundle.  A request is made, handed over, and answered through its done
 * callback, which may add more requests (the next step of a dialogue):
 *
 *	struct http_opts o = HTTP_OPTS_INIT;
 *	struct http *h = http_new(&o);
 *	struct http_req *r = http_req_new("GET", "https://10.0.0.5/redfish/v1");
 *	http_req_header(r, "Accept: application/json");
 *	r->ca_file = "bmc-ca.pem";	(NULL: the system's CAs)
 *	r->done = on_answer;		(on_answer(struct http_req *, void *))
 *	r->arg = me;
 *	http_add(h, r);			(h owns r from here on)
 *	if (http_run(h, &err) != 0)	(returns when no request is left)
 *		... the loop itself broke ...
 *	http_free(h);
 *
 * done(r, arg) runs exactly once per request, when it was answered or has
 * failed for good.  Then r->status is the HTTP status of the answer (any
 * status: 404 and 500 are answers), r->resp its body (at most
 * opts.max_body bytes; more fails the request) and r->resp_headers its
 * headers; or r->status is 0, r->fail says what kind of failure and r->err
 * holds the message, converted once from libcurl's error buffer (else
 * curl_easy_strerror()).  The request is freed when done returns: steal
 * what you keep (buf_detach).
 *
 * TLS is verified unless the request says `insecure`; `ca_file` replaces
 * the system's CAs.  Connection failures (nothing was answered) are
 * retried with doubling backoff; a request that may have reached the
 * server is retried only when it is idempotent.  Timeouts and certificate
 * failures are never retried.
 *
 * Secrets: request headers, request bodies and response headers are wiped
 * before they are freed (Authorization, X-Auth-Token, passwords in JSON).
 * Error messages name the method and URL, so URLs must never hold
 * credentials.
 */
#ifndef PROV_HTTP_H
#define PROV_HTTP_H

#include <stddef.h>

#include "buf.h"
#include "err.h"
#include "strvec.h"

struct http;
struct http_priv;

struct http_opts {
	long		 connect_timeout_ms;	/* per attempt */
	long		 timeout_ms;		/* whole request, per attempt */
	int		 retries;		/* extra tries if unconnected */
	long		 retry_ms;		/* first backoff; doubles */
	size_t		 max_body;		/* bytes of one answer */
	size_t		 max_active;		/* requests in flight at once */
	size_t		 max_per_group;		/* ... per group (one server) */
	int		 use_proxy;		/* honour https_proxy etc. */
	const char	*user_agent;
};

#define HTTP_OPTS_INIT { 10000, 60000, 2, 500, 4 << 20, 128, 4, 0, \
	"provision" }

enum http_fail {
	HTTP_FAIL_NONE = 0,
	HTTP_FAIL_CONNECT,	/* refused, unreachable, no such host */
	HTTP_FAIL_TLS,		/* handshake failed */
	HTTP_FAIL_TLS_VERIFY,	/* certificate not trusted or wrong name */
	HTTP_FAIL_TIMEOUT,
	HTTP_FAIL_DROPPED,	/* connection closed without an answer */
	HTTP_FAIL_TOOBIG,	/* answer larger than max_body */
	HTTP_FAIL_OTHER,
};

struct http_req {
	/* Set by the caller before http_add(). */
	char		*method;	/* owned: GET POST PATCH DELETE ... */
	char		*url;		/* owned; never with credentials */
	struct strvec	 headers;	/* "Name: value"; wiped when freed */
	struct buf	 body;		/* request body; wiped when freed */
	const char	*ca_file;	/* borrowed; NULL: system CAs */
	int		 insecure;	/* skip certificate and name checks */
	int		 idempotent;	/* -1: by method (GET PUT DELETE) */
	long		 delay_ms;	/* wait this long after http_add() */
	long		 timeout_ms;	/* 0: opts.timeout_ms */
	const void	*group;		/* NULL: its own; see max_per_group */
	void		(*done)(struct http_req *, void *arg);
	void		*arg;

	/* Filled before done() runs. */
	long		 status;	/* HTTP status; 0: no answer */
	struct buf	 resp;		/* the answer's body */
	struct strvec	 resp_headers;	/* "Name: value" of the final answer */
	enum http_fail	 fail;
	struct prov_err	 err;		/* set when status is 0 */
	int		 tries;		/* attempts made */
	long		 ms;		/* from the first attempt to done */

	struct http_priv *priv;
};

struct http	*http_new(const struct http_opts *);
/* Cancels (frees without done) whatever is still queued. */
void		 http_free(struct http *);

/* Method and URL are copied; http_req_free() it unless it was added. */
struct http_req	*http_req_new(const char *method, const char *url);
void		 http_req_free(struct http_req *);
/* Add "Name: value" (copied; wiped when the request is freed). */
void		 http_req_header(struct http_req *, const char *line);
/* The same, formatted: not for secrets (printf leaves copies around). */
void		 http_req_headerf(struct http_req *, const char *fmt, ...)
		    __attribute__((format(printf, 2, 3)));
/* "Authorization: Basic ..." from user and password (copied, wiped later). */
void		 http_req_basic_auth(struct http_req *, const char *user,
		    const char *password);
/* Value of response header `name` (any case), borrowed, or NULL. */
const char	*http_resp_header(const struct http_req *, const char *name);

/* Queue a request; the http owns it from now on, even when it fails. */
void		 http_add(struct http *, struct http_req *);
/*
 * Run until every request, including those added by done callbacks, is
 * done.  -1 only when the loop itself failed (libcurl multi error); the
 * requests still queued are then dropped without done.
 */
int		 http_run(struct http *, struct prov_err *err);
/* Milliseconds on a monotonic clock (for deadlines of callers). */
long long	 http_now_ms(void);

#endif

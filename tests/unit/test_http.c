#include "test.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>

#include "buf.h"
#include "err.h"
#include "http.h"
#include "str.h"

/*
 * lib/http.c against a small HTTP/1.1 server forked here on loopback
 * (plain HTTP; TLS is tested end to end against the Redfish emulator in
 * tests/e2e/t040-bmc.sh).  The server answers by path:
 *
 *	/ok	200 "hello" with X-Auth-Token and Location headers
 *	/echo	200, the request it got (line, headers, body) as the body
 *	/big	200 with 100,000 bytes
 *	/slow	200 after 2 s
 *	/drop	closes the connection without an answer
 *	other	404
 */

struct test_srv {
	pid_t		pid;
	int		port;
};

static void
test_srv_write(int fd, const char *s, size_t n)
{
	while (n > 0) {
		ssize_t	w = write(fd, s, n);

		if (w <= 0)
			return;
		s += w;
		n -= (size_t)w;
	}
}

static void
test_srv_answer(int fd)
{
	struct buf	 req = BUF_INIT, out = BUF_INIT;
	char		 chunk[4096], path[256] = "";
	char		*end, *cl;
	size_t		 need = 0;
	ssize_t		 n;

	for (;;) {
		n = read(fd, chunk, sizeof chunk);
		if (n <= 0)
			goto out;
		buf_add(&req, chunk, (size_t)n);
		if ((end = strstr(req.buf, "\r\n\r\n")) != NULL)
			break;
	}
	if ((cl = strcasestr(req.buf, "\r\nContent-Length:")) != NULL &&
	    cl < end)
		need = strtoul(cl + 17, NULL, 10);
	while (req.len < (size_t)(end - req.buf) + 4 + need) {
		n = read(fd, chunk, sizeof chunk);
		if (n <= 0)
			break;
		buf_add(&req, chunk, (size_t)n);
		end = strstr(req.buf, "\r\n\r\n");
	}
	if (sscanf(req.buf, "%*s %255s", path) != 1)
		goto out;
	if (strcmp(path, "/ok") == 0)
		buf_adds(&out, "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n"
		    "X-Auth-Token: tok123\r\nLocation: /tasks/1\r\n"
		    "Connection: close\r\n\r\nhello");
	else if (strcmp(path, "/echo") == 0) {
		buf_addf(&out, "HTTP/1.1 200 OK\r\nContent-Length: %zu\r\n"
		    "Connection: close\r\n\r\n", req.len);
		buf_add(&out, req.buf, req.len);
	} else if (strcmp(path, "/big") == 0) {
		buf_adds(&out, "HTTP/1.1 200 OK\r\nContent-Length: 100000\r\n"
		    "Connection: close\r\n\r\n");
		while (out.len < 100000 + 70)
			buf_addch(&out, 'x');
		buf_setlen(&out, strstr(out.buf, "\r\n\r\n") - out.buf + 4 +
		    100000);
	} else if (strcmp(path, "/slow") == 0) {
		sleep(2);
		buf_adds(&out, "HTTP/1.1 200 OK\r\nContent-Length: 0\r\n"
		    "Connection: close\r\n\r\n");
	} else if (strcmp(path, "/drop") == 0)
		goto out;
	else
		buf_adds(&out, "HTTP/1.1 404 Not Found\r\nContent-Length: 9\r\n"
		    "Connection: close\r\n\r\nnot found");
	test_srv_write(fd, out.buf, out.len);
out:
	buf_release(&req);
	buf_release(&out);
}

static void
test_srv_start(struct test_srv *s)
{
	struct sockaddr_in	sa;
	socklen_t		len = sizeof sa;
	int			fd, one = 1;

	fd = socket(AF_INET, SOCK_STREAM, 0);
	ck_assert_int_ge(fd, 0);
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
	memset(&sa, 0, sizeof sa);
	sa.sin_family = AF_INET;
	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	ck_assert_int_eq(bind(fd, (struct sockaddr *)&sa, sizeof sa), 0);
	ck_assert_int_eq(listen(fd, 64), 0);
	ck_assert_int_eq(getsockname(fd, (struct sockaddr *)&sa, &len), 0);
	s->port = ntohs(sa.sin_port);
	s->pid = fork();
	ck_assert_int_ge(s->pid, 0);
	if (s->pid == 0) {
		for (;;) {
			int	c = accept(fd, NULL, NULL);

			if (c < 0)
				continue;
			test_srv_answer(c);
			close(c);
		}
	}
	close(fd);
}

static void
test_srv_stop(struct test_srv *s)
{
	kill(s->pid, SIGKILL);
	waitpid(s->pid, NULL, 0);
}

/* What a done callback saw. */
struct test_got {
	int		 calls;
	long		 status;
	char		*body;
	char		*token;
	char		*location;
	enum http_fail	 fail;
	enum prov_code	 code;
	char		*msg;
	int		 tries;
	long		 ms;
};

static void
test_http_done(struct http_req *r, void *arg)
{
	struct test_got	*g = arg;
	const char	*h;

	g->calls++;
	g->status = r->status;
	free(g->body);
	g->body = buf_detach(&r->resp, NULL);
	free(g->token);
	h = http_resp_header(r, "x-auth-token");
	g->token = h != NULL ? xstrdup(h) : NULL;
	free(g->location);
	g->location = (h = http_resp_header(r, "Location")) ? xstrdup(h) : NULL;
	g->fail = r->fail;
	g->code = r->err.code;
	free(g->msg);
	g->msg = r->err.msg ? xstrdup(r->err.msg) : NULL;
	g->tries = r->tries;
	g->ms = r->ms;
}

static void
test_got_release(struct test_got *g)
{
	free(g->body);
	free(g->token);
	free(g->location);
	free(g->msg);
	memset(g, 0, sizeof *g);
}

/* Run one request to the server; the http opts may be adjusted. */
static void
test_http_one(struct test_got *g, const struct http_opts *o, int port,
    const char *method, const char *path, const char *body)
{
	struct http	*h = http_new(o);
	struct http_req	*r;
	struct prov_err	 err = PROV_ERR_INIT;
	char		*url = xasprintf("http://127.0.0.1:%d%s", port, path);

	r = http_req_new(method, url);
	if (body != NULL) {
		http_req_header(r, "Content-Type: application/json");
		buf_adds(&r->body, body);
	}
	r->done = test_http_done;
	r->arg = g;
	http_add(h, r);
	ck_assert_ok(http_run(h, &err), &err);
	http_free(h);
	free(url);
}

START_TEST(test_http_ok)
{
	struct test_srv		s;
	struct test_got		g = { 0 };
	struct http_opts	o = HTTP_OPTS_INIT;

	test_srv_start(&s);
	test_http_one(&g, &o, s.port, "GET", "/ok", NULL);
	ck_assert_int_eq(g.calls, 1);
	ck_assert_int_eq(g.status, 200);
	ck_assert_str_eq(g.body, "hello");
	ck_assert_str_eq(g.token, "tok123");
	ck_assert_str_eq(g.location, "/tasks/1");
	ck_assert_int_eq(g.fail, HTTP_FAIL_NONE);
	ck_assert_ptr_null(g.msg);
	ck_assert_int_eq(g.tries, 1);

	/* An error status is an answer, not a failure. */
	test_http_one(&g, &o, s.port, "GET", "/nothing", NULL);
	ck_assert_int_eq(g.status, 404);
	ck_assert_str_eq(g.body, "not found");
	ck_assert_ptr_null(g.msg);
	test_got_release(&g);
	test_srv_stop(&s);
}
END_TEST

START_TEST(test_http_echo)
{
	struct test_srv		 s;
	struct test_got		 g = { 0 };
	struct http_opts	 o = HTTP_OPTS_INIT;
	struct http		*h;
	struct http_req		*r;
	struct prov_err		 err = PROV_ERR_INIT;
	char			*url;

	test_srv_start(&s);
	test_http_one(&g, &o, s.port, "POST", "/echo", "{\"a\": 1}");
	ck_assert_msg(str_starts(g.body, "POST /echo HTTP/1.1\r\n"), "%s",
	    g.body);
	ck_assert_msg(strstr(g.body, "\r\nContent-Type: application/json\r\n"),
	    "%s", g.body);
	ck_assert_msg(strstr(g.body, "\r\n\r\n{\"a\": 1}") != NULL, "%s",
	    g.body);
	ck_assert_msg(strstr(g.body, "Expect:") == NULL, "%s", g.body);

	test_http_one(&g, &o, s.port, "PATCH", "/echo", "{\"b\": 2}");
	ck_assert_msg(str_starts(g.body, "PATCH /echo HTTP/1.1\r\n"), "%s",
	    g.body);
	ck_assert_msg(strstr(g.body, "\r\n\r\n{\"b\": 2}") != NULL, "%s",
	    g.body);
	test_http_one(&g, &o, s.port, "DELETE", "/echo", NULL);
	ck_assert_msg(str_starts(g.body, "DELETE /echo HTTP/1.1\r\n"), "%s",
	    g.body);

	/* Basic auth, a password with a colon: base64 of "admin:p:w". */
	h = http_new(&o);
	url = xasprintf("http://127.0.0.1:%d/echo", s.port);
	r = http_req_new("GET", url);
	http_req_basic_auth(r, "admin", "p:w");
	http_req_headerf(r, "X-Auth-Token: %s", "abc");
	r->done = test_http_done;
	r->arg = &g;
	http_add(h, r);
	ck_assert_ok(http_run(h, &err), &err);
	ck_assert_msg(strstr(g.body,
	    "\r\nAuthorization: Basic YWRtaW46cDp3\r\n") != NULL, "%s",
	    g.body);
	ck_assert_msg(strstr(g.body, "\r\nX-Auth-Token: abc\r\n") != NULL,
	    "%s", g.body);
	http_free(h);
	free(url);
	test_got_release(&g);
	test_srv_stop(&s);
}
END_TEST

START_TEST(test_http_toobig)
{
	struct test_srv		s;
	struct test_got		g = { 0 };
	struct http_opts	o = HTTP_OPTS_INIT;

	test_srv_start(&s);
	o.max_body = 1000;
	test_http_one(&g, &o, s.port, "GET", "/big", NULL);
	ck_assert_int_eq(g.status, 0);
	ck_assert_int_eq(g.fail, HTTP_FAIL_TOOBIG);
	ck_assert_int_eq(g.code, PROV_E_HTTP);
	ck_assert_msg(strstr(g.msg, "/big: answer larger than 1000 bytes") !=
	    NULL, "%s", g.msg);
	o.max_body = 200000;
	test_http_one(&g, &o, s.port, "GET", "/big", NULL);
	ck_assert_int_eq(g.status, 200);
	ck_assert_int_eq(strlen(g.body), 100000);
	test_got_release(&g);
	test_srv_stop(&s);
}
END_TEST

START_TEST(test_http_timeout)
{
	struct test_srv		s;
	struct test_got		g = { 0 };
	struct http_opts	o = HTTP_OPTS_INIT;

	test_srv_start(&s);
	o.timeout_ms = 300;
	o.retry_ms = 10;
	test_http_one(&g, &o, s.port, "GET", "/slow", NULL);
	ck_assert_int_eq(g.status, 0);
	ck_assert_int_eq(g.fail, HTTP_FAIL_TIMEOUT);
	ck_assert_int_eq(g.code, PROV_E_TIMEOUT);
	ck_assert_int_eq(g.tries, 1);		/* never retried */
	ck_assert_int_lt(g.ms, 1500);
	test_got_release(&g);
	test_srv_stop(&s);
}
END_TEST

START_TEST(test_http_refused)
{
	struct test_srv		s;
	struct test_got		g = { 0 };
	struct http_opts	o = HTTP_OPTS_INIT;
	int			port;

	/* A port that was just free: connecting is refused. */
	test_srv_start(&s);
	port = s.port;
	test_srv_stop(&s);
	o.retries = 2;
	o.retry_ms = 20;
	test_http_one(&g, &o, port, "POST", "/x", "{}");
	ck_assert_int_eq(g.calls, 1);
	ck_assert_int_eq(g.status, 0);
	ck_assert_int_eq(g.fail, HTTP_FAIL_CONNECT);
	ck_assert_int_eq(g.tries, 3);	/* nothing was sent: even POST */
	ck_assert_int_ge(g.ms, 20 + 40);	/* backoff doubles */
	ck_assert_msg(str_starts(g.msg, "POST http://127.0.0.1:"), "%s", g.msg);
	ck_assert_msg(strstr(g.msg, "(3 tries)") != NULL, "%s", g.msg);
	test_got_release(&g);
}
END_TEST

START_TEST(test_http_drop)
{
	struct test_srv		s;
	struct test_got		g = { 0 };
	struct http_opts	o = HTTP_OPTS_INIT;

	test_srv_start(&s);
	o.retries = 1;
	o.retry_ms = 10;
	test_http_one(&g, &o, s.port, "GET", "/drop", NULL);
	ck_assert_int_eq(g.status, 0);
	ck_assert_int_eq(g.fail, HTTP_FAIL_DROPPED);
	ck_assert_int_eq(g.tries, 2);
	/* A POST may have been done: not repeated. */
	test_http_one(&g, &o, s.port, "POST", "/drop", "{}");
	ck_assert_int_eq(g.fail, HTTP_FAIL_DROPPED);
	ck_assert_int_eq(g.tries, 1);
	test_got_release(&g);
	test_srv_stop(&s);
}
END_TEST

/* A dialogue: each answer queues the next request, the last with a delay. */
struct test_chain {
	struct http	*h;
	int		 port;
	int		 left;
	int		 answers;
	long long	 t0, t_last;
};

static void
test_chain_done(struct http_req *r, void *arg)
{
	struct test_chain	*c = arg;
	struct http_req		*n;
	char			*url;

	if (r->status == 200)
		c->answers++;
	c->t_last = http_now_ms();
	if (--c->left <= 0)
		return;
	url = xasprintf("http://127.0.0.1:%d/ok", c->port);
	n = http_req_new("GET", url);
	n->done = test_chain_done;
	n->arg = c;
	n->delay_ms = c->left == 1 ? 300 : 0;
	http_add(c->h, n);
	free(url);
}

START_TEST(test_http_chain)
{
	struct test_srv		 s;
	struct http_opts	 o = HTTP_OPTS_INIT;
	struct test_chain	 c;
	struct prov_err		 err = PROV_ERR_INIT;
	char			 url[64];
	struct http_req		*r;

	test_srv_start(&s);
	memset(&c, 0, sizeof c);
	c.h = http_new(&o);
	c.port = s.port;
	c.left = 5;
	snprintf(url, sizeof url, "http://127.0.0.1:%d/ok", s.port);
	r = http_req_new("GET", url);
	r->done = test_chain_done;
	r->arg = &c;
	c.t0 = http_now_ms();
	http_add(c.h, r);
	ck_assert_ok(http_run(c.h, &err), &err);
	ck_assert_int_eq(c.answers, 5);
	ck_assert_int_ge(c.t_last - c.t0, 300);
	http_free(c.h);
	test_srv_stop(&s);
}
END_TEST

START_TEST(test_http_many)
{
	struct test_srv		 s;
	struct http_opts	 o = HTTP_OPTS_INIT;
	struct test_got		 g[60];
	struct http		*h;
	struct prov_err		 err = PROV_ERR_INIT;
	char			 url[64];
	int			 i, groups[3];

	test_srv_start(&s);
	memset(g, 0, sizeof g);
	o.max_active = 8;
	o.max_per_group = 2;
	h = http_new(&o);
	snprintf(url, sizeof url, "http://127.0.0.1:%d/ok", s.port);
	for (i = 0; i < 60; i++) {
		struct http_req	*r = http_req_new("GET", url);

		r->group = &groups[i % 3];
		r->done = test_http_done;
		r->arg = &g[i];
		http_add(h, r);
	}
	ck_assert_ok(http_run(h, &err), &err);
	for (i = 0; i < 60; i++) {
		ck_assert_int_eq(g[i].calls, 1);
		ck_assert_int_eq(g[i].status, 200);
		test_got_release(&g[i]);
	}
	http_free(h);
	test_srv_stop(&s);
}
END_TEST

START_TEST(test_http_headers)
{
	struct http_req	*r = http_req_new("GET", "http://x/");

	strvec_push(&r->resp_headers, "Content-Type: application/json");
	strvec_push(&r->resp_headers, "X-Auth-Token:   t0k  ");
	strvec_push(&r->resp_headers, "Location:/a/b");
	ck_assert_str_eq(http_resp_header(r, "content-type"),
	    "application/json");
	ck_assert_str_eq(http_resp_header(r, "X-AUTH-TOKEN"), "t0k  ");
	ck_assert_str_eq(http_resp_header(r, "Location"), "/a/b");
	ck_assert_ptr_null(http_resp_header(r, "Locatio"));
	ck_assert_ptr_null(http_resp_header(r, "ETag"));
	http_req_free(r);
}
END_TEST

static Suite *
http_suite(void)
{
	Suite	*s = suite_create("http");
	TCase	*tc;

	tc = tcase_create("requests");
	tcase_set_timeout(tc, 20);
	tcase_add_test(tc, test_http_ok);
	tcase_add_test(tc, test_http_echo);
	tcase_add_test(tc, test_http_headers);
	tcase_add_test(tc, test_http_toobig);
	suite_add_tcase(s, tc);

	tc = tcase_create("failures");
	tcase_set_timeout(tc, 20);
	tcase_add_test(tc, test_http_timeout);
	tcase_add_test(tc, test_http_refused);
	tcase_add_test(tc, test_http_drop);
	suite_add_tcase(s, tc);

	tc = tcase_create("loop");
	tcase_set_timeout(tc, 20);
	tcase_add_test(tc, test_http_chain);
	tcase_add_test(tc, test_http_many);
	suite_add_tcase(s, tc);
	return s;
}

TEST_MAIN(http_suite)

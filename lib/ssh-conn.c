/*
 * ssh-conn.c: a connection's states: resolve, TCP connect or a tunnel
 * through the jump host, handshake and host key, authentication, and
 * closing; the tunnels' byte pumps.  See the state diagram in ssh.c.
 */
#include "compat.h"

#include <netdb.h>
#include <netinet/tcp.h>


#include "err.h"
#include "knownhosts.h"
#include "ssh-int.h"

/* Results and job ends. */

void
ssh_res_error(struct ssh_conn *c, enum ssh_status st, const char *fmt, ...)
{
	va_list	ap;
	char	*msg;

	va_start(ap, fmt);
	msg = xvasprintf(fmt, ap);
	va_end(ap);
	c->res.status = st;
	free(c->res.error);
	c->res.error = msg;
}

static void ssh_pool_wake_jump_waiters(struct ssh_pool *);

/* Hand the job's result over and look for the host's next job. */
void
ssh_conn_job_done(struct ssh_conn *c)
{
	struct ssh_pool		*p = c->pool;
	const struct ssh_job	*job = c->job, *next = NULL;

	c->res.elapsed_s = proc_now() - c->job_start;
	ssh_conn_job_files_release(c);
	c->has_job = 0;
	c->job = NULL;
	if (p->h->done != NULL)
		p->h->done(p->h->arg, c->idx, job, &c->res);
	ssh_result_release(&c->res);
	if (c->st == CS_READY && !c->failed && !p->stop_new)
		next = p->h->next(p->h->arg, c->idx);
	if (next != NULL) {
		c->job = next;
		c->has_job = 1;
		c->job_start = proc_now();
		c->st = CS_JOB;
		c->js = JS_START;
		c->again = 1;
		return;
	}
	c->rs = RS_FINISHED;
	p->active--;
	if (!p->cfg.keep_open && c->sess != NULL && c->st == CS_READY)
		ssh_conn_start_close(c);
}

/*
 * The host cannot be used: record why, drop the session and end its job.
 * For the jump host, every node waiting for it fails too.
 */
static void
ssh_conn_fail(struct ssh_conn *c, enum ssh_status st, const char *fmt, ...)
    PROV_PRINTF(3, 4);

static void
ssh_conn_fail(struct ssh_conn *c, enum ssh_status st, const char *fmt, ...)
{
	va_list	ap;
	char	*msg;

	va_start(ap, fmt);
	msg = xvasprintf(fmt, ap);
	va_end(ap);
	ssh_conn_abort(c);
	c->failed = 1;
	if (c->is_jump) {
		free(c->fail_msg);
		c->fail_msg = msg;
		c->fail_status = st;
		ssh_pool_wake_jump_waiters(c->pool);
		return;
	}
	c->res.status = st;
	free(c->res.error);
	c->res.error = msg;
	if (c->has_job)
		ssh_conn_job_done(c);
}

/* Wait for libssh2 on the session's socket. */
int
ssh_conn_wait(struct ssh_conn *c)
{
	int	dir = c->sess != NULL ?
		    libssh2_session_block_directions(c->sess) : 0;

	c->events = 0;
	if (dir & LIBSSH2_SESSION_BLOCK_INBOUND)
		c->events |= POLLIN;
	if (dir & LIBSSH2_SESSION_BLOCK_OUTBOUND)
		c->events |= POLLOUT;
	if (c->events == 0)
		c->events = POLLIN;
	return 0;
}

/* libssh2's send, without SIGPIPE when the peer has gone. */
static LIBSSH2_SEND_FUNC(ssh_send_cb)
{
	ssize_t	n;

	(void)abstract;
	n = send(socket, buffer, length, flags | MSG_NOSIGNAL);
	return n < 0 ? -errno : n;
}

static LIBSSH2_RECV_FUNC(ssh_recv_cb)
{
	ssize_t	n;

	(void)abstract;
	n = recv(socket, buffer, length, flags);
	return n < 0 ? -errno : n;
}

/* Connecting. */

static int
ssh_conn_resolve(struct ssh_conn *c)
{
	struct addrinfo	 hints, *res = NULL;
	char		 port[16];
	int		 e;

	if (c->resolved)
		return 0;
	memset(&hints, 0, sizeof hints);
	hints.ai_family = AF_UNSPEC;
	hints.ai_socktype = SOCK_STREAM;
	hints.ai_flags = AI_NUMERICSERV;
	snprintf(port, sizeof port, "%ld", c->port);
	e = getaddrinfo(c->addr, port, &hints, &res);
	if (e != 0 || res == NULL) {
		ssh_conn_fail(c, SSH_UNREACHABLE, "cannot resolve '%s': %s",
		    c->addr, gai_strerror(e));
		return -1;
	}
	memcpy(&c->sa, res->ai_addr, res->ai_addrlen);
	c->salen = res->ai_addrlen;
	c->resolved = 1;
	freeaddrinfo(res);
	return 0;
}

/* A failed TCP connect or tunnel: retry after a backoff, or give up. */
static int
ssh_conn_connect_failed(struct ssh_conn *c, const char *why)
{
	struct ssh_pool	*p = c->pool;

	ssh_conn_abort(c);
	c->tries++;
	if (c->tries < p->cfg.tries) {
		c->st = CS_RETRY_WAIT;
		c->wake = proc_now() + 0.5 * (double)(1 << (c->tries - 1));
		return 0;
	}
	if (c->is_jump)
		ssh_conn_fail(c, SSH_UNREACHABLE, "%s (%d tries)", why, c->tries);
	else if (p->jump != NULL)
		ssh_conn_fail(c, SSH_UNREACHABLE, "jump host '%s' cannot reach "
		    "%s port %ld: %s (%d tries)", p->jump->name, c->addr,
		    c->port, why, c->tries);
	else
		ssh_conn_fail(c, SSH_UNREACHABLE, "%s (%d tries)", why,
		    c->tries);
	return 0;
}

void
ssh_conn_begin(struct ssh_conn *c)
{
	c->tries = 0;
	c->failed = 0;
	c->again = 1;
	c->st = c->pool->jump != NULL && !c->is_jump ? CS_JUMP_WAIT :
	    CS_CONNECT;
}

static int
ssh_conn_tcp(struct ssh_conn *c)
{
	struct ssh_pool	*p = c->pool;
	int		 e = 0, one = 1;
	socklen_t	 elen = sizeof e;
	char		 why[256];

	if (c->fd < 0) {
		if (ssh_conn_resolve(c) != 0)
			return 0;
		c->fd = socket(c->sa.ss_family, SOCK_STREAM | SOCK_NONBLOCK |
		    SOCK_CLOEXEC, 0);
		if (c->fd < 0) {
			ssh_conn_fail(c, SSH_ERROR, "socket: %s",
			    strerror(errno));
			return 0;
		}
		setsockopt(c->fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
		setsockopt(c->fd, SOL_SOCKET, SO_KEEPALIVE, &one, sizeof one);
		{
			int	idle = (int)p->cfg.keepalive_s, cnt = 3;

			setsockopt(c->fd, IPPROTO_TCP, TCP_KEEPIDLE, &idle,
			    sizeof idle);
			setsockopt(c->fd, IPPROTO_TCP, TCP_KEEPINTVL, &idle,
			    sizeof idle);
			setsockopt(c->fd, IPPROTO_TCP, TCP_KEEPCNT, &cnt,
			    sizeof cnt);
		}
		c->deadline = proc_now() + (double)p->cfg.connect_timeout_s;
		if (connect(c->fd, (struct sockaddr *)&c->sa, c->salen) == 0) {
			c->st = CS_HANDSHAKE;
			c->deadline = 0;
			return 1;
		}
		if (errno != EINPROGRESS) {
			e = errno;
			goto failed;
		}
		c->events = POLLOUT;
		return 0;
	}
	if (c->revents == 0) {
		if (c->deadline > 0 && proc_now() >= c->deadline) {
			e = ETIMEDOUT;
			goto failed;
		}
		c->events = POLLOUT;
		return 0;
	}
	if (getsockopt(c->fd, SOL_SOCKET, SO_ERROR, &e, &elen) != 0)
		e = errno;
	if (e == 0) {
		c->st = CS_HANDSHAKE;
		c->deadline = 0;
		return 1;
	}
failed:
	snprintf(why, sizeof why, "connect to %s port %ld: %s", c->addr,
	    c->port, e == ETIMEDOUT ? "timed out" : strerror(e));
	return ssh_conn_connect_failed(c, why);
}

static void
ssh_pool_wake_jump_waiters(struct ssh_pool *p)
{
	size_t	i;

	for (i = 0; i < p->n; i++)
		if (p->c[i].st == CS_JUMP_WAIT || p->c[i].st == CS_TUNNEL)
			p->c[i].again = 1;
}

static int
ssh_conn_jump_wait(struct ssh_conn *c)
{
	struct ssh_conn	*j = c->pool->jump;

	if (j->st == CS_READY) {
		c->st = CS_TUNNEL;
		return 1;
	}
	if (j->failed) {
		ssh_conn_fail(c, j->fail_status == SSH_UNREACHABLE ?
		    SSH_UNREACHABLE : j->fail_status, "jump host '%s': %s",
		    j->name, j->fail_msg != NULL ? j->fail_msg : "failed");
		return 0;
	}
	if (j->st == CS_IDLE) {
		ssh_conn_begin(j);
		j->rs = RS_ACTIVE;
	}
	c->events = 0;
	return 0;
}

static int
ssh_conn_tunnel(struct ssh_conn *c)
{
	struct ssh_pool		*p = c->pool;
	struct ssh_conn		*j = p->jump;
	LIBSSH2_CHANNEL		*ch;
	struct ssh_tunnel	*t;
	int			 sp[2], e;
	char			 why[512];

	c->events = 0;
	if (j->st != CS_READY) {
		c->st = CS_JUMP_WAIT;
		return 1;
	}
	if (p->tun_opener != NULL && p->tun_opener != c)
		return 0;
	if (p->tun_orphan)
		return 0;
	if (p->tun_opener == NULL) {
		p->tun_opener = c;
		c->deadline = proc_now() + (double)p->cfg.connect_timeout_s;
	}
	ch = libssh2_channel_direct_tcpip_ex(j->sess, c->addr, (int)c->port,
	    "127.0.0.1", 22);
	if (ch == NULL) {
		e = libssh2_session_last_errno(j->sess);
		if (SSH_AGAIN(e)) {
			if (c->deadline > 0 && proc_now() >= c->deadline) {
				/* The open stays in flight: drain it later. */
				p->tun_opener = NULL;
				p->tun_orphan = 1;
				ssh_pool_wake_jump_waiters(p);
				snprintf(why, sizeof why, "no answer in %lds",
				    p->cfg.connect_timeout_s);
				c->tries = (int)p->cfg.tries;
				return ssh_conn_connect_failed(c, why);
			}
			return 0;
		}
		p->tun_opener = NULL;
		ssh_pool_wake_jump_waiters(p);
		snprintf(why, sizeof why, "%s", ssh_liberr(j->sess));
		if (e == LIBSSH2_ERROR_SOCKET_SEND ||
		    e == LIBSSH2_ERROR_SOCKET_RECV ||
		    e == LIBSSH2_ERROR_SOCKET_DISCONNECT) {
			ssh_conn_fail(j, SSH_ERROR, "connection lost: %s", why);
			return 1;
		}
		return ssh_conn_connect_failed(c, why);
	}
	p->tun_opener = NULL;
	ssh_pool_wake_jump_waiters(p);
	if (socketpair(AF_UNIX, SOCK_STREAM, 0, sp) != 0) {
		ALLOC_GROW(p->grave, p->ngrave + 1, p->agrave);
		p->grave[p->ngrave++] = ch;
		ssh_conn_fail(c, SSH_ERROR, "socketpair: %s", strerror(errno));
		return 0;
	}
	ssh_set_nonblock(sp[0]);
	ssh_set_nonblock(sp[1]);
	t = xcalloc(1, sizeof *t);
	t->ch = ch;
	t->fd = sp[1];
	t->up = xmalloc(SSH_TUN_BUF);
	t->down = xmalloc(SSH_TUN_BUF);
	c->tun = t;
	c->fd = sp[0];
	c->deadline = 0;
	c->st = CS_HANDSHAKE;
	return 1;
}

/* Host keys. */

static void
ssh_conn_names(const struct ssh_conn *c, const char **names, size_t *n)
{
	*n = 0;
	names[(*n)++] = c->name;
	if (strcasecmp(c->name, c->addr) != 0)
		names[(*n)++] = c->addr;
}

/* Host key algorithms for c: the types known_hosts has for it first. */
static char *
ssh_conn_hostkey_prefs(struct ssh_conn *c)
{
	struct ssh_pool	*p = c->pool;
	struct strvec	 known = STRVEC_INIT, all = STRVEC_INIT, out = STRVEC_INIT;
	const char	*names[2];
	struct buf	 b = BUF_INIT;
	size_t		 n, i, k;

	ssh_conn_names(c, names, &n);
	knownhosts_types(p->kh, names, n, c->port, &known);
	strvec_split(&all, p->hostkey_algs, ',', 1);
	for (k = 0; k < known.n; k++) {
		for (i = 0; i < all.n; i++) {
			const char	*a = all.v[i];
			int		 fit;

			if (strcmp(known.v[k], "ssh-rsa") == 0)
				fit = strcmp(a, "rsa-sha2-512") == 0 ||
				    strcmp(a, "rsa-sha2-256") == 0 ||
				    strcmp(a, "ssh-rsa") == 0;
			else
				fit = strcmp(a, known.v[k]) == 0;
			if (fit && strvec_find(&out, a) < 0)
				strvec_push(&out, a);
		}
	}
	for (i = 0; i < all.n; i++)
		if (strvec_find(&out, all.v[i]) < 0)
			strvec_push(&out, all.v[i]);
	for (i = 0; i < out.n; i++) {
		if (i > 0)
			buf_addch(&b, ',');
		buf_adds(&b, out.v[i]);
	}
	strvec_clear(&known);
	strvec_clear(&all);
	strvec_clear(&out);
	return buf_detach(&b, NULL);
}

/* "gpu01" or "gpu01 (192.0.2.11 port 2222)" for messages. */
static char *
ssh_conn_label(const struct ssh_conn *c)
{
	if (strcmp(c->name, c->addr) == 0 && c->port == 22)
		return xasprintf("'%s'", c->name);
	if (strcmp(c->name, c->addr) == 0)
		return xasprintf("'%s' port %ld", c->name, c->port);
	if (c->port == 22)
		return xasprintf("'%s' (%s)", c->name, c->addr);
	return xasprintf("'%s' (%s port %ld)", c->name, c->addr, c->port);
}

/* 0 when the host key is acceptable; otherwise the conn has failed. */
static int
ssh_conn_check_hostkey(struct ssh_conn *c)
{
	struct ssh_pool		*p = c->pool;
	struct knownhosts_match	 m = KNOWNHOSTS_MATCH_INIT;
	struct prov_err		 err = PROV_ERR_INIT;
	const unsigned char	*blob;
	const char		*names[2], *file;
	size_t			 len, n;
	int			 type, r = -1;
	char			*fp = NULL, *kt = NULL, *label = NULL,
				*rmname = NULL;

	blob = (const unsigned char *)libssh2_session_hostkey(c->sess, &len,
	    &type);
	if (blob == NULL) {
		ssh_conn_fail(c, SSH_HOSTKEY, "no host key from %s", c->name);
		return -1;
	}
	ssh_conn_names(c, names, &n);
	fp = knownhosts_fingerprint(blob, len);
	kt = knownhosts_blob_type(blob, len);
	label = ssh_conn_label(c);
	knownhosts_check(p->kh, names, n, c->port, blob, len, &m);
	if (m.status == KNOWNHOSTS_NEW && p->cfg.accept_new) {
		if (knownhosts_add(p->kh, names, n, c->port, blob, len, &m,
		    &err) != 0) {
			ssh_conn_fail(c, SSH_ERROR, "cannot record the host key "
			    "of %s: %s", label, err.msg);
			goto out;
		}
		if (m.status == KNOWNHOSTS_OK)
			strvec_pushf(&p->notes, "added %s key %s of %s to %s",
			    knownhosts_type_label(kt), fp, label, m.file);
	}
	file = m.file;
	rmname = knownhosts_hostname(c->name, c->port);
	switch (m.status) {
	case KNOWNHOSTS_OK:
		r = 0;
		break;
	case KNOWNHOSTS_NEW:
		ssh_conn_fail(c, SSH_HOSTKEY, "host key of %s is not known: "
		    "%s key fingerprint is %s (check it, then add it to "
		    "known_hosts, or use --accept-new)", label,
		    knownhosts_type_label(kt), fp);
		break;
	case KNOWNHOSTS_CHANGED:
		ssh_conn_fail(c, SSH_HOSTKEY, "HOST KEY OF %s HAS CHANGED: it "
		    "offers %s %s but %s:%u holds %s; someone could be "
		    "intercepting the connection (if the host was reinstalled, "
		    "remove the old key: ssh-keygen -R '%s' -f %s)", label,
		    knownhosts_type_label(kt), fp, file, m.line, m.known_fp,
		    rmname, file);
		break;
	case KNOWNHOSTS_OTHER_TYPE:
		ssh_conn_fail(c, SSH_HOSTKEY, "HOST KEY OF %s HAS CHANGED: it "
		    "offers %s %s but %s:%u holds a %s key %s; someone could be "
		    "intercepting the connection (if the host was reinstalled, "
		    "remove the old key: ssh-keygen -R '%s' -f %s)", label,
		    knownhosts_type_label(kt), fp, file, m.line,
		    knownhosts_type_label(m.known_type), m.known_fp, rmname,
		    file);
		break;
	case KNOWNHOSTS_REVOKED:
		ssh_conn_fail(c, SSH_HOSTKEY, "host key of %s is REVOKED by "
		    "%s:%u: %s %s", label, file, m.line,
		    knownhosts_type_label(kt), fp);
		break;
	}
out:
	knownhosts_match_release(&m);
	prov_err_release(&err);
	free(fp);
	free(kt);
	free(label);
	free(rmname);
	return r;
}

static int
ssh_conn_handshake(struct ssh_conn *c)
{
	struct ssh_pool	*p = c->pool;
	int		 r;
	char		*prefs;

	if (c->sess == NULL) {
		c->sess = libssh2_session_init_ex(NULL, NULL, NULL, c);
		if (c->sess == NULL) {
			ssh_conn_fail(c, SSH_ERROR, "libssh2 session failed");
			return 0;
		}
		libssh2_session_set_blocking(c->sess, 0);
		libssh2_session_callback_set(c->sess, LIBSSH2_CALLBACK_SEND,
		    (void *)ssh_send_cb);
		libssh2_session_callback_set(c->sess, LIBSSH2_CALLBACK_RECV,
		    (void *)ssh_recv_cb);
		prefs = ssh_conn_hostkey_prefs(c);
		libssh2_session_method_pref(c->sess, LIBSSH2_METHOD_HOSTKEY,
		    prefs);
		free(prefs);
		c->deadline = proc_now() + (double)p->cfg.connect_timeout_s;
	}
	r = libssh2_session_handshake(c->sess, c->fd);
	if (r == LIBSSH2_ERROR_EAGAIN) {
		if (proc_now() >= c->deadline) {
			const char	*banner =
			    libssh2_session_banner_get(c->sess);

			if (banner == NULL || *banner == '\0')
				ssh_conn_fail(c, SSH_TIMEOUT, "no SSH banner "
				    "from %s port %ld within %lds", c->addr,
				    c->port, p->cfg.connect_timeout_s);
			else
				ssh_conn_fail(c, SSH_TIMEOUT, "SSH key exchange "
				    "with %s port %ld did not finish within "
				    "%lds", c->addr, c->port,
				    p->cfg.connect_timeout_s);
			return 0;
		}
		return ssh_conn_wait(c);
	}
	if (r != 0) {
		char	*why;

		/* Dropped before or during the banner (MaxStartups): retry. */
		why = xasprintf("SSH handshake with %s port %ld failed: %s",
		    c->addr, c->port, ssh_liberr(c->sess));
		if ((r == LIBSSH2_ERROR_SOCKET_DISCONNECT ||
		    r == LIBSSH2_ERROR_SOCKET_RECV ||
		    r == LIBSSH2_ERROR_BANNER_RECV ||
		    r == LIBSSH2_ERROR_SOCKET_SEND) &&
		    c->tries + 1 < p->cfg.tries) {
			ssh_conn_connect_failed(c, why);
		} else
			ssh_conn_fail(c, SSH_ERROR, "%s", why);
		free(why);
		return 0;
	}
	if (ssh_conn_check_hostkey(c) != 0)
		return 0;
	c->st = CS_AUTH_LIST;
	c->deadline = proc_now() + (double)p->cfg.connect_timeout_s;
	return 1;
}

/* Authentication. */

static void
ssh_conn_authenticated(struct ssh_conn *c)
{
	struct ssh_pool	*p = c->pool;

	if (c->agent != NULL) {
		libssh2_agent_disconnect(c->agent);
		libssh2_agent_free(c->agent);
		c->agent = NULL;
	}
	libssh2_keepalive_config(c->sess, 1, (unsigned)p->cfg.keepalive_s);
	c->deadline = 0;
	c->st = CS_READY;
	c->tries = 0;
	if (c->is_jump) {
		c->rs = RS_FINISHED;
		ssh_pool_wake_jump_waiters(p);
		return;
	}
	if (c->has_job) {
		c->st = CS_JOB;
		c->js = JS_START;
		c->again = 1;
	}
}

static int
ssh_conn_auth_list(struct ssh_conn *c)
{
	char	*list;

	list = libssh2_userauth_list(c->sess, c->user,
	    (unsigned)strlen(c->user));
	if (list == NULL) {
		if (libssh2_userauth_authenticated(c->sess)) {
			ssh_conn_authenticated(c);
			return 1;
		}
		if (ssh_last_again(c->sess)) {
			if (proc_now() >= c->deadline) {
				ssh_conn_fail(c, SSH_TIMEOUT, "no answer to "
				    "authentication from %s within %lds",
				    c->name, c->pool->cfg.connect_timeout_s);
				return 0;
			}
			return ssh_conn_wait(c);
		}
		ssh_conn_fail(c, SSH_ERROR, "authentication with %s: %s",
		    c->name, ssh_liberr(c->sess));
		return 0;
	}
	if (strstr(list, "publickey") == NULL) {
		ssh_conn_fail(c, SSH_AUTH, "%s accepts only %s for user '%s'; "
		    "provision logs in with keys (publickey)", c->name, list,
		    c->user);
		return 0;
	}
	c->auth_i = 0;
	c->agent_state = 0;
	strvec_clear(&c->tried);
	free(c->rsa_refused);
	free(c->decrypt_failed);
	c->rsa_refused = c->decrypt_failed = NULL;
	c->st = CS_AUTH;
	return 1;
}

static void
ssh_conn_auth_denied(struct ssh_conn *c)
{
	struct buf	b = BUF_INIT;
	size_t		i;

	buf_addf(&b, "permission denied for user '%s' on %s (publickey)",
	    c->user, c->name);
	if (c->tried.n > 0) {
		buf_adds(&b, ": tried ");
		for (i = 0; i < c->tried.n; i++)
			buf_addf(&b, "%s%s", i ? ", " : "", c->tried.v[i]);
	}
	if (c->decrypt_failed != NULL)
		buf_addf(&b, "; could not decrypt %s: wrong passphrase?",
		    c->decrypt_failed);
	if (c->rsa_refused != NULL)
		buf_addf(&b, "; the RSA key %s was refused: libssh2 1.10 signs "
		    "RSA keys only with ssh-rsa (SHA-1), which OpenSSH 8.8 and "
		    "later refuse; use an ed25519 key (ssh-keygen -t ed25519) "
		    "and add it to the node's authorized_keys",
		    c->rsa_refused);
	ssh_conn_fail(c, SSH_AUTH, "%s", b.buf);
	buf_release(&b);
}

/* Try the agent's keys in turn: 1 done (success or exhausted), 0 wait. */
static int
ssh_conn_auth_agent(struct ssh_conn *c, int *ok)
{
	int	r;

	*ok = 0;
	if (c->agent_state == 0) {
		c->agent = libssh2_agent_init(c->sess);
		if (c->agent == NULL || libssh2_agent_connect(c->agent) != 0 ||
		    libssh2_agent_list_identities(c->agent) != 0) {
			strvec_push(&c->tried, "ssh-agent (not reachable)");
			c->agent_state = 3;
			return 1;
		}
		c->agent_id = NULL;
		c->agent_keys = 0;
		c->agent_state = 1;
	}
	for (;;) {
		if (c->agent_state == 1) {
			r = libssh2_agent_get_identity(c->agent, &c->agent_id,
			    c->agent_id);
			if (r != 0) {
				strvec_pushf(&c->tried, "ssh-agent (%d key%s)",
				    c->agent_keys, c->agent_keys == 1 ? "" : "s");
				c->agent_state = 3;
				return 1;
			}
			c->agent_keys++;
			c->agent_state = 2;
		}
		r = libssh2_agent_userauth(c->agent, c->user, c->agent_id);
		if (r == LIBSSH2_ERROR_EAGAIN)
			return 0;
		if (r == 0) {
			*ok = 1;
			return 1;
		}
		c->agent_state = 1;
	}
}

static int
ssh_conn_auth(struct ssh_conn *c)
{
	struct ssh_pool	*p = c->pool;
	int		 r, ok;

	if (proc_now() >= c->deadline) {
		ssh_conn_fail(c, SSH_TIMEOUT, "authentication with %s did not "
		    "finish within %lds", c->name, p->cfg.connect_timeout_s);
		return 0;
	}
	while (c->auth_i < p->nids) {
		struct ssh_ident	*id = &p->ids[c->auth_i];

		if (id->agent) {
			if (!ssh_conn_auth_agent(c, &ok))
				return ssh_conn_wait(c);
			if (ok) {
				ssh_conn_authenticated(c);
				return 1;
			}
			c->auth_i++;
			continue;
		}
		if (id->pkey != NULL) {
			void	*who = id;

			r = libssh2_userauth_publickey(c->sess, c->user,
			    id->blob, id->bloblen, ssh_ident_sign, &who);
		} else
			r = libssh2_userauth_publickey_frommemory(c->sess,
			    c->user, strlen(c->user), id->pub, id->pub != NULL ?
			    id->publen : 0, id->priv, id->privlen, id->encrypted ?
			    p->cfg.passphrase : NULL);
		if (r == LIBSSH2_ERROR_EAGAIN)
			return ssh_conn_wait(c);
		if (r == 0) {
			ssh_conn_authenticated(c);
			return 1;
		}
		if (r == LIBSSH2_ERROR_SOCKET_SEND ||
		    r == LIBSSH2_ERROR_SOCKET_RECV ||
		    r == LIBSSH2_ERROR_SOCKET_DISCONNECT) {
			ssh_conn_fail(c, SSH_ERROR, "connection to %s lost "
			    "during authentication: %s", c->name,
			    ssh_liberr(c->sess));
			return 0;
		}
		strvec_push(&c->tried, id->path);
		/*
		 * -18: the server refused the key.  Anything else from an
		 * encrypted key is libssh2 failing to decrypt it to sign
		 * (-19 "Callback returned error", -48, -16).
		 */
		if (r != LIBSSH2_ERROR_AUTHENTICATION_FAILED && id->encrypted &&
		    c->decrypt_failed == NULL)
			c->decrypt_failed = xstrdup(id->path);
		else if (id->type != NULL && strcmp(id->type, "ssh-rsa") == 0 &&
		    c->rsa_refused == NULL)
			c->rsa_refused = xstrdup(id->path);
		c->auth_i++;
	}
	ssh_conn_auth_denied(c);
	return 0;
}

/* Closing politely. */

void
ssh_conn_start_close(struct ssh_conn *c)
{
	if (c->sess == NULL) {
		ssh_conn_abort(c);
		return;
	}
	c->st = CS_CLOSING;
	c->deadline = proc_now() + SSH_CLOSE_WAIT;
	c->again = 1;
}

static int
ssh_conn_closing(struct ssh_conn *c)
{
	int	r;

	r = libssh2_session_disconnect(c->sess, "done");
	if (SSH_AGAIN(r) && proc_now() < c->deadline)
		return ssh_conn_wait(c);
	ssh_conn_abort(c);
	return 0;
}

/* One step of a connection; 1 to step again at once. */
static int
ssh_conn_dispatch(struct ssh_conn *c)
{
	switch (c->st) {
	case CS_IDLE:
		c->events = 0;
		return 0;
	case CS_RETRY_WAIT:
		c->events = 0;
		if (proc_now() < c->wake)
			return 0;
		c->st = c->pool->jump != NULL && !c->is_jump ? CS_JUMP_WAIT :
		    CS_CONNECT;
		return 1;
	case CS_JUMP_WAIT:
		return ssh_conn_jump_wait(c);
	case CS_TUNNEL:
		return ssh_conn_tunnel(c);
	case CS_CONNECT:
		return ssh_conn_tcp(c);
	case CS_HANDSHAKE:
		return ssh_conn_handshake(c);
	case CS_AUTH_LIST:
		return ssh_conn_auth_list(c);
	case CS_AUTH:
		return ssh_conn_auth(c);
	case CS_READY:
		c->events = 0;
		return 0;
	case CS_JOB:
		return ssh_conn_job(c);
	case CS_CLOSING:
		return ssh_conn_closing(c);
	}
	return 0;
}

void
ssh_conn_step(struct ssh_conn *c)
{
	int	guard = 0;

	c->again = 0;
	while (ssh_conn_dispatch(c)) {
		c->revents = 0;
		if (++guard >= 256) {
			c->again = 1;
			break;
		}
	}
	c->revents = 0;
	if (c->lend_me) {
		c->lend_me = 0;
		if (!ssh_pool_lend(c->pool, c))
			c->again = 1;	/* no send thread: write here */
	}
}

/* The jump host's tunnels. */

static int
ssh_tunnel_pump(struct ssh_conn *c)
{
	struct ssh_tunnel	*t = c->tun;
	ssize_t			 n;
	int			 moved = 0, r;

	if (t == NULL || t->dead)
		return 0;
	if (!t->up_eof && t->uplen < SSH_TUN_BUF) {
		n = recv(t->fd, t->up + t->uplen, SSH_TUN_BUF - t->uplen, 0);
		if (n > 0) {
			t->uplen += (size_t)n;
			moved = 1;
		} else if (n == 0 || (errno != EAGAIN && errno != EINTR))
			t->up_eof = 1;
	}
	while (t->uplen > 0) {
		n = libssh2_channel_write(t->ch, t->up, t->uplen);
		if (n > 0) {
			memmove(t->up, t->up + n, t->uplen - (size_t)n);
			t->uplen -= (size_t)n;
			moved = 1;
			continue;
		}
		if (!SSH_AGAIN(n))
			t->dead = 1;
		break;
	}
	if (t->up_eof && t->uplen == 0 && !t->eof_sent && !t->dead) {
		r = libssh2_channel_send_eof(t->ch);
		if (!SSH_AGAIN(r))
			t->eof_sent = 1;
	}
	if (t->downoff == t->downlen && !t->down_eof && !t->dead) {
		t->downoff = t->downlen = 0;
		n = libssh2_channel_read(t->ch, t->down, SSH_TUN_BUF);
		if (n > 0) {
			t->downlen = (size_t)n;
			moved = 1;
		} else if (n == 0 || !SSH_AGAIN(n)) {
			if (n != 0 || libssh2_channel_eof(t->ch))
				t->down_eof = 1;
		}
	}
	if (t->downoff < t->downlen) {
		n = send(t->fd, t->down + t->downoff, t->downlen - t->downoff,
		    MSG_NOSIGNAL);
		if (n > 0) {
			t->downoff += (size_t)n;
			moved = 1;
		} else if (n < 0 && errno != EAGAIN && errno != EINTR)
			t->dead = 1;
	}
	if (t->down_eof && t->downoff == t->downlen && !t->shut) {
		shutdown(t->fd, SHUT_WR);
		t->shut = 1;
	}
	if (t->dead && !t->shut) {
		shutdown(t->fd, SHUT_RDWR);
		t->shut = 1;
	}
	return moved;
}

void
ssh_pool_pump(struct ssh_pool *p)
{
	struct ssh_conn	*j = p->jump;
	size_t		 i, k;
	int		 moved, round;
	LIBSSH2_CHANNEL	*ch;

	if (j == NULL || j->st != CS_READY)
		return;
	if (p->tun_orphan) {
		ch = libssh2_channel_direct_tcpip_ex(j->sess, "0.0.0.0", 1,
		    "127.0.0.1", 22);
		if (ch != NULL) {
			ALLOC_GROW(p->grave, p->ngrave + 1, p->agrave);
			p->grave[p->ngrave++] = ch;
			p->tun_orphan = 0;
			ssh_pool_wake_jump_waiters(p);
		} else if (!ssh_last_again(j->sess)) {
			p->tun_orphan = 0;
			ssh_pool_wake_jump_waiters(p);
		}
	}
	if (p->tun_opener != NULL)
		p->tun_opener->again = 1;
	for (round = 0; round < 16; round++) {
		moved = 0;
		for (i = 0; i < p->n; i++)
			if (p->c[i].tun != NULL)
				moved |= ssh_tunnel_pump(&p->c[i]);
		if (!moved)
			break;
	}
	for (i = k = 0; i < p->ngrave; i++) {
		int	r = libssh2_channel_free(p->grave[i]);

		if (SSH_AGAIN(r))
			p->grave[k++] = p->grave[i];
	}
	p->ngrave = k;
	if (round == 16)
		j->again = 1;
}

/*
 * ssh.c: many SSH sessions from one poll(2) loop.  See ssh.h.
 *
 * Every host is a `struct ssh_conn`, a state machine stepped whenever its
 * socket is ready, its deadline passes or it asked to run again:
 *
 *	IDLE -> CONNECT -> HANDSHAKE -> (host key) -> AUTH_LIST -> AUTH
 *	     -> READY <-> JOB -> CLOSING -> IDLE
 *
 * with RETRY_WAIT between failed connects (backoff) and, through a jump
 * host, JUMP_WAIT -> TUNNEL instead of CONNECT.  A job is a second,
 * smaller machine (upload over SFTP, finalize command, command, download)
 * and each command runs a channel machine (open, exec, I/O, close).
 * libssh2 runs non-blocking: a call that would block returns EAGAIN and
 * libssh2_session_block_directions() says which way to poll.
 *
 * Jump host: one session to it; each node gets a direct-tcpip channel
 * and a socketpair.  The node's own libssh2 session runs on one end of
 * the pair exactly as on a TCP socket; the loop pumps bytes between the
 * other end and the channel.  libssh2 keeps one channel-open state per
 * session, so tunnels open one at a time, and it keeps one pending
 * outgoing packet per session: a call that finds another channel's
 * packet half-sent fails with LIBSSH2_ERROR_BAD_USE, which is retried
 * like EAGAIN here (the owner is always retried too, so it drains).
 *
 * Output: each stream's first out_max bytes stay in the result; past
 * that, with a spill_dir, the whole stream goes to HOST[.LABEL].out/.err
 * there.  A reader takes at most SSH_READ_BUDGET bytes per host per turn,
 * so one noisy host cannot starve the rest.
 */
#include "compat.h"

#include <fcntl.h>


#include "knownhosts.h"
#include "plan.h"
#include "ssh-int.h"
const char *
ssh_status_name(enum ssh_status s)
{
	switch (s) {
	case SSH_OK:		return "ok";
	case SSH_FAILED:	return "failed";
	case SSH_UNREACHABLE:	return "unreachable";
	case SSH_TIMEOUT:	return "timeout";
	case SSH_HOSTKEY:	return "hostkey";
	case SSH_AUTH:		return "auth";
	case SSH_ERROR:		return "error";
	}
	return "?";
}

void
ssh_result_init(struct ssh_result *r)
{
	memset(r, 0, sizeof *r);
	r->status = SSH_ERROR;
	r->exit_code = -1;
	buf_init(&r->out, 0);
	buf_init(&r->err, 0);
}

void
ssh_result_release(struct ssh_result *r)
{
	if (r == NULL)
		return;
	buf_release(&r->out);
	buf_release(&r->err);
	free(r->exit_signal);
	free(r->out_spill);
	free(r->err_spill);
	free(r->error);
	free(r->upload_sha256);
	ssh_result_init(r);
}

void
ssh_result_move(struct ssh_result *dst, struct ssh_result *src)
{
	ssh_result_release(dst);
	*dst = *src;
	ssh_result_init(src);
}

void
ssh_config_from_plan(struct ssh_config *cfg, const struct plan_ssh *ps)
{
	*cfg = (struct ssh_config)SSH_CONFIG_INIT;
	cfg->user = ps->user;
	cfg->identity = ps->identity;
	cfg->known_hosts = ps->known_hosts;
	cfg->accept_new = ps->host_keys == PLAN_HOST_KEYS_ACCEPT_NEW;
	cfg->jump = ps->jump_host;
	cfg->jump_addr = ps->jump_addr;
	cfg->port = ps->port;
	cfg->forks = ps->forks;
	cfg->max_startups = ps->max_startups;
	cfg->connect_timeout_s = ps->connect_timeout_s;
	cfg->command_timeout_s = ps->command_timeout_s;
	cfg->become = ps->become != NULL;
}

/* The text of libssh2's last error on s. */
const char *
ssh_liberr(LIBSSH2_SESSION *s)
{
	char	*msg = NULL;

	if (s == NULL)
		return "no session";
	libssh2_session_last_error(s, &msg, NULL, 0);
	return msg != NULL && *msg != '\0' ? msg : "unknown libssh2 error";
}

int
ssh_last_again(LIBSSH2_SESSION *s)
{
	int	e = libssh2_session_last_errno(s);

	return SSH_AGAIN(e);
}

void
ssh_set_nonblock(int fd)
{
	int	fl = fcntl(fd, F_GETFL);

	if (fl >= 0)
		fcntl(fd, F_SETFL, fl | O_NONBLOCK);
	fcntl(fd, F_SETFD, FD_CLOEXEC);
}

/* Raise RLIMIT_NOFILE's soft limit towards `need`; returns what is there. */
static rlim_t
ssh_raise_nofile(rlim_t need)
{
	struct rlimit	rl;

	if (getrlimit(RLIMIT_NOFILE, &rl) != 0)
		return 1024;
	if (rl.rlim_cur != RLIM_INFINITY && rl.rlim_cur < need) {
		rl.rlim_cur = rl.rlim_max == RLIM_INFINITY || rl.rlim_max > need ?
		    need : rl.rlim_max;
		if (setrlimit(RLIMIT_NOFILE, &rl) != 0)
			getrlimit(RLIMIT_NOFILE, &rl);
	}
	return rl.rlim_cur;
}

/*
 * "[user@]host[:port]" or "[user@][v6addr]:port" into parts; user and port
 * stay as given when absent.
 */
static int
ssh_parse_jump(const char *spec, char **user, char **host, long *port)
{
	const char	*at = strrchr(spec, '@'), *h = spec, *colon;
	char		*end;

	if (at != NULL) {
		*user = xstrndup(spec, (size_t)(at - spec));
		h = at + 1;
	}
	if (*h == '[') {
		const char	*rb = strchr(h, ']');

		if (rb == NULL)
			return -1;
		*host = xstrndup(h + 1, (size_t)(rb - h - 1));
		colon = rb[1] == ':' ? rb + 1 : NULL;
	} else {
		colon = strchr(h, ':');
		*host = colon != NULL ? xstrndup(h, (size_t)(colon - h)) :
		    xstrdup(h);
	}
	if (colon != NULL) {
		long	v = strtol(colon + 1, &end, 10);

		if (*end != '\0' || v <= 0 || v > 65535)
			return -1;
		*port = v;
	}
	return **host != '\0' ? 0 : -1;
}

static void
ssh_conn_init(struct ssh_conn *c, struct ssh_pool *p, size_t idx,
    const char *name, const char *addr, long port, const char *user)
{
	memset(c, 0, sizeof *c);
	c->pool = p;
	c->idx = idx;
	c->name = xstrdup(name);
	c->addr = xstrdup(addr != NULL && *addr != '\0' ? addr : name);
	c->port = port > 0 ? port : p->cfg.port;
	c->user = xstrdup(user);
	c->fd = -1;
	c->lfd = -1;
	c->spill_fd[1] = c->spill_fd[2] = -1;
	c->tried = (struct strvec)STRVEC_INIT;
	buf_init(&c->iout, 0);
	buf_init(&c->feed, 0);
	buf_init(&c->ierr, 0);
	ssh_result_init(&c->res);
}

/* Hostkey algorithms libssh2 offers, in its own order, for reordering. */
static char *
ssh_hostkey_algs(void)
{
	LIBSSH2_SESSION	 *s = libssh2_session_init();
	const char	**algs = NULL;
	struct buf	  b = BUF_INIT;
	int		  n, i;

	if (s == NULL)
		return xstrdup("ssh-ed25519");
	n = libssh2_session_supported_algs(s, LIBSSH2_METHOD_HOSTKEY, &algs);
	/* ed25519 first, as OpenSSH does since 8.5. */
	for (i = 0; i < n; i++)
		if (strcmp(algs[i], "ssh-ed25519") == 0)
			buf_adds(&b, "ssh-ed25519");
	for (i = 0; i < n; i++) {
		if (strcmp(algs[i], "ssh-ed25519") == 0 ||
		    strstr(algs[i], "cert") != NULL)
			continue;
		if (b.len > 0)
			buf_addch(&b, ',');
		buf_adds(&b, algs[i]);
	}
	if (n > 0)
		libssh2_free(s, algs);
	libssh2_session_free(s);
	return buf_detach(&b, NULL);
}

int
ssh_pool_new(struct ssh_pool **out, const struct ssh_config *cfg,
    const struct ssh_host *hosts, size_t n, struct prov_err *err)
{
	struct ssh_pool	*p = xcalloc(1, sizeof *p);
	char		*khpath = NULL, *juser = NULL, *jhost = NULL;
	long		 jport;
	size_t		 i;
	rlim_t		 have, need;
	int		 r = -1;

	*out = NULL;
	p->cfg = *cfg;
	p->notes = (struct strvec)STRVEC_INIT;
	p->back_pipe[0] = p->back_pipe[1] = -1;
	if (p->cfg.port <= 0)
		p->cfg.port = 22;
	if (p->cfg.forks <= 0)
		p->cfg.forks = SSH_DEFAULT_FORKS;
	if (p->cfg.max_startups <= 0)
		p->cfg.max_startups = SSH_DEFAULT_MAX_STARTUPS;
	if (p->cfg.connect_timeout_s <= 0)
		p->cfg.connect_timeout_s = SSH_DEFAULT_CONNECT_TIMEOUT;
	if (p->cfg.tries <= 0)
		p->cfg.tries = SSH_DEFAULT_TRIES;
	if (p->cfg.keepalive_s <= 0)
		p->cfg.keepalive_s = SSH_DEFAULT_KEEPALIVE;
	if (p->cfg.out_max == 0)
		p->cfg.out_max = SSH_DEFAULT_OUT_MAX;
	p->user = xstrdup(cfg->user != NULL ? cfg->user : "root");
	if (libssh2_init(0) != 0) {
		prov_err_set(err, PROV_E_SSH, "libssh2 failed to start");
		goto out;
	}
	p->libssh2_up = 1;
	if (ssh_pool_load_idents(p, err) != 0)
		goto out;
	khpath = cfg->known_hosts != NULL ? xstrdup(cfg->known_hosts) :
	    xasprintf("%s/.ssh/known_hosts", ssh_home());
	if (knownhosts_load(&p->kh, khpath, err) != 0)
		goto out;
	if (cfg->known_hosts == NULL &&
	    knownhosts_load_more(p->kh, "/etc/ssh/ssh_known_hosts", err) != 0)
		goto out;
	for (i = 0; i < knownhosts_notes(p->kh)->n; i++)
		strvec_push(&p->notes, knownhosts_notes(p->kh)->v[i]);
	p->hostkey_algs = ssh_hostkey_algs();
	/* Descriptors: a socket, a tunnel end, two spill files, a file. */
	need = (rlim_t)(p->cfg.keep_open ? n + (size_t)p->cfg.forks :
	    (size_t)p->cfg.forks) * 5 + 64;
	have = ssh_raise_nofile(need);
	if (have < need) {
		long	fit = have > 64 + 5 ? (long)((have - 64) / 5) : 1;

		if (fit < p->cfg.forks) {
			strvec_pushf(&p->notes, "forks lowered from %ld to %ld:"
			    " the open file limit is %lu", p->cfg.forks, fit,
			    (unsigned long)have);
			p->cfg.forks = fit;
		}
	}
	p->n = n;
	p->c = xcalloc(n ? n : 1, sizeof *p->c);
	for (i = 0; i < n; i++)
		ssh_conn_init(&p->c[i], p, i, hosts[i].name, hosts[i].addr,
		    hosts[i].port, p->user);
	if (cfg->jump != NULL && *cfg->jump != '\0') {
		jport = 22;
		if (ssh_parse_jump(cfg->jump, &juser, &jhost, &jport) != 0) {
			prov_err_set(err, PROV_E_USAGE, "bad jump host '%s' "
			    "(want [user@]host[:port])", cfg->jump);
			goto out;
		}
		p->jump = xcalloc(1, sizeof *p->jump);
		ssh_conn_init(p->jump, p, SIZE_MAX, jhost, cfg->jump_addr != NULL ?
		    cfg->jump_addr : jhost, jport, juser != NULL ? juser : p->user);
		p->jump->is_jump = 1;
	}
	p->rbuf = xmalloc(SSH_READ_CHUNK);
	*out = p;
	p = NULL;
	r = 0;
out:
	free(khpath);
	free(juser);
	free(jhost);
	ssh_pool_free(p);
	return r;
}

size_t
ssh_pool_send_threads(const struct ssh_pool *p)
{
	return p->nsnd;
}

const struct strvec *
ssh_pool_notes(const struct ssh_pool *p)
{
	return &p->notes;
}

/* Tearing down. */

static void
ssh_tunnel_free(struct ssh_pool *p, struct ssh_tunnel *t)
{
	if (t == NULL)
		return;
	if (t->ch != NULL) {
		ALLOC_GROW(p->grave, p->ngrave + 1, p->agrave);
		p->grave[p->ngrave++] = t->ch;
	}
	if (t->fd >= 0)
		close(t->fd);
	free(t->up);
	free(t->down);
	free(t);
}

static void
ssh_conn_sftp_drop(struct ssh_conn *c)
{
	/* Freed with the session; the handles only point into it. */
	c->sfh = NULL;
	c->sftp = NULL;
}

void
ssh_filedata_unref(struct ssh_filedata *fd)
{
	if (fd != NULL && --fd->refs == 0)
		free(fd);
}

void
ssh_conn_job_files_release(struct ssh_conn *c)
{
	ssh_filedata_unref(c->fdata);
	c->fdata = NULL;
	if (c->lfd >= 0)
		close(c->lfd);
	c->lfd = -1;
	buf_release_secret(&c->feed);
	c->feedoff = 0;
	c->feed_open = 0;
	free(c->fbuf);
	c->fbuf = NULL;
	c->flen = c->foff = 0;
	c->feof = 0;
	if (c->dl_tmp != NULL)
		unlink(c->dl_tmp);
	free(c->dl_tmp);
	free(c->dl_path);
	free(c->staging);
	free(c->final_dst);
	c->dl_tmp = c->dl_path = c->staging = c->final_dst = NULL;
	if (c->spill_fd[1] >= 0)
		close(c->spill_fd[1]);
	if (c->spill_fd[2] >= 0)
		close(c->spill_fd[2]);
	c->spill_fd[1] = c->spill_fd[2] = -1;
}

/* Drop the session at once: no goodbye (it failed, or timed out). */
void
ssh_conn_abort(struct ssh_conn *c)
{
	int	i;

	if (c->fd >= 0)
		shutdown(c->fd, SHUT_RDWR);
	if (c->agent != NULL) {
		libssh2_agent_disconnect(c->agent);
		libssh2_agent_free(c->agent);
		c->agent = NULL;
	}
	ssh_conn_sftp_drop(c);
	c->ch = NULL;
	if (c->sess != NULL) {
		for (i = 0; i < 8; i++)
			if (libssh2_session_free(c->sess) !=
			    LIBSSH2_ERROR_EAGAIN)
				break;
		c->sess = NULL;
	}
	if (c->fd >= 0)
		close(c->fd);
	c->fd = -1;
	ssh_tunnel_free(c->pool, c->tun);
	c->tun = NULL;
	if (c->pool->tun_opener == c) {
		c->pool->tun_opener = NULL;
		c->pool->tun_orphan = 1;
	}
	c->st = CS_IDLE;
	c->events = 0;
	c->deadline = 0;
	c->agent_state = 0;
	c->agent_id = NULL;
	c->auth_i = 0;
}

static void
ssh_conn_release(struct ssh_conn *c)
{
	ssh_conn_abort(c);
	ssh_conn_job_files_release(c);
	free(c->name);
	free(c->addr);
	free(c->user);
	free(c->fail_msg);
	free(c->rsa_refused);
	free(c->decrypt_failed);
	free(c->cmdline);
	free(c->ch_signal);
	free(c->ch_error);
	free(c->lent_err);
	strvec_clear(&c->tried);
	buf_release(&c->iout);
	buf_release(&c->ierr);
	buf_release_secret(&c->feed);
	ssh_result_release(&c->res);
}


void
ssh_pool_free(struct ssh_pool *p)
{
	size_t	i;

	if (p == NULL)
		return;
	ssh_pool_senders_stop(p);
	for (i = 0; i < p->n; i++)
		ssh_conn_release(&p->c[i]);
	if (p->jump != NULL) {
		ssh_conn_release(p->jump);
		free(p->jump);
	}
	free(p->grave);
	free(p->c);
	for (i = 0; i < p->nids; i++)
		ssh_ident_release(&p->ids[i]);
	free(p->ids);
	knownhosts_free(p->kh);
	strvec_clear(&p->notes);
	free(p->user);
	free(p->rbuf);
	free(p->hostkey_algs);
	free(p->sum_path);
	ssh_filedata_unref(p->sum_data);
	free(p->pfd);
	free(p->pmap);
	if (p->libssh2_up)
		libssh2_exit();
	free(p);
}

/* The loop. */

/* Between the start of a connection and its login. */
static int
ssh_conn_starting(const struct ssh_conn *c)
{
	return c->st >= CS_JUMP_WAIT && c->st <= CS_AUTH;
}

/*
 * Give hosts their next jobs while fewer than `forks` are busy.  A host
 * that must connect first waits while max_startups others are still
 * connecting: a thousand connects at once overflowed the listen queue of
 * one sshd (its backlog is 128), and the dropped handshakes came back
 * only on TCP's retransmit timer, seconds later (bench/README.md).
 */
static void
ssh_pool_schedule(struct ssh_pool *p)
{
	size_t	starting = 0, i;

	/* Counted only when a host could be given a job: every turn of the
	   loop comes here, most of them with forks busy. */
	if (!p->stop_new && p->active < (size_t)p->cfg.forks &&
	    p->cursor < p->n)
		for (i = 0; i < p->n; i++)
			starting += ssh_conn_starting(&p->c[i]);
	while (!p->stop_new && p->active < (size_t)p->cfg.forks &&
	    p->cursor < p->n) {
		struct ssh_conn		*c = &p->c[p->cursor];
		const struct ssh_job	*j;

		if (c->rs == RS_PENDING && c->st != CS_READY &&
		    starting >= (size_t)p->cfg.max_startups)
			break;
		p->cursor++;
		if (c->rs != RS_PENDING)
			continue;
		j = p->h->next(p->h->arg, c->idx);
		if (j == NULL) {
			c->rs = RS_FINISHED;
			if (!p->cfg.keep_open && c->st == CS_READY)
				ssh_conn_start_close(c);
			continue;
		}
		c->rs = RS_ACTIVE;
		p->active++;
		ssh_result_init(&c->res);
		c->job = j;
		c->has_job = 1;
		c->job_start = proc_now();
		c->again = 1;
		if (c->st == CS_CLOSING)
			ssh_conn_abort(c);
		if (c->st == CS_READY) {
			c->st = CS_JOB;
			c->js = JS_START;
		} else {
			ssh_conn_begin(c);
			starting++;
		}
	}
}

static int
ssh_pool_busy(const struct ssh_pool *p)
{
	size_t	i;

	if (p->active > 0 || (p->cursor < p->n && !p->stop_new))
		return 1;
	for (i = 0; i < p->n; i++)
		if (p->c[i].st == CS_CLOSING)
			return 1;
	if (p->jump != NULL && (p->jump->st == CS_CLOSING ||
	    (p->jump->st != CS_IDLE && p->jump->st != CS_READY)))
		return 1;
	return 0;
}

static void
ssh_pool_add_pfd(struct ssh_pool *p, size_t *np, int fd, short ev, void *who)
{
	if (*np >= p->apfd) {
		p->apfd = p->apfd ? p->apfd * 2 : 64;
		p->pfd = xreallocarray(p->pfd, p->apfd, sizeof *p->pfd);
		p->pmap = xreallocarray(p->pmap, p->apfd, sizeof *p->pmap);
	}
	p->pfd[*np].fd = fd;
	p->pfd[*np].events = ev;
	p->pfd[*np].revents = 0;
	p->pmap[*np] = who;
	(*np)++;
}

static double
ssh_conn_due(const struct ssh_conn *c)
{
	double	d = 0;

	if (c->st == CS_RETRY_WAIT)
		d = c->wake;
	else if (c->deadline > 0)
		d = c->deadline;
	if (c->st == CS_JOB && c->job_deadline > 0 &&
	    (d == 0 || c->job_deadline < d))
		d = c->job_deadline;
	if (c->st == CS_JOB && c->ka_next > 0 && (d == 0 || c->ka_next < d))
		d = c->ka_next;
	return d;
}

/* One poll and the steps it makes due.  -1 when poll itself fails. */
static int
ssh_pool_turn(struct ssh_pool *p, struct prov_err *err)
{
	struct ssh_conn	*j = p->jump;
	size_t		 np = 0, i;
	double		 now = proc_now(), due = 0;
	int		 timeout, any_again = 0, r, jump_ready = 0;
	int		 given_back = 0;

	for (i = 0; i <= p->n; i++) {
		struct ssh_conn	*c = i < p->n ? &p->c[i] : j;
		double		 d;

		if (c == NULL)
			continue;
		/* A lent host's session is its send thread's; its tunnel
		   (the jump host's channel) stays this thread's. */
		if (!c->lent) {
			if (c->again)
				any_again = 1;
			if (c->fd >= 0 && c->events != 0)
				ssh_pool_add_pfd(p, &np, c->fd, c->events, c);
			d = ssh_conn_due(c);
			if (d > 0 && (due == 0 || d < due))
				due = d;
		}
		if (c->tun != NULL && c->tun->fd >= 0 && !c->tun->dead) {
			short	ev = 0;

			if (!c->tun->up_eof && c->tun->uplen < SSH_TUN_BUF)
				ev |= POLLIN;
			if (c->tun->downoff < c->tun->downlen)
				ev |= POLLOUT;
			if (ev)
				ssh_pool_add_pfd(p, &np, c->tun->fd, ev,
				    c->tun);
		}
	}
	if (j != NULL && j->st == CS_READY && j->sess != NULL) {
		short	ev = POLLIN;

		if (libssh2_session_block_directions(j->sess) &
		    LIBSSH2_SESSION_BLOCK_OUTBOUND)
			ev |= POLLOUT;
		ssh_pool_add_pfd(p, &np, j->fd, ev, NULL);
	}
	if (p->nlent > 0)
		ssh_pool_add_pfd(p, &np, p->back_pipe[0], POLLIN, p->back_pipe);
	if (any_again)
		timeout = 0;
	else if (due > 0)
		timeout = due <= now ? 0 : (int)((due - now) * 1000.0) + 1;
	else
		timeout = 1000;
	if (timeout > 1000)
		timeout = 1000;
	r = poll(p->pfd, (nfds_t)np, timeout);
	if (r < 0 && errno != EINTR)
		return prov_err_sys(err, "poll");
	for (i = 0; r > 0 && i < np; i++) {
		void	*who = p->pmap[i];

		if (p->pfd[i].revents == 0)
			continue;
		if (who == NULL)			/* the jump session */
			jump_ready = 1;
		else if (who == (void *)p->back_pipe)	/* a send thread */
			given_back = 1;
		else if (who == (void *)j)		/* the jump, connecting */
			j->revents = p->pfd[i].revents;
		else if ((struct ssh_conn *)who >= p->c &&
		    (struct ssh_conn *)who < p->c + p->n)
			((struct ssh_conn *)who)->revents = p->pfd[i].revents;
		else					/* a tunnel's end */
			jump_ready = 1;
	}
	/* A send thread writes its byte after listing the host. */
	if (given_back)
		ssh_pool_take_back(p);
	now = proc_now();
	if (j != NULL && (j->again || j->revents ||
	    (j->deadline > 0 && now >= j->deadline) ||
	    (j->st == CS_RETRY_WAIT && now >= j->wake)))
		ssh_conn_step(j);
	if (jump_ready || (j != NULL && j->st == CS_READY))
		ssh_pool_pump(p);
	for (i = 0; i < p->n; i++) {
		struct ssh_conn	*c = &p->c[i];
		double		 d;

		if (c->lent)
			continue;
		d = ssh_conn_due(c);
		if (c->again || c->revents || (d > 0 && now >= d))
			ssh_conn_step(c);
	}
	return 0;
}

int
ssh_pool_run(struct ssh_pool *p, const struct ssh_handler *h,
    struct prov_err *err)
{
	size_t	i;
	int	r = 0;

	p->h = h;
	p->active = 0;
	p->cursor = 0;
	p->stop_new = 0;
	for (i = 0; i < p->n; i++) {
		p->c[i].rs = RS_PENDING;
		p->c[i].failed = 0;
	}
	if (p->jump != NULL && p->jump->failed) {
		p->jump->failed = 0;
		p->jump->st = CS_IDLE;
	}
	for (;;) {
		ssh_pool_schedule(p);
		if (!ssh_pool_busy(p))
			break;
		if (ssh_pool_turn(p, err) != 0) {
			r = -1;
			break;
		}
	}
	ssh_pool_recall(p);
	if (!p->cfg.keep_open && p->jump != NULL && p->jump->sess != NULL) {
		ssh_conn_start_close(p->jump);
		while (p->jump->st == CS_CLOSING)
			if (ssh_pool_turn(p, err) != 0)
				break;
	}
	/*
	 * A shared copy of an uploaded file lives for one run, not for the
	 * pool's life: the next run hashes the (small) file again.
	 */
	if (p->sum_data != NULL) {
		ssh_filedata_unref(p->sum_data);
		p->sum_data = NULL;
		free(p->sum_path);
		p->sum_path = NULL;
	}
	p->h = NULL;
	return r;
}

int
ssh_pool_feed(struct ssh_pool *p, size_t host, const void *data, size_t len,
    int eof)
{
	struct ssh_conn	*c;

	if (host >= p->n)
		return -1;
	c = &p->c[host];
	if (!c->has_job || !c->feed_open || c->internal)
		return -1;
	buf_add(&c->feed, data, len);
	if (eof)
		c->feed_open = 0;
	/* what is fed is a new command for the timeout (not while lent:
	   its send thread reads the deadline, and no command runs yet) */
	if (c->job_deadline > 0 && !c->lent)
		c->job_deadline = proc_now() + (double)(c->job->timeout_s > 0 ?
		    c->job->timeout_s : p->cfg.command_timeout_s);
	c->again = 1;
	return 0;
}

static const struct ssh_job *
ssh_pool_no_job(void *arg, size_t i)
{
	(void)arg;
	(void)i;
	return NULL;
}

void
ssh_pool_close(struct ssh_pool *p)
{
	struct ssh_handler	h = { ssh_pool_no_job, NULL, NULL, NULL };
	struct prov_err		err = PROV_ERR_INIT;
	size_t			i;
	int			keep = p->cfg.keep_open;

	p->cfg.keep_open = 0;
	p->h = &h;
	for (i = 0; i < p->n; i++)
		if (p->c[i].st == CS_READY)
			ssh_conn_start_close(&p->c[i]);
	if (p->jump != NULL && p->jump->st == CS_READY)
		ssh_conn_start_close(p->jump);
	p->active = 0;
	p->cursor = p->n;
	while (ssh_pool_busy(p))
		if (ssh_pool_turn(p, &err) != 0)
			break;
	prov_err_release(&err);
	p->h = NULL;
	p->cfg.keep_open = keep;
}

/* ssh_run_all: the same job everywhere. */

struct ssh_all {
	const struct ssh_job	*job;
	struct ssh_result	*results;
	unsigned char		*asked;
	const struct ssh_handler *user;
};

static const struct ssh_job *
ssh_all_next(void *arg, size_t i)
{
	struct ssh_all	*a = arg;

	if (a->asked[i])
		return NULL;
	a->asked[i] = 1;
	return a->job;
}

static void
ssh_all_done(void *arg, size_t i, const struct ssh_job *j,
    struct ssh_result *r)
{
	struct ssh_all	*a = arg;

	(void)j;
	ssh_result_move(&a->results[i], r);
}

static void
ssh_all_output(void *arg, size_t i, int stream, const char *d, size_t n)
{
	struct ssh_all	*a = arg;

	if (a->user != NULL && a->user->output != NULL)
		a->user->output(a->user->arg, i, stream, d, n);
}

int
ssh_run_all(const struct ssh_config *cfg, const struct ssh_host *hosts,
    size_t n, const struct ssh_job *job, struct ssh_result *results,
    const struct ssh_handler *user, struct strvec *notes,
    struct prov_err *err)
{
	struct ssh_pool		*p = NULL;
	struct ssh_all		 a;
	struct ssh_handler	 h;
	size_t			 i;
	int			 r;

	for (i = 0; i < n; i++)
		ssh_result_init(&results[i]);
	if (ssh_pool_new(&p, cfg, hosts, n, err) != 0)
		return -1;
	a.job = job;
	a.results = results;
	a.asked = xcalloc(n ? n : 1, 1);
	a.user = user;
	h.next = ssh_all_next;
	h.done = ssh_all_done;
	h.output = user != NULL && user->output != NULL ? ssh_all_output :
	    NULL;
	h.arg = &a;
	r = ssh_pool_run(p, &h, err);
	if (notes != NULL)
		for (i = 0; i < p->notes.n; i++)
			strvec_push(notes, p->notes.v[i]);
	ssh_pool_free(p);
	free(a.asked);
	return r;
}

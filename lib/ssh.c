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

#include <arpa/inet.h>
#include <fcntl.h>
#include <libgen.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <pthread.h>
#include <pwd.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>

#include <libssh2.h>
#include <libssh2_sftp.h>
#include <openssl/evp.h>
#include <openssl/rand.h>

#include "buf.h"
#include "err.h"
#include "fs.h"
#include "knownhosts.h"
#include "plan.h"
#include "ssh.h"
#include "strvec.h"

#define SSH_READ_CHUNK		(64 * 1024)
#define SSH_READ_BUDGET		(1024 * 1024)
#define SSH_FILE_CHUNK		(256 * 1024)
#define SSH_UP_BUF		(512 * 1024)	/* an upload's file buffer */
#define SSH_UP_REFILL		(256 * 1024)	/* topped up below this */
#define SSH_UP_SHARE_MAX	(64 * 1024 * 1024) /* read once up to this */
#define SSH_HASH_FAST_MIN	(1024 * 1024)	/* openssl checks from here */
#define SSH_TUN_BUF		(32 * 1024)
#define SSH_INTERNAL_MAX	(64 * 1024)
#define SSH_CLOSE_WAIT		2.0
#define SSH_SEND_THREADS_MAX	8

#define SSH_AGAIN(r)							\
	((r) == LIBSSH2_ERROR_EAGAIN || (r) == LIBSSH2_ERROR_BAD_USE)

enum ssh_cstate {
	CS_IDLE = 0,
	CS_RETRY_WAIT,
	CS_JUMP_WAIT,
	CS_TUNNEL,
	CS_CONNECT,
	CS_HANDSHAKE,
	CS_AUTH_LIST,
	CS_AUTH,
	CS_READY,
	CS_JOB,
	CS_CLOSING,
};

enum ssh_jstep {
	JS_START = 0,
	JS_UP_LOCAL,
	JS_UP_SFTP,
	JS_UP_STAT,
	JS_UP_OPEN,
	JS_UP_WRITE,
	JS_UP_DISCARD,
	JS_UP_MODE,
	JS_UP_FSYNC,
	JS_UP_CLOSE,
	JS_UP_SHUTDOWN,
	JS_UP_FINAL,
	JS_UP_FINAL_WAIT,
	JS_CMD,
	JS_CMD_WAIT,
	JS_DL_SFTP,
	JS_DL_OPEN,
	JS_DL_READ,
	JS_DL_CLOSE,
	JS_DL_SHUTDOWN,
	JS_END,
};

enum ssh_chstep {
	CH_OPEN = 0,
	CH_EXEC,
	CH_IO,
	CH_CLOSE,
	CH_WAIT_CLOSED,
	CH_FREE,
	CH_DONE,
};

enum ssh_runstate {
	RS_PENDING = 0,	/* not asked for work yet in this run */
	RS_ACTIVE,	/* connecting or running a job: holds a fork slot */
	RS_FINISHED,	/* no more work in this run */
};

/* A key to offer: a file loaded once for every session, or the agent. */
struct ssh_ident {
	int	 agent;
	char	*path;
	char	*type;
	int	 encrypted;
	char	*priv;
	size_t	 privlen;
	char	*pub;			/* "type base64" or NULL */
	size_t	 publen;
};

/*
 * A file to upload read once, when it is hashed, for every host that
 * copies it (up to SSH_UP_SHARE_MAX bytes): no read(2) per host and no
 * per-host buffer.  Counted: the pool's cache holds one reference and
 * each host sending it another, so a new file in the cache never frees
 * one still being sent.
 */
struct ssh_filedata {
	size_t	 refs;
	size_t	 len;
	char	 data[];
};

/* A node's session carried by a direct-tcpip channel of the jump host. */
struct ssh_tunnel {
	LIBSSH2_CHANNEL	*ch;
	int		 fd;		/* our end of the socketpair */
	char		*up;		/* node session -> channel */
	size_t		 uplen;
	char		*down;		/* channel -> node session */
	size_t		 downoff, downlen;
	int		 up_eof, eof_sent, down_eof, shut, dead;
};

struct ssh_conn {
	struct ssh_pool		*pool;
	size_t			 idx;
	int			 is_jump;
	char			*name, *addr, *user;
	long			 port;
	enum ssh_cstate		 st;
	enum ssh_runstate	 rs;
	int			 fd;
	short			 events, revents;
	int			 again;
	double			 deadline;	/* 0: none */
	double			 wake;
	int			 tries;
	int			 resolved;
	struct sockaddr_storage	 sa;
	socklen_t		 salen;
	LIBSSH2_SESSION		*sess;
	char			*fail_msg;	/* jump: why it failed */
	enum ssh_status		 fail_status;
	int			 failed;	/* this run */

	/* authentication */
	size_t			 auth_i;
	LIBSSH2_AGENT		*agent;
	struct libssh2_agent_publickey *agent_id;
	int			 agent_state;	/* 0 new, 1 listing, 2 trying, 3 done */
	int			 agent_keys;
	struct strvec		 tried;
	char			*rsa_refused;
	char			*decrypt_failed;

	struct ssh_tunnel	*tun;

	/* the job */
	const struct ssh_job	*job;
	struct ssh_result	 res;
	int			 has_job;
	double			 job_start, job_deadline;
	enum ssh_jstep		 js;
	int			 spill_fd[3];

	/* the channel */
	LIBSSH2_CHANNEL		*ch;
	enum ssh_chstep		 cs;
	char			*cmdline;
	const char		*in;
	size_t			 inlen, inoff;
	struct buf		 feed;		/* more stdin: ssh_pool_feed() */
	size_t			 feedoff;
	int			 feed_open;	/* EOF waits for ssh_pool_feed() */
	int			 eof_sent;
	int			 internal;
	int			 wrapped;	/* through sudo */
	struct buf		 iout, ierr;
	int			 ch_exit;
	char			*ch_signal;
	char			*ch_error;
	double			 ka_next;	/* next keepalive while waiting */

	/* SFTP */
	LIBSSH2_SFTP		*sftp;
	LIBSSH2_SFTP_HANDLE	*sfh;
	int			 lfd;
	char			*fbuf;
	struct ssh_filedata	*fdata;		/* or the pool's copy */
	size_t			 flen, foff;
	int			 feof;
	struct stat		 lst;		/* the local file at its open */
	char			*staging, *final_dst, *dl_tmp, *dl_path;
	char			 sha_hex[65];
	int			 up_synced;	/* fsync@openssh.com worked */
	int			 up_moded;	/* mode set over SFTP */

	/* lent to a send thread (ssh_pool_lend) */
	int			 up_lent;	/* this upload was (or is) */
	int			 lend_me;	/* wants to be, after this step */
	int			 lent;		/* is: not the pool thread's */
	struct ssh_sender	*lent_to;
	char			*lent_err;	/* why its writing failed */
};

/*
 * A send thread.  libssh2 encrypts every byte of an upload inside
 * libssh2_sftp_write(), one AES block per call in 1.10, so with one
 * thread sending to many hosts the hosts wait while it encrypts and a
 * CPU idles while it waits for them (10 MiB to 50 loopback hosts on two
 * CPUs: 0.45 s of idle CPU in a 2.6 s run; with two send threads none,
 * and 2.25 s).  The pool's thread lends it a host whose upload is more
 * than one buffer (SSH_UP_BUF), just before the first write; the send
 * thread then alone writes that host's bytes, polling its socket
 * itself, and gives the host back when every byte is acknowledged, when
 * writing failed, when the job's deadline has passed, or when recalled.
 * Only ssh_conn_up_write() runs here: no callback, no result, no state
 * change happens off the pool's thread.  The inbox and the pool's `back`
 * list are handed over under the pool's slock; nothing else is shared.
 */
struct ssh_lent {
	struct ssh_conn		*c;
	short			 revents;
	int			 fresh;
};

struct ssh_sender {
	struct ssh_pool		*pool;
	pthread_t		 tid;
	int			 wake[2];	/* pipe: pool thread -> this */
	size_t			 load;		/* hosts lent to it (pool thread) */
	struct ssh_conn		**inbox;	/* under slock */
	size_t			 ninbox, ainbox;
	int			 quit;		/* under slock */
	struct ssh_lent		*own;		/* the thread's own */
	size_t			 nown, aown;
	struct pollfd		*pfd;
	size_t			 apfd;
};

struct ssh_pool {
	struct ssh_config	 cfg;
	char			*user;
	struct ssh_conn		*c;
	size_t			 n;
	struct ssh_conn		*jump;
	struct ssh_ident	*ids;
	size_t			 nids;
	struct knownhosts	*kh;
	struct strvec		 notes;
	const struct ssh_handler *h;
	size_t			 active;
	size_t			 cursor;
	char			*rbuf;
	struct ssh_conn		*tun_opener;
	int			 tun_orphan;
	LIBSSH2_CHANNEL		**grave;	/* jump channels to free */
	size_t			 ngrave, agrave;
	char			*hostkey_algs;	/* supported, default order */
	struct pollfd		*pfd;
	void			**pmap;
	size_t			 apfd;
	int			 libssh2_up;
	int			 stop_new;
	/* SHA-256 of the last file uploaded, hashed once for every host. */
	char			*sum_path;
	struct stat		 sum_st;
	char			 sum_hex[65];
	struct ssh_filedata	*sum_data;	/* its bytes, when small */
	/* send threads, started at the first lend */
	struct ssh_sender	*snd;
	size_t			 nsnd;
	int			 snd_tried;
	pthread_mutex_t		 slock;
	int			 back_pipe[2];	/* send threads -> pool thread */
	struct ssh_conn		**back;		/* given back, under slock */
	size_t			 nback, aback;
	int			 recall;	/* under slock: give all back */
	size_t			 nlent;
};

static double
ssh_now(void)
{
	struct timespec	ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

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
	cfg->connect_timeout_s = ps->connect_timeout_s;
	cfg->command_timeout_s = ps->command_timeout_s;
	cfg->become = ps->become != NULL;
}

/* The text of libssh2's last error on s. */
static const char *
ssh_liberr(LIBSSH2_SESSION *s)
{
	char	*msg = NULL;

	if (s == NULL)
		return "no session";
	libssh2_session_last_error(s, &msg, NULL, 0);
	return msg != NULL && *msg != '\0' ? msg : "unknown libssh2 error";
}

static int
ssh_last_again(LIBSSH2_SESSION *s)
{
	int	e = libssh2_session_last_errno(s);

	return SSH_AGAIN(e);
}

static void
ssh_set_nonblock(int fd)
{
	int	fl = fcntl(fd, F_GETFL);

	if (fl >= 0)
		fcntl(fd, F_SETFL, fl | O_NONBLOCK);
	fcntl(fd, F_SETFD, FD_CLOEXEC);
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

/* Keys. */

static void
ssh_ident_release(struct ssh_ident *id)
{
	free(id->path);
	free(id->type);
	if (id->priv != NULL) {
		explicit_bzero(id->priv, id->privlen);
		free(id->priv);
	}
	free(id->pub);
	memset(id, 0, sizeof *id);
}

static uint32_t
ssh_get_u32(const unsigned char *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 |
	    (uint32_t)p[2] << 8 | p[3];
}

/* Read an SSH string at *p (bounded by end); -1 when it overruns. */
static int
ssh_get_string(const unsigned char **p, const unsigned char *end,
    const unsigned char **s, size_t *len)
{
	uint32_t	n;

	if (end - *p < 4)
		return -1;
	n = ssh_get_u32(*p);
	if ((size_t)(end - *p - 4) < n)
		return -1;
	*s = *p + 4;
	*len = n;
	*p += 4 + n;
	return 0;
}

/*
 * The public half of an "openssh-key-v1" private key file, which is
 * stored unencrypted: type, public key line, cipher.
 */
static int
ssh_parse_openssh_key(const char *text, char **type, char **pub,
    int *encrypted)
{
	const char		*b = strstr(text, "-----BEGIN OPENSSH PRIVATE KEY-----");
	const char		*e;
	const unsigned char	*p, *end, *s;
	struct buf		 b64 = BUF_INIT;
	unsigned char		*raw = NULL;
	size_t			 len, i;
	int			 n, r = -1;
	char			*t = NULL, *enc = NULL;

	if (b == NULL)
		return -1;
	b += 35;
	e = strstr(b, "-----END OPENSSH PRIVATE KEY-----");
	if (e == NULL)
		return -1;
	for (; b < e; b++)
		if (*b != '\n' && *b != '\r' && *b != ' ')
			buf_addch(&b64, *b);
	if (b64.len == 0 || b64.len % 4 != 0)
		goto out;
	raw = xmalloc(b64.len);
	n = EVP_DecodeBlock(raw, (unsigned char *)b64.buf, (int)b64.len);
	if (n < 0)
		goto out;
	p = raw;
	end = raw + n;
	if (end - p < 15 || memcmp(p, "openssh-key-v1\0", 15) != 0)
		goto out;
	p += 15;
	if (ssh_get_string(&p, end, &s, &len) != 0)	/* cipher */
		goto out;
	*encrypted = !(len == 4 && memcmp(s, "none", 4) == 0);
	if (ssh_get_string(&p, end, &s, &len) != 0 ||	/* kdf */
	    ssh_get_string(&p, end, &s, &len) != 0 ||	/* kdf options */
	    end - p < 4)
		goto out;
	p += 4;						/* number of keys */
	if (ssh_get_string(&p, end, &s, &len) != 0)
		goto out;
	t = knownhosts_blob_type(s, len);
	if (t == NULL)
		goto out;
	enc = xmalloc(4 * (len + 2) / 3 + 8);
	EVP_EncodeBlock((unsigned char *)enc, s, (int)len);
	*pub = xasprintf("%s %s", t, enc);
	*type = t;
	t = NULL;
	r = 0;
out:
	for (i = 0; raw != NULL && i < b64.len; i++)
		raw[i] = 0;
	free(raw);
	free(t);
	free(enc);
	buf_release(&b64);
	return r;
}

/* Fill id from the key file at path. */
static int
ssh_ident_load(struct ssh_ident *id, const char *path, struct prov_err *err)
{
	struct buf	 b = BUF_INIT, pb = BUF_INIT;
	char		*pubpath = NULL;
	int		 r = -1;

	memset(id, 0, sizeof *id);
	if (buf_read_file(&b, path) != 0) {
		prov_err_sys(err, "identity '%s'", path);
		goto out;
	}
	id->path = xstrdup(path);
	if (strstr(b.buf, "-----BEGIN OPENSSH PRIVATE KEY-----") != NULL) {
		if (ssh_parse_openssh_key(b.buf, &id->type, &id->pub,
		    &id->encrypted) != 0) {
			prov_err_set(err, PROV_E_AUTH, "identity '%s' is not "
			    "a readable OpenSSH private key", path);
			goto out;
		}
	} else if (strstr(b.buf, "-----BEGIN RSA PRIVATE KEY-----") != NULL) {
		id->type = xstrdup("ssh-rsa");
		id->encrypted = strstr(b.buf, "ENCRYPTED") != NULL;
	} else if (strstr(b.buf, "-----BEGIN EC PRIVATE KEY-----") != NULL) {
		id->type = xstrdup("ecdsa-sha2-nistp256");
		id->encrypted = strstr(b.buf, "ENCRYPTED") != NULL;
	} else if (strstr(b.buf, "-----BEGIN DSA PRIVATE KEY-----") != NULL) {
		id->type = xstrdup("ssh-dss");
		id->encrypted = strstr(b.buf, "ENCRYPTED") != NULL;
	} else if (strstr(b.buf, "-----BEGIN ENCRYPTED PRIVATE KEY-----") !=
	    NULL)
		id->encrypted = 1;
	else if (strstr(b.buf, "-----BEGIN PRIVATE KEY-----") == NULL) {
		prov_err_set(err, PROV_E_AUTH, "identity '%s' is not a private "
		    "key file", path);
		goto out;
	}
	if (id->pub == NULL) {
		pubpath = xasprintf("%s.pub", path);
		if (buf_read_file(&pb, pubpath) == 0) {
			buf_rtrim(&pb);
			id->pub = buf_detach(&pb, NULL);
		}
	}
	if (id->pub != NULL)
		id->publen = strlen(id->pub);
	id->priv = buf_detach(&b, &id->privlen);
	r = 0;
out:
	buf_release_secret(&b);
	buf_release(&pb);
	free(pubpath);
	if (r != 0)
		ssh_ident_release(id);
	return r;
}

int
ssh_key_info(const char *path, char **type_out, int *encrypted,
    struct prov_err *err)
{
	struct ssh_ident	id;

	*type_out = NULL;
	*encrypted = 0;
	if (ssh_ident_load(&id, path, err) != 0)
		return -1;
	*type_out = id.type;
	id.type = NULL;
	*encrypted = id.encrypted;
	ssh_ident_release(&id);
	return 0;
}

static const char *
ssh_home(void)
{
	const char	*h = getenv("HOME");
	struct passwd	*pw;

	if (h != NULL && *h != '\0')
		return h;
	pw = getpwuid(getuid());
	return pw != NULL ? pw->pw_dir : "/";
}

static void
ssh_pool_add_ident(struct ssh_pool *p, struct ssh_ident *id)
{
	p->ids = xreallocarray(p->ids, p->nids + 1, sizeof *p->ids);
	p->ids[p->nids++] = *id;
	memset(id, 0, sizeof *id);
}

static int
ssh_pool_load_idents(struct ssh_pool *p, struct prov_err *err)
{
	struct ssh_ident	 id;
	const char		*sock = getenv("SSH_AUTH_SOCK");
	int			 agent = !p->cfg.no_agent && sock != NULL &&
				    *sock != '\0';
	static const char *const defaults[] = { "id_ed25519", "id_ecdsa",
	    "id_rsa" };
	size_t			 i;

	if (p->cfg.identity != NULL) {
		if (ssh_ident_load(&id, p->cfg.identity, err) != 0)
			return -1;
		if (id.encrypted && p->cfg.passphrase == NULL) {
			prov_err_set(err, PROV_E_AUTH, "identity '%s' is "
			    "encrypted and no passphrase was given",
			    p->cfg.identity);
			ssh_ident_release(&id);
			return -1;
		}
		ssh_pool_add_ident(p, &id);
	}
	if (agent) {
		memset(&id, 0, sizeof id);
		id.agent = 1;
		ssh_pool_add_ident(p, &id);
	}
	if (p->cfg.identity == NULL) {
		for (i = 0; i < ARRAY_SIZE(defaults); i++) {
			struct prov_err	 e2 = PROV_ERR_INIT;
			char		*path = xasprintf("%s/.ssh/%s", ssh_home(),
					    defaults[i]);

			if (access(path, R_OK) != 0) {
				free(path);
				continue;
			}
			if (ssh_ident_load(&id, path, &e2) != 0) {
				strvec_pushf(&p->notes, "%s", e2.msg);
				prov_err_release(&e2);
			} else if (id.encrypted && p->cfg.passphrase == NULL) {
				strvec_pushf(&p->notes, "identity '%s' skipped: "
				    "encrypted and no passphrase was given", path);
				ssh_ident_release(&id);
			} else
				ssh_pool_add_ident(p, &id);
			free(path);
		}
	}
	if (p->nids == 0)
		return prov_err_set(err, PROV_E_AUTH, "no key to log in with: "
		    "no identity file, no ssh-agent (SSH_AUTH_SOCK), no "
		    "~/.ssh/id_ed25519");
	return 0;
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

static void
ssh_filedata_unref(struct ssh_filedata *fd)
{
	if (fd != NULL && --fd->refs == 0)
		free(fd);
}

static void
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
static void
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

static void	ssh_pool_senders_stop(struct ssh_pool *);

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

/* Results and job ends. */

static void
ssh_res_error(struct ssh_conn *c, enum ssh_status st, const char *fmt, ...)
    PROV_PRINTF(3, 4);

static void
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

static void ssh_conn_start_close(struct ssh_conn *);
static void ssh_pool_wake_jump_waiters(struct ssh_pool *);

/* Hand the job's result over and look for the host's next job. */
static void
ssh_conn_job_done(struct ssh_conn *c)
{
	struct ssh_pool		*p = c->pool;
	const struct ssh_job	*job = c->job, *next = NULL;

	c->res.elapsed_s = ssh_now() - c->job_start;
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
		c->job_start = ssh_now();
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
static int
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
		c->wake = ssh_now() + 0.5 * (double)(1 << (c->tries - 1));
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

static void
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
		c->deadline = ssh_now() + (double)p->cfg.connect_timeout_s;
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
		if (c->deadline > 0 && ssh_now() >= c->deadline) {
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
		c->deadline = ssh_now() + (double)p->cfg.connect_timeout_s;
	}
	ch = libssh2_channel_direct_tcpip_ex(j->sess, c->addr, (int)c->port,
	    "127.0.0.1", 22);
	if (ch == NULL) {
		e = libssh2_session_last_errno(j->sess);
		if (SSH_AGAIN(e)) {
			if (c->deadline > 0 && ssh_now() >= c->deadline) {
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
		c->deadline = ssh_now() + (double)p->cfg.connect_timeout_s;
	}
	r = libssh2_session_handshake(c->sess, c->fd);
	if (r == LIBSSH2_ERROR_EAGAIN) {
		if (ssh_now() >= c->deadline) {
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
	c->deadline = ssh_now() + (double)p->cfg.connect_timeout_s;
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
			if (ssh_now() >= c->deadline) {
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

	if (ssh_now() >= c->deadline) {
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
		r = libssh2_userauth_publickey_frommemory(c->sess, c->user,
		    strlen(c->user), id->pub, id->pub != NULL ? id->publen : 0,
		    id->priv, id->privlen, id->encrypted ? p->cfg.passphrase :
		    NULL);
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

/* Output. */

static char *
ssh_spill_path(struct ssh_conn *c, int stream)
{
	const struct ssh_job	*j = c->job;

	if (j != NULL && j->label != NULL)
		return xasprintf("%s/%s.%s.%s", c->pool->cfg.spill_dir, c->name,
		    j->label, stream == 1 ? "out" : "err");
	return xasprintf("%s/%s.%s", c->pool->cfg.spill_dir, c->name,
	    stream == 1 ? "out" : "err");
}

static void
ssh_conn_deliver(struct ssh_conn *c, int stream, const char *data, size_t n)
{
	struct ssh_pool	*p = c->pool;
	struct buf	*b;

	if (c->internal) {
		b = stream == 1 ? &c->iout : &c->ierr;
		b->max = SSH_INTERNAL_MAX;
		buf_add(b, data, n);
		return;
	}
	b = stream == 1 ? &c->res.out : &c->res.err;
	b->max = p->cfg.out_max;
	if (stream == 1)
		c->res.out_total += n;
	else
		c->res.err_total += n;
	if (b->len + n > b->max && p->cfg.spill_dir != NULL &&
	    c->spill_fd[stream] == -1) {
		char	*path = ssh_spill_path(c, stream);

		mkdir(p->cfg.spill_dir, 0700);
		c->spill_fd[stream] = open(path, O_WRONLY | O_CREAT | O_TRUNC |
		    O_NOFOLLOW | O_CLOEXEC, 0600);
		if (c->spill_fd[stream] >= 0) {
			(void)fs_write_all(c->spill_fd[stream], b->buf, b->len);
			if (stream == 1) {
				free(c->res.out_spill);
				c->res.out_spill = path;
			} else {
				free(c->res.err_spill);
				c->res.err_spill = path;
			}
			path = NULL;
		} else
			c->spill_fd[stream] = -2;
		free(path);
	}
	if (c->spill_fd[stream] >= 0)
		(void)fs_write_all(c->spill_fd[stream], data, n);
	buf_add(b, data, n);
	if (p->h->output != NULL)
		p->h->output(p->h->arg, c->idx, stream, data, n);
}

/* Channels. */

static void
ssh_conn_ch_begin(struct ssh_conn *c, const char *command, const void *in,
    size_t inlen, int internal)
{
	struct ssh_pool	*p = c->pool;
	struct buf	 b = BUF_INIT;

	c->wrapped = p->cfg.become && strcmp(c->user, "root") != 0;
	if (c->wrapped) {
		buf_adds(&b, "sudo -n -- sh -c ");
		buf_add_shquote(&b, command);
	} else
		buf_adds(&b, command);
	free(c->cmdline);
	c->cmdline = buf_detach(&b, NULL);
	c->ka_next = 0;
	c->in = in;
	c->inlen = in != NULL ? inlen : 0;
	c->inoff = 0;
	buf_release_secret(&c->feed);
	c->feedoff = 0;
	c->feed_open = !internal && c->job != NULL && c->job->stdin_open;
	c->eof_sent = 0;
	c->internal = internal;
	c->cs = CH_OPEN;
	c->ch_exit = -1;
	free(c->ch_signal);
	free(c->ch_error);
	c->ch_signal = c->ch_error = NULL;
	buf_reset(&c->iout);
	buf_reset(&c->ierr);
}

static int
ssh_conn_ch_lost(struct ssh_conn *c, const char *what)
{
	free(c->ch_error);
	c->ch_error = xasprintf("%s on %s: %s", what, c->name,
	    ssh_liberr(c->sess));
	c->cs = CH_DONE;
	return 1;
}

/*
 * Step the channel machine.  1 when it changed state or finished (cs ==
 * CH_DONE, ch_error set on failure), 0 to wait.
 */
static int
ssh_conn_ch_step(struct ssh_conn *c)
{
	size_t	budget = SSH_READ_BUDGET;
	ssize_t	n;
	int	r, progress;

	switch (c->cs) {
	case CH_OPEN:
		c->ch = libssh2_channel_open_session(c->sess);
		if (c->ch == NULL) {
			if (ssh_last_again(c->sess))
				return ssh_conn_wait(c);
			return ssh_conn_ch_lost(c, "cannot open a channel");
		}
		c->cs = CH_EXEC;
		return 1;
	case CH_EXEC:
		r = libssh2_channel_exec(c->ch, c->cmdline);
		if (SSH_AGAIN(r))
			return ssh_conn_wait(c);
		if (r != 0)
			return ssh_conn_ch_lost(c, "cannot start the command");
		c->cs = CH_IO;
		return 1;
	case CH_IO:
		while (c->inoff < c->inlen) {
			n = libssh2_channel_write(c->ch, (const char *)c->in +
			    c->inoff, c->inlen - c->inoff);
			if (n > 0) {
				c->inoff += (size_t)n;
				continue;
			}
			if (SSH_AGAIN(n))
				break;
			c->inoff = c->inlen;	/* it stopped reading stdin */
		}
		while (c->inoff == c->inlen && c->feedoff < c->feed.len) {
			n = libssh2_channel_write(c->ch, c->feed.buf +
			    c->feedoff, c->feed.len - c->feedoff);
			if (n > 0) {
				c->feedoff += (size_t)n;
				continue;
			}
			if (SSH_AGAIN(n))
				break;
			c->feedoff = c->feed.len;
			c->feed_open = 0;
		}
		if (c->feedoff > 0 && c->feedoff == c->feed.len) {
			buf_release_secret(&c->feed);
			c->feedoff = 0;
		}
		if (c->inoff == c->inlen && c->feed.len == 0 && !c->feed_open &&
		    !c->eof_sent) {
			r = libssh2_channel_send_eof(c->ch);
			if (!SSH_AGAIN(r))
				c->eof_sent = 1;
		}
		do {
			progress = 0;
			n = libssh2_channel_read_ex(c->ch, 0, c->pool->rbuf,
			    SSH_READ_CHUNK);
			if (n > 0) {
				ssh_conn_deliver(c, 1, c->pool->rbuf, (size_t)n);
				budget -= budget > (size_t)n ? (size_t)n : budget;
				progress = 1;
			} else if (n < 0 && !SSH_AGAIN(n))
				return ssh_conn_ch_lost(c, "lost the command's "
				    "output");
			n = libssh2_channel_read_ex(c->ch,
			    SSH_EXTENDED_DATA_STDERR, c->pool->rbuf,
			    SSH_READ_CHUNK);
			if (n > 0) {
				ssh_conn_deliver(c, 2, c->pool->rbuf, (size_t)n);
				budget -= budget > (size_t)n ? (size_t)n : budget;
				progress = 1;
			} else if (n < 0 && !SSH_AGAIN(n))
				return ssh_conn_ch_lost(c, "lost the command's "
				    "errors");
		} while (progress && budget > 0);
		if (libssh2_channel_eof(c->ch)) {
			c->cs = CH_CLOSE;
			return 1;
		}
		if (budget == 0) {
			c->again = 1;
			c->events = 0;
			return 0;
		}
		ssh_conn_wait(c);
		c->events |= POLLIN;
		/*
		 * A quiet command: keepalives, but only with nothing queued to
		 * send, since libssh2 keeps one pending packet per session.
		 */
		if ((c->eof_sent || (c->feed_open && c->inoff == c->inlen &&
		    c->feed.len == 0)) && !(c->events & POLLOUT)) {
			double	now = ssh_now();

			if (c->ka_next == 0)
				c->ka_next = now + (double)c->pool->cfg.keepalive_s;
			else if (now >= c->ka_next) {
				int	next = 0;

				libssh2_keepalive_send(c->sess, &next);
				c->ka_next = now + (double)c->pool->cfg.keepalive_s;
			}
		}
		return 0;
	case CH_CLOSE:
		r = libssh2_channel_close(c->ch);
		if (SSH_AGAIN(r))
			return ssh_conn_wait(c);
		c->cs = CH_WAIT_CLOSED;
		return 1;
	case CH_WAIT_CLOSED:
		r = libssh2_channel_wait_closed(c->ch);
		if (SSH_AGAIN(r))
			return ssh_conn_wait(c);
		c->ch_exit = libssh2_channel_get_exit_status(c->ch);
		{
			char	*sig = NULL;
			size_t	 siglen = 0;

			if (libssh2_channel_get_exit_signal(c->ch, &sig,
			    &siglen, NULL, NULL, NULL, NULL) == 0 &&
			    sig != NULL && siglen > 0) {
				c->ch_signal = xstrndup(sig, siglen);
				c->ch_exit = -1;
			}
			if (sig != NULL)
				libssh2_free(c->sess, sig);
		}
		c->cs = CH_FREE;
		return 1;
	case CH_FREE:
		r = libssh2_channel_free(c->ch);
		if (SSH_AGAIN(r))
			return ssh_conn_wait(c);
		c->ch = NULL;
		c->cs = CH_DONE;
		return 1;
	case CH_DONE:
		return 1;
	}
	return 1;
}

/* SFTP. */

static const char *
ssh_sftp_errstr(unsigned long e)
{
	switch (e) {
	case LIBSSH2_FX_NO_SUCH_FILE:		return "no such file";
	case LIBSSH2_FX_PERMISSION_DENIED:	return "permission denied";
	case LIBSSH2_FX_FAILURE:		return "failure";
	case LIBSSH2_FX_NO_SUCH_PATH:		return "no such path";
	case LIBSSH2_FX_FILE_ALREADY_EXISTS:	return "file exists";
	case LIBSSH2_FX_WRITE_PROTECT:		return "write protected";
	case LIBSSH2_FX_NO_SPACE_ON_FILESYSTEM:	return "no space left";
	case LIBSSH2_FX_QUOTA_EXCEEDED:		return "quota exceeded";
	case LIBSSH2_FX_NOT_A_DIRECTORY:	return "not a directory";
	case LIBSSH2_FX_OP_UNSUPPORTED:		return "not supported";
	default:				return "error";
	}
}

/* Describe the last SFTP failure. */
static char *
ssh_sftp_err(struct ssh_conn *c, const char *what, const char *path)
{
	int	e = libssh2_session_last_errno(c->sess);

	if (e == LIBSSH2_ERROR_SFTP_PROTOCOL && c->sftp != NULL)
		return xasprintf("%s '%s' on %s: %s", what, path, c->name,
		    ssh_sftp_errstr(libssh2_sftp_last_error(c->sftp)));
	return xasprintf("%s '%s' on %s: %s", what, path, c->name,
	    ssh_liberr(c->sess));
}

static void
ssh_conn_job_error(struct ssh_conn *c, enum ssh_status st, char *msg)
{
	c->res.status = st;
	free(c->res.error);
	c->res.error = msg;
	c->js = JS_END;
}

/*
 * The SHA-256 of the file open at fd into p->sum_hex, computed once for
 * every host copying the same unchanged file, and the bytes hashed into
 * p->sum_data when the file is small enough to share (so what is sent is
 * what was hashed).  The file is rewound.
 */
static int
ssh_pool_file_sum(struct ssh_pool *p, const char *path, int fd,
    const struct stat *st)
{
	EVP_MD_CTX		*md;
	unsigned char		 sum[32];
	unsigned int		 len = 0, i;
	char			*chunk, *to;
	struct ssh_filedata	*fdat = NULL;
	size_t			 got = 0, cap = 0, room;
	ssize_t			 n;
	int			 r = 0;

	if (p->sum_path != NULL && strcmp(p->sum_path, path) == 0 &&
	    p->sum_st.st_dev == st->st_dev && p->sum_st.st_ino == st->st_ino &&
	    p->sum_st.st_size == st->st_size &&
	    p->sum_st.st_mtim.tv_sec == st->st_mtim.tv_sec &&
	    p->sum_st.st_mtim.tv_nsec == st->st_mtim.tv_nsec)
		return 0;
	/* Kept when small: one byte more shows a file that grew. */
	if (st->st_size >= 0 && st->st_size <= SSH_UP_SHARE_MAX) {
		cap = (size_t)st->st_size + 1;
		fdat = xmalloc(sizeof *fdat + cap);
		fdat->refs = 1;
		fdat->len = 0;
	}
	md = EVP_MD_CTX_new();
	chunk = xmalloc(SSH_FILE_CHUNK);
	EVP_DigestInit_ex(md, EVP_sha256(), NULL);
	for (;;) {
		to = chunk;
		room = SSH_FILE_CHUNK;
		if (fdat != NULL && got < cap) {
			to = fdat->data + got;
			room = cap - got;
		} else if (fdat != NULL) {
			free(fdat);		/* it grew: sent from the file */
			fdat = NULL;
		}
		n = read(fd, to, room);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		EVP_DigestUpdate(md, to, (size_t)n);
		got += (size_t)n;
	}
	if (n < 0 || lseek(fd, 0, SEEK_SET) != 0)
		r = -1;
	EVP_DigestFinal_ex(md, sum, &len);
	EVP_MD_CTX_free(md);
	free(chunk);
	if (fdat != NULL && (r != 0 || got != cap - 1)) {
		free(fdat);
		fdat = NULL;
	}
	if (r != 0)
		return -1;
	for (i = 0; i < len && i < 32; i++)
		snprintf(p->sum_hex + 2 * i, 3, "%02x", sum[i]);
	free(p->sum_path);
	p->sum_path = xstrdup(path);
	p->sum_st = *st;
	if (fdat != NULL)
		fdat->len = got;
	ssh_filedata_unref(p->sum_data);
	p->sum_data = fdat;
	return 0;
}

/*
 * Top up the buffer of the local file for the SFTP writes; -1 on a read
 * error.  libssh2_sftp_write() sends what it has not sent yet of the
 * bytes it is given and returns only what the server has acknowledged,
 * so fbuf + foff is always the first unacknowledged byte.  The buffer is
 * topped up as soon as less than SSH_UP_REFILL is unacknowledged, never
 * drained first: the pipeline to the server stays 256-512 KiB deep
 * instead of emptying at the end of every buffer (measured: 0.1-0.2 s
 * less idle CPU for 10 MiB to 50 loopback hosts).
 */
static int
ssh_conn_up_fill(struct ssh_conn *c)
{
	size_t	left = c->flen - c->foff;
	ssize_t	n;

	if (c->feof || left >= SSH_UP_REFILL)
		return 0;
	memmove(c->fbuf, c->fbuf + c->foff, left);
	c->foff = 0;
	c->flen = left;
	while (c->flen < SSH_UP_BUF) {
		n = read(c->lfd, c->fbuf + c->flen, SSH_UP_BUF - c->flen);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -1;
		if (n == 0) {
			c->feof = 1;
			break;
		}
		c->flen += (size_t)n;
	}
	return 0;
}

/*
 * The bytes for the next libssh2_sftp_write(), from the first one not
 * acknowledged: at most SSH_UP_BUF of the pool's shared copy, or this
 * host's buffer; *len is 0 at the end.  -1 on a read error.
 */
static int
ssh_conn_up_next(struct ssh_conn *c, const char **from, size_t *len)
{
	if (c->fdata != NULL) {
		*from = c->fdata->data + c->foff;
		*len = c->fdata->len - c->foff;
		if (*len > SSH_UP_BUF)
			*len = SSH_UP_BUF;
		return 0;
	}
	if (ssh_conn_up_fill(c) != 0)
		return -1;
	*from = c->fbuf + c->foff;
	*len = c->flen - c->foff;
	return 0;
}

/*
 * Write what is not yet acknowledged of an upload: 1 when every byte is
 * acknowledged, 0 when libssh2 would block, -1 with *why on an error.
 * It touches only c's upload buffer and session, so a send thread may
 * run it for a host lent to it.
 */
static int
ssh_conn_up_write(struct ssh_conn *c, char **why)
{
	const char	*from;
	size_t		 avail;
	ssize_t		 n;

	for (;;) {
		if (ssh_conn_up_next(c, &from, &avail) != 0) {
			*why = xasprintf("read '%s': %s", c->job->upload_src,
			    strerror(errno));
			return -1;
		}
		if (avail == 0)
			return 1;
		n = libssh2_sftp_write(c->sfh, from, avail);
		if (n > 0)
			c->foff += (size_t)n;
		else if (SSH_AGAIN(n))
			return 0;
		else {
			*why = ssh_sftp_err(c, "cannot write", c->staging);
			return -1;
		}
	}
}

/* Send threads (see struct ssh_sender). */

static void
ssh_wake(int fd)
{
	ssize_t	n = write(fd, "", 1);

	(void)n;	/* full (EAGAIN): a wake-up is already waiting */
}

static void
ssh_drain(int fd)
{
	char	b[64];

	while (read(fd, b, sizeof b) > 0)
		;
}

static void
ssh_sender_give_back(struct ssh_pool *p, struct ssh_conn *c)
{
	pthread_mutex_lock(&p->slock);
	ALLOC_GROW(p->back, p->nback + 1, p->aback);
	p->back[p->nback++] = c;
	pthread_mutex_unlock(&p->slock);
	ssh_wake(p->back_pipe[1]);
}

static void
ssh_sender_pfd(struct ssh_sender *s, size_t *np, int fd, short ev)
{
	ALLOC_GROW(s->pfd, *np + 1, s->apfd);
	s->pfd[*np].fd = fd;
	s->pfd[*np].events = ev;
	s->pfd[*np].revents = 0;
	(*np)++;
}

static void *
ssh_sender_main(void *arg)
{
	struct ssh_sender	*s = arg;
	struct ssh_pool		*p = s->pool;
	size_t			 i, np;
	int			 quit, recall, timeout, dir, failed = 0;
	double			 now, due;

	for (;;) {
		pthread_mutex_lock(&p->slock);
		for (i = 0; i < s->ninbox; i++) {
			ALLOC_GROW(s->own, s->nown + 1, s->aown);
			s->own[s->nown++] = (struct ssh_lent){ s->inbox[i], 0, 1 };
		}
		s->ninbox = 0;
		quit = s->quit;
		recall = p->recall || failed;
		pthread_mutex_unlock(&p->slock);
		if (quit)
			break;
		now = ssh_now();
		due = 0;
		np = 0;
		ssh_sender_pfd(s, &np, s->wake[0], POLLIN);
		for (i = 0; i < s->nown;) {
			struct ssh_lent	*l = &s->own[i];
			struct ssh_conn	*c = l->c;
			int		 give = recall || (c->job_deadline > 0 &&
					    now >= c->job_deadline);

			if (!give && (l->fresh || l->revents != 0)) {
				l->fresh = 0;
				give = ssh_conn_up_write(c, &c->lent_err) != 0;
			}
			if (give) {
				ssh_sender_give_back(p, c);
				s->own[i] = s->own[--s->nown];
				continue;
			}
			dir = libssh2_session_block_directions(c->sess);
			ssh_sender_pfd(s, &np, c->fd,
			    (dir & LIBSSH2_SESSION_BLOCK_OUTBOUND) ? POLLIN |
			    POLLOUT : POLLIN);
			if (c->job_deadline > 0 && (due == 0 ||
			    c->job_deadline < due))
				due = c->job_deadline;
			i++;
		}
		timeout = 1000;
		if (due > 0 && due - now < 1.0)
			timeout = (int)((due - now) * 1000.0) + 1;
		/* Cannot wait: give every host back, the pool's thread goes on. */
		if (poll(s->pfd, (nfds_t)np, timeout) < 0 && errno != EINTR)
			failed = 1;
		if (s->pfd[0].revents != 0)
			ssh_drain(s->wake[0]);
		for (i = 1; i < np; i++)
			s->own[i - 1].revents = s->pfd[i].revents;
	}
	return NULL;
}

/*
 * Start the send threads, once a pool: one per CPU up to
 * SSH_SEND_THREADS_MAX (or cfg.send_threads), none on one CPU, where
 * handing over only costs.  They block every signal: signals stay the
 * caller's thread's business.
 */
static void
ssh_pool_senders_start(struct ssh_pool *p)
{
	long		 want = p->cfg.send_threads;
	sigset_t	 all, old;
	size_t		 i;

	p->snd_tried = 1;
	if (want == 0) {
		want = sysconf(_SC_NPROCESSORS_ONLN);
		if (want < 2)
			return;
	}
	if (want > SSH_SEND_THREADS_MAX)
		want = SSH_SEND_THREADS_MAX;
	if (want <= 0 || pipe2(p->back_pipe, O_NONBLOCK | O_CLOEXEC) != 0)
		return;
	pthread_mutex_init(&p->slock, NULL);
	p->snd = xcalloc((size_t)want, sizeof *p->snd);
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	for (i = 0; i < (size_t)want; i++) {
		struct ssh_sender	*s = &p->snd[p->nsnd];

		s->pool = p;
		if (pipe2(s->wake, O_NONBLOCK | O_CLOEXEC) != 0)
			break;
		if (pthread_create(&s->tid, NULL, ssh_sender_main, s) != 0) {
			close(s->wake[0]);
			close(s->wake[1]);
			break;
		}
		p->nsnd++;
	}
	pthread_sigmask(SIG_SETMASK, &old, NULL);
}

/* Hand c to the least busy send thread; 0 when there is none. */
static int
ssh_pool_lend(struct ssh_pool *p, struct ssh_conn *c)
{
	struct ssh_sender	*s;
	size_t			 i;

	if (!p->snd_tried)
		ssh_pool_senders_start(p);
	if (p->nsnd == 0)
		return 0;
	s = &p->snd[0];
	for (i = 1; i < p->nsnd; i++)
		if (p->snd[i].load < s->load)
			s = &p->snd[i];
	c->lent = 1;
	c->lent_to = s;
	c->events = c->revents = 0;
	c->again = 0;
	s->load++;
	p->nlent++;
	pthread_mutex_lock(&p->slock);
	ALLOC_GROW(s->inbox, s->ninbox + 1, s->ainbox);
	s->inbox[s->ninbox++] = c;
	pthread_mutex_unlock(&p->slock);
	ssh_wake(s->wake[1]);
	return 1;
}

/* Take back what the send threads gave back: each steps again at once. */
static void
ssh_pool_take_back(struct ssh_pool *p)
{
	size_t	i;

	ssh_drain(p->back_pipe[0]);
	pthread_mutex_lock(&p->slock);
	for (i = 0; i < p->nback; i++) {
		struct ssh_conn	*c = p->back[i];

		c->lent = 0;
		c->lent_to->load--;
		c->lent_to = NULL;
		c->again = 1;
		p->nlent--;
	}
	p->nback = 0;
	pthread_mutex_unlock(&p->slock);
}

/* Get every lent host back, whatever its state (a run ending early). */
static void
ssh_pool_recall(struct ssh_pool *p)
{
	size_t	i;

	if (p->nlent == 0)
		return;
	pthread_mutex_lock(&p->slock);
	p->recall = 1;
	pthread_mutex_unlock(&p->slock);
	for (i = 0; i < p->nsnd; i++)
		ssh_wake(p->snd[i].wake[1]);
	while (p->nlent > 0) {
		struct pollfd	pfd = { p->back_pipe[0], POLLIN, 0 };

		(void)poll(&pfd, 1, 100);
		ssh_pool_take_back(p);
	}
	pthread_mutex_lock(&p->slock);
	p->recall = 0;
	pthread_mutex_unlock(&p->slock);
}

static void
ssh_pool_senders_stop(struct ssh_pool *p)
{
	size_t	i;

	if (p->nsnd == 0)
		goto out;
	ssh_pool_recall(p);
	pthread_mutex_lock(&p->slock);
	for (i = 0; i < p->nsnd; i++)
		p->snd[i].quit = 1;
	pthread_mutex_unlock(&p->slock);
	for (i = 0; i < p->nsnd; i++) {
		struct ssh_sender	*s = &p->snd[i];

		ssh_wake(s->wake[1]);
		pthread_join(s->tid, NULL);
		close(s->wake[0]);
		close(s->wake[1]);
		free(s->inbox);
		free(s->own);
		free(s->pfd);
	}
out:
	if (p->snd_tried && p->back_pipe[0] >= 0) {
		close(p->back_pipe[0]);
		close(p->back_pipe[1]);
		pthread_mutex_destroy(&p->slock);
	}
	free(p->snd);
	free(p->back);
	p->snd = NULL;
	p->back = NULL;
	p->nsnd = 0;
}

static const char *
ssh_basename(const char *path)
{
	const char	*s = strrchr(path, '/');

	return s != NULL ? s + 1 : path;
}

static char *
ssh_rand_hex(void)
{
	unsigned char	r[6];

	if (RAND_bytes(r, sizeof r) != 1)
		memset(r, 0x5a, sizeof r);
	return xasprintf("%02x%02x%02x%02x%02x%02x", r[0], r[1], r[2], r[3],
	    r[4], r[5]);
}

/*
 * The shell run after an upload: move the staged file into place once
 * its SHA-256 matches; reports "sha256 mismatch" otherwise.
 *
 * Every process started here is a fork and an exec on every node, and
 * the checksum reads the whole file there, so: the directory comes from
 * the shell's own expansion (dirname only for a path ending in '/'),
 * chmod runs only when the mode could not be set over SFTP or the file
 * was copied, mv replaces the shell, and from SSH_HASH_FAST_MIN on the
 * node's `openssl dgst` (SHA-NI/AVX2: 4-5 times the speed of coreutils'
 * sha256sum, which starts faster and stays the fallback; measured
 * crossover 0.3-1 MiB) computes the checksum.  A checker that prints
 * anything but the right sum is a mismatch, never a pass.
 */
static char *
ssh_conn_up_script(struct ssh_conn *c)
{
	const struct ssh_job	*j = c->job;
	struct buf		 b = BUF_INIT;
	char			*rnd = ssh_rand_hex();
	int			 mode = j->upload_mode > 0 ? j->upload_mode : 0644;

	buf_adds(&b, "set -e; umask 077; t=");
	buf_add_shquote(&b, c->staging);
	buf_adds(&b, "; d=");
	buf_add_shquote(&b, j->upload_dst);
	buf_adds(&b, "; b=");
	buf_add_shquote(&b, ssh_basename(j->upload_src));
	buf_addf(&b, "; m=%s; if [ -d \"$d\" ]; then d=\"${d%%/}/$b\"; fi; "
	    "case \"$d\" in */) dir=$(dirname -- \"$d\");; "
	    "*/*) dir=${d%%/*};; *) dir=.;; esac; "
	    "case \"$t\" in \"$dir\"/*) f=\"$t\";; "
	    "*) f=\"$dir/.$b.provtmp.%s\"; m=1; "
	    "cp -- \"$t\" \"$f\" || { rm -f -- \"$t\"; exit 1; }; "
	    "rm -f -- \"$t\";; esac; %s"
	    "s=${s%%%% *}; "
	    "if [ \"$s\" != %s ]; then rm -f -- \"$f\"; "
	    "echo \"sha256 mismatch on $d: got $s, sent %s\" >&2; exit 97; "
	    "fi; if [ -n \"$m\" ]; then chmod %o \"$f\"; fi; "
	    "%sexec mv -f -- \"$f\" \"$d\"", c->up_moded ? "" : "1", rnd,
	    c->lst.st_size >= SSH_HASH_FAST_MIN ?
	    "s=$(exec openssl dgst -sha256 -r < \"$f\" 2>/dev/null) || "
	    "s=$(exec sha256sum < \"$f\"); " :
	    "s=$(exec sha256sum < \"$f\"); ",
	    c->sha_hex, c->sha_hex, mode,
	    c->up_synced && !c->wrapped ? "" :
	    "sync \"$f\" 2>/dev/null || true; ");
	free(rnd);
	return buf_detach(&b, NULL);
}

/* Stage name for an upload: beside the target, or in /tmp under sudo. */
static void
ssh_conn_up_staging(struct ssh_conn *c, int dst_is_dir)
{
	const struct ssh_job	*j = c->job;
	char			*rnd = ssh_rand_hex(), *dir;
	const char		*base = ssh_basename(j->upload_src);

	free(c->staging);
	if (c->wrapped) {
		c->staging = xasprintf("/tmp/.provision-%s", rnd);
	} else if (dst_is_dir) {
		size_t	l = strlen(j->upload_dst);

		c->staging = xasprintf("%.*s/.%s.provtmp.%s",
		    (int)(l > 1 && j->upload_dst[l - 1] == '/' ? l - 1 : l),
		    j->upload_dst, base, rnd);
	} else {
		char	*copy = xstrdup(j->upload_dst);

		dir = dirname(copy);
		c->staging = xasprintf("%s/.%s.provtmp.%s", dir,
		    ssh_basename(j->upload_dst), rnd);
		free(copy);
	}
	free(rnd);
}

static char *
ssh_conn_dl_path(struct ssh_conn *c)
{
	const char	*t = c->job->download_dst, *h;
	struct buf	 b = BUF_INIT;

	while ((h = strstr(t, "%h")) != NULL) {
		buf_add(&b, t, (size_t)(h - t));
		buf_adds(&b, c->name);
		t = h + 2;
	}
	buf_adds(&b, t);
	return buf_detach(&b, NULL);
}

/* 1 when a sudo wrapper, not the command, failed; sets the error. */
static int
ssh_conn_sudo_failed(struct ssh_conn *c, const struct buf *err, int code)
{
	if (!c->wrapped)
		return 0;
	if (code == 1 && strstr(err->buf, "sudo: a password is required") !=
	    NULL) {
		ssh_conn_job_error(c, SSH_ERROR, xasprintf("sudo on %s needs a "
		    "password for user '%s': allow it without one (NOPASSWD in "
		    "/etc/sudoers.d) or log in as root", c->name, c->user));
		return 1;
	}
	if (code == 127 && strstr(err->buf, "sudo") != NULL &&
	    strstr(err->buf, "not found") != NULL) {
		ssh_conn_job_error(c, SSH_ERROR, xasprintf("sudo is not "
		    "installed on %s (user '%s' is not root)", c->name,
		    c->user));
		return 1;
	}
	if (code == 1 && strstr(err->buf, "is not in the sudoers file") !=
	    NULL) {
		ssh_conn_job_error(c, SSH_ERROR, xasprintf("user '%s' may not "
		    "use sudo on %s", c->user, c->name));
		return 1;
	}
	return 0;
}

/* Where the job goes after step `from`. */
static enum ssh_jstep
ssh_conn_next_step(struct ssh_conn *c, enum ssh_jstep from)
{
	const struct ssh_job	*j = c->job;

	if (from < JS_UP_LOCAL && j->upload_src != NULL)
		return JS_UP_LOCAL;
	if (from < JS_CMD && j->command != NULL)
		return JS_CMD;
	if (from < JS_DL_SFTP && j->download_src != NULL)
		return JS_DL_SFTP;
	return JS_END;
}

static int
ssh_conn_job(struct ssh_conn *c)
{
	struct ssh_pool		*p = c->pool;
	const struct ssh_job	*j = c->job;
	LIBSSH2_SFTP_ATTRIBUTES	 attrs;
	ssize_t			 n;
	int			 r;

	if (c->job_deadline > 0 && ssh_now() >= c->job_deadline &&
	    c->js != JS_END) {
		ssh_res_error(c, SSH_TIMEOUT, "still running after %lds",
		    j->timeout_s > 0 ? j->timeout_s : p->cfg.command_timeout_s);
		ssh_conn_abort(c);
		c->st = CS_IDLE;
		ssh_conn_job_done(c);
		return 0;
	}
	switch (c->js) {
	case JS_START:
		c->res.status = SSH_OK;
		c->res.exit_code = -1;
		c->job_deadline = 0;
		if (j->timeout_s > 0 || p->cfg.command_timeout_s > 0)
			c->job_deadline = ssh_now() + (double)(j->timeout_s > 0 ?
			    j->timeout_s : p->cfg.command_timeout_s);
		c->wrapped = p->cfg.become && strcmp(c->user, "root") != 0;
		c->js = ssh_conn_next_step(c, JS_START);
		return 1;
	case JS_UP_LOCAL:
		c->lfd = open(j->upload_src, O_RDONLY | O_CLOEXEC);
		if (c->lfd < 0 || fstat(c->lfd, &c->lst) != 0) {
			ssh_conn_job_error(c, SSH_ERROR, xasprintf("cannot read "
			    "'%s': %s", j->upload_src, strerror(errno)));
			return 1;
		}
		if (!S_ISREG(c->lst.st_mode)) {
			ssh_conn_job_error(c, SSH_ERROR, xasprintf("cannot copy "
			    "'%s': not a regular file", j->upload_src));
			return 1;
		}
		if (ssh_pool_file_sum(p, j->upload_src, c->lfd, &c->lst) != 0) {
			ssh_conn_job_error(c, SSH_ERROR, xasprintf("read '%s': "
			    "%s", j->upload_src, strerror(errno)));
			return 1;
		}
		memcpy(c->sha_hex, p->sum_hex, sizeof c->sha_hex);
		c->flen = c->foff = 0;
		c->feof = 0;
		c->up_lent = 0;
		if (p->sum_data != NULL) {
			c->fdata = p->sum_data;
			c->fdata->refs++;
		} else
			c->fbuf = xmalloc(SSH_UP_BUF);
		c->js = JS_UP_SFTP;
		return 1;
	case JS_UP_SFTP:
	case JS_DL_SFTP:
		c->sftp = libssh2_sftp_init(c->sess);
		if (c->sftp == NULL) {
			if (ssh_last_again(c->sess))
				return ssh_conn_wait(c);
			ssh_conn_job_error(c, SSH_ERROR, xasprintf("SFTP on %s: "
			    "%s", c->name, ssh_liberr(c->sess)));
			return 1;
		}
		if (c->js == JS_DL_SFTP) {
			c->js = JS_DL_OPEN;
			return 1;
		}
		if (c->wrapped) {
			ssh_conn_up_staging(c, 0);
			c->js = JS_UP_OPEN;
		} else
			c->js = JS_UP_STAT;
		return 1;
	case JS_UP_STAT: {
		size_t	l = strlen(j->upload_dst);
		int	isdir = l > 0 && j->upload_dst[l - 1] == '/';

		r = libssh2_sftp_stat_ex(c->sftp, j->upload_dst, (unsigned)l,
		    LIBSSH2_SFTP_STAT, &attrs);
		if (SSH_AGAIN(r))
			return ssh_conn_wait(c);
		if (r == 0 && (attrs.flags & LIBSSH2_SFTP_ATTR_PERMISSIONS) &&
		    LIBSSH2_SFTP_S_ISDIR(attrs.permissions))
			isdir = 1;
		ssh_conn_up_staging(c, isdir);
		c->js = JS_UP_OPEN;
		return 1;
	}
	case JS_UP_OPEN:
		c->sfh = libssh2_sftp_open_ex(c->sftp, c->staging,
		    (unsigned)strlen(c->staging), LIBSSH2_FXF_WRITE |
		    LIBSSH2_FXF_CREAT | LIBSSH2_FXF_TRUNC, 0600,
		    LIBSSH2_SFTP_OPENFILE);
		if (c->sfh == NULL) {
			if (ssh_last_again(c->sess))
				return ssh_conn_wait(c);
			ssh_conn_job_error(c, SSH_ERROR, ssh_sftp_err(c,
			    "cannot create", c->staging));
			return 1;
		}
		c->js = JS_UP_WRITE;
		return 1;
	case JS_UP_WRITE: {
		char		*why = c->lent_err;
		struct stat	 now;

		c->lent_err = NULL;
		/* More than one buffer: a send thread takes the bulk. */
		if (!c->up_lent && c->lst.st_size > SSH_UP_BUF &&
		    p->cfg.send_threads >= 0) {
			c->up_lent = c->lend_me = 1;
			return 0;
		}
		r = why != NULL ? -1 : ssh_conn_up_write(c, &why);
		if (r < 0) {
			ssh_conn_job_error(c, SSH_ERROR, why);
			/*
			 * Refused by the server (a full disk, a quota): the
			 * session is sound, so remove the staged file and keep
			 * it.  Anything else dropped the session.
			 */
			if (libssh2_session_last_errno(c->sess) ==
			    LIBSSH2_ERROR_SFTP_PROTOCOL)
				c->js = JS_UP_DISCARD;
			return 1;
		}
		if (r == 0)
			return ssh_conn_wait(c);
		if (fstat(c->lfd, &now) != 0 || now.st_size != c->lst.st_size ||
		    now.st_mtim.tv_sec != c->lst.st_mtim.tv_sec ||
		    now.st_mtim.tv_nsec != c->lst.st_mtim.tv_nsec) {
			ssh_conn_job_error(c, SSH_ERROR, xasprintf("'%s' changed "
			    "while it was being copied", j->upload_src));
			return 1;
		}
		free(c->fbuf);
		c->fbuf = NULL;
		ssh_filedata_unref(c->fdata);
		c->fdata = NULL;
		c->up_moded = 0;
		c->js = JS_UP_MODE;
		return 1;
	}
	case JS_UP_DISCARD:
		/* The error is in c->res already; a step that fails aborts. */
		if (c->sfh != NULL) {
			r = libssh2_sftp_close_handle(c->sfh);
			if (SSH_AGAIN(r))
				return ssh_conn_wait(c);
			if (r != 0) {
				c->js = JS_END;
				return 1;
			}
			c->sfh = NULL;
		}
		if (c->staging != NULL) {
			r = libssh2_sftp_unlink_ex(c->sftp, c->staging,
			    (unsigned)strlen(c->staging));
			if (SSH_AGAIN(r))
				return ssh_conn_wait(c);
			free(c->staging);
			c->staging = NULL;
		}
		r = libssh2_sftp_shutdown(c->sftp);
		if (SSH_AGAIN(r))
			return ssh_conn_wait(c);
		if (r == 0)
			c->sftp = NULL;
		c->js = JS_END;
		return 1;
	case JS_UP_MODE: {
		int	mode = j->upload_mode > 0 ? j->upload_mode : 0644;

		/*
		 * The mode on the staged file, so the final script needs no
		 * chmod (one process less per node): fchmod by sftp-server,
		 * no umask.  Not for set-id or sticky modes, which wait for
		 * the checksum; nor under sudo, where the file is copied.
		 */
		if (c->wrapped || (mode & 07000) != 0) {
			c->js = JS_UP_FSYNC;
			return 1;
		}
		memset(&attrs, 0, sizeof attrs);
		attrs.flags = LIBSSH2_SFTP_ATTR_PERMISSIONS;
		attrs.permissions = (unsigned long)mode;
		r = libssh2_sftp_fsetstat(c->sfh, &attrs);
		if (SSH_AGAIN(r))
			return ssh_conn_wait(c);
		/* Refused: the final script runs chmod. */
		c->up_moded = r == 0;
		c->js = JS_UP_FSYNC;
		return 1;
	}
	case JS_UP_FSYNC:
		r = libssh2_sftp_fsync(c->sfh);
		if (SSH_AGAIN(r))
			return ssh_conn_wait(c);
		/* Servers without fsync@openssh.com: the final script syncs. */
		c->up_synced = r == 0;
		c->js = JS_UP_CLOSE;
		return 1;
	case JS_UP_CLOSE:
	case JS_DL_CLOSE:
		r = libssh2_sftp_close_handle(c->sfh);
		if (SSH_AGAIN(r))
			return ssh_conn_wait(c);
		c->sfh = NULL;
		if (r != 0) {
			ssh_conn_job_error(c, SSH_ERROR, ssh_sftp_err(c,
			    "cannot close", c->js == JS_UP_CLOSE ? c->staging :
			    j->download_src));
			return 1;
		}
		c->js = c->js == JS_UP_CLOSE ? JS_UP_SHUTDOWN : JS_DL_SHUTDOWN;
		return 1;
	case JS_UP_SHUTDOWN:
	case JS_DL_SHUTDOWN:
		r = libssh2_sftp_shutdown(c->sftp);
		if (SSH_AGAIN(r))
			return ssh_conn_wait(c);
		c->sftp = NULL;
		if (c->js == JS_UP_SHUTDOWN) {
			c->js = JS_UP_FINAL;
			return 1;
		}
		if (rename(c->dl_tmp, c->dl_path) != 0) {
			ssh_conn_job_error(c, SSH_ERROR, xasprintf("rename to "
			    "'%s': %s", c->dl_path, strerror(errno)));
			return 1;
		}
		free(c->dl_tmp);
		c->dl_tmp = NULL;
		c->js = JS_END;
		return 1;
	case JS_UP_FINAL: {
		char	*script = ssh_conn_up_script(c);

		ssh_conn_ch_begin(c, script, NULL, 0, 1);
		free(script);
		c->js = JS_UP_FINAL_WAIT;
		return 1;
	}
	case JS_UP_FINAL_WAIT:
		if (!ssh_conn_ch_step(c))
			return 0;
		if (c->cs != CH_DONE)
			return 1;
		if (c->ch_error != NULL) {
			ssh_conn_job_error(c, SSH_ERROR, c->ch_error);
			c->ch_error = NULL;
			return 1;
		}
		if (ssh_conn_sudo_failed(c, &c->ierr, c->ch_exit))
			return 1;
		if (c->ch_exit != 0) {
			buf_rtrim(&c->ierr);
			ssh_conn_job_error(c, SSH_ERROR, xasprintf("upload to "
			    "'%s' on %s failed: %s", j->upload_dst, c->name,
			    c->ierr.len > 0 ? c->ierr.buf : "no message"));
			return 1;
		}
		free(c->res.upload_sha256);
		c->res.upload_sha256 = xstrdup(c->sha_hex);
		c->js = ssh_conn_next_step(c, JS_UP_FINAL_WAIT);
		return 1;
	case JS_CMD:
		ssh_conn_ch_begin(c, j->command, j->stdin_data, j->stdin_len, 0);
		c->js = JS_CMD_WAIT;
		return 1;
	case JS_CMD_WAIT:
		if (!ssh_conn_ch_step(c))
			return 0;
		if (c->cs != CH_DONE)
			return 1;
		if (c->ch_error != NULL) {
			ssh_conn_job_error(c, SSH_ERROR, c->ch_error);
			c->ch_error = NULL;
			return 1;
		}
		c->res.exit_code = c->ch_exit;
		free(c->res.exit_signal);
		c->res.exit_signal = c->ch_signal;
		c->ch_signal = NULL;
		if (ssh_conn_sudo_failed(c, &c->res.err, c->ch_exit))
			return 1;
		c->res.status = c->ch_exit == 0 ? SSH_OK : SSH_FAILED;
		if (c->res.status != SSH_OK) {
			c->js = JS_END;
			return 1;
		}
		c->js = ssh_conn_next_step(c, JS_CMD_WAIT);
		return 1;
	case JS_DL_OPEN:
		c->sfh = libssh2_sftp_open_ex(c->sftp, j->download_src,
		    (unsigned)strlen(j->download_src), LIBSSH2_FXF_READ, 0,
		    LIBSSH2_SFTP_OPENFILE);
		if (c->sfh == NULL) {
			if (ssh_last_again(c->sess))
				return ssh_conn_wait(c);
			ssh_conn_job_error(c, SSH_ERROR, ssh_sftp_err(c,
			    "cannot open", j->download_src));
			return 1;
		}
		c->dl_path = ssh_conn_dl_path(c);
		c->lfd = fs_tmp_open(&c->dl_tmp, c->dl_path, 0600);
		if (c->lfd < 0) {
			char	*msg = xasprintf("cannot create a file beside "
				    "'%s': %s", c->dl_path, strerror(errno));

			ssh_conn_job_error(c, SSH_ERROR, msg);
			return 1;
		}
		c->js = JS_DL_READ;
		return 1;
	case JS_DL_READ:
		for (;;) {
			n = libssh2_sftp_read(c->sfh, p->rbuf, SSH_READ_CHUNK);
			if (n > 0) {
				(void)fs_write_all(c->lfd, p->rbuf, (size_t)n);
				continue;
			}
			if (SSH_AGAIN(n))
				return ssh_conn_wait(c);
			if (n < 0) {
				ssh_conn_job_error(c, SSH_ERROR, ssh_sftp_err(c,
				    "cannot read", j->download_src));
				return 1;
			}
			break;
		}
		if (fsync(c->lfd) != 0 || close(c->lfd) != 0) {
			c->lfd = -1;
			ssh_conn_job_error(c, SSH_ERROR, xasprintf("write '%s': "
			    "%s", c->dl_tmp, strerror(errno)));
			return 1;
		}
		c->lfd = -1;
		c->js = JS_DL_CLOSE;
		return 1;
	case JS_END:
		/* A job that failed half-way leaves the session unusable. */
		if (c->ch != NULL || c->sftp != NULL) {
			ssh_conn_abort(c);
			c->st = CS_IDLE;
		} else
			c->st = CS_READY;
		c->job_deadline = 0;
		ssh_conn_job_done(c);
		return 0;
	}
	return 0;
}

/* Closing politely. */

static void
ssh_conn_start_close(struct ssh_conn *c)
{
	if (c->sess == NULL) {
		ssh_conn_abort(c);
		return;
	}
	c->st = CS_CLOSING;
	c->deadline = ssh_now() + SSH_CLOSE_WAIT;
	c->again = 1;
}

static int
ssh_conn_closing(struct ssh_conn *c)
{
	int	r;

	r = libssh2_session_disconnect(c->sess, "done");
	if (SSH_AGAIN(r) && ssh_now() < c->deadline)
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
		if (ssh_now() < c->wake)
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

static void
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

static void
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

/* The loop. */

static void
ssh_pool_schedule(struct ssh_pool *p)
{
	while (!p->stop_new && p->active < (size_t)p->cfg.forks &&
	    p->cursor < p->n) {
		struct ssh_conn		*c = &p->c[p->cursor++];
		const struct ssh_job	*j;

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
		c->job_start = ssh_now();
		c->again = 1;
		if (c->st == CS_CLOSING)
			ssh_conn_abort(c);
		if (c->st == CS_READY) {
			c->st = CS_JOB;
			c->js = JS_START;
		} else
			ssh_conn_begin(c);
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
	double		 now = ssh_now(), due = 0;
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
	now = ssh_now();
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
		c->job_deadline = ssh_now() + (double)(c->job->timeout_s > 0 ?
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

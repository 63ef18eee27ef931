/*
 * ssh-int.h: the insides of the SSH engine, shared by its parts: ssh.c
 * (the pool and its loop), ssh-key.c (identities), ssh-conn.c (a
 * connection's states: connect, tunnel, host key, auth, close),
 * ssh-job.c (a job's steps: upload, command, download) and ssh-send.c
 * (the threads that encrypt large uploads).  Private to lib/ssh*.c; the
 * API is ssh.h.
 */
#ifndef PROV_SSH_INT_H
#define PROV_SSH_INT_H

#include <poll.h>
#include <pthread.h>
#include <sys/socket.h>
#include <sys/resource.h>
#include <time.h>

#include <libssh2.h>
#include <libssh2_sftp.h>
#include <openssl/types.h>

#include "buf.h"
#include "proc.h"
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

/* In this order: JUMP_WAIT to AUTH is "connecting" (ssh_conn_starting). */
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
	/*
	 * An unencrypted ed25519 key, decoded once: each login signs with
	 * it (ssh_ident_sign) instead of libssh2 decoding the file again.
	 */
	EVP_PKEY	*pkey;
	unsigned char	*blob;		/* its public key blob */
	size_t		 bloblen;
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

/* Shared by the parts (each defined where its comment says more). */
const char	*ssh_liberr(LIBSSH2_SESSION *s);
int	ssh_last_again(LIBSSH2_SESSION *s);
void	ssh_set_nonblock(int fd);
void	ssh_filedata_unref(struct ssh_filedata *fd);
void	ssh_conn_job_files_release(struct ssh_conn *c);
void	ssh_conn_abort(struct ssh_conn *c);
void	ssh_ident_release(struct ssh_ident *id);
int	ssh_ident_sign(LIBSSH2_SESSION *s, unsigned char **sig, size_t *siglen,
	    const unsigned char *data, size_t len, void **abstract);
const char	*ssh_home(void);
int	ssh_pool_load_idents(struct ssh_pool *p, struct prov_err *err);
void	ssh_res_error(struct ssh_conn *c, enum ssh_status st,
	    const char *fmt, ...) PROV_PRINTF(3, 4);
void	ssh_conn_job_done(struct ssh_conn *c);
int	ssh_conn_wait(struct ssh_conn *c);
void	ssh_conn_begin(struct ssh_conn *c);
void	ssh_conn_start_close(struct ssh_conn *c);
void	ssh_conn_step(struct ssh_conn *c);
void	ssh_pool_pump(struct ssh_pool *p);
int	ssh_conn_up_write(struct ssh_conn *c, char **why);
int	ssh_conn_job(struct ssh_conn *c);
int	ssh_pool_lend(struct ssh_pool *p, struct ssh_conn *c);
void	ssh_pool_take_back(struct ssh_pool *p);
void	ssh_pool_recall(struct ssh_pool *p);
void	ssh_pool_senders_stop(struct ssh_pool *p);

#endif

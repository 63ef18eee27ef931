/*
 * ssh.h: run commands and copy files on many hosts at once over SSH.
 *
 * One thread, one poll(2) loop, non-blocking libssh2: each host is a
 * state machine (connect, handshake, host key check, authentication,
 * then jobs: upload, command, download) and at most `forks` hosts are
 * busy at a time, so a thousand hosts cost a thousand sockets, not a
 * thousand processes or threads.  A host that cannot be reached, or
 * that hangs, holds up nobody else.  One exception: the bytes of an
 * upload larger than 512 KiB are written by one of a small fixed set of
 * send threads (one per CPU, started at the first such upload), because
 * encrypting them is the one thing that fills a CPU; the state machine
 * and every callback stay on the caller's thread.
 *
 * The simple use: one job on every host, a result row per host.
 *
 *	struct ssh_config	 cfg = SSH_CONFIG_INIT;
 *	struct ssh_host		 hosts[] = { { "gpu01", "192.0.2.11", 0 } };
 *	struct ssh_job		 job = SSH_JOB_INIT;
 *	struct ssh_result	 res[1];
 *
 *	cfg.user = "root";
 *	job.command = "uname -r";
 *	if (ssh_run_all(&cfg, hosts, 1, &job, res, NULL, &err) != 0)
 *		... could not run at all (err) ...
 *	res[0].status, res[0].exit_code, res[0].out.buf ...
 *	ssh_result_release(&res[0]);
 *
 * A pool keeps sessions open between runs and asks the caller for each
 * host's next job as soon as the host is free, so `apply` can run a
 * sequence of scripts per node over one connection, nodes in parallel,
 * with barriers only where it calls ssh_pool_run() again:
 *
 *	ssh_pool_new(&pool, &cfg, hosts, n, &err);
 *	ssh_pool_run(pool, &handler, &err);	(handler.next/done per host)
 *	ssh_pool_run(pool, &handler2, &err);	(reuses open sessions)
 *	ssh_pool_free(pool);
 *
 * Failed nodes are result rows (status), never error returns: an error
 * return means nothing could run (bad identity file, no memory for
 * descriptors).  Secrets reach a node only as a job's stdin bytes, never
 * in a command line or a result.  lib/ never prints: live output goes to
 * the handler's `output` callback and the caller decides what to show.
 *
 * Costs and limits, so callers can size things:
 * - Memory per busy host: out_max per stream kept, plus what libssh2
 *   queues (up to its 2 MiB channel window; through a jump host, twice).
 * - Host names are resolved with a blocking getaddrinfo() as each host
 *   starts; plan addresses are numeric and cost nothing.
 * - Through a jump host, tunnels open one after another (libssh2 keeps one
 *   channel-open state per session); a target the jump host cannot reach
 *   quickly holds the later opens until its connect_timeout.
 * - An encrypted key is decrypted by libssh2 for every login (bcrypt,
 *   about 0.1 s of CPU each): for large fleets, prefer ssh-agent.
 * - RSA keys: libssh2 1.10 signs only with ssh-rsa (SHA-1), which
 *   OpenSSH 8.8 and later refuse; the AUTH result says so.
 */
#ifndef PROV_SSH_H
#define PROV_SSH_H

#include <stddef.h>

#include "buf.h"

struct prov_err;
struct plan_ssh;
struct ssh_pool;
struct strvec;

#define SSH_DEFAULT_FORKS		64
#define SSH_DEFAULT_MAX_STARTUPS	100
#define SSH_DEFAULT_CONNECT_TIMEOUT	10
#define SSH_DEFAULT_TRIES		3
#define SSH_DEFAULT_KEEPALIVE		30
#define SSH_DEFAULT_OUT_MAX		(1024 * 1024)

/*
 * How to connect.  Zero values mean the defaults shown; every string is
 * borrowed and must outlive the pool.
 */
struct ssh_config {
	const char	*user;		/* "root" */
	const char	*identity;	/* private key file; NULL: the agent,
					   then ~/.ssh/id_ed25519, id_ecdsa */
	const char	*passphrase;	/* for an encrypted identity, or NULL */
	int		 no_agent;	/* ignore SSH_AUTH_SOCK */
	const char	*known_hosts;	/* ~/.ssh/known_hosts */
	int		 accept_new;	/* append unknown hosts' keys (never
					   changed ones) instead of refusing */
	const char	*jump;		/* [user@]host[:port] to go through */
	const char	*jump_addr;	/* connect here for it; NULL: host */
	long		 port;		/* 22 */
	long		 forks;		/* hosts busy at once: 64 */
	long		 connect_timeout_s; /* TCP connect, banner, auth: 10 */
	long		 command_timeout_s; /* per job; 0: none */
	long		 tries;		/* connect attempts: 3 (backoff 0.5 s, 1 s) */
	long		 keepalive_s;	/* 30 */
	int		 become;	/* commands through `sudo -n` when the
					   user is not root */
	int		 keep_open;	/* sessions stay open after a run */
	size_t		 out_max;	/* bytes kept in memory per stream: 1 MiB */
	const char	*spill_dir;	/* output past out_max goes to files
					   here; NULL: counted, then dropped */
	long		 send_threads;	/* threads that encrypt large uploads:
					   0 one per CPU (at most 8), -1 none */
	long		 max_startups;	/* hosts connecting at once (TCP
					   connect to logged in): 100 */
};

#define SSH_CONFIG_INIT { NULL, NULL, NULL, 0, NULL, 0, NULL, NULL, 0, 0, \
	0, 0, 0, 0, 0, 0, 0, NULL, 0, 0 }

/*
 * Fill cfg from a plan's `ssh:` section (strings borrowed from the plan),
 * a jump host that names a node reached at that node's address.  The
 * passphrase is not read: the caller gets it from the variable named by
 * passphrase_env, or a prompt.
 */
void	ssh_config_from_plan(struct ssh_config *cfg, const struct plan_ssh *);

struct ssh_host {
	const char	*name;		/* shown in results and known_hosts */
	const char	*addr;		/* connected to; NULL: name */
	long		 port;		/* 0: the config's */
};

/*
 * One unit of work on one host, in this order: upload, command,
 * download.  Any part may be absent.  Borrowed by the pool until the job's
 * `done` callback.
 */
struct ssh_job {
	const char	*command;	/* run by the remote user's shell */
	const void	*stdin_data;	/* bytes for the command's stdin (secrets) */
	size_t		 stdin_len;
	const char	*upload_src;	/* local file ... */
	const char	*upload_dst;	/* ... to this remote path or directory */
	int		 upload_mode;	/* e.g. 0644; 0: 0644 */
	const char	*download_src;	/* remote file ... */
	const char	*download_dst;	/* ... to this local path; "%h" is the
					   host name */
	long		 timeout_s;	/* 0: the config's command_timeout_s */
	const char	*label;		/* names spill files: HOST.LABEL.out */
	int		 stdin_open;	/* stdin stays open after stdin_data:
					   more comes with ssh_pool_feed() */
};

#define SSH_JOB_INIT { NULL, NULL, 0, NULL, NULL, 0, NULL, NULL, 0, NULL, 0 }

enum ssh_status {
	SSH_OK = 0,		/* ran, exit 0 */
	SSH_FAILED,		/* ran, non-zero exit or signal */
	SSH_UNREACHABLE,	/* no TCP connection (after retries) */
	SSH_TIMEOUT,		/* no banner, auth or command end in time */
	SSH_HOSTKEY,		/* host key unknown, changed or revoked */
	SSH_AUTH,		/* authentication refused */
	SSH_ERROR,		/* protocol, SFTP, sudo or local error */
};

struct ssh_result {
	enum ssh_status	 status;
	int		 exit_code;	/* -1 when the command did not exit */
	char		*exit_signal;	/* "KILL" when killed, or NULL */
	struct buf	 out, err;	/* first out_max bytes of each stream */
	unsigned long long out_total, err_total; /* bytes received */
	char		*out_spill;	/* file with the whole stream, or NULL */
	char		*err_spill;
	char		*error;		/* what went wrong (not OK/FAILED), or NULL */
	char		*upload_sha256;	/* hex, verified on the host */
	double		 elapsed_s;	/* from the job's start, connect included */
};

void		 ssh_result_init(struct ssh_result *);
void		 ssh_result_release(struct ssh_result *);
/* Move src into dst (dst released first); src is left initialised. */
void		 ssh_result_move(struct ssh_result *dst, struct ssh_result *src);
/* "ok", "failed", "unreachable", "timeout", "hostkey", "auth", "error". */
const char	*ssh_status_name(enum ssh_status);

/*
 * What the pool asks of its caller.  `next` gives a free host its next
 * job (NULL: none in this run); the job stays borrowed until `done`.
 * `done` gets every job's result, whatever the outcome; the result is the
 * pool's and is released after the call, so take what is needed with
 * ssh_result_move() or buf_detach().  A host that fails to connect is not
 * asked again in this run.  `output` (optional) sees each stream's bytes
 * as they arrive: stream 1 stdout, 2 stderr.
 */
struct ssh_handler {
	const struct ssh_job *(*next)(void *arg, size_t host);
	void	(*done)(void *arg, size_t host, const struct ssh_job *,
		    struct ssh_result *);
	void	(*output)(void *arg, size_t host, int stream, const char *,
		    size_t);
	void	*arg;
};

/*
 * A pool for `n` hosts (copied).  Loads the identity (and checks the
 * passphrase is there when the key needs one) and known_hosts, and
 * raises RLIMIT_NOFILE's soft limit as far as the hard one when forks
 * needs it.  Nothing connects until ssh_pool_run().
 */
int	 ssh_pool_new(struct ssh_pool **out, const struct ssh_config *,
	    const struct ssh_host *hosts, size_t n, struct prov_err *err);
/*
 * Drive every host until none has work left.  Returns 0 when the run
 * happened (whatever the hosts' results), -1 with err when it could not.
 */
int	 ssh_pool_run(struct ssh_pool *, const struct ssh_handler *,
	    struct prov_err *err);
/* Notes for the user gathered so far (known_hosts lines skipped ...). */
/*
 * More stdin for the running command of a job started with stdin_open
 * (from the handler's output or done callbacks); eof: nothing more after
 * this.  The data is copied and wiped once sent, and the job's command
 * timeout starts again (each feed is a new command to the remote side).
 * -1 when the host has no such job running.
 */
int	 ssh_pool_feed(struct ssh_pool *, size_t host, const void *data,
	    size_t len, int eof);
const struct strvec *ssh_pool_notes(const struct ssh_pool *);
/* Send threads started so far: 0 until an upload needed one. */
size_t	 ssh_pool_send_threads(const struct ssh_pool *);
/* Close every session, politely, waiting at most a second or two. */
void	 ssh_pool_close(struct ssh_pool *);
void	 ssh_pool_free(struct ssh_pool *);

/*
 * One job on every host; results[i] (n of them, caller-owned, released
 * with ssh_result_release) for hosts[i].  `h`, when not NULL, supplies
 * only the `output` callback and its arg.  The pool's notes are appended
 * to `notes` when it is not NULL.
 */
int	 ssh_run_all(const struct ssh_config *, const struct ssh_host *hosts,
	    size_t n, const struct ssh_job *job, struct ssh_result *results,
	    const struct ssh_handler *h, struct strvec *notes,
	    struct prov_err *err);

/*
 * What a private key file holds, without decrypting it: its type
 * ("ssh-ed25519", "ecdsa-sha2-nistp256", "ssh-rsa"; NULL when unknown)
 * and whether it is encrypted, so a caller knows to ask for a passphrase.
 * *type_out is the caller's to free.
 */
int	 ssh_key_info(const char *path, char **type_out, int *encrypted,
	    struct prov_err *err);

#endif

/*
 * ssh-job.c: a job's steps on a ready connection: upload over SFTP,
 * finalize, the command on its channel, download; and the output each
 * stream delivers.
 */
#include "compat.h"

#include <fcntl.h>
#include <libgen.h>

#include <openssl/rand.h>

#include "fs.h"
#include "ssh-int.h"

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
 * CH_DONE, ch_error set on failure), 0 to wait.  One switch over the
 * channel's states (open, exec, I/O, close), each short: the whole
 * machine reads at once, as ssh_conn_step()'s does.
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
			double	now = proc_now();

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
int
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

/* A new job: its deadline, and whether it runs through sudo. */
static int
ssh_job_start(struct ssh_conn *c)
{
	struct ssh_pool		*p = c->pool;
	const struct ssh_job	*j = c->job;

	c->res.status = SSH_OK;
	c->res.exit_code = -1;
	c->job_deadline = 0;
	if (j->timeout_s > 0 || p->cfg.command_timeout_s > 0)
		c->job_deadline = proc_now() + (double)(j->timeout_s > 0 ?
		    j->timeout_s : p->cfg.command_timeout_s);
	c->wrapped = p->cfg.become && strcmp(c->user, "root") != 0;
	c->js = ssh_conn_next_step(c, JS_START);
	return 1;
}

/* The file to upload: open it, read it once for its SHA-256. */
static int
ssh_job_up_local(struct ssh_conn *c)
{
	struct ssh_pool		*p = c->pool;
	const struct ssh_job	*j = c->job;

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
}

/* An SFTP session for the upload or the download. */
static int
ssh_job_sftp(struct ssh_conn *c)
{
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
}

/* Whether the target is a directory: the staged name depends on it. */
static int
ssh_job_up_stat(struct ssh_conn *c)
{
	const struct ssh_job	*j = c->job;
	LIBSSH2_SFTP_ATTRIBUTES	 attrs;
	int			 r;
	size_t			 l = strlen(j->upload_dst);
	int			 isdir = l > 0 && j->upload_dst[l - 1] == '/';

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

/* Create the staged file. */
static int
ssh_job_up_open(struct ssh_conn *c)
{
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
}

/* Write the file; a large one is lent to a send thread. */
static int
ssh_job_up_write(struct ssh_conn *c)
{
	struct ssh_pool		*p = c->pool;
	const struct ssh_job	*j = c->job;
	int			 r;
	char			*why = c->lent_err;
	struct stat		 now;

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

/* A refused write: remove the staged file, keep the session. */
static int
ssh_job_up_discard(struct ssh_conn *c)
{
	int	 r;

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
}

/* The mode on the staged file. */
static int
ssh_job_up_mode(struct ssh_conn *c)
{
	const struct ssh_job	*j = c->job;
	LIBSSH2_SFTP_ATTRIBUTES	 attrs;
	int			 r;
	int			 mode = j->upload_mode > 0 ? j->upload_mode : 0644;

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

/* fsync@openssh.com where the server has it. */
static int
ssh_job_up_fsync(struct ssh_conn *c)
{
	int	 r;

	r = libssh2_sftp_fsync(c->sfh);
	if (SSH_AGAIN(r))
		return ssh_conn_wait(c);
	/* Servers without fsync@openssh.com: the final script syncs. */
	c->up_synced = r == 0;
	c->js = JS_UP_CLOSE;
	return 1;
}

/* Close the upload's or the download's SFTP handle. */
static int
ssh_job_close(struct ssh_conn *c)
{
	const struct ssh_job	*j = c->job;
	int			 r;

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
}

/* End the SFTP session; a download then takes its final name. */
static int
ssh_job_shutdown(struct ssh_conn *c)
{
	int	 r;

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
}

/* Start the script that checks and moves the staged file. */
static int
ssh_job_up_final(struct ssh_conn *c)
{
	char	*script = ssh_conn_up_script(c);

	ssh_conn_ch_begin(c, script, NULL, 0, 1);
	free(script);
	c->js = JS_UP_FINAL_WAIT;
	return 1;
}

/* The final script's end: the upload is done or failed. */
static int
ssh_job_up_final_wait(struct ssh_conn *c)
{
	const struct ssh_job	*j = c->job;

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
}

/* Start the command on its channel. */
static int
ssh_job_cmd(struct ssh_conn *c)
{
	const struct ssh_job	*j = c->job;

	ssh_conn_ch_begin(c, j->command, j->stdin_data, j->stdin_len, 0);
	c->js = JS_CMD_WAIT;
	return 1;
}

/* The command's end: its exit code is the result. */
static int
ssh_job_cmd_wait(struct ssh_conn *c)
{
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
}

/* Open the remote file and a temporary local one. */
static int
ssh_job_dl_open(struct ssh_conn *c)
{
	const struct ssh_job	*j = c->job;

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
}

/* Read the remote file to its end. */
static int
ssh_job_dl_read(struct ssh_conn *c)
{
	struct ssh_pool		*p = c->pool;
	const struct ssh_job	*j = c->job;
	ssize_t			 n;

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
}

/* The job is over: hand the result back, keep or drop the session. */
static int
ssh_job_end(struct ssh_conn *c)
{
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

/* One function per step of a job (enum ssh_jstep). */
static int (*const ssh_job_steps[])(struct ssh_conn *) = {
	[JS_START] = ssh_job_start,
	[JS_UP_LOCAL] = ssh_job_up_local,
	[JS_UP_SFTP] = ssh_job_sftp,
	[JS_DL_SFTP] = ssh_job_sftp,
	[JS_UP_STAT] = ssh_job_up_stat,
	[JS_UP_OPEN] = ssh_job_up_open,
	[JS_UP_WRITE] = ssh_job_up_write,
	[JS_UP_DISCARD] = ssh_job_up_discard,
	[JS_UP_MODE] = ssh_job_up_mode,
	[JS_UP_FSYNC] = ssh_job_up_fsync,
	[JS_UP_CLOSE] = ssh_job_close,
	[JS_DL_CLOSE] = ssh_job_close,
	[JS_UP_SHUTDOWN] = ssh_job_shutdown,
	[JS_DL_SHUTDOWN] = ssh_job_shutdown,
	[JS_UP_FINAL] = ssh_job_up_final,
	[JS_UP_FINAL_WAIT] = ssh_job_up_final_wait,
	[JS_CMD] = ssh_job_cmd,
	[JS_CMD_WAIT] = ssh_job_cmd_wait,
	[JS_DL_OPEN] = ssh_job_dl_open,
	[JS_DL_READ] = ssh_job_dl_read,
	[JS_END] = ssh_job_end,
};

int
ssh_conn_job(struct ssh_conn *c)
{
	struct ssh_pool		*p = c->pool;
	const struct ssh_job	*j = c->job;

	if (c->job_deadline > 0 && proc_now() >= c->job_deadline &&
	    c->js != JS_END) {
		ssh_res_error(c, SSH_TIMEOUT, "still running after %lds",
		    j->timeout_s > 0 ? j->timeout_s : p->cfg.command_timeout_s);
		ssh_conn_abort(c);
		c->st = CS_IDLE;
		ssh_conn_job_done(c);
		return 0;
	}
	return ssh_job_steps[c->js](c);
}

/*
 * proc.c: run a program on this machine and keep what it says.  See proc.h.
 */
#include "compat.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <time.h>

#include "buf.h"
#include "proc.h"

#define PROC_MAX_DEFAULT (16u << 20)

extern char **environ;

/* environ with p->env applied: a name there replaces or removes ours. */
static void
proc_environ(struct strvec *out, const struct proc *p)
{
	size_t	i, k, n;

	for (i = 0; environ[i] != NULL; i++) {
		for (k = 0; k < p->env.n; k++) {
			n = strcspn(p->env.v[k], "=");
			if (strncmp(environ[i], p->env.v[k], n) == 0 &&
			    environ[i][n] == '=')
				break;
		}
		if (k == p->env.n)
			strvec_push(out, environ[i]);
	}
	for (k = 0; k < p->env.n; k++)
		if (strchr(p->env.v[k], '=') != NULL)
			strvec_push(out, p->env.v[k]);
}

/* Milliseconds left before the deadline (-1: none). */
static int
proc_left(const struct proc *p, const struct timespec *t0)
{
	struct timespec	now;
	long		ms;

	if (p->timeout_s <= 0)
		return -1;
	clock_gettime(CLOCK_MONOTONIC, &now);
	ms = (now.tv_sec - t0->tv_sec) * 1000;
	ms += (now.tv_nsec - t0->tv_nsec) / 1000000;
	ms = (long)p->timeout_s * 1000 - ms;
	return ms > 0 ? (int)ms : 0;
}

/*
 * Read fds[0] into p->out and fds[1] into p->err until both are closed
 * or the deadline passes (-1 with ETIMEDOUT).
 */
static int
proc_collect(struct proc *p, int fds[2], const struct timespec *t0)
{
	struct buf	*dst[2] = { p->out, p->err };
	size_t		 max = p->max > 0 ? p->max : PROC_MAX_DEFAULT;

	for (;;) {
		struct pollfd	pfd[2];
		char		chunk[16384];
		int		k, n, left;
		ssize_t		got;
		size_t		room;

		for (k = n = 0; k < 2; k++)
			if (fds[k] >= 0)
				pfd[n++] = (struct pollfd){ fds[k], POLLIN, 0 };
		if (n == 0)
			return 0;
		if ((left = proc_left(p, t0)) == 0) {
			errno = ETIMEDOUT;
			return -1;
		}
		if (poll(pfd, (nfds_t)n, left) < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		for (k = 0; k < n; k++) {
			int	s = pfd[k].fd == fds[0] ? 0 : 1;

			if (!(pfd[k].revents & (POLLIN | POLLHUP | POLLERR)))
				continue;
			got = read(pfd[k].fd, chunk, sizeof chunk);
			if (got < 0 && (errno == EINTR || errno == EAGAIN))
				continue;
			if (got <= 0) {
				close(fds[s]);
				fds[s] = -1;
				continue;
			}
			if (dst[s] == NULL || dst[s]->len >= max)
				continue;
			room = max - dst[s]->len;
			buf_add(dst[s], chunk,
			    (size_t)got < room ? (size_t)got : room);
		}
	}
}

int
proc_run(struct proc *p)
{
	posix_spawn_file_actions_t	 fa;
	struct strvec			 env = STRVEC_INIT;
	struct timespec			 t0;
	int				 po[2] = { -1, -1 }, pe[2] = { -1, -1 };
	int				 fds[2], e, r = -1, saved = 0;
	pid_t				 pid;

	p->status = 0;
	if (p->args.n == 0) {
		errno = EINVAL;
		return -1;
	}
	if (pipe2(po, O_CLOEXEC) != 0 ||
	    (p->out != NULL && p->err != NULL && pipe2(pe, O_CLOEXEC) != 0)) {
		saved = errno;
		goto out;
	}
	proc_environ(&env, p);
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
	posix_spawn_file_actions_adddup2(&fa, po[1], 1);
	posix_spawn_file_actions_adddup2(&fa, pe[1] >= 0 ? pe[1] : po[1], 2);
	e = posix_spawnp(&pid, p->args.v[0], &fa, NULL, p->args.v, env.v);
	posix_spawn_file_actions_destroy(&fa);
	if (e != 0) {
		saved = e;
		goto out;
	}
	close(po[1]);
	if (pe[1] >= 0)
		close(pe[1]);
	po[1] = pe[1] = -1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	fds[0] = po[0];
	fds[1] = pe[0];
	po[0] = pe[0] = -1;
	if (proc_collect(p, fds, &t0) != 0) {
		saved = errno;
		kill(pid, SIGKILL);
	}
	if (fds[0] >= 0)
		close(fds[0]);
	if (fds[1] >= 0)
		close(fds[1]);
	while (waitpid(pid, &p->status, 0) < 0 && errno == EINTR)
		;
	r = saved != 0 ? -1 : 0;
out:
	for (e = 0; e < 2; e++) {
		if (po[e] >= 0)
			close(po[e]);
		if (pe[e] >= 0)
			close(pe[e]);
	}
	strvec_clear(&env);
	errno = saved;
	return r;
}

void
proc_release(struct proc *p)
{
	strvec_clear(&p->args);
	strvec_clear(&p->env);
}

double
proc_now(void)
{
	struct timespec	ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

void
proc_sleep(double s)
{
	struct timespec	ts;

	ts.tv_sec = (time_t)s;
	ts.tv_nsec = (long)((s - (double)ts.tv_sec) * 1e9);
	while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
		;
}

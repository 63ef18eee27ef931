/*
 * proc.c: run a program on this machine and keep what it says.  See proc.h.
 */
#include "compat.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "buf.h"
#include "proc.h"

extern char **environ;

int
proc_run(struct buf *out, char *const argv[], int timeout_s, int *status)
{
	posix_spawn_file_actions_t	 fa;
	struct timespec			 t0, now;
	pid_t				 pid;
	int				 p[2], e, timed_out = 0;

	if (pipe2(p, O_CLOEXEC) != 0)
		return -1;
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_adddup2(&fa, p[1], 1);
	posix_spawn_file_actions_adddup2(&fa, p[1], 2);
	posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
	e = posix_spawnp(&pid, argv[0], &fa, NULL, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	close(p[1]);
	if (e != 0) {
		close(p[0]);
		errno = e;
		return -1;
	}
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (;;) {
		struct pollfd	pfd = { p[0], POLLIN, 0 };
		char		chunk[4096];
		ssize_t		n;
		long		left;

		clock_gettime(CLOCK_MONOTONIC, &now);
		left = (long)timeout_s * 1000 -
		    ((now.tv_sec - t0.tv_sec) * 1000 +
		    (now.tv_nsec - t0.tv_nsec) / 1000000);
		if (left <= 0) {
			kill(pid, SIGKILL);
			timed_out = 1;
			break;
		}
		if ((n = poll(&pfd, 1, (int)left)) <= 0) {
			if (n == 0 || errno == EINTR)
				continue;
			kill(pid, SIGKILL);
			break;
		}
		if ((n = read(p[0], chunk, sizeof chunk)) < 0) {
			if (errno == EINTR || errno == EAGAIN)
				continue;
			break;
		}
		if (n == 0)
			break;
		if (out->len < 16 * 1024 * 1024)
			buf_add(out, chunk, (size_t)n);
	}
	close(p[0]);
	while (waitpid(pid, status, 0) < 0 && errno == EINTR)
		;
	if (timed_out) {
		errno = ETIMEDOUT;
		return -1;
	}
	return 0;
}

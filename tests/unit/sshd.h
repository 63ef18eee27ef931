/*
 * sshd.h: a real sshd on loopback addresses, for the unit tests that talk
 * SSH (test_ssh.c, test_reboot.c).  Root only: elsewhere no sshd starts
 * and those tests skip their live part.  Static inline: a test uses what
 * it needs.
 */
#ifndef PROV_TEST_SSHD_H
#define PROV_TEST_SSHD_H

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "buf.h"

/* Run a shell command; the test fails when it does. */
static inline void
test_sh(const char *fmt, ...) PROV_PRINTF(1, 2);

static inline void
test_sh(const char *fmt, ...)
{
	va_list	 ap;
	char	*cmd;
	int	 r;

	va_start(ap, fmt);
	ck_assert_int_ge(vasprintf(&cmd, fmt, ap), 0);
	va_end(ap);
	r = system(cmd);
	ck_assert_msg(r == 0, "'%s' failed", cmd);
	free(cmd);
}

static inline long
test_free_port(void)
{
	struct sockaddr_in	sa;
	socklen_t		len = sizeof sa;
	int			fd = socket(AF_INET, SOCK_STREAM, 0);

	memset(&sa, 0, sizeof sa);
	sa.sin_family = AF_INET;
	bind(fd, (struct sockaddr *)&sa, sizeof sa);
	getsockname(fd, (struct sockaddr *)&sa, &len);
	close(fd);
	return ntohs(sa.sin_port);
}

static inline int
test_listening(const char *addr, long port)
{
	struct sockaddr_in	sa;
	int			fd = socket(AF_INET, SOCK_STREAM, 0), r;

	memset(&sa, 0, sizeof sa);
	sa.sin_family = AF_INET;
	sa.sin_port = htons((uint16_t)port);
	inet_pton(AF_INET, addr, &sa.sin_addr);
	r = connect(fd, (struct sockaddr *)&sa, sizeof sa);
	close(fd);
	return r == 0;
}

/*
 * sshd on NET1 .. NETn (NET is "127.0.117."), one free port, its host key
 * DIR/hostkey, the keys in DIR/authorized_keys, `extra` lines of
 * sshd_config; DIR/known_hosts gets every address's entry, and stderr
 * goes to DIR/sshd.log.  Its pid, or -1 when not root or without sshd;
 * *live says whether it answers.
 */
static inline pid_t
test_sshd_start(const char *dir, const char *net, int n, long *port,
    const char *extra, int *live)
{
	struct buf	 conf = BUF_INIT;
	char		*path, *last;
	pid_t		 pid;
	int		 i;

	*live = 0;
	if (geteuid() != 0 || access("/usr/sbin/sshd", X_OK) != 0)
		return -1;
	mkdir("/run/sshd", 0755);
	*port = test_free_port();
	for (i = 1; i <= n; i++)
		buf_addf(&conf, "ListenAddress %s%d:%ld\n", net, i, *port);
	buf_addf(&conf, "HostKey %s/hostkey\nAuthorizedKeysFile %s/authorized_keys\n"
	    "StrictModes no\nUsePAM no\nPidFile %s/sshd.pid\n"
	    "PermitRootLogin prohibit-password\nMaxStartups 100\n%s", dir, dir,
	    dir, extra != NULL ? extra : "");
	path = xasprintf("%s/sshd_config", dir);
	ck_assert_int_eq(buf_write_file_atomic(path, conf.buf, conf.len, 0644),
	    0);
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		char	*log = xasprintf("%s/sshd.log", dir);
		int	 fd = open(log, O_WRONLY | O_CREAT | O_TRUNC, 0644);

		dup2(fd, 2);
		execl("/usr/sbin/sshd", "/usr/sbin/sshd", "-D", "-e", "-f", path,
		    (char *)NULL);
		_exit(127);
	}
	last = xasprintf("%s%d", net, n);
	for (i = 0; i < 100 && !test_listening(last, *port); i++)
		usleep(50000);
	*live = test_listening(last, *port);
	test_sh("cd %s && for i in $(seq 1 %d); do echo \"[%s$i]:%ld "
	    "$(cut -d' ' -f1,2 hostkey.pub)\"; done >known_hosts", dir, n, net,
	    *port);
	free(last);
	free(path);
	buf_release(&conf);
	return pid;
}

#endif

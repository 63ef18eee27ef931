#include "test.h"

#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <sys/socket.h>

#include "buf.h"
#include "err.h"
#include "sshd.h"
#include "ssh.h"
#include "strvec.h"

/*
 * ssh_key_info on keys ssh-keygen makes here, then the pool API against a
 * real sshd on 127.0.117.1-4 (root only; skipped otherwise, as the e2e
 * tests in tests/e2e/t01*-exec-*.sh cover the command line).
 */

static char	 test_dir[64];
static pid_t	 test_sshd_pid = -1;
static long	 test_port;
static int	 test_live;		/* sshd is up */

/* The same, from a thread that must not assert: 1 when it exited 0. */
static int
test_sh_ok(const char *fmt, ...) PROV_PRINTF(1, 2);

static int
test_sh_ok(const char *fmt, ...)
{
	va_list	 ap;
	char	*cmd = NULL;
	int	 r;

	va_start(ap, fmt);
	r = vasprintf(&cmd, fmt, ap);
	va_end(ap);
	if (r < 0)
		return 0;
	r = system(cmd);
	free(cmd);
	return r == 0;
}

static char *
test_file(const char *name)
{
	return xasprintf("%s/%s", test_dir, name);
}

/* Keys, always; sshd when root and it is installed. */
static void
test_setup(void)
{
	char	*extra;

	snprintf(test_dir, sizeof test_dir, "/tmp/test_ssh.XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(test_dir));
	chmod(test_dir, 0755);
	test_sh("cd %s && ssh-keygen -q -t ed25519 -N '' -f ed25519 && "
	    "ssh-keygen -q -t ed25519 -N '' -f ed25519-other && "
	    "ssh-keygen -q -t ed25519 -N 'fixture pass' -f ed25519-encrypted && "
	    "ssh-keygen -q -t ecdsa -N '' -f ecdsa && "
	    "ssh-keygen -q -t rsa -b 2048 -N '' -f rsa && "
	    "ssh-keygen -q -t rsa -b 2048 -m PEM -N '' -f rsa-pem && "
	    "ssh-keygen -q -t ecdsa -m PEM -N 'pem pass' -f ecdsa-pem-enc && "
	    "echo 'not a key' >not-a-key && "
	    "ssh-keygen -q -t ed25519 -N '' -f hostkey && "
	    "cp ed25519.pub authorized_keys && chmod 644 authorized_keys && "
	    "mkdir home", test_dir);
	extra = xasprintf("SetEnv HOME=%s/home\nSubsystem sftp internal-sftp\n",
	    test_dir);
	test_sshd_pid = test_sshd_start(test_dir, "127.0.117.", 4, &test_port,
	    extra, &test_live);
	free(extra);
}

static void
test_teardown(void)
{
	if (test_sshd_pid > 0) {
		/* a failed stall test may leave sessions stopped */
		test_sh_ok("for p in $(pgrep -P %d); do pkill -CONT -P $p; "
		    "kill -CONT $p; done", (int)test_sshd_pid);
		kill(test_sshd_pid, SIGTERM);
		waitpid(test_sshd_pid, NULL, 0);
	}
	test_sh("umount %s/small 2>/dev/null; rm -rf %s", test_dir, test_dir);
}

/* ssh_key_info */

static const struct {
	const char	*file;
	const char	*type;		/* NULL: unknown */
	int		 encrypted;
	int		 ok;
} key_cases[] = {
	{ "ed25519", "ssh-ed25519", 0, 1 },
	{ "ed25519-encrypted", "ssh-ed25519", 1, 1 },
	{ "ecdsa", "ecdsa-sha2-nistp256", 0, 1 },
	{ "rsa", "ssh-rsa", 0, 1 },
	{ "rsa-pem", "ssh-rsa", 0, 1 },
	{ "ecdsa-pem-enc", "ecdsa-sha2-nistp256", 1, 1 },
	{ "not-a-key", NULL, 0, 0 },
	{ "no-such-file", NULL, 0, 0 },
};

START_TEST(test_ssh_key_info)
{
	struct prov_err	 err = PROV_ERR_INIT;
	char		*path = test_file(key_cases[_i].file), *type = NULL;
	int		 enc = -1, r;

	r = ssh_key_info(path, &type, &enc, &err);
	if (!key_cases[_i].ok) {
		ck_assert_int_eq(r, -1);
		ck_assert_ptr_nonnull(err.msg);
		ck_assert_ptr_nonnull(strstr(err.msg, path));
	} else {
		ck_assert_ok(r, &err);
		ck_assert_str_eq(type, key_cases[_i].type);
		ck_assert_int_eq(enc, key_cases[_i].encrypted);
	}
	free(type);
	free(path);
	prov_err_release(&err);
}
END_TEST

/* The pool, live. */

static struct ssh_config
test_cfg(void)
{
	struct ssh_config	cfg = SSH_CONFIG_INIT;
	static char		id[128], kh[128];

	snprintf(id, sizeof id, "%s/ed25519", test_dir);
	snprintf(kh, sizeof kh, "%s/known_hosts", test_dir);
	cfg.identity = id;
	cfg.known_hosts = kh;
	cfg.no_agent = 1;
	cfg.port = test_port;
	cfg.connect_timeout_s = 5;
	return cfg;
}

static const struct ssh_host test_hosts[] = {
	{ "n1", "127.0.117.1", 0 },
	{ "n2", "127.0.117.2", 0 },
	{ "n3", "127.0.117.3", 0 },
	{ "n4", "127.0.117.4", 0 },
};

#define TEST_LIVE()							\
	do {								\
		if (!test_live) {					\
			fprintf(stderr, "skip: no sshd (not root?)\n");	\
			return;						\
		}							\
	} while (0)

START_TEST(test_ssh_run_all)
{
	struct ssh_config	cfg = test_cfg();
	struct ssh_job		job = SSH_JOB_INIT;
	struct ssh_result	res[4];
	struct prov_err		err = PROV_ERR_INIT;
	size_t			i;

	TEST_LIVE();
	job.command = "echo out; echo err >&2; exit 2";
	ck_assert_ok(ssh_run_all(&cfg, test_hosts, 4, &job, res, NULL, NULL,
	    &err), &err);
	for (i = 0; i < 4; i++) {
		ck_assert_int_eq(res[i].status, SSH_FAILED);
		ck_assert_int_eq(res[i].exit_code, 2);
		ck_assert_str_eq(res[i].out.buf, "out\n");
		ck_assert_str_eq(res[i].err.buf, "err\n");
		ck_assert_ptr_null(res[i].error);
		ck_assert(res[i].elapsed_s > 0);
		ssh_result_release(&res[i]);
	}
}
END_TEST

/* A handler running a list of commands per host, in order. */
struct test_seq {
	struct ssh_job	 jobs[4];
	size_t		 njobs;
	size_t		 next[4];
	struct strvec	 log[4];	/* "status exit out" per job done */
	int		 stop_on_fail;
	int		 failed[4];
};

static const struct ssh_job *
test_seq_next(void *arg, size_t host)
{
	struct test_seq	*s = arg;

	if (s->failed[host] || s->next[host] >= s->njobs)
		return NULL;
	return &s->jobs[s->next[host]++];
}

static void
test_seq_done(void *arg, size_t host, const struct ssh_job *j,
    struct ssh_result *r)
{
	struct test_seq	*s = arg;

	buf_rtrim(&r->out);
	strvec_pushf(&s->log[host], "%s %d %s", ssh_status_name(r->status),
	    r->exit_code, r->out.buf);
	if (s->stop_on_fail && r->status != SSH_OK)
		s->failed[host] = 1;
	(void)j;
}

START_TEST(test_ssh_pool_sequence)
{
	struct ssh_config	 cfg = test_cfg();
	struct ssh_pool		*pool = NULL;
	struct prov_err		 err = PROV_ERR_INIT;
	struct test_seq		 s;
	struct ssh_handler	 h = { test_seq_next, test_seq_done, NULL, &s };
	size_t			 i, k;

	TEST_LIVE();
	memset(&s, 0, sizeof s);
	for (i = 0; i < 4; i++)
		s.log[i] = (struct strvec)STRVEC_INIT;
	/* $PPID is the sshd session: the same for every job of a connection. */
	s.jobs[0].command = "echo one $PPID";
	s.jobs[1].command = "echo two $PPID";
	s.jobs[2].command = "echo three $PPID; exit 5";
	s.jobs[3].command = "echo never";
	s.njobs = 4;
	s.stop_on_fail = 1;
	cfg.forks = 2;
	ck_assert_ok(ssh_pool_new(&pool, &cfg, test_hosts, 4, &err), &err);
	ck_assert_ok(ssh_pool_run(pool, &h, &err), &err);
	for (i = 0; i < 4; i++) {
		const char	*pp;

		ck_assert_uint_eq(s.log[i].n, 3);
		ck_assert(strncmp(s.log[i].v[0], "ok 0 one ", 9) == 0);
		ck_assert(strncmp(s.log[i].v[1], "ok 0 two ", 9) == 0);
		ck_assert(strncmp(s.log[i].v[2], "failed 5 three ", 15) == 0);
		pp = strrchr(s.log[i].v[0], ' ');
		for (k = 1; k < 3; k++)
			ck_assert_str_eq(strrchr(s.log[i].v[k], ' '), pp);
		strvec_clear(&s.log[i]);
	}
	ssh_pool_free(pool);
}
END_TEST

struct test_once {
	const struct ssh_job	*job;
	int			 asked[4];
	struct ssh_result	 res[4];
};

static const struct ssh_job *
test_once_next(void *arg, size_t host)
{
	struct test_once	*o = arg;

	if (o->asked[host])
		return NULL;
	o->asked[host] = 1;
	return o->job;
}

static void
test_once_done(void *arg, size_t host, const struct ssh_job *j,
    struct ssh_result *r)
{
	struct test_once	*o = arg;

	(void)j;
	ssh_result_move(&o->res[host], r);
}

/* keep_open: a second run reuses the sessions; after close it cannot. */
START_TEST(test_ssh_pool_keep_open)
{
	struct ssh_config	 cfg = test_cfg();
	struct ssh_pool		*pool = NULL;
	struct prov_err		 err = PROV_ERR_INIT;
	struct ssh_job		 job = SSH_JOB_INIT;
	struct test_once	 o;
	struct ssh_handler	 h = { test_once_next, test_once_done, NULL, &o };
	char			*first[4];
	size_t			 i;
	int			 run;

	TEST_LIVE();
	job.command = "echo $PPID";
	cfg.keep_open = 1;
	ck_assert_ok(ssh_pool_new(&pool, &cfg, test_hosts, 4, &err), &err);
	for (run = 0; run < 3; run++) {
		memset(&o, 0, sizeof o);
		o.job = &job;
		for (i = 0; i < 4; i++)
			ssh_result_init(&o.res[i]);
		if (run == 2)
			ssh_pool_close(pool);
		ck_assert_ok(ssh_pool_run(pool, &h, &err), &err);
		for (i = 0; i < 4; i++) {
			ck_assert_int_eq(o.res[i].status, SSH_OK);
			if (run == 0)
				first[i] = xstrdup(o.res[i].out.buf);
			else if (run == 1)
				ck_assert_str_eq(o.res[i].out.buf, first[i]);
			else
				ck_assert_str_ne(o.res[i].out.buf, first[i]);
			ssh_result_release(&o.res[i]);
		}
	}
	for (i = 0; i < 4; i++)
		free(first[i]);
	ssh_pool_free(pool);
}
END_TEST

/* A conversation: each answer makes the next question (ssh_pool_feed). */
struct test_talk {
	struct ssh_pool		*pool;
	const struct ssh_job	*job;
	int			 asked[4], said[4];
	struct buf		 seen[4];
	struct ssh_result	 res[4];
};

static const struct ssh_job *
test_talk_next(void *arg, size_t host)
{
	struct test_talk	*t = arg;

	if (t->asked[host])
		return NULL;
	t->asked[host] = 1;
	return t->job;
}

static void
test_talk_output(void *arg, size_t host, int stream, const char *d, size_t n)
{
	struct test_talk	*t = arg;
	static const char	*const lines[] = { "echo two\n", "echo three\n",
	    "exit 3\n" };
	size_t			 i, nl = 0;

	if (stream != 1)
		return;
	buf_add(&t->seen[host], d, n);
	for (i = 0; i < t->seen[host].len; i++)
		nl += t->seen[host].buf[i] == '\n';
	/* one new line of stdin per line of output, never ahead of it */
	while (t->said[host] < 3 && (size_t)t->said[host] < nl) {
		const char	*l = lines[t->said[host]];

		ck_assert_int_eq(ssh_pool_feed(t->pool, host, l, strlen(l),
		    t->said[host] == 2), 0);
		t->said[host]++;
	}
}

static void
test_talk_done(void *arg, size_t host, const struct ssh_job *j,
    struct ssh_result *r)
{
	struct test_talk	*t = arg;

	(void)j;
	ssh_result_move(&t->res[host], r);
	/* the job is over: nothing more can be fed */
	ck_assert_int_eq(ssh_pool_feed(t->pool, host, "x", 1, 1), -1);
}

START_TEST(test_ssh_feed)
{
	struct ssh_config	 cfg = test_cfg();
	struct ssh_job		 job = SSH_JOB_INIT;
	struct prov_err		 err = PROV_ERR_INIT;
	struct test_talk	 t;
	struct ssh_handler	 h = { test_talk_next, test_talk_done,
	    test_talk_output, &t };
	size_t			 i;

	TEST_LIVE();
	memset(&t, 0, sizeof t);
	job.command = "sh -s";
	job.stdin_data = "echo one\n";
	job.stdin_len = 9;
	job.stdin_open = 1;
	t.job = &job;
	for (i = 0; i < 4; i++) {
		buf_init(&t.seen[i], 0);
		ssh_result_init(&t.res[i]);
	}
	ck_assert_ok(ssh_pool_new(&t.pool, &cfg, test_hosts, 4, &err), &err);
	ck_assert_ok(ssh_pool_run(t.pool, &h, &err), &err);
	for (i = 0; i < 4; i++) {
		ck_assert_int_eq(t.res[i].status, SSH_FAILED);
		ck_assert_int_eq(t.res[i].exit_code, 3);
		ck_assert_str_eq(t.res[i].out.buf, "one\ntwo\nthree\n");
		ssh_result_release(&t.res[i]);
		buf_release(&t.seen[i]);
	}
	ssh_pool_free(t.pool);
}
END_TEST

/* Secrets travel on stdin; 5 MB of it too. */
START_TEST(test_ssh_stdin)
{
	struct ssh_config	cfg = test_cfg();
	struct ssh_job		job = SSH_JOB_INIT;
	struct ssh_result	res[2];
	struct prov_err		err = PROV_ERR_INIT;
	char			*big = xmalloc(5000000);
	size_t			i;

	TEST_LIVE();
	job.command = "cat";
	job.stdin_data = "s3cret token\n";
	job.stdin_len = 13;
	ck_assert_ok(ssh_run_all(&cfg, test_hosts, 2, &job, res, NULL, NULL,
	    &err), &err);
	for (i = 0; i < 2; i++) {
		ck_assert_int_eq(res[i].status, SSH_OK);
		ck_assert_str_eq(res[i].out.buf, "s3cret token\n");
		ssh_result_release(&res[i]);
	}
	memset(big, 'z', 5000000);
	job.command = "wc -c";
	job.stdin_data = big;
	job.stdin_len = 5000000;
	ck_assert_ok(ssh_run_all(&cfg, test_hosts, 2, &job, res, NULL, NULL,
	    &err), &err);
	for (i = 0; i < 2; i++) {
		ck_assert_int_eq(res[i].status, SSH_OK);
		ck_assert_str_eq(res[i].out.buf, "5000000\n");
		ssh_result_release(&res[i]);
	}
	free(big);
}
END_TEST

/*
 * `job` once on each of the first n hosts, through a pool with `threads`
 * send threads (cfg.send_threads); o gets the results.  Returns how many
 * send threads the pool started.
 */
static size_t
test_run_once(struct ssh_config *cfg, long threads, const struct ssh_job *job,
    size_t n, struct test_once *o)
{
	struct ssh_pool		*pool = NULL;
	struct ssh_handler	 h = { test_once_next, test_once_done, NULL, o };
	struct prov_err		 err = PROV_ERR_INIT;
	size_t			 started;

	memset(o, 0, sizeof *o);
	o->job = job;
	cfg->send_threads = threads;
	ck_assert_ok(ssh_pool_new(&pool, cfg, test_hosts, n, &err), &err);
	ck_assert_ok(ssh_pool_run(pool, &h, &err), &err);
	started = ssh_pool_send_threads(pool);
	ssh_pool_free(pool);
	return started;
}

/*
 * Upload, command and download in one job: inline (no send thread), then
 * with two send threads, which the 3 MB uploads are lent to.
 */
START_TEST(test_ssh_files)
{
	static const long	 threads[] = { -1, 2 };
	struct ssh_config	 cfg = test_cfg();
	struct ssh_job		 job = SSH_JOB_INIT;
	struct test_once	 o;
	struct buf		 a = BUF_INIT, b = BUF_INIT;
	char			*src = test_file("payload"), *dst, *cmd, *dl;
	size_t			 i;

	TEST_LIVE();
	test_sh("head -c 3000000 /dev/urandom >%s", src);
	dst = test_file("uploaded/");
	test_sh("rm -rf %s && mkdir -p %s", dst, dst);
	cmd = xasprintf("sha256sum < %s/uploaded/payload | cut -c1-64", test_dir);
	dl = xasprintf("%s/dl-%%h", test_dir);
	job.upload_src = src;
	job.upload_dst = dst;
	job.upload_mode = 0600;
	job.command = cmd;
	job.download_src = src;
	job.download_dst = dl;
	ck_assert_uint_eq(test_run_once(&cfg, threads[_i], &job, 3, &o),
	    _i == 0 ? 0 : 2);
	ck_assert_int_eq(buf_read_file(&a, src), 0);
	for (i = 0; i < 3; i++) {
		struct ssh_result	*r = &o.res[i];
		char			*p = xasprintf("%s/dl-%s", test_dir,
					    test_hosts[i].name);

		ck_assert_msg(r->status == SSH_OK, "%s: %s",
		    test_hosts[i].name, r->error);
		ck_assert_ptr_nonnull(r->upload_sha256);
		buf_rtrim(&r->out);
		ck_assert_str_eq(r->out.buf, r->upload_sha256);
		buf_reset(&b);
		ck_assert_int_eq(buf_read_file(&b, p), 0);
		ck_assert_uint_eq(b.len, a.len);
		ck_assert(memcmp(a.buf, b.buf, a.len) == 0);
		free(p);
		ssh_result_release(r);
	}
	{
		struct stat	st;
		char		*u = test_file("uploaded/payload");

		ck_assert_int_eq(stat(u, &st), 0);
		ck_assert_int_eq(st.st_mode & 07777, 0600);
		free(u);
	}
	buf_release(&a);
	buf_release(&b);
	free(src);
	free(dst);
	free(cmd);
	free(dl);
}
END_TEST

/*
 * A lent upload that fails half-way (a 1 MiB file system) comes back to
 * the pool's thread as the host's error, and its staged part is removed.
 */
START_TEST(test_ssh_upload_lent_error)
{
	struct ssh_config	 cfg = test_cfg();
	struct ssh_job		 job = SSH_JOB_INIT;
	struct test_once	 o;
	char			*src = test_file("payload4m"), *dst;

	TEST_LIVE();
	dst = test_file("small/");
	test_sh("head -c 4000000 /dev/urandom >%s && mkdir -p %s && "
	    "mount -t tmpfs -o size=1m provtest %s", src, dst, dst);
	job.upload_src = src;
	job.upload_dst = dst;
	ck_assert_uint_eq(test_run_once(&cfg, 2, &job, 1, &o), 2);
	/* the staged part is removed, over the same session */
	test_sh("[ -z \"$(ls -A %s)\" ] && umount %s", dst, dst);
	ck_assert_int_eq(o.res[0].status, SSH_ERROR);
	/* OpenSSH's sftp-server says only "failure" for ENOSPC. */
	ck_assert_msg(strncmp(o.res[0].error, "cannot write '", 14) == 0 &&
	    strstr(o.res[0].error, "/small/.payload4m.provtmp.") != NULL &&
	    strstr(o.res[0].error, "' on n1: ") != NULL, "%s", o.res[0].error);
	ssh_result_release(&o.res[0]);
	free(src);
	free(dst);
}
END_TEST

/*
 * A lent upload whose host stops answering (its sshd processes stopped
 * once 8 MiB have landed) ends at the job's deadline, not never.
 */
struct test_stall {
	char		*dir;
	_Atomic int	 stopped;
};

static void *
test_stall_main(void *arg)
{
	struct test_stall	*t = arg;
	int			 k;

	for (k = 0; k < 3000 && !t->stopped; k++) {
		if (test_sh_ok("find %s -name '.*provtmp*' -size +8M | "
		    "grep -q .", t->dir)) {
			t->stopped = test_sh_ok("for p in $(pgrep -P %d); do "
			    "kill -STOP $p; pkill -STOP -P $p; done",
			    (int)test_sshd_pid) ? 1 : 2;
		} else
			usleep(10000);
	}
	return NULL;
}

START_TEST(test_ssh_upload_lent_timeout)
{
	struct ssh_config	 cfg = test_cfg();
	struct ssh_job		 job = SSH_JOB_INIT;
	struct test_once	 o;
	struct test_stall	 t = { NULL, 0 };
	int			 stopped;
	size_t			 started;
	pthread_t		 tid;
	char			*src = test_file("sparse256m");

	TEST_LIVE();
	t.dir = test_file("stall/");
	/*
	 * Big enough to still be sending when the host stops, small enough
	 * that hashing it before the upload does not eat the job's 12 s
	 * first (1 GiB took longer than that on a busy 2-CPU machine).  At
	 * load 11 a 6 s deadline passed before 32 MiB had landed.
	 */
	test_sh("truncate -s 256M %s && mkdir -p %s", src, t.dir);
	job.upload_src = src;
	job.upload_dst = t.dir;
	job.timeout_s = 12;
	ck_assert_int_eq(pthread_create(&tid, NULL, test_stall_main, &t), 0);
	started = test_run_once(&cfg, 1, &job, 1, &o);
	stopped = t.stopped;
	t.stopped = 3;
	pthread_join(tid, NULL);
	test_sh("for p in $(pgrep -P %d); do pkill -CONT -P $p; kill -CONT $p; "
	    "done; rm -rf %s", (int)test_sshd_pid, t.dir);
	ck_assert_msg(started == 1, "no send thread started: %s: %s",
	    ssh_status_name(o.res[0].status), o.res[0].error);
	ck_assert_int_eq(stopped, 1);
	ck_assert_msg(o.res[0].status == SSH_TIMEOUT, "%s: %s",
	    ssh_status_name(o.res[0].status), o.res[0].error);
	ssh_result_release(&o.res[0]);
	free(src);
	free(t.dir);
}
END_TEST

/* out_max and spill files. */
START_TEST(test_ssh_spill)
{
	struct ssh_config	 cfg = test_cfg();
	struct ssh_job		 job = SSH_JOB_INIT;
	struct ssh_result	 res[1];
	struct prov_err		 err = PROV_ERR_INIT;
	struct buf		 f = BUF_INIT;
	char			*dir = test_file("spill");

	TEST_LIVE();
	cfg.out_max = 1000;
	cfg.spill_dir = dir;
	job.command = "seq 1 100000; seq 1 10 >&2";
	job.label = "step1";
	ck_assert_ok(ssh_run_all(&cfg, test_hosts, 1, &job, res, NULL, NULL,
	    &err), &err);
	ck_assert_int_eq(res[0].status, SSH_OK);
	ck_assert_uint_eq(res[0].out.len, 1000);
	ck_assert(res[0].out.truncated);
	ck_assert_uint_eq(res[0].out_total, 588895);
	ck_assert_ptr_nonnull(res[0].out_spill);
	ck_assert(strstr(res[0].out_spill, "/spill/n1.step1.out") != NULL);
	ck_assert_int_eq(buf_read_file(&f, res[0].out_spill), 0);
	ck_assert_uint_eq(f.len, 588895);
	ck_assert(strncmp(f.buf, "1\n2\n3\n", 6) == 0);
	/* stderr stayed under the cap: no file. */
	ck_assert_ptr_null(res[0].err_spill);
	ck_assert_str_eq(res[0].err.buf, "1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n");
	ssh_result_release(&res[0]);
	buf_release(&f);
	free(dir);
}
END_TEST

/* Unreachable and unknown hosts are result rows, not errors. */
START_TEST(test_ssh_failures)
{
	struct ssh_config	cfg = test_cfg();
	struct ssh_job		job = SSH_JOB_INIT;
	struct ssh_result	res[2];
	struct prov_err		err = PROV_ERR_INIT;
	struct ssh_host		hosts[2] = {
		{ "down", "127.0.117.99", 0 },
		{ "stranger", "127.0.117.1", 0 },
	};
	char			*kh = test_file("empty_known_hosts");

	TEST_LIVE();
	test_sh("echo >%s", kh);
	cfg.known_hosts = kh;
	cfg.tries = 2;
	job.command = "true";
	ck_assert_ok(ssh_run_all(&cfg, hosts, 2, &job, res, NULL, NULL, &err),
	    &err);
	ck_assert_int_eq(res[0].status, SSH_UNREACHABLE);
	ck_assert_ptr_nonnull(strstr(res[0].error, "Connection refused (2 tries)"));
	ck_assert_int_eq(res[1].status, SSH_HOSTKEY);
	ck_assert_ptr_nonnull(strstr(res[1].error, "is not known"));
	ssh_result_release(&res[0]);
	ssh_result_release(&res[1]);
	free(kh);
}
END_TEST

/*
 * A listener that accepts and never sends a banner, counting how many of
 * its connections are open at once: what one sshd sees of max_startups.
 */
struct test_tarpit {
	int		 fd;
	long		 port;
	_Atomic int	 stop;
	int		 accepted;
	int		 open_max;
};

static void *
test_tarpit_main(void *arg)
{
	struct test_tarpit	*t = arg;
	struct pollfd		 pfd[16];
	nfds_t			 n = 1, i;
	char			 b[64];

	pfd[0].fd = t->fd;
	pfd[0].events = POLLIN;
	while (!t->stop) {
		if (poll(pfd, n, 50) <= 0)
			continue;
		for (i = n - 1; i >= 1; i--)
			if (pfd[i].revents != 0 && read(pfd[i].fd, b, sizeof b) <= 0) {
				close(pfd[i].fd);
				pfd[i] = pfd[--n];
			}
		if ((pfd[0].revents & POLLIN) && n < ARRAY_SIZE(pfd)) {
			pfd[n].fd = accept(t->fd, NULL, NULL);
			pfd[n].events = POLLIN;
			if (pfd[n].fd >= 0) {
				t->accepted++;
				n++;
			}
		}
		if ((int)n - 1 > t->open_max)
			t->open_max = (int)n - 1;
	}
	for (i = 1; i < n; i++)
		close(pfd[i].fd);
	return NULL;
}

/* Four hosts that never answer, two connecting at a time. */
START_TEST(test_ssh_max_startups)
{
	struct ssh_config	 cfg = test_cfg();
	struct ssh_job		 job = SSH_JOB_INIT;
	struct ssh_result	 res[4];
	struct prov_err		 err = PROV_ERR_INIT;
	struct ssh_host		 hosts[4];
	struct test_tarpit	 t = { -1, 0, 0, 0, 0 };
	struct sockaddr_in	 sin;
	socklen_t		 len = sizeof sin;
	pthread_t		 tid;
	size_t			 i;

	memset(&sin, 0, sizeof sin);
	sin.sin_family = AF_INET;
	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	t.fd = socket(AF_INET, SOCK_STREAM, 0);
	ck_assert_int_ge(t.fd, 0);
	ck_assert_int_eq(bind(t.fd, (struct sockaddr *)&sin, sizeof sin), 0);
	ck_assert_int_eq(listen(t.fd, 16), 0);
	ck_assert_int_eq(getsockname(t.fd, (struct sockaddr *)&sin, &len), 0);
	t.port = ntohs(sin.sin_port);
	for (i = 0; i < 4; i++)
		hosts[i] = (struct ssh_host){ test_hosts[i].name, "127.0.0.1",
		    t.port };
	ck_assert_int_eq(pthread_create(&tid, NULL, test_tarpit_main, &t), 0);
	cfg.forks = 4;
	cfg.max_startups = 2;
	cfg.connect_timeout_s = 1;
	cfg.tries = 1;
	job.command = "true";
	ck_assert_ok(ssh_run_all(&cfg, hosts, 4, &job, res, NULL, NULL, &err),
	    &err);
	t.stop = 1;
	pthread_join(tid, NULL);
	close(t.fd);
	for (i = 0; i < 4; i++) {
		ck_assert_msg(res[i].status == SSH_TIMEOUT, "%s: %s",
		    ssh_status_name(res[i].status), res[i].error);
		ssh_result_release(&res[i]);
	}
	ck_assert_int_eq(t.accepted, 4);
	ck_assert_int_eq(t.open_max, 2);
}
END_TEST

/*
 * An unencrypted ed25519 key signs in provision itself (decoded once for
 * every login): the pool tests log in with one; a key the host does not
 * list must still be refused, not signed into.
 */
START_TEST(test_ssh_other_key)
{
	struct ssh_config	cfg = test_cfg();
	struct ssh_job		job = SSH_JOB_INIT;
	struct ssh_result	res[1];
	struct prov_err		err = PROV_ERR_INIT;
	char			*id = test_file("ed25519-other");

	TEST_LIVE();
	cfg.identity = id;
	job.command = "true";
	ck_assert_ok(ssh_run_all(&cfg, test_hosts, 1, &job, res, NULL, NULL,
	    &err), &err);
	ck_assert_int_eq(res[0].status, SSH_AUTH);
	ck_assert_ptr_nonnull(strstr(res[0].error, id));
	ssh_result_release(&res[0]);
	free(id);
}
END_TEST

static Suite *
ssh_suite(void)
{
	Suite	*s = suite_create("ssh");
	TCase	*tc;

	tc = tcase_create("keys");
	tcase_add_unchecked_fixture(tc, test_setup, test_teardown);
	tcase_add_loop_test(tc, test_ssh_key_info, 0,
	    (int)ARRAY_SIZE(key_cases));
	suite_add_tcase(s, tc);

	tc = tcase_create("pool");
	tcase_set_timeout(tc, 60);
	tcase_add_unchecked_fixture(tc, test_setup, test_teardown);
	tcase_add_test(tc, test_ssh_run_all);
	tcase_add_test(tc, test_ssh_pool_sequence);
	tcase_add_test(tc, test_ssh_pool_keep_open);
	tcase_add_test(tc, test_ssh_stdin);
	tcase_add_test(tc, test_ssh_feed);
	tcase_add_loop_test(tc, test_ssh_files, 0, 2);
	tcase_add_test(tc, test_ssh_upload_lent_error);
	tcase_add_test(tc, test_ssh_upload_lent_timeout);
	tcase_add_test(tc, test_ssh_spill);
	tcase_add_test(tc, test_ssh_failures);
	tcase_add_test(tc, test_ssh_max_startups);
	tcase_add_test(tc, test_ssh_other_key);
	suite_add_tcase(s, tc);
	return s;
}

TEST_MAIN(ssh_suite)

#include "test.h"

#include <signal.h>

#include "buf.h"
#include "err.h"
#include "reboot.h"
#include "sshd.h"
#include "ssh.h"

/*
 * Managed reboots without VMs: the order (workers K at a time, heads one
 * at a time and last), then reboot_run against a real sshd on
 * 127.0.118.1-4 (root only) with a stand-in for templates/reboot.sh: each
 * "node" (told apart by $SSH_CONNECTION) keeps its boot ID in a file and
 * "reboots" by changing it a moment later, except 127.0.118.3, which never
 * comes back.  The VM suite (tests/vm) reboots real machines.
 */

static char	 test_dir[64];
static pid_t	 test_sshd_pid = -1;
static long	 test_port;
static int	 test_live;

/* batches */

static const struct {
	const char	*heads;		/* 1 per node that is a head */
	long		 k;
	const char	*want;		/* node indexes, '|' between batches */
} batch_cases[] = {
	{ "0000", 1, "0|1|2|3" },
	{ "0000", 2, "01|23" },
	{ "0000", 3, "012|3" },
	{ "0000", 8, "0123" },
	{ "1000", 8, "123|0" },		/* the head last */
	{ "0101", 8, "02|1|3" },	/* heads one at a time */
	{ "0110", 1, "0|3|1|2" },
	{ "11", 4, "0|1" },
	{ "", 4, "" },
	{ "000", 0, "0|1|2" },		/* K below 1 counts as 1 */
};

START_TEST(test_reboot_batches)
{
	const char		*h = batch_cases[_i].heads;
	size_t			 n = strlen(h), order[8], sizes[8], nb, b, i, at = 0;
	struct reboot_node	 nodes[8];
	struct buf		 got = BUF_INIT;

	memset(nodes, 0, sizeof nodes);
	for (i = 0; i < n; i++)
		nodes[i].head = h[i] == '1';
	nb = reboot_batches(nodes, n, batch_cases[_i].k, order, sizes);
	for (b = 0; b < nb; b++) {
		if (b > 0)
			buf_addch(&got, '|');
		for (i = 0; i < sizes[b]; i++)
			buf_addf(&got, "%zu", order[at++]);
	}
	ck_assert_uint_eq(at, n);
	ck_assert_str_eq(got.len > 0 ? got.buf : "", batch_cases[_i].want);
	buf_release(&got);
}
END_TEST

/* reboot_run on sshd */

static void
test_setup(void)
{
	snprintf(test_dir, sizeof test_dir, "/tmp/test_reboot.XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(test_dir));
	chmod(test_dir, 0755);
	test_sh("cd %s && ssh-keygen -q -t ed25519 -N '' -f id && "
	    "ssh-keygen -q -t ed25519 -N '' -f hostkey && cp id.pub "
	    "authorized_keys && for i in 1 2 3 4; do echo aaaa >127.0.118.$i; "
	    "done", test_dir);
	test_sshd_pid = test_sshd_start(test_dir, "127.0.118.", 4, &test_port,
	    NULL, &test_live);
}

static void
test_teardown(void)
{
	if (test_sshd_pid > 0) {
		kill(test_sshd_pid, SIGTERM);
		waitpid(test_sshd_pid, NULL, 0);
	}
	test_sh("rm -rf %s", test_dir);
}

/*
 * The stand-in for templates/reboot.sh: the same calls and answers.  A
 * "reboot" changes the node's boot ID after 0.5 s and logs its start and
 * its end; 127.0.118.3 starts its reboot and never comes back.
 */
static char *
test_script(void)
{
	return xasprintf(
	    "D=%s\n"
	    "set -- $SSH_CONNECTION\nME=$3\n"
	    "reboot_start() {\n"
	    "\techo \"start $ME\" >>$D/log\n"
	    "\techo \"boot $(cat $D/$ME)\"\n"
	    "\t[ $ME = 127.0.118.3 ] && exit 0\n"
	    "\t(sleep 0.5; echo bbbb >$D/$ME; echo \"back $ME\" >>$D/log) "
	    "</dev/null >/dev/null 2>&1 &\n"
	    "}\n"
	    "reboot_wait() {\n"
	    "\tid=$(cat $D/$ME)\n"
	    "\tcase $ME in 127.0.118.4) echo \"boot $id degraded x.service "
	    "y.service\" ;;\n"
	    "\t127.0.118.1) echo \"boot $id starting home.mount\" ;;\n"
	    "\t*) echo \"boot $id running\" ;; esac\n"
	    "}\n", test_dir);
}

struct test_events {
	struct buf	log;
};

static void
test_event(void *arg, enum reboot_event_kind kind, const struct reboot_node *rn)
{
	struct test_events	*te = arg;

	buf_addf(&te->log, "%s %s%s\n", kind == REBOOT_EV_START ? "start" :
	    "done", rn->name, kind == REBOOT_EV_DONE && rn->res ==
	    REBOOT_FAILED ? " failed" : "");
}

START_TEST(test_reboot_run)
{
	struct ssh_config	 cfg = SSH_CONFIG_INIT;
	struct reboot_opts	 o;
	struct reboot_node	 nodes[4];
	struct test_events	 te = { BUF_INIT };
	struct prov_err		 err = PROV_ERR_INIT;
	char			*script, *id, *kh, *script_log;
	struct buf		 log = BUF_INIT;
	size_t			 i;

	if (!test_live)
		return;
	id = xasprintf("%s/id", test_dir);
	kh = xasprintf("%s/known_hosts", test_dir);
	cfg.identity = id;
	cfg.known_hosts = kh;
	cfg.no_agent = 1;
	cfg.port = test_port;
	cfg.connect_timeout_s = 5;
	script = test_script();
	memset(nodes, 0, sizeof nodes);
	/* the head first in the list: it must go last */
	nodes[0].name = "head"; nodes[0].addr = "127.0.118.1"; nodes[0].head = 1;
	nodes[1].name = "w2"; nodes[1].addr = "127.0.118.2";
	nodes[2].name = "w3"; nodes[2].addr = "127.0.118.3";
	nodes[3].name = "w4"; nodes[3].addr = "127.0.118.4";
	memset(&o, 0, sizeof o);
	o.cfg = &cfg;
	o.script = script;
	o.parallel = 2;
	o.timeout_s = 3;
	o.poll_s = 0.3;
	o.event = test_event;
	o.event_arg = &te;
	ck_assert_ok(reboot_run(nodes, 4, &o, &err), &err);

	/* w2 and w3 together, then w4 once both are done, the head last */
	ck_assert_str_eq(te.log.buf,
	    "start w2\nstart w3\ndone w2\ndone w3 failed\nstart w4\ndone w4\n"
	    "start head\ndone head failed\n");
	ck_assert_int_eq(nodes[1].res, REBOOT_OK);
	ck_assert_ptr_null(nodes[1].msg);
	ck_assert_int_eq(nodes[2].res, REBOOT_FAILED);
	ck_assert_str_eq(nodes[2].msg, "not back within 3 s of its reboot");
	ck_assert(nodes[2].elapsed >= 3.0);
	ck_assert_int_eq(nodes[3].res, REBOOT_DEGRADED);
	ck_assert_str_eq(nodes[3].msg, "degraded, failed units: x.service "
	    "y.service");
	/* its boot waits on a mount (an NFS server down): the unit said */
	ck_assert_int_eq(nodes[0].res, REBOOT_FAILED);
	ck_assert_str_eq(nodes[0].msg, "back, but its boot did not finish: "
	    "systemd says starting, still at work on: home.mount");
	/* on the nodes' side: no start of a batch before the last was back */
	script_log = xasprintf("%s/log", test_dir);
	ck_assert_int_eq(buf_read_file(&log, script_log), 0);
	free(script_log);
	ck_assert_ptr_nonnull(strstr(log.buf, "back 127.0.118.2"));
	ck_assert_ptr_null(strstr(log.buf, "back 127.0.118.3"));
	ck_assert(strstr(log.buf, "start 127.0.118.4") >
	    strstr(log.buf, "back 127.0.118.2"));
	ck_assert(strstr(log.buf, "start 127.0.118.1") >
	    strstr(log.buf, "back 127.0.118.4"));

	/* a node that cannot even start its reboot fails at once */
	nodes[0].addr = "127.0.118.9";	/* nothing listens */
	cfg.tries = 1;
	buf_reset(&te.log);
	ck_assert_ok(reboot_run(nodes, 1, &o, &err), &err);
	ck_assert_int_eq(nodes[0].res, REBOOT_FAILED);
	ck_assert_ptr_nonnull(strstr(nodes[0].msg, "cannot reboot: "));
	ck_assert_str_eq(te.log.buf, "done head failed\n");

	for (i = 0; i < 4; i++)
		free(nodes[i].msg);
	buf_release(&te.log);
	buf_release(&log);
	free(script);
	free(id);
	free(kh);
}
END_TEST

static Suite *
reboot_suite(void)
{
	Suite	*s = suite_create("reboot");
	TCase	*tc;

	tc = tcase_create("order");
	tcase_add_loop_test(tc, test_reboot_batches, 0,
	    (int)ARRAY_SIZE(batch_cases));
	suite_add_tcase(s, tc);

	tc = tcase_create("sshd");
	tcase_add_unchecked_fixture(tc, test_setup, test_teardown);
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_reboot_run);
	suite_add_tcase(s, tc);
	return s;
}

TEST_MAIN(reboot_suite)

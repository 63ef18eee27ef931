#include "test.h"

#include <dirent.h>
#include <sys/stat.h>
#include <time.h>

#include "buf.h"
#include "err.h"
#include "state.h"

static char *
test_state_tmpdir(void)
{
	char	*d = xstrdup("/tmp/test_state.XXXXXX");

	ck_assert_ptr_nonnull(mkdtemp(d));
	return d;
}

static void
test_state_rmdir(char *d)
{
	char	*cmd = xasprintf("rm -rf '%s'", d);

	ck_assert_int_eq(system(cmd), 0);
	free(cmd);
	free(d);
}

/* Entries in dir other than . and .., joined by ' ' (caller frees). */
static char *
test_state_ls(const char *dir)
{
	struct dirent	**ents = NULL;
	struct buf	  b = BUF_INIT;
	int		  n, i;

	n = scandir(dir, &ents, NULL, alphasort);
	ck_assert_int_ge(n, 0);
	for (i = 0; i < n; i++) {
		if (strcmp(ents[i]->d_name, ".") != 0 &&
		    strcmp(ents[i]->d_name, "..") != 0)
			buf_addf(&b, "%s%s", b.len ? " " : "", ents[i]->d_name);
		free(ents[i]);
	}
	free(ents);
	return buf_detach(&b, NULL);
}

static const struct state_step *
test_state_step(const struct state *st, const char *node, const char *step)
{
	size_t	i, j;

	for (i = 0; i < st->n; i++) {
		if (strcmp(st->nodes[i].name, node) != 0)
			continue;
		for (j = 0; j < st->nodes[i].n; j++)
			if (strcmp(st->nodes[i].steps[j].name, step) == 0)
				return &st->nodes[i].steps[j];
	}
	return NULL;
}

START_TEST(test_state_res_names)
{
	static const struct {
		enum state_res	 r;
		const char	*name;
		int		 done;
	} cases[] = {
		{ STATE_PENDING, "pending", 0 },
		{ STATE_RUNNING, "running", 0 },
		{ STATE_OK, "ok", 1 },
		{ STATE_CHANGED, "changed", 1 },
		{ STATE_SKIPPED, "skipped", 1 },
		{ STATE_FAILED, "failed", 0 },
		{ STATE_UNREACHABLE, "unreachable", 0 },
		{ STATE_INTERRUPTED, "interrupted", 0 },
	};
	size_t	i;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		ck_assert_str_eq(state_res_name(cases[i].r), cases[i].name);
		ck_assert_int_eq(state_res_done(cases[i].r), cases[i].done);
	}
	ck_assert_str_eq(state_res_name((enum state_res)8), "?");
	ck_assert_str_eq(state_res_name((enum state_res)-1), "?");
}
END_TEST

START_TEST(test_state_open_missing)
{
	char		*dir = test_state_tmpdir();
	char		*path = xasprintf("%s/state.json", dir);
	char		*ls;
	struct state	*st = NULL;
	struct prov_err	 err = PROV_ERR_INIT;

	ck_assert_ok(state_open(&st, path, &err), &err);
	ck_assert_ptr_nonnull(st);
	ck_assert_uint_eq(st->n, 0);
	ck_assert_str_eq(st->path, path);
	ck_assert_ptr_null(st->run_id);
	ck_assert_int_eq(state_get(st, "gpu01", "base"), STATE_PENDING);
	/* Opening creates nothing. */
	ls = test_state_ls(dir);
	ck_assert_str_eq(ls, "");
	free(ls);
	state_free(st);
	state_free(NULL);
	free(path);
	test_state_rmdir(dir);
}
END_TEST

START_TEST(test_state_set_get)
{
	struct state	*st = NULL;
	struct prov_err	 err = PROV_ERR_INIT;
	time_t		 t0 = time(NULL);
	const struct state_step *s;

	ck_assert_ok(state_open(&st, "/nonexistent-dir/state.json", &err),
	    &err);
	state_set(st, "gpu01", "base", STATE_RUNNING, NULL, 0);
	state_set(st, "gpu01", "base", STATE_CHANGED, "first msg", 1.5);
	state_set(st, "gpu01", "slurm", STATE_FAILED, "exit 1", 2);
	state_set(st, "gpu02", "base", STATE_OK, NULL, 0.25);
	ck_assert_int_eq(state_get(st, "gpu01", "base"), STATE_CHANGED);
	ck_assert_int_eq(state_get(st, "gpu01", "slurm"), STATE_FAILED);
	ck_assert_int_eq(state_get(st, "gpu02", "base"), STATE_OK);
	ck_assert_int_eq(state_get(st, "gpu02", "slurm"), STATE_PENDING);
	ck_assert_int_eq(state_get(st, "gpu03", "base"), STATE_PENDING);
	/* One entry per node and per step, in first-seen order. */
	ck_assert_uint_eq(st->n, 2);
	ck_assert_str_eq(st->nodes[0].name, "gpu01");
	ck_assert_uint_eq(st->nodes[0].n, 2);
	ck_assert_str_eq(st->nodes[0].steps[1].name, "slurm");
	s = test_state_step(st, "gpu01", "base");
	ck_assert_str_eq(s->msg, "first msg");
	ck_assert_double_eq(s->elapsed, 1.5);
	ck_assert_int_ge((long long)s->at, (long long)t0);
	/* A later set replaces the message, or clears it. */
	state_set(st, "gpu01", "base", STATE_OK, NULL, 3);
	s = test_state_step(st, "gpu01", "base");
	ck_assert_ptr_null(s->msg);
	ck_assert_double_eq(s->elapsed, 3);
	state_free(st);
}
END_TEST

/* Messages that must survive JSON and come back byte for byte. */
static const char *const tricky_msgs[] = {
	"plain",
	"",
	"it's \"quoted\"",
	"line one\nline two\n",
	"tab\tcr\r back\\slash \\n not a newline",
	"caf\xc3\xa9 \xe6\x97\xa5\xe6\x9c\xac \xf0\x9f\x9a\x80",
	"control \x01\x1f\x7f",
	"null",
	"true",
	"~",
	"{\"nodes\": {}}",
	"E: Unable to locate package nvidia-driver-550\n"
	    "W: --force-yes is deprecated",
};

START_TEST(test_state_round_trip)
{
	char		*dir = test_state_tmpdir();
	char		*path = xasprintf("%s/state.json", dir);
	char		*ls;
	struct state	*st = NULL, *st2 = NULL;
	struct prov_err	 err = PROV_ERR_INIT;
	struct stat	 sb;
	size_t		 i, j;
	char		 node[32];

	ck_assert_ok(state_open(&st, path, &err), &err);
	st->run_id = xstrdup("20261130T190000Z");
	st->status = xstrdup("failed");
	for (i = 0; i < ARRAY_SIZE(tricky_msgs); i++) {
		snprintf(node, sizeof node, "gpu%02zu", i);
		state_set(st, node, "base", STATE_CHANGED, NULL, 1.5);
		state_set(st, node, "gpu-driver", (enum state_res)(i % 8),
		    tricky_msgs[i], (double)i + 0.125);
	}
	/* A node name that needs quoting in JSON too. */
	state_set(st, "we\"ird\\node", "extras", STATE_SKIPPED, "no extras", 0);
	/* Timestamps from an earlier run must survive a reload. */
	st->nodes[0].steps[0].at = 1764529200;
	ck_assert_ok(state_save(st, &err), &err);

	/* Atomic: one file, no temporary left; private. */
	ls = test_state_ls(dir);
	ck_assert_str_eq(ls, "state.json");
	free(ls);
	ck_assert_int_eq(stat(path, &sb), 0);
	ck_assert_uint_eq(sb.st_mode & 07777, 0600);

	ck_assert_ok(state_open(&st2, path, &err), &err);
	ck_assert_str_eq(st2->run_id, "20261130T190000Z");
	ck_assert_str_eq(st2->status, "failed");
	ck_assert_uint_eq(st2->n, st->n);
	for (i = 0; i < st->n; i++) {
		ck_assert_str_eq(st2->nodes[i].name, st->nodes[i].name);
		ck_assert_uint_eq(st2->nodes[i].n, st->nodes[i].n);
		for (j = 0; j < st->nodes[i].n; j++) {
			const struct state_step	*a, *b;

			a = &st->nodes[i].steps[j];
			b = &st2->nodes[i].steps[j];
			ck_assert_str_eq(b->name, a->name);
			ck_assert_int_eq(b->res, a->res);
			ck_assert_double_eq_tol(b->elapsed, a->elapsed, 0.0005);
			ck_assert_int_eq((long long)b->at, (long long)a->at);
			if (a->msg == NULL)
				ck_assert_ptr_null(b->msg);
			else {
				ck_assert_ptr_nonnull(b->msg);
				ck_assert_str_eq(b->msg, a->msg);
			}
		}
	}
	ck_assert_int_eq(state_get(st2, "we\"ird\\node", "extras"),
	    STATE_SKIPPED);

	/* Saving what was read gives the same bytes. */
	{
		struct buf	a = BUF_INIT, b = BUF_INIT;

		state_to_json(&a, st);
		state_to_json(&b, st2);
		ck_assert_str_eq(b.buf, a.buf);
		buf_release(&a);
		buf_release(&b);
	}
	state_free(st);
	state_free(st2);
	free(path);
	test_state_rmdir(dir);
}
END_TEST

/* The exact shape of the file (state.c's header comment). */
START_TEST(test_state_json_shape)
{
	struct state	*st = NULL;
	struct prov_err	 err = PROV_ERR_INIT;
	struct buf	 b = BUF_INIT;

	ck_assert_ok(state_open(&st, "/nonexistent-dir/s.json", &err), &err);
	buf_adds(&b, "");
	state_to_json(&b, st);
	ck_assert_str_eq(b.buf, "{\"version\": 1, \"run\": \"\", "
	    "\"status\": \"running\", \"nodes\": {}}\n");
	buf_reset(&b);
	st->run_id = xstrdup("r1");
	st->status = xstrdup("done");
	state_set(st, "gpu01", "base", STATE_CHANGED, NULL, 1.5);
	state_set(st, "gpu01", "slurm", STATE_FAILED, "exit 1", 0.0004);
	state_set(st, "gpu02", "base", STATE_OK, NULL, 2);
	st->nodes[0].steps[0].at = 1764529200;
	st->nodes[0].steps[1].at = 1764529201;
	st->nodes[1].steps[0].at = 1764529202;
	state_to_json(&b, st);
	ck_assert_str_eq(b.buf,
	    "{\"version\": 1, \"run\": \"r1\", \"status\": \"done\", "
	    "\"nodes\": {\n"
	    "  \"gpu01\": {\"base\": {\"result\": \"changed\", \"elapsed\": "
	    "1.500, \"at\": 1764529200, \"message\": null}, \"slurm\": "
	    "{\"result\": \"failed\", \"elapsed\": 0.000, \"at\": 1764529201, "
	    "\"message\": \"exit 1\"}},\n"
	    "  \"gpu02\": {\"base\": {\"result\": \"ok\", \"elapsed\": 2.000, "
	    "\"at\": 1764529202, \"message\": null}}\n"
	    "}}\n");
	buf_release(&b);
	state_free(st);
}
END_TEST

/* Files written by hand or by other versions. */
static const struct {
	const char	*text;
	const char	*want;		/* gpu01 base result, or NULL */
	const char	*err;		/* after the path; NULL: ok */
} read_cases[] = {
	{ "{\"nodes\": {}}", NULL, NULL },
	{ "{\"nodes\": {\"gpu01\": {\"base\": {\"result\": \"ok\"}}}}", "ok",
	    NULL },
	/* Unknown results read as pending: the step runs again. */
	{ "{\"nodes\": {\"gpu01\": {\"base\": {\"result\": \"weird\"}}}}",
	    "pending", NULL },
	/* Entries without a result are ignored; other keys are tolerated. */
	{ "{\"version\": 2, \"extra\": [1], \"nodes\": {\"gpu01\": {\"base\": "
	    "{\"elapsed\": 3}}, \"gpu02\": 5}}", "pending", NULL },
	{ "[1, 2]", NULL, "' is not a JSON object (move it away to start "
	    "afresh)" },
	{ "", NULL, "' is not a JSON object (move it away to start afresh)" },
	{ "{\"version\": 1}", NULL, "' has no nodes (move it away to start "
	    "afresh)" },
	{ "{\"nodes\": [1]}", NULL, "' has no nodes (move it away to start "
	    "afresh)" },
};

START_TEST(test_state_read_table)
{
	char		*dir = test_state_tmpdir();
	char		*path = xasprintf("%s/state.json", dir);
	struct state	*st = NULL;
	struct prov_err	 err = PROV_ERR_INIT;
	const char	*text = read_cases[_i].text;
	int		 r;

	ck_assert_int_eq(buf_write_file_atomic(path, text, strlen(text), 0600),
	    0);
	r = state_open(&st, path, &err);
	if (read_cases[_i].err == NULL) {
		ck_assert_ok(r, &err);
		if (read_cases[_i].want != NULL)
			ck_assert_str_eq(state_res_name(state_get(st, "gpu01",
			    "base")), read_cases[_i].want);
	} else {
		char	*want = xasprintf("state '%s%s", path,
		    read_cases[_i].err);

		ck_assert_int_eq(r, -1);
		ck_assert_ptr_null(st);
		ck_assert_int_eq(err.code, PROV_E_STATE);
		ck_assert_str_eq(err.msg, want);
		free(want);
	}
	state_free(st);
	prov_err_release(&err);
	free(path);
	test_state_rmdir(dir);
}
END_TEST

/* A torn or garbled file: a clear error that names it and says what to do. */
static const char *const corrupt_cases[] = {
	"{\"version\": 1, \"run\": \"r\", \"nodes\": {\"gpu01\": {\"base\": ",
	"{\"nodes\": {\"a\": 1, \"a\": 2",
	"\"unterminated",
	"{ [ } ]",
	"\t{}",
};

START_TEST(test_state_corrupt)
{
	char		*dir = test_state_tmpdir();
	char		*path = xasprintf("%s/state.json", dir);
	char		*want;
	struct state	*st = NULL;
	struct prov_err	 err = PROV_ERR_INIT;
	const char	*text = corrupt_cases[_i];

	ck_assert_int_eq(buf_write_file_atomic(path, text, strlen(text), 0600),
	    0);
	ck_assert_int_eq(state_open(&st, path, &err), -1);
	ck_assert_ptr_null(st);
	ck_assert_int_eq(err.code, PROV_E_STATE);
	want = xasprintf("state '%s' is corrupt: ", path);
	ck_assert_msg(strncmp(err.msg, want, strlen(want)) == 0, "got '%s'",
	    err.msg);
	ck_assert_msg(strstr(err.msg, "(move it away to start afresh)") !=
	    NULL, "got '%s'", err.msg);
	free(want);
	prov_err_release(&err);
	free(path);
	test_state_rmdir(dir);
}
END_TEST

START_TEST(test_state_unreadable)
{
	char		*dir = test_state_tmpdir();
	char		*want;
	struct state	*st = NULL;
	struct prov_err	 err = PROV_ERR_INIT;

	/* A directory where the file should be. */
	ck_assert_int_eq(state_open(&st, dir, &err), -1);
	ck_assert_ptr_null(st);
	want = xasprintf("cannot read state '%s': Is a directory", dir);
	ck_assert_str_eq(err.msg, want);
	ck_assert_int_eq(err.code, PROV_E_SYS);
	free(want);
	prov_err_release(&err);
	test_state_rmdir(dir);
}
END_TEST

START_TEST(test_state_save_fails)
{
	char		*dir = test_state_tmpdir();
	char		*path = xasprintf("%s/missing/state.json", dir);
	char		*want, *ls;
	struct state	*st = NULL;
	struct prov_err	 err = PROV_ERR_INIT;

	ck_assert_ok(state_open(&st, path, &err), &err);
	state_set(st, "gpu01", "base", STATE_OK, NULL, 1);
	ck_assert_int_eq(state_save(st, &err), -1);
	want = xasprintf("cannot write state '%s': No such file or directory",
	    path);
	ck_assert_str_eq(err.msg, want);
	free(want);
	ls = test_state_ls(dir);
	ck_assert_str_eq(ls, "");
	free(ls);
	prov_err_release(&err);
	state_free(st);
	free(path);
	test_state_rmdir(dir);
}
END_TEST

/* Saving over an existing file replaces it whole. */
START_TEST(test_state_resave)
{
	char		*dir = test_state_tmpdir();
	char		*path = xasprintf("%s/state.json", dir);
	char		*ls;
	struct state	*st = NULL, *st2 = NULL;
	struct prov_err	 err = PROV_ERR_INIT;
	size_t		 i;

	ck_assert_ok(state_open(&st, path, &err), &err);
	for (i = 0; i < 50; i++) {
		state_set(st, "gpu01", "base", (enum state_res)(i % 8), "m",
		    (double)i);
		ck_assert_ok(state_save(st, &err), &err);
	}
	ls = test_state_ls(dir);
	ck_assert_str_eq(ls, "state.json");
	free(ls);
	ck_assert_ok(state_open(&st2, path, &err), &err);
	ck_assert_int_eq(state_get(st2, "gpu01", "base"),
	    (enum state_res)(49 % 8));
	ck_assert_double_eq(test_state_step(st2, "gpu01", "base")->elapsed, 49);
	state_free(st);
	state_free(st2);
	free(path);
	test_state_rmdir(dir);
}
END_TEST

/* The file's bytes (caller frees). */
static char *
test_state_file(const char *path)
{
	struct buf	b = BUF_INIT;

	ck_assert_int_eq(buf_read_file(&b, path), 0);
	return buf_detach(&b, NULL);
}

/* The file holds what state_to_json() makes of st afresh. */
static void
test_state_file_is(const char *path, const struct state *st)
{
	struct buf	 want = BUF_INIT;
	char		*got = test_state_file(path);
	size_t		 i = 0;

	state_to_json(&want, st);
	while (got[i] != '\0' && got[i] == want.buf[i])
		i++;
	/* The first difference, not two whole files in the message. */
	ck_assert_msg(got[i] == want.buf[i], "file differs at byte %zu of "
	    "%zu: '%.60s' where '%.60s'", i, want.len, got + i, want.buf + i);
	buf_release(&want);
	free(got);
}

static ino_t
test_state_ino(const char *path)
{
	struct stat	sb;

	ck_assert_int_eq(stat(path, &sb), 0);
	return sb.st_ino;
}

/*
 * Saves write only the nodes changed since the last one: every change
 * must still reach the file, whatever the node, and read back.
 */
START_TEST(test_state_save_changed_row)
{
	char			*dir = test_state_tmpdir();
	char			*path = xasprintf("%s/state.json", dir);
	struct state		*st = NULL, *st2 = NULL;
	struct prov_err		 err = PROV_ERR_INIT;
	struct buf		 a = BUF_INIT, b = BUF_INIT;
	const struct state_step	*s;
	char			 node[32];
	size_t			 i;

	ck_assert_ok(state_open(&st, path, &err), &err);
	st->run_id = xstrdup("r1");
	for (i = 0; i < 100; i++) {
		snprintf(node, sizeof node, "gpu%03zu", i);
		state_set(st, node, "lock", STATE_OK, NULL, 0.1);
		state_set(st, node, "base", STATE_OK, NULL, 1);
		state_set(st, node, "slurm", STATE_CHANGED, NULL, 2);
	}
	ck_assert_ok(state_save(st, &err), &err);
	test_state_file_is(path, st);

	/* One row of one node in the middle, then of the first and last. */
	state_set(st, "gpu050", "slurm", STATE_FAILED, "exit 1: \"slurmd\"",
	    3.5);
	ck_assert_ok(state_save(st, &err), &err);
	test_state_file_is(path, st);
	state_set(st, "gpu000", "base", STATE_SKIPPED, "no change", 0);
	state_set(st, "gpu099", "lock", STATE_UNREACHABLE, "timeout", 4);
	ck_assert_ok(state_save(st, &err), &err);
	test_state_file_is(path, st);
	/* A new row on a node, a new node. */
	state_set(st, "gpu007", "reboot", STATE_PENDING, "driver", 0);
	state_set(st, "gpu100", "lock", STATE_OK, NULL, 0.2);
	ck_assert_ok(state_save(st, &err), &err);
	test_state_file_is(path, st);
	/* Only the run or only the status. */
	free(st->status);
	st->status = xstrdup("failed");
	ck_assert_ok(state_save(st, &err), &err);
	test_state_file_is(path, st);
	free(st->run_id);
	st->run_id = xstrdup("r2");
	ck_assert_ok(state_save(st, &err), &err);
	test_state_file_is(path, st);

	ck_assert_ok(state_open(&st2, path, &err), &err);
	ck_assert_str_eq(st2->run_id, "r2");
	ck_assert_str_eq(st2->status, "failed");
	ck_assert_uint_eq(st2->n, 101);
	s = test_state_step(st2, "gpu050", "slurm");
	ck_assert_ptr_nonnull(s);
	ck_assert_int_eq(s->res, STATE_FAILED);
	ck_assert_str_eq(s->msg, "exit 1: \"slurmd\"");
	ck_assert_double_eq_tol(s->elapsed, 3.5, 0.0005);
	ck_assert_int_eq(state_get(st2, "gpu000", "base"), STATE_SKIPPED);
	ck_assert_int_eq(state_get(st2, "gpu099", "lock"), STATE_UNREACHABLE);
	ck_assert_int_eq(state_has(st2, "gpu007", "reboot"), 1);
	ck_assert_int_eq(state_get(st2, "gpu100", "lock"), STATE_OK);
	ck_assert_int_eq(state_get(st2, "gpu051", "slurm"), STATE_CHANGED);
	state_to_json(&a, st);
	state_to_json(&b, st2);
	ck_assert_str_eq(b.buf, a.buf);
	buf_release(&a);
	buf_release(&b);
	state_free(st);
	state_free(st2);
	free(path);
	test_state_rmdir(dir);
}
END_TEST

/*
 * A save with nothing new leaves the file alone; any change rewrites it.
 * A rewrite renames a new file over the old one while the old one is
 * still open, so its inode differs from the one before.
 */
START_TEST(test_state_save_unchanged)
{
	char		*dir = test_state_tmpdir();
	char		*path = xasprintf("%s/state.json", dir);
	struct state	*st = NULL;
	struct prov_err	 err = PROV_ERR_INIT;
	ino_t		 ino;

	ck_assert_ok(state_open(&st, path, &err), &err);
	/* Even a state without a node is written once. */
	ck_assert_ok(state_save(st, &err), &err);
	test_state_file_is(path, st);
	ino = test_state_ino(path);
	ck_assert_ok(state_save(st, &err), &err);
	ck_assert_uint_eq(test_state_ino(path), ino);

	state_set(st, "gpu01", "base", STATE_OK, NULL, 1);
	ck_assert_ok(state_save(st, &err), &err);
	ck_assert_uint_ne(test_state_ino(path), ino);
	ino = test_state_ino(path);
	ck_assert_ok(state_save(st, &err), &err);
	ck_assert_ok(state_save(st, &err), &err);
	ck_assert_uint_eq(test_state_ino(path), ino);

	/* The same status in a new string is no change... */
	st->status = xstrdup("running");
	ck_assert_ok(state_save(st, &err), &err);
	ck_assert_uint_eq(test_state_ino(path), ino);
	/* ...another one is. */
	free(st->status);
	st->status = xstrdup("done");
	ck_assert_ok(state_save(st, &err), &err);
	ck_assert_uint_ne(test_state_ino(path), ino);
	test_state_file_is(path, st);
	ino = test_state_ino(path);
	st->run_id = xstrdup("r9");
	ck_assert_ok(state_save(st, &err), &err);
	ck_assert_uint_ne(test_state_ino(path), ino);
	test_state_file_is(path, st);
	state_free(st);
	free(path);
	test_state_rmdir(dir);
}
END_TEST

/* After a failed save the next one writes everything, changed or not. */
START_TEST(test_state_save_after_failure)
{
	char		*dir = test_state_tmpdir();
	char		*sub = xasprintf("%s/sub", dir);
	char		*path = xasprintf("%s/state.json", sub);
	char		*cmd = xasprintf("rm -rf '%s'", sub);
	struct state	*st = NULL, *st2 = NULL;
	struct prov_err	 err = PROV_ERR_INIT;

	ck_assert_int_eq(mkdir(sub, 0700), 0);
	ck_assert_ok(state_open(&st, path, &err), &err);
	state_set(st, "gpu01", "base", STATE_OK, NULL, 1);
	state_set(st, "gpu02", "base", STATE_OK, NULL, 1);
	ck_assert_ok(state_save(st, &err), &err);

	/* The folder goes: this save fails, the changed row is not on disk. */
	ck_assert_int_eq(system(cmd), 0);
	state_set(st, "gpu02", "base", STATE_FAILED, "exit 2", 1);
	free(st->status);
	st->status = xstrdup("failed");
	ck_assert_int_eq(state_save(st, &err), -1);
	prov_err_release(&err);

	/* Room again: nothing changed since, and the save still writes. */
	ck_assert_int_eq(mkdir(sub, 0700), 0);
	ck_assert_ok(state_save(st, &err), &err);
	test_state_file_is(path, st);
	ck_assert_ok(state_open(&st2, path, &err), &err);
	ck_assert_int_eq(state_get(st2, "gpu01", "base"), STATE_OK);
	ck_assert_int_eq(state_get(st2, "gpu02", "base"), STATE_FAILED);
	ck_assert_str_eq(st2->status, "failed");
	state_free(st);
	state_free(st2);
	free(cmd);
	free(path);
	free(sub);
	test_state_rmdir(dir);
}
END_TEST

/*
 * A long run of changes and saves in a seeded random order, as apply
 * makes them: after every save the file is exactly the whole state.
 */
START_TEST(test_state_save_random)
{
	static const char *const steps[] = { "lock", "facts", "base",
		"gpu-driver", "slurm", "reboot" };
	char		*dir = test_state_tmpdir();
	char		*path = xasprintf("%s/state.json", dir);
	struct state	*st = NULL, *st2 = NULL;
	struct prov_err	 err = PROV_ERR_INIT;
	struct buf	 a = BUF_INIT, b = BUF_INIT;
	unsigned long	 seed = 0x5eed0000UL + (unsigned long)_i;
	char		 node[32];
	int		 k, saves = 0;

	ck_assert_ok(state_open(&st, path, &err), &err);
	for (k = 0; k < 600; k++) {
		unsigned long	r;

		seed = seed * 6364136223846793005UL + 1442695040888963407UL;
		r = seed >> 33;
		snprintf(node, sizeof node, "n%02lu", r % 40);
		state_set(st, node, steps[(r / 40) % ARRAY_SIZE(steps)],
		    (enum state_res)((r / 240) % 8), (r / 1920) % 3 == 0 ?
		    NULL : tricky_msgs[(r / 5760) % ARRAY_SIZE(tricky_msgs)],
		    (double)(r % 1000) / 8);
		if ((r >> 20) % 17 == 0) {
			free(st->status);
			st->status = xstrdup((r >> 24) % 2 ? "running" :
			    "failed");
		}
		if ((r >> 12) % 5 != 0)
			continue;
		ck_assert_ok(state_save(st, &err), &err);
		test_state_file_is(path, st);
		saves++;
	}
	ck_assert_int_gt(saves, 50);
	ck_assert_ok(state_save(st, &err), &err);
	ck_assert_ok(state_open(&st2, path, &err), &err);
	state_to_json(&a, st);
	state_to_json(&b, st2);
	ck_assert_str_eq(b.buf, a.buf);
	buf_release(&a);
	buf_release(&b);
	state_free(st);
	state_free(st2);
	free(path);
	test_state_rmdir(dir);
}
END_TEST

static Suite *
state_suite(void)
{
	Suite	*s = suite_create("state");
	TCase	*tc;

	tc = tcase_create("memory");
	tcase_add_test(tc, test_state_res_names);
	tcase_add_test(tc, test_state_set_get);
	tcase_add_test(tc, test_state_json_shape);
	suite_add_tcase(s, tc);

	tc = tcase_create("file");
	tcase_add_test(tc, test_state_open_missing);
	tcase_add_test(tc, test_state_round_trip);
	tcase_add_loop_test(tc, test_state_read_table, 0,
	    (int)ARRAY_SIZE(read_cases));
	tcase_add_loop_test(tc, test_state_corrupt, 0,
	    (int)ARRAY_SIZE(corrupt_cases));
	tcase_add_test(tc, test_state_unreadable);
	tcase_add_test(tc, test_state_save_fails);
	tcase_add_test(tc, test_state_resave);
	suite_add_tcase(s, tc);

	tc = tcase_create("incremental");
	tcase_add_test(tc, test_state_save_changed_row);
	tcase_add_test(tc, test_state_save_unchanged);
	tcase_add_test(tc, test_state_save_after_failure);
	tcase_add_loop_test(tc, test_state_save_random, 0, 4);
	suite_add_tcase(s, tc);
	return s;
}

TEST_MAIN(state_suite)

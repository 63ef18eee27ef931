/*
 * verify-people.c: the checks of a cluster people share: the plan's
 * users with their uid and gid on every node, Slurm's accounting answering
 * with the plan's teams, shares and limits (on the head), and every other
 * node's log file on the log server, and the plan's storage mounted and
 * writable where the plan mounts it.
 */
#include "compat.h"

#include "plan.h"
#include "str.h"
#include "strvec.h"
#include "verify-int.h"

/* "name:uid:gid" lines against the plan's users. */
static void
verify_eval_users(struct verify_ctx *c, size_t k)
{
	const struct verify_node *vn = &c->nodes[k];
	const struct verify_sec *s = verify_node_sec(vn, "users");
	struct strvec lines = STRVEC_INIT;
	struct buf bad = BUF_INIT;
	size_t i, j;
	char *exp;

	if (c->p->nusers == 0)
		return;
	exp = xasprintf("%zu users, the plan's uid and gid", c->p->nusers);
	if (s == NULL) {
		verify_row(c, ROW_SKIP, vn->pn->name, "users", exp, NULL,
		    "not gathered");
		free(exp);
		return;
	}
	strvec_split_lines(&lines, s->body);
	for (i = 0; i < c->p->nusers; i++) {
		const struct plan_user *u = &c->p->users[i];
		char *want = xasprintf("%s:%ld:%ld", u->name, u->uid, u->gid);
		const char *got = NULL;
		size_t n = strlen(u->name);

		for (j = 0; j < lines.n; j++)
			if (strncmp(lines.v[j], u->name, n) == 0 &&
			    lines.v[j][n] == ':')
				got = lines.v[j];
		if (got == NULL)
			buf_addf(&bad, "%s%s missing", bad.len ? ", " : "",
			    u->name);
		else if (strcmp(got, want) != 0)
			buf_addf(&bad, "%s%s is uid:gid %s (plan %ld:%ld)",
			    bad.len ? ", " : "", u->name, got + n + 1, u->uid,
			    u->gid);
		free(want);
	}
	if (bad.len == 0)
		verify_row(c, ROW_OK, vn->pn->name, "users", exp, exp, NULL);
	else
		verify_row(c, ROW_FAIL, vn->pn->name, "users", exp, bad.buf,
		    "apply makes them the plan's (step users)");
	strvec_clear(&lines);
	buf_release(&bad);
	free(exp);
}

#define VERIFY_DIR_HINT \
	"does %s reach the directory, with the plan's base and bind? " \
	"(sssctl domain-status ldap; /var/log/sssd)"

/*
 * The directory on this node: sssd runs, and knows the plan's
 * verify_user (asked of sssd alone, so /etc/passwd cannot answer).
 */
static void
verify_eval_directory(struct verify_ctx *c, size_t k)
{
	const struct verify_node *vn = &c->nodes[k];
	const struct verify_sec *s = verify_node_sec(vn, "directory");
	const char *user = c->p->directory.ldap.verify_user;
	const char *node = vn->pn->name, *sssd = NULL, *got = NULL;
	struct strvec lines = STRVEC_INIT;
	char *exp, *m;
	size_t i;

	if (c->p->directory.src == NULL)
		return;
	if (user != NULL)
		exp = xasprintf("sssd answers for %s", user);
	else
		exp = xstrdup("sssd runs");
	if (s == NULL) {
		verify_row(c, ROW_SKIP, node, "directory", exp, NULL,
		    "not gathered");
		free(exp);
		return;
	}
	strvec_split_lines(&lines, s->body);
	for (i = 0; i < lines.n; i++)
		if (str_starts(lines.v[i], "sssd "))
			sssd = lines.v[i] + 5;
		else if (str_starts(lines.v[i], "user "))
			got = lines.v[i] + 5;
	if (sssd == NULL || !str_starts(sssd, "running"))
		verify_row(c, ROW_FAIL, node, "directory", exp,
		    "sssd is not running", "apply starts it (step directory)");
	else if (user == NULL)
		verify_row(c, ROW_SKIP, node, "directory", exp, "sssd runs",
		    "name a user of the directory in "
		    "'directory.ldap.verify_user' to ask sssd for");
	else if (got == NULL || !str_starts(got, user) ||
	    got[strlen(user)] != ':')
		verify_row(c, ROW_FAIL, node, "directory", exp,
		    "unknown to sssd", VERIFY_DIR_HINT, node);
	else {
		const char *ids = got + strlen(user) + 1;
		const char *colon = strchr(ids, ':');

		if (colon != NULL)
			m = xasprintf("%s uid %.*s gid %s", user,
			    (int)(colon - ids), ids, colon + 1);
		else
			m = xasprintf("%s %s", user, ids);
		verify_row(c, ROW_OK, node, "directory", exp, m, NULL);
		free(m);
	}
	strvec_clear(&lines);
	free(exp);
}

/* One team's association line as sacctmgr prints it: "T||FS|TRES". */
static char *
verify_team_want(const struct plan_team *t)
{
	if (t->gpus < 0)
		return xasprintf("%s||%ld|", t->name, t->fairshare);
	return xasprintf("%s||%ld|gres/gpu=%ld", t->name, t->fairshare,
	    t->gpus);
}

/* 1 when the association line is one of the team's members'. */
static int
verify_team_member(const struct plan_team *t, const char *line)
{
	size_t u, n = strlen(t->name);

	if (strncmp(line, t->name, n) != 0 || line[n] != '|')
		return 0;
	for (u = 0; u < t->users.n; u++)
		if (str_starts(line + n + 1, t->users.v[u]) &&
		    line[n + 1 + strlen(t->users.v[u])] == '|')
			return 1;
	return 0;
}

/* Accounting answers on the head; each team as the plan has it. */
static void
verify_eval_accounting(struct verify_ctx *c, size_t k)
{
	const struct verify_node *vn = &c->nodes[k];
	const struct verify_sec *s = verify_node_sec(vn, "sacctmgr");
	struct strvec lines = STRVEC_INIT;
	size_t i, j, m;

	if (vn != c->head || !plan_accounting(c->p))
		return;
	if (s == NULL || s->rc != 0) {
		char *why = s != NULL ? verify_oneline(s->body, 200) : NULL;

		verify_row(c, ROW_FAIL, vn->pn->name, "accounting", "answers",
		    s != NULL ? "no answer" : NULL, "%s",
		    why != NULL ? why : "not gathered");
		free(why);
		return;
	}
	verify_row(c, ROW_OK, vn->pn->name, "accounting", "answers", "answers",
	    NULL);
	strvec_split_lines(&lines, s->body);
	for (i = 0; i < c->p->sched.nteams; i++) {
		const struct plan_team *t = &c->p->sched.teams[i];
		char *want = verify_team_want(t);
		char *what = xasprintf("team %s", t->name);
		char *exp = xasprintf("share %ld, %s, %zu "
		                      "users",
		    t->fairshare, t->gpus < 0 ? "no GPU limit" : "GPU limit",
		    t->users.n);
		int found = 0;

		for (j = m = 0; j < lines.n; j++) {
			if (strcmp(lines.v[j], want) == 0)
				found = 1;
			m += verify_team_member(t, lines.v[j]);
		}
		if (found && m == t->users.n)
			verify_row(c, ROW_OK, vn->pn->name, what, exp, exp,
			    NULL);
		else
			verify_row(c, ROW_FAIL, vn->pn->name, what, exp,
			    found ? "other members" :
			            "other share or limit, "
			            "or no account",
			    "sacctmgr shows it otherwise: "
			    "apply makes it the plan's (step slurm-accounts)");
		free(want);
		free(what);
		free(exp);
	}
	strvec_clear(&lines);
}

/* On the log server: every other node's file, and its age. */
static void
verify_eval_logs(struct verify_ctx *c, size_t k)
{
	const struct verify_node *vn = &c->nodes[k];
	const struct verify_sec *s = verify_node_sec(vn, "logs");
	struct strvec lines = STRVEC_INIT, w = STRVEC_INIT;
	size_t i;

	if (c->p->logging.server == NULL ||
	    strcmp(c->p->logging.server, vn->pn->name) != 0 || s == NULL)
		return;
	strvec_split_lines(&lines, s->body);
	for (i = 0; i < lines.n; i++) {
		char *what, *found;
		long age;

		verify_words(&w, lines.v[i]);
		if (w.n != 2) {
			strvec_clear(&w);
			continue;
		}
		what = xasprintf("logs of %s", w.v[0]);
		if (strcmp(w.v[1], "-") == 0)
			verify_row(c, ROW_FAIL, vn->pn->name, what, "arrive",
			    "none",
			    "no /var/log/remote/%s/messages.log: is "
			    "rsyslog running there (step logging)?",
			    w.v[0]);
		else {
			age = verify_long(w.v[1]);
			found = xasprintf("last %ld min ago", age / 60);
			verify_row(c, age > 86400 ? ROW_WARN : ROW_OK,
			    vn->pn->name, what, "arrive", found,
			    age > 86400 ? "nothing for over a day" : NULL);
			free(found);
		}
		free(what);
		strvec_clear(&w);
	}
	strvec_clear(&lines);
}

/*
 * One export on this node, from its line "MOUNT FSTYPE WHO RESULT [DETAIL]"
 * of templates/remote/verify.sh's vmount.
 */
static void
verify_eval_mount(struct verify_ctx *c, const struct verify_node *vn,
    const struct plan_export *x, const char *line)
{
	struct strvec w = STRVEC_INIT;
	const char *node = vn->pn->name, *detail = "";
	char *what = xasprintf("storage %s", x->mount);
	char *exp = xasprintf("%s, %s",
	    x->server_node == vn->pn ? "bound" : "mounted over NFS",
	    x->readonly ? "readable" : "writable");
	char *got;

	if (line != NULL)
		verify_words(&w, line);
	if (w.n > 4)
		detail = line + (strstr(line, w.v[4]) - line);
	if (w.n < 4)
		verify_row(c, ROW_FAIL, node, what, exp, NULL,
		    "not looked at: "
		    "is verify's script current?");
	else if (strcmp(w.v[3], "unreachable") == 0)
		verify_row(c, ROW_FAIL, node, what, exp, "no answer in 20 s",
		    "is %s up and serving %s (step storage)?", x->server,
		    x->path);
	else if (x->server_node != vn->pn && !str_starts(w.v[1], "nfs"))
		verify_row(c, ROW_FAIL, node, what, exp, w.v[1],
		    "%s is the "
		    "node's own folder, not the export (step storage)",
		    x->mount);
	else if (strcmp(w.v[3], "wrote") == 0 || strcmp(w.v[3], "read") == 0) {
		got = xasprintf("%s by %s%s%s",
		    x->readonly ? "read" : "written", w.v[2],
		    *detail ? " in " : "", detail);
		verify_row(c, ROW_OK, node, what, exp, got, NULL);
		free(got);
	} else
		verify_row(c, ROW_FAIL, node, what, exp, "not writable",
		    "%s cannot write there: %s", w.v[2], detail);
	strvec_clear(&w);
	free(what);
	free(exp);
}

/* Each export this node mounts: mounted, and written as a plan user. */
static void
verify_eval_storage(struct verify_ctx *c, size_t k)
{
	const struct verify_node *vn = &c->nodes[k];
	const struct verify_sec *s = verify_node_sec(vn, "storage");
	struct strvec lines = STRVEC_INIT;
	size_t i, j, n;

	if (s != NULL)
		strvec_split_lines(&lines, s->body);
	for (i = 0; i < c->p->nexports; i++) {
		const struct plan_export *x = &c->p->exports[i];
		const char *line = NULL;
		char *what;

		if (!plan_export_client(c->p, x, vn->pn))
			continue;
		if (s == NULL) {
			what = xasprintf("storage %s", x->mount);
			verify_row(c, ROW_SKIP, vn->pn->name, what, "mounted",
			    NULL, "not gathered");
			free(what);
			continue;
		}
		n = strlen(x->mount);
		for (j = 0; j < lines.n; j++)
			if (strncmp(lines.v[j], x->mount, n) == 0 &&
			    lines.v[j][n] == ' ')
				line = lines.v[j];
		verify_eval_mount(c, vn, x, line);
	}
	strvec_clear(&lines);
}

void
verify_eval_people(struct verify_ctx *c, size_t k)
{
	verify_eval_storage(c, k);
	verify_eval_users(c, k);
	verify_eval_directory(c, k);
	verify_eval_accounting(c, k);
	verify_eval_logs(c, k);
}

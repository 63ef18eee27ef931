/*
 * usage.c: GPU-hours by team and user from Slurm's accounting, and the
 * jobs waiting now.  See usage.h.
 */
#include "compat.h"

#include <ctype.h>
#include <math.h>

#include "buf.h"
#include "frame.h"
#include "plan.h"
#include "remote.h"
#include "render.h"
#include "row.h"
#include "ssh.h"
#include "str.h"
#include "usage.h"
#include "yml.h"

/* A team's or a user's sum. */
struct usage_acc {
	char *name;
	char *team; /* a user's team (its job's account) */
	double gpu_s; /* GPU-seconds */
	long jobs; /* allocations that held GPUs */
};

struct usage_sums {
	struct usage_acc *v;
	size_t n, alloc;
};

struct usage_parse_ctx {
	struct usage_sums teams, users;
	struct rows waiting;
	const char *failed; /* the section sacct failed in */
	char *why; /* its text */
};

int
usage_since(char **out, const char *since, struct prov_err *err)
{
	static const struct {
		char unit;
		const char *word;
	} units[] = {
		{ 'h', "hours" },
		{ 'd', "days" },
		{ 'w', "weeks" },
	};
	char *end;
	long n;
	size_t i, len;

	*out = NULL;
	if (since == NULL)
		since = "30d";
	len = strlen(since);
	if (len >= 2 && isdigit((unsigned char)since[0])) {
		errno = 0;
		n = strtol(since, &end, 10);
		for (i = 0; i < ARRAY_SIZE(units); i++)
			if (errno == 0 && n > 0 && n <= 100000 &&
			    end == since + len - 1 && *end == units[i].unit) {
				*out = xasprintf("now-%ld%s", n, units[i].word);
				return 0;
			}
	}
	/* YYYY-MM-DD, then THH:MM or THH:MM:SS */
	if ((len == 10 || len == 16 || len == 19) &&
	    strspn(since, "0123456789-T:") == len && since[4] == '-' &&
	    since[7] == '-' &&
	    (len == 10 ||
	        (since[10] == 'T' && since[13] == ':' &&
	            (len == 16 || since[16] == ':')))) {
		*out = xstrdup(since);
		return 0;
	}
	return prov_err_set(err, PROV_E_USAGE,
	    "bad --since '%s' (write 30d, "
	    "12h, 2w or a date like 2026-11-01)",
	    since);
}

void
usage_script(struct buf *out, const char *sacct_since)
{
	buf_adds(out, "V_SINCE=");
	buf_add_shquote(out, sacct_since);
	buf_adds(out, "\n");
	buf_adds(out, remote_usage_sh);
}

static struct usage_acc *
usage_acc(struct usage_sums *s, const char *name, const char *team)
{
	size_t i;

	for (i = 0; i < s->n; i++)
		if (strcmp(s->v[i].name, name) == 0 &&
		    (team == NULL || strcmp(s->v[i].team, team) == 0))
			return &s->v[i];
	ALLOC_GROW(s->v, s->n + 1, s->alloc);
	memset(&s->v[s->n], 0, sizeof s->v[s->n]);
	s->v[s->n].name = xstrdup(name);
	s->v[s->n].team = team != NULL ? xstrdup(team) : NULL;
	return &s->v[s->n++];
}

static void
usage_sums_release(struct usage_sums *s)
{
	size_t i;

	for (i = 0; i < s->n; i++) {
		free(s->v[i].name);
		free(s->v[i].team);
	}
	free(s->v);
	memset(s, 0, sizeof *s);
}

/* GPUs of an AllocTRES list: "billing=1,cpu=1,gres/gpu=2,mem=50M,node=1". */
static long
usage_tres_gpus(const char *tres)
{
	const char *p = tres;
	long n = 0;

	while (p != NULL && *p != '\0') {
		/* gres/gpu:TYPE=N repeats gres/gpu=N: the untyped one counts */
		if (str_starts(p, "gres/gpu="))
			n += strtol(p + strlen("gres/gpu="), NULL, 10);
		if ((p = strchr(p, ',')) != NULL)
			p++;
	}
	return n;
}

/* Split a '|' line into at most max fields (in place); how many. */
static size_t
usage_fields(char *line, char **f, size_t max)
{
	size_t n = 0;

	while (n < max) {
		f[n++] = line;
		if ((line = strchr(line, '|')) == NULL)
			break;
		*line++ = '\0';
	}
	return n;
}

/* JobID|Account|User|ElapsedRaw|AllocTRES|State a line. */
static void
usage_parse_jobs(struct usage_parse_ctx *c, const char *text)
{
	char *copy = xstrdup(text), *line, *save = NULL, *f[6];
	long gpus, secs;

	for (line = strtok_r(copy, "\n", &save); line != NULL;
	     line = strtok_r(NULL, "\n", &save)) {
		if (usage_fields(line, f, 6) != 6)
			continue;
		gpus = usage_tres_gpus(f[4]);
		secs = strtol(f[3], NULL, 10);
		if (gpus <= 0 || f[1][0] == '\0' || f[2][0] == '\0')
			continue;
		usage_acc(&c->teams, f[1], NULL)->gpu_s += (double)(gpus *
		    secs);
		usage_acc(&c->teams, f[1], NULL)->jobs++;
		usage_acc(&c->users, f[2], f[1])->gpu_s += (double)(gpus *
		    secs);
		usage_acc(&c->users, f[2], f[1])->jobs++;
	}
	free(copy);
}

/* What a pending reason of limits and shares means here. */
static const char *
usage_reason_hint(const char *reason)
{
	if (str_starts(reason, "AssocGrpGRES") ||
	    str_starts(reason, "AssocGrpGres"))
		return "the team's GPUs are in use up to its limit "
		       "(scheduling.teams: gpus)";
	if (str_starts(reason, "QOSGrp"))
		return "a QOS limit is reached";
	if (str_starts(reason, "Priority"))
		return "jobs of higher priority (fair share, age) go first";
	if (str_starts(reason, "Resources"))
		return "waiting for free nodes or GPUs";
	return NULL;
}

/* JobID|Account|User|Reason a line. */
static void
usage_parse_waiting(struct usage_parse_ctx *c, const char *text)
{
	char *copy = xstrdup(text), *line, *save = NULL, *f[4];
	char *subject, *who;

	for (line = strtok_r(copy, "\n", &save); line != NULL;
	     line = strtok_r(NULL, "\n", &save)) {
		if (usage_fields(line, f, 4) != 4)
			continue;
		subject = xasprintf("job %s", f[0]);
		who = xasprintf("%s in %s", f[2], f[1]);
		rows_addf(&c->waiting, ROW_WARN, subject, "waiting", who, f[3],
		    usage_reason_hint(f[3]) != NULL ? "%s" : NULL,
		    usage_reason_hint(f[3]))
		    ->group = "waiting";
		free(subject);
		free(who);
	}
	free(copy);
}

static void
usage_section(void *arg, const char *name, const char *text, long rc)
{
	struct usage_parse_ctx *c = arg;

	if (rc != 0 && c->failed == NULL) {
		c->failed = strcmp(name, "u-jobs") == 0 ? "sacct" : "squeue";
		c->why = xstrdup(text);
		return;
	}
	if (strcmp(name, "u-jobs") == 0)
		usage_parse_jobs(c, text);
	else if (strcmp(name, "u-waiting") == 0)
		usage_parse_waiting(c, text);
}

static void
usage_row(struct rows *out, const char *group, const struct usage_acc *a,
    const char *limit)
{
	struct row *r;
	char *m = xasprintf("%.2f (%ld job%s)", a->gpu_s / 3600.0, a->jobs,
	    a->jobs == 1 ? "" : "s");

	r = rows_addf(out, ROW_OK, a->name, "GPU-hours", limit, m, NULL);
	r->group = group;
	r->value = a->gpu_s / 3600.0;
	free(m);
}

int
usage_parse(struct rows *out, const struct plan *p, const char *text,
    struct prov_err *err)
{
	struct usage_parse_ctx c;
	size_t i, k;
	char *limit;
	int r = -1;

	memset(&c, 0, sizeof c);
	/* plan order first, with nothing used yet */
	for (i = 0; i < p->sched.nteams; i++) {
		(void)usage_acc(&c.teams, p->sched.teams[i].name, NULL);
		for (k = 0; k < p->sched.teams[i].users.n; k++)
			(void)usage_acc(&c.users, p->sched.teams[i].users.v[k],
			    p->sched.teams[i].name);
	}
	if (frame_each(text, usage_section, &c) == 0) {
		prov_err_set(err, PROV_E_SSH,
		    "the head printed no usage "
		    "sections");
		goto out;
	}
	if (c.failed != NULL) {
		prov_err_setloc(err, PROV_E_SSH, NULL,
		    "Slurm accounting runs "
		    "where the plan has scheduling: (slurmdbd on the head)",
		    "%s failed on the head: %s", c.failed, str_trim(c.why));
		goto out;
	}
	for (i = 0; i < c.teams.n; i++) {
		const struct plan_team *t = NULL;

		for (k = 0; k < p->sched.nteams; k++)
			if (strcmp(p->sched.teams[k].name, c.teams.v[i].name) ==
			    0)
				t = &p->sched.teams[k];
		limit = t == NULL ? xstrdup("not in the plan") :
		    t->gpus < 0   ? xstrdup("no GPU limit") :
		                    xasprintf("%ld GPUs at once", t->gpus);
		usage_row(out, "teams", &c.teams.v[i], limit);
		free(limit);
	}
	for (i = 0; i < c.users.n; i++) {
		limit = xasprintf("team %s", c.users.v[i].team);
		usage_row(out, "users", &c.users.v[i], limit);
		free(limit);
	}
	rows_append(out, &c.waiting);
	r = 0;
out:
	usage_sums_release(&c.teams);
	usage_sums_release(&c.users);
	rows_release(&c.waiting);
	free(c.why);
	return r;
}

int
usage_run(struct rows *out, const struct plan *p, const struct usage_opts *o,
    struct prov_err *err)
{
	const struct plan_node *head = render_head(p);
	struct ssh_config cfg = SSH_CONFIG_INIT;
	struct ssh_job job = SSH_JOB_INIT;
	struct ssh_host host = { NULL, NULL, 0 };
	struct ssh_result res;
	struct buf script = BUF_INIT, cmd = BUF_INIT;
	char *since = NULL;
	int r = -1;

	ssh_result_init(&res);
	if (strcmp(p->sw.orchestrator, "slurm") != 0 || head == NULL) {
		prov_err_set(err, PROV_E_PLAN,
		    "usage reads Slurm's accounting, "
		    "and the plan runs no Slurm");
		goto out;
	}
	if (!plan_accounting(p)) {
		prov_err_setloc(err, PROV_E_PLAN, NULL,
		    "give the plan scheduling: teams, "
		    "see docs/plan.md, and apply",
		    "the plan has no scheduling: "
		    "section, so Slurm keeps no accounting");
		goto out;
	}
	if (usage_since(&since, o->since, err) != 0)
		goto out;
	ssh_config_from_plan(&cfg, &p->ssh);
	cfg.passphrase = o->passphrase;
	cfg.out_max = 64 * 1024 * 1024;
	cfg.command_timeout_s = o->timeout_s > 0 ? o->timeout_s : 60;
	usage_script(&script, since);
	buf_adds(&cmd, "sh -c ");
	buf_add_shquote(&cmd, script.buf);
	job.command = cmd.buf;
	job.label = "usage";
	host.name = head->name;
	host.addr = head->address;
	if (ssh_run_all(&cfg, &host, 1, &job, &res, NULL, NULL, err) != 0)
		goto out;
	if (res.status != SSH_OK && res.status != SSH_FAILED) {
		prov_err_set(err, PROV_E_SSH, "%s: %s", head->name,
		    res.error != NULL ? res.error :
		                        ssh_status_name(res.status));
		goto out;
	}
	if (res.out_total > res.out.len) {
		prov_err_set(err, PROV_E_SSH,
		    "%s: sacct printed over %zu MiB "
		    "(give a shorter --since)",
		    head->name, cfg.out_max >> 20);
		goto out;
	}
	r = usage_parse(out, p, res.out.buf != NULL ? res.out.buf : "", err);
	if (r == 0) {
		const struct plan_node *pm = p->sw.prometheus != NULL ?
		    plan_node(p, p->sw.prometheus) :
		    NULL;
		char *url = o->prometheus_url != NULL ?
		    xstrdup(o->prometheus_url) :
		    pm != NULL ?
		    xasprintf("http://%s:9090",
		        pm->address != NULL ? pm->address : pm->name) :
		    NULL;

		usage_dcgm_run(out, p, url, o->since, res.out.buf,
		    cfg.command_timeout_s * 1000);
		free(url);
	}
out:
	ssh_result_release(&res);
	buf_release(&script);
	buf_release(&cmd);
	free(since);
	return r;
}

/* The groups usage rows come in (row.group points at constants). */
static const char *const usage_groups[] = { "teams", "users", "waiting",
	"gpu-util", "team-util", NULL };

int
usage_from_json(struct rows *out, const char *label, const char *text,
    size_t len, struct prov_err *err)
{
	struct yml_doc doc;
	const struct yml_node *list;
	struct rows tmp = ROWS_INIT;
	size_t i, k;
	int r = -1;

	yml_doc_init(&doc);
	if (yml_load_json(&doc, label, text, len, err) != 0)
		goto out;
	list = yml_map_get(doc.root, "usage");
	if (list == NULL || list->kind != YML_SEQ) {
		prov_err_parse(err, label,
		    "no 'usage' list: not the output "
		    "of provision usage --json");
		goto out;
	}
	if (rows_from_json(&tmp, label, list, err) != 0)
		goto out;
	for (i = 0; i < tmp.n && i < list->n; i++) {
		const char *g = yml_map_str(list->u.items[i], "group");

		for (k = 0; g != NULL && usage_groups[k] != NULL; k++)
			if (strcmp(g, usage_groups[k]) == 0)
				tmp.v[i].group = usage_groups[k];
	}
	rows_append(out, &tmp);
	r = 0;
out:
	rows_release(&tmp);
	yml_doc_release(&doc);
	return r;
}

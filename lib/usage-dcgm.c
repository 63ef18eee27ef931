/*
 * usage-dcgm.c: GPU utilisation per node and per team from the DCGM
 * exporter's metrics in Prometheus (DCGM_FI_DEV_GPU_UTIL, 0..100 per GPU,
 * each scrape a sample).  See usage.h.
 *
 * A node's figure is the average of its GPUs' samples over the window;
 * a team's, the average of the samples the exporter labelled with one of
 * its jobs (the exporter's HPC job mapping puts the Slurm job id in
 * label hpc_job), weighted by sample, so a long job counts for more than
 * a short one.  Jobs map to teams through sacct's answer (usage.c).
 *
 * The mapping is apply's: with Slurm, GPUs and the DCGM exporter in the
 * plan, slurm.conf names a Prolog and Epilog (lib/render.c) that keep
 * /run/dcgm-job-map/INDEX, each GPU's job ids from SLURM_JOB_GPUS
 * (templates/slurm.sh), and the exporter's container reads that folder
 * (DCGM_HPC_JOB_MAPPING_DIR, templates/dcgm-exporter.sh).
 */
#include "compat.h"

#include <ctype.h>
#include <math.h>
#include <time.h>

#include "buf.h"
#include "frame.h"
#include "http.h"
#include "plan.h"
#include "row.h"
#include "str.h"
#include "strvec.h"
#include "usage.h"
#include "yml.h"

#define USAGE_DCGM_METRIC "DCGM_FI_DEV_GPU_UTIL"

/* Per team: summed samples and their count. */
struct usage_dcgm_team {
	const char *name;
	double sum, count;
	long jobs;
};

int
usage_dcgm_range(char **out, const char *since, time_t now,
    struct prov_err *err)
{
	struct tm tm;
	const char *end;
	size_t len;

	*out = NULL;
	if (since == NULL)
		since = "30d";
	len = strlen(since);
	/* 30d, 12h, 2w are PromQL durations as they are */
	if (len >= 2 && strspn(since, "0123456789") == len - 1 &&
	    strchr("hdw", since[len - 1]) != NULL) {
		*out = xstrdup(since);
		return 0;
	}
	memset(&tm, 0, sizeof tm);
	end = strptime(since, len == 10 ? "%Y-%m-%d" : "%Y-%m-%dT%H:%M", &tm);
	if (end != NULL &&
	    (*end == '\0' ||
	        (end[0] == ':' && strspn(end + 1, "0123456789") == 2 &&
	            end[3] == '\0'))) {
		time_t t = timegm(&tm);

		if (end[0] == ':')
			t += strtol(end + 1, NULL, 10);
		if (t < now) {
			*out = xasprintf("%lds", (long)(now - t));
			return 0;
		}
	}
	return prov_err_set(err, PROV_E_USAGE,
	    "bad --since '%s' for "
	    "Prometheus (write 30d, 12h, 2w or a past date like 2026-11-01)",
	    since);
}

void
usage_dcgm_queries(struct strvec *out, const char *range)
{
	/* per node: our scrape config labels each target with its node */
	strvec_pushf(out,
	    "avg by (node) (avg_over_time(" USAGE_DCGM_METRIC "[%s]))", range);
	/* per job: the samples' sum and count, to weigh jobs by length */
	strvec_pushf(out,
	    "sum by (hpc_job) (sum_over_time(" USAGE_DCGM_METRIC
	    "{hpc_job!=\"\"}[%s]))",
	    range);
	strvec_pushf(out,
	    "sum by (hpc_job) (count_over_time(" USAGE_DCGM_METRIC
	    "{hpc_job!=\"\"}[%s]))",
	    range);
}

/*
 * The vector of a Prometheus query answer: each element's `label` and
 * value, into labels/values; -1 with err when it is not a success with a
 * vector.
 */
static int
usage_dcgm_vector(struct strvec *labels, struct strvec *values,
    const char *json, const char *label, struct prov_err *err)
{
	struct yml_doc doc;
	const struct yml_node *st, *data, *res;
	size_t i;
	int r = -1;

	yml_doc_init(&doc);
	if (yml_load_json(&doc, "Prometheus", json, strlen(json), err) != 0)
		goto out;
	st = yml_map_get(doc.root, "status");
	data = yml_map_get(doc.root, "data");
	res = yml_map_get(data, "result");
	if (st == NULL || st->kind != YML_SCALAR ||
	    strcmp(st->u.s, "success") != 0 || res == NULL ||
	    res->kind != YML_SEQ) {
		prov_err_set(err, PROV_E_SSH,
		    "Prometheus did not answer "
		    "the query with a vector");
		goto out;
	}
	for (i = 0; i < res->n; i++) {
		const struct yml_node *m = yml_map_get(res->u.items[i],
		    "metric");
		const struct yml_node *l = yml_map_get(m, label);
		const struct yml_node *v = yml_map_get(res->u.items[i],
		    "value");

		/* "value": [ 1733140000.123, "37.5" ] */
		if (l == NULL || l->kind != YML_SCALAR || v == NULL ||
		    v->kind != YML_SEQ || v->n != 2 ||
		    v->u.items[1]->kind != YML_SCALAR)
			continue;
		strvec_push(labels, l->u.s);
		strvec_push(values, v->u.items[1]->u.s);
	}
	r = 0;
out:
	yml_doc_release(&doc);
	return r;
}

/* JobID -> Account from the head's u-jobs section (sacct). */
struct usage_dcgm_jobs {
	struct strvec ids, teams;
};

static void
usage_dcgm_jobs_section(void *arg, const char *name, const char *text, long rc)
{
	struct usage_dcgm_jobs *j = arg;
	struct strvec lines = STRVEC_INIT;
	size_t i;

	if (rc != 0 || strcmp(name, "u-jobs") != 0)
		return;
	strvec_split_lines(&lines, text);
	for (i = 0; i < lines.n; i++) {
		const char *bar = strchr(lines.v[i], '|');
		const char *bar2 = bar != NULL ? strchr(bar + 1, '|') : NULL;

		if (bar == NULL || bar2 == NULL || bar2 == bar + 1)
			continue;
		strvec_pushf(&j->ids, "%.*s", (int)(bar - lines.v[i]),
		    lines.v[i]);
		strvec_pushf(&j->teams, "%.*s", (int)(bar2 - bar - 1), bar + 1);
	}
	strvec_clear(&lines);
}

static double
usage_dcgm_num(const char *s)
{
	char *end;
	double d = strtod(s, &end);

	return end != s && *end == '\0' && isfinite(d) ? d : NAN;
}

static void
usage_dcgm_none(struct rows *out, const char *why, const char *hint)
{
	struct row *r;

	r = rows_addf(out, ROW_SKIP, "DCGM", "GPU utilisation", NULL, why,
	    hint != NULL ? "%s" : NULL, hint);
	r->group = "gpu-util";
}

int
usage_dcgm_parse(struct rows *out, const struct plan *p,
    const char *const answers[3], const char *head_text, struct prov_err *err)
{
	struct strvec nodes = STRVEC_INIT, nvals = STRVEC_INIT;
	struct strvec jsum = STRVEC_INIT, sums = STRVEC_INIT;
	struct strvec jcnt = STRVEC_INIT, cnts = STRVEC_INIT;
	struct usage_dcgm_jobs jobs = { STRVEC_INIT, STRVEC_INIT };
	struct usage_dcgm_team *teams = NULL;
	size_t nteams = 0, i, k;
	long unmatched = 0;
	int r = -1;

	if (usage_dcgm_vector(&nodes, &nvals, answers[0], "node", err) != 0 ||
	    usage_dcgm_vector(&jsum, &sums, answers[1], "hpc_job", err) != 0 ||
	    usage_dcgm_vector(&jcnt, &cnts, answers[2], "hpc_job", err) != 0)
		goto out;
	r = 0;
	if (nodes.n == 0) {
		usage_dcgm_none(out, "no DCGM metrics",
		    "Prometheus holds no " USAGE_DCGM_METRIC
		    " for the window: is the DCGM exporter "
		    "scraped (software.monitoring.dcgm_exporter)?");
		goto out;
	}
	/* nodes in plan order, then any Prometheus knows that the plan does not */
	for (k = 0; k < p->nnodes + nodes.n; k++) {
		const char *name = k < p->nnodes ? p->nodes[k].name :
		                                   nodes.v[k - p->nnodes];
		double v;
		struct row *row;
		char *m;

		long at = strvec_find(&nodes, name);

		if (at < 0)
			continue;
		i = (size_t)at;
		if (k >= p->nnodes && plan_node(p, name) != NULL)
			continue;
		if (isnan(v = usage_dcgm_num(nvals.v[i])))
			continue;
		m = xasprintf("%.1f %%", v);
		row = rows_addf(out, ROW_OK, name, "GPU utilisation",
		    k < p->nnodes ? "average of its GPUs" : "not in the plan",
		    m, NULL);
		row->group = "gpu-util";
		row->value = v;
		free(m);
	}
	/* teams: their jobs' samples */
	(void)frame_each(head_text != NULL ? head_text : "",
	    usage_dcgm_jobs_section, &jobs);
	teams = xcalloc(p->sched.nteams + jsum.n + 1, sizeof *teams);
	for (i = 0; i < p->sched.nteams; i++)
		teams[nteams++].name = p->sched.teams[i].name;
	for (i = 0; i < jsum.n; i++) {
		long j = strvec_find(&jobs.ids, jsum.v[i]);
		long c = strvec_find(&jcnt, jsum.v[i]);
		double s = usage_dcgm_num(sums.v[i]);
		double n = c >= 0 ? usage_dcgm_num(cnts.v[c]) : NAN;

		if (j < 0 || isnan(s) || isnan(n) || n <= 0) {
			unmatched++;
			continue;
		}
		for (k = 0; k < nteams; k++)
			if (strcmp(teams[k].name, jobs.teams.v[j]) == 0)
				break;
		if (k == nteams)
			teams[nteams++].name = jobs.teams.v[j];
		teams[k].sum += s;
		teams[k].count += n;
		teams[k].jobs++;
	}
	if (jsum.n == 0) {
		struct row *row = rows_addf(out, ROW_SKIP, "teams",
		    "GPU utilisation", NULL,
		    "no job labels on the DCGM "
		    "metrics",
		    "the DCGM exporter labels a GPU's samples "
		    "with its Slurm job (hpc_job) from the files the Slurm "
		    "prolog keeps in /run/dcgm-job-map (apply sets both up "
		    "with software.monitoring.dcgm_exporter)");

		row->group = "team-util";
		goto out;
	}
	for (k = 0; k < nteams; k++) {
		struct row *row;
		char *m, *l;

		if (teams[k].jobs == 0)
			continue;
		m = xasprintf("%.1f %%", teams[k].sum / teams[k].count);
		l = xasprintf("%ld job%s", teams[k].jobs,
		    teams[k].jobs == 1 ? "" : "s");
		row = rows_addf(out, ROW_OK, teams[k].name, "GPU utilisation",
		    l, m, NULL);
		row->group = "team-util";
		row->value = teams[k].sum / teams[k].count;
		free(m);
		free(l);
	}
	if (unmatched > 0) {
		char *m = xasprintf("%ld job%s", unmatched,
		    unmatched == 1 ? "" : "s");
		struct row *row = rows_addf(out, ROW_SKIP, "other jobs",
		    "GPU utilisation", NULL, m, "%s",
		    "jobs DCGM saw that "
		    "sacct does not list for the window: not counted");

		row->group = "team-util";
		free(m);
	}
out:
	free(teams);
	strvec_clear(&nodes);
	strvec_clear(&nvals);
	strvec_clear(&jsum);
	strvec_clear(&sums);
	strvec_clear(&jcnt);
	strvec_clear(&cnts);
	strvec_clear(&jobs.ids);
	strvec_clear(&jobs.teams);
	return r;
}

/* A query string's value: RFC 3986's unreserved characters as they are. */
static void
usage_dcgm_urlencode(struct buf *b, const char *s)
{
	for (; *s != '\0'; s++)
		if (isalnum((unsigned char)*s) || strchr("-._~", *s) != NULL)
			buf_addch(b, *s);
		else
			buf_addf(b, "%%%02X", (unsigned char)*s);
}

/* One GET answered: its body, or why not. */
struct usage_dcgm_get {
	struct buf body;
	char *why;
};

static void
usage_dcgm_done(struct http_req *req, void *arg)
{
	struct usage_dcgm_get *g = arg;

	if (req->status == 200)
		buf_add(&g->body, req->resp.buf, req->resp.len);
	else if (req->status != 0)
		g->why = xasprintf("HTTP status %ld", req->status);
	else
		g->why = xstrdup(
		    req->err.msg != NULL ? req->err.msg : "no answer");
}

void
usage_dcgm_run(struct rows *out, const struct plan *p, const char *url,
    const char *since, const char *head_text, long timeout_ms)
{
	struct http_opts ho = HTTP_OPTS_INIT;
	struct http *h = NULL;
	struct usage_dcgm_get g[3];
	struct strvec q = STRVEC_INIT;
	struct prov_err err = PROV_ERR_INIT;
	struct buf u = BUF_INIT;
	const char *answers[3];
	char *range = NULL, *why = NULL;
	size_t i;

	memset(g, 0, sizeof g);
	if (url == NULL) {
		usage_dcgm_none(out, "no DCGM metrics",
		    "the plan runs no "
		    "Prometheus (software.monitoring.prometheus); --prometheus "
		    "URL names one");
		return;
	}
	if (usage_dcgm_range(&range, since, time(NULL), &err) != 0) {
		usage_dcgm_none(out, "no DCGM metrics", err.msg);
		goto out;
	}
	usage_dcgm_queries(&q, range);
	ho.timeout_ms = timeout_ms > 0 ? timeout_ms : 30000;
	ho.connect_timeout_ms = ho.timeout_ms;
	ho.retries = 1;
	h = http_new(&ho);
	for (i = 0; i < 3; i++) {
		struct http_req *req;

		buf_reset(&u);
		buf_addf(&u, "%s/api/v1/query?query=", url);
		usage_dcgm_urlencode(&u, q.v[i]);
		req = http_req_new("GET", u.buf);
		http_req_header(req, "Accept: application/json");
		req->done = usage_dcgm_done;
		req->arg = &g[i];
		http_add(h, req);
	}
	if (http_run(h, &err) != 0)
		why = xstrdup(err.msg != NULL ? err.msg : "HTTP loop failed");
	for (i = 0; i < 3 && why == NULL; i++)
		if (g[i].why != NULL)
			why = xstrdup(g[i].why);
	if (why != NULL) {
		char *m = xasprintf("no DCGM metrics: Prometheus at %s: %s",
		    url, why);

		usage_dcgm_none(out, m, NULL);
		free(m);
		goto out;
	}
	for (i = 0; i < 3; i++)
		answers[i] = g[i].body.buf != NULL ? g[i].body.buf : "";
	prov_err_release(&err);
	if (usage_dcgm_parse(out, p, answers, head_text, &err) != 0) {
		char *m = xasprintf("no DCGM metrics: %s", err.msg);

		usage_dcgm_none(out, m, NULL);
		free(m);
	}
out:
	for (i = 0; i < 3; i++) {
		buf_release(&g[i].body);
		free(g[i].why);
	}
	http_free(h);
	strvec_clear(&q);
	buf_release(&u);
	prov_err_release(&err);
	free(range);
	free(why);
}

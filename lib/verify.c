/*
 * verify.c: `provision verify`: gather what every node runs and has, in
 * one SSH round trip per node, and judge it against the plan.  See
 * verify.h.  The parts: verify-script.c (what runs on a node),
 * verify-parse.c (reading its answer), verify-eval.c and
 * verify-services.c (the judgement), this file (the run, the JSON).
 */
#include "compat.h"

#include "http.h"
#include "hw.h"
#include "json.h"
#include "plan.h"
#include "proc.h"
#include "render.h"
#include "ssh.h"
#include "verify-int.h"

/* ------------------------------------------------------------------ */
/* Gathering */

struct verify_run_ctx {
	struct ssh_job		*jobs;
	int			*given;
	struct ssh_result	*res;
};

static const struct ssh_job *
verify_run_next(void *arg, size_t host)
{
	struct verify_run_ctx	*r = arg;

	if (r->given[host])
		return NULL;
	r->given[host] = 1;
	return &r->jobs[host];
}

static void
verify_run_done(void *arg, size_t host, const struct ssh_job *job,
    struct ssh_result *res)
{
	struct verify_run_ctx	*r = arg;

	(void)job;
	ssh_result_move(&r->res[host], res);
}

struct verify_http_ctx {
	struct buf	 body;
	long		 status;
	char		*error;
};

static void
verify_http_done(struct http_req *req, void *arg)
{
	struct verify_http_ctx	*h = arg;

	h->status = req->status;
	if (req->status == 200) {
		buf_add(&h->body, req->resp.buf, req->resp.len);
		return;
	}
	if (req->status != 0)
		h->error = xasprintf("HTTP status %ld", req->status);
	else
		h->error = xstrdup(req->err.msg != NULL ? req->err.msg :
		    "no answer");
}

/* GET URL/api/v1/targets; 0 with the body, or -1 with *why. */
static int
verify_prom_get(const char *url, long timeout_ms, struct buf *body,
    char **why)
{
	struct http_opts	 ho = HTTP_OPTS_INIT;
	struct http		*h;
	struct http_req		*req;
	struct verify_http_ctx	 hc = { BUF_INIT, 0, NULL };
	struct prov_err		 err = PROV_ERR_INIT;
	char			*full;
	int			 r = -1;

	ho.timeout_ms = timeout_ms > 0 ? timeout_ms : 10000;
	ho.connect_timeout_ms = ho.timeout_ms;
	ho.retries = 1;
	h = http_new(&ho);
	full = xasprintf("%s/api/v1/targets", url);
	req = http_req_new("GET", full);
	http_req_header(req, "Accept: application/json");
	req->done = verify_http_done;
	req->arg = &hc;
	http_add(h, req);
	if (http_run(h, &err) != 0) {
		*why = xstrdup(err.msg != NULL ? err.msg : "HTTP loop failed");
	} else if (hc.error != NULL) {
		*why = hc.error;
		hc.error = NULL;
	} else {
		buf_add(body, hc.body.buf, hc.body.len);
		r = 0;
	}
	http_free(h);
	free(full);
	free(hc.error);
	buf_release(&hc.body);
	prov_err_release(&err);
	return r;
}

/*
 * Each node's answer into vn[i] (its facts into fs[], their count
 * returned), or the reason there is none in vn[i].error.
 */
static size_t
verify_run_read(struct verify_node *vn, struct ssh_result *res, size_t nh,
    size_t nsel, const struct ssh_config *cfg, struct verify_stats *stats,
    struct facts **fs)
{
	struct prov_err	e2 = PROV_ERR_INIT;
	size_t		i, nf = 0;

	for (i = 0; i < nh; i++) {
		struct ssh_result	*s = &res[i];
		int			 ran = s->status == SSH_OK ||
		    s->status == SSH_FAILED || (s->status == SSH_TIMEOUT &&
		    s->out.len > 0);

		if (ran && verify_node_parse(&vn[i], s->out.buf, &e2) == 0) {
			vn[i].reached = 1;
			fs[nf++] = vn[i].facts;
			if (s->status == SSH_TIMEOUT)
				vn[i].error = xasprintf("timed out after %ld "
				    "s: later checks are missing",
				    cfg->command_timeout_s);
			else if (s->out.truncated)
				vn[i].error = xasprintf("output cut at %zu "
				    "bytes", (size_t)cfg->out_max);
			if (i < nsel)
				stats->reached++;
		} else if (ran) {
			char	*t = verify_first_line(s->err.buf);

			vn[i].error = xasprintf("%s%s%s", e2.msg, *t ? ": " :
			    "", t);
			free(t);
			prov_err_release(&e2);
		} else
			vn[i].error = xasprintf("%s%s%s",
			    ssh_status_name(s->status), s->error ? ": " : "",
			    s->error ? s->error : "");
	}
	prov_err_release(&e2);
	return nf;
}

/*
 * Fetch the targets again, a second apart, while a target verify judges
 * is down on a scrape older than env->since (verify_prom_wait()), until
 * every such target has a newer one or the wait (counted from the first
 * answer) runs out: right after apply, the last scrape may predate the
 * exporter or have hit a node busy with apply's last steps, and a
 * verdict from it would be false.  *prom keeps the last good answer.
 */
static void
verify_prom_fresh(struct buf *prom, const char *url, long timeout_ms,
    double since)
{
	struct verify_targets	 tg;
	struct prov_err		 err = PROV_ERR_INIT;
	struct buf		 next = BUF_INIT;
	char			*why = NULL;
	double			 until = 0, w, left;

	memset(&tg, 0, sizeof tg);
	for (;;) {
		if (verify_parse_prom_targets(&tg, prom->buf, prom->len,
		    &err) != 0)
			break;
		w = verify_prom_wait(&tg, since);
		verify_targets_release(&tg);
		if (w <= 0)
			break;
		if (until == 0)
			until = verify_now() + w;
		proc_sleep(1);
		left = until - verify_now();
		if (left <= 0)
			break;
		if (timeout_ms <= 0 || timeout_ms > left * 1000)
			timeout_ms = left * 1000 < 1000 ? 1000 :
			    (long)(left * 1000);
		buf_reset(&next);
		if (verify_prom_get(url, timeout_ms, &next, &why) != 0)
			break;
		buf_reset(prom);
		buf_add(prom, next.buf, next.len);
	}
	verify_targets_release(&tg);
	prov_err_release(&err);
	buf_release(&next);
	free(why);
}

/* Prometheus's targets, from here, into env (when the plan runs it). */
static void
verify_run_prom(const struct plan *p, const struct verify_opts *o,
    struct verify_env *env, struct buf *prom, char **prom_url,
    char **prom_why)
{
	const struct plan_node	*pm;

	if (p->sw.prometheus == NULL || (!p->sw.node_exporter &&
	    !p->sw.dcgm_exporter))
		return;
	pm = plan_node(p, p->sw.prometheus);
	if (o->prometheus_url != NULL)
		*prom_url = xstrdup(o->prometheus_url);
	else if (pm != NULL)
		*prom_url = xasprintf("http://%s:9090", pm->address ?
		    pm->address : pm->name);
	if (*prom_url == NULL)
		return;
	env->prom_url = *prom_url;
	if (verify_prom_get(*prom_url, o->http_timeout_ms, prom,
	    prom_why) == 0) {
		verify_prom_fresh(prom, *prom_url, o->http_timeout_ms,
		    env->since);
		env->prom_json = prom->buf;
		env->prom_len = prom->len;
	} else
		env->prom_error = *prom_why;
}

/*
 * Node pn's job: the script goes in on stdin, into a file, and runs with
 * stdin from /dev/null: no size limit of a command line, and no command
 * of it (srun) can read the rest of it.  stdin_data is the caller's.
 */
static void
verify_run_job(struct ssh_job *job, const struct plan *p,
    const struct plan_node *pn, struct plan_node *const *sel, size_t nsel,
    const struct verify_opts *o)
{
	struct buf	script = BUF_INIT;

	verify_script(&script, p, pn, sel, nsel, o);
	*job = (struct ssh_job)SSH_JOB_INIT;
	job->command = "f=$(mktemp /tmp/.provision-verify.XXXXXX) && "
	    "cat > \"$f\" && sh \"$f\" </dev/null; r=$?; rm -f \"$f\"; "
	    "exit $r";
	job->stdin_len = script.len;
	job->stdin_data = buf_detach(&script, NULL);
	job->label = "verify";
}

int
verify_run(struct rows *out, struct verify_stats *stats,
    struct verify_measured *meas, const struct plan *p,
    const struct verify_opts *o, struct strvec *notes, struct prov_err *err)
{
	struct plan_node	**sel = NULL;
	const struct plan_node	 *head = render_head(p);
	struct ssh_config	  cfg = SSH_CONFIG_INIT;
	struct ssh_pool		 *pool = NULL;
	struct ssh_host		 *hosts = NULL;
	struct ssh_handler	  hd;
	struct verify_run_ctx	  rc;
	struct verify_node	 *vn = NULL;
	struct verify_env	  env = VERIFY_ENV_INIT;
	struct buf		  prom = BUF_INIT;
	struct facts		**fs = NULL;
	struct hw_opts		  hwo = HW_OPTS_INIT;
	struct prov_err		  e2 = PROV_ERR_INIT;
	char			 *prom_url = NULL, *prom_why = NULL;
	size_t			  nsel = 0, nh, i, nf = 0, head_ix = (size_t)-1;
	int			  r = -1;

	memset(stats, 0, sizeof *stats);
	memset(&rc, 0, sizeof rc);
	env.since = verify_now();
	if (plan_select(&sel, &nsel, p, o->nodes, err) != 0)
		goto out;
	if (nsel == 0) {
		prov_err_set(err, PROV_E_USAGE, "no node to verify");
		goto out;
	}
	/* the selected nodes, then the head when it is not one of them */
	nh = nsel;
	for (i = 0; i < nsel; i++)
		if (sel[i] == head)
			head_ix = i;
	if (head != NULL && head_ix == (size_t)-1 && (verify_is_slurm(p) ||
	    verify_is_k8s(p) || o->burn_in))
		head_ix = nh++;
	hosts = xcalloc(nh + 1, sizeof *hosts);
	vn = xcalloc(nh + 1, sizeof *vn);
	rc.jobs = xcalloc(nh + 1, sizeof *rc.jobs);
	rc.given = xcalloc(nh + 1, sizeof *rc.given);
	rc.res = xcalloc(nh + 1, sizeof *rc.res);
	for (i = 0; i < nh; i++) {
		vn[i].pn = i < nsel ? sel[i] : head;
		hosts[i].name = vn[i].pn->name;
		hosts[i].addr = vn[i].pn->address;
		ssh_result_init(&rc.res[i]);
		verify_run_job(&rc.jobs[i], p, vn[i].pn, sel, nsel, o);
	}
	ssh_config_from_plan(&cfg, &p->ssh);
	cfg.passphrase = o->passphrase;
	if (o->forks > 0)
		cfg.forks = o->forks;
	cfg.out_max = 16 * 1024 * 1024;
	cfg.command_timeout_s = o->command_timeout_s > 0 ?
	    o->command_timeout_s : o->burn_in ? 3600 : 300;
	if (ssh_pool_new(&pool, &cfg, hosts, nh, err) != 0)
		goto out;
	hd.next = verify_run_next;
	hd.done = verify_run_done;
	hd.output = NULL;
	hd.arg = &rc;
	env.t0 = verify_now();
	if (ssh_pool_run(pool, &hd, err) != 0)
		goto out;
	env.t1 = verify_now();
	for (i = 0; notes != NULL && i < ssh_pool_notes(pool)->n; i++)
		strvec_push(notes, ssh_pool_notes(pool)->v[i]);
	ssh_pool_close(pool);

	fs = xcalloc(nh + 1, sizeof *fs);
	nf = verify_run_read(vn, rc.res, nh, nsel, &cfg, stats, fs);
	if (nf > 0 && hw_pci_names(fs, nf, &hwo, &e2) != 0) {
		if (notes != NULL)
			strvec_pushf(notes, "%s", e2.msg);
		prov_err_release(&e2);
	}
	for (i = 0; i < nf; i++)
		facts_finish(fs[i], p->catalog);

	verify_run_prom(p, o, &env, &prom, &prom_url, &prom_why);
	verify_eval(out, meas, p, vn, nsel, head_ix != (size_t)-1 ? &vn[head_ix] :
	    NULL, &env, o);
	stats->nodes = nsel;
	r = 0;
out:
	ssh_pool_free(pool);
	for (i = 0; vn != NULL && i < nh; i++) {
		verify_node_release(&vn[i]);
		ssh_result_release(&rc.res[i]);
		free((void *)rc.jobs[i].stdin_data);
	}
	free(vn);
	free(rc.jobs);
	free(rc.given);
	free(rc.res);
	free(hosts);
	free(sel);
	free(fs);
	free(prom_url);
	free(prom_why);
	buf_release(&prom);
	prov_err_release(&e2);
	return r;
}

/* ------------------------------------------------------------------ */
/* JSON */

void
verify_to_json(struct buf *b, const char *plan_path,
    const struct rows *rows, const struct verify_stats *st)
{
	struct json_writer	jw;

	json_init(&jw, b);
	json_object_begin(&jw, NULL, 0);
	json_str(&jw, "plan", plan_path);
	rows_to_json(&jw, "checks", rows);
	json_object_begin(&jw, "summary", 0);
	json_int(&jw, "nodes", st != NULL ? (long long)st->nodes : 0);
	json_int(&jw, "reached", st != NULL ? (long long)st->reached : 0);
	json_int(&jw, "ok", (long long)rows_count(rows, ROW_OK));
	json_int(&jw, "warn", (long long)rows_count(rows, ROW_WARN));
	json_int(&jw, "fail", (long long)rows_count(rows, ROW_FAIL));
	json_int(&jw, "skip", (long long)rows_count(rows, ROW_SKIP));
	json_end(&jw);
	json_end(&jw);
	json_finish(&jw);
}

/* The string at key, or at the key an older verify wrote (node, ...). */
static const char *
verify_json_key(const struct yml_node *c, const char *key, const char *old)
{
	const char	*v = yml_map_str(c, key);

	return v != NULL ? v : yml_map_str(c, old);
}

int
verify_from_json(struct rows *out, const char *label,
    const char *text, size_t len, struct prov_err *err)
{
	struct yml_doc		 doc;
	const struct yml_node	*checks;
	unsigned		 i;
	int			 r = -1;

	if (yml_load_json(&doc, label, text, len, err) != 0)
		goto out;
	checks = doc.root != NULL && doc.root->kind == YML_MAP ?
	    yml_map_get(doc.root, "checks") : NULL;
	if (checks == NULL || checks->kind != YML_SEQ) {
		prov_err_parse(err, label, "no 'checks' list: not the output "
		    "of provision verify --json");
		goto out;
	}
	for (i = 0; i < checks->n; i++) {
		const struct yml_node	*c = checks->u.items[i];
		const char		*node, *what, *vs, *hint;
		enum row_verdict	 v;

		node = verify_json_key(c, "subject", "node");
		what = yml_map_str(c, "check");
		vs = yml_map_str(c, "verdict");
		hint = verify_json_key(c, "hint", "reason");
		if (node == NULL || what == NULL || vs == NULL) {
			prov_err_parse(err, label, "check %u lacks subject, "
			    "check or verdict", i + 1);
			goto out;
		}
		if (row_verdict_parse(vs, &v) != 0) {
			prov_err_parse(err, label, "check %u: unknown "
			    "verdict '%s'", i + 1, vs);
			goto out;
		}
		rows_addf(out, v, node, what,
		    verify_json_key(c, "limit", "expected"),
		    verify_json_key(c, "measured", "found"),
		    hint != NULL ? "%s" : NULL, hint);
	}
	r = 0;
out:
	yml_doc_release(&doc);
	return r;
}

/*
 * facts-gather.c: the facts of a plan's nodes, over SSH or from the files
 * an earlier run saved, and their drift from the plan.  See facts.h.
 *
 * One SSH job a node runs facts_script(); every answer is parsed, its PCI
 * devices are named from this machine's pci.ids in one pass for all
 * nodes, GPUs and names pci.ids lacks come from the catalog, and each
 * node's facts are saved as DIR/NODE.json before they are compared.
 */
#include "compat.h"

#include "buf.h"
#include "facts.h"
#include "hw.h"
#include "plan.h"
#include "row.h"
#include "ssh.h"
#include "strvec.h"

/* Save one node's facts as DIR/NODE.json and compare them with the plan. */
static void
facts_gather_node(struct rows *rows, const struct plan *p,
    const struct plan_node *nd, const struct facts *f, const char *dir)
{
	struct buf	 b = BUF_INIT;
	char		*path;

	if (dir != NULL) {
		path = xasprintf("%s/%s.json", dir, nd->name);
		facts_to_json(&b, f);
		if (buf_write_file_atomic(path, b.buf, b.len, 0644) != 0)
			rows_addf(rows, ROW_FAIL, nd->name, "facts", NULL, NULL,
			    "cannot save '%s': %s", path, strerror(errno));
		free(path);
		buf_release(&b);
	}
	facts_compare(rows, p, nd, f);
}

/* The facts of one answer, or NULL with a row that says why not. */
static struct facts *
facts_gather_parse(struct rows *rows, const struct plan_node *nd,
    const struct ssh_result *s, size_t out_max)
{
	struct prov_err	 err = PROV_ERR_INIT;
	struct facts	*f;

	if (s->status != SSH_OK) {
		rows_addf(rows, ROW_FAIL, nd->name, "facts", NULL, NULL,
		    "%s%s%s", ssh_status_name(s->status),
		    s->error != NULL ? ": " : "",
		    s->error != NULL ? s->error : "");
		return NULL;
	}
	if (s->out.truncated)
		rows_addf(rows, ROW_WARN, nd->name, "facts", NULL, NULL,
		    "output cut at %zu bytes", out_max);
	f = facts_new();
	if (facts_parse_script(f, s->out.buf, &err) != 0) {
		rows_addf(rows, ROW_FAIL, nd->name, "facts", NULL, NULL, "%s",
		    err.msg);
		prov_err_release(&err);
		facts_free(f);
		return NULL;
	}
	return f;
}

int
facts_gather(struct rows *rows, struct strvec *notes, const struct plan *p,
    struct plan_node *const *sel, size_t n, const struct facts_gather_opts *o,
    struct prov_err *err)
{
	struct ssh_config	 cfg = SSH_CONFIG_INIT;
	struct ssh_job		 job = SSH_JOB_INIT;
	struct ssh_host		*hosts = NULL;
	struct ssh_result	*res = NULL;
	struct hw_opts		 ho = HW_OPTS_INIT;
	struct prov_err		 e = PROV_ERR_INIT;
	struct buf		 cmdline = BUF_INIT;
	struct facts		**fs = NULL, **ok = NULL;
	size_t			 i, nok = 0;
	int			 r = -1;

	ssh_config_from_plan(&cfg, &p->ssh);
	cfg.passphrase = o->passphrase;
	if (o->forks > 0)
		cfg.forks = o->forks;
	cfg.out_max = 16 * 1024 * 1024;
	if (cfg.command_timeout_s == 0)
		cfg.command_timeout_s = 180;
	buf_adds(&cmdline, "sh -c ");
	buf_add_shquote(&cmdline, facts_script());
	job.command = cmdline.buf;
	job.label = "facts";
	hosts = xcalloc(n + 1, sizeof *hosts);
	res = xcalloc(n + 1, sizeof *res);
	for (i = 0; i < n; i++) {
		hosts[i].name = sel[i]->name;
		hosts[i].addr = sel[i]->address;
		ssh_result_init(&res[i]);
	}
	if (ssh_run_all(&cfg, hosts, n, &job, res, NULL, notes, err) != 0)
		goto out;
	fs = xcalloc(n + 1, sizeof *fs);
	ok = xcalloc(n + 1, sizeof *ok);
	for (i = 0; i < n; i++) {
		fs[i] = facts_gather_parse(rows, sel[i], &res[i], cfg.out_max);
		if (fs[i] != NULL)
			ok[nok++] = fs[i];
		ssh_result_release(&res[i]);
	}
	ho.pci_ids = o->pci_ids;
	if (hw_pci_names(ok, nok, &ho, &e) != 0) {
		strvec_pushf(notes, "%s", e.msg);
		prov_err_release(&e);
	}
	for (i = 0; i < nok; i++)
		facts_finish(ok[i], p->catalog);
	for (i = 0; i < n; i++)
		if (fs[i] != NULL)
			facts_gather_node(rows, p, sel[i], fs[i], o->dir);
	r = 0;
out:
	for (i = 0; fs != NULL && i < n; i++)
		facts_free(fs[i]);
	free(fs);
	free(ok);
	for (i = 0; i < n; i++)
		ssh_result_release(&res[i]);
	free(res);
	free(hosts);
	buf_release(&cmdline);
	return r;
}

void
facts_load_saved(struct rows *rows, const struct plan *p,
    struct plan_node *const *sel, size_t n, const char *dir)
{
	size_t	i;

	for (i = 0; i < n; i++) {
		struct prov_err	 err = PROV_ERR_INIT;
		struct facts	*f = NULL;
		struct buf	 b = BUF_INIT;
		char		*path = xasprintf("%s/%s.json", dir, sel[i]->name);

		if (buf_read_file(&b, path) != 0)
			rows_addf(rows, ROW_FAIL, sel[i]->name, "facts", NULL,
			    NULL, "cannot read '%s': %s", path,
			    strerror(errno));
		else if (facts_from_json(&f, path, b.buf, b.len, &err) != 0)
			rows_addf(rows, ROW_FAIL, sel[i]->name, "facts", NULL,
			    NULL, "%s", err.msg);
		else
			facts_compare(rows, p, sel[i], f);
		facts_free(f);
		buf_release(&b);
		free(path);
		prov_err_release(&err);
	}
}

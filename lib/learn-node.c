/*
 * learn-node.c: `catalog learn` of a plan's node.  See learn.h.
 *
 * One SSH run does what --local does here: the facts script (facts.sh,
 * the same parsers as `facts`) and then learn.sh, whose sections the
 * facts parser skips and the other way round.  PCI names come from this
 * machine's pci.ids and the plan's catalog, as for `facts`.  A node
 * with a `bmc:` entry is then asked for its PSUs through Redfish, as
 * `bmc inventory` asks; a BMC that does not answer leaves the PSUs
 * unknown and says why in a note, since the rest of the draft stands.
 */
#include "compat.h"

#include "buf.h"
#include "facts.h"
#include "hw.h"
#include "learn.h"
#include "plan.h"
#include "redfish.h"
#include "ssh.h"
#include "strvec.h"

/* The PSUs of nd's BMC into l; what fails is a note. */
static void
learn_node_bmc(struct learn *l, const struct plan *p,
    const struct plan_node *nd, const struct redfish_opts *ro)
{
	struct redfish_opts o = REDFISH_OPTS_INIT;
	struct redfish_bmc *v = NULL;
	struct prov_err err = PROV_ERR_INIT;
	char *from = NULL;
	size_t i, n = 0;

	/* the caller's timeouts and auth, always the inventory */
	if (ro != NULL)
		o = *ro;
	o.action = REDFISH_INVENTORY;
	if (redfish_bmcs_from_plan(&v, &n, p, nd->name, &err) != 0) {
		strvec_pushf(&l->notes, "BMC: %s", err.msg);
		goto out;
	}
	if (n != 1 || v[0].skipped) {
		strvec_pushf(&l->notes, "BMC not read: %s",
		    n == 1 && v[0].err.msg != NULL ? v[0].err.msg : "no entry");
		goto out;
	}
	if (redfish_run(v, n, &o, &err) != 0) {
		strvec_pushf(&l->notes, "BMC: %s", err.msg);
		goto out;
	}
	if (!v[0].ok) {
		strvec_pushf(&l->notes, "BMC at %s: %s: the PSUs are unknown",
		    nd->bmc->address,
		    v[0].err.msg != NULL ? v[0].err.msg : "no answer");
		goto out;
	}
	for (i = 0; i < v[0].inv.notes.n; i++)
		strvec_pushf(&l->notes, "BMC: %s", v[0].inv.notes.v[i]);
	from = xasprintf("the BMC at %s (Redfish %s)", nd->bmc->address,
	    v[0].inv.psu_source != NULL ? v[0].inv.psu_source : "inventory");
	learn_add_bmc(l, &v[0].inv, from);
	if (v[0].inv.psus <= 0)
		strvec_pushf(&l->notes, "the BMC at %s lists no PSU",
		    nd->bmc->address);
out:
	for (i = 0; v != NULL && i < n; i++)
		redfish_bmc_release(&v[i]); /* wipes the password */
	free(v);
	free(from);
	prov_err_release(&err);
}

int
learn_node(struct learn *l, struct facts **facts_out, const struct plan *p,
    const struct plan_node *nd, const struct learn_node_opts *o,
    struct prov_err *err)
{
	struct ssh_config cfg = SSH_CONFIG_INIT;
	struct ssh_job job = SSH_JOB_INIT;
	struct ssh_host host;
	struct ssh_result res;
	struct hw_opts ho = HW_OPTS_INIT;
	struct prov_err e = PROV_ERR_INIT;
	struct strvec notes = STRVEC_INIT;
	struct buf cmd = BUF_INIT;
	struct facts *f = NULL;
	size_t i;
	int r = -1;

	*facts_out = NULL;
	ssh_result_init(&res);
	ssh_config_from_plan(&cfg, &p->ssh);
	cfg.passphrase = o->passphrase;
	cfg.out_max = 16 * 1024 * 1024;
	if (cfg.command_timeout_s == 0)
		cfg.command_timeout_s = 180;
	/* two scripts, one after the other, each its own sh */
	buf_adds(&cmd, "sh -c ");
	buf_add_shquote(&cmd, facts_script());
	buf_adds(&cmd, "; sh -c ");
	buf_add_shquote(&cmd, learn_script());
	job.command = cmd.buf;
	job.label = "learn";
	memset(&host, 0, sizeof host);
	host.name = nd->name;
	host.addr = nd->address;
	if (ssh_run_all(&cfg, &host, 1, &job, &res, NULL, &notes, err) != 0)
		goto out;
	for (i = 0; i < notes.n; i++)
		strvec_push(&l->notes, notes.v[i]);
	if (res.status != SSH_OK) {
		prov_err_set(err, PROV_E_SSH, "%s: %s%s%s", nd->name,
		    ssh_status_name(res.status), res.error != NULL ? ": " : "",
		    res.error != NULL ? res.error : "");
		goto out;
	}
	f = facts_new();
	if (facts_parse_script(f, res.out.buf != NULL ? res.out.buf : "",
	        err) != 0 ||
	    learn_parse_script(l, res.out.buf != NULL ? res.out.buf : "",
	        err) != 0) {
		prov_err_prefix(err, "%s: ", nd->name);
		goto out;
	}
	ho.pci_ids = o->pci_ids;
	if (hw_pci_names(&f, 1, &ho, &e) != 0)
		facts_note(f, "%s", e.msg);
	facts_finish(f, p->catalog);
	if (nd->bmc != NULL)
		learn_node_bmc(l, p, nd, o->redfish);
	*facts_out = f;
	f = NULL;
	r = 0;
out:
	facts_free(f);
	ssh_result_release(&res);
	strvec_clear(&notes);
	buf_release(&cmd);
	prov_err_release(&e);
	return r;
}

/*
 * fuzz_redfish.c: the Redfish/JSON reader and the pure helpers of
 * redfish.h over what a BMC answers.
 *
 * The input is one HTTP body.  When yml_load_json() takes it, the
 * document is read as every resource the dialogue reads (service root,
 * collection, system, processor, memory, power supply, PCIe device with
 * its functions, virtual media, error body, action info), the reset type
 * is chosen for every action from its allowed values and PowerState, the
 * inventory is compared with a GPU node of examples/dgx-a100-pod.yaml,
 * and what is written out (inventory JSON, drift rows) must parse as
 * JSON again.
 */
#include "compat.h"

#include <math.h>

#include "buf.h"
#include "catalog.h"
#include "err.h"
#include "json.h"
#include "plan.h"
#include "row.h"
#include "redfish.h"
#include "strvec.h"
#include "yml.h"

#include "fuzz.h"

#define FUZZ_RF_ITEMS	64	/* list items looked at per list */

int	LLVMFuzzerInitialize(int *, char ***);
int	LLVMFuzzerTestOneInput(const uint8_t *, size_t);

static struct plan	*fuzz_rf_plan;
static char		*fuzz_rf_dir, *fuzz_rf_plan_path;

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	struct plan_opts	 o = PLAN_OPTS_INIT;
	struct prov_errs	 errs = PROV_ERRS_INIT;

	fuzz_rf_dir = fuzz_path("profiles");
	fuzz_rf_plan_path = fuzz_path("examples/dgx-a100-pod.yaml");
	o.builtin_dir = fuzz_rf_dir;
	if (plan_load(&fuzz_rf_plan, fuzz_rf_plan_path, &o, &errs) != 0) {
		prov_errs_print(&errs, stderr);
		abort();
	}
	return 0;
}

/* What we write must be JSON we read: wrapped in an object when a list. */
static void
fuzz_rf_reparse(const struct buf *b, int list)
{
	struct buf	 w = BUF_INIT;
	struct yml_doc	 doc;
	struct prov_err	 err = PROV_ERR_INIT;

	if (list)
		buf_addf(&w, "{\"rows\": %s}", b->buf);
	else
		buf_add(&w, b->buf, b->len);
	if (yml_load_json(&doc, "out.json", w.buf, w.len, &err) != 0) {
		fprintf(stderr, "%s\n%s\n", err.msg, w.buf);
		FUZZ_ASSERT(!"our JSON does not read back");
	}
	yml_doc_release(&doc);
	buf_release(&w);
	prov_err_release(&err);
}

static const struct yml_node *
fuzz_rf_get(const struct yml_node *n, const char *k, int kind)
{
	const struct yml_node	*v;

	if (n == NULL || n->kind != YML_MAP)
		return NULL;
	v = yml_map_get(n, k);
	return v != NULL && v->kind == kind ? v : NULL;
}

static void
fuzz_rf_reset(const struct yml_node *root)
{
	const struct yml_node	*act, *seq, *p;
	struct strvec		 allowed = STRVEC_INIT;
	const char		*power, *t, *why;
	size_t			 i;
	int			 a, g;

	/* Actions."#ComputerSystem.Reset" or ActionInfo Parameters[0]. */
	act = fuzz_rf_get(fuzz_rf_get(root, "Actions", YML_MAP),
	    "#ComputerSystem.Reset", YML_MAP);
	seq = fuzz_rf_get(act, "ResetType@Redfish.AllowableValues", YML_SEQ);
	p = fuzz_rf_get(root, "Parameters", YML_SEQ);
	if (seq == NULL && p != NULL && p->n > 0)
		seq = fuzz_rf_get(p->u.items[0], "AllowableValues", YML_SEQ);
	for (i = 0; seq != NULL && i < seq->n && i < FUZZ_RF_ITEMS; i++)
		if (seq->u.items[i]->kind == YML_SCALAR)
			strvec_push(&allowed, seq->u.items[i]->u.s);
	power = redfish_str(root, "PowerState");
	for (a = REDFISH_STATUS; a <= REDFISH_INVENTORY; a++) {
		(void)redfish_action_name((enum redfish_action)a);
		for (g = 0; g <= 1; g++) {
			t = redfish_reset_type((enum redfish_action)a, g,
			    &allowed, power, &why);
			FUZZ_ASSERT((t == NULL) != (why == NULL));
			if (t != NULL && *t != '\0' && allowed.n > 0)
				FUZZ_ASSERT(strvec_find(&allowed, t) >= 0);
		}
	}
	strvec_clear(&allowed);
}

static void
fuzz_rf_inventory(const struct yml_node *root)
{
	struct redfish_inv	 inv;
	struct rows		 rows = ROWS_INIT;
	struct buf		 b = BUF_INIT;
	struct json_writer	 jw;
	const struct yml_node	*seq, **fns;
	size_t			 i, n = 0;

	redfish_inv_init(&inv);
	redfish_inv_add_system(&inv, root);
	redfish_inv_add_processor(&inv, root);
	redfish_inv_add_memory(&inv, root);
	redfish_inv_add_psu(&inv, root, "PowerSubsystem");
	seq = fuzz_rf_get(root, "PowerSupplies", YML_SEQ);
	for (i = 0; seq != NULL && i < seq->n && i < FUZZ_RF_ITEMS; i++)
		redfish_inv_add_psu(&inv, seq->u.items[i], "Power");
	seq = fuzz_rf_get(root, "Members", YML_SEQ);
	for (i = 0; seq != NULL && i < seq->n && i < FUZZ_RF_ITEMS; i++) {
		redfish_inv_add_processor(&inv, seq->u.items[i]);
		redfish_inv_add_memory(&inv, seq->u.items[i]);
	}
	/* A PCIe device whose functions are the items of "Functions". */
	seq = fuzz_rf_get(root, "Functions", YML_SEQ);
	fns = xcalloc(FUZZ_RF_ITEMS + 1, sizeof *fns);
	for (i = 0; seq != NULL && i < seq->n && i < FUZZ_RF_ITEMS; i++)
		fns[n++] = seq->u.items[i];
	redfish_inv_add_pcie(&inv, root, fns);
	redfish_inv_add_pcie(&inv, root, fns + n);	/* no functions */
	free(fns);
	redfish_inv_finish(&inv);
	redfish_inv_summary(&b, &inv);
	FUZZ_ASSERT(strchr(b.buf, '\n') == NULL);
	buf_reset(&b);
	json_init(&jw, &b);
	redfish_inv_to_json(&jw, NULL, &inv);
	fuzz_rf_reparse(&b, 0);
	buf_reset(&b);
	redfish_compare(&rows, &fuzz_rf_plan->nodes[0], &inv,
	    fuzz_rf_plan->catalog);
	for (i = 0; i < rows.n; i++) {
		FUZZ_ASSERT(rows.v[i].what != NULL);
		(void)row_verdict_name(rows.v[i].verdict);
	}
	FUZZ_ASSERT(rows_count(&rows, ROW_OK) +
	    rows_count(&rows, ROW_WARN) +
	    rows_count(&rows, ROW_FAIL) +
	    rows_count(&rows, ROW_SKIP) == rows.n);
	json_init(&jw, &b);
	rows_to_json(&jw, NULL, &rows);
	fuzz_rf_reparse(&b, 1);
	rows_release(&rows);
	redfish_inv_release(&inv);
	buf_release(&b);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct yml_doc		 doc;
	struct prov_err		 err = PROV_ERR_INIT;
	const struct yml_node	*root;
	double			 d;

	if (size > 262144)
		return 0;
	if (yml_load_json(&doc, "bmc.json", (const char *)data, size,
	    &err) != 0) {
		FUZZ_ASSERT(err.msg != NULL);
		goto out;
	}
	root = doc.root;
	FUZZ_ASSERT(root != NULL && root->kind == YML_MAP);
	(void)redfish_str(root, "Id");
	d = redfish_num(root, "PowerCapacityWatts");
	FUZZ_ASSERT(isnan(d) || isfinite(d) || isinf(d));
	(void)redfish_link(root, "Systems");
	(void)redfish_link(root, "SessionService");
	(void)redfish_first_member(root);
	(void)redfish_error_message(root);
	(void)redfish_media_is_cd(root);
	fuzz_rf_reset(root);
	fuzz_rf_inventory(root);
out:
	yml_doc_release(&doc);
	prov_err_release(&err);
	return 0;
}

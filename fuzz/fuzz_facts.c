/*
 * fuzz_facts.c: every parser of node tool output (facts.h).
 *
 * The first input byte picks the parser (its value modulo the table
 * below); the rest is the tool's text.  Whatever a parser makes of it,
 * facts_finish() with the real catalog, the drift rows against a GPU node
 * of examples/dgx-a100-pod.yaml and facts_to_json() must work, and the
 * JSON must read back with facts_from_json() and print the same again:
 * it is what `provision facts` saves and `verify` reads later.
 */
#include "compat.h"

#include "buf.h"
#include "catalog.h"
#include "err.h"
#include "facts.h"
#include "json.h"
#include "plan.h"
#include "row.h"

#include "fuzz.h"

int	LLVMFuzzerInitialize(int *, char ***);
int	LLVMFuzzerTestOneInput(const uint8_t *, size_t);

enum fuzz_facts_parser {
	FUZZ_OS_RELEASE = 0,
	FUZZ_MEMINFO,
	FUZZ_CPUINFO,
	FUZZ_LSCPU,
	FUZZ_LSPCI_VMM,
	FUZZ_LSPCI,
	FUZZ_PCI_SYSFS,
	FUZZ_NVSMI_CSV,		/* header line names the columns */
	FUZZ_NVSMI_CSV_FIELDS,	/* noheader, the columns apply() asks for */
	FUZZ_NVSMI_XML,
	FUZZ_NVSMI_LIST,
	FUZZ_IBSTAT,
	FUZZ_NET,
	FUZZ_BLOCK,
	FUZZ_SCRIPT,
	FUZZ_FROM_JSON,
	FUZZ_NPARSERS
};

static struct catalog	*fuzz_facts_cat;
static struct plan	*fuzz_facts_plan;
static char		*fuzz_facts_dir, *fuzz_facts_plan_path;	/* borrowed by both */

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	struct plan_opts	 o = PLAN_OPTS_INIT;
	struct prov_errs	 errs = PROV_ERRS_INIT;

	fuzz_facts_dir = fuzz_path("profiles");
	fuzz_facts_plan_path = fuzz_path("examples/dgx-a100-pod.yaml");
	o.builtin_dir = fuzz_facts_dir;
	fuzz_facts_cat = catalog_new();
	if (catalog_load_dir(fuzz_facts_cat, fuzz_facts_dir, &errs) != 0 ||
	    plan_load(&fuzz_facts_plan, fuzz_facts_plan_path, &o,
	    &errs) != 0) {
		prov_errs_print(&errs, stderr);
		abort();
	}
	prov_errs_release(&errs);
	return 0;
}

static int
fuzz_facts_parse(struct facts *f, int which, const char *text, size_t len,
    struct prov_err *err)
{
	switch (which) {
	case FUZZ_OS_RELEASE:
		return facts_parse_os_release(f, text, err);
	case FUZZ_MEMINFO:
		return facts_parse_meminfo(f, text, err);
	case FUZZ_CPUINFO:
		return facts_parse_cpuinfo(f, text, err);
	case FUZZ_LSCPU:
		return facts_parse_lscpu(f, text, err);
	case FUZZ_LSPCI_VMM:
		return facts_parse_lspci_vmm(f, text, err);
	case FUZZ_LSPCI:
		return facts_parse_lspci(f, text, err);
	case FUZZ_PCI_SYSFS:
		return facts_parse_pci_sysfs(f, text, err);
	case FUZZ_NVSMI_CSV:
		return facts_parse_nvsmi_csv(f, text, NULL, err);
	case FUZZ_NVSMI_CSV_FIELDS:
		return facts_parse_nvsmi_csv(f, text, "index,name,pci.bus_id,"
		    "pci.device_id,uuid,memory.total,driver_version,"
		    "persistence_mode,pcie.link.gen.current,pcie.link.gen.max,"
		    "pcie.link.width.current,pcie.link.width.max", err);
	case FUZZ_NVSMI_XML:
		return facts_parse_nvsmi_xml(f, text, err);
	case FUZZ_NVSMI_LIST:
		return facts_parse_nvsmi_list(f, text, err);
	case FUZZ_IBSTAT:
		return facts_parse_ibstat(f, text, err);
	case FUZZ_NET:
		return facts_parse_net(f, text, err);
	case FUZZ_BLOCK:
		return facts_parse_block(f, text, err);
	case FUZZ_SCRIPT:
		return facts_parse_script(f, text, err);
	}
	FUZZ_ASSERT(!"no such parser");
	return -1;
}

static void
fuzz_facts_check(const struct facts *f)
{
	struct rows		 rows = ROWS_INIT;
	struct buf		 j = BUF_INIT, j2 = BUF_INIT;
	struct json_writer	 jw;
	struct prov_err		 err = PROV_ERR_INIT;
	struct facts		*g = NULL;
	size_t			 i;

	facts_compare(&rows, fuzz_facts_plan, &fuzz_facts_plan->nodes[0], f);
	for (i = 0; i < rows.n; i++) {
		FUZZ_ASSERT(rows.v[i].what != NULL);
		(void)row_verdict_name(rows.v[i].verdict);
	}
	json_init(&jw, &j);
	rows_to_json(&jw, NULL, &rows);
	rows_release(&rows);
	buf_reset(&j);
	facts_to_json(&j, f);
	FUZZ_ASSERT(j.len > 0 && j.buf[j.len - 1] == '\n');
	if (facts_from_json(&g, "facts.json", j.buf, j.len, &err) != 0) {
		fprintf(stderr, "facts_from_json: %s\n%s", err.msg, j.buf);
		FUZZ_ASSERT(!"facts JSON does not read back");
	}
	facts_to_json(&j2, g);
	if (strcmp(j.buf, j2.buf) != 0) {
		fprintf(stderr, "first:\n%s\nread back:\n%s", j.buf, j2.buf);
		FUZZ_ASSERT(!"facts JSON changes when read back");
	}
	facts_free(g);
	buf_release(&j);
	buf_release(&j2);
	prov_err_release(&err);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct prov_err	 err = PROV_ERR_INIT;
	struct facts	*f = NULL;
	char		*text;
	int		 which, r;

	if (size < 1 || size > 262144)
		return 0;
	which = data[0] % FUZZ_NPARSERS;
	text = fuzz_cstr(data + 1, size - 1);
	if (which == FUZZ_FROM_JSON) {
		/* Not NUL-terminated: the reader must keep to len. */
		r = facts_from_json(&f, "in.json", (const char *)data + 1,
		    size - 1, &err);
		FUZZ_ASSERT(r == 0 ? f != NULL : f == NULL);
	} else {
		f = facts_new();
		r = fuzz_facts_parse(f, which, text, size - 1, &err);
	}
	FUZZ_ASSERT(r == 0 || err.msg != NULL);
	if (f != NULL) {
		facts_finish(f, fuzz_facts_cat);
		fuzz_facts_check(f);
	}
	facts_free(f);
	free(text);
	prov_err_release(&err);
	return 0;
}

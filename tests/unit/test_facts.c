/*
 * test_facts.c: the parsers of lib/facts.c against real recorded tool
 * outputs (tests/fixtures/facts/, each with a .source file naming where
 * it came from) and against this machine's own /proc, lspci and lscpu;
 * the gather script run here with /bin/sh; JSON round trips; and drift
 * rows of facts built in code against the plans in examples/.
 */
#include "compat.h"

#include <math.h>
#include <sys/stat.h>

#include "buf.h"
#include "catalog.h"
#include "facts.h"
#include "hw.h"
#include "json.h"
#include "plan.h"
#include "row.h"
#include "str.h"
#include "test.h"

/* ------------------------------------------------------------------ */
/* helpers */

static char *
fixture(const char *name)
{
	struct buf	 b = BUF_INIT;
	char		*rel = xasprintf("tests/fixtures/facts/%s", name);
	char		*path = test_path(rel);

	if (buf_read_file(&b, path) != 0)
		ck_abort_msg("cannot read fixture %s: %s", path,
		    strerror(errno));
	free(rel);
	free(path);
	return buf_detach(&b, NULL);
}

/* Run a shell command here and return its stdout (NULL when it failed). */
static char *
run(const char *cmd)
{
	struct buf	 b = BUF_INIT;
	char		 chunk[4096];
	size_t		 n;
	FILE		*fp = popen(cmd, "r");
	int		 st;

	ck_assert_ptr_nonnull(fp);
	while ((n = fread(chunk, 1, sizeof chunk, fp)) > 0)
		buf_add(&b, chunk, n);
	st = pclose(fp);
	if (st != 0) {
		buf_release(&b);
		return NULL;
	}
	return buf_detach(&b, NULL);
}

typedef int (*parse_fn)(struct facts *, const char *, struct prov_err *);

/* Parse a fixture with fn, asserting success. */
static struct facts *
parse_fixture(parse_fn fn, const char *name)
{
	struct prov_err	 err = PROV_ERR_INIT;
	struct facts	*f = facts_new();
	char		*text = fixture(name);

	ck_assert_ok(fn(f, text, &err), &err);
	free(text);
	return f;
}

/* fn must refuse another tool's output. */
static void
parse_refuses(parse_fn fn, const char *name)
{
	struct prov_err	 err = PROV_ERR_INIT;
	struct facts	*f = facts_new();
	char		*text = fixture(name);

	ck_assert_msg(fn(f, text, &err) != 0, "parser accepted %s", name);
	ck_assert_int_eq(err.code, PROV_E_PARSE);
	ck_assert_ptr_nonnull(err.msg);
	prov_err_release(&err);
	free(text);
	facts_free(f);
}

static struct catalog *
load_catalog(void)
{
	struct prov_errs	 errs = PROV_ERRS_INIT;
	struct catalog		*c = catalog_new();
	char			*dir = test_path("profiles");

	ck_assert_int_eq(catalog_load_dir(c, dir, &errs), 0);
	prov_errs_release(&errs);
	free(dir);
	return c;
}

static struct plan *
load_plan(const char *rel)
{
	struct plan_opts	 o = PLAN_OPTS_INIT;
	struct prov_errs	 errs = PROV_ERRS_INIT;
	struct plan		*p = NULL;
	char			*dir = test_path("profiles");
	char			*path = test_path(rel);

	o.builtin_dir = dir;
	if (plan_load(&p, path, &o, &errs) != 0) {
		prov_errs_print(&errs, stderr);
		ck_abort_msg("cannot load %s", rel);
	}
	prov_errs_release(&errs);
	free(dir);
	free(path);
	return p;
}

/* ------------------------------------------------------------------ */
/* os-release, meminfo, cpuinfo, lscpu */

START_TEST(test_os_release)
{
	static const struct {
		const char	*file, *id, *version, *pretty;
	} cases[] = {
		{ "os-release-debian-12.txt", "debian", "12",
		  "Debian GNU/Linux 12 (bookworm)" },
		{ "os-release-ubuntu-22.04.txt", "ubuntu", "22.04",
		  "Ubuntu 22.04.2 LTS" },
	};
	size_t	i;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		struct facts	*f = parse_fixture(facts_parse_os_release,
				    cases[i].file);

		ck_assert_str_eq(f->os_id, cases[i].id);
		ck_assert_str_eq(f->os_version_id, cases[i].version);
		ck_assert_str_eq(f->os_pretty, cases[i].pretty);
		facts_free(f);
	}
	parse_refuses(facts_parse_os_release,
	    "proc-meminfo-2tb-gpu-server.txt");
}
END_TEST

START_TEST(test_os_release_quoting)
{
	struct prov_err	 err = PROV_ERR_INIT;
	struct facts	*f = facts_new();

	/* os-release(5): shell-style quoting, escapes in double quotes */
	ck_assert_ok(facts_parse_os_release(f, "# comment\n\nID='rocky'\n"
	    "VERSION_ID=9.3\nPRETTY_NAME=\"Rocky \\\"Blue\\\" Onyx\"\n",
	    &err), &err);
	ck_assert_str_eq(f->os_id, "rocky");
	ck_assert_str_eq(f->os_version_id, "9.3");
	ck_assert_str_eq(f->os_pretty, "Rocky \"Blue\" Onyx");
	facts_free(f);
}
END_TEST

START_TEST(test_meminfo)
{
	struct facts	*f;

	f = parse_fixture(facts_parse_meminfo,
	    "proc-meminfo-2tb-gpu-server.txt");
	ck_assert_int_eq(f->mem_kb, 2113413736LL);
	facts_free(f);
	f = parse_fixture(facts_parse_meminfo,
	    "proc-meminfo-ubuntu1710-4gb.txt");
	ck_assert_int_eq(f->mem_kb, 4042048LL);
	facts_free(f);
	parse_refuses(facts_parse_meminfo, "os-release-debian-12.txt");
}
END_TEST

START_TEST(test_cpuinfo_here)
{
	struct prov_err	 err = PROV_ERR_INIT;
	struct facts	*f = facts_new(), *g = facts_new();
	struct buf	 b = BUF_INIT;
	char		*lscpu;

	/* this machine's own /proc/cpuinfo and lscpu must agree */
	ck_assert_int_eq(buf_read_file(&b, "/proc/cpuinfo"), 0);
	ck_assert_ok(facts_parse_cpuinfo(f, b.buf, &err), &err);
	ck_assert_int_eq(f->cpu_threads, sysconf(_SC_NPROCESSORS_ONLN));
	lscpu = run("LC_ALL=C lscpu");
	if (lscpu != NULL) {
		ck_assert_ok(facts_parse_lscpu(g, lscpu, &err), &err);
		ck_assert_int_eq(g->cpu_threads, f->cpu_threads);
		if (f->cpu_model != NULL)
			ck_assert_str_eq(g->cpu_model, f->cpu_model);
		if (f->cpu_sockets > 0)
			ck_assert_int_eq(g->cpu_sockets, f->cpu_sockets);
		if (f->cpu_cores > 0)
			ck_assert_int_eq(g->cpu_cores, f->cpu_cores);
	}
	parse_refuses(facts_parse_cpuinfo, "proc-meminfo-2tb-gpu-server.txt");
	parse_refuses(facts_parse_lscpu, "os-release-debian-12.txt");
	free(lscpu);
	buf_release(&b);
	facts_free(f);
	facts_free(g);
}
END_TEST

/* ------------------------------------------------------------------ */
/* lspci */

START_TEST(test_lspci_vv)
{
	struct facts		*f = parse_fixture(facts_parse_lspci,
				    "lspci-vvv-excerpt-h100-cx7-dell.txt");
	const struct facts_pci	*gpu, *nic;

	ck_assert_int_eq(f->npci, 2);
	gpu = facts_pci_find(f, "3b:00.0");
	nic = facts_pci_find(f, "0000:3c:00.0");
	ck_assert_ptr_nonnull(gpu);
	ck_assert_ptr_nonnull(nic);
	ck_assert_str_eq(gpu->class_name, "3D controller");
	/* "NVIDIA Corporation Device 2330": pci.ids there was too old */
	ck_assert_str_eq(gpu->vendor_name, "NVIDIA Corporation");
	ck_assert_ptr_null(gpu->device_name);
	ck_assert_int_eq(gpu->device_id, 0x2330);
	ck_assert_str_eq(gpu->driver, "nvidia");
	ck_assert(gpu->link.speed == 32 && gpu->link.max_speed == 32);
	ck_assert_int_eq(gpu->link.width, 16);
	ck_assert_int_eq(gpu->link.max_width, 16);
	ck_assert_str_eq(nic->class_name, "Ethernet controller");
	ck_assert_str_eq(nic->device_name,
	    "Mellanox Technologies MT2910 Family [ConnectX-7]");
	ck_assert_str_eq(nic->driver, "mlx5_core");
	ck_assert(nic->link.speed == 32 && nic->link.max_speed == 32);
	ck_assert_int_eq(nic->link.width, 16);
	facts_free(f);
	parse_refuses(facts_parse_lspci, "proc-meminfo-2tb-gpu-server.txt");
}
END_TEST

START_TEST(test_lspci_nn)
{
	struct facts		*f = parse_fixture(facts_parse_lspci,
				    "lspci-nn-grep-nvidia-4xh100-sxm5.txt");
	struct catalog		*cat = load_catalog();
	size_t			 i;

	ck_assert_int_eq(f->npci, 4);
	for (i = 0; i < f->npci; i++) {
		ck_assert_int_eq(f->pci[i].class_id, 0x0302);
		ck_assert_int_eq(f->pci[i].vendor_id, 0x10de);
		ck_assert_int_eq(f->pci[i].device_id, 0x2330);
		ck_assert_str_eq(f->pci[i].device_name,
		    "NVIDIA Corporation GH100 [H100 SXM5 80GB]");
	}
	ck_assert_ptr_nonnull(facts_pci_find(f, "0000:4c:00.0"));
	/* no nvidia-smi: the GPUs come from the bus, model from the catalog */
	facts_finish(f, cat);
	ck_assert_int_eq(f->ngpus, 4);
	for (i = 0; i < f->ngpus; i++) {
		ck_assert_str_eq(f->gpus[i].source, "pci");
		ck_assert_str_eq(f->gpus[i].pci_id, "10de:2330");
		ck_assert_str_eq(f->gpus[i].catalog_id, "h100-sxm5");
	}
	facts_free(f);
	catalog_free(cat);
}
END_TEST

START_TEST(test_lspci_vmm_here)
{
	struct prov_err	 err = PROV_ERR_INIT;
	struct hw_opts	 ho = HW_OPTS_INIT;
	struct facts	*f = facts_new(), *h = facts_new();
	char		*text = run("lspci -vmm -nn -D -k 2>/dev/null");
	size_t		 i;

	if (text == NULL) {
		facts_free(f);
		facts_free(h);
		return;		/* no lspci here: hw tests cover libpci */
	}
	/* the real lspci output of this machine, against libpci directly */
	ck_assert_ok(facts_parse_lspci_vmm(f, text, &err), &err);
	ck_assert_ok(hw_pci_scan(h, &ho, &err), &err);
	ck_assert_int_gt(f->npci, 0);
	ck_assert_int_eq(f->npci, h->npci);
	for (i = 0; i < h->npci; i++) {
		const struct facts_pci	*a = &h->pci[i];
		const struct facts_pci	*b = facts_pci_find(f, a->slot);

		ck_assert_msg(b != NULL, "%s missing from lspci", a->slot);
		ck_assert_int_eq(a->vendor_id, b->vendor_id);
		ck_assert_int_eq(a->device_id, b->device_id);
		ck_assert_int_eq(a->class_id, b->class_id);
		if (a->device_name != NULL && b->device_name != NULL)
			ck_assert_str_eq(a->device_name, b->device_name);
		if (a->driver != NULL && b->driver != NULL)
			ck_assert_str_eq(a->driver, b->driver);
	}
	free(text);
	facts_free(f);
	facts_free(h);
	parse_refuses(facts_parse_lspci_vmm, "proc-meminfo-ubuntu1710-4gb.txt");
}
END_TEST

/*
 * Plain lspci (no -nn) names devices only: their ids come back through
 * pci.ids (hw_pci_names), checked against libpci's own scan of this
 * machine, so a name that resolves wrongly fails here.
 */
START_TEST(test_lspci_plain_here)
{
	struct prov_err	 err = PROV_ERR_INIT;
	struct hw_opts	 ho = HW_OPTS_INIT;
	struct facts	*f = facts_new(), *h = facts_new();
	char		*text = run("lspci -D 2>/dev/null");
	size_t		 i, known = 0;

	if (text == NULL) {
		facts_free(f);
		facts_free(h);
		return;		/* no lspci here */
	}
	ck_assert_ok(facts_parse_lspci(f, text, &err), &err);
	for (i = 0; i < f->npci; i++)
		ck_assert_int_lt(f->pci[i].vendor_id, 0);
	ck_assert_ok(hw_pci_names(&f, 1, &ho, &err), &err);
	ck_assert_ok(hw_pci_scan(h, &ho, &err), &err);
	ck_assert_int_eq(f->npci, h->npci);
	for (i = 0; i < h->npci; i++) {
		const struct facts_pci	*a = &h->pci[i];
		const struct facts_pci	*b = facts_pci_find(f, a->slot);

		ck_assert_ptr_nonnull(b);
		ck_assert_int_eq(a->vendor_id, b->vendor_id);
		ck_assert_int_eq(a->class_id, b->class_id);
		/* a name pci.ids lacks ("Device 0d57") keeps its number */
		ck_assert_int_eq(a->device_id, b->device_id);
		known += b->device_name != NULL;
	}
	ck_assert_uint_gt(known, 0);
	free(text);
	facts_free(f);
	facts_free(h);
}
END_TEST

/*
 * 8 x H100 SXM5 and 4 NVSwitch as plain `lspci -d 10de:` prints them
 * with a newer pci.ids than Debian 12's (2023.04.10): the GPUs' names
 * differ in one blank ("GH100[H100 SXM5 80GB]" there), the NVSwitch is
 * not in it at all.  8 GPUs, not 0; the bridges' ids stay unknown and
 * say so, and, being bridges, leave the GPU count sure.
 */
START_TEST(test_lspci_plain_h100)
{
	struct prov_err	 err = PROV_ERR_INIT;
	struct hw_opts	 ho = HW_OPTS_INIT;
	struct catalog	*cat = load_catalog();
	struct facts	*f = parse_fixture(facts_parse_lspci,
			    "lspci-d10de-8xh100-nvswitch.txt");
	size_t		 i;

	facts_finish(f, cat);
	ck_assert_uint_eq(f->ngpus, 0);		/* before: no ids, no GPU */
	facts_free(f);
	f = parse_fixture(facts_parse_lspci, "lspci-d10de-8xh100-nvswitch.txt");
	ck_assert_ok(hw_pci_names(&f, 1, &ho, &err), &err);
	facts_finish(f, cat);
	ck_assert_uint_eq(f->npci, 12);
	ck_assert_uint_eq(f->ngpus, 8);
	for (i = 0; i < f->ngpus; i++) {
		ck_assert_str_eq(f->gpus[i].pci_id, "10de:2330");
		ck_assert_str_eq(f->gpus[i].source, "pci");
		ck_assert_ptr_nonnull(f->gpus[i].catalog_id);
	}
	ck_assert_str_eq(f->pci[4].vendor_name, "NVIDIA Corporation");
	ck_assert_int_eq(f->pci[4].class_id, 0x0302);
	ck_assert_int_eq(f->pci[0].class_id, 0x0680);
	ck_assert_int_eq(f->pci[0].vendor_id, 0x10de);
	if (f->pci[0].device_id < 0)	/* an older pci.ids than the node's */
		ck_assert_int_ge(strvec_find(&f->notes, "4 PCI devices named "
		    "without ids (plain lspci) whose names this machine's "
		    "pci.ids does not know: their ids are unknown (lspci -nn "
		    "prints them)"), 0);
	ck_assert_int_eq(facts_pci_unsure(f), 0);
	facts_free(f);
	catalog_free(cat);
}
END_TEST

START_TEST(test_lspci_vmm_names)
{
	struct prov_err		 err = PROV_ERR_INIT;
	struct facts		*f = facts_new();
	const struct facts_pci	*d;

	/*
	 * Synthetic record (no real -vmm capture of an unknown device has
	 * been found yet): the shape lspci prints for an id pci.ids lacks.
	 */
	ck_assert_ok(facts_parse_lspci_vmm(f, "Slot:\t0000:1b:00.0\n"
	    "Class:\t3D controller [0302]\n"
	    "Vendor:\tNVIDIA Corporation [10de]\n"
	    "Device:\tDevice [2335]\nRev:\ta1\nDriver:\tnvidia\n\n", &err),
	    &err);
	d = facts_pci_find(f, "1b:00.0");
	ck_assert_ptr_nonnull(d);
	ck_assert_int_eq(d->device_id, 0x2335);
	ck_assert_ptr_null(d->device_name);
	ck_assert_str_eq(d->vendor_name, "NVIDIA Corporation");
	ck_assert_str_eq(d->class_name, "3D controller");
	facts_free(f);
}
END_TEST

/* ------------------------------------------------------------------ */
/* nvidia-smi */

static int
parse_csv(struct facts *f, const char *text, struct prov_err *err)
{
	return facts_parse_nvsmi_csv(f, text, NULL, err);
}

START_TEST(test_nvsmi_csv_all_fields)
{
	struct facts		*f = parse_fixture(parse_csv,
				    "nvidia-smi-query-all-h100.csv");
	const struct facts_gpu	*g;

	/* 212 columns with units in the header and in the values */
	ck_assert_int_eq(f->ngpus, 1);
	g = &f->gpus[0];
	ck_assert_int_eq(g->index, 0);
	ck_assert_str_eq(g->name, "NVIDIA H100 80GB HBM3");
	ck_assert_str_eq(g->bus_id, "0000:00:09.0");
	ck_assert_str_eq(g->pci_id, "10de:2330");
	ck_assert_int_eq(g->memory_mib, 81559);
	ck_assert_str_eq(g->driver_version, "590.48.01");
	ck_assert_str_eq(g->persistence, "Enabled");
	ck_assert_int_eq(g->gen, 5);
	ck_assert_int_eq(g->max_gen, 5);
	ck_assert_int_eq(g->width, 16);
	ck_assert_int_eq(g->max_width, 16);
	ck_assert_str_eq(g->source, "nvidia-smi");
	facts_free(f);
}
END_TEST

START_TEST(test_nvsmi_csv_pcie)
{
	struct facts	*f = parse_fixture(parse_csv,
			    "nvidia-smi-query-pcie-8xl40s.csv");
	size_t		 i;

	ck_assert_int_eq(f->ngpus, 8);
	for (i = 0; i < 8; i++) {
		ck_assert_int_eq(f->gpus[i].index, (long)i);
		ck_assert_int_eq(f->gpus[i].gen, 1);
		ck_assert_int_eq(f->gpus[i].max_gen, 4);
		ck_assert_int_eq(f->gpus[i].width, 16);
		ck_assert_int_eq(f->gpus[i].max_width, 16);
		ck_assert_ptr_null(f->gpus[i].name);
	}
	facts_free(f);
}
END_TEST

START_TEST(test_nvsmi_csv_noheader)
{
	struct prov_err	 err = PROV_ERR_INIT;
	struct facts	*f = facts_new();
	char		*text = fixture("nvidia-smi-query-pcie-8xl40s.csv");
	char		*body = strchr(text, '\n') + 1;

	/* the same rows as --format=csv,noheader, with the field list given */
	ck_assert_ok(facts_parse_nvsmi_csv(f, body, "index,pcie.link.gen."
	    "current,pcie.link.gen.max,pcie.link.width.current,"
	    "pcie.link.width.max", &err), &err);
	ck_assert_int_eq(f->ngpus, 8);
	ck_assert_int_eq(f->gpus[7].index, 7);
	ck_assert_int_eq(f->gpus[7].max_gen, 4);
	/* too few fields for the list: refused */
	ck_assert_int_ne(facts_parse_nvsmi_csv(f, body, "index,pcie.link.gen."
	    "current", &err), 0);
	prov_err_release(&err);
	free(text);
	facts_free(f);
}
END_TEST

START_TEST(test_nvsmi_csv_p100)
{
	struct facts	*f = parse_fixture(parse_csv,
			    "nvidia-smi-query-tesla-p100.csv");

	/* no index column: rows are numbered; [N/A] stays unknown */
	ck_assert_int_eq(f->ngpus, 1);
	ck_assert_int_eq(f->gpus[0].index, 0);
	ck_assert_str_eq(f->gpus[0].name, "Tesla P100-PCIE-16GB");
	ck_assert_str_eq(f->gpus[0].uuid,
	    "GPU-ef1b2c9b-38d8-2090-2bd1-f567a3eb42a6");
	ck_assert_int_eq(f->gpus[0].memory_mib, -1);
	facts_free(f);
	parse_refuses(parse_csv, "ibstat-h100-ndr-8port.txt");
}
END_TEST

START_TEST(test_nvsmi_xml)
{
	static const struct {
		const char	*file;
		size_t		 n;
		const char	*bus, *name, *pci, *driver, *persist;
		long		 mib, gen, max_gen, width, mig;
	} cases[] = {
		{ "nvidia-smi-qx-2x-rtx-a5000.xml", 2, "0000:81:00.0",
		  "NVIDIA RTX A5000", "10de:2231", "590.44.01", "Enabled",
		  24564, 1, 4, 16, -1 },
		{ "nvidia-smi-qx-a100-sxm4-80gb-mig.xml", 1, "0000:01:00.0",
		  "NVIDIA A100-SXM4-80GB", "10de:20b2", "535.54.03",
		  "Disabled", 81920, 4, 4, 16, 4 },
		{ "nvidia-smi-qx-tesla-p100.xml", 1, "0000:00:04.0",
		  "Tesla P100-PCIE-16GB", "10de:15f8", "510.47.03", NULL,
		  16384, 3, 3, 16, -1 },
	};
	size_t	i;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		struct facts		*f;
		const struct facts_gpu	*g;

		f = parse_fixture(facts_parse_nvsmi_xml, cases[i].file);
		g = &f->gpus[0];

		ck_assert_int_eq(f->ngpus, cases[i].n);
		ck_assert_int_eq(g->index, 0);
		ck_assert_str_eq(g->bus_id, cases[i].bus);
		ck_assert_str_eq(g->name, cases[i].name);
		ck_assert_str_eq(g->pci_id, cases[i].pci);
		ck_assert_str_eq(g->driver_version, cases[i].driver);
		if (cases[i].persist != NULL)
			ck_assert_str_eq(g->persistence, cases[i].persist);
		/* the GPU's memory, not a MIG slice's fb_memory_usage */
		ck_assert_int_eq(g->memory_mib, cases[i].mib);
		ck_assert_int_eq(g->gen, cases[i].gen);
		ck_assert_int_eq(g->max_gen, cases[i].max_gen);
		ck_assert_int_eq(g->width, cases[i].width);
		ck_assert_int_eq(g->max_width, 16);
		ck_assert_int_eq(g->mig_devices, cases[i].mig);
		facts_free(f);
	}
}
END_TEST

START_TEST(test_nvsmi_xml_second_gpu)
{
	struct facts	*f = parse_fixture(facts_parse_nvsmi_xml,
			    "nvidia-smi-qx-2x-rtx-a5000.xml");

	ck_assert_int_eq(f->gpus[1].index, 1);
	ck_assert_str_eq(f->gpus[1].bus_id, "0000:c1:00.0");
	ck_assert_int_eq(f->gpus[1].memory_mib, 24564);
	facts_free(f);
}
END_TEST

START_TEST(test_nvsmi_xml_strict)
{
	static const char *const bad[] = {
		"<nvidia_smi_log><gpu id=\"0\"><product_name>x</gpu>"
		    "</nvidia_smi_log>",
		"<nvidia_smi_log><driver_version>1</driver_version>",
		"<nvidia_smi_log a=b></nvidia_smi_log>",
		"<nvidia_smi_log>&bogus;</nvidia_smi_log>",
		"<nvidia_smi_log></nvidia_smi_log><extra/>",
		"<other></other>",
		"not xml at all",
	};
	struct prov_err	 err = PROV_ERR_INIT;
	char		*text = fixture("nvidia-smi-qx-tesla-p100.xml");
	size_t		 i;

	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		struct facts	*f = facts_new();

		ck_assert_msg(facts_parse_nvsmi_xml(f, bad[i], &err) != 0,
		    "accepted %s", bad[i]);
		prov_err_release(&err);
		facts_free(f);
	}
	/* a real file cut short */
	text[strlen(text) / 2] = '\0';
	{
		struct facts	*f = facts_new();

		ck_assert_int_ne(facts_parse_nvsmi_xml(f, text, &err), 0);
		ck_assert_ptr_nonnull(strstr(err.msg, "line"));
		prov_err_release(&err);
		facts_free(f);
	}
	/* entities, comments, CDATA and empty elements */
	{
		struct facts	*f = facts_new();

		ck_assert_ok(facts_parse_nvsmi_xml(f, "<?xml version=\"1.0\"?>"
		    "<!-- c --><nvidia_smi_log><gpu id='00000000:02:00.0'>"
		    "<product_name>A &amp; B&#x21;</product_name><processes />"
		    "<uuid><![CDATA[GPU-1]]></uuid></gpu></nvidia_smi_log>\n",
		    &err), &err);
		ck_assert_int_eq(f->ngpus, 1);
		ck_assert_str_eq(f->gpus[0].name, "A & B!");
		ck_assert_str_eq(f->gpus[0].uuid, "GPU-1");
		ck_assert_str_eq(f->gpus[0].bus_id, "0000:02:00.0");
		facts_free(f);
	}
	free(text);
}
END_TEST

START_TEST(test_nvsmi_q)
{
	static const struct {
		const char	*file;
		size_t		 n;
		const char	*bus, *name, *pci, *driver, *uuid;
		long		 mib, gen, width;
	} cases[] = {
		{ "nvidia-smi-q-gh200.txt", 1, "0000:dd:00.0",
		  "NVIDIA GH200 480GB", "10de:2342", "550.127.05",
		  "GPU-35d58415-1094-5ad1-64d1-b797587d33a7", 97871, 4, 1 },
		{ "nvidia-smi-q-2xh100-nvl.txt", 2, "0000:ad:00.0",
		  "NVIDIA H100 NVL", "10de:2321", "550.54.14",
		  "GPU-806f8ea2-6428-1096-a076-bb687fb45fb0", 95830, 5, 16 },
	};
	size_t	i;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		struct facts		*f;
		const struct facts_gpu	*g;

		f = parse_fixture(facts_parse_nvsmi_q, cases[i].file);
		g = &f->gpus[0];
		ck_assert_int_eq(f->ngpus, cases[i].n);
		ck_assert_int_eq(g->index, 0);
		ck_assert_str_eq(g->bus_id, cases[i].bus);
		ck_assert_str_eq(g->name, cases[i].name);
		ck_assert_str_eq(g->pci_id, cases[i].pci);
		ck_assert_str_eq(g->driver_version, cases[i].driver);
		ck_assert_str_eq(g->uuid, cases[i].uuid);
		ck_assert_str_eq(g->persistence, "Enabled");
		ck_assert_str_eq(g->mig_mode, "Disabled");
		ck_assert_str_eq(g->ecc_mode, "Enabled");
		ck_assert_int_eq(g->mig_devices, 0);
		ck_assert_int_eq(g->memory_mib, cases[i].mib);
		ck_assert_int_eq(g->gen, cases[i].gen);
		ck_assert_int_eq(g->max_gen, cases[i].gen);
		ck_assert_int_eq(g->width, cases[i].width);
		ck_assert_int_eq(g->max_width, cases[i].width);
		facts_free(f);
	}
	/* the second GPU of the pair, which the excerpt keeps to its PCI */
	{
		struct facts	*f = parse_fixture(facts_parse_nvsmi_q,
				    "nvidia-smi-q-2xh100-nvl.txt");

		ck_assert_int_eq(f->gpus[1].index, 1);
		ck_assert_str_eq(f->gpus[1].bus_id, "0000:ae:00.0");
		ck_assert_int_eq(f->gpus[1].memory_mib, -1);
		ck_assert_int_eq(f->gpus[1].gen, 5);
		facts_free(f);
	}
	parse_refuses(facts_parse_nvsmi_q, "ibstat-h100-ndr-8port.txt");
	parse_refuses(facts_parse_nvsmi_q, "os-release-debian-12.txt");
	parse_refuses(facts_parse_nvsmi_q, "nvidia-smi-qx-tesla-p100.xml");
}
END_TEST

/* -q text with a MIG layout: the same tree, so the same count as XML. */
START_TEST(test_nvsmi_q_mig)
{
	static const char	text[] =
	    "Attached GPUs                             : 1\n"
	    "GPU 00000000:01:00.0\n"
	    "    Product Name                          : NVIDIA A100-SXM4-80GB\n"
	    "    MIG Mode\n"
	    "        Current                           : Enabled\n"
	    "        Pending                           : Enabled\n"
	    "    MIG Devices\n"
	    "        MIG Device\n"
	    "            Index                         : 0\n"
	    "        MIG Device\n"
	    "            Index                         : 1\n"
	    "    Processes\n"
	    "        GPU instance ID                   : 1\n"
	    "        Process ID                        : 1607\n"
	    "            Type                          : C\n";
	struct prov_err	 err = PROV_ERR_INIT;
	struct facts	*f = facts_new();

	ck_assert_ok(facts_parse_nvsmi_q(f, text, &err), &err);
	ck_assert_int_eq(f->ngpus, 1);
	ck_assert_str_eq(f->gpus[0].mig_mode, "Enabled");
	ck_assert_int_eq(f->gpus[0].mig_devices, 2);
	facts_free(f);
	/* a level skipped is not nvidia-smi's */
	f = facts_new();
	ck_assert_int_ne(facts_parse_nvsmi_q(f, "Attached GPUs : 1\n"
	    "GPU 00000000:01:00.0\n            Index : 0\n", &err), 0);
	ck_assert_int_eq(err.code, PROV_E_PARSE);
	prov_err_release(&err);
	facts_free(f);
}
END_TEST

START_TEST(test_nvsmi_list)
{
	struct facts	*f = parse_fixture(facts_parse_nvsmi_list,
			    "nvidia-smi-L-8xh100-mig.txt");
	size_t		 i;

	ck_assert_int_eq(f->ngpus, 8);
	for (i = 0; i < 8; i++) {
		ck_assert_int_eq(f->gpus[i].index, (long)i);
		ck_assert_str_eq(f->gpus[i].name, "NVIDIA H100 80GB HBM3");
		ck_assert_int_eq(f->gpus[i].mig_devices, 7);
		ck_assert(str_starts(f->gpus[i].uuid, "GPU-"));
	}
	ck_assert_str_eq(f->gpus[0].uuid,
	    "GPU-63d1e50a-b952-d15c-0740-12bc14859142");
	facts_free(f);
	parse_refuses(facts_parse_nvsmi_list, "os-release-debian-12.txt");
}
END_TEST

START_TEST(test_nvsmi_merge)
{
	struct prov_err	 err = PROV_ERR_INIT;
	struct facts	*f = parse_fixture(facts_parse_nvsmi_list,
			    "nvidia-smi-L-8xh100-mig.txt");
	char		*csv = fixture("nvidia-smi-query-pcie-8xl40s.csv");

	/* a second source completes the GPUs by index, adds none */
	ck_assert_ok(facts_parse_nvsmi_csv(f, csv, NULL, &err), &err);
	ck_assert_int_eq(f->ngpus, 8);
	ck_assert_int_eq(f->gpus[3].max_gen, 4);
	ck_assert_int_eq(f->gpus[3].mig_devices, 7);
	free(csv);
	facts_free(f);
}
END_TEST

/* ------------------------------------------------------------------ */
/* InfiniBand */

START_TEST(test_ibstat)
{
	struct facts	*f = parse_fixture(facts_parse_ibstat,
			    "ibstat-h100-ndr-8port.txt");
	size_t		 i;

	ck_assert_int_eq(f->nib, 9);
	for (i = 0; i < 8; i++) {
		ck_assert_str_eq(f->ib[i].state, "active");
		ck_assert_str_eq(f->ib[i].phys_state, "LinkUp");
		ck_assert(f->ib[i].rate_gbps == 400);
		ck_assert_str_eq(f->ib[i].link_layer, "InfiniBand");
		ck_assert_int_eq(f->ib[i].port, 1);
	}
	ck_assert_str_eq(f->ib[0].ca, "mlx5_0");
	ck_assert_str_eq(f->ib[8].ca, "mlx5_bond_0");
	ck_assert_str_eq(f->ib[8].link_layer, "Ethernet");
	ck_assert(f->ib[8].rate_gbps == 200);
	facts_free(f);
	parse_refuses(facts_parse_ibstat, "os-release-ubuntu-22.04.txt");
}
END_TEST

START_TEST(test_ibstat_down)
{
	struct facts	*f = parse_fixture(facts_parse_ibstat,
			    "ibstat-h100-roce-some-down.txt");
	size_t		 i, down = 0;

	ck_assert_int_eq(f->nib, 12);
	for (i = 0; i < f->nib; i++) {
		if (strcmp(f->ib[i].state, "down") != 0)
			continue;
		down++;
		ck_assert(strcmp(f->ib[i].ca, "mlx5_11") == 0 ||
		    strcmp(f->ib[i].ca, "mlx5_5") == 0);
		ck_assert(strcmp(f->ib[i].phys_state, "Polling") == 0 ||
		    strcmp(f->ib[i].phys_state, "Disabled") == 0);
	}
	ck_assert_int_eq(down, 2);
	facts_free(f);
}
END_TEST

/*
 * What ibstat prints after its ports when one CA cannot be read (infiniband-
 * diags' IBPANIC format, written here: no recorded output had one) is a
 * note, not a lost line.
 */
START_TEST(test_ibstat_trailing_error)
{
	struct prov_err	 err = PROV_ERR_INIT;
	struct facts	*f = facts_new();
	struct buf	 b = BUF_INIT;
	char		*t = fixture("ibstat-h100-roce-some-down.txt");
	size_t		 nib;

	buf_addf(&b, "%s\nibpanic: [3907] main: stat of IB device 'mlx5_4' "
	    "failed: No such file or directory\n", t);
	ck_assert_ok(facts_parse_ibstat(f, t, &err), &err);
	nib = f->nib;
	ck_assert_uint_eq(f->notes.n, 0);
	facts_free(f);
	f = facts_new();
	ck_assert_ok(facts_parse_ibstat(f, b.buf, &err), &err);
	ck_assert_uint_eq(f->nib, nib);
	ck_assert_int_ge(strvec_find(&f->notes, "ibstat: ibpanic: [3907] "
	    "main: stat of IB device 'mlx5_4' failed: No such file or "
	    "directory"), 0);
	buf_release(&b);
	free(t);
	facts_free(f);
}
END_TEST

START_TEST(test_ibstatus)
{
	struct facts	*f = parse_fixture(facts_parse_ibstat,
			    "ibstatus-a100-hdr-8port.txt");

	/* the format of the sysfs files: "4: ACTIVE", "200 Gb/sec (4X HDR)" */
	ck_assert_int_eq(f->nib, 9);
	ck_assert_str_eq(f->ib[0].ca, "mlx5_0");
	ck_assert_int_eq(f->ib[0].port, 1);
	ck_assert_str_eq(f->ib[0].state, "active");
	ck_assert_str_eq(f->ib[0].phys_state, "LinkUp");
	ck_assert(f->ib[0].rate_gbps == 200);
	ck_assert_str_eq(f->ib[8].link_layer, "Ethernet");
	ck_assert(f->ib[8].rate_gbps == 40);
	facts_free(f);
}
END_TEST

/* ------------------------------------------------------------------ */
/* slots, the gather script, JSON */

/* Each recorded output is read as the tool that printed it. */
START_TEST(test_parse_any)
{
	static const struct {
		const char	*file, *kind;
	} cases[] = {
		{ "nvidia-smi-qx-tesla-p100.xml", "nvidia-smi -q -x" },
		{ "nvidia-smi-qx-a100-sxm4-80gb-mig.xml", "nvidia-smi -q -x" },
		{ "nvidia-smi-q-gh200.txt", "nvidia-smi -q" },
		{ "nvidia-smi-q-2xh100-nvl.txt", "nvidia-smi -q" },
		{ "nvidia-smi-query-all-h100.csv", "nvidia-smi --query-gpu" },
		{ "nvidia-smi-query-pcie-8xl40s.csv", "nvidia-smi --query-gpu" },
		{ "nvidia-smi-query-tesla-p100.csv", "nvidia-smi --query-gpu" },
		{ "nvidia-smi-L-8xh100-mig.txt", "nvidia-smi -L" },
		{ "lspci-vvv-excerpt-h100-cx7-dell.txt", "lspci" },
		{ "lspci-nn-grep-nvidia-4xh100-sxm5.txt", "lspci" },
		{ "lspci-d10de-8xh100-nvswitch.txt", "lspci" },
		{ "lspci-plain-here-virtio.txt", "lspci" },
		{ "lspci-vv-here-virtio.txt", "lspci" },
		{ "ibstat-h100-ndr-8port.txt", "ibstat" },
		{ "ibstatus-a100-hdr-8port.txt", "ibstatus" },
		{ "proc-meminfo-2tb-gpu-server.txt", "/proc/meminfo" },
		{ "os-release-debian-12.txt", "/etc/os-release" },
		{ "os-release-ubuntu-22.04.txt", "/etc/os-release" },
	};
	struct prov_err	 err = PROV_ERR_INIT;
	const char	*kind;
	size_t		 i;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		struct facts	*f = facts_new();
		char		*t = fixture(cases[i].file);

		ck_assert_msg(facts_parse_any(f, cases[i].file, t, &kind,
		    &err) == 0, "%s: %s", cases[i].file, err.msg);
		ck_assert_str_eq(kind, cases[i].kind);
		free(t);
		facts_free(f);
	}
	/* the grep'd and -d lists are partial, the whole ones not */
	{
		struct facts	*f = facts_new();
		char		*t = fixture("lspci-nn-grep-nvidia-4xh100-sxm5.txt");

		ck_assert_ok(facts_parse_any(f, "x", t, &kind, &err), &err);
		ck_assert_int_eq(f->pci_partial, 1);
		free(t);
		facts_free(f);
		f = facts_new();
		t = fixture("lspci-plain-here-virtio.txt");
		ck_assert_ok(facts_parse_any(f, "x", t, &kind, &err), &err);
		ck_assert_int_eq(f->pci_partial, 0);
		free(t);
		facts_free(f);
	}
	{
		struct facts	*f = facts_new();
		char		*t = fixture("dmesg-xid-119-h100-xe9680.log");

		ck_assert_int_ne(facts_parse_any(f, "dmesg.log", t, &kind,
		    &err), 0);
		ck_assert_ptr_nonnull(strstr(err.msg, "dmesg.log: not an "
		    "output"));
		prov_err_release(&err);
		free(t);
		facts_free(f);
	}
}
END_TEST

START_TEST(test_slot_norm)
{
	static const struct {
		const char	*in, *out;
	} cases[] = {
		{ "3b:00.0", "0000:3b:00.0" },
		{ "0000:3B:00.0", "0000:3b:00.0" },
		{ "00000000:81:00.0", "0000:81:00.0" },
		{ "10000:e1:00.1", "10000:e1:00.1" },
		{ "0000:3b:00.8", NULL },
		{ "0000:3b:20.0", NULL },
		{ "virtio0", NULL },
		{ "3b:00", NULL },
		{ "", NULL },
		{ "0000:3b:00.0 x", NULL },
	};
	char	out[32];
	size_t	i;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		int	r = facts_slot_norm(out, sizeof out, cases[i].in);

		if (cases[i].out == NULL)
			ck_assert_msg(r != 0, "accepted '%s'", cases[i].in);
		else {
			ck_assert_msg(r == 0, "refused '%s'", cases[i].in);
			ck_assert_str_eq(out, cases[i].out);
		}
	}
	ck_assert_int_eq(facts_gen_of_speed(2.5), 1);
	ck_assert_int_eq(facts_gen_of_speed(16), 4);
	ck_assert_int_eq(facts_gen_of_speed(7), -1);
	ck_assert(facts_speed_of_gen(5) == 32);
}
END_TEST

/*
 * nvidia-smi's stderr apart from its CSV.  No GPU here, so the script
 * and hw_gather() run a stand-in nvidia-smi that prints what a node with
 * a damaged infoROM prints: the warning on stderr (its text as nvidia-smi
 * writes it), the CSV on stdout (values from the H100 fixture).  Merged
 * (2>&1), the warning became the CSV header and the node had no GPU.
 */
static char *
fake_nvidia_smi(void)
{
	char	tmpl[] = "/tmp/prov-nvsmi-XXXXXX", *dir, *path;
	FILE	*fp;

	dir = mkdtemp(tmpl);
	ck_assert_ptr_nonnull(dir);
	path = xasprintf("%s/nvidia-smi", dir);
	fp = fopen(path, "w");
	ck_assert_ptr_nonnull(fp);
	fputs("#!/bin/sh\n"
	    "echo 'WARNING: infoROM is corrupted at gpu 0000:09:00.0' >&2\n"
	    "case $1 in\n"
	    "*mig.mode*) echo 'index, pci.bus_id, mig.mode.current, "
	    "ecc.mode.current'\n"
	    "  echo '0, 00000000:00:09.0, Enabled, Enabled' ;;\n"
	    "*) echo 'index, name, pci.bus_id, pci.device_id, uuid, "
	    "memory.total [MiB], driver_version, persistence_mode, "
	    "pcie.link.gen.current, pcie.link.gen.max, "
	    "pcie.link.width.current, pcie.link.width.max'\n"
	    "  echo '0, NVIDIA H100 80GB HBM3, 00000000:00:09.0, 0x233010DE, "
	    "GPU-00000000-0000-0000-0000-000000000000, 81559, 590.48.01, "
	    "Enabled, 5, 5, 16, 16' ;;\n"
	    "esac\n", fp);
	fclose(fp);
	ck_assert_int_eq(chmod(path, 0755), 0);
	return path;
}

static void
assert_nvsmi_warned(const struct facts *f)
{
	ck_assert_int_eq(f->ngpus, 1);
	ck_assert_str_eq(f->gpus[0].name, "NVIDIA H100 80GB HBM3");
	ck_assert_str_eq(f->gpus[0].mig_mode, "Enabled");
	ck_assert_str_eq(f->gpus[0].ecc_mode, "Enabled");
	ck_assert_int_ge(strvec_find(&f->notes, "nvidia-smi: WARNING: "
	    "infoROM is corrupted at gpu 0000:09:00.0"), 0);
}

START_TEST(test_script_nvsmi_stderr)
{
	struct prov_err	 err = PROV_ERR_INIT;
	struct hw_opts	 ho = HW_OPTS_INIT;
	struct facts	*f = facts_new(), *h = NULL;
	struct buf	 cmd = BUF_INIT;
	char		*tool = fake_nvidia_smi(), *dir = xstrdup(tool), *out;
	char		*note;

	*strrchr(dir, '/') = '\0';
	buf_addf(&cmd, "PATH=%s:$PATH sh -c ", dir);
	buf_add_shquote(&cmd, facts_script());
	out = run(cmd.buf);
	ck_assert_ptr_nonnull(out);
	ck_assert_ok(facts_parse_script(f, out, &err), &err);
	assert_nvsmi_warned(f);
	ho.nvidia_smi = tool;
	ck_assert_ok(hw_gather(&h, NULL, &ho, &err), &err);
	ck_assert_int_eq(h->ngpus, 1);
	ck_assert_str_eq(h->gpus[0].mig_mode, "Enabled");
	note = xasprintf("%s: WARNING: infoROM is corrupted at gpu "
	    "0000:09:00.0", tool);
	ck_assert_int_ge(strvec_find(&h->notes, note), 0);
	free(note);
	unlink(tool);
	rmdir(dir);
	free(out);
	free(tool);
	free(dir);
	buf_release(&cmd);
	facts_free(f);
	facts_free(h);
}
END_TEST

START_TEST(test_meminfo_hugepages)
{
	struct prov_err	 err = PROV_ERR_INIT;
	struct facts	*f = facts_new();
	char		*t = fixture("proc-meminfo-2tb-gpu-server.txt");
	struct buf	 b = BUF_INIT;

	/* the 2 TB server reserves none */
	ck_assert_ok(facts_parse_meminfo(f, t, &err), &err);
	ck_assert_int_eq(f->hugepages_kb, 0);
	/* Hugetlb: counts every page size (1 GiB pages too) */
	buf_adds(&b, "MemTotal:       2113413736 kB\nHugePages_Total:     16\n"
	    "Hugepagesize:       2048 kB\nHugetlb:        67141632 kB\n");
	ck_assert_ok(facts_parse_meminfo(f, b.buf, &err), &err);
	ck_assert_int_eq(f->hugepages_kb, 67141632);
	/* before Linux 4.16: total x size of the default size */
	buf_reset(&b);
	buf_adds(&b, "MemTotal:       2113413736 kB\nHugePages_Total:   1024\n"
	    "Hugepagesize:       2048 kB\n");
	ck_assert_ok(facts_parse_meminfo(f, b.buf, &err), &err);
	ck_assert_int_eq(f->hugepages_kb, 2097152);
	buf_release(&b);
	free(t);
	facts_free(f);
}
END_TEST

START_TEST(test_script_here)
{
	struct prov_err	 err = PROV_ERR_INIT;
	struct hw_opts	 ho = HW_OPTS_INIT;
	struct facts	*f = facts_new(), *h = NULL;
	struct buf	 cmd = BUF_INIT;
	char		*out;
	size_t		 i;

	/* the remote script, run here by /bin/sh, against hw_gather() */
	buf_adds(&cmd, "sh -c ");
	buf_add_shquote(&cmd, facts_script());
	out = run(cmd.buf);
	ck_assert_ptr_nonnull(out);
	ck_assert_ok(facts_parse_script(f, out, &err), &err);
	facts_finish(f, NULL);
	ho.nvidia_smi = "";
	ck_assert_ok(hw_gather(&h, NULL, &ho, &err), &err);
	ck_assert_str_eq(f->os_id, h->os_id);
	ck_assert_str_eq(f->kernel, h->kernel);
	ck_assert_str_eq(f->node, h->node);
	ck_assert_int_gt(f->mem_kb, 0);
	ck_assert_int_eq(f->cpu_threads, h->cpu_threads);
	ck_assert_str_eq(f->arch, h->arch);
	ck_assert_int_eq(f->hugepages_kb, h->hugepages_kb);
	ck_assert_int_ge(f->hugepages_kb, 0);
	ck_assert_int_eq(f->npci, h->npci);
	for (i = 0; i < f->npci; i++) {
		ck_assert_str_eq(f->pci[i].slot, h->pci[i].slot);
		ck_assert_int_eq(f->pci[i].vendor_id, h->pci[i].vendor_id);
		ck_assert_int_eq(f->pci[i].device_id, h->pci[i].device_id);
		ck_assert_int_eq(f->pci[i].class_id, h->pci[i].class_id);
		ck_assert(f->pci[i].link.speed == h->pci[i].link.speed);
		ck_assert_int_eq(f->pci[i].link.width, h->pci[i].link.width);
		ck_assert_int_eq(f->pci[i].numa_node, h->pci[i].numa_node);
		if (h->pci[i].driver != NULL)
			ck_assert_str_eq(f->pci[i].driver, h->pci[i].driver);
	}
	ck_assert_int_eq(f->nnics, h->nnics);
	for (i = 0; i < f->nnics; i++) {
		ck_assert_str_eq(f->nics[i].name, h->nics[i].name);
		ck_assert_int_eq(f->nics[i].mtu, h->nics[i].mtu);
	}
	ck_assert_int_eq(f->ndisks, h->ndisks);
	for (i = 0; i < f->ndisks; i++) {
		ck_assert_str_eq(f->disks[i].name, h->disks[i].name);
		ck_assert_int_eq(f->disks[i].size_bytes,
		    h->disks[i].size_bytes);
	}
	ck_assert_int_eq(f->nib, h->nib);
	/* a tool missing on the node is a note, not an error */
	if (system("command -v nvidia-smi >/dev/null 2>&1") != 0)
		ck_assert_int_ge(strvec_find(&f->notes,
		    "'nvidia-smi' not found"), 0);
	ck_assert_int_lt(strvec_find(&f->notes,
	    "the facts script stopped before its end"), 0);
	free(out);
	buf_release(&cmd);
	facts_free(f);
	facts_free(h);
}
END_TEST

START_TEST(test_script_shellcheck)
{
	struct buf	 cmd = BUF_INIT;
	char		*out;

	if (system("command -v shellcheck >/dev/null 2>&1") != 0)
		return;		/* make deps installs it */
	buf_adds(&cmd, "printf '%s' ");
	buf_add_shquote(&cmd, facts_script());
	buf_adds(&cmd, " | shellcheck -s sh - 2>&1");
	out = run(cmd.buf);
	ck_assert_msg(out != NULL, "shellcheck finds fault with the script");
	free(out);
	buf_release(&cmd);
}
END_TEST

/*
 * A sector count whose size in bytes does not fit is unknown (found by
 * fuzz/fuzz_facts.c: the multiplication overflowed).
 */
START_TEST(test_block_huge)
{
	struct prov_err	 err = PROV_ERR_INIT;
	struct facts	*f = facts_new();

	ck_assert_ok(facts_parse_block(f, "nvme0n1\t7501476528536870912\t0\t"
	    "X\nsda\t18014398509481983\t1\t\nsdb\t18014398509481984\t1\t\n",
	    &err), &err);
	ck_assert_uint_eq(f->ndisks, 3);
	ck_assert_int_eq(f->disks[0].size_bytes, -1);
	ck_assert_int_eq(f->disks[1].size_bytes, 18014398509481983LL * 512);
	ck_assert_int_eq(f->disks[2].size_bytes, -1);
	facts_free(f);
}
END_TEST

START_TEST(test_script_sections)
{
	struct prov_err	 err = PROV_ERR_INIT;
	struct facts	*f = facts_new();
	char		*mem = fixture("proc-meminfo-2tb-gpu-server.txt");
	char		*ib = fixture("ibstat-h100-ndr-8port.txt");
	struct buf	 out = BUF_INIT;

	/* sections built from fixtures; a failed tool becomes a note */
	buf_addf(&out, "@@facts meminfo\n%s@@rc 0\n", mem);
	buf_addf(&out, "@@facts ib\n%s\n", ib);
	buf_adds(&out, "@@facts nvidia-smi\nNVIDIA-SMI has failed because "
	    "it couldn't communicate with the NVIDIA driver.\n@@rc 9\n");
	buf_adds(&out, "@@facts lspci\nnot lspci output\n@@rc 0\n");
	ck_assert_ok(facts_parse_script(f, out.buf, &err), &err);
	ck_assert_int_eq(f->mem_kb, 2113413736LL);
	ck_assert_int_eq(f->nib, 9);
	ck_assert_int_eq(f->ngpus, 0);
	ck_assert_int_eq(f->notes.n, 3);	/* smi, lspci, no end */
	ck_assert(str_starts(f->notes.v[0], "nvidia-smi: exit status 9: "
	    "NVIDIA-SMI has failed"));
	ck_assert(str_starts(f->notes.v[1], "lspci -vmm: "));
	ck_assert_int_ne(facts_parse_script(f, "hello\n", &err), 0);
	prov_err_release(&err);
	buf_release(&out);
	free(mem);
	free(ib);
	facts_free(f);
}
END_TEST

/* Facts from several fixtures at once, finished with the catalog. */
static struct facts *
facts_from_fixtures(void)
{
	struct prov_err	 err = PROV_ERR_INIT;
	struct facts	*f = facts_new();
	struct catalog	*cat = load_catalog();
	static const struct {
		parse_fn	 fn;
		const char	*file;
	} parts[] = {
		{ facts_parse_os_release, "os-release-ubuntu-22.04.txt" },
		{ facts_parse_meminfo, "proc-meminfo-2tb-gpu-server.txt" },
		{ facts_parse_lspci, "lspci-vvv-excerpt-h100-cx7-dell.txt" },
		{ facts_parse_nvsmi_xml, "nvidia-smi-qx-2x-rtx-a5000.xml" },
		{ facts_parse_ibstat, "ibstat-h100-roce-some-down.txt" },
	};
	size_t	i;

	for (i = 0; i < ARRAY_SIZE(parts); i++) {
		char	*t = fixture(parts[i].file);

		ck_assert_ok(parts[i].fn(f, t, &err), &err);
		free(t);
	}
	ck_assert_ok(facts_parse_net(f, "ib0\t200000\t4092\tup\t"
	    "00:00:10:29:fe:80\t0000:3c:00.0\neno1\t-1\t1500\tdown\t"
	    "aa:bb:cc:dd:ee:ff\t\n", &err), &err);
	ck_assert_ok(facts_parse_block(f, "nvme0n1\t7501476528\t0\t"
	    "SAMSUNG MZQL27T6HBLA-00A07\nsda\t3907029168\t1\t\n", &err),
	    &err);
	facts_note(f, "a \"quoted\" note\twith a tab");
	facts_finish(f, cat);
	catalog_free(cat);
	return f;
}

START_TEST(test_json_roundtrip)
{
	struct prov_err	 err = PROV_ERR_INIT;
	struct facts	*f = facts_from_fixtures(), *g = NULL;
	struct buf	 a = BUF_INIT, b = BUF_INIT;

	ck_assert_int_eq(f->nics[1].speed_mbps, -1);
	ck_assert_ptr_null(f->nics[1].pci_slot);
	ck_assert_int_eq(f->disks[0].size_bytes, 7501476528LL * 512);
	ck_assert_int_eq(f->disks[1].rotational, 1);
	ck_assert_ptr_null(f->disks[1].model);
	/* the GPU named by the lspci excerpt now is a PCI device and a GPU */
	facts_to_json(&a, f);
	ck_assert_ok(facts_from_json(&g, "a.json", a.buf, a.len, &err), &err);
	facts_to_json(&b, g);
	ck_assert_str_eq(a.buf, b.buf);
	ck_assert_int_eq(g->npci, f->npci);
	ck_assert_int_eq(g->ngpus, 2);
	ck_assert_int_eq(g->nib, 12);
	ck_assert_str_eq(g->notes.v[0], "a \"quoted\" note\twith a tab");
	facts_free(g);
	buf_release(&a);
	buf_release(&b);
	facts_free(f);
}
END_TEST

/*
 * Tool output is not always UTF-8, nor free of control characters; the
 * saved JSON must still read back, to the same (found by
 * fuzz/fuzz_facts.c: a stray byte in nvidia-smi output made facts JSON
 * that facts_from_json() refused).
 */
START_TEST(test_json_not_utf8)
{
	struct prov_err	 err = PROV_ERR_INIT;
	struct facts	*f = facts_new(), *g = NULL;
	struct buf	 a = BUF_INIT, b = BUF_INIT;

	f->node = xstrdup("gpu\xff" "01");
	f->cpu_model = xstrdup("Xeon\xc2\x85(R) \xe2\x80\xa8 caf\xc3\xa9");
	f->os_pretty = xstrdup("del \x7f, bom \xef\xbb\xbf, esc \x1b[0m");
	f->kernel = xstrdup("overlong \xc0\xaf, cut \xe2\x82, "
	    "surrogate \xed\xa0\x80, \xf4\x90\x80\x80 too big");
	facts_note(f, "emoji \xf0\x9f\x98\x80 kept");
	facts_to_json(&a, f);
	ck_assert_ok(facts_from_json(&g, "a.json", a.buf, a.len, &err), &err);
	facts_to_json(&b, g);
	ck_assert_str_eq(a.buf, b.buf);
	ck_assert_str_eq(g->node, "gpu\xef\xbf\xbd" "01");
	ck_assert_str_eq(g->cpu_model, f->cpu_model);
	ck_assert_str_eq(g->os_pretty, f->os_pretty);
	ck_assert_str_eq(g->notes.v[0], "emoji \xf0\x9f\x98\x80 kept");
	ck_assert_ptr_null(strstr(g->kernel, "\xc0"));
	facts_free(g);
	facts_free(f);
	buf_release(&a);
	buf_release(&b);
}
END_TEST

/* A PCI slot listed twice: the later entry wins (fuzz_facts.c: a leak). */
START_TEST(test_json_duplicate_slot)
{
	static const char	 json[] = "{\"version\": 1, \"pci\": ["
	    "{\"slot\": \"0000:3b:00.0\", \"class_name\": \"first\", "
	    "\"driver\": \"a\"}, "
	    "{\"slot\": \"3b:00.0\", \"class_name\": \"second\", "
	    "\"vendor_name\": \"v\"}]}";
	struct prov_err	 err = PROV_ERR_INIT;
	struct facts	*f = NULL;

	ck_assert_ok(facts_from_json(&f, "d.json", json, strlen(json), &err),
	    &err);
	ck_assert_uint_eq(f->npci, 1);
	ck_assert_str_eq(f->pci[0].class_name, "second");
	ck_assert_str_eq(f->pci[0].vendor_name, "v");
	ck_assert_ptr_null(f->pci[0].driver);
	facts_free(f);
}
END_TEST

START_TEST(test_json_bad)
{
	static const char *const bad[] = {
		"{\"version\": 2}",
		"[1, 2]",
		"{\"version\": 1, \"pci\": {\"slot\": \"0000:00:00.0\"}}",
		"{\"version\": 1, \"memory_kb\": \"lots\"}",
		"{\"version\": 1, \"pci\": [{\"slot\": \"nope\"}]}",
		"{\"version\": 1, \"cpu\": {\"threads\": -3}}",
		"{\"version\": 1,",
	};
	struct prov_err	 err = PROV_ERR_INIT;
	struct facts	*f = NULL;
	size_t		 i;

	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		ck_assert_msg(facts_from_json(&f, "x.json", bad[i],
		    strlen(bad[i]), &err) != 0, "accepted %s", bad[i]);
		ck_assert_ptr_null(f);
		ck_assert_int_eq(err.code, PROV_E_PARSE);
		prov_err_release(&err);
	}
}
END_TEST

/* ------------------------------------------------------------------ */
/* drift */

/*
 * Synthetic facts (built here, no fixture file) for a node of
 * examples/pcie-lab.yaml's gpu-node: 8 A100 80GB PCIe (10de:20b5),
 * 1024 GB, one ConnectX-6 HDR 1-port (15b3:101b) for the fabric.
 */
struct lab {
	long	ngpus;
	long	gpu_device;		/* 0x20b5 */
	long	gpu3_width;		/* 16 */
	long	gpu5_gen;		/* 4 */
	long	nic_gen;		/* 4; 0: no NIC */
	double	mem_gib;
	double	hugepages_gib;		/* 0 */
};

static struct facts *
lab_facts(const struct lab *l, const struct plan *p)
{
	struct facts	*f = facts_new();
	long		 i;
	char		 slot[32];

	f->os_id = xstrdup("ubuntu");
	f->os_version_id = xstrdup("22.04");
	f->mem_kb = (long long)(l->mem_gib * 1024 * 1024);
	f->hugepages_kb = (long long)(l->hugepages_gib * 1024 * 1024);
	for (i = 0; i < l->ngpus; i++) {
		struct facts_pci	*d;

		snprintf(slot, sizeof slot, "0000:%02lx:00.0", 0x10 + i);
		d = facts_pci_get(f, slot);
		d->class_id = 0x0302;
		d->vendor_id = 0x10de;
		d->device_id = l->gpu_device;
		d->link.max_speed = 16;
		d->link.max_width = 16;
		d->link.speed = facts_speed_of_gen(i == 5 ? l->gpu5_gen : 4);
		d->link.width = i == 3 ? l->gpu3_width : 16;
	}
	if (l->nic_gen > 0) {
		struct facts_pci	*d;
		const char		*fn[] = { "0000:41:00.0",
					    "0000:41:00.1" };

		for (i = 0; i < 2; i++) {
			d = facts_pci_get(f, fn[i]);
			d->class_id = 0x0207;
			d->vendor_id = 0x15b3;
			d->device_id = 0x101b;
			d->link.max_speed = 16;
			d->link.max_width = 16;
			d->link.speed = facts_speed_of_gen(l->nic_gen);
			d->link.width = 16;
		}
	}
	facts_finish(f, p->catalog);
	return f;
}

/* The verdict of the first row whose `what` starts with prefix, or -1. */
static int
row_verdict(const struct rows *rows, const char *prefix)
{
	size_t	i;

	for (i = 0; i < rows->n; i++)
		if (str_starts(rows->v[i].what, prefix))
			return (int)rows->v[i].verdict;
	return -1;
}

START_TEST(test_compare_lab)
{
	static const struct {
		const char	*name;
		struct lab	 l;
		const char	*what;
		int		 verdict;
		size_t		 fails;
	} cases[] = {
		{ "as planned", { 8, 0x20b5, 16, 4, 4, 1010, 0 }, "gpu count",
		  ROW_OK, 0 },
		{ "as planned: gpu model", { 8, 0x20b5, 16, 4, 4, 1010, 0 },
		  "gpu model", ROW_OK, 0 },
		{ "as planned: links", { 8, 0x20b5, 16, 4, 4, 1010, 0 },
		  "gpu links", ROW_OK, 0 },
		{ "as planned: nic", { 8, 0x20b5, 16, 4, 4, 1010, 0 },
		  "nic connectx-6-hdr-1p", ROW_OK, 0 },
		{ "onboard nic has no pci ids", { 8, 0x20b5, 16, 4, 4, 1010, 0 },
		  "nic onboard-1gbe", ROW_SKIP, 0 },
		{ "memory within 5%", { 8, 0x20b5, 16, 4, 4, 980, 0 }, "memory",
		  ROW_OK, 0 },
		{ "memory short", { 8, 0x20b5, 16, 4, 4, 900, 0 }, "memory",
		  ROW_FAIL, 1 },
		{ "memory more", { 8, 0x20b5, 16, 4, 4, 2048, 0 }, "memory",
		  ROW_WARN, 0 },
		{ "gpu missing", { 7, 0x20b5, 16, 4, 4, 1010, 0 }, "gpu count",
		  ROW_FAIL, 1 },
		{ "gpu extra", { 9, 0x20b5, 16, 4, 4, 1010, 0 }, "gpu count",
		  ROW_WARN, 0 },
		{ "wrong model", { 8, 0x2330, 16, 4, 4, 1010, 0 }, "gpu model",
		  ROW_FAIL, 1 },
		{ "x8 gpu", { 8, 0x20b5, 8, 4, 4, 1010, 0 }, "gpu link 0000:13",
		  ROW_FAIL, 1 },
		{ "gen3 gpu (idle?)", { 8, 0x20b5, 16, 3, 4, 1010, 0 },
		  "gpu link 0000:15", ROW_WARN, 0 },
		{ "gen3 nic in gen4", { 8, 0x20b5, 16, 4, 3, 1010, 0 },
		  "nic link 0000:41:00.0", ROW_FAIL, 1 },
		{ "nic missing", { 8, 0x20b5, 16, 4, 0, 1010, 0 },
		  "nic connectx-6-hdr-1p", ROW_FAIL, 1 },
		{ "no huge pages: no row", { 8, 0x20b5, 16, 4, 4, 1010, 0 },
		  "memory for jobs", -1, 0 },
		/* 8 x 80 GB of GPU memory: 640 GiB at least for jobs */
		{ "some huge pages", { 8, 0x20b5, 16, 4, 4, 1010, 100 },
		  "memory for jobs", ROW_OK, 0 },
		{ "huge pages eat RAM", { 8, 0x20b5, 16, 4, 4, 1010, 400 },
		  "memory for jobs", ROW_WARN, 0 },
		{ "huge pages: MemTotal as planned", { 8, 0x20b5, 16, 4, 4,
		  1010, 400 }, "memory", ROW_OK, 0 },
	};
	struct plan		*p = load_plan("examples/pcie-lab.yaml");
	struct plan_node	*nd = plan_node(p, "gpu01");
	size_t			 i;

	ck_assert_ptr_nonnull(nd);
	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		struct rows	 rows = ROWS_INIT;
		struct facts	*f = lab_facts(&cases[i].l, p);

		facts_compare(&rows, p, nd, f);
		ck_assert_msg(row_verdict(&rows, cases[i].what) ==
		    cases[i].verdict, "%s: '%s' is %d, want %d", cases[i].name,
		    cases[i].what, row_verdict(&rows, cases[i].what),
		    cases[i].verdict);
		ck_assert_msg(rows_count(&rows, ROW_FAIL) ==
		    cases[i].fails, "%s: %zu fails, want %zu", cases[i].name,
		    rows_count(&rows, ROW_FAIL), cases[i].fails);
		ck_assert_str_eq(rows.v[0].subject, "gpu01");
		ck_assert_int_eq(row_verdict(&rows, "os"), ROW_OK);
		rows_release(&rows);
		facts_free(f);
	}
	plan_free(p);
}
END_TEST

/*
 * Plain lspci of a node whose names this machine's pci.ids does not know
 * (the names here are made up so that no pci.ids has them): no ids, so
 * the GPUs cannot be counted; a skip that says why, never "8 missing".
 */
START_TEST(test_compare_no_ids)
{
	struct prov_err		 err = PROV_ERR_INIT;
	struct plan		*p = load_plan("examples/pcie-lab.yaml");
	struct facts		*f = facts_new();
	struct rows		 rows = ROWS_INIT;
	struct hw_opts		 ho = HW_OPTS_INIT;
	size_t			 i;

	ck_assert_ok(facts_parse_lspci(f, "17:00.0 3D controller: Nonesuch "
	    "Graphics GX900 [Future 96GB] (rev a1)\n"
	    "31:00.0 3D controller: Nonesuch Graphics GX900 [Future 96GB] "
	    "(rev a1)\n", &err), &err);
	ck_assert_ok(hw_pci_names(&f, 1, &ho, &err), &err);
	facts_finish(f, p->catalog);
	ck_assert_uint_eq(facts_pci_unsure(f), 2);
	facts_compare(&rows, p, plan_node(p, "gpu01"), f);
	for (i = 0; i < rows.n; i++)
		if (strcmp(rows.v[i].what, "gpu count") == 0)
			break;
	ck_assert_uint_lt(i, rows.n);
	ck_assert_int_eq(rows.v[i].verdict, ROW_SKIP);
	ck_assert_str_eq(rows.v[i].measured, "0 or more (PCI bus)");
	ck_assert_ptr_nonnull(strstr(rows.v[i].hint, "lspci -nn"));
	rows_release(&rows);
	facts_free(f);
	plan_free(p);
}
END_TEST

/* MIG mode from nvidia-smi's modes query against the plan's layout. */
START_TEST(test_compare_mig)
{
	struct prov_err		 err = PROV_ERR_INIT;
	struct plan		*p = load_plan("examples/pcie-lab.yaml");
	struct plan_node	*nd = plan_node(p, "gpu01");
	struct plan_hw		*hw = (struct plan_hw *)nd->hw;
	struct facts		*f = facts_new();
	struct rows		 rows = ROWS_INIT;

	/* the shape of facts.sh's nvidia-smi-modes section */
	ck_assert_ok(facts_parse_nvsmi_csv(f, "index, pci.bus_id, "
	    "mig.mode.current, ecc.mode.current\n0, 00000000:17:00.0, "
	    "Enabled, Enabled\n1, 00000000:31:00.0, Disabled, Enabled\n",
	    NULL, &err), &err);
	facts_compare(&rows, p, nd, f);
	ck_assert_int_eq(row_verdict(&rows, "gpu mig"), ROW_WARN);
	rows_release(&rows);
	strvec_push(&hw->mig, "3g.40gb");
	strvec_push(&hw->mig, "3g.40gb");
	facts_compare(&rows, p, nd, f);
	ck_assert_int_eq(row_verdict(&rows, "gpu mig"), ROW_FAIL);
	rows_release(&rows);
	str_set(&f->gpus[1].mig_mode, "Enabled");
	facts_compare(&rows, p, nd, f);
	ck_assert_int_eq(row_verdict(&rows, "gpu mig"), ROW_OK);
	rows_release(&rows);
	facts_free(f);
	plan_free(p);
}
END_TEST

START_TEST(test_compare_rows_text)
{
	struct lab		 l = { 8, 0x20b5, 8, 4, 4, 1010, 0 };
	struct plan		*p = load_plan("examples/pcie-lab.yaml");
	struct facts		*f = lab_facts(&l, p);
	struct rows		 rows = ROWS_INIT;
	struct buf		 b = BUF_INIT;
	struct json_writer	 jw;
	size_t			 i;

	facts_compare(&rows, p, plan_node(p, "gpu02"), f);
	for (i = 0; i < rows.n; i++)
		if (strcmp(rows.v[i].what, "gpu link 0000:13:00.0") == 0)
			break;
	ck_assert_int_lt(i, rows.n);
	ck_assert_str_eq(rows.v[i].limit, "Gen4 x16");
	ck_assert_str_eq(rows.v[i].measured, "Gen4 x8");
	ck_assert_ptr_nonnull(strstr(rows.v[i].hint, "x8 of x16"));
	for (i = 0; i < rows.n; i++)
		if (strcmp(rows.v[i].what, "memory") == 0)
			break;
	ck_assert_str_eq(rows.v[i].limit, "1024 GiB");
	ck_assert_str_eq(rows.v[i].measured, "1010.0 GiB (MemTotal)");
	ck_assert_ptr_nonnull(strstr(rows.v[i].hint, "firmware"));
	json_init(&jw, &b);
	rows_to_json(&jw, NULL, &rows);
	ck_assert_ptr_nonnull(strstr(b.buf, "\"verdict\": \"fail\""));
	buf_release(&b);
	rows_release(&rows);
	facts_free(f);
	plan_free(p);
}
END_TEST

START_TEST(test_compare_other_plans)
{
	struct lab	 l = { 0, 0x20b5, 16, 4, 0, 256, 0 };
	struct facts	*f;
	struct plan	*p;
	struct rows	 rows = ROWS_INIT;

	/* the testbed's nodes have no hardware model: skip, not fail */
	p = load_plan("examples/testbed.yaml");
	f = lab_facts(&l, p);
	facts_compare(&rows, p, plan_node(p, "worker-01"), f);
	ck_assert_int_eq(row_verdict(&rows, "hardware"), ROW_SKIP);
	ck_assert_int_eq(row_verdict(&rows, "os"), ROW_WARN);
	ck_assert_int_eq(rows_count(&rows, ROW_FAIL), 0);
	rows_release(&rows);
	plan_free(p);

	/* a DGX without its GPUs, fabric cards and memory: a host bridge */
	p = load_plan("examples/dgx-a100-pod.yaml");
	{
		struct facts_pci	*hb = facts_pci_get(f, "0000:00:00.0");

		hb->class_id = 0x0600;
		hb->vendor_id = 0x1022;
		hb->device_id = 0x1480;
	}
	{
		size_t	i;
		const struct plan_node	*nd = NULL;

		for (i = 0; i < p->nnodes; i++)
			if (p->nodes[i].hw != NULL &&
			    p->nodes[i].hw->ngpus == 8)
				nd = &p->nodes[i];
		ck_assert_ptr_nonnull(nd);
		facts_compare(&rows, p, nd, f);
		ck_assert_int_eq(row_verdict(&rows, "gpu count"), ROW_FAIL);
		ck_assert_int_eq(row_verdict(&rows, "nic connectx-6-hdr-1p"),
		    ROW_FAIL);
		/* 256 GiB found, the system's fixed 1024 GB planned */
		ck_assert_int_eq(row_verdict(&rows, "memory"), ROW_FAIL);
	}
	rows_release(&rows);
	plan_free(p);

	/* nothing gathered: skips with reasons */
	p = load_plan("examples/edge-inference.yaml");
	{
		struct facts	*e = facts_new();

		facts_compare(&rows, p, &p->nodes[p->nnodes - 1], e);
		ck_assert_int_gt(rows.n, 0);
		ck_assert_int_eq(rows_count(&rows, ROW_FAIL), 0);
		ck_assert_int_eq(row_verdict(&rows, "memory"), ROW_SKIP);
		facts_free(e);
	}
	rows_release(&rows);
	plan_free(p);
	facts_free(f);
}
END_TEST

static Suite *
facts_suite(void)
{
	Suite	*s = suite_create("facts");
	TCase	*tc;

	tc = tcase_create("os");
	tcase_add_test(tc, test_os_release);
	tcase_add_test(tc, test_os_release_quoting);
	tcase_add_test(tc, test_meminfo);
	tcase_add_test(tc, test_meminfo_hugepages);
	tcase_add_test(tc, test_cpuinfo_here);
	suite_add_tcase(s, tc);

	tc = tcase_create("lspci");
	/* plain lspci walks pci.ids by name: seconds under ASan on a busy machine */
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_lspci_vv);
	tcase_add_test(tc, test_lspci_nn);
	tcase_add_test(tc, test_lspci_vmm_here);
	tcase_add_test(tc, test_lspci_vmm_names);
	tcase_add_test(tc, test_lspci_plain_here);
	tcase_add_test(tc, test_lspci_plain_h100);
	suite_add_tcase(s, tc);

	tc = tcase_create("nvidia-smi");
	tcase_add_test(tc, test_nvsmi_csv_all_fields);
	tcase_add_test(tc, test_nvsmi_csv_pcie);
	tcase_add_test(tc, test_nvsmi_csv_noheader);
	tcase_add_test(tc, test_nvsmi_csv_p100);
	tcase_add_test(tc, test_nvsmi_xml);
	tcase_add_test(tc, test_nvsmi_xml_second_gpu);
	tcase_add_test(tc, test_nvsmi_xml_strict);
	tcase_add_test(tc, test_nvsmi_q);
	tcase_add_test(tc, test_nvsmi_q_mig);
	tcase_add_test(tc, test_nvsmi_list);
	tcase_add_test(tc, test_nvsmi_merge);
	suite_add_tcase(s, tc);

	tc = tcase_create("infiniband");
	tcase_add_test(tc, test_ibstat);
	tcase_add_test(tc, test_ibstat_down);
	tcase_add_test(tc, test_ibstatus);
	tcase_add_test(tc, test_ibstat_trailing_error);
	suite_add_tcase(s, tc);

	tc = tcase_create("script");
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_slot_norm);
	tcase_add_test(tc, test_parse_any);
	tcase_add_test(tc, test_script_here);
	tcase_add_test(tc, test_script_nvsmi_stderr);
	tcase_add_test(tc, test_script_shellcheck);
	tcase_add_test(tc, test_script_sections);
	tcase_add_test(tc, test_block_huge);
	suite_add_tcase(s, tc);

	tc = tcase_create("json");
	tcase_add_test(tc, test_json_roundtrip);
	tcase_add_test(tc, test_json_bad);
	tcase_add_test(tc, test_json_not_utf8);
	tcase_add_test(tc, test_json_duplicate_slot);
	suite_add_tcase(s, tc);

	tc = tcase_create("compare");
	tcase_add_test(tc, test_compare_lab);
	tcase_add_test(tc, test_compare_rows_text);
	tcase_add_test(tc, test_compare_no_ids);
	tcase_add_test(tc, test_compare_mig);
	tcase_add_test(tc, test_compare_other_plans);
	suite_add_tcase(s, tc);
	return s;
}

TEST_MAIN(facts_suite)

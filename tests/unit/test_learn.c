/*
 * test_learn.c: `catalog learn`'s readers on recorded dmidecode output
 * (tests/fixtures/facts/, with .source files), and its draft loaded back
 * by the catalog loader: what was read is there, what was not is null
 * and listed as unknown.
 */
#include "compat.h"

#include <math.h>

#include "buf.h"
#include "catalog.h"
#include "facts.h"
#include "learn.h"
#include "redfish.h"
#include "str.h"
#include "test.h"
#include "yml.h"

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

/* The Grace server's SMBIOS: three PCIe slots, the M.2 sockets left out. */
START_TEST(test_dmi_grace)
{
	struct prov_err	 err = PROV_ERR_INIT;
	struct learn	 l;
	char		*t = fixture("dmidecode-grace-slots.txt");

	learn_init(&l);
	ck_assert_ok(learn_parse_dmi(&l, t, &err), &err);
	ck_assert_uint_eq(l.nslots, 3);
	ck_assert_str_eq(l.slots[0].name, "PCIe Slot 1");
	ck_assert_str_eq(l.slots[1].bus, "0002:01:00.0");
	ck_assert_str_eq(l.slots[2].name, "PCIe Slot 3");
	ck_assert_int_eq(l.slots[2].lanes, 16);
	ck_assert_int_eq(l.slots[2].mech, 16);
	ck_assert_int_eq(l.slots[2].gen, 5);
	ck_assert_int_eq(l.slots[2].full_length, 1);
	ck_assert_int_eq(l.slots[2].full_height, 1);
	/* no type 1 record; the base board's "Not Specified" is no name */
	ck_assert_ptr_null(l.vendor);
	ck_assert_ptr_null(l.product);
	ck_assert_str_eq(l.slots_from, "dmidecode");
	learn_release(&l);
	free(t);
}
END_TEST

/*
 * dmidecode 3.5's layout (width apart, "Low-profile") and a type 1
 * record; written here in its documented form, no recorded output with
 * both was found.
 */
START_TEST(test_dmi_forms)
{
	static const char	text[] =
	    "Handle 0x0001, DMI type 1, 27 bytes\n"
	    "System Information\n"
	    "\tManufacturer: Dell Inc.\n"
	    "\tProduct Name: PowerEdge XE9680\n"
	    "\n"
	    "Handle 0x0902, DMI type 9, 24 bytes\n"
	    "System Slot Information\n"
	    "\tDesignation: Slot 31\n"
	    "\tType: PCI Express 5 x16\n"
	    "\tData Bus Width: x8\n"
	    "\tCurrent Usage: Available\n"
	    "\tLength: Short\n"
	    "\tBus Address: 0000:3b:00.0\n"
	    "\tHeight: Low-profile\n";
	struct prov_err	 err = PROV_ERR_INIT;
	struct learn	 l;

	learn_init(&l);
	ck_assert_ok(learn_parse_dmi(&l, text, &err), &err);
	ck_assert_str_eq(l.vendor, "Dell Inc.");
	ck_assert_str_eq(l.product, "PowerEdge XE9680");
	ck_assert_uint_eq(l.nslots, 1);
	ck_assert_int_eq(l.slots[0].lanes, 8);
	ck_assert_int_eq(l.slots[0].mech, 16);
	ck_assert_int_eq(l.slots[0].gen, 5);
	ck_assert_int_eq(l.slots[0].full_length, 0);
	ck_assert_int_eq(l.slots[0].full_height, 0);
	learn_release(&l);
	/* not dmidecode's */
	learn_init(&l);
	ck_assert_int_ne(learn_parse_dmi(&l, "MemTotal: 1 kB\n", &err), 0);
	ck_assert_int_eq(err.code, PROV_E_PARSE);
	prov_err_release(&err);
	learn_release(&l);
}
END_TEST

START_TEST(test_sysfs_slots)
{
	struct prov_err	 err = PROV_ERR_INIT;
	struct learn	 l;

	learn_init(&l);
	ck_assert_ok(learn_parse_sysfs_slots(&l, "1\t0000:17:00\t32.0 GT/s "
	    "PCIe\n2\t0000:65:00\t16.0 GT/s PCIe\n", &err), &err);
	ck_assert_uint_eq(l.nslots, 2);
	ck_assert_str_eq(l.slots[0].bus, "0000:17:00.0");
	ck_assert_int_eq(l.slots[0].gen, 5);
	ck_assert_int_eq(l.slots[1].gen, 4);
	ck_assert_int_eq(l.slots[1].lanes, -1);
	ck_assert_int_ne(learn_parse_sysfs_slots(&l, "1 0000:17:00\n", &err),
	    0);
	prov_err_release(&err);
	learn_release(&l);
}
END_TEST

/*
 * The draft loads: slots with the socket of their device's NUMA node on
 * a two-socket machine with one node a socket; sysfs slots (no widths)
 * leave `slots` null and unknown.
 */
START_TEST(test_draft_loads)
{
	struct prov_err		 err = PROV_ERR_INIT;
	struct prov_errs	 errs = PROV_ERRS_INIT;
	struct catalog		*cat = load_catalog();
	struct facts		*f = facts_new();
	struct learn		 l;
	struct buf		 b = BUF_INIT;
	const struct cat_system	*s;
	char			*t = fixture("dmidecode-grace-slots.txt");

	f->cpu_sockets = 2;
	f->cpu_model = xstrdup("AMD EPYC 7763 64-Core Processor");
	facts_pci_get(f, "0000:01:00.0")->numa_node = 0;
	facts_pci_get(f, "0002:01:00.0")->numa_node = 1;
	facts_pci_get(f, "0006:01:00.0")->numa_node = 1;
	/* a port on a card: listed for a person, nics stays unknown */
	ck_assert_ok(facts_parse_pci_sysfs(f, "0000:41:00.0\t0x020700\t"
	    "0x15b3\t0x101b\t\t\t\t\t\t0\n", &err), &err);
	ck_assert_ok(facts_parse_net(f, "ibp65s0\t200000\t2044\tup\t"
	    "00:11:22:33:44:55\t0000:41:00.0\n", &err), &err);
	learn_init(&l);
	ck_assert_ok(learn_parse_dmi(&l, t, &err), &err);
	learn_draft(&b, &l, f, cat, "learned-one");
	ck_assert_int_eq(catalog_load_buf(cat, "draft.yaml", b.buf, b.len,
	    &errs), 0);
	ck_assert_uint_eq(errs.n, 0);
	s = catalog_system(cat, "learned-one");
	ck_assert_ptr_nonnull(s);
	ck_assert_int_eq(s->cpu_sockets, 2);
	ck_assert_uint_eq(s->nslots, 3);
	ck_assert_int_eq(s->slots[0].cpu, 0);
	ck_assert_int_eq(s->slots[2].cpu, 1);
	ck_assert_int_eq(s->slots[2].lanes, 16);
	ck_assert(isnan(s->depth_mm));
	ck_assert(s->rack_units < 0);
	ck_assert_int_ge(strvec_find(&s->m.unknown, "rack_units"), 0);
	ck_assert_int_ge(strvec_find(&s->m.unknown, "psu"), 0);
	ck_assert_int_ge(strvec_find(&s->m.unconfirmed, "slots"), 0);
	ck_assert_ptr_nonnull(strstr(b.buf, "UNKNOWN"));
	ck_assert_msg(strstr(b.buf, "    #   ibp65s0 at 0000:41:00.0, 15b3:101b "
	    "(connectx-6-hdr-1p), 200000 Mb/s\n") != NULL, "%s", b.buf);
	ck_assert_int_ge(strvec_find(&s->m.unknown, "nics"), 0);
	learn_release(&l);

	/* sysfs only: no widths, so no slot list */
	learn_init(&l);
	buf_reset(&b);
	ck_assert_ok(learn_parse_sysfs_slots(&l, "1\t0000:17:00\t32.0 GT/s "
	    "PCIe\n", &err), &err);
	learn_draft(&b, &l, f, cat, "learned-two");
	ck_assert_int_eq(catalog_load_buf(cat, "draft2.yaml", b.buf, b.len,
	    &errs), 0);
	s = catalog_system(cat, "learned-two");
	ck_assert_ptr_nonnull(s);
	ck_assert_uint_eq(s->nslots, 0);
	ck_assert_int_ge(strvec_find(&s->m.unknown, "slots"), 0);
	ck_assert_ptr_nonnull(strstr(b.buf, "#   1 at 0000:17:00.0, gen 5"));
	learn_release(&l);
	prov_errs_release(&errs);
	buf_release(&b);
	facts_free(f);
	catalog_free(cat);
	free(t);
}
END_TEST

/*
 * SMBIOS memory: the system memory arrays' sockets and maximum, not the
 * flash array's; written in dmidecode's documented layout.
 */
START_TEST(test_dmi_memory)
{
	static const char	text[] =
	    "Handle 0x0027, DMI type 16, 23 bytes\n"
	    "Physical Memory Array\n"
	    "\tLocation: System Board Or Motherboard\n"
	    "\tUse: System Memory\n"
	    "\tMaximum Capacity: 2 TB\n"
	    "\tNumber Of Devices: 16\n"
	    "\n"
	    "Handle 0x0028, DMI type 16, 23 bytes\n"
	    "Physical Memory Array\n"
	    "\tUse: Flash Memory\n"
	    "\tMaximum Capacity: 512 kB\n"
	    "\tNumber Of Devices: 1\n"
	    "\n"
	    "Handle 0x0029, DMI type 17, 84 bytes\n"
	    "Memory Device\n"
	    "\tArray Handle: 0x0027\n"
	    "\tSize: No Module Installed\n";
	struct prov_err	 err = PROV_ERR_INIT;
	struct learn	 l;

	learn_init(&l);
	ck_assert_ok(learn_parse_dmi(&l, text, &err), &err);
	ck_assert_int_eq(l.memory_slots, 16);
	ck_assert(l.max_memory_gb == 2048);
	learn_release(&l);
	/* no type 16 record: each type 17 record is a socket */
	learn_init(&l);
	ck_assert_ok(learn_parse_dmi(&l, strstr(text, "Handle 0x0029"), &err),
	    &err);
	ck_assert_int_eq(l.memory_slots, 1);
	ck_assert(isnan(l.max_memory_gb));
	learn_release(&l);
}
END_TEST

/*
 * learn.sh's answer after facts.sh's: its own sections only.  SMBIOS
 * read: its slots, not sysfs's; dmidecode refused (no root): the
 * /sys/class/dmi/id names and the sysfs slots, and a note.
 */
START_TEST(test_script)
{
	struct prov_err	 err = PROV_ERR_INIT;
	struct learn	 l;
	struct buf	 b = BUF_INIT;
	char		*t = fixture("dmidecode-grace-slots.txt");

	buf_adds(&b, "@@facts hostname\nnode-a\n@@rc 0\n@@facts end\n");
	buf_addf(&b, "@@facts dmidecode\n%s@@rc 0\n", t);
	buf_adds(&b, "@@facts dmi-id\nsys_vendor\tNVIDIA\n"
	    "product_name\tGrace Test Bed\n");
	buf_adds(&b, "@@facts pci-slots\n9\t0000:17:00\t8.0 GT/s PCIe\n"
	    "@@facts end\n");
	learn_init(&l);
	ck_assert_ok(learn_parse_script(&l, b.buf, &err), &err);
	ck_assert_uint_eq(l.nslots, 3);
	ck_assert_str_eq(l.slots_from, "dmidecode");
	ck_assert_str_eq(l.vendor, "NVIDIA");
	ck_assert_str_eq(l.product, "Grace Test Bed");
	ck_assert_uint_eq(l.notes.n, 0);
	learn_release(&l);

	buf_reset(&b);
	buf_adds(&b, "@@facts dmidecode\n# dmidecode 3.4\n@@rc 1\n"
	    "@@facts dmi-id\nsys_vendor\tTo Be Filled By O.E.M.\n"
	    "product_name\t\n@@facts pci-slots\n"
	    "9\t0000:17:00\t8.0 GT/s PCIe\n@@facts end\n");
	learn_init(&l);
	ck_assert_ok(learn_parse_script(&l, b.buf, &err), &err);
	ck_assert_uint_eq(l.nslots, 1);
	ck_assert_str_eq(l.slots_from, "sysfs");
	ck_assert_int_eq(l.slots[0].gen, 3);
	ck_assert_ptr_null(l.vendor);
	ck_assert_uint_eq(l.notes.n, 2);
	ck_assert_ptr_nonnull(strstr(l.notes.v[0], "needs root"));
	learn_release(&l);

	/* not the script's answer at all */
	learn_init(&l);
	ck_assert_int_ne(learn_parse_script(&l, "@@facts os-release\n",
	    &err), 0);
	ck_assert_int_eq(err.code, PROV_E_PARSE);
	prov_err_release(&err);
	learn_release(&l);
	buf_release(&b);
	free(t);
}
END_TEST

/* The PSUs of the DMTF mockup's BMC in the draft, loaded back. */
START_TEST(test_draft_psu)
{
	struct prov_errs	 errs = PROV_ERRS_INIT;
	struct catalog		*cat = load_catalog();
	struct redfish_inv	 inv;
	struct learn		 l;
	struct buf		 b = BUF_INIT, j = BUF_INIT;
	struct yml_doc		 doc;
	struct prov_err		 err = PROV_ERR_INIT;
	const struct cat_system	*s;
	char			*rel = test_path(
	    "tests/fixtures/redfish/powersupply-Bay1.json");

	ck_assert_int_eq(buf_read_file(&j, rel), 0);
	ck_assert_ok(yml_load_json(&doc, rel, j.buf, j.len, &err), &err);
	redfish_inv_init(&inv);
	redfish_inv_add_psu(&inv, doc.root, "PowerSubsystem");
	redfish_inv_finish(&inv);
	learn_init(&l);
	learn_add_bmc(&l, &inv, "the BMC at 127.0.0.1");
	learn_draft(&b, &l, NULL, cat, "learned-psu");
	ck_assert_int_eq(catalog_load_buf(cat, "draft.yaml", b.buf, b.len,
	    &errs), 0);
	s = catalog_system(cat, "learned-psu");
	ck_assert_ptr_nonnull(s);
	ck_assert_int_eq(s->psu_count, 1);
	ck_assert_str_eq(s->psu_inlet, "C14");
	ck_assert_ptr_null(s->psu_redundancy);
	ck_assert_uint_eq(s->npsu_ratings, 2);
	ck_assert(s->psu_ratings[0].volts_min == 200 &&
	    s->psu_ratings[0].watts == 400);
	ck_assert_int_ge(strvec_find(&s->m.unconfirmed, "psu.inlet"), 0);
	ck_assert_int_ge(strvec_find(&s->m.unknown, "psu.redundancy"), 0);
	ck_assert_int_lt(strvec_find(&s->m.unknown, "psu"), 0);
	ck_assert_ptr_nonnull(strstr(b.buf, "# PlugType IEC_60320_C14"));
	learn_release(&l);
	redfish_inv_release(&inv);
	yml_doc_release(&doc);
	prov_errs_release(&errs);
	buf_release(&b);
	buf_release(&j);
	free(rel);
	catalog_free(cat);
}
END_TEST

static Suite *
learn_suite(void)
{
	Suite	*s = suite_create("learn");
	TCase	*tc = tcase_create("learn");

	tcase_add_test(tc, test_dmi_grace);
	tcase_add_test(tc, test_dmi_forms);
	tcase_add_test(tc, test_sysfs_slots);
	tcase_add_test(tc, test_draft_loads);
	tcase_add_test(tc, test_dmi_memory);
	tcase_add_test(tc, test_script);
	tcase_add_test(tc, test_draft_psu);
	suite_add_tcase(s, tc);
	return s;
}

TEST_MAIN(learn_suite)

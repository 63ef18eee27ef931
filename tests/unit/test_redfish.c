#include "test.h"

#include <math.h>

#include "buf.h"
#include "catalog.h"
#include "err.h"
#include "json.h"
#include "plan.h"
#include "row.h"
#include "redfish.h"
#include "str.h"
#include "strvec.h"
#include "yml.h"

/*
 * The pure half of lib/redfish.c against resources of the DMTF mockup
 * public-rackmount1 (tests/fixtures/redfish/README.md says which) and a
 * few hand-written ones after the schemas.  The dialogue with a BMC is
 * tested end to end against the emulator (tests/e2e/t040-bmc.sh).
 */

/* A fixture and its parsed tree. */
struct test_rf {
	struct buf	 text;
	struct yml_doc	 doc;
	const struct yml_node *root;
};

static void
test_rf_load(struct test_rf *t, const char *name)
{
	struct prov_err	 err = PROV_ERR_INIT;
	char		*rel = xasprintf("tests/fixtures/redfish/%s", name);
	char		*path = test_path(rel);

	t->text = (struct buf)BUF_INIT;
	ck_assert_msg(buf_read_file(&t->text, path) == 0, "cannot read %s",
	    path);
	ck_assert_ok(yml_load_json(&t->doc, name, t->text.buf, t->text.len,
	    &err), &err);
	t->root = t->doc.root;
	free(rel);
	free(path);
}

static void
test_rf_release(struct test_rf *t)
{
	yml_doc_release(&t->doc);
	buf_release(&t->text);
}

/* --- parsing ----------------------------------------------------------- */

START_TEST(test_redfish_service_root)
{
	struct test_rf	t;
	const struct yml_node *eq;

	test_rf_load(&t, "service-root.json");
	ck_assert_str_eq(redfish_link(t.root, "Systems"),
	    "/redfish/v1/Systems");
	ck_assert_str_eq(redfish_link(t.root, "Managers"),
	    "/redfish/v1/Managers");
	ck_assert_str_eq(redfish_link(yml_map_get(t.root, "Links"), "Sessions"),
	    "/redfish/v1/SessionService/Sessions");
	ck_assert_str_eq(redfish_str(t.root, "RedfishVersion"), "1.15.0");
	ck_assert_ptr_null(redfish_link(t.root, "NoSuchThing"));
	ck_assert_ptr_null(redfish_str(t.root, "Systems"));	/* an object */
	eq = yml_map_get(yml_map_get(t.root, "ProtocolFeaturesSupported"),
	    "ExpandQuery");
	ck_assert_ptr_nonnull(eq);
	ck_assert(isnan(redfish_num(t.root, "RedfishVersion")));
	test_rf_release(&t);
}
END_TEST

START_TEST(test_redfish_json_forms)
{
	/* Compact JSON, null, quoted "null", \u escapes, \/ and numbers. */
	static const char text[] =
	    "{\"a\":{\"@odata.id\":\"\\/redfish\\/v1\\/x\"},"
	    "\"n\":null,\"s\":\"null\",\"u\":\"caf\\u00e9\",\"w\":400,"
	    "\"f\":1.5e3,\"q\":\"400\",\"t\":true,"
	    "\"Members\":[{\"@odata.id\":\"/m/1\"},{\"@odata.id\":\"/m/2\"}]}";
	struct yml_doc	 doc;
	struct prov_err	 err = PROV_ERR_INIT;

	ck_assert_ok(yml_load_json(&doc, "t", text, strlen(text), &err), &err);
	ck_assert_str_eq(redfish_link(doc.root, "a"), "/redfish/v1/x");
	ck_assert_ptr_null(redfish_str(doc.root, "n"));
	ck_assert_str_eq(redfish_str(doc.root, "s"), "null");
	ck_assert_str_eq(redfish_str(doc.root, "u"), "caf\xc3\xa9");
	ck_assert(redfish_num(doc.root, "w") == 400);
	ck_assert(redfish_num(doc.root, "f") == 1500);
	ck_assert(isnan(redfish_num(doc.root, "q")));	/* a string */
	ck_assert_str_eq(redfish_first_member(doc.root), "/m/1");
	yml_doc_release(&doc);
}
END_TEST

static const struct {
	const char	*text;
	const char	*want;		/* in the message */
} bad_cases[] = {
	{ "", "empty answer" },
	{ "[1, 2]", "not a JSON object" },
	{ "<html><body>Bad Gateway</body></html>", "not a JSON object" },
	{ "Unauthorized", "not a JSON object" },
	{ "{\"a\": ", "not JSON" },
	{ "{\"a\": [1, 2}", "not JSON" },
};

START_TEST(test_redfish_parse_bad)
{
	struct yml_doc	 doc;
	struct prov_err	 err = PROV_ERR_INIT;
	const char	*text = bad_cases[_i].text;

	ck_assert_int_eq(yml_load_json(&doc, "/redfish/v1", text, strlen(text),
	    &err), -1);
	ck_assert_int_eq(err.code, PROV_E_PARSE);
	ck_assert_msg(strstr(err.msg, bad_cases[_i].want) != NULL,
	    "'%s' -> '%s'", text, err.msg);
	ck_assert_msg(str_starts(err.msg, "/redfish/v1: "), "%s", err.msg);
	prov_err_release(&err);
	yml_doc_release(&doc);
}
END_TEST

START_TEST(test_redfish_system)
{
	struct test_rf	 sys, coll;
	const struct yml_node *boot, *act, *links;

	test_rf_load(&coll, "systems.json");
	ck_assert_str_eq(redfish_first_member(coll.root),
	    "/redfish/v1/Systems/437XR1138R2");
	test_rf_load(&sys, "system.json");
	ck_assert_str_eq(redfish_str(sys.root, "PowerState"), "On");
	boot = yml_map_get(sys.root, "Boot");
	ck_assert_str_eq(redfish_str(boot, "BootSourceOverrideTarget"), "Pxe");
	ck_assert_str_eq(redfish_str(boot, "BootSourceOverrideEnabled"),
	    "Once");
	act = yml_map_get(yml_map_get(sys.root, "Actions"),
	    "#ComputerSystem.Reset");
	ck_assert_str_eq(redfish_str(act, "target"),
	    "/redfish/v1/Systems/437XR1138R2/Actions/ComputerSystem.Reset");
	ck_assert_str_eq(redfish_link(sys.root, "VirtualMedia"),
	    "/redfish/v1/Systems/437XR1138R2/VirtualMedia");
	links = yml_map_get(sys.root, "Links");
	ck_assert_ptr_nonnull(links);
	ck_assert_str_eq(redfish_first_member(coll.root),
	    redfish_str(sys.root, "@odata.id"));
	test_rf_release(&sys);
	test_rf_release(&coll);
}
END_TEST

START_TEST(test_redfish_error_message)
{
	struct test_rf	t;

	test_rf_load(&t, "error-400-two-messages.json");
	ck_assert_str_eq(redfish_error_message(t.root), "The value 'Floppy' "
	    "for the property Boot/BootSourceOverrideTarget is not in the list "
	    "of acceptable values.");
	test_rf_release(&t);
	test_rf_load(&t, "error-plain-message.json");
	ck_assert_str_eq(redfish_error_message(t.root), "The request failed "
	    "due to an internal service error.");
	test_rf_release(&t);
	test_rf_load(&t, "system.json");
	ck_assert_ptr_null(redfish_error_message(t.root));
	test_rf_release(&t);
}
END_TEST

/* --- power ------------------------------------------------------------- */

static const struct {
	enum redfish_action	 a;
	int			 graceful;
	const char		*allowed;	/* comma-separated; "" = any */
	const char		*power;
	const char		*want;		/* NULL: refused */
} reset_cases[] = {
	{ REDFISH_ON, 0, "", "Off", "On" },
	{ REDFISH_ON, 0, "", "On", "" },
	{ REDFISH_ON, 0, "ForceOn,ForceOff", "Off", "ForceOn" },
	{ REDFISH_ON, 0, "ForceOff", "Off", NULL },
	{ REDFISH_ON, 0, "", "PoweringOff", "On" },
	{ REDFISH_ON, 0, "", NULL, "On" },
	{ REDFISH_OFF, 0, "", "On", "ForceOff" },
	{ REDFISH_OFF, 1, "", "On", "GracefulShutdown" },
	{ REDFISH_OFF, 0, "", "Off", "" },
	{ REDFISH_OFF, 0, "On,GracefulShutdown", "On", NULL },
	{ REDFISH_OFF, 1, "On,ForceOff", "On", NULL },
	/* cycle: PowerCycle only when the BMC lists it */
	{ REDFISH_CYCLE, 0, "", "On", "ForceRestart" },
	{ REDFISH_CYCLE, 0, "On,ForceOff,ForceRestart,PowerCycle", "On",
	  "PowerCycle" },
	{ REDFISH_CYCLE, 0, "On,ForceOff,ForceRestart", "On", "ForceRestart" },
	{ REDFISH_CYCLE, 0, "On,ForceOff", "On", NULL },
	{ REDFISH_CYCLE, 0, "On,ForceOff,PowerCycle", "Off", "On" },
	{ REDFISH_RESET, 0, "", "On", "ForceRestart" },
	{ REDFISH_RESET, 1, "", "On", "GracefulRestart" },
	{ REDFISH_RESET, 0, "On,GracefulRestart", "On", NULL },
	{ REDFISH_STATUS, 0, "", "On", NULL },
};

START_TEST(test_redfish_reset_type)
{
	struct strvec	 allowed = STRVEC_INIT;
	const char	*got, *why;

	strvec_split(&allowed, reset_cases[_i].allowed, ',', 1);
	got = redfish_reset_type(reset_cases[_i].a, reset_cases[_i].graceful,
	    &allowed, reset_cases[_i].power, &why);
	if (reset_cases[_i].want == NULL) {
		ck_assert_msg(got == NULL, "case %d: got '%s'", _i, got);
		ck_assert_ptr_nonnull(why);
	} else {
		ck_assert_msg(got != NULL, "case %d: refused: %s", _i, why);
		ck_assert_str_eq(got, reset_cases[_i].want);
	}
	strvec_clear(&allowed);
}
END_TEST

START_TEST(test_redfish_action_names)
{
	ck_assert_str_eq(redfish_action_name(REDFISH_STATUS), "status");
	ck_assert_str_eq(redfish_action_name(REDFISH_MEDIA_EJECT),
	    "media eject");
	ck_assert_str_eq(redfish_action_name(REDFISH_INVENTORY), "inventory");
	ck_assert_str_eq(redfish_action_name((enum redfish_action)99), "?");
}
END_TEST

/* --- virtual media ----------------------------------------------------- */

START_TEST(test_redfish_media)
{
	struct test_rf	cd, fl, coll;
	const struct yml_node *m;

	test_rf_load(&cd, "virtualmedia-CD1.json");
	test_rf_load(&fl, "virtualmedia-Floppy1.json");
	test_rf_load(&coll, "virtualmedia.json");
	ck_assert_int_eq(redfish_media_is_cd(cd.root), 1);
	ck_assert_int_eq(redfish_media_is_cd(fl.root), 0);
	/* The collection lists the floppy first: the CD is not the first. */
	m = yml_map_get(coll.root, "Members");
	ck_assert_int_eq(m->n, 2);
	ck_assert_str_eq(redfish_first_member(coll.root),
	    "/redfish/v1/Systems/437XR1138R2/VirtualMedia/Floppy1");
	ck_assert_str_eq(redfish_str(cd.root, "Image"),
	    "redfish.dmtf.org/freeImages/freeOS.1.1.iso");
	test_rf_release(&cd);
	test_rf_release(&fl);
	test_rf_release(&coll);
}
END_TEST

/* --- inventory --------------------------------------------------------- */

static void
test_rf_add(struct redfish_inv *inv, const char *name,
    void (*add)(struct redfish_inv *, const struct yml_node *))
{
	struct test_rf	t;

	test_rf_load(&t, name);
	add(inv, t.root);
	test_rf_release(&t);
}

static void
test_rf_add_psu(struct redfish_inv *inv, const struct yml_node *n)
{
	redfish_inv_add_psu(inv, n, "PowerSubsystem");
}

START_TEST(test_redfish_inv_mockup)
{
	struct redfish_inv	inv;
	struct buf		b = BUF_INIT;
	struct json_writer	jw;

	redfish_inv_init(&inv);
	test_rf_add(&inv, "system.json", redfish_inv_add_system);
	test_rf_add(&inv, "processor-CPU1.json", redfish_inv_add_processor);
	test_rf_add(&inv, "processor-CPU2.json", redfish_inv_add_processor);
	test_rf_add(&inv, "processor-FPGA1.json", redfish_inv_add_processor);
	test_rf_add(&inv, "memory-DIMM1.json", redfish_inv_add_memory);
	test_rf_add(&inv, "memory-DIMM2.json", redfish_inv_add_memory);
	test_rf_add(&inv, "memory-DIMM3.json", redfish_inv_add_memory);
	test_rf_add(&inv, "memory-DIMM4.json", redfish_inv_add_memory);
	test_rf_add(&inv, "powersupply-Bay1.json", test_rf_add_psu);
	test_rf_add(&inv, "powersupply-Bay2.json", test_rf_add_psu);
	redfish_inv_finish(&inv);

	/* CPU2, DIMM4 and Bay2 are "Absent"; the FPGA is no CPU. */
	ck_assert_int_eq(inv.cpus, 1);
	ck_assert_str_eq(inv.cpu_model,
	    "Multi-Core Intel(R) Xeon(R) processor 7xxx Series");
	ck_assert_int_eq(inv.cpu_cores, 8);
	ck_assert(inv.mem_gib == 96);
	ck_assert_int_eq(inv.dimms, 3);
	ck_assert_int_eq(inv.psus, 1);
	ck_assert(inv.psu_watts_min == 400 && inv.psu_watts_max == 400);
	ck_assert_str_eq(inv.psu_source, "PowerSubsystem");
	/* Bay1's plug and its AC ranges; the DC380V one is left out */
	ck_assert_str_eq(inv.psu_plug, "IEC_60320_C14");
	ck_assert_int_eq(inv.psu_plugs_differ, 0);
	ck_assert_str_eq(redfish_plug_inlet(inv.psu_plug), "C14");
	ck_assert_uint_eq(inv.npsu_ranges, 2);
	ck_assert(inv.psu_ranges[0].volts_min == 200 &&
	    inv.psu_ranges[0].volts_max == 240 &&
	    inv.psu_ranges[0].watts == 400);
	ck_assert(inv.psu_ranges[1].volts_min == 120 &&
	    inv.psu_ranges[1].volts_max == 120 &&
	    inv.psu_ranges[1].watts == 350);
	/* a group of two bays, one of them empty: no redundancy to say */
	test_rf_add(&inv, "powersubsystem.json",
	    redfish_inv_add_psu_redundancy);
	redfish_inv_finish(&inv);
	ck_assert_int_eq(inv.psu_group, 2);
	ck_assert_int_eq(inv.psu_needed, 1);
	ck_assert_ptr_null(inv.psu_redundancy);
	ck_assert_int_eq(inv.gpus, -1);	/* no PCIe devices listed */
	ck_assert_int_eq(inv.sum_cpus, 2);	/* the mockup's summary */
	redfish_inv_summary(&b, &inv);
	ck_assert_str_eq(b.buf, "1 CPU, 96 GiB, GPUs ?, 1 PSU x 400 W");
	buf_reset(&b);
	json_init(&jw, &b);
	redfish_inv_to_json(&jw, NULL, &inv);
	ck_assert_msg(strstr(b.buf, "\"cpus\": 1, ") != NULL, "%s", b.buf);
	ck_assert_msg(strstr(b.buf, "\"gpus\": null, ") != NULL, "%s", b.buf);
	ck_assert_msg(strstr(b.buf, "\"memory_gib\": 96, ") != NULL, "%s",
	    b.buf);
	buf_release(&b);
	redfish_inv_release(&inv);
}
END_TEST

START_TEST(test_redfish_inv_summaries_only)
{
	struct redfish_inv	inv;

	/* A BMC that lists no processors or DIMMs: the summaries count. */
	redfish_inv_init(&inv);
	test_rf_add(&inv, "system.json", redfish_inv_add_system);
	redfish_inv_finish(&inv);
	ck_assert_int_eq(inv.cpus, 2);
	ck_assert_str_eq(inv.cpu_model,
	    "Multi-Core Intel(R) Xeon(R) processor 7xxx Series");
	ck_assert(inv.mem_gib == 96);
	ck_assert_int_eq(inv.psus, -1);
	redfish_inv_release(&inv);
}
END_TEST

START_TEST(test_redfish_inv_power_old)
{
	struct redfish_inv	 inv;
	struct test_rf		 t;
	const struct yml_node	*ps;
	size_t			 i;

	/* The deprecated Power resource: PowerSupplies inline. */
	redfish_inv_init(&inv);
	test_rf_load(&t, "chassis-power.json");
	ps = yml_map_get(t.root, "PowerSupplies");
	ck_assert_ptr_nonnull(ps);
	for (i = 0; i < ps->n; i++)
		redfish_inv_add_psu(&inv, ps->u.items[i], "Power");
	ck_assert_int_eq(inv.psus, 1);
	ck_assert(inv.psu_watts_min == 800);
	ck_assert_str_eq(inv.psu_source, "Power");
	/* Power's ranges are volts and OutputWattage; no PlugType there */
	ck_assert_ptr_null(inv.psu_plug);
	ck_assert_uint_eq(inv.npsu_ranges, 2);
	ck_assert(inv.psu_ranges[0].volts_min == 100 &&
	    inv.psu_ranges[0].volts_max == 120 &&
	    inv.psu_ranges[0].watts == 800);
	ck_assert(inv.psu_ranges[1].volts_min == 200 &&
	    inv.psu_ranges[1].watts == 1300);
	test_rf_release(&t);
	redfish_inv_release(&inv);

	/* The bladed enclosure: two supplies, one needed of the two */
	redfish_inv_init(&inv);
	test_rf_load(&t, "power-bladed.json");
	ps = yml_map_get(t.root, "PowerSupplies");
	for (i = 0; i < ps->n; i++)
		redfish_inv_add_psu(&inv, ps->u.items[i], "Power");
	redfish_inv_add_psu_redundancy(&inv, t.root);
	redfish_inv_finish(&inv);
	ck_assert_int_eq(inv.psus, 2);
	ck_assert_str_eq(inv.psu_redundancy, "1+1");
	ck_assert_uint_eq(inv.npsu_ranges, 1);
	ck_assert(inv.psu_ranges[0].volts_min == 185 &&
	    inv.psu_ranges[0].volts_max == 250 &&
	    inv.psu_ranges[0].watts == 1450);
	test_rf_release(&t);
	redfish_inv_release(&inv);
}
END_TEST

START_TEST(test_redfish_plug_inlet)
{
	ck_assert_str_eq(redfish_plug_inlet("IEC_60320_C20"), "C20");
	ck_assert_str_eq(redfish_plug_inlet("IEC_60320_C16"), "C16");
	/* an outlet's name, a NEMA plug: no inlet of the catalog's */
	ck_assert_ptr_null(redfish_plug_inlet("IEC_60320_C13"));
	ck_assert_ptr_null(redfish_plug_inlet("NEMA_5_15P"));
	ck_assert_ptr_null(redfish_plug_inlet(NULL));
}
END_TEST

START_TEST(test_redfish_inv_pcie)
{
	struct redfish_inv	 inv;
	struct test_rf		 gdev, gfn, vdev, vfn, nfn;
	const struct yml_node	*fns[3];

	redfish_inv_init(&inv);
	test_rf_load(&gdev, "pcie-gpu-device.json");
	test_rf_load(&gfn, "pcie-gpu-function.json");
	test_rf_load(&vdev, "pcie-vga-device.json");
	test_rf_load(&vfn, "pcie-vga-function.json");
	test_rf_load(&nfn, "pcie-nic-function.json");

	fns[0] = vfn.root;		/* the BMC's VGA: no GPU */
	fns[1] = NULL;
	redfish_inv_add_pcie(&inv, vdev.root, fns);
	ck_assert_int_eq(inv.gpus_by_pcie, 0);
	fns[0] = gfn.root;		/* H100 */
	redfish_inv_add_pcie(&inv, gdev.root, fns);
	fns[0] = nfn.root;		/* a NIC */
	redfish_inv_add_pcie(&inv, gdev.root, fns);
	fns[0] = gfn.root;		/* two GPU functions: still one GPU */
	fns[1] = gfn.root;
	fns[2] = NULL;
	redfish_inv_add_pcie(&inv, gdev.root, fns);
	redfish_inv_finish(&inv);

	ck_assert_int_eq(inv.pcie_devices, 4);
	ck_assert_int_eq(inv.gpus_by_pcie, 2);
	ck_assert_int_eq(inv.gpus, 2);
	ck_assert_int_eq(inv.gpu_pci_ids.n, 2);
	ck_assert_str_eq(inv.gpu_pci_ids.v[0], "10de:2330");
	ck_assert_str_eq(inv.gpu_model, "H100 SXM5 80GB");

	test_rf_release(&gdev);
	test_rf_release(&gfn);
	test_rf_release(&vdev);
	test_rf_release(&vfn);
	test_rf_release(&nfn);
	redfish_inv_release(&inv);
}
END_TEST

/* --- vendor shapes ------------------------------------------------------ */

/* A JSON text as a tree, for the small documents written inline. */
static const struct yml_node *
test_rf_json(struct yml_doc *doc, const char *text)
{
	struct prov_err	err = PROV_ERR_INIT;

	ck_assert_ok(yml_load_json(doc, "t", text, strlen(text), &err), &err);
	return doc->root;
}

static const struct {
	const char	*json;
	long		 max, want;
} pci_cases[] = {
	{ "{\"v\": \"0x10de\"}", 0xffff, 0x10de },	/* the schema's form */
	{ "{\"v\": \"0x10DE\"}", 0xffff, 0x10de },
	{ "{\"v\": \"4318\"}", 0xffff, 0x10de },	/* iLO: decimal */
	{ "{\"v\": \"4139\"}", 0xffff, 0x102b },	/* Matrox, not 0x4139 */
	{ "{\"v\": 4318}", 0xffff, 0x10de },		/* a number */
	{ "{\"v\": \"10de\"}", 0xffff, 0x10de },	/* bare hex */
	{ "{\"v\": \"030200\"}", 0xffffff, 0x030200 },	/* leading zero: hex */
	{ "{\"v\": \"0x030200\"}", 0xffffff, 0x030200 },
	{ "{\"v\": \"0x1ffff\"}", 0xffff, -1 },		/* too big */
	{ "{\"v\": \"99999\"}", 0xffff, -1 },
	{ "{\"v\": \"GPU\"}", 0xffff, -1 },
	{ "{\"v\": \"\"}", 0xffff, -1 },
	{ "{\"v\": null}", 0xffff, -1 },
	{ "{\"v\": -3}", 0xffff, -1 },
	{ "{}", 0xffff, -1 },
};

START_TEST(test_redfish_pci_num)
{
	struct yml_doc	doc;

	ck_assert_int_eq(redfish_pci_num(test_rf_json(&doc,
	    pci_cases[_i].json), "v", pci_cases[_i].max), pci_cases[_i].want);
	yml_doc_release(&doc);
}
END_TEST

START_TEST(test_redfish_uri_id)
{
	static const char *const cases[][2] = {
		{ "/redfish/v1/Systems/1/", "1" },	/* iLO */
		{ "/redfish/v1/Systems/437XR1138R2", "437XR1138R2" },
		{ "/redfish/v1/Managers/BMC/VirtualMedia/CD1//", "CD1" },
		{ "/redfish/v1/Systems/System.Embedded.1?$expand=.",
		  "System.Embedded.1" },
		{ "CD1", "CD1" },
	};
	size_t	i;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		char	*id = redfish_uri_id(cases[i][0]);

		ck_assert_str_eq(id, cases[i][1]);
		free(id);
	}
}
END_TEST

static const struct {
	const char	*ids, *types;	/* comma-separated; "" unknown */
	const char	*want;
	long		 pick;
	const char	*why;		/* in the message */
} pick_cases[] = {
	{ "1", "", NULL, 0, NULL },
	{ "1", "", "1", 0, NULL },
	{ "437XR1138R2,Card1-SoC", "Physical,DPU", NULL, 0, NULL },
	{ "Card1-SoC,437XR1138R2", "DPU,Physical", NULL, 1, NULL },
	{ "Card1-SoC,437XR1138R2", "DPU,Physical", "Card1-SoC", 0, NULL },
	{ "B1,B2,B3,B4", "Physical,Physical,Physical,Physical", NULL, -1,
	  "the BMC has 4 systems (B1, B2, B3, B4): name the node's in "
	  "bmc.system" },
	{ "B1,B2,B3,B4", ",,,", "B3", 2, NULL },
	{ "B1,B2,B3,B4", ",,,", "2", 1, NULL },	/* an index from 1 */
	{ "2,1", ",", "1", 1, NULL },		/* an id wins over an index */
	{ "B1,B2", ",", "5", -1, "the BMC has no system '5' (its systems: "
	  "B1, B2;" },
	{ "B1,B2", ",", "0", -1, "no system '0'" },
	{ "D1,D2", "DPU,DPU", NULL, -1, "only systems are DPUs (D1 (DPU), "
	  "D2 (DPU))" },
};

static void
test_split(struct strvec *sv, const char *s)
{
	const char	*p = s;

	for (;;) {
		size_t	n = strcspn(p, ",");

		strvec_push_nodup(sv, xstrndup(p, n));
		if (p[n] == '\0')
			break;
		p += n + 1;
	}
}

START_TEST(test_redfish_pick_system)
{
	struct strvec	 ids = STRVEC_INIT, types = STRVEC_INIT;
	char		*why = NULL;
	long		 k;

	test_split(&ids, pick_cases[_i].ids);
	test_split(&types, pick_cases[_i].types);
	k = redfish_pick_system(&ids, &types, pick_cases[_i].want, &why);
	ck_assert_int_eq(k, pick_cases[_i].pick);
	if (pick_cases[_i].why != NULL)
		ck_assert_msg(why != NULL && strstr(why, pick_cases[_i].why),
		    "%s", why ? why : "(null)");
	else
		ck_assert_ptr_null(why);
	free(why);
	strvec_clear(&ids);
	strvec_clear(&types);
}
END_TEST

static const struct {
	const char	*json;
	int		 rank;
} media_cases[] = {
	{ "{\"Id\": \"CD1\", \"MediaTypes\": [\"CD\", \"DVD\"]}", 3 },
	{ "{\"Id\": \"Floppy1\", \"MediaTypes\": [\"Floppy\", \"USBStick\"], "
	  "\"Actions\": {\"#VirtualMedia.InsertMedia\": {\"target\": \"/x\"}}}",
	  0 },
	/* AMI MegaRAC: no MediaTypes, the actions say what it can do */
	{ "{\"Id\": \"CD1\", \"Actions\": {\"#VirtualMedia.InsertMedia\": "
	  "{\"target\": \"/x\"}, \"#VirtualMedia.EjectMedia\": "
	  "{\"target\": \"/y\"}}}", 2 },
	{ "{\"Id\": \"1\", \"Name\": \"Virtual DVD\", \"MediaTypes\": [], "
	  "\"Actions\": {\"#VirtualMedia.InsertMedia\": {\"target\": \"/x\"}}}",
	  2 },
	{ "{\"Id\": \"Slot2\", \"Actions\": {\"#VirtualMedia.InsertMedia\": "
	  "{\"target\": \"/x\"}}}", 1 },
	{ "{\"Id\": \"CD2\"}", 0 },		/* nothing to insert with */
};

START_TEST(test_redfish_media_rank)
{
	struct yml_doc	doc;

	ck_assert_int_eq(redfish_media_rank(test_rf_json(&doc,
	    media_cases[_i].json)), media_cases[_i].rank);
	yml_doc_release(&doc);
}
END_TEST

START_TEST(test_redfish_boot_enabled)
{
	struct strvec	 any = STRVEC_INIT, once = STRVEC_INIT;
	struct strvec	 cont = STRVEC_INIT;
	const char	*why;

	strvec_push(&once, "Once");
	strvec_push(&once, "Disabled");
	strvec_push(&cont, "Continuous");
	ck_assert_str_eq(redfish_boot_enabled(0, &any, &why), "Continuous");
	ck_assert_str_eq(redfish_boot_enabled(1, &any, &why), "Once");
	/* Once-only BMCs: until changed becomes Once, and is said so */
	ck_assert_str_eq(redfish_boot_enabled(0, &once, &why), "Once");
	ck_assert_str_eq(redfish_boot_enabled(1, &once, &why), "Once");
	ck_assert_ptr_null(redfish_boot_enabled(1, &cont, &why));
	ck_assert_msg(strstr(why, "(Once)") != NULL, "%s", why);
	ck_assert_str_eq(redfish_boot_enabled(0, &cont, &why), "Continuous");
	strvec_clear(&once);
	strvec_clear(&cont);
}
END_TEST

START_TEST(test_redfish_inv_gpus_unknown)
{
	struct redfish_inv	 inv;
	struct test_rf		 gdev, gfn;
	const struct yml_node	*fns[2];

	/* An empty PCIe device list is no proof of 0 GPUs. */
	redfish_inv_init(&inv);
	inv.pcie_devices = inv.gpus_by_pcie = 0;
	redfish_inv_finish(&inv);
	ck_assert_int_eq(inv.gpus, -1);
	ck_assert_msg(strstr(inv.gpus_why, "list is empty") != NULL, "%s",
	    inv.gpus_why);
	redfish_inv_release(&inv);

	/* iDRAC: every link answered 404. */
	redfish_inv_init(&inv);
	inv.pcie_unreadable = 8;
	redfish_inv_finish(&inv);
	ck_assert_int_eq(inv.gpus, -1);
	ck_assert_str_eq(inv.gpus_why, "8 of 8 PCIe device links could not "
	    "be read (0 GPUs among the rest)");
	redfish_inv_release(&inv);

	/* Some read, some not: the GPUs seen are no count either. */
	redfish_inv_init(&inv);
	test_rf_load(&gdev, "pcie-gpu-device.json");
	test_rf_load(&gfn, "pcie-gpu-function.json");
	fns[0] = gfn.root;
	fns[1] = NULL;
	redfish_inv_add_pcie(&inv, gdev.root, fns);
	inv.pcie_unreadable = 1;
	redfish_inv_finish(&inv);
	ck_assert_int_eq(inv.gpus, -1);	/* 1 of how many? */
	ck_assert_str_eq(inv.gpus_why, "1 of 2 PCIe device links could not "
	    "be read (1 GPU among the rest)");
	redfish_inv_release(&inv);
	test_rf_release(&gdev);
	test_rf_release(&gfn);
}
END_TEST

START_TEST(test_redfish_inv_oem_hpe)
{
	/* iLO 5 HpeServerPciDevice: decimal numbers; 4318 = 0x10de. */
	static const char a100[] = "{\"Name\": \"NVIDIA A100-SXM4-40GB\", "
	    "\"VendorID\": 4318, \"DeviceID\": 8368, \"ClassCode\": 3, "
	    "\"SubclassCode\": 2}";
	static const char vga[] = "{\"Name\": \"Embedded Video Controller\", "
	    "\"VendorID\": 4139, \"DeviceID\": 1336, \"ClassCode\": 3, "
	    "\"SubclassCode\": 0}";
	static const char nic[] = "{\"Name\": \"HPE Ethernet 10Gb\", "
	    "\"VendorID\": 5348, \"DeviceID\": 5719, \"ClassCode\": 2}";
	struct redfish_inv	inv;
	struct yml_doc		d1, d2, d3;
	int			i;

	redfish_inv_init(&inv);
	test_rf_json(&d1, a100);
	test_rf_json(&d2, vga);
	test_rf_json(&d3, nic);
	redfish_inv_add_oem_pci(&inv, d2.root);
	redfish_inv_add_oem_pci(&inv, d3.root);
	for (i = 0; i < 8; i++)
		redfish_inv_add_oem_pci(&inv, d1.root);
	/* the standard list has only the VGA: no GPU there */
	inv.pcie_devices = 1;
	inv.gpus_by_pcie = 0;
	redfish_inv_finish(&inv);
	ck_assert_int_eq(inv.gpus, 8);
	ck_assert_int_eq(inv.gpu_pci_ids.n, 8);
	ck_assert_str_eq(inv.gpu_pci_ids.v[0], "10de:20b0");
	ck_assert_str_eq(inv.gpu_model, "NVIDIA A100-SXM4-40GB");
	yml_doc_release(&d1);
	yml_doc_release(&d2);
	yml_doc_release(&d3);
	redfish_inv_release(&inv);
}
END_TEST

START_TEST(test_redfish_power_readings)
{
	struct redfish_inv	inv;
	struct test_rf		pw, psu, env;
	struct buf		b = BUF_INIT;

	/* The deprecated Power resource: PowerControl, LineInputVoltage. */
	redfish_inv_init(&inv);
	test_rf_load(&pw, "chassis-power.json");
	redfish_inv_add_power_readings(&inv, pw.root);
	redfish_inv_finish(&inv);
	ck_assert(!isnan(inv.watts));
	ck_assert_str_eq(inv.watts_source, "PowerControl");
	redfish_inv_release(&inv);

	/* PowerSupplyMetrics, then EnvironmentMetrics wins. */
	redfish_inv_init(&inv);
	test_rf_load(&psu, "psu-metrics-liquid.json");
	test_rf_load(&env, "env-metrics-liquid.json");
	redfish_inv_add_psu_metrics(&inv, psu.root);
	redfish_inv_finish(&inv);
	ck_assert(inv.watts == 937.4);
	ck_assert_str_eq(inv.watts_source, "PSU input");
	ck_assert(inv.psu_volts_min == 230.2);
	redfish_inv_add_env_metrics(&inv, env.root);
	redfish_inv_finish(&inv);
	ck_assert(inv.watts == 374);
	ck_assert_str_eq(inv.watts_source, "EnvironmentMetrics");
	redfish_power_summary(&b, &inv);
	ck_assert_str_eq(b.buf, "374 W (EnvironmentMetrics), PSUs at 230.2 V");
	buf_release(&b);
	redfish_inv_release(&inv);
	test_rf_release(&pw);
	test_rf_release(&psu);
	test_rf_release(&env);
}
END_TEST

/* --- drift against the plan -------------------------------------------- */

static const char compare_plan[] =
    "version: 1\n"
    "cluster: { name: t }\n"
    "hardware:\n"
    "  dgx: { system: dgx-h100 }\n"
    "  lab: { system: dgx-h100, memory_gb: 1024,\n"
    "         psu: { count: 2, watts: 2000 } }\n"
    "nodes:\n"
    "  - { name: g01, hardware: dgx, address: 10.0.0.1 }\n"
    "  - { name: l01, hardware: lab, address: 10.0.0.2 }\n"
    "  - { name: x01, address: 10.0.0.3 }\n";

struct test_cmp {
	struct plan		*p;
	struct plan_opts	 opts;
	char			*profiles;
	struct redfish_inv	 inv;
	struct rows		 rows;
};

static void
test_cmp_setup(struct test_cmp *t)
{
	struct prov_errs	errs = PROV_ERRS_INIT;
	int			i;

	memset(t, 0, sizeof *t);
	t->opts = (struct plan_opts)PLAN_OPTS_INIT;
	t->profiles = test_path("profiles");
	t->opts.builtin_dir = t->profiles;
	if (plan_load_buf(&t->p, "plan.yaml", compare_plan,
	    strlen(compare_plan), &t->opts, &errs) != 0) {
		prov_errs_print(&errs, stderr);
		ck_abort_msg("the test plan does not load");
	}
	prov_errs_release(&errs);
	/* What a DGX H100 BMC would report. */
	redfish_inv_init(&t->inv);
	t->inv.cpus = 2;
	t->inv.cpu_model = xstrdup("Intel(R) Xeon(R) Platinum 8480C");
	t->inv.mem_gib = 2048;
	t->inv.gpus = 8;
	for (i = 0; i < 8; i++)
		strvec_push(&t->inv.gpu_pci_ids, "10de:2330");
	t->inv.psus = 6;
	t->inv.psu_watts_min = t->inv.psu_watts_max = 3300;
	t->rows = (struct rows)ROWS_INIT;
}

static void
test_cmp_release(struct test_cmp *t)
{
	rows_release(&t->rows);
	redfish_inv_release(&t->inv);
	plan_free(t->p);
	free(t->profiles);
}

static const struct row *
test_cmp_row(const struct rows *rows, const char *what)
{
	size_t	i;

	for (i = 0; i < rows->n; i++)
		if (strcmp(rows->v[i].what, what) == 0)
			return &rows->v[i];
	ck_abort_msg("no row '%s'", what);
	return NULL;
}

static void
test_cmp_run(struct test_cmp *t, const char *node)
{
	const struct plan_node	*nd = plan_node(t->p, node);

	ck_assert_ptr_nonnull(nd);
	rows_release(&t->rows);
	redfish_compare(&t->rows, nd, &t->inv, t->p->catalog);
}

START_TEST(test_redfish_compare_match)
{
	struct test_cmp		t;
	struct buf		b = BUF_INIT;
	struct json_writer	jw;
	size_t			i;

	test_cmp_setup(&t);
	test_cmp_run(&t, "g01");
	ck_assert_int_eq(t.rows.n, 7);
	for (i = 0; i < t.rows.n; i++)
		ck_assert_msg(t.rows.v[i].verdict == ROW_OK, "%s: %s vs %s",
		    t.rows.v[i].what, t.rows.v[i].limit, t.rows.v[i].measured);
	ck_assert_str_eq(test_cmp_row(&t.rows, "memory")->limit, "2048 GB");
	ck_assert_str_eq(test_cmp_row(&t.rows, "memory")->measured, "2048 GiB");
	ck_assert_str_eq(test_cmp_row(&t.rows, "psu watts")->limit,
	    "3300 W");
	ck_assert_str_eq(test_cmp_row(&t.rows, "gpu model")->measured,
	    "h100-sxm5");
	json_init(&jw, &b);
	rows_to_json(&jw, NULL, &t.rows);
	ck_assert_msg(str_starts(b.buf, "[\n  {\"verdict\": \"ok\", "
	    "\"group\": null, \"subject\": \"g01\", \"check\": \"cpu count\", "
	    "\"measured\": \"2\", \"limit\": \"2\", \"hint\": null, "
	    "\"value\": null, \"max\": null}"), "%s", b.buf);
	buf_release(&b);
	test_cmp_release(&t);
}
END_TEST

/* One change to what the BMC reports, and the row it must turn. */
static const struct {
	const char		*what;
	long			 cpus, gpus, psus;
	double			 mem, watts;
	const char		*model, *pci;
	enum row_verdict	 want;
} drift_cases[] = {
	{ "cpu count", 1, 8, 6, 2048, 3300, NULL, NULL, ROW_FAIL },
	{ "cpu count", -1, 8, 6, 2048, 3300, NULL, NULL, ROW_SKIP },
	{ "cpu model", 2, 8, 6, 2048, 3300, "AMD EPYC 7763 64-Core Processor",
	  NULL, ROW_WARN },
	{ "cpu model", 2, 8, 6, 2048, 3300, "Intel(R) Xeon(R) Platinum 8480+",
	  NULL, ROW_WARN },
	{ "memory", 2, 8, 6, 1900, 3300, NULL, NULL, ROW_FAIL },
	{ "memory", 2, 8, 6, 2000, 3300, NULL, NULL, ROW_OK },
	{ "memory", 2, 8, 6, 4096, 3300, NULL, NULL, ROW_WARN },
	{ "memory", 2, 8, 6, NAN, 3300, NULL, NULL, ROW_SKIP },
	{ "gpu count", 2, 7, 6, 2048, 3300, NULL, NULL, ROW_FAIL },
	{ "gpu count", 2, -1, 6, 2048, 3300, NULL, NULL, ROW_SKIP },
	{ "gpu model", 2, 8, 6, 2048, 3300, NULL, "10de:20b0", ROW_FAIL },
	{ "gpu model", 2, 8, 6, 2048, 3300, NULL, "10de:ffff", ROW_FAIL },
	{ "psu count", 2, 8, 4, 2048, 3300, NULL, NULL, ROW_FAIL },
	{ "psu watts", 2, 8, 6, 2048, 2700, NULL, NULL, ROW_FAIL },
	{ "psu watts", 2, 8, 6, 2048, 3600, NULL, NULL, ROW_WARN },
	{ "psu watts", 2, 8, 6, 2048, NAN, NULL, NULL, ROW_SKIP },
};

START_TEST(test_redfish_compare_drift)
{
	struct test_cmp		 t;
	const struct row	*row;
	size_t			 i;

	test_cmp_setup(&t);
	t.inv.cpus = drift_cases[_i].cpus;
	t.inv.gpus = drift_cases[_i].gpus;
	t.inv.psus = drift_cases[_i].psus;
	t.inv.mem_gib = drift_cases[_i].mem;
	t.inv.psu_watts_min = t.inv.psu_watts_max = drift_cases[_i].watts;
	if (drift_cases[_i].model != NULL) {
		free(t.inv.cpu_model);
		t.inv.cpu_model = xstrdup(drift_cases[_i].model);
	}
	if (drift_cases[_i].pci != NULL) {
		free(t.inv.gpu_pci_ids.v[3]);
		t.inv.gpu_pci_ids.v[3] = xstrdup(drift_cases[_i].pci);
	}
	test_cmp_run(&t, "g01");
	row = test_cmp_row(&t.rows, drift_cases[_i].what);
	ck_assert_msg(row->verdict == drift_cases[_i].want, "case %d: %s is "
	    "%s, want %s (%s)", _i, row->what, row_verdict_name(
	    row->verdict), row_verdict_name(drift_cases[_i].want),
	    row->hint ? row->hint : "");
	if (row->verdict != ROW_OK)
		ck_assert_ptr_nonnull(row->hint);
	/* Only that row turned. */
	for (i = 0; i < t.rows.n; i++)
		if (strcmp(t.rows.v[i].what, drift_cases[_i].what) != 0)
			ck_assert_msg(t.rows.v[i].verdict == ROW_OK, "case "
			    "%d: %s is %s too", _i, t.rows.v[i].what,
			    row_verdict_name(t.rows.v[i].verdict));
	test_cmp_release(&t);
}
END_TEST

START_TEST(test_redfish_compare_plan_overrides)
{
	struct test_cmp	t;

	/* l01 plans 1024 GB and 2 x 2000 W PSUs over the system's. */
	test_cmp_setup(&t);
	t.inv.mem_gib = 1024;
	t.inv.psus = 2;
	t.inv.psu_watts_min = t.inv.psu_watts_max = 2000;
	test_cmp_run(&t, "l01");
	ck_assert_int_eq(rows_count(&t.rows, ROW_OK), t.rows.n);
	ck_assert_str_eq(test_cmp_row(&t.rows, "psu count")->limit, "2");
	/* No hardware: one skip row. */
	test_cmp_run(&t, "x01");
	ck_assert_int_eq(t.rows.n, 1);
	ck_assert_int_eq(t.rows.v[0].verdict, ROW_SKIP);
	ck_assert_str_eq(t.rows.v[0].what, "hardware");
	test_cmp_release(&t);
}
END_TEST

/* --- passwords --------------------------------------------------------- */

static char *
test_rf_tmpfile(const char *content)
{
	char	*path = xstrdup("/tmp/test_redfish_pw.XXXXXX");
	int	 fd = mkstemp(path);

	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, content, strlen(content)),
	    (ssize_t)strlen(content));
	close(fd);
	return path;
}

START_TEST(test_redfish_password)
{
	struct plan_bmc	 bmc;
	struct prov_err	 err = PROV_ERR_INIT;
	char		*pw = NULL, *f1, *f2, *f3;

	memset(&bmc, 0, sizeof bmc);
	f1 = test_rf_tmpfile("from-file\nsecond line\n");
	f2 = test_rf_tmpfile("crlf-pw\r\n");
	f3 = test_rf_tmpfile("\nlater\n");

	/* The environment first. */
	setenv("TEST_REDFISH_PW", "from-env", 1);
	bmc.password_env = "TEST_REDFISH_PW";
	bmc.password_file = f1;
	ck_assert_ok(redfish_password_load(&pw, &bmc, &err), &err);
	ck_assert_str_eq(pw, "from-env");
	freezero_str(pw);

	/* Unset: the file's first line. */
	unsetenv("TEST_REDFISH_PW");
	ck_assert_ok(redfish_password_load(&pw, &bmc, &err), &err);
	ck_assert_str_eq(pw, "from-file");
	freezero_str(pw);
	bmc.password_file = f2;
	ck_assert_ok(redfish_password_load(&pw, &bmc, &err), &err);
	ck_assert_str_eq(pw, "crlf-pw");
	freezero_str(pw);

	/* Errors name the variable or file, never a password. */
	bmc.password_file = f3;
	ck_assert_int_eq(redfish_password_load(&pw, &bmc, &err), -1);
	ck_assert_ptr_null(pw);
	ck_assert_int_eq(err.code, PROV_E_AUTH);
	ck_assert_msg(strstr(err.msg, "empty line") != NULL, "%s", err.msg);
	prov_err_release(&err);
	bmc.password_file = NULL;
	ck_assert_int_eq(redfish_password_load(&pw, &bmc, &err), -1);
	ck_assert_str_eq(err.msg, "environment variable 'TEST_REDFISH_PW' "
	    "(password_env) is not set");
	prov_err_release(&err);
	bmc.password_env = NULL;
	ck_assert_int_eq(redfish_password_load(&pw, &bmc, &err), -1);
	ck_assert_msg(strstr(err.msg, "neither password_env nor "
	    "password_file") != NULL, "%s", err.msg);
	prov_err_release(&err);
	bmc.password_file = "/nonexistent/pw";
	ck_assert_int_eq(redfish_password_load(&pw, &bmc, &err), -1);
	ck_assert_msg(strstr(err.msg, "/nonexistent/pw") != NULL, "%s",
	    err.msg);
	prov_err_release(&err);

	unlink(f1);
	unlink(f2);
	unlink(f3);
	free(f1);
	free(f2);
	free(f3);
}
END_TEST

/* Nothing to run: redfish_run() with skipped BMCs makes no request. */
START_TEST(test_redfish_run_skipped)
{
	struct redfish_bmc	v[2];
	struct redfish_opts	o = REDFISH_OPTS_INIT;
	struct prov_err		err = PROV_ERR_INIT;

	redfish_bmc_init(&v[0]);
	redfish_bmc_init(&v[1]);
	v[0].skipped = 1;
	prov_err_set(&v[0].err, PROV_E_AUTH, "no password");
	v[1].address = "127.0.0.1";	/* no user, no password */
	ck_assert_ok(redfish_run(v, 2, &o, &err), &err);
	ck_assert_int_eq(v[0].ok, 0);
	ck_assert_str_eq(v[0].err.msg, "no password");
	ck_assert_int_eq(v[1].ok, 0);
	ck_assert_int_eq(v[1].skipped, 1);
	ck_assert_int_eq(v[1].requests, 0);
	redfish_bmc_release(&v[0]);
	redfish_bmc_release(&v[1]);
}
END_TEST

static Suite *
redfish_suite(void)
{
	Suite	*s = suite_create("redfish");
	TCase	*tc;

	tc = tcase_create("parse");
	tcase_add_test(tc, test_redfish_service_root);
	tcase_add_test(tc, test_redfish_json_forms);
	tcase_add_loop_test(tc, test_redfish_parse_bad, 0,
	    (int)ARRAY_SIZE(bad_cases));
	tcase_add_test(tc, test_redfish_system);
	tcase_add_test(tc, test_redfish_error_message);
	suite_add_tcase(s, tc);

	tc = tcase_create("actions");
	tcase_add_loop_test(tc, test_redfish_reset_type, 0,
	    (int)ARRAY_SIZE(reset_cases));
	tcase_add_test(tc, test_redfish_action_names);
	tcase_add_test(tc, test_redfish_media);
	suite_add_tcase(s, tc);

	tc = tcase_create("inventory");
	tcase_add_test(tc, test_redfish_inv_mockup);
	tcase_add_test(tc, test_redfish_inv_summaries_only);
	tcase_add_test(tc, test_redfish_inv_power_old);
	tcase_add_test(tc, test_redfish_plug_inlet);
	tcase_add_test(tc, test_redfish_inv_pcie);
	tcase_add_test(tc, test_redfish_inv_gpus_unknown);
	tcase_add_test(tc, test_redfish_inv_oem_hpe);
	tcase_add_test(tc, test_redfish_power_readings);
	suite_add_tcase(s, tc);

	tc = tcase_create("vendor shapes");
	tcase_add_loop_test(tc, test_redfish_pci_num, 0,
	    (int)ARRAY_SIZE(pci_cases));
	tcase_add_test(tc, test_redfish_uri_id);
	tcase_add_loop_test(tc, test_redfish_pick_system, 0,
	    (int)ARRAY_SIZE(pick_cases));
	tcase_add_loop_test(tc, test_redfish_media_rank, 0,
	    (int)ARRAY_SIZE(media_cases));
	tcase_add_test(tc, test_redfish_boot_enabled);
	suite_add_tcase(s, tc);

	tc = tcase_create("compare");
	tcase_add_test(tc, test_redfish_compare_match);
	tcase_add_loop_test(tc, test_redfish_compare_drift, 0,
	    (int)ARRAY_SIZE(drift_cases));
	tcase_add_test(tc, test_redfish_compare_plan_overrides);
	suite_add_tcase(s, tc);

	tc = tcase_create("password");
	tcase_add_test(tc, test_redfish_password);
	tcase_add_test(tc, test_redfish_run_skipped);
	suite_add_tcase(s, tc);
	return s;
}

TEST_MAIN(redfish_suite)

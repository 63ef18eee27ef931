#include "test.h"

#include <math.h>
#include <sys/stat.h>
#include <time.h>

#include "buf.h"
#include "check.h"
#include "err.h"
#include "plan.h"
#include "row.h"
#include "strvec.h"

/*
 * Plans are YAML strings loaded with plan_load_buf() against the real
 * catalog in profiles/ (plus, for the slot-layout cases, a site profile
 * dir written by the test).  Each case names the rows it expects; any
 * failing row it does not name is an error too, so a case proves that
 * the rule fires and that nothing else does.
 */

#define HEAD	"version: 1\ncluster: { name: t }\n"

/* A CPU-only 4U server: draw 600 + 2 x 280 + 1,024 x 0.375 = 1,544 W. */
#define HW_CPU							\
	"  cpu4u:\n"						\
	"    system: supermicro-as-4124gs-tnr\n"		\
	"    cpu: { model: epyc-7763, count: 2 }\n"		\
	"    memory_gb: 1024\n"

struct test_row {
	enum row_verdict	 verdict;
	const char		*subject;
	const char		*what;
	const char		*measured;
	const char	*limit;		/* NULL: not compared */
	const char	*hint;		/* substring; NULL: not compared */
};

struct test_case {
	const char	*name;
	const char	*yaml;
	struct test_row	 rows[8];
	size_t		 nfail;		/* 0: only rows named fail; else how many */
};

/* Site profiles for slot layouts no shipped system has. */
static const char test_site_systems[] =
    "systems:\n"
    "  test-riser3:\n"
    "    name: Test chassis, three single-room slots\n"
    "    vendor: test\n"
    "    rack_units: 2\n"
    "    depth_mm: 700\n"
    "    base_power_w: 300\n"
    "    cpu_sockets: 2\n"
    "    gpu_form_factors: [fhfl]\n"
    "    cooling: air\n"
    "    psu:\n"
    "      count: 2\n"
    "      redundancy: \"1+1\"\n"
    "      ratings:\n"
    "        - { volts_min: 200, volts_max: 240, watts: 2000 }\n"
    "    slots:\n"
    "      - { name: a, lanes: 16, mech: 16, gen: 4, room: 1 }\n"
    "      - { name: b, lanes: 16, mech: 16, gen: 4, room: 1 }\n"
    "      - { name: c, lanes: 8, mech: 8, gen: 4, room: 1 }\n"
    "  test-riser2:\n"
    "    name: Test chassis, two single-room slots\n"
    "    vendor: test\n"
    "    rack_units: 2\n"
    "    depth_mm: 700\n"
    "    base_power_w: 300\n"
    "    cpu_sockets: 2\n"
    "    gpu_form_factors: [fhfl]\n"
    "    cooling: air\n"
    "    psu:\n"
    "      count: 2\n"
    "      redundancy: \"1+1\"\n"
    "      ratings:\n"
    "        - { volts_min: 200, volts_max: 240, watts: 2000 }\n"
    "    slots:\n"
    "      - { name: a, lanes: 16, mech: 16, gen: 4, room: 1 }\n"
    "      - { name: b, lanes: 16, mech: 16, gen: 4, room: 1 }\n";

static char *
test_check_site_dir(void)
{
	char	*dir = xstrdup("/tmp/prov-test-check-XXXXXX");
	char	*f;

	ck_assert_ptr_nonnull(mkdtemp(dir));
	f = xasprintf("%s/systems.yaml", dir);
	ck_assert_int_eq(buf_write_file_atomic(f, test_site_systems,
	    strlen(test_site_systems), 0644), 0);
	free(f);
	return dir;
}

static void
test_check_site_rm(char *dir)
{
	char	*f = xasprintf("%s/systems.yaml", dir);

	unlink(f);
	rmdir(dir);
	free(f);
	free(dir);
}

static struct plan *
test_check_load(const char *yaml, const char *site)
{
	struct plan_opts	 o = PLAN_OPTS_INIT;
	struct prov_errs	 errs = PROV_ERRS_INIT;
	struct plan		*p = NULL;
	char			*dir = test_path("profiles");

	o.builtin_dir = dir;
	if (site != NULL)
		strvec_push(&o.profile_dirs, site);
	if (plan_load_buf(&p, "test.yaml", yaml, strlen(yaml), &o,
	    &errs) != 0) {
		prov_errs_print(&errs, stderr);
		ck_abort_msg("plan did not load");
	}
	prov_errs_release(&errs);
	strvec_clear(&o.profile_dirs);
	free(dir);
	return p;
}

static void
test_check_dump(const struct rows *r)
{
	size_t	i;

	for (i = 0; i < r->n; i++) {
		const struct row	*w = &r->v[i];

		fprintf(stderr, "  %s %s | %s | %s | %s | %s | %s\n",
		    row_verdict_name(w->verdict), w->group, w->subject, w->what,
		    w->measured, w->limit, w->hint != NULL ? w->hint : "-");
	}
}

static const struct row *
test_check_find(const struct rows *r, const char *subject,
    const char *what, const char *measured)
{
	size_t	i;

	for (i = 0; i < r->n; i++)
		if (strcmp(r->v[i].subject, subject) == 0 &&
		    strcmp(r->v[i].what, what) == 0 &&
		    strcmp(r->v[i].measured, measured) == 0)
			return &r->v[i];
	return NULL;
}

static int
test_check_expected(const struct test_case *tc, const struct row *w)
{
	size_t	i;

	for (i = 0; i < ARRAY_SIZE(tc->rows) && tc->rows[i].subject != NULL;
	    i++)
		if (strcmp(tc->rows[i].subject, w->subject) == 0 &&
		    strcmp(tc->rows[i].what, w->what) == 0 &&
		    strcmp(tc->rows[i].measured, w->measured) == 0)
			return 1;
	return 0;
}

static void
test_check_run(const struct test_case *tc, struct rows *res,
    struct plan **pp)
{
	struct prov_err	 err = PROV_ERR_INIT;
	char		*site = test_check_site_dir();
	struct plan	*p = test_check_load(tc->yaml, site);

	test_check_site_rm(site);
	ck_assert_ok(check_plan(res, p, &err), &err);
	*pp = p;
}

static const struct test_case check_cases[] = {
	{ "PSU budget per rack voltage", HEAD
	    "hardware:\n"
	    "  gpu:\n"
	    "    system: supermicro-as-4124gs-tnr\n"
	    "    cpu: { model: epyc-7763, count: 2 }\n"
	    "    memory_gb: 1024\n"
	    "    gpus: { model: a100-pcie-80gb, count: 8 }\n"
	    "racks:\n"
	    "  r208: { units: 42, depth_mm: 1200, cooling_kw: 30,\n"
	    "          pdus: [ { volts: 208, amps: 30, phases: 3 } ] }\n"
	    "  r400: { units: 42, depth_mm: 1200, cooling_kw: 30,\n"
	    "          pdus: [ { volts: 400, amps: 32, phases: 3 } ] }\n"
	    "networks:\n"
	    "  fab: { cidr: 10.1.0.0/24, kind: infiniband, gbps: 200 }\n"
	    "nodes:\n"
	    "  - { name: a1, hardware: gpu, rack: r208, u: 1,\n"
	    "      interfaces: { fab: 10.1.0.1 } }\n"
	    "  - { name: b1, hardware: gpu, rack: r400, u: 1,\n"
	    "      interfaces: { fab: 10.1.0.2 } }\n",
	    {
		/* 600 base + 560 CPUs + 384 memory + 2,400 GPUs */
		{ ROW_FAIL, "hardware 'gpu'", "PSU budget", "3,944 W (109.6%)",
		    "3,600 W (2 of 4 x 1,800 W PSUs at 208 V, 2+2)",
		    "short by 344 W" },
		/* 400 V three-phase: 230.9 V at the outlet, the 2,000 W rating */
		{ ROW_WARN, "hardware 'gpu'", "PSU budget", "3,944 W (98.6%)",
		    "4,000 W (2 of 4 x 2,000 W PSUs at 230.9 V, 2+2)",
		    "base 600 W assumed (150 W per U" },
		{ ROW_WARN, "rack 'r208' feed A", "power", "3,944 W (45.6%)",
		    "8,646.4 W (1 x 208 V 30 A 3-phase x 0.8)", NULL },
		{ ROW_OK, "hardware 'gpu'", "lanes", "128 lanes",
		    "128 lanes (2 x epyc-7763)", NULL },
		{ ROW_OK, "GPU nodes", "fabric", "2 of 2 on a fast network",
		    "InfiniBand or >= 100 Gb/s: fab (infiniband 200 Gb/s)", NULL },
	    }, 0 },
	{ "too many cards", HEAD
	    "hardware:\n"
	    "  gpu9:\n"
	    "    system: supermicro-as-4124gs-tnr\n"
	    "    cpu: { model: epyc-7763, count: 2 }\n"
	    "    memory_gb: 1024\n"
	    "    gpus: { model: a100-pcie-80gb, count: 9 }\n"
	    "    psu: { count: 4, watts: 3000, redundancy: \"2+2\" }\n",
	    {
		{ ROW_FAIL, "hardware 'gpu9'", "slot fit", "9 cards", "11 slots",
		    "gpu a100-pcie-80gb #9 of 9 (x16, dual-width, fhfl) does not "
		    "fit: aux1, aux2: low-profile only, card is fhfl; x8: x8 "
		    "electrical, card needs x16; 8 slots taken or blocked by the "
		    "other cards" },
		{ ROW_WARN, "hardware 'gpu9'", "lanes", "144 lanes",
		    "128 lanes (2 x epyc-7763)", "behind PCIe switches" },
		{ ROW_WARN, "hardware 'gpu9'", "PSU budget", "4,244 W (70.7%)",
		    "6,000 W (2 of 4 x 3,000 W PSUs, 2+2)", NULL },
	    }, 0 },
	{ "x16 card in an x8 slot", HEAD
	    "hardware:\n"
	    "  gpu:\n"
	    "    system: supermicro-as-4124gs-tnr\n"
	    "    cpu: { model: epyc-7763, count: 2 }\n"
	    "    memory_gb: 1024\n"
	    "    gpus: { model: a100-pcie-80gb, count: 8 }\n"
	    "    nics: [ { model: connectx-6-hdr-1p, count: 3 } ]\n"
	    "    psu: { count: 4, watts: 3000, redundancy: \"2+2\" }\n",
	    {
		{ ROW_FAIL, "hardware 'gpu'", "slot fit", "11 cards", "11 slots",
		    "nic connectx-6-hdr-1p #3 of 3 (x16, single-width, hhhl) does "
		    "not fit: x8: x8 electrical, card needs x16; 10 slots taken or "
		    "blocked by the other cards" },
	    }, 0 },
	{ "low-profile slots", HEAD
	    "hardware:\n"
	    "  head:\n"
	    "    system: dell-r650\n"
	    "    cpu: { model: xeon-8380, count: 2 }\n"
	    "    memory_gb: 256\n"
	    "    nics: [ { model: bluefield-2 } ]\n"
	    "    psu: { count: 2, watts: 1400, redundancy: N+1 }\n",
	    {
		{ ROW_FAIL, "hardware 'head'", "slot fit", "1 card", "3 slots",
		    "nic bluefield-2 (x16, single-width, fhhl) does not fit: slot1, "
		    "slot2, slot3: low-profile only, card is fhhl" },
		{ ROW_OK, "hardware 'head'", "ports", "4 ports",
		    ">= 2 (cluster + management)",
		    "1 x bluefield-2 (2 ports), 2 x onboard-1gbe (1 port)" },
	    }, 0 },
	{ "dual-width cards block their neighbour", HEAD
	    "hardware:\n"
	    "  fits:\n"
	    "    system: test-riser3\n"
	    "    cpu: { model: epyc-7763, count: 2 }\n"
	    "    memory_gb: 512\n"
	    "    gpus: { model: a100-pcie-80gb, count: 1 }\n"
	    "    nics: [ { model: connectx-6-hdr-1p }, { model: onboard-1gbe } ]\n"
	    "  blocked:\n"
	    "    system: test-riser2\n"
	    "    cpu: { model: epyc-7763, count: 2 }\n"
	    "    memory_gb: 512\n"
	    "    gpus: { model: a100-pcie-80gb, count: 1 }\n"
	    "    nics: [ { model: connectx-6-hdr-1p }, { model: onboard-1gbe } ]\n",
	    {
		/* Only b (blocking the x8 slot c) leaves a for the NIC. */
		{ ROW_OK, "hardware 'fits'", "slot fit", "2 cards", "3 slots",
		    "gpu a100-pcie-80gb -> b; nic connectx-6-hdr-1p -> a" },
		{ ROW_FAIL, "hardware 'blocked'", "slot fit", "2 cards",
		    "2 slots", "nic connectx-6-hdr-1p (x16, single-width, hhhl) "
		    "does not fit: 2 slots taken or blocked by the other cards" },
		/* 300 base + 560 + 192 + 300 + 25: a known base, so ok */
		{ ROW_OK, "hardware 'fits'", "PSU budget", "1,377 W (68.9%)",
		    "2,000 W (1 of 2 x 2,000 W PSUs at 200-240 V, 1+1)",
		    "no node uses this model" },
	    }, 0 },
	{ "one feed of A+B short", HEAD
	    "hardware:\n" HW_CPU
	    "racks:\n"
	    "  r01:\n"
	    "    units: 42\n"
	    "    depth_mm: 1200\n"
	    "    cooling_kw: 30\n"
	    "    pdus:\n"
	    "      - { volts: 208, amps: 30, feed: A }\n"
	    "      - { volts: 208, amps: 30, feed: A }\n"
	    "      - { volts: 208, amps: 30, feed: B }\n"
	    "nodes:\n"
	    "  - { name: \"c[1-4]\", hardware: cpu4u, rack: r01, u: 1 }\n",
	    {
		{ ROW_FAIL, "rack 'r01' feed B", "power", "6,176 W (123.7%)",
		    "4,992 W (1 x 208 V 30 A x 0.8)",
		    "with A+B feeds each feed alone must carry the whole rack" },
		{ ROW_WARN, "rack 'r01' feed A", "power", "6,176 W (61.9%)",
		    "9,984 W (2 x 208 V 30 A x 0.8)", "nodes 6,176 W + switches 0 W" },
		{ ROW_OK, "rack 'r01'", "units", "16 of 42 U used", "42 U",
		    "4 nodes, 0 switches" },
		{ ROW_WARN, "hardware 'cpu4u'", "PSU budget", "1,544 W (42.9%)",
		    "3,600 W (2 of 4 x 1,800 W PSUs at 208 V, 2+2)", NULL },
	    }, 0 },
	{ "units overlap and out of range", HEAD
	    "hardware:\n" HW_CPU
	    "racks:\n"
	    "  r01: { units: 42, depth_mm: 1200, cooling_kw: 30,\n"
	    "         pdus: [ { volts: 208, amps: 60, phases: 3 } ] }\n"
	    "networks:\n"
	    "  mgmt: { cidr: 192.0.2.0/24 }\n"
	    "switches:\n"
	    "  sw1: { model: sn2201, network: mgmt, rack: r01, u: 42 }\n"
	    "nodes:\n"
	    "  - { name: n1, hardware: cpu4u, rack: r01, u: 1 }\n"
	    "  - { name: n2, hardware: cpu4u, rack: r01, u: 3 }\n"
	    "  - { name: n3, hardware: cpu4u, rack: r01, u: 40 }\n",
	    {
		{ ROW_FAIL, "rack 'r01'", "units",
		    "U3: node 'n2' (U3-U6) overlaps node 'n1' (U1-U4)",
		    "one chassis per unit", "move node 'n2' (U3-U6) to free units" },
		{ ROW_FAIL, "rack 'r01'", "units", "node 'n3' (U40-U43)",
		    "U1-U42", "the rack has 42 U" },
		{ ROW_FAIL, "rack 'r01'", "units",
		    "U42: switch 'sw1' (U42) overlaps node 'n3' (U40-U43)",
		    "one chassis per unit", NULL },
		/* 3 x 1,544 W + 500 W assumed for the switch */
		{ ROW_WARN, "rack 'r01' feed A", "power", "5,132 W (29.7%)",
		    "17,292.8 W (1 x 208 V 60 A 3-phase x 0.8)",
		    "switch power unknown: 500 W per U assumed" },
	    }, 0 },
	{ "addresses and MACs", HEAD
	    "networks:\n"
	    "  mgmt: { cidr: 192.0.2.0/24, role: management }\n"
	    "  fab: { cidr: 198.51.100.0/24, kind: infiniband }\n"
	    "nodes:\n"
	    "  - { name: n1, address: 192.0.2.11, mac: \"0C:C4:7A:00:00:10\" }\n"
	    "  - { name: n2, address: 192.0.2.11, mac: \"0c-c4-7a-00-00-10\" }\n"
	    "  - { name: n3, address: 10.0.0.5 }\n"
	    "  - { name: n4, address: 192.0.2.14, interfaces: { fab: 203.0.113.5 } }\n"
	    "  - { name: n5, address: 192.0.2.15, interfaces: { fab: 192.0.2.14 } }\n",
	    {
		{ ROW_FAIL, "node 'n2'", "unique address",
		    "duplicate address 192.0.2.11: n1, n2",
		    "one owner per address", NULL },
		{ ROW_FAIL, "node 'n5'", "unique address",
		    "duplicate address 192.0.2.14: n4 (address), n5 "
		    "(interface 'fab')", "one owner per address", NULL },
		{ ROW_FAIL, "node 'n3'", "address", "10.0.0.5",
		    "inside management network 'mgmt' 192.0.2.0/24",
		    "use an address in 192.0.2.0/24" },
		{ ROW_FAIL, "node 'n4'", "address",
		    "203.0.113.5 (interface 'fab')",
		    "inside network 'fab' 198.51.100.0/24", NULL },
		{ ROW_FAIL, "node 'n5'", "address",
		    "192.0.2.14 (interface 'fab')",
		    "inside network 'fab' 198.51.100.0/24", NULL },
		{ ROW_FAIL, "node 'n2'", "unique MAC",
		    "duplicate MAC 0c:c4:7a:00:00:10: n1, n2", "one node per MAC",
		    NULL },
		{ ROW_SKIP, "5 nodes (n1, n2, n3, ...)", "hardware",
		    "no hardware model", "not checked", NULL },
		{ ROW_OK, "all nodes", "unique name", "5 nodes, 0 switches",
		    "no duplicates", NULL },
	    }, 0 },
	{ "address in no network", HEAD
	    "hardware:\n" HW_CPU
	    "    nics: [ { model: onboard-1gbe, count: 2, network: lan } ]\n"
	    "networks:\n"
	    "  lan: { cidr: 10.0.0.0/24 }\n"
	    "nodes:\n"
	    "  - { name: n1, hardware: cpu4u, address: 10.0.0.1 }\n"
	    "  - { name: n2, hardware: cpu4u, address: 10.1.0.5 }\n",
	    {
		{ ROW_FAIL, "node 'n2'", "address", "10.1.0.5",
		    "inside on-board NIC network 'lan' 10.0.0.0/24", NULL },
		{ ROW_SKIP, "network 'lan'", "switch ports", "4 links",
		    "no switch on this network in the plan", NULL },
	    }, 0 },
	{ "one NIC port", HEAD
	    "hardware:\n"
	    "  hgx:\n"
	    "    system: dell-xe9680\n"
	    "    cpu: { model: xeon-8480, count: 2 }\n"
	    "    memory_gb: 2048\n"
	    "    nics: [ { model: connectx-7-ndr-1p, count: 1 } ]\n"
	    /* A chassis with ports on board has them whatever the plan lists. */
	    HW_CPU
	    "    nics: [ { model: onboard-1gbe, count: 1 } ]\n",
	    {
		{ ROW_FAIL, "hardware 'hgx'", "ports", "1 port",
		    ">= 2 (cluster + management)",
		    "every node needs one port for cluster traffic and one for "
		    "management: add a NIC; has 1 x connectx-7-ndr-1p (1 port)" },
		{ ROW_OK, "hardware 'cpu4u'", "ports", "2 ports",
		    ">= 2 (cluster + management)",
		    "2 x onboard-1gbe (1 port)" },
		{ ROW_OK, "hardware 'hgx'", "slot fit", "1 card", "10 slots",
		    "nic connectx-7-ndr-1p -> slot1" },
	    }, 0 },
	{ "16 GB of RAM", HEAD
	    "hardware:\n"
	    "  small:\n"
	    "    system: dell-r650\n"
	    "    cpu: { model: xeon-8380, count: 1 }\n"
	    "    memory_gb: 16\n"
	    "    gpus: { model: t4, count: 2 }\n"
	    "    psu: { count: 2, watts: 800, redundancy: N+1 }\n",
	    {
		{ ROW_FAIL, "hardware 'small'", "RAM", "16 GB", ">= 24 GB",
		    "plan at least 24 GB of RAM per node" },
		{ ROW_WARN, "hardware 'small'", "RAM vs GPU memory",
		    "16 GB RAM", "32 GB GPU memory (2 x 16 GB)",
		    "common guidance: system RAM at least the total GPU memory" },
		{ ROW_OK, "hardware 'small'", "form factor", "2 x t4 (hhhl)",
		    "'dell-r650' takes hhhl", NULL },
	    }, 0 },
	{ "heat over cooling", HEAD
	    "hardware:\n" HW_CPU
	    "racks:\n"
	    "  r01: { units: 42, depth_mm: 1200, cooling_kw: 2,\n"
	    "         pdus: [ { volts: 208, amps: 60, phases: 3, derate: 0.75 } ] }\n"
	    "nodes:\n"
	    "  - { name: \"c[1-2]\", hardware: cpu4u, rack: r01, u: 10 }\n",
	    {
		{ ROW_FAIL, "rack 'r01'", "heat", "10,536 BTU/h (3,088 W)",
		    "6,824 BTU/h (2 kW)", "short by 3,712 BTU/h" },
		{ ROW_WARN, "rack 'r01' feed A", "power", "3,088 W (19%)",
		    "16,212 W (1 x 208 V 60 A 3-phase x 0.75)", NULL },
		{ ROW_OK, "rack 'r01'", "depth", "737 mm "
		    "(supermicro-as-4124gs-tnr)", "1,200 mm", NULL },
	    }, 0 },
	{ "switch ports short", HEAD
	    "hardware:\n" HW_CPU
	    "    nics: [ { model: connectx-6-hdr-2p, network: fab } ]\n"
	    "networks:\n"
	    "  fab: { cidr: 10.1.0.0/24, kind: infiniband, gbps: 200 }\n"
	    "switches:\n"
	    "  ib1: { model: qm8700, network: fab }\n"
	    "nodes:\n"
	    "  - { name: \"n[01-21]\", hardware: cpu4u }\n",
	    {
		{ ROW_FAIL, "network 'fab'", "switch ports", "42 links",
		    "40 ports (1 x qm8700)", "short by 2 ports" },
		{ ROW_OK, "hardware 'cpu4u'", "ports", "4 ports",
		    ">= 2 (cluster + management)", NULL },
	    }, 0 },
	{ "GPU form factors", HEAD
	    "hardware:\n"
	    "  dgx-pcie:\n"
	    "    system: dgx-a100\n"
	    "    gpus: { model: h100-pcie }\n"
	    "  dgx-split:\n"
	    "    system: dgx-a100\n"
	    "    nics:\n"
	    "      - { model: connectx-6-hdr-1p, count: 4 }\n"
	    "      - { model: connectx-6-hdr-1p, count: 4 }\n"
	    "  sxm-in-pcie:\n"
	    "    system: supermicro-as-4124gs-tnr\n"
	    "    cpu: { model: epyc-7763, count: 2 }\n"
	    "    memory_gb: 512\n"
	    "    gpus: { model: a100-sxm4-40gb, count: 4 }\n",
	    {
		{ ROW_FAIL, "hardware 'dgx-pcie'", "form factor",
		    "1 x h100-pcie (fhfl)", "baseboard of 'dgx-a100': "
		    "a100-sxm4-40gb", "the GPUs of 'dgx-a100' are fixed" },
		{ ROW_FAIL, "hardware 'dgx-pcie'", "slot fit", "1 card",
		    "0 slots", "gpu h100-pcie (x16, dual-width, fhfl) does not "
		    "fit: the system has no PCIe slots for add-in cards" },
		{ ROW_FAIL, "hardware 'sxm-in-pcie'", "form factor",
		    "4 x a100-sxm4-40gb (sxm4)", "'supermicro-as-4124gs-tnr' has "
		    "no GPU baseboard", NULL },
		{ ROW_OK, "hardware 'sxm-in-pcie'", "slot fit", "0 cards",
		    "11 slots", NULL },
		/* The DGX's own eight NICs, named in two entries: no cards. */
		{ ROW_OK, "hardware 'dgx-split'", "slot fit", "0 cards",
		    "0 slots", NULL },
		{ ROW_OK, "hardware 'dgx-split'", "ports", "11 ports",
		    ">= 2 (cluster + management)", "8 x connectx-6-hdr-1p "
		    "(1 port), 1 x connectx-6-hdr-2p (2 ports), 1 x onboard-1gbe "
		    "(1 port)" },
	    }, 0 },
	{ "failures per node are capped", HEAD
	    "networks:\n"
	    "  mgmt: { cidr: 192.0.2.0/24, role: management }\n"
	    "nodes:\n"
	    "  - { name: \"n[01-25]\", address: \"10.9.0.[1-25]\" }\n",
	    {
		{ ROW_FAIL, "node 'n01'", "address", "10.9.0.1",
		    "inside management network 'mgmt' 192.0.2.0/24", NULL },
		{ ROW_FAIL, "node 'n20'", "address", "10.9.0.20",
		    "inside management network 'mgmt' 192.0.2.0/24", NULL },
		{ ROW_FAIL, "...", "address", "... and 5 more", "", NULL },
	    }, 21 },
	{ "a passing DGX A100 pod", HEAD
	    "hardware:\n"
	    "  head:\n"
	    "    system: dell-r650\n"
	    "    cpu: { model: xeon-8380, count: 2 }\n"
	    "    memory_gb: 256\n"
	    "    nics:\n"
	    "      - { model: onboard-1gbe, count: 2, network: mgmt }\n"
	    "      - { model: connectx-6-hdr-1p, count: 1, network: fabric }\n"
	    "    psu: { count: 2, watts: 1400, redundancy: N+1 }\n"
	    "  dgx:\n"
	    "    system: dgx-a100\n"
	    "    nics:\n"
	    "      - { model: connectx-6-hdr-1p, count: 8, network: fabric }\n"
	    "      - { model: onboard-1gbe, count: 1, network: mgmt }\n"
	    "racks:\n"
	    "  r01:\n"
	    "    units: 42\n"
	    "    depth_mm: 1200\n"
	    "    cooling_kw: 35\n"
	    "    pdus:\n"
	    "      - { volts: 208, amps: 60, phases: 3, feed: A }\n"
	    "      - { volts: 208, amps: 60, phases: 3, feed: A }\n"
	    "      - { volts: 208, amps: 60, phases: 3, feed: B }\n"
	    "      - { volts: 208, amps: 60, phases: 3, feed: B }\n"
	    "networks:\n"
	    "  mgmt:   { cidr: 192.0.2.0/24, kind: ethernet, gbps: 1,\n"
	    "            role: management }\n"
	    "  fabric: { cidr: 198.51.100.0/24, kind: infiniband, gbps: 200,\n"
	    "            role: fabric }\n"
	    "switches:\n"
	    "  ib-leaf-01: { model: qm8700, network: fabric, rack: r01, u: 42 }\n"
	    "  mgmt-sw-01: { model: sn2201, network: mgmt, rack: r01, u: 41 }\n"
	    "nodes:\n"
	    "  - { name: head-01, role: head, hardware: head, rack: r01, u: 38,\n"
	    "      address: 192.0.2.10, interfaces: { fabric: 198.51.100.10 },\n"
	    "      mac: \"0c:c4:7a:00:00:10\", bmc: { address: 192.0.2.110 } }\n"
	    "  - { name: \"dgx[01-04]\", hardware: dgx, rack: r01, u: 2,\n"
	    "      address: \"192.0.2.[11-14]\",\n"
	    "      interfaces: { fabric: \"198.51.100.[11-14]\" },\n"
	    "      bmc: { address: \"192.0.2.[111-114]\" } }\n",
	    {
		{ ROW_OK, "hardware 'dgx'", "PSU budget", "6,500 W (72.2%)",
		    "9,000 W (3 of 6 x 3,000 W PSUs at 208 V, 3+3)",
		    "vendor maximum 6,500 W for 'dgx-a100'" },
		{ ROW_OK, "hardware 'dgx'", "slot fit", "0 cards", "0 slots",
		    NULL },
		{ ROW_OK, "hardware 'dgx'", "form factor",
		    "8 x a100-sxm4-40gb (sxm4)",
		    "baseboard of 'dgx-a100': a100-sxm4-40gb", NULL },
		{ ROW_OK, "hardware 'head'", "slot fit", "1 card", "3 slots",
		    "nic connectx-6-hdr-1p -> slot1" },
		{ ROW_OK, "GPU nodes", "fabric", "4 of 4 on a fast network",
		    "InfiniBand or >= 100 Gb/s: fabric (infiniband 200 Gb/s)",
		    NULL },
		/* 1 head + 4 x 8 DGX fabric ports */
		{ ROW_OK, "network 'fabric'", "switch ports", "33 links",
		    "40 ports (1 x qm8700)", NULL },
		/* head 2 + DGX 4 x 1 + 5 BMC ports */
		{ ROW_OK, "network 'mgmt'", "switch ports", "11 links",
		    "52 ports (1 x sn2201)", NULL },
		/* 4 x 6,500 W + 811 W head + 2 x 500 W switches */
		{ ROW_WARN, "rack 'r01' feed B", "power", "27,811 W (80.4%)",
		    "34,585.6 W (2 x 208 V 60 A 3-phase x 0.8)", NULL },
	    }, 0 },
};

START_TEST(test_check_table)
{
	const struct test_case	*tc = &check_cases[_i];
	struct rows		 res = ROWS_INIT;
	struct plan		*p = NULL;
	size_t			 i, nbad = 0;

	test_check_run(tc, &res, &p);
	for (i = 0; i < ARRAY_SIZE(tc->rows) && tc->rows[i].subject != NULL;
	    i++) {
		const struct test_row	*want = &tc->rows[i];
		const struct row	*got = test_check_find(&res,
		    want->subject, want->what, want->measured);

		if (got == NULL) {
			test_check_dump(&res);
			ck_abort_msg("%s: no row '%s' '%s' '%s'", tc->name,
			    want->subject, want->what, want->measured);
		}
		ck_assert_msg(got->verdict == want->verdict,
		    "%s: %s %s: %s, want %s", tc->name, want->subject,
		    want->what, row_verdict_name(got->verdict),
		    row_verdict_name(want->verdict));
		if (want->limit != NULL)
			ck_assert_str_eq(got->limit, want->limit);
		if (want->hint != NULL) {
			ck_assert_msg(got->hint != NULL &&
			    strstr(got->hint, want->hint) != NULL,
			    "%s: hint '%s' lacks '%s'", tc->name,
			    got->hint != NULL ? got->hint : "(null)", want->hint);
		}
	}
	/* Nothing fails that the case does not name. */
	if (tc->nfail > 0)
		ck_assert_uint_eq(rows_count(&res, ROW_FAIL), tc->nfail);
	for (i = 0; i < res.n && tc->nfail == 0; i++)
		if (res.v[i].verdict == ROW_FAIL &&
		    !test_check_expected(tc, &res.v[i])) {
			fprintf(stderr, "%s: unexpected fail: %s | %s | %s\n",
			    tc->name, res.v[i].subject, res.v[i].what,
			    res.v[i].measured);
			nbad++;
		}
	if (nbad > 0)
		test_check_dump(&res);
	ck_assert_uint_eq(nbad, 0);
	/* Counts add up; every row says something. */
	ck_assert_uint_eq(rows_count(&res, ROW_OK) + rows_count(&res, ROW_WARN) +
	    rows_count(&res, ROW_FAIL) + rows_count(&res, ROW_SKIP), res.n);
	for (i = 0; i < res.n; i++) {
		ck_assert_ptr_nonnull(res.v[i].subject);
		ck_assert_ptr_nonnull(res.v[i].measured);
		ck_assert(res.v[i].measured[0] != '\0');
	}
	rows_release(&res);
	plan_free(p);
}
END_TEST

/* The pod passes: nothing fails, and it says why the warnings are. */
START_TEST(test_check_pod_passes)
{
	const struct test_case	*tc = &check_cases[ARRAY_SIZE(check_cases) - 1];
	struct rows		 res = ROWS_INIT;
	struct plan		*p = NULL;
	size_t			 i;

	test_check_run(tc, &res, &p);
	ck_assert_uint_eq(rows_count(&res, ROW_FAIL), 0);
	ck_assert_uint_gt(rows_count(&res, ROW_OK), 15);
	for (i = 0; i < res.n; i++)
		if (res.v[i].verdict == ROW_WARN)
			ck_assert_msg(res.v[i].hint != NULL &&
			    (strstr(res.v[i].hint, "assumed") != NULL ||
			    strstr(res.v[i].hint, "unknown") != NULL),
			    "warning without a reason: %s %s",
			    res.v[i].subject, res.v[i].what);
	rows_release(&res);
	plan_free(p);
}
END_TEST

/* The assignment itself, as the HTML report reads it. */
START_TEST(test_check_assign_slots)
{
	const struct test_case	*tc = &check_cases[4];
	struct rows		 res = ROWS_INIT;
	struct plan		*p = NULL;
	struct check_card	*cards = NULL;
	struct check_slot_use	*slots = NULL;
	size_t			 ncards, nslots;
	char			*why = NULL;

	ck_assert_str_eq(tc->rows[0].subject, "hardware 'fits'");
	test_check_run(tc, &res, &p);
	ck_assert_int_eq(check_pcie_assign(plan_hw_find(p, "fits"), &cards,
	    &ncards, &slots, &nslots, &why), 0);
	ck_assert_ptr_null(why);
	ck_assert_uint_eq(ncards, 2);
	ck_assert_uint_eq(nslots, 3);
	ck_assert_str_eq(cards[0].kind, "gpu");
	ck_assert_int_eq(cards[0].width, 2);
	ck_assert_str_eq(cards[1].kind, "nic");
	ck_assert_str_eq(slots[0].name, "a");
	ck_assert_int_eq(slots[0].card, 1);
	ck_assert_int_eq(slots[1].card, 0);
	ck_assert_int_eq(slots[2].card, -2);
	free(cards);
	free(slots);

	ck_assert_int_eq(check_pcie_assign(plan_hw_find(p, "blocked"), &cards,
	    &ncards, &slots, &nslots, &why), 1);
	ck_assert_ptr_nonnull(why);
	/* The fullest partial assignment: the GPU in a, b blocked. */
	ck_assert_int_eq(slots[0].card, 0);
	ck_assert_int_eq(slots[1].card, -2);
	free(why);
	free(cards);
	free(slots);
	rows_release(&res);
	plan_free(p);
}
END_TEST

START_TEST(test_check_unknown_slots)
{
	struct rows		 res = ROWS_INIT;
	struct prov_err		 err = PROV_ERR_INIT;
	struct plan		*p;
	struct check_card	*cards = NULL;
	struct check_slot_use	*slots = NULL;
	size_t			 ncards, nslots;
	char			*why = NULL;
	const struct row	*row;

	p = test_check_load(HEAD
	    "hardware:\n"
	    "  hp:\n"
	    "    system: lambda-hyperplane-a100\n"
	    "    cpu: { model: epyc-7763, count: 2 }\n"
	    "    memory_gb: 1024\n"
	    "    nics: [ { model: connectx-6-hdr-1p, count: 2 } ]\n", NULL);
	ck_assert_int_eq(check_pcie_assign(plan_hw_find(p, "hp"), &cards,
	    &ncards, &slots, &nslots, &why), -1);
	ck_assert_uint_eq(ncards, 2);
	ck_assert_str_eq(why, "the catalog has no slot list for system "
	    "'lambda-hyperplane-a100'");
	free(cards);
	free(slots);
	free(why);
	ck_assert_ok(check_plan(&res, p, &err), &err);
	row = test_check_find(&res, "hardware 'hp'", "slot fit", "2 cards");
	ck_assert_ptr_nonnull(row);
	ck_assert_int_eq(row->verdict, ROW_SKIP);
	ck_assert_str_eq(row->limit, "slots unknown");
	/* No PSU data in the catalog: a warning that asks for it, never a pass. */
	row = test_check_find(&res, "hardware 'hp'", "PSU budget",
	    "4,794 W (n/a)");
	ck_assert_ptr_nonnull(row);
	ck_assert_int_eq(row->verdict, ROW_WARN);
	ck_assert_str_eq(row->limit, "unknown");
	ck_assert_ptr_nonnull(strstr(row->hint, "give psu: { count, watts, "
	    "redundancy }"));
	ck_assert_uint_eq(rows_count(&res, ROW_FAIL), 0);
	rows_release(&res);
	plan_free(p);
}
END_TEST

static double
test_check_now(void)
{
	struct timespec	ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* 65,536 nodes: linear, aggregated rows. */
START_TEST(test_check_large)
{
	struct rows		 res = ROWS_INIT;
	struct prov_err		 err = PROV_ERR_INIT;
	struct plan		*p;
	const struct row	*row;
	double			 t0, dt;

	p = test_check_load(HEAD
	    "hardware:\n"
	    "  gpu:\n"
	    "    system: supermicro-as-4124gs-tnr\n"
	    "    cpu: { model: epyc-7763, count: 2 }\n"
	    "    memory_gb: 1024\n"
	    "    gpus: { model: a100-pcie-80gb, count: 4 }\n"
	    "    nics:\n"
	    "      - { model: connectx-6-hdr-2p, network: fab }\n"
	    "      - { model: onboard-1gbe, count: 2, network: mgmt }\n"
	    "networks:\n"
	    "  mgmt: { cidr: 10.0.0.0/16, role: management }\n"
	    "  fab: { cidr: 10.1.0.0/16, kind: infiniband, gbps: 200 }\n"
	    "nodes:\n"
	    "  - { name: \"n[00000-65535]\", hardware: gpu,\n"
	    "      address: \"10.0.[0-255].[0-255]\",\n"
	    "      interfaces: { fab: \"10.1.[0-255].[0-255]\" } }\n", NULL);
	ck_assert_uint_eq(p->nnodes, 65536);
	t0 = test_check_now();
	ck_assert_ok(check_plan(&res, p, &err), &err);
	dt = test_check_now() - t0;
	ck_assert_msg(dt < 5.0, "check took %.2f s", dt);
	ck_assert_uint_eq(rows_count(&res, ROW_FAIL), 0);
	ck_assert_uint_lt(res.n, 40);
	row = test_check_find(&res, "all nodes", "unique address",
	    "131,072 addresses");
	ck_assert_ptr_nonnull(row);
	row = test_check_find(&res, "GPU nodes", "fabric",
	    "65,536 of 65,536 on a fast network");
	ck_assert_ptr_nonnull(row);
	row = test_check_find(&res, "network 'mgmt'", "switch ports",
	    "131,072 links");
	ck_assert_ptr_nonnull(row);
	ck_assert_int_eq(row->verdict, ROW_SKIP);
	rows_release(&res);
	plan_free(p);
}
END_TEST

static Suite *
check_suite(void)
{
	Suite	*s = suite_create("check");
	TCase	*tc;

	tc = tcase_create("rules");
	tcase_add_loop_test(tc, test_check_table, 0, ARRAY_SIZE(check_cases));
	tcase_add_test(tc, test_check_pod_passes);
	suite_add_tcase(s, tc);

	tc = tcase_create("pcie_assign");
	tcase_add_test(tc, test_check_assign_slots);
	tcase_add_test(tc, test_check_unknown_slots);
	suite_add_tcase(s, tc);

	tc = tcase_create("scale");
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, test_check_large);
	suite_add_tcase(s, tc);
	return s;
}

TEST_MAIN(check_suite)

#include "test.h"

#include <dirent.h>
#include <math.h>

#include "buf.h"
#include "catalog.h"
#include "err.h"
#include "schema.h"
#include "yml.h"

static char *
test_catalog_tmpdir(void)
{
	char	*d = xstrdup("/tmp/test_catalog.XXXXXX");

	ck_assert_ptr_nonnull(mkdtemp(d));
	return d;
}

static void
test_catalog_rmdir(char *d)
{
	char	*cmd = xasprintf("rm -rf '%s'", d);

	ck_assert_int_eq(system(cmd), 0);
	free(cmd);
	free(d);
}

static void
test_catalog_write(const char *dir, const char *name, const char *text)
{
	char	*path = xasprintf("%s/%s", dir, name);

	ck_assert_int_eq(buf_write_file_atomic(path, text, strlen(text), 0644),
	    0);
	free(path);
}

/* Every error as printed, one a line (caller frees). */
static char *
test_catalog_errs(const struct prov_errs *errs)
{
	struct buf	b = BUF_INIT;
	size_t		i;

	buf_adds(&b, "");
	for (i = 0; i < errs->n; i++) {
		char	*s = prov_err_format(&errs->v[i]);

		buf_addf(&b, "%s\n", s);
		free(s);
	}
	return buf_detach(&b, NULL);
}

/* The shipped catalog, loaded; fails the test on any error. */
static struct catalog *
test_catalog_shipped(void)
{
	struct catalog		*c = catalog_new();
	struct prov_errs	 errs = PROV_ERRS_INIT;
	char			*dir = test_path("profiles");
	char			*e;

	catalog_load_dir(c, dir, &errs);
	e = test_catalog_errs(&errs);
	ck_assert_msg(errs.n == 0, "%s", e);
	free(e);
	free(dir);
	prov_errs_release(&errs);
	return c;
}

/* Load one text as label "x.yaml"; errors as printed into *errsout. */
static int
test_catalog_text(struct catalog *c, const char *text, char **errsout)
{
	struct prov_errs	errs = PROV_ERRS_INIT;
	int			r;

	r = catalog_load_buf(c, "x.yaml", text, strlen(text), &errs);
	*errsout = test_catalog_errs(&errs);
	prov_errs_release(&errs);
	return r;
}

static int
test_catalog_has(const struct strvec *sv, const char *s)
{
	return strvec_find(sv, s) >= 0;
}

/* The shipped profiles. */

START_TEST(test_catalog_shipped_loads)
{
	struct catalog		*c = test_catalog_shipped();
	struct prov_errs	 errs = PROV_ERRS_INIT;
	char			*e;

	/* Every cross-reference and source resolves. */
	ck_assert_int_eq(catalog_validate(c, &errs), 0);
	e = test_catalog_errs(&errs);
	ck_assert_str_eq(e, "");
	free(e);
	prov_errs_release(&errs);
	catalog_free(c);
}
END_TEST

/*
 * Counts against the files themselves, read here with yml: every id under
 * each section is one entry, none lost or doubled.
 */
START_TEST(test_catalog_shipped_counts)
{
	static const char *const sections[CAT_NKINDS] = { "gpus", "nics",
	    "cpus", "systems", "switches", "models" };
	struct catalog		*c = test_catalog_shipped();
	char			*dir = test_path("profiles");
	struct dirent		**ents = NULL;
	size_t			 want[CAT_NKINDS] = { 0 };
	int			 n, i, k;

	n = scandir(dir, &ents, NULL, alphasort);
	ck_assert_int_gt(n, 0);
	for (i = 0; i < n; i++) {
		struct yml_doc		 doc;
		struct prov_errs	 errs = PROV_ERRS_INIT;
		struct buf		 b = BUF_INIT;
		char			*path;
		size_t			 len = strlen(ents[i]->d_name);

		if (len < 6 ||
		    strcmp(ents[i]->d_name + len - 5, ".yaml") != 0) {
			free(ents[i]);
			continue;
		}
		path = xasprintf("%s/%s", dir, ents[i]->d_name);
		ck_assert_int_eq(buf_read_file(&b, path), 0);
		yml_doc_init(&doc);
		ck_assert_int_eq(yml_load(&doc, path, b.buf, b.len, &errs), 0);
		for (k = 0; k < CAT_NKINDS; k++) {
			const struct yml_node	*sec;

			sec = yml_map_get(doc.root, sections[k]);
			if (sec != NULL && sec->kind == YML_MAP)
				want[k] += sec->n;
		}
		yml_doc_release(&doc);
		prov_errs_release(&errs);
		buf_release(&b);
		free(path);
		free(ents[i]);
	}
	free(ents);
	for (k = 0; k < CAT_NKINDS; k++) {
		const char *const	*ids;
		size_t			 j;

		ids = catalog_ids(c, (enum cat_kind)k);

		ck_assert_uint_gt(want[k], 0);
		ck_assert_msg(catalog_count(c, (enum cat_kind)k) == want[k],
		    "%s: %zu loaded, %zu in the files", sections[k],
		    catalog_count(c, (enum cat_kind)k), want[k]);
		/* ids: NULL-terminated, each found under itself. */
		for (j = 0; ids[j] != NULL; j++) {
			const struct cat_meta	*m = catalog_meta_at(c,
			    (enum cat_kind)k, j);

			ck_assert_str_eq(m->id, ids[j]);
			ck_assert_ptr_nonnull(m->name);
			ck_assert_ptr_nonnull(m->loc.file);
			ck_assert_uint_gt(m->loc.line, 0);
		}
		ck_assert_uint_eq(j, want[k]);
		ck_assert_ptr_null(catalog_meta_at(c, (enum cat_kind)k, j));
	}
	free(dir);
	catalog_free(c);
}
END_TEST

START_TEST(test_catalog_lookup_gpu)
{
	struct catalog		*c = test_catalog_shipped();
	const struct cat_gpu	*g = catalog_gpu(c, "a100-pcie-80gb");
	size_t			 len;

	ck_assert_ptr_nonnull(g);
	ck_assert_str_eq(g->m.id, "a100-pcie-80gb");
	ck_assert_str_eq(g->m.name, "NVIDIA A100 80GB PCIe");
	ck_assert_str_eq(g->m.vendor, "NVIDIA");
	ck_assert_double_eq(g->memory_gb, 80);
	ck_assert_str_eq(g->memory_type, "HBM2e");
	ck_assert_double_eq(g->power_w, 300);
	ck_assert_str_eq(g->form_factor, "fhfl");
	ck_assert_int_eq(g->slot_width, 2);
	ck_assert_int_eq(g->pcie_gen, 4);
	ck_assert_int_eq(g->pcie_lanes, 16);
	ck_assert_str_eq(g->cooling, "passive");
	ck_assert_double_eq(g->nvlink_gbs, 600);
	ck_assert_int_eq(g->mig_max, 7);
	ck_assert_double_eq(g->fp16_tflops, 312);
	ck_assert_uint_eq(g->pci_ids.n, 1);
	ck_assert_str_eq(g->pci_ids.v[0], "10de:20b5");
	ck_assert(test_catalog_has(&g->m.sources, "S-A100PB80"));
	ck_assert(test_catalog_has(&g->m.aliases, "a100-80gb-pcie"));
	len = strlen(g->m.loc.file);
	ck_assert_uint_gt(len, 10);
	ck_assert_str_eq(g->m.loc.file + len - 10, "/gpus.yaml");
	ck_assert_uint_eq(g->m.loc.col, 3);

	/* Aliases share the namespace and give the same entry. */
	ck_assert_ptr_eq(catalog_gpu(c, "a100-80gb-pcie"), g);
	ck_assert_ptr_eq(catalog_gpu(c, "a100-40gb-pcie"),
	    catalog_gpu(c, "a100-pcie-40gb"));
	ck_assert_ptr_nonnull(catalog_gpu(c, "a100-40gb-pcie"));
	/* Kinds are separate namespaces; lookups are exact. */
	ck_assert_ptr_null(catalog_nic(c, "a100-pcie-80gb"));
	ck_assert_ptr_null(catalog_gpu(c, "A100-PCIE-80GB"));
	ck_assert_ptr_null(catalog_gpu(c, "a100"));
	ck_assert_ptr_null(catalog_gpu(c, ""));
	ck_assert_ptr_null(catalog_gpu(c, NULL));
	ck_assert_ptr_null(catalog_gpu(NULL, "a100-pcie-80gb"));
	catalog_free(c);
}
END_TEST

START_TEST(test_catalog_lookup_system)
{
	struct catalog		*c = test_catalog_shipped();
	const struct cat_system	*s = catalog_system(c, "dgx-a100");
	const struct cat_system	*r;

	ck_assert_ptr_nonnull(s);
	ck_assert_ptr_eq(catalog_system(c, "dgx-a100-320gb"), s);
	ck_assert_str_eq(s->m.name, "NVIDIA DGX A100 (320GB)");
	ck_assert_int_eq(s->rack_units, 6);
	ck_assert_double_eq_tol(s->depth_mm, 897.1, 1e-9);
	/* null in the file: unknown, and listed as such. */
	ck_assert(isnan(s->base_power_w));
	ck_assert_int_eq(s->memory_slots, -1);
	ck_assert(test_catalog_has(&s->m.unknown, "base_power_w"));
	ck_assert(test_catalog_has(&s->m.unknown, "memory_slots"));
	ck_assert_double_eq(s->max_power_w, 6500);
	ck_assert_int_eq(s->cpu_sockets, 2);
	ck_assert_double_eq(s->memory_gb, 1024);
	ck_assert_str_eq(s->cpu.model, "epyc-7742");
	ck_assert_int_eq(s->cpu.count, 2);
	ck_assert_str_eq(s->gpus.model, "a100-sxm4-40gb");
	ck_assert_int_eq(s->gpus.count, 8);
	ck_assert_uint_eq(s->gpu_models.n, 1);
	ck_assert_str_eq(s->gpu_models.v[0], "a100-sxm4-40gb");
	ck_assert_uint_eq(s->nnics, 4);
	ck_assert_str_eq(s->nics[0].model, "connectx-6-hdr-1p");
	ck_assert_int_eq(s->nics[0].count, 8);
	ck_assert_str_eq(s->nics[0].role, "fabric");
	ck_assert_str_eq(s->nics[3].role, "bmc");
	ck_assert_uint_eq(s->ndrives, 2);
	ck_assert_str_eq(s->drives[1].kind, "nvme");
	ck_assert_int_eq(s->drives[1].count, 4);
	ck_assert_double_eq_tol(s->drives[1].tb, 3.84, 1e-9);
	ck_assert_str_eq(s->cooling, "air");
	ck_assert_int_eq(s->psu_count, 6);
	ck_assert_str_eq(s->psu_redundancy, "3+3");
	ck_assert_uint_eq(s->npsu_ratings, 2);
	ck_assert_double_eq(s->psu_ratings[0].volts_min, 200);
	ck_assert_double_eq(s->psu_ratings[0].volts_max, 240);
	ck_assert_double_eq(s->psu_ratings[0].watts, 3000);
	ck_assert_double_eq(s->psu_ratings[1].watts, 0);
	ck_assert_uint_eq(s->nslots, 0);

	/* count repeats a slot entry. */
	r = catalog_system(c, "r750xa");
	ck_assert_ptr_nonnull(r);
	ck_assert_ptr_eq(r, catalog_system(c, "dell-r750xa"));
	ck_assert_uint_eq(r->nslots, 6);
	ck_assert_str_eq(r->slots[0].name, "gpu");
	ck_assert_str_eq(r->slots[3].name, "gpu");
	ck_assert_int_eq(r->slots[3].lanes, 16);
	ck_assert_int_eq(r->slots[3].mech, 16);
	ck_assert_int_eq(r->slots[3].gen, 4);
	ck_assert_int_eq(r->slots[3].room, 2);
	ck_assert_int_eq(r->slots[3].low_profile, 0);
	ck_assert_int_eq(r->slots[3].half_length, 0);
	ck_assert_str_eq(r->slots[4].name, "rear");
	ck_assert_int_eq(r->slots[5].low_profile, 1);
	ck_assert_int_eq(r->slots[5].half_length, 1);
	ck_assert_int_eq(r->slots[5].room, 1);
	ck_assert(isnan(r->depth_mm));
	ck_assert_uint_eq(r->gpu_form_factors.n, 1);
	ck_assert_str_eq(r->gpu_form_factors.v[0], "fhfl");
	catalog_free(c);
}
END_TEST

START_TEST(test_catalog_lookup_others)
{
	struct catalog		*c = test_catalog_shipped();
	const struct cat_nic	*n = catalog_nic(c, "connectx-6-hdr-1p");
	const struct cat_cpu	*cpu = catalog_cpu(c, "xeon-8480");
	const struct cat_switch	*w = catalog_switch(c, "mqm8700-hs2f");

	ck_assert_ptr_nonnull(n);
	ck_assert_ptr_eq(catalog_nic(c, "cx6-vpi-hdr-1p"), n);
	ck_assert_str_eq(n->kind, "vpi");
	ck_assert_int_eq(n->ports, 1);
	ck_assert_double_eq(n->gbps, 200);
	ck_assert_str_eq(n->form_factor, "hhhl");
	ck_assert_int_eq(n->onboard, 0);
	ck_assert(test_catalog_has(&n->m.unconfirmed, "power_w"));

	ck_assert_ptr_nonnull(cpu);
	ck_assert_ptr_eq(catalog_cpu(c, "xeon-8480plus"), cpu);
	ck_assert_int_gt(cpu->cores, 0);

	ck_assert_ptr_nonnull(w);
	ck_assert_ptr_eq(catalog_switch(c, "qm8700"), w);
	ck_assert_ptr_eq(catalog_switch(c, "mqm8700"), w);
	ck_assert_str_eq(w->kind, "infiniband");
	ck_assert_uint_eq(w->nports, 1);
	ck_assert_int_eq(w->ports[0].count, 40);
	ck_assert_double_eq(w->ports[0].gbps, 200);
	ck_assert_int_eq(w->rack_units, 1);
	ck_assert(isnan(w->power_w));
	ck_assert(isnan(w->depth_mm));

	ck_assert_str_eq(catalog_kind_name(CAT_GPU), "gpu");
	ck_assert_str_eq(catalog_kind_name(CAT_SWITCH), "switch");
	ck_assert_str_eq(catalog_kind_name(CAT_NKINDS), "?");
	catalog_free(c);
}
END_TEST

/*
 * Today's systems: a DGX with its PSUs, a rack-scale system and the node
 * tray of it, a switch with weight and PSUs; the fields check will read.
 */
START_TEST(test_catalog_lookup_new_systems)
{
	struct catalog		*c = test_catalog_shipped();
	const struct cat_system	*s = catalog_system(c, "dgx-b200");
	const struct cat_system	*t = catalog_system(c, "dgx-gb200-tray");
	const struct cat_system	*r = catalog_system(c, "nvl72");
	const struct cat_switch	*w = catalog_switch(c, "qm9700");
	const struct cat_gpu	*g = catalog_gpu(c, "gb200");

	ck_assert_ptr_nonnull(s);
	ck_assert_int_eq(s->rack_units, 10);
	ck_assert_double_eq(s->weight_kg, 142.4);
	ck_assert_double_eq(s->max_power_w, 14300);
	ck_assert_str_eq(s->gpus.model, "b200-sxm");
	ck_assert_str_eq(s->psu_redundancy, "5+1");
	ck_assert_ptr_null(s->psu_inlet);
	ck_assert(test_catalog_has(&s->m.unknown, "psu.inlet"));
	ck_assert(isnan(s->heat_to_liquid_pct));
	ck_assert_str_eq(catalog_gpu(c, s->gpus.model)->form_factor, "sxm6");

	ck_assert_ptr_nonnull(t);
	ck_assert_int_eq(t->nvlink_domain_gpus, 72);
	ck_assert_str_eq(t->cooling, "liquid");
	ck_assert_double_eq(t->heat_to_liquid_pct, 84);
	ck_assert_str_eq(t->psu_inlet, "busbar");
	ck_assert_int_eq(t->psu_count, -1);
	ck_assert_uint_eq(t->npsu_ratings, 0);
	ck_assert_str_eq(t->cpu.model, "nvidia-grace");
	ck_assert_int_eq(t->gpus.count, 4);

	ck_assert_ptr_eq(r, catalog_system(c, "dgx-gb200-nvl72"));
	ck_assert_int_eq(r->gpus.count, 72);
	ck_assert_int_eq(r->psu_count, 8);
	ck_assert_double_eq(r->weight_kg, 1360);

	ck_assert_ptr_nonnull(g);
	ck_assert_str_eq(g->form_factor, "superchip");
	ck_assert_double_eq(g->power_w, 1200);
	ck_assert_int_eq(g->slot_width, -1);

	ck_assert_double_eq(w->weight_kg, 14.8);
	ck_assert_int_eq(w->psu_count, 2);
	ck_assert_str_eq(w->psu_redundancy, "1+1");
	ck_assert_ptr_null(w->psu_inlet);
	ck_assert(isnan(catalog_switch(c, "qm8700")->weight_kg));
	ck_assert_int_eq(catalog_switch(c, "sn5600")->ports[0].count, 64);
	ck_assert_int_eq(catalog_switch(c, "q3400")->rack_units, -1);
	catalog_free(c);
}
END_TEST

/*
 * The HGX 8-GPU servers of the server vendors, and the XE9680's inlet: what
 * a source read states is set, what it read in a secondary source is
 * unconfirmed, the rest null and unknown (docs/catalog.md).
 */
START_TEST(test_catalog_lookup_hgx_systems)
{
	struct catalog		*c = test_catalog_shipped();
	const struct cat_system	*x = catalog_system(c, "xe9680");
	const struct cat_system	*a = catalog_system(c, "xa-nb3i-e12");
	const struct cat_system	*s = catalog_system(c, "sys-821ge-tnhr");

	ck_assert_ptr_eq(x, catalog_system(c, "dell-xe9680"));
	ck_assert_str_eq(x->psu_inlet, "C22");
	ck_assert(test_catalog_has(&x->m.unconfirmed, "psu.inlet"));
	ck_assert(!test_catalog_has(&x->m.unknown, "psu.inlet"));
	ck_assert(test_catalog_has(&x->m.sources, "S-DELL-XE9680-PSU"));

	ck_assert_ptr_eq(a, catalog_system(c, "asus-xa-nb3i-e12"));
	ck_assert_int_eq(a->rack_units, 9);
	ck_assert_str_eq(a->gpus.model, "b300-sxm");
	ck_assert_int_eq(a->gpus.count, 8);
	ck_assert_uint_eq(a->nnics, 1);
	ck_assert_str_eq(a->nics[0].model, "connectx-8-supernic");
	ck_assert_int_eq(a->nics[0].count, 8);
	ck_assert_str_eq(a->cooling, "air");
	ck_assert_int_eq(a->psu_count, 10);
	ck_assert_str_eq(a->psu_redundancy, "5+5");
	ck_assert_ptr_null(a->psu_inlet);
	ck_assert_uint_eq(a->npsu_ratings, 0);
	ck_assert(test_catalog_has(&a->m.unconfirmed, "psu.count"));
	ck_assert(test_catalog_has(&a->m.unknown, "psu.ratings"));
	ck_assert_ptr_null(a->cpu.model);
	ck_assert(isnan(a->depth_mm));

	ck_assert_ptr_eq(s, catalog_system(c, "supermicro-sys-821ge-tnhr"));
	ck_assert_int_eq(s->rack_units, 8);
	ck_assert_str_eq(s->gpus.model, "h200-sxm");
	ck_assert_int_eq(s->psu_count, -1);
	ck_assert_ptr_null(s->psu_redundancy);
	/* Supermicro's own MLPerf systems: two sockets, 32 DIMMs installed. */
	ck_assert_int_eq(s->cpu_sockets, 2);
	ck_assert_int_eq(s->memory_slots, 32);
	ck_assert(test_catalog_has(&s->m.unconfirmed, "memory_slots"));
	ck_assert(test_catalog_has(&s->m.sources, "S-MLP-SMC-821GE"));
	ck_assert(test_catalog_has(&s->m.unconfirmed, "rack_units"));
	ck_assert(test_catalog_has(&s->m.unknown, "psu"));
	ck_assert(test_catalog_has(&s->m.unknown, "slots"));
	catalog_free(c);
}
END_TEST

/*
 * Supermicro's HGX B200 servers: their MLPerf systems give sockets,
 * cooling and DIMMs installed, never height or PSUs, so those stay
 * unknown (check assumes 1 U and asks the plan for psu).
 */
START_TEST(test_catalog_lookup_supermicro_b200)
{
	struct catalog		*c = test_catalog_shipped();
	const struct cat_system	*air = catalog_system(c, "sys-a21ge-nbrt");
	const struct cat_system	*lcc = catalog_system(c,
	    "supermicro-sys-421ge-nbrt-lcc");
	const struct cat_system	*gnr = catalog_system(c,
	    "supermicro-sys-422ga-nbrt-lcc");

	ck_assert_ptr_eq(air, catalog_system(c, "supermicro-sys-a21ge-nbrt"));
	ck_assert_str_eq(air->gpus.model, "b200-sxm");
	ck_assert_int_eq(air->gpus.count, 8);
	ck_assert_str_eq(air->cooling, "air");
	ck_assert_int_eq(air->cpu_sockets, 2);
	ck_assert_int_eq(air->rack_units, -1);
	ck_assert_int_eq(air->psu_count, -1);
	ck_assert_ptr_null(air->cpu.model);
	ck_assert(test_catalog_has(&air->m.unknown, "rack_units"));
	ck_assert(test_catalog_has(&air->m.unknown, "psu"));

	ck_assert_ptr_nonnull(lcc);
	ck_assert_str_eq(lcc->cooling, "liquid");
	ck_assert(isnan(lcc->heat_to_liquid_pct));
	ck_assert(test_catalog_has(&lcc->m.unknown, "heat_to_liquid_pct"));

	/* 24 DIMMs on two 12-channel sockets say nothing of the slots. */
	ck_assert_ptr_nonnull(gnr);
	ck_assert_int_eq(gnr->memory_slots, -1);
	ck_assert(test_catalog_has(&gnr->m.unknown, "memory_slots"));
	ck_assert_ptr_nonnull(catalog_system(c, "as-a126gs-tnbr"));
	catalog_free(c);
}
END_TEST

/*
 * The Xeon 6776P per SKU from Intel's export, and the DGX B300 that fixes
 * two of them: 88 lanes a socket, 2S by the catalog's Xeon rule.
 */
START_TEST(test_catalog_lookup_xeon_6776p)
{
	struct catalog		*c = test_catalog_shipped();
	const struct cat_cpu	*cpu = catalog_cpu(c, "xeon-6776p");
	const struct cat_system	*dgx = catalog_system(c, "dgx-b300");

	ck_assert_ptr_nonnull(cpu);
	ck_assert_int_eq(cpu->cores, 64);
	ck_assert_int_eq(cpu->pcie_gen, 5);
	ck_assert_int_eq(cpu->pcie_lanes, 88);
	ck_assert_int_eq(cpu->pcie_lanes_2s, 176);
	ck_assert(test_catalog_has(&cpu->m.unconfirmed, "pcie_lanes_2s"));
	ck_assert(test_catalog_has(&cpu->m.sources, "S-ARK-XEON6"));
	ck_assert_ptr_nonnull(dgx);
	ck_assert_str_eq(dgx->cpu.model, "xeon-6776p");
	ck_assert_int_eq(dgx->cpu.count, 2);
	catalog_free(c);
}
END_TEST

START_TEST(test_catalog_by_pci)
{
	struct catalog	*c = test_catalog_shipped();

	ck_assert_ptr_eq(catalog_gpu_by_pci(c, "10de:20b5"),
	    catalog_gpu(c, "a100-pcie-80gb"));
	/* Two device ids for one card. */
	ck_assert_ptr_eq(catalog_gpu_by_pci(c, "10de:20f1"),
	    catalog_gpu(c, "a100-pcie-40gb"));
	ck_assert_ptr_eq(catalog_gpu_by_pci(c, "10de:20b1"),
	    catalog_gpu(c, "a100-pcie-40gb"));
	ck_assert_ptr_eq(catalog_nic_by_pci(c, "15b3:101b"),
	    catalog_nic(c, "connectx-6-hdr-1p"));
	/* Device ids issue 16 found missing: VMs' virtual functions, older and
	   newer GPUs. */
	ck_assert_ptr_eq(catalog_nic_by_pci(c, "15b3:101c"),
	    catalog_nic(c, "connectx-6-hdr-1p"));
	ck_assert_ptr_nonnull(catalog_nic_by_pci(c, "15b3:101e"));
	ck_assert_ptr_eq(catalog_nic_by_pci(c, "15b3:1023"),
	    catalog_nic(c, "connectx-8-supernic"));
	ck_assert_ptr_eq(catalog_gpu_by_pci(c, "10de:1df6"),
	    catalog_gpu(c, "v100s-pcie-32gb"));
	ck_assert_ptr_eq(catalog_gpu_by_pci(c, "10de:15f8"),
	    catalog_gpu(c, "p100-pcie-16gb"));
	ck_assert_ptr_eq(catalog_gpu_by_pci(c, "10de:2342"),
	    catalog_gpu(c, "gh200-96gb"));
	ck_assert_ptr_eq(catalog_gpu_by_pci(c, "10de:2348"),
	    catalog_gpu(c, "gh200-144gb"));
	ck_assert_ptr_eq(catalog_gpu_by_pci(c, "10de:2941"),
	    catalog_gpu(c, "gb200"));
	ck_assert_ptr_eq(catalog_gpu_by_pci(c, "10de:2901"),
	    catalog_gpu(c, "b200-sxm"));
	ck_assert_ptr_eq(catalog_gpu_by_pci(c, "1002:74a5"),
	    catalog_gpu(c, "mi325x"));
	ck_assert_ptr_null(catalog_gpu_by_pci(c, "10de:ffff"));
	ck_assert_ptr_null(catalog_gpu_by_pci(c, "15b3:101b"));
	ck_assert_ptr_null(catalog_nic_by_pci(c, "10de:20b5"));
	ck_assert_ptr_null(catalog_gpu_by_pci(c, "10DE:20B5"));
	ck_assert_ptr_null(catalog_gpu_by_pci(c, ""));
	catalog_free(c);
}
END_TEST

/* Overrides. */

START_TEST(test_catalog_override)
{
	struct catalog		*c = test_catalog_shipped();
	struct prov_errs	 errs = PROV_ERRS_INIT;
	char			*dir = test_catalog_tmpdir();
	const struct cat_gpu	*old, *g;
	const struct cat_nic	*n;
	size_t			 count, i, seen;
	const char *const	*ids;
	char			*e;

	count = catalog_count(c, CAT_GPU);
	old = catalog_gpu(c, "a100-pcie-80gb");
	ck_assert_ptr_nonnull(old);
	/*
	 * Same id, one alias dropped, one kept, one new; a NIC overridden
	 * with the very same alias; a new GPU.
	 */
	test_catalog_write(dir, "a.yaml",
	    "gpus:\n"
	    "  a100-pcie-80gb:\n"
	    "    name: Site A100 80GB, power capped\n"
	    "    pci_ids: [\"10de:20b5\", \"10de:abcd\"]\n"
	    "    power_w: 250\n"
	    "    form_factor: fhfl\n"
	    "    aliases: [site-a100]\n"
	    "    unconfirmed: [power_w]\n"
	    "  a100-pcie-40gb:\n"
	    "    name: Site A100 40GB\n"
	    "    form_factor: fhfl\n"
	    "    aliases: [a100-40gb-pcie]\n"
	    "    unconfirmed: [everything]\n"
	    "  site-gpu:\n"
	    "    name: Site GPU\n"
	    "    form_factor: hhhl\n"
	    "    unconfirmed: [everything]\n"
	    "nics:\n"
	    "  connectx-6-hdr-1p:\n"
	    "    name: Site CX6\n"
	    "    kind: infiniband\n"
	    "    aliases: [cx6-vpi-hdr-1p]\n"
	    "    unconfirmed: [everything]\n");
	ck_assert_int_eq(catalog_load_dir(c, dir, &errs), 0);
	e = test_catalog_errs(&errs);
	ck_assert_str_eq(e, "");
	free(e);

	g = catalog_gpu(c, "a100-pcie-80gb");
	ck_assert_ptr_nonnull(g);
	ck_assert_str_eq(g->m.name, "Site A100 80GB, power capped");
	ck_assert_double_eq(g->power_w, 250);
	/* Nothing of the old entry shows through. */
	ck_assert(isnan(g->memory_gb));
	ck_assert_int_eq(g->mig_max, 0);
	ck_assert_uint_eq(catalog_count(c, CAT_GPU), count + 1);
	/* The old alias now leads to the new entry, and so does the new one. */
	ck_assert_ptr_eq(catalog_gpu(c, "a100-80gb-pcie"), g);
	ck_assert_ptr_eq(catalog_gpu(c, "site-a100"), g);
	ck_assert_ptr_eq(catalog_gpu_by_pci(c, "10de:abcd"), g);
	ck_assert_ptr_eq(catalog_gpu_by_pci(c, "10de:20b5"), g);
	/* An alias the new entry also declares. */
	ck_assert_str_eq(catalog_gpu(c, "a100-40gb-pcie")->m.name,
	    "Site A100 40GB");
	ck_assert_ptr_eq(catalog_gpu(c, "a100-40gb-pcie"),
	    catalog_gpu(c, "a100-pcie-40gb"));
	n = catalog_nic(c, "cx6-vpi-hdr-1p");
	ck_assert_ptr_nonnull(n);
	ck_assert_str_eq(n->m.name, "Site CX6");
	ck_assert_ptr_eq(catalog_nic(c, "connectx-6-hdr-1p"), n);
	ck_assert_ptr_nonnull(catalog_gpu(c, "site-gpu"));

	/* The id appears once, in its old place. */
	ids = catalog_ids(c, CAT_GPU);
	for (i = seen = 0; ids[i] != NULL; i++)
		if (strcmp(ids[i], "a100-pcie-80gb") == 0) {
			seen++;
			ck_assert_ptr_eq(catalog_meta_at(c, CAT_GPU, i),
			    (const void *)g);
		}
	ck_assert_uint_eq(seen, 1);
	ck_assert_str_eq(ids[count], "site-gpu");
	ck_assert_ptr_null(ids[count + 1]);

	/* A third load over the second: the aliases still hold. */
	test_catalog_write(dir, "a.yaml",
	    "gpus:\n"
	    "  a100-pcie-80gb:\n"
	    "    name: Third\n"
	    "    form_factor: fhfl\n"
	    "    unconfirmed: [everything]\n");
	ck_assert_int_eq(catalog_load_dir(c, dir, &errs), 0);
	g = catalog_gpu(c, "a100-pcie-80gb");
	ck_assert_str_eq(g->m.name, "Third");
	ck_assert_ptr_eq(catalog_gpu(c, "a100-80gb-pcie"), g);
	ck_assert_ptr_eq(catalog_gpu(c, "site-a100"), g);
	ck_assert_ptr_null(catalog_gpu_by_pci(c, "10de:abcd"));

	/* The result still validates (sources of the shipped entries hold). */
	ck_assert_int_eq(catalog_validate(c, &errs), 0);
	prov_errs_release(&errs);
	test_catalog_rmdir(dir);
	catalog_free(c);
}
END_TEST

/* Errors. */

static const struct {
	const char	*text;
	const char	*want;
} error_cases[] = {
	{ "gpuz:\n  x: {}\n", "x.yaml:1:1: unknown catalog section 'gpuz' "
	    "(did you mean 'gpus'?)\n" },
	{ "parts:\n  x: {}\n", "x.yaml:1:1: unknown catalog section "
	    "'parts'\n" },
	{ "gpus:\n"
	  "  g1:\n"
	  "    name: G\n"
	  "    form_factor: fhfl\n"
	  "    memroy_gb: 3\n",
	  "x.yaml:5:5: unknown key 'memroy_gb' (did you mean 'memory_gb'?)\n" },
	{ "gpus:\n"
	  "  g1:\n"
	  "    name: G\n",
	  "x.yaml:3:5: missing key 'form_factor'\n" },
	{ "gpus:\n"
	  "  g1: { name: G, form_factor: SXM5 }\n",
	  "x.yaml:2:31: unknown form_factor 'SXM5' (did you mean 'sxm5'?)\n" },
	{ "gpus:\n"
	  "  g1: { name: G, form_factor: fhfl, power_w: 300W }\n",
	  "x.yaml:2:46: 'power_w' must be a number, not '300W'\n" },
	{ "gpus:\n"
	  "  g1: { name: G, form_factor: fhfl, slot_width: \"2\" }\n",
	  "x.yaml:2:49: 'slot_width' must be a whole number, not the string "
	  "'2' (write it without quotes)\n" },
	{ "gpus: [a, b]\n", "x.yaml:1:7: 'gpus' must be a mapping of part ids, "
	    "not a list\n" },
	{ "gpus:\n  g1: 5\n", "x.yaml:2:7: expected a mapping, not '5' (write "
	    "'key: value' pairs)\n" },
	{ "systems:\n  s1: 5\n", "x.yaml:2:7: 's1' must be a mapping, not "
	    "'5'\n" },
	{ "switches:\n  w1: [x]\n", "x.yaml:2:7: 'w1' must be a mapping, not "
	    "a list\n" },
	{ "switches:\n  w1: { name: W, kind: ethernet, ports: 48 }\n",
	    "x.yaml:2:41: 'ports' must be a list of { count, gbps }, not "
	    "'48'\n" },
	{ "nics:\n  n1: { name: N, kind: fibre }\n",
	    "x.yaml:2:24: unknown kind 'fibre' (one of 'ethernet', "
	    "'infiniband', 'vpi')\n" },
	{ "systems:\n"
	  "  s1:\n"
	  "    name: S\n"
	  "    psu: { count: 2, ratings: [ { volts_min: 200 } ] }\n"
	  "    slots: [ { lanes: 16, height: tall } ]\n",
	  "x.yaml:4:33: missing key 'volts_max'\n"
	  "x.yaml:4:33: missing key 'watts'\n"
	  "x.yaml:5:35: unknown height 'tall' (one of 'full', 'low')\n" },
	{ "- a\n- b\n", "x.yaml:1:1: 'catalog file' must be a mapping, not "
	    "a list\n" },
	/* The fields for weight, PSU inlets and liquid cooling. */
	{ "systems:\n"
	  "  s1:\n"
	  "    name: S\n"
	  "    heat_to_liquid_pct: 120\n"
	  "    weight_kg: heavy\n"
	  "    psu: { count: 2, inlet: C19 }\n",
	  "x.yaml:4:25: 'heat_to_liquid_pct' is 120, outside 0..100\n"
	  "x.yaml:5:16: 'weight_kg' must be a number, not 'heavy'\n"
	  "x.yaml:6:29: unknown inlet 'C19' (did you mean 'C14'?)\n" },
	{ "switches:\n"
	  "  w1:\n"
	  "    name: W\n"
	  "    kind: ethernet\n"
	  "    ports: [ { count: 48, gbps: 25 } ]\n"
	  "    psu: { count: 2, inlet: c14, fans: 6 }\n",
	  "x.yaml:6:29: unknown inlet 'c14' (did you mean 'C14'?)\n"
	  "x.yaml:6:34: unknown key 'fans'\n" },
	/* Errors come sorted by place, whatever order they were found in. */
	{ "gpus:\n"
	  "  g1: { name: G, form_factor: bad }\n"
	  "cpus:\n"
	  "  c1: { name: C, cores: many }\n"
	  "bogus: 1\n",
	  "x.yaml:2:31: unknown form_factor 'bad' (one of 'fhfl', 'fhhl', "
	  "'hhhl', 'sxm2', 'sxm4', 'sxm5', 'sxm6', 'oam', 'superchip')\n"
	  "x.yaml:4:25: 'cores' must be a whole number, not 'many'\n"
	  "x.yaml:5:1: unknown catalog section 'bogus'\n" },
};

START_TEST(test_catalog_error_table)
{
	struct catalog	*c = catalog_new();
	char		*e;

	ck_assert_int_eq(test_catalog_text(c, error_cases[_i].text, &e), -1);
	ck_assert_msg(strcmp(e, error_cases[_i].want) == 0,
	    "for:\n%s\ngot:\n%s\nwant:\n%s", error_cases[_i].text, e,
	    error_cases[_i].want);
	free(e);
	catalog_free(c);
}
END_TEST

/* A bad entry is left out; good entries beside it load. */
START_TEST(test_catalog_bad_entry_skipped)
{
	struct catalog	*c = catalog_new();
	char		*e;

	ck_assert_int_eq(test_catalog_text(c,
	    "gpus:\n"
	    "  good: { name: Good, form_factor: sxm5 }\n"
	    "  bad: { name: Bad, form_factor: nope }\n", &e), -1);
	free(e);
	ck_assert_ptr_nonnull(catalog_gpu(c, "good"));
	ck_assert_ptr_null(catalog_gpu(c, "bad"));
	ck_assert_uint_eq(catalog_count(c, CAT_GPU), 1);
	catalog_free(c);
}
END_TEST

START_TEST(test_catalog_broken_yaml)
{
	struct catalog		*c = catalog_new();
	struct prov_errs	 errs = PROV_ERRS_INIT;
	char			*dir = test_catalog_tmpdir();
	char			*path = xasprintf("%s/broken.yaml", dir);
	char			*e;

	test_catalog_write(dir, "broken.yaml",
	    "gpus:\n  g1: { name: [unclosed\n");
	test_catalog_write(dir, "fine.yaml",
	    "gpus:\n  g2: { name: G2, form_factor: oam }\n");
	/* Not YAML files: ignored. */
	test_catalog_write(dir, "README.md", "gpus: {");
	test_catalog_write(dir, ".hidden.yaml", "gpus: {");
	ck_assert_int_eq(catalog_load_dir(c, dir, &errs), -1);
	ck_assert_uint_eq(errs.n, 1);
	ck_assert_int_ne(errs.v[0].code, PROV_E_NONE);
	/* Located in the file, by its path. */
	ck_assert_str_eq(errs.v[0].loc.file, path);
	ck_assert_uint_eq(errs.v[0].loc.line, 3);
	e = prov_err_format(&errs.v[0]);
	ck_assert_int_eq(strncmp(e, path, strlen(path)), 0);
	free(e);
	/* The other file still loaded. */
	ck_assert_ptr_nonnull(catalog_gpu(c, "g2"));
	prov_errs_release(&errs);
	free(path);
	test_catalog_rmdir(dir);
	catalog_free(c);
}
END_TEST

START_TEST(test_catalog_missing)
{
	struct catalog		*c = catalog_new();
	struct prov_errs	 errs = PROV_ERRS_INIT;
	char			*e;

	ck_assert_int_eq(catalog_load_dir(c, "/nonexistent/profiles", &errs),
	    -1);
	ck_assert_int_eq(catalog_load_file(c, "/nonexistent/gpus.yaml", &errs),
	    -1);
	e = test_catalog_errs(&errs);
	ck_assert_str_eq(e, "cannot read catalog dir '/nonexistent/profiles': "
	    "No such file or directory (set --profiles or PROVISION_PROFILES "
	    "to the catalog dir)\n"
	    "cannot read catalog file '/nonexistent/gpus.yaml': No such file "
	    "or directory\n");
	ck_assert_int_eq(errs.v[0].code, PROV_E_CATALOG);
	free(e);
	prov_errs_release(&errs);
	catalog_free(c);
}
END_TEST

/* Empty files, comments only, and empty sections are fine. */
START_TEST(test_catalog_empty)
{
	struct catalog	*c = catalog_new();
	char		*e;

	ck_assert_int_eq(test_catalog_text(c, "", &e), 0);
	ck_assert_str_eq(e, "");
	free(e);
	ck_assert_int_eq(test_catalog_text(c, "# nothing here\n", &e), 0);
	free(e);
	ck_assert_int_eq(test_catalog_text(c, "gpus:\nnics: ~\n", &e), 0);
	free(e);
	ck_assert_uint_eq(catalog_count(c, CAT_GPU), 0);
	ck_assert_ptr_null(catalog_ids(c, CAT_GPU)[0]);
	ck_assert_int_eq(catalog_validate(c, &(struct prov_errs)PROV_ERRS_INIT),
	    0);
	catalog_free(c);
	catalog_free(NULL);
}
END_TEST

/* Numbers a file does not give are NAN or -1, never 0. */
START_TEST(test_catalog_unknown_values)
{
	struct catalog		*c = catalog_new();
	const struct cat_gpu	*g;
	const struct cat_nic	*n;
	const struct cat_cpu	*cpu;
	const struct cat_system	*s;
	const struct cat_switch	*w;
	char			*e;

	ck_assert_int_eq(test_catalog_text(c,
	    "gpus:\n"
	    "  g: { name: G, form_factor: sxm5, power_w: null, "
	    "slot_width: ~ }\n"
	    "nics:\n"
	    "  n: { name: N, kind: ethernet }\n"
	    "cpus:\n"
	    "  c: { name: C }\n"
	    "systems:\n"
	    "  s: { name: S }\n"
	    "switches:\n"
	    "  w: { name: W, kind: ethernet,\n"
	    "       ports: [ { count: 48, gbps: 25 } ] }\n",
	    &e), 0);
	ck_assert_str_eq(e, "");
	free(e);
	g = catalog_gpu(c, "g");
	ck_assert(isnan(g->memory_gb));
	ck_assert(isnan(g->power_w));
	ck_assert(isnan(g->nvlink_gbs));
	ck_assert(isnan(g->fp16_tflops));
	ck_assert_int_eq(g->slot_width, -1);
	ck_assert_int_eq(g->pcie_gen, -1);
	ck_assert_int_eq(g->pcie_lanes, -1);
	ck_assert_int_eq(g->mig_max, 0);
	ck_assert_ptr_null(g->cooling);
	ck_assert_ptr_null(g->m.vendor);
	ck_assert_uint_eq(g->pci_ids.n, 0);
	ck_assert_uint_eq(g->m.aliases.n, 0);
	n = catalog_nic(c, "n");
	ck_assert(isnan(n->gbps));
	ck_assert(isnan(n->power_w));
	ck_assert_int_eq(n->ports, -1);
	ck_assert_int_eq(n->pcie_gen, -1);
	ck_assert_int_eq(n->slot_width, -1);
	cpu = catalog_cpu(c, "c");
	ck_assert(isnan(cpu->power_w));
	ck_assert_int_eq(cpu->cores, -1);
	ck_assert_int_eq(cpu->threads, -1);
	ck_assert_int_eq(cpu->pcie_lanes_2s, -1);
	ck_assert_int_eq(cpu->memory_channels, -1);
	s = catalog_system(c, "s");
	ck_assert(isnan(s->depth_mm));
	ck_assert(isnan(s->max_power_w));
	ck_assert(isnan(s->memory_gb));
	ck_assert_int_eq(s->rack_units, -1);
	ck_assert_int_eq(s->cpu_sockets, -1);
	ck_assert_int_eq(s->psu_count, -1);
	ck_assert(isnan(s->weight_kg));
	ck_assert(isnan(s->heat_to_liquid_pct));
	ck_assert_ptr_null(s->psu_inlet);
	ck_assert_int_eq(s->cpu.count, -1);
	ck_assert_int_eq(s->gpus.count, -1);
	ck_assert_ptr_null(s->gpus.model);
	ck_assert_uint_eq(s->nslots, 0);
	ck_assert_uint_eq(s->nnics, 0);
	w = catalog_switch(c, "w");
	ck_assert(isnan(w->power_w));
	ck_assert(isnan(w->depth_mm));
	ck_assert_int_eq(w->rack_units, -1);
	ck_assert(isnan(w->weight_kg));
	ck_assert_int_eq(w->psu_count, -1);
	ck_assert_ptr_null(w->psu_redundancy);
	ck_assert_ptr_null(w->psu_inlet);
	ck_assert_int_eq(w->ports[0].count, 48);
	catalog_free(c);
}
END_TEST

START_TEST(test_catalog_validate_errors)
{
	struct catalog		*c = catalog_new();
	struct prov_errs	 errs = PROV_ERRS_INIT;
	char			*e;

	ck_assert_int_eq(test_catalog_text(c,
	    "sources:\n"
	    "  S-OK: { title: t, url: u }\n"
	    "gpus:\n"
	    "  g1: { name: G1, form_factor: sxm5, sources: [S-OK, S-NOPE] }\n"
	    "  g2: { name: G2, form_factor: sxm5 }\n"
	    "nics:\n"
	    "  n1: { name: Port, vendor: generic, kind: ethernet }\n"
	    "systems:\n"
	    "  s1:\n"
	    "    name: S1\n"
	    "    sources: [S-OK]\n"
	    "    cpu: { model: cpu-x }\n"
	    "    gpus: { model: g1, models: [g1, gpu-y] }\n"
	    "    nics: [ { model: n1 }, { model: nic-z } ]\n", &e), 0);
	ck_assert_str_eq(e, "");
	free(e);
	ck_assert_int_eq(catalog_validate(c, &errs), -1);
	e = test_catalog_errs(&errs);
	ck_assert_str_eq(e,
	    "x.yaml:4:3: gpu 'g1': unknown source 'S-NOPE' (define it under "
	    "'sources:')\n"
	    "x.yaml:5:3: gpu 'g2' has no sources (every number carries its "
	    "source, or is listed under 'unconfirmed' or 'unknown')\n"
	    "x.yaml:9:3: system 's1': unknown cpu 'cpu-x'\n"
	    "x.yaml:9:3: system 's1': unknown gpu 'gpu-y'\n"
	    "x.yaml:9:3: system 's1': unknown nic 'nic-z'\n");
	free(e);
	prov_errs_release(&errs);
	catalog_free(c);
}
END_TEST

START_TEST(test_catalog_default_dir)
{
	char	*d;

	ck_assert_int_eq(setenv("PROVISION_PROFILES", "/opt/site/profiles", 1),
	    0);
	d = catalog_default_dir();
	ck_assert_str_eq(d, "/opt/site/profiles");
	free(d);
	ck_assert_int_eq(unsetenv("PROVISION_PROFILES"), 0);
	d = catalog_default_dir();
	ck_assert_ptr_nonnull(d);
	ck_assert_int_gt((int)strlen(d), 0);
	free(d);
}
END_TEST

/* A profiles dir is anyone's to write: every string says what it holds. */
static void
test_catalog_field(void *arg, const char *path, const struct schema_field *f)
{
	size_t	*n = arg;

	ck_assert_msg(f->type != SCHEMA_STR, "catalog field '%s' is a string "
	    "of any kind: give it a type that says what it holds", path);
	if (schema_type_info(f->type) != NULL)
		(*n)++;
}

START_TEST(test_catalog_strings_typed)
{
	size_t			 n = 0;
	struct catalog		*c = catalog_new();
	struct prov_errs	 errs = PROV_ERRS_INIT;
	static const char	 bad[] =
	    "gpus:\n"
	    "  g1: { name: \"G\\e[2J\\nx\", form_factor: fhfl,\n"
	    "        pci_ids: [\"10de:20b0;x\"], aliases: [\"a b\"] }\n";

	catalog_schema_walk(test_catalog_field, &n);
	ck_assert_uint_gt(n, 15);
	ck_assert_int_eq(catalog_load_buf(c, "c.yaml", bad, sizeof bad - 1,
	    &errs), -1);
	ck_assert_uint_eq(errs.n, 3);
	ck_assert_str_eq(errs.v[0].msg, "'name' is not one line of text: "
	    "'G\\x1b[2J\\nx'");
	ck_assert_str_eq(errs.v[1].msg, "'pci_ids' is not a PCI vendor:device "
	    "id: '10de:20b0;x'");
	ck_assert_str_eq(errs.v[2].msg, "'aliases' is not a word: 'a b'");
	prov_errs_release(&errs);
	catalog_free(c);
}
END_TEST

static Suite *
catalog_suite(void)
{
	Suite	*s = suite_create("catalog");
	TCase	*tc;

	tc = tcase_create("shipped");
	tcase_set_timeout(tc, 30);
	tcase_add_test(tc, test_catalog_shipped_loads);
	tcase_add_test(tc, test_catalog_strings_typed);
	tcase_add_test(tc, test_catalog_shipped_counts);
	tcase_add_test(tc, test_catalog_lookup_gpu);
	tcase_add_test(tc, test_catalog_lookup_system);
	tcase_add_test(tc, test_catalog_lookup_others);
	tcase_add_test(tc, test_catalog_lookup_new_systems);
	tcase_add_test(tc, test_catalog_lookup_hgx_systems);
	tcase_add_test(tc, test_catalog_lookup_supermicro_b200);
	tcase_add_test(tc, test_catalog_lookup_xeon_6776p);
	tcase_add_test(tc, test_catalog_by_pci);
	suite_add_tcase(s, tc);

	tc = tcase_create("override");
	tcase_set_timeout(tc, 30);
	tcase_add_test(tc, test_catalog_override);
	suite_add_tcase(s, tc);

	tc = tcase_create("errors");
	tcase_add_loop_test(tc, test_catalog_error_table, 0,
	    (int)ARRAY_SIZE(error_cases));
	tcase_add_test(tc, test_catalog_bad_entry_skipped);
	tcase_add_test(tc, test_catalog_broken_yaml);
	tcase_add_test(tc, test_catalog_missing);
	tcase_add_test(tc, test_catalog_empty);
	tcase_add_test(tc, test_catalog_unknown_values);
	tcase_add_test(tc, test_catalog_validate_errors);
	tcase_add_test(tc, test_catalog_default_dir);
	suite_add_tcase(s, tc);
	return s;
}

TEST_MAIN(catalog_suite)

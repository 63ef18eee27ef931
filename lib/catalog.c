/*
 * catalog.c: load the hardware catalog from YAML files in profiles/.
 *
 * Each file holds one or more sections, each a mapping from part id to
 * its entry (docs/catalog.md has every field):
 *
 *	sources:  { S-KEY: { title, url } }
 *	gpus:     { ID: { name, vendor, pci_ids, memory_gb, power_w, ... } }
 *	nics:     { ID: { ... } }   cpus: { ... }   systems: { ... }
 *	switches: { ID: { ... } }
 *	models:   { ID: { name, params, layers, hidden, heads, ... } }
 *
 * The YAML docs stay loaded for the catalog's lifetime and entries borrow
 * their strings, so loading costs one parse and no copies.  A later entry
 * with the same id replaces an earlier one (user dirs override built-ins).
 */
#include "compat.h"

#include <dirent.h>
#include <limits.h>
#include <math.h>

#include "buf.h"
#include "catalog.h"
#include "fs.h"
#include "schema.h"
#include "str.h"
#include "strmap.h"

struct cat_table {
	void		**v;		/* struct cat_gpu * etc.; meta first */
	size_t		  n, alloc;
	struct strmap	  ids;		/* id and aliases -> entry */
	const char	**idlist;	/* NULL-terminated, rebuilt on demand */
};

struct catalog {
	struct cat_table	 t[CAT_NKINDS];
	struct strmap		 sources;
	struct yml_doc		**docs;
	size_t			 ndocs, adocs;
	struct strvec		 labels;	/* file names the docs borrow */
	struct strvec		 keys;		/* old aliases the maps borrow */
};

static const char *const cat_kind_names[CAT_NKINDS] = { "gpu", "nic", "cpu",
    "system", "switch", "model" };
/* One per kind, in enum order, then the sources. */
static const char *const cat_sections[] = { "gpus", "nics", "cpus",
    "systems", "switches", "models", "sources", NULL };

static const char *const cat_gpu_ff[] = { "fhfl", "fhhl", "hhhl", "sxm2",
    "sxm4", "sxm5", "sxm6", "oam", "superchip", NULL };
static const char *const cat_nic_ff[] = { "fhhl", "hhhl", "fhfl", "ocp3",
    "onboard", NULL };
static const char *const cat_cooling[] = { "passive", "active", "liquid",
    NULL };
static const char *const cat_nic_kinds[] = { "ethernet", "infiniband", "vpi",
    NULL };
static const char *const cat_sys_cooling[] = { "air", "liquid", NULL };
/* IEC 60320 appliance inlets on the supply, or no cord at all. */
static const char *const cat_psu_inlets[] = { "C14", "C16", "C20", "C22",
    "busbar", "hardwired", NULL };
static const char *const cat_mlps[] = { "gelu", "swiglu", NULL };

#define NOLIM 1, 0
#define NUL SCHEMA_NULLABLE
#define M(k, t, m) { k, t, offsetof(struct cat_meta, m), 0, NULL, NULL, NOLIM }
#define F(k, t, s, m, fl) { k, t, offsetof(s, m), fl, NULL, NULL, NOLIM }
#define FR(k, t, s, m, fl, lo, hi) { k, t, offsetof(s, m), fl, NULL, NULL, lo, hi }
#define FE(k, s, m, fl, e) { k, SCHEMA_ENUM, offsetof(s, m), fl, e, NULL, NOLIM }
#define FEND { NULL, SCHEMA_END, 0, 0, NULL, NULL, NOLIM }
/* A count that must be at least 1. */
#define FN(k, s, m, fl) FR(k, SCHEMA_INT, s, m, fl, 1, 1e15)

/* Every kind embeds cat_meta first, so these offsets apply to all. */
#define META_FIELDS(s)							\
	F("name", SCHEMA_TEXT, s, m.name, SCHEMA_REQUIRED),		\
	F("vendor", SCHEMA_TEXT, s, m.vendor, 0),			\
	F("aliases", SCHEMA_WORD, s, m.aliases, SCHEMA_LIST),		\
	F("sources", SCHEMA_WORD, s, m.sources, SCHEMA_LIST),		\
	F("unconfirmed", SCHEMA_TEXT, s, m.unconfirmed, SCHEMA_LIST),	\
	F("unknown", SCHEMA_TEXT, s, m.unknown, SCHEMA_LIST),		\
	F("notes", SCHEMA_IGNORE, s, m.name, 0)

static const struct schema_field cat_gpu_fields[] = {
	META_FIELDS(struct cat_gpu),
	F("pci_ids", SCHEMA_PCIID, struct cat_gpu, pci_ids, SCHEMA_LIST),
	F("memory_gb", SCHEMA_NUM, struct cat_gpu, memory_gb, NUL),
	F("memory_type", SCHEMA_WORD, struct cat_gpu, memory_type, NUL),
	F("memory_bw_gbs", SCHEMA_NUM, struct cat_gpu, memory_bw_gbs, NUL),
	F("power_w", SCHEMA_NUM, struct cat_gpu, power_w, NUL),
	FE("form_factor", struct cat_gpu, form_factor, SCHEMA_REQUIRED, cat_gpu_ff),
	F("slot_width", SCHEMA_INT, struct cat_gpu, slot_width, NUL),
	F("pcie_gen", SCHEMA_INT, struct cat_gpu, pcie_gen, NUL),
	F("pcie_lanes", SCHEMA_INT, struct cat_gpu, pcie_lanes, NUL),
	FE("cooling", struct cat_gpu, cooling, NUL, cat_cooling),
	F("nvlink_gbs", SCHEMA_NUM, struct cat_gpu, nvlink_gbs, NUL),
	F("mig_max_instances", SCHEMA_INT, struct cat_gpu, mig_max, NUL),
	F("fp16_tflops", SCHEMA_NUM, struct cat_gpu, fp16_tflops, NUL),
	F("tensor_cores", SCHEMA_IGNORE, struct cat_gpu, m.name, 0),
	F("length_mm", SCHEMA_IGNORE, struct cat_gpu, m.name, 0),
	F("bf16_tflops", SCHEMA_NUM, struct cat_gpu, bf16_tflops, NUL),
	F("tf32_tflops", SCHEMA_NUM, struct cat_gpu, tf32_tflops, NUL),
	F("fp8_tflops", SCHEMA_NUM, struct cat_gpu, fp8_tflops, NUL),
	F("fp4_tflops", SCHEMA_NUM, struct cat_gpu, fp4_tflops, NUL),
	F("fp64_tflops", SCHEMA_NUM, struct cat_gpu, fp64_tflops, NUL),
	F("int8_tops", SCHEMA_NUM, struct cat_gpu, int8_tops, NUL),
	F("aux_power", SCHEMA_IGNORE, struct cat_gpu, m.name, 0),
	F("logical_gpus", SCHEMA_IGNORE, struct cat_gpu, m.name, 0),
	FEND
};

static const struct schema_field cat_nic_fields[] = {
	META_FIELDS(struct cat_nic),
	F("pci_ids", SCHEMA_PCIID, struct cat_nic, pci_ids, SCHEMA_LIST),
	FE("kind", struct cat_nic, kind, SCHEMA_REQUIRED, cat_nic_kinds),
	F("ports", SCHEMA_INT, struct cat_nic, ports, NUL),
	F("gbps", SCHEMA_NUM, struct cat_nic, gbps, NUL),
	F("pcie_gen", SCHEMA_INT, struct cat_nic, pcie_gen, NUL),
	F("pcie_lanes", SCHEMA_INT, struct cat_nic, pcie_lanes, NUL),
	FE("form_factor", struct cat_nic, form_factor, NUL, cat_nic_ff),
	F("slot_width", SCHEMA_INT, struct cat_nic, slot_width, NUL),
	F("power_w", SCHEMA_NUM, struct cat_nic, power_w, NUL),
	F("onboard", SCHEMA_BOOL, struct cat_nic, onboard, 0),
	F("opn", SCHEMA_IGNORE, struct cat_nic, m.name, 0),
	FEND
};

static const struct schema_field cat_cpu_fields[] = {
	META_FIELDS(struct cat_cpu),
	F("cores", SCHEMA_INT, struct cat_cpu, cores, NUL),
	F("threads", SCHEMA_INT, struct cat_cpu, threads, NUL),
	F("power_w", SCHEMA_NUM, struct cat_cpu, power_w, NUL),
	F("pcie_gen", SCHEMA_INT, struct cat_cpu, pcie_gen, NUL),
	F("pcie_lanes", SCHEMA_INT, struct cat_cpu, pcie_lanes, NUL),
	F("pcie_lanes_2s", SCHEMA_INT, struct cat_cpu, pcie_lanes_2s, NUL),
	F("memory_channels", SCHEMA_INT, struct cat_cpu, memory_channels, NUL),
	F("family", SCHEMA_IGNORE, struct cat_cpu, m.name, 0),
	F("memory_type", SCHEMA_IGNORE, struct cat_cpu, m.name, 0),
	FEND
};

static const struct schema_field cat_sys_fields[] = {
	META_FIELDS(struct cat_system),
	F("rack_units", SCHEMA_INT, struct cat_system, rack_units, NUL),
	F("depth_mm", SCHEMA_NUM, struct cat_system, depth_mm, NUL),
	F("width", SCHEMA_IGNORE, struct cat_system, m.name, 0),
	F("base_power_w", SCHEMA_NUM, struct cat_system, base_power_w, NUL),
	F("max_power_w", SCHEMA_NUM, struct cat_system, max_power_w, NUL),
	F("cpu_sockets", SCHEMA_INT, struct cat_system, cpu_sockets, NUL),
	F("memory_slots", SCHEMA_INT, struct cat_system, memory_slots, NUL),
	F("max_memory_gb", SCHEMA_NUM, struct cat_system, max_memory_gb, NUL),
	F("memory_gb", SCHEMA_NUM, struct cat_system, memory_gb, NUL),
	F("gpu_form_factors", SCHEMA_WORD, struct cat_system, gpu_form_factors, SCHEMA_LIST),
	FE("cooling", struct cat_system, cooling, NUL, cat_sys_cooling),
	F("nvlink_domain_gpus", SCHEMA_INT, struct cat_system, nvlink_domain_gpus, NUL),
	FR("weight_kg", SCHEMA_NUM, struct cat_system, weight_kg, NUL, 0, 100000),
	FR("heat_to_liquid_pct", SCHEMA_NUM, struct cat_system,
	    heat_to_liquid_pct, NUL, 0, 100),
	FEND
};

static const struct schema_field cat_model_fields[] = {
	META_FIELDS(struct cat_model),
	F("params", SCHEMA_NUM, struct cat_model, params, NUL),
	FN("layers", struct cat_model, layers, SCHEMA_REQUIRED),
	FN("hidden", struct cat_model, hidden, SCHEMA_REQUIRED),
	FN("heads", struct cat_model, heads, SCHEMA_REQUIRED),
	FN("kv_heads", struct cat_model, kv_heads, NUL),
	FN("ffn", struct cat_model, ffn, SCHEMA_REQUIRED),
	FN("vocab", struct cat_model, vocab, SCHEMA_REQUIRED),
	FN("seq", struct cat_model, seq, SCHEMA_REQUIRED),
	FE("mlp", struct cat_model, mlp, SCHEMA_REQUIRED, cat_mlps),
	F("tied", SCHEMA_BOOL, struct cat_model, tied, SCHEMA_REQUIRED),
	F("tokens", SCHEMA_NUM, struct cat_model, tokens, NUL),
	F("batch_tokens", SCHEMA_NUM, struct cat_model, batch_tokens, NUL),
	FEND
};

/* The structured system keys, read by hand after the flat ones. */
static const char *const cat_sys_nested[] = { "cpu", "gpus", "nics",
    "drives", "psu", "slots", NULL };

static const struct schema_field cat_fixed_fields[] = {
	F("model", SCHEMA_WORD, struct cat_fixed, model, NUL),
	F("count", SCHEMA_INT, struct cat_fixed, count, NUL),
	F("network_role", SCHEMA_WORD, struct cat_fixed, role, 0),
	F("models", SCHEMA_IGNORE, struct cat_fixed, model, 0),
	F("nvswitch", SCHEMA_IGNORE, struct cat_fixed, model, 0),
	FEND
};

static const struct schema_field cat_drive_fields[] = {
	F("kind", SCHEMA_WORD, struct cat_drive, kind, SCHEMA_REQUIRED),
	F("count", SCHEMA_INT, struct cat_drive, count, 0),
	F("tb", SCHEMA_NUM, struct cat_drive, tb, NUL),
	FEND
};

struct cat_psu_raw {
	long			 count;
	const char		*redundancy;
	const char		*inlet;
	const struct yml_node	*ratings;
};

static const struct schema_field cat_psu_fields[] = {
	F("count", SCHEMA_INT, struct cat_psu_raw, count, NUL),
	F("redundancy", SCHEMA_REDUNDANCY, struct cat_psu_raw, redundancy, NUL),
	FE("inlet", struct cat_psu_raw, inlet, NUL, cat_psu_inlets),
	F("ratings", SCHEMA_NODE, struct cat_psu_raw, ratings, 0),
	F("model", SCHEMA_IGNORE, struct cat_psu_raw, count, 0),
	F("efficiency", SCHEMA_IGNORE, struct cat_psu_raw, count, 0),
	FEND
};

static const struct schema_field cat_rating_fields[] = {
	F("volts_min", SCHEMA_NUM, struct cat_psu_rating, volts_min, SCHEMA_REQUIRED),
	F("volts_max", SCHEMA_NUM, struct cat_psu_rating, volts_max, SCHEMA_REQUIRED),
	F("watts", SCHEMA_NUM, struct cat_psu_rating, watts, SCHEMA_REQUIRED | NUL),
	FEND
};

static const char *const cat_heights[] = { "full", "low", NULL };
static const char *const cat_lengths[] = { "full", "half", NULL };

struct cat_slot_raw {
	const char	*name, *height, *length;
	long		 lanes, mech, gen, room, count, cpu;
};

static const struct schema_field cat_slot_fields[] = {
	F("name", SCHEMA_TEXT, struct cat_slot_raw, name, 0),
	F("lanes", SCHEMA_INT, struct cat_slot_raw, lanes, SCHEMA_REQUIRED),
	F("mech", SCHEMA_INT, struct cat_slot_raw, mech, 0),
	F("gen", SCHEMA_INT, struct cat_slot_raw, gen, NUL),
	FE("height", struct cat_slot_raw, height, 0, cat_heights),
	FE("length", struct cat_slot_raw, length, 0, cat_lengths),
	F("room", SCHEMA_INT, struct cat_slot_raw, room, 0),
	F("count", SCHEMA_INT, struct cat_slot_raw, count, 0),
	F("cpu", SCHEMA_INT, struct cat_slot_raw, cpu, NUL),
	F("notes", SCHEMA_IGNORE, struct cat_slot_raw, name, 0),
	FEND
};

static const struct schema_field cat_ports_fields[] = {
	F("count", SCHEMA_INT, struct cat_port_group, count, SCHEMA_REQUIRED),
	F("gbps", SCHEMA_NUM, struct cat_port_group, gbps, SCHEMA_REQUIRED),
	F("connector", SCHEMA_IGNORE, struct cat_port_group, count, 0),
	F("notes", SCHEMA_IGNORE, struct cat_port_group, count, 0),
	F("split_to", SCHEMA_IGNORE, struct cat_port_group, count, 0),
	FEND
};

/* A switch's psu: no ratings, the checker budgets power_w. */
static const struct schema_field cat_sw_psu_fields[] = {
	F("count", SCHEMA_INT, struct cat_switch, psu_count, NUL),
	F("redundancy", SCHEMA_REDUNDANCY, struct cat_switch, psu_redundancy, NUL),
	FE("inlet", struct cat_switch, psu_inlet, NUL, cat_psu_inlets),
	FEND
};

static const struct schema_field cat_switch_fields[] = {
	META_FIELDS(struct cat_switch),
	FE("kind", struct cat_switch, kind, SCHEMA_REQUIRED, cat_nic_kinds),
	F("rack_units", SCHEMA_INT, struct cat_switch, rack_units, NUL),
	F("depth_mm", SCHEMA_NUM, struct cat_switch, depth_mm, NUL),
	F("power_w", SCHEMA_NUM, struct cat_switch, power_w, NUL),
	F("power_typical_w", SCHEMA_NUM, struct cat_switch, power_typical_w, NUL),
	FR("weight_kg", SCHEMA_NUM, struct cat_switch, weight_kg, NUL, 0, 100000),
	F("ports", SCHEMA_IGNORE, struct cat_switch, m.name, 0),
	{ "psu", SCHEMA_OBJ, 0, NUL, NULL, cat_sw_psu_fields, NOLIM },
	F("model_number", SCHEMA_IGNORE, struct cat_switch, m.name, 0),
	F("managed", SCHEMA_IGNORE, struct cat_switch, m.name, 0),
	FEND
};

void
catalog_schema_walk(void (*fn)(void *, const char *,
    const struct schema_field *), void *arg)
{
	/* The tables, and those of what a system entry binds by hand. */
	static const struct {
		const char			*prefix;
		const struct schema_field	*fields;
	} t[] = {
		{ "gpus.*.", cat_gpu_fields },
		{ "nics.*.", cat_nic_fields },
		{ "cpus.*.", cat_cpu_fields },
		{ "systems.*.", cat_sys_fields },
		{ "systems.*.cpu.", cat_fixed_fields },
		{ "systems.*.gpus.", cat_fixed_fields },
		{ "systems.*.nics[].", cat_fixed_fields },
		{ "systems.*.drives[].", cat_drive_fields },
		{ "systems.*.psu.", cat_psu_fields },
		{ "systems.*.psu.ratings[].", cat_rating_fields },
		{ "systems.*.slots[].", cat_slot_fields },
		{ "switches.*.", cat_switch_fields },
		{ "switches.*.ports[].", cat_ports_fields },
		{ "models.*.", cat_model_fields },
	};
	size_t	i;

	for (i = 0; i < ARRAY_SIZE(t); i++)
		schema_walk(t[i].fields, t[i].prefix, fn, arg);
}

struct catalog *
catalog_new(void)
{
	struct catalog	*c = xcalloc(1, sizeof *c);

	c->labels = (struct strvec)STRVEC_INIT;
	c->keys = (struct strvec)STRVEC_INIT;
	return c;
}

static void
cat_meta_release(struct cat_meta *m)
{
	strvec_clear(&m->aliases);
	strvec_clear(&m->sources);
	strvec_clear(&m->unconfirmed);
	strvec_clear(&m->unknown);
}

static void
cat_entry_free(enum cat_kind k, void *e)
{
	if (e == NULL)
		return;
	cat_meta_release(e);
	switch (k) {
	case CAT_GPU:
		strvec_clear(&((struct cat_gpu *)e)->pci_ids);
		break;
	case CAT_NIC:
		strvec_clear(&((struct cat_nic *)e)->pci_ids);
		break;
	case CAT_SYSTEM: {
		struct cat_system	*s = e;

		strvec_clear(&s->gpu_models);
		strvec_clear(&s->gpu_form_factors);
		free(s->nics);
		free(s->drives);
		free(s->psu_ratings);
		free(s->slots);
		break;
	}
	case CAT_SWITCH:
		free(((struct cat_switch *)e)->ports);
		break;
	default:
		break;
	}
	free(e);
}

void
catalog_free(struct catalog *c)
{
	size_t	i, k;

	if (c == NULL)
		return;
	for (k = 0; k < CAT_NKINDS; k++) {
		for (i = 0; i < c->t[k].n; i++)
			cat_entry_free((enum cat_kind)k, c->t[k].v[i]);
		free(c->t[k].v);
		free(c->t[k].idlist);
		strmap_clear(&c->t[k].ids);
	}
	strmap_clear(&c->sources);
	for (i = 0; i < c->ndocs; i++) {
		yml_doc_release(c->docs[i]);
		free(c->docs[i]);
	}
	free(c->docs);
	strvec_clear(&c->labels);
	strvec_clear(&c->keys);
	free(c);
}

/* Integers default to -1 and doubles to NAN: "not given". */
static void
cat_defaults(enum cat_kind k, void *e)
{
	switch (k) {
	case CAT_GPU: {
		struct cat_gpu	*g = e;

		g->memory_gb = g->power_w = g->nvlink_gbs = NAN;
		g->memory_bw_gbs = g->fp16_tflops = g->bf16_tflops =
		    g->tf32_tflops = g->fp8_tflops = g->fp4_tflops =
		    g->fp64_tflops = g->int8_tops = NAN;
		g->slot_width = g->pcie_gen = g->pcie_lanes = -1;
		g->mig_max = 0;
		g->pci_ids = (struct strvec)STRVEC_INIT;
		break;
	}
	case CAT_NIC: {
		struct cat_nic	*n = e;

		n->gbps = n->power_w = NAN;
		n->ports = n->pcie_gen = n->pcie_lanes = n->slot_width = -1;
		n->pci_ids = (struct strvec)STRVEC_INIT;
		break;
	}
	case CAT_CPU: {
		struct cat_cpu	*c = e;

		c->power_w = NAN;
		c->cores = c->threads = c->pcie_gen = c->pcie_lanes =
		    c->pcie_lanes_2s = c->memory_channels = -1;
		break;
	}
	case CAT_SYSTEM: {
		struct cat_system	*s = e;

		s->depth_mm = s->base_power_w = s->max_power_w =
		    s->max_memory_gb = s->memory_gb = s->weight_kg =
		    s->heat_to_liquid_pct = NAN;
		s->rack_units = s->cpu_sockets = s->memory_slots = -1;
		s->psu_count = s->nvlink_domain_gpus = -1;
		s->gpu_models = (struct strvec)STRVEC_INIT;
		s->gpu_form_factors = (struct strvec)STRVEC_INIT;
		break;
	}
	case CAT_SWITCH: {
		struct cat_switch	*w = e;

		w->depth_mm = w->power_w = w->power_typical_w = w->weight_kg =
		    NAN;
		w->rack_units = w->psu_count = -1;
		break;
	}
	case CAT_MODEL: {
		struct cat_model	*mo = e;

		mo->params = mo->tokens = mo->batch_tokens = NAN;
		mo->kv_heads = -1;
		break;
	}
	default:
		break;
	}
}

static const struct schema_field *const cat_fields[CAT_NKINDS] = {
	cat_gpu_fields, cat_nic_fields, cat_cpu_fields, cat_sys_fields,
	cat_switch_fields, cat_model_fields,
};
static const size_t cat_sizes[CAT_NKINDS] = {
	sizeof(struct cat_gpu), sizeof(struct cat_nic), sizeof(struct cat_cpu),
	sizeof(struct cat_system), sizeof(struct cat_switch),
	sizeof(struct cat_model),
};

/* Bind a map while letting the caller handle some keys itself. */
static int
cat_bind_except(const struct schema_ctx *sc, const struct yml_node *v,
    const struct schema_field *fields, void *e, const char *const *skip)
{
	struct yml_node		 copy = *v;
	struct yml_pair		*pairs;
	size_t			 i, j, n = 0;
	int			 r;

	pairs = xcalloc(v->n + 1, sizeof *pairs);
	for (i = 0; i < v->n; i++) {
		for (j = 0; skip[j] != NULL; j++)
			if (strcmp(v->u.pairs[i].key->u.s, skip[j]) == 0)
				break;
		if (skip[j] == NULL)
			pairs[n++] = v->u.pairs[i];
	}
	copy.u.pairs = pairs;
	copy.n = n;
	r = schema_bind(sc, &copy, fields, e);
	free(pairs);
	return r;
}

static int
cat_load_system(const struct schema_ctx *sc, const struct yml_node *v,
    struct cat_system *s)
{
	const struct yml_node	*n;
	size_t			 i, j;
	int			 r = 0;

	if (cat_bind_except(sc, v, cat_sys_fields, s, cat_sys_nested) != 0)
		r = -1;
	s->cpu.count = s->gpus.count = -1;
	if ((n = yml_map_get(v, "cpu")) != NULL && !yml_is_null(n) &&
	    schema_bind(sc, n, cat_fixed_fields, &s->cpu) != 0)
		r = -1;
	if ((n = yml_map_get(v, "gpus")) != NULL && !yml_is_null(n)) {
		const struct yml_node	*alt;

		if (schema_bind(sc, n, cat_fixed_fields, &s->gpus) != 0)
			r = -1;
		if ((alt = yml_map_get(n, "models")) != NULL &&
		    alt->kind == YML_SEQ)
			for (i = 0; i < alt->n; i++) {
				const char	*id;

				if (schema_typed(sc, alt->u.items[i],
				    SCHEMA_WORD, "models", &id) != 0)
					r = -1;
				else
					strvec_push(&s->gpu_models, id);
			}
	}
	if ((n = yml_map_get(v, "nics")) != NULL && n->kind == YML_SEQ) {
		s->nics = xcalloc(n->n + 1, sizeof *s->nics);
		s->nnics = n->n;
		for (i = 0; i < n->n; i++) {
			s->nics[i].count = 1;
			if (schema_bind(sc, n->u.items[i], cat_fixed_fields,
			    &s->nics[i]) != 0)
				r = -1;
		}
	}
	if ((n = yml_map_get(v, "drives")) != NULL && n->kind == YML_SEQ) {
		s->drives = xcalloc(n->n + 1, sizeof *s->drives);
		s->ndrives = n->n;
		for (i = 0; i < n->n; i++) {
			s->drives[i].count = 1;
			s->drives[i].tb = NAN;
			if (schema_bind(sc, n->u.items[i], cat_drive_fields,
			    &s->drives[i]) != 0)
				r = -1;
		}
	}
	if ((n = yml_map_get(v, "psu")) != NULL && !yml_is_null(n)) {
		struct cat_psu_raw	pr = { -1, NULL, NULL, NULL };

		if (schema_bind(sc, n, cat_psu_fields, &pr) != 0)
			r = -1;
		s->psu_count = pr.count;
		s->psu_redundancy = pr.redundancy;
		s->psu_inlet = pr.inlet;
		if (pr.ratings != NULL && pr.ratings->kind == YML_SEQ) {
			s->psu_ratings = xcalloc(pr.ratings->n + 1,
			    sizeof *s->psu_ratings);
			s->npsu_ratings = pr.ratings->n;
			for (i = 0; i < pr.ratings->n; i++) {
				s->psu_ratings[i].watts = NAN;
				if (schema_bind(sc, pr.ratings->u.items[i],
				    cat_rating_fields, &s->psu_ratings[i]) != 0)
					r = -1;
			}
		}
	}
	if ((n = yml_map_get(v, "slots")) != NULL && n->kind == YML_SEQ) {
		size_t	total = 0, k = 0;

		for (i = 0; i < n->n; i++) {
			const struct yml_node	*cn = yml_map_get(n->u.items[i],
			    "count");
			long			 cnt = 1;

			if (cn != NULL && cn->kind == YML_SCALAR &&
			    str_to_long(cn->u.s, &cnt) == 0 && cnt > 0 &&
			    cnt <= 64)
				total += (size_t)cnt;
			else
				total++;
		}
		s->slots = xcalloc(total + 1, sizeof *s->slots);
		for (i = 0; i < n->n; i++) {
			struct cat_slot_raw	sr = { NULL, "full", "full", 16,
			    -1, -1, 1, 1, -1 };

			if (schema_bind(sc, n->u.items[i], cat_slot_fields,
			    &sr) != 0) {
				r = -1;
				continue;
			}
			for (j = 0; j < (size_t)(sr.count > 0 ? sr.count : 1) &&
			    k < total; j++, k++) {
				struct cat_slot	*sl = &s->slots[k];

				sl->name = sr.name;
				sl->lanes = sr.lanes;
				sl->mech = sr.mech > 0 ? sr.mech : sr.lanes;
				sl->gen = sr.gen;
				sl->low_profile = strcmp(sr.height, "low") == 0;
				sl->half_length = strcmp(sr.length, "half") == 0;
				sl->room = sr.room > 0 ? sr.room : 1;
				sl->cpu = sr.cpu;
			}
		}
		s->nslots = k;
	}
	return r;
}

static int
cat_load_switch(const struct schema_ctx *sc, const struct yml_node *v,
    struct cat_switch *w)
{
	const struct yml_node	*n = yml_map_get(v, "ports");
	size_t			 i;
	int			 r = 0;

	if (schema_bind(sc, v, cat_switch_fields, w) != 0)
		r = -1;
	if (n == NULL || n->kind != YML_SEQ) {
		if (n != NULL)
			schema_type_error(sc, n, "ports",
			    "a list of { count, gbps }");
		return -1;
	}
	w->ports = xcalloc(n->n + 1, sizeof *w->ports);
	w->nports = n->n;
	for (i = 0; i < n->n; i++)
		if (schema_bind(sc, n->u.items[i], cat_ports_fields,
		    &w->ports[i]) != 0)
			r = -1;
	return r;
}

static void
cat_add(struct catalog *c, enum cat_kind k, void *e)
{
	struct cat_table	*t = &c->t[k];
	struct cat_meta		*m = e, *old;
	size_t			 i;

	old = strmap_get(&t->ids, m->id);
	if (old != NULL && strcmp(old->id, m->id) == 0) {
		for (i = 0; i < t->n; i++)
			if (t->v[i] == old) {
				t->v[i] = e;
				break;
			}
		/*
		 * Nothing may point at the freed entry: every name that led
		 * to it (its aliases, and those of entries it replaced) now
		 * leads to the new one.  The map borrows its alias strings
		 * as keys, so the catalog keeps them.
		 */
		for (i = 0; i < t->ids.alloc; i++)
			if (t->ids.v[i].key != NULL && t->ids.v[i].val == old)
				t->ids.v[i].val = e;
		for (i = 0; i < old->aliases.n; i++)
			strvec_push_nodup(&c->keys, old->aliases.v[i]);
		old->aliases.n = 0;
		cat_entry_free(k, old);
	} else {
		ALLOC_GROW(t->v, t->n + 1, t->alloc);
		t->v[t->n++] = e;
		strmap_put(&t->ids, m->id, e);
	}
	for (i = 0; i < m->aliases.n; i++)
		strmap_put(&t->ids, m->aliases.v[i], e);
	free(t->idlist);
	t->idlist = NULL;
}

int
catalog_load_buf(struct catalog *c, const char *label, const char *data,
    size_t len, struct prov_errs *errs)
{
	struct yml_doc		*doc = xcalloc(1, sizeof *doc);
	struct schema_ctx	 sc;
	const struct yml_node	*root;
	size_t			 s, i, nerr0 = errs->n;
	const char		*file;

	strvec_push(&c->labels, label);
	file = c->labels.v[c->labels.n - 1];
	yml_doc_init(doc);
	ALLOC_GROW(c->docs, c->ndocs + 1, c->adocs);
	c->docs[c->ndocs++] = doc;
	if (yml_load(doc, file, data, len, errs) != 0)
		return -1;
	sc.doc = doc;
	sc.errs = errs;
	root = doc->root;
	if (root == NULL || yml_is_null(root))
		return 0;
	if (root->kind != YML_MAP) {
		schema_type_error(&sc, root, "catalog file", "a mapping");
		return -1;
	}
	for (s = 0; s < root->n; s++) {
		const struct yml_node	*key = root->u.pairs[s].key;
		const struct yml_node	*sec = root->u.pairs[s].val;
		int			 kind = -1;

		for (i = 0; cat_sections[i] != NULL; i++)
			if (strcmp(key->u.s, cat_sections[i]) == 0)
				kind = (int)i;
		if (kind < 0) {
			struct prov_loc	 loc = yml_loc(doc, key);
			const char	*near = str_suggest(key->u.s, cat_sections);
			char		*hint = near ? xasprintf("did you mean "
			    "'%s'?", near) : NULL;

			prov_errs_add(errs, PROV_E_CATALOG, &loc, hint,
			    "unknown catalog section '%s'", key->u.s);
			free(hint);
			continue;
		}
		if (yml_is_null(sec))
			continue;
		if (sec->kind != YML_MAP) {
			schema_type_error(&sc, sec, key->u.s,
			    "a mapping of part ids");
			continue;
		}
		for (i = 0; i < sec->n; i++) {
			const struct yml_node	*id = sec->u.pairs[i].key;
			const struct yml_node	*v = sec->u.pairs[i].val;
			void			*e;
			int			 r;

			if (kind == CAT_NKINDS) {	/* sources */
				strmap_put(&c->sources, id->u.s, (void *)v);
				continue;
			}
			e = xcalloc(1, cat_sizes[kind]);
			cat_defaults((enum cat_kind)kind, e);
			((struct cat_meta *)e)->id = id->u.s;
			((struct cat_meta *)e)->loc = yml_loc(doc, id);
			if (kind == CAT_SYSTEM)
				r = v->kind == YML_MAP ?
				    cat_load_system(&sc, v, e) :
				    schema_type_error(&sc, v, id->u.s, "a mapping");
			else if (kind == CAT_SWITCH)
				r = v->kind == YML_MAP ?
				    cat_load_switch(&sc, v, e) :
				    schema_type_error(&sc, v, id->u.s, "a mapping");
			else
				r = schema_bind(&sc, v, cat_fields[kind], e);
			if (r != 0) {
				cat_entry_free((enum cat_kind)kind, e);
				continue;
			}
			cat_add(c, (enum cat_kind)kind, e);
		}
	}
	if (errs->n > nerr0) {
		prov_errs_sort(errs);
		return -1;
	}
	return 0;
}

int
catalog_load_file(struct catalog *c, const char *path,
    struct prov_errs *errs)
{
	struct buf	b = BUF_INIT;
	int		r;

	if (buf_read_file(&b, path) != 0) {
		struct prov_loc	loc = { NULL, 0, 0 };

		prov_errs_add(errs, PROV_E_CATALOG, &loc, NULL,
		    "cannot read catalog file '%s': %s", path, strerror(errno));
		return -1;
	}
	r = catalog_load_buf(c, path, b.buf, b.len, errs);
	buf_release(&b);
	return r;
}

static int
cat_yaml_name(const struct dirent *d)
{
	size_t	n = strlen(d->d_name);

	return d->d_name[0] != '.' && ((n > 5 && strcmp(d->d_name + n - 5,
	    ".yaml") == 0) || (n > 4 && strcmp(d->d_name + n - 4, ".yml") == 0));
}

int
catalog_load_dir(struct catalog *c, const char *dir, struct prov_errs *errs)
{
	struct dirent	**ents = NULL;
	int		  n, i, r = 0;

	n = scandir(dir, &ents, cat_yaml_name, alphasort);
	if (n < 0) {
		struct prov_loc	loc = { NULL, 0, 0 };

		prov_errs_add(errs, PROV_E_CATALOG, &loc,
		    "set --profiles or PROVISION_PROFILES to the catalog dir",
		    "cannot read catalog dir '%s': %s", dir, strerror(errno));
		return -1;
	}
	for (i = 0; i < n; i++) {
		char	*path = xasprintf("%s/%s", dir, ents[i]->d_name);

		if (catalog_load_file(c, path, errs) != 0)
			r = -1;
		free(path);
		free(ents[i]);
	}
	free(ents);
	return r;
}

char *
catalog_default_dir(void)
{
	return fs_data_dir("profiles", "PROVISION_PROFILES");
}

static void *
cat_get(const struct catalog *c, enum cat_kind k, const char *id)
{
	if (c == NULL || id == NULL)
		return NULL;
	return strmap_get(&c->t[k].ids, id);
}

const struct cat_gpu *
catalog_gpu(const struct catalog *c, const char *id)
{
	return cat_get(c, CAT_GPU, id);
}

const struct cat_nic *
catalog_nic(const struct catalog *c, const char *id)
{
	return cat_get(c, CAT_NIC, id);
}

const struct cat_cpu *
catalog_cpu(const struct catalog *c, const char *id)
{
	return cat_get(c, CAT_CPU, id);
}

const struct cat_system *
catalog_system(const struct catalog *c, const char *id)
{
	return cat_get(c, CAT_SYSTEM, id);
}

const struct cat_switch *
catalog_switch(const struct catalog *c, const char *id)
{
	return cat_get(c, CAT_SWITCH, id);
}

const struct cat_model *
catalog_model(const struct catalog *c, const char *id)
{
	return cat_get(c, CAT_MODEL, id);
}

const struct cat_gpu *
catalog_gpu_by_pci(const struct catalog *c, const char *id)
{
	size_t	i;

	for (i = 0; i < c->t[CAT_GPU].n; i++) {
		const struct cat_gpu	*g = c->t[CAT_GPU].v[i];

		if (strvec_find(&g->pci_ids, id) >= 0)
			return g;
	}
	return NULL;
}

const struct cat_nic *
catalog_nic_by_pci(const struct catalog *c, const char *id)
{
	size_t	i;

	for (i = 0; i < c->t[CAT_NIC].n; i++) {
		const struct cat_nic	*n = c->t[CAT_NIC].v[i];

		if (strvec_find(&n->pci_ids, id) >= 0)
			return n;
	}
	return NULL;
}

const char *const *
catalog_ids(const struct catalog *cc, enum cat_kind k)
{
	/* The id list is a cache derived from the table; logically const. */
	struct catalog		*c = (struct catalog *)cc;
	struct cat_table	*t = &c->t[k];
	size_t			 i;

	if (t->idlist == NULL) {
		t->idlist = xcalloc(t->n + 1, sizeof *t->idlist);
		for (i = 0; i < t->n; i++)
			t->idlist[i] = ((struct cat_meta *)t->v[i])->id;
	}
	return t->idlist;
}

size_t
catalog_count(const struct catalog *c, enum cat_kind k)
{
	return c->t[k].n;
}

const struct cat_meta *
catalog_meta_at(const struct catalog *c, enum cat_kind k, size_t i)
{
	return i < c->t[k].n ? c->t[k].v[i] : NULL;
}

const char *
catalog_kind_name(enum cat_kind k)
{
	return (size_t)k < CAT_NKINDS ? cat_kind_names[k] : "?";
}

const char *
catalog_section_name(enum cat_kind k)
{
	return (size_t)k < CAT_NKINDS ? cat_sections[k] : "?";
}

const char *
catalog_source_title(const struct catalog *c, const char *key)
{
	const struct yml_node	*v = key != NULL ?
	    strmap_get(&c->sources, key) : NULL;
	const struct yml_node	*t = v != NULL && v->kind == YML_MAP ?
	    yml_map_get(v, "title") : NULL;

	return t != NULL && t->kind == YML_SCALAR ? t->u.s : NULL;
}

static void
cat_ref(const struct catalog *c, enum cat_kind k, const char *id,
    const struct cat_meta *from, const char *what, struct prov_errs *errs)
{
	if (id == NULL || cat_get(c, k, id) != NULL)
		return;
	prov_errs_add(errs, PROV_E_CATALOG, &from->loc, NULL,
	    "%s '%s': unknown %s '%s'", what, from->id, cat_kind_names[k], id);
}

int
catalog_validate(const struct catalog *c, struct prov_errs *errs)
{
	size_t	k, i, j, n0 = errs->n;

	for (k = 0; k < CAT_NKINDS; k++)
		for (i = 0; i < c->t[k].n; i++) {
			const struct cat_meta	*m = c->t[k].v[i];

			for (j = 0; j < m->sources.n; j++)
				if (strmap_get(&c->sources, m->sources.v[j]) ==
				    NULL)
					prov_errs_add(errs, PROV_E_CATALOG,
					    &m->loc, "define it under "
					    "'sources:'", "%s '%s': unknown "
					    "source '%s'", cat_kind_names[k],
					    m->id, m->sources.v[j]);
			/*
			 * Every number carries its source, or says it has
			 * none (unconfirmed/unknown); generic parts such as
			 * an on-board port are defined, not measured.
			 */
			if (m->sources.n == 0 && m->unconfirmed.n == 0 &&
			    m->unknown.n == 0 && (m->vendor == NULL ||
			    strcmp(m->vendor, "generic") != 0))
				prov_errs_add(errs, PROV_E_CATALOG, &m->loc,
				    "every number carries its source, or is "
				    "listed under 'unconfirmed' or 'unknown'",
				    "%s '%s' has no sources", cat_kind_names[k],
				    m->id);
		}
	for (i = 0; i < c->t[CAT_SYSTEM].n; i++) {
		const struct cat_system	*s = c->t[CAT_SYSTEM].v[i];

		cat_ref(c, CAT_CPU, s->cpu.model, &s->m, "system", errs);
		cat_ref(c, CAT_GPU, s->gpus.model, &s->m, "system", errs);
		for (j = 0; j < s->gpu_models.n; j++)
			cat_ref(c, CAT_GPU, s->gpu_models.v[j], &s->m, "system",
			    errs);
		for (j = 0; j < s->nnics; j++)
			cat_ref(c, CAT_NIC, s->nics[j].model, &s->m, "system",
			    errs);
	}
	return errs->n > n0 ? -1 : 0;
}

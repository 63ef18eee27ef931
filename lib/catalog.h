/*
 * catalog.h: the hardware catalog (profiles/): GPUs, NICs, CPUs, systems
 * and switches, each with the numbers `check` needs and their sources; and
 * the published shapes of well-known models, which `estimate` sizes.
 *
 *	struct catalog *cat = catalog_new();
 *	catalog_load_dir(cat, "profiles", &errs);	(later dirs override by id)
 *	const struct cat_gpu *g = catalog_gpu(cat, "a100-pcie-80gb");
 *	catalog_free(cat);
 *
 * Numbers the sources do not give are NAN (doubles) or -1 (integers) and
 * the field is named in `unknown`; every lookup result is borrowed from the
 * catalog.  Ids and aliases share one namespace per kind.
 */
#ifndef PROV_CATALOG_H
#define PROV_CATALOG_H

#include <stddef.h>

#include "err.h"
#include "strvec.h"

enum cat_kind {
	CAT_GPU = 0,
	CAT_NIC,
	CAT_CPU,
	CAT_SYSTEM,
	CAT_SWITCH,
	CAT_MODEL,
	CAT_NKINDS
};

/* What every entry has. */
struct cat_meta {
	const char	*id;
	const char	*name;
	const char	*vendor;
	struct strvec	 aliases;
	struct strvec	 sources;
	struct strvec	 unconfirmed;
	struct strvec	 unknown;
	struct prov_loc	 loc;		/* where it was defined */
};

struct cat_gpu {
	struct cat_meta	 m;
	struct strvec	 pci_ids;	/* "10de:20b5" */
	double		 memory_gb;
	const char	*memory_type;
	double		 power_w;
	const char	*form_factor;	/* fhfl fhhl hhhl sxm2 sxm4 sxm5 sxm6
					   oam superchip */
	long		 slot_width;	/* 1, 2; 0 for baseboard (SXM/OAM) */
	long		 pcie_gen, pcie_lanes;
	const char	*cooling;	/* passive active liquid */
	double		 nvlink_gbs;
	long		 mig_max;	/* 0: no MIG */
	double		 memory_bw_gbs;
	/* Dense (no 2:4 sparsity) tensor throughput per precision; NAN: not
	   published or not supported.  `estimate` reads these. */
	double		 fp16_tflops, bf16_tflops, tf32_tflops, fp8_tflops,
			 fp4_tflops, fp64_tflops, int8_tops;
};

struct cat_nic {
	struct cat_meta	 m;
	struct strvec	 pci_ids;
	const char	*kind;		/* ethernet infiniband vpi */
	long		 ports;
	double		 gbps;		/* per port */
	long		 pcie_gen, pcie_lanes;
	const char	*form_factor;	/* fhhl hhhl ocp3 onboard */
	long		 slot_width;
	double		 power_w;
	long		 onboard;
};

struct cat_cpu {
	struct cat_meta	 m;
	long		 cores, threads;
	double		 power_w;
	long		 pcie_gen;
	long		 pcie_lanes;	/* usable, one socket */
	long		 pcie_lanes_2s;	/* usable in a two-socket system */
	long		 memory_channels;
};

struct cat_slot {
	const char	*name;
	long		 lanes, mech, gen;
	long		 low_profile;	/* only low-profile cards fit */
	long		 half_length;	/* only half-length cards fit */
	long		 room;		/* card widths before the next slot is blocked */
	long		 cpu;		/* socket the slot hangs off; -1: unknown */
};

struct cat_psu_rating {
	double		 volts_min, volts_max, watts;
};

struct cat_fixed {
	const char	*model;		/* NULL when none */
	long		 count;
	const char	*role;		/* nics: network role, e.g. fabric */
};

struct cat_drive {
	const char	*kind;
	long		 count;
	double		 tb;
};

struct cat_system {
	struct cat_meta	 m;
	long		 rack_units;
	double		 depth_mm;
	double		 base_power_w;
	double		 max_power_w;
	long		 cpu_sockets;
	long		 memory_slots;
	double		 max_memory_gb;
	struct cat_fixed cpu;		/* fixed CPUs (DGX) */
	double		 memory_gb;	/* fixed memory, or NAN */
	struct cat_fixed gpus;		/* baseboard GPUs */
	struct strvec	 gpu_models;	/* alternatives for gpus.model */
	struct cat_fixed *nics;
	size_t		 nnics;
	struct cat_drive *drives;
	size_t		 ndrives;
	struct strvec	 gpu_form_factors;
	const char	*cooling;	/* air liquid */
	long		 nvlink_domain_gpus;	/* GPUs one NVLink/NVSwitch domain
						   joins; -1: the system's own GPUs */
	double		 weight_kg;	/* maximum configured weight */
	double		 heat_to_liquid_pct;	/* share of the heat a liquid loop
						   removes, 0..100; NAN: not given */
	long		 psu_count;
	const char	*psu_redundancy;	/* "N+1", "3+3" */
	const char	*psu_inlet;	/* C14 C16 C20 C22 busbar hardwired */
	struct cat_psu_rating *psu_ratings;
	size_t		 npsu_ratings;
	struct cat_slot	*slots;
	size_t		 nslots;
};

struct cat_port_group {
	long		 count;
	double		 gbps;
};

struct cat_switch {
	struct cat_meta	 m;
	const char	*kind;		/* infiniband ethernet */
	struct cat_port_group *ports;
	size_t		 nports;
	long		 rack_units;
	double		 depth_mm;
	double		 power_w;
	double		 power_typical_w;
	double		 weight_kg;
	long		 psu_count;
	const char	*psu_redundancy;
	const char	*psu_inlet;
};

/*
 * A model's published shape (models.yaml): a dense decoder-only
 * transformer.  `params` is the published total; NAN when the sources give
 * only the shape (estimate counts them).  `mlp` is "gelu" (two matrices of
 * hidden x ffn) or "swiglu" (three); `tied`: the output layer shares the
 * input embedding.  tokens and batch_tokens describe the published
 * pre-training run (NAN when not published).
 */
struct cat_model {
	struct cat_meta	 m;
	double		 params;
	long		 layers, hidden, heads, kv_heads, ffn, vocab, seq;
	const char	*mlp;
	int		 tied;
	double		 tokens;
	double		 batch_tokens;	/* tokens per optimizer step */
};

struct catalog;

struct catalog	*catalog_new(void);
void		 catalog_free(struct catalog *);
/*
 * Load every *.yaml file in `dir` (sorted by name).  Entries replace
 * earlier ones of the same id, so a user's dir loaded after the built-in
 * one overrides it.  Errors (located) go to errs; -1 when any file could
 * not be read or parsed at all.
 */
int		 catalog_load_dir(struct catalog *, const char *dir,
		    struct prov_errs *errs);
int		 catalog_load_file(struct catalog *, const char *path,
		    struct prov_errs *errs);
int		 catalog_load_buf(struct catalog *, const char *label,
		    const char *data, size_t len, struct prov_errs *errs);
/* The built-in profiles dir: fs_data_dir("profiles", "PROVISION_PROFILES") (caller frees). */
char		*catalog_default_dir(void);

const struct cat_gpu	*catalog_gpu(const struct catalog *, const char *id);
const struct cat_nic	*catalog_nic(const struct catalog *, const char *id);
const struct cat_cpu	*catalog_cpu(const struct catalog *, const char *id);
const struct cat_system	*catalog_system(const struct catalog *, const char *id);
const struct cat_switch	*catalog_switch(const struct catalog *, const char *id);
const struct cat_model	*catalog_model(const struct catalog *, const char *id);
/* GPU or NIC whose pci_ids hold "vvvv:dddd" (lowercase), or NULL. */
const struct cat_gpu	*catalog_gpu_by_pci(const struct catalog *, const char *id);
const struct cat_nic	*catalog_nic_by_pci(const struct catalog *, const char *id);
/* Every id of a kind (NULL-terminated, borrowed): for "did you mean" and listings. */
const char *const	*catalog_ids(const struct catalog *, enum cat_kind);
size_t			 catalog_count(const struct catalog *, enum cat_kind);
const struct cat_meta	*catalog_meta_at(const struct catalog *, enum cat_kind, size_t i);
const char		*catalog_kind_name(enum cat_kind);
/* The file section of a kind: "gpus", "switches", "models". */
const char		*catalog_section_name(enum cat_kind);
/* The title and url of source `key` (borrowed; NULL when not defined). */
const char		*catalog_source_title(const struct catalog *, const char *key);
/*
 * Every value-holding field of a catalog entry with its path
 * ("systems.*.psu.redundancy"), as plan_schema_walk() does for the plan.
 */
struct schema_field;
void			 catalog_schema_walk(void (*fn)(void *arg,
			    const char *path, const struct schema_field *f),
			    void *arg);
/* Cross-references inside the catalog (a system's GPU model, sources); errors to errs. */
int			 catalog_validate(const struct catalog *, struct prov_errs *errs);

#endif

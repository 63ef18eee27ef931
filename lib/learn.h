/*
 * learn.h: a draft catalog entry for a machine (`provision catalog
 * learn`), from what the machine says of itself: its facts (facts.h),
 * the SMBIOS system, slot and memory records as dmidecode prints them
 * (types 1, 9, 16 and 17), or else /sys/class/dmi/id and
 * /sys/bus/pci/slots, as templates/remote/learn.sh prints them on the
 * machine (learn_local()) or on a plan's node over SSH (learn_node(),
 * which also reads the node's PSUs from its BMC).  What it reads is
 * written out and
 * listed under `unconfirmed`; what it cannot read is null, listed under
 * `unknown` and marked "UNKNOWN" for a person to fill in.  The draft
 * loads as it is, so `check` can use it and say what is missing.
 *
 *	struct learn l;
 *	learn_init(&l);
 *	learn_parse_dmi(&l, dmidecode_text, &err);	(or learn_local())
 *	learn_draft(&yaml, &l, facts, catalog, "my-server");
 *	learn_release(&l);
 */
#ifndef PROV_LEARN_H
#define PROV_LEARN_H

#include "buf.h"
#include "err.h"
#include "strvec.h"

struct catalog;
struct facts;
struct plan;
struct plan_node;
struct redfish_inv;
struct redfish_opts;

/* A PCIe slot of the board; -1 (and NULL): unknown. */
struct learn_slot {
	char *name; /* "PCIe Slot 1" */
	long lanes, mech; /* electrical, connector width */
	long gen;
	int full_length; /* 1 long, 0 short */
	int full_height; /* 1 full, 0 low profile */
	char *bus; /* "0000:17:00.0" */
};

/* A supply's output over an AC input range, as catalog ratings. */
struct learn_rating {
	double volts_min, volts_max, watts;
};

struct learn {
	char *vendor, *product; /* SMBIOS type 1 */
	struct learn_slot *slots;
	size_t nslots, slots_alloc;
	const char *slots_from; /* "dmidecode" "sysfs" NULL */
	long memory_slots; /* SMBIOS 16 devices, else 17 records; -1 */
	double max_memory_gb; /* SMBIOS 16 Maximum Capacity; NAN */
	long dimm_records; /* type 17 records seen */
	/* the PSUs, from a BMC (learn_add_bmc); psus -1: unknown */
	long psus;
	char *psu_redundancy; /* "1+1"; NULL */
	char *psu_plug; /* Redfish PlugType, as said; NULL */
	const char *psu_inlet; /* the catalog's inlet of it; NULL */
	double psu_watts; /* PowerCapacityWatts; NAN */
	struct learn_rating *ratings;
	size_t nratings;
	char *psu_from; /* "the BMC at 10.0.0.1 (PowerSubsystem)" */
	struct strvec notes; /* what could not be read */
};

void learn_init(struct learn *);
void learn_release(struct learn *);
/*
 * `dmidecode` output (any types; 1 and 9 are read): the system's maker
 * and product, and each PCI Express slot.  -1 with PROV_E_PARSE when
 * the text has no "Handle 0x..., DMI type N" record at all.
 */
int learn_parse_dmi(struct learn *, const char *text, struct prov_err *err);
/*
 * /sys/bus/pci/slots as lines "NAME\tADDRESS\tMAX_BUS_SPEED" (slot
 * numbers and addresses only: sysfs gives no widths).
 */
int learn_parse_sysfs_slots(struct learn *, const char *text,
    struct prov_err *err);
/* templates/remote/learn.sh: the script both ways of learning run. */
const char *learn_script(void);
/*
 * learn_script()'s sectioned answer (frame.h; other sections, a facts
 * script's before it, are skipped): SMBIOS when dmidecode ran, the
 * sysfs names and slots for what it did not give; what is missing is a
 * note.  -1 with PROV_E_PARSE when the answer has none of its sections.
 */
int learn_parse_script(struct learn *, const char *out, struct prov_err *err);
/*
 * This machine: learn_script() run here (dmidecode needs root); what
 * fails is a note.
 */
void learn_local(struct learn *);
/*
 * The PSUs a BMC reported (redfish.h, REDFISH_INVENTORY): count,
 * redundancy, the catalog inlet of their PlugType and their AC ratings;
 * `from` says where (copied).
 */
void learn_add_bmc(struct learn *, const struct redfish_inv *,
    const char *from);

struct learn_node_opts {
	const char *passphrase; /* the SSH key's, or NULL */
	const char *pci_ids; /* pci.ids for names; NULL: libpci's */
	const struct redfish_opts *redfish; /* BMC timeouts; NULL: defaults */
};

/*
 * A node of the plan: facts.sh and learn_script() in one SSH run, into
 * l and *facts_out (named through the plan's catalog); with a `bmc:`
 * entry, its PSUs through Redfish.  -1 with err when the node could not
 * be read; a BMC that could not is a note in l.
 */
int learn_node(struct learn *l, struct facts **facts_out, const struct plan *p,
    const struct plan_node *nd, const struct learn_node_opts *o,
    struct prov_err *err);
/*
 * The draft: a profiles/ file holding one `systems:` entry `id`, from l
 * and the facts f (CPUs, GPUs and NICs named through cat, which may be
 * NULL).  Slots hang off the socket of their device's NUMA node when the
 * machine has one node a socket.
 */
void learn_draft(struct buf *out, const struct learn *, const struct facts *f,
    const struct catalog *cat, const char *id);

#endif

/*
 * learn.h: a draft catalog entry for a machine (`provision catalog
 * learn`), from what the machine says of itself: its facts (facts.h),
 * the SMBIOS system and slot records as dmidecode prints them (types 1
 * and 9), or else /sys/bus/pci/slots.  What it reads is written out and
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

/* A PCIe slot of the board; -1 (and NULL): unknown. */
struct learn_slot {
	char *name; /* "PCIe Slot 1" */
	long lanes, mech; /* electrical, connector width */
	long gen;
	int full_length; /* 1 long, 0 short */
	int full_height; /* 1 full, 0 low profile */
	char *bus; /* "0000:17:00.0" */
};

struct learn {
	char *vendor, *product; /* SMBIOS type 1 */
	struct learn_slot *slots;
	size_t nslots, slots_alloc;
	const char *slots_from; /* "dmidecode" "sysfs" NULL */
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
/*
 * This machine: dmidecode -t 1 -t 9 when it runs (root), else
 * /sys/class/dmi/id and /sys/bus/pci/slots; what fails is a note.
 */
void learn_local(struct learn *);
/*
 * The draft: a profiles/ file holding one `systems:` entry `id`, from l
 * and the facts f (CPUs, GPUs and NICs named through cat, which may be
 * NULL).  Slots hang off the socket of their device's NUMA node when the
 * machine has one node a socket.
 */
void learn_draft(struct buf *out, const struct learn *, const struct facts *f,
    const struct catalog *cat, const char *id);

#endif

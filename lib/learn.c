/*
 * learn.c: a draft catalog entry from a machine.  See learn.h.
 *
 * dmidecode's slot "Type" reads "x16 PCI Express 5 x16" up to 3.4 (data
 * bus width, then the slot type whose name ends in its connector width)
 * and "PCI Express 5 x16" with a separate "Data Bus Width: x16" (or a
 * bare SMBIOS code for a newer table than it knows) from 3.5: the first
 * "xN" before "PCI" is the electrical width, the last one the connector.
 */
#include "compat.h"

#include <ctype.h>
#include <math.h>
#include <sys/wait.h>

#include "catalog.h"
#include "facts.h"
#include "frame.h"
#include "json.h"
#include "learn.h"
#include "proc.h"
#include "redfish.h"
#include "remote.h"
#include "str.h"

void
learn_init(struct learn *l)
{
	memset(l, 0, sizeof *l);
	l->memory_slots = l->psus = -1;
	l->max_memory_gb = l->psu_watts = NAN;
	l->notes = (struct strvec)STRVEC_INIT;
}

void
learn_release(struct learn *l)
{
	size_t i;

	free(l->vendor);
	free(l->product);
	for (i = 0; i < l->nslots; i++) {
		free(l->slots[i].name);
		free(l->slots[i].bus);
	}
	free(l->slots);
	free(l->psu_redundancy);
	free(l->psu_plug);
	free(l->ratings);
	free(l->psu_from);
	strvec_clear(&l->notes);
	memset(l, 0, sizeof *l);
}

static struct learn_slot *
learn_slot_add(struct learn *l)
{
	struct learn_slot *s;

	ALLOC_GROW(l->slots, l->nslots + 1, l->slots_alloc);
	s = &l->slots[l->nslots++];
	memset(s, 0, sizeof *s);
	s->lanes = s->mech = s->gen = -1;
	s->full_length = s->full_height = -1;
	return s;
}

/* "x16" at p -> 16, else -1. */
static long
learn_width(const char *p)
{
	long v;

	if (p[0] != 'x' || !isdigit((unsigned char)p[1]))
		return -1;
	v = strtol(p + 1, NULL, 10);
	return v > 0 && v <= 32 ? v : -1;
}

/* A slot "Type:" value: widths and generation (see the top comment). */
static void
learn_slot_type(struct learn_slot *s, const char *v)
{
	const char *pci = strstr(v, "PCI Express");
	const char *p;

	if (pci == NULL)
		return;
	if (learn_width(v) > 0)
		s->lanes = learn_width(v);
	if (isdigit((unsigned char)pci[12]) && pci[11] == ' ')
		s->gen = pci[12] - '0';
	for (p = pci; (p = strstr(p, " x")) != NULL; p++)
		if (learn_width(p + 1) > 0)
			s->mech = learn_width(p + 1);
}

/* Not a value: dmidecode's "Not Specified", "To Be Filled By O.E.M." */
static int
learn_dmi_blank(const char *v)
{
	return *v == '\0' || strcmp(v, "Not Specified") == 0 ||
	    strcmp(v, "Not Present") == 0 ||
	    strcmp(v, "System Product Name") == 0 ||
	    strcmp(v, "System manufacturer") == 0 ||
	    str_starts(v, "To Be Filled") || strcmp(v, "Default string") == 0;
}

/* "2 TB", "512 GB", "64 MB" in GB (binary, as SMBIOS counts); NAN. */
static double
learn_dmi_size_gb(const char *v)
{
	char *e;
	double d = strtod(v, &e);

	if (e == v || d <= 0)
		return NAN;
	e += strspn(e, " ");
	if (strcmp(e, "TB") == 0)
		return d * 1024;
	if (strcmp(e, "GB") == 0)
		return d;
	if (strcmp(e, "MB") == 0)
		return d / 1024;
	if (strcmp(e, "kB") == 0)
		return d / (1024 * 1024);
	return NAN;
}

/*
 * A type 16 record's keys: the arrays of system memory (not a cache's
 * or flash's) add their sockets and their maximum.  `sys` holds whether
 * this record's Use is system memory (Use comes before the others).
 */
static void
learn_dmi_memory(struct learn *l, int *sys, const char *k, const char *v)
{
	long n;
	double gb;

	if (strcmp(k, "Use") == 0)
		*sys = strcmp(v, "System Memory") == 0;
	else if (*sys && strcmp(k, "Number Of Devices") == 0 &&
	    str_to_long(v, &n) == 0 && n > 0)
		l->memory_slots = (l->memory_slots < 0 ? 0 : l->memory_slots) +
		    n;
	else if (*sys && strcmp(k, "Maximum Capacity") == 0 &&
	    !isnan(gb = learn_dmi_size_gb(v)))
		l->max_memory_gb = (isnan(l->max_memory_gb) ?
		                           0 :
		                           l->max_memory_gb) +
		    gb;
}

/* One "Key: value" of a type 1, 9 or 16 record. */
static void
learn_dmi_kv(struct learn *l, long type, struct learn_slot **slot, int *sysmem,
    const char *k, const char *v)
{
	struct learn_slot *s = *slot;

	if (type == 16) {
		learn_dmi_memory(l, sysmem, k, v);
		return;
	}

	if (type == 1 && strcmp(k, "Manufacturer") == 0 && !learn_dmi_blank(v))
		str_set(&l->vendor, v);
	else if (type == 1 && strcmp(k, "Product Name") == 0 &&
	    !learn_dmi_blank(v))
		str_set(&l->product, v);
	if (type != 9)
		return;
	if (strcmp(k, "Designation") == 0) {
		s = *slot = learn_slot_add(l);
		s->name = xstrdup(v);
		return;
	}
	if (s == NULL)
		return;
	if (strcmp(k, "Type") == 0) {
		if (strstr(v, "PCI Express") == NULL) {
			/* an M.2 socket or legacy PCI: no card slot */
			free(s->name);
			l->nslots--;
			*slot = NULL;
			return;
		}
		learn_slot_type(s, v);
	} else if (strcmp(k, "Length") == 0)
		s->full_length = strcmp(v, "Long") == 0 ? 1 :
		    strcmp(v, "Short") == 0             ? 0 :
		                                          -1;
	else if (strcmp(k, "Height") == 0)
		s->full_height = strcmp(v, "Full height") == 0 ? 1 :
		    strcmp(v, "Low-profile") == 0              ? 0 :
		                                                 -1;
	else if (strcmp(k, "Data Bus Width") == 0 && learn_width(v) > 0)
		s->lanes = learn_width(v);
	else if (strcmp(k, "PCI Express Generation") == 0 &&
	    str_to_long(v, &s->gen) != 0)
		s->gen = -1;
	else if (strcmp(k, "Bus Address") == 0) {
		char norm[32];

		if (facts_slot_norm(norm, sizeof norm, v) == 0)
			str_set(&s->bus, norm);
	}
}

int
learn_parse_dmi(struct learn *l, const char *text, struct prov_err *err)
{
	struct strvec lines = STRVEC_INIT;
	struct learn_slot *slot = NULL;
	size_t i, records = 0;
	long type = -1;
	int sysmem = 0;

	strvec_split_lines(&lines, text);
	for (i = 0; i < lines.n; i++) {
		char *ln = lines.v[i], *t, *colon;

		if (str_starts(ln, "Handle 0x")) {
			t = strstr(ln, "DMI type ");
			type = t != NULL ? strtol(t + 9, NULL, 10) : -1;
			slot = NULL;
			sysmem = 0;
			records++;
			if (type == 17)
				l->dimm_records++;
			continue;
		}
		if (!isspace((unsigned char)ln[0]) ||
		    (colon = strchr(ln, ':')) == NULL)
			continue;
		*colon = '\0';
		learn_dmi_kv(l, type, &slot, &sysmem, str_trim(ln),
		    str_trim(colon + 1));
	}
	strvec_clear(&lines);
	if (records == 0)
		return prov_err_parse(err, "dmidecode",
		    "no 'Handle 0x..., DMI "
		    "type N' record");
	if (l->memory_slots < 0 && l->dimm_records > 0)
		l->memory_slots = l->dimm_records;
	l->slots_from = "dmidecode";
	return 0;
}

int
learn_parse_sysfs_slots(struct learn *l, const char *text, struct prov_err *err)
{
	struct strvec lines = STRVEC_INIT, fl = STRVEC_INIT;
	size_t i;
	int r = -1;

	strvec_split_lines(&lines, text);
	for (i = 0; i < lines.n; i++) {
		struct learn_slot *s;
		char norm[32], *addr;

		if (*str_trim(lines.v[i]) == '\0')
			continue;
		strvec_clear(&fl);
		strvec_split(&fl, lines.v[i], '\t', 0);
		if (fl.n != 3) {
			prov_err_parse(err, "pci slots",
			    "line %zu is not NAME "
			    "ADDRESS SPEED",
			    i + 1);
			goto out;
		}
		s = learn_slot_add(l);
		s->name = xstrdup(fl.v[0]);
		/* sysfs gives the slot's bus without the function */
		addr = xasprintf("%s.0", fl.v[1]);
		if (facts_slot_norm(norm, sizeof norm, addr) == 0)
			s->bus = xstrdup(norm);
		free(addr);
		s->gen = facts_gen_of_speed(strtod(fl.v[2], NULL));
	}
	l->slots_from = "sysfs";
	r = 0;
out:
	strvec_clear(&fl);
	strvec_clear(&lines);
	return r;
}

/* ------------------------------------------------------------------ */
/* The script's answer, from this machine or a node */

const char *
learn_script(void)
{
	return remote_learn_sh; /* templates/remote/learn.sh */
}

struct learn_script_ctx {
	struct learn *l;
	int sections, dmi_ok;
	char *sysfs_slots; /* used when SMBIOS gave no slot */
	char *missing;
};

/* dmi-id: "sys_vendor\tVALUE" lines, for what SMBIOS did not name. */
static void
learn_script_dmi_id(struct learn *l, const char *body)
{
	struct strvec lines = STRVEC_INIT;
	size_t i;

	strvec_split_lines(&lines, body);
	for (i = 0; i < lines.n; i++) {
		char *tab = strchr(lines.v[i], '\t'), *v;

		if (tab == NULL)
			continue;
		*tab = '\0';
		v = str_trim(tab + 1);
		if (learn_dmi_blank(v))
			continue;
		if (strcmp(lines.v[i], "sys_vendor") == 0 && l->vendor == NULL)
			l->vendor = xstrdup(v);
		else if (strcmp(lines.v[i], "product_name") == 0 &&
		    l->product == NULL)
			l->product = xstrdup(v);
	}
	strvec_clear(&lines);
}

static void
learn_script_each(void *arg, const char *name, const char *text, long rc)
{
	struct learn_script_ctx *c = arg;
	struct prov_err err = PROV_ERR_INIT;

	if (strcmp(name, "dmidecode") == 0) {
		c->sections++;
		if (rc == 0 && learn_parse_dmi(c->l, text, &err) == 0)
			c->dmi_ok = 1;
	} else if (strcmp(name, "dmi-id") == 0) {
		c->sections++;
		learn_script_dmi_id(c->l, text);
	} else if (strcmp(name, "pci-slots") == 0) {
		c->sections++;
		free(c->sysfs_slots);
		c->sysfs_slots = xstrdup(text);
	} else if (strcmp(name, "missing") == 0 && c->missing == NULL &&
	    str_starts(text, "dmidecode")) {
		c->sections++;
		c->missing = xstrdup("dmidecode");
	}
	prov_err_release(&err);
}

int
learn_parse_script(struct learn *l, const char *out, struct prov_err *err)
{
	struct learn_script_ctx c = { l, 0, 0, NULL, NULL };
	struct prov_err e = PROV_ERR_INIT;
	int r = -1;

	frame_each(out, learn_script_each, &c);
	if (c.sections == 0) {
		prov_err_set(err, PROV_E_PARSE,
		    "the learn script printed none "
		    "of its sections");
		goto out;
	}
	if (!c.dmi_ok)
		strvec_pushf(&l->notes,
		    "no SMBIOS records (%s): slot widths, "
		    "DIMM slots and maximum memory unknown",
		    c.missing != NULL ? "dmidecode is not installed" :
		                        "dmidecode needs root and "
		                        "/sys/firmware/dmi or /dev/mem");
	if (l->vendor == NULL && l->product == NULL)
		strvec_push(&l->notes,
		    "no SMBIOS system record nor "
		    "/sys/class/dmi/id: maker and model unknown");
	if (l->nslots == 0 && c.sysfs_slots != NULL &&
	    *str_trim(c.sysfs_slots) != '\0') {
		if (learn_parse_sysfs_slots(l, c.sysfs_slots, &e) != 0)
			strvec_push(&l->notes, e.msg);
	} else if (l->nslots == 0)
		strvec_push(&l->notes,
		    "neither SMBIOS nor /sys/bus/pci/slots "
		    "lists a slot: the slots are unknown");
	r = 0;
out:
	free(c.sysfs_slots);
	free(c.missing);
	prov_err_release(&e);
	return r;
}

void
learn_local(struct learn *l)
{
	struct proc pr = PROC_INIT;
	struct buf out = BUF_INIT, eb = BUF_INIT;
	struct prov_err err = PROV_ERR_INIT;

	strvec_push(&pr.args, "sh");
	strvec_push(&pr.args, "-c");
	strvec_push(&pr.args, learn_script());
	pr.out = &out;
	pr.err = &eb;
	pr.timeout_s = 60;
	if (proc_run(&pr) != 0)
		strvec_pushf(&l->notes, "cannot run sh: %s", strerror(errno));
	else if (learn_parse_script(l, out.buf != NULL ? out.buf : "", &err) !=
	    0)
		strvec_push(&l->notes, err.msg);
	proc_release(&pr);
	buf_release(&out);
	buf_release(&eb);
	prov_err_release(&err);
}

void
learn_add_bmc(struct learn *l, const struct redfish_inv *inv, const char *from)
{
	size_t i;

	free(l->psu_from);
	l->psu_from = xstrdup(from);
	l->psus = inv->psus;
	if (inv->psu_redundancy != NULL)
		str_set(&l->psu_redundancy, inv->psu_redundancy);
	if (inv->psu_plug != NULL && !inv->psu_plugs_differ) {
		str_set(&l->psu_plug, inv->psu_plug);
		l->psu_inlet = redfish_plug_inlet(inv->psu_plug);
	} else if (inv->psu_plugs_differ)
		strvec_push(&l->notes,
		    "the BMC's PSUs differ in PlugType: "
		    "the inlet is unknown");
	/* one rating a supply: mixed supplies say their lowest */
	l->psu_watts = inv->psu_watts_min;
	free(l->ratings);
	l->ratings = NULL;
	l->nratings = inv->npsu_ranges;
	if (l->nratings > 0)
		l->ratings = xcalloc(l->nratings, sizeof *l->ratings);
	for (i = 0; i < l->nratings; i++) {
		l->ratings[i].volts_min = inv->psu_ranges[i].volts_min;
		l->ratings[i].volts_max = inv->psu_ranges[i].volts_max;
		l->ratings[i].watts = inv->psu_ranges[i].watts;
	}
}

/* ------------------------------------------------------------------ */
/* The draft */

/* A YAML double-quoted scalar (a JSON string is one). */
static void
learn_q(struct buf *out, const char *s)
{
	json_add_string(out, s);
}

/*
 * Slots hang off the socket of their device's NUMA node when the
 * machine has one NUMA node a socket (NPS1, no sub-NUMA clustering);
 * otherwise a node is a part of a socket and says nothing: -1.
 */
static long
learn_slot_cpu(const struct facts *f, const struct learn_slot *s)
{
	const struct facts_pci *d;
	long maxnode = -1;
	size_t i;

	if (f == NULL || s->bus == NULL || f->cpu_sockets < 2)
		return -1;
	for (i = 0; i < f->npci; i++)
		if (f->pci[i].numa_node > maxnode)
			maxnode = f->pci[i].numa_node;
	if (maxnode + 1 != f->cpu_sockets ||
	    (d = facts_pci_find(f, s->bus)) == NULL || d->numa_node < 0)
		return -1;
	return d->numa_node;
}

/* Every slot's widths known: they can be written as catalog slots. */
static int
learn_slots_known(const struct learn *l)
{
	size_t i;

	for (i = 0; i < l->nslots; i++)
		if (l->slots[i].lanes < 0)
			return 0;
	return l->nslots > 0;
}

static void
learn_draft_slots(struct buf *out, const struct learn *l, const struct facts *f,
    struct strvec *unconfirmed, struct strvec *unknown)
{
	size_t i;

	if (!learn_slots_known(l)) {
		buf_adds(out,
		    "    slots: null             # UNKNOWN: the PCIe "
		    "slots in physical order (docs/catalog.md)\n");
		for (i = 0; i < l->nslots; i++)
			buf_addf(out,
			    "    #   %s at %s, gen %ld (from %s; width "
			    "unknown)\n",
			    l->slots[i].name,
			    l->slots[i].bus ? l->slots[i].bus : "?",
			    l->slots[i].gen, l->slots_from);
		strvec_push(unknown, "slots");
		return;
	}
	buf_addf(out,
	    "    # from %s: height, length and room are modelled "
	    "small where SMBIOS does not say\n    # (low, half, 1), so check "
	    "never accepts a card that might not fit\n    slots:\n",
	    l->slots_from);
	for (i = 0; i < l->nslots; i++) {
		const struct learn_slot *s = &l->slots[i];
		long cpu = learn_slot_cpu(f, s);

		buf_adds(out, "      - { name: ");
		learn_q(out, s->name);
		buf_addf(out, ", lanes: %ld, mech: %ld, gen: ", s->lanes,
		    s->mech > 0 ? s->mech : s->lanes);
		if (s->gen > 0)
			buf_addf(out, "%ld", s->gen);
		else
			buf_adds(out, "null");
		buf_addf(out, ", height: %s, length: %s, room: 1",
		    s->full_height == 1 ? "full" : "low",
		    s->full_length == 1 ? "full" : "half");
		if (cpu >= 0)
			buf_addf(out, ", cpu: %ld", cpu);
		buf_adds(out, " }\n");
	}
	strvec_push(unconfirmed, "slots");
}

/* Baseboard (SXM, OAM) GPUs: the system's own; add-in ones: form factors. */
static void
learn_draft_gpus(struct buf *out, const struct facts *f,
    const struct catalog *cat, struct strvec *unconfirmed,
    struct strvec *unknown)
{
	const struct cat_gpu *base = NULL;
	struct strvec ff = STRVEC_INIT;
	long nbase = 0;
	size_t i;

	for (i = 0; f != NULL && cat != NULL && i < f->ngpus; i++) {
		const struct cat_gpu *g = f->gpus[i].pci_id != NULL ?
		    catalog_gpu_by_pci(cat, f->gpus[i].pci_id) :
		    NULL;

		if (g == NULL || g->form_factor == NULL)
			continue;
		/* SXM, OAM and superchip modules sit on the board */
		if (g->slot_width == 0 ||
		    (strcmp(g->form_factor, "fhfl") != 0 &&
		        strcmp(g->form_factor, "fhhl") != 0 &&
		        strcmp(g->form_factor, "hhhl") != 0)) {
			base = g;
			nbase++;
		} else if (strvec_find(&ff, g->form_factor) < 0)
			strvec_push(&ff, g->form_factor);
	}
	if (base != NULL) {
		buf_addf(out,
		    "    gpus: { model: %s, count: %ld, models: [%s] }"
		    "   # found on the baseboard\n",
		    base->m.id, nbase, base->m.id);
		strvec_push(unconfirmed, "gpus");
	}
	if (ff.n > 0) {
		buf_adds(out, "    gpu_form_factors: [");
		for (i = 0; i < ff.n; i++)
			buf_addf(out, "%s%s", i ? ", " : "", ff.v[i]);
		buf_adds(out,
		    "]   # the add-in GPUs found; the chassis may "
		    "take others\n");
		strvec_push(unconfirmed, "gpu_form_factors");
	} else {
		buf_adds(out,
		    "    gpu_form_factors: []    # UNKNOWN: add-in GPU "
		    "sizes the chassis takes (fhfl, fhhl, hhhl)\n");
		strvec_push(unknown, "gpu_form_factors");
	}
	strvec_clear(&ff);
}

/*
 * The ports found, as comments: which are on the board and which on
 * cards, the machine does not say, so `nics` stays for a person.
 */
static void
learn_draft_nics(struct buf *out, const struct facts *f,
    const struct catalog *cat)
{
	size_t i;

	buf_adds(out,
	    "    nics: []                # UNKNOWN: on-board ports "
	    "{ model, count, network_role }\n");
	for (i = 0; f != NULL && i < f->nnics; i++) {
		const struct facts_nic *n = &f->nics[i];
		const struct facts_pci *d;
		const struct cat_nic *c = NULL;
		char id[40];

		if (n->pci_slot == NULL ||
		    (d = facts_pci_find(f, n->pci_slot)) == NULL ||
		    d->vendor_id < 0 || d->device_id < 0)
			continue;
		snprintf(id, sizeof id, "%04lx:%04lx", d->vendor_id,
		    d->device_id);
		if (cat != NULL)
			c = catalog_nic_by_pci(cat, id);
		buf_addf(out, "    #   %s at %s, %s", n->name, n->pci_slot, id);
		if (c != NULL)
			buf_addf(out, " (%s)", c->m.id);
		if (n->speed_mbps > 0)
			buf_addf(out, ", %ld Mb/s", n->speed_mbps);
		buf_adds(out, "\n");
	}
}

/* DIMM slots and the most memory, from SMBIOS types 16 and 17. */
static void
learn_draft_memory(struct buf *out, const struct learn *l,
    struct strvec *unconfirmed, struct strvec *unknown)
{
	if (l->memory_slots > 0) {
		buf_addf(out,
		    "    memory_slots: %-10ld  # SMBIOS memory arrays\n",
		    l->memory_slots);
		strvec_push(unconfirmed, "memory_slots");
	} else {
		buf_adds(out,
		    "    memory_slots: null      # UNKNOWN: DIMM slots "
		    "(dmidecode -t 17 as root)\n");
		strvec_push(unknown, "memory_slots");
	}
	if (!isnan(l->max_memory_gb)) {
		buf_addf(out,
		    "    max_memory_gb: %-9g  # SMBIOS Maximum Capacity: "
		    "the board's, not the vendor's tested\n",
		    l->max_memory_gb);
		strvec_push(unconfirmed, "max_memory_gb");
	} else {
		buf_adds(out, "    max_memory_gb: null     # UNKNOWN\n");
		strvec_push(unknown, "max_memory_gb");
	}
}

/*
 * The PSUs a BMC reported: count, redundancy, inlet and ratings each
 * written when it said them, else null and UNKNOWN; no BMC: psu null.
 */
static void
learn_draft_psu(struct buf *out, const struct learn *l,
    struct strvec *unconfirmed, struct strvec *unknown)
{
	size_t i;

	if (l->psus <= 0) {
		buf_adds(out,
		    "    psu: null               # UNKNOWN: { count, "
		    "redundancy, inlet, ratings }\n");
		strvec_push(unknown, "psu");
		return;
	}
	buf_addf(out, "    psu:                    # from %s\n",
	    l->psu_from != NULL ? l->psu_from : "the BMC");
	buf_addf(out, "      count: %-14ld # installed now\n", l->psus);
	strvec_push(unconfirmed, "psu.count");
	if (l->psu_redundancy != NULL) {
		buf_adds(out, "      redundancy: ");
		learn_q(out, l->psu_redundancy);
		buf_adds(out, "       # the BMC's redundancy group\n");
		strvec_push(unconfirmed, "psu.redundancy");
	} else {
		buf_adds(out,
		    "      redundancy: null      # UNKNOWN: \"N+M\", "
		    "N supplies carry the load\n");
		strvec_push(unknown, "psu.redundancy");
	}
	if (l->psu_inlet != NULL) {
		buf_addf(out, "      inlet: %-14s # PlugType %s\n",
		    l->psu_inlet, l->psu_plug);
		strvec_push(unconfirmed, "psu.inlet");
	} else {
		buf_adds(out,
		    "      inlet: null           # UNKNOWN: C14, C16, "
		    "C20, C22, busbar or hardwired");
		if (l->psu_plug != NULL)
			buf_addf(out, " (PlugType %s)", l->psu_plug);
		buf_adds(out, "\n");
		strvec_push(unknown, "psu.inlet");
	}
	if (l->nratings == 0) {
		buf_adds(out,
		    "      ratings: null         # UNKNOWN: watts per "
		    "input voltage range");
		if (!isnan(l->psu_watts))
			buf_addf(out, " (the BMC says %g W, at no voltage)",
			    l->psu_watts);
		buf_adds(out, "\n");
		strvec_push(unknown, "psu.ratings");
		return;
	}
	buf_adds(out, "      ratings:              # AC InputRanges\n");
	for (i = 0; i < l->nratings; i++)
		buf_addf(out,
		    "        - { volts_min: %g, volts_max: %g, "
		    "watts: %g }\n",
		    l->ratings[i].volts_min, l->ratings[i].volts_max,
		    l->ratings[i].watts);
	strvec_push(unconfirmed, "psu.ratings");
}

static void
learn_draft_list(struct buf *out, const char *key, const struct strvec *v)
{
	size_t i;

	buf_addf(out, "    %s: [", key);
	for (i = 0; i < v->n; i++)
		buf_addf(out, "%s%s", i ? ", " : "", v->v[i]);
	buf_adds(out, "]\n");
}

void
learn_draft(struct buf *out, const struct learn *l, const struct facts *f,
    const struct catalog *cat, const char *id)
{
	struct strvec unconfirmed = STRVEC_INIT, unknown = STRVEC_INIT;
	struct buf name = BUF_INIT;
	size_t i;

	buf_addf(out,
	    "# Draft of a catalog entry, written by `provision catalog "
	    "learn` from %s.\n",
	    f != NULL && f->node != NULL ? f->node : "a machine");
	buf_adds(out,
	    "# What it read from the machine is listed under "
	    "`unconfirmed`.  Every line marked\n# UNKNOWN is null until a "
	    "person fills it in from the vendor's manual; then\n# move the "
	    "key from `unknown` to `unconfirmed`, or to `sources` with a "
	    "key\n# defined in a sources.yaml (docs/catalog.md).\n");
	for (i = 0; i < l->notes.n; i++)
		buf_addf(out, "# note: %s\n", l->notes.v[i]);
	buf_addf(out, "systems:\n  %s:\n    name: ", id);
	if (l->product != NULL) {
		buf_addf(&name, "%s%s%s", l->vendor ? l->vendor : "",
		    l->vendor ? " " : "", l->product);
		learn_q(out, name.buf);
		buf_adds(out, "\n    vendor: ");
		learn_q(out, l->vendor ? l->vendor : "UNKNOWN");
		buf_adds(out, l->vendor ? "\n" : "   # UNKNOWN\n");
		strvec_push(&unconfirmed, "name");
	} else {
		buf_addf(&name, "%s (maker and model UNKNOWN)", id);
		learn_q(out, name.buf);
		buf_adds(out,
		    "   # UNKNOWN\n    # vendor: UNKNOWN, "
		    "add it\n");
	}
	buf_adds(out,
	    "    rack_units: null        # UNKNOWN: height in U\n"
	    "    depth_mm: null          # UNKNOWN: chassis depth\n"
	    "    width: null             # UNKNOWN: 19in for a rack chassis\n"
	    "    base_power_w: null      # no vendor publishes it: check uses "
	    "its default\n"
	    "    max_power_w: null       # UNKNOWN: the vendor's system "
	    "maximum, if any\n");
	strvec_push(&unknown, "rack_units");
	strvec_push(&unknown, "depth_mm");
	strvec_push(&unknown, "base_power_w");
	strvec_push(&unknown, "max_power_w");
	if (f != NULL && f->cpu_sockets > 0) {
		buf_addf(out, "    cpu_sockets: %ld          # %s\n",
		    f->cpu_sockets, f->cpu_model ? f->cpu_model : "");
		strvec_push(&unconfirmed, "cpu_sockets");
	} else {
		buf_adds(out, "    cpu_sockets: null       # UNKNOWN\n");
		strvec_push(&unknown, "cpu_sockets");
	}
	learn_draft_memory(out, l, &unconfirmed, &unknown);
	learn_draft_gpus(out, f, cat, &unconfirmed, &unknown);
	learn_draft_nics(out, f, cat);
	buf_adds(out,
	    "    cooling: null           # UNKNOWN: air or liquid\n"
	    "    weight_kg: null         # UNKNOWN: for rack and floor "
	    "load\n");
	strvec_push(&unknown, "nics");
	strvec_push(&unknown, "cooling");
	strvec_push(&unknown, "weight_kg");
	learn_draft_psu(out, l, &unconfirmed, &unknown);
	learn_draft_slots(out, l, f, &unconfirmed, &unknown);
	if (unconfirmed.n > 0)
		learn_draft_list(out, "unconfirmed", &unconfirmed);
	learn_draft_list(out, "unknown", &unknown);
	buf_release(&name);
	strvec_clear(&unconfirmed);
	strvec_clear(&unknown);
}

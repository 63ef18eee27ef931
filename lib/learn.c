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
#include <dirent.h>
#include <sys/wait.h>
#include <time.h>

#include "catalog.h"
#include "facts.h"
#include "json.h"
#include "learn.h"
#include "proc.h"
#include "str.h"

void
learn_init(struct learn *l)
{
	memset(l, 0, sizeof *l);
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

/* One "Key: value" of a type 1 or type 9 record. */
static void
learn_dmi_kv(struct learn *l, long type, struct learn_slot **slot,
    const char *k, const char *v)
{
	struct learn_slot *s = *slot;

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

	strvec_split_lines(&lines, text);
	for (i = 0; i < lines.n; i++) {
		char *ln = lines.v[i], *t, *colon;

		if (str_starts(ln, "Handle 0x")) {
			t = strstr(ln, "DMI type ");
			type = t != NULL ? strtol(t + 9, NULL, 10) : -1;
			slot = NULL;
			records++;
			continue;
		}
		if (!isspace((unsigned char)ln[0]) ||
		    (colon = strchr(ln, ':')) == NULL)
			continue;
		*colon = '\0';
		learn_dmi_kv(l, type, &slot, str_trim(ln), str_trim(colon + 1));
	}
	strvec_clear(&lines);
	if (records == 0)
		return prov_err_parse(err, "dmidecode",
		    "no 'Handle 0x..., DMI "
		    "type N' record");
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
/* This machine */

/* Run dmidecode ARGS; its stdout in out, 0 when it ran and exited 0. */
static int
learn_dmidecode(struct buf *out, const char *types)
{
	struct proc pr = PROC_INIT;
	struct buf eb = BUF_INIT;
	int r = -1;

	strvec_push(&pr.args, "dmidecode");
	strvec_push(&pr.args, types);
	pr.out = out;
	pr.err = &eb;
	pr.timeout_s = 30;
	if (proc_run(&pr) == 0 && WIFEXITED(pr.status) &&
	    WEXITSTATUS(pr.status) == 0 && out->len > 0)
		r = 0;
	proc_release(&pr);
	buf_release(&eb);
	return r;
}

static char *
learn_read_line(const char *path)
{
	struct buf b = BUF_INIT;
	char *s;

	if (buf_read_file(&b, path) != 0) {
		buf_release(&b);
		return NULL;
	}
	buf_rtrim(&b);
	s = buf_detach(&b, NULL);
	if (*s == '\0' || learn_dmi_blank(s)) {
		free(s);
		return NULL;
	}
	return s;
}

/* /sys/bus/pci/slots/N/{address,max_bus_speed} in learn_parse_sysfs_slots' form. */
static void
learn_sysfs_slots(struct learn *l)
{
	struct dirent **ents = NULL;
	struct buf b = BUF_INIT;
	struct prov_err err = PROV_ERR_INIT;
	int n, i;

	if ((n = scandir("/sys/bus/pci/slots", &ents, NULL, alphasort)) < 0) {
		strvec_push(&l->notes,
		    "no /sys/bus/pci/slots: the slots "
		    "are unknown");
		return;
	}
	for (i = 0; i < n; i++) {
		char *addr, *speed, *p;

		if (ents[i]->d_name[0] != '.') {
			p = xasprintf("/sys/bus/pci/slots/%s/address",
			    ents[i]->d_name);
			addr = learn_read_line(p);
			free(p);
			p = xasprintf("/sys/bus/pci/slots/%s/max_bus_speed",
			    ents[i]->d_name);
			speed = learn_read_line(p);
			free(p);
			if (addr != NULL)
				buf_addf(&b, "%s\t%s\t%s\n", ents[i]->d_name,
				    addr, speed != NULL ? speed : "");
			free(addr);
			free(speed);
		}
		free(ents[i]);
	}
	free(ents);
	if (b.len == 0)
		strvec_push(&l->notes,
		    "/sys/bus/pci/slots lists no slot with "
		    "an address: the slots are unknown");
	else if (learn_parse_sysfs_slots(l, b.buf, &err) != 0)
		strvec_push(&l->notes, err.msg);
	prov_err_release(&err);
	buf_release(&b);
}

void
learn_local(struct learn *l)
{
	struct buf b = BUF_INIT;
	struct prov_err err = PROV_ERR_INIT;

	if (learn_dmidecode(&b, "-t1") == 0)
		(void)learn_parse_dmi(l, b.buf, &err);
	else {
		l->vendor = learn_read_line("/sys/class/dmi/id/sys_vendor");
		l->product = learn_read_line("/sys/class/dmi/id/product_name");
	}
	if (l->vendor == NULL && l->product == NULL)
		strvec_push(&l->notes,
		    "no SMBIOS system record (dmidecode "
		    "as root, or /sys/class/dmi/id): maker and model unknown");
	buf_reset(&b);
	prov_err_release(&err);
	if (learn_dmidecode(&b, "-t9") == 0 &&
	    learn_parse_dmi(l, b.buf, &err) == 0)
		l->slots_from = "dmidecode";
	else {
		strvec_push(&l->notes,
		    "no SMBIOS slot records (dmidecode -t 9 "
		    "needs root and /dev/mem or /sys/firmware/dmi)");
		learn_sysfs_slots(l);
	}
	prov_err_release(&err);
	buf_release(&b);
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
	buf_adds(out,
	    "    memory_slots: null      # UNKNOWN: DIMM slots "
	    "(dmidecode -t 17 as root)\n"
	    "    max_memory_gb: null     # UNKNOWN\n");
	strvec_push(&unknown, "memory_slots");
	strvec_push(&unknown, "max_memory_gb");
	learn_draft_gpus(out, f, cat, &unconfirmed, &unknown);
	buf_adds(out,
	    "    nics: []                # UNKNOWN: on-board ports "
	    "{ model, count, network_role }\n"
	    "    cooling: null           # UNKNOWN: air or liquid\n"
	    "    weight_kg: null         # UNKNOWN: for rack and floor "
	    "load\n"
	    "    psu: null               # UNKNOWN: { count, redundancy, "
	    "inlet, ratings }\n");
	strvec_push(&unknown, "nics");
	strvec_push(&unknown, "cooling");
	strvec_push(&unknown, "weight_kg");
	strvec_push(&unknown, "psu");
	learn_draft_slots(out, l, f, &unconfirmed, &unknown);
	if (unconfirmed.n > 0)
		learn_draft_list(out, "unconfirmed", &unconfirmed);
	learn_draft_list(out, "unknown", &unknown);
	buf_release(&name);
	strvec_clear(&unconfirmed);
	strvec_clear(&unknown);
}

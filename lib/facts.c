/*
 * facts.c: a node's hardware and OS facts from the text tools print,
 * their JSON form, and their drift from the plan.  See facts.h.  Here:
 * the lifecycle, the PCI device list and finishing (GPUs from PCI, names
 * from the catalog); the parsers are in facts-parse.c, the gather script
 * in facts-script.c, the JSON in facts-json.c, the drift in
 * facts-drift.c, gathering from a plan's nodes in facts-gather.c.
 */
#include "compat.h"

#include <ctype.h>
#include <math.h>

#include "catalog.h"
#include "facts-int.h"
#include "str.h"

/* ------------------------------------------------------------------ */
/* Lifecycle and small helpers */

struct facts *
facts_new(void)
{
	struct facts	*f = xcalloc(1, sizeof *f);

	f->cpu_sockets = f->cpu_cores = f->cpu_threads = -1;
	f->mem_kb = f->hugepages_kb = -1;
	f->notes = (struct strvec)STRVEC_INIT;
	return f;
}

static void
facts_pci_release(struct facts_pci *d)
{
	free(d->slot);
	free(d->class_name);
	free(d->vendor_name);
	free(d->device_name);
	free(d->name_source);
	free(d->driver);
}

static void
facts_gpu_release(struct facts_gpu *g)
{
	free(g->name);
	free(g->bus_id);
	free(g->pci_id);
	free(g->uuid);
	free(g->driver_version);
	free(g->persistence);
	free(g->mig_mode);
	free(g->ecc_mode);
	free(g->catalog_id);
	free(g->source);
}

void
facts_free(struct facts *f)
{
	size_t	i;

	if (f == NULL)
		return;
	free(f->node);
	free(f->os_id);
	free(f->os_version_id);
	free(f->os_pretty);
	free(f->kernel);
	free(f->cpu_model);
	free(f->arch);
	for (i = 0; i < f->npci; i++)
		facts_pci_release(&f->pci[i]);
	free(f->pci);
	for (i = 0; i < f->ngpus; i++)
		facts_gpu_release(&f->gpus[i]);
	free(f->gpus);
	for (i = 0; i < f->nnics; i++) {
		free(f->nics[i].name);
		free(f->nics[i].state);
		free(f->nics[i].mac);
		free(f->nics[i].pci_slot);
	}
	free(f->nics);
	for (i = 0; i < f->nib; i++) {
		free(f->ib[i].ca);
		free(f->ib[i].state);
		free(f->ib[i].phys_state);
		free(f->ib[i].link_layer);
	}
	free(f->ib);
	for (i = 0; i < f->ndisks; i++) {
		free(f->disks[i].name);
		free(f->disks[i].model);
	}
	free(f->disks);
	strvec_clear(&f->notes);
	free(f);
}

void
facts_note(struct facts *f, const char *fmt, ...)
{
	struct buf	b = BUF_INIT;
	va_list		ap;

	va_start(ap, fmt);
	buf_vaddf(&b, fmt, ap);
	va_end(ap);
	if (strvec_find(&f->notes, b.buf) < 0)
		strvec_push_nodup(&f->notes, buf_detach(&b, NULL));
	buf_release(&b);
}

/* Split "key SEP value" at the first sep, both trimmed; -1 without sep. */
int
facts_kv(char *line, int sep, char **k, char **v)
{
	char	*p = strchr(line, sep);

	if (p == NULL)
		return -1;
	*p = '\0';
	*k = str_trim(line);
	*v = str_trim(p + 1);
	return 0;
}

/* A leading decimal integer (after blanks), or -1. */
long
facts_num(const char *s)
{
	char	*end;
	long	 v;

	while (*s == ' ' || *s == '\t')
		s++;
	if (!isdigit((unsigned char)*s))
		return -1;
	errno = 0;
	v = strtol(s, &end, 10);
	if (errno != 0)
		return -1;
	return v;
}

/* A leading decimal number such as "2.5" (after blanks), or -1. */
double
facts_dbl(const char *s)
{
	char	*end;
	double	 v;

	while (*s == ' ' || *s == '\t')
		s++;
	if (!isdigit((unsigned char)*s))
		return -1;
	v = strtod(s, &end);
	if (end == s || !isfinite(v))
		return -1;
	return v;
}

void
facts_lower(char *s)
{
	for (; *s != '\0'; s++)
		*s = (char)tolower((unsigned char)*s);
}

/* Only white space? */
int
facts_blank(const char *s)
{
	return s[strspn(s, " \t\r")] == '\0';
}

long
facts_gen_of_speed(double gts)
{
	static const double	speeds[] = { 2.5, 5, 8, 16, 32, 64 };
	size_t			i;

	for (i = 0; i < ARRAY_SIZE(speeds); i++)
		if (fabs(gts - speeds[i]) < 0.01)
			return (long)i + 1;
	return -1;
}

double
facts_speed_of_gen(long gen)
{
	static const double	speeds[] = { 2.5, 5, 8, 16, 32, 64 };

	if (gen < 1 || gen > (long)ARRAY_SIZE(speeds))
		return -1;
	return speeds[gen - 1];
}

/* ------------------------------------------------------------------ */
/* PCI slots and the device list */

int
facts_slot_norm(char *out, size_t outsz, const char *s)
{
	unsigned long	 part[4];
	const char	*p = s;
	size_t		 n = 0, i;
	char		*end;

	/* dom:bus:dev.fn or bus:dev.fn, hex; nvidia-smi pads dom to 8 digits */
	for (;;) {
		if (!isxdigit((unsigned char)*p) || n == 4)
			return -1;
		errno = 0;
		part[n++] = strtoul(p, &end, 16);
		if (errno != 0 || end - p > 8)
			return -1;
		p = end;
		if (*p == ':' && n <= 2) {
			p++;
			continue;
		}
		if (*p == '.' && n >= 2 && n <= 3) {
			p++;
			continue;
		}
		break;
	}
	if (*p != '\0' || n < 3)
		return -1;
	if (n == 3) {
		for (i = 3; i > 0; i--)
			part[i] = part[i - 1];
		part[0] = 0;
	}
	if (part[1] > 0xff || part[2] > 0x1f || part[3] > 7 ||
	    part[0] > 0xffffffUL)
		return -1;
	if ((size_t)snprintf(out, outsz, "%04lx:%02lx:%02lx.%lx", part[0],
	    part[1], part[2], part[3]) >= outsz)
		return -1;
	return 0;
}

struct facts_pci *
facts_pci_find(const struct facts *f, const char *slot)
{
	char	norm[32];
	size_t	i;

	if (facts_slot_norm(norm, sizeof norm, slot) != 0)
		return NULL;
	for (i = 0; i < f->npci; i++)
		if (strcmp(f->pci[i].slot, norm) == 0)
			return &f->pci[i];
	return NULL;
}

struct facts_pci *
facts_pci_get(struct facts *f, const char *slot)
{
	struct facts_pci	*d;
	char			 norm[32];

	if (facts_slot_norm(norm, sizeof norm, slot) != 0)
		return NULL;
	if ((d = facts_pci_find(f, norm)) != NULL)
		return d;
	ALLOC_GROW(f->pci, f->npci + 1, f->pci_alloc);
	d = &f->pci[f->npci++];
	memset(d, 0, sizeof *d);
	d->slot = xstrdup(norm);
	d->class_id = d->vendor_id = d->device_id = -1;
	d->svendor_id = d->sdevice_id = -1;
	d->numa_node = -1;
	d->link.speed = d->link.max_speed = -1;
	d->link.width = d->link.max_width = -1;
	return d;
}

/* Find a GPU by bus id, else by index, else add one. */
struct facts_gpu *
facts_gpu_get(struct facts *f, const char *bus_id, long index)
{
	struct facts_gpu	*g;
	char			 norm[32];
	size_t			 i;

	if (bus_id != NULL && facts_slot_norm(norm, sizeof norm, bus_id) != 0)
		bus_id = NULL;
	for (i = 0; i < f->ngpus; i++) {
		g = &f->gpus[i];
		if (bus_id != NULL && g->bus_id != NULL) {
			if (strcmp(g->bus_id, norm) == 0)
				return g;
			continue;
		}
		if (index >= 0 && g->index == index)
			return g;
	}
	ALLOC_GROW(f->gpus, f->ngpus + 1, f->gpus_alloc);
	g = &f->gpus[f->ngpus++];
	memset(g, 0, sizeof *g);
	g->index = index;
	g->bus_id = bus_id != NULL ? xstrdup(norm) : NULL;
	g->memory_mib = g->mig_devices = -1;
	g->gen = g->max_gen = g->width = g->max_width = -1;
	return g;
}

/* ------------------------------------------------------------------ */
/* ------------------------------------------------------------------ */
/* Finishing: GPUs from PCI, names from the catalog */

char *
facts_pci_id(const struct facts_pci *d)
{
	if (d->vendor_id < 0 || d->device_id < 0)
		return NULL;
	return xasprintf("%04lx:%04lx", d->vendor_id, d->device_id);
}

size_t
facts_pci_unsure(const struct facts *f)
{
	size_t	i, n = 0;

	for (i = 0; i < f->npci; i++)
		if (f->pci[i].vendor_id < 0 && (f->pci[i].class_id < 0 ||
		    (f->pci[i].class_id >> 8) == 0x03))
			n++;
	return n;
}

/* An NVIDIA display or 3D controller (not an NVSwitch bridge). */
static int
facts_pci_is_gpu(const struct facts_pci *d, const struct catalog *cat)
{
	char	*id;
	int	 yes;

	if (d->vendor_id == 0x10de && (d->class_id >> 8) == 0x03)
		return 1;
	if (cat == NULL || (d->class_id >> 8) != 0x03 ||
	    (id = facts_pci_id(d)) == NULL)
		return 0;
	yes = catalog_gpu_by_pci(cat, id) != NULL;
	free(id);
	return yes;
}

static int
facts_pci_cmp(const void *a, const void *b)
{
	return strcmp(((const struct facts_pci *)a)->slot,
	    ((const struct facts_pci *)b)->slot);
}

void
facts_finish(struct facts *f, const struct catalog *cat)
{
	size_t	i;

	if (f->npci > 1)
		qsort(f->pci, f->npci, sizeof *f->pci, facts_pci_cmp);
	if (f->ngpus == 0)
		for (i = 0; i < f->npci; i++) {
			struct facts_gpu	*g;
			const struct facts_pci	*d = &f->pci[i];

			if (!facts_pci_is_gpu(d, cat))
				continue;
			g = facts_gpu_get(f, d->slot, -1);
			g->index = (long)f->ngpus - 1;
			str_set(&g->source, "pci");
			if (d->device_name != NULL)
				str_set(&g->name, d->device_name);
		}
	for (i = 0; i < f->ngpus; i++) {
		struct facts_gpu	*g = &f->gpus[i];
		struct facts_pci	*d = g->bus_id ?
			    facts_pci_find(f, g->bus_id) : NULL;

		if (d != NULL) {
			if (g->pci_id == NULL)
				g->pci_id = facts_pci_id(d);
			if (g->gen < 0 && g->width < 0) {
				g->gen = facts_gen_of_speed(d->link.speed);
				g->max_gen = facts_gen_of_speed(
				    d->link.max_speed);
				g->width = d->link.width;
				g->max_width = d->link.max_width;
			}
		}
		if (cat != NULL && g->pci_id != NULL) {
			const struct cat_gpu	*cg =
			    catalog_gpu_by_pci(cat, g->pci_id);

			if (cg != NULL) {
				str_set(&g->catalog_id, cg->m.id);
				if (g->name == NULL)
					str_set(&g->name, cg->m.name);
			}
		}
	}
	if (cat == NULL)
		return;
	for (i = 0; i < f->npci; i++) {
		struct facts_pci	*d = &f->pci[i];
		const struct cat_gpu	*cg;
		const struct cat_nic	*cn;
		char			*id;

		if (d->device_name != NULL || (id = facts_pci_id(d)) == NULL)
			continue;
		if ((cg = catalog_gpu_by_pci(cat, id)) != NULL) {
			str_set(&d->device_name, cg->m.name);
			str_set(&d->name_source, "catalog");
		} else if ((cn = catalog_nic_by_pci(cat, id)) != NULL) {
			str_set(&d->device_name, cn->m.name);
			str_set(&d->name_source, "catalog");
		}
		free(id);
	}
}

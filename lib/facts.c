/*
 * facts.c: a node's hardware and OS facts from the text tools print,
 * their JSON form, and their drift from the plan.  See facts.h.
 *
 * Shapes accepted (each parser says more):
 *
 *	os-release	KEY=VALUE lines, values shell-quoted or bare
 *	meminfo		"MemTotal:  2113413736 kB"
 *	cpuinfo		"key\t: value" blocks, one per logical CPU
 *	lscpu		"Key:   value"
 *	lspci -vmm -nn	"Tag:\tName [id]" records split by blank lines
 *	lspci [-nn][-vv] "SLOT CLASS [cccc]: DESCRIPTION [vvvv:dddd] (rev r)"
 *			then indented detail lines (LnkCap:, LnkSta:, driver)
 *	nvidia-smi	CSV (header or field list), -q -x XML, -L list
 *	ibstat		"CA 'x'" / "Port N:" / "Key: value"
 *	ibstatus	"Infiniband device 'x' port N status:" / "key: value"
 *
 * Tools change their output between versions: parsers skip what they do
 * not know and fail only when the text cannot be the tool's at all, so a
 * test against the wrong file fails.
 */
#include "compat.h"

#include <ctype.h>
#include <math.h>

#include "buf.h"
#include "catalog.h"
#include "facts.h"
#include "json.h"
#include "plan.h"
#include "row.h"
#include "str.h"
#include "strvec.h"
#include "xml.h"
#include "yml.h"

/* ------------------------------------------------------------------ */
/* Lifecycle and small helpers */

struct facts *
facts_new(void)
{
	struct facts	*f = xcalloc(1, sizeof *f);

	f->cpu_sockets = f->cpu_cores = f->cpu_threads = -1;
	f->mem_kb = -1;
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

/* Replace *dst with a copy of s (NULL allowed). */
static void
facts_set(char **dst, const char *s)
{
	char	*c = s != NULL ? xstrdup(s) : NULL;

	free(*dst);
	*dst = c;
}

/* Split "key SEP value" at the first sep, both trimmed; -1 without sep. */
static int
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
static long
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
static double
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

/* A whole hexadecimal number, "0x" optional; -1 when s is not one. */
static long
facts_hex(const char *s)
{
	char	*end;
	long	 v;

	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
		s += 2;
	if (!isxdigit((unsigned char)*s))
		return -1;
	errno = 0;
	v = strtol(s, &end, 16);
	if (errno != 0 || *end != '\0' || v < 0)
		return -1;
	return v;
}

static void
facts_lower(char *s)
{
	for (; *s != '\0'; s++)
		*s = (char)tolower((unsigned char)*s);
}

/* Only white space? */
static int
facts_blank(const char *s)
{
	return s[strspn(s, " \t\r")] == '\0';
}

/* Split text into lines (owned copies) in *lines. */
static void
facts_lines(struct strvec *lines, const char *text)
{
	size_t	i, len;

	strvec_split(lines, text, '\n', 0);
	for (i = 0; i < lines->n; i++)
		if ((len = strlen(lines->v[i])) > 0 &&
		    lines->v[i][len - 1] == '\r')
			lines->v[i][len - 1] = '\0';
}

static int
facts_parse_err(struct prov_err *err, const char *what, const char *fmt,
    ...) __attribute__((format(printf, 3, 4)));

static int
facts_parse_err(struct prov_err *err, const char *what, const char *fmt, ...)
{
	struct buf	b = BUF_INIT;
	va_list		ap;

	va_start(ap, fmt);
	buf_vaddf(&b, fmt, ap);
	va_end(ap);
	prov_err_set(err, PROV_E_PARSE, "%s: %s", what, b.buf);
	buf_release(&b);
	return -1;
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
	d->link.speed = d->link.max_speed = -1;
	d->link.width = d->link.max_width = -1;
	return d;
}

/* Find a GPU by bus id, else by index, else add one. */
static struct facts_gpu *
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
/* os-release, meminfo, cpuinfo, lscpu */

/* Undo os-release quoting (a subset of shell: "..." with \ escapes, '...'). */
static char *
facts_unquote(const char *v)
{
	struct buf	b = BUF_INIT;
	char		q = 0;

	if (*v == '"' || *v == '\'')
		q = *v++;
	for (; *v != '\0'; v++) {
		if (q != 0 && *v == q) {
			q = 0;
			continue;
		}
		if (q == 0 && (*v == '"' || *v == '\'')) {
			q = *v;
			continue;
		}
		if (q != '\'' && *v == '\\' && v[1] != '\0')
			v++;
		buf_addch(&b, *v);
	}
	return buf_detach(&b, NULL);
}

int
facts_parse_os_release(struct facts *f, const char *text,
    struct prov_err *err)
{
	struct strvec	lines = STRVEC_INIT;
	size_t		i, n = 0;
	int		r = -1;

	facts_lines(&lines, text);
	for (i = 0; i < lines.n; i++) {
		char	*l = str_trim(lines.v[i]), *k, *v, *p;

		if (*l == '\0' || *l == '#')
			continue;
		if (facts_kv(l, '=', &k, &v) != 0 || *k == '\0') {
			facts_parse_err(err, "os-release", "line %zu is not "
			    "KEY=VALUE", i + 1);
			goto out;
		}
		for (p = k; *p != '\0'; p++)
			if (!isalnum((unsigned char)*p) && *p != '_') {
				facts_parse_err(err, "os-release", "bad key "
				    "'%s' on line %zu", k, i + 1);
				goto out;
			}
		n++;
		if (strcmp(k, "ID") == 0) {
			free(f->os_id);
			f->os_id = facts_unquote(v);
		} else if (strcmp(k, "VERSION_ID") == 0) {
			free(f->os_version_id);
			f->os_version_id = facts_unquote(v);
		} else if (strcmp(k, "PRETTY_NAME") == 0) {
			free(f->os_pretty);
			f->os_pretty = facts_unquote(v);
		}
	}
	if (n == 0) {
		facts_parse_err(err, "os-release", "no KEY=VALUE lines");
		goto out;
	}
	r = 0;
out:
	strvec_clear(&lines);
	return r;
}

int
facts_parse_meminfo(struct facts *f, const char *text, struct prov_err *err)
{
	struct strvec	lines = STRVEC_INIT;
	size_t		i;
	int		r = -1;

	facts_lines(&lines, text);
	for (i = 0; i < lines.n; i++) {
		char	*k, *v;
		long	 kb;

		if (facts_kv(lines.v[i], ':', &k, &v) != 0 ||
		    strcmp(k, "MemTotal") != 0)
			continue;
		if ((kb = facts_num(v)) < 0 || strstr(v, "kB") == NULL) {
			facts_parse_err(err, "meminfo", "MemTotal is not a "
			    "size in kB: '%s'", v);
			goto out;
		}
		f->mem_kb = kb;
		r = 0;
		goto out;
	}
	facts_parse_err(err, "meminfo", "no MemTotal line");
out:
	strvec_clear(&lines);
	return r;
}

/* Add v to the set s (n of alloc) unless present. */
static void
facts_set_add(long **s, size_t *n, size_t *alloc, long v)
{
	size_t	i;

	for (i = 0; i < *n; i++)
		if ((*s)[i] == v)
			return;
	ALLOC_GROW(*s, *n + 1, *alloc);
	(*s)[(*n)++] = v;
}

int
facts_parse_cpuinfo(struct facts *f, const char *text, struct prov_err *err)
{
	struct strvec	 lines = STRVEC_INIT;
	long		*pkgs = NULL, *cores = NULL, phys = -1;
	size_t		 npkgs = 0, apkgs = 0, ncores = 0, acores = 0, i;
	long		 nproc = 0;
	char		*model = NULL;
	int		 r = -1;

	facts_lines(&lines, text);
	for (i = 0; i < lines.n; i++) {
		char	*k, *v;

		if (facts_kv(lines.v[i], ':', &k, &v) != 0)
			continue;
		if (strcmp(k, "processor") == 0 && facts_num(v) >= 0) {
			nproc++;
			phys = -1;
		} else if (strcmp(k, "model name") == 0 ||
		    (strcmp(k, "cpu") == 0 && model == NULL)) {
			if (model == NULL && *v != '\0')
				model = xstrdup(v);
		} else if (strcmp(k, "physical id") == 0) {
			phys = facts_num(v);
			if (phys >= 0)
				facts_set_add(&pkgs, &npkgs, &apkgs, phys);
		} else if (strcmp(k, "core id") == 0 && phys >= 0 &&
		    facts_num(v) >= 0)
			facts_set_add(&cores, &ncores, &acores,
			    phys * 65536 + facts_num(v));
	}
	if (nproc == 0) {
		facts_parse_err(err, "cpuinfo", "no 'processor' entries");
		goto out;
	}
	f->cpu_threads = nproc;
	if (npkgs > 0)
		f->cpu_sockets = (long)npkgs;
	if (ncores > 0)
		f->cpu_cores = (long)ncores;
	if (model != NULL) {
		free(f->cpu_model);
		f->cpu_model = model;
		model = NULL;
	}
	r = 0;
out:
	free(model);
	free(pkgs);
	free(cores);
	strvec_clear(&lines);
	return r;
}

int
facts_parse_lscpu(struct facts *f, const char *text, struct prov_err *err)
{
	struct strvec	lines = STRVEC_INIT;
	long		cpus = -1, sockets = -1, per_socket = -1;
	char		*model = NULL;
	size_t		i;
	int		r = -1;

	facts_lines(&lines, text);
	for (i = 0; i < lines.n; i++) {
		char	*k, *v;

		if (facts_kv(lines.v[i], ':', &k, &v) != 0)
			continue;
		if (strcmp(k, "CPU(s)") == 0 && cpus < 0)
			cpus = facts_num(v);
		else if (strcmp(k, "Model name") == 0 && model == NULL &&
		    *v != '\0' && strcmp(v, "-") != 0)
			model = xstrdup(v);
		else if (strcmp(k, "Socket(s)") == 0 && sockets < 0)
			sockets = facts_num(v);
		else if (strcmp(k, "Core(s) per socket") == 0 &&
		    per_socket < 0)
			per_socket = facts_num(v);
	}
	if (cpus < 0) {
		facts_parse_err(err, "lscpu", "no 'CPU(s):' line");
		goto out;
	}
	f->cpu_threads = cpus;
	if (sockets > 0)
		f->cpu_sockets = sockets;
	if (sockets > 0 && per_socket > 0)
		f->cpu_cores = sockets * per_socket;
	if (model != NULL) {
		free(f->cpu_model);
		f->cpu_model = model;
		model = NULL;
	}
	r = 0;
out:
	free(model);
	strvec_clear(&lines);
	return r;
}

/* ------------------------------------------------------------------ */
/* lspci */

/*
 * "Name [1234]" -> name (NULL when lspci only had the number) and id.
 * Unknown names print as "Device [2335]" (-nn) or "Device 2335".
 */
static void
facts_name_id(const char *v, char **name, long *id)
{
	const char	*lb = strrchr(v, '[');
	size_t		 len = strlen(v);
	char		*n, *tmp, buf[16];

	*id = -1;
	if (lb != NULL && len > 0 && v[len - 1] == ']' &&
	    (size_t)(v + len - 1 - lb - 1) < sizeof buf) {
		memcpy(buf, lb + 1, (size_t)(v + len - 1 - lb - 1));
		buf[v + len - 1 - lb - 1] = '\0';
		if ((*id = facts_hex(buf)) >= 0)
			len = (size_t)(lb - v);
	}
	tmp = xstrndup(v, len);
	n = xstrdup(str_trim(tmp));
	free(tmp);
	*name = n;
	if (strcmp(n, "Device") == 0 || strcmp(n, "Class") == 0 ||
	    strcmp(n, "Vendor") == 0 || *n == '\0' ||
	    (str_starts(n, "Device ") && strlen(n) == 11 &&
	    facts_hex(n + 7) >= 0)) {
		if (*id < 0 && str_starts(n, "Device "))
			*id = facts_hex(n + 7);
		free(n);
		*name = NULL;
	}
}

int
facts_parse_lspci_vmm(struct facts *f, const char *text,
    struct prov_err *err)
{
	struct strvec		 lines = STRVEC_INIT;
	struct facts_pci	*d = NULL;
	size_t			 i, ndev = 0;
	int			 r = -1;

	facts_lines(&lines, text);
	for (i = 0; i < lines.n; i++) {
		char	*l = lines.v[i], *k, *v, *name;
		long	 id;

		if (*str_trim(l) == '\0') {
			d = NULL;
			continue;
		}
		if (facts_kv(l, ':', &k, &v) != 0) {
			facts_parse_err(err, "lspci -vmm", "line %zu is not "
			    "'Tag: value'", i + 1);
			goto out;
		}
		if (strcmp(k, "Slot") == 0) {
			if ((d = facts_pci_get(f, v)) == NULL) {
				facts_parse_err(err, "lspci -vmm", "bad slot "
				    "'%s' on line %zu", v, i + 1);
				goto out;
			}
			ndev++;
			continue;
		}
		if (d == NULL) {
			facts_parse_err(err, "lspci -vmm", "'%s' before "
			    "'Slot:' on line %zu", k, i + 1);
			goto out;
		}
		if (strcmp(k, "Driver") == 0) {
			facts_set(&d->driver, v);
			continue;
		}
		if (strcmp(k, "Class") != 0 && strcmp(k, "Vendor") != 0 &&
		    strcmp(k, "Device") != 0 && strcmp(k, "SVendor") != 0 &&
		    strcmp(k, "SDevice") != 0)
			continue;
		facts_name_id(v, &name, &id);
		if (strcmp(k, "Class") == 0) {
			if (id >= 0)
				d->class_id = id;
			if (name != NULL)
				facts_set(&d->class_name, name);
		} else if (strcmp(k, "Vendor") == 0) {
			if (id >= 0)
				d->vendor_id = id;
			if (name != NULL)
				facts_set(&d->vendor_name, name);
		} else if (strcmp(k, "Device") == 0) {
			if (id >= 0)
				d->device_id = id;
			if (name != NULL) {
				facts_set(&d->device_name, name);
				facts_set(&d->name_source, "pci.ids");
			}
		} else if (strcmp(k, "SVendor") == 0)
			d->svendor_id = id;
		else
			d->sdevice_id = id;
		free(name);
	}
	if (ndev == 0 && text[strspn(text, " \t\r\n")] != '\0') {
		facts_parse_err(err, "lspci -vmm", "no 'Slot:' records");
		goto out;
	}
	r = 0;
out:
	strvec_clear(&lines);
	return r;
}

/* "Speed 32GT/s (ok), Width x16 (ok)" -> speed and width; -1 unknown. */
static void
facts_lnk(const char *v, double *speed, long *width)
{
	const char	*p;

	if ((p = strstr(v, "Speed ")) != NULL)
		*speed = facts_dbl(p + 6);
	if ((p = strstr(v, "Width x")) != NULL)
		*width = facts_num(p + 7);
}

/* Is `l` an lspci device header?  Its slot ends at the first space. */
static int
facts_lspci_header(const char *l, char *slot, size_t slotsz)
{
	const char	*sp = strchr(l, ' ');
	char		 tmp[32];

	if (sp == NULL || sp == l || (size_t)(sp - l) >= sizeof tmp ||
	    isspace((unsigned char)l[0]))
		return 0;
	memcpy(tmp, l, (size_t)(sp - l));
	tmp[sp - l] = '\0';
	return facts_slot_norm(slot, slotsz, tmp) == 0;
}

/* Strip " (rev a1)" and " (prog-if 00 [VGA controller])" from the end. */
static void
facts_strip_parens(char *s)
{
	for (;;) {
		size_t	 len = strlen(s);
		char	*q, *rv, *p;

		if (len == 0 || s[len - 1] != ')')
			return;
		q = strstr(s, " (prog-if ");
		rv = strstr(s, " (rev ");
		p = q != NULL && (rv == NULL || q > rv) ? q : rv;
		if (p == NULL)
			return;
		*p = '\0';
	}
}

int
facts_parse_lspci(struct facts *f, const char *text, struct prov_err *err)
{
	struct strvec		 lines = STRVEC_INIT;
	struct facts_pci	*d = NULL;
	size_t			 i, ndev = 0;
	int			 r = -1;

	facts_lines(&lines, text);
	for (i = 0; i < lines.n; i++) {
		char	*l = lines.v[i], slot[32], *cls, *desc, *k, *v;
		char	*lb;
		long	 id;

		if (*str_trim(l) == '\0') {
			d = NULL;
			continue;
		}
		if (!isspace((unsigned char)lines.v[i][0]) &&
		    facts_lspci_header(l, slot, sizeof slot)) {
			d = facts_pci_get(f, slot);
			ndev++;
			cls = strchr(l, ' ') + 1;
			if ((desc = strstr(cls, ": ")) == NULL) {
				facts_parse_err(err, "lspci", "no ': ' after "
				    "the class on line %zu", i + 1);
				goto out;
			}
			*desc = '\0';
			desc += 2;
			facts_name_id(cls, &k, &id);
			if (id >= 0)
				d->class_id = id;
			if (k != NULL)
				facts_set(&d->class_name, k);
			free(k);
			facts_strip_parens(desc);
			desc = str_trim(desc);
			/* [vvvv:dddd] at the end (-nn) */
			lb = strrchr(desc, '[');
			if (lb != NULL && strlen(lb) == 11 && lb[5] == ':' &&
			    lb[10] == ']') {
				lb[5] = lb[10] = '\0';
				if (facts_hex(lb + 1) >= 0 &&
				    facts_hex(lb + 6) >= 0) {
					d->vendor_id = facts_hex(lb + 1);
					d->device_id = facts_hex(lb + 6);
					*lb = '\0';
					desc = str_trim(desc);
				} else
					lb[5] = ':', lb[10] = ']';
			}
			/* "NVIDIA Corporation Device 2330": not in pci.ids */
			if ((k = strstr(desc, " Device ")) != NULL &&
			    strlen(k) == 12 && facts_hex(k + 8) >= 0) {
				if (d->device_id < 0)
					d->device_id = facts_hex(k + 8);
				*k = '\0';
				if (d->vendor_name == NULL)
					facts_set(&d->vendor_name, desc);
			} else if (*desc != '\0' && d->device_name == NULL) {
				facts_set(&d->device_name, desc);
				facts_set(&d->name_source, "pci.ids");
			}
			continue;
		}
		if (d == NULL) {
			if (!isspace((unsigned char)lines.v[i][0])) {
				facts_parse_err(err, "lspci", "line %zu is "
				    "not a device", i + 1);
				goto out;
			}
			continue;
		}
		if (facts_kv(l, ':', &k, &v) != 0)
			continue;
		if (strcmp(k, "LnkCap") == 0)
			facts_lnk(v, &d->link.max_speed, &d->link.max_width);
		else if (strcmp(k, "LnkSta") == 0)
			facts_lnk(v, &d->link.speed, &d->link.width);
		else if (strcmp(k, "Kernel driver in use") == 0)
			facts_set(&d->driver, v);
	}
	if (ndev == 0 && strspn(text, " \t\r\n") != strlen(text)) {
		facts_parse_err(err, "lspci", "no device lines");
		goto out;
	}
	r = 0;
out:
	strvec_clear(&lines);
	return r;
}

/* "16.0 GT/s PCIe", "8 GT/s", "Unknown" -> GT/s or -1. */
static double
facts_sysfs_speed(const char *s)
{
	double	v = facts_dbl(s);

	return v > 0 && strstr(s, "GT/s") != NULL ? v : -1;
}

int
facts_parse_pci_sysfs(struct facts *f, const char *text,
    struct prov_err *err)
{
	struct strvec	lines = STRVEC_INIT, fl = STRVEC_INIT;
	size_t		i;
	int		r = -1;

	facts_lines(&lines, text);
	for (i = 0; i < lines.n; i++) {
		struct facts_pci	*d;
		long			 v;

		if (facts_blank(lines.v[i]))
			continue;
		strvec_clear(&fl);
		strvec_split(&fl, lines.v[i], '\t', 0);
		if ((fl.n != 8 && fl.n != 9) ||
		    (d = facts_pci_get(f, fl.v[0])) == NULL) {
			facts_parse_err(err, "pci sysfs", "line %zu is not "
			    "SLOT CLASS VENDOR DEVICE SPEED MAXSPEED WIDTH "
			    "MAXWIDTH [DRIVER]", i + 1);
			goto out;
		}
		if ((v = facts_hex(fl.v[1])) >= 0)
			d->class_id = v >> 8;
		if ((v = facts_hex(fl.v[2])) >= 0)
			d->vendor_id = v;
		if ((v = facts_hex(fl.v[3])) >= 0)
			d->device_id = v;
		if (*fl.v[4] != '\0')
			d->link.speed = facts_sysfs_speed(fl.v[4]);
		if (*fl.v[5] != '\0')
			d->link.max_speed = facts_sysfs_speed(fl.v[5]);
		if (*fl.v[6] != '\0')
			d->link.width = facts_num(fl.v[6]);
		if (*fl.v[7] != '\0')
			d->link.max_width = facts_num(fl.v[7]);
		if (fl.n == 9 && *fl.v[8] != '\0')
			facts_set(&d->driver, fl.v[8]);
	}
	r = 0;
out:
	strvec_clear(&fl);
	strvec_clear(&lines);
	return r;
}

/* facts_script()'s "SLOT\tDRIVER" lines. */
static int
facts_parse_pci_drivers(struct facts *f, const char *text,
    struct prov_err *err)
{
	struct strvec	lines = STRVEC_INIT;
	size_t		i;
	int		r = -1;

	facts_lines(&lines, text);
	for (i = 0; i < lines.n; i++) {
		struct facts_pci	*d;
		char			*k, *v;

		if (*str_trim(lines.v[i]) == '\0')
			continue;
		if (facts_kv(lines.v[i], '\t', &k, &v) != 0 ||
		    (d = facts_pci_get(f, k)) == NULL) {
			facts_parse_err(err, "pci drivers", "line %zu is not "
			    "SLOT DRIVER", i + 1);
			goto out;
		}
		facts_set(&d->driver, v);
	}
	r = 0;
out:
	strvec_clear(&lines);
	return r;
}

/* ------------------------------------------------------------------ */
/* nvidia-smi */

/* "[N/A]", "N/A", "[Not Supported]", "": nothing known. */
static int
facts_nv_unknown(const char *v)
{
	return *v == '\0' || *v == '[' || strcmp(v, "N/A") == 0;
}

/* "0x233010DE" / "233010DE" (device then vendor) -> "10de:2330". */
static char *
facts_nv_pci_id(const char *v)
{
	long	x = facts_hex(v);

	if (x < 0 || x > 0xffffffffL)
		return NULL;
	return xasprintf("%04lx:%04lx", x & 0xffff, (x >> 16) & 0xffff);
}

/* Store one nvidia-smi value by its field name. */
static void
facts_nv_field(struct facts_gpu *g, const char *k, const char *v)
{
	if (facts_nv_unknown(v))
		return;
	if (strcmp(k, "name") == 0)
		facts_set(&g->name, v);
	else if (strcmp(k, "uuid") == 0)
		facts_set(&g->uuid, v);
	else if (strcmp(k, "pci.device_id") == 0) {
		free(g->pci_id);
		g->pci_id = facts_nv_pci_id(v);
	} else if (strcmp(k, "memory.total") == 0)
		g->memory_mib = facts_num(v);
	else if (strcmp(k, "driver_version") == 0)
		facts_set(&g->driver_version, v);
	else if (strcmp(k, "persistence_mode") == 0)
		facts_set(&g->persistence, v);
	else if (strcmp(k, "pcie.link.gen.current") == 0)
		g->gen = facts_num(v);
	else if (strcmp(k, "pcie.link.gen.max") == 0)
		g->max_gen = facts_num(v);
	else if (strcmp(k, "pcie.link.width.current") == 0)
		g->width = facts_num(v);
	else if (strcmp(k, "pcie.link.width.max") == 0)
		g->max_width = facts_num(v);
}

/* Split an nvidia-smi CSV line at ", " into trimmed fields. */
static void
facts_csv_split(struct strvec *out, const char *line)
{
	size_t	i;

	strvec_split(out, line, ',', 0);
	for (i = 0; i < out->n; i++) {
		char	*t = str_trim(out->v[i]);

		memmove(out->v[i], t, strlen(t) + 1);
	}
}

int
facts_parse_nvsmi_csv(struct facts *f, const char *text, const char *fields,
    struct prov_err *err)
{
	struct strvec	 lines = STRVEC_INIT, hdr = STRVEC_INIT;
	struct strvec	 row = STRVEC_INIT;
	size_t		 i, j, first = 0;
	long		 ibus, iidx;
	int		 r = -1;

	facts_lines(&lines, text);
	if (fields != NULL)
		facts_csv_split(&hdr, fields);
	else {
		while (first < lines.n && *str_trim(lines.v[first]) == '\0')
			first++;
		if (first == lines.n) {
			facts_parse_err(err, "nvidia-smi csv", "no header");
			goto out;
		}
		facts_csv_split(&hdr, lines.v[first++]);
	}
	for (j = 0; j < hdr.n; j++) {
		char	*u = strstr(hdr.v[j], " [");

		if (u != NULL)
			*u = '\0';	/* "memory.total [MiB]" */
		if (*hdr.v[j] == '\0' || strchr(hdr.v[j], ' ') != NULL) {
			facts_parse_err(err, "nvidia-smi csv", "'%s' is not "
			    "a field name", hdr.v[j]);
			goto out;
		}
	}
	ibus = strvec_find(&hdr, "pci.bus_id");
	iidx = strvec_find(&hdr, "index");
	for (i = first; i < lines.n; i++) {
		struct facts_gpu	*g;
		const char		*bus = NULL;
		long			 index = -1;

		if (*str_trim(lines.v[i]) == '\0')
			continue;
		strvec_clear(&row);
		facts_csv_split(&row, lines.v[i]);
		if (row.n != hdr.n) {
			facts_parse_err(err, "nvidia-smi csv", "line %zu has "
			    "%zu fields, the header %zu", i + 1, row.n, hdr.n);
			goto out;
		}
		if (ibus >= 0 && !facts_nv_unknown(row.v[ibus]))
			bus = row.v[ibus];
		if (iidx >= 0)
			index = facts_num(row.v[iidx]);
		if (iidx < 0 && bus == NULL)
			index = (long)(i - first);
		g = facts_gpu_get(f, bus, index);
		if (g->index < 0)
			g->index = index >= 0 ? index : (long)(f->ngpus - 1);
		facts_set(&g->source, "nvidia-smi");
		for (j = 0; j < hdr.n; j++)
			facts_nv_field(g, hdr.v[j], row.v[j]);
	}
	r = 0;
out:
	strvec_clear(&row);
	strvec_clear(&hdr);
	strvec_clear(&lines);
	return r;
}

int
facts_parse_nvsmi_list(struct facts *f, const char *text,
    struct prov_err *err)
{
	struct strvec		 lines = STRVEC_INIT;
	struct facts_gpu	*g = NULL;
	size_t			 i;
	int			 r = -1;

	facts_lines(&lines, text);
	for (i = 0; i < lines.n; i++) {
		char	*l = str_trim(lines.v[i]), *colon, *u;
		long	 idx;

		if (*l == '\0' || strcmp(l, "No devices were found") == 0)
			continue;
		if (str_starts(l, "MIG ") && g != NULL) {
			g->mig_devices = g->mig_devices < 0 ? 1 :
			    g->mig_devices + 1;
			continue;
		}
		if (!str_starts(l, "GPU ") || (idx = facts_num(l + 4)) < 0 ||
		    (colon = strstr(l, ": ")) == NULL) {
			facts_parse_err(err, "nvidia-smi -L", "line %zu is not "
			    "'GPU N: NAME (UUID: ...)'", i + 1);
			goto out;
		}
		g = facts_gpu_get(f, NULL, idx);
		facts_set(&g->source, "nvidia-smi");
		if (g->mig_devices < 0)
			g->mig_devices = 0;
		l = colon + 2;
		if ((u = strstr(l, " (UUID: ")) != NULL) {
			char	*e = strchr(u + 8, ')');

			if (e != NULL) {
				*e = '\0';
				facts_set(&g->uuid, u + 8);
			}
			*u = '\0';
		}
		facts_set(&g->name, str_trim(l));
	}
	r = 0;
out:
	strvec_clear(&lines);
	return r;
}

int
facts_parse_nvsmi_xml(struct facts *f, const char *text,
    struct prov_err *err)
{
	struct xml_node		*root = NULL, *x, *m;
	const char		*drv, *v;
	long			 index = 0;
	int			 r = -1;

	if (xml_parse(&root, "nvidia-smi -q -x", text, err) != 0)
		goto out;
	if (strcmp(root->name, "nvidia_smi_log") != 0) {
		facts_parse_err(err, "nvidia-smi -q -x", "root element is "
		    "'%s', not 'nvidia_smi_log'", root->name);
		goto out;
	}
	drv = xml_path(root, "driver_version");
	for (x = root->child; x != NULL; x = x->next) {
		struct facts_gpu	*g;
		const char		*bus;

		if (strcmp(x->name, "gpu") != 0)
			continue;
		bus = xml_path(x, "pci/pci_bus_id");
		if (bus == NULL)
			bus = x->id;
		g = facts_gpu_get(f, bus, index);
		if (g->index < 0)
			g->index = index;
		index++;
		facts_set(&g->source, "nvidia-smi");
		if (drv != NULL)
			facts_nv_field(g, "driver_version", drv);
		if ((v = xml_path(x, "product_name")) != NULL)
			facts_nv_field(g, "name", v);
		if ((v = xml_path(x, "uuid")) != NULL)
			facts_nv_field(g, "uuid", v);
		if ((v = xml_path(x, "persistence_mode")) != NULL)
			facts_nv_field(g, "persistence_mode", v);
		if ((v = xml_path(x, "pci/pci_device_id")) != NULL)
			facts_nv_field(g, "pci.device_id", v);
		if ((v = xml_path(x, "fb_memory_usage/total")) != NULL)
			facts_nv_field(g, "memory.total", v);
		if ((v = xml_path(x, "pci/pci_gpu_link_info/pcie_gen/"
		    "current_link_gen")) != NULL)
			facts_nv_field(g, "pcie.link.gen.current", v);
		if ((v = xml_path(x, "pci/pci_gpu_link_info/pcie_gen/"
		    "max_link_gen")) != NULL)
			facts_nv_field(g, "pcie.link.gen.max", v);
		if ((v = xml_path(x, "pci/pci_gpu_link_info/link_widths/"
		    "current_link_width")) != NULL)
			facts_nv_field(g, "pcie.link.width.current", v);
		if ((v = xml_path(x, "pci/pci_gpu_link_info/link_widths/"
		    "max_link_width")) != NULL)
			facts_nv_field(g, "pcie.link.width.max", v);
		v = xml_path(x, "mig_mode/current_mig");
		for (m = x->child; v != NULL && strcmp(v, "Enabled") == 0 &&
		    m != NULL; m = m->next)
			if (strcmp(m->name, "mig_devices") == 0) {
				const struct xml_node	*d;

				g->mig_devices = 0;
				for (d = m->child; d != NULL; d = d->next)
					if (strcmp(d->name, "mig_device") == 0)
						g->mig_devices++;
			}
	}
	r = 0;
out:
	xml_free(root);
	return r;
}

/* ------------------------------------------------------------------ */
/* InfiniBand, network interfaces, disks */

static struct facts_ib *
facts_ib_add(struct facts *f, const char *ca, long port)
{
	struct facts_ib	*p;

	ALLOC_GROW(f->ib, f->nib + 1, f->ib_alloc);
	p = &f->ib[f->nib++];
	memset(p, 0, sizeof *p);
	p->ca = xstrdup(ca);
	p->port = port;
	p->rate_gbps = -1;
	return p;
}

/* "4: ACTIVE" -> "ACTIVE" (ibstatus and sysfs prefix the number). */
static const char *
facts_ib_strip(const char *v)
{
	const char	*c = strchr(v, ':');

	if (c != NULL && facts_num(v) >= 0 && c[1] == ' ')
		return c + 2;
	return v;
}

int
facts_parse_ibstat(struct facts *f, const char *text, struct prov_err *err)
{
	struct strvec	 lines = STRVEC_INIT;
	struct facts_ib	*p = NULL;
	char		*ca = NULL;
	size_t		 i, heads = 0;
	int		 r = -1;

	facts_lines(&lines, text);
	for (i = 0; i < lines.n; i++) {
		char	*l = str_trim(lines.v[i]), *k, *v, *q, *e;

		if (*l == '\0')
			continue;
		/* ibstat: CA 'mlx5_0' */
		if (str_starts(l, "CA '") &&
		    (e = strchr(l + 4, '\'')) != NULL) {
			*e = '\0';
			facts_set(&ca, l + 4);
			p = NULL;
			heads++;
			continue;
		}
		/* ibstatus: Infiniband device 'mlx5_0' port 1 status: */
		if (str_starts(l, "Infiniband device '") &&
		    (q = strchr(l + 19, '\'')) != NULL &&
		    str_starts(q, "' port ")) {
			*q = '\0';
			p = facts_ib_add(f, l + 19, facts_num(q + 7));
			facts_set(&ca, NULL);
			heads++;
			continue;
		}
		/* ibstat: Port 1: */
		if (str_starts(l, "Port ") && l[strlen(l) - 1] == ':' &&
		    facts_num(l + 5) >= 0) {
			if (ca == NULL) {
				facts_parse_err(err, "ibstat", "'Port' outside "
				    "a CA on line %zu", i + 1);
				goto out;
			}
			p = facts_ib_add(f, ca, facts_num(l + 5));
			continue;
		}
		if (facts_kv(l, ':', &k, &v) != 0 || p == NULL)
			continue;
		if (strcasecmp(k, "State") == 0) {
			facts_set(&p->state, facts_ib_strip(v));
			facts_lower(p->state);
		} else if (strcasecmp(k, "Physical state") == 0 ||
		    strcmp(k, "phys state") == 0)
			facts_set(&p->phys_state, facts_ib_strip(v));
		else if (strcasecmp(k, "Rate") == 0)
			p->rate_gbps = facts_dbl(v);
		else if (strcasecmp(k, "Link layer") == 0 ||
		    strcmp(k, "link_layer") == 0)
			facts_set(&p->link_layer, v);
	}
	if (heads == 0 && strspn(text, " \t\r\n") != strlen(text)) {
		facts_parse_err(err, "ibstat", "no 'CA' or 'Infiniband device' "
		    "lines");
		goto out;
	}
	r = 0;
out:
	free(ca);
	strvec_clear(&lines);
	return r;
}

int
facts_parse_net(struct facts *f, const char *text, struct prov_err *err)
{
	struct strvec	lines = STRVEC_INIT, fl = STRVEC_INIT;
	size_t		i;
	int		r = -1;

	facts_lines(&lines, text);
	for (i = 0; i < lines.n; i++) {
		struct facts_nic	*n;
		char			 slot[32];

		if (facts_blank(lines.v[i]))
			continue;
		strvec_clear(&fl);
		strvec_split(&fl, lines.v[i], '\t', 0);
		if (fl.n != 6 || *fl.v[0] == '\0') {
			facts_parse_err(err, "net", "line %zu is not NAME "
			    "SPEED MTU STATE MAC DEVICE", i + 1);
			goto out;
		}
		ALLOC_GROW(f->nics, f->nnics + 1, f->nics_alloc);
		n = &f->nics[f->nnics++];
		memset(n, 0, sizeof *n);
		n->name = xstrdup(fl.v[0]);
		n->speed_mbps = facts_num(fl.v[1]);	/* "-1" when down */
		n->mtu = facts_num(fl.v[2]);
		n->state = *fl.v[3] ? xstrdup(fl.v[3]) : NULL;
		n->mac = *fl.v[4] ? xstrdup(fl.v[4]) : NULL;
		if (facts_slot_norm(slot, sizeof slot, fl.v[5]) == 0)
			n->pci_slot = xstrdup(slot);
	}
	r = 0;
out:
	strvec_clear(&fl);
	strvec_clear(&lines);
	return r;
}

int
facts_parse_block(struct facts *f, const char *text, struct prov_err *err)
{
	struct strvec	lines = STRVEC_INIT, fl = STRVEC_INIT;
	size_t		i;
	int		r = -1;

	facts_lines(&lines, text);
	for (i = 0; i < lines.n; i++) {
		struct facts_disk	*d;
		long			 sectors;

		if (facts_blank(lines.v[i]))
			continue;
		strvec_clear(&fl);
		strvec_split(&fl, lines.v[i], '\t', 0);
		if (fl.n != 4 || *fl.v[0] == '\0') {
			facts_parse_err(err, "block", "line %zu is not NAME "
			    "SECTORS ROTATIONAL MODEL", i + 1);
			goto out;
		}
		ALLOC_GROW(f->disks, f->ndisks + 1, f->disks_alloc);
		d = &f->disks[f->ndisks++];
		memset(d, 0, sizeof *d);
		d->name = xstrdup(fl.v[0]);
		sectors = facts_num(fl.v[1]);
		/* Past LLONG_MAX bytes is no disk: unknown, not an overflow. */
		d->size_bytes = sectors >= 0 && sectors <= LLONG_MAX / 512 ?
		    (long long)sectors * 512 : -1;
		d->rotational = strcmp(fl.v[2], "1") == 0 ? 1 :
		    strcmp(fl.v[2], "0") == 0 ? 0 : -1;
		d->model = *str_trim(fl.v[3]) ? xstrdup(str_trim(fl.v[3])) :
		    NULL;
	}
	r = 0;
out:
	strvec_clear(&fl);
	strvec_clear(&lines);
	return r;
}

/* ------------------------------------------------------------------ */
/* The gather script and its output */

/*
 * POSIX sh; forks little (read and printf are builtins) so a node with
 * hundreds of PCI functions answers fast.  Sections: "@@facts NAME",
 * the raw text, then "@@rc N" after commands whose status matters.
 */
static const char facts_script_text[] =
"export LC_ALL=C\n"
"PATH=$PATH:/usr/local/sbin:/usr/local/bin:/usr/sbin:/sbin:/usr/bin:/bin\n"
"T=\n"
"command -v timeout >/dev/null 2>&1 && T='timeout 60'\n"
"s() { echo \"@@facts $1\"; }\n"
"r() { echo \"@@rc $?\"; }\n"
"s os-release; cat /etc/os-release 2>/dev/null || cat /usr/lib/os-release; r\n"
"s kernel; uname -r; r\n"
"s hostname; uname -n; r\n"
"s meminfo; cat /proc/meminfo; r\n"
"s cpuinfo; cat /proc/cpuinfo; r\n"
"if command -v lscpu >/dev/null 2>&1; then s lscpu; lscpu; r; fi\n"
"if command -v lspci >/dev/null 2>&1; then\n"
"\ts lspci; lspci -vmm -nn -D -k 2>/dev/null; r\n"
"else s missing; echo lspci; fi\n"
"s pci-sysfs\n"
"for d in /sys/bus/pci/devices/*; do\n"
"\t[ -e \"$d/class\" ] || continue\n"
"\tc='' v='' i='' cs='' ms='' cw='' mw=''\n"
"\tread -r c < \"$d/class\"; read -r v < \"$d/vendor\"\n"
"\tread -r i < \"$d/device\"\n"
"\tif [ -e \"$d/current_link_speed\" ]; then\n"
"\t\tread -r cs 2>/dev/null < \"$d/current_link_speed\"\n"
"\t\tread -r ms 2>/dev/null < \"$d/max_link_speed\"\n"
"\t\tread -r cw 2>/dev/null < \"$d/current_link_width\"\n"
"\t\tread -r mw 2>/dev/null < \"$d/max_link_width\"\n"
"\tfi\n"
"\tprintf '%s\\t%s\\t%s\\t%s\\t%s\\t%s\\t%s\\t%s\\n' "
    "\"${d##*/}\" \"$c\" \"$v\" \"$i\" \"$cs\" \"$ms\" \"$cw\" \"$mw\"\n"
"done\n"
"s pci-drivers\n"
"for l in /sys/bus/pci/drivers/*/*:*.*; do\n"
"\t[ -e \"$l\" ] || continue\n"
"\tx=${l%/*}\n"
"\tprintf '%s\\t%s\\n' \"${l##*/}\" \"${x##*/}\"\n"
"done\n"
"if command -v nvidia-smi >/dev/null 2>&1; then\n"
"\ts nvidia-smi\n"
"\t$T nvidia-smi --query-gpu=" "index,name,pci.bus_id,pci.device_id,uuid,"
    "memory.total,driver_version,persistence_mode,pcie.link.gen.current,"
    "pcie.link.gen.max,pcie.link.width.current,pcie.link.width.max"
    " --format=csv,nounits 2>&1\n"
"\tr\n"
"else s missing; echo nvidia-smi; fi\n"
"s ib\n"
"for p in /sys/class/infiniband/*/ports/*; do\n"
"\t[ -e \"$p/state\" ] || continue\n"
"\tst='' ph='' ra='' ll=''\n"
"\tread -r st < \"$p/state\"; read -r ph < \"$p/phys_state\"\n"
"\tread -r ra 2>/dev/null < \"$p/rate\"; read -r ll < \"$p/link_layer\"\n"
"\tca=${p%/ports/*}\n"
"\tprintf \"Infiniband device '%s' port %s status:\\n\\tstate:\\t%s\\n"
    "\\tphys state:\\t%s\\n\\trate:\\t%s\\n\\tlink_layer:\\t%s\\n\\n\" "
    "\"${ca##*/}\" \"${p##*/}\" \"$st\" \"$ph\" \"$ra\" \"$ll\"\n"
"done\n"
"s net\n"
"for n in /sys/class/net/*; do\n"
"\t[ -e \"$n/device\" ] || continue\n"
"\tsp='' mt='' st='' ad='' sl=''\n"
"\tread -r sp 2>/dev/null < \"$n/speed\"; read -r mt < \"$n/mtu\"\n"
"\tread -r st < \"$n/operstate\"; read -r ad < \"$n/address\"\n"
"\tsl=$(readlink \"$n/device\" 2>/dev/null)\n"
"\tprintf '%s\\t%s\\t%s\\t%s\\t%s\\t%s\\n' "
    "\"${n##*/}\" \"$sp\" \"$mt\" \"$st\" \"$ad\" \"${sl##*/}\"\n"
"done\n"
"s block\n"
"for b in /sys/block/*; do\n"
"\t[ -e \"$b/device\" ] || continue\n"
"\tsz='' ro='' mo=''\n"
"\tread -r sz < \"$b/size\"; read -r ro < \"$b/queue/rotational\"\n"
"\tread -r mo 2>/dev/null < \"$b/device/model\"\n"
"\tprintf '%s\\t%s\\t%s\\t%s\\n' \"${b##*/}\" \"$sz\" \"$ro\" \"$mo\"\n"
"done\n"
"s end\n";

const char *
facts_script(void)
{
	return facts_script_text;
}

/* The first non-empty line of s, at most 160 bytes (caller frees). */
static char *
facts_first_line(const char *s)
{
	const char	*e;

	s += strspn(s, " \t\r\n");
	e = s + strcspn(s, "\r\n");
	if (e - s > 160)
		e = s + 160;
	return xstrndup(s, (size_t)(e - s));
}

static void
facts_script_section(struct facts *f, const char *name, const char *body,
    long rc)
{
	struct prov_err	 err = PROV_ERR_INIT;
	int		 r = 0;

	if (strcmp(name, "missing") == 0) {
		char	*t = facts_first_line(body);

		facts_note(f, "'%s' not found", t);
		free(t);
		return;
	}
	if (rc > 0) {
		char	*t = facts_first_line(body);

		if (rc == 124)
			facts_note(f, "%s: timed out", name);
		else
			facts_note(f, "%s: exit status %ld%s%s", name, rc,
			    *t ? ": " : "", t);
		free(t);
		return;
	}
	if (strcmp(name, "os-release") == 0)
		r = facts_parse_os_release(f, body, &err);
	else if (strcmp(name, "kernel") == 0 || strcmp(name, "hostname") == 0) {
		char	*t = facts_first_line(body);

		if (*t == '\0')
			free(t);
		else if (strcmp(name, "kernel") == 0) {
			free(f->kernel);
			f->kernel = t;
		} else {
			free(f->node);
			f->node = t;
		}
	} else if (strcmp(name, "meminfo") == 0)
		r = facts_parse_meminfo(f, body, &err);
	else if (strcmp(name, "cpuinfo") == 0)
		r = facts_parse_cpuinfo(f, body, &err);
	else if (strcmp(name, "lscpu") == 0)
		r = facts_parse_lscpu(f, body, &err);
	else if (strcmp(name, "lspci") == 0)
		r = facts_parse_lspci_vmm(f, body, &err);
	else if (strcmp(name, "pci-sysfs") == 0)
		r = facts_parse_pci_sysfs(f, body, &err);
	else if (strcmp(name, "pci-drivers") == 0)
		r = facts_parse_pci_drivers(f, body, &err);
	else if (strcmp(name, "nvidia-smi") == 0)
		r = facts_parse_nvsmi_csv(f, body, NULL, &err);
	else if (strcmp(name, "ib") == 0)
		r = facts_parse_ibstat(f, body, &err);
	else if (strcmp(name, "net") == 0)
		r = facts_parse_net(f, body, &err);
	else if (strcmp(name, "block") == 0)
		r = facts_parse_block(f, body, &err);
	if (r != 0)
		facts_note(f, "%s", err.msg != NULL ? err.msg : name);
	prov_err_release(&err);
}

int
facts_parse_script(struct facts *f, const char *out, struct prov_err *err)
{
	struct strvec	 lines = STRVEC_INIT;
	struct buf	 body = BUF_INIT;
	char		*name = NULL;
	long		 rc = -1;
	size_t		 i, nsec = 0;
	int		 ended = 0;

	facts_lines(&lines, out);
	for (i = 0; i <= lines.n; i++) {
		const char	*l = i < lines.n ? lines.v[i] : NULL;

		if (l != NULL && str_starts(l, "@@rc ") && name != NULL) {
			rc = facts_num(l + 5);
			continue;
		}
		if (l != NULL && !str_starts(l, "@@facts ")) {
			if (name != NULL) {
				buf_adds(&body, l);
				buf_addch(&body, '\n');
			}
			continue;
		}
		if (name != NULL) {
			facts_script_section(f, name, body.buf, rc);
			nsec++;
		}
		free(name);
		name = NULL;
		buf_reset(&body);
		rc = -1;
		if (l == NULL)
			break;
		name = xstrdup(str_trim((char *)l + 8));
		if (strcmp(name, "end") == 0)
			ended = 1;
	}
	free(name);
	buf_release(&body);
	strvec_clear(&lines);
	if (nsec == 0)
		return prov_err_set(err, PROV_E_PARSE, "the facts script "
		    "printed no sections");
	if (!ended)
		facts_note(f, "the facts script stopped before its end");
	return 0;
}

/* ------------------------------------------------------------------ */
/* Finishing: GPUs from PCI, names from the catalog */

static char *
facts_pci_id(const struct facts_pci *d)
{
	if (d->vendor_id < 0 || d->device_id < 0)
		return NULL;
	return xasprintf("%04lx:%04lx", d->vendor_id, d->device_id);
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
			facts_set(&g->source, "pci");
			if (d->device_name != NULL)
				facts_set(&g->name, d->device_name);
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
				facts_set(&g->catalog_id, cg->m.id);
				if (g->name == NULL)
					facts_set(&g->name, cg->m.name);
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
			facts_set(&d->device_name, cg->m.name);
			facts_set(&d->name_source, "catalog");
		} else if ((cn = catalog_nic_by_pci(cat, id)) != NULL) {
			facts_set(&d->device_name, cn->m.name);
			facts_set(&d->name_source, "catalog");
		}
		free(id);
	}
}

/* ------------------------------------------------------------------ */
/* JSON out: what is unknown (negative) is null */

static void
facts_jlong(struct json_writer *jw, const char *k, long long v)
{
	if (v >= 0)
		json_int(jw, k, v);
	else
		json_null(jw, k);
}

static void
facts_jdbl(struct json_writer *jw, const char *k, double v)
{
	json_num(jw, k, v >= 0 ? v : NAN, -1);
}

/* A PCI id as its four hex digits, as lspci prints them. */
static void
facts_jhex(struct json_writer *jw, const char *k, long v)
{
	char	hex[24];

	snprintf(hex, sizeof hex, "%04lx", v);
	json_str(jw, k, v >= 0 ? hex : NULL);
}

static void
facts_json_pci(struct json_writer *jw, const struct facts *f)
{
	size_t	i;

	json_array_begin(jw, "pci", JSON_LINES);
	for (i = 0; i < f->npci; i++) {
		const struct facts_pci	*d = &f->pci[i];

		json_object_begin(jw, NULL, 0);
		json_str(jw, "slot", d->slot);
		facts_jhex(jw, "class", d->class_id);
		facts_jhex(jw, "vendor", d->vendor_id);
		facts_jhex(jw, "device", d->device_id);
		facts_jhex(jw, "svendor", d->svendor_id);
		facts_jhex(jw, "sdevice", d->sdevice_id);
		json_str(jw, "class_name", d->class_name);
		json_str(jw, "vendor_name", d->vendor_name);
		json_str(jw, "device_name", d->device_name);
		json_str(jw, "name_source", d->name_source);
		json_str(jw, "driver", d->driver);
		json_object_begin(jw, "link", 0);
		facts_jdbl(jw, "speed", d->link.speed);
		facts_jlong(jw, "width", d->link.width);
		facts_jdbl(jw, "max_speed", d->link.max_speed);
		facts_jlong(jw, "max_width", d->link.max_width);
		json_end(jw);
		json_end(jw);
	}
	json_end(jw);
}

static void
facts_json_gpus(struct json_writer *jw, const struct facts *f)
{
	size_t	i;

	json_array_begin(jw, "gpus", JSON_LINES);
	for (i = 0; i < f->ngpus; i++) {
		const struct facts_gpu	*g = &f->gpus[i];

		json_object_begin(jw, NULL, 0);
		facts_jlong(jw, "index", g->index);
		json_str(jw, "name", g->name);
		json_str(jw, "bus_id", g->bus_id);
		json_str(jw, "pci_id", g->pci_id);
		json_str(jw, "catalog_id", g->catalog_id);
		json_str(jw, "uuid", g->uuid);
		facts_jlong(jw, "memory_mib", g->memory_mib);
		json_str(jw, "driver_version", g->driver_version);
		json_str(jw, "persistence", g->persistence);
		facts_jlong(jw, "mig_devices", g->mig_devices);
		facts_jlong(jw, "pcie_gen", g->gen);
		facts_jlong(jw, "pcie_max_gen", g->max_gen);
		facts_jlong(jw, "pcie_width", g->width);
		facts_jlong(jw, "pcie_max_width", g->max_width);
		json_str(jw, "source", g->source);
		json_end(jw);
	}
	json_end(jw);
}

static void
facts_json_nets(struct json_writer *jw, const struct facts *f)
{
	size_t	i;

	json_array_begin(jw, "nics", JSON_LINES);
	for (i = 0; i < f->nnics; i++) {
		const struct facts_nic	*n = &f->nics[i];

		json_object_begin(jw, NULL, 0);
		json_str(jw, "name", n->name);
		facts_jlong(jw, "speed_mbps", n->speed_mbps);
		facts_jlong(jw, "mtu", n->mtu);
		json_str(jw, "state", n->state);
		json_str(jw, "mac", n->mac);
		json_str(jw, "pci_slot", n->pci_slot);
		json_end(jw);
	}
	json_end(jw);
	json_array_begin(jw, "ib", JSON_LINES);
	for (i = 0; i < f->nib; i++) {
		const struct facts_ib	*p = &f->ib[i];

		json_object_begin(jw, NULL, 0);
		json_str(jw, "ca", p->ca);
		facts_jlong(jw, "port", p->port);
		json_str(jw, "state", p->state);
		json_str(jw, "phys_state", p->phys_state);
		facts_jdbl(jw, "rate_gbps", p->rate_gbps);
		json_str(jw, "link_layer", p->link_layer);
		json_end(jw);
	}
	json_end(jw);
}

void
facts_to_json(struct buf *b, const struct facts *f)
{
	struct json_writer	jw;
	size_t			i;

	json_init(&jw, b);
	json_object_begin(&jw, NULL, JSON_LINES);
	json_int(&jw, "version", 1);
	json_str(&jw, "node", f->node);
	json_object_begin(&jw, "os", 0);
	json_str(&jw, "id", f->os_id);
	json_str(&jw, "version_id", f->os_version_id);
	json_str(&jw, "pretty_name", f->os_pretty);
	json_end(&jw);
	json_str(&jw, "kernel", f->kernel);
	json_object_begin(&jw, "cpu", 0);
	json_str(&jw, "model", f->cpu_model);
	facts_jlong(&jw, "sockets", f->cpu_sockets);
	facts_jlong(&jw, "cores", f->cpu_cores);
	facts_jlong(&jw, "threads", f->cpu_threads);
	json_end(&jw);
	facts_jlong(&jw, "memory_kb", f->mem_kb);
	facts_json_pci(&jw, f);
	facts_json_gpus(&jw, f);
	facts_json_nets(&jw, f);
	json_array_begin(&jw, "disks", JSON_LINES);
	for (i = 0; i < f->ndisks; i++) {
		const struct facts_disk	*d = &f->disks[i];

		json_object_begin(&jw, NULL, 0);
		json_str(&jw, "name", d->name);
		facts_jlong(&jw, "size_bytes", d->size_bytes);
		if (d->rotational < 0)
			json_null(&jw, "rotational");
		else
			json_bool(&jw, "rotational", d->rotational);
		json_str(&jw, "model", d->model);
		json_end(&jw);
	}
	json_end(&jw);
	json_array_begin(&jw, "notes", 0);
	for (i = 0; i < f->notes.n; i++)
		json_str(&jw, NULL, f->notes.v[i]);
	json_end(&jw);
	json_end(&jw);
	json_finish(&jw);
}

/* ------------------------------------------------------------------ */
/* JSON in (through yml: JSON is YAML) */

struct facts_jr {
	const struct yml_doc	*doc;
	const char		*bad;	/* first key of the wrong type */
	unsigned		 line;
};

static const struct yml_node *
facts_jr_get(struct facts_jr *jr, const struct yml_node *map, const char *k,
    int kind)
{
	const struct yml_node	*n;

	if (map == NULL || map->kind != YML_MAP)
		return NULL;
	n = yml_map_get(map, k);
	if (n == NULL || yml_is_null(n))
		return NULL;
	if (n->kind != kind) {
		if (jr->bad == NULL) {
			jr->bad = k;
			jr->line = n->line;
		}
		return NULL;
	}
	return n;
}

static char *
facts_jr_str(struct facts_jr *jr, const struct yml_node *map, const char *k)
{
	const struct yml_node	*n = facts_jr_get(jr, map, k, YML_SCALAR);

	return n != NULL ? xstrdup(n->u.s) : NULL;
}

static long long
facts_jr_num(struct facts_jr *jr, const struct yml_node *map, const char *k)
{
	const struct yml_node	*n = facts_jr_get(jr, map, k, YML_SCALAR);
	char			*end;
	long long		 v;

	if (n == NULL)
		return -1;
	errno = 0;
	v = strtoll(n->u.s, &end, 10);
	if (errno != 0 || *end != '\0' || end == n->u.s || v < 0) {
		if (jr->bad == NULL) {
			jr->bad = k;
			jr->line = n->line;
		}
		return -1;
	}
	return v;
}

static double
facts_jr_dbl(struct facts_jr *jr, const struct yml_node *map, const char *k)
{
	const struct yml_node	*n = facts_jr_get(jr, map, k, YML_SCALAR);
	double			 v;

	if (n == NULL)
		return -1;
	if (str_to_double(n->u.s, &v) != 0 || v < 0) {
		if (jr->bad == NULL) {
			jr->bad = k;
			jr->line = n->line;
		}
		return -1;
	}
	return v;
}

static long
facts_jr_hex(struct facts_jr *jr, const struct yml_node *map, const char *k)
{
	const struct yml_node	*n = facts_jr_get(jr, map, k, YML_SCALAR);
	long			 v;

	if (n == NULL)
		return -1;
	if ((v = facts_hex(n->u.s)) < 0 && jr->bad == NULL) {
		jr->bad = k;
		jr->line = n->line;
	}
	return v;
}

/* The items of list `k` (count in *n), or NULL. */
static struct yml_node *const *
facts_jr_list(struct facts_jr *jr, const struct yml_node *map, const char *k,
    size_t *n)
{
	const struct yml_node	*l = facts_jr_get(jr, map, k, YML_SEQ);

	*n = l != NULL ? l->n : 0;
	return l != NULL ? l->u.items : NULL;
}

int
facts_from_json(struct facts **out, const char *label, const char *text,
    size_t len, struct prov_err *err)
{
	struct yml_doc		 doc;
	struct prov_errs	 errs = PROV_ERRS_INIT;
	struct facts_jr		 jr;
	struct facts		*f = NULL;
	struct yml_node *const	*items;
	const struct yml_node	*root, *o, *c;
	size_t			 i, n;
	int			 r = -1;

	*out = NULL;
	yml_doc_init(&doc);
	memset(&jr, 0, sizeof jr);
	jr.doc = &doc;
	if (yml_load(&doc, label, text, len, &errs) != 0 || errs.n > 0) {
		if (errs.n > 0) {
			prov_err_move(err, &errs.v[0]);
			err->code = PROV_E_PARSE;
		} else
			prov_err_set(err, PROV_E_PARSE, "%s: not JSON", label);
		goto out;
	}
	root = doc.root;
	if (root == NULL || root->kind != YML_MAP ||
	    (o = yml_map_get(root, "version")) == NULL ||
	    o->kind != YML_SCALAR || strcmp(o->u.s, "1") != 0) {
		prov_err_set(err, PROV_E_PARSE, "%s: not facts (no "
		    "\"version\": 1)", label);
		goto out;
	}
	f = facts_new();
	f->node = facts_jr_str(&jr, root, "node");
	f->kernel = facts_jr_str(&jr, root, "kernel");
	f->mem_kb = facts_jr_num(&jr, root, "memory_kb");
	o = facts_jr_get(&jr, root, "os", YML_MAP);
	f->os_id = facts_jr_str(&jr, o, "id");
	f->os_version_id = facts_jr_str(&jr, o, "version_id");
	f->os_pretty = facts_jr_str(&jr, o, "pretty_name");
	o = facts_jr_get(&jr, root, "cpu", YML_MAP);
	f->cpu_model = facts_jr_str(&jr, o, "model");
	f->cpu_sockets = (long)facts_jr_num(&jr, o, "sockets");
	f->cpu_cores = (long)facts_jr_num(&jr, o, "cores");
	f->cpu_threads = (long)facts_jr_num(&jr, o, "threads");

	items = facts_jr_list(&jr, root, "pci", &n);
	for (i = 0; i < n; i++) {
		struct facts_pci	*d;
		char			*slot;

		o = items[i];
		if ((slot = facts_jr_str(&jr, o, "slot")) == NULL ||
		    (d = facts_pci_get(f, slot)) == NULL) {
			free(slot);
			prov_err_set(err, PROV_E_PARSE, "%s:%u: a PCI device "
			    "without a valid \"slot\"", label, o->line);
			goto out;
		}
		free(slot);
		/* A slot listed twice: the later entry wins, nothing leaks. */
		free(d->class_name);
		free(d->vendor_name);
		free(d->device_name);
		free(d->name_source);
		free(d->driver);
		d->class_id = facts_jr_hex(&jr, o, "class");
		d->vendor_id = facts_jr_hex(&jr, o, "vendor");
		d->device_id = facts_jr_hex(&jr, o, "device");
		d->svendor_id = facts_jr_hex(&jr, o, "svendor");
		d->sdevice_id = facts_jr_hex(&jr, o, "sdevice");
		d->class_name = facts_jr_str(&jr, o, "class_name");
		d->vendor_name = facts_jr_str(&jr, o, "vendor_name");
		d->device_name = facts_jr_str(&jr, o, "device_name");
		d->name_source = facts_jr_str(&jr, o, "name_source");
		d->driver = facts_jr_str(&jr, o, "driver");
		c = facts_jr_get(&jr, o, "link", YML_MAP);
		d->link.speed = facts_jr_dbl(&jr, c, "speed");
		d->link.width = (long)facts_jr_num(&jr, c, "width");
		d->link.max_speed = facts_jr_dbl(&jr, c, "max_speed");
		d->link.max_width = (long)facts_jr_num(&jr, c, "max_width");
	}
	items = facts_jr_list(&jr, root, "gpus", &n);
	for (i = 0; i < n; i++) {
		struct facts_gpu	*g;

		o = items[i];
		ALLOC_GROW(f->gpus, f->ngpus + 1, f->gpus_alloc);
		g = &f->gpus[f->ngpus++];
		memset(g, 0, sizeof *g);
		g->index = (long)facts_jr_num(&jr, o, "index");
		g->name = facts_jr_str(&jr, o, "name");
		g->bus_id = facts_jr_str(&jr, o, "bus_id");
		g->pci_id = facts_jr_str(&jr, o, "pci_id");
		g->catalog_id = facts_jr_str(&jr, o, "catalog_id");
		g->uuid = facts_jr_str(&jr, o, "uuid");
		g->memory_mib = (long)facts_jr_num(&jr, o, "memory_mib");
		g->driver_version = facts_jr_str(&jr, o, "driver_version");
		g->persistence = facts_jr_str(&jr, o, "persistence");
		g->mig_devices = (long)facts_jr_num(&jr, o, "mig_devices");
		g->gen = (long)facts_jr_num(&jr, o, "pcie_gen");
		g->max_gen = (long)facts_jr_num(&jr, o, "pcie_max_gen");
		g->width = (long)facts_jr_num(&jr, o, "pcie_width");
		g->max_width = (long)facts_jr_num(&jr, o, "pcie_max_width");
		g->source = facts_jr_str(&jr, o, "source");
	}
	items = facts_jr_list(&jr, root, "nics", &n);
	for (i = 0; i < n; i++) {
		struct facts_nic	*nic;

		o = items[i];
		ALLOC_GROW(f->nics, f->nnics + 1, f->nics_alloc);
		nic = &f->nics[f->nnics++];
		memset(nic, 0, sizeof *nic);
		nic->name = facts_jr_str(&jr, o, "name");
		nic->speed_mbps = (long)facts_jr_num(&jr, o, "speed_mbps");
		nic->mtu = (long)facts_jr_num(&jr, o, "mtu");
		nic->state = facts_jr_str(&jr, o, "state");
		nic->mac = facts_jr_str(&jr, o, "mac");
		nic->pci_slot = facts_jr_str(&jr, o, "pci_slot");
	}
	items = facts_jr_list(&jr, root, "ib", &n);
	for (i = 0; i < n; i++) {
		struct facts_ib	*p;
		char		*ca;

		o = items[i];
		ca = facts_jr_str(&jr, o, "ca");
		p = facts_ib_add(f, ca != NULL ? ca : "", -1);
		free(ca);
		p->port = (long)facts_jr_num(&jr, o, "port");
		p->state = facts_jr_str(&jr, o, "state");
		p->phys_state = facts_jr_str(&jr, o, "phys_state");
		p->rate_gbps = facts_jr_dbl(&jr, o, "rate_gbps");
		p->link_layer = facts_jr_str(&jr, o, "link_layer");
	}
	items = facts_jr_list(&jr, root, "disks", &n);
	for (i = 0; i < n; i++) {
		struct facts_disk	*d;
		const struct yml_node	*rot;

		o = items[i];
		ALLOC_GROW(f->disks, f->ndisks + 1, f->disks_alloc);
		d = &f->disks[f->ndisks++];
		memset(d, 0, sizeof *d);
		d->name = facts_jr_str(&jr, o, "name");
		d->size_bytes = facts_jr_num(&jr, o, "size_bytes");
		rot = facts_jr_get(&jr, o, "rotational", YML_SCALAR);
		d->rotational = rot == NULL ? -1 :
		    strcmp(rot->u.s, "true") == 0 ? 1 : 0;
		d->model = facts_jr_str(&jr, o, "model");
	}
	items = facts_jr_list(&jr, root, "notes", &n);
	for (i = 0; i < n; i++)
		if (items[i]->kind == YML_SCALAR)
			strvec_push(&f->notes, items[i]->u.s);
	if (jr.bad != NULL) {
		prov_err_set(err, PROV_E_PARSE, "%s:%u: \"%s\" has the wrong "
		    "type", label, jr.line, jr.bad);
		goto out;
	}
	*out = f;
	f = NULL;
	r = 0;
out:
	facts_free(f);
	prov_errs_release(&errs);
	yml_doc_release(&doc);
	return r;
}

/* ------------------------------------------------------------------ */
/* Drift */

/* A link as generations and widths; 0 when nothing is known. */
struct facts_lv {
	long	gen, max_gen, width, max_width;
};

static int
facts_link_view(struct facts_lv *lv, const struct facts_pci *d,
    const struct facts_gpu *g)
{
	/*
	 * The device's own LnkCap (sysfs max_link_speed, lspci) is what the
	 * card can do; nvidia-smi's "max" is already capped by the slot, so
	 * it hides a Gen5 card in a Gen4 slot: prefer PCI data.
	 */
	if (d != NULL && d->link.speed > 0 && d->link.max_speed > 0 &&
	    d->link.width >= 0 && d->link.max_width > 0) {
		lv->gen = facts_gen_of_speed(d->link.speed);
		lv->max_gen = facts_gen_of_speed(d->link.max_speed);
		lv->width = d->link.width;
		lv->max_width = d->link.max_width;
		return lv->gen > 0 && lv->max_gen > 0;
	}
	if (g != NULL && g->gen > 0 && g->max_gen > 0 && g->width >= 0 &&
	    g->max_width > 0) {
		lv->gen = g->gen;
		lv->max_gen = g->max_gen;
		lv->width = g->width;
		lv->max_width = g->max_width;
		return 1;
	}
	return 0;
}

/* One row per link below its capability; returns how many were checked. */
static size_t
facts_cmp_link(struct rows *out, const char *node, const char *kind,
    const char *slot, const struct facts_lv *lv, int is_gpu, size_t *bad)
{
	char	what[64], exp[32], got[32];

	snprintf(what, sizeof what, "%s link %s", kind, slot);
	snprintf(exp, sizeof exp, "Gen%ld x%ld", lv->max_gen, lv->max_width);
	snprintf(got, sizeof got, "Gen%ld x%ld", lv->gen, lv->width);
	if (lv->width == 0) {
		rows_addf(out, ROW_FAIL, node, what, exp, "down", "the link "
		    "is down");
		(*bad)++;
	} else if (lv->width < lv->max_width) {
		rows_addf(out, ROW_FAIL, node, what, exp, got, "x%ld of x%ld "
		    "lanes: reseat the card, check the slot and riser",
		    lv->width, lv->max_width);
		(*bad)++;
	} else if (lv->gen < lv->max_gen && is_gpu) {
		rows_addf(out, ROW_WARN, node, what, exp, got, "Gen%ld of "
		    "Gen%ld: GPUs lower the link speed when idle; check again "
		    "under load", lv->gen, lv->max_gen);
		(*bad)++;
	} else if (lv->gen < lv->max_gen) {
		rows_addf(out, ROW_FAIL, node, what, exp, got, "Gen%ld of "
		    "Gen%ld: the slot, riser or BIOS setting runs the card "
		    "slower", lv->gen, lv->max_gen);
		(*bad)++;
	}
	return 1;
}

static void
facts_cmp_os(struct rows *out, const struct plan *p, const char *node,
    const struct facts *f)
{
	const char	*d = p->sw.os_distro, *rel = p->sw.os_release;
	char		*exp, *got;
	size_t		 rl;

	if (d == NULL)
		return;
	exp = xasprintf("%s%s%s", d, rel ? " " : "", rel ? rel : "");
	if (f->os_id == NULL) {
		rows_addf(out, ROW_SKIP, node, "os", exp, NULL, "os-release "
		    "not gathered");
		free(exp);
		return;
	}
	got = xasprintf("%s %s", f->os_id,
	    f->os_version_id ? f->os_version_id : "?");
	rl = rel ? strlen(rel) : 0;
	if (strcasecmp(f->os_id, d) != 0)
		rows_addf(out, ROW_WARN, node, "os", exp, got,
		    "another distribution than planned");
	else if (rel != NULL && (f->os_version_id == NULL ||
	    strncmp(f->os_version_id, rel, rl) != 0 ||
	    (f->os_version_id[rl] != '\0' && f->os_version_id[rl] != '.')))
		rows_addf(out, ROW_WARN, node, "os", exp, got,
		    "another release than planned");
	else
		rows_addf(out, ROW_OK, node, "os", exp, got, NULL);
	free(exp);
	free(got);
}

static void
facts_cmp_gpus(struct rows *out, const struct plan_hw *hw,
    const char *node, const struct facts *f)
{
	const struct cat_gpu	*cg = hw->gpu_cat;
	long			 want = hw->ngpus > 0 ? hw->ngpus : 0;
	size_t			 have = f->ngpus, i, ok = 0, unknown = 0;
	size_t			 checked = 0, bad = 0;
	const struct facts_gpu	*other = NULL;
	struct buf		 exp = BUF_INIT, got = BUF_INIT;
	char			 w[32];
	const char		*src;

	snprintf(w, sizeof w, "%ld", want);
	if (f->npci == 0 && f->ngpus == 0) {
		rows_addf(out, ROW_SKIP, node, "gpu count", w, NULL,
		    "neither the PCI device list nor nvidia-smi was gathered");
		return;
	}
	src = have > 0 && f->gpus[0].source != NULL &&
	    strcmp(f->gpus[0].source, "pci") == 0 ?
	    " (PCI bus; no nvidia-smi)" : have > 0 ? " (nvidia-smi)" : "";
	buf_addf(&got, "%zu%s", have, src);
	if ((long)have == want)
		rows_addf(out, ROW_OK, node, "gpu count", w, got.buf, NULL);
	else if ((long)have < want)
		rows_addf(out, ROW_FAIL, node, "gpu count", w, got.buf,
		    "%ld GPU%s missing", want - (long)have, want - (long)have ==
		    1 ? "" : "s");
	else
		rows_addf(out, ROW_WARN, node, "gpu count", w, got.buf,
		    "%ld more than planned", (long)have - want);
	buf_reset(&got);

	if (have > 0 && want > 0) {
		buf_adds(&exp, cg != NULL ? cg->m.id : "?");
		for (i = 0; cg != NULL && i < cg->pci_ids.n; i++)
			buf_addf(&exp, "%s%s", i ? ", " : " (",
			    cg->pci_ids.v[i]);
		if (cg != NULL && cg->pci_ids.n > 0)
			buf_addch(&exp, ')');
		for (i = 0; i < have; i++) {
			const struct facts_gpu	*g = &f->gpus[i];

			if (g->pci_id == NULL)
				unknown++;
			else if (cg != NULL &&
			    strvec_find(&cg->pci_ids, g->pci_id) >= 0)
				ok++;
			else if (other == NULL)
				other = g;
		}
		if (cg == NULL)
			rows_addf(out, ROW_SKIP, node, "gpu model", NULL,
			    NULL, "the plan names no GPU model");
		else if (cg->pci_ids.n == 0)
			rows_addf(out, ROW_SKIP, node, "gpu model", exp.buf,
			    NULL, "the catalog has no PCI ids for '%s'",
			    cg->m.id);
		else if (unknown == have)
			rows_addf(out, ROW_SKIP, node, "gpu model", exp.buf,
			    NULL, "no PCI ids gathered for the GPUs");
		else if (other == NULL) {
			buf_addf(&got, "%zux %s", ok, cg->m.id);
			rows_addf(out, ROW_OK, node, "gpu model", exp.buf,
			    got.buf, unknown ? "%zu without a PCI id" : NULL,
			    unknown);
		} else {
			buf_addf(&got, "%zux %s (%s)", have - ok - unknown,
			    other->catalog_id ? other->catalog_id :
			    other->name ? other->name : "unknown",
			    other->pci_id);
			rows_addf(out, ROW_FAIL, node, "gpu model", exp.buf,
			    got.buf, "%zu of %zu GPUs are another model", have -
			    ok - unknown, have);
		}
	}

	for (i = 0; i < have; i++) {
		const struct facts_gpu	*g = &f->gpus[i];
		struct facts_lv		 lv;
		const struct facts_pci	*d = g->bus_id ?
			    facts_pci_find(f, g->bus_id) : NULL;

		if (!facts_link_view(&lv, d, g))
			continue;
		checked += facts_cmp_link(out, node, "gpu",
		    g->bus_id ? g->bus_id : "?", &lv, 1, &bad);
	}
	if (have > 0 && checked == 0)
		rows_addf(out, ROW_SKIP, node, "gpu links", "full width and "
		    "speed", NULL, "no link data (sysfs, lspci and nvidia-smi "
		    "gave none)");
	else if (have > 0 && bad == 0) {
		buf_reset(&got);
		buf_addf(&got, "%zu at full width and speed", checked);
		rows_addf(out, ROW_OK, node, "gpu links", "full width and "
		    "speed", got.buf, NULL);
	}
	buf_release(&exp);
	buf_release(&got);
}

static void
facts_cmp_memory(struct rows *out, const struct plan_hw *hw,
    const char *node, const struct facts *f)
{
	char	exp[48], got[64];
	double	want_kb, ratio;

	if (isnan(hw->mem_gb) || hw->mem_gb <= 0) {
		rows_addf(out, ROW_SKIP, node, "memory", NULL, NULL,
		    "the plan gives no memory size");
		return;
	}
	/* DIMMs are sized in GiB: a "64 GB" module holds 64 GiB */
	snprintf(exp, sizeof exp, "%g GiB", hw->mem_gb);
	if (f->mem_kb < 0) {
		rows_addf(out, ROW_SKIP, node, "memory", exp, NULL,
		    "MemTotal not gathered");
		return;
	}
	want_kb = hw->mem_gb * 1024.0 * 1024.0;
	ratio = (double)f->mem_kb / want_kb;
	snprintf(got, sizeof got, "%.1f GiB (MemTotal)",
	    (double)f->mem_kb / (1024.0 * 1024.0));
	if (ratio < 1.0 - FACTS_MEM_SLACK)
		rows_addf(out, ROW_FAIL, node, "memory", exp, got,
		    "%.1f%% short, more than the %.0f%% firmware and kernel "
		    "keep: a DIMM missing or disabled?", (1.0 - ratio) * 100,
		    FACTS_MEM_SLACK * 100);
	else if (ratio > 1.0 + FACTS_MEM_SLACK)
		rows_addf(out, ROW_WARN, node, "memory", exp, got,
		    "more than planned");
	else
		rows_addf(out, ROW_OK, node, "memory", exp, got,
		    ratio < 1.0 ? "MemTotal leaves out firmware and kernel "
		    "reservations: up to %.0f%% below is normal" : NULL,
		    FACTS_MEM_SLACK * 100);
}

struct facts_nicwant {
	const struct cat_nic	*cat;
	const char		*model;
	const char		*network;
	long			 count;
};

static void
facts_cmp_nic(struct rows *out, const char *node,
    const struct facts_nicwant *w, const struct facts *f)
{
	struct strvec	 cards = STRVEC_INIT;
	struct buf	 what = BUF_INIT, exp = BUF_INIT, got = BUF_INIT;
	size_t		 i, checked = 0, bad = 0;

	buf_addf(&what, "nic %s", w->model);
	buf_addf(&exp, "%ld", w->count);
	if (w->network != NULL)
		buf_addf(&exp, " (%s)", w->network);
	if (w->cat == NULL) {
		rows_addf(out, ROW_SKIP, node, what.buf, exp.buf, NULL,
		    "'%s' is not in the catalog", w->model);
		goto out;
	}
	if (w->cat->pci_ids.n == 0) {
		rows_addf(out, ROW_SKIP, node, what.buf, exp.buf, NULL,
		    "the catalog has no PCI ids for '%s' (onboard, or varies "
		    "by board)", w->model);
		goto out;
	}
	if (f->npci == 0) {
		rows_addf(out, ROW_SKIP, node, what.buf, exp.buf, NULL,
		    "no PCI device list gathered");
		goto out;
	}
	for (i = 0; i < f->npci; i++) {
		const struct facts_pci	*d = &f->pci[i];
		char			*id = facts_pci_id(d), card[32];
		struct facts_lv		 lv;

		if (id == NULL || strvec_find(&w->cat->pci_ids, id) < 0) {
			free(id);
			continue;
		}
		free(id);
		/* one card per bus:device; its functions are its ports */
		snprintf(card, sizeof card, "%s", d->slot);
		card[strcspn(card, ".")] = '\0';
		if (strvec_find(&cards, card) >= 0)
			continue;
		strvec_push(&cards, card);
		if (facts_link_view(&lv, d, NULL))
			checked += facts_cmp_link(out, node, "nic", d->slot,
			    &lv, 0, &bad);
	}
	buf_addf(&got, "%zu", cards.n);
	if ((long)cards.n == w->count)
		rows_addf(out, ROW_OK, node, what.buf, exp.buf, got.buf,
		    checked > 0 && bad == 0 ? "links at full width and speed" :
		    NULL);
	else if ((long)cards.n < w->count) {
		struct buf	ids = BUF_INIT;

		for (i = 0; i < w->cat->pci_ids.n; i++)
			buf_addf(&ids, "%s%s", i ? ", " : "",
			    w->cat->pci_ids.v[i]);
		rows_addf(out, ROW_FAIL, node, what.buf, exp.buf, got.buf,
		    "%ld missing (no PCI device %s)", w->count - (long)cards.n,
		    ids.buf);
		buf_release(&ids);
	} else
		rows_addf(out, ROW_WARN, node, what.buf, exp.buf, got.buf,
		    "more cards with its PCI ids than planned");
out:
	strvec_clear(&cards);
	buf_release(&what);
	buf_release(&exp);
	buf_release(&got);
}

static void
facts_cmp_nics(struct rows *out, const struct plan *p,
    const struct plan_hw *hw, const char *node, const struct facts *f)
{
	struct facts_nicwant	*w = NULL;
	size_t			 nw = 0, aw = 0, i, j;

	/* the plan's NICs, or the system's fixed ones (DGX) */
	for (i = 0; i < hw->nnics; i++) {
		const struct plan_nic	*pn = &hw->nics[i];

		if (pn->model == NULL)
			continue;
		for (j = 0; j < nw; j++)
			if (strcmp(w[j].model, pn->model) == 0)
				break;
		if (j == nw) {
			ALLOC_GROW(w, nw + 1, aw);
			w[nw].cat = pn->cat;
			w[nw].model = pn->model;
			w[nw].network = pn->network;
			w[nw].count = 0;
			nw++;
		}
		w[j].count += pn->count > 0 ? pn->count : 1;
	}
	if (hw->nnics == 0 && hw->sys != NULL)
		for (i = 0; i < hw->sys->nnics; i++) {
			const struct cat_fixed	*fx = &hw->sys->nics[i];

			if (fx->model == NULL)
				continue;
			ALLOC_GROW(w, nw + 1, aw);
			w[nw].cat = catalog_nic(p->catalog, fx->model);
			w[nw].model = fx->model;
			w[nw].network = fx->role;
			w[nw].count = fx->count > 0 ? fx->count : 1;
			nw++;
		}
	for (i = 0; i < nw; i++)
		facts_cmp_nic(out, node, &w[i], f);
	free(w);
}

void
facts_compare(struct rows *out, const struct plan *p,
    const struct plan_node *nd, const struct facts *f)
{
	facts_cmp_os(out, p, nd->name, f);
	if (nd->hw == NULL) {
		rows_addf(out, ROW_SKIP, nd->name, "hardware", NULL, NULL,
		    "no hardware model for this node in the plan");
		return;
	}
	facts_cmp_gpus(out, nd->hw, nd->name, f);
	facts_cmp_memory(out, nd->hw, nd->name, f);
	facts_cmp_nics(out, p, nd->hw, nd->name, f);
}

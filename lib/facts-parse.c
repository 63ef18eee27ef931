/*
 * facts-parse.c: a node's facts from the text its tools print.
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

#include "facts-int.h"
#include "str.h"
#include "xml.h"

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

	strvec_split_lines(&lines, text);
	for (i = 0; i < lines.n; i++) {
		char	*l = str_trim(lines.v[i]), *k, *v, *p;

		if (*l == '\0' || *l == '#')
			continue;
		if (facts_kv(l, '=', &k, &v) != 0 || *k == '\0') {
			prov_err_parse(err, "os-release", "line %zu is not "
			    "KEY=VALUE", i + 1);
			goto out;
		}
		for (p = k; *p != '\0'; p++)
			if (!isalnum((unsigned char)*p) && *p != '_') {
				prov_err_parse(err, "os-release", "bad key "
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
		prov_err_parse(err, "os-release", "no KEY=VALUE lines");
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
	long		total = -1, hpages = -1, hpsize = -1, hugetlb = -1;
	size_t		i;
	int		r = -1;

	strvec_split_lines(&lines, text);
	for (i = 0; i < lines.n; i++) {
		char	*k, *v;

		if (facts_kv(lines.v[i], ':', &k, &v) != 0)
			continue;
		if (strcmp(k, "MemTotal") == 0 && total < 0) {
			if ((total = facts_num(v)) < 0 ||
			    strstr(v, "kB") == NULL) {
				prov_err_parse(err, "meminfo", "MemTotal is not "
				    "a size in kB: '%s'", v);
				goto out;
			}
		} else if (strcmp(k, "HugePages_Total") == 0)
			hpages = facts_num(v);
		else if (strcmp(k, "Hugepagesize") == 0)
			hpsize = facts_num(v);
		else if (strcmp(k, "Hugetlb") == 0)
			hugetlb = facts_num(v);
	}
	if (total < 0) {
		prov_err_parse(err, "meminfo", "no MemTotal line");
		goto out;
	}
	f->mem_kb = total;
	/* Hugetlb counts every page size; the pair only the default one */
	if (hugetlb >= 0)
		f->hugepages_kb = hugetlb;
	else if (hpages >= 0 && hpsize > 0 && hpages <= LLONG_MAX / hpsize)
		f->hugepages_kb = (long long)hpages * hpsize;
	r = 0;
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

	strvec_split_lines(&lines, text);
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
		prov_err_parse(err, "cpuinfo", "no 'processor' entries");
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

	strvec_split_lines(&lines, text);
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
		else if (strcmp(k, "Architecture") == 0 && *v != '\0')
			str_set(&f->arch, v);
	}
	if (cpus < 0) {
		prov_err_parse(err, "lscpu", "no 'CPU(s):' line");
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
		if ((*id = str_hex(buf)) >= 0)
			len = (size_t)(lb - v);
	}
	tmp = xstrndup(v, len);
	n = xstrdup(str_trim(tmp));
	free(tmp);
	*name = n;
	if (strcmp(n, "Device") == 0 || strcmp(n, "Class") == 0 ||
	    strcmp(n, "Vendor") == 0 || *n == '\0' ||
	    (str_starts(n, "Device ") && strlen(n) == 11 &&
	    str_hex(n + 7) >= 0)) {
		if (*id < 0 && str_starts(n, "Device "))
			*id = str_hex(n + 7);
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

	strvec_split_lines(&lines, text);
	for (i = 0; i < lines.n; i++) {
		char	*l = lines.v[i], *k, *v, *name;
		long	 id;

		if (*str_trim(l) == '\0') {
			d = NULL;
			continue;
		}
		if (facts_kv(l, ':', &k, &v) != 0) {
			prov_err_parse(err, "lspci -vmm", "line %zu is not "
			    "'Tag: value'", i + 1);
			goto out;
		}
		if (strcmp(k, "Slot") == 0) {
			if ((d = facts_pci_get(f, v)) == NULL) {
				prov_err_parse(err, "lspci -vmm", "bad slot "
				    "'%s' on line %zu", v, i + 1);
				goto out;
			}
			ndev++;
			continue;
		}
		if (d == NULL) {
			prov_err_parse(err, "lspci -vmm", "'%s' before "
			    "'Slot:' on line %zu", k, i + 1);
			goto out;
		}
		if (strcmp(k, "Driver") == 0) {
			str_set(&d->driver, v);
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
				str_set(&d->class_name, name);
		} else if (strcmp(k, "Vendor") == 0) {
			if (id >= 0)
				d->vendor_id = id;
			if (name != NULL)
				str_set(&d->vendor_name, name);
		} else if (strcmp(k, "Device") == 0) {
			if (id >= 0)
				d->device_id = id;
			if (name != NULL) {
				str_set(&d->device_name, name);
				str_set(&d->name_source, "pci.ids");
			}
		} else if (strcmp(k, "SVendor") == 0)
			d->svendor_id = id;
		else
			d->sdevice_id = id;
		free(name);
	}
	if (ndev == 0 && text[strspn(text, " \t\r\n")] != '\0') {
		prov_err_parse(err, "lspci -vmm", "no 'Slot:' records");
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

	strvec_split_lines(&lines, text);
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
				prov_err_parse(err, "lspci", "no ': ' after "
				    "the class on line %zu", i + 1);
				goto out;
			}
			*desc = '\0';
			desc += 2;
			facts_name_id(cls, &k, &id);
			if (id >= 0)
				d->class_id = id;
			if (k != NULL)
				str_set(&d->class_name, k);
			free(k);
			facts_strip_parens(desc);
			desc = str_trim(desc);
			/* [vvvv:dddd] at the end (-nn) */
			lb = strrchr(desc, '[');
			if (lb != NULL && strlen(lb) == 11 && lb[5] == ':' &&
			    lb[10] == ']') {
				lb[5] = lb[10] = '\0';
				if (str_hex(lb + 1) >= 0 &&
				    str_hex(lb + 6) >= 0) {
					d->vendor_id = str_hex(lb + 1);
					d->device_id = str_hex(lb + 6);
					*lb = '\0';
					desc = str_trim(desc);
				} else
					lb[5] = ':', lb[10] = ']';
			}
			/* "NVIDIA Corporation Device 2330": not in pci.ids */
			if ((k = strstr(desc, " Device ")) != NULL &&
			    strlen(k) == 12 && str_hex(k + 8) >= 0) {
				if (d->device_id < 0)
					d->device_id = str_hex(k + 8);
				*k = '\0';
				if (d->vendor_name == NULL)
					str_set(&d->vendor_name, desc);
			} else if (*desc != '\0' && d->device_name == NULL) {
				str_set(&d->device_name, desc);
				str_set(&d->name_source, "pci.ids");
			}
			continue;
		}
		if (d == NULL) {
			if (!isspace((unsigned char)lines.v[i][0])) {
				prov_err_parse(err, "lspci", "line %zu is "
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
			str_set(&d->driver, v);
	}
	if (ndev == 0 && strspn(text, " \t\r\n") != strlen(text)) {
		prov_err_parse(err, "lspci", "no device lines");
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

	strvec_split_lines(&lines, text);
	for (i = 0; i < lines.n; i++) {
		struct facts_pci	*d;
		long			 v;

		if (facts_blank(lines.v[i]))
			continue;
		strvec_clear(&fl);
		strvec_split(&fl, lines.v[i], '\t', 0);
		if (fl.n < 8 || fl.n > 10 ||
		    (d = facts_pci_get(f, fl.v[0])) == NULL) {
			prov_err_parse(err, "pci sysfs", "line %zu is not "
			    "SLOT CLASS VENDOR DEVICE SPEED MAXSPEED WIDTH "
			    "MAXWIDTH [DRIVER [NUMA]]", i + 1);
			goto out;
		}
		if ((v = str_hex(fl.v[1])) >= 0)
			d->class_id = v >> 8;
		if ((v = str_hex(fl.v[2])) >= 0)
			d->vendor_id = v;
		if ((v = str_hex(fl.v[3])) >= 0)
			d->device_id = v;
		if (*fl.v[4] != '\0')
			d->link.speed = facts_sysfs_speed(fl.v[4]);
		if (*fl.v[5] != '\0')
			d->link.max_speed = facts_sysfs_speed(fl.v[5]);
		if (*fl.v[6] != '\0')
			d->link.width = facts_num(fl.v[6]);
		if (*fl.v[7] != '\0')
			d->link.max_width = facts_num(fl.v[7]);
		if (fl.n >= 9 && *fl.v[8] != '\0')
			str_set(&d->driver, fl.v[8]);
		if (fl.n == 10)
			d->numa_node = facts_num(fl.v[9]);	/* "-1": -1 */
	}
	r = 0;
out:
	strvec_clear(&fl);
	strvec_clear(&lines);
	return r;
}

/* facts_script()'s "SLOT\tDRIVER" lines. */
int
facts_parse_pci_drivers(struct facts *f, const char *text,
    struct prov_err *err)
{
	struct strvec	lines = STRVEC_INIT;
	size_t		i;
	int		r = -1;

	strvec_split_lines(&lines, text);
	for (i = 0; i < lines.n; i++) {
		struct facts_pci	*d;
		char			*k, *v;

		if (*str_trim(lines.v[i]) == '\0')
			continue;
		if (facts_kv(lines.v[i], '\t', &k, &v) != 0 ||
		    (d = facts_pci_get(f, k)) == NULL) {
			prov_err_parse(err, "pci drivers", "line %zu is not "
			    "SLOT DRIVER", i + 1);
			goto out;
		}
		str_set(&d->driver, v);
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
	long	x = str_hex(v);

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
		str_set(&g->name, v);
	else if (strcmp(k, "uuid") == 0)
		str_set(&g->uuid, v);
	else if (strcmp(k, "pci.device_id") == 0) {
		free(g->pci_id);
		g->pci_id = facts_nv_pci_id(v);
	} else if (strcmp(k, "memory.total") == 0)
		g->memory_mib = facts_num(v);
	else if (strcmp(k, "driver_version") == 0)
		str_set(&g->driver_version, v);
	else if (strcmp(k, "persistence_mode") == 0)
		str_set(&g->persistence, v);
	else if (strcmp(k, "pcie.link.gen.current") == 0)
		g->gen = facts_num(v);
	else if (strcmp(k, "pcie.link.gen.max") == 0)
		g->max_gen = facts_num(v);
	else if (strcmp(k, "pcie.link.width.current") == 0)
		g->width = facts_num(v);
	else if (strcmp(k, "pcie.link.width.max") == 0)
		g->max_width = facts_num(v);
	else if (strcmp(k, "mig.mode.current") == 0)
		str_set(&g->mig_mode, v);
	else if (strcmp(k, "ecc.mode.current") == 0)
		str_set(&g->ecc_mode, v);
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

	strvec_split_lines(&lines, text);
	if (fields != NULL)
		facts_csv_split(&hdr, fields);
	else {
		while (first < lines.n && *str_trim(lines.v[first]) == '\0')
			first++;
		if (first == lines.n) {
			prov_err_parse(err, "nvidia-smi csv", "no header");
			goto out;
		}
		facts_csv_split(&hdr, lines.v[first++]);
	}
	for (j = 0; j < hdr.n; j++) {
		char	*u = strstr(hdr.v[j], " [");

		if (u != NULL)
			*u = '\0';	/* "memory.total [MiB]" */
		if (*hdr.v[j] == '\0' || strchr(hdr.v[j], ' ') != NULL) {
			prov_err_parse(err, "nvidia-smi csv", "'%s' is not "
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
			prov_err_parse(err, "nvidia-smi csv", "line %zu has "
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
		str_set(&g->source, "nvidia-smi");
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

	strvec_split_lines(&lines, text);
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
			prov_err_parse(err, "nvidia-smi -L", "line %zu is not "
			    "'GPU N: NAME (UUID: ...)'", i + 1);
			goto out;
		}
		g = facts_gpu_get(f, NULL, idx);
		str_set(&g->source, "nvidia-smi");
		if (g->mig_devices < 0)
			g->mig_devices = 0;
		l = colon + 2;
		if ((u = strstr(l, " (UUID: ")) != NULL) {
			char	*e = strchr(u + 8, ')');

			if (e != NULL) {
				*e = '\0';
				str_set(&g->uuid, u + 8);
			}
			*u = '\0';
		}
		str_set(&g->name, str_trim(l));
	}
	r = 0;
out:
	strvec_clear(&lines);
	return r;
}

/* The MIG devices a <gpu> lists (-1 when it has no <mig_devices>). */
long
facts_nvsmi_mig_count(const struct xml_node *gpu)
{
	const struct xml_node	*m, *d;
	long			 n = -1;

	for (m = gpu->child; m != NULL; m = m->next) {
		if (strcmp(m->name, "mig_devices") != 0)
			continue;
		n = n < 0 ? 0 : n;
		for (d = m->child; d != NULL; d = d->next)
			n += strcmp(d->name, "mig_device") == 0;
	}
	return n;
}

/* What facts need of an nvidia_smi_log tree, from XML or from -q text. */
static void
facts_nvsmi_tree(struct facts *f, const struct xml_node *root)
{
	static const struct {
		const char	*path, *field;
	} leaves[] = {
		{ "product_name", "name" },
		{ "uuid", "uuid" },
		{ "persistence_mode", "persistence_mode" },
		{ "pci/pci_device_id", "pci.device_id" },
		{ "fb_memory_usage/total", "memory.total" },
		{ "pci/pci_gpu_link_info/pcie_gen/current_link_gen",
		  "pcie.link.gen.current" },
		{ "pci/pci_gpu_link_info/pcie_gen/max_link_gen",
		  "pcie.link.gen.max" },
		{ "pci/pci_gpu_link_info/link_widths/current_link_width",
		  "pcie.link.width.current" },
		{ "pci/pci_gpu_link_info/link_widths/max_link_width",
		  "pcie.link.width.max" },
		{ "mig_mode/current_mig", "mig.mode.current" },
		{ "ecc_mode/current_ecc", "ecc.mode.current" },
	};
	const struct xml_node	*x;
	const char		*drv, *v;
	long			 index = 0;
	size_t			 i;

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
		str_set(&g->source, "nvidia-smi");
		if (drv != NULL)
			facts_nv_field(g, "driver_version", drv);
		for (i = 0; i < ARRAY_SIZE(leaves); i++)
			if ((v = xml_path(x, leaves[i].path)) != NULL)
				facts_nv_field(g, leaves[i].field, v);
		if (g->mig_mode != NULL && strcmp(g->mig_mode, "Enabled") == 0)
			g->mig_devices = facts_nvsmi_mig_count(x);
		else if (g->mig_mode != NULL)
			g->mig_devices = 0;
	}
}

int
facts_parse_nvsmi_xml(struct facts *f, const char *text,
    struct prov_err *err)
{
	struct xml_node		*root = NULL;
	int			 r = -1;

	if (xml_parse(&root, "nvidia-smi -q -x", text, err) != 0)
		goto out;
	if (strcmp(root->name, "nvidia_smi_log") != 0) {
		prov_err_parse(err, "nvidia-smi -q -x", "root element is "
		    "'%s', not 'nvidia_smi_log'", root->name);
		goto out;
	}
	facts_nvsmi_tree(f, root);
	r = 0;
out:
	xml_free(root);
	return r;
}

/*
 * nvidia-smi -q text labels whose XML element is not the label in
 * lower case with '_' for the blanks ("Product Name" -> product_name),
 * by the XML name of their parent ("" for any).  A '/' in the element
 * makes two levels, as the XML has them.
 */
static const struct {
	const char	*parent, *label, *element;
} facts_nvq_names[] = {
	{ "gpu", "GPU UUID", "uuid" },
	{ "pci", "Bus", "pci_bus" },
	{ "pci", "Device", "pci_device" },
	{ "pci", "Domain", "pci_domain" },
	{ "pci", "Device Id", "pci_device_id" },
	{ "pci", "Bus Id", "pci_bus_id" },
	{ "pci", "Sub System Id", "pci_sub_system_id" },
	{ "pci", "GPU Link Info", "pci_gpu_link_info" },
	{ "pci_gpu_link_info", "PCIe Generation", "pcie_gen" },
	{ "pci_gpu_link_info", "Link Width", "link_widths" },
	{ "pcie_gen", "Max", "max_link_gen" },
	{ "pcie_gen", "Current", "current_link_gen" },
	{ "pcie_gen", "Device Max", "max_device_link_gen" },
	{ "pcie_gen", "Device Current", "device_current_link_gen" },
	{ "pcie_gen", "Host Max", "max_host_link_gen" },
	{ "link_widths", "Max", "max_link_width" },
	{ "link_widths", "Current", "current_link_width" },
	{ "mig_mode", "Current", "current_mig" },
	{ "mig_mode", "Pending", "pending_mig" },
	{ "ecc_mode", "Current", "current_ecc" },
	{ "ecc_mode", "Pending", "pending_ecc" },
	{ "retired_pages", "Single Bit ECC",
	  "multiple_single_bit_retirement/retired_count" },
	{ "retired_pages", "Double Bit ECC",
	  "double_bit_retirement/retired_count" },
	{ "retired_pages", "Pending Page Blacklist", "pending_blacklist" },
	{ "retired_pages", "Pending Page Retirement", "pending_retirement" },
	{ "remapped_rows", "Correctable Error", "remapped_row_corr" },
	{ "remapped_rows", "Uncorrectable Error", "remapped_row_unc" },
	{ "remapped_rows", "Pending", "remapped_row_pending" },
	{ "remapped_rows", "Remapping Failure Occurred",
	  "remapped_row_failure" },
};

/* The XML element name of a -q label under `parent` (caller frees). */
static char *
facts_nvq_element(const char *parent, const char *label)
{
	struct buf	b = BUF_INIT;
	size_t		i;

	for (i = 0; i < ARRAY_SIZE(facts_nvq_names); i++)
		if (strcmp(facts_nvq_names[i].parent, parent) == 0 &&
		    strcmp(facts_nvq_names[i].label, label) == 0)
			return xstrdup(facts_nvq_names[i].element);
	for (; *label != '\0'; label++) {
		if (isalnum((unsigned char)*label))
			buf_addch(&b, (char)tolower((unsigned char)*label));
		else if (b.len > 0 && b.buf[b.len - 1] != '_')
			buf_addch(&b, '_');
	}
	while (b.len > 0 && b.buf[b.len - 1] == '_')
		buf_setlen(&b, b.len - 1);
	return buf_detach(&b, NULL);
}

/* A new last child of parent named `name` ("a/b": b inside a). */
static struct xml_node *
facts_nvq_add(struct xml_node *parent, const char *name)
{
	const char	*slash = strchr(name, '/');
	struct xml_node	*x = xcalloc(1, sizeof *x);

	x->name = slash != NULL ? xstrndup(name, (size_t)(slash - name)) :
	    xstrdup(name);
	if (parent->last != NULL)
		parent->last->next = x;
	else
		parent->child = x;
	parent->last = x;
	return slash != NULL ? facts_nvq_add(x, slash + 1) : x;
}

/*
 * Each line is a label at an indentation of four blanks a level, then
 * ": value" for a leaf; a line without a colon opens a section whose
 * lines are indented one level deeper.  "GPU 00000000:3B:00.0" at the
 * left margin opens a <gpu id="...">, as the XML has it.  Labels are
 * padded to a column that differs between drivers, so only the first
 * colon counts.
 */
int
facts_nvsmi_q_tree(struct xml_node **out, const char *text,
    struct prov_err *err)
{
	struct strvec	  lines = STRVEC_INIT;
	struct xml_node	 *root = xcalloc(1, sizeof *root), *stack[16];
	size_t		  i, depth = 1, ngpus = 0;
	int		  r = -1;

	*out = NULL;
	root->name = xstrdup("nvidia_smi_log");
	stack[0] = root;
	strvec_split_lines(&lines, text);
	for (i = 0; i < lines.n; i++) {
		char		*l = lines.v[i], *colon, *label, *name, slot[32];
		size_t		 ind = strspn(l, " "), level;
		struct xml_node	*x;

		if (facts_blank(l) || str_starts(l, "====="))
			continue;
		if (l[ind] == '\t' || ind % 4 != 0 ||
		    (level = ind / 4) >= depth) {
			prov_err_parse(err, "nvidia-smi -q", "line %zu is not "
			    "indented by four blanks a level", i + 1);
			goto out;
		}
		l = str_trim(l);
		if (level == 0 && str_starts(l, "GPU ") &&
		    facts_slot_norm(slot, sizeof slot, l + 4) == 0) {
			x = facts_nvq_add(root, "gpu");
			x->id = xstrdup(l + 4);
			stack[1] = x;
			depth = 2;
			ngpus++;
			continue;
		}
		colon = strchr(l, ':');
		label = colon != NULL ? xstrndup(l, (size_t)(colon - l)) :
		    xstrdup(l);
		name = facts_nvq_element(stack[level]->name, str_trim(label));
		free(label);
		if (*name == '\0') {
			free(name);
			prov_err_parse(err, "nvidia-smi -q", "line %zu has no "
			    "label", i + 1);
			goto out;
		}
		x = facts_nvq_add(stack[level], name);
		free(name);
		if (colon != NULL)
			x->text = xstrdup(str_trim(colon + 1));
		/* a leaf may have lines below it too ("Process ID : 12") */
		if (level + 2 < ARRAY_SIZE(stack)) {
			stack[level + 1] = x;
			depth = level + 2;
		} else
			depth = level + 1;
	}
	if (ngpus == 0 && xml_path(root, "attached_gpus") == NULL) {
		prov_err_parse(err, "nvidia-smi -q", "no 'Attached GPUs' and "
		    "no 'GPU BUS-ID' lines");
		goto out;
	}
	*out = root;
	root = NULL;
	r = 0;
out:
	xml_free(root);
	strvec_clear(&lines);
	return r;
}

int
facts_parse_nvsmi_q(struct facts *f, const char *text, struct prov_err *err)
{
	struct xml_node	*root;

	if (facts_nvsmi_q_tree(&root, text, err) != 0)
		return -1;
	facts_nvsmi_tree(f, root);
	xml_free(root);
	return 0;
}

/* ------------------------------------------------------------------ */
/* InfiniBand, network interfaces, disks */

struct facts_ib *
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

	strvec_split_lines(&lines, text);
	for (i = 0; i < lines.n; i++) {
		int	 margin = !isspace((unsigned char)lines.v[i][0]);
		char	*l = str_trim(lines.v[i]), *k, *v, *q, *e;

		if (*l == '\0')
			continue;
		/* ibstat: CA 'mlx5_0' */
		if (str_starts(l, "CA '") &&
		    (e = strchr(l + 4, '\'')) != NULL) {
			*e = '\0';
			str_set(&ca, l + 4);
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
			str_set(&ca, NULL);
			heads++;
			continue;
		}
		/* ibstat: Port 1: */
		if (str_starts(l, "Port ") && l[strlen(l) - 1] == ':' &&
		    facts_num(l + 5) >= 0) {
			if (ca == NULL) {
				prov_err_parse(err, "ibstat", "'Port' outside "
				    "a CA on line %zu", i + 1);
				goto out;
			}
			p = facts_ib_add(f, ca, facts_num(l + 5));
			continue;
		}
		/*
		 * At the left margin only CA and device headers: anything
		 * else is what ibstat says after its ports when a CA could
		 * not be read ("ibwarn: ... umad_get_ca"), kept as a note.
		 */
		if (margin && heads > 0) {
			facts_note(f, "ibstat: %.160s", l);
			continue;
		}
		if (facts_kv(l, ':', &k, &v) != 0 || p == NULL)
			continue;
		if (strcasecmp(k, "State") == 0) {
			str_set(&p->state, facts_ib_strip(v));
			facts_lower(p->state);
		} else if (strcasecmp(k, "Physical state") == 0 ||
		    strcmp(k, "phys state") == 0)
			str_set(&p->phys_state, facts_ib_strip(v));
		else if (strcasecmp(k, "Rate") == 0)
			p->rate_gbps = facts_dbl(v);
		else if (strcasecmp(k, "Link layer") == 0 ||
		    strcmp(k, "link_layer") == 0)
			str_set(&p->link_layer, v);
	}
	if (heads == 0 && strspn(text, " \t\r\n") != strlen(text)) {
		prov_err_parse(err, "ibstat", "no 'CA' or 'Infiniband device' "
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

	strvec_split_lines(&lines, text);
	for (i = 0; i < lines.n; i++) {
		struct facts_nic	*n;
		char			 slot[32];

		if (facts_blank(lines.v[i]))
			continue;
		strvec_clear(&fl);
		strvec_split(&fl, lines.v[i], '\t', 0);
		if (fl.n != 6 || *fl.v[0] == '\0') {
			prov_err_parse(err, "net", "line %zu is not NAME "
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

	strvec_split_lines(&lines, text);
	for (i = 0; i < lines.n; i++) {
		struct facts_disk	*d;
		long			 sectors;

		if (facts_blank(lines.v[i]))
			continue;
		strvec_clear(&fl);
		strvec_split(&fl, lines.v[i], '\t', 0);
		if (fl.n != 4 || *fl.v[0] == '\0') {
			prov_err_parse(err, "block", "line %zu is not NAME "
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

/* ------------------------------------------------------------------ */
/* A saved output, whatever tool printed it */

/*
 * Every PCI bus has a host bridge (class 0600) or, on some platforms, a
 * root port (0604); a saved lspci without either was cut by grep or
 * -d, and what it lacks is not missing from the node.
 */
static void
facts_pci_partial(struct facts *f)
{
	size_t	i;

	for (i = 0; i < f->npci; i++)
		if (f->pci[i].class_id == 0x0600 || f->pci[i].class_id ==
		    0x0604 || (f->pci[i].class_name != NULL &&
		    (strcmp(f->pci[i].class_name, "Host bridge") == 0 ||
		    strcmp(f->pci[i].class_name, "PCI bridge") == 0)))
			return;
	f->pci_partial = 1;
	facts_note(f, "the lspci output has no host bridge: it was filtered "
	    "(grep, -d), so devices it leaves out are not counted missing");
}

/* Does a line of text (after blanks) begin with `prefix`? */
static int
facts_has_line(const char *text, const char *prefix)
{
	const char	*l = text;

	while (l != NULL && *l != '\0') {
		l += strspn(l, " \t");
		if (str_starts(l, prefix))
			return 1;
		if ((l = strchr(l, '\n')) != NULL)
			l++;
	}
	return 0;
}

static int
facts_parse_csv_hdr(struct facts *f, const char *text, struct prov_err *err)
{
	return facts_parse_nvsmi_csv(f, text, NULL, err);
}

int
facts_parse_any(struct facts *f, const char *label, const char *text,
    const char **kind, struct prov_err *err)
{
	/* most telling first: lscpu and cpuinfo both have "model name" */
	static const struct {
		const char	*kind, *mark;
		int		(*parse)(struct facts *, const char *,
				    struct prov_err *);
	} kinds[] = {
		{ "nvidia-smi -q -x", "<nvidia_smi_log", facts_parse_nvsmi_xml },
		{ "nvidia-smi -q -x", "<?xml", facts_parse_nvsmi_xml },
		{ "nvidia-smi -q", "Attached GPUs", facts_parse_nvsmi_q },
		{ "nvidia-smi -q", "==============NVSMI LOG",
		  facts_parse_nvsmi_q },
		{ "nvidia-smi --query-gpu", "index,", facts_parse_csv_hdr },
		{ "nvidia-smi --query-gpu", "name,", facts_parse_csv_hdr },
		{ "nvidia-smi --query-gpu", "timestamp,", facts_parse_csv_hdr },
		{ "nvidia-smi -L", "GPU 0: ", facts_parse_nvsmi_list },
		{ "lspci -vmm", "Slot:\t", facts_parse_lspci_vmm },
		{ "ibstat", "CA '", facts_parse_ibstat },
		{ "ibstatus", "Infiniband device '", facts_parse_ibstat },
		{ "/proc/meminfo", "MemTotal:", facts_parse_meminfo },
		{ "lscpu", "CPU(s):", facts_parse_lscpu },
		{ "/proc/cpuinfo", "processor\t", facts_parse_cpuinfo },
		{ "/etc/os-release", "VERSION_ID=", facts_parse_os_release },
		{ "/etc/os-release", "ID=", facts_parse_os_release },
	};
	struct prov_err	 perr = PROV_ERR_INIT;
	const char	*first = text + strspn(text, " \t\r\n");
	char		 word[32], slot[32];
	size_t		 i, sl = strcspn(first, " ");
	int		 r = 0;

	*kind = NULL;
	for (i = 0; i < ARRAY_SIZE(kinds) && *kind == NULL; i++)
		if (facts_has_line(text, kinds[i].mark)) {
			*kind = kinds[i].kind;
			r = kinds[i].parse(f, text, &perr);
		}
	if (*kind == NULL && sl > 0 && sl < sizeof slot) {
		memcpy(word, first, sl);
		word[sl] = '\0';
		if (facts_slot_norm(slot, sizeof slot, word) == 0) {
			*kind = "lspci";
			r = facts_parse_lspci(f, text, &perr);
		}
	}
	if (*kind != NULL && str_starts(*kind, "lspci") && r == 0)
		facts_pci_partial(f);
	if (*kind == NULL)
		return prov_err_set(err, PROV_E_PARSE, "%s: not an output "
		    "provision reads (nvidia-smi -q, -q -x, --query-gpu CSV, "
		    "-L; lspci; ibstat; /proc/meminfo; /proc/cpuinfo; lscpu; "
		    "os-release)", label);
	if (r != 0) {
		prov_err_set(err, PROV_E_PARSE, "%s: %s", label, perr.msg);
		prov_err_release(&perr);
		return -1;
	}
	return 0;
}

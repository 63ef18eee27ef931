/*
 * hw.c: read this machine's facts: libpci, /proc, /sys, nvidia-smi.
 *
 * libpci's error callback is declared non-returning and gets no context
 * pointer, and its default calls exit(1).  Every hw_ function that calls
 * libpci sets a jump buffer first (hw_pci_enter), installs hw_pci_error
 * on its pci_access before pci_init, and returns -1 when the callback
 * longjmps back.  The jump target has to be reachable from a callback
 * without arguments: it is the one piece of mutable static state in
 * lib/, thread-local and set only while a hw_ call runs.  Nothing
 * allocated is held in local variables across pci_* calls, so a jump
 * leaks nothing: what was read so far is already owned by the facts.
 *
 * The rest is read into the text formats of facts_script() and given to
 * the same parsers, so a node read here and one read over SSH agree.
 */
#include "compat.h"

#include <ctype.h>
#include <dirent.h>
#include <fcntl.h>
#include <setjmp.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <sys/wait.h>

#include <pci/pci.h>

#include "buf.h"
#include "facts.h"
#include "hw.h"
#include "proc.h"
#include "str.h"
#include "strvec.h"

/* Where hw_pci_error jumps to, and its message: see the top comment. */
static _Thread_local jmp_buf		*hw_jmp;
static _Thread_local char		 hw_msg[256];
static _Thread_local struct facts	*hw_warn_to;

static void PROV_NORETURN PROV_PRINTF(1, 2)
hw_pci_error(char *msg, ...)
{
	va_list	ap;
	size_t	len;

	va_start(ap, msg);
	vsnprintf(hw_msg, sizeof hw_msg, msg, ap);
	va_end(ap);
	len = strlen(hw_msg);
	while (len > 0 && hw_msg[len - 1] == '\n')
		hw_msg[--len] = '\0';
	if (hw_jmp != NULL)
		longjmp(*hw_jmp, 1);
	abort();	/* a libpci call outside hw_pci_enter: a bug */
}

static void PROV_PRINTF(1, 2)
hw_pci_warning(char *msg, ...)
{
	char	w[256];
	va_list	ap;
	size_t	len;

	va_start(ap, msg);
	vsnprintf(w, sizeof w, msg, ap);
	va_end(ap);
	len = strlen(w);
	while (len > 0 && w[len - 1] == '\n')
		w[--len] = '\0';
	if (hw_warn_to != NULL)
		facts_note(hw_warn_to, "libpci: %s", w);
}

static void PROV_PRINTF(1, 2)
hw_pci_debug(char *msg, ...)
{
}

/* Read the first line of a small file, trimmed; -1 when unreadable. */
static int
hw_read_line(char *out, size_t outsz, const char *fmt, ...)
    PROV_PRINTF(3, 4);

static int
hw_read_line(char *out, size_t outsz, const char *fmt, ...)
{
	char	path[PATH_MAX];
	va_list	ap;
	ssize_t	n;
	size_t	len;
	int	fd;

	va_start(ap, fmt);
	vsnprintf(path, sizeof path, fmt, ap);
	va_end(ap);
	out[0] = '\0';
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return -1;
	n = read(fd, out, outsz - 1);
	close(fd);
	if (n < 0) {
		out[0] = '\0';
		return -1;
	}
	out[n] = '\0';
	out[strcspn(out, "\n")] = '\0';
	len = strlen(out);
	while (len > 0 && (out[len - 1] == ' ' || out[len - 1] == '\t'))
		out[--len] = '\0';
	return 0;
}

/* The sorted entries of a directory (no dot files); -1 when unreadable. */
static int
hw_list_dir(struct strvec *out, const char *dir)
{
	struct dirent	**ents = NULL;
	int		  n, i;

	if ((n = scandir(dir, &ents, NULL, alphasort)) < 0)
		return -1;
	for (i = 0; i < n; i++) {
		if (ents[i]->d_name[0] != '.')
			strvec_push(out, ents[i]->d_name);
		free(ents[i]);
	}
	free(ents);
	return 0;
}

/* ------------------------------------------------------------------ */
/* libpci */

static double
hw_pci_speed(unsigned code)
{
	return facts_speed_of_gen((long)code);
}

/* Link from the PCIe capability; 0 when the device has none to read. */
static int
hw_pci_link(struct pci_dev *d, struct facts_link *l)
{
	struct pci_cap	*cap;
	unsigned	 type;
	u32		 lnkcap;
	u16		 lnksta;

	if (d->no_config_access ||
	    (cap = pci_find_cap(d, PCI_CAP_ID_EXP, PCI_CAP_NORMAL)) == NULL)
		return 0;
	type = (pci_read_word(d, (int)cap->addr + PCI_EXP_FLAGS) &
	    PCI_EXP_FLAGS_TYPE) >> 4;
	if (type == PCI_EXP_TYPE_ROOT_INT_EP || type == PCI_EXP_TYPE_ROOT_EC)
		return 0;	/* integrated in the root complex: no link */
	lnkcap = pci_read_long(d, (int)cap->addr + PCI_EXP_LNKCAP);
	lnksta = pci_read_word(d, (int)cap->addr + PCI_EXP_LNKSTA);
	if (lnkcap == 0xffffffffU)
		return 0;
	l->max_speed = hw_pci_speed(lnkcap & PCI_EXP_LNKCAP_SPEED);
	l->max_width = (long)((lnkcap & PCI_EXP_LNKCAP_WIDTH) >> 4);
	l->speed = hw_pci_speed(lnksta & PCI_EXP_LNKSTA_SPEED);
	l->width = (long)((lnksta & PCI_EXP_LNKSTA_WIDTH) >> 4);
	return 1;
}

/* Link from sysfs (readable without root); 0 when it has no link files. */
static int
hw_sysfs_link(const char *sysfs, const char *slot, struct facts_link *l)
{
	char	v[64];
	double	s;
	long	w;
	int	any = 0;

	if (hw_read_line(v, sizeof v, "%s/devices/%s/current_link_speed",
	    sysfs, slot) == 0 && (s = strtod(v, NULL)) > 0) {
		l->speed = s;
		any = 1;
	}
	if (hw_read_line(v, sizeof v, "%s/devices/%s/max_link_speed", sysfs,
	    slot) == 0 && (s = strtod(v, NULL)) > 0) {
		l->max_speed = s;
		any = 1;
	}
	if (hw_read_line(v, sizeof v, "%s/devices/%s/current_link_width",
	    sysfs, slot) == 0 && (w = strtol(v, NULL, 10)) >= 0 &&
	    v[0] != '\0') {
		l->width = w;
		any = 1;
	}
	if (hw_read_line(v, sizeof v, "%s/devices/%s/max_link_width", sysfs,
	    slot) == 0 && (w = strtol(v, NULL, 10)) > 0) {
		l->max_width = w;
		any = 1;
	}
	return any;
}

/*
 * Names from pci.ids only: udev's hwdb is skipped (libpci 3.9 leaks a
 * udev context per lookup when the hwdb is missing, and the names should
 * be pci.ids' on every machine).
 */
#ifdef PCI_LOOKUP_NO_HWDB
#define HW_LOOKUP	PCI_LOOKUP_NO_HWDB
#else
#define HW_LOOKUP	0
#endif

/* Names that pci.ids knows; NULL stays NULL (PCI_LOOKUP_NO_NUMBERS). */
static void
hw_pci_name(struct pci_access *a, struct facts_pci *p)
{
	char	buf[256], *s;

	if (p->vendor_id >= 0 && p->vendor_name == NULL &&
	    (s = pci_lookup_name(a, buf, sizeof buf, PCI_LOOKUP_VENDOR |
	    PCI_LOOKUP_NO_NUMBERS | HW_LOOKUP, (int)p->vendor_id)) != NULL) {
		free(p->vendor_name);
		p->vendor_name = xstrdup(s);
	}
	if (p->vendor_id >= 0 && p->device_id >= 0 && p->device_name == NULL &&
	    (s = pci_lookup_name(a, buf, sizeof buf, PCI_LOOKUP_DEVICE |
	    PCI_LOOKUP_NO_NUMBERS | HW_LOOKUP, (int)p->vendor_id,
	    (int)p->device_id)) != NULL) {
		p->device_name = xstrdup(s);
		free(p->name_source);
		p->name_source = xstrdup("pci.ids");
	}
	if (p->class_id >= 0 && p->class_name == NULL &&
	    (s = pci_lookup_name(a, buf, sizeof buf, PCI_LOOKUP_CLASS |
	    PCI_LOOKUP_NO_NUMBERS | HW_LOOKUP, (int)p->class_id)) != NULL) {
		char	num[16];
		size_t	len = strlen(s), nl;

		/* an unknown subclass comes back as "Base class [ffff]" */
		nl = (size_t)snprintf(num, sizeof num, " [%04lx]",
		    p->class_id);
		if (len > nl && strcmp(s + len - nl, num) == 0)
			s[len - nl] = '\0';
		p->class_name = xstrdup(s);
	}
}

/* ------------------------------------------------------------------ */
/* Ids from names: plain `lspci` (without -nn) prints only the names */

/* Names equal but for blanks and case: pci.ids fixed "GH100[H100 ..." */
static int
hw_name_eq(const char *a, const char *b, size_t blen)
{
	const char	*be = b + blen;

	for (;;) {
		while (*a == ' ')
			a++;
		while (b < be && *b == ' ')
			b++;
		if (*a == '\0' || b == be)
			return *a == '\0' && b == be;
		if (tolower((unsigned char)*a) != tolower((unsigned char)*b))
			return 0;
		a++;
		b++;
	}
}

/*
 * The id whose pci.ids name is `name` (its first blen bytes), asking
 * libpci for every id of the kind (`flags`; devices of `vendor`): pci.ids
 * has no index by name and libpci no way to walk it, and 65536 lookups
 * in its hash table take a few milliseconds.  -1 when none matches, -2
 * when several do (a name shared by two devices says nothing).
 */
static long
hw_pci_rev(struct pci_access *a, int flags, long vendor, const char *name,
    size_t blen)
{
	char	buf[256], *s;
	long	id, found = -1;

	for (id = 0; id <= 0xffff; id++) {
		if (flags & PCI_LOOKUP_DEVICE)
			s = pci_lookup_name(a, buf, sizeof buf, flags,
			    (int)vendor, (int)id);
		else
			s = pci_lookup_name(a, buf, sizeof buf, flags, (int)id);
		if (s == NULL || !hw_name_eq(s, name, blen))
			continue;
		if (found >= 0 && !(flags & PCI_LOOKUP_CLASS))
			return -2;
		if (found < 0)
			found = id;	/* a class: the subclass comes first */
	}
	return found;
}

/* The vendor whose name begins `text` (longest first), and its length. */
static long
hw_pci_rev_vendor(struct pci_access *a, const char *text, size_t *len)
{
	char	buf[256], *s;
	long	id, best = -1;
	size_t	n, tl = strlen(text);

	*len = 0;
	for (id = 0; id <= 0xfffe; id++) {
		if ((s = pci_lookup_name(a, buf, sizeof buf, PCI_LOOKUP_VENDOR |
		    PCI_LOOKUP_NO_NUMBERS | HW_LOOKUP, (int)id)) == NULL)
			continue;
		n = strlen(s);
		if (n > *len && n <= tl && strncmp(text, s, n) == 0 &&
		    (text[n] == ' ' || text[n] == '\0')) {
			best = id;
			*len = n;
		}
	}
	return best;
}

/*
 * A device plain lspci named without ids: "Class: Vendor Device" split
 * and turned back into ids through this machine's pci.ids.  Returns 1
 * when its vendor and device ids are known after.
 */
static int
hw_pci_resolve(struct pci_access *a, struct facts_pci *p)
{
	const char	*text, *rest = NULL;
	size_t		 vlen;
	long		 id;

	if (p->class_id < 0 && p->class_name != NULL &&
	    (id = hw_pci_rev(a, PCI_LOOKUP_CLASS | PCI_LOOKUP_NO_NUMBERS |
	    HW_LOOKUP, -1, p->class_name, strlen(p->class_name))) >= 0)
		p->class_id = id;
	if (p->vendor_id < 0) {
		/* "Vendor Device 2330" left the vendor name alone */
		text = p->vendor_name != NULL ? p->vendor_name :
		    p->device_name;
		if (text == NULL ||
		    (id = hw_pci_rev_vendor(a, text, &vlen)) < 0)
			return 0;
		p->vendor_id = id;
		if (p->vendor_name == NULL) {
			rest = text + vlen + (text[vlen] == ' ');
			p->vendor_name = xstrndup(text, vlen);
			memmove(p->device_name, rest, strlen(rest) + 1);
			if (*p->device_name == '\0')
				str_set(&p->device_name, NULL);
		}
	}
	if (p->device_id < 0 && p->device_name != NULL &&
	    *p->device_name != '\0' && (id = hw_pci_rev(a, PCI_LOOKUP_DEVICE |
	    PCI_LOOKUP_NO_NUMBERS | HW_LOOKUP, p->vendor_id, p->device_name,
	    strlen(p->device_name))) >= 0)
		p->device_id = id;
	return p->device_id >= 0;
}

/* Every device of f that came without ids; a note for those left. */
static void
hw_pci_resolve_all(struct pci_access *a, struct facts *f)
{
	size_t	i, left = 0;

	for (i = 0; i < f->npci; i++)
		if ((f->pci[i].vendor_id < 0 || f->pci[i].device_id < 0) &&
		    !hw_pci_resolve(a, &f->pci[i]))
			left++;
	if (left > 0)
		facts_note(f, "%zu PCI device%s named without ids (plain "
		    "lspci) whose names this machine's pci.ids does not know: "
		    "their ids are unknown (lspci -nn prints them)", left,
		    left == 1 ? "" : "s");
}

static void
hw_pci_dev(struct facts *f, struct pci_access *a, struct pci_dev *d,
    const char *sysfs)
{
	struct facts_pci	*p;
	char			 slot[32];
	int			 want = PCI_FILL_IDENT | PCI_FILL_CLASS |
				    PCI_FILL_CAPS;

#ifdef PCI_FILL_SUBSYS
	want |= PCI_FILL_SUBSYS;
#endif
#ifdef PCI_FILL_DRIVER
	want |= PCI_FILL_DRIVER;
#endif
#ifdef PCI_FILL_NUMA_NODE
	want |= PCI_FILL_NUMA_NODE;
#endif
	pci_fill_info(d, want);
	snprintf(slot, sizeof slot, "%04x:%02x:%02x.%x", (unsigned)d->domain,
	    d->bus, d->dev, d->func);
	if ((p = facts_pci_get(f, slot)) == NULL)
		return;
	p->vendor_id = d->vendor_id;
	p->device_id = d->device_id;
	p->class_id = d->device_class;
#ifdef PCI_FILL_SUBSYS
	/* 0000:0000 is "no subsystem": lspci prints nothing for it */
	if ((d->known_fields & PCI_FILL_SUBSYS) &&
	    (d->subsys_vendor_id != 0 || d->subsys_id != 0)) {
		p->svendor_id = d->subsys_vendor_id;
		p->sdevice_id = d->subsys_id;
	}
#endif
#ifdef PCI_FILL_DRIVER
	{
		char	*drv = pci_get_string_property(d, PCI_FILL_DRIVER);

		if (drv != NULL) {
			free(p->driver);
			p->driver = xstrdup(drv);
		}
	}
#endif
#ifdef PCI_FILL_NUMA_NODE
	if (d->known_fields & PCI_FILL_NUMA_NODE)
		p->numa_node = d->numa_node;	/* -1 without NUMA */
#endif
	if (!hw_pci_link(d, &p->link))
		hw_sysfs_link(sysfs, slot, &p->link);
}

/*
 * On a fresh pci_access with our handlers, scan the bus into fs[0]
 * (scan) or name the devices of fs[0..n-1]; the jump target is this
 * frame.  -1 with libpci's message when libpci failed.
 */
static int
hw_pci_enter(struct facts *const *fs, size_t n, const struct hw_opts *o,
    int scan, struct prov_err *err)
{
	struct facts			*f = fs[0];
	struct pci_access *volatile	 a = NULL;
	char *volatile			 sysparam = NULL;
	jmp_buf				 jb;
	jmp_buf *volatile		 saved = hw_jmp;
	struct facts *volatile		 saved_warn = hw_warn_to;
	const char			*sysfs = o->pci_sysfs != NULL ?
					    o->pci_sysfs : "/sys/bus/pci";
	volatile int			 r = -1, cleaning = 0;

	if (setjmp(jb) != 0) {
		if (!cleaning)
			prov_err_set(err, PROV_E_SYS, "libpci: %s", hw_msg);
		goto out;
	}
	hw_jmp = &jb;
	hw_warn_to = f;
	a = pci_alloc();
	a->error = hw_pci_error;
	a->warning = hw_pci_warning;
	a->debug = hw_pci_debug;
	if (o->pci_sysfs != NULL) {
		/* libpci keeps the pointer: it lives until pci_cleanup */
		sysparam = xstrdup(o->pci_sysfs);
		a->method = PCI_ACCESS_SYS_BUS_PCI;
		pci_set_param(a, (char *)"sysfs.path", sysparam);
	}
	/* pci.ids only (see HW_LOOKUP); absent without hwdb support: -1 */
	(void)pci_set_param(a, (char *)"hwdb.disable", (char *)"1");
	if (o->pci_ids != NULL)
		pci_set_name_list_path(a, xstrdup(o->pci_ids), 1);
	pci_init(a);
	if (scan) {
		struct pci_dev	*d;

		pci_scan_bus(a);
		for (d = a->devices; d != NULL; d = d->next)
			hw_pci_dev(f, a, d, sysfs);
	} else {
		size_t	i, j, named = 0, devs = 0;

		for (j = 0; j < n; j++)
			hw_pci_resolve_all(a, fs[j]);
		for (j = 0; j < n; j++)
			for (i = 0; i < fs[j]->npci; i++) {
				hw_pci_name(a, &fs[j]->pci[i]);
				named += fs[j]->pci[i].vendor_name != NULL;
				devs++;
			}
		if (devs > 0 && named == 0 && !pci_load_name_list(a))
			for (j = 0; j < n; j++)
				facts_note(fs[j], "no pci.ids%s%s: devices are "
				    "named only from the catalog",
				    o->pci_ids ? " at " : "",
				    o->pci_ids ? o->pci_ids : "");
	}
	r = 0;
out:
	if (a != NULL && !cleaning) {
		cleaning = 1;
		pci_cleanup(a);
	}
	free(sysparam);
	hw_jmp = saved;
	hw_warn_to = saved_warn;
	return r;
}

int
hw_pci_scan(struct facts *f, const struct hw_opts *o, struct prov_err *err)
{
	struct prov_err	nerr = PROV_ERR_INIT;

	if (hw_pci_enter(&f, 1, o, 1, err) != 0)
		return -1;
	/* names are a help, not a must: a broken pci.ids is a note */
	if (hw_pci_enter(&f, 1, o, 0, &nerr) != 0)
		facts_note(f, "%s", nerr.msg);
	prov_err_release(&nerr);
	return 0;
}

int
hw_pci_names(struct facts *const *fs, size_t n, const struct hw_opts *o,
    struct prov_err *err)
{
	if (n == 0)
		return 0;
	return hw_pci_enter(fs, n, o, 0, err);
}

/* ------------------------------------------------------------------ */
/* Running nvidia-smi */

/*
 * One nvidia-smi --query-gpu into f; what it writes to stderr (a warning
 * such as "infoROM is corrupted") is kept apart from the CSV, as notes.
 * -1 when it could not run at all (not installed: nothing more to ask).
 */
static int
hw_nvidia_query(struct facts *f, const struct hw_opts *o, const char *prog,
    const char *fields)
{
	struct proc	 pr = PROC_INIT;
	struct buf	 out = BUF_INIT, eb = BUF_INIT;
	struct strvec	 lines = STRVEC_INIT;
	struct prov_err	 err = PROV_ERR_INIT;
	size_t		 i;
	int		 st, r = 0;

	strvec_push(&pr.args, prog);
	strvec_pushf(&pr.args, "--query-gpu=%s", fields);
	strvec_push(&pr.args, "--format=csv,nounits");
	pr.out = &out;
	pr.err = &eb;
	pr.timeout_s = o->timeout_s > 0 ? o->timeout_s : 60;
	if (proc_run(&pr) != 0) {
		if (errno == ENOENT)
			facts_note(f, "'%s' not found", prog);
		else if (errno == ETIMEDOUT)
			facts_note(f, "%s: timed out", prog);
		else
			facts_note(f, "%s: %s", prog, strerror(errno));
		r = -1;
		goto out;
	}
	strvec_split_lines(&lines, eb.buf != NULL ? eb.buf : "");
	for (i = 0; i < lines.n && i < 8; i++)
		if (*str_trim(lines.v[i]) != '\0')
			facts_note(f, "%s: %.160s", prog, str_trim(lines.v[i]));
	st = pr.status;
	if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) {
		buf_rtrim(&out);
		facts_note(f, "%s: exit status %d%s%.160s", prog,
		    WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st),
		    out.len ? ": " : "", out.len ? out.buf : "");
		goto out;
	}
	if (facts_parse_nvsmi_csv(f, out.buf != NULL ? out.buf : "", NULL,
	    &err) != 0)
		facts_note(f, "%s", err.msg);
out:
	proc_release(&pr);
	prov_err_release(&err);
	strvec_clear(&lines);
	buf_release(&out);
	buf_release(&eb);
	return r;
}

/* The same queries as facts_script(): the GPUs, then their modes apart. */
static void
hw_nvidia_smi(struct facts *f, const struct hw_opts *o)
{
	const char	*prog = o->nvidia_smi != NULL ? o->nvidia_smi :
			    "nvidia-smi";

	if (*prog == '\0')
		return;
	if (hw_nvidia_query(f, o, prog, "index,name,pci.bus_id,"
	    "pci.device_id,uuid,memory.total,driver_version,persistence_mode,"
	    "pcie.link.gen.current,pcie.link.gen.max,pcie.link.width.current,"
	    "pcie.link.width.max") == 0 && f->ngpus > 0)
		hw_nvidia_query(f, o, prog, "index,pci.bus_id,"
		    "mig.mode.current,ecc.mode.current");
}

/* ------------------------------------------------------------------ */
/* /proc and /sys, written in facts_script()'s formats */

static void
hw_file(struct facts *f, const char *path,
    int (*parse)(struct facts *, const char *, struct prov_err *))
{
	struct buf	b = BUF_INIT;
	struct prov_err	err = PROV_ERR_INIT;

	if (buf_read_file(&b, path) != 0)
		facts_note(f, "%s: %s", path, strerror(errno));
	else if (parse(f, b.buf, &err) != 0)
		facts_note(f, "%s", err.msg);
	prov_err_release(&err);
	buf_release(&b);
}

/* Sockets and cores from sysfs topology, when cpuinfo had no ids (ARM). */
static void
hw_cpu_topology(struct facts *f)
{
	struct strvec	 cpus = STRVEC_INIT;
	long		*pk = NULL, *co = NULL;
	size_t		 npk = 0, nco = 0, i, j;
	char		 v[32];

	if (hw_list_dir(&cpus, "/sys/devices/system/cpu") != 0)
		return;
	pk = xcalloc(cpus.n + 1, sizeof *pk);
	co = xcalloc(cpus.n + 1, sizeof *co);
	for (i = 0; i < cpus.n; i++) {
		long	p, c;

		if (strncmp(cpus.v[i], "cpu", 3) != 0 ||
		    !isdigit((unsigned char)cpus.v[i][3]) ||
		    hw_read_line(v, sizeof v, "/sys/devices/system/cpu/%s/"
		    "topology/physical_package_id", cpus.v[i]) != 0)
			continue;
		p = strtol(v, NULL, 10);
		if (hw_read_line(v, sizeof v, "/sys/devices/system/cpu/%s/"
		    "topology/core_id", cpus.v[i]) != 0)
			continue;
		c = p * 65536 + strtol(v, NULL, 10);
		for (j = 0; j < npk && pk[j] != p; j++)
			;
		if (j == npk)
			pk[npk++] = p;
		for (j = 0; j < nco && co[j] != c; j++)
			;
		if (j == nco)
			co[nco++] = c;
	}
	if (f->cpu_sockets < 0 && npk > 0)
		f->cpu_sockets = (long)npk;
	if (f->cpu_cores < 0 && nco > 0)
		f->cpu_cores = (long)nco;
	free(pk);
	free(co);
	strvec_clear(&cpus);
}

static void
hw_ib(struct facts *f)
{
	struct strvec	cas = STRVEC_INIT, ports = STRVEC_INIT;
	struct buf	b = BUF_INIT, dir = BUF_INIT;
	struct prov_err	err = PROV_ERR_INIT;
	size_t		i, j;

	if (hw_list_dir(&cas, "/sys/class/infiniband") != 0)
		goto out;
	for (i = 0; i < cas.n; i++) {
		buf_reset(&dir);
		buf_addf(&dir, "/sys/class/infiniband/%s/ports", cas.v[i]);
		strvec_clear(&ports);
		if (hw_list_dir(&ports, dir.buf) != 0)
			continue;
		for (j = 0; j < ports.n; j++) {
			char	st[64], ph[64], ra[64], ll[64];

			if (hw_read_line(st, sizeof st, "%s/%s/state", dir.buf,
			    ports.v[j]) != 0)
				continue;
			hw_read_line(ph, sizeof ph, "%s/%s/phys_state",
			    dir.buf, ports.v[j]);
			hw_read_line(ra, sizeof ra, "%s/%s/rate", dir.buf,
			    ports.v[j]);
			hw_read_line(ll, sizeof ll, "%s/%s/link_layer",
			    dir.buf, ports.v[j]);
			buf_addf(&b, "Infiniband device '%s' port %s status:\n"
			    "\tstate:\t%s\n\tphys state:\t%s\n\trate:\t%s\n"
			    "\tlink_layer:\t%s\n\n", cas.v[i], ports.v[j], st,
			    ph, ra, ll);
		}
	}
	if (b.len > 0 && facts_parse_ibstat(f, b.buf, &err) != 0)
		facts_note(f, "%s", err.msg);
out:
	prov_err_release(&err);
	strvec_clear(&cas);
	strvec_clear(&ports);
	buf_release(&b);
	buf_release(&dir);
}

static void
hw_net(struct facts *f)
{
	struct strvec	ifs = STRVEC_INIT;
	struct buf	b = BUF_INIT;
	struct prov_err	err = PROV_ERR_INIT;
	size_t		i;

	if (hw_list_dir(&ifs, "/sys/class/net") != 0)
		goto out;
	for (i = 0; i < ifs.n; i++) {
		char	path[PATH_MAX], link[PATH_MAX], sp[32], mt[32];
		char	st[32], ad[64];
		ssize_t	n;
		char	*slot;

		snprintf(path, sizeof path, "/sys/class/net/%s/device",
		    ifs.v[i]);
		if ((n = readlink(path, link, sizeof link - 1)) < 0)
			continue;	/* virtual: no device */
		link[n] = '\0';
		slot = strrchr(link, '/') ? strrchr(link, '/') + 1 : link;
		hw_read_line(sp, sizeof sp, "/sys/class/net/%s/speed",
		    ifs.v[i]);
		hw_read_line(mt, sizeof mt, "/sys/class/net/%s/mtu", ifs.v[i]);
		hw_read_line(st, sizeof st, "/sys/class/net/%s/operstate",
		    ifs.v[i]);
		hw_read_line(ad, sizeof ad, "/sys/class/net/%s/address",
		    ifs.v[i]);
		buf_addf(&b, "%s\t%s\t%s\t%s\t%s\t%s\n", ifs.v[i], sp, mt, st,
		    ad, slot);
	}
	if (b.len > 0 && facts_parse_net(f, b.buf, &err) != 0)
		facts_note(f, "%s", err.msg);
out:
	prov_err_release(&err);
	strvec_clear(&ifs);
	buf_release(&b);
}

static void
hw_block(struct facts *f)
{
	struct strvec	devs = STRVEC_INIT;
	struct buf	b = BUF_INIT;
	struct prov_err	err = PROV_ERR_INIT;
	size_t		i;

	if (hw_list_dir(&devs, "/sys/block") != 0)
		goto out;
	for (i = 0; i < devs.n; i++) {
		char		path[PATH_MAX], sz[32], ro[8], mo[128];
		struct stat	st;

		snprintf(path, sizeof path, "/sys/block/%s/device", devs.v[i]);
		if (stat(path, &st) != 0)
			continue;	/* loop, ram, dm: no device */
		hw_read_line(sz, sizeof sz, "/sys/block/%s/size", devs.v[i]);
		hw_read_line(ro, sizeof ro, "/sys/block/%s/queue/rotational",
		    devs.v[i]);
		hw_read_line(mo, sizeof mo, "/sys/block/%s/device/model",
		    devs.v[i]);
		buf_addf(&b, "%s\t%s\t%s\t%s\n", devs.v[i], sz, ro, mo);
	}
	if (b.len > 0 && facts_parse_block(f, b.buf, &err) != 0)
		facts_note(f, "%s", err.msg);
out:
	prov_err_release(&err);
	strvec_clear(&devs);
	buf_release(&b);
}

int
hw_gather(struct facts **out, const struct catalog *cat,
    const struct hw_opts *o, struct prov_err *err)
{
	struct facts	*f = facts_new();
	struct utsname	 u;
	int		 r = -1;

	*out = NULL;
	if (access("/etc/os-release", R_OK) == 0)
		hw_file(f, "/etc/os-release", facts_parse_os_release);
	else
		hw_file(f, "/usr/lib/os-release", facts_parse_os_release);
	if (uname(&u) == 0) {
		f->kernel = xstrdup(u.release);
		f->node = xstrdup(u.nodename);
		f->arch = xstrdup(u.machine);
	}
	hw_file(f, "/proc/meminfo", facts_parse_meminfo);
	hw_file(f, "/proc/cpuinfo", facts_parse_cpuinfo);
	hw_cpu_topology(f);
	if (hw_pci_scan(f, o, err) != 0)
		goto out;
	hw_nvidia_smi(f, o);
	hw_ib(f);
	hw_net(f);
	hw_block(f);
	facts_finish(f, cat);
	*out = f;
	f = NULL;
	r = 0;
out:
	facts_free(f);
	return r;
}

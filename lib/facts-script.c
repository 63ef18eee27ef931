/*
 * facts-script.c: the script that gathers a node's facts in one run, and
 * its sectioned answer.
 */
#include "compat.h"

#include "facts-int.h"
#include "str.h"

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

/*
 * facts-script.c: the script that gathers a node's facts in one run, and
 * its sectioned answer.
 */
#include "compat.h"

#include "facts-int.h"
#include "frame.h"
#include "remote.h"
#include "str.h"

const char *
facts_script(void)
{
	return remote_facts_sh;	/* templates/remote/facts.sh */
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

/* What a tool wrote to stderr: each line a note ("nvidia-smi: ..."). */
static void
facts_script_stderr(struct facts *f, const char *name, const char *body)
{
	struct strvec	lines = STRVEC_INIT;
	size_t		i, len = strlen(name) - strlen("-stderr");

	strvec_split_lines(&lines, body);
	for (i = 0; i < lines.n && i < 8; i++)
		if (!facts_blank(lines.v[i]))
			facts_note(f, "%.*s: %.160s", (int)len, name,
			    str_trim(lines.v[i]));
	strvec_clear(&lines);
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
	/* verify's own sections (v-) are verify's to judge */
	if (!str_starts(name, "v-") && strlen(name) > 7 &&
	    strcmp(name + strlen(name) - 7, "-stderr") == 0) {
		facts_script_stderr(f, name, body);
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
	else if (strcmp(name, "kernel") == 0 || strcmp(name, "hostname") == 0 ||
	    strcmp(name, "arch") == 0) {
		char	*t = facts_first_line(body), **dst = &f->node;

		if (strcmp(name, "kernel") == 0)
			dst = &f->kernel;
		else if (strcmp(name, "arch") == 0)
			dst = &f->arch;
		if (*t == '\0')
			free(t);
		else {
			free(*dst);
			*dst = t;
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
	else if (strcmp(name, "nvidia-smi") == 0 ||
	    strcmp(name, "nvidia-smi-modes") == 0)
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

struct facts_script_ctx {
	struct facts	*f;
	int		 ended;
};

static void
facts_script_each(void *arg, const char *name, const char *text, long rc)
{
	struct facts_script_ctx	*c = arg;

	if (strcmp(name, "end") == 0)
		c->ended = 1;
	facts_script_section(c->f, name, text, rc);
}

int
facts_parse_script(struct facts *f, const char *out, struct prov_err *err)
{
	struct facts_script_ctx	c = { f, 0 };

	if (frame_each(out, facts_script_each, &c) == 0)
		return prov_err_set(err, PROV_E_PARSE,
		    "the facts script printed no sections");
	if (!c.ended)
		facts_note(f, "the facts script stopped before its end");
	return 0;
}

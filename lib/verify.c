/*
 * verify.c: `provision verify`: gather what every node runs and has, in
 * one SSH round trip per node, and judge it against the plan.  See
 * verify.h.
 *
 * Shapes accepted by the parsers (each says more):
 *
 *	nvidia-smi -q -x	<nvidia_smi_log><driver_version/><gpu id=..>
 *				<ecc_errors><volatile|aggregate>..</gpu>..
 *	sinfo -h -N -o/-O	whitespace-separated columns, one node per line
 *				(a node once per partition)
 *	scontrol -o show node	"NodeName=x Key=value ... Reason=to the end"
 *	chronyc -n tracking	"Leap status     : Normal"
 *	timedatectl show	"NTPSynchronized=yes"
 *	kernel log		"NVRM: Xid (PCI:0000:3b:00): 79, pid=..., ..."
 *	Prometheus		{"data": {"activeTargets": [{"labels": ..}]}}
 *	kubectl get nodes	{"items": [{"metadata": .., "status": ..}]}
 *	all_reduce_perf		result rows, "# Avg bus bandwidth : N"
 *	dcgmi diag		"| Test name | Pass - All |" table rows
 *
 * The script's own sections follow the facts script's convention
 * ("@@facts v-NAME", body, "@@rc N"); facts_parse_script() ignores
 * names it does not know, so both read the same output.
 */
#include "compat.h"

#include <ctype.h>
#include <math.h>
#include <sys/time.h>

#include "buf.h"
#include "catalog.h"
#include "facts.h"
#include "hostlist.h"
#include "http.h"
#include "json.h"
#include "hw.h"
#include "plan.h"
#include "row.h"
#include "render.h"
#include "ssh.h"
#include "str.h"
#include "strvec.h"
#include "verify.h"
#include "xml.h"
#include "yml.h"

/* ------------------------------------------------------------------ */
/* Small helpers */

static int
verify_parse_err(struct prov_err *err, const char *what, const char *fmt,
    ...) __attribute__((format(printf, 3, 4)));

static int
verify_parse_err(struct prov_err *err, const char *what, const char *fmt,
    ...)
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

static void
verify_set(char **dst, const char *s)
{
	char	*c = s != NULL ? xstrdup(s) : NULL;

	free(*dst);
	*dst = c;
}

/* A whole non-negative decimal integer, or -1 ("N/A", "", "12 C"). */
static long
verify_long(const char *s)
{
	long	v;

	if (s == NULL)
		return -1;
	while (*s == ' ' || *s == '\t')
		s++;
	if (!isdigit((unsigned char)*s) || str_to_long(s, &v) != 0 || v < 0)
		return -1;
	return v;
}

/* "Yes" 1, "No" 0, else -1. */
static int
verify_yesno(const char *s)
{
	if (s == NULL)
		return -1;
	if (strcasecmp(s, "yes") == 0)
		return 1;
	if (strcasecmp(s, "no") == 0)
		return 0;
	return -1;
}

/* Split into lines (owned copies), CRs dropped. */
static void
verify_lines(struct strvec *lines, const char *text)
{
	size_t	i, len;

	strvec_split(lines, text, '\n', 0);
	for (i = 0; i < lines->n; i++)
		if ((len = strlen(lines->v[i])) > 0 &&
		    lines->v[i][len - 1] == '\r')
			lines->v[i][len - 1] = '\0';
}

/* Split at blanks and tabs, skipping empty fields. */
static void
verify_words(struct strvec *w, const char *s)
{
	const char	*p = s;

	while (*p != '\0') {
		size_t	n;

		p += strspn(p, " \t");
		n = strcspn(p, " \t");
		if (n == 0)
			break;
		strvec_push_nodup(w, xstrndup(p, n));
		p += n;
	}
}

/* The first line of s, at most 200 bytes (caller frees). */
static char *
verify_first_line(const char *s)
{
	const char	*e;

	if (s == NULL)
		return xstrdup("");
	s += strspn(s, " \t\r\n");
	e = s + strcspn(s, "\r\n");
	if (e - s > 200)
		e = s + 200;
	return xstrndup(s, (size_t)(e - s));
}

/* Lines of s joined by "; ", at most `max` bytes (caller frees). */
static char *
verify_oneline(const char *s, size_t max)
{
	struct strvec	lines = STRVEC_INIT;
	struct buf	b = BUF_INIT;
	size_t		i;

	verify_lines(&lines, s != NULL ? s : "");
	for (i = 0; i < lines.n; i++) {
		char	*l = str_trim(lines.v[i]);

		if (*l == '\0')
			continue;
		if (b.len > 0)
			buf_adds(&b, "; ");
		buf_adds(&b, l);
		if (b.len > max)
			break;
	}
	if (b.len > max) {
		buf_setlen(&b, max);
		buf_adds(&b, "...");
	}
	strvec_clear(&lines);
	return buf_detach(&b, NULL);
}

static double
verify_now(void)
{
	struct timeval	tv;

	gettimeofday(&tv, NULL);
	return (double)tv.tv_sec + (double)tv.tv_usec / 1e6;
}

/* ------------------------------------------------------------------ */
/* nvidia-smi -q -x */

/* A new <gpu>, its counters unknown until a leaf says otherwise. */
static struct verify_gpu *
verify_nv_gpu(struct verify_nvsmi *nv, const char *id)
{
	struct verify_gpu	*g;
	char			 norm[32];

	ALLOC_GROW(nv->gpus, nv->n + 1, nv->alloc);
	g = &nv->gpus[nv->n++];
	memset(g, 0, sizeof *g);
	g->ecc_vol_unc = g->ecc_agg_unc = g->ecc_vol_cor = g->ecc_agg_cor = -1;
	g->retired_sbe = g->retired_dbe = g->remap_unc = -1;
	g->retire_pending = g->remap_pending = g->remap_failure = -1;
	if (id != NULL && facts_slot_norm(norm, sizeof norm, id) == 0)
		g->bus_id = xstrdup(norm);
	return g;
}

/* Add a counter; "N/A" leaves it unknown. */
static void
verify_nv_add(long *dst, const char *text)
{
	long	v = verify_long(text);

	if (v < 0)
		return;
	*dst = *dst < 0 ? v : *dst + v;
}

static void
verify_nv_ecc(struct verify_gpu *g, const char *rest, const char *text)
{
	int		 vol = str_starts(rest, "volatile/");
	const char	*leafname = strrchr(rest, '/');

	if (!vol && !str_starts(rest, "aggregate/"))
		return;
	leafname = leafname != NULL ? leafname + 1 : rest;
	/* old layout: single_bit/double_bit blocks with a total each */
	if (strstr(rest, "/single_bit/") != NULL) {
		if (strcmp(leafname, "total") == 0)
			verify_nv_add(vol ? &g->ecc_vol_cor : &g->ecc_agg_cor,
			    text);
		return;
	}
	if (strstr(rest, "/double_bit/") != NULL) {
		if (strcmp(leafname, "total") == 0)
			verify_nv_add(vol ? &g->ecc_vol_unc : &g->ecc_agg_unc,
			    text);
		return;
	}
	/* new layout: sram_/dram_ (un)correctable leaves */
	if (strstr(leafname, "uncorrectable") != NULL)
		verify_nv_add(vol ? &g->ecc_vol_unc : &g->ecc_agg_unc, text);
	else if (strstr(leafname, "correctable") != NULL)
		verify_nv_add(vol ? &g->ecc_vol_cor : &g->ecc_agg_cor, text);
}

/* One leaf of a <gpu>, by its path below it ("ecc_mode/current_ecc"). */
static void
verify_nv_leaf(struct verify_gpu *g, const char *rest, const char *text)
{
	char	norm[32];

	if (strcmp(rest, "pci/pci_bus_id") == 0) {
		if (facts_slot_norm(norm, sizeof norm, text) == 0)
			verify_set(&g->bus_id, norm);
	} else if (strcmp(rest, "product_name") == 0)
		verify_set(&g->name, text);
	else if (strcmp(rest, "persistence_mode") == 0)
		verify_set(&g->persistence, text);
	else if (strcmp(rest, "ecc_mode/current_ecc") == 0)
		verify_set(&g->ecc_mode, strcmp(text, "N/A") == 0 ? NULL :
		    text);
	else if (str_starts(rest, "ecc_errors/"))
		verify_nv_ecc(g, rest + strlen("ecc_errors/"), text);
	else if (strcmp(rest, "retired_pages/multiple_single_bit_retirement/"
	    "retired_count") == 0)
		verify_nv_add(&g->retired_sbe, text);
	else if (strcmp(rest, "retired_pages/double_bit_retirement/"
	    "retired_count") == 0)
		verify_nv_add(&g->retired_dbe, text);
	else if (strcmp(rest, "retired_pages/pending_retirement") == 0 ||
	    strcmp(rest, "retired_pages/pending_blacklist") == 0) {
		int	y = verify_yesno(text);

		if (y > g->retire_pending)
			g->retire_pending = y;
	} else if (strcmp(rest, "remapped_rows/remapped_row_unc") == 0)
		verify_nv_add(&g->remap_unc, text);
	else if (strcmp(rest, "remapped_rows/remapped_row_pending") == 0)
		g->remap_pending = verify_yesno(text);
	else if (strcmp(rest, "remapped_rows/remapped_row_failure") == 0)
		g->remap_failure = verify_yesno(text);
}

/* Every leaf below x, in document order, with its path in `path`. */
static void
verify_nv_walk(struct verify_gpu *g, const struct xml_node *x,
    struct buf *path)
{
	const struct xml_node	*c;
	size_t			 len = path->len;

	for (c = x->child; c != NULL; c = c->next) {
		if (len > 0)
			buf_addch(path, '/');
		buf_adds(path, c->name);
		if (c->child == NULL)
			verify_nv_leaf(g, path->buf, c->text);
		else
			verify_nv_walk(g, c, path);
		buf_setlen(path, len);
	}
}

int
verify_parse_nvsmi_xml(struct verify_nvsmi *nv, const char *text,
    struct prov_err *err)
{
	struct xml_node		*root = NULL, *x;
	struct buf		 path = BUF_INIT;
	const char		*v;
	int			 r = -1;

	nv->attached = -1;
	if (xml_parse(&root, "nvidia-smi -q -x", text, err) != 0)
		goto out;
	if (strcmp(root->name, "nvidia_smi_log") != 0) {
		verify_parse_err(err, "nvidia-smi -q -x", "the root element "
		    "is not 'nvidia_smi_log'");
		goto out;
	}
	if ((v = xml_path(root, "driver_version")) != NULL)
		verify_set(&nv->driver_version, v);
	if ((v = xml_path(root, "attached_gpus")) != NULL)
		nv->attached = verify_long(v);
	for (x = root->child; x != NULL; x = x->next) {
		if (strcmp(x->name, "gpu") != 0)
			continue;
		verify_nv_walk(verify_nv_gpu(nv, x->id), x, &path);
	}
	r = 0;
out:
	xml_free(root);
	buf_release(&path);
	return r;
}

void
verify_nvsmi_release(struct verify_nvsmi *nv)
{
	size_t	i;

	if (nv == NULL)
		return;
	for (i = 0; i < nv->n; i++) {
		free(nv->gpus[i].bus_id);
		free(nv->gpus[i].name);
		free(nv->gpus[i].persistence);
		free(nv->gpus[i].ecc_mode);
	}
	free(nv->gpus);
	free(nv->driver_version);
	memset(nv, 0, sizeof *nv);
}

/* ------------------------------------------------------------------ */
/* Slurm */

static struct verify_snode *
verify_slurm_get(struct verify_slurm *s, const char *name)
{
	struct verify_snode	*n = verify_slurm_find(s, name);

	if (n != NULL)
		return n;
	ALLOC_GROW(s->v, s->n + 1, s->alloc);
	n = &s->v[s->n++];
	memset(n, 0, sizeof *n);
	n->name = xstrdup(name);
	return n;
}

struct verify_snode *
verify_slurm_find(const struct verify_slurm *s, const char *name)
{
	size_t	i;

	for (i = 0; i < s->n; i++)
		if (strcmp(s->v[i].name, name) == 0)
			return &s->v[i];
	return NULL;
}

void
verify_slurm_release(struct verify_slurm *s)
{
	size_t	i;

	if (s == NULL)
		return;
	for (i = 0; i < s->n; i++) {
		free(s->v[i].name);
		free(s->v[i].state);
		free(s->v[i].gres);
		free(s->v[i].reason);
	}
	free(s->v);
	memset(s, 0, sizeof *s);
}

int
verify_parse_sinfo(struct verify_slurm *s, const char *text,
    const char *fields, struct prov_err *err)
{
	struct strvec	lines = STRVEC_INIT, fl = STRVEC_INIT, w = STRVEC_INIT;
	long		inode, istate, igres;
	size_t		i;
	int		r = -1;

	strvec_split(&fl, fields, ',', 1);
	inode = strvec_find(&fl, "node");
	istate = strvec_find(&fl, "state");
	igres = strvec_find(&fl, "gres");
	if (inode < 0) {
		verify_parse_err(err, "sinfo", "no 'node' column in '%s'",
		    fields);
		goto out;
	}
	verify_lines(&lines, text);
	for (i = 0; i < lines.n; i++) {
		struct verify_snode	*n;

		strvec_clear(&w);
		verify_words(&w, lines.v[i]);
		if (w.n == 0)
			continue;
		if (w.n < fl.n) {
			verify_parse_err(err, "sinfo", "line %zu has %zu "
			    "columns, not %zu", i + 1, w.n, fl.n);
			goto out;
		}
		if (!str_is_hostname(w.v[inode])) {
			verify_parse_err(err, "sinfo", "'%s' on line %zu is "
			    "not a node name", w.v[inode], i + 1);
			goto out;
		}
		n = verify_slurm_get(s, w.v[inode]);
		if (istate >= 0 && n->state == NULL)
			n->state = xstrdup(w.v[istate]);
		if (igres >= 0 && n->gres == NULL)
			n->gres = xstrdup(w.v[igres]);
	}
	r = 0;
out:
	strvec_clear(&w);
	strvec_clear(&fl);
	strvec_clear(&lines);
	return r;
}

int
verify_parse_scontrol(struct verify_slurm *s, const char *text,
    struct prov_err *err)
{
	struct strvec	lines = STRVEC_INIT, w = STRVEC_INIT;
	size_t		i, j, nodes = 0;
	int		r = -1;

	verify_lines(&lines, text);
	for (i = 0; i < lines.n; i++) {
		struct verify_snode	*n = NULL;
		const char		*reason;
		char			*l = str_trim(lines.v[i]);

		if (*l == '\0')
			continue;
		if (!str_starts(l, "NodeName=")) {
			verify_parse_err(err, "scontrol show node", "line %zu "
			    "does not start with 'NodeName='", i + 1);
			goto out;
		}
		/* Reason= runs to the end of the line, blanks and all */
		reason = strstr(l, " Reason=");
		strvec_clear(&w);
		if (reason != NULL) {
			char	*head = xstrndup(l, (size_t)(reason - l));

			verify_words(&w, head);
			free(head);
		} else
			verify_words(&w, l);
		for (j = 0; j < w.n; j++) {
			char	*eq = strchr(w.v[j], '=');

			if (eq == NULL)
				continue;	/* in OS=Linux 6.1 #1 SMP */
			*eq = '\0';
			if (strcmp(w.v[j], "NodeName") == 0) {
				if (!str_is_hostname(eq + 1)) {
					verify_parse_err(err, "scontrol show "
					    "node", "bad NodeName '%s' on line "
					    "%zu", eq + 1, i + 1);
					goto out;
				}
				n = verify_slurm_get(s, eq + 1);
				nodes++;
			} else if (n == NULL)
				continue;
			else if (strcmp(w.v[j], "State") == 0)
				verify_set(&n->state, eq + 1);
			else if (strcmp(w.v[j], "Gres") == 0)
				verify_set(&n->gres, eq + 1);
		}
		if (n != NULL && reason != NULL)
			verify_set(&n->reason, str_trim((char *)reason + 8));
	}
	if (nodes == 0 && strspn(text, " \t\r\n") != strlen(text)) {
		verify_parse_err(err, "scontrol show node", "no nodes");
		goto out;
	}
	r = 0;
out:
	strvec_clear(&w);
	strvec_clear(&lines);
	return r;
}

long
verify_gres_gpus(const char *gres)
{
	struct strvec	parts = STRVEC_INIT;
	long		total = 0;
	size_t		i;

	if (gres == NULL)
		return 0;
	strvec_split(&parts, gres, ',', 1);
	for (i = 0; i < parts.n; i++) {
		char	*p = parts.v[i], *c, *last;
		long	 v;

		p[strcspn(p, "(")] = '\0';	/* "(S:0-3)", "(IDX:0,3)" */
		if (!str_starts(p, "gpu"))
			continue;
		if (strcmp(p, "gpu") == 0) {
			total += 1;
			continue;
		}
		if (p[3] != ':')
			continue;
		last = strrchr(p, ':');
		c = last + 1;
		if (str_to_long(c, &v) == 0 && v >= 0)
			total += v;
		else
			total += 1;	/* "gpu:a100" without a count: one */
	}
	strvec_clear(&parts);
	return total;
}

int
verify_slurm_state_ok(const char *state, const char **why)
{
	static const struct {
		const char	*s;
		const char	*why;
	} bad[] = {
		{ "DOWN", "down" }, { "DRAIN", "drained" },
		{ "DRAINED", "drained" }, { "DRAINING", "draining" },
		{ "DRNG", "draining" }, { "FAIL", "failed" },
		{ "FAILING", "failing" }, { "MAINT", "in maintenance" },
		{ "UNK", "state unknown" }, { "UNKNOWN", "state unknown" },
		{ "NOT_RESPONDING", "not responding" },
		{ "FUTURE", "not yet in service" }, { "INVAL", "invalid" },
		{ "NO_RESPOND", "not responding" },
		{ "POWERED_DOWN", "powered down" },
		{ "POWER_DOWN", "powered down" }, { "REBOOT_ISSUED",
		"rebooting" }, { "PLANNED", "planned" },
	};
	static const char *const good[] = { "IDLE", "ALLOC", "ALLOCATED",
	    "MIX", "MIXED", "COMP", "COMPLETING", "RESV", "RESERVED",
	    "DYNAMIC_NORM", "CLOUD", "POWERED_ON", "PLND", NULL };
	struct strvec	 parts = STRVEC_INIT;
	char		*s, *p;
	size_t		 i, k;
	int		 ok = 1, base = 0, word = 0;

	*why = NULL;
	if (state == NULL || *state == '\0') {
		*why = "no state";
		return 0;
	}
	s = xstrdup(state);
	for (p = s; *p != '\0'; p++)
		*p = (char)toupper((unsigned char)*p);
	/* compact suffixes: * not responding, ~ powered off, # powering
	 * up, ! pending power down, % powering down, $ maintenance,
	 * @ pending reboot, ^ rebooting, - planned */
	p = s + strlen(s);
	while (p > s && strchr("*~#!%$@^-", p[-1]) != NULL) {
		switch (p[-1]) {
		case '*':
			*why = "not responding";
			ok = 0;
			break;
		case '~':
		case '!':
		case '%':
			*why = "powered down";
			ok = 0;
			break;
		case '$':
			*why = "in maintenance";
			ok = 0;
			break;
		case '@':
		case '^':
			*why = "rebooting";
			ok = 0;
			break;
		default:
			break;
		}
		*--p = '\0';
	}
	strvec_split(&parts, s, '+', 1);
	for (i = 0; i < parts.n; i++) {
		/* the state's own words say more than a suffix flag */
		for (k = 0; k < ARRAY_SIZE(bad); k++)
			if (strcmp(parts.v[i], bad[k].s) == 0) {
				if (ok || !word)
					*why = bad[k].why;
				ok = 0;
				word = 1;
			}
		for (k = 0; good[k] != NULL; k++)
			if (strcmp(parts.v[i], good[k]) == 0 && i == 0)
				base = 1;
	}
	if (ok && !base) {
		*why = "not idle, allocated or mixed";
		ok = 0;
	}
	strvec_clear(&parts);
	free(s);
	return ok;
}

/* ------------------------------------------------------------------ */
/* Time */

void
verify_time_release(struct verify_time *t)
{
	if (t == NULL)
		return;
	free(t->detail);
	t->detail = NULL;
}

int
verify_parse_chrony(struct verify_time *t, const char *text,
    struct prov_err *err)
{
	struct strvec	 lines = STRVEC_INIT;
	const char	*leap = NULL;
	char		*stratum = NULL, *ref = NULL;
	size_t		 i;
	int		 r = -1;

	t->source = "chrony";
	t->synced = 0;
	t->offset_s = -1;
	verify_lines(&lines, text);
	for (i = 0; i < lines.n; i++) {
		char	*l = lines.v[i], *c = strchr(l, ':'), *k, *v;

		if (c == NULL)
			continue;
		*c = '\0';
		k = str_trim(l);
		v = str_trim(c + 1);
		if (strcmp(k, "Leap status") == 0)
			leap = v;
		else if (strcmp(k, "Stratum") == 0)
			verify_set(&stratum, v);
		else if (strcmp(k, "Reference ID") == 0)
			verify_set(&ref, v);
		else if (strcmp(k, "System time") == 0) {
			double	 d;
			char	*end;

			d = strtod(v, &end);
			if (end != v && isfinite(d))
				t->offset_s = fabs(d);
		}
	}
	if (leap == NULL) {
		verify_parse_err(err, "chronyc tracking", "no 'Leap status' "
		    "line");
		goto out;
	}
	t->synced = strcasecmp(leap, "Not synchronised") != 0;
	free(t->detail);
	t->detail = xasprintf("leap status %s, stratum %s, reference %s",
	    leap, stratum != NULL ? stratum : "?", ref != NULL ? ref : "?");
	r = 0;
out:
	free(stratum);
	free(ref);
	strvec_clear(&lines);
	return r;
}

int
verify_parse_timedatectl(struct verify_time *t, const char *text,
    struct prov_err *err)
{
	struct strvec	lines = STRVEC_INIT;
	size_t		i;
	int		found = 0;

	t->source = "timedatectl";
	t->synced = 0;
	t->offset_s = -1;
	verify_lines(&lines, text);
	for (i = 0; i < lines.n; i++) {
		char	*l = str_trim(lines.v[i]), *v = NULL;

		if (str_starts(l, "NTPSynchronized="))
			v = l + strlen("NTPSynchronized=");
		else if (str_starts(l, "System clock synchronized:"))
			v = str_trim(l + strlen("System clock "
			    "synchronized:"));
		else if (str_starts(l, "NTP synchronized:"))
			v = str_trim(l + strlen("NTP synchronized:"));
		if (v == NULL)
			continue;
		found = 1;
		t->synced = strcmp(v, "yes") == 0;
		free(t->detail);
		t->detail = xasprintf("synchronized: %s", v);
	}
	strvec_clear(&lines);
	if (!found)
		return verify_parse_err(err, "timedatectl", "no "
		    "'NTPSynchronized' or 'System clock synchronized' line");
	return 0;
}

/* ------------------------------------------------------------------ */
/* XID */

int
verify_xid_fatal(long code)
{
	static const long	fatal[] = { 48, 61, 62, 64, 74, 79, 92, 95,
	    119, 120, 140 };
	size_t			i;

	for (i = 0; i < ARRAY_SIZE(fatal); i++)
		if (fatal[i] == code)
			return 1;
	return 0;
}

int
verify_parse_xid(struct verify_xid *x, const char *text)
{
	struct strvec	lines = STRVEC_INIT;
	size_t		i;
	long		best = 0;

	memset(x, 0, sizeof *x);
	x->worst = -1;
	verify_lines(&lines, text);
	for (i = 0; i < lines.n; i++) {
		const char	*p = strstr(lines.v[i], "NVRM: Xid");
		char		*end;
		long		 code;

		if (p == NULL)
			continue;
		p = strstr(p, "):");
		if (p == NULL)
			continue;
		p += 2;
		while (*p == ' ')
			p++;
		if (!isdigit((unsigned char)*p))
			continue;
		errno = 0;
		code = strtol(p, &end, 10);
		if (errno != 0 || code < 0)
			continue;
		x->lines++;
		x->codes[code > 255 ? 255 : code]++;
	}
	for (i = 0; i < ARRAY_SIZE(x->codes); i++)
		if (x->codes[i] > best) {
			best = x->codes[i];
			x->worst = (long)i;
		}
	strvec_clear(&lines);
	return 0;
}

/* ------------------------------------------------------------------ */
/* JSON answers (yml_load_json: JSON is YAML) */

void
verify_targets_release(struct verify_targets *t)
{
	size_t	i;

	if (t == NULL)
		return;
	for (i = 0; i < t->n; i++) {
		free(t->v[i].job);
		free(t->v[i].node);
		free(t->v[i].instance);
		free(t->v[i].health);
		free(t->v[i].error);
	}
	free(t->v);
	memset(t, 0, sizeof *t);
}

int
verify_parse_prom_targets(struct verify_targets *t, const char *json,
    size_t len, struct prov_err *err)
{
	struct yml_doc		 doc;
	const struct yml_node	*data, *act;
	const char		*st;
	unsigned		 i;
	int			 r = -1;

	if (yml_load_json(&doc, "prometheus targets", json, len, err) != 0)
		goto out;
	st = yml_map_str(doc.root, "status");
	data = doc.root != NULL && doc.root->kind == YML_MAP ?
	    yml_map_get(doc.root, "data") : NULL;
	if (st == NULL || strcmp(st, "success") != 0 || data == NULL ||
	    data->kind != YML_MAP) {
		verify_parse_err(err, "prometheus targets", "not a successful "
		    "/api/v1/targets answer (status %s)", st ? st : "missing");
		goto out;
	}
	act = yml_map_get(data, "activeTargets");
	if (act == NULL || act->kind != YML_SEQ) {
		verify_parse_err(err, "prometheus targets", "no "
		    "'activeTargets' list");
		goto out;
	}
	for (i = 0; i < act->n; i++) {
		const struct yml_node	*o = act->u.items[i], *lab;
		struct verify_target	*x;

		if (o->kind != YML_MAP)
			continue;
		lab = yml_map_get(o, "labels");
		ALLOC_GROW(t->v, t->n + 1, t->alloc);
		x = &t->v[t->n++];
		memset(x, 0, sizeof *x);
		verify_set(&x->job, yml_map_str(lab, "job"));
		verify_set(&x->node, yml_map_str(lab, "node"));
		verify_set(&x->instance, yml_map_str(lab, "instance"));
		verify_set(&x->health, yml_map_str(o, "health"));
		verify_set(&x->error, yml_map_str(o, "lastError"));
	}
	r = 0;
out:
	yml_doc_release(&doc);
	return r;
}

void
verify_k8s_release(struct verify_k8s *k)
{
	size_t	i;

	if (k == NULL)
		return;
	for (i = 0; i < k->n; i++) {
		free(k->v[i].name);
		free(k->v[i].ready_reason);
	}
	free(k->v);
	memset(k, 0, sizeof *k);
}

int
verify_parse_k8s_nodes(struct verify_k8s *k, const char *json, size_t len,
    struct prov_err *err)
{
	struct yml_doc		 doc;
	const struct yml_node	*items;
	unsigned		 i, j;
	int			 r = -1;

	if (yml_load_json(&doc, "kubectl get nodes", json, len, err) != 0)
		goto out;
	items = doc.root != NULL && doc.root->kind == YML_MAP ?
	    yml_map_get(doc.root, "items") : NULL;
	if (items == NULL || items->kind != YML_SEQ) {
		verify_parse_err(err, "kubectl get nodes", "no 'items' list");
		goto out;
	}
	for (i = 0; i < items->n; i++) {
		const struct yml_node	*o = items->u.items[i], *md, *st;
		const struct yml_node	*cond, *alloc;
		struct verify_k8s_node	*x;
		const char		*name, *g;

		if (o->kind != YML_MAP)
			continue;
		md = yml_map_get(o, "metadata");
		st = yml_map_get(o, "status");
		if ((name = yml_map_str(md, "name")) == NULL)
			continue;
		ALLOC_GROW(k->v, k->n + 1, k->alloc);
		x = &k->v[k->n++];
		memset(x, 0, sizeof *x);
		x->name = xstrdup(name);
		x->ready = -1;
		x->gpus = -1;
		cond = st != NULL && st->kind == YML_MAP ?
		    yml_map_get(st, "conditions") : NULL;
		for (j = 0; cond != NULL && cond->kind == YML_SEQ &&
		    j < cond->n; j++) {
			const struct yml_node	*c = cond->u.items[j];
			const char		*ty = yml_map_str(c, "type");
			const char		*s = yml_map_str(c, "status");

			if (ty == NULL || strcmp(ty, "Ready") != 0)
				continue;
			x->ready = s != NULL && strcmp(s, "True") == 0;
			verify_set(&x->ready_reason, yml_map_str(c,
			    "message") != NULL ? yml_map_str(c, "message") :
			    yml_map_str(c, "reason"));
		}
		alloc = st != NULL && st->kind == YML_MAP ?
		    yml_map_get(st, "allocatable") : NULL;
		if ((g = yml_map_str(alloc, "nvidia.com/gpu")) != NULL)
			x->gpus = verify_long(g);
	}
	r = 0;
out:
	yml_doc_release(&doc);
	return r;
}

/* ------------------------------------------------------------------ */
/* nccl-tests, dcgmi */

static int
verify_is_num(const char *s, double *out)
{
	char	*end;
	double	 v;

	if (s == NULL || *s == '\0')
		return 0;
	errno = 0;
	v = strtod(s, &end);
	if (end == s || *end != '\0' || errno != 0 || !isfinite(v))
		return 0;
	*out = v;
	return 1;
}

int
verify_parse_nccl(struct verify_nccl *r, const char *text,
    struct prov_err *err)
{
	struct strvec	lines = STRVEC_INIT, w = STRVEC_INIT;
	size_t		i;
	int		rc = -1, header = 0;

	r->avg_busbw = -1;
	r->peak_busbw = -1;
	r->wrong = -1;
	r->sizes = 0;
	verify_lines(&lines, text);
	for (i = 0; i < lines.n; i++) {
		char	*l = str_trim(lines.v[i]);
		double	 size, bw_out, bw_in, wr;
		size_t	 n;

		if (str_starts(l, "#")) {
			const char	*p = strstr(l, "Avg bus bandwidth");

			if (strstr(l, "busbw") != NULL)
				header = 1;
			if (p != NULL && (p = strchr(p, ':')) != NULL) {
				double	v;
				char	*t = xstrdup(p + 1);

				if (verify_is_num(str_trim(t), &v))
					r->avg_busbw = v;
				free(t);
			}
			continue;
		}
		strvec_clear(&w);
		verify_words(&w, l);
		n = w.n;
		/* size count type redop [root] time algbw busbw #wrong
		 * time algbw busbw #wrong */
		if (n < 12 || !verify_is_num(w.v[0], &size) ||
		    !verify_is_num(w.v[n - 6], &bw_out) ||
		    !verify_is_num(w.v[n - 2], &bw_in))
			continue;
		r->sizes++;
		if (bw_out > r->peak_busbw)
			r->peak_busbw = bw_out;
		if (bw_in > r->peak_busbw)
			r->peak_busbw = bw_in;
		if (verify_is_num(w.v[n - 5], &wr))
			r->wrong = (r->wrong < 0 ? 0 : r->wrong) + (long)wr;
		if (verify_is_num(w.v[n - 1], &wr))
			r->wrong = (r->wrong < 0 ? 0 : r->wrong) + (long)wr;
	}
	if (!header || (r->sizes == 0 && r->avg_busbw < 0)) {
		verify_parse_err(err, "all_reduce_perf", "no result table");
		goto out;
	}
	rc = 0;
out:
	strvec_clear(&w);
	strvec_clear(&lines);
	return rc;
}

void
verify_dcgm_release(struct verify_dcgm *d)
{
	if (d == NULL)
		return;
	strvec_clear(&d->failed);
}

int
verify_parse_dcgmi(struct verify_dcgm *d, const char *text,
    struct prov_err *err)
{
	struct strvec	lines = STRVEC_INIT, cells = STRVEC_INIT;
	size_t		i, rows = 0;

	d->pass = d->fail = d->warn = d->skip = 0;
	verify_lines(&lines, text);
	for (i = 0; i < lines.n; i++) {
		char	*l = str_trim(lines.v[i]), *name, *res;

		if (l[0] != '|')
			continue;
		strvec_clear(&cells);
		strvec_split(&cells, l + 1, '|', 0);
		if (cells.n < 2)
			continue;
		name = str_trim(cells.v[0]);
		res = str_trim(cells.v[1]);
		if (*name == '\0' || str_starts(name, "-"))
			continue;
		if (strncasecmp(res, "pass", 4) == 0)
			d->pass++;
		else if (strncasecmp(res, "fail", 4) == 0) {
			d->fail++;
			strvec_pushf(&d->failed, "%s: %s", name, res);
		} else if (strncasecmp(res, "warn", 4) == 0)
			d->warn++;
		else if (strncasecmp(res, "skip", 4) == 0)
			d->skip++;
		else
			continue;
		rows++;
	}
	strvec_clear(&cells);
	strvec_clear(&lines);
	if (rows == 0)
		return verify_parse_err(err, "dcgmi diag", "no test results");
	return 0;
}

/* ------------------------------------------------------------------ */
/* A node's output */

void
verify_node_release(struct verify_node *n)
{
	size_t	i;

	if (n == NULL)
		return;
	for (i = 0; i < n->nsecs; i++) {
		free(n->secs[i].name);
		free(n->secs[i].body);
	}
	free(n->secs);
	free(n->error);
	facts_free(n->facts);
	n->secs = NULL;
	n->nsecs = n->secs_alloc = 0;
	n->error = NULL;
	n->facts = NULL;
}

const struct verify_sec *
verify_node_sec(const struct verify_node *n, const char *name)
{
	size_t	i;

	for (i = 0; i < n->nsecs; i++)
		if (strcmp(n->secs[i].name, name) == 0)
			return &n->secs[i];
	return NULL;
}

static void
verify_node_add(struct verify_node *n, const char *name, struct buf *body,
    long rc)
{
	struct verify_sec	*s;

	ALLOC_GROW(n->secs, n->nsecs + 1, n->secs_alloc);
	s = &n->secs[n->nsecs++];
	s->name = xstrdup(name);
	s->body = buf_detach(body, NULL);
	s->rc = rc;
}

int
verify_node_parse(struct verify_node *n, const char *out,
    struct prov_err *err)
{
	struct strvec	 lines = STRVEC_INIT;
	struct buf	 body = BUF_INIT;
	char		*name = NULL;
	long		 rc = -1;
	size_t		 i;
	int		 r = -1;

	facts_free(n->facts);
	n->facts = facts_new();
	if (facts_parse_script(n->facts, out, err) != 0)
		goto out;
	verify_lines(&lines, out);
	for (i = 0; i <= lines.n; i++) {
		const char	*l = i < lines.n ? lines.v[i] : NULL;

		if (l != NULL && name != NULL && str_starts(l, "@@rc ")) {
			if (str_to_long(l + 5, &rc) != 0)
				rc = -1;
			continue;
		}
		if (l != NULL && !str_starts(l, "@@facts ")) {
			if (name != NULL) {
				buf_adds(&body, l);
				buf_addch(&body, '\n');
			}
			continue;
		}
		if (name != NULL)
			verify_node_add(n, name, &body, rc);
		free(name);
		name = NULL;
		buf_reset(&body);
		rc = -1;
		if (l != NULL && str_starts(l, "@@facts v-"))
			name = xstrdup(l + strlen("@@facts v-"));
	}
	r = 0;
out:
	free(name);
	buf_release(&body);
	strvec_clear(&lines);
	return r;
}

/* ------------------------------------------------------------------ */
/* What the plan expects of a node */

static int
verify_is_slurm(const struct plan *p)
{
	return p->sw.orchestrator != NULL &&
	    strcmp(p->sw.orchestrator, "slurm") == 0;
}

static int
verify_is_k8s(const struct plan *p)
{
	return p->sw.orchestrator != NULL &&
	    strcmp(p->sw.orchestrator, "kubernetes") == 0;
}

static long
verify_gpus(const struct plan_node *n)
{
	return n->hw != NULL && n->hw->ngpus > 0 ? n->hw->ngpus : 0;
}

struct verify_daemon {
	const char	*label;
	const char	*regex;		/* ERE on the command's first word */
};

/* The daemons the plan puts on node n (at most 12). */
static size_t
verify_daemons(const struct plan *p, const struct plan_node *n,
    struct verify_daemon *d)
{
	const struct plan_node	*head = render_head(p);
	const char		*part;
	const char		*rt = p->sw.runtime;
	size_t			 k = 0;

	if (verify_is_slurm(p)) {
		int	compute = plan_slurm_compute(p, n, &part);

		if (n == head)
			d[k++] = (struct verify_daemon){ "slurmctld",
			    "slurmctld" };
		if (compute)
			d[k++] = (struct verify_daemon){ "slurmd", "slurmd" };
		if (n == head || compute)
			d[k++] = (struct verify_daemon){ "munged", "munged" };
	}
	if (verify_is_k8s(p)) {
		d[k++] = (struct verify_daemon){ "kubelet", "kubelet" };
		if (n == head)
			d[k++] = (struct verify_daemon){ "kube-apiserver",
			    "kube-apiserver" };
	}
	if (rt != NULL && strcmp(rt, "containerd") == 0)
		d[k++] = (struct verify_daemon){ "containerd", "containerd" };
	else if (rt != NULL && strcmp(rt, "docker") == 0)
		d[k++] = (struct verify_daemon){ "dockerd", "dockerd" };
	if (p->sw.node_exporter)
		d[k++] = (struct verify_daemon){ "node_exporter",
		    "prometheus-node-exporter|node_exporter" };
	if (p->sw.dcgm_exporter && verify_gpus(n) > 0)
		d[k++] = (struct verify_daemon){ "dcgm-exporter",
		    "dcgm-exporter" };
	if (p->sw.prometheus != NULL && strcmp(p->sw.prometheus,
	    n->name) == 0)
		d[k++] = (struct verify_daemon){ "prometheus", "prometheus" };
	return k;
}

/* The node's address on net (NULL: not on it). */
static const char *
verify_net_addr(const struct plan *p, const struct plan_node *n,
    const struct plan_net *net)
{
	const char	*a = plan_node_addr(n, net->name);
	uint32_t	 ip;

	if (a != NULL)
		return a;
	if (n->address == NULL || plan_parse_ipv4(n->address, &ip) != 0)
		return NULL;
	if (net->role != NULL && strcmp(net->role, "management") == 0)
		return n->address;
	if (net->cidr != NULL && (ip & net->mask) == net->addr) {
		size_t	i;

		/* the management net is the one whose cidr holds it, unless
		 * another net has the management role */
		for (i = 0; i < p->nnets; i++)
			if (p->nets[i].role != NULL &&
			    strcmp(p->nets[i].role, "management") == 0 &&
			    &p->nets[i] != net)
				return NULL;
		return n->address;
	}
	return NULL;
}

/* ------------------------------------------------------------------ */
/* The script */

/*
 * Prefixed to the facts script: the node's clock, first, so it is read
 * as close to the connection as can be.  Sections after the facts:
 * see verify_script().
 */
static const char verify_script_head[] =
"echo '@@facts v-clock'; date +%s.%N; echo \"@@rc $?\"\n";

static const char verify_script_funcs[] =
"vs() { echo \"@@facts v-$1\"; }\n"
"vr() { echo \"@@rc $?\"; }\n"
"vd() {\n"
"\tif ! command -v pgrep >/dev/null 2>&1; then\n"
"\t\techo \"$1 unknown -\"; return\n"
"\tfi\n"
"\tp=$(pgrep -f \"^([^ ]*/)?($2)( |\\$)\" | head -n 1)\n"
"\tif [ -n \"$p\" ]; then echo \"$1 running $p\"\n"
"\telse echo \"$1 stopped -\"; fi\n"
"}\n"
"vjob() {\n"
"\tvj_o=$(timeout \"$VJT\" srun ${1:+-p \"$1\"} -N \"$3\" -n \"$3\" "
    "--ntasks-per-node=1 -w \"$2\" -t 2 --immediate=30 "
    "-J provision-verify sh -c 'echo \"verify-ok $SLURMD_NODENAME\"' "
    "</dev/null 2>&1)\n"
"\tvj_rc=$?\n"
"\tprintf '%s\\t%s\\t%s\\t%s\\n' \"$1\" \"$2\" \"$vj_rc\" "
    "\"$(printf '%s' \"$vj_o\" | tr '\\t\\n' '  ' | cut -c1-1500)\"\n"
"\treturn $vj_rc\n"
"}\n"
/*
 * A job across nodes of which one is dead holds the live ones in
 * "completing" a while after it fails, and Slurm may leave a job queued
 * for them until its next backfill pass (30 s): longer than --immediate.
 * So each node's own job waits (30 s at most) for its node to be free;
 * one still completing then (its slurmd gone) fails without a job.
 */
"vfree() {\n"
"\tvf=0\n"
"\twhile [ $vf -lt 60 ]; do\n"
"\t\tcase $($T sinfo -h -n \"$2\" -o %t </dev/null 2>/dev/null) in\n"
"\t\tcomp*) sleep 0.5; vf=$((vf + 1)) ;;\n"
"\t\t*) return 0 ;;\n"
"\t\tesac\n"
"\tdone\n"
"\tprintf '%s\\t%s\\t1\\t%s\\n' \"$1\" \"$2\" "
    "'still completing an earlier job 30 s later (Slurm state comp): "
    "is its slurmd running?'\n"
"\treturn 1\n"
"}\n";

static void
verify_script_names(struct buf *b, const struct plan *p,
    const struct plan_node *skip)
{
	size_t	i;

	for (i = 0; i < p->nnodes; i++) {
		if (&p->nodes[i] == skip)
			continue;
		buf_addch(b, ' ');
		buf_add_shquote(b, p->nodes[i].name);
	}
}

static void
verify_script_slurm(struct buf *b, const struct plan *p,
    struct plan_node *const *sel, size_t nsel, const struct verify_opts *o)
{
	const char	**parts = xcalloc(nsel + 1, sizeof *parts);
	const char	**done = xcalloc(nsel + 1, sizeof *done);
	size_t		  i, j, ndone = 0;

	buf_adds(b, "vs slurm-ping; $T scontrol ping </dev/null 2>&1; vr\n");
	buf_adds(b, "vs sinfo; $T sinfo -h -N -o '%N %t %G' </dev/null 2>&1; "
	    "vr\n");
	buf_adds(b, "vs scontrol; $T scontrol -o show node </dev/null 2>&1; "
	    "vr\n");
	for (i = 0; i < nsel; i++) {
		if (!plan_slurm_compute(p, sel[i], &parts[i]))
			parts[i] = "-";
		else if (parts[i] == NULL)
			parts[i] = "";	/* no partitions: the default one */
	}
	buf_addf(b, "VJT=%ld\n", o->job_timeout_s > 0 ? o->job_timeout_s :
	    60);
	buf_adds(b, "vs srun\n");
	/* one job per partition across its nodes; if it fails, one job per
	 * node of it, 16 at a time, to name the nodes that cannot run one */
	for (i = 0; i < nsel; i++) {
		const char	*pt = parts[i];
		const char	**names;
		char		 *list;
		size_t		  n = 0, k;

		if (strcmp(pt, "-") == 0)
			continue;
		for (j = 0; j < ndone; j++)
			if (strcmp(done[j], pt) == 0)
				break;
		if (j < ndone)
			continue;
		done[ndone++] = pt;
		names = xcalloc(nsel + 1, sizeof *names);
		for (k = 0; k < nsel; k++)
			if (strcmp(parts[k], pt) == 0)
				names[n++] = sel[k]->name;
		list = hostlist_fold(names, n);
		buf_adds(b, "if ! vjob ");
		buf_add_shquote(b, p->sw.npartitions > 0 ? pt : "");
		buf_addch(b, ' ');
		buf_add_shquote(b, list);
		buf_addf(b, " %zu; then\n\tvk=0\n\tfor h in", n);
		for (k = 0; k < n; k++) {
			buf_addch(b, ' ');
			buf_add_shquote(b, names[k]);
		}
		buf_adds(b, "; do\n\t\t{ vfree ");
		buf_add_shquote(b, p->sw.npartitions > 0 ? pt : "");
		buf_adds(b, " \"$h\" && vjob ");
		buf_add_shquote(b, p->sw.npartitions > 0 ? pt : "");
		buf_adds(b, " \"$h\" 1; } &\n\t\tvk=$((vk + 1))\n"
		    "\t\tif [ $vk -ge 16 ]; then wait; vk=0; fi\n"
		    "\tdone\n\twait\nfi\n");
		free(list);
		free(names);
	}
	buf_adds(b, "echo '@@rc 0'\n");
	free(parts);
	free(done);
}

static void
verify_script_nccl(struct buf *b, const struct plan *p,
    struct plan_node *const *sel, size_t nsel)
{
	const char	**names = xcalloc(nsel + 1, sizeof *names);
	char		 *list;
	long		  g = 0;
	size_t		  i, n = 0;

	for (i = 0; i < nsel; i++) {
		long	k = verify_gpus(sel[i]);

		if (k <= 0)
			continue;
		names[n++] = sel[i]->name;
		if (g == 0 || k < g)
			g = k;
	}
	buf_adds(b, "vs nccl\n");
	if (n == 0) {
		buf_adds(b, "echo 'no GPU node to run it on'; "
		    "echo '@@rc 125'\n");
		free(names);
		return;
	}
	list = hostlist_fold(names, n);
	buf_adds(b, "B=$(command -v all_reduce_perf 2>/dev/null)\n"
	    "for f in /usr/local/bin/all_reduce_perf "
	    "/opt/nccl-tests/build/all_reduce_perf "
	    "/usr/local/nccl-tests/build/all_reduce_perf; do\n"
	    "\t[ -n \"$B\" ] || { [ -x \"$f\" ] && B=$f; }\n"
	    "done\n"
	    "if [ -z \"$B\" ]; then echo 'all_reduce_perf (nccl-tests) not "
	    "found'; echo '@@rc 127'\n");
	if (verify_is_slurm(p)) {
		buf_addf(b, "else timeout 1800 srun -N %zu --ntasks-per-node="
		    "%ld --gpus-per-node=%ld -w ", n, g, g);
		buf_add_shquote(b, list);
		buf_adds(b, " -t 30 -J provision-verify-nccl \"$B\" -b 8 -e 1G "
		    "-f 2 -g 1 </dev/null 2>&1; vr\n");
	} else {
		buf_addf(b, "elif command -v mpirun >/dev/null 2>&1; then "
		    "timeout 1800 mpirun --allow-run-as-root -np %ld -H ",
		    (long)n * g);
		for (i = 0; i < n; i++) {
			char	*h = xasprintf("%s:%ld", names[i], g);

			if (i > 0)
				buf_addch(b, ',');
			buf_add_shquote(b, h);
			free(h);
		}
		buf_adds(b, " \"$B\" -b 8 -e 1G -f 2 -g 1 </dev/null 2>&1; vr\n"
		    "else echo 'no srun or mpirun to start it on the nodes'; "
		    "echo '@@rc 127'\n");
	}
	buf_adds(b, "fi\n");
	free(list);
	free(names);
}

void
verify_script(struct buf *b, const struct plan *p,
    const struct plan_node *node, struct plan_node *const *sel, size_t nsel,
    const struct verify_opts *o)
{
	const struct plan_node	*head = render_head(p);
	struct verify_daemon	 d[16];
	size_t			 nd, i;
	long			 gpus = verify_gpus(node);
	const char		*rt = p->sw.runtime;

	buf_adds(b, verify_script_head);
	buf_adds(b, facts_script());
	buf_adds(b, verify_script_funcs);

	buf_adds(b, "vs ip; ip -o addr show </dev/null 2>&1; vr\n");
	buf_adds(b, "vs links\n"
	    "for n in /sys/class/net/*; do\n"
	    "\t[ -e \"$n/mtu\" ] || continue\n"
	    "\tsp='' mt='' st=''\n"
	    "\tread -r mt < \"$n/mtu\"; read -r sp 2>/dev/null < \"$n/speed\"\n"
	    "\tread -r st 2>/dev/null < \"$n/operstate\"\n"
	    "\tprintf '%s\\t%s\\t%s\\t%s\\n' \"${n##*/}\" \"$sp\" \"$mt\" "
	    "\"$st\"\n"
	    "done\n");

	/* every planned name resolves; every other node answers */
	buf_adds(b, "vs getent\nfor h in");
	verify_script_names(b, p, NULL);
	buf_adds(b, "; do\n"
	    "\ta=$(getent ahostsv4 \"$h\" 2>/dev/null | head -n 1)\n"
	    "\t[ -n \"$a\" ] || a=$(getent hosts \"$h\" 2>/dev/null | "
	    "head -n 1)\n"
	    "\tprintf '%s\\t%s\\n' \"$h\" \"${a%% *}\"\n"
	    "done\n");
	buf_adds(b, "vs reach\n");
	if (p->nnodes > 1) {
		buf_adds(b, "printf '%s\\n'");
		verify_script_names(b, p, node);
		buf_addf(b, " | xargs -r -n 1 -P 32 sh -c '"
		    "if command -v ping >/dev/null 2>&1; then "
		    "if ping -c1 -W1 \"$1\" >/dev/null 2>&1; then "
		    "echo \"$1 ok icmp\"; else echo \"$1 fail icmp\"; fi; "
		    "elif command -v bash >/dev/null 2>&1; then "
		    "if timeout 3 bash -c \"exec 3<>/dev/tcp/\\$1/%ld\" _ "
		    "\"$1\" 2>/dev/null; then echo \"$1 ok tcp/%ld\"; "
		    "else echo \"$1 fail tcp/%ld\"; fi; "
		    "else echo \"$1 skip none\"; fi' _\n",
		    p->ssh.port > 0 ? p->ssh.port : 22L,
		    p->ssh.port > 0 ? p->ssh.port : 22L,
		    p->ssh.port > 0 ? p->ssh.port : 22L);
	}

	buf_adds(b, "vs time\n"
	    "if command -v chronyc >/dev/null 2>&1; then echo chrony; "
	    "$T chronyc -n tracking </dev/null 2>&1\n"
	    "elif command -v timedatectl >/dev/null 2>&1; then echo "
	    "timedatectl; timedatectl show </dev/null 2>&1 || "
	    "timedatectl status </dev/null 2>&1\n"
	    "else echo none; false; fi\nvr\n");

	nd = verify_daemons(p, node, d);
	buf_adds(b, "vs daemons\n");
	for (i = 0; i < nd; i++) {
		buf_adds(b, "vd ");
		buf_add_shquote(b, d[i].label);
		buf_addch(b, ' ');
		buf_add_shquote(b, d[i].regex);
		buf_addch(b, '\n');
	}

	/* GPUs: health from nvidia-smi, driver module, XIDs in the log */
	if (gpus > 0)
		buf_adds(b, "if :; then\n");
	else
		buf_adds(b, "if command -v nvidia-smi >/dev/null 2>&1; then\n");
	buf_adds(b, "\tif command -v nvidia-smi >/dev/null 2>&1; then\n"
	    "\t\tvs nvsmi-xml; $T nvidia-smi -q -x </dev/null 2>&1; vr\n"
	    "\tfi\n"
	    "\tvs nvidia-module; cat /proc/driver/nvidia/version 2>&1; vr\n"
	    "\tvs xid\n"
	    "\tif dmesg >/dev/null 2>&1; then echo 'log dmesg'; "
	    "dmesg 2>/dev/null | grep -i 'NVRM: Xid'\n"
	    "\telif command -v journalctl >/dev/null 2>&1 && "
	    "journalctl -k -q -n 1 >/dev/null 2>&1; then echo 'log journal'; "
	    "journalctl -k -b -q --no-pager 2>/dev/null | grep -i 'NVRM: Xid'\n"
	    "\telse echo 'log none'; fi\n"
	    "\techo '@@rc 0'\n"
	    "fi\n");

	if (rt != NULL && strcmp(rt, "none") != 0) {
		buf_adds(b, "vs runtime\n");
		if (strcmp(rt, "containerd") == 0)
			buf_adds(b, "$T ctr version </dev/null 2>&1; vr\n");
		else if (strcmp(rt, "docker") == 0)
			buf_adds(b, "$T docker info --format "
			    "'{{.ServerVersion}}' </dev/null 2>&1; vr\n");
		else
			buf_adds(b, "if command -v apptainer >/dev/null 2>&1; "
			    "then apptainer --version 2>&1; else singularity "
			    "--version 2>&1; fi </dev/null; vr\n");
		if (p->sw.nvidia_toolkit && gpus > 0)
			buf_adds(b, "vs runtime-gpus\n"
			    "if command -v nvidia-container-cli >/dev/null "
			    "2>&1; then $T nvidia-container-cli info "
			    "</dev/null 2>&1; vr\n"
			    "else echo 'nvidia-container-cli not found'; "
			    "echo '@@rc 127'; fi\n");
	}

	if (node == head) {
		if (verify_is_slurm(p))
			verify_script_slurm(b, p, sel, nsel, o);
		if (verify_is_k8s(p))
			buf_adds(b, "vs k8s\n"
			    "if command -v kubectl >/dev/null 2>&1; then\n"
			    "\tif [ -r /etc/kubernetes/admin.conf ]; then $T "
			    "kubectl --kubeconfig /etc/kubernetes/admin.conf "
			    "get nodes -o json </dev/null 2>&1\n"
			    "\telse $T kubectl get nodes -o json </dev/null "
			    "2>&1; fi\n\tvr\n"
			    "else echo 'kubectl not found'; echo '@@rc 127'; "
			    "fi\n");
		if (o->burn_in)
			verify_script_nccl(b, p, sel, nsel);
	}
	if (o->burn_in && gpus > 0)
		buf_adds(b, "vs dcgmi\n"
		    "if command -v dcgmi >/dev/null 2>&1; then timeout 1800 "
		    "dcgmi diag -r 2 </dev/null 2>&1; vr\n"
		    "else echo 'dcgmi (DCGM) not found'; echo '@@rc 127'; "
		    "fi\n");
	buf_adds(b, "vs end\necho '@@rc 0'\n");
}

/* ------------------------------------------------------------------ */
/* Judgement */

struct verify_ifaddr {
	char		*name;
	uint32_t	 addr;
	int		 prefix;
	char		*text;		/* "10.0.0.5/24" */
};

struct verify_link {
	char	*name;
	long	 speed;		/* Mb/s, -1 unknown */
	long	 mtu;
	char	*state;
};

struct verify_nd {
	struct verify_ifaddr	*ifa;
	size_t			 nifa, aifa;
	struct verify_link	*links;
	size_t			 nlinks, alinks;
};

struct verify_ctx {
	const struct plan		*p;
	struct rows			*out;
	const struct verify_opts	*o;
	const struct verify_env		*env;
	const struct verify_node	*head;
	struct verify_node		*nodes;
	size_t				 n;
	struct verify_nd		*nd;	/* per node */
	long				*mtu;	/* per net: the cluster's */
	/* Slurm, from the head */
	int				 slurm_ok;
	char				*slurm_why;
	struct verify_slurm		 sl;
	/* Kubernetes, from the head */
	int				 k8s_ok;
	char				*k8s_why;
	struct verify_k8s		 k8;
	/* Prometheus, from here */
	int				 prom_ok;
	char				*prom_why;
	struct verify_targets		 tg;
};

static void
verify_nd_parse(struct verify_nd *d, const struct verify_node *n)
{
	const struct verify_sec	*s;
	struct strvec		 lines = STRVEC_INIT, w = STRVEC_INIT;
	size_t			 i;

	if ((s = verify_node_sec(n, "ip")) != NULL) {
		verify_lines(&lines, s->body);
		for (i = 0; i < lines.n; i++) {
			struct verify_ifaddr	*a;
			char			*slash, *at;
			uint32_t		 ip;
			long			 pfx = 32;

			strvec_clear(&w);
			verify_words(&w, lines.v[i]);
			/* "2: eth0    inet 10.0.0.5/24 brd ..." */
			if (w.n < 4 || strcmp(w.v[2], "inet") != 0)
				continue;
			if ((slash = strchr(w.v[3], '/')) != NULL) {
				*slash = '\0';
				if (str_to_long(slash + 1, &pfx) != 0 ||
				    pfx < 0 || pfx > 32)
					continue;
			}
			if (plan_parse_ipv4(w.v[3], &ip) != 0)
				continue;
			if (slash != NULL)
				*slash = '/';
			if ((at = strchr(w.v[1], '@')) != NULL)
				*at = '\0';
			ALLOC_GROW(d->ifa, d->nifa + 1, d->aifa);
			a = &d->ifa[d->nifa++];
			a->name = xstrdup(w.v[1]);
			a->addr = ip;
			a->prefix = (int)pfx;
			a->text = xstrdup(w.v[3]);
		}
		strvec_clear(&lines);
	}
	if ((s = verify_node_sec(n, "links")) != NULL) {
		verify_lines(&lines, s->body);
		for (i = 0; i < lines.n; i++) {
			struct verify_link	*l;

			strvec_clear(&w);
			strvec_split(&w, lines.v[i], '\t', 0);
			if (w.n < 4 || *w.v[0] == '\0')
				continue;
			ALLOC_GROW(d->links, d->nlinks + 1, d->alinks);
			l = &d->links[d->nlinks++];
			l->name = xstrdup(w.v[0]);
			l->speed = verify_long(w.v[1]);
			l->mtu = verify_long(w.v[2]);
			l->state = xstrdup(w.v[3]);
		}
	}
	strvec_clear(&w);
	strvec_clear(&lines);
}

static void
verify_nd_release(struct verify_nd *d)
{
	size_t	i;

	for (i = 0; i < d->nifa; i++) {
		free(d->ifa[i].name);
		free(d->ifa[i].text);
	}
	free(d->ifa);
	for (i = 0; i < d->nlinks; i++) {
		free(d->links[i].name);
		free(d->links[i].state);
	}
	free(d->links);
}

static uint32_t
verify_mask(int prefix)
{
	return prefix <= 0 ? 0 : prefix >= 32 ? 0xffffffffu :
	    ~((1u << (32 - prefix)) - 1);
}

/* The interface holding addr: exactly, else a loopback prefix holding it. */
static const struct verify_ifaddr *
verify_nd_addr(const struct verify_nd *d, const char *addr, int *exact)
{
	uint32_t	ip;
	size_t		i;

	*exact = 0;
	if (addr == NULL || plan_parse_ipv4(addr, &ip) != 0)
		return NULL;
	for (i = 0; i < d->nifa; i++)
		if (d->ifa[i].addr == ip) {
			*exact = 1;
			return &d->ifa[i];
		}
	for (i = 0; i < d->nifa; i++)
		if (strcmp(d->ifa[i].name, "lo") == 0 &&
		    (ip & verify_mask(d->ifa[i].prefix)) ==
		    (d->ifa[i].addr & verify_mask(d->ifa[i].prefix)))
			return &d->ifa[i];
	return NULL;
}

static const struct verify_link *
verify_nd_link(const struct verify_nd *d, const char *name)
{
	size_t	i;

	for (i = 0; i < d->nlinks; i++)
		if (strcmp(d->links[i].name, name) == 0)
			return &d->links[i];
	return NULL;
}

/* A row of node `node` (row.h); the hint from fmt, NULL for none. */
static void
verify_row(struct verify_ctx *c, enum row_verdict v, const char *node,
    const char *what, const char *exp, const char *found, const char *fmt,
    ...) PROV_PRINTF(7, 8);

static void
verify_row(struct verify_ctx *c, enum row_verdict v, const char *node,
    const char *what, const char *exp, const char *found, const char *fmt,
    ...)
{
	struct row	*r = rows_addf(c->out, v, node, what, exp, found, NULL);
	va_list		 ap;

	if (fmt != NULL) {
		va_start(ap, fmt);
		r->hint = xvasprintf(fmt, ap);
		va_end(ap);
	}
}

/* hostname, addresses, and per network the link's speed and MTU */
static void
verify_eval_identity(struct verify_ctx *c, size_t k)
{
	const struct verify_node	*vn = &c->nodes[k];
	const struct plan_node		*pn = vn->pn;
	const struct verify_nd		*d = &c->nd[k];
	const struct plan		*p = c->p;
	const char			*h = vn->facts->node;
	size_t				 i, len = strlen(pn->name);

	if (h == NULL)
		verify_row(c, ROW_SKIP, pn->name, "hostname", pn->name, NULL,
		    "uname -n printed nothing");
	else if (strcmp(h, pn->name) == 0 || (strncmp(h, pn->name, len) == 0 &&
	    h[len] == '.'))
		verify_row(c, ROW_OK, pn->name, "hostname", pn->name, h,
		    NULL);
	else
		verify_row(c, ROW_FAIL, pn->name, "hostname", pn->name, h,
		    "the node calls itself '%s' (apply's base step sets it)",
		    h);

	for (i = 0; i < p->nnets; i++) {
		const struct plan_net		*net = &p->nets[i];
		const char			*addr = verify_net_addr(p, pn,
						    net);
		const struct verify_ifaddr	*ia;
		const struct verify_link	*l;
		char				*what, *found;
		int				 exact;

		if (addr == NULL)
			continue;
		what = xasprintf("address %s", net->name);
		if (verify_node_sec(vn, "ip") == NULL ||
		    verify_node_sec(vn, "ip")->rc != 0) {
			verify_row(c, ROW_SKIP, pn->name, what, addr, NULL,
			    "'ip -o addr' did not run");
			free(what);
			continue;
		}
		ia = verify_nd_addr(d, addr, &exact);
		if (ia == NULL) {
			struct buf	have = BUF_INIT;
			size_t		j;

			for (j = 0; j < d->nifa && j < 6; j++)
				buf_addf(&have, "%s%s %s", j ? ", " : "",
				    d->ifa[j].name, d->ifa[j].text);
			verify_row(c, ROW_FAIL, pn->name, what, addr, have.len
			    ? have.buf : "none", "no interface holds the "
			    "planned address");
			buf_release(&have);
			free(what);
			continue;
		}
		found = xasprintf("%s %s", ia->name, ia->text);
		verify_row(c, ROW_OK, pn->name, what, addr, found, exact ?
		    NULL : "inside the loopback prefix of '%s'", ia->name);
		free(found);
		free(what);

		if (net->kind != NULL && strcmp(net->kind, "ethernet") != 0)
			continue;
		l = verify_nd_link(d, ia->name);
		what = xasprintf("mtu %s", net->name);
		if (l == NULL || l->mtu < 0)
			verify_row(c, ROW_SKIP, pn->name, what, NULL, NULL,
			    "no MTU for '%s' in /sys/class/net", ia->name);
		else {
			char	exp[48], got[64];

			snprintf(got, sizeof got, "%ld (%s)", l->mtu, ia->name);
			snprintf(exp, sizeof exp, "%ld (as the other nodes)",
			    c->mtu[i]);
			if (c->mtu[i] <= 0 || l->mtu == c->mtu[i])
				verify_row(c, ROW_OK, pn->name, what, exp,
				    got, NULL);
			else
				verify_row(c, ROW_FAIL, pn->name, what, exp,
				    got, "MTU differs from the rest of network "
				    "'%s': large frames get dropped",
				    net->name);
		}
		free(what);
		what = xasprintf("speed %s", net->name);
		{
			char	exp[48], got[64];

			snprintf(exp, sizeof exp, ">= %g Gb/s", net->gbps);
			if (l == NULL || l->speed <= 0)
				verify_row(c, ROW_SKIP, pn->name, what, exp,
				    NULL, "'%s' reports no link speed (virtual "
				    "or loopback interface)", ia->name);
			else {
				snprintf(got, sizeof got, "%g Gb/s (%s)",
				    (double)l->speed / 1000.0, ia->name);
				if (isnan(net->gbps) ||
				    (double)l->speed >= net->gbps * 1000 - 0.5)
					verify_row(c, ROW_OK, pn->name, what,
					    exp, got, NULL);
				else
					verify_row(c, ROW_FAIL, pn->name,
					    what, exp, got, "the link runs "
					    "slower than planned: cable, "
					    "transceiver or switch port");
			}
		}
		free(what);
	}
}

/* InfiniBand ports of the planned fabric cards: Active at the plan's rate */
static void
verify_eval_ib(struct verify_ctx *c, size_t k)
{
	const struct verify_node	*vn = &c->nodes[k];
	const struct plan_node		*pn = vn->pn;
	const struct plan		*p = c->p;
	const struct facts		*f = vn->facts;
	size_t				 i, j;

	if (pn->hw == NULL)
		return;
	for (i = 0; i < p->nnets; i++) {
		const struct plan_net	*net = &p->nets[i];
		struct buf		 bad = BUF_INIT;
		char			*what, exp[64], got[96];
		long			 want = 0, active = 0, ports = 0;
		double			 rate = -1;

		if (net->kind == NULL || strcmp(net->kind, "infiniband") != 0)
			continue;
		for (j = 0; j < pn->hw->nnics; j++)
			if (pn->hw->nics[j].network != NULL &&
			    strcmp(pn->hw->nics[j].network, net->name) == 0)
				want += pn->hw->nics[j].count > 0 ?
				    pn->hw->nics[j].count : 1;
		if (want == 0)
			continue;
		what = xasprintf("ib %s", net->name);
		snprintf(exp, sizeof exp, "%ld port%s Active at >= %g Gb/s",
		    want, want == 1 ? "" : "s", net->gbps);
		for (j = 0; j < f->nib; j++) {
			const struct facts_ib	*ib = &f->ib[j];

			if (ib->link_layer != NULL &&
			    strcasecmp(ib->link_layer, "InfiniBand") != 0)
				continue;
			ports++;
			if (ib->state != NULL && strcmp(ib->state, "active") ==
			    0 && (isnan(net->gbps) ||
			    ib->rate_gbps >= net->gbps - 0.01)) {
				active++;
				if (rate < 0 || ib->rate_gbps < rate)
					rate = ib->rate_gbps;
			} else if (bad.len < 300)
				buf_addf(&bad, "%s%s/%ld %s%s%s at %g Gb/s",
				    bad.len ? ", " : "", ib->ca, ib->port,
				    ib->state ? ib->state : "?",
				    ib->phys_state ? " " : "",
				    ib->phys_state ? ib->phys_state : "",
				    ib->rate_gbps);
		}
		if (ports == 0)
			verify_row(c, ROW_FAIL, pn->name, what, exp,
			    "no InfiniBand port", "/sys/class/infiniband is "
			    "empty: card missing or the driver (mlx5_ib) not "
			    "loaded");
		else {
			snprintf(got, sizeof got, "%ld of %ld Active at "
			    ">= %g Gb/s", active, ports, net->gbps);
			if (active >= want)
				verify_row(c, ROW_OK, pn->name, what, exp,
				    got, bad.len ? "also: %s" : NULL, bad.buf);
			else
				verify_row(c, ROW_FAIL, pn->name, what, exp,
				    got, "%s", bad.len ? bad.buf :
				    "too few ports");
		}
		buf_release(&bad);
		free(what);
	}
}

/* ECC, retired pages, persistence, XID, driver */
static void
verify_eval_gpus(struct verify_ctx *c, size_t k)
{
	const struct verify_node	*vn = &c->nodes[k];
	const struct plan_node		*pn = vn->pn;
	const struct plan		*p = c->p;
	const struct verify_sec		*sx, *sm, *sxid;
	struct verify_nvsmi		 nv;
	struct prov_err			 err = PROV_ERR_INIT;
	struct buf			 exp = BUF_INIT, b = BUF_INIT;
	long				 planned = verify_gpus(pn);
	size_t				 i, n;
	long				 unc = 0, cor = 0, off = 0, on = 0;
	long				 na = 0, retired = 0, retired_known = 0;
	long				 pending = 0, rfail = 0;
	const char			*nm = NULL;

	memset(&nv, 0, sizeof nv);
	if (planned == 0 && vn->facts->ngpus == 0) {
		verify_row(c, ROW_SKIP, pn->name, "gpu", NULL, NULL,
		    "no GPU in the plan for this node and no NVIDIA device "
		    "found: GPU checks skipped");
		return;
	}
	sx = verify_node_sec(vn, "nvsmi-xml");
	sm = verify_node_sec(vn, "nvidia-module");
	sxid = verify_node_sec(vn, "xid");
	if (p->sw.driver_version != NULL)
		buf_adds(&exp, p->sw.driver_version);
	else if (p->sw.driver_branch != NULL)
		buf_addf(&exp, "%s.x", p->sw.driver_branch);

	if (sx == NULL) {
		verify_row(c, ROW_FAIL, pn->name, "gpu driver", exp.len ?
		    exp.buf : NULL, NULL, "nvidia-smi not found: the NVIDIA "
		    "driver is not installed");
		verify_row(c, ROW_SKIP, pn->name, "gpu health", NULL, NULL,
		    "needs nvidia-smi");
		goto xid;
	}
	if (sx->rc != 0 || verify_parse_nvsmi_xml(&nv, sx->body, &err) != 0) {
		char	*t = sx->rc != 0 ? verify_first_line(sx->body) :
		    xstrdup(err.msg);

		verify_row(c, ROW_FAIL, pn->name, "gpu driver", exp.len ?
		    exp.buf : NULL, sm != NULL && sm->rc == 0 ? "module loaded"
		    : "not loaded", "nvidia-smi -q -x: %s", t);
		verify_row(c, ROW_SKIP, pn->name, "gpu health", NULL, NULL,
		    "nvidia-smi did not answer");
		free(t);
		goto xid;
	}
	/* driver */
	{
		const char	*v = nv.driver_version;
		size_t		 bl = p->sw.driver_branch ?
		    strlen(p->sw.driver_branch) : 0;

		if (exp.len == 0)
			verify_row(c, ROW_SKIP, pn->name, "gpu driver", NULL,
			    v, "the plan names no driver branch");
		else if (v == NULL)
			verify_row(c, ROW_FAIL, pn->name, "gpu driver",
			    exp.buf, NULL, "nvidia-smi reports no driver "
			    "version");
		else if (p->sw.driver_version != NULL ?
		    strcmp(v, p->sw.driver_version) == 0 :
		    (strncmp(v, p->sw.driver_branch, bl) == 0 &&
		    (v[bl] == '.' || v[bl] == '\0')))
			verify_row(c, ROW_OK, pn->name, "gpu driver", exp.buf,
			    v, NULL);
		else
			verify_row(c, ROW_FAIL, pn->name, "gpu driver",
			    exp.buf, v, "another driver than planned: apply "
			    "the gpu-driver step (a reboot may be needed)");
	}
	n = nv.n;
	for (i = 0; i < n; i++) {
		const struct verify_gpu	*g = &nv.gpus[i];

		if (g->persistence != NULL && strcmp(g->persistence,
		    "Enabled") == 0)
			on++;
		else
			off++;
		if (g->ecc_mode == NULL)
			na++;
		else if (strcmp(g->ecc_mode, "Enabled") != 0 && nm == NULL)
			nm = g->name != NULL ? g->name : "?";
		if (g->ecc_vol_unc > 0)
			unc += g->ecc_vol_unc;
		if (g->ecc_agg_unc > 0)
			unc += g->ecc_agg_unc;
		if (g->ecc_agg_cor > 0)
			cor += g->ecc_agg_cor;
		if (g->retired_sbe >= 0 || g->retired_dbe >= 0) {
			long	t = (g->retired_sbe > 0 ? g->retired_sbe : 0) +
			    (g->retired_dbe > 0 ? g->retired_dbe : 0);

			retired_known++;
			if (t > retired)
				retired = t;
		}
		if (g->retire_pending == 1 || g->remap_pending == 1)
			pending++;
		if (g->remap_failure == 1)
			rfail++;
		if (g->remap_failure >= 0 && g->retired_sbe < 0 &&
		    g->retired_dbe < 0)
			retired_known++;
	}
	/* persistence */
	buf_reset(&b);
	buf_addf(&b, "%ld of %zu Enabled", on, n);
	if (n == 0)
		verify_row(c, ROW_SKIP, pn->name, "gpu persistence", "Enabled"
		    , NULL, "nvidia-smi lists no GPU");
	else if (off == 0)
		verify_row(c, ROW_OK, pn->name, "gpu persistence", "Enabled",
		    b.buf, NULL);
	else
		verify_row(c, ROW_WARN, pn->name, "gpu persistence", "Enabled"
		    , b.buf, "persistence mode off: the driver unloads between "
		    "jobs (start nvidia-persistenced)");
	/* ECC */
	buf_reset(&b);
	buf_addf(&b, "%ld uncorrectable, %ld corrected", unc, cor);
	if (n == 0)
		;
	else if (unc > 0)
		verify_row(c, ROW_FAIL, pn->name, "gpu ecc", "0 uncorrectable"
		    , b.buf, "uncorrectable ECC errors: drain the node and run "
		    "dcgmi diag -r 3; RMA when they recur");
	else if (na == (long)n)
		verify_row(c, ROW_SKIP, pn->name, "gpu ecc", "0 uncorrectable"
		    , NULL, "'%s' has no ECC memory (nvidia-smi: N/A)",
		    nv.gpus[0].name ? nv.gpus[0].name : "GPU");
	else if (nm != NULL)
		verify_row(c, ROW_WARN, pn->name, "gpu ecc", "Enabled, 0 "
		    "uncorrectable", b.buf, "ECC is off on a '%s': enable it "
		    "(nvidia-smi -e 1, then reset)", nm);
	else
		verify_row(c, ROW_OK, pn->name, "gpu ecc", "0 uncorrectable",
		    b.buf, NULL);
	/* retired pages and row remapping */
	buf_reset(&b);
	buf_addf(&b, "max %ld retired, %ld pending, %ld remap failures",
	    retired, pending, rfail);
	if (n == 0)
		;
	else if (rfail > 0)
		verify_row(c, ROW_FAIL, pn->name, "gpu retired pages",
		    "no remap failure", b.buf, "row remapping failed on %ld "
		    "GPU%s: the memory is exhausted, RMA", rfail, rfail == 1 ?
		    "" : "s");
	else if (retired >= VERIFY_RETIRED_MAX)
		verify_row(c, ROW_FAIL, pn->name, "gpu retired pages",
		    "< 60 retired", b.buf, "%ld retired pages: at NVIDIA's RMA "
		    "mark", retired);
	else if (pending > 0)
		verify_row(c, ROW_WARN, pn->name, "gpu retired pages",
		    "none pending", b.buf, "a retirement or remap waits for a "
		    "GPU reset or reboot");
	else if (retired_known == 0)
		verify_row(c, ROW_SKIP, pn->name, "gpu retired pages", NULL,
		    NULL, "nvidia-smi reports neither retired pages nor row "
		    "remapping (N/A)");
	else
		verify_row(c, ROW_OK, pn->name, "gpu retired pages",
		    "< 60 retired, none pending", b.buf, NULL);
xid:
	if (sxid == NULL)
		verify_row(c, ROW_SKIP, pn->name, "gpu xid", "no XID storm",
		    NULL, "the kernel log was not read");
	else if (str_starts(sxid->body, "log none"))
		verify_row(c, ROW_SKIP, pn->name, "gpu xid", "no XID storm",
		    NULL, "neither dmesg nor journalctl could read the kernel "
		    "log");
	else {
		struct verify_xid	x;
		long			fatal = -1, storm = -1;

		verify_parse_xid(&x, sxid->body);
		for (i = 0; i < ARRAY_SIZE(x.codes); i++) {
			if (x.codes[i] > 0 && verify_xid_fatal((long)i) &&
			    fatal < 0)
				fatal = (long)i;
			if (x.codes[i] >= VERIFY_XID_STORM && storm < 0)
				storm = (long)i;
		}
		buf_reset(&b);
		if (x.lines == 0)
			buf_adds(&b, "none since boot");
		else
			buf_addf(&b, "%ld events, most: XID %ld (%ld)",
			    x.lines, x.worst, x.codes[x.worst]);
		if (x.lines == 0)
			verify_row(c, ROW_OK, pn->name, "gpu xid",
			    "no XID storm", b.buf, NULL);
		else if (fatal >= 0)
			verify_row(c, ROW_FAIL, pn->name, "gpu xid",
			    "no XID storm", b.buf, "XID %ld means lost or "
			    "failing hardware (NVIDIA XID catalog): drain the "
			    "node", fatal);
		else if (storm >= 0)
			verify_row(c, ROW_FAIL, pn->name, "gpu xid",
			    "no XID storm", b.buf, "XID storm: %ld events of "
			    "XID %ld since boot", x.codes[storm], storm);
		else
			verify_row(c, ROW_WARN, pn->name, "gpu xid",
			    "no XID storm", b.buf, "application-level XIDs; "
			    "look at the jobs that ran");
	}
	verify_nvsmi_release(&nv);
	prov_err_release(&err);
	buf_release(&exp);
	buf_release(&b);
}

/* Planned names resolve to their planned addresses; the others answer. */
static void
verify_eval_names(struct verify_ctx *c, size_t k)
{
	const struct verify_node	*vn = &c->nodes[k];
	const struct plan_node		*pn = vn->pn;
	const struct plan		*p = c->p;
	const struct verify_sec		*s;
	struct strvec			 lines = STRVEC_INIT;
	struct buf			 bad = BUF_INIT, got = BUF_INIT;
	char				 exp[64];
	size_t				 i, j, ok = 0, nbad = 0, total = 0;
	const char			*method = NULL;

	if ((s = verify_node_sec(vn, "getent")) != NULL) {
		verify_lines(&lines, s->body);
		for (i = 0; i < lines.n; i++) {
			char			*tab = strchr(lines.v[i], '\t');
			const struct plan_node	*o;
			const char		*a;
			int			 hit = 0;

			if (tab == NULL)
				continue;
			*tab = '\0';
			a = tab + 1;
			if ((o = plan_node(p, lines.v[i])) == NULL)
				continue;
			total++;
			if (o->address != NULL && strcmp(a, o->address) == 0)
				hit = 1;
			for (j = 0; !hit && j < o->nifaces; j++)
				if (strcmp(a, o->ifaces[j].address) == 0)
					hit = 1;
			if (hit) {
				ok++;
				continue;
			}
			if (nbad++ < 5)
				buf_addf(&bad, "%s%s -> %s (plan %s)",
				    bad.len ? ", " : "", o->name,
				    *a ? a : "nothing", o->address ?
				    o->address : "no address");
		}
		strvec_clear(&lines);
		snprintf(exp, sizeof exp, "%zu names to their addresses",
		    p->nnodes);
		buf_addf(&got, "%zu of %zu", ok, total);
		if (total == 0)
			verify_row(c, ROW_SKIP, pn->name, "resolve", exp,
			    NULL, "getent printed nothing");
		else if (nbad == 0)
			verify_row(c, ROW_OK, pn->name, "resolve", exp,
			    got.buf, NULL);
		else
			verify_row(c, ROW_FAIL, pn->name, "resolve", exp,
			    got.buf, "%s%s: fix /etc/hosts or DNS (apply's "
			    "base step writes /etc/hosts)", bad.buf, nbad > 5 ?
			    ", ..." : "");
	}
	if (p->nnodes < 2 || (s = verify_node_sec(vn, "reach")) == NULL)
		goto out;
	buf_reset(&bad);
	buf_reset(&got);
	ok = nbad = total = 0;
	verify_lines(&lines, s->body);
	for (i = 0; i < lines.n; i++) {
		struct strvec	w = STRVEC_INIT;

		verify_words(&w, lines.v[i]);
		if (w.n == 3 && plan_node(p, w.v[0]) != NULL) {
			total++;
			if (strcmp(w.v[2], "none") != 0)
				method = strcmp(w.v[2], "icmp") == 0 ? "ping" :
				    "tcp";
			if (strcmp(w.v[1], "ok") == 0)
				ok++;
			else if (strcmp(w.v[1], "fail") == 0 && nbad++ < 8)
				buf_addf(&bad, "%s%s", bad.len ? ", " : "",
				    w.v[0]);
		}
		strvec_clear(&w);
	}
	snprintf(exp, sizeof exp, "%zu other nodes by name", p->nnodes - 1);
	if (method == NULL)
		verify_row(c, ROW_SKIP, pn->name, "reach", exp, NULL,
		    "neither ping nor bash (for a TCP probe) on the node");
	else {
		buf_addf(&got, "%zu of %zu (%s%s)", ok, total, method,
		    strcmp(method, "tcp") == 0 ? " to the SSH port" : "");
		if (nbad == 0 && ok == p->nnodes - 1)
			verify_row(c, ROW_OK, pn->name, "reach", exp, got.buf,
			    NULL);
		else
			verify_row(c, ROW_FAIL, pn->name, "reach", exp,
			    got.buf, "no answer from %s%s", bad.len ? bad.buf :
			    "some nodes", nbad > 8 ? ", ..." : "");
	}
out:
	strvec_clear(&lines);
	buf_release(&bad);
	buf_release(&got);
}

static void
verify_eval_time(struct verify_ctx *c, size_t k)
{
	const struct verify_node	*vn = &c->nodes[k];
	const char			*node = vn->pn->name;
	const struct verify_sec		*s = verify_node_sec(vn, "time");
	const struct verify_sec		*sc = verify_node_sec(vn, "clock");
	struct verify_time		 t;
	struct prov_err			 err = PROV_ERR_INIT;
	char				*tool = NULL, *why = NULL, found[96];
	const char			*body;
	double				 tn, off = -1;
	int				 have = 0;

	memset(&t, 0, sizeof t);
	/* the node's clock against this workstation's, during the run */
	if (sc != NULL && c->env->t0 > 0 && verify_is_num(str_trim(
	    sc->body), &tn)) {
		off = tn < c->env->t0 - 0.5 ? c->env->t0 - tn :
		    tn > c->env->t1 + 0.5 ? tn - c->env->t1 : 0;
	}
	if (s == NULL) {
		verify_row(c, ROW_SKIP, node, "time sync", "synchronised",
		    NULL, "not gathered");
		return;
	}
	tool = verify_first_line(s->body);
	body = s->body + strcspn(s->body, "\n");
	if (*body == '\n')
		body++;
	if (strcmp(tool, "chrony") == 0 && s->rc == 0)
		have = verify_parse_chrony(&t, body, &err) == 0;
	else if (strcmp(tool, "timedatectl") == 0 && s->rc == 0)
		have = verify_parse_timedatectl(&t, body, &err) == 0;
	if (have && t.synced) {
		if (t.offset_s >= 0)
			snprintf(found, sizeof found, "%s: offset %.3g s",
			    t.source, t.offset_s);
		else
			snprintf(found, sizeof found, "%s: synchronised",
			    t.source);
		if (t.offset_s <= VERIFY_TIME_OK_S)
			verify_row(c, ROW_OK, node, "time sync",
			    "synchronised", found, "%s", t.detail);
		else if (t.offset_s <= VERIFY_TIME_FAIL_S)
			verify_row(c, ROW_WARN, node, "time sync",
			    "synchronised", found, "offset above %g s: still "
			    "converging?", VERIFY_TIME_OK_S);
		else
			verify_row(c, ROW_FAIL, node, "time sync",
			    "synchronised", found, "offset above %g s",
			    VERIFY_TIME_FAIL_S);
		goto out;
	}
	if (have)
		why = xasprintf("%s is not synchronised (%s)", t.source,
		    t.detail);
	else if (strcmp(tool, "none") == 0)
		why = xstrdup("neither chronyc nor timedatectl on the node");
	else {
		char	*l = err.msg != NULL ? xstrdup(err.msg) :
		    verify_first_line(body);

		why = xasprintf("%s: %s", tool, l);
		free(l);
	}
	if (off < 0)
		verify_row(c, ROW_FAIL, node, "time sync", "synchronised",
		    NULL, "%s; the clock could not be compared", why);
	else if (off <= VERIFY_TIME_FAIL_S) {
		/* off is 0 inside the run's window: the bound is its width */
		snprintf(found, sizeof found, "clock within %.1f s of this "
		    "workstation", off > 0 ? off : c->env->t1 - c->env->t0 +
		    0.5);
		verify_row(c, ROW_WARN, node, "time sync", "synchronised",
		    found, "%s; the clock agrees today, nothing keeps it so",
		    why);
	} else {
		snprintf(found, sizeof found, "clock %.1f s off this "
		    "workstation", off);
		verify_row(c, ROW_FAIL, node, "time sync", "synchronised",
		    found, "%s", why);
	}
out:
	free(why);
	free(tool);
	verify_time_release(&t);
	prov_err_release(&err);
}

static void
verify_eval_daemons(struct verify_ctx *c, size_t k)
{
	const struct verify_node	*vn = &c->nodes[k];
	const char			*node = vn->pn->name;
	const struct verify_sec		*s = verify_node_sec(vn, "daemons");
	struct verify_daemon		 d[16];
	struct strvec			 lines = STRVEC_INIT;
	size_t				 nd, i, j;

	nd = verify_daemons(c->p, vn->pn, d);
	if (s != NULL)
		verify_lines(&lines, s->body);
	for (i = 0; i < nd; i++) {
		char	*what = xasprintf("daemon %s", d[i].label);
		int	 done = 0;

		for (j = 0; j < lines.n && !done; j++) {
			struct strvec	w = STRVEC_INIT;

			verify_words(&w, lines.v[j]);
			if (w.n == 3 && strcmp(w.v[0], d[i].label) == 0) {
				char	*f = xasprintf("running (pid %s)",
				    w.v[2]);

				done = 1;
				if (strcmp(w.v[1], "running") == 0)
					verify_row(c, ROW_OK, node, what,
					    "running", f, NULL);
				else if (strcmp(w.v[1], "stopped") == 0)
					verify_row(c, ROW_FAIL, node, what,
					    "running", "not running",
					    "no process '%s' on the node",
					    d[i].label);
				else
					verify_row(c, ROW_SKIP, node, what,
					    "running", NULL, "no pgrep on the "
					    "node");
				free(f);
			}
			strvec_clear(&w);
		}
		if (!done)
			verify_row(c, ROW_SKIP, node, what, "running", NULL,
			    "not gathered");
		free(what);
	}
	strvec_clear(&lines);
}

static void
verify_eval_runtime(struct verify_ctx *c, size_t k)
{
	const struct verify_node	*vn = &c->nodes[k];
	const char			*node = vn->pn->name;
	const struct verify_sec		*s = verify_node_sec(vn, "runtime");
	const struct verify_sec		*g = verify_node_sec(vn,
					    "runtime-gpus");
	const char			*rt = c->p->sw.runtime;
	char				*l;

	if (rt == NULL || strcmp(rt, "none") == 0)
		return;
	if (s == NULL)
		verify_row(c, ROW_SKIP, node, "container runtime", rt, NULL,
		    "not gathered");
	else {
		l = verify_oneline(s->body, 160);
		if (s->rc == 0)
			verify_row(c, ROW_OK, node, "container runtime", rt,
			    l, NULL);
		else
			verify_row(c, ROW_FAIL, node, "container runtime", rt,
			    NULL, "%s does not answer: %s", rt, l);
		free(l);
	}
	if (g != NULL) {
		long	want = verify_gpus(vn->pn), have = 0;
		char	exp[48], got[48];
		const char *q = g->body;

		while ((q = strstr(q, "Device Index:")) != NULL) {
			have++;
			q++;
		}
		snprintf(exp, sizeof exp, "%ld GPUs through the toolkit", want);
		snprintf(got, sizeof got, "%ld", have);
		if (g->rc == 127)
			verify_row(c, ROW_FAIL, node, "runtime gpus", exp,
			    NULL, "nvidia-container-cli not found: the NVIDIA "
			    "container toolkit is not installed");
		else if (g->rc != 0) {
			l = verify_oneline(g->body, 160);
			verify_row(c, ROW_FAIL, node, "runtime gpus", exp,
			    NULL, "nvidia-container-cli info: %s", l);
			free(l);
		} else
			verify_row(c, have == want ? ROW_OK : ROW_FAIL,
			    node, "runtime gpus", exp, got, have == want ? NULL
			    : "containers would not see every GPU");
	}
}

/* The result of node `name` in the head's srun lines: 1 ok, 0 not. */
static int
verify_srun_result(const struct verify_sec *s, const char *name,
    char **detail)
{
	struct strvec	 lines = STRVEC_INIT;
	char		*single = NULL, *group = NULL, *ok = NULL;
	int		 r = -1;
	size_t		 i;

	ok = xasprintf("verify-ok %s", name);
	verify_lines(&lines, s->body);
	for (i = 0; i < lines.n; i++) {
		struct strvec	 f = STRVEC_INIT;
		struct strvec	 names = STRVEC_INIT;
		struct prov_err	 e = PROV_ERR_INIT;

		strvec_split(&f, lines.v[i], '\t', 0);
		if (f.n == 4 && hostlist_expand(&names, f.v[1], 1000000,
		    &e) == 0 && strvec_find(&names, name) >= 0) {
			char	*o = strstr(f.v[3], ok);
			int	 hit = o != NULL && (o[strlen(ok)] == ' ' ||
			    o[strlen(ok)] == '\0');

			if (names.n == 1 && strcmp(names.v[0], name) == 0) {
				free(single);
				single = xasprintf("%c%s (exit %s)", hit ? '+' :
				    '-', str_trim(f.v[3]), f.v[2]);
			} else if (group == NULL)
				group = xasprintf("%c%s (exit %s)", hit ? '+' :
				    '-', str_trim(f.v[3]), f.v[2]);
		}
		prov_err_release(&e);
		strvec_clear(&names);
		strvec_clear(&f);
	}
	if (single != NULL || group != NULL) {
		const char	*use = single != NULL ? single : group;

		r = use[0] == '+';
		*detail = xstrdup(use + 1);
	}
	free(single);
	free(group);
	free(ok);
	strvec_clear(&lines);
	return r;
}

static void
verify_eval_slurm(struct verify_ctx *c, size_t k)
{
	const struct verify_node	*vn = &c->nodes[k];
	const struct plan_node		*pn = vn->pn;
	const char			*node = pn->name, *part, *why;
	const struct verify_snode	*sn;
	char				 exp[64], got[96];
	char				*detail = NULL;
	long				 want, have;
	int				 r;

	if (!verify_is_slurm(c->p))
		return;
	if (pn == render_head(c->p)) {
		const struct verify_sec	*s = verify_node_sec(vn,
					    "slurm-ping");

		if (s == NULL)
			verify_row(c, ROW_SKIP, node, "slurm controller", "UP"
			    , NULL, "not gathered");
		else {
			char	*l = verify_oneline(s->body, 200);

			verify_row(c, s->rc == 0 && strstr(s->body, "is UP") !=
			    NULL ? ROW_OK : ROW_FAIL, node,
			    "slurm controller", "UP", l, s->rc == 0 ? NULL :
			    "scontrol ping: slurmctld does not answer");
			free(l);
		}
	}
	if (!plan_slurm_compute(c->p, pn, &part))
		return;
	if (!c->slurm_ok) {
		verify_row(c, ROW_SKIP, node, "slurm node", "idle, allocated "
		    "or mixed", NULL, "%s", c->slurm_why);
		return;
	}
	/* state */
	sn = verify_slurm_find(&c->sl, node);
	if (sn == NULL) {
		verify_row(c, ROW_FAIL, node, "slurm node", "idle, allocated "
		    "or mixed", "not in sinfo", "Slurm does not know the node: "
		    "slurm.conf lacks it, or slurmctld runs an old one");
		return;
	}
	if (verify_slurm_state_ok(sn->state, &why))
		verify_row(c, ROW_OK, node, "slurm node", "idle, allocated "
		    "or mixed", sn->state, NULL);
	else
		verify_row(c, ROW_FAIL, node, "slurm node", "idle, allocated "
		    "or mixed", sn->state, "%s%s%s", why, sn->reason ? ": " : ""
		    , sn->reason ? sn->reason : "");
	/* GRES */
	want = verify_gpus(pn);
	have = verify_gres_gpus(sn->gres);
	if (want > 0)
		snprintf(exp, sizeof exp, "gpu:%ld", want);
	else
		snprintf(exp, sizeof exp, "no GPU GRES");
	snprintf(got, sizeof got, "%s", sn->gres != NULL ? sn->gres : "?");
	if (sn->gres == NULL)
		verify_row(c, ROW_SKIP, node, "slurm gres", exp, NULL,
		    "sinfo gave no GRES column");
	else if (have == want)
		verify_row(c, ROW_OK, node, "slurm gres", exp, got, NULL);
	else
		verify_row(c, ROW_FAIL, node, "slurm gres", exp, got,
		    "Slurm %s %ld GPU%s where the plan has %ld: gres.conf and "
		    "slurm.conf", have < want ? "offers only" : "offers", have,
		    have == 1 ? "" : "s", want);
	/* a job */
	{
		const struct verify_sec	*s = verify_node_sec(c->head,
					    "srun");

		if (s == NULL) {
			verify_row(c, ROW_SKIP, node, "slurm job", "runs",
			    NULL, "no job was started");
			return;
		}
		r = verify_srun_result(s, node, &detail);
		if (r < 0)
			verify_row(c, ROW_SKIP, node, "slurm job", "runs",
			    NULL, "no job was started on it");
		else if (r == 1)
			verify_row(c, ROW_OK, node, "slurm job", "runs",
			    "ran (srun)", NULL);
		else
			verify_row(c, ROW_FAIL, node, "slurm job", "runs",
			    "did not run", "srun: %s", detail);
		free(detail);
	}
}

static void
verify_eval_k8s(struct verify_ctx *c, size_t k)
{
	const struct plan_node	*pn = c->nodes[k].pn;
	const char		*node = pn->name;
	const struct verify_k8s_node *kn = NULL;
	long			 want = verify_gpus(pn);
	size_t			 i;
	char			 exp[48], got[48];

	if (!verify_is_k8s(c->p))
		return;
	if (!c->k8s_ok) {
		verify_row(c, ROW_SKIP, node, "k8s node", "Ready", NULL, "%s",
		    c->k8s_why);
		return;
	}
	for (i = 0; i < c->k8.n; i++)
		if (strcmp(c->k8.v[i].name, node) == 0)
			kn = &c->k8.v[i];
	if (kn == NULL) {
		verify_row(c, ROW_FAIL, node, "k8s node", "Ready",
		    "not a node", "the node has not joined the cluster");
		return;
	}
	verify_row(c, kn->ready == 1 ? ROW_OK : ROW_FAIL, node, "k8s node",
	    "Ready", kn->ready == 1 ? "Ready" : "NotReady", kn->ready == 1 ?
	    NULL : "%s", kn->ready_reason ? kn->ready_reason : "no Ready "
	    "condition");
	if (want <= 0)
		return;
	snprintf(exp, sizeof exp, "nvidia.com/gpu: %ld", want);
	snprintf(got, sizeof got, "%ld", kn->gpus < 0 ? 0 : kn->gpus);
	verify_row(c, kn->gpus == want ? ROW_OK : ROW_FAIL, node, "k8s gpus"
	    , exp, got, kn->gpus == want ? NULL : kn->gpus < 0 ?
	    "no nvidia.com/gpu allocatable: the NVIDIA device plugin is not "
	    "running there" : "fewer GPUs than planned");
}

static void
verify_eval_prom(struct verify_ctx *c, size_t k)
{
	const struct plan	*p = c->p;
	const struct plan_node	*pn = c->nodes[k].pn;
	static const struct {
		const char	*job;
		const char	*port;
	} jobs[] = { { "node", "9100" }, { "dcgm", "9400" } };
	size_t			 j, i;

	if (p->sw.prometheus == NULL)
		return;
	if (strcmp(p->sw.prometheus, pn->name) == 0 && c->env->prom_url) {
		if (c->prom_ok)
			verify_row(c, ROW_OK, pn->name, "prometheus api",
			    "answers", "answers", "%s", c->env->prom_url);
		else
			verify_row(c, ROW_FAIL, pn->name, "prometheus api",
			    "answers", NULL, "%s", c->prom_why);
	}
	for (j = 0; j < ARRAY_SIZE(jobs); j++) {
		const struct verify_target	*t = NULL;
		char				*what, *inst;

		if (j == 0 && !p->sw.node_exporter)
			continue;
		if (j == 1 && (!p->sw.dcgm_exporter || verify_gpus(pn) == 0))
			continue;
		what = xasprintf("prometheus %s", jobs[j].job);
		inst = xasprintf("%s:%s", pn->address != NULL ? pn->address :
		    pn->name, jobs[j].port);
		if (!c->prom_ok) {
			verify_row(c, ROW_SKIP, pn->name, what, "up", NULL,
			    "%s", c->prom_why);
			goto next;
		}
		for (i = 0; i < c->tg.n && t == NULL; i++) {
			const struct verify_target	*x = &c->tg.v[i];

			if (x->job == NULL || strcmp(x->job, jobs[j].job) != 0)
				continue;
			if ((x->node != NULL && strcmp(x->node, pn->name) ==
			    0) || (x->instance != NULL && strcmp(x->instance,
			    inst) == 0))
				t = x;
		}
		if (t == NULL)
			verify_row(c, ROW_FAIL, pn->name, what, "up",
			    "no target", "Prometheus does not scrape %s (job "
			    "'%s'): prometheus.yml is not the plan's", inst,
			    jobs[j].job);
		else if (t->health != NULL && strcmp(t->health, "up") == 0)
			verify_row(c, ROW_OK, pn->name, what, "up", "up",
			    NULL);
		else if (t->health != NULL && strcmp(t->health, "unknown") ==
		    0)
			verify_row(c, ROW_WARN, pn->name, what, "up",
			    "unknown", "not scraped yet");
		else
			verify_row(c, ROW_FAIL, pn->name, what, "up",
			    t->health ? t->health : "?", "%s", t->error &&
			    *t->error ? t->error : "scrape failed");
next:
		free(what);
		free(inst);
	}
}

static void
verify_eval_dcgm(struct verify_ctx *c, size_t k)
{
	const struct verify_node	*vn = &c->nodes[k];
	const char			*node = vn->pn->name;
	const struct verify_sec		*s = verify_node_sec(vn, "dcgmi");
	struct verify_dcgm		 d;
	struct prov_err			 err = PROV_ERR_INIT;
	char				 got[64], *l;

	if (!c->o->burn_in || verify_gpus(vn->pn) == 0)
		return;
	memset(&d, 0, sizeof d);
	d.failed = (struct strvec)STRVEC_INIT;
	if (s == NULL) {
		verify_row(c, ROW_SKIP, node, "dcgm diag", "pass", NULL,
		    "not gathered");
		return;
	}
	if (s->rc == 127) {
		verify_row(c, ROW_SKIP, node, "dcgm diag", "pass", NULL,
		    "dcgmi (NVIDIA DCGM) is not installed");
		return;
	}
	if (verify_parse_dcgmi(&d, s->body, &err) != 0) {
		l = verify_oneline(s->body, 200);
		if (strstr(s->body, "host engine") != NULL ||
		    strstr(s->body, "hostengine") != NULL)
			verify_row(c, ROW_SKIP, node, "dcgm diag", "pass",
			    NULL, "DCGM's nv-hostengine is not running: %s", l);
		else
			verify_row(c, ROW_FAIL, node, "dcgm diag", "pass",
			    NULL, "dcgmi diag -r 2 (exit %ld): %s", s->rc, l);
		free(l);
		goto out;
	}
	snprintf(got, sizeof got, "%ld pass, %ld fail, %ld warn, %ld skip",
	    d.pass, d.fail, d.warn, d.skip);
	if (d.fail > 0) {
		struct buf	b = BUF_INIT;
		size_t		i;

		for (i = 0; i < d.failed.n && i < 4; i++)
			buf_addf(&b, "%s%s", i ? "; " : "", d.failed.v[i]);
		verify_row(c, ROW_FAIL, node, "dcgm diag", "pass", got, "%s",
		    b.buf);
		buf_release(&b);
	} else
		verify_row(c, d.warn > 0 ? ROW_WARN : ROW_OK, node,
		    "dcgm diag", "pass", got, NULL);
out:
	verify_dcgm_release(&d);
	prov_err_release(&err);
}

/*
 * What all_reduce_perf should reach, GB/s of bus bandwidth: within a
 * node NVLink one way (the catalog's figure is both ways), or PCIe;
 * across nodes also at most the node's fabric ports.
 */
static double
verify_busbw_ref(const struct plan *p, struct plan_node *const *gpu_nodes,
    size_t n, char **how)
{
	const struct plan_hw	*hw = gpu_nodes[0]->hw;
	const struct cat_gpu	*g = hw->gpu_cat;
	double			 intra = -1, fabric = 0;
	size_t			 i;

	if (g != NULL && !isnan(g->nvlink_gbs) && g->nvlink_gbs > 0) {
		intra = g->nvlink_gbs / 2;
		*how = xasprintf("NVLink %g GB/s one way", intra);
	} else if (g != NULL && g->pcie_gen > 0 && g->pcie_lanes > 0) {
		static const double	lane[] = { 0, 0.25, 0.5, 0.985, 1.969,
		    3.938, 7.563 };

		intra = g->pcie_gen < (long)ARRAY_SIZE(lane) ?
		    lane[g->pcie_gen] * (double)g->pcie_lanes : -1;
		*how = xasprintf("PCIe Gen%ld x%ld %.1f GB/s", g->pcie_gen,
		    g->pcie_lanes, intra);
	} else {
		*how = xstrdup("no GPU interconnect figure in the catalog");
		return -1;
	}
	if (n < 2)
		return intra;
	for (i = 0; i < hw->nnics; i++) {
		const struct plan_nic	*nic = &hw->nics[i];
		const struct plan_net	*net = nic->network ?
		    plan_net_find(p, nic->network) : NULL;
		long			 ports = nic->cat != NULL &&
		    nic->cat->ports > 0 ? nic->cat->ports : 1;
		double			 gbps = nic->cat != NULL &&
		    !isnan(nic->cat->gbps) ? nic->cat->gbps : -1;

		if (net == NULL || net->role == NULL ||
		    strcmp(net->role, "fabric") != 0)
			continue;
		if (!isnan(net->gbps) && (gbps < 0 || net->gbps < gbps))
			gbps = net->gbps;
		if (gbps > 0)
			fabric += gbps / 8.0 * (double)(nic->count > 0 ?
			    nic->count : 1) * (double)ports;
	}
	if (fabric > 0 && fabric < intra) {
		free(*how);
		*how = xasprintf("fabric %g GB/s per node", fabric);
		return fabric;
	}
	return intra;
}

static void
verify_eval_nccl(struct verify_ctx *c)
{
	const struct verify_sec	*s;
	struct verify_nccl	 r;
	struct prov_err		 err = PROV_ERR_INIT;
	struct plan_node	**gn;
	char			*how = NULL, exp[96], got[96], *l;
	double			 ref, ratio;
	size_t			 i, n = 0;

	if (!c->o->burn_in)
		return;
	gn = xcalloc(c->n + 1, sizeof *gn);
	for (i = 0; i < c->n; i++)
		if (verify_gpus(c->nodes[i].pn) > 0)
			gn[n++] = (struct plan_node *)c->nodes[i].pn;
	if (n == 0)
		goto out;
	if (c->head == NULL || !c->head->reached ||
	    (s = verify_node_sec(c->head, "nccl")) == NULL) {
		verify_row(c, ROW_SKIP, VERIFY_CLUSTER, "nccl all_reduce",
		    "bus bandwidth", NULL, "the head did not run it");
		goto out;
	}
	if (s->rc == 127) {
		l = verify_first_line(s->body);
		verify_row(c, ROW_SKIP, VERIFY_CLUSTER, "nccl all_reduce",
		    "bus bandwidth", NULL, "%s", l);
		free(l);
		goto out;
	}
	if (verify_parse_nccl(&r, s->body, &err) != 0) {
		l = verify_oneline(s->body, 200);
		verify_row(c, ROW_FAIL, VERIFY_CLUSTER, "nccl all_reduce",
		    "bus bandwidth", NULL, "all_reduce_perf (exit %ld): %s",
		    s->rc, l);
		free(l);
		goto out;
	}
	ref = verify_busbw_ref(c->p, gn, n, &how);
	snprintf(got, sizeof got, "peak %.1f GB/s, average %.1f GB/s",
	    r.peak_busbw, r.avg_busbw);
	if (r.wrong > 0) {
		verify_row(c, ROW_FAIL, VERIFY_CLUSTER, "nccl all_reduce",
		    "0 wrong", got, "%ld wrong results: data corruption on a "
		    "GPU or link", r.wrong);
		goto out;
	}
	if (ref <= 0) {
		verify_row(c, ROW_SKIP, VERIFY_CLUSTER, "nccl all_reduce",
		    NULL, got, "%s: no ratio", how);
		goto out;
	}
	ratio = r.peak_busbw / ref;
	snprintf(exp, sizeof exp, "~%.0f GB/s (%s)", ref, how);
	snprintf(got, sizeof got, "peak %.1f GB/s (%.2f of it), avg %.1f",
	    r.peak_busbw, ratio, r.avg_busbw);
	verify_row(c, ratio >= VERIFY_BUSBW_OK ? ROW_OK : ratio >=
	    VERIFY_BUSBW_WARN ? ROW_WARN : ROW_FAIL, VERIFY_CLUSTER,
	    "nccl all_reduce", exp, got, ratio >= VERIFY_BUSBW_OK ? "%zu node%s"
	    : "%zu node%s: below %.0f%% of what the interconnect allows", n, n
	    == 1 ? "" : "s", VERIFY_BUSBW_OK * 100);
out:
	free(how);
	free(gn);
	prov_err_release(&err);
}

/* The head's Slurm and Kubernetes views, and Prometheus's. */
static void
verify_eval_prepare(struct verify_ctx *c)
{
	const struct verify_node	*h = c->head;
	const struct verify_sec		*s;
	struct prov_err			 err = PROV_ERR_INIT;
	size_t				 i, j;

	if (verify_is_slurm(c->p)) {
		if (h == NULL)
			c->slurm_why = xstrdup("no head node in the plan");
		else if (!h->reached)
			c->slurm_why = xasprintf("the head '%s' did not "
			    "answer", h->pn->name);
		else if ((s = verify_node_sec(h, "sinfo")) == NULL)
			c->slurm_why = xstrdup("sinfo was not run");
		else if (s->rc != 0) {
			char	*l = verify_oneline(s->body, 200);

			c->slurm_why = xasprintf("sinfo on '%s' failed: %s",
			    h->pn->name, l);
			free(l);
		} else if (verify_parse_sinfo(&c->sl, s->body,
		    "node,state,gres", &err) != 0)
			c->slurm_why = xstrdup(err.msg);
		else
			c->slurm_ok = 1;
		prov_err_release(&err);
		/* scontrol adds the reasons */
		if (c->slurm_ok && (s = verify_node_sec(h, "scontrol")) !=
		    NULL && s->rc == 0) {
			struct verify_slurm	sc;

			memset(&sc, 0, sizeof sc);
			if (verify_parse_scontrol(&sc, s->body, &err) == 0)
				for (i = 0; i < sc.n; i++) {
					struct verify_snode *x =
					    verify_slurm_find(&c->sl,
					    sc.v[i].name);

					if (x == NULL)
						continue;
					if (x->reason == NULL &&
					    sc.v[i].reason != NULL)
						x->reason = xstrdup(
						    sc.v[i].reason);
					if (x->gres == NULL && sc.v[i].gres)
						x->gres = xstrdup(
						    sc.v[i].gres);
				}
			verify_slurm_release(&sc);
			prov_err_release(&err);
		}
	}
	if (verify_is_k8s(c->p)) {
		if (h == NULL || !h->reached)
			c->k8s_why = xstrdup("the head did not answer");
		else if ((s = verify_node_sec(h, "k8s")) == NULL)
			c->k8s_why = xstrdup("kubectl was not run");
		else if (s->rc != 0) {
			char	*l = verify_oneline(s->body, 200);

			c->k8s_why = xasprintf("kubectl on '%s' failed: %s",
			    h->pn->name, l);
			free(l);
		} else if (verify_parse_k8s_nodes(&c->k8, s->body,
		    strlen(s->body), &err) != 0)
			c->k8s_why = xstrdup(err.msg);
		else
			c->k8s_ok = 1;
		prov_err_release(&err);
	}
	if (c->p->sw.prometheus != NULL) {
		if (c->env->prom_url == NULL)
			c->prom_why = xstrdup("Prometheus was not asked");
		else if (c->env->prom_json == NULL)
			c->prom_why = xasprintf("%s: %s", c->env->prom_url,
			    c->env->prom_error ? c->env->prom_error :
			    "no answer");
		else if (verify_parse_prom_targets(&c->tg, c->env->prom_json,
		    c->env->prom_len, &err) != 0)
			c->prom_why = xasprintf("%s: %s", c->env->prom_url,
			    err.msg);
		else
			c->prom_ok = 1;
		prov_err_release(&err);
	}
	/* the MTU most nodes use, per network */
	c->mtu = xcalloc(c->p->nnets + 1, sizeof *c->mtu);
	for (i = 0; i < c->p->nnets; i++) {
		long	*seen = xcalloc(c->n + 1, sizeof *seen);
		size_t	*cnt = xcalloc(c->n + 1, sizeof *cnt), ns = 0, best = 0;

		for (j = 0; j < c->n; j++) {
			const char			*a;
			const struct verify_ifaddr	*ia;
			const struct verify_link	*l;
			size_t				 q;
			int				 ex;

			if (!c->nodes[j].reached)
				continue;
			a = verify_net_addr(c->p, c->nodes[j].pn,
			    &c->p->nets[i]);
			if ((ia = verify_nd_addr(&c->nd[j], a, &ex)) == NULL ||
			    (l = verify_nd_link(&c->nd[j], ia->name)) == NULL ||
			    l->mtu <= 0)
				continue;
			for (q = 0; q < ns; q++)
				if (seen[q] == l->mtu)
					break;
			if (q == ns)
				seen[ns++] = l->mtu;
			cnt[q]++;
		}
		for (j = 0; j < ns; j++)
			if (cnt[j] > best) {
				best = cnt[j];
				c->mtu[i] = seen[j];
			}
		free(seen);
		free(cnt);
	}
}

void
verify_eval(struct rows *out, const struct plan *p,
    struct verify_node *nodes, size_t n, const struct verify_node *head,
    const struct verify_env *env, const struct verify_opts *o)
{
	struct verify_ctx	c;
	size_t			i;

	memset(&c, 0, sizeof c);
	c.p = p;
	c.out = out;
	c.o = o;
	c.env = env;
	c.head = head;
	c.nodes = nodes;
	c.n = n;
	c.nd = xcalloc(n + 1, sizeof *c.nd);
	for (i = 0; i < n; i++)
		if (nodes[i].reached)
			verify_nd_parse(&c.nd[i], &nodes[i]);
	verify_eval_prepare(&c);

	for (i = 0; i < n; i++) {
		struct verify_node	*vn = &nodes[i];
		const char		*name = vn->pn->name;

		if (!vn->reached) {
			verify_row(&c, ROW_FAIL, name, "ssh", "answers", NULL,
			    "%s", vn->error ? vn->error : "no answer");
		} else {
			if (vn->error != NULL)
				verify_row(&c, ROW_FAIL, name, "ssh",
				    "answers", "partly", "%s", vn->error);
			verify_eval_identity(&c, i);
			facts_compare(out, p, vn->pn, vn->facts);
			verify_eval_gpus(&c, i);
			verify_eval_ib(&c, i);
			verify_eval_names(&c, i);
			verify_eval_time(&c, i);
			verify_eval_daemons(&c, i);
			verify_eval_runtime(&c, i);
		}
		verify_eval_slurm(&c, i);
		verify_eval_k8s(&c, i);
		verify_eval_prom(&c, i);
		if (vn->reached)
			verify_eval_dcgm(&c, i);
	}
	verify_eval_nccl(&c);

	for (i = 0; i < n; i++)
		verify_nd_release(&c.nd[i]);
	free(c.nd);
	free(c.mtu);
	free(c.slurm_why);
	free(c.k8s_why);
	free(c.prom_why);
	verify_slurm_release(&c.sl);
	verify_k8s_release(&c.k8);
	verify_targets_release(&c.tg);
}

/* ------------------------------------------------------------------ */
/* Gathering */

struct verify_run_ctx {
	struct ssh_job		*jobs;
	int			*given;
	struct ssh_result	*res;
};

static const struct ssh_job *
verify_run_next(void *arg, size_t host)
{
	struct verify_run_ctx	*r = arg;

	if (r->given[host])
		return NULL;
	r->given[host] = 1;
	return &r->jobs[host];
}

static void
verify_run_done(void *arg, size_t host, const struct ssh_job *job,
    struct ssh_result *res)
{
	struct verify_run_ctx	*r = arg;

	(void)job;
	ssh_result_move(&r->res[host], res);
}

struct verify_http_ctx {
	struct buf	 body;
	long		 status;
	char		*error;
};

static void
verify_http_done(struct http_req *req, void *arg)
{
	struct verify_http_ctx	*h = arg;

	h->status = req->status;
	if (req->status == 200) {
		buf_add(&h->body, req->resp.buf, req->resp.len);
		return;
	}
	if (req->status != 0)
		h->error = xasprintf("HTTP status %ld", req->status);
	else
		h->error = xstrdup(req->err.msg != NULL ? req->err.msg :
		    "no answer");
}

/* GET URL/api/v1/targets; 0 with the body, or -1 with *why. */
static int
verify_prom_get(const char *url, long timeout_ms, struct buf *body,
    char **why)
{
	struct http_opts	 ho = HTTP_OPTS_INIT;
	struct http		*h;
	struct http_req		*req;
	struct verify_http_ctx	 hc = { BUF_INIT, 0, NULL };
	struct prov_err		 err = PROV_ERR_INIT;
	char			*full;
	int			 r = -1;

	ho.timeout_ms = timeout_ms > 0 ? timeout_ms : 10000;
	ho.connect_timeout_ms = ho.timeout_ms;
	ho.retries = 1;
	h = http_new(&ho);
	full = xasprintf("%s/api/v1/targets", url);
	req = http_req_new("GET", full);
	http_req_header(req, "Accept: application/json");
	req->done = verify_http_done;
	req->arg = &hc;
	http_add(h, req);
	if (http_run(h, &err) != 0) {
		*why = xstrdup(err.msg != NULL ? err.msg : "HTTP loop failed");
	} else if (hc.error != NULL) {
		*why = hc.error;
		hc.error = NULL;
	} else {
		buf_add(body, hc.body.buf, hc.body.len);
		r = 0;
	}
	http_free(h);
	free(full);
	free(hc.error);
	buf_release(&hc.body);
	prov_err_release(&err);
	return r;
}

int
verify_run(struct rows *out, struct verify_stats *stats,
    const struct plan *p, const struct verify_opts *o, struct strvec *notes,
    struct prov_err *err)
{
	struct plan_node	**sel = NULL;
	const struct plan_node	 *head = render_head(p);
	struct ssh_config	  cfg = SSH_CONFIG_INIT;
	struct ssh_pool		 *pool = NULL;
	struct ssh_host		 *hosts = NULL;
	struct ssh_handler	  hd;
	struct verify_run_ctx	  rc;
	struct verify_node	 *vn = NULL;
	struct verify_env	  env = VERIFY_ENV_INIT;
	struct buf		 *cmds = NULL, prom = BUF_INIT;
	struct buf		  script = BUF_INIT;
	struct facts		**fs = NULL;
	struct hw_opts		  hwo = HW_OPTS_INIT;
	struct prov_err		  e2 = PROV_ERR_INIT;
	char			 *prom_url = NULL, *prom_why = NULL;
	size_t			  nsel = 0, nh, i, nf = 0, head_ix = (size_t)-1;
	int			  r = -1;

	memset(stats, 0, sizeof *stats);
	memset(&rc, 0, sizeof rc);
	if (plan_select(&sel, &nsel, p, o->nodes, err) != 0)
		goto out;
	if (nsel == 0) {
		prov_err_set(err, PROV_E_USAGE, "no node to verify");
		goto out;
	}
	/* the selected nodes, then the head when it is not one of them */
	nh = nsel;
	for (i = 0; i < nsel; i++)
		if (sel[i] == head)
			head_ix = i;
	if (head != NULL && head_ix == (size_t)-1 && (verify_is_slurm(p) ||
	    verify_is_k8s(p) || o->burn_in))
		head_ix = nh++;
	hosts = xcalloc(nh + 1, sizeof *hosts);
	vn = xcalloc(nh + 1, sizeof *vn);
	cmds = xcalloc(nh + 1, sizeof *cmds);
	rc.jobs = xcalloc(nh + 1, sizeof *rc.jobs);
	rc.given = xcalloc(nh + 1, sizeof *rc.given);
	rc.res = xcalloc(nh + 1, sizeof *rc.res);
	for (i = 0; i < nh; i++) {
		const struct plan_node	*pn = i < nsel ? sel[i] : head;

		vn[i].pn = pn;
		hosts[i].name = pn->name;
		hosts[i].addr = pn->address;
		ssh_result_init(&rc.res[i]);
		cmds[i] = (struct buf)BUF_INIT;
		buf_reset(&script);
		verify_script(&script, p, pn, sel, nsel, o);
		/* The script goes in on stdin, into a file, and runs with
		 * stdin from /dev/null: no size limit of a command line, and
		 * no command of it (srun) can read the rest of it. */
		buf_adds(&cmds[i], "f=$(mktemp /tmp/.provision-verify.XXXXXX) "
		    "&& cat > \"$f\" && sh \"$f\" </dev/null; r=$?; "
		    "rm -f \"$f\"; exit $r");
		rc.jobs[i] = (struct ssh_job)SSH_JOB_INIT;
		rc.jobs[i].command = cmds[i].buf;
		rc.jobs[i].stdin_data = xstrdup(script.buf);
		rc.jobs[i].stdin_len = script.len;
		rc.jobs[i].label = "verify";
	}
	ssh_config_from_plan(&cfg, &p->ssh);
	cfg.passphrase = o->passphrase;
	if (o->forks > 0)
		cfg.forks = o->forks;
	cfg.out_max = 16 * 1024 * 1024;
	cfg.command_timeout_s = o->command_timeout_s > 0 ?
	    o->command_timeout_s : o->burn_in ? 3600 : 300;
	if (ssh_pool_new(&pool, &cfg, hosts, nh, err) != 0)
		goto out;
	hd.next = verify_run_next;
	hd.done = verify_run_done;
	hd.output = NULL;
	hd.arg = &rc;
	env.t0 = verify_now();
	if (ssh_pool_run(pool, &hd, err) != 0)
		goto out;
	env.t1 = verify_now();
	for (i = 0; notes != NULL && i < ssh_pool_notes(pool)->n; i++)
		strvec_push(notes, ssh_pool_notes(pool)->v[i]);
	ssh_pool_close(pool);

	fs = xcalloc(nh + 1, sizeof *fs);
	for (i = 0; i < nh; i++) {
		struct ssh_result	*s = &rc.res[i];
		int			 ran = s->status == SSH_OK ||
		    s->status == SSH_FAILED || (s->status == SSH_TIMEOUT &&
		    s->out.len > 0);

		if (ran && verify_node_parse(&vn[i], s->out.buf, &e2) == 0) {
			vn[i].reached = 1;
			fs[nf++] = vn[i].facts;
			if (s->status == SSH_TIMEOUT)
				vn[i].error = xasprintf("timed out after %ld "
				    "s: later checks are missing",
				    cfg.command_timeout_s);
			else if (s->out.truncated)
				vn[i].error = xasprintf("output cut at %zu "
				    "bytes", (size_t)cfg.out_max);
			if (i < nsel)
				stats->reached++;
		} else if (ran) {
			char	*t = verify_first_line(s->err.buf);

			vn[i].error = xasprintf("%s%s%s", e2.msg, *t ? ": " :
			    "", t);
			free(t);
			prov_err_release(&e2);
		} else
			vn[i].error = xasprintf("%s%s%s",
			    ssh_status_name(s->status), s->error ? ": " : "",
			    s->error ? s->error : "");
	}
	if (nf > 0 && hw_pci_names(fs, nf, &hwo, &e2) != 0) {
		if (notes != NULL)
			strvec_pushf(notes, "%s", e2.msg);
		prov_err_release(&e2);
	}
	for (i = 0; i < nf; i++)
		facts_finish(fs[i], p->catalog);

	/* Prometheus, from here */
	if (p->sw.prometheus != NULL && (p->sw.node_exporter ||
	    p->sw.dcgm_exporter)) {
		const struct plan_node	*pm = plan_node(p, p->sw.prometheus);

		if (o->prometheus_url != NULL)
			prom_url = xstrdup(o->prometheus_url);
		else if (pm != NULL)
			prom_url = xasprintf("http://%s:9090", pm->address ?
			    pm->address : pm->name);
		if (prom_url != NULL) {
			env.prom_url = prom_url;
			if (verify_prom_get(prom_url, o->http_timeout_ms,
			    &prom, &prom_why) == 0) {
				env.prom_json = prom.buf;
				env.prom_len = prom.len;
			} else
				env.prom_error = prom_why;
		}
	}
	verify_eval(out, p, vn, nsel, head_ix != (size_t)-1 ? &vn[head_ix] :
	    NULL, &env, o);
	stats->nodes = nsel;
	r = 0;
out:
	ssh_pool_free(pool);
	for (i = 0; vn != NULL && i < nh; i++) {
		verify_node_release(&vn[i]);
		ssh_result_release(&rc.res[i]);
		buf_release(&cmds[i]);
		if (rc.jobs[i].stdin_data != NULL) {
			free((void *)rc.jobs[i].stdin_data);
		}
	}
	free(vn);
	free(cmds);
	free(rc.jobs);
	free(rc.given);
	free(rc.res);
	free(hosts);
	free(sel);
	free(fs);
	free(prom_url);
	free(prom_why);
	buf_release(&prom);
	buf_release(&script);
	prov_err_release(&e2);
	return r;
}

/* ------------------------------------------------------------------ */
/* JSON */

void
verify_to_json(struct buf *b, const char *plan_path,
    const struct rows *rows, const struct verify_stats *st)
{
	struct json_writer	jw;

	json_init(&jw, b);
	json_object_begin(&jw, NULL, 0);
	json_str(&jw, "plan", plan_path);
	rows_to_json(&jw, "checks", rows);
	json_object_begin(&jw, "summary", 0);
	json_int(&jw, "nodes", st != NULL ? (long long)st->nodes : 0);
	json_int(&jw, "reached", st != NULL ? (long long)st->reached : 0);
	json_int(&jw, "ok", (long long)rows_count(rows, ROW_OK));
	json_int(&jw, "warn", (long long)rows_count(rows, ROW_WARN));
	json_int(&jw, "fail", (long long)rows_count(rows, ROW_FAIL));
	json_int(&jw, "skip", (long long)rows_count(rows, ROW_SKIP));
	json_end(&jw);
	json_end(&jw);
	json_finish(&jw);
}

/* The string at key, or at the key an older verify wrote (node, ...). */
static const char *
verify_json_key(const struct yml_node *c, const char *key, const char *old)
{
	const char	*v = yml_map_str(c, key);

	return v != NULL ? v : yml_map_str(c, old);
}

int
verify_from_json(struct rows *out, const char *label,
    const char *text, size_t len, struct prov_err *err)
{
	struct yml_doc		 doc;
	const struct yml_node	*checks;
	unsigned		 i;
	int			 r = -1;

	if (yml_load_json(&doc, label, text, len, err) != 0)
		goto out;
	checks = doc.root != NULL && doc.root->kind == YML_MAP ?
	    yml_map_get(doc.root, "checks") : NULL;
	if (checks == NULL || checks->kind != YML_SEQ) {
		verify_parse_err(err, label, "no 'checks' list: not the output "
		    "of provision verify --json");
		goto out;
	}
	for (i = 0; i < checks->n; i++) {
		const struct yml_node	*c = checks->u.items[i];
		const char		*node, *what, *vs, *hint;
		enum row_verdict	 v;

		node = verify_json_key(c, "subject", "node");
		what = yml_map_str(c, "check");
		vs = yml_map_str(c, "verdict");
		hint = verify_json_key(c, "hint", "reason");
		if (node == NULL || what == NULL || vs == NULL) {
			verify_parse_err(err, label, "check %u lacks subject, "
			    "check or verdict", i + 1);
			goto out;
		}
		if (row_verdict_parse(vs, &v) != 0) {
			verify_parse_err(err, label, "check %u: unknown "
			    "verdict '%s'", i + 1, vs);
			goto out;
		}
		rows_addf(out, v, node, what,
		    verify_json_key(c, "limit", "expected"),
		    verify_json_key(c, "measured", "found"),
		    hint != NULL ? "%s" : NULL, hint);
	}
	r = 0;
out:
	yml_doc_release(&doc);
	return r;
}

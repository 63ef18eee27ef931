/*
 * verify-parse.c: read what verify's tools print on a node (nvidia-smi,
 * sinfo, scontrol, chronyc, timedatectl, the kernel log, Prometheus,
 * kubectl, nccl-tests, dcgmi) and a node's sectioned answer.
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
#include <time.h>

#include "frame.h"
#include "plan.h"
#include "str.h"
#include "verify-int.h"
#include "xml.h"

/* ------------------------------------------------------------------ */
/* Small helpers */

/* A whole non-negative decimal integer, or -1 ("N/A", "", "12 C"). */
long
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

/* Split at blanks and tabs, skipping empty fields. */
void
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
char *
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
char *
verify_oneline(const char *s, size_t max)
{
	struct strvec	lines = STRVEC_INIT;
	struct buf	b = BUF_INIT;
	size_t		i;

	strvec_split_lines(&lines, s != NULL ? s : "");
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

double
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
			str_set(&g->bus_id, norm);
	} else if (strcmp(rest, "product_name") == 0)
		str_set(&g->name, text);
	else if (strcmp(rest, "persistence_mode") == 0)
		str_set(&g->persistence, text);
	else if (strcmp(rest, "mig_mode/current_mig") == 0)
		str_set(&g->mig_mode, strcmp(text, "N/A") == 0 ? NULL : text);
	else if (strcmp(rest, "ecc_mode/current_ecc") == 0)
		str_set(&g->ecc_mode, strcmp(text, "N/A") == 0 ? NULL :
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

/* The health of each <gpu> of an nvidia_smi_log tree (XML or -q text). */
static void
verify_nvsmi_tree(struct verify_nvsmi *nv, const struct xml_node *root)
{
	const struct xml_node	*x;
	struct buf		 path = BUF_INIT;
	const char		*v;

	if ((v = xml_path(root, "driver_version")) != NULL)
		str_set(&nv->driver_version, v);
	if ((v = xml_path(root, "attached_gpus")) != NULL)
		nv->attached = verify_long(v);
	for (x = root->child; x != NULL; x = x->next) {
		struct verify_gpu	*g;

		if (strcmp(x->name, "gpu") != 0)
			continue;
		g = verify_nv_gpu(nv, x->id);
		verify_nv_walk(g, x, &path);
		g->mig_devices = facts_nvsmi_mig_count(x);
	}
	buf_release(&path);
}

int
verify_parse_nvsmi_xml(struct verify_nvsmi *nv, const char *text,
    struct prov_err *err)
{
	struct xml_node		*root = NULL;
	int			 r = -1;

	nv->attached = -1;
	if (xml_parse(&root, "nvidia-smi -q -x", text, err) != 0)
		goto out;
	if (strcmp(root->name, "nvidia_smi_log") != 0) {
		prov_err_parse(err, "nvidia-smi -q -x", "the root element "
		    "is not 'nvidia_smi_log'");
		goto out;
	}
	verify_nvsmi_tree(nv, root);
	r = 0;
out:
	xml_free(root);
	return r;
}

int
verify_parse_nvsmi_q(struct verify_nvsmi *nv, const char *text,
    struct prov_err *err)
{
	struct xml_node	*root;

	nv->attached = -1;
	if (facts_nvsmi_q_tree(&root, text, err) != 0)
		return -1;
	verify_nvsmi_tree(nv, root);
	xml_free(root);
	return 0;
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
		free(nv->gpus[i].mig_mode);
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
	n->gpus_used = -1;
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
	long		inode, istate, igres, iused;
	size_t		i;
	int		r = -1;

	strvec_split(&fl, fields, ',', 1);
	inode = strvec_find(&fl, "node");
	istate = strvec_find(&fl, "state");
	igres = strvec_find(&fl, "gres");
	iused = strvec_find(&fl, "gresused");
	if (inode < 0) {
		prov_err_parse(err, "sinfo", "no 'node' column in '%s'",
		    fields);
		goto out;
	}
	strvec_split_lines(&lines, text);
	for (i = 0; i < lines.n; i++) {
		struct verify_snode	*n;

		strvec_clear(&w);
		verify_words(&w, lines.v[i]);
		if (w.n == 0)
			continue;
		if (w.n < fl.n) {
			prov_err_parse(err, "sinfo", "line %zu has %zu "
			    "columns, not %zu", i + 1, w.n, fl.n);
			goto out;
		}
		if (!str_is_hostname(w.v[inode])) {
			prov_err_parse(err, "sinfo", "'%s' on line %zu is "
			    "not a node name", w.v[inode], i + 1);
			goto out;
		}
		n = verify_slurm_get(s, w.v[inode]);
		if (istate >= 0 && n->state == NULL)
			n->state = xstrdup(w.v[istate]);
		if (igres >= 0 && n->gres == NULL)
			n->gres = xstrdup(w.v[igres]);
		if (iused >= 0 && n->gpus_used < 0)
			n->gpus_used = verify_gres_gpus(w.v[iused]);
	}
	r = 0;
out:
	strvec_clear(&w);
	strvec_clear(&fl);
	strvec_clear(&lines);
	return r;
}

/* "cpu=4,mem=8G,gres/gpu=2,gres/gpu:h100=2": the untyped gpu total. */
static long
verify_tres_gpus(const char *tres)
{
	const char	*p = tres;

	while ((p = strstr(p, "gres/gpu=")) != NULL) {
		if (p == tres || p[-1] == ',') {
			char	*n = xstrndup(p + 9, strcspn(p + 9, ","));
			long	 v = verify_long(n);

			free(n);
			return v;
		}
		p += 9;
	}
	return 0;
}

int
verify_parse_scontrol(struct verify_slurm *s, const char *text,
    struct prov_err *err)
{
	struct strvec	lines = STRVEC_INIT, w = STRVEC_INIT;
	size_t		i, j, nodes = 0;
	int		r = -1;

	strvec_split_lines(&lines, text);
	for (i = 0; i < lines.n; i++) {
		struct verify_snode	*n = NULL;
		const char		*reason;
		char			*l = str_trim(lines.v[i]);

		if (*l == '\0')
			continue;
		if (!str_starts(l, "NodeName=")) {
			prov_err_parse(err, "scontrol show node", "line %zu "
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
					prov_err_parse(err, "scontrol show "
					    "node", "bad NodeName '%s' on line "
					    "%zu", eq + 1, i + 1);
					goto out;
				}
				n = verify_slurm_get(s, eq + 1);
				nodes++;
			} else if (n == NULL)
				continue;
			else if (strcmp(w.v[j], "State") == 0)
				str_set(&n->state, eq + 1);
			else if (strcmp(w.v[j], "Gres") == 0)
				str_set(&n->gres, eq + 1);
			else if (strcmp(w.v[j], "GresUsed") == 0)
				n->gpus_used = verify_gres_gpus(eq + 1);
			else if (strcmp(w.v[j], "AllocTRES") == 0 &&
			    n->gpus_used < 0)
				n->gpus_used = verify_tres_gpus(eq + 1);
		}
		if (n != NULL && reason != NULL)
			str_set(&n->reason, str_trim((char *)reason + 8));
	}
	if (nodes == 0 && strspn(text, " \t\r\n") != strlen(text)) {
		prov_err_parse(err, "scontrol show node", "no nodes");
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
	strvec_split_lines(&lines, text);
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
			str_set(&stratum, v);
		else if (strcmp(k, "Reference ID") == 0)
			str_set(&ref, v);
		else if (strcmp(k, "System time") == 0) {
			double	 d;
			char	*end;

			d = strtod(v, &end);
			if (end != v && isfinite(d))
				t->offset_s = fabs(d);
		}
	}
	if (leap == NULL) {
		prov_err_parse(err, "chronyc tracking", "no 'Leap status' "
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
	strvec_split_lines(&lines, text);
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
		return prov_err_parse(err, "timedatectl", "no "
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
	strvec_split_lines(&lines, text);
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
verify_parse_rfc3339(const char *s, double *out)
{
	struct tm	 tm;
	const char	*p;
	double		 frac = 0, scale = 0.1;
	int		 n = -1, oh, om;
	time_t		 t;

	memset(&tm, 0, sizeof tm);
	if (s == NULL || sscanf(s, "%4d-%2d-%2d%*1[Tt ]%2d:%2d:%2d%n",
	    &tm.tm_year, &tm.tm_mon, &tm.tm_mday, &tm.tm_hour, &tm.tm_min,
	    &tm.tm_sec, &n) != 6 || n < 19)
		return -1;
	p = s + n;
	if (*p == '.') {
		if (!isdigit((unsigned char)*++p))
			return -1;
		for (; isdigit((unsigned char)*p); p++, scale /= 10)
			frac += (*p - '0') * scale;
	}
	tm.tm_year -= 1900;
	tm.tm_mon -= 1;
	if (tm.tm_mon < 0 || tm.tm_mon > 11 || tm.tm_mday < 1 ||
	    tm.tm_mday > 31 || tm.tm_hour > 23 || tm.tm_min > 59 ||
	    tm.tm_sec > 60)
		return -1;
	t = timegm(&tm);
	if (*p == 'Z' || *p == 'z')
		p++;
	else if ((*p == '+' || *p == '-') && isdigit((unsigned char)p[1]) &&
	    isdigit((unsigned char)p[2]) && p[3] == ':' &&
	    isdigit((unsigned char)p[4]) && isdigit((unsigned char)p[5])) {
		oh = (p[1] - '0') * 10 + (p[2] - '0');
		om = (p[4] - '0') * 10 + (p[5] - '0');
		if (oh > 23 || om > 59)
			return -1;
		/* local time is UTC plus the offset */
		t -= (*p == '+' ? 1 : -1) * (time_t)(oh * 3600 + om * 60);
		p += 6;
	} else
		return -1;
	if (*p != '\0')
		return -1;
	*out = (double)t + frac;
	return 0;
}

int
verify_parse_prom_duration(const char *s, double *out)
{
	/* Prometheus's units (model.ParseDuration), longest first */
	static const struct {
		const char	*unit;
		double		 sec;
	} units[] = { { "ms", 0.001 }, { "s", 1 }, { "m", 60 },
	    { "h", 3600 }, { "d", 86400 }, { "w", 604800 },
	    { "y", 31536000 } };
	const char	*p = s;
	double		 total = 0;
	size_t		 i;

	if (s == NULL || *s == '\0')
		return -1;
	while (*p != '\0') {
		unsigned long	 v;
		char		*end;

		if (!isdigit((unsigned char)*p))
			return -1;
		errno = 0;
		v = strtoul(p, &end, 10);
		if (errno != 0)
			return -1;
		for (i = 0; i < ARRAY_SIZE(units); i++)
			if (strncmp(end, units[i].unit,
			    strlen(units[i].unit)) == 0)
				break;
		if (i == ARRAY_SIZE(units))
			return -1;
		total += (double)v * units[i].sec;
		p = end + strlen(units[i].unit);
	}
	*out = total;
	return 0;
}

/* The jobs whose targets verify judges (verify_eval_prom). */
static int
verify_prom_judged(const char *job)
{
	return job != NULL && (strcmp(job, "node") == 0 ||
	    strcmp(job, "dcgm") == 0);
}

int
verify_prom_stale(const struct verify_target *x, double since)
{
	if (!verify_prom_judged(x->job))
		return 0;
	if (x->health != NULL && strcmp(x->health, "up") == 0)
		return 0;
	/* no lastScrape in the answer: a newer scrape cannot be told */
	return x->last_scrape != 0 && x->last_scrape < since;
}

double
verify_prom_wait(const struct verify_targets *t, double since)
{
	double	w, most = 0;
	size_t	i;

	for (i = 0; i < t->n; i++) {
		const struct verify_target	*x = &t->v[i];

		if (!verify_prom_stale(x, since))
			continue;
		w = (x->interval > 0 ? x->interval : 60) +
		    (x->timeout > 0 ? x->timeout : 10) + VERIFY_PROM_MARGIN;
		if (w > most)
			most = w;
	}
	return most;
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
		prov_err_parse(err, "prometheus targets", "not a successful "
		    "/api/v1/targets answer (status %s)", st ? st : "missing");
		goto out;
	}
	act = yml_map_get(data, "activeTargets");
	if (act == NULL || act->kind != YML_SEQ) {
		prov_err_parse(err, "prometheus targets", "no "
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
		str_set(&x->job, yml_map_str(lab, "job"));
		str_set(&x->node, yml_map_str(lab, "node"));
		str_set(&x->instance, yml_map_str(lab, "instance"));
		str_set(&x->health, yml_map_str(o, "health"));
		str_set(&x->error, yml_map_str(o, "lastError"));
		/* never scraped: "0001-01-01T00:00:00Z", before any start */
		if (verify_parse_rfc3339(yml_map_str(o, "lastScrape"),
		    &x->last_scrape) != 0)
			x->last_scrape = 0;
		if (verify_parse_prom_duration(yml_map_str(o,
		    "scrapeInterval"), &x->interval) != 0)
			x->interval = 0;
		if (verify_parse_prom_duration(yml_map_str(o,
		    "scrapeTimeout"), &x->timeout) != 0)
			x->timeout = 0;
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
		prov_err_parse(err, "kubectl get nodes", "no 'items' list");
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
			str_set(&x->ready_reason, yml_map_str(c,
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

int
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

	memset(r, 0, sizeof *r);
	r->hosts = (struct strvec)STRVEC_INIT;
	r->avg_busbw = -1;
	r->peak_busbw = -1;
	r->peak_bytes = -1;
	r->wrong = -1;
	strvec_split_lines(&lines, text);
	for (i = 0; i < lines.n; i++) {
		char	*l = str_trim(lines.v[i]);
		double	 size, bw_out, bw_in, wr;
		size_t	 n;

		if (str_starts(l, "#")) {
			const char	*p = strstr(l, "Avg bus bandwidth");
			size_t		 k;

			if (strstr(l, "busbw") != NULL)
				header = 1;
			if (strstr(l, "nccl-tests version") != NULL &&
			    r->version == NULL)
				r->version = xstrdup(str_trim(l + 1));
			/* "#  Rank  3 Group  0 Pid 6902 on gpu01 device  3" */
			strvec_clear(&w);
			verify_words(&w, l + 1);
			for (k = 1; w.n > 3 && strcmp(w.v[0], "Rank") == 0 &&
			    k + 1 < w.n; k++) {
				if (strcmp(w.v[k], "on") != 0)
					continue;
				r->ranks++;
				if (strvec_find(&r->hosts, w.v[k + 1]) < 0)
					strvec_push(&r->hosts, w.v[k + 1]);
				break;
			}
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
		if (bw_out > r->peak_busbw || bw_in > r->peak_busbw) {
			r->peak_busbw = bw_out > bw_in ? bw_out : bw_in;
			r->peak_bytes = size;
		}
		if (verify_is_num(w.v[n - 5], &wr))
			r->wrong = (r->wrong < 0 ? 0 : r->wrong) + (long)wr;
		if (verify_is_num(w.v[n - 1], &wr))
			r->wrong = (r->wrong < 0 ? 0 : r->wrong) + (long)wr;
	}
	if (!header || (r->sizes == 0 && r->avg_busbw < 0)) {
		prov_err_parse(err, "all_reduce_perf", "no result table");
		goto out;
	}
	rc = 0;
out:
	strvec_clear(&w);
	strvec_clear(&lines);
	return rc;
}

void
verify_nccl_release(struct verify_nccl *r)
{
	if (r == NULL)
		return;
	strvec_clear(&r->hosts);
	free(r->version);
	r->version = NULL;
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
	strvec_split_lines(&lines, text);
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
		return prov_err_parse(err, "dcgmi diag", "no test results");
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

/* A section of the verify script's own ("v-NAME"); facts' are facts'. */
static void
verify_node_add(void *arg, const char *name, const char *text, long rc)
{
	struct verify_node	*n = arg;
	struct verify_sec	*s;

	if (!str_starts(name, "v-"))
		return;
	ALLOC_GROW(n->secs, n->nsecs + 1, n->secs_alloc);
	s = &n->secs[n->nsecs++];
	s->name = xstrdup(name + 2);
	s->body = xstrdup(text);
	s->rc = rc;
}

int
verify_node_parse(struct verify_node *n, const char *out,
    struct prov_err *err)
{
	facts_free(n->facts);
	n->facts = facts_new();
	if (facts_parse_script(n->facts, out, err) != 0)
		return -1;
	frame_each(out, verify_node_add, n);
	return 0;
}

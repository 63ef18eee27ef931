/*
 * facts-drift.c: a node's facts against its plan node: rows (row.h) for
 * the OS, GPUs and their links, memory and planned NICs.
 */
#include "compat.h"

#include <math.h>

#include "facts-int.h"
#include "plan.h"
#include "row.h"

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

/*
 * GPUs counted on the PCI bus (no nvidia-smi) from a list that cannot
 * say how many there are: a saved lspci cut by grep or -d, or devices
 * whose ids stayed unknown.  A skip row that says so, and 1; else 0.
 */
static int
facts_cmp_gpus_unsure(struct rows *out, const char *node, const char *w,
    size_t have, long want, const struct facts *f)
{
	size_t	unsure = facts_pci_unsure(f);
	char	got[48];

	if ((have > 0 && (f->gpus[0].source == NULL ||
	    strcmp(f->gpus[0].source, "pci") != 0)) || (long)have == want)
		return 0;
	snprintf(got, sizeof got, "%zu or more (PCI bus)", have);
	if (f->pci_partial && (long)have < want)
		rows_addf(out, ROW_SKIP, node, "gpu count", w, got, "the PCI "
		    "list is filtered (no host bridge in it, as after grep or "
		    "lspci -d): give the whole lspci or nvidia-smi");
	else if (unsure > 0)
		rows_addf(out, ROW_SKIP, node, "gpu count", w, got, "%zu PCI "
		    "device%s without vendor and device ids (plain lspci whose "
		    "names pci.ids does not know) may be GPUs: give `lspci -nn` "
		    "or nvidia-smi output", unsure, unsure == 1 ? "" : "s");
	else
		return 0;
	return 1;
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
	if (facts_cmp_gpus_unsure(out, node, w, have, want, f))
		return;
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

/*
 * MIG mode (nvidia-smi's mig.mode.current) against the plan's layout:
 * with one, every GPU wants MIG on; without, MIG on is a warning (jobs
 * get slices).  The instances themselves are verify's (nvidia-smi -q -x
 * lists them).  No row when no GPU reports a mode and none is planned.
 */
static void
facts_cmp_mig(struct rows *out, const struct plan_hw *hw, const char *node,
    const struct facts *f)
{
	size_t	i, on = 0, known = 0;
	char	got[48];

	for (i = 0; i < f->ngpus; i++)
		if (f->gpus[i].mig_mode != NULL) {
			known++;
			on += strcmp(f->gpus[i].mig_mode, "Enabled") == 0;
		}
	snprintf(got, sizeof got, "MIG on %zu of %zu GPU%s", on, f->ngpus,
	    f->ngpus == 1 ? "" : "s");
	if (hw->mig.n == 0) {
		if (on > 0)
			rows_addf(out, ROW_WARN, node, "gpu mig mode", "off", got,
			    "the plan has no MIG layout: jobs get MIG slices, "
			    "not whole GPUs");
		return;
	}
	if (known == 0)
		rows_addf(out, ROW_SKIP, node, "gpu mig mode", "MIG on", NULL,
		    "no GPU reported a MIG mode (nvidia-smi missing, a driver "
		    "before R450, or GPUs without MIG)");
	else if (on < f->ngpus)
		rows_addf(out, ROW_FAIL, node, "gpu mig mode", "MIG on", got,
		    "the plan has a MIG layout: apply's gpu-driver step "
		    "enables MIG");
	else
		rows_addf(out, ROW_OK, node, "gpu mig mode", "MIG on", got, NULL);
}

/*
 * Huge pages are pinned: a job cannot allocate them, so what is left for
 * jobs is MemTotal less them, held to check's rule of at least the GPU
 * memory (staging buffers, checkpoints).  No row without huge pages.
 */
static void
facts_cmp_hugepages(struct rows *out, const struct plan_hw *hw,
    const char *node, const struct facts *f)
{
	double	left_gib, gpu_gib = 0;
	char	exp[64], got[96];

	if (f->hugepages_kb <= 0 || f->mem_kb < 0)
		return;
	left_gib = (double)(f->mem_kb - f->hugepages_kb) / (1024.0 * 1024.0);
	snprintf(got, sizeof got, "%.1f GiB (%.1f GiB in huge pages)",
	    left_gib, (double)f->hugepages_kb / (1024.0 * 1024.0));
	if (hw->gpu_cat != NULL && hw->ngpus > 0 &&
	    !isnan(hw->gpu_cat->memory_gb))
		gpu_gib = (double)hw->ngpus * hw->gpu_cat->memory_gb;
	if (gpu_gib <= 0) {
		rows_addf(out, ROW_OK, node, "memory for jobs", NULL, got,
		    "huge pages are not available to jobs");
		return;
	}
	snprintf(exp, sizeof exp, ">= %g GiB (GPU memory)", gpu_gib);
	if (left_gib >= gpu_gib)
		rows_addf(out, ROW_OK, node, "memory for jobs", exp, got,
		    NULL);
	else
		rows_addf(out, ROW_WARN, node, "memory for jobs", exp, got,
		    "huge pages leave jobs less memory than the GPUs hold: "
		    "lower vm.nr_hugepages or plan more RAM");
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
	facts_cmp_hugepages(out, hw, node, f);
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
		if (f->pci_partial)
			rows_addf(out, ROW_SKIP, node, what.buf, exp.buf,
			    got.buf, "the PCI list is filtered (no host "
			    "bridge in it): %s may be left out", ids.buf);
		else
			rows_addf(out, ROW_FAIL, node, what.buf, exp.buf,
			    got.buf, "%ld missing (no PCI device %s)",
			    w->count - (long)cards.n, ids.buf);
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
	facts_cmp_mig(out, nd->hw, nd->name, f);
	facts_cmp_memory(out, nd->hw, nd->name, f);
	facts_cmp_nics(out, p, nd->hw, nd->name, f);
}

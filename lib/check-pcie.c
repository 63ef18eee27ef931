/*
 * check-pcie.c: the pcie checks: cards into slots by a backtracking search,
 * then per hardware model form factors, baseboard GPUs, generation, lanes
 * and lanes per socket (the rules are in check.c).
 */
#include "compat.h"

#include <ctype.h>
#include <math.h>

#include "check-int.h"

/* ------------------------------------------------------------------ */
/* PCIe: cards, slots and the search.                                  */

/*
 * For each plan NIC of hw, how many of its count are the system's own
 * built-in NICs of the same model: plan entries draw the built-in counts
 * down in order (BMC ports never).  builtin[] has hw->nnics entries;
 * left[] (one per system NIC) ends with what no plan entry named.
 */
void
check_nic_builtin(const struct plan_hw *hw, long *builtin, long *left)
{
	const struct cat_system	*sys = hw->sys;
	size_t			 i, j;

	for (j = 0; sys != NULL && j < sys->nnics; j++)
		left[j] = sys->nics[j].count > 0 ? sys->nics[j].count : 0;
	for (i = 0; i < hw->nnics; i++) {
		const struct plan_nic	*n = &hw->nics[i];
		long			 need = n->count, take;

		builtin[i] = 0;
		for (j = 0; sys != NULL && j < sys->nnics && need > 0; j++) {
			const struct cat_fixed	*f = &sys->nics[j];

			if (left[j] == 0 || f->model == NULL ||
			    (f->role != NULL && strcmp(f->role, "bmc") == 0))
				continue;
			if (n->cat != NULL ? !check_is(&n->cat->m, f->model) :
			    n->model == NULL || strcmp(n->model, f->model) != 0)
				continue;
			take = need < left[j] ? need : left[j];
			left[j] -= take;
			builtin[i] += take;
			need -= take;
		}
	}
}

static int
check_nic_needs_slot(const struct cat_nic *cat)
{
	if (cat == NULL || cat->onboard)
		return 0;
	if (cat->form_factor != NULL &&
	    (strcmp(cat->form_factor, "onboard") == 0 ||
	    strcmp(cat->form_factor, "ocp3") == 0))
		return 0;
	return 1;
}

static void
check_card_gpu(struct check_card *cd, const struct cat_gpu *g)
{
	memset(cd, 0, sizeof *cd);
	cd->kind = "gpu";
	cd->model = g->m.id;
	cd->form_factor = g->form_factor;
	cd->width = g->slot_width > 0 ? (int)g->slot_width : 2;
	cd->lanes = g->pcie_lanes > 0 ? g->pcie_lanes : 16;
	cd->gen = g->pcie_gen;
	cd->low_profile_ok = strcmp(g->form_factor, "hhhl") == 0;
	cd->full_length = strcmp(g->form_factor, "fhfl") == 0;
	cd->assumed = g->slot_width <= 0 || g->pcie_lanes <= 0;
}

static void
check_card_nic(struct check_card *cd, const struct cat_nic *n)
{
	const char	*ff = n->form_factor != NULL ? n->form_factor : "fhfl";

	memset(cd, 0, sizeof *cd);
	cd->kind = "nic";
	cd->model = n->m.id;
	cd->form_factor = ff;
	cd->width = n->slot_width > 0 ? (int)n->slot_width : 1;
	cd->lanes = n->pcie_lanes > 0 ? n->pcie_lanes : 16;
	cd->gen = n->pcie_gen;
	cd->low_profile_ok = strcmp(ff, "hhhl") == 0;
	cd->full_length = strcmp(ff, "fhfl") == 0;
	cd->assumed = n->slot_width <= 0 || n->pcie_lanes <= 0 ||
	    n->form_factor == NULL;
}

/* The add-in cards of hw (caller frees). */
static struct check_card *
check_cards(const struct plan_hw *hw, size_t *ncards)
{
	struct check_card	*v = NULL;
	size_t			 n = 0, alloc = 0, i;
	long			 k, *builtin, *left;

	builtin = xcalloc(hw->nnics + 1, sizeof *builtin);
	left = xcalloc(hw->sys != NULL ? hw->sys->nnics + 1 : 1, sizeof *left);
	check_nic_builtin(hw, builtin, left);
	if (hw->gpu_cat != NULL && hw->ngpus > 0 &&
	    !check_baseboard_ff(hw->gpu_cat->form_factor))
		for (k = 0; k < hw->ngpus; k++) {
			ALLOC_GROW(v, n + 1, alloc);
			check_card_gpu(&v[n++], hw->gpu_cat);
		}
	for (i = 0; i < hw->nnics; i++) {
		const struct plan_nic	*pn = &hw->nics[i];

		if (!check_nic_needs_slot(pn->cat))
			continue;
		for (k = builtin[i]; k < pn->count; k++) {
			ALLOC_GROW(v, n + 1, alloc);
			check_card_nic(&v[n++], pn->cat);
		}
	}
	free(builtin);
	free(left);
	*ncards = n;
	return v;
}

/* Slot labels: the catalog name, numbered 1..N when it repeats. */
static void
check_slot_names(struct check_slot_use *u, const struct cat_system *sys)
{
	size_t	i, j, same, nth;

	for (i = 0; i < sys->nslots; i++) {
		const char	*base = sys->slots[i].name != NULL ?
		    sys->slots[i].name : "slot";

		same = nth = 0;
		for (j = 0; j < sys->nslots; j++) {
			const char	*b = sys->slots[j].name != NULL ?
			    sys->slots[j].name : "slot";

			if (strcmp(b, base) != 0)
				continue;
			same++;
			if (j <= i)
				nth++;
		}
		if (same > 1 || sys->slots[i].name == NULL)
			snprintf(u[i].name, sizeof u[i].name, "%s%zu", base,
			    nth);
		else
			snprintf(u[i].name, sizeof u[i].name, "%s", base);
	}
}

/* Why `cd` cannot go into slot `s` on its own, or NULL when it can. */
static const char *
check_slot_misfit(const struct check_card *cd, const struct cat_slot *s,
    char *buf, size_t len)
{
	if (s->lanes < cd->lanes) {
		snprintf(buf, len, "x%ld electrical, card needs x%ld", s->lanes,
		    cd->lanes);
		return buf;
	}
	if (s->mech < cd->lanes) {
		snprintf(buf, len, "x%ld connector, card needs x%ld", s->mech,
		    cd->lanes);
		return buf;
	}
	if (s->low_profile && !cd->low_profile_ok) {
		snprintf(buf, len, "low-profile only, card is %s",
		    cd->form_factor);
		return buf;
	}
	if (s->half_length && cd->full_length) {
		snprintf(buf, len, "half-length only, card is %s",
		    cd->form_factor);
		return buf;
	}
	return NULL;
}

struct check_srch {
	const struct check_card	*cards;
	size_t			 ncards;
	const struct cat_slot	*slots;
	size_t			 nslots;
	size_t			*order;		/* cards, biggest first */
	size_t			*at;		/* slot of order[k] */
	int			*state;		/* card, -1 free, -2 blocked */
	int			*best;		/* state at the deepest point */
	size_t			 bestk;
	size_t			 nfree;
	unsigned long		 steps;
};

static int
check_card_cmp(const struct check_card *a, const struct check_card *b)
{
	int	r;

	if (a->width != b->width)
		return b->width - a->width;
	if (a->full_length != b->full_length)
		return b->full_length - a->full_length;
	if (a->low_profile_ok != b->low_profile_ok)
		return a->low_profile_ok - b->low_profile_ok;
	if (a->lanes != b->lanes)
		return a->lanes > b->lanes ? -1 : 1;
	if ((r = strcmp(a->kind, b->kind)) != 0)
		return strcmp(a->kind, "gpu") == 0 ? -1 : r;
	return strcmp(a->model, b->model);
}

/* Slots a card of width w in slot s would block: the next (w - room). */
static size_t
check_overhang(const struct check_srch *sr, size_t s, int w)
{
	long	room = sr->slots[s].room > 0 ? sr->slots[s].room : 1;

	return w > room ? (size_t)(w - room) : 0;
}

/* 1: all placed; 0: not from here; -1: out of steps. */
static int
check_place(struct check_srch *sr, size_t k)
{
	const struct check_card	*cd;
	size_t			 s, start = 0, i, over;
	int			 ci, r;

	if (k == sr->ncards)
		return 1;
	if (++sr->steps > CHECK_SEARCH_STEPS)
		return -1;
	if (sr->ncards - k > sr->nfree)
		return 0;
	ci = (int)sr->order[k];
	cd = &sr->cards[ci];
	/* Identical cards take increasing slots: no permutations. */
	if (k > 0 && check_card_cmp(&sr->cards[sr->order[k - 1]], cd) == 0)
		start = sr->at[k - 1] + 1;
	for (s = start; s < sr->nslots; s++) {
		char	buf[96];

		if (sr->state[s] != -1 || check_slot_misfit(cd,
		    &sr->slots[s], buf, sizeof buf) != NULL)
			continue;
		/* The slots it overhangs must exist and be free. */
		over = check_overhang(sr, s, cd->width);
		if (s + over >= sr->nslots)
			continue;
		for (i = 1; i <= over; i++)
			if (sr->state[s + i] != -1)
				break;
		if (i <= over)
			continue;
		sr->state[s] = ci;
		sr->nfree--;
		for (i = 1; i <= over; i++) {
			sr->state[s + i] = -2;
			sr->nfree--;
		}
		sr->at[k] = s;
		if (k + 1 > sr->bestk) {
			sr->bestk = k + 1;
			memcpy(sr->best, sr->state,
			    sr->nslots * sizeof *sr->best);
		}
		r = check_place(sr, k + 1);
		if (r != 0)
			return r;
		sr->state[s] = -1;
		sr->nfree++;
		for (i = 1; i <= over; i++) {
			sr->state[s + i] = -1;
			sr->nfree++;
		}
	}
	return 0;
}

/* "gpu a100-pcie-80gb #9 of 9 does not fit: aux1, aux2: ...; 8 slots taken" */
static char *
check_misfit_why(const struct check_srch *sr, const struct check_slot_use *u)
{
	const struct check_card	*cd = &sr->cards[sr->order[sr->bestk]];
	struct buf		 b = BUF_INIT;
	struct strvec		 reasons = STRVEC_INIT;
	size_t			 i, j, nth = 0, of = 0, taken = 0;
	char			 buf[96];
	char			**names;

	for (i = 0; i < sr->ncards; i++)
		if (check_card_cmp(&sr->cards[i], cd) == 0)
			of++;
	/* nth among its kind: the cards before it in the search order. */
	for (i = 0; i <= sr->bestk; i++)
		if (check_card_cmp(&sr->cards[sr->order[i]], cd) == 0)
			nth++;
	buf_addf(&b, "%s %s", cd->kind, cd->model);
	if (of > 1)
		buf_addf(&b, " #%zu of %zu", nth, of);
	buf_addf(&b, " (x%ld, %s, %s) does not fit", cd->lanes,
	    cd->width > 1 ? "dual-width" : "single-width", cd->form_factor);
	names = xcalloc(sr->nslots + 1, sizeof *names);
	for (i = 0; i < sr->nslots; i++) {
		const char	*why;

		if (sr->best[i] != -1) {
			taken++;
			continue;
		}
		why = check_slot_misfit(cd, &sr->slots[i], buf, sizeof buf);
		if (why == NULL) {
			size_t	over = check_overhang(sr, i, cd->width);

			if (i + over >= sr->nslots)
				snprintf(buf, sizeof buf, "room for %ld %s, "
				    "card is %d wide", sr->slots[i].room,
				    check_plural(sr->slots[i].room, "width",
				    "widths"), cd->width);
			else
				snprintf(buf, sizeof buf, "a %d-wide card "
				    "would cover the next %s, taken",
				    cd->width, check_plural((long)over,
				    "slot", "slots"));
			why = buf;
		}
		/* Group slots with the same reason: "aux1, aux2: ...". */
		for (j = 0; j < reasons.n; j++)
			if (strcmp(reasons.v[j], why) == 0)
				break;
		if (j == reasons.n)
			strvec_push(&reasons, why);
		if (names[j] == NULL)
			names[j] = xstrdup(u[i].name);
		else {
			char	*t = xasprintf("%s, %s", names[j], u[i].name);

			free(names[j]);
			names[j] = t;
		}
	}
	if (sr->nslots == 0)
		buf_adds(&b, ": the system has no PCIe slots for add-in cards");
	for (j = 0; j < reasons.n; j++)
		buf_addf(&b, "%s %s: %s", j == 0 ? ":" : ";", names[j],
		    reasons.v[j]);
	if (taken > 0)
		buf_addf(&b, "%s %zu %s taken or blocked by the other cards",
		    reasons.n == 0 ? ":" : ";", taken,
		    check_plural((long)taken, "slot", "slots"));
	for (j = 0; j < sr->nslots; j++)
		free(names[j]);
	free(names);
	strvec_clear(&reasons);
	return buf_detach(&b, NULL);
}

int
check_pcie_assign(const struct plan_hw *hw, struct check_card **cards,
    size_t *ncards, struct check_slot_use **slots, size_t *nslots, char **why)
{
	const struct cat_system	*sys = hw->sys;
	struct check_srch	 sr;
	struct check_slot_use	*u = NULL;
	size_t			 i, j;
	int			 r;

	*cards = check_cards(hw, ncards);
	*slots = NULL;
	*nslots = 0;
	*why = NULL;
	if (sys == NULL || sys->slots == NULL) {
		*why = xasprintf("the catalog has no slot list for system '%s'",
		    hw->system != NULL ? hw->system : "?");
		return -1;
	}
	u = xcalloc(sys->nslots + 1, sizeof *u);
	for (i = 0; i < sys->nslots; i++) {
		u[i].slot = &sys->slots[i];
		u[i].card = -1;
	}
	check_slot_names(u, sys);

	memset(&sr, 0, sizeof sr);
	sr.cards = *cards;
	sr.ncards = *ncards;
	sr.slots = sys->slots;
	sr.nslots = sys->nslots;
	sr.nfree = sys->nslots;
	sr.order = xcalloc(sr.ncards + 1, sizeof *sr.order);
	sr.at = xcalloc(sr.ncards + 1, sizeof *sr.at);
	sr.state = xcalloc(sr.nslots + 1, sizeof *sr.state);
	sr.best = xcalloc(sr.nslots + 1, sizeof *sr.best);
	for (i = 0; i < sr.nslots; i++)
		sr.state[i] = sr.best[i] = -1;
	/* Insertion sort keeps equal cards in plan order; lists are short. */
	for (i = 0; i < sr.ncards; i++) {
		for (j = i; j > 0 && check_card_cmp(&sr.cards[sr.order[j - 1]],
		    &sr.cards[i]) > 0; j--)
			sr.order[j] = sr.order[j - 1];
		sr.order[j] = i;
	}
	r = check_place(&sr, 0);
	if (r == 1) {
		for (i = 0; i < sr.nslots; i++)
			u[i].card = sr.state[i];
		r = 0;
	} else if (r == 0) {
		for (i = 0; i < sr.nslots; i++)
			u[i].card = sr.best[i];
		*why = check_misfit_why(&sr, u);
		r = 1;
	} else {
		*why = xasprintf("gave up after %lu placements; check the "
		    "slots by hand", (unsigned long)CHECK_SEARCH_STEPS);
		r = -1;
	}
	*slots = u;
	*nslots = sr.nslots;
	free(sr.order);
	free(sr.at);
	free(sr.state);
	free(sr.best);
	return r;
}

/* ------------------------------------------------------------------ */
/* pcie rows.                                                          */

/* fhfl > fhhl > hhhl: a chassis taking the bigger one takes the smaller. */
static int
check_ff_rank(const char *ff)
{
	if (ff == NULL)
		return 0;
	if (strcmp(ff, "fhfl") == 0)
		return 3;
	if (strcmp(ff, "fhhl") == 0)
		return 2;
	if (strcmp(ff, "hhhl") == 0)
		return 1;
	return 0;
}

static char *
check_join(const struct strvec *v, const char *sep)
{
	struct buf	b = BUF_INIT;
	size_t		i;

	for (i = 0; i < v->n; i++)
		buf_addf(&b, "%s%s", i ? sep : "", v->v[i]);
	return buf_detach(&b, NULL);
}

/* A system whose GPUs are on its baseboard: the plan's must be them. */
static void
check_pcie_baseboard(struct check_ctx *c, const struct plan_hw *hw,
    struct prov_loc loc)
{
	struct row		*row;
	const struct cat_system	*sys = hw->sys;
	const struct cat_gpu	*g = hw->gpu_cat;
	struct strvec		 ok = STRVEC_INIT;
	char			*list;
	size_t			 i;
	int			 match;

	match = check_is(&g->m, sys->gpus.model);
	strvec_push(&ok, sys->gpus.model);
	for (i = 0; i < sys->gpu_models.n; i++) {
		if (check_is(&g->m, sys->gpu_models.v[i]))
			match = 1;
		if (strcmp(sys->gpu_models.v[i], sys->gpus.model) != 0)
			strvec_push(&ok, sys->gpu_models.v[i]);
	}
	list = check_join(&ok, ", ");
	if (!match) {
		row = check_row(c, ROW_FAIL, "pcie", "form factor",
		    loc);
		row->subject = check_hw_subject(hw);
		row->measured = xasprintf("%ld x %s (%s)", hw->ngpus,
		    g->m.id, g->form_factor);
		row->limit = xasprintf("baseboard of '%s': %s",
		    sys->m.id, list);
		row->hint = xasprintf("the GPUs of '%s' are fixed: use "
		    "%s, or another system", sys->m.id, list);
	} else if (hw->gpus.count >= 0 && sys->gpus.count > 0 &&
	    hw->gpus.count != sys->gpus.count) {
		row = check_row(c, ROW_FAIL, "pcie", "form factor",
		    loc);
		row->subject = check_hw_subject(hw);
		row->measured = xasprintf("%ld x %s", hw->ngpus,
		    g->m.id);
		row->limit = xasprintf("%ld on the baseboard of '%s'",
		    sys->gpus.count, sys->m.id);
		row->hint = xasprintf("set count: %ld or leave it out",
		    sys->gpus.count);
		row->value = (double)hw->ngpus;
		row->max = (double)sys->gpus.count;
	} else {
		row = check_row(c, ROW_OK, "pcie", "form factor", loc);
		row->subject = check_hw_subject(hw);
		row->measured = xasprintf("%ld x %s (%s)", hw->ngpus,
		    g->m.id, g->form_factor);
		row->limit = xasprintf("baseboard of '%s': %s",
		    sys->m.id, list);
	}
	free(list);
	strvec_clear(&ok);
}

static void
check_pcie_formfactor(struct check_ctx *c, const struct plan_hw *hw)
{
	struct row		*row;
	const struct cat_system	*sys = hw->sys;
	const struct cat_gpu	*g = hw->gpu_cat;
	struct prov_loc		 loc = plan_loc(c->p, hw->gpus.src != NULL ?
	    hw->gpus.src : hw->src, hw->gpus.src != NULL ? "model" : "system");
	char			*list;
	size_t			 i;

	if (g == NULL || hw->ngpus <= 0 || sys == NULL)
		return;
	if (sys->gpus.model != NULL) {
		check_pcie_baseboard(c, hw, loc);
		return;
	}
	if (check_baseboard_ff(g->form_factor)) {
		row = check_row(c, ROW_FAIL, "pcie", "form factor", loc);
		row->subject = check_hw_subject(hw);
		row->measured = xasprintf("%ld x %s (%s)", hw->ngpus, g->m.id,
		    g->form_factor);
		row->limit = xasprintf("'%s' has no GPU baseboard", sys->m.id);
		row->hint = xasprintf("%s modules need a system that names "
		    "them under gpus (an HGX or OAM baseboard, a DGX, a "
		    "superchip tray); use a PCIe GPU here", g->form_factor);
		return;
	}
	list = check_join(&sys->gpu_form_factors, ", ");
	if (sys->gpu_form_factors.n == 0 && check_has(&sys->m.unknown,
	    "gpu_form_factors")) {
		row = check_row(c, ROW_WARN, "pcie", "form factor", loc);
		row->subject = check_hw_subject(hw);
		row->measured = xasprintf("%ld x %s (%s)", hw->ngpus, g->m.id,
		    g->form_factor);
		row->limit = xasprintf("unknown for '%s'", sys->m.id);
		row->hint = xasprintf("the catalog does not say which GPUs "
		    "'%s' takes", sys->m.id);
	} else {
		int	fits = 0;

		for (i = 0; i < sys->gpu_form_factors.n; i++)
			if (check_ff_rank(g->form_factor) > 0 &&
			    check_ff_rank(g->form_factor) <=
			    check_ff_rank(sys->gpu_form_factors.v[i]))
				fits = 1;
		if (!fits) {
			row = check_row(c, ROW_FAIL, "pcie", "form factor",
			    loc);
			row->subject = check_hw_subject(hw);
			row->measured = xasprintf("%ld x %s (%s)", hw->ngpus,
			    g->m.id, g->form_factor);
			row->limit = sys->gpu_form_factors.n ? xasprintf(
			    "'%s' takes %s", sys->m.id, list) : xasprintf(
			    "'%s' takes no add-in GPUs", sys->m.id);
			row->hint = xasprintf("choose a GPU in a form factor "
			    "the chassis takes, or another system");
		} else if (g->cooling != NULL &&
		    strcmp(g->cooling, "liquid") == 0 &&
		    (sys->cooling == NULL ||
		    strcmp(sys->cooling, "liquid") != 0)) {
			row = check_row(c, ROW_FAIL, "pcie", "form factor",
			    loc);
			row->subject = check_hw_subject(hw);
			row->measured = xasprintf("%ld x %s (liquid-cooled)",
			    hw->ngpus, g->m.id);
			row->limit = xasprintf("'%s' is %s-cooled", sys->m.id,
			    sys->cooling != NULL ? sys->cooling : "air");
			row->hint = xasprintf("use an air-cooled GPU or a "
			    "liquid-cooled chassis");
		} else {
			row = check_row(c, ROW_OK, "pcie", "form factor", loc);
			row->subject = check_hw_subject(hw);
			row->measured = xasprintf("%ld x %s (%s)", hw->ngpus,
			    g->m.id, g->form_factor);
			row->limit = xasprintf("'%s' takes %s", sys->m.id,
			    list);
		}
	}
	free(list);
}

static void
check_pcie_cpu(struct check_ctx *c, const struct plan_hw *hw)
{
	struct row		*row;
	const struct cat_system	*sys = hw->sys;
	struct prov_loc		 loc = plan_loc(c->p, hw->cpu.src != NULL ?
	    hw->cpu.src : hw->src, hw->cpu.src != NULL ? "model" : "system");

	if (sys == NULL)
		return;
	if (sys->cpu.model != NULL && hw->cpu.model != NULL &&
	    hw->cpu_cat != NULL && !check_is(&hw->cpu_cat->m, sys->cpu.model)) {
		row = check_row(c, ROW_FAIL, "pcie", "CPU", loc);
		row->subject = check_hw_subject(hw);
		row->measured = xasprintf("%s", hw->cpu_cat->m.id);
		row->limit = xasprintf("fixed in '%s': %s", sys->m.id,
		    sys->cpu.model);
		row->hint = xasprintf("the CPUs of '%s' are fixed: leave cpu "
		    "out", sys->m.id);
	}
	if (sys->cpu_sockets > 0 && hw->ncpus > sys->cpu_sockets) {
		row = check_row(c, ROW_FAIL, "pcie", "CPU sockets", loc);
		row->subject = check_hw_subject(hw);
		row->measured = xasprintf("%ld CPUs", hw->ncpus);
		row->limit = xasprintf("%ld %s in '%s'", sys->cpu_sockets,
		    check_plural(sys->cpu_sockets, "socket", "sockets"),
		    sys->m.id);
		row->hint = xasprintf("set cpu count to at most %ld",
		    sys->cpu_sockets);
		row->value = (double)hw->ncpus;
		row->max = (double)sys->cpu_sockets;
	}
}

/* "gpu a100-pcie-80gb -> gpu1, gpu2; nic connectx-6-hdr-1p -> aux1" */
static char *
check_assignment_text(const struct check_card *cards, size_t ncards,
    const struct check_slot_use *u, size_t nslots)
{
	struct buf	b = BUF_INIT;
	size_t		i, j, s;
	unsigned char	*done = xcalloc(ncards + 1, 1);

	for (i = 0; i < ncards; i++) {
		if (done[i])
			continue;
		buf_addf(&b, "%s%s %s ->", b.len ? "; " : "", cards[i].kind,
		    cards[i].model);
		for (j = i; j < ncards; j++) {
			if (done[j] ||
			    strcmp(cards[j].kind, cards[i].kind) != 0 ||
			    strcmp(cards[j].model, cards[i].model) != 0)
				continue;
			done[j] = 1;
			for (s = 0; s < nslots; s++)
				if (u[s].card == (int)j)
					break;
			buf_addf(&b, "%s %s", j == i ? "" : ",",
			    s < nslots ? u[s].name : "?");
		}
	}
	free(done);
	return buf_detach(&b, NULL);
}

/* A newer card in an older slot works at the slot's speed: the first. */
static void
check_pcie_gen(struct check_ctx *c, const struct plan_hw *hw,
    const struct check_card *cards, const struct check_slot_use *u,
    size_t nslots, struct prov_loc loc)
{
	struct row		*row;
	const struct check_card	*cd;
	size_t			 i;

	for (i = 0; i < nslots; i++) {
		if (u[i].card < 0)
			continue;
		cd = &cards[u[i].card];
		if (cd->gen <= 0 || u[i].slot->gen <= 0 ||
		    cd->gen <= u[i].slot->gen)
			continue;
		row = check_row(c, ROW_WARN, "pcie", "PCIe generation", loc);
		row->subject = check_hw_subject(hw);
		row->measured = xasprintf("%s %s: gen %ld", cd->kind,
		    cd->model, cd->gen);
		row->limit = xasprintf("slot %s: gen %ld", u[i].name,
		    u[i].slot->gen);
		row->hint = xasprintf("the card runs at gen %ld speed",
		    u[i].slot->gen);
		row->value = (double)cd->gen;
		row->max = (double)u[i].slot->gen;
		return;
	}
}

/* The cards' lanes against what the CPUs give. */
static void
check_pcie_lanes(struct check_ctx *c, const struct plan_hw *hw, long need,
    int assumed, struct prov_loc loc)
{
	const struct cat_cpu	*cpu = hw->cpu_cat;
	struct row		*row;
	long			 have = -1;

	if (cpu != NULL && hw->ncpus == 2 && cpu->pcie_lanes_2s > 0)
		have = cpu->pcie_lanes_2s;
	else if (cpu != NULL && cpu->pcie_lanes > 0 && hw->ncpus > 0)
		have = cpu->pcie_lanes * hw->ncpus;
	if (have < 0) {
		row = check_row(c, ROW_WARN, "pcie", "lanes", loc);
		row->subject = check_hw_subject(hw);
		row->measured = xasprintf("%ld lanes", need);
		row->limit = xstrdup("unknown");
		row->hint = xasprintf("the CPU lanes of '%s' are "
		    "unknown: give cpu: { model, count }", hw->name);
		row->value = (double)need;
	} else {
		row = check_row(c, need > have || assumed ? ROW_WARN :
		    ROW_OK, "pcie", "lanes", loc);
		row->subject = check_hw_subject(hw);
		row->measured = xasprintf("%ld lanes", need);
		row->limit = xasprintf("%ld lanes (%ld x %s)", have,
		    hw->ncpus, cpu->m.id);
		row->hint = need > have ? xasprintf("the cards want "
		    "%ld more lanes than the CPUs give: this works "
		    "only behind PCIe switches, with the cards sharing "
		    "bandwidth", need - have) : assumed ? xstrdup(
		    "a card's lanes are unknown: x16 assumed") : NULL;
		row->value = (double)need;
		row->max = (double)have;
	}
}

/*
 * Lanes per socket, where the catalog says which socket each slot hangs
 * off (slot key `cpu`): the cards of one socket's slots against its own
 * lanes (half of pcie_lanes_2s for two sockets, else pcie_lanes).  Cards
 * behind one socket cross the inter-socket link to reach the other
 * socket's memory and NICs, so a socket over its lanes is a failure even
 * when the total fits.  Nothing when no slot names its socket.
 */
static void
check_pcie_sockets(struct check_ctx *c, const struct plan_hw *hw,
    const struct check_card *cards, const struct check_slot_use *u,
    size_t nslots, struct prov_loc loc)
{
	const struct cat_cpu	*cpu = hw->cpu_cat;
	struct row		*row;
	long			 need[2] = { 0, 0 }, have = -1, s;
	size_t			 i, known = 0, unknown = 0;

	for (i = 0; i < nslots; i++) {
		if (u[i].card < 0)
			continue;
		if (u[i].slot->cpu == 0 || u[i].slot->cpu == 1) {
			need[u[i].slot->cpu] += cards[u[i].card].lanes;
			known++;
		} else
			unknown++;
	}
	if (known == 0)
		return;
	if (cpu != NULL && hw->ncpus == 2 && cpu->pcie_lanes_2s > 0)
		have = cpu->pcie_lanes_2s / 2;
	else if (cpu != NULL && cpu->pcie_lanes > 0)
		have = cpu->pcie_lanes;
	for (s = 0; s < (hw->ncpus > 1 ? 2 : 1); s++) {
		char	what[32];

		snprintf(what, sizeof what, "lanes cpu%ld", s);
		row = check_row(c, have < 0 ? ROW_WARN : need[s] > have ?
		    ROW_FAIL : unknown > 0 ? ROW_WARN : ROW_OK, "pcie", what,
		    loc);
		row->subject = check_hw_subject(hw);
		row->measured = xasprintf("%ld lanes", need[s]);
		row->limit = have < 0 ? xstrdup("unknown") : xasprintf("%ld "
		    "lanes (socket %ld of %s)", have, s, cpu->m.id);
		if (have < 0)
			row->hint = xasprintf("the CPU lanes of '%s' are "
			    "unknown", hw->name);
		else if (need[s] > have)
			row->hint = xasprintf("the cards in socket %ld's slots "
			    "want %ld lanes more than it has: they would share "
			    "them behind a PCIe switch, or cross the socket link; "
			    "fewer cards, or a chassis whose slots split evenly",
			    s, need[s] - have);
		else if (unknown > 0)
			row->hint = xasprintf("%zu card%s in slots whose "
			    "socket the catalog does not give", unknown,
			    unknown == 1 ? "" : "s");
		row->value = (double)need[s];
		row->max = have < 0 ? NAN : (double)have;
	}
}

void
check_pcie_hw(struct check_ctx *c, const struct plan_hw *hw)
{
	struct row		*row;
	struct check_card	*cards = NULL;
	struct check_slot_use	*u = NULL;
	size_t			 ncards = 0, nslots = 0, i;
	char			*why = NULL;
	int			 r, assumed = 0;
	struct prov_loc		 loc = plan_loc(c->p, hw->src, "system");
	long			 need = 0;

	check_pcie_formfactor(c, hw);
	check_pcie_cpu(c, hw);
	r = check_pcie_assign(hw, &cards, &ncards, &u, &nslots, &why);
	for (i = 0; i < ncards; i++) {
		assumed |= cards[i].assumed;
		need += cards[i].lanes;
	}
	if (ncards == 0) {
		row = check_row(c, ROW_OK, "pcie", "slot fit", loc);
		row->subject = check_hw_subject(hw);
		row->measured = xasprintf("0 cards");
		row->limit = xasprintf("%zu %s", nslots,
		    check_plural((long)nslots, "slot", "slots"));
		row->hint = xasprintf("no add-in cards: GPUs and NICs are on "
		    "the board");
		row->value = 0;
		row->max = (double)nslots;
	} else if (r == -1 && (hw->sys == NULL || hw->sys->slots == NULL)) {
		row = check_row(c, ROW_SKIP, "pcie", "slot fit", loc);
		row->subject = check_hw_subject(hw);
		row->measured = xasprintf("%zu cards", ncards);
		row->limit = xasprintf("slots unknown");
		row->hint = xasprintf("%s; check the chassis manual or add "
		    "slots in a profiles dir", why);
		row->value = (double)ncards;
	} else if (r == -1) {
		row = check_row(c, ROW_WARN, "pcie", "slot fit", loc);
		row->subject = check_hw_subject(hw);
		row->measured = xasprintf("%zu cards", ncards);
		row->limit = xasprintf("%zu slots", nslots);
		row->hint = xstrdup(why);
		row->value = (double)ncards;
		row->max = (double)nslots;
	} else if (r == 1) {
		row = check_row(c, ROW_FAIL, "pcie", "slot fit", loc);
		row->subject = check_hw_subject(hw);
		row->measured = xasprintf("%zu %s", ncards,
		    check_plural((long)ncards, "card", "cards"));
		row->limit = xasprintf("%zu %s", nslots,
		    check_plural((long)nslots, "slot", "slots"));
		row->hint = xstrdup(why);
		row->value = (double)ncards;
		row->max = (double)nslots;
	} else {
		char	*txt = check_assignment_text(cards, ncards, u, nslots);

		row = check_row(c, assumed ? ROW_WARN : ROW_OK, "pcie",
		    "slot fit", loc);
		row->subject = check_hw_subject(hw);
		row->measured = xasprintf("%zu %s", ncards,
		    check_plural((long)ncards, "card", "cards"));
		row->limit = xasprintf("%zu %s", nslots,
		    check_plural((long)nslots, "slot", "slots"));
		row->hint = assumed ? xasprintf("%s (a card's size or lanes "
		    "are unknown in the catalog: the largest was assumed)", txt)
		    : xstrdup(txt);
		row->value = (double)ncards;
		row->max = (double)nslots;
		free(txt);
		check_pcie_gen(c, hw, cards, u, nslots, loc);
		check_pcie_sockets(c, hw, cards, u, nslots, loc);
	}
	if (ncards > 0)
		check_pcie_lanes(c, hw, need, assumed, loc);
	free(cards);
	free(u);
	free(why);
}


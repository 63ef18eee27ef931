/*
 * check.c: the hardware checks of `provision check` (checks.h).
 *
 * The rules (docs/architecture.md, "The rules check encodes"), and the
 * choices made where they leave room:
 *
 * pcie, per hardware model: cards (add-in GPUs, NICs that are neither on
 *	board nor built in) go into the system's ordered slot list by a
 *	backtracking search, biggest cards first; lanes of the cards against
 *	the CPUs' lanes (pcie_lanes_2s for two sockets, else pcie_lanes per
 *	socket); add-in GPU form factors against the chassis (a chassis that
 *	takes fhfl cards takes the smaller fhhl and hhhl ones too); baseboard
 *	(SXM/OAM) GPUs only as the system's own.
 * power, per hardware model and rack voltage: full-load draw = base +
 *	CPUs + memory + GPUs + NICs + drives, with the defaults of checks.h
 *	for unknown figures (the row is then a warning); a vendor system
 *	maximum (DGX) replaces the sum when it is larger.  The PSUs deliver
 *	the usable count (redundancy "N+1": count-1, "N+N": count/2, "A+B":
 *	count-B, "N": all) times the rating at the rack's outlet voltage: the
 *	lowest PDU voltage of the rack, line-to-neutral (V / sqrt 3) for a
 *	three-phase PDU above 250 V.  A node in no rack with PDUs is checked
 *	at the highest rating.
 * rack, per rack: units (overlaps, range), depth, draw per feed (with more
 *	than one feed each feed alone must carry the rack), PSU inlets per
 *	feed against the PDUs' C13/C19 outlets (when given), heat (with a
 *	liquid_kw: the systems' heat_to_liquid_pct of their draw against it,
 *	the rest against cooling_kw), weight against max_load_kg and, with a
 *	footprint, per m2 against floor_kg_m2 (unknown weights count 0 and
 *	make the row a warning at best).
 * pcie per socket: where the catalog's slots name their socket (`cpu`),
 *	the cards in each socket's slots against half of pcie_lanes_2s.
 * network: host ports per model (BMC ports do not count), a fast fabric
 *	(InfiniBand or >= 100 Gb/s) for every GPU node when there are two or
 *	more, switch ports against links per network, addresses inside their
 *	networks and unique, MACs unique.  The management address belongs to
 *	the network(s) with role management; without one, to the network
 *	whose cidr holds it; a node whose address is in no network fails,
 *	naming the network its on-board NIC is attached to when it has one.
 * memory, per hardware model: at least 24 GB; at least the GPU memory.
 *
 * Everything is one or a few passes over the nodes with per-model and
 * per-rack aggregates and strmap lookups: linear in the plan size.
 */
#include "compat.h"

#include <ctype.h>
#include <math.h>

#include "buf.h"
#include "catalog.h"
#include "check.h"
#include "row.h"
#include "plan.h"
#include "strmap.h"
#include "strvec.h"

/* A NIC of a hardware model: the plan's entries merged with the system's. */
struct check_nic {
	const char		*model;
	const struct cat_nic	*cat;
	long			 count;
	long			 builtin;	/* of count, built in */
	const struct plan_net	*net;		/* NULL: not attached */
	int			 bmc;		/* the BMC port: no host NIC */
	const struct yml_node	*src;		/* plan entry; NULL: built-in */
};

struct check_hw {
	const struct plan_hw	*hw;
	struct check_nic	*nics;
	size_t			 nnics;
	long			 ports;		/* host ports (known counts) */
	int			 ports_unknown;	/* a NIC's ports are unknown */
	int			 fast;		/* fast NIC, fast network */
	double			 draw;		/* full-load W */
	int			 draw_est;	/* draw rests on a default */
	struct buf		 detail;	/* how draw was summed */
	struct buf		 note;		/* defaults and unknowns */
	long			 height;	/* U; 0 unknown; -1 no rack */
	size_t			 nnodes;
	long			*links;		/* per plan net: cables */
};

struct check_cap {
	size_t	shown, more;
};

struct check_ctx {
	const struct plan	*p;
	struct rows		*out;
	struct check_hw		*hw;		/* one per p->hw */
	double			*volts;		/* per rack: outlet V or NAN */
};

struct check_num
check_fmt(double v, int decimals)
{
	struct check_num	 n;
	char			 dig[32];
	long long		 scaled, ip, fr, scale = 1;
	size_t			 len, i, o = 0;
	int			 d;

	if (isnan(v)) {
		snprintf(n.s, sizeof n.s, "unknown");
		return n;
	}
	if (isinf(v)) {
		snprintf(n.s, sizeof n.s, "%s", v < 0 ? "-inf" : "inf");
		return n;
	}
	if (decimals < 0)
		decimals = 0;
	if (decimals > 6)
		decimals = 6;
	for (d = 0; d < decimals; d++)
		scale *= 10;
	scaled = llround(fabs(v) * (double)scale);
	if (v < 0 && scaled != 0)
		n.s[o++] = '-';
	ip = scaled / scale;
	fr = scaled % scale;
	snprintf(dig, sizeof dig, "%lld", ip);
	len = strlen(dig);
	for (i = 0; i < len; i++) {
		if (i > 0 && (len - i) % 3 == 0)
			n.s[o++] = ',';
		n.s[o++] = dig[i];
	}
	if (fr != 0) {
		/* The fraction with its leading zeros, trailing zeros dropped. */
		o += (size_t)snprintf(n.s + o, sizeof n.s - o, ".%0*lld",
		    decimals, fr);
		while (n.s[o - 1] == '0')
			o--;
	}
	n.s[o] = '\0';
	return n;
}

/* "5,230", "897.1", "unknown": separators, one decimal where needed. */
static struct check_num
check_num(double v)
{
	return check_fmt(v, 1);
}

/* Whole numbers (BTU/h, counts): rounded, with separators. */
static struct check_num
check_int(double v)
{
	return check_num(isnan(v) ? v : round(v));
}

static const char *
check_plural(long n, const char *one, const char *many)
{
	return n == 1 ? one : many;
}

/*
 * Append a row of `group` about `what` at loc; the caller sets subject,
 * measured, limit and hint (allocated strings the rows own), and value
 * and max.  check_plan() leaves no subject, measured or limit NULL
 * (rows_blank()).
 */
static struct row *
check_row(struct check_ctx *c, enum row_verdict v, const char *group,
    const char *what, struct prov_loc loc)
{
	struct row	*row = rows_add(c->out, v, what);

	row->group = group;
	row->loc = loc;
	return row;
}

/* 1 when another failing row of this check may be shown; counts the rest. */
static int
check_cap_take(struct check_cap *cap)
{
	if (cap->shown < CHECK_MAX_ROWS) {
		cap->shown++;
		return 1;
	}
	cap->more++;
	return 0;
}

static void
check_cap_flush(struct check_ctx *c, struct check_cap *cap, const char *group,
    const char *what)
{
	struct row	*row;
	struct prov_loc	 loc = { c->p->file, 0, 0 };

	if (cap->more == 0)
		return;
	row = check_row(c, ROW_FAIL, group, what, loc);
	row->subject = xstrdup("...");
	row->measured = xasprintf("... and %s more",
	    check_int((double)cap->more).s);
	row->value = (double)cap->more;
}

/* ok / warn above 90% or when uncertain / fail above the limit. */
static enum row_verdict
check_grade(double value, double max, int uncertain)
{
	if (isnan(max) || isnan(value))
		return ROW_WARN;
	if (value > max)
		return ROW_FAIL;
	if (uncertain || value > max * CHECK_WARN_RATIO)
		return ROW_WARN;
	return ROW_OK;
}

static struct check_num
check_pct(double value, double max)
{
	struct check_num	n;

	if (isnan(value) || isnan(max) || max <= 0) {
		snprintf(n.s, sizeof n.s, "n/a");
		return n;
	}
	n = check_num(value * 100 / max);
	snprintf(n.s + strlen(n.s), sizeof n.s - strlen(n.s), "%%");
	return n;
}

static int
check_has(const struct strvec *v, const char *s)
{
	return strvec_find(v, s) >= 0;
}

/* True when catalog entry `m` is `id` (its id or one of its aliases). */
static int
check_is(const struct cat_meta *m, const char *id)
{
	return id != NULL && (strcmp(m->id, id) == 0 || check_has(&m->aliases,
	    id));
}

/* Modules that come soldered or socketed on a system's board, never in a slot. */
static int
check_baseboard_ff(const char *ff)
{
	return ff != NULL && (strncmp(ff, "sxm", 3) == 0 ||
	    strcmp(ff, "oam") == 0 || strcmp(ff, "superchip") == 0);
}

/* ------------------------------------------------------------------ */
/* PCIe: cards, slots and the search.                                  */

/*
 * For each plan NIC of hw, how many of its count are the system's own
 * built-in NICs of the same model: plan entries draw the built-in counts
 * down in order (BMC ports never).  builtin[] has hw->nnics entries;
 * left[] (one per system NIC) ends with what no plan entry named.
 */
static void
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
/* Per hardware model: NICs, ports, draw.                              */

int
check_net_fast(const struct plan_net *n)
{
	return n != NULL && ((n->kind != NULL &&
	    strcmp(n->kind, "infiniband") == 0) ||
	    (!isnan(n->gbps) && n->gbps >= CHECK_FAST_GBPS));
}

static int
check_nic_fast(const struct cat_nic *n)
{
	return n != NULL && ((!isnan(n->gbps) && n->gbps >= CHECK_FAST_GBPS) ||
	    (n->kind != NULL && strcmp(n->kind, "infiniband") == 0));
}

/*
 * The plan network with role `role` ("mgmt" means management), when
 * exactly one has it.
 */
static const struct plan_net *
check_net_by_role(const struct plan *p, const char *role)
{
	if (role == NULL)
		return NULL;
	return plan_net_by_role(p, strcmp(role, "mgmt") == 0 ? "management" :
	    role);
}

static int
check_in_net(const struct plan_net *n, uint32_t a)
{
	return n->cidr != NULL && (a & n->mask) == n->addr;
}

static double
check_drive_w(const char *kind)
{
	if (kind != NULL && strcmp(kind, "nvme") == 0)
		return CHECK_NVME_W;
	if (kind != NULL && strcmp(kind, "hdd") == 0)
		return CHECK_HDD_W;
	return CHECK_SSD_W;
}

/* The plan's NICs merged with the system's built-in ones. */
static void
check_hw_nics(struct check_ctx *c, struct check_hw *ch)
{
	const struct plan_hw	*hw = ch->hw;
	const struct cat_system	*sys = hw->sys;
	long			*builtin, *left;
	size_t			 i, n = 0;

	builtin = xcalloc(hw->nnics + 1, sizeof *builtin);
	left = xcalloc(sys != NULL ? sys->nnics + 1 : 1, sizeof *left);
	check_nic_builtin(hw, builtin, left);
	ch->nics = xcalloc(hw->nnics + (sys != NULL ? sys->nnics : 0) + 1,
	    sizeof *ch->nics);
	for (i = 0; i < hw->nnics; i++) {
		const struct plan_nic	*pn = &hw->nics[i];
		struct check_nic	*cn = &ch->nics[n++];

		cn->model = pn->cat != NULL ? pn->cat->m.id : pn->model;
		cn->cat = pn->cat;
		cn->count = pn->count;
		cn->builtin = builtin[i];
		cn->net = pn->network != NULL ?
		    plan_net_find(c->p, pn->network) : NULL;
		cn->src = pn->src;
	}
	for (i = 0; sys != NULL && i < sys->nnics; i++) {
		const struct cat_fixed	*f = &sys->nics[i];
		struct check_nic	*cn;

		if (left[i] <= 0 || f->model == NULL)
			continue;
		cn = &ch->nics[n++];
		cn->model = f->model;
		cn->cat = catalog_nic(c->p->catalog, f->model);
		cn->count = left[i];
		cn->builtin = left[i];
		cn->bmc = f->role != NULL && strcmp(f->role, "bmc") == 0;
		cn->net = cn->bmc ? NULL : check_net_by_role(c->p, f->role);
	}
	ch->nnics = n;
	free(builtin);
	free(left);

	ch->links = xcalloc(c->p->nnets + 1, sizeof *ch->links);
	for (i = 0; i < ch->nnics; i++) {
		const struct check_nic	*cn = &ch->nics[i];
		long			 ports;

		ports = cn->cat != NULL ? cn->cat->ports : -1;

		if (cn->bmc)
			continue;
		if (ports > 0)
			ch->ports += ports * cn->count;
		else
			ch->ports_unknown = 1;
		if (cn->net != NULL) {
			ch->links[cn->net - c->p->nets] += cn->count *
			    (ports > 0 ? ports : 1);
			if (check_net_fast(cn->net) && check_nic_fast(cn->cat))
				ch->fast = 1;
		}
	}
}

/* Full-load draw of one node of the model (W), with how it was summed. */
static void
check_hw_draw(struct check_ctx *c, struct check_hw *ch)
{
	const struct plan_hw	*hw = ch->hw;
	const struct cat_system	*sys = hw->sys;
	struct buf		*d = &ch->detail, *nt = &ch->note;
	double			 sum = 0, w, nicw = 0, drivew = 0;
	size_t			 i;

	if (sys != NULL && !isnan(sys->base_power_w)) {
		sum = sys->base_power_w;
		buf_addf(d, "base %s W", check_num(sum).s);
	} else {
		long	u = sys != NULL && sys->rack_units > 0 ?
		    sys->rack_units : 1;

		sum = CHECK_BASE_W_PER_U * (double)u;
		buf_addf(d, "base %s W", check_num(sum).s);
		buf_addf(nt, "%sbase %s W assumed (%s W per U; the catalog has "
		    "no base_power_w for '%s')", nt->len ? "; " : "",
		    check_num(sum).s, check_num(CHECK_BASE_W_PER_U).s,
		    hw->system);
		ch->draw_est = 1;
	}
	if (hw->ncpus > 0) {
		if (hw->cpu_cat != NULL && !isnan(hw->cpu_cat->power_w)) {
			w = hw->cpu_cat->power_w;
			sum += w * (double)hw->ncpus;
			buf_addf(d, " + CPUs %ld x %s W", hw->ncpus,
			    check_num(w).s);
		} else {
			buf_addf(nt, "%sCPU power unknown (give cpu: "
			    "{ model })", nt->len ? "; " : "");
			ch->draw_est = 1;
		}
	}
	if (!isnan(hw->mem_gb)) {
		sum += hw->mem_gb * CHECK_MEM_W_PER_GB;
		buf_addf(d, " + memory %s GB x %s W", check_num(hw->mem_gb).s,
		    "0.375");
	} else {
		buf_addf(nt, "%smemory size unknown (give memory_gb)",
		    nt->len ? "; " : "");
		ch->draw_est = 1;
	}
	if (hw->ngpus > 0) {
		if (hw->gpu_cat != NULL && !isnan(hw->gpu_cat->power_w)) {
			w = hw->gpu_cat->power_w;
			sum += w * (double)hw->ngpus;
			buf_addf(d, " + GPUs %ld x %s W", hw->ngpus,
			    check_num(w).s);
		} else {
			buf_addf(nt, "%sGPU power unknown",
			    nt->len ? "; " : "");
			ch->draw_est = 1;
		}
	}
	for (i = 0; i < ch->nnics; i++) {
		const struct check_nic	*cn = &ch->nics[i];

		if (cn->bmc)
			continue;
		if (cn->cat != NULL && !isnan(cn->cat->power_w))
			nicw += cn->cat->power_w * (double)cn->count;
		else if (cn->cat != NULL && cn->cat->onboard)
			continue;
		else {
			nicw += CHECK_NIC_W * (double)cn->count;
			buf_addf(nt, "%sNIC '%s' power unknown: %s W assumed",
			    nt->len ? "; " : "", cn->model,
			    check_num(CHECK_NIC_W).s);
			ch->draw_est = 1;
		}
	}
	if (nicw > 0) {
		sum += nicw;
		buf_addf(d, " + NICs %s W", check_num(nicw).s);
	}
	if (hw->ndrives > 0) {
		for (i = 0; i < hw->ndrives; i++) {
			const struct plan_drive	*dr = &hw->drives[i];

			drivew += (double)dr->count * (!isnan(dr->power_w) ?
			    dr->power_w : check_drive_w(dr->kind));
		}
	} else if (sys != NULL)
		for (i = 0; i < sys->ndrives; i++)
			drivew += (double)(sys->drives[i].count > 0 ?
			    sys->drives[i].count : 1) *
			    check_drive_w(sys->drives[i].kind);
	if (drivew > 0) {
		sum += drivew;
		buf_addf(d, " + drives %s W", check_num(drivew).s);
	}
	ch->draw = sum;
	if (sys != NULL && !isnan(sys->max_power_w)) {
		if (sys->max_power_w >= sum) {
			char	*parts = buf_detach(d, NULL);

			buf_addf(d, "vendor maximum %s W for '%s' (parts: %s "
			    "= %s W)", check_num(sys->max_power_w).s,
			    sys->m.id, parts, check_num(sum).s);
			free(parts);
			ch->draw = sys->max_power_w;
			/* The vendor's figure covers what we had to guess. */
			ch->draw_est = 0;
			buf_reset(nt);
		} else
			buf_addf(d, " = %s W, above the vendor maximum %s W",
			    check_num(sum).s, check_num(sys->max_power_w).s);
	} else
		buf_addf(d, " = %s W", check_num(sum).s);
	(void)c;
}

static void
check_hw_prepare(struct check_ctx *c, struct check_hw *ch,
    const struct plan_hw *hw)
{
	const struct cat_system	*sys = hw->sys;

	ch->hw = hw;
	ch->detail = (struct buf)BUF_INIT;
	ch->note = (struct buf)BUF_INIT;
	check_hw_nics(c, ch);
	check_hw_draw(c, ch);
	if (sys != NULL && sys->rack_units > 0)
		ch->height = sys->rack_units;
	else if (sys == NULL || check_has(&sys->m.unknown, "rack_units"))
		ch->height = 0;
	else
		ch->height = -1;
}

double
check_hw_draw_w(const struct plan *p, const struct plan_hw *hw,
    int *estimated)
{
	struct check_ctx	c;
	struct check_hw		ch;

	memset(&c, 0, sizeof c);
	memset(&ch, 0, sizeof ch);
	c.p = p;
	check_hw_prepare(&c, &ch, hw);
	if (estimated != NULL)
		*estimated = ch.draw_est;
	free(ch.nics);
	free(ch.links);
	buf_release(&ch.detail);
	buf_release(&ch.note);
	return ch.draw;
}

static char *
check_hw_subject(const struct plan_hw *hw)
{
	return xasprintf("hardware '%s'", hw->name);
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

static void
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

/* ------------------------------------------------------------------ */
/* power rows.                                                         */

/*
 * Outlet voltage of a rack: the lowest of its PDUs, line-to-neutral for a
 * three-phase PDU above 250 V (400 V -> 230.9 V).
 */
static double
check_rack_volts(const struct plan_rack *r)
{
	double	v = NAN, o;
	size_t	i;

	for (i = 0; i < r->npdus; i++) {
		o = r->pdus[i].volts;
		if (r->pdus[i].phases == 3 && o > 250)
			o /= sqrt(3.0);
		if (isnan(v) || o < v)
			v = o;
	}
	return v;
}

/*
 * Usable PSU output of hw at `volts` (NAN: no rack; the highest rating),
 * or NAN when unknown.  Describes it in lim and the reason in why.
 */
static double
check_psu_cap(const struct plan_hw *hw, double volts, struct buf *lim,
    struct buf *why)
{
	const struct cat_system	*sys = hw->sys;
	long			 count, usable, a, b;
	const char		*red;
	double			 w = NAN;
	struct buf		 at = BUF_INIT;
	size_t			 i;

	count = hw->psu.count >= 0 ? hw->psu.count : sys != NULL ?
	    sys->psu_count : -1;
	red = hw->psu.redundancy != NULL ? hw->psu.redundancy : sys != NULL ?
	    sys->psu_redundancy : NULL;
	if (count <= 0) {
		buf_adds(lim, "unknown");
		buf_addf(why, "the catalog does not give the PSUs of '%s': "
		    "give psu: { count, watts, redundancy }", hw->system);
		return NAN;
	}
	if (!isnan(hw->psu.watts))
		w = hw->psu.watts;
	else if (sys == NULL || sys->npsu_ratings == 0) {
		buf_adds(lim, "unknown");
		buf_addf(why, "the catalog has no PSU rating for '%s': give "
		    "psu: { count, watts, redundancy }", hw->system);
		return NAN;
	} else if (isnan(volts)) {
		const struct cat_psu_rating	*best = NULL;

		for (i = 0; i < sys->npsu_ratings; i++)
			if (!isnan(sys->psu_ratings[i].watts) &&
			    (best == NULL ||
			    sys->psu_ratings[i].watts > best->watts))
				best = &sys->psu_ratings[i];
		if (best == NULL) {
			buf_adds(lim, "unknown");
			buf_addf(why, "the PSU ratings of '%s' are unknown: "
			    "give psu: { watts }", hw->system);
			return NAN;
		}
		w = best->watts;
		buf_addf(&at, " at %s-%s V", check_num(best->volts_min).s,
		    check_num(best->volts_max).s);
		buf_adds(why, "no rack with PDUs: the highest rating is used");
	} else {
		int	covered = 0, unknown = 0;

		for (i = 0; i < sys->npsu_ratings; i++) {
			const struct cat_psu_rating	*rt;

			rt = &sys->psu_ratings[i];
			if (volts < rt->volts_min || volts > rt->volts_max)
				continue;
			covered = 1;
			if (isnan(rt->watts))
				unknown = 1;
			else if (isnan(w) || rt->watts > w)
				w = rt->watts;
		}
		if (!covered || (isnan(w) && unknown)) {
			buf_adds(lim, "unknown");
			buf_addf(why, "no PSU rating of '%s' %s %s V: give "
			    "psu: { watts } for this voltage", hw->system,
			    covered ? "is known at" : "covers",
			    check_num(volts).s);
			return NAN;
		}
		buf_addf(&at, " at %s V", check_num(volts).s);
		if (w == 0)
			buf_addf(why, "the PSUs of '%s' do not run at %s V",
			    hw->system, check_num(volts).s);
	}
	usable = count;
	if (red == NULL) {
		red = "no redundancy given";
	} else if (strcmp(red, "N") == 0) {
		usable = count;
	} else if (strcmp(red, "N+N") == 0) {
		usable = count / 2;
	} else if (sscanf(red, "N+%ld", &b) == 1) {
		usable = count - b;
	} else if (sscanf(red, "%ld+%ld", &a, &b) == 2) {
		usable = count - b;
		if (a + b != count)
			buf_addf(why, "%sredundancy %s does not match %ld PSUs",
			    why->len ? "; " : "", red, count);
	}
	if (usable < 0)
		usable = 0;
	buf_addf(lim, "%s W (%ld of %ld x %s W PSUs%s, %s)",
	    check_num((double)usable * w).s, usable, count, check_num(w).s,
	    at.buf, red);
	buf_release(&at);
	return (double)usable * w;
}

static void
check_power_row(struct check_ctx *c, const struct check_hw *ch, double volts,
    size_t nnodes, int volts_matter)
{
	struct row		*row;
	const struct plan_hw	*hw = ch->hw;
	struct buf		 lim = BUF_INIT, why = BUF_INIT;
	struct buf		 hint = BUF_INIT;
	double			 cap;
	enum row_verdict		 sev;
	struct prov_loc		 loc = plan_loc(c->p, hw->psu.src != NULL ?
	    hw->psu.src : hw->src, hw->psu.src != NULL ? NULL : "system");

	cap = check_psu_cap(hw, volts, &lim, &why);
	sev = check_grade(ch->draw, cap, ch->draw_est);
	if (sev == ROW_FAIL)
		buf_addf(&hint, "short by %s W: more or bigger PSUs, or fewer "
		    "parts; ", check_num(ch->draw - cap).s);
	if (nnodes == 0)
		buf_adds(&hint, "no node uses this model; ");
	else if (volts_matter)
		buf_addf(&hint, "%zu %s%s; ", nnodes, check_plural((long)nnodes,
		    "node", "nodes"), isnan(volts) ? " in no rack with PDUs" :
		    "");
	if (why.len)
		buf_addf(&hint, "%s; ", why.buf);
	if (ch->note.len)
		buf_addf(&hint, "%s; ", ch->note.buf);
	buf_addf(&hint, "draw: %s", ch->detail.buf);
	row = check_row(c, sev, "power", "PSU budget", loc);
	row->subject = check_hw_subject(hw);
	row->measured = xasprintf("%s W (%s)", check_num(ch->draw).s,
	    check_pct(ch->draw, cap).s);
	row->limit = buf_detach(&lim, NULL);
	row->hint = buf_detach(&hint, NULL);
	row->value = ch->draw;
	row->max = cap;
	buf_release(&why);
}

/*
 * One row per model and rack voltage (one per model when the plan gives
 * the PSU watts: the voltage does not matter then).
 */
static void
check_power(struct check_ctx *c)
{
	const struct plan	*p = c->p;
	size_t			 nr = p->nracks + 1, h, r, i, k;
	size_t			*cnt = xcalloc(p->nhw * nr + 1, sizeof *cnt);
	double			*vs = xcalloc(nr + 1, sizeof *vs);
	size_t			*vn = xcalloc(nr + 1, sizeof *vn);

	for (i = 0; i < p->nnodes; i++) {
		const struct plan_node	*nd = &p->nodes[i];

		if (nd->hw == NULL)
			continue;
		r = nd->rackp != NULL ? (size_t)(nd->rackp - p->racks) :
		    p->nracks;
		cnt[(size_t)(nd->hw - p->hw) * nr + r]++;
	}
	for (h = 0; h < p->nhw; h++) {
		const struct check_hw	*ch = &c->hw[h];
		size_t			 nv = 0;

		if (!isnan(ch->hw->psu.watts) || ch->nnodes == 0) {
			check_power_row(c, ch, NAN, ch->nnodes, 0);
			continue;
		}
		/* Distinct voltages, lowest first; NAN (no rack) last. */
		for (r = 0; r < nr; r++) {
			double	v;

			if (cnt[h * nr + r] == 0)
				continue;
			v = r < p->nracks ? c->volts[r] : NAN;
			for (k = 0; k < nv; k++)
				if ((isnan(v) && isnan(vs[k])) ||
				    fabs(vs[k] - v) < 0.05)
					break;
			if (k == nv) {
				vs[nv] = v;
				vn[nv++] = 0;
			}
			vn[k] += cnt[h * nr + r];
		}
		for (k = 1; k < nv; k++) {
			double	v = vs[k];
			size_t	n = vn[k], j = k;

			for (; j > 0 && (isnan(vs[j - 1]) ||
			    (!isnan(v) && vs[j - 1] > v)); j--) {
				vs[j] = vs[j - 1];
				vn[j] = vn[j - 1];
			}
			vs[j] = v;
			vn[j] = n;
		}
		for (k = 0; k < nv; k++)
			check_power_row(c, ch, vs[k], vn[k], nv > 1 ||
			    isnan(vs[k]));
	}
	free(cnt);
	free(vs);
	free(vn);
}

/* ------------------------------------------------------------------ */
/* memory rows.                                                        */

static void
check_memory(struct check_ctx *c, const struct plan_hw *hw)
{
	struct row		*row;
	const struct cat_system	*sys = hw->sys;
	struct prov_loc		 loc = plan_loc(c->p, hw->src,
	    !isnan(hw->memory_gb) ? "memory_gb" : "system");
	double			 mem = hw->mem_gb, gmem;
	double			 maxm = sys != NULL ? sys->max_memory_gb : NAN;

	if (isnan(mem)) {
		row = check_row(c, ROW_WARN, "memory", "RAM", loc);
		row->subject = check_hw_subject(hw);
		row->measured = xstrdup("unknown");
		row->limit = xasprintf(">= %s GB",
		    check_num(CHECK_MIN_RAM_GB).s);
		row->hint = xasprintf("give memory_gb for '%s'", hw->name);
		row->max = CHECK_MIN_RAM_GB;
	} else if (mem < CHECK_MIN_RAM_GB) {
		row = check_row(c, ROW_FAIL, "memory", "RAM", loc);
		row->subject = check_hw_subject(hw);
		row->measured = xasprintf("%s GB", check_num(mem).s);
		row->limit = xasprintf(">= %s GB",
		    check_num(CHECK_MIN_RAM_GB).s);
		row->hint = xasprintf("plan at least %s GB of RAM per node",
		    check_num(CHECK_MIN_RAM_GB).s);
		row->value = mem;
		row->max = CHECK_MIN_RAM_GB;
	} else if (!isnan(maxm) && mem > maxm) {
		row = check_row(c, ROW_FAIL, "memory", "RAM", loc);
		row->subject = check_hw_subject(hw);
		row->measured = xasprintf("%s GB", check_num(mem).s);
		row->limit = xasprintf("<= %s GB (maximum of '%s')",
		    check_num(maxm).s, sys->m.id);
		row->hint = xasprintf("'%s' holds at most %s GB", sys->m.id,
		    check_num(maxm).s);
		row->value = mem;
		row->max = maxm;
	} else {
		row = check_row(c, ROW_OK, "memory", "RAM", loc);
		row->subject = check_hw_subject(hw);
		row->measured = xasprintf("%s GB", check_num(mem).s);
		row->limit = !isnan(maxm) ? xasprintf(">= %s GB, <= %s GB",
		    check_num(CHECK_MIN_RAM_GB).s, check_num(maxm).s) :
		    xasprintf(">= %s GB", check_num(CHECK_MIN_RAM_GB).s);
		row->value = mem;
		row->max = CHECK_MIN_RAM_GB;
	}
	if (hw->ngpus <= 0 || hw->gpu_cat == NULL || isnan(mem))
		return;
	if (isnan(hw->gpu_cat->memory_gb)) {
		row = check_row(c, ROW_WARN, "memory", "RAM vs GPU memory",
		    loc);
		row->subject = check_hw_subject(hw);
		row->measured = xasprintf("%s GB RAM", check_num(mem).s);
		row->limit = xstrdup("unknown GPU memory");
		row->hint = xasprintf("the catalog has no memory_gb for '%s'",
		    hw->gpu_cat->m.id);
		row->value = mem;
		return;
	}
	gmem = (double)hw->ngpus * hw->gpu_cat->memory_gb;
	row = check_row(c, mem >= gmem ? ROW_OK : ROW_WARN, "memory",
	    "RAM vs GPU memory", loc);
	row->subject = check_hw_subject(hw);
	row->measured = xasprintf("%s GB RAM", check_num(mem).s);
	row->limit = xasprintf("%s GB GPU memory (%ld x %s GB)",
	    check_num(gmem).s, hw->ngpus, check_num(hw->gpu_cat->memory_gb).s);
	row->hint = mem >= gmem ? NULL : xasprintf("common guidance: system "
	    "RAM at least the total GPU memory (pinned buffers, data loading); "
	    "plan %s GB or more", check_num(gmem).s);
	row->value = mem;
	row->max = gmem;
}

/* ------------------------------------------------------------------ */
/* rack rows.                                                          */

struct check_rack {
	double		 nodes_w, switch_w;
	int		 est;		/* a draw uses a default */
	int		 switch_est;
	size_t		 nodes, switches, nohw, unplaced, conflicts;
	size_t		 hunknown;	/* heights assumed 1 U */
	const char	*hunknown_model;
	long		 used;
	double		 depth;
	const char	*deepest;
	size_t		 dunknown;
	const char	*dunknown_model;
	int		 dunknown_mixed;
	size_t		 off;		/* into the unit map */
	/* heat the liquid loop takes; systems whose share is unknown */
	double		 liquid_w;
	size_t		 lunknown;
	const char	*lunknown_model;
	/* equipment weight; chassis of unknown weight */
	double		 weight_kg;
	size_t		 wunknown;
	const char	*wunknown_model;
	/* PSU inlets per feed (A..D) needing C13 and C19 outlets */
	long		 need13[4], need19[4];
	size_t		 iunknown, nocord;
	const char	*iunknown_model;
};

static long
check_node_height(const struct check_ctx *c, const struct plan_node *nd)
{
	long	h;

	if (nd->hw == NULL)
		return 1;
	h = c->hw[nd->hw - c->p->hw].height;
	return h > 0 ? h : h == 0 ? 1 : -1;
}

static long
check_switch_height(const struct plan_switch *s)
{
	return s->cat != NULL && s->cat->rack_units > 0 ?
	    s->cat->rack_units : 1;
}

static char *
check_units_text(long u, long h)
{
	return h > 1 ? xasprintf("U%ld-U%ld", u, u + h - 1) : xasprintf("U%ld",
	    u);
}

/* "node 'gpu03' (U10-U13)": id > 0 is node id-1, id < 0 switch -id-1. */
static char *
check_item_desc(const struct check_ctx *c, long id)
{
	char	*u, *r;

	if (id > 0) {
		const struct plan_node	*nd = &c->p->nodes[id - 1];

		u = check_units_text(nd->u, check_node_height(c, nd));
		r = xasprintf("node '%s' (%s)", nd->name, u);
	} else {
		const struct plan_switch	*s = &c->p->switches[-id - 1];

		u = check_units_text(s->u, check_switch_height(s));
		r = xasprintf("switch '%s' (%s)", s->name, u);
	}
	free(u);
	return r;
}

static void
check_rack_place(struct check_ctx *c, struct check_rack *ra,
    const struct plan_rack *r, long *occ, long id, long u, long h,
    struct prov_loc loc, struct check_cap *cap)
{
	struct row	*row;
	long		 k, top = u + h - 1;
	int		 clash = 0;

	if (top > r->units) {
		ra->conflicts++;
		if (check_cap_take(cap)) {
			row = check_row(c, ROW_FAIL, "rack", "units", loc);
			row->subject = xasprintf("rack '%s'", r->name);
			row->measured = check_item_desc(c, id);
			row->limit = xasprintf("U1-U%ld", r->units);
			row->hint = xasprintf("the rack has %ld U: move it "
			    "lower or to another rack", r->units);
			row->value = (double)top;
			row->max = (double)r->units;
		}
	}
	for (k = u; k <= top && k <= r->units; k++) {
		long	*o = &occ[ra->off + (size_t)k];
		char	*a, *b;

		if (*o == 0) {
			*o = id;
			ra->used++;
			continue;
		}
		if (clash)
			continue;
		clash = 1;
		ra->conflicts++;
		if (!check_cap_take(cap))
			continue;
		a = check_item_desc(c, id);
		b = check_item_desc(c, *o);
		row = check_row(c, ROW_FAIL, "rack", "units", loc);
		row->subject = xasprintf("rack '%s'", r->name);
		row->measured = xasprintf("U%ld: %s overlaps %s", k, a, b);
		row->limit = xstrdup("one chassis per unit");
		row->hint = xasprintf("move %s to free units", a);
		row->value = (double)k;
		free(a);
		free(b);
	}
}

static char *
check_rack_subject(const struct plan_rack *r)
{
	return xasprintf("rack '%s'", r->name);
}

/* units: used of the rack's, with what was assumed. */
static void
check_rack_units(struct check_ctx *c, const struct plan_rack *r,
    const struct check_rack *a)
{
	struct row	*row;
	struct buf	 note = BUF_INIT, d = BUF_INIT;

	if (a->hunknown)
		buf_addf(&note, "height of '%s' unknown: 1 U assumed (%zu)",
		    a->hunknown_model, a->hunknown);
	if (a->unplaced)
		buf_addf(&note, "%s%zu without 'u': not placed",
		    note.len ? "; " : "", a->unplaced);
	buf_addf(&d, "%zu %s, %zu %s", a->nodes,
	    check_plural((long)a->nodes, "node", "nodes"), a->switches,
	    check_plural((long)a->switches, "switch", "switches"));
	if (note.len)
		buf_addf(&d, "; %s", note.buf);
	row = check_row(c, note.len ? ROW_WARN : ROW_OK, "rack", "units",
	    plan_loc(c->p, r->src, "units"));
	row->subject = check_rack_subject(r);
	row->measured = xasprintf("%ld of %ld U used", a->used, r->units);
	row->limit = xasprintf("%ld U", r->units);
	row->hint = buf_detach(&d, NULL);
	row->value = (double)a->used;
	row->max = (double)r->units;
	buf_release(&note);
}

/* depth: the deepest chassis against the rack's depth_mm. */
static void
check_rack_depth(struct check_ctx *c, const struct plan_rack *r,
    const struct check_rack *a)
{
	const struct plan	*p = c->p;
	struct row		*row;

	if (isnan(r->depth_mm)) {
		row = check_row(c, ROW_SKIP, "rack", "depth", plan_loc(p,
		    r->src, NULL));
		row->subject = check_rack_subject(r);
		row->measured = !isnan(a->depth) ? xasprintf("%s mm (%s)",
		    check_num(a->depth).s, a->deepest) : xstrdup("unknown");
		row->limit = xstrdup("depth_mm not given");
		row->hint = xstrdup("give the rack's depth_mm to check it");
		row->value = a->depth;
	} else if (!isnan(a->depth) && a->depth > r->depth_mm) {
		row = check_row(c, ROW_FAIL, "rack", "depth", plan_loc(p,
		    r->src, "depth_mm"));
		row->subject = check_rack_subject(r);
		row->measured = xasprintf("%s mm (%s)", check_num(a->depth).s,
		    a->deepest);
		row->limit = xasprintf("%s mm", check_num(r->depth_mm).s);
		row->hint = xasprintf("'%s' is deeper than the rack: use a "
		    "deeper rack or another chassis", a->deepest);
		row->value = a->depth;
		row->max = r->depth_mm;
	} else {
		row = check_row(c, a->dunknown ? ROW_WARN : ROW_OK, "rack",
		    "depth", plan_loc(p, r->src, "depth_mm"));
		row->subject = check_rack_subject(r);
		row->measured = !isnan(a->depth) ? xasprintf("%s mm (%s)",
		    check_num(a->depth).s, a->deepest) : xstrdup("unknown");
		row->limit = xasprintf("%s mm", check_num(r->depth_mm).s);
		row->hint = a->dunknown ? xasprintf("depth unknown for %zu of "
		    "%zu (%s'%s'): measure, and give depth_mm in a profiles "
		    "dir", a->dunknown, a->nodes + a->switches,
		    a->dunknown_mixed ? "e.g. " : "", a->dunknown_model) : NULL;
		row->value = a->depth;
		row->max = r->depth_mm;
	}
}

/* What the draw figures rest on, for the power and heat hints. */
static void
check_rack_basis(struct buf *note, const struct check_rack *a)
{
	if (a->nohw)
		buf_addf(note, "%zu %s without hardware: 0 W counted", a->nohw,
		    check_plural((long)a->nohw, "node", "nodes"));
	if (a->switch_est)
		buf_addf(note, "%sswitch power unknown: %s W per U assumed",
		    note->len ? "; " : "", check_num(CHECK_SWITCH_W_PER_U).s);
	if (a->est && a->nodes > a->nohw)
		buf_addf(note, "%snode draw includes assumed figures (see the "
		    "PSU budget rows)", note->len ? "; " : "");
}

/* One feed's PDUs: the whole rack's draw against their capacity. */
static void
check_rack_feed(struct check_ctx *c, const struct plan_rack *r,
    const struct check_rack *a, const char *feed, int feeds,
    const char *basis)
{
	const struct plan_pdu	*first = NULL;
	struct row		*row;
	struct buf		 h = BUF_INIT;
	double			 draw = a->nodes_w + a->switch_w, cap = 0;
	enum row_verdict	 sev;
	size_t			 i, n = 0;
	int			 same = 1;

	for (i = 0; i < r->npdus; i++) {
		const struct plan_pdu	*pd = &r->pdus[i];

		if (strcmp(pd->feed, feed) != 0)
			continue;
		cap += pd->volts * pd->amps * (pd->phases == 3 ? sqrt(3.0) :
		    1.0) * pd->derate;
		if (first == NULL)
			first = pd;
		else if (pd->volts != first->volts ||
		    pd->amps != first->amps || pd->phases != first->phases ||
		    pd->derate != first->derate)
			same = 0;
		n++;
	}
	sev = check_grade(draw, cap, a->est || a->switch_est);
	if (sev == ROW_FAIL)
		buf_addf(&h, "%s; ", feeds > 1 ? "with A+B feeds each feed "
		    "alone must carry the whole rack: add PDU capacity to "
		    "this feed or move load out" :
		    "add PDU capacity or move load out");
	buf_adds(&h, basis);
	row = check_row(c, sev, "rack", "power", plan_loc(c->p, r->src,
	    "pdus"));
	row->subject = xasprintf("rack '%s' feed %s", r->name, feed);
	row->measured = xasprintf("%s W (%s)", check_num(draw).s,
	    check_pct(draw, cap).s);
	row->limit = same ? xasprintf("%s W (%zu x %s V %s A%s x %g)",
	    check_num(cap).s, n, check_num(first->volts).s,
	    check_num(first->amps).s, first->phases == 3 ? " 3-phase" : "",
	    first->derate) : xasprintf("%s W (%zu PDUs)", check_num(cap).s,
	    n);
	row->hint = buf_detach(&h, NULL);
	row->value = draw;
	row->max = cap;
}

/* power: a row for each feed, or a skip without PDUs. */
static void
check_rack_power(struct check_ctx *c, const struct plan_rack *r,
    const struct check_rack *a, const char *note)
{
	struct row	*row;
	struct buf	 d = BUF_INIT;
	double		 draw = a->nodes_w + a->switch_w;
	const char	*feeds[8];
	size_t		 i, j, nfeeds = 0;

	buf_addf(&d, "nodes %s W + switches %s W", check_num(a->nodes_w).s,
	    check_num(a->switch_w).s);
	if (*note != '\0')
		buf_addf(&d, "; %s", note);
	for (i = 0; i < r->npdus && nfeeds < ARRAY_SIZE(feeds); i++) {
		for (j = 0; j < nfeeds; j++)
			if (strcmp(feeds[j], r->pdus[i].feed) == 0)
				break;
		if (j == nfeeds)
			feeds[nfeeds++] = r->pdus[i].feed;
	}
	if (r->npdus == 0) {
		row = check_row(c, ROW_SKIP, "rack", "power", plan_loc(c->p,
		    r->src, NULL));
		row->subject = check_rack_subject(r);
		row->measured = xasprintf("%s W", check_num(draw).s);
		row->limit = xstrdup("no PDUs given");
		row->hint = xstrdup("give pdus: [ { volts, amps, phases, feed "
		    "} ] to check the rack's power");
		row->value = draw;
	}
	for (j = 0; j < nfeeds; j++)
		check_rack_feed(c, r, a, feeds[j], (int)nfeeds, d.buf);
	buf_release(&d);
}

/* The rack's feeds in the order its PDUs name them (at most 4: A..D). */
static size_t
check_rack_feeds(const struct plan_rack *r, int feeds[4])
{
	size_t	i, j, n = 0;

	for (i = 0; i < r->npdus; i++) {
		int	f = r->pdus[i].feed[0] - 'A';

		if (f < 0 || f > 3)
			continue;
		for (j = 0; j < n && feeds[j] != f; j++)
			;
		if (j == n && n < 4)
			feeds[n++] = f;
	}
	return n;
}

/*
 * One heat row: `w` watts in BTU/h against `kw` (the rack's key `key`),
 * or a skip that asks for the key.  `fix` ends the hint of a failure.
 */
static void
check_rack_heat_row(struct check_ctx *c, const struct plan_rack *r,
    const char *what, double w, double kw, const char *key, int est,
    const char *note, const char *fix)
{
	struct row		*row;
	enum row_verdict	 sev;
	double			 lim = kw * 1000;

	if (isnan(kw)) {
		row = check_row(c, ROW_SKIP, "rack", what, plan_loc(c->p,
		    r->src, NULL));
		row->subject = check_rack_subject(r);
		row->measured = xasprintf("%s BTU/h (%s W)", check_int(w *
		    CHECK_BTU_PER_W).s, check_num(w).s);
		row->limit = xasprintf("%s not given", key);
		row->hint = xasprintf("give the rack's %s to check it", key);
		row->value = w * CHECK_BTU_PER_W;
		return;
	}
	sev = check_grade(w, lim, est);
	row = check_row(c, sev, "rack", what, plan_loc(c->p, r->src, key));
	row->subject = check_rack_subject(r);
	row->measured = xasprintf("%s BTU/h (%s W)", check_int(w *
	    CHECK_BTU_PER_W).s, check_num(w).s);
	row->limit = xasprintf("%s BTU/h (%s kW)", check_int(lim *
	    CHECK_BTU_PER_W).s, check_num(kw).s);
	row->hint = sev == ROW_FAIL ? xasprintf("short by %s BTU/h: %s",
	    check_int((w - lim) * CHECK_BTU_PER_W).s, fix) : *note != '\0' ?
	    xstrdup(note) : NULL;
	row->value = w * CHECK_BTU_PER_W;
	row->max = lim * CHECK_BTU_PER_W;
}

/*
 * heat: the draw against the rack's cooling_kw.  A rack that gives
 * liquid_kw (its CDU or loop) is checked in two: what the catalog says
 * the systems send to liquid (heat_to_liquid_pct) against liquid_kw, the
 * rest against cooling_kw, which then means air; a loop cannot take air
 * heat, nor the room's air a loop's.  A rack declared `cooling: air`
 * holding systems that need a loop fails.
 */
static void
check_rack_heat(struct check_ctx *c, const struct plan_rack *r,
    const struct check_rack *a, const char *note)
{
	double		 draw = a->nodes_w + a->switch_w;
	struct buf	 ln = BUF_INIT;
	struct row	*row;
	int		 est = a->est || a->switch_est;

	buf_adds(&ln, note);
	if ((a->liquid_w > 0 || a->lunknown > 0) && r->cooling != NULL &&
	    strcmp(r->cooling, "air") == 0) {
		row = check_row(c, ROW_FAIL, "rack", "cooling", plan_loc(c->p,
		    r->src, "cooling"));
		row->subject = check_rack_subject(r);
		row->measured = a->liquid_w > 0 ? xasprintf("%s W to liquid",
		    check_num(a->liquid_w).s) : xasprintf("'%s' (liquid)",
		    a->lunknown_model);
		row->limit = xstrdup("air");
		row->hint = xstrdup("liquid-cooled systems in a rack without a "
		    "loop: give it cooling: liquid and its liquid_kw, or move "
		    "them");
		row->value = a->liquid_w;
	}
	if (isnan(r->liquid_kw)) {
		if (a->liquid_w > 0)
			buf_addf(&ln, "%s%s W of it to liquid (catalog): give "
			    "liquid_kw to check the loop and the air apart",
			    ln.len ? "; " : "", check_num(a->liquid_w).s);
		check_rack_heat_row(c, r, "heat", draw, r->cooling_kw,
		    "cooling_kw", est, ln.buf, "more cooling, less load in "
		    "this rack, or liquid cooling for the densest racks");
		buf_release(&ln);
		return;
	}
	if (a->lunknown > 0)
		buf_addf(&ln, "%sthe share of heat '%s' sends to liquid is "
		    "unknown: all of it counted to air (%zu)", ln.len ? "; " :
		    "", a->lunknown_model, a->lunknown);
	check_rack_heat_row(c, r, "heat to liquid", a->liquid_w, r->liquid_kw,
	    "liquid_kw", est || a->lunknown > 0, ln.buf, "a larger CDU or "
	    "fewer liquid-cooled systems in this rack");
	check_rack_heat_row(c, r, "heat to air", draw - a->liquid_w,
	    r->cooling_kw, "cooling_kw", est, ln.buf, "a liquid-cooled system "
	    "still sends part of its heat to air (fans, PSUs, NICs): more air "
	    "cooling or a rear-door exchanger");
	buf_release(&ln);
}

/*
 * weight: the chassis' weight against the rack's static load rating;
 * with a footprint and a floor rating, the rack (its own weight_kg too)
 * per square metre against the floor.  Only when the plan gives a rating.
 */
static void
check_rack_weight(struct check_ctx *c, const struct plan_rack *r,
    const struct check_rack *a)
{
	struct row	*row;
	struct buf	 note = BUF_INIT;
	double		 total, load;

	if (a->wunknown > 0)
		buf_addf(&note, "weight of '%s' unknown: 0 kg counted (%zu)",
		    a->wunknown_model, a->wunknown);
	if (!isnan(r->max_load_kg)) {
		row = check_row(c, check_grade(a->weight_kg, r->max_load_kg,
		    a->wunknown > 0), "rack", "weight", plan_loc(c->p, r->src,
		    "max_load_kg"));
		row->subject = check_rack_subject(r);
		row->measured = xasprintf("%s kg (%s)", check_num(a->weight_kg).s,
		    check_pct(a->weight_kg, r->max_load_kg).s);
		row->limit = xasprintf("%s kg static load",
		    check_num(r->max_load_kg).s);
		row->hint = a->weight_kg > r->max_load_kg ? xasprintf("over by "
		    "%s kg: move chassis to another rack or use a rack rated "
		    "for more", check_num(a->weight_kg - r->max_load_kg).s) :
		    note.len > 0 ? xstrdup(note.buf) : NULL;
		row->value = a->weight_kg;
		row->max = r->max_load_kg;
	}
	if (isnan(r->footprint_m2) || isnan(r->floor_kg_m2))
		goto out;
	total = a->weight_kg + (isnan(r->weight_kg) ? 0 : r->weight_kg);
	if (isnan(r->weight_kg))
		buf_addf(&note, "%sthe empty rack's weight_kg not given: not "
		    "counted", note.len ? "; " : "");
	load = total / r->footprint_m2;
	row = check_row(c, check_grade(load, r->floor_kg_m2, a->wunknown > 0 ||
	    isnan(r->weight_kg)), "rack", "floor load", plan_loc(c->p, r->src,
	    "floor_kg_m2"));
	row->subject = check_rack_subject(r);
	row->measured = xasprintf("%s kg/m2 (%s kg on %s m2)",
	    check_num(load).s, check_num(total).s,
	    check_fmt(r->footprint_m2, 2).s);
	row->limit = xasprintf("%s kg/m2", check_num(r->floor_kg_m2).s);
	row->hint = load > r->floor_kg_m2 ? xasprintf("the floor takes %s kg "
	    "on this footprint: spread the load (a load-spreading plate, "
	    "fewer chassis) or ask for a slab rated higher",
	    check_num(r->floor_kg_m2 * r->footprint_m2).s) : note.len > 0 ?
	    xstrdup(note.buf) : NULL;
	row->value = load;
	row->max = r->floor_kg_m2;
out:
	buf_release(&note);
}

/*
 * outlets, per feed, when the rack's PDUs give their outlets (c13, c19):
 * the PSU inlets on that feed against the outlets of its PDUs.  A C20 or
 * C22 inlet needs a C19 outlet; a C14 or C16 one a C13, or a spare C19
 * through a C20-to-C13 cord (a warning: it works, the cords are special).
 */
static void
check_rack_outlets(struct check_ctx *c, const struct plan_rack *r,
    const struct check_rack *a)
{
	int		 feeds[4];
	size_t		 nf = check_rack_feeds(r, feeds), i, k;
	int		 given = 0;

	for (i = 0; i < r->npdus; i++)
		given |= r->pdus[i].c13 >= 0 || r->pdus[i].c19 >= 0;
	if (!given)
		return;
	for (k = 0; k < nf; k++) {
		int			 f = feeds[k];
		long			 h13 = 0, h19 = 0, spare, n13, n19;
		size_t			 npdu = 0;
		enum row_verdict	 sev = ROW_OK;
		struct buf		 lim = BUF_INIT, h = BUF_INIT;
		struct row		*row;

		for (i = 0; i < r->npdus; i++) {
			const struct plan_pdu	*pd = &r->pdus[i];

			if (pd->feed[0] - 'A' != f)
				continue;
			h13 += pd->c13 > 0 ? pd->c13 : 0;
			h19 += pd->c19 > 0 ? pd->c19 : 0;
			buf_addf(&lim, "%s%ld C13 + %ld C19", npdu ? ", " : "",
			    pd->c13 > 0 ? pd->c13 : 0, pd->c19 > 0 ? pd->c19 :
			    0);
			npdu++;
		}
		n13 = a->need13[f];
		n19 = a->need19[f];
		spare = h19 > n19 ? h19 - n19 : 0;
		if (n19 > h19) {
			sev = ROW_FAIL;
			buf_addf(&h, "%ld C20/C22 inlet%s without a C19 outlet "
			    "(a C13 outlet cannot feed a 16 A supply)",
			    n19 - h19, n19 - h19 == 1 ? "" : "s");
		}
		if (n13 > h13 + spare) {
			sev = ROW_FAIL;
			buf_addf(&h, "%s%ld C14/C16 inlet%s without an outlet",
			    h.len ? "; " : "", n13 - h13 - spare,
			    n13 - h13 - spare == 1 ? "" : "s");
		} else if (n13 > h13) {
			sev = sev == ROW_FAIL ? sev : ROW_WARN;
			buf_addf(&h, "%s%ld C14/C16 inlet%s on C19 outlets: "
			    "C20-to-C13 cords", h.len ? "; " : "", n13 - h13,
			    n13 - h13 == 1 ? "" : "s");
		}
		if (a->iunknown > 0) {
			sev = sev == ROW_FAIL ? sev : ROW_WARN;
			buf_addf(&h, "%sPSU count or inlet of '%s' unknown: "
			    "not counted (%zu)", h.len ? "; " : "",
			    a->iunknown_model, a->iunknown);
		}
		if (a->nocord > 0)
			buf_addf(&h, "%s%zu chassis on a busbar or hard-wired",
			    h.len ? "; " : "", a->nocord);
		row = check_row(c, sev, "rack", "outlets", plan_loc(c->p,
		    r->src, "pdus"));
		row->subject = xasprintf("rack '%s' feed %c", r->name, 'A' + f);
		row->measured = xasprintf("%ld C13, %ld C19", n13, n19);
		row->limit = npdu == 1 ? xasprintf("%ld C13, %ld C19 (1 PDU)",
		    h13, h19) : xasprintf("%ld C13, %ld C19 (%zu PDUs: %s)",
		    h13, h19, npdu, lim.buf);
		row->hint = h.len > 0 ? buf_detach(&h, NULL) : NULL;
		row->value = (double)(n13 + n19);
		row->max = (double)(h13 + h19);
		buf_release(&h);
		buf_release(&lim);
	}
}

/* A rack's rows: units, then (when it holds anything) depth, power, heat. */
static void
check_rack_rows(struct check_ctx *c, const struct plan_rack *r,
    const struct check_rack *a)
{
	struct buf	note = BUF_INIT;

	if (a->conflicts == 0)
		check_rack_units(c, r, a);
	if (a->nodes + a->switches == 0)
		return;
	check_rack_depth(c, r, a);
	check_rack_basis(&note, a);
	check_rack_power(c, r, a, note.len > 0 ? note.buf : "");
	check_rack_outlets(c, r, a);
	check_rack_heat(c, r, a, note.len > 0 ? note.buf : "");
	check_rack_weight(c, r, a);
	buf_release(&note);
}

/* A chassis's depth into its rack's deepest, or its model as unknown. */
static void
check_rack_deep(struct check_rack *a, double depth_mm, const char *model)
{
	if (!isnan(depth_mm)) {
		if (isnan(a->depth) || depth_mm > a->depth) {
			a->depth = depth_mm;
			a->deepest = model;
		}
	} else if (a->dunknown++ == 0)
		a->dunknown_model = model;
	else if (strcmp(a->dunknown_model, model) != 0)
		a->dunknown_mixed = 1;
}

/*
 * A chassis's weight, heat to liquid and PSU inlets into its rack's
 * tally.  Its PSUs spread over the rack's feeds in turn (two feeds:
 * half on each, as N+N wants).  A C14 or C16 inlet takes a C13 outlet
 * (a C16 through a C14-to-C15 cord), a C20 or C22 one a C19 outlet; a
 * busbar or hard-wired supply takes none.
 */
static void
check_rack_chassis(struct check_rack *a, const struct plan_rack *r,
    const char *model, double draw, const char *cooling, double liquid_pct,
    double weight_kg, long psus, const char *inlet)
{
	int	feeds[4];
	size_t	nf = check_rack_feeds(r, feeds);
	long	j;

	if (cooling != NULL && strcmp(cooling, "liquid") == 0 &&
	    isnan(liquid_pct)) {
		if (a->lunknown++ == 0)
			a->lunknown_model = model;
	} else if (!isnan(liquid_pct))
		a->liquid_w += draw * liquid_pct / 100.0;
	if (!isnan(weight_kg))
		a->weight_kg += weight_kg;
	else if (a->wunknown++ == 0)
		a->wunknown_model = model;
	if (inlet != NULL && (strcmp(inlet, "busbar") == 0 ||
	    strcmp(inlet, "hardwired") == 0)) {
		a->nocord++;
		return;
	}
	if (inlet == NULL || psus < 0 || nf == 0) {
		if (a->iunknown++ == 0)
			a->iunknown_model = model;
		return;
	}
	for (j = 0; j < psus; j++) {
		int	f = feeds[(size_t)j % nf];

		if (strcmp(inlet, "C20") == 0 || strcmp(inlet, "C22") == 0)
			a->need19[f]++;
		else
			a->need13[f]++;
	}
}

/*
 * A node's chassis into its rack's tally: an air-cooled system's heat
 * all goes to air; a liquid-cooled one's share is its catalog
 * heat_to_liquid_pct (unknown: counted apart).  PSUs: the plan's count,
 * else the system's.
 */
static void
check_racks_node_chassis(struct check_ctx *c, struct check_rack *a,
    const struct plan_node *nd)
{
	const struct plan_hw	*hw = nd->hw;
	const struct cat_system	*sys = hw != NULL ? hw->sys : NULL;
	double			 pct = NAN;
	long			 psus = -1;
	int			 liquid;

	if (sys == NULL) {
		check_rack_chassis(a, nd->rackp, "(no hardware)", 0, NULL, 0,
		    NAN, -1, NULL);
		return;
	}
	liquid = sys->cooling != NULL && strcmp(sys->cooling, "liquid") == 0;
	pct = liquid || !isnan(sys->heat_to_liquid_pct) ?
	    sys->heat_to_liquid_pct : 0;
	psus = hw->psu.count >= 0 ? hw->psu.count : sys->psu_count;
	check_rack_chassis(a, nd->rackp, sys->m.id, c->hw[hw - c->p->hw].draw,
	    sys->cooling, pct, sys->weight_kg, psus, sys->psu_inlet);
}

/* Node i into its rack's tally and units (occ), or a row why not. */
static void
check_racks_node(struct check_ctx *c, struct check_rack *ra, long *occ,
    size_t i, struct check_cap *cap, struct check_cap *capr)
{
	const struct plan	*p = c->p;
	const struct plan_node	*nd = &p->nodes[i];
	const struct cat_system	*sys;
	struct check_rack	*a;
	struct row		*row;
	long			 h;

	if (nd->rackp == NULL)
		return;
	a = &ra[nd->rackp - p->racks];
	a->nodes++;
	sys = nd->hw != NULL ? nd->hw->sys : NULL;
	if (nd->hw != NULL) {
		const struct check_hw	*ch = &c->hw[nd->hw - p->hw];

		a->nodes_w += ch->draw;
		if (ch->draw_est)
			a->est = 1;
	} else {
		a->nohw++;
		a->est = 1;
	}
	if (sys != NULL)
		check_rack_deep(a, sys->depth_mm, sys->m.id);
	check_racks_node_chassis(c, a, nd);
	if (nd->u <= 0) {
		a->unplaced++;
		return;
	}
	h = check_node_height(c, nd);
	if (h < 0) {
		a->conflicts++;
		if (!check_cap_take(capr))
			return;
		row = check_row(c, ROW_FAIL, "rack", "units", plan_loc(p,
		    nd->src, "rack"));
		row->subject = check_rack_subject(nd->rackp);
		row->measured = xasprintf("node '%s' (%s)", nd->name,
		    sys->m.id);
		row->limit = xstrdup("rack-mountable chassis");
		row->hint = xasprintf("'%s' is not rack-mountable: leave rack "
		    "and u out, or use a rack system", sys->m.id);
		return;
	}
	if (nd->hw == NULL || c->hw[nd->hw - p->hw].height == 0) {
		if (a->hunknown++ == 0)
			a->hunknown_model = sys != NULL ? sys->m.id :
			    "(no hardware)";
	}
	check_rack_place(c, a, nd->rackp, occ, (long)i + 1, nd->u, h,
	    plan_loc(p, nd->src, "u"), cap);
}

/* Switch i into its rack's tally and units (occ). */
static void
check_racks_switch(struct check_ctx *c, struct check_rack *ra, long *occ,
    size_t i, struct check_cap *cap)
{
	const struct plan		*p = c->p;
	const struct plan_switch	*s = &p->switches[i];
	const struct plan_rack		*r;
	struct check_rack		*a;
	long				 h = check_switch_height(s);

	if (s->rack == NULL || (r = plan_rack_find(p, s->rack)) == NULL)
		return;
	a = &ra[r - p->racks];
	a->switches++;
	if (s->cat != NULL && !isnan(s->cat->power_w))
		a->switch_w += s->cat->power_w;
	else {
		a->switch_w += CHECK_SWITCH_W_PER_U * (double)h;
		a->switch_est = 1;
	}
	check_rack_deep(a, s->cat != NULL ? s->cat->depth_mm : NAN,
	    s->cat != NULL ? s->cat->m.id : s->model);
	/* switches are air-cooled in the catalog */
	check_rack_chassis(a, r, s->cat != NULL ? s->cat->m.id : s->model,
	    0, NULL, 0, s->cat != NULL ? s->cat->weight_kg : NAN,
	    s->cat != NULL ? s->cat->psu_count : -1, s->cat != NULL ?
	    s->cat->psu_inlet : NULL);
	if (s->u <= 0) {
		a->unplaced++;
		return;
	}
	if (s->cat == NULL || s->cat->rack_units <= 0) {
		if (a->hunknown++ == 0)
			a->hunknown_model = s->model;
	}
	check_rack_place(c, a, r, occ, -(long)i - 1, s->u, h, plan_loc(p,
	    s->src, "u"), cap);
}

/* Racks: each node and switch placed in its units, then each rack's rows. */
static void
check_racks(struct check_ctx *c)
{
	const struct plan	*p = c->p;
	struct check_rack	*ra = xcalloc(p->nracks + 1, sizeof *ra);
	struct check_cap	 cap = { 0, 0 }, capr = { 0, 0 };
	size_t			 i, total = 0;
	long			*occ;

	for (i = 0; i < p->nracks; i++) {
		ra[i].off = total;
		ra[i].depth = NAN;
		total += (size_t)(p->racks[i].units > 0 ?
		    p->racks[i].units : 0) + 1;
	}
	occ = xcalloc(total + 1, sizeof *occ);
	for (i = 0; i < p->nnodes; i++)
		check_racks_node(c, ra, occ, i, &cap, &capr);
	for (i = 0; i < p->nswitches; i++)
		check_racks_switch(c, ra, occ, i, &cap);
	check_cap_flush(c, &capr, "rack", "units");
	check_cap_flush(c, &cap, "rack", "units");
	for (i = 0; i < p->nracks; i++)
		check_rack_rows(c, &p->racks[i], &ra[i]);
	free(occ);
	free(ra);
}

/* ------------------------------------------------------------------ */
/* network rows.                                                       */

struct check_addr {
	const struct plan_node	*node;
	const char		*kind;		/* "address" "bmc" or a net */
	int			 iface;
};

struct check_net {
	long long	 links;
	long long	 ports;
	size_t		 nswitches;
	const char	*model;		/* of the switches, NULL when mixed */
	size_t		 nin, nout;	/* addresses inside / outside */
};

struct check_addrs {
	struct strmap		 map;
	struct check_addr	*v;
	size_t			 n;
	struct check_cap	 cap_dup, cap_cidr;
	size_t			 ndup, nonip, nout;
	const char		*nonip_example;
};

static char *
check_addr_desc(const struct check_addr *a, int with_kind)
{
	if (!with_kind)
		return xstrdup(a->node->name);
	if (a->iface)
		return xasprintf("%s (interface '%s')", a->node->name, a->kind);
	return xasprintf("%s (%s)", a->node->name, a->kind);
}

static void
check_addr_unique(struct check_ctx *c, struct check_addrs *as,
    const struct plan_node *nd, const char *addr, const char *kind,
    int iface, struct prov_loc loc)
{
	struct row		*row;
	struct check_addr	*rec = &as->v[as->n++], *prev;
	char			*a, *b;
	int			 kinds;

	rec->node = nd;
	rec->kind = kind;
	rec->iface = iface;
	if ((prev = strmap_add(&as->map, addr, rec)) == NULL)
		return;
	as->ndup++;
	if (!check_cap_take(&as->cap_dup))
		return;
	kinds = prev->node == nd || prev->iface != iface ||
	    strcmp(prev->kind, kind) != 0;
	a = check_addr_desc(prev, kinds);
	b = check_addr_desc(rec, kinds);
	row = check_row(c, ROW_FAIL, "network", "unique address", loc);
	row->subject = xasprintf("node '%s'", nd->name);
	row->measured = xasprintf("duplicate address %s: %s, %s", addr, a, b);
	row->limit = xstrdup("one owner per address");
	row->hint = xasprintf("give one of them another address");
	free(a);
	free(b);
}

static void
check_addr_outside(struct check_ctx *c, struct check_addrs *as,
    const struct plan_node *nd, const char *what, char *measured,
    const struct plan_net *want, const char *why, struct prov_loc loc)
{
	struct row	*row;

	as->nout++;
	if (!check_cap_take(&as->cap_cidr)) {
		free(measured);
		return;
	}
	row = check_row(c, ROW_FAIL, "network", what, loc);
	row->subject = xasprintf("node '%s'", nd->name);
	row->measured = measured;
	row->limit = want != NULL ? xasprintf("inside %s '%s' %s", why,
	    want->name, want->cidr) : xstrdup("inside one of the plan's "
	    "networks");
	row->hint = want != NULL ? xasprintf("use an address in %s, or fix the "
	    "network's cidr", want->cidr) : xstrdup("add the network under "
	    "networks: or fix the address");
}

/* The first network holding a, preferring those with `role`; NULL when none. */
static const struct plan_net *
check_net_holding(const struct plan *p, uint32_t a, const char *role)
{
	size_t	i;

	for (i = 0; i < p->nnets; i++)
		if ((role == NULL || (p->nets[i].role != NULL &&
		    strcmp(p->nets[i].role, role) == 0)) &&
		    check_in_net(&p->nets[i], a))
			return &p->nets[i];
	return NULL;
}

static const struct plan_net *
check_net_first_role(const struct plan *p, const char *role)
{
	size_t	i;

	for (i = 0; i < p->nnets; i++)
		if (p->nets[i].role != NULL &&
		    strcmp(p->nets[i].role, role) == 0)
			return &p->nets[i];
	return NULL;
}

/*
 * Addresses of one node: inside their networks and unique.  Returns the
 * network of its management address, or NULL.
 */
static const struct plan_net *
check_node_addrs(struct check_ctx *c, struct check_addrs *as,
    struct check_net *nets, const struct plan_node *nd,
    const struct plan_net *mgmt_role, const struct plan_net *bmc_role)
{
	const struct plan	*p = c->p;
	const struct plan_net	*mn = NULL, *n;
	uint32_t		 a;
	size_t			 i;

	if (nd->address != NULL) {
		struct prov_loc	loc = plan_loc(p, nd->src, "address");

		check_addr_unique(c, as, nd, nd->address, "address", 0, loc);
		if (plan_parse_ipv4(nd->address, &a) != 0) {
			if (as->nonip++ == 0)
				as->nonip_example = nd->address;
		} else if (p->nnets > 0) {
			mn = check_net_holding(p, a, mgmt_role != NULL ?
			    "management" : NULL);
			if (mn != NULL)
				nets[mn - p->nets].nin++;
			else {
				const struct plan_net	*want = mgmt_role;
				const char		*why;

				why = "management network";

				if (want == NULL && nd->hw != NULL) {
					const struct check_hw	*ch =
					    &c->hw[nd->hw - p->hw];

					why = "on-board NIC network";
					for (i = 0; i < ch->nnics &&
					    want == NULL; i++)
						if (ch->nics[i].cat != NULL &&
						    ch->nics[i].cat->onboard &&
						    ch->nics[i].net != NULL)
							want = ch->nics[i].net;
				}
				if (want != NULL)
					nets[want - p->nets].nout++;
				check_addr_outside(c, as, nd, "address",
				    xstrdup(nd->address), want, why, loc);
			}
		}
	}
	for (i = 0; i < nd->nifaces; i++) {
		const struct plan_iface	*f = &nd->ifaces[i];
		struct prov_loc		 loc = plan_loc(p,
		    yml_map_get(nd->src, "interfaces"), f->network);

		if (f->address == NULL)
			continue;
		check_addr_unique(c, as, nd, f->address, f->network, 1, loc);
		n = plan_net_find(p, f->network);
		if (plan_parse_ipv4(f->address, &a) != 0) {
			if (as->nonip++ == 0)
				as->nonip_example = f->address;
		} else if (n != NULL && check_in_net(n, a))
			nets[n - p->nets].nin++;
		else if (n != NULL) {
			nets[n - p->nets].nout++;
			check_addr_outside(c, as, nd, "address",
			    xasprintf("%s (interface '%s')", f->address,
			    f->network), n, "network", loc);
		}
	}
	if (nd->bmc != NULL && nd->bmc->address != NULL) {
		struct prov_loc	loc = plan_loc(p, yml_map_get(nd->src, "bmc"),
		    "address");

		check_addr_unique(c, as, nd, nd->bmc->address, "bmc", 0, loc);
		if (plan_parse_ipv4(nd->bmc->address, &a) != 0) {
			if (as->nonip++ == 0)
				as->nonip_example = nd->bmc->address;
		} else if ((n = check_net_holding(p, a, bmc_role != NULL ?
		    "bmc" : NULL)) != NULL) {
			nets[n - p->nets].nin++;
			/* The BMC port's cable. */
			nets[n - p->nets].links++;
		} else if (bmc_role != NULL) {
			nets[bmc_role - p->nets].nout++;
			check_addr_outside(c, as, nd, "BMC address",
			    xstrdup(nd->bmc->address), bmc_role, "BMC network",
			    loc);
		}
	}
	return mn;
}

static void
check_net_ports(struct check_ctx *c)
{
	struct row		*row;
	const struct plan	*p = c->p;
	size_t			 h, i;

	for (h = 0; h < p->nhw; h++) {
		const struct check_hw	*ch = &c->hw[h];
		const struct plan_hw	*hw = ch->hw;
		struct buf		 d = BUF_INIT;
		enum row_verdict		 sev;

		for (i = 0; i < ch->nnics; i++) {
			const struct check_nic	*cn = &ch->nics[i];
			long			 cnt = 0;
			size_t			 k;

			if (cn->bmc)
				continue;
			/* One entry per model, the plan's and built-in. */
			for (k = 0; k < ch->nnics; k++)
				if (!ch->nics[k].bmc &&
				    strcmp(ch->nics[k].model, cn->model) == 0) {
					if (k < i)
						break;
					cnt += ch->nics[k].count;
				}
			if (k < i)
				continue;
			buf_addf(&d, "%s%ld x %s", d.len ? ", " : "", cnt,
			    cn->model);
			if (cn->cat != NULL && cn->cat->ports > 0)
				buf_addf(&d, " (%ld %s)", cn->cat->ports,
				    check_plural(cn->cat->ports, "port",
				    "ports"));
			else
				buf_adds(&d, " (ports unknown)");
		}
		if (ch->ports >= CHECK_MIN_PORTS)
			sev = ROW_OK;
		else
			sev = ch->ports_unknown ? ROW_WARN : ROW_FAIL;
		row = check_row(c, sev, "network", "ports", plan_loc(p, hw->src,
		    hw->nnics > 0 ? "nics" : "system"));
		row->subject = check_hw_subject(hw);
		row->measured = xasprintf("%ld %s", ch->ports,
		    check_plural(ch->ports, "port", "ports"));
		row->limit = xasprintf(">= %d (cluster + management)",
		    CHECK_MIN_PORTS);
		row->hint = sev == ROW_FAIL ? xasprintf("every node needs "
		    "one port for cluster traffic and one for management: add "
		    "a NIC%s%s", d.len ? "; has " : "", d.buf) : d.len ?
		    xstrdup(d.buf) : NULL;
		row->value = (double)ch->ports;
		row->max = CHECK_MIN_PORTS;
		buf_release(&d);

		/* A NIC on a network of another kind or a faster speed. */
		for (i = 0; i < ch->nnics; i++) {
			const struct check_nic	*cn = &ch->nics[i];
			const struct cat_nic	*n = cn->cat;
			struct prov_loc		 loc;

			if (cn->bmc || cn->net == NULL || n == NULL)
				continue;
			loc = plan_loc(p, cn->src != NULL ? cn->src : hw->src,
			    cn->src != NULL ? "network" : "system");
			if (n->kind != NULL && cn->net->kind != NULL &&
			    strcmp(n->kind, "vpi") != 0 &&
			    strcmp(n->kind, cn->net->kind) != 0) {
				row = check_row(c, ROW_FAIL, "network",
				    "NIC kind", loc);
				row->subject = check_hw_subject(hw);
				row->measured = xasprintf("%s (%s)", n->m.id,
				    n->kind);
				row->limit = xasprintf("network '%s': %s",
				    cn->net->name, cn->net->kind);
				row->hint = xasprintf("an %s NIC cannot join "
				    "an %s network: use a %s or VPI NIC",
				    n->kind, cn->net->kind, cn->net->kind);
			} else if (!isnan(n->gbps) && !isnan(cn->net->gbps) &&
			    n->gbps < cn->net->gbps) {
				row = check_row(c, ROW_WARN, "network",
				    "NIC speed", loc);
				row->subject = check_hw_subject(hw);
				row->measured = xasprintf("%s Gb/s (%s)",
				    check_num(n->gbps).s, n->m.id);
				row->limit = xasprintf("network '%s': %s Gb/s",
				    cn->net->name, check_num(cn->net->gbps).s);
				row->hint = xasprintf("the link runs at the "
				    "NIC's %s Gb/s", check_num(n->gbps).s);
				row->value = n->gbps;
				row->max = cn->net->gbps;
			}
		}
	}
}

static char *
check_fast_nets(const struct plan *p)
{
	struct buf	b = BUF_INIT;
	size_t		i;

	for (i = 0; i < p->nnets; i++) {
		const struct plan_net	*n = &p->nets[i];

		if (!check_net_fast(n))
			continue;
		buf_addf(&b, "%s%s (%s", b.len ? ", " : "", n->name, n->kind);
		if (!isnan(n->gbps))
			buf_addf(&b, " %s Gb/s", check_num(n->gbps).s);
		buf_addch(&b, ')');
	}
	return buf_detach(&b, NULL);
}

/* What the network checks gather over the nodes, for the rows after. */
struct check_netw {
	struct check_net	*nets;		/* per plan network */
	struct check_addrs	 as;
	struct check_cap	 cap_fab, cap_mac, cap_name;
	struct strmap		 macs;
	struct strvec		 macstore;
	const struct plan_net	*mgmt_role, *bmc_role;
	size_t			 ngpun, nfast, nmac, nmacdup, nfastnets;
	char			*fastnets;
	struct prov_loc		 ploc;
	int			 inference;	/* no fabric between nodes */
};

/* A node's MAC, normalised (lower case, colons), once over the plan. */
static void
check_network_mac(struct check_ctx *c, struct check_netw *nw,
    const struct plan_node *nd)
{
	const struct plan_node	*prev;
	struct row		*row;
	char			*m, *q;

	if (nd->mac == NULL)
		return;
	m = xstrdup(nd->mac);
	for (q = m; *q != '\0'; q++)
		*q = *q == '-' ? ':' : (char)tolower((unsigned char)*q);
	strvec_push_nodup(&nw->macstore, m);
	nw->nmac++;
	if ((prev = strmap_add(&nw->macs, m, (void *)nd)) == NULL)
		return;
	nw->nmacdup++;
	if (!check_cap_take(&nw->cap_mac))
		return;
	row = check_row(c, ROW_FAIL, "network", "unique MAC",
	    plan_loc(c->p, nd->src, "mac"));
	row->subject = xasprintf("node '%s'", nd->name);
	row->measured = xasprintf("duplicate MAC %s: %s, %s", m, prev->name,
	    nd->name);
	row->limit = xstrdup("one node per MAC");
	row->hint = xstrdup("fix the MAC of one of them");
}

/* Per node: its addresses, links, MAC and fast NIC. */
static void
check_network_nodes(struct check_ctx *c, struct check_netw *nw)
{
	const struct plan	*p = c->p;
	struct row		*row;
	size_t			 i, j;

	for (i = 0; i < p->nnodes; i++) {
		const struct plan_node	*nd = &p->nodes[i];
		const struct check_hw	*ch = nd->hw != NULL ?
		    &c->hw[nd->hw - p->hw] : NULL;
		const struct plan_net	*mn, *n;
		int			 fast, onmn = 0;

		fast = ch != NULL && ch->fast;
		mn = check_node_addrs(c, &nw->as, nw->nets, nd, nw->mgmt_role,
		    nw->bmc_role);
		for (j = 0; j < nd->nifaces; j++) {
			n = plan_net_find(p, nd->ifaces[j].network);
			if (n == NULL)
				continue;
			if (ch == NULL || ch->links[n - p->nets] == 0)
				nw->nets[n - p->nets].links++;
			if (check_net_fast(n))
				fast = 1;
			if (n == mn)
				onmn = 1;
		}
		if (mn != NULL && !onmn && (ch == NULL ||
		    ch->links[mn - p->nets] == 0))
			nw->nets[mn - p->nets].links++;
		check_network_mac(c, nw, nd);
		if (nw->ngpun < 2 || nw->nfastnets == 0 || ch == NULL ||
		    ch->hw->ngpus == 0 || nw->inference)
			continue;
		if (fast) {
			nw->nfast++;
			continue;
		}
		if (!check_cap_take(&nw->cap_fab))
			continue;
		row = check_row(c, ROW_FAIL, "network", "fabric",
		    plan_loc(p, nd->src, "hardware"));
		row->subject = xasprintf("node '%s'", nd->name);
		row->measured = xstrdup("no fast NIC on an InfiniBand or >= "
		    "100 Gb/s network");
		row->limit = xasprintf("fabric: %s", nw->fastnets);
		row->hint = xasprintf("attach a fast NIC of '%s' to the fabric "
		    "(nics: network:) or give the node an interface on it",
		    ch->hw->name);
	}
	check_cap_flush(c, &nw->cap_fab, "network", "fabric");
	check_cap_flush(c, &nw->as.cap_dup, "network", "unique address");
	check_cap_flush(c, &nw->as.cap_cidr, "network", "address");
	check_cap_flush(c, &nw->cap_mac, "network", "unique MAC");
}

/* GPU nodes on a fast network, or why that does not apply. */
static void
check_network_fabric(struct check_ctx *c, const struct check_netw *nw)
{
	struct row	*row;

	if (nw->inference && nw->ngpun >= 2) {
		row = check_row(c, ROW_SKIP, "network", "fabric", nw->ploc);
		row->subject = xstrdup("GPU nodes");
		row->measured = xasprintf("%s GPU %s",
		    check_int((double)nw->ngpun).s,
		    check_plural((long)nw->ngpun, "node", "nodes"));
		row->limit = xstrdup("workload: inference");
		row->hint = xstrdup("inference runs within a node: no "
		    "GPU-to-GPU traffic between nodes");
		row->value = (double)nw->ngpun;
	} else if (nw->ngpun < 2) {
		row = check_row(c, ROW_SKIP, "network", "fabric", nw->ploc);
		row->subject = xstrdup("GPU nodes");
		row->measured = xasprintf("%s GPU %s",
		    check_int((double)nw->ngpun).s,
		    check_plural((long)nw->ngpun, "node", "nodes"));
		row->limit = xstrdup("needed from 2 GPU nodes");
		row->value = (double)nw->ngpun;
		row->max = 2;
	} else if (nw->nfastnets == 0) {
		row = check_row(c, ROW_FAIL, "network", "fabric", nw->ploc);
		row->subject = xstrdup("networks");
		row->measured = xstrdup("no InfiniBand or >= 100 Gb/s network");
		row->limit = xasprintf("InfiniBand or >= 100 GbE for %s GPU "
		    "nodes", check_int((double)nw->ngpun).s);
		row->hint = xstrdup("GPU-to-GPU traffic between nodes wants "
		    "InfiniBand or 100 GbE or faster: add a network with kind: "
		    "infiniband or gbps: 100 (or more) and attach the GPU "
		    "nodes' NICs to it");
		row->value = 0;
		row->max = CHECK_FAST_GBPS;
	} else if (nw->nfast == nw->ngpun) {
		row = check_row(c, ROW_OK, "network", "fabric", nw->ploc);
		row->subject = xstrdup("GPU nodes");
		row->measured = xasprintf("%s of %s on a fast network",
		    check_int((double)nw->nfast).s, check_int((double)nw->ngpun).s);
		row->limit = xasprintf("InfiniBand or >= 100 Gb/s: %s",
		    nw->fastnets);
		row->value = (double)nw->nfast;
		row->max = (double)nw->ngpun;
	}

}

/* Switch ports against the links of each network, and its addresses. */
static void
check_network_switches(struct check_ctx *c, struct check_netw *nw)
{
	const struct plan	*p = c->p;
	struct row		*row;
	size_t			 i, j, h;

	for (h = 0; h < p->nhw; h++)
		for (i = 0; i < p->nnets; i++)
			nw->nets[i].links += (long long)c->hw[h].links[i] *
			    (long long)c->hw[h].nnodes;
	for (i = 0; i < p->nswitches; i++) {
		const struct plan_switch	*s = &p->switches[i];
		const struct plan_net		*n;
		struct check_net		*cn;

		if (s->network == NULL || (n = plan_net_find(p, s->network)) ==
		    NULL)
			continue;
		cn = &nw->nets[n - p->nets];
		if (cn->nswitches++ == 0)
			cn->model = s->cat != NULL ? s->cat->m.id : s->model;
		else if (cn->model != NULL && (s->cat == NULL ||
		    strcmp(cn->model, s->cat->m.id) != 0))
			cn->model = NULL;
		for (j = 0; s->cat != NULL && j < s->cat->nports; j++)
			cn->ports += s->cat->ports[j].count;
	}
	for (i = 0; i < p->nnets; i++) {
		const struct plan_net	*n = &p->nets[i];
		const struct check_net	*cn = &nw->nets[i];
		struct prov_loc		 loc = plan_loc(p, n->src, NULL);

		if (cn->nswitches == 0) {
			if (cn->links > 0) {
				row = check_row(c, ROW_SKIP, "network",
				    "switch ports", loc);
				row->subject = xasprintf("network '%s'",
				    n->name);
				row->measured = xasprintf("%s %s",
				    check_int((double)cn->links).s,
				    check_plural((long)cn->links, "link",
				    "links"));
				row->limit = xstrdup("no switch on this "
				    "network in the plan");
				row->hint = xasprintf("list its switches under "
				    "switches: with network: %s", n->name);
				row->value = (double)cn->links;
			}
		} else {
			row = check_row(c, cn->links > cn->ports ? ROW_FAIL :
			    ROW_OK, "network", "switch ports", loc);
			row->subject = xasprintf("network '%s'", n->name);
			row->measured = xasprintf("%s %s",
			    check_int((double)cn->links).s,
			    check_plural((long)cn->links, "link", "links"));
			row->limit = cn->model != NULL ? xasprintf("%s ports "
			    "(%zu x %s)", check_int((double)cn->ports).s,
			    cn->nswitches, cn->model) : xasprintf("%s ports "
			    "(%zu switches)", check_int((double)cn->ports).s,
			    cn->nswitches);
			row->hint = cn->links > cn->ports ? xasprintf(
			    "short by %s ports: add a switch, or use splitter "
			    "cables where the switch supports them",
			    check_int((double) (cn->links - cn->ports)).s) :
			    NULL;
			row->value = (double)cn->links;
			row->max = (double)cn->ports;
		}
		if (cn->nin > 0 && cn->nout == 0) {
			row = check_row(c, ROW_OK, "network", "addresses",
			    plan_loc(p, n->src, "cidr"));
			row->subject = xasprintf("network '%s'", n->name);
			row->measured = xasprintf("%s %s inside",
			    check_int((double)cn->nin).s,
			    check_plural((long)cn->nin, "address",
			    "addresses"));
			row->limit = xstrdup(n->cidr);
			row->value = (double)cn->nin;
		}
	}

}

/* Addresses, MACs and names over the whole plan. */
static void
check_network_unique(struct check_ctx *c, struct check_netw *nw)
{
	const struct plan	*p = c->p;
	struct row		*row;
	size_t			 i;

	if (nw->as.nonip > 0) {
		row = check_row(c, ROW_WARN, "network", "addresses", nw->ploc);
		row->subject = xstrdup("nodes");
		row->measured = xasprintf("%s not IPv4 (e.g. '%s')",
		    check_int((double)nw->as.nonip).s, nw->as.nonip_example);
		row->limit = xstrdup("IPv4 inside a network");
		row->hint = xstrdup("names are not checked against the "
		    "networks");
		row->value = (double)nw->as.nonip;
	}
	if (p->nnets == 0 && nw->as.n > nw->as.nonip) {
		row = check_row(c, ROW_SKIP, "network", "addresses", nw->ploc);
		row->subject = xstrdup("nodes");
		row->measured = xasprintf("%s %s", check_int((double)nw->as.n).s,
		    check_plural((long)nw->as.n, "address", "addresses"));
		row->limit = xstrdup("no networks in the plan");
		row->hint = xstrdup("define networks: to check the addresses "
		    "against them");
		row->value = (double)nw->as.n;
	}
	if (nw->as.n > 0 && nw->as.ndup == 0) {
		row = check_row(c, ROW_OK, "network", "unique address", nw->ploc);
		row->subject = xstrdup("all nodes");
		row->measured = xasprintf("%s %s", check_int((double)nw->as.n).s,
		    check_plural((long)nw->as.n, "address", "addresses"));
		row->limit = xstrdup("no duplicates");
		row->value = (double)nw->as.n;
	}
	if (nw->nmac > 0 && nw->nmacdup == 0) {
		row = check_row(c, ROW_OK, "network", "unique MAC", nw->ploc);
		row->subject = xstrdup("all nodes");
		row->measured = xasprintf("%s %s", check_int((double)nw->nmac).s,
		    check_plural((long)nw->nmac, "MAC", "MACs"));
		row->limit = xstrdup("no duplicates");
		row->value = (double)nw->nmac;
	}
	for (i = 0; i < p->nswitches; i++) {
		const struct plan_switch	*s = &p->switches[i];

		if (s->name == NULL || plan_node(p, s->name) == NULL)
			continue;
		if (check_cap_take(&nw->cap_name)) {
			row = check_row(c, ROW_FAIL, "network", "unique name",
			    plan_loc(p, s->src, NULL));
			row->subject = xasprintf("switch '%s'", s->name);
			row->measured = xasprintf("'%s' is also a node",
			    s->name);
			row->limit = xstrdup("one host name per device");
			row->hint = xstrdup("rename the switch or the node");
		}
	}
	check_cap_flush(c, &nw->cap_name, "network", "unique name");
	if (nw->cap_name.shown == 0 && p->nnodes + p->nswitches > 0) {
		row = check_row(c, ROW_OK, "network", "unique name", nw->ploc);
		row->subject = xstrdup("all nodes");
		row->measured = xasprintf("%s %s, %zu %s",
		    check_int((double)p->nnodes).s,
		    check_plural((long)p->nnodes, "node", "nodes"),
		    p->nswitches, check_plural((long)p->nswitches, "switch",
		    "switches"));
		row->limit = xstrdup("no duplicates");
		row->value = (double)(p->nnodes + p->nswitches);
	}

}

static void
check_network(struct check_ctx *c)
{
	const struct plan	*p = c->p;
	struct check_netw	 nw;
	size_t			 i, h, naddr = 0;

	memset(&nw, 0, sizeof nw);
	nw.nets = xcalloc(p->nnets + 1, sizeof *nw.nets);
	nw.macs = (struct strmap)STRMAP_INIT;
	nw.macstore = (struct strvec)STRVEC_INIT;
	nw.ploc = (struct prov_loc){ p->file, 0, 0 };
	nw.inference = p->workload != NULL &&
	    strcmp(p->workload, "inference") == 0;
	nw.mgmt_role = check_net_first_role(p, "management");
	nw.bmc_role = check_net_first_role(p, "bmc");
	for (i = 0; i < p->nnets; i++)
		if (check_net_fast(&p->nets[i]))
			nw.nfastnets++;
	for (h = 0; h < p->nhw; h++)
		if (c->hw[h].hw->ngpus > 0)
			nw.ngpun += c->hw[h].nnodes;
	for (i = 0; i < p->nnodes; i++)
		naddr += (p->nodes[i].address != NULL) + p->nodes[i].nifaces +
		    (p->nodes[i].bmc != NULL);
	nw.as.v = xcalloc(naddr + 1, sizeof *nw.as.v);
	nw.fastnets = check_fast_nets(p);

	check_net_ports(c);
	check_network_nodes(c, &nw);
	check_network_fabric(c, &nw);
	check_network_switches(c, &nw);
	check_network_unique(c, &nw);

	free(nw.fastnets);
	free(nw.as.v);
	strmap_clear(&nw.as.map);
	strmap_clear(&nw.macs);
	strvec_clear(&nw.macstore);
	free(nw.nets);
}

/* ------------------------------------------------------------------ */

static void
check_nohw(struct check_ctx *c)
{
	struct row		*row;
	const struct plan	*p = c->p;
	const struct plan_node	*first = NULL;
	struct buf		 b = BUF_INIT;
	size_t			 i, n = 0;

	for (i = 0; i < p->nnodes; i++) {
		if (p->nodes[i].hw != NULL)
			continue;
		if (n < 3)
			buf_addf(&b, "%s%s", n ? ", " : "", p->nodes[i].name);
		if (n++ == 0)
			first = &p->nodes[i];
	}
	if (n == 0) {
		buf_release(&b);
		return;
	}
	if (n > 3)
		buf_adds(&b, ", ...");
	row = check_row(c, ROW_SKIP, "pcie", "hardware", plan_loc(p, first->src,
	    "name"));
	row->subject = n == 1 ? xasprintf("node '%s'", first->name) :
	    xasprintf("%s nodes (%s)", check_int((double)n).s, b.buf);
	row->measured = xstrdup("no hardware model");
	row->limit = xstrdup("not checked");
	row->hint = xstrdup("give the nodes hardware: to check slots, power, "
	    "rack and memory");
	row->value = (double)n;
	buf_release(&b);
}

int
check_plan(struct rows *out, const struct plan *p, struct prov_err *err)
{
	struct check_ctx	c;
	size_t			i;

	if (p == NULL)
		return prov_err_set(err, PROV_E_USAGE, "no plan to check");
	memset(&c, 0, sizeof c);
	c.p = p;
	c.out = out;
	c.hw = xcalloc(p->nhw + 1, sizeof *c.hw);
	c.volts = xcalloc(p->nracks + 1, sizeof *c.volts);
	for (i = 0; i < p->nhw; i++)
		check_hw_prepare(&c, &c.hw[i], &p->hw[i]);
	for (i = 0; i < p->nracks; i++)
		c.volts[i] = check_rack_volts(&p->racks[i]);
	for (i = 0; i < p->nnodes; i++)
		if (p->nodes[i].hw != NULL)
			c.hw[p->nodes[i].hw - p->hw].nnodes++;

	check_nohw(&c);
	for (i = 0; i < p->nhw; i++)
		check_pcie_hw(&c, &p->hw[i]);
	check_power(&c);
	check_racks(&c);
	check_network(&c);
	for (i = 0; i < p->nhw; i++)
		check_memory(&c, &p->hw[i]);
	rows_blank(out);

	for (i = 0; i < p->nhw; i++) {
		free(c.hw[i].nics);
		free(c.hw[i].links);
		buf_release(&c.hw[i].detail);
		buf_release(&c.hw[i].note);
	}
	free(c.hw);
	free(c.volts);
	return 0;
}

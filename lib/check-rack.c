/*
 * check-rack.c: the rack rows: units, depth, draw per feed, outlets, heat
 * and weight of each rack (the rules are in check.c).
 */
#include "compat.h"

#include <ctype.h>
#include <math.h>

#include "check-int.h"

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
void
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


/*
 * check-power.c: the power rows: per hardware model and rack voltage, the
 * full-load draw against what the PSUs deliver (the rules are in check.c).
 */
#include "compat.h"

#include <ctype.h>
#include <math.h>

#include "check-int.h"

/* ------------------------------------------------------------------ */
/* power rows.                                                         */

/*
 * Outlet voltage of a rack: the lowest of its PDUs, line-to-neutral for a
 * three-phase PDU above 250 V (400 V -> 230.9 V).
 */
double
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
void
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


/*
 * redfish-power.c: rack PDU readings, and power drawn against the
 * plan's model and feeds.  See redfish-int.h.
 */
#include "compat.h"

#include <math.h>

#include "buf.h"
#include "check.h"
#include "plan.h"
#include "redfish-int.h"
#include "redfish.h"
#include "row.h"
#include "str.h"
#include "yml.h"

/* --- rack PDUs -------------------------------------------------------- */

void
redfish_pdu_init(struct redfish_pdu *pd)
{
	memset(pd, 0, sizeof *pd);
	pd->watts = pd->mains_watts = pd->volts = pd->outlets_watts = NAN;
	pd->mains = pd->outlets = pd->outlets_on = -1;
}

void
redfish_pdu_release(struct redfish_pdu *pd)
{
	size_t	i;

	if (pd == NULL)
		return;
	free(pd->id);
	for (i = 0; i < pd->nbranches; i++)
		free(pd->branches[i].id);
	free(pd->branches);
	redfish_pdu_init(pd);
}

void
redfish_pdu_add_metrics(struct redfish_pdu *pd, const struct yml_node *m)
{
	double	w = redfish_reading(m, "PowerWatts");

	if (!isnan(w))
		pd->watts = w;
}

/* A voltage reading of a circuit: Voltage, else its first line pair. */
static double
redfish_circuit_volts(const struct yml_node *c)
{
	const struct yml_node	*pv = redfish_map(c, "PolyPhaseVoltage");
	double			 v = redfish_reading(c, "Voltage");

	if (isnan(v))
		v = redfish_reading(pv, "Line1ToLine2");
	if (isnan(v))
		v = redfish_reading(pv, "Line1ToNeutral");
	return v;
}

/*
 * A Circuit: mains (CircuitType Mains) or a branch.  A polyphase mains
 * has no single PowerWatts; its line-to-neutral powers are summed (the
 * line-to-line ones measure the same load again).
 */
void
redfish_pdu_add_circuit(struct redfish_pdu *pd, const struct yml_node *c)
{
	const char		*type = redfish_str(c, "CircuitType");
	const struct yml_node	*pp = redfish_map(c, "PolyPhasePowerWatts");
	struct redfish_branch	*b;
	double			 w = redfish_reading(c, "PowerWatts");

	if (type != NULL && strcmp(type, "Mains") == 0) {
		if (isnan(w)) {
			redfish_add_nan(&w, redfish_reading(pp,
			    "Line1ToNeutral"));
			redfish_add_nan(&w, redfish_reading(pp,
			    "Line2ToNeutral"));
			redfish_add_nan(&w, redfish_reading(pp,
			    "Line3ToNeutral"));
		}
		redfish_inc(&pd->mains, 1);
		redfish_add_nan(&pd->mains_watts, w);
		if (isnan(pd->volts))
			pd->volts = redfish_circuit_volts(c);
		return;
	}
	pd->branches = xreallocarray(pd->branches, pd->nbranches + 1,
	    sizeof *pd->branches);
	b = &pd->branches[pd->nbranches++];
	b->id = xstrdup(redfish_str(c, "Id") ? redfish_str(c, "Id") : "?");
	b->amps = redfish_reading(c, "CurrentAmps");
	b->rated_amps = redfish_num(c, "RatedCurrentAmps");
}

void
redfish_pdu_add_outlet(struct redfish_pdu *pd, const struct yml_node *o)
{
	const char	*ps = redfish_str(o, "PowerState");

	redfish_inc(&pd->outlets, 1);
	redfish_inc(&pd->outlets_on, ps != NULL && strcmp(ps, "On") == 0);
	redfish_add_nan(&pd->outlets_watts, redfish_reading(o, "PowerWatts"));
}

/* The PDU's draw: its Metrics, else its mains, else its outlets. */
static double
redfish_pdu_watts(const struct redfish_pdu *pd)
{
	if (!isnan(pd->watts))
		return pd->watts;
	if (!isnan(pd->mains_watts))
		return pd->mains_watts;
	return pd->outlets_watts;
}

void
redfish_pdu_summary(struct buf *b, const struct redfish_pdu *pd)
{
	double	w = redfish_pdu_watts(pd);

	buf_addf(b, "PDU %s: ", pd->id ? pd->id : "?");
	if (isnan(w))
		buf_adds(b, "no power reading");
	else {
		redfish_num_str(b, w);
		buf_adds(b, " W");
	}
	if (pd->mains >= 0) {
		buf_addf(b, ", %ld mains", pd->mains);
		if (!isnan(pd->volts)) {
			buf_adds(b, " at ");
			redfish_num_str(b, pd->volts);
			buf_adds(b, " V");
		}
	}
	if (pd->nbranches > 0)
		buf_addf(b, ", %zu branch%s", pd->nbranches,
		    pd->nbranches == 1 ? "" : "es");
	if (pd->outlets >= 0)
		buf_addf(b, ", %ld outlet%s (%ld on)", pd->outlets,
		    pd->outlets == 1 ? "" : "s", pd->outlets_on);
}

/*
 * What the node draws now against the full-load draw check_plan()
 * modelled for its hardware.  Above the model is a warning with both
 * numbers: the model (or the catalog under it) is wrong, and so are the
 * PSU and feed budgets resting on it.
 */
void
redfish_compare_power(struct rows *rows, const struct plan *p,
    const struct plan_node *nd, const struct redfish_inv *inv)
{
	struct row	*r;
	double		 model = NAN;
	int		 est = 0;

	if (nd->hw != NULL)
		model = check_hw_draw_w(p, nd->hw, &est);
	r = rows_add(rows, ROW_OK, "draw");
	r->group = "power";
	r->subject = xstrdup(nd->name);
	r->value = inv->watts;
	r->max = model;
	r->loc = plan_loc(p, nd->src, "hardware");
	if (!isnan(inv->watts))
		r->measured = xasprintf("%s W", check_fmt(inv->watts, 0).s);
	if (!isnan(model))
		r->limit = xasprintf("%s W modelled%s",
		    check_fmt(model, 0).s, est ? " (with defaults)" : "");
	if (isnan(inv->watts)) {
		r->verdict = ROW_SKIP;
		r->hint = xstrdup("the BMC gives no power reading (no "
		    "EnvironmentMetrics, PowerControl or PSU input power)");
	} else if (isnan(model) || model <= 0) {
		r->verdict = ROW_SKIP;
		r->hint = xasprintf("the plan gives node '%s' no hardware to "
		    "model its draw", nd->name);
	} else if (inv->watts > model) {
		r->verdict = ROW_WARN;
		r->hint = xasprintf("draws %s W more than modelled (%s W "
		    "against %s W): the PSU and feed budgets of check rest on "
		    "the model", check_fmt(inv->watts - model, 0).s,
		    check_fmt(inv->watts, 0).s, check_fmt(model, 0).s);
	} else
		r->hint = xasprintf("%s%% of the modelled full-load draw, from "
		    "%s", check_fmt(100 * inv->watts / model, 1).s,
		    inv->watts_source);
}

/* The full-load draw modelled for the nodes of rack r; *est: a default. */
static double
redfish_rack_model(const struct plan *p, const struct plan_rack *r,
    int *est)
{
	double	sum = 0;
	size_t	i;
	int	e;

	*est = 0;
	for (i = 0; i < p->nnodes; i++) {
		const struct plan_node	*nd = &p->nodes[i];
		double			 w;

		if (nd->rack == NULL || strcmp(nd->rack, r->name) != 0 ||
		    nd->hw == NULL)
			continue;
		w = check_hw_draw_w(p, nd->hw, &e);
		if (!isnan(w))
			sum += w;
		*est |= e;
	}
	return sum;
}

static void
redfish_cmp_branches(struct rows *rows, const struct plan *p,
    const char *subject, const struct plan_pdu *ppdu,
    const struct redfish_pdu *pd)
{
	size_t	i;

	for (i = 0; i < pd->nbranches; i++) {
		const struct redfish_branch	*b = &pd->branches[i];
		double				 lim;
		struct row			*r;

		if (isnan(b->amps) || isnan(b->rated_amps))
			continue;
		lim = b->rated_amps * ppdu->derate;
		r = rows_add(rows, b->amps > lim ? ROW_WARN : ROW_OK,
		    "branch");
		r->group = "power";
		r->subject = xasprintf("%s PDU %s branch %s", subject,
		    pd->id ? pd->id : "?", b->id);
		r->measured = xasprintf("%s A", check_fmt(b->amps, 2).s);
		r->limit = xasprintf("%s A (%s A rated x %s)",
		    check_fmt(lim, 1).s, check_fmt(b->rated_amps, 1).s,
		    check_fmt(ppdu->derate, 2).s);
		r->value = b->amps;
		r->max = lim;
		r->loc = plan_loc(p, ppdu->src, NULL);
		if (b->amps > lim)
			r->hint = xasprintf("%s A above the derated rating",
			    check_fmt(b->amps - lim, 2).s);
	}
}

void
redfish_compare_feed(struct rows *rows, const struct plan *p,
    const struct plan_rack *rk, const char *feed,
    const struct redfish_pdu *const *pdu)
{
	struct buf	 hint = BUF_INIT;
	struct row	*r;
	double		 cap = 0, watts = NAN, model;
	size_t		 i, npdus = 0, nread = 0;
	char		*subject;
	int		 est;

	subject = xasprintf("rack '%s' feed %s", rk->name, feed);
	for (i = 0; i < rk->npdus; i++) {
		const struct plan_pdu	*pp = &rk->pdus[i];

		if (strcmp(pp->feed, feed) != 0)
			continue;
		npdus++;
		cap += pp->volts * pp->amps * (pp->phases == 3 ? sqrt(3.0) :
		    1.0) * pp->derate;
		if (pdu[i] == NULL || isnan(redfish_pdu_watts(pdu[i])))
			continue;
		nread++;
		redfish_add_nan(&watts, redfish_pdu_watts(pdu[i]));
		redfish_cmp_branches(rows, p, subject, pp, pdu[i]);
	}
	model = redfish_rack_model(p, rk, &est);
	r = rows_add(rows, ROW_OK, "feed draw");
	r->group = "power";
	r->subject = subject;
	r->value = watts;
	r->max = cap;
	r->loc = plan_loc(p, rk->src, "pdus");
	r->limit = xasprintf("%s W derated", check_fmt(cap, 0).s);
	if (model > 0)
		buf_addf(&hint, "modelled full load of the rack's nodes: %s W%s",
		    check_fmt(model, 0).s, est ? " (with defaults)" : "");
	else
		buf_adds(&hint, "no node of the rack has hardware to model");
	if (nread < npdus)
		buf_addf(&hint, "; %zu of the feed's %zu PDUs read", nread,
		    npdus);
	if (isnan(watts)) {
		r->verdict = ROW_SKIP;
		buf_adds(&hint, "; no PDU of this feed gave a reading");
	} else {
		r->measured = xasprintf("%s W (%s%%)", check_fmt(watts, 0).s,
		    cap > 0 ? check_fmt(100 * watts / cap, 1).s : "?");
		if (watts > cap) {
			r->verdict = ROW_WARN;
			buf_addf(&hint, "; %s W above the derated limit",
			    check_fmt(watts - cap, 0).s);
		}
	}
	r->hint = buf_detach(&hint, NULL);
}

int
redfish_power_from_json(struct rows *out, const char *label,
    const char *text, size_t len, struct prov_err *err)
{
	struct yml_doc		 doc;
	const struct yml_node	*res, *pw;
	const char		*action;
	unsigned		 i;
	int			 r = -1;

	if (yml_load_json(&doc, label, text, len, err) != 0)
		return -1;
	action = redfish_str(doc.root, "action");
	res = redfish_seq(doc.root, "results");
	if (action == NULL || strcmp(action, "power") != 0 || res == NULL) {
		prov_err_parse(err, label, "not the output of provision bmc "
		    "PLAN power --json");
		goto out;
	}
	for (i = 0; i < res->n; i++)
		if ((pw = redfish_seq(res->u.items[i], "power")) != NULL &&
		    rows_from_json(out, label, pw, err) != 0)
			goto out;
	if (rows_from_json(out, label, yml_map_get(doc.root, "feeds"),
	    err) != 0)
		goto out;
	r = 0;
out:
	yml_doc_release(&doc);
	return r;
}


/*
 * report.c: the HTML report of a plan.  See report.h.
 *
 * The numbers are the checks' own: a node's draw is check_hw_draw_w()
 * (what its PSU budget row sums), the feed, heat and PSU bars are the
 * value and limit of the matching check rows, the slot maps are
 * check_pcie_assign()'s.  Nothing here judges anything anew.
 *
 * The page is one pass over the plan per section, so its size and cost
 * grow linearly with the nodes.  Everything that comes from the plan, a
 * state file or verify output goes through buf_add_html().
 */
#include "compat.h"

#include <math.h>

#include "buf.h"
#include "catalog.h"
#include "check.h"
#include "facts.h"
#include "plan.h"
#include "report.h"
#include "row.h"
#include "state.h"

#define REPORT_RACK_W	300	/* drawing width of the equipment */
#define REPORT_RAIL_W	28	/* unit numbers on the left */
#define REPORT_BAR_W	320

struct report_num {
	char	s[48];
};

/* "17,658", "897.1": thousands separated, one decimal where needed. */
static struct report_num
report_num(double v)
{
	struct report_num	n;
	char			tmp[48], *dot;
	size_t			len, i, o = 0, lead;
	int			neg = v < 0;

	if (isnan(v)) {
		snprintf(n.s, sizeof n.s, "unknown");
		return n;
	}
	if (fabs(v - round(v)) < 0.05)
		snprintf(tmp, sizeof tmp, "%.0f", fabs(v));
	else
		snprintf(tmp, sizeof tmp, "%.1f", fabs(v));
	dot = strchr(tmp, '.');
	len = dot != NULL ? (size_t)(dot - tmp) : strlen(tmp);
	if (neg)
		n.s[o++] = '-';
	lead = len % 3 ? len % 3 : 3;
	for (i = 0; i < len && o < sizeof n.s - 2; i++) {
		if (i > 0 && i >= lead && (i - lead) % 3 == 0)
			n.s[o++] = ',';
		n.s[o++] = tmp[i];
	}
	n.s[o] = '\0';
	if (dot != NULL && o + strlen(dot) < sizeof n.s)
		memcpy(n.s + o, dot, strlen(dot) + 1);
	return n;
}

static void
report_text(struct buf *b, const char *tag, const char *cls, const char *s)
{
	buf_addf(b, "<%s", tag);
	if (cls != NULL)
		buf_addf(b, " class=\"%s\"", cls);
	buf_addch(b, '>');
	buf_add_html(b, s != NULL ? s : "");
	buf_addf(b, "</%s>", tag);
}

static const char *
report_role_colour(enum plan_role r)
{
	switch (r) {
	case PLAN_ROLE_HEAD:
		return "#4e79a7";
	case PLAN_ROLE_LOGIN:
		return "#b07aa1";
	case PLAN_ROLE_STORAGE:
		return "#f28e2b";
	case PLAN_ROLE_SERVICE:
		return "#76b7b2";
	default:
		return "#59a14f";
	}
}

#define REPORT_SWITCH_COLOUR	"#8c8c8c"

static const char *
report_sev_colour(const char *sev)
{
	if (strcmp(sev, "fail") == 0)
		return "#d62728";
	if (strcmp(sev, "warn") == 0)
		return "#e7a81d";
	if (strcmp(sev, "skip") == 0)
		return "#9e9e9e";
	return "#2ca02c";
}

static const char report_css[] =
"body{font:14px/1.4 system-ui,-apple-system,'Segoe UI',Roboto,sans-serif;"
"margin:0;color:#1d1d1f;background:#fafafa}"
"header{background:#23313f;color:#fff;padding:16px 28px}"
"header h1{margin:0 0 4px;font-size:22px}header p{margin:0;color:#c9d3dc}"
"nav{margin-top:8px}nav a{color:#9fd0ff;margin-right:14px;"
"text-decoration:none}"
"section{padding:8px 28px 20px;border-bottom:1px solid #e3e3e3}"
"h2{font-size:18px;margin:18px 0 10px}h3{font-size:15px;margin:14px 0 6px}"
"table{border-collapse:collapse;margin:6px 0 12px;background:#fff}"
"th,td{border:1px solid #ddd;padding:3px 8px;text-align:left;"
"vertical-align:top}th{background:#f0f2f4;font-weight:600}"
"td.num{text-align:right;font-variant-numeric:tabular-nums}"
".badge{display:inline-block;padding:2px 9px;border-radius:10px;"
"margin-right:6px;color:#fff;font-weight:600}"
".b-ok{background:#2ca02c}.b-warn{background:#e7a81d}"
".b-fail{background:#d62728}.b-skip{background:#9e9e9e}"
"tr.ok td.sev,tr.ok td.verdict{color:#2ca02c}"
"tr.warn td.sev,tr.warn td.verdict{color:#b7800a}"
"tr.fail td.sev,tr.fail td.verdict{color:#d62728;font-weight:700}"
"tr.fail{background:#fff1f0}tr.skip td{color:#777}"
".racks{display:flex;flex-wrap:wrap;gap:28px;align-items:flex-start}"
"figure{margin:0}figcaption{font-size:13px;color:#444;margin-top:4px;"
"max-width:340px}"
"svg text{font-family:system-ui,sans-serif}"
".legend span{display:inline-block;margin-right:14px}"
".legend i{display:inline-block;width:12px;height:12px;margin-right:4px;"
"vertical-align:-1px;border-radius:2px}"
"td.step{text-align:center}td.step.ok,td.step.changed{background:#e6f4e6}"
"td.step.changed{font-weight:600}td.step.failed,td.step.unreachable,"
"td.step.interrupted{background:#fde2e1;color:#a61b1b;font-weight:700}"
"td.step.skipped{color:#888}td.step.pending,td.step.running{color:#555;"
"background:#f3f3f3}"
"tr.slot.empty td{color:#888}tr.slot.blocked td{color:#888;"
"font-style:italic}p.note{color:#555;margin:4px 0}"
"@media print{header{background:#fff;color:#000}nav{display:none}}";

/* ------------------------------------------------------------------ */
/* Check rows by subject */

static const struct row *
report_row(const struct rows *cr, const char *group,
    const char *subject, const char *what)
{
	size_t	i;

	for (i = 0; cr != NULL && i < cr->n; i++) {
		const struct row	*r = &cr->v[i];

		if (strcmp(r->group, group) == 0 && r->subject != NULL &&
		    strcmp(r->subject, subject) == 0 && r->what != NULL &&
		    strcmp(r->what, what) == 0)
			return r;
	}
	return NULL;
}

/* A bar of value against max (both > 0), coloured by severity. */
static void
report_bar(struct buf *b, double value, double max, const char *sev,
    const char *unit)
{
	double	w = 0;

	if (!isnan(value) && !isnan(max) && max > 0)
		w = value / max * REPORT_BAR_W;
	if (w > REPORT_BAR_W)
		w = REPORT_BAR_W;
	if (w < 0)
		w = 0;
	buf_addf(b, "<svg class=\"bar %s\" width=\"%d\" height=\"16\" "
	    "role=\"img\"><rect width=\"%d\" height=\"16\" fill=\"#eceff1\"/>"
	    "<rect width=\"%.1f\" height=\"16\" fill=\"%s\"/>",
	    sev, REPORT_BAR_W, REPORT_BAR_W, w, report_sev_colour(sev));
	if (!isnan(max) && max > 0)
		buf_addf(b, "<line x1=\"%d\" x2=\"%d\" y1=\"0\" y2=\"16\" "
		    "stroke=\"#333\"/>", (int)(REPORT_BAR_W * 0.9),
		    (int)(REPORT_BAR_W * 0.9));
	buf_addf(b, "<title>%s of %s %s</title></svg>", report_num(value).s,
	    report_num(max).s, unit);
}

/* ------------------------------------------------------------------ */
/* Rack elevations */

static long
report_node_height(const struct plan_node *nd)
{
	const struct cat_system	*sys = nd->hw != NULL ? nd->hw->sys : NULL;

	return sys != NULL && sys->rack_units > 0 ? sys->rack_units : 1;
}

static long
report_switch_height(const struct plan_switch *s)
{
	return s->cat != NULL && s->cat->rack_units > 0 ?
	    s->cat->rack_units : 1;
}

static double
report_switch_w(const struct plan_switch *s)
{
	if (s->cat != NULL && !isnan(s->cat->power_w))
		return s->cat->power_w;
	return CHECK_SWITCH_W_PER_U * (double)report_switch_height(s);
}

/* Count the claims on units u..u+h-1 (those inside the rack). */
static void
report_occupy(long *occ, long units, long u, long h)
{
	long	k;

	for (k = u; k < u + h; k++)
		if (k >= 1 && k <= units)
			occ[k]++;
}

/* One item of an elevation: a node or a switch. */
static void
report_item(struct buf *b, const struct plan_rack *r, long u, long h,
    const char *cls, const char *attr, const char *name, const char *fill,
    double watts, int est, const char *tip, const long *occ)
{
	const int	UH = REPORT_PX_PER_U;
	long		top = u + h - 1, vis_u = u, vis_h = h, k;
	int		over = top > r->units || u < 1;

	/* a unit another chassis also claims */
	for (k = u; k <= top; k++)
		if (k >= 1 && k <= r->units && occ[k] > 1)
			over = 1;
	double		y;

	if (top > r->units)
		vis_h = r->units - u + 1;
	if (vis_u < 1) {
		vis_h -= 1 - vis_u;
		vis_u = 1;
	}
	if (vis_h < 1) {
		vis_h = 1;
		vis_u = r->units;
	}
	y = 10 + (double)(r->units - (vis_u + vis_h - 1)) * UH;
	buf_addf(b, "<g class=\"%s%s\" %s=\"", cls, over ? " conflict" : "",
	    attr);
	buf_add_html(b, name);
	buf_addf(b, "\" data-u=\"%ld\" data-height=\"%ld\" "
	    "data-watts=\"%.0f\">", u, h, watts);
	buf_addf(b, "<rect x=\"%d\" y=\"%.1f\" width=\"%d\" height=\"%ld\" "
	    "rx=\"2\" fill=\"%s\" fill-opacity=\"%s\" stroke=\"%s\" "
	    "stroke-width=\"%s\"/>", REPORT_RAIL_W + 2, y + 1,
	    REPORT_RACK_W - 4, vis_h * UH - 2, fill, over ? "0.75" : "1",
	    over ? "#ff4136" : "#1d2b36", over ? "2.5" : "0.6");
	buf_addf(b, "<text x=\"%d\" y=\"%.1f\" font-size=\"11\" "
	    "fill=\"#fff\">", REPORT_RAIL_W + 8, y + (double)vis_h * UH / 2 +
	    4);
	buf_add_html(b, name);
	buf_addf(b, "</text><text x=\"%d\" y=\"%.1f\" font-size=\"11\" "
	    "fill=\"#fff\" text-anchor=\"end\">%s%s W</text>",
	    REPORT_RAIL_W + REPORT_RACK_W - 8, y + (double)vis_h * UH / 2 + 4,
	    est ? "~" : "", report_num(watts).s);
	buf_adds(b, "<title>");
	buf_add_html(b, tip);
	buf_adds(b, "</title></g>\n");
}

static void
report_rack(struct buf *b, const struct plan *p, const struct plan_rack *r,
    const double *hw_w, const int *hw_est)
{
	const int	UH = REPORT_PX_PER_U;
	long		units = r->units > 0 ? r->units : 42, k;
	double		total = 0;
	size_t		i, nn = 0, ns = 0;
	int		height = (int)(units * UH + 20);
	int		width = REPORT_RAIL_W + REPORT_RACK_W + 8;
	struct buf	tip = BUF_INIT;
	struct plan_rack rr = *r;
	long		*occ;

	rr.units = units;
	occ = xcalloc((size_t)units + 2, sizeof *occ);
	for (i = 0; i < p->nnodes; i++)
		if (p->nodes[i].rackp == r && p->nodes[i].u > 0)
			report_occupy(occ, units, p->nodes[i].u,
			    report_node_height(&p->nodes[i]));
	for (i = 0; i < p->nswitches; i++)
		if (p->switches[i].rack != NULL && p->switches[i].u > 0 &&
		    strcmp(p->switches[i].rack, r->name) == 0)
			report_occupy(occ, units, p->switches[i].u,
			    report_switch_height(&p->switches[i]));
	buf_addf(b, "<figure class=\"rack-fig\"><svg class=\"rack-elevation\" "
	    "xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
	    "viewBox=\"0 0 %d %d\" role=\"img\"><g class=\"rack\" "
	    "data-rack=\"", width, height, width, height);
	buf_add_html(b, r->name);
	buf_addf(b, "\" data-units=\"%ld\">\n", units);
	/* the frame and a line per unit, numbered from the bottom */
	buf_addf(b, "<rect x=\"%d\" y=\"10\" width=\"%d\" height=\"%ld\" "
	    "fill=\"#2b2b2b\"/>", REPORT_RAIL_W, REPORT_RACK_W, units * UH);
	for (k = 1; k <= units; k++) {
		double	y = 10 + (double)(units - k) * UH;

		buf_addf(b, "<line x1=\"%d\" x2=\"%d\" y1=\"%.1f\" y2=\"%.1f\" "
		    "stroke=\"#444\" stroke-width=\"0.5\"/>", REPORT_RAIL_W,
		    REPORT_RAIL_W + REPORT_RACK_W, y, y);
		buf_addf(b, "<text x=\"%d\" y=\"%.1f\" font-size=\"9\" "
		    "fill=\"#666\" text-anchor=\"end\">%ld</text>",
		    REPORT_RAIL_W - 4, y + UH / 2.0 + 3, k);
	}
	buf_addch(b, '\n');
	for (i = 0; i < p->nnodes; i++) {
		const struct plan_node	*nd = &p->nodes[i];
		long			 h = report_node_height(nd);
		double			 w = 0;
		int			 est = 1;

		if (nd->rackp != r)
			continue;
		nn++;
		if (nd->hw != NULL) {
			w = hw_w[nd->hw - p->hw];
			est = hw_est[nd->hw - p->hw];
		}
		total += w;
		if (nd->u <= 0)
			continue;
		buf_reset(&tip);
		buf_addf(&tip, "%s: %s, %s, U%ld", nd->name,
		    plan_role_name(nd->role), nd->hardware != NULL ?
		    nd->hardware : "no hardware model", nd->u);
		if (h > 1)
			buf_addf(&tip, "-U%ld", nd->u + h - 1);
		buf_addf(&tip, ", %s%s W full load", est ? "~" : "",
		    report_num(w).s);
		if (nd->address != NULL)
			buf_addf(&tip, ", %s", nd->address);
		{
			char	cls[48];

			snprintf(cls, sizeof cls, "node role-%s",
			    plan_role_name(nd->role));
			report_item(b, &rr, nd->u, h, cls, "data-node",
			    nd->name, report_role_colour(nd->role), w, est,
			    tip.buf, occ);
		}
	}
	for (i = 0; i < p->nswitches; i++) {
		const struct plan_switch	*s = &p->switches[i];
		long				 h = report_switch_height(s);
		double				 w = report_switch_w(s);

		if (s->rack == NULL || strcmp(s->rack, r->name) != 0)
			continue;
		ns++;
		total += w;
		if (s->u <= 0)
			continue;
		buf_reset(&tip);
		buf_addf(&tip, "%s: switch %s on %s, U%ld", s->name,
		    s->model != NULL ? s->model : "?", s->network != NULL ?
		    s->network : "no network", s->u);
		if (h > 1)
			buf_addf(&tip, "-U%ld", s->u + h - 1);
		buf_addf(&tip, ", %s W", report_num(w).s);
		report_item(b, &rr, s->u, h, "switch", "data-switch", s->name,
		    REPORT_SWITCH_COLOUR, w, s->cat == NULL ||
		    isnan(s->cat->power_w), tip.buf, occ);
	}
	buf_adds(b, "</g></svg><figcaption><strong>");
	buf_add_html(b, r->name);
	buf_addf(b, "</strong>: %ld U", units);
	if (!isnan(r->depth_mm))
		buf_addf(b, ", %s mm deep", report_num(r->depth_mm).s);
	buf_addf(b, "; %zu node%s, %zu switch%s; %s W at full load",
	    nn, nn == 1 ? "" : "s", ns, ns == 1 ? "" : "es",
	    report_num(total).s);
	if (!isnan(r->cooling_kw))
		buf_addf(b, "; cooling %s kW", report_num(r->cooling_kw).s);
	buf_adds(b, "</figcaption></figure>\n");
	buf_release(&tip);
	free(occ);
}

static void
report_racks(struct buf *b, const struct plan *p, const double *hw_w,
    const int *hw_est)
{
	size_t	i, unracked = 0;

	buf_adds(b, "<section id=\"racks\"><h2>Racks</h2>\n"
	    "<p class=\"legend\">"
	    "<span><i style=\"background:#4e79a7\"></i>head</span>"
	    "<span><i style=\"background:#59a14f\"></i>worker</span>"
	    "<span><i style=\"background:#b07aa1\"></i>login</span>"
	    "<span><i style=\"background:#f28e2b\"></i>storage</span>"
	    "<span><i style=\"background:#76b7b2\"></i>service</span>"
	    "<span><i style=\"background:" REPORT_SWITCH_COLOUR "\"></i>switch"
	    "</span><span>~ W: includes assumed figures</span></p>\n");
	if (p->nracks == 0)
		buf_adds(b, "<p class=\"note\">The plan has no racks.</p>\n");
	buf_adds(b, "<div class=\"racks\">\n");
	for (i = 0; i < p->nracks; i++)
		report_rack(b, p, &p->racks[i], hw_w, hw_est);
	buf_adds(b, "</div>\n");
	for (i = 0; i < p->nnodes; i++)
		if (p->nodes[i].rackp == NULL || p->nodes[i].u <= 0)
			unracked++;
	if (unracked > 0) {
		size_t	shown = 0;

		buf_addf(b, "<h3>Not placed in a rack unit (%zu)</h3>"
		    "<p class=\"unracked\">", unracked);
		for (i = 0; i < p->nnodes && shown < 200; i++) {
			const struct plan_node	*nd = &p->nodes[i];

			if (nd->rackp != NULL && nd->u > 0)
				continue;
			buf_adds(b, shown++ ? ", " : "");
			buf_adds(b, "<span class=\"node unracked\" "
			    "data-node=\"");
			buf_add_html(b, nd->name);
			buf_adds(b, "\">");
			buf_add_html(b, nd->name);
			buf_adds(b, "</span>");
		}
		if (unracked > shown)
			buf_addf(b, " and %zu more", unracked - shown);
		buf_adds(b, "</p>\n");
	}
	buf_adds(b, "</section>\n");
}

/* ------------------------------------------------------------------ */
/* Power, cooling, PSUs */

static void
report_bar_row(struct buf *b, const char *label, const struct row *r,
    const char *unit)
{
	const char	*sev = row_verdict_name(r->verdict);

	buf_addf(b, "<tr class=\"power %s\"><td>", sev);
	buf_add_html(b, label);
	buf_adds(b, "</td><td>");
	report_bar(b, r->value, r->max, sev, unit);
	buf_adds(b, "</td><td>");
	buf_add_html(b, r->measured);
	buf_adds(b, "</td><td>");
	buf_add_html(b, r->limit);
	buf_addf(b, "</td><td class=\"sev\">%s</td></tr>\n", sev);
}

/* A `bmc power` row by subject and check (they carry no group). */
static const struct row *
report_measured(const struct rows *m, const char *subject, const char *what)
{
	size_t	i;

	for (i = 0; m != NULL && i < m->n; i++)
		if (m->v[i].subject != NULL &&
		    strcmp(m->v[i].subject, subject) == 0 &&
		    strcmp(m->v[i].what, what) == 0)
			return &m->v[i];
	return NULL;
}

/* Each node's measured draw against its model, from `bmc power`. */
static void
report_power_nodes(struct buf *b, const struct rows *m)
{
	size_t	i, n = 0;

	for (i = 0; i < m->n; i++) {
		const struct row	*r = &m->v[i];
		char			*label;

		if (strcmp(r->what, "draw") != 0 || r->subject == NULL ||
		    isnan(r->value) || isnan(r->max) || r->max <= 0)
			continue;
		if (n++ == 0)
			buf_adds(b, "<table class=\"power measured-nodes\"><tr>"
			    "<th>node</th><th>load</th><th>measured</th>"
			    "<th>modelled</th><th>bmc</th></tr>\n");
		label = xasprintf("%s measured", r->subject);
		report_bar_row(b, label, r, "W");
		free(label);
	}
	if (n > 0)
		buf_adds(b, "</table>\n");
}

static void
report_power(struct buf *b, const struct plan *p,
    const struct rows *cr, const struct rows *measured)
{
	size_t	i, j;

	buf_adds(b, "<section id=\"power\"><h2>Power and cooling</h2>\n"
	    "<p class=\"note\">Planned full-load draw against each feed's "
	    "derated capacity (with A and B feeds each must carry the whole "
	    "rack), and heat against the rack's cooling; the mark is at "
	    "90%.</p>\n");
	if (p->nracks == 0) {
		buf_adds(b, "<p class=\"note\">No racks.</p></section>\n");
		return;
	}
	buf_adds(b, "<table class=\"power\"><tr><th>rack / feed</th>"
	    "<th>load</th><th>planned</th><th>capacity</th><th>check</th>"
	    "</tr>\n");
	for (i = 0; i < p->nracks; i++) {
		const struct plan_rack	*r = &p->racks[i];
		const struct row	*row;
		char			*subj, *label;
		char			 feeds[8][8];
		size_t			 nf = 0, k;

		for (j = 0; j < r->npdus && nf < 8; j++) {
			for (k = 0; k < nf; k++)
				if (strcmp(feeds[k], r->pdus[j].feed) == 0)
					break;
			if (k == nf)
				snprintf(feeds[nf++], sizeof feeds[0], "%s",
				    r->pdus[j].feed);
		}
		for (k = 0; k < nf; k++) {
			subj = xasprintf("rack '%s' feed %s", r->name,
			    feeds[k]);
			label = xasprintf("%s feed %s", r->name, feeds[k]);
			if ((row = report_row(cr, "rack", subj, "power")) !=
			    NULL)
				report_bar_row(b, label, row, "W");
			row = report_measured(measured, subj, "feed draw");
			if (row != NULL && !isnan(row->value)) {
				free(label);
				label = xasprintf("%s feed %s measured",
				    r->name, feeds[k]);
				report_bar_row(b, label, row, "W");
			}
			free(subj);
			free(label);
		}
		subj = xasprintf("rack '%s'", r->name);
		if (nf == 0 && (row = report_row(cr, "rack", subj, "power")) !=
		    NULL) {
			label = xasprintf("%s power", r->name);
			report_bar_row(b, label, row, "W");
			free(label);
		}
		if ((row = report_row(cr, "rack", subj, "heat")) != NULL) {
			label = xasprintf("%s heat", r->name);
			report_bar_row(b, label, row, "BTU/h");
			free(label);
		}
		free(subj);
	}
	buf_adds(b, "</table>\n");
	if (measured != NULL)
		report_power_nodes(b, measured);
	buf_adds(b, "</section>\n");
}

static void
report_psu(struct buf *b, const struct plan *p, const struct rows *cr)
{
	size_t	i, k;

	buf_adds(b, "<section id=\"psu\"><h2>PSU budget per node model</h2>\n");
	if (p->nhw == 0) {
		buf_adds(b, "<p class=\"note\">The plan has no hardware models."
		    "</p></section>\n");
		return;
	}
	buf_adds(b, "<table class=\"psu\"><tr><th>model</th><th>load</th>"
	    "<th>full-load draw</th><th>PSUs deliver</th><th>check</th>"
	    "<th>how the draw was summed</th></tr>\n");
	for (i = 0; i < p->nhw; i++) {
		const struct plan_hw	*hw = &p->hw[i];
		char			*subj = xasprintf("hardware '%s'",
					    hw->name);

		/* one row per rack voltage the model meets */
		for (k = 0; cr != NULL && k < cr->n; k++) {
			const struct row	*r = &cr->v[k];
			const char		*sev = row_verdict_name(r->verdict);

			if (strcmp(r->group, "power") != 0 ||
			    strcmp(r->subject, subj) != 0 ||
			    strcmp(r->what, "PSU budget") != 0)
				continue;
			buf_addf(b, "<tr class=\"psu %s\" data-hw=\"", sev);
			buf_add_html(b, hw->name);
			buf_adds(b, "\"><td>");
			buf_add_html(b, hw->name);
			if (hw->system != NULL) {
				buf_adds(b, "<br><small>");
				buf_add_html(b, hw->system);
				buf_adds(b, "</small>");
			}
			buf_adds(b, "</td><td>");
			report_bar(b, r->value, r->max, sev, "W");
			buf_adds(b, "</td><td>");
			buf_add_html(b, r->measured);
			buf_adds(b, "</td><td>");
			buf_add_html(b, r->limit);
			buf_addf(b, "</td><td class=\"sev\">%s</td><td>", sev);
			buf_add_html(b, r->hint);
			buf_adds(b, "</td></tr>\n");
		}
		free(subj);
	}
	buf_adds(b, "</table></section>\n");
}

/* ------------------------------------------------------------------ */
/* PCIe slot maps */

static void
report_pcie(struct buf *b, const struct plan *p)
{
	size_t	i, j;

	buf_adds(b, "<section id=\"pcie\"><h2>PCIe slots</h2>\n");
	for (i = 0; i < p->nhw; i++) {
		const struct plan_hw	*hw = &p->hw[i];
		struct check_card	*cards = NULL;
		struct check_slot_use	*slots = NULL;
		size_t			 nc = 0, ns = 0;
		char			*why = NULL;
		int			 r;

		buf_adds(b, "<h3>");
		buf_add_html(b, hw->name);
		if (hw->system != NULL) {
			buf_adds(b, " <small>(");
			buf_add_html(b, hw->system);
			buf_adds(b, ")</small>");
		}
		buf_adds(b, "</h3>\n");
		r = check_pcie_assign(hw, &cards, &nc, &slots, &ns, &why);
		if (r != 0 && why != NULL) {
			buf_addf(b, "<p class=\"note pcie-%s\">", r > 0 ?
			    "misfit" : "unknown");
			buf_add_html(b, why);
			buf_adds(b, "</p>\n");
		}
		if (nc == 0 && ns == 0 && r == 0)
			buf_adds(b, "<p class=\"note\">No add-in cards: every "
			    "GPU and NIC is on the board.</p>\n");
		if (ns > 0) {
			buf_adds(b, "<table class=\"pcie\" data-hw=\"");
			buf_add_html(b, hw->name);
			buf_adds(b, "\"><tr><th>slot</th><th>lanes</th>"
			    "<th>gen</th><th>card</th></tr>\n");
			for (j = 0; j < ns; j++) {
				const struct check_slot_use	*u = &slots[j];
				const struct cat_slot		*s = u->slot;
				const char *st = u->card >= 0 ? "used" :
				    u->card == -2 ? "blocked" : "empty";

				buf_addf(b, "<tr class=\"slot %s\" "
				    "data-slot=\"", st);
				buf_add_html(b, u->name);
				buf_adds(b, "\"><td>");
				buf_add_html(b, u->name);
				buf_addf(b, "</td><td>x%ld", s->lanes);
				if (s->mech > 0 && s->mech != s->lanes)
					buf_addf(b, " (x%ld slot)", s->mech);
				if (s->low_profile)
					buf_adds(b, ", low profile");
				buf_adds(b, "</td><td>");
				if (s->gen > 0)
					buf_addf(b, "Gen%ld", s->gen);
				buf_adds(b, "</td><td>");
				if (u->card >= 0) {
					const struct check_card	*c =
					    &cards[u->card];

					buf_add_html(b, c->model);
					buf_addf(b, " (%s, x%ld", c->kind,
					    c->lanes);
					if (c->width > 1)
						buf_addf(b, ", %d-wide",
						    c->width);
					buf_adds(b, ")");
				} else if (u->card == -2)
					buf_adds(b, "blocked by the card "
					    "beside it");
				else
					buf_adds(b, "empty");
				buf_adds(b, "</td></tr>\n");
			}
			buf_adds(b, "</table>\n");
		} else if (nc > 0 && r == 0)
			buf_adds(b, "<p class=\"note\">No slot list.</p>\n");
		free(cards);
		free(slots);
		free(why);
	}
	if (p->nhw == 0)
		buf_adds(b, "<p class=\"note\">The plan has no hardware models."
		    "</p>\n");
	buf_adds(b, "</section>\n");
}

/* ------------------------------------------------------------------ */
/* Checks, apply, verify */

/*
 * Rows (row.h) as a table whose rows are <tr class="KIND VERDICT">, the
 * same columns for check and verify rows.
 */
static void
report_rows(struct buf *b, const char *kind, const struct rows *rows)
{
	size_t	i;

	buf_addf(b, "<table class=\"%s\"><tr><th></th><th>group</th>"
	    "<th>subject</th><th>check</th><th>measured</th><th>limit</th>"
	    "<th>detail</th></tr>\n", kind);
	for (i = 0; i < rows->n; i++) {
		const struct row	*r = &rows->v[i];
		const char		*vs = row_verdict_name(r->verdict);

		buf_addf(b, "<tr class=\"%s %s\" data-group=\"", kind, vs);
		buf_add_html(b, r->group != NULL ? r->group : "");
		buf_adds(b, "\" data-subject=\"");
		buf_add_html(b, r->subject != NULL ? r->subject : "");
		buf_addf(b, "\"><td class=\"verdict\">%s</td>", vs);
		report_text(b, "td", NULL, r->group);
		report_text(b, "td", NULL, r->subject);
		report_text(b, "td", NULL, r->what);
		report_text(b, "td", NULL, r->measured);
		report_text(b, "td", NULL, r->limit);
		report_text(b, "td", NULL, r->hint);
		buf_adds(b, "</tr>\n");
	}
	buf_adds(b, "</table>\n");
}

static void
report_checks(struct buf *b, const struct rows *cr)
{
	buf_adds(b, "<section id=\"checks\"><h2>Checks</h2>\n");
	if (cr == NULL || cr->n == 0) {
		buf_adds(b, "<p class=\"note\">No check rows.</p></section>\n");
		return;
	}
	report_rows(b, "check", cr);
	buf_adds(b, "</section>\n");
}

static void
report_apply(struct buf *b, const struct report_in *in)
{
	const struct state	*st = in->state;
	struct strvec		 steps = STRVEC_INIT;
	size_t			 i, j;

	buf_adds(b, "<section id=\"apply\"><h2>Apply</h2>\n");
	if (st == NULL) {
		buf_adds(b, "<p class=\"note\">No apply state: run provision "
		    "apply, or give --state FILE.</p></section>\n");
		return;
	}
	buf_adds(b, "<p class=\"note\">State ");
	buf_add_html(b, in->state_path != NULL ? in->state_path : "");
	buf_adds(b, ", run ");
	buf_add_html(b, st->run_id != NULL ? st->run_id : "?");
	buf_adds(b, ": <strong class=\"apply-status\">");
	buf_add_html(b, st->status != NULL ? st->status : "?");
	buf_adds(b, "</strong></p>\n");
	for (i = 0; i < st->n; i++)
		for (j = 0; j < st->nodes[i].n; j++)
			if (strvec_find(&steps, st->nodes[i].steps[j].name) < 0)
				strvec_push(&steps, st->nodes[i].steps[j].name);
	buf_adds(b, "<table class=\"apply\"><tr><th>node</th>");
	for (j = 0; j < steps.n; j++)
		report_text(b, "th", NULL, steps.v[j]);
	buf_adds(b, "</tr>\n");
	for (i = 0; i < st->n; i++) {
		const struct state_node	*n = &st->nodes[i];

		buf_adds(b, "<tr class=\"apply-node\" data-node=\"");
		buf_add_html(b, n->name);
		buf_adds(b, "\">");
		report_text(b, "td", NULL, n->name);
		for (j = 0; j < steps.n; j++) {
			const struct state_step	*s = NULL;
			size_t			 k;

			for (k = 0; k < n->n; k++)
				if (strcmp(n->steps[k].name, steps.v[j]) == 0)
					s = &n->steps[k];
			if (s == NULL) {
				buf_adds(b, "<td class=\"step none\"></td>");
				continue;
			}
			buf_addf(b, "<td class=\"step %s\" data-step=\"",
			    state_res_name(s->res));
			buf_add_html(b, s->name);
			buf_adds(b, "\" title=\"");
			buf_add_html(b, s->msg != NULL ? s->msg : "");
			buf_addf(b, "\">%s</td>", state_res_name(s->res));
		}
		buf_adds(b, "</tr>\n");
	}
	buf_adds(b, "</table></section>\n");
	strvec_clear(&steps);
}

static void
report_verify(struct buf *b, const struct report_in *in)
{
	const struct rows	*v = in->verify;

	buf_adds(b, "<section id=\"verify\"><h2>Verify</h2>\n");
	if (v == NULL) {
		buf_adds(b, "<p class=\"note\">No verify results: run "
		    "provision verify --json and give --verify-json FILE.</p>"
		    "</section>\n");
		return;
	}
	buf_adds(b, "<p class=\"note\">From ");
	buf_add_html(b, in->verify_path != NULL ? in->verify_path : "");
	buf_addf(b, ": %zu ok, %zu warn, %zu fail, %zu skip.</p>\n",
	    rows_count(v, ROW_OK), rows_count(v, ROW_WARN),
	    rows_count(v, ROW_FAIL), rows_count(v, ROW_SKIP));
	report_rows(b, "verify", v);
	buf_adds(b, "</section>\n");
}

/* The usage rows of one group as a table of their own. */
static void
report_usage_table(struct buf *b, const struct rows *u, const char *group,
    const char *title)
{
	struct rows	sub = ROWS_INIT;
	size_t		i;

	for (i = 0; i < u->n; i++)
		if (u->v[i].group != NULL && strcmp(u->v[i].group, group) == 0)
			rows_addf(&sub, u->v[i].verdict, u->v[i].subject,
			    u->v[i].what, u->v[i].limit, u->v[i].measured,
			    u->v[i].hint != NULL ? "%s" : NULL,
			    u->v[i].hint)->group = u->v[i].group;
	if (sub.n > 0) {
		buf_addf(b, "<h3>%s</h3>\n", title);
		report_rows(b, "usage", &sub);
	}
	rows_release(&sub);
}

static void
report_usage(struct buf *b, const struct report_in *in)
{
	const struct rows	*u = in->usage;

	if (u == NULL)
		return;
	buf_adds(b, "<section id=\"usage\"><h2>Usage</h2>\n"
	    "<p class=\"note\">From ");
	buf_add_html(b, in->usage_path != NULL ? in->usage_path : "");
	buf_adds(b, ".</p>\n");
	report_usage_table(b, u, "teams", "GPU-hours by team");
	report_usage_table(b, u, "users", "GPU-hours by user");
	report_usage_table(b, u, "gpu-util", "GPU utilisation by node");
	report_usage_table(b, u, "team-util", "GPU utilisation by team");
	report_usage_table(b, u, "waiting", "Jobs waiting");
	buf_adds(b, "</section>\n");
}

static void
report_summary(struct buf *b, const struct report_in *in)
{
	const struct rows	*cr = in->checks;
	size_t			 i, shown = 0;

	buf_adds(b, "<section id=\"summary\"><h2>Summary</h2>\n<p>Checks: ");
	if (cr != NULL)
		buf_addf(b, "<span class=\"badge b-ok\">%zu ok</span>"
		    "<span class=\"badge b-warn\">%zu warn</span>"
		    "<span class=\"badge b-fail\">%zu fail</span>"
		    "<span class=\"badge b-skip\">%zu skip</span>",
		    rows_count(cr, ROW_OK), rows_count(cr, ROW_WARN),
		    rows_count(cr, ROW_FAIL), rows_count(cr, ROW_SKIP));
	if (in->verify != NULL)
		buf_addf(b, " &nbsp; Verify: "
		    "<span class=\"badge b-ok\">%zu ok</span>"
		    "<span class=\"badge b-fail\">%zu fail</span>",
		    rows_count(in->verify, ROW_OK),
		    rows_count(in->verify, ROW_FAIL));
	buf_adds(b, "</p>\n");
	if (cr != NULL && rows_count(cr, ROW_FAIL) > 0) {
		buf_adds(b, "<ul class=\"failures\">\n");
		for (i = 0; i < cr->n && shown < 30; i++) {
			const struct row	*r = &cr->v[i];

			if (r->verdict != ROW_FAIL)
				continue;
			shown++;
			buf_adds(b, "<li>");
			buf_add_html(b, r->subject);
			buf_adds(b, ": ");
			buf_add_html(b, r->what);
			buf_adds(b, " &mdash; ");
			buf_add_html(b, r->measured);
			buf_adds(b, " against ");
			buf_add_html(b, r->limit);
			buf_adds(b, "</li>\n");
		}
		buf_adds(b, "</ul>\n");
	}
	buf_adds(b, "</section>\n");
}

void
report_html(struct buf *b, const struct report_in *in)
{
	const struct plan	*p = in->plan;
	double			*hw_w = xcalloc(p->nhw + 1, sizeof *hw_w);
	int			*hw_est = xcalloc(p->nhw + 1, sizeof *hw_est);
	size_t			 i;

	for (i = 0; i < p->nhw; i++)
		hw_w[i] = check_hw_draw_w(p, &p->hw[i], &hw_est[i]);
	buf_adds(b, "<!DOCTYPE html>\n<html lang=\"en\"><head>"
	    "<meta charset=\"utf-8\">\n<meta name=\"viewport\" "
	    "content=\"width=device-width\">\n<title>provision report: ");
	buf_add_html(b, p->cluster);
	buf_addf(b, "</title>\n<style>%s</style>\n</head><body>\n", report_css);
	buf_adds(b, "<header><h1>Cluster <span class=\"cluster\">");
	buf_add_html(b, p->cluster);
	buf_adds(b, "</span></h1><p>Plan <code>");
	buf_add_html(b, p->file);
	buf_addf(b, "</code> &middot; %zu node%s &middot; %zu rack%s &middot; "
	    "%zu switch%s", p->nnodes, p->nnodes == 1 ? "" : "s", p->nracks,
	    p->nracks == 1 ? "" : "s", p->nswitches,
	    p->nswitches == 1 ? "" : "es");
	if (in->generated != NULL) {
		buf_adds(b, " &middot; ");
		buf_add_html(b, in->generated);
	}
	buf_adds(b, "</p><nav><a href=\"#summary\">summary</a>"
	    "<a href=\"#racks\">racks</a><a href=\"#power\">power</a>"
	    "<a href=\"#psu\">PSUs</a><a href=\"#pcie\">PCIe</a>"
	    "<a href=\"#checks\">checks</a><a href=\"#apply\">apply</a>"
	    "<a href=\"#verify\">verify</a>");
	if (in->usage != NULL)
		buf_adds(b, "<a href=\"#usage\">usage</a>");
	buf_adds(b, "</nav></header>\n");
	report_summary(b, in);
	report_racks(b, p, hw_w, hw_est);
	report_power(b, p, in->checks, in->power);
	report_psu(b, p, in->checks);
	report_pcie(b, p);
	report_checks(b, in->checks);
	report_apply(b, in);
	report_verify(b, in);
	report_usage(b, in);
	buf_adds(b, "<footer><section><p class=\"note\">Made by provision "
	    "report from the plan; every number is the check's own.</p>"
	    "</section></footer>\n</body></html>\n");
	free(hw_w);
	free(hw_est);
}

/*
 * report.h: the plan, its checks and the cluster's state as one
 * self-contained HTML page (inline CSS and SVG, no script, no network)
 * that a person can open or mail.
 *
 *	struct rows cr = ROWS_INIT;
 *	check_plan(&cr, plan, &err);
 *	struct report_in in = REPORT_IN_INIT;
 *	in.plan = plan;
 *	in.checks = &cr;
 *	in.state = st;			(apply's state, or NULL)
 *	in.verify = &rows;		(verify's rows, or NULL)
 *	report_html(&b, &in);
 *
 * Sections, each with an id: summary, racks (an elevation per rack drawn
 * to scale in rack units, every node and switch in its units, coloured
 * by role, named, with its full-load draw), power (per rack and feed the
 * planned draw against the derated capacity, and beside it what the
 * feed's PDUs measured when `power` holds `bmc power` rows; each node's
 * measured draw against its model; heat against cooling), psu
 * (per node model the PSU budget), pcie (per node model the slot map
 * with the card in each slot), checks, apply (each node's result per
 * step), verify and, given `provision usage --json` rows, usage
 * (GPU-hours by team and user, GPU utilisation, the jobs waiting).
 *
 * Stable hooks for tests and style sheets: <g class="rack"
 * data-rack="r01">, <g class="node role-worker" data-node="gpu01">,
 * <g class="switch" data-switch="leaf1">, <tr class="check fail">,
 * <tr class="verify fail" data-node=..>, <td class="step changed">,
 * <table class="pcie" data-hw="gpu-node">.  Every plan, state and verify
 * string is escaped (buf_add_html).
 */
#ifndef PROV_REPORT_H
#define PROV_REPORT_H

#include "buf.h"

struct plan;
struct rows;
struct state;
struct rows;

struct report_in {
	const struct plan		*plan;
	const struct rows	*checks;	/* check_plan() rows */
	const struct state		*state;		/* or NULL */
	const char			*state_path;	/* shown */
	const struct rows		*verify;	/* or NULL */
	const char			*verify_path;	/* shown */
	const struct rows		*power;		/* bmc power rows; NULL */
	const char			*power_path;	/* shown */
	const struct rows		*usage;		/* usage rows; NULL */
	const char			*usage_path;	/* shown */
	const char			*generated;	/* "2026-11-30 19:00" */
};

#define REPORT_IN_INIT { NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, \
	NULL, NULL, NULL }

/* Pixels per rack unit in the elevations. */
#define REPORT_PX_PER_U		18

/* Append the whole page to `out`. */
void	report_html(struct buf *out, const struct report_in *);

#endif

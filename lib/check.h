/*
 * check.h: the hardware checks of `provision check` (docs/architecture.md):
 * PCIe slot fit and lanes, PSU budget, rack units, depth, feeds and heat,
 * network ports, fabric, switch ports and addresses, and memory.
 *
 *	struct rows	rows = ROWS_INIT;
 *	if (check_plan(&rows, plan, &err) != 0)
 *		... could not run at all ...
 *	for (i = 0; i < rows.n; i++) ... rows.v[i] ...
 *	exit rows_count(&rows, ROW_FAIL) > 0 ? PROV_EXIT_FAIL : PROV_EXIT_OK;
 *	rows_release(&rows);
 *
 * A failed check is a row, not an error: check_plan() returns -1 only when
 * it cannot look at the plan.  Every row states the measured number and
 * the limit with their units, ok rows too, so a user sees the margin.
 * Rows are aggregated per hardware model, per rack and per network, and
 * failures per node are capped at CHECK_MAX_ROWS per check (then one
 * "... and N more" row), so a plan of 100,000 nodes gives a readable
 * report; the whole check is linear in the number of nodes.
 *
 * Where the catalog does not know a number the check uses one of the
 * defaults below, says so in the row's hint and gives at best a warning:
 * an unknown is never a silent pass.
 *
 * The rows (row.h) own their strings; `group` is a static string,
 * `loc.file` is borrowed from the plan.
 */
#ifndef PROV_CHECK_H
#define PROV_CHECK_H

#include <stddef.h>

#include "err.h"

struct plan;
struct rows;
struct plan_hw;
struct plan_net;
struct cat_slot;

/* Documented defaults for numbers the catalog does not give. */
#define CHECK_BASE_W_PER_U	150.0	/* chassis base draw per rack unit */
#define CHECK_MEM_W_PER_GB	0.375	/* 3 W per 8 GB of RAM */
#define CHECK_NVME_W		25.0
#define CHECK_SSD_W		10.0
#define CHECK_HDD_W		10.0
#define CHECK_NIC_W		25.0	/* an add-in NIC without power_w */
#define CHECK_SWITCH_W_PER_U	500.0	/* a switch without power_w */
#define CHECK_MIN_RAM_GB	24.0	/* docs/architecture.md: the rules */
#define CHECK_MIN_PORTS		2	/* cluster + management */
#define CHECK_FAST_GBPS		100.0	/* fabric for multi-node GPU work */
#define CHECK_WARN_RATIO	0.9	/* warn above 90% of a limit */
#define CHECK_BTU_PER_W		3.412
#define CHECK_MAX_ROWS		20	/* fails per check, then "... N more" */
#define CHECK_SEARCH_STEPS	2000000	/* slot search budget per model */

/*
 * Its rows (row.h): group: "pcie" "power" "rack" "network" "memory".
 * subject: "hardware 'gpu-node'", "rack 'r01' feed A", "node 'gpu03'",
 * "network 'fabric'".  what: "PSU budget", "slot fit", "units", ...
 * measured and limit: exact numbers with units, "5,230 W (87.2%)" against
 * "6,000 W (2 of 4 x 3,000 W PSUs at 208 V, 2+2)".  hint: what would be
 * right, or for an ok row the detail (the slot assignment, how the draw
 * was summed); NULL when there is nothing to add.  value and max: the raw
 * numbers for --json, NAN when they do not apply.
 *
 * Run every check over a loaded plan (plan_load(): hardware resolved to
 * catalog entries) and append the rows to `out`.  0 unless the checks
 * could not run at all (err says why); failed checks are rows.
 */
int		 check_plan(struct rows *out, const struct plan *,
		    struct prov_err *err);

/* A network fit for GPU traffic between nodes: InfiniBand, or >= 100 Gb/s. */
int		 check_net_fast(const struct plan_net *);

/*
 * "5,230", "897.1", "unknown": thousands separators and at most
 * `decimals` digits after the point, trailing zeros dropped.
 */
struct check_num {
	char	s[48];
};

struct check_num check_fmt(double v, int decimals);

/*
 * Full-load draw in W of one node of model `hw`, summed as the PSU budget
 * row sums it (catalog figures, the defaults above where they are
 * missing, a vendor maximum where the catalog has one).  *estimated (may
 * be NULL) is set to 1 when a default stood in.  For the HTML report.
 */
double		 check_hw_draw_w(const struct plan *, const struct plan_hw *,
		    int *estimated);

/*
 * PCIe slot assignment of one hardware model (also drawn by the HTML
 * report).  Cards are the add-in GPUs (not SXM/OAM baseboard modules) and
 * the NICs that are neither on board, OCP 3.0 mezzanines, nor built into
 * the system.  A card fits a slot when the slot's electrical and
 * mechanical widths are at least the card's lanes (an x8 card in an x16
 * slot is fine, an x16 card in an x8 slot is not), a low-profile-only
 * slot gets a half-height card, a half-length slot gets no full-length
 * card, and a card wider than the slot's `room` blocks the next slots.
 * The search backtracks over the slots, biggest cards first.
 */
struct check_card {
	const char	*kind;		/* "gpu" "nic" */
	const char	*model;		/* catalog id */
	const char	*form_factor;	/* fhfl fhhl hhhl */
	int		 width;		/* slot widths */
	long		 lanes;
	long		 gen;		/* -1: unknown */
	int		 low_profile_ok;
	int		 full_length;
	int		 assumed;	/* a figure unknown: worst case used */
};

struct check_slot_use {
	const struct cat_slot	*slot;
	int			 card;	/* into cards; -1 empty, -2 blocked */
	char			 name[32];	/* "gpu3": numbered names */
};

/*
 * Fill *cards and *slots (caller frees both, and *why) for `hw`.
 * Returns 0 when every card has a slot, 1 when not (*slots hold the
 * fullest partial assignment found, *why names the card that does not
 * fit and why), -1 when it cannot tell (the catalog has no slot list, or
 * the search ran out of steps; *why says so).  *why is NULL on 0.
 */
int		 check_pcie_assign(const struct plan_hw *,
		    struct check_card **cards, size_t *ncards,
		    struct check_slot_use **slots, size_t *nslots, char **why);

#endif

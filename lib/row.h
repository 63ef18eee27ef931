/*
 * row.h: one result of a check, the unit every command reports in.
 *
 * A hardware check (check), a node's drift from the plan (facts), a
 * check of the running cluster (verify) and a BMC's inventory drift
 * (bmc) are all rows: a verdict; the subject it is about (a hardware
 * model, a rack, a node); what was checked; what was measured or found,
 * and the limit or what was expected; a hint (why, or what to do); the
 * numbers behind measured and limit when there are; where in the plan.
 * A failed check is a row, not an error: an error means the check could
 * not run.
 *
 *	struct rows	 rows = ROWS_INIT;
 *	struct row	*r;
 *
 *	r = rows_add(&rows, ROW_FAIL, "PSU budget");
 *	r->subject = xasprintf("hardware '%s'", name);
 *	r->measured = xasprintf("%.0f W", draw);
 *	r->limit = xasprintf("%.0f W", budget);
 *	r->value = draw;
 *	r->max = budget;
 *
 *	rows_addf(&rows, ROW_OK, "gpu01", "gpu count", "8", "8", NULL);
 *
 *	... rows_count(&rows, ROW_FAIL) ... rows_to_json(&jw, "rows", &rows)
 *	rows_release(&rows);
 *
 * The rows own their strings (allocated, or NULL when there is nothing
 * to say); `group` is a constant ("pcie"), borrowed.  Tables are drawn
 * in cmd/ (cmd_rows_print); JSON and JUnit come from here, HTML from
 * report.c.
 */
#ifndef PROV_ROW_H
#define PROV_ROW_H

#include <stddef.h>

#include "err.h"

struct buf;
struct json_writer;
struct yml_node;

enum row_verdict {
	ROW_OK = 0,
	ROW_WARN,
	ROW_FAIL,
	ROW_SKIP,
};
#define ROW_NVERDICTS	4

struct row {
	enum row_verdict	 verdict;
	const char		*group;		/* "pcie", "power", or NULL */
	char			*subject;	/* "hardware 'dgx'", "gpu01" */
	char			*what;		/* "PSU budget", "gpu count" */
	char			*measured;	/* what was measured or found */
	char			*limit;		/* the limit, what was expected */
	char			*hint;		/* why, what to do, or NULL */
	double			 value, max;	/* behind measured, limit; NAN */
	struct prov_loc		 loc;		/* where in the plan; line 0 */
};

struct rows {
	struct row	*v;
	size_t		 n, alloc;
};

/* clang-format off */
#define ROWS_INIT { NULL, 0, 0 }
/* clang-format on */

/*
 * Append a row with verdict v about `what` (copied); the other strings
 * are NULL, value and max NAN.  The pointer is valid until the next add.
 */
struct row	*rows_add(struct rows *, enum row_verdict v, const char *what);
/*
 * Append a row with every string given copied (NULL stays NULL) and the
 * hint made from fmt (NULL: no hint).
 */
struct row *rows_addf(struct rows *, enum row_verdict v, const char *subject,
    const char *what, const char *limit, const char *measured, const char *fmt,
    ...) PROV_PRINTF(7, 8);
/*
 * Give every row without a subject, measured or limit an empty one: for
 * reports that say nothing where there is nothing (check, estimate)
 * rather than "-".
 */
void		 rows_blank(struct rows *);
/* Move every row of src to the end of dst; src is left empty. */
void		 rows_append(struct rows *dst, struct rows *src);
void		 rows_release(struct rows *);
size_t		 rows_count(const struct rows *, enum row_verdict);
/* "ok", "warn", "fail", "skip". */
const char	*row_verdict_name(enum row_verdict);
/* The verdict named s; -1 when none is. */
int		 row_verdict_parse(const char *s, enum row_verdict *out);

/* Members "ok", "warn", "fail", "skip": the count of each verdict. */
void		 rows_count_json(struct json_writer *, const struct rows *);
/*
 * The rows as an array value at `key`, each an object with the same
 * keys: verdict, group, subject, check, measured, limit, hint, value,
 * max, and file, line and col when the row has a location.
 */
void rows_to_json(struct json_writer *, const char *key, const struct rows *);
/*
 * Append the rows of such an array (a yml.h tree, read with
 * yml_load_json()); `group` is not kept (it is a constant), nor the
 * location.  -1 with err (`label` names the file) when an item lacks
 * its verdict or check.
 */
int rows_from_json(struct rows *out, const char *label,
    const struct yml_node *list, struct prov_err *err);
/*
 * The rows as JUnit XML (the Jenkins/GitLab schema, for CI): a testsuite
 * per subject, in the order the subjects first appear, a testcase per row
 * (classname the subject, name the check); fail rows are <failure>s with
 * limit and measured in the text, skip rows <skipped>, warnings pass
 * with a <system-out> line.
 */
void rows_to_junit(struct buf *, const char *name, const char *package,
    const struct rows *);

#endif

/*
 * cmd.h: the command table, options, and the context every command gets.
 *
 * Each cmd/<name>.c defines one `const struct cmd_entry cmd_<name>_entry`
 * with its option table; cmd.c lists them in cmd_table[] and dispatches:
 * it parses the options into the command's own struct (opts_size bytes,
 * zeroed, then opts_init), loads the plan when the entry has
 * CMD_LOADS_PLAN, and calls exec with the positional arguments left.
 * `help`, `help CMD` and `CMD --help` come from the same tables.
 */
#ifndef PROV_CMD_H
#define PROV_CMD_H

#include <stddef.h>
#include <stdio.h>

#include "err.h"
#include "plan.h"
#include "strvec.h"

enum opt_type {
	OPT_END = 0,
	OPT_BOOL,	/* int, set to 1 */
	OPT_STR,	/* const char * (borrowed from argv) */
	OPT_LONG,	/* long */
	OPT_LIST,	/* struct strvec, appended (repeatable) */
};

struct opt_spec {
	const char	*name;		/* long name without "--" */
	int		 shortopt;	/* 'n', or 0 */
	enum opt_type	 type;
	size_t		 off;		/* into the command's opts struct */
	const char	*argname;	/* "N", "FILE"; NULL for flags */
	const char	*help;
};

#define CMD_LOADS_PLAN	0x1	/* first positional argument is a plan */
#define CMD_PLAN_OPTIONAL 0x2	/* ... but the command works without one */

struct cmd_ctx {
	FILE		*out;
	FILE		*err;
	int		 tty;		/* out is a terminal */
	int		 color;		/* ... and NO_COLOR is not set */
	const char	*prog;		/* "provision" */
	const struct cmd_entry *cmd;	/* the command running */
	struct plan	*plan;		/* loaded when CMD_LOADS_PLAN */
	const char	*plan_path;
	struct strvec	 profiles;	/* --profiles DIR (every command) */
	char		*exe_dir;	/* directory of the running binary */
};

struct cmd_entry {
	const char		*name;
	const char		*alias;
	const char		*usage;
	const char		*summary;
	const struct opt_spec	*opts;
	size_t			 opts_size;
	void			(*opts_init)(void *);
	int			 flags;
	int			(*exec)(struct cmd_ctx *, void *opts, int argc,
				    char **argv);
};

extern const struct cmd_entry cmd_apply_entry;
extern const struct cmd_entry cmd_check_entry;
extern const struct cmd_entry cmd_estimate_entry;
extern const struct cmd_entry cmd_ls_entry;
extern const struct cmd_entry cmd_bmc_entry;
extern const struct cmd_entry cmd_catalog_entry;
extern const struct cmd_entry cmd_exec_entry;
extern const struct cmd_entry cmd_facts_entry;
extern const struct cmd_entry cmd_pxe_entry;
extern const struct cmd_entry cmd_bundle_entry;
extern const struct cmd_entry cmd_verify_entry;
extern const struct cmd_entry cmd_usage_entry;
extern const struct cmd_entry cmd_report_entry;
extern const struct cmd_entry cmd_help_entry;
extern const struct cmd_entry *const cmd_table[];

const struct cmd_entry *cmd_find(const char *name);
/* Run one command: options, plan, exec.  Returns the exit code. */
int	cmd_run(struct cmd_ctx *, const struct cmd_entry *, int argc,
	    char **argv);
void	cmd_usage(const struct cmd_entry *, FILE *);
void	cmd_help(const struct cmd_entry *, FILE *);
/*
 * What went wrong, on ctx->err, after "provision CMD: ": cmd_error() with
 * the error's plan location and hint ("file:line:col: what (hint)"),
 * cmd_errorf() a message (no newline needed).
 */
void	cmd_error(struct cmd_ctx *, const struct prov_err *);
void	cmd_errorf(struct cmd_ctx *, const char *fmt, ...)
	    __attribute__((format(printf, 2, 3)));
/* "provision CMD: " + message on ctx->err; returns PROV_EXIT_USAGE. */
int	cmd_usage_error(struct cmd_ctx *, const struct cmd_entry *,
	    const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* Print a list of plan errors, then "N errors in PLAN". */
void	cmd_print_errs(struct cmd_ctx *, const struct prov_errs *);
/* Load a plan with ctx->profiles; prints errors; NULL on failure. */
struct plan *cmd_load_plan(struct cmd_ctx *, const char *path);

/*
 * Result rows (row.h) as every command draws them (cmd/rows.c): a verdict
 * label (coloured when ctx->color), subject, check, measured and limit in
 * aligned columns, the hint on the next line, and the plan location of a
 * failure.  The view names the columns and, when `groups` is set, draws
 * one section per group in that order.
 */
struct cmd_rows_view {
	const char		*subject;	/* "SUBJECT", "NODE" */
	const char		*what;		/* "CHECK" */
	const char		*measured;	/* "MEASURED", "FOUND" */
	const char		*limit;		/* "LIMIT", "EXPECTED" */
	const char *const	*groups;	/* NULL-terminated, or NULL */
	int			 quiet;		/* only warn and fail rows */
};

struct rows;

/* Returns how many rows it printed. */
size_t	cmd_rows_print(struct cmd_ctx *, const struct rows *,
	    const struct cmd_rows_view *);

#endif

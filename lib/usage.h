/*
 * usage.h: who used the cluster's GPUs.  GPU-hours by team (a Slurm
 * account: scheduling.teams) and by user, from Slurm's accounting (sacct
 * on the head: every job allocation's GPUs times its elapsed time, the
 * running ones so far), and the jobs waiting now with Slurm's reason.
 *
 *	struct rows		rows = ROWS_INIT;
 *	struct usage_opts	o = USAGE_OPTS_INIT;
 *
 *	o.since = "30d";
 *	if (usage_run(&rows, plan, &o, &err) != 0)
 *		... could not ask (no head, no SSH, no accounting) ...
 *	rows_release(&rows);
 *
 * Rows, in this order: group "teams" (subject the team, measured its
 * GPU-hours, value the number, limit its GPU limit), "users" (subject
 * the user, limit the team), "waiting" (a warn row per pending job:
 * subject "job ID", measured Slurm's reason, limit "USER in TEAM", a hint
 * for the reasons of limits and shares).  Teams and users come in plan
 * order, then any Slurm knows that the plan does not.
 */
#ifndef PROV_USAGE_H
#define PROV_USAGE_H

#include <time.h>

#include "err.h"

struct plan;
struct rows;
struct buf;
struct strvec;

struct usage_opts {
	const char *since; /* "30d", "12h", "2026-11-01"; NULL: 30d */
	const char *passphrase; /* for an encrypted identity */
	long timeout_s; /* 0: 60 */
	const char *prometheus_url; /* NULL: the plan's, http://NODE:9090 */
};

#define USAGE_OPTS_INIT                                                        \
	{                                                                      \
		NULL, NULL, 0, NULL                                            \
	}

/*
 * sacct's start time for `since`: Nd, Nh, Nw (now-N days, hours,
 * weeks), YYYY-MM-DD or YYYY-MM-DDTHH:MM[:SS].  -1 with err otherwise.
 */
int usage_since(char **out, const char *since, struct prov_err *err);
/* The script the head runs (templates/remote/usage.sh and its values). */
void usage_script(struct buf *out, const char *sacct_since);
/* Rows from the script's output; -1 with err when sacct could not answer. */
int usage_parse(struct rows *out, const struct plan *, const char *text,
    struct prov_err *err);
/* Ask the plan's head (the Slurm controller) and make the rows. */
int usage_run(struct rows *out, const struct plan *, const struct usage_opts *,
    struct prov_err *err);

/*
 * GPU utilisation from the DCGM exporter's metrics in Prometheus
 * (usage-dcgm.c): group "gpu-util" (subject a node, value its GPUs'
 * average utilisation in %), group "team-util" (subject a team, value the
 * average over the samples labelled with its jobs, hpc_job, which map to
 * teams through the head's sacct answer `head_text`; the label comes from
 * the Slurm prolog/epilog apply installs with the exporter,
 * templates/slurm.sh).  Where Prometheus
 * has none, or cannot be asked, one skip row "no DCGM metrics" says why.
 */
void usage_dcgm_run(struct rows *out, const struct plan *, const char *url,
    const char *since, const char *head_text, long timeout_ms);
/* The PromQL range for --since (30d as it is; a date: seconds to now). */
int usage_dcgm_range(char **out, const char *since, time_t now,
    struct prov_err *err);
/* The three queries: per node; per job the samples' sum and count. */
void usage_dcgm_queries(struct strvec *out, const char *range);
/* Rows from the three queries' JSON answers; -1 when one is not a vector. */
int usage_dcgm_parse(struct rows *out, const struct plan *,
    const char *const answers[3], const char *head_text, struct prov_err *err);

/*
 * The rows of `provision usage --json` (its "usage" list), groups kept;
 * -1 with err (`label` names the file) when it is not that output.
 */
int usage_from_json(struct rows *out, const char *label, const char *text,
    size_t len, struct prov_err *err);

#endif

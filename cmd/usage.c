/*
 * usage.c: `provision usage PLAN`: who used the GPUs.
 *
 *	provision usage [--since 30d] [--prometheus URL] [--json] PLAN
 *
 * GPU-hours by team and by user since --since, from Slurm's accounting on
 * the head (lib/usage.c), the jobs waiting now with Slurm's reason, and
 * GPU utilisation per node and team where Prometheus has DCGM metrics.
 * Exit 0, or 2 when the head or its accounting could not be asked.
 */
#include "compat.h"

#include "buf.h"
#include "cmd.h"
#include "json.h"
#include "row.h"
#include "usage.h"

struct usage_cmd_opts {
	int json;
	const char *since;
	long timeout;
	const char *prometheus;
};

static const struct opt_spec usage_opts_spec[] = {
	{ "since", 0, OPT_STR, offsetof(struct usage_cmd_opts, since), "WHEN",
	    "from when: 30d (the default), 12h, 2w, or a date like 2026-11-01" },
	{ "json", 0, OPT_BOOL, offsetof(struct usage_cmd_opts, json), NULL,
	    "print JSON: the rows, and totals" },
	{ "timeout", 0, OPT_LONG, offsetof(struct usage_cmd_opts, timeout), "S",
	    "seconds the head may take (default 60)" },
	{ "prometheus", 0, OPT_STR, offsetof(struct usage_cmd_opts, prometheus),
	    "URL",
	    "Prometheus with the DCGM metrics (default: http://HOST:9090 of "
	    "software.monitoring.prometheus)" },
	{ NULL, 0, OPT_END, 0, NULL, NULL }
};

static int cmd_usage_exec(struct cmd_ctx *, void *, int, char **);

const struct cmd_entry cmd_usage_entry = {
	.name = "usage",
	.usage = "[--since WHEN] [--prometheus URL] [--json] PLAN",
	.summary = "GPU-hours by team and user from Slurm's accounting, and "
	           "the jobs waiting on a limit",
	.opts = usage_opts_spec,
	.opts_size = sizeof(struct usage_cmd_opts),
	.flags = CMD_LOADS_PLAN,
	.exec = cmd_usage_exec,
};

static double
cmd_usage_total(const struct rows *rows, const char *group)
{
	double t = 0;
	size_t i;

	for (i = 0; i < rows->n; i++)
		if (rows->v[i].group != NULL &&
		    strcmp(rows->v[i].group, group) == 0)
			t += rows->v[i].value;
	return t;
}

static size_t
cmd_usage_count(const struct rows *rows, const char *group)
{
	size_t i, n = 0;

	for (i = 0; i < rows->n; i++)
		if (rows->v[i].group != NULL &&
		    strcmp(rows->v[i].group, group) == 0)
			n++;
	return n;
}

static int
cmd_usage_exec(struct cmd_ctx *ctx, void *optsp, int argc, char **argv)
{
	static const char *const groups[] = { "teams", "users", "waiting",
		"gpu-util", "team-util", NULL };
	struct usage_cmd_opts *o = optsp;
	struct usage_opts uo = USAGE_OPTS_INIT;
	struct rows rows = ROWS_INIT;
	struct cmd_rows_view view = { "TEAM, USER, JOB", "WHAT", "USED",
		"LIMIT", groups, 0 };
	struct prov_err err = PROV_ERR_INIT;
	struct json_writer jw;
	struct buf b = BUF_INIT;
	int r = PROV_EXIT_USAGE;

	if (argc > 0)
		return cmd_usage_error(ctx, &cmd_usage_entry,
		    "unexpected "
		    "argument '%s'",
		    argv[0]);
	uo.since = o->since != NULL ? o->since : "30d";
	uo.timeout_s = o->timeout;
	uo.prometheus_url = o->prometheus;
	if (ctx->plan->ssh.passphrase_env != NULL)
		uo.passphrase = getenv(ctx->plan->ssh.passphrase_env);
	if (usage_run(&rows, ctx->plan, &uo, &err) != 0) {
		cmd_error(ctx, &err);
		goto out;
	}
	if (o->json) {
		json_init(&jw, &b);
		json_object_begin(&jw, NULL, 0);
		json_str(&jw, "plan", ctx->plan_path);
		json_str(&jw, "since", uo.since);
		rows_to_json(&jw, "usage", &rows);
		json_object_begin(&jw, "summary", 0);
		json_num(&jw, "gpu_hours", cmd_usage_total(&rows, "teams"), 4);
		json_int(&jw, "waiting",
		    (long long)cmd_usage_count(&rows, "waiting"));
		json_end(&jw);
		json_end(&jw);
		json_finish(&jw);
		fwrite(b.buf, 1, b.len, ctx->out);
	} else {
		cmd_rows_print(ctx, &rows, &view);
		fprintf(ctx->out,
		    "since %s: %.2f GPU-hours, %zu job%s "
		    "waiting\n",
		    uo.since, cmd_usage_total(&rows, "teams"),
		    cmd_usage_count(&rows, "waiting"),
		    cmd_usage_count(&rows, "waiting") == 1 ? "" : "s");
	}
	r = PROV_EXIT_OK;
out:
	buf_release(&b);
	rows_release(&rows);
	prov_err_release(&err);
	return r;
}

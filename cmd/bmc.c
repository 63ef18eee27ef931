/*
 * bmc.c: `provision bmc PLAN [-n NODESET] ACTION [ARGS]`: Redfish on
 * every selected node's BMC at once.
 *
 *	status			PowerState and boot override
 *	on | off | cycle | reset	power, then wait for the PowerState
 *	boot pxe|cd|disk [--once]	boot override (Continuous unless --once)
 *	media insert URL | media eject	the virtual CD/DVD
 *	inventory		processors, memory, GPUs, PSUs against the plan
 *	power			watts drawn now against check's model
 *
 * The actions are a second table here (bmc_verbs[]), after git's
 * OPT_SUBCOMMAND.  Passwords come from each bmc entry's password_env or
 * password_file, are handed to lib/redfish and wiped after the run; they
 * are never printed.  One row per node; a BMC whose TLS is not verified
 * (`insecure: true`) says so in its row.  Exit 0 when every BMC did what
 * was asked (and, for inventory, matches the plan), 1 when any failed,
 * 2 for usage and plan errors.
 */
#include "compat.h"

#include "buf.h"
#include "cmd.h"
#include "json.h"
#include "row.h"
#include "redfish.h"
#include "str.h"

#define BMC_INSECURE_NOTE	"TLS NOT VERIFIED (insecure: true)"

struct bmc_opts {
	int		 json;
	const char	*nodes;
	int		 once;
	int		 graceful;
	int		 basic;
	long		 timeout_s;
	long		 connect_timeout_s;
	long		 wait_s;
	long		 parallel;
};

static const struct opt_spec bmc_opts_spec[] = {
	{ "json", 0, OPT_BOOL, offsetof(struct bmc_opts, json), NULL,
	  "print JSON" },
	{ "nodes", 'n', OPT_STR, offsetof(struct bmc_opts, nodes), "NODESET",
	  "only these nodes (hostlist, e.g. gpu[01-04])" },
	{ "once", 0, OPT_BOOL, offsetof(struct bmc_opts, once), NULL,
	  "boot: override the next boot only (default: until changed)" },
	{ "graceful", 0, OPT_BOOL, offsetof(struct bmc_opts, graceful), NULL,
	  "off, reset: ask the OS (GracefulShutdown, GracefulRestart)" },
	{ "basic-auth", 0, OPT_BOOL, offsetof(struct bmc_opts, basic), NULL,
	  "use basic auth on every request instead of a session" },
	{ "timeout", 0, OPT_LONG, offsetof(struct bmc_opts, timeout_s), "S",
	  "seconds one request may take (default 60)" },
	{ "connect-timeout", 0, OPT_LONG,
	  offsetof(struct bmc_opts, connect_timeout_s), "S",
	  "seconds to connect (default 10)" },
	{ "wait", 0, OPT_LONG, offsetof(struct bmc_opts, wait_s), "S",
	  "seconds to wait for a task or a power state (default 300)" },
	{ "parallel", 0, OPT_LONG, offsetof(struct bmc_opts, parallel), "N",
	  "requests in flight at once, all BMCs (default 128)" },
	{ NULL, 0, OPT_END, 0, NULL, NULL }
};

static void cmd_bmc_opts_init(void *);
static int cmd_bmc_exec(struct cmd_ctx *, void *, int, char **);

const struct cmd_entry cmd_bmc_entry = {
	.name = "bmc",
	.usage = "[--json] [-n NODESET] PLAN ACTION [ARGS]  (ACTION: status "
	    "on off cycle reset 'boot pxe|cd|disk' 'media insert URL' 'media "
	    "eject' inventory power)",
	.summary = "power, boot override, virtual media and inventory over "
	    "Redfish, all BMCs at once",
	.opts = bmc_opts_spec,
	.opts_size = sizeof(struct bmc_opts),
	.opts_init = cmd_bmc_opts_init,
	.flags = CMD_LOADS_PLAN,
	.exec = cmd_bmc_exec,
};

/* One action: its words after the plan fill a struct redfish_opts. */
struct bmc_verb {
	const char		*name;
	const char		*args;
	const char		*summary;
	enum redfish_action	 action;
	int			(*parse)(struct cmd_ctx *,
				    struct redfish_opts *, int, char **);
};

static int cmd_bmc_parse_none(struct cmd_ctx *, struct redfish_opts *, int,
    char **);
static int cmd_bmc_parse_boot(struct cmd_ctx *, struct redfish_opts *, int,
    char **);
static int cmd_bmc_parse_media(struct cmd_ctx *, struct redfish_opts *, int,
    char **);

static const struct bmc_verb bmc_verbs[] = {
	{ "status", "", "PowerState and boot override", REDFISH_STATUS,
	  cmd_bmc_parse_none },
	{ "on", "", "power on, wait for On", REDFISH_ON, cmd_bmc_parse_none },
	{ "off", "", "ForceOff (--graceful: GracefulShutdown), wait for Off",
	  REDFISH_OFF, cmd_bmc_parse_none },
	{ "cycle", "", "PowerCycle, else ForceRestart; wait for On",
	  REDFISH_CYCLE, cmd_bmc_parse_none },
	{ "reset", "", "ForceRestart (--graceful: GracefulRestart)",
	  REDFISH_RESET, cmd_bmc_parse_none },
	{ "boot", "pxe|cd|disk", "boot override (--once: next boot only)",
	  REDFISH_BOOT, cmd_bmc_parse_boot },
	{ "media", "insert URL | eject", "virtual CD/DVD",
	  REDFISH_MEDIA_INSERT, cmd_bmc_parse_media },
	{ "inventory", "", "CPUs, memory, GPUs, PSUs compared with the plan",
	  REDFISH_INVENTORY, cmd_bmc_parse_none },
	{ "power", "", "watts drawn now beside check's full-load model",
	  REDFISH_POWER, cmd_bmc_parse_none },
};

static void
cmd_bmc_opts_init(void *p)
{
	struct bmc_opts	*o = p;

	o->timeout_s = 60;
	o->connect_timeout_s = 10;
	o->wait_s = 300;
	o->parallel = 128;
}

static void
cmd_bmc_actions(FILE *fp)
{
	size_t	i;
	char	left[48];

	fprintf(fp, "actions:\n");
	for (i = 0; i < ARRAY_SIZE(bmc_verbs); i++) {
		snprintf(left, sizeof left, "%s %s", bmc_verbs[i].name,
		    bmc_verbs[i].args);
		fprintf(fp, "  %-28s %s\n", left, bmc_verbs[i].summary);
	}
}

static int cmd_bmc_usage(struct cmd_ctx *, const char *, ...)
    __attribute__((format(printf, 2, 3)));

static int
cmd_bmc_usage(struct cmd_ctx *ctx, const char *fmt, ...)
{
	va_list	ap;

	fprintf(ctx->err, "%s %s: ", ctx->prog, ctx->cmd->name);
	va_start(ap, fmt);
	vfprintf(ctx->err, fmt, ap);
	va_end(ap);
	fputc('\n', ctx->err);
	cmd_usage(&cmd_bmc_entry, ctx->err);
	cmd_bmc_actions(ctx->err);
	return PROV_EXIT_USAGE;
}

static int
cmd_bmc_parse_none(struct cmd_ctx *ctx, struct redfish_opts *ro, int argc,
    char **argv)
{
	if (argc > 1)
		return cmd_bmc_usage(ctx, "unexpected argument '%s'", argv[1]);
	return 0;
}

static int
cmd_bmc_parse_boot(struct cmd_ctx *ctx, struct redfish_opts *ro, int argc,
    char **argv)
{
	static const char *const words[] = { "pxe", "cd", "disk", NULL };
	static const char *const targets[] = { "Pxe", "Cd", "Hdd" };
	size_t	i;

	if (argc < 2)
		return cmd_bmc_usage(ctx, "boot needs a target: pxe, cd or "
		    "disk");
	if (argc > 2)
		return cmd_bmc_usage(ctx, "unexpected argument '%s'", argv[2]);
	for (i = 0; words[i] != NULL; i++)
		if (strcmp(argv[1], words[i]) == 0) {
			ro->boot = targets[i];
			return 0;
		}
	return cmd_bmc_usage(ctx, "unknown boot target '%s' (pxe, cd or disk)",
	    argv[1]);
}

static int
cmd_bmc_parse_media(struct cmd_ctx *ctx, struct redfish_opts *ro, int argc,
    char **argv)
{
	if (argc >= 2 && strcmp(argv[1], "eject") == 0) {
		if (argc > 2)
			return cmd_bmc_usage(ctx, "unexpected argument '%s'",
			    argv[2]);
		ro->action = REDFISH_MEDIA_EJECT;
		return 0;
	}
	if (argc >= 2 && strcmp(argv[1], "insert") == 0) {
		if (argc < 3)
			return cmd_bmc_usage(ctx, "media insert needs the "
			    "image URL");
		if (argc > 3)
			return cmd_bmc_usage(ctx, "unexpected argument '%s'",
			    argv[3]);
		if (strstr(argv[2], "://") == NULL)
			return cmd_bmc_usage(ctx, "'%s' is not a URL (e.g. "
			    "http://host/image.iso)", argv[2]);
		ro->action = REDFISH_MEDIA_INSERT;
		ro->media_url = argv[2];
		return 0;
	}
	return cmd_bmc_usage(ctx, "media needs 'insert URL' or 'eject'");
}

static const struct bmc_verb *
cmd_bmc_verb(const char *name)
{
	size_t	i;

	for (i = 0; i < ARRAY_SIZE(bmc_verbs); i++)
		if (strcmp(bmc_verbs[i].name, name) == 0)
			return &bmc_verbs[i];
	return NULL;
}

/* "127.0.50.1", "127.0.50.1:8443", "[fd00::1]:8443" */
static char *
cmd_bmc_where(const struct plan_bmc *bmc)
{
	int	v6 = strchr(bmc->address, ':') != NULL &&
	    bmc->address[0] != '[';

	if (bmc->port > 0 && bmc->port != 443)
		return xasprintf(v6 ? "[%s]:%ld" : "%s:%ld", bmc->address,
		    bmc->port);
	return xstrdup(bmc->address);
}

struct bmc_row {
	const struct plan_node	*nd;		/* NULL: a rack PDU */
	char			*name;		/* node, or "r01 PDU 1 (A)" */
	char			*where;
	struct rows		 rows;
	int			 ok;
	const char		*result;	/* "ok" "FAILED" "drift" */
	char			*text;		/* the DETAIL column */
};

static void
cmd_bmc_text(struct bmc_row *row, const struct redfish_bmc *b)
{
	struct buf	t = BUF_INIT;

	if (b->insecure)
		buf_adds(&t, BMC_INSECURE_NOTE "; ");
	if (b->auth != NULL && strcmp(b->auth, "basic") == 0)
		buf_addf(&t, "basic auth (%s); ", b->auth_why);
	if (b->system_id != NULL && b->ppdu == NULL)
		buf_addf(&t, "system %s: ", b->system_id);
	if (row->ok || (b->ok && row->rows.n > 0))
		buf_adds(&t, b->detail ? b->detail : "");
	else {
		buf_adds(&t, b->err.msg ? b->err.msg : "failed");
		if (b->err.hint != NULL)
			buf_addf(&t, " (%s)", b->err.hint);
	}
	row->text = buf_detach(&t, NULL);
}

static void
cmd_bmc_json_pdu(struct json_writer *jw, const struct redfish_pdu *pd)
{
	size_t	i;

	json_object_begin(jw, "pdu", 0);
	json_str(jw, "id", pd->id);
	json_num(jw, "watts", pd->watts, -1);
	json_num(jw, "mains_watts", pd->mains_watts, -1);
	json_num(jw, "volts", pd->volts, -1);
	json_num(jw, "outlets_watts", pd->outlets_watts, -1);
	json_array_begin(jw, "branches", 0);
	for (i = 0; i < pd->nbranches; i++) {
		json_object_begin(jw, NULL, 0);
		json_str(jw, "id", pd->branches[i].id);
		json_num(jw, "amps", pd->branches[i].amps, -1);
		json_num(jw, "rated_amps", pd->branches[i].rated_amps, -1);
		json_end(jw);
	}
	json_end(jw);
	json_end(jw);
}

static void
cmd_bmc_json_row(struct json_writer *jw, const struct bmc_row *row,
    const struct redfish_bmc *v, const struct redfish_opts *ro)
{
	json_object_begin(jw, NULL, 0);
	if (row->nd != NULL)
		json_str(jw, "node", row->nd->name);
	else {
		json_str(jw, "rack", v->rack->name);
		json_str(jw, "feed", v->ppdu->feed);
	}
	json_str(jw, "bmc", row->where);
	json_bool(jw, "ok", row->ok);
	json_str(jw, "result", row->result);
	json_bool(jw, "tls_verified", !v->insecure);
	if (v->insecure)
		json_str(jw, "tls_note", BMC_INSECURE_NOTE);
	json_str(jw, "detail", v->detail);
	if (v->err.msg != NULL && !v->ok) {
		json_object_begin(jw, "error", 0);
		json_str(jw, "message", v->err.msg);
		json_str(jw, "hint", v->err.hint);
		json_end(jw);
	} else
		json_null(jw, "error");
	if (v->auth != NULL)
		json_str(jw, "auth", v->auth);
	if (v->auth_why != NULL)
		json_str(jw, "auth_why", v->auth_why);
	if (v->system != NULL)
		json_str(jw, "system", v->system);
	if (v->power != NULL)
		json_str(jw, "power_state", v->power);
	if (v->boot_target != NULL || v->boot_enabled != NULL) {
		json_object_begin(jw, "boot", 0);
		json_str(jw, "target", v->boot_target);
		json_str(jw, "enabled", v->boot_enabled);
		json_end(jw);
	}
	if (v->media_slot != NULL) {
		json_object_begin(jw, "media", 0);
		json_str(jw, "slot", v->media_slot);
		json_str(jw, "image", v->media_image);
		json_end(jw);
	}
	if (ro->action == REDFISH_INVENTORY && v->ok) {
		redfish_inv_to_json(jw, "inventory", &v->inv);
		rows_to_json(jw, "drift", &row->rows);
	}
	if (ro->action == REDFISH_POWER && v->ok && row->nd != NULL) {
		redfish_inv_to_json(jw, "inventory", &v->inv);
		rows_to_json(jw, "power", &row->rows);
	}
	if (ro->action == REDFISH_POWER && v->ok && row->nd == NULL)
		cmd_bmc_json_pdu(jw, &v->pdu);
	json_int(jw, "requests", v->requests);
	json_end(jw);
}

/* What each BMC's row came to. */
struct bmc_tally {
	size_t	ok, failed, insecure;
	size_t	wname, wbmc;	/* the widths of the NODE and BMC columns */
};

/* The action and its flags into ro; PROV_EXIT_USAGE (said) when wrong. */
static int
cmd_bmc_options(struct cmd_ctx *ctx, const struct bmc_opts *o, int argc,
    char **argv, struct redfish_opts *ro)
{
	const struct bmc_verb	*verb;
	size_t			 i;

	if (argc == 0)
		return cmd_bmc_usage(ctx, "missing action");
	if ((verb = cmd_bmc_verb(argv[0])) == NULL) {
		const char	*names[ARRAY_SIZE(bmc_verbs) + 1], *near;

		for (i = 0; i < ARRAY_SIZE(bmc_verbs); i++)
			names[i] = bmc_verbs[i].name;
		names[i] = NULL;
		near = str_suggest(argv[0], names);
		if (near != NULL) {
			cmd_errorf(ctx, "unknown action '%s' "
			    "(did you mean '%s'?)", argv[0], near);
			cmd_usage(&cmd_bmc_entry, ctx->err);
			return PROV_EXIT_USAGE;
		}
		return cmd_bmc_usage(ctx, "unknown action '%s'", argv[0]);
	}
	ro->action = verb->action;
	if (verb->parse(ctx, ro, argc, argv) != 0)
		return PROV_EXIT_USAGE;
	if (o->once && ro->action != REDFISH_BOOT)
		return cmd_bmc_usage(ctx, "--once is for 'boot'");
	if (o->graceful && ro->action != REDFISH_OFF &&
	    ro->action != REDFISH_RESET)
		return cmd_bmc_usage(ctx, "--graceful is for 'off' and "
		    "'reset'");
	if (o->timeout_s < 1 || o->connect_timeout_s < 1 || o->wait_s < 1 ||
	    o->parallel < 1)
		return cmd_bmc_usage(ctx, "--timeout, --connect-timeout, "
		    "--wait and --parallel need a number above 0");
	ro->once = o->once;
	ro->graceful = o->graceful;
	ro->basic_auth = o->basic;
	ro->timeout_ms = o->timeout_s * 1000;
	ro->connect_timeout_ms = o->connect_timeout_s * 1000;
	ro->wait_ms = o->wait_s * 1000;
	ro->max_active = (size_t)o->parallel;
	return 0;
}

/* Each BMC's row from its answer (inventory: compared with the plan). */
static void
cmd_bmc_judge(struct bmc_row *rows, struct redfish_bmc *v, size_t n,
    const struct redfish_opts *ro, const struct plan *p,
    struct bmc_tally *t)
{
	size_t	i;

	for (i = 0; i < n; i++) {
		struct bmc_row	*row = &rows[i];

		row->ok = v[i].ok;
		row->result = v[i].ok ? "ok" : "FAILED";
		if (v[i].ok && ro->action == REDFISH_INVENTORY) {
			redfish_compare(&row->rows, row->nd, &v[i].inv,
			    p->catalog);
			if (rows_count(&row->rows, ROW_FAIL) > 0) {
				row->ok = 0;
				row->result = "drift";
			}
		}
		if (v[i].ok && ro->action == REDFISH_POWER && row->nd != NULL) {
			redfish_compare_power(&row->rows, p, row->nd,
			    &v[i].inv);
			if (rows_count(&row->rows, ROW_WARN) > 0)
				row->result = "warn";
		}
		cmd_bmc_text(row, &v[i]);
		if (row->ok)
			t->ok++;
		else
			t->failed++;
		if (v[i].insecure)
			t->insecure++;
		if (strlen(row->name) > t->wname)
			t->wname = strlen(row->name);
		if (strlen(row->where) > t->wbmc)
			t->wbmc = strlen(row->where);
	}
}

static void
cmd_bmc_print_json(struct cmd_ctx *ctx, const struct bmc_row *rows,
    const struct redfish_bmc *v, size_t n, const struct redfish_opts *ro,
    const struct bmc_tally *t, const struct rows *feeds)
{
	struct json_writer	jw;
	struct buf		b = BUF_INIT;
	size_t			i;

	json_init(&jw, &b);
	json_object_begin(&jw, NULL, 0);
	json_str(&jw, "action", redfish_action_name(ro->action));
	json_array_begin(&jw, "results", JSON_LINES);
	for (i = 0; i < n; i++) {
		cmd_bmc_json_row(&jw, &rows[i], &v[i], ro);
		if (b.len > 65536) {
			fwrite(b.buf, 1, b.len, ctx->out);
			buf_reset(&b);
		}
	}
	json_end(&jw);
	if (ro->action == REDFISH_POWER)
		rows_to_json(&jw, "feeds", feeds);
	json_int(&jw, "ok", (long long)t->ok);
	json_int(&jw, "failed", (long long)t->failed);
	json_int(&jw, "tls_not_verified", (long long)t->insecure);
	json_end(&jw);
	json_finish(&jw);
	fwrite(b.buf, 1, b.len, ctx->out);
	buf_release(&b);
}

/* A line a BMC, then the inventory's rows, then the count. */
static void
cmd_bmc_print_text(struct cmd_ctx *ctx, struct bmc_row *rows, size_t n,
    const struct redfish_opts *ro, const struct bmc_tally *t,
    struct rows *feeds)
{
	struct rows		drift = ROWS_INIT;
	struct cmd_rows_view	view = { "NODE", "CHECK", "FOUND", "EXPECTED",
				    NULL, 0 };
	size_t			i;

	fprintf(ctx->out, "%-*s  %-*s  %-6s  %s\n", (int)t->wname, "NODE",
	    (int)t->wbmc, "BMC", "RESULT", "DETAIL");
	for (i = 0; i < n; i++) {
		fprintf(ctx->out, "%-*s  %-*s  %-6s  %s\n", (int)t->wname,
		    rows[i].name, (int)t->wbmc, rows[i].where,
		    rows[i].result, rows[i].text);
		rows_append(&drift, &rows[i].rows);
	}
	rows_append(&drift, feeds);
	if (drift.n > 0) {
		fputc('\n', ctx->out);
		cmd_rows_print(ctx, &drift, &view);
	}
	fprintf(ctx->out, "%s: %zu ok, %zu failed",
	    redfish_action_name(ro->action), t->ok, t->failed);
	if (ro->action == REDFISH_POWER)
		fprintf(ctx->out, ", %zu warning%s", rows_count(&drift,
		    ROW_WARN), rows_count(&drift, ROW_WARN) == 1 ? "" : "s");
	if (t->insecure > 0)
		fprintf(ctx->out, "; %zu BMC%s with " BMC_INSECURE_NOTE,
		    t->insecure, t->insecure == 1 ? "" : "s");
	fputc('\n', ctx->out);
	rows_release(&drift);
}

/* The rack PDUs with their own Redfish, after the nodes' BMCs in *v. */
static int
cmd_bmc_add_pdus(struct redfish_bmc **v, size_t *n, const struct plan *p,
    const char *nodes, struct prov_err *err)
{
	struct redfish_bmc	*pv = NULL;
	size_t			 pn = 0;

	if (redfish_pdus_from_plan(&pv, &pn, p, nodes, err) != 0)
		return -1;
	if (pn > 0) {
		*v = xreallocarray(*v, *n + pn, sizeof **v);
		memcpy(*v + *n, pv, pn * sizeof *pv);
		*n += pn;
	}
	free(pv);
	return 0;
}

/* Each feed of a rack with a PDU read: its PDUs against its limit. */
static void
cmd_bmc_feeds(struct rows *out, const struct plan *p,
    const struct redfish_bmc *v, size_t n)
{
	static const char *const feeds[] = { "A", "B", "C", "D" };
	size_t	 i, j, k, f;

	for (i = 0; i < p->nracks; i++) {
		const struct plan_rack	 *rk = &p->racks[i];
		const struct redfish_pdu **pd;
		int			  any = 0;

		pd = xcalloc(rk->npdus + 1, sizeof *pd);
		for (j = 0; j < rk->npdus; j++)
			for (k = 0; k < n; k++)
				if (v[k].ppdu == &rk->pdus[j]) {
					any = 1;
					if (v[k].ok)
						pd[j] = &v[k].pdu;
				}
		for (f = 0; any && f < ARRAY_SIZE(feeds); f++) {
			for (j = 0; j < rk->npdus; j++)
				if (strcmp(rk->pdus[j].feed, feeds[f]) == 0)
					break;
			if (j < rk->npdus)
				redfish_compare_feed(out, p, rk, feeds[f], pd);
		}
		free(pd);
	}
}

static int
cmd_bmc_exec(struct cmd_ctx *ctx, void *optsp, int argc, char **argv)
{
	struct bmc_opts		*o = optsp;
	struct plan		*p = ctx->plan;
	struct redfish_opts	 ro = REDFISH_OPTS_INIT;
	struct redfish_bmc	*v = NULL;
	struct bmc_row		*rows = NULL;
	struct rows		 feeds = ROWS_INIT;
	struct bmc_tally	 t = { 0, 0, 0, 4, 3 };
	struct prov_err		 err = PROV_ERR_INIT;
	size_t			 i, n = 0;
	int			 r = PROV_EXIT_USAGE;

	if (cmd_bmc_options(ctx, o, argc, argv, &ro) != 0)
		return PROV_EXIT_USAGE;
	if (redfish_bmcs_from_plan(&v, &n, p, o->nodes, &err) != 0) {
		cmd_error(ctx, &err);
		goto out;
	}
	if (ro.action == REDFISH_POWER && cmd_bmc_add_pdus(&v, &n, p,
	    o->nodes, &err) != 0) {
		cmd_error(ctx, &err);
		goto out;
	}
	if (n == 0) {
		cmd_errorf(ctx, "no node %shas a 'bmc:' entry in %s",
		    o->nodes ? "of the selection " : "", ctx->plan_path);
		goto out;
	}
	rows = xcalloc(n, sizeof *rows);
	for (i = 0; i < n; i++) {
		const struct plan_bmc	*bmc = v[i].ppdu != NULL ?
		    v[i].ppdu->redfish : v[i].pn->bmc;

		rows[i].nd = v[i].pn;
		rows[i].rows = (struct rows)ROWS_INIT;
		rows[i].where = bmc != NULL ? cmd_bmc_where(bmc) :
		    xstrdup("-");
		rows[i].name = v[i].ppdu != NULL ? xasprintf("%s PDU %zu (%s)",
		    v[i].rack->name, (size_t)(v[i].ppdu - v[i].rack->pdus) + 1,
		    v[i].ppdu->feed) : xstrdup(v[i].pn->name);
	}
	if (redfish_run(v, n, &ro, &err) != 0) {
		cmd_error(ctx, &err);
		r = PROV_EXIT_FAIL;
		goto out;
	}
	cmd_bmc_judge(rows, v, n, &ro, p, &t);
	if (ro.action == REDFISH_POWER)
		cmd_bmc_feeds(&feeds, p, v, n);
	if (o->json)
		cmd_bmc_print_json(ctx, rows, v, n, &ro, &t, &feeds);
	else
		cmd_bmc_print_text(ctx, rows, n, &ro, &t, &feeds);
	r = t.failed > 0 ? PROV_EXIT_FAIL : PROV_EXIT_OK;
out:
	for (i = 0; v != NULL && i < n; i++)
		redfish_bmc_release(&v[i]);	/* wipes the passwords */
	for (i = 0; rows != NULL && i < n; i++) {
		free(rows[i].where);
		free(rows[i].name);
		free(rows[i].text);
		rows_release(&rows[i].rows);
	}
	free(v);
	free(rows);
	rows_release(&feeds);
	prov_err_release(&err);
	return r;
}

/*
 * ls.c: `provision ls PLAN`: the plan's nodes, ranges expanded.
 *
 * The table a user checks before anything runs: every node with its role,
 * hardware model, rack position and address; `--json` for scripts (the
 * local testbed reads it).  Output is streamed: a plan of 100,000 nodes
 * prints without building anything beyond the plan itself.
 */
#include "compat.h"

#include "buf.h"
#include "cmd.h"
#include "json.h"
#include "hostlist.h"

struct ls_opts {
	int		 json;
	const char	*nodes;
};

static const struct opt_spec ls_opts_spec[] = {
	{ "json", 0, OPT_BOOL, offsetof(struct ls_opts, json), NULL,
	  "print JSON: {\"cluster\", \"networks\", \"nodes\": [ ... ]}" },
	{ "nodes", 'n', OPT_STR, offsetof(struct ls_opts, nodes), "NODESET",
	  "only these nodes (hostlist, e.g. gpu[01-04])" },
	{ NULL, 0, OPT_END, 0, NULL, NULL }
};

static int cmd_ls_exec(struct cmd_ctx *, void *, int, char **);

const struct cmd_entry cmd_ls_entry = {
	.name = "ls",
	.alias = "nodes",
	.usage = "[--json] [-n NODESET] PLAN",
	.summary = "list the plan's nodes with role, hardware, rack position "
	    "and address",
	.opts = ls_opts_spec,
	.opts_size = sizeof(struct ls_opts),
	.flags = CMD_LOADS_PLAN,
	.exec = cmd_ls_exec,
};

static void
cmd_ls_json(struct json_writer *jw, const struct plan_node *nd)
{
	size_t	i;

	json_object_begin(jw, NULL, 0);
	json_str(jw, "name", nd->name);
	json_str(jw, "role", plan_role_name(nd->role));
	json_str(jw, "hardware", nd->hardware);
	json_str(jw, "rack", nd->rack);
	if (nd->u > 0)
		json_int(jw, "u", nd->u);
	else
		json_null(jw, "u");
	json_str(jw, "address", nd->address);
	if (nd->mac != NULL)
		json_str(jw, "mac", nd->mac);
	if (nd->nifaces > 0) {
		json_object_begin(jw, "interfaces", 0);
		for (i = 0; i < nd->nifaces; i++)
			json_str(jw, nd->ifaces[i].network,
			    nd->ifaces[i].address);
		json_end(jw);
	}
	if (nd->bmc != NULL)
		json_str(jw, "bmc", nd->bmc->address);
	if (nd->vm.memory_mib > 0 || nd->vm.cpus > 0) {
		json_object_begin(jw, "vm", 0);
		if (nd->vm.memory_mib > 0)
			json_int(jw, "memory_mib", nd->vm.memory_mib);
		else
			json_null(jw, "memory_mib");
		if (nd->vm.cpus > 0)
			json_int(jw, "cpus", nd->vm.cpus);
		else
			json_null(jw, "cpus");
		json_end(jw);
	}
	json_end(jw);
}

/* The networks, so that a testbed can give each node one NIC per network. */
static void
cmd_ls_json_nets(struct json_writer *jw, const struct plan *p)
{
	size_t	i;

	json_object_begin(jw, "networks", 0);
	for (i = 0; i < p->nnets; i++) {
		json_object_begin(jw, p->nets[i].name, 0);
		json_str(jw, "cidr", p->nets[i].cidr);
		json_str(jw, "role", p->nets[i].role);
		json_end(jw);
	}
	json_end(jw);
}

static int
cmd_ls_exec(struct cmd_ctx *ctx, void *optsp, int argc, char **argv)
{
	struct ls_opts		 *o = optsp;
	struct plan		 *p = ctx->plan;
	struct plan_node	**sel = NULL;
	struct prov_err		  err = PROV_ERR_INIT;
	struct buf		  b = BUF_INIT;
	struct json_writer	  jw;
	size_t			  i, n, wname = 4, whw = 8;
	int			  r = PROV_EXIT_USAGE;

	if (argc > 0)
		return cmd_usage_error(ctx, &cmd_ls_entry, "unexpected "
		    "argument '%s'", argv[0]);
	/* -n, else every node */
	if (plan_select(&sel, &n, p, o->nodes, &err) != 0) {
		cmd_error(ctx, &err);
		goto out;
	}
	if (o->json) {
		json_init(&jw, &b);
		json_object_begin(&jw, NULL, 0);
		json_str(&jw, "cluster", p->cluster);
		cmd_ls_json_nets(&jw, p);
		json_array_begin(&jw, "nodes", JSON_LINES);
		for (i = 0; i < n; i++) {
			cmd_ls_json(&jw, sel[i]);
			/* a plan of 100,000 nodes streams */
			if (b.len > 65536) {
				fwrite(b.buf, 1, b.len, ctx->out);
				buf_reset(&b);
			}
		}
		json_end(&jw);
		json_end(&jw);
		json_finish(&jw);
		fwrite(b.buf, 1, b.len, ctx->out);
		r = 0;
		goto out;
	}
	for (i = 0; i < n; i++) {
		size_t	l = strlen(sel[i]->name);

		wname = l > wname ? l : wname;
		l = sel[i]->hardware ? strlen(sel[i]->hardware) : 1;
		whw = l > whw ? l : whw;
	}
	fprintf(ctx->out, "%-*s  %-7s  %-*s  %-10s  %s\n", (int)wname, "NODE",
	    "ROLE", (int)whw, "HARDWARE", "RACK/U", "ADDRESS");
	for (i = 0; i < n; i++) {
		struct plan_node	*nd = sel[i];
		char			 pos[64];

		if (nd->rack != NULL && nd->u > 0)
			snprintf(pos, sizeof pos, "%s/U%ld", nd->rack, nd->u);
		else
			snprintf(pos, sizeof pos, "%s", nd->rack ? nd->rack : "-");
		fprintf(ctx->out, "%-*s  %-7s  %-*s  %-10s  %s\n", (int)wname,
		    nd->name, plan_role_name(nd->role), (int)whw,
		    nd->hardware ? nd->hardware : "-", pos,
		    nd->address ? nd->address : "-");
	}
	fprintf(ctx->out, "%zu node%s\n", n, n == 1 ? "" : "s");
	r = 0;
out:
	prov_err_release(&err);
	buf_release(&b);
	free(sel);
	return r;
}

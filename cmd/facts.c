/*
 * facts.c: `provision facts`: what nodes really have, and their drift
 * from the plan.
 *
 *	provision facts --local [--json]		this machine
 *	provision facts --local [--json] PLAN -n NODE	... compared with NODE
 *	provision facts PLAN [-n NODESET] [--json] [--run-dir DIR]
 *	provision facts PLAN [-n NODESET] --from DIR	saved facts, again
 *	provision facts --read FILE... [PLAN -n NODE]	saved tool outputs
 *
 * Over SSH every node runs one script (facts_script()) that prints all
 * raw outputs in sections; they are parsed here with the same parsers
 * `--local` uses, saved as RUN_DIR/facts/NODE.json, and compared with the
 * plan.  Exit 1 when any comparison fails or a node could not be read.
 */
#include "compat.h"

#include <errno.h>
#include <sys/stat.h>
#include <time.h>

#include "buf.h"
#include "catalog.h"
#include "cmd.h"
#include "facts.h"
#include "fs.h"
#include "hw.h"
#include "json.h"
#include "row.h"

struct facts_opts {
	int		 local;
	int		 json;
	const char	*nodes;
	const char	*run_dir;
	const char	*from;
	long		 forks;
	const char	*pci_ids;
	struct strvec	 read;
};

static const struct opt_spec facts_opts_spec[] = {
	{ "local", 0, OPT_BOOL, offsetof(struct facts_opts, local), NULL,
	  "read this machine (libpci, /proc, /sys, nvidia-smi)" },
	{ "json", 0, OPT_BOOL, offsetof(struct facts_opts, json), NULL,
	  "print JSON" },
	{ "nodes", 'n', OPT_STR, offsetof(struct facts_opts, nodes), "NODESET",
	  "only these nodes (hostlist, e.g. gpu[01-04])" },
	{ "run-dir", 0, OPT_STR, offsetof(struct facts_opts, run_dir), "DIR",
	  "save facts in DIR/facts/NODE.json (default runs/TIMESTAMP)" },
	{ "from", 0, OPT_STR, offsetof(struct facts_opts, from), "DIR",
	  "compare facts saved earlier (DIR/NODE.json) instead of connecting" },
	{ "forks", 0, OPT_LONG, offsetof(struct facts_opts, forks), "N",
	  "nodes at once (default: the plan's ssh.forks)" },
	{ "pci-ids", 0, OPT_STR, offsetof(struct facts_opts, pci_ids), "FILE",
	  "pci.ids file for device names (default: libpci's)" },
	{ "read", 0, OPT_LIST, offsetof(struct facts_opts, read), "FILE",
	  "read a saved output (nvidia-smi -q/-q -x/CSV/-L, lspci, ibstat, "
	  "meminfo, cpuinfo, lscpu, os-release) instead of a machine; "
	  "repeatable" },
	{ NULL, 0, OPT_END, 0, NULL, NULL }
};

static int cmd_facts_exec(struct cmd_ctx *, void *, int, char **);

const struct cmd_entry cmd_facts_entry = {
	.name = "facts",
	.usage = "--local [--json] | --read FILE... [--json] | PLAN [-n "
	    "NODESET] [--json] [--run-dir DIR] [--from DIR]",
	.summary = "gather what nodes really have (PCI links, GPUs, NICs, "
	    "memory) and show drift from the plan",
	.opts = facts_opts_spec,
	.opts_size = sizeof(struct facts_opts),
	.flags = CMD_LOADS_PLAN | CMD_PLAN_OPTIONAL,
	.exec = cmd_facts_exec,
};

/* ------------------------------------------------------------------ */
/* Showing facts */

static void
cmd_facts_link(char *out, size_t outsz, const struct facts_link *l)
{
	long	g = facts_gen_of_speed(l->speed);
	long	mg = facts_gen_of_speed(l->max_speed);

	if (l->speed < 0 && l->max_speed < 0 && l->width < 0) {
		snprintf(out, outsz, "-");
		return;
	}
	snprintf(out, outsz, "Gen%ld x%ld (max Gen%ld x%ld)", g, l->width,
	    mg, l->max_width);
}

static const char *
cmd_facts_s(const char *s)
{
	return s != NULL ? s : "-";
}

/* The NUMA node of the device in `slot`: "-" when unknown or none. */
static const char *
cmd_facts_numa(char *num, size_t numsz, const struct facts *f,
    const char *slot)
{
	const struct facts_pci	*d;

	if (slot == NULL || (d = facts_pci_find(f, slot)) == NULL ||
	    d->numa_node < 0)
		return "-";
	snprintf(num, numsz, "%ld", d->numa_node);
	return num;
}

/* Every PCI device, named through pci.ids where it knows it. */
static void
cmd_facts_print_pci(FILE *fp, const struct facts *f)
{
	size_t	i;
	char	link[64], id[40];

	fprintf(fp, "\nPCI devices (%zu)\n", f->npci);
	fprintf(fp, "  %-13s %-28s %-10s %-40s %s\n", "SLOT", "CLASS",
	    "ID", "NAME", "LINK");
	for (i = 0; i < f->npci; i++) {
		const struct facts_pci	*d = &f->pci[i];
		char			 name[160];

		if (d->vendor_id < 0)
			snprintf(id, sizeof id, "-");
		else if (d->device_id < 0)
			snprintf(id, sizeof id, "%04lx:-", d->vendor_id);
		else
			snprintf(id, sizeof id, "%04lx:%04lx", d->vendor_id,
			    d->device_id);
		snprintf(name, sizeof name, "%s%s%s",
		    d->vendor_name ? d->vendor_name : "",
		    d->vendor_name ? " " : "",
		    d->device_name ? d->device_name : "(not in pci.ids)");
		cmd_facts_link(link, sizeof link, &d->link);
		fprintf(fp, "  %-13s %-28.28s %-10s %-40.40s %s\n", d->slot,
		    cmd_facts_s(d->class_name), id, name, link);
	}
}

/* The GPUs as the driver sees them, with the NUMA node of each. */
static void
cmd_facts_print_gpus(FILE *fp, const struct facts *f)
{
	size_t	i;
	char	link[64], id[40];

	if (f->ngpus > 0) {
		fprintf(fp, "\nGPUs (%zu)\n", f->ngpus);
		fprintf(fp, "  %-3s %-13s %-30s %-10s %-10s %-8s %-4s %-8s "
		    "%s\n", "IDX", "BUS", "NAME", "MEMORY", "DRIVER", "PERSIST",
		    "NUMA", "MIG", "PCIE");
		for (i = 0; i < f->ngpus; i++) {
			const struct facts_gpu	*g = &f->gpus[i];
			char			 mem[32];

			if (g->memory_mib >= 0)
				snprintf(mem, sizeof mem, "%ld MiB",
				    g->memory_mib);
			else
				snprintf(mem, sizeof mem, "-");
			if (g->gen >= 0)
				snprintf(link, sizeof link, "Gen%ld x%ld (max "
				    "Gen%ld x%ld)", g->gen, g->width,
				    g->max_gen, g->max_width);
			else
				snprintf(link, sizeof link, "-");
			fprintf(fp, "  %-3ld %-13s %-30.30s %-10s %-10s %-8s "
			    "%-4s %-8s %s\n", g->index, cmd_facts_s(g->bus_id),
			    cmd_facts_s(g->name), mem,
			    cmd_facts_s(g->driver_version),
			    cmd_facts_s(g->persistence),
			    cmd_facts_numa(id, sizeof id, f, g->bus_id),
			    cmd_facts_s(g->mig_mode), link);
		}
	}
}

/* Network interfaces, with the NUMA node of their PCI device. */
static void
cmd_facts_print_nics(FILE *fp, const struct facts *f)
{
	size_t	i;
	char	id[40];

	if (f->nnics > 0) {
		fprintf(fp, "\nNICs (%zu)\n", f->nnics);
		fprintf(fp, "  %-16s %-12s %-6s %-8s %-18s %-13s %s\n", "NAME",
		    "SPEED", "MTU", "STATE", "MAC", "PCI", "NUMA");
		for (i = 0; i < f->nnics; i++) {
			const struct facts_nic	*n = &f->nics[i];
			char			 sp[32];

			if (n->speed_mbps >= 0)
				snprintf(sp, sizeof sp, "%ld Mb/s",
				    n->speed_mbps);
			else
				snprintf(sp, sizeof sp, "-");
			fprintf(fp, "  %-16s %-12s %-6ld %-8s %-18s %-13s %s\n",
			    n->name, sp, n->mtu, cmd_facts_s(n->state),
			    cmd_facts_s(n->mac), cmd_facts_s(n->pci_slot),
			    cmd_facts_numa(id, sizeof id, f, n->pci_slot));
		}
	}
}

/* InfiniBand ports as ibstat reports them. */
static void
cmd_facts_print_ib(FILE *fp, const struct facts *f)
{
	size_t	i;

	if (f->nib > 0) {
		fprintf(fp, "\nInfiniBand ports (%zu)\n", f->nib);
		fprintf(fp, "  %-12s %-5s %-8s %-10s %-10s %s\n", "CA", "PORT",
		    "STATE", "PHYS", "RATE", "LAYER");
		for (i = 0; i < f->nib; i++) {
			const struct facts_ib	*p = &f->ib[i];
			char			 rate[32];

			if (p->rate_gbps >= 0)
				snprintf(rate, sizeof rate, "%g Gb/s",
				    p->rate_gbps);
			else
				snprintf(rate, sizeof rate, "-");
			fprintf(fp, "  %-12s %-5ld %-8s %-10s %-10s %s\n",
			    p->ca, p->port, cmd_facts_s(p->state),
			    cmd_facts_s(p->phys_state), rate,
			    cmd_facts_s(p->link_layer));
		}
	}
}

static void
cmd_facts_print(FILE *fp, const struct facts *f)
{
	size_t	i;

	fprintf(fp, "node     %s\n", cmd_facts_s(f->node));
	fprintf(fp, "os       %s (%s %s)\n", cmd_facts_s(f->os_pretty),
	    cmd_facts_s(f->os_id), cmd_facts_s(f->os_version_id));
	fprintf(fp, "kernel   %s\n", cmd_facts_s(f->kernel));
	if (f->cpu_threads < 0 && f->cpu_model == NULL)
		fprintf(fp, "cpu      - (%s)\n", cmd_facts_s(f->arch));
	else
		fprintf(fp, "cpu      %s (%s): %ld socket%s, %ld cores, %ld "
		    "threads\n", cmd_facts_s(f->cpu_model),
		    cmd_facts_s(f->arch), f->cpu_sockets, f->cpu_sockets == 1 ?
		    "" : "s", f->cpu_cores, f->cpu_threads);
	if (f->mem_kb >= 0 && f->hugepages_kb > 0)
		fprintf(fp, "memory   %.1f GiB (MemTotal %lld kB), %.1f GiB of "
		    "it in huge pages\n", (double)f->mem_kb / (1024.0 * 1024.0),
		    f->mem_kb, (double)f->hugepages_kb / (1024.0 * 1024.0));
	else if (f->mem_kb >= 0)
		fprintf(fp, "memory   %.1f GiB (MemTotal %lld kB)\n",
		    (double)f->mem_kb / (1024.0 * 1024.0), f->mem_kb);
	else
		fprintf(fp, "memory   -\n");

	cmd_facts_print_pci(fp, f);
	cmd_facts_print_gpus(fp, f);
	cmd_facts_print_nics(fp, f);
	cmd_facts_print_ib(fp, f);
	if (f->ndisks > 0) {
		fprintf(fp, "\nDisks (%zu)\n", f->ndisks);
		for (i = 0; i < f->ndisks; i++) {
			const struct facts_disk	*d = &f->disks[i];

			fprintf(fp, "  %-12s %10.1f GB  %-4s %s\n", d->name,
			    d->size_bytes >= 0 ? (double)d->size_bytes / 1e9 :
			    0.0, d->rotational == 1 ? "hdd" :
			    d->rotational == 0 ? "ssd" : "-",
			    cmd_facts_s(d->model));
		}
	}
	if (f->notes.n > 0) {
		fprintf(fp, "\nnotes\n");
		for (i = 0; i < f->notes.n; i++)
			fprintf(fp, "  - %s\n", f->notes.v[i]);
	}
}

static void
cmd_facts_rows_print(struct cmd_ctx *ctx, const struct rows *rows)
{
	static const struct cmd_rows_view	view = { "NODE", "CHECK", "FOUND",
						    "EXPECTED", NULL, 0 };

	cmd_rows_print(ctx, rows, &view);
}

/* "N nodes: a ok, b warn, c fail, d skip" */
static void
cmd_facts_summary(FILE *fp, size_t nodes, const struct rows *rows,
    const char *saved)
{
	fprintf(fp, "%zu node%s: %zu ok, %zu warn, %zu fail, %zu skip",
	    nodes, nodes == 1 ? "" : "s", rows_count(rows, ROW_OK),
	    rows_count(rows, ROW_WARN),
	    rows_count(rows, ROW_FAIL),
	    rows_count(rows, ROW_SKIP));
	if (saved != NULL)
		fprintf(fp, "; facts in %s", saved);
	fputc('\n', fp);
}

static void
cmd_facts_rows_json(FILE *fp, size_t nodes, const struct rows *rows,
    const char *saved)
{
	struct buf		b = BUF_INIT;
	struct json_writer	jw;

	json_init(&jw, &b);
	json_object_begin(&jw, NULL, 0);
	rows_to_json(&jw, "rows", rows);
	json_object_begin(&jw, "summary", 0);
	json_int(&jw, "nodes", (long long)nodes);
	json_int(&jw, "ok", (long long)rows_count(rows, ROW_OK));
	json_int(&jw, "warn", (long long)rows_count(rows, ROW_WARN));
	json_int(&jw, "fail", (long long)rows_count(rows, ROW_FAIL));
	json_int(&jw, "skip", (long long)rows_count(rows, ROW_SKIP));
	json_end(&jw);
	json_str(&jw, "facts_dir", saved);
	json_end(&jw);
	json_finish(&jw);
	fwrite(b.buf, 1, b.len, fp);
	buf_release(&b);
}

/* ------------------------------------------------------------------ */
/* --local */

/*
 * Without a plan, the built-in catalog (and --profiles) still names GPUs
 * newer than pci.ids.  A catalog that does not load is a warning: the
 * facts are worth having without it.
 */
static struct catalog *
cmd_facts_catalog(struct cmd_ctx *ctx)
{
	struct catalog		*c = catalog_new();
	struct prov_errs	 errs = PROV_ERRS_INIT;
	char			*dir = catalog_default_dir();
	size_t			 i;
	int			 bad;

	bad = catalog_load_dir(c, dir, &errs) != 0;
	for (i = 0; !bad && i < ctx->profiles.n; i++)
		bad = catalog_load_dir(c, ctx->profiles.v[i], &errs) != 0;
	if (bad) {
		cmd_print_errs(ctx, &errs);
		cmd_errorf(ctx, "catalog not loaded; GPUs "
		    "newer than pci.ids stay unnamed");
		catalog_free(c);
		c = NULL;
	}
	prov_errs_release(&errs);
	free(dir);
	return c;
}

/*
 * --read: the facts in saved tool outputs, each told apart by its shape;
 * ids plain lspci left out and names come from this machine's pci.ids.
 */
static int
cmd_facts_read(struct facts **out, const struct catalog *cat,
    const struct facts_opts *o, struct prov_err *err)
{
	struct hw_opts	 ho = HW_OPTS_INIT;
	struct prov_err	 nerr = PROV_ERR_INIT;
	struct facts	*f = facts_new();
	struct buf	 b = BUF_INIT;
	const char	*kind;
	size_t		 i;
	int		 r = -1;

	ho.pci_ids = o->pci_ids;
	for (i = 0; i < o->read.n; i++) {
		buf_reset(&b);
		if (buf_read_file(&b, o->read.v[i]) != 0) {
			prov_err_set(err, PROV_E_SYS, "%s: %s", o->read.v[i],
			    strerror(errno));
			goto out;
		}
		if (facts_parse_any(f, o->read.v[i], b.buf != NULL ? b.buf : "",
		    &kind, err) != 0)
			goto out;
		facts_note(f, "%s read as %s", o->read.v[i], kind);
	}
	if (hw_pci_names(&f, 1, &ho, &nerr) != 0)
		facts_note(f, "%s", nerr.msg);
	facts_finish(f, cat);
	*out = f;
	f = NULL;
	r = 0;
out:
	facts_free(f);
	prov_err_release(&nerr);
	buf_release(&b);
	return r;
}

static int
cmd_facts_local(struct cmd_ctx *ctx, struct facts_opts *o)
{
	struct hw_opts		  ho = HW_OPTS_INIT;
	struct prov_err		  err = PROV_ERR_INIT;
	struct facts		 *f = NULL;
	struct rows		  rows = ROWS_INIT;
	struct plan_node	**sel = NULL;
	struct buf		  b = BUF_INIT;
	struct catalog		 *cat = NULL;
	size_t			  n = 0;
	int			  r = PROV_EXIT_FAIL;

	ho.pci_ids = o->pci_ids;
	if (ctx->plan != NULL) {
		if (o->nodes == NULL) {
			r = cmd_usage_error(ctx, &cmd_facts_entry, "%s with "
			    "a plan needs -n NODE: the node %s should be",
			    o->local ? "--local" : "--read", o->local ?
			    "this machine" : "the outputs");
			goto out;
		}
		if (plan_select(&sel, &n, ctx->plan, o->nodes, &err) != 0) {
			cmd_error(ctx, &err);
			r = PROV_EXIT_USAGE;
			goto out;
		}
		if (n != 1) {
			r = cmd_usage_error(ctx, &cmd_facts_entry, "--local "
			    "compares with one node, not %zu", n);
			goto out;
		}
	}
	if (ctx->plan == NULL)
		cat = cmd_facts_catalog(ctx);
	if (o->read.n > 0 ? cmd_facts_read(&f, ctx->plan ?
	    ctx->plan->catalog : cat, o, &err) != 0 : hw_gather(&f,
	    ctx->plan ? ctx->plan->catalog : cat, &ho, &err) != 0) {
		cmd_error(ctx, &err);
		r = o->read.n > 0 ? PROV_EXIT_USAGE : PROV_EXIT_FAIL;
		goto out;
	}
	if (sel != NULL)
		facts_compare(&rows, ctx->plan, sel[0], f);
	if (o->json && sel == NULL) {
		facts_to_json(&b, f);
		fwrite(b.buf, 1, b.len, ctx->out);
	} else if (o->json)
		cmd_facts_rows_json(ctx->out, 1, &rows, NULL);
	else {
		cmd_facts_print(ctx->out, f);
		if (sel != NULL) {
			fputc('\n', ctx->out);
			cmd_facts_rows_print(ctx, &rows);
			cmd_facts_summary(ctx->out, 1, &rows, NULL);
		}
	}
	r = rows_count(&rows, ROW_FAIL) > 0 ? PROV_EXIT_FAIL :
	    PROV_EXIT_OK;
out:
	buf_release(&b);
	rows_release(&rows);
	facts_free(f);
	catalog_free(cat);
	free(sel);
	prov_err_release(&err);
	return r;
}

/* ------------------------------------------------------------------ */
/* Over SSH, or from saved files */

static char *
cmd_facts_default_run_dir(void)
{
	char		ts[32];
	time_t		now = time(NULL);
	struct tm	tm;

	gmtime_r(&now, &tm);
	strftime(ts, sizeof ts, "%Y%m%dT%H%M%SZ", &tm);
	return xasprintf("runs/%s", ts);
}

static int
cmd_facts_exec(struct cmd_ctx *ctx, void *optsp, int argc, char **argv)
{
	struct facts_opts	 *o = optsp;
	struct plan		 *p = ctx->plan;
	struct plan_node	**sel = NULL;
	struct prov_err		  err = PROV_ERR_INIT;
	struct rows		  rows = ROWS_INIT;
	struct facts_gather_opts  go;
	struct strvec		  notes = STRVEC_INIT;
	char			 *run_dir = NULL, *dir = NULL;
	size_t			  i, n = 0;
	int			  r = PROV_EXIT_USAGE, rc;

	if (argc > 0)
		return cmd_usage_error(ctx, &cmd_facts_entry, "unexpected "
		    "argument '%s'", argv[0]);
	memset(&go, 0, sizeof go);
	if (o->local && o->read.n > 0)
		return cmd_usage_error(ctx, &cmd_facts_entry, "--local reads "
		    "this machine, --read saved outputs: not both");
	if (o->local || o->read.n > 0)
		return cmd_facts_local(ctx, o);
	if (p == NULL)
		return cmd_usage_error(ctx, &cmd_facts_entry, "give a plan, "
		    "or --local for this machine");
	/* -n, else every node */
	if (plan_select(&sel, &n, p, o->nodes, &err) != 0) {
		cmd_error(ctx, &err);
		goto out;
	}
	if (o->from != NULL)
		facts_load_saved(&rows, p, sel, n, o->from);
	else {
		run_dir = o->run_dir != NULL ? xstrdup(o->run_dir) :
		    cmd_facts_default_run_dir();
		dir = xasprintf("%s/facts", run_dir);
		/* a folder only we write: the facts feed slurm.conf */
		if (fs_mkdirs(dir, 0755, &err) != 0) {
			cmd_error(ctx, &err);
			prov_err_release(&err);
			r = PROV_EXIT_FAIL;
			goto out;
		}
		go.dir = dir;
		go.forks = o->forks;
		go.pci_ids = o->pci_ids;
		if (p->ssh.passphrase_env != NULL)
			go.passphrase = getenv(p->ssh.passphrase_env);
		rc = facts_gather(&rows, &notes, p, sel, n, &go, &err);
		for (i = 0; i < notes.n; i++)
			cmd_errorf(ctx, "%s", notes.v[i]);
		if (rc != 0) {
			cmd_error(ctx, &err);
			r = PROV_EXIT_FAIL;
			goto out;
		}
	}
	if (o->json)
		cmd_facts_rows_json(ctx->out, n, &rows, dir);
	else {
		cmd_facts_rows_print(ctx, &rows);
		cmd_facts_summary(ctx->out, n, &rows, dir);
	}
	r = rows_count(&rows, ROW_FAIL) > 0 ? PROV_EXIT_FAIL :
	    PROV_EXIT_OK;
out:
	rows_release(&rows);
	strvec_clear(&notes);
	free(run_dir);
	free(dir);
	free(sel);
	prov_err_release(&err);
	return r;
}

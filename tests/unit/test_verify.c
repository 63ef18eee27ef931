/*
 * test_verify.c: the parsers of lib/verify.c against real recorded tool
 * outputs (tests/fixtures/facts/, each with a .source naming where it
 * came from): nvidia-smi -q -x of three GPU generations, sinfo and
 * scontrol of two Slurm releases, a kernel log with an XID, nccl-tests
 * on two H100 nodes, chronyc and Prometheus; then the judgement on a
 * node answer built from those outputs, the verify script run here with
 * /bin/sh, and the JSON and JUnit forms.
 */
#include "compat.h"

#include <math.h>

#include <sys/stat.h>

#include "buf.h"
#include "estimate.h"
#include "facts.h"
#include "plan.h"
#include "row.h"
#include "str.h"
#include "test.h"
#include "verify.h"

static char *
fixture(const char *name)
{
	struct buf	 b = BUF_INIT;
	char		*rel = xasprintf("tests/fixtures/facts/%s", name);
	char		*path = test_path(rel);

	if (buf_read_file(&b, path) != 0)
		ck_abort_msg("cannot read fixture %s: %s", path,
		    strerror(errno));
	free(rel);
	free(path);
	return buf_detach(&b, NULL);
}

static struct plan *
load_plan(const char *rel)
{
	struct plan_opts	 o = PLAN_OPTS_INIT;
	struct prov_errs	 errs = PROV_ERRS_INIT;
	struct plan		*p = NULL;
	char			*dir = test_path("profiles");
	char			*path = test_path(rel);

	o.builtin_dir = dir;
	if (plan_load(&p, path, &o, &errs) != 0) {
		prov_errs_print(&errs, stderr);
		ck_abort_msg("plan %s did not load", rel);
	}
	prov_errs_release(&errs);
	free(dir);
	free(path);	/* the plan keeps its own copy */
	return p;
}

static const struct row *
find_row(const struct rows *r, const char *node, const char *what)
{
	size_t	i;

	for (i = 0; i < r->n; i++)
		if (strcmp(r->v[i].subject, node) == 0 &&
		    strcmp(r->v[i].what, what) == 0)
			return &r->v[i];
	return NULL;
}

/*
 * A node of the plan that answered verify's script with OUT: what every
 * evaluation test starts from.
 */
static void
node_answered(struct verify_node *vn, struct plan *p, const char *name,
    const char *out)
{
	struct prov_err	err = PROV_ERR_INIT;

	memset(vn, 0, sizeof *vn);
	vn->pn = plan_node(p, name);
	ck_assert_ptr_nonnull(vn->pn);
	ck_assert_ok(verify_node_parse(vn, out, &err), &err);
	vn->reached = 1;
}

/*
 * Runs SCRIPT here with /bin/sh, as a node would, and appends what it
 * printed to OUT.
 */
static void
run_here(const struct buf *script, struct buf *out)
{
	char	 path[] = "/tmp/test-verify.XXXXXX";
	char	 chunk[4096];
	char	*cmd;
	FILE	*fp;
	size_t	 n;
	int	 fd;

	fd = mkstemp(path);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, script->buf, script->len),
	    (ssize_t)script->len);
	close(fd);
	cmd = xasprintf("sh %s </dev/null 2>/dev/null", path);
	fp = popen(cmd, "r");
	ck_assert_ptr_nonnull(fp);
	while ((n = fread(chunk, 1, sizeof chunk, fp)) > 0)
		buf_add(out, chunk, n);
	pclose(fp);
	unlink(path);
	free(cmd);
}

/* The rows, when TEST_VERBOSE is set. */
static void
dump_rows(const struct rows *r)
{
	size_t	i;

	if (getenv("TEST_VERBOSE") == NULL)
		return;
	for (i = 0; i < r->n; i++)
		fprintf(stderr, "  %s %s | %s | %s | %s | %s\n",
		    row_verdict_name(r->v[i].verdict), r->v[i].subject,
		    r->v[i].what, r->v[i].limit ? r->v[i].limit : "-",
		    r->v[i].measured ? r->v[i].measured : "-",
		    r->v[i].hint ? r->v[i].hint : "-");
}

/* ------------------------------------------------------------------ */
/* nvidia-smi -q -x */

START_TEST(test_nvsmi_a100_mig)
{
	struct verify_nvsmi	 nv;
	struct prov_err		 err = PROV_ERR_INIT;
	char			*t = fixture(
	    "nvidia-smi-qx-a100-sxm4-80gb-mig.xml");
	const struct verify_gpu	*g;

	memset(&nv, 0, sizeof nv);
	ck_assert_ok(verify_parse_nvsmi_xml(&nv, t, &err), &err);
	ck_assert_str_eq(nv.driver_version, "535.54.03");
	ck_assert_int_eq(nv.attached, 4);
	ck_assert_uint_eq(nv.n, 1);	/* the file holds one <gpu> */
	g = &nv.gpus[0];
	ck_assert_str_eq(g->bus_id, "0000:01:00.0");
	ck_assert_str_eq(g->persistence, "Disabled");
	ck_assert_str_eq(g->ecc_mode, "Enabled");
	/* sram_ and dram_ counters, all 0 */
	ck_assert_int_eq(g->ecc_vol_unc, 0);
	ck_assert_int_eq(g->ecc_agg_unc, 0);
	ck_assert_int_eq(g->ecc_vol_cor, 0);
	ck_assert_int_eq(g->ecc_agg_cor, 0);
	/* retired pages N/A, <remapped_rows>N/A</remapped_rows> */
	ck_assert_int_eq(g->retired_sbe, -1);
	ck_assert_int_eq(g->retired_dbe, -1);
	ck_assert_int_eq(g->retire_pending, -1);
	ck_assert_int_eq(g->remap_failure, -1);
	verify_nvsmi_release(&nv);
	free(t);
}
END_TEST

START_TEST(test_nvsmi_a5000_no_ecc)
{
	struct verify_nvsmi	nv;
	struct prov_err		err = PROV_ERR_INIT;
	char			*t = fixture("nvidia-smi-qx-2x-rtx-a5000.xml");
	size_t			i;

	memset(&nv, 0, sizeof nv);
	ck_assert_ok(verify_parse_nvsmi_xml(&nv, t, &err), &err);
	ck_assert_str_eq(nv.driver_version, "590.44.01");
	ck_assert_uint_eq(nv.n, 2);
	ck_assert_str_eq(nv.gpus[0].bus_id, "0000:81:00.0");
	ck_assert_str_eq(nv.gpus[1].bus_id, "0000:c1:00.0");
	for (i = 0; i < 2; i++) {
		const struct verify_gpu	*g = &nv.gpus[i];

		ck_assert_str_eq(g->persistence, "Enabled");
		ck_assert_str_eq(g->ecc_mode, "Disabled");
		/* every ECC counter is N/A: unknown, not 0 */
		ck_assert_int_eq(g->ecc_vol_unc, -1);
		ck_assert_int_eq(g->ecc_agg_cor, -1);
		ck_assert_int_eq(g->retired_dbe, -1);
		/* row remapping is reported: 0 rows, no failure */
		ck_assert_int_eq(g->remap_unc, 0);
		ck_assert_int_eq(g->remap_failure, 0);
		ck_assert_int_eq(g->remap_pending, 0);
	}
	verify_nvsmi_release(&nv);
	free(t);
}
END_TEST

START_TEST(test_nvsmi_p100_old_layout)
{
	struct verify_nvsmi	 nv;
	struct prov_err		 err = PROV_ERR_INIT;
	char			*t = fixture("nvidia-smi-qx-tesla-p100.xml");
	const struct verify_gpu	*g;

	memset(&nv, 0, sizeof nv);
	ck_assert_ok(verify_parse_nvsmi_xml(&nv, t, &err), &err);
	ck_assert_str_eq(nv.driver_version, "510.47.03");
	ck_assert_uint_eq(nv.n, 1);
	g = &nv.gpus[0];
	ck_assert_str_eq(g->bus_id, "0000:00:04.0");
	ck_assert_str_eq(g->ecc_mode, "Enabled");
	/* single_bit/double_bit blocks: only their totals count */
	ck_assert_int_eq(g->ecc_vol_unc, 0);
	ck_assert_int_eq(g->ecc_vol_cor, 0);
	ck_assert_int_eq(g->ecc_agg_unc, 0);
	ck_assert_int_eq(g->ecc_agg_cor, 3);
	ck_assert_int_eq(g->retired_sbe, 0);
	ck_assert_int_eq(g->retired_dbe, 0);
	ck_assert_int_eq(g->retire_pending, 0);
	verify_nvsmi_release(&nv);
	free(t);
}
END_TEST

START_TEST(test_nvsmi_not_xml)
{
	static const char *const bad[] = {
		"<?xml version=\"1.0\" ?><other_log><gpu/></other_log>",
		"<nvidia_smi_log><gpu><a>1</b></gpu></nvidia_smi_log>",
		"<nvidia_smi_log><gpu>",
		"index, name\n0, NVIDIA H100\n",
		"",
	};
	size_t	i;

	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		struct verify_nvsmi	nv;
		struct prov_err		err = PROV_ERR_INIT;

		memset(&nv, 0, sizeof nv);
		ck_assert_msg(verify_parse_nvsmi_xml(&nv, bad[i], &err) != 0,
		    "accepted: %s", bad[i]);
		ck_assert_int_eq(err.code, PROV_E_PARSE);
		verify_nvsmi_release(&nv);
		prov_err_release(&err);
	}
}
END_TEST

/* A CSV is not XML: the facts CSV fixture must be refused. */
START_TEST(test_nvsmi_csv_refused)
{
	struct verify_nvsmi	 nv;
	struct prov_err		 err = PROV_ERR_INIT;
	char			*t = fixture("nvidia-smi-query-all-h100.csv");

	memset(&nv, 0, sizeof nv);
	ck_assert_int_ne(verify_parse_nvsmi_xml(&nv, t, &err), 0);
	verify_nvsmi_release(&nv);
	prov_err_release(&err);
	free(t);
}
END_TEST

/* ------------------------------------------------------------------ */
/* Slurm */

START_TEST(test_sinfo_slurm25)
{
	struct verify_slurm		 s;
	struct prov_err			 err = PROV_ERR_INIT;
	char				*t = fixture(
	    "sinfo-N-O-gres-gresused-slurm25.05.txt");
	const struct verify_snode	*n;
	const char			*why;

	memset(&s, 0, sizeof s);
	ck_assert_ok(verify_parse_sinfo(&s, t, "node,allocmem,memory,cpus,"
	    "state,partition,gres,gresused", &err), &err);
	/* one line per node and partition: 6 nodes */
	ck_assert_uint_eq(s.n, 6);
	n = verify_slurm_find(&s, "a001");
	ck_assert_str_eq(n->state, "allocated");
	ck_assert_str_eq(n->gres, "gpu:model_a:4(S:0-3)");
	ck_assert_int_eq(verify_gres_gpus(n->gres), 4);
	ck_assert(verify_slurm_state_ok(n->state, &why));
	n = verify_slurm_find(&s, "a002");
	ck_assert_str_eq(n->state, "drained*");
	ck_assert(!verify_slurm_state_ok(n->state, &why));
	ck_assert_str_eq(why, "drained");
	ck_assert(!verify_slurm_state_ok("maint", &why));
	ck_assert(verify_slurm_state_ok(verify_slurm_find(&s, "a003")->state,
	    &why));
	ck_assert(verify_slurm_state_ok(verify_slurm_find(&s, "a005")->state,
	    &why));
	ck_assert_int_eq(verify_gres_gpus(verify_slurm_find(&s,
	    "c001")->gres), 0);
	/* GresUsed: a001 runs on its 4 GPUs, a002 (drained) on none */
	ck_assert_int_eq(verify_slurm_find(&s, "a001")->gpus_used, 4);
	ck_assert_int_eq(verify_slurm_find(&s, "a002")->gpus_used, 0);
	verify_slurm_release(&s);
	free(t);
}
END_TEST

START_TEST(test_sinfo_bad)
{
	struct verify_slurm	s;
	struct prov_err		err = PROV_ERR_INIT;

	memset(&s, 0, sizeof s);
	/* too few columns for the fields */
	ck_assert_int_ne(verify_parse_sinfo(&s, "a001 idle\n",
	    "node,state,gres", &err), 0);
	prov_err_release(&err);
	/* an error message is not a node list */
	ck_assert_int_ne(verify_parse_sinfo(&s, "slurm_load_partitions: "
	    "Unable to contact slurm controller (connect failure)\n",
	    "node,state,gres", &err), 0);
	prov_err_release(&err);
	ck_assert_int_ne(verify_parse_sinfo(&s, "", "state", &err), 0);
	prov_err_release(&err);
	verify_slurm_release(&s);
}
END_TEST

START_TEST(test_scontrol_slurm24)
{
	struct verify_slurm		 s;
	struct prov_err			 err = PROV_ERR_INIT;
	char				*t = fixture(
	    "scontrol-show-nodes-o-slurm24.11-gres.txt");
	const struct verify_snode	*n;
	const char			*why;

	memset(&s, 0, sizeof s);
	ck_assert_ok(verify_parse_scontrol(&s, t, &err), &err);
	ck_assert_uint_eq(s.n, 20);
	n = verify_slurm_find(&s, "na1");
	ck_assert_str_eq(n->state, "MIXED+DYNAMIC_NORM");
	ck_assert(verify_slurm_state_ok(n->state, &why));
	ck_assert_str_eq(n->gres, "(null)");
	ck_assert_int_eq(verify_gres_gpus(n->gres), 0);
	ck_assert_ptr_null(n->reason);
	/* "OS=Linux 6.18 #1 SMP" has blanks: the keys after it count */
	n = verify_slurm_find(&s, "nb1");
	ck_assert_str_eq(n->gres, "gpu:model_a:4");
	ck_assert_int_eq(verify_gres_gpus(n->gres), 4);
	ck_assert_str_eq(n->state, "IDLE+DYNAMIC_NORM");
	n = verify_slurm_find(&s, "nb9");
	ck_assert_int_eq(verify_gres_gpus(n->gres), 4);	/* 2 + 2 */
	ck_assert_ptr_nonnull(verify_slurm_find(&s, "nb10"));
	/* AllocTRES= empty: no GPU in use */
	ck_assert_int_eq(verify_slurm_find(&s, "nb1")->gpus_used, 0);
	verify_slurm_release(&s);
	free(t);

	/* gres/gpu= in AllocTRES (the fixture allocates none; written here
	 * in the form Slurm 23+ prints, the typed count after the total) */
	memset(&s, 0, sizeof s);
	ck_assert_ok(verify_parse_scontrol(&s, "NodeName=g1 Gres=gpu:h100:8 "
	    "State=MIXED AllocTRES=cpu=32,mem=256G,gres/gpu=3,"
	    "gres/gpu:h100=3\n", &err), &err);
	ck_assert_int_eq(verify_slurm_find(&s, "g1")->gpus_used, 3);
	verify_slurm_release(&s);

	memset(&s, 0, sizeof s);
	ck_assert_int_ne(verify_parse_scontrol(&s, "No nodes in the system\n",
	    &err), 0);
	prov_err_release(&err);
	verify_slurm_release(&s);
}
END_TEST

START_TEST(test_slurm_states)
{
	static const struct {
		const char	*state;
		int		 ok;
		const char	*why;
	} cases[] = {
		{ "idle", 1, NULL }, { "alloc", 1, NULL }, { "mix", 1, NULL },
		{ "IDLE", 1, NULL }, { "MIXED", 1, NULL },
		{ "ALLOCATED+DYNAMIC_NORM", 1, NULL }, { "comp", 1, NULL },
		{ "idle*", 0, "not responding" },
		{ "IDLE+NOT_RESPONDING", 0, "not responding" },
		{ "down*", 0, "down" }, { "DOWN", 0, "down" },
		{ "drain", 0, "drained" }, { "drng", 0, "draining" },
		{ "MIXED+DRAIN", 0, "drained" }, { "idle~", 0, "powered down" },
		{ "maint", 0, "in maintenance" }, { "unk", 0, "state unknown" },
		{ "future", 0, "not yet in service" },
		{ "", 0, "no state" },
	};
	size_t	i;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		const char	*why = NULL;
		int		 ok = verify_slurm_state_ok(cases[i].state,
				    &why);

		ck_assert_msg(ok == cases[i].ok, "%s: %d", cases[i].state, ok);
		if (cases[i].why != NULL)
			ck_assert_msg(why != NULL && strcmp(why,
			    cases[i].why) == 0, "%s: why '%s'", cases[i].state,
			    why ? why : "(null)");
	}
}
END_TEST

START_TEST(test_gres_gpus)
{
	static const struct {
		const char	*gres;
		long		 n;
	} cases[] = {
		{ "gpu:4", 4 }, { "gpu:h100:8", 8 }, { "(null)", 0 },
		{ "gpu:model_a:2,gpu:model_b:2", 4 },
		{ "gpu:model_a:4(S:0-3)", 4 }, { "gpu", 1 },
		{ "gpu:a100:4(S:0-1),shard:8", 4 }, { "", 0 }, { NULL, 0 },
	};
	size_t	i;

	for (i = 0; i < ARRAY_SIZE(cases); i++)
		ck_assert_msg(verify_gres_gpus(cases[i].gres) == cases[i].n,
		    "%s", cases[i].gres ? cases[i].gres : "NULL");
}
END_TEST

/* ------------------------------------------------------------------ */
/* time, XID, nccl-tests, Prometheus */

START_TEST(test_chrony_manual)
{
	struct verify_time	 t;
	struct prov_err		 err = PROV_ERR_INIT;
	char			*s = fixture("chronyc-tracking-manual.txt");

	memset(&t, 0, sizeof t);
	ck_assert_ok(verify_parse_chrony(&t, s, &err), &err);
	ck_assert(t.synced);
	ck_assert(fabs(t.offset_s - 0.000006523) < 1e-12);
	ck_assert_ptr_nonnull(strstr(t.detail, "stratum 3"));
	ck_assert_ptr_nonnull(strstr(t.detail, "CB00710F"));
	verify_time_release(&t);
	/* chronyd down: the 506 line is not a report */
	ck_assert_int_ne(verify_parse_chrony(&t, "506 Cannot talk to daemon\n",
	    &err), 0);
	prov_err_release(&err);
	verify_time_release(&t);
	free(s);
}
END_TEST

START_TEST(test_xid_dmesg)
{
	struct verify_xid	 x;
	char			*s = fixture("dmesg-xid-119-h100-xe9680.log");
	char			*clean = fixture(
	    "proc-meminfo-2tb-gpu-server.txt");

	verify_parse_xid(&x, s);
	ck_assert_int_eq(x.lines, 5);
	ck_assert_int_eq(x.codes[119], 5);
	ck_assert_int_eq(x.worst, 119);
	ck_assert(verify_xid_fatal(119));
	ck_assert(verify_xid_fatal(79));
	ck_assert(!verify_xid_fatal(13));
	verify_parse_xid(&x, clean);
	ck_assert_int_eq(x.lines, 0);
	ck_assert_int_eq(x.worst, -1);
	free(s);
	free(clean);
}
END_TEST

START_TEST(test_nccl_2x8_h100)
{
	struct verify_nccl	 r;
	struct prov_err		 err = PROV_ERR_INIT;
	char			*s = fixture("nccl-all-reduce-2x8-h100.txt");
	char			*o = fixture("chronyc-tracking-manual.txt");

	ck_assert_ok(verify_parse_nccl(&r, s, &err), &err);
	ck_assert_int_eq(r.sizes, 31);
	ck_assert(fabs(r.peak_busbw - 338.82) < 1e-9);
	ck_assert(fabs(r.peak_bytes - 8589934592.0) < 1e-3);
	ck_assert(fabs(r.avg_busbw - 70.742) < 1e-9);
	ck_assert_int_eq(r.wrong, 0);
	/* who: 16 ranks on the two VMs */
	ck_assert_int_eq(r.ranks, 16);
	ck_assert_uint_eq(r.hosts.n, 2);
	ck_assert_str_eq(r.hosts.v[0], "ztan-mig-235z");
	ck_assert_str_eq(r.hosts.v[1], "ztan-mig-gq73");
	ck_assert_ptr_null(r.version);
	verify_nccl_release(&r);
	ck_assert_int_ne(verify_parse_nccl(&r, o, &err), 0);
	verify_nccl_release(&r);
	prov_err_release(&err);
	free(s);
	free(o);
}
END_TEST

/*
 * dcgmproftester as a DCGM 3.3.5 dcgmproftester12 printed it in a blog's
 * log (see tests/fixtures/facts/README.md): a space before '[', gflops
 * with an exponent, a full stop after.
 */
static const char dpt_blog[] =
    "Skipping CreateDcgmGroups() since DCGM validation is disabled\n"
    "Worker 0:0 [1004]: TensorEngineActive: generated ???, dcgm 0 "
    "(1.78e+05 gflops).\n"
    "Worker 0:0 [1004]: TensorEngineActive: generated ???, dcgm 0 "
    "(1.89e+05 gflops).\n"
    "Worker 0:0 [1004]: TensorEngineActive: generated ???, dcgm 0 "
    "(1.89e+05 gflops).\n"
    "Worker 0:0 [1004]: TensorEngineActive: generated ???, dcgm 0 "
    "(1.89e+05 gflops).\n"
    "Worker 0:0 [1004]: TensorEngineActive: generated ???, dcgm 0 "
    "(1.89e+05 gflops).\n"
    "Worker 0:0 [1004]: TensorEngineActive: generated ???, dcgm 0 "
    "(1.89e+05 gflops).\n";

START_TEST(test_dcgmproftester)
{
	struct verify_gemm	 g;
	struct prov_err		 err = PROV_ERR_INIT;
	char			*a100 = fixture("dcgmproftester-1004-a100.txt");
	char			*mig = fixture(
	    "dcgmproftester-1004-a100-mig.txt");
	char			*nog = fixture(
	    "dcgmproftester-1007-no-gflops.txt");
	char			*bad = fixture("dcgmproftester-1004-error.txt");
	char			*msg;

	/* one A100: the median of its ten reports */
	ck_assert_ok(verify_parse_dcgmproftester(&g, a100, &err), &err);
	ck_assert_int_eq(g.field, 1004);
	ck_assert_uint_eq(g.n, 1);
	ck_assert_int_eq(g.gpus[0].gpu, 0);
	ck_assert_int_eq(g.gpus[0].workers, 1);
	ck_assert_int_eq(g.gpus[0].samples, 10);
	ck_assert(fabs(g.gpus[0].tflops - 252.8892) < 1e-9);
	verify_gemm_release(&g);

	/* two MIG instances of GPU 0: their medians add up */
	ck_assert_ok(verify_parse_dcgmproftester(&g, mig, &err), &err);
	ck_assert_uint_eq(g.n, 1);
	ck_assert_int_eq(g.gpus[0].workers, 2);
	ck_assert_int_eq(g.gpus[0].samples, 7);
	ck_assert(fabs(g.gpus[0].tflops - 215.66155) < 1e-9);
	verify_gemm_release(&g);

	ck_assert_ok(verify_parse_dcgmproftester(&g, dpt_blog, &err), &err);
	ck_assert_int_eq(g.field, 1004);
	ck_assert(fabs(g.gpus[0].tflops - 189) < 1e-9);
	verify_gemm_release(&g);

	/* no gflops: no figure, and no made-up one */
	ck_assert_int_ne(verify_parse_dcgmproftester(&g, nog, &err), 0);
	ck_assert_uint_eq(g.n, 0);
	ck_assert_ptr_nonnull(strstr(err.msg, "no worker reported"));
	prov_err_release(&err);
	ck_assert_int_ne(verify_parse_dcgmproftester(&g, bad, &err), 0);
	ck_assert_ptr_nonnull(strstr(err.msg, "Error 0 from RunTests()"));
	prov_err_release(&err);
	/* a figure that is not one: located */
	ck_assert_int_ne(verify_parse_dcgmproftester(&g, "Skipping\n"
	    "Worker 0:0[1004]: TensorEngineActive: generated ???, dcgm 0 "
	    "(2.5x5 gflops)\n", &err), 0);
	msg = prov_err_format(&err);
	ck_assert_str_eq(msg, "dcgmproftester:2:62: '2.5x5' is not a number "
	    "of gflops (a worker reports '(250362.2 gflops)')");
	free(msg);
	prov_err_release(&err);
	free(a100);
	free(mig);
	free(nog);
	free(bad);
}
END_TEST

START_TEST(test_prom_targets)
{
	struct verify_targets	 t;
	struct prov_err		 err = PROV_ERR_INIT;
	char			*s = fixture("prometheus-targets-active.json");
	static const char	 failed[] = "{\"status\": \"error\", "
	    "\"errorType\": \"bad_data\", \"error\": \"x\"}";

	memset(&t, 0, sizeof t);
	ck_assert_ok(verify_parse_prom_targets(&t, s, strlen(s), &err), &err);
	ck_assert_uint_eq(t.n, 1);
	ck_assert_str_eq(t.v[0].job, "prometheus");
	ck_assert_str_eq(t.v[0].instance, "127.0.0.1:9090");
	ck_assert_str_eq(t.v[0].health, "up");
	ck_assert_str_eq(t.v[0].error, "");
	ck_assert_double_eq_tol(t.v[0].last_scrape, 1484662064.723715, 1e-5);
	/* the example predates scrapeInterval and scrapeTimeout */
	ck_assert_double_eq(t.v[0].interval, 0);
	ck_assert_double_eq(t.v[0].timeout, 0);
	verify_targets_release(&t);
	ck_assert_int_ne(verify_parse_prom_targets(&t, failed, strlen(failed),
	    &err), 0);
	prov_err_release(&err);
	ck_assert_int_ne(verify_parse_prom_targets(&t, "<html>", 6, &err), 0);
	prov_err_release(&err);
	verify_targets_release(&t);
	free(s);
}
END_TEST

START_TEST(test_dcgmi_refuses_other_text)
{
	struct verify_dcgm	 d;
	struct prov_err		 err = PROV_ERR_INIT;
	char			*s = fixture("chronyc-tracking-manual.txt");

	memset(&d, 0, sizeof d);
	d.failed = (struct strvec)STRVEC_INIT;
	ck_assert_int_ne(verify_parse_dcgmi(&d, s, &err), 0);
	ck_assert_int_ne(verify_parse_dcgmi(&d, "Error: unable to establish "
	    "a connection to the specified host: localhost\n", &err), 0);
	prov_err_release(&err);
	verify_dcgm_release(&d);
	free(s);
}
END_TEST

/* ------------------------------------------------------------------ */
/* Judgement on a node answer made of real outputs */

static char *
node_answer(const char *node, const char *nvsmi, const char *xid,
    const char *chrony)
{
	struct buf	b = BUF_INIT;

	buf_addf(&b, "@@facts v-clock\n%.3f\n@@rc 0\n", 1764529200.0);
	buf_addf(&b, "@@facts hostname\n%s\n@@rc 0\n", node);
	/* facts.sh's modes query, as the A100 fixture's GPU would answer */
	buf_adds(&b, "@@facts nvidia-smi-modes\nindex, pci.bus_id, "
	    "mig.mode.current, ecc.mode.current\n0, 00000000:01:00.0, "
	    "Enabled, Enabled\n@@rc 0\n");
	buf_adds(&b, "@@facts end\n");
	buf_addf(&b, "@@facts v-nvsmi-xml\n%s\n@@rc 0\n", nvsmi);
	/* what nv() in facts.sh prints after it when stderr had lines */
	buf_adds(&b, "@@facts v-nvsmi-xml-stderr\nWARNING: infoROM is "
	    "corrupted at gpu 0000:01:00.0\n");
	buf_adds(&b, "@@facts v-nvidia-module\nNVRM version: NVIDIA UNIX "
	    "x86_64 Kernel Module\n@@rc 0\n");
	buf_addf(&b, "@@facts v-xid\nlog dmesg\n%s@@rc 0\n", xid);
	buf_addf(&b, "@@facts v-time\nchrony\n%s@@rc 0\n", chrony);
	buf_adds(&b, "@@facts v-daemons\nslurmd stopped -\nmunged running "
	    "42\n@@facts v-end\n@@rc 0\n");
	return buf_detach(&b, NULL);
}

START_TEST(test_eval_gpu_node)
{
	struct plan		*p = load_plan("examples/pcie-lab.yaml");
	struct verify_node	 vn;
	struct verify_env	 env = VERIFY_ENV_INIT;
	struct verify_opts	 o = VERIFY_OPTS_INIT;
	struct rows		 rows = ROWS_INIT;
	struct prov_err		 err = PROV_ERR_INIT;
	char			*xml = fixture(
	    "nvidia-smi-qx-a100-sxm4-80gb-mig.xml");
	char			*xid = fixture("dmesg-xid-119-h100-xe9680.log");
	char			*chr = fixture("chronyc-tracking-manual.txt");
	char			*out = node_answer("gpu01", xml, xid, chr);
	const struct row	*r;

	memset(&vn, 0, sizeof vn);
	vn.pn = plan_node(p, "gpu01");
	ck_assert_ptr_nonnull(vn.pn);
	ck_assert_ok(verify_node_parse(&vn, out, &err), &err);
	ck_assert_ptr_nonnull(verify_node_sec(&vn, "nvsmi-xml"));
	ck_assert_int_eq(verify_node_sec(&vn, "xid")->rc, 0);
	vn.reached = 1;
	env.t0 = 1764529199.0;
	env.t1 = 1764529201.0;
	verify_eval(&rows, NULL, p, &vn, 1, NULL, &env, &o);
	dump_rows(&rows);

	ck_assert_str_eq(find_row(&rows, "gpu01", "hostname")->measured,
	    "gpu01");
	/* the plan wants the 550 branch; the node runs 535 */
	r = find_row(&rows, "gpu01", "gpu driver");
	ck_assert_int_eq(r->verdict, ROW_FAIL);
	ck_assert_str_eq(r->limit, "550.x");
	ck_assert_str_eq(r->measured, "535.54.03");
	ck_assert_int_eq(find_row(&rows, "gpu01", "gpu persistence")->verdict,
	    ROW_WARN);
	ck_assert_int_eq(find_row(&rows, "gpu01", "gpu ecc")->verdict,
	    ROW_OK);
	/* the warning nvidia-smi wrote apart from its XML */
	r = find_row(&rows, "gpu01", "gpu warnings");
	ck_assert_int_eq(r->verdict, ROW_WARN);
	ck_assert_str_eq(r->measured, "WARNING: infoROM is corrupted at gpu "
	    "0000:01:00.0");
	ck_assert_ptr_null(strstr(r->measured, "\n"));
	/* MIG on (the facts' modes query), and the plan wants whole GPUs */
	r = find_row(&rows, "gpu01", "gpu mig mode");
	ck_assert_int_eq(r->verdict, ROW_WARN);
	ck_assert_str_eq(r->measured, "MIG on 1 of 1 GPU");
	ck_assert_ptr_null(find_row(&rows, "gpu01", "gpu mig instances"));
	/* N/A retired pages and remapping: a skip, never an ok */
	ck_assert_int_eq(find_row(&rows, "gpu01",
	    "gpu retired pages")->verdict, ROW_SKIP);
	r = find_row(&rows, "gpu01", "gpu xid");
	ck_assert_int_eq(r->verdict, ROW_FAIL);
	ck_assert_ptr_nonnull(strstr(r->hint, "XID 119"));
	r = find_row(&rows, "gpu01", "time sync");
	ck_assert_int_eq(r->verdict, ROW_OK);
	/* the plan's Slurm partition puts slurmd on gpu01 */
	ck_assert_int_eq(find_row(&rows, "gpu01", "daemon slurmd")->verdict,
	    ROW_FAIL);
	ck_assert_int_eq(find_row(&rows, "gpu01", "daemon munged")->verdict,
	    ROW_OK);
	/* no head answered: Slurm rows skip with the reason */
	r = find_row(&rows, "gpu01", "slurm node");
	ck_assert_int_eq(r->verdict, ROW_SKIP);
	ck_assert_ptr_nonnull(strstr(r->hint, "no head"));
	/* Prometheus was not asked: skip, not ok */
	ck_assert_int_eq(find_row(&rows, "gpu01", "prometheus node")->verdict,
	    ROW_SKIP);

	rows_release(&rows);
	verify_node_release(&vn);
	plan_free(p);
	free(out);
	free(xml);
	free(xid);
	free(chr);
}
END_TEST

/* The plan's MIG layout against what nvidia-smi lists. */
static const struct row *
eval_mig(struct rows *rows, const char *file, const char *const *mig,
    size_t nmig)
{
	struct plan		*p = load_plan("examples/pcie-lab.yaml");
	struct verify_node	 vn;
	struct verify_env	 env = VERIFY_ENV_INIT;
	struct verify_opts	 o = VERIFY_OPTS_INIT;
	struct prov_err		 err = PROV_ERR_INIT;
	char			*xml = fixture(file);
	char			*out = node_answer("gpu01", xml, "", "");
	struct plan_hw		*hw;
	const struct row	*r;
	size_t			 i;

	memset(&vn, 0, sizeof vn);
	vn.pn = plan_node(p, "gpu01");
	hw = (struct plan_hw *)vn.pn->hw;
	for (i = 0; i < nmig; i++)
		strvec_push(&hw->mig, mig[i]);
	ck_assert_ok(verify_node_parse(&vn, out, &err), &err);
	vn.reached = 1;
	env.t0 = 1764529199.0;
	env.t1 = 1764529201.0;
	verify_eval(rows, NULL, p, &vn, 1, NULL, &env, &o);
	r = find_row(rows, "gpu01", "gpu mig instances");
	verify_node_release(&vn);
	plan_free(p);
	free(out);
	free(xml);
	return r;
}

START_TEST(test_eval_mig)
{
	static const char *const four[] = { "1g.10gb", "1g.10gb", "2g.20gb",
					    "3g.40gb" };
	struct rows		 rows = ROWS_INIT;
	const struct row	*r;

	/* the A100 lists 4 MIG devices: 4 planned pass, 3 fail */
	r = eval_mig(&rows, "nvidia-smi-qx-a100-sxm4-80gb-mig.xml", four, 4);
	ck_assert_int_eq(r->verdict, ROW_OK);
	ck_assert_str_eq(r->limit, "4 instances a GPU (1g.10gb 1g.10gb "
	    "2g.20gb 3g.40gb)");
	ck_assert_str_eq(r->measured, "1 of 1 GPU as planned");
	rows_release(&rows);
	r = eval_mig(&rows, "nvidia-smi-qx-a100-sxm4-80gb-mig.xml", four, 3);
	ck_assert_int_eq(r->verdict, ROW_FAIL);
	ck_assert_str_eq(r->measured, "0 of 1 GPU as planned");
	ck_assert_ptr_nonnull(strstr(r->hint, "0000:01:00.0"));
	rows_release(&rows);
	/* RTX A5000: MIG N/A */
	r = eval_mig(&rows, "nvidia-smi-qx-2x-rtx-a5000.xml", four, 2);
	ck_assert_int_eq(r->verdict, ROW_FAIL);
	ck_assert_ptr_nonnull(strstr(r->hint, "does not support MIG"));
	rows_release(&rows);
	/* no layout planned and no MIG on: no row */
	ck_assert_ptr_null(eval_mig(&rows, "nvidia-smi-qx-2x-rtx-a5000.xml",
	    NULL, 0));
	rows_release(&rows);
}
END_TEST

/* -q text reads as the XML does: the same health fields. */
START_TEST(test_nvsmi_q_text)
{
	struct verify_nvsmi	 nv;
	struct prov_err		 err = PROV_ERR_INIT;
	char			*t = fixture("nvidia-smi-q-gh200.txt");
	const struct verify_gpu	*g;

	memset(&nv, 0, sizeof nv);
	ck_assert_ok(verify_parse_nvsmi_q(&nv, t, &err), &err);
	ck_assert_str_eq(nv.driver_version, "550.127.05");
	ck_assert_int_eq(nv.attached, 1);
	ck_assert_uint_eq(nv.n, 1);
	g = &nv.gpus[0];
	ck_assert_str_eq(g->bus_id, "0000:dd:00.0");
	ck_assert_str_eq(g->name, "NVIDIA GH200 480GB");
	ck_assert_str_eq(g->persistence, "Enabled");
	ck_assert_str_eq(g->ecc_mode, "Enabled");
	ck_assert_str_eq(g->mig_mode, "Disabled");
	/* one aggregate DRAM uncorrectable error, none volatile */
	ck_assert_int_eq(g->ecc_vol_unc, 0);
	ck_assert_int_eq(g->ecc_agg_unc, 1);
	ck_assert_int_eq(g->ecc_agg_cor, 0);
	/* retired pages N/A; one uncorrectable remapped row, no failure */
	ck_assert_int_eq(g->retired_sbe, -1);
	ck_assert_int_eq(g->remap_unc, 1);
	ck_assert_int_eq(g->remap_pending, 0);
	ck_assert_int_eq(g->remap_failure, 0);
	verify_nvsmi_release(&nv);
	free(t);
}
END_TEST

/*
 * Prometheus's lastScrape is RFC 3339 with nanoseconds and a zone
 * (UTC "Z" from a UTC host, an offset in the API documentation's
 * example); a target never scraped has Go's zero time.
 */
START_TEST(test_prom_rfc3339)
{
	double	t;

	ck_assert_int_eq(verify_parse_rfc3339("2026-12-06T10:20:30Z", &t), 0);
	ck_assert_double_eq(t, 1796552430.0);
	ck_assert_int_eq(verify_parse_rfc3339(
	    "2026-12-06T10:20:30.250000000Z", &t), 0);
	ck_assert_double_eq_tol(t, 1796552430.25, 1e-6);
	/* the documentation's example: 15:07:44 at +01:00 is 14:07:44 UTC */
	ck_assert_int_eq(verify_parse_rfc3339(
	    "2017-01-17T15:07:44.723715405+01:00", &t), 0);
	ck_assert_double_eq_tol(t, 1484662064.723715, 1e-5);
	ck_assert_int_eq(verify_parse_rfc3339("2017-01-17T13:07:44-01:00",
	    &t), 0);
	ck_assert_double_eq(t, 1484662064.0);
	ck_assert_int_eq(verify_parse_rfc3339("0001-01-01T00:00:00Z", &t), 0);
	ck_assert(t < 0);
	ck_assert_int_ne(verify_parse_rfc3339("2026-12-06T10:20:30", &t), 0);
	ck_assert_int_ne(verify_parse_rfc3339("2026-12-06", &t), 0);
	ck_assert_int_ne(verify_parse_rfc3339("2026-13-06T10:20:30Z", &t), 0);
	ck_assert_int_ne(verify_parse_rfc3339("2026-12-06T10:20:30Zx", &t), 0);
	ck_assert_int_ne(verify_parse_rfc3339("2026-12-06T10:20:30.Z", &t), 0);
	ck_assert_int_ne(verify_parse_rfc3339("", &t), 0);
	ck_assert_int_ne(verify_parse_rfc3339(NULL, &t), 0);
}
END_TEST

START_TEST(test_prom_duration)
{
	double	d;

	ck_assert_int_eq(verify_parse_prom_duration("15s", &d), 0);
	ck_assert_double_eq(d, 15);
	ck_assert_int_eq(verify_parse_prom_duration("1m30s", &d), 0);
	ck_assert_double_eq(d, 90);
	ck_assert_int_eq(verify_parse_prom_duration("500ms", &d), 0);
	ck_assert_double_eq(d, 0.5);
	ck_assert_int_eq(verify_parse_prom_duration("1h", &d), 0);
	ck_assert_double_eq(d, 3600);
	ck_assert_int_ne(verify_parse_prom_duration("15", &d), 0);
	ck_assert_int_ne(verify_parse_prom_duration("1.5s", &d), 0);
	ck_assert_int_ne(verify_parse_prom_duration("s", &d), 0);
	ck_assert_int_ne(verify_parse_prom_duration("15x", &d), 0);
	ck_assert_int_ne(verify_parse_prom_duration("", &d), 0);
}
END_TEST

/*
 * Right after apply (10:20:30 UTC, verify's start): worker-01's node
 * exporter was refused at 10:20:20, before apply started it; worker-02's
 * was scraped up at 10:20:25; head-01's down at 10:20:33, after verify
 * began; worker-02's dcgm exporter never scraped; Prometheus itself down
 * long ago (not a target verify judges).
 */
static const char prom_after_apply[] =
    "{\"status\": \"success\", \"data\": {\"activeTargets\": ["
    "{\"labels\": {\"job\": \"node\", \"node\": \"worker-01\", "
    "\"instance\": \"127.0.10.2:9100\"}, \"health\": \"down\", "
    "\"lastError\": \"Get \\\"http://127.0.10.2:9100/metrics\\\": dial tcp "
    "127.0.10.2:9100: connect: connection refused\", "
    "\"lastScrape\": \"2026-12-06T10:20:20.5Z\", "
    "\"scrapeInterval\": \"15s\", \"scrapeTimeout\": \"10s\"},"
    "{\"labels\": {\"job\": \"node\", \"node\": \"worker-02\"}, "
    "\"health\": \"up\", \"lastError\": \"\", "
    "\"lastScrape\": \"2026-12-06T10:20:25Z\", "
    "\"scrapeInterval\": \"15s\", \"scrapeTimeout\": \"10s\"},"
    "{\"labels\": {\"job\": \"node\", \"node\": \"head-01\"}, "
    "\"health\": \"down\", \"lastError\": \"context deadline exceeded\", "
    "\"lastScrape\": \"2026-12-06T10:20:33Z\", "
    "\"scrapeInterval\": \"15s\", \"scrapeTimeout\": \"10s\"},"
    "{\"labels\": {\"job\": \"dcgm\", \"node\": \"worker-02\"}, "
    "\"health\": \"unknown\", \"lastError\": \"\", "
    "\"lastScrape\": \"0001-01-01T00:00:00Z\", "
    "\"scrapeInterval\": \"1m\", \"scrapeTimeout\": \"20s\"},"
    "{\"labels\": {\"job\": \"prometheus\"}, \"health\": \"down\", "
    "\"lastScrape\": \"2026-12-06T09:00:00Z\"}"
    "]}}";

START_TEST(test_prom_wait)
{
	struct verify_targets	 t;
	struct prov_err		 err = PROV_ERR_INIT;
	const double		 since = 1796552430.0;	/* 10:20:30 */

	memset(&t, 0, sizeof t);
	ck_assert_ok(verify_parse_prom_targets(&t, prom_after_apply,
	    strlen(prom_after_apply), &err), &err);
	ck_assert_uint_eq(t.n, 5);
	ck_assert_double_eq_tol(t.v[0].last_scrape, since - 9.5, 1e-6);
	ck_assert_double_eq(t.v[0].interval, 15);
	ck_assert_double_eq(t.v[0].timeout, 10);
	ck_assert_double_eq(t.v[3].interval, 60);
	ck_assert(t.v[3].last_scrape < 0);
	ck_assert_double_eq(t.v[4].interval, 0);
	/* refused before verify began: wait for the next scrape */
	ck_assert_int_eq(verify_prom_stale(&t.v[0], since), 1);
	/* up: not waited for, however old */
	ck_assert_int_eq(verify_prom_stale(&t.v[1], since), 0);
	/* down on a scrape after verify began: the verdict stands */
	ck_assert_int_eq(verify_prom_stale(&t.v[2], since), 0);
	/* never scraped */
	ck_assert_int_eq(verify_prom_stale(&t.v[3], since), 1);
	/* not a target verify judges */
	ck_assert_int_eq(verify_prom_stale(&t.v[4], since), 0);
	/* the longest: dcgm's 1m + 20s, and the margin */
	ck_assert_double_eq(verify_prom_wait(&t, since),
	    80 + VERIFY_PROM_MARGIN);
	/* dcgm up: node's 15s + 10s */
	free(t.v[3].health);
	t.v[3].health = xstrdup("up");
	ck_assert_double_eq(verify_prom_wait(&t, since),
	    25 + VERIFY_PROM_MARGIN);
	/* no interval given: Prometheus's defaults, 1m and 10s */
	t.v[0].interval = t.v[0].timeout = 0;
	ck_assert_double_eq(verify_prom_wait(&t, since),
	    70 + VERIFY_PROM_MARGIN);
	/* no lastScrape in the answer: none newer will come */
	t.v[1].last_scrape = 0;
	free(t.v[1].health);
	t.v[1].health = xstrdup("down");
	ck_assert_int_eq(verify_prom_stale(&t.v[1], since), 0);
	/* a verify that began before worker-01's scrape waits for none */
	ck_assert_double_eq(verify_prom_wait(&t, since - 10), 0);
	verify_targets_release(&t);
	prov_err_release(&err);
}
END_TEST

/*
 * The rows from the answer above when verify's wait ran out: a target
 * down on a scrape before verify began says so, one down on a fresh
 * scrape says when.
 */
START_TEST(test_eval_prom_scraped)
{
	struct plan		*p = load_plan("examples/testbed.yaml");
	struct verify_node	 vn[3];
	struct verify_env	 env = VERIFY_ENV_INIT;
	struct verify_opts	 o = VERIFY_OPTS_INIT;
	struct rows		 rows = ROWS_INIT;
	const struct row	*r;
	size_t			 i;

	memset(vn, 0, sizeof vn);
	vn[0].pn = plan_node(p, "head-01");
	vn[1].pn = plan_node(p, "worker-01");
	vn[2].pn = plan_node(p, "worker-02");
	for (i = 0; i < 3; i++)
		vn[i].error = xstrdup("unreachable: connect refused");
	env.since = 1796552430.0;
	env.prom_url = "http://127.0.10.1:9090";
	env.prom_json = prom_after_apply;
	env.prom_len = strlen(prom_after_apply);
	verify_eval(&rows, NULL, p, vn, 3, &vn[0], &env, &o);
	dump_rows(&rows);
	r = find_row(&rows, "worker-01", "prometheus node");
	ck_assert_int_eq(r->verdict, ROW_FAIL);
	ck_assert_str_eq(r->measured, "down");
	ck_assert_ptr_nonnull(strstr(r->hint, "connection refused (last "
	    "scraped at 10:20:20 UTC, 10 s before verify began; no scrape "
	    "since)"));
	r = find_row(&rows, "head-01", "prometheus node");
	ck_assert_int_eq(r->verdict, ROW_FAIL);
	ck_assert_str_eq(r->hint, "context deadline exceeded (scraped at "
	    "10:20:33 UTC)");
	ck_assert_int_eq(find_row(&rows, "worker-02",
	    "prometheus node")->verdict, ROW_OK);
	rows_release(&rows);
	for (i = 0; i < 3; i++)
		verify_node_release(&vn[i]);
	plan_free(p);
}
END_TEST

START_TEST(test_eval_unreachable)
{
	struct plan		*p = load_plan("examples/testbed.yaml");
	struct verify_node	 vn[2];
	struct verify_env	 env = VERIFY_ENV_INIT;
	struct verify_opts	 o = VERIFY_OPTS_INIT;
	struct rows		 rows = ROWS_INIT;
	const struct row	*r;

	memset(vn, 0, sizeof vn);
	vn[0].pn = plan_node(p, "head-01");
	vn[0].error = xstrdup("unreachable: connect refused");
	vn[1].pn = plan_node(p, "worker-02");
	vn[1].error = xstrdup("auth: refused");
	env.prom_url = "http://127.0.10.1:9090";
	env.prom_error = "Couldn't connect to server";
	verify_eval(&rows, NULL, p, vn, 2, &vn[0], &env, &o);
	dump_rows(&rows);
	r = find_row(&rows, "head-01", "ssh");
	ck_assert_int_eq(r->verdict, ROW_FAIL);
	ck_assert_str_eq(r->hint, "unreachable: connect refused");
	ck_assert_int_eq(find_row(&rows, "head-01", "prometheus api")->verdict,
	    ROW_FAIL);
	ck_assert_int_eq(find_row(&rows, "worker-02", "ssh")->verdict,
	    ROW_FAIL);
	/* the head did not answer: worker-02's Slurm row says so */
	r = find_row(&rows, "worker-02", "slurm node");
	ck_assert_int_eq(r->verdict, ROW_SKIP);
	ck_assert_ptr_nonnull(strstr(r->hint, "head-01"));
	ck_assert_uint_eq(rows_count(&rows, ROW_OK), 0);
	rows_release(&rows);
	verify_node_release(&vn[0]);
	verify_node_release(&vn[1]);
	plan_free(p);
}
END_TEST

/*
 * A shared cluster's head: bob's uid drifted, accounting answers (as
 * t120 captured it) with nlp's share changed by hand, worker-02 never
 * logged to the head.
 */
START_TEST(test_eval_people)
{
	struct plan		*p = load_plan("examples/testbed-shared.yaml");
	struct verify_node	 vn;
	struct verify_env	 env = VERIFY_ENV_INIT;
	struct verify_opts	 o = VERIFY_OPTS_INIT;
	struct rows		 rows = ROWS_INIT;
	const struct row	*r;
	static const char	 out[] =
	    "@@facts v-clock\n1764529200.000\n@@rc 0\n"
	    "@@facts hostname\nhead-01\n@@rc 0\n"
	    "@@facts end\n"
	    "@@facts v-users\nalice:3001:3001\nbob:3999:3000\n"
	    "carol:3003:3003\n@@rc 0\n"
	    "@@facts v-sacctmgr\nroot||1|\nroot|root|1|\nnlp||10|\n"
	    "nlp|carol|1|\nvision||60|gres/gpu=2\nvision|alice|1|\n"
	    "vision|bob|1|\n@@rc 0\n"
	    "@@facts v-logs\nworker-01 95\nworker-02 -\n@@rc 0\n"
	    "@@facts v-end\n@@rc 0\n";

	node_answered(&vn, p, "head-01", out);
	env.t0 = 1764529199.0;
	env.t1 = 1764529201.0;
	verify_eval(&rows, NULL, p, &vn, 1, &vn, &env, &o);
	dump_rows(&rows);
	r = find_row(&rows, "head-01", "users");
	ck_assert_int_eq(r->verdict, ROW_FAIL);
	ck_assert_str_eq(r->measured, "bob is uid:gid 3999:3000 (plan "
	    "3002:3000)");
	ck_assert_int_eq(find_row(&rows, "head-01", "accounting")->verdict,
	    ROW_OK);
	ck_assert_int_eq(find_row(&rows, "head-01", "team vision")->verdict,
	    ROW_OK);
	ck_assert_int_eq(find_row(&rows, "head-01", "team nlp")->verdict,
	    ROW_FAIL);
	r = find_row(&rows, "head-01", "logs of worker-01");
	ck_assert_int_eq(r->verdict, ROW_OK);
	ck_assert_str_eq(r->measured, "last 1 min ago");
	ck_assert_int_eq(find_row(&rows, "head-01",
	    "logs of worker-02")->verdict, ROW_FAIL);
	rows_release(&rows);
	verify_node_release(&vn);
	plan_free(p);
}
END_TEST

/*
 * The directory row: sssd answers for the plan's verify_user on one node,
 * runs without knowing it on another, and is not running on a third
 * (which the node's own /etc/passwd could not hide: sss is asked alone).
 */
START_TEST(test_eval_directory)
{
	struct plan		*p = load_plan("tests/fixtures/plan/directory.yaml");
	struct verify_node	 vn[3];
	struct verify_env	 env = VERIFY_ENV_INIT;
	struct verify_opts	 o = VERIFY_OPTS_INIT;
	struct rows		 rows = ROWS_INIT;
	const struct row	*r;
	static const char *const out[] = {
	    "@@facts v-directory\nsssd running 42\n"
	    "user ldapuser:10001:10000\n@@rc 0\n",
	    "@@facts v-directory\nsssd running 43\nuser -\n@@rc 0\n",
	    "@@facts v-directory\nsssd stopped -\nuser -\n@@rc 0\n",
	};
	static const char *const node[] = { "head-01", "worker-01", "head-01" };
	size_t			 i;

	for (i = 0; i < 3; i++) {
		char	*text = xasprintf("@@facts v-clock\n1764529200.000\n"
		    "@@rc 0\n@@facts hostname\n%s\n@@rc 0\n@@facts end\n"
		    "%s@@facts v-end\n@@rc 0\n", node[i], out[i]);

		node_answered(&vn[i], p, node[i], text);
		free(text);
	}
	env.t0 = 1764529199.0;
	env.t1 = 1764529201.0;
	verify_eval(&rows, NULL, p, vn, 2, &vn[0], &env, &o);
	dump_rows(&rows);
	r = find_row(&rows, "head-01", "directory");
	ck_assert_ptr_nonnull(r);
	ck_assert_int_eq(r->verdict, ROW_OK);
	ck_assert_str_eq(r->measured, "ldapuser uid 10001 gid 10000");
	r = find_row(&rows, "worker-01", "directory");
	ck_assert_int_eq(r->verdict, ROW_FAIL);
	ck_assert_str_eq(r->measured, "unknown to sssd");
	rows_release(&rows);
	verify_eval(&rows, NULL, p, &vn[2], 1, &vn[2], &env, &o);
	r = find_row(&rows, "head-01", "directory");
	ck_assert_int_eq(r->verdict, ROW_FAIL);
	ck_assert_str_eq(r->measured, "sssd is not running");
	rows_release(&rows);
	for (i = 0; i < 3; i++)
		verify_node_release(&vn[i]);
	plan_free(p);
}
END_TEST

/* Without directory: in the plan, no directory row. */
START_TEST(test_eval_no_directory)
{
	struct plan		*p = load_plan("examples/testbed-shared.yaml");
	struct verify_node	 vn;
	struct verify_env	 env = VERIFY_ENV_INIT;
	struct verify_opts	 o = VERIFY_OPTS_INIT;
	struct rows		 rows = ROWS_INIT;
	struct buf		 script = BUF_INIT;

	node_answered(&vn, p, "head-01", "@@facts v-clock\n1.0\n@@rc 0\n"
	    "@@facts end\n@@facts v-end\n@@rc 0\n");
	verify_eval(&rows, NULL, p, &vn, 1, &vn, &env, &o);
	ck_assert_ptr_null(find_row(&rows, "head-01", "directory"));
	verify_script(&script, p, vn.pn, NULL, 0, &o);
	ck_assert_ptr_nonnull(strstr(script.buf, "\nV_DIR=0\nV_DIRUSER=''\n"));
	buf_release(&script);
	rows_release(&rows);
	verify_node_release(&vn);
	plan_free(p);
}
END_TEST

/* A GPU node's burn-in answer: dcgmproftester's fp16 run, no fp64 tool. */
static char *
burnin_answer(const char *node, const char *gemm)
{
	struct buf	b = BUF_INIT;

	buf_addf(&b, "@@facts v-clock\n1764529200.000\n@@rc 0\n"
	    "@@facts hostname\n%s\n@@rc 0\n@@facts end\n", node);
	buf_adds(&b, "@@facts v-gemm-tool\ndcgmproftester12\n"
	    "datacenter-gpu-manager 1:3.3.5\n@@rc 0\n");
	buf_addf(&b, "@@facts v-gemm-fp16\n%s@@rc 0\n", gemm);
	/* what vg prints where the tool is missing */
	buf_adds(&b, "@@facts v-gemm-fp64\ndcgmproftester not installed "
	    "(NVIDIA DCGM, datacenter-gpu-manager)\n@@rc 127\n");
	buf_adds(&b, "@@facts v-end\n@@rc 0\n");
	return buf_detach(&b, NULL);
}

/*
 * --burn-in on three A100 nodes and the head: two GPUs at NVIDIA's
 * documented 252.9 TFLOPS, one at the blog's 189 (a straggler), fp64 not
 * installed, the 2 x 8 H100 all-reduce from the head.  Then what verify
 * writes is what estimate reads: the same figures, "measured:" in its
 * peak and all-reduce rows, the slowest GPU's figure as the peak.
 */
START_TEST(test_eval_burnin_measured)
{
	struct plan		*p = load_plan("examples/pcie-lab.yaml");
	struct verify_node	 vn[4];
	struct verify_env	 env = VERIFY_ENV_INIT;
	struct verify_opts	 o = VERIFY_OPTS_INIT;
	struct verify_measured	 m;
	struct rows		 rows = ROWS_INIT;
	struct prov_err		 err = PROV_ERR_INIT;
	struct prov_errs	 errs = PROV_ERRS_INIT;
	struct estimate_measured me;
	struct estimate_model	 model;
	struct estimate_opts	 eo;
	struct estimate_result	 er = ESTIMATE_RESULT_INIT;
	struct buf		 head = BUF_INIT, json = BUF_INIT;
	char			*a100 = fixture("dcgmproftester-1004-a100.txt");
	char			*nccl = fixture("nccl-all-reduce-2x8-h100.txt");
	char			*out[3], path[] = "/tmp/test-measured-XXXXXX";
	const char		*names[3] = { "gpu01", "gpu02", "gpu03" };
	const struct row	*r;
	struct stat		 st;
	size_t			 i;
	int			 fd;

	out[0] = burnin_answer("gpu01", a100);
	out[1] = burnin_answer("gpu02", a100);
	out[2] = burnin_answer("gpu03", dpt_blog);
	for (i = 0; i < 3; i++)
		node_answered(&vn[i], p, names[i], out[i]);
	buf_addf(&head, "@@facts v-clock\n1764529200.000\n@@rc 0\n"
	    "@@facts hostname\nhead-01\n@@rc 0\n@@facts end\n"
	    "@@facts v-nccl\n%s@@rc 0\n@@facts v-end\n@@rc 0\n", nccl);
	node_answered(&vn[3], p, "head-01", head.buf);
	env.t0 = 1764529199.0;
	env.t1 = 1764529201.0;
	o.burn_in = 1;
	verify_measured_init(&m);
	verify_eval(&rows, &m, p, vn, 4, &vn[3], &env, &o);
	dump_rows(&rows);

	/* graded against the catalog's 312 TFLOPS FP16 of an A100 */
	r = find_row(&rows, "gpu01", "gemm fp16");
	ck_assert_str_eq(r->measured, "1 GPU: 252.9 TFLOPS (0.81 of peak)");
	ck_assert_str_eq(r->limit, ">= 60% of 312 TFLOPS (catalog "
	    "a100-pcie-80gb fp16_tflops)");
	/* the plan gives gpu01 8 GPUs; the recorded run had one */
	ck_assert_int_eq(r->verdict, ROW_WARN);
	ck_assert_ptr_nonnull(strstr(r->hint, "1 of the plan's 8 GPUs"));
	r = find_row(&rows, "gpu03", "gemm fp16");
	ck_assert_int_eq(r->verdict, ROW_WARN);
	ck_assert_ptr_nonnull(strstr(r->hint, "GPU 0 below 85% of the "
	    "cluster's median 252.9 TFLOPS"));
	r = find_row(&rows, "gpu02", "gemm fp64");
	ck_assert_int_eq(r->verdict, ROW_SKIP);
	ck_assert_str_eq(r->hint, "dcgmproftester not installed (NVIDIA DCGM, "
	    "datacenter-gpu-manager)");
	/* a node that was not verified gets no row */
	ck_assert_ptr_null(find_row(&rows, "gpu04", "gemm fp16"));

	/* only what the tools printed */
	ck_assert(fabs(m.busbw - 338.82) < 1e-9);
	ck_assert_int_eq(m.ranks, 16);
	ck_assert_int_eq(m.planned, 24);
	ck_assert(fabs(m.gemm[0].tflops - 189) < 1e-9);
	ck_assert_int_eq(m.gemm[0].gpus, 3);
	ck_assert(isnan(m.gemm[1].tflops));
	ck_assert_str_eq(m.gemm_tool, "dcgmproftester12 "
	    "(datacenter-gpu-manager 1:3.3.5)");
	ck_assert_uint_eq(m.missing.n, 3);
	ck_assert_str_eq(m.missing.v[0], "fp64 GEMM on gpu01: dcgmproftester "
	    "not installed (NVIDIA DCGM, datacenter-gpu-manager)");
	ck_assert(verify_measured_any(&m));
	ck_assert(verify_measured_partial(&m));

	/* written atomically, 0644, read back by estimate */
	fd = mkstemp(path);
	ck_assert_int_ge(fd, 0);
	close(fd);
	ck_assert_ok(verify_measured_write(&m, path, &err), &err);
	ck_assert_int_eq(stat(path, &st), 0);
	ck_assert_int_eq(st.st_mode & 0777, 0644);
	verify_measured_json(&json, &m);
	if (getenv("TEST_VERBOSE") != NULL)
		fputs(json.buf, stderr);
	ck_assert_ptr_nonnull(strstr(json.buf, "\"at\": "
	    "\"2025-11-30T19:00:01Z\""));
	ck_assert_int_eq(estimate_measured_load(&me, path, &errs), 0);
	ck_assert(fabs(me.allreduce_busbw_gbs - 338.82) < 1e-9);
	ck_assert_int_eq(me.allreduce_gpus, 16);
	ck_assert(fabs(me.allreduce_bytes - 8589934592.0) < 1e-3);
	ck_assert_uint_eq(me.allreduce_nodes.n, 2);
	ck_assert(fabs(me.gemm_tflops[ESTIMATE_FP16] - 189) < 1e-9);
	ck_assert(isnan(me.gemm_tflops[ESTIMATE_BF16]));
	ck_assert(isnan(me.gemm_tflops[ESTIMATE_FP64]));
	ck_assert(fabs(me.gemm_gpus[ESTIMATE_FP16] - 3) < 1e-9);
	ck_assert_uint_eq(me.gemm_nodes.n, 3);
	ck_assert_str_eq(me.written_by, "provision verify --burn-in");
	ck_assert(me.partial);
	ck_assert_uint_eq(me.missing.n, 3);

	/* estimate at fp16 takes the measured figure and says so */
	estimate_opts_init(&eo);
	eo.prec = ESTIMATE_FP16;
	eo.measured = &me;
	ck_assert_ok(estimate_model_parse(&model, p->catalog, "llama2-7b",
	    &err), &err);
	ck_assert_ok(estimate_plan(&er, p, &model, &eo, &err), &err);
	ck_assert(fabs(er.peak_tflops - 189) < 1e-9);
	for (i = 0; i < er.rows.n; i++)
		if (strcmp(er.rows.v[i].what, "peak") == 0)
			break;
	ck_assert_uint_lt(i, er.rows.n);
	ck_assert(str_starts(er.rows.v[i].hint, "measured: "));
	ck_assert_ptr_nonnull(strstr(er.rows.v[i].hint, "gemm_tflops.fp16, "
	    "by provision verify --burn-in, at 2025-11-30T19:00:01Z "
	    "(partial: see its 'missing'); the catalog says 312"));
	for (i = 0; i < er.rows.n; i++)
		if (strcmp(er.rows.v[i].what, "gradient all-reduce") == 0)
			break;
	ck_assert_uint_lt(i, er.rows.n);
	ck_assert_ptr_nonnull(strstr(er.rows.v[i].hint, "; measured bus "
	    "bandwidth 339 GB/s: "));
	estimate_result_release(&er);

	/* at bf16, which nobody measured: the datasheet, and why */
	eo.prec = ESTIMATE_BF16;
	ck_assert_ok(estimate_plan(&er, p, &model, &eo, &err), &err);
	ck_assert(fabs(er.peak_tflops - 312) < 1e-9);
	for (i = 0; i < er.rows.n; i++)
		if (strcmp(er.rows.v[i].what, "peak") == 0)
			break;
	ck_assert(str_starts(er.rows.v[i].hint, "datasheet: "));
	ck_assert_ptr_nonnull(strstr(er.rows.v[i].hint, "has GEMM figures for "
	    "fp16 only (--precision to use one)"));
	estimate_result_release(&er);

	estimate_measured_release(&me);
	prov_errs_release(&errs);
	unlink(path);
	verify_measured_release(&m);
	rows_release(&rows);
	for (i = 0; i < 4; i++)
		verify_node_release(&vn[i]);
	for (i = 0; i < 3; i++)
		free(out[i]);
	buf_release(&head);
	buf_release(&json);
	free(a100);
	free(nccl);
	plan_free(p);
}
END_TEST

/* Nothing measured (no tool anywhere): nothing to write. */
START_TEST(test_eval_burnin_nothing)
{
	struct plan		*p = load_plan("examples/pcie-lab.yaml");
	struct verify_node	 vn[2];
	struct verify_env	 env = VERIFY_ENV_INIT;
	struct verify_opts	 o = VERIFY_OPTS_INIT;
	struct verify_measured	 m;
	struct rows		 rows = ROWS_INIT;
	char			*out = burnin_answer("gpu01", "");
	static const char	 head[] = "@@facts v-clock\n1764529200.000\n"
	    "@@rc 0\n@@facts hostname\nhead-01\n@@rc 0\n@@facts end\n"
	    "@@facts v-nccl\nall_reduce_perf (nccl-tests) not found\n"
	    "@@rc 127\n@@facts v-end\n@@rc 0\n";
	char			*fp16;

	/* the fp16 section as vg prints it without the tool */
	fp16 = strstr(out, "@@facts v-gemm-fp16\n@@rc 0");
	ck_assert_ptr_nonnull(fp16);
	node_answered(&vn[0], p, "gpu01", out);
	node_answered(&vn[1], p, "head-01", head);
	o.burn_in = 1;
	verify_measured_init(&m);
	verify_eval(&rows, &m, p, vn, 2, &vn[1], &env, &o);
	dump_rows(&rows);
	/* an empty fp16 run is a failure to measure, not a figure */
	ck_assert_int_eq(find_row(&rows, "gpu01", "gemm fp16")->verdict,
	    ROW_FAIL);
	ck_assert_int_eq(find_row(&rows, "(cluster)",
	    "nccl all_reduce")->verdict, ROW_SKIP);
	ck_assert(!verify_measured_any(&m));
	ck_assert(isnan(m.busbw));
	ck_assert_uint_eq(m.missing.n, 3);
	ck_assert_str_eq(m.missing.v[0], "all-reduce: all_reduce_perf "
	    "(nccl-tests) not found");
	verify_measured_release(&m);
	rows_release(&rows);
	verify_node_release(&vn[0]);
	verify_node_release(&vn[1]);
	free(out);
	plan_free(p);
}
END_TEST

/*
 * Storage and two heads, as verify.sh's vmount and scontrol ping answer:
 * on head-01 (the server) /home bound and written by alice, the state
 * folder not reachable, the backup controller DOWN; on w01 /home the
 * node's own folder (the export not mounted), /data read.
 */
START_TEST(test_eval_storage)
{
	struct plan		*p = load_plan("tests/fixtures/storage/plan.yaml");
	struct verify_node	 vn[2];
	struct verify_env	 env = VERIFY_ENV_INIT;
	struct verify_opts	 o = VERIFY_OPTS_INIT;
	struct rows		 rows = ROWS_INIT;
	const struct row	*r;
	static const char	 head[] =
	    "@@facts v-clock\n1764529200.000\n@@rc 0\n"
	    "@@facts hostname\nhead-01\n@@rc 0\n"
	    "@@facts end\n"
	    "@@facts v-slurm-ping\nSlurmctld(primary) at head-01 is UP\n"
	    "Slurmctld(backup) at head-02 is DOWN\n@@rc 1\n"
	    "@@facts v-storage\n/home ext4 alice wrote /home/alice\n"
	    "/var/spool/slurm-state - alice unreachable\n@@rc 0\n"
	    "@@facts v-end\n@@rc 0\n";
	static const char	 w01[] =
	    "@@facts v-clock\n1764529200.000\n@@rc 0\n"
	    "@@facts hostname\nw01\n@@rc 0\n"
	    "@@facts end\n"
	    "@@facts v-storage\n/home ext4 alice wrote /home/alice\n"
	    "/data nfs4 alice read\n@@rc 0\n"
	    "@@facts v-end\n@@rc 0\n";

	node_answered(&vn[0], p, "head-01", head);
	node_answered(&vn[1], p, "w01", w01);
	env.t0 = 1764529199.0;
	env.t1 = 1764529201.0;
	verify_eval(&rows, NULL, p, vn, 2, &vn[0], &env, &o);
	dump_rows(&rows);
	r = find_row(&rows, "head-01", "storage /home");
	ck_assert_int_eq(r->verdict, ROW_OK);
	ck_assert_str_eq(r->limit, "bound, writable");
	ck_assert_str_eq(r->measured, "written by alice in /home/alice");
	r = find_row(&rows, "head-01", "storage /var/spool/slurm-state");
	ck_assert_int_eq(r->verdict, ROW_FAIL);
	ck_assert_ptr_nonnull(strstr(r->hint, "head-01 up and serving "
	    "/srv/nfs/slurm"));
	/* w01's /home is its own disk: the export is not mounted there */
	r = find_row(&rows, "w01", "storage /home");
	ck_assert_int_eq(r->verdict, ROW_FAIL);
	ck_assert_str_eq(r->measured, "ext4");
	r = find_row(&rows, "w01", "storage /data");
	ck_assert_int_eq(r->verdict, ROW_OK);
	ck_assert_str_eq(r->limit, "mounted over NFS, readable");
	/* w01 mounts no state; head-01 no data */
	ck_assert_ptr_null(find_row(&rows, "w01",
	    "storage /var/spool/slurm-state"));
	ck_assert_ptr_null(find_row(&rows, "head-01", "storage /data"));
	/* the backup, as the head's scontrol ping sees it */
	r = find_row(&rows, "head-02", "slurm backup controller");
	ck_assert_int_eq(r->verdict, ROW_FAIL);
	ck_assert_str_eq(r->measured, "Slurmctld(backup) at head-02 is DOWN");
	rows_release(&rows);
	verify_node_release(&vn[0]);
	verify_node_release(&vn[1]);
	plan_free(p);
}
END_TEST

/* The script runs here with /bin/sh and answers every section. */
START_TEST(test_script_runs_here)
{
	struct plan		*p = load_plan("examples/testbed.yaml");
	struct plan_node	*sel[3];
	struct verify_opts	 o = VERIFY_OPTS_INIT;
	struct verify_node	 vn;
	struct buf		 b = BUF_INIT, out = BUF_INIT;
	struct prov_err		 err = PROV_ERR_INIT;
	size_t			 i;
	static const char *const secs[] = { "clock", "ip", "links", "getent",
	    "reach", "time", "daemons", "slurm-ping", "sinfo", "scontrol",
	    "srun", "end" };

	for (i = 0; i < 3; i++)
		sel[i] = &p->nodes[i];
	o.job_timeout_s = 5;
	verify_script(&b, p, &p->nodes[0], sel, 3, &o);
	run_here(&b, &out);

	memset(&vn, 0, sizeof vn);
	vn.pn = &p->nodes[0];
	ck_assert_ok(verify_node_parse(&vn, out.buf, &err), &err);
	for (i = 0; i < ARRAY_SIZE(secs); i++)
		ck_assert_msg(verify_node_sec(&vn, secs[i]) != NULL,
		    "no section '%s' in:\n%s", secs[i], out.buf);
	ck_assert_int_eq(verify_node_sec(&vn, "ip")->rc, 0);
	ck_assert_ptr_nonnull(vn.facts->node);
	/* the facts part was read too */
	ck_assert_ptr_nonnull(vn.facts->os_id);
	verify_node_release(&vn);
	buf_release(&b);
	buf_release(&out);
	plan_free(p);
}
END_TEST


/*
 * verify.sh's vmount run here on real folders: the storage section names
 * each mount point first, the writable one "wrote" (vmount's `set --`
 * once took $1, and every writable export's line began with the command).
 * A folder of another owner is written as that owner (Slurm's state is
 * slurm's: t040 found root's plan user refused there), and one its owner
 * cannot write says so.
 */
START_TEST(test_script_vmount_here)
{
	struct plan_opts	 po = PLAN_OPTS_INIT;
	struct prov_errs	 errs = PROV_ERRS_INIT;
	struct plan		*p = NULL;
	struct plan_node	*sel[1];
	struct verify_opts	 o = VERIFY_OPTS_INIT;
	struct verify_node	 vn;
	struct buf		 b = BUF_INIT, out = BUF_INIT;
	struct prov_err		 err = PROV_ERR_INIT;
	const struct verify_sec	*s;
	char			 dir[] = "/tmp/test-vmount.XXXXXX";
	char			*cmd, *yaml, *want;
	char			*cat = test_path("profiles");

	po.builtin_dir = cat;
	ck_assert_ptr_nonnull(mkdtemp(dir));
	yaml = xasprintf("version: 1\ncluster: { name: vm }\n"
	    "nodes:\n  - { name: n1, role: head, address: 10.0.0.1 }\n"
	    "software: { os: { distro: debian, release: \"12\" } }\n"
	    "storage:\n"
	    "  rw: { server: nas.example.com, path: /export/rw, mount: %s/rw }\n"
	    "  ro: { server: nas.example.com, path: /export/ro, mount: %s/ro,"
	    " readonly: true }\n"
	    "  own: { server: nas.example.com, path: /export/own, mount: %s/own }\n"
	    "  shut: { server: nas.example.com, path: /export/shut,"
	    " mount: %s/shut }\n", dir, dir, dir, dir);
	if (plan_load_buf(&p, "vmount.yaml", yaml, strlen(yaml), &po,
	    &errs) != 0) {
		prov_errs_print(&errs, stderr);
		ck_abort_msg("the plan did not load");
	}
	/* daemon (uid 1) is on every Debian system */
	cmd = xasprintf("chmod 755 %s && mkdir %s/rw %s/ro %s/own %s/shut && "
	    "chown daemon: %s/own %s/shut && chmod 555 %s/shut", dir, dir, dir,
	    dir, dir, dir, dir, dir);
	ck_assert_int_eq(system(cmd), 0);
	free(cmd);
	sel[0] = &p->nodes[0];
	o.job_timeout_s = 5;
	verify_script(&b, p, &p->nodes[0], sel, 1, &o);
	run_here(&b, &out);

	memset(&vn, 0, sizeof vn);
	vn.pn = &p->nodes[0];
	ck_assert_ok(verify_node_parse(&vn, out.buf, &err), &err);
	s = verify_node_sec(&vn, "storage");
	ck_assert_msg(s != NULL, "no storage section in:\n%s", out.buf);
	want = xasprintf("%s/rw ", dir);
	ck_assert_msg(str_starts(s->body, want) &&
	    strstr(s->body, " root wrote ") != NULL,
	    "the writable export's line: %s", s->body);
	free(want);
	want = xasprintf("\n%s/ro ", dir);
	ck_assert_msg(strstr(s->body, want) != NULL &&
	    strstr(s->body, " root read") != NULL,
	    "the read-only export's line: %s", s->body);
	free(want);
	/* "MOUNT FSTYPE WHO RESULT": the file system is this machine's */
	want = xasprintf(" daemon wrote %s/own\n", dir);
	ck_assert_msg(strstr(s->body, want) != NULL,
	    "the owner's export, want '%s' in: %s", want, s->body);
	free(want);
	want = xasprintf("\n%s/shut ", dir);
	ck_assert_msg(strstr(s->body, want) != NULL &&
	    strstr(strstr(s->body, want), " daemon cannot-write ") != NULL,
	    "the shut export, daemon cannot write, in: %s", s->body);
	free(want);
	verify_node_release(&vn);
	cmd = xasprintf("rm -rf %s", dir);
	ck_assert_int_eq(system(cmd), 0);
	free(cmd);
	buf_release(&b);
	buf_release(&out);
	free(yaml);
	free(cat);
	prov_errs_release(&errs);
	plan_free(p);
}
END_TEST

/*
 * A GPU node's burn-in script run here, where DCGM is not installed: the
 * GEMM sections say so (rc 127), the rows are skips, nothing is measured.
 */
START_TEST(test_script_burnin_here)
{
	struct plan		*p = load_plan("examples/pcie-lab.yaml");
	struct plan_node	*sel[1];
	struct verify_opts	 o = VERIFY_OPTS_INIT;
	struct verify_env	 env = VERIFY_ENV_INIT;
	struct verify_measured	 m;
	struct verify_node	 vn;
	struct rows		 rows = ROWS_INIT;
	struct buf		 b = BUF_INIT, out = BUF_INIT;
	struct prov_err		 err = PROV_ERR_INIT;
	const struct verify_sec	*s;

	if (system("command -v dcgmproftester12 >/dev/null 2>&1 || "
	    "command -v dcgmproftester13 >/dev/null 2>&1 || "
	    "command -v dcgmproftester11 >/dev/null 2>&1") == 0)
		return;	/* DCGM here: this test is about its absence */
	sel[0] = plan_node(p, "gpu01");
	o.burn_in = 1;
	verify_script(&b, p, sel[0], sel, 1, &o);
	run_here(&b, &out);

	memset(&vn, 0, sizeof vn);
	vn.pn = sel[0];
	ck_assert_ok(verify_node_parse(&vn, out.buf, &err), &err);
	vn.reached = 1;
	ck_assert_int_eq(verify_node_sec(&vn, "gemm-tool")->rc, 127);
	s = verify_node_sec(&vn, "gemm-fp16");
	ck_assert_ptr_nonnull(s);
	ck_assert_int_eq(s->rc, 127);
	ck_assert(str_starts(s->body, "dcgmproftester not installed"));
	ck_assert_int_eq(verify_node_sec(&vn, "gemm-fp64")->rc, 127);
	verify_measured_init(&m);
	verify_eval(&rows, &m, p, &vn, 1, NULL, &env, &o);
	dump_rows(&rows);
	ck_assert_int_eq(find_row(&rows, "gpu01", "gemm fp16")->verdict,
	    ROW_SKIP);
	ck_assert_int_eq(find_row(&rows, "gpu01", "gemm fp64")->verdict,
	    ROW_SKIP);
	ck_assert(!verify_measured_any(&m));
	verify_measured_release(&m);
	rows_release(&rows);
	verify_node_release(&vn);
	buf_release(&b);
	buf_release(&out);
	plan_free(p);
}
END_TEST

/* Every node of every example gets a script sh can read, burn-in too. */
START_TEST(test_script_syntax_examples)
{
	static const char *const plans[] = { "examples/dgx-a100-pod.yaml",
	    "examples/pcie-lab.yaml", "examples/edge-inference.yaml",
	    "examples/testbed.yaml" };
	size_t	k, i;

	for (k = 0; k < ARRAY_SIZE(plans); k++) {
		struct plan		 *p = load_plan(plans[k]);
		struct plan_node	**sel = xcalloc(p->nnodes + 1,
					    sizeof *sel);
		struct verify_opts	  o = VERIFY_OPTS_INIT;

		o.burn_in = 1;
		for (i = 0; i < p->nnodes; i++)
			sel[i] = &p->nodes[i];
		for (i = 0; i < p->nnodes; i++) {
			struct buf	 b = BUF_INIT;
			char		 path[] = "/tmp/test-verify.XXXXXX";
			char		*cmd;
			int		 fd;

			verify_script(&b, p, &p->nodes[i], sel, p->nnodes, &o);
			fd = mkstemp(path);
			ck_assert_int_ge(fd, 0);
			ck_assert_int_eq(write(fd, b.buf, b.len),
			    (ssize_t)b.len);
			close(fd);
			cmd = xasprintf("sh -n %s", path);
			ck_assert_msg(system(cmd) == 0, "%s %s: sh -n fails",
			    plans[k], p->nodes[i].name);
			/* a GPU node is asked for its health and a DCGM run */
			if (p->nodes[i].hw != NULL && p->nodes[i].hw->ngpus > 0)
				ck_assert(strstr(b.buf, "nv v-nvsmi-xml -q -x") !=
				    NULL && strstr(b.buf, "dcgmi diag -r 2") !=
				    NULL);
			unlink(path);
			free(cmd);
			buf_release(&b);
		}
		free(sel);
		plan_free(p);
	}
}
END_TEST

/* Slurm without partitions: every worker is in the default one. */
START_TEST(test_script_no_partitions)
{
	static const char yaml[] =
	    "version: 1\n"
	    "cluster: { name: np }\n"
	    "networks: { lo: { cidr: 127.0.20.0/24, kind: ethernet, gbps: 10,"
	    " role: management } }\n"
	    "nodes:\n"
	    "  - { name: h1, role: head, address: 127.0.20.1 }\n"
	    "  - { name: 'w[1-3]', role: worker, address: '127.0.20.[2-4]' }\n"
	    "software: { orchestrator: { kind: slurm } }\n";
	struct plan_opts	 o = PLAN_OPTS_INIT;
	struct prov_errs	 errs = PROV_ERRS_INIT;
	struct verify_opts	 vo = VERIFY_OPTS_INIT;
	struct plan		*p = NULL;
	struct plan_node	*sel[4];
	struct buf		 b = BUF_INIT;
	char			*dir = test_path("profiles");
	size_t			 i;

	o.builtin_dir = dir;
	if (plan_load_buf(&p, "np.yaml", yaml, strlen(yaml), &o, &errs) != 0) {
		prov_errs_print(&errs, stderr);
		ck_abort_msg("plan did not load");
	}
	for (i = 0; i < 4; i++)
		sel[i] = &p->nodes[i];
	verify_script(&b, p, &p->nodes[0], sel, 4, &vo);
	ck_assert_ptr_nonnull(strstr(b.buf, "V_SLURM=1\n"));
	ck_assert_ptr_nonnull(strstr(b.buf,
	    "\tv_srun '' 'w[1-3]' 3 'w1' 'w2' 'w3'\n"));
	ck_assert_ptr_nonnull(strstr(b.buf, "vd 'slurmctld' 'slurmctld'"));
	buf_release(&b);
	verify_script(&b, p, &p->nodes[2], sel, 4, &vo);
	ck_assert_ptr_nonnull(strstr(b.buf, "vd 'slurmd' 'slurmd'"));
	/* a worker runs no Slurm job */
	ck_assert_ptr_nonnull(strstr(b.buf, "V_SLURM=0\n"));
	buf_release(&b);
	prov_errs_release(&errs);
	plan_free(p);
	free(dir);
}
END_TEST

/* ------------------------------------------------------------------ */
/* JSON and JUnit */

START_TEST(test_json_roundtrip)
{
	struct rows		a = ROWS_INIT, b = ROWS_INIT;
	struct verify_stats	st = { 2, 1 };
	struct buf		j = BUF_INIT, x = BUF_INIT;
	struct prov_err		err = PROV_ERR_INIT;
	size_t			i;

	rows_addf(&a, ROW_FAIL, "gpu01", "gpu ecc", "0 uncorrectable",
	    "2 uncorrectable, 0 corrected", "drain \"it\" & <run> dcgmi");
	rows_addf(&a, ROW_SKIP, "gpu01", "gpu", NULL, NULL, "no GPU");
	rows_addf(&a, ROW_WARN, VERIFY_CLUSTER, "nccl all_reduce",
	    "~300 GB/s", "peak 240 GB/s", NULL);
	rows_addf(&a, ROW_OK, "gpu02", "hostname", "gpu02", "gpu02", NULL);
	verify_to_json(&j, "plan.yaml", &a, &st);
	ck_assert_ptr_nonnull(strstr(j.buf, "\"summary\": {\"nodes\": 2, "
	    "\"reached\": 1, \"ok\": 1, \"warn\": 1, \"fail\": 1, "
	    "\"skip\": 1}"));
	ck_assert_ok(verify_from_json(&b, "j", j.buf, j.len, &err), &err);
	ck_assert_uint_eq(b.n, a.n);
	for (i = 0; i < a.n; i++) {
		ck_assert_str_eq(b.v[i].subject, a.v[i].subject);
		ck_assert_str_eq(b.v[i].what, a.v[i].what);
		ck_assert_int_eq(b.v[i].verdict, a.v[i].verdict);
		if (a.v[i].hint != NULL)
			ck_assert_str_eq(b.v[i].hint, a.v[i].hint);
		else
			ck_assert_ptr_null(b.v[i].hint);
	}
	rows_to_junit(&x, "provision verify", "plan.yaml", &a);
	ck_assert_ptr_nonnull(strstr(x.buf, "<testsuites name=\"provision "
	    "verify\" tests=\"4\" failures=\"1\" skipped=\"1\">"));
	ck_assert_ptr_nonnull(strstr(x.buf, "<testsuite name=\"gpu01\" "
	    "tests=\"2\" failures=\"1\""));
	ck_assert_ptr_nonnull(strstr(x.buf, "drain &quot;it&quot; &amp; "
	    "&lt;run&gt;"));
	ck_assert_ptr_null(strstr(x.buf, "<run>"));
	ck_assert_ptr_nonnull(strstr(x.buf, "<skipped message=\"no GPU\"/>"));
	/* not verify output */
	ck_assert_int_ne(verify_from_json(&b, "k", "{\"rows\": []}", 12,
	    &err), 0);
	prov_err_release(&err);
	/* a file verify wrote before rows: node, expected, found, reason */
	rows_release(&b);
	buf_reset(&j);
	buf_adds(&j, "{\"checks\": [{\"node\": \"n1\", \"check\": \"gpu\", "
	    "\"expected\": \"8\", \"found\": \"7\", \"verdict\": \"fail\", "
	    "\"reason\": \"one lost\"}]}");
	ck_assert_ok(verify_from_json(&b, "old", j.buf, j.len, &err), &err);
	ck_assert_uint_eq(b.n, 1);
	ck_assert_str_eq(b.v[0].subject, "n1");
	ck_assert_str_eq(b.v[0].limit, "8");
	ck_assert_str_eq(b.v[0].measured, "7");
	ck_assert_str_eq(b.v[0].hint, "one lost");
	prov_err_release(&err);
	rows_release(&a);
	rows_release(&b);
	buf_release(&j);
	buf_release(&x);
}
END_TEST

static Suite *
verify_suite(void)
{
	Suite	*s = suite_create("verify");
	TCase	*tc = tcase_create("parsers");

	tcase_add_test(tc, test_nvsmi_a100_mig);
	tcase_add_test(tc, test_nvsmi_q_text);
	tcase_add_test(tc, test_nvsmi_a5000_no_ecc);
	tcase_add_test(tc, test_nvsmi_p100_old_layout);
	tcase_add_test(tc, test_nvsmi_not_xml);
	tcase_add_test(tc, test_nvsmi_csv_refused);
	tcase_add_test(tc, test_sinfo_slurm25);
	tcase_add_test(tc, test_sinfo_bad);
	tcase_add_test(tc, test_scontrol_slurm24);
	tcase_add_test(tc, test_slurm_states);
	tcase_add_test(tc, test_gres_gpus);
	tcase_add_test(tc, test_chrony_manual);
	tcase_add_test(tc, test_xid_dmesg);
	tcase_add_test(tc, test_nccl_2x8_h100);
	tcase_add_test(tc, test_dcgmproftester);
	tcase_add_test(tc, test_eval_burnin_measured);
	tcase_add_test(tc, test_eval_burnin_nothing);
	tcase_add_test(tc, test_prom_targets);
	tcase_add_test(tc, test_prom_rfc3339);
	tcase_add_test(tc, test_prom_duration);
	tcase_add_test(tc, test_prom_wait);
	tcase_add_test(tc, test_eval_prom_scraped);
	tcase_add_test(tc, test_dcgmi_refuses_other_text);
	suite_add_tcase(s, tc);
	tc = tcase_create("eval");
	tcase_add_test(tc, test_eval_gpu_node);
	tcase_add_test(tc, test_eval_mig);
	tcase_add_test(tc, test_eval_unreachable);
	tcase_add_test(tc, test_eval_people);
	tcase_add_test(tc, test_eval_directory);
	tcase_add_test(tc, test_eval_no_directory);
	tcase_add_test(tc, test_eval_storage);
	tcase_add_test(tc, test_script_runs_here);
	tcase_add_test(tc, test_script_vmount_here);
	tcase_add_test(tc, test_script_burnin_here);
	tcase_add_test(tc, test_script_syntax_examples);
	tcase_add_test(tc, test_script_no_partitions);
	tcase_set_timeout(tc, 60);
	suite_add_tcase(s, tc);
	tc = tcase_create("output");
	tcase_add_test(tc, test_json_roundtrip);
	suite_add_tcase(s, tc);
	return s;
}

TEST_MAIN(verify_suite)

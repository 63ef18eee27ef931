/*
 * verify.h: prove that a running cluster is the one its plan describes
 * (day two, docs/architecture.md): GPUs, driver, ECC, XID, PCIe links,
 * fabric, names and reachability, services (container runtime, Slurm,
 * Kubernetes, Prometheus), time, and on request a burn-in (DCGM
 * diagnostics, nccl-tests).
 *
 * One SSH round trip per node: verify_script() is the facts script
 * (facts.h) followed by sections of its own, each after a line
 * "@@facts v-NAME" and ended by "@@rc STATUS", so facts_parse_script()
 * reads the hardware part and skips the rest.  The head node's script
 * also asks Slurm and Kubernetes about every node and starts the test
 * jobs.  Prometheus is read over HTTP from this workstation.
 *
 *	struct rows rows = ROWS_INIT;
 *	struct verify_opts o = VERIFY_OPTS_INIT;
 *	struct verify_stats st;
 *	if (verify_run(&rows, &st, plan, &o, &notes, &err) != 0)
 *		... could not run at all (err) ...
 *	st.reached == 0: nothing answered (exit 2)
 *	rows_count(&rows, ROW_FAIL) ... (exit 1 when any)
 *	rows_release(&rows);
 *
 * Each check is a row (facts.h): node, check, expected, found, verdict
 * and reason.  A check that cannot run on a node (no GPU, no Slurm, a
 * tool missing) is a skip row that says why; it is never an ok row.
 * A cluster-wide row (the nccl-tests run) is on node VERIFY_CLUSTER.
 *
 * The gathering (verify_run) is kept apart from the parsers and from the
 * judgement (verify_eval), which are pure functions over text and plan,
 * so the tests feed them recorded tool outputs.
 */
#ifndef PROV_VERIFY_H
#define PROV_VERIFY_H

#include <stddef.h>

#include "buf.h"
#include "err.h"
#include "facts.h"
#include "strvec.h"

struct plan;
struct plan_node;
struct rows;
struct verify_measured;

/* The node name of rows about the whole cluster. */
#define VERIFY_CLUSTER		"(cluster)"

/* Limits of the judgement. */
#define VERIFY_TIME_OK_S	0.1	/* NTP offset that is in sync */
#define VERIFY_TIME_FAIL_S	1.0	/* clock offset that breaks things */
#define VERIFY_XID_STORM	10	/* XID lines of one code: a storm */
#define VERIFY_RETIRED_MAX	60	/* retired pages: NVIDIA's RMA mark */
#define VERIFY_BUSBW_OK		0.7	/* measured/expected bus bandwidth */
#define VERIFY_BUSBW_WARN	0.4
/*
 * GEMM throughput against the catalog's dense peak: dcgmproftester's
 * FP16 GEMM reaches 0.80 of an A100's 312 TFLOPS in NVIDIA's own example
 * (tests/fixtures/burnin), a GPU at half of it is throttled (power,
 * clocks, heat), and the broken A100 of DCGM issue 122 ran at 0.35.  A
 * GPU slower than VERIFY_GEMM_PEER of the cluster's median is a
 * straggler that paces every synchronous step.
 */
#define VERIFY_GEMM_OK		0.6
#define VERIFY_GEMM_WARN	0.4
#define VERIFY_GEMM_PEER	0.85
/* Seconds dcgmproftester runs each test (-d). */
#define VERIFY_GEMM_SECONDS	30

struct verify_opts {
	int		 burn_in;		/* dcgmi diag, nccl-tests */
	long		 job_timeout_s;		/* srun: 60 */
	long		 command_timeout_s;	/* 300 s; burn-in 3600 s */
	long		 forks;			/* 0: the plan's */
	const char	*nodes;			/* hostlist, or NULL: all */
	const char	*prometheus_url;	/* NULL: http://HOST:9090 */
	long		 http_timeout_ms;	/* 10000 */
	const char	*passphrase;		/* for an encrypted identity */
};

#define VERIFY_OPTS_INIT { 0, 60, 0, 0, NULL, NULL, 10000, NULL }

/* ------------------------------------------------------------------ */
/* Parsers: each fills its struct and returns 0, or -1 with PROV_E_PARSE. */

/* One GPU of `nvidia-smi -q -x`: health fields (-1: unknown or N/A). */
struct verify_gpu {
	char	*bus_id;		/* "0000:3b:00.0" */
	char	*name;
	char	*persistence;		/* "Enabled" "Disabled" */
	char	*ecc_mode;		/* current_ecc, or NULL when N/A */
	char	*mig_mode;		/* current_mig, or NULL when N/A */
	long	 mig_devices;		/* MIG devices listed, -1: none */
	long	 ecc_vol_unc, ecc_agg_unc;	/* uncorrectable errors */
	long	 ecc_vol_cor, ecc_agg_cor;	/* corrected */
	long	 retired_sbe, retired_dbe;	/* retired pages */
	int	 retire_pending;		/* 0, 1, -1 */
	long	 remap_unc;		/* rows remapped: uncorrectable */
	int	 remap_pending, remap_failure;	/* 0, 1, -1 */
};

struct verify_nvsmi {
	char			*driver_version;
	long			 attached;	/* attached_gpus, -1 */
	struct verify_gpu	*gpus;
	size_t			 n, alloc;
};

/*
 * `nvidia-smi -q -x`: every <gpu>, the ECC counters of the old
 * (single_bit/double_bit totals) and new (sram/dram) layouts, retired
 * pages and row remapping.
 */
int	verify_parse_nvsmi_xml(struct verify_nvsmi *, const char *text,
	    struct prov_err *err);
/* `nvidia-smi -q` (text), read as the same tree (facts_nvsmi_q_tree()). */
int	verify_parse_nvsmi_q(struct verify_nvsmi *, const char *text,
	    struct prov_err *err);
void	verify_nvsmi_release(struct verify_nvsmi *);

/* A Slurm node as sinfo or scontrol show it. */
struct verify_snode {
	char	*name;
	char	*state;		/* as printed: "idle", "down*", "MIXED+DRAIN" */
	char	*gres;		/* "gpu:4", "(null)" */
	long	 gpus_used;	/* GresUsed, AllocTRES gres/gpu=; -1 */
	char	*reason;	/* scontrol Reason=, or NULL */
};

struct verify_slurm {
	struct verify_snode	*v;
	size_t			 n, alloc;
};

/*
 * `sinfo -h -N -o FORMAT` or `-O FIELDS`: whitespace-separated columns
 * named by `fields` ("node,state,gres,gresused"; others are skipped).  A node
 * on several lines (one per partition) is kept once.
 */
int	verify_parse_sinfo(struct verify_slurm *, const char *text,
	    const char *fields, struct prov_err *err);
/*
 * `scontrol -o show node`: NodeName=, State=, Gres=, the GPUs in use
 * (GresUsed=, or gres/gpu= in AllocTRES=), Reason= (to the end).
 */
int	verify_parse_scontrol(struct verify_slurm *, const char *text,
	    struct prov_err *err);
struct verify_snode *verify_slurm_find(const struct verify_slurm *,
	    const char *name);
void	verify_slurm_release(struct verify_slurm *);
/*
 * GPUs in a GRES string ("gpu:4", "gpu:a:2,gpu:b:2", "gpu:a:4(S:0-3)");
 * 0 for "(null)".
 */
long	verify_gres_gpus(const char *gres);
/*
 * A Slurm state, compact (%t) or long (%T, scontrol): 1 when the node
 * can run jobs (idle, allocated, mixed, completing, with no flag of
 * trouble), 0 otherwise; *why says what is wrong (static).
 */
int	verify_slurm_state_ok(const char *state, const char **why);

/* Time sync as chronyc or timedatectl report it. */
struct verify_time {
	const char	*source;	/* "chrony" "timedatectl" */
	int		 synced;	/* 1, 0 */
	double		 offset_s;	/* |offset|, -1 unknown */
	char		*detail;	/* "stratum 3, reference 7F7F0101" */
};

/* `chronyc -n tracking`: Leap status, System time, Stratum, Reference ID. */
int	verify_parse_chrony(struct verify_time *, const char *text,
	    struct prov_err *err);
/* `timedatectl show` (NTPSynchronized=) or `timedatectl status`. */
int	verify_parse_timedatectl(struct verify_time *, const char *text,
	    struct prov_err *err);
void	verify_time_release(struct verify_time *);

/* NVIDIA XID events in a kernel log ("NVRM: Xid (PCI:...): 79, ..."). */
struct verify_xid {
	long	 lines;
	long	 codes[256];	/* lines per XID code (above 255: [255]) */
	long	 worst;		/* code with most lines, -1 none */
};

int	verify_parse_xid(struct verify_xid *, const char *text);
/* 1 for XIDs of broken hardware or a lost GPU (48, 64, 74, 79, 95, ...). */
int	verify_xid_fatal(long code);

/* Prometheus /api/v1/targets. */
struct verify_target {
	char	*job, *node, *instance, *health, *error;
	double	 last_scrape;		/* unix time; 0: not given (never
					   scraped: Go's zero time, < 0) */
	double	 interval, timeout;	/* seconds; 0: not given */
};

struct verify_targets {
	struct verify_target	*v;
	size_t			 n, alloc;
};

int	verify_parse_prom_targets(struct verify_targets *, const char *json,
	    size_t len, struct prov_err *err);
void	verify_targets_release(struct verify_targets *);
/* RFC 3339 ("2026-12-06T10:20:30.123Z", "...+01:00") as unix time. */
int	verify_parse_rfc3339(const char *s, double *out);
/* A Prometheus duration ("15s", "1m30s", "500ms") in seconds. */
int	verify_parse_prom_duration(const char *s, double *out);

/*
 * Seconds past a fetch of the targets to wait for a scrape Prometheus
 * made after `since` (verify's start), or 0: none to wait for.  A target
 * verify judges (jobs node, dcgm) that is not up and was last scraped
 * before `since` may have been refused by an exporter apply had not yet
 * started, or timed out on a node busy with apply: its next scrape comes
 * within its interval, and answers within its timeout (Prometheus's
 * defaults, 1m and 10s, when not given), plus VERIFY_PROM_MARGIN.  A
 * target already up is not waited for.
 */
#define VERIFY_PROM_MARGIN	2.0
double	verify_prom_wait(const struct verify_targets *, double since);
/* 1 when verify_prom_wait() would wait for target x. */
int	verify_prom_stale(const struct verify_target *x, double since);

/* `kubectl get nodes -o json`. */
struct verify_k8s_node {
	char	*name;
	int	 ready;		/* 1, 0, -1 no Ready condition */
	char	*ready_reason;
	long	 gpus;		/* allocatable nvidia.com/gpu, -1 none */
};

struct verify_k8s {
	struct verify_k8s_node	*v;
	size_t			 n, alloc;
};

int	verify_parse_k8s_nodes(struct verify_k8s *, const char *json,
	    size_t len, struct prov_err *err);
void	verify_k8s_release(struct verify_k8s *);

/*
 * `nccl-tests` all_reduce_perf: "# Avg bus bandwidth : 181.5", the peak
 * busbw and the message size it was reached at, and who ran it: the
 * "#  Rank  3 Group  0 Pid 6902 on gpu01 device  3 [...] NAME" lines.
 */
struct verify_nccl {
	double		 avg_busbw;	/* GB/s, -1 */
	double		 peak_busbw;	/* best busbw of any size */
	double		 peak_bytes;	/* the size of that row, -1 */
	long		 wrong;		/* #wrong column total; -1 unknown */
	long		 sizes;		/* result lines */
	long		 ranks;		/* "# Rank" lines: GPUs; 0 unknown */
	struct strvec	 hosts;		/* their hosts, each once */
	char		*version;	/* "# nccl-tests version ..." or NULL */
};

int	verify_parse_nccl(struct verify_nccl *, const char *text,
	    struct prov_err *err);
void	verify_nccl_release(struct verify_nccl *);

/*
 * DCGM's dcgmproftester (dcgmproftester11/12/13 of datacenter-gpu-manager)
 * run as `dcgmproftester12 --no-dcgm-validation -t 1004 -d 30`: a cuBLAS
 * GEMM on every GPU at once, each worker reporting about once a second
 *
 *	Worker 0:0[1004]: TensorEngineActive: generated ???, dcgm 0.000 (250362.2 gflops)
 *
 * (older releases leave out "Worker G:I[F]: ", some print "1.78e+05
 * gflops)." with a space before '[').  G is DCGM's GPU id, I the worker of
 * that GPU (a MIG instance when there are several).  Per worker the
 * median of its reports (the first are the ramp-up), per GPU the sum of
 * its workers.  Lines that report no gflops (other tests, messages) are
 * skipped; none at all is an error, and so is a gflops figure that is
 * not a number (located: "dcgmproftester:LINE:COL").
 */
struct verify_gemm_gpu {
	long	 gpu;		/* DCGM GPU id, -1: not printed */
	long	 workers;	/* MIG instances (1 without MIG) */
	long	 samples;	/* reports of all its workers */
	double	 tflops;	/* sum over workers of their medians */
};

struct verify_gemm {
	long			 field;		/* 1004, ...; -1 not printed */
	struct verify_gemm_gpu	*gpus;		/* by GPU id */
	size_t			 n, alloc;
};

int	verify_parse_dcgmproftester(struct verify_gemm *, const char *text,
	    struct prov_err *err);
void	verify_gemm_release(struct verify_gemm *);

/*
 * The GEMM tests burn-in runs, each a section "gemm-NAME" of a GPU node:
 * dcgmproftester's field, its extra options and the precision its GEMM
 * computes in (-t 1004: cublasHgemm with tensor-op math, FP16; -t 1006
 * --cublas: a cuBLASLt DGEMM, FP64 on tensor cores where the GPU has
 * them), which is the catalog field the figure is held against.
 */
struct verify_gemm_test {
	const char	*prec;		/* "fp16": estimate's gemm_tflops key */
	long		 field;		/* -t */
	const char	*args;		/* the rest of the command line */
};

#define VERIFY_NGEMM	2
extern const struct verify_gemm_test verify_gemm_tests[VERIFY_NGEMM];

/* `dcgmi diag -r N`: the result table; failing tests named. */
struct verify_dcgm {
	long		 pass, fail, warn, skip;
	struct strvec	 failed;	/* "Memory: Fail - GPU 3 ..." */
};

int	verify_parse_dcgmi(struct verify_dcgm *, const char *text,
	    struct prov_err *err);
void	verify_dcgm_release(struct verify_dcgm *);

/* ------------------------------------------------------------------ */
/* Gathering and judgement */

/* One extra section of a node's output. */
struct verify_sec {
	char	*name;		/* without "v-" */
	char	*body;
	long	 rc;		/* -1: no "@@rc" line */
};

/* What one node answered. */
struct verify_node {
	const struct plan_node	*pn;
	int			 reached;	/* the script ran */
	char			*error;		/* why not: "unreachable: .." */
	struct facts		*facts;		/* NULL when not reached */
	struct verify_sec	*secs;
	size_t			 nsecs, secs_alloc;
};

/*
 * The script for one node (POSIX sh, run as `sh -c SCRIPT`).  Every plan
 * value reaches it shell-quoted.  The head's script also runs the Slurm
 * and Kubernetes queries and jobs for the nodes in `sel` (the nodes
 * verified).
 */
void	verify_script(struct buf *out, const struct plan *,
	    const struct plan_node *node, struct plan_node *const *sel,
	    size_t nsel, const struct verify_opts *);
/*
 * Split a node's output into n->facts (through facts_parse_script) and
 * n->secs; -1 when it is not the script's output.
 */
int	verify_node_parse(struct verify_node *, const char *out,
	    struct prov_err *err);
/* The section `name` ("sinfo"), or NULL. */
const struct verify_sec *verify_node_sec(const struct verify_node *,
	    const char *name);
void	verify_node_release(struct verify_node *);

/* What the workstation saw, for the cluster-wide checks. */
struct verify_env {
	double		 t0, t1;	/* wall clock around the SSH run */
	double		 since;		/* verify's start: a fresh scrape is
					   one after it; 0 any */
	const char	*prom_url;	/* what was asked, or NULL: not asked */
	const char	*prom_json;	/* the answer, or NULL */
	size_t		 prom_len;
	const char	*prom_error;	/* why there is no answer, or NULL */
};

#define VERIFY_ENV_INIT { 0, 0, 0, NULL, NULL, 0, NULL }

/*
 * Judge the gathered nodes (every node of `nodes` is a plan node being
 * verified; the head may be among them or not) and append the rows:
 * per node, then cluster-wide.  Needs the catalog (facts_finish() done).
 * With --burn-in, `meas` (NULL: not wanted; else verify_measured_init()
 * done) gets the figures the tools measured.
 */
void	verify_eval(struct rows *out, struct verify_measured *meas,
	    const struct plan *, struct verify_node *nodes, size_t n,
	    const struct verify_node *head, const struct verify_env *env,
	    const struct verify_opts *);

struct verify_stats {
	size_t	nodes;		/* verified */
	size_t	reached;	/* answered over SSH */
};

/*
 * What --burn-in measured, for `estimate` (docs/estimate.md, "Measured,
 * not assumed"): only figures a tool printed, never a catalog peak.
 * NAN / 0 / empty: not measured; `missing` says what was not, and why.
 */
struct verify_measured_gemm {
	double		 tflops;	/* the slowest GPU's; NAN none */
	long		 gpus;		/* GPUs measured */
	long		 planned;	/* GPUs the plan gives the nodes run */
	struct strvec	 nodes;
};

struct verify_measured {
	double				 at;	/* unix time of the run */
	double				 busbw;	/* GB/s; NAN none */
	double				 bytes;	/* message size of busbw */
	long				 ranks;	/* GPUs of the all-reduce */
	long				 planned;	/* GPUs it should have */
	struct strvec			 ar_nodes;
	char				*ar_tool;
	struct verify_measured_gemm	 gemm[VERIFY_NGEMM];
	char				*gemm_tool;
	struct strvec			 missing;
};

void	verify_measured_init(struct verify_measured *);
void	verify_measured_release(struct verify_measured *);
/* 1 when at least one figure was measured. */
int	verify_measured_any(const struct verify_measured *);
/* 1 when something the burn-in should have measured was not. */
int	verify_measured_partial(const struct verify_measured *);
/* The measured.json estimate reads (estimate_measured_load()). */
void	verify_measured_json(struct buf *, const struct verify_measured *);
/* Write it to path atomically (a temporary file, then rename), 0644. */
int	verify_measured_write(const struct verify_measured *, const char *path,
	    struct prov_err *err);

/*
 * Gather and judge: SSH to every selected node (and to the head, for
 * Slurm and Kubernetes, when it is not selected), read Prometheus,
 * verify_eval().  -1 only when nothing could be asked (bad identity,
 * bad --nodes); unreachable nodes are rows.  Notes for the user (host
 * keys added, Prometheus not asked) are appended to `notes`.  `meas` as
 * for verify_eval().
 */
int	verify_run(struct rows *out, struct verify_stats *stats,
	    struct verify_measured *meas, const struct plan *,
	    const struct verify_opts *,
	    struct strvec *notes, struct prov_err *err);

/* ------------------------------------------------------------------ */
/* Output formats shared by `verify` and `report` */

/*
 * {"plan": ..., "checks": [rows (row.h): {verdict, subject: the node,
 * check, measured: what was found, limit: what was expected, hint, ...}],
 * "summary": {nodes, reached, ok, warn, fail, skip}}
 */
void	verify_to_json(struct buf *, const char *plan_path,
	    const struct rows *, const struct verify_stats *);
/* Read verify_to_json()'s output back into rows (and that of verify
 * before rows, whose keys were node, expected, found and reason). */
int	verify_from_json(struct rows *out, const char *label,
	    const char *text, size_t len, struct prov_err *err);

#endif

/*
 * verify-int.h: what the parts of verify share (verify.c gathers,
 * verify-parse.c reads the tools' output, verify-script.c writes what
 * runs on a node, verify-eval.c, verify-services.c and verify-gemm.c
 * judge, verify-measured.c keeps the burn-in's figures for estimate).  Private to
 * lib/verify*.c; the API is verify.h.
 */
#ifndef PROV_VERIFY_INT_H
#define PROV_VERIFY_INT_H

#include "buf.h"
#include "err.h"
#include "row.h"
#include "verify.h"

struct verify_daemon {
	const char	*label;
	const char	*regex;		/* ERE on the command's first word */
};

struct verify_ctx {
	const struct plan		*p;
	struct rows			*out;
	struct verify_measured		*meas;	/* burn-in figures, or NULL */
	const struct verify_opts	*o;
	const struct verify_env		*env;
	const struct verify_node	*head;
	struct verify_node		*nodes;
	size_t				 n;
	struct verify_nd		*nd;	/* per node */
	long				*mtu;	/* per net: the cluster's */
	/* Slurm, from the head */
	int				 slurm_ok;
	char				*slurm_why;
	struct verify_slurm		 sl;
	/* Kubernetes, from the head */
	int				 k8s_ok;
	char				*k8s_why;
	struct verify_k8s		 k8;
	/* Prometheus, from here */
	int				 prom_ok;
	char				*prom_why;
	struct verify_targets		 tg;
};

long	verify_long(const char *s);
void	verify_words(struct strvec *w, const char *s);
char	*verify_first_line(const char *s);
char	*verify_oneline(const char *s, size_t max);
double	verify_now(void);
int	verify_is_num(const char *s, double *out);
int	verify_is_slurm(const struct plan *p);
int	verify_is_k8s(const struct plan *p);
long	verify_gpus(const struct plan_node *n);
size_t	verify_daemons(const struct plan *p, const struct plan_node *n,
    struct verify_daemon *d);
void	verify_row(struct verify_ctx *c, enum row_verdict v, const char *node,
    const char *what, const char *exp, const char *found, const char *fmt,
    ...) PROV_PRINTF(7, 8);
void	verify_eval_slurm(struct verify_ctx *c, size_t k);
void	verify_eval_k8s(struct verify_ctx *c, size_t k);
void	verify_eval_prom(struct verify_ctx *c, size_t k);
void	verify_eval_dcgm(struct verify_ctx *c, size_t k);
void	verify_eval_nccl(struct verify_ctx *c);
/* dcgmproftester's GEMM throughput on every GPU node (verify-gemm.c). */
void	verify_eval_gemm(struct verify_ctx *c);
/* users' ids, accounting and teams (head), logs (log server). */
void	verify_eval_people(struct verify_ctx *c, size_t k);

#endif

/*
 * render.h: turn the plan into what runs on a node: generated config
 * files (slurm.conf, gres.conf, prometheus.yml, /etc/hosts lines) and
 * step scripts (a preamble of shell-quoted variables, templates/lib.sh,
 * templates/STEP.sh, and the runner call).  docs/templates.md is the
 * contract between this module and the templates.
 *
 * Every plan value reaches the script through buf_add_shquote(): no
 * value is ever spliced into shell code unquoted.
 */
#ifndef PROV_RENDER_H
#define PROV_RENDER_H

#include "buf.h"
#include "err.h"
#include "plan.h"

/* What a node really has (from facts), for slurm.conf; have == 0: use the plan. */
struct render_hostinfo {
	int	have;
	long	cpus;		/* logical CPUs */
	long	mem_mb;		/* MemTotal */
	long	gpus;		/* NVIDIA GPUs found */
};

struct render_in {
	const struct plan		*plan;
	const char			*templates;	/* dir */
	const struct render_hostinfo	*info;		/* per plan node, or NULL */
	const char			*apt_repo;	/* on the node: a flat apt
							   repository (an unpacked
							   bundle) to install from
							   instead of the network,
							   or NULL */
	const char			*apt_release;	/* SHA-256 of its
							   repo/Release, or
							   NULL */
	int				 apt_served;	/* the relay node
							   serves it to the
							   others over HTTP */
	const char			*images_sha256;	/* of the bundle's
							   images tar, or
							   NULL: none */
	const char			*lib_call;	/* when set, the script
							   runs this command (a
							   shell function holding
							   lib.sh, defined once a
							   session by the engine)
							   instead of carrying
							   lib.sh itself */
	const char			*vars_call;	/* the same for the
							   variables but
							   PROV_STEP
							   (render_vars) */
};

/* The head node: the first with role head, else the first node. */
const struct plan_node	*render_head(const struct plan *);
/* The package relay node (software.relay: its node, else the head), or NULL. */
const struct plan_node	*render_relay(const struct plan *);
void	render_hosts_block(struct buf *, const struct plan *);
void	render_slurm_conf(struct buf *, const struct render_in *);
void	render_gres_conf(struct buf *, const struct render_in *);
/* The device plugin's time-slicing ConfigMap; nothing without gpu_shards. */
void	render_k8s_sharing_conf(struct buf *, const struct render_in *);
/* slurmdbd.conf without StoragePass (made on the head, never sent). */
void	render_slurmdbd_conf(struct buf *, const struct render_in *);
void	render_prometheus_conf(struct buf *, const struct render_in *);
/* sssd.conf for directory.ldap, without the bind password; nothing without. */
void	render_sssd_conf(struct buf *, const struct plan *);
/* CPUs, memory (MiB, what Slurm may use) and GPUs of node i. */
void	render_node_resources(const struct render_in *, size_t i, long *cpus,
	    long *mem_mb, long *gpus);

/* lib.sh of the templates folder, as it is. */
int	render_lib(struct buf *out, const struct render_in *,
	    struct prov_err *err);
/* The variables of node i but PROV_STEP, one assignment a line. */
void	render_vars(struct buf *out, const struct render_in *, size_t i);
/* The whole script for `step` on plan node index `i`. */
int	render_step(struct buf *out, const struct render_in *, size_t i,
	    const char *step, struct prov_err *err);

#endif

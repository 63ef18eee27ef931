/*
 * plan.h: the cluster plan, read from YAML and checked for consistency.
 *
 *	struct plan *p;
 *	struct plan_opts o = PLAN_OPTS_INIT;	(extra catalog dirs, limits)
 *	if (plan_load(&p, "plan.yaml", &o, &errs) != 0)
 *		... every problem is in errs, located; exit 2 ...
 *	for (i = 0; i < p->nnodes; i++) ... p->nodes[i] ...
 *	plan_free(p);
 *
 * Loading parses the file (yml.h), binds every key to the model below
 * (unknown keys are errors with a "did you mean"), expands hostlist
 * ranges of nodes and their addresses, fills `u:` by chassis height,
 * resolves hardware against the catalog, and validates references,
 * names and addresses.  It collects every error before giving up.
 *
 * Strings in the model are owned by the plan; catalog pointers are
 * borrowed from p->catalog, which the plan owns.  `src` members point at
 * the YAML node an object came from, for located messages later (check).
 */
#ifndef PROV_PLAN_H
#define PROV_PLAN_H

#include <stddef.h>
#include <stdint.h>

#include "catalog.h"
#include "err.h"
#include "strvec.h"
#include "yml.h"

struct schema_field;

enum plan_role {
	PLAN_ROLE_WORKER = 0,
	PLAN_ROLE_HEAD,
	PLAN_ROLE_LOGIN,
	PLAN_ROLE_STORAGE,
	PLAN_ROLE_SERVICE,
};

struct plan_part {
	const char		*model;
	long			 count;		/* -1: not given */
	const struct yml_node	*src;
};

struct plan_nic {
	const char		*model;
	long			 count;
	const char		*network;	/* NULL: not attached */
	const struct cat_nic	*cat;
	const struct yml_node	*src;
};

struct plan_drive {
	const char		*kind;		/* nvme ssd hdd */
	long			 count;
	double			 tb;		/* NAN: not given */
	double			 power_w;	/* NAN: default per kind */
	const struct yml_node	*src;
};

struct plan_psu {
	long			 count;		/* -1: from the system */
	double			 watts;		/* NAN: from the system */
	const char		*redundancy;	/* "N+1", "2+2"; NULL: system */
	const struct yml_node	*src;
};

/* A node model: `hardware:` in the plan. */
struct plan_hw {
	const char		*name;
	const char		*system;
	struct plan_part	 cpu;
	double			 memory_gb;	/* NAN: from the system */
	struct plan_part	 gpus;
	struct plan_nic		*nics;
	size_t			 nnics;
	struct plan_drive	*drives;
	size_t			 ndrives;
	struct plan_psu		 psu;
	struct strvec		 mig;		/* MIG profile per GPU */
	/* resolved */
	const struct cat_system	*sys;
	const struct cat_cpu	*cpu_cat;
	const struct cat_gpu	*gpu_cat;
	long			 ncpus, ngpus;	/* after system defaults */
	double			 mem_gb;	/* after system defaults */
	const struct yml_node	*src;
};

struct plan_pdu {
	double			 volts, amps;
	int			 phases;
	char			 feed[8];	/* "A", "B" */
	double			 derate;	/* 0.8 by default */
	long			 c13, c19;	/* outlets; -1: not given */
	const struct plan_bmc	*redfish;	/* its own Redfish; NULL */
	const struct yml_node	*src;
};

struct plan_rack {
	const char		*name;
	long			 units;
	double			 depth_mm;
	double			 cooling_kw;	/* NAN: not given */
	const char		*cooling;	/* air liquid; NULL: air */
	double			 liquid_kw;	/* CDU capacity; NAN: not given */
	double			 max_load_kg;	/* static load rating; NAN */
	double			 weight_kg;	/* the empty rack; NAN */
	double			 footprint_m2, floor_kg_m2;	/* NAN */
	struct plan_pdu		*pdus;
	size_t			 npdus;
	const struct yml_node	*src;
};

struct plan_net {
	const char		*name;
	const char		*cidr;
	uint32_t		 addr, mask;	/* host order, IPv4 */
	int			 prefix;
	const char		*kind;		/* ethernet infiniband */
	double			 gbps;
	const char		*role;		/* NULL, or management/cluster/fabric */
	const struct yml_node	*src;
};

struct plan_switch {
	const char		*name;
	const char		*model;
	const char		*network;
	const char		*rack;
	long			 u;		/* 0: not racked */
	const struct cat_switch	*cat;
	const struct yml_node	*src;
};

#define PLAN_HOST_KEYS_STRICT		0
#define PLAN_HOST_KEYS_ACCEPT_NEW	1

struct plan_ssh {
	const char		*user;		/* root */
	const char		*identity;	/* expanded path, or NULL: agent */
	const char		*known_hosts;
	int			 host_keys;
	const char		*jump;		/* node name or host[:port] */
	const char		*jump_host;	/* what SSH goes through: jump,
						   "NODE:PORT" for a node on
						   another port than 22 */
	const char		*jump_addr;	/* the node's address when jump
						   names one, else NULL */
	long			 forks;		/* 64 */
	long			 max_startups;	/* 100: hosts connecting at
						   once */
	long			 port;		/* 22 */
	long			 connect_timeout_s;
	long			 command_timeout_s;	/* 0: none */
	const char		*passphrase_env;
	const char		*become;	/* NULL, or "sudo" */
	const struct yml_node	*src;
};

struct plan_bmc {
	const char		*address;
	const char		*user;
	const char		*password_env;
	const char		*password_file;
	const char		*ca_file;
	int			 insecure;
	long			 port;		/* 443 */
	const char		*system;	/* Redfish id or index; NULL */
};

/* A node's size as a VM of the testbeds; 0: the testbed's default. */
struct plan_vm {
	long			 memory_mib;
	long			 cpus;
};

struct plan_iface {
	const char		*network;
	const char		*address;
};

struct plan_node {
	const char		*name;
	enum plan_role		 role;
	const char		*hardware;
	struct plan_hw		*hw;
	const char		*rack;
	struct plan_rack	*rackp;
	long			 u;		/* lowest unit; 0: not racked */
	const char		*address;	/* management address */
	const char		*mac;
	struct plan_iface	*ifaces;
	size_t			 nifaces;
	struct plan_bmc		*bmc;		/* NULL: none */
	struct plan_vm		 vm;
	const struct yml_node	*src;		/* the entry in nodes: */
	size_t			 index;		/* position within its range */
};

struct plan_partition {
	const char		*name;
	const char		*nodes;		/* hostlist */
	int			 is_default;
	const char		*max_time;
	const struct yml_node	*src;
};

/* A registry mirror for the container runtime (containerd, docker). */
struct plan_mirror {
	const char		*registry;	/* docker.io, nvcr.io:443 */
	const char		*url;		/* https://mirror.example:5000 */
	int			 insecure;	/* http://, or no TLS check */
	const char		*ca_file;	/* expanded path, or NULL */
	const char		*ca_pem;	/* its certificates, or NULL */
	const struct yml_node	*src;
};

/*
 * software.relay.images: a pull-through cache of one registry on the
 * relay node (Distribution's registry), every node's engine mirrors that
 * registry through it.
 */
struct plan_relay_image {
	const char		*registry;	/* docker.io, nvcr.io:443 */
	const char		*url;		/* upstream; NULL: https://REGISTRY
						   (registry-1.docker.io for
						   docker.io) */
	int			 insecure;	/* an http:// upstream allowed */
	long			 port;		/* on the relay: image_port +
						   its index */
	const struct yml_node	*src;
};

/*
 * software.relay: one node caches packages for the others (apt-cacher-ng);
 * every other node's package manager goes through it.
 */
struct plan_relay {
	const char		*node;		/* the relay node; NULL: no relay */
	long			 port;		/* 3142 */
	long			 retry_s;	/* how long a node waits for a relay
						   that stopped answering (300) */
	long			 image_port;	/* the first image cache's (5000) */
	struct plan_relay_image	*images;
	size_t			 nimages;
	const struct yml_node	*images_src;	/* while loading */
	const struct yml_node	*src;
};

struct plan_software {
	const char		*os_distro;	/* debian ubuntu rocky */
	const char		*os_release;
	const char		*driver_branch;	/* "550"; NULL: no driver step */
	const char		*driver_version;
	const char		*cuda;
	const char		*runtime;	/* containerd docker apptainer; NULL */
	int			 nvidia_toolkit;
	struct plan_mirror	*mirrors;
	size_t			 nmirrors;
	const struct yml_node	*mirrors_src;	/* while loading */
	const char		*orchestrator;	/* slurm kubernetes none */
	struct plan_partition	*partitions;
	size_t			 npartitions;
	const char		*slurm_cluster;
	const char		*slurm_proctrack;	/* cgroup (default), linuxproc */
	const char		*slurm_state;	/* storage export holding
						   StateSaveLocation; NULL:
						   the head's own disk */
	long			 gpu_shards;	/* jobs or pods per GPU; 0: whole */
	const char		*k8s_version;
	const char		*k8s_pod_cidr;
	const char		*k8s_cni;
	int			 node_exporter;
	int			 dcgm_exporter;
	const char		*prometheus;	/* node name or NULL */
	const char		*grafana;
	struct strvec		 extras;
	struct strvec		 kernel_args;	/* on the kernel command line */
	struct plan_relay	 relay;
	const struct yml_node	*relay_src;	/* while loading */
	const struct yml_node	*src;
};

/* `apply:`: how apply goes about the nodes beyond SSH. */
struct plan_apply {
	long			 reboot_parallel;	/* nodes rebooted at once: 8 */
	long			 reboot_timeout_s;	/* to come back: 900 */
	const struct yml_node	*src;
};

/* offline: what `apply --bundle` trusts (docs/bundle.md). */
struct plan_offline {
	const char		*bundle_key;	/* public key (PEM) bundles must
						   be signed with: expanded
						   path, or NULL */
	const struct yml_node	*src;
};

/* groups: a Unix group with one gid on every node. */
struct plan_group {
	const char		*name;
	long			 gid;
	const struct yml_node	*src;
};

/* users: a Unix account with one uid on every node. */
struct plan_user {
	const char		*name;
	long			 uid;
	const char		*group;		/* primary group; NULL: its own */
	long			 gid;		/* resolved: the group's, or uid */
	struct strvec		 groups;	/* supplementary groups */
	struct strvec		 ssh_keys;	/* authorized_keys lines */
	const char		*shell;		/* /bin/bash */
	const struct yml_node	*src;
};

/* scheduling.teams: a Slurm account with its users, share and limits. */
struct plan_team {
	const char		*name;
	long			 fairshare;	/* 1 */
	long			 gpus;		/* GrpTRES gres/gpu; -1: none */
	struct strvec		 users;
	struct strvec		 qos;		/* allowed; the first the default */
	const struct yml_node	*src;
};

/* scheduling.qos: a Slurm QOS, its priority and the QOS it preempts. */
struct plan_qos {
	const char		*name;
	long			 priority;	/* 0 */
	struct strvec		 preempts;
	const struct yml_node	*src;
};

/* scheduling: Slurm accounting (slurmdbd), fair share and team limits. */
struct plan_sched {
	struct plan_team	*teams;
	size_t			 nteams;
	const struct yml_node	*teams_src;	/* while loading */
	struct plan_qos		*qos;
	size_t			 nqos;
	const struct yml_node	*qos_src;	/* while loading */
	const char		*preempt_mode;	/* requeue (default), cancel */
	long			 w_fairshare, w_age, w_job_size, w_qos;
	const char		*gpu_gres;	/* devices, count-only */
	const struct yml_node	*src;		/* NULL: no scheduling: */
};

/* logging: nodes forward their logs to one node (rsyslog). */
struct plan_logging {
	const char		*server;	/* a node's name; NULL: none */
	long			 port;		/* 514 */
	long			 keep_days;	/* 14 */
	const struct yml_node	*src;
};

/*
 * directory.ldap: a site's LDAP directory, which sssd on every node asks
 * for users and groups (templates/directory.sh).
 */
struct plan_ldap {
	struct strvec		 uri;		/* ldaps://HOST[:PORT], in order */
	const char		*base;		/* search base DN */
	const char		*user_base;	/* NULL: base */
	const char		*group_base;	/* NULL: base */
	const char		*bind_dn;	/* NULL: anonymous */
	const char		*bind_password_file;	/* expanded path; read
							   by apply alone */
	const char		*ca_file;	/* expanded path; NULL: the
						   nodes' own CAs */
	const char		*ca_pem;	/* its certificates, or NULL */
	const char		*tls;		/* required (default), none */
	const char		*schema;	/* rfc2307 (default), rfc2307bis */
	const char		*verify_user;	/* a user it holds; NULL */
	int			 mkhomedir;	/* -1: unless /home is the
						   plan's storage there */
};

struct plan_directory {
	struct plan_ldap	 ldap;
	const struct yml_node	*src;		/* NULL: no directory: */
};

/*
 * storage: one NFS export: a directory of a server (a node of the plan, or
 * a host outside it) mounted on the nodes that need it.
 */
struct plan_export {
	const char		*name;
	const char		*server;	/* node name or host name */
	const struct plan_node	*server_node;	/* resolved; NULL: outside */
	const char		*path;		/* the directory on the server */
	const char		*mount;		/* where clients mount it */
	const char		*clients;	/* hostlist; NULL: see roles */
	struct strvec		 roles;		/* client roles; none and no
						   clients: every node */
	int			 readonly;
	int			 root_squash;	/* 1 */
	struct strvec		 options;	/* more mount options */
	long			 timeout_s;	/* mount timeout: 30 */
	const struct yml_node	*src;
};

struct plan {
	const char		*file;		/* as given */
	const char		*dir;		/* its directory, for relative paths */
	const char		*cluster;
	const char		*domain;
	const char		*workload;	/* training (default), inference, mixed */
	struct strvec		 profile_dirs;	/* resolved, in load order */
	struct plan_hw		*hw;
	size_t			 nhw;
	struct plan_rack	*racks;
	size_t			 nracks;
	struct plan_net		*nets;
	size_t			 nnets;
	struct plan_switch	*switches;
	size_t			 nswitches;
	struct plan_ssh		 ssh;
	struct plan_apply	 apply;
	struct plan_node	*nodes;
	size_t			 nnodes;
	struct plan_software	 sw;
	struct plan_offline	 offline;
	struct plan_group	*groups;
	size_t			 ngroups;
	struct plan_user	*users;
	size_t			 nusers;
	const struct yml_node	*users_src;	/* NULL: no users: section */
	struct plan_sched	 sched;
	struct plan_logging	 logging;
	struct plan_directory	 directory;
	struct plan_export	*exports;
	size_t			 nexports;
	const struct yml_node	*storage_src;	/* NULL: no storage: */
	struct catalog		*catalog;
	struct yml_doc		 doc;
	struct plan_index	*index;		/* name lookups */
};

struct plan_opts {
	struct strvec		 profile_dirs;	/* --profiles, after the plan's */
	const char		*builtin_dir;	/* NULL: catalog_default_dir() */
	size_t			 max_nodes;	/* 0: 1,000,000 */
};

#define PLAN_OPTS_INIT { STRVEC_INIT, NULL, 0 }

/*
 * On failure *out is NULL and errs holds every problem, sorted; their
 * locations borrow `path` (or `label`), so keep it until they are printed.
 */
int	plan_load(struct plan **out, const char *path,
	    const struct plan_opts *, struct prov_errs *errs);
int	plan_load_buf(struct plan **out, const char *label, const char *data,
	    size_t len, const struct plan_opts *, struct prov_errs *errs);
void	plan_free(struct plan *);

struct plan_node	*plan_node(const struct plan *, const char *name);
struct plan_hw		*plan_hw_find(const struct plan *, const char *name);
struct plan_rack	*plan_rack_find(const struct plan *, const char *name);
struct plan_net		*plan_net_find(const struct plan *, const char *name);
/* The one network with `role` ("fabric"), or NULL: none, or several. */
const struct plan_net	*plan_net_by_role(const struct plan *, const char *role);
const char		*plan_role_name(enum plan_role);
/* Address of `node` on network `net`; the management address when net is the node's own. */
const char		*plan_node_addr(const struct plan_node *, const char *net);
/* Location of key `k` in `src` (or of src itself when k is NULL or absent). */
struct prov_loc		 plan_loc(const struct plan *, const struct yml_node *src,
			    const char *k);
/*
 * Expand a hostlist into plan nodes (NULL: every node, in plan order); -1
 * when a name is not in the plan.
 */
int			 plan_select(struct plan_node ***out, size_t *n,
			    const struct plan *, const char *hostlist,
			    struct prov_err *err);
/*
 * Whether node n is a Slurm compute node: when the plan lists partitions,
 * one of them holds it (*part, unless NULL: the first that does); else
 * it is a worker.
 */
int			 plan_slurm_compute(const struct plan *,
			    const struct plan_node *n, const char **part);

struct plan_user	*plan_user_find(const struct plan *, const char *name);
/* Whether plan node n mounts export e (its clients, its roles; else every node). */
int			 plan_export_client(const struct plan *,
			    const struct plan_export *, const struct plan_node *n);
/* The plan node that serves exports (one at most), or NULL. */
const struct plan_node	*plan_storage_server(const struct plan *);
/*
 * Whether the directory's users get a home made at their first login on
 * node n (pam_mkhomedir): as directory.ldap.mkhomedir says, else unless
 * the plan's storage mounts /home there.  0 without a directory.
 */
int			 plan_ldap_mkhomedir(const struct plan *,
			    const struct plan_node *n);
struct plan_export	*plan_export_find(const struct plan *, const char *name);
/* The second node of role head: Slurm's backup controller; NULL: none. */
const struct plan_node	*plan_backup_head(const struct plan *);
/* Slurm accounting is on: the plan has a scheduling: section. */
int			 plan_accounting(const struct plan *);
/* A QOS of the plan preempts another (Slurm's preempt/qos is on). */
int			 plan_preempts(const struct plan *);

/*
 * Every value-holding key of the plan schema, depth first, with its path
 * ("software.orchestrator.kubernetes.pod_cidr", "nodes[].bmc.address",
 * "hardware.*.mig[]": see schema_walk()) and its field (type, flags): what
 * tests walk to feed every field, and what docs/plan.md documents.
 */
void	plan_schema_walk(void (*fn)(void *arg, const char *path,
	    const struct schema_field *f), void *arg);

/* Parse "a.b.c.d" into host order; -1 when it is not a dotted IPv4 address. */
int	plan_parse_ipv4(const char *s, uint32_t *out);

/* What software.kernel_args pin in huge pages, in KiB (0: none). */
long long	plan_hugepages_kb(const struct plan *);

#endif

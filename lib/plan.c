/*
 * plan.c: read a cluster plan (YAML, version 1) into `struct plan`.
 *
 * The shape it accepts (docs/plan.md has every key):
 *
 *	version: 1
 *	cluster:   { name: NAME, domain: DNS-DOMAIN }
 *	profiles:  [ DIR, ... ]			extra catalog dirs
 *	hardware:  { MODEL: { system, cpu: {model, count}, memory_gb,
 *		     gpus: {model, count}, nics: [ {model, count, network} ],
 *		     drives: [ {kind, count, tb} ], psu: {count, watts,
 *		     redundancy}, mig: [PROFILE, ...] } }
 *	racks:     { RACK: { units, depth_mm, cooling_kw, cooling, liquid_kw,
 *		     max_load_kg, weight_kg, footprint_m2, floor_kg_m2,
 *		     pdus: [ {volts, amps, phases, feed, derate, c13, c19,
 *			      redfish: {address, port, user, password_env,
 *			      password_file, ca_file, insecure, pdu}} ] } }
 *	networks:  { NET: { cidr, kind, gbps, role } }
 *	switches:  { NAME: { model, network, rack, u } }
 *	ssh:       { user, identity, known_hosts, host_keys, jump, forks,
 *		     max_startups, port, connect_timeout_s, command_timeout_s,
 *		     passphrase_env, become }
 *	apply:     { reboot_parallel, reboot_timeout_s }
 *	nodes:     [ { name: HOSTLIST, role, hardware, rack, u,
 *		       address: HOSTLIST, mac, macs, interfaces: { NET: HOSTLIST },
 *		       bmc: { address: HOSTLIST, user, password_env,
 *			      password_file, ca_file, insecure, port, system } } ]
 *	software:  { os: {distro, release}, gpu_driver: {branch, version, cuda},
 *		     container_runtime: {engine, nvidia_toolkit},
 *		     orchestrator: {kind, slurm: {cluster_name, partitions},
 *				    kubernetes: {version, pod_cidr, cni}},
 *		     monitoring: {node_exporter, dcgm_exporter, prometheus,
 *				  grafana}, extras: [ ... ],
 *		     kernel_args: [ ... ], relay: {node, port, retry_s,
 *		     image_port, images: [ {registry, url, insecure} ]},
 *		     gpu_shards }
 *	offline:   { bundle_key: FILE }	the key bundles are signed with
 *	groups:    { GROUP: { gid } }
 *	users:     { USER: { uid, group, groups, ssh_keys, shell } }
 *	scheduling: { teams: { TEAM: { fairshare, gpus, users, qos } },
 *		     priority_weights: { fairshare, age, job_size, qos },
 *		     qos: { QOS: { priority, preempts } }, preempt_mode,
 *		     gpu_gres }
 *	logging:   { server, port, keep_days }
 *	directory: { ldap: { uri, base, user_base, group_base, bind_dn,
 *		     bind_password_file, ca_file, tls, schema, verify_user,
 *		     mkhomedir } }
 *	storage:   { EXPORT: { server, path, mount, clients, roles, readonly,
 *		     root_squash, options, timeout_s } }
 *
 * Loading is one pass over the YAML tree per section, then node
 * expansion (hostlists streamed, never materialised twice), then
 * cross-references.  Every error is collected; the plan is returned only
 * when there were none.
 */
#include "compat.h"

#include <arpa/inet.h>
#include <ctype.h>
#include <libgen.h>
#include <math.h>
#include <sys/stat.h>

#include "buf.h"
#include "catalog.h"
#include "hostlist.h"
#include "plan-int.h"
#include "plan.h"
#include "schema.h"
#include "str.h"
#include "strmap.h"

#define PLAN_MAX_NODES_DEFAULT	1000000
#define PLAN_CA_MAX		(64u << 10)

const char *const plan_roles[] = { "worker", "head", "login",
    "storage", "service", NULL };
static const char *const plan_net_kinds[] = { "ethernet", "infiniband", NULL };
static const char *const plan_net_roles[] = { "management", "cluster",
    "fabric", "storage", "bmc", NULL };
static const char *const plan_feeds[] = { "A", "B", "C", "D", NULL };
static const char *const plan_coolings[] = { "air", "liquid", "rear-door",
    NULL };
static const char *const plan_host_keys[] = { "strict", "accept-new", NULL };
static const char *const plan_become[] = { "sudo", NULL };
static const char *const plan_distros[] = { "debian", "ubuntu", "rocky",
    "rhel", NULL };
static const char *const plan_runtimes[] = { "containerd", "docker",
    "apptainer", "none", NULL };
static const char *const plan_orchs[] = { "slurm", "kubernetes", "none",
    NULL };
static const char *const plan_cnis[] = { "calico", "flannel", "cilium", NULL };
static const char *const plan_proctracks[] = { "cgroup", "linuxproc", NULL };
static const char *const plan_drive_kinds[] = { "nvme", "ssd", "hdd", NULL };

#define NOLIM 1, 0
#define F(k, t, s, m, fl) { k, t, offsetof(s, m), fl, NULL, NULL, NOLIM }
#define FR(k, t, s, m, fl, lo, hi) { k, t, offsetof(s, m), fl, NULL, NULL, lo, hi }
#define FE(k, s, m, fl, e) { k, SCHEMA_ENUM, offsetof(s, m), fl, e, NULL, NOLIM }
/* A node the loader binds itself, with the shape `sub`. */
#define FN(k, s, m, fl, sub) { k, SCHEMA_NODE, offsetof(s, m), fl, NULL, sub, NOLIM }
#define FEND { NULL, SCHEMA_END, 0, 0, NULL, NULL, NOLIM }

struct plan_cluster_raw {
	const char	*name, *domain, *workload;
};

static const char *const plan_workloads[] = { "training", "inference",
    "mixed", NULL };

static const struct schema_field plan_cluster_fields[] = {
	F("name", SCHEMA_HOST, struct plan_cluster_raw, name, SCHEMA_REQUIRED),
	F("domain", SCHEMA_HOST, struct plan_cluster_raw, domain, 0),
	FE("workload", struct plan_cluster_raw, workload, 0, plan_workloads),
	FEND
};

static const struct schema_field plan_part_fields[] = {
	F("model", SCHEMA_WORD, struct plan_part, model, SCHEMA_REQUIRED),
	FR("count", SCHEMA_INT, struct plan_part, count, 0, 0, 64),
	FEND
};

static const struct schema_field plan_nic_fields[] = {
	F("model", SCHEMA_WORD, struct plan_nic, model, SCHEMA_REQUIRED),
	FR("count", SCHEMA_INT, struct plan_nic, count, 0, 1, 64),
	F("network", SCHEMA_WORD, struct plan_nic, network, SCHEMA_NULLABLE),
	FEND
};

static const struct schema_field plan_drive_fields[] = {
	FE("kind", struct plan_drive, kind, SCHEMA_REQUIRED, plan_drive_kinds),
	FR("count", SCHEMA_INT, struct plan_drive, count, 0, 1, 256),
	FR("tb", SCHEMA_NUM, struct plan_drive, tb, 0, 0, 1000),
	FR("power_w", SCHEMA_NUM, struct plan_drive, power_w, 0, 0, 1000),
	FEND
};

static const struct schema_field plan_psu_fields[] = {
	FR("count", SCHEMA_INT, struct plan_psu, count, 0, 1, 32),
	FR("watts", SCHEMA_NUM, struct plan_psu, watts, 0, 1, 100000),
	F("redundancy", SCHEMA_REDUNDANCY, struct plan_psu, redundancy, 0),
	FEND
};

struct plan_hw_raw {
	const char		*system;
	const struct yml_node	*cpu, *gpus, *nics, *drives, *psu;
	double			 memory_gb;
	struct strvec		 mig;
};

static const struct schema_field plan_hw_fields[] = {
	F("system", SCHEMA_WORD, struct plan_hw_raw, system, SCHEMA_REQUIRED),
	FN("cpu", struct plan_hw_raw, cpu, 0, plan_part_fields),
	FR("memory_gb", SCHEMA_NUM, struct plan_hw_raw, memory_gb, 0, 0, 1e7),
	FN("gpus", struct plan_hw_raw, gpus, 0, plan_part_fields),
	FN("nics", struct plan_hw_raw, nics, SCHEMA_LIST, plan_nic_fields),
	FN("drives", struct plan_hw_raw, drives, SCHEMA_LIST, plan_drive_fields),
	FN("psu", struct plan_hw_raw, psu, 0, plan_psu_fields),
	F("mig", SCHEMA_MIG, struct plan_hw_raw, mig, SCHEMA_LIST),
	FEND
};

struct plan_bmc_raw {
	const char	*address, *user, *password_env, *password_file, *ca_file;
	int		 insecure;
	long		 port;
	const char	*system;
};
/* A rack PDU's own Redfish service: a BMC's keys, `pdu` its RackPDU id. */
static const struct schema_field plan_pdu_rf_fields[] = {
	F("address", SCHEMA_HOST, struct plan_bmc_raw, address, SCHEMA_REQUIRED),
	F("user", SCHEMA_USER, struct plan_bmc_raw, user, 0),
	F("password_env", SCHEMA_ENVVAR, struct plan_bmc_raw, password_env, 0),
	F("password_file", SCHEMA_PATH, struct plan_bmc_raw, password_file, 0),
	F("ca_file", SCHEMA_PATH, struct plan_bmc_raw, ca_file, 0),
	F("insecure", SCHEMA_BOOL, struct plan_bmc_raw, insecure, 0),
	FR("port", SCHEMA_INT, struct plan_bmc_raw, port, 0, 1, 65535),
	F("pdu", SCHEMA_WORD, struct plan_bmc_raw, system, 0),
	FEND
};

struct plan_pdu_raw {
	double			 volts, amps, derate;
	long			 phases;
	const char		*feed;
	long			 c13, c19;
	const struct yml_node	*redfish;
};

static const struct schema_field plan_pdu_fields[] = {
	FR("volts", SCHEMA_NUM, struct plan_pdu_raw, volts, SCHEMA_REQUIRED, 1, 1000),
	FR("amps", SCHEMA_NUM, struct plan_pdu_raw, amps, SCHEMA_REQUIRED, 1, 1000),
	FR("phases", SCHEMA_INT, struct plan_pdu_raw, phases, 0, 1, 3),
	FE("feed", struct plan_pdu_raw, feed, 0, plan_feeds),
	FR("derate", SCHEMA_NUM, struct plan_pdu_raw, derate, 0, 0.1, 1),
	/* outlets, for check's PSU inlet count (C14/C16 cords, C20/C22) */
	FR("c13", SCHEMA_INT, struct plan_pdu_raw, c13, 0, 0, 1000),
	FR("c19", SCHEMA_INT, struct plan_pdu_raw, c19, 0, 0, 1000),
	FN("redfish", struct plan_pdu_raw, redfish, 0, plan_pdu_rf_fields),
	FEND
};

struct plan_rack_raw {
	long			 units;
	double			 depth_mm, cooling_kw;
	const char		*cooling;
	const struct yml_node	*pdus;
	double			 liquid_kw, max_load_kg, weight_kg;
	double			 footprint_m2, floor_kg_m2;
};

static const struct schema_field plan_rack_fields[] = {
	FR("units", SCHEMA_INT, struct plan_rack_raw, units, SCHEMA_REQUIRED, 1, 100),
	FR("depth_mm", SCHEMA_NUM, struct plan_rack_raw, depth_mm, 0, 100, 3000),
	FR("cooling_kw", SCHEMA_NUM, struct plan_rack_raw, cooling_kw, 0, 0, 10000),
	FE("cooling", struct plan_rack_raw, cooling, 0, plan_coolings),
	FN("pdus", struct plan_rack_raw, pdus, SCHEMA_LIST, plan_pdu_fields),
	/* liquid cooling, weight and floor load (check's rack rows) */
	FR("liquid_kw", SCHEMA_NUM, struct plan_rack_raw, liquid_kw, 0, 0, 10000),
	FR("max_load_kg", SCHEMA_NUM, struct plan_rack_raw, max_load_kg, 0, 1, 100000),
	FR("weight_kg", SCHEMA_NUM, struct plan_rack_raw, weight_kg, 0, 0, 10000),
	FR("footprint_m2", SCHEMA_NUM, struct plan_rack_raw, footprint_m2, 0, 0.01, 100),
	FR("floor_kg_m2", SCHEMA_NUM, struct plan_rack_raw, floor_kg_m2, 0, 1, 100000),
	FEND
};

static const struct schema_field plan_net_fields[] = {
	F("cidr", SCHEMA_CIDR, struct plan_net, cidr, SCHEMA_REQUIRED),
	FE("kind", struct plan_net, kind, 0, plan_net_kinds),
	FR("gbps", SCHEMA_NUM, struct plan_net, gbps, 0, 0.001, 100000),
	FE("role", struct plan_net, role, 0, plan_net_roles),
	FEND
};

static const struct schema_field plan_switch_fields[] = {
	F("model", SCHEMA_WORD, struct plan_switch, model, SCHEMA_REQUIRED),
	F("network", SCHEMA_WORD, struct plan_switch, network, 0),
	F("rack", SCHEMA_WORD, struct plan_switch, rack, 0),
	FR("u", SCHEMA_INT, struct plan_switch, u, 0, 1, 100),
	FEND
};

struct plan_ssh_raw {
	const char	*user, *identity, *known_hosts, *host_keys, *jump;
	const char	*passphrase_env, *become;
	long		 forks, max_startups, port, connect_timeout_s;
	long		 command_timeout_s;
};

static const struct schema_field plan_ssh_fields[] = {
	F("user", SCHEMA_USER, struct plan_ssh_raw, user, 0),
	F("identity", SCHEMA_PATH, struct plan_ssh_raw, identity, SCHEMA_NULLABLE),
	F("known_hosts", SCHEMA_PATH, struct plan_ssh_raw, known_hosts, 0),
	FE("host_keys", struct plan_ssh_raw, host_keys, 0, plan_host_keys),
	F("jump", SCHEMA_JUMP, struct plan_ssh_raw, jump, SCHEMA_NULLABLE),
	FR("forks", SCHEMA_INT, struct plan_ssh_raw, forks, 0, 1, 4096),
	FR("max_startups", SCHEMA_INT, struct plan_ssh_raw, max_startups, 0, 1, 4096),
	FR("port", SCHEMA_INT, struct plan_ssh_raw, port, 0, 1, 65535),
	FR("connect_timeout_s", SCHEMA_INT, struct plan_ssh_raw, connect_timeout_s, 0, 1, 3600),
	FR("command_timeout_s", SCHEMA_INT, struct plan_ssh_raw, command_timeout_s, 0, 0, 604800),
	F("passphrase_env", SCHEMA_ENVVAR, struct plan_ssh_raw, passphrase_env, 0),
	FE("become", struct plan_ssh_raw, become, SCHEMA_NULLABLE, plan_become),
	FEND
};


static const struct schema_field plan_bmc_fields[] = {
	F("address", SCHEMA_ADDRS, struct plan_bmc_raw, address, SCHEMA_REQUIRED),
	F("user", SCHEMA_USER, struct plan_bmc_raw, user, 0),
	F("password_env", SCHEMA_ENVVAR, struct plan_bmc_raw, password_env, 0),
	F("password_file", SCHEMA_PATH, struct plan_bmc_raw, password_file, 0),
	F("ca_file", SCHEMA_PATH, struct plan_bmc_raw, ca_file, 0),
	F("insecure", SCHEMA_BOOL, struct plan_bmc_raw, insecure, 0),
	FR("port", SCHEMA_INT, struct plan_bmc_raw, port, 0, 1, 65535),
	/* the system behind a BMC of several: its Redfish Id, or 1, 2 ... */
	F("system", SCHEMA_WORD, struct plan_bmc_raw, system, 0),
	FEND
};


struct plan_node_raw {
	const char		*name, *role, *hardware, *rack, *address, *mac;
	long			 u;
	struct strvec		 macs;
	const struct yml_node	*interfaces, *bmc, *vm;
};

/*
 * vm: the node's size when it is a VM of the testbeds (scripts/testbed-vm):
 * bounds that QEMU accepts and a laptop can hold a few of.
 */
static const struct schema_field plan_vm_fields[] = {
	FR("memory_mib", SCHEMA_INT, struct plan_vm, memory_mib, 0, 256, 65536),
	FR("cpus", SCHEMA_INT, struct plan_vm, cpus, 0, 1, 64),
	FEND
};

/*
 * A name's characters are checked here (a hostlist), and each name of the
 * range as a host name once expanded, with its own message.
 */
static const struct schema_field plan_node_fields[] = {
	F("name", SCHEMA_HOSTLIST, struct plan_node_raw, name, SCHEMA_REQUIRED),
	FE("role", struct plan_node_raw, role, 0, plan_roles),
	F("hardware", SCHEMA_WORD, struct plan_node_raw, hardware, 0),
	F("rack", SCHEMA_WORD, struct plan_node_raw, rack, 0),
	FR("u", SCHEMA_INT, struct plan_node_raw, u, 0, 1, 100),
	F("address", SCHEMA_ADDRS, struct plan_node_raw, address, 0),
	F("mac", SCHEMA_MAC, struct plan_node_raw, mac, 0),
	F("macs", SCHEMA_MAC, struct plan_node_raw, macs, SCHEMA_LIST),
	F("interfaces", SCHEMA_ADDRS, struct plan_node_raw, interfaces,
	    SCHEMA_NAMES),
	FN("bmc", struct plan_node_raw, bmc, 0, plan_bmc_fields),
	FN("vm", struct plan_node_raw, vm, 0, plan_vm_fields),
	FEND
};

/* software: nested sections bound straight into struct plan_software. */
static const struct schema_field plan_os_fields[] = {
	FE("distro", struct plan_software, os_distro, SCHEMA_REQUIRED, plan_distros),
	F("release", SCHEMA_VERSION, struct plan_software, os_release, SCHEMA_REQUIRED),
	FEND
};

static const struct schema_field plan_driver_fields[] = {
	F("branch", SCHEMA_VERSION, struct plan_software, driver_branch, 0),
	F("version", SCHEMA_VERSION, struct plan_software, driver_version, 0),
	F("cuda", SCHEMA_VERSION, struct plan_software, cuda, 0),
	FEND
};

static const struct schema_field plan_mirror_fields[] = {
	F("registry", SCHEMA_HOSTPORT, struct plan_mirror, registry, SCHEMA_REQUIRED),
	F("url", SCHEMA_URL, struct plan_mirror, url, SCHEMA_REQUIRED),
	F("insecure", SCHEMA_BOOL, struct plan_mirror, insecure, 0),
	F("ca_file", SCHEMA_PATH, struct plan_mirror, ca_file, 0),
	FEND
};

static const struct schema_field plan_runtime_fields[] = {
	FE("engine", struct plan_software, runtime, SCHEMA_REQUIRED, plan_runtimes),
	F("nvidia_toolkit", SCHEMA_BOOL, struct plan_software, nvidia_toolkit, 0),
	FN("registry_mirrors", struct plan_software, mirrors_src,
	    SCHEMA_LIST | SCHEMA_NULLABLE, plan_mirror_fields),
	FEND
};

static const struct schema_field plan_partition_fields[] = {
	F("name", SCHEMA_WORD, struct plan_partition, name, SCHEMA_REQUIRED),
	F("nodes", SCHEMA_HOSTLIST, struct plan_partition, nodes, SCHEMA_REQUIRED),
	F("default", SCHEMA_BOOL, struct plan_partition, is_default, 0),
	F("max_time", SCHEMA_DURATION, struct plan_partition, max_time, 0),
	FEND
};

static const struct schema_field plan_slurm_fields[] = {
	F("cluster_name", SCHEMA_HOST, struct plan_software, slurm_cluster, 0),
	FN("partitions", struct plan_software, src, SCHEMA_LIST,
	    plan_partition_fields),
	FE("proctrack", struct plan_software, slurm_proctrack, 0, plan_proctracks),
	F("state_storage", SCHEMA_ACCOUNT, struct plan_software, slurm_state, 0),
	FEND
};

static const struct schema_field plan_k8s_fields[] = {
	F("version", SCHEMA_VERSION, struct plan_software, k8s_version, 0),
	F("pod_cidr", SCHEMA_CIDR, struct plan_software, k8s_pod_cidr, 0),
	FE("cni", struct plan_software, k8s_cni, 0, plan_cnis),
	FEND
};

static const struct schema_field plan_orch_fields[] = {
	FE("kind", struct plan_software, orchestrator, SCHEMA_REQUIRED, plan_orchs),
	{ "slurm", SCHEMA_OBJ, 0, SCHEMA_NULLABLE, NULL, plan_slurm_fields, NOLIM },
	{ "kubernetes", SCHEMA_OBJ, 0, SCHEMA_NULLABLE, NULL, plan_k8s_fields, NOLIM },
	FEND
};

static const struct schema_field plan_mon_fields[] = {
	F("node_exporter", SCHEMA_BOOL, struct plan_software, node_exporter, 0),
	F("dcgm_exporter", SCHEMA_BOOL, struct plan_software, dcgm_exporter, 0),
	F("prometheus", SCHEMA_HOST, struct plan_software, prometheus, SCHEMA_NULLABLE),
	F("grafana", SCHEMA_HOST, struct plan_software, grafana, SCHEMA_NULLABLE),
	FEND
};

static const struct schema_field plan_relay_image_fields[] = {
	F("registry", SCHEMA_HOSTPORT, struct plan_relay_image, registry,
	    SCHEMA_REQUIRED),
	F("url", SCHEMA_URL, struct plan_relay_image, url, 0),
	F("insecure", SCHEMA_BOOL, struct plan_relay_image, insecure, 0),
	FEND
};

static const struct schema_field plan_relay_fields[] = {
	F("node", SCHEMA_HOST, struct plan_relay, node, 0),
	FR("port", SCHEMA_INT, struct plan_relay, port, 0, 1, 65535),
	FR("retry_s", SCHEMA_INT, struct plan_relay, retry_s, 0, 0, 86400),
	FR("image_port", SCHEMA_INT, struct plan_relay, image_port, 0, 1, 65535),
	FN("images", struct plan_relay, images_src,
	    SCHEMA_LIST | SCHEMA_NULLABLE, plan_relay_image_fields),
	FEND
};

static const struct schema_field plan_sw_fields[] = {
	{ "os", SCHEMA_OBJ, 0, 0, NULL, plan_os_fields, NOLIM },
	{ "gpu_driver", SCHEMA_OBJ, 0, SCHEMA_NULLABLE, NULL, plan_driver_fields, NOLIM },
	{ "container_runtime", SCHEMA_OBJ, 0, SCHEMA_NULLABLE, NULL, plan_runtime_fields, NOLIM },
	{ "orchestrator", SCHEMA_OBJ, 0, SCHEMA_NULLABLE, NULL, plan_orch_fields, NOLIM },
	{ "monitoring", SCHEMA_OBJ, 0, SCHEMA_NULLABLE, NULL, plan_mon_fields, NOLIM },
	F("extras", SCHEMA_PKG, struct plan_software, extras, SCHEMA_LIST),
	F("kernel_args", SCHEMA_KARG, struct plan_software, kernel_args, SCHEMA_LIST),
	FN("relay", struct plan_software, relay_src, SCHEMA_NULLABLE,
	    plan_relay_fields),
	FR("gpu_shards", SCHEMA_INT, struct plan_software, gpu_shards, 0, 2, 128),
	FEND
};

static const struct schema_field plan_apply_fields[] = {
	FR("reboot_parallel", SCHEMA_INT, struct plan_apply, reboot_parallel, 0, 1, 4096),
	FR("reboot_timeout_s", SCHEMA_INT, struct plan_apply, reboot_timeout_s, 0, 30, 86400),
	FEND
};

static const struct schema_field plan_offline_fields[] = {
	F("bundle_key", SCHEMA_PATH, struct plan_offline, bundle_key, 0),
	FEND
};

/*
 * users:, groups: and scheduling: (a cluster people share): accounts with
 * one uid/gid on every node, and teams as Slurm accounts.
 */
static const char *const plan_gpu_gres[] = { "devices", "count-only", NULL };
static const char *const plan_preempt_modes[] = { "requeue", "cancel", NULL };

const struct schema_field plan_group_fields[] = {
	FR("gid", SCHEMA_INT, struct plan_group, gid, SCHEMA_REQUIRED, 1000, 60000),
	FEND
};

const struct schema_field plan_user_fields[] = {
	FR("uid", SCHEMA_INT, struct plan_user, uid, SCHEMA_REQUIRED, 1000, 60000),
	F("group", SCHEMA_ACCOUNT, struct plan_user, group, 0),
	F("groups", SCHEMA_ACCOUNT, struct plan_user, groups, SCHEMA_LIST),
	F("ssh_keys", SCHEMA_SSHKEY, struct plan_user, ssh_keys, SCHEMA_LIST),
	F("shell", SCHEMA_NODEPATH, struct plan_user, shell, 0),
	FEND
};

const struct schema_field plan_team_fields[] = {
	FR("fairshare", SCHEMA_INT, struct plan_team, fairshare, 0, 1, 1000000),
	FR("gpus", SCHEMA_INT, struct plan_team, gpus, 0, 0, 1000000),
	F("users", SCHEMA_ACCOUNT, struct plan_team, users, SCHEMA_LIST),
	F("qos", SCHEMA_ACCOUNT, struct plan_team, qos, SCHEMA_LIST),
	FEND
};

const struct schema_field plan_qos_fields[] = {
	FR("priority", SCHEMA_INT, struct plan_qos, priority, 0, 0, 1000000),
	F("preempts", SCHEMA_ACCOUNT, struct plan_qos, preempts, SCHEMA_LIST),
	FEND
};

static const struct schema_field plan_weight_fields[] = {
	FR("fairshare", SCHEMA_INT, struct plan_sched, w_fairshare, 0, 0, 1000000),
	FR("age", SCHEMA_INT, struct plan_sched, w_age, 0, 0, 1000000),
	FR("job_size", SCHEMA_INT, struct plan_sched, w_job_size, 0, 0, 1000000),
	FR("qos", SCHEMA_INT, struct plan_sched, w_qos, 0, 0, 1000000),
	FEND
};

const struct schema_field plan_sched_fields[] = {
	FN("teams", struct plan_sched, teams_src, SCHEMA_NAMES, plan_team_fields),
	FN("qos", struct plan_sched, qos_src, SCHEMA_NAMES, plan_qos_fields),
	FE("preempt_mode", struct plan_sched, preempt_mode, 0, plan_preempt_modes),
	{ "priority_weights", SCHEMA_OBJ, 0, 0, NULL, plan_weight_fields, NOLIM },
	FE("gpu_gres", struct plan_sched, gpu_gres, 0, plan_gpu_gres),
	FEND
};

/* logging: rsyslog forwarding to one node of the plan, with rotation. */
const struct schema_field plan_logging_fields[] = {
	F("server", SCHEMA_HOST, struct plan_logging, server, SCHEMA_REQUIRED),
	FR("port", SCHEMA_INT, struct plan_logging, port, 0, 1, 65535),
	FR("keep_days", SCHEMA_INT, struct plan_logging, keep_days, 0, 1, 3650),
	FEND
};

/*
 * directory: the site's LDAP directory through sssd.  TLS is required
 * unless `tls: none` (a test directory); the bind password stays in its
 * file until apply reads it (a secret: never in the plan's memory).
 */
static const char *const plan_ldap_tls[] = { "required", "none", NULL };
static const char *const plan_ldap_schemas[] = { "rfc2307", "rfc2307bis",
    NULL };

static const struct schema_field plan_ldap_fields[] = {
	F("uri", SCHEMA_LDAPURI, struct plan_ldap, uri,
	    SCHEMA_LIST | SCHEMA_REQUIRED),
	F("base", SCHEMA_DN, struct plan_ldap, base, SCHEMA_REQUIRED),
	F("user_base", SCHEMA_DN, struct plan_ldap, user_base, 0),
	F("group_base", SCHEMA_DN, struct plan_ldap, group_base, 0),
	F("bind_dn", SCHEMA_DN, struct plan_ldap, bind_dn, 0),
	F("bind_password_file", SCHEMA_PATH, struct plan_ldap,
	    bind_password_file, 0),
	F("ca_file", SCHEMA_PATH, struct plan_ldap, ca_file, 0),
	FE("tls", struct plan_ldap, tls, 0, plan_ldap_tls),
	FE("schema", struct plan_ldap, schema, 0, plan_ldap_schemas),
	F("verify_user", SCHEMA_USER, struct plan_ldap, verify_user, 0),
	F("mkhomedir", SCHEMA_BOOL, struct plan_ldap, mkhomedir, 0),
	FEND
};

const struct schema_field plan_directory_fields[] = {
	{ "ldap", SCHEMA_OBJ, offsetof(struct plan_directory, ldap),
	  SCHEMA_REQUIRED, NULL, plan_ldap_fields, NOLIM },
	FEND
};

/*
 * storage: NFS exports.  `server` is a node of the plan or a host name
 * outside it; `roles` are words here, checked against the node roles when
 * the nodes are known.
 */
const struct schema_field plan_export_fields[] = {
	F("server", SCHEMA_HOST, struct plan_export, server, SCHEMA_REQUIRED),
	F("path", SCHEMA_NODEPATH, struct plan_export, path, SCHEMA_REQUIRED),
	F("mount", SCHEMA_NODEPATH, struct plan_export, mount, SCHEMA_REQUIRED),
	F("clients", SCHEMA_HOSTLIST, struct plan_export, clients, 0),
	F("roles", SCHEMA_WORD, struct plan_export, roles, SCHEMA_LIST),
	F("readonly", SCHEMA_BOOL, struct plan_export, readonly, 0),
	F("root_squash", SCHEMA_BOOL, struct plan_export, root_squash, 0),
	F("options", SCHEMA_KARG, struct plan_export, options, SCHEMA_LIST),
	FR("timeout_s", SCHEMA_INT, struct plan_export, timeout_s, 0, 1, 3600),
	FEND
};

/*
 * The top level, read section by section by plan_load_any(): this table
 * gives its keys and the shape of each (offsets unused).
 */
struct plan_top_raw {
	const struct yml_node	*node;
	long			 version;
	struct strvec		 profiles;
};

static const struct schema_field plan_top_fields[] = {
	FR("version", SCHEMA_INT, struct plan_top_raw, version, SCHEMA_REQUIRED, 1, 1),
	FN("cluster", struct plan_top_raw, node, SCHEMA_REQUIRED, plan_cluster_fields),
	F("profiles", SCHEMA_PATH, struct plan_top_raw, profiles, SCHEMA_LIST),
	FN("hardware", struct plan_top_raw, node, SCHEMA_NAMES, plan_hw_fields),
	FN("racks", struct plan_top_raw, node, SCHEMA_NAMES, plan_rack_fields),
	FN("networks", struct plan_top_raw, node, SCHEMA_NAMES, plan_net_fields),
	FN("switches", struct plan_top_raw, node, SCHEMA_NAMES, plan_switch_fields),
	FN("ssh", struct plan_top_raw, node, 0, plan_ssh_fields),
	FN("apply", struct plan_top_raw, node, 0, plan_apply_fields),
	FN("nodes", struct plan_top_raw, node, SCHEMA_LIST, plan_node_fields),
	FN("software", struct plan_top_raw, node, 0, plan_sw_fields),
	FN("offline", struct plan_top_raw, node, 0, plan_offline_fields),
	FN("groups", struct plan_top_raw, node, SCHEMA_NAMES, plan_group_fields),
	FN("users", struct plan_top_raw, node, SCHEMA_NAMES, plan_user_fields),
	FN("scheduling", struct plan_top_raw, node, 0, plan_sched_fields),
	FN("logging", struct plan_top_raw, node, 0, plan_logging_fields),
	FN("directory", struct plan_top_raw, node, 0, plan_directory_fields),
	FN("storage", struct plan_top_raw, node, SCHEMA_NAMES, plan_export_fields),
	FEND
};

static struct prov_loc
plan_ld_loc(struct plan_ld *ld, const struct yml_node *n)
{
	return yml_loc(&ld->p->doc, n);
}

int
plan_ld_err(struct plan_ld *ld, const struct yml_node *n, const char *hint,
    const char *fmt, ...)
{
	struct prov_err	e = PROV_ERR_INIT;
	struct prov_loc	loc = plan_ld_loc(ld, n);
	va_list		ap;
	char		*msg;

	va_start(ap, fmt);
	msg = xvasprintf(fmt, ap);
	va_end(ap);
	prov_err_setloc(&e, PROV_E_PLAN, &loc, hint, "%s", msg);
	free(msg);
	prov_errs_push(ld->errs, &e);
	return -1;
}

/* "did you mean" over a strmap-less list of names. */
char *
plan_hint(const char *name, const char *const *cands, const char *what)
{
	const char	*near = cands != NULL ? str_suggest(name, cands) : NULL;

	if (near != NULL)
		return xasprintf("did you mean '%s'?", near);
	if (what != NULL)
		return xasprintf("define it under '%s:'", what);
	return NULL;
}

int
plan_parse_ipv4(const char *s, uint32_t *out)
{
	struct in_addr	a;
	const char	*p;
	int		 dots = 0;

	/* inet_pton also rejects leading zeros ambiguity in glibc. */
	for (p = s; *p != '\0'; p++)
		if (*p == '.')
			dots++;
	if (dots != 3 || inet_pton(AF_INET, s, &a) != 1)
		return -1;
	*out = ntohl(a.s_addr);
	return 0;
}

static int
plan_parse_cidr(struct plan_net *n)
{
	char		 addr[32];
	const char	*slash = strchr(n->cidr, '/');
	long		 prefix;

	if (slash == NULL || (size_t)(slash - n->cidr) >= sizeof addr)
		return -1;
	memcpy(addr, n->cidr, (size_t)(slash - n->cidr));
	addr[slash - n->cidr] = '\0';
	if (plan_parse_ipv4(addr, &n->addr) != 0 ||
	    str_to_long(slash + 1, &prefix) != 0 || prefix < 0 || prefix > 32)
		return -1;
	n->prefix = (int)prefix;
	n->mask = prefix == 0 ? 0 : 0xffffffffu << (32 - prefix);
	return 0;
}

/* A mapping section: name -> entry, with a callback per entry. */
static void
plan_each_entry(struct plan_ld *ld, const struct yml_node *sec,
    const char *what, void (*fn)(struct plan_ld *, const struct yml_node *k,
    const struct yml_node *v, size_t i))
{
	size_t	i;

	if (sec == NULL || yml_is_null(sec))
		return;
	if (sec->kind != YML_MAP) {
		schema_type_error(&ld->sc, sec, what, "a mapping of names");
		return;
	}
	for (i = 0; i < sec->n; i++) {
		const struct yml_node	*k = sec->u.pairs[i].key;

		if (!str_is_safe_word(k->u.s)) {
			plan_ld_err(ld, k, "use letters, digits, '.', '_', "
			    "'+' and '-' only", "bad %s name '%s'", what,
			    k->u.s);
			continue;
		}
		fn(ld, k, sec->u.pairs[i].val, i);
	}
}

static void
plan_load_apply(struct plan_ld *ld, const struct yml_node *v)
{
	struct plan_apply	*a = &ld->p->apply;

	a->reboot_parallel = 8;
	a->reboot_timeout_s = 900;
	a->src = v;
	if (v != NULL && !yml_is_null(v))
		(void)schema_bind(&ld->sc, v, plan_apply_fields, a);
}

static void
plan_load_hw(struct plan_ld *ld, const struct yml_node *k,
    const struct yml_node *v, size_t i)
{
	struct plan_hw		*hw = &ld->p->hw[i];
	struct plan_hw_raw	 raw;
	size_t			 j;

	memset(&raw, 0, sizeof raw);
	raw.memory_gb = NAN;
	raw.mig = (struct strvec)STRVEC_INIT;
	hw->name = k->u.s;
	hw->src = v;
	hw->memory_gb = NAN;
	hw->cpu.count = hw->gpus.count = -1;
	hw->psu.count = -1;
	hw->psu.watts = NAN;
	hw->mig = (struct strvec)STRVEC_INIT;
	(void)schema_bind(&ld->sc, v, plan_hw_fields, &raw);
	hw->system = raw.system;
	hw->memory_gb = raw.memory_gb;
	hw->mig = raw.mig;
	if (raw.cpu != NULL) {
		hw->cpu.src = raw.cpu;
		(void)schema_bind(&ld->sc, raw.cpu, plan_part_fields, &hw->cpu);
	}
	if (raw.gpus != NULL) {
		hw->gpus.src = raw.gpus;
		(void)schema_bind(&ld->sc, raw.gpus, plan_part_fields, &hw->gpus);
	}
	if (raw.psu != NULL) {
		hw->psu.src = raw.psu;
		(void)schema_bind(&ld->sc, raw.psu, plan_psu_fields, &hw->psu);
	}
	if (raw.nics != NULL) {
		if (raw.nics->kind != YML_SEQ)
			schema_type_error(&ld->sc, raw.nics, "nics", "a list");
		else {
			hw->nics = xcalloc(raw.nics->n, sizeof *hw->nics);
			hw->nnics = raw.nics->n;
			for (j = 0; j < raw.nics->n; j++) {
				hw->nics[j].count = 1;
				hw->nics[j].src = raw.nics->u.items[j];
				(void)schema_bind(&ld->sc, raw.nics->u.items[j],
				    plan_nic_fields, &hw->nics[j]);
			}
		}
	}
	if (raw.drives != NULL) {
		if (raw.drives->kind != YML_SEQ)
			schema_type_error(&ld->sc, raw.drives, "drives", "a list");
		else {
			hw->drives = xcalloc(raw.drives->n, sizeof *hw->drives);
			hw->ndrives = raw.drives->n;
			for (j = 0; j < raw.drives->n; j++) {
				hw->drives[j].count = 1;
				hw->drives[j].tb = NAN;
				hw->drives[j].power_w = NAN;
				hw->drives[j].src = raw.drives->u.items[j];
				(void)schema_bind(&ld->sc, raw.drives->u.items[j],
				    plan_drive_fields, &hw->drives[j]);
			}
		}
	}
	strmap_add(&ld->p->index->hw, hw->name, hw);
}

static struct plan_bmc *plan_pdu_redfish(struct plan_ld *,
    const struct yml_node *);

static void
plan_load_rack(struct plan_ld *ld, const struct yml_node *k,
    const struct yml_node *v, size_t i)
{
	struct plan_rack	*r = &ld->p->racks[i];
	struct plan_rack_raw	 raw = { 0, NAN, NAN, NULL, NULL, NAN, NAN, NAN,
				    NAN, NAN };
	size_t			 j;

	r->name = k->u.s;
	r->src = v;
	(void)schema_bind(&ld->sc, v, plan_rack_fields, &raw);
	r->units = raw.units;
	r->depth_mm = raw.depth_mm;
	r->cooling_kw = raw.cooling_kw;
	r->cooling = raw.cooling;
	r->liquid_kw = raw.liquid_kw;
	r->max_load_kg = raw.max_load_kg;
	r->weight_kg = raw.weight_kg;
	r->footprint_m2 = raw.footprint_m2;
	r->floor_kg_m2 = raw.floor_kg_m2;
	if (raw.pdus != NULL) {
		if (raw.pdus->kind != YML_SEQ) {
			schema_type_error(&ld->sc, raw.pdus, "pdus", "a list");
		} else {
			r->pdus = xcalloc(raw.pdus->n, sizeof *r->pdus);
			r->npdus = raw.pdus->n;
			for (j = 0; j < raw.pdus->n; j++) {
				struct plan_pdu_raw pr = { 0, 0, 0.8, 1, "A", -1,
				    -1, NULL };
				struct plan_pdu	*pd = &r->pdus[j];

				(void)schema_bind(&ld->sc, raw.pdus->u.items[j],
				    plan_pdu_fields, &pr);
				pd->volts = pr.volts;
				pd->amps = pr.amps;
				pd->phases = (int)pr.phases;
				pd->derate = pr.derate;
				pd->c13 = pr.c13;
				pd->c19 = pr.c19;
				snprintf(pd->feed, sizeof pd->feed, "%s",
				    pr.feed);
				pd->src = raw.pdus->u.items[j];
				if (pr.redfish != NULL)
					pd->redfish = plan_pdu_redfish(ld,
					    pr.redfish);
				if (pd->phases == 2)
					plan_ld_err(ld, yml_map_get(pd->src,
					    "phases"), "use 1 or 3",
					    "'phases' must be 1 or 3, not 2");
			}
		}
	}
	strmap_add(&ld->p->index->racks, r->name, r);
}

static void
plan_load_net(struct plan_ld *ld, const struct yml_node *k,
    const struct yml_node *v, size_t i)
{
	struct plan_net	*n = &ld->p->nets[i];

	n->name = k->u.s;
	n->src = v;
	n->kind = "ethernet";
	n->gbps = NAN;
	(void)schema_bind(&ld->sc, v, plan_net_fields, n);
	if (n->cidr != NULL && plan_parse_cidr(n) != 0)
		plan_ld_err(ld, yml_map_get(v, "cidr"),
		    "write an IPv4 network like '192.0.2.0/24'",
		    "bad cidr '%s'", n->cidr);
	else if (n->cidr != NULL && (n->addr & ~n->mask) != 0)
		plan_ld_err(ld, yml_map_get(v, "cidr"), NULL,
		    "cidr '%s' has host bits set", n->cidr);
	strmap_add(&ld->p->index->nets, n->name, n);
}

static void
plan_load_switch(struct plan_ld *ld, const struct yml_node *k,
    const struct yml_node *v, size_t i)
{
	struct plan_switch	*s = &ld->p->switches[i];

	s->name = k->u.s;
	s->src = v;
	(void)schema_bind(&ld->sc, v, plan_switch_fields, s);
}

/* "~/x" -> "$HOME/x"; relative -> relative to the plan's directory. */
const char *
plan_path(struct plan_ld *ld, const char *path)
{
	struct plan	*p = ld->p;
	const char	*home;
	char		*tmp;
	const char	*r;

	if (path == NULL)
		return NULL;
	if (path[0] == '~' && (path[1] == '/' || path[1] == '\0')) {
		home = getenv("HOME");
		tmp = xasprintf("%s%s", home != NULL ? home : "", path + 1);
	} else if (path[0] != '/' && strcmp(p->dir, ".") != 0)
		tmp = xasprintf("%s/%s", p->dir, path);
	else
		return path;
	r = yml_doc_strdup(&p->doc, tmp);
	free(tmp);
	return r;
}

/* The `redfish:` entry of a rack PDU, as a BMC whose `system` is its id. */
static struct plan_bmc *
plan_pdu_redfish(struct plan_ld *ld, const struct yml_node *src)
{
	struct plan_bmc_raw	 raw;
	struct plan_bmc		*b;

	memset(&raw, 0, sizeof raw);
	raw.port = 443;
	if (schema_bind(&ld->sc, src, plan_pdu_rf_fields, &raw) != 0)
		return NULL;
	b = yml_doc_alloc(&ld->p->doc, sizeof *b);
	b->address = raw.address;
	b->user = raw.user;
	b->password_env = raw.password_env;
	b->password_file = plan_path(ld, raw.password_file);
	b->ca_file = plan_path(ld, raw.ca_file);
	b->insecure = raw.insecure;
	b->port = raw.port;
	b->system = raw.system;
	return b;
}

static void
plan_load_ssh(struct plan_ld *ld, const struct yml_node *v)
{
	struct plan_ssh		*s = &ld->p->ssh;
	struct plan_ssh_raw	 raw;

	memset(&raw, 0, sizeof raw);
	raw.user = "root";
	raw.identity = "~/.ssh/id_ed25519";
	raw.known_hosts = "~/.ssh/known_hosts";
	raw.host_keys = "strict";
	raw.forks = 64;
	raw.max_startups = 100;
	raw.port = 22;
	raw.connect_timeout_s = 10;
	if (v != NULL && !yml_is_null(v)) {
		(void)schema_bind(&ld->sc, v, plan_ssh_fields, &raw);
		/* `identity: null`: no key file, the agent's keys only. */
		if (yml_map_pair(v, "identity") != NULL &&
		    yml_is_null(yml_map_get(v, "identity")))
			raw.identity = NULL;
	}
	s->src = v;
	s->user = raw.user;
	s->identity = plan_path(ld, raw.identity);
	s->known_hosts = plan_path(ld, raw.known_hosts);
	s->host_keys = strcmp(raw.host_keys, "accept-new") == 0 ?
	    PLAN_HOST_KEYS_ACCEPT_NEW : PLAN_HOST_KEYS_STRICT;
	s->jump = raw.jump;
	s->forks = raw.forks;
	s->max_startups = raw.max_startups;
	s->port = raw.port;
	s->connect_timeout_s = raw.connect_timeout_s;
	s->command_timeout_s = raw.command_timeout_s;
	s->passphrase_env = raw.passphrase_env;
	s->become = raw.become;
	if (s->become == NULL && strcmp(s->user, "root") != 0)
		s->become = "sudo";
}

static void
plan_load_offline(struct plan_ld *ld, const struct yml_node *v)
{
	struct plan_offline	*o = &ld->p->offline;

	o->src = v;
	if (v == NULL || yml_is_null(v))
		return;
	(void)schema_bind(&ld->sc, v, plan_offline_fields, o);
	o->bundle_key = plan_path(ld, o->bundle_key);
}

/*
 * The certificates of `file` (a ca_file at `at`, already expanded), kept
 * for apply to put on nodes; NULL after an error.  `whose` says whose
 * certificate the CA signed, for the hint.
 */
const char *
plan_load_ca(struct plan_ld *ld, const struct yml_node *at, const char *file,
    const char *whose)
{
	struct buf		 b = BUF_INIT;
	struct stat		 st;
	const char		*pem = NULL;

	b.max = PLAN_CA_MAX;
	if (stat(file, &st) == 0 && !S_ISREG(st.st_mode))
		plan_ld_err(ld, at, PLAN_PATH_HINT, "ca_file '%s' is not a "
		    "file", file);
	else if (buf_read_file(&b, file) != 0)
		plan_ld_err(ld, at, PLAN_PATH_HINT, "cannot read ca_file '%s': "
		    "%s", file, strerror(errno));
	else if (b.truncated)
		plan_ld_err(ld, at, NULL, "ca_file '%s' is over %u KiB",
		    file, PLAN_CA_MAX >> 10);
	else if (strlen(b.buf) != b.len ||
	    strstr(b.buf, "-----BEGIN CERTIFICATE-----") == NULL) {
		char	*hint = xasprintf("give the PEM file of the CA that "
		    "signed %s certificate", whose);

		plan_ld_err(ld, at, hint, "ca_file '%s' holds no PEM "
		    "certificate", file);
		free(hint);
	} else
		pem = yml_doc_strdup(&ld->p->doc, b.buf);
	buf_release(&b);
	return pem;
}

/* The certificates of a mirror's ca_file, kept for apply to put on nodes. */
static void
plan_load_mirror_ca(struct plan_ld *ld, struct plan_mirror *m)
{
	m->ca_file = plan_path(ld, m->ca_file);
	m->ca_pem = plan_load_ca(ld, yml_map_get(m->src, "ca_file"),
	    m->ca_file, "the mirror's");
}

/*
 * software.container_runtime.registry_mirrors: an https URL unless the
 * mirror says `insecure: true`, one mirror per registry, and an engine
 * that can use them (docker mirrors docker.io only).
 */
static void
plan_load_mirrors(struct plan_ld *ld)
{
	struct plan_software	*sw = &ld->p->sw;
	const struct yml_node	*l = sw->mirrors_src;
	size_t			 i, j;

	sw->mirrors_src = NULL;
	if (l == NULL || yml_is_null(l))
		return;
	if (l->kind != YML_SEQ) {
		schema_type_error(&ld->sc, l, "registry_mirrors", "a list");
		return;
	}
	if (sw->runtime == NULL || (strcmp(sw->runtime, "containerd") != 0 &&
	    strcmp(sw->runtime, "docker") != 0))
		plan_ld_err(ld, l, "set 'engine: containerd' or 'engine: docker'",
		    "registry mirrors need a containerd or docker engine");
	sw->mirrors = xcalloc(l->n, sizeof *sw->mirrors);
	for (i = 0; i < l->n; i++) {
		struct plan_mirror	*m = &sw->mirrors[sw->nmirrors];

		m->src = l->u.items[i];
		if (schema_bind(&ld->sc, m->src, plan_mirror_fields, m) != 0)
			continue;
		if (str_starts(m->url, "http://") && !m->insecure)
			plan_ld_err(ld, yml_map_get(m->src, "url"), "use https, "
			    "or say 'insecure: true' for this mirror", "mirror "
			    "'%s' is plain http: anyone on the way can read and "
			    "change what is pulled", m->url);
		for (j = 0; j < sw->nmirrors; j++)
			if (strcmp(sw->mirrors[j].registry, m->registry) == 0)
				plan_ld_err(ld, yml_map_get(m->src, "registry"),
				    "one mirror per registry", "registry '%s' "
				    "has a mirror already", m->registry);
		if (sw->runtime != NULL && strcmp(sw->runtime, "docker") == 0 &&
		    strcmp(m->registry, "docker.io") != 0)
			plan_ld_err(ld, yml_map_get(m->src, "registry"), "use "
			    "engine containerd to mirror other registries",
			    "docker mirrors docker.io only, not '%s'",
			    m->registry);
		if (m->ca_file != NULL)
			plan_load_mirror_ca(ld, m);
		sw->nmirrors++;
	}
}

/*
 * software.relay.images: one cache per registry, each on its own port
 * from image_port on (Distribution's proxy mirrors one upstream); an
 * engine that can mirror it, a registry that has no other mirror, and
 * an http:// upstream only with `insecure: true`.
 */
static void
plan_load_relay_images(struct plan_ld *ld)
{
	struct plan_software	*sw = &ld->p->sw;
	struct plan_relay	*r = &sw->relay;
	const struct yml_node	*l = r->images_src;
	size_t			 i, j;

	r->images_src = NULL;
	if (l == NULL || yml_is_null(l))
		return;
	if (l->kind != YML_SEQ) {
		schema_type_error(&ld->sc, l, "images", "a list");
		return;
	}
	if (sw->runtime == NULL || (strcmp(sw->runtime, "containerd") != 0 &&
	    strcmp(sw->runtime, "docker") != 0))
		plan_ld_err(ld, l, "set 'engine: containerd' or 'engine: docker'",
		    "a relay for images needs a containerd or docker engine");
	if (r->image_port + (long)l->n - 1 > 65535)
		plan_ld_err(ld, yml_map_get(r->src, "image_port") != NULL ?
		    yml_map_get(r->src, "image_port") : l, "choose a "
		    "lower image_port", "image ports %ld..%ld go past 65535",
		    r->image_port, r->image_port + (long)l->n - 1);
	else if (r->port >= r->image_port &&
	    r->port < r->image_port + (long)l->n)
		plan_ld_err(ld, yml_map_get(r->src, "port"), "the image caches "
		    "use image_port and the ports after it, one per registry",
		    "port %ld is an image cache's too", r->port);
	r->images = xcalloc(l->n, sizeof *r->images);
	for (i = 0; i < l->n; i++) {
		struct plan_relay_image	*im = &r->images[r->nimages];

		im->src = l->u.items[i];
		if (schema_bind(&ld->sc, im->src, plan_relay_image_fields,
		    im) != 0)
			continue;
		im->port = r->image_port + (long)r->nimages;
		if (im->url != NULL && str_starts(im->url, "http://") &&
		    !im->insecure)
			plan_ld_err(ld, yml_map_get(im->src, "url"), "use https, "
			    "or say 'insecure: true' for this registry",
			    "upstream '%s' is plain http: anyone on the way can "
			    "read and change what is pulled", im->url);
		for (j = 0; j < r->nimages; j++)
			if (strcmp(r->images[j].registry, im->registry) == 0)
				plan_ld_err(ld, yml_map_get(im->src, "registry"),
				    "one cache per registry", "registry '%s' "
				    "has a cache already", im->registry);
		for (j = 0; j < sw->nmirrors; j++)
			if (strcmp(sw->mirrors[j].registry, im->registry) == 0)
				plan_ld_err(ld, yml_map_get(im->src, "registry"),
				    "leave it out of registry_mirrors or of the "
				    "relay's images", "registry '%s' has a mirror "
				    "in registry_mirrors already", im->registry);
		if (sw->runtime != NULL && strcmp(sw->runtime, "docker") == 0 &&
		    strcmp(im->registry, "docker.io") != 0)
			plan_ld_err(ld, yml_map_get(im->src, "registry"), "use "
			    "engine containerd to mirror other registries",
			    "docker mirrors docker.io only, not '%s'",
			    im->registry);
		r->nimages++;
	}
}

/*
 * software.relay: present (even `{}`) means a relay, on the head unless
 * `node` names another; plan_resolve_software() checks the name.
 */
static void
plan_load_relay(struct plan_ld *ld)
{
	struct plan_software	*sw = &ld->p->sw;
	const struct yml_node	*v = sw->relay_src;

	sw->relay_src = NULL;
	if (v == NULL || yml_is_null(v))
		return;
	sw->relay.port = 3142;
	sw->relay.retry_s = 300;
	sw->relay.image_port = 5000;
	sw->relay.src = v;
	(void)schema_bind(&ld->sc, v, plan_relay_fields, &sw->relay);
	plan_load_relay_images(ld);
}

static void
plan_load_software(struct plan_ld *ld, const struct yml_node *v)
{
	struct plan_software	*sw = &ld->p->sw;
	const struct yml_node	*parts = NULL;
	size_t			 i;

	sw->extras = (struct strvec)STRVEC_INIT;
	sw->kernel_args = (struct strvec)STRVEC_INIT;
	sw->orchestrator = "none";
	sw->node_exporter = 1;
	sw->src = NULL;
	if (v == NULL || yml_is_null(v))
		return;
	(void)schema_bind(&ld->sc, v, plan_sw_fields, sw);
	plan_load_mirrors(ld);
	plan_load_relay(ld);
	/* plan_slurm_fields parks the partitions node in sw->src. */
	parts = sw->src;
	sw->src = v;
	if (parts == NULL || yml_is_null(parts))
		return;
	if (parts->kind != YML_SEQ) {
		schema_type_error(&ld->sc, parts, "partitions", "a list");
		return;
	}
	sw->partitions = xcalloc(parts->n, sizeof *sw->partitions);
	sw->npartitions = parts->n;
	for (i = 0; i < parts->n; i++) {
		struct plan_partition	*pt = &sw->partitions[i];

		pt->src = parts->u.items[i];
		(void)schema_bind(&ld->sc, pt->src, plan_partition_fields, pt);
	}
}

/* An IPv4 or IPv6 address, or a host name that does not look like IPv4. */
static int
plan_addr_ok(const char *s)
{
	struct in6_addr	a6;
	uint32_t	a4;

	if (plan_parse_ipv4(s, &a4) == 0)
		return 1;
	if (strchr(s, ':') != NULL)
		return inet_pton(AF_INET6, s, &a6) == 1;
	return str_is_hostname(s) && strspn(s, "0123456789.") != strlen(s);
}

/* Every value is an address; -1 (one error, *out freed) otherwise. */
static int
plan_check_addrs(struct plan_ld *ld, const char ***out, size_t n,
    const struct yml_node *at, const char *key)
{
	size_t	i;

	for (i = 0; i < n; i++) {
		if (plan_addr_ok((*out)[i]))
			continue;
		plan_ld_err(ld, at, "write an IPv4 address like '192.0.2.10', "
		    "a range like '192.0.2.[11-18]', or a host name",
		    "'%s' is not an IP address or host name: '%s'", key,
		    (*out)[i]);
		free(*out);
		*out = NULL;
		return -1;
	}
	return 0;
}

/*
 * Values per node of a range: a hostlist that expands to exactly `n`
 * entries, or a plain value when n == 1.  Fills out[0..n-1] with strings
 * in the doc's arena.  -1 (error added) on a count mismatch.
 */
static int
plan_expand_values(struct plan_ld *ld, const char ***out, const char *val,
    const struct yml_node *at, const char *key, size_t n)
{
	struct prov_err		 e = PROV_ERR_INIT;
	struct hostlist_iter	*it = NULL;
	const char		**v = NULL, *s;
	size_t			 cnt = 0, i = 0;

	*out = NULL;
	if (!hostlist_is_pattern(val)) {
		if (n != 1)
			return plan_ld_err(ld, at, "give a range with one value "
			    "per node, e.g. '192.0.2.[11-18]'", "'%s' gives 1 "
			    "value for %zu nodes", key, n);
		v = xmalloc(sizeof *v);
		v[0] = val;
		*out = v;
		return plan_check_addrs(ld, out, n, at, key);
	}
	if (hostlist_count(&cnt, val, &e) != 0) {
		plan_ld_err(ld, at, NULL, "%s", e.msg);
		prov_err_release(&e);
		return -1;
	}
	if (cnt != n)
		return plan_ld_err(ld, at, "a range of names and the ranges of "
		    "its addresses must expand to the same count",
		    "'%s' expands to %zu values for %zu nodes", key, cnt, n);
	if (hostlist_iter_init(&it, val, &e) != 0) {
		plan_ld_err(ld, at, NULL, "%s", e.msg);
		prov_err_release(&e);
		return -1;
	}
	v = xcalloc(n, sizeof *v);
	while (i < n && (s = hostlist_iter_next(it)) != NULL)
		v[i++] = yml_doc_strdup(&ld->p->doc, s);
	hostlist_iter_free(it);
	*out = v;
	return plan_check_addrs(ld, out, n, at, key);
}

const struct yml_node *
plan_key_or(const struct yml_node *map, const char *k)
{
	const struct yml_pair	*p = yml_map_pair(map, k);

	return p != NULL ? p->val : map;
}

/*
 * One entry's values, one per node it names: addresses, MACs, interface
 * addresses (one list per interface) and BMC addresses.  A bad value
 * leaves NULL in its place.
 */
struct plan_entry_vals {
	const char	**addrs, **macs, **bmcs;
	const char	***ifv;
	size_t		  nif;
};

/* How many nodes the entry's name gives (1 unless a pattern); -1: error. */
static int
plan_node_entry_count(struct plan_ld *ld, const struct yml_node *v,
    const char *name, size_t *n)
{
	struct prov_err	e = PROV_ERR_INIT;

	*n = 1;
	if (!hostlist_is_pattern(name))
		return 0;
	if (hostlist_count(n, name, &e) != 0) {
		plan_ld_err(ld, plan_key_or(v, "name"), NULL, "%s", e.msg);
		prov_err_release(&e);
		return -1;
	}
	if (*n == 0 || ld->p->nnodes + *n > ld->max_nodes) {
		plan_ld_err(ld, plan_key_or(v, "name"),
		    "split the plan or raise the limit",
		    "'%s' gives %zu nodes; at most %zu are allowed",
		    name, *n, ld->max_nodes);
		return -1;
	}
	return 0;
}

/* Expands each per-node value of the entry to n values. */
static void
plan_node_entry_expand(struct plan_ld *ld, const struct yml_node *v,
    struct plan_node_raw *raw, struct plan_bmc_raw *braw, size_t n,
    struct plan_entry_vals *ev)
{
	const struct yml_node	*ml;
	size_t			 i, j;

	if (raw->address != NULL)
		(void)plan_expand_values(ld, &ev->addrs, raw->address,
		    plan_key_or(v, "address"), "address", n);
	if (raw->mac != NULL && n != 1) {
		plan_ld_err(ld, plan_key_or(v, "mac"), "use 'macs: [...]' with "
		    "one MAC per node", "'mac' on a range of %zu nodes", n);
		raw->mac = NULL;
	}
	if ((ml = yml_map_get(v, "macs")) != NULL) {
		/* Each entry was checked (a bad one is missing here). */
		if (ml->kind != YML_SEQ || ml->n != n)
			plan_ld_err(ld, ml, NULL, "'macs' must be a list "
			    "of %zu MAC addresses", n);
		else if (raw->macs.n == n) {
			ev->macs = xcalloc(n, sizeof *ev->macs);
			for (i = 0; i < n; i++)
				ev->macs[i] = ml->u.items[i]->u.s;
		}
	}
	if (raw->interfaces != NULL) {
		/* The schema checked every value as addresses. */
		ev->nif = raw->interfaces->n;
		ev->ifv = xcalloc(ev->nif, sizeof *ev->ifv);
		for (j = 0; j < ev->nif; j++) {
			const struct yml_pair	*pr = &raw->interfaces->u.pairs[j];

			(void)plan_expand_values(ld, &ev->ifv[j], pr->val->u.s,
			    pr->val, pr->key->u.s, n);
		}
	}
	if (raw->bmc != NULL) {
		braw->port = 443;
		if (schema_bind(&ld->sc, raw->bmc, plan_bmc_fields, braw) == 0)
			(void)plan_expand_values(ld, &ev->bmcs, braw->address,
			    plan_key_or(raw->bmc, "address"), "bmc address", n);
	}
}

static void
plan_entry_vals_release(struct plan_entry_vals *ev)
{
	size_t	j;

	free(ev->addrs);
	free(ev->macs);
	free(ev->bmcs);
	for (j = 0; j < ev->nif; j++)
		free(ev->ifv[j]);
	free(ev->ifv);
}

/* The i-th node of the entry, named name, its values from ev. */
static void
plan_node_fill(struct plan_ld *ld, struct plan_node *nd, const char *name,
    size_t i, const struct yml_node *v, const struct plan_node_raw *raw,
    const struct plan_bmc_raw *braw, const struct plan_entry_vals *ev)
{
	struct plan	*p = ld->p;
	size_t		 j;

	memset(nd, 0, sizeof *nd);
	nd->name = name;
	nd->role = PLAN_ROLE_WORKER;
	for (j = 0; plan_roles[j] != NULL; j++)
		if (strcmp(raw->role, plan_roles[j]) == 0)
			nd->role = (enum plan_role)j;
	nd->hardware = raw->hardware;
	nd->rack = raw->rack;
	nd->u = raw->u;		/* filled by height later */
	nd->address = ev->addrs != NULL ? ev->addrs[i] : NULL;
	nd->mac = ev->macs != NULL ? ev->macs[i] : raw->mac;
	nd->src = v;
	nd->index = i;
	if (ev->nif > 0) {
		nd->ifaces = yml_doc_alloc(&p->doc, ev->nif * sizeof *nd->ifaces);
		nd->nifaces = ev->nif;
		for (j = 0; j < ev->nif; j++) {
			nd->ifaces[j].network =
			    raw->interfaces->u.pairs[j].key->u.s;
			nd->ifaces[j].address = ev->ifv[j] != NULL ?
			    ev->ifv[j][i] : NULL;
		}
	}
	if (ev->bmcs != NULL) {
		nd->bmc = yml_doc_alloc(&p->doc, sizeof *nd->bmc);
		nd->bmc->address = ev->bmcs[i];
		nd->bmc->user = braw->user;
		nd->bmc->password_env = braw->password_env;
		nd->bmc->password_file = plan_path(ld, braw->password_file);
		nd->bmc->ca_file = plan_path(ld, braw->ca_file);
		nd->bmc->insecure = braw->insecure;
		nd->bmc->port = braw->port;
		nd->bmc->system = braw->system;
	}
}

/*
 * The node's name, valid and unique; *badname counts the entry's bad
 * names so that it gets one message, not one per node.
 */
static void
plan_node_name_check(struct plan_ld *ld, const struct yml_node *v,
    const struct plan_node *nd, size_t *badname)
{
	struct plan	*p = ld->p;

	if (!str_is_hostname(nd->name)) {
		if ((*badname)++ == 0)
			plan_ld_err(ld, plan_key_or(v, "name"),
			    "RFC 1123: letters, digits and '-', labels of "
			    "at most 63 characters, not starting or "
			    "ending with '-'",
			    "'%s' is not a valid host name", nd->name);
	} else if (strmap_add(&p->index->nodes, nd->name,
	    (void *)(uintptr_t)(p->nnodes + 1)) != NULL) {
		/* Indices, not pointers: p->nodes may still move. */
		plan_ld_err(ld, plan_key_or(v, "name"),
		    "node names must be unique",
		    "duplicate node name '%s'", nd->name);
	}
}

static void
plan_load_node_entry(struct plan_ld *ld, const struct yml_node *v)
{
	struct plan		*p = ld->p;
	struct plan_node_raw	 raw;
	struct plan_bmc_raw	 braw;
	struct plan_entry_vals	 ev;
	struct plan_vm		 vm;
	struct prov_err		 e = PROV_ERR_INIT;
	struct hostlist_iter	*it = NULL;
	const char		*name;
	size_t			 n = 1, i, badname = 0;

	memset(&raw, 0, sizeof raw);
	memset(&braw, 0, sizeof braw);
	memset(&ev, 0, sizeof ev);
	memset(&vm, 0, sizeof vm);
	raw.role = "worker";
	raw.macs = (struct strvec)STRVEC_INIT;
	/*
	 * Other bad keys still make the nodes, so that references to them
	 * do not add false "unknown node" errors; the load fails anyway.
	 */
	(void)schema_bind(&ld->sc, v, plan_node_fields, &raw);
	if (raw.name == NULL)
		goto out;
	if (plan_node_entry_count(ld, v, raw.name, &n) != 0)
		goto out;
	plan_node_entry_expand(ld, v, &raw, &braw, n, &ev);
	if (raw.vm != NULL)
		(void)schema_bind(&ld->sc, raw.vm, plan_vm_fields, &vm);
	/*
	 * A bad value above leaves NULL in its place and the nodes are still
	 * made (the load fails anyway), so that later references to them do
	 * not add false errors.
	 */
	if (hostlist_is_pattern(raw.name) &&
	    hostlist_iter_init(&it, raw.name, &e) != 0) {
		plan_ld_err(ld, plan_key_or(v, "name"), NULL, "%s", e.msg);
		prov_err_release(&e);
		goto out;
	}
	ALLOC_GROW(p->nodes, p->nnodes + n, ld->nodes_alloc);
	for (i = 0; i < n; i++) {
		struct plan_node	*nd = &p->nodes[p->nnodes];

		name = it != NULL ? hostlist_iter_next(it) : raw.name;
		if (name == NULL)
			break;
		plan_node_fill(ld, nd, it != NULL ?
		    yml_doc_strdup(&p->doc, name) : name, i, v, &raw, &braw,
		    &ev);
		nd->vm = vm;
		plan_node_name_check(ld, v, nd, &badname);
		/* A bad name still fails the load; its references get checked. */
		p->nnodes++;
	}
out:
	strvec_clear(&raw.macs);
	hostlist_iter_free(it);
	plan_entry_vals_release(&ev);
}

/* Sum of the counts of every node entry, so the array is allocated once. */
static size_t
plan_count_nodes(const struct yml_node *nodes)
{
	size_t	i, total = 0, n;

	for (i = 0; i < nodes->n; i++) {
		const struct yml_node	*name = yml_map_get(nodes->u.items[i],
		    "name");
		struct prov_err		 e = PROV_ERR_INIT;

		n = 1;
		if (name != NULL && name->kind == YML_SCALAR &&
		    hostlist_is_pattern(name->u.s) &&
		    hostlist_count(&n, name->u.s, &e) != 0) {
			prov_err_release(&e);
			n = 1;
		}
		if (n > PLAN_MAX_NODES_DEFAULT)
			n = 1;
		total += n;
	}
	return total;
}

static void
plan_load_nodes(struct plan_ld *ld, const struct yml_node *v)
{
	struct plan	*p = ld->p;
	size_t		 i, total;

	if (v == NULL || yml_is_null(v))
		return;
	if (v->kind != YML_SEQ) {
		schema_type_error(&ld->sc, v, "nodes", "a list of nodes");
		return;
	}
	total = plan_count_nodes(v);
	if (total > 0 && total <= ld->max_nodes) {
		p->nodes = xcalloc(total, sizeof *p->nodes);
		ld->nodes_alloc = total;
	}
	for (i = 0; i < v->n; i++)
		plan_load_node_entry(ld, v->u.items[i]);
}

/* An id for `what` in the catalog, with a hint on a miss. */
static int
plan_resolve_err(struct plan_ld *ld, const struct yml_node *at,
    const char *id, enum cat_kind kind)
{
	char	*hint = plan_hint(id, catalog_ids(ld->p->catalog, kind), NULL);
	int	 r;

	if (hint == NULL)
		hint = xasprintf("see 'provision catalog %s' for the known "
		    "ones, or add it in a profiles dir",
		    catalog_kind_name(kind));
	r = plan_ld_err(ld, at, hint, "unknown %s '%s'",
	    catalog_kind_name(kind), id);
	free(hint);
	return r;
}

static void
plan_resolve_hw(struct plan_ld *ld, struct plan_hw *hw)
{
	const struct cat_system	*sys;
	size_t			 i;

	sys = hw->sys = catalog_system(ld->p->catalog, hw->system);
	if (hw->system != NULL && sys == NULL)
		plan_resolve_err(ld, plan_key_or(hw->src, "system"), hw->system,
		    CAT_SYSTEM);
	if (hw->cpu.model != NULL) {
		hw->cpu_cat = catalog_cpu(ld->p->catalog, hw->cpu.model);
		if (hw->cpu_cat == NULL)
			plan_resolve_err(ld, plan_key_or(hw->cpu.src, "model"),
			    hw->cpu.model, CAT_CPU);
	} else if (sys != NULL && sys->cpu.model != NULL)
		hw->cpu_cat = catalog_cpu(ld->p->catalog, sys->cpu.model);
	hw->ncpus = hw->cpu.count >= 0 ? hw->cpu.count :
	    sys != NULL && sys->cpu.model != NULL ? sys->cpu.count :
	    sys != NULL && sys->cpu_sockets > 0 ? sys->cpu_sockets : 1;

	if (hw->gpus.model != NULL) {
		hw->gpu_cat = catalog_gpu(ld->p->catalog, hw->gpus.model);
		if (hw->gpu_cat == NULL)
			plan_resolve_err(ld, plan_key_or(hw->gpus.src, "model"),
			    hw->gpus.model, CAT_GPU);
		hw->ngpus = hw->gpus.count >= 0 ? hw->gpus.count : 1;
	} else if (sys != NULL && sys->gpus.model != NULL) {
		hw->gpu_cat = catalog_gpu(ld->p->catalog, sys->gpus.model);
		hw->ngpus = sys->gpus.count;
	}
	hw->mem_gb = !isnan(hw->memory_gb) ? hw->memory_gb :
	    sys != NULL && !isnan(sys->memory_gb) ? sys->memory_gb : NAN;

	for (i = 0; i < hw->nnics; i++) {
		struct plan_nic	*n = &hw->nics[i];

		if (n->model == NULL)
			continue;
		n->cat = catalog_nic(ld->p->catalog, n->model);
		if (n->cat == NULL)
			plan_resolve_err(ld, plan_key_or(n->src, "model"),
			    n->model, CAT_NIC);
		if (n->network != NULL &&
		    strmap_get(&ld->p->index->nets, n->network) == NULL)
			plan_ld_err(ld, plan_key_or(n->src, "network"),
			    "define it under 'networks:'",
			    "unknown network '%s'", n->network);
	}
	if (hw->gpu_cat != NULL && hw->mig.n > 0 && hw->gpu_cat->mig_max == 0)
		plan_ld_err(ld, plan_key_or(hw->src, "mig"),
		    "MIG needs an A100, A30, H100 or H200",
		    "gpu '%s' does not support MIG", hw->gpu_cat->m.id);
}

/* Names of a strmap-backed section, for hints. */
static const char **
plan_names(const void *arr, size_t n, size_t stride)
{
	const char	**v = xcalloc(n + 1, sizeof *v);
	size_t		  i;

	for (i = 0; i < n; i++)
		v[i] = *(const char *const *)((const char *)arr + i * stride);
	return v;
}

static void
plan_ref_err(struct plan_ld *ld, const struct yml_node *at, const char *what,
    const char *name, const void *arr, size_t n, size_t stride,
    const char *section)
{
	const char	**names = plan_names(arr, n, stride);
	char		 *hint = plan_hint(name, names, section);

	plan_ld_err(ld, at, hint, "unknown %s '%s'", what, name);
	free(hint);
	free(names);
}

static void
plan_resolve_nodes(struct plan_ld *ld)
{
	struct plan		*p = ld->p;
	const struct yml_node	*last_src = NULL;
	size_t			 i, j;

	for (i = 0; i < p->nnodes; i++) {
		struct plan_node	*nd = &p->nodes[i];
		/* One message per entry, not one per node of a range. */
		int			 first = nd->src != last_src;

		last_src = nd->src;
		if (nd->hardware != NULL) {
			nd->hw = strmap_get(&p->index->hw, nd->hardware);
			if (nd->hw == NULL && first)
				plan_ref_err(ld, plan_key_or(nd->src, "hardware"),
				    "hardware", nd->hardware, p->hw, p->nhw,
				    sizeof *p->hw, "hardware");
		}
		if (nd->rack != NULL) {
			nd->rackp = strmap_get(&p->index->racks, nd->rack);
			if (nd->rackp == NULL && first)
				plan_ref_err(ld, plan_key_or(nd->src, "rack"),
				    "rack", nd->rack, p->racks, p->nracks,
				    sizeof *p->racks, "racks");
		}
		if (nd->u > 0 && nd->index > 0) {
			/* A range fills upward by chassis height. */
			long	h = nd->hw != NULL && nd->hw->sys != NULL &&
			    nd->hw->sys->rack_units > 0 ?
			    nd->hw->sys->rack_units : 1;

			nd->u += (long)nd->index * h;
		}
		for (j = 0; j < nd->nifaces && first; j++)
			if (strmap_get(&p->index->nets,
			    nd->ifaces[j].network) == NULL)
				plan_ref_err(ld, yml_map_pair(yml_map_get(nd->src,
				    "interfaces"), nd->ifaces[j].network)->key,
				    "network", nd->ifaces[j].network, p->nets,
				    p->nnets, sizeof *p->nets, "networks");
	}
	for (i = 0; i < p->nswitches; i++) {
		struct plan_switch	*s = &p->switches[i];

		s->cat = catalog_switch(p->catalog, s->model);
		if (s->model != NULL && s->cat == NULL)
			plan_resolve_err(ld, plan_key_or(s->src, "model"),
			    s->model, CAT_SWITCH);
		if (s->network != NULL && !strmap_get(&p->index->nets, s->network))
			plan_ref_err(ld, plan_key_or(s->src, "network"),
			    "network", s->network, p->nets, p->nnets,
			    sizeof *p->nets, "networks");
		if (s->rack != NULL && !strmap_get(&p->index->racks, s->rack))
			plan_ref_err(ld, plan_key_or(s->src, "rack"), "rack",
			    s->rack, p->racks, p->nracks, sizeof *p->racks,
			    "racks");
	}
}

/*
 * Two nodes behind one BMC (a blade enclosure, a host and its DPU) must
 * name different systems, or `bmc off -n blade2` would act on blade1's:
 * the same address, port and bmc.system (or none) twice is an error at
 * the second.
 */
static void
plan_check_bmc_systems(struct plan_ld *ld)
{
	struct plan	*p = ld->p;
	struct strmap	 seen = STRMAP_INIT;
	struct strvec	 keys = STRVEC_INIT;
	size_t		 i;

	for (i = 0; i < p->nnodes; i++) {
		const struct plan_node	*nd = &p->nodes[i], *other;
		const struct plan_bmc	*b = nd->bmc;

		if (b == NULL)
			continue;
		strvec_pushf(&keys, "%s|%ld|%s", b->address, b->port,
		    b->system != NULL ? b->system : "");
		other = strmap_add(&seen, keys.v[keys.n - 1], (void *)nd);
		if (other == NULL)
			continue;
		plan_ld_err(ld, plan_key_or(yml_map_get(nd->src, "bmc"),
		    "system"), "give each node its own bmc.system: the "
		    "system's Redfish id or its index from 1",
		    "nodes '%s' and '%s' share BMC %s and %s", other->name,
		    nd->name, b->address, b->system != NULL ? "name the same "
		    "bmc.system" : "neither names a bmc.system");
		break;		/* one message, not one per node */
	}
	strmap_clear(&seen);
	strvec_clear(&keys);
}

/*
 * ssh.jump: a bare name is a node, reached at its address (known_hosts
 * may know it by name or address, so the name stays what SSH checks);
 * user@, a dot or a port make it a host.  Every command that connects
 * goes through ssh.jump_host and ssh.jump_addr.
 */
static void
plan_resolve_jump(struct plan_ld *ld)
{
	struct plan_ssh		*s = &ld->p->ssh;
	const struct plan_node	*jn;
	char			*spec;

	s->jump_host = s->jump;
	s->jump_addr = NULL;
	if (s->jump == NULL || strpbrk(s->jump, ".:@[") != NULL)
		return;
	if ((jn = plan_node(ld->p, s->jump)) == NULL) {
		plan_ld_err(ld, yml_map_get(s->src, "jump"), "name a node of "
		    "the plan or write [user@]host[:port]", "unknown node '%s'",
		    s->jump);
		return;
	}
	if (jn->address == NULL)
		return;
	s->jump_addr = jn->address;
	if (s->port > 0 && s->port != 22) {
		spec = xasprintf("%s:%ld", jn->name, s->port);
		s->jump_host = yml_doc_strdup(&ld->p->doc, spec);
		free(spec);
	}
}

static void
plan_resolve_software(struct plan_ld *ld)
{
	struct plan		*p = ld->p;
	struct plan_software	*sw = &p->sw;
	struct plan_node	**sel = NULL;
	struct prov_err		 e = PROV_ERR_INIT;
	size_t			 i, n;

	if (sw->src == NULL)
		return;
	if (sw->relay.src != NULL && sw->relay.node != NULL &&
	    plan_node(p, sw->relay.node) == NULL)
		plan_ld_err(ld, yml_map_get(sw->relay.src, "node"), "name a node "
		    "of the plan (or leave 'node' out: the head)",
		    "unknown node '%s'", sw->relay.node);
	if (sw->prometheus != NULL && plan_node(p, sw->prometheus) == NULL)
		plan_ld_err(ld, yml_map_get(yml_map_get(sw->src, "monitoring"),
		    "prometheus"), "name a node of the plan",
		    "unknown node '%s'", sw->prometheus);
	if (sw->grafana != NULL && plan_node(p, sw->grafana) == NULL)
		plan_ld_err(ld, yml_map_get(yml_map_get(sw->src, "monitoring"),
		    "grafana"), "name a node of the plan",
		    "unknown node '%s'", sw->grafana);
	for (i = 0; i < sw->npartitions; i++) {
		struct plan_partition	*pt = &sw->partitions[i];

		if (pt->nodes == NULL)
			continue;
		if (plan_select(&sel, &n, p, pt->nodes, &e) != 0) {
			plan_ld_err(ld, plan_key_or(pt->src, "nodes"), e.hint,
			    "%s", e.msg);
			prov_err_release(&e);
		}
		free(sel);
		sel = NULL;
	}
}


static int
plan_load_catalog(struct plan_ld *ld, const struct yml_node *profiles)
{
	struct plan	*p = ld->p;
	size_t		 i;
	int		 r = 0;

	if (ld->opts->builtin_dir != NULL)
		strvec_push(&p->profile_dirs, ld->opts->builtin_dir);
	else
		strvec_push_nodup(&p->profile_dirs, catalog_default_dir());
	if (profiles != NULL && !yml_is_null(profiles)) {
		if (profiles->kind != YML_SEQ)
			schema_type_error(&ld->sc, profiles, "profiles",
			    "a list of directories");
		else
			for (i = 0; i < profiles->n; i++) {
				const char	*d;
				struct stat	 st;

				if (schema_typed(&ld->sc, profiles->u.items[i],
				    SCHEMA_PATH, "profiles", &d) != 0)
					continue;
				/* Said here, where the plan names it. */
				d = plan_path(ld, d);
				if (stat(d, &st) != 0)
					plan_ld_err(ld, profiles->u.items[i],
					    PLAN_PATH_HINT, "cannot read "
					    "profiles dir '%s': %s", d,
					    strerror(errno));
				else if (!S_ISDIR(st.st_mode))
					plan_ld_err(ld, profiles->u.items[i],
					    PLAN_PATH_HINT, "profiles dir '%s' "
					    "is not a directory", d);
				else
					strvec_push(&p->profile_dirs, d);
			}
	}
	for (i = 0; i < ld->opts->profile_dirs.n; i++)
		strvec_push(&p->profile_dirs, ld->opts->profile_dirs.v[i]);
	p->catalog = catalog_new();
	for (i = 0; i < p->profile_dirs.n; i++)
		if (catalog_load_dir(p->catalog, p->profile_dirs.v[i],
		    ld->errs) != 0)
			r = -1;
	return r;
}

static void
plan_check_top(struct plan_ld *ld, const struct yml_node *root)
{
	const struct yml_node	*ver;
	const char		*keys[ARRAY_SIZE(plan_top_fields)];
	size_t			 i;
	long			 v;

	for (i = 0; plan_top_fields[i].key != NULL; i++)
		keys[i] = plan_top_fields[i].key;
	keys[i] = NULL;
	for (i = 0; i < root->n; i++) {
		const struct yml_node	*k = root->u.pairs[i].key;
		size_t			 j;
		char			*hint;

		for (j = 0; plan_top_fields[j].key != NULL; j++)
			if (strcmp(k->u.s, plan_top_fields[j].key) == 0)
				break;
		if (plan_top_fields[j].key != NULL)
			continue;
		hint = plan_hint(k->u.s, keys, NULL);
		plan_ld_err(ld, k, hint, "unknown key '%s'", k->u.s);
		free(hint);
	}
	ver = yml_map_get(root, "version");
	if (ver == NULL)
		plan_ld_err(ld, root, "add 'version: 1' at the top",
		    "missing key 'version'");
	else if (schema_long(&ld->sc, ver, "version", &v) == 0 && v != 1)
		plan_ld_err(ld, ver, "this provision reads version 1",
		    "unsupported plan version %ld", v);
}

/*
 * Sort the errors into file order, dropping repeats of one message at one
 * place (an aliased value used twice).  When loading failed, their locations
 * borrow file names that die with the plan (its own and its catalog's):
 * point them at the caller's label, or for catalog files move the
 * location into the message, which the error owns (printed the same).
 */
static void
plan_errs_finish(struct plan *p, struct prov_errs *errs, size_t nerr0,
    const char *label)
{
	const char	**dying = NULL;
	size_t		  ndying = 0, adying = 0, i, j;

	/* Ours are the last ones until sorted. */
	for (i = nerr0; p != NULL && i < errs->n; i++) {
		const char	*f = errs->v[i].loc.file;

		if (f != NULL && f != label && f != p->file) {
			ALLOC_GROW(dying, ndying + 1, adying);
			dying[ndying++] = f;
		}
	}
	prov_errs_sort(errs);
	/* One text shared by two entries (an alias) is one mistake. */
	for (i = j = 0; i < errs->n; i++) {
		struct prov_err	*e = &errs->v[i];
		struct prov_err	*prev = j > 0 ? &errs->v[j - 1] : NULL;

		if (prev != NULL && e->loc.file == prev->loc.file &&
		    e->loc.line == prev->loc.line && e->loc.line > 0 &&
		    e->loc.col == prev->loc.col &&
		    strcmp(e->msg, prev->msg) == 0) {
			prov_err_release(e);
			continue;
		}
		errs->v[j++] = *e;
	}
	errs->n = j;
	for (i = 0; p != NULL && i < errs->n; i++) {
		struct prov_err	*e = &errs->v[i];
		char		*msg;

		if (e->loc.file == p->file) {
			e->loc.file = label;
			continue;
		}
		for (j = 0; j < ndying && dying[j] != e->loc.file; j++)
			;
		if (j == ndying)
			continue;
		if (e->loc.line > 0)
			msg = xasprintf("%s:%u:%u: %s", e->loc.file,
			    e->loc.line, e->loc.col, e->msg);
		else
			msg = xasprintf("%s: %s", e->loc.file, e->msg);
		free(e->msg);
		e->msg = msg;
		e->loc.file = NULL;
		e->loc.line = e->loc.col = 0;
	}
	free(dying);
}

/*
 * Build the plan from text (data != NULL) or streaming from fp: a big plan
 * is never held whole in memory, only its tree.
 */
static int
plan_load_any(struct plan **out, const char *label, const char *data,
    size_t len, FILE *fp, const struct plan_opts *opts,
    struct prov_errs *errs)
{
	struct plan_ld		 ld;
	struct plan		*p;
	const struct yml_node	*root, *sec;
	struct plan_cluster_raw	 cl = { NULL, NULL, "training" };
	size_t			 nerr0 = errs->n;
	char			*dcopy;
	int			 r = -1;

	*out = NULL;
	p = xcalloc(1, sizeof *p);
	p->index = xcalloc(1, sizeof *p->index);
	p->profile_dirs = (struct strvec)STRVEC_INIT;
	p->sw.extras = (struct strvec)STRVEC_INIT;
	p->sw.kernel_args = (struct strvec)STRVEC_INIT;
	yml_doc_init(&p->doc);
	p->file = xstrdup(label);
	dcopy = xstrdup(label);
	p->dir = xstrdup(dirname(dcopy));
	free(dcopy);

	memset(&ld, 0, sizeof ld);
	ld.p = p;
	ld.errs = errs;
	ld.opts = opts;
	ld.sc.doc = &p->doc;
	ld.sc.errs = errs;
	ld.max_nodes = opts->max_nodes ? opts->max_nodes : PLAN_MAX_NODES_DEFAULT;

	if ((fp != NULL ? yml_load_fp(&p->doc, p->file, fp, errs) :
	    yml_load(&p->doc, p->file, data, len, errs)) != 0)
		goto out;
	root = p->doc.root;
	if (root == NULL || yml_is_null(root)) {
		struct prov_loc	loc = { p->file, 0, 0 };

		prov_errs_add(errs, PROV_E_PLAN, &loc, "start with 'version: 1'",
		    "the plan is empty");
		goto out;
	}
	if (root->kind != YML_MAP) {
		schema_type_error(&ld.sc, root, "plan", "a mapping");
		goto out;
	}
	plan_check_top(&ld, root);
	if ((sec = yml_map_get(root, "cluster")) != NULL &&
	    schema_bind(&ld.sc, sec, plan_cluster_fields, &cl) == 0) {
		p->cluster = cl.name;
		p->domain = cl.domain;
		p->workload = cl.workload;
	} else if (sec == NULL)
		plan_ld_err(&ld, root, "add 'cluster: { name: NAME }'",
		    "missing key 'cluster'");
	(void)plan_load_catalog(&ld, yml_map_get(root, "profiles"));

	if ((sec = yml_map_get(root, "hardware")) != NULL && sec->kind == YML_MAP) {
		p->hw = xcalloc(sec->n, sizeof *p->hw);
		p->nhw = sec->n;
	}
	plan_each_entry(&ld, sec, "hardware", plan_load_hw);
	if ((sec = yml_map_get(root, "racks")) != NULL && sec->kind == YML_MAP) {
		p->racks = xcalloc(sec->n, sizeof *p->racks);
		p->nracks = sec->n;
	}
	plan_each_entry(&ld, sec, "racks", plan_load_rack);
	if ((sec = yml_map_get(root, "networks")) != NULL && sec->kind == YML_MAP) {
		p->nets = xcalloc(sec->n, sizeof *p->nets);
		p->nnets = sec->n;
	}
	plan_each_entry(&ld, sec, "networks", plan_load_net);
	if ((sec = yml_map_get(root, "switches")) != NULL && sec->kind == YML_MAP) {
		p->switches = xcalloc(sec->n, sizeof *p->switches);
		p->nswitches = sec->n;
	}
	plan_each_entry(&ld, sec, "switches", plan_load_switch);
	plan_load_ssh(&ld, yml_map_get(root, "ssh"));
	plan_load_apply(&ld, yml_map_get(root, "apply"));
	plan_load_nodes(&ld, yml_map_get(root, "nodes"));
	plan_load_software(&ld, yml_map_get(root, "software"));
	plan_load_offline(&ld, yml_map_get(root, "offline"));
	plan_load_people(&ld, root);
	plan_load_logging(&ld, yml_map_get(root, "logging"));
	plan_load_directory(&ld, yml_map_get(root, "directory"));
	plan_load_storage(&ld, yml_map_get(root, "storage"));

	for (size_t i = 0; i < p->nhw; i++)
		if (p->hw[i].name != NULL)
			plan_resolve_hw(&ld, &p->hw[i]);
	plan_resolve_nodes(&ld);
	plan_check_bmc_systems(&ld);
	plan_resolve_software(&ld);
	plan_resolve_jump(&ld);
	plan_resolve_people(&ld);
	plan_resolve_storage(&ld);
	plan_resolve_heads(&ld);
	if (errs->n > nerr0)
		goto out;
	*out = p;
	p = NULL;
	r = 0;
out:
	plan_errs_finish(p, errs, nerr0, label);
	plan_free(p);
	return r;
}

int
plan_load(struct plan **out, const char *path, const struct plan_opts *opts,
    struct prov_errs *errs)
{
	FILE	*fp;
	int	 r;

	*out = NULL;
	if ((fp = fopen(path, "rb")) == NULL) {
		struct prov_loc	loc = { NULL, 0, 0 };

		prov_errs_add(errs, PROV_E_SYS, &loc, NULL,
		    "cannot read plan '%s': %s", path, strerror(errno));
		return -1;
	}
	r = plan_load_any(out, path, NULL, 0, fp, opts, errs);
	fclose(fp);
	return r;
}

int
plan_load_buf(struct plan **out, const char *label, const char *data,
    size_t len, const struct plan_opts *opts, struct prov_errs *errs)
{
	return plan_load_any(out, label, data, len, NULL, opts, errs);
}

void
plan_free(struct plan *p)
{
	size_t	i;

	if (p == NULL)
		return;
	for (i = 0; i < p->nhw; i++) {
		free(p->hw[i].nics);
		free(p->hw[i].drives);
		strvec_clear(&p->hw[i].mig);
	}
	free(p->hw);
	for (i = 0; i < p->nracks; i++)
		free(p->racks[i].pdus);
	free(p->racks);
	free(p->nets);
	free(p->switches);
	free(p->nodes);
	free(p->sw.partitions);
	free(p->sw.mirrors);
	free(p->sw.relay.images);
	strvec_clear(&p->sw.extras);
	strvec_clear(&p->sw.kernel_args);
	strvec_clear(&p->directory.ldap.uri);
	for (i = 0; i < p->nusers; i++) {
		strvec_clear(&p->users[i].groups);
		strvec_clear(&p->users[i].ssh_keys);
	}
	free(p->users);
	free(p->groups);
	for (i = 0; i < p->sched.nteams; i++) {
		strvec_clear(&p->sched.teams[i].users);
		strvec_clear(&p->sched.teams[i].qos);
	}
	free(p->sched.teams);
	for (i = 0; i < p->nexports; i++) {
		strvec_clear(&p->exports[i].roles);
		strvec_clear(&p->exports[i].options);
	}
	free(p->exports);
	for (i = 0; i < p->sched.nqos; i++)
		strvec_clear(&p->sched.qos[i].preempts);
	free(p->sched.qos);
	strvec_clear(&p->profile_dirs);
	catalog_free(p->catalog);
	if (p->index != NULL) {
		strmap_clear(&p->index->nodes);
		strmap_clear(&p->index->hw);
		strmap_clear(&p->index->racks);
		strmap_clear(&p->index->nets);
		free(p->index);
	}
	yml_doc_release(&p->doc);
	free((char *)p->file);
	free((char *)p->dir);
	free(p);
}

struct prov_loc
plan_loc(const struct plan *p, const struct yml_node *src, const char *k)
{
	const struct yml_pair	*pr;
	struct prov_loc		 loc = { p->file, 0, 0 };

	if (src == NULL)
		return loc;
	if (k != NULL && (pr = yml_map_pair(src, k)) != NULL)
		return yml_loc(&p->doc, pr->val);
	return yml_loc(&p->doc, src);
}

void
plan_schema_walk(void (*fn)(void *, const char *, const struct schema_field *),
    void *arg)
{
	schema_walk(plan_top_fields, "", fn, arg);
}

const char *
plan_role_name(enum plan_role r)
{
	return (size_t)r < ARRAY_SIZE(plan_roles) - 1 ? plan_roles[r] : "?";
}

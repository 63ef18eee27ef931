/*
 * render.c: generated configuration and step scripts.  See render.h and
 * docs/templates.md.
 */
#include "compat.h"

#include <math.h>

#include "buf.h"
#include "hostlist.h"
#include "render.h"
#include "str.h"

/*
 * Count-only GPUs: slurmd drops a GPU without a File (the node then
 * registers with fewer than slurm.conf gives it), so each is a stand-in
 * here, made by the slurm step (SLURM_GPU_STANDINS): a character device,
 * since slurmd loads no other File and jobs would get no SLURM_JOB_GPUS.
 */
#define RENDER_GRES_STANDIN_DIR	"/var/lib/provision/gres"

/*
 * The DCGM exporter's job mapping (templates/slurm.sh installs both): the
 * prolog and epilog write the job ids of each GPU for its hpc_job label.
 */
#define RENDER_JOBMAP_PROLOG	"/etc/slurm/prolog-dcgm-job-map"
#define RENDER_JOBMAP_EPILOG	"/etc/slurm/epilog-dcgm-job-map"

/* slurmdbd's port where slurmd's of a shared namespace take 6818 and up. */
#define RENDER_DBD_PORT_SHARED	6816

const struct plan_node *
render_head(const struct plan *p)
{
	size_t	i;

	for (i = 0; i < p->nnodes; i++)
		if (p->nodes[i].role == PLAN_ROLE_HEAD)
			return &p->nodes[i];
	return p->nnodes > 0 ? &p->nodes[0] : NULL;
}

static const char *
render_addr(const struct plan_node *n)
{
	return n->address != NULL ? n->address : n->name;
}

const struct plan_node *
render_relay(const struct plan *p)
{
	if (p->sw.relay.src == NULL)
		return NULL;
	return p->sw.relay.node != NULL ? plan_node(p, p->sw.relay.node) :
	    render_head(p);
}

void
render_hosts_block(struct buf *b, const struct plan *p)
{
	size_t	i;

	for (i = 0; i < p->nnodes; i++) {
		const struct plan_node	*n = &p->nodes[i];

		if (n->address == NULL)
			continue;
		if (p->domain != NULL)
			buf_addf(b, "%s %s.%s %s\n", n->address, n->name,
			    p->domain, n->name);
		else
			buf_addf(b, "%s %s\n", n->address, n->name);
	}
}

void
render_node_resources(const struct render_in *in, size_t i, long *cpus,
    long *mem_mb, long *gpus)
{
	const struct plan_node	*n = &in->plan->nodes[i];
	const struct plan_hw	*hw = n->hw;

	if (in->info != NULL && in->info[i].have) {
		*cpus = in->info[i].cpus;
		/* Leave 2% to the kernel and daemons: slurmd refuses a node
		 * whose RealMemory exceeds what it finds. */
		*mem_mb = (long)((double)in->info[i].mem_mb * 0.98);
		*gpus = in->info[i].gpus;
		return;
	}
	*cpus = 1;
	if (hw != NULL && hw->cpu_cat != NULL && hw->cpu_cat->threads > 0)
		*cpus = hw->cpu_cat->threads * (hw->ncpus > 0 ? hw->ncpus : 1);
	*mem_mb = hw != NULL && !isnan(hw->mem_gb) ?
	    (long)(hw->mem_gb * 1024 * 0.98) : 1024;
	*gpus = hw != NULL ? hw->ngpus : 0;
}

static const char *
render_slurm_cluster(const struct plan *p)
{
	return p->sw.slurm_cluster != NULL ? p->sw.slurm_cluster : p->cluster;
}

/* Count-only GPUs: Slurm counts the plan's GPUs; nodes have no devices. */
static int
render_gres_count_only(const struct plan *p)
{
	return strcmp(p->sched.gpu_gres, "count-only") == 0;
}

/* GPUs Slurm gives node i: found on it (facts), or the plan's. */
static long
render_slurm_gpus(const struct render_in *in, size_t i)
{
	const struct plan_hw	*hw = in->plan->nodes[i].hw;
	long			 cpus, mem, gpus;

	if (render_gres_count_only(in->plan))
		return hw != NULL ? hw->ngpus : 0;
	render_node_resources(in, i, &cpus, &mem, &gpus);
	return gpus;
}

/* All nodes on loopback addresses: they share the workstation's network namespace (the testbed). */
static int
render_shared_netns(const struct plan *p)
{
	size_t	i;

	for (i = 0; i < p->nnodes; i++)
		if (p->nodes[i].address == NULL ||
		    !str_starts(p->nodes[i].address, "127."))
			return 0;
	return p->nnodes > 0;
}

/*
 * Accounting through slurmdbd on the head, enforced (a job needs an
 * association, and the team's limits hold), and priority from fair share.
 */
static void
render_slurm_accounting(struct buf *b, const struct plan *p,
    const struct plan_node *head)
{
	const struct plan_sched	*sc = &p->sched;

	/*
	 * With QOS in the plan, a job must run in a QOS its team may use;
	 * shards are counted so that usage can weigh them.
	 */
	buf_addf(b, "AccountingStorageType=accounting_storage/slurmdbd\n"
	    "AccountingStorageHost=%s\n"
	    "AccountingStorageEnforce=associations,limits%s\n"
	    "AccountingStorageTRES=gres/gpu%s\n"
	    "JobAcctGatherType=jobacct_gather/linux\n"
	    "JobAcctGatherFrequency=30\n"
	    "PriorityType=priority/multifactor\n"
	    "PriorityDecayHalfLife=7-0\n"
	    "PriorityWeightFairshare=%ld\n"
	    "PriorityWeightAge=%ld\n"
	    "PriorityWeightJobSize=%ld\n"
	    "PriorityWeightQOS=%ld\n", head->name, sc->nqos > 0 ? ",qos" : "",
	    p->sw.gpu_shards > 0 ? ",gres/shard" : "", sc->w_fairshare,
	    sc->w_age, sc->w_job_size, sc->w_qos);
	/* A QOS preempts the jobs of the QOS it lists, by the plan's mode. */
	if (plan_preempts(p))
		buf_addf(b, "PreemptType=preempt/qos\nPreemptMode=%s\n",
		    strcmp(sc->preempt_mode, "cancel") == 0 ? "CANCEL" :
		    "REQUEUE");
	if (render_shared_netns(p))
		buf_addf(b, "AccountingStoragePort=%d\n", RENDER_DBD_PORT_SHARED);
}

/* slurmdbd.conf but its StoragePass, which the head makes and keeps. */
void
render_slurmdbd_conf(struct buf *b, const struct render_in *in)
{
	const struct plan_node	*head = render_head(in->plan);

	if (head == NULL)
		return;
	buf_addf(b, "# slurmdbd.conf: generated by provision; StoragePass "
	    "is made on this node\n"
	    "AuthType=auth/munge\n"
	    "DbdHost=%s\n"
	    "SlurmUser=slurm\n"
	    "LogFile=/var/log/slurm/slurmdbd.log\n"
	    "PidFile=/run/slurmdbd.pid\n"
	    "StorageType=accounting_storage/mysql\n"
	    "StorageHost=localhost\n"
	    "StorageLoc=slurm_acct_db\n"
	    "StorageUser=slurm\n", head->name);
	if (render_shared_netns(in->plan))
		buf_addf(b, "# The nodes share one network namespace, and slurmd "
		    "ports follow 6818.\nDbdPort=%d\n", RENDER_DBD_PORT_SHARED);
}

void
render_slurm_conf(struct buf *b, const struct render_in *in)
{
	const struct plan	*p = in->plan;
	const struct plan_node	*head = render_head(p), *backup;
	const struct plan_export *state;
	const char		**workers;
	size_t			  i, nw = 0;
	int			  any_gpu = 0, shared_net;

	if (head == NULL)
		return;
	buf_adds(b, "# slurm.conf: generated by provision from the plan; "
	    "edits are overwritten\n");
	buf_addf(b, "ClusterName=%s\n", render_slurm_cluster(p));
	buf_addf(b, "SlurmctldHost=%s(%s)\n", head->name, render_addr(head));
	/* the backup controller: it takes over from the state on storage */
	if ((backup = plan_backup_head(p)) != NULL)
		buf_addf(b, "SlurmctldHost=%s(%s)\n", backup->name,
		    render_addr(backup));
	state = p->sw.slurm_state != NULL ?
	    plan_export_find(p, p->sw.slurm_state) : NULL;
	buf_addf(b, "AuthType=auth/munge\n"
	    "CryptoType=crypto/munge\n"
	    "SlurmUser=slurm\n"
	    "StateSaveLocation=%s\n", state != NULL ? state->mount :
	    "/var/spool/slurmctld");
	buf_adds(b, "SlurmdSpoolDir=/var/spool/slurmd\n"
	    "SlurmctldPidFile=/run/slurmctld.pid\n"
	    "SlurmdPidFile=/run/slurmd.pid\n"
	    "SlurmctldLogFile=/var/log/slurm/slurmctld.log\n"
	    "SlurmdLogFile=/var/log/slurm/slurmd.log\n"
	    "SchedulerType=sched/backfill\n"
	    "SelectType=select/cons_tres\n"
	    "SelectTypeParameters=CR_Core_Memory\n"
	    "ReturnToService=2\n"
	    "MpiDefault=none\n");
	if (p->sw.slurm_proctrack != NULL &&
	    strcmp(p->sw.slurm_proctrack, "linuxproc") == 0)
		buf_adds(b, "ProctrackType=proctrack/linuxproc\n"
		    "TaskPlugin=task/none\n");
	else
		buf_adds(b, "ProctrackType=proctrack/cgroup\n"
		    "TaskPlugin=task/affinity,task/cgroup\n");
	for (i = 0; i < p->nnodes; i++)
		if (p->nodes[i].hw != NULL && p->nodes[i].hw->ngpus > 0)
			any_gpu = 1;
	if (in->info != NULL)
		for (i = 0; i < p->nnodes; i++)
			if (in->info[i].have && in->info[i].gpus > 0)
				any_gpu = 1;
	if (any_gpu)
		buf_adds(b, p->sw.gpu_shards > 0 ? "GresTypes=gpu,shard\n" :
		    "GresTypes=gpu\n");
	/* The GPUs' jobs, for the DCGM exporter's hpc_job label. */
	if (any_gpu && p->sw.dcgm_exporter)
		buf_adds(b, "Prolog=" RENDER_JOBMAP_PROLOG "\n"
		    "Epilog=" RENDER_JOBMAP_EPILOG "\n");
	if (plan_accounting(p))
		render_slurm_accounting(b, p, head);
	shared_net = render_shared_netns(p);
	if (shared_net)
		buf_adds(b, "# The nodes share one network namespace: one slurmd "
		    "port per node.\n");
	workers = xcalloc(p->nnodes + 1, sizeof *workers);
	for (i = 0; i < p->nnodes; i++) {
		const struct plan_node	*n = &p->nodes[i];
		long			 cpus, mem, gpus;

		if (!plan_slurm_compute(p, n, NULL))
			continue;
		render_node_resources(in, i, &cpus, &mem, &gpus);
		gpus = render_slurm_gpus(in, i);
		buf_addf(b, "NodeName=%s NodeAddr=%s", n->name, render_addr(n));
		/*
		 * Not CommunicationParameters=NoInAddrAny: with it slurmd
		 * starts, but slurmstepd connects back to srun from 127.0.0.1
		 * while srun listens on the head's address, and jobs hang.
		 */
		if (shared_net)
			buf_addf(b, " Port=%zu", 6818 + nw);
		buf_addf(b, " CPUs=%ld RealMemory=%ld", cpus, mem);
		if (gpus > 0)
			buf_addf(b, " Gres=gpu:%ld", gpus);
		if (gpus > 0 && p->sw.gpu_shards > 0)
			buf_addf(b, ",shard:%ld", gpus * p->sw.gpu_shards);
		buf_adds(b, " State=UNKNOWN\n");
		workers[nw++] = n->name;
	}
	if (p->sw.npartitions == 0 && nw > 0) {
		char	*all = hostlist_fold(workers, nw);

		buf_addf(b, "PartitionName=batch Nodes=%s Default=YES "
		    "MaxTime=INFINITE State=UP\n", all);
		free(all);
	}
	for (i = 0; i < p->sw.npartitions; i++) {
		const struct plan_partition	*pt = &p->sw.partitions[i];

		buf_addf(b, "PartitionName=%s Nodes=%s Default=%s MaxTime=%s "
		    "State=UP\n", pt->name, pt->nodes,
		    pt->is_default ? "YES" : "NO",
		    pt->max_time != NULL ? pt->max_time : "INFINITE");
	}
	free(workers);
}

void
render_gres_conf(struct buf *b, const struct render_in *in)
{
	const struct plan	*p = in->plan;
	size_t			 i;

	buf_adds(b, "# gres.conf: generated by provision\n");
	for (i = 0; i < p->nnodes; i++) {
		long	gpus = render_slurm_gpus(in, i);

		if (gpus <= 0)
			continue;
		if (render_gres_count_only(p))
			buf_addf(b, "NodeName=%s Name=gpu File=%s/gpu[0-%ld]\n",
			    p->nodes[i].name, RENDER_GRES_STANDIN_DIR, gpus - 1);
		else if (gpus == 1)
			buf_addf(b, "NodeName=%s Name=gpu File=/dev/nvidia0\n",
			    p->nodes[i].name);
		else
			buf_addf(b, "NodeName=%s Name=gpu File=/dev/nvidia[0-%ld]\n",
			    p->nodes[i].name, gpus - 1);
		/* Slurm spreads a node's shards evenly over its GPUs. */
		if (p->sw.gpu_shards > 0)
			buf_addf(b, "NodeName=%s Name=shard Count=%ld\n",
			    p->nodes[i].name, gpus * p->sw.gpu_shards);
	}
}

/*
 * The NVIDIA device plugin's config (software.gpu_shards): every GPU
 * advertised as that many nvidia.com/gpu, pods taking turns on it
 * (time-slicing), as a ConfigMap the DaemonSet mounts.
 */
void
render_k8s_sharing_conf(struct buf *b, const struct render_in *in)
{
	long	n = in->plan->sw.gpu_shards;

	if (n <= 0)
		return;
	buf_addf(b, "# generated by provision from software.gpu_shards\n"
	    "apiVersion: v1\n"
	    "kind: ConfigMap\n"
	    "metadata:\n"
	    "  name: nvidia-device-plugin-config\n"
	    "  namespace: kube-system\n"
	    "data:\n"
	    "  config.yaml: |\n"
	    "    version: v1\n"
	    "    sharing:\n"
	    "      timeSlicing:\n"
	    "        renameByDefault: false\n"
	    "        failRequestsGreaterThanOne: false\n"
	    "        resources:\n"
	    "          - name: nvidia.com/gpu\n"
	    "            replicas: %ld\n", n);
}

void
render_prometheus_conf(struct buf *b, const struct render_in *in)
{
	const struct plan	*p = in->plan;
	size_t			 i;
	int			 dcgm = 0;

	buf_adds(b, "# prometheus.yml: generated by provision\n"
	    "global:\n  scrape_interval: 15s\n  evaluation_interval: 15s\n"
	    "scrape_configs:\n");
	if (p->sw.node_exporter) {
		buf_adds(b, "  - job_name: node\n    static_configs:\n");
		for (i = 0; i < p->nnodes; i++)
			buf_addf(b, "      - targets: ['%s:9100']\n"
			    "        labels: { node: '%s' }\n",
			    render_addr(&p->nodes[i]), p->nodes[i].name);
	}
	for (i = 0; i < p->nnodes && p->sw.dcgm_exporter; i++) {
		long	cpus, mem, gpus;

		render_node_resources(in, i, &cpus, &mem, &gpus);
		if (gpus <= 0)
			continue;
		if (!dcgm)
			buf_adds(b, "  - job_name: dcgm\n    static_configs:\n");
		dcgm = 1;
		buf_addf(b, "      - targets: ['%s:9400']\n"
		    "        labels: { node: '%s' }\n",
		    render_addr(&p->nodes[i]), p->nodes[i].name);
	}
}

static void
render_var(struct buf *b, const char *name, const char *val)
{
	buf_addf(b, "%s=", name);
	buf_add_shquote(b, val != NULL ? val : "");
	buf_addch(b, '\n');
}

static void
render_var_long(struct buf *b, const char *name, long v)
{
	buf_addf(b, "%s='%ld'\n", name, v);
}

static int
render_read_template(struct buf *b, const char *dir, const char *name,
    struct prov_err *err)
{
	char	*path = xasprintf("%s/%s.sh", dir, name);
	int	 r = 0;

	/* Checked first: errno says nothing about a refused name. */
	if (!str_is_safe_word(name))
		r = prov_err_set(err, PROV_E_USAGE, "bad template name '%s'",
		    name);
	else if (buf_read_file(b, path) != 0)
		r = prov_err_sys(err, "cannot read template '%s'", path);
	free(path);
	return r;
}

/*
 * users:, groups: for templates/users.sh, one a line (every field a typed
 * value without spaces but the key lines' last): PLAN_GROUPS "NAME GID
 * MEMBER,...|-" (a user without `group` has one of its own, gid = uid),
 * PLAN_USERS "NAME UID GID SHELL", PLAN_SSH_KEYS "NAME KEY-LINE".
 */
static void
render_people_vars(struct buf *out, const struct plan *p)
{
	struct buf	tmp = BUF_INIT;
	size_t		i, j, k, nm;

	for (i = 0; i < p->ngroups; i++) {
		buf_addf(&tmp, "%s %ld ", p->groups[i].name, p->groups[i].gid);
		for (j = nm = 0; j < p->nusers; j++)
			for (k = 0; k < p->users[j].groups.n; k++)
				if (strcmp(p->users[j].groups.v[k],
				    p->groups[i].name) == 0)
					buf_addf(&tmp, "%s%s", nm++ ? "," : "",
					    p->users[j].name);
		buf_adds(&tmp, nm ? "\n" : "-\n");
	}
	for (i = 0; i < p->nusers; i++)
		if (p->users[i].group == NULL)
			buf_addf(&tmp, "%s %ld -\n", p->users[i].name,
			    p->users[i].uid);
	render_var(out, "PLAN_GROUPS", tmp.buf);
	buf_reset(&tmp);
	for (i = 0; i < p->nusers; i++)
		buf_addf(&tmp, "%s %ld %ld %s\n", p->users[i].name,
		    p->users[i].uid, p->users[i].gid, p->users[i].shell);
	render_var(out, "PLAN_USERS", tmp.buf);
	buf_reset(&tmp);
	for (i = 0; i < p->nusers; i++)
		for (k = 0; k < p->users[i].ssh_keys.n; k++)
			buf_addf(&tmp, "%s %s\n", p->users[i].name,
			    p->users[i].ssh_keys.v[k]);
	render_var(out, "PLAN_SSH_KEYS", tmp.buf);
	render_var_long(out, "USERS_MANAGED", p->users_src != NULL ||
	    p->ngroups > 0);
	buf_release(&tmp);
}

/* logging: for templates/logging.sh. */
static void
render_logging_vars(struct buf *out, const struct plan *p,
    const struct plan_node *n)
{
	const struct plan_logging	*lg = &p->logging;
	const struct plan_node		*srv = lg->server != NULL ?
					    plan_node(p, lg->server) : NULL;

	render_var(out, "LOG_SERVER_ADDR", srv != NULL ? render_addr(srv) :
	    NULL);
	render_var_long(out, "LOG_SERVER_HOST", srv == n);
	render_var_long(out, "LOG_PORT", lg->port);
	render_var_long(out, "LOG_KEEP_DAYS", lg->keep_days);
}

/* Where templates/directory.sh puts the directory's CA on a node. */
#define RENDER_LDAP_CA	"/etc/sssd/provision-ldap-ca.pem"

/*
 * directory.ldap: sssd.conf but the bind password, which only apply reads
 * (from bind_password_file) and the step writes into a drop-in of its
 * own.  One domain, "ldap"; enumeration off (a large directory would be
 * read whole); root never asked of the directory.
 */
void
render_sssd_conf(struct buf *b, const struct plan *p)
{
	const struct plan_ldap	*l = &p->directory.ldap;
	size_t			 i;
	int			 tls = strcmp(l->tls, "none") != 0;

	if (p->directory.src == NULL)
		return;
	buf_adds(b, "# sssd.conf: generated by provision from the plan's "
	    "directory:; edits are overwritten\n"
	    "[sssd]\nconfig_file_version = 2\nservices = nss, pam\n"
	    "domains = ldap\n\n"
	    "[nss]\nfilter_users = root\nfilter_groups = root\n\n"
	    "[pam]\n\n"
	    "[domain/ldap]\nid_provider = ldap\nauth_provider = ldap\n"
	    "chpass_provider = ldap\nldap_uri = ");
	for (i = 0; i < l->uri.n; i++)
		buf_addf(b, "%s%s", i > 0 ? ", " : "", l->uri.v[i]);
	buf_addf(b, "\nldap_schema = %s\nldap_search_base = %s\n", l->schema,
	    l->base);
	if (l->user_base != NULL)
		buf_addf(b, "ldap_user_search_base = %s\n", l->user_base);
	if (l->group_base != NULL)
		buf_addf(b, "ldap_group_search_base = %s\n", l->group_base);
	if (l->bind_dn != NULL)
		buf_addf(b, "ldap_default_bind_dn = %s\n"
		    "# ldap_default_authtok: in conf.d/90-provision-bind.conf "
		    "(0600)\n", l->bind_dn);
	if (tls) {
		buf_adds(b, "ldap_tls_reqcert = demand\n");
		if (l->ca_pem != NULL)
			buf_adds(b, "ldap_tls_cacert = " RENDER_LDAP_CA "\n");
		if (l->uri.n > 0 && str_starts(l->uri.v[0], "ldap://"))
			buf_adds(b, "ldap_id_use_start_tls = true\n");
	} else
		buf_adds(b, "# tls: none (a test directory): passwords would "
		    "cross the network in clear\nldap_id_use_start_tls = false\n"
		    "ldap_auth_disable_tls_never_use_in_production = true\n");
	buf_adds(b, "cache_credentials = true\nenumerate = false\n");
}

/*
 * directory: for templates/directory.sh: SSSD_CONF (empty: no directory),
 * LDAP_CA_PEM, LDAP_VERIFY_USER, LDAP_BIND (1: a bind password comes in
 * $PROV_SECRET_DIR), LDAP_MKHOMEDIR.
 */
static void
render_directory_vars(struct buf *out, const struct plan *p,
    const struct plan_node *n)
{
	const struct plan_ldap	*l = &p->directory.ldap;
	struct buf		 tmp = BUF_INIT;
	int			 on = p->directory.src != NULL;

	render_sssd_conf(&tmp, p);
	render_var(out, "SSSD_CONF", tmp.buf);
	render_var(out, "LDAP_CA_PEM", on ? l->ca_pem : NULL);
	render_var(out, "LDAP_VERIFY_USER", on ? l->verify_user : NULL);
	render_var_long(out, "LDAP_BIND", on && l->bind_dn != NULL);
	render_var_long(out, "LDAP_MKHOMEDIR", plan_ldap_mkhomedir(p, n));
	buf_release(&tmp);
}

/* The options of an export for /etc/exports. */
static void
render_export_opts(struct buf *b, const struct plan_export *x)
{
	buf_addf(b, "%s,sync,no_subtree_check,%s", x->readonly ? "ro" : "rw",
	    x->root_squash ? "root_squash" : "no_root_squash");
}

/*
 * Whether mount point M lies under the folders that a service's
 * ProtectHome= covers.  Setting up such a service's namespace touches the
 * folder, which triggers an automount there: with the server down the
 * trigger fails and so does the service (226/NAMESPACE: chrony at boot),
 * and it stays failed once the server is back.  A plain mount that failed
 * leaves the node's own folder there, which namespaces hide fine; the
 * timer mounts it once the server answers.  (nfs(5) `bg` would not do:
 * systemd-user-sessions and so the gettys wait for /home's mount job.)
 */
static int
render_storage_hidden(const char *m)
{
	static const char *const hidden[] = { "/home", "/root", "/run/user" };
	size_t	i, n;

	for (i = 0; i < ARRAY_SIZE(hidden); i++) {
		n = strlen(hidden[i]);
		if (strncmp(m, hidden[i], n) == 0 && (m[n] == '\0' || m[n] == '/'))
			return 1;
	}
	return 0;
}

/*
 * storage: for templates/storage.sh.  On the node serving exports,
 * STORAGE_EXPORTS is /etc/exports.d/provision.exports (each client by its
 * address) and STORAGE_EXPORT_DIRS their folders; on every node that
 * mounts one, STORAGE_FSTAB is the block of /etc/fstab and STORAGE_MOUNTS
 * the mount points, one a line.  A client mounts over NFS with `_netdev,
 * nofail` and a mount timeout, so a server that is down never holds its
 * boot: through systemd's automount, or, under the folders that services'
 * ProtectHome= hides (render_storage_hidden), as a plain mount that a
 * timer starts again (STORAGE_REMOUNT, one mount point a line).  The
 * server mounts its own export with a bind mount.  STORAGE_MANAGED: the
 * plan has a storage: section (an empty one removes what an earlier plan
 * set up).
 */
static void
render_storage_vars(struct buf *out, const struct plan *p,
    const struct plan_node *n)
{
	struct buf	ex = BUF_INIT, dirs = BUF_INIT, fs = BUF_INIT;
	struct buf	mnt = BUF_INIT, re = BUF_INIT;
	size_t		i, j, k, nc;

	for (i = 0; i < p->nexports; i++) {
		const struct plan_export	*x = &p->exports[i];

		/* a line without clients would export to the world */
		for (j = nc = 0; x->server_node == n && j < p->nnodes; j++) {
			if (&p->nodes[j] == n ||
			    !plan_export_client(p, x, &p->nodes[j]))
				continue;
			if (nc++ == 0)
				buf_adds(&ex, x->path);
			buf_addf(&ex, " %s(", render_addr(&p->nodes[j]));
			render_export_opts(&ex, x);
			buf_addch(&ex, ')');
		}
		if (nc > 0)
			buf_addch(&ex, '\n');
		if (x->server_node == n)
			buf_addf(&dirs, "%s\n", x->path);
		if (!plan_export_client(p, x, n))
			continue;
		if (x->server_node == n) {
			if (strcmp(x->path, x->mount) == 0)
				continue;
			buf_addf(&fs, "%s %s none bind,nofail 0 0\n", x->path,
			    x->mount);
		} else {
			int	hidden = render_storage_hidden(x->mount);

			buf_addf(&fs, "%s:%s %s nfs %s,_netdev,nofail,%s"
			    "x-systemd.mount-timeout=%ld",
			    x->server_node != NULL ?
			    render_addr(x->server_node) : x->server, x->path,
			    x->mount, x->readonly ? "ro" : "rw",
			    hidden ? "" : "x-systemd.automount,", x->timeout_s);
			if (hidden)
				buf_addf(&re, "%s\n", x->mount);
			for (k = 0; k < x->options.n; k++)
				buf_addf(&fs, ",%s", x->options.v[k]);
			buf_adds(&fs, " 0 0\n");
		}
		buf_addf(&mnt, "%s\n", x->mount);
	}
	render_var_long(out, "STORAGE_MANAGED", p->storage_src != NULL);
	render_var(out, "STORAGE_EXPORTS", ex.buf);
	render_var(out, "STORAGE_EXPORT_DIRS", dirs.buf);
	render_var(out, "STORAGE_FSTAB", fs.buf);
	render_var(out, "STORAGE_MOUNTS", mnt.buf);
	render_var(out, "STORAGE_REMOUNT", re.buf);
	buf_release(&ex);
	buf_release(&dirs);
	buf_release(&fs);
	buf_release(&mnt);
	buf_release(&re);
}

/*
 * scheduling: for templates/slurmdbd.sh and slurm-accounts.sh:
 * SLURM_ACCOUNTS "TEAM FAIRSHARE GPUS QOS,..." (GPUS -1: no limit; the
 * first QOS the team's default, Slurm's "normal" when it names none),
 * SLURM_QOS "QOS PRIORITY PREEMPTED,...|-", SLURM_ASSOCS "USER TEAM" in
 * plan order (a user's first team is its default account).
 */
static void
render_accounting_vars(struct buf *out, const struct render_in *in)
{
	const struct plan_sched	*sc = &in->plan->sched;
	struct buf		 tmp = BUF_INIT;
	size_t			 i, k;

	render_var_long(out, "SLURM_ACCOUNTING", plan_accounting(in->plan));
	render_var(out, "SLURM_CLUSTER", render_slurm_cluster(in->plan));
	render_slurmdbd_conf(&tmp, in);
	render_var(out, "SLURMDBD_CONF", plan_accounting(in->plan) ?
	    tmp.buf : NULL);
	buf_reset(&tmp);
	for (i = 0; i < sc->nteams; i++) {
		const struct strvec	*q = &sc->teams[i].qos;

		buf_addf(&tmp, "%s %ld %ld ", sc->teams[i].name,
		    sc->teams[i].fairshare, sc->teams[i].gpus);
		for (k = 0; k < q->n; k++)
			buf_addf(&tmp, "%s%s", k ? "," : "", q->v[k]);
		buf_adds(&tmp, q->n > 0 ? "\n" : "normal\n");
	}
	render_var(out, "SLURM_ACCOUNTS", tmp.buf);
	buf_reset(&tmp);
	for (i = 0; i < sc->nqos; i++) {
		const struct strvec	*pr = &sc->qos[i].preempts;

		buf_addf(&tmp, "%s %ld ", sc->qos[i].name, sc->qos[i].priority);
		for (k = 0; k < pr->n; k++)
			buf_addf(&tmp, "%s%s", k ? "," : "", pr->v[k]);
		buf_adds(&tmp, pr->n > 0 ? "\n" : "-\n");
	}
	render_var(out, "SLURM_QOS", tmp.buf);
	buf_reset(&tmp);
	for (i = 0; i < sc->nteams; i++)
		for (k = 0; k < sc->teams[i].users.n; k++)
			buf_addf(&tmp, "%s %s\n", sc->teams[i].users.v[k],
			    sc->teams[i].name);
	render_var(out, "SLURM_ASSOCS", tmp.buf);
	buf_release(&tmp);
}

int
render_lib(struct buf *out, const struct render_in *in, struct prov_err *err)
{
	return render_read_template(out, in->templates, "lib", err);
}

/*
 * RELAY_NAME, RELAY_ADDR and RELAY_URL (http://ADDR:PORT/, the proxy every
 * other node's apt uses), RELAY_PORT, RELAY_RETRY_S, RELAY_IMAGES (the
 * image caches the relay runs); all empty without a relay.
 */
static void
render_relay_vars(struct buf *out, const struct plan *p)
{
	const struct plan_node	*r = render_relay(p);
	const char		*a = r != NULL ? render_addr(r) : NULL;
	char			*url = NULL;
	struct buf		 b = BUF_INIT;
	size_t			 k;

	if (r != NULL)
		url = xasprintf(strchr(a, ':') != NULL ? "http://[%s]:%ld/" :
		    "http://%s:%ld/", a, p->sw.relay.port);
	render_var(out, "RELAY_NAME", r != NULL ? r->name : NULL);
	render_var(out, "RELAY_ADDR", a);
	render_var(out, "RELAY_URL", url);
	render_var_long(out, "RELAY_PORT", r != NULL ? p->sw.relay.port : 0);
	render_var_long(out, "RELAY_RETRY_S", p->sw.relay.retry_s);
	free(url);
	/* "REGISTRY UPSTREAM PORT" a line, one image cache each */
	for (k = 0; r != NULL && k < p->sw.relay.nimages; k++) {
		const struct plan_relay_image	*im = &p->sw.relay.images[k];

		if (im->url != NULL)
			buf_addf(&b, "%s %s %ld\n", im->registry, im->url,
			    im->port);
		else if (strcmp(im->registry, "docker.io") == 0)
			buf_addf(&b, "%s https://registry-1.docker.io %ld\n",
			    im->registry, im->port);
		else
			buf_addf(&b, "%s https://%s %ld\n", im->registry,
			    im->registry, im->port);
	}
	render_var(out, "RELAY_IMAGES", b.buf);
	buf_release(&b);
}

/* http://ADDR:PORT of the relay node (brackets around an IPv6 address). */
static char *
render_relay_url(const struct plan_node *r, long port)
{
	const char	*a = render_addr(r);

	return xasprintf(strchr(a, ':') != NULL ? "http://[%s]:%ld" :
	    "http://%s:%ld", a, port);
}

/* The relay's image caches as registry mirrors, one line each. */
static void
render_relay_mirrors(struct buf *out, const struct plan *p)
{
	const struct plan_node	*r = render_relay(p);
	size_t			 k;

	for (k = 0; r != NULL && k < p->sw.relay.nimages; k++) {
		char	*url = render_relay_url(r, p->sw.relay.images[k].port);

		buf_addf(out, "%s %s 1\n", p->sw.relay.images[k].registry, url);
		free(url);
	}
}

/* The GPU stack and the container runtime: driver, CUDA, MIG, mirrors. */
static void
render_runtime_vars(struct buf *out, const struct plan *p,
    const struct plan_node *n)
{
	const struct plan_software *sw = &p->sw;
	struct buf		 tmp = BUF_INIT;
	size_t			 k;

	render_var(out, "DRIVER_BRANCH", sw->driver_branch);
	render_var(out, "DRIVER_VERSION", sw->driver_version);
	render_var(out, "CUDA_VERSION", sw->cuda);
	if (n->hw != NULL)
		for (k = 0; k < n->hw->mig.n; k++)
			buf_addf(&tmp, "%s%s", k ? " " : "", n->hw->mig.v[k]);
	render_var(out, "MIG_PROFILES", tmp.buf);
	buf_reset(&tmp);
	render_var_long(out, "PLANNED_GPUS", n->hw != NULL ? n->hw->ngpus : 0);
	render_var(out, "RUNTIME", sw->runtime != NULL ? sw->runtime : "none");
	render_var_long(out, "NVIDIA_TOOLKIT", sw->nvidia_toolkit);
	/*
	 * "REGISTRY URL INSECURE" a line; the CA of the Nth in REGISTRY_CA_N.
	 * The relay's image caches come last, plain http on the site.
	 */
	for (k = 0; k < sw->nmirrors; k++)
		buf_addf(&tmp, "%s %s %d\n", sw->mirrors[k].registry,
		    sw->mirrors[k].url, sw->mirrors[k].insecure ? 1 : 0);
	render_relay_mirrors(&tmp, p);
	render_var(out, "REGISTRY_MIRRORS", tmp.buf);
	buf_reset(&tmp);
	for (k = 0; k < sw->nmirrors; k++)
		if (sw->mirrors[k].ca_pem != NULL) {
			buf_addf(&tmp, "REGISTRY_CA_%zu", k + 1);
			render_var(out, tmp.buf, sw->mirrors[k].ca_pem);
			buf_reset(&tmp);
		}
	buf_release(&tmp);
}

/* Slurm's configs and this node's part in it; all empty without Slurm. */
static void
render_slurm_vars(struct buf *out, const struct render_in *in, size_t i)
{
	const struct plan	*p = in->plan;
	const struct plan_node	*n = &p->nodes[i];
	struct buf		 tmp = BUF_INIT;

	if (strcmp(p->sw.orchestrator, "slurm") != 0) {
		render_var(out, "SLURM_CONF", NULL);
		render_var(out, "GRES_CONF", NULL);
		render_var(out, "CGROUP_CONF", NULL);
		render_var(out, "SLURM_ROLE", "none");
		render_var_long(out, "SLURM_GPU_STANDINS", 0);
		render_var_long(out, "SLURM_ACCOUNTING", 0);
		return;
	}
	render_slurm_conf(&tmp, in);
	render_var(out, "SLURM_CONF", tmp.buf);
	buf_reset(&tmp);
	render_gres_conf(&tmp, in);
	render_var(out, "GRES_CONF", tmp.buf);
	buf_release(&tmp);
	/*
	 * Without a cgroup hierarchy (proctrack/linuxproc) slurmd still
	 * loads a cgroup plugin and exits unless told v1, and Constrain*
	 * would need task/cgroup.
	 */
	render_var(out, "CGROUP_CONF", p->sw.slurm_proctrack != NULL &&
	    strcmp(p->sw.slurm_proctrack, "linuxproc") == 0 ?
	    "# cgroup.conf: generated by provision\n"
	    "CgroupPlugin=cgroup/v1\n" :
	    "# cgroup.conf: generated by provision\n"
	    "ConstrainCores=yes\nConstrainDevices=yes\n"
	    "ConstrainRAMSpace=yes\n");
	render_var(out, "SLURM_ROLE", n == render_head(p) ||
	    n == plan_backup_head(p) ? "controller" :
	    plan_slurm_compute(p, n, NULL) ? "compute" : "none");
	render_var_long(out, "SLURM_GPU_STANDINS",
	    render_gres_count_only(p) ? render_slurm_gpus(in, i) : 0);
	render_accounting_vars(out, in);
}

/* Kubernetes: version, networking, this node's role, GPU sharing. */
static void
render_k8s_vars(struct buf *out, const struct render_in *in,
    const struct plan_node *n)
{
	const struct plan_software *sw = &in->plan->sw;
	struct buf		 tmp = BUF_INIT;

	render_var(out, "K8S_VERSION", sw->k8s_version);
	render_var(out, "K8S_POD_CIDR", sw->k8s_pod_cidr != NULL ?
	    sw->k8s_pod_cidr : "10.244.0.0/16");
	render_var(out, "K8S_CNI", sw->k8s_cni != NULL ? sw->k8s_cni : "calico");
	render_var(out, "K8S_ROLE", strcmp(sw->orchestrator, "kubernetes") != 0 ?
	    "none" : n == render_head(in->plan) ? "control-plane" : "worker");
	render_k8s_sharing_conf(&tmp, in);
	render_var(out, "K8S_SHARING_CONF", tmp.buf);
	buf_release(&tmp);
}

/* The exporters, and Prometheus and Grafana where this node runs them. */
static void
render_monitoring_vars(struct buf *out, const struct render_in *in,
    const struct plan_node *n)
{
	const struct plan	*p = in->plan;
	const struct plan_software *sw = &p->sw;
	const struct plan_node	*pn = sw->prometheus != NULL ?
	    plan_node(p, sw->prometheus) : NULL;
	struct buf		 tmp = BUF_INIT;
	long			 all = 0, c, m, g;
	size_t			 k;

	render_var_long(out, "NODE_EXPORTER", sw->node_exporter);
	render_var_long(out, "DCGM_EXPORTER", sw->dcgm_exporter);
	render_var_long(out, "PROMETHEUS_HOST", sw->prometheus != NULL &&
	    strcmp(sw->prometheus, n->name) == 0);
	render_prometheus_conf(&tmp, in);
	render_var(out, "PROMETHEUS_CONF", tmp.buf);
	buf_release(&tmp);
	render_var(out, "PROMETHEUS_ADDR", pn != NULL ? render_addr(pn) : NULL);
	for (k = 0; k < p->nnodes; k++) {
		render_node_resources(in, k, &c, &m, &g);
		all += g;
	}
	render_var_long(out, "CLUSTER_GPUS", all);
	render_var_long(out, "GRAFANA_HOST", sw->grafana != NULL &&
	    strcmp(sw->grafana, n->name) == 0);
}

/* "A B C" from a list, for a variable. */
static void
render_words_var(struct buf *out, const char *name, const struct strvec *v)
{
	struct buf	tmp = BUF_INIT;
	size_t		k;

	for (k = 0; k < v->n; k++)
		buf_addf(&tmp, "%s%s", k ? " " : "", v->v[k]);
	render_var(out, name, tmp.buf);
	buf_release(&tmp);
}

void
render_vars(struct buf *out, const struct render_in *in, size_t i)
{
	const struct plan	*p = in->plan;
	const struct plan_node	*n = &p->nodes[i];
	const struct plan_node	*head = render_head(p);
	struct buf		 tmp = BUF_INIT;

	render_var(out, "NODE_NAME", n->name);
	render_var(out, "NODE_ROLE", plan_role_name(n->role));
	render_var(out, "NODE_ADDR", render_addr(n));
	render_var(out, "CLUSTER_NAME", p->cluster);
	render_var(out, "CLUSTER_DOMAIN", p->domain);
	render_hosts_block(&tmp, p);
	render_var(out, "HOSTS_BLOCK", tmp.buf);
	buf_release(&tmp);
	render_var(out, "HEAD_NAME", head != NULL ? head->name : NULL);
	render_var(out, "HEAD_ADDR", head != NULL ? render_addr(head) : NULL);
	render_var(out, "OS_DISTRO", p->sw.os_distro);
	render_var(out, "OS_RELEASE", p->sw.os_release);
	render_runtime_vars(out, p, n);
	render_var(out, "ORCHESTRATOR", p->sw.orchestrator);
	render_slurm_vars(out, in, i);
	render_people_vars(out, p);
	render_logging_vars(out, p, n);
	render_directory_vars(out, p, n);
	render_storage_vars(out, p, n);
	render_k8s_vars(out, in, n);
	render_monitoring_vars(out, in, n);
	render_words_var(out, "EXTRAS", &p->sw.extras);
	render_words_var(out, "KERNEL_ARGS", &p->sw.kernel_args);
	render_relay_vars(out, p);
	/* apply --bundle: the node's copy of the bundle's repository. */
	render_var(out, "PROV_APT_REPO", in->apt_repo != NULL &&
	    in->apt_repo[0] != '\0' ? in->apt_repo : NULL);
	render_var(out, "PROV_APT_RELEASE", in->apt_repo != NULL ?
	    in->apt_release : NULL);
	render_var_long(out, "PROV_APT_SERVED", in->apt_repo != NULL &&
	    in->apt_served && render_relay(p) != NULL);
	/* what a node the relay serves checks the images tar it fetches by */
	render_var(out, "PROV_IMAGES_SHA256", in->apt_repo != NULL ?
	    in->images_sha256 : NULL);
	/* Set by the engine's wrapper for the step; empty when run by hand. */
	buf_adds(out, "PROV_SECRET_DIR=\"${PROV_SECRET_DIR:-}\"\n");
}

int
render_step(struct buf *out, const struct render_in *in, size_t i,
    const char *step, struct prov_err *err)
{
	const struct plan_node	*n = &in->plan->nodes[i];

	buf_adds(out, "#!/bin/sh\n# shellcheck disable=SC2317\n"
	    "# provision step '");
	buf_adds(out, step);
	buf_adds(out, "' for node '");
	buf_adds(out, n->name);
	buf_adds(out, "': rendered from the plan; every value is quoted\n"
	    "# shellcheck disable=SC2034,SC2016\n{\n");
	render_var(out, "PROV_STEP", step);
	if (in->vars_call != NULL)
		buf_addf(out, "%s\n", in->vars_call);
	else
		render_vars(out, in, i);
	buf_adds(out, "}\n\n");
	if (in->lib_call != NULL)
		buf_addf(out, "%s\n", in->lib_call);
	else if (render_read_template(out, in->templates, "lib", err) != 0)
		return -1;
	if (render_read_template(out, in->templates, step, err) != 0)
		return -1;
	buf_adds(out, "\nprov_run_step\n");
	return 0;
}

/*
 * plan-people.c: the plan's day-2 sections, loaded, cross-checked and
 * asked: users, groups, teams and QOS (scheduling), logging, the LDAP
 * directory, storage exports and the second head.  plan.c calls these
 * from plan_load() and keeps the sections' schema tables with the rest.
 */

#include "compat.h"

#include <sys/stat.h>

#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "plan-int.h"
#include "plan.h"
#include "schema.h"
#include "str.h"
#include "strmap.h"

/*
 * A mapping of account names (users:, groups:, scheduling.teams:) bound
 * entry by entry with `fields` into an array of `size`-byte structs whose
 * first member is the name and whose src is at `src_off`; *n counts them.
 */
static void *
plan_load_accounts(struct plan_ld *ld, const struct yml_node *sec,
    const char *what, const struct schema_field *fields, size_t size,
    size_t src_off, void (*init)(void *), size_t *n)
{
	char	*arr = NULL;
	size_t	 i;

	*n = 0;
	if (sec == NULL || yml_is_null(sec))
		return NULL;
	if (sec->kind != YML_MAP) {
		schema_type_error(&ld->sc, sec, what, "a mapping of names");
		return NULL;
	}
	arr = xcalloc(sec->n + 1, size);
	for (i = 0; i < sec->n; i++) {
		const struct yml_node	*k = sec->u.pairs[i].key;
		const struct yml_node	*v = sec->u.pairs[i].val;
		char			*e = arr + *n * size;

		if (!str_is_account(k->u.s)) {
			plan_ld_err(ld, k, schema_type_info(SCHEMA_ACCOUNT)->hint,
			    "bad %s name '%s'", what, k->u.s);
			continue;
		}
		init(e);
		*(const char **)e = k->u.s;
		*(const struct yml_node **)(e + src_off) = v;
		if (v != NULL && !yml_is_null(v))
			(void)schema_bind(&ld->sc, v, fields, e);
		(*n)++;
	}
	return arr;
}

static void
plan_group_init(void *e)
{
	((struct plan_group *)e)->gid = -1;
}

static void
plan_user_init(void *e)
{
	struct plan_user	*u = e;

	u->uid = -1;
	u->shell = "/bin/bash";
	u->groups = (struct strvec)STRVEC_INIT;
	u->ssh_keys = (struct strvec)STRVEC_INIT;
}

static void
plan_team_init(void *e)
{
	struct plan_team	*t = e;

	t->fairshare = 1;
	t->gpus = -1;
	t->users = (struct strvec)STRVEC_INIT;
	t->qos = (struct strvec)STRVEC_INIT;
}

static void
plan_qos_init(void *e)
{
	struct plan_qos	*q = e;

	q->preempts = (struct strvec)STRVEC_INIT;
}

void
plan_load_people(struct plan_ld *ld, const struct yml_node *root)
{
	struct plan		*p = ld->p;
	struct plan_sched	*sc = &p->sched;
	const struct yml_node	*v;

	p->groups = plan_load_accounts(ld, yml_map_get(root, "groups"),
	    "group", plan_group_fields, sizeof *p->groups,
	    offsetof(struct plan_group, src), plan_group_init, &p->ngroups);
	p->users_src = yml_map_get(root, "users");
	p->users = plan_load_accounts(ld, p->users_src, "user",
	    plan_user_fields, sizeof *p->users, offsetof(struct plan_user, src),
	    plan_user_init, &p->nusers);
	sc->w_fairshare = 10000;
	sc->w_age = 1000;
	sc->gpu_gres = "devices";
	sc->preempt_mode = "requeue";
	if ((v = yml_map_get(root, "scheduling")) == NULL || yml_is_null(v))
		return;
	sc->src = v;
	(void)schema_bind(&ld->sc, v, plan_sched_fields, sc);
	sc->teams = plan_load_accounts(ld, sc->teams_src, "team",
	    plan_team_fields, sizeof *sc->teams, offsetof(struct plan_team, src),
	    plan_team_init, &sc->nteams);
	sc->qos = plan_load_accounts(ld, sc->qos_src, "QOS", plan_qos_fields,
	    sizeof *sc->qos, offsetof(struct plan_qos, src), plan_qos_init,
	    &sc->nqos);
}

void
plan_load_logging(struct plan_ld *ld, const struct yml_node *v)
{
	struct plan_logging	*lg = &ld->p->logging;

	lg->port = 514;
	lg->keep_days = 14;
	if (v == NULL || yml_is_null(v))
		return;
	lg->src = v;
	(void)schema_bind(&ld->sc, v, plan_logging_fields, lg);
	if (lg->server != NULL && plan_node(ld->p, lg->server) == NULL)
		plan_ld_err(ld, yml_map_get(v, "server"), "name a node of the "
		    "plan", "unknown node '%s'", lg->server);
}

/*
 * directory: one LDAP directory.  Every URI of one scheme (sssd's StartTLS
 * is one setting for all of them): ldaps://, or ldap:// with StartTLS;
 * plain ldap:// only with `tls: none`.  A bind DN and its password file
 * go together; the file must exist now, apply reads it.
 */
void
plan_load_directory(struct plan_ld *ld, const struct yml_node *v)
{
	struct plan_directory	*d = &ld->p->directory;
	struct plan_ldap	*l = &d->ldap;
	const struct yml_node	*lv, *at;
	struct stat		 st;
	size_t			 i, nldaps = 0;

	l->uri = (struct strvec)STRVEC_INIT;
	l->tls = "required";
	l->schema = "rfc2307";
	l->mkhomedir = -1;
	if (v == NULL || yml_is_null(v))
		return;
	d->src = v;
	/* the checks below go on after a bad value: one run shows them all */
	(void)schema_bind(&ld->sc, v, plan_directory_fields, d);
	if ((lv = yml_map_get(v, "ldap")) == NULL || lv->kind != YML_MAP)
		return;
	for (i = 0; i < l->uri.n; i++)
		nldaps += str_starts(l->uri.v[i], "ldaps://");
	at = yml_map_get(lv, "uri");
	if (nldaps > 0 && nldaps < l->uri.n)
		plan_ld_err(ld, at, "sssd's StartTLS is one setting for every "
		    "server: give them all as ldaps://, or all as ldap://",
		    "'uri' mixes ldaps:// and ldap://");
	if (nldaps > 0 && strcmp(l->tls, "none") == 0)
		plan_ld_err(ld, yml_map_get(lv, "tls"), "use ldap:// URIs, or "
		    "leave 'tls' out", "'tls: none' with an ldaps:// URI");
	if (strcmp(l->tls, "none") == 0 && l->ca_file != NULL)
		plan_ld_err(ld, yml_map_get(lv, "ca_file"), "leave out "
		    "'ca_file', or 'tls: none'", "'ca_file' with 'tls: none'");
	if ((l->bind_dn == NULL) != (l->bind_password_file == NULL))
		plan_ld_err(ld, l->bind_dn == NULL ?
		    yml_map_get(lv, "bind_password_file") :
		    yml_map_get(lv, "bind_dn"), "give both, or neither for "
		    "anonymous searches", "'%s' without '%s'", l->bind_dn ==
		    NULL ? "bind_password_file" : "bind_dn", l->bind_dn ==
		    NULL ? "bind_dn" : "bind_password_file");
	/* users: come first in nsswitch: the directory would not answer */
	if (l->verify_user != NULL && plan_user_find(ld->p, l->verify_user))
		plan_ld_err(ld, yml_map_get(lv, "verify_user"), "name a user "
		    "the directory holds and 'users:' does not", "'%s' is a "
		    "user of 'users:', made on every node", l->verify_user);
	if (l->bind_password_file != NULL) {
		at = yml_map_get(lv, "bind_password_file");
		l->bind_password_file = plan_path(ld, l->bind_password_file);
		if (stat(l->bind_password_file, &st) != 0)
			plan_ld_err(ld, at, PLAN_PATH_HINT, "cannot read "
			    "bind_password_file '%s': %s", l->bind_password_file,
			    strerror(errno));
		else if (!S_ISREG(st.st_mode))
			plan_ld_err(ld, at, PLAN_PATH_HINT, "bind_password_file "
			    "'%s' is not a file", l->bind_password_file);
	}
	if (l->ca_file != NULL) {
		l->ca_file = plan_path(ld, l->ca_file);
		l->ca_pem = plan_load_ca(ld, yml_map_get(lv, "ca_file"),
		    l->ca_file, "the directory's");
	}
}

static void
plan_export_init(void *e)
{
	struct plan_export	*x = e;

	x->root_squash = 1;
	x->timeout_s = 30;
	x->roles = (struct strvec)STRVEC_INIT;
	x->options = (struct strvec)STRVEC_INIT;
}

void
plan_load_storage(struct plan_ld *ld, const struct yml_node *v)
{
	struct plan	*p = ld->p;

	p->storage_src = v != NULL && !yml_is_null(v) ? v : NULL;
	p->exports = plan_load_accounts(ld, v, "export", plan_export_fields,
	    sizeof *p->exports, offsetof(struct plan_export, src),
	    plan_export_init, &p->nexports);
}

/*
 * Folders of the system itself: neither exported nor mounted over (a
 * mount on /usr or /var hides the node's own files; a typo of '/' would
 * export the whole disk).
 */
static int
plan_path_system(const char *s)
{
	static const char *const sys[] = { "/", "/bin", "/boot", "/dev",
	    "/etc", "/lib", "/lib64", "/proc", "/root", "/run", "/sbin",
	    "/sys", "/tmp", "/usr", "/var", "/var/lib", "/var/log", NULL };
	size_t	i;

	for (i = 0; sys[i] != NULL; i++)
		if (strcmp(s, sys[i]) == 0)
			return 1;
	return str_starts(s, "/proc/") || str_starts(s, "/sys/") ||
	    str_starts(s, "/dev/") || str_starts(s, "/run/");
}

/* An export's path or mount point: absolute, plain, not the system's. */
static void
plan_check_export_path(struct plan_ld *ld, const struct plan_export *x,
    const char *key, const char *s)
{
	const struct yml_node	*at = yml_map_get(x->src, key);
	size_t			 n;

	if (s == NULL)
		return;
	n = strlen(s);
	if (strstr(s, "//") != NULL || strstr(s, "/./") != NULL ||
	    (n > 1 && s[n - 1] == '/') || (n >= 2 && strcmp(s + n - 2, "/.")
	    == 0))
		plan_ld_err(ld, at, "write it as '/srv/home': no '//', no '.' "
		    "component, no trailing '/'", "%s '%s' is not a plain "
		    "path", key, s);
	else if (plan_path_system(s))
		plan_ld_err(ld, at, "use a folder of its own, like '/srv/nfs/"
		    "home' or '/shared'", "%s '%s' is a folder of the system",
		    key, s);
}

static int
plan_is_role(const char *s)
{
	size_t	i;

	for (i = 0; plan_roles[i] != NULL; i++)
		if (strcmp(s, plan_roles[i]) == 0)
			return 1;
	return 0;
}

/*
 * Mount options the storage step writes itself: how a node waits for its
 * server (automount or a plain mount the timer retries, nofail, _netdev,
 * the timeout) and ro/rw.  One given again would win or fight over them:
 * `bg` makes the boot wait (systemd's generator turns it into a mount
 * retried for days), and the generator reads retry= and x-systemd.*.
 */
static int
plan_mount_opt_owned(const char *o)
{
	static const char *const own[] = { "bg", "fg", "nofail", "_netdev",
	    "ro", "rw", "auto", "noauto" };
	size_t	i;

	if (str_starts(o, "x-systemd.") || str_starts(o, "retry="))
		return 1;
	for (i = 0; i < ARRAY_SIZE(own); i++)
		if (strcmp(o, own[i]) == 0)
			return 1;
	return 0;
}

/*
 * Exports: paths plain, one export a mount point, clients in the plan,
 * one node of the plan serving them all (the storage step runs there
 * first), and no export nobody mounts.
 */
void
plan_resolve_storage(struct plan_ld *ld)
{
	struct plan		*p = ld->p;
	const struct plan_node	*srv = NULL;
	size_t			 i, j, k;

	for (i = 0; i < p->nexports; i++) {
		struct plan_export	*x = &p->exports[i];
		struct plan_node	**sel = NULL;
		struct prov_err		  e = PROV_ERR_INIT;
		size_t			  n = 0, users = 0;
		int			  bad = 0;

		if (x->server == NULL || x->path == NULL || x->mount == NULL)
			continue;
		plan_check_export_path(ld, x, "path", x->path);
		plan_check_export_path(ld, x, "mount", x->mount);
		for (j = 0; j < i; j++)
			if (p->exports[j].mount != NULL &&
			    strcmp(p->exports[j].mount, x->mount) == 0)
				plan_ld_err(ld, yml_map_get(x->src, "mount"),
				    "give each export a mount point of its own",
				    "mount point '%s' is export '%s''s too",
				    x->mount, p->exports[j].name);
		x->server_node = plan_node(p, x->server);
		if (x->server_node != NULL) {
			if (srv != NULL && srv != x->server_node)
				plan_ld_err(ld, yml_map_get(x->src, "server"),
				    "serve every export from one node of the "
				    "plan, or from a host outside it", "exports "
				    "are served by node '%s' already", srv->name);
			else
				srv = x->server_node;
		}
		for (k = 0; k < x->roles.n; k++)
			if (!plan_is_role(x->roles.v[k])) {
				const struct yml_node	*l =
				    yml_map_get(x->src, "roles");
				char	*h = plan_hint(x->roles.v[k],
				    plan_roles, NULL);

				plan_ld_err(ld, l != NULL && l->kind ==
				    YML_SEQ && k < l->n ? l->u.items[k] : l,
				    h, "unknown role '%s'", x->roles.v[k]);
				free(h);
				bad = 1;
			}
		if (x->clients != NULL && plan_select(&sel, &n, p, x->clients,
		    &e) != 0) {
			plan_ld_err(ld, yml_map_get(x->src, "clients"), e.hint,
			    "%s", e.msg);
			prov_err_release(&e);
			bad = 1;
		}
		free(sel);
		for (k = 0; k < p->nnodes && !bad; k++)
			users += plan_export_client(p, x, &p->nodes[k]);
		if (!bad && users == 0)
			plan_ld_err(ld, x->src, "name its nodes under 'clients' "
			    "or 'roles'", "no node of the plan mounts export "
			    "'%s'", x->name);
		for (k = 0; k < x->options.n; k++) {
			const struct yml_node	*l = yml_map_get(x->src, "options");
			const struct yml_node	*at = l != NULL && l->kind ==
			    YML_SEQ && k < l->n ? l->u.items[k] : l;

			if (strchr(x->options.v[k], ',') != NULL)
				plan_ld_err(ld, at,
				    "one option an item: [ 'vers=4.2', 'hard' ]",
				    "mount option '%s' holds a ','",
				    x->options.v[k]);
			else if (plan_mount_opt_owned(x->options.v[k]))
				plan_ld_err(ld, at, "leave it out: the step "
				    "sets ro or rw from 'readonly', and how a "
				    "node waits for its server from the mount "
				    "point and 'timeout_s'", "mount option '%s' "
				    "is the storage step's own",
				    x->options.v[k]);
		}
	}
}

/*
 * Two heads are Slurm's primary and backup controller: the backup takes
 * over only from the state the primary saved, so StateSaveLocation must
 * be storage both mount, writable by SlurmUser (no root squash: the slurm
 * step makes the folder as root).
 */
void
plan_resolve_heads(struct plan_ld *ld)
{
	struct plan		*p = ld->p;
	const struct plan_node	*heads[2] = { NULL, NULL };
	const struct yml_node	*at;
	const struct plan_export *x;
	size_t			 i, nh = 0;

	if (p->sw.src == NULL || p->sw.orchestrator == NULL ||
	    strcmp(p->sw.orchestrator, "slurm") != 0)
		return;
	at = yml_map_get(yml_map_get(yml_map_get(p->sw.src, "orchestrator"),
	    "slurm"), "state_storage");
	for (i = 0; i < p->nnodes; i++) {
		if (p->nodes[i].role != PLAN_ROLE_HEAD)
			continue;
		if (nh == 2) {
			plan_ld_err(ld, plan_key_or(p->nodes[i].src, "role"),
			    "two heads at most: Slurm's controller and its "
			    "backup", "node '%s' is a third head",
			    p->nodes[i].name);
			break;
		}
		heads[nh++] = &p->nodes[i];
	}
	if (p->sw.slurm_state == NULL) {
		if (nh == 2)
			plan_ld_err(ld, plan_key_or(heads[1]->src, "role"),
			    "set 'software.orchestrator.slurm.state_storage' "
			    "to an export of 'storage:' both heads mount",
			    "two heads need Slurm's state on shared storage: "
			    "the backup controller ('%s') takes over from "
			    "what the primary saved", heads[1]->name);
		return;
	}
	if ((x = plan_export_find(p, p->sw.slurm_state)) == NULL) {
		char	*h = plan_hint(p->sw.slurm_state, NULL, "storage");

		plan_ld_err(ld, at, h, "unknown export '%s'", p->sw.slurm_state);
		free(h);
		return;
	}
	if (x->readonly || x->root_squash)
		plan_ld_err(ld, at, "give the export 'readonly: false' and "
		    "'root_squash: false'", "export '%s' is %s: the slurm step "
		    "makes Slurm's state folder there as root", x->name,
		    x->readonly ? "read-only" : "root-squashed");
	for (i = 0; i < nh; i++)
		if (!plan_export_client(p, x, heads[i]))
			plan_ld_err(ld, at, "add the head to the export's "
			    "'clients'", "head '%s' does not mount export '%s'",
			    heads[i]->name, x->name);
}

static struct plan_group *
plan_group_find(const struct plan *p, const char *name)
{
	size_t	i;

	for (i = 0; i < p->ngroups; i++)
		if (strcmp(p->groups[i].name, name) == 0)
			return &p->groups[i];
	return NULL;
}

struct plan_user *
plan_user_find(const struct plan *p, const char *name)
{
	size_t	i;

	for (i = 0; i < p->nusers; i++)
		if (strcmp(p->users[i].name, name) == 0)
			return &p->users[i];
	return NULL;
}

struct plan_export *
plan_export_find(const struct plan *p, const char *name)
{
	size_t	i;

	for (i = 0; i < p->nexports; i++)
		if (strcmp(p->exports[i].name, name) == 0)
			return &p->exports[i];
	return NULL;
}

int
plan_export_client(const struct plan *p, const struct plan_export *x,
    const struct plan_node *n)
{
	struct plan_node	**sel = NULL;
	struct prov_err		  e = PROV_ERR_INIT;
	size_t			  i, m;
	int			  hit = 0;

	if (x->clients == NULL && x->roles.n == 0)
		return 1;
	for (i = 0; i < x->roles.n; i++)
		if (strcmp(x->roles.v[i], plan_role_name(n->role)) == 0)
			return 1;
	if (x->clients == NULL)
		return 0;
	if (plan_select(&sel, &m, p, x->clients, &e) != 0) {
		prov_err_release(&e);
		return 0;
	}
	for (i = 0; i < m; i++)
		if (sel[i] == n)
			hit = 1;
	free(sel);
	return hit;
}

const struct plan_node *
plan_storage_server(const struct plan *p)
{
	size_t	i;

	for (i = 0; i < p->nexports; i++)
		if (p->exports[i].server_node != NULL)
			return p->exports[i].server_node;
	return NULL;
}

int
plan_ldap_mkhomedir(const struct plan *p, const struct plan_node *n)
{
	size_t	i;

	if (p->directory.src == NULL)
		return 0;
	if (p->directory.ldap.mkhomedir >= 0)
		return p->directory.ldap.mkhomedir;
	for (i = 0; i < p->nexports; i++)
		if (strcmp(p->exports[i].mount, "/home") == 0 &&
		    plan_export_client(p, &p->exports[i], n))
			return 0;
	return 1;
}

const struct plan_node *
plan_backup_head(const struct plan *p)
{
	size_t	i, nh = 0;

	for (i = 0; i < p->nnodes; i++)
		if (p->nodes[i].role == PLAN_ROLE_HEAD && nh++ == 1)
			return &p->nodes[i];
	return NULL;
}

int
plan_accounting(const struct plan *p)
{
	return p->sched.src != NULL;
}

int
plan_preempts(const struct plan *p)
{
	size_t	i;

	for (i = 0; i < p->sched.nqos; i++)
		if (p->sched.qos[i].preempts.n > 0)
			return 1;
	return 0;
}

/* Slurm's own QOS, which every cluster has: a plan may name it unlisted. */
#define PLAN_QOS_DEFAULT	"normal"

static const struct plan_qos *
plan_qos_find(const struct plan *p, const char *name)
{
	size_t	i;

	for (i = 0; i < p->sched.nqos; i++)
		if (strcmp(p->sched.qos[i].name, name) == 0)
			return &p->sched.qos[i];
	return NULL;
}

/* Each name of `l` (the list at key `k` of src) a QOS of the plan. */
static void
plan_check_qos_refs(struct plan_ld *ld, const struct yml_node *src,
    const char *k, const struct strvec *l, const char *self)
{
	const struct yml_node	*ln = yml_map_get(src, k);
	size_t			 i;

	for (i = 0; i < l->n; i++) {
		const struct yml_node	*at = ln != NULL && ln->kind == YML_SEQ &&
		    i < ln->n ? ln->u.items[i] : ln;

		if (self != NULL && strcmp(l->v[i], self) == 0)
			plan_ld_err(ld, at, "name another QOS", "QOS '%s' "
			    "cannot preempt itself", self);
		else if (plan_qos_find(ld->p, l->v[i]) == NULL &&
		    strcmp(l->v[i], PLAN_QOS_DEFAULT) != 0)
			plan_ld_err(ld, at, "name a QOS under 'scheduling.qos:', "
			    "or Slurm's own 'normal'", "unknown QOS '%s'",
			    l->v[i]);
	}
}

/* Each of the user's `groups` is a group of the plan. */
static void
plan_check_group_refs(struct plan_ld *ld, const struct plan_user *u)
{
	const struct yml_node	*l = yml_map_get(u->src, "groups");
	size_t			 i;

	for (i = 0; i < u->groups.n; i++)
		if (plan_group_find(ld->p, u->groups.v[i]) == NULL)
			plan_ld_err(ld, l != NULL && l->kind == YML_SEQ &&
			    i < l->n ? l->u.items[i] : l, "name a group under "
			    "'groups:'", "unknown group '%s'", u->groups.v[i]);
}

/*
 * uids and gids unique (a user without `group` has a group of its own
 * whose gid is its uid), groups and team members known, and teams only
 * where Slurm runs.
 */
void
plan_resolve_people(struct plan_ld *ld)
{
	struct plan	*p = ld->p;
	size_t		 i, j;

	for (i = 0; i < p->ngroups; i++)
		for (j = 0; j < i; j++)
			if (p->groups[j].gid == p->groups[i].gid &&
			    p->groups[i].gid >= 0)
				plan_ld_err(ld, yml_map_get(p->groups[i].src,
				    "gid"), "each group needs a gid of its own",
				    "gid %ld is taken by group '%s'",
				    p->groups[i].gid, p->groups[j].name);
	for (i = 0; i < p->nusers; i++) {
		struct plan_user	*u = &p->users[i];
		const struct plan_group	*g;

		for (j = 0; j < i; j++)
			if (p->users[j].uid == u->uid && u->uid >= 0)
				plan_ld_err(ld, yml_map_get(u->src, "uid"),
				    "each user needs a uid of its own", "uid %ld "
				    "is taken by user '%s'", u->uid,
				    p->users[j].name);
		plan_check_group_refs(ld, u);
		if (u->group != NULL) {
			if ((g = plan_group_find(p, u->group)) == NULL)
				plan_ld_err(ld, yml_map_get(u->src, "group"),
				    "name a group under 'groups:', or leave "
				    "'group' out for a group of the user's own",
				    "unknown group '%s'", u->group);
			else
				u->gid = g->gid;
			continue;
		}
		u->gid = u->uid;
		if (plan_group_find(p, u->name) != NULL)
			plan_ld_err(ld, yml_map_get(u->src, "uid"), "say "
			    "'group: NAME', or rename the group", "user '%s' "
			    "has no 'group', and its own group would be named "
			    "like group '%s'", u->name, u->name);
		for (j = 0; j < p->ngroups && u->uid >= 0; j++)
			if (p->groups[j].gid == u->uid)
				plan_ld_err(ld, yml_map_get(u->src, "uid"),
				    "a user without 'group' gets a group of its "
				    "own whose gid is its uid", "uid %ld is the "
				    "gid of group '%s'", u->uid,
				    p->groups[j].name);
	}
	if (p->sched.src == NULL)
		return;
	if (strcmp(p->sw.orchestrator, "slurm") != 0)
		plan_ld_err(ld, p->sched.src, "set 'software.orchestrator.kind: "
		    "slurm'", "'scheduling' needs Slurm: teams are Slurm "
		    "accounts");
	for (i = 0; i < p->sched.nteams; i++) {
		const struct plan_team	*t = &p->sched.teams[i];
		const struct yml_node	*l = yml_map_get(t->src, "users");

		/* a directory's users are the directory's to know */
		for (j = 0; j < t->users.n && p->directory.src == NULL; j++)
			if (plan_user_find(p, t->users.v[j]) == NULL)
				plan_ld_err(ld, l != NULL && l->kind == YML_SEQ &&
				    j < l->n ? l->u.items[j] : l, "team "
				    "members need a uid on every node: add them "
				    "under 'users:', or give the plan the "
				    "site's 'directory:'", "unknown user '%s'",
				    t->users.v[j]);
		plan_check_qos_refs(ld, t->src, "qos", &t->qos, NULL);
	}
	for (i = 0; i < p->sched.nqos; i++)
		plan_check_qos_refs(ld, p->sched.qos[i].src, "preempts",
		    &p->sched.qos[i].preempts, p->sched.qos[i].name);
	if (yml_map_get(p->sched.src, "preempt_mode") != NULL &&
	    !plan_preempts(p))
		plan_ld_err(ld, yml_map_get(p->sched.src, "preempt_mode"),
		    "give a QOS 'preempts: [ QOS ]', or leave 'preempt_mode' "
		    "out", "'preempt_mode' without a QOS that preempts");
}

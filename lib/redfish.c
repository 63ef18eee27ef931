/*
 * redfish.c: the Redfish client behind `provision bmc`.  See redfish.h.
 *
 * Each BMC is a small state machine (`struct rf_job`) over one shared
 * http.h loop, so a thousand BMCs take the time of the slowest one.  A
 * job is in one phase; a phase's step issues requests and names the
 * phase that follows; request handlers read the answers and may redirect
 * (a 202 Accepted turns into task monitor polling) or fail the job.  When
 * a job has no request in flight its next step runs.  A failed job still
 * logs out.  The dialogue, by action:
 *
 *	all		GET /redfish/v1, POST Sessions (or basic auth),
 *			GET Systems, GET the first member
 *	on off cycle	[GET ActionInfo], POST #ComputerSystem.Reset,
 *	reset		[poll the task monitor], poll the system until
 *			PowerState is what the action wanted
 *	boot		PATCH Boot (If-Match its ETag), GET to confirm
 *	media		VirtualMedia of the system, else of its manager;
 *			the first slot taking CD or DVD; EjectMedia and
 *			InsertMedia (or PATCH Image), GET to confirm
 *	inventory	Processors, Memory, PCIeDevices (+ functions) of the
 *			system and its chassis, PowerSubsystem/PowerSupplies
 *			else Power; collections with $expand when offered
 *	all		DELETE the session
 *
 * cycle and reset wait for PowerState On, which a BMC may still report
 * before the host went down: the wait proves the host is on afterwards,
 * not that it restarted (the reset's own answer says that).
 *
 * JSON is read with yml.h: JSON is YAML's flow style, which libyaml
 * reads; yml_load_json() says where it falls short.
 */
#include "compat.h"

#include <ctype.h>
#include <math.h>

#include "buf.h"
#include "catalog.h"
#include "check.h"
#include "http.h"
#include "json.h"
#include "plan.h"
#include "redfish-int.h"
#include "redfish.h"
#include "row.h"
#include "str.h"
#include "yml.h"

#define REDFISH_ROOT	"/redfish/v1"

/* --- JSON helpers ----------------------------------------------------- */

const char *
redfish_str(const struct yml_node *n, const char *k)
{
	return yml_map_str(n, k);
}

double
redfish_num(const struct yml_node *n, const char *k)
{
	const struct yml_node	*v;
	double			 d;

	if (n == NULL || n->kind != YML_MAP)
		return NAN;
	v = yml_map_get(n, k);
	if (v == NULL || v->kind != YML_SCALAR || !v->plain ||
	    str_to_double(v->u.s, &d) != 0)
		return NAN;
	return d;
}

/* 1 true, 0 false, -1 absent or not a boolean. */
static int
redfish_bool(const struct yml_node *n, const char *k)
{
	const struct yml_node	*v;

	if (n == NULL || n->kind != YML_MAP)
		return -1;
	v = yml_map_get(n, k);
	if (v == NULL || v->kind != YML_SCALAR || !v->plain)
		return -1;
	if (strcmp(v->u.s, "true") == 0)
		return 1;
	if (strcmp(v->u.s, "false") == 0)
		return 0;
	return -1;
}

const struct yml_node *
redfish_map(const struct yml_node *n, const char *k)
{
	const struct yml_node	*v;

	if (n == NULL || n->kind != YML_MAP)
		return NULL;
	v = yml_map_get(n, k);
	return v != NULL && v->kind == YML_MAP ? v : NULL;
}

const struct yml_node *
redfish_seq(const struct yml_node *n, const char *k)
{
	const struct yml_node	*v;

	if (n == NULL || n->kind != YML_MAP)
		return NULL;
	v = yml_map_get(n, k);
	return v != NULL && v->kind == YML_SEQ ? v : NULL;
}

const char *
redfish_link(const struct yml_node *n, const char *k)
{
	return redfish_str(redfish_map(n, k), "@odata.id");
}

/* The @odata.id of item i of a list of links, or NULL. */
static const char *
redfish_seq_link(const struct yml_node *seq, size_t i)
{
	if (seq == NULL || seq->kind != YML_SEQ || i >= seq->n)
		return NULL;
	return redfish_str(seq->u.items[i], "@odata.id");
}

const char *
redfish_first_member(const struct yml_node *coll)
{
	return redfish_seq_link(redfish_seq(coll, "Members"), 0);
}

const char *
redfish_error_message(const struct yml_node *doc)
{
	const struct yml_node	*e = redfish_map(doc, "error"), *ext;
	const char		*m;

	ext = redfish_seq(e != NULL ? e : doc, "@Message.ExtendedInfo");
	if (ext == NULL && e != NULL)
		ext = redfish_seq(doc, "@Message.ExtendedInfo");
	if (ext != NULL && ext->n > 0 &&
	    (m = redfish_str(ext->u.items[0], "Message")) != NULL)
		return m;
	return redfish_str(e, "message");
}

/* Status.State is "Absent": an empty socket, slot or bay. */
int
redfish_absent(const struct yml_node *n)
{
	const char	*s = redfish_str(redfish_map(n, "Status"), "State");

	return s != NULL && strcmp(s, "Absent") == 0;
}

/* Values of a list of strings into sv. */
static void
redfish_strings(struct strvec *sv, const struct yml_node *seq)
{
	size_t	i;

	if (seq == NULL || seq->kind != YML_SEQ)
		return;
	for (i = 0; i < seq->n; i++)
		if (seq->u.items[i]->kind == YML_SCALAR &&
		    !yml_is_null(seq->u.items[i]))
			strvec_push(sv, seq->u.items[i]->u.s);
}

static void
redfish_join(struct buf *b, const struct strvec *sv)
{
	size_t	i;

	for (i = 0; i < sv->n; i++)
		buf_addf(b, "%s%s", i ? ", " : "", sv->v[i]);
}

/* --- actions ---------------------------------------------------------- */

static const char *const redfish_action_names[] = {
	"status", "on", "off", "cycle", "reset", "boot", "media insert",
	"media eject", "inventory", "power",
};

const char *
redfish_action_name(enum redfish_action a)
{
	if ((size_t)a >= ARRAY_SIZE(redfish_action_names))
		return "?";
	return redfish_action_names[a];
}

static int
redfish_allows(const struct strvec *allowed, const char *t)
{
	return allowed == NULL || allowed->n == 0 ||
	    strvec_find(allowed, t) >= 0;
}

const char *
redfish_reset_type(enum redfish_action a, int graceful,
    const struct strvec *allowed, const char *power, const char **why)
{
	int	on = power != NULL && strcmp(power, "On") == 0;
	int	off = power != NULL && strcmp(power, "Off") == 0;

	*why = NULL;
	switch (a) {
	case REDFISH_CYCLE:
		if (!off) {
			/* PowerCycle only when the BMC says it has it. */
			if (allowed != NULL && allowed->n > 0 &&
			    strvec_find(allowed, "PowerCycle") >= 0)
				return "PowerCycle";
			if (redfish_allows(allowed, "ForceRestart"))
				return "ForceRestart";
			*why = "it allows neither PowerCycle nor ForceRestart";
			return NULL;
		}
		/* an Off system is cycled by switching it on */
		/* FALLTHROUGH */
	case REDFISH_ON:
		if (on)
			return "";
		if (redfish_allows(allowed, "On"))
			return "On";
		if (redfish_allows(allowed, "ForceOn"))
			return "ForceOn";
		*why = "it allows neither On nor ForceOn";
		return NULL;
	case REDFISH_OFF:
		if (off)
			return "";
		if (graceful) {
			if (redfish_allows(allowed, "GracefulShutdown"))
				return "GracefulShutdown";
			*why = "it does not allow GracefulShutdown";
			return NULL;
		}
		if (redfish_allows(allowed, "ForceOff"))
			return "ForceOff";
		*why = "it does not allow ForceOff (try --graceful)";
		return NULL;
	case REDFISH_RESET:
		if (graceful) {
			if (redfish_allows(allowed, "GracefulRestart"))
				return "GracefulRestart";
			*why = "it does not allow GracefulRestart";
			return NULL;
		}
		if (redfish_allows(allowed, "ForceRestart"))
			return "ForceRestart";
		*why = "it does not allow ForceRestart (try --graceful)";
		return NULL;
	default:
		*why = "not a power action";
		return NULL;
	}
}

const char *
redfish_boot_enabled(int once, const struct strvec *allowed,
    const char **why)
{
	*why = NULL;
	if (redfish_allows(allowed, once ? "Once" : "Continuous"))
		return once ? "Once" : "Continuous";
	/* Until changed, where only Once is offered: Once, and say so. */
	if (!once && redfish_allows(allowed, "Once"))
		return "Once";
	*why = once ? "does not allow a boot override for the next boot "
	    "only (Once)" : "allows neither Continuous nor Once";
	return NULL;
}

int
redfish_media_is_cd(const struct yml_node *vm)
{
	const struct yml_node	*types = redfish_seq(vm, "MediaTypes");
	size_t			 i;

	if (types == NULL)
		return 0;
	for (i = 0; i < types->n; i++) {
		const struct yml_node	*t = types->u.items[i];

		if (t->kind == YML_SCALAR && (strcmp(t->u.s, "CD") == 0 ||
		    strcmp(t->u.s, "DVD") == 0))
			return 1;
	}
	return 0;
}

/*
 * Rank of a slot for a CD image; see redfish.h.  AMI MegaRAC lists its
 * CD slot with Insert/Eject actions and no MediaTypes at all.
 */
int
redfish_media_rank(const struct yml_node *vm)
{
	const struct yml_node	*types = redfish_seq(vm, "MediaTypes");
	const struct yml_node	*acts = redfish_map(vm, "Actions");
	const char		*id = redfish_str(vm, "Id");
	const char		*name = redfish_str(vm, "Name");

	if (redfish_media_is_cd(vm))
		return 3;
	if (types != NULL && types->n > 0)
		return 0;
	if (redfish_map(acts, "#VirtualMedia.InsertMedia") == NULL)
		return 0;
	if ((id != NULL && (strcasestr(id, "cd") || strcasestr(id, "dvd"))) ||
	    (name != NULL && (strcasestr(name, "cd") ||
	    strcasestr(name, "dvd"))))
		return 2;
	return 1;
}

/* --- ids ---------------------------------------------------------------- */

long
redfish_pci_num(const struct yml_node *n, const char *k, long max)
{
	const struct yml_node	*v;
	const char		*s;
	long			 out;
	size_t			 len, i;
	int			 digits = 1;

	if (n == NULL || n->kind != YML_MAP)
		return -1;
	v = yml_map_get(n, k);
	if (v == NULL || v->kind != YML_SCALAR || yml_is_null(v))
		return -1;
	s = v->u.s;
	len = strlen(s);
	for (i = 0; i < len; i++)
		if (!isdigit((unsigned char)s[i]))
			digits = 0;
	if (len == 0)
		return -1;
	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
		out = str_hex(s);
	else if (digits && !(s[0] == '0' && len > 1))
		out = str_to_long(s, &out) == 0 ? out : -1;	/* iLO: decimal */
	else
		out = str_hex(s);	/* "10de", "030200" */
	return out >= 0 && out <= max ? out : -1;
}

char *
redfish_uri_id(const char *uri)
{
	size_t		 len;
	const char	*s;

	if (uri == NULL)
		return xstrdup("?");
	len = strcspn(uri, "?#");
	while (len > 1 && uri[len - 1] == '/')
		len--;
	for (s = uri + len; s > uri && s[-1] != '/'; s--)
		;
	return xstrndup(s, len - (size_t)(s - uri));
}

long
redfish_pick_system(const struct strvec *ids, const struct strvec *types,
    const char *want, char **why)
{
	struct buf	 b = BUF_INIT;
	long		 pick = -1, idx;
	size_t		 i, hosts = 0;

	*why = NULL;
	if (ids->n == 0) {
		*why = xstrdup("the BMC lists no systems");
		return -1;
	}
	if (want != NULL) {
		/* An id first: HPE's only system is "1" and index 1 alike. */
		if ((idx = strvec_find(ids, want)) >= 0)
			return idx;
		if (str_to_long(want, &idx) == 0 && idx >= 1 &&
		    (size_t)idx <= ids->n)
			return idx - 1;
	} else if (ids->n == 1)
		return 0;
	else {
		for (i = 0; i < ids->n; i++) {
			const char	*t = i < types->n ? types->v[i] : NULL;

			if (t != NULL && strcmp(t, "DPU") == 0)
				continue;
			hosts++;
			pick = (long)i;
		}
		if (hosts == 1)
			return pick;
	}
	for (i = 0; i < ids->n; i++) {
		const char	*t = i < types->n ? types->v[i] : NULL;

		buf_addf(&b, "%s%s", i ? ", " : "", ids->v[i]);
		if (t != NULL && strcmp(t, "DPU") == 0)
			buf_adds(&b, " (DPU)");
	}
	if (want != NULL)
		*why = xasprintf("the BMC has no system '%s' (its systems: %s; "
		    "bmc.system takes an id or an index from 1)", want, b.buf);
	else if (hosts == 0)
		*why = xasprintf("the BMC's only systems are DPUs (%s); name "
		    "one in bmc.system to act on it", b.buf);
	else
		*why = xasprintf("the BMC has %zu systems (%s): name the "
		    "node's in bmc.system (an id or an index from 1)", ids->n,
		    b.buf);
	buf_release(&b);
	return -1;
}

/* --- passwords -------------------------------------------------------- */

int
redfish_password_load(char **out, const struct plan_bmc *bmc,
    struct prov_err *err)
{
	struct buf	 b = BUF_INIT;
	const char	*v;
	size_t		 n;
	int		 r = -1;

	*out = NULL;
	if (bmc->password_env != NULL &&
	    (v = getenv(bmc->password_env)) != NULL && *v != '\0') {
		*out = xstrdup(v);
		return 0;
	}
	if (bmc->password_file == NULL) {
		if (bmc->password_env != NULL)
			return prov_err_set(err, PROV_E_AUTH, "environment "
			    "variable '%s' (password_env) is not set",
			    bmc->password_env);
		prov_err_set(err, PROV_E_AUTH, "no password: the bmc entry "
		    "has neither password_env nor password_file");
		return -1;
	}
	if (buf_read_file(&b, bmc->password_file) != 0) {
		prov_err_sys(err, "password_file '%s'", bmc->password_file);
		err->code = PROV_E_AUTH;
		goto out;
	}
	n = strcspn(b.buf, "\r\n");
	if (n == 0) {
		prov_err_set(err, PROV_E_AUTH, "password_file '%s' starts with "
		    "an empty line", bmc->password_file);
		goto out;
	}
	*out = xstrndup(b.buf, n);
	r = 0;
out:
	buf_release_secret(&b);
	return r;
}

/* A BMC's address, user, password and TLS from its plan entry (or skipped). */
static void
redfish_bmc_set(struct redfish_bmc *v, const struct plan_bmc *bmc)
{
	if (bmc == NULL) {
		v->skipped = 1;
		prov_err_set(&v->err, PROV_E_PLAN, "no 'bmc:' entry in the "
		    "plan");
		return;
	}
	v->address = bmc->address;
	v->port = bmc->port;
	v->user = bmc->user;
	v->ca_file = bmc->ca_file;
	v->insecure = bmc->insecure;
	v->want_system = bmc->system;
	if (bmc->user == NULL) {
		v->skipped = 1;
		prov_err_set(&v->err, PROV_E_PLAN, "the entry has no 'user:'");
		return;
	}
	if (redfish_password_load(&v->password, bmc, &v->err) != 0)
		v->skipped = 1;
}

int
redfish_pdus_from_plan(struct redfish_bmc **out, size_t *nout,
    const struct plan *p, const char *nodes, struct prov_err *err)
{
	struct plan_node	**sel = NULL;
	struct redfish_bmc	 *v = NULL;
	size_t			  i, j, k, nsel = 0, n = 0, cap = 0;

	*out = NULL;
	*nout = 0;
	if (nodes != NULL && plan_select(&sel, &nsel, p, nodes, err) != 0)
		return -1;
	for (i = 0; i < p->nracks; i++) {
		const struct plan_rack	*rk = &p->racks[i];
		int			 held = nodes == NULL;

		for (k = 0; !held && k < nsel; k++)
			held = sel[k]->rack != NULL &&
			    strcmp(sel[k]->rack, rk->name) == 0;
		for (j = 0; held && j < rk->npdus; j++) {
			if (rk->pdus[j].redfish == NULL)
				continue;
			ALLOC_GROW(v, n + 1, cap);
			redfish_bmc_init(&v[n]);
			v[n].node = rk->name;
			v[n].rack = rk;
			v[n].ppdu = &rk->pdus[j];
			redfish_bmc_set(&v[n], rk->pdus[j].redfish);
			n++;
		}
	}
	free(sel);
	*out = v;
	*nout = n;
	return 0;
}

int
redfish_bmcs_from_plan(struct redfish_bmc **out, size_t *nout,
    const struct plan *p, const char *nodes, struct prov_err *err)
{
	struct plan_node	**sel = NULL;
	struct redfish_bmc	 *v;
	size_t			  i, n = 0;

	*out = NULL;
	*nout = 0;
	if (nodes != NULL) {
		if (plan_select(&sel, &n, p, nodes, err) != 0)
			return -1;
	} else {
		sel = xcalloc(p->nnodes + 1, sizeof *sel);
		for (i = 0; i < p->nnodes; i++)
			if (p->nodes[i].bmc != NULL)
				sel[n++] = &p->nodes[i];
	}
	v = xcalloc(n + 1, sizeof *v);
	for (i = 0; i < n; i++) {
		redfish_bmc_init(&v[i]);
		v[i].node = sel[i]->name;
		v[i].pn = sel[i];
		redfish_bmc_set(&v[i], sel[i]->bmc);
	}
	free(sel);
	*out = v;
	*nout = n;
	return 0;
}

/* --- the BMC state machine -------------------------------------------- */

enum rf_phase {
	RF_ROOT = 0,
	RF_LOGIN,
	RF_SYSTEMS,
	RF_SYSTEM_PICK,
	RF_SYSTEM,
	RF_ACTION_INFO,
	RF_RESET,
	RF_TASK,
	RF_WAIT_POWER,
	RF_BOOT,
	RF_BOOT_VERIFY,
	RF_MEDIA_FIND,
	RF_MEDIA_MGR,
	RF_MEDIA_COLL,
	RF_MEDIA_ACT,
	RF_MEDIA_INSERT,
	RF_MEDIA_VERIFY,
	RF_INV,
	RF_INV_DONE,
	RF_PDU_LIST,
	RF_PDU,
	RF_PDU_DONE,
	RF_LOGOUT,
	RF_DONE,
};

/* A PCIe device seen during inventory, with its functions. */
struct rf_pcie {
	const struct yml_node	 *dev;
	const struct yml_node	**fns;		/* NULL-terminated */
	size_t			  nfns, afns;
};

struct rf_job {
	struct redfish_bmc		*b;
	const struct redfish_opts	*o;
	struct http			*h;
	char				*base;		/* https://host:port */
	enum rf_phase			 phase;	/* the step to run next */
	int				 pending;	/* requests in flight */
	int				 failed;
	int				 basic;		/* basic auth */
	char				*token;		/* X-Auth-Token */
	char				*session;	/* its path */
	const char			*expand;	/* "?$expand=.", NULL */
	char				*systems, *managers, *chassis_coll;
	char				*equipment, *rackpdus;	/* PDUs */
	char				*sessions;
	/* the systems: their paths, ids and SystemTypes ("" unknown) */
	struct strvec			 sys_paths, sys_ids, sys_types;
	/* the system */
	char				*etag;
	char				*reset_target;
	char				*action_info;
	struct strvec			 reset_allowed;
	struct strvec			 boot_allowed;
	struct strvec			 boot_en_allowed;	/* Enabled */
	const char			*boot_en;	/* what was sent */
	char				*vm_coll;	/* VirtualMedia */
	char				*manager;
	char				*chassis;
	char				*processors, *memory, *pcie_coll;
	char				*oem_pci;	/* HPE's PCIDevices */
	struct strvec			 pcie_links;	/* older: links */
	/* power and tasks */
	const char			*reset_sent;
	const char			*want_power;
	char				*was_power;
	char				*task;		/* its path */
	enum rf_phase			 task_next;
	long				 task_delay_ms;
	long long			 deadline;
	int				 polls;
	/* media */
	long				 media_idx;	/* position; -1 */
	int				 media_rank;	/* redfish_media_rank */
	char				*media_name;	/* "CD1" */
	long				 media_slots;	/* slots listed */
	int				 media_inserted;
	char				*media_id;
	char				*media_insert, *media_eject;
	/* inventory */
	struct strvec			 seen;		/* counted already */
	struct yml_doc			*kept;		/* docs kept for PCIe */
	size_t				 nkept, akept;
	struct rf_pcie			*pcie;
	size_t				 npcie, apcie;
	char				*power_url;	/* older Power */
};

struct rf_call;
typedef void (*rf_fn)(struct rf_job *, struct rf_call *, struct http_req *,
    const struct yml_node *, struct yml_doc *);

#define RF_RAW		0x01	/* handler gets every answer, unparsed */
#define RF_OPTIONAL	0x02	/* failure is a note, not the job's end */
#define RF_CLEANUP	0x04	/* runs even when the job failed */
#define RF_EXPANDED	0x08	/* the path has the $expand query */
#define RF_IDEMPOTENT	0x10	/* may be retried after a dropped connection */
#define RF_PCIE_LIST	0x20	/* a PCIe device listing (even empty) */
#define RF_PSU_LIST	0x40	/* a power supply listing (even empty) */
#define RF_PCIE_LINK	0x80	/* a PCIe device or function: count failures */

struct rf_call {
	struct rf_job	*job;
	rf_fn		 fn;		/* the answer's handler */
	rf_fn		 member_fn;	/* collections: for each member */
	int		 flags;
	long		 idx;		/* the caller's: PCIe device index */
	long		 member;	/* position in its collection */
	char		*path;
};

static void rf_advance(struct rf_job *);

static void rf_fail(struct rf_job *, enum prov_code, const char *hint,
    const char *fmt, ...) __attribute__((format(printf, 4, 5)));

static void
rf_fail(struct rf_job *j, enum prov_code code, const char *hint,
    const char *fmt, ...)
{
	struct buf	b = BUF_INIT;
	va_list		ap;

	if (j->failed)
		return;
	j->failed = 1;
	j->b->ok = 0;
	va_start(ap, fmt);
	buf_vaddf(&b, fmt, ap);
	va_end(ap);
	prov_err_set(&j->b->err, code, "%s", b.buf);
	if (hint != NULL)
		j->b->err.hint = xstrdup(hint);
	buf_release(&b);
}

static void rf_ok(struct rf_job *, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static void
rf_ok(struct rf_job *j, const char *fmt, ...)
{
	struct buf	b = BUF_INIT;
	va_list		ap;

	va_start(ap, fmt);
	buf_vaddf(&b, fmt, ap);
	va_end(ap);
	free(j->b->detail);
	j->b->detail = buf_detach(&b, NULL);
	j->b->ok = 1;
}

static void rf_note(struct rf_job *, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static void
rf_note(struct rf_job *j, const char *fmt, ...)
{
	struct buf	b = BUF_INIT;
	va_list		ap;

	va_start(ap, fmt);
	buf_vaddf(&b, fmt, ap);
	va_end(ap);
	strvec_push(&j->b->inv.notes, b.buf);
	buf_release(&b);
}

static void
rf_set(char **dst, const char *s)
{
	char	*old = *dst;

	*dst = s != NULL ? xstrdup(s) : NULL;
	free(old);
}

/*
 * The path of a link the BMC gave.  Only paths are requested, always
 * from this BMC: an absolute URL elsewhere never gets our credentials.
 */
static const char *
rf_path(const char *url)
{
	const char	*p;

	if (url == NULL || url[0] == '/')
		return url;
	if ((p = strstr(url, "://")) != NULL &&
	    (p = strchr(p + 3, '/')) != NULL)
		return p;
	return NULL;
}

/* Keep a parsed document alive until the job ends (*doc is emptied). */
static void
rf_keep(struct rf_job *j, struct yml_doc *doc)
{
	if (doc == NULL || doc->root == NULL)
		return;
	ALLOC_GROW(j->kept, j->nkept + 1, j->akept);
	j->kept[j->nkept] = *doc;
	j->kept[j->nkept++].file = NULL;	/* dies with the call */
	yml_doc_init(doc);
}

static const char *
rf_reason(long status)
{
	switch (status) {
	case 400: return "Bad Request";
	case 401: return "Unauthorized";
	case 403: return "Forbidden";
	case 404: return "Not Found";
	case 405: return "Method Not Allowed";
	case 409: return "Conflict";
	case 412: return "Precondition Failed";
	case 415: return "Unsupported Media Type";
	case 429: return "Too Many Requests";
	case 500: return "Internal Server Error";
	case 501: return "Not Implemented";
	case 502: return "Bad Gateway";
	case 503: return "Service Unavailable";
	case 504: return "Gateway Timeout";
	default: return NULL;
	}
}

/* An HTTP error answer as the job's failure (a note when optional). */
static void
rf_http_error(struct rf_job *j, struct rf_call *c, struct http_req *r)
{
	struct yml_doc	 doc;
	struct prov_err	 perr = PROV_ERR_INIT;
	struct buf	 msg = BUF_INIT;
	const char	*m = NULL, *hint = NULL;
	enum prov_code	 code = PROV_E_HTTP;

	if (yml_load_json(&doc, c->path, r->resp.buf, r->resp.len, &perr) == 0)
		m = redfish_error_message(doc.root);
	buf_addf(&msg, "%s %s: %ld", r->method, c->path, r->status);
	if (rf_reason(r->status) != NULL)
		buf_addf(&msg, " %s", rf_reason(r->status));
	if (m != NULL)
		buf_addf(&msg, ": %s", m);
	if (r->status == 401 || r->status == 403) {
		code = PROV_E_AUTH;
		hint = "check the bmc user and its password";
	}
	if (c->flags & RF_OPTIONAL)
		rf_note(j, "%s", msg.buf);
	else
		rf_fail(j, code, hint, "%s", msg.buf);
	buf_release(&msg);
	prov_err_release(&perr);
	yml_doc_release(&doc);
}

static void
rf_transport_error(struct rf_job *j, struct rf_call *c, struct http_req *r)
{
	const char	*hint = NULL;

	if (c->flags & RF_OPTIONAL) {
		rf_note(j, "%s", r->err.msg);
		return;
	}
	switch (r->fail) {
	case HTTP_FAIL_TLS_VERIFY:
		hint = j->b->ca_file != NULL ? "is 'ca_file:' the CA that "
		    "signed this BMC's certificate, and does the certificate "
		    "name this address?" : "give the CA of the BMC's "
		    "certificate in 'ca_file:', or 'insecure: true' to skip "
		    "verification";
		break;
	case HTTP_FAIL_TIMEOUT:
		hint = "the BMC is slow or unreachable; see --timeout";
		break;
	case HTTP_FAIL_CONNECT:
		hint = "check the BMC's address and port";
		break;
	default:
		break;
	}
	rf_fail(j, r->err.code, hint, "%s", r->err.msg);
}

static struct rf_call *rf_request(struct rf_job *, const char *method,
    const char *path, const struct buf *body, rf_fn, int flags,
    long delay_ms);

static void
rf_on_done(struct http_req *r, void *arg)
{
	struct rf_call	*c = arg;
	struct rf_job	*j = c->job;
	struct yml_doc	 doc;
	struct prov_err	 perr = PROV_ERR_INIT;

	yml_doc_init(&doc);
	j->pending--;
	j->b->requests++;
	if (j->failed && !(c->flags & RF_CLEANUP))
		goto out;
	if (r->status == 0 && (c->flags & RF_CLEANUP)) {
		rf_note(j, "%s", r->err.msg);	/* the action's result stands */
		goto out;
	}
	if ((c->flags & RF_PCIE_LINK) && (r->status == 0 ||
	    r->status >= 300) && !(c->flags & RF_EXPANDED))
		j->b->inv.pcie_unreadable++;
	if (r->status == 0) {
		rf_transport_error(j, c, r);
		goto out;
	}
	if (c->flags & RF_RAW) {
		c->fn(j, c, r, NULL, NULL);
		goto out;
	}
	if (r->status >= 400 && (c->flags & RF_EXPANDED)) {
		/* $expand refused: read the collection member by member. */
		struct rf_call	*nc;
		char		*p = xstrdup(c->path);

		p[strcspn(p, "?")] = '\0';
		nc = rf_request(j, "GET", p, NULL, c->fn,
		    c->flags & ~RF_EXPANDED, 0);
		nc->member_fn = c->member_fn;
		nc->idx = c->idx;
		free(p);
		goto out;
	}
	if (r->status < 200 || r->status > 299) {
		rf_http_error(j, c, r);
		goto out;
	}
	if (yml_load_json(&doc, c->path, r->resp.buf, r->resp.len,
	    &perr) != 0) {
		if (c->flags & RF_PCIE_LINK)
			j->b->inv.pcie_unreadable++;
		if (c->flags & RF_OPTIONAL)
			rf_note(j, "GET %s", perr.msg);
		else
			rf_fail(j, PROV_E_PARSE, NULL, "GET %s", perr.msg);
		goto out;
	}
	c->fn(j, c, r, doc.root, &doc);
out:
	prov_err_release(&perr);
	yml_doc_release(&doc);
	free(c->path);
	free(c);
	if (j->pending == 0)
		rf_advance(j);
}

/* Queue a request of this job; the call is returned to be completed. */
static struct rf_call *
rf_request_hdr(struct rf_job *j, const char *method, const char *path,
    const struct buf *body, rf_fn fn, int flags, long delay_ms,
    const char *extra_header)
{
	struct http_req	*r;
	struct rf_call	*c;
	char		*url;

	c = xcalloc(1, sizeof *c);
	c->job = j;
	c->fn = fn;
	c->flags = flags;
	c->member = -1;
	c->path = xstrdup(path);
	url = xasprintf("%s%s", j->base, path);
	r = http_req_new(method, url);
	free(url);
	http_req_header(r, "Accept: application/json");
	http_req_header(r, "OData-Version: 4.0");
	if (extra_header != NULL)
		http_req_header(r, extra_header);
	if (body != NULL) {
		http_req_header(r, "Content-Type: application/json");
		buf_grow(&r->body, body->len + 1);
		buf_add(&r->body, body->buf, body->len);
	}
	if (j->token != NULL) {
		struct buf	h = BUF_INIT;

		buf_grow(&h, strlen(j->token) + 16);
		buf_adds(&h, "X-Auth-Token: ");
		buf_adds(&h, j->token);
		http_req_header(r, h.buf);
		buf_release_secret(&h);
	} else if (j->basic)
		http_req_basic_auth(r, j->b->user, j->b->password);
	r->ca_file = j->b->ca_file;
	r->insecure = j->b->insecure;
	r->group = j;
	r->delay_ms = delay_ms;
	if (flags & RF_IDEMPOTENT)
		r->idempotent = 1;
	r->done = rf_on_done;
	r->arg = c;
	j->pending++;
	http_add(j->h, r);
	return c;
}

static struct rf_call *
rf_request(struct rf_job *j, const char *method, const char *path,
    const struct buf *body, rf_fn fn, int flags, long delay_ms)
{
	return rf_request_hdr(j, method, path, body, fn, flags, delay_ms, NULL);
}

static void rf_h_coll(struct rf_job *, struct rf_call *, struct http_req *,
    const struct yml_node *, struct yml_doc *);

/* GET a collection; member_fn runs for every member, inline or fetched. */
static void
rf_get_coll(struct rf_job *j, const char *path, rf_fn member_fn, int flags,
    long idx)
{
	struct rf_call	*c;
	char		*p;

	if (j->expand != NULL && strchr(path, '?') == NULL) {
		p = xasprintf("%s%s", path, j->expand);
		flags |= RF_EXPANDED;
	} else
		p = xstrdup(path);
	c = rf_request(j, "GET", p, NULL, rf_h_coll, flags, 0);
	c->member_fn = member_fn;
	c->idx = idx;
	free(p);
}

/* Count a resource once (by @odata.id): 1 when it was seen before. */
static int
rf_seen(struct rf_job *j, const char *id)
{
	char	*k;

	if (id == NULL)
		return 0;
	k = xstrdup(id);
	k[strcspn(k, "?")] = '\0';
	if (strvec_find(&j->seen, k) >= 0) {
		free(k);
		return 1;
	}
	strvec_push_nodup(&j->seen, k);
	return 0;
}

static void
rf_h_coll(struct rf_job *j, struct rf_call *c, struct http_req *r,
    const struct yml_node *doc, struct yml_doc *ydoc)
{
	const struct yml_node	*m = redfish_seq(doc, "Members");
	const char		*next;
	struct rf_call		 sub, *nc;
	size_t			 i;
	int			 flags;

	next = redfish_str(doc, "Members@odata.nextLink");
	flags = c->flags & ~(RF_EXPANDED | RF_PCIE_LIST | RF_PSU_LIST);

	if (c->flags & RF_PCIE_LIST) {
		redfish_inc(&j->b->inv.pcie_devices, 0);
		redfish_inc(&j->b->inv.gpus_by_pcie, 0);
	}
	if (c->flags & RF_PSU_LIST)
		redfish_inc(&j->b->inv.psus, 0);
	sub = *c;
	sub.flags = flags;
	for (i = 0; m != NULL && i < m->n; i++) {
		const struct yml_node	*it = m->u.items[i];
		const char		*id = rf_path(redfish_str(it,
					    "@odata.id"));

		sub.member = (long)i;
		if (it->kind == YML_MAP && it->n > 1)	/* expanded inline */
			c->member_fn(j, &sub, NULL, it, ydoc);
		else if (id != NULL) {
			nc = rf_request(j, "GET", id, NULL, c->member_fn, flags,
			    0);
			nc->idx = c->idx;
			nc->member = (long)i;
		}
	}
	if (next != NULL && rf_path(next) != NULL) {
		nc = rf_request(j, "GET", rf_path(next), NULL, rf_h_coll,
		    flags, 0);
		nc->member_fn = c->member_fn;
		nc->idx = c->idx;
	}
}

static long
rf_retry_after(const struct rf_job *j, const struct http_req *r)
{
	const char	*s = http_resp_header(r, "Retry-After");
	long		 v;

	if (s != NULL && str_to_long(s, &v) == 0 && v >= 0)
		return v > 30 ? 30000 : v < 1 ? 200 : v * 1000;
	return j->o->poll_ms;
}

/* --- discovery -------------------------------------------------------- */

static void
rf_h_root(struct rf_job *j, struct rf_call *c, struct http_req *r,
    const struct yml_node *doc, struct yml_doc *ydoc)
{
	const struct yml_node	*eq;
	const char		*s;

	rf_set(&j->systems, rf_path(redfish_link(doc, "Systems")));
	rf_set(&j->managers, rf_path(redfish_link(doc, "Managers")));
	rf_set(&j->chassis_coll, rf_path(redfish_link(doc, "Chassis")));
	s = rf_path(redfish_link(redfish_map(doc, "Links"), "Sessions"));
	if (s != NULL)
		rf_set(&j->sessions, s);
	else if ((s = rf_path(redfish_link(doc, "SessionService"))) != NULL)
		j->sessions = xasprintf("%.*s/Sessions",
		    (int)(strlen(s) - (s[strlen(s) - 1] == '/')), s);
	eq = redfish_map(redfish_map(doc, "ProtocolFeaturesSupported"),
	    "ExpandQuery");
	if (redfish_bool(eq, "NoLinks") == 1)
		j->expand = "?$expand=.";
	else if (redfish_bool(eq, "ExpandAll") == 1)
		j->expand = "?$expand=*";
	rf_set(&j->equipment, rf_path(redfish_link(doc, "PowerEquipment")));
	if (j->b->ppdu != NULL && j->equipment == NULL)
		rf_fail(j, PROV_E_PARSE, NULL, "the service root %s lists no "
		    "PowerEquipment: not a PDU's Redfish service", c->path);
	else if (j->b->ppdu == NULL && j->systems == NULL)
		rf_fail(j, PROV_E_PARSE, NULL, "the service root %s lists no "
		    "Systems", c->path);
}

/*
 * The answer to POST Sessions.  Any 2xx with an X-Auth-Token is a session
 * (some BMCs answer 200 or 204 rather than 201), to be deleted at the
 * end at its Location (else the body's @odata.id).  Anything else is a
 * failure: this service has sessions, and falling back to basic auth
 * behind the user's back would leak nothing less than the choice.
 */
static void
rf_h_login(struct rf_job *j, struct rf_call *c, struct http_req *r,
    const struct yml_node *unused, struct yml_doc *unused2)
{
	const char	*tok = http_resp_header(r, "X-Auth-Token");
	const char	*loc = http_resp_header(r, "Location");
	const char	*m = NULL;
	struct yml_doc	 doc;
	struct prov_err	 perr = PROV_ERR_INIT;
	int		 parsed;

	yml_doc_init(&doc);
	parsed = r->resp.len > 0 && yml_load_json(&doc, c->path, r->resp.buf,
	    r->resp.len, &perr) == 0;
	if (parsed)
		m = redfish_error_message(doc.root);
	if (r->status >= 200 && r->status <= 299 && tok != NULL &&
	    *tok != '\0') {
		j->token = xstrdup(tok);
		if (rf_path(loc) != NULL)
			rf_set(&j->session, rf_path(loc));
		else if (parsed)
			rf_set(&j->session, rf_path(redfish_str(doc.root,
			    "@odata.id")));
		if (j->session == NULL)
			rf_note(j, "POST %s: %ld with a token but no Location: "
			    "the session cannot be deleted; it ends when it "
			    "times out", c->path, r->status);
		j->b->auth = "session";
	} else if (r->status >= 200 && r->status <= 299)
		rf_fail(j, PROV_E_AUTH, "--basic-auth uses basic auth instead",
		    "login answered %ld without an X-Auth-Token", r->status);
	else if (r->status == 401 || r->status == 403)
		rf_fail(j, PROV_E_AUTH, "check the bmc user and its password",
		    "login as '%s' refused (%ld %s)%s%s", j->b->user, r->status,
		    rf_reason(r->status), m ? ": " : "", m ? m : "");
	else
		rf_fail(j, PROV_E_AUTH, "--basic-auth uses basic auth instead",
		    "login: POST %s: %ld%s%s%s%s", c->path, r->status,
		    rf_reason(r->status) ? " " : "", rf_reason(r->status) ?
		    rf_reason(r->status) : "", m ? ": " : "", m ? m : "");
	prov_err_release(&perr);
	yml_doc_release(&doc);
}

static void rf_h_system_type(struct rf_job *, struct rf_call *,
    struct http_req *, const struct yml_node *, struct yml_doc *);

/* The members of Systems, with their SystemType when expanded inline. */
static void
rf_h_systems(struct rf_job *j, struct rf_call *c, struct http_req *r,
    const struct yml_node *doc, struct yml_doc *ydoc)
{
	const struct yml_node	*m = redfish_seq(doc, "Members");
	size_t			 i;
	int			 need_types = 0;

	for (i = 0; m != NULL && i < m->n; i++) {
		const struct yml_node	*it = m->u.items[i];
		const char		*p = rf_path(redfish_str(it,
					    "@odata.id"));
		const char		*id = redfish_str(it, "Id");
		const char		*t = redfish_str(it, "SystemType");

		if (p == NULL)
			continue;
		strvec_push(&j->sys_paths, p);
		if (id != NULL)
			strvec_push(&j->sys_ids, id);
		else
			strvec_push_nodup(&j->sys_ids, redfish_uri_id(p));
		strvec_push(&j->sys_types, t != NULL ? t : "");
		if (t == NULL)
			need_types = 1;
	}
	if (j->sys_paths.n == 0) {
		rf_fail(j, PROV_E_PARSE, NULL, "the service lists no %s in %s",
		    j->b->ppdu ? "rack PDUs" : "systems", c->path);
		return;
	}
	if (j->b->ppdu != NULL)
		return;
	/* Which one is the host needs each system's SystemType. */
	if (j->sys_paths.n > 1 && j->b->want_system == NULL && need_types)
		for (i = 0; i < j->sys_paths.n; i++)
			rf_request(j, "GET", j->sys_paths.v[i], NULL,
			    rf_h_system_type, 0, 0)->member = (long)i;
}

static void
rf_h_system_type(struct rf_job *j, struct rf_call *c, struct http_req *r,
    const struct yml_node *doc, struct yml_doc *ydoc)
{
	const char	*t = redfish_str(doc, "SystemType");

	if (c->member >= 0 && (size_t)c->member < j->sys_types.n &&
	    t != NULL) {
		free(j->sys_types.v[c->member]);
		j->sys_types.v[c->member] = xstrdup(t);
	}
}

static void
rf_step_pick_system(struct rf_job *j)
{
	char	*why = NULL;
	long	 k;

	k = redfish_pick_system(&j->sys_ids, &j->sys_types, j->b->want_system,
	    &why);
	if (k < 0 && j->b->ppdu != NULL) {
		struct buf	ids = BUF_INIT;

		redfish_join(&ids, &j->sys_ids);
		rf_fail(j, PROV_E_PLAN, NULL, "the service has %s rack PDU%s "
		    "%s (its PDUs: %s): name it in the PDU's redfish.pdu",
		    j->b->want_system ? "no" : "several", j->b->want_system ?
		    "" : "s", j->b->want_system ? j->b->want_system : "",
		    ids.buf);
		buf_release(&ids);
	} else if (k < 0)
		rf_fail(j, PROV_E_PLAN, NULL, "%s", why);
	else {
		rf_set(&j->b->system, j->sys_paths.v[k]);
		if (j->sys_ids.n > 1 || j->b->ppdu != NULL)
			rf_set(&j->b->system_id, j->sys_ids.v[k]);
	}
	j->phase = j->b->ppdu != NULL ? RF_PDU : RF_SYSTEM;
	free(why);
}

/* Power and boot fields of a ComputerSystem, into the result. */
static void
rf_read_power_boot(struct rf_job *j, const struct yml_node *doc)
{
	const struct yml_node	*boot = redfish_map(doc, "Boot");

	rf_set(&j->b->power, redfish_str(doc, "PowerState"));
	rf_set(&j->b->boot_target, redfish_str(boot,
	    "BootSourceOverrideTarget"));
	rf_set(&j->b->boot_enabled, redfish_str(boot,
	    "BootSourceOverrideEnabled"));
}

static void
rf_status_detail(struct rf_job *j)
{
	const char	*en = j->b->boot_enabled, *t = j->b->boot_target;
	const char	*p = j->b->power ? j->b->power : "PowerState unknown";

	if (en == NULL || strcmp(en, "Disabled") == 0 || t == NULL ||
	    strcmp(t, "None") == 0)
		rf_ok(j, "%s, no boot override", p);
	else
		rf_ok(j, "%s, boot override %s (%s)", p, t, en);
}

static void
rf_h_system(struct rf_job *j, struct rf_call *c, struct http_req *r,
    const struct yml_node *doc, struct yml_doc *ydoc)
{
	const struct yml_node	*act, *links, *pd;
	size_t			 i;

	rf_read_power_boot(j, doc);
	rf_set(&j->etag, http_resp_header(r, "ETag"));
	act = redfish_map(redfish_map(doc, "Actions"), "#ComputerSystem.Reset");
	rf_set(&j->reset_target, rf_path(redfish_str(act, "target")));
	rf_set(&j->action_info, rf_path(redfish_str(act,
	    "@Redfish.ActionInfo")));
	strvec_clear(&j->reset_allowed);
	redfish_strings(&j->reset_allowed, redfish_seq(act,
	    "ResetType@Redfish.AllowableValues"));
	strvec_clear(&j->boot_allowed);
	redfish_strings(&j->boot_allowed, redfish_seq(redfish_map(doc, "Boot"),
	    "BootSourceOverrideTarget@Redfish.AllowableValues"));
	strvec_clear(&j->boot_en_allowed);
	redfish_strings(&j->boot_en_allowed, redfish_seq(redfish_map(doc,
	    "Boot"), "BootSourceOverrideEnabled@Redfish.AllowableValues"));
	rf_set(&j->oem_pci, rf_path(redfish_link(redfish_map(redfish_map(
	    redfish_map(doc, "Oem"), "Hpe"), "Links"), "PCIDevices")));
	rf_set(&j->vm_coll, rf_path(redfish_link(doc, "VirtualMedia")));
	links = redfish_map(doc, "Links");
	rf_set(&j->manager, rf_path(redfish_seq_link(redfish_seq(links,
	    "ManagedBy"), 0)));
	rf_set(&j->chassis, rf_path(redfish_seq_link(redfish_seq(links,
	    "Chassis"), 0)));
	rf_set(&j->processors, rf_path(redfish_link(doc, "Processors")));
	rf_set(&j->memory, rf_path(redfish_link(doc, "Memory")));
	pd = yml_map_get(doc, "PCIeDevices");
	if (pd != NULL && pd->kind == YML_SEQ) {
		for (i = 0; i < pd->n; i++)
			if (rf_path(redfish_seq_link(pd, i)) != NULL)
				strvec_push(&j->pcie_links,
				    rf_path(redfish_seq_link(pd, i)));
	} else
		rf_set(&j->pcie_coll, rf_path(redfish_link(doc,
		    "PCIeDevices")));

	switch (j->o->action) {
	case REDFISH_STATUS:
		rf_status_detail(j);
		j->phase = RF_LOGOUT;
		break;
	case REDFISH_ON:
	case REDFISH_OFF:
	case REDFISH_CYCLE:
	case REDFISH_RESET:
		if (j->reset_target == NULL) {
			rf_fail(j, PROV_E_HTTP, NULL, "system %s has no "
			    "#ComputerSystem.Reset action", j->b->system);
			return;
		}
		j->phase = j->reset_allowed.n == 0 && j->action_info != NULL ?
		    RF_ACTION_INFO : RF_RESET;
		break;
	case REDFISH_BOOT:
		j->phase = RF_BOOT;
		break;
	case REDFISH_MEDIA_INSERT:
	case REDFISH_MEDIA_EJECT:
		j->phase = RF_MEDIA_FIND;
		break;
	case REDFISH_POWER:
		j->phase = RF_INV;
		break;
	case REDFISH_INVENTORY:
		redfish_inv_add_system(&j->b->inv, doc);
		if (pd != NULL && pd->kind == YML_SEQ) {
			redfish_inc(&j->b->inv.pcie_devices, 0);
			redfish_inc(&j->b->inv.gpus_by_pcie, 0);
		}
		j->phase = RF_INV;
		break;
	}
}

/* --- power ------------------------------------------------------------ */

static void
rf_h_action_info(struct rf_job *j, struct rf_call *c, struct http_req *r,
    const struct yml_node *doc, struct yml_doc *ydoc)
{
	const struct yml_node	*ps = redfish_seq(doc, "Parameters");
	size_t			 i;

	for (i = 0; ps != NULL && i < ps->n; i++) {
		const char	*name = redfish_str(ps->u.items[i], "Name");

		if (name != NULL && strcmp(name, "ResetType") == 0)
			redfish_strings(&j->reset_allowed, redfish_seq(
			    ps->u.items[i], "AllowableValues"));
	}
}

/*
 * The answer to a change (POST action, PATCH): done now (200, 204), or
 * accepted (202) and followed through its task monitor.
 */
static void
rf_h_change(struct rf_job *j, struct rf_call *c, struct http_req *r,
    const struct yml_node *unused, struct yml_doc *unused2)
{
	const char	*loc = rf_path(http_resp_header(r, "Location"));
	struct yml_doc	 doc;
	struct prov_err	 perr = PROV_ERR_INIT;

	if (r->status == 202) {
		yml_doc_init(&doc);
		if (loc == NULL && yml_load_json(&doc, c->path, r->resp.buf,
		    r->resp.len, &perr) == 0)
			loc = rf_path(redfish_str(doc.root, "@odata.id"));
		if (loc != NULL) {
			rf_set(&j->task, loc);
			j->task_next = j->phase;
			j->task_delay_ms = rf_retry_after(j, r);
			j->phase = RF_TASK;
		} else
			rf_note(j, "%s %s: accepted without a task monitor",
			    r->method, c->path);
		prov_err_release(&perr);
		yml_doc_release(&doc);
		return;
	}
	if (r->status >= 200 && r->status <= 299)
		return;
	rf_http_error(j, c, r);
}

static int
rf_task_running(const char *s)
{
	static const char *const running[] = { "New", "Starting", "Running",
	    "Suspended", "Interrupted", "Pending", "Stopping", "Service",
	    NULL };
	size_t	i;

	for (i = 0; running[i] != NULL; i++)
		if (strcmp(s, running[i]) == 0)
			return 1;
	return 0;
}

static void
rf_h_task(struct rf_job *j, struct rf_call *c, struct http_req *r,
    const struct yml_node *unused, struct yml_doc *unused2)
{
	struct yml_doc	 doc;
	struct prov_err	 perr = PROV_ERR_INIT;
	const char	*state = NULL, *m = NULL;
	const struct yml_node *msgs;

	yml_doc_init(&doc);
	if (r->status == 202) {
		j->task_delay_ms = rf_retry_after(j, r);
		return;		/* still running: poll again */
	}
	if (r->status < 200 || r->status > 299) {
		rf_http_error(j, c, r);
		return;
	}
	if (r->resp.len > 0 && yml_load_json(&doc, c->path, r->resp.buf,
	    r->resp.len, &perr) == 0) {
		state = redfish_str(doc.root, "TaskState");
		msgs = redfish_seq(doc.root, "Messages");
		if (msgs != NULL && msgs->n > 0)
			m = redfish_str(msgs->u.items[0], "Message");
	}
	if (state != NULL && rf_task_running(state))
		j->task_delay_ms = rf_retry_after(j, r);
	else if (state != NULL && strcmp(state, "Completed") != 0)
		rf_fail(j, PROV_E_HTTP, NULL, "task %s ended %s%s%s", j->task,
		    state, m ? ": " : "", m ? m : "");
	else
		j->phase = j->task_next;
	prov_err_release(&perr);
	yml_doc_release(&doc);
}

static void
rf_h_wait_power(struct rf_job *j, struct rf_call *c, struct http_req *r,
    const struct yml_node *doc, struct yml_doc *ydoc)
{
	rf_read_power_boot(j, doc);
	if (j->b->power != NULL && strcmp(j->b->power, j->want_power) == 0) {
		rf_ok(j, "%s (was %s; %s)", j->b->power, j->was_power ?
		    j->was_power : "unknown", j->reset_sent);
		j->phase = RF_LOGOUT;
	}
}

static void
rf_step_reset(struct rf_job *j)
{
	struct buf		 body = BUF_INIT, allowed = BUF_INIT;
	struct json_writer	 jw;
	const char		*type, *why;

	type = redfish_reset_type(j->o->action, j->o->graceful,
	    &j->reset_allowed, j->b->power, &why);
	if (type == NULL) {
		redfish_join(&allowed, &j->reset_allowed);
		rf_fail(j, PROV_E_HTTP, NULL, "cannot '%s' system %s: %s "
		    "(allowed: %s)", redfish_action_name(j->o->action),
		    j->b->system, why, allowed.buf);
		buf_release(&allowed);
		return;
	}
	if (*type == '\0') {
		rf_ok(j, "already %s", j->b->power);
		j->phase = RF_LOGOUT;
		return;
	}
	j->want_power = j->o->action == REDFISH_OFF ? "Off" : "On";
	rf_set(&j->was_power, j->b->power);
	j->reset_sent = type;
	j->deadline = http_now_ms() + j->o->wait_ms;
	j->polls = 0;
	j->phase = RF_WAIT_POWER;
	json_init(&jw, &body);
	json_object_begin(&jw, NULL, 0);
	json_str(&jw, "ResetType", type);
	json_end(&jw);
	rf_request(j, "POST", j->reset_target, &body, rf_h_change, RF_RAW, 0);
	buf_release(&body);
}

/* --- boot ------------------------------------------------------------- */

static void
rf_h_boot_verify(struct rf_job *j, struct rf_call *c, struct http_req *r,
    const struct yml_node *doc, struct yml_doc *ydoc)
{
	const char	*t, *en;

	rf_read_power_boot(j, doc);
	t = j->b->boot_target;
	en = j->b->boot_enabled;
	if (t != NULL && en != NULL && strcmp(t, j->o->boot) == 0 &&
	    strcmp(en, j->boot_en) == 0)
		rf_ok(j, "boot override %s (%s)%s", t, en,
		    !j->o->once && strcmp(en, "Once") == 0 ? "; the BMC "
		    "allows only Once" : "");
	else
		rf_fail(j, PROV_E_HTTP, NULL, "the BMC accepted boot override "
		    "%s (%s) but reports %s (%s)", j->o->boot, j->boot_en,
		    t ? t : "none", en ? en : "none");
}

static void
rf_step_boot(struct rf_job *j)
{
	struct buf		 body = BUF_INIT, offers = BUF_INIT;
	struct json_writer	 jw;
	const char		*why;
	char			*im = NULL;

	if (j->o->boot == NULL) {
		rf_fail(j, PROV_E_USAGE, NULL, "no boot target given");
		return;
	}
	if (j->boot_allowed.n > 0 &&
	    strvec_find(&j->boot_allowed, j->o->boot) < 0) {
		redfish_join(&offers, &j->boot_allowed);
		rf_fail(j, PROV_E_HTTP, NULL, "boot target '%s' is not offered "
		    "by system %s (it offers: %s)", j->o->boot, j->b->system,
		    offers.buf);
		buf_release(&offers);
		return;
	}
	j->boot_en = redfish_boot_enabled(j->o->once, &j->boot_en_allowed,
	    &why);
	if (j->boot_en == NULL) {
		redfish_join(&offers, &j->boot_en_allowed);
		rf_fail(j, PROV_E_HTTP, NULL, "system %s %s (it allows: %s)",
		    j->b->system, why, offers.buf);
		buf_release(&offers);
		return;
	}
	json_init(&jw, &body);
	json_object_begin(&jw, NULL, 0);
	json_object_begin(&jw, "Boot", 0);
	json_str(&jw, "BootSourceOverrideTarget", j->o->boot);
	json_str(&jw, "BootSourceOverrideEnabled", j->boot_en);
	json_end(&jw);
	json_end(&jw);
	if (j->etag != NULL)
		im = xasprintf("If-Match: %s", j->etag);
	j->deadline = http_now_ms() + j->o->wait_ms;
	j->phase = RF_BOOT_VERIFY;
	rf_request_hdr(j, "PATCH", j->b->system, &body, rf_h_change,
	    RF_RAW | RF_IDEMPOTENT, 0, im);
	free(im);
	buf_release(&body);
}

/* --- virtual media ---------------------------------------------------- */

static void
rf_h_first_manager(struct rf_job *j, struct rf_call *c, struct http_req *r,
    const struct yml_node *doc, struct yml_doc *ydoc)
{
	rf_set(&j->manager, rf_path(redfish_first_member(doc)));
}

static void
rf_h_manager(struct rf_job *j, struct rf_call *c, struct http_req *r,
    const struct yml_node *doc, struct yml_doc *ydoc)
{
	rf_set(&j->vm_coll, rf_path(redfish_link(doc, "VirtualMedia")));
	if (j->vm_coll == NULL)
		rf_fail(j, PROV_E_HTTP, NULL, "the BMC has no virtual media: "
		    "neither system %s nor its manager %s links VirtualMedia",
		    j->b->system, j->manager);
}

static void
rf_h_media_member(struct rf_job *j, struct rf_call *c, struct http_req *r,
    const struct yml_node *doc, struct yml_doc *ydoc)
{
	const struct yml_node	*acts = redfish_map(doc, "Actions");
	const char		*id = rf_path(redfish_str(doc, "@odata.id"));
	int			 ins, rank = redfish_media_rank(doc);

	j->media_slots++;
	if (rank == 0 || rank < j->media_rank)
		return;
	if (rank == j->media_rank && c->member >= j->media_idx)
		return;		/* of two alike, the earlier slot wins */
	j->media_idx = c->member;
	j->media_rank = rank;
	rf_set(&j->media_id, id != NULL ? id : c->path);
	free(j->media_name);
	j->media_name = redfish_uri_id(j->media_id);
	rf_set(&j->b->media_image, redfish_str(doc, "Image"));
	ins = redfish_bool(doc, "Inserted");
	j->media_inserted = ins >= 0 ? ins : j->b->media_image != NULL;
	rf_set(&j->media_insert, rf_path(redfish_str(redfish_map(acts,
	    "#VirtualMedia.InsertMedia"), "target")));
	rf_set(&j->media_eject, rf_path(redfish_str(redfish_map(acts,
	    "#VirtualMedia.EjectMedia"), "target")));
}

static void
rf_eject(struct rf_job *j)
{
	struct buf		body = BUF_INIT;
	struct json_writer	jw;

	json_init(&jw, &body);
	json_object_begin(&jw, NULL, 0);
	if (j->media_eject != NULL) {
		json_end(&jw);
		rf_request(j, "POST", j->media_eject, &body, rf_h_change,
		    RF_RAW, 0);
	} else {
		json_null(&jw, "Image");
		json_bool(&jw, "Inserted", 0);
		json_end(&jw);
		rf_request(j, "PATCH", j->media_id, &body, rf_h_change,
		    RF_RAW | RF_IDEMPOTENT, 0);
	}
	buf_release(&body);
}

static void
rf_step_media_act(struct rf_job *j)
{
	const char	*url = j->o->media_url, *img = j->b->media_image;

	if (j->media_idx < 0 && j->media_slots == 0) {
		rf_fail(j, PROV_E_HTTP, NULL, "the BMC has no virtual media: "
		    "%s lists no slot", j->vm_coll);
		return;
	}
	if (j->media_idx < 0) {
		rf_fail(j, PROV_E_HTTP, NULL, "none of the %ld virtual media "
		    "slots of %s takes a CD or DVD (by MediaTypes, or an "
		    "InsertMedia action where MediaTypes is missing)",
		    j->media_slots, j->vm_coll);
		return;
	}
	rf_set(&j->b->media_slot, j->media_id);
	j->deadline = http_now_ms() + j->o->wait_ms;
	if (j->o->action == REDFISH_MEDIA_EJECT) {
		if (!j->media_inserted) {
			rf_ok(j, "%s is empty already", j->media_name);
			j->phase = RF_LOGOUT;
			return;
		}
		j->phase = RF_MEDIA_VERIFY;
		rf_eject(j);
		return;
	}
	if (url == NULL) {
		rf_fail(j, PROV_E_USAGE, NULL, "no image URL given");
		return;
	}
	if (j->media_inserted && img != NULL && strcmp(img, url) == 0) {
		rf_ok(j, "%s holds %s already", j->media_name, url);
		j->phase = RF_LOGOUT;
		return;
	}
	j->phase = RF_MEDIA_INSERT;
	if (j->media_inserted)
		rf_eject(j);	/* most BMCs refuse to insert over media */
}

static void
rf_step_media_insert(struct rf_job *j)
{
	struct buf		body = BUF_INIT;
	struct json_writer	jw;

	j->phase = RF_MEDIA_VERIFY;
	json_init(&jw, &body);
	json_object_begin(&jw, NULL, 0);
	json_str(&jw, "Image", j->o->media_url);
	json_bool(&jw, "Inserted", 1);
	if (j->media_insert != NULL) {
		json_bool(&jw, "WriteProtected", 1);
		json_end(&jw);
		rf_request(j, "POST", j->media_insert, &body, rf_h_change,
		    RF_RAW, 0);
	} else {
		json_end(&jw);
		rf_request(j, "PATCH", j->media_id, &body, rf_h_change,
		    RF_RAW | RF_IDEMPOTENT, 0);
	}
	buf_release(&body);
}

static void
rf_h_media_verify(struct rf_job *j, struct rf_call *c, struct http_req *r,
    const struct yml_node *doc, struct yml_doc *ydoc)
{
	const char	*img = redfish_str(doc, "Image");
	int		 ins = redfish_bool(doc, "Inserted");

	rf_set(&j->b->media_image, img);
	if (j->o->action == REDFISH_MEDIA_EJECT) {
		if (ins == 0 || (ins < 0 && img == NULL))
			rf_ok(j, "%s ejected", j->media_name);
		else
			rf_fail(j, PROV_E_HTTP, NULL, "the BMC accepted the "
			    "eject but %s still holds %s", j->media_id,
			    img ? img : "media");
		return;
	}
	if (img != NULL && strcmp(img, j->o->media_url) == 0 && ins != 0)
		rf_ok(j, "%s: %s", j->media_name, img);
	else
		rf_fail(j, PROV_E_HTTP, NULL, "the BMC accepted the image but "
		    "%s reports %s (Inserted %s)", j->media_id,
		    img ? img : "no image", ins == 1 ? "true" : ins == 0 ?
		    "false" : "unknown");
}

/* --- inventory -------------------------------------------------------- */

static void
rf_h_proc(struct rf_job *j, struct rf_call *c, struct http_req *r,
    const struct yml_node *doc, struct yml_doc *ydoc)
{
	redfish_inv_add_processor(&j->b->inv, doc);
}

static void
rf_h_mem(struct rf_job *j, struct rf_call *c, struct http_req *r,
    const struct yml_node *doc, struct yml_doc *ydoc)
{
	redfish_inv_add_memory(&j->b->inv, doc);
}

static void
rf_h_psu_metrics(struct rf_job *j, struct rf_call *c, struct http_req *r,
    const struct yml_node *doc, struct yml_doc *ydoc)
{
	redfish_inv_add_psu_metrics(&j->b->inv, doc);
}

static void
rf_h_psu(struct rf_job *j, struct rf_call *c, struct http_req *r,
    const struct yml_node *doc, struct yml_doc *ydoc)
{
	const char	*m = rf_path(redfish_link(doc, "Metrics"));

	redfish_inv_add_psu(&j->b->inv, doc, "PowerSubsystem");
	if (j->o->action == REDFISH_POWER && m != NULL && !redfish_absent(doc))
		rf_request(j, "GET", m, NULL, rf_h_psu_metrics, RF_OPTIONAL,
		    0);
}

/* Power's PowerControl only: its PSUs were counted from PowerSubsystem. */
static void
rf_h_power_ctl(struct rf_job *j, struct rf_call *c, struct http_req *r,
    const struct yml_node *doc, struct yml_doc *ydoc)
{
	struct redfish_inv	tmp;

	redfish_inv_init(&tmp);
	redfish_inv_add_power_readings(&tmp, doc);
	j->b->inv.watts_ctl = tmp.watts_ctl;
	redfish_inv_release(&tmp);
}

static void
rf_h_env(struct rf_job *j, struct rf_call *c, struct http_req *r,
    const struct yml_node *doc, struct yml_doc *ydoc)
{
	redfish_inv_add_env_metrics(&j->b->inv, doc);
}

static void
rf_h_power(struct rf_job *j, struct rf_call *c, struct http_req *r,
    const struct yml_node *doc, struct yml_doc *ydoc)
{
	const struct yml_node	*ps = redfish_seq(doc, "PowerSupplies");
	size_t			 i;

	redfish_inc(&j->b->inv.psus, 0);
	for (i = 0; ps != NULL && i < ps->n; i++)
		redfish_inv_add_psu(&j->b->inv, ps->u.items[i], "Power");
	redfish_inv_add_psu_redundancy(&j->b->inv, doc);
	redfish_inv_add_power_readings(&j->b->inv, doc);
}

static void
rf_h_psubsys(struct rf_job *j, struct rf_call *c, struct http_req *r,
    const struct yml_node *doc, struct yml_doc *ydoc)
{
	const char	*l = rf_path(redfish_link(doc, "PowerSupplies"));

	redfish_inv_add_psu_redundancy(&j->b->inv, doc);
	if (l != NULL)
		rf_get_coll(j, l, rf_h_psu, RF_OPTIONAL | RF_PSU_LIST, 0);
	else if (j->power_url != NULL)
		rf_request(j, "GET", j->power_url, NULL, rf_h_power,
		    RF_OPTIONAL, 0);
	else
		rf_note(j, "%s lists no PowerSupplies", c->path);
}

static void
rf_h_pcie_fn(struct rf_job *j, struct rf_call *c, struct http_req *r,
    const struct yml_node *doc, struct yml_doc *ydoc)
{
	struct rf_pcie	*p;

	if (c->idx < 0 || (size_t)c->idx >= j->npcie)
		return;
	rf_keep(j, ydoc);
	p = &j->pcie[c->idx];
	ALLOC_GROW(p->fns, p->nfns + 2, p->afns);
	p->fns[p->nfns++] = doc;
	p->fns[p->nfns] = NULL;
}

static void
rf_h_pcie_dev(struct rf_job *j, struct rf_call *c, struct http_req *r,
    const struct yml_node *doc, struct yml_doc *ydoc)
{
	const struct yml_node	*fl;
	const char		*coll;
	struct rf_pcie		*p;
	long			 k;
	size_t			 i;

	if (rf_seen(j, redfish_str(doc, "@odata.id")))
		return;		/* listed by the system and the chassis */
	rf_keep(j, ydoc);
	ALLOC_GROW(j->pcie, j->npcie + 1, j->apcie);
	k = (long)j->npcie++;
	p = &j->pcie[k];
	memset(p, 0, sizeof *p);
	p->dev = doc;
	if ((coll = rf_path(redfish_link(doc, "PCIeFunctions"))) != NULL) {
		rf_get_coll(j, coll, rf_h_pcie_fn, RF_OPTIONAL | RF_PCIE_LINK,
		    k);
		return;
	}
	fl = redfish_seq(redfish_map(doc, "Links"), "PCIeFunctions");
	for (i = 0; fl != NULL && i < fl->n; i++) {
		const char	*f = rf_path(redfish_seq_link(fl, i));

		if (f != NULL)
			rf_request(j, "GET", f, NULL, rf_h_pcie_fn,
			    RF_OPTIONAL | RF_PCIE_LINK, 0)->idx = k;
	}
}

static void
rf_h_oem_pci(struct rf_job *j, struct rf_call *c, struct http_req *r,
    const struct yml_node *doc, struct yml_doc *ydoc)
{
	redfish_inv_add_oem_pci(&j->b->inv, doc);
}

static void
rf_h_chassis(struct rf_job *j, struct rf_call *c, struct http_req *r,
    const struct yml_node *doc, struct yml_doc *ydoc)
{
	const char	*ps = rf_path(redfish_link(doc, "PowerSubsystem"));
	const char	*pw = rf_path(redfish_link(doc, "Power"));
	const char	*pd = rf_path(redfish_link(doc, "PCIeDevices"));
	const char	*env = rf_path(redfish_link(doc, "EnvironmentMetrics"));

	rf_set(&j->power_url, pw);
	if (ps != NULL)
		rf_request(j, "GET", ps, NULL, rf_h_psubsys, RF_OPTIONAL, 0);
	else if (pw != NULL)
		rf_request(j, "GET", pw, NULL, rf_h_power, RF_OPTIONAL, 0);
	else
		rf_note(j, "chassis %s has neither PowerSubsystem nor Power",
		    c->path);
	if (j->o->action == REDFISH_POWER) {
		if (ps != NULL && pw != NULL)
			rf_request(j, "GET", pw, NULL, rf_h_power_ctl,
			    RF_OPTIONAL, 0);
		if (env != NULL)
			rf_request(j, "GET", env, NULL, rf_h_env, RF_OPTIONAL,
			    0);
		return;
	}
	if (pd != NULL)
		rf_get_coll(j, pd, rf_h_pcie_dev, RF_OPTIONAL | RF_PCIE_LIST |
		    RF_PCIE_LINK, 0);
}

static void
rf_h_first_chassis(struct rf_job *j, struct rf_call *c, struct http_req *r,
    const struct yml_node *doc, struct yml_doc *ydoc)
{
	const char	*first = rf_path(redfish_first_member(doc));

	if (first != NULL)
		rf_request(j, "GET", first, NULL, rf_h_chassis, RF_OPTIONAL, 0);
	else
		rf_note(j, "%s lists no chassis", c->path);
}

static void
rf_step_inv(struct rf_job *j)
{
	size_t	i;

	j->phase = RF_INV_DONE;
	if (j->o->action == REDFISH_POWER)
		goto chassis;
	if (j->processors != NULL)
		rf_get_coll(j, j->processors, rf_h_proc, RF_OPTIONAL, 0);
	else
		rf_note(j, "system %s has no Processors", j->b->system);
	if (j->memory != NULL)
		rf_get_coll(j, j->memory, rf_h_mem, RF_OPTIONAL, 0);
	else
		rf_note(j, "system %s has no Memory", j->b->system);
	if (j->pcie_coll != NULL)
		rf_get_coll(j, j->pcie_coll, rf_h_pcie_dev,
		    RF_OPTIONAL | RF_PCIE_LIST | RF_PCIE_LINK, 0);
	for (i = 0; i < j->pcie_links.n; i++)
		rf_request(j, "GET", j->pcie_links.v[i], NULL, rf_h_pcie_dev,
		    RF_OPTIONAL | RF_PCIE_LINK, 0);
	if (j->oem_pci != NULL)
		rf_get_coll(j, j->oem_pci, rf_h_oem_pci, RF_OPTIONAL, 0);
chassis:
	if (j->chassis != NULL)
		rf_request(j, "GET", j->chassis, NULL, rf_h_chassis,
		    RF_OPTIONAL, 0);
	else if (j->chassis_coll != NULL)
		rf_request(j, "GET", j->chassis_coll, NULL, rf_h_first_chassis,
		    RF_OPTIONAL, 0);
	else
		rf_note(j, "no chassis: power supplies unknown");
}

static void
rf_step_inv_done(struct rf_job *j)
{
	struct redfish_inv	*inv = &j->b->inv;
	struct buf		 b = BUF_INIT;
	size_t			 i;

	j->phase = RF_LOGOUT;
	for (i = 0; i < j->npcie; i++)
		redfish_inv_add_pcie(inv, j->pcie[i].dev, j->pcie[i].fns);
	redfish_inv_finish(inv);
	if (j->o->action == REDFISH_POWER) {
		redfish_power_summary(&b, inv);
		rf_ok(j, "%s", b.buf);
		buf_release(&b);
		return;
	}
	if (inv->cpus < 0 && isnan(inv->mem_gib) && inv->psus < 0) {
		rf_fail(j, PROV_E_HTTP, NULL, "no inventory could be read%s%s",
		    inv->notes.n ? ": " : "", inv->notes.n ? inv->notes.v[0] :
		    "");
		return;
	}
	redfish_inv_summary(&b, inv);
	rf_ok(j, "%s", b.buf);
	buf_release(&b);
}

/* --- rack PDUs ------------------------------------------------------- */

static void
rf_h_equipment(struct rf_job *j, struct rf_call *c, struct http_req *r,
    const struct yml_node *doc, struct yml_doc *ydoc)
{
	rf_set(&j->rackpdus, rf_path(redfish_link(doc, "RackPDUs")));
}

static void
rf_h_pdu_metrics(struct rf_job *j, struct rf_call *c, struct http_req *r,
    const struct yml_node *doc, struct yml_doc *ydoc)
{
	redfish_pdu_add_metrics(&j->b->pdu, doc);
}

static void
rf_h_pdu_circuit(struct rf_job *j, struct rf_call *c, struct http_req *r,
    const struct yml_node *doc, struct yml_doc *ydoc)
{
	redfish_pdu_add_circuit(&j->b->pdu, doc);
}

static void
rf_h_pdu_outlet(struct rf_job *j, struct rf_call *c, struct http_req *r,
    const struct yml_node *doc, struct yml_doc *ydoc)
{
	redfish_pdu_add_outlet(&j->b->pdu, doc);
}

/* A PowerDistribution: its Metrics, Mains, Branches and Outlets. */
static void
rf_h_pdu(struct rf_job *j, struct rf_call *c, struct http_req *r,
    const struct yml_node *doc, struct yml_doc *ydoc)
{
	static const struct {
		const char	*key;
		rf_fn		 fn;
	} parts[] = {
		{ "Mains", rf_h_pdu_circuit },
		{ "Branches", rf_h_pdu_circuit },
		{ "Outlets", rf_h_pdu_outlet },
	};
	const char	*m = rf_path(redfish_link(doc, "Metrics"));
	size_t		 i;

	if (m != NULL)
		rf_request(j, "GET", m, NULL, rf_h_pdu_metrics, RF_OPTIONAL,
		    0);
	for (i = 0; i < ARRAY_SIZE(parts); i++) {
		const char	*l = rf_path(redfish_link(doc, parts[i].key));

		if (l != NULL)
			rf_get_coll(j, l, parts[i].fn, RF_OPTIONAL, 0);
	}
}

/* --- the machine ------------------------------------------------------ */

static void
rf_h_logout(struct rf_job *j, struct rf_call *c, struct http_req *r,
    const struct yml_node *unused, struct yml_doc *unused2)
{
	if (r->status < 200 || r->status > 299)
		rf_note(j, "DELETE %s: %ld (session not closed)", c->path,
		    r->status);
}

static void
rf_login_body(struct buf *body, const struct redfish_bmc *b)
{
	struct json_writer	jw;

	/* Sized once: a buf that grows leaves password copies behind. */
	buf_grow(body, 64 + 6 * (strlen(b->user) + strlen(b->password)));
	json_init(&jw, body);
	json_object_begin(&jw, NULL, 0);
	json_str(&jw, "UserName", b->user);
	json_str(&jw, "Password", b->password);
	json_end(&jw);
}

/*
 * One step of a BMC's dialogue: a switch over its phases, each issuing
 * the next request (its handler sets the phase after).  Long because the
 * dialogue is long; every case is a few lines and reads in order.
 */
static void
rf_step(struct rf_job *j)
{
	struct buf	body = BUF_INIT;

	switch (j->phase) {
	case RF_ROOT:
		j->phase = RF_LOGIN;
		rf_request(j, "GET", REDFISH_ROOT, NULL, rf_h_root, 0, 0);
		break;
	case RF_LOGIN:
		j->phase = RF_SYSTEMS;
		if (j->o->basic_auth || j->sessions == NULL) {
			j->basic = 1;
			j->b->auth = "basic";
			j->b->auth_why = j->o->basic_auth ? "--basic-auth" :
			    "the service has no SessionService";
			break;
		}
		rf_login_body(&body, j->b);
		rf_request(j, "POST", j->sessions, &body, rf_h_login,
		    RF_RAW, 0);
		break;
	case RF_SYSTEMS:
		if (j->b->ppdu != NULL) {
			j->phase = RF_PDU_LIST;
			rf_request(j, "GET", j->equipment, NULL, rf_h_equipment,
			    0, 0);
			break;
		}
		j->phase = RF_SYSTEM_PICK;
		rf_request(j, "GET", j->systems, NULL, rf_h_systems, 0, 0);
		break;
	case RF_PDU_LIST:
		if (j->rackpdus == NULL) {
			rf_fail(j, PROV_E_PARSE, NULL, "%s lists no RackPDUs",
			    j->equipment);
			break;
		}
		j->phase = RF_SYSTEM_PICK;
		rf_request(j, "GET", j->rackpdus, NULL, rf_h_systems, 0, 0);
		break;
	case RF_PDU:
		j->phase = RF_PDU_DONE;
		rf_request(j, "GET", j->b->system, NULL, rf_h_pdu, 0, 0);
		break;
	case RF_PDU_DONE: {
		struct buf	sum = BUF_INIT;

		j->phase = RF_LOGOUT;
		rf_set(&j->b->pdu.id, j->b->system_id);
		redfish_pdu_summary(&sum, &j->b->pdu);
		rf_ok(j, "%s", sum.buf);
		buf_release(&sum);
		break;
	}
	case RF_SYSTEM_PICK:
		rf_step_pick_system(j);
		break;
	case RF_SYSTEM:
		/* the handler picks the next phase by action */
		j->phase = RF_LOGOUT;
		rf_request(j, "GET", j->b->system, NULL, rf_h_system, 0, 0);
		break;
	case RF_ACTION_INFO:
		j->phase = RF_RESET;
		rf_request(j, "GET", j->action_info, NULL, rf_h_action_info,
		    RF_OPTIONAL, 0);
		break;
	case RF_RESET:
		rf_step_reset(j);
		break;
	case RF_TASK:
		if (http_now_ms() > j->deadline) {
			rf_fail(j, PROV_E_TIMEOUT, "see --wait", "task %s did "
			    "not finish within %ld s", j->task,
			    j->o->wait_ms / 1000);
			break;
		}
		rf_request(j, "GET", j->task, NULL, rf_h_task,
		    RF_RAW | RF_IDEMPOTENT, j->task_delay_ms);
		break;
	case RF_WAIT_POWER:
		if (j->polls > 0 && http_now_ms() > j->deadline) {
			rf_fail(j, PROV_E_TIMEOUT, "see --wait", "PowerState "
			    "is %s %ld s after %s (waiting for %s)",
			    j->b->power ? j->b->power : "unknown",
			    j->o->wait_ms / 1000,
			    j->reset_sent, j->want_power);
			break;
		}
		rf_request(j, "GET", j->b->system, NULL, rf_h_wait_power, 0,
		    j->polls++ == 0 ? 0 : j->o->poll_ms);
		break;
	case RF_BOOT:
		rf_step_boot(j);
		break;
	case RF_BOOT_VERIFY:
		j->phase = RF_LOGOUT;
		rf_request(j, "GET", j->b->system, NULL, rf_h_boot_verify, 0,
		    0);
		break;
	case RF_MEDIA_FIND:
		if (j->vm_coll != NULL)
			j->phase = RF_MEDIA_COLL;
		else if (j->manager != NULL)
			j->phase = RF_MEDIA_MGR;
		else if (j->managers != NULL) {
			j->phase = RF_MEDIA_MGR;
			rf_request(j, "GET", j->managers, NULL,
			    rf_h_first_manager, 0, 0);
		} else
			rf_fail(j, PROV_E_HTTP, NULL, "the BMC has no virtual "
			    "media: system %s links no VirtualMedia and the "
			    "service lists no Managers", j->b->system);
		break;
	case RF_MEDIA_MGR:
		if (j->manager == NULL) {
			rf_fail(j, PROV_E_HTTP, NULL, "the BMC has no virtual "
			    "media: system %s links no VirtualMedia and %s "
			    "lists no manager", j->b->system, j->managers);
			break;
		}
		j->phase = RF_MEDIA_COLL;
		rf_request(j, "GET", j->manager, NULL, rf_h_manager, 0, 0);
		break;
	case RF_MEDIA_COLL:
		j->phase = RF_MEDIA_ACT;
		j->media_idx = -1;
		rf_get_coll(j, j->vm_coll, rf_h_media_member, 0, 0);
		break;
	case RF_MEDIA_ACT:
		rf_step_media_act(j);
		break;
	case RF_MEDIA_INSERT:
		rf_step_media_insert(j);
		break;
	case RF_MEDIA_VERIFY:
		j->phase = RF_LOGOUT;
		rf_request(j, "GET", j->media_id, NULL, rf_h_media_verify, 0,
		    0);
		break;
	case RF_INV:
		rf_step_inv(j);
		break;
	case RF_INV_DONE:
		rf_step_inv_done(j);
		break;
	case RF_LOGOUT:
		j->phase = RF_DONE;
		if (j->session != NULL)
			rf_request(j, "DELETE", j->session, NULL, rf_h_logout,
			    RF_RAW | RF_CLEANUP | RF_IDEMPOTENT, 0);
		break;
	case RF_DONE:
		break;
	}
	buf_release_secret(&body);
}

static void
rf_advance(struct rf_job *j)
{
	while (j->pending == 0 && j->phase != RF_DONE) {
		enum rf_phase	before;

		if (j->failed && j->phase < RF_LOGOUT)
			j->phase = RF_LOGOUT;
		before = j->phase;
		rf_step(j);
		if (j->pending == 0 && j->phase == before && !j->failed) {
			rf_fail(j, PROV_E_STATE, NULL, "internal error: stuck "
			    "in phase %d", (int)before);
			j->phase = RF_DONE;
		}
	}
}

static void
rf_job_release(struct rf_job *j)
{
	size_t	i;

	free(j->base);
	freezero_str(j->token);
	free(j->session);
	free(j->systems);
	free(j->managers);
	free(j->chassis_coll);
	free(j->sessions);
	free(j->etag);
	free(j->reset_target);
	free(j->action_info);
	strvec_clear(&j->reset_allowed);
	strvec_clear(&j->boot_allowed);
	strvec_clear(&j->boot_en_allowed);
	strvec_clear(&j->sys_paths);
	strvec_clear(&j->sys_ids);
	strvec_clear(&j->sys_types);
	free(j->oem_pci);
	free(j->equipment);
	free(j->rackpdus);
	free(j->media_name);
	free(j->vm_coll);
	free(j->manager);
	free(j->chassis);
	free(j->processors);
	free(j->memory);
	free(j->pcie_coll);
	strvec_clear(&j->pcie_links);
	free(j->was_power);
	free(j->task);
	free(j->media_id);
	free(j->media_insert);
	free(j->media_eject);
	strvec_clear(&j->seen);
	for (i = 0; i < j->npcie; i++)
		free(j->pcie[i].fns);
	free(j->pcie);
	for (i = 0; i < j->nkept; i++)
		yml_doc_release(&j->kept[i]);
	free(j->kept);
	free(j->power_url);
}

void
redfish_bmc_init(struct redfish_bmc *b)
{
	memset(b, 0, sizeof *b);
	b->err = (struct prov_err)PROV_ERR_INIT;
	redfish_inv_init(&b->inv);
	redfish_pdu_init(&b->pdu);
}

void
redfish_bmc_release(struct redfish_bmc *b)
{
	if (b == NULL)
		return;
	freezero_str(b->password);
	free(b->detail);
	prov_err_release(&b->err);
	free(b->power);
	free(b->boot_target);
	free(b->boot_enabled);
	free(b->media_slot);
	free(b->media_image);
	free(b->system);
	free(b->system_id);
	redfish_inv_release(&b->inv);
	redfish_pdu_release(&b->pdu);
	redfish_bmc_init(b);
}

int
redfish_run(struct redfish_bmc *v, size_t n, const struct redfish_opts *o,
    struct prov_err *err)
{
	struct http_opts	 ho = HTTP_OPTS_INIT;
	struct http		*h;
	struct rf_job		*jobs;
	size_t			 i;
	int			 r;

	ho.connect_timeout_ms = o->connect_timeout_ms;
	ho.timeout_ms = o->timeout_ms;
	ho.retries = o->retries;
	ho.max_active = o->max_active;
	ho.max_per_group = 4;
	ho.max_body = 4 << 20;
	ho.user_agent = "provision-bmc";
	h = http_new(&ho);
	jobs = xcalloc(n ? n : 1, sizeof *jobs);
	for (i = 0; i < n; i++) {
		struct rf_job		*j = &jobs[i];
		struct redfish_bmc	*b = &v[i];
		int			 v6;

		j->b = b;
		j->o = o;
		j->h = h;
		j->media_idx = -1;
		j->reset_allowed = (struct strvec)STRVEC_INIT;
		j->boot_allowed = (struct strvec)STRVEC_INIT;
		j->boot_en_allowed = (struct strvec)STRVEC_INIT;
		j->sys_paths = (struct strvec)STRVEC_INIT;
		j->sys_ids = (struct strvec)STRVEC_INIT;
		j->sys_types = (struct strvec)STRVEC_INIT;
		j->pcie_links = (struct strvec)STRVEC_INIT;
		j->seen = (struct strvec)STRVEC_INIT;
		if (b->skipped)
			continue;
		if (b->address == NULL || b->user == NULL ||
		    b->password == NULL) {
			b->skipped = 1;
			prov_err_set(&b->err, PROV_E_PLAN, "the bmc entry "
			    "needs an address, a user and a password");
			continue;
		}
		/* An IPv6 address goes in brackets, unless it has them. */
		v6 = strchr(b->address, ':') != NULL && b->address[0] != '[';
		if (b->port > 0 && b->port != 443)
			j->base = xasprintf(v6 ? "https://[%s]:%ld" :
			    "https://%s:%ld", b->address, b->port);
		else
			j->base = xasprintf(v6 ? "https://[%s]" : "https://%s",
			    b->address);
		rf_advance(j);
	}
	r = http_run(h, err);
	for (i = 0; i < n; i++) {
		if (!v[i].skipped && !v[i].ok && v[i].err.msg == NULL)
			prov_err_set(&v[i].err, PROV_E_STATE, "the dialogue "
			    "with the BMC did not finish");
		rf_job_release(&jobs[i]);
	}
	free(jobs);
	http_free(h);
	return r;
}

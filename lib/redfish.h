/*
 * redfish.h: talk to BMCs over Redfish: power, boot override, virtual
 * media and inventory, all BMCs at once.
 *
 * One `struct redfish_bmc` per BMC (address, user, password, TLS
 * settings) comes from the plan (redfish_bmcs_from_plan()) or is filled
 * by the caller; the caller picks an action in `struct redfish_opts` and
 * calls redfish_run(), which drives every BMC through its dialogue in one
 * http.h loop and fills each BMC's result:
 *
 *	redfish_bmcs_from_plan(&v, &n, plan, "gpu[01-04]", &err);
 *	struct redfish_opts o = REDFISH_OPTS_INIT;
 *	o.action = REDFISH_ON;
 *	redfish_run(v, n, &o, &err);	(-1 only when the loop broke)
 *	v[i].ok, v[i].detail, v[i].err ...
 *	redfish_compare(&rows, node, &v[i].inv, catalog);   (inventory)
 *	redfish_bmc_release(&v[i]);	(wipes the password)
 *
 * Every dialogue starts at the service root (/redfish/v1) and follows
 * @odata.id links: Systems -> the system (the plan's `bmc.system`, an id
 * or an index from 1; else the only one that is not a DPU), its
 * Links.Chassis and Links.ManagedBy; no id is assumed.  It logs in with
 * a session (POST SessionService/Sessions; any 2xx answer with an
 * X-Auth-Token is one, DELETEd at the end) and uses basic auth only when
 * asked or when the service root lists no SessionService; `auth` and
 * `auth_why` say which and why.
 * Actions answered 202 Accepted are followed through their task monitor
 * (Location) until done; power actions then wait for the PowerState.
 * A failed BMC is a result (ok = 0, err says why), never an error return.
 *
 * The parsing helpers below are pure functions over a JSON document (read
 * with yml.h: JSON is YAML) so they can be tested against mockup files.
 * Passwords are never printed, logged or put in URLs; redfish_bmc_release()
 * wipes them.
 */
#ifndef PROV_REDFISH_H
#define PROV_REDFISH_H

#include <stddef.h>

#include "buf.h"
#include "err.h"
#include "strvec.h"

struct catalog;
struct json_writer;
struct plan;
struct plan_bmc;
struct plan_node;
struct rows;
struct yml_doc;
struct yml_node;

enum redfish_action {
	REDFISH_STATUS = 0,
	REDFISH_ON,
	REDFISH_OFF,
	REDFISH_CYCLE,
	REDFISH_RESET,
	REDFISH_BOOT,
	REDFISH_MEDIA_INSERT,
	REDFISH_MEDIA_EJECT,
	REDFISH_INVENTORY,
	REDFISH_POWER,
};

struct redfish_opts {
	enum redfish_action	 action;
	const char		*boot;		/* "Pxe" "Cd" "Hdd" */
	int			 once;		/* Once, else Continuous */
	int			 graceful;	/* Graceful{Shutdown,Restart} */
	const char		*media_url;	/* REDFISH_MEDIA_INSERT */
	int			 basic_auth;	/* never make a session */
	long			 connect_timeout_ms;
	long			 timeout_ms;	/* one request */
	long			 wait_ms;	/* a task or a power state */
	long			 poll_ms;	/* between polls */
	int			 retries;	/* on connection failures */
	size_t			 max_active;	/* in flight, all BMCs */
};

#define REDFISH_OPTS_INIT { REDFISH_STATUS, NULL, 0, 0, NULL, 0, 10000, \
	60000, 300000, 1000, 2, 128 }

/* One input range of a supply: `watts` out at volts_min..volts_max AC. */
struct redfish_psu_range {
	double		 volts_min, volts_max, watts;
};

/* What the BMC reports about its hardware; -1 / NAN: it did not say. */
struct redfish_inv {
	long		 cpus;		/* Processors of type CPU */
	char		*cpu_model;	/* the first CPU's Model */
	long		 cpu_cores;	/* TotalCores summed */
	double		 mem_gib;	/* CapacityMiB summed, or summary */
	long		 dimms;		/* modules with a capacity */
	long		 gpus;		/* the largest certain count; -1 */
	long		 gpus_by_proc;
	long		 gpus_by_pcie;	/* -1: none listed, or unreadable */
	long		 gpus_by_oem;	/* vendor GPU lists (HPE); -1: none */
	long		 pcie_devices;
	long		 pcie_unreadable;	/* device or function links */
	long		 gpus_seen;	/* GPUs among the readable devices */
	char		*gpus_why;	/* why gpus is -1 */
	struct strvec	 gpu_pci_ids;	/* "10de:2330" per PCIe GPU */
	struct strvec	 oem_pci_ids;	/* the same from a vendor's list */
	char		*gpu_model;	/* a GPU's Model or Name */
	long		 psus;
	double		 psu_watts_min, psu_watts_max;	/* PowerCapacityWatts */
	char		*psu_source;	/* "PowerSubsystem" or "Power" */
	char		*psu_plug;	/* PlugType: "IEC_60320_C14"; NULL */
	int		 psu_plugs_differ;	/* not every PSU's is psu_plug */
	/* the AC InputRanges of the first PSU that lists any */
	struct redfish_psu_range *psu_ranges;
	size_t		 npsu_ranges, psu_ranges_alloc;
	/* "1+1": MinNeeded of a redundancy group of every PSU; NULL */
	char		*psu_redundancy;
	long		 psu_group, psu_needed;	/* as the BMC said; -1 */
	/* REDFISH_POWER: what the chassis measures now; NAN: not said */
	double		 watts;		/* PowerConsumedWatts or the sum */
	char		*watts_source;	/* which resource said it */
	double		 psu_volts_min, psu_volts_max;	/* input voltage */
	double		 psu_input_watts;	/* summed PSU input power */
	double		 watts_env, watts_ctl;	/* as read, for _finish */
	struct strvec	 notes;		/* what could not be read, and why */
	/* the system's ProcessorSummary and MemorySummary, as fallbacks */
	long		 sum_cpus;
	char		*sum_cpu_model;
	double		 sum_mem_gib;
};

/* A branch circuit of a rack PDU. */
struct redfish_branch {
	char		*id;
	double		 amps, rated_amps;	/* NAN: not said */
};

/* What a rack PDU (PowerDistribution) measures; NAN / -1: not said. */
struct redfish_pdu {
	char			*id;		/* its Id: "1" */
	double			 watts;		/* Metrics, else Mains */
	double			 mains_watts;	/* summed PowerWatts */
	double			 volts;		/* a mains voltage */
	long			 mains;
	long			 outlets, outlets_on;
	double			 outlets_watts;
	struct redfish_branch	*branches;
	size_t			 nbranches;
};

void	redfish_pdu_init(struct redfish_pdu *);
void	redfish_pdu_release(struct redfish_pdu *);
/* Add what one resource says: Metrics, a mains or branch Circuit, an Outlet. */
void	redfish_pdu_add_metrics(struct redfish_pdu *, const struct yml_node *);
void	redfish_pdu_add_circuit(struct redfish_pdu *, const struct yml_node *);
void	redfish_pdu_add_outlet(struct redfish_pdu *, const struct yml_node *);
/* One line: "6438 W, 1 mains at 202.8 V, 2 branches, 11 outlets (9 on)". */
void	redfish_pdu_summary(struct buf *, const struct redfish_pdu *);

/* One BMC: the caller fills the first part; redfish_run() the rest. */
struct redfish_bmc {
	const char		*node;		/* borrowed, for messages */
	const struct plan_node	*pn;		/* borrowed: its plan node */
	const char		*address;	/* borrowed: host or IP */
	long			 port;		/* 0: 443 */
	const char		*user;		/* borrowed */
	char			*password;	/* owned; wiped by release */
	const char		*ca_file;	/* borrowed; NULL: system CAs */
	int			 insecure;	/* TLS not verified */

	int			 ok;
	int			 skipped;	/* not run: err says why */
	char			*detail;	/* "On", "Off (was On)" ... */
	struct prov_err		 err;		/* why it failed */
	char			*power;		/* PowerState last read */
	char			*boot_target;	/* BootSourceOverrideTarget */
	char			*boot_enabled;	/* BootSourceOverrideEnabled */
	char			*media_slot;	/* path of the CD/DVD slot */
	char			*media_image;	/* its Image */
	const char		*want_system;	/* borrowed: plan's bmc.system */
	const struct plan_rack	*rack;		/* a rack PDU's service: */
	const struct plan_pdu	*ppdu;		/* then no node; pdu is read */
	char			*system;	/* @odata.id of the system */
	char			*system_id;	/* its id, when of several */
	const char		*auth;		/* "session" or "basic" */
	const char		*auth_why;	/* basic: "--basic-auth" ... */
	struct redfish_inv	 inv;		/* REDFISH_INVENTORY */
	struct redfish_pdu	 pdu;		/* REDFISH_POWER of a PDU */
	long			 requests;	/* HTTP requests made */
};

void	redfish_bmc_init(struct redfish_bmc *);
void	redfish_bmc_release(struct redfish_bmc *);
void	redfish_inv_init(struct redfish_inv *);
void	redfish_inv_release(struct redfish_inv *);

/*
 * The password of a plan's BMC: the environment variable `password_env`
 * when it is set, else the first line of `password_file`.  *out is owned
 * by the caller, who wipes it (freezero_str).  -1 with PROV_E_AUTH when
 * neither gives a non-empty password.
 */
int	redfish_password_load(char **out, const struct plan_bmc *,
	    struct prov_err *err);

/*
 * The BMCs of the plan: of the nodes of hostlist `nodes`, or (NULL) of
 * every node with a `bmc:` entry.  *out (n entries, the caller releases
 * each and frees the array) borrows from the plan; a node without a bmc
 * entry, or whose entry has no user or password, is `skipped`, its err
 * saying why.  *n may be 0.  -1 with err when `nodes` names no node.
 */
int	redfish_bmcs_from_plan(struct redfish_bmc **out, size_t *n,
	    const struct plan *, const char *nodes, struct prov_err *err);

/*
 * The rack PDUs that name their own Redfish service, of the racks that
 * hold a node of `nodes` (NULL: of every rack): entries with `rack` and
 * `ppdu` set (node NULL), `want_system` its `pdu:` id.  For REDFISH_POWER
 * only: they read PowerEquipment/RackPDUs instead of a system.  *n may be
 * 0; -1 with err when `nodes` names no node.
 */
int	redfish_pdus_from_plan(struct redfish_bmc **out, size_t *n,
	    const struct plan *, const char *nodes, struct prov_err *err);

/*
 * Run `o->action` on every BMC at once.  Each BMC's result is in its own
 * struct; -1 only when the request loop itself failed.
 */
int	redfish_run(struct redfish_bmc *, size_t n, const struct redfish_opts *,
	    struct prov_err *err);

/* Name of an action: "status", "on", "media insert" ... */
const char	*redfish_action_name(enum redfish_action);

/* --- pure helpers (JSON documents read with yml.h) --- */

/* Answers are read with yml_load_json() (yml.h). */
/* The string at key `k`, NULL when absent, null or not a string (borrowed). */
const char	*redfish_str(const struct yml_node *, const char *k);
/* The number at key `k`, or NAN. */
double		 redfish_num(const struct yml_node *, const char *k);
/* The @odata.id of the link at key `k` ({"@odata.id": ...}), or NULL. */
const char	*redfish_link(const struct yml_node *, const char *k);
/* The first member's @odata.id of a collection, or NULL. */
const char	*redfish_first_member(const struct yml_node *coll);
/*
 * The message of a Redfish error body: the first @Message.ExtendedInfo
 * Message, else error.message, else NULL.  Borrowed from the doc.
 */
const char	*redfish_error_message(const struct yml_node *);
/*
 * Which ResetType to send for an action, given the allowed values (empty:
 * anything) and the current PowerState; NULL with *why set when none of
 * the allowed values fits.  "" means nothing to do (already there).
 */
const char	*redfish_reset_type(enum redfish_action, int graceful,
		    const struct strvec *allowed, const char *power,
		    const char **why);
/*
 * BootSourceOverrideEnabled to send, given its @Redfish.AllowableValues
 * (empty: anything): "Once" for --once, else "Continuous", or "Once" where
 * only that is allowed; NULL with *why when nothing fits.
 */
const char	*redfish_boot_enabled(int once, const struct strvec *allowed,
		    const char **why);
/* 1 when a VirtualMedia resource takes CDs or DVDs (MediaTypes). */
int		 redfish_media_is_cd(const struct yml_node *);
/*
 * How well a VirtualMedia slot serves a CD image: 3 its MediaTypes name
 * CD or DVD; 2 it has no MediaTypes (AMI MegaRAC) but an InsertMedia
 * action and a name with "CD" or "DVD"; 1 the same without such a name;
 * 0 it takes no CD (MediaTypes without CD/DVD, or nothing to insert with).
 */
int		 redfish_media_rank(const struct yml_node *);
/*
 * A PCI id or class code as the schema writes it ("0x10de") and as
 * vendors do: iLO's decimal strings ("4318") and numbers, bare hex with a
 * letter ("10de") or a leading zero ("030200").  -1 when it is none of
 * these or above `max`.
 */
long		 redfish_pci_num(const struct yml_node *, const char *k,
		    long max);
/*
 * The id a URI names: its last segment, trailing '/' ignored (iLO writes
 * "/redfish/v1/Systems/1/").  Owned by the caller.
 */
char		*redfish_uri_id(const char *uri);
/*
 * Which member of a Systems collection is the node's system.  `ids` are
 * the members' ids, `types` their SystemType (NULL entries: unknown);
 * `want` the plan's bmc.system (NULL: none).  The index, or -1 with *why
 * (owned by the caller) listing the ids.  Without `want`, the one system
 * that is not a DPU; more than one is ambiguous.
 */
long		 redfish_pick_system(const struct strvec *ids,
		    const struct strvec *types, const char *want, char **why);
/* Add what one resource says to an inventory (any order, any count). */
void		 redfish_inv_add_system(struct redfish_inv *,
		    const struct yml_node *system);
void		 redfish_inv_add_processor(struct redfish_inv *,
		    const struct yml_node *);
void		 redfish_inv_add_memory(struct redfish_inv *,
		    const struct yml_node *);
/*
 * A supply (PowerSupply, or an item of Power's PowerSupplies): counted
 * unless absent, with its PowerCapacityWatts, PlugType and AC
 * InputRanges (NominalVoltageType "AC200To240V", "AC120V" with
 * CapacityWatts; or Power's MinimumVoltage, MaximumVoltage and
 * OutputWattage; DC ranges are left out).
 */
void		 redfish_inv_add_psu(struct redfish_inv *,
		    const struct yml_node *, const char *source);
/*
 * The supplies' redundancy group: PowerSubsystem's PowerSupplyRedundancy
 * (MinNeededInGroup, RedundancyGroup) or Power's Redundancy
 * (MinNumNeeded, RedundancySet).  psu_redundancy is set by
 * redfish_inv_finish() when the group holds every installed PSU.
 */
void		 redfish_inv_add_psu_redundancy(struct redfish_inv *,
		    const struct yml_node *doc);
/*
 * The catalog's inlet (catalog.h: "C14", "C20" ...) of a Redfish PlugType
 * ("IEC_60320_C14"), or NULL when it names none of them.
 */
const char	*redfish_plug_inlet(const char *plug);
/*
 * A PCIe device with its functions (NULL-terminated, may be empty):
 * counted as a GPU when a function is a display or 3D controller or a
 * processing accelerator of a GPU vendor.
 */
void		 redfish_inv_add_pcie(struct redfish_inv *,
		    const struct yml_node *device,
		    const struct yml_node *const *functions);
/*
 * A device of a vendor's own PCI list (HPE iLO 5's HpeServerPciDevice:
 * VendorID, DeviceID, ClassCode, SubclassCode, all numbers).
 */
void		 redfish_inv_add_oem_pci(struct redfish_inv *,
		    const struct yml_node *);
/* Power readings: a PowerSupply (with its Metrics), a Power, a chassis. */
void		 redfish_inv_add_psu_metrics(struct redfish_inv *,
		    const struct yml_node *metrics);
void		 redfish_inv_add_power_readings(struct redfish_inv *,
		    const struct yml_node *power);
void		 redfish_inv_add_env_metrics(struct redfish_inv *,
		    const struct yml_node *env);
/* Settle the totals once every resource was added. */
void		 redfish_inv_finish(struct redfish_inv *);
/* One line: "2 CPUs, 96 GiB, 0 GPUs, 2 PSUs x 400 W". */
void		 redfish_inv_summary(struct buf *, const struct redfish_inv *);
/* One line: "937 W (PSU input), 2 PSUs at 230 V", "no power reading". */
void		 redfish_power_summary(struct buf *, const struct redfish_inv *);
/* The inventory as an object value at `key`. */
void		 redfish_inv_to_json(struct json_writer *, const char *key,
		    const struct redfish_inv *);

/* Memory may read this far from the plan before it is drift. */
#define REDFISH_MEM_SLACK	0.05

/*
 * Drift of a BMC's inventory against the plan: append rows (row.h,
 * subject the node) for CPU model and count, memory total, GPU count (and
 * model by catalog PCI ids when known), PSU count and watts.  What the plan
 * does not say, or the BMC did not report, is a skip row with its reason.
 */
void		 redfish_compare(struct rows *,
		    const struct plan_node *, const struct redfish_inv *,
		    const struct catalog *);

/*
 * REDFISH_POWER: one "draw" row (group "power", subject the node) of the
 * watts the BMC measures against check_hw_draw_w() of the node's
 * hardware: ok at or below the model (the hint says how far), warn above
 * it with both numbers, skip when either is unknown.
 */
void		 redfish_compare_power(struct rows *, const struct plan *,
		    const struct plan_node *, const struct redfish_inv *);
/*
 * The rack PDUs of one feed (each pdu[i] read from ppdu[i], NULL when it
 * has no Redfish or could not be read) against the feed's derated limit
 * (V x A, x sqrt(3) three-phase, x derate, as check sums it), beside the
 * full-load draw modelled for the rack's nodes: a "feed draw" row, warn
 * above the limit; a "branch" row per branch circuit above its rating.
 */
void		 redfish_compare_feed(struct rows *, const struct plan *,
		    const struct plan_rack *, const char *feed,
		    const struct redfish_pdu *const *pdu);

/*
 * The rows of `provision bmc PLAN power --json` (each node's "draw", each
 * feed's "feed draw" and "branch" rows) back, for the report.  -1 with
 * err when the text is not that output.
 */
int		 redfish_power_from_json(struct rows *out, const char *label,
		    const char *text, size_t len, struct prov_err *err);

#endif

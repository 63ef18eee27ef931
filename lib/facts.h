/*
 * facts.h: what a node really has (OS, CPUs, memory, PCI devices with
 * their links, GPUs, NICs, InfiniBand ports, disks), read from the text
 * that standard tools and files print, and its drift from the plan.
 *
 * Every parser is a pure function over text: it adds what it reads to a
 * `struct facts` and returns 0, or -1 with a PROV_E_PARSE error when the
 * text is not what the tool prints.  The same parsers serve both ways of
 * gathering: hw.h reads this machine, and facts_script() is one shell
 * script that prints every raw output of a remote node in delimited
 * sections for facts_parse_script().
 *
 *	struct facts *f = facts_new();
 *	facts_parse_meminfo(f, text, &err);	(any parsers, any order)
 *	facts_finish(f, catalog);		(GPUs from PCI, catalog names)
 *	facts_to_json(&b, f);
 *	facts_compare(&rows, plan, node, f);	(drift rows)
 *	facts_free(f);
 *
 * Unknown numbers are -1 (JSON null); unknown strings are NULL.  Every
 * string in a `struct facts` is owned by it; facts_free() frees them.
 */
#ifndef PROV_FACTS_H
#define PROV_FACTS_H

#include <stddef.h>

#include "buf.h"
#include "err.h"
#include "strvec.h"

struct catalog;
struct rows;
struct plan;
struct plan_node;

/* A PCIe link: speeds in GT/s (2.5, 5, 8, 16, 32, 64), widths in lanes. */
struct facts_link {
	double		 speed, max_speed;	/* -1: unknown */
	long		 width, max_width;	/* -1: unknown; 0: link down */
};

struct facts_pci {
	char		*slot;		/* "0000:3b:00.0" */
	long		 class_id;	/* 0x0302 */
	long		 vendor_id, device_id;
	long		 svendor_id, sdevice_id;
	char		*class_name;	/* "3D controller" */
	char		*vendor_name;	/* "NVIDIA Corporation" */
	char		*device_name;	/* "GH100 [H100 SXM5 80GB]" */
	char		*name_source;	/* "pci.ids" (lspci's too), "catalog" */
	char		*driver;	/* "nvidia" */
	long		 numa_node;	/* -1: unknown or none */
	struct facts_link link;
};

struct facts_gpu {
	long		 index;
	char		*name;		/* "NVIDIA H100 80GB HBM3" */
	char		*bus_id;	/* "0000:3b:00.0", as PCI slots */
	char		*pci_id;	/* "10de:2330" */
	char		*uuid;
	char		*driver_version;
	char		*persistence;	/* "Enabled" "Disabled" */
	char		*mig_mode;	/* "Enabled" "Disabled"; NULL: N/A */
	char		*ecc_mode;	/* "Enabled" "Disabled"; NULL: N/A */
	char		*catalog_id;	/* "h100-sxm5", by PCI id */
	char		*source;	/* "nvidia-smi" or "pci" */
	long		 memory_mib;
	long		 mig_devices;	/* -1: not reported */
	/* PCIe generation (1-6) and width from nvidia-smi, or from PCI */
	long		 gen, max_gen, width, max_width;
};

struct facts_nic {
	char		*name;		/* "enp65s0f0" */
	long		 speed_mbps;	/* -1: unknown or link down */
	long		 mtu;
	char		*state;		/* "up" "down" ... (operstate) */
	char		*mac;
	char		*pci_slot;	/* NULL: not a PCI device */
};

struct facts_ib {
	char		*ca;		/* "mlx5_0" */
	long		 port;
	char		*state;		/* "active" "down" "init" "armed" */
	char		*phys_state;	/* "LinkUp" "Polling" "Disabled" */
	double		 rate_gbps;
	char		*link_layer;	/* "InfiniBand" "Ethernet" */
};

struct facts_disk {
	char		*name;		/* "nvme0n1" */
	long long	 size_bytes;
	int		 rotational;	/* 0, 1, -1: unknown */
	char		*model;
};

struct facts {
	char		*node;		/* host name as the node reports it */
	char		*os_id;		/* "debian" */
	char		*os_version_id;	/* "12" */
	char		*os_pretty;
	char		*kernel;
	char		*cpu_model;
	char		*arch;		/* "x86_64" "aarch64" (uname -m) */
	long		 cpu_sockets, cpu_cores, cpu_threads;
	long long	 mem_kb;	/* MemTotal */
	long long	 hugepages_kb;	/* pinned in huge pages, all sizes */
	struct facts_pci  *pci;
	size_t		   npci, pci_alloc;
	int		   pci_partial;	/* a saved lspci cut by grep or -d */
	struct facts_gpu  *gpus;
	size_t		   ngpus, gpus_alloc;
	struct facts_nic  *nics;
	size_t		   nnics, nics_alloc;
	struct facts_ib	  *ib;
	size_t		   nib, ib_alloc;
	struct facts_disk *disks;
	size_t		   ndisks, disks_alloc;
	/* What could not be found out: "'nvidia-smi' not found" */
	struct strvec	 notes;
};

struct facts	*facts_new(void);
void		 facts_free(struct facts *);
/* Add a note (shown with the facts and saved in the JSON). */
void		 facts_note(struct facts *, const char *fmt, ...)
		    __attribute__((format(printf, 2, 3)));
/* The device in `slot` (as nvidia-smi or lspci spell it), or NULL. */
struct facts_pci *facts_pci_find(const struct facts *, const char *slot);
/* Find or add the device in `slot`. */
struct facts_pci *facts_pci_get(struct facts *, const char *slot);
/*
 * PCI devices that may be GPUs although their ids are unknown (plain
 * lspci whose names pci.ids did not know; class unknown or display):
 * while there are any, a GPU count from the bus is a lower bound.
 */
size_t		 facts_pci_unsure(const struct facts *);
/* "0000:3b:00.0" from "3b:00.0", "00000000:3B:00.0" ...; -1 when not a slot. */
int		 facts_slot_norm(char *out, size_t outsz, const char *slot);
/* PCIe generation of a speed in GT/s (8 -> 3), -1 when unknown; and back. */
long		 facts_gen_of_speed(double gts);
double		 facts_speed_of_gen(long gen);

/*
 * Parsers.  Each adds to f and returns 0, or -1 with PROV_E_PARSE in err
 * when the text is not the tool's output (f may then hold part of it).
 */
/* /etc/os-release: ID, VERSION_ID, PRETTY_NAME (shell quoting undone). */
int	facts_parse_os_release(struct facts *, const char *text,
	    struct prov_err *err);
/*
 * /proc/meminfo: MemTotal, and what huge pages pin (Hugetlb:, or
 * HugePages_Total x Hugepagesize before Linux 4.16).
 */
int	facts_parse_meminfo(struct facts *, const char *text,
	    struct prov_err *err);
/* /proc/cpuinfo (x86 and others): model, sockets, cores, threads. */
int	facts_parse_cpuinfo(struct facts *, const char *text,
	    struct prov_err *err);
/*
 * `lscpu` (LC_ALL=C): fills what cpuinfo left unknown, or overrides;
 * Architecture too.
 */
int	facts_parse_lscpu(struct facts *, const char *text,
	    struct prov_err *err);
/* `lspci -vmm -nn [-D] [-k]`: one device per blank-line separated record. */
int	facts_parse_lspci_vmm(struct facts *, const char *text,
	    struct prov_err *err);
/*
 * `lspci [-nn] [-D] [-vv] [-k]`: a header line per device, and with -vv
 * the LnkCap/LnkSta lines of its PCIe capability (needs root there).
 */
int	facts_parse_lspci(struct facts *, const char *text,
	    struct prov_err *err);
/*
 * facts_script()'s PCI section: per device, tab-separated, from sysfs:
 * slot class vendor device current_link_speed max_link_speed
 * current_link_width max_link_width [driver [numa_node]] (empty fields:
 * unknown; numa_node -1: the platform has no NUMA).
 */
int	facts_parse_pci_sysfs(struct facts *, const char *text,
	    struct prov_err *err);
/*
 * `nvidia-smi --query-gpu=... --format=csv[,noheader][,nounits]`.  With
 * `fields` NULL the first line is the header (units like " [MiB]" are
 * dropped); otherwise `fields` is the comma-separated --query-gpu list.
 * Known columns: index name pci.bus_id pci.device_id uuid memory.total
 * driver_version persistence_mode pcie.link.gen.current
 * pcie.link.gen.max pcie.link.width.current pcie.link.width.max
 * mig.mode.current ecc.mode.current; others are ignored.  GPUs already in f (same bus id, else same index) are
 * completed rather than added twice.
 */
int	facts_parse_nvsmi_csv(struct facts *, const char *text,
	    const char *fields, struct prov_err *err);
/* `nvidia-smi -q -x`: a strict reader of the few elements needed. */
int	facts_parse_nvsmi_xml(struct facts *, const char *text,
	    struct prov_err *err);
/*
 * `nvidia-smi -q` (text): read into the tree `-q -x` would give, so it
 * yields what the XML does (facts_nvsmi_q_tree() serves verify too).
 */
int	facts_parse_nvsmi_q(struct facts *, const char *text,
	    struct prov_err *err);
struct xml_node;
int	facts_nvsmi_q_tree(struct xml_node **out, const char *text,
	    struct prov_err *err);
/* MIG devices listed under a <gpu> element; -1 when none are listed. */
long	facts_nvsmi_mig_count(const struct xml_node *gpu);
/* `nvidia-smi -L`: "GPU 0: NAME (UUID: ...)", MIG lines counted. */
int	facts_parse_nvsmi_list(struct facts *, const char *text,
	    struct prov_err *err);
/*
 * `ibstat`, and `ibstatus` (whose format the sysfs files under
 * /sys/class/infiniband/CA/ports/N/ share): one row per port.
 */
int	facts_parse_ibstat(struct facts *, const char *text,
	    struct prov_err *err);
/* facts_script()'s net section: name speed mtu operstate mac pci_slot. */
int	facts_parse_net(struct facts *, const char *text,
	    struct prov_err *err);
/* facts_script()'s block section: name sectors(512 B) rotational model. */
int	facts_parse_block(struct facts *, const char *text,
	    struct prov_err *err);

/*
 * A saved output of any tool above, told apart by its shape: nvidia-smi
 * -q -x, -q, CSV (with its header) and -L, lspci -vmm and plain or -nn,
 * ibstat and ibstatus, /proc/meminfo, /proc/cpuinfo, lscpu, os-release.
 * *kind says which it was read as (static).  -1 with PROV_E_PARSE naming
 * `label` when the text is none of them or its parser refuses it.
 */
int	facts_parse_any(struct facts *, const char *label, const char *text,
	    const char **kind, struct prov_err *err);

/*
 * The POSIX sh script that prints every raw output of a node, each after
 * a line "@@facts NAME" and followed by "@@rc STATUS".  Runs as any user
 * (link data comes from sysfs), needs only coreutils; lspci, lscpu and
 * nvidia-smi are used where present.  Borrowed, static.
 */
const char	*facts_script(void);
/*
 * Parse the script's whole output.  A section that fails to parse, or a
 * tool that failed, becomes a note; -1 only when `out` is not the
 * script's output at all.
 */
int		 facts_parse_script(struct facts *, const char *out,
		    struct prov_err *err);
/*
 * After parsing: fill GPU link, PCI id and name fields from the matching
 * PCI device; when no nvidia-smi ran, list NVIDIA display and 3D
 * controllers as GPUs (source "pci"); name GPUs and NICs that pci.ids
 * did not know from the catalog's PCI ids (cat may be NULL).
 */
void		 facts_finish(struct facts *, const struct catalog *cat);

/* JSON: one object (see facts.c for the shape); ends in a newline. */
void		 facts_to_json(struct buf *, const struct facts *);
/* Read facts_to_json()'s output back (through yml, which reads JSON). */
int		 facts_from_json(struct facts **out, const char *label,
		    const char *text, size_t len, struct prov_err *err);

/* Memory may read this far below the plan (firmware, kernel reservations). */
#define FACTS_MEM_SLACK		0.05

/*
 * Drift: append the rows (row.h: subject the node, limit what the plan
 * expects, measured what was found) of one node: GPU count and model
 * (catalog PCI ids against the plan's GPU model), PCIe links of GPUs and
 * planned NICs
 * below their capability, memory against the plan (MemTotal may be up to
 * FACTS_MEM_SLACK short), planned NIC cards by PCI id, and the OS.
 * Anything the facts cannot tell is a skip row with its reason.
 */
void		 facts_compare(struct rows *out, const struct plan *,
		    const struct plan_node *, const struct facts *);

/* How facts_gather() reaches the nodes and where it keeps their facts. */
struct facts_gather_opts {
	const char	*dir;		/* save DIR/NODE.json; NULL: do not */
	long		 forks;		/* nodes at once; 0: the plan's */
	const char	*passphrase;	/* for an encrypted identity, or NULL */
	const char	*pci_ids;	/* pci.ids naming the devices; NULL:
					   libpci's */
};

/*
 * The facts of nodes sel[0..n) over SSH (the plan's ssh: section, its
 * jump host included), each saved in o->dir, compared with the plan:
 * their drift rows are appended to `rows`, a node that could not be
 * reached or read is a fail row.  The SSH layer's and pci.ids' remarks go
 * to notes.  -1 with err only when nothing could run.
 */
int		 facts_gather(struct rows *rows, struct strvec *notes,
		    const struct plan *, struct plan_node *const *sel,
		    size_t n, const struct facts_gather_opts *o,
		    struct prov_err *err);
/* The same from the files an earlier run saved in dir (NODE.json). */
void		 facts_load_saved(struct rows *rows, const struct plan *,
		    struct plan_node *const *sel, size_t n, const char *dir);

#endif

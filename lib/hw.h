/*
 * hw.h: the facts of the machine provision runs on, read directly:
 * libpci for the PCI bus (names from pci.ids, links from each device's
 * PCIe capability or sysfs), /proc and /sys for the rest, and nvidia-smi
 * when it is installed.  `provision facts --local` is built on it; the
 * remote path (facts_script() over SSH) fills the same `struct facts`
 * through the same parsers.
 *
 *	struct hw_opts o = HW_OPTS_INIT;
 *	struct facts *f;
 *	if (hw_gather(&f, catalog, &o, &err) != 0)
 *		... could not read the machine at all ...
 *	facts_free(f);
 *
 * libpci ends the process on errors by default; hw installs its own
 * handlers before the first pci_* call and turns every libpci error into
 * a -1 return with the library's message (a longjmp back to the hw_
 * function that called libpci).  Parts that cannot be read (no
 * nvidia-smi, no pci.ids) are notes in the facts, not errors.
 */
#ifndef PROV_HW_H
#define PROV_HW_H

#include <stddef.h>

#include "err.h"

struct catalog;
struct facts;

struct hw_opts {
	const char	*pci_sysfs;	/* "sysfs.path"; NULL: /sys/bus/pci */
	const char	*pci_ids;	/* pci.ids file; NULL: libpci's */
	const char	*nvidia_smi;	/* NULL: "nvidia-smi"; "": none */
	int		 timeout_s;	/* for nvidia-smi; 0: 60 */
};

#define HW_OPTS_INIT { NULL, NULL, NULL, 0 }

/*
 * Add every PCI device of this machine to f: slot, class, ids, names
 * from pci.ids (NULL where pci.ids does not know the device), driver,
 * and the PCIe link (current and maximum speed and width).  -1 with
 * libpci's message when libpci fails; f may then hold some devices.
 */
int	hw_pci_scan(struct facts *f, const struct hw_opts *,
	    struct prov_err *err);
/*
 * Fill names that the PCI devices of n facts lack (lspci on a node may be
 * missing or older) from the pci.ids of this machine, read once for all.
 * -1 on a libpci error (a pci.ids it cannot parse).
 */
int	hw_pci_names(struct facts *const *fs, size_t n, const struct hw_opts *,
	    struct prov_err *err);
/*
 * Everything about this machine: OS, kernel, CPUs, memory, PCI, GPUs
 * (nvidia-smi), NICs, InfiniBand ports, disks; then facts_finish() with
 * `cat` (may be NULL) to name GPUs newer than pci.ids.  -1 only when the
 * PCI bus cannot be read; *out is set on success.
 */
int	hw_gather(struct facts **out, const struct catalog *cat,
	    const struct hw_opts *, struct prov_err *err);

#endif

/*
 * test_hw.c: lib/hw.c on this machine: libpci finds the PCI devices
 * sysfs lists, with names from the installed pci.ids; libpci's errors
 * come back as -1 and notes instead of ending the process (Check runs
 * each test in a child: an exit(1) inside libpci would fail the test);
 * GPUs that pci.ids does not know are named from the catalog; the rest
 * of hw_gather() agrees with /proc and uname.
 */
#include "compat.h"

#include <dirent.h>
#include <sys/stat.h>
#include <sys/utsname.h>

#include "buf.h"
#include "catalog.h"
#include "facts.h"
#include "hw.h"
#include "strvec.h"
#include "test.h"

/* Entries in /sys/bus/pci/devices: what the kernel sees. */
static size_t
sysfs_pci_count(void)
{
	DIR		*d = opendir("/sys/bus/pci/devices");
	struct dirent	*e;
	size_t		 n = 0;

	if (d == NULL)
		return 0;
	while ((e = readdir(d)) != NULL)
		n += e->d_name[0] != '.';
	closedir(d);
	return n;
}

START_TEST(test_scan_here)
{
	struct hw_opts	 o = HW_OPTS_INIT;
	struct prov_err	 err = PROV_ERR_INIT;
	struct facts	*f = facts_new();
	size_t		 i, named = 0, n = sysfs_pci_count();
	char		 path[PATH_MAX];

	ck_assert_msg(n > 0, "no PCI devices in sysfs: cannot test libpci");
	ck_assert_ok(hw_pci_scan(f, &o, &err), &err);
	ck_assert_int_eq(f->npci, n);
	for (i = 0; i < f->npci; i++) {
		const struct facts_pci	*d = &f->pci[i];

		snprintf(path, sizeof path, "/sys/bus/pci/devices/%s",
		    d->slot);
		ck_assert_msg(access(path, F_OK) == 0, "%s not in sysfs",
		    d->slot);
		ck_assert_int_ge(d->vendor_id, 0);
		ck_assert_int_ge(d->device_id, 0);
		ck_assert_int_ge(d->class_id, 0);
		named += d->vendor_name != NULL && d->class_name != NULL;
	}
	ck_assert_msg(named > 0, "no device named from pci.ids");
	ck_assert_int_eq(f->notes.n, 0);
	facts_free(f);
}
END_TEST

START_TEST(test_scan_links_agree_with_sysfs)
{
	struct hw_opts	 o = HW_OPTS_INIT;
	struct prov_err	 err = PROV_ERR_INIT;
	struct facts	*f = facts_new();
	size_t		 i;

	/* libpci reads LnkCap/LnkSta; the kernel's files must agree */
	ck_assert_ok(hw_pci_scan(f, &o, &err), &err);
	for (i = 0; i < f->npci; i++) {
		const struct facts_pci	*d = &f->pci[i];
		struct buf		 b = BUF_INIT;
		char			*p = xasprintf("/sys/bus/pci/devices/"
					    "%s/max_link_width", d->slot);

		if (buf_read_file(&b, p) == 0 && d->link.max_width > 0)
			ck_assert_int_eq(strtol(b.buf, NULL, 10),
			    d->link.max_width);
		buf_release(&b);
		free(p);
	}
	facts_free(f);
}
END_TEST

START_TEST(test_error_returns)
{
	struct hw_opts	 o = HW_OPTS_INIT;
	struct prov_err	 err = PROV_ERR_INIT;
	struct facts	*f = facts_new();

	/* libpci calls its error handler here; the default one exits */
	o.pci_sysfs = "/nonexistent/sys/bus/pci";
	ck_assert_int_eq(hw_pci_scan(f, &o, &err), -1);
	ck_assert_ptr_nonnull(strstr(err.msg, "libpci: "));
	ck_assert_ptr_nonnull(strstr(err.msg, "/nonexistent/sys/bus/pci"));
	prov_err_release(&err);
	facts_free(f);

	/* and the next call works: the jump target was put back */
	f = facts_new();
	o.pci_sysfs = NULL;
	ck_assert_ok(hw_pci_scan(f, &o, &err), &err);
	ck_assert_int_gt(f->npci, 0);
	facts_free(f);

	/* so does hw_gather, which then has nothing to return */
	{
		struct facts	*dummy = facts_new();

		o.pci_sysfs = "/nonexistent";
		f = dummy;
		ck_assert_int_eq(hw_gather(&f, NULL, &o, &err), -1);
		ck_assert_ptr_null(f);
		facts_free(dummy);
	}
	prov_err_release(&err);
}
END_TEST

START_TEST(test_bad_pci_ids)
{
	struct hw_opts	 o = HW_OPTS_INIT;
	struct prov_err	 err = PROV_ERR_INIT;
	struct facts	*f = facts_new();
	char		 path[] = "/tmp/test_hw_ids.XXXXXX";
	int		 fd = mkstemp(path);
	size_t		 i;

	/* a pci.ids libpci cannot parse: an error inside libpci */
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, "8086  Intel\n\tzzzz  bad\n", 23), 23);
	close(fd);
	o.pci_ids = path;
	ck_assert_ok(hw_pci_scan(f, &o, &err), &err);
	ck_assert_int_gt(f->npci, 0);
	for (i = 0; i < f->npci; i++)
		ck_assert_int_ge(f->pci[i].vendor_id, 0);
	ck_assert_int_eq(f->notes.n, 1);
	ck_assert_ptr_nonnull(strstr(f->notes.v[0], "Parse error"));
	facts_free(f);

	/* no pci.ids at all: a note, ids still there */
	f = facts_new();
	o.pci_ids = "/nonexistent/pci.ids";
	ck_assert_ok(hw_pci_scan(f, &o, &err), &err);
	ck_assert_int_gt(f->npci, 0);
	ck_assert_ptr_null(f->pci[0].device_name);
	ck_assert_int_eq(f->notes.n, 1);
	ck_assert_ptr_nonnull(strstr(f->notes.v[0], "no pci.ids"));
	facts_free(f);
	unlink(path);
}
END_TEST

START_TEST(test_names_from_catalog)
{
	struct hw_opts		 o = HW_OPTS_INIT;
	struct prov_err		 err = PROV_ERR_INIT;
	struct prov_errs	 errs = PROV_ERRS_INIT;
	struct facts		*f = facts_new();
	struct catalog		*cat = catalog_new();
	char			*dir = test_path("profiles");
	struct facts_pci	*h200, *a100;

	ck_assert_int_eq(catalog_load_dir(cat, dir, &errs), 0);
	/*
	 * Two GPUs as lspci without names would report them: A100 80GB
	 * PCIe is in every pci.ids since 2021, H200 (10de:2335) is not in
	 * Debian 12's.
	 */
	h200 = facts_pci_get(f, "0000:1b:00.0");
	h200->class_id = 0x0302;
	h200->vendor_id = 0x10de;
	h200->device_id = 0x2335;
	a100 = facts_pci_get(f, "0000:2b:00.0");
	a100->class_id = 0x0302;
	a100->vendor_id = 0x10de;
	a100->device_id = 0x20b5;
	ck_assert_ok(hw_pci_names(&f, 1, &o, &err), &err);
	h200 = facts_pci_find(f, "0000:1b:00.0");
	a100 = facts_pci_find(f, "0000:2b:00.0");
	ck_assert_str_eq(h200->vendor_name, "NVIDIA Corporation");
	ck_assert_str_eq(a100->device_name, "GA100 [A100 PCIe 80GB]");
	ck_assert_str_eq(a100->name_source, "pci.ids");
	if (h200->device_name == NULL) {
		/* this pci.ids is older than the H200: the catalog names it */
		facts_finish(f, cat);
		h200 = facts_pci_find(f, "0000:1b:00.0");
		ck_assert_str_eq(h200->device_name, "NVIDIA H200 141GB SXM");
		ck_assert_str_eq(h200->name_source, "catalog");
	} else
		facts_finish(f, cat);
	ck_assert_int_eq(f->ngpus, 2);
	ck_assert_str_eq(f->gpus[0].catalog_id, "h200-sxm");
	ck_assert_str_eq(f->gpus[1].catalog_id, "a100-pcie-80gb");
	prov_errs_release(&errs);
	catalog_free(cat);
	free(dir);
	facts_free(f);
}
END_TEST

START_TEST(test_gather_here)
{
	struct hw_opts	 o = HW_OPTS_INIT;
	struct prov_err	 err = PROV_ERR_INIT;
	struct facts	*f = NULL;
	struct utsname	 u;
	struct buf	 b = BUF_INIT;
	size_t		 i;

	o.nvidia_smi = "/nonexistent/nvidia-smi";
	ck_assert_ok(hw_gather(&f, NULL, &o, &err), &err);
	ck_assert_int_eq(uname(&u), 0);
	ck_assert_str_eq(f->kernel, u.release);
	ck_assert_str_eq(f->node, u.nodename);
	ck_assert_ptr_nonnull(f->os_id);
	ck_assert_int_gt(f->mem_kb, 0);
	ck_assert_int_eq(f->cpu_threads, sysconf(_SC_NPROCESSORS_ONLN));
	ck_assert_int_gt(f->cpu_sockets, 0);
	ck_assert_int_gt(f->cpu_cores, 0);
	ck_assert_int_eq(f->npci, sysfs_pci_count());
	for (i = 1; i < f->npci; i++)
		ck_assert_int_lt(strcmp(f->pci[i - 1].slot, f->pci[i].slot), 0);
	ck_assert_int_ge(strvec_find(&f->notes,
	    "'/nonexistent/nvidia-smi' not found"), 0);
	for (i = 0; i < f->ndisks; i++)
		ck_assert_int_gt(f->disks[i].size_bytes, 0);
	facts_to_json(&b, f);
	ck_assert_ptr_nonnull(strstr(b.buf, "\"memory_kb\": "));
	buf_release(&b);
	facts_free(f);
}
END_TEST

START_TEST(test_nvidia_smi_fails)
{
	struct hw_opts	 o = HW_OPTS_INIT;
	struct prov_err	 err = PROV_ERR_INIT;
	struct facts	*f = NULL;

	/* one that exists and fails, as nvidia-smi does without a driver */
	o.nvidia_smi = "false";
	ck_assert_ok(hw_gather(&f, NULL, &o, &err), &err);
	ck_assert_int_ge(strvec_find(&f->notes, "false: exit status 1"), 0);
	facts_free(f);

	/* one that hangs (as nvidia-smi does on a wedged GPU) is killed */
	{
		char	path[] = "/tmp/test_hw_hang.XXXXXX";
		char	*note;
		int	fd = mkstemp(path);

		ck_assert_int_ge(fd, 0);
		ck_assert_int_eq(write(fd, "#!/bin/sh\nexec sleep 30\n", 24),
		    24);
		close(fd);
		ck_assert_int_eq(chmod(path, 0700), 0);
		f = NULL;
		o.nvidia_smi = path;
		o.timeout_s = 1;
		ck_assert_ok(hw_gather(&f, NULL, &o, &err), &err);
		ck_assert_int_eq(f->ngpus, 0);
		note = xasprintf("%s: timed out", path);
		ck_assert_int_ge(strvec_find(&f->notes, note), 0);
		free(note);
		facts_free(f);
		unlink(path);
	}
}
END_TEST

static Suite *
hw_suite(void)
{
	Suite	*s = suite_create("hw");
	TCase	*tc;

	tc = tcase_create("pci");
	tcase_add_test(tc, test_scan_here);
	tcase_add_test(tc, test_scan_links_agree_with_sysfs);
	tcase_add_test(tc, test_error_returns);
	tcase_add_test(tc, test_bad_pci_ids);
	tcase_add_test(tc, test_names_from_catalog);
	suite_add_tcase(s, tc);

	tc = tcase_create("gather");
	tcase_set_timeout(tc, 30);
	tcase_add_test(tc, test_gather_here);
	tcase_add_test(tc, test_nvidia_smi_fails);
	suite_add_tcase(s, tc);
	return s;
}

TEST_MAIN(hw_suite)

/*
 * redfish-inv.c: a BMC's inventory read from its answers, summed up,
 * written as JSON and compared with the plan.  See redfish-int.h.
 */
#include "compat.h"

#include <ctype.h>
#include <math.h>

#include "buf.h"
#include "catalog.h"
#include "json.h"
#include "plan.h"
#include "redfish-int.h"
#include "redfish.h"
#include "row.h"
#include "str.h"
#include "yml.h"

/* --- inventory -------------------------------------------------------- */

void
redfish_inv_init(struct redfish_inv *inv)
{
	memset(inv, 0, sizeof *inv);
	inv->cpus = inv->cpu_cores = -1;
	inv->mem_gib = NAN;
	inv->dimms = -1;
	inv->gpus = inv->gpus_by_proc = inv->gpus_by_pcie = -1;
	inv->gpus_by_oem = -1;
	inv->pcie_devices = -1;
	inv->psus = -1;
	inv->psu_watts_min = inv->psu_watts_max = NAN;
	inv->psu_group = inv->psu_needed = -1;
	inv->sum_cpus = -1;
	inv->sum_mem_gib = NAN;
	inv->watts = inv->psu_volts_min = inv->psu_volts_max = NAN;
	inv->watts_env = inv->watts_ctl = NAN;
	inv->psu_input_watts = NAN;
	inv->gpu_pci_ids = (struct strvec)STRVEC_INIT;
	inv->oem_pci_ids = (struct strvec)STRVEC_INIT;
	inv->notes = (struct strvec)STRVEC_INIT;
}

void
redfish_inv_release(struct redfish_inv *inv)
{
	if (inv == NULL)
		return;
	free(inv->cpu_model);
	free(inv->sum_cpu_model);
	free(inv->gpu_model);
	free(inv->psu_source);
	free(inv->psu_plug);
	free(inv->psu_ranges);
	free(inv->psu_redundancy);
	free(inv->gpus_why);
	free(inv->watts_source);
	strvec_clear(&inv->gpu_pci_ids);
	strvec_clear(&inv->oem_pci_ids);
	strvec_clear(&inv->notes);
	redfish_inv_init(inv);
}

void
redfish_inc(long *v, long by)
{
	*v = (*v < 0 ? 0 : *v) + by;
}

void
redfish_inv_add_system(struct redfish_inv *inv, const struct yml_node *sys)
{
	const struct yml_node	*ps = redfish_map(sys, "ProcessorSummary");
	const struct yml_node	*ms = redfish_map(sys, "MemorySummary");
	double			 d;

	d = redfish_num(ps, "Count");
	if (!isnan(d))
		inv->sum_cpus = (long)d;
	if (redfish_str(ps, "Model") != NULL) {
		free(inv->sum_cpu_model);
		inv->sum_cpu_model = xstrdup(redfish_str(ps, "Model"));
	}
	d = redfish_num(ms, "TotalSystemMemoryGiB");
	if (!isnan(d))
		inv->sum_mem_gib = d;
}

void
redfish_inv_add_processor(struct redfish_inv *inv, const struct yml_node *p)
{
	const char	*type = redfish_str(p, "ProcessorType");
	const char	*model = redfish_str(p, "Model");
	double		 cores = redfish_num(p, "TotalCores");

	if (redfish_absent(p))
		return;
	if (type == NULL || strcmp(type, "CPU") == 0) {
		redfish_inc(&inv->cpus, 1);
		if (!isnan(cores))
			redfish_inc(&inv->cpu_cores, (long)cores);
		if (inv->cpu_model == NULL && model != NULL)
			inv->cpu_model = xstrdup(model);
	} else if (strcmp(type, "GPU") == 0) {
		redfish_inc(&inv->gpus_by_proc, 1);
		if (inv->gpu_model == NULL && model != NULL)
			inv->gpu_model = xstrdup(model);
	}
}

void
redfish_inv_add_memory(struct redfish_inv *inv, const struct yml_node *m)
{
	double	mib = redfish_num(m, "CapacityMiB");

	if (redfish_absent(m) || isnan(mib) || mib <= 0)
		return;
	redfish_inc(&inv->dimms, 1);
	inv->mem_gib = (isnan(inv->mem_gib) ? 0 : inv->mem_gib) + mib / 1024;
}

/*
 * A NominalVoltageType's AC volts: a range "AC200To240V", one voltage
 * "AC120V", or AC with DC "AC240AndDC380V" (its AC part); 0 when DC or
 * not of these shapes.
 */
static int
redfish_nominal_volts(const char *t, double *lo, double *hi)
{
	char	*e;
	long	 a, b;

	if (t == NULL || strncmp(t, "AC", 2) != 0 || !isdigit((unsigned char)t[2]))
		return 0;
	a = strtol(t + 2, &e, 10);
	if (strncmp(e, "To", 2) == 0 && isdigit((unsigned char)e[2])) {
		b = strtol(e + 2, &e, 10);
		if (strcmp(e, "V") != 0 || b < a)
			return 0;
	} else if (strcmp(e, "V") == 0 || strncmp(e, "AndDC", 5) == 0)
		b = a;
	else
		return 0;
	*lo = (double)a;
	*hi = (double)b;
	return a > 0;
}

/* The AC InputRanges of one supply, when none was read before. */
static void
redfish_inv_add_ranges(struct redfish_inv *inv, const struct yml_node *psu)
{
	const struct yml_node	*rs = redfish_seq(psu, "InputRanges");
	size_t			 i;

	if (rs == NULL || inv->npsu_ranges > 0)
		return;
	for (i = 0; i < rs->n; i++) {
		const struct yml_node	*r = rs->u.items[i];
		const char		*it = redfish_str(r, "InputType");
		struct redfish_psu_range v;

		if (redfish_str(r, "NominalVoltageType") != NULL) {
			if (!redfish_nominal_volts(redfish_str(r,
			    "NominalVoltageType"), &v.volts_min, &v.volts_max))
				continue;
			v.watts = redfish_num(r, "CapacityWatts");
		} else {
			if (it != NULL && strcmp(it, "AC") != 0)
				continue;
			v.volts_min = redfish_num(r, "MinimumVoltage");
			v.volts_max = redfish_num(r, "MaximumVoltage");
			v.watts = redfish_num(r, "OutputWattage");
			if (isnan(v.volts_min) || isnan(v.volts_max) ||
			    v.volts_min <= 0 || v.volts_max < v.volts_min)
				continue;
		}
		if (isnan(v.watts) || v.watts < 0)
			continue;
		ALLOC_GROW(inv->psu_ranges, inv->npsu_ranges + 1,
		    inv->psu_ranges_alloc);
		inv->psu_ranges[inv->npsu_ranges++] = v;
	}
}

void
redfish_inv_add_psu(struct redfish_inv *inv, const struct yml_node *psu,
    const char *source)
{
	double		 w = redfish_num(psu, "PowerCapacityWatts");
	const char	*plug = redfish_str(psu, "PlugType");

	if (redfish_absent(psu))
		return;
	redfish_inc(&inv->psus, 1);
	if (source != NULL && inv->psu_source == NULL)
		inv->psu_source = xstrdup(source);
	if (plug != NULL && inv->psu_plug == NULL)
		inv->psu_plug = xstrdup(plug);
	else if (inv->psu_plug != NULL && (plug == NULL ||
	    strcmp(plug, inv->psu_plug) != 0))
		inv->psu_plugs_differ = 1;
	redfish_inv_add_ranges(inv, psu);
	if (isnan(w))
		return;
	if (isnan(inv->psu_watts_min) || w < inv->psu_watts_min)
		inv->psu_watts_min = w;
	if (isnan(inv->psu_watts_max) || w > inv->psu_watts_max)
		inv->psu_watts_max = w;
}

void
redfish_inv_add_psu_redundancy(struct redfish_inv *inv,
    const struct yml_node *doc)
{
	const struct yml_node	*rs = redfish_seq(doc, "PowerSupplyRedundancy");
	const struct yml_node	*r, *set;
	double			 need;

	if (rs != NULL && rs->n > 0) {
		r = rs->u.items[0];
		need = redfish_num(r, "MinNeededInGroup");
		set = redfish_seq(r, "RedundancyGroup");
	} else if ((rs = redfish_seq(doc, "Redundancy")) != NULL &&
	    rs->n > 0) {
		r = rs->u.items[0];
		need = redfish_num(r, "MinNumNeeded");
		set = redfish_seq(r, "RedundancySet");
	} else
		return;
	if (isnan(need) || need < 1 || set == NULL || set->n < (size_t)need)
		return;
	inv->psu_needed = (long)need;
	inv->psu_group = (long)set->n;
}

const char *
redfish_plug_inlet(const char *plug)
{
	static const char *const inlets[] = { "C14", "C16", "C20", "C22",
	    NULL };
	size_t	i;

	if (plug == NULL || !str_starts(plug, "IEC_60320_"))
		return NULL;
	for (i = 0; inlets[i] != NULL; i++)
		if (strcmp(plug + 10, inlets[i]) == 0)
			return inlets[i];
	return NULL;
}

/*
 * Is a device of this vendor and class a GPU?  Display controllers (class
 * 0x03) and processing accelerators (0x12), except the BMC's own VGA
 * (ASPEED, Matrox, Emulex Pilot).
 */
static int
redfish_pci_is_gpu(long vendor, long base_class)
{
	if (base_class != 0x03 && base_class != 0x12)
		return 0;
	return vendor != 0x1a03 && vendor != 0x102b && vendor != 0x19a2;
}

/* A PCIe function: by DeviceClass, else the ClassCode's base class. */
static int
redfish_fn_is_gpu(const struct yml_node *fn)
{
	const char	*dc = redfish_str(fn, "DeviceClass");
	long		 cls = redfish_pci_num(fn, "ClassCode", 0xffffff);
	long		 base = cls >= 0 ? cls >> 16 : -1;

	if (dc != NULL && strcmp(dc, "DisplayController") == 0)
		base = 0x03;
	else if (dc != NULL && strcmp(dc, "ProcessingAccelerators") == 0)
		base = 0x12;
	return redfish_pci_is_gpu(redfish_pci_num(fn, "VendorId", 0xffff),
	    base);
}

static void
redfish_inv_add_gpu_id(struct redfish_inv *inv, long v, long d)
{
	if (v >= 0 && d >= 0)
		strvec_pushf(&inv->gpu_pci_ids, "%04lx:%04lx", v, d);
}

void
redfish_inv_add_pcie(struct redfish_inv *inv, const struct yml_node *dev,
    const struct yml_node *const *fns)
{
	size_t	i;

	redfish_inc(&inv->pcie_devices, 1);
	redfish_inc(&inv->gpus_by_pcie, 0);
	if (redfish_absent(dev))
		return;
	for (i = 0; fns != NULL && fns[i] != NULL; i++) {
		if (!redfish_fn_is_gpu(fns[i]))
			continue;
		redfish_inc(&inv->gpus_by_pcie, 1);
		redfish_inv_add_gpu_id(inv,
		    redfish_pci_num(fns[i], "VendorId", 0xffff),
		    redfish_pci_num(fns[i], "DeviceId", 0xffff));
		if (inv->gpu_model == NULL) {
			const char	*m = redfish_str(dev, "Model");

			if (m == NULL)
				m = redfish_str(dev, "Name");
			if (m != NULL)
				inv->gpu_model = xstrdup(m);
		}
		break;		/* one GPU per device, whatever its functions */
	}
}

/*
 * HPE iLO 5 lists every PCI device of a system in its own resources
 * (Oem.Hpe.Links.PCIDevices, HpeServerPciDevice) with numeric VendorID,
 * DeviceID, ClassCode and SubclassCode; an Apollo's GPUs may be only
 * there.  Their PCI ids count only when the standard list gave none.
 */
void
redfish_inv_add_oem_pci(struct redfish_inv *inv, const struct yml_node *d)
{
	long	cls = redfish_pci_num(d, "ClassCode", 0xff);
	long	v = redfish_pci_num(d, "VendorID", 0xffff);

	redfish_inc(&inv->gpus_by_oem, 0);
	if (redfish_absent(d) || !redfish_pci_is_gpu(v, cls))
		return;
	redfish_inc(&inv->gpus_by_oem, 1);
	strvec_pushf(&inv->oem_pci_ids, "%04lx:%04lx", v,
	    redfish_pci_num(d, "DeviceID", 0xffff));
	if (inv->gpu_model == NULL && redfish_str(d, "Name") != NULL)
		inv->gpu_model = xstrdup(redfish_str(d, "Name"));
}

/* A reading: {"Reading": N} at key k (the Sensor excerpt), or NAN. */
double
redfish_reading(const struct yml_node *n, const char *k)
{
	return redfish_num(redfish_map(n, k), "Reading");
}

void
redfish_add_nan(double *sum, double v)
{
	if (!isnan(v))
		*sum = (isnan(*sum) ? 0 : *sum) + v;
}

static void
redfish_minmax(double *lo, double *hi, double v)
{
	if (isnan(v) || v <= 0)
		return;
	if (isnan(*lo) || v < *lo)
		*lo = v;
	if (isnan(*hi) || v > *hi)
		*hi = v;
}

void
redfish_inv_add_psu_metrics(struct redfish_inv *inv,
    const struct yml_node *m)
{
	redfish_add_nan(&inv->psu_input_watts,
	    redfish_reading(m, "InputPowerWatts"));
	redfish_minmax(&inv->psu_volts_min, &inv->psu_volts_max,
	    redfish_reading(m, "InputVoltage"));
}

/* The deprecated Power resource: PowerControl and inline PowerSupplies. */
void
redfish_inv_add_power_readings(struct redfish_inv *inv,
    const struct yml_node *power)
{
	const struct yml_node	*pc = redfish_seq(power, "PowerControl");
	const struct yml_node	*ps = redfish_seq(power, "PowerSupplies");
	double			 sum = NAN;
	size_t			 i;

	for (i = 0; pc != NULL && i < pc->n; i++)
		redfish_add_nan(&sum, redfish_num(pc->u.items[i],
		    "PowerConsumedWatts"));
	if (!isnan(sum))
		inv->watts_ctl = sum;
	for (i = 0; ps != NULL && i < ps->n; i++) {
		const struct yml_node	*p = ps->u.items[i];

		if (redfish_absent(p))
			continue;
		redfish_add_nan(&inv->psu_input_watts, redfish_num(p,
		    "PowerInputWatts"));
		redfish_minmax(&inv->psu_volts_min, &inv->psu_volts_max,
		    redfish_num(p, "LineInputVoltage"));
	}
}

void
redfish_inv_add_env_metrics(struct redfish_inv *inv,
    const struct yml_node *env)
{
	double	w = redfish_reading(env, "PowerWatts");

	if (!isnan(w))
		inv->watts_env = w;
}

/*
 * The GPU count is the largest count a source is sure of: GPU processors,
 * the PCIe devices when every one could be read, a vendor's own list.  An
 * empty or unreadable device list is no evidence of 0 GPUs (iDRAC's links
 * can all answer 404; iLO may list an Apollo's GPUs only in its OEM
 * resources), so it leaves the count unknown, with the reason.
 */
static void
redfish_inv_finish_gpus(struct redfish_inv *inv)
{
	long	best = -1;
	size_t	i;

	free(inv->gpus_why);
	inv->gpus_why = NULL;
	inv->gpus_seen = inv->gpus_by_pcie;
	if (inv->pcie_unreadable > 0 || inv->pcie_devices == 0)
		inv->gpus_by_pcie = -1;
	if (inv->gpus_by_proc > best)
		best = inv->gpus_by_proc;
	if (inv->gpus_by_pcie > best)
		best = inv->gpus_by_pcie;
	if (inv->gpus_by_oem > best) {
		best = inv->gpus_by_oem;
		/* the vendor's list is the one that found them: its ids */
		if (inv->gpus_by_oem > inv->gpus_by_pcie) {
			strvec_clear(&inv->gpu_pci_ids);
			for (i = 0; i < inv->oem_pci_ids.n; i++)
				strvec_push(&inv->gpu_pci_ids,
				    inv->oem_pci_ids.v[i]);
		}
	}
	if (best > 0 || inv->gpus_by_pcie == 0 || inv->gpus_by_oem == 0) {
		inv->gpus = best;
		return;
	}
	inv->gpus = -1;
	if (inv->pcie_unreadable > 0)
		inv->gpus_why = xasprintf("%ld of %ld PCIe device links could "
		    "not be read (%ld GPU%s among the rest)",
		    inv->pcie_unreadable, inv->pcie_devices < 0 ?
		    inv->pcie_unreadable : inv->pcie_devices +
		    inv->pcie_unreadable, inv->gpus_seen < 0 ? 0 :
		    inv->gpus_seen, inv->gpus_seen == 1 ? "" : "s");
	else if (inv->pcie_devices == 0)
		inv->gpus_why = xstrdup("the BMC's PCIe device list is empty "
		    "and it lists no GPU processors");
	else
		inv->gpus_why = xstrdup("the BMC lists no PCIe devices and no "
		    "GPU processors");
}

void
redfish_inv_finish(struct redfish_inv *inv)
{
	if (inv->cpus < 0 && inv->sum_cpus >= 0)
		inv->cpus = inv->sum_cpus;
	if (inv->cpu_model == NULL && inv->sum_cpu_model != NULL)
		inv->cpu_model = xstrdup(inv->sum_cpu_model);
	if ((isnan(inv->mem_gib) || inv->dimms <= 0) &&
	    !isnan(inv->sum_mem_gib))
		inv->mem_gib = inv->sum_mem_gib;
	redfish_inv_finish_gpus(inv);
	/* a group of fewer bays than PSUs, or of empty bays, says nothing */
	free(inv->psu_redundancy);
	inv->psu_redundancy = NULL;
	if (inv->psu_group > 0 && inv->psu_group == inv->psus)
		inv->psu_redundancy = xasprintf("%ld+%ld", inv->psu_needed,
		    inv->psu_group - inv->psu_needed);
	/* What the whole chassis draws, best source first. */
	free(inv->watts_source);
	inv->watts_source = NULL;
	inv->watts = NAN;
	if (!isnan(inv->watts_env)) {
		inv->watts = inv->watts_env;
		inv->watts_source = xstrdup("EnvironmentMetrics");
	} else if (!isnan(inv->watts_ctl)) {
		inv->watts = inv->watts_ctl;
		inv->watts_source = xstrdup("PowerControl");
	} else if (!isnan(inv->psu_input_watts)) {
		inv->watts = inv->psu_input_watts;
		inv->watts_source = xstrdup("PSU input");
	}
}

void
redfish_num_str(struct buf *b, double d)
{
	if (isnan(d))
		buf_adds(b, "?");
	else if (d == floor(d) && fabs(d) < 1e15)
		buf_addf(b, "%.0f", d);
	else
		buf_addf(b, "%.1f", d);
}

void
redfish_inv_summary(struct buf *b, const struct redfish_inv *inv)
{
	if (inv->cpus >= 0)
		buf_addf(b, "%ld CPU%s", inv->cpus, inv->cpus == 1 ? "" : "s");
	else
		buf_adds(b, "CPUs ?");
	buf_adds(b, ", ");
	redfish_num_str(b, inv->mem_gib);
	buf_adds(b, " GiB, ");
	if (inv->gpus >= 0)
		buf_addf(b, "%ld GPU%s", inv->gpus, inv->gpus == 1 ? "" : "s");
	else
		buf_adds(b, "GPUs ?");
	buf_adds(b, ", ");
	if (inv->psus >= 0) {
		buf_addf(b, "%ld PSU%s", inv->psus, inv->psus == 1 ? "" : "s");
		if (!isnan(inv->psu_watts_min)) {
			buf_adds(b, " x ");
			redfish_num_str(b, inv->psu_watts_min);
			if (inv->psu_watts_max != inv->psu_watts_min) {
				buf_adds(b, "-");
				redfish_num_str(b, inv->psu_watts_max);
			}
			buf_adds(b, " W");
		}
	} else
		buf_adds(b, "PSUs ?");
}

void
redfish_power_summary(struct buf *b, const struct redfish_inv *inv)
{
	if (isnan(inv->watts))
		buf_adds(b, "no power reading");
	else {
		redfish_num_str(b, inv->watts);
		buf_addf(b, " W (%s)", inv->watts_source);
	}
	if (inv->psus >= 0)
		buf_addf(b, ", %ld PSU%s", inv->psus, inv->psus == 1 ? "" :
		    "s");
	if (!isnan(inv->psu_volts_min)) {
		buf_adds(b, inv->psus >= 0 ? " at " : ", PSUs at ");
		redfish_num_str(b, inv->psu_volts_min);
		if (inv->psu_volts_max != inv->psu_volts_min) {
			buf_adds(b, "-");
			redfish_num_str(b, inv->psu_volts_max);
		}
		buf_adds(b, " V");
	}
}


/* A count the BMC did not report (negative) is null. */
static void
redfish_json_long(struct json_writer *jw, const char *k, long v)
{
	if (v < 0)
		json_null(jw, k);
	else
		json_int(jw, k, v);
}

void
redfish_inv_to_json(struct json_writer *jw, const char *key,
    const struct redfish_inv *inv)
{
	size_t	i;

	json_object_begin(jw, key, 0);
	redfish_json_long(jw, "cpus", inv->cpus);
	json_str(jw, "cpu_model", inv->cpu_model);
	redfish_json_long(jw, "cpu_cores", inv->cpu_cores);
	json_num(jw, "memory_gib", inv->mem_gib, -1);
	redfish_json_long(jw, "dimms", inv->dimms);
	redfish_json_long(jw, "gpus", inv->gpus);
	json_str(jw, "gpus_unknown_why", inv->gpus_why);
	json_str(jw, "gpu_model", inv->gpu_model);
	json_array_begin(jw, "gpu_pci_ids", 0);
	for (i = 0; i < inv->gpu_pci_ids.n; i++)
		json_str(jw, NULL, inv->gpu_pci_ids.v[i]);
	json_end(jw);
	redfish_json_long(jw, "pcie_devices", inv->pcie_devices);
	redfish_json_long(jw, "psus", inv->psus);
	json_num(jw, "psu_watts_min", inv->psu_watts_min, -1);
	json_num(jw, "psu_watts_max", inv->psu_watts_max, -1);
	json_str(jw, "psu_source", inv->psu_source);
	json_str(jw, "psu_plug", inv->psu_plug);
	json_str(jw, "psu_redundancy", inv->psu_redundancy);
	json_num(jw, "watts", inv->watts, -1);
	json_str(jw, "watts_source", inv->watts_source);
	json_num(jw, "psu_volts_min", inv->psu_volts_min, -1);
	json_num(jw, "psu_volts_max", inv->psu_volts_max, -1);
	json_strvec(jw, "notes", &inv->notes);
	json_end(jw);
}

/* --- drift against the plan ------------------------------------------- */

/*
 * Words of a model name, lowercase, split at anything not a letter or a
 * digit; "(R)", "(TM)" and, when `drop_parens`, any other parenthesised
 * remark are left out: "Intel(R) Xeon(R) Platinum 8480C" -> intel xeon
 * platinum 8480c.
 */
static void
redfish_model_words(struct strvec *out, const char *s, int drop_parens)
{
	struct buf	w = BUF_INIT;
	const char	*p;

	for (p = s; ; p++) {
		if (*p == '(') {
			const char	*e = strchr(p, ')');

			if (e != NULL && (drop_parens || e - p <= 3 ||
			    strncasecmp(p, "(tm)", 4) == 0)) {
				p = e;
				goto split;
			}
		}
		if (*p != '\0' && isalnum((unsigned char)*p)) {
			buf_addch(&w, tolower((unsigned char)*p));
			continue;
		}
split:
		if (w.len > 0)
			strvec_push(out, w.buf);
		buf_reset(&w);
		if (*p == '\0')
			break;
	}
	buf_release(&w);
}

/*
 * Does the BMC's model text name the planned CPU?  Every word of the
 * catalog name, id or an alias (vendor names aside) must be among the
 * BMC's words: "xeon-8480c" and "Intel Xeon Platinum 8480C (DGX H100)"
 * both name "Intel(R) Xeon(R) Platinum 8480C".
 */
static int
redfish_cpu_matches(const char *found, const struct cat_cpu *cpu,
    const char *planned)
{
	struct strvec	 fw = STRVEC_INIT;
	size_t		 i, k, ncand = cpu != NULL ? 2 + cpu->m.aliases.n : 1;
	int		 hit = 0;

	redfish_model_words(&fw, found, 0);
	for (i = 0; !hit && i < ncand; i++) {
		struct strvec	 cw = STRVEC_INIT;
		const char	*cand;
		size_t		 nmatch = 0;

		if (cpu == NULL)
			cand = planned;
		else
			cand = i == 0 ? cpu->m.name : i == 1 ? cpu->m.id :
			    cpu->m.aliases.v[i - 2];
		if (cand == NULL)
			continue;
		redfish_model_words(&cw, cand, 1);
		hit = 1;
		for (k = 0; k < cw.n; k++) {
			if (strcmp(cw.v[k], "amd") == 0 ||
			    strcmp(cw.v[k], "intel") == 0)
				continue;
			if (strvec_find(&fw, cw.v[k]) < 0)
				hit = 0;
			else
				nmatch++;
		}
		if (nmatch == 0)
			hit = 0;
		strvec_clear(&cw);
	}
	strvec_clear(&fw);
	return hit;
}

static char *
redfish_fmt_num(double d, const char *unit)
{
	struct buf	b = BUF_INIT;

	redfish_num_str(&b, d);
	if (unit != NULL)
		buf_addf(&b, " %s", unit);
	return buf_detach(&b, NULL);
}

static void
redfish_cmp_count(struct rows *rows, const char *what, long want,
    long got, const char *unknown_why)
{
	char	e[32], f[32];

	snprintf(e, sizeof e, "%ld", want);
	snprintf(f, sizeof f, "%ld", got);
	if (got < 0)
		rows_addf(rows, ROW_SKIP, NULL, what, e, NULL, "%s",
		    unknown_why);
	else if (got == want)
		rows_addf(rows, ROW_OK, NULL, what, e, f, NULL);
	else
		rows_addf(rows, ROW_FAIL, NULL, what, e, f,
		    "%s than planned", got < want ? "fewer" : "more");
}

/* The BMC's processor model names the planned CPU. */
static void
redfish_cmp_cpu_model(struct rows *rows, const struct plan_hw *hw,
    const struct redfish_inv *inv)
{
	if (hw->cpu_cat == NULL && hw->cpu.model == NULL)
		rows_addf(rows, ROW_SKIP, NULL, "cpu model", NULL,
		    inv->cpu_model, "the plan names no CPU model");
	else if (inv->cpu_model == NULL)
		rows_addf(rows, ROW_SKIP, NULL, "cpu model", hw->cpu_cat ?
		    hw->cpu_cat->m.name : hw->cpu.model, NULL, "the BMC gives "
		    "no processor model");
	else if (redfish_cpu_matches(inv->cpu_model, hw->cpu_cat,
	    hw->cpu.model))
		rows_addf(rows, ROW_OK, NULL, "cpu model", hw->cpu_cat ?
		    hw->cpu_cat->m.name : hw->cpu.model, inv->cpu_model, NULL);
	else
		rows_addf(rows, ROW_WARN, NULL, "cpu model", hw->cpu_cat ?
		    hw->cpu_cat->m.name : hw->cpu.model, inv->cpu_model,
		    "the BMC's model does not name the planned CPU");
}

/* Memory within REDFISH_MEM_SLACK of the plan's memory_gb. */
static void
redfish_cmp_memory(struct rows *rows, const struct plan_hw *hw,
    const struct redfish_inv *inv)
{
	char	*e = NULL, *f = NULL;

	if (isnan(hw->mem_gb))
		rows_addf(rows, ROW_SKIP, NULL, "memory", NULL, NULL,
		    "the plan gives no memory_gb");
	else if (isnan(inv->mem_gib))
		rows_addf(rows, ROW_SKIP, NULL, "memory", e =
		    redfish_fmt_num(hw->mem_gb, "GB"), NULL, "the BMC reports "
		    "no memory");
	else {
		e = redfish_fmt_num(hw->mem_gb, "GB");
		f = redfish_fmt_num(inv->mem_gib, "GiB");
		if (inv->mem_gib < hw->mem_gb * (1 - REDFISH_MEM_SLACK))
			rows_addf(rows, ROW_FAIL, NULL, "memory", e, f,
			    "less than planned");
		else if (inv->mem_gib > hw->mem_gb * (1 + REDFISH_MEM_SLACK))
			rows_addf(rows, ROW_WARN, NULL, "memory", e, f,
			    "more than planned");
		else
			rows_addf(rows, ROW_OK, NULL, "memory", e, f, NULL);
	}
	free(e);
	free(f);
}

/* Every GPU's PCI id is the planned GPU's. */
static void
redfish_cmp_gpu_model(struct rows *rows, const struct plan_hw *hw,
    const struct redfish_inv *inv, const struct catalog *cat)
{
	size_t	i;

	if (hw->gpu_cat != NULL && inv->gpu_pci_ids.n > 0 && cat != NULL) {
		const struct cat_gpu	*g = NULL;
		int			 same = 1;

		for (i = 0; i < inv->gpu_pci_ids.n; i++) {
			g = catalog_gpu_by_pci(cat, inv->gpu_pci_ids.v[i]);
			if (g != hw->gpu_cat) {
				same = 0;
				break;
			}
		}
		if (same)
			rows_addf(rows, ROW_OK, NULL, "gpu model",
			    hw->gpu_cat->m.id, hw->gpu_cat->m.id, NULL);
		else
			rows_addf(rows, ROW_FAIL, NULL, "gpu model",
			    hw->gpu_cat->m.id, g != NULL ? g->m.id :
			    inv->gpu_pci_ids.v[i], "PCI id %s is %s",
			    inv->gpu_pci_ids.v[i], g != NULL ? "another GPU" :
			    "not in the catalog");
	} else if (hw->gpu_cat != NULL && hw->ngpus > 0)
		rows_addf(rows, ROW_SKIP, NULL, "gpu model",
		    hw->gpu_cat->m.id, inv->gpu_model, "the BMC gives no GPU "
		    "PCI ids");
}

/* PSU count and rating, from the plan or its system. */
static void
redfish_cmp_psus(struct rows *rows, const struct plan_hw *hw,
    const struct redfish_inv *inv)
{
	const struct cat_system	*sys = hw->sys;
	char			*e = NULL, *f = NULL;
	long			 psus;
	double			 watts;
	size_t			 i;

	psus = hw->psu.count >= 0 ? hw->psu.count : sys != NULL ?
	    sys->psu_count : -1;
	if (psus < 0)
		rows_addf(rows, ROW_SKIP, NULL, "psu count", NULL, NULL,
		    "neither the plan nor its system gives a PSU count");
	else
		redfish_cmp_count(rows, "psu count", psus, inv->psus,
		    "the BMC lists no power supplies");

	watts = hw->psu.watts;
	if (isnan(watts) && sys != NULL)
		for (i = 0; i < sys->npsu_ratings; i++)
			if (!isnan(sys->psu_ratings[i].watts) &&
			    (isnan(watts) || sys->psu_ratings[i].watts > watts))
				watts = sys->psu_ratings[i].watts;
	if (isnan(watts))
		rows_addf(rows, ROW_SKIP, NULL, "psu watts", NULL, NULL,
		    "neither the plan nor its system gives PSU watts");
	else if (isnan(inv->psu_watts_min))
		rows_addf(rows, ROW_SKIP, NULL, "psu watts", e =
		    redfish_fmt_num(watts, "W"), NULL, "the BMC gives no "
		    "PowerCapacityWatts");
	else {
		e = redfish_fmt_num(watts, "W");
		f = redfish_fmt_num(inv->psu_watts_min, "W");
		if (inv->psu_watts_min < watts * 0.99)
			rows_addf(rows, ROW_FAIL, NULL, "psu watts", e, f,
			    "a PSU is rated below the plan");
		else if (inv->psu_watts_min > watts * 1.01)
			rows_addf(rows, ROW_WARN, NULL, "psu watts", e, f,
			    "PSUs rated above the plan");
		else
			rows_addf(rows, ROW_OK, NULL, "psu watts", e, f,
			    NULL);
	}
	free(e);
	free(f);
}

static void
redfish_compare_hw(struct rows *rows, const struct plan_node *nd,
    const struct redfish_inv *inv, const struct catalog *cat)
{
	const struct plan_hw	*hw = nd->hw;

	if (hw == NULL) {
		rows_addf(rows, ROW_SKIP, NULL, "hardware", NULL, NULL,
		    "the plan gives node '%s' no hardware", nd->name);
		return;
	}
	redfish_cmp_count(rows, "cpu count", hw->ncpus, inv->cpus,
	    "the BMC lists no processors");
	redfish_cmp_cpu_model(rows, hw, inv);
	redfish_cmp_memory(rows, hw, inv);
	redfish_cmp_count(rows, "gpu count", hw->ngpus, inv->gpus,
	    inv->gpus_why != NULL ? inv->gpus_why : "the BMC lists no PCIe "
	    "devices and no GPU processors");
	redfish_cmp_gpu_model(rows, hw, inv, cat);
	redfish_cmp_psus(rows, hw, inv);
}

void
redfish_compare(struct rows *rows, const struct plan_node *nd,
    const struct redfish_inv *inv, const struct catalog *cat)
{
	size_t	i, from = rows->n;

	redfish_compare_hw(rows, nd, inv, cat);
	for (i = from; i < rows->n; i++)
		rows->v[i].subject = xstrdup(nd->name);
}

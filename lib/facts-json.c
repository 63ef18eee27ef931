/*
 * facts-json.c: facts as the JSON provision saves (RUN/facts/NODE.json),
 * and read back.
 */
#include "compat.h"

#include <math.h>

#include "facts-int.h"
#include "json.h"
#include "plan.h"
#include "str.h"
#include "yml.h"

/* ------------------------------------------------------------------ */
/* JSON out: what is unknown (negative) is null */

static void
facts_jlong(struct json_writer *jw, const char *k, long long v)
{
	if (v >= 0)
		json_int(jw, k, v);
	else
		json_null(jw, k);
}

static void
facts_jdbl(struct json_writer *jw, const char *k, double v)
{
	json_num(jw, k, v >= 0 ? v : NAN, -1);
}

/* A PCI id as its four hex digits, as lspci prints them. */
static void
facts_jhex(struct json_writer *jw, const char *k, long v)
{
	char	hex[24];

	snprintf(hex, sizeof hex, "%04lx", v);
	json_str(jw, k, v >= 0 ? hex : NULL);
}

static void
facts_json_pci(struct json_writer *jw, const struct facts *f)
{
	size_t	i;

	json_array_begin(jw, "pci", JSON_LINES);
	for (i = 0; i < f->npci; i++) {
		const struct facts_pci	*d = &f->pci[i];

		json_object_begin(jw, NULL, 0);
		json_str(jw, "slot", d->slot);
		facts_jhex(jw, "class", d->class_id);
		facts_jhex(jw, "vendor", d->vendor_id);
		facts_jhex(jw, "device", d->device_id);
		facts_jhex(jw, "svendor", d->svendor_id);
		facts_jhex(jw, "sdevice", d->sdevice_id);
		json_str(jw, "class_name", d->class_name);
		json_str(jw, "vendor_name", d->vendor_name);
		json_str(jw, "device_name", d->device_name);
		json_str(jw, "name_source", d->name_source);
		json_str(jw, "driver", d->driver);
		facts_jlong(jw, "numa_node", d->numa_node);
		json_object_begin(jw, "link", 0);
		facts_jdbl(jw, "speed", d->link.speed);
		facts_jlong(jw, "width", d->link.width);
		facts_jdbl(jw, "max_speed", d->link.max_speed);
		facts_jlong(jw, "max_width", d->link.max_width);
		json_end(jw);
		json_end(jw);
	}
	json_end(jw);
}

static void
facts_json_gpus(struct json_writer *jw, const struct facts *f)
{
	size_t	i;

	json_array_begin(jw, "gpus", JSON_LINES);
	for (i = 0; i < f->ngpus; i++) {
		const struct facts_gpu	*g = &f->gpus[i];

		json_object_begin(jw, NULL, 0);
		facts_jlong(jw, "index", g->index);
		json_str(jw, "name", g->name);
		json_str(jw, "bus_id", g->bus_id);
		json_str(jw, "pci_id", g->pci_id);
		json_str(jw, "catalog_id", g->catalog_id);
		json_str(jw, "uuid", g->uuid);
		facts_jlong(jw, "memory_mib", g->memory_mib);
		json_str(jw, "driver_version", g->driver_version);
		json_str(jw, "persistence", g->persistence);
		json_str(jw, "mig_mode", g->mig_mode);
		json_str(jw, "ecc_mode", g->ecc_mode);
		facts_jlong(jw, "mig_devices", g->mig_devices);
		facts_jlong(jw, "pcie_gen", g->gen);
		facts_jlong(jw, "pcie_max_gen", g->max_gen);
		facts_jlong(jw, "pcie_width", g->width);
		facts_jlong(jw, "pcie_max_width", g->max_width);
		json_str(jw, "source", g->source);
		json_end(jw);
	}
	json_end(jw);
}

static void
facts_json_nets(struct json_writer *jw, const struct facts *f)
{
	size_t	i;

	json_array_begin(jw, "nics", JSON_LINES);
	for (i = 0; i < f->nnics; i++) {
		const struct facts_nic	*n = &f->nics[i];

		json_object_begin(jw, NULL, 0);
		json_str(jw, "name", n->name);
		facts_jlong(jw, "speed_mbps", n->speed_mbps);
		facts_jlong(jw, "mtu", n->mtu);
		json_str(jw, "state", n->state);
		json_str(jw, "mac", n->mac);
		json_str(jw, "pci_slot", n->pci_slot);
		json_end(jw);
	}
	json_end(jw);
	json_array_begin(jw, "ib", JSON_LINES);
	for (i = 0; i < f->nib; i++) {
		const struct facts_ib	*p = &f->ib[i];

		json_object_begin(jw, NULL, 0);
		json_str(jw, "ca", p->ca);
		facts_jlong(jw, "port", p->port);
		json_str(jw, "state", p->state);
		json_str(jw, "phys_state", p->phys_state);
		facts_jdbl(jw, "rate_gbps", p->rate_gbps);
		json_str(jw, "link_layer", p->link_layer);
		json_end(jw);
	}
	json_end(jw);
}

void
facts_to_json(struct buf *b, const struct facts *f)
{
	struct json_writer	jw;
	size_t			i;

	json_init(&jw, b);
	json_object_begin(&jw, NULL, JSON_LINES);
	json_int(&jw, "version", 1);
	json_str(&jw, "node", f->node);
	json_object_begin(&jw, "os", 0);
	json_str(&jw, "id", f->os_id);
	json_str(&jw, "version_id", f->os_version_id);
	json_str(&jw, "pretty_name", f->os_pretty);
	json_end(&jw);
	json_str(&jw, "kernel", f->kernel);
	json_object_begin(&jw, "cpu", 0);
	json_str(&jw, "model", f->cpu_model);
	json_str(&jw, "arch", f->arch);
	facts_jlong(&jw, "sockets", f->cpu_sockets);
	facts_jlong(&jw, "cores", f->cpu_cores);
	facts_jlong(&jw, "threads", f->cpu_threads);
	json_end(&jw);
	facts_jlong(&jw, "memory_kb", f->mem_kb);
	facts_jlong(&jw, "hugepages_kb", f->hugepages_kb);
	facts_json_pci(&jw, f);
	facts_json_gpus(&jw, f);
	facts_json_nets(&jw, f);
	json_array_begin(&jw, "disks", JSON_LINES);
	for (i = 0; i < f->ndisks; i++) {
		const struct facts_disk	*d = &f->disks[i];

		json_object_begin(&jw, NULL, 0);
		json_str(&jw, "name", d->name);
		facts_jlong(&jw, "size_bytes", d->size_bytes);
		if (d->rotational < 0)
			json_null(&jw, "rotational");
		else
			json_bool(&jw, "rotational", d->rotational);
		json_str(&jw, "model", d->model);
		json_end(&jw);
	}
	json_end(&jw);
	json_strvec(&jw, "notes", &f->notes);
	json_end(&jw);
	json_finish(&jw);
}

/* ------------------------------------------------------------------ */
/* JSON in (through yml: JSON is YAML) */

struct facts_jr {
	const struct yml_doc	*doc;
	const char		*bad;	/* first key of the wrong type */
	unsigned		 line;
};

static const struct yml_node *
facts_jr_get(struct facts_jr *jr, const struct yml_node *map, const char *k,
    int kind)
{
	const struct yml_node	*n;

	if (map == NULL || map->kind != YML_MAP)
		return NULL;
	n = yml_map_get(map, k);
	if (n == NULL || yml_is_null(n))
		return NULL;
	if (n->kind != kind) {
		if (jr->bad == NULL) {
			jr->bad = k;
			jr->line = n->line;
		}
		return NULL;
	}
	return n;
}

static char *
facts_jr_str(struct facts_jr *jr, const struct yml_node *map, const char *k)
{
	const struct yml_node	*n = facts_jr_get(jr, map, k, YML_SCALAR);

	return n != NULL ? xstrdup(n->u.s) : NULL;
}

static long long
facts_jr_num(struct facts_jr *jr, const struct yml_node *map, const char *k)
{
	const struct yml_node	*n = facts_jr_get(jr, map, k, YML_SCALAR);
	char			*end;
	long long		 v;

	if (n == NULL)
		return -1;
	errno = 0;
	v = strtoll(n->u.s, &end, 10);
	if (errno != 0 || *end != '\0' || end == n->u.s || v < 0) {
		if (jr->bad == NULL) {
			jr->bad = k;
			jr->line = n->line;
		}
		return -1;
	}
	return v;
}

static double
facts_jr_dbl(struct facts_jr *jr, const struct yml_node *map, const char *k)
{
	const struct yml_node	*n = facts_jr_get(jr, map, k, YML_SCALAR);
	double			 v;

	if (n == NULL)
		return -1;
	if (str_to_double(n->u.s, &v) != 0 || v < 0) {
		if (jr->bad == NULL) {
			jr->bad = k;
			jr->line = n->line;
		}
		return -1;
	}
	return v;
}

static long
facts_jr_hex(struct facts_jr *jr, const struct yml_node *map, const char *k)
{
	const struct yml_node	*n = facts_jr_get(jr, map, k, YML_SCALAR);
	long			 v;

	if (n == NULL)
		return -1;
	if ((v = str_hex(n->u.s)) < 0 && jr->bad == NULL) {
		jr->bad = k;
		jr->line = n->line;
	}
	return v;
}

/* The items of list `k` (count in *n), or NULL. */
static struct yml_node *const *
facts_jr_list(struct facts_jr *jr, const struct yml_node *map, const char *k,
    size_t *n)
{
	const struct yml_node	*l = facts_jr_get(jr, map, k, YML_SEQ);

	*n = l != NULL ? l->n : 0;
	return l != NULL ? l->u.items : NULL;
}

/* "pci": each device into its slot's entry (-1: one without a slot). */
static int
facts_jr_pci(struct facts_jr *jr, struct facts *f, const struct yml_node *root,
    const char *label, struct prov_err *err)
{
	struct yml_node *const	*items;
	const struct yml_node	*o, *c;
	size_t			 i, n;

	items = facts_jr_list(jr, root, "pci", &n);
	for (i = 0; i < n; i++) {
		struct facts_pci	*d;
		char			*slot;

		o = items[i];
		if ((slot = facts_jr_str(jr, o, "slot")) == NULL ||
		    (d = facts_pci_get(f, slot)) == NULL) {
			free(slot);
			prov_err_set(err, PROV_E_PARSE, "%s:%u: a PCI device "
			    "without a valid \"slot\"", label, o->line);
			return -1;
		}
		free(slot);
		/* A slot listed twice: the later entry wins, nothing leaks. */
		free(d->class_name);
		free(d->vendor_name);
		free(d->device_name);
		free(d->name_source);
		free(d->driver);
		d->class_id = facts_jr_hex(jr, o, "class");
		d->vendor_id = facts_jr_hex(jr, o, "vendor");
		d->device_id = facts_jr_hex(jr, o, "device");
		d->svendor_id = facts_jr_hex(jr, o, "svendor");
		d->sdevice_id = facts_jr_hex(jr, o, "sdevice");
		d->class_name = facts_jr_str(jr, o, "class_name");
		d->vendor_name = facts_jr_str(jr, o, "vendor_name");
		d->device_name = facts_jr_str(jr, o, "device_name");
		d->name_source = facts_jr_str(jr, o, "name_source");
		d->driver = facts_jr_str(jr, o, "driver");
		d->numa_node = (long)facts_jr_num(jr, o, "numa_node");
		c = facts_jr_get(jr, o, "link", YML_MAP);
		d->link.speed = facts_jr_dbl(jr, c, "speed");
		d->link.width = (long)facts_jr_num(jr, c, "width");
		d->link.max_speed = facts_jr_dbl(jr, c, "max_speed");
		d->link.max_width = (long)facts_jr_num(jr, c, "max_width");
	}
	return 0;
}

/* "gpus": one entry a GPU nvidia-smi saw. */
static void
facts_jr_gpus(struct facts_jr *jr, struct facts *f, const struct yml_node *root)
{
	struct yml_node *const	*items;
	const struct yml_node	*o;
	size_t			 i, n;

	items = facts_jr_list(jr, root, "gpus", &n);
	for (i = 0; i < n; i++) {
		struct facts_gpu	*g;

		o = items[i];
		ALLOC_GROW(f->gpus, f->ngpus + 1, f->gpus_alloc);
		g = &f->gpus[f->ngpus++];
		memset(g, 0, sizeof *g);
		g->index = (long)facts_jr_num(jr, o, "index");
		g->name = facts_jr_str(jr, o, "name");
		g->bus_id = facts_jr_str(jr, o, "bus_id");
		g->pci_id = facts_jr_str(jr, o, "pci_id");
		g->catalog_id = facts_jr_str(jr, o, "catalog_id");
		g->uuid = facts_jr_str(jr, o, "uuid");
		g->memory_mib = (long)facts_jr_num(jr, o, "memory_mib");
		g->driver_version = facts_jr_str(jr, o, "driver_version");
		g->persistence = facts_jr_str(jr, o, "persistence");
		g->mig_mode = facts_jr_str(jr, o, "mig_mode");
		g->ecc_mode = facts_jr_str(jr, o, "ecc_mode");
		g->mig_devices = (long)facts_jr_num(jr, o, "mig_devices");
		g->gen = (long)facts_jr_num(jr, o, "pcie_gen");
		g->max_gen = (long)facts_jr_num(jr, o, "pcie_max_gen");
		g->width = (long)facts_jr_num(jr, o, "pcie_width");
		g->max_width = (long)facts_jr_num(jr, o, "pcie_max_width");
		g->source = facts_jr_str(jr, o, "source");
	}
}

/* "nics": the network interfaces. */
static void
facts_jr_nics(struct facts_jr *jr, struct facts *f, const struct yml_node *root)
{
	struct yml_node *const	*items;
	const struct yml_node	*o;
	size_t			 i, n;

	items = facts_jr_list(jr, root, "nics", &n);
	for (i = 0; i < n; i++) {
		struct facts_nic	*nic;

		o = items[i];
		ALLOC_GROW(f->nics, f->nnics + 1, f->nics_alloc);
		nic = &f->nics[f->nnics++];
		memset(nic, 0, sizeof *nic);
		nic->name = facts_jr_str(jr, o, "name");
		nic->speed_mbps = (long)facts_jr_num(jr, o, "speed_mbps");
		nic->mtu = (long)facts_jr_num(jr, o, "mtu");
		nic->state = facts_jr_str(jr, o, "state");
		nic->mac = facts_jr_str(jr, o, "mac");
		nic->pci_slot = facts_jr_str(jr, o, "pci_slot");
	}
}

/* "ib": the InfiniBand ports, by CA and port. */
static void
facts_jr_ib(struct facts_jr *jr, struct facts *f, const struct yml_node *root)
{
	struct yml_node *const	*items;
	const struct yml_node	*o;
	size_t			 i, n;

	items = facts_jr_list(jr, root, "ib", &n);
	for (i = 0; i < n; i++) {
		struct facts_ib	*p;
		char		*ca;

		o = items[i];
		ca = facts_jr_str(jr, o, "ca");
		p = facts_ib_add(f, ca != NULL ? ca : "", -1);
		free(ca);
		p->port = (long)facts_jr_num(jr, o, "port");
		p->state = facts_jr_str(jr, o, "state");
		p->phys_state = facts_jr_str(jr, o, "phys_state");
		p->rate_gbps = facts_jr_dbl(jr, o, "rate_gbps");
		p->link_layer = facts_jr_str(jr, o, "link_layer");
	}
}

/* "disks": the block devices. */
static void
facts_jr_disks(struct facts_jr *jr, struct facts *f, const struct yml_node *root)
{
	struct yml_node *const	*items;
	const struct yml_node	*o;
	size_t			 i, n;

	items = facts_jr_list(jr, root, "disks", &n);
	for (i = 0; i < n; i++) {
		struct facts_disk	*d;
		const struct yml_node	*rot;

		o = items[i];
		ALLOC_GROW(f->disks, f->ndisks + 1, f->disks_alloc);
		d = &f->disks[f->ndisks++];
		memset(d, 0, sizeof *d);
		d->name = facts_jr_str(jr, o, "name");
		d->size_bytes = facts_jr_num(jr, o, "size_bytes");
		rot = facts_jr_get(jr, o, "rotational", YML_SCALAR);
		d->rotational = rot == NULL ? -1 :
		    strcmp(rot->u.s, "true") == 0 ? 1 : 0;
		d->model = facts_jr_str(jr, o, "model");
	}
}

int
facts_from_json(struct facts **out, const char *label, const char *text,
    size_t len, struct prov_err *err)
{
	struct yml_doc		 doc;
	struct prov_errs	 errs = PROV_ERRS_INIT;
	struct facts_jr		 jr;
	struct facts		*f = NULL;
	struct yml_node *const	*items;
	const struct yml_node	*root, *o;
	size_t			 i, n;
	int			 r = -1;

	*out = NULL;
	yml_doc_init(&doc);
	memset(&jr, 0, sizeof jr);
	jr.doc = &doc;
	if (yml_load(&doc, label, text, len, &errs) != 0 || errs.n > 0) {
		if (errs.n > 0) {
			prov_err_move(err, &errs.v[0]);
			err->code = PROV_E_PARSE;
		} else
			prov_err_set(err, PROV_E_PARSE, "%s: not JSON", label);
		goto out;
	}
	root = doc.root;
	if (root == NULL || root->kind != YML_MAP ||
	    (o = yml_map_get(root, "version")) == NULL ||
	    o->kind != YML_SCALAR || strcmp(o->u.s, "1") != 0) {
		prov_err_set(err, PROV_E_PARSE, "%s: not facts (no "
		    "\"version\": 1)", label);
		goto out;
	}
	f = facts_new();
	f->node = facts_jr_str(&jr, root, "node");
	f->kernel = facts_jr_str(&jr, root, "kernel");
	f->mem_kb = facts_jr_num(&jr, root, "memory_kb");
	f->hugepages_kb = facts_jr_num(&jr, root, "hugepages_kb");
	o = facts_jr_get(&jr, root, "os", YML_MAP);
	f->os_id = facts_jr_str(&jr, o, "id");
	f->os_version_id = facts_jr_str(&jr, o, "version_id");
	f->os_pretty = facts_jr_str(&jr, o, "pretty_name");
	o = facts_jr_get(&jr, root, "cpu", YML_MAP);
	f->cpu_model = facts_jr_str(&jr, o, "model");
	f->arch = facts_jr_str(&jr, o, "arch");
	f->cpu_sockets = (long)facts_jr_num(&jr, o, "sockets");
	f->cpu_cores = (long)facts_jr_num(&jr, o, "cores");
	f->cpu_threads = (long)facts_jr_num(&jr, o, "threads");

	if (facts_jr_pci(&jr, f, root, label, err) != 0)
		goto out;
	facts_jr_gpus(&jr, f, root);
	facts_jr_nics(&jr, f, root);
	facts_jr_ib(&jr, f, root);
	facts_jr_disks(&jr, f, root);
	items = facts_jr_list(&jr, root, "notes", &n);
	for (i = 0; i < n; i++)
		if (items[i]->kind == YML_SCALAR)
			strvec_push(&f->notes, items[i]->u.s);
	if (jr.bad != NULL) {
		prov_err_set(err, PROV_E_PARSE, "%s:%u: \"%s\" has the wrong "
		    "type", label, jr.line, jr.bad);
		goto out;
	}
	*out = f;
	f = NULL;
	r = 0;
out:
	facts_free(f);
	prov_errs_release(&errs);
	yml_doc_release(&doc);
	return r;
}

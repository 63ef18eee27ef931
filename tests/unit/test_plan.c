#include "test.h"

#include <math.h>
#include <sys/stat.h>

#include "buf.h"
#include "err.h"
#include "plan.h"
#include "schema.h"
#include "ssh.h"
#include "yml.h"

/* Two lines every plan needs; cases below start at line 3. */
#define HDR "version: 1\ncluster: { name: t }\n"
#define KARG_HINT "(NAME or NAME=VALUE with letters, digits and '_.,:=/+-', " \
    "like 'hugepages=64')\n"

/* HDR and one of each section to refer to; cases start at line 9. */
#define BASE HDR \
	"hardware:\n  gn: { system: dgx-a100 }\n" \
	"racks:\n  r01: { units: 42 }\n" \
	"networks:\n  mgmt: { cidr: 10.0.0.0/24 }\n"

/* A loaded plan, or the errors that stopped it. */
struct test_plan {
	struct plan		*p;
	struct prov_errs	 errs;
	struct plan_opts	 opts;
	char			*profiles;
	int			 r;
};

static void
test_plan_opts(struct test_plan *t)
{
	memset(t, 0, sizeof *t);
	t->opts = (struct plan_opts)PLAN_OPTS_INIT;
	t->profiles = test_path("profiles");
	t->opts.builtin_dir = t->profiles;
}

static void
test_plan_buf(struct test_plan *t, const char *label, const char *text)
{
	test_plan_opts(t);
	t->r = plan_load_buf(&t->p, label, text, strlen(text), &t->opts,
	    &t->errs);
}

static void
test_plan_file(struct test_plan *t, const char *path)
{
	test_plan_opts(t);
	t->r = plan_load(&t->p, path, &t->opts, &t->errs);
}

static void
test_plan_release(struct test_plan *t)
{
	plan_free(t->p);
	prov_errs_release(&t->errs);
	strvec_clear(&t->opts.profile_dirs);
	free(t->profiles);
}

/* Every error as printed, one a line (caller frees). */
static char *
test_plan_errs(const struct prov_errs *errs)
{
	struct buf	b = BUF_INIT;
	size_t		i;

	buf_adds(&b, "");
	for (i = 0; i < errs->n; i++) {
		char	*s = prov_err_format(&errs->v[i]);

		buf_addf(&b, "%s\n", s);
		free(s);
	}
	return buf_detach(&b, NULL);
}

static void
test_plan_ok(const struct test_plan *t)
{
	char	*s = test_plan_errs(&t->errs);

	ck_assert_msg(t->r == 0 && t->p != NULL && t->errs.n == 0,
	    "load gave %d:\n%s", t->r, s);
	free(s);
}

static struct plan_node *
test_plan_node(const struct plan *p, const char *name)
{
	struct plan_node	*n = plan_node(p, name);

	ck_assert_msg(n != NULL, "no node '%s'", name);
	return n;
}

/* Every example loads. */

static const char *const examples[] = {
	"examples/dgx-a100-pod.yaml",
	"examples/dgx-b200-pod.yaml",
	"examples/edge-inference.yaml",
	"examples/gb200-nvl72.yaml",
	"examples/sizing/h100-16k.yaml",
	"examples/hgx-h200-xe9680.yaml",
	"examples/pcie-lab.yaml",
	"examples/sizing/selene.yaml",
	"examples/testbed.yaml",
	"examples/testbed-vm.yaml",
	"examples/testbed-shared.yaml",
};

START_TEST(test_plan_examples)
{
	struct test_plan	 t;
	char			*path = test_path(examples[_i]);

	test_plan_file(&t, path);
	test_plan_ok(&t);
	ck_assert_uint_gt(t.p->nnodes, 0);
	ck_assert_str_eq(t.p->file, path);
	test_plan_release(&t);
	free(path);
}
END_TEST

/* No example is left out of the table above. */
START_TEST(test_plan_examples_all)
{
	struct strvec	 sv = STRVEC_INIT;
	char		*dir = test_path("examples"), *cmd;
	FILE		*fp;
	char		 line[256];
	size_t		 i, n = 0;

	/* examples/sizing/ too: plans for `estimate` that pxe and report
	   tests leave out (thousands of nodes, no OS). */
	cmd = xasprintf("cd '%s' && find . -name '*.yaml' | sed 's|^\\./||'", dir);
	fp = popen(cmd, "r");
	ck_assert_ptr_nonnull(fp);
	while (fgets(line, sizeof line, fp) != NULL) {
		line[strcspn(line, "\n")] = '\0';
		if (strlen(line) < 5 || strcmp(line + strlen(line) - 5,
		    ".yaml") != 0)
			continue;
		n++;
		strvec_pushf(&sv, "examples/%s", line);
	}
	pclose(fp);
	ck_assert_uint_eq(n, ARRAY_SIZE(examples));
	for (i = 0; i < ARRAY_SIZE(examples); i++)
		ck_assert_msg(strvec_find(&sv, examples[i]) >= 0, "%s",
		    examples[i]);
	strvec_clear(&sv);
	free(cmd);
	free(dir);
}
END_TEST

/* Examples change with the project: the details are checked here. */
static const char expand_plan[] =
    "version: 1\n"
    "cluster: { name: lab, domain: lab.internal }\n"
    "hardware:\n"
    "  dgx: { system: dgx-a100 }\n"
    "  gpu-node:\n"
    "    system: supermicro-as-4124gs-tnr\n"
    "    cpu: { model: epyc-7763, count: 2 }\n"
    "    memory_gb: 1024\n"
    "    gpus: { model: a100-pcie-80gb, count: 8 }\n"
    "    nics: [ { model: connectx-6-hdr-1p, network: fabric } ]\n"
    "    drives: [ { kind: nvme, count: 4, tb: 3.84 } ]\n"
    "    psu: { count: 4, watts: 2000, redundancy: '2+2' }\n"
    "racks:\n"
    "  r01: &rack\n"
    "    units: 42\n"
    "    pdus: [ { volts: 230, amps: 32, phases: 3, feed: A },\n"
    "            { volts: 230, amps: 32, phases: 3, feed: B } ]\n"
    "  r02: *rack\n"
    "networks:\n"
    "  mgmt: { cidr: 10.10.0.0/16, role: management }\n"
    "  fabric: { cidr: 10.20.0.0/16, kind: infiniband, gbps: 200 }\n"
    "switches:\n"
    "  ib-01: { model: qm8700, network: fabric, rack: r01, u: 42 }\n"
    "nodes:\n"
    "  - { name: head-01, role: head, rack: r02, u: 40, address: 10.10.0.10,\n"
    "      mac: '0c:c4:7a:00:00:10', vm: { memory_mib: 2048 } }\n"
    "  - &gpu\n"
    "    name: 'gpu[01-04]'\n"
    "    hardware: gpu-node\n"
    "    vm: { memory_mib: 4096, cpus: 2 }\n"
    "    rack: r01\n"
    "    u: 2\n"
    "    address: '10.10.1.[1-4]'\n"
    "    interfaces: { fabric: '10.20.1.[1-4]' }\n"
    "  - <<: *gpu\n"
    "    name: 'gpu[05-08]'\n"
    "    rack: r02\n"
    "    address: '10.10.1.[5-8]'\n"
    "    interfaces: { fabric: '10.20.1.[5-8]' }\n"
    "  - name: 'dgx[01-04]'\n"
    "    hardware: dgx\n"
    "    rack: r02\n"
    "    u: 14\n"
    "    address: '10.10.2.[1-4]'\n"
    "    macs: [ '0c:c4:7a:00:01:01', '0c:c4:7a:00:01:02',\n"
    "            '0c:c4:7a:00:01:03', '0c:c4:7a:00:01:04' ]\n"
    "    bmc: { address: '10.10.3.[111-114]', user: admin,\n"
    "           password_env: BMC_PASSWORD }\n"
    "software:\n"
    "  os: { distro: ubuntu, release: '22.04' }\n"
    "  container_runtime: { engine: docker, nvidia_toolkit: true }\n"
    "  orchestrator:\n"
    "    kind: slurm\n"
    "    slurm: { partitions: [ { name: gpu, nodes: 'gpu[01-08],dgx[01-04]',\n"
    "                             default: true, max_time: '2-00:00:00' } ] }\n"
    "  monitoring: { prometheus: head-01 }\n";

START_TEST(test_plan_expand)
{
	struct test_plan	 t;
	struct plan_node	*n, **sel;
	struct prov_err		 err = PROV_ERR_INIT;
	static const char *const names[] = { "head-01", "gpu01", "gpu02",
	    "gpu03", "gpu04", "gpu05", "gpu06", "gpu07", "gpu08", "dgx01",
	    "dgx02", "dgx03", "dgx04" };
	char			 want[32];
	size_t			 i, nsel;

	test_plan_buf(&t, "lab.yaml", expand_plan);
	test_plan_ok(&t);
	ck_assert_str_eq(t.p->cluster, "lab");
	ck_assert_str_eq(t.p->domain, "lab.internal");
	ck_assert_uint_eq(t.p->nnodes, ARRAY_SIZE(names));
	for (i = 0; i < ARRAY_SIZE(names); i++) {
		ck_assert_str_eq(t.p->nodes[i].name, names[i]);
		ck_assert_ptr_eq(plan_node(t.p, names[i]), &t.p->nodes[i]);
	}

	/* A range of names, its addresses and interfaces, in step. */
	for (i = 1; i <= 8; i++) {
		snprintf(want, sizeof want, "gpu%02zu", i);
		n = test_plan_node(t.p, want);
		snprintf(want, sizeof want, "10.10.1.%zu", i);
		ck_assert_str_eq(n->address, want);
		snprintf(want, sizeof want, "10.20.1.%zu", i);
		ck_assert_str_eq(plan_node_addr(n, "fabric"), want);
		ck_assert_ptr_null(plan_node_addr(n, "mgmt"));
		ck_assert_uint_eq(n->index, (i - 1) % 4);
		ck_assert_int_eq(n->role, PLAN_ROLE_WORKER);
		ck_assert_str_eq(n->hardware, "gpu-node");
		ck_assert_ptr_null(n->bmc);
		ck_assert_ptr_null(n->mac);
	}
	/* A testbed VM's size: per entry, merged, 0 where unset. */
	n = test_plan_node(t.p, "head-01");
	ck_assert_int_eq(n->vm.memory_mib, 2048);
	ck_assert_int_eq(n->vm.cpus, 0);
	n = test_plan_node(t.p, "gpu07");
	ck_assert_int_eq(n->vm.memory_mib, 4096);
	ck_assert_int_eq(n->vm.cpus, 2);
	ck_assert_int_eq(test_plan_node(t.p, "dgx01")->vm.memory_mib, 0);
	/* Merged from the &gpu entry, then overridden. */
	ck_assert_str_eq(test_plan_node(t.p, "gpu06")->rack, "r02");
	ck_assert_str_eq(test_plan_node(t.p, "gpu03")->rack, "r01");

	/* u fills upward by chassis height: 4U, then the 6U DGX A100. */
	ck_assert_int_eq(test_plan_node(t.p, "gpu01")->u, 2);
	ck_assert_int_eq(test_plan_node(t.p, "gpu02")->u, 6);
	ck_assert_int_eq(test_plan_node(t.p, "gpu04")->u, 14);
	ck_assert_int_eq(test_plan_node(t.p, "gpu05")->u, 2);
	ck_assert_int_eq(test_plan_node(t.p, "dgx01")->u, 14);
	ck_assert_int_eq(test_plan_node(t.p, "dgx02")->u, 20);
	ck_assert_int_eq(test_plan_node(t.p, "dgx03")->u, 26);
	ck_assert_int_eq(test_plan_node(t.p, "dgx04")->u, 32);
	ck_assert_int_eq(test_plan_node(t.p, "dgx01")->hw->sys->rack_units, 6);
	ck_assert_int_eq(test_plan_node(t.p, "head-01")->u, 40);
	ck_assert_int_eq(test_plan_node(t.p, "head-01")->role, PLAN_ROLE_HEAD);
	ck_assert_str_eq(test_plan_node(t.p, "head-01")->mac,
	    "0c:c4:7a:00:00:10");

	/* BMC addresses and MACs per node of a range. */
	for (i = 1; i <= 4; i++) {
		snprintf(want, sizeof want, "dgx%02zu", i);
		n = test_plan_node(t.p, want);
		ck_assert_ptr_nonnull(n->bmc);
		snprintf(want, sizeof want, "10.10.3.%zu", 110 + i);
		ck_assert_str_eq(n->bmc->address, want);
		ck_assert_str_eq(n->bmc->user, "admin");
		ck_assert_str_eq(n->bmc->password_env, "BMC_PASSWORD");
		ck_assert_ptr_null(n->bmc->password_file);
		ck_assert_int_eq(n->bmc->port, 443);
		ck_assert_int_eq(n->bmc->insecure, 0);
		snprintf(want, sizeof want, "0c:c4:7a:00:01:%02zu", i);
		ck_assert_str_eq(n->mac, want);
	}

	/* Hardware resolved against the catalog; the system fills gaps. */
	n = test_plan_node(t.p, "gpu01");
	ck_assert_ptr_eq(n->hw, plan_hw_find(t.p, "gpu-node"));
	ck_assert_ptr_nonnull(n->hw->sys);
	ck_assert_str_eq(n->hw->gpu_cat->m.id, "a100-pcie-80gb");
	ck_assert_int_eq(n->hw->ngpus, 8);
	ck_assert_int_eq(n->hw->ncpus, 2);
	ck_assert(n->hw->mem_gb == 1024);
	ck_assert_uint_eq(n->hw->nnics, 1);
	ck_assert_int_eq(n->hw->nics[0].count, 1);
	ck_assert_ptr_nonnull(n->hw->nics[0].cat);
	ck_assert(n->hw->drives[0].tb == 3.84);
	ck_assert_int_eq(n->hw->psu.count, 4);
	ck_assert_str_eq(n->hw->psu.redundancy, "2+2");
	n = test_plan_node(t.p, "dgx02");
	ck_assert_int_eq(n->hw->ngpus, 8);
	ck_assert_str_eq(n->hw->gpu_cat->m.id, "a100-sxm4-40gb");
	ck_assert_ptr_null(plan_hw_find(t.p, "nope"));

	/* r02 is an alias of r01: same numbers, its own name. */
	ck_assert_str_eq(plan_rack_find(t.p, "r02")->name, "r02");
	ck_assert_int_eq(plan_rack_find(t.p, "r02")->units, 42);
	ck_assert_uint_eq(plan_rack_find(t.p, "r02")->npdus, 2);
	ck_assert_str_eq(plan_rack_find(t.p, "r02")->pdus[1].feed, "B");
	ck_assert_int_eq(plan_rack_find(t.p, "r02")->pdus[0].phases, 3);
	ck_assert_ptr_eq(test_plan_node(t.p, "gpu05")->rackp,
	    plan_rack_find(t.p, "r02"));
	ck_assert_ptr_null(plan_rack_find(t.p, "r03"));

	ck_assert_str_eq(plan_net_find(t.p, "fabric")->kind, "infiniband");
	ck_assert(plan_net_find(t.p, "fabric")->gbps == 200);
	ck_assert_int_eq(plan_net_find(t.p, "mgmt")->prefix, 16);
	ck_assert_uint_eq(plan_net_find(t.p, "mgmt")->addr, 0x0a0a0000);
	ck_assert_uint_eq(plan_net_find(t.p, "mgmt")->mask, 0xffff0000);
	ck_assert_str_eq(plan_net_find(t.p, "mgmt")->role, "management");
	ck_assert_ptr_null(plan_net_find(t.p, "nope"));
	ck_assert_uint_eq(t.p->nswitches, 1);
	ck_assert_ptr_nonnull(t.p->switches[0].cat);
	ck_assert_int_eq(t.p->switches[0].u, 42);

	ck_assert_str_eq(t.p->sw.orchestrator, "slurm");
	ck_assert_str_eq(t.p->sw.runtime, "docker");
	ck_assert_int_eq(t.p->sw.nvidia_toolkit, 1);
	ck_assert_uint_eq(t.p->sw.npartitions, 1);
	ck_assert_int_eq(t.p->sw.partitions[0].is_default, 1);
	ck_assert_str_eq(t.p->sw.partitions[0].max_time, "2-00:00:00");
	ck_assert_str_eq(t.p->sw.prometheus, "head-01");

	/* Hostlists select plan nodes. */
	ck_assert_ok(plan_select(&sel, &nsel, t.p, t.p->sw.partitions[0].nodes,
	    &err), &err);
	ck_assert_uint_eq(nsel, 12);
	ck_assert_str_eq(sel[0]->name, "gpu01");
	ck_assert_str_eq(sel[11]->name, "dgx04");
	free(sel);
	ck_assert_int_eq(plan_select(&sel, &nsel, t.p, "gpu[08-09]", &err),
	    -1);
	ck_assert_str_eq(err.msg, "unknown node 'gpu09' in 'gpu[08-09]'");
	ck_assert_ptr_null(sel);
	prov_err_release(&err);
	ck_assert_int_eq(plan_select(&sel, &nsel, t.p, "gpu[", &err), -1);
	prov_err_release(&err);
	/* No hostlist: every node, in plan order. */
	ck_assert_ok(plan_select(&sel, &nsel, t.p, NULL, &err), &err);
	ck_assert_uint_eq(nsel, t.p->nnodes);
	ck_assert_ptr_eq(sel[0], &t.p->nodes[0]);
	ck_assert_ptr_eq(sel[nsel - 1], &t.p->nodes[t.p->nnodes - 1]);
	free(sel);

	/* Locations point back into the file. */
	n = test_plan_node(t.p, "dgx03");
	ck_assert_uint_eq(plan_loc(t.p, n->src, NULL).line, 40);
	ck_assert_uint_eq(plan_loc(t.p, n->src, "u").line, 43);
	ck_assert_uint_eq(plan_loc(t.p, n->src, "u").col, 8);
	ck_assert_str_eq(plan_loc(t.p, n->src, "u").file, "lab.yaml");
	ck_assert_uint_eq(plan_loc(t.p, NULL, "u").line, 0);
	test_plan_release(&t);
}
END_TEST

START_TEST(test_plan_role_names)
{
	ck_assert_str_eq(plan_role_name(PLAN_ROLE_WORKER), "worker");
	ck_assert_str_eq(plan_role_name(PLAN_ROLE_HEAD), "head");
	ck_assert_str_eq(plan_role_name(PLAN_ROLE_LOGIN), "login");
	ck_assert_str_eq(plan_role_name(PLAN_ROLE_STORAGE), "storage");
	ck_assert_str_eq(plan_role_name(PLAN_ROLE_SERVICE), "service");
	ck_assert_str_eq(plan_role_name((enum plan_role)99), "?");
}
END_TEST

static const struct {
	const char	*in;
	int		 ok;
	uint32_t	 want;
} ipv4_cases[] = {
	{ "192.0.2.10", 1, 0xc000020a },
	{ "0.0.0.0", 1, 0 },
	{ "255.255.255.255", 1, 0xffffffff },
	{ "10.0.0.256", 0, 0 },
	{ "10.0.0", 0, 0 },
	{ "10.0.0.1.2", 0, 0 },
	{ "10.0.0.01", 0, 0 },
	{ "10.0.0.1 ", 0, 0 },
	{ "a.b.c.d", 0, 0 },
	{ "", 0, 0 },
	{ "::1", 0, 0 },
};

START_TEST(test_plan_ipv4_table)
{
	uint32_t	a = 12345;

	ck_assert_msg((plan_parse_ipv4(ipv4_cases[_i].in, &a) == 0) ==
	    ipv4_cases[_i].ok, "'%s'", ipv4_cases[_i].in);
	if (ipv4_cases[_i].ok)
		ck_assert_uint_eq(a, ipv4_cases[_i].want);
	else
		ck_assert_uint_eq(a, 12345);
}
END_TEST

/* A node limit from the caller. */
START_TEST(test_plan_max_nodes)
{
	struct test_plan	 t;
	const char		*text = HDR "nodes:\n  - { name: 'n[1-10]' }\n"
	    "  - { name: 'm[1-5]' }\n";
	char			*e;

	test_plan_opts(&t);
	t.opts.max_nodes = 12;
	t.r = plan_load_buf(&t.p, "t.yaml", text, strlen(text), &t.opts,
	    &t.errs);
	ck_assert_int_eq(t.r, -1);
	e = test_plan_errs(&t.errs);
	ck_assert_str_eq(e, "t.yaml:5:13: 'm[1-5]' gives 5 nodes; at most 12 "
	    "are allowed (split the plan or raise the limit)\n");
	free(e);
	test_plan_release(&t);

	test_plan_opts(&t);
	t.opts.max_nodes = 15;
	t.r = plan_load_buf(&t.p, "t.yaml", text, strlen(text), &t.opts,
	    &t.errs);
	test_plan_ok(&t);
	ck_assert_uint_eq(t.p->nnodes, 15);
	test_plan_release(&t);
}
END_TEST

/* A big range expands quickly and in order. */
START_TEST(test_plan_big_range)
{
	struct test_plan	 t;

	test_plan_buf(&t, "t.yaml", HDR
	    "networks:\n  n: { cidr: 10.0.0.0/8 }\n"
	    "nodes:\n"
	    "  - { name: 'rack[001-100]-n[001-500]', "
	    "address: '10.[1-100].[1-250].[1-2]' }\n");
	test_plan_ok(&t);
	ck_assert_uint_eq(t.p->nnodes, 50000);
	ck_assert_str_eq(t.p->nodes[0].name, "rack001-n001");
	ck_assert_str_eq(t.p->nodes[0].address, "10.1.1.1");
	ck_assert_str_eq(t.p->nodes[49999].name, "rack100-n500");
	ck_assert_str_eq(t.p->nodes[49999].address, "10.100.250.2");
	ck_assert_str_eq(plan_node(t.p, "rack042-n007")->address,
	    "10.42.4.1");
	test_plan_release(&t);
}
END_TEST

/* Defaults of everything a small plan leaves out. */
START_TEST(test_plan_defaults)
{
	struct test_plan	 t;
	struct plan_node	*n;
	char			*home;

	test_plan_buf(&t, "/srv/plans/small.yaml", HDR
	    "racks:\n  r: { units: 10, pdus: [ { volts: 230, amps: 16 } ] }\n"
	    "networks:\n  n: { cidr: 192.0.2.0/24 }\n"
	    "nodes:\n  - { name: a }\n");
	test_plan_ok(&t);
	ck_assert_str_eq(t.p->dir, "/srv/plans");
	ck_assert_ptr_null(t.p->domain);
	ck_assert_str_eq(t.p->ssh.user, "root");
	ck_assert_ptr_null(t.p->ssh.become);
	ck_assert_int_eq(t.p->ssh.port, 22);
	ck_assert_int_eq(t.p->ssh.forks, 64);
	ck_assert_int_eq(t.p->ssh.max_startups, 100);
	ck_assert_int_eq(t.p->ssh.connect_timeout_s, 10);
	ck_assert_int_eq(t.p->ssh.command_timeout_s, 0);
	ck_assert_int_eq(t.p->ssh.host_keys, PLAN_HOST_KEYS_STRICT);
	home = xasprintf("%s/.ssh/id_ed25519", getenv("HOME") ?
	    getenv("HOME") : "");
	ck_assert_str_eq(t.p->ssh.identity, home);
	free(home);
	ck_assert_str_eq(t.p->sw.orchestrator, "none");
	ck_assert_int_eq(t.p->sw.node_exporter, 1);
	ck_assert_int_eq(t.p->sw.dcgm_exporter, 0);
	ck_assert_ptr_null(t.p->sw.runtime);
	ck_assert_str_eq(t.p->racks[0].pdus[0].feed, "A");
	ck_assert_int_eq(t.p->racks[0].pdus[0].phases, 1);
	ck_assert(t.p->racks[0].pdus[0].derate == 0.8);
	ck_assert(isnan(t.p->racks[0].cooling_kw));
	ck_assert_str_eq(t.p->nets[0].kind, "ethernet");
	ck_assert(isnan(t.p->nets[0].gbps));
	n = test_plan_node(t.p, "a");
	ck_assert_int_eq(n->role, PLAN_ROLE_WORKER);
	ck_assert_ptr_null(n->hw);
	ck_assert_ptr_null(n->address);
	ck_assert_ptr_null(n->bmc);
	ck_assert_int_eq(n->u, 0);
	ck_assert_ptr_null(plan_node(t.p, "b"));
	test_plan_release(&t);

	/* A user other than root becomes root with sudo. */
	test_plan_buf(&t, "p.yaml", HDR "ssh: { user: deploy }\n");
	test_plan_ok(&t);
	ck_assert_str_eq(t.p->ssh.become, "sudo");
	ck_assert_str_eq(t.p->dir, ".");
	test_plan_release(&t);
}
END_TEST

/* Paths: relative to the plan's directory, ~ is $HOME. */
START_TEST(test_plan_paths)
{
	struct test_plan	 t;
	struct ssh_config	 cfg;
	const char		*old = getenv("HOME");
	char			*saved = old != NULL ? xstrdup(old) : NULL;

	setenv("HOME", "/home/tester", 1);
	test_plan_buf(&t, "/srv/plans/site/p.yaml", HDR
	    "ssh:\n"
	    "  identity: keys/id_ed25519\n"
	    "  known_hosts: ~/kh\n"
	    "  host_keys: accept-new\n"
	    "nodes:\n"
	    "  - name: a\n"
	    "    bmc: { address: 192.0.2.1, password_file: ../secret,\n"
	    "           ca_file: /etc/ca.pem, insecure: true, port: 8443 }\n");
	test_plan_ok(&t);
	ck_assert_str_eq(t.p->ssh.identity, "/srv/plans/site/keys/id_ed25519");
	ck_assert_str_eq(t.p->ssh.known_hosts, "/home/tester/kh");
	ck_assert_int_eq(t.p->ssh.host_keys, PLAN_HOST_KEYS_ACCEPT_NEW);
	ck_assert_str_eq(plan_node(t.p, "a")->bmc->password_file,
	    "/srv/plans/site/../secret");
	ck_assert_str_eq(plan_node(t.p, "a")->bmc->ca_file, "/etc/ca.pem");
	ck_assert_int_eq(plan_node(t.p, "a")->bmc->insecure, 1);
	ck_assert_int_eq(plan_node(t.p, "a")->bmc->port, 8443);
	test_plan_release(&t);

	/* A plan named without a directory: paths are as written. */
	test_plan_buf(&t, "p.yaml", HDR
	    "ssh: { identity: k, known_hosts: ~ }\n");
	ck_assert_int_eq(t.r, -1);
	test_plan_release(&t);
	test_plan_buf(&t, "p.yaml", HDR
	    "ssh: { identity: k, known_hosts: '~' }\n");
	test_plan_ok(&t);
	ck_assert_str_eq(t.p->ssh.identity, "k");
	ck_assert_str_eq(t.p->ssh.known_hosts, "/home/tester");
	test_plan_release(&t);

	/* A jump host is a node of the plan or [user@]host[:port]. */
	test_plan_buf(&t, "p.yaml", HDR "ssh: { jump: admin@bastion }\n");
	test_plan_ok(&t);
	ck_assert_str_eq(t.p->ssh.jump, "admin@bastion");
	test_plan_release(&t);
	test_plan_buf(&t, "p.yaml", HDR "ssh: { jump: 'bastion:2222' }\n"
	    "nodes: [ { name: bastion } ]\n");
	test_plan_ok(&t);
	test_plan_release(&t);
	test_plan_buf(&t, "p.yaml", HDR "ssh: { jump: head-01 }\n"
	    "nodes: [ { name: head-01 } ]\n");
	test_plan_ok(&t);
	test_plan_release(&t);
	/*
	 * A node is reached at its address, on the plan's port, for every
	 * command (ssh_config_from_plan): exec alone did it once.
	 */
	test_plan_buf(&t, "p.yaml", HDR "ssh: { jump: head-01, port: 2222 }\n"
	    "nodes: [ { name: head-01, address: 192.0.2.1 } ]\n");
	test_plan_ok(&t);
	ck_assert_str_eq(t.p->ssh.jump_host, "head-01:2222");
	ck_assert_str_eq(t.p->ssh.jump_addr, "192.0.2.1");
	ssh_config_from_plan(&cfg, &t.p->ssh);
	ck_assert_str_eq(cfg.jump, "head-01:2222");
	ck_assert_str_eq(cfg.jump_addr, "192.0.2.1");
	test_plan_release(&t);
	test_plan_buf(&t, "p.yaml", HDR "ssh: { jump: head-01 }\n"
	    "nodes: [ { name: head-01, address: 192.0.2.1 } ]\n");
	test_plan_ok(&t);
	ssh_config_from_plan(&cfg, &t.p->ssh);
	ck_assert_str_eq(cfg.jump, "head-01");
	ck_assert_str_eq(cfg.jump_addr, "192.0.2.1");
	test_plan_release(&t);
	test_plan_buf(&t, "p.yaml", HDR "ssh: { jump: admin@bastion:2200 }\n");
	test_plan_ok(&t);
	ssh_config_from_plan(&cfg, &t.p->ssh);
	ck_assert_str_eq(cfg.jump, "admin@bastion:2200");
	ck_assert_ptr_null(cfg.jump_addr);
	test_plan_release(&t);

	/* `identity: null`: the agent and the default keys. */
	test_plan_buf(&t, "p.yaml", HDR "ssh: { identity: null }\n");
	test_plan_ok(&t);
	ck_assert_ptr_null(t.p->ssh.identity);
	test_plan_release(&t);

	/* ~user is not expanded: it is a relative name. */
	test_plan_buf(&t, "/p/p.yaml", HDR "ssh: { identity: ~bob/k }\n");
	test_plan_ok(&t);
	ck_assert_str_eq(t.p->ssh.identity, "/p/~bob/k");
	test_plan_release(&t);

	if (saved != NULL) {
		setenv("HOME", saved, 1);
		free(saved);
	} else
		unsetenv("HOME");
}
END_TEST

/* A scratch directory for plans and profiles on disk (caller frees). */
static char *
test_plan_tmpdir(void)
{
	char	*d = xstrdup("/tmp/provision-test-plan-XXXXXX");

	ck_assert_ptr_nonnull(mkdtemp(d));
	return d;
}

static void
test_plan_write(const char *dir, const char *name, const char *text)
{
	char	*path = xasprintf("%s/%s", dir, name);
	FILE	*fp = fopen(path, "w");

	ck_assert_msg(fp != NULL, "%s", path);
	fputs(text, fp);
	ck_assert_int_eq(fclose(fp), 0);
	free(path);
}

static void
test_plan_rmdir(char *dir)
{
	char	*cmd = xasprintf("rm -rf '%s'", dir);

	ck_assert_int_eq(system(cmd), 0);
	free(cmd);
	free(dir);
}

/* A GPU only a site's profiles dir knows. */
static const char site_gpus[] =
    "gpus:\n"
    "  site-t4:\n"
    "    name: Site T4\n"
    "    vendor: NVIDIA\n"
    "    pci_ids: [\"10de:1eb8\"]\n"
    "    memory_gb: 16\n"
    "    memory_type: GDDR6\n"
    "    memory_bw_gbs: 320\n"
    "    power_w: 70\n"
    "    form_factor: hhhl\n"
    "    slot_width: 1\n"
    "    pcie_gen: 3\n"
    "    pcie_lanes: 16\n"
    "    cooling: passive\n"
    "    nvlink_gbs: 0\n"
    "    mig_max_instances: 0\n"
    "    fp16_tflops: 65\n"
    "    tensor_cores: 320\n"
    "    aliases: [my-t4]\n"
    "    sources: [S-T4]\n"
    "    unconfirmed: []\n"
    "    unknown: []\n";

/* `profiles:` dirs are relative to the plan and extend the catalog. */
START_TEST(test_plan_profiles)
{
	struct test_plan	 t;
	char			*dir = test_plan_tmpdir(), *path, *want;

	want = xasprintf("%s/site", dir);
	ck_assert_int_eq(mkdir(want, 0755), 0);
	free(want);
	test_plan_write(dir, "site/gpus.yaml", site_gpus);
	test_plan_write(dir, "p.yaml", HDR
	    "profiles: [ site ]\n"
	    "hardware:\n"
	    "  h: { system: dell-r650, gpus: { model: my-t4, count: 2 } }\n");
	path = xasprintf("%s/p.yaml", dir);
	test_plan_file(&t, path);
	test_plan_ok(&t);
	ck_assert_str_eq(t.p->dir, dir);
	ck_assert_uint_eq(t.p->profile_dirs.n, 2);
	ck_assert_str_eq(t.p->profile_dirs.v[0], t.profiles);
	want = xasprintf("%s/site", dir);
	ck_assert_str_eq(t.p->profile_dirs.v[1], want);
	free(want);
	/* Found by its alias. */
	ck_assert_str_eq(t.p->hw[0].gpu_cat->m.id, "site-t4");
	ck_assert_int_eq(t.p->hw[0].ngpus, 2);
	test_plan_release(&t);

	/* --profiles dirs come after the plan's. */
	test_plan_write(dir, "q.yaml", HDR
	    "hardware:\n"
	    "  h: { system: dell-r650, gpus: { model: site-t4 } }\n");
	free(path);
	path = xasprintf("%s/q.yaml", dir);
	test_plan_opts(&t);
	strvec_pushf(&t.opts.profile_dirs, "%s/site", dir);
	t.r = plan_load(&t.p, path, &t.opts, &t.errs);
	test_plan_ok(&t);
	ck_assert_uint_eq(t.p->profile_dirs.n, 2);
	ck_assert_int_eq(t.p->hw[0].ngpus, 1);
	test_plan_release(&t);

	/* Without them the model is unknown. */
	test_plan_file(&t, path);
	ck_assert_int_eq(t.r, -1);
	ck_assert_uint_eq(t.errs.n, 1);
	ck_assert_str_eq(t.errs.v[0].msg, "unknown gpu 'site-t4'");
	test_plan_release(&t);
	free(path);
	test_plan_rmdir(dir);
}
END_TEST

/*
 * After a failed load the plan is gone, but its errors are still printed:
 * their file names must not die with it (run under ASan to see).
 */
START_TEST(test_plan_error_files_outlive)
{
	struct test_plan	 t;
	char			*dir = test_plan_tmpdir(), *label, *e, *want;
	char			*sub = xasprintf("%s/bad", dir);

	label = xstrdup("some/where/t.yaml");
	test_plan_buf(&t, label, HDR "nodes: [ { name: a_b } ]\n");
	ck_assert_int_eq(t.r, -1);
	ck_assert_uint_eq(t.errs.n, 1);
	ck_assert_ptr_eq(t.errs.v[0].loc.file, label);
	ck_assert_uint_eq(t.errs.v[0].loc.line, 3);
	test_plan_release(&t);
	free(label);

	/* A broken catalog file: its errors keep the file in their text. */
	ck_assert_int_eq(mkdir(sub, 0755), 0);
	test_plan_write(sub, "gpus.yaml", "gpus:\n  g1: { bogus: 1 }\n");
	label = xasprintf("%s/p.yaml", dir);
	test_plan_write(dir, "p.yaml", HDR "profiles: [ bad ]\nzzz: 1\n");
	test_plan_file(&t, label);
	ck_assert_int_eq(t.r, -1);
	ck_assert_uint_ge(t.errs.n, 2);
	e = test_plan_errs(&t.errs);
	want = xasprintf("%s/bad/gpus.yaml:2:9: unknown key 'bogus'", dir);
	ck_assert_msg(strstr(e, want) != NULL, "no '%s' in\n%s", want, e);
	free(want);
	want = xasprintf("%s:4:1: unknown key 'zzz'\n", label);
	ck_assert_msg(strstr(e, want) != NULL, "no '%s' in\n%s", want, e);
	free(want);
	free(e);
	test_plan_release(&t);
	free(label);
	free(sub);
	test_plan_rmdir(dir);
}
END_TEST

START_TEST(test_plan_missing_file)
{
	struct test_plan	 t;
	char			*e;

	test_plan_file(&t, "/nonexistent/plan.yaml");
	ck_assert_int_eq(t.r, -1);
	ck_assert_ptr_null(t.p);
	e = test_plan_errs(&t.errs);
	ck_assert_str_eq(e, "cannot read plan '/nonexistent/plan.yaml': No "
	    "such file or directory\n");
	free(e);
	test_plan_release(&t);
}
END_TEST

/* Errors: each plan, the exact messages in file order. */

static const struct {
	const char	*what;
	const char	*plan;
	const char	*want;
} error_cases[] = {
	/* Keys. */
	{ "typo key", HDR
	    "hardware:\n"
	    "  g: { system: dgx-a100, gpu: { model: a100-sxm4-80gb } }\n",
	    "t.yaml:4:26: unknown key 'gpu' (did you mean 'gpus'?)\n" },
	{ "typo top key", HDR
	    "node: []\n"
	    "sofware: {}\n"
	    "zzz: 1\n",
	    "t.yaml:3:1: unknown key 'node' (did you mean 'nodes'?)\n"
	    "t.yaml:4:1: unknown key 'sofware' (did you mean 'software'?)\n"
	    "t.yaml:5:1: unknown key 'zzz'\n" },
	{ "typo nested keys", BASE
	    "nodes:\n"
	    "  - { name: a, adress: 10.0.0.1, bmc: { address: 10.0.0.2, "
	    "pasword_env: X } }\n"
	    "software:\n"
	    "  os: { distro: debian, release: '12' }\n"
	    "  orchestrator: { kind: slurm, slurm: { partition: [] } }\n",
	    "t.yaml:10:16: unknown key 'adress' (did you mean 'address'?)\n"
	    "t.yaml:10:60: unknown key 'pasword_env' (did you mean "
	    "'password_env'?)\n"
	    "t.yaml:13:41: unknown key 'partition' (did you mean "
	    "'partitions'?)\n" },
	{ "missing keys", HDR
	    "hardware:\n  g: { cpu: { count: 2 } }\n"
	    "racks:\n  r: { pdus: [ { amps: 16 } ] }\n"
	    "nodes:\n  - { role: head }\n",
	    "t.yaml:4:6: missing key 'system'\n"
	    "t.yaml:4:13: missing key 'model'\n"
	    "t.yaml:6:6: missing key 'units'\n"
	    "t.yaml:6:16: missing key 'volts'\n"
	    "t.yaml:8:5: missing key 'name'\n" },
	/* Types. */
	{ "wrong types", HDR
	    "hardware:\n  g: { system: dgx-a100, memory_gb: lots, nics: 2 }\n"
	    "racks:\n  r: { units: [42] }\n"
	    "networks: [ mgmt ]\n"
	    "nodes: { a: 1 }\n",
	    "t.yaml:4:37: 'memory_gb' must be a number, not 'lots'\n"
	    "t.yaml:4:49: 'nics' must be a list, not '2'\n"
	    "t.yaml:6:15: 'units' must be a whole number, not a list\n"
	    "t.yaml:7:11: 'networks' must be a mapping of names, not a "
	    "list\n"
	    "t.yaml:8:8: 'nodes' must be a list of nodes, not a mapping\n" },
	{ "wrong types 2", HDR
	    "ssh: { forks: many, port: '22', jump: [a], max_startups: 0 }\n"
	    "software:\n"
	    "  os: { distro: debian, release: '12' }\n"
	    "  container_runtime: { engine: docker, nvidia_toolkit: maybe }\n"
	    "  extras: { a: 1 }\n",
	    "t.yaml:3:15: 'forks' must be a whole number, not 'many'\n"
	    "t.yaml:3:27: 'port' must be a whole number, not the string "
	    "'22' (write it without quotes)\n"
	    "t.yaml:3:39: 'jump' must be a string, not a list\n"
	    "t.yaml:3:58: 'max_startups' is 0, outside 1..4096\n"
	    "t.yaml:6:56: 'nvidia_toolkit' must be true or false, not "
	    "'maybe'\n"
	    "t.yaml:7:11: 'extras' must be a list of strings, not a "
	    "mapping\n" },
	/* Kernel arguments reach GRUB's configuration: typed. */
	{ "kernel args and apply", HDR
	    "apply: { reboot_parallel: 0, reboot_timeout_s: 5, reboot: x }\n"
	    "software:\n"
	    "  os: { distro: debian, release: '12' }\n"
	    "  kernel_args: [ hugepages=64, 'a b', '$(reboot)', '\"q\"', "
	    "-x, iommu=pt ]\n",
	    "t.yaml:3:27: 'reboot_parallel' is 0, outside 1..4096\n"
	    "t.yaml:3:48: 'reboot_timeout_s' is 5, outside 30..86400\n"
	    "t.yaml:3:51: unknown key 'reboot'\n"
	    "t.yaml:6:32: 'kernel_args' is not a kernel argument: 'a b' " KARG_HINT
	    "t.yaml:6:39: 'kernel_args' is not a kernel argument: '$(reboot)' "
	    KARG_HINT
	    "t.yaml:6:52: 'kernel_args' is not a kernel argument: '\"q\"' "
	    KARG_HINT
	    "t.yaml:6:59: 'kernel_args' is not a kernel argument: '-x' "
	    KARG_HINT },
	/* A testbed VM's size reaches QEMU's command line: bounded. */
	{ "vm size", HDR
	    "nodes:\n"
	    "  - { name: a, vm: { memory_mib: 100, cpus: 0, disk: 3 } }\n"
	    "  - { name: 'b[1-2]', vm: { memory_mib: 1g, cpus: 65 } }\n"
	    "  - { name: c, vm: 2 }\n",
	    "t.yaml:4:34: 'memory_mib' is 100, outside 256..65536\n"
	    "t.yaml:4:45: 'cpus' is 0, outside 1..64\n"
	    "t.yaml:4:48: unknown key 'disk'\n"
	    "t.yaml:5:41: 'memory_mib' must be a whole number, not '1g'\n"
	    "t.yaml:5:51: 'cpus' is 65, outside 1..64\n"
	    "t.yaml:6:20: expected a mapping, not '2' (write 'key: value' "
	    "pairs)\n" },
	{ "not a mapping", "- version: 1\n",
	    "t.yaml:1:1: 'plan' must be a mapping, not a list\n" },
	{ "scalar plan", "just text\n",
	    "t.yaml:1:1: 'plan' must be a mapping, not 'just text'\n" },
	{ "empty plan", "",
	    "t.yaml: the plan is empty (start with 'version: 1')\n" },
	{ "comment only plan", "# nothing yet\n",
	    "t.yaml: the plan is empty (start with 'version: 1')\n" },
	{ "entry not a mapping", HDR "nodes:\n  - gpu01\n",
	    "t.yaml:4:5: expected a mapping, not 'gpu01' (write 'key: "
	    "value' pairs)\n" },
	{ "enums", HDR
	    "networks:\n  n: { cidr: 10.0.0.0/8, kind: ether, role: mgmt }\n"
	    "nodes:\n  - { name: a, role: headd }\n"
	    "ssh: { host_keys: yes, become: doas }\n",
	    "t.yaml:4:32: unknown kind 'ether' (one of 'ethernet', "
	    "'infiniband')\n"
	    "t.yaml:4:45: unknown role 'mgmt' (one of 'management', "
	    "'cluster', 'fabric', 'storage', 'bmc')\n"
	    "t.yaml:6:22: unknown role 'headd' (did you mean 'head'?)\n"
	    "t.yaml:7:19: unknown host_keys 'yes' (one of 'strict', "
	    "'accept-new')\n"
	    "t.yaml:7:32: unknown become 'doas' (one of 'sudo')\n" },
	{ "out of range", HDR
	    "racks:\n  r: { units: 101, depth_mm: 50 }\n"
	    "nodes:\n  - { name: a, u: 0 }\n"
	    "ssh: { port: 70000 }\n",
	    "t.yaml:4:15: 'units' is 101, outside 1..100\n"
	    "t.yaml:4:30: 'depth_mm' is 50, outside 100..3000\n"
	    "t.yaml:6:19: 'u' is 0, outside 1..100\n"
	    "t.yaml:7:14: 'port' is 70000, outside 1..65535\n" },
	/* Version. */
	{ "version missing", "cluster: { name: t }\n",
	    "t.yaml:1:1: missing key 'version' (add 'version: 1' at the "
	    "top)\n" },
	{ "version 2", "version: 2\ncluster: { name: t }\n",
	    "t.yaml:1:10: unsupported plan version 2 (this provision reads "
	    "version 1)\n" },
	{ "version quoted", "version: '1'\ncluster: { name: t }\n",
	    "t.yaml:1:10: 'version' must be a whole number, not the string "
	    "'1' (write it without quotes)\n" },
	{ "version 1.5", "version: 1.5\ncluster: { name: t }\n",
	    "t.yaml:1:10: 'version' must be a whole number, not '1.5'\n" },
	{ "cluster missing", "version: 1\n",
	    "t.yaml:1:1: missing key 'cluster' (add 'cluster: { name: NAME "
	    "}')\n" },
	{ "cluster name", "version: 1\ncluster: { name: my_lab, "
	    "domain: -x.org }\n",
	    "t.yaml:2:18: 'name' is not a valid host name: 'my_lab' (RFC "
	    "1123: letters, digits and '-', labels of at most 63 "
	    "characters, not starting or ending with '-')\n"
	    "t.yaml:2:34: 'domain' is not a valid host name: '-x.org' (RFC "
	    "1123: letters, digits and '-', labels of at most 63 "
	    "characters, not starting or ending with '-')\n" },
	/* Node expansion. */
	{ "address count", BASE
	    "nodes:\n"
	    "  - { name: 'gpu[01-04]', address: '10.0.0.[1-3]' }\n"
	    "  - { name: 'cpu[1-2]', address: 10.0.0.9 }\n",
	    "t.yaml:10:36: 'address' expands to 3 values for 4 nodes (a "
	    "range of names and the ranges of its addresses must expand to "
	    "the same count)\n"
	    "t.yaml:11:34: 'address' gives 1 value for 2 nodes (give a "
	    "range with one value per node, e.g. '192.0.2.[11-18]')\n" },
	{ "interface and bmc count", BASE
	    "nodes:\n"
	    "  - name: 'gpu[01-04]'\n"
	    "    interfaces: { mgmt: '10.0.0.[1-5]' }\n"
	    "    bmc: { address: '10.0.1.[1-2]' }\n",
	    "t.yaml:11:25: 'mgmt' expands to 5 values for 4 nodes (a range "
	    "of names and the ranges of its addresses must expand to the "
	    "same count)\n"
	    "t.yaml:12:21: 'bmc address' expands to 2 values for 4 nodes "
	    "(a range of names and the ranges of its addresses must expand "
	    "to the same count)\n" },
	{ "bad range", BASE
	    "nodes:\n"
	    "  - { name: 'gpu[04-01]' }\n"
	    "  - { name: 'n[1-2]', address: '10.0.0.[1-' }\n",
	    "t.yaml:10:13: reversed range '04-01' in 'gpu[04-01]'\n"
	    "t.yaml:11:32: 'address' gives 1 value for 2 nodes (give a "
	    "range with one value per node, e.g. '192.0.2.[11-18]')\n" },
	{ "duplicate nodes", BASE
	    "nodes:\n"
	    "  - { name: 'gpu[01-04]' }\n"
	    "  - { name: gpu03 }\n"
	    "  - { name: 'n[1-3]' }\n"
	    "  - { name: 'n[2-4]' }\n",
	    "t.yaml:11:13: duplicate node name 'gpu03' (node names must be "
	    "unique)\n"
	    "t.yaml:13:13: duplicate node name 'n2' (node names must be "
	    "unique)\n"
	    "t.yaml:13:13: duplicate node name 'n3' (node names must be "
	    "unique)\n" },
	{ "bad host names", BASE
	    "nodes:\n"
	    "  - { name: gpu_01 }\n"
	    "  - { name: 'GPU_[1-64]' }\n"
	    "  - { name: -a }\n"
	    "  - { name: a..b }\n"
	    "  - { name: a-very-long-label-of-more-than-sixty-three-characters"
	    "-is-not-allowed }\n",
	    "t.yaml:10:13: 'gpu_01' is not a valid host name (RFC 1123: "
	    "letters, digits and '-', labels of at most 63 characters, not "
	    "starting or ending with '-')\n"
	    "t.yaml:11:13: 'GPU_1' is not a valid host name (RFC 1123: "
	    "letters, digits and '-', labels of at most 63 characters, not "
	    "starting or ending with '-')\n"
	    "t.yaml:12:13: '-a' is not a valid host name (RFC 1123: "
	    "letters, digits and '-', labels of at most 63 characters, not "
	    "starting or ending with '-')\n"
	    "t.yaml:13:13: 'a..b' is not a valid host name (RFC 1123: "
	    "letters, digits and '-', labels of at most 63 characters, not "
	    "starting or ending with '-')\n"
	    "t.yaml:14:13: "
	    "'a-very-long-label-of-more-than-sixty-three-characters-"
	    "is-not-allowed' is not a valid host name (RFC 1123: letters, "
	    "digits and '-', labels of at most 63 characters, not starting "
	    "or ending with '-')\n" },
	{ "mac on a range", BASE
	    "nodes:\n"
	    "  - { name: 'n[1-3]', mac: '0c:c4:7a:00:00:10' }\n"
	    "  - { name: 'm[1-2]', macs: [ '0c:c4:7a:00:00:11' ] }\n",
	    "t.yaml:10:28: 'mac' on a range of 3 nodes (use 'macs: [...]' "
	    "with one MAC per node)\n"
	    "t.yaml:11:29: 'macs' must be a list of 2 MAC addresses\n" },
	{ "too many nodes", BASE
	    "nodes:\n"
	    "  - { name: 'n[1-2000000]' }\n",
	    "t.yaml:10:13: 'n[1-2000000]' gives 2000000 nodes; at most "
	    "1000000 are allowed (split the plan or raise the limit)\n" },
	/* References inside the plan. */
	{ "unknown references", BASE
	    "switches:\n"
	    "  sw: { model: qm8700, network: mgm, rack: r1 }\n"
	    "nodes:\n"
	    "  - { name: a, hardware: gm, rack: r1, "
	    "interfaces: { mgm: 10.0.0.1 } }\n"
	    "  - { name: b, hardware: nothing-like-it, rack: zzzz }\n",
	    "t.yaml:10:33: unknown network 'mgm' (did you mean 'mgmt'?)\n"
	    "t.yaml:10:44: unknown rack 'r1' (did you mean 'r01'?)\n"
	    "t.yaml:12:26: unknown hardware 'gm' (did you mean 'gn'?)\n"
	    "t.yaml:12:36: unknown rack 'r1' (did you mean 'r01'?)\n"
	    "t.yaml:12:54: unknown network 'mgm' (did you mean 'mgmt'?)\n"
	    "t.yaml:13:26: unknown hardware 'nothing-like-it' (define it "
	    "under 'hardware:')\n"
	    "t.yaml:13:49: unknown rack 'zzzz' (define it under 'racks:')\n" },
	{ "nic network", HDR
	    "hardware:\n"
	    "  g:\n"
	    "    system: dell-r650\n"
	    "    nics: [ { model: onboard-1gbe, network: mgmt } ]\n",
	    "t.yaml:6:45: unknown network 'mgmt' (define it under "
	    "'networks:')\n" },
	{ "partitions and monitoring", BASE
	    "nodes:\n  - { name: 'gpu[01-04]' }\n"
	    "ssh: { jump: bastion }\n"
	    "software:\n"
	    "  os: { distro: debian, release: '12' }\n"
	    "  orchestrator:\n"
	    "    kind: slurm\n"
	    "    slurm:\n"
	    "      partitions:\n"
	    "        - { name: gpu, nodes: 'gpu[01-08]' }\n"
	    "        - { name: cpu, nodes: 'cpu[1-2' }\n"
	    "  monitoring: { prometheus: head-01, grafana: gpu01 }\n",
	    "t.yaml:11:14: unknown node 'bastion' (name a node of the plan "
	    "or write [user@]host[:port])\n"
	    "t.yaml:18:31: unknown node 'gpu05' in 'gpu[01-08]'\n"
	    "t.yaml:19:31: unbalanced '[' in 'cpu[1-2'\n"
	    "t.yaml:20:29: unknown node 'head-01' (name a node of the "
	    "plan)\n" },
	{ "max_time", HDR
	    "nodes: [ { name: a } ]\n"
	    "software:\n"
	    "  orchestrator:\n"
	    "    kind: slurm\n"
	    "    slurm:\n"
	    "      partitions:\n"
	    "        - { name: a, nodes: a, max_time: '1:2:3:4' }\n"
	    "        - { name: b, nodes: a, max_time: 2 days }\n"
	    "        - { name: c, nodes: a, max_time: '30' }\n"
	    "        - { name: d, nodes: a, max_time: UNLIMITED }\n"
	    "        - { name: e, nodes: a, max_time: '7-12:30' }\n",
	    "t.yaml:9:42: 'max_time' is not a Slurm time limit: '1:2:3:4' "
	    "(Slurm's form: MINUTES, "
	    "HOURS:MM:SS, DAYS-HOURS[:MM[:SS]] or UNLIMITED, e.g. "
	    "\"2-00:00:00\")\n"
	    "t.yaml:10:42: 'max_time' is not a Slurm time limit: '2 days' "
	    "(Slurm's form: MINUTES, "
	    "HOURS:MM:SS, DAYS-HOURS[:MM[:SS]] or UNLIMITED, e.g. "
	    "\"2-00:00:00\")\n" },
	{ "bad section names", HDR
	    "hardware:\n  'g n': { system: dgx-a100 }\n"
	    "networks:\n  'a/b': { cidr: 10.0.0.0/8 }\n",
	    "t.yaml:4:3: bad hardware name 'g n' (use letters, digits, "
	    "'.', '_', '+' and '-' only)\n"
	    "t.yaml:6:3: bad networks name 'a/b' (use letters, digits, "
	    "'.', '_', '+' and '-' only)\n" },
	/* The catalog. */
	{ "unknown catalog models", HDR
	    "hardware:\n"
	    "  a: { system: dgx-a10 }\n"
	    "  b: { system: dell-r650, gpus: { model: a100-sxm-80gb, "
	    "count: 4 } }\n"
	    "  c: { system: dell-r650, cpu: { model: epyc-7763x } }\n"
	    "  d: { system: dell-r650, nics: [ { model: cx7 } ] }\n"
	    "switches:\n"
	    "  sw: { model: qm870 }\n",
	    "t.yaml:4:16: unknown system 'dgx-a10' (did you mean "
	    "'dgx-a100'?)\n"
	    "t.yaml:5:42: unknown gpu 'a100-sxm-80gb' (did you mean "
	    "'a100-sxm4-80gb'?)\n"
	    "t.yaml:6:41: unknown cpu 'epyc-7763x' (did you mean "
	    "'epyc-7763'?)\n"
	    "t.yaml:7:44: unknown nic 'cx7' (see 'provision catalog nic' "
	    "for the known ones, or add it in a profiles dir)\n"
	    "t.yaml:9:16: unknown switch 'qm870' (did you mean 'qm8700'?)\n" },
	{ "mig and psu", HDR
	    "hardware:\n"
	    "  a: { system: dell-r650, gpus: { model: t4, count: 1 }, "
	    "mig: [ 1g.10gb ] }\n"
	    "  b: { system: dell-r650, psu: { redundancy: 'X+1' } }\n"
	    "  c: { system: dell-r650, psu: { redundancy: '2+2x' } }\n"
	    "  d: { system: dell-r650, psu: { redundancy: N } }\n",
	    "t.yaml:4:63: gpu 't4' does not support MIG (MIG needs an "
	    "A100, A30, H100 or H200)\n"
	    "t.yaml:5:46: 'redundancy' is not a PSU redundancy: 'X+1' "
	    "(write 'N+1', 'N+N', 'N' or counts like '2+2')\n"
	    "t.yaml:6:46: 'redundancy' is not a PSU redundancy: '2+2x' "
	    "(write 'N+1', 'N+N', 'N' or counts like '2+2')\n" },
	/* Networks. */
	{ "bad cidr", HDR
	    "networks:\n"
	    "  a: { cidr: 10.0.0/24 }\n"
	    "  b: { cidr: 10.0.0.0/33 }\n"
	    "  c: { cidr: 10.0.0.1/24 }\n"
	    "  d: { cidr: bogus, kind: ether }\n"
	    "  e: { cidr: 10.0.0.0 }\n",
	    "t.yaml:4:14: 'cidr' is not an IPv4 network: '10.0.0/24' "
	    "(write it like '10.244.0.0/16')\n"
	    "t.yaml:5:14: 'cidr' is not an IPv4 network: '10.0.0.0/33' "
	    "(write it like '10.244.0.0/16')\n"
	    "t.yaml:6:14: cidr '10.0.0.1/24' has host bits set\n"
	    "t.yaml:7:14: 'cidr' is not an IPv4 network: 'bogus' "
	    "(write it like '10.244.0.0/16')\n"
	    "t.yaml:7:27: unknown kind 'ether' (one of 'ethernet', "
	    "'infiniband')\n"
	    "t.yaml:8:14: 'cidr' is not an IPv4 network: '10.0.0.0' "
	    "(write it like '10.244.0.0/16')\n" },
	{ "bad name, other mistakes still found", BASE
	    "nodes:\n"
	    "  - { name: gpu_05, hardware: gg, rack: r02 }\n"
	    "  - { name: a, hardware: gn }\n"
	    "  - { name: a, hardware: gx }\n",
	    "t.yaml:10:13: 'gpu_05' is not a valid host name (RFC 1123: "
	    "letters, digits and '-', labels of at most 63 characters, not "
	    "starting or ending with '-')\n"
	    "t.yaml:10:31: unknown hardware 'gg' (did you mean 'gn'?)\n"
	    "t.yaml:10:41: unknown rack 'r02' (did you mean 'r01'?)\n"
	    "t.yaml:12:13: duplicate node name 'a' (node names must be "
	    "unique)\n"
	    "t.yaml:12:26: unknown hardware 'gx' (did you mean 'gn'?)\n" },
	{ "addresses", BASE
	    "nodes:\n"
	    "  - { name: a, address: 10.0.0.300 }\n"
	    "  - { name: 'b[1-2]', address: '10.0.0.[1-' }\n"
	    "  - { name: c, interfaces: { mgmt: 'not an address' } }\n"
	    "  - { name: d, address: fe80::1, bmc: { address: bmc-d.lab } }\n"
	    "  - { name: e, mac: '0c:c4:7a:00:00' }\n"
	    "  - { name: 'f[1-2]', macs: [ '0c:c4:7a:00:00:11', 'zz' ] }\n",
	    "t.yaml:10:25: 'address' is not an IP address or host name: "
	    "'10.0.0.300' (write an IPv4 address like '192.0.2.10', a "
	    "range like '192.0.2.[11-18]', or a host name)\n"
	    "t.yaml:11:32: 'address' gives 1 value for 2 nodes (give a "
	    "range with one value per node, e.g. '192.0.2.[11-18]')\n"
	    "t.yaml:12:36: 'mgmt' is not an IP address or host name: 'not "
	    "an address' (write an IPv4 address like '192.0.2.10', a range "
	    "like '192.0.2.[11-18]', or a host name)\n"
	    "t.yaml:14:21: 'mac' is not a MAC address: '0c:c4:7a:00:00' "
	    "(six hex pairs like '0c:c4:7a:00:00:10')\n"
	    "t.yaml:15:52: 'macs' is not a MAC address: 'zz' (six "
	    "hex pairs like '0c:c4:7a:00:00:10')\n" },
	{ "quoted numbers", HDR
	    "racks:\n  r: { units: '42', depth_mm: \"1200\" }\n"
	    "ssh: { port: '22' }\n",
	    "t.yaml:4:15: 'units' must be a whole number, not the string "
	    "'42' (write it without quotes)\n"
	    "t.yaml:4:31: 'depth_mm' must be a number, not the string "
	    "'1200' (write it without quotes)\n"
	    "t.yaml:5:14: 'port' must be a whole number, not the string "
	    "'22' (write it without quotes)\n" },
	{ "profiles dir", HDR
	    "profiles: [ no-such-dir, /dev/null ]\n",
	    "t.yaml:3:13: cannot read profiles dir 'no-such-dir': No such file "
	    "or directory (paths are relative to the plan's directory)\n"
	    "t.yaml:3:26: profiles dir '/dev/null' is not a directory (paths "
	    "are relative to the plan's directory)\n" },
	{ "aliased mistake once", BASE
	    "nodes:\n"
	    "  - &n { name: a, hardware: gm }\n"
	    "  - { <<: *n, name: b }\n"
	    "  - { name: c, hardware: gm }\n",
	    "t.yaml:10:29: unknown hardware 'gm' (did you mean 'gn'?)\n"
	    "t.yaml:12:26: unknown hardware 'gm' (did you mean 'gn'?)\n" },
	/* QOS: known names, none preempting itself, a mode only with one. */
	{ "qos", HDR
	    "nodes: [ { name: h, role: head } ]\n"
	    "software:\n"
	    "  os: { distro: debian, release: '12' }\n"
	    "  orchestrator: { kind: slurm }\n"
	    "scheduling:\n"
	    "  qos:\n"
	    "    low: { preempts: [ low ] }\n"
	    "    high: { priority: 100, preempts: [ lo, normal ] }\n"
	    "  teams:\n"
	    "    ml: { qos: [ high, urgent ] }\n",
	    "t.yaml:9:24: QOS 'low' cannot preempt itself (name another "
	    "QOS)\n"
	    "t.yaml:10:40: unknown QOS 'lo' (name a QOS under "
	    "'scheduling.qos:', or Slurm's own 'normal')\n"
	    "t.yaml:12:24: unknown QOS 'urgent' (name a QOS under "
	    "'scheduling.qos:', or Slurm's own 'normal')\n" },
	{ "preempt mode without preemption", HDR
	    "nodes: [ { name: h, role: head } ]\n"
	    "software:\n"
	    "  os: { distro: debian, release: '12' }\n"
	    "  orchestrator: { kind: slurm }\n"
	    "  gpu_shards: 1\n"
	    "scheduling:\n"
	    "  qos: { low: {} }\n"
	    "  preempt_mode: suspend\n",
	    "t.yaml:7:15: 'gpu_shards' is 1, outside 2..128\n"
	    "t.yaml:10:17: unknown preempt_mode 'suspend' (one of 'requeue', "
	    "'cancel')\n"
	    "t.yaml:10:17: 'preempt_mode' without a QOS that preempts (give a "
	    "QOS 'preempts: [ QOS ]', or leave 'preempt_mode' out)\n" },
	/* YAML. */
	{ "syntax error", HDR "nodes: [ { name: a }\n",
	    "t.yaml:4:1: did not find expected ',' or ']' (while parsing a "
	    "flow sequence at 3:8)\n" },
	{ "duplicate key", HDR "cluster: { name: u }\n",
	    "t.yaml:3:1: duplicate key 'cluster' (each key may appear once "
	    "in a mapping; the first one is used)\n" },
	/* Everything at once, in file order, no knock-on errors. */
	{ "five mistakes", "version: 1\n"
	    "cluster: { name: t }\n"
	    "hardware:\n"
	    "  g: { system: dgx-a100, gpu: { model: a100-sxm4-80gb } }\n"
	    "networks:\n"
	    "  mgmt: { cidr: 10.0.0.0/33 }\n"
	    "nodes:\n"
	    "  - { name: head-01, role: hed, address: 10.0.0.1 }\n"
	    "  - { name: 'gpu[01-04]', hardware: g, address: '10.0.0.[2-4]' }\n"
	    "  - { name: gpu_05, hardware: g }\n"
	    "software:\n"
	    "  os: { distro: debian, release: '12' }\n"
	    "  orchestrator:\n"
	    "    kind: slurm\n"
	    "    slurm:\n"
	    "      partitions: [ { name: all, nodes: 'gpu[01-04]' } ]\n"
	    "  monitoring: { prometheus: head-01 }\n",
	    "t.yaml:4:26: unknown key 'gpu' (did you mean 'gpus'?)\n"
	    "t.yaml:6:17: 'cidr' is not an IPv4 network: '10.0.0.0/33' "
	    "(write it like '10.244.0.0/16')\n"
	    "t.yaml:8:28: unknown role 'hed' (did you mean 'head'?)\n"
	    "t.yaml:9:49: 'address' expands to 3 values for 4 nodes (a "
	    "range of names and the ranges of its addresses must expand to "
	    "the same count)\n"
	    "t.yaml:10:13: 'gpu_05' is not a valid host name (RFC 1123: "
	    "letters, digits and '-', labels of at most 63 characters, not "
	    "starting or ending with '-')\n" },
};

START_TEST(test_plan_errors)
{
	struct test_plan	 t;
	char			*e;

	test_plan_buf(&t, "t.yaml", error_cases[_i].plan);
	ck_assert_int_eq(t.r, -1);
	ck_assert_ptr_null(t.p);
	e = test_plan_errs(&t.errs);
	ck_assert_msg(strcmp(e, error_cases[_i].want) == 0,
	    "%s: got\n%swant\n%s", error_cases[_i].what, e,
	    error_cases[_i].want);
	free(e);
	test_plan_release(&t);
}
END_TEST

/*
 * Every string field of the schema, fed hostile values.
 *
 * plan_schema_walk() gives each field's path; the value at that path in
 * tests/fixtures/plan/every-key/plan.yaml (which holds every key, one
 * scalar a line) is replaced with each value below, written as a YAML
 * double-quoted scalar.  Each must be refused at load with an error
 * located at the value, or load: only local paths may (they reach no
 * node).  With PROV_HOSTILE_DIR set, every such plan is written there
 * (NNNN-VARIANT.yaml, and a line "NNNN LINE COL PATH" in its index) for
 * tests/e2e/t032-plan-hostile.sh, which gives each to the binary: refused
 * at the value, or rendered and run in a sandbox where nothing of it may
 * execute.  A field added to the schema is fed too, without a change
 * here.
 */

#define HOSTILE_PLAN	"tests/fixtures/plan/every-key/plan.yaml"

/* Each one, run by a shell, awk or sed, creates a file named /pwned.* */
#define H(s) { s, sizeof s - 1 }
static const struct {
	const char	*s;
	size_t		 len;
} test_plan_hostile[] = {
	H("x'; touch /pwned.sq; '"),
	H("x\"; touch /pwned.dq; \""),
	H("$(touch /pwned.cs)"),
	H("`touch /pwned.bt`"),
	H("x;touch /pwned.semi"),
	H("x|touch /pwned.pipe"),
	H("x&&touch /pwned.and"),
	H("x\ntouch /pwned.nl\n"),
	H("x\r\ntouch /pwned.cr\r"),
	H("x\001\033[31m\177\x80\xff"),
	H("x\0touch /pwned.nul"),
	H("../../../../../../etc/passwd"),
	H("10.244.0.0/16|;e touch /pwned.sed;#"),
	H("x/;e touch /pwned.sed2;#&\\1\\n|"),
	H("x\" ; system(\"touch /pwned.awk\") ; \""),
	H("-oProxyCommand=touch /pwned.opt"),
	H("${IFS}touch${IFS}/pwned.ifs"),
	H("%n%s%s%s%x"),
	H("https://x.example/$(touch /pwned.url)"),
	H("a]\n[host.\"http://evil.example\"]\n#"),
};
#undef H

/* The 64 KiB value: the same commands, over and over. */
static char *
test_plan_hostile_big(void)
{
	struct buf	b = BUF_INIT;

	while (b.len < 65536)
		buf_adds(&b, "a;$(touch /pwned.big)`touch /pwned.big`|");
	buf_setlen(&b, 65536);
	return buf_detach(&b, NULL);
}

struct test_plan_field {
	char			*path;
	enum schema_type	 type;
};

/* The string fields of the schema, and the fixture that has them all. */
struct test_plan_walk {
	struct test_plan_field	*v;
	size_t			 n, alloc;
	char			*label;
	struct buf		 text;
	struct yml_doc		 doc;
	struct prov_errs	 errs;
};

static void
test_plan_collect(void *arg, const char *path, const struct schema_field *f)
{
	struct test_plan_walk	*w = arg;

	if (schema_type_info(f->type) == NULL)
		return;
	ALLOC_GROW(w->v, w->n + 1, w->alloc);
	w->v[w->n].path = xstrdup(path);
	w->v[w->n].type = f->type;
	w->n++;
}

static void
test_plan_walk_init(struct test_plan_walk *w)
{
	memset(w, 0, sizeof *w);
	w->text = (struct buf)BUF_INIT;
	plan_schema_walk(test_plan_collect, w);
	w->label = test_path(HOSTILE_PLAN);
	ck_assert_int_eq(buf_read_file(&w->text, w->label), 0);
	yml_doc_init(&w->doc);
	ck_assert_int_eq(yml_load(&w->doc, w->label, w->text.buf, w->text.len,
	    &w->errs), 0);
}

static void
test_plan_walk_release(struct test_plan_walk *w)
{
	size_t	i;

	for (i = 0; i < w->n; i++)
		free(w->v[i].path);
	free(w->v);
	yml_doc_release(&w->doc);
	prov_errs_release(&w->errs);
	buf_release(&w->text);
	free(w->label);
}

/*
 * The scalar at `path` under `n` ("a.b[].c", "x.*.y"): in a list or a
 * mapping of names, the first entry that has the rest; NULL when none.
 */
static const struct yml_node *
test_plan_at(const struct yml_node *n, const char *path)
{
	const char		*dot, *rest;
	char			*seg;
	const struct yml_node	*r = NULL;
	size_t			 len, i;
	int			 list = 0;

	if (n == NULL)
		return NULL;
	if (*path == '\0')
		return n->kind == YML_SCALAR ? n : NULL;
	dot = strchr(path, '.');
	len = dot != NULL ? (size_t)(dot - path) : strlen(path);
	rest = dot != NULL ? dot + 1 : path + len;
	seg = xstrndup(path, len);
	if (len > 2 && strcmp(seg + len - 2, "[]") == 0) {
		seg[len - 2] = '\0';
		list = 1;
	}
	if (strcmp(seg, "*") == 0) {
		for (i = 0; n->kind == YML_MAP && r == NULL && i < n->n; i++)
			r = test_plan_at(n->u.pairs[i].val, rest);
	} else if (n->kind == YML_MAP) {
		const struct yml_node	*v = yml_map_get(n, seg);

		if (list && v != NULL && v->kind == YML_SEQ)
			for (i = 0; r == NULL && i < v->n; i++)
				r = test_plan_at(v->u.items[i], rest);
		else
			r = test_plan_at(v, rest);
	}
	free(seg);
	return r;
}

/* `s` as a YAML double-quoted scalar. */
static void
test_plan_add_yaml_str(struct buf *b, const char *s, size_t n)
{
	size_t	i;

	buf_addch(b, '"');
	for (i = 0; i < n; i++) {
		unsigned char	c = (unsigned char)s[i];

		if (c == '"' || c == '\\')
			buf_addf(b, "\\%c", c);
		else if (c == '\n')
			buf_adds(b, "\\n");
		else if (c == '\r')
			buf_adds(b, "\\r");
		else if (c == '\0')
			buf_adds(b, "\\0");
		else if (c < 0x20 || c == 0x7f)
			buf_addf(b, "\\x%02x", c);
		else if (c >= 0x80)
			buf_addf(b, "\\x%02x", c);
		else
			buf_addch(b, c);
	}
	buf_addch(b, '"');
}

/* Offset of 1-based line:col in text. */
static size_t
test_plan_offset(const char *text, unsigned line, unsigned col)
{
	const char	*p = text;

	while (--line > 0)
		p = strchr(p, '\n') + 1;
	return (size_t)(p - text) + col - 1;
}

struct test_plan_sub {
	const struct yml_node	*at;
	const char		*val;
	size_t			 len;
};

/* `text` with each scalar `at` (to the end of its line) replaced. */
static char *
test_plan_splice(const char *text, const struct test_plan_sub *subs,
    size_t nsubs)
{
	struct buf	b = BUF_INIT;
	size_t		pos = 0, i, j, off, end;

	/* in text order */
	for (;;) {
		const struct test_plan_sub	*next = NULL;
		size_t				 noff = SIZE_MAX;

		for (j = 0; j < nsubs; j++) {
			off = test_plan_offset(text, subs[j].at->line,
			    subs[j].at->col);
			if (off >= pos && off < noff) {
				noff = off;
				next = &subs[j];
			}
		}
		if (next == NULL)
			break;
		end = noff + strcspn(text + noff, "\n");
		buf_add(&b, text + pos, noff - pos);
		test_plan_add_yaml_str(&b, next->val, next->len);
		pos = end;
	}
	buf_adds(&b, text + pos);
	(void)i;
	return buf_detach(&b, NULL);
}

/* An error of `errs` at line:col of `label`? */
static int
test_plan_err_at(const struct prov_errs *errs, const char *label,
    const struct yml_node *at)
{
	size_t	i;

	for (i = 0; i < errs->n; i++)
		if (errs->v[i].loc.file != NULL &&
		    strcmp(errs->v[i].loc.file, label) == 0 &&
		    errs->v[i].loc.line == at->line &&
		    errs->v[i].loc.col == at->col &&
		    errs->v[i].code == PROV_E_PLAN)
			return 1;
	return 0;
}

/* Every string field is in the fixture, and says what it holds. */
START_TEST(test_plan_schema_every_field)
{
	struct test_plan_walk	w;
	size_t			i;

	test_plan_walk_init(&w);
	ck_assert_uint_gt(w.n, 40);
	for (i = 0; i < w.n; i++) {
		ck_assert_msg(w.v[i].type != SCHEMA_STR, "'%s' is a string "
		    "of any kind: give it a type that says what it holds",
		    w.v[i].path);
		ck_assert_msg(test_plan_at(w.doc.root, w.v[i].path) != NULL,
		    "'%s' has no value in %s: add one", w.v[i].path,
		    HOSTILE_PLAN);
	}
	/* Some of the paths, as the walk writes them. */
	for (i = 0; i < w.n; i++)
		if (strcmp(w.v[i].path,
		    "software.orchestrator.kubernetes.pod_cidr") == 0)
			ck_assert_int_eq(w.v[i].type, SCHEMA_CIDR);
	ck_assert_ptr_nonnull(test_plan_at(w.doc.root, "nodes[].macs[]"));
	ck_assert_ptr_nonnull(test_plan_at(w.doc.root, "hardware.*.mig[]"));
	test_plan_walk_release(&w);
}
END_TEST

/*
 * `top`, a top-level key of the plan `text`, and its block made comments in
 * place: 'scheduling' needs Slurm, and the Kubernetes variant keeps every
 * other value on its line and column.
 */
static void
test_plan_comment_out(char *text, const char *top)
{
	char	*l = text, *nl;
	int	 in = 0;

	for (; *l != '\0'; l = nl + 1) {
		if (!in && strncmp(l, top, strlen(top)) == 0)
			in = 1;
		else if (in && *l != ' ' && *l != '\n')
			break;
		if (in && *l != '\n')
			*l = '#';
		if ((nl = strchr(l, '\n')) == NULL)
			break;
	}
}

/* Write a plan for t032, in each variant it renders. */
static void
test_plan_hostile_write(const char *dir, size_t num, const char *text,
    const struct yml_doc *doc, const struct test_plan_sub *sub,
    const char *path)
{
	static const struct { const char *name, *kind, *distro, *release; }
	    variants[] = {
		{ "k8s", "kubernetes", NULL, NULL },
		{ "slurm", "slurm", NULL, NULL },
		{ "ubuntu", NULL, "ubuntu", "22.04" },
		{ "rocky", NULL, "rocky", "9" },
	};
	struct test_plan_sub	 subs[3];
	char			*file, *out;
	FILE			*fp;
	size_t			 v, n;

	file = xasprintf("%s/index", dir);
	fp = fopen(file, "a");
	ck_assert_ptr_nonnull(fp);
	/* the comment line written first moves the value one line down */
	fprintf(fp, "%04zu %u %u %s\n", num, sub->at->line + 1, sub->at->col,
	    path);
	ck_assert_int_eq(fclose(fp), 0);
	free(file);

	for (v = 0; v < ARRAY_SIZE(variants); v++) {
		n = 0;
		subs[n++] = *sub;
		if (variants[v].kind != NULL) {
			subs[n].at = test_plan_at(doc->root,
			    "software.orchestrator.kind");
			subs[n].val = variants[v].kind;
			subs[n++].len = strlen(variants[v].kind);
		}
		if (variants[v].distro != NULL) {
			subs[n].at = test_plan_at(doc->root,
			    "software.os.distro");
			subs[n].val = variants[v].distro;
			subs[n++].len = strlen(variants[v].distro);
			subs[n].at = test_plan_at(doc->root,
			    "software.os.release");
			subs[n].val = variants[v].release;
			subs[n++].len = strlen(variants[v].release);
		}
		/* The field itself may be one of them: it wins. */
		if (n > 1 && (subs[1].at == sub->at ||
		    (n > 2 && subs[2].at == sub->at)))
			n = 1;
		out = test_plan_splice(text, subs, n);
		if (strcmp(variants[v].name, "k8s") == 0)
			test_plan_comment_out(out, "scheduling:");
		file = xasprintf("%s/%04zu-%s.yaml", dir, num,
		    variants[v].name);
		fp = fopen(file, "w");
		ck_assert_ptr_nonnull(fp);
		fprintf(fp, "# %s\n%s", path, out);
		ck_assert_int_eq(fclose(fp), 0);
		free(file);
		free(out);
	}
}

/* Refused with an error at the value, or a local path (t032 runs those). */
START_TEST(test_plan_schema_hostile)
{
	struct test_plan_walk	 w;
	char			*big = test_plan_hostile_big();
	const char		*dir = getenv("PROV_HOSTILE_DIR");
	size_t			 i, k, nvals = ARRAY_SIZE(test_plan_hostile) + 1;
	size_t			 refused = 0;

	test_plan_walk_init(&w);
	for (i = 0; i < w.n; i++) {
		const struct yml_node	*at = test_plan_at(w.doc.root,
		    w.v[i].path);

		ck_assert_ptr_nonnull(at);
		for (k = 0; k < nvals; k++) {
			struct test_plan_sub	 sub;
			struct test_plan	 t;
			char			*mut;

			sub.at = at;
			sub.val = k < nvals - 1 ? test_plan_hostile[k].s : big;
			sub.len = k < nvals - 1 ? test_plan_hostile[k].len :
			    65536;
			mut = test_plan_splice(w.text.buf, &sub, 1);
			test_plan_buf(&t, w.label, mut);
			if (t.r != 0) {
				ck_assert_msg(test_plan_err_at(&t.errs, w.label,
				    at), "'%s' = hostile value %zu refused, "
				    "but not at %u:%u:\n%s", w.v[i].path, k,
				    at->line, at->col, test_plan_errs(&t.errs));
				refused++;
			} else {
				/* Only files of the operator's own machine. */
				ck_assert_msg(w.v[i].type == SCHEMA_PATH,
				    "'%s' (%s) accepts hostile value %zu",
				    w.v[i].path,
				    schema_type_info(w.v[i].type)->name, k);
			}
			if (dir != NULL)
				test_plan_hostile_write(dir, i * nvals + k,
				    w.text.buf, &w.doc, &sub, w.v[i].path);
			test_plan_release(&t);
			free(mut);
		}
	}
	ck_assert_uint_gt(refused, 0);
	test_plan_walk_release(&w);
	free(big);
}
END_TEST

/*
 * The huge pages software.kernel_args will pin, before any node has them
 * (apply leaves them out of Slurm's RealMemory before the reboot too):
 * 2 MiB pages by default, then the size of the hugepagesz= before each
 * hugepages=, or default_hugepagesz=.
 */
START_TEST(test_plan_hugepages_kb)
{
	static const struct {
		const char	*args;
		long long	 kb;
	} cases[] = {
		{ "[]", 0 },
		{ "[ iommu=pt ]", 0 },
		{ "[ hugepages=16 ]", 16 * 2048 },
		{ "[ hugepagesz=1G, hugepages=4, hugepagesz=2M, hugepages=8 ]",
		    4 * 1048576 + 8 * 2048 },
		{ "[ default_hugepagesz=1G, hugepages=2 ]", 2 * 1048576 },
		{ "[ hugepagesz=x, hugepages=2 ]", 0 },
		{ "[ hugepages=99999999999999999999 ]", 0 },
	};
	size_t	i;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		struct test_plan	 t;
		char			*text = xasprintf(HDR "software:\n"
		    "  os: { distro: debian, release: '12' }\n"
		    "  kernel_args: %s\n", cases[i].args);

		test_plan_buf(&t, "t.yaml", text);
		ck_assert_msg(t.r == 0, "%s did not load", cases[i].args);
		ck_assert_msg(plan_hugepages_kb(t.p) == cases[i].kb,
		    "%s: %lld KiB, not %lld", cases[i].args,
		    plan_hugepages_kb(t.p), cases[i].kb);
		test_plan_release(&t);
		free(text);
	}
}
END_TEST

static Suite *
plan_suite(void)
{
	Suite	*s = suite_create("plan");
	TCase	*tc;

	tc = tcase_create("examples");
	tcase_add_loop_test(tc, test_plan_examples, 0,
	    (int)ARRAY_SIZE(examples));
	tcase_add_test(tc, test_plan_examples_all);
	suite_add_tcase(s, tc);

	tc = tcase_create("expand");
	tcase_set_timeout(tc, 30);
	tcase_add_test(tc, test_plan_expand);
	tcase_add_test(tc, test_plan_max_nodes);
	tcase_add_test(tc, test_plan_big_range);
	tcase_add_test(tc, test_plan_role_names);
	tcase_add_loop_test(tc, test_plan_ipv4_table, 0,
	    (int)ARRAY_SIZE(ipv4_cases));
	suite_add_tcase(s, tc);

	tc = tcase_create("values");
	tcase_add_test(tc, test_plan_defaults);
	tcase_add_test(tc, test_plan_paths);
	tcase_add_test(tc, test_plan_profiles);
	tcase_add_test(tc, test_plan_error_files_outlive);
	tcase_add_test(tc, test_plan_missing_file);
	tcase_add_test(tc, test_plan_hugepages_kb);
	suite_add_tcase(s, tc);

	tc = tcase_create("errors");
	tcase_add_loop_test(tc, test_plan_errors, 0,
	    (int)ARRAY_SIZE(error_cases));
	suite_add_tcase(s, tc);

	tc = tcase_create("hostile");
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, test_plan_schema_every_field);
	tcase_add_test(tc, test_plan_schema_hostile);
	suite_add_tcase(s, tc);
	return s;
}

TEST_MAIN(plan_suite)

/*
 * check.c: the hardware checks of `provision check` (checks.h).
 *
 * The rules (docs/architecture.md, "The rules check encodes"), and the
 * choices made where they leave room:
 *
 * pcie, per hardware model: cards (add-in GPUs, NICs that are neither on
 *	board nor built in) go into the system's ordered slot list by a
 *	backtracking search, biggest cards first; lanes of the cards against
 *	the CPUs' lanes (pcie_lanes_2s for two sockets, else pcie_lanes per
 *	socket); add-in GPU form factors against the chassis (a chassis that
 *	takes fhfl cards takes the smaller fhhl and hhhl ones too); baseboard
 *	(SXM/OAM) GPUs only as the system's own.
 * power, per hardware model and rack voltage: full-load draw = base +
 *	CPUs + memory + GPUs + NICs + drives, with the defaults of checks.h
 *	for unknown figures (the row is then a warning); a vendor system
 *	maximum (DGX) replaces the sum when it is larger.  The PSUs deliver
 *	the usable count (redundancy "N+1": count-1, "N+N": count/2, "A+B":
 *	count-B, "N": all) times the rating at the rack's outlet voltage: the
 *	lowest PDU voltage of the rack, line-to-neutral (V / sqrt 3) for a
 *	three-phase PDU above 250 V.  A node in no rack with PDUs is checked
 *	at the highest rating.
 * rack, per rack: units (overlaps, range), depth, draw per feed (with more
 *	than one feed each feed alone must carry the rack), PSU inlets per
 *	feed against the PDUs' C13/C19 outlets (when given), heat (with a
 *	liquid_kw: the systems' heat_to_liquid_pct of their draw against it,
 *	the rest against cooling_kw), weight against max_load_kg and, with a
 *	footprint, per m2 against floor_kg_m2 (unknown weights count 0 and
 *	make the row a warning at best).
 * pcie per socket: where the catalog's slots name their socket (`cpu`),
 *	the cards in each socket's slots against half of pcie_lanes_2s.
 * network: host ports per model (BMC ports do not count), a fast fabric
 *	(InfiniBand or >= 100 Gb/s) for every GPU node when there are two or
 *	more, switch ports against links per network, addresses inside their
 *	networks and unique, MACs unique.  The management address belongs to
 *	the network(s) with role management; without one, to the network
 *	whose cidr holds it; a node whose address is in no network fails,
 *	naming the network its on-board NIC is attached to when it has one.
 * memory, per hardware model: at least 24 GB; at least the GPU memory.
 *
 * Everything is one or a few passes over the nodes with per-model and
 * per-rack aggregates and strmap lookups: linear in the plan size.
 */
#include "compat.h"

#include <ctype.h>
#include <math.h>

#include "buf.h"
#include "catalog.h"
#include "check-int.h"
#include "check.h"
#include "row.h"
#include "plan.h"
#include "strmap.h"
#include "strvec.h"

struct check_num
check_fmt(double v, int decimals)
{
	struct check_num	 n;
	char			 dig[32];
	long long		 scaled, ip, fr, scale = 1;
	size_t			 len, i, o = 0;
	int			 d;

	if (isnan(v)) {
		snprintf(n.s, sizeof n.s, "unknown");
		return n;
	}
	if (isinf(v)) {
		snprintf(n.s, sizeof n.s, "%s", v < 0 ? "-inf" : "inf");
		return n;
	}
	if (decimals < 0)
		decimals = 0;
	if (decimals > 6)
		decimals = 6;
	for (d = 0; d < decimals; d++)
		scale *= 10;
	scaled = llround(fabs(v) * (double)scale);
	if (v < 0 && scaled != 0)
		n.s[o++] = '-';
	ip = scaled / scale;
	fr = scaled % scale;
	snprintf(dig, sizeof dig, "%lld", ip);
	len = strlen(dig);
	for (i = 0; i < len; i++) {
		if (i > 0 && (len - i) % 3 == 0)
			n.s[o++] = ',';
		n.s[o++] = dig[i];
	}
	if (fr != 0) {
		/* The fraction with its leading zeros, trailing zeros dropped. */
		o += (size_t)snprintf(n.s + o, sizeof n.s - o, ".%0*lld",
		    decimals, fr);
		while (n.s[o - 1] == '0')
			o--;
	}
	n.s[o] = '\0';
	return n;
}

/* "5,230", "897.1", "unknown": separators, one decimal where needed. */
struct check_num
check_num(double v)
{
	return check_fmt(v, 1);
}

/* Whole numbers (BTU/h, counts): rounded, with separators. */
struct check_num
check_int(double v)
{
	return check_num(isnan(v) ? v : round(v));
}

const char *
check_plural(long n, const char *one, const char *many)
{
	return n == 1 ? one : many;
}

/*
 * Append a row of `group` about `what` at loc; the caller sets subject,
 * measured, limit and hint (allocated strings the rows own), and value
 * and max.  check_plan() leaves no subject, measured or limit NULL
 * (rows_blank()).
 */
struct row *
check_row(struct check_ctx *c, enum row_verdict v, const char *group,
    const char *what, struct prov_loc loc)
{
	struct row	*row = rows_add(c->out, v, what);

	row->group = group;
	row->loc = loc;
	return row;
}

/* 1 when another failing row of this check may be shown; counts the rest. */
int
check_cap_take(struct check_cap *cap)
{
	if (cap->shown < CHECK_MAX_ROWS) {
		cap->shown++;
		return 1;
	}
	cap->more++;
	return 0;
}

void
check_cap_flush(struct check_ctx *c, struct check_cap *cap, const char *group,
    const char *what)
{
	struct row	*row;
	struct prov_loc	 loc = { c->p->file, 0, 0 };

	if (cap->more == 0)
		return;
	row = check_row(c, ROW_FAIL, group, what, loc);
	row->subject = xstrdup("...");
	row->measured = xasprintf("... and %s more",
	    check_int((double)cap->more).s);
	row->value = (double)cap->more;
}

/* ok / warn above 90% or when uncertain / fail above the limit. */
enum row_verdict
check_grade(double value, double max, int uncertain)
{
	if (isnan(max) || isnan(value))
		return ROW_WARN;
	if (value > max)
		return ROW_FAIL;
	if (uncertain || value > max * CHECK_WARN_RATIO)
		return ROW_WARN;
	return ROW_OK;
}

struct check_num
check_pct(double value, double max)
{
	struct check_num	n;

	if (isnan(value) || isnan(max) || max <= 0) {
		snprintf(n.s, sizeof n.s, "n/a");
		return n;
	}
	n = check_num(value * 100 / max);
	snprintf(n.s + strlen(n.s), sizeof n.s - strlen(n.s), "%%");
	return n;
}

int
check_has(const struct strvec *v, const char *s)
{
	return strvec_find(v, s) >= 0;
}

/* True when catalog entry `m` is `id` (its id or one of its aliases). */
int
check_is(const struct cat_meta *m, const char *id)
{
	return id != NULL && (strcmp(m->id, id) == 0 || check_has(&m->aliases,
	    id));
}

/* Modules that come soldered or socketed on a system's board, never in a slot. */
int
check_baseboard_ff(const char *ff)
{
	return ff != NULL && (strncmp(ff, "sxm", 3) == 0 ||
	    strcmp(ff, "oam") == 0 || strcmp(ff, "superchip") == 0);
}

/* ------------------------------------------------------------------ */
/* Per hardware model: NICs, ports, draw.                              */

int
check_net_fast(const struct plan_net *n)
{
	return n != NULL && ((n->kind != NULL &&
	    strcmp(n->kind, "infiniband") == 0) ||
	    (!isnan(n->gbps) && n->gbps >= CHECK_FAST_GBPS));
}

static int
check_nic_fast(const struct cat_nic *n)
{
	return n != NULL && ((!isnan(n->gbps) && n->gbps >= CHECK_FAST_GBPS) ||
	    (n->kind != NULL && strcmp(n->kind, "infiniband") == 0));
}

/*
 * The plan network with role `role` ("mgmt" means management), when
 * exactly one has it.
 */
static const struct plan_net *
check_net_by_role(const struct plan *p, const char *role)
{
	if (role == NULL)
		return NULL;
	return plan_net_by_role(p, strcmp(role, "mgmt") == 0 ? "management" :
	    role);
}

int
check_in_net(const struct plan_net *n, uint32_t a)
{
	return n->cidr != NULL && (a & n->mask) == n->addr;
}

static double
check_drive_w(const char *kind)
{
	if (kind != NULL && strcmp(kind, "nvme") == 0)
		return CHECK_NVME_W;
	if (kind != NULL && strcmp(kind, "hdd") == 0)
		return CHECK_HDD_W;
	return CHECK_SSD_W;
}

/* The plan's NICs merged with the system's built-in ones. */
static void
check_hw_nics(struct check_ctx *c, struct check_hw *ch)
{
	const struct plan_hw	*hw = ch->hw;
	const struct cat_system	*sys = hw->sys;
	long			*builtin, *left;
	size_t			 i, n = 0;

	builtin = xcalloc(hw->nnics + 1, sizeof *builtin);
	left = xcalloc(sys != NULL ? sys->nnics + 1 : 1, sizeof *left);
	check_nic_builtin(hw, builtin, left);
	ch->nics = xcalloc(hw->nnics + (sys != NULL ? sys->nnics : 0) + 1,
	    sizeof *ch->nics);
	for (i = 0; i < hw->nnics; i++) {
		const struct plan_nic	*pn = &hw->nics[i];
		struct check_nic	*cn = &ch->nics[n++];

		cn->model = pn->cat != NULL ? pn->cat->m.id : pn->model;
		cn->cat = pn->cat;
		cn->count = pn->count;
		cn->builtin = builtin[i];
		cn->net = pn->network != NULL ?
		    plan_net_find(c->p, pn->network) : NULL;
		cn->src = pn->src;
	}
	for (i = 0; sys != NULL && i < sys->nnics; i++) {
		const struct cat_fixed	*f = &sys->nics[i];
		struct check_nic	*cn;

		if (left[i] <= 0 || f->model == NULL)
			continue;
		cn = &ch->nics[n++];
		cn->model = f->model;
		cn->cat = catalog_nic(c->p->catalog, f->model);
		cn->count = left[i];
		cn->builtin = left[i];
		cn->bmc = f->role != NULL && strcmp(f->role, "bmc") == 0;
		cn->net = cn->bmc ? NULL : check_net_by_role(c->p, f->role);
	}
	ch->nnics = n;
	free(builtin);
	free(left);

	ch->links = xcalloc(c->p->nnets + 1, sizeof *ch->links);
	for (i = 0; i < ch->nnics; i++) {
		const struct check_nic	*cn = &ch->nics[i];
		long			 ports;

		ports = cn->cat != NULL ? cn->cat->ports : -1;

		if (cn->bmc)
			continue;
		if (ports > 0)
			ch->ports += ports * cn->count;
		else
			ch->ports_unknown = 1;
		if (cn->net != NULL) {
			ch->links[cn->net - c->p->nets] += cn->count *
			    (ports > 0 ? ports : 1);
			if (check_net_fast(cn->net) && check_nic_fast(cn->cat))
				ch->fast = 1;
		}
	}
}

/* Full-load draw of one node of the model (W), with how it was summed. */
static void
check_hw_draw(struct check_ctx *c, struct check_hw *ch)
{
	const struct plan_hw	*hw = ch->hw;
	const struct cat_system	*sys = hw->sys;
	struct buf		*d = &ch->detail, *nt = &ch->note;
	double			 sum = 0, w, nicw = 0, drivew = 0;
	size_t			 i;

	if (sys != NULL && !isnan(sys->base_power_w)) {
		sum = sys->base_power_w;
		buf_addf(d, "base %s W", check_num(sum).s);
	} else {
		long	u = sys != NULL && sys->rack_units > 0 ?
		    sys->rack_units : 1;

		sum = CHECK_BASE_W_PER_U * (double)u;
		buf_addf(d, "base %s W", check_num(sum).s);
		buf_addf(nt, "%sbase %s W assumed (%s W per U; the catalog has "
		    "no base_power_w for '%s')", nt->len ? "; " : "",
		    check_num(sum).s, check_num(CHECK_BASE_W_PER_U).s,
		    hw->system);
		ch->draw_est = 1;
	}
	if (hw->ncpus > 0) {
		if (hw->cpu_cat != NULL && !isnan(hw->cpu_cat->power_w)) {
			w = hw->cpu_cat->power_w;
			sum += w * (double)hw->ncpus;
			buf_addf(d, " + CPUs %ld x %s W", hw->ncpus,
			    check_num(w).s);
		} else {
			buf_addf(nt, "%sCPU power unknown (give cpu: "
			    "{ model })", nt->len ? "; " : "");
			ch->draw_est = 1;
		}
	}
	if (!isnan(hw->mem_gb)) {
		sum += hw->mem_gb * CHECK_MEM_W_PER_GB;
		buf_addf(d, " + memory %s GB x %s W", check_num(hw->mem_gb).s,
		    "0.375");
	} else {
		buf_addf(nt, "%smemory size unknown (give memory_gb)",
		    nt->len ? "; " : "");
		ch->draw_est = 1;
	}
	if (hw->ngpus > 0) {
		if (hw->gpu_cat != NULL && !isnan(hw->gpu_cat->power_w)) {
			w = hw->gpu_cat->power_w;
			sum += w * (double)hw->ngpus;
			buf_addf(d, " + GPUs %ld x %s W", hw->ngpus,
			    check_num(w).s);
		} else {
			buf_addf(nt, "%sGPU power unknown",
			    nt->len ? "; " : "");
			ch->draw_est = 1;
		}
	}
	for (i = 0; i < ch->nnics; i++) {
		const struct check_nic	*cn = &ch->nics[i];

		if (cn->bmc)
			continue;
		if (cn->cat != NULL && !isnan(cn->cat->power_w))
			nicw += cn->cat->power_w * (double)cn->count;
		else if (cn->cat != NULL && cn->cat->onboard)
			continue;
		else {
			nicw += CHECK_NIC_W * (double)cn->count;
			buf_addf(nt, "%sNIC '%s' power unknown: %s W assumed",
			    nt->len ? "; " : "", cn->model,
			    check_num(CHECK_NIC_W).s);
			ch->draw_est = 1;
		}
	}
	if (nicw > 0) {
		sum += nicw;
		buf_addf(d, " + NICs %s W", check_num(nicw).s);
	}
	if (hw->ndrives > 0) {
		for (i = 0; i < hw->ndrives; i++) {
			const struct plan_drive	*dr = &hw->drives[i];

			drivew += (double)dr->count * (!isnan(dr->power_w) ?
			    dr->power_w : check_drive_w(dr->kind));
		}
	} else if (sys != NULL)
		for (i = 0; i < sys->ndrives; i++)
			drivew += (double)(sys->drives[i].count > 0 ?
			    sys->drives[i].count : 1) *
			    check_drive_w(sys->drives[i].kind);
	if (drivew > 0) {
		sum += drivew;
		buf_addf(d, " + drives %s W", check_num(drivew).s);
	}
	ch->draw = sum;
	if (sys != NULL && !isnan(sys->max_power_w)) {
		if (sys->max_power_w >= sum) {
			char	*parts = buf_detach(d, NULL);

			buf_addf(d, "vendor maximum %s W for '%s' (parts: %s "
			    "= %s W)", check_num(sys->max_power_w).s,
			    sys->m.id, parts, check_num(sum).s);
			free(parts);
			ch->draw = sys->max_power_w;
			/* The vendor's figure covers what we had to guess. */
			ch->draw_est = 0;
			buf_reset(nt);
		} else
			buf_addf(d, " = %s W, above the vendor maximum %s W",
			    check_num(sum).s, check_num(sys->max_power_w).s);
	} else
		buf_addf(d, " = %s W", check_num(sum).s);
	(void)c;
}

static void
check_hw_prepare(struct check_ctx *c, struct check_hw *ch,
    const struct plan_hw *hw)
{
	const struct cat_system	*sys = hw->sys;

	ch->hw = hw;
	ch->detail = (struct buf)BUF_INIT;
	ch->note = (struct buf)BUF_INIT;
	check_hw_nics(c, ch);
	check_hw_draw(c, ch);
	if (sys != NULL && sys->rack_units > 0)
		ch->height = sys->rack_units;
	else if (sys == NULL || check_has(&sys->m.unknown, "rack_units"))
		ch->height = 0;
	else
		ch->height = -1;
}

double
check_hw_draw_w(const struct plan *p, const struct plan_hw *hw,
    int *estimated)
{
	struct check_ctx	c;
	struct check_hw		ch;

	memset(&c, 0, sizeof c);
	memset(&ch, 0, sizeof ch);
	c.p = p;
	check_hw_prepare(&c, &ch, hw);
	if (estimated != NULL)
		*estimated = ch.draw_est;
	free(ch.nics);
	free(ch.links);
	buf_release(&ch.detail);
	buf_release(&ch.note);
	return ch.draw;
}

char *
check_hw_subject(const struct plan_hw *hw)
{
	return xasprintf("hardware '%s'", hw->name);
}

/* ------------------------------------------------------------------ */

static void
check_nohw(struct check_ctx *c)
{
	struct row		*row;
	const struct plan	*p = c->p;
	const struct plan_node	*first = NULL;
	struct buf		 b = BUF_INIT;
	size_t			 i, n = 0;

	for (i = 0; i < p->nnodes; i++) {
		if (p->nodes[i].hw != NULL)
			continue;
		if (n < 3)
			buf_addf(&b, "%s%s", n ? ", " : "", p->nodes[i].name);
		if (n++ == 0)
			first = &p->nodes[i];
	}
	if (n == 0) {
		buf_release(&b);
		return;
	}
	if (n > 3)
		buf_adds(&b, ", ...");
	row = check_row(c, ROW_SKIP, "pcie", "hardware", plan_loc(p, first->src,
	    "name"));
	row->subject = n == 1 ? xasprintf("node '%s'", first->name) :
	    xasprintf("%s nodes (%s)", check_int((double)n).s, b.buf);
	row->measured = xstrdup("no hardware model");
	row->limit = xstrdup("not checked");
	row->hint = xstrdup("give the nodes hardware: to check slots, power, "
	    "rack and memory");
	row->value = (double)n;
	buf_release(&b);
}

int
check_plan(struct rows *out, const struct plan *p, struct prov_err *err)
{
	struct check_ctx	c;
	size_t			i;

	if (p == NULL)
		return prov_err_set(err, PROV_E_USAGE, "no plan to check");
	memset(&c, 0, sizeof c);
	c.p = p;
	c.out = out;
	c.hw = xcalloc(p->nhw + 1, sizeof *c.hw);
	c.volts = xcalloc(p->nracks + 1, sizeof *c.volts);
	for (i = 0; i < p->nhw; i++)
		check_hw_prepare(&c, &c.hw[i], &p->hw[i]);
	for (i = 0; i < p->nracks; i++)
		c.volts[i] = check_rack_volts(&p->racks[i]);
	for (i = 0; i < p->nnodes; i++)
		if (p->nodes[i].hw != NULL)
			c.hw[p->nodes[i].hw - p->hw].nnodes++;

	check_nohw(&c);
	for (i = 0; i < p->nhw; i++)
		check_pcie_hw(&c, &p->hw[i]);
	check_power(&c);
	check_racks(&c);
	check_network(&c);
	for (i = 0; i < p->nhw; i++)
		check_memory(&c, &p->hw[i]);
	rows_blank(out);

	for (i = 0; i < p->nhw; i++) {
		free(c.hw[i].nics);
		free(c.hw[i].links);
		buf_release(&c.hw[i].detail);
		buf_release(&c.hw[i].note);
	}
	free(c.hw);
	free(c.volts);
	return 0;
}

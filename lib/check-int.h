/*
 * check-int.h: what the parts of check share (check.c holds the entry
 * point, the shared helpers and the per-model figures; check-pcie.c,
 * check-power.c, check-memory.c, check-rack.c and check-network.c write
 * the rows of one concern each).  Private to lib/check*.c; the API is
 * check.h.
 */
#ifndef PROV_CHECK_INT_H
#define PROV_CHECK_INT_H

#include <stdint.h>

#include "buf.h"
#include "catalog.h"
#include "check.h"
#include "plan.h"
#include "row.h"
#include "strmap.h"
#include "strvec.h"

/* A NIC of a hardware model: the plan's entries merged with the system's. */
struct check_nic {
	const char		*model;
	const struct cat_nic	*cat;
	long			 count;
	long			 builtin;	/* of count, built in */
	const struct plan_net	*net;		/* NULL: not attached */
	int			 bmc;		/* the BMC port: no host NIC */
	const struct yml_node	*src;		/* plan entry; NULL: built-in */
};

struct check_hw {
	const struct plan_hw	*hw;
	struct check_nic	*nics;
	size_t			 nnics;
	long			 ports;		/* host ports (known counts) */
	int			 ports_unknown;	/* a NIC's ports are unknown */
	int			 fast;		/* fast NIC, fast network */
	double			 draw;		/* full-load W */
	int			 draw_est;	/* draw rests on a default */
	struct buf		 detail;	/* how draw was summed */
	struct buf		 note;		/* defaults and unknowns */
	long			 height;	/* U; 0 unknown; -1 no rack */
	size_t			 nnodes;
	long			*links;		/* per plan net: cables */
};

struct check_cap {
	size_t	shown, more;
};

struct check_ctx {
	const struct plan	*p;
	struct rows		*out;
	struct check_hw		*hw;		/* one per p->hw */
	double			*volts;		/* per rack: outlet V or NAN */
};

/* check.c */
struct check_num	 check_num(double v);
struct check_num	 check_int(double v);
const char	*check_plural(long n, const char *one, const char *many);
struct row	*check_row(struct check_ctx *c, enum row_verdict v,
		    const char *group, const char *what, struct prov_loc loc);
int	 check_cap_take(struct check_cap *cap);
void	 check_cap_flush(struct check_ctx *c, struct check_cap *cap,
		    const char *group, const char *what);
enum row_verdict	 check_grade(double value, double max, int uncertain);
struct check_num	 check_pct(double value, double max);
int	 check_has(const struct strvec *v, const char *s);
int	 check_is(const struct cat_meta *m, const char *id);
int	 check_baseboard_ff(const char *ff);
int	 check_in_net(const struct plan_net *n, uint32_t a);
char	*check_hw_subject(const struct plan_hw *hw);
/* check-pcie.c */
void	 check_nic_builtin(const struct plan_hw *hw, long *builtin,
		    long *left);
void	 check_pcie_hw(struct check_ctx *c, const struct plan_hw *hw);
/* check-power.c */
double	 check_rack_volts(const struct plan_rack *r);
void	 check_power(struct check_ctx *c);
/* check-memory.c */
void	 check_memory(struct check_ctx *c, const struct plan_hw *hw);
/* check-rack.c */
void	 check_racks(struct check_ctx *c);
/* check-network.c */
void	 check_network(struct check_ctx *c);

#endif

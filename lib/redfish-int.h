/*
 * redfish-int.h: what the parts of redfish share (redfish.c holds the
 * session, the state machine and the entry points, redfish-inv.c reads
 * and compares inventory, redfish-power.c reads PDUs and judges power).
 * Private to lib/redfish*.c; the API is redfish.h.
 */
#ifndef PROV_REDFISH_INT_H
#define PROV_REDFISH_INT_H

#include "buf.h"
#include "redfish.h"
#include "str.h"
#include "yml.h"

/* JSON helpers (redfish.c). */
const struct yml_node	*redfish_map(const struct yml_node *, const char *);
const struct yml_node	*redfish_seq(const struct yml_node *, const char *);
int			 redfish_absent(const struct yml_node *);

/* Inventory helpers (redfish-inv.c). */
void	redfish_inc(long *, long);
double	redfish_reading(const struct yml_node *, const char *);
void	redfish_add_nan(double *, double);
void	redfish_num_str(struct buf *, double);

#endif

/*
 * facts-int.h: what the parts of facts share (facts.c: lifecycle, PCI
 * devices, finishing; facts-parse.c: the tools' output; facts-script.c:
 * the gather script and its answer; facts-json.c; facts-drift.c).
 * Private to lib/facts*.c; the API is facts.h.
 */
#ifndef PROV_FACTS_INT_H
#define PROV_FACTS_INT_H

#include "facts.h"

int	facts_kv(char *line, int sep, char **k, char **v);
long	facts_num(const char *s);
double	facts_dbl(const char *s);
void	facts_lower(char *s);
int	facts_blank(const char *s);
struct facts_gpu	*facts_gpu_get(struct facts *f, const char *bus_id,
	    long index);
char	*facts_pci_id(const struct facts_pci *d);
int	facts_parse_pci_drivers(struct facts *f, const char *text,
    struct prov_err *err);
struct facts_ib	*facts_ib_add(struct facts *f, const char *ca, long port);

#endif

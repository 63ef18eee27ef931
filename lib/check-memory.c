/*
 * check-memory.c: the memory rows: per hardware model, at least 24 GB and at
 * least the GPU memory (the rules are in check.c).
 */
#include "compat.h"

#include <ctype.h>
#include <math.h>

#include "check-int.h"

/* ------------------------------------------------------------------ */
/* memory rows.                                                        */

void
check_memory(struct check_ctx *c, const struct plan_hw *hw)
{
	struct row		*row;
	const struct cat_system	*sys = hw->sys;
	struct prov_loc		 loc = plan_loc(c->p, hw->src,
	    !isnan(hw->memory_gb) ? "memory_gb" : "system");
	double			 mem = hw->mem_gb, gmem;
	double			 maxm = sys != NULL ? sys->max_memory_gb : NAN;

	if (isnan(mem)) {
		row = check_row(c, ROW_WARN, "memory", "RAM", loc);
		row->subject = check_hw_subject(hw);
		row->measured = xstrdup("unknown");
		row->limit = xasprintf(">= %s GB",
		    check_num(CHECK_MIN_RAM_GB).s);
		row->hint = xasprintf("give memory_gb for '%s'", hw->name);
		row->max = CHECK_MIN_RAM_GB;
	} else if (mem < CHECK_MIN_RAM_GB) {
		row = check_row(c, ROW_FAIL, "memory", "RAM", loc);
		row->subject = check_hw_subject(hw);
		row->measured = xasprintf("%s GB", check_num(mem).s);
		row->limit = xasprintf(">= %s GB",
		    check_num(CHECK_MIN_RAM_GB).s);
		row->hint = xasprintf("plan at least %s GB of RAM per node",
		    check_num(CHECK_MIN_RAM_GB).s);
		row->value = mem;
		row->max = CHECK_MIN_RAM_GB;
	} else if (!isnan(maxm) && mem > maxm) {
		row = check_row(c, ROW_FAIL, "memory", "RAM", loc);
		row->subject = check_hw_subject(hw);
		row->measured = xasprintf("%s GB", check_num(mem).s);
		row->limit = xasprintf("<= %s GB (maximum of '%s')",
		    check_num(maxm).s, sys->m.id);
		row->hint = xasprintf("'%s' holds at most %s GB", sys->m.id,
		    check_num(maxm).s);
		row->value = mem;
		row->max = maxm;
	} else {
		row = check_row(c, ROW_OK, "memory", "RAM", loc);
		row->subject = check_hw_subject(hw);
		row->measured = xasprintf("%s GB", check_num(mem).s);
		row->limit = !isnan(maxm) ? xasprintf(">= %s GB, <= %s GB",
		    check_num(CHECK_MIN_RAM_GB).s, check_num(maxm).s) :
		    xasprintf(">= %s GB", check_num(CHECK_MIN_RAM_GB).s);
		row->value = mem;
		row->max = CHECK_MIN_RAM_GB;
	}
	if (hw->ngpus <= 0 || hw->gpu_cat == NULL || isnan(mem))
		return;
	if (isnan(hw->gpu_cat->memory_gb)) {
		row = check_row(c, ROW_WARN, "memory", "RAM vs GPU memory",
		    loc);
		row->subject = check_hw_subject(hw);
		row->measured = xasprintf("%s GB RAM", check_num(mem).s);
		row->limit = xstrdup("unknown GPU memory");
		row->hint = xasprintf("the catalog has no memory_gb for '%s'",
		    hw->gpu_cat->m.id);
		row->value = mem;
		return;
	}
	gmem = (double)hw->ngpus * hw->gpu_cat->memory_gb;
	row = check_row(c, mem >= gmem ? ROW_OK : ROW_WARN, "memory",
	    "RAM vs GPU memory", loc);
	row->subject = check_hw_subject(hw);
	row->measured = xasprintf("%s GB RAM", check_num(mem).s);
	row->limit = xasprintf("%s GB GPU memory (%ld x %s GB)",
	    check_num(gmem).s, hw->ngpus, check_num(hw->gpu_cat->memory_gb).s);
	row->hint = mem >= gmem ? NULL : xasprintf("common guidance: system "
	    "RAM at least the total GPU memory (pinned buffers, data loading); "
	    "plan %s GB or more", check_num(gmem).s);
	row->value = mem;
	row->max = gmem;
}


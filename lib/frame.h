/*
 * frame.h: what a script run on a node prints, cut back into its sections
 * (templates/remote/facts.sh and verify.sh; apply runs the facts script
 * inside one of its parts):
 *
 *	@@facts NAME		a section begins
 *	...			its text
 *	@@rc N			its command's status (optional; the last wins)
 *
 * frame_each() calls fn once a section, in order, with the name (trimmed),
 * the text (every line with its newline, CRs before newlines dropped)
 * and the status (-1 when none was printed, or not a number).  Lines
 * before the first section are not a section's.  Returns how many there
 * were.
 */
#ifndef PROV_FRAME_H
#define PROV_FRAME_H

#include <stddef.h>

#define FRAME_SECTION	"@@facts "
#define FRAME_RC	"@@rc "

size_t	frame_each(const char *out,
    void (*fn)(void *arg, const char *name, const char *text, long rc),
    void *arg);

#endif

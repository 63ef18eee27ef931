/*
 * remote.h: the shell that runs on nodes, kept in templates/remote/ and
 * compiled in at build time (scripts/embed-sh writes build/gen/remote.c),
 * so the binary is one file.  Each is a whole script, NUL-terminated.
 */
#ifndef PROV_REMOTE_H
#define PROV_REMOTE_H

/* Everything facts knows of a node, in "@@facts NAME" sections. */
extern const char remote_facts_sh[];
/* verify's checks after the facts; see verify_script() for its inputs. */
extern const char remote_verify_sh[];
/* catalog learn's SMBIOS and slot sections; see learn_script(). */
extern const char remote_learn_sh[];
/* usage's sacct and squeue on the head; see usage_script(). */
extern const char remote_usage_sh[];

#endif

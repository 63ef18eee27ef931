/*
 * proc.h: run a program on this machine (nvidia-smi for facts --local,
 * sh -n for apply's lib.sh) with its output kept, never shown.
 */
#ifndef PROC_H
#define PROC_H

struct buf;

/*
 * Run argv (PATH searched, stdin /dev/null) with stdout and stderr into
 * out (16 MiB kept at most), for at most timeout_s.  *status is the wait
 * status.  -1 when it could not start (errno kept: ENOENT when not
 * installed) or timed out (ETIMEDOUT).
 */
int	proc_run(struct buf *out, char *const argv[], int timeout_s,
	    int *status);

#endif

/*
 * statesave.c: the cost of apply's state saves at fan-out scale.
 *
 *	statesave DIR NODES STEPS CHANGED SAVES
 *
 * Builds a state of NODES nodes with STEPS rows each (every tenth node has
 * a failed row with a message, as a real run has), saves it once, then
 * times SAVES rounds of "CHANGED nodes get a new result row, save": what
 * apply does every half second while CHANGED nodes finish a step.  Prints
 * one line: CPU ms a save (user + sys), wall ms a save, file bytes.
 *
 * Only the public state.h API is used, so bench/statesave.sh links this
 * same file against the libprov.a of an older commit and of the tree and
 * compares them in one run.  It is compiled with the tree's state.h: the
 * only fields it touches (run_id, status) must keep their place in
 * struct state, ahead of the fields state.c keeps for itself, or the run
 * against the older library writes the wrong memory.
 */
#include "compat.h"

#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>

#include "err.h"
#include "state.h"

static const char *const statesave_steps[] = { "lock", "facts", "base",
	"gpu-driver", "fabric", "node-exporter", "container", "slurm",
	"extras", "verify", "logging", "munge" };

static double
statesave_cpu(void)
{
	struct rusage	ru;

	getrusage(RUSAGE_SELF, &ru);
	return (double)ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6 +
	    (double)ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6;
}

static double
statesave_wall(void)
{
	struct timespec	ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

int
main(int argc, char **argv)
{
	struct state	*st = NULL;
	struct prov_err	 err = PROV_ERR_INIT;
	struct stat	 sb;
	char		*path, name[32];
	long		 nodes, steps, changed, saves, i, j, k = 0;
	double		 c0, w0, cpu, wall;

	if (argc != 6) {
		fprintf(stderr, "usage: statesave DIR NODES STEPS CHANGED "
		    "SAVES\n");
		return 2;
	}
	nodes = strtol(argv[2], NULL, 10);
	steps = strtol(argv[3], NULL, 10);
	changed = strtol(argv[4], NULL, 10);
	saves = strtol(argv[5], NULL, 10);
	if (nodes < 1 || steps < 1 || steps > (long)ARRAY_SIZE(statesave_steps)
	    || changed < 0 || changed > nodes || saves < 1) {
		fprintf(stderr, "statesave: bad arguments\n");
		return 2;
	}
	path = xasprintf("%s/state.json", argv[1]);
	(void)unlink(path);
	if (state_open(&st, path, &err) != 0) {
		fprintf(stderr, "statesave: %s\n", err.msg);
		return 1;
	}
	st->run_id = xstrdup("20261206T090000Z");
	st->status = xstrdup("running");
	for (i = 0; i < nodes; i++) {
		snprintf(name, sizeof name, "gpu%04ld", i + 1);
		for (j = 0; j < steps; j++)
			state_set(st, name, statesave_steps[j],
			    i % 10 == 9 && j == steps - 1 ? STATE_FAILED :
			    STATE_OK, i % 10 == 9 && j == steps - 1 ?
			    "exit 1: apt-get: E: Unable to locate package "
			    "\"nvidia-driver-550\"" : NULL, 1.25 + j);
	}
	if (state_save(st, &err) != 0) {
		fprintf(stderr, "statesave: %s\n", err.msg);
		return 1;
	}
	c0 = statesave_cpu();
	w0 = statesave_wall();
	for (i = 0; i < saves; i++) {
		/* The next CHANGED nodes, round robin: a step finished. */
		for (j = 0; j < changed; j++, k++) {
			snprintf(name, sizeof name, "gpu%04ld", k % nodes + 1);
			state_set(st, name, statesave_steps[(k / nodes) %
			    steps], STATE_CHANGED, NULL, 0.5 + (double)i);
		}
		if (state_save(st, &err) != 0) {
			fprintf(stderr, "statesave: %s\n", err.msg);
			return 1;
		}
	}
	cpu = statesave_cpu() - c0;
	wall = statesave_wall() - w0;
	if (stat(path, &sb) != 0) {
		perror(path);
		return 1;
	}
	printf("%.4f %.4f %lld\n", cpu * 1e3 / saves, wall * 1e3 / saves,
	    (long long)sb.st_size);
	state_free(st);
	free(path);
	return 0;
}

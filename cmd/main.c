/*
 * main.c: `provision CMD ...`, `provision plan.yaml` (apply), help.
 *
 * The one place that decides the process's fate: every command returns an
 * exit code (0 ok, 1 checks or run failed, 2 unreadable plan or bad usage).
 */
#include "compat.h"

#include <signal.h>
#include <sys/prctl.h>
#include <sys/resource.h>

#include "cmd.h"
#include "str.h"

#define PROVISION_VERSION "0.1.0"

static void
main_usage(FILE *fp)
{
	size_t	i;

	fprintf(fp, "usage: provision COMMAND [OPTIONS] [PLAN] ...\n"
	    "       provision PLAN.yaml          (same as 'provision apply PLAN.yaml')\n\n"
	    "commands:\n");
	for (i = 0; cmd_table[i] != NULL; i++)
		fprintf(fp, "  %-10s %s\n", cmd_table[i]->name,
		    cmd_table[i]->summary);
	fprintf(fp, "\n'provision help COMMAND' shows a command's options.\n");
}

static int
main_is_plan(const char *a)
{
	size_t	n = strlen(a);

	return (n > 5 && strcmp(a + n - 5, ".yaml") == 0) ||
	    (n > 4 && strcmp(a + n - 4, ".yml") == 0);
}

static int
main_help_exec(struct cmd_ctx *ctx, void *opts, int argc, char **argv)
{
	const struct cmd_entry	*e;

	if (argc == 0) {
		main_usage(ctx->out);
		return 0;
	}
	if ((e = cmd_find(argv[0])) == NULL) {
		fprintf(ctx->err, "provision: unknown command '%s'\n", argv[0]);
		return PROV_EXIT_USAGE;
	}
	cmd_help(e, ctx->out);
	return 0;
}

const struct cmd_entry cmd_help_entry = {
	.name = "help",
	.usage = "[COMMAND]",
	.summary = "show the commands, or one command's options",
	.exec = main_help_exec,
};

/*
 * Secrets pass through this process's memory (BMC passwords, the key
 * passphrase, the munge key and join tokens apply carries, a signing
 * key): no core dump may write them to disk, and no other process of
 * this user may read them (a process that is not dumpable cannot be
 * traced, and its /proc files are root's).  Children get their own
 * setting back at exec.
 */
static void
main_protect_memory(void)
{
	struct rlimit	no_core = { 0, 0 };

	if (setrlimit(RLIMIT_CORE, &no_core) != 0 ||
	    prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) != 0)
		fprintf(stderr, "provision: warning: cannot turn core dumps "
		    "off: %s\n", strerror(errno));
}

int
main(int argc, char **argv)
{
	struct cmd_ctx		 ctx;
	const struct cmd_entry	*e;
	const char		*names[64];
	size_t			 i;
	int			 r;

	main_protect_memory();
	/* A closed pipe is an error return from write, not a silent death. */
	signal(SIGPIPE, SIG_IGN);
	memset(&ctx, 0, sizeof ctx);
	ctx.out = stdout;
	ctx.err = stderr;
	ctx.tty = isatty(STDOUT_FILENO);
	ctx.color = ctx.tty && (getenv("NO_COLOR") == NULL ||
	    *getenv("NO_COLOR") == '\0');
	ctx.prog = "provision";
	ctx.profiles = (struct strvec)STRVEC_INIT;

	if (argc < 2) {
		main_usage(stderr);
		return PROV_EXIT_USAGE;
	}
	if (strcmp(argv[1], "--version") == 0 || strcmp(argv[1], "version") == 0) {
		printf("provision %s\n", PROVISION_VERSION);
		return 0;
	}
	if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0) {
		main_usage(stdout);
		return 0;
	}
	e = cmd_find(argv[1]);
	if (e == NULL && main_is_plan(argv[1]) && (e = cmd_find("apply")) != NULL) {
		/* `provision plan.yaml` is `provision apply plan.yaml`. */
		r = cmd_run(&ctx, e, argc - 1, argv + 1);
		goto out;
	}
	if (e == NULL) {
		const char	*near;

		for (i = 0; cmd_table[i] != NULL && i < ARRAY_SIZE(names) - 1; i++)
			names[i] = cmd_table[i]->name;
		names[i] = NULL;
		near = str_suggest(argv[1], names);
		fprintf(stderr, "provision: unknown command '%s'", argv[1]);
		if (near != NULL)
			fprintf(stderr, " (did you mean '%s'?)", near);
		fprintf(stderr, "\n");
		return PROV_EXIT_USAGE;
	}
	r = cmd_run(&ctx, e, argc - 2, argv + 2);
out:
	strvec_clear(&ctx.profiles);
	if (fflush(stdout) != 0 && r == 0)
		r = PROV_EXIT_FAIL;
	return r;
}

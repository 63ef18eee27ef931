/* placeholder until lib/check.h lands */
#include "compat.h"
#include "cmd.h"
static int
cmd_check_exec(struct cmd_ctx *ctx, void *o, int argc, char **argv)
{
	return 0;
}
const struct cmd_entry cmd_check_entry = {
	"check", "validate", "[--json] PLAN", "check hardware", NULL, 0, NULL,
	CMD_LOADS_PLAN, cmd_check_exec
};

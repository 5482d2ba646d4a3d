/* The `chainsim gsp` command alone (tools/cmd_gsp.c), so the gsp suite runs
 * without the rest of the CLI. */
#include "commands.h"

int main(int argc, char **argv)
{
	return cs_cmd_gsp(argc, argv);
}

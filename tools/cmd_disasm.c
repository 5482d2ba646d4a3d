/* PLACEHOLDER until its owner lands it: replace this whole file. */
#include <stdio.h>

#include "commands.h"

int cs_cmd_disasm(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	fprintf(stderr, "chainsim disasm: not built yet\n");
	return CS_EXIT_INTERNAL;
}

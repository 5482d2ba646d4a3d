/* SPDX-License-Identifier: MIT */
/* Shared command-line handling (tools/cli.h). */
#include "cli.h"

#include <string.h>
#include <unistd.h>

#include "commands.h"

void cs_cli_begin(void)
{
	optind = 0; /* glibc: 0 also resets getopt's state from an earlier command */
	opterr = 0;
}

int cs_cli_version(void)
{
	printf("chainsim %s\n", CHAINSIM_VERSION);
	return CS_EXIT_OK;
}

int cs_cli_bad_option(const char *cmd, int got, char **argv, void (*usage)(FILE *out))
{
	/* getopt has stepped past the bad word, except for a letter inside a
	 * group (-xy), which optopt names */
	const char *word = argv[optind - 1];
	if (got == ':')
		fprintf(stderr, "chainsim %s: %s needs a value\n", cmd, word);
	else if (!optopt)
		fprintf(stderr, "chainsim %s: unknown option '%s'\n", cmd, word);
	else if (!strncmp(word, "--", 2))
		fprintf(stderr, "chainsim %s: '%s': that option takes no value\n", cmd, word);
	else
		fprintf(stderr, "chainsim %s: unknown option '-%c'\n", cmd, optopt);
	usage(stderr);
	return CS_EXIT_INPUT;
}

bool cs_cli_self_path(char *buf, size_t len)
{
	ssize_t n = len ? readlink("/proc/self/exe", buf, len - 1) : -1;
	if (len)
		buf[n > 0 ? n : 0] = 0;
	return n > 0;
}

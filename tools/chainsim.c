/* SPDX-License-Identifier: MIT */
/* chainsim: the command-line front door. Subcommands live in cmd_*.c. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "commands.h"

#ifdef CS_HAVE_GSP
/* `chainsim gsp` is the program chainsim-gsp beside this one
 * (tools/chainsim_gsp.c): only it links Unicorn. */
static int run_gsp_program(int argc, char **argv)
{
	(void)argc;
	char exe[PATH_MAX], prog[PATH_MAX + 16];
	cs_cli_self_path(exe, sizeof(exe));
	const char *slash = strrchr(exe, '/');
	if (!slash) {
		fprintf(stderr, "chainsim gsp: cannot find this program's folder "
				"(/proc/self/exe), where chainsim-gsp lives\n");
		return CS_EXIT_INTERNAL;
	}
	snprintf(prog, sizeof(prog), "%.*s/chainsim-gsp", (int)(slash - exe), exe);
	argv[0] = "chainsim-gsp";
	execv(prog, argv);
	fprintf(stderr, "chainsim gsp: cannot run %s: %s\n", prog, strerror(errno));
	return CS_EXIT_INTERNAL;
}
#endif

static const struct {
	const char *name;
	int (*fn)(int argc, char **argv);
	const char *summary;
} commands[] = {
	{ "run", cs_cmd_run, "run a scenario through the launch chain and report it" },
	{ "disasm", cs_cmd_disasm, "turn raw pushbuffer bytes into scenario text" },
	{ "battery", cs_cmd_battery, "run the acceptance battery of guest clients" },
#ifdef CS_HAVE_GSP
	{ "gsp", run_gsp_program, "debug GSP RISC-V firmware on Unicorn (chainsim-gsp)" },
#endif
	{ "repl", cs_cmd_repl, "step a scenario's method stream through the device" },
	{ "export", cs_cmd_export, "write a scenario's submission as a capture" },
	{ "diff", cs_cmd_diff, "compare two runs (or a GPU's results with the simulator's)" },
	{ "reduce", cs_cmd_reduce, "shrink a scenario to one that still breaks the same way" },
	{ "conform", cs_cmd_conform, "run conformance cases in parallel, sharded, to JSON/JUnit" },
};

static void usage(FILE *out)
{
	fprintf(out, "usage: chainsim COMMAND [ARGS...]\n\ncommands:\n");
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		fprintf(out, "  %-8s %s\n", commands[i].name, commands[i].summary);
	fprintf(out, "\n'chainsim COMMAND --help' describes one command; 'chainsim --version'\n"
		     "prints the version.\n");
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		usage(stderr);
		return CS_EXIT_INPUT;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "help")) {
		usage(stdout);
		return CS_EXIT_OK;
	}
	if (!strcmp(argv[1], "--version"))
		return cs_cli_version();
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		if (!strcmp(argv[1], commands[i].name))
			return commands[i].fn(argc - 1, argv + 1);
	fprintf(stderr, "chainsim: unknown command '%s'\n", argv[1]);
	usage(stderr);
	return CS_EXIT_INPUT;
}

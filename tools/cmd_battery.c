/* SPDX-License-Identifier: MIT */
/* chainsim battery [--arch A] [--dir DIR] [--only LABEL] [--verbose]
 * [EXECUTOR OPTIONS]
 * The acceptance battery (tools/battery/): one line per client and a verdict. */
#include <stdio.h>
#include <string.h>

#include "battery/battery.h"
#include "cli.h"
#include "commands.h"
#include "exec_options.h"

static void usage(FILE *f)
{
	fprintf(f, "usage: chainsim battery [--arch ampere|ada|hopper|blackwell] [--dir DIR]\n"
		   "                        [--only LABEL] [--verbose] [EXECUTOR OPTIONS]\n"
		   "Runs the acceptance clients (VADD, MATMUL, ATTN, FFN4) through the whole\n"
		   "launch chain on the simulator and checks each result against a CPU\n"
		   "reference. Prints one line per client and STATUS OK or STATUS FAIL.\n"
		   "  --arch A     the generation to run on (default hopper)\n"
		   "  --dir DIR    the scenarios (default: the installed ones, DATADIR/chainsim/\n"
		   "               battery, or fixtures/battery of the source tree)\n"
		   "  --only L     run only the client whose label starts with L (e.g. MATMUL)\n"
		   "  --verbose    tolerances and worst errors on stderr\n"
		   "  --version    print chainsim's version\n"
		   "Each client runs with the executor options, as chainsim run takes them:\n");
	cs_exec_options_help(f);
	fprintf(f,
		   "An option's value follows it or an '='. The battery reads no FILE, so no -.\n"
		   "Exit: 0 all clients passed, 1 a client failed, 2 usage.\n");
}

enum { OPT_ARCH = 0x200, OPT_DIR, OPT_ONLY };

static const struct option battery_options[] = {
	{ "help", no_argument, NULL, 'h' },
	CS_CLI_VERSION_OPTION,
	{ "verbose", no_argument, NULL, 'v' },
	{ "arch", required_argument, NULL, OPT_ARCH },
	{ "dir", required_argument, NULL, OPT_DIR },
	{ "only", required_argument, NULL, OPT_ONLY },
#define X CS_EXEC_LONG_OPTION
#include "exec_options.def"
#undef X
	{ 0 },
};

int cs_cmd_battery(int argc, char **argv)
{
	cs_battery_opts o = { .arch = CS_ARCH_HOPPER };
	cs_cli_begin();
	for (int c; (c = getopt_long(argc, argv, ":hv", battery_options, NULL)) != -1;) {
		const cs_exec_option *row = cs_exec_option_of(c);
		switch (c) {
		case 'h':
			usage(stdout);
			return CS_EXIT_OK;
		case CS_CLI_VERSION:
			return cs_cli_version();
		case 'v':
			o.verbose = true;
			break;
		case OPT_ARCH:
			if (!cs_arch_from_name(optarg, &o.arch)) {
				fprintf(stderr, "chainsim battery: unknown arch '%s' (ampere, ada, "
						"hopper, blackwell)\n", optarg);
				return CS_EXIT_INPUT;
			}
			break;
		case OPT_DIR:
			o.dir = optarg;
			break;
		case OPT_ONLY:
			o.only = optarg;
			break;
		default:
			if (!row)
				return cs_cli_bad_option("battery", c, argv, usage);
			if (!cs_exec_option_take("battery", row, optarg, &o.exec))
				return CS_EXIT_INPUT;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "chainsim battery: takes no FILE ('%s'): the scenarios are in --dir\n",
			argv[optind]);
		usage(stderr);
		return CS_EXIT_INPUT;
	}
	int rc = cs_battery_run(&o, stdout, stderr);
	return rc == 0 ? CS_EXIT_OK : rc == 1 ? CS_EXIT_BROKEN : CS_EXIT_INPUT;
}

/* SPDX-License-Identifier: MIT */
/* chainsim export SCENARIO -o FILE: run a scenario on the simulator and write
 * what its guest did as a capture (docs/capture.md). */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "chainsim/capture.h"
#include "chainsim/device.h"
#include "chainsim/run.h"
#include "chainsim/scenario.h"

#include "cli.h"
#include "commands.h"

static void export_usage(FILE *out)
{
	fprintf(out,
		"usage: chainsim export SCENARIO -o FILE [--read NAME]...\n"
		"\n"
		"Runs the .chain SCENARIO on the simulator and writes a capture to FILE: the\n"
		"memory regions with their bytes, the guest's writes between submissions, the\n"
		"GPFIFO entries per channel, submissions and waits in order, and the addresses\n"
		"to read back (docs/capture.md). `chainsim run FILE` replays it on the\n"
		"simulator, chainsim-hw on a GPU.\n"
		"\n"
		"  -o, --output FILE  where the capture goes; - is standard output\n"
		"  --read NAME        also read back every byte of region NAME (an output the\n"
		"                     scenario does not `expect`); may be given again, 32 times\n"
		"  --version          print chainsim's version\n"
		"SCENARIO - reads standard input; an option's value follows it or an '='.\n"
		"\n"
		"exit status: 0 written, 2 bad input or usage, 4 internal error.\n");
}

static const struct option export_options[] = {
	{ "help", no_argument, NULL, 'h' },
	CS_CLI_VERSION_OPTION,
	{ "output", required_argument, NULL, 'o' },
	{ "read", required_argument, NULL, 'r' },
	{ 0 },
};

int cs_cmd_export(int argc, char **argv)
{
	const char *in = NULL, *out = NULL;
	const char *reads[32];
	size_t nreads = 0;
	cs_cli_begin();
	for (int c; (c = getopt_long(argc, argv, ":ho:", export_options, NULL)) != -1;) {
		switch (c) {
		case 'h':
			export_usage(stdout);
			return CS_EXIT_OK;
		case CS_CLI_VERSION:
			return cs_cli_version();
		case 'o':
			out = optarg;
			break;
		case 'r':
			if (nreads == sizeof(reads) / sizeof(reads[0])) {
				fprintf(stderr, "chainsim export: at most %zu --read regions\n", nreads);
				return CS_EXIT_INPUT;
			}
			reads[nreads++] = optarg;
			break;
		default:
			return cs_cli_bad_option("export", c, argv, export_usage);
		}
	}
	if (optind < argc)
		in = argv[optind++];
	if (optind < argc) {
		fprintf(stderr, "chainsim export: one scenario at a time ('%s' is a second)\n",
			argv[optind]);
		return CS_EXIT_INPUT;
	}
	if (!in || !out) {
		fprintf(stderr, "chainsim export: needs a scenario and -o FILE\n");
		export_usage(stderr);
		return CS_EXIT_INPUT;
	}
	cs_diag d;
	cs_diag_clear(&d);
	char msg[CS_DIAG_MSG_MAX + CS_DIAG_FILE_MAX + 64];
	cs_scenario *s = cs_scenario_load(in, &d);
	cs_device *dev = NULL;
	cs_capture_writer *w = NULL;
	int rc = CS_EXIT_OK;
	if (s) {
		dev = cs_run_device(cs_scenario_arch(s), NULL, &d);
		w = dev ? cs_capture_writer_new(cs_scenario_arch(s)) : NULL;
	}
	size_t len = 0;
	const uint8_t *img = NULL;
	if (!s || !dev || !w || !cs_capture_export_reading(s, dev, w, reads, nreads, &d) ||
	    !(img = cs_capture_writer_finish(w, &len))) {
		if (d.status == CS_OK)
			cs_diag_set(&d, CS_ERR_INTERNAL, "out of memory");
		cs_diag_format(&d, msg, sizeof(msg));
		fprintf(stderr, "chainsim export: %s\n", msg);
		rc = d.status == CS_ERR_INPUT || d.status == CS_ERR_FAULT ? CS_EXIT_INPUT
									 : CS_EXIT_INTERNAL;
	} else {
		bool to_stdout = !strcmp(out, "-");
		FILE *f = to_stdout ? stdout : fopen(out, "wb");
		bool wrote = f && fwrite(img, 1, len, f) == len;
		if (f && (to_stdout ? fflush(f) : fclose(f)))
			wrote = false;
		if (!wrote) {
			fprintf(stderr, "chainsim export: cannot write '%s'\n", out);
			rc = CS_EXIT_INPUT;
		}
	}
	cs_capture_writer_free(w);
	cs_device_free(dev);
	cs_scenario_free(s);
	return rc;
}

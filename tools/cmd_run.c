/* SPDX-License-Identifier: MIT */
/* chainsim run FILE: run a scenario through the launch chain on the simulator
 * and report the chain (docs/chain.md, docs/json.md). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "chainsim/capture.h"
#include "chainsim/file.h"
#include "chainsim/run.h"
#include "chainsim/report.h"
#include "chainsim/scenario.h"

#include "cli.h"
#include "commands.h"
#include "exec_options.h"

static void run_usage(FILE *out)
{
	cs_exec_options_synopsis(out, "usage: chainsim run FILE [--json] [--trace OUT]", 25);
	fprintf(out,
		"       chainsim run FILE.cap [--json] [--no-exec] [--results OUT]\n"
		"\n"
		"Runs the .chain scenario FILE on the simulator and prints the launch chain:\n"
		"eleven stages with status, author and evidence, the first break and its\n"
		"diagnosis, counters and the scenario's expectations. A capture (docs/capture.md)\n"
		"is replayed instead; --results OUT writes the observables a GPU would show.\n"
		"FILE - reads standard input. An option's value follows it or an '=' (--trace=OUT).\n"
		"\n"
		"  --json           print one JSON object instead of the table\n"
		"  --trace OUT      write the trace as Chrome/Perfetto trace-event JSON to OUT\n"
		"                   (each method by name only with --trace-methods)\n");
	cs_exec_options_help(out);
	fprintf(out,
		"  --version        print chainsim's version\n"
		"\n"
		"exit status: with expect lines in FILE, 0 when every one held (an expected\n"
		"break that happened passes; `expect cause KEY` names the break's cause) and\n"
		"1 when one failed; without them, 0 the chain is complete, 1 it broke, 3 it\n"
		"cannot be judged here (code the simulator cannot run: stage 9 not\n"
		"observable). 2 bad input or usage, 4 internal error. See docs/chain.md.\n");
}

static int exit_for(cs_status st)
{
	switch (st) {
	case CS_ERR_UNAVAILABLE: return CS_EXIT_UNAVAILABLE;
	case CS_ERR_INTERNAL:
	case CS_ERR_NOMEM: return CS_EXIT_INTERNAL;
	default: return CS_EXIT_INPUT;
	}
}

/* --json when the input failed before a run: the object with the error and
 * nulls, on stdout (the message is on stderr as well). */
static void print_json_error(const char *file, const cs_diag *d, const char *msg)
{
	cs_report_meta meta = { .file = file, .error = true, .error_msg = msg, .error_diag = d };
	char *text = cs_report_json(NULL, NULL, &meta);
	if (text) {
		fputs(text, stdout);
		fputc('\n', stdout);
		free(text);
	}
}

typedef struct run_args {
	const char *file, *trace_out, *results_out;
	const char *scenario_option; /* the last option given that a capture does not take */
	bool json;
	cs_run_opts exec;
} run_args;

enum { OPT_JSON = 0x200, OPT_TRACE, OPT_RESULTS };

static const struct option run_options[] = {
	{ "help", no_argument, NULL, 'h' },
	CS_CLI_VERSION_OPTION,
	{ "json", no_argument, NULL, OPT_JSON },
	{ "trace", required_argument, NULL, OPT_TRACE },
	{ "results", required_argument, NULL, OPT_RESULTS },
#define X CS_EXEC_LONG_OPTION
#include "exec_options.def"
#undef X
	{ 0 },
};

/* The command line into *a: -1 to go on, else the exit status. */
static int parse_args(int argc, char **argv, run_args *a)
{
	cs_cli_begin();
	for (int c; (c = getopt_long(argc, argv, ":h", run_options, NULL)) != -1;) {
		const cs_exec_option *row = cs_exec_option_of(c);
		switch (c) {
		case 'h':
			run_usage(stdout);
			return CS_EXIT_OK;
		case CS_CLI_VERSION:
			return cs_cli_version();
		case OPT_JSON:
			a->json = true;
			break;
		case OPT_TRACE:
			a->trace_out = optarg;
			a->scenario_option = "trace";
			break;
		case OPT_RESULTS:
			a->results_out = optarg;
			break;
		default:
			if (!row)
				return cs_cli_bad_option("run", c, argv, run_usage);
			if (!cs_exec_option_take("run", row, optarg, &a->exec))
				return CS_EXIT_INPUT;
			if (!(row->where & CS_EXEC_CAPTURE))
				a->scenario_option = row->name;
		}
	}
	if (optind + 1 < argc) {
		fprintf(stderr, "chainsim run: one scenario at a time ('%s' and '%s')\n",
			argv[optind], argv[optind + 1]);
		return CS_EXIT_INPUT;
	}
	if (optind == argc) {
		fprintf(stderr, "chainsim run: no scenario file given\n");
		run_usage(stderr);
		return CS_EXIT_INPUT;
	}
	a->file = argv[optind];
	return -1;
}

/* A capture, replayed by cmd_capture.c (docs/capture.md); input is the bytes
 * standard input gave, or NULL. */
static int run_capture(const run_args *a, char *input, size_t len)
{
	int rc = CS_EXIT_INPUT;
	cs_run_capture_opts co = { .json = a->json, .exec = &a->exec, .results_out = a->results_out };
	if (a->scenario_option)
		fprintf(stderr, "chainsim run: --%s is for a scenario, not a capture\n",
			a->scenario_option);
	else
		rc = cs_cmd_run_capture(a->file, (const uint8_t *)input, len, &co);
	free(input);
	return rc;
}

/* A scenario that came on standard input, held to the scenario's cap. */
static cs_scenario *parse_stdin_scenario(const char *text, size_t len, cs_diag *d)
{
	if (len > CS_FILE_MAX_TEXT) {
		cs_diag_set(d, CS_ERR_INPUT, "cannot read the scenario: %zu bytes, above the limit "
			    "of %u", len, (unsigned)CS_FILE_MAX_TEXT);
		snprintf(d->file, sizeof(d->file), "%s", cs_file_name(CS_FILE_STDIN));
		return NULL;
	}
	return cs_scenario_parse(text, len, cs_file_name(CS_FILE_STDIN), NULL, d);
}

/* The input failed before a run: its message, and with --json the object
 * (docs/json.md prints one for every outcome); the exit status for st. */
static int input_failed(const run_args *a, const char *name, const cs_diag *d, cs_status st)
{
	char msg[CS_DIAG_MSG_MAX + CS_DIAG_FILE_MAX + 64];
	cs_diag_format(d, msg, sizeof(msg));
	fprintf(stderr, "chainsim run: %s\n", msg);
	if (a->json)
		print_json_error(name, d, msg);
	return exit_for(st);
}

/* The report of a run, as text or JSON, and the trace file; the exit status,
 * rc when the run already failed. */
static int report_run(const run_args *a, const char *name, const cs_scenario *s, cs_run *run,
		      const cs_diag *d, const char *msg, int rc)
{
	size_t nexp = cs_scenario_expect_count(s);
	cs_report_expect *ex = nexp ? calloc(nexp, sizeof(*ex)) : NULL;
	for (size_t i = 0; ex && i < nexp; i++) {
		const cs_expect_outcome *o = cs_scenario_expect(s, i);
		ex[i] = (cs_report_expect){ .line = o->line, .text = o->text, .held = o->held,
					    .detail = o->detail };
	}
	bool ok = msg == NULL;
	cs_report_meta meta = { .file = name, .expects = ex, .nexpects = ex ? nexp : 0,
				.error = !ok, .error_msg = msg, .error_diag = ok ? NULL : d };
	if (a->json) {
		char *text = cs_report_json(run->report, run->dev, &meta);
		if (text) {
			fputs(text, stdout);
			fputc('\n', stdout);
			free(text);
		} else {
			rc = CS_EXIT_INTERNAL;
		}
	} else if (ok) {
		/* After bad input the partial run's chain would blame the guest for
		 * directives that never ran: the located message alone is the answer. */
		cs_report_print_text(run->report, &meta, stdout);
	}
	if (a->trace_out) {
		char tmsg[CS_DIAG_MSG_MAX + CS_DIAG_FILE_MAX + 64];
		cs_diag td;
		cs_diag_clear(&td);
		if (!cs_trace_perfetto_write(run->dev, a->trace_out, &td)) {
			cs_diag_format(&td, tmsg, sizeof(tmsg));
			fprintf(stderr, "chainsim run: %s\n", tmsg);
			if (rc == CS_EXIT_OK)
				rc = CS_EXIT_INPUT;
		}
	}
	if (rc == CS_EXIT_OK)
		rc = cs_report_exit_status(run->report, &meta);
	free(ex);
	return rc;
}

static int run_scenario(const run_args *a, cs_scenario *s, const char *name)
{
	cs_diag d;
	cs_diag_clear(&d);
	char msg[CS_DIAG_MSG_MAX + CS_DIAG_FILE_MAX + 64];
	cs_run run;
	bool ok = cs_run_scenario(s, &a->exec, CS_RUN_JUDGE_ALWAYS, &run, &d);
	if (!run.dev)
		return input_failed(a, name, &d, d.status == CS_OK ? CS_ERR_INTERNAL : d.status);
	int rc = CS_EXIT_OK;
	if (!ok) {
		cs_diag_format(&d, msg, sizeof(msg));
		fprintf(stderr, "chainsim run: %s\n", msg);
		rc = exit_for(d.status == CS_OK ? CS_ERR_INTERNAL : d.status);
	}
	if (!run.report) {
		fprintf(stderr, "chainsim run: out of memory judging the chain\n");
		rc = CS_EXIT_INTERNAL;
	} else {
		rc = report_run(a, name, s, &run, &d, ok ? NULL : msg, rc);
	}
	cs_run_clear(&run);
	return rc;
}

int cs_cmd_run(int argc, char **argv)
{
	run_args a = { 0 };
	int rc = parse_args(argc, argv, &a);
	if (rc >= 0)
		return rc;
	cs_diag d;
	cs_diag_clear(&d);
	/* standard input is read once, here, and its first bytes say whether it
	 * is a capture; a capture there is held to the binary cap */
	bool from_stdin = !strcmp(a.file, CS_FILE_STDIN);
	char *input = NULL;
	size_t input_len = 0;
	bool have_input = !from_stdin || cs_file_read(a.file, CS_FILE_MAX_BINARY, "the input",
						      &input, &input_len, &d);
	bool capture = have_input && (from_stdin ? input_len >= 8 &&
							 !memcmp(input, CS_CAPTURE_MAGIC, 8)
						 : cs_capture_is_capture(a.file));
	if (capture)
		return run_capture(&a, input, input_len);
	if (a.results_out) {
		fprintf(stderr, "chainsim run: --results is for a capture, not a scenario\n");
		free(input);
		return CS_EXIT_INPUT;
	}
	const char *name = cs_file_name(a.file), *base = strrchr(name, '/');
	cs_scenario *s = !have_input ? NULL
			 : from_stdin ? parse_stdin_scenario(input, input_len, &d)
				      : cs_scenario_load(a.file, &d);
	free(input);
	if (!s)
		return input_failed(&a, base ? base + 1 : name, &d, d.status);
	rc = run_scenario(&a, s, base ? base + 1 : name);
	cs_scenario_free(s);
	return rc;
}

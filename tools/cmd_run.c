/* SPDX-License-Identifier: MIT */
/* chainsim run FILE: run a scenario through the launch chain on the simulator
 * and report the chain (docs/chain.md, docs/json.md). */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "chainsim/capture.h"
#include "chainsim/device.h"
#include "chainsim/file.h"
#include "chainsim/ptxrun.h"
#include "chainsim/report.h"
#include "chainsim/scenario.h"

#include "cli.h"
#include "commands.h"

static void run_usage(FILE *out)
{
	fprintf(out,
		"usage: chainsim run FILE [--json] [--trace OUT] [--no-exec] [--trace-methods]\n"
		"                         [--approx-ulp=max] [--races=MODE] [--schedule=ORDER]\n"
		"                         [--threads=N] [--budget-instructions=N] [--budget-seconds=S]\n"
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
		"                   (each method by name only with --trace-methods)\n"
		"  --no-exec        wire no executor: grids are dispatched, not executed\n"
		"  --trace-methods  record every executed method (trace level all): one\n"
		"                   record a method in the --trace file\n"
		"  --approx-ulp=max approximate instructions (ex2, lg2, sin, cos, tanh, rsqrt, and\n"
		"                   rcp/sqrt/div .approx) at the edge of the PTX ISA's error bound\n"
		"  --races=MODE     race detector: shared (the default: shared-memory races are\n"
		"                   findings), global (global memory within the grid too),\n"
		"                   error (a shared-memory race breaks stage 9), off\n"
		"  --schedule=ORDER the order warps run between barriers: in-order (the default),\n"
		"                   reverse, random:SEED\n"
		"  --threads=N      host threads that run each grid's CTAs (1..256; the default\n"
		"                   is one per core it may run on, started once a grid has\n"
		"                   run for 0.2 ms). Results are the same for every N,\n"
		"                   except where atomics several CTAs race on make the order\n"
		"                   matter: an atomic-order finding names those\n"
		"  --budget-instructions=N  thread-instructions the scenario's kernels may run\n"
		"                   in all (default 2^36)\n"
		"  --budget-seconds=S  wall time the scenario's kernels may run in all (default\n"
		"                   5); a budget stop is cause grid-budget, not a verdict\n"
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

/* The executor's options, parsed from --races= and --schedule=. */
static bool parse_races(const char *v, cs_ptx_races *out, bool *global)
{
	*global = !strcmp(v, "global");
	if (!strcmp(v, "shared") || *global)
		*out = CS_PTX_RACES_REPORT;
	else if (!strcmp(v, "error"))
		*out = CS_PTX_RACES_ERROR;
	else if (!strcmp(v, "off"))
		*out = CS_PTX_RACES_OFF;
	else
		return false;
	return true;
}

bool cs_opt_count(const char *v, uint64_t lo, uint64_t hi, uint64_t *out)
{
	char *end;
	if (*v < '0' || *v > '9')
		return false;
	errno = 0;
	unsigned long long n = strtoull(v, &end, 10);
	if (errno || *end || n < lo || n > hi)
		return false;
	*out = n;
	return true;
}

bool cs_opt_seconds(const char *v, uint64_t *ns)
{
	char *end;
	if (*v < '0' || *v > '9')
		return false;
	errno = 0;
	double s = strtod(v, &end);
	if (errno || *end || !(s > 0) || s > 1e6)
		return false;
	*ns = (uint64_t)(s * 1e9);
	return *ns > 0;
}

static bool parse_schedule(const char *v, cs_ptx_schedule *out, uint64_t *seed)
{
	char *end;
	if (!strcmp(v, "in-order")) {
		*out = CS_PTX_SCHEDULE_IN_ORDER;
	} else if (!strcmp(v, "reverse")) {
		*out = CS_PTX_SCHEDULE_REVERSE;
	} else if (!strncmp(v, "random:", 7) && v[7]) {
		*out = CS_PTX_SCHEDULE_RANDOM;
		*seed = strtoull(v + 7, &end, 0);
		return *end == 0;
	} else {
		return false;
	}
	return true;
}

enum { OPT_JSON = 0x200, OPT_NO_EXEC, OPT_TRACE_METHODS, OPT_TRACE, OPT_APPROX_ULP, OPT_RACES,
       OPT_THREADS, OPT_BUDGET_INSTRUCTIONS, OPT_BUDGET_SECONDS, OPT_SCHEDULE, OPT_RESULTS };

static const struct option run_options[] = {
	{ "help", no_argument, NULL, 'h' },
	CS_CLI_VERSION_OPTION,
	{ "json", no_argument, NULL, OPT_JSON },
	{ "no-exec", no_argument, NULL, OPT_NO_EXEC },
	{ "trace-methods", no_argument, NULL, OPT_TRACE_METHODS },
	{ "trace", required_argument, NULL, OPT_TRACE },
	{ "approx-ulp", required_argument, NULL, OPT_APPROX_ULP },
	{ "races", required_argument, NULL, OPT_RACES },
	{ "schedule", required_argument, NULL, OPT_SCHEDULE },
	{ "threads", required_argument, NULL, OPT_THREADS },
	{ "budget-instructions", required_argument, NULL, OPT_BUDGET_INSTRUCTIONS },
	{ "budget-seconds", required_argument, NULL, OPT_BUDGET_SECONDS },
	{ "results", required_argument, NULL, OPT_RESULTS },
	{ 0 },
};

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

int cs_cmd_run(int argc, char **argv)
{
	const char *file = NULL, *trace_out = NULL, *scenario_option = NULL;
	bool json = false, no_exec = false, methods = false;
	cs_run_capture_opts capture_opts = { 0 };
	cs_ptx_approx approx = CS_PTX_APPROX_SINGLE;
	cs_ptx_races races = CS_PTX_RACES_REPORT;
	bool races_global = false;
	cs_ptx_schedule schedule = CS_PTX_SCHEDULE_IN_ORDER;
	uint64_t seed = 0;
	uint64_t threads = 0, budget_instructions = 0, budget_ns = 0;
	cs_cli_begin();
	for (int c, li = -1; (c = getopt_long(argc, argv, ":h", run_options, &li)) != -1; li = -1) {
		if (c >= OPT_TRACE_METHODS && c <= OPT_SCHEDULE)
			scenario_option = run_options[li].name;
		switch (c) {
		case 'h':
			run_usage(stdout);
			return CS_EXIT_OK;
		case CS_CLI_VERSION:
			return cs_cli_version();
		case OPT_JSON:
			json = true;
			break;
		case OPT_NO_EXEC:
			no_exec = true;
			break;
		case OPT_TRACE_METHODS:
			methods = true;
			break;
		case OPT_TRACE:
			trace_out = optarg;
			break;
		case OPT_RESULTS:
			capture_opts.results_out = optarg;
			break;
		case OPT_APPROX_ULP:
			if (strcmp(optarg, "max")) {
				fprintf(stderr, "chainsim run: --approx-ulp=%s: expected max\n", optarg);
				return CS_EXIT_INPUT;
			}
			approx = CS_PTX_APPROX_MAX;
			break;
		case OPT_RACES:
			if (!parse_races(optarg, &races, &races_global)) {
				fprintf(stderr, "chainsim run: --races=%s: expected shared, global, error "
						"or off\n", optarg);
				return CS_EXIT_INPUT;
			}
			break;
		case OPT_SCHEDULE:
			if (!parse_schedule(optarg, &schedule, &seed)) {
				fprintf(stderr, "chainsim run: --schedule=%s: expected in-order, reverse or "
						"random:SEED\n", optarg);
				return CS_EXIT_INPUT;
			}
			break;
		case OPT_THREADS:
			if (!cs_opt_count(optarg, 1, CS_PTX_THREADS_MAX, &threads)) {
				fprintf(stderr, "chainsim run: --threads=%s: expected a whole number "
						"from 1 to %u\n", optarg, CS_PTX_THREADS_MAX);
				return CS_EXIT_INPUT;
			}
			break;
		case OPT_BUDGET_INSTRUCTIONS:
			if (!cs_opt_count(optarg, 1, UINT64_MAX, &budget_instructions)) {
				fprintf(stderr, "chainsim run: --budget-instructions=%s: expected a "
						"whole number above 0\n", optarg);
				return CS_EXIT_INPUT;
			}
			break;
		case OPT_BUDGET_SECONDS:
			if (!cs_opt_seconds(optarg, &budget_ns)) {
				fprintf(stderr, "chainsim run: --budget-seconds=%s: expected seconds "
						"above 0 (at most 1e6), e.g. 2.5\n", optarg);
				return CS_EXIT_INPUT;
			}
			break;
		default:
			return cs_cli_bad_option("run", c, argv, run_usage);
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
	file = argv[optind];

	cs_diag d;
	cs_diag_clear(&d);
	char msg[CS_DIAG_MSG_MAX + CS_DIAG_FILE_MAX + 64];
	/* standard input is read once, here, and its first bytes say whether it
	 * is a capture; a capture there is held to the binary cap */
	bool from_stdin = !strcmp(file, CS_FILE_STDIN);
	char *input = NULL;
	size_t input_len = 0;
	bool have_input = !from_stdin || cs_file_read(file, CS_FILE_MAX_BINARY, "the input",
						      &input, &input_len, &d);
	bool capture = have_input && (from_stdin ? input_len >= 8 &&
							 !memcmp(input, CS_CAPTURE_MAGIC, 8)
						 : cs_capture_is_capture(file));
	if (capture) { /* replayed by cmd_capture.c (docs/capture.md) */
		int rc = CS_EXIT_INPUT;
		capture_opts.json = json;
		capture_opts.no_exec = no_exec;
		if (scenario_option)
			fprintf(stderr, "chainsim run: --%s is for a scenario, not a capture\n",
				scenario_option);
		else
			rc = cs_cmd_run_capture(file, (const uint8_t *)input, input_len,
						&capture_opts);
		free(input);
		return rc;
	}
	if (capture_opts.results_out) {
		fprintf(stderr, "chainsim run: --results is for a capture, not a scenario\n");
		free(input);
		return CS_EXIT_INPUT;
	}
	const char *name = cs_file_name(file);
	const char *base = strrchr(name, '/');
	cs_scenario *s = !have_input ? NULL
			 : from_stdin ? parse_stdin_scenario(input, input_len, &d)
				      : cs_scenario_load(file, &d);
	free(input);
	if (!s) {
		cs_diag_format(&d, msg, sizeof(msg));
		fprintf(stderr, "chainsim run: %s\n", msg);
		if (json) /* the object is printed for every outcome (docs/json.md) */
			print_json_error(base ? base + 1 : name, &d, msg);
		return exit_for(d.status);
	}
	cs_device_config cfg = { .arch = cs_scenario_arch(s),
				 .trace_level = methods ? CS_TRACE_ALL : CS_TRACE_CHAIN,
				 .no_executor = no_exec };
	cs_device *dev = cs_device_new(&cfg, &d);
	if (!dev) {
		cs_diag_format(&d, msg, sizeof(msg));
		fprintf(stderr, "chainsim run: %s\n", msg);
		if (json)
			print_json_error(base ? base + 1 : name, &d, msg);
		cs_scenario_free(s);
		return exit_for(d.status == CS_OK ? CS_ERR_INTERNAL : d.status);
	}
	cs_ptx_runtime *rt = cs_device_ptx(dev);
	cs_ptx_runtime_set_approx(rt, approx);
	cs_ptx_runtime_set_races(rt, races, races_global);
	cs_ptx_runtime_set_schedule(rt, schedule, seed);
	cs_ptx_runtime_set_threads(rt, (unsigned)threads);
	cs_ptx_runtime_set_budget(rt, budget_instructions, budget_ns);
	cs_diag_clear(&d);
	bool ok = cs_scenario_execute(s, dev, &d);
	int rc = CS_EXIT_OK;
	if (!ok) {
		cs_diag_format(&d, msg, sizeof(msg));
		fprintf(stderr, "chainsim run: %s\n", msg);
		rc = exit_for(d.status == CS_OK ? CS_ERR_INTERNAL : d.status);
	}

	cs_report *r = cs_report_build(dev);
	if (!r) {
		fprintf(stderr, "chainsim run: out of memory judging the chain\n");
		cs_device_free(dev);
		cs_scenario_free(s);
		return CS_EXIT_INTERNAL;
	}
	size_t nexp = cs_scenario_expect_count(s);
	cs_report_expect *ex = nexp ? calloc(nexp, sizeof(*ex)) : NULL;
	for (size_t i = 0; ex && i < nexp; i++) {
		const cs_expect_outcome *o = cs_scenario_expect(s, i);
		ex[i] = (cs_report_expect){ .line = o->line, .text = o->text, .held = o->held,
					    .detail = o->detail };
	}
	cs_report_meta meta = { .file = base ? base + 1 : name, .expects = ex,
				.nexpects = ex ? nexp : 0, .error = !ok,
				.error_msg = ok ? NULL : msg, .error_diag = ok ? NULL : &d };
	if (json) {
		char *text = cs_report_json(r, dev, &meta);
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
		cs_report_print_text(r, &meta, stdout);
	}
	if (trace_out) {
		cs_diag td;
		cs_diag_clear(&td);
		if (!cs_trace_perfetto_write(dev, trace_out, &td)) {
			cs_diag_format(&td, msg, sizeof(msg));
			fprintf(stderr, "chainsim run: %s\n", msg);
			if (rc == CS_EXIT_OK)
				rc = CS_EXIT_INPUT;
		}
	}
	if (rc == CS_EXIT_OK)
		rc = cs_report_exit_status(r, &meta);
	free(ex);
	cs_report_free(r);
	cs_device_free(dev);
	cs_scenario_free(s);
	return rc;
}

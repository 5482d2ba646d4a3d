/* chainsim run FILE: run a scenario through the launch chain on the simulator
 * and report the chain (docs/chain.md, docs/json.md). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "chainsim/capture.h"
#include "chainsim/device.h"
#include "chainsim/report.h"
#include "chainsim/scenario.h"

#include "commands.h"

static void run_usage(FILE *out)
{
	fprintf(out,
		"usage: chainsim run FILE [--json] [--trace OUT] [--no-exec] [--trace-methods]\n"
		"\n"
		"Runs the .chain scenario FILE on the simulator and prints the launch chain:\n"
		"eleven stages with status, author and evidence, the first break and its\n"
		"diagnosis, counters and the scenario's expectations.\n"
		"\n"
		"  --json           print one JSON object instead of the table\n"
		"  --trace OUT      write the trace as Chrome/Perfetto trace-event JSON to OUT\n"
		"  --no-exec        wire no executor: grids are dispatched, not executed\n"
		"  --trace-methods  record every executed method (trace level all)\n"
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

int cs_cmd_run(int argc, char **argv)
{
	/* a capture (docs/capture.md) is replayed by cmd_capture.c */
	for (int i = 1; i < argc; i++)
		if (argv[i][0] != '-' && cs_capture_is_capture(argv[i]))
			return cs_cmd_run_capture(argc, argv);
	const char *file = NULL, *trace_out = NULL;
	bool json = false, no_exec = false, methods = false;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
			run_usage(stdout);
			return CS_EXIT_OK;
		} else if (!strcmp(a, "--json")) {
			json = true;
		} else if (!strcmp(a, "--no-exec")) {
			no_exec = true;
		} else if (!strcmp(a, "--trace-methods")) {
			methods = true;
		} else if (!strcmp(a, "--trace")) {
			if (i + 1 >= argc) {
				fprintf(stderr, "chainsim run: --trace needs a file name\n");
				return CS_EXIT_INPUT;
			}
			trace_out = argv[++i];
		} else if (!strncmp(a, "--trace=", 8)) {
			trace_out = a + 8;
		} else if (a[0] == '-' && a[1]) {
			fprintf(stderr, "chainsim run: unknown option '%s'\n", a);
			run_usage(stderr);
			return CS_EXIT_INPUT;
		} else if (file) {
			fprintf(stderr, "chainsim run: one scenario at a time ('%s' and '%s')\n", file, a);
			return CS_EXIT_INPUT;
		} else {
			file = a;
		}
	}
	if (!file) {
		fprintf(stderr, "chainsim run: no scenario file given\n");
		run_usage(stderr);
		return CS_EXIT_INPUT;
	}

	cs_diag d;
	cs_diag_clear(&d);
	char msg[CS_DIAG_MSG_MAX + CS_DIAG_FILE_MAX + 64];
	const char *base = strrchr(file, '/');
	cs_scenario *s = cs_scenario_load(file, &d);
	if (!s) {
		cs_diag_format(&d, msg, sizeof(msg));
		fprintf(stderr, "chainsim run: %s\n", msg);
		if (json) /* the object is printed for every outcome (docs/json.md) */
			print_json_error(base ? base + 1 : file, &d, msg);
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
			print_json_error(base ? base + 1 : file, &d, msg);
		cs_scenario_free(s);
		return exit_for(d.status == CS_OK ? CS_ERR_INTERNAL : d.status);
	}
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
	cs_report_meta meta = { .file = base ? base + 1 : file, .expects = ex,
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

/* chainsim run FILE: run a scenario through the launch chain on the simulator
 * and report the chain (docs/chain.md, docs/json.md). */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "chainsim/capture.h"
#include "chainsim/device.h"
#include "chainsim/ptxrun.h"
#include "chainsim/report.h"
#include "chainsim/scenario.h"

#include "commands.h"

static void run_usage(FILE *out)
{
	fprintf(out,
		"usage: chainsim run FILE [--json] [--trace OUT] [--no-exec] [--trace-methods]\n"
		"                         [--approx-ulp=max] [--races=MODE] [--schedule=ORDER]\n"
		"                         [--threads=N] [--budget-instructions=N] [--budget-seconds=S]\n"
		"\n"
		"Runs the .chain scenario FILE on the simulator and prints the launch chain:\n"
		"eleven stages with status, author and evidence, the first break and its\n"
		"diagnosis, counters and the scenario's expectations.\n"
		"\n"
		"  --json           print one JSON object instead of the table\n"
		"  --trace OUT      write the trace as Chrome/Perfetto trace-event JSON to OUT\n"
		"  --no-exec        wire no executor: grids are dispatched, not executed\n"
		"  --trace-methods  record every executed method (trace level all)\n"
		"  --approx-ulp=max approximate instructions (ex2, lg2, sin, cos, tanh, rsqrt, and\n"
		"                   rcp/sqrt/div .approx) at the edge of the PTX ISA's error bound\n"
		"  --races=MODE     race detector: shared (the default: shared-memory races are\n"
		"                   findings), global (global memory within the grid too),\n"
		"                   error (a shared-memory race breaks stage 9), off\n"
		"  --schedule=ORDER the order warps run between barriers: in-order (the default),\n"
		"                   reverse, random:SEED\n"
		"  --threads=N      host threads that run each grid's CTAs (1..256; the default\n"
		"                   is one per online core). Results are the same for every N,\n"
		"                   except where atomics several CTAs race on make the order\n"
		"                   matter: an atomic-order finding names those\n"
		"  --budget-instructions=N  thread-instructions the scenario's kernels may run\n"
		"                   in all (default 2^36)\n"
		"  --budget-seconds=S  wall time the scenario's kernels may run in all (default\n"
		"                   5); a budget stop is cause grid-budget, not a verdict\n"
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

int cs_cmd_run(int argc, char **argv)
{
	/* a capture (docs/capture.md) is replayed by cmd_capture.c */
	for (int i = 1; i < argc; i++)
		if (argv[i][0] != '-' && cs_capture_is_capture(argv[i]))
			return cs_cmd_run_capture(argc, argv);
	const char *file = NULL, *trace_out = NULL;
	bool json = false, no_exec = false, methods = false;
	cs_ptx_approx approx = CS_PTX_APPROX_SINGLE;
	cs_ptx_races races = CS_PTX_RACES_REPORT;
	bool races_global = false;
	cs_ptx_schedule schedule = CS_PTX_SCHEDULE_IN_ORDER;
	uint64_t seed = 0;
	uint64_t threads = 0, budget_instructions = 0, budget_ns = 0;
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
		} else if (!strcmp(a, "--approx-ulp=max")) {
			approx = CS_PTX_APPROX_MAX;
		} else if (!strncmp(a, "--races=", 8)) {
			if (!parse_races(a + 8, &races, &races_global)) {
				fprintf(stderr, "chainsim run: --races=%s: expected shared, global, error "
						"or off\n", a + 8);
				return CS_EXIT_INPUT;
			}
		} else if (!strncmp(a, "--schedule=", 11)) {
			if (!parse_schedule(a + 11, &schedule, &seed)) {
				fprintf(stderr, "chainsim run: --schedule=%s: expected in-order, reverse or "
						"random:SEED\n", a + 11);
				return CS_EXIT_INPUT;
			}
		} else if (!strncmp(a, "--threads=", 10)) {
			if (!cs_opt_count(a + 10, 1, CS_PTX_THREADS_MAX, &threads)) {
				fprintf(stderr, "chainsim run: --threads=%s: expected a whole number "
						"from 1 to %u\n", a + 10, CS_PTX_THREADS_MAX);
				return CS_EXIT_INPUT;
			}
		} else if (!strncmp(a, "--budget-instructions=", 22)) {
			if (!cs_opt_count(a + 22, 1, UINT64_MAX, &budget_instructions)) {
				fprintf(stderr, "chainsim run: --budget-instructions=%s: expected a "
						"whole number above 0\n", a + 22);
				return CS_EXIT_INPUT;
			}
		} else if (!strncmp(a, "--budget-seconds=", 17)) {
			if (!cs_opt_seconds(a + 17, &budget_ns)) {
				fprintf(stderr, "chainsim run: --budget-seconds=%s: expected seconds "
						"above 0 (at most 1e6), e.g. 2.5\n", a + 17);
				return CS_EXIT_INPUT;
			}
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

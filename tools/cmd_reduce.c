/* SPDX-License-Identifier: MIT */
/* chainsim reduce FILE --until GOAL, chainsim reduce --between GOOD BAD: the
 * library's delta debugging (include/chainsim/reduce.h) behind a command line,
 * with a live progress line on a terminal (docs/reduce.md). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <glib.h>

#include "chainsim/file.h"
#include "chainsim/reduce.h"

#include "cli.h"
#include "commands.h"
#include "exec_options.h"

static void reduce_usage(FILE *out)
{
	fprintf(out,
		"usage: chainsim reduce FILE --until 'break N' | 'cause KEY' [-o OUT] [--time-budget=S]\n"
		"                       [EXECUTOR OPTIONS]\n"
		"       chainsim reduce --between GOOD BAD [-o OUT] [--time-budget=S]\n"
		"                       [EXECUTOR OPTIONS]\n"
		"\n"

		"Shrinks the scenario FILE by delta debugging over its lines (methods, GPFIFO\n"
		"entries, data, then allocations and whole push blocks) to a small scenario\n"
		"whose chain still breaks at stage N, or with cause KEY (or both: 'break 7\n"
		"cause no-schedule'). The input's break is kept whole: a goal of a cause\n"
		"alone keeps its stage too (and one of a stage, its cause), unless asked for\n"
		"less with 'break any' or 'cause any'. With --between, finds the fewest line differences from\n"
		"GOOD that reproduce BAD's break (stage and cause) and names them. Every\n"
		"candidate runs in this process; one that does not parse or stops on an error\n"
		"does not keep the property. The result is a scenario that runs as is, ending\n"
		"with the expect lines of the property, on stdout or in OUT (whose relative\n"
		"module and load paths are rewritten to resolve from OUT's directory). A\n"
		"progress line (runs, lines kept) is shown when stderr is a terminal. Every\n"
		"run takes the executor options (below, as chainsim run takes them).\n"
		"\n"		"  --until GOAL     the property a smaller scenario must keep\n"
		"  --between        GOOD BAD: the fewest differences that reproduce BAD's break\n"
		"  -o OUT           write the scenario to OUT (default, or -: standard output)\n"
		"  --time-budget=S  wall time the whole reduction may take (default 300 s): no\n"
		"                   candidate starts after it, and the smallest scenario found\n"
		"                   is written, saying the budget stopped it\n"
		"  --version        print chainsim's version\n"
		"executor options:\n");
	cs_exec_options_help(out);
	fprintf(out,
		"A scenario may be -, standard input (then its paths resolve from the current\n"
		"directory); an option's value follows it or an '='.\n"
		"\n"
		"exit status: 0 a reduced scenario was written, 1 the input does not have the\n"
		"property (BAD does not break, or GOOD already breaks that way), 2 bad input\n"
		"or usage, 4 internal error.\n");
}

static void show_progress(void *ctx, size_t runs, size_t lines)
{
	(void)ctx;
	char line[64];
	snprintf(line, sizeof(line), "reduce: %zu runs, %zu lines kept", runs, lines);
	fprintf(stderr, "\r%-48s", line); /* padded over a longer line before it */
	fflush(stderr);
}

static int fail(const cs_diag *d)
{
	char msg[CS_DIAG_MSG_MAX + CS_DIAG_FILE_MAX + 64];
	cs_diag_format(d, msg, sizeof(msg));
	fprintf(stderr, "chainsim reduce: %s\n", msg);
	return d->status == CS_ERR_NOMEM || d->status == CS_ERR_INTERNAL ? CS_EXIT_INTERNAL
									 : CS_EXIT_INPUT;
}

static bool write_output(const char *path, const char *text, cs_diag *d)
{
	if (!path) {
		fputs(text, stdout);
		return true;
	}
	FILE *f = fopen(path, "w");
	bool ok = f && fputs(text, f) >= 0;
	if (f && fclose(f) != 0)
		ok = false;
	if (!ok)
		cs_diag_set(d, CS_ERR_INPUT, "%s: cannot write the reduced scenario", path);
	return ok;
}

/* The file name without its directory ("standard input" for -). */
static const char *base_name(const char *path)
{
	const char *name = cs_file_name(path), *slash = strrchr(name, '/');
	return slash ? slash + 1 : name;
}

static const struct option reduce_options[] = {
	{ "help", no_argument, NULL, 'h' },
	CS_CLI_VERSION_OPTION,
	{ "until", required_argument, NULL, 'u' },
	{ "between", no_argument, NULL, 'b' },
	{ "time-budget", required_argument, NULL, 't' },
#define X CS_EXEC_LONG_OPTION
#include "exec_options.def"
#undef X
	{ 0 },
};

int cs_cmd_reduce(int argc, char **argv)
{
	const char *until = NULL, *out_path = NULL;
	bool between = false;
	uint64_t time_budget_ns = 0;
	cs_run_opts exec = { 0 };
	cs_cli_begin();
	for (int c; (c = getopt_long(argc, argv, ":ho:", reduce_options, NULL)) != -1;) {
		const cs_exec_option *row = cs_exec_option_of(c);
		switch (c) {
		case 'h':
			reduce_usage(stdout);
			return CS_EXIT_OK;
		case CS_CLI_VERSION:
			return cs_cli_version();
		case 'u':
			until = optarg;
			break;
		case 'b':
			between = true;
			break;
		case 'o':
			out_path = optarg;
			break;
		case 't':
			if (!cs_opt_seconds(optarg, &time_budget_ns)) {
				fprintf(stderr, "chainsim reduce: --time-budget=%s: expected seconds "
					"above 0 (at most 1e6)\n", optarg);
				return CS_EXIT_INPUT;
			}
			break;
		default:
			if (!row)
				return cs_cli_bad_option("reduce", c, argv, reduce_usage);
			if (!cs_exec_option_take("reduce", row, optarg, &exec))
				return CS_EXIT_INPUT;
		}
	}
	int nfiles = argc - optind;
	char **files = argv + optind;
	if (between ? (nfiles != 2 || until) : (nfiles != 1 || !until)) {
		fprintf(stderr, "chainsim reduce: needs FILE --until GOAL, or --between GOOD BAD\n");
		reduce_usage(stderr);
		return CS_EXIT_INPUT;
	}
	if (between && !strcmp(files[0], CS_FILE_STDIN) && !strcmp(files[1], CS_FILE_STDIN)) {
		fprintf(stderr, "chainsim reduce: standard input (-) can give GOOD or BAD, not both\n");
		return CS_EXIT_INPUT;
	}
	cs_diag d;
	cs_diag_clear(&d);
	char *text[2] = { NULL, NULL };
	size_t len[2] = { 0, 0 };
	for (int i = 0; i < (between ? 2 : 1); i++)
		if (!cs_file_read(files[i], CS_FILE_MAX_TEXT, "the scenario", &text[i], &len[i], &d)) {
			free(text[0]);
			return fail(&d);
		}
	char *base_dir = g_path_get_dirname(files[0]);
	if (out_path && !strcmp(out_path, CS_FILE_STDIN))
		out_path = NULL; /* -o - is standard output, the default */
	char *out_dir = out_path ? g_path_get_dirname(out_path) : NULL;
	cs_reduce_opts o = { .name = base_name(files[0]), .base_dir = base_dir, .out_dir = out_dir,
			     .time_budget_ns = time_budget_ns, .run = exec,
			     .progress = isatty(STDERR_FILENO) ? show_progress : NULL };
	cs_reduce_result r = { 0 };
	bool ok = between || cs_reduce_goal_parse(until, &o.goal, &d);
	if (ok && between)
		ok = cs_reduce_between(text[0], len[0], base_name(files[0]), text[1], len[1],
				       base_name(files[1]), &o, &r, &d);
	else if (ok)
		ok = cs_reduce_scenario(text[0], len[0], &o, &r, &d);
	if (o.progress)
		fprintf(stderr, "\r%48s\r", "");
	int rc = CS_EXIT_OK;
	if (!ok) {
		rc = fail(&d);
	} else if (!r.held && between) {
		fprintf(stderr, "chainsim reduce: %s\n", r.goal.stage == CS_STAGE_NONE
				 ? "BAD does not break: there is no break to reproduce"
			       : !r.units_before
				 ? "GOOD already breaks the way BAD does: no difference is needed"
				 : "BAD's lines, run from GOOD's directory, do not break the way BAD "
				   "does (do its paths resolve from there?)");
		rc = CS_EXIT_BROKEN;
	} else if (!r.held) {
		fprintf(stderr, "chainsim reduce: %s does not break that way: nothing to keep\n",
			cs_file_name(files[0]));
		rc = CS_EXIT_BROKEN;
	} else if (!write_output(out_path, r.text, &d)) {
		rc = fail(&d);
	} else {
		fprintf(stderr, "reduce: %zu of %zu %s kept, %zu runs; it breaks", r.units_after,
			r.units_before, between ? "differences" : "lines", r.runs);
		if (r.goal.stage != CS_STAGE_NONE)
			fprintf(stderr, " at stage %d (%s)", (int)r.goal.stage, cs_stage_name(r.goal.stage));
		if (r.goal.cause != CS_CAUSE_NONE)
			fprintf(stderr, " [%s]", cs_cause_key(r.goal.cause));
		fprintf(stderr, "\n");
		if (r.differences)
			fputs(r.differences, stderr);
		if (r.budget_reached)
			fprintf(stderr, "reduce: the time budget of %g s ran out after %zu runs: the "
				"result keeps the property, but a smaller one may too "
				"(--time-budget=S to give it longer)\n",
				(double)r.time_budget_ns / 1e9, r.runs);
	}
	cs_reduce_result_clear(&r);
	g_free(base_dir);
	g_free(out_dir);
	free(text[0]);
	free(text[1]);
	return rc;
}

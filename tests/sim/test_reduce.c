/* SPDX-License-Identifier: MIT */
/* `chainsim reduce` and the library's cs_reduce_*: a generated 10,000-method
 * stream shrunk to its culprit, the fewest differences between a good and a
 * bad scenario, outputs that run as is, and bad input (exit 2). */
#include <criterion/criterion.h>
#include <glib.h>
#include <glib/gstdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "chainsim/file.h"
#include "chainsim/reduce.h"
#include "chainsim/report.h"
#include "chainsim/scenario.h"
#include "cli.h"

#include "reduce_stream.h"

static const char *source_root(void)
{
	const char *src = getenv("CHAINSIM_SOURCE_ROOT");
	cr_assert_not_null(src, "run through meson test");
	return src;
}

static char *case_path(const char *name)
{
	return g_build_filename(source_root(), "tests", "sim", "reduce", name, NULL);
}

/* Run scenario text; its overall break, and whether every expect line held. */
static cs_stage run_text(const char *text, const char *base_dir, cs_cause *cause, bool *expects_held)
{
	cs_diag d;
	cs_diag_clear(&d);
	cs_scenario *s = cs_scenario_parse(text, strlen(text), "reduced", base_dir, &d);
	cr_assert_not_null(s, "the reduced scenario does not parse: %s\n%s", d.msg, text);
	cs_device_config cfg = { .arch = cs_scenario_arch(s) };
	cs_device *dev = cs_device_new(&cfg, &d);
	cr_assert(cs_scenario_execute(s, dev, &d), "%s", d.msg);
	cs_report *r = cs_report_build(dev);
	cs_stage st = r->overall.first_break;
	*cause = r->overall.cause;
	*expects_held = cs_scenario_expect_count(s) > 0;
	for (size_t i = 0; i < cs_scenario_expect_count(s); i++)
		*expects_held &= cs_scenario_expect(s, i)->held;
	cs_report_free(r);
	cs_device_free(dev);
	cs_scenario_free(s);
	return st;
}

/* Lines inside push blocks, other than `launch` lines. */
static unsigned push_lines_besides_launch(const char *text, bool *has_culprit)
{
	char **lines = g_strsplit(text, "\n", -1);
	unsigned n = 0;
	bool in_push = false;
	*has_culprit = false;
	for (size_t i = 0; lines[i]; i++) {
		const char *l = lines[i] + strspn(lines[i], " \t");
		if (g_str_has_prefix(l, "push "))
			in_push = true;
		else if (!strcmp(l, "end"))
			in_push = false;
		else if (in_push && !g_str_has_prefix(l, "launch "))
			n++;
		*has_culprit |= in_push && !strcmp(l, "inc 0 SEM_EXECUTE 1");
	}
	g_strfreev(lines);
	return n;
}

/* The generated stream's text (g_free), and options that reduce it to its
 * cause. */
static char *stream_to_reduce(cs_reduce_opts *o)
{
	char *fatbin = g_build_filename(source_root(), "fixtures", "kernels", "out",
					"vadd.nocompress.fatbin", NULL);
	char *text = reduce_stream_text(fatbin);
	g_free(fatbin);
	*o = (cs_reduce_opts){ .name = "stream.chain", .base_dir = source_root() };
	cs_diag d;
	cs_diag_clear(&d);
	cr_assert(cs_reduce_goal_parse("cause earlier-fault", &o->goal, &d), "%s", d.msg);
	return text;
}

Test(reduce, a_10000_method_stream_shrinks_to_its_culprit, .timeout = 120)
{
	cs_reduce_opts o;
	char *text = stream_to_reduce(&o);
	cs_diag d;
	cs_reduce_result r;
	cr_assert(cs_reduce_scenario(text, strlen(text), &o, &r, &d), "%s", d.msg);
	cr_assert(r.held);
	bool culprit = false;
	unsigned methods = push_lines_besides_launch(r.text, &culprit);
	cr_expect_leq(methods, 5, "%u methods besides the launch are left:\n%s", methods, r.text);
	cr_expect(culprit, "the culprit is gone:\n%s", r.text);
	cr_expect_gt(r.units_before, REDUCE_STREAM_METHODS);
	cr_expect_lt(r.units_after, 12, "%zu lines kept:\n%s", r.units_after, r.text);
	cs_cause cause;
	bool held;
	cr_expect_eq(run_text(r.text, source_root(), &cause, &held), CS_STAGE_FE_EXEC);
	cr_expect_eq(cause, CS_CAUSE_EARLIER_FAULT);
	cr_expect(held, "the reduced scenario's own expect lines fail:\n%s", r.text);
	cs_reduce_result_clear(&r);
	g_free(text);
}

static char *read_case(const char *name, size_t *len)
{
	char *path = case_path(name), *text = NULL;
	cs_diag d;
	cr_assert(cs_file_read(path, CS_FILE_MAX_TEXT, "the case", &text, len, &d), "%s", d.msg);
	g_free(path);
	return text;
}

Test(reduce, dropping_the_schedule_action_breaks_at_stage_7)
{
	size_t len;
	char *bad = read_case("schedule-dropped.chain", &len), *dir = case_path("");
	cs_cause cause;
	bool held;
	cr_expect_eq(run_text(bad, dir, &cause, &held), CS_STAGE_QMD_READ);
	cr_expect_eq(cause, CS_CAUSE_NO_SCHEDULE);
	cr_expect(held);
	free(bad);
	g_free(dir);
}

/* Reduce a case of tests/sim/reduce/ to its goal; the result must run and
 * break that way. */
static cs_reduce_result reduce_case(const char *name, const char *goal)
{
	size_t len;
	char *text = read_case(name, &len), *dir = case_path("");
	cs_reduce_opts o = { .name = name, .base_dir = dir };
	cs_diag d;
	cs_diag_clear(&d);
	cr_assert(cs_reduce_goal_parse(goal, &o.goal, &d), "%s", d.msg);
	cs_reduce_result r;
	cr_assert(cs_reduce_scenario(text, len, &o, &r, &d), "%s", d.msg);
	cr_assert(r.held, "%s", name);
	cs_cause cause;
	bool held;
	cr_expect_eq(run_text(r.text, dir, &cause, &held), o.goal.stage, "%s", r.text);
	cr_expect_eq(cause, o.goal.cause);
	cr_expect(held, "the reduced scenario's own expect lines fail:\n%s", r.text);
	free(text);
	g_free(dir);
	return r;
}

/* The lines between `rewrite` and its `end`, or -1 when the text has no
 * rewrite block. */
static int rewrite_block_lines(const char *text)
{
	const char *open = strstr(text, "\nrewrite\n");
	if (!open)
		return -1;
	const char *end = strstr(open, "\nend\n");
	cr_assert_not_null(end, "the rewrite block lost its end:\n%s", text);
	int n = 0;
	for (const char *p = open + 1; (p = strchr(p, '\n')) && p < end; p++)
		n++;
	return n;
}

Test(reduce, a_rewrite_block_keeps_its_shape_and_loses_lines_one_by_one)
{
	cs_reduce_result r = reduce_case("rewrite-keep.chain", "break 5 cause forward-unrelocated");
	int inner = rewrite_block_lines(r.text);
	/* the forwarding bug needs a rewrite: 1..2 of its 5 lines are left */
	cr_expect(inner >= 1 && inner <= 2, "%d rewrite lines left:\n%s", inner, r.text);
	cr_expect_null(strstr(r.text, "split"), "%s", r.text);
	cr_expect_null(strstr(r.text, "merge"), "%s", r.text);
	cr_expect_null(strstr(r.text, "other"), "%s", r.text);
	cs_reduce_result_clear(&r);
}

Test(reduce, a_rewrite_block_the_break_does_not_need_goes_whole)
{
	cs_reduce_result r = reduce_case("rewrite-unneeded.chain", "break 11 cause wait-unmet");
	cr_expect_eq(rewrite_block_lines(r.text), -1, "%s", r.text);
	cr_expect_null(strstr(r.text, "relocate"), "%s", r.text);
	unsigned ends = 0;
	for (const char *p = r.text; (p = strstr(p, "\nend\n")); p++)
		ends++;
	cr_expect_eq(ends, 1, "only the push block's end is left:\n%s", r.text);
	cs_reduce_result_clear(&r);
}

Test(reduce, between_names_the_dropped_schedule_method_as_the_difference)
{
	size_t glen, blen;
	char *good = read_case("schedule-good.chain", &glen);
	char *bad = read_case("schedule-dropped.chain", &blen);
	char *dir = case_path("");
	cs_reduce_opts o = { .base_dir = dir };
	cs_reduce_result r;
	cs_diag d;
	cs_diag_clear(&d);
	cr_assert(cs_reduce_between(good, glen, "schedule-good.chain", bad, blen,
				    "schedule-dropped.chain", &o, &r, &d), "%s", d.msg);
	cr_assert(r.held);
	cr_expect_eq(r.goal.stage, CS_STAGE_QMD_READ);
	cr_expect_eq(r.goal.cause, CS_CAUSE_NO_SCHEDULE);
	cr_expect_geq(r.units_before, 5, "%zu differences", r.units_before);
	cr_expect_eq(r.units_after, 1, "%zu differences kept:\n%s", r.units_after, r.differences);
	cr_expect_str_eq(r.differences,
			 "schedule-good.chain:20: - inc 1 SEND_SIGNALING_PCAS2_B 9\n");
	cs_cause cause;
	bool held;
	cr_expect_eq(run_text(r.text, dir, &cause, &held), CS_STAGE_QMD_READ);
	cr_expect(held, "%s", r.text);
	cs_reduce_result_clear(&r);

	/* good against itself: no break to reproduce */
	cr_assert(cs_reduce_between(good, glen, "a", good, glen, "b", &o, &r, &d));
	cr_expect_not(r.held);
	cr_expect_eq(r.goal.stage, CS_STAGE_NONE);
	cs_reduce_result_clear(&r);
	free(good);
	free(bad);
	g_free(dir);
}

Test(reduce, goals_parse_or_name_the_bad_word)
{
	cs_reduce_goal g;
	cs_diag d;
	cr_expect(cs_reduce_goal_parse("break 7", &g, &d));
	cr_expect(g.stage == CS_STAGE_QMD_READ && g.cause == CS_CAUSE_NONE);
	cr_expect(cs_reduce_goal_parse("  break qmd-read   cause no-schedule ", &g, &d));
	cr_expect(g.stage == CS_STAGE_QMD_READ && g.cause == CS_CAUSE_NO_SCHEDULE);
	cr_expect(cs_reduce_goal_parse("cause deadlock", &g, &d));
	cr_expect(g.stage == CS_STAGE_NONE && g.cause == CS_CAUSE_DEADLOCK && !g.any_stage);
	cr_expect(cs_reduce_goal_parse("cause deadlock break any", &g, &d));
	cr_expect(g.any_stage && !g.any_cause && g.cause == CS_CAUSE_DEADLOCK);
	static const char *const bad[] = { "", "break", "break 12", "cause no-such-cause",
					   "brake 5", "break 5 cause", "break 5 5" };
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		cs_diag_clear(&d);
		cr_expect_not(cs_reduce_goal_parse(bad[i], &g, &d), "'%s' parsed", bad[i]);
		cr_expect_eq(d.status, CS_ERR_INPUT, "'%s'", bad[i]);
	}
}

/* ---- the command ------------------------------------------------------------- */

Test(reduce_cli, output_in_another_directory_runs_as_is)
{
	char *tmp = g_dir_make_tmp("reduce-XXXXXX", NULL);
	cr_assert_not_null(tmp);
	char *out = g_build_filename(tmp, "min.chain", NULL);
	char *good = case_path("schedule-good.chain"), *bad = case_path("schedule-dropped.chain");
	test_cli_out o = test_cli_run(source_root(), "reduce",
				      (const char *const[]){ "--between", good, bad, "-o", out, NULL });
	cr_expect_eq(o.status, 0, "%s", o.err);
	cr_expect(strstr(o.err, "1 of "), "%s", o.err);
	cr_expect(strstr(o.err, "schedule-good.chain:20: - inc 1 SEND_SIGNALING_PCAS2_B 9"), "%s",
		  o.err);
	cr_expect_not(strchr(o.err, '\r'), "a progress line on a pipe: %s", o.err);
	cr_expect_eq(o.out[0], 0, "stdout is not empty with -o: %s", o.out);
	test_cli_free(&o);
	/* run from the output's directory: the module path was rewritten for it */
	o = test_cli_run(tmp, "run", (const char *const[]){ "min.chain", NULL });
	cr_expect_eq(o.status, 0, "the reduced scenario does not hold: %s\n%s", o.out, o.err);
	cr_expect(strstr(o.out, "break at stage 7 (qmd-read) [no-schedule]"), "%s", o.out);
	test_cli_free(&o);
	g_remove(out);
	g_rmdir(tmp);
	g_free(out);
	g_free(tmp);
	g_free(good);
	g_free(bad);
}

/* module PATH ptx=PATH and load PATH are moved for an output elsewhere: a case
 * of tests/scenario/cases/ made to break (its wait asks another value) and
 * reduced --between into a temporary directory, then run from there. */
static void moved_paths_run(const char *good_name, const char *wait_line, const char *bad_wait,
			    const char *kept)
{
	char *good = g_build_filename(source_root(), "tests", "scenario", "cases", good_name, NULL);
	char *text = NULL;
	cr_assert(g_file_get_contents(good, &text, NULL, NULL));
	char *tmp = g_dir_make_tmp("reduce-XXXXXX", NULL);
	char *bad = g_build_filename(tmp, "bad.chain", NULL);
	char *out = g_build_filename(tmp, "min.chain", NULL);
	char **parts = g_strsplit(text, wait_line, 2);
	cr_assert_not_null(parts[1], "%s has no '%s'", good_name, wait_line);
	char *bad_text = g_strjoin(bad_wait, parts[0], parts[1], NULL);
	cr_assert(g_file_set_contents(bad, bad_text, -1, NULL));
	test_cli_out o = test_cli_run(source_root(), "reduce",
				      (const char *const[]){ "--between", good, bad, "-o", out, NULL });
	cr_expect_eq(o.status, 0, "%s", o.err);
	test_cli_free(&o);
	char *min = NULL;
	cr_assert(g_file_get_contents(out, &min, NULL, NULL));
	cr_expect(strstr(min, kept), "'%s' is not in:\n%s", kept, min);
	o = test_cli_run(tmp, "run", (const char *const[]){ "min.chain", NULL });
	cr_expect_eq(o.status, 0, "%s\n%s\n%s", min, o.out, o.err);
	test_cli_free(&o);
	g_remove(out);
	g_remove(bad);
	g_rmdir(tmp);
	g_strfreev(parts);
	g_free(min);
	g_free(bad_text);
	g_free(out);
	g_free(bad);
	g_free(tmp);
	g_free(text);
	g_free(good);
}

Test(reduce_cli, module_ptx_and_load_paths_resolve_from_the_output)
{
	moved_paths_run("cubin_with_ptx.chain", "wait launch0.sem == 1", "wait launch0.sem == 2",
			"fixtures/kernels/out/vadd.sm_80.ptx");
	moved_paths_run("loaded_pushbuffer.chain", "wait sem == 0x2a", "wait sem == 0x2b",
			"tests/scenario/cases/release_2a.pb");
}

Test(reduce_cli, until_reduces_to_stdout_and_the_result_runs)
{
	char *bad = case_path("schedule-dropped.chain");
	test_cli_out o = test_cli_run(source_root(), "reduce",
				      (const char *const[]){ bad, "--until", "break 7", NULL });
	cr_expect_eq(o.status, 0, "%s", o.err);
	cr_expect(strstr(o.out, "  inc 1 SEND_PCAS_A Q>>8\n"), "%s", o.out);
	cr_expect_not(strstr(o.out, "NOP"), "%s", o.out);
	cr_expect_not(strstr(o.out, "release hsem"), "%s", o.out);
	cr_expect(strstr(o.out, "expect break 7\n"), "%s", o.out);
	cs_cause cause;
	bool held;
	char *dir = case_path("");
	cr_expect_eq(run_text(o.out, dir, &cause, &held), CS_STAGE_QMD_READ);
	cr_expect(held);
	test_cli_free(&o);
	g_free(dir);
	g_free(bad);
}

/* On a terminal (script(1) gives the command one) the progress line shows
 * runs and lines; on a pipe (every other test here) there is none. */
Test(reduce_cli, a_progress_line_on_a_terminal)
{
	char *exe = g_build_filename(getenv("CHAINSIM_BUILD_ROOT"), "tools", "chainsim", NULL);
	char *bad = case_path("schedule-dropped.chain");
	char *tmp = g_dir_make_tmp("reduce-XXXXXX", NULL);
	char *out = g_build_filename(tmp, "min.chain", NULL);
	char *cmd = g_strdup_printf("'%s' reduce '%s' --until 'break 7' -o '%s'", exe, bad, out);
	const test_cli_opts script = { .program = "/usr/bin/script" };
	test_cli_out o = test_cli_run_opts(source_root(), &script, NULL,
					   (const char *const[]){ "-qec", cmd, "/dev/null", NULL });
	cr_expect_eq(o.status, 0, "%s%s", o.out, o.err);
	cr_expect(strstr(o.out, "\rreduce: 1 runs, "), "no progress line: %s", o.out);
	cr_expect(strstr(o.out, "lines kept"), "%s", o.out);
	test_cli_free(&o);
	g_remove(out);
	g_rmdir(tmp);
	g_free(cmd);
	g_free(out);
	g_free(tmp);
	g_free(bad);
	g_free(exe);
}

Test(reduce_cli, exit_statuses)
{
	char *good = case_path("schedule-good.chain"), *bad = case_path("schedule-dropped.chain");
	/* the input does not have the property: 1, nothing written */
	test_cli_out o = test_cli_run(source_root(), "reduce",
				      (const char *const[]){ good, "--until", "break 5", NULL });
	cr_expect_eq(o.status, 1, "%s", o.err);
	cr_expect_eq(o.out[0], 0);
	test_cli_free(&o);
	o = test_cli_run(source_root(), "reduce", (const char *const[]){ "--between", bad, good, NULL });
	cr_expect_eq(o.status, 1, "%s", o.err);
	cr_expect(strstr(o.err, "does not break"), "%s", o.err);
	test_cli_free(&o);
	/* bad input and usage: 2, with what is wrong */
	o = test_cli_run(source_root(), "reduce", (const char *const[]){ good, "--until", "brake 5",
									 NULL });
	cr_expect_eq(o.status, 2);
	cr_expect(strstr(o.err, "'brake'"), "%s", o.err);
	test_cli_free(&o);
	o = test_cli_run(source_root(), "reduce", (const char *const[]){ good, NULL });
	cr_expect_eq(o.status, 2);
	test_cli_free(&o);
	o = test_cli_run(source_root(), "reduce", (const char *const[]){ "no-such.chain", "--until",
									 "break 5", NULL });
	cr_expect_eq(o.status, 2);
	cr_expect(strstr(o.err, "no-such.chain"), "%s", o.err);
	test_cli_free(&o);
	char *malformed = g_build_filename(source_root(), "tests", "scenario", "malformed",
					   "data_100th_value_bad.chain", NULL);
	o = test_cli_run(source_root(), "reduce", (const char *const[]){ malformed, "--until",
									 "break 5", NULL });
	cr_expect_eq(o.status, 2);
	cr_expect(strstr(o.err, "data_100th_value_bad.chain:4:300:"), "%s", o.err);
	test_cli_free(&o);
	g_free(malformed);
	/* one that parses but stops on an error while it runs: 2, located */
	char *tmp = NULL;
	int fd = g_file_open_tmp("reduce-XXXXXX.chain", &tmp, NULL);
	cr_assert_geq(fd, 0);
	static const char text[] = "arch hopper\nalloc a 16\nfill a 32 0\n";
	cr_assert_eq(write(fd, text, sizeof(text) - 1), (ssize_t)sizeof(text) - 1);
	close(fd);
	o = test_cli_run(source_root(), "reduce", (const char *const[]){ tmp, "--until", "break 1",
									 NULL });
	cr_expect_eq(o.status, 2);
	cr_expect(strstr(o.err, ":3:8: 32 bytes at"), "%s", o.err);
	test_cli_free(&o);
	g_remove(tmp);
	g_free(tmp);
	g_free(good);
	g_free(bad);
}

/* A goal of a cause alone keeps the input's break stage as well: the release
 * left unrelocated (stage 10) stays the bug, rather than the unrelocated
 * pushbuffer (stage 4, the same cause) that dropping the rewrite block gives;
 * `break any` asks for the cause alone. */
Test(reduce, a_cause_goal_keeps_the_inputs_stage_unless_asked_for_less)
{
	size_t len;
	char *text = NULL, *dir = g_build_filename(source_root(), "tests", "conformance", NULL);
	char *path = g_build_filename(dir, "forward-release-unrelocated.chain", NULL);
	cs_diag fd;
	cr_assert(cs_file_read(path, CS_FILE_MAX_TEXT, "the case", &text, &len, &fd), "%s", fd.msg);
	g_free(path);
	static const struct {
		const char *goal;
		cs_stage stage;
	} cases[] = { { "cause forward-unrelocated", CS_STAGE_ENGINE_RELEASE },
		      { "cause forward-unrelocated break any", CS_STAGE_FE_FETCH } };
	for (size_t i = 0; i < 2; i++) {
		cs_reduce_opts o = { .name = "forward-release-unrelocated.chain", .base_dir = dir };
		cs_diag d;
		cs_diag_clear(&d);
		cr_assert(cs_reduce_goal_parse(cases[i].goal, &o.goal, &d), "%s", d.msg);
		cs_reduce_result r;
		cr_assert(cs_reduce_scenario(text, len, &o, &r, &d), "%s", d.msg);
		cr_assert(r.held);
		cr_expect_eq(r.goal.stage, i ? CS_STAGE_NONE : CS_STAGE_ENGINE_RELEASE, "%s",
			     cases[i].goal);
		cr_expect_eq(r.goal.cause, CS_CAUSE_FORWARD_UNRELOCATED);
		cs_cause cause;
		bool held;
		cr_expect_eq(run_text(r.text, dir, &cause, &held), cases[i].stage, "%s:\n%s",
			     cases[i].goal, r.text);
		cr_expect_eq(cause, CS_CAUSE_FORWARD_UNRELOCATED);
		cr_expect(held, "%s", r.text);
		cr_expect_eq(strstr(r.text, "keep RELEASE0") != NULL, i == 0, "%s", r.text);
		cs_reduce_result_clear(&r);
	}
	free(text);
	g_free(dir);
}

/* The summary names the break kept, stage and cause, for a goal of a cause. */
Test(reduce_cli, the_summary_names_the_stage_and_the_cause)
{
	char *in = g_build_filename(source_root(), "tests", "conformance",
				    "forward-release-unrelocated.chain", NULL);
	test_cli_out o = test_cli_run(source_root(), "reduce",
				      (const char *const[]){ in, "--until",
							     "cause forward-unrelocated", NULL });
	cr_expect_eq(o.status, 0, "%s", o.err);
	cr_expect(strstr(o.err, "it breaks at stage 10 (engine-release) [forward-unrelocated]"),
		  "%s", o.err);
	cr_expect(strstr(o.out, "expect break 10\nexpect cause forward-unrelocated\n"), "%s", o.out);
	test_cli_free(&o);
	g_free(in);
}

/* The whole reduction has a time budget: past it no candidate starts, and
 * the smallest scenario found so far is the result, saying so. The stream's
 * runs take milliseconds each and its reduction about 200 of them: 20 ms
 * stops it early, on any machine this runs on. */
Test(reduce, a_time_budget_stops_the_reduction_and_says_so, .timeout = 120)
{
	cs_reduce_opts o;
	char *text = stream_to_reduce(&o);
	cs_diag d;
	cs_reduce_result whole, cut;
	cr_assert(cs_reduce_scenario(text, strlen(text), &o, &whole, &d), "%s", d.msg);
	cr_expect_not(whole.budget_reached, "the default budget stopped a reduction of a second");
	cr_expect_eq(whole.time_budget_ns, CS_REDUCE_TIME_BUDGET_DEFAULT_NS);
	o.time_budget_ns = 20 * 1000 * 1000;
	cr_assert(cs_reduce_scenario(text, strlen(text), &o, &cut, &d), "%s", d.msg);
	cr_assert(cut.held);
	cr_expect(cut.budget_reached);
	cr_expect_eq(cut.time_budget_ns, 20 * 1000 * 1000);
	cr_expect_lt(cut.runs, whole.runs);
	cr_expect_gt(cut.units_after, whole.units_after);
	cr_expect(strstr(cut.text, "(stopped at its time budget: a smaller scenario may keep it too)"),
		  "%.300s", cut.text);
	cr_expect_null(strstr(whole.text, "time budget"), "%.300s", whole.text);
	/* what it gives back still breaks the way asked */
	cs_cause cause;
	bool held;
	cr_expect_eq(run_text(cut.text, source_root(), &cause, &held), CS_STAGE_FE_EXEC);
	cr_expect_eq(cause, CS_CAUSE_EARLIER_FAULT);
	cr_expect(held);
	cs_reduce_result_clear(&whole);
	cs_reduce_result_clear(&cut);
	g_free(text);
}

Test(reduce_cli, time_budget_is_an_option_reported_when_reached, .timeout = 120)
{
	cs_reduce_opts unused;
	char *text = stream_to_reduce(&unused);
	char *tmp = NULL;
	int fd = g_file_open_tmp("reduce-XXXXXX.chain", &tmp, NULL);
	cr_assert_geq(fd, 0);
	cr_assert_eq(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	close(fd);
	test_cli_out o = test_cli_run(source_root(), "reduce",
				      (const char *const[]){ tmp, "--until", "cause earlier-fault",
							     "--time-budget=0.02", NULL });
	cr_expect_eq(o.status, 0, "%s", o.err);
	cr_expect(strstr(o.err, "reduce: the time budget of 0.02 s ran out after "), "%s", o.err);
	cr_expect(strstr(o.out, "stopped at its time budget"), "%.300s", o.out);
	test_cli_free(&o);
	const char *bad[] = { "--time-budget=0", "--time-budget=soon", "--time-budget=-1" };
	for (size_t i = 0; i < 3; i++) {
		o = test_cli_run(source_root(), "reduce",
				 (const char *const[]){ tmp, "--until", "cause earlier-fault", bad[i],
							NULL });
		cr_expect_eq(o.status, 2, "%s: %s", bad[i], o.err);
		cr_expect(strstr(o.err, "expected seconds above 0"), "%s: %s", bad[i], o.err);
		test_cli_free(&o);
	}
	g_remove(tmp);
	g_free(tmp);
	g_free(text);
}

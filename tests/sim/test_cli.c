/* SPDX-License-Identifier: MIT */
/* `chainsim run`: exit statuses of docs/chain.md, --json, --trace,
 * --no-exec, --help, located errors on stderr. Runs the built binary. */
#include <criterion/criterion.h>
#include <glib.h>
#include <glib/gstdio.h>
#include <unistd.h>
#include <json-glib/json-glib.h>
#include <sys/wait.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

/* chainsim run ARGS... from tests/conformance */
static test_cli_out run_cli(const char *const *args)
{
	const char *src = getenv("CHAINSIM_SOURCE_ROOT");
	cr_assert(src, "run through meson test");
	char *dir = g_build_filename(src, "tests", "conformance", NULL);
	test_cli_out o = test_cli_run(dir, "run", args);
	g_free(dir);
	return o;
}

Test(cli, complete_chain_exits_0)
{
	test_cli_out o = run_cli((const char *const[]){ "host-only.chain", NULL });
	cr_expect_eq(o.status, 0, "stderr: %s\nstdout: %s", o.err, o.out);
	cr_expect(strstr(o.out, "host-only.chain  blackwell  0 launches"), "%s", o.out);
	cr_expect(strstr(o.out, "chain complete"), "%s", o.out);
	cr_expect(strstr(o.out, " 6  qmd-install     n/a"), "%s", o.out);
	test_cli_free(&o);
}

/* A file that states its expectations passes when they hold, an expected
 * break included; without expectations a break exits 1. */
static char *without_expect_lines(const char *name)
{
	char *src = g_build_filename(getenv("CHAINSIM_SOURCE_ROOT"), "tests", "conformance", name,
				     NULL);
	gchar *text = NULL;
	cr_assert(g_file_get_contents(src, &text, NULL, NULL));
	GString *kept = g_string_new(NULL);
	gchar **lines = g_strsplit(text, "\n", -1);
	for (gchar **l = lines; *l; l++)
		if (!g_str_has_prefix(*l, "expect "))
			g_string_append_printf(kept, "%s\n", *l);
	/* Beside the original, so that its relative paths still resolve; the
	 * callers remove it. */
	char *dst = g_strdup_printf("%s.noexpect-%d.tmp", src, (int)getpid());
	cr_assert(g_file_set_contents(dst, kept->str, -1, NULL));
	g_strfreev(lines);
	g_string_free(kept, TRUE);
	g_free(text);
	g_free(src);
	return dst;
}

Test(cli, an_expected_break_exits_0_an_unexpected_one_1)
{
	test_cli_out o = run_cli((const char *const[]){ "earlier-fault.chain", NULL });
	cr_expect_eq(o.status, 0, "expect break 5 held: %s", o.out);
	cr_expect(strstr(o.out, "break at stage 5 (fe-exec)"), "%s", o.out);
	test_cli_free(&o);
	char *bare = without_expect_lines("earlier-fault.chain");
	o = run_cli((const char *const[]){ bare, NULL });
	g_unlink(bare);
	cr_expect_eq(o.status, 1, "%s", o.out);
	test_cli_free(&o);
	g_free(bare);
}

Test(cli, break_exits_1_with_the_diagnosis)
{
	char *bare = without_expect_lines("earlier-fault.chain");
	test_cli_out o = run_cli((const char *const[]){ bare, NULL });
	g_unlink(bare);
	g_free(bare);
	cr_expect_eq(o.status, 1);
	cr_expect(strstr(o.out, "break at stage 5 (fe-exec)"), "%s", o.out);
	cr_expect(strstr(o.out, "the launch at method 9 never reached the engine"), "%s", o.out);
	cr_expect(strstr(o.out, "method 5 of entry 0 LAUNCH_DMA"), "%s", o.out);
	test_cli_free(&o);
}

Test(cli, usage_and_bad_input_exit_2)
{
	test_cli_out o = run_cli((const char *const[]){ NULL });
	cr_expect_eq(o.status, 2);
	cr_expect(strstr(o.err, "usage:"));
	test_cli_free(&o);
	o = run_cli((const char *const[]){ "--frob", "host-only.chain", NULL });
	cr_expect_eq(o.status, 2);
	cr_expect(strstr(o.err, "unknown option '--frob'"), "%s", o.err);
	test_cli_free(&o);
	o = run_cli((const char *const[]){ "no-such-file.chain", NULL });
	cr_expect_eq(o.status, 2);
	cr_expect(strstr(o.err, "no-such-file.chain"), "%s", o.err);
	test_cli_free(&o);
	char *bad = g_build_filename(g_get_tmp_dir(), "chainsim-cli-bad.chain", NULL);
	cr_assert(g_file_set_contents(bad, "arch hopper\nalloc x 16\nfrobnicate 3\n", -1, NULL));
	o = run_cli((const char *const[]){ bad, NULL });
	cr_expect_eq(o.status, 2);
	cr_expect(strstr(o.err, ":3:1:"), "a located message: %s", o.err);
	test_cli_free(&o);
	remove(bad);
	g_free(bad);
}

Test(cli, execution_error_prints_only_the_located_message)
{
	/* parses, then fails while executing (a method no class has): the partial
	 * run's chain would blame the guest, so no table is printed */
	char *bad = g_build_filename(g_get_tmp_dir(), "chainsim-cli-exec-bad.chain", NULL);
	cr_assert(g_file_set_contents(bad, "arch hopper\npush p\n  inc 1 NOSUCH 3\nend\n", -1,
				      NULL));
	test_cli_out o = run_cli((const char *const[]){ bad, NULL });
	cr_expect_eq(o.status, 2);
	cr_expect(strstr(o.err, ":3:9: unknown method 'NOSUCH'"), "%s", o.err);
	cr_expect_str_empty(o.out, "stdout: %s", o.out);
	test_cli_free(&o);
	o = run_cli((const char *const[]){ "--json", bad, NULL });
	cr_expect_eq(o.status, 2);
	cr_expect(strstr(o.out, "\"result\" : \"error\""), "%s", o.out);
	test_cli_free(&o);
	remove(bad);
	g_free(bad);
}

Test(cli, json_on_a_parse_error_prints_the_object_and_exits_2)
{
	char *bad = g_build_filename(g_get_tmp_dir(), "chainsim-cli-json-bad.chain", NULL);
	cr_assert(g_file_set_contents(bad, "arch hopper\nalloc x 16\nfrobnicate 3\n", -1, NULL));
	test_cli_out o = run_cli((const char *const[]){ "--json", bad, NULL });
	cr_expect_eq(o.status, 2);
	JsonParser *p = json_parser_new();
	cr_assert(json_parser_load_from_data(p, o.out, -1, NULL), "stdout is not JSON: '%s'", o.out);
	JsonObject *root = json_node_get_object(json_parser_get_root(p));
	cr_expect_eq(json_object_get_int_member(root, "schema_version"), 1);
	cr_expect_str_eq(json_object_get_string_member(root, "result"), "error");
	JsonObject *e = json_object_get_object_member(root, "error");
	cr_assert_not_null(e);
	cr_expect_eq(json_object_get_int_member(e, "line"), 3);
	cr_expect_eq(json_object_get_int_member(e, "col"), 1);
	cr_expect(strstr(json_object_get_string_member(e, "message"), "frobnicate"));
	cr_expect(JSON_NODE_HOLDS_NULL(json_object_get_member(root, "chain")));
	g_object_unref(p);
	test_cli_free(&o);
	/* a missing file too */
	o = run_cli((const char *const[]){ "--json", "no-such-file.chain", NULL });
	cr_expect_eq(o.status, 2);
	p = json_parser_new();
	cr_assert(json_parser_load_from_data(p, o.out, -1, NULL), "stdout is not JSON: '%s'", o.out);
	root = json_node_get_object(json_parser_get_root(p));
	cr_expect_str_eq(json_object_get_string_member(root, "result"), "error");
	cr_expect_not_null(json_object_get_object_member(root, "error"));
	g_object_unref(p);
	test_cli_free(&o);
	/* an execution error: the located message, judged fields null */
	cr_assert(g_file_set_contents(bad, "arch hopper\npush p\n  inc 1 NOSUCH 3\nend\n", -1, NULL));
	o = run_cli((const char *const[]){ "--json", bad, NULL });
	cr_expect_eq(o.status, 2);
	p = json_parser_new();
	cr_assert(json_parser_load_from_data(p, o.out, -1, NULL), "stdout is not JSON: '%s'", o.out);
	root = json_node_get_object(json_parser_get_root(p));
	e = json_object_get_object_member(root, "error");
	cr_assert_not_null(e);
	cr_expect_eq(json_object_get_int_member(e, "line"), 3);
	cr_expect_eq(json_object_get_int_member(e, "col"), 9);
	cr_expect(JSON_NODE_HOLDS_NULL(json_object_get_member(root, "first_break")));
	g_object_unref(p);
	test_cli_free(&o);
	remove(bad);
	g_free(bad);
}

Test(cli, help_exits_0)
{
	test_cli_out o = run_cli((const char *const[]){ "--help", NULL });
	cr_expect_eq(o.status, 0);
	cr_expect(strstr(o.out, "--no-exec"));
	test_cli_free(&o);
}

Test(cli, json_and_trace)
{
	char *trace = g_build_filename(g_get_tmp_dir(), "chainsim-cli-trace.json", NULL);
	test_cli_out o = run_cli((const char *const[]){ "--json", "--trace", trace, "deadlock.chain", NULL });
	cr_expect_eq(o.status, 0, "its expect break 5 held");
	JsonParser *p = json_parser_new();
	cr_assert(json_parser_load_from_data(p, o.out, -1, NULL), "stdout is not JSON: %s", o.out);
	JsonObject *root = json_node_get_object(json_parser_get_root(p));
	cr_expect_str_eq(json_object_get_string_member(root, "result"), "broken");
	JsonObject *fb = json_object_get_object_member(root, "first_break");
	cr_expect_str_eq(json_object_get_string_member(fb, "cause"), "deadlock");
	cr_expect_eq(json_object_get_int_member(json_object_get_object_member(root, "counters"),
						"deadlocks"), 1);
	g_object_unref(p);
	p = json_parser_new();
	cr_expect(json_parser_load_from_file(p, trace, NULL), "the trace is not JSON");
	g_object_unref(p);
	test_cli_free(&o);
	remove(trace);
	g_free(trace);
}

Test(cli, no_exec_breaks_at_dispatch)
{
	/* The same complete scenario, with no executor: stage 9 breaks, never a pass. */
	test_cli_out o = run_cli((const char *const[]){ "--no-exec", "--json", "complete-hopper-pcas.chain",
						   NULL });
	cr_expect_eq(o.status, 1);
	JsonParser *p = json_parser_new();
	cr_assert(json_parser_load_from_data(p, o.out, -1, NULL));
	JsonObject *root = json_node_get_object(json_parser_get_root(p));
	JsonObject *fb = json_object_get_object_member(root, "first_break");
	cr_assert_not_null(fb);
	cr_expect_eq(json_object_get_int_member(fb, "stage"), 9);
	cr_expect_str_eq(json_object_get_string_member(fb, "cause"), "no-executor");
	g_object_unref(p);
	test_cli_free(&o);
}

/* Code the simulator cannot run, and no expectations: the run cannot be judged
 * here, exit 3, and the report says why. */
Test(cli, not_observable_exits_3)
{
	char *bare = without_expect_lines("code-unsupported.chain");
	test_cli_out o = run_cli((const char *const[]){ bare, NULL });
	g_unlink(bare);
	g_free(bare);
	cr_expect_eq(o.status, 3, "%s", o.out);
	cr_expect(strstr(o.out, "not observable from stage 9 (gr-dispatch) [code-unsupported]"), "%s",
		  o.out);
	test_cli_free(&o);
}

/* A kernel's device printf lines and the executor's findings reach the report. */
Test(cli, printf_output_and_race_findings_are_reported)
{
	test_cli_out o = run_cli((const char *const[]){ "device-printf.chain", NULL });
	cr_expect_eq(o.status, 0, "%s", o.out);
	cr_expect(strstr(o.out, "printf: launch 0, CTA 1, thread 0: block 1: x[32]=32.500 n=64 small\n"),
		  "%s", o.out);
	test_cli_free(&o);
	o = run_cli((const char *const[]){ "race-shared.chain", NULL });
	cr_expect_eq(o.status, 0, "%s", o.out);
	cr_expect(strstr(o.out, "finding: launch 0, CTA 0: softmax_shared_slot: shared-memory race"),
		  "%s", o.out);
	test_cli_free(&o);
}

/* ---- the executor's threads and budgets ---------------------------------- */

static test_cli_out run_json(const char *const *args)
{
	test_cli_out o = run_cli(args);
	cr_assert(o.out && o.out[0] == '{', "stderr: %s\nstdout: %s", o.err, o.out);
	return o;
}

/* The same JSON and trace on 1, 2 and 3 host threads, for multi-CTA kernels
 * with printf, races and atomics. */
Test(cli, threads_change_nothing_in_the_report)
{
	static const char *const cases[] = { "complete-blackwell-reduce-multi-cta.chain",
					     "device-printf.chain", "race-shared.chain" };
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *text[3], *trace[3];
		gsize tlen[3];
		for (int t = 0; t < 3; t++) {
			char opt[32], *path = g_strdup_printf("%s/cli-threads-%d-%d.json", g_get_tmp_dir(),
							       (int)getpid(), t);
			snprintf(opt, sizeof(opt), "--threads=%d", t + 1);
			test_cli_out o = run_json((const char *const[]){ "--json", opt, "--trace", path,
								    cases[i], NULL });
			text[t] = o.out;
			g_free(o.err);
			cr_assert(g_file_get_contents(path, &trace[t], &tlen[t], NULL), "%s", path);
			g_unlink(path);
			g_free(path);
		}
		for (int t = 1; t < 3; t++) {
			cr_expect_str_eq(text[t], text[0], "%s: --threads=%d", cases[i], t + 1);
			cr_expect(tlen[t] == tlen[0] && !memcmp(trace[t], trace[0], tlen[0]),
				  "%s: the trace differs on --threads=%d", cases[i], t + 1);
		}
		for (int t = 0; t < 3; t++) {
			g_free(text[t]);
			g_free(trace[t]);
		}
	}
}

/* reduce_sum adds floats atomically from 4 CTAs: the report says the order
 * matters, as a finding of the launch. */
Test(cli, float_atomics_are_a_finding)
{
	test_cli_out o = run_cli((const char *const[]){ "complete-blackwell-reduce-multi-cta.chain", NULL });
	cr_expect_eq(o.status, 0, "%s", o.err);
	cr_expect(strstr(o.out, "finding: launch 0, CTA 0: reduce_sum: the atom at PTX line"),
		  "%s", o.out);
	cr_expect(strstr(o.out, "adds floats (not associative), so the result depends on the order"),
		  "%s", o.out);
	test_cli_free(&o);
}

Test(cli, bad_thread_and_budget_values_exit_2)
{
	static const char *const bad[][2] = {
		{ "--threads=0", "expected a whole number from 1 to 256" },
		{ "--threads=257", "expected a whole number from 1 to 256" },
		{ "--threads=2x", "expected a whole number" },
		{ "--threads=", "expected a whole number" },
		{ "--budget-instructions=0", "expected a whole number above 0" },
		{ "--budget-instructions=-5", "expected a whole number above 0" },
		{ "--budget-instructions=99999999999999999999", "expected a whole number" },
		{ "--budget-seconds=0", "expected seconds above 0" },
		{ "--budget-seconds=nan", "expected seconds above 0" },
		{ "--budget-seconds=1e99", "expected seconds above 0" },
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		test_cli_out o = run_cli((const char *const[]){ bad[i][0], "host-only.chain", NULL });
		cr_expect_eq(o.status, 2, "%s: %d", bad[i][0], o.status);
		cr_expect(strstr(o.err, bad[i][1]), "%s: %s", bad[i][0], o.err);
		test_cli_free(&o);
	}
}

/* A grid of 2^31 - 1 CTAs stops at a lowered instruction budget, named as a
 * budget stop: stage 9 not observable, exit 3 without expect lines. */
Test(cli, a_budget_stop_is_named_not_a_verdict)
{
	test_cli_out o = run_cli((const char *const[]){ "--budget-instructions=100000",
						   "../sim/budget/grid-budget.chain", NULL });
	cr_expect_eq(o.status, 0, "the file's expect lines hold: %s %s", o.out, o.err);
	cr_expect(strstr(o.out, "not observable from stage 9 (gr-dispatch) [grid-budget]"), "%s",
		  o.out);
	cr_expect(strstr(o.out, "ran past its budget of 100000 thread-instructions"), "%s", o.out);
	test_cli_free(&o);
}

/* The budget counts over the scenario: the second launch gets what the
 * first left. */
Test(cli, the_budget_counts_per_scenario)
{
	test_cli_out o = run_json((const char *const[]){ "--json", "--budget-instructions=6000",
						    "../sim/budget/two-launches.chain", NULL });
	cr_expect_eq(o.status, 0, "%s", o.err);
	cr_expect(strstr(o.out, "\"cause\" : \"grid-budget\""), "%s", o.out);
	cr_expect(strstr(o.out, "ran past its budget of 368 thread-instructions"), "%s", o.out);
	test_cli_free(&o);
	/* either launch alone fits */
	o = run_json((const char *const[]){ "--json", "--budget-instructions=5632",
					    "../sim/budget/two-launches.chain", NULL });
	cr_expect(strstr(o.out, "the scenario's budget (5632 thread-instructions"), "%s", o.out);
	test_cli_free(&o);
}

/* With the default budgets the 2^31-CTA grid stops by wall time in seconds. */
Test(cli, by_default_a_huge_grid_stops_in_seconds, .timeout = 60)
{
	gint64 t0 = g_get_monotonic_time();
	test_cli_out o = run_cli((const char *const[]){ "../sim/budget/grid-budget.chain", NULL });
	double took = (double)(g_get_monotonic_time() - t0) / 1e6;
	cr_expect_eq(o.status, 0, "%s %s", o.out, o.err);
	cr_expect(strstr(o.out, "stopped by its wall-time budget of 5 s after"), "%s", o.out);
	cr_expect(took < 20, "took %.1f s", took);
	test_cli_free(&o);
}

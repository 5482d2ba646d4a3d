/* SPDX-License-Identifier: MIT */
/* `chainsim diff A B` and the library's cs_diff_runs: two finished runs
 * compared stage by stage, the first divergence with both values, --json, and
 * the exit statuses (0 same, 1 divergent, 2 bad input). */
#include <criterion/criterion.h>
#include <glib.h>
#include <json-glib/json-glib.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "chainsim/diff.h"
#include "cli.h"
#include "chainsim/scenario.h"

static char *case_path(const char *name)
{
	const char *src = getenv("CHAINSIM_SOURCE_ROOT");
	cr_assert_not_null(src, "run through meson test");
	return g_build_filename(src, "tests", "sim", "diff", name, NULL);
}

typedef struct run {
	cs_scenario *s;
	cs_device *dev;
	cs_report *r;
} run;

static run run_case(const char *name)
{
	char *path = case_path(name);
	cs_diag d;
	cs_diag_clear(&d);
	run x = { 0 };
	x.s = cs_scenario_load(path, &d);
	cr_assert_not_null(x.s, "%s: %s", path, d.msg);
	cs_device_config cfg = { .arch = cs_scenario_arch(x.s), .trace_level = CS_TRACE_ALL };
	x.dev = cs_device_new(&cfg, &d);
	cr_assert_not_null(x.dev);
	cr_assert(cs_scenario_execute(x.s, x.dev, &d), "%s: %s", path, d.msg);
	x.r = cs_report_build(x.dev);
	cr_assert_not_null(x.r);
	g_free(path);
	return x;
}

static void run_free(run *x)
{
	cs_report_free(x->r);
	cs_device_free(x->dev);
	cs_scenario_free(x->s);
}

static cs_diff diff_cases(const char *a, const char *b)
{
	run ra = run_case(a), rb = run_case(b);
	cs_diff_run da = { .label = a, .dev = ra.dev, .report = ra.r };
	cs_diff_run db = { .label = b, .dev = rb.dev, .report = rb.r };
	cs_diff df;
	cs_diff_runs(&da, &db, &df);
	/* the points' detail texts live in the devices' traces: drop them with the runs */
	df.a.ev.detail = df.b.ev.detail = NULL;
	run_free(&ra);
	run_free(&rb);
	return df;
}

Test(diff, release_payload_diverges_at_stage_10_with_both_values)
{
	cs_diff df = diff_cases("good.chain", "release-payload.chain");
	cr_assert(df.diverged);
	cr_expect_eq(df.stage, CS_STAGE_ENGINE_RELEASE, "stage %d", (int)df.stage);
	cr_expect_str_eq(df.field, "value");
	cr_assert(df.a.present && df.b.present);
	cr_expect_eq(df.a.ev.kind, CS_EV_SEM_RELEASE);
	cr_expect_eq(df.a.ev.value, 1);
	cr_expect_eq(df.b.ev.value, 2);
	cr_expect_str_eq(df.a.addr_name, "sem");
	cr_expect_str_eq(df.b.addr_name, "sem");
	cr_expect_eq(df.a.ev.gp_entry, 0);
	cr_expect_neq(df.a.ev.method_index, CS_NONE32);
	cr_expect(!df.stage_differs[9] && df.stage_differs[10] && df.stage_differs[11]);
	cr_expect_eq(df.launches_differ, 1);
}

Test(diff, a_method_data_difference_names_entry_method_and_both_values)
{
	cs_diff df = diff_cases("good.chain", "host-payload.chain");
	cr_assert(df.diverged);
	cr_expect_eq(df.stage, CS_STAGE_FE_EXEC, "stage %d", (int)df.stage);
	cr_expect_str_eq(df.field, "value");
	cr_expect_eq(df.a.ev.kind, CS_EV_METHOD);
	cr_expect_eq(df.a.ev.gp_entry, 0);
	cr_expect_eq(df.a.ev.method_index, 5, "method %u", df.a.ev.method_index);
	cr_expect_eq(df.a.ev.value, 7);
	cr_expect_eq(df.b.ev.value, 8);
	cr_expect_eq(df.launches_differ, 0);
}

Test(diff, a_run_against_itself_does_not_diverge)
{
	cs_diff df = diff_cases("good.chain", "good.chain");
	cr_expect_not(df.diverged);
	for (int s = 1; s <= CS_STAGE_COUNT; s++)
		cr_expect_not(df.stage_differs[s], "stage %d", s);
}

/* ---- the command ------------------------------------------------------------- */

/* chainsim diff ARGS... from the diff cases' folder */
static test_cli_out diff_cli(const char *const *args)
{
	char *dir = case_path("");
	test_cli_out o = test_cli_run(dir, "diff", args);
	g_free(dir);
	return o;
}

Test(diff_cli, divergent_runs_exit_1_and_show_the_first_divergence)
{
	test_cli_out o = diff_cli((const char *const[]){ "good.chain", "release-payload.chain", NULL });
	cr_expect_eq(o.status, 1, "stderr: %s", o.err);
	cr_expect(strstr(o.out, "10  engine-release  fired          fired          differ"), "%s",
		  o.out);
	cr_expect(strstr(o.out, "11  guest-wake      fired          not-fired      differ"), "%s",
		  o.out);
	cr_expect(strstr(o.out, "\nA: complete\nB: break at stage 11 (guest-wake) [wait-unmet]\n"),
		  "%s", o.out);
	cr_expect(strstr(o.out, "launch 0: A complete, B break at stage 11 (guest-wake)"), "%s",
		  o.out);
	cr_expect(strstr(o.out, "first divergence at stage 10 (engine-release)"), "%s", o.out);
	cr_expect(strstr(o.out, "A good.chain: sem-release by compute, entry 0"), "%s", o.out);
	cr_expect(strstr(o.out, "addr sem (0x"), "%s", o.out);
	cr_expect(strstr(o.out, "value 0x1,"), "%s", o.out);
	cr_expect(strstr(o.out, "value 0x2,"), "%s", o.out);
	test_cli_free(&o);
}

Test(diff_cli, same_runs_exit_0)
{
	test_cli_out o = diff_cli((const char *const[]){ "good.chain", "good.chain", NULL });
	cr_expect_eq(o.status, 0, "stderr: %s\n%s", o.err, o.out);
	cr_expect(strstr(o.out, "no divergence"), "%s", o.out);
	test_cli_free(&o);
}

static const char *member_str(JsonObject *o, const char *name)
{
	cr_assert(json_object_has_member(o, name), "no member %s", name);
	return json_object_get_string_member(o, name);
}

Test(diff_cli, json_names_stage_entry_method_address_and_both_values)
{
	test_cli_out o = diff_cli(
		(const char *const[]){ "--json", "good.chain", "release-payload.chain", NULL });
	cr_expect_eq(o.status, 1, "stderr: %s", o.err);
	JsonParser *p = json_parser_new();
	cr_assert(json_parser_load_from_data(p, o.out, -1, NULL), "not JSON: %s", o.out);
	JsonObject *root = json_node_get_object(json_parser_get_root(p));
	cr_expect_str_eq(member_str(root, "result"), "divergent");
	JsonObject *fd = json_object_get_object_member(root, "first_divergence");
	cr_assert_not_null(fd);
	cr_expect_eq(json_object_get_int_member(fd, "stage"), 10);
	cr_expect_str_eq(member_str(fd, "field"), "value");
	JsonObject *a = json_object_get_object_member(fd, "a");
	JsonObject *b = json_object_get_object_member(fd, "b");
	cr_assert(a && b);
	cr_expect_str_eq(member_str(a, "value"), "0x1");
	cr_expect_str_eq(member_str(b, "value"), "0x2");
	cr_expect_str_eq(member_str(a, "addr_name"), "sem");
	cr_expect_eq(json_object_get_int_member(a, "entry"), 0);
	cr_expect(!json_node_is_null(json_object_get_member(a, "method_index")));
	JsonArray *chain = json_object_get_array_member(root, "chain");
	cr_assert_eq(json_array_get_length(chain), 11);
	JsonObject *s11 = json_array_get_object_element(chain, 10);
	cr_expect_str_eq(member_str(s11, "b"), "not-fired");
	g_object_unref(p);
	test_cli_free(&o);
}

Test(diff_cli, bad_input_exits_2_with_its_location)
{
	test_cli_out o = diff_cli((const char *const[]){ "good.chain", "no-such.chain", NULL });
	cr_expect_eq(o.status, 2);
	cr_expect(strstr(o.err, "no-such.chain"), "%s", o.err);
	test_cli_free(&o);

	char *tmp = NULL;
	int fd = g_file_open_tmp("diff-bad-XXXXXX.chain", &tmp, NULL);
	cr_assert_geq(fd, 0);
	static const char text[] = "arch hopper\nalloc a 256\npush pb\n  inc 1 NO_SUCH 1\nend\n";
	cr_assert_eq(write(fd, text, sizeof(text) - 1), (ssize_t)sizeof(text) - 1);
	close(fd);
	o = diff_cli((const char *const[]){ "good.chain", tmp, NULL });
	cr_expect_eq(o.status, 2);
	cr_expect(strstr(o.err, ":4:"), "the error names line 4: %s", o.err);
	test_cli_free(&o);
	remove(tmp);
	g_free(tmp);

	o = diff_cli((const char *const[]){ "good.chain", NULL });
	cr_expect_eq(o.status, 2);
	test_cli_free(&o);
	o = diff_cli((const char *const[]){ "a", "b", "c", NULL });
	cr_expect_eq(o.status, 2);
	test_cli_free(&o);
}

/* ---- one scenario under two rewrites ------------------------------------------ */

Test(diff_rewrite, an_address_kept_unrelocated_diverges_at_stage_3)
{
	test_cli_out o = diff_cli((const char *const[]){ "--rewrite-a", "relocate.rewrite", "--rewrite-b",
						    "keep-sem.rewrite", "forward.chain", NULL });
	cr_expect_eq(o.status, 1, "stderr: %s", o.err);
	cr_expect(strstr(o.out, "diff A forward.chain under relocate.rewrite vs B forward.chain "
				"under keep-sem.rewrite\n"), "%s", o.out);
	cr_expect(strstr(o.out, "B: break at stage 5 (fe-exec) [forward-unrelocated]"), "%s", o.out);
	/* A relocated the semaphore's address; B makes no such edit */
	cr_expect(strstr(o.out, "first divergence at stage 3 (host-forward), edit 0 of A: B does "
				"not edit entry 0's SEM_ADDR (A: relocate)\n"), "%s", o.out);
	cr_expect(strstr(o.out, "  A forward.chain under relocate.rewrite: relocate by host: entry "
				"0's SEM_ADDR: guest sem -> host 0x5000000000\n"), "%s", o.out);
	cr_expect(strstr(o.out, "  B forward.chain under keep-sem.rewrite: no such edit\n"), "%s",
		  o.out);
	test_cli_free(&o);
}

Test(diff_rewrite, a_replaced_release_payload_shows_both_values_in_json)
{
	test_cli_out o = diff_cli((const char *const[]){ "--json", "--rewrite-a", "relocate.rewrite",
						    "--rewrite-b", "payload.rewrite", "forward.chain",
						    NULL });
	cr_expect_eq(o.status, 1, "stderr: %s", o.err);
	JsonParser *p = json_parser_new();
	cr_assert(json_parser_load_from_data(p, o.out, -1, NULL), "not JSON: %s", o.out);
	JsonObject *root = json_node_get_object(json_parser_get_root(p));
	cr_expect_str_eq(member_str(json_object_get_object_member(root, "b"), "label"),
			 "forward.chain under payload.rewrite");
	JsonObject *fd = json_object_get_object_member(root, "first_divergence");
	cr_assert_not_null(fd);
	cr_expect_eq(json_object_get_int_member(fd, "stage"), 3);
	/* B's extra edit is matched by its target, so A's pushbuffer copy is not
	 * set against it: A makes no such edit */
	cr_expect(json_object_get_boolean_member(fd, "edit"));
	cr_expect_str_eq(member_str(fd, "field"), "missing");
	cr_expect(json_object_get_null_member(fd, "a"), "%s", o.out);
	JsonObject *b = json_object_get_object_member(fd, "b");
	cr_assert(b);
	cr_expect_str_eq(member_str(b, "edit"), "replace");
	cr_expect_str_eq(member_str(b, "target"), "entry 0's SEM_PAYLOAD_LO at pb+0xc");
	cr_expect_str_eq(member_str(b, "method"), "SEM_PAYLOAD_LO");
	cr_expect_str_eq(member_str(b, "value"), "0x2");
	cr_expect_str_eq(member_str(b, "detail"),
			 "entry 0's SEM_PAYLOAD_LO at pb+0xc: data replaced by 0x2");
	g_object_unref(p);
	test_cli_free(&o);
}

/* Edits are matched by what they target: a missing one is named as missing,
 * never set against the other run's next edit, and no edit reads as a
 * method difference with no method on either side. */
Test(diff_rewrite, an_edit_one_run_lacks_is_named_by_its_target)
{
	test_cli_out o = diff_cli((const char *const[]){ "--rewrite-b", "keep-release.rewrite",
						    "forward-launch.chain", NULL });
	cr_expect_eq(o.status, 1, "stderr: %s", o.err);
	cr_expect(strstr(o.out, "first divergence at stage 3 (host-forward), edit 4 of A: B does "
				"not edit entry 0's RELEASE0_ADDRESS in QMD L.qmd (A: patch)\n"),
		  "%s", o.out);
	cr_expect(strstr(o.out, "  A forward-launch.chain: patch by host: entry 0's "
				"RELEASE0_ADDRESS in QMD L.qmd = 0x5000002000\n"), "%s", o.out);
	cr_expect(strstr(o.out, "  B forward-launch.chain under keep-release.rewrite: no such "
				"edit\n"), "%s", o.out);
	cr_expect_null(strstr(o.out, "method - (-)"), "%s", o.out);
	cr_expect_null(strstr(o.out, "copy"), "the QMD's copy is in both runs: %s", o.out);
	test_cli_free(&o);
}

Test(diff_rewrite, an_edit_of_the_same_target_names_what_differs)
{
	test_cli_out o = diff_cli((const char *const[]){ "--rewrite-b", "skew-release.rewrite",
						    "forward-launch.chain", NULL });
	cr_expect_eq(o.status, 1, "stderr: %s", o.err);
	cr_expect(strstr(o.out, "first divergence at stage 3 (host-forward), edit 4 of A: the "
				"edits of entry 0's RELEASE0_ADDRESS in QMD L.qmd differ in value\n"),
		  "%s", o.out);
	cr_expect(strstr(o.out, "  B forward-launch.chain under skew-release.rewrite: patch by host: "
				"entry 0's RELEASE0_ADDRESS in QMD L.qmd = 0x5000002100\n"),
		  "%s", o.out);
	test_cli_free(&o);
	/* an unedited pushbuffer is relocated, an edited one copied: the kind differs */
	o = diff_cli((const char *const[]){ "--json", "--rewrite-a", "keep-sem.rewrite", "--rewrite-b",
					    "same-payload.rewrite", "forward.chain", NULL });
	cr_expect_eq(o.status, 1, "stderr: %s", o.err);
	JsonParser *p = json_parser_new();
	cr_assert(json_parser_load_from_data(p, o.out, -1, NULL), "not JSON: %s", o.out);
	JsonObject *fd = json_object_get_object_member(json_node_get_object(json_parser_get_root(p)),
						       "first_divergence");
	cr_assert_not_null(fd);
	cr_expect_str_eq(member_str(fd, "field"), "edit");
	JsonObject *a = json_object_get_object_member(fd, "a");
	JsonObject *b = json_object_get_object_member(fd, "b");
	cr_assert(a && b, "%s", o.out);
	cr_expect_str_eq(member_str(a, "edit"), "relocate");
	cr_expect_str_eq(member_str(b, "edit"), "copy");
	cr_expect_str_eq(member_str(a, "target"), "entry 0's pushbuffer");
	cr_expect_str_eq(member_str(b, "target"), "entry 0's pushbuffer");
	g_object_unref(p);
	test_cli_free(&o);
}

Test(diff_rewrite, the_same_rewrite_twice_exits_0)
{
	test_cli_out o = diff_cli((const char *const[]){ "--rewrite-a", "relocate.rewrite", "--rewrite-b",
						    "relocate.rewrite", "forward.chain", NULL });
	cr_expect_eq(o.status, 0, "stderr: %s\n%s", o.err, o.out);
	cr_expect(strstr(o.out, "no divergence"), "%s", o.out);
	test_cli_free(&o);
	/* the scenario's own block is the same relocation */
	o = diff_cli((const char *const[]){ "--rewrite-b", "relocate.rewrite", "forward.chain", NULL });
	cr_expect_eq(o.status, 0, "stderr: %s\n%s", o.err, o.out);
	test_cli_free(&o);
}

Test(diff_rewrite, a_scenario_without_a_rewrite_takes_it_before_its_submit)
{
	test_cli_out o = diff_cli(
		(const char *const[]){ "--rewrite-b", "relocate.rewrite", "forward-plain.chain", NULL });
	cr_expect_eq(o.status, 1, "stderr: %s", o.err);
	cr_expect(strstr(o.out, "A: break at stage 4 (fe-fetch) [forward-unrelocated]\nB: complete\n"),
		  "%s", o.out);
	test_cli_free(&o);
}

Test(diff_rewrite, bad_rewrites_exit_2_located_in_their_file)
{
	test_cli_out o = diff_cli(
		(const char *const[]){ "--rewrite-a", "bad-keep.rewrite", "forward.chain", NULL });
	cr_expect_eq(o.status, 2);
	cr_expect(strstr(o.err, "bad-keep.rewrite:4:8: keep: unknown address 'NOPE'"), "%s", o.err);
	test_cli_free(&o);
	o = diff_cli((const char *const[]){ "--rewrite-b", "trailing.rewrite", "forward.chain", NULL });
	cr_expect_eq(o.status, 2);
	cr_expect(strstr(o.err, "trailing.rewrite:4:1: expected nothing after the rewrite block's "
				"'end'"), "%s", o.err);
	test_cli_free(&o);
	o = diff_cli((const char *const[]){ "--rewrite-b", "forward.chain", "forward.chain", NULL });
	cr_expect_eq(o.status, 2);
	cr_expect(strstr(o.err, "forward.chain:3:1: expected a 'rewrite' line first"), "%s", o.err);
	test_cli_free(&o);
	/* the scenario's own lines after the spliced block keep their numbers */
	o = diff_cli((const char *const[]){ "--rewrite-a", "relocate.rewrite",
					    "forward-bad-wait.chain", NULL });
	cr_expect_eq(o.status, 2);
	cr_expect(strstr(o.err, "forward-bad-wait.chain:14:6: unknown name 'nosuch'"), "%s", o.err);
	test_cli_free(&o);
}

/* SPDX-License-Identifier: MIT */
/* `chainsim conform`: parallel child processes (a crash or a hang costs one
 * case), fixed order, --filter, --shard (explicit and auto), JSON and JUnit,
 * `# run:` options, --costs (the order taken, the report kept, a bad file
 * refused), `conform merge` refusals, and never green on nothing.
 * Runs the built binary on the corpus; the crashing and the hanging case
 * come from the runner's test-only hooks --test-inject-crash/--test-inject-hang
 * (the child raises SIGSEGV, or pauses forever, before running the case). */
#include <criterion/criterion.h>
#include <glib.h>
#include <glib/gstdio.h>
#include <json-glib/json-glib.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

/* ../common/: tools/ has a cli.h of its own */
#include "../common/cli.h"
#include "commands.h"
#include "conform.h"

/* Runs chainsim conform from the source root (cases are named
 * tests/conformance/X.chain), with envp extra variables when given. */
static test_cli_out conform(const char *const *envp_extra, const char *const *args)
{
	const char *src = getenv("CHAINSIM_SOURCE_ROOT");
	cr_assert_not_null(src, "run through meson test");
	static const char *const scrub[] = { "CHAINSIM_SHARD", "CHAINSIM_SHARD_COUNT",
					     "SLURM_ARRAY_TASK_ID", "SLURM_ARRAY_TASK_COUNT",
					     "SLURM_ARRAY_TASK_MIN", "JOB_COMPLETION_INDEX", NULL };
	const test_cli_opts opts = { .env = envp_extra, .unset = scrub };
	return test_cli_run_opts(src, &opts, "conform", args);
}

static size_t count_chain_files(const char *sub)
{
	char *dir = g_build_filename(getenv("CHAINSIM_SOURCE_ROOT"), sub, NULL);
	GDir *d = g_dir_open(dir, 0, NULL);
	cr_assert(d);
	size_t n = 0;
	const char *name;
	while ((name = g_dir_read_name(d)))
		n += g_str_has_suffix(name, ".chain");
	g_dir_close(d);
	g_free(dir);
	return n;
}

/* The output without the per-case times: what must not depend on --jobs. */
static char *without_times(const char *out)
{
	GRegex *re = g_regex_new(" \\([0-9.]+ s\\)", 0, 0, NULL);
	char *s = g_regex_replace_literal(re, out, -1, 0, "", 0, NULL);
	g_regex_unref(re);
	return s;
}

static char *tmp_path(const char *name)
{
	return g_strdup_printf("%s/conform-%d-%s", g_get_tmp_dir(), (int)getpid(), name);
}

/* A folder beside tests/conformance for edited cases: their relative paths
 * (../../fixtures/...) still resolve, and the corpus runs of the other tests
 * (criterion runs them in parallel) do not see them. */
static char *sibling_dir(void)
{
	char *d = g_strdup_printf("%s/tests/conform-tmp-%d", getenv("CHAINSIM_SOURCE_ROOT"),
				  (int)getpid());
	cr_assert(g_mkdir_with_parents(d, 0700) == 0);
	return d;
}

Test(conform, the_corpus_passes_with_two_jobs_in_path_order)
{
	size_t n = count_chain_files("tests/conformance") + count_chain_files("tests/outside");
	test_cli_out a = conform(NULL, (const char *const[]){ "--jobs", "2", "tests/outside",
							      "tests/conformance", NULL });
	cr_expect_eq(a.status, 0, "%s%s", a.out, a.err);
	char *want = g_strdup_printf("SUMMARY: %zu cases: %zu pass, 0 fail, 0 crashed, "
				     "0 timed out, 0 unavailable, 0 not observable\n", n, n);
	cr_expect(g_str_has_suffix(a.out, want), "%s", a.out);
	/* folders are listed in path order whatever the argument order */
	const char *c = strstr(a.out, "tests/conformance/"), *o = strstr(a.out, "tests/outside/");
	cr_expect(c && o && c < o, "%s", a.out);
	/* not a terminal: no progress line */
	cr_expect(!strchr(a.err, '\r'), "%s", a.err);
	test_cli_out b = conform(NULL, (const char *const[]){ "--jobs", "5", "tests/conformance",
							      "tests/outside", NULL });
	char *ta = without_times(a.out), *tb = without_times(b.out);
	cr_expect_str_eq(ta, tb, "the report depends on --jobs");
	g_free(ta);
	g_free(tb);
	g_free(want);
	test_cli_free(&a);
	test_cli_free(&b);
}

Test(conform, a_crash_costs_one_case)
{
	size_t n = count_chain_files("tests/conformance");
	test_cli_out o = conform(NULL, (const char *const[]){ "--jobs", "2", "--test-inject-crash",
							      "host-only", "tests/conformance", NULL });
	cr_expect_eq(o.status, 1, "%s", o.out);
	char *want = g_strdup_printf("SUMMARY: %zu cases: %zu pass, 0 fail, 1 crashed, 0 timed out, "
				     "0 unavailable, 0 not observable\n", n, n - 1);
	cr_expect(g_str_has_suffix(o.out, want), "%s", o.out);
	cr_expect(strstr(o.out, "CRASH   tests/conformance/host-only.chain: crashed: killed by "
				"signal 11 (SIGSEGV)"), "%s", o.out);
	g_free(want);
	test_cli_free(&o);
}

/* One worker runs many cases; one that dies with its case is replaced, and
 * the cases after it still run, on one job as on two. */
Test(conform, a_crashed_worker_is_replaced_and_the_rest_run)
{
	size_t n = count_chain_files("tests/conformance");
	const char *jobs[] = { "1", "2" };
	for (size_t j = 0; j < 2; j++) {
		test_cli_out o = conform(NULL, (const char *const[]){ "--jobs", jobs[j],
								      "--test-inject-crash", "-pcas",
								      "tests/conformance", NULL });
		size_t crashed = 0;
		for (const char *p = o.out; (p = strstr(p, "CRASH   ")); p++)
			crashed++;
		cr_expect_geq(crashed, 4, "%s", o.out);
		char *want = g_strdup_printf("SUMMARY: %zu cases: %zu pass, 0 fail, %zu crashed, "
					     "0 timed out, 0 unavailable, 0 not observable\n", n, n - crashed, crashed);
		cr_expect(g_str_has_suffix(o.out, want), "--jobs %s: %s", jobs[j], o.out);
		g_free(want);
		test_cli_free(&o);
	}
}

/* --isolate (a fresh process per case) reports what the reused workers do. */
Test(conform, isolate_reports_the_same)
{
	test_cli_out a = conform(NULL, (const char *const[]){ "--jobs", "2", "tests/conformance", NULL });
	test_cli_out b = conform(NULL, (const char *const[]){ "--jobs", "2", "--isolate",
							      "tests/conformance", NULL });
	cr_expect_eq(a.status, 0, "%s", a.out);
	cr_expect_eq(b.status, 0, "%s", b.out);
	char *ta = without_times(a.out), *tb = without_times(b.out);
	cr_expect_str_eq(ta, tb);
	g_free(ta);
	g_free(tb);
	test_cli_free(&a);
	test_cli_free(&b);
}

Test(conform, a_hang_times_out_and_costs_one_case)
{
	size_t n = count_chain_files("tests/conformance");
	gint64 t0 = g_get_monotonic_time();
	char *json = tmp_path("hang.json");
	test_cli_out o = conform(NULL, (const char *const[]){ "--jobs", "2", "--timeout", "1",
							      "--test-inject-hang", "deadlock",
							      "--json", json, "tests/conformance", NULL });
	double took = (double)(g_get_monotonic_time() - t0) / 1e6;
	cr_expect_eq(o.status, 1, "%s", o.out);
	char *want = g_strdup_printf("SUMMARY: %zu cases: %zu pass, 0 fail, 0 crashed, 1 timed out, "
				     "0 unavailable, 0 not observable\n", n, n - 1);
	cr_expect(g_str_has_suffix(o.out, want), "%s", o.out);
	cr_expect(strstr(o.out, "TIMEOUT tests/conformance/deadlock.chain: timed out after"), "%s",
		  o.out);
	cr_expect(took < 30, "the hang held the run for %.1f s", took);
	gchar *text = NULL;
	cr_assert(g_file_get_contents(json, &text, NULL, NULL));
	cr_expect(strstr(text, "\"outcome\" : \"timeout\""), "%s", text);
	g_free(text);
	g_unlink(json);
	g_free(json);
	g_free(want);
	test_cli_free(&o);
}

Test(conform, json_has_time_and_peak_memory_per_case_and_junit_renders)
{
	char *json = tmp_path("r.json"), *xml = tmp_path("r.xml");
	test_cli_out o = conform(NULL, (const char *const[]){ "--json", json, "--junit", xml,
							      "--test-inject-crash", "grid-fault",
							      "--filter", "grid-", "tests/conformance", NULL });
	cr_expect_eq(o.status, 1, "%s", o.out);
	JsonParser *p = json_parser_new();
	cr_assert(json_parser_load_from_file(p, json, NULL));
	JsonObject *root = json_node_get_object(json_parser_get_root(p));
	JsonArray *cases = json_object_get_array_member(root, "cases");
	cr_assert_eq(json_array_get_length(cases), 2);
	for (guint i = 0; i < 2; i++) {
		JsonObject *c = json_array_get_object_element(cases, i);
		cr_expect(json_object_get_double_member(c, "seconds") > 0);
		cr_expect(json_object_get_int_member(c, "peak_rss_kib") > 0);
	}
	cr_expect(json_object_get_boolean_member(root, "complete"));
	g_object_unref(p);
	gchar *text = NULL;
	cr_assert(g_file_get_contents(xml, &text, NULL, NULL));
	cr_expect(strstr(text, "<testsuites name=\"chainsim conform\" tests=\"2\" failures=\"0\" "
			       "errors=\"1\" skipped=\"0\""), "%s", text);
	cr_expect(strstr(text, "name=\"grid-fault.chain\""), "%s", text);
	cr_expect(strstr(text, "<error type=\"crashed\" message=\"crashed: killed by signal 11"),
		  "%s", text);
	/* well-formed XML */
	GMarkupParser mp = { 0 };
	GMarkupParseContext *ctx = g_markup_parse_context_new(&mp, 0, NULL, NULL);
	GError *err = NULL;
	cr_expect(g_markup_parse_context_parse(ctx, text, -1, &err) &&
			  g_markup_parse_context_end_parse(ctx, &err),
		  "%s", err ? err->message : "");
	g_markup_parse_context_free(ctx);
	g_free(text);
	g_unlink(json);
	g_unlink(xml);
	g_free(json);
	g_free(xml);
	test_cli_free(&o);
}

Test(conform, run_lines_are_honoured_and_unknown_ones_refused)
{
	/* no-exec-stage8 expects stage 9 not to fire: it passes only with its
	 * `# run: --no-exec` */
	test_cli_out o = conform(NULL, (const char *const[]){ "tests/conformance/no-exec-stage8.chain",
							      NULL });
	cr_expect_eq(o.status, 0, "%s", o.out);
	test_cli_free(&o);
	char *src = g_build_filename(getenv("CHAINSIM_SOURCE_ROOT"), "tests", "conformance",
				     "no-exec-stage8.chain", NULL);
	gchar *text = NULL;
	cr_assert(g_file_get_contents(src, &text, NULL, NULL));
	char *tmpdir = sibling_dir();
	char *bad = g_build_filename(tmpdir, "badrun.chain", NULL);
	char *edited = g_strdup(text);
	char *at = strstr(edited, "# run: --no-exec");
	cr_assert(at);
	memcpy(at, "# run: --no-exe ", 16);
	cr_assert(g_file_set_contents(bad, edited, -1, NULL));
	o = conform(NULL, (const char *const[]){ bad, NULL });
	g_unlink(bad);
	g_rmdir(tmpdir);
	g_free(tmpdir);
	cr_expect_eq(o.status, 1, "%s", o.out);
	cr_expect(strstr(o.out, ".chain:3: '# run:' option '--no-exe' is not one conform knows"),
		  "%s", o.out);
	test_cli_free(&o);
	g_free(bad);
	g_free(edited);
	g_free(text);
	g_free(src);
}

/* two-launches expects its second launch stopped at the budget: it passes
 * only with its `# run: --budget-instructions=6000`; a bad value is refused. */
Test(conform, run_lines_set_the_executor_budget_and_threads)
{
	test_cli_out o = conform(NULL, (const char *const[]){ "--jobs", "2",
							      "tests/sim/budget/two-launches.chain",
							      "tests/sim/budget/grid-budget.chain", NULL });
	cr_expect_eq(o.status, 0, "%s", o.out);
	cr_expect(strstr(o.out, "SUMMARY: 2 cases: 2 pass"), "%s", o.out);
	test_cli_free(&o);
	char *src = g_build_filename(getenv("CHAINSIM_SOURCE_ROOT"), "tests", "sim", "budget",
				     "two-launches.chain", NULL);
	gchar *text = NULL;
	cr_assert(g_file_get_contents(src, &text, NULL, NULL));
	char *dir = g_strdup_printf("%s/tests/sim/budget/tmp-%d", getenv("CHAINSIM_SOURCE_ROOT"),
				    (int)getpid());
	cr_assert(g_mkdir_with_parents(dir, 0700) == 0);
	char *bad = g_build_filename(dir, "badbudget.chain", NULL);
	GString *edited = g_string_new(text);
	g_string_replace(edited, "# run: --budget-instructions=6000",
			 "# run: --threads=2 --budget-instructions=0", 1);
	cr_assert(g_file_set_contents(bad, edited->str, -1, NULL));
	o = conform(NULL, (const char *const[]){ bad, NULL });
	g_unlink(bad);
	g_rmdir(dir);
	cr_expect_eq(o.status, 1, "%s", o.out);
	cr_expect(strstr(o.out, "'# run:' option '--budget-instructions=0' is not one conform knows"),
		  "%s", o.out);
	test_cli_free(&o);
	g_string_free(edited, TRUE);
	g_free(bad);
	g_free(dir);
	g_free(text);
	g_free(src);
}

Test(conform, a_case_without_expect_is_refused)
{
	char *src = g_build_filename(getenv("CHAINSIM_SOURCE_ROOT"), "tests", "conformance",
				     "host-only.chain", NULL);
	gchar *text = NULL;
	cr_assert(g_file_get_contents(src, &text, NULL, NULL));
	GString *kept = g_string_new(NULL);
	gchar **lines = g_strsplit(text, "\n", -1);
	for (gchar **l = lines; *l; l++)
		if (!g_str_has_prefix(*l, "expect "))
			g_string_append_printf(kept, "%s\n", *l);
	char *tmpdir = sibling_dir();
	char *bare = g_build_filename(tmpdir, "noexpect.chain", NULL);
	cr_assert(g_file_set_contents(bare, kept->str, -1, NULL));
	test_cli_out o = conform(NULL, (const char *const[]){ bare, NULL });
	g_unlink(bare);
	g_rmdir(tmpdir);
	g_free(tmpdir);
	cr_expect_eq(o.status, 1, "%s", o.out);
	cr_expect(strstr(o.out, "refused: no expect line"), "%s", o.out);
	test_cli_free(&o);
	g_free(bare);
	g_strfreev(lines);
	g_string_free(kept, TRUE);
	g_free(text);
	g_free(src);
}

Test(conform, never_green_on_nothing)
{
	test_cli_out o = conform(NULL, (const char *const[]){ "--filter", "no-such-case",
							      "tests/conformance", NULL });
	cr_expect_eq(o.status, 2);
	cr_expect(strstr(o.err, "no case selected"), "%s", o.err);
	test_cli_free(&o);
	char *empty = tmp_path("empty");
	g_mkdir(empty, 0700);
	o = conform(NULL, (const char *const[]){ empty, NULL });
	g_rmdir(empty);
	g_free(empty);
	cr_expect_eq(o.status, 2);
	test_cli_free(&o);
	o = conform(NULL, (const char *const[]){ "--filter", "(", "tests/conformance", NULL });
	cr_expect_eq(o.status, 2);
	cr_expect(strstr(o.err, "--filter '('"), "%s", o.err);
	test_cli_free(&o);
	/* every case unavailable: 3 even when unavailable is allowed */
	o = conform(NULL, (const char *const[]){ "--backend", "hw", "--allow-unavailable",
						 "--filter", "grid-", "tests/conformance", NULL });
	cr_expect_eq(o.status, 3, "%s", o.out);
	cr_expect(strstr(o.out, "SUMMARY: 2 cases: 0 pass, 0 fail, 0 crashed, 0 timed out, "
				"2 unavailable"), "%s", o.out);
	test_cli_free(&o);
}

Test(conform, unavailable_and_unobservable_fail_unless_allowed)
{
	conform_summary s = { .cases = 3, .pass = 2, .unavailable = 1 };
	cr_expect_eq(conform_exit_status(&s, false, false), 1);
	cr_expect_eq(conform_exit_status(&s, true, false), 0);
	conform_summary none = { 0 };
	cr_expect_eq(conform_exit_status(&none, true, false), 2);
	conform_summary crash = { .cases = 3, .pass = 2, .crashed = 1 };
	cr_expect_eq(conform_exit_status(&crash, true, false), 1);
	conform_summary unobs = { .cases = 3, .pass = 2, .unobservable = 1 };
	cr_expect_eq(conform_exit_status(&unobs, true, false), 1);
	cr_expect_eq(conform_exit_status(&unobs, false, true), 0);
}

/* Runs shard k of n with its JSON in dir; returns the JSON's path. */
static char *run_shard(const char *dir, unsigned k, unsigned n)
{
	char *json = g_strdup_printf("%s/shard-%u.json", dir, k);
	char *sh = g_strdup_printf("%u/%u", k, n);
	test_cli_out o = conform(NULL, (const char *const[]){ "--shard", sh, "--json", json,
							      "tests/conformance", NULL });
	cr_expect_eq(o.status, 0, "%s%s", o.out, o.err);
	test_cli_free(&o);
	g_free(sh);
	return json;
}

static test_cli_out merge(const char *const *files)
{
	GPtrArray *a = g_ptr_array_new();
	g_ptr_array_add(a, (gpointer) "merge");
	for (; *files; files++)
		g_ptr_array_add(a, (gpointer)*files);
	g_ptr_array_add(a, NULL);
	test_cli_out o = conform(NULL, (const char *const *)a->pdata);
	g_ptr_array_free(a, TRUE);
	return o;
}

#if !defined(__SANITIZE_ADDRESS__)
/* A shard within the 16 MiB cap may name 2 M cases (1.6 GB of cases to
 * join): under a memory limit the merge names the allocation that failed and
 * exits 4. Memory is capped with RLIMIT_AS in a child (not under ASan, which
 * reserves terabytes of shadow). */
Test(conform, merge_names_a_failed_allocation, .timeout = 120)
{
	static const char alphabet[] =
		"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
	GString *s = g_string_new("{\"format\":\"chainsim-conform-1\",\"backend\":\"sim\","
				  "\"shard\":{\"index\":1,\"count\":1},\"filter\":null,"
				  "\"allow_unavailable\":false,\"allow_unobservable\":false,"
				  "\"complete\":true,\"cases\":[],\"selection\":[");
	for (unsigned i = 0; i < 2000000; i++)
		g_string_append_printf(s, "%s\"%c%c%c%c\"", i ? "," : "", alphabet[i % 62],
				       alphabet[i / 62 % 62], alphabet[i / 3844 % 62],
				       alphabet[i / 238328 % 62]);
	g_string_append(s, "]}");
	cr_assert_lt(s->len, 16u << 20);
	char *path = tmp_path("huge-shard.json");
	cr_assert(g_file_set_contents(path, s->str, (gssize)s->len, NULL));
	g_string_free(s, TRUE);
	char *exe = g_build_filename(getenv("CHAINSIM_BUILD_ROOT"), "tools", "chainsim", NULL);
	/* room for the shard's JSON tree, then for a part of its cases; then not
	 * for its tree */
	const unsigned limits_kib[] = { 524288, 65536 };
	const char *const named[] = { "out of memory for the cases (2000000 x ",
				      "huge-shard.json: out of memory for its JSON tree" };
	for (size_t k = 0; k < 2; k++) {
		char *cmd = g_strdup_printf("ulimit -v %u; exec '%s' conform merge '%s'",
					    limits_kib[k], exe, path);
		const char *argv[] = { "sh", "-c", cmd, NULL };
		char *out = NULL, *err = NULL;
		int ws = 0;
		cr_assert(g_spawn_sync(NULL, (char **)argv, NULL, G_SPAWN_SEARCH_PATH, NULL, NULL,
				       &out, &err, &ws, NULL));
		cr_expect(WIFEXITED(ws) && WEXITSTATUS(ws) == 4, "%u KiB: status 0x%x: %s",
			  limits_kib[k], ws, err);
		cr_expect(strstr(err, named[k]), "%u KiB: %s", limits_kib[k], err);
		g_free(out);
		g_free(err);
		g_free(cmd);
	}
	g_unlink(path);
	g_free(exe);
	g_free(path);
}
#endif

Test(conform, shards_partition_the_selection_and_merge_checks_them)
{
	size_t n = count_chain_files("tests/conformance");
	char *dir = tmp_path("shards");
	g_mkdir(dir, 0700);
	char *s1 = run_shard(dir, 1, 3), *s2 = run_shard(dir, 2, 3), *s3 = run_shard(dir, 3, 3);
	char *merged = g_strdup_printf("%s/merged.json", dir);
	test_cli_out o = merge((const char *const[]){ s3, s1, "--json", merged, s2, NULL });
	cr_expect_eq(o.status, 0, "%s%s", o.out, o.err);
	char *want = g_strdup_printf("SUMMARY: %zu cases: %zu pass, 0 fail, 0 crashed, 0 timed out, "
				     "0 unavailable, 0 not observable\n", n, n);
	cr_expect_str_eq(o.out, want);
	test_cli_free(&o);

	o = merge((const char *const[]){ s1, s3, NULL });
	cr_expect_eq(o.status, 2);
	cr_expect(strstr(o.err, "shard 2/3 is missing"), "%s", o.err);
	test_cli_free(&o);
	o = merge((const char *const[]){ s1, s2, s2, s3, NULL });
	cr_expect_eq(o.status, 2);
	cr_expect(strstr(o.err, "shard 2/3 given twice"), "%s", o.err);
	test_cli_free(&o);
	/* a shard that died before writing, or mid-write */
	char *gone = g_strdup_printf("%s/never.json", dir);
	o = merge((const char *const[]){ s1, s2, gone, NULL });
	cr_expect_eq(o.status, 2);
	cr_expect(strstr(o.err, "never.json"), "%s", o.err);
	test_cli_free(&o);
	gchar *text = NULL;
	gsize len = 0;
	cr_assert(g_file_get_contents(s3, &text, &len, NULL));
	cr_assert(g_file_set_contents(s3, text, (gssize)(len / 2), NULL));
	o = merge((const char *const[]){ s1, s2, s3, NULL });
	cr_expect_eq(o.status, 2);
	cr_expect(strstr(o.err, "the shard crashed"), "%s", o.err);
	/* cut in half: the message says where the text stops being JSON */
	cr_expect(strstr(o.err, "line ") && strstr(o.err, ", column "), "%s", o.err);
	test_cli_free(&o);
	/* past the 16 MiB cap (white space after the JSON): refused before it is parsed */
	GString *big = g_string_new(text);
	g_string_set_size(big, (16u << 20) + 1);
	memset(big->str + len, ' ', big->len - len);
	cr_assert(g_file_set_contents(s3, big->str, (gssize)big->len, NULL));
	g_string_free(big, TRUE);
	o = merge((const char *const[]){ s1, s2, s3, NULL });
	cr_expect_eq(o.status, 2);
	cr_expect(strstr(o.err, "shard-3.json") && strstr(o.err, "16777216"), "%s", o.err);
	test_cli_free(&o);
	cr_assert(g_file_set_contents(s3, text, (gssize)len, NULL));
	/* shard 2's cases again, labelled shard 3: run twice */
	gchar *t2 = NULL;
	cr_assert(g_file_get_contents(s2, &t2, NULL, NULL));
	char *sh = strstr(t2, "\"index\" : 2");
	cr_assert(sh);
	sh[10] = '3';
	char *s2b = g_strdup_printf("%s/shard-2b.json", dir);
	cr_assert(g_file_set_contents(s2b, t2, -1, NULL));
	o = merge((const char *const[]){ s1, s2, s2b, NULL });
	cr_expect_eq(o.status, 2);
	cr_expect(strstr(o.err, "ran twice"), "%s", o.err);
	test_cli_free(&o);
	g_free(t2);
	/* shard 3 without its first case: that case ran nowhere */
	JsonParser *p = json_parser_new();
	cr_assert(json_parser_load_from_file(p, s3, NULL));
	JsonObject *root = json_node_get_object(json_parser_get_root(p));
	JsonArray *ca = json_object_get_array_member(root, "cases");
	const char *lost = json_object_get_string_member(json_array_get_object_element(ca, 0),
							 "path");
	char *want_lost = g_strdup_printf("case %s was not run by any shard", lost);
	json_array_remove_element(ca, 0);
	JsonGenerator *g = json_generator_new();
	json_generator_set_root(g, json_parser_get_root(p));
	cr_assert(json_generator_to_file(g, s2b, NULL));
	g_object_unref(g);
	g_object_unref(p);
	o = merge((const char *const[]){ s1, s2, s2b, NULL });
	cr_expect_eq(o.status, 2);
	cr_expect(strstr(o.err, want_lost), "%s", o.err);
	test_cli_free(&o);
	g_free(want_lost);
	o = merge((const char *const[]){ merged, s1, NULL });
	cr_expect_eq(o.status, 2, "%s", o.err);
	test_cli_free(&o);
	g_free(text);
	const char *files[] = { s1, s2, s3, s2b, merged };
	for (size_t i = 0; i < 5; i++)
		g_unlink(files[i]);
	g_rmdir(dir);
	g_free(s1);
	g_free(s2);
	g_free(s3);
	g_free(s2b);
	g_free(gone);
	g_free(merged);
	g_free(want);
	g_free(dir);
}

/* Which shard a process ran, from its JSON. */
static unsigned shard_of(const char *const *env, unsigned *count)
{
	char *json = tmp_path("auto.json");
	test_cli_out o = conform(env, (const char *const[]){ "--shard", "auto", "--json", json,
							     "tests/conformance", NULL });
	cr_assert_eq(o.status, 0, "%s%s", o.out, o.err);
	test_cli_free(&o);
	JsonParser *p = json_parser_new();
	cr_assert(json_parser_load_from_file(p, json, NULL));
	JsonObject *sh = json_object_get_object_member(
		json_node_get_object(json_parser_get_root(p)), "shard");
	unsigned k = (unsigned)json_object_get_int_member(sh, "index");
	*count = (unsigned)json_object_get_int_member(sh, "count");
	g_object_unref(p);
	g_unlink(json);
	g_free(json);
	return k;
}

Test(conform, shard_auto_reads_slurm_kubernetes_and_ci)
{
	unsigned n = 0;
	cr_expect_eq(shard_of((const char *const[]){ "SLURM_ARRAY_TASK_ID", "1",
						     "SLURM_ARRAY_TASK_COUNT", "4", NULL },
			      &n), 2);
	cr_expect_eq(n, 4);
	cr_expect_eq(shard_of((const char *const[]){ "SLURM_ARRAY_TASK_ID", "4",
						     "SLURM_ARRAY_TASK_MIN", "1",
						     "SLURM_ARRAY_TASK_COUNT", "4", NULL },
			      &n), 4);
	cr_expect_eq(shard_of((const char *const[]){ "JOB_COMPLETION_INDEX", "0",
						     "CHAINSIM_SHARD_COUNT", "3", NULL },
			      &n), 1);
	cr_expect_eq(n, 3);
	cr_expect_eq(shard_of((const char *const[]){ "CHAINSIM_SHARD", "2/2", NULL }, &n), 2);
	test_cli_out o = conform(NULL, (const char *const[]){ "--shard", "auto", "tests/conformance",
							      NULL });
	cr_expect_eq(o.status, 2);
	cr_expect(strstr(o.err, "--shard auto: none of"), "%s", o.err);
	test_cli_free(&o);
	o = conform((const char *const[]){ "JOB_COMPLETION_INDEX", "2", NULL },
		    (const char *const[]){ "--shard", "auto", "tests/conformance", NULL });
	cr_expect_eq(o.status, 2);
	cr_expect(strstr(o.err, "CHAINSIM_SHARD_COUNT"), "%s", o.err);
	test_cli_free(&o);
}

Test(conform, progress_line_on_a_terminal_only)
{
	/* script(1) gives the run a terminal */
	char *script = g_find_program_in_path("script");
	if (!script)
		cr_skip_test("no script(1) here");
	char *exe = g_build_filename(getenv("CHAINSIM_BUILD_ROOT"), "tools", "chainsim", NULL);
	char *cmd = g_strdup_printf("%s conform --jobs 2 tests/conformance >/dev/null", exe);
	/* only what reaches the terminal is judged, not how script(1) exits */
	const test_cli_opts opts = { .program = script, .any_exit = true };
	test_cli_out o = test_cli_run_opts(getenv("CHAINSIM_SOURCE_ROOT"), &opts, NULL,
					   (const char *const[]){ "-qec", cmd, "/dev/null", NULL });
	cr_expect(strstr(o.out, "\r\033[K["), "no progress line on the terminal: %s", o.out);
	cr_expect(strstr(o.out, " elapsed"), "%s", o.out);
	test_cli_free(&o);
	g_free(cmd);
	g_free(exe);
	g_free(script);
}

/* A case whose expectations all held while its grid stopped at the budget was
 * not judged: it is its own outcome (UNOBS), counted in the SUMMARY, in the
 * JSON and JUnit, and it fails the run unless --allow-unobservable. A case
 * that names the stage it cannot judge (`expect stage 9 not-observable`)
 * passes. */
Test(conform, an_unobservable_case_fails_the_run_unless_allowed)
{
	char *tmpdir = sibling_dir();
	char *path = g_build_filename(tmpdir, "budget-stop.chain", NULL);
	const char *text = "# run: --budget-instructions=1000\n"
			   "arch hopper\n"
			   "module m ../../fixtures/kernels/out/vadd.nocompress.fatbin\n"
			   "alloc a 256\nalloc b 256\nalloc c 256\n"
			   "push pb\n  launch m.vadd grid=200000 block=1024 args=a,b,c,4 name=L\nend\n"
			   "gpfifo pb\nsubmit\nwait L.sem == 1\nexpect stage 8 fired\n";
	cr_assert(g_file_set_contents(path, text, -1, NULL));
	char *json = tmp_path("unobs.json"), *xml = tmp_path("unobs.xml");
	test_cli_out o = conform(NULL, (const char *const[]){ "--json", json, "--junit", xml, path,
							      "tests/conformance/"
							      "unobservable-budget-stop.chain", NULL });
	cr_expect_eq(o.status, 1, "%s", o.out);
	cr_expect(strstr(o.out, "UNOBS"), "%s", o.out);
	cr_expect(strstr(o.out, "not observable from stage 9 (gr-dispatch) [grid-budget]"), "%s",
		  o.out);
	cr_expect(strstr(o.out, "SUMMARY: 2 cases: 1 pass, 0 fail, 0 crashed, 0 timed out, "
				"0 unavailable, 1 not observable"), "%s", o.out);
	gchar *jt = NULL, *xt = NULL;
	cr_assert(g_file_get_contents(json, &jt, NULL, NULL));
	cr_expect(strstr(jt, "\"outcome\" : \"unobservable\""), "%s", jt);
	cr_expect(strstr(jt, "\"unobservable\" : 1"), "%s", jt);
	cr_assert(g_file_get_contents(xml, &xt, NULL, NULL));
	cr_expect(strstr(xt, "<skipped type=\"unobservable\""), "%s", xt);
	test_cli_free(&o);
	o = conform(NULL, (const char *const[]){ "--allow-unobservable", path, NULL });
	cr_expect_eq(o.status, 0, "%s", o.out);
	test_cli_free(&o);
	g_unlink(path);
	g_unlink(json);
	g_unlink(xml);
	g_rmdir(tmpdir);
	g_free(tmpdir);
	g_free(path);
	g_free(json);
	g_free(xml);
	g_free(jt);
	g_free(xt);
}

/* ---- --costs FILE ------------------------------------------------------ */

#define COSTS_HEADER "chainsim-conform-costs-1\n"

static void write_text(const char *path, const char *text, size_t len)
{
	cr_assert(g_file_set_contents(path, text, (gssize)len, NULL), "%s", path);
}

/* Cases without a cost first, then the longest first, ties in path order. */
Test(conform, the_costs_order_takes_unknown_cases_first_then_the_longest)
{
	char *file = tmp_path("order.costs");
	const char *text = COSTS_HEADER "0.5 p1\n2 p3\n0.5 p4\n9 elsewhere\n";
	write_text(file, text, strlen(text));
	conform_costs *c = NULL;
	char err[256] = "";
	cr_assert(conform_costs_read(file, &c, err, sizeof(err)), "%s", err);
	conform_case cases[5] = { { .path = "p0" }, { .path = "p1" }, { .path = "p2" },
				  { .path = "p3" }, { .path = "p4" } };
	uint32_t order[5];
	conform_costs_order(c, cases, 5, order);
	const uint32_t want[5] = { 0, 2, 3, 1, 4 };
	for (size_t i = 0; i < 5; i++)
		cr_expect_eq(order[i], want[i], "place %zu: case %u, not %u", i, order[i], want[i]);
	conform_costs_free(c);
	g_unlink(file);
	g_free(file);
}

/* Lines of the runner's stdout, each with the seconds since the start when it
 * came, through a pipe (a line is written when its case is settled). */
static size_t timed_lines(const char *args, char lines[][512], double *at, size_t max)
{
	char *cmd = g_strdup_printf("cd %s && %s/tools/chainsim conform --no-progress %s",
				    getenv("CHAINSIM_SOURCE_ROOT"), getenv("CHAINSIM_BUILD_ROOT"),
				    args);
	gint64 t0 = g_get_monotonic_time();
	FILE *p = popen(cmd, "r");
	cr_assert(p, "%s", cmd);
	size_t n = 0;
	while (n < max && fgets(lines[n], 512, p))
		at[n++] = (double)(g_get_monotonic_time() - t0) / 1e6;
	pclose(p);
	g_free(cmd);
	return n;
}

/* --jobs 1, a case that hangs until --timeout and one that passes at once:
 * the costs file names the hanging one the longest, so it is taken first and
 * the other is settled only after the timeout; the report stays in path
 * order, and the file is written back with this run's times. */
Test(conform, the_costs_file_takes_the_longest_case_first_and_keeps_path_order)
{
	char *dir = sibling_dir(), *rel = g_path_get_basename(dir);
	char *host = g_build_filename(getenv("CHAINSIM_SOURCE_ROOT"), "tests", "conformance",
				      "host-only.chain", NULL);
	gchar *text = NULL;
	gsize len = 0;
	cr_assert(g_file_get_contents(host, &text, &len, NULL));
	char *a = g_strdup_printf("%s/a.chain", dir), *z = g_strdup_printf("%s/z.chain", dir);
	write_text(a, text, len);
	write_text(z, text, len);
	char *costs = tmp_path("hang.costs");
	char *ctext = g_strdup_printf(COSTS_HEADER "0.000001 tests/%s/a.chain\n"
				      "9 tests/%s/z.chain\n", rel, rel);
	write_text(costs, ctext, strlen(ctext));
	char *args = g_strdup_printf("--jobs 1 --timeout 2 --test-inject-hang z.chain --costs %s "
				     "tests/%s", costs, rel);
	char lines[4][512];
	double at[4];
	size_t n = timed_lines(args, lines, at, 4);
	cr_assert_eq(n, 3, "%zu lines", n);
	char *pass = g_strdup_printf("PASS    tests/%s/a.chain (", rel);
	char *hung = g_strdup_printf("TIMEOUT tests/%s/z.chain: timed out", rel);
	cr_expect(g_str_has_prefix(lines[0], pass), "%s", lines[0]);
	cr_expect(g_str_has_prefix(lines[1], hung), "%s", lines[1]);
	cr_expect(at[0] >= 2.0, "a.chain was settled %.2f s in: before z.chain's timeout, so it "
		  "was taken first", at[0]);
	gchar *back = NULL;
	cr_assert(g_file_get_contents(costs, &back, NULL, NULL));
	char *as = g_strdup_printf(" tests/%s/a.chain\n", rel);
	char *zs = g_strdup_printf(" tests/%s/z.chain\n", rel), *zl = strstr(back, zs);
	cr_expect(g_str_has_prefix(back, COSTS_HEADER), "%s", back);
	cr_expect(strstr(back, as), "%s", back);
	cr_assert(zl, "%s", back);
	while (zl > back && zl[-1] != '\n')
		zl--;
	cr_expect(strtod(zl, NULL) >= 2.0, "z.chain's time written back: %s", back);
	g_unlink(a);
	g_unlink(z);
	g_rmdir(dir);
	g_unlink(costs);
	g_free(as);
	g_free(zs);
	g_free(back);
	g_free(pass);
	g_free(hung);
	g_free(args);
	g_free(ctext);
	g_free(costs);
	g_free(a);
	g_free(z);
	g_free(text);
	g_free(host);
	g_free(rel);
	g_free(dir);
}

/* The report's lines, times aside, are those of a run without --costs, even
 * with the cases taken in the reverse of path order. */
Test(conform, the_report_is_in_path_order_whatever_the_costs)
{
	test_cli_out plain = conform(NULL, (const char *const[]){ "--jobs", "2",
								  "tests/conformance", NULL });
	cr_assert_eq(plain.status, 0, "%s", plain.out);
	GString *rev = g_string_new(COSTS_HEADER);
	double s = 1;
	for (char *l = plain.out; (l = strstr(l, "tests/conformance/")); s += 1) {
		char *end = strstr(l, ".chain");
		g_string_append_printf(rev, "%.0f %.*s\n", s, (int)(end + 6 - l), l);
		l = end;
	}
	char *costs = tmp_path("reverse.costs");
	write_text(costs, rev->str, rev->len);
	test_cli_out o = conform(NULL, (const char *const[]){ "--jobs", "2", "--costs", costs,
							      "tests/conformance", NULL });
	cr_expect_eq(o.status, 0, "%s%s", o.out, o.err);
	char *ta = without_times(plain.out), *tb = without_times(o.out);
	cr_expect_str_eq(tb, ta, "the report depends on --costs");
	g_free(ta);
	g_free(tb);
	test_cli_free(&o);
	test_cli_free(&plain);
	g_unlink(costs);
	g_free(costs);
	g_string_free(rev, TRUE);
}

/* A run names only its own cases: the others keep their costs, and a file that
 * does not exist is made. */
Test(conform, the_costs_file_is_written_back_keeping_the_cases_not_run)
{
	char *costs = tmp_path("back.costs");
	g_unlink(costs);
	test_cli_out o = conform(NULL, (const char *const[]){ "--costs", costs,
							      "tests/conformance/host-only.chain",
							      NULL });
	cr_expect_eq(o.status, 0, "%s%s", o.out, o.err);
	test_cli_free(&o);
	gchar *back = NULL;
	cr_assert(g_file_get_contents(costs, &back, NULL, NULL), "a missing file is made");
	GRegex *re = g_regex_new("^" COSTS_HEADER "[0-9]+\\.[0-9]{6} "
				 "tests/conformance/host-only.chain\n$", 0, 0, NULL);
	cr_expect(g_regex_match(re, back, 0, NULL), "%s", back);
	g_free(back);
	const char *old = COSTS_HEADER "3 tests/conformance/host-only.chain\n"
				       "7.5 other-shard/x.chain\n";
	write_text(costs, old, strlen(old));
	o = conform(NULL, (const char *const[]){ "--costs", costs,
						 "tests/conformance/host-only.chain", NULL });
	cr_expect_eq(o.status, 0, "%s%s", o.out, o.err);
	cr_assert(g_file_get_contents(costs, &back, NULL, NULL));
	g_regex_unref(re);
	re = g_regex_new("^" COSTS_HEADER "7\\.500000 other-shard/x.chain\n"
			 "0\\.[0-9]{6} tests/conformance/host-only.chain\n$", 0, 0, NULL);
	cr_expect(g_regex_match(re, back, 0, NULL), "%s", back);
	g_regex_unref(re);
	g_free(back);
	test_cli_free(&o);
	g_unlink(costs);
	g_free(costs);
}

/* A costs file that is not one is refused before any case runs, naming its
 * line, and is left as it was; one past the 16 MiB cap, or not a regular
 * file, is refused unread. */
Test(conform, a_malformed_costs_file_is_refused_with_its_line_and_kept)
{
	static const struct {
		const char *text;
		size_t len; /* 0: strlen */
		const char *why;
	} bad[] = {
		{ "", 0, ":1: not a costs file" },
		{ "chainsim-conform-costs-2\n0.5 a\n", 0, ":1: not a costs file" },
		{ COSTS_HEADER "0.5\n", 0, ":2: '0.5' is not 'SECONDS PATH'" },
		{ COSTS_HEADER "0.5 a\n-1 b\n", 0, ":3: '-1 b' is not" },
		{ COSTS_HEADER "nan a\n", 0, ":2: 'nan a' is not" },
		{ COSTS_HEADER "0x10 a\n", 0, ":2: '0x10 a' is not" },
		{ COSTS_HEADER "1e999 a\n", 0, ":2: '1e999 a' is not" },
		{ COSTS_HEADER "0.5 a\n0.25 b\n0.1 a\n", 0, ":4: case a named again (first on line 2)" },
		{ COSTS_HEADER "0.5 a", 0, ":2: the last line has no newline" },
		{ COSTS_HEADER "0.5 a\n0.5 a\0b\n", sizeof(COSTS_HEADER "0.5 a\n0.5 a\0b\n") - 1,
		  ":3: a NUL byte" },
	};
	char *costs = tmp_path("bad.costs");
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		size_t len = bad[i].len ? bad[i].len : strlen(bad[i].text);
		write_text(costs, bad[i].text, len);
		test_cli_out o = conform(NULL, (const char *const[]){ "--costs", costs,
								      "tests/conformance", NULL });
		char *want = g_strdup_printf("chainsim conform: --costs %s%s", costs, bad[i].why);
		cr_expect_eq(o.status, 2, "case %zu: %d", i, o.status);
		cr_expect(strstr(o.err, want), "case %zu: %s", i, o.err);
		cr_expect_str_eq(o.out, "", "case %zu: a case ran", i);
		gchar *after = NULL;
		gsize alen = 0;
		cr_assert(g_file_get_contents(costs, &after, &alen, NULL));
		cr_expect(alen == len && !memcmp(after, bad[i].text, len), "case %zu: rewritten", i);
		g_free(after);
		g_free(want);
		test_cli_free(&o);
	}
	char *big = g_malloc0((16u << 20) + 1);
	memcpy(big, COSTS_HEADER, strlen(COSTS_HEADER));
	write_text(costs, big, (16u << 20) + 1);
	g_free(big);
	const char *unread[] = { costs, "/dev/zero", "tests", NULL };
	const char *why[] = { "above the limit of 16777216", "a character device",
			      "a folder" };
	for (size_t i = 0; unread[i]; i++) {
		test_cli_out o = conform(NULL, (const char *const[]){ "--costs", unread[i],
								      "tests/conformance", NULL });
		cr_expect_eq(o.status, 2, "%s: %d", unread[i], o.status);
		cr_expect(strstr(o.err, why[i]), "%s: %s", unread[i], o.err);
		cr_expect_str_eq(o.out, "", "%s: a case ran", unread[i]);
		test_cli_free(&o);
	}
	g_unlink(costs);
	g_free(costs);
}

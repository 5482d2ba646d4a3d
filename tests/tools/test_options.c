/* SPDX-License-Identifier: MIT */
/* Every chainsim command's command line through getopt_long: --version,
 * --help, an option's value after '=' or as the next word, and '-' for
 * standard input wherever a file is read (held to the same caps); the
 * executor's options from their one table (tools/exec_options.def) in every
 * command that runs a scenario and in conform's `# run:` lines. */
#include <criterion/criterion.h>
#include <fcntl.h>
#include <glib.h>
#include <glib/gstdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "exec_options.h"

#define ARGS(...) ((const char *const[]){ __VA_ARGS__, NULL })

static void expect_version(const char *cmd)
{
	cli_result r = cmd ? cli_run(NULL, ARGS(cmd, "--version")) : cli_run(NULL, ARGS("--version"));
	cr_expect_eq(r.status, 0, "%s --version: %s", cmd ? cmd : "", r.err);
	cr_expect_str_eq(r.out, "chainsim " CHAINSIM_VERSION "\n");
	cli_result_free(&r);
}

static void expect_help(const char *cmd, const char *usage)
{
	cli_result r = cli_run(NULL, ARGS(cmd, "--help"));
	cr_expect_eq(r.status, 0, "%s --help: %s", cmd, r.err);
	cr_expect(g_str_has_prefix(r.out, usage), "%s --help: %s", cmd, r.out);
	cr_expect(strstr(r.out, "--version"), "%s --help names --version: %s", cmd, r.out);
	cli_result_free(&r);
}

static void expect_fails(cli_result r, int status, const char *needle)
{
	cr_expect_eq(r.status, status, "stderr: %s\nstdout: %s", r.err, r.out);
	cr_expect(strstr(r.err, needle), "wanted '%s' in: %s", needle, r.err);
	cli_result_free(&r);
}

/* A file of len bytes of 'x' (sparse holes read as NUL otherwise). */
static char *file_of(size_t len, const char *suffix)
{
	char *path = cli_tmp_path(suffix);
	char *bytes = g_malloc(len);
	memset(bytes, 'x', len);
	cr_assert(g_file_set_contents(path, bytes, (gssize)len, NULL));
	g_free(bytes);
	return path;
}

/* A file of len NUL bytes that takes no room on disk. */
static char *sparse_file(size_t len, const char *suffix)
{
	char *path = cli_tmp_path(suffix);
	int fd = open(path, O_CREAT | O_WRONLY | O_TRUNC, 0600);
	cr_assert(fd >= 0 && ftruncate(fd, (off_t)len) == 0);
	close(fd);
	return path;
}

Test(chainsim, version_and_help)
{
	expect_version(NULL);
	cli_result r = cli_run(NULL, ARGS("--help"));
	cr_expect_eq(r.status, 0);
	cr_expect(strstr(r.out, "chainsim --version"), "%s", r.out);
	cli_result_free(&r);
}

Test(run, version_help_and_bad_options)
{
	expect_version("run");
	expect_help("run", "usage: chainsim run FILE");
	expect_fails(cli_run(NULL, ARGS("run", "--frob", "host-only.chain")), 2,
		     "chainsim run: unknown option '--frob'");
	expect_fails(cli_run(NULL, ARGS("run", "--json=yes", "host-only.chain")), 2,
		     "'--json=yes': that option takes no value");
	expect_fails(cli_run(NULL, ARGS("run", "host-only.chain", "--trace")), 2,
		     "chainsim run: --trace needs a value");
	expect_fails(cli_run(NULL, ARGS("run", "--races", "sometimes", "host-only.chain")), 2,
		     "--races=sometimes: expected shared, global, error or off");
	expect_fails(cli_run(NULL, ARGS("run", "--results", "x", "host-only.chain")), 2,
		     "--results is for a capture, not a scenario");
}

Test(run, an_option_value_after_equals_or_as_the_next_word)
{
	for (int joined = 0; joined < 2; joined++) {
		char *trace = cli_tmp_path(".json");
		char *eq = g_strdup_printf("--trace=%s", trace);
		cli_result r = joined ? cli_run(NULL, ARGS("run", eq, "--races=global",
							   "--schedule=reverse", "host-only.chain"))
				      : cli_run(NULL, ARGS("run", "--trace", trace, "--races", "global",
							   "--schedule", "reverse", "host-only.chain"));
		cr_expect_eq(r.status, 0, "%s", r.err);
		cr_expect(g_file_test(trace, G_FILE_TEST_IS_REGULAR), "no trace from %s",
			  joined ? eq : "--trace FILE");
		cli_result_free(&r);
		g_unlink(trace);
		g_free(eq);
		g_free(trace);
	}
}

Test(run, a_scenario_and_a_capture_on_standard_input)
{
	char *scenario = cli_source_path("tests/conformance/host-only.chain");
	cli_result r = cli_run(scenario, ARGS("run", "-"));
	cr_expect_eq(r.status, 0, "%s", r.err);
	cr_expect(g_str_has_prefix(r.out, "<stdin>  blackwell  0 launches"), "%s", r.out);
	cli_result_free(&r);

	char *cap = cli_tmp_path(".cap");
	r = cli_run(NULL, ARGS("export", "host-only.chain", "-o", cap));
	cr_assert_eq(r.status, 0, "%s", r.err);
	cli_result_free(&r);
	r = cli_run(cap, ARGS("run", "--json", "-"));
	cr_expect_eq(r.status, 0, "%s", r.err);
	cr_expect(strstr(r.out, "\"file\" : \"<stdin>\""), "%s", r.out);
	cli_result_free(&r);
	expect_fails(cli_run(cap, ARGS("run", "-", "--trace-methods")), 2,
		     "--trace-methods is for a scenario, not a capture");
	g_unlink(cap);
	g_free(cap);
	g_free(scenario);
}

Test(run, standard_input_keeps_the_caps_and_locates_errors)
{
	char *big = file_of((16u << 20) + 1, ".chain");
	expect_fails(cli_run(big, ARGS("run", "-")), 2,
		     "<stdin>: cannot read the scenario: 16777217 bytes, above the limit of 16777216");
	g_unlink(big);
	g_free(big);
	char *bad = cli_tmp_path(".chain");
	cr_assert(g_file_set_contents(bad, "arch hopper\nfrobnicate\n", -1, NULL));
	expect_fails(cli_run(bad, ARGS("run", "-")), 2, "<stdin>:2:");
	g_unlink(bad);
	g_free(bad);
}

/* ---- the executor's options: one table, every command that runs a scenario ---- */

static char *export_capture(void);

/* A row as a word: --NAME, or --NAME=value for a row that takes one. */
static char *exec_word(const cs_exec_option *row, const char *value)
{
	return row->value ? g_strdup_printf("--%s=%s", row->name, value)
			  : g_strdup_printf("--%s", row->name);
}

/* Each row, with its example value, is taken by run and by a case's `# run:`
 * line; a bad value is refused by both, saying what the row expects. */
Test(exec_options, every_row_works_on_the_command_line_and_in_a_run_line)
{
	char *scenario = cli_source_path("tests/conformance/host-only.chain");
	gchar *text = NULL;
	cr_assert(g_file_get_contents(scenario, &text, NULL, NULL));
	char *cas = cli_tmp_path(".chain");
	for (size_t i = 0; i < CS_EXEC_COUNT; i++) {
		const cs_exec_option *row = &cs_exec_options[i];
		char *words[] = { exec_word(row, row->example),
				  row->value ? exec_word(row, "bogus") : g_strdup_printf("--%s=1", row->name) };
		cli_result r = cli_run(NULL, ARGS("run", words[0], "host-only.chain"));
		cr_expect_eq(r.status, 0, "run %s: %s", words[0], r.err);
		cli_result_free(&r);
		for (int bad = 0; bad < 2; bad++) {
			char *with = g_strdup_printf("# run: %s\n%s", words[bad], text);
			cr_assert(g_file_set_contents(cas, with, -1, NULL));
			r = cli_run(NULL, ARGS("conform", "--no-progress", cas));
			cr_expect_eq(r.status, bad, "# run: %s: %s", words[bad], r.out);
			char *refusal = g_strdup_printf("'# run:' option '%s' is not one conform knows",
							words[bad]);
			cr_expect(!bad || strstr(r.out, refusal), "# run: %s: %s", words[bad], r.out);
			cli_result_free(&r);
			g_free(refusal);
			g_free(with);
		}
		char *want = row->value ? g_strdup_printf("chainsim run: %s: expected %s", words[1],
							  row->expected)
					: g_strdup_printf("'%s': that option takes no value", words[1]);
		expect_fails(cli_run(NULL, ARGS("run", words[1], "host-only.chain")), 2, want);
		g_free(want);
		g_free(words[0]);
		g_free(words[1]);
	}
	g_unlink(cas);
	g_free(cas);
	g_free(text);
	g_free(scenario);
}

/* diff, reduce, conform, repl and battery take every row too, and list it in
 * their help. */
Test(exec_options, every_command_that_runs_a_scenario_takes_every_row)
{
	static const char *const commands[] = { "run", "diff", "reduce", "conform", "repl", "battery" };
	for (size_t c = 0; c < sizeof(commands) / sizeof(commands[0]); c++) {
		cli_result r = cli_run(NULL, ARGS(commands[c], "--help"));
		for (size_t i = 0; i < CS_EXEC_COUNT; i++) {
			char *name = g_strdup_printf("  --%s", cs_exec_options[i].name);
			cr_expect(strstr(r.out, name), "%s --help does not list %s", commands[c], name);
			g_free(name);
		}
		cli_result_free(&r);
	}
	for (size_t i = 0; i < CS_EXEC_COUNT; i++) {
		const cs_exec_option *row = &cs_exec_options[i];
		char *word = exec_word(row, row->example);
		cli_result r = cli_run(NULL, ARGS("diff", word, "host-only.chain", "host-only.chain"));
		cr_expect_eq(r.status, 0, "diff %s: %s", word, r.err);
		cli_result_free(&r);
		expect_fails(cli_run(NULL, ARGS("reduce", word, "host-only.chain", "--until=break any")),
			     1, "host-only.chain does not break that way");
		r = cli_run(NULL, ARGS("conform", "--no-progress", word, "host-only.chain"));
		cr_expect_eq(r.status, 0, "conform %s: %s", word, r.out);
		cli_result_free(&r);
		r = cli_run(NULL, ARGS("repl", word, "host-only.chain", "-ex", "continue"));
		cr_expect_eq(r.status, 0, "repl %s: %s", word, r.err);
		cr_expect(strstr(r.out, "the program ended"), "repl %s: %s", word, r.out);
		cli_result_free(&r);
		r = cli_run(NULL, ARGS("battery", "--only=VADD", word));
		cr_expect(r.status == 0 || r.status == 1, "battery %s: %s", word, r.err);
		cr_expect(strstr(r.out, "VADD n="), "battery %s: %s", word, r.out);
		cli_result_free(&r);
		g_free(word);
	}
}

/* The option reaches each command's runs: --races=error makes race-shared's
 * race a stage-9 break, a budget of one instruction stops the battery's
 * client. */
Test(exec_options, each_command_runs_its_scenarios_with_them)
{
	const char *race = "race-shared.chain";
	for (int on = 0; on < 2; on++) {
		const char *opt = on ? "--races=error" : "--races=shared";
		cli_result r = cli_run(NULL, ARGS("run", opt, race));
		cr_expect_eq(r.status, on, "run %s: %s", opt, r.out);
		cli_result_free(&r);
		r = cli_run(NULL, ARGS("conform", "--no-progress", opt, race));
		cr_expect_eq(r.status, on, "conform %s: %s", opt, r.out);
		cli_result_free(&r);
		r = cli_run(NULL, ARGS("diff", opt, race, race));
		cr_expect(strstr(r.out, on ? " 9  gr-dispatch     not-fired" : " 9  gr-dispatch     fired"),
			  "diff %s: %s", opt, r.out);
		cli_result_free(&r);
		r = cli_run(NULL, ARGS("reduce", race, opt, "--until", "break 9"));
		cr_expect_eq(r.status, on ? 0 : 1, "reduce %s: %s", opt, r.err);
		cli_result_free(&r);
		r = cli_run(NULL, ARGS("repl", race, opt, "-ex", "continue", "-ex", "why"));
		cr_expect(strstr(r.out, on ? "break at stage 9 (gr-dispatch)" : "chain complete"),
			  "repl %s: %s", opt, r.out);
		cli_result_free(&r);
	}
	/* a replay takes only the rows whose where names a capture */
	char *cap = export_capture();
	for (size_t i = 0; i < CS_EXEC_COUNT; i++) {
		const cs_exec_option *row = &cs_exec_options[i];
		char *word = exec_word(row, row->example);
		if (row->where & CS_EXEC_CAPTURE) {
			cli_result r = cli_run(NULL, ARGS("run", word, cap));
			cr_expect_eq(r.status, 0, "run %s CAPTURE: %s", word, r.err);
			cli_result_free(&r);
		} else {
			char *want = g_strdup_printf("--%s is for a scenario, not a capture", row->name);
			expect_fails(cli_run(NULL, ARGS("run", word, cap)), 2, want);
			expect_fails(cli_run(NULL, ARGS("diff", "--hw-results=x.results", word, cap)), 2,
				     want);
			g_free(want);
		}
		g_free(word);
	}
	g_unlink(cap);
	g_free(cap);
	cli_result r = cli_run(NULL, ARGS("battery", "--only=VADD", "--budget-instructions=1"));
	cr_expect_eq(r.status, 1, "%s", r.out);
	cr_expect(strstr(r.out, "VADD n=32768 bad=32768"), "%s", r.out);
	cli_result_free(&r);
}

/* conform's command line sets every case's options; a case's own `# run:`
 * line wins over it. two-launches passes only with a budget of 6000. */
Test(exec_options, a_case_run_line_wins_over_the_command_line)
{
	char *src = cli_source_path("tests/sim/budget/two-launches.chain");
	gchar *text = NULL;
	cr_assert(g_file_get_contents(src, &text, NULL, NULL));
	GString *bare = g_string_new(text);
	cr_assert(g_string_replace(bare, "# run: --budget-instructions=6000\n", "", 1) == 1);
	char *cas = cli_tmp_path(".chain");
	cr_assert(g_file_set_contents(cas, bare->str, -1, NULL));
	for (int given = 0; given < 2; given++) {
		/* standard input's paths resolve from the case's own folder */
		cli_result r = given ? cli_run_in("tests/sim/budget", cas,
						  ARGS("conform", "--no-progress",
						       "--budget-instructions=6000", "-"))
				     : cli_run_in("tests/sim/budget", cas,
						  ARGS("conform", "--no-progress", "-"));
		cr_expect_eq(r.status, given ? 0 : 1, "%s", r.out);
		cli_result_free(&r);
	}
	cli_result r = cli_run_in("tests/sim/budget", NULL,
				  ARGS("conform", "--no-progress", "--budget-instructions=100000000",
				       "two-launches.chain"));
	cr_expect_eq(r.status, 0, "%s", r.out);
	cli_result_free(&r);
	g_unlink(cas);
	g_free(cas);
	g_string_free(bare, TRUE);
	g_free(text);
	g_free(src);
}

/* The README's table of the executor options has a line for every row, and
 * docs/conform.md, which says what `# run:` takes, names every row. */
Test(exec_options, the_documents_name_every_row)
{
	char *readme_path = cli_source_path("README.md"), *conform_path = cli_source_path("docs/conform.md");
	gchar *readme = NULL, *conform = NULL;
	cr_assert(g_file_get_contents(readme_path, &readme, NULL, NULL));
	cr_assert(g_file_get_contents(conform_path, &conform, NULL, NULL));
	const char *table = strstr(readme, "### Executor options\n");
	cr_assert(table, "README.md has no section Executor options");
	const char *end = strstr(table + 1, "\n#");
	char *section = g_strndup(table, end ? (size_t)(end - table) : strlen(table));
	for (size_t i = 0; i < CS_EXEC_COUNT; i++) {
		char *line = g_strdup_printf("\n| `--%s", cs_exec_options[i].name);
		char *named = g_strdup_printf("`--%s", cs_exec_options[i].name);
		cr_expect(strstr(section, line), "README.md's executor options lack --%s",
			  cs_exec_options[i].name);
		cr_expect(strstr(conform, named), "docs/conform.md does not name --%s",
			  cs_exec_options[i].name);
		g_free(line);
		g_free(named);
	}
	g_free(section);
	g_free(readme);
	g_free(conform);
	g_free(readme_path);
	g_free(conform_path);
}

/* The .c and .h files under dir of the source tree (not below it), each read
 * whole and handed to fn with its path. */
static unsigned for_each_source_in(const char *dir, void (*fn)(const char *, const char *, void *),
				   void *ctx)
{
	char *path = cli_source_path(dir);
	GDir *d = g_dir_open(path, 0, NULL);
	cr_assert(d, "cannot list %s", path);
	unsigned n = 0;
	for (const char *e; (e = g_dir_read_name(d));) {
		if (!g_str_has_suffix(e, ".c") && !g_str_has_suffix(e, ".h"))
			continue;
		char *file = g_build_filename(path, e, NULL), *rel = g_build_filename(dir, e, NULL);
		gchar *text = NULL;
		cr_assert(g_file_get_contents(file, &text, NULL, NULL), "cannot read %s", file);
		fn(rel, text, ctx);
		n++;
		g_free(text);
		g_free(file);
		g_free(rel);
	}
	g_dir_close(d);
	g_free(path);
	return n;
}

/* A row's name spelled as a string of its own ("threads", "--threads=") is a
 * getopt entry or a word compared: a second parser. */
static void expect_no_option_names(const char *rel, const char *text, void *ctx)
{
	(void)ctx;
	if (g_str_has_suffix(rel, "exec_options.c"))
		return; /* the table's own reader */
	for (size_t i = 0; i < CS_EXEC_COUNT; i++) {
		char *re = g_strdup_printf("\"(--)?%s[=\"]", cs_exec_options[i].name);
		GMatchInfo *m = NULL;
		GRegex *rx = g_regex_new(re, 0, 0, NULL);
		cr_expect(!g_regex_match(rx, text, 0, &m), "%s spells the executor option %s itself: "
			  "read it from tools/exec_options.def", rel, cs_exec_options[i].name);
		g_match_info_free(m);
		g_regex_unref(rx);
		g_free(re);
	}
}

Test(exec_options, the_table_is_their_only_parser)
{
	unsigned n = for_each_source_in("tools", expect_no_option_names, NULL) +
		     for_each_source_in("tools/battery", expect_no_option_names, NULL);
	cr_expect_gt(n, 20, "only %u sources looked at", n);
}

/* Outside sim/ no code makes a device itself but the examples of the public
 * API: the commands, the fake RM and the test helpers run through sim/run.c. */
static void expect_no_device_new(const char *rel, const char *text, void *ctx)
{
	unsigned *calls = ctx;
	for (const char *p = text; (p = strstr(p, "cs_device_new(")); p++) {
		bool declaration = p - text >= 18 && !strncmp(p - 18, "CS_API cs_device *", 18);
		cr_expect(declaration, "%s calls cs_device_new: make the device with cs_run_device "
			  "or cs_run_scenario (sim/run.c)", rel);
		*calls += !declaration;
	}
}

Test(exec_options, devices_are_made_in_sim_only)
{
	static const char *const dirs[] = { "tools", "tools/battery", "hwfake", "hw", "repl",
					    "include/chainsim" };
	unsigned calls = 0, n = 0;
	for (size_t i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++)
		n += for_each_source_in(dirs[i], expect_no_device_new, &calls);
	cr_expect_gt(n, 60, "only %u sources looked at", n);
	char *run = cli_source_path("sim/run.c");
	gchar *text = NULL;
	cr_assert(g_file_get_contents(run, &text, NULL, NULL));
	cr_expect(strstr(text, "cs_device_new("), "sim/run.c makes the commands' devices");
	g_free(text);
	g_free(run);
}

static const char *const pb_file = "../scenario/cases/release_2a.pb";

Test(disasm, version_help_and_bad_options)
{
	expect_version("disasm");
	expect_help("disasm", "usage: chainsim disasm FILE");
	expect_fails(cli_run(NULL, ARGS("disasm", pb_file, "--arch")), 2,
		     "chainsim disasm: --arch needs a value");
	expect_fails(cli_run(NULL, ARGS("disasm", pb_file, "--arch=volta")), 2,
		     "--arch wants ampere, ada, hopper or blackwell, not 'volta'");
	expect_fails(cli_run(NULL, ARGS("disasm", "--arch=hopper", "--offset=-1", pb_file)), 2,
		     "--offset wants a byte count, not '-1'");
	expect_fails(cli_run(NULL, ARGS("disasm", "--arch=hopper", pb_file, pb_file)), 2,
		     "one FILE only");
}

Test(disasm, the_same_text_from_either_spelling_and_from_standard_input)
{
	cli_result spaced = cli_run(NULL, ARGS("disasm", pb_file, "--arch", "hopper", "--name",
					       "p", "--offset", "0", "--bind", "0=0xcbc0"));
	cr_assert_eq(spaced.status, 0, "%s", spaced.err);
	cli_result joined = cli_run(NULL, ARGS("disasm", "--arch=hopper", "--name=p", "--offset=0",
					       "--bind=0=0xcbc0", pb_file));
	cr_expect_eq(joined.status, 0, "%s", joined.err);
	cr_expect_str_eq(joined.out, spaced.out);
	char *pb = cli_source_path("tests/scenario/cases/release_2a.pb");
	cli_result piped = cli_run(pb, ARGS("disasm", "-", "--arch=hopper", "--name=p", "--offset=0",
					    "--bind=0=0xcbc0"));
	cr_expect_eq(piped.status, 0, "%s", piped.err);
	char *from_file = strchr(spaced.out, '\n'), *from_stdin = strchr(piped.out, '\n');
	/* the first line names the file the bytes came from */
	cr_expect(strstr(piped.out, "<stdin>"), "%s", piped.out);
	cr_expect_str_eq(from_stdin ? from_stdin : "", from_file ? from_file : "-");
	cli_result_free(&spaced);
	cli_result_free(&joined);
	cli_result_free(&piped);
	g_free(pb);
}

Test(disasm, standard_input_keeps_the_binary_cap)
{
	char *big = sparse_file((256u << 20) + 1, ".pb");
	expect_fails(cli_run(big, ARGS("disasm", "-", "--arch=hopper")), 2,
		     "<stdin>: the pushbuffer bytes: 268435457 bytes, above the limit of 268435456");
	g_unlink(big);
	g_free(big);
}

/* A capture of host-only.chain, exported with -o; g_free and unlink it. */
static char *export_capture(void)
{
	char *cap = cli_tmp_path(".cap");
	cli_result r = cli_run(NULL, ARGS("export", "host-only.chain", "-o", cap));
	cr_assert_eq(r.status, 0, "%s", r.err);
	cli_result_free(&r);
	return cap;
}

Test(export, version_help_and_bad_options)
{
	expect_version("export");
	expect_help("export", "usage: chainsim export SCENARIO -o FILE");
	expect_fails(cli_run(NULL, ARGS("export", "host-only.chain", "-o")), 2,
		     "chainsim export: -o needs a value");
	expect_fails(cli_run(NULL, ARGS("export", "host-only.chain", "--reed=x", "-o", "x")), 2,
		     "chainsim export: unknown option '--reed=x'");
	expect_fails(cli_run(NULL, ARGS("export", "host-only.chain", "host-only.chain", "-o", "x")),
		     2, "one scenario at a time");
}

Test(export, every_spelling_and_standard_input_and_output_write_the_same_capture)
{
	char *cap = export_capture(), *other = cli_tmp_path(".cap");
	gchar *want = NULL, *got = NULL;
	gsize want_len = 0, got_len = 0;
	cr_assert(g_file_get_contents(cap, &want, &want_len, NULL));
	cr_assert(g_str_has_prefix(want, "CHAINCAP"));
	char *long_eq = g_strdup_printf("--output=%s", other);
	char *scenario = cli_source_path("tests/conformance/host-only.chain");
	const char *const *runs[] = { ARGS("export", "--output", other, "host-only.chain"),
				      ARGS("export", long_eq, "host-only.chain"),
				      ARGS("export", "-", "-o", other) };
	for (size_t i = 0; i < 3; i++) {
		cli_result r = cli_run(scenario, runs[i]);
		cr_expect_eq(r.status, 0, "run %zu: %s", i, r.err);
		cr_assert(g_file_get_contents(other, &got, &got_len, NULL));
		cr_expect(got_len == want_len && !memcmp(got, want, want_len), "run %zu differs", i);
		g_free(got);
		g_unlink(other);
		cli_result_free(&r);
	}
	cli_result r = cli_run(NULL, ARGS("export", "host-only.chain", "-o", "-"));
	cr_expect_eq(r.status, 0, "%s", r.err);
	cr_expect(r.out_len == want_len && !memcmp(r.out, want, want_len), "-o - differs");
	cli_result_free(&r);
	g_unlink(cap);
	g_free(cap);
	g_free(other);
	g_free(want);
	g_free(long_eq);
	g_free(scenario);
}

Test(diff, version_help_and_either_input_from_standard_input)
{
	expect_version("diff");
	expect_help("diff", "usage: chainsim diff [--json] [EXECUTOR OPTIONS] A B\n"
			    "       chainsim diff [--json] [--rewrite-a FILE] [--rewrite-b FILE]\n"
			    "                     [EXECUTOR OPTIONS] SCENARIO\n"
			    "       chainsim diff --hw-results FILE [--no-exec] CAPTURE\n");
	char *cap = export_capture(), *results = cli_tmp_path(".results");
	char *results_eq = g_strdup_printf("--results=%s", results);
	cli_result r = cli_run(NULL, ARGS("run", cap, results_eq));
	cr_assert_eq(r.status, 0, "%s", r.err);
	cli_result_free(&r);
	char *hw_eq = g_strdup_printf("--hw-results=%s", results);
	r = cli_run(NULL, ARGS("diff", hw_eq, cap));
	cr_expect_eq(r.status, 0, "%s", r.err);
	cr_expect(strstr(r.out, "no divergence"), "%s", r.out);
	cli_result_free(&r);
	r = cli_run(cap, ARGS("diff", "--hw-results", results, "-"));
	cr_expect_eq(r.status, 0, "%s", r.err);
	cr_expect(strstr(r.out, "diff <stdin> (simulator) vs"), "%s", r.out);
	cli_result_free(&r);
	r = cli_run(results, ARGS("diff", cap, "--hw-results", "-"));
	cr_expect_eq(r.status, 0, "%s", r.err);
	cr_expect(strstr(r.out, "vs <stdin> (sim"), "%s", r.out);
	cli_result_free(&r);
	expect_fails(cli_run(cap, ARGS("diff", "--hw-results", "-", "-")), 2,
		     "standard input (-) can give the capture or the results, not both");
	expect_fails(cli_run(NULL, ARGS("diff", cap, "--hw-results")), 2,
		     "chainsim diff: --hw-results needs a value");
	g_unlink(cap);
	g_unlink(results);
	g_free(cap);
	g_free(results);
	g_free(results_eq);
	g_free(hw_eq);
}

Test(diff, two_scenarios_one_of_them_from_standard_input)
{
	char *good = g_build_filename(getenv("CHAINSIM_SOURCE_ROOT"), "tests", "sim", "diff",
				      "good.chain", NULL);
	/* standard input's paths resolve from the current directory: the case's own */
	cli_result r = cli_run_in("tests/sim/diff", good, ARGS("diff", "--json", "-", "good.chain"));
	cr_expect_eq(r.status, 0, "%s", r.err);
	cr_expect(strstr(r.out, "\"label\" : \"<stdin>\""), "%s", r.out);
	cli_result_free(&r);
	expect_fails(cli_run(good, ARGS("diff", "-", "-")), 2,
		     "standard input (-) can give A or B, not both");
	expect_fails(cli_run(NULL, ARGS("diff", "--json", "--hw-results=x", "y")), 2,
		     "needs two scenarios A B, one SCENARIO with --rewrite-a/--rewrite-b, or "
		     "--hw-results FILE and one CAPTURE");
	expect_fails(cli_run(good, ARGS("diff", "--rewrite-a", "-", "--rewrite-b", "-", good)), 2,
		     "standard input (-) can give --rewrite-a or --rewrite-b, not both");
	expect_fails(cli_run(NULL, ARGS("diff", "--rewrite-a", good, good, good)), 2,
		     "one file too many");
	expect_fails(cli_run(NULL, ARGS("diff", good, good, good)), 2, "one file too many");
	g_free(good);
}

Test(reduce, version_help_and_bad_options)
{
	expect_version("reduce");
	expect_help("reduce", "usage: chainsim reduce FILE --until");
	expect_fails(cli_run(NULL, ARGS("reduce", "x.chain", "--until")), 2,
		     "chainsim reduce: --until needs a value");
	expect_fails(cli_run(NULL, ARGS("reduce", "x.chain", "--frob")), 2,
		     "chainsim reduce: unknown option '--frob'");
	expect_fails(cli_run(NULL, ARGS("reduce", "--between", "x.chain")), 2,
		     "needs FILE --until GOAL, or --between GOOD BAD");
	expect_fails(cli_run(NULL, ARGS("reduce", "--between", "-", "-")), 2,
		     "standard input (-) can give GOOD or BAD, not both");
}

/* The scenario on standard input (its paths resolve from the current
 * directory) and the result on standard output, with either spelling. */
Test(reduce, standard_input_and_output_with_either_spelling)
{
	char *bad = g_build_filename(getenv("CHAINSIM_SOURCE_ROOT"), "tests", "sim", "reduce",
				     "schedule-dropped.chain", NULL);
	char *text = NULL;
	cr_assert(g_file_get_contents(bad, &text, NULL, NULL));
	char *fatbin = g_build_filename(getenv("CHAINSIM_SOURCE_ROOT"), "fixtures", "kernels",
					"out", "vadd.nocompress.fatbin", NULL);
	char **parts = g_strsplit(text, "../../../fixtures/kernels/out/vadd.nocompress.fatbin", 2);
	char *absolute = g_strjoin(fatbin, parts[0], parts[1], NULL);
	char *in = cli_tmp_path(".chain");
	cr_assert(g_file_set_contents(in, absolute, -1, NULL));
	cli_result a = cli_run(in, ARGS("reduce", "-", "--until=break 7", "-o", "-"));
	cr_expect_eq(a.status, 0, "%s", a.err);
	cr_expect(strstr(a.out, "reduced by chainsim reduce from <stdin>"), "%s", a.out);
	cli_result b = cli_run(NULL, ARGS("reduce", "--until", "break 7", in));
	cr_expect_eq(b.status, 0, "%s", b.err);
	cr_expect_str_eq(strchr(a.out, '\n'), strchr(b.out, '\n'), "the scenarios differ");
	cli_result_free(&a);
	cli_result_free(&b);
	g_unlink(in);
	g_free(in);
	g_free(absolute);
	g_strfreev(parts);
	g_free(fatbin);
	g_free(text);
	g_free(bad);
}

Test(conform, version_help_and_bad_options)
{
	expect_version("conform");
	expect_help("conform", "usage: chainsim conform [OPTIONS] PATH...");
	expect_fails(cli_run(NULL, ARGS("conform", "--jobs=0", ".")), 2,
		     "--jobs takes 1..1024, not '0'");
	expect_fails(cli_run(NULL, ARGS("conform", ".", "--filter")), 2,
		     "chainsim conform: --filter needs a value");
	expect_fails(cli_run(NULL, ARGS("conform", "merge", "--shard=1/2", "x.json")), 2,
		     "chainsim conform merge: --shard is for a run, not a merge");
	expect_fails(cli_run(NULL, ARGS("conform", "merge", "--version=2", "x.json")), 2,
		     "'--version=2': that option takes no value");
}

Test(conform, a_case_and_a_shard_result_from_standard_input)
{
	char *json = cli_tmp_path(".json"), *json_eq = g_strdup_printf("--json=%s", json);
	cli_result r = cli_run(NULL, ARGS("conform", "-j", "2", "--filter=^host-only",
					  "--no-progress", json_eq, "."));
	cr_expect_eq(r.status, 0, "%s", r.err);
	cr_expect(strstr(r.out, "PASS    host-only.chain"), "%s", r.out);
	cli_result_free(&r);
	r = cli_run(json, ARGS("conform", "merge", "-"));
	cr_expect_eq(r.status, 0, "%s", r.err);
	cr_expect(strstr(r.out, "SUMMARY: 1 cases: 1 pass"), "%s", r.out);
	cli_result_free(&r);
	expect_fails(cli_run(json, ARGS("conform", "merge", "-", "-")), 2,
		     "standard input (-) holds one result file, not 2");
	char *scenario = cli_source_path("tests/conformance/host-only.chain");
	r = cli_run(scenario, ARGS("conform", "--no-progress", "-"));
	cr_expect_eq(r.status, 0, "%s", r.err);
	cr_expect(strstr(r.out, "PASS    - "), "%s", r.out);
	cli_result_free(&r);
	/* its expectations are judged: one that fails fails the case, located */
	char *wrong = cli_tmp_path(".chain");
	gchar *text = NULL;
	cr_assert(g_file_get_contents(scenario, &text, NULL, NULL));
	char *broken = g_strconcat(text, "expect break 5\n", NULL);
	cr_assert(g_file_set_contents(wrong, broken, -1, NULL));
	r = cli_run(wrong, ARGS("conform", "--no-progress", "-"));
	cr_expect_eq(r.status, 1, "%s\n%s", r.out, r.err);
	cr_expect(strstr(r.out, "FAIL    -: <stdin>:"), "%s", r.out);
	cli_result_free(&r);
	expect_fails(cli_run(scenario, ARGS("conform", "-", ".", "-")), 2,
		     "standard input (-) holds one case, given twice");
	g_unlink(json);
	g_unlink(wrong);
	g_free(wrong);
	g_free(text);
	g_free(broken);
	g_free(json);
	g_free(json_eq);
	g_free(scenario);
}

Test(battery, version_help_options_and_a_bounded_read)
{
	expect_version("battery");
	expect_help("battery", "usage: chainsim battery");
	expect_fails(cli_run(NULL, ARGS("battery", "--arch=volta")), 2,
		     "unknown arch 'volta'");
	expect_fails(cli_run(NULL, ARGS("battery", "vadd.chain")), 2, "takes no FILE");
	cli_result r = cli_run(NULL, ARGS("battery", "--arch", "ampere", "--only=VADD"));
	cr_expect_eq(r.status, 0, "%s", r.err);
	cr_expect(strstr(r.out, "VADD n=") && strstr(r.out, "STATUS OK"), "%s", r.out);
	cli_result_free(&r);
	/* a client's scenario that is a FIFO is refused, not waited on, and the
	 * client fails (the battery's exit 1) */
	char *dir = cli_tmp_path(".battery");
	cr_assert(g_mkdir(dir, 0700) == 0);
	char *fifo = g_build_filename(dir, "vadd.chain", NULL);
	cr_assert(mkfifo(fifo, 0600) == 0);
	expect_fails(cli_run(NULL, ARGS("battery", "--only", "VADD", "--dir", dir)), 1,
		     "vadd.chain: the scenario: a FIFO, and only regular files are read");
	g_unlink(fifo);
	g_rmdir(dir);
	g_free(fifo);
	g_free(dir);
}

Test(repl, version_help_and_bad_options)
{
	expect_version("repl");
	expect_help("repl", "usage: chainsim repl FILE");
	expect_fails(cli_run(NULL, ARGS("repl", "../repl/pcas.chain", "-ex")), 2,
		     "chainsim repl: -ex needs a value");
	expect_fails(cli_run(NULL, ARGS("repl", "--frob", "../repl/pcas.chain")), 2,
		     "chainsim repl: unknown option '--frob'");
	char *chain = cli_source_path("tests/repl/pcas.chain");
	expect_fails(cli_run(chain, ARGS("repl", "-")), 2,
		     "the scenario is on standard input (-), so the commands must come from");
	expect_fails(cli_run(chain, ARGS("repl", "-", "--script=-")), 2,
		     "the scenario is on standard input (-), so the commands must come from");
	g_free(chain);
}

/* The committed transcript, through each spelling and through standard input. */
Test(repl, the_transcript_from_every_spelling_and_standard_input)
{
	char *script = cli_source_path("tests/repl/pcas.script");
	char *chain = cli_source_path("tests/repl/pcas.chain");
	char *expected_path = cli_source_path("tests/repl/pcas.expected");
	gchar *expected = NULL;
	cr_assert(g_file_get_contents(expected_path, &expected, NULL, NULL));
	char *script_eq = g_strdup_printf("--script=%s", script);
	cli_result runs[] = {
		cli_run_in("tests/repl", NULL, ARGS("repl", "pcas.chain", "--script", script)),
		cli_run_in("tests/repl", NULL, ARGS("repl", script_eq, "pcas.chain")),
		cli_run_in("tests/repl", script, ARGS("repl", "pcas.chain", "--script", "-")),
	};
	for (size_t i = 0; i < 3; i++) {
		cr_expect_eq(runs[i].status, 0, "run %zu: %s", i, runs[i].err);
		cr_expect_str_eq(runs[i].out, expected, "run %zu", i);
		cli_result_free(&runs[i]);
	}
	/* the scenario itself on standard input, kept for a restart */
	cli_result r = cli_run(chain, ARGS("repl", "-", "-ex", "step", "-ex", "restart",
					   "--ex=step"));
	cr_expect_eq(r.status, 0, "%s", r.err);
	cr_expect(g_str_has_prefix(r.out, "<stdin>: stopped before the first method"), "%s", r.out);
	/* the step after the restart answers as the first did */
	const char *first = strstr(r.out, "(chainsim) step\n");
	const char *again = g_strrstr(r.out, "(chainsim) step\n");
	cr_assert(first && again && first != again, "%s", r.out);
	char *first_line = g_strndup(first, strcspn(first + 16, "\n") + 16);
	char *again_line = g_strndup(again, strcspn(again + 16, "\n") + 16);
	cr_expect(strstr(first_line, "next: #2 "), "%s", r.out);
	cr_expect_str_eq(again_line, first_line);
	g_free(first_line);
	g_free(again_line);
	cli_result_free(&r);
	g_free(script);
	g_free(chain);
	g_free(expected_path);
	g_free(expected);
	g_free(script_eq);
}

#ifdef CS_HAVE_GSP
Test(gsp, version_help_and_bad_options)
{
	expect_version("gsp");
	expect_help("gsp", "usage: chainsim gsp FIRMWARE");
	const char *elf = "../../fixtures/firmware/gsp-fixture.elf";
	expect_fails(cli_run(NULL, ARGS("gsp", elf, "--raw-base=zz")), 2,
		     "chainsim gsp: --raw-base: 'zz' is not a number");
	expect_fails(cli_run(NULL, ARGS("gsp", elf, "-ex")), 2, "chainsim gsp: -ex needs a value");
	expect_fails(cli_run(NULL, ARGS("gsp", elf, "--image", elf)), 2, "more than one firmware");
	expect_fails(cli_run(NULL, ARGS("gsp", "-", "--map", "-", "-ex", "info map")), 2,
		     "standard input (-) can give one of the firmware, --map and --script");
	expect_fails(cli_run(NULL, ARGS("gsp", "-")), 2,
		     "not the firmware or the map of an interactive session");
}

/* The firmware, the map and the script each from standard input answer as
 * the files do, whichever way the options are spelled. */
Test(gsp, every_input_from_standard_input_and_both_spellings)
{
	const char *elf = "../../fixtures/firmware/gsp-fixture.elf";
	const char *map = "../../fixtures/firmware/gsp-fixture.map";
	char *elf_path = cli_source_path("fixtures/firmware/gsp-fixture.elf");
	char *map_path = cli_source_path("fixtures/firmware/gsp-fixture.map");
	char *script = cli_tmp_path(".gsp");
	cr_assert(g_file_set_contents(script, "break main\ninfo map\n", -1, NULL));
	char *map_eq = g_strdup_printf("--map=%s", map);
	cli_result want = cli_run(NULL, ARGS("gsp", elf, "--map", map, "-ex", "break main",
					     "-ex", "info map"));
	cr_assert_eq(want.status, 0, "%s", want.err);
	cr_expect(strstr(want.out, "breakpoint 1 at 0x80000936 <main>"), "%s", want.out);
	cli_result runs[] = {
		cli_run(NULL, ARGS("gsp", "--image", elf, map_eq, "--ex=break main", "--ex",
				   "info map")),
		cli_run(elf_path, ARGS("gsp", "-", "--map", map, "-ex", "break main", "-ex",
				       "info map")),
		cli_run(map_path, ARGS("gsp", elf, "--map", "-", "-ex", "break main", "-ex",
				       "info map")),
		cli_run(script, ARGS("gsp", elf, "--map", map, "--script=-")),
	};
	for (size_t i = 0; i < sizeof(runs) / sizeof(runs[0]); i++) {
		cr_expect_eq(runs[i].status, 0, "run %zu: %s", i, runs[i].err);
		cr_expect_str_eq(runs[i].out, want.out, "run %zu", i);
		cli_result_free(&runs[i]);
	}
	cli_result_free(&want);
	g_unlink(script);
	g_free(script);
	g_free(map_eq);
	g_free(elf_path);
	g_free(map_path);
}
#else
/* -Dgsp=disabled: the command is not there, and says so. */
Test(gsp, not_built)
{
	expect_fails(cli_run(NULL, ARGS("gsp", "--version")), 2, "chainsim: unknown command 'gsp'");
}
#endif

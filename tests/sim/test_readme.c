/* SPDX-License-Identifier: MIT */
/* The README's examples run verbatim from the repository root: every fenced
 * block that opens with `$ build/tools/chainsim ...` is run (the built binary
 * standing for build/tools/chainsim) and must judge (exit 0 or 1) and print
 * the block's first line and its verdict lines (the break, wrapped in the
 * README, joined here; "chain complete..."; "expectations: ..."); every
 * block that opens with `$ cat FILE` must be that file, byte for byte, and
 * a .chain file shown that way must run to its own expectations. */
#include <criterion/criterion.h>
#include <glib.h>
#include <json-glib/json-glib.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

typedef struct block {
	char *command;  /* the text after "$ " */
	GPtrArray *lines; /* the shown output, one line each (char *) */
	unsigned line;  /* where the block opens in README.md */
} block;

static const char *source_root(void)
{
	const char *src = getenv("CHAINSIM_SOURCE_ROOT");
	cr_assert_not_null(src, "run through meson test");
	return src;
}

/* The fenced blocks of README.md whose first line is a `$ ` command. */
static GPtrArray *readme_blocks(void)
{
	char *path = g_build_filename(source_root(), "README.md", NULL);
	char *text = NULL;
	cr_assert(g_file_get_contents(path, &text, NULL, NULL), "cannot read %s", path);
	char **lines = g_strsplit(text, "\n", -1);
	GPtrArray *blocks = g_ptr_array_new();
	block *cur = NULL;
	bool fenced = false, first = false;
	for (unsigned i = 0; lines[i]; i++) {
		const char *l = lines[i];
		if (g_str_has_prefix(l, "```")) {
			fenced = !fenced;
			first = fenced;
			if (!fenced && cur) {
				g_ptr_array_add(blocks, cur);
				cur = NULL;
			}
			continue;
		}
		if (!fenced)
			continue;
		if (first && g_str_has_prefix(l, "$ ")) {
			cur = g_new0(block, 1);
			cur->command = g_strdup(l + 2);
			cur->lines = g_ptr_array_new_with_free_func(g_free);
			cur->line = i + 1;
		} else if (first && g_str_has_prefix(l, "arch ")) {
			/* a scenario shown bare: its relative paths resolve nowhere */
			block *bare = g_new0(block, 1);
			bare->command = g_strdup("");
			bare->lines = g_ptr_array_new_with_free_func(g_free);
			bare->line = i + 1;
			g_ptr_array_add(blocks, bare);
		} else if (cur) {
			g_ptr_array_add(cur->lines, g_strdup(l));
		}
		first = false;
	}
	cr_assert_not(fenced, "README.md: a fence is never closed");
	g_strfreev(lines);
	g_free(text);
	g_free(path);
	return blocks;
}

/* Run `build/tools/chainsim ARGS` with the built binary. */
static test_cli_out run_chainsim(const char *command, unsigned line)
{
	char **argv = NULL;
	GError *err = NULL;
	cr_assert(g_shell_parse_argv(command, NULL, &argv, &err), "README.md:%u: '%s': %s", line,
		  command, err ? err->message : "?");
	cr_assert_str_eq(argv[0], "build/tools/chainsim", "README.md:%u", line);
	test_cli_out r = test_cli_run_opts(source_root(), NULL, NULL, (const char *const *)argv + 1);
	g_strfreev(argv);
	return r;
}

static bool has_line(char **out_lines, const char *want)
{
	for (size_t i = 0; out_lines[i]; i++)
		if (!strcmp(out_lines[i], want))
			return true;
	return false;
}

/* A wrapped README line ends where the next shown line opens a new part. */
static bool opens_part(const char *l)
{
	return !l[0] || g_str_has_prefix(l, "counters:") || g_str_has_prefix(l, "launch ") ||
	       g_str_has_prefix(l, "assumed:") || g_str_has_prefix(l, "expectations:") ||
	       g_str_has_prefix(l, "  line ") || g_str_has_prefix(l, "...");
}

static void check_chainsim_block(const block *b)
{
	test_cli_out r = run_chainsim(b->command, b->line);
	cr_expect(r.status == 0 || r.status == 1,
		  "README.md:%u: `%s` exited %d (it must judge the chain: 0 or 1)\nstderr: %s",
		  b->line, b->command, r.status, r.err);
	char **out = g_strsplit(r.out, "\n", -1);
	cr_assert_gt(b->lines->len, 0, "README.md:%u: no output shown", b->line);
	cr_expect_str_eq(out[0], (const char *)g_ptr_array_index(b->lines, 0),
			 "README.md:%u: the first line differs", b->line);
	unsigned verdicts = 0;
	for (guint i = 0; i < b->lines->len; i++) {
		const char *l = g_ptr_array_index(b->lines, i);
		if (g_str_has_prefix(l, "break at stage")) {
			GString *joined = g_string_new(l);
			while (i + 1 < b->lines->len &&
			       !opens_part(g_ptr_array_index(b->lines, i + 1)))
				g_string_append_printf(joined, " %s",
						       (const char *)g_ptr_array_index(b->lines, ++i));
			cr_expect(has_line(out, joined->str),
				  "README.md:%u: the break shown is not what `%s` prints:\n"
				  "shown:   %s\nprinted: %s",
				  b->line, b->command, joined->str, r.out);
			g_string_free(joined, TRUE);
			verdicts++;
		} else if (g_str_has_prefix(l, "chain complete") ||
			   g_str_has_prefix(l, "expectations:")) {
			cr_expect(has_line(out, l), "README.md:%u: `%s` does not print '%s':\n%s",
				  b->line, b->command, l, r.out);
			verdicts++;
		}
	}
	cr_expect_gt(verdicts, 0, "README.md:%u: the block shows no verdict line", b->line);
	g_strfreev(out);
	test_cli_free(&r);
}

static void check_cat_block(const block *b)
{
	const char *file = b->command + strlen("cat ");
	char *path = g_build_filename(source_root(), file, NULL);
	char *text = NULL;
	cr_assert(g_file_get_contents(path, &text, NULL, NULL), "README.md:%u: no file %s",
		  b->line, file);
	GString *shown = g_string_new(NULL);
	for (guint i = 0; i < b->lines->len; i++)
		g_string_append_printf(shown, "%s\n", (const char *)g_ptr_array_index(b->lines, i));
	cr_expect_str_eq(shown->str, text, "README.md:%u: the block is not %s as it is", b->line,
			 file);
	if (g_str_has_suffix(file, ".chain")) {
		/* the example runs from the repository root to its own expectations */
		char *cmd = g_strdup_printf("build/tools/chainsim run %s", file);
		test_cli_out r = run_chainsim(cmd, b->line);
		cr_expect_eq(r.status, 0, "README.md:%u: %s does not complete:\n%s%s", b->line, file,
			     r.out, r.err);
		test_cli_free(&r);
		g_free(cmd);
	}
	g_string_free(shown, TRUE);
	g_free(text);
	g_free(path);
}

Test(readme, examples_run_verbatim_from_the_repository_root)
{
	GPtrArray *blocks = readme_blocks();
	unsigned runs = 0, cats = 0;
	for (guint i = 0; i < blocks->len; i++) {
		block *b = g_ptr_array_index(blocks, i);
		if (g_str_has_prefix(b->command, "build/tools/chainsim ")) {
			check_chainsim_block(b);
			runs++;
		} else if (g_str_has_prefix(b->command, "cat ")) {
			check_cat_block(b);
			cats++;
		} else if (!b->command[0]) {
			cr_expect_fail("README.md:%u: a .chain example that is not shown as a file "
				       "of the repository (`$ cat FILE`): it cannot run verbatim",
				       b->line);
		} else {
			cr_expect_fail("README.md:%u: a `$ %s` block this test cannot check", b->line,
				       b->command);
		}
		g_free(b->command);
		g_ptr_array_free(b->lines, TRUE);
		g_free(b);
	}
	cr_expect_geq(runs, 2, "README.md: fewer chainsim examples than expected (%u)", runs);
	cr_expect_geq(cats, 1, "README.md: no scenario example shown as a file");
	g_ptr_array_free(blocks, TRUE);
}

/* The suites meson defines are the ones the README lists, and the nvcc rebuild
 * of the fixtures (minutes) is alone in its suite, so `--suite module` does
 * not run it and `--no-suite fixtures`, which the README shows, leaves it out. */
Test(readme, the_suites_are_listed_and_the_fixture_rebuild_has_its_own)
{
	const char *build = getenv("CHAINSIM_BUILD_ROOT");
	cr_assert_not_null(build, "run through meson test");
	char *path = g_build_filename(build, "meson-info", "intro-tests.json", NULL);
	JsonParser *p = json_parser_new();
	cr_assert(json_parser_load_from_file(p, path, NULL), "cannot read %s", path);
	char *readme = NULL;
	char *rpath = g_build_filename(source_root(), "README.md", NULL);
	cr_assert(g_file_get_contents(rpath, &readme, NULL, NULL));
	const char *list = strstr(readme, "--suite fe           # one: ");
	cr_assert(list, "the README lists no suites");
	const char *list_end = strstr(list, "\nmeson test -C build --no-suite fixtures  #");
	cr_assert(list_end, "the README does not show --no-suite fixtures after its list");
	char *shown = g_strndup(list, (gsize)(list_end - list));
	JsonArray *tests = json_node_get_array(json_parser_get_root(p));
	bool found = false;
	for (guint i = 0; i < json_array_get_length(tests); i++) {
		JsonObject *t = json_array_get_object_element(tests, i);
		JsonArray *suites = json_object_get_array_member(t, "suite");
		const char *name = json_object_get_string_member(t, "name");
		for (guint k = 0; k < json_array_get_length(suites); k++) {
			/* meson names a suite PROJECT:SUITE */
			const char *su = json_array_get_string_element(suites, k);
			const char *colon = strchr(su, ':');
			char *word = g_strdup_printf(" %s", colon ? colon + 1 : su);
			cr_expect(strstr(shown, word), "suite '%s' (of %s) is not in the README's list",
				  word + 1, name);
			g_free(word);
		}
		if (!strcmp(name, "module-fixtures-vs-sources") ||
		    !strcmp(name, "module-thrust-vs-source")) {
			found |= !strcmp(name, "module-fixtures-vs-sources");
			cr_expect_eq(json_array_get_length(suites), 1, "%s is in more than one suite", name);
			const char *su = json_array_get_string_element(suites, 0);
			cr_expect(g_str_has_suffix(su, ":fixtures"), "%s is in suite %s", name, su);
		} else {
			for (guint k = 0; k < json_array_get_length(suites); k++)
				cr_expect_not(g_str_has_suffix(json_array_get_string_element(suites, k),
							       ":fixtures"),
					      "%s shares the fixtures suite", name);
		}
	}
	cr_expect(found, "no module-fixtures-vs-sources test");
	g_free(shown);
	g_free(readme);
	g_free(rpath);
	g_object_unref(p);
	g_free(path);
}

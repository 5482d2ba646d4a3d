/* SPDX-License-Identifier: MIT */
/* The documents' examples hold: every ```chain block of docs/scenario.md is a
 * complete scenario that parses, runs from the repository root and meets its
 * own expectations; the --json keys docs/json.md lists are the keys the
 * writer prints. */
#include <criterion/criterion.h>
#include <glib.h>
#include <json-glib/json-glib.h>
#include <stdlib.h>
#include <string.h>

#include "chainsim/device.h"
#include "chainsim/report.h"
#include "chainsim/scenario.h"
#include "cli.h"

static char *read_doc(const char *name)
{
	const char *root = getenv("CHAINSIM_SOURCE_ROOT");
	cr_assert_not_null(root, "run through meson test");
	char *path = g_build_filename(root, "docs", name, NULL);
	char *text = NULL;
	cr_assert(g_file_get_contents(path, &text, NULL, NULL), "cannot read %s", path);
	g_free(path);
	return text;
}

/* The fenced blocks of a document opened with ```LANG, with their lines. */
typedef struct fence {
	char *text;
	unsigned line;
} fence;

static GArray *fences(const char *doc, const char *lang)
{
	GArray *out = g_array_new(FALSE, TRUE, sizeof(fence));
	char **lines = g_strsplit(doc, "\n", -1);
	char *open = g_strdup_printf("```%s", lang);
	GString *cur = NULL;
	unsigned at = 0;
	for (unsigned i = 0; lines[i]; i++) {
		if (!cur && !strcmp(lines[i], open)) {
			cur = g_string_new(NULL);
			at = i + 2;
		} else if (cur && g_str_has_prefix(lines[i], "```")) {
			fence f = { g_string_free(cur, FALSE), at };
			g_array_append_val(out, f);
			cur = NULL;
		} else if (cur) {
			g_string_append_printf(cur, "%s\n", lines[i]);
		}
	}
	cr_assert_null(cur, "a ```%s block is never closed", lang);
	g_free(open);
	g_strfreev(lines);
	return out;
}

/* Every ```chain block of docs/NAME runs and holds (at least min of them). */
static void examples_run_and_hold(const char *doc_name, guint min)
{
	char *doc = read_doc(doc_name);
	GArray *fs = fences(doc, "chain");
	cr_assert_geq(fs->len, min, "docs/%s: only %u examples", doc_name, fs->len);
	for (guint i = 0; i < fs->len; i++) {
		fence *f = &g_array_index(fs, fence, i);
		char name[64];
		snprintf(name, sizeof(name), "docs/%s:%u", doc_name, f->line);
		cs_diag d;
		cs_diag_clear(&d);
		cs_scenario *s = cs_scenario_parse(f->text, strlen(f->text), name,
						   getenv("CHAINSIM_SOURCE_ROOT"), &d);
		char msg[1024];
		cs_diag_format(&d, msg, sizeof(msg));
		cr_expect_not_null(s, "%s", msg);
		if (!s)
			continue;
		cs_device_config cfg = { .arch = cs_scenario_arch(s) };
		cs_device *dev = cs_device_new(&cfg, &d);
		cr_assert_not_null(dev);
		bool ok = cs_scenario_execute(s, dev, &d);
		cs_diag_format(&d, msg, sizeof(msg));
		cr_expect(ok, "example at %s stops: %s", name, msg);
		for (size_t k = 0; ok && k < cs_scenario_expect_count(s); k++) {
			const cs_expect_outcome *o = cs_scenario_expect(s, k);
			cr_expect(o->held, "%s: line %u of the example (%s) failed: %s", name, o->line,
				  o->text, o->detail);
		}
		/* an example that submits work completes its chain unless it says
		 * which break it shows */
		if (ok && strstr(f->text, "\nsubmit\n") && !strstr(f->text, "\nexpect break ")) {
			cs_report *r = cs_report_build(dev);
			cr_expect_eq(r->overall.first_break, CS_STAGE_NONE, "%s breaks at stage %d: %s",
				     name, (int)r->overall.first_break, r->overall.diagnosis);
			cs_report_free(r);
		}
		cs_device_free(dev);
		cs_scenario_free(s);
	}
	for (guint i = 0; i < fs->len; i++)
		g_free(g_array_index(fs, fence, i).text);
	g_array_free(fs, TRUE);
	g_free(doc);
}

Test(docs, scenario_md_examples_run_and_hold)
{
	examples_run_and_hold("scenario.md", 20);
}

Test(docs, forwarding_md_examples_run_and_hold)
{
	examples_run_and_hold("forwarding.md", 2);
}

/* Every member path of a JSON value ("first_break.evidence.addr",
 * "chain[].stage"), arrays as the union over their elements. */
static void collect_paths(JsonNode *n, const char *prefix, GHashTable *out)
{
	if (JSON_NODE_HOLDS_OBJECT(n)) {
		JsonObject *o = json_node_get_object(n);
		GList *members = json_object_get_members(o);
		for (GList *m = members; m; m = m->next) {
			char *p = *prefix ? g_strdup_printf("%s.%s", prefix, (char *)m->data)
					  : g_strdup(m->data);
			g_hash_table_add(out, g_strdup(p));
			collect_paths(json_object_get_member(o, m->data), p, out);
			g_free(p);
		}
		g_list_free(members);
	} else if (JSON_NODE_HOLDS_ARRAY(n)) {
		JsonArray *a = json_node_get_array(n);
		char *p = g_strdup_printf("%s[]", prefix);
		for (guint i = 0; i < json_array_get_length(a); i++)
			collect_paths(json_array_get_element(a, i), p, out);
		g_free(p);
	}
}

static void expect_same_paths(GHashTable *doc, GHashTable *real, const char *what)
{
	GHashTableIter it;
	gpointer k;
	g_hash_table_iter_init(&it, doc);
	while (g_hash_table_iter_next(&it, &k, NULL))
		cr_expect(g_hash_table_contains(real, k), "%s: docs/json.md shows '%s', the writer "
			  "does not print it", what, (char *)k);
	g_hash_table_iter_init(&it, real);
	while (g_hash_table_iter_next(&it, &k, NULL))
		cr_expect(g_hash_table_contains(doc, k), "%s: the writer prints '%s', docs/json.md "
			  "does not show it", what, (char *)k);
}

/* A ```c block after `<!-- testing-c: FILE -->` is FILE's test shown whole: its
 * #include lines are FILE's, and the rest is FILE's text as it stands. */
static unsigned c_blocks_are_the_tests(const char *doc_name)
{
	char *doc = read_doc(doc_name);
	char **lines = g_strsplit(doc, "\n", -1);
	static const char marker[] = "<!-- testing-c: ";
	unsigned found = 0;
	for (unsigned i = 0; lines[i]; i++) {
		if (!g_str_has_prefix(lines[i], marker))
			continue;
		char *file = g_strndup(lines[i] + strlen(marker),
				       strcspn(lines[i] + strlen(marker), " "));
		char *path = g_build_filename(getenv("CHAINSIM_SOURCE_ROOT"), file, NULL);
		char *src = NULL;
		cr_assert(g_file_get_contents(path, &src, NULL, NULL), "docs/%s:%u: cannot read %s",
			  doc_name, i + 1, path);
		cr_assert(lines[i + 1] && !strcmp(lines[i + 1], "```c"), "docs/%s:%u: no ```c block",
			  doc_name, i + 2);
		GString *body = g_string_new(NULL);
		unsigned j = i + 2;
		for (; lines[j] && strcmp(lines[j], "```"); j++) {
			if (g_str_has_prefix(lines[j], "#include ")) {
				char *want = g_strdup_printf("\n%s\n", lines[j]);
				cr_expect(strstr(src, want), "docs/%s:%u: %s does not have '%s'", doc_name,
					  j + 1, file, lines[j]);
				g_free(want);
			} else if (body->len || lines[j][0]) {
				g_string_append_printf(body, "%s\n", lines[j]);
			}
		}
		cr_assert(body->len, "docs/%s:%u: an empty block", doc_name, i + 2);
		cr_expect(strstr(src, body->str), "docs/%s:%u: the block is not %s's text as it stands "
			  "(copy the test again):\n%s", doc_name, i + 2, file, body->str);
		found++;
		g_string_free(body, TRUE);
		g_free(src);
		g_free(path);
		g_free(file);
	}
	g_strfreev(lines);
	g_free(doc);
	return found;
}

Test(docs, testing_and_forwarding_show_the_c_hook_test_whole)
{
	cr_expect_eq(c_blocks_are_the_tests("testing.md"), 1);
	cr_expect_eq(c_blocks_are_the_tests("forwarding.md"), 1);
}

Test(docs, json_md_examples_have_the_fields_the_writer_prints)
{
	char *doc = read_doc("json.md");
	char **lines = g_strsplit(doc, "\n", -1);
	unsigned examples = 0;
	for (unsigned i = 0; lines[i]; i++) {
		/* `run --json FILE [MEMBER]`, or `diff --json A B` */
		static const char marker[] = "<!-- json-example: ";
		static const char diff_marker[] = "<!-- json-example-diff: ";
		bool is_diff = g_str_has_prefix(lines[i], diff_marker);
		if (!is_diff && !g_str_has_prefix(lines[i], marker))
			continue;
		char **words = g_strsplit(lines[i] + strlen(is_diff ? diff_marker : marker), " ", -1);
		const char *file = words[0];
		const char *second = words[1] && strcmp(words[1], "-->") ? words[1] : NULL;
		const char *member = is_diff ? NULL : second;
		cr_assert(!is_diff || second, "docs/json.md:%u: a diff example names two files", i + 1);
		cr_assert_str_eq(lines[i + 1], "```json", "docs/json.md:%u: no ```json block", i + 2);
		GString *block = g_string_new(NULL);
		unsigned j = i + 2;
		for (; lines[j] && strcmp(lines[j], "```"); j++)
			g_string_append_printf(block, "%s\n", lines[j]);
		JsonParser *dp = json_parser_new();
		cr_assert(json_parser_load_from_data(dp, block->str, -1, NULL),
			  "docs/json.md:%u: the example is not JSON", i + 2);

		/* only the JSON on stdout is judged here, not the exit */
		static const test_cli_opts any_exit = { .any_exit = true };
		const char *args[] = { "--json", file, is_diff ? second : NULL, NULL };
		test_cli_out o = test_cli_run_opts(getenv("CHAINSIM_SOURCE_ROOT"), &any_exit,
						   is_diff ? "diff" : "run", args);
		JsonParser *rp = json_parser_new();
		cr_assert(json_parser_load_from_data(rp, o.out, -1, NULL), "%s: not JSON: %s", file,
			  o.out);
		JsonNode *real = json_parser_get_root(rp);
		if (member)
			real = json_object_get_member(json_node_get_object(real), member);
		cr_assert_not_null(real, "%s: no member %s", file, member);

		GHashTable *dpaths = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
		GHashTable *rpaths = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
		collect_paths(json_parser_get_root(dp), "", dpaths);
		collect_paths(real, "", rpaths);
		char what[256];
		snprintf(what, sizeof(what), "docs/json.md:%u (%s)", i + 2, file);
		expect_same_paths(dpaths, rpaths, what);
		examples++;

		g_hash_table_destroy(dpaths);
		g_hash_table_destroy(rpaths);
		g_object_unref(rp);
		g_object_unref(dp);
		test_cli_free(&o);
		g_string_free(block, TRUE);
		g_strfreev(words);
		i = j;
	}
	cr_expect_geq(examples, 4, "docs/json.md: %u examples", examples);
	g_strfreev(lines);
	g_free(doc);
}

/* ---- the repository points only at itself ------------------------------------ */

static bool checked_file(const char *name)
{
	static const char *const exts[] = { ".c", ".h", ".md", ".def", ".build", ".chain", ".sh",
					    ".S", ".ld", ".txt" };
	for (size_t i = 0; i < sizeof(exts) / sizeof(exts[0]); i++)
		if (g_str_has_suffix(name, exts[i]))
			return true;
	return !strcmp(name, "meson.build");
}

/* Relative markdown links of a document, each checked to exist. */
static void check_links(const char *root, const char *rel, const char *text)
{
	char *dir = g_path_get_dirname(rel);
	for (const char *p = strstr(text, "]("); p; p = strstr(p + 2, "](")) {
		const char *start = p + 2, *end = strchr(start, ')');
		if (!end || g_str_has_prefix(start, "http") || start[0] == '#')
			continue;
		char *target = g_strndup(start, (size_t)(end - start));
		char *hash = strchr(target, '#');
		if (hash)
			*hash = '\0';
		char *joined = g_build_filename(dir, target, NULL);
		char *canon = g_canonicalize_filename(joined, "/");
		const char *repo_rel = canon + 1; /* drop the leading '/' */
		char *abs = g_build_filename(root, repo_rel, NULL);
		cr_expect(g_file_test(abs, G_FILE_TEST_EXISTS),
			  "%s links to %s, which is not in the repository", rel, target);
		g_free(abs);
		g_free(canon);
		g_free(joined);
		g_free(target);
	}
	g_free(dir);
}

/* True when name is a file of the repository: at that path from the root,
 * beside the file that names it, under docs/ or under include/. */
static bool names_a_file(const char *root, const char *dir, const char *name)
{
	const char *const bases[] = { "", dir, "docs", "include" };
	bool found = false;
	for (size_t i = 0; i < sizeof(bases) / sizeof(bases[0]) && !found; i++) {
		char *abs = g_build_filename(root, bases[i], name, NULL);
		found = g_file_test(abs, G_FILE_TEST_EXISTS);
		g_free(abs);
	}
	return found;
}

/* True when name's first folder is a folder of the repository (at the root
 * or beside the file that names it): a path into another project (a kernel
 * module's source, tinygrad's) starts elsewhere. */
static bool in_repository_folder(const char *root, const char *dir, const char *name)
{
	char *first = g_strndup(name, strcspn(name, "/"));
	char *at_root = g_build_filename(root, first, NULL);
	char *beside = g_build_filename(root, dir, first, NULL);
	bool in = g_file_test(at_root, G_FILE_TEST_IS_DIR) || g_file_test(beside, G_FILE_TEST_IS_DIR);
	g_free(beside);
	g_free(at_root);
	g_free(first);
	return in;
}

/* True when a part of name is a placeholder in capitals (NAME.chain,
 * K.sm_XX.ptx): a pattern, not a file. */
static bool has_placeholder(const char *name)
{
	char **parts = g_strsplit(name, "/", -1);
	bool found = false;
	for (unsigned i = 0; parts[i] && !found; i++) {
		size_t n = strcspn(parts[i], ".");
		size_t caps = strspn(parts[i], "ABCDEFGHIJKLMNOPQRSTUVWXYZ");
		found = n > 0 && caps == n && strncmp(parts[i], "README", n) != 0;
	}
	g_strfreev(parts);
	return found;
}

/* Every file a source or a document names (a comment, a message, prose) is in
 * the repository: every .md name, and every relative path into one of the
 * repository's folders that ends in a source's or a document's extension.
 * Absolute paths, URLs' paths, paths with a printf conversion, a glob or a
 * placeholder in them, and paths under build/ are not files of the repository. */
static void check_named_files(const char *root, const char *rel, const char *text)
{
	GRegex *re = g_regex_new("(?<![A-Za-z0-9_./%*:<>{}$~-])"
				 "(?:[A-Za-z0-9_.-]+/)*[A-Za-z0-9_.-]+\\.(?:md|c|h|def|build|chain|"
				 "sh|py|S|ld|cu|ptx)\\b(?![/%*(]|\\.[A-Za-z0-9])",
				 0, 0, NULL);
	GMatchInfo *m = NULL;
	char *dir = g_path_get_dirname(rel);
	for (g_regex_match(re, text, 0, &m); g_match_info_matches(m); g_match_info_next(m, NULL)) {
		char *name = g_match_info_fetch(m, 0);
		bool is_doc = g_str_has_suffix(name, ".md");
		if ((is_doc || strchr(name, '/')) && !g_str_has_prefix(name, "build/") &&
		    (is_doc || in_repository_folder(root, dir, name)) && !has_placeholder(name))
			cr_expect(names_a_file(root, dir, name),
				  "%s names %s, which is not a file in the repository", rel, name);
		g_free(name);
	}
	g_match_info_free(m);
	g_regex_unref(re);
	g_free(dir);
}

/* Calls visit(child, name, text, ctx) for every file under rel that keep(name)
 * accepts, child its path relative to root (build folders left out); *files
 * counts them. */
static void walk_repository(const char *root, const char *rel, bool (*keep)(const char *name),
			    void (*visit)(const char *child, const char *name, const char *text,
					  void *ctx),
			    void *ctx, unsigned *files)
{
	char *path = rel[0] ? g_build_filename(root, rel, NULL) : g_strdup(root);
	GDir *d = g_dir_open(path, 0, NULL);
	cr_assert_not_null(d, "cannot list %s", path);
	const char *name;
	while ((name = g_dir_read_name(d))) {
		if (name[0] == '.' || (!rel[0] && (g_str_has_prefix(name, "build") ||
						   !strcmp(name, "subprojects"))))
			continue;
		char *child = rel[0] ? g_build_filename(rel, name, NULL) : g_strdup(name);
		char *abs = g_build_filename(root, child, NULL);
		if (g_file_test(abs, G_FILE_TEST_IS_DIR)) {
			walk_repository(root, child, keep, visit, ctx, files);
		} else if (keep(name)) {
			char *text = NULL;
			cr_assert(g_file_get_contents(abs, &text, NULL, NULL));
			visit(child, name, text, ctx);
			g_free(text);
			(*files)++;
		}
		g_free(abs);
		g_free(child);
	}
	g_dir_close(d);
	g_free(path);
}

static void check_file(const char *child, const char *name, const char *text, void *ctx)
{
	const char *root = ctx;
	/* the two documents outside the repository (spelled in two parts so that
	 * this file does not name them) */
	cr_expect(!strstr(text, "DESIGN" ".md") && !strstr(text, "hw-" "facts"),
		  "%s points at %s or %s, which are not in the repository", child,
		  "DESIGN" ".md", "docs/hw-" "facts" ".md");
	/* comments speak of the code as it is, not of how it came to be (spelled
	 * in parts so that this file does not trip it) */
	cr_expect(!strstr(text, "added " "by ") && !strstr(text, "(addi" "tive)") &&
			  !strstr(text, "/* added" ":"),
		  "%s carries a note of how the code came to be, not of what it is", child);
	if (g_str_has_suffix(name, ".md"))
		check_links(root, child, text);
	check_named_files(root, child, text);
}

Test(docs, the_repository_points_only_at_its_own_documents)
{
	const char *root = getenv("CHAINSIM_SOURCE_ROOT");
	unsigned files = 0;
	walk_repository(root, "", checked_file, check_file, (void *)root, &files);
	cr_expect_gt(files, 100, "only %u files checked", files);
}

/* ---- one source for the classes and their fields ------------------------------------ */

/* A line the source scans below let through, and why. */
typedef struct scan_allow {
	const char *file; /* relative to the source root */
	const char *text; /* a part of the line */
	const char *why;
	unsigned seen;
} scan_allow;

/* Calls visit(child, text, ctx) for every .c and .h file under rel (and .def
 * with defs), its path relative to root; *files counts them. */
static void for_each_source(const char *root, const char *rel, bool defs,
			    void (*visit)(const char *child, const char *text, void *ctx), void *ctx,
			    unsigned *files)
{
	char *path = g_build_filename(root, rel, NULL);
	GDir *d = g_dir_open(path, 0, NULL);
	cr_assert_not_null(d, "%s: cannot open", path);
	const char *name;
	while ((name = g_dir_read_name(d))) {
		char *child = g_build_filename(rel, name, NULL);
		char *abs = g_build_filename(root, child, NULL);
		if (g_file_test(abs, G_FILE_TEST_IS_DIR)) {
			for_each_source(root, child, defs, visit, ctx, files);
		} else if (g_str_has_suffix(name, ".c") || g_str_has_suffix(name, ".h") ||
			   (defs && g_str_has_suffix(name, ".def"))) {
			char *text = NULL;
			cr_assert(g_file_get_contents(abs, &text, NULL, NULL));
			visit(child, text, ctx);
			g_free(text);
			(*files)++;
		}
		g_free(abs);
		g_free(child);
	}
	g_dir_close(d);
	g_free(path);
}

/* for_each_source over the project's code (with tests and examples when
 * tests is set), the .def tables among them with defs; the files read. */
static unsigned for_each_project_source(bool tests, bool defs,
					void (*visit)(const char *child, const char *text, void *ctx))
{
	static const char *const dirs[] = { "base", "fe", "gr", "ptxrun", "sim", "gsp", "hw",
					    "hwfake", "repl", "tools", "include", "tests", "examples" };
	const char *root = getenv("CHAINSIM_SOURCE_ROOT");
	unsigned files = 0;
	for (size_t i = 0; i < sizeof(dirs) / sizeof(dirs[0]) - (tests ? 0 : 2); i++)
		for_each_source(root, dirs[i], defs, visit, NULL, &files);
	return files;
}

typedef struct scan {
	GRegex *re;
	scan_allow *allow;
	size_t nallow;
	const char *what;
} scan;

/* Every line that matches the scan's re must be in its allow-list. */
static void scan_lines(const char *child, const char *text, void *ctx)
{
	const scan *sc = ctx;
	char **lines = g_strsplit(text, "\n", -1);
	for (unsigned n = 0; lines[n]; n++) {
		if (!g_regex_match(sc->re, lines[n], 0, NULL))
			continue;
		bool ok = false;
		for (size_t a = 0; a < sc->nallow && !ok; a++)
			if (strcmp(sc->allow[a].file, child) == 0 &&
			    strstr(lines[n], sc->allow[a].text)) {
				sc->allow[a].seen++;
				ok = true;
			}
		cr_expect(ok, "%s:%u %s: '%s'", child, n + 1, sc->what, g_strstrip(lines[n]));
	}
	g_strfreev(lines);
}

/* Every line of the .c and .h files under each of dirs (NULL-ended) that
 * matches re must be in allow, and every allow entry must match a line; more
 * than min_files files must be read. Frees re. */
static void scan_sources(const char *root, const char *const *dirs, GRegex *re,
			 scan_allow *allow, size_t nallow, const char *what, unsigned min_files)
{
	scan sc = { re, allow, nallow, what };
	unsigned files = 0;
	for (size_t i = 0; dirs[i]; i++)
		for_each_source(root, dirs[i], false, scan_lines, &sc, &files);
	cr_expect_gt(files, min_files, "only %u source files looked at", files);
	for (size_t a = 0; a < nallow; a++)
		cr_expect(allow[a].seen > 0, "allow-list entry %s '%s' matches nothing: drop it",
			  allow[a].file, allow[a].text);
	g_regex_unref(re);
}

/* Behaviour asks the class table for a feature (cs_class_has) or a QMD version
 * (cs_class_qmd_major); no code outside the tables compares class ids. */
Test(docs, no_code_compares_class_ids)
{
	const char *root = getenv("CHAINSIM_SOURCE_ROOT");
	/* (0xffff bounds a 16-bit field: not a class) */
	GRegex *re = g_regex_new("\\bcls\\w*\\s*(==|!=|>=|<=|<|>)\\s*0x(?![fF]{4}\\b)[0-9A-Fa-f]{4}\\b"
				 "|(==|!=|>=|<=)\\s*0x[cC][0-9a-fA-F]{3}\\b"
				 "|\\bcase\\s+0x[cC][0-9a-fA-F]{3}\\s*:",
				 0, 0, NULL);
	cr_assert_not_null(re);
	static const char *const dirs[] = { "base", "fe", "gr", "sim", "ptxrun", "tools", NULL };
	scan_sources(root, dirs, re, NULL, 0, "compares a class id", 40);
}

/* Method and QMD fields are read and written by name: through the accessors
 * generated from the field tables (GR_GET/GR_PUT from gr/fields.def, CS_FE_GET
 * from include/chainsim/hostclass.def, cs_qmd_* from gr/qmd_v0*.def), and an
 * address's parts through its fields (cs_field_addr_put/_bits/_merge,
 * GR_ADDR_PUT), never by shifting and masking a data dword by hand. The scan
 * looks for a shift followed by a mask, a method data dword shifted or masked
 * by a constant, single-bit constants combined into a dword, and an address
 * (a name with addr, or va) split into or joined from 32-bit method words:
 * shifted by 32, masked with 0xffffffff, or cut to its low word by a cast.
 * ptxrun's executor is not scanned: its address arithmetic is not methods'. */
Test(docs, no_hand_shifted_fields)
{
	const char *root = getenv("CHAINSIM_SOURCE_ROOT");
	GRegex *re = g_regex_new(">>\\s*\\d+\\s*\\)\\s*&\\s*(0x[0-9a-fA-F]+|\\d+)"
				 "|\\b(d|data|\\w+->data|\\w+\\.data)\\s*(>>|<<|&)\\s*(0x[0-9a-fA-F]+|\\d+)"
				 "|[|&]=?\\s*\\(?\\s*1u\\s*<<\\s*\\d+"
				 "|1u\\s*<<\\s*\\d+\\s*\\)?\\s*\\|"
				 "|\\?\\s*1u\\s*<<\\s*\\d+"
				 "|\\|=\\s*\\(.*\\)\\s*<<\\s*\\d+"
				 /* address words: an address by name, or an address function's result */
				 "|\\b(addr\\w*|\\w+_addr\\w*|va|\\w+_va|address\\w*)\\)?\\s*(>>|<<)\\s*32\\b"
				 "|\\b\\w*addr\\w*\\([^()]*\\)\\s*(>>|<<)\\s*32\\b"
				 "|\\b(addr\\w*|\\w+_addr\\w*|va|\\w+_va)\\s*&\\s*~?0xffffffff"
				 "|\\(uint32_t\\)\\s*(\\w+->|\\w+\\.)*(addr\\w*|\\w+_addr\\w*|va|\\w+_va)\\s*[,;)]"
				 "|\\(uint32_t\\)\\s*\\(?\\s*\\w*addr\\w*\\("
				 /* two method words joined into one value by hand */
				 "|<<\\s*32\\s*\\)\\s*\\|",
				 0, 0, NULL);
	cr_assert_not_null(re);
	scan_allow allow[] = {
		{ "fe/fe.c", "(lo >> 8) & 0x1ffffu",
		  "a GPFIFO control entry's operand (SET_PB_SEGMENT_EXTENDED_BASE), not a "
		  "method's field: no table describes GP entries", 0 },
		{ "gr/compute.c", "(uint8_t)(c->data >> 8)",
		  "LOAD_INLINE_DATA's bytes, in memory order: data, not a field", 0 },
		{ "gr/compute.c", "(uint8_t)(c->data >> 24)",
		  "LOAD_INLINE_DATA's bytes, in memory order: data, not a field", 0 },
		{ "sim/scenario/disasm.c", "h & (1u << 12)",
		  "the reserved bit 12 of a pushbuffer method header (include/chainsim/pushbuf.h "
		  "has no accessor for a bit that must be 0)", 0 },
		{ "ptxrun/module/cubin.c", "(flags >> 8) & 0xffu",
		  "the ELF header's e_flags SM number, not a method or QMD field", 0 },
		{ "ptxrun/module/cubin.c", ">> 18) & 0x3fffu",
		  "a kernel parameter's size in a cubin .nv.info KPARAM_INFO word, not a method or QMD field", 0 },
		{ "fe/fe.c", "((uint64_t)w[1] << 32) | w[0]",
		  "a GPFIFO entry's two words as one 64-bit entry, not a method's field", 0 },
		{ "fe/fe_host.c", "((uint64_t)c->payload_hi << 32) | c->payload_lo",
		  "SEM_PAYLOAD_LO/HI: one 64-bit payload in two whole words, not a bit field", 0 },
		{ "tools/cmd_repl.c", "((uint64_t)payload_hi << 32) | payload_lo",
		  "SEM_PAYLOAD_LO/HI: one 64-bit payload in two whole words, not a bit field", 0 },
		{ "tools/repl_coro.c", "(((uintptr_t)hi << 32) | (uintptr_t)lo)",
		  "a pointer passed through makecontext's int arguments, not a field", 0 },
	};
	static const char *const dirs[] = { "fe", "gr", "sim", "ptxrun/module", "tools", "repl",
					    NULL };
	scan_sources(root, dirs, re, allow, sizeof(allow) / sizeof(allow[0]),
		     "shifts a field by hand", 40);
}

/* Every C source, header and table of the project starts with its SPDX
 * license line (LICENSE: the source is MIT; fixtures/ holds test inputs whose
 * line numbers tests name, and is left as it is). */
static void expect_spdx(const char *child, const char *text, void *ctx)
{
	(void)ctx;
	cr_expect(g_str_has_prefix(text, "/* SPDX-License-Identifier: MIT */\n"),
		  "%s does not start with its SPDX line", child);
}

Test(docs, every_source_starts_with_its_license)
{
	unsigned files = for_each_project_source(true, true, expect_spdx);
	cr_expect_gt(files, 250, "only %u source files looked at", files);
}

/* ---- no function nothing calls ----------------------------------------------- */

static bool code_file(const char *name)
{
	return g_str_has_suffix(name, ".c") || g_str_has_suffix(name, ".h") ||
	       g_str_has_suffix(name, ".cpp") || g_str_has_suffix(name, ".py");
}

static void append_text(const char *child, const char *name, const char *text, void *ctx)
{
	(void)child;
	(void)name;
	g_string_append_printf(ctx, "\n%s\n", text);
}

/* Counts every identifier of text into uses. */
static void count_words(const char *text, GHashTable *uses)
{
	for (const char *p = text; *p;) {
		if (!g_ascii_isalpha(*p) && *p != '_') {
			p++;
			continue;
		}
		const char *start = p;
		while (g_ascii_isalnum(*p) || *p == '_')
			p++;
		char *w = g_strndup(start, (size_t)(p - start));
		guint n = GPOINTER_TO_UINT(g_hash_table_lookup(uses, w));
		g_hash_table_replace(uses, w, GUINT_TO_POINTER(n + 1));
	}
}

/* The name a function definition starting at lines[i] defines with external
 * linkage (this project's style: the signature from column 0, its body's `{`
 * alone on a line or the whole function on one), else NULL. */
static char *defined_function(char **lines, unsigned i)
{
	const char *l = lines[i];
	if (!g_ascii_islower(l[0]) || g_str_has_prefix(l, "static") ||
	    g_str_has_prefix(l, "typedef") || g_str_has_prefix(l, "extern") || !strchr(l, '('))
		return NULL;
	const char *brace = strstr(l, ") {"), *semi = strchr(l, ';');
	bool one_line = brace && (!semi || semi > brace); /* `T f(a) { return x; }` */
	unsigned j = i;
	while (!one_line && lines[j] && strcmp(lines[j], "{") != 0 && !strchr(lines[j], ';') &&
	       !strchr(lines[j], '{'))
		j++;
	if (!one_line && (!lines[j] || strcmp(lines[j], "{") != 0))
		return NULL;
	const char *end = strchr(l, '('), *start = end;
	while (start > l && (g_ascii_isalnum(start[-1]) || start[-1] == '_'))
		start--;
	return start < end ? g_strndup(start, (size_t)(end - start)) : NULL;
}

/* Each function the project's code (not its tests) defines with external
 * linkage is named at least three times in the repository's code: its
 * definition, its declaration and a call (or a binding's name for it). */
Test(docs, every_function_is_called)
{
	const char *root = getenv("CHAINSIM_SOURCE_ROOT");
	GString *all = g_string_new(NULL);
	unsigned files = 0;
	walk_repository(root, "", code_file, append_text, all, &files);
	cr_assert_gt(files, 300, "only %u files read", files);
	GHashTable *uses = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
	count_words(all->str, uses);

	static const char *const dirs[] = { "base", "fe", "gr", "ptxrun", "sim", "gsp", "hw",
					    "hwfake", "repl", "tools" };
	unsigned defs = 0;
	for (size_t i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++) {
		GString *code = g_string_new(NULL);
		unsigned n = 0;
		walk_repository(root, dirs[i], code_file, append_text, code, &n);
		char **lines = g_strsplit(code->str, "\n", -1);
		for (unsigned l = 0; lines[l]; l++) {
			char *fn = defined_function(lines, l);
			if (!fn)
				continue;
			guint seen = GPOINTER_TO_UINT(g_hash_table_lookup(uses, fn));
			cr_expect(seen >= 3 || !strcmp(fn, "main"),
				  "%s/: %s is defined but nothing calls it (named %u times)", dirs[i],
				  fn, seen);
			defs++;
			g_free(fn);
		}
		g_strfreev(lines);
		g_string_free(code, TRUE);
	}
	cr_expect_gt(defs, 500, "only %u functions found", defs);
	g_hash_table_destroy(uses);
	g_string_free(all, TRUE);
}

/* sim/ in rooms (docs/architecture.md): each part the device wires is
 * defined in its own place, so sim/device.c is the board and nothing else. */
static void expect_in_rooms(const char *child, const char *text, void *ctx)
{
	static const struct { const char *prefix, *room; } rooms[] = {
		{ "cs_report_print_text", "sim/report/" }, { "cs_report_json", "sim/report/" },
		{ "cs_report_fit", "sim/report/" },        { "cs_trace_perfetto_", "sim/report/" },
		{ "cs_capture_", "sim/capture/" },         { "cs_results_", "sim/capture/" },
		{ "trace_store_", "sim/trace_store.c" },   { "cs_forward_", "sim/forward.c" },
		{ "forward_", "sim/forward.c" },
	};
	unsigned *found = ctx;
	if (!strcmp(child, "sim/device.c"))
		cr_expect(!strstr(text, "arena_chunk") && !strstr(text, "struct cs_forward {"),
			  "sim/device.c holds the trace store's arena or the forwarding's state");
	char **lines = g_strsplit(text, "\n", -1);
	for (unsigned l = 0; lines[l]; l++) {
		char *fn = defined_function(lines, l);
		for (size_t r = 0; fn && r < sizeof(rooms) / sizeof(rooms[0]); r++) {
			if (!g_str_has_prefix(fn, rooms[r].prefix))
				continue;
			cr_expect(g_str_has_prefix(child, rooms[r].room), "%s defines %s, which is %s's",
				  child, fn, rooms[r].room);
			(*found)++;
		}
		g_free(fn);
	}
	g_strfreev(lines);
}

Test(docs, sim_is_in_rooms_and_the_device_only_wires)
{
	const char *root = getenv("CHAINSIM_SOURCE_ROOT");
	unsigned files = 0, found = 0;
	for_each_source(root, "sim", false, expect_in_rooms, &found, &files);
	cr_expect_gt(files, 30, "only %u files of sim/ read", files);
	cr_expect_gt(found, 30, "only %u functions of the rooms found", found);
}

/* docs/architecture.md's rules hold: no runtime assert (the one abort is the
 * stream REPL's coroutine with nowhere to return to), and command lines go
 * through getopt_long, not GLib's option parser. */
Test(docs, no_asserts_and_no_glib_option_parsing)
{
	const char *root = getenv("CHAINSIM_SOURCE_ROOT");
	static const char *const dirs[] = { "base", "fe", "gr", "ptxrun", "sim", "gsp", "hw",
					    "hwfake", "repl", "tools", "include", NULL };
	scan_allow allow[] = {
		{ "tools/repl_coro.c", "abort(); /* fn ends with rs_coro_exit */",
		  "a coroutine's function never returns", 0 },
		{ "tools/repl_coro.c", "abort(); /* never resumed */",
		  "a finished coroutine is never resumed", 0 },
	};
	GRegex *re = g_regex_new("\\b(assert|g_assert[a-z_]*|g_error|abort)\\s*\\(|<assert\\.h>|"
				 "GOption|g_option_",
				 0, 0, NULL);
	scan_sources(root, dirs, re, allow, sizeof(allow) / sizeof(allow[0]),
		     "asserts, aborts or parses options with GLib", 150);
}

/* The comment atop a source says what the file is; a format's or a command's
 * specification lives in docs/ (a header's contract may take a page). */
static void expect_short_opening(const char *child, const char *text, void *ctx)
{
	(void)ctx;
	const char *open = strchr(text, '\n');
	if (!open || !g_str_has_prefix(open + 1, "/*"))
		return;
	const char *close = strstr(open + 1, "*/");
	unsigned lines = 1;
	for (const char *p = open + 1; close && p < close; p++)
		lines += *p == '\n';
	cr_expect(close && lines <= 70,
		  "%s opens with a %u-line comment: move the specification into docs/", child,
		  lines);
}

Test(docs, every_source_opens_with_a_short_comment)
{
	unsigned files = for_each_project_source(false, true, expect_short_opening);
	cr_expect_gt(files, 150, "only %u source files looked at", files);
}

/* The semaphore operations' names are include/chainsim/hostclass.def's
 * (cs_fe_sem_op_name, cs_fe_semd_op_name): no string of the code spells one. */
Test(docs, semaphore_operations_are_named_by_the_class_table)
{
	const char *root = getenv("CHAINSIM_SOURCE_ROOT");
	static const char *const dirs[] = { "fe", "gr", "sim", "tools", "repl", "hw", NULL };
	GRegex *re = g_regex_new("\"[^\"]*\\b(ACQUIRE|ACQ_STRICT_GEQ|ACQ_CIRC_GEQ|ACQ_GEQ|ACQ_AND|"
				 "ACQ_NOR|operation=RELEASE|operation=REDUCTION)\\b",
				 0, 0, NULL);
	scan_sources(root, dirs, re, NULL, 0, "spells a semaphore operation's name", 60);
}

/* A header defines no short unprefixed macro (X, NONE) that outlives it: one
 * would clash with another header's (cause.h's X-macro) and work only by the
 * order of the includes. An X-macro the header undefines again is fine. */
static void expect_no_short_macros(const char *child, const char *text, void *ctx)
{
	(void)ctx;
	if (!g_str_has_suffix(child, ".h"))
		return;
	GRegex *re = g_regex_new("^#define ([A-Z][A-Z0-9]{0,4})\\b", G_REGEX_MULTILINE, 0, NULL);
	GMatchInfo *m = NULL;
	for (g_regex_match(re, text, 0, &m); g_match_info_matches(m); g_match_info_next(m, NULL)) {
		char *name = g_match_info_fetch(m, 1);
		char *undef = g_strdup_printf("#undef %s\n", name);
		cr_expect(strstr(text, undef), "%s defines the macro %s and leaves it defined", child,
			  name);
		g_free(undef);
		g_free(name);
	}
	g_match_info_free(m);
	g_regex_unref(re);
}

Test(docs, no_header_leaves_a_short_macro_defined)
{
	unsigned files = for_each_project_source(false, false, expect_no_short_macros);
	cr_expect_gt(files, 150, "only %u source files looked at", files);
}

/* ---- functions of a page ------------------------------------------------------ */

enum { PAGE_LINES = 150 };

typedef struct page_scan {
	unsigned functions;
} page_scan;

/* Each function within a page: a definition starts on a line that begins
 * in lower case with a '(' and no ';', and ends at a line "}". */
static void scan_pages(const char *child, const char *text, void *ctx)
{
	page_scan *ps = ctx;
	char **lines = g_strsplit(text, "\n", -1);
	unsigned start = 0;
	for (unsigned n = 0; lines[n]; n++) {
		if (g_ascii_islower(lines[n][0]) && strchr(lines[n], '(') && !strchr(lines[n], ';'))
			start = n;
		if (strcmp(lines[n], "}") || !start)
			continue;
		cr_expect(n - start <= PAGE_LINES, "%s:%u: %s runs %u lines", child, start + 1,
			  lines[start], n - start);
		ps->functions++;
		start = 0;
	}
	g_strfreev(lines);
}

/* The causes the jg_why calls name (the third argument; a conditional may
 * name two), each counted once per call. */
static void scan_why_sites(const char *child, const char *text, void *ctx)
{
	(void)child;
	GHashTable *sites = ctx;
	for (const char *p = text; (p = strstr(p, "jg_why(")); p++) {
		const char *q = p + strlen("jg_why(");
		int depth = 1, commas = 0;
		const char *arg = NULL;
		for (; *q && depth; q++) {
			if (*q == '(')
				depth++;
			else if (*q == ')')
				depth--;
			else if (*q == ',' && depth == 1 && ++commas == 2)
				arg = q + 1;
			else if (*q == ',' && depth == 1 && commas == 3)
				break;
		}
		for (const char *c = arg; c && c < q && (c = strstr(c, "CS_CAUSE_")) && c < q; c++) {
			char *name = g_strndup(c, strspn(c, "ABCDEFGHIJKLMNOPQRSTUVWXYZ_0123456789"));
			guint k = GPOINTER_TO_UINT(g_hash_table_lookup(sites, name));
			g_hash_table_replace(sites, name, GUINT_TO_POINTER(k + 1));
		}
	}
}

/* The judge's functions stay within a page, and each cause's prose is
 * written at one site: one jg_why call names it (the stage-10 rules after
 * engine work, for one, sit in sim/judge/release.c for the launch path and
 * the path without a launch). */
Test(docs, the_judge_is_in_functions_of_a_page)
{
	const char *root = getenv("CHAINSIM_SOURCE_ROOT");
	page_scan ps = { 0 };
	unsigned files = 0;
	for_each_source(root, "sim/judge", false, scan_pages, &ps, &files);
	cr_expect_gt(files, 8);
	GHashTable *sites = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
	files = 0;
	for_each_source(root, "sim/judge", false, scan_why_sites, sites, &files);
	static const char *const named[] = { "CS_CAUSE_RELEASE_UNORDERED", "CS_CAUSE_RELEASE_DISABLED",
					     "CS_CAUSE_RELEASE_FAULT", "CS_CAUSE_NOT_FETCHED",
					     "CS_CAUSE_WAIT_UNMET" };
	for (size_t i = 0; i < sizeof(named) / sizeof(named[0]); i++)
		cr_expect(g_hash_table_contains(sites, named[i]), "no jg_why names %s", named[i]);
	GHashTableIter it;
	gpointer key, val;
	g_hash_table_iter_init(&it, sites);
	while (g_hash_table_iter_next(&it, &key, &val))
		cr_expect_eq(GPOINTER_TO_UINT(val), 1, "%s's prose is written at %u sites",
			     (const char *)key, GPOINTER_TO_UINT(val));
	cr_expect_gt(g_hash_table_size(sites), 30, "only %u causes named by jg_why",
		     g_hash_table_size(sites));
	g_hash_table_destroy(sites);
}

/* No function of sim/, fe/, gr/ or tools/ runs past a page. */
Test(docs, every_function_is_within_a_page)
{
	const char *root = getenv("CHAINSIM_SOURCE_ROOT");
	page_scan ps = { 0 };
	unsigned files = 0;
	static const char *const dirs[] = { "sim", "fe", "gr", "tools" };
	for (size_t i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++)
		for_each_source(root, dirs[i], false, scan_pages, &ps, &files);
	cr_expect_gt(files, 60);
	cr_expect_gt(ps.functions, 900, "only %u functions looked at", ps.functions);
}

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

Test(docs, scenario_md_examples_run_and_hold)
{
	char *doc = read_doc("scenario.md");
	GArray *fs = fences(doc, "chain");
	cr_assert_geq(fs->len, 20, "docs/scenario.md: only %u examples", fs->len);
	for (guint i = 0; i < fs->len; i++) {
		fence *f = &g_array_index(fs, fence, i);
		char name[64];
		snprintf(name, sizeof(name), "docs/scenario.md:%u", f->line);
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

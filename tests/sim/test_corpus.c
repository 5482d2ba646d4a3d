/* SPDX-License-Identifier: MIT */
/* The conformance corpus (tests/conformance/, every .chain file): every file runs through
 * the library (parse, device, execute, judge) and must hold every expectation
 * it states, break with the cause its `# cause:` comment names, and carry the
 * phrase of its `# diagnosis:` comment in the diagnosis. The corpus must cover
 * every break rule and a complete chain on each generation through both
 * launch paths. */
#include <criterion/criterion.h>
#include <glib.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "chainsim/device.h"
#include "chainsim/ptxrun.h"
#include "chainsim/report.h"
#include "chainsim/scenario.h"
#include "source.h"

typedef struct corpus_meta {
	char cause[64];
	char phrase[256];
	bool no_exec;
	uint64_t budget_instructions; /* `# run: --budget-instructions=N`; 0: the default */
	bool has_verdict; /* `expect break N`, `expect complete` or `expect break none` */
} corpus_meta;

static void read_meta(const char *text, corpus_meta *m)
{
	memset(m, 0, sizeof(*m));
	gchar **lines = g_strsplit(text, "\n", -1);
	for (gchar **l = lines; *l; l++) {
		const char *s = *l;
		if (!strncmp(s, "# cause: ", 9))
			snprintf(m->cause, sizeof(m->cause), "%s", g_strstrip(*l + 9));
		else if (!strncmp(s, "# diagnosis: ", 13))
			snprintf(m->phrase, sizeof(m->phrase), "%s", g_strstrip(*l + 13));
		else if (!strncmp(s, "# run: ", 7) && strstr(s, "--no-exec"))
			m->no_exec = true;
		else if (!strncmp(s, "# run: --budget-instructions=", 29))
			m->budget_instructions = g_ascii_strtoull(s + 29, NULL, 10);
		else if (!strncmp(s, "expect break", 12) || !strncmp(s, "expect complete", 15))
			m->has_verdict = true;
	}
	g_strfreev(lines);
}

typedef struct corpus_result {
	bool ok;
	char cause[64];
	bool grid_ran;
	cs_arch arch;
} corpus_result;

static corpus_result run_one(const char *dir, const char *name)
{
	corpus_result res = { 0 };
	char *path = g_build_filename(dir, name, NULL);
	gchar *text = NULL;
	cr_assert(g_file_get_contents(path, &text, NULL, NULL), "%s: cannot read", path);
	corpus_meta m;
	read_meta(text, &m);
	g_free(text);
	cr_expect(m.cause[0], "%s: no '# cause:' line", name);
	cr_expect(m.has_verdict, "%s: states neither 'expect break N' nor 'expect complete'", name);
	bool broken_case = m.cause[0] && strcmp(m.cause, "complete") != 0;
	cr_expect(!broken_case || m.phrase[0], "%s: a break case needs '# diagnosis:'", name);

	cs_diag d;
	cs_scenario *s = cs_scenario_load(path, &d);
	char msg[1024];
	if (!s) {
		cs_diag_format(&d, msg, sizeof(msg));
		cr_expect(false, "%s: %s", name, msg);
		g_free(path);
		return res;
	}
	res.arch = cs_scenario_arch(s);
	cs_device_config cfg = { .arch = res.arch, .no_executor = m.no_exec };
	cs_device *dev = cs_device_new(&cfg, &d);
	cr_assert_not_null(dev);
	if (m.budget_instructions)
		cs_ptx_runtime_set_budget(cs_device_ptx(dev), m.budget_instructions, 0);
	bool ran = cs_scenario_execute(s, dev, &d);
	if (!ran) {
		cs_diag_format(&d, msg, sizeof(msg));
		cr_expect(false, "%s: execution stopped: %s", name, msg);
	}
	cs_report *r = cs_report_build(dev);
	cr_assert_not_null(r);
	bool all_held = true;
	for (size_t i = 0; i < cs_scenario_expect_count(s); i++) {
		const cs_expect_outcome *o = cs_scenario_expect(s, i);
		all_held = all_held && o->held;
		cr_expect(o->held, "%s:%u: '%s' did not hold: %s (break %d [%s]: %s)", name, o->line,
			  o->text, o->detail, r->overall.first_break, cs_cause_key(r->overall.cause),
			  r->overall.diagnosis);
	}
	/* The break's cause; with no break, the cause of a stage the simulator
	 * cannot observe, if any; else "complete". */
	const char *cause = r->overall.cause ? cs_cause_key(r->overall.cause) : "complete";
	snprintf(res.cause, sizeof(res.cause), "%s", cause);
	cr_expect_str_eq(cause, m.cause, "%s: cause '%s', the file says '%s' (%s)", name, cause,
			 m.cause, r->overall.diagnosis);
	if (m.phrase[0])
		cr_expect(strstr(r->overall.diagnosis, m.phrase) != NULL,
			  "%s: the diagnosis lacks '%s': %s", name, m.phrase, r->overall.diagnosis);
	uint64_t ctas = 0;
	cs_report_counter(r, "ctas", &ctas);
	res.grid_ran = r->overall.rows[9].status == CS_STAGE_FIRED && ctas > 0;
	res.ok = ran && all_held && !strcmp(cause, m.cause);
	cs_report_free(r);
	cs_device_free(dev);
	cs_scenario_free(s);
	g_free(path);
	return res;
}

static char *corpus_dir(void)
{
	return test_source_path("tests/conformance");
}

Test(corpus, every_file_holds_and_every_rule_is_covered, .timeout = 120)
{
	char *dir = corpus_dir();
	GDir *gd = g_dir_open(dir, 0, NULL);
	cr_assert_not_null(gd, "%s: cannot open", dir);
	GPtrArray *names = g_ptr_array_new_with_free_func(g_free);
	const char *n;
	while ((n = g_dir_read_name(gd)))
		if (g_str_has_suffix(n, ".chain"))
			g_ptr_array_add(names, g_strdup(n));
	g_dir_close(gd);
	cr_assert_gt(names->len, 0, "the corpus is empty");

	/* Every cause of cause.def has a corpus file that breaks with it, but these,
	 * which no scenario can reach today (each named with why; the judge's unit
	 * tests cover their rules). */
	static const struct { const char *key, *why; } unreachable[] = {
		{ "no-doorbell", "the scenario's submit always rings the doorbell" },
		{ "not-fetched", "needs a device whose run budget ends (sim-device covers it)" },
		{ "acquire-blocked", "a blocked channel at the end of a scenario is a deadlock" },
		{ "entry-unfinished", "the front end finishes or stops every entry it fetches" },
		{ "no-install", "every launch record the engine writes follows an install" },
		{ "no-dispatch", "the engine records an outcome for every dispatch" },
		{ "budget", "needs a device whose run budget ends (sim-device covers it)" },
		{ "client-wait", "only a live device's client waits unseen (tests/live/python covers it)" },
		{ "not-fired", "the judge's fallback when no rule explains a stage" },
	};
	bool covered[CS_CAUSE_COUNT] = { 0 };
	static const char *const archs[] = { "ampere", "hopper", "blackwell" };
	static const char *const paths[] = { "pcas", "inline" };
	bool complete[3][2] = { { 0 } };

	for (guint i = 0; i < names->len; i++) {
		const char *name = g_ptr_array_index(names, i);
		corpus_result res = run_one(dir, name);
		cs_cause c = cs_cause_parse(res.cause);
		if (res.ok && c != CS_CAUSE_NONE)
			covered[c] = true;
		for (int a = 0; a < 3; a++)
			for (int p = 0; p < 2; p++) {
				char want[64];
				snprintf(want, sizeof(want), "complete-%s-%s.chain", archs[a], paths[p]);
				if (!strcmp(name, want) && res.ok && res.grid_ran &&
				    !strcmp(res.cause, "complete"))
					complete[a][p] = true;
			}
	}
	for (int c = CS_CAUSE_NONE + 1; c < CS_CAUSE_COUNT; c++) {
		const char *why = NULL;
		for (size_t k = 0; k < sizeof(unreachable) / sizeof(unreachable[0]); k++)
			if (!strcmp(unreachable[k].key, cs_cause_key((cs_cause)c)))
				why = unreachable[k].why;
		if (why)
			cr_expect(!covered[c], "'%s' is listed as unreachable (%s) but a corpus file "
				  "breaks with it: drop it from the list", cs_cause_key((cs_cause)c), why);
		else
			cr_expect(covered[c], "no passing corpus file breaks with cause '%s'",
				  cs_cause_key((cs_cause)c));
	}
	for (int a = 0; a < 3; a++)
		for (int p = 0; p < 2; p++)
			cr_expect(complete[a][p],
				  "no complete chain with an executed kernel for %s through the %s path",
				  archs[a], paths[p]);
	g_ptr_array_free(names, TRUE);
	g_free(dir);
}

/* docs/chain.md describes every cause of include/chainsim/cause.def, with its
 * stages and meaning exactly as the table has them, and no key the table lacks. */
Test(corpus, chain_document_lists_every_cause)
{
	char *doc = test_read_source("docs/chain.md", NULL);
	cr_assert(doc, "docs/chain.md: cannot read");
	unsigned rows = 0;
	for (int c = CS_CAUSE_NONE + 1; c < CS_CAUSE_COUNT; c++) {
		cs_stage a = cs_cause_first_stage((cs_cause)c), b = cs_cause_last_stage((cs_cause)c);
		char *row = a == b ? g_strdup_printf("| `%s` | %d | %s |\n", cs_cause_key((cs_cause)c),
						     (int)a, cs_cause_meaning((cs_cause)c))
				   : g_strdup_printf("| `%s` | %d\u2013%d | %s |\n",
						     cs_cause_key((cs_cause)c), (int)a, (int)b,
						     cs_cause_meaning((cs_cause)c));
		cr_expect(strstr(doc, row) != NULL, "docs/chain.md lacks the row: %s", row);
		g_free(row);
	}
	for (const char *p = doc; (p = strstr(p, "\n| `")); p++)
		rows++;
	cr_expect_eq(rows, CS_CAUSE_COUNT - 1, "docs/chain.md has %u cause rows, the table %d", rows,
		     CS_CAUSE_COUNT - 1);
	free(doc);
}

/* No rule of the judge decides a cause from message text: causes come from
 * the records (cause.def ids), so no strstr in sim/judge/. */
Test(corpus, the_judge_reads_no_message_text)
{
	char *dir = test_source_path("sim/judge");
	GDir *gd = g_dir_open(dir, 0, NULL);
	cr_assert_not_null(gd, "%s: cannot open", dir);
	const char *n;
	unsigned files = 0;
	while ((n = g_dir_read_name(gd))) {
		if (!g_str_has_suffix(n, ".c") && !g_str_has_suffix(n, ".h"))
			continue;
		char *path = g_build_filename(dir, n, NULL);
		gchar *text = NULL;
		cr_assert(g_file_get_contents(path, &text, NULL, NULL));
		cr_expect(strstr(text, "strstr") == NULL, "sim/judge/%s calls strstr", n);
		files++;
		g_free(text);
		g_free(path);
	}
	g_dir_close(gd);
	g_free(dir);
	cr_expect_geq(files, 5, "only %u files in sim/judge/", files);
}

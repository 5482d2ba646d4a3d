/* SPDX-License-Identifier: MIT */
/* The report writers (sim/report/json.c, sim/report/text.c, sim/report/perfetto.c):
 * the JSON's schema 1 (docs/json.md: every field present, null when empty, an
 * object for input errors too), no text cut mid-word, addresses named by the
 * scenario's names, and the Perfetto trace's slices, method names, flows,
 * counters and break marker. */
#include <criterion/criterion.h>
#include <glib.h>
#include <json-glib/json-glib.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "chainsim/device.h"
#include "chainsim/report.h"
#include "chainsim/scenario.h"

typedef struct run_out {
	char *json, *perfetto, *text;
	cs_report *r;
	cs_device *dev;
	cs_scenario *s;
} run_out;

/* Run a scenario file of the corpus (tests/conformance/NAME), or the text
 * given, and write all three outputs. */
static run_out run_scenario(const char *name, const char *text, cs_trace_level level)
{
	const char *root = getenv("CHAINSIM_SOURCE_ROOT");
	cr_assert_not_null(root, "run through meson test");
	char *dir = g_build_filename(root, "tests", "conformance", NULL);
	char *path = g_build_filename(dir, name, NULL);
	cs_diag d;
	cs_diag_clear(&d);
	run_out o = { 0 };
	o.s = text ? cs_scenario_parse(text, strlen(text), name, dir, &d) : cs_scenario_load(path, &d);
	cr_assert_not_null(o.s, "%s: %s", name, d.msg);
	cs_device_config cfg = { .arch = cs_scenario_arch(o.s), .trace_level = level };
	o.dev = cs_device_new(&cfg, &d);
	cr_assert_not_null(o.dev);
	cr_assert(cs_scenario_execute(o.s, o.dev, &d), "%s: %s", name, d.msg);
	o.r = cs_report_build(o.dev);
	cr_assert_not_null(o.r);
	cs_report_meta meta = { .file = name };
	o.json = cs_report_json(o.r, o.dev, &meta);
	o.perfetto = cs_trace_perfetto_json(o.dev);
	size_t len = 0;
	FILE *f = open_memstream(&o.text, &len);
	cs_report_print_text(o.r, &meta, f);
	fclose(f);
	g_free(path);
	g_free(dir);
	return o;
}

static void run_free(run_out *o)
{
	free(o->json);
	free(o->perfetto);
	free(o->text);
	cs_report_free(o->r);
	cs_device_free(o->dev);
	cs_scenario_free(o->s);
}

static JsonParser *parse(const char *json)
{
	JsonParser *p = json_parser_new();
	cr_assert(json_parser_load_from_data(p, json, -1, NULL), "not JSON:\n%s", json);
	return p;
}

/* Every key of obj is one of keys (n of them) and every one of keys is there. */
static void expect_exact_keys(JsonObject *obj, const char *what, const char *const *keys, size_t n)
{
	cr_assert_not_null(obj, "%s: not an object", what);
	for (size_t i = 0; i < n; i++)
		cr_expect(json_object_has_member(obj, keys[i]), "%s: no '%s'", what, keys[i]);
	cr_expect_eq(json_object_get_size(obj), n, "%s: %u members, expected %zu", what,
		     json_object_get_size(obj), n);
}

static const char *const top_keys[] = { "schema_version", "file", "arch", "result", "error",
					"chain", "first_break", "not_observable", "launches",
					"expectations", "faults", "edits", "counters",
					"assumptions", "findings", "output" };
enum { NTOP = sizeof(top_keys) / sizeof(top_keys[0]) };
static const char *const row_keys[] = { "stage", "name", "status", "author", "evidence" };
static const char *const break_keys[] = { "stage", "name", "cause", "diagnosis", "evidence",
					  "assumptions" };
static const char *const fault_keys[] = { "seq", "stage", "unit", "access", "addr", "addr_name",
					  "channel", "launch", "gp_entry", "method_index",
					  "detail" };
static const char *const edit_keys[] = { "record", "edit", "gp_entry", "guest", "guest_name",
					 "host", "value", "cause", "text" };

static void check_chain(JsonArray *chain, const char *what)
{
	cr_assert_not_null(chain, "%s: chain is not an array", what);
	cr_assert_eq(json_array_get_length(chain), 11, "%s", what);
	for (guint i = 0; i < 11; i++)
		expect_exact_keys(json_array_get_object_element(chain, i), what, row_keys, 5);
}

static void check_break(JsonNode *n, const char *what)
{
	if (JSON_NODE_HOLDS_NULL(n))
		return;
	JsonObject *fb = json_node_get_object(n);
	expect_exact_keys(fb, what, break_keys, 6);
	JsonNode *ev = json_object_get_member(fb, "evidence");
	if (!JSON_NODE_HOLDS_NULL(ev)) {
		static const char *const ek[] = { "record", "seq", "channel", "gp_entry",
						  "method_index", "addr", "addr_name", "value" };
		expect_exact_keys(json_node_get_object(ev), what, ek, 8);
	}
}

Test(writers, json_schema_1_every_field_always_present)
{
	static const char *const files[] = { "complete-hopper-pcas.chain", "earlier-fault.chain",
					     "host-only.chain", "deadlock.chain",
					     "two-launches-two-paths.chain", "release-fault.chain",
					     "forward-misrelocated.chain" };
	for (size_t f = 0; f < sizeof(files) / sizeof(files[0]); f++) {
		run_out o = run_scenario(files[f], NULL, CS_TRACE_CHAIN);
		JsonParser *p = parse(o.json);
		JsonObject *root = json_node_get_object(json_parser_get_root(p));
		expect_exact_keys(root, files[f], top_keys, NTOP);
		cr_expect_eq(json_object_get_int_member(root, "schema_version"), 1);
		cr_expect_str_eq(json_object_get_string_member(root, "file"), files[f]);
		cr_expect(JSON_NODE_HOLDS_NULL(json_object_get_member(root, "error")), "%s", files[f]);
		check_chain(json_object_get_array_member(root, "chain"), files[f]);
		check_break(json_object_get_member(root, "first_break"), files[f]);
		JsonArray *ls = json_object_get_array_member(root, "launches");
		cr_assert_not_null(ls);
		for (guint i = 0; i < json_array_get_length(ls); i++) {
			JsonObject *l = json_array_get_object_element(ls, i);
			static const char *const lk[] = { "launch", "result", "chain", "first_break",
							  "not_observable" };
			expect_exact_keys(l, files[f], lk, 5);
			check_chain(json_object_get_array_member(l, "chain"), files[f]);
			check_break(json_object_get_member(l, "first_break"), files[f]);
		}
		JsonArray *fs = json_object_get_array_member(root, "faults");
		cr_assert_not_null(fs);
		for (guint i = 0; i < json_array_get_length(fs); i++)
			expect_exact_keys(json_array_get_object_element(fs, i), files[f], fault_keys, 11);
		JsonArray *es = json_object_get_array_member(root, "edits");
		cr_assert_not_null(es);
		for (guint i = 0; i < json_array_get_length(es); i++)
			expect_exact_keys(json_array_get_object_element(es, i), files[f], edit_keys, 9);
		cr_expect_not_null(json_object_get_object_member(root, "counters"));
		cr_expect_not_null(json_object_get_array_member(root, "assumptions"));
		/* "-" is the table's filler, never a JSON value: null instead */
		cr_expect_null(strstr(o.json, "\"-\""), "%s: a '-' value in\n%s", files[f], o.json);
		g_object_unref(p);
		run_free(&o);
	}
}

Test(writers, json_for_an_input_error_carries_the_located_message_and_nulls)
{
	cs_diag d;
	cs_diag_clear(&d);
	cs_diag_at_text(&d, CS_ERR_INPUT, "bad.chain", 3, 7, "unknown directive '%s'", "frob");
	cs_report_meta meta = { .file = "bad.chain", .error = true,
				.error_msg = "bad.chain:3:7: unknown directive 'frob'",
				.error_diag = &d };
	char *json = cs_report_json(NULL, NULL, &meta);
	cr_assert_not_null(json);
	JsonParser *p = parse(json);
	JsonObject *root = json_node_get_object(json_parser_get_root(p));
	expect_exact_keys(root, "error object", top_keys, NTOP);
	cr_expect_str_eq(json_object_get_string_member(root, "result"), "error");
	JsonObject *e = json_object_get_object_member(root, "error");
	cr_assert_not_null(e);
	cr_expect_str_eq(json_object_get_string_member(e, "file"), "bad.chain");
	cr_expect_eq(json_object_get_int_member(e, "line"), 3);
	cr_expect_eq(json_object_get_int_member(e, "col"), 7);
	cr_expect(JSON_NODE_HOLDS_NULL(json_object_get_member(e, "offset")));
	cr_expect_str_eq(json_object_get_string_member(e, "message"), "unknown directive 'frob'");
	static const char *const nulls[] = { "arch", "chain", "first_break", "not_observable", "launches",
					     "expectations", "faults", "counters", "assumptions",
					     "findings", "output" };
	for (size_t i = 0; i < sizeof(nulls) / sizeof(nulls[0]); i++)
		cr_expect(JSON_NODE_HOLDS_NULL(json_object_get_member(root, nulls[i])), "%s not null",
			  nulls[i]);
	g_object_unref(p);
	free(json);

	/* a binary input's error is located by byte offset */
	cs_diag_at_offset(&d, CS_ERR_INPUT, "k.cubin", 0x40, "bad ELF header");
	meta.error_msg = "k.cubin: byte 0x40: bad ELF header";
	json = cs_report_json(NULL, NULL, &meta);
	p = parse(json);
	e = json_object_get_object_member(json_node_get_object(json_parser_get_root(p)), "error");
	cr_expect_eq(json_object_get_int_member(e, "offset"), 0x40);
	cr_expect(JSON_NODE_HOLDS_NULL(json_object_get_member(e, "line")));
	g_object_unref(p);
	free(json);
}

/* A text of words that fills cap - 1 bytes, as snprintf leaves a cut one. */
static void fill_words(char *buf, size_t cap)
{
	static const char words[] = "the launch at method nine never reached the engine ";
	for (size_t i = 0; i < cap - 1; i++)
		buf[i] = words[i % (sizeof(words) - 1)];
	buf[cap - 1] = '\0';
}

/* shown ends with " ..." and what precedes it is whole words of full. */
static void expect_word_cut(const char *shown, const char *full, const char *what)
{
	size_t n = strlen(shown);
	cr_assert_geq(n, 4, "%s: '%s'", what, shown);
	cr_expect_str_eq(shown + n - 4, " ...", "%s ends '%s'", what, shown + (n > 20 ? n - 20 : 0));
	size_t keep = n - 4;
	cr_expect_eq(strncmp(shown, full, keep), 0, "%s: not a prefix", what);
	cr_expect(full[keep] == ' ' || full[keep] == ',', "%s cut mid-word: '...%.12s|%.12s...'", what,
		  full + (keep > 12 ? keep - 12 : 0), full + keep);
	cr_expect_neq(shown[keep - 1], ' ', "%s: a space before the ellipsis", what);
}

Test(writers, a_full_buffer_is_never_cut_mid_word)
{
	cs_report r;
	memset(&r, 0, sizeof(r));
	r.arch = CS_ARCH_HOPPER;
	r.overall.launch = CS_NONE32;
	r.overall.break_event = SIZE_MAX;
	for (int s = 1; s <= CS_STAGE_COUNT; s++) {
		r.overall.rows[s].stage = (cs_stage)s;
		r.overall.rows[s].status = CS_STAGE_FIRED;
		snprintf(r.overall.rows[s].evidence, sizeof(r.overall.rows[s].evidence), "-");
	}
	r.overall.rows[5].status = CS_STAGE_NOT_FIRED;
	fill_words(r.overall.rows[5].evidence, sizeof(r.overall.rows[5].evidence));
	r.overall.first_break = CS_STAGE_FE_EXEC;
	r.overall.cause = CS_CAUSE_EARLIER_FAULT;
	r.overall.unobservable = CS_STAGE_NONE;
	fill_words(r.overall.diagnosis, sizeof(r.overall.diagnosis));

	cs_report_meta meta = { .file = "long.chain" };
	char *json = cs_report_json(&r, NULL, &meta);
	JsonParser *p = parse(json);
	JsonObject *root = json_node_get_object(json_parser_get_root(p));
	JsonObject *fb = json_object_get_object_member(root, "first_break");
	expect_word_cut(json_object_get_string_member(fb, "diagnosis"), r.overall.diagnosis,
			"JSON diagnosis");
	JsonObject *row = json_array_get_object_element(json_object_get_array_member(root, "chain"), 4);
	expect_word_cut(json_object_get_string_member(row, "evidence"), r.overall.rows[5].evidence,
			"JSON evidence");
	g_object_unref(p);
	free(json);

	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	cs_report_print_text(&r, &meta, f);
	fclose(f);
	char *brk = strstr(text, "break at stage 5 (fe-exec) [earlier-fault]: ");
	cr_assert_not_null(brk, "%s", text);
	brk += strlen("break at stage 5 (fe-exec) [earlier-fault]: ");
	*strchr(brk, '\n') = '\0';
	expect_word_cut(brk, r.overall.diagnosis, "text diagnosis");
	free(text);

	/* a text shorter than its buffer is shown whole */
	snprintf(r.overall.diagnosis, sizeof(r.overall.diagnosis), "short and whole");
	json = cs_report_json(&r, NULL, &meta);
	cr_expect(strstr(json, "\"short and whole\""), "%s", json);
	free(json);
}

Test(writers, addresses_named_by_the_scenario)
{
	run_out o = run_scenario("names.chain",
				 "arch hopper\n"
				 "alloc sem 16\n"
				 "alloc buf 0x2000\n"
				 "push pb\n"
				 "  release sem 1\n"
				 "end\n"
				 "gpfifo pb\n"
				 "submit\n"
				 "wait sem == 1\n",
				 CS_TRACE_CHAIN);
	uint64_t sem, buf, pb, size;
	cr_assert(cs_scenario_symbol(o.s, "sem", &sem, &size));
	cr_assert(cs_scenario_symbol(o.s, "buf", &buf, &size));
	cr_assert(cs_scenario_symbol(o.s, "pb", &pb, &size));
	char name[96];
	cs_device_addr_name(o.dev, sem, name, sizeof(name));
	cr_expect_str_eq(name, "sem");
	cs_device_addr_name(o.dev, sem + 4, name, sizeof(name));
	cr_expect_str_eq(name, "sem+0x4");
	cs_device_addr_name(o.dev, buf + 0x1040, name, sizeof(name));
	cr_expect_str_eq(name, "buf+0x1040");
	cs_device_addr_name(o.dev, pb + 0x10, name, sizeof(name));
	cr_expect_str_eq(name, "pb+0x10");
	/* past the size asked for (in the page's tail) and unmapped: hex */
	char hex[32];
	snprintf(hex, sizeof(hex), "0x%llx", (unsigned long long)(sem + 16));
	cs_device_addr_name(o.dev, sem + 16, name, sizeof(name));
	cr_expect_str_eq(name, hex);
	cs_device_addr_name(o.dev, 0x7d0000000ull, name, sizeof(name));
	cr_expect_str_eq(name, "0x7d0000000");
	/* the device's own regions are named after their channel */
	cs_device_chan_view v;
	cr_assert(cs_device_channel_view(o.dev, 0, &v));
	cs_device_addr_name(o.dev, v.userd_va + 0x8c, name, sizeof(name));
	cr_expect_str_eq(name, "chainsim.ch0.userd+0x8c");
	/* truncation reports the full length, like snprintf */
	char small[4];
	cr_expect_eq(cs_device_addr_name(o.dev, sem + 4, small, sizeof(small)), strlen("sem+0x4"));
	cr_expect_str_eq(small, "sem");
	run_free(&o);

	/* the JSON's own addresses carry the name beside the hex */
	o = run_scenario("earlier-fault.chain", NULL, CS_TRACE_CHAIN);
	JsonParser *p = parse(o.json);
	JsonObject *root = json_node_get_object(json_parser_get_root(p));
	JsonObject *ev = json_object_get_object_member(
		json_object_get_object_member(root, "first_break"), "evidence");
	cr_assert_not_null(ev);
	const char *an = json_object_get_string_member(ev, "addr_name");
	cr_expect(g_str_has_prefix(an, "pb"), "break evidence at %s named %s",
		  json_object_get_string_member(ev, "addr"), an);
	JsonObject *fault = json_array_get_object_element(json_object_get_array_member(root, "faults"), 0);
	cr_expect_str_eq(json_object_get_string_member(fault, "addr_name"), "0x7d0000000");
	g_object_unref(p);
	run_free(&o);
}

/* ---- the Perfetto trace ----------------------------------------------------- */

typedef struct trace_ev {
	const char *name, *ph, *cat, *scope;
	gint64 tid, id; /* id: a flow event's */
	double ts, dur;
	JsonObject *args;
} trace_ev;

static GArray *trace_events(JsonParser *p)
{
	JsonObject *root = json_node_get_object(json_parser_get_root(p));
	JsonArray *evs = json_object_get_array_member(root, "traceEvents");
	cr_assert_not_null(evs);
	GArray *out = g_array_new(FALSE, TRUE, sizeof(trace_ev));
	for (guint i = 0; i < json_array_get_length(evs); i++) {
		JsonObject *e = json_array_get_object_element(evs, i);
		trace_ev t = { 0 };
		t.ph = json_object_get_string_member(e, "ph");
		if (!strcmp(t.ph, "M"))
			continue;
		t.name = json_object_get_string_member(e, "name");
		t.cat = json_object_get_string_member(e, "cat");
		t.scope = json_object_has_member(e, "s") ? json_object_get_string_member(e, "s") : NULL;
		t.tid = json_object_get_int_member(e, "tid");
		t.ts = json_object_get_double_member(e, "ts");
		t.dur = json_object_has_member(e, "dur") ? json_object_get_double_member(e, "dur") : -1;
		t.id = json_object_has_member(e, "id") ? json_object_get_int_member(e, "id") : -1;
		t.args = json_object_get_object_member(e, "args");
		g_array_append_val(out, t);
	}
	return out;
}

static const trace_ev *find_ev(GArray *evs, const char *ph, const char *name_prefix)
{
	for (guint i = 0; i < evs->len; i++) {
		const trace_ev *t = &g_array_index(evs, trace_ev, i);
		if (!strcmp(t->ph, ph) && g_str_has_prefix(t->name, name_prefix))
			return t;
	}
	return NULL;
}

static bool near(double a, double b)
{
	return a - b < 1e-9 && b - a < 1e-9;
}

Test(writers, perfetto_slices_on_virtual_time_method_names_and_no_break_marker_when_complete)
{
	run_out o = run_scenario("complete-hopper-pcas.chain", NULL, CS_TRACE_ALL);
	JsonParser *p = parse(o.perfetto);
	GArray *evs = trace_events(p);
	/* the entry's fetch: one CS_FE_NS_PER_ENTRY (20 ns) ending at its record */
	const trace_ev *fetch = find_ev(evs, "X", "fetch entry 0");
	const trace_ev *rec = find_ev(evs, "i", "gp-fetch");
	cr_assert(fetch && rec, "no fetch slice or record");
	cr_expect(near(fetch->dur, 0.020), "fetch dur %f us", fetch->dur);
	cr_expect(near(fetch->ts + fetch->dur, rec->ts));
	cr_expect_eq(fetch->tid, 100, "on the channel's track");
	/* its execution: from the fetch to entry-done, the launch inside it */
	const trace_ev *exec = find_ev(evs, "X", "entry 0");
	const trace_ev *done = find_ev(evs, "i", "entry-done");
	cr_assert(exec && done);
	cr_expect(near(exec->ts, rec->ts));
	cr_expect(near(exec->ts + exec->dur, done->ts), "entry ends %f, entry-done at %f",
		  exec->ts + exec->dur, done->ts);
	cr_expect_gt(exec->dur, 1.0, "the launch (1000 ns) runs inside the entry");
	/* the grid: on the SM track, one CTA = 100 ns, inside the entry */
	const trace_ev *grid = find_ev(evs, "X", "grid (launch 0)");
	cr_assert_not_null(grid);
	cr_expect_eq(grid->tid, 12);
	cr_expect(near(grid->dur, 0.1), "grid dur %f us", grid->dur);
	cr_expect(grid->ts >= exec->ts && grid->ts + grid->dur <= exec->ts + exec->dur + 1e-9);
	/* methods are named by their class tables */
	const trace_ev *pcas = find_ev(evs, "i", "SEND_PCAS_A");
	cr_assert_not_null(pcas, "no method event named SEND_PCAS_A");
	cr_expect_str_eq(json_object_get_string_member(pcas->args, "method_name"), "SEND_PCAS_A");
	cr_expect_str_eq(json_object_get_string_member(pcas->args, "class"), "HOPPER_COMPUTE_A");
	/* the data dword's address, named by the scenario: in pushbuffer pb */
	cr_expect(g_str_has_prefix(json_object_get_string_member(pcas->args, "addr_name"), "pb+0x"),
		  "addr_name %s", json_object_get_string_member(pcas->args, "addr_name"));
	const trace_ev *rel = find_ev(evs, "i", "sem-release");
	cr_assert_not_null(rel);
	cr_expect_str_eq(json_object_get_string_member(rel->args, "addr_name"), "L.sem");
	const trace_ev *so = find_ev(evs, "i", "SET_OBJECT");
	cr_assert_not_null(so, "host-class method unnamed");
	cr_expect_str_eq(json_object_get_string_member(so->args, "class"), "HOPPER_CHANNEL_GPFIFO_A");
	cr_expect_null(find_ev(evs, "i", "method"), "a method event left unnamed");
	cr_expect_null(find_ev(evs, "i", "break:"), "a marker on a complete chain");
	g_array_free(evs, TRUE);
	g_object_unref(p);
	run_free(&o);
}

Test(writers, perfetto_copy_slice_and_break_marker)
{
	run_out o = run_scenario("copy-release.chain", NULL, CS_TRACE_CHAIN);
	JsonParser *p = parse(o.perfetto);
	GArray *evs = trace_events(p);
	const trace_ev *copy = find_ev(evs, "X", "copy ");
	const trace_ev *rec = find_ev(evs, "i", "copy");
	cr_assert(copy && rec, "no copy slice or record");
	cr_expect_eq(copy->tid, 11, "on the copy engine's track");
	guint64 bytes = g_ascii_strtoull(json_object_get_string_member(copy->args, "value"), NULL, 16);
	cr_expect_gt(bytes, 0);
	/* 200 ns per transfer + 1 ns per 16 bytes, from the record on */
	cr_expect(near(copy->dur, (200.0 + (double)((bytes + 15) / 16)) / 1000.0), "copy dur %f us",
		  copy->dur);
	cr_expect(near(copy->ts, rec->ts));
	g_array_free(evs, TRUE);
	g_object_unref(p);
	run_free(&o);

	o = run_scenario("earlier-fault.chain", NULL, CS_TRACE_CHAIN);
	p = parse(o.perfetto);
	evs = trace_events(p);
	const trace_ev *mark = find_ev(evs, "i", "break: stage 5 (fe-exec) [");
	cr_assert_not_null(mark, "no break marker");
	cr_expect_str_eq(mark->cat, "break");
	cr_expect_str_eq(mark->scope, "g", "a global instant");
	/* at the record the report names */
	const cs_event *be = cs_device_event(o.dev, o.r->overall.break_event);
	cr_assert_not_null(be);
	cr_expect_eq(json_object_get_int_member(mark->args, "seq"), (gint64)be->seq);
	cr_expect(near(mark->ts, (double)be->time_ns / 1000.0));
	const trace_ev *exec = find_ev(evs, "X", "entry 0");
	cr_assert_not_null(exec);
	cr_expect(strstr(exec->name, "unfinished"), "a stopped entry: '%s'", exec->name);
	g_array_free(evs, TRUE);
	g_object_unref(p);
	run_free(&o);
}

/* The flow named name: its start must be on from's track at from's time, its
 * end on the track and at the time of the slice or record `to`; each start
 * has one end. */
static void expect_flow(GArray *evs, const char *name, const trace_ev *from, const trace_ev *to)
{
	cr_assert(from && to, "%s: no slice or record to bind to", name);
	bool found = false;
	for (guint i = 0; i < evs->len && !found; i++) {
		const trace_ev *s = &g_array_index(evs, trace_ev, i);
		if (strcmp(s->ph, "s") || strcmp(s->name, name))
			continue;
		unsigned ends = 0;
		const trace_ev *end = NULL;
		for (guint k = 0; k < evs->len; k++) {
			const trace_ev *f = &g_array_index(evs, trace_ev, k);
			if (!strcmp(f->ph, "f") && f->id == s->id)
				ends++, end = f;
		}
		cr_assert_eq(ends, 1, "%s flow %" G_GINT64_FORMAT ": %u ends", name, s->id, ends);
		cr_expect_str_eq(end->name, name);
		found = s->tid == from->tid && near(s->ts, from->ts) && end->tid == to->tid &&
			near(end->ts, to->ts);
	}
	cr_expect(found, "no %s flow from track %" G_GINT64_FORMAT " at %f to track %" G_GINT64_FORMAT
		  " at %f", name, from->tid, from->ts, to->tid, to->ts);
}

static const trace_ev *find_counter(GArray *evs, const char *name, gint64 value)
{
	for (guint i = 0; i < evs->len; i++) {
		const trace_ev *t = &g_array_index(evs, trace_ev, i);
		if (!strcmp(t->ph, "C") && !strcmp(t->name, name) &&
		    json_object_get_int_member(t->args, "value") == value)
			return t;
	}
	return NULL;
}

/* A corpus scenario's run and its trace's events. */
typedef struct traced {
	run_out o;
	JsonParser *p;
	GArray *evs;
} traced;

static traced trace_of(const char *name)
{
	traced t = { .o = run_scenario(name, NULL, CS_TRACE_CHAIN) };
	t.p = parse(t.o.perfetto);
	t.evs = trace_events(t.p);
	return t;
}

static void traced_free(traced *t)
{
	g_array_free(t->evs, TRUE);
	g_object_unref(t->p);
	run_free(&t->o);
}

Test(writers, perfetto_flows_from_each_entry_to_its_launch_release_and_wait)
{
	traced t = trace_of("complete-hopper-pcas.chain");
	GArray *evs = t.evs;
	const trace_ev *entry = find_ev(evs, "X", "entry 0");
	expect_flow(evs, "launch", entry, find_ev(evs, "X", "grid (launch 0)"));
	const trace_ev *rel = find_ev(evs, "i", "sem-release");
	cr_assert_not_null(rel);
	cr_expect_eq(rel->tid, 10, "the engine's release, on the compute engine's track");
	expect_flow(evs, "release", entry, rel);
	expect_flow(evs, "wait", entry, find_ev(evs, "i", "wait-done"));
	/* GP_PUT 0 -> 1 by the guest, GP_GET 0 -> 1 by the fetch, L.sem 0 -> 1 */
	const trace_ev *put = find_counter(evs, "GP_PUT (channel default)", 1);
	cr_assert_not_null(put, "no GP_PUT counter");
	cr_expect(near(put->ts, find_ev(evs, "i", "gp-put")->ts));
	const trace_ev *get = find_counter(evs, "GP_GET (channel default)", 1);
	cr_assert_not_null(get, "no GP_GET counter");
	cr_expect(near(get->ts, find_ev(evs, "i", "gp-fetch")->ts));
	const trace_ev *sem = find_counter(evs, "semaphore L.sem", 1);
	cr_assert_not_null(sem, "no counter for L.sem");
	cr_expect(near(sem->ts, rel->ts));
	traced_free(&t);

	/* a copy's release, by the copy engine, and the wait on it */
	t = trace_of("copy-release.chain");
	evs = t.evs;
	entry = find_ev(evs, "X", "entry 0");
	rel = find_ev(evs, "i", "sem-release");
	cr_assert_not_null(rel);
	expect_flow(evs, "release", entry, rel);
	expect_flow(evs, "wait", entry, find_ev(evs, "i", "wait-done"));
	cr_expect_not_null(find_counter(evs, "semaphore sem", 5));
	cr_expect_null(find_ev(evs, "s", "launch"), "no launch, no launch flow");
	traced_free(&t);
}

Test(writers, a_failed_expectation_names_what_was_found_in_whole_words)
{
	const char *root = getenv("CHAINSIM_SOURCE_ROOT");
	char *path = g_build_filename(root, "tests", "conformance", "earlier-fault.chain", NULL);
	char *text = NULL;
	cr_assert(g_file_get_contents(path, &text, NULL, NULL));
	/* both fail: the break is stage 5, its diagnosis longer than a detail */
	char *more = g_strconcat(text, "expect break 9\nexpect stage 5 fired\n", NULL);
	run_out o = run_scenario("earlier-fault-more.chain", more, CS_TRACE_CHAIN);
	size_t n = cs_scenario_expect_count(o.s);
	cr_assert_geq(n, 2);
	const cs_expect_outcome *brk = cs_scenario_expect(o.s, n - 2);
	const cs_expect_outcome *st = cs_scenario_expect(o.s, n - 1);
	cr_assert_not(brk->held);
	cr_assert_not(st->held);
	char full[CS_DIAGNOSIS_MAX + 64];
	snprintf(full, sizeof(full), "the first break is stage 5 (fe-exec): %s", o.r->overall.diagnosis);
	cr_assert_gt(strlen(full), sizeof(brk->detail), "the case needs a long diagnosis");
	expect_word_cut(brk->detail, full, "expect break detail");
	snprintf(full, sizeof(full), "stage 5 (fe-exec) is not-fired: %s", o.r->overall.rows[5].evidence);
	cr_expect_str_eq(st->detail, full, "a detail that fits is whole");
	run_free(&o);
	g_free(more);
	g_free(text);
	g_free(path);
}

Test(writers, a_kernel_the_simulator_cannot_run_is_not_observable_in_json_and_trace)
{
	/* a bare cubin carries no PTX: stage 9 cannot be judged here */
	run_out o = run_scenario("not-observable.chain",
				 "arch hopper\n"
				 "module m ../../fixtures/kernels/out/vadd.sm_90.cubin\n"
				 "alloc a 4096\n"
				 "push pb\n"
				 "  launch m.vadd grid=1 block=32 args=a,a,a,1\n"
				 "end\n"
				 "gpfifo pb\n"
				 "submit\n"
				 "wait launch0.sem == 1\n",
				 CS_TRACE_CHAIN);
	cr_assert_eq(o.r->overall.first_break, CS_STAGE_NONE, "%s", o.r->overall.diagnosis);
	cr_assert_eq(o.r->overall.unobservable, CS_STAGE_GR_DISPATCH);
	JsonParser *p = parse(o.json);
	JsonObject *root = json_node_get_object(json_parser_get_root(p));
	cr_expect_str_eq(json_object_get_string_member(root, "result"), "not-observable");
	cr_expect(JSON_NODE_HOLDS_NULL(json_object_get_member(root, "first_break")));
	JsonObject *no = json_object_get_object_member(root, "not_observable");
	cr_assert_not_null(no, "no not_observable object");
	static const char *const nk[] = { "stage", "name", "cause", "diagnosis", "evidence" };
	expect_exact_keys(no, "not_observable", nk, 5);
	cr_expect_eq(json_object_get_int_member(no, "stage"), 9);
	cr_expect_str_eq(json_object_get_string_member(no, "cause"),
			 cs_cause_key(o.r->overall.cause));
	g_object_unref(p);

	p = parse(o.perfetto);
	GArray *evs = trace_events(p);
	const trace_ev *mark = find_ev(evs, "i", "not observable: stage 9 (gr-dispatch) [");
	cr_expect_not_null(mark, "no marker for the stage that cannot be judged");
	cr_expect_null(find_ev(evs, "i", "break:"));
	g_array_free(evs, TRUE);
	g_object_unref(p);
	run_free(&o);
}

/* The forwarding layer's edits without --trace: the text lists the first
 * CS_REPORT_EDITS_SHOWN under stage 3 and counts the rest, the JSON every one,
 * a wrong edit with its cause. */
/* A record of no channel (a view-map: a window of the host's view) has a null
 * channel in the trace, not 4294967295. */
Test(writers, perfetto_a_record_of_no_channel_has_a_null_channel)
{
	run_out o = run_scenario("map.chain", "arch hopper\n"
				 "map guest 0x200000000 host 0x5000000000 size 0x100000\n", CS_TRACE_CHAIN);
	JsonParser *p = parse(o.perfetto);
	JsonArray *evs = json_object_get_array_member(json_node_get_object(json_parser_get_root(p)),
						      "traceEvents");
	unsigned maps = 0;
	for (guint i = 0; i < json_array_get_length(evs); i++) {
		JsonObject *e = json_array_get_object_element(evs, i);
		JsonObject *args = json_object_has_member(e, "args")
					   ? json_object_get_object_member(e, "args") : NULL;
		if (!args || !json_object_has_member(args, "record") ||
		    strcmp(json_object_get_string_member(args, "record"), "view-map"))
			continue;
		maps++;
		cr_expect(json_object_get_null_member(args, "channel"), "%s", o.perfetto);
	}
	cr_expect_eq(maps, 1, "%s", o.perfetto);
	g_object_unref(p);
	run_free(&o);
}

/* One of a thing reads as one: "1 guest entry", "1 edit", "1 method", "1 dword". */
Test(writers, counts_of_one_read_in_the_singular)
{
	run_out o = run_scenario("one.chain", "arch hopper\n"
				 "map guest 0x200000000 host 0x5000000000 size 0x100000\n"
				 "rewrite\n  relocate\nend\n"
				 "push pb\n  imm 0 NOP 0\nend\ngpfifo pb\nsubmit\n", CS_TRACE_CHAIN);
	cr_expect(strstr(o.text, " 1 dword in pushbuffer pb\n"), "%s", o.text);
	cr_expect(strstr(o.text, " forwarded 1 guest entry as 1 host entry, 1 edit\n"), "%s", o.text);
	cr_expect(strstr(o.text, " entry 0: 0x5000000000, 1 dword\n"), "%s", o.text);
	cr_expect(strstr(o.text, " 1 entry, 1 method\n"), "%s", o.text);
	run_free(&o);
}

Test(writers, forwarding_edits_in_the_text_and_the_json)
{
	run_out o = run_scenario("forward-relocated.chain", NULL, CS_TRACE_CHAIN);
	cr_assert_eq(o.r->nedits, 9, "%zu edits", o.r->nedits);
	const char *row3 = strstr(o.text, "\n 3  host-forward"), *row4 = strstr(o.text, "\n 4  fe-fetch");
	cr_assert(row3 && row4 && row3 < row4, "%s", o.text);
	unsigned lines = 0;
	for (const char *p = strchr(row3 + 1, '\n'); p && p < row4; p = strchr(p + 1, '\n'))
		lines++;
	/* eight edits and the count of the rest */
	cr_expect_eq(lines, CS_REPORT_EDITS_SHOWN + 1, "%s", o.text);
	cr_expect(strstr(o.text, "\n    relocate: entry 0's I2M_DST: guest cb+0x210 -> host "
				 "0x5000001210\n"), "%s", o.text);
	cr_expect(strstr(o.text, "\n    and 1 more edit (--trace records every one)\n 4  fe-fetch"),
		  "%s", o.text);
	JsonParser *p = parse(o.json);
	JsonObject *root = json_node_get_object(json_parser_get_root(p));
	JsonArray *es = json_object_get_array_member(root, "edits");
	cr_assert_eq(json_array_get_length(es), 9);
	JsonObject *last = json_array_get_object_element(es, 8);
	cr_expect_str_eq(json_object_get_string_member(last, "edit"), "copy");
	cr_expect(strstr(json_object_get_string_member(last, "text"), "entry 0's pushbuffer: pb ("),
		  "%s", o.json);
	g_object_unref(p);
	run_free(&o);

	o = run_scenario("forward-misrelocated.chain", NULL, CS_TRACE_CHAIN);
	cr_expect(strstr(o.text, "\n    relocate: entry 0's RELEASE0_ADDRESS at guest L.sem was "
				 "relocated to 0x5000002100, but the host's view holds it at "
				 "0x5000002000 [forward-misrelocated]\n"), "%s", o.text);
	cr_expect_null(strstr(o.text, "more edit"), "%s", o.text);
	p = parse(o.json);
	root = json_node_get_object(json_parser_get_root(p));
	es = json_object_get_array_member(root, "edits");
	unsigned wrong = 0;
	for (guint i = 0; i < json_array_get_length(es); i++) {
		JsonObject *e = json_array_get_object_element(es, i);
		if (json_node_is_null(json_object_get_member(e, "cause")))
			continue;
		wrong++;
		cr_expect_str_eq(json_object_get_string_member(e, "cause"), "forward-misrelocated");
		cr_expect_str_eq(json_object_get_string_member(e, "guest_name"), "L.sem");
		cr_expect_str_eq(json_object_get_string_member(e, "host"), "0x5000002100");
	}
	cr_expect_eq(wrong, 1);
	g_object_unref(p);
	run_free(&o);
}

/* SPDX-License-Identifier: MIT */
/* The device: wiring, channels, submission records, waits and deadlocks, the
 * inline-QMD watch, trace levels, determinism, two devices in one process, and
 * the JSON and Perfetto writers' shapes. Streams are built by hand here (no
 * scenario parser), except where the corpus's complete chains are reused. */
#include <criterion/criterion.h>
#include <glib.h>
#include <json-glib/json-glib.h>
#include <stdlib.h>
#include <string.h>

#include "chainsim/device.h"
#include "chainsim/fe.h"
#include "chainsim/gr.h"
#include "chainsim/pushbuf.h"
#include "chainsim/report.h"
#include "chainsim/scenario.h"

static cs_device *new_dev(cs_arch arch, cs_trace_level level)
{
	cs_device_config cfg = { .arch = arch, .trace_level = level };
	cs_diag d;
	cs_device *dev = cs_device_new(&cfg, &d);
	cr_assert_not_null(dev, "%s", d.msg);
	return dev;
}

/* Map a pushbuffer of n dwords and push its GPFIFO entry on channel ch. */
static uint64_t put_pb(cs_device *dev, uint32_t ch, const uint32_t *dw, uint32_t n)
{
	uint64_t va;
	cs_diag d;
	cr_assert(cs_mem_alloc(cs_device_mem(dev), "", (uint64_t)n * 4, 4096, &va, &d), "%s", d.msg);
	cr_assert(cs_mem_write(cs_device_mem(dev), va, dw, (size_t)n * 4, NULL));
	cs_gp_entry e = { .addr = va, .length = n };
	uint32_t lo, hi;
	cs_gp_encode(&e, &lo, &hi);
	cr_assert(cs_device_gpfifo_push(dev, ch, lo, hi, &d), "%s", d.msg);
	return va;
}

/* A host semaphore release of value to sem: 5 dwords. */
static uint32_t host_release(uint32_t *out, uint64_t sem, uint32_t value)
{
	out[0] = cs_pb_inc(0, CS_FE_M_SEM_ADDR_LO, 4);
	out[1] = (uint32_t)sem;
	out[2] = (uint32_t)(sem >> 32);
	out[3] = value;
	out[4] = 0;
	out[5] = cs_pb_inc(0, CS_FE_M_SEM_EXECUTE, 1);
	out[6] = cs_fe_sem_execute(CS_FE_SEM_RELEASE, false, false, false, 0, false);
	return 7;
}

static uint32_t host_acquire(uint32_t *out, uint64_t sem, uint32_t value)
{
	uint32_t n = host_release(out, sem, value);
	out[6] = cs_fe_sem_execute(CS_FE_SEM_ACQUIRE, false, false, false, 0, false);
	return n;
}

static size_t count_kind(const cs_device *dev, cs_event_kind k)
{
	size_t n = 0;
	for (size_t i = 0; i < cs_device_event_count(dev); i++)
		n += cs_device_event(dev, i)->kind == k;
	return n;
}

static const cs_event *find_kind(const cs_device *dev, cs_event_kind k)
{
	for (size_t i = 0; i < cs_device_event_count(dev); i++)
		if (cs_device_event(dev, i)->kind == k)
			return cs_device_event(dev, i);
	return NULL;
}

static uint64_t new_sem(cs_device *dev)
{
	uint64_t va;
	cs_diag d;
	cr_assert(cs_mem_alloc(cs_device_mem(dev), "", 16, 16, &va, &d));
	return va;
}

Test(device, channels_live_in_device_memory)
{
	cs_device *dev = new_dev(CS_ARCH_HOPPER, CS_TRACE_CHAIN);
	cr_expect_eq(cs_device_channel_count(dev), 1);
	cr_expect_str_eq(cs_device_channel_name(dev, 0), "default");
	cs_device_chan_view v;
	cr_assert(cs_device_channel_view(dev, 0, &v));
	cr_expect_eq(v.ring_va, CS_DEVICE_CHANNEL_BASE);
	cr_expect_eq(v.entries, 1024);
	cr_expect(cs_mem_mapped(cs_device_mem(dev), v.ring_va, 1024 * 8));
	cr_expect(cs_mem_mapped(cs_device_mem(dev), v.userd_va, CS_USERD_SIZE));
	uint32_t id, again;
	cs_diag d;
	cr_assert(cs_device_channel(dev, "second", 4, &id, &d), "%s", d.msg);
	cr_expect_eq(id, 1);
	cr_assert(cs_device_channel(dev, "second", 0, &again, &d));
	cr_expect_eq(again, 1);
	cr_expect_not(cs_device_channel(dev, "odd", 3, &id, &d));
	cr_expect(strstr(d.msg, "power of two"), "%s", d.msg);
	cr_expect_eq(cs_mem_va_bits(cs_device_mem(dev)), 57);
	cs_device_free(dev);
	dev = new_dev(CS_ARCH_AMPERE, CS_TRACE_CHAIN);
	cr_expect_eq(cs_mem_va_bits(cs_device_mem(dev)), 49);
	cs_device_free(dev);
}

Test(device, ring_full_is_an_error_not_a_wrap)
{
	cs_device *dev = new_dev(CS_ARCH_HOPPER, CS_TRACE_CHAIN);
	uint32_t ch;
	cs_diag d;
	cr_assert(cs_device_channel(dev, "tiny", 2, &ch, &d));
	cr_expect(cs_device_gpfifo_push(dev, ch, 0, 0, &d));
	cr_expect_not(cs_device_gpfifo_push(dev, ch, 0, 0, &d));
	cr_expect(strstr(d.msg, "full"), "%s", d.msg);
	cs_device_free(dev);
}

Test(device, submit_records_stages_2_and_3_then_runs)
{
	cs_device *dev = new_dev(CS_ARCH_HOPPER, CS_TRACE_CHAIN);
	uint64_t sem = new_sem(dev);
	uint32_t pb[16];
	uint32_t n = host_release(pb, sem, 7);
	put_pb(dev, 0, pb, n);
	cs_diag d;
	cr_assert(cs_device_submit(dev, 0, &d), "%s", d.msg);
	const cs_event *e = find_kind(dev, CS_EV_GP_PUT);
	cr_assert_not_null(e);
	cr_expect_eq(e->value, 1);
	cr_expect_eq(e->aux, 0);
	cr_expect_eq(e->unit, CS_UNIT_GUEST);
	e = find_kind(dev, CS_EV_HOST_FORWARD);
	cr_assert_not_null(e);
	cr_expect_str_eq(e->detail, "identity (no rewrite)");
	cr_expect_eq(e->value, 1);
	cr_expect_eq(count_kind(dev, CS_EV_DOORBELL), 1);
	cr_expect_eq(count_kind(dev, CS_EV_GP_FETCH), 1);
	cr_expect_eq(count_kind(dev, CS_EV_ENTRY_DONE), 1);
	/* The guest's GP_PUT is in USERD; the front end wrote GP_GET back. */
	cs_device_chan_view v;
	cs_device_channel_view(dev, 0, &v);
	uint32_t put = 0, get = 0;
	cr_assert(cs_device_peek(dev, v.userd_va + CS_USERD_GP_PUT, &put, 4));
	cr_assert(cs_device_peek(dev, v.userd_va + CS_USERD_GP_GET, &get, 4));
	cr_expect_eq(put, 1);
	cr_expect_eq(get, 1);
	cr_expect(cs_device_wait(dev, sem, 7, false));
	cr_expect_eq(count_kind(dev, CS_EV_WAIT_DONE), 1);
	cs_device_finish(dev);
	/* seq and time are stamped and never go backwards. */
	for (size_t i = 1; i < cs_device_event_count(dev); i++) {
		cr_expect_eq(cs_device_event(dev, i)->seq, i);
		cr_expect_geq(cs_device_event(dev, i)->time_ns, cs_device_event(dev, i - 1)->time_ns);
	}
	cr_expect_gt(cs_device_now(dev), 0);
	cs_report *r = cs_report_build(dev);
	cr_expect_eq(r->overall.rows[6].status, CS_STAGE_NA);
	cr_expect_eq(r->overall.first_break, CS_STAGE_NONE, "%s", r->overall.diagnosis);
	cs_report_free(r);
	cs_device_free(dev);
}

Test(device, unmet_wait_with_a_blocked_channel_records_one_deadlock)
{
	cs_device *dev = new_dev(CS_ARCH_AMPERE, CS_TRACE_CHAIN);
	uint64_t gate = new_sem(dev), done = new_sem(dev);
	uint32_t pb[32];
	uint32_t n = host_acquire(pb, gate, 1);
	n += host_release(pb + n, done, 1);
	put_pb(dev, 0, pb, n);
	cs_diag d;
	cr_assert(cs_device_submit(dev, 0, &d));
	cr_expect_not(cs_device_wait(dev, done, 1, false));
	cr_expect_eq(count_kind(dev, CS_EV_WAIT_FAILED), 1);
	cr_expect_eq(count_kind(dev, CS_EV_DEADLOCK), 1);
	cs_device_finish(dev); /* nothing ran since: the same deadlock, not a new one */
	cr_expect_eq(count_kind(dev, CS_EV_DEADLOCK), 1);
	const cs_event *e = find_kind(dev, CS_EV_DEADLOCK);
	cr_expect_eq(e->addr, gate);
	cr_expect_eq(e->value, 1);
	cr_expect_eq(e->aux, 0);
	cs_report *r = cs_report_build(dev);
	cr_expect_eq(r->overall.first_break, CS_STAGE_FE_EXEC);
	cr_expect_str_eq(cs_cause_key(r->overall.cause), "deadlock");
	cs_report_free(r);

	/* The guest writes the gate: the next wait unblocks the channel. */
	uint32_t one = 1;
	cr_assert(cs_mem_write(cs_device_mem(dev), gate, &one, 4, NULL));
	cr_expect(cs_device_wait(dev, done, 1, false));
	cs_device_free(dev);
}

Test(device, trace_level_chain_drops_method_records)
{
	for (int level = 0; level < 2; level++) {
		cs_device *dev = new_dev(CS_ARCH_HOPPER, (cs_trace_level)level);
		uint64_t sem = new_sem(dev);
		uint32_t pb[16];
		put_pb(dev, 0, pb, host_release(pb, sem, 1));
		cs_diag d;
		cs_device_submit(dev, 0, &d);
		size_t m = count_kind(dev, CS_EV_METHOD);
		if (level == CS_TRACE_ALL)
			cr_expect_eq(m, 5, "level all: %zu method records", m);
		else
			cr_expect_eq(m, 0);
		cs_device_free(dev);
	}
}

Test(device, inline_qmd_short_is_recorded_at_finish)
{
	cs_device *dev = new_dev(CS_ARCH_HOPPER, CS_TRACE_CHAIN);
	uint64_t q;
	cs_diag d;
	cr_assert(cs_mem_alloc(cs_device_mem(dev), "q", 512, 256, &q, &d));
	uint32_t pb[32], n = 0;
	pb[n++] = cs_pb_inc(1, CS_FE_M_SET_OBJECT, 1);
	pb[n++] = 0xCBC0;
	pb[n++] = cs_pb_inc(1, CS_GR_SET_INLINE_QMD_ADDRESS_A, 2);
	pb[n++] = 0x40000000u | (uint32_t)(q >> 40);
	pb[n++] = (uint32_t)(q >> 8);
	pb[n++] = cs_pb_inc(1, CS_GR_LOAD_INLINE_QMD_DATA, 3);
	pb[n++] = 1;
	pb[n++] = 2;
	pb[n++] = 3;
	put_pb(dev, 0, pb, n);
	cr_assert(cs_device_submit(dev, 0, &d));
	cr_expect_eq(count_kind(dev, CS_EV_INLINE_QMD_SHORT), 0);
	cs_device_finish(dev);
	const cs_event *e = find_kind(dev, CS_EV_INLINE_QMD_SHORT);
	cr_assert_not_null(e);
	cr_expect_eq(e->value, 3);
	cr_expect_eq(e->aux, 96);
	cr_expect_eq(e->addr, q);
	cr_expect_eq(e->gp_entry, 0);
	cr_expect_eq(e->method_index, 2);
	cs_report *r = cs_report_build(dev);
	cr_expect_eq(r->overall.first_break, CS_STAGE_QMD_INSTALL);
	cr_expect_str_eq(cs_cause_key(r->overall.cause), "inline-qmd-incomplete");
	cs_report_free(r);
	cs_device_free(dev);
}

Test(device, two_devices_do_not_interfere)
{
	cs_device *a = new_dev(CS_ARCH_HOPPER, CS_TRACE_CHAIN);
	cs_device *b = new_dev(CS_ARCH_AMPERE, CS_TRACE_CHAIN);
	uint64_t sa = new_sem(a), sb = new_sem(b);
	cr_expect_eq(sa, sb); /* same VA, different spaces */
	uint32_t pa[16], pbb[16];
	put_pb(a, 0, pa, host_release(pa, sa, 11));
	put_pb(b, 0, pbb, host_release(pbb, sb, 22));
	cs_diag d;
	cr_assert(cs_device_submit(a, 0, &d));
	size_t nb = cs_device_event_count(b);
	cr_expect_eq(nb, 0, "device b got %zu records from a's submit", nb);
	cr_assert(cs_device_submit(b, 0, &d));
	uint32_t va = 0, vb = 0;
	cs_device_peek(a, sa, &va, 4);
	cs_device_peek(b, sb, &vb, 4);
	cr_expect_eq(va, 11);
	cr_expect_eq(vb, 22);
	cr_expect_eq(cs_device_event(b, 0)->seq, 0);
	cr_expect(cs_device_wait(a, sa, 11, false));
	cr_expect_not(cs_device_wait(b, sb, 11, false));
	cr_expect_eq(count_kind(a, CS_EV_WAIT_FAILED), 0);
	cr_expect_eq(count_kind(b, CS_EV_WAIT_FAILED), 1);
	cs_device_free(a);
	cs_device_free(b);
}

/* ---- whole runs of a corpus file ----------------------------------------------- */

typedef struct run_out {
	char *json;
	char *perfetto;
	char *text;
	size_t nevents;
} run_out;

static run_out run_file(const char *name, bool no_exec)
{
	const char *root = getenv("CHAINSIM_SOURCE_ROOT");
	cr_assert_not_null(root);
	char *path = g_build_filename(root, "tests", "conformance", name, NULL);
	cs_diag d;
	cs_scenario *s = cs_scenario_load(path, &d);
	cr_assert_not_null(s, "%s", d.msg);
	cs_device_config cfg = { .arch = cs_scenario_arch(s), .no_executor = no_exec };
	cs_device *dev = cs_device_new(&cfg, &d);
	cr_assert_not_null(dev);
	cr_assert(cs_scenario_execute(s, dev, &d), "%s", d.msg);
	cs_report *r = cs_report_build(dev);
	cs_report_meta meta = { .file = name };
	run_out o = { 0 };
	o.json = cs_report_json(r, dev, &meta);
	o.perfetto = cs_trace_perfetto_json(dev);
	o.nevents = cs_device_event_count(dev);
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	cs_report_print_text(r, &meta, f);
	fclose(f);
	o.text = buf;
	cs_report_free(r);
	cs_device_free(dev);
	cs_scenario_free(s);
	g_free(path);
	return o;
}

static void run_free(run_out *o)
{
	free(o->json);
	free(o->perfetto);
	free(o->text);
}

Test(device, deterministic_byte_for_byte)
{
	static const char *const files[] = { "complete-hopper-pcas.chain",
					     "earlier-fault.chain", "deadlock.chain" };
	for (size_t i = 0; i < 3; i++) {
		run_out a = run_file(files[i], false), b = run_file(files[i], false);
		cr_expect_gt(a.nevents, 5);
		cr_expect_eq(a.nevents, b.nevents);
		cr_expect_str_eq(a.perfetto, b.perfetto, "%s: traces differ", files[i]);
		cr_expect_str_eq(a.json, b.json, "%s: JSON differs", files[i]);
		cr_expect_str_eq(a.text, b.text, "%s: text differs", files[i]);
		run_free(&a);
		run_free(&b);
	}
}

Test(device, json_has_exactly_the_design_keys)
{
	run_out o = run_file("earlier-fault.chain", false);
	JsonParser *p = json_parser_new();
	cr_assert(json_parser_load_from_data(p, o.json, -1, NULL), "not JSON:\n%s", o.json);
	JsonObject *root = json_node_get_object(json_parser_get_root(p));
	/* the design's eight, then schema 1's additions (docs/json.md) */
	static const char *const keys[] = { "arch", "result", "chain", "first_break",
					    "launches", "expectations", "faults", "edits", "counters",
					    "schema_version", "file", "error", "assumptions",
					    "not_observable", "findings", "output" };
	enum { NKEYS = sizeof(keys) / sizeof(keys[0]) };
	cr_expect_eq(json_object_get_size(root), NKEYS);
	for (size_t i = 0; i < NKEYS; i++)
		cr_expect(json_object_has_member(root, keys[i]), "no '%s'", keys[i]);
	cr_expect_str_eq(json_object_get_string_member(root, "arch"), "hopper");
	cr_expect_str_eq(json_object_get_string_member(root, "result"), "broken");
	JsonArray *chain = json_object_get_array_member(root, "chain");
	cr_assert_eq(json_array_get_length(chain), 11);
	for (guint i = 0; i < 11; i++) {
		JsonObject *row = json_array_get_object_element(chain, i);
		cr_expect_eq(json_object_get_size(row), 5);
		cr_expect_eq(json_object_get_int_member(row, "stage"), (gint64)i + 1);
		static const char *const rk[] = { "name", "status", "author", "evidence" };
		for (size_t k = 0; k < 4; k++)
			cr_expect(json_object_has_member(row, rk[k]), "row %u lacks %s", i, rk[k]);
	}
	JsonObject *fb = json_object_get_object_member(root, "first_break");
	cr_assert_not_null(fb);
	cr_expect_eq(json_object_get_int_member(fb, "stage"), 5);
	cr_expect_str_eq(json_object_get_string_member(fb, "name"), "fe-exec");
	cr_expect_str_eq(json_object_get_string_member(fb, "cause"), "earlier-fault");
	cr_expect(strstr(json_object_get_string_member(fb, "diagnosis"), "never reached the engine"));
	cr_expect_geq(json_array_get_length(json_object_get_array_member(root, "faults")), 1);
	JsonObject *ctr = json_object_get_object_member(root, "counters");
	cr_expect(json_object_has_member(ctr, "entries"));
	cr_expect(json_object_has_member(ctr, "launches"));
	g_object_unref(p);
	run_free(&o);

	o = run_file("complete-hopper-inline.chain", false);
	p = json_parser_new();
	cr_assert(json_parser_load_from_data(p, o.json, -1, NULL));
	root = json_node_get_object(json_parser_get_root(p));
	cr_expect_str_eq(json_object_get_string_member(root, "result"), "complete");
	cr_expect(JSON_NODE_HOLDS_NULL(json_object_get_member(root, "first_break")));
	cr_expect_eq(json_array_get_length(json_object_get_array_member(root, "launches")), 1);
	g_object_unref(p);
	run_free(&o);
}

Test(device, perfetto_is_valid_json_with_tracks)
{
	run_out o = run_file("complete-hopper-pcas.chain", false);
	JsonParser *p = json_parser_new();
	cr_assert(json_parser_load_from_data(p, o.perfetto, -1, NULL), "not JSON");
	JsonObject *root = json_node_get_object(json_parser_get_root(p));
	JsonArray *evs = json_object_get_array_member(root, "traceEvents");
	cr_assert_not_null(evs);
	bool chan = false, compute = false, sm = false, grid_slice = false;
	guint instants = 0;
	for (guint i = 0; i < json_array_get_length(evs); i++) {
		JsonObject *e = json_array_get_object_element(evs, i);
		const char *ph = json_object_get_string_member(e, "ph");
		cr_assert_not_null(ph);
		cr_expect(json_object_has_member(e, "pid"));
		if (!strcmp(ph, "M")) {
			JsonObject *args = json_object_get_object_member(e, "args");
			const char *n = json_object_get_string_member(args, "name");
			chan = chan || !strcmp(n, "channel default (front end)");
			compute = compute || !strcmp(n, "compute engine");
			sm = sm || !strcmp(n, "sm (executor)");
			continue;
		}
		cr_expect(json_object_has_member(e, "ts"));
		cr_expect(json_object_has_member(e, "tid"));
		if (!strcmp(ph, "i"))
			instants++;
		if (!strcmp(ph, "X"))
			grid_slice = true;
	}
	cr_expect(chan && compute && sm, "tracks: channel %d compute %d sm %d", chan, compute, sm);
	cr_expect_eq(instants, o.nevents, "one instant per record");
	cr_expect(grid_slice, "no grid slice");
	g_object_unref(p);
	run_free(&o);
}

Test(device, run_budget_end_is_named_not_hidden)
{
	cs_device_config cfg = { .arch = CS_ARCH_HOPPER, .run_budget = 1 };
	cs_diag d;
	cs_device *dev = cs_device_new(&cfg, &d);
	cr_assert_not_null(dev);
	uint64_t sem = new_sem(dev);
	uint32_t pb[16];
	uint32_t n = host_release(pb, sem, 0); /* entry 0 writes 0 */
	put_pb(dev, 0, pb, n);
	n = host_release(pb, sem, 5); /* entry 1 writes 5: past the budget */
	put_pb(dev, 0, pb, n);
	cr_assert(cs_device_submit(dev, 0, &d));
	cr_expect_eq(count_kind(dev, CS_EV_GP_FETCH), 1);
	/* The wait runs the device again (one more entry): it resolves. */
	cr_expect(cs_device_wait(dev, sem, 5, false));
	cs_device_free(dev);

	dev = cs_device_new(&cfg, &d);
	sem = new_sem(dev);
	for (int i = 0; i < 3; i++) {
		n = host_release(pb, sem, (uint32_t)i + 1);
		put_pb(dev, 0, pb, n);
	}
	cr_assert(cs_device_submit(dev, 0, &d));
	cr_expect_not(cs_device_wait(dev, sem, 3, false));
	const cs_event *e = find_kind(dev, CS_EV_WAIT_FAILED);
	cr_assert_not_null(e);
	cr_expect(strstr(e->detail, "budget"), "%s", e->detail);
	cs_report *r = cs_report_build(dev);
	/* 3 entries forwarded, 2 fetched, nothing stopped or blocked: stage 4. */
	cr_expect_eq(r->overall.first_break, CS_STAGE_FE_FETCH);
	cr_expect_str_eq(cs_cause_key(r->overall.cause), "not-fetched", "%s", r->overall.diagnosis);
	cr_expect(strstr(r->overall.diagnosis, "fetched 2"), "%s", r->overall.diagnosis);
	cs_report_free(r);
	cs_device_free(dev);
}

/* The views the REPL and the judge's evidence read through: a pushbuffer's
 * dwords (bounded at CS_DEVICE_PB_MAX_DWORDS, each refusal naming the
 * address), a channel's front-end state, a QMD as the engine reads it. */
Test(device, views_read_pushbuffers_channels_and_qmds)
{
	cs_device *dev = new_dev(CS_ARCH_HOPPER, CS_TRACE_CHAIN);
	const uint32_t pb[] = { cs_pb_inc(1, 0, 1), 0xCBC0, cs_pb_immd(0, 0x200, 1) };
	uint64_t va = put_pb(dev, 0, pb, 3);
	cs_diag d;
	uint32_t *dw = cs_device_pb_read(dev, va, 3, &d);
	cr_assert_not_null(dw, "%s", d.msg);
	cr_assert_arr_eq(dw, pb, sizeof(pb));
	free(dw);
	char at[32];
	snprintf(at, sizeof(at), "0x%llx", (unsigned long long)va);
	cr_assert_null(cs_device_pb_read(dev, va, 0, &d));
	cr_assert(strstr(d.msg, at), "%s", d.msg);
	cr_assert_null(cs_device_pb_read(dev, va, 4096, &d)); /* past the region */
	cr_assert(strstr(d.msg, at) && strstr(d.msg, "not all mapped"), "%s", d.msg);

	uint64_t big;
	cr_assert(cs_mem_alloc(cs_device_mem(dev), "big", 4ull * CS_DEVICE_PB_MAX_DWORDS + 4096, 4096,
			       &big, &d), "%s", d.msg);
	dw = cs_device_pb_read(dev, big, CS_DEVICE_PB_MAX_DWORDS, &d);
	cr_assert_not_null(dw, "%s", d.msg);
	free(dw);
	cr_assert_null(cs_device_pb_read(dev, big, CS_DEVICE_PB_MAX_DWORDS + 1, &d));
	cr_assert_eq(d.status, CS_ERR_INPUT);
	cr_assert(strstr(d.msg, "1048577 dwords, not 1 to 1048576"), "%s", d.msg);

	cs_fe_channel_info ci;
	cs_device_chan_view v;
	cr_assert(cs_device_channel_info(dev, 0, &ci));
	cr_assert(cs_device_channel_view(dev, 0, &v));
	cr_assert_eq(ci.ring_va, v.ring_va);
	cr_assert_eq(ci.ring_entries, v.entries);
	cr_assert_not(cs_device_channel_info(dev, 1, &ci));

	cs_qmd q, back;
	cr_assert(cs_qmd_init(&q, cs_class_qmd_major(cs_arch_get(CS_ARCH_HOPPER)->compute_class), &d));
	cr_assert(cs_qmd_set(&q, "GRID_WIDTH", 7, &d), "%s", d.msg);
	uint64_t qva;
	cr_assert(cs_mem_alloc(cs_device_mem(dev), "Q", q.layout->bytes, 256, &qva, &d));
	cr_assert(cs_mem_write(cs_device_mem(dev), qva, q.dw, q.layout->bytes, NULL));
	uint64_t fault = 0, width = 0;
	cr_assert(cs_device_qmd_read(dev, qva, &back, &fault));
	cr_assert(cs_qmd_get(&back, "GRID_WIDTH", &width, &d), "%s", d.msg);
	cr_assert_eq(width, 7);
	cr_assert_not(cs_device_qmd_read(dev, 0x7d0000000ull, &back, &fault));
	cr_assert_eq(fault, 0x7d0000000ull);
	cs_device_free(dev);
}

/* SPDX-License-Identifier: MIT */
/* The trace as Chrome/Perfetto trace-event JSON: one process (the device),
 * one track (thread) per unit, per channel for the front end. Every record is
 * an instant event (a method record named by its class table), and what takes
 * virtual time is a complete event ("X", ts and dur): each GPFIFO entry's
 * fetch and its execution on the channel's track, each grid on the SM track,
 * each copy-engine transfer and inline-to-memory write on its engine's track.
 * Flow arrows run from each entry's execution to the grids it launched, the
 * releases it caused and the waits those resolved; counter tracks follow each
 * channel's GP_GET and GP_PUT and each semaphore the scenario names. A global
 * instant marks the record that decided the report's break. Virtual time is
 * the clock: ts and dur in microseconds of virtual nanoseconds. */
#include "chainsim/report.h"

#include <glib.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "chainsim/fe.h"
#include "chainsim/gr.h"
#include "chainsim/json.h"
#include "chainsim/registry.h"

enum {
	TID_GUEST = 1,
	TID_HOST = 2,
	TID_COMPUTE = 10,
	TID_COPY = 11,
	TID_SM = 12,
	TID_CHANNEL = 100, /* + channel id: the front end's track for that channel */
};

static int64_t tid_of(const cs_event *e)
{
	switch ((cs_unit)e->unit) {
	case CS_UNIT_GUEST: return TID_GUEST;
	case CS_UNIT_HOST: return TID_HOST;
	case CS_UNIT_FE: return TID_CHANNEL + e->channel;
	case CS_UNIT_COMPUTE: return TID_COMPUTE;
	case CS_UNIT_COPY: return TID_COPY;
	case CS_UNIT_SM: return TID_SM;
	case CS_UNIT_COUNT: break;
	}
	return TID_HOST;
}

static void track_name(cs_json_writer *b, int64_t tid, const char *name)
{
	cs_json_begin_object(b);
	cs_json_key(b, "ph");
	cs_json_string(b, "M");
	cs_json_key(b, "name");
	cs_json_string(b, "thread_name");
	cs_json_key(b, "pid");
	cs_json_int(b, 1);
	cs_json_key(b, "tid");
	cs_json_int(b, tid);
	cs_json_key(b, "args");
	cs_json_begin_object(b);
	cs_json_key(b, "name");
	cs_json_string(b, name);
	cs_json_end_object(b);
	cs_json_end_object(b);
}

static void hex_member(cs_json_writer *b, const char *key, uint64_t v)
{
	char buf[32];
	snprintf(buf, sizeof(buf), "0x%llx", (unsigned long long)v);
	cs_json_key(b, key);
	cs_json_string(b, buf);
}

static void event_common(cs_json_writer *b, const char *name, const char *cat, const char *ph,
			 int64_t tid, uint64_t time_ns)
{
	cs_json_key(b, "name");
	cs_json_string(b, name);
	cs_json_key(b, "cat");
	cs_json_string(b, cat);
	cs_json_key(b, "ph");
	cs_json_string(b, ph);
	cs_json_key(b, "pid");
	cs_json_int(b, 1);
	cs_json_key(b, "tid");
	cs_json_int(b, tid);
	cs_json_key(b, "ts");
	cs_json_double(b, (double)time_ns / 1000.0);
}

/* The method's name from its class table ("SEM_EXECUTE", "LAUNCH_DMA"), or
 * its hex offset when no table names it. */
static void method_label(cs_arch arch, const cs_event *e, char *buf, size_t len)
{
	uint32_t cls = e->cls == CS_NONE32 ? 0 : e->cls;
	uint32_t subch = e->subch == CS_NONE32 ? 0 : e->subch;
	if (!cs_registry_method_label(arch, cls, subch, e->method, buf, len, NULL))
		snprintf(buf, len, "method 0x%" PRIx32, e->method);
}

static void event_args(cs_json_writer *b, const cs_device *dev, const cs_event *e)
{
	cs_arch arch = cs_device_arch(dev);
	cs_json_key(b, "args");
	cs_json_begin_object(b);
	cs_json_key(b, "record");
	cs_json_string(b, cs_event_kind_name((cs_event_kind)e->kind));
	cs_json_key(b, "seq");
	cs_json_int(b, (int64_t)e->seq);
	cs_json_key(b, "stage");
	cs_json_int(b, e->stage);
	/* a record of no channel (a window of the host's view) says so */
	cs_json_key(b, "channel");
	if (e->channel == CS_NONE32)
		cs_json_null(b);
	else
		cs_json_int(b, e->channel);
	if (e->launch != CS_NONE32) {
		cs_json_key(b, "launch");
		cs_json_int(b, e->launch);
	}
	if (e->gp_entry != CS_NONE32) {
		cs_json_key(b, "gp_entry");
		cs_json_int(b, e->gp_entry);
	}
	if (e->method_index != CS_NONE32) {
		cs_json_key(b, "method_index");
		cs_json_int(b, e->method_index);
	}
	if (e->method != CS_NONE32) {
		char label[96];
		method_label(arch, e, label, sizeof(label));
		hex_member(b, "method", e->method);
		cs_json_key(b, "method_name");
		cs_json_string(b, label);
		const cs_class_desc *cd = e->cls != CS_NONE32 ? cs_registry_class(e->cls) : NULL;
		if (cd) {
			cs_json_key(b, "class");
			cs_json_string(b, cd->name);
		}
	}
	hex_member(b, "addr", e->addr);
	char name[CS_REGION_NAME_MAX + 32];
	cs_device_addr_name(dev, e->addr, name, sizeof(name));
	cs_json_key(b, "addr_name");
	cs_json_string(b, name);
	hex_member(b, "value", e->value);
	hex_member(b, "aux", e->aux);
	if (e->detail) {
		cs_json_key(b, "detail");
		cs_json_string(b, e->detail);
	}
	cs_json_end_object(b);
}

/* A complete event: a slice [start_ns, end_ns) on a track. */
static void slice(cs_json_writer *b, const cs_device *dev, const char *name, int64_t tid, uint64_t start_ns,
		  uint64_t end_ns, const cs_event *e)
{
	cs_json_begin_object(b);
	event_common(b, name, "chain", "X", tid, start_ns);
	cs_json_key(b, "dur");
	cs_json_double(b, (double)(end_ns > start_ns ? end_ns - start_ns : 0) / 1000.0);
	event_args(b, dev, e);
	cs_json_end_object(b);
}

/* Entry `i` (a gp-fetch) runs until its entry-done, the channel's stop, or
 * the channel's next fetch, whichever comes first; an entry still running
 * when the trace ends (blocked, out of budget) runs to the last record. */
static uint64_t entry_end(const cs_event *ev, size_t n, size_t i, bool *finished)
{
	const cs_event *f = &ev[i];
	for (size_t k = i + 1; k < n; k++) {
		const cs_event *o = &ev[k];
		if (o->channel != f->channel || o->unit != CS_UNIT_FE)
			continue;
		if ((o->kind == CS_EV_ENTRY_DONE && o->gp_entry == f->gp_entry) ||
		    o->kind == CS_EV_CHANNEL_STOP || o->kind == CS_EV_GP_FETCH ||
		    o->kind == CS_EV_GP_CONTROL) {
			*finished = o->kind == CS_EV_ENTRY_DONE;
			return o->time_ns;
		}
	}
	*finished = false;
	return n ? ev[n - 1].time_ns : f->time_ns;
}

/* The slices of one record: what takes virtual time. */
static void add_slices(cs_json_writer *b, const cs_device *dev, const cs_event *ev, size_t n,
		       size_t i)
{
	const cs_event *e = &ev[i];
	char name[96];
	switch ((cs_event_kind)e->kind) {
	case CS_EV_GP_FETCH:
	case CS_EV_GP_CONTROL: {
		/* the front end advances the clock by one entry's fetch, then records it */
		uint64_t t0 = e->time_ns >= CS_FE_NS_PER_ENTRY ? e->time_ns - CS_FE_NS_PER_ENTRY : 0;
		snprintf(name, sizeof(name), "fetch entry %" PRIu32 "%s", e->gp_entry,
			 e->kind == CS_EV_GP_CONTROL ? " (control)" : "");
		slice(b, dev, name, tid_of(e), t0, e->time_ns, e);
		if (e->kind == CS_EV_GP_CONTROL)
			return;
		bool finished = false;
		uint64_t t1 = entry_end(ev, n, i, &finished);
		snprintf(name, sizeof(name), "entry %" PRIu32 "%s", e->gp_entry,
			 finished ? "" : " (unfinished)");
		slice(b, dev, name, tid_of(e), e->time_ns, t1, e);
		return;
	}
	case CS_EV_DISPATCH:
		/* A grid: from its dispatch through the CTAs the executor ran (the
		 * engine advances the clock by them after the outcome record). */
		for (size_t k = i + 1; k < n; k++) {
			const cs_event *o = &ev[k];
			if (o->launch != e->launch ||
			    (o->kind != CS_EV_GRID_DONE && o->kind != CS_EV_GRID_NOT_RUN &&
			     !(o->kind == CS_EV_FAULT && o->stage == CS_STAGE_GR_DISPATCH)))
				continue;
			uint64_t end = o->time_ns;
			if (o->kind == CS_EV_GRID_DONE)
				end += cs_gr_grid_ns(o->value);
			snprintf(name, sizeof(name), "grid (launch %" PRIu32 ")", e->launch);
			slice(b, dev, name, TID_SM, e->time_ns, end, o);
			return;
		}
		return;
	case CS_EV_COPY:
	case CS_EV_I2M_WRITE:
		if (e->value == 0) /* a transfer of nothing costs nothing */
			return;
		snprintf(name, sizeof(name), "%s %" PRIu64 " bytes",
			 e->kind == CS_EV_COPY ? "copy" : "inline-to-memory", e->value);
		slice(b, dev, name, tid_of(e), e->time_ns, e->time_ns + cs_gr_transfer_ns(e->value), e);
		return;
	default:
		return;
	}
}

/* ---- flows and counters ------------------------------------------------ */

/* One end of a flow arrow: a flow event bound to the slice or record with the
 * same pid, tid, ts and cat ("bp":"e": the enclosing one). */
static void flow_end(cs_json_writer *b, const char *name, const char *ph, int64_t id, int64_t tid,
		     uint64_t time_ns)
{
	cs_json_begin_object(b);
	event_common(b, name, "chain", ph, tid, time_ns);
	cs_json_key(b, "id");
	cs_json_int(b, id);
	cs_json_key(b, "bp");
	cs_json_string(b, "e");
	cs_json_end_object(b);
}

static void flow(cs_json_writer *b, const char *name, int64_t *id, const cs_event *from,
		 int64_t to_tid, uint64_t to_ns)
{
	++*id;
	flow_end(b, name, "s", *id, tid_of(from), from->time_ns);
	flow_end(b, name, "f", *id, to_tid, to_ns);
}

/* For each record, the wait-done it resolved: the first wait-done on its
 * address after it, when it is that address's last release before the wait
 * (NULL elsewhere). */
static size_t *waits_resolved(const cs_event *ev, size_t n)
{
	size_t *wait_of = g_new(size_t, n ? n : 1);
	GHashTable *last = g_hash_table_new(g_int64_hash, g_int64_equal);
	for (size_t i = 0; i < n; i++) {
		wait_of[i] = SIZE_MAX;
		if (ev[i].kind == CS_EV_SEM_RELEASE) {
			g_hash_table_insert(last, (gpointer)&ev[i].addr, GSIZE_TO_POINTER(i + 1));
		} else if (ev[i].kind == CS_EV_WAIT_DONE) {
			size_t r = GPOINTER_TO_SIZE(g_hash_table_lookup(last, &ev[i].addr));
			if (r && wait_of[r - 1] == SIZE_MAX)
				wait_of[r - 1] = i;
		}
	}
	g_hash_table_destroy(last);
	return wait_of;
}

/* Entry i's (a gp-fetch's) flows: to the grid of each launch its methods made,
 * to each release its methods or those launches' engines wrote, and from
 * those releases to the waits they resolved. The records of an entry are
 * those up to the channel's next fetch. */
static void entry_flows(cs_json_writer *b, const cs_event *ev, size_t n, size_t i,
			const size_t *wait_of, int64_t *id)
{
	const cs_event *f = &ev[i];
	uint32_t launch = CS_NONE32;
	for (size_t k = i + 1; k < n; k++) {
		const cs_event *o = &ev[k];
		if (o->unit == CS_UNIT_FE && o->channel == f->channel &&
		    (o->kind == CS_EV_GP_FETCH || o->kind == CS_EV_GP_CONTROL))
			break;
		bool mine = o->channel == f->channel && o->gp_entry == f->gp_entry;
		if (mine && o->launch != CS_NONE32 && o->kind == CS_EV_QMD_INSTALL &&
		    o->launch != launch) {
			launch = o->launch;
			for (size_t g = k; g < n; g++)
				if (ev[g].kind == CS_EV_DISPATCH && ev[g].launch == launch) {
					flow(b, "launch", id, f, TID_SM, ev[g].time_ns);
					break;
				}
		}
		if (o->kind == CS_EV_SEM_RELEASE &&
		    (mine || (o->launch != CS_NONE32 && o->launch == launch))) {
			flow(b, "release", id, f, tid_of(o), o->time_ns);
			if (wait_of[k] != SIZE_MAX)
				flow(b, "wait", id, f, tid_of(&ev[wait_of[k]]), ev[wait_of[k]].time_ns);
		}
	}
}

static void add_flows(cs_json_writer *b, const cs_event *ev, size_t n)
{
	size_t *wait_of = waits_resolved(ev, n);
	int64_t id = 0;
	for (size_t i = 0; i < n; i++)
		if (ev[i].kind == CS_EV_GP_FETCH)
			entry_flows(b, ev, n, i, wait_of, &id);
	g_free(wait_of);
}

static void counter(cs_json_writer *b, const char *name, int64_t tid, uint64_t time_ns,
		    uint64_t value)
{
	cs_json_begin_object(b);
	event_common(b, name, "counter", "C", tid, time_ns);
	cs_json_key(b, "args");
	cs_json_begin_object(b);
	cs_json_key(b, "value");
	cs_json_int(b, (int64_t)value);
	cs_json_end_object(b);
	cs_json_end_object(b);
}

/* The counters a record moves: its channel's GP_PUT (the guest wrote it) or
 * GP_GET (the front end fetched an entry: one past it, around the ring), or
 * a semaphore the scenario names (a release wrote it). */
static void add_counters(cs_json_writer *b, const cs_device *dev, const cs_event *e)
{
	char name[CS_REGION_NAME_MAX + 64];
	const char *ch = cs_device_channel_name(dev, e->channel);
	cs_device_chan_view view;
	switch ((cs_event_kind)e->kind) {
	case CS_EV_GP_PUT:
		snprintf(name, sizeof(name), "GP_PUT (channel %s)", ch ? ch : "?");
		counter(b, name, tid_of(e), e->time_ns, e->value);
		return;
	case CS_EV_GP_FETCH:
	case CS_EV_GP_CONTROL:
		if (e->unit != CS_UNIT_FE || !cs_device_channel_view(dev, e->channel, &view) ||
		    !view.entries)
			return;
		snprintf(name, sizeof(name), "GP_GET (channel %s)", ch ? ch : "?");
		counter(b, name, tid_of(e), e->time_ns, (e->gp_entry + 1u) % view.entries);
		return;
	case CS_EV_SEM_RELEASE: {
		char at[CS_REGION_NAME_MAX + 32];
		cs_device_addr_name(dev, e->addr, at, sizeof(at));
		if (!strncmp(at, "0x", 2) || !strncmp(at, "chainsim.", 9))
			return; /* not a name of the scenario's */
		snprintf(name, sizeof(name), "semaphore %s", at);
		counter(b, name, tid_of(e), e->time_ns, e->value);
		return;
	}
	default:
		return;
	}
}

/* A global instant at the record that decided the break (the end of the
 * trace when no record did), named for the break; with no break, the same for
 * the first stage the backend cannot observe. */
static void add_break_marker(cs_json_writer *b, const cs_device *dev, const cs_event *ev, size_t n)
{
	cs_report *r = cs_report_build(dev);
	if (!r)
		return;
	const cs_chain *c = &r->overall;
	bool brk = c->first_break != CS_STAGE_NONE;
	cs_stage st = brk ? c->first_break : c->unobservable;
	if (st != CS_STAGE_NONE) {
		const cs_event *e = c->break_event < n ? &ev[c->break_event] : NULL;
		char name[128];
		snprintf(name, sizeof(name), "%s: stage %d (%s) [%s]", brk ? "break" : "not observable",
			 (int)st, cs_stage_name(st), cs_cause_key(c->cause));
		cs_json_begin_object(b);
		event_common(b, name, "break", "i", e ? tid_of(e) : TID_HOST,
			     e ? e->time_ns : n ? ev[n - 1].time_ns : 0);
		cs_json_key(b, "s");
		cs_json_string(b, "g");
		if (e) {
			event_args(b, dev, e);
		} else {
			cs_json_key(b, "args");
			cs_json_begin_object(b);
			cs_json_end_object(b);
		}
		cs_json_end_object(b);
	}
	cs_report_free(r);
}

char *cs_trace_perfetto_json(const cs_device *dev)
{
	size_t n = 0;
	const cs_event *ev = cs_device_events(dev, &n);
	cs_arch arch = cs_device_arch(dev);
	cs_json_writer *b = cs_json_writer_new(false);
	cs_json_begin_object(b);
	cs_json_key(b, "displayTimeUnit");
	cs_json_string(b, "ns");
	cs_json_key(b, "traceEvents");
	cs_json_begin_array(b);

	cs_json_begin_object(b);
	cs_json_key(b, "ph");
	cs_json_string(b, "M");
	cs_json_key(b, "name");
	cs_json_string(b, "process_name");
	cs_json_key(b, "pid");
	cs_json_int(b, 1);
	cs_json_key(b, "args");
	cs_json_begin_object(b);
	cs_json_key(b, "name");
	const cs_arch_info *ai = cs_arch_get(arch);
	char pname[64];
	snprintf(pname, sizeof(pname), "chainsim %s device", ai ? ai->name : "?");
	cs_json_string(b, pname);
	cs_json_end_object(b);
	cs_json_end_object(b);

	track_name(b, TID_GUEST, "guest");
	track_name(b, TID_HOST, "host");
	for (uint32_t c = 0; c < cs_device_channel_count(dev); c++) {
		char name[96];
		snprintf(name, sizeof(name), "channel %s (front end)", cs_device_channel_name(dev, c));
		track_name(b, TID_CHANNEL + c, name);
	}
	track_name(b, TID_COMPUTE, "compute engine");
	track_name(b, TID_COPY, "copy engine");
	track_name(b, TID_SM, "sm (executor)");

	for (size_t i = 0; i < n; i++) {
		const cs_event *e = &ev[i];
		char label[96];
		const char *name = cs_event_kind_name((cs_event_kind)e->kind);
		if (e->kind == CS_EV_METHOD) {
			method_label(arch, e, label, sizeof(label));
			name = label;
		}
		cs_json_begin_object(b);
		event_common(b, name, "chain", "i", tid_of(e), e->time_ns);
		cs_json_key(b, "s");
		cs_json_string(b, "t");
		event_args(b, dev, e);
		cs_json_end_object(b);
		add_slices(b, dev, ev, n, i);
		add_counters(b, dev, e);
	}
	add_flows(b, ev, n);
	add_break_marker(b, dev, ev, n);
	cs_json_end_array(b);
	cs_json_end_object(b);

	return cs_json_writer_finish(b, NULL);
}

bool cs_trace_perfetto_write(const cs_device *dev, const char *path, cs_diag *d)
{
	char *text = cs_trace_perfetto_json(dev);
	if (!text) {
		cs_diag_set(d, CS_ERR_NOMEM, "out of memory writing the trace");
		return false;
	}
	FILE *f = fopen(path, "w");
	if (!f) {
		cs_diag_set(d, CS_ERR_INPUT, "%s: cannot open for writing", path);
		free(text);
		return false;
	}
	size_t len = strlen(text);
	bool ok = fwrite(text, 1, len, f) == len && fputc('\n', f) != EOF;
	ok = (fclose(f) == 0) && ok;
	free(text);
	if (!ok)
		cs_diag_set(d, CS_ERR_INPUT, "%s: write failed", path);
	return ok;
}

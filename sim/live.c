/* SPDX-License-Identifier: MIT */
/* The live device (include/chainsim/live.h): a cs_device on the client's own
 * memory and rings, a doorbell by token, runs on demand, the judge's verdict
 * over the recent trace window. */
#include "chainsim/live.h"

#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "chainsim/gr.h"
#include "chainsim/ptxrun.h"

enum { LIVE_MIN_WINDOW = 64, LIVE_NAME_MAX = 64 };

typedef struct live_channel {
	uint32_t token;
	uint32_t dev_ch;  /* the device's channel index */
} live_channel;

struct cs_live {
	cs_device *dev;
	live_channel *chans;
	uint32_t nchans;
	atomic_flag in_call;  /* set while a call is inside this device */
	uint64_t doorbells, runs, faults, maps, unmaps;
};

/* The guard of every mutating call: false (d set) when another thread is in. */
static bool enter(cs_live *lv, const char *call, cs_diag *d)
{
	if (atomic_flag_test_and_set_explicit(&lv->in_call, memory_order_acquire)) {
		cs_diag_set(d, CS_ERR_INPUT, "%s called from a second thread while another call "
			    "is inside the same device (a cs_live is driven by one thread at a "
			    "time)", call);
		return false;
	}
	return true;
}

static void leave(cs_live *lv)
{
	atomic_flag_clear_explicit(&lv->in_call, memory_order_release);
}

cs_live *cs_live_new(const cs_live_config *cfg, cs_diag *d)
{
	size_t window = cfg->trace_window ? cfg->trace_window : CS_LIVE_TRACE_WINDOW;
	if (window < LIVE_MIN_WINDOW) {
		cs_diag_set(d, CS_ERR_INPUT, "a trace window of %zu records is below the least, %d",
			    window, LIVE_MIN_WINDOW);
		return NULL;
	}
	cs_live *lv = calloc(1, sizeof(*lv));
	if (!lv) {
		cs_diag_set(d, CS_ERR_NOMEM, "out of memory creating a live device");
		return NULL;
	}
	atomic_flag_clear(&lv->in_call);
	cs_device_config dc = {
		.arch = cfg->arch,
		.trace_level = cfg->trace_methods ? CS_TRACE_ALL : CS_TRACE_CHAIN,
		.no_executor = cfg->no_executor,
		.trace_max_records = window,
		.trace_ring = true,
		.budget_per_launch = true,
		.client_channels = true,
	};
	lv->dev = cs_device_new(&dc, d);
	if (!lv->dev) {
		free(lv);
		return NULL;
	}
	cs_ptx_runtime *rt = cs_device_ptx(lv->dev);
	cs_ptx_runtime_set_budget(rt, cfg->launch_instructions, cfg->launch_wall_ns);
	cs_ptx_runtime_set_threads(rt, cfg->threads);
	return lv;
}

void cs_live_free(cs_live *lv)
{
	if (!lv)
		return;
	cs_device_free(lv->dev);
	free(lv->chans);
	free(lv);
}

cs_device *cs_live_device(cs_live *lv)
{
	return lv->dev;
}

/* ---- memory ------------------------------------------------------------------ */

bool cs_live_map(cs_live *lv, void *host, uint64_t size, uint64_t va, const char *name,
		 cs_diag *d)
{
	if (!enter(lv, "cs_live_map", d))
		return false;
	char auto_name[LIVE_NAME_MAX];
	if (!name || !name[0]) {
		snprintf(auto_name, sizeof(auto_name), "map@0x%llx", (unsigned long long)va);
		name = auto_name;
	}
	bool ok = cs_device_map_client(lv->dev, name, host, size, va, d);
	lv->maps += ok;
	leave(lv);
	return ok;
}

bool cs_live_unmap(cs_live *lv, uint64_t va, uint64_t size, cs_diag *d)
{
	if (!enter(lv, "cs_live_unmap", d))
		return false;
	bool ok = cs_device_unmap(lv->dev, va, size, d);
	lv->unmaps += ok;
	leave(lv);
	return ok;
}

bool cs_live_module_load(cs_live *lv, const void *bytes, size_t len, const char *name,
			 cs_diag *d)
{
	if (!enter(lv, "cs_live_module_load", d))
		return false;
	bool ok = false;
	cs_ptx_runtime *rt = cs_device_ptx(lv->dev);
	if (!rt) {
		cs_diag_set(d, CS_ERR_INPUT, "module %s: the device has no executor", name ? name : "");
	} else {
		cs_module *m = cs_module_load_bytes(bytes, len, name ? name : "module",
						    cs_device_arch(lv->dev), d);
		if (m) {
			ok = cs_ptx_runtime_add(rt, m, d);
			cs_module_free(m); /* the runtime holds its own reference */
		}
	}
	leave(lv);
	return ok;
}

/* ---- channels ------------------------------------------------------------------ */

static const live_channel *by_token(const cs_live *lv, uint32_t token)
{
	for (uint32_t i = 0; i < lv->nchans; i++)
		if (lv->chans[i].token == token)
			return &lv->chans[i];
	return NULL;
}

bool cs_live_channel_new(cs_live *lv, uint64_t ring_va, uint32_t entries, uint64_t userd_va,
			 uint32_t token, uint32_t *ch, cs_diag *d)
{
	if (!enter(lv, "cs_live_channel_new", d))
		return false;
	bool ok = false;
	if (by_token(lv, token)) {
		cs_diag_set(d, CS_ERR_INPUT, "a channel with doorbell token %u exists", token);
		goto out;
	}
	live_channel *nc = realloc(lv->chans, (lv->nchans + 1) * sizeof(*nc));
	if (!nc) {
		cs_diag_set(d, CS_ERR_NOMEM, "out of memory adding a channel");
		goto out;
	}
	lv->chans = nc;
	char name[LIVE_NAME_MAX];
	snprintf(name, sizeof(name), "token%u", token);
	uint32_t id;
	if (!cs_device_channel_at(lv->dev, name, ring_va, entries, userd_va, &id, d))
		goto out;
	lv->chans[lv->nchans] = (live_channel){ .token = token, .dev_ch = id };
	*ch = lv->nchans++;
	ok = true;
out:
	leave(lv);
	return ok;
}

uint32_t cs_live_channel_count(const cs_live *lv)
{
	return lv->nchans;
}

bool cs_live_doorbell(cs_live *lv, uint32_t token, cs_diag *d)
{
	if (!enter(lv, "cs_live_doorbell", d))
		return false;
	bool ok = false;
	const live_channel *c = by_token(lv, token);
	if (!c)
		cs_diag_set(d, CS_ERR_INPUT, "doorbell for token %u: no channel has that token", token);
	else
		ok = cs_device_doorbell(lv->dev, c->dev_ch, d);
	lv->doorbells++;
	leave(lv);
	return ok;
}

static uint32_t stopped_channels(const cs_live *lv)
{
	uint32_t n = 0;
	cs_fe *fe = cs_device_fe(lv->dev);
	for (uint32_t i = 0; i < lv->nchans; i++)
		n += cs_fe_channel_state(fe, cs_device_channel_fe_id(lv->dev, lv->chans[i].dev_ch)) ==
		     CS_FE_CHAN_STOPPED;
	return n;
}

cs_live_run_result cs_live_run(cs_live *lv, uint64_t max_entries)
{
	cs_live_run_result out = { 0 };
	cs_diag d;
	if (!enter(lv, "cs_live_run", &d)) {
		/* refused: nothing ran; the caller sees work still left */
		out.end = CS_LIVE_BUDGET;
		return out;
	}
	uint32_t before = stopped_channels(lv);
	cs_fe_run_result r = cs_device_run_entries(lv->dev, max_entries);
	uint32_t after = stopped_channels(lv);
	out.end = r.end == CS_FE_RUN_BUDGET ? CS_LIVE_BUDGET : CS_LIVE_QUIESCENT;
	out.entries = r.entries;
	out.idle = r.idle;
	out.ready = r.ready;
	out.blocked = r.blocked;
	out.stopped = r.stopped;
	out.newly_stopped = after - before;
	lv->faults += after - before;
	lv->runs++;
	leave(lv);
	return out;
}

bool cs_live_busy(const cs_live *lv)
{
	return cs_device_busy(lv->dev);
}

bool cs_live_channel_get(const cs_live *lv, uint32_t ch, cs_live_channel_state *out)
{
	if (ch >= lv->nchans)
		return false;
	cs_fe_channel_info info;
	cs_fe *fe = cs_device_fe(lv->dev);
	if (!cs_fe_channel_info_get(fe, cs_device_channel_fe_id(lv->dev, lv->chans[ch].dev_ch),
				    &info))
		return false;
	memset(out, 0, sizeof(*out));
	out->token = lv->chans[ch].token;
	out->state = info.state;
	out->gp_get = info.gp_get;
	out->gp_put = info.gp_put;
	out->ring_entries = info.ring_entries;
	out->ring_va = info.ring_va;
	out->userd_va = info.userd_va;
	if (info.state == CS_FE_CHAN_BLOCKED)
		out->block = info.block;
	if (info.state == CS_FE_CHAN_STOPPED)
		cs_diag_format(&info.stop, out->stop, sizeof(out->stop));
	return true;
}

/* ---- the verdict ------------------------------------------------------------------ */

static void verdict_of(const cs_report *r, cs_live_verdict *out)
{
	memset(out, 0, sizeof(*out));
	const cs_chain *o = &r->overall;
	out->stage_name = "";
	out->cause = "";
	out->stage = CS_STAGE_NONE;
	cs_stage s = o->first_break != CS_STAGE_NONE ? o->first_break : o->unobservable;
	out->broken = o->first_break != CS_STAGE_NONE;
	out->unobservable = !out->broken && o->unobservable != CS_STAGE_NONE;
	if (s == CS_STAGE_NONE)
		return;
	out->stage = s;
	out->stage_name = cs_stage_name(s);
	out->cause = cs_cause_key(o->cause);
	snprintf(out->diagnosis, sizeof(out->diagnosis), "%s", o->diagnosis);
	snprintf(out->evidence, sizeof(out->evidence), "%s", o->rows[s].evidence);
}

static bool judge_into(cs_live *lv, cs_live_verdict *out, cs_diag *d)
{
	cs_report *r = cs_report_build(lv->dev);
	if (!r) {
		cs_diag_set(d, CS_ERR_NOMEM, "out of memory judging the trace window");
		return false;
	}
	verdict_of(r, out);
	cs_report_free(r);
	return true;
}

bool cs_live_verdict_get(cs_live *lv, cs_live_verdict *out, cs_diag *d)
{
	if (!enter(lv, "cs_live_verdict_get", d))
		return false;
	bool ok = cs_device_trace_ok(lv->dev, d) && judge_into(lv, out, d);
	leave(lv);
	return ok;
}

char *cs_live_report_text(cs_live *lv, cs_diag *d)
{
	if (!enter(lv, "cs_live_report_text", d))
		return NULL;
	char *text = NULL;
	size_t len = 0;
	cs_report *r = cs_device_trace_ok(lv->dev, d) ? cs_report_build(lv->dev) : NULL;
	FILE *f = r ? open_memstream(&text, &len) : NULL;
	if (f) {
		cs_report_meta meta = { .file = "live" };
		cs_report_print_text(r, &meta, f);
		if (fclose(f) != 0) {
			free(text);
			text = NULL;
		}
	}
	if (r && !text)
		cs_diag_set(d, CS_ERR_NOMEM, "out of memory writing the report");
	cs_report_free(r);
	leave(lv);
	return text;
}

static bool reached(cs_device *dev, uint64_t addr, uint64_t value, bool is64)
{
	uint64_t seen = 0;
	return cs_device_peek(dev, addr, &seen, is64 ? 8 : 4) &&
	       seen >= (is64 ? value : (value & 0xffffffffu));
}

bool cs_live_wait(cs_live *lv, uint64_t addr, uint64_t value, bool is64, cs_live_verdict *out)
{
	cs_diag d;
	if (!enter(lv, "cs_live_wait", &d)) {
		if (out) {
			memset(out, 0, sizeof(*out));
			out->stage_name = out->cause = "";
			out->stage = CS_STAGE_NONE;
			snprintf(out->diagnosis, sizeof(out->diagnosis), "%s", d.msg);
		}
		return false;
	}
	cs_device_run(lv->dev);
	bool met = reached(lv->dev, addr, value, is64);
	if (!met) {
		/* the device's wait records stage 11 and, when every channel is
		 * stuck, the deadlocks the judge roots the break in */
		cs_device_wait_cmp(lv->dev, addr, value, is64, CS_WAIT_GEQ);
		if (out && !judge_into(lv, out, &d)) {
			memset(out, 0, sizeof(*out));
			out->stage_name = out->cause = "";
			snprintf(out->diagnosis, sizeof(out->diagnosis), "%s", d.msg);
		}
	}
	leave(lv);
	return met;
}

/* ---- counters --------------------------------------------------------------------- */

void cs_live_counters_get(const cs_live *lv, cs_live_counters *out)
{
	memset(out, 0, sizeof(*out));
	cs_fe_counters fc = cs_fe_counters_total(cs_device_fe(lv->dev));
	cs_gr_counters gc;
	cs_gr_counters_get(cs_device_gr(lv->dev), &gc);
	out->doorbells = lv->doorbells;
	out->runs = lv->runs;
	out->entries = fc.entries;
	out->methods = fc.methods;
	out->launches = gc.launches;
	out->grids_executed = gc.grids_executed;
	out->grids_not_run = gc.grids_not_run;
	out->ctas_executed = gc.ctas_executed;
	out->thread_instructions = gc.thread_instructions;
	out->copies = gc.copies;
	out->bytes_copied = gc.bytes_copied;
	out->faults = lv->faults;
	out->records = cs_device_event_count(lv->dev);
	out->records_dropped = cs_device_events_dropped(lv->dev);
	out->maps = lv->maps;
	out->unmaps = lv->unmaps;
}

size_t cs_live_struct_size(const char *name)
{
#define LIVE_STRUCT(T) \
	if (strcmp(name, #T) == 0) \
		return sizeof(T);
	LIVE_STRUCT(cs_live_config)
	LIVE_STRUCT(cs_live_run_result)
	LIVE_STRUCT(cs_live_channel_state)
	LIVE_STRUCT(cs_live_verdict)
	LIVE_STRUCT(cs_live_counters)
	LIVE_STRUCT(cs_diag)
#undef LIVE_STRUCT
	return 0;
}

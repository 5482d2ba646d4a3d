/* The device: the hub that wires memory, the trace store, the virtual clock,
 * the front end, the engines and the executor together through their ports,
 * the way a board wires chips (docs/architecture.md). */
#include "chainsim/device.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "chainsim/fe.h"
#include "chainsim/gr.h"
#include "chainsim/ptxrun.h"
#include "chainsim/pushbuf.h"

enum {
	DEFAULT_RING_ENTRIES = 1024,
	ARENA_CHUNK = 64 * 1024,
	TRACE_DETAIL_BYTES = 64u << 20,
	CHANNEL_NAME_MAX = 64,
};

/* Default entry budget of one run: generous, but a finite bound on a guest
 * program that would otherwise keep the device busy forever. */
#define DEFAULT_RUN_BUDGET (1ull << 24)

/* A chunk of the detail-string arena; chunks never move once allocated, so
 * the records' detail pointers stay valid for the device's life. */
typedef struct arena_chunk {
	struct arena_chunk *next;
	size_t used, cap;
	char data[];
} arena_chunk;

typedef struct dev_channel {
	char name[CHANNEL_NAME_MAX];
	uint32_t fe_id;
	uint64_t ring_va, userd_va;
	uint32_t entries;
	uint32_t guest_put;     /* next slot the guest writes */
	uint32_t submitted_put; /* GP_PUT as last written to USERD */
} dev_channel;

struct cs_device {
	cs_device_config cfg;
	const cs_arch_info *arch;
	cs_mem *mem;
	uint64_t now_ns;
	cs_bus bus;

	cs_event *events;
	size_t nevents, cap_events;
	/* The bounded store: past max_events records (or TRACE_DETAIL_BYTES of
	 * detail text) nothing more is stored and trace_stop says why; the
	 * scenario runner stops there before any verdict (cs_device_trace_ok). */
	size_t max_events, detail_bytes;
	cs_status trace_stop;     /* CS_OK, CS_ERR_INPUT (a limit) or CS_ERR_NOMEM */
	char trace_why[160];
	uint64_t next_seq;
	arena_chunk *arena;

	cs_fe *fe;
	cs_gr *gr;
	cs_ptx_runtime *rt;
	cs_engine_port gr_port;
	cs_exec_port exec_port;

	dev_channel *channels;
	uint32_t nchannels;
	bool budget_out;          /* the last run ended on its entry budget, work left */
	bool deadlock_recorded;   /* deadlock records exist ... */
	size_t last_deadlock_mark;/* ... and nevents was this right after them */
};

/* ---- trace store ----------------------------------------------------------- */

static void trace_stop(cs_device *dev, cs_status st, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void trace_stop(cs_device *dev, cs_status st, const char *fmt, ...)
{
	if (dev->trace_stop != CS_OK)
		return;
	dev->trace_stop = st;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(dev->trace_why, sizeof(dev->trace_why), fmt, ap);
	va_end(ap);
}

static const char *arena_strdup(cs_device *dev, const char *s)
{
	size_t len = strlen(s) + 1;
	if (dev->detail_bytes + len > TRACE_DETAIL_BYTES) {
		trace_stop(dev, CS_ERR_INPUT, "the trace reached its limit of %zu bytes of detail "
			   "text (%zu records stored)", (size_t)TRACE_DETAIL_BYTES, dev->nevents);
		return NULL;
	}
	arena_chunk *c = dev->arena;
	if (!c || c->cap - c->used < len) {
		size_t cap = len > ARENA_CHUNK ? len : ARENA_CHUNK;
		arena_chunk *n = malloc(sizeof(*n) + cap);
		if (!n) {
			trace_stop(dev, CS_ERR_NOMEM, "allocating %zu bytes for trace record %zu's detail "
				   "failed", sizeof(*n) + cap, dev->nevents);
			return NULL;
		}
		n->next = c;
		n->used = 0;
		n->cap = cap;
		dev->arena = n;
		c = n;
	}
	char *out = c->data + c->used;
	memcpy(out, s, len);
	c->used += len;
	dev->detail_bytes += len;
	return out;
}

static void store_event(cs_device *dev, const cs_event *ev)
{
	if (ev->kind == CS_EV_METHOD && dev->cfg.trace_level < CS_TRACE_ALL)
		return;
	if (dev->trace_stop != CS_OK)
		return; /* the store stopped: the run ends without a verdict */
	if (dev->nevents == dev->max_events) {
		trace_stop(dev, CS_ERR_INPUT, "the trace reached its limit of %zu records",
			   dev->max_events);
		return;
	}
	if (dev->nevents == dev->cap_events) {
		size_t cap = dev->cap_events ? dev->cap_events * 2 : 256;
		if (cap > dev->max_events)
			cap = dev->max_events;
		cs_event *n = realloc(dev->events, cap * sizeof(*n));
		if (!n) {
			trace_stop(dev, CS_ERR_NOMEM, "growing the trace to %zu records (%zu bytes) "
				   "failed", cap, cap * sizeof(*n));
			return;
		}
		dev->events = n;
		dev->cap_events = cap;
	}
	cs_event *out = &dev->events[dev->nevents++];
	*out = *ev;
	out->seq = dev->next_seq++;
	out->time_ns = dev->now_ns;
	out->detail = ev->detail ? arena_strdup(dev, ev->detail) : NULL;
	if (ev->detail && !out->detail)
		dev->nevents--; /* a record without its detail would mislead: not stored */
}

bool cs_device_trace_ok(const cs_device *dev, cs_diag *d)
{
	if (dev->trace_stop == CS_OK)
		return true;
	if (dev->trace_stop == CS_ERR_NOMEM)
		cs_diag_set(d, CS_ERR_NOMEM, "out of memory: %s; the run stopped without a verdict",
			    dev->trace_why);
	else
		cs_diag_set(d, CS_ERR_INPUT, "%s; the run stopped without a verdict "
			    "(docs/scenario.md, Input limits)", dev->trace_why);
	return false;
}

static void sink_emit(void *ctx, const cs_event *ev)
{
	store_event(ctx, ev);
}

void cs_device_record(cs_device *dev, const cs_event *ev)
{
	store_event(dev, ev);
}

size_t cs_device_event_count(const cs_device *dev)
{
	return dev->nevents;
}

const cs_event *cs_device_event(const cs_device *dev, size_t i)
{
	return i < dev->nevents ? &dev->events[i] : NULL;
}

const cs_event *cs_device_events(const cs_device *dev, size_t *n)
{
	*n = dev->nevents;
	return dev->events;
}

/* ---- construction ------------------------------------------------------------ */

cs_device *cs_device_new(const cs_device_config *cfg, cs_diag *d)
{
	const cs_arch_info *ai = cs_arch_get(cfg->arch);
	if (!ai) {
		cs_diag_set(d, CS_ERR_INPUT, "unknown architecture %d", (int)cfg->arch);
		return NULL;
	}
	cs_device *dev = calloc(1, sizeof(*dev));
	if (!dev) {
		cs_diag_set(d, CS_ERR_NOMEM, "out of memory creating a device");
		return NULL;
	}
	dev->cfg = *cfg;
	dev->cfg.exec_override = NULL; /* copied below; the caller's pointer may not last */
	if (!dev->cfg.run_budget)
		dev->cfg.run_budget = DEFAULT_RUN_BUDGET;
	dev->max_events = cfg->trace_max_records ? cfg->trace_max_records : CS_DEVICE_MAX_RECORDS;
	dev->arch = ai;
	dev->mem = cs_mem_new(ai->va_bits);
	if (!dev->mem)
		goto nomem;
	dev->bus.mem = cs_mem_port_of(dev->mem);
	dev->bus.trace = (cs_trace_sink){ .ctx = dev, .emit = sink_emit,
					  .level = cfg->trace_level };
	dev->bus.now_ns = &dev->now_ns;

	if (!cfg->no_executor && cfg->exec_override) {
		dev->exec_port = *cfg->exec_override;
	} else if (!cfg->no_executor) {
		dev->rt = cs_ptx_runtime_new(cfg->arch);
		if (!dev->rt)
			goto nomem;
		dev->exec_port = cs_ptx_runtime_port(dev->rt);
	}
	dev->gr = cs_gr_new(cfg->arch, &dev->bus, dev->exec_port.run_grid ? &dev->exec_port : NULL);
	if (!dev->gr)
		goto nomem;
	dev->gr_port = cs_gr_engine_port(dev->gr);
	dev->fe = cs_fe_new(cfg->arch, &dev->bus, &dev->gr_port);
	if (!dev->fe)
		goto nomem;
	uint32_t id;
	if (!cs_device_channel(dev, "default", 0, &id, d)) {
		cs_device_free(dev);
		return NULL;
	}
	return dev;
nomem:
	cs_diag_set(d, CS_ERR_NOMEM, "out of memory creating a %s device", ai->name);
	cs_device_free(dev);
	return NULL;
}

void cs_device_free(cs_device *dev)
{
	if (!dev)
		return;
	cs_fe_free(dev->fe);
	cs_gr_free(dev->gr);
	cs_ptx_runtime_free(dev->rt);
	cs_mem_free(dev->mem);
	free(dev->events);
	while (dev->arena) {
		arena_chunk *n = dev->arena->next;
		free(dev->arena);
		dev->arena = n;
	}
	free(dev->channels);
	free(dev);
}

cs_arch cs_device_arch(const cs_device *dev)
{
	return dev->cfg.arch;
}

cs_mem *cs_device_mem(cs_device *dev)
{
	return dev->mem;
}

const cs_bus *cs_device_bus(const cs_device *dev)
{
	return &dev->bus;
}

uint64_t cs_device_now(const cs_device *dev)
{
	return dev->now_ns;
}

size_t cs_device_addr_name(const cs_device *dev, uint64_t va, char *buf, size_t len)
{
	const cs_region *r = dev ? cs_mem_region_at(dev->mem, va) : NULL;
	int n;
	/* Past the asked size (in the page's tail) the name would hide the very
	 * overrun a reader is looking for: hex there. */
	if (!r || !r->name[0] || va - r->va >= r->size)
		n = snprintf(buf, len, "0x%llx", (unsigned long long)va);
	else if (va == r->va)
		n = snprintf(buf, len, "%s", r->name);
	else
		n = snprintf(buf, len, "%s+0x%llx", r->name, (unsigned long long)(va - r->va));
	return n < 0 ? 0 : (size_t)n;
}

const cs_device_config *cs_device_config_get(const cs_device *dev)
{
	return &dev->cfg;
}

struct cs_ptx_runtime *cs_device_ptx(cs_device *dev)
{
	return dev->rt;
}

struct cs_fe *cs_device_fe(cs_device *dev)
{
	return dev->fe;
}

void cs_device_set_method_hook(cs_device *dev, cs_method_hook_fn fn, void *ctx)
{
	cs_fe_set_method_hook(dev->fe, fn, ctx);
}

struct cs_gr *cs_device_gr(cs_device *dev)
{
	return dev->gr;
}

bool cs_device_peek(const cs_device *dev, uint64_t va, void *dst, size_t len)
{
	/* The memory object caches its last page on reads; that is not an
	 * observable change, so a const device may be read. */
	return cs_mem_read(dev->mem, va, dst, len, NULL);
}

/* ---- channels ------------------------------------------------------------------ */

bool cs_device_channel(cs_device *dev, const char *name, uint32_t entries, uint32_t *id,
		       cs_diag *d)
{
	for (uint32_t i = 0; i < dev->nchannels; i++) {
		if (strcmp(dev->channels[i].name, name) == 0) {
			*id = i;
			return true;
		}
	}
	if (strlen(name) >= CHANNEL_NAME_MAX || !name[0]) {
		cs_diag_set(d, CS_ERR_INPUT, "channel name must be 1..%d characters",
			    CHANNEL_NAME_MAX - 1);
		return false;
	}
	if (dev->nchannels >= CS_FE_MAX_CHANNELS) {
		cs_diag_set(d, CS_ERR_INPUT, "too many channels (at most %d)", CS_FE_MAX_CHANNELS);
		return false;
	}
	if (!entries)
		entries = DEFAULT_RING_ENTRIES;
	if (entries < 2 || entries > CS_FE_MAX_RING_ENTRIES || (entries & (entries - 1))) {
		cs_diag_set(d, CS_ERR_INPUT,
			    "channel '%s': entries=%u is not a power of two in 2..%u", name, entries,
			    (unsigned)CS_FE_MAX_RING_ENTRIES);
		return false;
	}
	dev_channel *chs = realloc(dev->channels, (dev->nchannels + 1) * sizeof(*chs));
	if (!chs) {
		cs_diag_set(d, CS_ERR_NOMEM, "out of memory creating channel '%s'", name);
		return false;
	}
	dev->channels = chs;
	uint32_t n = dev->nchannels;
	dev_channel *ch = &chs[n];
	memset(ch, 0, sizeof(*ch));
	strcpy(ch->name, name);
	ch->entries = entries;
	ch->ring_va = CS_DEVICE_CHANNEL_BASE + (uint64_t)n * CS_DEVICE_CHANNEL_STRIDE;
	uint64_t ring_bytes = (uint64_t)entries * 8u;
	ch->userd_va = ch->ring_va + ((ring_bytes + CS_PAGE_SIZE - 1) & ~(uint64_t)(CS_PAGE_SIZE - 1));
	char rname[CS_REGION_NAME_MAX];
	snprintf(rname, sizeof(rname), "chainsim.ch%u.gpfifo", n);
	if (!cs_mem_map(dev->mem, rname, ch->ring_va, ring_bytes, d))
		return false;
	snprintf(rname, sizeof(rname), "chainsim.ch%u.userd", n);
	if (!cs_mem_map(dev->mem, rname, ch->userd_va, CS_USERD_SIZE, d))
		return false;
	if (!cs_fe_channel_new(dev->fe, ch->ring_va, entries, ch->userd_va, &ch->fe_id, d))
		return false;
	dev->nchannels++;
	*id = n;
	return true;
}

uint32_t cs_device_channel_count(const cs_device *dev)
{
	return dev->nchannels;
}

const char *cs_device_channel_name(const cs_device *dev, uint32_t ch)
{
	return ch < dev->nchannels ? dev->channels[ch].name : NULL;
}

bool cs_device_channel_view(const cs_device *dev, uint32_t ch, cs_device_chan_view *out)
{
	if (ch >= dev->nchannels)
		return false;
	const dev_channel *c = &dev->channels[ch];
	*out = (cs_device_chan_view){ .ring_va = c->ring_va, .entries = c->entries,
				      .userd_va = c->userd_va, .guest_put = c->guest_put,
				      .submitted_put = c->submitted_put };
	return true;
}

/* ---- the guest's side of submission ------------------------------------------- */

bool cs_device_gpfifo_push(cs_device *dev, uint32_t ch, uint32_t lo, uint32_t hi, cs_diag *d)
{
	if (ch >= dev->nchannels) {
		cs_diag_set(d, CS_ERR_INPUT, "no channel %u", ch);
		return false;
	}
	dev_channel *c = &dev->channels[ch];
	cs_fe_channel_info info;
	if (!cs_fe_channel_info_get(dev->fe, c->fe_id, &info)) {
		cs_diag_set(d, CS_ERR_INTERNAL, "the front end lost channel %u", ch);
		return false;
	}
	uint32_t next = (c->guest_put + 1u) & (c->entries - 1u);
	if (next == info.gp_get) {
		cs_diag_set(d, CS_ERR_INPUT,
			    "channel '%s': the GPFIFO ring (%u entries) is full: GP_GET is %u",
			    c->name, c->entries, info.gp_get);
		return false;
	}
	uint32_t words[2] = { lo, hi };
	if (!cs_mem_write(dev->mem, c->ring_va + (uint64_t)c->guest_put * 8u, words, 8, NULL)) {
		cs_diag_set(d, CS_ERR_INTERNAL, "channel '%s': the ring is not mapped", c->name);
		return false;
	}
	c->guest_put = next;
	return true;
}

bool cs_device_submit(cs_device *dev, uint32_t ch, cs_diag *d)
{
	if (ch >= dev->nchannels) {
		cs_diag_set(d, CS_ERR_INPUT, "no channel %u", ch);
		return false;
	}
	dev_channel *c = &dev->channels[ch];
	uint32_t old = 0;
	cs_mem_read(dev->mem, c->userd_va + CS_USERD_GP_PUT, &old, 4, NULL);
	uint32_t put = c->guest_put;
	if (!cs_mem_write(dev->mem, c->userd_va + CS_USERD_GP_PUT, &put, 4, NULL)) {
		cs_diag_set(d, CS_ERR_INTERNAL, "channel '%s': USERD is not mapped", c->name);
		return false;
	}
	c->submitted_put = put;

	cs_event ev = cs_event_make(CS_EV_GP_PUT, CS_STAGE_GUEST_SUBMIT, CS_UNIT_GUEST, c->fe_id);
	ev.addr = c->userd_va + CS_USERD_GP_PUT;
	ev.value = put;
	ev.aux = old;
	store_event(dev, &ev);

	ev = cs_event_make(CS_EV_DOORBELL, CS_STAGE_GUEST_SUBMIT, CS_UNIT_GUEST, c->fe_id);
	ev.value = c->fe_id; /* the work-submit token: the channel's id */
	store_event(dev, &ev);

	ev = cs_event_make(CS_EV_HOST_FORWARD, CS_STAGE_HOST_FORWARD, CS_UNIT_HOST, c->fe_id);
	ev.value = (put - old) & (c->entries - 1u);
	ev.detail = "identity (no rewrite)";
	store_event(dev, &ev);

	cs_fe_doorbell(dev->fe, c->fe_id);
	cs_device_run(dev);
	return true;
}

void cs_device_run(cs_device *dev)
{
	cs_fe_run_result r = cs_fe_run(dev->fe, dev->cfg.run_budget);
	dev->budget_out = r.end == CS_FE_RUN_BUDGET;
}

/* Whether no channel can make progress and at least one is blocked. */
static bool all_stuck(const cs_device *dev)
{
	uint32_t blocked = 0;
	for (uint32_t i = 0; i < dev->nchannels; i++) {
		cs_fe_chan_state st = cs_fe_channel_state(dev->fe, dev->channels[i].fe_id);
		if (st == CS_FE_CHAN_READY)
			return false;
		if (st == CS_FE_CHAN_BLOCKED)
			blocked++;
	}
	return blocked > 0;
}

static void record_deadlocks(cs_device *dev)
{
	/* Nothing happened since the last report: the same deadlock, not a new one. */
	if (dev->deadlock_recorded && dev->last_deadlock_mark == dev->nevents)
		return;
	cs_fe_report_deadlocks(dev->fe);
	dev->deadlock_recorded = true;
	dev->last_deadlock_mark = dev->nevents;
}

bool cs_device_wait(cs_device *dev, uint64_t addr, uint64_t value, bool is64)
{
	cs_event ev = cs_event_make(CS_EV_WAIT_BEGIN, CS_STAGE_GUEST_WAKE, CS_UNIT_GUEST, 0);
	ev.addr = addr;
	ev.value = value;
	ev.aux = is64 ? 8 : 4;
	store_event(dev, &ev);

	cs_device_run(dev);

	uint64_t seen = 0;
	bool mapped = cs_mem_read(dev->mem, addr, &seen, is64 ? 8 : 4, NULL);
	uint64_t want = is64 ? value : (value & 0xffffffffu);
	if (mapped && seen == want) {
		ev = cs_event_make(CS_EV_WAIT_DONE, CS_STAGE_GUEST_WAKE, CS_UNIT_HOST, 0);
		ev.addr = addr;
		ev.value = seen;
		store_event(dev, &ev);
		return true;
	}
	ev = cs_event_make(CS_EV_WAIT_FAILED, CS_STAGE_GUEST_WAKE, CS_UNIT_HOST, 0);
	ev.addr = addr;
	ev.value = seen;
	ev.aux = want;
	ev.cause = (uint16_t)(!mapped ? CS_CAUSE_WAIT_UNMAPPED
			      : dev->budget_out ? CS_CAUSE_BUDGET : CS_CAUSE_WAIT_UNMET);
	ev.detail = !mapped ? "the waited address is not mapped"
		    : dev->budget_out ? "the run's entry budget ran out with work left"
		    : all_stuck(dev) ? "every channel is blocked" : "the device went idle first";
	store_event(dev, &ev);
	if (all_stuck(dev))
		record_deadlocks(dev);
	return false;
}

void cs_device_finish(cs_device *dev)
{
	bool blocked = false;
	for (uint32_t i = 0; i < dev->nchannels; i++)
		if (cs_fe_channel_state(dev->fe, dev->channels[i].fe_id) == CS_FE_CHAN_BLOCKED)
			blocked = true;
	if (blocked)
		record_deadlocks(dev);
	if (dev->gr_port.finish)
		dev->gr_port.finish(dev->gr_port.ctx);
}

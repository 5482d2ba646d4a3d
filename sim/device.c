/* SPDX-License-Identifier: MIT */
/* The device: the hub that wires memory, the trace store (sim/trace_store.c),
 * the virtual clock, the front end, the engines, the executor and the
 * forwarding path (sim/forward.c) together through their ports, the way a
 * board wires chips (docs/architecture.md). */
#include "chainsim/device.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "chainsim/fe.h"
#include "chainsim/gr.h"
#include "chainsim/ptxrun.h"
#include "chainsim/pushbuf.h"

#include "forward.h"
#include "trace_store.h"

enum {
	DEFAULT_RING_ENTRIES = 1024,
	CHANNEL_NAME_MAX = 64,
};

/* Default entry budget of one run: generous, but a finite bound on a guest
 * program that would otherwise keep the device busy forever. */
#define DEFAULT_RUN_BUDGET (1ull << 24)

/* A window of the host's view onto the guest's bytes. */
typedef struct dev_window {
	uint64_t guest, host, size;
} dev_window;

typedef struct dev_channel {
	char name[CHANNEL_NAME_MAX];
	uint32_t fe_id;
	uint64_t ring_va, userd_va;
	uint32_t entries;
	uint32_t guest_put;     /* next slot the guest writes */
	uint32_t submitted_put; /* GP_PUT as last written to USERD */
	uint32_t guest_gp_put;  /* GP_PUT as the guest last wrote it: its own entries
				   submitted, which the forwarding may turn into more or fewer */
	bool owns_ring;         /* the device placed the ring (a scenario's channel) */
} dev_channel;

struct cs_device {
	cs_device_config cfg;
	const cs_arch_info *arch;
	cs_mem *mem;
	dev_window *windows;      /* none: one view, the host sees the guest's addresses */
	unsigned nwindows;
	uint64_t now_ns;
	cs_bus bus;

	trace_store trace;

	cs_fe *fe;
	cs_gr *gr;
	cs_ptx_runtime *rt;
	cs_engine_port gr_port;
	cs_exec_port exec_port;

	dev_channel *channels;
	uint32_t nchannels;

	uint64_t host_next;       /* the next cs_device_host_alloc address */
	cs_forward_fn forward;
	void *forward_ctx;
	bool budget_out;          /* the last run ended on its entry budget, work left */
	bool deadlock_recorded;   /* deadlock records exist ... */
	size_t deadlock_nevents;  /* ... and the store held this many records right after */
	uint64_t deadlock_dropped;/* them, having dropped this many */
};

/* ---- the trace ---------------------------------------------------------------- */

static void store_event(cs_device *dev, const cs_event *ev)
{
	if (ev->kind == CS_EV_METHOD && dev->cfg.trace_level < CS_TRACE_ALL)
		return;
	trace_store_add(&dev->trace, ev, dev->now_ns);
}

bool cs_device_trace_ok(const cs_device *dev, cs_diag *d)
{
	return trace_store_ok(&dev->trace, d);
}

static void sink_emit(void *ctx, const cs_event *ev)
{
	store_event(ctx, ev);
}

void cs_device_record(cs_device *dev, const cs_event *ev)
{
	store_event(dev, ev);
}

uint64_t cs_device_events_dropped(const cs_device *dev)
{
	return dev->trace.dropped;
}

size_t cs_device_event_count(const cs_device *dev)
{
	return dev->trace.nevents;
}

const cs_event *cs_device_event(const cs_device *dev, size_t i)
{
	return i < dev->trace.nevents ? &dev->trace.events[i] : NULL;
}

const cs_event *cs_device_events(const cs_device *dev, size_t *n)
{
	*n = dev->trace.nevents;
	return dev->trace.events;
}

/* ---- the host's view ---------------------------------------------------------- */

/* Where host-view address va lives in the backing store (*at), and how many
 * bytes from va on stay in that piece (*run); false when the host's view does
 * not map va. (Only with windows: with none the bus has the memory's port.) */
static bool host_locate(const cs_device *dev, uint64_t va, uint64_t *at, uint64_t *run)
{
	for (unsigned i = 0; i < dev->nwindows; i++) {
		const dev_window *w = &dev->windows[i];
		if (va - w->host < w->size) {
			*at = w->guest + (va - w->host);
			*run = w->size - (va - w->host);
			return true;
		}
	}
	uint64_t chan_end = CS_DEVICE_CHANNEL_BASE + (uint64_t)dev->nchannels * CS_DEVICE_CHANNEL_STRIDE;
	if (va >= CS_DEVICE_CHANNEL_BASE && va < chan_end) {
		*at = va;
		*run = chan_end - va;
		return true;
	}
	if (va >= CS_DEVICE_HOST_BASE && va < dev->host_next) {
		*at = va;
		*run = dev->host_next - va;
		return true;
	}
	return false;
}

/* The first host-view byte of [va, va + len) that is not mapped; false when
 * every byte is. */
static bool host_first_unmapped(const cs_device *dev, uint64_t va, uint64_t len, uint64_t *bad)
{
	while (len) {
		uint64_t at, run;
		if (!host_locate(dev, va, &at, &run)) {
			*bad = va;
			return true;
		}
		uint64_t n = run < len ? run : len;
		for (uint64_t off = 0; off < n;) {
			uint64_t page_left = CS_PAGE_SIZE - ((at + off) & (CS_PAGE_SIZE - 1));
			uint64_t k = page_left < n - off ? page_left : n - off;
			if (!cs_mem_mapped(dev->mem, at + off, k)) {
				*bad = va + off;
				return true;
			}
			off += k;
		}
		va += n;
		len -= n;
	}
	return false;
}

static uint8_t *host_span(void *ctx, uint64_t va, uint64_t len)
{
	cs_device *dev = ctx;
	uint64_t at, run;
	if (!host_locate(dev, va, &at, &run) || run < len)
		return NULL;
	return cs_mem_span(dev->mem, at, len);
}

static bool host_mapped(void *ctx, uint64_t va, uint64_t len)
{
	uint64_t bad;
	return !host_first_unmapped(ctx, va, len, &bad);
}

/* Reads and writes go piece by piece; a write checks every byte first, so a
 * failed write writes nothing. */
static bool host_access(cs_device *dev, uint64_t va, uint8_t *rd, const uint8_t *wr, size_t len,
			uint64_t *fault_va)
{
	uint64_t bad;
	if (host_first_unmapped(dev, va, len, &bad)) {
		if (fault_va)
			*fault_va = bad;
		return false;
	}
	while (len) {
		uint64_t at, run;
		host_locate(dev, va, &at, &run);
		size_t n = run < len ? (size_t)run : len;
		uint64_t f;
		bool ok = rd ? cs_mem_read(dev->mem, at, rd, n, &f) : cs_mem_write(dev->mem, at, wr, n, &f);
		if (!ok) {
			if (fault_va)
				*fault_va = va + (f - at);
			return false;
		}
		va += n;
		len -= n;
		if (rd)
			rd += n;
		else
			wr += n;
	}
	return true;
}

static bool host_read(void *ctx, uint64_t va, void *dst, size_t len, uint64_t *fault_va)
{
	return host_access(ctx, va, dst, NULL, len, fault_va);
}

static bool host_write(void *ctx, uint64_t va, const void *src, size_t len, uint64_t *fault_va)
{
	return host_access(ctx, va, NULL, src, len, fault_va);
}

static bool ranges_overlap(uint64_t a, uint64_t alen, uint64_t b, uint64_t blen)
{
	return a < b + blen && b < a + alen;
}

bool cs_device_map_host(cs_device *dev, uint64_t guest, uint64_t host, uint64_t size, cs_diag *d)
{
	uint64_t mask = CS_PAGE_SIZE - 1;
	uint64_t top = dev->arch->va_bits >= 64 ? UINT64_MAX : (1ull << dev->arch->va_bits);
	if (size == 0 || ((guest | host | size) & mask)) {
		cs_diag_set(d, CS_ERR_INPUT, "map guest 0x%llx host 0x%llx size 0x%llx: the addresses "
			    "and the size must be non-zero multiples of 4 KiB",
			    (unsigned long long)guest, (unsigned long long)host,
			    (unsigned long long)size);
		return false;
	}
	if (guest >= top || host >= top || size > top - guest || size > top - host) {
		cs_diag_set(d, CS_ERR_INPUT, "map guest 0x%llx host 0x%llx size 0x%llx: beyond the "
			    "%u-bit address space of %s", (unsigned long long)guest,
			    (unsigned long long)host, (unsigned long long)size, dev->arch->va_bits,
			    dev->arch->name);
		return false;
	}
	uint64_t chan_span = (uint64_t)CS_FE_MAX_CHANNELS * CS_DEVICE_CHANNEL_STRIDE;
	if (ranges_overlap(host, size, CS_DEVICE_CHANNEL_BASE, chan_span) ||
	    ranges_overlap(host, size, CS_DEVICE_HOST_BASE, top - CS_DEVICE_HOST_BASE)) {
		cs_diag_set(d, CS_ERR_INPUT, "map host 0x%llx size 0x%llx overlaps the device's "
			    "channel area (0x%llx) or the host's own memory (0x%llx and up)",
			    (unsigned long long)host, (unsigned long long)size,
			    (unsigned long long)CS_DEVICE_CHANNEL_BASE,
			    (unsigned long long)CS_DEVICE_HOST_BASE);
		return false;
	}
	for (unsigned i = 0; i < dev->nwindows; i++) {
		const dev_window *w = &dev->windows[i];
		if (ranges_overlap(host, size, w->host, w->size)) {
			cs_diag_set(d, CS_ERR_INPUT, "map guest 0x%llx host 0x%llx size 0x%llx: its host "
				    "range overlaps the window guest 0x%llx host 0x%llx size 0x%llx",
				    (unsigned long long)guest, (unsigned long long)host,
				    (unsigned long long)size, (unsigned long long)w->guest,
				    (unsigned long long)w->host, (unsigned long long)w->size);
			return false;
		}
	}
	dev_window *nw = realloc(dev->windows, (dev->nwindows + 1) * sizeof(*nw));
	if (!nw) {
		cs_diag_set(d, CS_ERR_NOMEM, "out of memory adding a window");
		return false;
	}
	dev->windows = nw;
	dev->windows[dev->nwindows++] = (dev_window){ guest, host, size };
	/* from now on the front end and the engines (which read the bus) see the
	 * host's view */
	dev->bus.mem = (cs_mem_port){ .ctx = dev, .span = host_span, .read = host_read,
				      .write = host_write, .mapped = host_mapped };
	cs_event ev = cs_event_make(CS_EV_VIEW_MAP, CS_STAGE_NONE, CS_UNIT_HOST, CS_NONE32);
	ev.addr = guest;
	ev.aux = host;
	ev.value = size;
	store_event(dev, &ev);
	return true;
}

unsigned cs_device_window_count(const cs_device *dev)
{
	return dev->nwindows;
}

bool cs_device_guest_to_host(const cs_device *dev, uint64_t guest, uint64_t *host)
{
	for (unsigned i = 0; i < dev->nwindows; i++) {
		const dev_window *w = &dev->windows[i];
		if (guest - w->guest < w->size) {
			*host = w->host + (guest - w->guest);
			return true;
		}
	}
	return false;
}

bool cs_device_host_alloc(cs_device *dev, const char *name, uint64_t size, uint64_t *va,
			  cs_diag *d)
{
	if (!dev->host_next)
		dev->host_next = CS_DEVICE_HOST_BASE;
	uint64_t at = dev->host_next;
	if (size == 0 || size > CS_MEM_MAX_MAPPED) {
		cs_diag_set(d, CS_ERR_INPUT, "host memory '%s': size %llu is not in 1..%llu", name,
			    (unsigned long long)size, (unsigned long long)CS_MEM_MAX_MAPPED);
		return false;
	}
	if (!cs_mem_map(dev->mem, name, at, size, d))
		return false;
	dev->host_next = at + ((size + CS_PAGE_SIZE - 1) & ~(uint64_t)(CS_PAGE_SIZE - 1));
	*va = at;
	return true;
}

/* ---- the client's memory ------------------------------------------------------- */

bool cs_device_map_client(cs_device *dev, const char *name, void *host, uint64_t size,
			  uint64_t va, cs_diag *d)
{
	return cs_mem_map_client(dev->mem, name, va, size, host, d);
}

bool cs_device_unmap(cs_device *dev, uint64_t va, uint64_t size, cs_diag *d)
{
	if (!cs_mem_unmap(dev->mem, va, size, d))
		return false;
	cs_ptx_runtime_forget(dev->rt, va, size);
	return true;
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
	trace_store_init(&dev->trace,
			 cfg->trace_max_records ? cfg->trace_max_records : CS_DEVICE_MAX_RECORDS,
			 cfg->trace_ring);
	dev->arch = ai;
	dev->mem = cs_mem_new(ai->va_bits);
	if (!dev->mem)
		goto nomem;
	/* one view until a window is mapped: the memory itself, nothing between */
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
		cs_ptx_runtime_set_budget_per_launch(dev->rt, cfg->budget_per_launch);
	}
	dev->gr = cs_gr_new(cfg->arch, &dev->bus, dev->exec_port.run_grid ? &dev->exec_port : NULL);
	if (!dev->gr)
		goto nomem;
	dev->gr_port = cs_gr_engine_port(dev->gr);
	dev->fe = cs_fe_new(cfg->arch, &dev->bus, &dev->gr_port);
	if (!dev->fe)
		goto nomem;
	uint32_t id;
	if (!cfg->client_channels && !cs_device_channel(dev, "default", 0, &id, d)) {
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
	trace_store_free(&dev->trace);
	free(dev->channels);
	free(dev->windows);
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

static const dev_channel *channel_named(const cs_device *dev, const char *name, uint32_t *id)
{
	for (uint32_t i = 0; i < dev->nchannels; i++) {
		if (strcmp(dev->channels[i].name, name) == 0) {
			*id = i;
			return &dev->channels[i];
		}
	}
	return NULL;
}

static bool channel_args_ok(const cs_device *dev, const char *name, uint32_t entries, cs_diag *d)
{
	if (strlen(name) >= CHANNEL_NAME_MAX || !name[0]) {
		cs_diag_set(d, CS_ERR_INPUT, "channel name must be 1..%d characters",
			    CHANNEL_NAME_MAX - 1);
		return false;
	}
	if (dev->nchannels >= CS_FE_MAX_CHANNELS) {
		cs_diag_set(d, CS_ERR_INPUT, "too many channels (at most %d)", CS_FE_MAX_CHANNELS);
		return false;
	}
	if (entries < 2 || entries > CS_FE_MAX_RING_ENTRIES || (entries & (entries - 1))) {
		cs_diag_set(d, CS_ERR_INPUT,
			    "channel '%s': entries=%u is not a power of two in 2..%u", name, entries,
			    (unsigned)CS_FE_MAX_RING_ENTRIES);
		return false;
	}
	return true;
}

/* The one way a channel is made: its ring and USERD already mapped. */
static bool channel_add(cs_device *dev, const char *name, uint64_t ring_va, uint32_t entries,
			uint64_t userd_va, bool owns_ring, uint32_t *id, cs_diag *d)
{
	dev_channel *chs = realloc(dev->channels, (dev->nchannels + 1) * sizeof(*chs));
	if (!chs) {
		cs_diag_set(d, CS_ERR_NOMEM, "out of memory creating channel '%s'", name);
		return false;
	}
	dev->channels = chs;
	dev_channel *ch = &chs[dev->nchannels];
	memset(ch, 0, sizeof(*ch));
	strcpy(ch->name, name);
	ch->entries = entries;
	ch->ring_va = ring_va;
	ch->userd_va = userd_va;
	ch->owns_ring = owns_ring;
	if (!cs_fe_channel_new(dev->fe, ring_va, entries, userd_va, &ch->fe_id, d))
		return false;
	*id = dev->nchannels++;
	return true;
}

bool cs_device_channel(cs_device *dev, const char *name, uint32_t entries, uint32_t *id,
		       cs_diag *d)
{
	if (channel_named(dev, name, id))
		return true;
	if (!entries)
		entries = DEFAULT_RING_ENTRIES;
	if (!channel_args_ok(dev, name, entries, d))
		return false;
	uint32_t n = dev->nchannels;
	uint64_t ring_va = CS_DEVICE_CHANNEL_BASE + (uint64_t)n * CS_DEVICE_CHANNEL_STRIDE;
	uint64_t ring_bytes = (uint64_t)entries * 8u;
	uint64_t userd_va = ring_va + ((ring_bytes + CS_PAGE_SIZE - 1) & ~(uint64_t)(CS_PAGE_SIZE - 1));
	char rname[CS_REGION_NAME_MAX];
	snprintf(rname, sizeof(rname), "chainsim.ch%u.gpfifo", n);
	if (!cs_mem_map(dev->mem, rname, ring_va, ring_bytes, d))
		return false;
	snprintf(rname, sizeof(rname), "chainsim.ch%u.userd", n);
	if (!cs_mem_map(dev->mem, rname, userd_va, CS_USERD_SIZE, d))
		return false;
	return channel_add(dev, name, ring_va, entries, userd_va, true, id, d);
}

bool cs_device_channel_at(cs_device *dev, const char *name, uint64_t ring_va, uint32_t entries,
			  uint64_t userd_va, uint32_t *id, cs_diag *d)
{
	uint32_t other;
	if (channel_named(dev, name, &other)) {
		cs_diag_set(d, CS_ERR_INPUT, "a channel named '%s' exists", name);
		return false;
	}
	if (!channel_args_ok(dev, name, entries, d))
		return false;
	if (ring_va & 7u) {
		cs_diag_set(d, CS_ERR_INPUT, "channel '%s': the ring at 0x%llx is not 8-byte aligned",
			    name, (unsigned long long)ring_va);
		return false;
	}
	uint64_t ring_bytes = (uint64_t)entries * 8u;
	if (ring_va + ring_bytes < ring_va || !cs_mem_mapped(dev->mem, ring_va, ring_bytes)) {
		cs_diag_set(d, CS_ERR_INPUT, "channel '%s': the ring of %u entries at 0x%llx is not "
			    "mapped (map it first)", name, entries, (unsigned long long)ring_va);
		return false;
	}
	/* the front end reads GP_PUT and writes GP_GET: those words must be there */
	if ((userd_va & 3u) || userd_va + CS_USERD_GP_PUT + 4 < userd_va ||
	    !cs_mem_mapped(dev->mem, userd_va + CS_USERD_GP_GET, CS_USERD_GP_PUT + 4 - CS_USERD_GP_GET)) {
		cs_diag_set(d, CS_ERR_INPUT, "channel '%s': USERD at 0x%llx is not mapped or not "
			    "4-byte aligned (GP_GET at +0x%x and GP_PUT at +0x%x must be mapped)",
			    name, (unsigned long long)userd_va, CS_USERD_GP_GET, CS_USERD_GP_PUT);
		return false;
	}
	return channel_add(dev, name, ring_va, entries, userd_va, false, id, d);
}

uint32_t cs_device_channel_fe_id(const cs_device *dev, uint32_t ch)
{
	return ch < dev->nchannels ? dev->channels[ch].fe_id : CS_NONE32;
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

/* ---- forwarding (stage 3, sim/forward.c) --------------------------------------- */

void cs_device_set_forward(cs_device *dev, cs_forward_fn fn, void *ctx)
{
	dev->forward = fn;
	dev->forward_ctx = ctx;
}

bool device_window_shows(const cs_device *dev, uint64_t guest, uint64_t host)
{
	for (unsigned i = 0; i < dev->nwindows; i++) {
		const dev_window *w = &dev->windows[i];
		if (guest - w->guest < w->size && host == w->host + (guest - w->guest))
			return true;
	}
	return false;
}

/* Stage 2 and 3 of one doorbell: the guest's GP_PUT (guest_put, entries up to
 * which the guest's ring holds work), the doorbell, the forwarding (or
 * identity), then the front end reads the host's GP_PUT. write_put: the
 * device writes the host's GP_PUT to USERD (a scenario's guest pushes through
 * the device; a live client wrote it itself). */
static bool ring_doorbell(cs_device *dev, dev_channel *c, uint32_t guest_put, bool write_put,
			  cs_diag *d)
{
	uint32_t mask = c->entries - 1u;
	uint32_t old = c->submitted_put;
	uint32_t guest_entries = (guest_put - c->submitted_put) & mask;
	uint32_t guest_old = c->guest_gp_put;
	c->guest_put = guest_put;
	c->guest_gp_put = (guest_old + guest_entries) & mask;

	cs_event ev = cs_event_make(CS_EV_GP_PUT, CS_STAGE_GUEST_SUBMIT, CS_UNIT_GUEST, c->fe_id);
	ev.addr = c->userd_va + CS_USERD_GP_PUT;
	ev.value = c->guest_gp_put;
	ev.aux = guest_old;
	store_event(dev, &ev);

	ev = cs_event_make(CS_EV_DOORBELL, CS_STAGE_GUEST_SUBMIT, CS_UNIT_GUEST, c->fe_id);
	ev.value = c->fe_id; /* the work-submit token: the channel's id */
	store_event(dev, &ev);

	uint32_t edits = 0;
	forward_ring ring = { .name = c->name, .fe_id = c->fe_id, .ring_va = c->ring_va,
			      .entries = c->entries, .from = c->submitted_put, .to = c->guest_put };
	if (dev->forward &&
	    !forward_entries(dev, dev->forward, dev->forward_ctx, &ring, &c->guest_put, &edits, d))
		return false;
	uint32_t put = c->guest_put;
	if ((write_put || dev->forward) &&
	    !cs_mem_write(dev->mem, c->userd_va + CS_USERD_GP_PUT, &put, 4, NULL)) {
		cs_diag_set(d, CS_ERR_INTERNAL, "channel '%s': USERD is not mapped", c->name);
		return false;
	}
	c->submitted_put = put;
	forward_record(dev, c->fe_id, guest_entries, (put - old) & mask, dev->forward != NULL, edits);

	cs_fe_doorbell(dev->fe, c->fe_id);
	return true;
}

bool cs_device_submit(cs_device *dev, uint32_t ch, cs_diag *d)
{
	if (ch >= dev->nchannels) {
		cs_diag_set(d, CS_ERR_INPUT, "no channel %u", ch);
		return false;
	}
	dev_channel *c = &dev->channels[ch];
	if (!ring_doorbell(dev, c, c->guest_put, true, d))
		return false;
	cs_device_run(dev);
	return true;
}

bool cs_device_doorbell(cs_device *dev, uint32_t ch, cs_diag *d)
{
	if (ch >= dev->nchannels) {
		cs_diag_set(d, CS_ERR_INPUT, "no channel %u", ch);
		return false;
	}
	dev_channel *c = &dev->channels[ch];
	uint32_t put = 0;
	uint64_t fva = 0;
	if (!cs_mem_read(dev->mem, c->userd_va + CS_USERD_GP_PUT, &put, 4, &fva)) {
		/* the front end reads it too, and stops the channel with the fault */
		cs_fe_doorbell(dev->fe, c->fe_id);
		cs_diag_set(d, CS_ERR_FAULT, "channel '%s': reading GP_PUT from USERD at 0x%llx "
			    "faulted at 0x%llx", c->name,
			    (unsigned long long)(c->userd_va + CS_USERD_GP_PUT),
			    (unsigned long long)fva);
		return false;
	}
	if (put >= c->entries) {
		cs_fe_doorbell(dev->fe, c->fe_id); /* stops the channel, naming GP_PUT */
		cs_diag_set(d, CS_ERR_INPUT, "channel '%s': GP_PUT %u is outside its ring of %u "
			    "entries", c->name, put, c->entries);
		return false;
	}
	return ring_doorbell(dev, c, put, false, d);
}

void cs_device_run(cs_device *dev)
{
	cs_device_run_entries(dev, 0);
}

cs_fe_run_result cs_device_run_entries(cs_device *dev, uint64_t entries)
{
	cs_fe_run_result r = cs_fe_run(dev->fe, entries ? entries : dev->cfg.run_budget);
	dev->budget_out = r.end == CS_FE_RUN_BUDGET;
	return r;
}

bool cs_device_busy(const cs_device *dev)
{
	return cs_fe_busy(dev->fe);
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
	if (dev->deadlock_recorded && dev->deadlock_nevents == dev->trace.nevents &&
	    dev->deadlock_dropped == dev->trace.dropped)
		return;
	cs_fe_report_deadlocks(dev->fe);
	dev->deadlock_recorded = true;
	dev->deadlock_nevents = dev->trace.nevents;
	dev->deadlock_dropped = dev->trace.dropped;
}

const char *cs_wait_cmp_symbol(cs_wait_cmp cmp)
{
	return cmp == CS_WAIT_GEQ ? ">=" : "==";
}

bool cs_device_wait(cs_device *dev, uint64_t addr, uint64_t value, bool is64)
{
	return cs_device_wait_cmp(dev, addr, value, is64, CS_WAIT_EQ);
}

bool cs_device_wait_cmp(cs_device *dev, uint64_t addr, uint64_t value, bool is64,
			cs_wait_cmp cmp)
{
	cs_event ev = cs_event_make(CS_EV_WAIT_BEGIN, CS_STAGE_GUEST_WAKE, CS_UNIT_GUEST, 0);
	ev.addr = addr;
	ev.value = value;
	ev.aux = (is64 ? 8 : 4) | (cmp == CS_WAIT_GEQ ? CS_WAIT_BEGIN_GEQ : 0);
	store_event(dev, &ev);

	cs_device_run(dev);

	uint64_t seen = 0;
	bool mapped = cs_mem_read(dev->mem, addr, &seen, is64 ? 8 : 4, NULL);
	uint64_t want = is64 ? value : (value & 0xffffffffu);
	if (mapped && (cmp == CS_WAIT_GEQ ? seen >= want : seen == want)) {
		ev = cs_event_make(CS_EV_WAIT_DONE, CS_STAGE_GUEST_WAKE, CS_UNIT_HOST, 0);
		ev.addr = addr;
		ev.value = seen;
		ev.aux = want;
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

/* ---- views for reports and the REPL ---------------------------------------------- */

uint32_t *cs_device_pb_read(const cs_device *dev, uint64_t va, uint32_t dwords, cs_diag *d)
{
	if (!dwords || dwords > CS_DEVICE_PB_MAX_DWORDS) {
		cs_diag_set(d, CS_ERR_INPUT, "the pushbuffer at 0x%llx: %u dwords, not 1 to %u",
			    (unsigned long long)va, dwords, CS_DEVICE_PB_MAX_DWORDS);
		return NULL;
	}
	uint32_t *dw = malloc((size_t)dwords * 4u);
	if (!dw) {
		cs_diag_set(d, CS_ERR_NOMEM, "out of memory reading %u dwords at 0x%llx", dwords,
			    (unsigned long long)va);
		return NULL;
	}
	if (!cs_device_peek(dev, va, dw, (size_t)dwords * 4u)) {
		cs_diag_set(d, CS_ERR_INPUT, "the pushbuffer at 0x%llx (%u dwords) is not all mapped",
			    (unsigned long long)va, dwords);
		free(dw);
		return NULL;
	}
	return dw;
}

bool cs_device_channel_info(cs_device *dev, uint32_t ch, cs_fe_channel_info *out)
{
	return ch < dev->nchannels && cs_fe_channel_info_get(dev->fe, dev->channels[ch].fe_id, out);
}

bool cs_device_qmd_read(const cs_device *dev, uint64_t va, cs_qmd *q, uint64_t *fault)
{
	return cs_qmd_read_mem(q, cs_class_qmd_major(dev->arch->compute_class), &dev->bus.mem, va,
			       fault);
}

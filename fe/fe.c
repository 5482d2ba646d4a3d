/* SPDX-License-Identifier: MIT */
/* The front end: channels (GPFIFO ring + USERD in GPU memory), the doorbell,
 * round-robin scheduling by GPFIFO entry, and pushbuffer execution: host
 * methods here (fe_host.c holds the host class), the rest to the engine port. */
#include "fe_internal.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- records ------------------------------------------------------------ */

static void vstop(cs_fe *fe, fe_chan *c, cs_stage stage, cs_cause cause, cs_status st,
		  const cs_pb_item *it, const char *fmt, va_list ap)
{
	char msg[CS_DIAG_MSG_MAX];
	vsnprintf(msg, sizeof(msg), fmt, ap);

	cs_event ev;
	if (it) {
		uint64_t va = fe_item_va(c, it);
		cs_diag_at_offset(&c->stop, st, "pushbuffer", 4u * (it->dword - c->first_dword),
				  "channel %" PRIu32 ", GPFIFO entry %" PRIu32 ", method %" PRIu32
				  " at 0x%" PRIx64 ": %s",
				  c->id, c->slot, c->method_index, va, msg);
		ev = fe_item_event(fe, c, CS_EV_CHANNEL_STOP, stage, it);
	} else if (c->in_entry) {
		cs_diag_set(&c->stop, st, "channel %" PRIu32 ", GPFIFO entry %" PRIu32 ": %s", c->id,
			    c->slot, msg);
		ev = fe_event(c, CS_EV_CHANNEL_STOP, stage);
	} else {
		cs_diag_set(&c->stop, st, "channel %" PRIu32 ": %s", c->id, msg);
		ev = fe_event(c, CS_EV_CHANNEL_STOP, stage);
	}
	c->stopped = true;
	c->blocked = false;
	ev.cause = (uint16_t)cause;
	ev.detail = c->stop.msg;
	fe_emit(fe, &ev);
}

void fe_stop(cs_fe *fe, fe_chan *c, cs_stage stage, cs_status st, const cs_pb_item *it,
	     const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vstop(fe, c, stage, CS_CAUSE_NONE, st, it, fmt, ap);
	va_end(ap);
}

void fe_stop_for(cs_fe *fe, fe_chan *c, cs_stage stage, cs_cause cause, cs_status st,
		 const cs_pb_item *it, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vstop(fe, c, stage, cause, st, it, fmt, ap);
	va_end(ap);
}

void fe_fault(cs_fe *fe, fe_chan *c, cs_stage stage, const cs_pb_item *it, uint64_t va,
	      cs_access acc, const char *what)
{
	cs_event ev = it ? fe_item_event(fe, c, CS_EV_FAULT, stage, it)
			 : fe_event(c, CS_EV_FAULT, stage);
	ev.addr = va;
	ev.value = (uint64_t)acc;
	ev.aux = 0;
	snprintf(fe->detail, sizeof(fe->detail), "%s %s at 0x%" PRIx64 ": not mapped", what,
		 cs_access_name(acc), va);
	ev.detail = fe->detail;
	fe_emit(fe, &ev);
}

/* ---- memory helpers ----------------------------------------------------- */

/* The first unmapped byte of [va, va + len), page by page (len > 0). */
static uint64_t first_unmapped(const cs_fe *fe, uint64_t va, uint64_t len)
{
	uint64_t end = va + len;
	uint64_t p = va;
	while (p < end) {
		uint64_t next = (p | (CS_PAGE_SIZE - 1)) + 1;
		uint64_t n = (next < end ? next : end) - p;
		if (!fe->bus->mem.mapped(fe->bus->mem.ctx, p, n))
			return p;
		if (next == 0)
			break;
		p = next;
	}
	return va;
}

bool fe_read(cs_fe *fe, uint64_t va, void *dst, size_t len, uint64_t *fault_va)
{
	if (va + len < va) {
		*fault_va = va;
		return false;
	}
	return fe->bus->mem.read(fe->bus->mem.ctx, va, dst, len, fault_va);
}

bool fe_write(cs_fe *fe, uint64_t va, const void *src, size_t len, uint64_t *fault_va)
{
	if (va + len < va) {
		*fault_va = va;
		return false;
	}
	return fe->bus->mem.write(fe->bus->mem.ctx, va, src, len, fault_va);
}

/* ---- object ------------------------------------------------------------- */

cs_fe *cs_fe_new(cs_arch arch, const cs_bus *bus, const cs_engine_port *engines)
{
	const cs_arch_info *ai = cs_arch_get(arch);
	if (!ai || !bus || !bus->mem.read || !bus->mem.write || !bus->mem.mapped)
		return NULL;
	const cs_class_desc *host = cs_fe_host_class(ai->host_class);
	if (!host)
		return NULL;
	cs_fe *fe = calloc(1, sizeof(*fe));
	if (!fe)
		return NULL;
	fe->arch = arch;
	fe->host = host;
	fe->host_cls = ai->host_class;
	fe->bus = bus;
	fe->now = bus->now_ns ? bus->now_ns : &fe->own_clock;
	fe->tracing = bus->trace.emit != NULL;
	fe->trace_all = fe->tracing && bus->trace.level == CS_TRACE_ALL;
	if (engines) {
		fe->eng = *engines;
		fe->has_eng = true;
	}
	for (unsigned i = 0; i < host->nmethods; i++) {
		const cs_method_desc *m = &host->methods[i];
		for (uint32_t e = 0; e < m->count; e++) {
			uint32_t off = m->offset + e * (m->count > 1 ? m->stride : 4);
			if (off >= CS_PB_HOST_METHODS)
				continue;
			fe->host_method[off >> 2] = m;
			if (cs_fe_host_method_assumed(fe->host_cls, off))
				fe->host_assumed |= 1ull << (off >> 2);
		}
	}
	fe->has_extended_base = arch >= CS_ARCH_HOPPER;
	return fe;
}

void cs_fe_free(cs_fe *fe)
{
	if (!fe)
		return;
	for (uint32_t i = 0; i < fe->nchan; i++)
		free(fe->chan[i]);
	free(fe);
}


static fe_chan *chan_get(const cs_fe *fe, uint32_t ch)
{
	return ch < fe->nchan ? fe->chan[ch] : NULL;
}

bool cs_fe_channel_new(cs_fe *fe, uint64_t ring_va, uint32_t entries, uint64_t userd_va,
		       uint32_t *id, cs_diag *d)
{
	if (fe->nchan >= CS_FE_MAX_CHANNELS) {
		cs_diag_set(d, CS_ERR_UNSUPPORTED, "at most %u channels", CS_FE_MAX_CHANNELS);
		return false;
	}
	if (entries < 2 || entries > CS_FE_MAX_RING_ENTRIES || (entries & (entries - 1))) {
		cs_diag_set(d, CS_ERR_INPUT,
			    "a GPFIFO ring of %" PRIu32 " entries: the count must be a power of two "
			    "from 2 to %u (the hardware stores its log2)",
			    entries, CS_FE_MAX_RING_ENTRIES);
		return false;
	}
	if (ring_va & 7u) {
		cs_diag_set(d, CS_ERR_INPUT, "GPFIFO ring at 0x%" PRIx64 " is not 8-byte aligned",
			    ring_va);
		return false;
	}
	if (ring_va + 8ull * entries < ring_va || userd_va + CS_USERD_SIZE < userd_va) {
		cs_diag_set(d, CS_ERR_INPUT, "GPFIFO ring or USERD wraps the address space");
		return false;
	}
	if (userd_va & 3u) {
		cs_diag_set(d, CS_ERR_INPUT, "USERD at 0x%" PRIx64 " is not 4-byte aligned", userd_va);
		return false;
	}
	uint32_t zero = 0;
	uint64_t fva;
	if (!fe_write(fe, userd_va + CS_USERD_GP_GET, &zero, 4, &fva)) {
		cs_diag_set(d, CS_ERR_FAULT, "USERD at 0x%" PRIx64 " is not mapped (0x%" PRIx64 ")",
			    userd_va, fva);
		return false;
	}
	fe_chan *c = calloc(1, sizeof(*c));
	if (!c) {
		cs_diag_set(d, CS_ERR_NOMEM, "out of memory");
		return false;
	}
	c->id = fe->nchan;
	c->ring_va = ring_va;
	c->ring_entries = entries;
	c->userd_va = userd_va;
	cs_pb_decoder_init(&c->dec, false);
	fe->chan[fe->nchan++] = c;
	if (id)
		*id = c->id;
	return true;
}

uint32_t cs_fe_channel_count(const cs_fe *fe) { return fe->nchan; }

bool cs_fe_doorbell(cs_fe *fe, uint32_t ch)
{
	fe_chan *c = chan_get(fe, ch);
	if (!c || c->stopped)
		return false;
	uint32_t put;
	uint64_t fva;
	uint64_t va = c->userd_va + CS_USERD_GP_PUT;
	if (!fe_read(fe, va, &put, 4, &fva)) {
		fe_fault(fe, c, CS_STAGE_FE_FETCH, NULL, fva, CS_ACCESS_READ, "USERD GP_PUT");
		fe_stop(fe, c, CS_STAGE_FE_FETCH, CS_ERR_FAULT, NULL,
			"the doorbell's GP_PUT read at 0x%" PRIx64 " faulted (USERD not mapped)", va);
		return false;
	}
	if (put >= c->ring_entries) {
		fe_stop(fe, c, CS_STAGE_FE_FETCH, CS_ERR_INPUT, NULL,
			"GP_PUT %" PRIu32 " read from USERD is outside the ring of %" PRIu32
			" entries",
			put, c->ring_entries);
		return false;
	}
	c->gp_put = put;
	return true;
}

/* ---- fetch -------------------------------------------------------------- */

static void control_entry(cs_fe *fe, fe_chan *c, const cs_gp_entry *e, uint32_t lo, uint64_t raw)
{
	c->ctr.control_entries++;
	cs_event ev = fe_event(c, CS_EV_GP_CONTROL, CS_STAGE_FE_FETCH);
	ev.value = e->opcode;
	ev.aux = raw;
	switch (e->opcode) {
	case CS_GP_OPCODE_NOP:
		ev.detail = "control entry NOP";
		fe_emit(fe, &ev);
		return;
	case CS_GP_OPCODE_ILLEGAL:
		ev.detail = "control entry ILLEGAL";
		fe_emit(fe, &ev);
		fe_stop(fe, c, CS_STAGE_FE_FETCH, CS_ERR_INPUT, NULL,
			"an ILLEGAL control entry (length 0, opcode 1)");
		return;
	case CS_GP_OPCODE_GP_CRC:
	case CS_GP_OPCODE_PB_CRC: {
		ev.detail = e->opcode == CS_GP_OPCODE_GP_CRC ? "control entry GP_CRC"
							     : "control entry PB_CRC";
		fe_emit(fe, &ev);
		cs_event as = fe_event(c, CS_EV_ASSUMPTION, CS_STAGE_FE_FETCH);
		as.value = e->opcode;
		as.detail = "a CRC control entry is not checked: the public headers do not give the "
			    "CRC the hardware computes";
		fe_emit(fe, &as);
		return;
	}
	case CS_GP_OPCODE_SET_PB_SEGMENT_EXTENDED_BASE:
		if (fe->has_extended_base) {
			c->ext_base = (lo >> 8) & 0x1ffffu;
			snprintf(fe->detail, sizeof(fe->detail),
				 "control entry SET_PB_SEGMENT_EXTENDED_BASE 0x%" PRIx64
				 " (pushbuffer address bits 56:40)",
				 c->ext_base);
			ev.detail = fe->detail;
			fe_emit(fe, &ev);
			return;
		}
		ev.detail = "control entry SET_PB_SEGMENT_EXTENDED_BASE";
		fe_emit(fe, &ev);
		fe_stop(fe, c, CS_STAGE_FE_FETCH, CS_ERR_INPUT, NULL,
			"control opcode 4 (SET_PB_SEGMENT_EXTENDED_BASE) exists from Hopper (C86F) on, "
			"not on %s (%04X)",
			cs_arch_get(fe->arch)->name, fe->host_cls);
		return;
	default:
		ev.detail = "control entry with an unknown opcode";
		fe_emit(fe, &ev);
		fe_stop(fe, c, CS_STAGE_FE_FETCH, CS_ERR_INPUT, NULL,
			"unknown control opcode %" PRIu32 " (known: 0 NOP, 1 ILLEGAL, 2 GP_CRC, "
			"3 PB_CRC%s)",
			e->opcode, fe->has_extended_base ? ", 4 SET_PB_SEGMENT_EXTENDED_BASE" : "");
		return;
	}
}

/* Fetch the entry at GP_GET and advance GP_GET. False when the channel stopped
 * or the entry was a control entry (nothing left to run). */
static bool fetch_entry(cs_fe *fe, fe_chan *c)
{
	uint32_t w[2];
	uint64_t fva;
	uint64_t va = c->ring_va + 8ull * c->gp_get;
	*fe->now += CS_FE_NS_PER_ENTRY;
	if (!fe_read(fe, va, w, sizeof(w), &fva)) {
		c->in_entry = false;
		cs_event ev = fe_event(c, CS_EV_FAULT, CS_STAGE_FE_FETCH);
		ev.gp_entry = c->gp_get;
		ev.addr = fva;
		ev.value = CS_ACCESS_FETCH;
		snprintf(fe->detail, sizeof(fe->detail),
			 "GPFIFO entry %" PRIu32 " fetch at 0x%" PRIx64 ": ring not mapped", c->gp_get,
			 fva);
		ev.detail = fe->detail;
		fe_emit(fe, &ev);
		c->slot = c->gp_get; /* name the entry in the stop record */
		c->in_entry = true;
		fe_stop(fe, c, CS_STAGE_FE_FETCH, CS_ERR_FAULT, NULL,
			"fetching the entry at 0x%" PRIx64 " faulted: the ring is not mapped at 0x%" PRIx64,
			va, fva);
		c->in_entry = false;
		return false;
	}
	c->slot = c->gp_get;
	c->in_entry = true;
	c->method_index = 0;
	c->gp_get = (c->gp_get + 1) & (c->ring_entries - 1);
	c->ctr.entries++;
	if (!fe_write(fe, c->userd_va + CS_USERD_GP_GET, &c->gp_get, 4, &fva)) {
		fe_fault(fe, c, CS_STAGE_FE_FETCH, NULL, fva, CS_ACCESS_WRITE, "USERD GP_GET");
		fe_stop(fe, c, CS_STAGE_FE_FETCH, CS_ERR_FAULT, NULL,
			"writing GP_GET to USERD at 0x%" PRIx64 " faulted",
			c->userd_va + CS_USERD_GP_GET);
		c->in_entry = false;
		return false;
	}
	uint64_t raw = ((uint64_t)w[1] << 32) | w[0];
	c->entry = cs_gp_decode(w[0], w[1]);
	if (c->entry.length == 0) {
		control_entry(fe, c, &c->entry, w[0], raw);
		c->in_entry = false;
		return false;
	}
	c->pb_va = c->entry.addr | (c->ext_base << 40);
	if (fe->tracing) {
		cs_event ev = fe_event(c, CS_EV_GP_FETCH, CS_STAGE_FE_FETCH);
		ev.addr = c->pb_va;
		ev.value = c->entry.length;
		ev.aux = raw;
		snprintf(fe->detail, sizeof(fe->detail),
			 "entry %" PRIu32 ": 0x%" PRIx64 ", %" PRIu32 " dwords%s%s%s", c->slot, c->pb_va,
			 c->entry.length, c->entry.subroutine ? ", subroutine level" : "",
			 c->entry.sync ? ", sync" : "", c->entry.fetch_cond ? ", conditional fetch" : "");
		ev.detail = fe->detail;
		fe_emit(fe, &ev);
	}
	uint64_t bytes = 4ull * c->entry.length;
	if (!fe->bus->mem.mapped(fe->bus->mem.ctx, c->pb_va, bytes)) {
		uint64_t bad = first_unmapped(fe, c->pb_va, bytes);
		cs_event ev = fe_event(c, CS_EV_FAULT, CS_STAGE_FE_FETCH);
		ev.addr = bad;
		ev.value = CS_ACCESS_FETCH;
		snprintf(fe->detail, sizeof(fe->detail),
			 "pushbuffer fetch of entry %" PRIu32 " (0x%" PRIx64 ", %" PRIu32
			 " dwords): 0x%" PRIx64 " not mapped",
			 c->slot, c->pb_va, c->entry.length, bad);
		ev.detail = fe->detail;
		fe_emit(fe, &ev);
		fe_stop(fe, c, CS_STAGE_FE_FETCH, CS_ERR_FAULT, NULL,
			"the pushbuffer 0x%" PRIx64 " (%" PRIu32 " dwords) is not mapped at 0x%" PRIx64,
			c->pb_va, c->entry.length, bad);
		c->in_entry = false;
		return false;
	}
	c->pos = 0;
	c->first_dword = c->dec.next_dword;
	c->item_pos = c->item_count = 0;
	c->seg_done = false;
	cs_pb_decoder_segment(&c->dec);
	return true;
}

/* ---- execution ---------------------------------------------------------- */

static void entry_done(cs_fe *fe, fe_chan *c)
{
	if (fe->tracing) {
		cs_event ev = fe_event(c, CS_EV_ENTRY_DONE, CS_STAGE_FE_EXEC);
		ev.value = c->method_index;
		fe_emit(fe, &ev);
	}
	c->in_entry = false;
}

/* Decode the next slice of the entry (up to a page) into c->items. */
static bool decode_more(cs_fe *fe, fe_chan *c)
{
	uint64_t va = c->pb_va + 4ull * c->pos;
	uint64_t page_left = (CS_PAGE_SIZE - (va & (CS_PAGE_SIZE - 1))) / 4;
	uint32_t ndw = c->entry.length - c->pos;
	if (ndw > page_left)
		ndw = (uint32_t)page_left;
	const uint32_t *dw = NULL;
	if (fe->bus->mem.span)
		dw = (const uint32_t *)(const void *)fe->bus->mem.span(fe->bus->mem.ctx, va, 4ull * ndw);
	if (!dw) {
		uint64_t fva;
		if (!fe_read(fe, va, c->bounce, 4ull * ndw, &fva)) {
			fe_fault(fe, c, CS_STAGE_FE_FETCH, NULL, fva, CS_ACCESS_FETCH, "pushbuffer");
			fe_stop(fe, c, CS_STAGE_FE_FETCH, CS_ERR_FAULT, NULL,
				"pushbuffer fetch at 0x%" PRIx64 " faulted", fva);
			return false;
		}
		dw = c->bounce;
	}
	size_t used = 0;
	cs_diag d;
	size_t n = cs_pb_decode(&c->dec, dw, ndw, c->items, FE_ITEMS, &used, &d);
	c->pos += (uint32_t)used;
	c->ctr.dwords += used;
	c->item_pos = 0;
	c->item_count = (uint32_t)n;
	if (c->dec.failed) {
		c->decode_failed = true;
		c->decode_diag = d;
	}
	return true;
}

static fe_exec engine_method(cs_fe *fe, fe_chan *c, const cs_pb_item *it)
{
	uint32_t cls = c->bound[it->subch];
	if (!cls) {
		fe_stop(fe, c, CS_STAGE_FE_EXEC, CS_ERR_INPUT, it,
			"method 0x%04x on subchannel %u, which has no object bound (no SET_OBJECT "
			"on this subchannel before it)",
			it->method, it->subch);
		return FE_EXEC_STOP;
	}
	if (!fe->has_eng || !fe->eng.method) {
		fe_stop(fe, c, CS_STAGE_FE_EXEC, CS_ERR_UNAVAILABLE, it,
			"method 0x%04x for class %04X: no engine is wired to the front end",
			it->method, cls);
		return FE_EXEC_STOP;
	}
	c->ctr.engine_methods++;
	cs_method_call call = {
		.channel = c->id,
		.subch = it->subch,
		.cls = cls,
		.method = it->method,
		.data = it->data,
		.gp_entry = c->slot,
		.method_index = c->method_index,
		.data_addr = fe_item_va(c, it),
	};
	cs_diag why;
	why.status = CS_OK;
	why.msg[0] = '\0';
	if (fe->eng.method(fe->eng.ctx, &call, &why) != CS_ENGINE_OK) {
		fe_stop(fe, c, CS_STAGE_FE_EXEC, why.status != CS_OK ? why.status : CS_ERR_INPUT, it,
			"the %s engine stopped the channel: %s", cs_class_name(cls) ? cs_class_name(cls) : "?",
			why.msg[0] ? why.msg : "(no reason given)");
		return FE_EXEC_STOP;
	}
	return FE_EXEC_OK;
}

static void call_hook(cs_fe *fe, const fe_chan *c, const cs_pb_item *it)
{
	cs_method_call call = {
		.channel = c->id,
		.subch = it->subch,
		.cls = it->method < CS_PB_HOST_METHODS ? fe->host_cls : c->bound[it->subch],
		.method = it->method,
		.data = it->data,
		.gp_entry = c->slot,
		.method_index = c->method_index,
		.data_addr = fe_item_va(c, it),
	};
	fe->hook(fe->hook_ctx, &call);
}

void cs_fe_set_method_hook(cs_fe *fe, cs_method_hook_fn fn, void *ctx)
{
	fe->hook = fn;
	fe->hook_ctx = ctx;
}

/* Execute the entry in progress until it is done, the channel blocks or
 * stops, or max_methods methods ran (then it returns before anything else).
 * Returns the methods executed. */
static uint64_t run_entry(cs_fe *fe, fe_chan *c, uint64_t max_methods)
{
	uint64_t ran = 0;
	for (;;) {
		while (c->item_pos < c->item_count) {
			const cs_pb_item *it = &c->items[c->item_pos];
			if (it->kind != CS_PB_ITEM_METHOD) {
				c->item_pos++;
				if (it->kind == CS_PB_ITEM_END_SEG)
					c->seg_done = true;
				continue;
			}
			if (ran == max_methods)
				return ran;
			ran++;
			c->ctr.methods++;
			*fe->now += CS_FE_NS_PER_METHOD;
			if (fe->trace_all) {
				cs_event ev = fe_item_event(fe, c, CS_EV_METHOD, CS_STAGE_FE_EXEC, it);
				fe_emit(fe, &ev);
			}
			if (fe->hook)
				call_hook(fe, c, it);
			fe_exec r = it->method < CS_PB_HOST_METHODS ? fe_host_method(fe, c, it)
								  : engine_method(fe, c, it);
			if (r == FE_EXEC_STOP)
				return ran;
			c->item_pos++;
			c->method_index++;
			if (r == FE_EXEC_BLOCK || ran == max_methods)
				return ran;
		}
		if (c->decode_failed) {
			const cs_diag *d = &c->decode_diag;
			uint64_t off = d->offset - 4u * c->first_dword;
			cs_event ev = fe_event(c, CS_EV_CHANNEL_STOP, CS_STAGE_FE_EXEC);
			cs_diag_at_offset(&c->stop, d->status, "pushbuffer", off,
					  "channel %" PRIu32 ", GPFIFO entry %" PRIu32
					  ", dword %" PRIu64 " at 0x%" PRIx64 ": %s",
					  c->id, c->slot, off / 4, c->pb_va + off, d->msg);
			c->stopped = true;
			ev.method_index = c->method_index;
			ev.addr = c->pb_va + off;
			ev.detail = c->stop.msg;
			fe_emit(fe, &ev);
			return ran;
		}
		if (c->seg_done || c->pos >= c->entry.length) {
			entry_done(fe, c);
			return ran;
		}
		if (!decode_more(fe, c))
			return ran;
	}
}

/* A record about the acquire channel c is blocked on, located at its method. */
static cs_event block_event(const cs_fe *fe, const fe_chan *c, cs_event_kind kind)
{
	const cs_fe_block_info *b = &c->block;
	cs_event ev = fe_event(c, kind, CS_STAGE_FE_EXEC);
	ev.gp_entry = b->gp_entry;
	ev.method_index = b->method_index;
	ev.subch = c->block_item.subch;
	ev.cls = fe->host_cls;
	ev.method = c->block_item.method;
	ev.addr = b->addr;
	ev.value = b->wanted;
	return ev;
}

static bool recheck(cs_fe *fe, fe_chan *c)
{
	uint64_t cur = 0, fva;
	cs_fe_block_info *b = &c->block;
	if (!fe_read(fe, b->addr, &cur, b->is64 ? 8 : 4, &fva)) {
		fe_fault(fe, c, CS_STAGE_FE_EXEC, &c->block_item, fva, CS_ACCESS_READ, "semaphore acquire");
		fe_stop(fe, c, CS_STAGE_FE_EXEC, CS_ERR_FAULT, NULL,
			"re-reading the acquire's semaphore at 0x%" PRIx64 " faulted", b->addr);
		return false;
	}
	b->current = cur;
	if (!fe_acquire_met(b->op, cur, b->wanted, b->is64))
		return false;
	c->blocked = false;
	c->ctr.acquires++;
	if (fe->tracing) {
		cs_event ev = block_event(fe, c, CS_EV_SEM_ACQUIRE);
		ev.aux = b->op;
		ev.detail = "acquire satisfied after blocking";
		fe_emit(fe, &ev);
	}
	return true;
}

/* ---- scheduling and queries --------------------------------------------- */

static cs_fe_chan_state chan_state(const fe_chan *c)
{
	if (c->stopped)
		return CS_FE_CHAN_STOPPED;
	if (c->blocked)
		return CS_FE_CHAN_BLOCKED;
	if (c->in_entry || c->gp_get != c->gp_put)
		return CS_FE_CHAN_READY;
	return CS_FE_CHAN_IDLE;
}

cs_fe_run_result cs_fe_run(cs_fe *fe, uint64_t budget)
{
	cs_fe_run_result r;
	memset(&r, 0, sizeof(r));
	bool budget_hit = false;
	for (;;) {
		bool progress = false;
		for (uint32_t i = 0; i < fe->nchan; i++) {
			fe_chan *c = fe->chan[i];
			if (c->stopped)
				continue;
			if (c->blocked) {
				if (!recheck(fe, c))
					continue;
				progress = true;
			}
			if (!c->in_entry) {
				if (c->gp_get == c->gp_put)
					continue;
				if (budget && r.entries >= budget) {
					budget_hit = true;
					continue;
				}
				r.entries++;
				progress = true;
				if (!fetch_entry(fe, c))
					continue;
			}
			progress = true;
			run_entry(fe, c, UINT64_MAX);
		}
		if (!progress)
			break;
	}
	for (uint32_t i = 0; i < fe->nchan; i++) {
		switch (chan_state(fe->chan[i])) {
		case CS_FE_CHAN_IDLE: r.idle++; break;
		case CS_FE_CHAN_READY: r.ready++; break;
		case CS_FE_CHAN_BLOCKED: r.blocked++; break;
		case CS_FE_CHAN_STOPPED: r.stopped++; break;
		}
	}
	r.end = budget_hit && r.ready ? CS_FE_RUN_BUDGET : CS_FE_RUN_QUIESCENT;
	return r;
}

bool cs_fe_busy(const cs_fe *fe)
{
	for (uint32_t i = 0; i < fe->nchan; i++) {
		const fe_chan *c = fe->chan[i];
		switch (chan_state(c)) {
		case CS_FE_CHAN_READY:
			return true;
		case CS_FE_CHAN_BLOCKED: {
			const cs_fe_block_info *b = &c->block;
			uint64_t cur = 0, fva;
			/* an unreadable semaphore is progress too: the recheck stops the channel */
			if (b->addr + (b->is64 ? 8 : 4) < b->addr ||
			    !fe->bus->mem.read(fe->bus->mem.ctx, b->addr, &cur, b->is64 ? 8 : 4, &fva) ||
			    fe_acquire_met(b->op, cur, b->wanted, b->is64))
				return true;
			break;
		}
		default:
			break;
		}
	}
	return false;
}

cs_fe_step_result cs_fe_step(cs_fe *fe, uint32_t ch)
{
	fe_chan *c = chan_get(fe, ch);
	if (!c || c->stopped)
		return CS_FE_STEP_STOPPED;
	if (c->blocked) {
		if (!recheck(fe, c))
			return c->stopped ? CS_FE_STEP_STOPPED : CS_FE_STEP_BLOCKED;
		return CS_FE_STEP_UNBLOCKED;
	}
	if (!c->in_entry) {
		if (c->gp_get == c->gp_put)
			return CS_FE_STEP_IDLE;
		fetch_entry(fe, c);
		return c->stopped ? CS_FE_STEP_STOPPED : CS_FE_STEP_FETCHED;
	}
	uint64_t ran = run_entry(fe, c, 1);
	if (c->stopped)
		return CS_FE_STEP_STOPPED;
	if (c->blocked)
		return CS_FE_STEP_BLOCKED;
	if (ran)
		return CS_FE_STEP_METHOD;
	return CS_FE_STEP_ENTRY_DONE;
}

const char *cs_fe_chan_state_name(cs_fe_chan_state st)
{
	switch (st) {
	case CS_FE_CHAN_IDLE: return "idle";
	case CS_FE_CHAN_READY: return "ready";
	case CS_FE_CHAN_BLOCKED: return "blocked";
	case CS_FE_CHAN_STOPPED: return "stopped";
	}
	return "?";
}

bool cs_fe_channel_info_get(const cs_fe *fe, uint32_t ch, cs_fe_channel_info *out)
{
	const fe_chan *c = chan_get(fe, ch);
	if (!c)
		return false;
	memset(out, 0, sizeof(*out));
	out->state = chan_state(c);
	out->ring_va = c->ring_va;
	out->userd_va = c->userd_va;
	out->ring_entries = c->ring_entries;
	out->gp_get = c->gp_get;
	out->gp_put = c->gp_put;
	memcpy(out->bound, c->bound, sizeof(out->bound));
	out->pb_extended_base = c->ext_base << 40;
	out->reference = c->reference;
	if (c->blocked)
		out->block = c->block;
	if (c->stopped)
		out->stop = c->stop;
	out->counters = c->ctr;
	return true;
}

cs_fe_chan_state cs_fe_channel_state(const cs_fe *fe, uint32_t ch)
{
	const fe_chan *c = chan_get(fe, ch);
	return c ? chan_state(c) : CS_FE_CHAN_STOPPED;
}

const cs_diag *cs_fe_channel_stop_diag(const cs_fe *fe, uint32_t ch)
{
	const fe_chan *c = chan_get(fe, ch);
	return c && c->stopped ? &c->stop : NULL;
}

cs_fe_counters cs_fe_counters_total(const cs_fe *fe)
{
	cs_fe_counters t;
	memset(&t, 0, sizeof(t));
	for (uint32_t i = 0; i < fe->nchan; i++) {
		const cs_fe_counters *k = &fe->chan[i]->ctr;
		t.entries += k->entries;
		t.control_entries += k->control_entries;
		t.methods += k->methods;
		t.host_methods += k->host_methods;
		t.engine_methods += k->engine_methods;
		t.dwords += k->dwords;
		t.releases += k->releases;
		t.acquires += k->acquires;
		t.blocks += k->blocks;
	}
	return t;
}

size_t cs_fe_report_deadlocks(cs_fe *fe)
{
	size_t n = 0;
	for (uint32_t i = 0; i < fe->nchan; i++) {
		fe_chan *c = fe->chan[i];
		if (!c->blocked)
			continue;
		cs_fe_block_info *b = &c->block;
		uint64_t cur = 0, fva;
		if (fe_read(fe, b->addr, &cur, b->is64 ? 8 : 4, &fva))
			b->current = cur;
		cs_event ev = block_event(fe, c, CS_EV_DEADLOCK);
		ev.aux = b->current;
		snprintf(fe->detail, sizeof(fe->detail),
			 "channel %" PRIu32 " blocked at GPFIFO entry %" PRIu32 ", method %" PRIu32
			 ": %s operation=%s waits for [0x%" PRIx64 "] %s 0x%" PRIx64 ", value is 0x%" PRIx64,
			 c->id, b->gp_entry, b->method_index, c->block_legacy ? "SEMAPHORED" : "SEM_EXECUTE",
			 fe_acquire_name(b->op, c->block_legacy), b->addr, fe_acquire_relation(b->op),
			 b->wanted, b->current);
		ev.detail = fe->detail;
		fe_emit(fe, &ev);
		n++;
	}
	return n;
}

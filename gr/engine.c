/* SPDX-License-Identifier: MIT */
/* The engine object behind a cs_engine_port: per-channel, per-subchannel state
 * for every compute and copy class, the shared record helpers, and semaphore
 * writes. The compute methods are in gr/compute.c, launches in gr/launch.c,
 * the copy engine in gr/copy.c. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gr_internal.h"

/* ---- records ------------------------------------------------------------------ */

void gr_emit(cs_gr *gr, cs_event *ev, const char *fmt, ...)
{
	if (fmt) {
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(gr->detail, sizeof(gr->detail), fmt, ap);
		va_end(ap);
		ev->detail = gr->detail;
	}
	cs_trace_emit(&gr->bus->trace, ev);
	ev->detail = NULL;
}

static void vdetail(cs_gr *gr, const char *fmt, va_list ap)
{
	vsnprintf(gr->detail, sizeof(gr->detail), fmt, ap);
}

static cs_engine_result vstop(cs_gr *gr, const cs_method_call *c, cs_stage stage, cs_unit unit,
			      uint32_t launch, cs_cause cause, cs_status st, cs_diag *why,
			      const char *fmt, va_list ap)
{
	vdetail(gr, fmt, ap);
	cs_event ev = gr_event(CS_EV_CHANNEL_STOP, stage, unit, c, launch);
	ev.cause = (uint16_t)cause;
	ev.detail = gr->detail;
	cs_trace_emit(&gr->bus->trace, &ev);
	cs_diag_set(why, st, "%s", gr->detail);
	return CS_ENGINE_STOP;
}

cs_engine_result gr_stop(cs_gr *gr, const cs_method_call *c, cs_stage stage, cs_unit unit,
			 uint32_t launch, cs_status st, cs_diag *why, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	cs_engine_result r = vstop(gr, c, stage, unit, launch, CS_CAUSE_NONE, st, why, fmt, ap);
	va_end(ap);
	return r;
}

cs_engine_result gr_stop_for(cs_gr *gr, const cs_method_call *c, cs_stage stage, cs_unit unit,
			     uint32_t launch, cs_cause cause, cs_status st, cs_diag *why,
			     const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	cs_engine_result r = vstop(gr, c, stage, unit, launch, cause, st, why, fmt, ap);
	va_end(ap);
	return r;
}

cs_engine_result gr_fault(cs_gr *gr, const cs_method_call *c, cs_stage stage, cs_unit unit,
			  uint32_t launch, uint64_t va, cs_access acc, cs_diag *why,
			  const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vdetail(gr, fmt, ap);
	va_end(ap);
	cs_event ev = gr_event(CS_EV_FAULT, stage, unit, c, launch);
	ev.addr = va;
	ev.value = (uint64_t)acc;
	ev.detail = gr->detail;
	cs_trace_emit(&gr->bus->trace, &ev);
	cs_diag_set(why, CS_ERR_FAULT, "%s", gr->detail);
	return CS_ENGINE_STOP;
}

uint64_t gr_now(const cs_gr *gr) { return gr->bus->now_ns ? *gr->bus->now_ns : 0; }

void gr_advance(cs_gr *gr, uint64_t ns)
{
	if (gr->bus->now_ns)
		*gr->bus->now_ns = UINT64_MAX - *gr->bus->now_ns < ns ? UINT64_MAX
								      : *gr->bus->now_ns + ns;
}

uint64_t gr_first_unmapped(const cs_gr *gr, uint64_t va, uint64_t len)
{
	const cs_mem_port *m = &gr->bus->mem;
	if (len == 0)
		return va;
	/* Probe page by page; the port answers whole ranges only. */
	uint64_t p = va;
	uint64_t end = UINT64_MAX - va < len - 1 ? UINT64_MAX : va + len - 1;
	for (;;) {
		uint64_t page_end = (p | (CS_PAGE_SIZE - 1));
		uint64_t chunk_end = page_end < end ? page_end : end;
		if (!m->mapped(m->ctx, p, chunk_end - p + 1))
			return p;
		if (chunk_end == end)
			return va; /* all mapped: callers only ask after a failure */
		p = chunk_end + 1;
	}
}

cs_engine_result gr_release(cs_gr *gr, const cs_method_call *c, cs_unit unit, uint32_t launch,
			    uint64_t addr, uint64_t payload, unsigned bytes, const char *what,
			    cs_diag *why)
{
	uint8_t buf[16] = { 0 };
	uint64_t ts = gr_now(gr);
	uint64_t p = bytes == 4 ? (payload & 0xffffffffu) : payload;
	for (unsigned i = 0; i < 8; i++)
		buf[i] = (uint8_t)(p >> (8 * i));
	if (bytes == 16)
		for (unsigned i = 0; i < 8; i++)
			buf[8 + i] = (uint8_t)(ts >> (8 * i));
	uint64_t fva = addr;
	const cs_mem_port *m = &gr->bus->mem;
	if (!m->write(m->ctx, addr, buf, bytes, &fva))
		return gr_fault(gr, c, CS_STAGE_ENGINE_RELEASE, unit, launch, fva,
				CS_ACCESS_WRITE, why,
				"%s: the %u-byte semaphore write to 0x%" PRIx64
				" faulted: 0x%" PRIx64 " is not mapped",
				what, bytes, addr, fva);
	cs_event ev = gr_event(CS_EV_SEM_RELEASE, CS_STAGE_ENGINE_RELEASE, unit, c, launch);
	ev.addr = addr;
	ev.value = p;
	ev.aux = bytes;
	if (bytes == 16)
		gr_emit(gr, &ev, "%s: payload 0x%" PRIx64 ", timestamp %" PRIu64 " ns", what, p, ts);
	else
		gr_emit(gr, &ev, "%s: payload 0x%" PRIx64, what, p);
	gr->counters.releases++;
	return CS_ENGINE_OK;
}

/* ---- channels -------------------------------------------------------------------- */

static gr_channel *channel_of(cs_gr *gr, uint32_t id)
{
	for (size_t i = 0; i < gr->nch; i++)
		if (gr->ch[i]->id == id)
			return gr->ch[i];
	if (gr->nch == gr->cap) {
		size_t cap = gr->cap ? gr->cap * 2 : 4;
		gr_channel **n = realloc(gr->ch, cap * sizeof(*n));
		if (!n)
			return NULL;
		gr->ch = n;
		gr->cap = cap;
	}
	gr_channel *c = calloc(1, sizeof(*c));
	if (!c)
		return NULL;
	c->id = id;
	gr->ch[gr->nch++] = c;
	return c;
}

static bool served(const cs_gr *gr, uint32_t cls)
{
	return cs_gr_class(cls) != NULL && cs_class_valid_for(cls, gr->arch);
}

static cs_engine_result gr_bind(void *ctx, uint32_t channel, uint32_t subch, uint32_t cls,
				cs_diag *why)
{
	cs_gr *gr = ctx;
	if (subch >= GR_SUBCH) {
		cs_diag_set(why, CS_ERR_INPUT, "subchannel %u out of range (0..7)", subch);
		return CS_ENGINE_STOP;
	}
	if (!served(gr, cls)) {
		char list[160];
		cs_class_list_for(gr->arch, CS_CLASS_COMPUTE, list, sizeof(list));
		size_t n = strlen(list);
		if (n + 2 < sizeof(list)) {
			list[n++] = ',';
			list[n++] = ' ';
			list[n] = '\0';
			cs_class_list_for(gr->arch, CS_CLASS_COPY, list + n,
					  (unsigned)(sizeof(list) - n));
		}
		cs_diag_set(why, CS_ERR_UNSUPPORTED,
			    "class %04X is not a compute or copy class of %s (engine serves %s)", cls,
			    cs_arch_get(gr->arch)->name, list);
		return CS_ENGINE_STOP;
	}
	gr_channel *ch = channel_of(gr, channel);
	if (!ch) {
		cs_diag_set(why, CS_ERR_NOMEM, "out of memory binding class %04X", cls);
		return CS_ENGINE_STOP;
	}
	/* A new SET_OBJECT starts the object from its initial state. */
	memset(&ch->sub[subch], 0, sizeof(ch->sub[subch]));
	ch->sub[subch].cls = cls;
	return CS_ENGINE_OK;
}

static cs_engine_result gr_method(void *ctx, const cs_method_call *c, cs_diag *why)
{
	cs_gr *gr = ctx;
	if (c->subch >= GR_SUBCH)
		return gr_stop(gr, c, CS_STAGE_FE_EXEC, CS_UNIT_COMPUTE, CS_NONE32, CS_ERR_INPUT,
			       why, "subchannel %u out of range (0..7)", c->subch);
	cs_class_kind kind = cs_class_kind_of(c->cls);
	cs_unit unit = kind == CS_CLASS_COPY ? CS_UNIT_COPY : CS_UNIT_COMPUTE;
	if (!served(gr, c->cls))
		return gr_stop(gr, c, CS_STAGE_FE_EXEC, unit, CS_NONE32, CS_ERR_UNSUPPORTED, why,
			       "method 0x%04x on subchannel %u: class %04X is not a compute or "
			       "copy class of %s",
			       c->method, c->subch, c->cls, cs_arch_get(gr->arch)->name);
	gr_channel *ch = channel_of(gr, c->channel);
	if (!ch)
		return gr_stop(gr, c, CS_STAGE_FE_EXEC, unit, CS_NONE32, CS_ERR_NOMEM, why,
			       "out of memory for channel %u", c->channel);
	gr_subch *s = &ch->sub[c->subch];
	if (s->cls != c->cls) {
		/* The front end is the authority on what is bound; adopt it. */
		memset(s, 0, sizeof(*s));
		s->cls = c->cls;
	}
	if (kind == CS_CLASS_COPY)
		return gr_copy_method(gr, s, c, why);
	return gr_compute_method(gr, s, c, why);
}

cs_gr *cs_gr_new(cs_arch arch, const cs_bus *bus, const cs_exec_port *exec)
{
	if ((unsigned)arch >= CS_ARCH_COUNT || !bus)
		return NULL;
	cs_gr *gr = calloc(1, sizeof(*gr));
	if (!gr)
		return NULL;
	gr->arch = arch;
	gr->bus = bus;
	if (exec && exec->run_grid) {
		gr->exec = *exec;
		gr->has_exec = true;
	}
	return gr;
}

void cs_gr_free(cs_gr *gr)
{
	if (!gr)
		return;
	for (size_t i = 0; i < gr->nch; i++)
		free(gr->ch[i]);
	free(gr->ch);
	free(gr);
}

static void gr_finish_all(void *ctx)
{
	cs_gr *gr = ctx;
	for (size_t i = 0; i < gr->nch; i++)
		gr_finish(gr, gr->ch[i]);
}

cs_engine_port cs_gr_engine_port(cs_gr *gr)
{
	cs_engine_port p = { gr, gr_bind, gr_method, gr_finish_all };
	return p;
}

void cs_gr_counters_get(const cs_gr *gr, cs_gr_counters *out) { *out = gr->counters; }

/* SPDX-License-Identifier: MIT */
#include "rig.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void *grow(void *p, size_t *cap, size_t need, size_t elem)
{
	if (need <= *cap)
		return p;
	size_t nc = *cap ? *cap * 2 : 64;
	while (nc < need)
		nc *= 2;
	void *q = realloc(p, nc * elem);
	if (!q) {
		fprintf(stderr, "rig: out of memory\n");
		abort();
	}
	*cap = nc;
	return q;
}

/* ---- recording engine ---------------------------------------------------- */

static void rec_add(rec_engine *e, const rec_call *c)
{
	e->calls = grow(e->calls, &e->cap, e->n + 1, sizeof(*e->calls));
	e->calls[e->n++] = *c;
}

static cs_engine_result rec_bind(void *ctx, uint32_t channel, uint32_t subch, uint32_t cls,
				 cs_diag *why)
{
	rec_engine *e = ctx;
	rec_call c = { .kind = REC_BIND, .channel = channel, .subch = subch, .cls = cls };
	rec_add(e, &c);
	if (e->refuse_class && cls == e->refuse_class) {
		cs_diag_set(why, CS_ERR_UNSUPPORTED, "recorder refuses class %04X", cls);
		return CS_ENGINE_STOP;
	}
	return CS_ENGINE_OK;
}

static cs_engine_result rec_method(void *ctx, const cs_method_call *call, cs_diag *why)
{
	rec_engine *e = ctx;
	rec_call c = {
		.kind = REC_METHOD,
		.channel = call->channel,
		.subch = call->subch,
		.cls = call->cls,
		.method = call->method,
		.data = call->data,
		.gp_entry = call->gp_entry,
		.method_index = call->method_index,
		.data_addr = call->data_addr,
	};
	rec_add(e, &c);
	if (e->stop_method && call->method == e->stop_method) {
		cs_diag_set(why, CS_ERR_FAULT, "recorder stops at method 0x%x", call->method);
		return CS_ENGINE_STOP;
	}
	return CS_ENGINE_OK;
}

cs_engine_port rec_engine_port(rec_engine *e)
{
	cs_engine_port p = { .ctx = e, .bind = rec_bind, .method = rec_method };
	return p;
}

void rec_engine_clear(rec_engine *e)
{
	e->n = 0;
}

size_t rec_count(const rec_engine *e, rec_kind kind)
{
	size_t n = 0;
	for (size_t i = 0; i < e->n; i++)
		n += e->calls[i].kind == kind;
	return n;
}

const rec_call *rec_nth(const rec_engine *e, rec_kind kind, size_t nth)
{
	for (size_t i = 0; i < e->n; i++)
		if (e->calls[i].kind == kind && nth-- == 0)
			return &e->calls[i];
	return NULL;
}

/* ---- the rig --------------------------------------------------------------- */

rig *rig_new(cs_arch arch, cs_trace_level level)
{
	rig *r = calloc(1, sizeof(*r));
	if (!r)
		abort();
	r->arch = arch;
	test_bus_init(&r->tb, cs_arch_get(arch)->va_bits, level);
	cs_engine_port port = rec_engine_port(&r->eng);
	r->fe = cs_fe_new(arch, &r->tb.bus, &port);
	if (!r->fe)
		abort();
	return r;
}

void rig_free(rig *r)
{
	if (!r)
		return;
	cs_fe_free(r->fe);
	test_bus_fini(&r->tb);
	free(r->eng.calls);
	free(r);
}

uint64_t rig_alloc(rig *r, uint64_t size)
{
	uint64_t va;
	cs_diag d;
	char name[32];
	snprintf(name, sizeof(name), "r%u", r->npb++);
	if (!cs_mem_alloc(r->tb.mem, name, size, CS_PAGE_SIZE, &va, &d)) {
		fprintf(stderr, "rig_alloc: %s\n", d.msg);
		abort();
	}
	return va;
}

uint32_t rig_channel(rig *r, uint32_t entries)
{
	uint32_t ch = r->nch;
	if (ch >= RIG_MAX_CH)
		abort();
	r->ring[ch] = rig_alloc(r, 8ull * entries);
	r->userd[ch] = rig_alloc(r, CS_USERD_SIZE);
	r->entries[ch] = entries;
	cs_diag d;
	uint32_t id;
	if (!cs_fe_channel_new(r->fe, r->ring[ch], entries, r->userd[ch], &id, &d)) {
		fprintf(stderr, "rig_channel: %s\n", d.msg);
		abort();
	}
	if (id != ch)
		abort();
	r->nch++;
	return ch;
}

uint64_t rig_pb(rig *r, const uint32_t *dw, size_t n)
{
	uint64_t va = rig_alloc(r, n ? 4ull * n : 4);
	uint64_t fva;
	if (n && !cs_mem_write(r->tb.mem, va, dw, 4 * n, &fva))
		abort();
	return va;
}

void rig_push_raw(rig *r, uint32_t ch, uint32_t lo, uint32_t hi)
{
	uint32_t w[2] = { lo, hi };
	uint64_t fva;
	/* the ring may be deliberately unmapped in a test: ignore the failure */
	(void)cs_mem_write(r->tb.mem, r->ring[ch] + 8ull * r->put[ch], w, 8, &fva);
	r->put[ch] = (r->put[ch] + 1) % r->entries[ch];
}

void rig_push(rig *r, uint32_t ch, uint64_t va, uint32_t ndw)
{
	cs_gp_entry e = { .addr = va, .length = ndw };
	uint32_t lo, hi;
	cs_gp_encode(&e, &lo, &hi);
	rig_push_raw(r, ch, lo, hi);
}

bool rig_submit(rig *r, uint32_t ch)
{
	test_bus_write32(&r->tb, r->userd[ch] + CS_USERD_GP_PUT, r->put[ch]);
	return cs_fe_doorbell(r->fe, ch);
}

cs_fe_run_result rig_run(rig *r)
{
	return cs_fe_run(r->fe, 0);
}

size_t rig_count(const rig *r, cs_event_kind kind)
{
	return test_trace_count(&r->tb.trace, kind);
}

const rec_event *rig_nth(const rig *r, cs_event_kind kind, size_t nth)
{
	return test_trace_nth(&r->tb.trace, kind, nth);
}





/* ---- pushbuffer building ------------------------------------------------- */

void pb_put(pbuf *p, uint32_t v)
{
	p->dw = grow(p->dw, &p->cap, p->n + 1, sizeof(*p->dw));
	p->dw[p->n++] = v;
}

void pb_inc(pbuf *p, uint32_t subch, uint32_t method, size_t n, const uint32_t *data)
{
	pb_put(p, cs_pb_inc(subch, method, (uint32_t)n));
	for (size_t i = 0; i < n; i++)
		pb_put(p, data[i]);
}

void pb_m(pbuf *p, uint32_t subch, uint32_t method, uint32_t data)
{
	pb_inc(p, subch, method, 1, &data);
}

void pb_release(pbuf *p, uint64_t addr, uint64_t payload, uint32_t execute)
{
	uint32_t d[5] = { (uint32_t)addr, (uint32_t)(addr >> 32), (uint32_t)payload,
			  (uint32_t)(payload >> 32), execute };
	pb_inc(p, 0, CS_FE_M_SEM_ADDR_LO, 5, d);
}

void pb_free(pbuf *p)
{
	free(p->dw);
	p->dw = NULL;
	p->n = p->cap = 0;
}

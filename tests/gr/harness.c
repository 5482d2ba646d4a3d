/* SPDX-License-Identifier: MIT */
#include "harness.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* fake_exec_counts_ctas: no code runs; it counts
 * the grid's CTAs and answers with the outcome the test chose. */
static void fake_exec_counts_ctas(void *ctx, const cs_bus *bus, const cs_grid_launch *g,
			  cs_grid_result *out)
{
	fake_exec *fx = ctx;
	fx->calls++;
	fx->last = *g;
	memset(out, 0, sizeof(*out));
	out->outcome = fx->outcome;
	if (fx->outcome == CS_GRID_EXECUTED) {
		uint64_t ctas = (uint64_t)g->grid[0] * g->grid[1] * g->grid[2];
		uint64_t threads = (uint64_t)g->block[0] * g->block[1] * g->block[2];
		out->ctas_executed = ctas;
		out->thread_instructions = ctas * threads * 7;
		snprintf(out->kernel, sizeof(out->kernel), "fake_kernel");
		if (fx->write_va) {
			uint64_t f;
			bus->mem.write(bus->mem.ctx, fx->write_va, &fx->write_value, 4, &f);
		}
		return;
	}
	out->fault_va = fx->fault_va;
	cs_diag_set(&out->diag, CS_ERR_FAULT, "%s", fx->reason ? fx->reason : "fake reason");
}

h_env *h_new(cs_arch arch, bool with_exec)
{
	h_env *h = calloc(1, sizeof(*h));
	h->arch = arch;
	test_bus_init(&h->tb, cs_arch_get(arch)->va_bits, CS_TRACE_CHAIN);
	cs_diag d;
	static const struct { const char *n; uint64_t va, size; } regions[] = {
		{ "qmd", H_QMD_VA, 0x10000 },     { "code", H_CODE_VA, 0x10000 },
		{ "cbank", H_CBANK_VA, 0x10000 }, { "sem", H_SEM_VA, 0x10000 },
		{ "buf", H_BUF_VA, 0x100000 },
	};
	for (size_t i = 0; i < sizeof(regions) / sizeof(regions[0]); i++)
		if (!cs_mem_map(h->tb.mem, regions[i].n, regions[i].va, regions[i].size, &d))
			abort();
	h->fx.outcome = CS_GRID_EXECUTED;
	h->exec.ctx = &h->fx;
	h->exec.run_grid = fake_exec_counts_ctas;
	h->gr = cs_gr_new(arch, &h->tb.bus, with_exec ? &h->exec : NULL);
	h->port = cs_gr_engine_port(h->gr);
	const cs_arch_info *ai = cs_arch_get(arch);
	h_bind(h, 1, ai->compute_class);
	h_bind(h, 4, ai->copy_class);
	return h;
}

void h_free(h_env *h)
{
	cs_gr_free(h->gr);
	test_bus_fini(&h->tb);
	free(h);
}

cs_engine_result h_bind(h_env *h, uint32_t subch, uint32_t cls)
{
	cs_diag_clear(&h->why);
	cs_engine_result r = h->port.bind(h->port.ctx, h->channel, subch, cls, &h->why);
	if (r == CS_ENGINE_OK)
		h->bound[subch & 7] = cls;
	return r;
}

cs_engine_result h_call(h_env *h, uint32_t subch, uint32_t method, uint32_t data)
{
	cs_method_call c = { 0 };
	c.channel = h->channel;
	c.subch = subch;
	c.cls = h->bound[subch & 7];
	c.method = method;
	c.data = data;
	c.gp_entry = h->gp_entry;
	c.method_index = h->method_index++;
	c.data_addr = 0x300000000ull + 4ull * c.method_index;
	cs_diag_clear(&h->why);
	return h->port.method(h->port.ctx, &c, &h->why);
}

size_t h_count(const h_env *h, cs_event_kind kind)
{
	return test_trace_count(&h->tb.trace, kind);
}

const h_rec *h_find(const h_env *h, cs_event_kind kind, size_t n)
{
	return test_trace_nth(&h->tb.trace, kind, n);
}

void h_dump(const h_env *h)
{
	test_trace_dump(&h->tb.trace, stderr);
}

void h_qmd_build(h_env *h, cs_qmd *q, uint32_t gx, uint64_t payload)
{
	cs_diag d;
	unsigned major = cs_arch_qmd_major(h->arch);
	if (!cs_qmd_init(q, major, &d))
		abort();
	uint64_t grid[1] = { gx }, block[1] = { 32 }, prog[1] = { H_CODE_VA };
	uint64_t cb[2] = { H_CBANK_VA, 0x300 }, rel[2] = { H_SEM_VA, payload };
	if (!cs_qmd_set_key(q, "program", prog, 1, &d) || !cs_qmd_set_key(q, "grid", grid, 1, &d) ||
	    !cs_qmd_set_key(q, "block", block, 1, &d) || !cs_qmd_set_key(q, "cbank0", cb, 2, &d) ||
	    !cs_qmd_set_key(q, "release0", rel, 2, &d)) {
		fprintf(stderr, "h_qmd_build: %s\n", d.msg);
		abort();
	}
}

void h_qmd_write(h_env *h, uint64_t va, const cs_qmd *q)
{
	uint64_t f;
	if (!cs_mem_write(h->tb.mem, va, q->dw, q->layout->bytes, &f))
		abort();
}

cs_engine_result h_pcas(h_env *h, uint64_t qmd_va, uint32_t action)
{
	if (h_call(h, 1, CS_GR_SEND_PCAS_A, (uint32_t)(qmd_va >> 8)) != CS_ENGINE_OK)
		return CS_ENGINE_STOP;
	return h_call(h, 1, CS_GR_SEND_SIGNALING_PCAS2_B, action);
}

cs_engine_result h_inline(h_env *h, uint64_t qmd_va, const cs_qmd *q, unsigned ndw,
			  bool size384)
{
	uint64_t s = qmd_va >> 8;
	uint32_t a = (uint32_t)(s >> 32) | (size384 ? 1u << 30 : 0u);
	if (h_call(h, 1, CS_GR_SET_INLINE_QMD_ADDRESS_A, a) != CS_ENGINE_OK ||
	    h_call(h, 1, CS_GR_SET_INLINE_QMD_ADDRESS_B, (uint32_t)s) != CS_ENGINE_OK)
		return CS_ENGINE_STOP;
	for (unsigned i = 0; i < ndw; i++)
		if (h_call(h, 1, CS_GR_LOAD_INLINE_QMD_DATA + 4 * i, q->dw[i]) != CS_ENGINE_OK)
			return CS_ENGINE_STOP;
	return CS_ENGINE_OK;
}




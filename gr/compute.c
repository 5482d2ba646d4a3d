/* SPDX-License-Identifier: MIT */
/* Compute class methods: inline-to-memory, the two launch paths' front halves
 * (SEND_PCAS / SEND_SIGNALING_PCAS(2)_B, inline QMD loading), report
 * semaphores, cache invalidations and context state. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "gr_internal.h"


static const char *method_label(uint32_t cls, uint32_t method, char *buf, size_t len)
{
	const cs_class_desc *d = cs_gr_class(cls);
	if (!d || !cs_class_method_label(d, method, buf, len))
		snprintf(buf, len, "0x%04x", method);
	return buf;
}

/* ---- inline-to-memory ------------------------------------------------------------ */

static cs_engine_result i2m_finish(cs_gr *gr, gr_compute *st, const cs_method_call *c)
{
	cs_event ev = gr_event(CS_EV_I2M_WRITE, CS_STAGE_FE_EXEC, CS_UNIT_COMPUTE, c, CS_NONE32);
	ev.addr = st->i2m_dst;
	ev.value = st->i2m_total;
	ev.aux = st->i2m_line_length;
	gr_emit(gr, &ev, "inline-to-memory wrote %" PRIu64 " bytes at 0x%" PRIx64, st->i2m_total,
		st->i2m_dst);
	gr->counters.i2m_writes++;
	gr->counters.i2m_bytes += st->i2m_total;
	gr_advance(gr, cs_gr_transfer_ns(st->i2m_total));
	st->i2m_active = false;
	return CS_ENGINE_OK;
}

/* Destination byte of stream offset `off` of a (possibly multi-line) transfer. */
static uint64_t i2m_addr(const gr_compute *st, uint64_t off)
{
	if (st->i2m_line_length == 0)
		return st->i2m_dst;
	uint64_t line = off / st->i2m_line_length, col = off % st->i2m_line_length;
	return st->i2m_dst + line * st->i2m_pitch + col;
}

static cs_engine_result i2m_launch(cs_gr *gr, gr_compute *st, const cs_method_call *c,
				   cs_diag *why)
{
	uint32_t layout = GR_GET(i2m_launch_dma, DST_MEMORY_LAYOUT, c->data);
	uint32_t completion = GR_GET(i2m_launch_dma, COMPLETION_TYPE, c->data);
	uint32_t reduction = GR_GET(i2m_launch_dma, REDUCTION_ENABLE, c->data);
	if (st->i2m_active)
		return gr_stop(gr, c, CS_STAGE_FE_EXEC, CS_UNIT_COMPUTE, CS_NONE32, CS_ERR_INPUT,
			       why,
			       "LAUNCH_DMA (I2M) while the previous transfer still waits for %" PRIu64
			       " of %" PRIu64 " bytes of LOAD_INLINE_DATA",
			       st->i2m_total - st->i2m_done, st->i2m_total);
	if (layout == 0)
		return gr_stop(gr, c, CS_STAGE_FE_EXEC, CS_UNIT_COMPUTE, CS_NONE32,
			       CS_ERR_UNSUPPORTED, why,
			       "LAUNCH_DMA (I2M) DST_MEMORY_LAYOUT=BLOCKLINEAR is not modelled; "
			       "only PITCH destinations are written");
	if (completion == 2 || reduction)
		return gr_stop(gr, c, CS_STAGE_FE_EXEC, CS_UNIT_COMPUTE, CS_NONE32,
			       CS_ERR_UNSUPPORTED, why,
			       "LAUNCH_DMA (I2M) %s is not modelled",
			       reduction ? "REDUCTION_ENABLE" : "COMPLETION_TYPE=RELEASE_SEMAPHORE");
	if (completion == 3)
		return gr_stop(gr, c, CS_STAGE_FE_EXEC, CS_UNIT_COMPUTE, CS_NONE32, CS_ERR_INPUT,
			       why, "LAUNCH_DMA (I2M) COMPLETION_TYPE=3 is reserved");
	uint64_t dst = gr_addr_bits(c->cls, CS_GR_OFFSET_OUT_UPPER, st->offset_out_upper) |
		       gr_addr_bits(c->cls, CS_GR_OFFSET_OUT, st->offset_out);
	uint64_t lines = st->line_count;
	uint64_t total = (uint64_t)st->line_length * lines;
	st->i2m_dst = dst;
	st->i2m_total = total;
	st->i2m_done = 0;
	st->i2m_line_length = st->line_length;
	st->i2m_pitch = lines > 1 ? st->pitch_out : st->line_length;
	if (lines > 1 && st->pitch_out < st->line_length)
		return gr_stop(gr, c, CS_STAGE_FE_EXEC, CS_UNIT_COMPUTE, CS_NONE32, CS_ERR_INPUT,
			       why,
			       "LAUNCH_DMA (I2M): PITCH_OUT %" PRIu32
			       " is less than LINE_LENGTH_IN %" PRIu32 " for %" PRIu64 " lines",
			       st->pitch_out, st->line_length, lines);
	/* The whole destination must be mapped before a byte is written: the fault
	 * belongs to this method, as hardware reports it at the launch. */
	if (total) {
		const cs_mem_port *m = &gr->bus->mem;
		uint64_t span = (lines - 1) * st->i2m_pitch + st->line_length;
		if (UINT64_MAX - dst < span - 1 || !m->mapped(m->ctx, dst, span)) {
			uint64_t bad = UINT64_MAX - dst < span - 1 ? dst : gr_first_unmapped(gr, dst, span);
			return gr_fault(gr, c, CS_STAGE_FE_EXEC, CS_UNIT_COMPUTE, CS_NONE32, bad,
					CS_ACCESS_WRITE, why,
					"the inline-to-memory write of %" PRIu64 " bytes to 0x%" PRIx64
					" faulted: 0x%" PRIx64
					" is not mapped (compute engine, LAUNCH_DMA)",
					total, dst, bad);
		}
	}
	st->i2m_active = true;
	if (total == 0)
		return i2m_finish(gr, st, c);
	return CS_ENGINE_OK;
}

static cs_engine_result i2m_data(cs_gr *gr, gr_compute *st, const cs_method_call *c,
				 cs_diag *why)
{
	if (!st->i2m_active)
		return gr_stop(gr, c, CS_STAGE_FE_EXEC, CS_UNIT_COMPUTE, CS_NONE32, CS_ERR_INPUT,
			       why, "LOAD_INLINE_DATA with no inline-to-memory transfer pending "
				    "(LAUNCH_DMA first)");
	uint8_t b[4] = { (uint8_t)c->data, (uint8_t)(c->data >> 8), (uint8_t)(c->data >> 16),
			 (uint8_t)(c->data >> 24) };
	const cs_mem_port *m = &gr->bus->mem;
	for (unsigned i = 0; i < 4 && st->i2m_done < st->i2m_total; i++) {
		uint64_t va = i2m_addr(st, st->i2m_done), fva = va;
		if (!m->write(m->ctx, va, &b[i], 1, &fva))
			return gr_fault(gr, c, CS_STAGE_FE_EXEC, CS_UNIT_COMPUTE, CS_NONE32, fva,
					CS_ACCESS_WRITE, why,
					"the inline-to-memory write to 0x%" PRIx64
					" faulted: not mapped (compute engine, LOAD_INLINE_DATA)",
					fva);
		st->i2m_done++;
	}
	if (st->i2m_done == st->i2m_total)
		return i2m_finish(gr, st, c);
	return CS_ENGINE_OK;
}

/* ---- report semaphore -------------------------------------------------------------- */

static cs_engine_result report_semaphore(cs_gr *gr, gr_compute *st, const cs_method_call *c,
					 cs_diag *why)
{
	uint32_t op = GR_GET(report_semaphore_d, OPERATION, c->data);
	uint32_t reduction = GR_GET(report_semaphore_d, REDUCTION_ENABLE, c->data);
	bool one_word = GR_GET(report_semaphore_d, STRUCTURE_SIZE, c->data);
	uint64_t addr = gr_addr_bits(c->cls, CS_GR_SET_REPORT_SEMAPHORE_A, st->report_a) |
			gr_addr_bits(c->cls, CS_GR_SET_REPORT_SEMAPHORE_B, st->report_b);
	if (op == 3)
		return gr_stop(gr, c, CS_STAGE_ENGINE_RELEASE, CS_UNIT_COMPUTE, CS_NONE32,
			       CS_ERR_FAULT, why,
			       "SET_REPORT_SEMAPHORE_D OPERATION=TRAP: the compute engine raised "
			       "a trap (modelled as a channel stop; nothing written to 0x%" PRIx64 ")",
			       addr);
	if (op != 0)
		return gr_stop(gr, c, CS_STAGE_FE_EXEC, CS_UNIT_COMPUTE, CS_NONE32, CS_ERR_INPUT,
			       why, "SET_REPORT_SEMAPHORE_D OPERATION=%u is reserved (0 RELEASE, "
				    "3 TRAP)", op);
	if (reduction)
		return gr_stop(gr, c, CS_STAGE_FE_EXEC, CS_UNIT_COMPUTE, CS_NONE32,
			       CS_ERR_UNSUPPORTED, why,
			       "SET_REPORT_SEMAPHORE_D REDUCTION_ENABLE is not modelled");
	return gr_release(gr, c, CS_UNIT_COMPUTE, CS_NONE32, addr, st->report_c,
			  one_word ? 4u : 16u, "report semaphore (SET_REPORT_SEMAPHORE_D)", why);
}

/* ---- launches: SEND_PCAS and the inline QMD -------------------------------------------- */

static cs_engine_result pcas_schedule(cs_gr *gr, gr_subch *s, const cs_method_call *c,
				      uint32_t action, const char *how, cs_diag *why)
{
	s->c.pcas_pending = false;
	if (!s->c.pcas_a_set)
		return gr_stop_for(gr, c, CS_STAGE_QMD_INSTALL, CS_UNIT_COMPUTE, CS_NONE32,
				   CS_CAUSE_QMD_ADDR_UNMAPPED, CS_ERR_INPUT, why,
				   "%s schedules a QMD, but SEND_PCAS_A never named one", how);
	uint64_t qmd_va = GR_ADDR_GET(send_pcas_a, QMD_ADDRESS_SHIFTED8, s->c.pcas_a);
	return gr_launch(gr, s, c, qmd_va, CS_GR_PATH_PCAS, action, how, why);
}

static void cache_record(cs_gr *gr, const cs_method_call *c, const char *what)
{
	cs_event ev = gr_event(CS_EV_CACHE_INVALIDATE, CS_STAGE_NONE, CS_UNIT_COMPUTE, c,
			       CS_NONE32);
	ev.value = c->data;
	gr->counters.cache_invalidates++;
	gr_emit(gr, &ev, "%s", what);
}

static void assumption(cs_gr *gr, const cs_method_call *c, cs_stage stage, const char *text)
{
	cs_event ev = gr_event(CS_EV_ASSUMPTION, stage, CS_UNIT_COMPUTE, c, CS_NONE32);
	gr_emit(gr, &ev, "%s", text);
}

uint32_t cs_gr_pcas2_action(uint32_t data)
{
	return GR_GET(send_signaling_pcas2_b, PCAS_ACTION, data);
}

static cs_engine_result pcas2(cs_gr *gr, gr_subch *s, const cs_method_call *c, cs_diag *why)
{
	uint32_t action = cs_gr_pcas2_action(c->data);
	const char *name = cs_pcas2_action_name(action);
	if (!cs_pcas2_action_valid(c->cls, action)) {
		/* a named action is reserved only on some classes: say which */
		char on[16] = "";
		if (name)
			snprintf(on, sizeof(on), " on %04X", c->cls);
		return gr_stop(gr, c, CS_STAGE_QMD_INSTALL, CS_UNIT_COMPUTE, CS_NONE32,
			       CS_ERR_INPUT, why,
			       "SEND_SIGNALING_PCAS2_B PCAS_ACTION=0x%x is reserved%s", action, on);
	}
	char how[96], text[GR_DETAIL_MAX];
	snprintf(how, sizeof(how), "SEND_SIGNALING_PCAS2_B %s", name);
	if (cs_pcas2_action_schedules(action))
		return pcas_schedule(gr, s, c, action, how, why);
	s->c.pcas_have_action = true;
	s->c.pcas_last_action = action;
	uint64_t qmd_va = GR_ADDR_GET(send_pcas_a, QMD_ADDRESS_SHIFTED8, s->c.pcas_a);
	switch (action) {
	case CS_PCAS2_NOP:
		return CS_ENGINE_OK;
	case CS_PCAS2_INVALIDATE:
		snprintf(text, sizeof(text),
			 "SEND_SIGNALING_PCAS2_B INVALIDATE: the cached copy of QMD 0x%" PRIx64
			 " is dropped; nothing is scheduled", qmd_va);
		cache_record(gr, c, text);
		return CS_ENGINE_OK;
	default:
		/* PREFETCH, INCREMENT_PUT, DECREMENT_DEPENDENCE, INCREMENT_DEPENDENCE,
		 * INCREMENT_CWD_REF_COUNTER, ..._FORCE_REQUIRE_SCHEDULING: none starts
		 * a grid by itself in the model. */
		snprintf(text, sizeof(text),
			 "SEND_SIGNALING_PCAS2_B %s on QMD 0x%" PRIx64
			 ": modelled as not scheduling a launch (queue and dependence counters "
			 "are not modelled)", name, qmd_va);
		assumption(gr, c, CS_STAGE_QMD_INSTALL, text);
		return CS_ENGINE_OK;
	}
}

unsigned cs_gr_inline_qmd_dwords(uint32_t cls, uint32_t addr_a)
{
	return cs_class_has(cls, CS_CF_INLINE_QMD_SIZE) &&
			       GR_GET(inline_qmd_a_v2, INLINE_SIZE, addr_a) /* INLINE_384 */
		       ? 96
		       : 64;
}

/* Where SET_INLINE_QMD_ADDRESS_A/B put the inline QMD, from A's upper part
 * (cs_gr_inline_qmd_upper: its width is the class's) and B. */
static uint64_t inline_qmd_va(const gr_subch *s, uint64_t upper)
{
	return (upper << GR_F_inline_qmd_a_v2_QMD_ADDRESS_SHIFTED8_UPPER_SHIFT) |
	       GR_ADDR_GET(inline_qmd_b, QMD_ADDRESS_SHIFTED8_LOWER, s->c.inline_b);
}

uint32_t cs_gr_inline_qmd_upper(uint32_t cls, uint32_t addr_a)
{
	const cs_class_desc *d = cs_gr_class(cls);
	const cs_method_desc *m = d ? cs_class_method_at(d, CS_GR_SET_INLINE_QMD_ADDRESS_A, NULL) : NULL;
	const cs_field_desc *f = cs_method_addr_field(m);
	return f ? cs_field_get(f, addr_a) : addr_a;
}

static cs_engine_result inline_qmd_data(cs_gr *gr, gr_subch *s, const cs_method_call *c,
					cs_diag *why)
{
	unsigned i = (c->method - CS_GR_LOAD_INLINE_QMD_DATA) / 4;
	unsigned n = cs_gr_inline_qmd_dwords(s->cls, s->c.inline_a);
	if (i >= n)
		return gr_stop(gr, c, CS_STAGE_QMD_INSTALL, CS_UNIT_COMPUTE, CS_NONE32,
			       CS_ERR_INPUT, why,
			       "LOAD_INLINE_QMD_DATA(%u) is beyond the %u dwords %s", i, n,
			       cs_class_has(s->cls, CS_CF_INLINE_QMD_SIZE)
						    ? "SET_INLINE_QMD_ADDRESS_A INLINE_SIZE announces"
						    : "of a V03_00 QMD");
	s->c.inline_dw[i] = c->data;
	s->c.inline_have[i] = 1;
	if (i != n - 1)
		return CS_ENGINE_OK;

	/* The last dword: install the QMD in memory, then schedule it. */
	s->c.inline_open = false;
	unsigned have = 0;
	for (unsigned k = 0; k < n; k++)
		have += s->c.inline_have[k];
	if (!s->c.inline_b_set) {
		memset(s->c.inline_have, 0, sizeof(s->c.inline_have));
		return gr_stop_for(gr, c, CS_STAGE_QMD_INSTALL, CS_UNIT_COMPUTE, CS_NONE32,
				   CS_CAUSE_QMD_ADDR_UNMAPPED, CS_ERR_INPUT, why,
				   "LOAD_INLINE_QMD_DATA(%u) completed a QMD, but "
				   "SET_INLINE_QMD_ADDRESS_A/B never said where it goes", i);
	}
	uint64_t upper = cs_gr_inline_qmd_upper(s->cls, s->c.inline_a);
	if (upper >> 24)
		return gr_stop(gr, c, CS_STAGE_QMD_INSTALL, CS_UNIT_COMPUTE, CS_NONE32,
			       CS_ERR_INPUT, why,
			       "SET_INLINE_QMD_ADDRESS_A upper bits 0x%" PRIx64
			       " put the QMD beyond 64 bits of address", upper);
	uint64_t qmd_va = inline_qmd_va(s, upper);
	const cs_mem_port *m = &gr->bus->mem;
	for (unsigned k = 0; k < n; k++) {
		if (!s->c.inline_have[k])
			continue;
		uint8_t b[4];
		for (unsigned j = 0; j < 4; j++)
			b[j] = (uint8_t)(s->c.inline_dw[k] >> (8 * j));
		uint64_t fva = qmd_va + 4u * k;
		if (!m->write(m->ctx, qmd_va + 4u * k, b, 4, &fva)) {
			memset(s->c.inline_have, 0, sizeof(s->c.inline_have));
			return gr_fault(gr, c, CS_STAGE_QMD_INSTALL, CS_UNIT_COMPUTE, CS_NONE32, fva,
					CS_ACCESS_WRITE, why,
					"the inline QMD install of %u bytes to 0x%" PRIx64
					" faulted: 0x%" PRIx64
					" is not mapped (compute engine, LOAD_INLINE_QMD_DATA)",
					n * 4, qmd_va, fva);
		}
	}
	memset(s->c.inline_have, 0, sizeof(s->c.inline_have));
	char text[GR_DETAIL_MAX];
	snprintf(text, sizeof(text),
		 "inline path: the launch is scheduled when the last QMD dword "
		 "(LOAD_INLINE_QMD_DATA(%u)) arrives (assumed: the public headers do not say; "
		 "docs/hardware.md)%s",
		 n - 1, have == n ? "" : "; dwords never loaded keep the bytes memory held");
	assumption(gr, c, CS_STAGE_QMD_INSTALL, text);
	char how[96];
	snprintf(how, sizeof(how), "inline QMD, %u of %u dwords loaded", have, n);
	return gr_launch(gr, s, c, qmd_va, CS_GR_PATH_INLINE, CS_PCAS2_SCHEDULE, how, why);
}

/* ---- the method switch ---------------------------------------------------------------- */

cs_engine_result gr_compute_method(cs_gr *gr, gr_subch *s, const cs_method_call *c,
				   cs_diag *why)
{
	gr_compute *st = &s->c;
	uint32_t m = c->method;
	if (m >= CS_GR_LOAD_INLINE_QMD_DATA &&
	    m < CS_GR_LOAD_INLINE_QMD_DATA + 4u * CS_QMD_MAX_DWORDS)
		return inline_qmd_data(gr, s, c, why);
	switch (m) {
	case CS_GR_WAIT_FOR_IDLE: {
		cs_event ev = gr_event(CS_EV_HOST_OP, CS_STAGE_FE_EXEC, CS_UNIT_COMPUTE, c,
				       CS_NONE32);
		ev.value = c->data;
		gr_emit(gr, &ev, "WAIT_FOR_IDLE: the compute engine is idle (the model runs "
				 "each launch to completion)");
		return CS_ENGINE_OK;
	}
	case CS_GR_LINE_LENGTH_IN: st->line_length = c->data; return CS_ENGINE_OK;
	case CS_GR_LINE_COUNT: st->line_count = c->data; return CS_ENGINE_OK;
	case CS_GR_OFFSET_OUT_UPPER: st->offset_out_upper = c->data; return CS_ENGINE_OK;
	case CS_GR_OFFSET_OUT: st->offset_out = c->data; return CS_ENGINE_OK;
	case CS_GR_PITCH_OUT: st->pitch_out = c->data; return CS_ENGINE_OK;
	case CS_GR_LAUNCH_DMA: return i2m_launch(gr, st, c, why);
	case CS_GR_LOAD_INLINE_DATA: return i2m_data(gr, st, c, why);
	case CS_GR_SET_SHADER_SHARED_MEMORY_WINDOW_A:
	case CS_GR_SET_SHADER_SHARED_MEMORY_WINDOW_B:
		st->shared_window = gr_addr_latch(c->cls, m, st->shared_window, c->data);
		return CS_ENGINE_OK;
	case CS_GR_SET_SHADER_LOCAL_MEMORY_A:
	case CS_GR_SET_SHADER_LOCAL_MEMORY_B:
		st->local_addr = gr_addr_latch(c->cls, m, st->local_addr, c->data);
		st->local_set = true;
		return CS_ENGINE_OK;
	case CS_GR_SET_SHADER_LOCAL_MEMORY_WINDOW_A:
	case CS_GR_SET_SHADER_LOCAL_MEMORY_WINDOW_B:
		st->local_window = gr_addr_latch(c->cls, m, st->local_window, c->data);
		return CS_ENGINE_OK;
	case CS_GR_SEND_PCAS_A:
		st->pcas_a = c->data;
		st->pcas_a_set = true;
		st->pcas_pending = true;
		st->pcas_origin = *c;
		st->pcas_have_action = false;
		return CS_ENGINE_OK;
	case CS_GR_SEND_SIGNALING_PCAS_B: {
		bool inval = GR_GET(send_signaling_pcas_b, INVALIDATE, c->data);
		bool sched = GR_GET(send_signaling_pcas_b, SCHEDULE, c->data);
		if (inval)
			cache_record(gr, c, "SEND_SIGNALING_PCAS_B INVALIDATE: the cached QMD is dropped");
		if (sched)
			return pcas_schedule(gr, s, c, c->data, "SEND_SIGNALING_PCAS_B SCHEDULE", why);
		return CS_ENGINE_OK;
	}
	case CS_GR_SEND_SIGNALING_PCAS2_B: return pcas2(gr, s, c, why);
	case CS_GR_SET_INLINE_QMD_ADDRESS_A:
		st->inline_a = c->data;
		memset(st->inline_have, 0, sizeof(st->inline_have));
		return CS_ENGINE_OK;
	case CS_GR_SET_INLINE_QMD_ADDRESS_B:
		st->inline_b = c->data;
		st->inline_b_set = true;
		st->inline_open = true;
		st->inline_origin = *c;
		memset(st->inline_have, 0, sizeof(st->inline_have));
		return CS_ENGINE_OK;
	case CS_GR_SET_REPORT_SEMAPHORE_A: st->report_a = c->data; return CS_ENGINE_OK;
	case CS_GR_SET_REPORT_SEMAPHORE_B: st->report_b = c->data; return CS_ENGINE_OK;
	case CS_GR_SET_REPORT_SEMAPHORE_C: st->report_c = c->data; return CS_ENGINE_OK;
	case CS_GR_SET_REPORT_SEMAPHORE_D: return report_semaphore(gr, st, c, why);
	case CS_GR_INVALIDATE_SHADER_CACHES_NO_WFI:
	case CS_GR_INVALIDATE_SHADER_CACHES:
	case CS_GR_INVALIDATE_TEXTURE_HEADER_CACHE_NO_WFI:
	case CS_GR_INVALIDATE_SKED_CACHES:
	case CS_GR_INVALIDATE_SAMPLER_CACHE_NO_WFI: {
		char label[64], fields[160], text[GR_DETAIL_MAX];
		const cs_class_desc *d = cs_gr_class(c->cls);
		const cs_method_desc *md = cs_class_method_at(d, m, NULL);
		fields[0] = '\0';
		if (md)
			cs_method_format_fields(md, c->data, fields, sizeof(fields));
		snprintf(text, sizeof(text), "%s%s%s", method_label(c->cls, m, label, sizeof(label)),
			 fields[0] ? " " : "", fields);
		cache_record(gr, c, text);
		return CS_ENGINE_OK;
	}
	default:
		break;
	}
	const cs_class_desc *d = cs_gr_class(c->cls);
	if (d && cs_class_method_at(d, m, NULL))
		return CS_ENGINE_OK; /* named state the model keeps no use for */
	char text[GR_DETAIL_MAX];
	snprintf(text, sizeof(text),
		 "method 0x%04x of %04X is not in chainsim's table; ignored (data 0x%08" PRIx32 ")",
		 m, c->cls, c->data);
	assumption(gr, c, CS_STAGE_NONE, text);
	return CS_ENGINE_OK;
}

/* ---- the end of the guest program ------------------------------------------------------- */

static void finish_inline(cs_gr *gr, gr_subch *s)
{
	const cs_method_call *o = &s->c.inline_origin;
	unsigned need = cs_gr_inline_qmd_dwords(s->cls, s->c.inline_a), got = 0;
	for (unsigned k = 0; k < need; k++)
		if (s->c.inline_have[k])
			got = k + 1;
	cs_event ev = gr_event(CS_EV_INLINE_QMD_SHORT, CS_STAGE_QMD_INSTALL, CS_UNIT_COMPUTE, o,
			       CS_NONE32);
	ev.addr = inline_qmd_va(s, cs_gr_inline_qmd_upper(s->cls, s->c.inline_a));
	ev.value = got;
	ev.aux = need;
	ev.cause = CS_CAUSE_INLINE_QMD_INCOMPLETE;
	gr_emit(gr, &ev, "the guest program ended before the inline QMD's last dword");
	s->c.inline_open = false;
}

/* Stage 6 as the SEND_PCAS path defines it: a QMD already in memory at
 * SEND_PCAS. Nothing scheduled it, so it has no launch id. */
static void finish_pcas(cs_gr *gr, gr_subch *s)
{
	const cs_method_call *o = &s->c.pcas_origin;
	s->c.pcas_pending = false;
	uint64_t qmd_va = GR_ADDR_GET(send_pcas_a, QMD_ADDRESS_SHIFTED8, s->c.pcas_a);
	unsigned bytes = cs_qmd_size(cs_class_qmd_major(s->cls));
	const cs_mem_port *m = &gr->bus->mem;
	if (!m->mapped(m->ctx, qmd_va, bytes))
		return;
	cs_event ev = gr_event(CS_EV_QMD_INSTALL, CS_STAGE_QMD_INSTALL, CS_UNIT_COMPUTE, o,
			       CS_NONE32);
	ev.addr = qmd_va;
	ev.value = bytes;
	ev.aux = CS_GR_PATH_PCAS;
	const char *an = cs_pcas2_action_name(s->c.pcas_last_action);
	if (s->c.pcas_have_action)
		gr_emit(gr, &ev,
			"SEND_PCAS_A named the QMD; the last SEND_SIGNALING_PCAS2_B action was %u "
			"(%s), which does not schedule", s->c.pcas_last_action, an ? an : "reserved");
	else
		gr_emit(gr, &ev, "SEND_PCAS_A named the QMD; no SEND_SIGNALING_PCAS2_B followed");
}

void gr_finish(cs_gr *gr, gr_channel *ch)
{
	for (unsigned i = 0; i < GR_SUBCH; i++) {
		gr_subch *s = &ch->sub[i];
		if (cs_class_kind_of(s->cls) != CS_CLASS_COMPUTE)
			continue;
		if (s->c.inline_open)
			finish_inline(gr, s);
		if (s->c.pcas_pending)
			finish_pcas(gr, s);
	}
}

/* SPDX-License-Identifier: MIT */
/* The copy engine (C6B5, C7B5, C8B5, C9B5): pitch copies of one or more lines
 * through the memory port, and the semaphore release after them. Layouts and
 * modes the model does not implement stop the channel with a diagnosis; they
 * are never copied wrong in silence. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "gr_internal.h"

enum { CE_CHUNK = 4096 };

/* Model limits on one LAUNCH_DMA, so a hostile LINE_COUNT cannot stall a run;
 * a transfer beyond them is refused with a diagnosis, never cut short. */
#define CE_MAX_LINES (1ull << 20)
#define CE_MAX_BYTES (1ull << 32)

static bool has_payload_upper(uint32_t cls) { return cs_class_has(cls, CS_CF_PAYLOAD_UPPER); }

/* Copy one line through a bounce buffer, so overlapping lines copy as memmove. */
static cs_engine_result copy_line(cs_gr *gr, const cs_method_call *c, uint64_t dst,
				  uint64_t src, uint64_t len, cs_diag *why)
{
	const cs_mem_port *m = &gr->bus->mem;
	uint8_t buf[CE_CHUNK];
	bool backward = dst > src && dst - src < len;
	for (uint64_t done = 0; done < len;) {
		uint64_t n = len - done < CE_CHUNK ? len - done : CE_CHUNK;
		uint64_t off = backward ? len - done - n : done;
		uint64_t fva = src + off;
		if (!m->read(m->ctx, src + off, buf, (size_t)n, &fva))
			return gr_fault(gr, c, CS_STAGE_FE_EXEC, CS_UNIT_COPY, CS_NONE32, fva,
					CS_ACCESS_READ, why,
					"copy engine LAUNCH_DMA: the source read at 0x%" PRIx64
					" faulted: 0x%" PRIx64 " is not mapped",
					src, fva);
		fva = dst + off;
		if (!m->write(m->ctx, dst + off, buf, (size_t)n, &fva))
			return gr_fault(gr, c, CS_STAGE_FE_EXEC, CS_UNIT_COPY, CS_NONE32, fva,
					CS_ACCESS_WRITE, why,
					"copy engine LAUNCH_DMA: the destination write at 0x%" PRIx64
					" faulted: 0x%" PRIx64 " is not mapped",
					dst, fva);
		done += n;
	}
	return CS_ENGINE_OK;
}

/* Both ranges of a transfer mapped, before anything moves. */
static cs_engine_result check_range(cs_gr *gr, const cs_method_call *c, uint64_t base,
				    uint64_t lines, uint64_t pitch, uint64_t len, bool is_src,
				    cs_diag *why)
{
	const cs_mem_port *m = &gr->bus->mem;
	for (uint64_t i = 0; i < lines; i++) {
		uint64_t a = base + i * pitch;
		if ((pitch && i > (UINT64_MAX - base) / pitch) || UINT64_MAX - a < len - 1 ||
		    !m->mapped(m->ctx, a, len)) {
			uint64_t bad = gr_first_unmapped(gr, a, len);
			return gr_fault(gr, c, CS_STAGE_FE_EXEC, CS_UNIT_COPY, CS_NONE32, bad,
					is_src ? CS_ACCESS_READ : CS_ACCESS_WRITE, why,
					"copy engine LAUNCH_DMA: %s line %" PRIu64 " at 0x%" PRIx64
					" (%" PRIu64 " bytes) is not mapped at 0x%" PRIx64,
					is_src ? "source" : "destination", i, a, len, bad);
		}
	}
	return CS_ENGINE_OK;
}

static cs_engine_result launch_dma(cs_gr *gr, gr_copy *st, const cs_method_call *c,
				   cs_diag *why)
{
	uint32_t d = c->data;
	uint32_t transfer = GR_GET(ce_launch_dma_v2, DATA_TRANSFER_TYPE, d);
	uint32_t sem_type = GR_GET(ce_launch_dma_v2, SEMAPHORE_TYPE, d);
	bool src_pitch = GR_GET(ce_launch_dma_v2, SRC_MEMORY_LAYOUT, d);
	bool dst_pitch = GR_GET(ce_launch_dma_v2, DST_MEMORY_LAYOUT, d);
	bool multi = GR_GET(ce_launch_dma_v2, MULTI_LINE_ENABLE, d);
	bool remap = GR_GET(ce_launch_dma_v2, REMAP_ENABLE, d);
	bool src_phys = GR_GET(ce_launch_dma_v2, SRC_TYPE, d);
	bool dst_phys = GR_GET(ce_launch_dma_v2, DST_TYPE, d);
	bool sem_reduction = GR_GET(ce_launch_dma_v2, SEMAPHORE_REDUCTION_ENABLE, d);
	bool payload_two = has_payload_upper(c->cls) &&
			   GR_GET(ce_launch_dma_v2, SEMAPHORE_PAYLOAD_SIZE, d) /* TWO_WORD */;

	if (transfer == 3)
		return gr_stop(gr, c, CS_STAGE_FE_EXEC, CS_UNIT_COPY, CS_NONE32, CS_ERR_INPUT, why,
			       "copy engine LAUNCH_DMA DATA_TRANSFER_TYPE=3 is reserved");
	if (transfer != 0) {
		const char *refuse = !src_pitch ? "SRC_MEMORY_LAYOUT=BLOCKLINEAR"
				     : !dst_pitch ? "DST_MEMORY_LAYOUT=BLOCKLINEAR"
				     : remap ? "REMAP_ENABLE=TRUE"
				     : src_phys ? "SRC_TYPE=PHYSICAL"
				     : dst_phys ? "DST_TYPE=PHYSICAL" : NULL;
		if (refuse)
			return gr_stop(gr, c, CS_STAGE_FE_EXEC, CS_UNIT_COPY, CS_NONE32,
				       CS_ERR_UNSUPPORTED, why,
				       "copy engine LAUNCH_DMA %s is not modelled (only pitch-linear "
				       "virtual copies are); nothing was copied",
				       refuse);
	}
	if (sem_type != 0 && sem_reduction)
		return gr_stop(gr, c, CS_STAGE_FE_EXEC, CS_UNIT_COPY, CS_NONE32, CS_ERR_UNSUPPORTED,
			       why, "copy engine LAUNCH_DMA SEMAPHORE_REDUCTION_ENABLE is not "
				    "modelled; nothing was copied");

	uint64_t src = gr_addr_bits(c->cls, CS_CE_OFFSET_IN_UPPER, st->in_upper) |
		       gr_addr_bits(c->cls, CS_CE_OFFSET_IN_LOWER, st->in_lower);
	uint64_t dst = gr_addr_bits(c->cls, CS_CE_OFFSET_OUT_UPPER, st->out_upper) |
		       gr_addr_bits(c->cls, CS_CE_OFFSET_OUT_LOWER, st->out_lower);
	uint64_t len = st->line_length;
	uint64_t lines = multi ? st->line_count : 1;
	uint64_t pin = multi ? st->pitch_in : 0, pout = multi ? st->pitch_out : 0;
	uint64_t total = len * lines;

	if (transfer != 0 && (lines > CE_MAX_LINES || total > CE_MAX_BYTES))
		return gr_stop(gr, c, CS_STAGE_FE_EXEC, CS_UNIT_COPY, CS_NONE32, CS_ERR_UNSUPPORTED,
			       why,
			       "copy engine LAUNCH_DMA of %" PRIu64 " lines x %" PRIu64
			       " bytes exceeds the model's limit (%llu lines, %llu bytes per "
			       "transfer); nothing was copied",
			       lines, len, CE_MAX_LINES, CE_MAX_BYTES);
	if (transfer != 0 && total != 0) {
		if (check_range(gr, c, src, lines, pin, len, true, why) != CS_ENGINE_OK ||
		    check_range(gr, c, dst, lines, pout, len, false, why) != CS_ENGINE_OK)
			return CS_ENGINE_STOP;
		for (uint64_t i = 0; i < lines; i++)
			if (copy_line(gr, c, dst + i * pout, src + i * pin, len, why) != CS_ENGINE_OK)
				return CS_ENGINE_STOP;
		cs_event ev = gr_event(CS_EV_COPY, CS_STAGE_FE_EXEC, CS_UNIT_COPY, c, CS_NONE32);
		ev.addr = dst;
		ev.aux = src;
		ev.value = total;
		if (lines > 1)
			gr_emit(gr, &ev,
				"copied %" PRIu64 " lines of %" PRIu64 " bytes from 0x%" PRIx64
				" (pitch %" PRIu64 ") to 0x%" PRIx64 " (pitch %" PRIu64 ")",
				lines, len, src, pin, dst, pout);
		else
			gr_emit(gr, &ev, "copied %" PRIu64 " bytes from 0x%" PRIx64 " to 0x%" PRIx64,
				total, src, dst);
		gr->counters.copies++;
		gr->counters.bytes_copied += total;
		gr_advance(gr, cs_gr_transfer_ns(total));
	} else if (transfer != 0) {
		cs_event ev = gr_event(CS_EV_COPY, CS_STAGE_FE_EXEC, CS_UNIT_COPY, c, CS_NONE32);
		ev.addr = dst;
		ev.aux = src;
		gr_emit(gr, &ev, "copy of 0 bytes (LINE_LENGTH_IN or LINE_COUNT is 0)");
		gr->counters.copies++;
	}

	if (sem_type == 0)
		return CS_ENGINE_OK;
	uint64_t sem = gr_addr_bits(c->cls, CS_CE_SET_SEMAPHORE_A, st->sem_a) |
		       gr_addr_bits(c->cls, CS_CE_SET_SEMAPHORE_B, st->sem_b);
	uint64_t payload = st->payload;
	if (payload_two)
		payload |= (uint64_t)st->payload_upper << 32;
	unsigned bytes = sem_type == 2 ? 16u : payload_two ? 8u : 4u;
	if (sem_type == 3) {
		cs_event ev = gr_event(CS_EV_ASSUMPTION, CS_STAGE_ENGINE_RELEASE, CS_UNIT_COPY, c,
				       CS_NONE32);
		ev.addr = sem;
		gr_emit(gr, &ev, "copy engine RELEASE_CONDITIONAL_INTR_SEMAPHORE: modelled as a "
				 "one-word release; the conditional interrupt is not modelled");
	}
	return gr_release(gr, c, CS_UNIT_COPY, CS_NONE32, sem, payload, bytes,
			  sem_type == 2 ? "copy engine semaphore (with timestamp)"
					: "copy engine semaphore",
			  why);
}

cs_engine_result gr_copy_method(cs_gr *gr, gr_subch *s, const cs_method_call *c, cs_diag *why)
{
	gr_copy *st = &s->ce;
	switch (c->method) {
	case CS_CE_SET_SEMAPHORE_A: st->sem_a = c->data; return CS_ENGINE_OK;
	case CS_CE_SET_SEMAPHORE_B: st->sem_b = c->data; return CS_ENGINE_OK;
	case CS_CE_SET_SEMAPHORE_PAYLOAD: st->payload = c->data; return CS_ENGINE_OK;
	case CS_CE_OFFSET_IN_UPPER: st->in_upper = c->data; return CS_ENGINE_OK;
	case CS_CE_OFFSET_IN_LOWER: st->in_lower = c->data; return CS_ENGINE_OK;
	case CS_CE_OFFSET_OUT_UPPER: st->out_upper = c->data; return CS_ENGINE_OK;
	case CS_CE_OFFSET_OUT_LOWER: st->out_lower = c->data; return CS_ENGINE_OK;
	case CS_CE_PITCH_IN: st->pitch_in = c->data; return CS_ENGINE_OK;
	case CS_CE_PITCH_OUT: st->pitch_out = c->data; return CS_ENGINE_OK;
	case CS_CE_LINE_LENGTH_IN: st->line_length = c->data; return CS_ENGINE_OK;
	case CS_CE_LINE_COUNT: st->line_count = c->data; return CS_ENGINE_OK;
	case CS_CE_LAUNCH_DMA: return launch_dma(gr, st, c, why);
	case CS_CE_SET_SEMAPHORE_PAYLOAD_UPPER:
		if (has_payload_upper(c->cls)) {
			st->payload_upper = c->data;
			return CS_ENGINE_OK;
		}
		break;
	default:
		break;
	}
	const cs_class_desc *d = cs_gr_class(c->cls);
	if (d && cs_class_method_at(d, c->method, NULL))
		return CS_ENGINE_OK; /* named state the model keeps no use for */
	cs_event ev = gr_event(CS_EV_ASSUMPTION, CS_STAGE_NONE, CS_UNIT_COPY, c, CS_NONE32);
	gr_emit(gr, &ev, "method 0x%04x of %04X is not in chainsim's table; ignored (data 0x%08" PRIx32
		")", c->method, c->cls, c->data);
	return CS_ENGINE_OK;
}

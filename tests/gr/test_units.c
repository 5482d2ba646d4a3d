/* SPDX-License-Identifier: MIT */
/* The engine's other units: report semaphores, inline-to-memory, the copy
 * engine, cache invalidations, WAIT_FOR_IDLE and unknown methods. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "harness.h"

/* ---- report semaphore ------------------------------------------------------------- */

static void report(h_env *h, uint64_t va, uint32_t payload, uint32_t d)
{
	h_call(h, 1, CS_GR_SET_REPORT_SEMAPHORE_A, (uint32_t)(va >> 32));
	h_call(h, 1, CS_GR_SET_REPORT_SEMAPHORE_B, (uint32_t)va);
	h_call(h, 1, CS_GR_SET_REPORT_SEMAPHORE_C, payload);
	h_call(h, 1, CS_GR_SET_REPORT_SEMAPHORE_D, d);
}

Test(gr_units, report_semaphore_one_and_four_words)
{
	h_env *h = h_new(CS_ARCH_HOPPER, true);
	h->tb.now = 5000;
	for (unsigned i = 0; i < 12; i++)
		test_bus_write32(&h->tb, H_SEM_VA + 4 * i, 0xffffffffu);
	report(h, H_SEM_VA, 0x31, 1u << 28); /* RELEASE, ONE_WORD */
	cr_expect_eq(test_bus_read32(&h->tb, H_SEM_VA), 0x31);
	cr_expect_eq(test_bus_read32(&h->tb, H_SEM_VA + 4), 0xffffffffu);
	const h_rec *r = h_find(h, CS_EV_SEM_RELEASE, 0);
	cr_assert_not_null(r);
	cr_expect_eq(r->ev.aux, 4);
	cr_expect_eq(r->ev.stage, CS_STAGE_ENGINE_RELEASE);
	cr_expect_eq(r->ev.unit, CS_UNIT_COMPUTE);
	cr_expect_eq(r->ev.method, CS_GR_SET_REPORT_SEMAPHORE_D);
	cr_expect_eq(r->ev.method_index, 3);
	report(h, H_SEM_VA + 0x10, 0x32, 0); /* RELEASE, FOUR_WORDS */
	cr_expect_eq(test_bus_read64(&h->tb, H_SEM_VA + 0x10), 0x32);
	cr_expect_eq(test_bus_read64(&h->tb, H_SEM_VA + 0x18), 5000, "timestamp");
	cr_expect_eq(h_find(h, CS_EV_SEM_RELEASE, 1)->ev.aux, 16);
	/* TRAP and the reserved operations stop the channel. */
	report(h, H_SEM_VA + 0x20, 1, 3);
	cr_expect_not_null(strstr(h_find(h, CS_EV_CHANNEL_STOP, 0)->detail, "OPERATION=TRAP"));
	cr_expect_eq(test_bus_read32(&h->tb, H_SEM_VA + 0x20), 0xffffffffu, "a trap writes nothing");
	report(h, H_SEM_VA, 1, 1);
	cr_expect_str_eq(h->why.msg, "SET_REPORT_SEMAPHORE_D OPERATION=1 is reserved (0 RELEASE, 3 TRAP)");
	report(h, H_UNMAPPED_VA, 1, 1u << 28);
	const h_rec *f = h_find(h, CS_EV_FAULT, 0);
	cr_assert_not_null(f);
	cr_expect_eq(f->ev.addr, H_UNMAPPED_VA);
	cr_expect_eq(f->ev.stage, CS_STAGE_ENGINE_RELEASE);
	cr_expect_eq(f->ev.unit, CS_UNIT_COMPUTE);
	h_free(h);
}

Test(gr_units, report_semaphore_upper_bits_per_class)
{
	/* C6C0..C9C0 take OFFSET_UPPER 7:0; CBC0 on 24:0. A set bit 8 is dropped before
	 * Hopper, kept after (and then the address is unmapped). */
	h_env *h = h_new(CS_ARCH_AMPERE, true);
	report(h, H_SEM_VA | (1ull << 40), 0x7, 1u << 28);
	cr_expect_eq(test_bus_read32(&h->tb, H_SEM_VA), 0x7);
	h_free(h);
	h = h_new(CS_ARCH_HOPPER, true);
	report(h, H_SEM_VA | (1ull << 40), 0x7, 1u << 28);
	cr_expect_eq(h_count(h, CS_EV_FAULT), 1);
	cr_expect_eq(test_bus_read32(&h->tb, H_SEM_VA), 0);
	h_free(h);
}

/* ---- inline-to-memory ---------------------------------------------------------------- */

static void i2m_setup(h_env *h, uint64_t dst, uint32_t len, uint32_t lines, uint32_t pitch,
		      uint32_t launch)
{
	h_call(h, 2, CS_GR_LINE_LENGTH_IN, len);
	h_call(h, 2, CS_GR_LINE_COUNT, lines);
	h_call(h, 2, CS_GR_OFFSET_OUT_UPPER, (uint32_t)(dst >> 32));
	h_call(h, 2, CS_GR_OFFSET_OUT, (uint32_t)dst);
	h_call(h, 2, CS_GR_PITCH_OUT, pitch);
	h_call(h, 2, CS_GR_LAUNCH_DMA, launch);
}

Test(gr_units, i2m_writes_multi_dword_and_partial_tail)
{
	h_env *h = h_new(CS_ARCH_HOPPER, true);
	h_bind(h, 2, 0xCBC0);
	for (unsigned i = 0; i < 4; i++)
		test_bus_write32(&h->tb, H_BUF_VA + 4 * i, 0xeeeeeeeeu);
	i2m_setup(h, H_BUF_VA, 10, 1, 0, 1);
	cr_expect_eq(h->why.status, CS_OK, "%s", h->why.msg);
	cr_expect_eq(h_call(h, 2, CS_GR_LOAD_INLINE_DATA, 0x44332211), CS_ENGINE_OK);
	cr_expect_eq(h_call(h, 2, CS_GR_LOAD_INLINE_DATA, 0x88776655), CS_ENGINE_OK);
	cr_expect_eq(h_count(h, CS_EV_I2M_WRITE), 0, "not done before the last byte");
	cr_expect_eq(h_call(h, 2, CS_GR_LOAD_INLINE_DATA, 0xccbbaa99), CS_ENGINE_OK);
	cr_expect_eq(test_bus_read32(&h->tb, H_BUF_VA), 0x44332211);
	cr_expect_eq(test_bus_read32(&h->tb, H_BUF_VA + 4), 0x88776655);
	cr_expect_eq(test_bus_read32(&h->tb, H_BUF_VA + 8), 0xeeeeaa99, "bytes past LINE_LENGTH_IN untouched");
	const h_rec *w = h_find(h, CS_EV_I2M_WRITE, 0);
	cr_assert_not_null(w);
	cr_expect_eq(w->ev.addr, H_BUF_VA);
	cr_expect_eq(w->ev.value, 10);
	cr_expect_eq(w->ev.unit, CS_UNIT_COMPUTE);
	cs_gr_counters k;
	cs_gr_counters_get(h->gr, &k);
	cr_expect_eq(k.i2m_writes, 1);
	cr_expect_eq(k.i2m_bytes, 10);
	/* More data than announced. */
	cr_expect_eq(h_call(h, 2, CS_GR_LOAD_INLINE_DATA, 0), CS_ENGINE_STOP);
	cr_expect_not_null(strstr(h->why.msg, "no inline-to-memory transfer pending"));
	h_free(h);
}

Test(gr_units, i2m_multi_line_uses_pitch)
{
	h_env *h = h_new(CS_ARCH_AMPERE, true);
	h_bind(h, 2, 0xC6C0);
	i2m_setup(h, H_BUF_VA, 4, 3, 0x100, 1);
	for (uint32_t i = 0; i < 3; i++)
		cr_expect_eq(h_call(h, 2, CS_GR_LOAD_INLINE_DATA, 0x1000 + i), CS_ENGINE_OK);
	for (uint32_t i = 0; i < 3; i++)
		cr_expect_eq(test_bus_read32(&h->tb, H_BUF_VA + 0x100 * i), 0x1000 + i);
	cr_expect_eq(test_bus_read32(&h->tb, H_BUF_VA + 4), 0);
	cr_expect_eq(h_find(h, CS_EV_I2M_WRITE, 0)->ev.value, 12);
	h_free(h);
}

Test(gr_units, i2m_unmapped_destination_faults_at_launch_dma)
{
	h_env *h = h_new(CS_ARCH_HOPPER, true);
	h_bind(h, 2, 0xCBC0);
	h->gp_entry = 0;
	i2m_setup(h, H_UNMAPPED_VA, 8, 1, 0, 1);
	const h_rec *f = h_find(h, CS_EV_FAULT, 0);
	cr_assert_not_null(f);
	cr_expect_eq(f->ev.addr, H_UNMAPPED_VA);
	cr_expect_eq(f->ev.value, CS_ACCESS_WRITE);
	cr_expect_eq(f->ev.unit, CS_UNIT_COMPUTE);
	cr_expect_eq(f->ev.method, CS_GR_LAUNCH_DMA);
	cr_expect_eq(f->ev.method_index, 5);
	cr_expect_str_eq(f->detail, "the inline-to-memory write of 8 bytes to 0x7d0000000 "
				    "faulted: 0x7d0000000 is not mapped (compute engine, LAUNCH_DMA)");
	/* A range that starts mapped and runs off the end names the first bad byte. */
	i2m_setup(h, H_BUF_VA + 0x100000 - 4, 8, 1, 0, 1);
	cr_expect_eq(h_find(h, CS_EV_FAULT, 1)->ev.addr, H_BUF_VA + 0x100000);
	h_free(h);
}

Test(gr_units, i2m_refuses_what_it_does_not_model)
{
	h_env *h = h_new(CS_ARCH_HOPPER, true);
	h_bind(h, 2, 0xCBC0);
	i2m_setup(h, H_BUF_VA, 4, 1, 0, 0); /* BLOCKLINEAR */
	cr_expect_not_null(strstr(h->why.msg, "BLOCKLINEAR is not modelled"), "%s", h->why.msg);
	i2m_setup(h, H_BUF_VA, 4, 1, 0, 1 | (2u << 4)); /* RELEASE_SEMAPHORE completion */
	cr_expect_not_null(strstr(h->why.msg, "RELEASE_SEMAPHORE is not modelled"), "%s",
			   h->why.msg);
	cr_expect_eq(h_count(h, CS_EV_CHANNEL_STOP), 2);
	cr_expect_eq(h_count(h, CS_EV_I2M_WRITE), 0);
	h_free(h);
}

/* ---- copy engine ------------------------------------------------------------------- */

static void fill(h_env *h, uint64_t va, unsigned n, uint8_t seed)
{
	for (unsigned i = 0; i < n; i++) {
		uint8_t b = (uint8_t)(seed + i * 7);
		uint64_t f;
		cs_mem_write(h->tb.mem, va + i, &b, 1, &f);
	}
}

static bool same(h_env *h, uint64_t a, uint64_t b, unsigned n)
{
	for (unsigned i = 0; i < n; i++) {
		uint8_t x, y;
		uint64_t f;
		cs_mem_read(h->tb.mem, a + i, &x, 1, &f);
		cs_mem_read(h->tb.mem, b + i, &y, 1, &f);
		if (x != y)
			return false;
	}
	return true;
}

static cs_engine_result ce(h_env *h, uint64_t dst, uint64_t src, uint32_t len, uint32_t lines,
			   uint32_t pin, uint32_t pout, uint32_t launch)
{
	h_call(h, 4, CS_CE_OFFSET_IN_UPPER, (uint32_t)(src >> 32));
	h_call(h, 4, CS_CE_OFFSET_IN_LOWER, (uint32_t)src);
	h_call(h, 4, CS_CE_OFFSET_OUT_UPPER, (uint32_t)(dst >> 32));
	h_call(h, 4, CS_CE_OFFSET_OUT_LOWER, (uint32_t)dst);
	h_call(h, 4, CS_CE_PITCH_IN, pin);
	h_call(h, 4, CS_CE_PITCH_OUT, pout);
	h_call(h, 4, CS_CE_LINE_LENGTH_IN, len);
	h_call(h, 4, CS_CE_LINE_COUNT, lines);
	return h_call(h, 4, CS_CE_LAUNCH_DMA, launch);
}

#define CE_PITCH ((1u << 7) | (1u << 8) | 2u)

Test(gr_units, copy_one_line_on_each_copy_class)
{
	static const cs_arch arches[] = { CS_ARCH_AMPERE, CS_ARCH_ADA, CS_ARCH_HOPPER,
					  CS_ARCH_BLACKWELL };
	for (size_t a = 0; a < 4; a++) {
		h_env *h = h_new(arches[a], true);
		fill(h, H_BUF_VA, 5000, 3);
		cr_assert_eq(ce(h, H_BUF_VA + 0x10000, H_BUF_VA, 5000, 1, 0, 0, CE_PITCH),
			     CS_ENGINE_OK, "%s", h->why.msg);
		cr_expect(same(h, H_BUF_VA, H_BUF_VA + 0x10000, 5000));
		const h_rec *c = h_find(h, CS_EV_COPY, 0);
		cr_assert_not_null(c);
		cr_expect_eq(c->ev.addr, H_BUF_VA + 0x10000);
		cr_expect_eq(c->ev.aux, H_BUF_VA);
		cr_expect_eq(c->ev.value, 5000);
		cr_expect_eq(c->ev.unit, CS_UNIT_COPY);
		cr_expect_eq(c->ev.cls, cs_arch_get(arches[a])->copy_class);
		cs_gr_counters k;
		cs_gr_counters_get(h->gr, &k);
		cr_expect_eq(k.copies, 1);
		cr_expect_eq(k.bytes_copied, 5000);
		cr_expect_eq(h->tb.now, CS_GR_NS_PER_COPY + (5000 + 15) / 16);
		h_free(h);
	}
}

Test(gr_units, copy_multi_line_with_pitches_and_overlap)
{
	h_env *h = h_new(CS_ARCH_HOPPER, true);
	fill(h, H_BUF_VA, 0x400, 9);
	cr_assert_eq(ce(h, H_BUF_VA + 0x8000, H_BUF_VA, 16, 3, 32, 64, CE_PITCH | (1u << 9)),
		     CS_ENGINE_OK, "%s", h->why.msg);
	for (unsigned i = 0; i < 3; i++)
		cr_expect(same(h, H_BUF_VA + 32 * i, H_BUF_VA + 0x8000 + 64 * i, 16), "line %u", i);
	cr_expect_eq(test_bus_read32(&h->tb, H_BUF_VA + 0x8000 + 16), 0, "between lines untouched");
	cr_expect_eq(h_find(h, CS_EV_COPY, 0)->ev.value, 48);
	/* Without MULTI_LINE_ENABLE, LINE_COUNT is ignored: one line. */
	cr_assert_eq(ce(h, H_BUF_VA + 0x9000, H_BUF_VA, 16, 3, 32, 64, CE_PITCH), CS_ENGINE_OK);
	cr_expect_eq(h_find(h, CS_EV_COPY, 1)->ev.value, 16);
	/* Overlapping forward copy behaves as memmove. */
	fill(h, H_BUF_VA + 0x20000, 10000, 1);
	fill(h, H_BUF_VA + 0x30000, 10000, 1);
	cr_assert_eq(ce(h, H_BUF_VA + 0x20000 + 100, H_BUF_VA + 0x20000, 10000, 1, 0, 0, CE_PITCH),
		     CS_ENGINE_OK);
	cr_expect(same(h, H_BUF_VA + 0x20000 + 100, H_BUF_VA + 0x30000, 10000));
	h_free(h);
}

Test(gr_units, copy_semaphore_release_with_and_without_timestamp)
{
	h_env *h = h_new(CS_ARCH_HOPPER, true);
	h_call(h, 4, CS_CE_SET_SEMAPHORE_A, (uint32_t)(H_SEM_VA >> 32));
	h_call(h, 4, CS_CE_SET_SEMAPHORE_B, (uint32_t)H_SEM_VA);
	h_call(h, 4, CS_CE_SET_SEMAPHORE_PAYLOAD, 0x600d);
	for (unsigned i = 0; i < 8; i++)
		test_bus_write32(&h->tb, H_SEM_VA + 4 * i, 0xffffffffu);
	cr_assert_eq(ce(h, H_BUF_VA + 0x100, H_BUF_VA, 64, 1, 0, 0, CE_PITCH | (1u << 3) | 4u),
		     CS_ENGINE_OK, "%s", h->why.msg);
	cr_expect_eq(test_bus_read32(&h->tb, H_SEM_VA), 0x600d);
	cr_expect_eq(test_bus_read32(&h->tb, H_SEM_VA + 4), 0xffffffffu);
	const h_rec *r = h_find(h, CS_EV_SEM_RELEASE, 0);
	cr_assert_not_null(r);
	cr_expect_eq(r->ev.unit, CS_UNIT_COPY);
	cr_expect_eq(r->ev.stage, CS_STAGE_ENGINE_RELEASE);
	cr_expect_eq(r->ev.aux, 4);
	/* The release follows the copy in the trace. */
	cr_expect_lt(h_find(h, CS_EV_COPY, 0)->ev.seq, r->ev.seq);
	uint64_t t = h->tb.now;
	/* Four words with timestamp; a 64-bit payload through PAYLOAD_UPPER. */
	h_call(h, 4, CS_CE_SET_SEMAPHORE_B, (uint32_t)H_SEM_VA + 0x10);
	h_call(h, 4, CS_CE_SET_SEMAPHORE_PAYLOAD_UPPER, 0x11);
	cr_assert_eq(ce(h, H_BUF_VA + 0x100, H_BUF_VA, 16, 1, 0, 0,
			CE_PITCH | (2u << 3) | (1u << 27)), CS_ENGINE_OK);
	cr_expect_eq(test_bus_read64(&h->tb, H_SEM_VA + 0x10), 0x110000600dull);
	cr_expect_eq(test_bus_read64(&h->tb, H_SEM_VA + 0x18), t + CS_GR_NS_PER_COPY + 1);
	cr_expect_eq(h_find(h, CS_EV_SEM_RELEASE, 1)->ev.aux, 16);
	/* A release with no transfer (DATA_TRANSFER_TYPE NONE). */
	h_call(h, 4, CS_CE_SET_SEMAPHORE_B, (uint32_t)H_SEM_VA + 0x20);
	cr_assert_eq(h_call(h, 4, CS_CE_LAUNCH_DMA, (1u << 3) | (1u << 27)), CS_ENGINE_OK);
	cr_expect_eq(test_bus_read64(&h->tb, H_SEM_VA + 0x20), 0x110000600dull);
	cs_gr_counters k;
	cs_gr_counters_get(h->gr, &k);
	cr_expect_eq(k.copies, 2);
	cr_expect_eq(k.releases, 3);
	/* To an unmapped address: a COPY fault. */
	h_call(h, 4, CS_CE_SET_SEMAPHORE_A, (uint32_t)(H_UNMAPPED_VA >> 32));
	h_call(h, 4, CS_CE_SET_SEMAPHORE_B, (uint32_t)H_UNMAPPED_VA);
	cr_expect_eq(h_call(h, 4, CS_CE_LAUNCH_DMA, 1u << 3), CS_ENGINE_STOP);
	const h_rec *f = h_find(h, CS_EV_FAULT, 0);
	cr_assert_not_null(f);
	cr_expect_eq(f->ev.unit, CS_UNIT_COPY);
	cr_expect_eq(f->ev.addr, H_UNMAPPED_VA);
	h_free(h);
}

Test(gr_units, copy_payload_upper_is_not_a_c6b5_method)
{
	h_env *h = h_new(CS_ARCH_AMPERE, true);
	h_bind(h, 4, 0xC6B5);
	cr_expect_eq(h_call(h, 4, CS_CE_SET_SEMAPHORE_PAYLOAD_UPPER, 1), CS_ENGINE_OK);
	cr_expect_not_null(strstr(h_find(h, CS_EV_ASSUMPTION, 0)->detail,
				  "method 0x024c of C6B5 is not in chainsim's table"));
	h_call(h, 4, CS_CE_SET_SEMAPHORE_A, (uint32_t)(H_SEM_VA >> 32));
	h_call(h, 4, CS_CE_SET_SEMAPHORE_B, (uint32_t)H_SEM_VA);
	h_call(h, 4, CS_CE_SET_SEMAPHORE_PAYLOAD, 5);
	/* Bit 27 means nothing on C6B5: a one-word release. */
	cr_expect_eq(h_call(h, 4, CS_CE_LAUNCH_DMA, (1u << 3) | (1u << 27)), CS_ENGINE_OK);
	cr_expect_eq(h_find(h, CS_EV_SEM_RELEASE, 0)->ev.aux, 4);
	h_free(h);
}

Test(gr_units, copy_refuses_layouts_and_modes_it_does_not_model)
{
	static const struct { uint32_t launch; const char *what; } cases[] = {
		{ 2u | (1u << 8), "SRC_MEMORY_LAYOUT=BLOCKLINEAR" },
		{ 2u | (1u << 7), "DST_MEMORY_LAYOUT=BLOCKLINEAR" },
		{ CE_PITCH | (1u << 10), "REMAP_ENABLE=TRUE" },
		{ CE_PITCH | (1u << 12), "SRC_TYPE=PHYSICAL" },
		{ CE_PITCH | (1u << 13), "DST_TYPE=PHYSICAL" },
		{ CE_PITCH | (1u << 3) | (1u << 19), "SEMAPHORE_REDUCTION_ENABLE" },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		h_env *h = h_new(CS_ARCH_HOPPER, true);
		fill(h, H_BUF_VA, 64, 1);
		cr_expect_eq(ce(h, H_BUF_VA + 0x100, H_BUF_VA, 64, 1, 0, 0, cases[i].launch),
			     CS_ENGINE_STOP);
		const h_rec *s = h_find(h, CS_EV_CHANNEL_STOP, 0);
		cr_assert_not_null(s, "%s", cases[i].what);
		cr_expect_not_null(strstr(s->detail, cases[i].what), "%s", s->detail);
		cr_expect_not_null(strstr(s->detail, "not modelled"), "%s", s->detail);
		cr_expect_eq(s->ev.unit, CS_UNIT_COPY);
		cr_expect_eq(test_bus_read32(&h->tb, H_BUF_VA + 0x100), 0, "nothing copied");
		cr_expect_eq(h_count(h, CS_EV_COPY), 0);
		h_free(h);
	}
}

Test(gr_units, copy_faults_name_the_side)
{
	h_env *h = h_new(CS_ARCH_BLACKWELL, true);
	cr_expect_eq(ce(h, H_BUF_VA, H_UNMAPPED_VA, 64, 1, 0, 0, CE_PITCH), CS_ENGINE_STOP);
	const h_rec *f = h_find(h, CS_EV_FAULT, 0);
	cr_assert_not_null(f);
	cr_expect_eq(f->ev.value, CS_ACCESS_READ);
	cr_expect_not_null(strstr(f->detail, "source line 0"), "%s", f->detail);
	cr_expect_eq(ce(h, H_UNMAPPED_VA, H_BUF_VA, 64, 1, 0, 0, CE_PITCH), CS_ENGINE_STOP);
	f = h_find(h, CS_EV_FAULT, 1);
	cr_expect_eq(f->ev.value, CS_ACCESS_WRITE);
	cr_expect_not_null(strstr(f->detail, "destination line 0"), "%s", f->detail);
	/* A second line out of range: nothing is copied, not even line 0. */
	fill(h, H_BUF_VA, 64, 1);
	cr_expect_eq(ce(h, H_BUF_VA + 0x100000 - 0x80, H_BUF_VA, 64, 2, 64, 0x100,
			CE_PITCH | (1u << 9)), CS_ENGINE_STOP);
	cr_expect_eq(h_find(h, CS_EV_FAULT, 2)->ev.addr, H_BUF_VA + 0x100000 + 0x80);
	cr_expect_not_null(strstr(h_find(h, CS_EV_FAULT, 2)->detail, "destination line 1"));
	cr_expect_eq(test_bus_read32(&h->tb, H_BUF_VA + 0x100000 - 0x80), 0);
	h_free(h);
}

Test(gr_units, copy_refuses_transfers_beyond_the_model_limit)
{
	h_env *h = h_new(CS_ARCH_HOPPER, true);
	cr_expect_eq(ce(h, H_BUF_VA, H_BUF_VA + 0x100, 1, 0x200000, 0, 0, CE_PITCH | (1u << 9)),
		     CS_ENGINE_STOP);
	cr_expect_not_null(strstr(h->why.msg, "exceeds the model's limit"), "%s", h->why.msg);
	cr_expect_eq(h_count(h, CS_EV_COPY), 0);
	h_free(h);
}

/* ---- the rest --------------------------------------------------------------------- */

Test(gr_units, cache_invalidations_wfi_and_unknown_methods)
{
	h_env *h = h_new(CS_ARCH_HOPPER, true);
	cr_expect_eq(h_call(h, 1, CS_GR_INVALIDATE_SHADER_CACHES_NO_WFI, 0x1000), CS_ENGINE_OK);
	const h_rec *c = h_find(h, CS_EV_CACHE_INVALIDATE, 0);
	cr_assert_not_null(c);
	cr_expect_eq(c->ev.value, 0x1000);
	cr_expect_str_eq(c->detail, "INVALIDATE_SHADER_CACHES_NO_WFI INSTRUCTION=FALSE "
				    "GLOBAL_DATA=FALSE CONSTANT=TRUE");
	cr_expect_eq(h_call(h, 1, CS_GR_INVALIDATE_SKED_CACHES, 0), CS_ENGINE_OK);
	cr_expect_eq(h_count(h, CS_EV_CACHE_INVALIDATE), 2);
	cr_expect_eq(h_call(h, 1, CS_GR_WAIT_FOR_IDLE, 0), CS_ENGINE_OK);
	cr_expect_eq(h_find(h, CS_EV_HOST_OP, 0)->ev.method, CS_GR_WAIT_FOR_IDLE);
	/* State methods the model keeps no use for are accepted silently. */
	size_t n = h->tb.trace.n;
	cr_expect_eq(h_call(h, 1, CS_GR_SET_QMD_VERSION, 0x00040004), CS_ENGINE_OK);
	cr_expect_eq(h->tb.trace.n, n);
	/* A method chainsim's table does not know is named, not dropped in silence. */
	cr_expect_eq(h_call(h, 1, 0x0d94, 1), CS_ENGINE_OK);
	cr_expect_str_eq(h_find(h, CS_EV_ASSUMPTION, 0)->detail,
			 "method 0x0d94 of CBC0 is not in chainsim's table; ignored (data "
			 "0x00000001)");
	cs_gr_counters k;
	cs_gr_counters_get(h->gr, &k);
	cr_expect_eq(k.cache_invalidates, 2);
	h_free(h);
}

Test(gr_units, methods_on_a_class_the_engine_does_not_serve_stop)
{
	h_env *h = h_new(CS_ARCH_HOPPER, true);
	h->bound[3] = 0xCB97; /* as if the front end had bound 3D there */
	cr_expect_eq(h_call(h, 3, 0x200, 0), CS_ENGINE_STOP);
	cr_expect_str_eq(h->why.msg, "method 0x0200 on subchannel 3: class CB97 is not a "
				     "compute or copy class of hopper");
	h->bound[3] = 0xC7C0; /* an Ampere class on a Hopper device */
	cr_expect_eq(h_call(h, 3, 0x200, 0), CS_ENGINE_STOP);
	h_free(h);
}

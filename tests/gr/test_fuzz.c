/* SPDX-License-Identifier: MIT */
/* Hostile input never crashes the engine or the codecs: deterministic random
 * method streams and random QMD images (run under ASan+UBSan in CI). */
#include <criterion/criterion.h>
#include <string.h>

#include "harness.h"

static uint64_t rng(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

/* Data that is sometimes a plausible address piece, sometimes noise. */
static uint32_t pick_data(uint64_t *s)
{
	static const uint32_t interesting[] = { 0, 1, 2, 3, 9, 0xa, 0x2, 0x20000, 0x200000,
						0x200300, 0x2000000, 0x40000000, 0x40000002,
						0x182, 0x18a, 0x1000, 0x10000001, 0xffffffff };
	uint64_t r = rng(s);
	if (r % 3 == 0)
		return (uint32_t)(r >> 16);
	return interesting[(r >> 8) % (sizeof(interesting) / sizeof(interesting[0]))];
}

Test(gr_fuzz, random_method_streams_never_crash)
{
	static const cs_arch arches[] = { CS_ARCH_AMPERE, CS_ARCH_ADA, CS_ARCH_HOPPER,
					  CS_ARCH_BLACKWELL };
	uint64_t seed = 0x243f6a8885a308d3ull;
	cs_gr_counters sum = { 0 };
	for (size_t a = 0; a < 4; a++) {
		for (int with_exec = 0; with_exec < 2; with_exec++) {
			h_env *h = h_new(arches[a], with_exec);
			/* A valid QMD in memory, so some streams get as far as a grid. */
			cs_qmd q;
			h_qmd_build(h, &q, 1, 1);
			h_qmd_write(h, H_QMD_VA, &q);
			const cs_class_desc *cd = cs_gr_class(cs_arch_get(arches[a])->compute_class);
			const cs_class_desc *ce = cs_gr_class(cs_arch_get(arches[a])->copy_class);
			unsigned stops = 0;
			for (unsigned i = 0; i < 20000; i++) {
				uint64_t r = rng(&seed);
				bool copy = r & 1;
				const cs_class_desc *d = copy ? ce : cd;
				uint32_t method;
				if ((r >> 1) % 8 == 0) {
					method = 0x100 + 4 * (uint32_t)((r >> 4) % 0xf00);
				} else {
					const cs_method_desc *m = &d->methods[(r >> 4) % d->nmethods];
					method = m->offset + (m->count > 1 ? m->stride *
						 (uint32_t)((r >> 20) % m->count) : 0);
				}
				if (h_call(h, copy ? 4 : 1, method, pick_data(&seed)) != CS_ENGINE_OK) {
					stops++;
					cr_assert_neq(h->why.msg[0], '\0', "a stop says why");
					cr_assert(h->tb.trace.n > 0);
					const cs_event *last = &h->tb.trace.recs[h->tb.trace.n - 1].ev;
					cr_assert(last->kind == CS_EV_CHANNEL_STOP ||
						  last->kind == CS_EV_FAULT,
						  "a stop is recorded (last record %s)",
						  cs_event_kind_name((cs_event_kind)last->kind));
				}
				if (h->tb.trace.n > 100000)
					test_trace_clear(&h->tb.trace); /* keep the recorder small */
			}
			cr_expect_gt(stops, 0);
			cs_gr_counters k;
			cs_gr_counters_get(h->gr, &k);
			sum.launches += k.launches;
			sum.copies += k.copies;
			sum.releases += k.releases;
			sum.i2m_writes += k.i2m_writes;
			h_free(h);
		}
	}
	/* The streams reach the interesting paths, not only the refusals. */
	cr_expect_gt(sum.launches, 0);
	cr_expect_gt(sum.copies, 0);
	cr_expect_gt(sum.releases, 0);
	cr_log_info("launches %llu copies %llu releases %llu i2m %llu",
		    (unsigned long long)sum.launches, (unsigned long long)sum.copies,
		    (unsigned long long)sum.releases, (unsigned long long)sum.i2m_writes);
}

Test(gr_fuzz, random_qmd_images_decode_and_judge)
{
	uint64_t seed = 0x13198a2e03707344ull;
	cs_mem *mem = cs_mem_new(57);
	cs_diag d;
	cr_assert(cs_mem_map(mem, "m", 0x200000000ull, 0x10000, &d));
	cs_mem_port port = cs_mem_port_of(mem);
	static const uint32_t cls[] = { 0xC6C0, 0xC7C0, 0xC9C0, 0xCBC0, 0xCDC0, 0xCEC0 };
	unsigned accepted = 0;
	for (unsigned i = 0; i < 30000; i++) {
		uint32_t bytes[96];
		for (unsigned k = 0; k < 96; k++)
			bytes[k] = (uint32_t)rng(&seed);
		uint32_t c = cls[i % 6];
		cs_qmd q;
		cr_assert(cs_qmd_from_bytes(&q, cs_class_qmd_major(c), bytes, sizeof(bytes), &d));
		cs_qmd_info in;
		cs_qmd_decode(&q, &in);
		char why[256];
		why[0] = '\0';
		if (cs_qmd_check(&in, c, &port, why, sizeof(why)) == CS_CAUSE_NONE)
			accepted++;
		else
			cr_assert_neq(why[0], '\0');
	}
	cr_expect_eq(accepted, 0, "random bytes are not a valid launch");
	cs_mem_free(mem);
}

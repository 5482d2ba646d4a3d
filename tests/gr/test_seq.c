/* SPDX-License-Identifier: MIT */
/* The canonical method sequences: their exact encoding, and that the engine
 * does what they mean when a tiny pushbuffer walker delivers them. */
#include <criterion/criterion.h>
#include <string.h>

#include "chainsim/pushbuf.h"
#include "harness.h"

static const cs_arch arches[] = { CS_ARCH_AMPERE, CS_ARCH_ADA, CS_ARCH_HOPPER,
				  CS_ARCH_BLACKWELL };

/* Deliver encoded pushbuffer dwords as method calls (INC, NONINC, ONEINC, IMMD). */
static cs_engine_result walk(h_env *h, const uint32_t *pb, size_t n)
{
	for (size_t i = 0; i < n;) {
		uint32_t hd = pb[i++];
		cs_secop op = cs_pb_secop(hd);
		uint32_t subch = cs_pb_subch(hd), m = cs_pb_method(hd), cnt = cs_pb_count(hd);
		if (op == CS_SECOP_IMMD) {
			if (h_call(h, subch, m, cnt) != CS_ENGINE_OK)
				return CS_ENGINE_STOP;
			continue;
		}
		cr_assert(op == CS_SECOP_INC || op == CS_SECOP_NONINC || op == CS_SECOP_ONEINC);
		cr_assert(i + cnt <= n, "header %zu overruns the buffer", i - 1);
		for (uint32_t k = 0; k < cnt; k++) {
			uint32_t mk = op == CS_SECOP_INC ? m + 4 * k
				      : op == CS_SECOP_ONEINC ? m + (k ? 4 : 0) : m;
			if (h_call(h, subch, mk, pb[i++]) != CS_ENGINE_OK)
				return CS_ENGINE_STOP;
		}
	}
	return CS_ENGINE_OK;
}

Test(gr_seq, pcas_launch_encodes_like_nvk_and_runs)
{
	for (size_t a = 0; a < 4; a++) {
		h_env *h = h_new(arches[a], true);
		cs_qmd q;
		h_qmd_build(h, &q, 2, 0x3131);
		h_qmd_write(h, H_QMD_VA + 0x100, &q);
		cs_gr_launch_opts o = { .arch = arches[a], .subch = 1, .path = CS_GR_PATH_PCAS,
					.qmd_addr = H_QMD_VA + 0x100, .invalidate_caches = true };
		cs_gr_seq s;
		cs_diag d;
		cr_assert(cs_gr_launch_methods(&o, &s, &d), "%s", d.msg);
		uint32_t pb[16];
		size_t n = cs_gr_seq_encode(&s, pb, 16, &d);
		cr_assert_eq(n, 5);
		cr_expect_eq(pb[0], cs_pb_inc(1, 0x1698, 1));
		cr_expect_eq(pb[1], 1u << 12);
		cr_expect_eq(pb[2], cs_pb_inc(1, 0x2b4, 1));
		cr_expect_eq(pb[3], (uint32_t)((H_QMD_VA + 0x100) >> 8));
		cr_expect_eq(pb[4], cs_pb_immd(1, 0x2c0, CS_PCAS2_INVALIDATE_COPY_SCHEDULE));
		cr_assert_eq(walk(h, pb, n), CS_ENGINE_OK, "%s", h->why.msg);
		cr_expect_eq(h_count(h, CS_EV_CACHE_INVALIDATE), 1);
		cr_expect_eq(h_count(h, CS_EV_GRID_DONE), 1);
		cr_expect_eq(test_bus_read32(&h->tb, H_SEM_VA), 0x3131);
		h_free(h);
	}
}

Test(gr_seq, launch_with_local_memory_sets_it_first)
{
	for (size_t a = 0; a < 4; a++) {
		h_env *h = h_new(arches[a], true);
		cs_qmd q;
		cs_diag d;
		h_qmd_build(h, &q, 2, 0x4242);
		cr_assert(cs_qmd_set(&q, "SHADER_LOCAL_MEMORY_LOW_SIZE", 0x100, &d), "%s", d.msg);
		h_qmd_write(h, H_QMD_VA, &q);
		cs_gr_launch_opts o = { .arch = arches[a], .subch = 1, .path = CS_GR_PATH_PCAS,
					.qmd_addr = H_QMD_VA, .invalidate_caches = true,
					.local_addr = 0x3400020000ull };
		cs_gr_seq s;
		cr_assert(cs_gr_launch_methods(&o, &s, &d), "%s", d.msg);
		uint32_t pb[16];
		size_t n = cs_gr_seq_encode(&s, pb, 16, &d);
		cr_assert_eq(n, 8);
		cr_expect_eq(pb[0], cs_pb_inc(1, CS_GR_SET_SHADER_LOCAL_MEMORY_A, 2));
		cr_expect_eq(pb[1], 0x34);
		cr_expect_eq(pb[2], 0x00020000);
		cr_expect_eq(pb[3], cs_pb_inc(1, 0x1698, 1));
		cr_assert_eq(walk(h, pb, n), CS_ENGINE_OK, "%s", h->why.msg);
		const h_rec *ctx = h_find(h, CS_EV_CTX_LOAD, 0);
		cr_assert_not_null(ctx);
		cr_expect_eq(ctx->ev.addr, 0x3400020000ull);
		cr_expect_eq(ctx->ev.value, 0x100);
		cr_expect_eq(h_count(h, CS_EV_GRID_DONE), 1);
		cr_expect_eq(h->fx.last.local_base, 0x3400020000ull);
		h_free(h);

		/* Without local_addr the same QMD stops at stage 8. */
		h = h_new(arches[a], true);
		h_qmd_write(h, H_QMD_VA, &q);
		o.local_addr = 0;
		cr_assert(cs_gr_launch_methods(&o, &s, &d), "%s", d.msg);
		n = cs_gr_seq_encode(&s, pb, 16, &d);
		cr_assert_eq(n, 5);
		cr_expect_eq(walk(h, pb, n), CS_ENGINE_STOP);
		cr_expect_eq(h_count(h, CS_EV_CTX_BAD), 1);
		cr_expect_eq(h_count(h, CS_EV_DISPATCH), 0);
		h_free(h);
	}
}

Test(gr_seq, inline_launch_carries_every_qmd_dword_and_runs)
{
	for (size_t a = 0; a < 4; a++) {
		h_env *h = h_new(arches[a], true);
		cs_qmd q;
		h_qmd_build(h, &q, 3, 0x4242);
		cs_gr_launch_opts o = { .arch = arches[a], .subch = 1, .path = CS_GR_PATH_INLINE,
					.qmd_addr = H_QMD_VA + 0x800, .qmd = &q };
		cs_gr_seq s;
		cs_diag d;
		cr_assert(cs_gr_launch_methods(&o, &s, &d), "%s", d.msg);
		unsigned ndw = q.layout->bytes / 4;
		uint32_t pb[128];
		size_t n = cs_gr_seq_encode(&s, pb, 128, &d);
		cr_assert_eq(n, 1 + 2 + 1 + ndw);
		cr_expect_eq(pb[0], cs_pb_inc(1, 0x318, 2));
		uint32_t a_word = arches[a] >= CS_ARCH_HOPPER ? 1u << 30 : 0;
		cr_expect_eq(pb[1], a_word | (uint32_t)((H_QMD_VA + 0x800) >> 40));
		cr_expect_eq(pb[2], (uint32_t)((H_QMD_VA + 0x800) >> 8));
		cr_expect_eq(pb[3], cs_pb_inc(1, 0x320, ndw));
		cr_expect_eq(memcmp(&pb[4], q.dw, ndw * 4), 0);
		cr_assert_eq(walk(h, pb, n), CS_ENGINE_OK, "%s", h->why.msg);
		cr_expect_eq(h_find(h, CS_EV_QMD_INSTALL, 0)->ev.addr, H_QMD_VA + 0x800);
		cr_expect_eq(test_bus_read32(&h->tb, H_SEM_VA), 0x4242);
		for (unsigned i = 0; i < ndw; i++)
			cr_expect_eq(test_bus_read32(&h->tb, H_QMD_VA + 0x800 + 4 * i), q.dw[i]);
		h_free(h);
	}
}

Test(gr_seq, copy_sequence_runs_with_release)
{
	for (size_t a = 0; a < 4; a++) {
		h_env *h = h_new(arches[a], true);
		for (unsigned i = 0; i < 64; i++)
			test_bus_write32(&h->tb, H_BUF_VA + 4 * i, 0x5000 + i);
		bool wide_ok = arches[a] != CS_ARCH_AMPERE; /* C6B5 has no PAYLOAD_UPPER */
		cs_gr_copy_opts o = { .arch = arches[a], .subch = 4, .dst = H_BUF_VA + 0x1000,
				      .src = H_BUF_VA, .len = 256, .release = true,
				      .sem_addr = H_SEM_VA,
				      .sem_payload = wide_ok ? 0x100000007ull : 7,
				      .sem_timestamp = true };
		cs_gr_seq s;
		cs_diag d;
		cr_assert(cs_gr_copy_methods(&o, &s, &d), "%s", d.msg);
		uint32_t pb[32];
		size_t n = cs_gr_seq_encode(&s, pb, 32, &d);
		cr_assert_gt(n, 0);
		cr_expect_eq(pb[0], cs_pb_inc(4, 0x400, 4));
		cr_assert_eq(walk(h, pb, n), CS_ENGINE_OK, "%s", h->why.msg);
		for (unsigned i = 0; i < 64; i++)
			cr_expect_eq(test_bus_read32(&h->tb, H_BUF_VA + 0x1000 + 4 * i), 0x5000 + i);
		cr_expect_eq(test_bus_read64(&h->tb, H_SEM_VA), o.sem_payload);
		cr_expect_eq(test_bus_read64(&h->tb, H_SEM_VA + 8), h->tb.now);
		h_free(h);
	}
	cs_gr_copy_opts o = { .arch = CS_ARCH_AMPERE, .subch = 4, .len = 4, .release = true,
			      .sem_payload = 1ull << 32 };
	cs_gr_seq s;
	cs_diag d;
	cr_expect_not(cs_gr_copy_methods(&o, &s, &d));
	cr_expect_str_eq(d.msg, "a 64-bit semaphore payload needs a copy class with "
				"SET_SEMAPHORE_PAYLOAD_UPPER (C7B5 or later), not C6B5");
	o.subch = 8;
	cr_expect_not(cs_gr_copy_methods(&o, &s, &d));
	cr_expect_str_eq(d.msg, "subchannel 8 out of range (0..7)");
	o.subch = 4;
	o.cls = 0xC6C0;
	cr_expect_not(cs_gr_copy_methods(&o, &s, &d));
	cr_expect_str_eq(d.msg, "class C6C0 is not a copy class of ampere");
}

Test(gr_seq, i2m_sequence_runs)
{
	h_env *h = h_new(CS_ARCH_BLACKWELL, true);
	h_bind(h, 2, 0xCEC0);
	uint32_t words[5] = { 1, 2, 3, 4, 5 };
	cs_gr_seq s;
	cs_diag d;
	cr_assert(cs_gr_i2m_methods(CS_ARCH_BLACKWELL, 2, H_BUF_VA + 0x40, words, 5, &s, &d), "%s",
		  d.msg);
	uint32_t pb[32];
	size_t n = cs_gr_seq_encode(&s, pb, 32, &d);
	cr_assert_eq(walk(h, pb, n), CS_ENGINE_OK, "%s", h->why.msg);
	for (unsigned i = 0; i < 5; i++)
		cr_expect_eq(test_bus_read32(&h->tb, H_BUF_VA + 0x40 + 4 * i), i + 1);
	cr_expect_eq(h_find(h, CS_EV_I2M_WRITE, 0)->ev.value, 20);
	h_free(h);
}

Test(gr_seq, sequence_errors)
{
	cs_gr_seq s;
	cs_diag d;
	cs_gr_launch_opts o = { .arch = CS_ARCH_HOPPER, .subch = 1, .path = CS_GR_PATH_PCAS,
				.qmd_addr = 0x200000080 };
	cr_expect_not(cs_gr_launch_methods(&o, &s, &d));
	cr_expect_str_eq(d.msg, "QMD address 0x200000080 is not 256-byte aligned");
	o.qmd_addr = 1ull << 41;
	cr_expect_not(cs_gr_launch_methods(&o, &s, &d));
	cr_expect_not_null(strstr(d.msg, "does not fit SEND_PCAS_A"), "%s", d.msg);
	o.qmd_addr = 0x200000000;
	o.cls = 0xC6C0;
	cr_expect_not(cs_gr_launch_methods(&o, &s, &d));
	cr_expect_str_eq(d.msg, "class C6C0 is not a compute class of hopper");
	o.cls = 0;
	o.subch = 8;
	cr_expect_not(cs_gr_launch_methods(&o, &s, &d));
	cr_expect_str_eq(d.msg, "subchannel 8 out of range (0..7)");
	o.subch = 1;
	o.pcas_action = 4;
	cr_expect_not(cs_gr_launch_methods(&o, &s, &d));
	o.pcas_action = 0;
	o.path = CS_GR_PATH_INLINE;
	cr_expect_not(cs_gr_launch_methods(&o, &s, &d));
	cr_expect_str_eq(d.msg, "the inline path needs a QMD V04_00 for class CBC0");
	o.path = CS_GR_PATH_PCAS;
	cr_assert(cs_gr_launch_methods(&o, &s, &d));
	uint32_t pb[2];
	cr_expect_eq(cs_gr_seq_encode(&s, pb, 2, &d), 0);
	cr_expect_str_eq(d.msg, "2 dwords do not hold the sequence");
	o.local_addr = 1ull << 57;
	cr_expect_not(cs_gr_launch_methods(&o, &s, &d));
	cr_expect_not_null(strstr(d.msg, "does not fit SET_SHADER_LOCAL_MEMORY_A/B"), "%s", d.msg);
	o.local_addr = 0;
	uint32_t w = 0;
	cr_expect_not(cs_gr_i2m_methods(CS_ARCH_HOPPER, 2, 0, &w, 0, &s, &d));
}

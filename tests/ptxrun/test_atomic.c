/* SPDX-License-Identifier: MIT */
/* Atomics and reductions under contention: exact totals, deterministic order. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "harness.h"

static const char *atom_ptx =
	".version 9.0\n.target sm_90\n.address_size 64\n"
	".shared .align 4 .u32 sh;\n"
	".visible .entry k(.param .u64 o)\n{\n"
	"\t.reg .pred %p<4>;\n\t.reg .b32 %r<20>;\n\t.reg .f32 %f<4>;\n\t.reg .b64 %rd<8>;\n"
	"\tld.param.u64 %rd1, [o];\n\tmov.u32 %r1, %tid.x;\n\tmov.u32 %r2, %ctaid.x;\n"
	"\tmov.u32 %r3, %ntid.x;\n\tmad.lo.s32 %r4, %r2, %r3, %r1;\n" /* global id */
	"\tatom.global.add.u32 %r5, [%rd1], 1;\n"
	"\tatom.global.add.f32 %f1, [%rd1+4], 0f3F000000;\n"
	"\tatom.global.inc.u32 %r6, [%rd1+8], 100;\n"
	"\tatom.global.dec.u32 %r7, [%rd1+12], 10;\n"
	"\tsub.s32 %r8, %r4, 500;\n"
	"\tatom.global.max.s32 %r9, [%rd1+16], %r8;\n"
	"\tatom.global.min.s32 %r9, [%rd1+20], %r8;\n"
	"\tand.b32 %r10, %r4, 31;\n\tshl.b32 %r11, 1, %r10;\n"
	"\tatom.global.or.b32 %r9, [%rd1+24], %r11;\n"
	"\tatom.global.xor.b32 %r9, [%rd1+28], %r11;\n"
	"\tatom.global.exch.b32 %r9, [%rd1+32], %r4;\n"
	"\tred.global.add.u64 [%rd1+40], 3;\n"
	"\tatom.global.max.u32 %r9, [%rd1+48], %r8;\n"
	/* a CAS loop: increment [56] by one per thread */
	"\tld.global.u32 %r12, [%rd1+56];\n"
	"$CAS:\n"
	"\tadd.s32 %r13, %r12, 1;\n"
	"\tatom.global.cas.b32 %r14, [%rd1+56], %r12, %r13;\n"
	"\tsetp.ne.s32 %p1, %r14, %r12;\n"
	"\tmov.u32 %r12, %r14;\n"
	"\t@%p1 bra $CAS;\n"
	/* shared atomics, then one thread per CTA adds the CTA total */
	"\tsetp.eq.u32 %p2, %r1, 0;\n"
	"\t@%p2 st.shared.u32 [sh], 0;\n"
	"\tbar.sync 0;\n"
	"\tatom.shared.add.u32 %r15, [sh], %r1;\n"
	"\tbar.sync 0;\n"
	"\t@%p2 ld.shared.u32 %r16, [sh];\n"
	"\t@%p2 red.global.add.u32 [%rd1+60], %r16;\n"
	"\tret;\n}\n";

Test(atomic, contention_exact_totals)
{
	cs_diag d;
	cs_ptx_program *p = h_parse(atom_ptx, &d);
	cr_assert(p);
	h_env e;
	h_init(&e);
	uint64_t vo = h_alloc(&e, 4096);
	uint32_t init[16] = { 0 };
	init[3] = 5;                 /* dec start */
	init[4] = (uint32_t)-100000; /* max start */
	init[5] = 100000;            /* min start */
	h_write(&e, vo, init, sizeof(init));
	enum { G = 4, B = 256, T = G * B };
	uint64_t args[] = { vo };
	cs_grid_result r = h_run(&e, p, "k", (uint32_t[]){ G, 1, 1 }, (uint32_t[]){ B, 1, 1 }, 0,
				 args, 1);
	cr_assert_eq(r.outcome, CS_GRID_EXECUTED, "%s", r.diag.msg);
	uint32_t o[16];
	h_read(&e, vo, o, sizeof(o));
	cr_expect_eq(o[0], T);
	cr_expect_eq(h_f(o[1]), 0.5f * T);
	uint32_t inc = 0, dec = 5;
	for (int i = 0; i < T; i++) {
		inc = inc >= 100 ? 0 : inc + 1;
		dec = (dec == 0 || dec > 10) ? 10 : dec - 1;
	}
	cr_expect_eq(o[2], inc);
	cr_expect_eq(o[3], dec);
	cr_expect_eq((int32_t)o[4], T - 1 - 500);
	cr_expect_eq((int32_t)o[5], -500);
	cr_expect_eq(o[6], 0xffffffffu);
	cr_expect_eq(o[7], 0u); /* each bit flipped T/32 (even) times */
	cr_expect_eq(o[8], T - 1); /* the last thread in execution order */
	uint64_t red;
	memcpy(&red, &o[10], 8);
	cr_expect_eq(red, 3ull * T);
	cr_expect_eq(o[12], 0xffffffffu); /* max.u32 of (id - 500): id 499 gives 0xffffffff */
	cr_expect_eq(o[14], T, "CAS loop total %u", o[14]);
	cr_expect_eq(o[15], G * (B * (B - 1) / 2), "shared atomics total %u", o[15]);
	h_fini(&e);
	cs_ptx_program_free(p);
}

/* The packed-half atomics (issue 10 item 4): each thread t adds (t, -t/2) as
 * f16x2 and bf16x2 and (t) as f16 / bf16, takes a max/min of packed halves,
 * and swaps a b16 with cas; each step rounds once to the half type, in the
 * model's thread order. */
Test(atomic, packed_half_atomics)
{
	const char *body =
		"\tcvt.rn.f32.u32 %f1, %r2;\n\tmul.f32 %f2, %f1, 0fBF000000;\n"
		"\tcvt.rn.f16.f32 %rs1, %f1;\n\tcvt.rn.f16.f32 %rs2, %f2;\n"
		"\tmov.b32 %r3, {%rs1, %rs2};\n"
		"\tatom.global.add.noftz.f16x2 %r4, [%rd1], %r3;\n"
		"\tcvt.rn.bf16.f32 %rs3, %f1;\n\tcvt.rn.bf16.f32 %rs4, %f2;\n"
		"\tmov.b32 %r5, {%rs3, %rs4};\n"
		"\tred.global.add.noftz.bf16x2 [%rd1+4], %r5;\n"
		"\tatom.global.add.noftz.f16 %rs5, [%rd1+8], %rs1;\n"
		"\tatom.global.add.noftz.bf16 %rs6, [%rd1+10], %rs3;\n"
		"\tatom.global.max.f16x2 %r6, [%rd1+12], %r3;\n"
		"\tatom.global.min.bf16x2 %r7, [%rd1+16], %r5;\n"
		"\tmov.u16 %rs7, 0;\n\tmov.u16 %rs8, 7;\n"
		"\tatom.global.cas.b16 %rs9, [%rd1+20], %rs7, %rs8;\n";
	enum { T = 64 };
	uint32_t out[6] = { 0 };
	cs_grid_result r = h_run_body("", body, T, NULL, 0, out, sizeof(out));
	cr_assert_eq(r.outcome, CS_GRID_EXECUTED, "%s", r.diag.msg);
	/* the reference: the same sums in thread order, each rounded to the type */
	float h_lo = 0, h_hi = 0, b_lo = 0, b_hi = 0, hmax_lo = 0, hmax_hi = 0, bmin_lo = 0,
	      bmin_hi = 0;
	for (int t = 0; t < T; t++) {
		float x = (float)t, y = -0.5f * (float)t;
		float xh = h_f16_round(x), yh = h_f16_round(y), xb = h_bf16_round(x), yb = h_bf16_round(y);
		h_lo = h_f16_round(h_lo + xh);
		h_hi = h_f16_round(h_hi + yh);
		b_lo = h_bf16_round(b_lo + xb);
		b_hi = h_bf16_round(b_hi + yb);
		hmax_lo = fmaxf(hmax_lo, xh);
		hmax_hi = fmaxf(hmax_hi, yh);
		bmin_lo = fminf(bmin_lo, xb);
		bmin_hi = fminf(bmin_hi, yb);
	}
	uint32_t want_h2 = (uint32_t)h_f16_bits(h_lo) | (uint32_t)h_f16_bits(h_hi) << 16;
	uint32_t want_b2 = (uint32_t)h_bf16_bits(b_lo) | (uint32_t)h_bf16_bits(b_hi) << 16;
	cr_expect_eq(out[0], want_h2, "f16x2 add: 0x%08x want 0x%08x", out[0], want_h2);
	cr_expect_eq(out[1], want_b2, "bf16x2 red: 0x%08x want 0x%08x", out[1], want_b2);
	cr_expect_eq(out[2] & 0xffff, h_f16_bits(h_lo), "f16 add");
	cr_expect_eq(out[2] >> 16, h_bf16_bits(b_lo), "bf16 add");
	cr_expect_eq(out[3], (uint32_t)h_f16_bits(hmax_lo) | (uint32_t)h_f16_bits(hmax_hi) << 16,
		     "f16x2 max: 0x%08x", out[3]);
	cr_expect_eq(out[4], (uint32_t)h_bf16_bits(bmin_lo) | (uint32_t)h_bf16_bits(bmin_hi) << 16,
		     "bf16x2 min: 0x%08x", out[4]);
	cr_expect_eq(out[5], 7, "cas.b16");
}

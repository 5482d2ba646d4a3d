/* SPDX-License-Identifier: MIT */
/* Integer instruction families with their edge cases. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"

typedef struct { uint32_t a, b, want; } c32;
typedef struct { uint64_t a, b, want; } c64;

/* One kernel per op: thread t computes op(in[2t], in[2t+1]) into out[t]. */
static void bin32(const char *op, const c32 *cases, size_t n)
{
	char body[1024];
	snprintf(body, sizeof(body),
		 "\tmul.wide.u32 %%rd6, %%r2, 8;\n\tadd.s64 %%rd7, %%rd2, %%rd6;\n"
		 "\tld.global.v2.u32 {%%r3, %%r4}, [%%rd7];\n\t%s %%r5, %%r3, %%r4;\n"
		 "\tst.global.u32 [%%rd4], %%r5;\n", op);
	uint32_t in[64][2], out[64];
	cr_assert(n <= 64);
	for (size_t i = 0; i < n; i++) {
		in[i][0] = cases[i].a;
		in[i][1] = cases[i].b;
	}
	cs_grid_result r = h_run_body("", body, (uint32_t)n, in, n * 8, out, n * 4);
	cr_assert_eq(r.outcome, CS_GRID_EXECUTED, "%s: %s", op, r.diag.msg);
	for (size_t i = 0; i < n; i++)
		cr_expect_eq(out[i], cases[i].want, "%s 0x%x, 0x%x = 0x%x, want 0x%x", op, cases[i].a,
			     cases[i].b, out[i], cases[i].want);
}

static void bin64(const char *op, const c64 *cases, size_t n)
{
	char body[1024];
	snprintf(body, sizeof(body),
		 "\tmul.wide.u32 %%rd6, %%r2, 16;\n\tadd.s64 %%rd7, %%rd2, %%rd6;\n"
		 "\tld.global.v2.u64 {%%rd8, %%rd9}, [%%rd7];\n\t%s %%rd10, %%rd8, %%rd9;\n"
		 "\tmul.wide.u32 %%rd11, %%r2, 8;\n\tadd.s64 %%rd12, %%rd1, %%rd11;\n"
		 "\tst.global.u64 [%%rd12], %%rd10;\n", op);
	uint64_t in[32][2], out[32];
	cr_assert(n <= 32);
	for (size_t i = 0; i < n; i++) {
		in[i][0] = cases[i].a;
		in[i][1] = cases[i].b;
	}
	cs_grid_result r = h_run_body("", body, (uint32_t)n, in, n * 16, out, n * 8);
	cr_assert_eq(r.outcome, CS_GRID_EXECUTED, "%s: %s", op, r.diag.msg);
	for (size_t i = 0; i < n; i++)
		cr_expect_eq(out[i], cases[i].want, "%s 0x%llx, 0x%llx = 0x%llx, want 0x%llx", op,
			     (unsigned long long)cases[i].a, (unsigned long long)cases[i].b,
			     (unsigned long long)out[i], (unsigned long long)cases[i].want);
}

#define N(x) (sizeof(x) / sizeof((x)[0]))

Test(int, add_sub_wrap)
{
	static const c32 add[] = { { 1, 2, 3 }, { 0xffffffff, 1, 0 }, { 0x7fffffff, 1, 0x80000000 } };
	bin32("add.s32", add, N(add));
	static const c32 sub[] = { { 1, 2, 0xffffffff }, { 0, 0x80000000, 0x80000000 } };
	bin32("sub.u32", sub, N(sub));
	static const c32 sat[] = { { 0x7fffffff, 1, 0x7fffffff }, { 0x80000000, 0xffffffff, 0x80000000 },
				   { 5, 0xfffffffd, 2 } };
	bin32("add.sat.s32", sat, N(sat));
	static const c64 add64[] = { { ~0ull, 1, 0 }, { 1ull << 40, 1ull << 40, 1ull << 41 } };
	bin64("add.s64", add64, N(add64));
}

Test(int, division_by_zero_and_overflow)
{
	/* PTX leaves x/0 machine-specific; the model: all ones, and x%0 = x */
	static const c32 du[] = { { 7, 2, 3 }, { 7, 0, 0xffffffff }, { 0, 0, 0xffffffff } };
	bin32("div.u32", du, N(du));
	static const c32 ds[] = { { (uint32_t)-7, 2, (uint32_t)-3 }, { 7, 0, 0xffffffff },
				  { 0x80000000, 0xffffffff, 0x80000000 }, { (uint32_t)-7, (uint32_t)-2, 3 } };
	bin32("div.s32", ds, N(ds));
	static const c32 ru[] = { { 7, 2, 1 }, { 7, 0, 7 } };
	bin32("rem.u32", ru, N(ru));
	static const c32 rs[] = { { (uint32_t)-7, 2, (uint32_t)-1 }, { 0x80000000, 0xffffffff, 0 },
				  { (uint32_t)-5, 0, (uint32_t)-5 } };
	bin32("rem.s32", rs, N(rs));
	static const c64 d64[] = { { 100, 7, 14 }, { 5, 0, ~0ull }, { 1ull << 63, ~0ull, 1ull << 63 } };
	bin64("div.s64", d64, N(d64));
	static const c64 r64[] = { { 100, 7, 2 }, { 5, 0, 5 } };
	bin64("rem.u64", r64, N(r64));
}

Test(int, shifts_clamp)
{
	static const c32 shl[] = { { 1, 31, 0x80000000 }, { 1, 32, 0 }, { 0xffffffff, 40, 0 },
				   { 3, 0, 3 }, { 1, 0xffffffff, 0 } };
	bin32("shl.b32", shl, N(shl));
	static const c32 shru[] = { { 0x80000000, 31, 1 }, { 0x80000000, 32, 0 }, { 0xffffffff, 99, 0 } };
	bin32("shr.u32", shru, N(shru));
	static const c32 shrs[] = { { 0x80000000, 31, 0xffffffff }, { 0x80000000, 32, 0xffffffff },
				    { 0x40000000, 40, 0 }, { 0xfffffff0, 2, 0xfffffffc } };
	bin32("shr.s32", shrs, N(shrs));
	static const c64 shl64[] = { { 1, 63, 1ull << 63 }, { 1, 64, 0 }, { 5, 200, 0 } };
	bin64("shl.b64", shl64, N(shl64));
	static const c64 shr64[] = { { 1ull << 63, 64, ~0ull }, { 1ull << 63, 63, ~0ull } };
	bin64("shr.s64", shr64, N(shr64));
}

Test(int, mul_hi_wide)
{
	static const c32 lo[] = { { 0x10000, 0x10000, 0 }, { 3, 0xffffffff, 0xfffffffd } };
	bin32("mul.lo.s32", lo, N(lo));
	static const c32 hiu[] = { { 0x10000, 0x10000, 1 }, { 0xffffffff, 0xffffffff, 0xfffffffe } };
	bin32("mul.hi.u32", hiu, N(hiu));
	static const c32 his[] = { { 0xffffffff, 0xffffffff, 0 }, { 0x80000000, 2, 0xffffffff } };
	bin32("mul.hi.s32", his, N(his));
	static const c64 hi64[] = { { ~0ull, ~0ull, ~0ull - 1 }, { 1ull << 63, 4, 2 } };
	bin64("mul.hi.u64", hi64, N(hi64));
	static const c64 his64[] = { { ~0ull, ~0ull, 0 }, { 1ull << 63, 4, ~0ull - 1 } };
	bin64("mul.hi.s64", his64, N(his64));
	/* mul.wide: 32 x 32 -> 64 */
	const char *body = "\tmul.wide.u32 %rd6, %r2, 8;\n\tadd.s64 %rd7, %rd2, %rd6;\n"
			   "\tld.global.v2.u32 {%r3, %r4}, [%rd7];\n"
			   "\tmul.wide.s32 %rd8, %r3, %r4;\n\tmul.wide.u32 %rd9, %r3, %r4;\n"
			   "\tmad.wide.s32 %rd10, %r3, %r4, %rd8;\n"
			   "\tmul.wide.u32 %rd11, %r2, 32;\n\tadd.s64 %rd12, %rd1, %rd11;\n"
			   "\tst.global.v2.u64 [%rd12], {%rd8, %rd9};\n"
			   "\tst.global.u64 [%rd12+16], %rd10;\n";
	uint32_t in[2][2] = { { 0xffffffff, 2 }, { 0x80000000, 0x80000000 } };
	uint64_t out[2][4];
	cs_grid_result r = h_run_body("", body, 2, in, sizeof(in), out, sizeof(out));
	cr_assert_eq(r.outcome, CS_GRID_EXECUTED, "%s", r.diag.msg);
	cr_expect_eq(out[0][0], (uint64_t)-2);
	cr_expect_eq(out[0][1], 0x1fffffffeull);
	cr_expect_eq(out[0][2], (uint64_t)-4);
	cr_expect_eq(out[1][0], 1ull << 62);
	cr_expect_eq(out[1][1], 1ull << 62);
}

Test(int, min_max_abs_neg)
{
	static const c32 mins[] = { { 0xffffffff, 1, 0xffffffff }, { 5, 3, 3 } };
	bin32("min.s32", mins, N(mins));
	static const c32 minu[] = { { 0xffffffff, 1, 1 } };
	bin32("min.u32", minu, N(minu));
	static const c32 maxs[] = { { 0xffffffff, 1, 1 }, { 0x80000000, 0x7fffffff, 0x7fffffff } };
	bin32("max.s32", maxs, N(maxs));
	static const c32 maxu[] = { { 0xffffffff, 1, 0xffffffff } };
	bin32("max.u32", maxu, N(maxu));
	/* unary ops read only a */
	static const c32 absv[] = { { (uint32_t)-5, 0, 5 }, { 0x80000000, 0, 0x80000000 }, { 7, 0, 7 } };
	char body[512];
	uint32_t in[3][2], out[3];
	for (size_t i = 0; i < 3; i++) {
		in[i][0] = absv[i].a;
		in[i][1] = 0;
	}
	snprintf(body, sizeof(body), "\tmul.wide.u32 %%rd6, %%r2, 8;\n\tadd.s64 %%rd7, %%rd2, %%rd6;\n"
		 "\tld.global.u32 %%r3, [%%rd7];\n\tabs.s32 %%r4, %%r3;\n\tneg.s32 %%r5, %%r4;\n"
		 "\tsub.s32 %%r6, 0, %%r5;\n\tst.global.u32 [%%rd4], %%r6;\n");
	cs_grid_result r = h_run_body("", body, 3, in, sizeof(in), out, sizeof(out));
	cr_assert_eq(r.outcome, CS_GRID_EXECUTED, "%s", r.diag.msg);
	for (size_t i = 0; i < 3; i++)
		cr_expect_eq(out[i], absv[i].want);
}

Test(int, bit_ops)
{
	const char *body =
		"\tld.global.u32 %r3, [%rd5];\n"
		"\tpopc.b32 %r4, %r3;\n\tclz.b32 %r5, %r3;\n\tbrev.b32 %r6, %r3;\n"
		"\tnot.b32 %r7, %r3;\n\tcnot.b32 %r8, %r3;\n"
		"\tbfe.u32 %r9, %r3, 4, 8;\n\tbfe.s32 %r10, %r3, 4, 8;\n"
		"\tbfi.b32 %r11, %r3, 0xffff0000, 8, 4;\n"
		"\tprmt.b32 %r12, %r3, 0x11223344, 0x5140;\n"
		"\tand.b32 %r13, %r3, 0xff;\n\tor.b32 %r14, %r3, 1;\n\txor.b32 %r15, %r3, %r3;\n"
		"\tbfind.u32 %r16, %r3;\n"
		"\tmul.wide.u32 %rd6, %r2, 64;\n\tadd.s64 %rd7, %rd1, %rd6;\n"
		"\tst.global.v4.u32 [%rd7], {%r4, %r5, %r6, %r7};\n"
		"\tst.global.v4.u32 [%rd7+16], {%r8, %r9, %r10, %r11};\n"
		"\tst.global.v4.u32 [%rd7+32], {%r12, %r13, %r14, %r15};\n"
		"\tst.global.v2.u32 [%rd7+48], {%r16, %r16};\n";
	uint32_t in[2] = { 0x00000f80, 0 };
	uint32_t out[2][16];
	cs_grid_result r = h_run_body("", body, 2, in, sizeof(in), out, sizeof(out));
	cr_assert_eq(r.outcome, CS_GRID_EXECUTED, "%s", r.diag.msg);
	uint32_t *o = out[0];
	cr_expect_eq(o[0], 5);
	cr_expect_eq(o[1], 20);
	cr_expect_eq(o[2], 0x01f00000);
	cr_expect_eq(o[3], 0xfffff07f);
	cr_expect_eq(o[4], 0);
	cr_expect_eq(o[5], 0xf8);
	cr_expect_eq(o[6], 0xfffffff8); /* bit 7 of the field is set: sign-extended */
	cr_expect_eq(o[7], 0xffff0000 | (0x0 << 8)); /* low 4 bits of a (0) into bits 8..11 */
	/* prmt selectors 0,4,1,5 from {b=0x11223344, a=0x00000f80}: bytes a0,b0,a1,b1 */
	cr_expect_eq(o[8], 0x80u | (0x44u << 8) | (0x0fu << 16) | (0x33u << 24));
	cr_expect_eq(o[9], 0x80);
	cr_expect_eq(o[10], 0xf81);
	cr_expect_eq(o[11], 0);
	cr_expect_eq(o[12], 11);
	uint32_t *z = out[1];
	cr_expect_eq(z[0], 0);
	cr_expect_eq(z[1], 32); /* clz(0) */
	cr_expect_eq(z[4], 1);  /* cnot(0) */
	cr_expect_eq(z[12], 0xffffffff); /* bfind(0) */
}

Test(int, cvt_integer_saturation)
{
	const char *body =
		"\tld.global.u32 %r3, [%rd5];\n"
		"\tcvt.sat.s8.s32 %r4, %r3;\n\tcvt.sat.u8.s32 %r5, %r3;\n"
		"\tcvt.u16.u32 %rs1, %r3;\n\tcvt.s32.s16 %r6, %rs1;\n"
		"\tcvt.s64.s32 %rd6, %r3;\n\tcvt.u64.u32 %rd7, %r3;\n"
		"\tcvt.sat.s32.s64 %r7, %rd7;\n\tcvt.u32.u64 %r8, %rd6;\n"
		"\tmul.wide.u32 %rd8, %r2, 48;\n\tadd.s64 %rd9, %rd1, %rd8;\n"
		"\tst.global.v4.u32 [%rd9], {%r4, %r5, %r6, %r7};\n"
		"\tst.global.u64 [%rd9+16], %rd6;\n\tst.global.u64 [%rd9+24], %rd7;\n"
		"\tst.global.u32 [%rd9+32], %r8;\n";
	uint32_t in[3] = { 300, (uint32_t)-300, 0x18000 };
	struct {
		uint32_t s8, u8, s16, sat32;
		uint64_t sx, zx;
		uint32_t back, pad, pad2, pad3;
	} out[3];
	cs_grid_result r = h_run_body("", body, 3, in, sizeof(in), out, sizeof(out));
	cr_assert_eq(r.outcome, CS_GRID_EXECUTED, "%s", r.diag.msg);
	cr_expect_eq((int32_t)out[0].s8, 127);
	cr_expect_eq(out[0].u8, 255);
	cr_expect_eq((int32_t)out[1].s8, -128);
	cr_expect_eq(out[1].u8, 0);
	cr_expect_eq(out[1].sx, (uint64_t)-300);
	cr_expect_eq(out[1].zx, 0xfffffed4ull);
	cr_expect_eq(out[1].sat32, 0x7fffffff); /* u64 0xfffffed4 does not fit s32 */
	cr_expect_eq(out[2].s16, 0xffff8000);  /* 0x18000 truncated to 16 bits, sign-extended */
	cr_expect_eq(out[2].back, 0x18000);
}

Test(int, select_set_pack_and_clock)
{
	const char *body =
		"\tld.global.u32 %r3, [%rd5];\n"
		"\tsetp.gt.s32 %p1, %r3, 0;\n"
		"\tselp.b32 %r4, 111, 222, %p1;\n"
		"\tselp.b32 %r5, 111, 222, !%p1;\n"
		"\tslct.u32.s32 %r6, 5, 6, %r3;\n"
		"\tset.lt.u32.s32 %r7, %r3, 0;\n"
		"\tmov.b32 %r8, {%rs1, %rs2};\n" /* rs1/rs2 are 0: pack gives 0 */
		"\tcvt.u16.u32 %rs3, %r3;\n\tmov.u16 %rs4, 0xabcd;\n"
		"\tmov.b32 %r9, {%rs3, %rs4};\n"
		"\tmov.b32 {%rs5, %rs6}, %r9;\n\tcvt.u32.u16 %r10, %rs6;\n"
		"\tmov.u64 %rd9, %clock64;\n\tmov.u64 %rd10, %clock64;\n"
		"\tsetp.gt.u64 %p2, %rd10, %rd9;\n\tselp.u32 %r11, 1, 0, %p2;\n"
		"\tmul.wide.u32 %rd6, %r2, 32;\n\tadd.s64 %rd7, %rd1, %rd6;\n"
		"\tst.global.v4.u32 [%rd7], {%r4, %r5, %r6, %r7};\n"
		"\tst.global.v4.u32 [%rd7+16], {%r8, %r9, %r10, %r11};\n";
	int32_t in[2] = { 7, -3 };
	uint32_t out[2][8];
	cs_grid_result r = h_run_body("", body, 2, in, sizeof(in), out, sizeof(out));
	cr_assert_eq(r.outcome, CS_GRID_EXECUTED, "%s", r.diag.msg);
	cr_expect_eq(out[0][0], 111);
	cr_expect_eq(out[0][1], 222);
	cr_expect_eq(out[1][0], 222);
	cr_expect_eq(out[1][1], 111);
	cr_expect_eq(out[0][2], 5);
	cr_expect_eq(out[1][2], 6);
	cr_expect_eq(out[0][3], 0);
	cr_expect_eq(out[1][3], 0xffffffffu);
	cr_expect_eq(out[0][4], 0);
	cr_expect_eq(out[0][5], 0xabcd0007u);
	cr_expect_eq(out[1][5], 0xabcdfffdu);
	cr_expect_eq(out[0][6], 0xabcd);
	cr_expect_eq(out[0][7], 1, "virtual clock advances between reads");
}

/* ---- issue 10 item 6: what nvcc emits for rotates, wide arithmetic, bit tricks ---- */

__extension__ typedef unsigned __int128 u128;

static uint32_t rotl(uint32_t x, unsigned r) { return r ? (x << r) | (x >> (32 - r)) : x; }

Test(int, shf_funnel_shifts)
{
	enum { N = 64 };
	uint32_t a[N], b[N], out[N];
	uint32_t s = 12345;
	for (int i = 0; i < N; i++) {
		s = s * 1664525u + 1013904223u;
		a[i] = s;
		b[i] = (uint32_t)i; /* shift amounts 0..63: wrap and clamp differ above 31 */
	}
	/* shf.l.wrap with a == b is a rotate left */
	h_pairs32("\tshf.l.wrap.b32 %r5, %r3, %r3, %r4;", a, b, out, N);
	for (int i = 0; i < N; i++)
		cr_expect_eq(out[i], rotl(a[i], (unsigned)i & 31), "rotl %d", i);
	/* {hi = a ^ 0xffff0000 : lo = a}: left takes the high word, right the low */
	h_pairs32("\txor.b32 %r6, %r3, -65536;\n\tshf.l.clamp.b32 %r5, %r3, %r6, %r4;", a, b, out, N);
	for (int i = 0; i < N; i++) {
		uint64_t pair = ((uint64_t)(a[i] ^ 0xffff0000u) << 32) | a[i];
		unsigned n = i > 32 ? 32 : (unsigned)i;
		cr_expect_eq(out[i], (uint32_t)((pair << n) >> 32), "shf.l.clamp %d", i);
	}
	h_pairs32("\txor.b32 %r6, %r3, -65536;\n\tshf.r.wrap.b32 %r5, %r3, %r6, %r4;", a, b, out, N);
	for (int i = 0; i < N; i++) {
		uint64_t pair = ((uint64_t)(a[i] ^ 0xffff0000u) << 32) | a[i];
		cr_expect_eq(out[i], (uint32_t)(pair >> (i & 31)), "shf.r.wrap %d", i);
	}
	h_pairs32("\txor.b32 %r6, %r3, -65536;\n\tshf.r.clamp.b32 %r5, %r3, %r6, 40;", a, b, out, N);
	for (int i = 0; i < N; i++) /* clamped to 32: the high word */
		cr_expect_eq(out[i], a[i] ^ 0xffff0000u, "shf.r.clamp by 40 %d", i);
}

/* 128-bit a + b and a - b as four 32-bit limbs (the ISA's own example of
 * add.cc / addc.cc / addc), and a 64x64 -> 128 multiply-accumulate chain. */
Test(int, carry_chains)
{
	enum { N = 32 };
	uint32_t a[N], b[N], out[N];
	uint32_t s = 99;
	for (int i = 0; i < N; i++) {
		s = s * 1664525u + 1013904223u;
		a[i] = i < 4 ? 0xffffffffu : s;
		s = s * 1664525u + 1013904223u;
		b[i] = i < 2 ? 1u : i < 4 ? 0xffffffffu : s;
	}
	/* limbs: x = {a, a, a^5, a}, y = {b, b^3, b, b}; sum's top limb and borrow chain */
	h_pairs32("\txor.b32 %r7, %r3, 5;\n\txor.b32 %r8, %r4, 3;\n"
		  "\tadd.cc.u32 %r10, %r3, %r4;\n\taddc.cc.u32 %r11, %r3, %r8;\n"
		  "\taddc.cc.u32 %r12, %r7, %r4;\n\taddc.u32 %r13, %r3, %r4;\n"
		  "\tsub.cc.u32 %r14, %r3, %r4;\n\tsubc.cc.u32 %r15, %r3, %r8;\n"
		  "\tsubc.cc.u32 %r16, %r7, %r4;\n\tsubc.u32 %r17, %r3, %r4;\n"
		  "\txor.b32 %r5, %r13, %r17;\n\txor.b32 %r5, %r5, %r12;\n\txor.b32 %r5, %r5, %r16;",
		  a, b, out, N);
	for (int i = 0; i < N; i++) {
		u128 x = ((u128)a[i] << 96) | ((u128)(a[i] ^ 5) << 64) |
				      ((u128)a[i] << 32) | a[i];
		u128 y = ((u128)b[i] << 96) | ((u128)b[i] << 64) |
				      ((u128)(b[i] ^ 3) << 32) | b[i];
		u128 sum = x + y, dif = x - y;
		uint32_t want = (uint32_t)(sum >> 96) ^ (uint32_t)(dif >> 96) ^ (uint32_t)(sum >> 64) ^
				(uint32_t)(dif >> 64);
		cr_expect_eq(out[i], want, "128-bit add/sub %d: 0x%x want 0x%x", i, out[i], want);
	}
	/* acc128 = a*b + (a<<32|b) via mad.lo.cc / madc.hi (64-bit limbs from 32-bit inputs) */
	h_pairs32("\tcvt.u64.u32 %rd20, %r3;\n\tcvt.u64.u32 %rd21, %r4;\n"
		  "\tshl.b64 %rd22, %rd20, 40;\n\tor.b64 %rd22, %rd22, %rd21;\n" /* a' */
		  "\tshl.b64 %rd23, %rd21, 33;\n\tor.b64 %rd23, %rd23, %rd20;\n" /* b' */
		  "\tmov.b64 %rd24, -1;\n"                                      /* c lo */
		  "\tmad.lo.cc.u64 %rd25, %rd22, %rd23, %rd24;\n"
		  "\tmadc.hi.u64 %rd26, %rd22, %rd23, %rd20;\n"
		  "\tcvt.u32.u64 %r5, %rd26;\n\tcvt.u32.u64 %r6, %rd25;\n\txor.b32 %r5, %r5, %r6;",
		  a, b, out, N);
	for (int i = 0; i < N; i++) {
		uint64_t ap = ((uint64_t)a[i] << 40) | b[i], bp = ((uint64_t)b[i] << 33) | a[i];
		u128 acc = (u128)ap * bp + UINT64_MAX +
					((u128)a[i] << 64);
		uint32_t want = (uint32_t)(acc >> 64) ^ (uint32_t)acc;
		cr_expect_eq(out[i], want, "128-bit mad chain %d", i);
	}
}

Test(int, mul24_mad24)
{
	static const uint32_t a[] = { 3, 0x00ffffff, 0x01000005, 0x00800000, 0xfffffffe, 1234567 };
	static const uint32_t b[] = { 5, 0x00ffffff, 7, 0x00800000, 3, 7654321 };
	enum { N = sizeof(a) / sizeof(a[0]) };
	uint32_t out[N];
	h_pairs32("\tmul24.lo.u32 %r5, %r3, %r4;", a, b, out, N);
	for (int i = 0; i < N; i++)
		cr_expect_eq(out[i], (uint32_t)((uint64_t)(a[i] & 0xffffff) * (b[i] & 0xffffff)),
			     "mul24.lo.u32 %d", i);
	h_pairs32("\tmul24.hi.s32 %r5, %r3, %r4;", a, b, out, N);
	for (int i = 0; i < N; i++) {
		int64_t sa = (int64_t)((int32_t)(a[i] << 8) >> 8), sb = (int64_t)((int32_t)(b[i] << 8) >> 8);
		cr_expect_eq(out[i], (uint32_t)((sa * sb) >> 16), "mul24.hi.s32 %d", i);
	}
	h_pairs32("\tmad24.lo.s32 %r5, %r3, %r4, 100;", a, b, out, N);
	for (int i = 0; i < N; i++) {
		int64_t sa = (int64_t)((int32_t)(a[i] << 8) >> 8), sb = (int64_t)((int32_t)(b[i] << 8) >> 8);
		cr_expect_eq(out[i], (uint32_t)(sa * sb + 100), "mad24.lo.s32 %d", i);
	}
}

Test(int, mov_pred_immediate)
{
	static const uint32_t a[] = { 1, 2, 3, 4 }, b[] = { 0, 0, 0, 0 };
	uint32_t out[4];
	/* any nonzero integer is true: nvcc writes -1 (cub's merge sort) */
	h_pairs32("\tmov.pred %p1, 1;\n\tmov.pred %p2, 0;\n\tselp.u32 %r5, 10, 20, %p1;\n"
		  "\tselp.u32 %r6, 1, 2, %p2;\n\tadd.u32 %r5, %r5, %r6;\n"
		  "\tmov.pred %p3, -1;\n\tselp.u32 %r6, 100, 200, %p3;\n\tadd.u32 %r5, %r5, %r6;",
		  a, b, out, 4);
	for (int i = 0; i < 4; i++)
		cr_expect_eq(out[i], 112);
}

/* bmsk and szext (cub::BlockRadixSort's digit masks): each mode at the
 * edges the PTX ISA's semantics spell out. */
Test(int, bmsk_and_szext_modes)
{
	static const struct {
		const char *op;
		uint32_t a, b, want;
	} cases[] = {
		{ "bmsk.wrap.b32", 1, 2, 0x6 },          { "bmsk.wrap.b32", 0, 32, 0 },
		{ "bmsk.clamp.b32", 0, 32, 0xffffffffu }, { "bmsk.wrap.b32", 28, 8, 0xf0000000u },
		{ "bmsk.clamp.b32", 40, 3, 0 },          { "bmsk.wrap.b32", 40, 3, 0x700 },
		{ "bmsk.wrap.b32", 4, 0, 0 },            { "bmsk.clamp.b32", 8, 8, 0xff00 },
		{ "szext.wrap.s32", 0xff, 8, 0xffffffffu }, { "szext.wrap.u32", 0xff, 8, 0xff },
		{ "szext.wrap.s32", 0x7f, 8, 0x7f },     { "szext.clamp.s32", 0x80000000u, 40, 0x80000000u },
		{ "szext.wrap.u32", 0xffffffffu, 0, 0 }, { "szext.wrap.s32", 0x12345, 32, 0 },
		{ "szext.wrap.s32", 0x5, 3, 0xfffffffdu }, { "szext.clamp.u32", 0xabcd, 4, 0xd },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char ops[64];
		snprintf(ops, sizeof(ops), "%s %%r5, %%r3, %%r4;", cases[i].op);
		uint32_t got;
		h_pairs32(ops, &cases[i].a, &cases[i].b, &got, 1);
		cr_expect_eq(got, cases[i].want, "%s %u, %u: 0x%x, want 0x%x", cases[i].op, cases[i].a,
			     cases[i].b, got, cases[i].want);
	}
}

static int cmp_u32(const void *x, const void *y)
{
	uint32_t a = *(const uint32_t *)x, b = *(const uint32_t *)y;
	return a < b ? -1 : a > b;
}

/* fixtures/kernels/cubblock.cu against CPU references on each arch:
 * cub::BlockRadixSort of 256 keys, BlockHistogram of 256 bytes into 256 bins,
 * BlockLoad (transpose) and BlockStore (warp transpose) of 256 ints. */
Test(int, cub_block_sort_histogram_load_store)
{
	const char *archs[] = { "sm_80", "sm_90", "sm_100" };
	enum { N = 256 };
	uint32_t keys[N], sorted[N], bins[256] = { 0 };
	uint8_t bytes[N];
	int32_t ints[N];
	uint32_t seed = 99;
	for (int i = 0; i < N; i++) {
		keys[i] = (uint32_t)(h_frand(&seed) * 2147483647.0f) ^ (uint32_t)i << 20;
		bytes[i] = (uint8_t)(h_frand(&seed) * 40.0f + 100.0f);
		ints[i] = (int32_t)(h_frand(&seed) * 1000.0f);
		bins[bytes[i]]++;
	}
	memcpy(sorted, keys, sizeof(sorted));
	qsort(sorted, N, sizeof(sorted[0]), cmp_u32);
	for (size_t a = 0; a < 3; a++) {
		cs_ptx_program *p = h_load_fixture("cubblock", archs[a]);
		h_env e;
		h_init(&e);
		uint64_t vk = h_put(&e, keys, sizeof(keys)), vb = h_put(&e, bytes, sizeof(bytes));
		uint64_t vi = h_put(&e, ints, sizeof(ints)), vout = h_alloc(&e, N * 4);
		const char *names[] = { "radix_sort_block", "histogram_block", "load_store_transpose" };
		uint64_t ins[] = { vk, vb, vi };
		for (int k = 0; k < 3; k++) {
			cs_grid_result r = h_run(&e, p, names[k], (uint32_t[]){ 1, 1, 1 },
						 (uint32_t[]){ 64, 1, 1 }, 0, (uint64_t[]){ ins[k], vout }, 2);
			cr_assert_eq(r.outcome, CS_GRID_EXECUTED, "%s %s: %s", archs[a], names[k], r.diag.msg);
			uint32_t got[N];
			h_read(&e, vout, got, sizeof(got));
			for (int i = 0; i < N; i++) {
				uint32_t want = k == 0 ? sorted[i] : k == 1 ? bins[i] : (uint32_t)(ints[i] * 2 + 1);
				cr_expect_eq(got[i], want, "%s %s [%d]: %u, want %u", archs[a], names[k], i,
					     got[i], want);
			}
		}
		h_fini(&e);
		cs_ptx_program_free(p);
	}
}

typedef struct {
	const char *op; /* reads %r3 = a, %r4 = b, writes %r5 */
	uint32_t a, b, want;
} op_case;

static void run_op_cases(const op_case *cases, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		uint32_t got;
		h_pairs32(cases[i].op, &cases[i].a, &cases[i].b, &got, 1);
		cr_expect_eq(got, cases[i].want, "%s with a 0x%x, b 0x%x: 0x%x, want 0x%x", cases[i].op,
			     cases[i].a, cases[i].b, got, cases[i].want);
	}
}

/* fns at the edges the PTX ISA's semantics spell out (its own examples
 * first); a base above 31 is undefined there and gives 0xffffffff here. */
Test(int, fns_edges)
{
	static const op_case cases[] = {
		{ "fns.b32 %r5, %r3, %r4, 1;", 0xaaaaaaaau, 3, 3 },
		{ "fns.b32 %r5, %r3, %r4, -1;", 0xaaaaaaaau, 3, 3 },
		{ "fns.b32 %r5, %r3, %r4, 1;", 0xaaaaaaaau, 2, 3 },
		{ "fns.b32 %r5, %r3, %r4, -1;", 0xaaaaaaaau, 2, 1 },
		{ "fns.b32 %r5, %r3, %r4, 0;", 0xaaaaaaaau, 3, 3 },
		{ "fns.b32 %r5, %r3, %r4, 0;", 0xaaaaaaaau, 2, 0xffffffffu },
		{ "fns.b32 %r5, %r3, %r4, 2;", 0xaaaaaaaau, 2, 5 },
		{ "fns.b32 %r5, %r3, %r4, 16;", 0xaaaaaaaau, 0, 31 },
		{ "fns.b32 %r5, %r3, %r4, 17;", 0xaaaaaaaau, 0, 0xffffffffu },
		{ "fns.b32 %r5, %r3, %r4, -16;", 0xaaaaaaaau, 31, 1 },
		{ "fns.b32 %r5, %r3, %r4, -17;", 0xaaaaaaaau, 31, 0xffffffffu },
		{ "fns.b32 %r5, %r3, %r4, 1;", 0x80000000u, 31, 31 },
		{ "fns.b32 %r5, %r3, %r4, -1;", 1, 0, 0 },
		{ "fns.b32 %r5, %r3, %r4, 1;", 0, 0, 0xffffffffu },
		{ "fns.b32 %r5, %r3, %r4, -2147483648;", 0xffffffffu, 31, 0xffffffffu },
		{ "fns.b32 %r5, %r3, %r4, 2147483647;", 0xffffffffu, 0, 0xffffffffu },
		{ "fns.b32 %r5, %r3, %r4, 32;", 0xffffffffu, 0, 31 },
		{ "fns.b32 %r5, %r3, %r4, 1;", 0xffffffffu, 32, 0xffffffffu },
		{ "fns.b32 %r5, %r3, %r4, 0;", 0xffffffffu, 0xffffffffu, 0xffffffffu },
		{ "fns.b32 %r5, 0xf0f0, %r4, %r3;", 2, 5, 6 },
		{ "fns.b32 %r5, 0xf0f0, %r4, %r3;", 5, 5, 13 },
	};
	run_op_cases(cases, sizeof(cases) / sizeof(cases[0]));
}

/* lop3 with each of the 256 truth tables on a few operand triples, against
 * a bit-by-bit table lookup; and the identity that defines immLut: the
 * function applied to 0xF0, 0xCC, 0xAA is the table itself. */
Test(int, lop3_every_immediate)
{
	enum { T = 5 };
	static const uint32_t in[T][4] = {
		{ 0xf0, 0xcc, 0xaa, 0 },
		{ 0xdeadbeefu, 0x12345678u, 0xcafef00du, 0 },
		{ 0xffffffffu, 0, 0x0f0f0f0fu, 0 },
		{ 0x80000001u, 0x7ffffffeu, 0xaaaaaaaau, 0 },
		{ 0x13579bdfu, 0x2468ace0u, 0xfedcba98u, 0 },
	};
	char *body = malloc(256 * 96 + 256);
	size_t at = (size_t)sprintf(body, "\tmul.wide.u32 %%rd6, %%r2, 16;\n\tadd.s64 %%rd7, %%rd2, %%rd6;\n"
				    "\tld.global.v4.u32 {%%r3, %%r4, %%r6, %%r7}, [%%rd7];\n"
				    "\tmul.wide.u32 %%rd8, %%r2, 1024;\n\tadd.s64 %%rd9, %%rd1, %%rd8;\n");
	for (int lut = 0; lut < 256; lut++)
		at += (size_t)sprintf(body + at, "\tlop3.b32 %%r5, %%r3, %%r4, %%r6, %d;\n"
				      "\tst.global.u32 [%%rd9+%d], %%r5;\n", lut, lut * 4);
	static uint32_t out[T][256];
	cs_grid_result r = h_run_body("", body, T, in, sizeof(in), out, sizeof(out));
	free(body);
	cr_assert_eq(r.outcome, CS_GRID_EXECUTED, "%s", r.diag.msg);
	for (int lut = 0; lut < 256; lut++) {
		cr_expect_eq(out[0][lut] & 0xff, (uint32_t)lut, "lop3 0xf0, 0xcc, 0xaa, %d: 0x%x", lut,
			     out[0][lut]);
		for (int t = 0; t < T; t++) {
			uint32_t want = 0;
			for (int i = 0; i < 32; i++) {
				unsigned idx = ((in[t][0] >> i) & 1) << 2 | ((in[t][1] >> i) & 1) << 1 |
					       ((in[t][2] >> i) & 1);
				want |= (uint32_t)((lut >> idx) & 1) << i;
			}
			cr_expect_eq(out[t][lut], want, "lop3 0x%x, 0x%x, 0x%x, %d: 0x%x, want 0x%x",
				     in[t][0], in[t][1], in[t][2], lut, out[t][lut], want);
		}
	}
}

/* dp4a and dp2a in every sign combination at the byte and halfword edges,
 * with c wrapping. */
Test(int, dp4a_dp2a_signs)
{
	static const op_case cases[] = {
		{ "dp4a.u32.u32 %r5, %r3, %r4, 0;", 0xffffffffu, 0xffffffffu, 4u * 255 * 255 },
		{ "dp4a.s32.s32 %r5, %r3, %r4, 0;", 0xffffffffu, 0xffffffffu, 4 },
		{ "dp4a.s32.u32 %r5, %r3, %r4, 0;", 0xffffffffu, 0xffffffffu, (uint32_t)(-4 * 255) },
		{ "dp4a.u32.s32 %r5, %r3, %r4, 0;", 0xffffffffu, 0xffffffffu, (uint32_t)(-4 * 255) },
		{ "dp4a.s32.s32 %r5, %r3, %r4, 0;", 0x80808080u, 0x80808080u, 4 * 16384 },
		{ "dp4a.s32.s32 %r5, %r3, %r4, 0;", 0x80808080u, 0x7f7f7f7fu, (uint32_t)(-4 * 128 * 127) },
		{ "dp4a.u32.s32 %r5, %r3, %r4, 0;", 0x80808080u, 0x7f7f7f7fu, 4 * 128 * 127 },
		{ "dp4a.s32.s32 %r5, %r3, %r4, 10;", 0x04030201u, 0xfd02ff01u, 10 + 1 - 2 + 6 - 12 },
		{ "dp4a.u32.u32 %r5, %r3, %r4, -1;", 0x00000001u, 0x00000001u, 0 },
		{ "dp4a.s32.s32 %r5, %r3, %r4, 2147483647;", 1, 1, 0x80000000u },
		{ "dp2a.lo.u32.u32 %r5, %r3, %r4, 0;", 0xffffffffu, 0xffffffffu, 2u * 65535 * 255 },
		{ "dp2a.hi.u32.u32 %r5, %r3, %r4, 0;", 0x00020001u, 0x04030201u, 1 * 3 + 2 * 4 },
		{ "dp2a.lo.u32.u32 %r5, %r3, %r4, 0;", 0x00020001u, 0x04030201u, 1 * 1 + 2 * 2 },
		{ "dp2a.lo.s32.s32 %r5, %r3, %r4, 0;", 0x80008000u, 0x00008080u, 2 * 32768 * 128 },
		{ "dp2a.hi.s32.s32 %r5, %r3, %r4, 0;", 0xffff8000u, 0x80ff0000u, (uint32_t)(32768 + 128) },
		{ "dp2a.lo.s32.u32 %r5, %r3, %r4, 0;", 0xffffffffu, 0x0000ffffu, (uint32_t)(-2 * 255) },
		{ "dp2a.hi.u32.s32 %r5, %r3, %r4, 0;", 0xffffffffu, 0xffff0000u, (uint32_t)(-2 * 65535) },
		{ "dp2a.lo.u32.s32 %r5, %r3, %r4, -7;", 0x7fff0001u, 0x0000807fu, (uint32_t)(127 - 128 * 32767 - 7) },
	};
	run_op_cases(cases, sizeof(cases) / sizeof(cases[0]));
}

/* cvt.pack.sat in each converted type, saturating both ways, c below 16 bits. */
Test(int, cvt_pack_sat_forms)
{
	static const op_case cases[] = {
		{ "cvt.pack.sat.u16.s32 %r5, %r3, %r4;", 70000, (uint32_t)-5, 0xffff0000u },
		{ "cvt.pack.sat.s16.s32 %r5, %r3, %r4;", (uint32_t)-40000, 40000, 0x80007fffu },
		{ "cvt.pack.sat.s16.s32 %r5, %r3, %r4;", (uint32_t)-2, 3, 0xfffe0003u },
		{ "cvt.pack.sat.u8.s32.b32 %r5, %r3, %r4, 0x12345678;", 300, 7, 0x5678ff07u },
		{ "cvt.pack.sat.s8.s32.b32 %r5, %r3, %r4, 0xabcd;", (uint32_t)-129, 128, 0xabcd807fu },
		{ "cvt.pack.sat.s8.s32.b32 %r5, %r3, %r4, 0;", (uint32_t)-1, (uint32_t)-128, 0xff80u },
		{ "cvt.pack.sat.u4.s32.b32 %r5, %r3, %r4, 0xfffffff;", 16, (uint32_t)-1, 0xfffffff0u },
		{ "cvt.pack.sat.s4.s32.b32 %r5, %r3, %r4, 0;", 8, (uint32_t)-9, 0x78 },
		{ "cvt.pack.sat.s4.s32.b32 %r5, %r3, %r4, 1;", (uint32_t)-3, 5, 0x1d5 },
		{ "cvt.pack.sat.u2.s32.b32 %r5, %r3, %r4, 0x3;", 2, 9, 0x3b },
		{ "cvt.pack.sat.s2.s32.b32 %r5, %r3, %r4, 0x40000000;", (uint32_t)-5, 5, 0x9 },
		{ "cvt.pack.sat.s2.s32.b32 %r5, %r3, %r4, 0;", 0x80000000u, 0x7fffffffu, 0x9 },
	};
	run_op_cases(cases, sizeof(cases) / sizeof(cases[0]));
}

/* The cluster registers on sm_90 for a launch without clusters: each CTA is
 * rank 0 of an implicit 1x1x1 cluster whose id is the CTA's id. */
Test(int, cluster_registers_of_an_implicit_cluster)
{
	const char *body =
		"\tmov.u32 %r10, %ctaid.x;\n\tmov.u32 %r11, %ctaid.y;\n\tmov.u32 %r12, %nctaid.x;\n"
		"\tmad.lo.u32 %r13, %r11, %r12, %r10;\n\tmul.wide.u32 %rd6, %r13, 64;\n"
		"\tadd.s64 %rd7, %rd1, %rd6;\n"
		"\tmov.u32 %r20, %cluster_ctarank;\n\tmov.u32 %r21, %cluster_nctarank;\n"
		"\tmov.u32 %r22, %cluster_ctaid.x;\n\tmov.u32 %r23, %cluster_ctaid.z;\n"
		"\tst.global.v4.u32 [%rd7], {%r20, %r21, %r22, %r23};\n"
		"\tmov.u32 %r20, %cluster_nctaid.x;\n\tmov.u32 %r21, %cluster_nctaid.y;\n"
		"\tmov.u32 %r22, %cluster_nctaid.z;\n\tmov.u32 %r23, %clusterid.x;\n"
		"\tst.global.v4.u32 [%rd7+16], {%r20, %r21, %r22, %r23};\n"
		"\tmov.u32 %r20, %clusterid.y;\n\tmov.u32 %r21, %clusterid.z;\n"
		"\tmov.u32 %r22, %nclusterid.x;\n\tmov.u32 %r23, %nclusterid.y;\n"
		"\tst.global.v4.u32 [%rd7+32], {%r20, %r21, %r22, %r23};\n"
		"\tmov.u32 %r20, %nclusterid.z;\n\tmov.pred %p1, %is_explicit_cluster;\n"
		"\tselp.u32 %r21, 1, 0, %p1;\n\tmov.pred %p2, 1;\n\tmov.pred %p2, %is_explicit_cluster;\n"
		"\tselp.u32 %r22, 7, 9, %p2;\n"
		"\tst.global.v4.u32 [%rd7+48], {%r20, %r21, %r22, %r20};\n";
	cs_ptx_program *p = h_parse_kernel("", body);
	h_env e;
	h_init(&e);
	uint64_t out = h_alloc(&e, 6 * 64);
	cs_grid_result r = h_run(&e, p, "k", (uint32_t[]){ 2, 3, 1 }, (uint32_t[]){ 32, 1, 1 }, 0,
				 (uint64_t[]){ out, 0, 0 }, 3);
	cr_assert_eq(r.outcome, CS_GRID_EXECUTED, "%s", r.diag.msg);
	uint32_t got[6][16];
	h_read(&e, out, got, sizeof(got));
	for (uint32_t c = 0; c < 6; c++) {
		uint32_t x = c % 2, y = c / 2;
		uint32_t want[16] = { 0, 1, 0, 0, 1, 1, 1, x, y, 0, 2, 3, 1, 0, 9, 1 };
		for (int i = 0; i < 16; i++)
			cr_expect_eq(got[c][i], want[i], "CTA (%u,%u) word %d: %u, want %u", x, y, i,
				     got[c][i], want[i]);
	}
	h_fini(&e);
	cs_ptx_program_free(p);
}

/* The cluster registers and instructions need sm_90; a predicate register is
 * read by mov.pred only; the cluster barrier, lop3 with a predicate result and
 * .shiftamt on anything but bfind are refused by name. */
Test(int, constructs_refused_where_they_do_not_apply)
{
	static const struct {
		const char *target, *ins, *why;
	} cases[] = {
		{ "sm_80", "mov.u32 %r5, %cluster_ctarank;", "'%cluster_ctarank' requires sm_90" },
		{ "sm_80", "mov.u32 %r5, %clusterid.x;", "'%clusterid.x' requires sm_90" },
		{ "sm_80", "getctarank.shared::cluster.u32 %r5, %r3;", "getctarank requires sm_90" },
		{ "sm_80", "mapa.u64 %rd9, %rd5, 0;", "mapa requires sm_90" },
		{ "sm_90", "mov.u32 %r5, %is_explicit_cluster;", "predicate special register" },
		{ "sm_90", "barrier.cluster.arrive;", "barrier.cluster" },
		{ "sm_90", "lop3.or.b32 %r5|%p1, %r3, %r4, %r3, 0x96, %p2;", "predicate result" },
		{ "sm_90", "popc.shiftamt.b32 %r5, %r3;", ".shiftamt on 'popc'" },
		{ "sm_80", "griddepcontrol.wait;", "griddepcontrol requires sm_90" },
		{ "sm_90", "griddepcontrol;", "one of .wait and .launch_dependents" },
		{ "sm_90", "griddepcontrol.wait.launch_dependents;", "one of .wait and .launch_dependents" },
		{ "sm_90", "griddepcontrol.wait %r3;", "griddepcontrol" },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char src[1024];
		snprintf(src, sizeof(src),
			 ".version 8.0\n.target %s\n.address_size 64\n"
			 ".visible .entry k()\n{\n\t.reg .pred %%p<4>;\n\t.reg .b32 %%r<8>;\n"
			 "\t.reg .b64 %%rd<10>;\n\t%s\n\tret;\n}\n",
			 cases[i].target, cases[i].ins);
		cs_diag d;
		cs_ptx_program *p = h_parse(src, &d);
		cr_assert(p, "%s", cases[i].ins);
		const cs_diag *why = cs_ptx_entry_refusal(p, 0);
		cr_expect(why && strstr(why->msg, cases[i].why), "%s on %s: %s", cases[i].ins,
			  cases[i].target, why ? why->msg : "runs");
		cs_ptx_program_free(p);
	}
}

/* griddepcontrol on sm_90: the grids before this one have completed when it
 * runs, so .wait returns at once and .launch_dependents starts nothing early;
 * the kernel around them computes as without them. */
Test(int, griddepcontrol_runs_as_the_grid_around_it)
{
	const char *body = "\tgriddepcontrol.launch_dependents;\n"
			   "\tmul.wide.u32 %rd6, %r2, 4;\n\tadd.s64 %rd7, %rd2, %rd6;\n"
			   "\tgriddepcontrol.wait;\n"
			   "\tld.global.u32 %r5, [%rd7];\n\tmul.lo.u32 %r5, %r5, 3;\n"
			   "\tadd.s64 %rd8, %rd1, %rd6;\n\tst.global.u32 [%rd8], %r5;\n";
	uint32_t in[64], out[64];
	for (uint32_t t = 0; t < 64; t++)
		in[t] = t * 7 + 1;
	cs_grid_result r = h_run_body("", body, 64, in, sizeof(in), out, sizeof(out));
	cr_assert_eq(r.outcome, CS_GRID_EXECUTED, "%s", r.diag.msg);
	for (uint32_t t = 0; t < 64; t++)
		cr_expect_eq(out[t], in[t] * 3, "thread %u: %u, want %u", t, out[t], in[t] * 3);
}

/* Runs body on 32 threads, each storing 4 words at out + 16 * tid, and
 * checks them against want(tid). */
static void expect_quads(const char *body, void (*want)(uint32_t t, uint32_t w[4]))
{
	uint32_t out[32][4];
	cs_grid_result r = h_run_body("", body, 32, NULL, 0, out, sizeof(out));
	cr_assert_eq(r.outcome, CS_GRID_EXECUTED, "%s", r.diag.msg);
	for (uint32_t t = 0; t < 32; t++) {
		uint32_t w[4];
		want(t, w);
		for (int i = 0; i < 4; i++)
			cr_expect_eq(out[t][i], w[i], "thread %u word %d: %u, want %u", t, i, out[t][i],
				     w[i]);
	}
}

static void rank_mapa_want(uint32_t t, uint32_t w[4])
{
	w[0] = w[1] = w[2] = 0;
	w[3] = t + 100;
}

static void shared_spaces_want(uint32_t t, uint32_t w[4])
{
	w[0] = t ? t : 32;
	w[1] = 32;
	w[2] = 1;
	w[3] = 0;
}

/* getctarank and mapa in the implicit cluster: the CTA's own shared memory
 * is rank 0 and mapa to rank 0 is the address itself; another rank, or an
 * address outside the CTA's shared memory, stops the grid, naming it. */
Test(int, getctarank_and_mapa_in_an_implicit_cluster)
{
	const char *body =
		"\t.shared .align 4 .b32 buf[32];\n"
		"\tmov.u32 %r10, buf;\n\tshl.b32 %r11, %r2, 2;\n\tadd.s32 %r12, %r10, %r11;\n"
		"\tadd.s32 %r13, %r2, 100;\n\tst.shared.u32 [%r12], %r13;\n\tbar.sync 0;\n"
		"\tgetctarank.shared::cluster.u32 %r20, %r12;\n"
		"\tcvta.shared.u64 %rd10, buf;\n\tgetctarank.u64 %r21, %rd10;\n"
		"\tmapa.u64 %rd11, %rd10, 0;\n\tsub.s64 %rd12, %rd11, %rd10;\n"
		"\tcvt.u32.u64 %r22, %rd12;\n"
		"\tmapa.shared::cluster.u32 %r14, %r12, 0;\n\tld.shared.u32 %r23, [%r14];\n"
		"\tmul.wide.u32 %rd6, %r2, 16;\n\tadd.s64 %rd7, %rd1, %rd6;\n"
		"\tst.global.v4.u32 [%rd7], {%r20, %r21, %r22, %r23};\n";
	expect_quads(body, rank_mapa_want);
	cs_grid_result r;
	static const struct {
		const char *body, *why;
	} stops[] = {
		{ "\tcvta.shared.u64 %rd10, buf;\n\tmapa.u64 %rd11, %rd10, %r2;\n",
		  "lane 1: mapa to CTA rank 1; the cluster has 1 CTA" },
		{ "\tgetctarank.u64 %r20, %rd1;\n", "getctarank of generic address" },
		{ "\tmov.u32 %r10, 128;\n\tgetctarank.shared::cluster.u32 %r20, %r10;\n",
		  "getctarank of shared::cluster address 0x80, which is not in the shared memory" },
	};
	for (size_t i = 0; i < sizeof(stops) / sizeof(stops[0]); i++) {
		char b[512];
		snprintf(b, sizeof(b), "\t.shared .align 4 .b32 buf[32];\n%s", stops[i].body);
		uint32_t o[32];
		r = h_run_body("", b, 32, NULL, 0, o, sizeof(o));
		cr_expect_eq(r.outcome, CS_GRID_ERROR, "%s", stops[i].body);
		cr_expect(strstr(r.diag.msg, stops[i].why), "%s: %s", stops[i].body, r.diag.msg);
	}
}

/* prmt in each mode with each selector c[1:0] (higher bits of c ignored),
 * against the PTX ISA's table, written as it is there: bytes d.b3 d.b2
 * d.b1 d.b0 taken from {b, a}. */
Test(int, prmt_every_mode_and_selector)
{
	static const struct {
		const char *mode;
		const char *rows[4];
	} modes[] = {
		{ ".f4e", { "3210", "4321", "5432", "6543" } },
		{ ".b4e", { "5670", "6701", "7012", "0123" } },
		{ ".rc8", { "0000", "1111", "2222", "3333" } },
		{ ".ecl", { "3210", "3211", "3222", "3333" } },
		{ ".ecr", { "0000", "1110", "2210", "3210" } },
		{ ".rc16", { "1010", "3232", "1010", "3232" } },
	};
	const uint32_t a = 0x44332211u, b = 0x88776655u;
	const uint8_t bytes[8] = { 0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88 };
	for (size_t k = 0; k < sizeof(modes) / sizeof(modes[0]); k++)
		for (uint32_t sel = 0; sel < 4; sel++) {
			char op[96];
			snprintf(op, sizeof(op), "prmt.b32%s %%r5, %%r3, %%r4, %u;", modes[k].mode,
				 sel | 0xfff0u);
			uint32_t want = 0, got;
			for (int i = 0; i < 4; i++)
				want |= (uint32_t)bytes[modes[k].rows[sel][3 - i] - '0'] << (8 * i);
			h_pairs32(op, &a, &b, &got, 1);
			cr_expect_eq(got, want, "%s: 0x%08x, want 0x%08x", op, got, want);
		}
	/* the generic form: nibble i picks byte i, its bit 3 replicating the sign */
	static const op_case generic[] = {
		{ "prmt.b32 %r5, %r3, %r4, 0x7654;", 0x04030201u, 0x08070605u, 0x08070605u },
		{ "prmt.b32 %r5, %r3, %r4, 0x0123;", 0x04030201u, 0x08070605u, 0x01020304u },
		{ "prmt.b32 %r5, %r3, %r4, 0x8888;", 0x000000ffu, 0, 0xffffffffu },
		{ "prmt.b32 %r5, %r3, %r4, 0xc9a8;", 0x7f80ff01u, 0x80000000u, 0x00ffff00u },
		{ "prmt.b32 %r5, %r3, %r4, 0xf0b3;", 0x7f80ff01u, 0x80000000u, 0xff01007fu },
		{ "prmt.b32 %r5, %r3, %r4, 0xffff7654;", 0x04030201u, 0x08070605u, 0x08070605u },
	};
	run_op_cases(generic, sizeof(generic) / sizeof(generic[0]));
}

/* bfind in each type with and without .shiftamt, brev at both widths. */
Test(int, bfind_shiftamt_and_brev_edges)
{
	static const op_case cases[] = {
		{ "bfind.u32 %r5, %r3;", 1, 0, 0 },
		{ "bfind.u32 %r5, %r3;", 0x80000000u, 0, 31 },
		{ "bfind.shiftamt.u32 %r5, %r3;", 1, 0, 31 },
		{ "bfind.shiftamt.u32 %r5, %r3;", 0x80000000u, 0, 0 },
		{ "bfind.shiftamt.u32 %r5, %r3;", 0, 0, 0xffffffffu },
		{ "bfind.s32 %r5, %r3;", 0xffffffffu, 0, 0xffffffffu },
		{ "bfind.s32 %r5, %r3;", 0x80000000u, 0, 30 },
		{ "bfind.s32 %r5, %r3;", 0xfffffff0u, 0, 3 },
		{ "bfind.shiftamt.s32 %r5, %r3;", 0xfffffff0u, 0, 28 },
		{ "bfind.shiftamt.s32 %r5, %r3;", 0xffffffffu, 0, 0xffffffffu },
		{ "bfind.s32 %r5, %r3;", 0x7fffffffu, 0, 30 },
		{ "brev.b32 %r5, %r3;", 0x00000001u, 0, 0x80000000u },
		{ "brev.b32 %r5, %r3;", 0x12345678u, 0, 0x1e6a2c48u },
	};
	run_op_cases(cases, sizeof(cases) / sizeof(cases[0]));
	static const struct {
		const char *op;
		uint64_t a, want;
	} wide[] = {
		{ "bfind.u64 %r5, %rd8;", 1ull << 63, 63 },
		{ "bfind.shiftamt.u64 %r5, %rd8;", 1, 63 },
		{ "bfind.u64 %r5, %rd8;", 0, 0xffffffffu },
		{ "bfind.s64 %r5, %rd8;", 0x8000000000000000ull, 62 },
		{ "bfind.s64 %r5, %rd8;", 0xffffffffffffffffull, 0xffffffffu },
		{ "bfind.shiftamt.s64 %r5, %rd8;", 0xffffffff00000000ull, 32 },
		{ "brev.b64 %rd10, %rd8;", 1, 1ull << 63 },
		{ "brev.b64 %rd10, %rd8;", 0x0123456789abcdefull, 0xf7b3d591e6a2c480ull },
	};
	for (size_t i = 0; i < sizeof(wide) / sizeof(wide[0]); i++) {
		char ops[128];
		bool to32 = wide[i].op[0] == 'b' && wide[i].op[1] == 'f';
		snprintf(ops, sizeof(ops), "%s%s", wide[i].op, to32 ? "\n\tcvt.u64.u32 %rd10, %r5;" : "");
		uint64_t zero = 0, got;
		h_pairs64(ops, &wide[i].a, &zero, &got, 1);
		cr_expect_eq(got, wide[i].want, "%s 0x%llx: 0x%llx, want 0x%llx", wide[i].op,
			     (unsigned long long)wide[i].a, (unsigned long long)got,
			     (unsigned long long)wide[i].want);
	}
}

/* .shared::cta and .shared::cluster name the CTA's shared memory in ld, st,
 * atom and cvta (the CTA's own, in its implicit cluster). */
Test(int, shared_cta_and_cluster_spaces)
{
	const char *body =
		"\t.shared .align 4 .b32 buf[32];\n"
		"\tmov.u32 %r10, buf;\n\tshl.b32 %r11, %r2, 2;\n\tadd.s32 %r12, %r10, %r11;\n"
		"\tst.shared::cta.u32 [%r12], %r2;\n\tbar.sync 0;\n"
		"\tatom.shared::cta.add.u32 %r13, [buf], 1;\n\tbar.sync 0;\n"
		"\tld.shared::cluster.u32 %r20, [%r12];\n\tld.shared::cta.u32 %r21, [buf];\n"
		"\tcvta.shared::cta.u64 %rd10, buf;\n\tcvta.shared::cluster.u64 %rd11, buf;\n"
		"\tld.u32 %r22, [%rd10+4];\n\tcvta.to.shared::cluster.u64 %rd12, %rd11;\n"
		"\tcvt.u32.u64 %r23, %rd12;\n\tsub.s32 %r23, %r23, %r10;\n"
		"\tmul.wide.u32 %rd6, %r2, 16;\n\tadd.s64 %rd7, %rd1, %rd6;\n"
		"\tst.global.v4.u32 [%rd7], {%r20, %r21, %r22, %r23};\n";
	expect_quads(body, shared_spaces_want);
}

/* The second pass over each arch: warps in a random order per barrier round
 * and the race detector stopping at the first shared-memory race, so that a
 * result right only in warp order, or a race, fails. */
static void cub_under_random_order(h_env *e, size_t seed)
{
	e->schedule = CS_PTX_SCHEDULE_RANDOM;
	e->schedule_seed = seed;
	e->races = CS_PTX_RACES_ERROR;
}

/* fixtures/kernels/cubload.cu: cub::BlockLoad / BlockStore with every
 * algorithm on a partial tile (items past the valid ones load as -1 and are
 * not stored) and the full vectorized tile, on each arch. */
Test(int, cub_load_store_every_algorithm)
{
	const char *archs[] = { "sm_80", "sm_90", "sm_100" };
	const char *partial[] = { "load_store_direct", "load_store_striped", "load_store_vectorize",
				  "load_store_transpose_all", "load_store_warp_transpose",
				  "load_store_timesliced" };
	enum { N = 256, VALID = 201, UNTOUCHED = 0x5a5a5a5a };
	int32_t in[N], fill[N];
	for (int i = 0; i < N; i++) {
		in[i] = i * 3 - 100;
		fill[i] = UNTOUCHED;
	}
	for (size_t run = 0; run < 6; run++) {
		size_t a = run % 3;
		cs_ptx_program *p = h_load_fixture("cubload", archs[a]);
		h_env e;
		h_init(&e);
		if (run >= 3)
			cub_under_random_order(&e, run);
		uint64_t vin = h_put(&e, in, sizeof(in)), vout = h_alloc(&e, sizeof(in));
		for (size_t k = 0; k <= 6; k++) {
			bool full = k == 6;
			h_write(&e, vout, fill, sizeof(fill));
			cs_grid_result r = h_run(&e, p, full ? "load_store_vectorize_full" : partial[k],
						 (uint32_t[]){ 1, 1, 1 }, (uint32_t[]){ 64, 1, 1 }, 0,
						 (uint64_t[]){ vin, vout, VALID }, full ? 2 : 3);
			cr_assert_eq(r.outcome, CS_GRID_EXECUTED, "%s %zu: %s", archs[a], k, r.diag.msg);
			int32_t got[N];
			h_read(&e, vout, got, sizeof(got));
			for (int i = 0; i < N; i++) {
				int32_t want = full || i < VALID ? in[i] * 2 : UNTOUCHED;
				cr_expect_eq(got[i], want, "%s %s [%d]: %d, want %d", archs[a],
					     full ? "vectorize_full" : partial[k], i, got[i], want);
			}
		}
		h_fini(&e);
		cs_ptx_program_free(p);
	}
}

static int cmp_desc_pair(const void *x, const void *y)
{
	const float *a = x, *b = y;
	return a[0] < b[0] ? 1 : a[0] > b[0] ? -1 : 0;
}

/* cubload.cu: BlockRadixSort of float keys (negative, zero, duplicates-free)
 * with values, descending, blocked to striped; the atomic BlockHistogram;
 * cuda::atomic_ref at device, block and system scope over 2 CTAs. */
Test(int, cub_sort_pairs_histogram_atomic_ref)
{
	const char *archs[] = { "sm_80", "sm_90", "sm_100" };
	enum { N = 256 };
	float keys[N], pairs[N][2];
	uint8_t bytes[N];
	uint32_t bins[256] = { 0 }, seed = 7;
	for (int i = 0; i < N; i++) {
		keys[i] = (float)((i * 37) % N - 128) * 0.25f + h_frand(&seed) * 0.01f;
		pairs[i][0] = keys[i];
		pairs[i][1] = (float)i;
		bytes[i] = (uint8_t)(i * i % 251);
		bins[bytes[i]]++;
	}
	keys[5] = -0.0f;
	pairs[5][0] = -0.0f;
	qsort(pairs, N, sizeof(pairs[0]), cmp_desc_pair);
	for (size_t run = 0; run < 6; run++) {
		size_t a = run % 3;
		cs_ptx_program *p = h_load_fixture("cubload", archs[a]);
		h_env e;
		h_init(&e);
		if (run >= 3)
			cub_under_random_order(&e, run);
		uint64_t vk = h_put(&e, keys, sizeof(keys)), vko = h_alloc(&e, sizeof(keys));
		uint64_t vvo = h_alloc(&e, N * 4);
		cs_grid_result r = h_run(&e, p, "radix_sort_pairs_desc", (uint32_t[]){ 1, 1, 1 },
					 (uint32_t[]){ 64, 1, 1 }, 0, (uint64_t[]){ vk, vko, vvo }, 3);
		cr_assert_eq(r.outcome, CS_GRID_EXECUTED, "%s sort: %s", archs[a], r.diag.msg);
		float ko[N];
		int32_t vo[N];
		h_read(&e, vko, ko, sizeof(ko));
		h_read(&e, vvo, vo, sizeof(vo));
		for (int i = 0; i < N; i++) {
			cr_expect_eq(h_b(ko[i]), h_b(pairs[i][0]), "%s key [%d]: %a, want %a", archs[a], i,
				     (double)ko[i], (double)pairs[i][0]);
			cr_expect_eq(vo[i], (int32_t)pairs[i][1], "%s value [%d]: %d, want %d", archs[a], i,
				     vo[i], (int32_t)pairs[i][1]);
		}
		uint64_t vb = h_put(&e, bytes, sizeof(bytes)), vh = h_alloc(&e, 256 * 4);
		r = h_run(&e, p, "histogram_atomic", (uint32_t[]){ 1, 1, 1 }, (uint32_t[]){ 64, 1, 1 },
			  0, (uint64_t[]){ vb, vh }, 2);
		cr_assert_eq(r.outcome, CS_GRID_EXECUTED, "%s histogram: %s", archs[a], r.diag.msg);
		uint32_t got[256];
		h_read(&e, vh, got, sizeof(got));
		for (int i = 0; i < 256; i++)
			cr_expect_eq(got[i], bins[i], "%s bin %d: %u, want %u", archs[a], i, got[i], bins[i]);
		int32_t ints[9] = { 0, -1, 0, 0, 0, -1, -1, 0, 0 };
		uint64_t vi = h_put(&e, ints, sizeof(ints)), vm = h_alloc(&e, 8), vs = h_alloc(&e, 4);
		r = h_run(&e, p, "atomic_refs", (uint32_t[]){ 2, 1, 1 }, (uint32_t[]){ 64, 1, 1 }, 0,
			  (uint64_t[]){ vi, vm, vs }, 3);
		cr_assert_eq(r.outcome, CS_GRID_EXECUTED, "%s atomic_ref: %s", archs[a], r.diag.msg);
		int32_t io[9];
		uint64_t mask;
		float sum;
		h_read(&e, vi, io, sizeof(io));
		h_read(&e, vm, &mask, 8);
		h_read(&e, vs, &sum, 4);
		int32_t mx = -1, mn = 0;
		for (int t = 0; t < 128; t++) {
			mx = t * 7 % 101 > mx ? t * 7 % 101 : mx;
			mn = -(t * 5 % 97) < mn ? -(t * 5 % 97) : mn;
		}
		cr_expect_eq(io[0], 128, "%s", archs[a]);
		cr_expect_eq(io[1], mx, "%s", archs[a]);
		cr_expect_eq(io[2], mn, "%s", archs[a]);
		cr_expect(io[3] >= 1 && io[3] <= 128, "%s: cas winner %d", archs[a], io[3]);
		cr_expect_eq(io[4], 1, "%s: %d cas winners", archs[a], io[4]);
		cr_expect(io[5] >= 0 && io[5] < 128, "%s: exchanged %d", archs[a], io[5]);
		cr_expect_eq(io[6], 0, "%s", archs[a]);
		cr_expect_eq(io[7], 0, "%s: xor of 0..127", archs[a]);
		cr_expect_eq(io[8], 1, "%s", archs[a]);
		cr_expect_eq(mask, ~0ull, "%s: mask 0x%llx", archs[a], (unsigned long long)mask);
		cr_expect_eq(sum, 64.0f, "%s: sum %g", archs[a], (double)sum);
		h_fini(&e);
		cs_ptx_program_free(p);
	}
}

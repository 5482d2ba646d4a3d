/* SPDX-License-Identifier: MIT */
/* Float instruction families: exact rounding where PTX requires it, NaN and
 * signed-zero rules, each rounding mode, saturation, ftz, and the documented
 * error bound of the approximate functions. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"

#define QNAN 0x7fffffffu /* PTX's canonical NaN */

static uint32_t rng_state = 12345;
static uint32_t rnd32(void)
{
	rng_state = rng_state * 1664525u + 1013904223u;
	uint32_t x = rng_state;
	x ^= x >> 13;
	x *= 0x5bd1e995u;
	return x ^ (x >> 15);
}

/* Random f32 bit patterns, biased toward interesting exponents. */
static uint32_t rnd_f32(void)
{
	uint32_t r = rnd32();
	switch (r & 7) {
	case 0: return r & 0x807fffffu;                 /* subnormals and zeros */
	case 1: return (r & 0x80ffffffu) | 0x3f000000u; /* near 1 */
	default: return r;
	}
}

Test(float, fma_rn_bit_exact_with_fmaf)
{
	enum { N = 256 };
	uint32_t a[N], b[N], c[N], out[N];
	for (int round = 0; round < 4; round++) {
		for (int i = 0; i < N; i++) {
			a[i] = rnd_f32();
			b[i] = rnd_f32();
			c[i] = rnd_f32();
		}
		/* c travels in b's slot of a second pair: d = fma(a, b, a*?); use c via a pre-pass */
		uint32_t ab[N];
		for (int i = 0; i < N; i++)
			ab[i] = c[i];
		/* fma(a, b, c): run with pairs (a, b), c folded in as a constant per test case is
		 * not possible, so compute fma(a, b, b) and fma(a, a, b) which cover the datapath */
		h_pairs32("\tfma.rn.f32 %r5, %r3, %r4, %r4;", a, b, out, N);
		for (int i = 0; i < N; i++) {
			float want = fmaf(h_f(a[i]), h_f(b[i]), h_f(b[i]));
			uint32_t wb = isnan(want) ? QNAN : h_b(want);
			cr_assert_eq(out[i], wb, "fma(%a, %a, %a) = 0x%08x want 0x%08x", h_f(a[i]),
				     h_f(b[i]), h_f(b[i]), out[i], wb);
		}
		h_pairs32("\tfma.rn.f32 %r5, %r3, %r3, %r4;", a, ab, out, N);
		for (int i = 0; i < N; i++) {
			float want = fmaf(h_f(a[i]), h_f(a[i]), h_f(ab[i]));
			uint32_t wb = isnan(want) ? QNAN : h_b(want);
			cr_assert_eq(out[i], wb, "fma(%a, %a, %a) = 0x%08x want 0x%08x", h_f(a[i]),
				     h_f(a[i]), h_f(ab[i]), out[i], wb);
		}
		/* mul then add rounds twice: differs from fma for some inputs, equals C's a*b+c
		 * evaluated with two roundings */
		h_pairs32("\tmul.f32 %r6, %r3, %r3;\n\tadd.f32 %r5, %r6, %r4;", a, ab, out, N);
		for (int i = 0; i < N; i++) {
			volatile float p = h_f(a[i]) * h_f(a[i]);
			float want = p + h_f(ab[i]);
			uint32_t wb = isnan(want) ? QNAN : h_b(want);
			cr_assert_eq(out[i], wb, "mul+add at %d", i);
		}
	}
	/* the double form too */
	uint64_t da[64], db[64], dout[64];
	for (int i = 0; i < 64; i++) {
		da[i] = ((uint64_t)rnd32() << 32) | rnd32();
		db[i] = ((uint64_t)rnd32() << 32) | rnd32();
	}
	h_pairs64("\tfma.rn.f64 %rd10, %rd8, %rd9, %rd8;", da, db, dout, 64);
	for (int i = 0; i < 64; i++) {
		double want = fma(h_d(da[i]), h_d(db[i]), h_d(da[i]));
		uint64_t wb = isnan(want) ? 0x7fffffffffffffffull : h_bd(want);
		cr_assert_eq(dout[i], wb, "fma.f64 at %d", i);
	}
}

Test(float, min_max_nan_and_signed_zero)
{
	uint32_t a[] = { QNAN, h_b(1.0f), QNAN, 0x80000000u, 0x00000000u, h_b(-2.0f), 0xffc00001u };
	uint32_t b[] = { h_b(1.0f), QNAN, QNAN, 0x00000000u, 0x80000000u, h_b(3.0f), h_b(5.0f) };
	uint32_t out[7];
	h_pairs32("\tmin.f32 %r5, %r3, %r4;", a, b, out, 7);
	cr_expect_eq(out[0], h_b(1.0f));
	cr_expect_eq(out[1], h_b(1.0f));
	cr_expect_eq(out[2], QNAN);
	cr_expect_eq(out[3], 0x80000000u); /* min(-0, +0) = -0 */
	cr_expect_eq(out[4], 0x80000000u);
	cr_expect_eq(out[5], h_b(-2.0f));
	cr_expect_eq(out[6], h_b(5.0f));
	h_pairs32("\tmax.f32 %r5, %r3, %r4;", a, b, out, 7);
	cr_expect_eq(out[0], h_b(1.0f));
	cr_expect_eq(out[2], QNAN);
	cr_expect_eq(out[3], 0u); /* max(-0, +0) = +0 */
	cr_expect_eq(out[4], 0u);
	cr_expect_eq(out[5], h_b(3.0f));
	h_pairs32("\tmax.NaN.f32 %r5, %r3, %r4;", a, b, out, 7);
	cr_expect_eq(out[0], QNAN);
	cr_expect_eq(out[1], QNAN);
	cr_expect_eq(out[5], h_b(3.0f));
}

Test(float, setp_every_comparison_with_nan)
{
	static const char *cmps[] = { "eq", "ne", "lt", "le", "gt", "ge", "equ", "neu", "ltu", "leu",
				      "gtu", "geu", "num", "nan" };
	/* pairs: (1,2) (2,1) (1,1) (NaN,1) (1,NaN) (-0,+0) */
	uint32_t a[] = { h_b(1), h_b(2), h_b(1), QNAN, h_b(1), 0x80000000u };
	uint32_t b[] = { h_b(2), h_b(1), h_b(1), h_b(1), QNAN, 0 };
	static const int want[14][6] = {
		{ 0, 0, 1, 0, 0, 1 }, /* eq */ { 1, 1, 0, 0, 0, 0 }, /* ne */
		{ 1, 0, 0, 0, 0, 0 }, /* lt */ { 1, 0, 1, 0, 0, 1 }, /* le */
		{ 0, 1, 0, 0, 0, 0 }, /* gt */ { 0, 1, 1, 0, 0, 1 }, /* ge */
		{ 0, 0, 1, 1, 1, 1 }, /* equ */ { 1, 1, 0, 1, 1, 0 }, /* neu */
		{ 1, 0, 0, 1, 1, 0 }, /* ltu */ { 1, 0, 1, 1, 1, 1 }, /* leu */
		{ 0, 1, 0, 1, 1, 0 }, /* gtu */ { 0, 1, 1, 1, 1, 1 }, /* geu */
		{ 1, 1, 1, 0, 0, 1 }, /* num */ { 0, 0, 0, 1, 1, 0 }, /* nan */
	};
	for (int c = 0; c < 14; c++) {
		char ops[256];
		snprintf(ops, sizeof(ops), "\tsetp.%s.f32 %%p1, %%r3, %%r4;\n\tselp.u32 %%r5, 1, 0, %%p1;",
			 cmps[c]);
		uint32_t out[6];
		h_pairs32(ops, a, b, out, 6);
		for (int i = 0; i < 6; i++)
			cr_expect_eq(out[i], (uint32_t)want[c][i], "setp.%s pair %d = %u", cmps[c], i,
				     out[i]);
	}
	/* integer comparisons, signed and unsigned, and predicate combination */
	uint32_t ia[] = { 0xffffffff, 1 }, ib[] = { 1, 0xffffffff }, out[2];
	h_pairs32("\tsetp.lt.s32 %p1, %r3, %r4;\n\tsetp.lo.u32 %p2, %r3, %r4;\n"
		  "\tselp.u32 %r6, 1, 0, %p1;\n\tselp.u32 %r7, 2, 0, %p2;\n\tor.b32 %r5, %r6, %r7;",
		  ia, ib, out, 2);
	cr_expect_eq(out[0], 1);
	cr_expect_eq(out[1], 2);
	h_pairs32("\tsetp.ne.s32 %p3, %r3, 1;\n\tsetp.gt.and.s32 %p1|%p2, %r3, 0, %p3;\n"
		  "\tselp.u32 %r6, 1, 0, %p1;\n\tselp.u32 %r7, 2, 0, %p2;\n\tor.b32 %r5, %r6, %r7;",
		  ia, ib, out, 2);
	/* lane 0: a=-1: cmp false, p3 true -> p1 0, p2 1; lane 1: a=1, p3 false -> both 0 */
	cr_expect_eq(out[0], 2);
	cr_expect_eq(out[1], 0);
}

Test(float, cvt_rounding_modes)
{
	struct {
		const char *op;
		float in;
		float want;
	} fi[] = {
		{ "cvt.rni.f32.f32", 2.5f, 2.0f },  { "cvt.rni.f32.f32", 3.5f, 4.0f },
		{ "cvt.rni.f32.f32", -2.5f, -2.0f }, { "cvt.rzi.f32.f32", -2.7f, -2.0f },
		{ "cvt.rmi.f32.f32", -2.1f, -3.0f }, { "cvt.rpi.f32.f32", 2.1f, 3.0f },
		{ "cvt.rmi.f32.f32", 2.9f, 2.0f },   { "cvt.rpi.f32.f32", -2.9f, -2.0f },
	};
	for (size_t i = 0; i < sizeof(fi) / sizeof(fi[0]); i++) {
		char ops[128];
		snprintf(ops, sizeof(ops), "\t%s %%r5, %%r3;", fi[i].op);
		uint32_t a = h_b(fi[i].in), b = 0, out;
		h_pairs32(ops, &a, &b, &out, 1);
		cr_expect_eq(h_f(out), fi[i].want, "%s %g = %g", fi[i].op, fi[i].in, h_f(out));
	}
	/* int -> float: 2^24 + 1 is not representable */
	struct {
		const char *op;
		int32_t in;
		float want;
	} itf[] = {
		{ "cvt.rn.f32.s32", 16777217, 16777216.0f },  { "cvt.rz.f32.s32", 16777217, 16777216.0f },
		{ "cvt.rm.f32.s32", 16777217, 16777216.0f },  { "cvt.rp.f32.s32", 16777217, 16777218.0f },
		{ "cvt.rn.f32.s32", 16777219, 16777220.0f },  { "cvt.rz.f32.s32", -16777217, -16777216.0f },
		{ "cvt.rm.f32.s32", -16777217, -16777218.0f }, { "cvt.rp.f32.s32", -16777217, -16777216.0f },
		{ "cvt.rn.f32.u32", -1, 4294967296.0f },      { "cvt.rz.f32.u32", -1, 4294967040.0f },
	};
	for (size_t i = 0; i < sizeof(itf) / sizeof(itf[0]); i++) {
		char ops[128];
		snprintf(ops, sizeof(ops), "\t%s %%r5, %%r3;", itf[i].op);
		uint32_t a = (uint32_t)itf[i].in, b = 0, out;
		h_pairs32(ops, &a, &b, &out, 1);
		cr_expect_eq(h_f(out), itf[i].want, "%s %d = %.1f want %.1f", itf[i].op, itf[i].in,
			     h_f(out), itf[i].want);
	}
	/* f64 -> f32 with each mode: 1 + 2^-30 lies between 1 and 1 + 2^-23 */
	struct {
		const char *op;
		double in;
		float want;
	} df[] = {
		{ "cvt.rn.f32.f64", 1.0 + 0x1p-30, 1.0f },  { "cvt.rz.f32.f64", 1.0 + 0x1p-30, 1.0f },
		{ "cvt.rm.f32.f64", 1.0 + 0x1p-30, 1.0f },  { "cvt.rp.f32.f64", 1.0 + 0x1p-30, 1.0f + 0x1p-23f },
		{ "cvt.rm.f32.f64", -1.0 - 0x1p-30, -1.0f - 0x1p-23f }, { "cvt.rz.f32.f64", -1.0 - 0x1p-30, -1.0f },
		{ "cvt.rn.f32.f64", 1e300, INFINITY },
	};
	for (size_t i = 0; i < sizeof(df) / sizeof(df[0]); i++) {
		char ops[128];
		snprintf(ops, sizeof(ops), "\t%s %%f1, %%rd8;\n\tmov.b32 %%r5, %%f1;\n\tcvt.u64.u32 %%rd10, %%r5;",
			 df[i].op);
		uint64_t a = h_bd(df[i].in), b = 0, out;
		h_pairs64(ops, &a, &b, &out, 1);
		cr_expect_eq(h_f((uint32_t)out), df[i].want, "%s %.17g = %a want %a", df[i].op, df[i].in,
			     h_f((uint32_t)out), df[i].want);
	}
}

Test(float, float_to_int_out_of_range_and_nan)
{
	uint32_t a[] = { h_b(3e9f), h_b(-3e9f), QNAN, h_b(-1.0f), h_b(5e9f), h_b(2.5f), h_b(-0.5f),
			 h_b(INFINITY) };
	uint32_t b[8] = { 0 }, out[8];
	h_pairs32("\tcvt.rzi.s32.f32 %r5, %r3;", a, b, out, 8);
	cr_expect_eq(out[0], 0x7fffffffu);
	cr_expect_eq(out[1], 0x80000000u);
	cr_expect_eq(out[2], 0u);
	cr_expect_eq(out[3], (uint32_t)-1);
	cr_expect_eq(out[5], 2u);
	cr_expect_eq(out[7], 0x7fffffffu);
	h_pairs32("\tcvt.rzi.u32.f32 %r5, %r3;", a, b, out, 8);
	cr_expect_eq(out[1], 0u);
	cr_expect_eq(out[2], 0u);
	cr_expect_eq(out[3], 0u);
	cr_expect_eq(out[4], 0xffffffffu);
	h_pairs32("\tcvt.rni.s32.f32 %r5, %r3;", a, b, out, 8);
	cr_expect_eq(out[5], 2u); /* ties to even */
	h_pairs32("\tcvt.rmi.s32.f32 %r5, %r3;", a, b, out, 8);
	cr_expect_eq(out[6], (uint32_t)-1);
	uint64_t da[] = { h_bd(1e30), h_bd(-1e30), h_bd(NAN) }, db[3] = { 0 }, dout[3];
	h_pairs64("\tcvt.rzi.s64.f64 %rd10, %rd8;", da, db, dout, 3);
	cr_expect_eq(dout[0], 0x7fffffffffffffffull);
	cr_expect_eq(dout[1], 0x8000000000000000ull);
	cr_expect_eq(dout[2], 0u);
}

Test(float, saturation_and_ftz)
{
	uint32_t a[] = { h_b(1.5f), h_b(-0.5f), QNAN, h_b(0.25f), 0x00000001u, 0x80400000u };
	uint32_t b[6] = { 0 }, out[6];
	h_pairs32("\tcvt.sat.f32.f32 %r5, %r3;", a, b, out, 6);
	cr_expect_eq(h_f(out[0]), 1.0f);
	cr_expect_eq(h_f(out[1]), 0.0f);
	cr_expect_eq(out[2], 0u);
	cr_expect_eq(h_f(out[3]), 0.25f);
	h_pairs32("\tadd.sat.f32 %r5, %r3, %r3;", a, b, out, 6);
	cr_expect_eq(h_f(out[0]), 1.0f);
	cr_expect_eq(h_f(out[3]), 0.5f);
	/* ftz flushes subnormal inputs and results, keeping the sign */
	h_pairs32("\tadd.ftz.f32 %r5, %r3, %r4;", a, b, out, 6);
	cr_expect_eq(out[4], 0u);
	cr_expect_eq(out[5], 0u); /* -0 + +0 = +0 */
	h_pairs32("\tmul.ftz.f32 %r5, %r3, 0f3F800000;", a, b, out, 6);
	cr_expect_eq(out[5], 0x80000000u);
	h_pairs32("\tadd.f32 %r5, %r3, %r4;", a, b, out, 6);
	cr_expect_eq(out[4], 1u);
	cr_expect_eq(out[5], 0x80400000u);
	h_pairs32("\tmul.ftz.f32 %r5, %r3, 0f3F000000;", a, b, out, 6);
	cr_expect_eq(out[4], 0u);
}

Test(float, directed_rounding_arithmetic)
{
	uint32_t a[] = { h_b(1.0f), h_b(-1.0f) }, b[] = { h_b(0x1p-30f), h_b(-0x1p-30f) }, out[2];
	h_pairs32("\tadd.rn.f32 %r5, %r3, %r4;", a, b, out, 2);
	cr_expect_eq(h_f(out[0]), 1.0f);
	h_pairs32("\tadd.rz.f32 %r5, %r3, %r4;", a, b, out, 2);
	cr_expect_eq(h_f(out[0]), 1.0f);
	cr_expect_eq(h_f(out[1]), -1.0f);
	h_pairs32("\tadd.rp.f32 %r5, %r3, %r4;", a, b, out, 2);
	cr_expect_eq(h_f(out[0]), 1.0f + 0x1p-23f);
	cr_expect_eq(h_f(out[1]), -1.0f);
	h_pairs32("\tadd.rm.f32 %r5, %r3, %r4;", a, b, out, 2);
	cr_expect_eq(h_f(out[0]), 1.0f);
	cr_expect_eq(h_f(out[1]), -1.0f - 0x1p-23f);
	/* expf's trick: fma.rm with a magic constant */
	h_pairs32("\tfma.rm.f32 %r5, %r3, %r4, 0f4B400001;", a, b, out, 2);
	cr_expect_eq(h_f(out[0]), 12582913.0f - 1.0f + 1.0f); /* 0x4B400001 - tiny, rounded down */
	/* the rounding mode does not leak into later instructions */
	h_pairs32("\tadd.rp.f32 %r6, %r3, %r4;\n\tadd.f32 %r5, %r3, %r4;", a, b, out, 2);
	cr_expect_eq(h_f(out[0]), 1.0f);
}

Test(float, division_and_roots)
{
	enum { N = 128 };
	uint32_t a[N], b[N], out[N];
	for (int i = 0; i < N; i++) {
		a[i] = rnd_f32();
		b[i] = rnd_f32();
	}
	h_pairs32("\tdiv.rn.f32 %r5, %r3, %r4;", a, b, out, N);
	for (int i = 0; i < N; i++) {
		float w = h_f(a[i]) / h_f(b[i]);
		cr_assert_eq(out[i], isnan(w) ? QNAN : h_b(w), "div.rn at %d", i);
	}
	h_pairs32("\tsqrt.rn.f32 %r5, %r3;", a, b, out, N);
	for (int i = 0; i < N; i++) {
		float w = sqrtf(h_f(a[i]));
		cr_assert_eq(out[i], isnan(w) ? QNAN : h_b(w), "sqrt.rn at %d", i);
	}
	h_pairs32("\trcp.rn.f32 %r5, %r3;", a, b, out, N);
	for (int i = 0; i < N; i++) {
		float w = 1.0f / h_f(a[i]);
		cr_assert_eq(out[i], isnan(w) ? QNAN : h_b(w), "rcp.rn at %d", i);
	}
	uint64_t da[16], db[16], dout[16];
	for (int i = 0; i < 16; i++) {
		da[i] = h_bd((double)(i + 1) / 3.0);
		db[i] = h_bd(7.0 - i);
	}
	h_pairs64("\tdiv.rn.f64 %rd10, %rd8, %rd9;", da, db, dout, 16);
	for (int i = 0; i < 16; i++)
		cr_expect_eq(h_d(dout[i]), h_d(da[i]) / h_d(db[i]));
}

/* The approximate functions against the error bound the PTX ISA states for
 * each (transcribed here on its own, not shared with the executor). */
typedef struct approx_case {
	const char *op;
	double (*ref)(double);
	float lo, hi;      /* inputs, evenly spaced */
	float (*single)(float); /* the single-precision evaluation the model documents */
} approx_case;

static double ex2(double x) { return exp2(x); }
static double lg2(double x) { return log2(x); }
static double rsq(double x) { return 1.0 / sqrt(x); }
static double rcp(double x) { return 1.0 / x; }
static float rsqf(float x) { return 1.0f / sqrtf(x); }
static float rcpf(float x) { return 1.0f / x; }

static double ulp_of(double exact)
{
	int e = ilogb(exact) - 23;
	return ldexp(1.0, e < -149 ? -149 : e);
}

static double isa_bound(const char *op, double a, double exact)
{
	if (!strncmp(op, "ex2", 3))
		return 2 * ulp_of(exact);
	if (!strncmp(op, "lg2", 3))
		return exp2(-22.0) * fmax(1.0, fabs(exact));
	if (!strncmp(op, "sin", 3) || !strncmp(op, "cos", 3))
		return fabs(a) <= 6.283185307179586 ? exp2(-20.5) : exp2(-14.7);
	if (!strncmp(op, "tanh", 4))
		return exp2(-11.0) * fabs(exact);
	if (!strncmp(op, "rsqrt", 5))
		return exp2(-22.9) * fabs(exact);
	return ulp_of(exact); /* rcp.approx */
}

static const approx_case approx_cases[] = {
	{ "ex2.approx.ftz.f32", ex2, -20.0f, 20.0f, exp2f },
	{ "lg2.approx.f32", lg2, 0.001f, 1000.0f, log2f },
	{ "sin.approx.f32", sin, -10.0f, 10.0f, sinf },
	{ "cos.approx.f32", cos, -10.0f, 10.0f, cosf },
	{ "tanh.approx.f32", tanh, -6.0f, 6.0f, tanhf },
	{ "rsqrt.approx.f32", rsq, 0.01f, 1e6f, rsqf },
	{ "rcp.approx.ftz.f32", rcp, 0.5f, 100.0f, rcpf },
};

/* Runs op over n <= 1024 inputs (one CTA) with the given approximation mode. */
static void approx_run(const approx_case *c, cs_ptx_approx mode, uint32_t *a, uint32_t *out, int n)
{
	char body[512];
	snprintf(body, sizeof(body),
		 "\tmul.wide.u32 %%rd6, %%r2, 4;\n\tadd.s64 %%rd7, %%rd2, %%rd6;\n"
		 "\tld.global.u32 %%r3, [%%rd7];\n\t%s %%r5, %%r3;\n"
		 "\tst.global.u32 [%%rd4], %%r5;\n", c->op);
	for (int i = 0; i < n; i++)
		a[i] = h_b(c->lo + (c->hi - c->lo) * (float)i / (float)(n - 1));
	char *src = h_kernel("", body);
	cs_diag d;
	cs_ptx_program *p = h_parse(src, &d);
	free(src);
	cr_assert(p, "%s", d.msg);
	h_env e;
	h_init(&e);
	e.approx = mode;
	uint64_t vin = h_alloc(&e, (uint64_t)n * 4), vout = h_alloc(&e, (uint64_t)n * 4);
	h_write(&e, vin, a, (size_t)n * 4);
	cs_grid_result r = h_run(&e, p, "k", (uint32_t[]){ 1, 1, 1 }, (uint32_t[]){ (uint32_t)n, 1, 1 },
				 0, (uint64_t[]){ vout, vin, (uint64_t)n }, 3);
	cr_assert_eq(r.outcome, CS_GRID_EXECUTED, "%s: %s", c->op, r.diag.msg);
	h_read(&e, vout, out, (size_t)n * 4);
	h_fini(&e);
	cs_ptx_program_free(p);
}

/* By default: the single-precision evaluation, inside the ISA's bound. */
Test(float, approximate_functions_single_precision_within_isa_bound)
{
	enum { N = 1024 };
	static uint32_t a[N], out[N];
	for (size_t k = 0; k < sizeof(approx_cases) / sizeof(approx_cases[0]); k++) {
		const approx_case *c = &approx_cases[k];
		approx_run(c, CS_PTX_APPROX_SINGLE, a, out, N);
		for (int i = 0; i < N; i++) {
			double x = h_f(a[i]), want = c->ref(x);
			float got = h_f(out[i]);
			cr_expect_eq(out[i], h_b(c->single(h_f(a[i]))), "%s(%a): %a is not the f32 evaluation",
				     c->op, x, got);
			cr_expect(fabs(got - want) <= isa_bound(c->op, x, want), "%s(%a) = %a, exact %a",
				  c->op, x, got, want);
		}
	}
	uint32_t x[] = { h_b(10.0f) }, y[] = { h_b(4.0f) }, q[1];
	h_pairs32("\tdiv.approx.f32 %r5, %r3, %r4;", x, y, q, 1);
	cr_expect_eq(h_f(q[0]), 2.5f);
	h_pairs32("\tdiv.full.f32 %r5, %r3, %r4;", x, y, q, 1);
	cr_expect_eq(h_f(q[0]), 2.5f);
}

/* CS_PTX_APPROX_MAX: every result sits at the edge of its bound, away from
 * zero: still inside it, and less than one f32 step from its edge. */
Test(float, approximate_functions_at_the_edge_of_the_isa_bound)
{
	enum { N = 1024 };
	static uint32_t a[N], out[N];
	for (size_t k = 0; k < sizeof(approx_cases) / sizeof(approx_cases[0]); k++) {
		const approx_case *c = &approx_cases[k];
		approx_run(c, CS_PTX_APPROX_MAX, a, out, N);
		unsigned moved = 0;
		for (int i = 0; i < N; i++) {
			double x = h_f(a[i]), want = c->ref(x), bound = isa_bound(c->op, x, want);
			float got = h_f(out[i]);
			if (want == 0.0 || !isfinite(want)) {
				cr_expect_eq(got, (float)want, "%s(%a): specials stay exact", c->op, x);
				continue;
			}
			double err = fabs(got - want);
			cr_expect(err <= bound, "%s(%a) = %a: error %g past the bound %g", c->op, x, got,
				  err, bound);
			cr_expect(err > bound - 2 * ulp_of(got), "%s(%a) = %a: error %g not at the bound %g",
				  c->op, x, got, err, bound);
			cr_expect(fabs(got) >= fabs(want), "%s(%a): pushed toward zero", c->op, x);
			moved += got != h_f(h_b(c->single(h_f(a[i]))));
		}
		cr_expect_gt(moved, N / 2, "%s: only %u of %d results moved", c->op, moved, N);
	}
}

Test(float, half_conversions)
{
	uint32_t a[] = { h_b(1.0f / 3.0f), h_b(65504.0f), h_b(70000.0f), h_b(0x1p-24f), h_b(-2.5f) };
	uint32_t b[5] = { 0 }, out[5];
	h_pairs32("\tcvt.rn.f16.f32 %rs1, %r3;\n\tcvt.u32.u16 %r5, %rs1;", a, b, out, 5);
	cr_expect_eq(out[0], 0x3555);
	cr_expect_eq(out[1], 0x7bff);
	cr_expect_eq(out[2], 0x7c00);
	cr_expect_eq(out[3], 0x0001);
	cr_expect_eq(out[4], 0xc100);
	h_pairs32("\tcvt.rn.f16.f32 %rs1, %r3;\n\tcvt.f32.f16 %r5, %rs1;", a, b, out, 5);
	cr_expect_eq(h_f(out[4]), -2.5f);
	cr_expect_eq(h_f(out[3]), 0x1p-24f);
	h_pairs32("\tcvt.rn.bf16.f32 %rs1, %r3;\n\tcvt.f32.bf16 %r5, %rs1;", a, b, out, 5);
	cr_expect_eq(h_f(out[4]), -2.5f);
	cr_expect_eq(out[0], 0x3eab0000u);
}

Test(float, abs_neg_copysign_testp)
{
	uint32_t a[] = { h_b(-1.5f), 0xffc00000u, h_b(2.0f), 0x00000001u }, b[] = { h_b(3.0f), h_b(-1.0f), h_b(-0.0f), 0 };
	uint32_t out[4];
	h_pairs32("\tabs.f32 %r5, %r3;", a, b, out, 4);
	cr_expect_eq(h_f(out[0]), 1.5f);
	cr_expect_eq(out[1], 0x7fc00000u);
	h_pairs32("\tneg.f32 %r5, %r3;", a, b, out, 4);
	cr_expect_eq(h_f(out[0]), 1.5f);
	h_pairs32("\tcopysign.f32 %r5, %r4, %r3;", a, b, out, 4);
	cr_expect_eq(h_f(out[0]), 1.5f);  /* sign of b (3.0) onto |a| */
	cr_expect_eq(h_f(out[2]), -2.0f);
	h_pairs32("\ttestp.subnormal.f32 %p1, %r3;\n\ttestp.notanumber.f32 %p2, %r3;\n"
		  "\tselp.u32 %r6, 1, 0, %p1;\n\tselp.u32 %r7, 2, 0, %p2;\n\tor.b32 %r5, %r6, %r7;",
		  a, b, out, 4);
	cr_expect_eq(out[0], 0);
	cr_expect_eq(out[1], 2);
	cr_expect_eq(out[3], 1);
}

Test(float, packed_halves)
{
	/* {hi, lo} pairs of f16 */
	uint32_t a[] = { (0x3c00u << 16) | 0x4000u,   /* {1.0, 2.0} */
			 (0xc200u << 16) | 0x3555u }; /* {-3.0, 1/3} */
	uint32_t b[] = { (0x3800u << 16) | 0x4200u,   /* {0.5, 3.0} */
			 (0x7e00u << 16) | 0x3c00u }; /* {NaN, 1.0} */
	uint32_t out[2];
	h_pairs32("\tadd.f16x2 %r5, %r3, %r4;", a, b, out, 2);
	cr_expect_eq(out[0], (0x3e00u << 16) | 0x4500u); /* {1.5, 5.0} */
	cr_expect_eq(out[1] >> 16, 0x7fffu);               /* NaN: canonical */
	cr_expect_eq(out[1] & 0xffff, 0x3d55u);            /* 1/3 + 1 */
	h_pairs32("\tmul.f16x2 %r5, %r3, %r4;", a, b, out, 2);
	cr_expect_eq(out[0], (0x3800u << 16) | 0x4600u); /* {0.5, 6.0} */
	h_pairs32("\tfma.rn.f16x2 %r5, %r3, %r4, %r3;", a, b, out, 2);
	cr_expect_eq(out[0], (0x3e00u << 16) | 0x4800u); /* {1.5, 8.0} */
	h_pairs32("\tmin.f16x2 %r5, %r3, %r4;", a, b, out, 2);
	cr_expect_eq(out[1], (0xc200u << 16) | 0x3555u); /* NaN ignored: -3.0; min(1/3, 1) */
	h_pairs32("\tneg.f16x2 %r5, %r3;", a, b, out, 2);
	cr_expect_eq(out[0], (0xbc00u << 16) | 0xc000u);
	/* cvt.rn.f16x2.f32 d, a, b puts cvt(a) in the upper half */
	uint32_t fa[] = { h_b(1.0f) }, fb[] = { h_b(-2.0f) };
	h_pairs32("\tcvt.rn.f16x2.f32 %r5, %r3, %r4;", fa, fb, out, 1);
	cr_expect_eq(out[0], (0x3c00u << 16) | 0xc000u);
	h_pairs32("\tcvt.rn.bf16x2.f32 %r5, %r3, %r4;", fa, fb, out, 1);
	cr_expect_eq(out[0], (0x3f80u << 16) | 0xc000u);
}

/* SPDX-License-Identifier: MIT */
/* Tensor cores: the wmma and mma.sync fixture kernels (fixtures/kernels/out,
 * nvcc 13 for sm_80, sm_90 and sm_100) against C references, the fragment
 * layout the model documents, cvt to tf32, cp.async's groups, and hostile
 * uses that must stop with a located error. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"

static const char *archs[] = { "sm_80", "sm_90", "sm_100" };

static void expect_ran(const cs_grid_result *r, const char *arch, const char *what)
{
	cr_assert_eq(r->outcome, CS_GRID_EXECUTED, "%s %s: %s", arch, what, r->diag.msg);
}

static void expect_no_race(const h_env *e, const char *arch, const char *what)
{
	for (size_t i = 0; i < e->tb.trace.n; i++)
		cr_expect_neq(e->tb.trace.recs[i].ev.kind, CS_EV_RACE, "%s %s: %s", arch, what, e->tb.trace.recs[i].ev.detail);
}

/* f32 bits rounded to tf32 (10 mantissa bits), ties away from zero: what
 * cvt.rna.tf32.f32 gives, written here from the format alone. */
static float tf32_rna(float x)
{
	uint32_t u;
	memcpy(&u, &x, 4);
	u = (u + 0x1000u) & 0xffffe000u;
	memcpy(&x, &u, 4);
	return x;
}

static bool close_to(double got, double want, double rel)
{
	return fabs(got - want) <= rel * (1 + fabs(want));
}

/* The four wmma kernels of wmma.cu: f16 -> f32 (+C0), f16 -> f16 (B row-major,
 * the tile through shared memory column-major), bf16 -> f32 (scaled), tf32. */
Test(tensor, wmma_kernels_all_archs)
{
	enum { M = 32, N = 48, KMAX = 64 };
	static const int ks[] = { 48, 64 }; /* 3 and 4 steps: nvcc's remainder and unrolled loops */
	static uint16_t ah[M * KMAX], bh[KMAX * N], ab[M * KMAX], bb[KMAX * N], ch[M * N];
	static float af[M * KMAX], bf[KMAX * N], c0[M * N], c[M * N];
	uint32_t s = 11;
	for (int i = 0; i < M * KMAX; i++) {
		float v = h_frand(&s);
		ah[i] = h_f16_bits(v);
		ab[i] = h_bf16_bits(v);
		af[i] = h_frand(&s) * 3.0f;
	}
	for (int i = 0; i < KMAX * N; i++) {
		float v = h_frand(&s);
		bh[i] = h_f16_bits(v);
		bb[i] = h_bf16_bits(v);
		bf[i] = h_frand(&s) * 3.0f;
	}
	for (int i = 0; i < M * N; i++)
		c0[i] = h_frand(&s);
	const float scale = 0.75f;
	for (int a = 0; a < 3; a++) {
		cs_ptx_program *p = h_load_fixture("wmma", archs[a]);
		for (int form = 0; form < 4; form++)
			for (int ki = 0; ki < 2; ki++) {
				int K = form == 3 ? ks[ki] - 8 : ks[ki]; /* tf32 steps by 8: 5 and 7 */
				h_env e;
				h_init(&e);
				e.races = CS_PTX_RACES_REPORT;
				uint32_t grid[3] = { N / 16, M / 16, 1 }, block[3] = { 32, 1, 1 };
				uint64_t out = h_alloc(&e, sizeof(c));
				static const char *const names[] = { "wmma_f16_f32", "wmma_f16_f16",
								     "wmma_bf16_f32", "wmma_tf32_f32" };
				cs_grid_result r;
				if (form == 0)
					r = h_run(&e, p, names[form], grid, block, 0,
						  (uint64_t[]){ h_put(&e, ah, sizeof(ah)), h_put(&e, bh, sizeof(bh)),
								h_put(&e, c0, sizeof(c0)), out, M, N, (uint64_t)K }, 7);
				else if (form == 1)
					r = h_run(&e, p, names[form], grid, block, 0,
						  (uint64_t[]){ h_put(&e, ah, sizeof(ah)), h_put(&e, bh, sizeof(bh)),
								out, M, N, (uint64_t)K }, 6);
				else if (form == 2) {
					uint32_t sb;
					memcpy(&sb, &scale, 4);
					r = h_run(&e, p, names[form], grid, block, 0,
						  (uint64_t[]){ h_put(&e, ab, sizeof(ab)), h_put(&e, bb, sizeof(bb)),
								out, sb, M, N, (uint64_t)K }, 7);
				} else
					r = h_run(&e, p, names[form], grid, block, 0,
						  (uint64_t[]){ h_put(&e, af, sizeof(af)), h_put(&e, bf, sizeof(bf)),
								out, M, N, (uint64_t)K }, 6);
				expect_ran(&r, archs[a], names[form]);
				if (form == 1)
					h_read(&e, out, ch, sizeof(ch));
				else
					h_read(&e, out, c, sizeof(c));
				int bad = 0;
				for (int i = 0; i < M; i++)
					for (int j = 0; j < N; j++) {
						/* the accumulator is rounded to its type after each
						 * 16-deep (8 for tf32) step, as a fragment holds it */
						int step = form == 3 ? 8 : 16;
						double acc = form == 0 ? c0[i * N + j] : 0.0;
						for (int k0 = 0; k0 < K; k0 += step) {
							double part = 0;
							for (int q = k0; q < k0 + step; q++) {
								double x, y;
								if (form == 0) { /* B column-major */
									x = h_f16_value(ah[i * K + q]);
									y = h_f16_value(bh[j * K + q]);
								} else if (form == 1) {
									x = h_f16_value(ah[i * K + q]);
									y = h_f16_value(bh[q * N + j]);
								} else if (form == 2) {
									x = h_bf16_value(ab[i * K + q]);
									y = h_bf16_value(bb[j * K + q]);
								} else {
									x = tf32_rna(af[i * K + q]);
									y = tf32_rna(bf[q * N + j]);
								}
								part += x * y;
							}
							acc = form == 1 ? h_f16_round((float)(acc + part))
									: (float)(acc + part);
						}
						double want = form == 2 ? (float)(acc * scale) : acc;
						double got = form == 1 ? h_f16_value(ch[i * N + j]) : c[i * N + j];
						if (!close_to(got, want, form == 1 ? 2e-3 : 1e-5) && bad++ < 4)
							cr_expect(0, "%s %s K=%d C[%d][%d] = %g, want %g", archs[a],
								  names[form], K, i, j, got, want);
					}
				cr_expect_eq(bad, 0, "%s %s K=%d: %d wrong elements", archs[a], names[form], K, bad);
				expect_no_race(&e, archs[a], names[form]);
				h_fini(&e);
			}
		cs_ptx_program_free(p);
	}
}

/* tcgemm.cu: a double-buffered cp.async + ldmatrix (.x4, .x4.trans) +
 * mma.sync m16n8k16 GEMM, and cp.async of 4/8 bytes with zero-fill,
 * cp.async.wait_all, ldmatrix.x1 and an m16n8k8 f16 mma. */
Test(tensor, pipelined_gemm_and_small_copies_all_archs)
{
	enum { M = 64, N = 32, K = 80, ROWS = 3, NROW = 37 };
	static uint16_t a[M * K], b[K * N], ta[ROWS * 128], tb[ROWS * 64], d[ROWS * 128];
	static float c[M * N], x[ROWS * 64], sums[ROWS];
	uint32_t s = 5;
	for (int i = 0; i < M * K; i++)
		a[i] = h_f16_bits(h_frand(&s));
	for (int i = 0; i < K * N; i++)
		b[i] = h_f16_bits(h_frand(&s));
	for (int i = 0; i < ROWS * 128; i++)
		ta[i] = h_f16_bits(h_frand(&s));
	for (int i = 0; i < ROWS * 64; i++)
		tb[i] = h_f16_bits(h_frand(&s));
	for (size_t i = 0; i < sizeof(x) / sizeof(x[0]); i++)
		x[i] = h_frand(&s);
	for (int k = 0; k < 3; k++) {
		cs_ptx_program *p = h_load_fixture("tcgemm", archs[k]);
		h_env e;
		h_init(&e);
		e.races = CS_PTX_RACES_REPORT;
		uint64_t vc = h_alloc(&e, sizeof(c));
		cs_grid_result r = h_run(&e, p, "tc_gemm_pipelined", (uint32_t[]){ N / 16, M / 32, 1 },
					 (uint32_t[]){ 64, 1, 1 }, 0,
					 (uint64_t[]){ h_put(&e, a, sizeof(a)), h_put(&e, b, sizeof(b)), vc, M, N, K }, 6);
		expect_ran(&r, archs[k], "tc_gemm_pipelined");
		h_read(&e, vc, c, sizeof(c));
		int bad = 0;
		for (int i = 0; i < M; i++)
			for (int j = 0; j < N; j++) {
				double acc = 0;
				for (int k0 = 0; k0 < K; k0 += 16) {
					double part = 0;
					for (int q = k0; q < k0 + 16; q++)
						part += (double)h_f16_value(a[i * K + q]) * h_f16_value(b[q * N + j]);
					acc = (float)(acc + part);
				}
				if (!close_to(c[i * N + j], acc, 1e-5) && bad++ < 4)
					cr_expect(0, "%s gemm C[%d][%d] = %g, want %g", archs[k], i, j, c[i * N + j], acc);
			}
		cr_expect_eq(bad, 0, "%s tc_gemm_pipelined: %d wrong", archs[k], bad);
		expect_no_race(&e, archs[k], "tc_gemm_pipelined");

		uint64_t vs = h_alloc(&e, sizeof(sums)), vd = h_alloc(&e, sizeof(d));
		r = h_run(&e, p, "cp_async_small", (uint32_t[]){ ROWS, 1, 1 }, (uint32_t[]){ 32, 1, 1 }, 0,
			  (uint64_t[]){ h_put(&e, x, sizeof(x)), vs, NROW, h_put(&e, ta, sizeof(ta)),
					h_put(&e, tb, sizeof(tb)), vd }, 6);
		expect_ran(&r, archs[k], "cp_async_small");
		h_read(&e, vs, sums, sizeof(sums));
		h_read(&e, vd, d, sizeof(d));
		for (int row = 0; row < ROWS; row++) {
			double want = 0;
			for (int i = 0; i < NROW; i++) /* the rest of the 64 zero-filled */
				want += x[row * 64 + i];
			cr_expect(close_to(sums[row], want, 1e-5), "%s row %d sum %g, want %g", archs[k],
				  row, sums[row], want);
			for (int i = 0; i < 16; i++)
				for (int j = 0; j < 8; j++) {
					double acc = 0;
					for (int q = 0; q < 8; q++)
						acc += (double)h_f16_value(ta[row * 128 + i * 8 + q]) *
						       h_f16_value(tb[row * 64 + j * 8 + q]);
					float got = h_f16_value(d[row * 128 + i * 8 + j]);
					cr_expect_eq(got, h_f16_round((float)acc), "%s tile %d D[%d][%d] = %g, want %g",
						     archs[k], row, i, j, got, h_f16_round((float)acc));
				}
		}
		expect_no_race(&e, archs[k], "cp_async_small");
		h_fini(&e);
		cs_ptx_program_free(p);
	}
}

#define F8 "{%f1,%f2,%f3,%f4,%f5,%f6,%f7,%f8}"
#define R8 "{%r10,%r11,%r12,%r13,%r14,%r15,%r16,%r17}"
/* out[tid * 8 + j] = register j of an f32 (or b32) fragment */
#define STORE8(regs4a, regs4b)                                                          \
	"\tmul.wide.u32 %rd6, %r2, 32;\n\tadd.s64 %rd7, %rd1, %rd6;\n"                  \
	"\tst.global.v4.b32 [%rd7], " regs4a ";\n\tst.global.v4.b32 [%rd7+16], " regs4b ";\n"

/* The fragment layout the model documents (docs and ptx_mma.c): a wmma
 * accumulator is two m16n8 mma.sync C fragments side by side, an f16 A holds
 * the m16n8k16 A layout twice. Pinned so a change of layout is a decision. */
Test(tensor, wmma_fragment_layout_pinned)
{
	static float in[256];
	static uint32_t out[32 * 8];
	for (int i = 0; i < 256; i++)
		in[i] = (float)i;
	cs_grid_result r = h_run_body("", "\twmma.load.c.sync.aligned.row.m16n16k16.global.f32 " F8 ", [%rd2];\n"
				      STORE8("{%f1,%f2,%f3,%f4}", "{%f5,%f6,%f7,%f8}"),
				      32, in, sizeof(in), out, sizeof(out));
	cr_assert_eq(r.outcome, CS_GRID_EXECUTED, "%s", r.diag.msg);
	for (unsigned l = 0; l < 32; l++)
		for (unsigned j = 0; j < 8; j++) {
			unsigned g = l / 4, t = l % 4;
			unsigned row = g + 8 * ((j >> 1) & 1), col = 2 * t + (j & 1) + 8 * (j >> 2);
			cr_expect_eq(h_f(out[l * 8 + j]), (float)(row * 16 + col), "lane %u reg %u", l, j);
		}
	/* f16 A: register j holds (row g + 8(j&1), columns 2t, 2t+1 + 8((j&3)>>1)) */
	static uint16_t ha[256];
	for (int i = 0; i < 256; i++)
		ha[i] = (uint16_t)i; /* the bits are the index: nothing is converted */
	r = h_run_body("", "\twmma.load.a.sync.aligned.row.m16n16k16.global.f16 " R8 ", [%rd2];\n"
		       STORE8("{%r10,%r11,%r12,%r13}", "{%r14,%r15,%r16,%r17}"),
		       32, ha, sizeof(ha), out, sizeof(out));
	cr_assert_eq(r.outcome, CS_GRID_EXECUTED, "%s", r.diag.msg);
	for (unsigned l = 0; l < 32; l++)
		for (unsigned j = 0; j < 8; j++) {
			unsigned g = l / 4, t = l % 4, jj = j & 3;
			unsigned row = g + 8 * (jj & 1), col = 2 * t + 8 * (jj >> 1);
			uint32_t want = (row * 16 + col) | (row * 16 + col + 1) << 16;
			cr_expect_eq(out[l * 8 + j], want, "lane %u reg %u: 0x%08x, want 0x%08x", l, j,
				     out[l * 8 + j], want);
		}
}

/* A row-major load stored column-major is the transpose; a stride picks a
 * 16 x 16 window out of a wider matrix. */
Test(tensor, wmma_load_store_layouts_and_stride)
{
	static float in[16 * 24], out[256];
	for (int i = 0; i < 16 * 24; i++)
		in[i] = (float)i;
	cs_grid_result r = h_run_body("", "\tmov.u32 %r20, 24;\n"
				      "\twmma.load.c.sync.aligned.row.m16n16k16.global.f32 " F8 ", [%rd2+32], %r20;\n"
				      "\twmma.store.d.sync.aligned.col.m16n16k16.f32 [%rd1], " F8 ";\n",
				      32, in, sizeof(in), out, sizeof(out));
	cr_assert_eq(r.outcome, CS_GRID_EXECUTED, "%s", r.diag.msg);
	for (int i = 0; i < 16; i++)
		for (int j = 0; j < 16; j++)
			cr_expect_eq(out[j * 16 + i], in[i * 24 + 8 + j], "C[%d][%d]", i, j);
	/* an immediate stride, and the stored side at a shared variable's address */
	memset(out, 0, sizeof(out));
	r = h_run_body(".shared .align 32 .b8 sh[1024];",
		       "\twmma.load.c.sync.aligned.row.m16n16k16.global.f32 " F8 ", [%rd2+32], 24;\n"
		       "\twmma.store.d.sync.aligned.col.m16n16k16.shared.f32 [sh], " F8 ";\n"
		       "\twmma.load.c.sync.aligned.row.m16n16k16.shared.f32 " F8 ", [sh];\n"
		       "\twmma.store.d.sync.aligned.row.m16n16k16.f32 [%rd1], " F8 ", 16;\n",
		       32, in, sizeof(in), out, sizeof(out));
	cr_assert_eq(r.outcome, CS_GRID_EXECUTED, "%s", r.diag.msg);
	for (int i = 0; i < 16; i++)
		for (int j = 0; j < 16; j++)
			cr_expect_eq(out[j * 16 + i], in[i * 24 + 8 + j], "C[%d][%d] (immediate stride)", i, j);
}

static void expect_stop(cs_grid_result r, int outcome, const char *needle)
{
	cr_expect_eq(r.outcome, outcome, "outcome %d: %s", r.outcome, r.diag.msg);
	cr_expect(strstr(r.diag.msg, needle), "'%s' not in: %s", needle, r.diag.msg);
	cr_expect(strstr(r.diag.msg, "line"), "no PTX line in: %s", r.diag.msg);
}

/* Warp-wide instructions used the wrong way stop the grid naming the line. */
Test(tensor, hostile_uses_are_located_errors)
{
	static float in[1024], out[256];
	/* each lane its own address: wmma moves one matrix per warp */
	expect_stop(h_run_body("", "\twmma.load.c.sync.aligned.row.m16n16k16.f32 " F8 ", [%rd5];\n",
			       32, in, sizeof(in), out, sizeof(out)),
		    CS_GRID_ERROR, "lane 1's address or stride differs");
	/* a row not at a multiple of the fragment's 32 bytes */
	expect_stop(h_run_body("", "\twmma.load.c.sync.aligned.row.m16n16k16.f32 " F8 ", [%rd2+4];\n",
			       32, in, sizeof(in), out, sizeof(out)),
		    CS_GRID_FAULT, "misaligned wmma.load: row 0");
	expect_stop(h_run_body("", "\tmov.u32 %r20, 20;\n"
			       "\twmma.load.c.sync.aligned.row.m16n16k16.f32 " F8 ", [%rd2], %r20;\n",
			       32, in, sizeof(in), out, sizeof(out)),
		    CS_GRID_FAULT, "row 1 starts at");
	/* half a warp */
	expect_stop(h_run_body("", "\twmma.load.c.sync.aligned.row.m16n16k16.f32 " F8 ", [%rd2];\n",
			       16, in, sizeof(in), out, sizeof(out)),
		    CS_GRID_ERROR, "needs all 32 lanes");
	expect_stop(h_run_body("", "\tmma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%f1,%f2,%f3,%f4}, "
			       "{%r10,%r11,%r12,%r13}, {%r14,%r15}, {%f1,%f2,%f3,%f4};\n",
			       8, in, sizeof(in), out, sizeof(out)),
		    CS_GRID_ERROR, "mma.sync needs all 32 lanes");
	expect_stop(h_run_body(".shared .align 16 .b8 sh[256];", "\tmov.u32 %r20, sh;\n"
			       "\tldmatrix.sync.aligned.m8n8.x1.shared.b16 {%r10}, [%r20];\n",
			       31, in, sizeof(in), out, sizeof(out)),
		    CS_GRID_ERROR, "ldmatrix needs all 32 lanes");
	/* past the CTA's shared memory, and a stride that leaves the mapping */
	expect_stop(h_run_body(".shared .align 32 .b8 sh[64];", "\tmov.u32 %r20, sh;\n"
			       "\twmma.store.d.sync.aligned.row.m16n16k16.shared.f32 [%r20], " F8 ";\n",
			       32, in, sizeof(in), out, sizeof(out)),
		    CS_GRID_FAULT, "outside the CTA's");
	expect_stop(h_run_body("", "\tmov.u32 %r20, 0xfffffff8;\n"
			       "\twmma.load.c.sync.aligned.col.m16n16k16.global.f32 " F8 ", [%rd2], %r20;\n",
			       32, in, sizeof(in), out, sizeof(out)),
		    CS_GRID_FAULT, "not mapped");
	/* nothing mapped there */
	expect_stop(h_run_body("", "\tmov.u64 %rd8, 0x7000000000;\n"
			       "\twmma.store.d.sync.aligned.row.m16n16k16.global.f32 [%rd8], " F8 ";\n",
			       32, in, sizeof(in), out, sizeof(out)),
		    CS_GRID_FAULT, "not mapped");
}

static void expect_parse_error(const char *body, cs_status st, uint32_t line, uint32_t col,
			       const char *needle)
{
	char *src = h_kernel("", body);
	cs_diag d;
	cs_ptx_program *p = cs_ptx_parse(src, strlen(src), "bad.ptx", &d);
	if (p) {
		size_t k;
		cr_assert(cs_ptx_entry_find(p, "k", &k));
		const cs_diag *why = cs_ptx_entry_refusal(p, k);
		cr_assert_not_null(why, "parsed, and k is not refused: %s", body);
		d = *why;
		cs_ptx_program_free(p);
	}
	free(src);
	char buf[1024];
	cs_diag_format(&d, buf, sizeof(buf));
	cr_expect_eq(d.status, st, "%s", buf);
	cr_expect_eq(d.line, line, "%s", buf);
	cr_expect_eq(d.col, col, "%s", buf);
	cr_expect(strstr(d.msg, needle), "'%s' not in: %s", needle, buf);
}

/* Malformed tensor-core statements name their line and column. Line 24 is
 * the body's first line in h_kernel. */
Test(tensor, malformed_statements_are_located)
{
	expect_parse_error("\twmma.load.a.sync.aligned.row.m16n16k16.f16 {%r10,%r11,%r12,%r13}, [%rd2];\n",
			   CS_ERR_INPUT, 24, 45, "operand 1 of wmma takes 8 registers");
	expect_parse_error("\twmma.load.a.sync.aligned.row.m16n16k16.bf16 {%r10,%r11,%r12,%r13}, %rd2;\n",
			   CS_ERR_INPUT, 24, 69, "needs an address");
	expect_parse_error("\twmma.store.a.sync.aligned.row.m16n16k16.f16 [%rd2], " R8 ";\n",
			   CS_ERR_UNSUPPORTED, 24, 2, "wmma.store form");
	expect_parse_error("\twmma.load.a.sync.aligned.row.m16n16k8.f16 " R8 ", [%rd2];\n",
			   CS_ERR_UNSUPPORTED, 24, 2, "wmma.load form");
	expect_parse_error("\twmma.mma.sync.aligned.row.col.m16n16k16.f32.f32 " F8 ", " R8 ", {%r10}, " F8 ";\n",
			   CS_ERR_INPUT, 24, 128, "operand 3 of wmma takes 8 registers");
	expect_parse_error("\twmma.fill.sync.aligned.m16n16k16.f32 " F8 ", %f1;\n",
			   CS_ERR_UNSUPPORTED, 24, 2, "wmma other than");
	expect_parse_error("\tcvt.rni.tf32.f32 %r10, %f1;\n", CS_ERR_UNSUPPORTED, 24, 2, "cvt to tf32");
}

/* cvt.{rna,rn,rz}.tf32.f32 against the format's rules. */
Test(tensor, cvt_to_tf32)
{
	static const struct {
		uint32_t in, rna, rn, rz;
	} cases[] = {
		{ 0x3f800000, 0x3f800000, 0x3f800000, 0x3f800000 }, /* 1.0 exact */
		{ 0x3f801000, 0x3f802000, 0x3f800000, 0x3f800000 }, /* a tie, even below: rn down */
		{ 0x3f803000, 0x3f804000, 0x3f804000, 0x3f802000 }, /* a tie, odd below: both up */
		{ 0x3f800fff, 0x3f800000, 0x3f800000, 0x3f800000 }, /* under half */
		{ 0xbf801001, 0xbf802000, 0xbf802000, 0xbf800000 }, /* negative, over half */
		{ 0x7f7fffff, 0x7f800000, 0x7f800000, 0x7f7fe000 }, /* rounds up to inf */
		{ 0xff800000, 0xff800000, 0xff800000, 0xff800000 }, /* -inf */
		{ 0x7f800001, 0x7fc00000, 0x7fc00000, 0x7fc00000 }, /* a NaN stays a NaN */
		{ 0x00000fff, 0x00000000, 0x00000000, 0x00000000 }, /* subnormal under half */
	};
	enum { N = sizeof(cases) / sizeof(cases[0]) };
	uint32_t in[N], out[3 * 32];
	for (int i = 0; i < N; i++)
		in[i] = cases[i].in;
	cs_grid_result r = h_run_body("", "\tld.global.f32 %f1, [%rd5];\n"
				      "\tcvt.rna.tf32.f32 %r10, %f1;\n\tcvt.rn.tf32.f32 %r11, %f1;\n"
				      "\tcvt.rz.tf32.f32 %r12, %f1;\n"
				      "\tst.global.b32 [%rd4], %r10;\n\tst.global.b32 [%rd4+128], %r11;\n"
				      "\tst.global.b32 [%rd4+256], %r12;\n",
				      N, in, sizeof(in), out, sizeof(out));
	cr_assert_eq(r.outcome, CS_GRID_EXECUTED, "%s", r.diag.msg);
	for (int i = 0; i < N; i++) {
		cr_expect_eq(out[i], cases[i].rna, "rna 0x%08x: 0x%08x", cases[i].in, out[i]);
		cr_expect_eq(out[32 + i], cases[i].rn, "rn 0x%08x: 0x%08x", cases[i].in, out[32 + i]);
		cr_expect_eq(out[64 + i], cases[i].rz, "rz 0x%08x: 0x%08x", cases[i].in, out[64 + i]);
	}
}

/* cp.async's bytes land at the wait that covers their group, not before: a
 * read of the destination ahead of it sees the old bytes (here zero). */
Test(tensor, cp_async_lands_at_its_wait)
{
	static uint32_t in[64], out[5 * 32];
	for (int i = 0; i < 64; i++)
		in[i] = 0x1000u + (uint32_t)i;
	cs_grid_result r = h_run_body(".shared .align 16 .b8 sh[256];",
				      "\tmov.u32 %r20, sh;\n\tshl.b32 %r21, %r2, 2;\n\tadd.u32 %r22, %r20, %r21;\n"
				      "\tcp.async.ca.shared.global [%r22], [%rd5], 4;\n"
				      "\tld.shared.b32 %r30, [%r22];\n"
				      "\tcp.async.commit_group;\n"
				      "\tcp.async.ca.shared.global [%r22+128], [%rd5+128], 4;\n"
				      "\tcp.async.commit_group;\n"
				      "\tld.shared.b32 %r31, [%r22];\n"
				      "\tcp.async.wait_group 1;\n"
				      "\tld.shared.b32 %r32, [%r22];\n\tld.shared.b32 %r33, [%r22+128];\n"
				      "\tcp.async.wait_all;\n"
				      "\tld.shared.b32 %r34, [%r22+128];\n"
				      "\tst.global.b32 [%rd4], %r30;\n\tst.global.b32 [%rd4+128], %r31;\n"
				      "\tst.global.b32 [%rd4+256], %r32;\n\tst.global.b32 [%rd4+384], %r33;\n"
				      "\tst.global.b32 [%rd4+512], %r34;\n",
				      32, in, sizeof(in), out, sizeof(out));
	cr_assert_eq(r.outcome, CS_GRID_EXECUTED, "%s", r.diag.msg);
	for (int t = 0; t < 32; t++) {
		cr_expect_eq(out[t], 0, "lane %d: issued, not committed: 0x%x", t, out[t]);
		cr_expect_eq(out[32 + t], 0, "lane %d: committed, not waited: 0x%x", t, out[32 + t]);
		cr_expect_eq(out[64 + t], in[t], "lane %d: group 0 after wait_group 1", t);
		cr_expect_eq(out[96 + t], 0, "lane %d: group 1 after wait_group 1: 0x%x", t, out[96 + t]);
		cr_expect_eq(out[128 + t], in[32 + t], "lane %d: group 1 after wait_all", t);
	}
	/* copies never waited for pile up to a bound, then stop the grid */
	r = h_run_body(".shared .align 16 .b8 sh[256];",
		       "\tmov.u32 %r20, sh;\n\tmov.u32 %r40, 0;\n"
		       "$Lcopy:\n\tcp.async.ca.shared.global [%r20], [%rd2], 4;\n"
		       "\tadd.u32 %r40, %r40, 1;\n\tsetp.lt.u32 %p1, %r40, 3000;\n\t@%p1 bra $Lcopy;\n",
		       32, in, sizeof(in), out, sizeof(out));
	expect_stop(r, CS_GRID_ERROR, "cp.async copies in flight");
	expect_parse_error("\tcp.async.wait_group %r1;\n", CS_ERR_INPUT, 24, 22, "integer constant");
}

/* ldmatrix per the PTX ISA: lanes 8i..8i+7 give the rows of matrix i; lane l
 * receives row l/4, columns 2(l%4) and +1 of each matrix, or with .trans
 * column l/4, rows 2(l%4) and +1. Elements here are their own index. */
Test(tensor, ldmatrix_rows_and_transpose)
{
	static uint16_t in[256];
	static uint32_t out[32 * 8];
	for (int i = 0; i < 256; i++)
		in[i] = (uint16_t)i;
	cs_grid_result r = h_run_body(".shared .align 16 .b8 sh[512];",
				      "\tmov.u32 %r20, sh;\n\tshl.b32 %r21, %r2, 4;\n\tadd.u32 %r22, %r20, %r21;\n"
				      "\tmul.wide.u32 %rd6, %r2, 16;\n\tadd.s64 %rd7, %rd2, %rd6;\n"
				      "\tld.global.v4.b32 {%r30,%r31,%r32,%r33}, [%rd7];\n"
				      "\tst.shared.v4.b32 [%r22], {%r30,%r31,%r32,%r33};\n"
				      "\tbar.warp.sync -1;\n"
				      "\tldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%r10,%r11,%r12,%r13}, [%r22];\n"
				      "\tldmatrix.sync.aligned.m8n8.x2.shared.b16 {%r14,%r15}, [%r22];\n"
				      "\tmul.wide.u32 %rd6, %r2, 32;\n\tadd.s64 %rd7, %rd1, %rd6;\n"
				      "\tst.global.v4.b32 [%rd7], {%r10,%r11,%r12,%r13};\n"
				      "\tst.global.v2.b32 [%rd7+16], {%r14,%r15};\n",
				      32, in, sizeof(in), out, sizeof(out));
	cr_assert_eq(r.outcome, CS_GRID_EXECUTED, "%s", r.diag.msg);
	for (unsigned l = 0; l < 32; l++) {
		unsigned g = l / 4, t = l % 4;
		for (unsigned i = 0; i < 4; i++) {
			uint32_t want = (i * 64 + 2 * t * 8 + g) | (i * 64 + (2 * t + 1) * 8 + g) << 16;
			cr_expect_eq(out[l * 8 + i], want, "x4.trans lane %u matrix %u: 0x%08x, want 0x%08x",
				     l, i, out[l * 8 + i], want);
		}
		for (unsigned i = 0; i < 2; i++) {
			uint32_t want = (i * 64 + g * 8 + 2 * t) | (i * 64 + g * 8 + 2 * t + 1) << 16;
			cr_expect_eq(out[l * 8 + 4 + i], want, "x2 lane %u matrix %u: 0x%08x, want 0x%08x",
				     l, i, out[l * 8 + 4 + i], want);
		}
	}
}

/* Warp 0 (line 31 of the kernel) copies in[t] to sh[t] with cp.async; warp 1
 * reads sh. Mode 0: warp 0 waits at a barrier, not for its copies, so the
 * reader sees zeros when it runs first; mode 1: warp 0 exits before the
 * barrier, which lands its copies; mode 2: warp 0 waits for its copies and
 * warp 1 skips the barrier. */
/* A race was reported whose write is the cp.async at PTX line `line` (the
 * copy's bytes landing count as its write). */
static void expect_race_write_at(const h_env *e, unsigned line)
{
	char want[64];
	snprintf(want, sizeof(want), "wrote it at PTX line %u", line);
	size_t races = 0;
	for (size_t i = 0; i < e->tb.trace.n; i++)
		if (e->tb.trace.recs[i].ev.kind == CS_EV_RACE) {
			races++;
			cr_expect(strstr(e->tb.trace.recs[i].ev.detail, want), "'%s' not in: %s", want, e->tb.trace.recs[i].ev.detail);
		}
	cr_expect_gt(races, 0, "no race reported");
}

static void run_unwaited(uint32_t mode, cs_ptx_schedule sched, uint32_t *out, h_env *e)
{
	char *src = h_kernel(".shared .align 16 .b8 sh[128];",
			     "\tmov.u32 %r20, sh;\n\tand.b32 %r21, %r2, 31;\n\tshl.b32 %r21, %r21, 2;\n"
			     "\tadd.u32 %r22, %r20, %r21;\n\tld.global.u32 %r25, [%rd2+128];\n"
			     "\tsetp.ge.u32 %p1, %r2, 32;\n\t@%p1 bra $Lreader;\n"
			     "\tcp.async.ca.shared.global [%r22], [%rd5], 4;\n"
			     "\tsetp.eq.u32 %p2, %r25, 1;\n\t@%p2 exit;\n"
			     "\tsetp.eq.u32 %p3, %r25, 2;\n\t@%p3 cp.async.wait_all;\n"
			     "\tbar.sync 0;\n\texit;\n"
			     "$Lreader:\n\tsetp.eq.u32 %p3, %r25, 2;\n\t@!%p3 bar.sync 0;\n"
			     "\tld.shared.b32 %r30, [%r22];\n"
			     "\tst.global.b32 [%rd4+-128], %r30;\n");
	cs_diag d;
	cs_ptx_program *p = cs_ptx_parse(src, strlen(src), "unwaited.ptx", &d);
	cr_assert(p, "%s", d.msg);
	free(src);
	uint32_t in[33];
	for (int i = 0; i < 32; i++)
		in[i] = 0x2000u + (uint32_t)i;
	in[32] = mode;
	h_init(e);
	e->schedule = sched;
	e->races = CS_PTX_RACES_REPORT;
	uint64_t vin = h_put(e, in, sizeof(in)), vout = h_alloc(e, 32 * 4);
	cs_grid_result r = h_run(e, p, "k", (uint32_t[]){ 1, 1, 1 }, (uint32_t[]){ 64, 1, 1 }, 0,
				 (uint64_t[]){ vout, vin, 64 }, 3);
	cr_assert_eq(r.outcome, CS_GRID_EXECUTED, "%s", r.diag.msg);
	h_read(e, vout, out, 32 * 4);
	cs_ptx_program_free(p);
}

Test(tensor, cp_async_without_wait_shows)
{
	uint32_t out[32];
	h_env e;
	run_unwaited(0, CS_PTX_SCHEDULE_REVERSE, out, &e);
	for (int t = 0; t < 32; t++)
		cr_expect_eq(out[t], 0, "lane %d read 0x%x before the copy was waited for", t, out[t]);
	/* and the copy, landing as warp 0 ends, races with that read */
	expect_race_write_at(&e, 31);
	h_fini(&e);
	run_unwaited(1, CS_PTX_SCHEDULE_IN_ORDER, out, &e);
	for (int t = 0; t < 32; t++)
		cr_expect_eq(out[t], 0x2000u + (uint32_t)t, "lane %d: the exited warp's copy", t);
	expect_no_race(&e, "sm_90", "exited");
	h_fini(&e);
	run_unwaited(1, CS_PTX_SCHEDULE_REVERSE, out, &e);
	for (int t = 0; t < 32; t++)
		cr_expect_eq(out[t], 0x2000u + (uint32_t)t, "lane %d: the exited warp's copy (reverse)", t);
	expect_no_race(&e, "sm_90", "exited, reverse");
	h_fini(&e);
	/* waited for, but read by another warp with no barrier between */
	run_unwaited(2, CS_PTX_SCHEDULE_IN_ORDER, out, &e);
	expect_race_write_at(&e, 31);
	h_fini(&e);
}

/* The accumulator paths nvcc's wmma kernels above do not take: an f16 C
 * loaded from memory (m16n16k16) and an f32 C at tf32's m16n16k8 from shared
 * memory, each passed through wmma.mma with zero A and B and stored: D must
 * be C, bit for bit. */
#define ZERO_R8                                                                            \
	"\tmov.b32 %r10, 0;\n\tmov.b32 %r11, 0;\n\tmov.b32 %r12, 0;\n\tmov.b32 %r13, 0;\n" \
	"\tmov.b32 %r14, 0;\n\tmov.b32 %r15, 0;\n\tmov.b32 %r16, 0;\n\tmov.b32 %r17, 0;\n"
Test(tensor, wmma_accumulators_from_memory)
{
	static uint16_t h[256], hout[256];
	static float f[256], fout[256];
	uint32_t s = 9;
	for (int i = 0; i < 256; i++) {
		h[i] = h_f16_bits(h_frand(&s) * 100.0f);
		f[i] = h_frand(&s) * 1e3f;
	}
	cs_grid_result r = h_run_body("", ZERO_R8
		"\twmma.load.c.sync.aligned.col.m16n16k16.global.f16 {%r20,%r21,%r22,%r23}, [%rd2];\n"
		"\twmma.mma.sync.aligned.col.row.m16n16k16.f16.f16 {%r24,%r25,%r26,%r27}, " R8 ", " R8
		", {%r20,%r21,%r22,%r23};\n"
		"\twmma.store.d.sync.aligned.col.m16n16k16.global.f16 [%rd1], {%r24,%r25,%r26,%r27};\n",
		32, h, sizeof(h), hout, sizeof(hout));
	cr_assert_eq(r.outcome, CS_GRID_EXECUTED, "%s", r.diag.msg);
	cr_expect_arr_eq(hout, h, sizeof(h), "f16 C through wmma.mma");
	/* the shared copy comes first: each lane moves 8 floats */
	r = h_run_body(".shared .align 32 .b8 sh[1024];", ZERO_R8
		"\tmov.u32 %r40, sh;\n\tshl.b32 %r41, %r2, 5;\n\tadd.u32 %r42, %r40, %r41;\n"
		"\tmul.wide.u32 %rd6, %r2, 32;\n\tadd.s64 %rd7, %rd2, %rd6;\n"
		"\tld.global.v4.b32 {%r30,%r31,%r32,%r33}, [%rd7];\n"
		"\tst.shared.v4.b32 [%r42], {%r30,%r31,%r32,%r33};\n"
		"\tld.global.v4.b32 {%r30,%r31,%r32,%r33}, [%rd7+16];\n"
		"\tst.shared.v4.b32 [%r42+16], {%r30,%r31,%r32,%r33};\n"
		"\tbar.warp.sync -1;\n"
		"\twmma.load.c.sync.aligned.row.m16n16k8.shared.f32 " F8 ", [sh];\n"
		"\twmma.mma.sync.aligned.row.row.m16n16k8.f32.tf32.tf32.f32 " F8 ", {%r10,%r11,%r12,%r13}, "
		"{%r14,%r15,%r16,%r17}, " F8 ";\n"
		"\twmma.store.d.sync.aligned.row.m16n16k8.global.f32 [%rd1], " F8 ";\n",
		32, f, sizeof(f), fout, sizeof(fout));
	cr_assert_eq(r.outcome, CS_GRID_EXECUTED, "%s", r.diag.msg);
	cr_expect_arr_eq(fout, f, sizeof(f), "f32 C at m16n16k8 through wmma.mma");
}

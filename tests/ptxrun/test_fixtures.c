/* SPDX-License-Identifier: MIT */
/* The project's CUDA fixture kernels (fixtures/kernels/out/K.sm_XX.ptx, nvcc 13 for
 * sm_80, sm_90 and sm_100): every file parses, and every kernel of every arch
 * computes what a C reference computes. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"

static const char *archs[] = { "sm_80", "sm_90", "sm_100" };

Test(fixtures, vadd_all_archs)
{
	for (int a = 0; a < 3; a++) {
		cs_ptx_program *p = h_load_fixture("vadd", archs[a]);
		h_env e;
		h_init(&e);
		enum { N = 3000 };
		static float x[N], y[N], z[N];
		uint32_t s = 1;
		for (int i = 0; i < N; i++) {
			x[i] = h_frand(&s);
			y[i] = h_frand(&s);
		}
		uint64_t vx = h_put(&e, x, sizeof(x)), vy = h_put(&e, y, sizeof(y)), vz = h_alloc(&e, sizeof(z));
		uint64_t args[] = { vx, vy, vz, N };
		cs_grid_result r = h_run(&e, p, "vadd", (uint32_t[]){ (N + 255) / 256, 1, 1 },
					 (uint32_t[]){ 256, 1, 1 }, 0, args, 4);
		cr_assert_eq(r.outcome, CS_GRID_EXECUTED, "%s: %s", archs[a], r.diag.msg);
		h_read(&e, vz, z, sizeof(z));
		for (int i = 0; i < N; i++)
			cr_assert_eq(z[i], x[i] + y[i], "%s z[%d]", archs[a], i);
		h_fini(&e);
		cs_ptx_program_free(p);
	}
}

Test(fixtures, matmul_all_archs_with_ragged_edges)
{
	enum { N = 40 };
	static float A[N * N], B[N * N], C[N * N];
	uint32_t s = 7;
	for (int i = 0; i < N * N; i++) {
		A[i] = h_frand(&s);
		B[i] = h_frand(&s);
	}
	for (int a = 0; a < 3; a++) {
		cs_ptx_program *p = h_load_fixture("matmul", archs[a]);
		h_env e;
		h_init(&e);
		uint64_t va = h_put(&e, A, sizeof(A)), vb = h_put(&e, B, sizeof(B)), vc = h_alloc(&e, sizeof(C));
		uint64_t args[] = { va, vb, vc, N };
		cs_grid_result r = h_run(&e, p, "matmul", (uint32_t[]){ 3, 3, 1 }, (uint32_t[]){ 16, 16, 1 },
					 0, args, 4);
		cr_assert_eq(r.outcome, CS_GRID_EXECUTED, "%s: %s", archs[a], r.diag.msg);
		h_read(&e, vc, C, sizeof(C));
		for (int i = 0; i < N; i++)
			for (int j = 0; j < N; j++) {
				/* the kernel's exact order: tiles of 16, zero-padded, fmaf per k */
				float acc = 0.0f;
				for (int t = 0; t < N; t += 16)
					for (int k = 0; k < 16; k++) {
						float av = t + k < N ? A[i * N + t + k] : 0.0f;
						float bv = t + k < N ? B[(t + k) * N + j] : 0.0f;
						acc = fmaf(av, bv, acc);
					}
				cr_assert_eq(C[i * N + j], acc, "%s C[%d][%d]", archs[a], i, j);
			}
		h_fini(&e);
		cs_ptx_program_free(p);
	}
}

Test(fixtures, softmax_rows_all_archs)
{
	enum { ROWS = 5, COLS = 77 };
	static float x[ROWS * COLS], y[ROWS * COLS];
	uint32_t s = 3;
	for (int i = 0; i < ROWS * COLS; i++)
		x[i] = h_frand(&s) * 8.0f;
	for (int a = 0; a < 3; a++) {
		cs_ptx_program *p = h_load_fixture("softmax", archs[a]);
		h_env e;
		h_init(&e);
		uint64_t vx = h_put(&e, x, sizeof(x)), vy = h_alloc(&e, sizeof(y));
		uint64_t args[] = { vx, vy, ROWS, COLS };
		cs_grid_result r = h_run(&e, p, "softmax_rows", (uint32_t[]){ 2, 1, 1 },
					 (uint32_t[]){ 96, 1, 1 }, 0, args, 4);
		cr_assert_eq(r.outcome, CS_GRID_EXECUTED, "%s: %s", archs[a], r.diag.msg);
		h_read(&e, vy, y, sizeof(y));
		for (int row = 0; row < ROWS; row++) {
			double m = -INFINITY, sum = 0;
			for (int j = 0; j < COLS; j++)
				m = fmax(m, x[row * COLS + j]);
			for (int j = 0; j < COLS; j++)
				sum += exp(x[row * COLS + j] - m);
			for (int j = 0; j < COLS; j++) {
				double want = exp(x[row * COLS + j] - m) / sum;
				cr_assert(fabs(y[row * COLS + j] - want) <= 1e-6 + 4e-6 * want,
					  "%s y[%d][%d] = %.9g want %.9g", archs[a], row, j,
					  y[row * COLS + j], want);
			}
		}
		h_fini(&e);
		cs_ptx_program_free(p);
	}
}

Test(fixtures, attention_dh256_seq64)
{
	enum { SEQ = 64, DH = 256 };
	static float q[SEQ * DH], k[SEQ * DH], v[SEQ * DH], out[SEQ * DH];
	uint32_t s = 11;
	for (int i = 0; i < SEQ * DH; i++) {
		q[i] = h_frand(&s);
		k[i] = h_frand(&s);
		v[i] = h_frand(&s);
	}
	float scale = 1.0f / 16.0f;
	for (int a = 0; a < 3; a++) {
		cs_ptx_program *p = h_load_fixture("attention", archs[a]);
		h_env e;
		h_init(&e);
		uint64_t vq = h_put(&e, q, sizeof(q)), vk = h_put(&e, k, sizeof(k)), vv = h_put(&e, v, sizeof(v));
		uint64_t vo = h_alloc(&e, sizeof(out));
		uint32_t sbits;
		memcpy(&sbits, &scale, 4);
		uint64_t args[] = { vq, vk, vv, vo, SEQ, DH, sbits };
		cs_grid_result r = h_run(&e, p, "attention", (uint32_t[]){ SEQ, 1, 1 },
					 (uint32_t[]){ DH, 1, 1 }, 0, args, 7);
		cr_assert_eq(r.outcome, CS_GRID_EXECUTED, "%s: %s", archs[a], r.diag.msg);
		h_read(&e, vo, out, sizeof(out));
		for (int i = 0; i < SEQ; i++) {
			double sc[SEQ], m = -INFINITY, sum = 0;
			for (int j = 0; j < SEQ; j++) {
				double acc = 0;
				for (int d = 0; d < DH; d++)
					acc += (double)q[i * DH + d] * k[j * DH + d];
				sc[j] = acc * scale;
				m = fmax(m, sc[j]);
			}
			for (int j = 0; j < SEQ; j++)
				sum += exp(sc[j] - m);
			for (int d = 0; d < DH; d++) {
				double want = 0;
				for (int j = 0; j < SEQ; j++)
					want += exp(sc[j] - m) / sum * v[j * DH + d];
				cr_assert(fabs(out[i * DH + d] - want) < 1e-5, "%s out[%d][%d] = %.9g want %.9g",
					  archs[a], i, d, out[i * DH + d], want);
			}
		}
		h_fini(&e);
		cs_ptx_program_free(p);
	}
}

Test(fixtures, ffn_layer)
{
	enum { T = 4, D = 64, F = 128 };
	static float x[T * D], w1[D * F], b1[F], w2[F * D], b2[D], h[T * F], y[T * D];
	uint32_t s = 5;
	for (int i = 0; i < T * D; i++)
		x[i] = h_frand(&s);
	for (int i = 0; i < D * F; i++) {
		w1[i] = h_frand(&s) * 0.2f;
		w2[i] = h_frand(&s) * 0.2f;
	}
	for (int i = 0; i < F; i++)
		b1[i] = h_frand(&s) * 0.1f;
	for (int i = 0; i < D; i++)
		b2[i] = h_frand(&s) * 0.1f;
	for (int a = 0; a < 3; a++) {
		cs_ptx_program *p = h_load_fixture("ffn", archs[a]);
		h_env e;
		h_init(&e);
		uint64_t vx = h_put(&e, x, sizeof(x)), vw1 = h_put(&e, w1, sizeof(w1)), vb1 = h_put(&e, b1, sizeof(b1));
		uint64_t vw2 = h_put(&e, w2, sizeof(w2)), vb2 = h_put(&e, b2, sizeof(b2));
		uint64_t vh = h_alloc(&e, sizeof(h)), vy = h_alloc(&e, sizeof(y));
		uint64_t up[] = { vx, vw1, vb1, vh, T, D, F };
		cs_grid_result r = h_run(&e, p, "ffn_up", (uint32_t[]){ T * F / 128, 1, 1 },
					 (uint32_t[]){ 128, 1, 1 }, 0, up, 7);
		cr_assert_eq(r.outcome, CS_GRID_EXECUTED, "%s: %s", archs[a], r.diag.msg);
		uint64_t down[] = { vh, vw2, vb2, vx, vy, T, D, F };
		r = h_run(&e, p, "ffn_down", (uint32_t[]){ T * D / 64 + 1, 1, 1 }, (uint32_t[]){ 64, 1, 1 }, 0,
			  down, 8);
		cr_assert_eq(r.outcome, CS_GRID_EXECUTED, "%s: %s", archs[a], r.diag.msg);
		h_read(&e, vh, h, sizeof(h));
		h_read(&e, vy, y, sizeof(y));
		double hd[T * F];
		for (int t = 0; t < T; t++)
			for (int j = 0; j < F; j++) {
				double acc = b1[j];
				for (int k = 0; k < D; k++)
					acc += (double)x[t * D + k] * w1[k * F + j];
				hd[t * F + j] = 0.5 * acc * (1.0 + tanh(0.7978845608 * (acc + 0.044715 * acc * acc * acc)));
				cr_assert(fabs(h[t * F + j] - hd[t * F + j]) < 2e-5, "%s h[%d][%d] = %.9g want %.9g",
					  archs[a], t, j, h[t * F + j], hd[t * F + j]);
			}
		for (int t = 0; t < T; t++)
			for (int j = 0; j < D; j++) {
				double acc = b2[j];
				for (int k = 0; k < F; k++)
					acc += (double)h[t * F + k] * w2[k * D + j];
				double want = x[t * D + j] + acc;
				cr_assert(fabs(y[t * D + j] - want) < 2e-5, "%s y[%d][%d]", archs[a], t, j);
			}
		h_fini(&e);
		cs_ptx_program_free(p);
	}
}

Test(fixtures, reductions_with_atomics)
{
	enum { N = 5000 };
	static float xf[N];
	static uint32_t xu[N];
	uint32_t s = 9;
	double fsum = 0;
	uint32_t usum = 0, umax = 0;
	for (int i = 0; i < N; i++) {
		xf[i] = h_frand(&s);
		fsum += xf[i];
		xu[i] = (s >> 4) & 0xfffff;
		usum += xu[i];
		if (xu[i] > umax)
			umax = xu[i];
	}
	for (int a = 0; a < 3; a++) {
		cs_ptx_program *p = h_load_fixture("reduce", archs[a]);
		h_env e;
		h_init(&e);
		uint64_t vx = h_put(&e, xf, sizeof(xf)), vo = h_alloc(&e, 16);
		uint64_t args[] = { vx, vo, N };
		cs_grid_result r = h_run(&e, p, "reduce_sum", (uint32_t[]){ 8, 1, 1 },
					 (uint32_t[]){ 256, 1, 1 }, 0, args, 3);
		cr_assert_eq(r.outcome, CS_GRID_EXECUTED, "%s: %s", archs[a], r.diag.msg);
		float got;
		h_read(&e, vo, &got, 4);
		cr_expect(fabs(got - fsum) < 1e-3, "%s sum %.7g want %.7g", archs[a], got, fsum);
		uint64_t vu = h_put(&e, xu, sizeof(xu)), vs = h_alloc(&e, 8), vm = vs + 4;
		uint64_t ua[] = { vu, vs, vm, N };
		r = h_run(&e, p, "reduce_u32", (uint32_t[]){ (N + 127) / 128, 1, 1 },
			  (uint32_t[]){ 128, 1, 1 }, 0, ua, 4);
		cr_assert_eq(r.outcome, CS_GRID_EXECUTED, "%s: %s", archs[a], r.diag.msg);
		uint32_t res[2];
		h_read(&e, vs, res, 8);
		cr_expect_eq(res[0], usum);
		cr_expect_eq(res[1], umax);
		h_fini(&e);
		cs_ptx_program_free(p);
	}
}

/* reduce_sum's one float atomicAdd per CTA makes the sum depend on the order
 * the CTAs run in: the run says so (atomic-order finding at the atom's PTX
 * line); reduce_u32's integer atomics, whose old values nvcc's atom never
 * reads, are exact in any order and get no note (h_run also checks that they
 * compute the same bytes on 1, 2 and 4 threads). */
Test(fixtures, float_atomics_note_that_order_matters)
{
	enum { N = 4096 };
	static float xf[N];
	static uint32_t xu[N];
	for (int i = 0; i < N; i++) {
		xf[i] = 1.0f / (float)(i + 1);
		xu[i] = (uint32_t)i * 2654435761u >> 12;
	}
	for (int a = 0; a < 3; a++) {
		cs_ptx_program *p = h_load_fixture("reduce", archs[a]);
		size_t len;
		char *text = test_read_source(a == 0 ? "fixtures/kernels/out/reduce.sm_80.ptx"
					   : a == 1 ? "fixtures/kernels/out/reduce.sm_90.ptx"
						    : "fixtures/kernels/out/reduce.sm_100.ptx", &len);
		cr_assert(text);
		/* the PTX line of the float atom, found in nvcc's text */
		unsigned line = 1, atom_line = 0;
		for (const char *q = text; *q; q++) {
			if (*q == '\n')
				line++;
			else if (!atom_line && !strncmp(q, "atom.global.add.f32", 19))
				atom_line = line;
		}
		free(text);
		cr_assert(atom_line, "%s: no atom.global.add.f32 in reduce", archs[a]);
		h_env e;
		h_init(&e);
		uint64_t vx = h_put(&e, xf, sizeof(xf)), vo = h_alloc(&e, 16);
		cs_grid_result r = h_run(&e, p, "reduce_sum", (uint32_t[]){ 16, 1, 1 },
					 (uint32_t[]){ 256, 1, 1 }, 0, (uint64_t[]){ vx, vo, N }, 3);
		cr_assert_eq(r.outcome, CS_GRID_EXECUTED, "%s: %s", archs[a], r.diag.msg);
		size_t notes = 0;
		for (size_t i = 0; i < e.tb.trace.n; i++) {
			if (e.tb.trace.recs[i].ev.kind != CS_EV_ATOMIC_ORDER)
				continue;
			notes++;
			cr_expect_eq(e.tb.trace.recs[i].ev.aux, atom_line, "%s", e.tb.trace.recs[i].ev.detail);
			cr_expect(strstr(e.tb.trace.recs[i].ev.detail, "reduce_sum") && strstr(e.tb.trace.recs[i].ev.detail, "adds floats"),
				  "%s", e.tb.trace.recs[i].ev.detail);
		}
		cr_expect_eq(notes, 1, "%s: %zu atomic-order notes for reduce_sum", archs[a], notes);
		size_t before = e.tb.trace.n;
		uint64_t vu = h_put(&e, xu, sizeof(xu)), vs = h_alloc(&e, 8);
		r = h_run(&e, p, "reduce_u32", (uint32_t[]){ N / 128, 1, 1 }, (uint32_t[]){ 128, 1, 1 }, 0,
			  (uint64_t[]){ vu, vs, vs + 4, N }, 4);
		cr_assert_eq(r.outcome, CS_GRID_EXECUTED, "%s: %s", archs[a], r.diag.msg);
		for (size_t i = before; i < e.tb.trace.n; i++)
			cr_expect_neq(e.tb.trace.recs[i].ev.kind, CS_EV_ATOMIC_ORDER, "%s: %s", archs[a], e.tb.trace.recs[i].ev.detail);
		/* one CTA: no other CTA to race with, no note */
		before = e.tb.trace.n;
		r = h_run(&e, p, "reduce_sum", (uint32_t[]){ 1, 1, 1 }, (uint32_t[]){ 256, 1, 1 }, 0,
			  (uint64_t[]){ vx, vo, N }, 3);
		cr_assert_eq(r.outcome, CS_GRID_EXECUTED);
		for (size_t i = before; i < e.tb.trace.n; i++)
			cr_expect_neq(e.tb.trace.recs[i].ev.kind, CS_EV_ATOMIC_ORDER, "%s", e.tb.trace.recs[i].ev.detail);
		h_fini(&e);
		cs_ptx_program_free(p);
	}
}

/* ---- issue 10: the PTX nvcc emits for everyday CUDA ----------------------- */

/* Launch with a raw parameter block (struct parameters by value). */
static cs_grid_result run_raw(h_env *e, const cs_ptx_program *p, const char *name, uint32_t gx,
			      uint32_t bx, const uint8_t *params, size_t len)
{
	size_t entry;
	cr_assert(cs_ptx_entry_find(p, name, &entry), "no entry %s", name);
	cr_assert(!cs_ptx_entry_refusal(p, entry), "%s refused: %s", name,
		  cs_ptx_entry_refusal(p, entry)->msg);
	cs_ptx_launch l;
	memset(&l, 0, sizeof(l));
	l.grid[0] = gx;
	l.grid[1] = l.grid[2] = 1;
	l.block[0] = bx;
	l.block[1] = l.block[2] = 1;
	l.params = params;
	l.param_bytes = len;
	l.approx = e->approx;
	cs_grid_result r;
	cs_ptx_run(p, entry, &l, &e->tb.bus, &r);
	return r;
}

static void expect_ran(const cs_grid_result *r, const char *arch, const char *what)
{
	cr_assert_eq(r->outcome, CS_GRID_EXECUTED, "%s %s: %s", arch, what, r->diag.msg);
}

/* cuda_bf16.hpp on sm_80 widens bf16 with `mov.b32 %f1, {0,%rs1};` (item 1). */
Test(fixtures, bf16_gelu_and_residual)
{
	enum { N = 1000 };
	static uint16_t in[N], out[N], a[N], b[N], sum[N];
	uint32_t s = 3;
	for (int i = 0; i < N; i++) {
		in[i] = h_bf16_bits(4.0f * h_frand(&s));
		a[i] = h_bf16_bits(h_frand(&s));
		b[i] = h_bf16_bits(8.0f * h_frand(&s));
	}
	for (int k = 0; k < 3; k++) {
		cs_ptx_program *p = h_load_fixture("bf16", archs[k]);
		h_env e;
		h_init(&e);
		uint64_t vin = h_put(&e, in, sizeof(in)), vout = h_alloc(&e, sizeof(out));
		uint64_t va = h_put(&e, a, sizeof(a)), vb = h_put(&e, b, sizeof(b)), vs = h_alloc(&e, sizeof(sum));
		cs_grid_result r = h_run(&e, p, "bf16_gelu_forward", (uint32_t[]){ (N + 127) / 128, 1, 1 },
					 (uint32_t[]){ 128, 1, 1 }, 0, (uint64_t[]){ vout, vin, N }, 3);
		expect_ran(&r, archs[k], "bf16_gelu_forward");
		r = h_run(&e, p, "bf16_residual_forward", (uint32_t[]){ (N / 2 + 127) / 128, 1, 1 },
			  (uint32_t[]){ 128, 1, 1 }, 0, (uint64_t[]){ vs, va, vb, N / 2 }, 4);
		expect_ran(&r, archs[k], "bf16_residual_forward");
		h_read(&e, vout, out, sizeof(out));
		h_read(&e, vs, sum, sizeof(sum));
		for (int i = 0; i < N; i++) {
			float x = h_bf16_value(in[i]);
			float want = 0.5f * x * (1.0f + tanhf(0.7978845608f * (x + 0.044715f * x * x * x)));
			/* tanhf on the device is libdevice's, within 2 ulp: one bf16 step at most */
			float got = h_bf16_value(out[i]);
			cr_expect(fabsf(got - want) <= fabsf(want) * 0x1p-7f + 1e-6f,
				  "%s gelu(%g) = %g, want %g", archs[k], x, got, want);
			uint16_t ws = h_bf16_bits(h_bf16_value(a[i]) + h_bf16_value(b[i]));
			cr_expect_eq(sum[i], ws, "%s residual %d: 0x%04x want 0x%04x", archs[k], i, sum[i], ws);
		}
		h_fini(&e);
		cs_ptx_program_free(p);
	}
}

/* warpSize compiles to WARP_SZ (item 2); cg::reduce over a thread_block_tile. */
Test(fixtures, warpsize_and_cooperative_groups_rows)
{
	enum { ROWS = 37, COLS = 201 };
	static float x[ROWS * COLS], sums[ROWS], maxs[ROWS];
	uint32_t s = 11;
	for (int i = 0; i < ROWS * COLS; i++)
		x[i] = h_frand(&s);
	for (int k = 0; k < 3; k++) {
		cs_ptx_program *p = h_load_fixture("warpsize", archs[k]);
		h_env e;
		h_init(&e);
		uint64_t vx = h_put(&e, x, sizeof(x)), vs = h_alloc(&e, sizeof(sums)),
			 vm = h_alloc(&e, sizeof(maxs));
		/* 4 warps per block: rows 0..3 per CTA */
		uint32_t grid[3] = { (ROWS + 3) / 4, 1, 1 }, block[3] = { 128, 1, 1 };
		cs_grid_result r = h_run(&e, p, "row_sum_warpsize", grid, block, 0,
					 (uint64_t[]){ vx, vs, ROWS, COLS }, 4);
		expect_ran(&r, archs[k], "row_sum_warpsize");
		r = h_run(&e, p, "row_max_cg", grid, block, 0, (uint64_t[]){ vx, vm, ROWS, COLS }, 4);
		expect_ran(&r, archs[k], "row_max_cg");
		h_read(&e, vs, sums, sizeof(sums));
		h_read(&e, vm, maxs, sizeof(maxs));
		for (int row = 0; row < ROWS; row++) {
			double want = 0;
			float m = -INFINITY;
			for (int c = 0; c < COLS; c++) {
				want += x[row * COLS + c];
				m = fmaxf(m, x[row * COLS + c]);
			}
			cr_expect(fabs(sums[row] - want) <= 1e-4, "%s row %d sum %g want %g", archs[k], row,
				  sums[row], want);
			cr_expect_eq(maxs[row], m, "%s row %d max", archs[k], row);
		}
		h_fini(&e);
		cs_ptx_program_free(p);
	}
}

static uint32_t rotl32(uint32_t x, int r) { return (x << r) | (x >> (32 - r)); }

__extension__ typedef unsigned __int128 u128;

/* Rotates (shf), 128-bit carry chains, isspacep, match, half-warp masks (item 6). */
Test(fixtures, integer_idioms)
{
	enum { N = 300, M = 9 };
	static uint32_t hin[N], hout[N];
	static uint64_t a[N], b[M], wout[3 * N];
	uint32_t s = 5;
	for (int i = 0; i < N; i++) {
		s = s * 1664525u + 1013904223u;
		hin[i] = s;
		a[i] = ((uint64_t)s << 32) ^ (uint64_t)i * 0x9e3779b97f4a7c15ull;
	}
	for (int j = 0; j < M; j++)
		b[j] = 0xffffffff00000000ull >> j | (uint64_t)j;
	enum { BLOCKS = 3 };
	static int keys[BLOCKS * 32], all_same[BLOCKS], x[32], hw[3 * 32], sp[32];
	static unsigned peers[BLOCKS * 32];
	for (int i = 0; i < BLOCKS * 32; i++)
		keys[i] = i < 32 ? 42 : (i * 7) % 5;
	for (int i = 0; i < 32; i++)
		x[i] = (i * 37) % 150 - 20;
	for (int k = 0; k < 3; k++) {
		cs_ptx_program *p = h_load_fixture("intops", archs[k]);
		h_env e;
		h_init(&e);
		uint64_t vhin = h_put(&e, hin, sizeof(hin)), vhout = h_alloc(&e, sizeof(hout));
		uint64_t va = h_put(&e, a, sizeof(a)), vb = h_put(&e, b, sizeof(b)), vw = h_alloc(&e, sizeof(wout));
		uint64_t vk = h_put(&e, keys, sizeof(keys)), vp = h_alloc(&e, sizeof(peers)),
			 vall = h_alloc(&e, sizeof(all_same));
		uint64_t vx = h_put(&e, x, sizeof(x)), vhw = h_alloc(&e, sizeof(hw)), vsp = h_alloc(&e, sizeof(sp));
		uint32_t g1[3] = { (N + 63) / 64, 1, 1 }, b64[3] = { 64, 1, 1 }, b32[3] = { 32, 1, 1 };
		cs_grid_result r = h_run(&e, p, "hash_rotate", g1, b64, 0, (uint64_t[]){ vhin, vhout, N }, 3);
		expect_ran(&r, archs[k], "hash_rotate");
		r = h_run(&e, p, "wide_mac", g1, b64, 0, (uint64_t[]){ va, vb, vw, N, M }, 5);
		expect_ran(&r, archs[k], "wide_mac");
		r = h_run(&e, p, "match_keys", (uint32_t[]){ BLOCKS, 1, 1 }, b32, 0,
			  (uint64_t[]){ vk, vp, vall }, 3);
		expect_ran(&r, archs[k], "match_keys");
		r = h_run(&e, p, "half_warp_ops", (uint32_t[]){ 1, 1, 1 }, b32, 0, (uint64_t[]){ vx, vhw }, 2);
		expect_ran(&r, archs[k], "half_warp_ops");
		r = h_run(&e, p, "pointer_spaces", (uint32_t[]){ 1, 1, 1 }, b32, 0, (uint64_t[]){ vx, vsp }, 2);
		expect_ran(&r, archs[k], "pointer_spaces");
		h_read(&e, vhout, hout, sizeof(hout));
		h_read(&e, vw, wout, sizeof(wout));
		h_read(&e, vp, peers, sizeof(peers));
		h_read(&e, vall, all_same, sizeof(all_same));
		h_read(&e, vhw, hw, sizeof(hw));
		h_read(&e, vsp, sp, sizeof(sp));
		for (int i = 0; i < N; i++) {
			uint32_t h = 0x9747b28cu ^ (uint32_t)i;
			uint32_t kk = hin[i] * 0xcc9e2d51u;
			kk = rotl32(kk, 15) * 0x1b873593u;
			h = rotl32(h ^ kk, 13) * 5u + 0xe6546b64u;
			h ^= (h >> 16) | (h << 16);
			cr_expect_eq(hout[i], h, "%s hash %d", archs[k], i);
			u128 acc = 0;
			for (int j = 0; j < M; j++)
				acc += (u128)a[i] * b[j];
			u128 d = acc - ((u128)a[i] << 64);
			cr_expect_eq(wout[3 * i], (uint64_t)acc, "%s wide lo %d", archs[k], i);
			cr_expect_eq(wout[3 * i + 1], (uint64_t)(acc >> 64), "%s wide hi %d", archs[k], i);
			cr_expect_eq(wout[3 * i + 2], (uint64_t)(d >> 64) ^ (uint64_t)d, "%s wide sub %d",
				     archs[k], i);
		}
		for (int blk = 0; blk < BLOCKS; blk++) {
			bool same = true;
			for (int t = 0; t < 32; t++) {
				unsigned want = 0;
				for (int u = 0; u < 32; u++)
					if (keys[blk * 32 + u] == keys[blk * 32 + t])
						want |= 1u << u;
				same = same && want == 0xffffffffu;
				cr_expect_eq(peers[blk * 32 + t], want, "%s match.any %d/%d", archs[k], blk, t);
			}
			/* the kernel writes popc(__match_all_sync's mask), or -1 */
			cr_expect_eq(all_same[blk], same ? 32 : -1, "%s match.all %d", archs[k], blk);
		}
		for (int t = 0; t < 32; t++) {
			/* __shfl_down_sync(mask, v, o, 16) tree: lanes whose source is past
			 * their 16-lane segment keep their own value */
			int v[32];
			for (int u = 0; u < 32; u++)
				v[u] = x[u];
			for (int o = 8; o > 0; o /= 2) {
				int nv[32];
				for (int u = 0; u < 32; u++)
					nv[u] = v[u] + ((u & 15) + o <= 15 ? v[u + o] : v[u]);
				memcpy(v, nv, sizeof(v));
			}
			unsigned half = t < 16 ? 0x0000ffffu : 0xffff0000u, ballot = 0;
			int any = 0;
			for (int u = 0; u < 32; u++)
				if (half >> u & 1) {
					ballot |= (unsigned)(x[u] > 0) << u;
					any |= x[u] > 100;
				}
			cr_expect_eq(hw[3 * t], v[t], "%s half-warp sum lane %d: %d want %d", archs[k], t,
				     hw[3 * t], v[t]);
			cr_expect_eq((unsigned)hw[3 * t + 1], ballot, "%s half-warp ballot lane %d", archs[k], t);
			cr_expect_eq(hw[3 * t + 2], any, "%s half-warp any lane %d", archs[k], t);
			/* global 1, shared 2, local 4 (never constant 8), +16 for the read */
			int want = t % 3 == 0 ? 1 + (x[t & 3] >= 0 ? 16 : 0) : t % 3 == 1 ? 2 + 16 : 4 + 16;
			cr_expect_eq(sp[t], want, "%s pointer_spaces lane %d: %d want %d", archs[k], t, sp[t],
				     want);
		}
		h_fini(&e);
		cs_ptx_program_free(p);
	}
}

/* atomicAdd on __half2 / __nv_bfloat162 / __half / __nv_bfloat16 (item 4): the
 * model adds in CTA order (x fastest) and thread order, each add rounded once
 * to the half type, so the reference replays that order. */
Test(fixtures, packed_half_atomics)
{
	enum { ROWS = 12, COLS2 = 40, N = 500, BINS = 7 };
	static uint16_t dout_h[ROWS * COLS2 * 2], dout_b[ROWS * COLS2 * 2], val_h[N], val_b[N];
	static uint16_t dbias_h[COLS2 * 2], dbias_b[COLS2 * 2], acc_h[BINS], acc_b[BINS];
	static int idx[N];
	uint32_t s = 17;
	for (int i = 0; i < ROWS * COLS2 * 2; i++) {
		float v = h_frand(&s);
		dout_h[i] = h_f16_bits(v);
		dout_b[i] = h_bf16_bits(v);
	}
	for (int i = 0; i < N; i++) {
		float v = 0.25f * h_frand(&s);
		val_h[i] = h_f16_bits(v);
		val_b[i] = h_bf16_bits(v);
		idx[i] = (i * 5) % BINS;
	}
	float want_h[COLS2 * 2] = { 0 }, want_b[COLS2 * 2] = { 0 }, wacc_h[BINS] = { 0 },
	      wacc_b[BINS] = { 0 };
	for (int r = 0; r < ROWS; r++)
		for (int c = 0; c < COLS2 * 2; c++) {
			want_h[c] = h_f16_round(want_h[c] + h_f16_value(dout_h[r * COLS2 * 2 + c]));
			want_b[c] = h_bf16_round(want_b[c] + h_bf16_value(dout_b[r * COLS2 * 2 + c]));
		}
	for (int i = 0; i < N; i++) {
		wacc_h[idx[i]] = h_f16_round(wacc_h[idx[i]] + h_f16_value(val_h[i]));
		wacc_b[idx[i]] = h_bf16_round(wacc_b[idx[i]] + h_bf16_value(val_b[i]));
	}
	for (int k = 0; k < 3; k++) {
		cs_ptx_program *p = h_load_fixture("halfatomic", archs[k]);
		h_env e;
		h_init(&e);
		uint64_t vdh = h_put(&e, dout_h, sizeof(dout_h)), vdb = h_put(&e, dout_b, sizeof(dout_b));
		uint64_t vbh = h_alloc(&e, sizeof(dbias_h)), vbb = h_alloc(&e, sizeof(dbias_b));
		uint64_t vidx = h_put(&e, idx, sizeof(idx)), vvh = h_put(&e, val_h, sizeof(val_h)),
			 vvb = h_put(&e, val_b, sizeof(val_b));
		uint64_t vah = h_alloc(&e, sizeof(acc_h)), vab = h_alloc(&e, sizeof(acc_b));
		uint32_t grid[3] = { (COLS2 + 31) / 32, ROWS, 1 }, block[3] = { 32, 1, 1 };
		cs_grid_result r = h_run(&e, p, "bias_grad_half2", grid, block, 0,
					 (uint64_t[]){ vbh, vdh, ROWS, COLS2 }, 4);
		expect_ran(&r, archs[k], "bias_grad_half2");
		r = h_run(&e, p, "bias_grad_bf162", grid, block, 0, (uint64_t[]){ vbb, vdb, ROWS, COLS2 }, 4);
		expect_ran(&r, archs[k], "bias_grad_bf162");
		uint32_t g1[3] = { (N + 127) / 128, 1, 1 }, b1[3] = { 128, 1, 1 };
		r = h_run(&e, p, "scatter_add_half", g1, b1, 0, (uint64_t[]){ vah, vidx, vvh, N }, 4);
		expect_ran(&r, archs[k], "scatter_add_half");
		r = h_run(&e, p, "scatter_add_bf16", g1, b1, 0, (uint64_t[]){ vab, vidx, vvb, N }, 4);
		expect_ran(&r, archs[k], "scatter_add_bf16");
		h_read(&e, vbh, dbias_h, sizeof(dbias_h));
		h_read(&e, vbb, dbias_b, sizeof(dbias_b));
		h_read(&e, vah, acc_h, sizeof(acc_h));
		h_read(&e, vab, acc_b, sizeof(acc_b));
		for (int c = 0; c < COLS2 * 2; c++) {
			cr_expect_eq(dbias_h[c], h_f16_bits(want_h[c]), "%s half2 channel %d: %g want %g",
				     archs[k], c, h_f16_value(dbias_h[c]), want_h[c]);
			cr_expect_eq(dbias_b[c], h_bf16_bits(want_b[c]), "%s bf162 channel %d: %g want %g",
				     archs[k], c, h_bf16_value(dbias_b[c]), want_b[c]);
		}
		for (int b = 0; b < BINS; b++) {
			cr_expect_eq(acc_h[b], h_f16_bits(wacc_h[b]), "%s half bin %d", archs[k], b);
			cr_expect_eq(acc_b[b], h_bf16_bits(wacc_b[b]), "%s bf16 bin %d", archs[k], b);
		}
		h_fini(&e);
		cs_ptx_program_free(p);
	}
}

/* Kernel parameters passed as structs by value (item 7): the parameter block
 * laid out per the PTX .param list, each struct's bytes at its offset. */
typedef struct adam_params {
	uint64_t params; /* float * */
	float lr, beta1, beta2, eps, weight_decay;
	int32_t step, n;
	uint32_t pad;
} adam_params;

Test(fixtures, struct_parameters_by_value)
{
	enum { N = 333 };
	static float w[N], g[N], m[N], v[N], w0[N], m0[N], v0[N];
	uint32_t s = 23;
	for (int i = 0; i < N; i++) {
		w0[i] = h_frand(&s);
		g[i] = h_frand(&s);
		m0[i] = 0.1f * h_frand(&s);
		v0[i] = 0.05f * (h_frand(&s) + 1.0f);
	}
	for (int k = 0; k < 3; k++) {
		cs_ptx_program *p = h_load_fixture("structparam", archs[k]);
		size_t entry;
		cr_assert(cs_ptx_entry_find(p, "adamw_struct", &entry));
		cs_ptx_param pi[4];
		for (int i = 0; i < 4; i++)
			cr_assert(cs_ptx_param_info(p, entry, (size_t)i, &pi[i]));
		cr_expect_eq(pi[0].size, 40);
		cr_expect_eq(pi[0].align, 8);
		h_env e;
		h_init(&e);
		uint64_t vw = h_put(&e, w0, sizeof(w0)), vg = h_put(&e, g, sizeof(g)), vm = h_put(&e, m0, sizeof(m0)),
			 vv = h_put(&e, v0, sizeof(v0));
		adam_params ap = { vw, 1e-3f, 0.9f, 0.999f, 1e-8f, 0.01f, 3, N, 0 };
		uint8_t block[64] = { 0 };
		cr_assert_eq(sizeof(ap), 40);
		memcpy(block + pi[0].offset, &ap, 40);
		memcpy(block + pi[1].offset, &vg, 8);
		memcpy(block + pi[2].offset, &vm, 8);
		memcpy(block + pi[3].offset, &vv, 8);
		cs_grid_result r = run_raw(&e, p, "adamw_struct", (N + 127) / 128, 128, block,
					   cs_ptx_param_bytes(p, entry));
		expect_ran(&r, archs[k], "adamw_struct");
		h_read(&e, vw, w, sizeof(w));
		h_read(&e, vm, m, sizeof(m));
		h_read(&e, vv, v, sizeof(v));
		for (int i = 0; i < N; i++) {
			float mi = ap.beta1 * m0[i] + (1.0f - ap.beta1) * g[i];
			float vi = ap.beta2 * v0[i] + (1.0f - ap.beta2) * g[i] * g[i];
			float mhat = mi / (1.0f - powf(ap.beta1, (float)ap.step));
			float vhat = vi / (1.0f - powf(ap.beta2, (float)ap.step));
			float want = w0[i] - ap.lr * (mhat / (sqrtf(vhat) + ap.eps) + ap.weight_decay * w0[i]);
			cr_expect(fabsf(m[i] - mi) <= 1e-6f * fabsf(mi) + 1e-7f, "%s m[%d]", archs[k], i);
			cr_expect(fabsf(v[i] - vi) <= 1e-6f * fabsf(vi) + 1e-7f, "%s v[%d]", archs[k], i);
			cr_expect(fabsf(w[i] - want) <= 1e-6f * fabsf(want) + 1e-7f, "%s w[%d] %g want %g",
				  archs[k], i, w[i], want);
		}
		/* a 12-byte int struct and a 5-byte char struct (alignment 1) */
		cr_assert(cs_ptx_entry_find(p, "shape_fill", &entry));
		for (int i = 0; i < 3; i++)
			cr_assert(cs_ptx_param_info(p, entry, (size_t)i, &pi[i]));
		cr_expect_eq(pi[1].size, 5);
		cr_expect_eq(pi[1].align, 1);
		enum { ROWS = 6, COLS = 40, STRIDE = 48 };
		static float out[ROWS * STRIDE];
		uint64_t vo = h_alloc(&e, sizeof(out));
		int32_t shape[3] = { ROWS, COLS, STRIDE };
		const char tag[5] = { 1, 2, 3, -4, 5 };
		memset(block, 0, sizeof(block));
		memcpy(block + pi[0].offset, shape, 12);
		memcpy(block + pi[1].offset, tag, 5);
		memcpy(block + pi[2].offset, &vo, 8);
		r = run_raw(&e, p, "shape_fill", ROWS + 2, 64, block, cs_ptx_param_bytes(p, entry));
		expect_ran(&r, archs[k], "shape_fill");
		h_read(&e, vo, out, sizeof(out));
		for (int row = 0; row < ROWS; row++)
			for (int c = 0; c < STRIDE; c++) {
				float want = c < COLS ? (float)(row * 1000 + c) + (float)tag[c % 5] : 0.0f;
				cr_expect_eq(out[row * STRIDE + c], want, "%s shape_fill %d,%d", archs[k], row, c);
			}
		h_fini(&e);
		cs_ptx_program_free(p);
	}
}

/* __expf, __logf, __sinf, __cosf, rsqrtf, __fdividef compile to .approx
 * instructions (item 9): by default each result is within the bound the PTX
 * ISA states (plus the rounding of the argument nvcc scales first); with
 * CS_PTX_APPROX_MAX every one moves to the edge of it, and still holds. */
Test(fixtures, fast_math_intrinsics)
{
	enum { N = 256 };
	static float x[N], out[8 * N], edge[8 * N];
	uint32_t s = 29;
	for (int i = 0; i < N; i++)
		x[i] = 6.0f * h_frand(&s);
	for (int k = 0; k < 3; k++) {
		cs_ptx_program *p = h_load_fixture("approx", archs[k]);
		for (int mode = 0; mode < 2; mode++) {
			h_env e;
			h_init(&e);
			e.approx = mode ? CS_PTX_APPROX_MAX : CS_PTX_APPROX_SINGLE;
			uint64_t vx = h_put(&e, x, sizeof(x)), vo = h_alloc(&e, sizeof(out));
			cs_grid_result r = h_run(&e, p, "fast_math", (uint32_t[]){ N / 64, 1, 1 },
						 (uint32_t[]){ 64, 1, 1 }, 0, (uint64_t[]){ vx, vo, N }, 3);
			expect_ran(&r, archs[k], "fast_math");
			h_read(&e, vo, mode ? edge : out, sizeof(out));
			h_fini(&e);
		}
		unsigned moved = 0;
		for (int i = 0; i < N; i++) {
			double v = x[i];
			double want[8] = { exp(v),       log(fabs(v) + 1.0), sin(v),
					   cos(v),       1.0 / sqrt(fabs(v) + 0.5), 1.0 / (v + 3.0),
					   exp2(v),      1.0 / (v + 3.0) };
			/* relative bounds for ex2-based, rsqrt, div, rcp; absolute for
			 * lg2-based (2^-22 times ln 2, plus the scaling) and sin/cos */
			double tol[8] = { 4e-7 * want[0] * (1 + fabs(v)), 3e-7, 1e-6, 1e-6,
					  3e-7 * want[4], 3e-7 * fabs(want[5]), 3e-7 * want[6],
					  1e-7 * fabs(want[7]) };
			for (int j = 0; j < 8; j++) {
				cr_expect(fabs(out[8 * i + j] - want[j]) <= tol[j], "%s op %d x=%g: %.9g want %.9g",
					  archs[k], j, v, out[8 * i + j], want[j]);
				if (j == 7) { /* rcp.rn is not approximate: no edge */
					cr_expect_eq(edge[8 * i + j], out[8 * i + j], "%s rcp.rn moved", archs[k]);
					continue;
				}
				cr_expect(fabs(edge[8 * i + j] - want[j]) <= 2 * tol[j],
					  "%s op %d x=%g at the edge: %.9g want %.9g", archs[k], j, v,
					  edge[8 * i + j], want[j]);
				moved += edge[8 * i + j] != out[8 * i + j];
			}
		}
		cr_expect_gt(moved, 6 * N, "%s: %u of %d approximate results moved", archs[k], moved, 7 * N);
		cs_ptx_program_free(p);
	}
}

/* Device printf and assert (item 3): every printf is one CS_EV_PRINTF record
 * with the format applied, in CTA and thread order; a failed assert stops the
 * grid naming the kernel, the assertion, the file:line its source names, the
 * CTA and the thread. */
Test(fixtures, device_printf_and_assert)
{
	static float x[128];
	for (int i = 0; i < 128; i++)
		x[i] = 0.5f * (float)i - 3.0f;
	for (int k = 0; k < 3; k++) {
		cs_ptx_program *p = h_load_fixture("deviceio", archs[k]);
		h_env e;
		h_init(&e);
		uint64_t vx = h_put(&e, x, sizeof(x));
		cs_grid_result r = h_run(&e, p, "block_summary", (uint32_t[]){ 4, 1, 1 },
					 (uint32_t[]){ 32, 1, 1 }, 0, (uint64_t[]){ vx, 128, 128 }, 3);
		expect_ran(&r, archs[k], "block_summary");
		unsigned printed = 0;
		for (size_t i = 0; i < e.tb.trace.n; i++) {
			if (e.tb.trace.recs[i].ev.kind != CS_EV_PRINTF)
				continue;
			char want[128];
			unsigned b = printed++;
			snprintf(want, sizeof(want), "block %u: x[%u]=%.3f n=128 big\n", b, b * 32,
				 (double)x[b * 32]);
			cr_expect_str_eq(e.tb.trace.recs[i].ev.detail, want, "%s", archs[k]);
			cr_expect_eq(e.tb.trace.recs[i].ev.value, b, "%s: CTA of printf %u", archs[k], b);
			cr_expect_eq(e.tb.trace.recs[i].ev.aux, 0, "%s: thread of printf %u", archs[k], b);
		}
		cr_expect_eq(printed, 4, "%s: %u printf records", archs[k], printed);

		test_trace_clear(&e.tb.trace);
		long long big = -1234567890123ll;
		r = h_run(&e, p, "format_zoo", (uint32_t[]){ 1, 1, 1 }, (uint32_t[]){ 32, 1, 1 }, 0,
			  (uint64_t[]){ vx, (uint64_t)big }, 2);
		expect_ran(&r, archs[k], "format_zoo");
		char want[512];
		snprintf(want, sizeof(want),
			 "[%5d|%-5d|%05u|%x|%X|%#o|%c|%lld|%llu|%.2f|%10.4e|%g|%s|%%|%*d]\n", -42, 42, 7u,
			 0xbeefu, 0xbeefu, 8u, 'Z', big, (unsigned long long)big * 3ull, (double)x[0],
			 (double)x[1], (double)x[2], "text", 6, 99);
		cr_assert_eq(e.tb.trace.n, 2, "%s: %zu records", archs[k], e.tb.trace.n); /* printf, CTA range */
		cr_expect_eq(e.tb.trace.recs[0].ev.kind, CS_EV_PRINTF);
		cr_expect_str_eq(e.tb.trace.recs[0].ev.detail, want, "%s", archs[k]);

		/* n != expect_n: every thread fails the assertion; the first stops the grid */
		r = h_run(&e, p, "block_summary", (uint32_t[]){ 4, 1, 1 }, (uint32_t[]){ 32, 1, 1 }, 0,
			  (uint64_t[]){ vx, 128, 100 }, 3);
		cr_expect_eq(r.outcome, CS_GRID_ERROR, "%s: %s", archs[k], r.diag.msg);
		cr_expect(strstr(r.diag.msg, "block_summary: CTA (0,0,0) thread (0,0,0)") &&
				  strstr(r.diag.msg, "assertion `n == expect_n` failed at deviceio.cu:9"),
			  "%s: %s", archs[k], r.diag.msg);
		h_fini(&e);
		cs_ptx_program_free(p);
	}
}

/* A softmax that reuses the shared slot of the row maximum for warp 0's
 * partial sum with no barrier between (items 10, 11): in order, warp 0 writes
 * the sum before warps 1..3 read the maximum, and the rows come out wrong;
 * reversed, every warp reads the maximum first and the rows are right. The
 * race detector reports the race on every schedule. */
Test(fixtures, racy_softmax_shows_its_race)
{
	enum { ROWS = 3, COLS = 300 };
	static float x[ROWS * COLS], y[ROWS * COLS], want[ROWS * COLS];
	uint32_t s = 31;
	for (int i = 0; i < ROWS * COLS; i++)
		x[i] = 4.0f * h_frand(&s);
	for (int r = 0; r < ROWS; r++) {
		double m = -INFINITY, sum = 0;
		for (int c = 0; c < COLS; c++)
			m = fmax(m, x[r * COLS + c]);
		for (int c = 0; c < COLS; c++)
			sum += exp(x[r * COLS + c] - m);
		for (int c = 0; c < COLS; c++)
			want[r * COLS + c] = (float)(exp(x[r * COLS + c] - m) / sum);
	}
	for (int k = 0; k < 3; k++) {
		cs_ptx_program *p = h_load_fixture("racy", archs[k]);
		for (int reverse = 0; reverse < 2; reverse++) {
			h_env e;
			h_init(&e);
			e.races = CS_PTX_RACES_REPORT;
			e.schedule = reverse ? CS_PTX_SCHEDULE_REVERSE : CS_PTX_SCHEDULE_IN_ORDER;
			uint64_t vx = h_put(&e, x, sizeof(x)), vy = h_alloc(&e, sizeof(y));
			cs_grid_result r = h_run(&e, p, "softmax_shared_slot", (uint32_t[]){ ROWS, 1, 1 },
						 (uint32_t[]){ 128, 1, 1 }, 0, (uint64_t[]){ vx, vy, COLS }, 3);
			expect_ran(&r, archs[k], "softmax_shared_slot");
			h_read(&e, vy, y, sizeof(y));
			unsigned bad = 0;
			for (int i = 0; i < ROWS * COLS; i++)
				bad += fabsf(y[i] - want[i]) > 1e-5f + 1e-4f * want[i];
			if (reverse)
				cr_expect_eq(bad, 0, "%s reversed: %u wrong", archs[k], bad);
			else
				cr_expect_gt(bad, ROWS * COLS / 2, "%s in order: only %u wrong", archs[k], bad);
			size_t races = 0;
			for (size_t i = 0; i < e.tb.trace.n; i++)
				if (e.tb.trace.recs[i].ev.kind == CS_EV_RACE) {
					races++;
					cr_expect(strstr(e.tb.trace.recs[i].ev.detail,
							 "softmax_shared_slot: shared-memory race at "
							 "offset 0x0"),
						  "%s: %s", archs[k], e.tb.trace.recs[i].ev.detail);
				}
			cr_expect_gt(races, 0, "%s %s: no race reported", archs[k],
				     reverse ? "reversed" : "in order");
			h_fini(&e);
		}
		cs_ptx_program_free(p);
	}
}

/* Tensor cores (item 5): cp.async stages the tiles, ldmatrix loads the
 * fragments, mma.sync multiplies, for f16, bf16 and tf32 inputs with f32
 * accumulators; against a plain C matrix product of the same rounded inputs
 * (the products are exact, only the summation order differs). */
static float tf32_round(float x)
{
	uint32_t u;
	memcpy(&u, &x, 4);
	u &= 0xffffe000u; /* the executor keeps tf32's 19 bits by truncation */
	memcpy(&x, &u, 4);
	return x;
}

Test(fixtures, tensor_core_tiles)
{
	enum { TILES = 3 };
	static uint16_t ah[TILES * 256], bh[TILES * 128], ab[TILES * 256], bb[TILES * 128];
	static float af[TILES * 128], bf[TILES * 64], bias[8], c[TILES * 128];
	uint32_t s = 37;
	for (int i = 0; i < TILES * 256; i++) {
		float v = h_frand(&s);
		ah[i] = h_f16_bits(v);
		ab[i] = h_bf16_bits(v);
	}
	for (int i = 0; i < TILES * 128; i++) {
		float v = h_frand(&s);
		bh[i] = h_f16_bits(v);
		bb[i] = h_bf16_bits(v);
		af[i] = h_frand(&s);
	}
	for (int i = 0; i < TILES * 64; i++)
		bf[i] = h_frand(&s);
	for (int i = 0; i < 8; i++)
		bias[i] = 0.125f * (float)i;
	for (int k = 0; k < 3; k++) {
		cs_ptx_program *p = h_load_fixture("tensorcore", archs[k]);
		for (int form = 0; form < 3; form++) {
			h_env e;
			h_init(&e);
			e.races = CS_PTX_RACES_REPORT;
			uint64_t vc = h_alloc(&e, sizeof(c));
			cs_grid_result r;
			uint32_t grid[3] = { TILES, 1, 1 }, block[3] = { 32, 1, 1 };
			if (form == 0)
				r = h_run(&e, p, "mma_f16_tile", grid, block, 0,
					  (uint64_t[]){ h_put(&e, ah, sizeof(ah)), h_put(&e, bh, sizeof(bh)),
							h_put(&e, bias, sizeof(bias)), vc }, 4);
			else if (form == 1)
				r = h_run(&e, p, "mma_bf16_tile", grid, block, 0,
					  (uint64_t[]){ h_put(&e, ab, sizeof(ab)), h_put(&e, bb, sizeof(bb)), vc }, 3);
			else
				r = h_run(&e, p, "mma_tf32_tile", grid, block, 0,
					  (uint64_t[]){ h_put(&e, af, sizeof(af)), h_put(&e, bf, sizeof(bf)), vc }, 3);
			expect_ran(&r, archs[k], form == 0 ? "mma_f16_tile" : form == 1 ? "mma_bf16_tile" : "mma_tf32_tile");
			h_read(&e, vc, c, sizeof(c));
			int K = form == 2 ? 8 : 16;
			for (int t = 0; t < TILES; t++)
				for (int i = 0; i < 16; i++)
					for (int j = 0; j < 8; j++) {
						double want = form == 0 ? bias[j] : 0.0;
						for (int q = 0; q < K; q++) {
							float a, b;
							if (form == 0) {
								a = h_f16_value(ah[t * 256 + i * 16 + q]);
								b = h_f16_value(bh[t * 128 + j * 16 + q]);
							} else if (form == 1) {
								a = h_bf16_value(ab[t * 256 + i * 16 + q]);
								b = h_bf16_value(bb[t * 128 + j * 16 + q]);
							} else {
								a = tf32_round(af[t * 128 + i * 8 + q]);
								b = tf32_round(bf[t * 64 + j * 8 + q]);
							}
							want += (double)a * b;
						}
						float got = c[t * 128 + i * 8 + j];
						cr_expect(fabs(got - want) <= 1e-5 * (1 + fabs(want)),
							  "%s form %d tile %d C[%d][%d] = %g, want %g", archs[k], form,
							  t, i, j, got, want);
					}
			for (size_t i = 0; i < e.tb.trace.n; i++)
				cr_expect_neq(e.tb.trace.recs[i].ev.kind, CS_EV_RACE, "%s: %s",
					      archs[k], e.tb.trace.recs[i].ev.detail);
			h_fini(&e);
		}
		cs_ptx_program_free(p);
	}
}

/* float4 loads, dynamic shared memory, warps that leave before a barrier,
 * llm.c's layernorm with a cooperative-groups warp per row. */
Test(fixtures, ml_idioms)
{
	enum { N4 = 300, N = 1000, ROWS = 11, COLS = 77, BLOCK = 128 };
	static float x4[4 * N4], y4[4 * N4], xs[N], sums[(N + BLOCK - 1) / BLOCK];
	static float xr[ROWS * COLS], yr[ROWS * COLS], w[COLS], bsum[COLS], ln[ROWS * COLS],
		mean[ROWS], rstd[ROWS];
	uint32_t s = 41;
	for (int i = 0; i < 4 * N4; i++)
		x4[i] = h_frand(&s);
	for (int i = 0; i < N; i++)
		xs[i] = h_frand(&s);
	for (int i = 0; i < ROWS * COLS; i++)
		xr[i] = 3.0f * h_frand(&s);
	for (int i = 0; i < COLS; i++) {
		w[i] = 1.0f + 0.5f * h_frand(&s);
		bsum[i] = 0.1f * h_frand(&s);
	}
	for (int k = 0; k < 3; k++) {
		cs_ptx_program *p = h_load_fixture("idioms", archs[k]);
		h_env e;
		h_init(&e);
		uint64_t vx4 = h_put(&e, x4, sizeof(x4)), vy4 = h_alloc(&e, sizeof(y4));
		uint32_t sb;
		float scale = -1.5f;
		memcpy(&sb, &scale, 4);
		cs_grid_result r = h_run(&e, p, "scale_float4", (uint32_t[]){ (N4 + 127) / 128, 1, 1 },
					 (uint32_t[]){ 128, 1, 1 }, 0, (uint64_t[]){ vx4, vy4, sb, N4 }, 4);
		expect_ran(&r, archs[k], "scale_float4");
		uint64_t vxs = h_put(&e, xs, sizeof(xs)), vs = h_alloc(&e, sizeof(sums));
		r = h_run(&e, p, "block_sum_dynamic", (uint32_t[]){ (N + BLOCK - 1) / BLOCK, 1, 1 },
			  (uint32_t[]){ BLOCK, 1, 1 }, BLOCK * 4, (uint64_t[]){ vxs, vs, N }, 3);
		expect_ran(&r, archs[k], "block_sum_dynamic");
		uint64_t vxr = h_put(&e, xr, sizeof(xr)), vyr = h_alloc(&e, sizeof(yr));
		/* 8 warps per block, 11 rows: the second block's last 5 warps leave */
		r = h_run(&e, p, "early_exit_rows", (uint32_t[]){ 2, 1, 1 }, (uint32_t[]){ 256, 1, 1 }, 0,
			  (uint64_t[]){ vxr, vyr, ROWS, COLS }, 4);
		expect_ran(&r, archs[k], "early_exit_rows");
		uint64_t vln = h_alloc(&e, sizeof(ln)), vm = h_alloc(&e, sizeof(mean)),
			 vr = h_alloc(&e, sizeof(rstd));
		uint64_t vw = h_put(&e, w, sizeof(w)), vb = h_put(&e, bsum, sizeof(bsum));
		r = h_run(&e, p, "layernorm_forward", (uint32_t[]){ (ROWS + 3) / 4, 1, 1 },
			  (uint32_t[]){ 128, 1, 1 }, 0, (uint64_t[]){ vln, vm, vr, vxr, vw, vb, ROWS, COLS }, 8);
		expect_ran(&r, archs[k], "layernorm_forward");
		h_read(&e, vy4, y4, sizeof(y4));
		h_read(&e, vs, sums, sizeof(sums));
		h_read(&e, vyr, yr, sizeof(yr));
		h_read(&e, vln, ln, sizeof(ln));
		h_read(&e, vm, mean, sizeof(mean));
		h_read(&e, vr, rstd, sizeof(rstd));
		for (int i = 0; i < 4 * N4; i++)
			cr_expect_eq(y4[i], x4[i] * scale, "%s float4 %d", archs[k], i);
		for (int b = 0; b < (N + BLOCK - 1) / BLOCK; b++) {
			double want = 0;
			for (int i = b * BLOCK; i < (b + 1) * BLOCK && i < N; i++)
				want += xs[i];
			cr_expect(fabs(sums[b] - want) <= 1e-5, "%s block %d sum %g want %g", archs[k], b,
				  sums[b], want);
		}
		for (int row = 0; row < ROWS; row++) {
			float m = -INFINITY;
			double sum = 0, var = 0;
			for (int c = 0; c < COLS; c++) {
				m = fmaxf(m, xr[row * COLS + c]);
				sum += xr[row * COLS + c];
			}
			double mu = sum / COLS;
			for (int c = 0; c < COLS; c++)
				var += (xr[row * COLS + c] - mu) * (xr[row * COLS + c] - mu);
			double rs = 1.0 / sqrt(var / COLS + 1e-5);
			cr_expect(fabs(mean[row] - mu) <= 1e-5, "%s mean %d", archs[k], row);
			cr_expect(fabs(rstd[row] - rs) <= 1e-5 * rs, "%s rstd %d", archs[k], row);
			for (int c = 0; c < COLS; c++) {
				cr_expect_eq(yr[row * COLS + c], xr[row * COLS + c] - m, "%s early exit %d,%d",
					     archs[k], row, c);
				double want = rs * (xr[row * COLS + c] - mu) * w[c] + bsum[c];
				cr_expect(fabs(ln[row * COLS + c] - want) <= 1e-4 * (1 + fabs(want)),
					  "%s layernorm %d,%d: %g want %g", archs[k], row, c,
					  ln[row * COLS + c], want);
			}
		}
		h_fini(&e);
		cs_ptx_program_free(p);
	}
}

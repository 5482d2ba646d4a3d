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

static cs_ptx_program *load(const char *kernel, const char *arch)
{
	char rel[256];
	snprintf(rel, sizeof(rel), "fixtures/kernels/out/%s.%s.ptx", kernel, arch);
	size_t len;
	char *text = h_read_source(rel, &len);
	cr_assert(text, "cannot read %s", rel);
	cs_diag d;
	cs_ptx_program *p = cs_ptx_parse(text, len, rel, &d);
	char buf[1024];
	cs_diag_format(&d, buf, sizeof(buf));
	cr_assert(p, "%s", buf);
	free(text);
	return p;
}

static uint64_t put(h_env *e, const void *src, size_t bytes)
{
	uint64_t va = h_alloc(e, bytes);
	h_write(e, va, src, bytes);
	return va;
}

static float frand(uint32_t *s)
{
	*s = *s * 1664525u + 1013904223u;
	return (float)((*s >> 8) & 0xffff) / 32768.0f - 1.0f;
}

Test(fixtures, vadd_all_archs)
{
	for (int a = 0; a < 3; a++) {
		cs_ptx_program *p = load("vadd", archs[a]);
		h_env e;
		h_init(&e);
		enum { N = 3000 };
		static float x[N], y[N], z[N];
		uint32_t s = 1;
		for (int i = 0; i < N; i++) {
			x[i] = frand(&s);
			y[i] = frand(&s);
		}
		uint64_t vx = put(&e, x, sizeof(x)), vy = put(&e, y, sizeof(y)), vz = h_alloc(&e, sizeof(z));
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
		A[i] = frand(&s);
		B[i] = frand(&s);
	}
	for (int a = 0; a < 3; a++) {
		cs_ptx_program *p = load("matmul", archs[a]);
		h_env e;
		h_init(&e);
		uint64_t va = put(&e, A, sizeof(A)), vb = put(&e, B, sizeof(B)), vc = h_alloc(&e, sizeof(C));
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
		x[i] = frand(&s) * 8.0f;
	for (int a = 0; a < 3; a++) {
		cs_ptx_program *p = load("softmax", archs[a]);
		h_env e;
		h_init(&e);
		uint64_t vx = put(&e, x, sizeof(x)), vy = h_alloc(&e, sizeof(y));
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
		q[i] = frand(&s);
		k[i] = frand(&s);
		v[i] = frand(&s);
	}
	float scale = 1.0f / 16.0f;
	for (int a = 0; a < 3; a++) {
		cs_ptx_program *p = load("attention", archs[a]);
		h_env e;
		h_init(&e);
		uint64_t vq = put(&e, q, sizeof(q)), vk = put(&e, k, sizeof(k)), vv = put(&e, v, sizeof(v));
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
		x[i] = frand(&s);
	for (int i = 0; i < D * F; i++) {
		w1[i] = frand(&s) * 0.2f;
		w2[i] = frand(&s) * 0.2f;
	}
	for (int i = 0; i < F; i++)
		b1[i] = frand(&s) * 0.1f;
	for (int i = 0; i < D; i++)
		b2[i] = frand(&s) * 0.1f;
	for (int a = 0; a < 3; a++) {
		cs_ptx_program *p = load("ffn", archs[a]);
		h_env e;
		h_init(&e);
		uint64_t vx = put(&e, x, sizeof(x)), vw1 = put(&e, w1, sizeof(w1)), vb1 = put(&e, b1, sizeof(b1));
		uint64_t vw2 = put(&e, w2, sizeof(w2)), vb2 = put(&e, b2, sizeof(b2));
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
		xf[i] = frand(&s);
		fsum += xf[i];
		xu[i] = (s >> 4) & 0xfffff;
		usum += xu[i];
		if (xu[i] > umax)
			umax = xu[i];
	}
	for (int a = 0; a < 3; a++) {
		cs_ptx_program *p = load("reduce", archs[a]);
		h_env e;
		h_init(&e);
		uint64_t vx = put(&e, xf, sizeof(xf)), vo = h_alloc(&e, 16);
		uint64_t args[] = { vx, vo, N };
		cs_grid_result r = h_run(&e, p, "reduce_sum", (uint32_t[]){ 8, 1, 1 },
					 (uint32_t[]){ 256, 1, 1 }, 0, args, 3);
		cr_assert_eq(r.outcome, CS_GRID_EXECUTED, "%s: %s", archs[a], r.diag.msg);
		float got;
		h_read(&e, vo, &got, 4);
		cr_expect(fabs(got - fsum) < 1e-3, "%s sum %.7g want %.7g", archs[a], got, fsum);
		uint64_t vu = put(&e, xu, sizeof(xu)), vs = h_alloc(&e, 8), vm = vs + 4;
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

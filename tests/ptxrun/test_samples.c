/* SPDX-License-Identifier: MIT */
/* The nvcc 13 sm_90 PTX in ptx/samples_sm90.ptx (from ptx/samples.cu), parsed
 * and run against C references. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"

static cs_ptx_program *load_samples(void)
{
	size_t len;
	char *text = test_read_source("tests/ptxrun/ptx/samples_sm90.ptx", &len);
	cr_assert(text, "cannot read samples_sm90.ptx");
	cs_diag d;
	cs_ptx_program *p = cs_ptx_parse(text, len, "samples_sm90.ptx", &d);
	char buf[1024];
	cs_diag_format(&d, buf, sizeof(buf));
	cr_assert(p, "parse failed: %s", buf);
	free(text);
	return p;
}

Test(samples, header_and_layout)
{
	cs_ptx_program *p = load_samples();
	uint32_t maj, min;
	cs_ptx_version(p, &maj, &min);
	cr_expect_eq(maj, 9);
	cr_expect_eq(min, 0);
	cr_expect_str_eq(cs_ptx_target(p), "sm_90");
	cr_expect_eq(cs_ptx_address_size(p), 64);
	cr_expect_eq(cs_ptx_entry_count(p), 7);
	size_t e;
	cr_assert(cs_ptx_entry_find(p, "vadd", &e));
	cr_expect_eq(cs_ptx_param_count(p, e), 4);
	cs_ptx_param pi;
	cr_assert(cs_ptx_param_info(p, e, 3, &pi));
	cr_expect_eq(pi.offset, 24);
	cr_expect_eq(pi.size, 4);
	cr_expect_eq(cs_ptx_param_bytes(p, e), 28);
	cr_expect_eq(cs_ptx_var_count(p), 2); /* counter, coef */
	cs_ptx_var v;
	cr_assert(cs_ptx_var_info(p, 1, &v));
	cr_expect_str_eq(v.name, "coef");
	float c2;
	memcpy(&c2, v.init + 8, 4);
	cr_expect_eq(c2, 3.0f);
	/* As and Bs of matmul: 2 x 16x16 floats */
	cr_expect_geq(cs_ptx_static_shared_bytes(p, e), 2048);
	cs_ptx_program_free(p);
}

Test(samples, vadd)
{
	cs_ptx_program *p = load_samples();
	h_env e;
	h_init(&e);
	enum { N = 1000 };
	float a[N], b[N], c[N];
	for (int i = 0; i < N; i++) {
		a[i] = (float)i * 0.5f;
		b[i] = 3.0f - (float)i;
	}
	uint64_t va = h_alloc(&e, sizeof(a)), vb = h_alloc(&e, sizeof(b)), vc = h_alloc(&e, sizeof(c));
	h_write(&e, va, a, sizeof(a));
	h_write(&e, vb, b, sizeof(b));
	uint64_t args[] = { va, vb, vc, N };
	cs_grid_result r = h_run(&e, p, "vadd", (uint32_t[]){ 4, 1, 1 }, (uint32_t[]){ 256, 1, 1 }, 0,
				 args, 4);
	cr_assert_eq(r.outcome, CS_GRID_EXECUTED, "%s", r.diag.msg);
	cr_expect_eq(r.ctas_executed, 4);
	cr_expect_str_eq(r.kernel, "vadd");
	h_read(&e, vc, c, sizeof(c));
	for (int i = 0; i < N; i++)
		cr_assert_eq(c[i], a[i] + b[i], "c[%d] = %g", i, c[i]);
	/* all 1024 threads run the 10 instructions up to the branch, 1000 the 11 of the body,
	 * and every thread the reconverged ret */
	cr_expect_eq(r.thread_instructions, 1024ull * 10 + 1000ull * 11 + 1024ull);
	/* one CTA range record */
	cr_assert_eq(e.tb.trace.n, 1);
	cr_expect_eq(e.tb.trace.recs[0].ev.kind, CS_EV_CTA_RANGE);
	cr_expect_eq(e.tb.trace.recs[0].ev.value, 0);
	cr_expect_eq(e.tb.trace.recs[0].ev.aux, 4);
	cr_expect_eq(e.tb.trace.recs[0].ev.launch, 7);
	h_fini(&e);
	cs_ptx_program_free(p);
}

static void matmul_ref(const float *A, const float *B, float *C, int n)
{
	/* the kernel's order: k ascending, fused multiply-add per step */
	for (int i = 0; i < n; i++)
		for (int j = 0; j < n; j++) {
			float acc = 0.0f;
			for (int k = 0; k < n; k++)
				acc = fmaf(A[i * n + k], B[k * n + j], acc);
			C[i * n + j] = acc;
		}
}

Test(samples, matmul_shared_barriers)
{
	cs_ptx_program *p = load_samples();
	h_env e;
	h_init(&e);
	enum { N = 64 };
	static float A[N * N], B[N * N], C[N * N], R[N * N];
	for (int i = 0; i < N * N; i++) {
		A[i] = (float)((i * 7) % 13) - 6.0f;
		B[i] = (float)((i * 5) % 11) * 0.25f;
	}
	uint64_t va = h_alloc(&e, sizeof(A)), vb = h_alloc(&e, sizeof(B)), vc = h_alloc(&e, sizeof(C));
	h_write(&e, va, A, sizeof(A));
	h_write(&e, vb, B, sizeof(B));
	uint64_t args[] = { va, vb, vc, N };
	cs_grid_result r = h_run(&e, p, "matmul", (uint32_t[]){ N / 16, N / 16, 1 },
				 (uint32_t[]){ 16, 16, 1 }, 0, args, 4);
	cr_assert_eq(r.outcome, CS_GRID_EXECUTED, "%s", r.diag.msg);
	h_read(&e, vc, C, sizeof(C));
	matmul_ref(A, B, R, N);
	for (int i = 0; i < N * N; i++)
		cr_assert_eq(C[i], R[i], "C[%d] = %g, want %g", i, C[i], R[i]);
	h_fini(&e);
	cs_ptx_program_free(p);
}

Test(samples, softmax_shuffles)
{
	cs_ptx_program *p = load_samples();
	h_env e;
	h_init(&e);
	enum { ROWS = 3, COLS = 100 };
	float x[ROWS * COLS], y[ROWS * COLS];
	for (int i = 0; i < ROWS * COLS; i++)
		x[i] = sinf((float)i * 0.37f) * 4.0f;
	uint64_t vx = h_alloc(&e, sizeof(x)), vy = h_alloc(&e, sizeof(y));
	h_write(&e, vx, x, sizeof(x));
	uint64_t args[] = { vx, vy, COLS };
	cs_grid_result r = h_run(&e, p, "softmax", (uint32_t[]){ ROWS, 1, 1 }, (uint32_t[]){ 32, 1, 1 },
				 0, args, 3);
	cr_assert_eq(r.outcome, CS_GRID_EXECUTED, "%s", r.diag.msg);
	h_read(&e, vy, y, sizeof(y));
	for (int row = 0; row < ROWS; row++) {
		double m = -INFINITY, s = 0;
		for (int i = 0; i < COLS; i++)
			m = fmax(m, x[row * COLS + i]);
		for (int i = 0; i < COLS; i++)
			s += exp(x[row * COLS + i] - m);
		double sum = 0;
		for (int i = 0; i < COLS; i++) {
			double want = exp(x[row * COLS + i] - m) / s;
			sum += y[row * COLS + i];
			cr_assert(fabs(y[row * COLS + i] - want) <= 1e-6 + want * 2e-6,
				  "y[%d][%d] = %.9g want %.9g", row, i, y[row * COLS + i], want);
		}
		cr_expect(fabs(sum - 1.0) < 1e-5);
	}
	h_fini(&e);
	cs_ptx_program_free(p);
}

Test(samples, gelu_tanh_erf)
{
	cs_ptx_program *p = load_samples();
	h_env e;
	h_init(&e);
	enum { N = 256 };
	float x[N], y[2 * N];
	for (int i = 0; i < N; i++)
		x[i] = ((float)i - 128.0f) / 16.0f;
	uint64_t vx = h_alloc(&e, sizeof(x)), vy = h_alloc(&e, sizeof(y));
	h_write(&e, vx, x, sizeof(x));
	uint64_t args[] = { vx, vy, N };
	cs_grid_result r = h_run(&e, p, "gelu", (uint32_t[]){ 2, 1, 1 }, (uint32_t[]){ 128, 1, 1 }, 0,
				 args, 3);
	cr_assert_eq(r.outcome, CS_GRID_EXECUTED, "%s", r.diag.msg);
	h_read(&e, vy, y, sizeof(y));
	for (int i = 0; i < N; i++) {
		double v = x[i];
		double t = 0.5 * v * (1.0 + tanh(0.7978845608 * (v + 0.044715 * v * v * v)));
		double g = 0.5 * v * (1.0 + erf(v * 0.70710678));
		cr_assert(fabs(y[i] - t) <= 1e-5 * (1 + fabs(t)), "tanh gelu(%g) = %.9g want %.9g",
			  v, y[i], t);
		cr_assert(fabs(y[N + i] - g) <= 1e-5 * (1 + fabs(g)), "erf gelu(%g) = %.9g want %.9g",
			  v, y[N + i], g);
	}
	h_fini(&e);
	cs_ptx_program_free(p);
}

Test(samples, reduce_atomics_vote)
{
	cs_ptx_program *p = load_samples();
	h_env e;
	h_init(&e);
	enum { N = 1000, B = 128, G = (N + B - 1) / B };
	int x[N];
	long long total = 0;
	unsigned mx = 0, odd = 0;
	for (int i = 0; i < N; i++) {
		x[i] = (i * 37) % 101;
		total += x[i];
		if ((unsigned)x[i] > mx)
			mx = (unsigned)x[i];
		odd += x[i] & 1;
	}
	uint64_t vx = h_alloc(&e, sizeof(x)), vs = h_alloc(&e, 8), vm = h_alloc(&e, 4);
	h_write(&e, vx, x, sizeof(x));
	uint64_t args[] = { vx, vs, vm, N };
	cs_grid_result r = h_run(&e, p, "reduce", (uint32_t[]){ G, 1, 1 }, (uint32_t[]){ B, 1, 1 },
				 B * 4, args, 4);
	cr_assert_eq(r.outcome, CS_GRID_EXECUTED, "%s", r.diag.msg);
	int32_t out[2];
	uint32_t m;
	h_read(&e, vs, out, 8);
	h_read(&e, vm, &m, 4);
	cr_expect_eq(out[0], total);
	cr_expect_eq(m, mx);
	cr_expect_eq((uint32_t)out[1], odd);
	h_fini(&e);
	cs_ptx_program_free(p);
}

Test(samples, misc_calls_math_globals)
{
	cs_ptx_program *p = load_samples();
	h_env e;
	h_init(&e);
	enum { T = 64 };
	float out[T];
	double dout[T];
	long long lout[T];
	uint64_t vo = h_alloc(&e, sizeof(out)), vd = h_alloc(&e, sizeof(dout)),
		 vl = h_alloc(&e, sizeof(lout));
	uint64_t args[] = { vo, vd, vl, 5 };
	cs_grid_result r = h_run(&e, p, "misc", (uint32_t[]){ 1, 1, 1 }, (uint32_t[]){ T, 1, 1 }, 0,
				 args, 4);
	cr_assert_eq(r.outcome, CS_GRID_EXECUTED, "%s", r.diag.msg);
	h_read(&e, vo, out, sizeof(out));
	h_read(&e, vd, dout, sizeof(dout));
	h_read(&e, vl, lout, sizeof(lout));
	static const float coef[4] = { 1, 2, 3, 4 };
	for (int t = 0; t < T; t++) {
		float f = (float)t * 0.37f - 3.0f;
		float am = 0;
		for (int i = 0; i < 5; i++)
			am += f * coef[t & 3] + (float)i;
		double want = am + sqrt(fabs(f)) + 1.0 / sqrt(1.0 + t) + sin(f) + cos(f) +
			      log2(1.0 + t) + f / 3.0;
		cr_assert(fabs(out[t] - want) < 1e-4 * (1 + fabs(want)), "out[%d] = %.9g want %.9g", t,
			  out[t], want);
		double d = t * 1.5;
		cr_assert_eq(dout[t], d / 7.0 + sqrt(d) + fma(d, d, 1.0), "dout[%d]", t);
		/* __brev returns unsigned (added as a positive value); (int)(f * 1e10f) is
		 * out of range for most t, and cvt.rzi.s32.f32 saturates */
		double big = (double)f * 1e10;
		long long sat = big >= 2147483647.0 ? 2147483647LL : big <= -2147483648.0 ? -2147483648LL
				: (long long)(int)(f * 1e10f);
		unsigned rev = 0;
		for (int k = 0; k < 32; k++)
			rev |= (((unsigned)t >> k) & 1u) << (31 - k);
		long long lw = (long long)f * (long long)t + (unsigned)t / 3u + t % 5 +
			       (t ? __builtin_clz((unsigned)t) : 32) + (long long)rev + sat;
		cr_assert_eq(lout[t], lw, "lout[%d] = %lld want %lld", t, lout[t], lw);
	}
	cr_expect_eq(lout[1], 30); /* -2 + 0 + 1 + 31 + 2^31 - 2^31 */
	/* the __device__ counter lives in the private module image: 64 increments */
	h_fini(&e);
	cs_ptx_program_free(p);
}

Test(samples, module_variables_at_loader_addresses)
{
	cs_ptx_program *p = load_samples();
	h_env e;
	h_init(&e);
	/* the loader places `counter` and `coef` in GPU memory and passes their VAs */
	cr_assert_eq(cs_ptx_var_count(p), 2);
	uint64_t vars = h_alloc(&e, 4096);
	uint64_t var_va[2] = { vars, vars + 64 };
	cs_ptx_var cv;
	cr_assert(cs_ptx_var_info(p, 1, &cv));
	float coef[4] = { 10, 20, 30, 40 }; /* not the initializer: proves the VA is used */
	h_write(&e, var_va[1], coef, sizeof(coef));
	uint32_t start = 1000;
	h_write(&e, var_va[0], &start, 4);
	enum { T = 32 };
	uint64_t vo = h_alloc(&e, T * 4), vd = h_alloc(&e, T * 8), vl = h_alloc(&e, T * 8);
	size_t entry;
	cr_assert(cs_ptx_entry_find(p, "misc", &entry));
	uint8_t params[32];
	uint64_t a[4] = { vo, vd, vl, 1 };
	for (int i = 0; i < 4; i++) {
		cs_ptx_param pi;
		cs_ptx_param_info(p, entry, (size_t)i, &pi);
		memcpy(params + pi.offset, &a[i], pi.size);
	}
	cs_ptx_launch l;
	memset(&l, 0, sizeof(l));
	l.grid[0] = l.grid[1] = l.grid[2] = 1;
	l.block[0] = T;
	l.block[1] = l.block[2] = 1;
	l.params = params;
	l.param_bytes = cs_ptx_param_bytes(p, entry);
	l.var_va = var_va;
	l.var_count = 2;
	cs_grid_result r;
	cs_ptx_run(p, entry, &l, &e.tb.bus, &r);
	cr_assert_eq(r.outcome, CS_GRID_EXECUTED, "%s", r.diag.msg);
	uint32_t counter;
	h_read(&e, var_va[0], &counter, 4);
	cr_expect_eq(counter, 1000 + T);
	float out[T];
	h_read(&e, vo, out, sizeof(out));
	/* k = 1: addmul(f, coef[t & 3], 1) = f * coef + 0 */
	float f = 1.0f * 0.37f - 3.0f;
	double want = (double)(f * 20.0f) + sqrt(fabs(f)) + 1.0 / sqrt(2.0) + sin(f) + cos(f) +
		      log2(2.0) + f / 3.0;
	cr_expect(fabs(out[1] - want) < 1e-4, "out[1] = %.7g want %.7g", out[1], want);
	h_fini(&e);
	cs_ptx_program_free(p);
}

/* A memory port without the span fast path: every global access goes through
 * read/write, and the results are the same. */
static uint8_t *no_span(void *ctx, uint64_t va, uint64_t len)
{
	(void)ctx;
	(void)va;
	(void)len;
	return NULL;
}

Test(samples, port_read_write_fallback)
{
	cs_ptx_program *p = load_samples();
	h_env e;
	h_init(&e);
	e.tb.bus.mem.span = no_span;
	enum { N = 300 };
	int x[N];
	long long total = 0;
	for (int i = 0; i < N; i++) {
		x[i] = i * 7 - 1000;
		total += x[i];
	}
	uint64_t vx = h_alloc(&e, sizeof(x)), vs = h_alloc(&e, 8), vm = h_alloc(&e, 4);
	h_write(&e, vx, x, sizeof(x));
	uint64_t args[] = { vx, vs, vm, N };
	cs_grid_result r = h_run(&e, p, "reduce", (uint32_t[]){ 3, 1, 1 }, (uint32_t[]){ 128, 1, 1 },
				 512, args, 4);
	cr_assert_eq(r.outcome, CS_GRID_EXECUTED, "%s", r.diag.msg);
	int32_t out[2];
	h_read(&e, vs, out, 8);
	cr_expect_eq(out[0], total);
	float a[64], b[64], c[64];
	for (int i = 0; i < 64; i++) {
		a[i] = (float)i;
		b[i] = 0.5f;
	}
	uint64_t va = h_alloc(&e, sizeof(a)), vb = h_alloc(&e, sizeof(b)), vc = h_alloc(&e, sizeof(c));
	h_write(&e, va, a, sizeof(a));
	h_write(&e, vb, b, sizeof(b));
	uint64_t vargs[] = { va, vb, vc, 64 };
	r = h_run(&e, p, "vadd", (uint32_t[]){ 1, 1, 1 }, (uint32_t[]){ 64, 1, 1 }, 0, vargs, 4);
	cr_assert_eq(r.outcome, CS_GRID_EXECUTED, "%s", r.diag.msg);
	h_read(&e, vc, c, sizeof(c));
	for (int i = 0; i < 64; i++)
		cr_expect_eq(c[i], a[i] + 0.5f);
	/* and an unmapped store still faults with its address */
	uint64_t bad[] = { va, vb, 0x900000000ull, 64 };
	r = h_run(&e, p, "vadd", (uint32_t[]){ 1, 1, 1 }, (uint32_t[]){ 64, 1, 1 }, 0, bad, 4);
	cr_assert_eq(r.outcome, CS_GRID_FAULT);
	cr_expect_eq(r.fault_va, 0x900000000ull);
	h_fini(&e);
	cs_ptx_program_free(p);
}

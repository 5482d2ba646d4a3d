/* SPDX-License-Identifier: MIT */
/* The runtime behind the executor port, with a real cs_mem: code matching by
 * bytes, the outcomes a launch can have, and every fixture kernel run against
 * its CPU reference (tools/battery/ref.c). */
#include <criterion/criterion.h>
#include <glib.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "battery/battery.h"
#include "bus.h"
#include "chainsim/mem.h"
#include "chainsim/ptxrun.h"
#include "chainsim/scenario.h"
#include "fixtures.h"

typedef struct rig {
	test_bus tb; /* memory, clock and the records (tb.trace) */
	cs_ptx_runtime *rt;
	cs_module *mod;
	cs_exec_port port;
	uint64_t code_va[4];
	uint64_t next_va;
} rig;

/* The CTAs the CS_EV_CTA_RANGE records say ran. */
static unsigned ctas_seen(const rig *r)
{
	unsigned n = 0;
	for (size_t i = 0; i < r->tb.trace.n; i++)
		if (r->tb.trace.recs[i].ev.kind == CS_EV_CTA_RANGE)
			n += (unsigned)(r->tb.trace.recs[i].ev.aux - r->tb.trace.recs[i].ev.value);
	return n;
}

static uint64_t rig_alloc(rig *r, uint64_t bytes)
{
	uint64_t va = r->next_va;
	cs_diag d;
	cr_assert(cs_mem_map(r->tb.mem, "", va, bytes, &d), "%s", d.msg);
	r->next_va += (bytes + 0xffffu) & ~(uint64_t)0xffffu;
	return va;
}

static void rig_write(rig *r, uint64_t va, const void *p, size_t n)
{
	uint64_t f;
	cr_assert(cs_mem_write(r->tb.mem, va, p, n, &f));
}

static void rig_read(rig *r, uint64_t va, void *p, size_t n)
{
	uint64_t f;
	cr_assert(cs_mem_read(r->tb.mem, va, p, n, &f));
}

/* Load a fixture, register it, upload each kernel's code. */
static void rig_init(rig *r, const char *fixture, cs_arch arch)
{
	memset(r, 0, sizeof(*r));
	test_bus_init(&r->tb, cs_arch_get(arch)->va_bits, CS_TRACE_CHAIN);
	r->next_va = 0x300000000ull;
	r->rt = cs_ptx_runtime_new(arch);
	cr_assert_not_null(r->rt);
	char *p = test_kernel_fixture(fixture);
	cs_diag d;
	r->mod = cs_module_load_file(p, arch, &d);
	g_free(p);
	cr_assert_not_null(r->mod, "%s", d.msg);
	cr_assert(cs_ptx_runtime_add(r->rt, r->mod, &d), "%s", d.msg);
	for (size_t i = 0; i < cs_module_kernel_count(r->mod) && i < 4; i++) {
		const cs_kernel_info *k = cs_module_kernel(r->mod, i);
		r->code_va[i] = rig_alloc(r, k->code_size);
		rig_write(r, r->code_va[i], k->code, k->code_size);
	}
	r->port = cs_ptx_runtime_port(r->rt);
}

static void rig_fini(rig *r)
{
	cs_module_free(r->mod);
	cs_ptx_runtime_free(r->rt);
	test_bus_fini(&r->tb);
}

/* A launch of kernel `name` with the given 8- or 4-byte arguments (packed per
 * the cubin's layout into a constant bank the rig allocates). */
static cs_grid_result rig_launch_local(rig *r, const char *name, const uint64_t *args,
				       size_t nargs, unsigned gx, unsigned gy, unsigned bx,
				       unsigned by, uint32_t dyn_shared, uint64_t local_bytes);

static cs_grid_result rig_launch(rig *r, const char *name, const uint64_t *args, size_t nargs,
				 unsigned gx, unsigned gy, unsigned bx, unsigned by,
				 uint32_t dyn_shared)
{
	return rig_launch_local(r, name, args, nargs, gx, gy, bx, by, dyn_shared, 0);
}

/* ... with the QMD's local size local_bytes per thread (and a region for it). */
static cs_grid_result rig_launch_local(rig *r, const char *name, const uint64_t *args,
				       size_t nargs, unsigned gx, unsigned gy, unsigned bx,
				       unsigned by, uint32_t dyn_shared, uint64_t local_bytes)
{
	const cs_kernel_info *k = cs_module_kernel_named(r->mod, name);
	cr_assert_not_null(k, "no kernel %s", name);
	size_t idx = (size_t)(k - cs_module_kernel(r->mod, 0));
	cr_assert_eq(k->nparams, nargs, "%s takes %zu params", name, k->nparams);
	uint32_t cb_size = k->cbank0_size;
	uint8_t *cb = calloc(1, cb_size);
	for (size_t i = 0; i < nargs; i++)
		memcpy(cb + k->param_base + k->params[i].offset, &args[i], k->params[i].size);
	uint64_t cb_va = rig_alloc(r, cb_size);
	rig_write(r, cb_va, cb, cb_size);
	free(cb);
	cs_grid_launch g = { 0 };
	g.program = r->code_va[idx];
	g.grid[0] = gx;
	g.grid[1] = gy;
	g.grid[2] = 1;
	g.block[0] = bx;
	g.block[1] = by;
	g.block[2] = 1;
	g.shared_bytes = k->shared_static + dyn_shared;
	g.cbank_valid = 1;
	g.cbank_addr[0] = cb_va;
	g.cbank_size[0] = cb_size;
	if (local_bytes) {
		g.local_bytes_per_thread = local_bytes;
		g.local_base = rig_alloc(r, local_bytes * gx * gy * bx * by);
	}
	cs_grid_result res;
	r->port.run_grid(r->port.ctx, &r->tb.bus, &g, &res);
	return res;
}

static void expect_executed(const cs_grid_result *res, uint64_t ctas, const char *name)
{
	char msg[700];
	cs_diag_format(&res->diag, msg, sizeof(msg));
	cr_assert_eq(res->outcome, CS_GRID_EXECUTED, "%s: outcome %d: %s", name, res->outcome, msg);
	cr_expect_eq(res->ctas_executed, ctas);
	cr_expect_gt(res->thread_instructions, 0);
	cr_expect_str_eq(res->kernel, name);
}

static float *upload_random(rig *r, uint64_t seed, size_t n, float lo, float hi, uint64_t *va)
{
	float *h = malloc(n * sizeof(float));
	cs_scenario_random_f32(seed, lo, hi, h, n);
	*va = rig_alloc(r, n * sizeof(float));
	rig_write(r, *va, h, n * sizeof(float));
	return h;
}

/* ---- outcomes -------------------------------------------------------------- */

Test(runtime, unknown_code_is_dispatched_not_executed)
{
	rig r;
	rig_init(&r, "vadd.nocompress.fatbin", CS_ARCH_HOPPER);
	const cs_kernel_info *k = cs_module_kernel(r.mod, 0);
	/* one byte changed: same address, other code */
	uint8_t b = k->code[40] ^ 0x5a;
	rig_write(&r, r.code_va[0] + 40, &b, 1);
	uint64_t args[4] = { 0, 0, 0, 0 };
	cs_grid_result res = rig_launch(&r, "vadd", args, 4, 1, 1, 32, 1, 0);
	cr_expect_eq(res.outcome, CS_GRID_UNKNOWN_CODE);
	cr_expect(strstr(res.diag.msg, "dispatched, not executed") != NULL, "%s", res.diag.msg);
	cr_expect(strstr(res.diag.msg, "match no loaded kernel") != NULL, "%s", res.diag.msg);
	char want[64];
	snprintf(want, sizeof(want), "at 0x%llx", (unsigned long long)r.code_va[0]);
	cr_expect(strstr(res.diag.msg, want) != NULL, "%s", res.diag.msg);
	cr_expect_eq(res.ctas_executed, 0);
	cr_expect_eq(ctas_seen(&r), 0);
	rig_fini(&r);
}

Test(runtime, no_module_loaded_is_unknown_code)
{
	cs_ptx_runtime *rt = cs_ptx_runtime_new(CS_ARCH_HOPPER);
	test_bus tb;
	test_bus_init(&tb, 57, CS_TRACE_CHAIN);
	cs_diag d;
	cr_assert(cs_mem_map(tb.mem, "code", 0x200000000ull, 0x1000, &d));
	cs_grid_launch g = { .program = 0x200000000ull, .grid = { 1, 1, 1 }, .block = { 1, 1, 1 } };
	cs_exec_port port = cs_ptx_runtime_port(rt);
	cs_grid_result res;
	port.run_grid(port.ctx, &tb.bus, &g, &res);
	cr_expect_eq(res.outcome, CS_GRID_UNKNOWN_CODE);
	cr_expect(strstr(res.diag.msg, "no kernel is loaded") != NULL, "%s", res.diag.msg);
	cs_ptx_runtime_free(rt);
	test_bus_fini(&tb);
}

Test(runtime, unmapped_program_faults)
{
	rig r;
	rig_init(&r, "vadd.nocompress.fatbin", CS_ARCH_HOPPER);
	cs_grid_launch g = { 0 };
	g.program = 0x7770000000ull;
	g.grid[0] = g.grid[1] = g.grid[2] = 1;
	g.block[0] = g.block[1] = g.block[2] = 1;
	cs_grid_result res;
	r.port.run_grid(r.port.ctx, &r.tb.bus, &g, &res);
	cr_expect_eq(res.outcome, CS_GRID_FAULT);
	cr_expect_eq(res.fault_va, 0x7770000000ull);
	rig_fini(&r);
}

/* A bare cubin has SASS (so the launch is recognised) but no PTX: the kernel
 * is named, and not run; the simulator's limit, not the guest's fault. */
Test(runtime, kernel_without_ptx_is_not_run)
{
	rig r;
	rig_init(&r, "vadd.sm_90.cubin", CS_ARCH_HOPPER);
	uint64_t args[4] = { 0, 0, 0, 0 };
	cs_grid_result res = rig_launch(&r, "vadd", args, 4, 1, 1, 32, 1, 0);
	cr_expect_eq(res.outcome, CS_GRID_UNSUPPORTED);
	cr_expect(strstr(res.diag.msg, "dispatched, not executed") != NULL, "%s", res.diag.msg);
	cr_expect(strstr(res.diag.msg, "no PTX") != NULL, "%s", res.diag.msg);
	cr_expect(strstr(res.diag.msg, "attach") != NULL, "%s", res.diag.msg);
	cr_expect_str_eq(res.kernel, "vadd");
	cr_expect_eq(ctas_seen(&r), 0);
	rig_fini(&r);
}

/* nvcc's default fatbin (zstd-compressed PTX) runs like the uncompressed one. */
Test(runtime, default_compressed_fatbin_runs)
{
	rig r;
	rig_init(&r, "vadd.fatbin", CS_ARCH_HOPPER);
	enum { N = 300 };
	uint64_t a, b, c;
	float *ha = upload_random(&r, 1, N, -1, 1, &a), *hb = upload_random(&r, 2, N, -1, 1, &b);
	c = rig_alloc(&r, N * 4);
	uint64_t args[4] = { a, b, c, N };
	cs_grid_result res = rig_launch(&r, "vadd", args, 4, 2, 1, 256, 1, 0);
	expect_executed(&res, 2, "vadd");
	float got[N], want[N];
	rig_read(&r, c, got, sizeof(got));
	cs_battery_ref_vadd(ha, hb, want, N);
	cr_expect_eq(cs_battery_count_bad(got, want, NULL, N, 0, 0), 0);
	free(ha);
	free(hb);
	rig_fini(&r);
}

Test(runtime, cbank0_must_be_bound_and_large_enough)
{
	rig r;
	rig_init(&r, "vadd.nocompress.fatbin", CS_ARCH_HOPPER);
	cs_grid_launch g = { 0 };
	g.program = r.code_va[0];
	g.grid[0] = g.grid[1] = g.grid[2] = 1;
	g.block[0] = g.block[1] = g.block[2] = 1;
	cs_grid_result res;
	r.port.run_grid(r.port.ctx, &r.tb.bus, &g, &res);
	cr_expect_eq(res.outcome, CS_GRID_ERROR);
	cr_expect(strstr(res.diag.msg, "constant bank 0") != NULL, "%s", res.diag.msg);
	g.cbank_valid = 1;
	g.cbank_addr[0] = rig_alloc(&r, 0x1000);
	g.cbank_size[0] = 0x210; /* ends where the parameters begin */
	r.port.run_grid(r.port.ctx, &r.tb.bus, &g, &res);
	cr_expect_eq(res.outcome, CS_GRID_ERROR);
	cr_expect(strstr(res.diag.msg, "parameters need") != NULL, "%s", res.diag.msg);
	/* bound to unmapped memory */
	g.cbank_addr[0] = 0x6660000000ull;
	g.cbank_size[0] = 0x1000;
	r.port.run_grid(r.port.ctx, &r.tb.bus, &g, &res);
	cr_expect_eq(res.outcome, CS_GRID_FAULT);
	cr_expect_eq(res.fault_va, 0x6660000000ull + 0x210);
	rig_fini(&r);
}

/* A QMD short of the kernel's static shared memory is refused, and from sm_90
 * the refusal says where the size comes from: nvcc counts the 1 KiB the
 * hardware reserves in .nv.shared.<kernel>, so a kernel that declares 1 KiB
 * (reduce_sum) needs 2 KiB there, and sm_80's the 1 KiB it declares. */
static void expect_shared_refusal(cs_arch arch, uint32_t need, const char *why)
{
	rig r;
	rig_init(&r, "reduce.nocompress.fatbin", arch);
	const cs_kernel_info *k = cs_module_kernel_named(r.mod, "reduce_sum");
	cr_assert_not_null(k);
	cr_assert_eq(k->shared_static, need, "%u", k->shared_static);
	size_t idx = (size_t)(k - cs_module_kernel(r.mod, 0));
	cs_grid_launch g = { 0 };
	g.program = r.code_va[idx];
	g.grid[0] = g.grid[1] = g.grid[2] = 1;
	g.block[0] = 32;
	g.block[1] = g.block[2] = 1;
	g.shared_bytes = 128;
	g.cbank_valid = 1;
	g.cbank_addr[0] = rig_alloc(&r, k->cbank0_size);
	g.cbank_size[0] = k->cbank0_size;
	cs_grid_result res;
	r.port.run_grid(r.port.ctx, &r.tb.bus, &g, &res);
	cr_expect_eq(res.outcome, CS_GRID_ERROR);
	char want[256];
	snprintf(want, sizeof(want), "kernel reduce_sum needs %u bytes of static shared memory%s, "
		 "the QMD reserves 128", need, why);
	cr_expect(strstr(res.diag.msg, want), "%s", res.diag.msg);
	rig_fini(&r);
}

Test(runtime, a_qmd_short_of_static_shared_memory_says_why_sm90_needs_more)
{
	expect_shared_refusal(CS_ARCH_AMPERE, 0x400, "");
	expect_shared_refusal(CS_ARCH_HOPPER, 0x800, " (its .nv.shared.reduce_sum: from sm_90 nvcc "
				       "counts there the 1 KiB the hardware reserves at the start of "
				       "shared memory, 0x400 + the kernel's own 1024)");
}

Test(runtime, module_for_another_arch_is_refused)
{
	cs_ptx_runtime *rt = cs_ptx_runtime_new(CS_ARCH_AMPERE);
	char *p = test_kernel_fixture("vadd.sm_90.cubin");
	cs_diag d;
	cs_module *m = cs_module_load_file(p, CS_ARCH_HOPPER, &d);
	g_free(p);
	cr_assert_not_null(m);
	cr_expect_not(cs_ptx_runtime_add(rt, m, &d));
	cr_expect(strstr(d.msg, "hopper") != NULL, "%s", d.msg);
	cr_expect_eq(cs_ptx_runtime_module_count(rt), 0);
	cs_module_free(m);
	cs_ptx_runtime_free(rt);
}

/* ---- every fixture kernel against its CPU reference ----------------------- */

static void run_vadd(cs_arch arch)
{
	rig r;
	rig_init(&r, "vadd.nocompress.fatbin", arch);
	enum { N = 1000 };
	uint64_t a, b, c;
	float *ha = upload_random(&r, 1, N, -1, 1, &a), *hb = upload_random(&r, 2, N, -1, 1, &b);
	c = rig_alloc(&r, N * 4);
	uint64_t args[4] = { a, b, c, N };
	cs_grid_result res = rig_launch(&r, "vadd", args, 4, 4, 1, 256, 1, 0);
	expect_executed(&res, 4, "vadd");
	cr_expect_eq(ctas_seen(&r), 4);
	float got[N], want[N];
	rig_read(&r, c, got, sizeof(got));
	cs_battery_ref_vadd(ha, hb, want, N);
	cr_expect_eq(cs_battery_count_bad(got, want, NULL, N, 0, 0), 0);
	free(ha);
	free(hb);
	rig_fini(&r);
}

Test(kernels, vadd_ampere) { run_vadd(CS_ARCH_AMPERE); }
Test(kernels, vadd_ada) { run_vadd(CS_ARCH_ADA); }
Test(kernels, vadd_hopper) { run_vadd(CS_ARCH_HOPPER); }

/* nvcc 13's sm_100 PTX declares pointer parameters `.param .u64 .ptr .align 1`. */
Test(kernels, vadd_blackwell) { run_vadd(CS_ARCH_BLACKWELL); }

Test(battery_ref, count_bad_tolerance_and_nan)
{
	float want[4] = { 1.0f, -2.0f, 0.0f, 3.0f };
	float got[4] = { 1.0f, -2.0f, 0.0f, 3.0f };
	cr_expect_eq(cs_battery_count_bad(got, want, NULL, 4, 0, 0), 0);
	got[3] = nextafterf(3.0f, 4.0f);
	cr_expect_eq(cs_battery_count_bad(got, want, NULL, 4, 0, 0), 1);
	cr_expect_eq(cs_battery_count_bad(got, want, NULL, 4, 0, 1e-6), 0);
	got[2] = NAN;
	cr_expect_eq(cs_battery_count_bad(got, want, NULL, 4, 1e9, 1e9), 1); /* NaN only */
	float scale[4] = { 0, 0, 0, 1e6f };
	got[2] = 0.0f;
	got[3] = 3.5f;
	cr_expect_eq(cs_battery_count_bad(got, want, scale, 4, 0, 1e-6), 0);
	cr_expect_eq(cs_battery_count_bad(got, want, NULL, 4, 0, 1e-6), 1);
	/* the references themselves, on a case worked by hand */
	float a[4] = { 1, 2, 3, 4 }, b[4] = { 5, 6, 7, 8 }, c[4];
	cs_battery_ref_matmul(a, b, c, 2);
	cr_expect(c[0] == 19 && c[1] == 22 && c[2] == 43 && c[3] == 50);
	cr_expect_float_eq(cs_battery_ref_gelu(0.0f), 0.0f, 0);
	cr_expect_float_eq(cs_battery_ref_gelu(3.0f), 2.99636f, 1e-4);
}

Test(kernels, matmul)
{
	rig r;
	rig_init(&r, "matmul.nocompress.fatbin", CS_ARCH_HOPPER);
	enum { N = 48 }; /* three tiles, so the bar.sync between tiles matters */
	uint64_t a, b, c;
	float *ha = upload_random(&r, 11, N * N, -1, 1, &a), *hb = upload_random(&r, 12, N * N, -1, 1, &b);
	c = rig_alloc(&r, N * N * 4);
	uint64_t args[4] = { a, b, c, N };
	cs_grid_result res = rig_launch(&r, "matmul", args, 4, 3, 3, 16, 16, 0);
	expect_executed(&res, 9, "matmul");
	float *got = malloc(N * N * 4), *want = malloc(N * N * 4), *s = malloc(N * N * 4);
	rig_read(&r, c, got, N * N * 4);
	cs_battery_ref_matmul(ha, hb, want, N);
	cs_battery_ref_matmul_absdot(ha, hb, s, N);
	cr_expect_eq(cs_battery_count_bad(got, want, s, N * N, 0, N * ldexp(1.0, -24)), 0);
	free(got);
	free(want);
	free(s);
	free(ha);
	free(hb);
	rig_fini(&r);
}

Test(kernels, softmax_rows)
{
	rig r;
	rig_init(&r, "softmax.nocompress.fatbin", CS_ARCH_HOPPER);
	enum { ROWS = 10, COLS = 100 };
	uint64_t x, y;
	float *hx = upload_random(&r, 5, ROWS * COLS, -4, 4, &x);
	y = rig_alloc(&r, ROWS * COLS * 4);
	uint64_t args[4] = { x, y, ROWS, COLS };
	/* 4 warps per block, 3 blocks: 12 warps for 10 rows */
	cs_grid_result res = rig_launch(&r, "softmax_rows", args, 4, 3, 1, 128, 1, 0);
	expect_executed(&res, 3, "softmax_rows");
	float got[ROWS * COLS], want[ROWS * COLS];
	rig_read(&r, y, got, sizeof(got));
	for (int i = 0; i < ROWS; i++) {
		double m = -INFINITY, s = 0;
		for (int j = 0; j < COLS; j++)
			m = fmax(m, hx[i * COLS + j]);
		for (int j = 0; j < COLS; j++)
			s += exp(hx[i * COLS + j] - m);
		for (int j = 0; j < COLS; j++)
			want[i * COLS + j] = (float)(exp(hx[i * COLS + j] - m) / s);
	}
	/* expf through ex2.approx and a 100-term f32 sum: a few ulp relative */
	cr_expect_eq(cs_battery_count_bad(got, want, NULL, ROWS * COLS, 1e-7, 1e-5), 0);
	free(hx);
	rig_fini(&r);
}

Test(kernels, attention)
{
	rig r;
	rig_init(&r, "attention.nocompress.fatbin", CS_ARCH_HOPPER);
	enum { SEQ = 64, DH = 256 };
	uint64_t q, k, v, o;
	float *hq = upload_random(&r, 21, SEQ * DH, -1, 1, &q);
	float *hk = upload_random(&r, 22, SEQ * DH, -1, 1, &k);
	float *hv = upload_random(&r, 23, SEQ * DH, -1, 1, &v);
	o = rig_alloc(&r, SEQ * DH * 4);
	float scale = 0.0625f;
	uint32_t sbits;
	memcpy(&sbits, &scale, 4);
	uint64_t args[7] = { q, k, v, o, SEQ, DH, sbits };
	cs_grid_result res = rig_launch(&r, "attention", args, 7, SEQ, 1, DH, 1, 0);
	expect_executed(&res, SEQ, "attention");
	float *got = malloc(SEQ * DH * 4), *want = malloc(SEQ * DH * 4);
	rig_read(&r, o, got, SEQ * DH * 4);
	cs_battery_ref_attention(hq, hk, hv, want, SEQ, DH, scale);
	cr_expect_eq(cs_battery_count_bad(got, want, NULL, SEQ * DH, 2e-4, 0), 0);
	free(got);
	free(want);
	free(hq);
	free(hk);
	free(hv);
	rig_fini(&r);
}

Test(kernels, ffn_layer)
{
	rig r;
	rig_init(&r, "ffn.nocompress.fatbin", CS_ARCH_HOPPER);
	enum { T = 4, D = 64, F = 256 };
	uint64_t x, w1, b1, w2, b2, h, y;
	float *hx = upload_random(&r, 1, T * D, -1, 1, &x);
	float *hw1 = upload_random(&r, 2, D * F, -0.125f, 0.125f, &w1);
	float *hb1 = upload_random(&r, 3, F, -0.1f, 0.1f, &b1);
	float *hw2 = upload_random(&r, 4, F * D, -0.0625f, 0.0625f, &w2);
	float *hb2 = upload_random(&r, 5, D, -0.1f, 0.1f, &b2);
	h = rig_alloc(&r, T * F * 4);
	y = rig_alloc(&r, T * D * 4);
	uint64_t up[7] = { x, w1, b1, h, T, D, F };
	cs_grid_result res = rig_launch(&r, "ffn_up", up, 7, T * F / 128, 1, 128, 1, 0);
	expect_executed(&res, T * F / 128, "ffn_up");
	uint64_t down[8] = { h, w2, b2, x, y, T, D, F };
	res = rig_launch(&r, "ffn_down", down, 8, T * D / 64, 1, 64, 1, 0);
	expect_executed(&res, T * D / 64, "ffn_down");
	float got[T * D], want[T * D], hh[T * F];
	rig_read(&r, y, got, sizeof(got));
	cs_battery_ref_ffn_layer(hx, hw1, hb1, hw2, hb2, hh, want, T, D, F);
	cr_expect_eq(cs_battery_count_bad(got, want, NULL, T * D, 1e-5, 1e-5), 0);
	free(hx);
	free(hw1);
	free(hb1);
	free(hw2);
	free(hb2);
	rig_fini(&r);
}

Test(kernels, reductions_with_atomics)
{
	rig r;
	rig_init(&r, "reduce.nocompress.fatbin", CS_ARCH_HOPPER);
	enum { N = 5000 };
	uint64_t x, out;
	float *hx = upload_random(&r, 9, N, 0, 1, &x);
	out = rig_alloc(&r, 16);
	uint64_t args[3] = { x, out, N };
	cs_grid_result res = rig_launch(&r, "reduce_sum", args, 3, 4, 1, 256, 1, 0);
	expect_executed(&res, 4, "reduce_sum");
	float got;
	rig_read(&r, out, &got, 4);
	double want = 0;
	for (int i = 0; i < N; i++)
		want += hx[i];
	/* f32 tree sums of 1250-element strided partials: gamma_n ~ 5000 u of sum */
	cr_expect(fabs(got - want) <= 5000 * ldexp(1.0, -24) * want, "got %.9g want %.9g", got,
		  want);

	uint32_t *hu = malloc(N * 4);
	cs_scenario_random_u32(77, 0, 1000000, hu, N);
	uint64_t xu = rig_alloc(&r, N * 4), su = rig_alloc(&r, 8);
	rig_write(&r, xu, hu, N * 4);
	uint64_t args2[4] = { xu, su, su + 4, N };
	res = rig_launch(&r, "reduce_u32", args2, 4, (N + 255) / 256, 1, 256, 1, 0);
	expect_executed(&res, (N + 255) / 256, "reduce_u32");
	uint32_t sm[2];
	rig_read(&r, su, sm, 8);
	uint32_t ws = 0, wm = 0;
	for (int i = 0; i < N; i++) {
		ws += hu[i];
		wm = hu[i] > wm ? hu[i] : wm;
	}
	cr_expect_eq(sm[0], ws, "sum %u want %u", sm[0], ws);
	cr_expect_eq(sm[1], wm, "max %u want %u", sm[1], wm);
	free(hu);
	free(hx);
	rig_fini(&r);
}

Test(kernels, launch_bounds_kernel)
{
	rig r;
	rig_init(&r, "bounds.fatbin", CS_ARCH_HOPPER);
	enum { N = 200 };
	uint64_t x;
	float *hx = upload_random(&r, 31, N, -1, 1, &x);
	float s = 2.5f;
	uint32_t sbits;
	memcpy(&sbits, &s, 4);
	uint64_t args[3] = { x, sbits, N };
	cs_grid_result res = rig_launch(&r, "scale_bounded", args, 3, 2, 1, 128, 1, 0);
	expect_executed(&res, 2, "scale_bounded");
	float got[N], want[N];
	rig_read(&r, x, got, sizeof(got));
	for (int i = 0; i < N; i++)
		want[i] = hx[i] * s;
	cr_expect_eq(cs_battery_count_bad(got, want, NULL, N, 0, 0), 0);
	/* 256 threads per block: more than __launch_bounds__(128) allows */
	res = rig_launch(&r, "scale_bounded", args, 3, 1, 1, 256, 1, 0);
	cr_expect_eq(res.outcome, CS_GRID_ERROR);
	cr_expect(strstr(res.diag.msg, "launch bounds of 128") != NULL, "%s", res.diag.msg);
	free(hx);
	rig_fini(&r);
}

/* noop(): no parameters, so no parameter area in constant bank 0; it loads and
 * runs on every generation. */
Test(kernels, kernel_without_parameters)
{
	static const struct {
		const char *fixture;
		cs_arch arch;
	} cases[] = {
		{ "noparams.sm_80.cubin", CS_ARCH_AMPERE }, { "noparams.fatbin", CS_ARCH_ADA },
		{ "noparams.fatbin", CS_ARCH_HOPPER }, { "noparams.nocompress.fatbin", CS_ARCH_BLACKWELL },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		rig r;
		rig_init(&r, cases[i].fixture, cases[i].arch);
		if (!cs_module_is_fatbin(r.mod)) {
			size_t len;
			char *ptx = (char *)(uint8_t *)test_read_kernel_fixture("noparams.sm_80.ptx", &len);
			cs_diag d;
			cr_assert_not_null(ptx);
			cr_assert(cs_module_attach_ptx(r.mod, ptx, len, &d), "%s", d.msg);
			free(ptx);
			cs_ptx_runtime_free(r.rt);
			r.rt = cs_ptx_runtime_new(cases[i].arch);
			cr_assert(cs_ptx_runtime_add(r.rt, r.mod, &d), "%s", d.msg);
			r.port = cs_ptx_runtime_port(r.rt);
		}
		const cs_kernel_info *k = cs_module_kernel_named(r.mod, "noop");
		cr_assert_not_null(k, "%s", cases[i].fixture);
		cr_expect_eq(k->nparams, 0);
		cr_expect_eq(k->param_bytes, 0);
		cs_grid_result res = rig_launch(&r, "noop", NULL, 0, 3, 2, 64, 1, 0);
		expect_executed(&res, 6, "noop");
		cr_expect_eq(ctas_seen(&r), 6, "%s: %u CTAs", cases[i].fixture, ctas_seen(&r));
		rig_fini(&r);
	}
}

/* One kernel the executor refuses (a texture fetch) does not block its module:
 * launching it names the PTX line, the kernels around it run. */
Test(kernels, refused_kernel_does_not_block_its_module)
{
	static const struct {
		const char *fixture;
		cs_arch arch;
		uint32_t tex_line; /* of the first tex.1d in mixed.sm_XX.ptx */
	} cases[] = {
		{ "mixed.fatbin", CS_ARCH_AMPERE, 71 },
		{ "mixed.fatbin", CS_ARCH_HOPPER, 71 },
		{ "mixed.nocompress.fatbin", CS_ARCH_BLACKWELL, 66 },
	};
	for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
		rig r;
		rig_init(&r, cases[c].fixture, cases[c].arch);
		enum { N = 300 };
		uint64_t x;
		float *hx = upload_random(&r, 51, N, -1, 1, &x);
		float s = 3.0f, b = 0.5f;
		uint32_t sbits, bbits;
		memcpy(&sbits, &s, 4);
		memcpy(&bbits, &b, 4);
		cs_grid_result res = rig_launch(&r, "mixed_scale", (uint64_t[]){ x, sbits, N }, 3,
						2, 1, 256, 1, 0);
		expect_executed(&res, 2, "mixed_scale");
		uint64_t out = rig_alloc(&r, N * 4);
		res = rig_launch(&r, "mixed_texture_sum", (uint64_t[]){ 1, out, N }, 3, 2, 1, 256, 1, 0);
		/* nvcc's own PTX with a texture fetch: the simulator's limit, not observable */
		cr_expect_eq(res.outcome, CS_GRID_UNSUPPORTED, "%s", cases[c].fixture);
		cr_expect_eq(res.diag.line, cases[c].tex_line, "%s: line %u: %s", cases[c].fixture,
			     res.diag.line, res.diag.msg);
		cr_expect(strstr(res.diag.msg, "refuses mixed_texture_sum") &&
				  strstr(res.diag.msg, "tex"),
			  "%s", res.diag.msg);
		res = rig_launch(&r, "mixed_offset", (uint64_t[]){ x, bbits, N }, 3, 2, 1, 256, 1, 0);
		expect_executed(&res, 2, "mixed_offset");
		float got[N], want[N];
		rig_read(&r, x, got, sizeof(got));
		for (int i = 0; i < N; i++)
			want[i] = hx[i] * s + b;
		cr_expect_eq(cs_battery_count_bad(got, want, NULL, N, 0, 0), 0, "%s",
			     cases[c].fixture);
		free(hx);
		rig_fini(&r);
	}
}

/* The runtime runs the shared-memory race detector unless told otherwise:
 * the racy softmax's race is a finding on the launch; with
 * CS_PTX_RACES_ERROR it stops the grid; off, nothing is reported. */
Test(kernels, race_detector_on_by_default)
{
	rig r;
	rig_init(&r, "racy.fatbin", CS_ARCH_HOPPER);
	enum { COLS = 256 };
	uint64_t x, y = rig_alloc(&r, COLS * 4);
	float *hx = upload_random(&r, 61, COLS, -2, 2, &x);
	cs_grid_result res = rig_launch(&r, "softmax_shared_slot", (uint64_t[]){ x, y, COLS }, 3, 1, 1,
					128, 1, 0);
	expect_executed(&res, 1, "softmax_shared_slot");
	cr_expect_gt(test_trace_count(&r.tb.trace, CS_EV_RACE), 0);
	cs_ptx_runtime_set_races(r.rt, CS_PTX_RACES_ERROR, false);
	res = rig_launch(&r, "softmax_shared_slot", (uint64_t[]){ x, y, COLS }, 3, 1, 1, 128, 1, 0);
	cr_expect_eq(res.outcome, CS_GRID_ERROR);
	cr_expect(strstr(res.diag.msg, "shared-memory race"), "%s", res.diag.msg);
	cs_ptx_runtime_set_races(r.rt, CS_PTX_RACES_OFF, false);
	test_trace_clear(&r.tb.trace);
	res = rig_launch(&r, "softmax_shared_slot", (uint64_t[]){ x, y, COLS }, 3, 1, 1, 128, 1, 0);
	expect_executed(&res, 1, "softmax_shared_slot");
	cr_expect_eq(test_trace_count(&r.tb.trace, CS_EV_RACE), 0);
	free(hx);
	rig_fini(&r);
}

/* local_scan: a 64-float array per thread in local memory, indexed at run time. */
Test(kernels, local_memory_kernel)
{
	rig r;
	rig_init(&r, "local.fatbin", CS_ARCH_HOPPER);
	enum { N = 100, SHIFT = 7 };
	uint64_t x, out = rig_alloc(&r, N * sizeof(float));
	float *hx = upload_random(&r, 41, N, -1, 1, &x);
	uint64_t args[4] = { x, out, SHIFT, N };
	const cs_kernel_info *k = cs_module_kernel_named(r.mod, "local_scan");
	cr_assert_not_null(k);
	cr_expect_eq(k->local_bytes, 256);
	/* No region, or a QMD that reserves less than the frame, is refused. */
	cs_grid_result res = rig_launch_local(&r, "local_scan", args, 4, 1, 1, 128, 1, 0, 0);
	cr_expect_eq(res.outcome, CS_GRID_ERROR);
	cr_expect(strstr(res.diag.msg, "needs 256 bytes of local memory per thread, and no "
				       "local-memory region is set") != NULL, "%s", res.diag.msg);
	res = rig_launch_local(&r, "local_scan", args, 4, 1, 1, 128, 1, 0, 128);
	cr_expect_eq(res.outcome, CS_GRID_ERROR);
	cr_expect(strstr(res.diag.msg, "the QMD reserves 128") != NULL, "%s", res.diag.msg);
	res = rig_launch_local(&r, "local_scan", args, 4, 1, 1, 128, 1, 0, 256);
	expect_executed(&res, 1, "local_scan");
	float got[N], want[N];
	rig_read(&r, out, got, sizeof(got));
	for (int i = 0; i < N; i++) {
		float frame[64], sum = 0.0f;
		for (int j = 0; j < 64; j++)
			frame[j] = hx[i] * (float)j;
		for (int j = 0; j < 64; j++)
			sum += frame[(j + SHIFT + i) & 63];
		want[i] = sum + frame[(SHIFT + i) & 63];
	}
	cr_expect_eq(cs_battery_count_bad(got, want, NULL, N, 1e-4, 1e-5), 0);
	free(hx);
	rig_fini(&r);
}

/* The mock-GPU convention (tinygrad's mock NV GPU): PTX text at the program
 * address, each parameter a 64-bit slot at constant bank 0 + 0x160. The
 * runtime runs it and records the assumption; memory that is not PTX text
 * stays unknown code. */
static unsigned ptx_text_assumptions(const rig *r)
{
	unsigned n = 0;
	for (size_t i = 0; i < r->tb.trace.n; i++) {
		const cs_event *ev = &r->tb.trace.recs[i].ev;
		n += ev->kind == CS_EV_ASSUMPTION && ev->detail && strstr(ev->detail, "PTX text");
	}
	return n;
}

Test(runtime, ptx_text_at_the_program_address_runs_under_the_mock_convention)
{
	rig r;
	rig_init(&r, "vadd.sm_90.cubin", CS_ARCH_HOPPER);
	char *p = test_kernel_fixture("vadd.sm_90.ptx");
	gchar *text = NULL;
	gsize len = 0;
	cr_assert(g_file_get_contents(p, &text, &len, NULL), "%s", p);
	g_free(p);
	uint64_t code = rig_alloc(&r, len + 1);
	rig_write(&r, code, text, len + 1);
	enum { N = 100 };
	float a[N], b[N], c[N];
	for (int i = 0; i < N; i++) {
		a[i] = (float)i;
		b[i] = 0.5f * (float)i;
	}
	uint64_t va = rig_alloc(&r, sizeof(a)), vb = rig_alloc(&r, sizeof(b));
	uint64_t vc = rig_alloc(&r, sizeof(c));
	rig_write(&r, va, a, sizeof(a));
	rig_write(&r, vb, b, sizeof(b));
	uint64_t slots[4] = { va, vb, vc, N }; /* the int n takes a whole 64-bit slot */
	uint64_t cb = rig_alloc(&r, 0x160 + sizeof(slots));
	rig_write(&r, cb + 0x160, slots, sizeof(slots));
	cs_grid_launch g = { .program = code, .grid = { 4, 1, 1 }, .block = { 32, 1, 1 },
			     .cbank_valid = 1, .cbank_addr = { cb }, .cbank_size = { 0x160 } };
	cs_grid_result res;
	r.port.run_grid(r.port.ctx, &r.tb.bus, &g, &res);
	expect_executed(&res, 4, "vadd");
	rig_read(&r, vc, c, sizeof(c));
	for (int i = 0; i < N; i++)
		cr_expect_eq(c[i], a[i] + b[i], "c[%d] = %g", i, c[i]);
	cr_expect_eq(ptx_text_assumptions(&r), 1, "the assumption is recorded");
	/* Not PTX text: the same bytes with the first one changed. */
	text[0] = '\x7f';
	rig_write(&r, code, text, len + 1);
	r.port.run_grid(r.port.ctx, &r.tb.bus, &g, &res);
	cr_expect_eq(res.outcome, CS_GRID_UNKNOWN_CODE, "%s", res.diag.msg);
	g_free(text);
	rig_fini(&r);
}

/* SPDX-License-Identifier: MIT */
/* Cooperative launches (docs/cooperative.md): the grid workspace in %envreg1
 * and %envreg2, the other environment registers refused by name, and
 * cg::this_grid().sync() (fixtures/kernels/coopgrid.cu) with every CTA
 * resident at once, against CPU references on each arch. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "harness.h"

static const char *envreg_body = "\tmov.u32 %r10, %envreg1;\n\tmov.u32 %r11, %envreg2;\n"
				 "\tst.global.u32 [%rd1], %r10;\n\tst.global.u32 [%rd1+4], %r11;\n";

static void read_envregs(bool cooperative, uint64_t workspace, uint32_t got[2])
{
	char *src = h_kernel("", envreg_body);
	cs_diag d;
	cs_ptx_program *p = h_parse(src, &d);
	cr_assert(p);
	h_env e;
	h_init(&e);
	e.cooperative = cooperative;
	e.grid_workspace = workspace;
	uint64_t vout = h_alloc(&e, 8), vin = h_alloc(&e, 8);
	cs_grid_result r = h_run(&e, p, "k", (uint32_t[]){ 1, 1, 1 }, (uint32_t[]){ 1, 1, 1 }, 0,
				 (uint64_t[]){ vout, vin, 0 }, 3);
	cr_assert_eq(r.outcome, CS_GRID_EXECUTED, "%s", r.diag.msg);
	h_read(&e, vout, got, 8);
	h_fini(&e);
	cs_ptx_program_free(p);
	free(src);
}

Test(coop, envreg1_and_2_hold_the_grid_workspace)
{
	uint32_t got[2];
	read_envregs(true, 0x123456789abcdef0ull, got);
	cr_expect_eq(got[0], 0x12345678u, "%%envreg1 0x%x", got[0]);
	cr_expect_eq(got[1], 0x9abcdef0u, "%%envreg2 0x%x", got[1]);
	read_envregs(false, 0, got);
	cr_expect(got[0] == 0 && got[1] == 0, "not cooperative: 0x%x 0x%x", got[0], got[1]);
}

Test(coop, other_envregs_are_refused_by_name)
{
	char *src = h_kernel("", "\tmov.u32 %r10, %envreg0;\n");
	cs_diag d;
	cs_ptx_program *p = cs_ptx_parse(src, strlen(src), "env.ptx", &d);
	cr_assert(p, "%s", d.msg);
	size_t entry;
	cr_assert(cs_ptx_entry_find(p, "k", &entry));
	const cs_diag *why = cs_ptx_entry_refusal(p, entry);
	cr_assert(why);
	cr_expect(strstr(why->msg, "'%envreg0': the driver's value for it is not public"), "%s",
		  why->msg);
	cs_ptx_program_free(p);
	free(src);
}

Test(coop, cooperative_launch_needs_a_workspace)
{
	char *src = h_kernel("", envreg_body);
	cs_diag d;
	cs_ptx_program *p = h_parse(src, &d);
	h_env e;
	h_init(&e);
	e.cooperative = true;
	uint64_t vout = h_alloc(&e, 8);
	cs_grid_result r = h_run(&e, p, "k", (uint32_t[]){ 1, 1, 1 }, (uint32_t[]){ 1, 1, 1 }, 0,
				 (uint64_t[]){ vout, vout, 0 }, 3);
	cr_expect_eq(r.outcome, CS_GRID_ERROR);
	cr_expect(strstr(r.diag.msg, "without a grid workspace"), "%s", r.diag.msg);
	h_fini(&e);
	cs_ptx_program_free(p);
	free(src);
}

static float stencil_ref(float *a, int n, int steps)
{
	float tmp[1024];
	for (int s = 0; s < steps; s++) {
		for (int i = 0; i < n; i++)
			tmp[i] = (i == 0 || i == n - 1) ? a[i] : (a[i - 1] + a[i] + a[i + 1]) / 3.0f;
		memcpy(a, tmp, (size_t)n * sizeof(float));
	}
	return a[0];
}

/* grid_reduce over 8 CTAs of 128 threads, grid_stencil for 6 steps over 6
 * CTAs (12 grid barriers); the same kernels launched without the
 * cooperative attribute find no workspace and trap, as on a GPU. */
Test(coop, grid_sync_fixtures)
{
	const char *archs[] = { "sm_80", "sm_90", "sm_100" };
	enum { N = 3000, M = 700, STEPS = 6 };
	static float in[N], a0[M], want_a[M];
	uint32_t seed = 5;
	double sum = 0;
	for (int i = 0; i < N; i++) {
		in[i] = (float)(int)(h_frand(&seed) * 64.0f); /* integers: the sum is exact */
		sum += in[i];
	}
	for (int i = 0; i < M; i++)
		a0[i] = want_a[i] = h_frand(&seed) * 10.0f;
	stencil_ref(want_a, M, STEPS);
	for (size_t k = 0; k < 3; k++) {
		cs_ptx_program *p = h_load_fixture("coopgrid", archs[k]);
		h_env e;
		h_init(&e);
		uint64_t vin = h_put(&e, in, sizeof(in)), vpart = h_alloc(&e, 8 * 4), vout = h_alloc(&e, 4);
		uint64_t va = h_put(&e, a0, sizeof(a0)), vtmp = h_alloc(&e, sizeof(a0));
		e.cooperative = true;
		e.grid_workspace = h_alloc(&e, 8);
		cs_grid_result r = h_run(&e, p, "grid_reduce", (uint32_t[]){ 8, 1, 1 },
					 (uint32_t[]){ 128, 1, 1 }, 0,
					 (uint64_t[]){ vin, vpart, vout, N }, 4);
		cr_assert_eq(r.outcome, CS_GRID_EXECUTED, "%s grid_reduce: %s", archs[k], r.diag.msg);
		float got;
		h_read(&e, vout, &got, 4);
		cr_expect_eq(got, (float)sum, "%s grid_reduce: %g, want %g", archs[k], (double)got, sum);
		r = h_run(&e, p, "grid_stencil", (uint32_t[]){ 6, 1, 1 }, (uint32_t[]){ 64, 1, 1 }, 0,
			  (uint64_t[]){ va, vtmp, M, STEPS }, 4);
		cr_assert_eq(r.outcome, CS_GRID_EXECUTED, "%s grid_stencil: %s", archs[k], r.diag.msg);
		char what[64];
		snprintf(what, sizeof(what), "%s grid_stencil", archs[k]);
		h_expect_f32(&e, va, want_a, M, what);
		e.cooperative = false;
		e.grid_workspace = 0;
		r = h_run(&e, p, "grid_reduce", (uint32_t[]){ 8, 1, 1 }, (uint32_t[]){ 128, 1, 1 }, 0,
			  (uint64_t[]){ vin, vpart, vout, N }, 4);
		cr_expect_eq(r.outcome, CS_GRID_ERROR, "%s not cooperative: %d", archs[k], r.outcome);
		cr_expect(strstr(r.diag.msg, "the kernel executed trap"), "%s", r.diag.msg);
		h_fini(&e);
		cs_ptx_program_free(p);
	}
}

/* The executor's fast paths (full-warp lane loops, fused instruction runs,
 * vectorized address checks) give the results, faults and counts of the
 * general per-lane paths they stand in for. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "harness.h"

enum { N = 64 };

static const uint32_t cmp_a[] = { 0, 1, 5, 0x80000000u, 0xffffffffu, 7, 0x7fffffffu, 3 };
static const uint32_t cmp_b[] = { 0, 2, 5, 1, 0, 0xfffffff0u, 0x80000000u, 3 };

static bool ref_cmp(const char *op, bool is_signed, uint32_t a, uint32_t b)
{
	int32_t sa = (int32_t)a, sb = (int32_t)b;
	if (!strcmp(op, "eq"))
		return a == b;
	if (!strcmp(op, "ne"))
		return a != b;
	if (!strcmp(op, "lt"))
		return is_signed ? sa < sb : a < b;
	if (!strcmp(op, "le"))
		return is_signed ? sa <= sb : a <= b;
	if (!strcmp(op, "gt"))
		return is_signed ? sa > sb : a > b;
	return is_signed ? sa >= sb : a >= b;
}

/* setp over all lanes, and under a guard that leaves odd lanes inactive (their
 * predicate keeps the value set before). */
Test(fast, setp_32bit_every_operator_full_and_partial)
{
	static const char *const ops[] = { "eq", "ne", "lt", "le", "gt", "ge" };
	static const char *const types[] = { "s32", "u32" };
	uint32_t a[N], b[N], out[N];
	for (unsigned i = 0; i < N; i++) {
		a[i] = cmp_a[i % 8] + (i / 8 == 3 ? 1 : 0);
		b[i] = cmp_b[(i * 3) % 8];
	}
	for (unsigned t = 0; t < 2; t++)
		for (unsigned o = 0; o < 6; o++) {
			char body[512];
			snprintf(body, sizeof(body),
				 "\tsetp.%s.%s %%p1, %%r3, %%r4;\n\tselp.u32 %%r5, 1, 0, %%p1;\n"
				 "\tand.b32 %%r6, %%r2, 1;\n\tsetp.eq.u32 %%p2, %%r6, 0;\n"
				 "\tsetp.eq.u32 %%p3, %%r2, %%r2;\n"
				 "\t@%%p2 setp.%s.%s %%p3, %%r3, %%r4;\n"
				 "\tselp.u32 %%r7, 2, 0, %%p3;\n\tor.b32 %%r5, %%r5, %%r7;\n",
				 ops[o], types[t], ops[o], types[t]);
			h_pairs32(body, a, b, out, N);
			for (unsigned i = 0; i < N; i++) {
				bool c = ref_cmp(ops[o], t == 0, a[i], b[i]);
				uint32_t want = (c ? 1u : 0u) | ((i & 1) || c ? 2u : 0u);
				cr_expect_eq(out[i], want, "setp.%s.%s lane %u: %u, want %u", ops[o],
					     types[t], i, out[i], want);
			}
		}
}

/* Each thread t: s[t] = in[t]; bar; out[t] = fma(s[x], s[y], 0.5) for the
 * addresses the body computes into %r10 and %r11. */
static const char *fma_decls = ".shared .align 4 .b8 s[256];";

static cs_grid_result run_shared_fma(const char *addr, const char *between, uint32_t threads,
				     float *out)
{
	char body[2048];
	snprintf(body, sizeof(body),
		 "\tld.global.f32 %%f1, [%%rd5];\n\tmov.u32 %%r8, s;\n\tshl.b32 %%r9, %%r2, 2;\n"
		 "\tadd.s32 %%r12, %%r8, %%r9;\n\tst.shared.f32 [%%r12], %%f1;\n\tbar.sync 0;\n"
		 "%s\n\tmov.f32 %%f4, 0f3F000000;\n"
		 "\tld.shared.f32 %%f2, [%%r10];\n%s\tld.shared.f32 %%f3, [%%r11+4];\n"
		 "\tfma.rn.f32 %%f5, %%f2, %%f3, %%f4;\n\tst.global.f32 [%%rd4], %%f5;\n",
		 addr, between);
	float in[N];
	for (unsigned i = 0; i < N; i++)
		in[i] = (float)i * 0.75f - 3.0f;
	return h_run_body(fma_decls, body, threads, in, sizeof(in), out, threads * sizeof(float));
}

static const char *fma_addr =
	/* %r10 = s + 4*t, %r11 = s + 4*(t ^ 5) - 4 (the load adds 4 back) */
	"\tadd.s32 %r10, %r8, %r9;\n\txor.b32 %r13, %r2, 5;\n\tshl.b32 %r13, %r13, 2;\n"
	"\tadd.s32 %r11, %r8, %r13;\n\tadd.s32 %r11, %r11, -4;\n";

static void expect_shared_fma(const float *out, uint32_t threads)
{
	for (unsigned t = 0; t < threads; t++) {
		float x = (float)t * 0.75f - 3.0f, y = (float)(t ^ 5) * 0.75f - 3.0f;
		float want = fmaf(x, y, 0.5f);
		cr_expect_eq(h_b(out[t]), h_b(want), "thread %u: %a, want %a", t, out[t], want);
	}
}

Test(fast, shared_loads_and_fma_full_partial_and_split)
{
	float out[N];
	/* full warps: the three run as one */
	cs_grid_result fused = run_shared_fma(fma_addr, "", 64, out);
	cr_assert_eq(fused.outcome, CS_GRID_EXECUTED, "%s", fused.diag.msg);
	expect_shared_fma(out, 64);
	/* a partial warp: one by one */
	cs_grid_result r = run_shared_fma(fma_addr, "", 40, out);
	cr_assert_eq(r.outcome, CS_GRID_EXECUTED, "%s", r.diag.msg);
	expect_shared_fma(out, 40);
	/* a branch target between the loads keeps them apart; the count differs
	 * by the branch alone */
	cs_grid_result split = run_shared_fma(fma_addr, "\tbra.uni $L_mid;\n$L_mid:\n", 64, out);
	cr_assert_eq(split.outcome, CS_GRID_EXECUTED, "%s", split.diag.msg);
	expect_shared_fma(out, 64);
	cr_expect_eq(fused.thread_instructions + 64, split.thread_instructions, "%llu vs %llu",
		     (unsigned long long)fused.thread_instructions,
		     (unsigned long long)split.thread_instructions);
}

Test(fast, shared_fma_second_load_faults_at_its_line)
{
	float out[N];
	/* lane 9's second address is past the 256 bytes */
	const char *addr = "\tadd.s32 %r10, %r8, %r9;\n\tmov.u32 %r11, %r10;\n"
			   "\tsetp.eq.u32 %p1, %r2, 9;\n\t@%p1 add.s32 %r11, %r8, 252;\n";
	cs_grid_result r = run_shared_fma(addr, "", 32, out);
	cr_assert_eq(r.outcome, CS_GRID_FAULT, "%s", r.diag.msg);
	cr_expect(strstr(r.diag.msg, "shared"), "%s", r.diag.msg);
	cr_expect(strstr(r.diag.msg, "thread (9,0,0)"), "%s", r.diag.msg);
	/* h_kernel's body starts at line 24: six lines, addr's four, an empty one,
	 * mov.f32 and the first load come before the second load */
	cr_expect_eq(r.diag.line, 37, "%s", r.diag.msg);
}

/* The second load's address is the first load's result: checked only after
 * the first has loaded. */
Test(fast, shared_load_through_a_loaded_address)
{
	const char *body =
		"\tmov.u32 %r8, s;\n\tshl.b32 %r9, %r2, 2;\n\tadd.s32 %r10, %r8, %r9;\n"
		"\tadd.s32 %r11, %r10, 128;\n\tst.shared.u32 [%r10], %r11;\n"
		"\tcvt.rn.f32.u32 %f1, %r2;\n\tst.shared.f32 [%r11], %f1;\n\tbar.sync 0;\n"
		"\tmov.f32 %f4, 0f3F800000;\n"
		"\tld.shared.u32 %r12, [%r10];\n\tld.shared.f32 %f2, [%r12];\n"
		"\tfma.rn.f32 %f5, %f2, %f2, %f4;\n\tst.global.f32 [%rd4], %f5;\n";
	float out[32];
	cs_grid_result r = h_run_body(fma_decls, body, 32, NULL, 0, out, sizeof(out));
	cr_assert_eq(r.outcome, CS_GRID_EXECUTED, "%s", r.diag.msg);
	for (unsigned t = 0; t < 32; t++)
		cr_expect_eq(out[t], (float)(t * t) + 1.0f, "thread %u: %g", t, out[t]);
}

/* Shared sizes that are and are not a power of two: the last word loads, the
 * next faults. A static size is rounded up to 16 bytes. */
Test(fast, shared_bounds_power_of_two_or_not)
{
	static const struct {
		const char *decls;
		unsigned last;
	} cases[] = {
		{ ".shared .align 4 .b8 s[128];", 124 },
		{ ".shared .align 4 .b8 s[100];", 108 },
	};
	for (unsigned i = 0; i < 2; i++) {
		char body[256];
		uint32_t out[32];
		snprintf(body, sizeof(body), "\tmov.u32 %%r3, s;\n\tld.shared.u32 %%r4, [%%r3+%u];\n",
			 cases[i].last);
		cs_grid_result r = h_run_body(cases[i].decls, body, 32, NULL, 0, out, sizeof(out));
		cr_expect_eq(r.outcome, CS_GRID_EXECUTED, "%s: %s", cases[i].decls, r.diag.msg);
		snprintf(body, sizeof(body), "\tmov.u32 %%r3, s;\n\tld.shared.u32 %%r4, [%%r3+%u];\n",
			 cases[i].last + 4);
		r = h_run_body(cases[i].decls, body, 32, NULL, 0, out, sizeof(out));
		cr_expect_eq(r.outcome, CS_GRID_FAULT, "%s: %s", cases[i].decls, r.diag.msg);
		/* misaligned inside the bounds */
		snprintf(body, sizeof(body), "\tmov.u32 %%r3, s;\n\tst.shared.u32 [%%r3+%u], 1;\n",
			 cases[i].last - 2);
		r = h_run_body(cases[i].decls, body, 32, NULL, 0, out, sizeof(out));
		cr_expect_eq(r.outcome, CS_GRID_FAULT, "%s: %s", cases[i].decls, r.diag.msg);
		cr_expect(strstr(r.diag.msg, "misaligned"), "%s", r.diag.msg);
	}
}

/* ld.param of a name: one address for every lane, vectors and signed
 * elements included, in a full and a partial warp. */
Test(fast, param_loads_vector_and_signed)
{
	static const char *ptx =
		".version 9.0\n.target sm_90\n.address_size 64\n"
		".visible .entry kp(.param .u64 o, .param .u32 v, .param .u64 w)\n{\n"
		"\t.reg .b32 %r<8>;\n\t.reg .b64 %rd<8>;\n"
		"\tld.param.u64 %rd1, [o];\n\tmov.u32 %r1, %tid.x;\n"
		"\tmul.wide.u32 %rd2, %r1, 12;\n\tadd.s64 %rd3, %rd1, %rd2;\n"
		"\tld.param.s8 %r2, [v];\n\tld.param.v2.u32 {%r3, %r4}, [w];\n"
		"\tst.global.u32 [%rd3], %r2;\n\tst.global.u32 [%rd3+4], %r3;\n"
		"\tst.global.u32 [%rd3+8], %r4;\n\tret;\n}\n";
	cs_diag d;
	cs_ptx_program *p = h_parse(ptx, &d);
	cr_assert(p);
	h_env e;
	h_init(&e);
	uint64_t vo = h_alloc(&e, 4096);
	uint64_t args[] = { vo, 0x1fe, 0x1122334455667788ull };
	cs_grid_result r = h_run(&e, p, "kp", (uint32_t[]){ 1, 1, 1 }, (uint32_t[]){ 48, 1, 1 }, 0,
				 args, 3);
	cr_assert_eq(r.outcome, CS_GRID_EXECUTED, "%s", r.diag.msg);
	uint32_t out[48][3];
	h_read(&e, vo, out, sizeof(out));
	for (unsigned t = 0; t < 48; t++) {
		cr_expect_eq(out[t][0], 0xfffffffeu, "thread %u: %#x", t, out[t][0]);
		cr_expect_eq(out[t][1], 0x55667788u, "thread %u: %#x", t, out[t][1]);
		cr_expect_eq(out[t][2], 0x11223344u, "thread %u: %#x", t, out[t][2]);
	}
	h_fini(&e);
	cs_ptx_program_free(p);
}

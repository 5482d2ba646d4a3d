/* SPDX-License-Identifier: MIT */
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

/* ---- integer operations with a constant operand ----------------------- */

/* The operations whose constant second operand is read once for the warp
 * (each with .32 and .64 appended), with PTX's results: shift counts clamp at
 * the width, a right shift of a signed value fills with its sign; and the
 * 64-bit mul.wide of two 32-bit operands. A constant as a 64-bit operand is the
 * literal as written, zero-extended. */
static const char *const k_ops[] = { "add.s", "sub.s", "mul.lo.s", "shl.b", "shr.u", "shr.s",
				     "and.b", "or.b", "xor.b", "mul.wide.s", "mul.wide.u" };
enum { K_OPS_32 = 9 }; /* the first 9 have a 32-bit form */
static const uint32_t k_imms[] = { 0, 1, 7, 31, 32, 33, 63, 64, 200, 0x80000000u, 0xffffffffu };

static uint64_t ref_k(const char *op, uint64_t a, uint64_t k, unsigned bits)
{
	uint64_t mask = bits == 32 ? 0xffffffffull : ~0ull;
	int64_t sa = bits == 32 ? (int64_t)(int32_t)(uint32_t)a : (int64_t)a; /* a sign-extended */
	a &= mask;
	uint64_t r;
	if (!strcmp(op, "add.s")) r = a + k;
	else if (!strcmp(op, "sub.s")) r = a - k;
	else if (!strcmp(op, "mul.lo.s")) r = a * k;
	else if (!strcmp(op, "shl.b")) r = k >= bits ? 0 : a << k;
	else if (!strcmp(op, "shr.u")) r = k >= bits ? 0 : a >> k;
	else if (!strcmp(op, "shr.s")) r = (uint64_t)(sa >> (k >= bits ? bits - 1 : k));
	else if (!strcmp(op, "and.b")) r = a & k;
	else if (!strcmp(op, "or.b")) r = a | k;
	else if (!strcmp(op, "xor.b")) r = a ^ k;
	else if (!strcmp(op, "mul.wide.s"))
		return (uint64_t)((int64_t)(int32_t)(uint32_t)a * (int64_t)(int32_t)(uint32_t)k);
	else
		return (uint64_t)(uint32_t)a * (uint32_t)k;
	return r & mask;
}

/* Every such operation and constant, over all lanes and under a guard that
 * leaves odd lanes inactive (their destination keeps what it held). */
Test(fast, int_ops_with_a_constant_operand_full_and_partial)
{
	static const uint64_t a64[] = { 0, 1, 5, 1ull << 63, ~0ull, 0x7fffffff80000001ull,
					0x123456789abcdef0ull, 0xfffffffffffffff0ull };
	uint64_t a[N], b[N], out[N];
	for (unsigned i = 0; i < N; i++) {
		a[i] = a64[i % 8] + (i / 8);
		b[i] = 0;
	}
	for (unsigned bits = 32; bits <= 64; bits += 32)
		for (unsigned o = 0; o < sizeof(k_ops) / sizeof(k_ops[0]); o++)
			for (unsigned j = 0; j < sizeof(k_imms) / sizeof(k_imms[0]); j++) {
				/* the 32-bit forms and mul.wide read %r3, the low half of a */
				bool wide = o >= K_OPS_32;
				if (bits == 32 && wide)
					continue;
				const char *src = bits == 32 || wide ? "%r3" : "%rd8";
				unsigned w = wide ? 32 : bits;
				char body[512];
				if (bits == 64)
					snprintf(body, sizeof(body),
						 "\tcvt.u32.u64 %%r3, %%rd8;\n\t%s%u %%rd10, %s, %u;\n"
						 "\tand.b32 %%r6, %%r2, 1;\n\tsetp.eq.u32 %%p2, %%r6, 0;\n"
						 "\tmov.u64 %%rd13, 0x5a5a5a5a5a5a5a5a;\n"
						 "\t@%%p2 %s%u %%rd13, %s, %u;\n"
						 "\txor.b64 %%rd10, %%rd10, %%rd13;\n",
						 k_ops[o], w, src, k_imms[j], k_ops[o], w, src, k_imms[j]);
				else /* a 32-bit destination, zero-extended */
					snprintf(body, sizeof(body),
						 "\tcvt.u32.u64 %%r3, %%rd8;\n\t%s32 %%r5, %%r3, %u;\n"
						 "\tand.b32 %%r6, %%r2, 1;\n\tsetp.eq.u32 %%p2, %%r6, 0;\n"
						 "\tmov.u32 %%r7, 0x5a5a5a5a;\n"
						 "\t@%%p2 %s32 %%r7, %%r3, %u;\n\txor.b32 %%r5, %%r5, %%r7;\n"
						 "\tcvt.u64.u32 %%rd10, %%r5;\n",
						 k_ops[o], k_imms[j], k_ops[o], k_imms[j]);
				h_pairs64(body, a, b, out, N);
				uint64_t keep = bits == 32 ? 0x5a5a5a5aull : 0x5a5a5a5a5a5a5a5aull;
				for (unsigned i = 0; i < N; i++) {
					uint64_t r = ref_k(k_ops[o], a[i], k_imms[j], w);
					uint64_t want = r ^ ((i & 1) ? keep : r);
					cr_expect_eq(out[i], want, "%s%u %#x lane %u: %#llx, want %#llx",
						     k_ops[o], w, k_imms[j], i, (unsigned long long)out[i],
						     (unsigned long long)want);
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

/* ---- fused runs of shared loads and fmas -------------------------------- */

/* Where thread t's two address registers point (word indices into s): each
 * way a group of 8 lanes can lie (consecutive words, one word, anywhere) and
 * a warp that mixes them. */
enum { AT_CONTIG, AT_UNIFORM, AT_GATHER, AT_MIXED, AT_KINDS };
static const char *const at_name[AT_KINDS] = { "contig", "uniform", "gather", "mixed" };

static unsigned at_word(int kind, unsigned t)
{
	switch (kind) {
	case AT_CONTIG: return t & 15;
	case AT_UNIFORM: return (t >> 3) & 15;
	case AT_GATHER: return (t * 5) & 15;
	default: {
		unsigned g = (t >> 3) & 3;
		return g == 0 ? (t & 7) : g == 1 ? 2 : (t * 5) & 15;
	}
	}
}

/* PTX that computes, for each thread t of a 64-thread block, the word index
 * into %r10 / %r11 for at_word(kind, t) (by the same formulas). */
static void at_ptx(char *b, size_t cap, int kind, const char *dst)
{
	switch (kind) {
	case AT_CONTIG:
		snprintf(b, cap, "\tand.b32 %s, %%r2, 15;\n", dst);
		break;
	case AT_UNIFORM:
		snprintf(b, cap, "\tshr.u32 %s, %%r2, 3;\n\tand.b32 %s, %s, 15;\n", dst, dst, dst);
		break;
	case AT_GATHER:
		snprintf(b, cap, "\tmul.lo.u32 %s, %%r2, 5;\n\tand.b32 %s, %s, 15;\n", dst, dst, dst);
		break;
	default:
		snprintf(b, cap,
			 "\tshr.u32 %%r20, %%r2, 3;\n\tand.b32 %%r20, %%r20, 3;\n"
			 "\tmul.lo.u32 %s, %%r2, 5;\n\tand.b32 %s, %s, 15;\n"
			 "\tsetp.eq.u32 %%p1, %%r20, 1;\n\t@%%p1 mov.u32 %s, 2;\n"
			 "\tand.b32 %%r21, %%r2, 7;\n\tsetp.eq.u32 %%p2, %%r20, 0;\n"
			 "\t@%%p2 mov.u32 %s, %%r21;\n",
			 dst, dst, dst, dst, dst);
		break;
	}
}

/* The offsets (in words) of triple k's two loads. */
static unsigned off1_word(unsigned k) { return k % 16; }
static unsigned off2_word(unsigned k) { return (3 * k) % 16; }

enum { RUN_THREADS_MAX = 64, RUN_TRIPLES_MAX = 80 };

typedef struct run_case {
	int kx, ky;        /* address kinds of the first and the second loads */
	unsigned triples;
	bool read_later;   /* triple 1's first loaded value and fma result stored too */
	bool split;        /* a branch target after triple 2 cuts the run */
	unsigned threads;
} run_case;

/* A kernel: s[t] = in[t]; bar; acc = 0.5; then `triples` of
 * ld.shared a, [x + 4*off1]; ld.shared b, [y + 4*off2]; fma acc = a*b + acc,
 * each with registers of its own; out[t] = acc (and the read_later values at
 * out[64 + t] and out[128 + t]). */
static char *run_kernel(const run_case *c)
{
	size_t cap = 256 * (size_t)c->triples + 4096;
	char *s = malloc(cap), ax[512], ay[512];
	at_ptx(ax, sizeof(ax), c->kx, "%r10");
	at_ptx(ay, sizeof(ay), c->ky, "%r11");
	int n = snprintf(s, cap,
			 ".version 9.0\n.target sm_90\n.address_size 64\n"
			 ".visible .entry k(.param .u64 k_out, .param .u64 k_in)\n{\n"
			 "\t.reg .pred %%p<4>;\n\t.reg .b32 %%r<32>;\n\t.reg .b64 %%rd<8>;\n"
			 "\t.reg .f32 %%f<4>;\n\t.reg .f32 %%a<%u>;\n\t.reg .f32 %%b<%u>;\n"
			 "\t.reg .f32 %%d<%u>;\n\t.shared .align 4 .b8 s[256];\n"
			 "\tld.param.u64 %%rd1, [k_out];\n\tld.param.u64 %%rd2, [k_in];\n"
			 "\tmov.u32 %%r2, %%tid.x;\n\tmul.wide.u32 %%rd3, %%r2, 4;\n"
			 "\tadd.s64 %%rd4, %%rd1, %%rd3;\n\tadd.s64 %%rd5, %%rd2, %%rd3;\n"
			 "\tld.global.f32 %%f1, [%%rd5];\n\tmov.u32 %%r8, s;\n\tshl.b32 %%r9, %%r2, 2;\n"
			 "\tadd.s32 %%r12, %%r8, %%r9;\n\tst.shared.f32 [%%r12], %%f1;\n\tbar.sync 0;\n"
			 "%s%s\tshl.b32 %%r10, %%r10, 2;\n\tadd.s32 %%r10, %%r10, %%r8;\n"
			 "\tshl.b32 %%r11, %%r11, 2;\n\tadd.s32 %%r11, %%r11, %%r8;\n"
			 "\tmov.f32 %%d0, 0f3F000000;\n",
			 c->triples + 1, c->triples + 1, c->triples + 1, ax, ay);
	for (unsigned k = 1; k <= c->triples; k++) {
		if (c->split && k == 3)
			n += snprintf(s + n, cap - (size_t)n, "\tbra.uni $L_cut;\n$L_cut:\n");
		n += snprintf(s + n, cap - (size_t)n,
			      "\tld.shared.f32 %%a%u, [%%r10+%u];\n\tld.shared.f32 %%b%u, [%%r11+%u];\n"
			      "\tfma.rn.f32 %%d%u, %%b%u, %%a%u, %%d%u;\n",
			      k, 4 * off1_word(k - 1), k, 4 * off2_word(k - 1), k, k, k, k - 1);
	}
	n += snprintf(s + n, cap - (size_t)n, "\tst.global.f32 [%%rd4], %%d%u;\n", c->triples);
	if (c->read_later)
		n += snprintf(s + n, cap - (size_t)n,
			      "\tst.global.f32 [%%rd4+256], %%a1;\n\tst.global.f32 [%%rd4+512], %%d1;\n");
	snprintf(s + n, cap - (size_t)n, "\tret;\n}\n");
	return s;
}

/* Inputs: small exact values, and two NaNs with payloads of their own (a
 * signalling one and a negative quiet one) that arithmetic must make canonical. */
static uint32_t run_input(unsigned i)
{
	if (i == 5)
		return 0x7fa00001u;
	if (i == 6)
		return 0xffc00123u;
	return h_b((float)((int)((i * 7) % 13) - 6) * 0.375f);
}

static uint32_t canon(float f)
{
	return f != f ? 0x7fffffffu : h_b(f);
}

/* Runs the case and checks every thread's result against fmaf done here;
 * returns the thread-instruction count. */
static uint64_t check_run(const run_case *c)
{
	char *src = run_kernel(c);
	cs_diag d;
	cs_ptx_program *p = h_parse(src, &d);
	free(src);
	cr_assert(p);
	h_env e;
	h_init(&e);
	uint32_t in[RUN_THREADS_MAX], out[3 * RUN_THREADS_MAX];
	for (unsigned i = 0; i < RUN_THREADS_MAX; i++)
		in[i] = run_input(i);
	uint64_t vin = h_alloc(&e, sizeof(in)), vout = h_alloc(&e, sizeof(out));
	h_write(&e, vin, in, sizeof(in));
	uint64_t args[] = { vout, vin };
	cs_grid_result r = h_run(&e, p, "k", (uint32_t[]){ 1, 1, 1 },
				 (uint32_t[]){ c->threads, 1, 1 }, 0, args, 2);
	cr_assert_eq(r.outcome, CS_GRID_EXECUTED, "%s", r.diag.msg);
	h_read(&e, vout, out, sizeof(out));
	for (unsigned t = 0; t < c->threads; t++) {
		/* a thread reads only words its block stored (s[0..threads)) */
		float acc = 0.5f, a1 = 0, d1 = 0;
		for (unsigned k = 0; k < c->triples; k++) {
			float a = h_f(in[at_word(c->kx, t) + off1_word(k)]);
			float b = h_f(in[at_word(c->ky, t) + off2_word(k)]);
			acc = fmaf(b, a, acc);
			if (k == 0) {
				a1 = a;
				d1 = acc;
			}
		}
		cr_expect_eq(out[t], canon(acc), "%s/%s, %u triples, %u threads: thread %u %#x, want %#x",
			     at_name[c->kx], at_name[c->ky], c->triples, c->threads, t, out[t],
			     canon(acc));
		if (c->read_later) {
			cr_expect_eq(out[64 + t], h_b(a1), "thread %u: loaded %#x, want %#x", t,
				     out[64 + t], h_b(a1));
			cr_expect_eq(out[128 + t], canon(d1), "thread %u: first fma %#x, want %#x", t,
				     out[128 + t], canon(d1));
		}
	}
	h_fini(&e);
	cs_ptx_program_free(p);
	return r.thread_instructions;
}

/* Every pair of address kinds, in full warps (one step per run) and in a
 * partial warp (instruction by instruction), give fmaf's bits; NaNs come out
 * canonical. */
Test(fast, shared_fma_run_every_address_kind)
{
	for (int kx = 0; kx < AT_KINDS; kx++)
		for (int ky = 0; ky < AT_KINDS; ky++)
			for (unsigned threads = 40; threads <= 64; threads += 24) {
				run_case c = { .kx = kx, .ky = ky, .triples = 16, .threads = threads };
				check_run(&c);
			}
}

/* A loaded value and an fma result read after the run are still written. */
Test(fast, shared_fma_run_keeps_what_is_read_later)
{
	for (int k = 0; k < AT_KINDS; k++) {
		run_case c = { .kx = k, .ky = (k + 1) % AT_KINDS, .triples = 8, .read_later = true,
			       .threads = 64 };
		check_run(&c);
	}
}

/* An intermediate fma result of a run that a wmma.store reads afterwards (an
 * operand kept beside the instruction, not in it) is still written: the run
 * stores what the same instructions cut into single triples store. */
static void wmma_after_run(bool cut, float *out)
{
	char body[2048];
	snprintf(body, sizeof(body),
		 "\tld.global.f32 %%f20, [%%rd5];\n\tmov.u32 %%r8, s;\n\tshl.b32 %%r9, %%r2, 2;\n"
		 "\tadd.s32 %%r12, %%r8, %%r9;\n\tst.shared.f32 [%%r12], %%f20;\n\tbar.sync 0;\n"
		 "\tmov.u32 %%r11, %%r8;\n\tmov.f32 %%f0, 0f3F000000;\n"
		 "\tld.shared.f32 %%f30, [%%r12];\n\tld.shared.f32 %%f31, [%%r11];\n"
		 "\tfma.rn.f32 %%f1, %%f30, %%f31, %%f0;\n%s"
		 "\tld.shared.f32 %%f32, [%%r12+4];\n\tld.shared.f32 %%f33, [%%r11+4];\n"
		 "\tfma.rn.f32 %%f9, %%f32, %%f33, %%f1;\n"
		 "\tmov.f32 %%f2, 0f00000000;\n\tmov.f32 %%f3, %%f2;\n\tmov.f32 %%f4, %%f2;\n"
		 "\tmov.f32 %%f5, %%f2;\n\tmov.f32 %%f6, %%f2;\n\tmov.f32 %%f7, %%f2;\n"
		 "\tmov.f32 %%f8, %%f2;\n"
		 "\twmma.store.d.sync.aligned.row.m16n16k16.global.f32 [%%rd1], "
		 "{%%f1,%%f2,%%f3,%%f4,%%f5,%%f6,%%f7,%%f8};\n"
		 "\tst.global.f32 [%%rd4+1024], %%f9;\n",
		 cut ? "\tbra.uni $L_cut;\n$L_cut:\n" : "");
	float in[32];
	for (unsigned i = 0; i < 32; i++)
		in[i] = (float)i * 0.5f - 4.0f;
	cs_grid_result r = h_run_body(fma_decls, body, 32, in, sizeof(in), out, 288 * sizeof(float));
	cr_assert_eq(r.outcome, CS_GRID_EXECUTED, "%s", r.diag.msg);
}

Test(fast, shared_fma_run_writes_what_a_wmma_reads_later)
{
	float fused[288], cut[288];
	wmma_after_run(false, fused);
	wmma_after_run(true, cut);
	for (unsigned i = 0; i < 288; i++)
		cr_expect_eq(h_b(fused[i]), h_b(cut[i]), "word %u: %a, cut into triples %a", i,
			     fused[i], cut[i]);
	/* and the wmma stored the first fma's results, not zeros: lane 1's is 0.5 - 3.5 * -4 */
	bool found = false;
	for (unsigned i = 0; i < 256; i++)
		found |= cut[i] == 14.5f;
	cr_expect(found, "the first fma's result of lane 1 is not in the stored matrix");
}

/* A run longer than one step takes, and one cut by a branch target: the same
 * results, and the count differs by the branch alone. */
Test(fast, shared_fma_run_long_and_cut)
{
	run_case c = { .kx = AT_CONTIG, .ky = AT_UNIFORM, .triples = RUN_TRIPLES_MAX,
		       .threads = 64 };
	check_run(&c);
	c.triples = 12;
	uint64_t whole = check_run(&c);
	c.split = true;
	uint64_t cut = check_run(&c);
	cr_expect_eq(whole + 64, cut, "%llu vs %llu", (unsigned long long)whole,
		     (unsigned long long)cut);
}

/* One lane's address in the middle of a run is out of bounds: the fault
 * names that load's line and thread. */
Test(fast, shared_fma_run_faults_at_its_line)
{
	run_case c = { .kx = AT_CONTIG, .ky = AT_CONTIG, .triples = 6, .threads = 32 };
	char *src = run_kernel(&c);
	/* thread 9's second address (byte 36) moves 184 bytes up to 220, so triple
	 * 4's offset of 36 bytes takes it to 256, past the end (triples 1 to 3, at
	 * offsets up to 24, stay inside) */
	const char *at = "\tmov.f32 %d0, 0f3F000000;\n";
	char *cut = strstr(src, at);
	cr_assert(cut);
	const char *bump = "\tsetp.eq.u32 %p3, %r2, 9;\n\t@%p3 add.s32 %r11, %r11, 184;\n";
	size_t head = (size_t)(cut - src), len = strlen(src) + strlen(bump) + 1;
	char *mod = malloc(len);
	snprintf(mod, len, "%.*s%s%s", (int)head, src, bump, cut);
	free(src);
	/* the fault's line: triple 4's second load */
	const char *ld = strstr(mod, "ld.shared.f32 %b4,");
	cr_assert(ld);
	unsigned want = 1;
	for (const char *q = mod; q < ld; q++)
		want += *q == '\n';
	cs_diag d;
	cs_ptx_program *p = h_parse(mod, &d);
	free(mod);
	cr_assert(p);
	h_env e;
	h_init(&e);
	uint64_t vin = h_alloc(&e, 256), vout = h_alloc(&e, 256);
	uint64_t args[] = { vout, vin };
	cs_grid_result r = h_run(&e, p, "k", (uint32_t[]){ 1, 1, 1 }, (uint32_t[]){ 32, 1, 1 }, 0,
				 args, 2);
	cr_assert_eq(r.outcome, CS_GRID_FAULT, "%s", r.diag.msg);
	cr_expect(strstr(r.diag.msg, "thread (9,0,0)"), "%s", r.diag.msg);
	cr_expect_eq(r.diag.line, want, "line %u, want %u: %s", r.diag.line, want, r.diag.msg);
	h_fini(&e);
	cs_ptx_program_free(p);
}

/* Full-warp shared stores where lanes share a word: lane order, so the highest
 * lane of each four writing one word leaves its value (the executor's rule for
 * a conflict the PTX ISA leaves open), and consecutive words in a group of 8
 * go together. */
Test(fast, shared_store_conflicts_keep_lane_order)
{
	const char *body =
		"\tmov.u32 %r8, s;\n\tshr.u32 %r9, %r2, 2;\n\tshl.b32 %r9, %r9, 2;\n"
		"\tadd.s32 %r10, %r8, %r9;\n\tst.shared.u32 [%r10], %r2;\n"
		"\tshl.b32 %r11, %r2, 2;\n\tadd.s32 %r12, %r8, %r11;\n"
		"\tst.shared.u32 [%r12+128], %r2;\n\tbar.sync 0;\n"
		"\tld.shared.u32 %r13, [%r10];\n\tld.shared.u32 %r14, [%r12+128];\n"
		"\tshl.b32 %r14, %r14, 8;\n\tor.b32 %r15, %r13, %r14;\n"
		"\tst.global.u32 [%rd4], %r15;\n";
	uint32_t out[64];
	cs_grid_result r = h_run_body(".shared .align 4 .b8 s[512];", body, 64, NULL, 0, out,
				      sizeof(out));
	cr_assert_eq(r.outcome, CS_GRID_EXECUTED, "%s", r.diag.msg);
	for (unsigned t = 0; t < 64; t++) {
		uint32_t want = ((t / 4) * 4 + 3) | (t << 8);
		cr_expect_eq(out[t], want, "thread %u: %#x, want %#x", t, out[t], want);
	}
}

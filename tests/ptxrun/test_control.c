/* SPDX-License-Identifier: MIT */
/* Divergence and reconvergence (nested branches, loops with divergent exits,
 * early return, calls), barriers across warps, deadlock and budget errors. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"

static void st3(char *buf, size_t n, const char *body)
{
	/* every test body stores r10, r11, r12 at out[3*tid..] */
	snprintf(buf, n, "%s\n\tmul.wide.u32 %%rd20, %%r2, 12;\n\tadd.s64 %%rd21, %%rd1, %%rd20;\n"
		 "\tst.global.u32 [%%rd21], %%r10;\n\tst.global.u32 [%%rd21+4], %%r11;\n"
		 "\tst.global.u32 [%%rd21+8], %%r12;\n", body);
}

Test(control, nested_branches_reconverge)
{
	const char *body =
		"\tsetp.lt.u32 %p1, %r2, 16;\n"
		"\t@%p1 bra $A;\n"
		"\tsetp.lt.u32 %p2, %r2, 24;\n"
		"\t@%p2 bra $B;\n"
		"\tactivemask.b32 %r10;\n"
		"\tbra.uni $J2;\n"
		"$B:\n"
		"\tactivemask.b32 %r10;\n"
		"$J2:\n"
		"\tactivemask.b32 %r11;\n"
		"\tbra.uni $J;\n"
		"$A:\n"
		"\tactivemask.b32 %r10;\n"
		"\tmov.u32 %r11, %r10;\n"
		"$J:\n"
		"\tactivemask.b32 %r12;\n";
	char full[2048];
	st3(full, sizeof(full), body);
	uint32_t out[32][3];
	cs_grid_result r = h_run_body("", full, 32, NULL, 0, out, sizeof(out));
	cr_assert_eq(r.outcome, CS_GRID_EXECUTED, "%s", r.diag.msg);
	for (int t = 0; t < 32; t++) {
		uint32_t w10 = t < 16 ? 0x0000ffffu : t < 24 ? 0x00ff0000u : 0xff000000u;
		uint32_t w11 = t < 16 ? 0x0000ffffu : 0xffff0000u;
		cr_expect_eq(out[t][0], w10, "lane %d inner mask 0x%08x", t, out[t][0]);
		cr_expect_eq(out[t][1], w11, "lane %d middle mask 0x%08x", t, out[t][1]);
		cr_expect_eq(out[t][2], 0xffffffffu, "lane %d after join 0x%08x", t, out[t][2]);
	}
}

Test(control, loop_with_divergent_exits)
{
	const char *body =
		"\tmov.u32 %r3, 0;\n\tmov.u32 %r4, 0;\n"
		"$L:\n"
		"\tsetp.ge.u32 %p1, %r3, %r2;\n"
		"\t@%p1 bra $X;\n"
		"\tadd.s32 %r4, %r4, %r3;\n"
		"\tsetp.eq.u32 %p2, %r3, 5;\n"
		"\t@%p2 bra $X;\n"
		"\tadd.s32 %r3, %r3, 1;\n"
		"\tbra $L;\n"
		"$X:\n"
		"\tactivemask.b32 %r11;\n"
		"\tmov.u32 %r10, %r4;\n"
		"\tmov.u32 %r12, %r3;\n";
	char full[2048];
	st3(full, sizeof(full), body);
	uint32_t out[40][3];
	cs_grid_result r = h_run_body("", full, 40, NULL, 0, out, sizeof(out));
	cr_assert_eq(r.outcome, CS_GRID_EXECUTED, "%s", r.diag.msg);
	for (int t = 0; t < 40; t++) {
		uint32_t sum = 0, i = 0;
		for (i = 0; i < (uint32_t)t; i++) {
			sum += i;
			if (i == 5)
				break;
		}
		cr_expect_eq(out[t][0], sum, "lane %d sum %u want %u", t, out[t][0], sum);
		cr_expect_eq(out[t][2], i, "lane %d exit index", t);
		cr_expect_eq(out[t][1], t < 32 ? 0xffffffffu : 0xffu, "lane %d mask after loop 0x%08x", t,
			     out[t][1]);
	}
}

Test(control, early_return)
{
	/* lanes with tid % 4 == 0 store a marker and return early */
	const char *body =
		"\tand.b32 %r3, %r2, 3;\n"
		"\tsetp.eq.u32 %p1, %r3, 0;\n"
		"\t@%p1 bra $EARLY;\n"
		"\tsetp.ne.u32 %p2, %r3, 9;\n"
		"\tvote.sync.ballot.b32 %r10, %p2, -1;\n"
		"\tactivemask.b32 %r11;\n"
		"\tmov.u32 %r12, 2;\n"
		"\tbra.uni $STORE;\n"
		"$EARLY:\n"
		"\tmul.wide.u32 %rd20, %r2, 12;\n\tadd.s64 %rd21, %rd1, %rd20;\n"
		"\tst.global.u32 [%rd21+8], 1;\n"
		"\tret;\n"
		"$STORE:\n";
	char full[2048];
	st3(full, sizeof(full), body);
	uint32_t out[32][3];
	cs_grid_result r = h_run_body("", full, 32, NULL, 0, out, sizeof(out));
	cr_assert_eq(r.outcome, CS_GRID_EXECUTED, "%s", r.diag.msg);
	for (int t = 0; t < 32; t++) {
		if (t % 4 == 0) {
			cr_expect_eq(out[t][2], 1);
			cr_expect_eq(out[t][0], 0);
		} else {
			cr_expect_eq(out[t][2], 2);
			cr_expect_eq(out[t][0], 0xeeeeeeeeu, "lane %d ballot 0x%08x", t, out[t][0]);
			cr_expect_eq(out[t][1], 0xeeeeeeeeu);
		}
	}
}

static const char *call_ptx =
	".version 9.0\n.target sm_90\n.address_size 64\n"
	".func (.param .b32 ret0) steps(.param .b32 p0, .param .b32 p1)\n{\n"
	"\t.reg .pred %p<4>;\n\t.reg .b32 %r<8>;\n"
	"\tld.param.u32 %r1, [p0];\n\tld.param.u32 %r2, [p1];\n"
	"\tmov.u32 %r3, 0;\n"
	"\tsetp.eq.u32 %p1, %r1, 3;\n"
	"\t@%p1 bra $ODD;\n"             /* lane value 3 returns early with 1000 */
	"$LOOP:\n"
	"\tsetp.ge.u32 %p2, %r3, %r1;\n"
	"\t@%p2 bra $DONE;\n"
	"\tadd.s32 %r3, %r3, 1;\n"
	"\tadd.s32 %r2, %r2, %r3;\n"
	"\tbra $LOOP;\n"
	"$DONE:\n"
	"\tst.param.b32 [ret0], %r2;\n"
	"\tret;\n"
	"$ODD:\n"
	"\tst.param.b32 [ret0], 1000;\n"
	"\tret;\n"
	"}\n"
	".visible .entry k(.param .u64 k_out)\n{\n"
	"\t.reg .b32 %r<8>;\n\t.reg .b64 %rd<8>;\n"
	"\tld.param.u64 %rd1, [k_out];\n\tmov.u32 %r1, %tid.x;\n"
	"\tand.b32 %r2, %r1, 7;\n"
	"\t{\n"
	"\t.param .b32 param0;\n\tst.param.b32 [param0+0], %r2;\n"
	"\t.param .b32 param1;\n\tst.param.b32 [param1+0], 100;\n"
	"\t.param .b32 retval0;\n"
	"\tcall.uni (retval0), steps, (param0, param1);\n"
	"\tld.param.b32 %r3, [retval0+0];\n"
	"\t}\n"
	"\tactivemask.b32 %r4;\n"
	"\tmul.wide.u32 %rd2, %r1, 8;\n\tadd.s64 %rd3, %rd1, %rd2;\n"
	"\tst.global.v2.u32 [%rd3], {%r3, %r4};\n"
	"\tret;\n}\n";

/* Runs entry k of src, whose one parameter is a fresh 4 KiB output buffer,
 * as ctas CTAs of threads threads; asserts that it parses and executes, and
 * copies the first out_bytes of the output into out. */
static void run_to_output(const char *src, uint32_t ctas, uint32_t threads, void *out,
			  size_t out_bytes)
{
	cs_diag d;
	cs_ptx_program *p = h_parse(src, &d);
	cr_assert(p);
	h_env e;
	h_init(&e);
	uint64_t vo = h_alloc(&e, 4096);
	uint64_t args[] = { vo };
	cs_grid_result r = h_run(&e, p, "k", (uint32_t[]){ ctas, 1, 1 }, (uint32_t[]){ threads, 1, 1 },
				 0, args, 1);
	cr_assert_eq(r.outcome, CS_GRID_EXECUTED, "%s", r.diag.msg);
	h_read(&e, vo, out, out_bytes);
	h_fini(&e);
	cs_ptx_program_free(p);
}

Test(control, call_with_params_divergence_and_early_return)
{
	uint32_t out[32][2];
	run_to_output(call_ptx, 1, 32, out, sizeof(out));
	for (int t = 0; t < 32; t++) {
		uint32_t v = (uint32_t)t & 7, want = 100;
		for (uint32_t i = 1; i <= v; i++)
			want += i;
		if (v == 3)
			want = 1000;
		cr_expect_eq(out[t][0], want, "lane %d returned %u want %u", t, out[t][0], want);
		cr_expect_eq(out[t][1], 0xffffffffu, "lane %d mask after the call 0x%08x", t, out[t][1]);
	}
}

static const char *bar_ptx =
	".version 9.0\n.target sm_90\n.address_size 64\n"
	".shared .align 4 .b8 buf[512];\n"
	".visible .entry k(.param .u64 k_out)\n{\n"
	"\t.reg .pred %p<4>;\n\t.reg .b32 %r<16>;\n\t.reg .b64 %rd<8>;\n"
	"\tld.param.u64 %rd1, [k_out];\n\tmov.u32 %r1, %tid.x;\n"
	"\tshl.b32 %r2, %r1, 2;\n\tmov.u32 %r3, buf;\n\tadd.s32 %r4, %r3, %r2;\n"
	"\tmul.lo.s32 %r5, %r1, 3;\n\tst.shared.u32 [%r4], %r5;\n"
	"\tbar.sync 0;\n"
	/* read a value written by another warp */
	"\tadd.s32 %r6, %r1, 37;\n\trem.u32 %r7, %r6, 128;\n\tshl.b32 %r8, %r7, 2;\n"
	"\tadd.s32 %r9, %r3, %r8;\n\tld.shared.u32 %r10, [%r9];\n"
	"\tbarrier.sync 0;\n"
	/* second phase: warps 0-1 (64 threads) exchange through a counted barrier */
	"\tsetp.ge.u32 %p1, %r1, 64;\n"
	"\t@%p1 bra $SKIP;\n"
	"\tadd.s32 %r11, %r10, 1000;\n\tst.shared.u32 [%r4], %r11;\n"
	"\tbar.sync 1, 64;\n"
	"\txor.b32 %r12, %r1, 32;\n\tshl.b32 %r13, %r12, 2;\n\tadd.s32 %r14, %r3, %r13;\n"
	"\tld.shared.u32 %r10, [%r14];\n"
	"$SKIP:\n"
	"\tmul.wide.u32 %rd2, %r1, 4;\n\tadd.s64 %rd3, %rd1, %rd2;\n"
	"\tst.global.u32 [%rd3], %r10;\n"
	"\tret;\n}\n";

Test(control, barriers_pass_data_between_warps)
{
	uint32_t out[128];
	run_to_output(bar_ptx, 2, 128, out, sizeof(out));
	for (uint32_t t = 0; t < 128; t++) {
		uint32_t first = ((t + 37) % 128) * 3;
		uint32_t want = first;
		if (t < 64) {
			uint32_t o = t ^ 32;
			want = ((o + 37) % 128) * 3 + 1000;
		}
		cr_expect_eq(out[t], want, "thread %u read %u want %u", t, out[t], want);
	}
}

Test(control, barrier_deadlock_is_an_error)
{
	const char *src =
		".version 9.0\n.target sm_90\n.address_size 64\n"
		".visible .entry k()\n{\n\t.reg .pred %p<2>;\n\t.reg .b32 %r<4>;\n"
		"\tmov.u32 %r1, %tid.x;\n\tsetp.lt.u32 %p1, %r1, 32;\n"
		"\t@%p1 bra $A;\n\tbar.sync 1;\n\tret;\n$A:\n\tbar.sync 0;\n\tret;\n}\n";
	cs_diag d;
	cs_ptx_program *p = h_parse(src, &d);
	cr_assert(p);
	h_env e;
	h_init(&e);
	cs_grid_result r = h_run(&e, p, "k", (uint32_t[]){ 1, 1, 1 }, (uint32_t[]){ 64, 1, 1 }, 0,
				 NULL, 0);
	cr_assert_eq(r.outcome, CS_GRID_ERROR);
	cr_expect(strstr(r.diag.msg, "deadlock"), "%s", r.diag.msg);
	h_fini(&e);
	cs_ptx_program_free(p);
}

Test(control, exited_warps_do_not_block_a_barrier)
{
	const char *src =
		".version 9.0\n.target sm_90\n.address_size 64\n"
		".visible .entry k(.param .u64 o)\n{\n\t.reg .pred %p<2>;\n\t.reg .b32 %r<4>;\n"
		"\t.reg .b64 %rd<4>;\n\tld.param.u64 %rd1, [o];\n"
		"\tmov.u32 %r1, %tid.x;\n\tsetp.ge.u32 %p1, %r1, 32;\n"
		"\t@%p1 exit;\n\tbar.sync 0;\n\tst.global.u32 [%rd1], 7;\n\tret;\n}\n";
	uint32_t v;
	run_to_output(src, 1, 96, &v, sizeof(v));
	cr_expect_eq(v, 7);
}

Test(control, endless_loop_ends_at_the_budget)
{
	const char *src = ".version 9.0\n.target sm_90\n.address_size 64\n"
			  ".visible .entry k()\n{\n$L:\n\tbra.uni $L;\n}\n";
	cs_diag d;
	cs_ptx_program *p = h_parse(src, &d);
	cr_assert(p);
	h_env e;
	h_init(&e);
	cs_ptx_launch l;
	memset(&l, 0, sizeof(l));
	l.grid[0] = l.grid[1] = l.grid[2] = 1;
	l.block[0] = 64;
	l.block[1] = l.block[2] = 1;
	l.max_thread_instructions = 100000;
	cs_grid_result r;
	cs_ptx_run(p, 0, &l, &e.tb.bus, &r);
	cr_assert_eq(r.outcome, CS_GRID_BUDGET);
	cr_expect(strstr(r.diag.msg, "budget"), "%s", r.diag.msg);
	cr_expect_eq(r.diag.line, 7); /* the bra */
	h_fini(&e);
	cs_ptx_program_free(p);
}

Test(control, deterministic_results_and_counts)
{
	size_t len;
	char *text = test_read_source("tests/ptxrun/ptx/samples_sm90.ptx", &len);
	cr_assert(text);
	cs_diag d;
	cs_ptx_program *p = cs_ptx_parse(text, len, "s.ptx", &d);
	free(text);
	cr_assert(p);
	uint64_t counts[2];
	uint32_t sums[2][2];
	for (int run = 0; run < 2; run++) {
		h_env e;
		h_init(&e);
		int x[300];
		for (int i = 0; i < 300; i++)
			x[i] = i * 3 - 100;
		uint64_t vx = h_alloc(&e, sizeof(x)), vs = h_alloc(&e, 8), vm = h_alloc(&e, 4);
		h_write(&e, vx, x, sizeof(x));
		uint64_t args[] = { vx, vs, vm, 300 };
		cs_grid_result r = h_run(&e, p, "reduce", (uint32_t[]){ 3, 1, 1 },
					 (uint32_t[]){ 128, 1, 1 }, 512, args, 4);
		cr_assert_eq(r.outcome, CS_GRID_EXECUTED, "%s", r.diag.msg);
		counts[run] = r.thread_instructions;
		h_read(&e, vs, sums[run], 8);
		h_fini(&e);
	}
	cr_expect_eq(counts[0], counts[1]);
	cr_expect_eq(sums[0][0], sums[1][0]);
	cr_expect_eq(sums[0][1], sums[1][1]);
	cs_ptx_program_free(p);
}

Test(control, bar_arrive_counts_without_waiting)
{
	/* warp 0 produces into shared memory and arrives; warp 1 waits for all 64
	 * threads, then reads what warp 0 wrote */
	const char *src =
		".version 9.0\n.target sm_90\n.address_size 64\n"
		".shared .align 4 .b8 s[256];\n"
		".visible .entry k(.param .u64 o)\n{\n\t.reg .pred %p<2>;\n\t.reg .b32 %r<8>;\n"
		"\t.reg .b64 %rd<4>;\n\tld.param.u64 %rd1, [o];\n"
		"\tmov.u32 %r1, %tid.x;\n\tsetp.lt.u32 %p1, %r1, 32;\n"
		"\tmov.u32 %r2, s;\n\tand.b32 %r3, %r1, 31;\n\tshl.b32 %r4, %r3, 2;\n"
		"\tadd.s32 %r5, %r2, %r4;\n"
		"\t@%p1 bra $P;\n"
		"\tbar.sync 1, 64;\n\tld.shared.u32 %r6, [%r5];\n"
		"\tmul.wide.u32 %rd2, %r3, 4;\n\tadd.s64 %rd3, %rd1, %rd2;\n"
		"\tst.global.u32 [%rd3], %r6;\n\tret;\n"
		"$P:\n\tmul.lo.s32 %r7, %r1, 5;\n\tst.shared.u32 [%r5], %r7;\n"
		"\tbar.arrive 1, 64;\n\tret;\n}\n";
	uint32_t out[32];
	run_to_output(src, 1, 64, out, sizeof(out));
	for (uint32_t t = 0; t < 32; t++)
		cr_expect_eq(out[t], t * 5);
}

/* bar.red over 4 warps at barrier 1: popc counts the threads whose predicate
 * is true, .and / .or combine it; each thread stores what it got. The popc
 * destination holds the warp's index before, so a barrier id read from it
 * instead of the barrier operand deadlocks. */
Test(control, bar_red_popc_and_or_across_warps)
{
	const char *src =
		".version 9.0\n.target sm_90\n.address_size 64\n"
		".visible .entry k(.param .u64 o)\n{\n\t.reg .pred %p<8>;\n\t.reg .b32 %r<12>;\n"
		"\t.reg .b64 %rd<4>;\n\tld.param.u64 %rd1, [o];\n\tmov.u32 %r1, %tid.x;\n"
		"\trem.u32 %r2, %r1, 3;\n\tsetp.eq.u32 %p1, %r2, 0;\n"
		"\tsetp.ne.u32 %p2, %r1, 77;\n\tsetp.eq.u32 %p3, %r1, 77;\n"
		"\tshr.u32 %r6, %r1, 5;\n\tsetp.eq.u32 %p4, %r1, %r1;\n\tsetp.eq.u32 %p5, %r1, %r1;\n"
		"\tsetp.ne.u32 %p6, %r1, %r1;\n"
		"\tbar.red.popc.u32 %r6, 1, %p1;\n"
		"\tbar.red.and.pred %p4, 1, %p2;\n"
		"\tbar.red.or.pred %p6, 1, %p3;\n"
		"\tbar.red.and.pred %p5, 1, 128, !%p3;\n"
		"\tselp.u32 %r7, 1, 0, %p4;\n\tselp.u32 %r8, 2, 0, %p6;\n\tselp.u32 %r9, 4, 0, %p5;\n"
		"\tor.b32 %r7, %r7, %r8;\n\tor.b32 %r7, %r7, %r9;\n"
		"\tshl.b32 %r6, %r6, 8;\n\tor.b32 %r6, %r6, %r7;\n"
		"\tmul.wide.u32 %rd2, %r1, 4;\n\tadd.s64 %rd3, %rd1, %rd2;\n"
		"\tst.global.u32 [%rd3], %r6;\n\tret;\n}\n";
	cs_diag d;
	cs_ptx_program *p = h_parse(src, &d);
	cr_assert(p, "%s", d.msg);
	h_env e;
	h_init(&e);
	uint64_t vo = h_alloc(&e, 4096);
	uint64_t args[] = { vo };
	cs_grid_result r = h_run(&e, p, "k", (uint32_t[]){ 1, 1, 1 }, (uint32_t[]){ 128, 1, 1 }, 0,
				 args, 1);
	cr_assert_eq(r.outcome, CS_GRID_EXECUTED, "%s", r.diag.msg);
	uint32_t out[128];
	h_read(&e, vo, out, sizeof(out));
	/* 43 of 0..127 are multiples of 3; not every thread is != 77 (and: 0);
	 * one is 77 (or: 1); not every thread is != 77 again (and: 0) */
	for (uint32_t t = 0; t < 128; t++)
		cr_expect_eq(out[t], (43u << 8) | 2u, "thread %u: %#x", t, out[t]);
	h_fini(&e);
	cs_ptx_program_free(p);
}

/* nvcc's own layout of divergent loops with continue/break, an early return and
 * a switch (ptx/samples.cu: flow), against the same code in C, per lane. */
static int flow_ref(int v)
{
	int acc = 0;
	for (int i = 0; i < (v & 15); i++) {
		if (i % 3 == 0)
			continue;
		for (int j = 0; j < i; j++) {
			if ((v >> j) & 1)
				acc += j;
			else if (j > 5)
				break;
		}
		if (acc > 100)
			break;
		acc ^= i;
	}
	if (v < 0)
		return -1;
	switch (v % 4) {
	case 0: acc += 1; break;
	case 1: acc *= 3; break;
	case 2: acc -= 7; acc += 2; break;
	default: acc += 2;
	}
	return acc;
}

Test(control, nvcc_divergent_flow_matches_c)
{
	size_t len;
	char *text = test_read_source("tests/ptxrun/ptx/samples_sm90.ptx", &len);
	cr_assert(text);
	cs_diag d;
	cs_ptx_program *p = cs_ptx_parse(text, len, "samples_sm90.ptx", &d);
	free(text);
	cr_assert(p, "%s", d.msg);
	h_env e;
	h_init(&e);
	enum { T = 96 };
	int in[T];
	uint32_t s = 77;
	for (int i = 0; i < T; i++) {
		s = s * 1103515245u + 12345u;
		in[i] = (int)(s >> 8) - (i % 7 == 0 ? (1 << 24) : 0);
	}
	uint64_t vi = h_alloc(&e, sizeof(in)), vo = h_alloc(&e, 2 * sizeof(in));
	h_write(&e, vi, in, sizeof(in));
	uint64_t args[] = { vi, vo };
	cs_grid_result r = h_run(&e, p, "flow", (uint32_t[]){ 1, 1, 1 }, (uint32_t[]){ T, 1, 1 }, 0,
				 args, 2);
	cr_assert_eq(r.outcome, CS_GRID_EXECUTED, "%s", r.diag.msg);
	int out[2 * T];
	h_read(&e, vo, out, sizeof(out));
	for (int t = 0; t < T; t++) {
		cr_expect_eq(out[t], flow_ref(in[t]), "lane %d (v = %d): %d want %d", t, in[t], out[t],
			     flow_ref(in[t]));
		/* after the loops every lane of its path is back together: the mask is the
		 * set of warp lanes taking the same side of the v < 0 test */
		uint32_t want = 0;
		for (int k = 0; k < 32; k++) {
			int o = (t & ~31) + k;
			if ((in[o] < 0) == (in[t] < 0))
				want |= 1u << k;
		}
		cr_expect_eq((uint32_t)out[T + t], want, "lane %d mask 0x%08x want 0x%08x", t,
			     (uint32_t)out[T + t], want);
	}
	h_fini(&e);
	cs_ptx_program_free(p);
}

/* brx.idx through a .branchtargets list (what clang's NVPTX backend emits for a
 * dense switch): each lane takes its own target, the warp reconverges after;
 * a guarded brx.idx is skipped by the lanes whose guard is false. */
Test(control, brx_idx_jump_table)
{
	const char *body =
		"\tand.b32 %r3, %r2, 3;\n"
		"\tsetp.lt.u32 %p1, %r2, 24;\n"
		"\tmov.u32 %r5, 100;\n"
		"$L_brx_0: .branchtargets\n\t$C0,\n\t$C1,\n\t$C2,\n\t$C3;\n"
		"\t@%p1 brx.idx %r3, $L_brx_0;\n"
		"\tbra.uni $END;\n"
		"$C0:\n\tmov.u32 %r5, 10;\n\tbra.uni $END;\n"
		"$C1:\n\tmov.u32 %r5, 11;\n\tbra.uni $END;\n"
		"$C2:\n\tmov.u32 %r5, 12;\n\tbra.uni $END;\n"
		"$C3:\n\tmov.u32 %r5, 13;\n"
		"$END:\n"
		"\tadd.s32 %r5, %r5, %r2;\n"
		"\tst.global.u32 [%rd4], %r5;\n";
	uint32_t out[32];
	cs_grid_result r = h_run_body("", body, 32, NULL, 0, out, sizeof(out));
	cr_assert_eq(r.outcome, CS_GRID_EXECUTED, "%s", r.diag.msg);
	for (uint32_t l = 0; l < 32; l++)
		cr_expect_eq(out[l], (l < 24 ? 10 + (l & 3) : 100) + l, "lane %u: %u", l, out[l]);
	/* an index past the list is undefined in PTX: the model traps */
	const char *past = "\tmov.u32 %r3, 2;\n"
			   "$T: .branchtargets $A, $B;\n"
			   "\tbrx.idx %r3, $T;\n$A:\n$B:\n\tst.global.u32 [%rd4], %r3;\n";
	r = h_run_body("", past, 32, NULL, 0, out, sizeof(out));
	cr_expect_eq(r.outcome, CS_GRID_ERROR, "%s", r.diag.msg);
	cr_expect(strstr(r.diag.msg, "trap"), "%s", r.diag.msg);
	/* the list must come first */
	const char *after = "\tmov.u32 %r3, 0;\n\tbrx.idx %r3, $T;\n"
			    "$T: .branchtargets $A;\n$A:\n\tst.global.u32 [%rd4], %r3;\n";
	char *src = h_kernel("", after);
	cs_diag d;
	cs_ptx_program *p = cs_ptx_parse(src, strlen(src), "brx.ptx", &d);
	free(src);
	cr_assert_not_null(p, "%s", d.msg);
	const cs_diag *why = cs_ptx_entry_refusal(p, 0);
	cr_assert_not_null(why);
	cr_expect(strstr(why->msg, "declared before"), "%s", why->msg);
	cs_ptx_program_free(p);
}

/* ---- issue 10 items 10, 11: races in shared memory, warp schedules ---- */

/* 64 threads: lane 0 of each warp stores its warp id in a shared slot (and
 * warp 1 reads it first), `mid` goes between the two, then after a barrier
 * everyone reads the slot. */
static cs_grid_result shared_slot_run(h_env *e, const char *mid, uint32_t out[64])
{
	char body[2048];
	snprintf(body, sizeof(body),
		 "\t.shared .align 4 .u32 slot[2];\n"
		 "\tshr.u32 %%r3, %%r2, 5;\n\tand.b32 %%r4, %%r2, 31;\n"
		 "\tsetp.eq.u32 %%p1, %%r4, 0;\n"
		 "\tsetp.eq.u32 %%p2, %%r2, 32;\n"
		 "\t@%%p2 ld.shared.u32 %%r6, [slot];\n"
		 "%s"
		 "\t@%%p1 st.shared.u32 [slot], %%r3;\n"
		 "\tatom.shared.add.u32 %%r7, [slot+4], 1;\n"
		 "\tbar.sync 0;\n"
		 "\tld.shared.u32 %%r5, [slot];\n"
		 "\tst.global.u32 [%%rd4], %%r5;\n", mid);
	char *src = h_kernel("", body);
	cs_diag d;
	cs_ptx_program *p = h_parse(src, &d);
	free(src);
	cr_assert(p, "%s", d.msg);
	uint64_t vo = h_alloc(e, 64 * 4);
	cs_grid_result r = h_run(e, p, "k", (uint32_t[]){ 1, 1, 1 }, (uint32_t[]){ 64, 1, 1 }, 0,
				 (uint64_t[]){ vo, 0, 64 }, 3);
	h_read(e, vo, out, 64 * 4);
	cs_ptx_program_free(p);
	return r;
}

static size_t races_of(const h_env *e, const cs_event **first)
{
	size_t n = 0;
	for (size_t i = 0; i < e->tb.trace.n; i++)
		if (e->tb.trace.recs[i].ev.kind == CS_EV_RACE && n++ == 0)
			*first = &e->tb.trace.recs[i].ev;
	return n;
}

Test(control, shared_memory_race_detector)
{
	uint32_t out[64];
	h_env e;
	h_init(&e);
	e.races = CS_PTX_RACES_REPORT;
	cs_grid_result r = shared_slot_run(&e, "", out);
	cr_assert_eq(r.outcome, CS_GRID_EXECUTED, "%s", r.diag.msg);
	const cs_event *ev = NULL;
	/* warp 0 writes the slot (PTX line 30) and warp 1 then reads it (line 29)
	 * with no barrier between; then warp 1 writes it too (line 30 twice) */
	cr_expect_eq(races_of(&e, &ev), 2, "%zu race records", races_of(&e, &ev));
	cr_assert_not_null(ev);
	cr_expect_eq(ev->addr, 0);
	cr_expect(strstr(ev->detail, "k: shared-memory race at offset 0x0 in CTA (0,0,0): warp 0 wrote "
				     "it at PTX line 30, then warp 1 read it at PTX line 29"),
		  "%s", ev->detail);
	h_fini(&e);

	/* a barrier between the read and the writes: no race; the atomics never are */
	h_init(&e);
	e.races = CS_PTX_RACES_REPORT;
	r = shared_slot_run(&e, "\tbar.sync 0;\n\tsetp.eq.u32 %p1, %r2, 0;\n", out);
	cr_assert_eq(r.outcome, CS_GRID_EXECUTED, "%s", r.diag.msg);
	cr_expect_eq(races_of(&e, &ev), 0, "%s", ev ? ev->detail : "");
	h_fini(&e);

	/* --races=error: the first race stops the grid, at the second access */
	h_init(&e);
	e.races = CS_PTX_RACES_ERROR;
	r = shared_slot_run(&e, "", out);
	cr_expect_eq(r.outcome, CS_GRID_ERROR);
	cr_expect(strstr(r.diag.msg, "k: CTA (0,0,0) thread (32,0,0) at PTX line 29") &&
			  strstr(r.diag.msg, "shared-memory race"),
		  "%s", r.diag.msg);
	h_fini(&e);

	/* off (the executor's default): nothing recorded */
	h_init(&e);
	r = shared_slot_run(&e, "", out);
	cr_expect_eq(races_of(&e, &ev), 0);
	h_fini(&e);
}

Test(control, warp_schedules_change_order_dependent_results)
{
	uint32_t out[64];
	h_env e;
	/* in order: warp 1 stores last; reverse: warp 0 does */
	const cs_ptx_schedule sched[] = { CS_PTX_SCHEDULE_IN_ORDER, CS_PTX_SCHEDULE_REVERSE };
	const uint32_t last[] = { 1, 0 };
	for (int i = 0; i < 2; i++) {
		h_init(&e);
		e.schedule = sched[i];
		cs_grid_result r = shared_slot_run(&e, "", out);
		cr_assert_eq(r.outcome, CS_GRID_EXECUTED, "%s", r.diag.msg);
		for (int t = 0; t < 64; t++)
			cr_expect_eq(out[t], last[i], "schedule %d thread %d", i, t);
		h_fini(&e);
	}
	/* random: the same seed gives the same result; seeds give both orders */
	bool seen[2] = { false, false };
	for (uint64_t seed = 1; seed <= 16; seed++) {
		uint32_t again[64];
		for (int rep = 0; rep < 2; rep++) {
			h_init(&e);
			e.schedule = CS_PTX_SCHEDULE_RANDOM;
			e.schedule_seed = seed;
			cs_grid_result r = shared_slot_run(&e, "", rep ? again : out);
			cr_assert_eq(r.outcome, CS_GRID_EXECUTED, "%s", r.diag.msg);
			h_fini(&e);
		}
		cr_expect_eq(memcmp(out, again, sizeof(out)), 0, "seed %llu is not deterministic",
			     (unsigned long long)seed);
		seen[out[0] & 1] = true;
	}
	cr_expect(seen[0] && seen[1], "16 seeds ran the warps in one order only");
}

/* --races=global: two CTAs of one grid writing the same global word race;
 * words of their own do not; nor do atomics on a shared counter. Returns the
 * global-memory race records of a run of body over ctas CTAs of 64 threads. */
static size_t global_races(const char *body, uint32_t ctas)
{
	char *src = h_kernel("", body);
	cs_diag d;
	cs_ptx_program *p = h_parse(src, &d);
	free(src);
	cr_assert(p, "%s", d.msg);
	h_env e;
	h_init(&e);
	e.races = CS_PTX_RACES_REPORT;
	e.races_global = true;
	uint64_t vo = h_alloc(&e, 4096);
	cs_grid_result r = h_run(&e, p, "k", (uint32_t[]){ ctas, 1, 1 }, (uint32_t[]){ 64, 1, 1 }, 0,
				 (uint64_t[]){ vo, 0, 64 }, 3);
	cr_assert_eq(r.outcome, CS_GRID_EXECUTED, "%s", r.diag.msg);
	size_t n = 0;
	for (size_t i = 0; i < e.tb.trace.n; i++)
		n += e.tb.trace.recs[i].ev.kind == CS_EV_RACE &&
		     strstr(e.tb.trace.recs[i].ev.detail, "global-memory race");
	h_fini(&e);
	cs_ptx_program_free(p);
	return n;
}

Test(control, global_memory_races_across_ctas)
{
	/* every CTA stores thread t's id at out[t] */
	cr_expect_gt(global_races("\tst.global.u32 [%rd4], %r2;\n", 2), 0);
	/* one CTA: every word has one writer */
	cr_expect_eq(global_races("\tst.global.u32 [%rd4], %r2;\n", 1), 0);
	/* words of their own: out[ctaid * 64 + t] */
	cr_expect_eq(global_races("\tmov.u32 %r3, %ctaid.x;\n\tmad.lo.s32 %r4, %r3, 64, %r2;\n"
				  "\tmul.wide.u32 %rd6, %r4, 4;\n\tadd.s64 %rd7, %rd1, %rd6;\n"
				  "\tst.global.u32 [%rd7+256], %r2;\n",
				  2),
		     0);
	/* warp 1 reads what warp 0 wrote, no barrier: a race in one CTA too */
	cr_expect_gt(global_races("\tsetp.eq.u32 %p1, %r2, 0;\n\t@%p1 st.global.u32 [%rd1], %r2;\n"
				  "\tsetp.eq.u32 %p2, %r2, 32;\n\t@%p2 ld.global.u32 %r5, [%rd1];\n",
				  1),
		     0);
	/* ... with a barrier between: none */
	cr_expect_eq(global_races("\tsetp.eq.u32 %p1, %r2, 0;\n\t@%p1 st.global.u32 [%rd1], %r2;\n"
				  "\tbar.sync 0;\n"
				  "\tsetp.eq.u32 %p2, %r2, 32;\n\t@%p2 ld.global.u32 %r5, [%rd1];\n",
				  1),
		     0);
	/* atomics on one counter from every CTA: none */
	cr_expect_eq(global_races("\tatom.global.add.u32 %r5, [%rd1], 1;\n", 2), 0);
}

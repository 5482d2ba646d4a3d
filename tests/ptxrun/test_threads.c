/* SPDX-License-Identifier: MIT */
/* CTAs on several host threads: the same results, counts and trace records as
 * on one (h_run runs every launch on 4, 2 and 1 threads and compares), trace
 * records in CTA order even when a later CTA finishes first, and the budgets
 * that stop endless loops and enormous grids by thread-instructions and by
 * wall time. */
#include <criterion/criterion.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "harness.h"

static const char head[] = ".version 9.0\n.target sm_90\n.address_size 64\n";

static cs_ptx_program *parse(const char *body)
{
	size_t n = strlen(head) + strlen(body) + 1;
	char *text = malloc(n);
	snprintf(text, n, "%s%s", head, body);
	cs_diag d;
	cs_ptx_program *p = h_parse(text, &d);
	free(text);
	cr_assert(p);
	return p;
}

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* CTA 0 loops k_n times before two warps write one shared word: the race in
 * CTA 1 is found long before the one in CTA 0, yet the report (once per pair
 * of lines) names CTA 0, as one thread running the CTAs in order would. */
Test(threads, trace_records_commit_in_cta_order)
{
	cs_ptx_program *p = parse(
		".visible .entry k(.param .u32 k_n)\n{\n"
		"\t.reg .pred %p<4>;\n\t.reg .b32 %r<8>;\n\t.shared .align 4 .b8 buf[4];\n"
		"\tmov.u32 %r1, %ctaid.x;\n\tsetp.ne.u32 %p1, %r1, 0;\n\t@%p1 bra $SKIP;\n"
		"\tld.param.u32 %r2, [k_n];\n\tmov.u32 %r3, 0;\n"
		"$LOOP:\n\tadd.u32 %r3, %r3, 1;\n\tsetp.lt.u32 %p2, %r3, %r2;\n\t@%p2 bra $LOOP;\n"
		"$SKIP:\n\tmov.u32 %r4, %tid.x;\n\tst.shared.u32 [buf], %r4;\n\tret;\n}\n");
	h_env e;
	h_init(&e);
	e.races = CS_PTX_RACES_REPORT;
	cs_grid_result r = h_run(&e, p, "k", (uint32_t[]){ 2, 1, 1 }, (uint32_t[]){ 64, 1, 1 }, 0,
				 (uint64_t[]){ 200000 }, 1);
	cr_assert_eq(r.outcome, CS_GRID_EXECUTED, "%s", r.diag.msg);
	size_t races = 0;
	for (size_t i = 0; i < e.tb.trace.n; i++)
		if (e.tb.trace.recs[i].ev.kind == CS_EV_RACE) {
			races++;
			cr_expect_eq(e.tb.trace.recs[i].ev.value, 0, "the race of CTA %llu: %s",
				     (unsigned long long)e.tb.trace.recs[i].ev.value, e.tb.trace.recs[i].ev.detail);
		}
	cr_expect_eq(races, 1);
	h_fini(&e);
	cs_ptx_program_free(p);
}

/* Each CTA stores what its shared word and a register held before it wrote
 * them, then writes its index there: what a CTA sees must not depend on which
 * thread ran the CTA before it (h_run compares 4, 2 and 1 threads). A loop
 * makes each CTA long enough that the threads share the grid. */
Test(threads, what_a_cta_finds_does_not_depend_on_the_threads)
{
	cs_ptx_program *p = parse(
		".visible .entry k(.param .u64 k_out)\n{\n\t.reg .pred %p<4>;\n"
		"\t.reg .b32 %r<8>;\n\t.reg .b64 %rd<8>;\n\t.shared .align 4 .b8 buf[4];\n"
		"\tmov.u32 %r6, 0;\n$L:\n\tadd.u32 %r6, %r6, 1;\n\tsetp.lt.u32 %p1, %r6, 2000;\n"
		"\t@%p1 bra $L;\n"
		"\tld.param.u64 %rd1, [k_out];\n\tmov.u32 %r1, %ctaid.x;\n"
		"\tld.shared.u32 %r2, [buf];\n\tmul.wide.u32 %rd2, %r1, 8;\n"
		"\tadd.s64 %rd3, %rd1, %rd2;\n\tst.global.u32 [%rd3], %r2;\n"
		"\tst.global.u32 [%rd3+4], %r5;\n\tbar.sync 0;\n"
		"\tst.shared.u32 [buf], %r1;\n\tadd.u32 %r5, %r1, 1000;\n\tret;\n}\n");
	h_env e;
	h_init(&e);
	enum { CTAS = 1000 };
	uint64_t out = h_alloc(&e, CTAS * 8);
	cs_grid_result r = h_run(&e, p, "k", (uint32_t[]){ CTAS, 1, 1 }, (uint32_t[]){ 32, 1, 1 }, 0,
				 (uint64_t[]){ out }, 1);
	cr_assert_eq(r.outcome, CS_GRID_EXECUTED, "%s", r.diag.msg);
	static uint32_t got[CTAS * 2];
	h_read(&e, out, got, sizeof(got));
	cr_expect_eq(got[0], 0, "CTA 0 starts from zeroed shared memory");
	cr_expect_eq(got[1], 0, "and zeroed registers");
	h_fini(&e);
	cs_ptx_program_free(p);
}

/* Each CTA writes its threads' indices into a page of its own, 6000 pages:
 * more than the grid's table of translated pages holds, and many share a
 * slot's probe sequence; every word lands where one thread puts it (h_run
 * compares 4, 2 and 1 threads). */
Test(threads, ctas_on_many_pages_write_their_own)
{
	cs_ptx_program *p = parse(
		".visible .entry k(.param .u64 k_out)\n{\n\t.reg .b32 %r<8>;\n\t.reg .b64 %rd<8>;\n"
		"\tld.param.u64 %rd1, [k_out];\n\tmov.u32 %r1, %ctaid.x;\n\tmov.u32 %r2, %tid.x;\n"
		"\tmad.lo.u32 %r3, %r1, 32, %r2;\n\tmul.wide.u32 %rd2, %r1, 4096;\n"
		"\tmul.wide.u32 %rd3, %r2, 4;\n\tadd.s64 %rd4, %rd1, %rd2;\n"
		"\tadd.s64 %rd5, %rd4, %rd3;\n\tst.global.u32 [%rd5], %r3;\n\tret;\n}\n");
	h_env e;
	h_init(&e);
	enum { CTAS = 6000 };
	uint64_t out = h_alloc(&e, (uint64_t)CTAS * 4096);
	cs_grid_result r = h_run(&e, p, "k", (uint32_t[]){ CTAS, 1, 1 }, (uint32_t[]){ 32, 1, 1 }, 0,
				 (uint64_t[]){ out }, 1);
	cr_assert_eq(r.outcome, CS_GRID_EXECUTED, "%s", r.diag.msg);
	uint32_t got[32];
	for (uint32_t c = 0; c < CTAS; c++) {
		h_read(&e, out + (uint64_t)c * 4096, got, sizeof(got));
		for (uint32_t t = 0; t < 32; t++)
			cr_assert_eq(got[t], c * 32 + t, "CTA %u thread %u", c, t);
	}
	h_fini(&e);
	cs_ptx_program_free(p);
}

static const char endless[] = ".visible .entry k()\n{\n$L:\n\tbra.uni $L;\n}\n";

Test(threads, wall_time_stops_a_one_thread_loop)
{
	cs_ptx_program *p = parse(endless);
	h_env e;
	h_init(&e);
	e.threads = 1;
	cs_ptx_launch l;
	memset(&l, 0, sizeof(l));
	l.grid[0] = l.grid[1] = l.grid[2] = 1;
	l.block[0] = l.block[1] = l.block[2] = 1;
	l.max_thread_instructions = UINT64_MAX; /* only the clock can stop it */
	l.max_wall_ns = 200 * 1000 * 1000;
	cs_grid_result r;
	double t0 = now_s();
	cs_ptx_run(p, 0, &l, &e.tb.bus, &r);
	double took = now_s() - t0;
	cr_assert_eq(r.outcome, CS_GRID_BUDGET, "%s", r.diag.msg);
	cr_expect(strstr(r.diag.msg, "wall-time budget of 0.2 s"), "%s", r.diag.msg);
	cr_expect(took < 2.0, "stopped after %.2f s", took);
	cr_expect_eq(r.ctas_executed, 0);
	h_fini(&e);
	cs_ptx_program_free(p);
}

Test(threads, wall_time_stops_a_grid_of_2_31_ctas)
{
	cs_ptx_program *p = parse(".visible .entry k()\n{\n\tret;\n}\n");
	h_env e;
	h_init(&e);
	for (unsigned threads = 1; threads <= 2; threads++) {
		cs_ptx_launch l;
		memset(&l, 0, sizeof(l));
		l.grid[0] = 0x7fffffffu;
		l.grid[1] = l.grid[2] = 1;
		l.block[0] = l.block[1] = l.block[2] = 1;
		l.max_wall_ns = 200 * 1000 * 1000;
		l.threads = threads;
		cs_grid_result r;
		double t0 = now_s();
		cs_ptx_run(p, 0, &l, &e.tb.bus, &r);
		double took = now_s() - t0;
		cr_assert_eq(r.outcome, CS_GRID_BUDGET, "%s", r.diag.msg);
		cr_expect(strstr(r.diag.msg, "of 2147483647 CTAs"), "%s", r.diag.msg);
		cr_expect(r.ctas_executed > 0 && r.ctas_executed < 0x7fffffffu);
		cr_expect(took < 2.0, "%u threads: stopped after %.2f s", threads, took);
	}
	h_fini(&e);
	cs_ptx_program_free(p);
}

/* 64 CTAs of 32 threads spend about 320 thread-instructions each; a budget of
 * 5000 ends the grid at the same CTA whatever the threads (h_run compares the
 * outcome, message and counts on 4, 2 and 1). */
Test(threads, the_instruction_budget_stops_at_the_same_cta)
{
	cs_ptx_program *p = parse(
		".visible .entry k()\n{\n\t.reg .pred %p<4>;\n\t.reg .b32 %r<8>;\n"
		"\tmov.u32 %r1, 0;\n$L:\n\tadd.u32 %r1, %r1, 1;\n\tsetp.lt.u32 %p1, %r1, 3;\n"
		"\t@%p1 bra $L;\n\tret;\n}\n");
	h_env e;
	h_init(&e);
	size_t entry = 0;
	cs_ptx_launch l;
	memset(&l, 0, sizeof(l));
	l.grid[0] = 64;
	l.grid[1] = l.grid[2] = 1;
	l.block[0] = 32;
	l.block[1] = l.block[2] = 1;
	l.max_thread_instructions = 5000;
	cs_grid_result first;
	for (unsigned threads = 1; threads <= 4; threads++) {
		l.threads = threads;
		cs_grid_result r;
		cs_ptx_run(p, entry, &l, &e.tb.bus, &r);
		cr_assert_eq(r.outcome, CS_GRID_BUDGET, "%s", r.diag.msg);
		cr_expect(strstr(r.diag.msg, "ran past its budget of 5000 thread-instructions"), "%s",
			  r.diag.msg);
		if (threads == 1) {
			first = r;
			cr_expect(r.ctas_executed > 1 && r.ctas_executed < 64);
			cr_expect_gt(r.thread_instructions, 5000);
			continue;
		}
		cr_expect_eq(r.ctas_executed, first.ctas_executed, "%u threads", threads);
		cr_expect_eq(r.thread_instructions, first.thread_instructions, "%u threads", threads);
		cr_expect_str_eq(r.diag.msg, first.diag.msg, "%u threads", threads);
	}
	h_fini(&e);
	cs_ptx_program_free(p);
}

/* Every thread of 256 CTAs adds 1 to one global counter 64 times: on several
 * threads no update is lost (h_run compares the count on 4, 2 and 1 threads). */
Test(threads, global_atomics_lose_no_update)
{
	cs_ptx_program *p = parse(
		".visible .entry k(.param .u64 k_out)\n{\n\t.reg .pred %p<4>;\n\t.reg .b32 %r<8>;\n"
		"\t.reg .b64 %rd<4>;\n\tld.param.u64 %rd1, [k_out];\n\tmov.u32 %r1, 0;\n"
		"$L:\n\tred.global.add.u32 [%rd1], 1;\n\tadd.u32 %r1, %r1, 1;\n"
		"\tsetp.lt.u32 %p1, %r1, 64;\n\t@%p1 bra $L;\n\tret;\n}\n");
	h_env e;
	h_init(&e);
	uint64_t out = h_alloc(&e, 4);
	cs_grid_result r = h_run(&e, p, "k", (uint32_t[]){ 256, 1, 1 }, (uint32_t[]){ 128, 1, 1 }, 0,
				 (uint64_t[]){ out }, 1);
	cr_assert_eq(r.outcome, CS_GRID_EXECUTED, "%s", r.diag.msg);
	uint32_t got;
	h_read(&e, out, &got, 4);
	cr_expect_eq(got, 256u * 128 * 64);
	h_fini(&e);
	cs_ptx_program_free(p);
}

/* Under --schedule=random the warps' order changes with the CTA and the
 * barrier round: each of 4 warps writes its index to one shared word, then
 * after a barrier (a second round) thread 0 keeps the last writer. The order
 * must be the CTA's own, not what runs before it on the same thread (h_run
 * compares 4, 2 and 1 threads; a loop makes the CTAs long enough that the
 * threads share the grid). */
Test(threads, a_random_schedule_is_the_same_on_any_threads)
{
	cs_ptx_program *p = parse(
		".visible .entry k(.param .u64 k_out)\n{\n\t.reg .pred %p<4>;\n\t.reg .b32 %r<8>;\n"
		"\t.reg .b64 %rd<8>;\n\t.shared .align 4 .b8 buf[4];\n"
		"\tmov.u32 %r6, 0;\n$L:\n\tadd.u32 %r6, %r6, 1;\n\tsetp.lt.u32 %p2, %r6, 2000;\n"
		"\t@%p2 bra $L;\n"
		"\tld.param.u64 %rd1, [k_out];\n\tmov.u32 %r1, %tid.x;\n\tshr.u32 %r2, %r1, 5;\n"
		"\tbar.sync 0;\n\tst.shared.u32 [buf], %r2;\n\tbar.sync 0;\n"
		"\tsetp.ne.u32 %p1, %r1, 0;\n\t@%p1 bra $END;\n\tld.shared.u32 %r3, [buf];\n"
		"\tmov.u32 %r4, %ctaid.x;\n\tmul.wide.u32 %rd2, %r4, 4;\n\tadd.s64 %rd3, %rd1, %rd2;\n"
		"\tst.global.u32 [%rd3], %r3;\n$END:\n\tret;\n}\n");
	h_env e;
	h_init(&e);
	e.schedule = CS_PTX_SCHEDULE_RANDOM;
	e.schedule_seed = 12345;
	enum { CTAS = 64 };
	uint64_t out = h_alloc(&e, CTAS * 4);
	cs_grid_result r = h_run(&e, p, "k", (uint32_t[]){ CTAS, 1, 1 }, (uint32_t[]){ 128, 1, 1 }, 0,
				 (uint64_t[]){ out }, 1);
	cr_assert_eq(r.outcome, CS_GRID_EXECUTED, "%s", r.diag.msg);
	uint32_t got[CTAS], seen = 0;
	h_read(&e, out, got, sizeof(got));
	for (int i = 0; i < CTAS; i++)
		seen |= 1u << got[i];
	cr_expect_gt(__builtin_popcount(seen), 1, "the last writer is always warp %u", got[0]);
	h_fini(&e);
	cs_ptx_program_free(p);
}

/* With the default thread count (0), the caller's thread runs a grid alone at
 * first: a grid done within SPAWN_AFTER_NS never starts a thread, and one
 * still running after it starts the others between two chunks, and computes
 * what one thread computes: its atomics go through the shared port from the
 * switch on. */
/* Each CTA loops k_n times; thread 0 counts the CTA in k_out[0] and stores
 * its sum in k_out[1 + ctaid]. */
static const char loop_kernel[] =
	".visible .entry k(.param .u64 k_out, .param .u32 k_n)\n{\n"
	"\t.reg .pred %p<4>;\n\t.reg .b32 %r<8>;\n\t.reg .b64 %rd<8>;\n"
	"\tld.param.u64 %rd1, [k_out];\n\tld.param.u32 %r2, [k_n];\n"
	"\tmov.u32 %r1, 0;\n\tmov.u32 %r3, %ctaid.x;\n"
	"$L:\n\tadd.u32 %r1, %r1, %r3;\n\tadd.u32 %r2, %r2, -1;\n"
	"\tsetp.ne.u32 %p1, %r2, 0;\n\t@%p1 bra $L;\n"
	"\tmov.u32 %r4, %tid.x;\n\tsetp.ne.u32 %p2, %r4, 0;\n\t@%p2 bra $END;\n"
	"\tatom.global.add.u32 %r5, [%rd1], 1;\n"
	"\tmul.wide.u32 %rd2, %r3, 4;\n\tadd.s64 %rd3, %rd1, %rd2;\n"
	"\tst.global.u32 [%rd3+4], %r1;\n$END:\n\tret;\n}\n";

/* The cores the test may run on, as the executor counts them. */
static long usable_cores(void)
{
	cpu_set_t set;
	return sched_getaffinity(0, sizeof(set), &set) == 0 ? CPU_COUNT(&set) : 1;
}

/* loop_kernel over ctas CTAs of 64 threads, k_n = n, the default threads;
 * params (12 bytes) must outlive the launch. */
static cs_ptx_launch loop_launch(uint8_t *params, uint64_t out, uint32_t ctas, uint32_t n)
{
	cs_ptx_launch l;
	memset(&l, 0, sizeof(l));
	l.grid[0] = ctas;
	l.grid[1] = l.grid[2] = 1;
	l.block[0] = 64;
	l.block[1] = l.block[2] = 1;
	memcpy(params, &out, 8);
	memcpy(params + 8, &n, 4);
	l.params = params;
	l.param_bytes = 12;
	return l;
}

Test(threads, default_threads_start_late_and_agree)
{
	cs_ptx_program *p = parse(loop_kernel);
	h_env e;
	h_init(&e);
	enum { CTAS = 256 };
	uint64_t out = h_alloc(&e, 4 * (CTAS + 1));
	uint8_t params[12];
	/* a short grid: done long before the others would start */
	cs_ptx_launch l = loop_launch(params, out, 4, 4);
	cs_grid_result r;
	cs_ptx_run(p, 0, &l, &e.tb.bus, &r);
	cr_assert_eq(r.outcome, CS_GRID_EXECUTED, "%s", r.diag.msg);
	cr_expect_eq(r.host_threads, 1, "a 4-CTA grid of 4 loops started %u threads", r.host_threads);
	/* a long one, on the default and on one thread: the same words */
	uint32_t n = 1000;
	l = loop_launch(params, out, CTAS, n);
	uint32_t words[2][CTAS + 1];
	unsigned used[2];
	for (unsigned k = 0; k < 2; k++) {
		uint32_t zero[CTAS + 1] = { 0 };
		h_write(&e, out, zero, sizeof(zero));
		l.threads = k; /* 0: the default, then 1 */
		cs_ptx_run(p, 0, &l, &e.tb.bus, &r);
		cr_assert_eq(r.outcome, CS_GRID_EXECUTED, "%s", r.diag.msg);
		cr_expect_eq(r.ctas_executed, CTAS);
		h_read(&e, out, words[k], sizeof(words[k]));
		used[k] = r.host_threads;
	}
	cr_expect_eq(used[1], 1);
	long cores = usable_cores();
	cr_expect_eq(used[0], cores < 1 ? 1u : cores < CTAS ? (unsigned)cores : CTAS,
		     "%ld cores: the long grid ran on %u host threads", cores, used[0]);
	cr_expect_eq(words[0][0], CTAS);
	cr_expect(memcmp(words[0], words[1], sizeof(words[0])) == 0,
		  "the default threads and one thread computed other words");
	for (uint32_t c = 0; c < CTAS; c++)
		cr_expect_eq(words[0][c + 1], c * n, "CTA %u", c);
	h_fini(&e);
	cs_ptx_program_free(p);
}

/* The default counts the cores the process may run on, not those online:
 * taskset, Slurm's --cpus-per-task and a cgroup's cpuset narrow it. */
Test(threads, default_threads_follow_the_affinity_mask)
{
	cpu_set_t one;
	CPU_ZERO(&one);
	CPU_SET(sched_getcpu(), &one);
	cr_assert_eq(sched_setaffinity(0, sizeof(one), &one), 0);
	cs_ptx_program *p = parse(loop_kernel);
	h_env e;
	h_init(&e);
	enum { CTAS = 256 };
	uint64_t out = h_alloc(&e, 4 * (CTAS + 1));
	uint8_t params[12];
	/* long enough for the other workers to start */
	cs_ptx_launch l = loop_launch(params, out, CTAS, 1000);
	cs_grid_result r;
	cs_ptx_run(p, 0, &l, &e.tb.bus, &r);
	cr_assert_eq(r.outcome, CS_GRID_EXECUTED, "%s", r.diag.msg);
	cr_expect_eq(r.host_threads, 1, "one usable core, %u host threads (%ld online)",
		     r.host_threads, sysconf(_SC_NPROCESSORS_ONLN));
	h_fini(&e);
	cs_ptx_program_free(p);
}

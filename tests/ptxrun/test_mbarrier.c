/* SPDX-License-Identifier: MIT */
/* mbarrier objects (docs/mbarrier.md): phases, pending and tx counts, the
 * waits that let other warps run, cp.async.mbarrier.arrive, the errors where
 * the PTX ISA leaves the behaviour undefined, and the fixture kernels that
 * use cuda::barrier and cuda::pipeline. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "harness.h"

static const char *decls = ".shared .align 8 .b64 bar;\n.shared .align 16 .b8 data[256];\n";

/* Warp 1 writes shared memory and arrives; warp 0, which runs first, waits
 * on the phase with try_wait.parity and then reads what warp 1 wrote. */
Test(mbarrier, waiting_warp_lets_the_arriving_warp_run)
{
	const char *body =
		"\tmov.u32 %r3, bar;\n\tmov.u32 %r6, data;\n"
		"\tsetp.ne.u32 %p1, %r2, 0;\n\t@%p1 bra $S;\n"
		"\tmbarrier.init.shared.b64 [%r3], 32;\n"
		"$S:\n\tbar.sync 0;\n"
		"\tsetp.lt.u32 %p2, %r2, 32;\n\t@%p2 bra $CONS;\n"
		"\tsub.u32 %r7, %r2, 32;\n\tshl.b32 %r8, %r7, 2;\n\tadd.u32 %r9, %r6, %r8;\n"
		"\tmul.lo.u32 %r10, %r2, 3;\n\tst.shared.u32 [%r9], %r10;\n"
		"\tmbarrier.arrive.release.cta.shared::cta.b64 %rd10, [%r3];\n"
		"\tbra.uni $END;\n"
		"$CONS:\n\tmov.u32 %r11, 0;\n"
		"$W:\n\tmbarrier.try_wait.parity.acquire.cta.shared::cta.b64 %p3, [%r3], %r11;\n"
		"\t@!%p3 bra $W;\n"
		"\tshl.b32 %r8, %r2, 2;\n\tadd.u32 %r9, %r6, %r8;\n"
		"\tld.shared.u32 %r12, [%r9];\n\tst.global.u32 [%rd4], %r12;\n"
		"$END:\n";
	uint32_t out[32];
	cs_grid_result r = h_run_body(decls, body, 64, NULL, 0, out, sizeof(out));
	cr_assert_eq(r.outcome, CS_GRID_EXECUTED, "%s", r.diag.msg);
	for (int t = 0; t < 32; t++)
		cr_expect_eq(out[t], (uint32_t)(t + 32) * 3, "thread %d read %u", t, out[t]);
}

/* One thread walks an object through its phases; each result in out[]. */
Test(mbarrier, phases_pending_and_tx_counts)
{
	const char *body =
		"\tmov.u32 %r3, bar;\n"
		"\tmbarrier.init.shared::cta.b64 [%r3], 3;\n"
		/* 2 of 3 arrive without completing: pending 1, phase 0 open */
		"\tmbarrier.arrive.noComplete.shared.b64 %rd10, [%r3], 2;\n"
		"\tmbarrier.pending_count.b64 %r10, %rd10;\n\tst.global.u32 [%rd1], %r10;\n"
		"\tmbarrier.test_wait.shared.b64 %p1, [%r3], %rd10;\n"
		"\tselp.u32 %r10, 1, 0, %p1;\n\tst.global.u32 [%rd1+4], %r10;\n"
		/* 16 bytes expected, then the last arrival: the phase waits for them */
		"\tmbarrier.expect_tx.relaxed.cta.shared::cta.b64 [%r3], 16;\n"
		"\tmbarrier.arrive.shared.b64 %rd11, [%r3];\n"
		"\tmbarrier.pending_count.b64 %r10, %rd11;\n\tst.global.u32 [%rd1+8], %r10;\n"
		"\tmbarrier.test_wait.shared.b64 %p1, [%r3], %rd11;\n"
		"\tselp.u32 %r10, 1, 0, %p1;\n\tst.global.u32 [%rd1+12], %r10;\n"
		"\tmbarrier.complete_tx.relaxed.cta.shared::cta.b64 [%r3], 16;\n"
		"\tmbarrier.test_wait.shared.b64 %p1, [%r3], %rd11;\n"
		"\tselp.u32 %r10, 1, 0, %p1;\n\tst.global.u32 [%rd1+16], %r10;\n"
		"\tmbarrier.test_wait.parity.shared.b64 %p1, [%r3], 0;\n"
		"\tselp.u32 %r10, 1, 0, %p1;\n\tst.global.u32 [%rd1+20], %r10;\n"
		"\tmbarrier.test_wait.parity.shared.b64 %p1, [%r3], 1;\n"
		"\tselp.u32 %r10, 1, 0, %p1;\n\tst.global.u32 [%rd1+24], %r10;\n"
		/* phase 1: drop one arrival for good (3 -> 2 expected) */
		"\tmbarrier.arrive_drop.shared.b64 %rd12, [%r3];\n"
		"\tmbarrier.pending_count.b64 %r10, %rd12;\n\tst.global.u32 [%rd1+28], %r10;\n"
		"\tmbarrier.arrive.shared::cta.b64 %rd13, [%r3], 2;\n"
		"\tmbarrier.test_wait.parity.shared.b64 %p1, [%r3], 1;\n"
		"\tselp.u32 %r10, 1, 0, %p1;\n\tst.global.u32 [%rd1+32], %r10;\n"
		/* phase 2 expects 2: arrive.expect_tx arrives once and adds 8 bytes */
		"\tmbarrier.arrive.expect_tx.release.cta.shared::cta.b64 %rd14, [%r3], 8;\n"
		"\tmbarrier.pending_count.b64 %r10, %rd14;\n\tst.global.u32 [%rd1+36], %r10;\n"
		"\tmbarrier.arrive.shared.b64 %rd15, [%r3];\n"
		"\tmbarrier.test_wait.parity.shared.b64 %p1, [%r3], 0;\n"
		"\tselp.u32 %r10, 1, 0, %p1;\n\tst.global.u32 [%rd1+40], %r10;\n"
		"\tmbarrier.complete_tx.shared::cta.b64 [%r3], 8;\n"
		"\tmbarrier.try_wait.parity.shared.b64 %p1, [%r3], 0, 1000;\n"
		"\tselp.u32 %r10, 1, 0, %p1;\n\tst.global.u32 [%rd1+44], %r10;\n"
		"\tmbarrier.inval.shared.b64 [%r3];\n";
	uint32_t out[12];
	cs_grid_result r = h_run_body(decls, body, 1, NULL, 0, out, sizeof(out));
	cr_assert_eq(r.outcome, CS_GRID_EXECUTED, "%s", r.diag.msg);
	const uint32_t want[12] = { 1, 0, 0, 0, 1, 1, 0, 2, 1, 1, 0, 1 };
	for (int i = 0; i < 12; i++)
		cr_expect_eq(out[i], want[i], "step %d: %u, want %u", i, out[i], want[i]);
}

/* Each thread copies its word with cp.async and signals the object with
 * cp.async.mbarrier.arrive (.noinc: that is its arrival; without it the
 * thread's own arrive follows); the waits then see every copy landed. */
Test(mbarrier, cp_async_arrive_with_and_without_noinc)
{
	const char *forms[] = {
		"\tcp.async.mbarrier.arrive.noinc.shared.b64 [%r3];\n",
		"\tcp.async.mbarrier.arrive.shared.b64 [%r3];\n"
		"\tmbarrier.arrive.shared.b64 %rd10, [%r3];\n",
	};
	for (int f = 0; f < 2; f++) {
		char body[2048];
		snprintf(body, sizeof(body),
			 "\tmov.u32 %%r3, bar;\n\tmov.u32 %%r6, data;\n"
			 "\tsetp.ne.u32 %%p1, %%r2, 0;\n\t@%%p1 bra $S;\n"
			 "\tmbarrier.init.shared.b64 [%%r3], 64;\n"
			 "$S:\n\tbar.sync 0;\n"
			 "\tshl.b32 %%r8, %%r2, 2;\n\tadd.u32 %%r9, %%r6, %%r8;\n"
			 "\tcp.async.ca.shared.global [%%r9], [%%rd5], 4;\n%s"
			 "$W:\n\tmbarrier.test_wait.parity.shared.b64 %%p3, [%%r3], 0;\n"
			 "\t@!%%p3 bra $W;\n"
			 "\txor.b32 %%r7, %%r2, 63;\n\tshl.b32 %%r8, %%r7, 2;\n\tadd.u32 %%r9, %%r6, %%r8;\n"
			 "\tld.shared.u32 %%r12, [%%r9];\n\tst.global.u32 [%%rd4], %%r12;\n", forms[f]);
		uint32_t in[64], out[64];
		for (int i = 0; i < 64; i++)
			in[i] = 1000u + (uint32_t)i * 7u;
		cs_grid_result r = h_run_body(decls, body, 64, in, sizeof(in), out, sizeof(out));
		cr_assert_eq(r.outcome, CS_GRID_EXECUTED, "form %d: %s", f, r.diag.msg);
		for (int t = 0; t < 64; t++)
			cr_expect_eq(out[t], in[t ^ 63], "form %d thread %d read %u", f, t, out[t]);
	}
}

/* cp.async.bulk as cuda::memcpy_async with a barrier emits it for sm_90:
 * thread 0 copies 256 bytes and (after the copy, as nvcc orders them) sets
 * the expected tx-count; the phase completes when the bytes and all 32
 * arrivals are in. */
Test(mbarrier, bulk_copy_completes_the_tx_count)
{
	const char *body =
		"\tmov.u32 %r3, bar;\n\tmov.u32 %r6, data;\n"
		"\tsetp.ne.u32 %p1, %r2, 0;\n\t@%p1 bra $S;\n"
		"\tmbarrier.init.shared.b64 [%r3], 32;\n"
		"$S:\n\tbar.sync 0;\n\t@%p1 bra $A;\n"
		"\tcp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%r6], [%rd2], 256, [%r3];\n"
		"\tmbarrier.expect_tx.relaxed.cta.shared::cta.b64 [%r3], 256;\n"
		"$A:\n\tmbarrier.arrive.shared::cta.b64 %rd10, [%r3];\n"
		"$W:\n\tmbarrier.try_wait.shared.b64 %p3, [%r3], %rd10;\n\t@!%p3 bra $W;\n"
		"\tshl.b32 %r8, %r2, 3;\n\tadd.u32 %r9, %r6, %r8;\n"
		"\tld.shared.u32 %r12, [%r9+4];\n\tst.global.u32 [%rd4], %r12;\n";
	uint32_t in[64], out[32];
	for (int i = 0; i < 64; i++)
		in[i] = 0x5000u + (uint32_t)i;
	cs_grid_result r = h_run_body(decls, body, 32, in, sizeof(in), out, sizeof(out));
	cr_assert_eq(r.outcome, CS_GRID_EXECUTED, "%s", r.diag.msg);
	for (int t = 0; t < 32; t++)
		cr_expect_eq(out[t], in[2 * t + 1], "thread %d read 0x%x", t, out[t]);
}

/* libcu++'s own tests reuse an object's storage: thread 0, once its wait
 * returns, initializes the object again (then invalidates it) while the
 * other warps are still in their wait loops (warp 2's arrival completes the
 * phase; warp 0 resumes first and reuses the object before warp 1 polls). A
 * waiting warp sees the phase it waited for complete, as a thread suspended
 * in try_wait does. */
Test(mbarrier, a_waiter_sees_its_phase_complete_after_the_object_is_reused)
{
	const char *body =
		"\tmov.u32 %r3, bar;\n"
		"\tsetp.ne.u32 %p1, %r2, 0;\n\t@%p1 bra $S;\n"
		"\tmbarrier.init.shared.b64 [%r3], 96;\n"
		"$S:\n\tbar.sync 0;\n"
		"\tmbarrier.arrive.shared::cta.b64 %rd10, [%r3];\n"
		"$W:\n\tmbarrier.try_wait.shared::cta.b64 %p3, [%r3], %rd10;\n\t@!%p3 bra $W;\n"
		"\t@%p1 bra $T;\n"
		"\tmbarrier.init.shared.b64 [%r3], 96;\n"
		"\tmbarrier.inval.shared.b64 [%r3];\n"
		"$T:\n\tbar.sync 0;\n\tst.global.u32 [%rd4], 7;\n";
	uint32_t out[96];
	cs_grid_result r = h_run_body(decls, body, 96, NULL, 0, out, sizeof(out));
	cr_assert_eq(r.outcome, CS_GRID_EXECUTED, "%s", r.diag.msg);
	for (int t = 0; t < 96; t++)
		cr_expect_eq(out[t], 7u, "thread %d: %u", t, out[t]);
}

static void expect_error(const char *body, uint32_t threads, const char *needle)
{
	uint32_t out[1];
	cs_grid_result r = h_run_body(decls, body, threads, NULL, 0, out, sizeof(out));
	cr_expect_eq(r.outcome, CS_GRID_ERROR, "%s: outcome %d (%s)", needle, r.outcome, r.diag.msg);
	cr_expect(strstr(r.diag.msg, needle), "want '%s' in: %s", needle, r.diag.msg);
}

/* Where the PTX ISA leaves the behaviour undefined, the grid stops with an
 * error naming the object and the counts. */
Test(mbarrier, undefined_uses_are_errors)
{
	expect_error("\tmov.u32 %r3, bar;\n\tmbarrier.arrive.shared.b64 %rd10, [%r3];\n", 1,
		     "not initialized");
	expect_error("\tmov.u32 %r3, bar;\n\tmbarrier.init.shared.b64 [%r3], 0;\n", 1,
		     "mbarrier.init with count 0");
	expect_error("\tmov.u32 %r3, bar;\n\tmbarrier.init.shared.b64 [%r3], 2;\n"
		     "\tmbarrier.arrive.shared.b64 %rd10, [%r3], 3;\n", 1,
		     "3 arrivals (0 dropped) on the mbarrier at shared offset 0x0, whose current "
		     "phase has 2 pending of 2 expected");
	expect_error("\tmov.u32 %r3, bar;\n\tmbarrier.init.shared.b64 [%r3], 1;\n"
		     "\tmbarrier.arrive.noComplete.shared.b64 %rd10, [%r3];\n", 1,
		     ".noComplete completes the phase");
	expect_error("\tmov.u32 %r3, bar;\n\tmbarrier.init.shared.b64 [%r3], 1;\n"
		     "\tmbarrier.inval.shared.b64 [%r3];\n"
		     "\tmbarrier.test_wait.parity.shared.b64 %p1, [%r3], 0;\n", 1,
		     "which is not initialized");
	expect_error("\tmbarrier.init.b64 [%rd1], 1;\n", 1, "is not in shared memory");
	expect_error("\tmov.u32 %r3, bar;\n\tmov.u32 %r6, data;\n\tmbarrier.init.shared.b64 [%r3], 1;\n"
		     "\tcp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%r6], [%rd2], 24, [%r3];\n",
		     1, "cp.async.bulk of 24 bytes");
	/* 33 expected, 32 threads arrive: nobody is left to complete the phase */
	expect_error("\tmov.u32 %r3, bar;\n\tsetp.ne.u32 %p1, %r2, 0;\n\t@%p1 bra $S;\n"
		     "\tmbarrier.init.shared.b64 [%r3], 33;\n$S:\n\tbar.sync 0;\n"
		     "\tmbarrier.arrive.shared.b64 %rd10, [%r3];\n"
		     "$W:\n\tmbarrier.test_wait.shared.b64 %p3, [%r3], %rd10;\n\t@!%p3 bra $W;\n", 32,
		     "mbarrier deadlock: warp 0 waits on the mbarrier at shared offset 0x0 (current "
		     "phase parity 0, 1 of 33 arrivals pending, tx-count 0)");
}

/* fixtures/kernels/asyncbar.cu against CPU references on each arch:
 * cuda::barrier with memcpy_async (2 CTAs), rounds of arrive/wait with half
 * the block dropping out, and a two-stage cuda::pipeline over 5 batches. */
Test(mbarrier, libcudacxx_barrier_and_pipeline_fixtures)
{
	const char *archs[] = { "sm_80", "sm_90", "sm_100" };
	enum { N = 512, BATCHES = 5 };
	float fin[BATCHES * 128], rev[N], sums[128] = { 0 };
	int32_t ints[64], rounds[8] = { 0 };
	uint32_t seed = 7;
	for (int i = 0; i < BATCHES * 128; i++)
		fin[i] = h_frand(&seed) * 100.0f;
	for (int i = 0; i < N; i++)
		rev[i] = 2.0f * fin[i / 256 * 256 + 255 - i % 256];
	for (int t = 0; t < 64; t++) {
		ints[t] = (int32_t)(h_frand(&seed) * 1000.0f);
		for (int r = 0; r < 6; r++)
			if (r == 0 || t < 32)
				rounds[r] += ints[t] * (r + 1);
	}
	for (int t = 0; t < 128; t++)
		for (int b = 0; b < BATCHES; b++)
			sums[t] += fin[b * 128 + 127 - t];
	for (size_t a = 0; a < 3; a++) {
		cs_ptx_program *p = h_load_fixture("asyncbar", archs[a]);
		h_env e;
		h_init(&e);
		uint64_t vf = h_put(&e, fin, sizeof(fin)), vi = h_put(&e, ints, sizeof(ints));
		uint64_t vout = h_alloc(&e, N * 4);
		cs_grid_result r = h_run(&e, p, "barrier_reverse", (uint32_t[]){ 2, 1, 1 },
					 (uint32_t[]){ 96, 1, 1 }, 0, (uint64_t[]){ vf, vout }, 2);
		cr_assert_eq(r.outcome, CS_GRID_EXECUTED, "%s barrier_reverse: %s", archs[a], r.diag.msg);
		char what[64];
		snprintf(what, sizeof(what), "%s barrier_reverse", archs[a]);
		h_expect_f32(&e, vout, rev, N, what);
		r = h_run(&e, p, "barrier_rounds", (uint32_t[]){ 1, 1, 1 }, (uint32_t[]){ 64, 1, 1 }, 0,
			  (uint64_t[]){ vi, vout, 6 }, 3);
		cr_assert_eq(r.outcome, CS_GRID_EXECUTED, "%s barrier_rounds: %s", archs[a], r.diag.msg);
		int32_t acc[8];
		h_read(&e, vout, acc, sizeof(acc));
		for (int i = 0; i < 8; i++)
			cr_expect_eq(acc[i], rounds[i], "%s barrier_rounds [%d]: %d, want %d", archs[a], i,
				     acc[i], rounds[i]);
		r = h_run(&e, p, "pipeline_sum", (uint32_t[]){ 1, 1, 1 }, (uint32_t[]){ 128, 1, 1 }, 0,
			  (uint64_t[]){ vf, vout, BATCHES }, 3);
		cr_assert_eq(r.outcome, CS_GRID_EXECUTED, "%s pipeline_sum: %s", archs[a], r.diag.msg);
		snprintf(what, sizeof(what), "%s pipeline_sum", archs[a]);
		h_expect_f32(&e, vout, sums, 128, what);
		h_fini(&e);
		cs_ptx_program_free(p);
	}
}

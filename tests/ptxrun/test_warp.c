/* SPDX-License-Identifier: MIT */
/* Warp-level instructions: shfl.sync in every mode (with clamp and segments),
 * vote.sync all/any/uni/ballot, activemask, inside divergent code too. */
#include <criterion/criterion.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"

/* Thread t loads a[t] = 1000 + t, shuffles, and stores value and predicate. */
static void shfl_run(const char *mode, uint32_t b, uint32_t c, uint32_t val[32], uint32_t pred[32])
{
	char body[1024];
	snprintf(body, sizeof(body),
		 "\tadd.s32 %%r3, %%r2, 1000;\n"
		 "\tshfl.sync.%s.b32 %%r4|%%p1, %%r3, %u, %u, -1;\n"
		 "\tselp.u32 %%r5, 1, 0, %%p1;\n"
		 "\tmul.wide.u32 %%rd6, %%r2, 8;\n\tadd.s64 %%rd7, %%rd1, %%rd6;\n"
		 "\tst.global.v2.u32 [%%rd7], {%%r4, %%r5};\n",
		 mode, b, c);
	uint32_t out[32][2];
	cs_grid_result r = h_run_body("", body, 32, NULL, 0, out, sizeof(out));
	cr_assert_eq(r.outcome, CS_GRID_EXECUTED, "%s", r.diag.msg);
	for (int i = 0; i < 32; i++) {
		val[i] = out[i][0];
		pred[i] = out[i][1];
	}
}

Test(warp, shfl_down_up_bfly_idx)
{
	uint32_t v[32], p[32];
	shfl_run("down", 3, 0x1f, v, p);
	for (uint32_t i = 0; i < 32; i++) {
		bool ok = i + 3 <= 31;
		cr_expect_eq(v[i], 1000 + (ok ? i + 3 : i), "down lane %u", i);
		cr_expect_eq(p[i], ok);
	}
	shfl_run("up", 3, 0, v, p);
	for (uint32_t i = 0; i < 32; i++) {
		bool ok = i >= 3;
		cr_expect_eq(v[i], 1000 + (ok ? i - 3 : i), "up lane %u", i);
		cr_expect_eq(p[i], ok);
	}
	shfl_run("bfly", 5, 0x1f, v, p);
	for (uint32_t i = 0; i < 32; i++) {
		cr_expect_eq(v[i], 1000 + (i ^ 5), "bfly lane %u", i);
		cr_expect_eq(p[i], 1);
	}
	shfl_run("idx", 7, 0x1f, v, p);
	for (uint32_t i = 0; i < 32; i++)
		cr_expect_eq(v[i], 1007, "idx lane %u", i);
	/* idx beyond the clamp: lanes keep their own value, predicate false */
	shfl_run("idx", 20, 0x0f, v, p);
	for (uint32_t i = 0; i < 32; i++) {
		cr_expect_eq(v[i], 1000 + i, "idx clamp lane %u", i);
		cr_expect_eq(p[i], 0);
	}
}

Test(warp, shfl_segments_of_eight)
{
	uint32_t v[32], p[32];
	/* width 8 as CUDA encodes it: c = ((32 - width) << 8) | clamp */
	shfl_run("idx", 2, (24u << 8) | 0x1f, v, p);
	for (uint32_t i = 0; i < 32; i++)
		cr_expect_eq(v[i], 1000 + ((i & ~7u) | 2), "seg idx lane %u", i);
	shfl_run("down", 1, (24u << 8) | 0x1f, v, p);
	for (uint32_t i = 0; i < 32; i++) {
		bool ok = (i & 7) != 7;
		cr_expect_eq(v[i], 1000 + (ok ? i + 1 : i), "seg down lane %u", i);
		cr_expect_eq(p[i], ok);
	}
	shfl_run("up", 2, 24u << 8, v, p);
	for (uint32_t i = 0; i < 32; i++) {
		bool ok = (i & 7) >= 2;
		cr_expect_eq(v[i], 1000 + (ok ? i - 2 : i), "seg up lane %u", i);
		cr_expect_eq(p[i], ok);
	}
	shfl_run("bfly", 4, (24u << 8) | 0x1f, v, p);
	for (uint32_t i = 0; i < 32; i++)
		cr_expect_eq(v[i], 1000 + (i ^ 4), "seg bfly lane %u", i);
}

Test(warp, vote_modes_in_divergent_code)
{
	const char *body =
		"\tsetp.lt.u32 %p1, %r2, 20;\n"
		"\tmov.u32 %r10, 0;\n\tmov.u32 %r11, 0;\n"
		"\t@!%p1 bra $OUT;\n"
		"\tsetp.lt.u32 %p2, %r2, 10;\n"
		"\tvote.sync.all.pred %p3, %p2, 0xfffff;\n"
		"\tvote.sync.any.pred %p4, %p2, 0xfffff;\n"
		"\tvote.sync.uni.pred %p5, %p2, 0xfffff;\n"
		"\tvote.sync.ballot.b32 %r10, %p2, 0xfffff;\n"
		"\tvote.sync.ballot.b32 %r11, !%p2, 0xfffff;\n"
		"\tsetp.lt.u32 %p6, %r2, 100;\n"
		"\tvote.sync.all.pred %p7, %p6, 0xfffff;\n"
		"\tvote.sync.uni.pred %p8, %p6, 0xfffff;\n"
		"\tselp.u32 %r3, 1, 0, %p3;\n\tselp.u32 %r4, 2, 0, %p4;\n"
		"\tselp.u32 %r5, 4, 0, %p5;\n\tselp.u32 %r6, 8, 0, %p7;\n"
		"\tselp.u32 %r7, 16, 0, %p8;\n"
		"\tor.b32 %r12, %r3, %r4;\n\tor.b32 %r12, %r12, %r5;\n"
		"\tor.b32 %r12, %r12, %r6;\n\tor.b32 %r12, %r12, %r7;\n"
		"$OUT:\n"
		"\tactivemask.b32 %r13;\n"
		"\tmul.wide.u32 %rd6, %r2, 16;\n\tadd.s64 %rd7, %rd1, %rd6;\n"
		"\tst.global.v4.u32 [%rd7], {%r10, %r11, %r12, %r13};\n";
	uint32_t out[32][4];
	memset(out, 0, sizeof(out));
	cs_grid_result r = h_run_body("", body, 32, NULL, 0, out, sizeof(out));
	cr_assert_eq(r.outcome, CS_GRID_EXECUTED, "%s", r.diag.msg);
	for (int t = 0; t < 20; t++) {
		cr_expect_eq(out[t][0], 0x3ffu, "ballot lane %d 0x%x", t, out[t][0]);
		cr_expect_eq(out[t][1], 0xffc00u, "negated ballot lane %d 0x%x", t, out[t][1]);
		/* all false, any true, uni false, all(true) true, uni(true) true */
		cr_expect_eq(out[t][2], 2u | 8u | 16u, "vote flags lane %d 0x%x", t, out[t][2]);
	}
	for (int t = 0; t < 32; t++)
		cr_expect_eq(out[t][3], 0xffffffffu);
}

Test(warp, lane_special_registers)
{
	const char *body =
		"\tmov.u32 %r3, %laneid;\n\tmov.u32 %r4, %warpid;\n"
		"\tmov.u32 %r5, %lanemask_lt;\n\tmov.u32 %r6, %lanemask_ge;\n"
		"\tmov.u32 %r7, %dynamic_smem_size;\n\tmov.u32 %r8, %nctaid.x;\n"
		"\tmul.wide.u32 %rd8, %r2, 8;\n\tadd.s64 %rd9, %rd1, %rd8;\n"
		"\tst.global.v2.u32 [%rd9+1024], {%r7, %r8};\n"
		"\tmul.wide.u32 %rd6, %r2, 16;\n\tadd.s64 %rd7, %rd1, %rd6;\n"
		"\tst.global.v4.u32 [%rd7], {%r3, %r4, %r5, %r6};\n";
	uint32_t out[64 + 64 * 2][4];
	cs_grid_result r = h_run_body("", body, 64, NULL, 0, out, sizeof(out));
	cr_assert_eq(r.outcome, CS_GRID_EXECUTED, "%s", r.diag.msg);
	for (uint32_t t = 0; t < 64; t++) {
		uint32_t l = t & 31;
		cr_expect_eq(out[t][0], l);
		cr_expect_eq(out[t][1], t / 32);
		cr_expect_eq(out[t][2], (1u << l) - 1);
		cr_expect_eq(out[t][3], ~((1u << l) - 1));
		uint32_t *ex = &out[64][0] + 2 * t;
		cr_expect_eq(ex[0], 0);
		cr_expect_eq(ex[1], 1);
	}
}

Test(warp, redux_sync_in_divergent_code)
{
	const char *body =
		"\tsetp.lt.u32 %p1, %r2, 24;\n"
		"\tmov.u32 %r10, 0;\n\tmov.u32 %r11, 0;\n\tmov.u32 %r12, 0;\n\tmov.u32 %r13, 0;\n"
		"\t@!%p1 bra $OUT;\n"
		"\tmul.lo.s32 %r3, %r2, 3;\n\tsub.s32 %r4, 10, %r2;\n"
		"\tredux.sync.add.u32 %r10, %r3, 0xffffff;\n"
		"\tredux.sync.min.s32 %r11, %r4, 0xffffff;\n"
		"\tredux.sync.max.u32 %r12, %r4, 0xffffff;\n"
		"\tredux.sync.xor.b32 %r13, %r3, 0xffffff;\n"
		"$OUT:\n"
		"\tmul.wide.u32 %rd6, %r2, 16;\n\tadd.s64 %rd7, %rd1, %rd6;\n"
		"\tst.global.v4.u32 [%rd7], {%r10, %r11, %r12, %r13};\n";
	uint32_t out[32][4];
	cs_grid_result r = h_run_body("", body, 32, NULL, 0, out, sizeof(out));
	cr_assert_eq(r.outcome, CS_GRID_EXECUTED, "%s", r.diag.msg);
	uint32_t sum = 0, x = 0, umax = 0;
	int32_t smin = 1000;
	for (uint32_t t = 0; t < 24; t++) {
		sum += 3 * t;
		x ^= 3 * t;
		int32_t v = 10 - (int32_t)t;
		smin = v < smin ? v : smin;
		umax = (uint32_t)v > umax ? (uint32_t)v : umax;
	}
	for (int t = 0; t < 24; t++) {
		cr_expect_eq(out[t][0], sum);
		cr_expect_eq((int32_t)out[t][1], smin);
		cr_expect_eq(out[t][2], umax); /* 10 - 11 wraps to 0xffffffff as u32 */
		cr_expect_eq(out[t][3], x);
	}
	cr_expect_eq(out[30][0], 0);
}

/* ---- issue 10 item 6: match, member masks, isspacep ---- */

/* Keys key(t) per lane; match.any gives each lane the lanes holding its key,
 * match.all the whole mask (and true) only when every lane agrees. */
Test(warp, match_any_all)
{
	const char *body =
		"\tand.b32 %r3, %r2, 3;\n"          /* key = t % 4 */
		"\tmatch.any.sync.b32 %r4, %r3, -1;\n"
		"\tmatch.all.sync.b32 %r5|%p1, %r3, -1;\n"
		"\tmatch.all.sync.b32 %r6|%p2, %r1, -1;\n" /* n: the same everywhere */
		"\tselp.u32 %r7, 1, 0, %p1;\n\tselp.u32 %r8, 1, 0, %p2;\n"
		"\tmul.wide.u32 %rd6, %r2, 16;\n\tadd.s64 %rd7, %rd1, %rd6;\n"
		"\tst.global.v4.u32 [%rd7], {%r4, %r5, %r6, %r8};\n";
	uint32_t out[32][4];
	cs_grid_result r = h_run_body("", body, 32, NULL, 0, out, sizeof(out));
	cr_assert_eq(r.outcome, CS_GRID_EXECUTED, "%s", r.diag.msg);
	for (uint32_t l = 0; l < 32; l++) {
		cr_expect_eq(out[l][0], 0x11111111u << (l & 3), "match.any lane %u: 0x%x", l, out[l][0]);
		cr_expect_eq(out[l][1], 0, "match.all of differing keys");
		cr_expect_eq(out[l][2], 0xffffffffu, "match.all of equal keys");
		cr_expect_eq(out[l][3], 1);
	}
}

/* Each half of the warp votes and shuffles inside its own member mask
 * (__shfl_down_sync(mask, v, o, 16) / __ballot_sync(mask, p) on a half warp). */
Test(warp, member_masks_of_half_warps)
{
	const char *body =
		"\tsetp.lt.u32 %p1, %r2, 16;\n"
		"\tselp.b32 %r10, 65535, -65536, %p1;\n"   /* the lane's half */
		"\tand.b32 %r3, %r2, 5;\n\tsetp.ne.u32 %p2, %r3, 0;\n"
		"\tvote.sync.ballot.b32 %r4, %p2, %r10;\n"
		"\tsetp.lt.u32 %p3, %r2, 20;\n"
		"\tvote.sync.all.pred %p4, %p3, %r10;\n"
		"\tselp.u32 %r5, 1, 0, %p4;\n"
		"\tshfl.sync.down.b32 %r6, %r2, 8, 4127, %r10;\n" /* c = 0x101f: 16-lane segments */
		"\tbar.warp.sync %r10;\n"
		"\tmul.wide.u32 %rd6, %r2, 16;\n\tadd.s64 %rd7, %rd1, %rd6;\n"
		"\tst.global.v4.u32 [%rd7], {%r4, %r5, %r6, %r10};\n";
	uint32_t out[32][4];
	cs_grid_result r = h_run_body("", body, 32, NULL, 0, out, sizeof(out));
	cr_assert_eq(r.outcome, CS_GRID_EXECUTED, "%s", r.diag.msg);
	uint32_t ballot_all = 0;
	for (uint32_t l = 0; l < 32; l++)
		if (l & 5)
			ballot_all |= 1u << l;
	for (uint32_t l = 0; l < 32; l++) {
		uint32_t half = l < 16 ? 0xffffu : 0xffff0000u;
		cr_expect_eq(out[l][0], ballot_all & half, "ballot lane %u: 0x%x", l, out[l][0]);
		cr_expect_eq(out[l][1], l < 16 ? 1u : 0u, "vote.all lane %u", l);
		uint32_t src = (l & 15) + 8 <= 15 ? l + 8 : l;
		cr_expect_eq(out[l][2], src, "shfl lane %u", l);
	}
}

/* A lane outside its own member mask is undefined in PTX: the model stops and
 * says which lane and mask. */
Test(warp, lane_outside_its_member_mask_is_an_error)
{
	const char *ops[] = { "\tvote.sync.ballot.b32 %r4, %p1, 65535;\n",
			      "\tshfl.sync.idx.b32 %r4, %r2, 0, 31, 65535;\n",
			      "\tmatch.any.sync.b32 %r4, %r2, 65535;\n", "\tbar.warp.sync 65535;\n" };
	for (size_t i = 0; i < sizeof(ops) / sizeof(ops[0]); i++) {
		char body[512];
		snprintf(body, sizeof(body), "\tsetp.lt.u32 %%p1, %%r2, 3;\n%s", ops[i]);
		uint32_t out[32];
		cs_grid_result r = h_run_body("", body, 32, NULL, 0, out, sizeof(out));
		cr_expect_eq(r.outcome, CS_GRID_ERROR, "%s", ops[i]);
		cr_expect(strstr(r.diag.msg, "lane 16") && strstr(r.diag.msg, "0x0000ffff"), "%s: %s",
			  ops[i], r.diag.msg);
	}
}

/* isspacep on generic addresses of each space (what __isGlobal, __isShared,
 * __isLocal and __isConstant compile to). */
Test(warp, isspacep_generic_windows)
{
	const char *decls = ".const .align 4 .u32 ctab[4] = {1, 2, 3, 4};\n";
	const char *body =
		"\t.shared .align 4 .u32 sh[32];\n"
		"\t.local .align 4 .u32 lo[2];\n"
		"\tmov.u64 %rd10, sh;\n\tcvta.shared.u64 %rd10, %rd10;\n"
		"\tmov.u64 %rd11, lo;\n\tcvta.local.u64 %rd11, %rd11;\n"
		"\tmov.u64 %rd12, ctab;\n\tcvta.const.u64 %rd12, %rd12;\n"
		"\tmov.u32 %r6, 0;\n"
		"\tisspacep.global %p1, %rd1;\n\tselp.u32 %r7, 1, 0, %p1;\n\tor.b32 %r6, %r6, %r7;\n"
		"\tisspacep.shared %p1, %rd10;\n\tselp.u32 %r7, 2, 0, %p1;\n\tor.b32 %r6, %r6, %r7;\n"
		"\tisspacep.local %p1, %rd11;\n\tselp.u32 %r7, 4, 0, %p1;\n\tor.b32 %r6, %r6, %r7;\n"
		"\tisspacep.const %p1, %rd12;\n\tselp.u32 %r7, 8, 0, %p1;\n\tor.b32 %r6, %r6, %r7;\n"
		"\tisspacep.shared %p1, %rd1;\n\tselp.u32 %r7, 16, 0, %p1;\n\tor.b32 %r6, %r6, %r7;\n"
		"\tisspacep.global %p1, %rd10;\n\tselp.u32 %r7, 32, 0, %p1;\n\tor.b32 %r6, %r6, %r7;\n"
		"\tisspacep.local %p1, %rd12;\n\tselp.u32 %r7, 64, 0, %p1;\n\tor.b32 %r6, %r6, %r7;\n"
		"\tst.global.u32 [%rd4], %r6;\n";
	char *src = h_kernel(decls, body);
	cs_diag d;
	cs_ptx_program *p = h_parse(src, &d);
	free(src);
	cr_assert(p, "%s", d.msg);
	h_env e;
	h_init(&e);
	uint64_t out = h_alloc(&e, 4 * 32);
	cs_grid_result r = h_run(&e, p, "k", (uint32_t[]){ 1, 1, 1 }, (uint32_t[]){ 32, 1, 1 }, 0,
				 (uint64_t[]){ out, 0, 32 }, 3);
	cr_assert_eq(r.outcome, CS_GRID_EXECUTED, "%s", r.diag.msg);
	uint32_t got[32];
	h_read(&e, out, got, sizeof(got));
	for (int l = 0; l < 32; l++)
		cr_expect_eq(got[l], 1 | 2 | 4 | 8, "lane %d: 0x%x", l, got[l]);
	h_fini(&e);
	cs_ptx_program_free(p);
}

/* fixtures/kernels/warpmask.cu, nvcc's PTX for each arch, against CPU
 * references: cub::WarpReduce<int,16> (redux.sync.max with a half-warp mask),
 * cg::reduce over a labeled_partition (match.any masks) and __reduce_*_sync
 * on half warps; each group gets its own result, not the warp's. */
Test(warp, cub_and_cg_reductions_under_partial_masks)
{
	const char *archs[] = { "sm_80", "sm_90", "sm_100" };
	enum { N = 64 };
	int32_t in[N];
	uint32_t seed = 7;
	for (int t = 0; t < N; t++)
		in[t] = (int32_t)(h_frand(&seed) * 100000.0f);
	for (size_t a = 0; a < 3; a++) {
		cs_ptx_program *p = h_load_fixture("warpmask", archs[a]);
		h_env e;
		h_init(&e);
		uint64_t vin = h_put(&e, in, sizeof(in)), vout = h_alloc(&e, 2 * N * 4);
		const char *kernels[] = { "warp16_max", "bucket_max", "half_reduce" };
		for (size_t k = 0; k < 3; k++) {
			cs_grid_result r = h_run(&e, p, kernels[k], (uint32_t[]){ 1, 1, 1 },
						 (uint32_t[]){ N, 1, 1 }, 0, (uint64_t[]){ vin, vout }, 2);
			cr_assert_eq(r.outcome, CS_GRID_EXECUTED, "%s %s: %s", archs[a], kernels[k],
				     r.diag.msg);
			uint32_t got[2 * N];
			h_read(&e, vout, got, sizeof(got));
			for (int t = 0; t < N; t++) {
				int g16 = t & ~15, g32 = t & ~31;
				int32_t mx = INT32_MIN, bmx = INT32_MIN;
				uint32_t sum = 0, and_ = UINT32_MAX;
				for (int j = 0; j < 16; j++) {
					mx = in[g16 + j] > mx ? in[g16 + j] : mx;
					sum += (uint32_t)in[g16 + j];
					and_ &= (uint32_t)in[g16 + j];
				}
				for (int j = g32; j < g32 + 32; j++)
					if ((in[j] & 3) == (in[t] & 3) && in[j] > bmx)
						bmx = in[j];
				if (k == 0 && (t & 15) == 0)
					cr_expect_eq((int32_t)got[t], mx, "%s warp16_max %d", archs[a], t);
				if (k == 1)
					cr_expect_eq((int32_t)got[t], bmx, "%s bucket_max %d", archs[a], t);
				if (k == 2) {
					cr_expect_eq(got[2 * t], sum, "%s half sum %d", archs[a], t);
					cr_expect_eq(got[2 * t + 1], and_, "%s half and %d", archs[a], t);
				}
			}
		}
		h_fini(&e);
		cs_ptx_program_free(p);
	}
}

/* SPDX-License-Identifier: MIT */
/* fixtures/thrust/thrustdev.cu: the kernels thrust::sort, thrust::inclusive_scan
 * and thrust::reduce dispatch to (cub's onesweep and single-tile radix sort, the
 * decoupled look-back scan, the single-tile reduce), launched as cub's host
 * dispatch launches them, against CPU references on sm_80 and sm_90. Block and
 * tile sizes are those of nvcc 13's CUB policies in the committed PTX (its
 * .maxntid, and the tile the kernels multiply their tile index by). */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"

typedef struct {
	const char *arch;
	uint32_t scan_threads, scan_tile, onesweep_tile;
} thrust_arch;

static const thrust_arch archs[] = { { "sm_80", 320, 3840, 8064 }, { "sm_90", 128, 3072, 7296 } };
enum { SORT_THREADS = 384, HISTOGRAM_THREADS = 128, SUM_THREADS = 256, REDUCE_THREADS = 256 };

/* The arch's PTX, and e for it. The grids run on one host thread: a CTA that
 * spins on another CTA's published state (the look-back) runs as many
 * thread-instructions as the other takes to publish, which on several host
 * threads depends on the host's timing. */
static cs_ptx_program *thrust_start(const thrust_arch *t, h_env *e)
{
	h_init(e);
	e->threads = 1;
	char path[96];
	snprintf(path, sizeof(path), "fixtures/thrust/out/thrustdev.%s.ptx", t->arch);
	size_t len;
	char *text = test_read_source(path, &len);
	cr_assert(text, "%s", path);
	cs_diag d;
	cs_ptx_program *p = h_parse(text, &d);
	free(text);
	cr_assert(p, "%s", path);
	return p;
}

/* The entry whose mangled name holds both parts. */
static const char *entry_with(const cs_ptx_program *p, const char *a, const char *b)
{
	for (size_t i = 0; i < cs_ptx_entry_count(p); i++) {
		const char *n = cs_ptx_entry_name(p, i);
		if (strstr(n, a) && strstr(n, b))
			return n;
	}
	cr_assert_fail("no entry with %s and %s", a, b);
	return NULL;
}

static void random_ints(int32_t *v, size_t n, uint32_t seed)
{
	for (size_t i = 0; i < n; i++) {
		seed = seed * 1664525u + 1013904223u;
		v[i] = (int32_t)seed;
	}
}

static int cmp_i32(const void *x, const void *y)
{
	int32_t a = *(const int32_t *)x, b = *(const int32_t *)y;
	return a < b ? -1 : a > b;
}

static void expect_sorted_copy(const char *what, const char *arch, const int32_t *in,
			       const int32_t *got, size_t n)
{
	int32_t *want = malloc(n * 4);
	memcpy(want, in, n * 4);
	qsort(want, n, 4, cmp_i32);
	size_t bad = 0;
	for (size_t i = 0; i < n; i++)
		if (got[i] != want[i] && bad++ < 8)
			cr_expect_eq(got[i], want[i], "%s %s [%zu]: %d, want %d", arch, what, i, got[i],
				     want[i]);
	cr_expect_eq(bad, 0, "%s %s: %zu keys out of place", arch, what, bad);
	free(want);
}

/* thrust::sort of int keys: the histogram kernel, the exclusive sum of the
 * digit counts, and one onesweep pass per 8-bit digit (the keys between two
 * buffers, the look-back array zeroed before each pass); and, for a tile's
 * worth, the single-tile kernel. */
Test(thrust, sort_onesweep_and_single_tile)
{
	enum { N = 20000, SMALL = 1500, PASSES = 4, DIGITS = 256 };
	static int32_t keys[N], got[N];
	random_ints(keys, N, 5);
	for (size_t a = 0; a < 2; a++) {
		const thrust_arch *t = &archs[a];
		h_env e;
		cs_ptx_program *p = thrust_start(t, &e);
		const char *hist = entry_with(p, "DeviceRadixSortHistogramKernel", "SortOrderE0");
		const char *sum = entry_with(p, "DeviceRadixSortExclusiveSumKernel", "");
		const char *pass = entry_with(p, "DeviceRadixSortOnesweepKernel", "SortOrderE0");
		const char *single = entry_with(p, "DeviceRadixSortSingleTileKernel", "SortOrderE0");
		uint32_t tiles = (N + t->onesweep_tile - 1) / t->onesweep_tile;
		uint64_t buf[2] = { h_put(&e, keys, sizeof(keys)), h_alloc(&e, sizeof(keys)) };
		uint64_t bins = h_alloc(&e, PASSES * DIGITS * 8), ctrs = h_alloc(&e, PASSES * 4);
		uint64_t lookback = h_alloc(&e, tiles * DIGITS * 4);
		uint8_t *zeros = calloc(tiles * DIGITS, 4);
		cs_grid_result r = h_run(&e, p, hist, (uint32_t[]){ 4, 1, 1 },
					 (uint32_t[]){ HISTOGRAM_THREADS, 1, 1 }, 0,
					 (uint64_t[]){ bins, buf[0], N, 0, 32, 0 }, 6);
		cr_assert_eq(r.outcome, CS_GRID_EXECUTED, "%s histogram: %s", t->arch, r.diag.msg);
		r = h_run(&e, p, sum, (uint32_t[]){ PASSES, 1, 1 }, (uint32_t[]){ SUM_THREADS, 1, 1 }, 0,
			  (uint64_t[]){ bins }, 1);
		cr_assert_eq(r.outcome, CS_GRID_EXECUTED, "%s exclusive sum: %s", t->arch, r.diag.msg);
		for (uint32_t k = 0; k < PASSES; k++) {
			h_write(&e, lookback, zeros, tiles * DIGITS * 4);
			r = h_run(&e, p, pass, (uint32_t[]){ tiles, 1, 1 }, (uint32_t[]){ SORT_THREADS, 1, 1 },
				  0, (uint64_t[]){ lookback, ctrs + 4 * k, 0, bins + k * DIGITS * 8,
						   buf[(k + 1) % 2], buf[k % 2], 0, 0, N, 8 * k, 8, 0 }, 12);
			cr_assert_eq(r.outcome, CS_GRID_EXECUTED, "%s pass %u: %s", t->arch, k, r.diag.msg);
		}
		h_read(&e, buf[0], got, sizeof(got));
		expect_sorted_copy("onesweep", t->arch, keys, got, N);
		uint64_t out = h_alloc(&e, SMALL * 4);
		r = h_run(&e, p, single, (uint32_t[]){ 1, 1, 1 }, (uint32_t[]){ 256, 1, 1 }, 0,
			  (uint64_t[]){ buf[1], out, 0, 0, SMALL, 0, 32, 0 }, 8);
		cr_assert_eq(r.outcome, CS_GRID_EXECUTED, "%s single tile: %s", t->arch, r.diag.msg);
		h_write(&e, buf[1], keys, SMALL * 4);
		r = h_run(&e, p, single, (uint32_t[]){ 1, 1, 1 }, (uint32_t[]){ 256, 1, 1 }, 0,
			  (uint64_t[]){ buf[1], out, 0, 0, SMALL, 0, 32, 0 }, 8);
		cr_assert_eq(r.outcome, CS_GRID_EXECUTED, "%s single tile: %s", t->arch, r.diag.msg);
		h_read(&e, out, got, SMALL * 4);
		expect_sorted_copy("single tile", t->arch, keys, got, SMALL);
		free(zeros);
		h_fini(&e);
		cs_ptx_program_free(p);
	}
}

/* thrust::inclusive_scan over several tiles: the tile-state init kernel, then
 * one CTA per tile, each looking back at its predecessors' published
 * aggregates; and thrust::reduce's single-tile kernel. */
Test(thrust, scan_lookback_and_reduce)
{
	enum { N = 40000, PADDING = 32 };
	static int32_t in[N], got[N];
	random_ints(in, N, 9);
	for (size_t i = 0; i < N; i++)
		in[i] %= 100000;
	for (size_t a = 0; a < 2; a++) {
		const thrust_arch *t = &archs[a];
		h_env e;
		cs_ptx_program *p = thrust_start(t, &e);
		const char *init = entry_with(p, "DeviceScanInitKernel", "");
		const char *scan = entry_with(p, "DeviceScanKernel", "NullTypeEj");
		const char *reduce = entry_with(p, "DeviceReduceSingleTileKernel", "EPiSC_jS9_");
		uint32_t tiles = (N + t->scan_tile - 1) / t->scan_tile;
		uint64_t vin = h_put(&e, in, sizeof(in)), vout = h_alloc(&e, sizeof(in));
		uint64_t state = h_alloc(&e, (tiles + PADDING) * 8);
		cs_grid_result r = h_run(&e, p, init, (uint32_t[]){ 1, 1, 1 }, (uint32_t[]){ 128, 1, 1 },
					 0, (uint64_t[]){ state, tiles }, 2);
		cr_assert_eq(r.outcome, CS_GRID_EXECUTED, "%s init: %s", t->arch, r.diag.msg);
		r = h_run(&e, p, scan, (uint32_t[]){ tiles, 1, 1 }, (uint32_t[]){ t->scan_threads, 1, 1 },
			  0, (uint64_t[]){ vin, vout, state, 0, 0, 0, N }, 7);
		cr_assert_eq(r.outcome, CS_GRID_EXECUTED, "%s scan: %s", t->arch, r.diag.msg);
		h_read(&e, vout, got, sizeof(got));
		int32_t acc = 0;
		size_t bad = 0;
		for (size_t i = 0; i < N; i++) {
			acc = (int32_t)((uint32_t)acc + (uint32_t)in[i]);
			if (got[i] != acc && bad++ < 8)
				cr_expect_eq(got[i], acc, "%s scan [%zu]: %d, want %d", t->arch, i, got[i], acc);
		}
		cr_expect_eq(bad, 0, "%s scan: %zu wrong of %d (%u tiles)", t->arch, bad, N, tiles);
		uint64_t vsum = h_alloc(&e, 4);
		r = h_run(&e, p, reduce, (uint32_t[]){ 1, 1, 1 }, (uint32_t[]){ REDUCE_THREADS, 1, 1 }, 0,
			  (uint64_t[]){ vin, vsum, N, 0, 17, 0 }, 6);
		cr_assert_eq(r.outcome, CS_GRID_EXECUTED, "%s reduce: %s", t->arch, r.diag.msg);
		int32_t total;
		h_read(&e, vsum, &total, 4);
		int64_t want = 17;
		for (size_t i = 0; i < N; i++)
			want += in[i];
		cr_expect_eq(total, (int32_t)want, "%s reduce: %d, want %lld", t->arch, total,
			     (long long)want);
		h_fini(&e);
		cs_ptx_program_free(p);
	}
}

/* SPDX-License-Identifier: MIT */
/* The SIMT executor: runs an entry over a grid, a warp of 32 lanes at a time.
 *
 * Each warp has a register file of 64-bit slots laid out [slot][lane], a file
 * of predicate masks, and a divergence stack of (pc, reconvergence pc, mask)
 * entries: a divergent branch parks the current entry at the branch's
 * immediate post-dominator and pushes one entry per side; an entry whose pc
 * reaches its reconvergence pc, or whose lanes have all exited, is popped.
 * Calls push a frame entry; `ret` retires lanes up to it. Warps of a CTA run in
 * index order until they block at a barrier or exit; a barrier opens when every
 * live thread of the CTA (or the count given) has arrived. */
#include "ptx_alu.h"
#include "ptx_mma.h"
#include "ptx_printf.h"
#include "ptx_int.h"
#include "ptx_run.h"

#include "chainsim/trace.h"

#include <fenv.h>
#include <inttypes.h>
#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/sysinfo.h>

#if defined(__clang__)
#pragma STDC FP_CONTRACT OFF
#endif


/* ---- fused multiply-add ------------------------------------------------- */

/* fmaf through libm costs a call per lane on a baseline x86-64 build; where the
 * CPU has FMA (and AVX2, which every x86 FMA design but one has), a lane loop
 * compiled for it uses the instruction (the same correctly rounded result). */
#if defined(__x86_64__) && defined(__GNUC__)
#define PTX_HAVE_FMA_PATH 1
#define PTX_TARGET_FMA __attribute__((target("avx2,fma")))
#define PTX_CLONE_AVX2 __attribute__((target_clones("arch=x86-64-v3", "default")))
__attribute__((target("avx2,fma"))) static void fma_f32_lanes_hw(uint64_t *D, const uint64_t *A,
								    const uint64_t *B, const uint64_t *C)
{
	for (unsigned l = 0; l < PTX_WARP; l++) {
		float v = __builtin_fmaf(ptx_f32(A[l]), ptx_f32(B[l]), ptx_f32(C[l]));
		D[l] = ptx_canon32(v);
	}
}

bool ptx_cpu_has_fma(void)
{
	__builtin_cpu_init();
	return __builtin_cpu_supports("fma") && __builtin_cpu_supports("avx2");
}
#else
#define PTX_HAVE_FMA_PATH 0
#define PTX_TARGET_FMA
#define PTX_CLONE_AVX2
static void fma_f32_lanes_hw(uint64_t *D, const uint64_t *A, const uint64_t *B, const uint64_t *C)
{
	for (unsigned l = 0; l < PTX_WARP; l++) {
		float v = fmaf(ptx_f32(A[l]), ptx_f32(B[l]), ptx_f32(C[l]));
		D[l] = ptx_canon32(v);
	}
}

bool ptx_cpu_has_fma(void)
{
	return false;
}
#endif

/* ---- errors ------------------------------------------------------------- */

static void set_fault(run *R, warp *w, uint32_t lane, uint32_t pc, uint64_t va, int access,
		      const char *fmt, ...) __attribute__((format(printf, 7, 8)));
static void set_fault(run *R, warp *w, uint32_t lane, uint32_t pc, uint64_t va, int access,
		      const char *fmt, ...)
{
	if (R->status != R_OK)
		return;
	R->status = R_FAULT;
	R->fault_va = va;
	R->fault_access = access;
	R->fault_warp = w->id;
	R->fault_lane = lane;
	R->fault_pc = pc;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(R->why, sizeof(R->why), fmt, ap);
	va_end(ap);
}

static void set_stop(run *R, int status, warp *w, uint32_t pc, const char *fmt, va_list ap)
{
	if (R->status != R_OK)
		return;
	R->status = status;
	R->fault_warp = w ? w->id : 0;
	R->fault_lane = 0;
	R->fault_pc = pc;
	vsnprintf(R->why, sizeof(R->why), fmt, ap);
}

void ptx_set_error(run *R, warp *w, uint32_t pc, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	set_stop(R, R_ERROR, w, pc, fmt, ap);
	va_end(ap);
}

static void set_budget_stop(run *R, warp *w, uint32_t pc, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static void set_budget_stop(run *R, warp *w, uint32_t pc, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	set_stop(R, R_BUDGET, w, pc, fmt, ap);
	va_end(ap);
}

/* ---- memory ------------------------------------------------------------- */

static uint8_t *xlate_slow(run *R, warp *w, int space, uint64_t va, unsigned size, uint32_t lane,
			   uint32_t pc, int access, uint8_t *tmp, bool *port)
{
	if (size > 1 && (va & (size - 1))) {
		set_fault(R, w, lane, pc, va, access, "misaligned %u-byte access", size);
		return NULL;
	}
	if (space == SP_GENERIC) {
		if (va - CS_PTX_PARAM_WINDOW < R->param_bytes) {
			space = SP_KPARAM;
			va -= CS_PTX_PARAM_WINDOW;
		} else if (va - R->shwin < R->shared_size) {
			space = SP_SHARED;
			va -= R->shwin;
		} else if (va - R->lwin < R->local_size) {
			space = SP_LOCAL;
			va -= R->lwin;
		} else {
			space = SP_GLOBAL;
		}
	}
	switch (space) {
	case SP_SHARED:
		if (va > R->shared_size || size > R->shared_size - va) {
			set_fault(R, w, lane, pc, va, access,
				  "shared address 0x%" PRIx64 " is outside the CTA's %" PRIu64
				  " bytes of shared memory", va, R->shared_size);
			return NULL;
		}
		return R->shared + va;
	case SP_LOCAL:
		if (va > R->local_size || size > R->local_size - va) {
			set_fault(R, w, lane, pc, va, access,
				  "local address 0x%" PRIx64 " is outside the thread's %u bytes",
				  va, R->local_size);
			return NULL;
		}
		return R->local + (size_t)(w->id * PTX_WARP + lane) * R->local_size + va;
	case SP_KPARAM:
		if (va > R->param_bytes || size > R->param_bytes - va) {
			set_fault(R, w, lane, pc, va, access,
				  "param offset 0x%" PRIx64 " is outside the %" PRIu64 "-byte block",
				  va, R->param_bytes);
			return NULL;
		}
		if (access != CS_ACCESS_READ) {
			set_fault(R, w, lane, pc, va, access, "write to a kernel parameter");
			return NULL;
		}
		memcpy(tmp, R->params + va, size);
		return tmp;
	default:
		break;
	}
	/* global: the private module image, else the memory port */
	uint64_t page = va >> CS_PAGE_SHIFT;
	uint8_t *base = NULL;
	if (R->module && va - R->mwin < R->module_size) {
		base = R->module + ((page << CS_PAGE_SHIFT) - R->mwin);
	} else if (R->bus->mem.span) {
		base = R->bus->mem.span(R->bus->mem.ctx, page << CS_PAGE_SHIFT, CS_PAGE_SIZE);
	}
	if (base) {
		unsigned s = (unsigned)(page & (TLB_N - 1));
		w->tlb_tag[s] = page;
		w->tlb_ptr[s] = base;
		return base + (va & (CS_PAGE_SIZE - 1));
	}
	uint64_t fva = va;
	if (R->bus->mem.read && R->bus->mem.read(R->bus->mem.ctx, va, tmp, size, &fva)) {
		*port = true;
		return tmp;
	}
	set_fault(R, w, lane, pc, fva, access, "address 0x%" PRIx64 " is not mapped", fva);
	return NULL;
}

/* cvt.rn{.relu}.f16x2.{e4m3x2,e5m2x2}: each byte to a half, exactly (a NaN
 * becomes 0x7FFF, the canonical f16 NaN; .relu makes a negative 0). */
static uint32_t fp8_pair_to_f16x2(uint16_t v, bool e5m2, bool relu)
{
	uint32_t out = 0;
	for (int k = 1; k >= 0; k--) {
		float f = ptx_fp8_to_f32((uint8_t)(v >> (8 * k)), e5m2);
		uint16_t h = isnan(f) ? 0x7fff : ptx_float_to_half(relu && f < 0 ? 0.0f : f);
		out |= (uint32_t)h << (16 * k);
	}
	return out;
}

static inline uint8_t *xlate(run *R, warp *w, int space, uint64_t va, unsigned size,
			     uint32_t lane, uint32_t pc, int access, uint8_t *tmp, bool *port)
{
	if (!(va & (size - 1))) {
		if (space <= SP_GLOBAL) {
			uint64_t page = va >> CS_PAGE_SHIFT;
			unsigned s = (unsigned)(page & (TLB_N - 1));
			if (w->tlb_tag[s] == page)
				return w->tlb_ptr[s] + (va & (CS_PAGE_SIZE - 1));
		} else if (space == SP_SHARED && va < R->shared_size && size <= R->shared_size - va) {
			return R->shared + va;
		}
	}
	return xlate_slow(R, w, space, va, size, lane, pc, access, tmp, port);
}

static bool port_write(run *R, warp *w, uint32_t lane, uint32_t pc, uint64_t va,
		       const uint8_t *src, unsigned size, int access)
{
	uint64_t fva = va;
	if (R->bus->mem.write && R->bus->mem.write(R->bus->mem.ctx, va, src, size, &fva))
		return true;
	set_fault(R, w, lane, pc, fva, access, "address 0x%" PRIx64 " is not mapped", fva);
	return false;
}

static inline uint64_t load_elem(const uint8_t *p, ptx_type t, unsigned esz)
{
	switch (esz) {
	case 1: {
		uint8_t v = *p;
		return (t == T_S8) ? (uint64_t)(int64_t)(int8_t)v : v;
	}
	case 2: {
		uint16_t v;
		memcpy(&v, p, 2);
		return (t == T_S16) ? (uint64_t)(int64_t)(int16_t)v : v;
	}
	case 4: {
		uint32_t v;
		memcpy(&v, p, 4);
		return v;
	}
	default: {
		uint64_t v;
		memcpy(&v, p, 8);
		return v;
	}
	}
}

/* ---- divergence stack ---------------------------------------------------- */

static bool push(run *R, warp *w, uint32_t pc, uint32_t rpc, uint32_t mask, uint32_t call)
{
	if (w->sp == w->cap) {
		if (w->cap >= STACK_MAX) {
			ptx_set_error(R, w, pc, "divergence stack deeper than %d", STACK_MAX);
			return false;
		}
		uint32_t nc = w->cap ? w->cap * 2 : 16;
		sentry *s = realloc(w->stk, nc * sizeof(*s));
		if (!s) {
			ptx_set_error(R, w, pc, "out of memory");
			return false;
		}
		w->stk = s;
		w->cap = nc;
	}
	sentry *e = &w->stk[w->sp++];
	e->pc = pc;
	e->rpc = rpc;
	e->mask = mask;
	e->call = call;
	return true;
}

/* Pops entries whose lanes are all gone or that reached their reconvergence
 * point; false when the warp has nothing left to run. */
static bool settle(warp *w)
{
	while (w->sp) {
		sentry *e = &w->stk[w->sp - 1];
		if (e->mask == 0 || e->pc == e->rpc) {
			w->sp--;
			continue;
		}
		return true;
	}
	return false;
}

static void retire_lanes(run *R, warp *w, uint32_t lanes)
{
	R->nlive -= lane_count(w->live & lanes);
	w->live &= ~lanes;
	for (uint32_t i = 0; i < w->sp; i++)
		w->stk[i].mask &= ~lanes;
}

/* The slow side of the budget check at every branch: the CTA's own budget,
 * the wall clock, and whether an earlier CTA ended the grid; else the next
 * check comes BUDGET_STEP thread-instructions later. */
static bool budget_spent(run *R, warp *w, uint32_t pc, uint64_t ti)
{
	uint64_t spent = R->tinstr + ti;
	if (spent > R->cta_budget) {
		set_budget_stop(R, w, pc, "ran past its budget of %" PRIu64 " thread-instructions",
				R->cta_budget);
		return true;
	}
	if (R->cta_index >= atomic_load_explicit(&R->g->end, memory_order_relaxed)) {
		R->status = R_ABANDONED;
		return true;
	}
	if (past_deadline(R->g)) {
		set_budget_stop(R, w, pc, "ran past its wall-time budget of %.3g s",
				(double)(R->g->l->max_wall_ns ? R->g->l->max_wall_ns
							      : CS_PTX_WALL_DEFAULT_NS) / 1e9);
		return true;
	}
	R->budget = spent + BUDGET_STEP < R->cta_budget ? spent + BUDGET_STEP : R->cta_budget;
	return false;
}

/* ---- the warp loop ------------------------------------------------------- */


/* The loads shared_lanes_ok cleared. */
static inline void load_shared_lanes(uint32_t m, uint64_t *D, const uint64_t *Bs, uint32_t off,
				     const uint8_t *sh)
{
	FOR_LANES(m, {
		uint32_t v;
		memcpy(&v, sh + ((uint32_t)Bs[l] + off), 4);
		D[l] = v;
	});
}

static inline void fma_f32_lanes(const run *R, uint32_t m, uint64_t *D, const uint64_t *A,
				 const uint64_t *B, const uint64_t *C)
{
	if (m == PTX_FULL && R->hw_fma) {
		fma_f32_lanes_hw(D, A, B, C);
		return;
	}
	FOR_LANES(m, {
		float v = fmaf(ptx_f32(A[l]), ptx_f32(B[l]), ptx_f32(C[l]));
		D[l] = ptx_canon32(v);
	});
}

/* ---- fused runs of shared loads and fmas (OP_LD_SHARED_FMA) ------------ */

/* Eight lanes at a time, so that a build for AVX2 keeps each in one register. */
typedef uint32_t lane8u __attribute__((vector_size(32)));
typedef float lane8f __attribute__((vector_size(32)));
typedef int32_t lane8i __attribute__((vector_size(32)));
typedef int64_t lane4i __attribute__((vector_size(32))); /* 4 lanes of 64-bit rows */
enum { LANES8 = PTX_WARP / 8 };
/* How the addresses of 8 lanes lie: anywhere, 8 consecutive words, or one word. */
enum { G_GATHER, G_CONTIG, G_UNIFORM };

/* A full warp's address register as 32-bit shared offsets, each group of 8
 * lanes classified once for every load of the run. */
typedef struct shared_row {
	uint32_t at[PTX_WARP];
	uint8_t kind[LANES8];
} shared_row;

/* Whether all 8 lanes of v are zero (four 64-bit words ORed: fewer steps than
 * eight 32-bit ones). */
static inline __attribute__((always_inline)) bool lane8_zero(const lane8u *v)
{
	lane4i q = (lane4i)*v;
	return !(q[0] | q[1] | q[2] | q[3]);
}

/* Whether every lane's address plus every offset in [0, max_off] (all multiples
 * of 4) is an aligned word inside lim bytes of shared memory. */
static inline __attribute__((always_inline)) bool shared_row_of(shared_row *s, const uint64_t *Bs,
								 uint64_t max_off, uint32_t lim)
{
	/* 8 lanes to a vector, so that a build for AVX2 compares them at once */
	static const lane8u step = { 0, 4, 8, 12, 16, 20, 24, 28 };
	if (max_off + 4 > lim)
		return false;
	uint32_t last = (uint32_t)(lim - max_off - 4); /* the highest address that fits */
	lane8u lastv = { last, last, last, last, last, last, last, last };
	lane8u bad = { 0 }, nu_all = { 0 }, nc_all = { 0 }, not_uniform[LANES8], not_contig[LANES8];
	for (unsigned g = 0; g < LANES8; g++) {
		lane8u a;
		for (unsigned k = 0; k < 8; k++)
			a[k] = (uint32_t)Bs[8 * g + k];
		memcpy(s->at + 8 * g, &a, sizeof(a));
		bad |= (lane8u)(a > lastv) | (a & 3);
		lane8u first = { a[0], a[0], a[0], a[0], a[0], a[0], a[0], a[0] };
		not_uniform[g] = a ^ first;
		not_contig[g] = a ^ (first + step);
		nu_all |= not_uniform[g];
		nc_all |= not_contig[g];
	}
	if (!lane8_zero(&bad))
		return false;
	/* every group alike (the usual case) takes one test for all */
	bool all_uniform = lane8_zero(&nu_all), all_contig = !all_uniform && lane8_zero(&nc_all);
	for (unsigned g = 0; g < LANES8; g++)
		s->kind[g] = all_uniform ? G_UNIFORM : all_contig ? G_CONTIG
			     : lane8_zero(&not_uniform[g]) ? G_UNIFORM
			     : lane8_zero(&not_contig[g]) ? G_CONTIG : G_GATHER;
	return true;
}

static inline __attribute__((always_inline)) void load8(lane8u *v, const uint8_t *sh,
							 const uint32_t *at, int kind, uint32_t off)
{
	if (kind == G_CONTIG) {
		memcpy(v, sh + at[0] + off, sizeof(*v));
	} else if (kind == G_UNIFORM) {
		uint32_t x;
		memcpy(&x, sh + at[0] + off, 4);
		*v = (lane8u){ x, x, x, x, x, x, x, x };
	} else {
		for (unsigned k = 0; k < 8; k++) {
			uint32_t x;
			memcpy(&x, sh + at[k] + off, 4);
			(*v)[k] = x;
		}
	}
}

/* 8 lanes of a 64-bit register row; an arithmetic result's NaNs made canonical. */
static inline __attribute__((always_inline)) void store8(uint64_t *D, const lane8u *v, bool canon)
{
	for (unsigned k = 0; k < 8; k++) {
		uint32_t u = (*v)[k];
		bool nan = (u & 0x7fffffffu) > 0x7f800000u;
		D[k] = canon && nan ? 0x7fffffffu : u;
	}
}

/* One group of 8 lanes through the whole run, for a run whose intermediate
 * results are all dead: with the address kinds constant here, each load is one
 * vector load, one broadcast or 8 scalar loads. */
static inline __attribute__((always_inline)) void shared_fma_group(
	lane8f *acc, const uint8_t *sh, const shared_row *x, int kx, const shared_row *y, int ky,
	unsigned g, const uint32_t *off1, const uint32_t *off2, uint32_t n)
{
	for (uint32_t t = 0; t < n; t++) {
		lane8u a, b;
		load8(&a, sh, x->at + 8 * g, kx, off1[t]);
		load8(&b, sh, y->at + 8 * g, ky, off2[t]);
		lane8f fa = (lane8f)a, fb = (lane8f)b;
		for (unsigned k = 0; k < 8; k++)
			(*acc)[k] = __builtin_fmaf(fa[k], fb[k], (*acc)[k]);
	}
}

/* One triple's fma for group g of 8 lanes. */
static inline __attribute__((always_inline)) void shared_fma_step(
	lane8f *acc, const uint8_t *sh, const shared_row *x, int kx, const shared_row *y, int ky,
	unsigned g, uint32_t off1, uint32_t off2)
{
	lane8u a, b;
	load8(&a, sh, x->at + 8 * g, kx, off1);
	load8(&b, sh, y->at + 8 * g, ky, off2);
	lane8f fa = (lane8f)a, fb = (lane8f)b;
	for (unsigned k = 0; k < 8; k++)
		(*acc)[k] = __builtin_fmaf(fa[k], fb[k], (*acc)[k]);
}

/* The same for all groups of 8 lanes at once, where every group's addresses lie
 * the same way: each lane's chain of fmas is the one shared_fma_group does, and
 * the four groups' independent chains overlap. */
static inline __attribute__((always_inline)) void shared_fma_warp(
	lane8f *acc, const uint8_t *sh, const shared_row *x, int kx, const shared_row *y, int ky,
	const uint32_t *off1, const uint32_t *off2, uint32_t n)
{
	_Static_assert(LANES8 == 4, "four accumulators");
	lane8f c0 = acc[0], c1 = acc[1], c2 = acc[2], c3 = acc[3];
	for (uint32_t t = 0; t < n; t++) {
		shared_fma_step(&c0, sh, x, kx, y, ky, 0, off1[t], off2[t]);
		shared_fma_step(&c1, sh, x, kx, y, ky, 1, off1[t], off2[t]);
		shared_fma_step(&c2, sh, x, kx, y, ky, 2, off1[t], off2[t]);
		shared_fma_step(&c3, sh, x, kx, y, ky, 3, off1[t], off2[t]);
	}
	acc[0] = c0;
	acc[1] = c1;
	acc[2] = c2;
	acc[3] = c3;
}

/* Whether every group of 8 lanes of s lies as the first one does. */
static inline bool shared_row_one_kind(const shared_row *s)
{
	bool same = true;
	for (unsigned g = 1; g < LANES8; g++)
		same &= s->kind[g] == s->kind[0];
	return same;
}

/* The run of n triples at in for a full warp whose addresses x and y checked,
 * at the offsets off1 and off2. The accumulator stays in lanes across the
 * run: an fma's NaN stays a NaN, so making it canonical when stored gives the
 * bits each single fma would. */
static inline __attribute__((always_inline)) void shared_fma_run_lanes(
	uint64_t *r, const ptx_ins *in, uint32_t n, const shared_row *x, const shared_row *y,
	const uint8_t *sh, const uint32_t *off1, const uint32_t *off2, bool all_dead)
{
	lane8f acc[LANES8];
	const uint64_t *C = PTX_REG(in[2].o[3]);
	for (unsigned g = 0; g < LANES8; g++) {
		lane8u c;
		for (unsigned k = 0; k < 8; k++)
			c[k] = (uint32_t)C[8 * g + k];
		acc[g] = (lane8f)c;
	}
	if (all_dead) {
		/* the switches pick the address kinds once, so that each load in
		 * the loops is one vector load, one broadcast or 8 scalar loads */
#define KIND_CASES(call_)                                                                   \
	KIND_CASE(G_GATHER, G_GATHER, call_);                                               \
	KIND_CASE(G_GATHER, G_CONTIG, call_);                                               \
	KIND_CASE(G_GATHER, G_UNIFORM, call_);                                              \
	KIND_CASE(G_CONTIG, G_GATHER, call_);                                               \
	KIND_CASE(G_CONTIG, G_CONTIG, call_);                                               \
	KIND_CASE(G_CONTIG, G_UNIFORM, call_);                                              \
	KIND_CASE(G_UNIFORM, G_GATHER, call_);                                              \
	KIND_CASE(G_UNIFORM, G_CONTIG, call_);                                              \
	default:                                                                            \
		call_(G_UNIFORM, G_UNIFORM);                                                \
		break
#define KIND_CASE(kx_, ky_, call_)                                                          \
	case (kx_) * 3 + (ky_):                                                             \
		call_(kx_, ky_);                                                            \
		break
#define WARP_RUN(kx_, ky_) shared_fma_warp(acc, sh, x, kx_, y, ky_, off1, off2, n)
#define GROUP_RUN(kx_, ky_) shared_fma_group(&acc[g], sh, x, kx_, y, ky_, g, off1, off2, n)
		if (shared_row_one_kind(x) && shared_row_one_kind(y)) {
			switch (x->kind[0] * 3 + y->kind[0]) {
				KIND_CASES(WARP_RUN);
			}
		} else {
			for (unsigned g = 0; g < LANES8; g++) {
				switch (x->kind[g] * 3 + y->kind[g]) {
					KIND_CASES(GROUP_RUN);
				}
			}
		}
#undef GROUP_RUN
#undef WARP_RUN
#undef KIND_CASE
#undef KIND_CASES
		const ptx_ins *fma = in + 3 * (n - 1) + 2;
		for (unsigned g = 0; g < LANES8; g++) {
			lane8u d = (lane8u)acc[g];
			store8(PTX_REG(fma->o[0]) + 8 * g, &d, true);
		}
		return;
	}
	for (uint32_t t = 0; t < n; t++) {
		const ptx_ins *ld1 = in + 3 * t, *ld2 = ld1 + 1, *fma = ld1 + 2;
		bool keep1 = !(ld1->flags & F_DEAD_DEST), keep2 = !(ld2->flags & F_DEAD_DEST);
		bool keep_d = t + 1 == n || !(fma->flags & F_DEAD_DEST);
		for (unsigned g = 0; g < LANES8; g++) {
			lane8u a, b;
			load8(&a, sh, x->at + 8 * g, x->kind[g], off1[t]);
			load8(&b, sh, y->at + 8 * g, y->kind[g], off2[t]);
			lane8f fa = (lane8f)a, fb = (lane8f)b;
			for (unsigned k = 0; k < 8; k++)
				acc[g][k] = __builtin_fmaf(fa[k], fb[k], acc[g][k]);
			if (keep1)
				store8(PTX_REG(ld1->o[1]) + 8 * g, &a, false);
			if (keep2)
				store8(PTX_REG(ld2->o[1]) + 8 * g, &b, false);
			if (keep_d) {
				lane8u d = (lane8u)acc[g];
				store8(PTX_REG(fma->o[0]) + 8 * g, &d, true);
			}
		}
	}
}

PTX_TARGET_FMA static void shared_fma_run_hw(uint64_t *r, const ptx_ins *in, uint32_t n,
					     const shared_row *x, const shared_row *y,
					     const uint8_t *sh, const uint32_t *off1,
					     const uint32_t *off2, bool all_dead)
{
	shared_fma_run_lanes(r, in, n, x, y, sh, off1, off2, all_dead);
}

static void shared_fma_run_sw(uint64_t *r, const ptx_ins *in, uint32_t n, const shared_row *x,
			      const shared_row *y, const uint8_t *sh, const uint32_t *off1,
			      const uint32_t *off2, bool all_dead)
{
	shared_fma_run_lanes(r, in, n, x, y, sh, off1, off2, all_dead);
}

/* Runs the fused run at in for a full warp at once; false (nothing done) when
 * an address is misaligned or outside shared memory, so that the instructions
 * run one by one and the right one faults. */
static inline __attribute__((always_inline)) bool shared_fma_run(const run *R, uint64_t *r,
								  const ptx_ins *in)
{
	uint32_t n = in->o[5], lim = (uint32_t)R->shared_size;
	uint32_t off1[PTX_FUSED_RUN_MAX], off2[PTX_FUSED_RUN_MAX];
	shared_row x, y;
	if (n > PTX_FUSED_RUN_MAX || !shared_row_of(&x, PTX_REG(in->o[0]), in->o[2], lim) ||
	    !shared_row_of(&y, PTX_REG(in[1].o[0]), in->o[3], lim))
		return false;
	for (uint32_t t = 0; t < n; t++) {
		off1[t] = (uint32_t)in[3 * t].imm;
		off2[t] = (uint32_t)in[3 * t + 1].imm;
	}
	if (R->hw_fma)
		shared_fma_run_hw(r, in, n, &x, &y, R->shared, off1, off2, in->o[4]);
	else
		shared_fma_run_sw(r, in, n, &x, &y, R->shared, off1, off2, in->o[4]);
	return true;
}

/* Constant slots (and the zero slot) hold the same value in every lane. */
static inline bool slot_is_uniform(const cs_ptx_program *p, uint32_t slot)
{
	return slot == SR_ZERO || slot >= p->const_base;
}

/* Whether every lane of m addresses 4 aligned bytes inside shared memory of
 * lim bytes (at most CS_PTX_SHARED_MAX, so 32-bit arithmetic holds), without
 * branches so that the full-warp loop vectorizes. When lim is a power of two
 * one mask finds both a misaligned and an out-of-range address. */
static inline bool shared_lanes_ok(uint32_t m, const uint64_t *Bs, uint32_t off, uint32_t lim)
{
	if (lim < 4)
		return false;
	if (!(lim & (lim - 1))) {
		uint64_t bad = 0, outside = (~(uint64_t)(lim - 1) | 3) & 0xffffffffu;
		FOR_LANES(m, bad |= (Bs[l] + off) & outside);
		return !bad;
	}
	uint32_t last = lim - 4, bad = 0;
	FOR_LANES(m, {
		uint32_t va = (uint32_t)Bs[l] + off;
		bad |= (va & 3) | (uint32_t)(va > last);
	});
	return !bad;
}

/* The bits in which 8 lanes' addresses a[0..7] differ from 8 consecutive words
 * from a[0] (4 lanes to a vector compare); zero when they are consecutive. */
static inline uint64_t lanes8_not_contig(const uint64_t *a)
{
	static const lane4i step_lo = { 0, 4, 8, 12 }, step_hi = { 16, 20, 24, 28 };
	lane4i lo, hi;
	memcpy(&lo, a, sizeof(lo));
	memcpy(&hi, a + 4, sizeof(hi));
	int64_t a0 = (int64_t)a[0];
	lane4i first = { a0, a0, a0, a0 };
	lane4i d = (lo ^ (first + step_lo)) | (hi ^ (first + step_hi));
	return (uint64_t)(d[0] | d[1] | d[2] | d[3]);
}

/* The stores shared_lanes_ok cleared, for a full warp: 8 lanes that write 8
 * consecutive words as one copy. Lanes go in order, so where two write one
 * word the higher lane's value stays, as lane by lane. */
static inline void store_shared_warp(uint8_t *sh, const uint64_t *Bs, uint32_t off,
				     const uint64_t *S)
{
	for (unsigned g = 0; g < PTX_WARP; g += 8) {
		if (!(lanes8_not_contig(Bs + g) & PTX_LOW32)) {
			lane8u v;
			for (unsigned k = 0; k < 8; k++)
				v[k] = (uint32_t)S[g + k];
			memcpy(sh + (uint32_t)(Bs[g] + off), &v, sizeof(v));
			continue;
		}
		for (unsigned k = 0; k < 8; k++) {
			uint32_t v = (uint32_t)S[g + k];
			memcpy(sh + (uint32_t)(Bs[g + k] + off), &v, 4);
		}
	}
}

/* Whether a full warp's 4-byte accesses all lie in lane 0's page, aligned
 * (each address agrees with lane 0's in the page number and the low 2 bits,
 * and lane 0's are zero). */
static inline bool lanes_in_one_page(const uint64_t *Bs, uint64_t off)
{
	uint64_t va0 = Bs[0] + off, diff = va0 & 3;
	for (unsigned l = 0; l < PTX_WARP; l++)
		diff |= ((Bs[l] + off) ^ va0) & (~(uint64_t)(CS_PAGE_SIZE - 1) | 3);
	return !diff;
}

/* The loads lanes_in_one_page cleared, from the page at pg: 8 lanes that
 * read 8 consecutive words (a coalesced access) as one copy. */
static inline void load_page_lanes(uint64_t *D, const uint64_t *Bs, uint64_t off,
				   const uint8_t *pg)
{
	for (unsigned g = 0; g < PTX_WARP; g += 8) {
		if (!lanes8_not_contig(Bs + g)) {
			lane8u v; /* one vector load (an array is stored and reloaded) */
			memcpy(&v, pg + ((Bs[g] + off) & (CS_PAGE_SIZE - 1)), sizeof(v));
			for (unsigned k = 0; k < 8; k++)
				D[g + k] = v[k];
			continue;
		}
		for (unsigned k = 0; k < 8; k++) {
			uint32_t v;
			memcpy(&v, pg + ((Bs[g + k] + off) & (CS_PAGE_SIZE - 1)), 4);
			D[g + k] = v;
		}
	}
}

static void copy_frame(run *R, warp *w, uint32_t lanes, const ptx_copy *cp, uint32_t n)
{
	for (uint32_t k = 0; k < n; k++) {
		FOR_LANES(lanes, {
			uint8_t *base = R->local + (size_t)(w->id * PTX_WARP + l) * R->local_size;
			memmove(base + cp[k].dst, base + cp[k].src, cp[k].size);
		});
	}
}

/* ---- cp.async ------------------------------------------------------------ */

static bool async_issue(run *R, warp *w, uint32_t pc, unsigned lane, uint32_t dst,
			const uint8_t *bytes, unsigned size)
{
	if (w->ncopies == w->cap_copies) {
		uint32_t cap = w->cap_copies ? w->cap_copies * 2 : 64;
		async_copy *grown = cap <= ASYNC_MAX ? realloc(w->copies, cap * sizeof(*grown)) : NULL;
		if (!grown) {
			ptx_set_error(R, w, pc, "more than %u cp.async copies in flight in warp %u (no "
				  "cp.async.wait_group or wait_all covers them)", w->cap_copies, w->id);
			return false;
		}
		w->copies = grown;
		w->cap_copies = cap;
	}
	async_copy *c = &w->copies[w->ncopies++];
	c->dst = dst;
	c->pc = pc;
	c->group = w->groups[lane];
	c->lane = (uint8_t)lane;
	c->size = (uint8_t)size;
	memcpy(c->bytes, bytes, size);
	return true;
}

/* Lands, in issue order, the copies of the lanes in m whose group is older
 * than the newest `keep` groups the lane has committed (keep -1: every copy
 * of those lanes, committed or not); the rest stay. */
static bool async_land(run *R, warp *w, uint32_t m, int64_t keep)
{
	uint32_t kept = 0;
	for (uint32_t i = 0; i < w->ncopies; i++) {
		async_copy *c = &w->copies[i];
		if (!(m >> c->lane & 1) || (int64_t)c->group + keep >= (int64_t)w->groups[c->lane]) {
			w->copies[kept++] = *c;
			continue;
		}
		if (R->race_on && !ptx_race_check_bytes(R, w, c->lane, c->pc, SP_SHARED, c->dst, c->size, true))
			return false;
		memcpy(R->shared + c->dst, c->bytes, c->size);
	}
	w->ncopies = kept;
	return true;
}

/* ---- matrix instructions ------------------------------------------------- */

/* ldmatrix and the tensor-core instructions are warp-wide (.sync.aligned):
 * every lane of the warp executes them together, or the result is undefined. */
static bool whole_warp(run *R, warp *w, uint32_t pc, uint32_t m, const char *what)
{
	if (m == PTX_FULL)
		return true;
	ptx_set_error(R, w, pc, "%s needs all 32 lanes of the warp, and lanes 0x%08x execute it", what, m);
	return false;
}

/* ldmatrix.m8n8.x{1,2,4}{.trans}.b16: matrix i's eight rows of 16 bytes are
 * at the addresses lanes 8i..8i+7 hold; each lane gets, per matrix, the two
 * b16 elements (row lane/4, columns 2(lane%4) and +1), or the transposed pair. */
static bool ldmatrix(run *R, warp *w, const ptx_ins *in, uint32_t pc, uint32_t m)
{
	if (!whole_warp(R, w, pc, m, "ldmatrix"))
		return false;
	uint64_t *r = w->r;
	const uint64_t *Bs = PTX_REG(in->o[0]);
	for (unsigned i = 0; i < in->aux; i++) {
		uint16_t mat[8][8];
		for (unsigned row = 0; row < 8; row++) {
			unsigned src = 8 * i + row;
			uint64_t va = Bs[src] + (uint64_t)in->imm;
			if (in->t2 == SP_SHARED)
				va = (uint32_t)va;
			uint8_t tmp[32];
			bool port = false;
			if (R->race_on && !ptx_race_check_bytes(R, w, src, pc, in->t2, va, 16, false))
				return false;
			const uint8_t *q = xlate(R, w, in->t2, va, 16, src, pc, CS_ACCESS_READ, tmp, &port);
			if (!q)
				return false;
			memcpy(mat[row], q, 16);
		}
		uint64_t *D = PTX_REG(in->o[1 + i]);
		FOR_LANES(m, {
			unsigned g = l / 4, c = 2 * (l % 4);
			uint16_t lo = in->aux2 ? mat[c][g] : mat[g][c];
			uint16_t hi = in->aux2 ? mat[c + 1][g] : mat[g][c + 1];
			D[l] = (uint32_t)lo | (uint32_t)hi << 16;
		});
	}
	return true;
}

static void frag_read(const uint64_t *r, const uint32_t *regs, unsigned n, ptx_frag *f)
{
	for (unsigned j = 0; j < n; j++)
		for (unsigned l = 0; l < PTX_WARP; l++)
			f->v[j][l] = (uint32_t)PTX_REG(regs[j])[l];
}

static void frag_write(uint64_t *r, const uint32_t *regs, unsigned n, const ptx_frag *f)
{
	for (unsigned j = 0; j < n; j++)
		for (unsigned l = 0; l < PTX_WARP; l++)
			PTX_REG(regs[j])[l] = f->v[j][l];
}

/* mma.sync / wmma.mma: D is written after every read, so it may be C. */
static bool mma_run(run *R, warp *w, uint32_t pc, uint32_t m, const ptx_mma *mm)
{
	if (!whole_warp(R, w, pc, m, mm->wmma ? "wmma.mma" : "mma.sync"))
		return false;
	uint64_t *r = w->r;
	ptx_frag a, b, c, d;
	frag_read(r, mm->a, mm->na, &a);
	frag_read(r, mm->b, mm->nb, &b);
	frag_read(r, mm->c, mm->nc, &c);
	ptx_mma_compute(mm, &a, &b, &c, &d);
	frag_write(r, mm->d, mm->nd, &d);
	return true;
}

/* wmma.load / wmma.store: the warp moves one matrix at one address and
 * stride (the same in every lane), each row (column, for .col) starting at a
 * multiple of the fragment's size in bytes (PTX ISA, Matrix Storage for WMMA). */
static bool wmma_ldst(run *R, warp *w, const ptx_ins *in, uint32_t pc, uint32_t m,
		      const ptx_wmma *wm)
{
	bool load = wm->frag != WM_D;
	const char *what = load ? "wmma.load" : "wmma.store";
	if (!whole_warp(R, w, pc, m, what))
		return false;
	uint64_t *r = w->r;
	const uint64_t *Bs = PTX_REG(in->o[0]), *Ss = in->o[1] != PTX_NONE ? PTX_REG(in->o[1]) : NULL;
	for (unsigned l = 1; l < PTX_WARP; l++)
		if (Bs[l] != Bs[0] || (Ss && (uint32_t)Ss[l] != (uint32_t)Ss[0])) {
			ptx_set_error(R, w, pc, "%s: lane %u's address or stride differs from lane 0's "
				  "(the warp moves one matrix)", what, l);
			return false;
		}
	unsigned rows, cols, esz;
	ptx_wmma_shape(wm, &rows, &cols, &esz);
	unsigned nlines = wm->col ? cols : rows, len = wm->col ? rows : cols;
	uint64_t stride = Ss ? (uint32_t)Ss[0] : len;
	uint64_t base = Bs[0] + (uint64_t)wm->off;
	unsigned align = wm->nregs * 4u;
	uint32_t mat[16 * 16];
	ptx_frag f;
	if (!load) {
		frag_read(r, wm->regs, wm->nregs, &f);
		ptx_wmma_from_frag(wm, &f, mat);
	}
	for (unsigned i = 0; i < nlines; i++) {
		uint64_t line = base + i * stride * esz;
		if (wm->space == SP_SHARED)
			line = (uint32_t)line;
		if (line % align) {
			set_fault(R, w, 0, pc, line, load ? CS_ACCESS_READ : CS_ACCESS_WRITE,
				  "misaligned %s: %s %u starts at 0x%" PRIx64 ", not a multiple of the "
				  "fragment's %u bytes", what, wm->col ? "column" : "row", i, line, align);
			return false;
		}
		if (R->race_on && !ptx_race_check_bytes(R, w, 0, pc, wm->space, line, len * esz, !load))
			return false;
		for (unsigned e = 0; e < len; e++) {
			uint64_t va = line + e * esz;
			uint32_t *v = &mat[wm->col ? e * cols + i : i * cols + e];
			uint8_t tmp[32];
			bool port = false;
			uint8_t *q = xlate(R, w, wm->space, va, esz, 0, pc,
					   load ? CS_ACCESS_READ : CS_ACCESS_WRITE, tmp, &port);
			if (!q)
				return false;
			if (load) {
				*v = (uint32_t)load_elem(q, T_B32, esz);
				continue;
			}
			memcpy(q, v, esz); /* little-endian: the low bytes */
			if (port && !port_write(R, w, 0, pc, va, q, esz, CS_ACCESS_WRITE))
				return false;
		}
	}
	if (load) {
		ptx_wmma_to_frag(wm, mat, &f);
		frag_write(r, wm->regs, wm->nregs, &f);
	}
	return true;
}

/* ---- device printf and assert ------------------------------------------- */

typedef struct lane_reader {
	run *R;
	warp *w;
	uint32_t lane, pc;
} lane_reader;

/* A lane's view of generic memory for vprintf and __assertfail's strings. */
static bool lane_read(void *ctx, uint64_t va, void *dst, size_t n)
{
	lane_reader *lr = ctx;
	for (size_t i = 0; i < n; i++) {
		uint8_t tmp[8];
		bool port = false;
		uint8_t *q = xlate(lr->R, lr->w, SP_GENERIC, va + i, 1, lr->lane, lr->pc,
				   CS_ACCESS_READ, tmp, &port);
		if (!q)
			return false;
		((uint8_t *)dst)[i] = *q;
	}
	return true;
}

/* Argument k of a builtin call, as the caller stored it in its .param frame. */
static uint64_t builtin_arg(const run *R, const warp *w, uint32_t lane, const ptx_callsite *cs,
			    unsigned k)
{
	const uint8_t *frame = R->local + (size_t)(w->id * PTX_WARP + lane) * R->local_size;
	uint64_t v = 0;
	memcpy(&v, frame + cs->args[k].src, cs->args[k].size < 8 ? cs->args[k].size : 8);
	return v;
}

/* vprintf: each lane prints, in lane order, one CS_EV_PRINTF record and
 * returns the arguments it consumed; __assertfail stops the grid at the first
 * lane, naming the assertion and where its source put it. */
static bool run_builtin(run *R, warp *w, uint32_t pc, uint32_t m, const ptx_callsite *cs)
{
	for (uint32_t g = m; g; g &= g - 1) {
		uint32_t l = (uint32_t)__builtin_ctz(g);
		lane_reader lr = { R, w, l, pc };
		ptx_reader rd = { &lr, lane_read };
		if (cs->builtin == PTX_BUILTIN_ASSERTFAIL) {
			char msg[160], file[160], func[160];
			if (!ptx_printf_read_string(&rd, builtin_arg(R, w, l, cs, 0), msg, sizeof(msg)) ||
			    !ptx_printf_read_string(&rd, builtin_arg(R, w, l, cs, 1), file, sizeof(file)) ||
			    !ptx_printf_read_string(&rd, builtin_arg(R, w, l, cs, 3), func, sizeof(func)))
				return false;
			/* an error, not a memory fault: nothing was accessed */
			ptx_set_error(R, w, pc, "device assertion `%s` failed at %s:%u in %s", msg, file,
				  (uint32_t)builtin_arg(R, w, l, cs, 2), func);
			R->fault_lane = l;
			return false;
		}
		char text[PTX_PRINTF_OUT_MAX];
		int nargs;
		if (!ptx_printf_format(&rd, builtin_arg(R, w, l, cs, 0), builtin_arg(R, w, l, cs, 1),
				       text, sizeof(text), &nargs))
			return false;
		uint32_t t = w->id * PTX_WARP + l;
		cs_event ev = cs_event_make(CS_EV_PRINTF, CS_STAGE_GR_DISPATCH, CS_UNIT_SM,
					    R->l->channel);
		ev.launch = R->l->launch;
		ev.value = R->cta[0] + (uint64_t)R->l->grid[0] * (R->cta[1] + (uint64_t)R->l->grid[1] * R->cta[2]);
		ev.aux = t;
		ev.detail = text;
		cs_trace_emit(&R->bus->trace, &ev);
		if (cs->nrets) {
			uint8_t *frame = R->local + (size_t)t * R->local_size;
			int32_t ret = nargs;
			memcpy(frame + cs->rets[0].dst, &ret, 4);
		}
	}
	return true;
}

/* Each lane executing a .sync warp operation must be in its own member mask
 * (the PTX ISA leaves it undefined otherwise): the model stops there. */
/* ---- .sync warp instructions --------------------------------------------- */

/* A finding, not a stop: the instruction at pc produced a result PTX leaves
 * undefined, and chainsim returned the value docs/warp.md names. Once per
 * reason and PTX line per worker, and again per grid at commit. */
static void undefined_note(run *R, warp *w, uint32_t pc, uint32_t why, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));
static void undefined_note(run *R, warp *w, uint32_t pc, uint32_t why, const char *fmt, ...)
{
	uint32_t line = R->p->lines[pc];
	if (!ptx_race_pair_new(R->undef_pairs, &R->nundef_pairs, why, line))
		return;
	char msg[CS_DIAG_MSG_MAX];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	char detail[CS_DIAG_MSG_MAX + 128];
	snprintf(detail, sizeof(detail), "%s: PTX line %u, warp %u of CTA %" PRIu64 ": %s",
		 R->f->name, line, w->id, cta_linear(R), msg);
	cs_event ev = cs_event_make(CS_EV_ASSUMPTION, CS_STAGE_GR_DISPATCH, CS_UNIT_SM, R->l->channel);
	ev.launch = R->l->launch;
	ev.value = cta_linear(R);
	ev.aux = (uint64_t)why << 32 | line;
	ev.detail = detail;
	cs_trace_emit(&R->bus->trace, &ev);
}
enum { UNDEF_SHFL_SOURCE, UNDEF_MEMBER_OFF };

enum { WS_DONE, WS_YIELD, WS_STOP };

/* What one .sync warp instruction sees: the lanes that execute it, each with
 * the operands of the instruction it executes (lanes of sibling paths that
 * meet at one rendezvous execute different instructions of one kind). */
typedef struct wsync {
	uint32_t exec;                /* lanes executing it */
	uint32_t off;                 /* lanes at it with their guard false */
	uint32_t pred;                /* vote: each executing lane's source predicate */
	uint32_t pout;                /* predicate results */
	uint32_t mask[PTX_WARP];      /* each executing lane's member mask */
	const ptx_ins *ins[PTX_WARP]; /* and the instruction it executes */
	uint64_t a[PTX_WARP], b[PTX_WARP], c[PTX_WARP], d[PTX_WARP];
} wsync;

static uint32_t guard_lanes(const ptx_ins *in, const uint32_t *pr, uint32_t onpath)
{
	if (in->guard == PTX_NONE)
		return onpath;
	return onpath & ((in->flags & F_GUARD_NEG) ? ~pr[in->guard] : pr[in->guard]);
}

/* Two instructions one rendezvous may join: the same operation with the same
 * qualifiers (PTX: "the same qualifiers and the same membermask value"). */
static bool sync_same_kind(const ptx_ins *a, const ptx_ins *b)
{
	return a->op == b->op && a->aux == b->aux && a->aux2 == b->aux2 && a->t1 == b->t1 &&
	       (a->flags & F_MEMBER_MASK) && (b->flags & F_MEMBER_MASK);
}

static bool is_sync_warp_op(const ptx_ins *in)
{
	switch ((ptx_op)in->op) {
	case OP_SHFL: case OP_VOTE: case OP_MATCH: case OP_REDUX: case OP_WARPSYNC: case OP_ELECT:
		return (in->flags & F_MEMBER_MASK) != 0;
	default:
		return false;
	}
}

/* Adds the lanes of one path that execute `in` (lanes on the path, guard true). */
static void sync_gather(wsync *s, const ptx_ins *in, uint32_t onpath, const uint64_t *r,
			const uint32_t *pr)
{
	uint32_t lanes = guard_lanes(in, pr, onpath);
	s->exec |= lanes;
	s->off |= onpath & ~lanes;
	const uint64_t *M = (in->flags & F_MEMBER_MASK) ? PTX_REG(in->o[5]) : NULL;
	if (in->op == OP_VOTE) {
		uint32_t v = pr[in->o[1]];
		s->pred |= ((in->flags & F_NEG_A) ? ~v : v) & lanes;
	}
	bool src = in->op == OP_SHFL || in->op == OP_MATCH || in->op == OP_REDUX;
	for (uint32_t g = lanes; g; g &= g - 1) {
		unsigned l = (unsigned)__builtin_ctz(g);
		s->ins[l] = in;
		/* the forms without .sync act among the lanes executing them */
		s->mask[l] = M ? (uint32_t)M[l] : lanes;
		if (src)
			s->a[l] = PTX_REG(in->o[1])[l];
		if (in->op == OP_SHFL) {
			s->b[l] = PTX_REG(in->o[2])[l];
			s->c[l] = PTX_REG(in->o[3])[l];
		}
	}
}

static void set_pred_lane(uint32_t *pr, uint32_t idx, unsigned l, bool v)
{
	pr[idx] = (pr[idx] & ~(1u << l)) | ((uint32_t)v << l);
}

static uint32_t redux_combine(const ptx_ins *in, uint32_t acc, uint32_t v)
{
	bool sgn = in->t1 == T_S32;
	if (in->t1 == T_F32) {
		/* min/max, +0 above -0; .abs on the inputs; NaN handled by the caller */
		float x = ptx_f32(acc), y = ptx_f32(v);
		bool y_wins = in->aux == 1 ? (y < x || (y == x && (v >> 31) > (acc >> 31)))
					   : (y > x || (y == x && (v >> 31) < (acc >> 31)));
		return y_wins ? v : acc;
	}
	switch (in->aux) {
	case 0: return acc + v;
	case 1: return sgn ? ((int32_t)v < (int32_t)acc ? v : acc) : (v < acc ? v : acc);
	case 2: return sgn ? ((int32_t)v > (int32_t)acc ? v : acc) : (v > acc ? v : acc);
	case 3: return acc & v;
	case 4: return acc | v;
	default: return acc ^ v;
	}
}

/* redux over the lanes of `group` in lane order. */
static uint32_t redux_group(const ptx_ins *in, const wsync *s, uint32_t group)
{
	bool f32 = in->t1 == T_F32, nan_in = false, any = false;
	uint32_t acc = 0;
	for (uint32_t g = group; g; g &= g - 1) {
		unsigned l = (unsigned)__builtin_ctz(g);
		uint32_t v = (uint32_t)s->a[l];
		if (f32) {
			if (in->aux2 & REDUX_ABS)
				v &= 0x7fffffffu;
			if ((v & 0x7fffffffu) > 0x7f800000u) {
				nan_in = true;
				continue; /* NaN inputs take no part unless .NaN says so */
			}
		}
		acc = any ? redux_combine(in, acc, v) : v;
		any = true;
	}
	if (f32 && (!any || (nan_in && (in->aux2 & REDUX_NAN))))
		return 0x7fffffffu;
	return acc;
}

/* Finds the sibling paths whose lanes the member masks of the lanes m at pc
 * name, adds their lanes to s (their stack entries in joins) and checks the
 * masks: WS_YIELD when a sibling must first run up to its warp instruction. */
static int sync_join(run *R, warp *w, uint32_t pc, uint32_t m, wsync *s, uint32_t *joins,
		     uint32_t *njoins)
{
	const ptx_ins *code = R->p->code, *in = &code[pc];
	sentry *top = &w->stk[w->sp - 1];
	uint64_t *r = w->r;
	uint32_t *pr = w->pr;
	uint32_t need = 0;
	for (uint32_t g = m; g; g &= g - 1)
		need |= s->mask[__builtin_ctz(g)];
	uint32_t missing = need & w->live & ~top->mask, found = 0;
	for (uint32_t k = w->sp - 1; missing && k-- > 0;) {
		sentry *e = &w->stk[k];
		if (e->rpc != top->rpc || e->call != top->call)
			break;
		/* lanes waiting at their reconvergence point never get here */
		if (!(e->mask & missing) || e->pc == e->rpc || e->pc >= R->p->ncode)
			continue;
		const ptx_ins *o = &code[e->pc];
		if (!is_sync_warp_op(o)) {
			/* the sibling runs until it reaches a warp instruction,
			 * reconverges or exits; this path waits at pc */
			sentry t = *e;
			*e = *top;
			*top = t;
			return WS_YIELD;
		}
		if (!sync_same_kind(o, in)) {
			ptx_set_error(R, w, pc,
				  "lanes 0x%08x wait at this warp instruction for lanes 0x%08x, "
				  "which wait at a different one (PTX line %u); PTX requires the same "
				  "instruction kind and qualifiers", m, e->mask & missing,
				  R->p->lines[e->pc]);
			return WS_STOP;
		}
		joins[(*njoins)++] = k;
		found |= e->mask;
	}
	if (missing & ~found) {
		ptx_set_error(R, w, pc,
			  "lanes 0x%08x of the member mask are live but not converged with lanes "
			  "0x%08x at this warp instruction (they wait at a reconvergence point or "
			  "on an enclosing path); chainsim joins only sibling paths", missing & ~found,
			  m);
		return WS_STOP;
	}
	for (uint32_t i = 0; i < *njoins; i++) {
		sentry *e = &w->stk[joins[i]];
		sync_gather(s, &code[e->pc], e->mask, r, pr);
	}
	for (uint32_t g = s->exec; g; g &= g - 1) {
		unsigned l = (unsigned)__builtin_ctz(g);
		if (!((s->mask[l] >> l) & 1)) {
			ptx_set_error(R, w, pc,
				  "lane %u executes a .sync warp operation with member mask 0x%08x, "
				  "which does not include it", l, s->mask[l]);
			return WS_STOP;
		}
		uint32_t same = s->mask[l] & s->exec;
		for (uint32_t h = same; h; h &= h - 1) {
			unsigned j = (unsigned)__builtin_ctz(h);
			if (s->mask[j] != s->mask[l]) {
				ptx_set_error(R, w, pc,
					  "lanes %u and %u execute this warp instruction together with "
					  "member masks 0x%08x and 0x%08x; PTX requires the same mask",
					  l, j, s->mask[l], s->mask[j]);
				return WS_STOP;
			}
		}
	}
	return WS_DONE;
}

/* Each executing lane's result of its warp instruction, into s->d and s->pout. */
static void sync_compute(run *R, warp *w, uint32_t pc, wsync *s)
{
	const ptx_ins *in = &R->p->code[pc];
	bool values = in->op != OP_WARPSYNC && in->op != OP_ELECT;
	for (uint32_t g = s->exec; g; g &= g - 1) {
		unsigned l = (unsigned)__builtin_ctz(g);
		const ptx_ins *li = s->ins[l];
		uint32_t P = s->mask[l] & s->exec;
		uint32_t off = s->mask[l] & s->off;
		if (off && values)
			undefined_note(R, w, pc, UNDEF_MEMBER_OFF,
				       "lanes 0x%08x of lane %u's member mask 0x%08x are predicated off at "
				       "this warp instruction; PTX does not say what they contribute, and "
				       "chainsim leaves them out", off, l, s->mask[l]);
		switch ((ptx_op)li->op) {
		case OP_SHFL: {
			uint32_t bval = (uint32_t)s->b[l] & 31, c = (uint32_t)s->c[l];
			uint32_t cval = c & 31, seg = (c >> 8) & 31;
			uint32_t maxl = (l & seg) | (cval & ~seg), minl = l & seg;
			int32_t j;
			bool ok;
			switch (li->aux) {
			case SH_UP: j = (int32_t)l - (int32_t)bval; ok = j >= (int32_t)maxl; break;
			case SH_DOWN: j = (int32_t)(l + bval); ok = j <= (int32_t)maxl; break;
			case SH_BFLY: j = (int32_t)(l ^ bval); ok = j <= (int32_t)maxl; break;
			default: j = (int32_t)(minl | (bval & ~seg)); ok = j <= (int32_t)maxl; break;
			}
			if (!ok)
				j = (int32_t)l;
			if ((P >> j) & 1) {
				s->d[l] = (uint32_t)s->a[j];
			} else {
				s->d[l] = 0;
				undefined_note(R, w, pc, UNDEF_SHFL_SOURCE,
					       "lane %u reads lane %d, which %s; PTX leaves the value "
					       "undefined, and chainsim returns 0", l, j,
					       !((w->live >> j) & 1) ? "has exited (or does not exist)"
					       : !((s->mask[l] >> j) & 1) ? "is not in its member mask"
									 : "does not execute the shfl");
			}
			s->pout |= (uint32_t)ok << l;
			break;
		}
		case OP_VOTE: {
			uint32_t act = s->pred & P;
			bool v = li->aux == VO_ALL ? act == P : li->aux == VO_ANY ? act != 0
				 : li->aux == VO_UNI ? (act == 0 || act == P) : false;
			s->d[l] = act;
			s->pout |= (uint32_t)v << l;
			break;
		}
		case OP_MATCH: {
			uint64_t vm = li->t1 == T_B32 ? 0xffffffffu : UINT64_MAX;
			uint32_t same = 0;
			for (uint32_t h = P; h; h &= h - 1) {
				unsigned j = (unsigned)__builtin_ctz(h);
				if (((s->a[j] ^ s->a[l]) & vm) == 0)
					same |= 1u << j;
			}
			bool all = same == P;
			s->d[l] = li->aux == MA_ANY ? same : all ? P : 0;
			s->pout |= (uint32_t)all << l;
			break;
		}
		case OP_REDUX:
			s->d[l] = redux_group(li, s, P);
			break;
		case OP_ELECT: {
			unsigned leader = (unsigned)__builtin_ctz(P);
			s->d[l] = leader;
			s->pout |= (uint32_t)(l == leader) << l;
			break;
		}
		default:
			break;
		}
	}
}

/* Writes each executing lane's result to its instruction's destinations. */
static void sync_write(warp *w, const wsync *s)
{
	uint64_t *r = w->r;
	uint32_t *pr = w->pr;
	for (uint32_t g = s->exec; g; g &= g - 1) {
		unsigned l = (unsigned)__builtin_ctz(g);
		const ptx_ins *li = s->ins[l];
		bool pv = (s->pout >> l) & 1;
		switch ((ptx_op)li->op) {
		case OP_VOTE:
			if (li->aux == VO_BALLOT)
				PTX_REG(li->o[0])[l] = s->d[l];
			else
				set_pred_lane(pr, li->o[0], l, pv);
			break;
		case OP_SHFL: case OP_MATCH: case OP_REDUX: case OP_ELECT:
			if (li->o[0] != PTX_NONE)
				PTX_REG(li->o[0])[l] = s->d[l];
			if (li->op != OP_REDUX && li->o[4] != PTX_NONE)
				set_pred_lane(pr, li->o[4], l, pv);
			break;
		default:
			break;
		}
	}
}

/* Runs the .sync warp instruction at pc (or its form without .sync) for the
 * lanes m of the top path. A member lane that is live but on a sibling path
 * is waited for: a sibling that has not reached a warp instruction runs first
 * (WS_YIELD), and siblings waiting at one of the same kind join this one.
 * Member lanes anywhere else (waiting at a reconvergence point, on an outer
 * path) never arrive in this model: an error naming them. */
static int warp_sync(run *R, warp *w, uint32_t pc, uint32_t m)
{
	const ptx_ins *code = R->p->code, *in = &code[pc];
	sentry *top = &w->stk[w->sp - 1];
	uint64_t *r = w->r;
	uint32_t *pr = w->pr;
	if (!m)
		return WS_DONE;
	wsync s;
	s.exec = s.off = s.pred = s.pout = 0;
	sync_gather(&s, in, top->mask, r, pr);
	uint32_t joins[PTX_WARP], njoins = 0;
	if (in->flags & F_MEMBER_MASK) {
		int j = sync_join(R, w, pc, m, &s, joins, &njoins);
		if (j != WS_DONE)
			return j;
	}
	sync_compute(R, w, pc, &s);
	sync_write(w, &s);
	for (uint32_t i = 0; i < njoins; i++)
		w->stk[joins[i]].pc++;
	return WS_DONE;
}

/* isspacep: whether generic address va lies in the window of space sp. The
 * global window holds everything outside the shared and local windows
 * (kernel parameters and constants included, as the PTX ISA says). */
static bool in_space(const run *R, int sp, uint64_t va)
{
	switch (sp) {
	case SP_SHARED: return va - R->shwin < R->shared_size;
	case SP_LOCAL: return va - R->lwin < R->local_size;
	case SP_KPARAM: return va - CS_PTX_PARAM_WINDOW < R->param_bytes;
	case SP_CONST:
		for (size_t i = 0; i < R->p->nvars; i++) {
			const ptx_mvar *v = &R->p->vars[i];
			uint64_t base = R->l->var_va ? R->l->var_va[i] : R->mwin + v->offset;
			if (v->space == CS_PTX_SPACE_CONST && va - base < v->size)
				return true;
		}
		return false;
	default:
		return !in_space(R, SP_SHARED, va) && !in_space(R, SP_LOCAL, va);
	}
}

/* ---- mbarrier ------------------------------------------------------------ */

static inline uint64_t mbar_make(uint64_t phase, uint32_t pending, uint32_t expected, int32_t tx)
{
	return (phase & MBAR_PHASE) | MBAR_VALID | pending | (uint64_t)expected << 20 |
	       (uint64_t)((uint32_t)tx & 0x1fffff) << 40;
}

/* The object lane l names: its bytes in the CTA's shared memory, or NULL
 * with the fault or error set. */
static uint64_t *mbar_object(run *R, warp *w, const ptx_ins *in, uint32_t pc, unsigned l,
			     uint32_t *off)
{
	uint64_t va = w->r[(size_t)in->o[1] * PTX_WARP + l] + (uint64_t)in->imm;
	if (in->t2 == SP_SHARED) {
		va = (uint32_t)va;
	} else if (in_space(R, SP_SHARED, va)) {
		va -= R->shwin;
	} else {
		ptx_set_error(R, w, pc, "mbarrier object at generic address 0x%" PRIx64
			  " (lane %u) is not in shared memory", va, l);
		return NULL;
	}
	uint8_t tmp[32];
	bool port = false;
	uint8_t *q = xlate(R, w, SP_SHARED, va, 8, l, pc, CS_ACCESS_ATOMIC, tmp, &port);
	*off = (uint32_t)va;
	return (uint64_t *)(void *)q;
}

/* Tx-count changes and arrivals of the current phase; the phase completes
 * when both its pending count and its tx-count are zero. */
static bool mbar_update(run *R, warp *w, uint32_t pc, unsigned l, uint32_t off, uint64_t *obj,
			const ptx_ins *in, uint32_t arrivals, int64_t tx_add, uint32_t drop,
			uint64_t *token)
{
	uint64_t v = *obj;
	if (!(v & MBAR_VALID)) {
		ptx_set_error(R, w, pc, "lane %u: the mbarrier at shared offset 0x%x is not initialized "
			  "(mbarrier.init)", l, off);
		return false;
	}
	uint32_t pending = mbar_pending(v), expected = mbar_expected(v);
	int64_t tx = (int64_t)mbar_tx(v) + tx_add;
	if (tx > (int64_t)MBAR_COUNT_MAX || tx < -(int64_t)MBAR_COUNT_MAX) {
		ptx_set_error(R, w, pc, "lane %u: the tx-count of the mbarrier at shared offset 0x%x "
			  "leaves -(2^20-1)..2^20-1 (%" PRId64 ")", l, off, tx);
		return false;
	}
	if (drop > expected || arrivals > pending) {
		ptx_set_error(R, w, pc, "lane %u: %u arrivals (%u dropped) on the mbarrier at shared "
			  "offset 0x%x, whose current phase has %u pending of %u expected", l,
			  arrivals, drop, off, pending, expected);
		return false;
	}
	expected -= drop;
	pending -= arrivals;
	if (token)
		*token = mbar_make(v, pending, expected, (int32_t)tx);
	if (pending == 0 && tx == 0) {
		if (in->aux2 & MBF_NO_COMPLETE) {
			ptx_set_error(R, w, pc, "lane %u: mbarrier arrive .noComplete completes the phase "
				  "of the mbarrier at shared offset 0x%x", l, off);
			return false;
		}
		for (uint32_t i = 0; i < R->nwarps; i++) {
			warp *o = &R->warps[i];
			if (o->mbar_pending_wait && o->mbar_at == off && o->mbar_parity == v >> 63)
				o->mbar_seen = true;
		}
		v ^= MBAR_PHASE;
		pending = expected;
		R->epoch++; /* the race detector: a completed phase orders like a barrier */
	}
	*obj = mbar_make(v, pending, expected, (int32_t)tx);
	R->mbar_changes++;
	return true;
}

/* The bytes of a cp.async.bulk, 16 at a time (so no piece crosses a page);
 * they land at issue, which is one of the times the copy may complete. */
static bool bulk_copy(run *R, warp *w, const ptx_ins *in, uint32_t pc, unsigned l, uint32_t size)
{
	uint64_t *r = w->r;
	uint64_t dst = (uint32_t)(PTX_REG(in->o[0])[l] + PTX_REG(in->o[3])[0]);
	uint64_t src = PTX_REG(in->o[4])[l] + PTX_REG(in->o[5])[0];
	if (size % 16 || dst % 16 || src % 16) {
		ptx_set_error(R, w, pc, "lane %u: cp.async.bulk of %u bytes from 0x%" PRIx64 " to shared "
			  "0x%" PRIx64 " (size and addresses must be multiples of 16)", l, size, src, dst);
		return false;
	}
	for (uint32_t i = 0; i < size; i += 16) {
		uint8_t tmp[32], buf[16];
		bool port = false;
		const uint8_t *q = xlate(R, w, SP_GLOBAL, src + i, 16, l, pc, CS_ACCESS_READ, tmp, &port);
		if (!q)
			return false;
		memcpy(buf, q, 16);
		if (R->race_on && (!ptx_race_check_bytes(R, w, l, pc, SP_GLOBAL, src + i, 16, false) ||
				   !ptx_race_check_bytes(R, w, l, pc, SP_SHARED, dst + i, 16, true)))
			return false;
		uint8_t *d = xlate(R, w, SP_SHARED, dst + i, 16, l, pc, CS_ACCESS_WRITE, tmp, &port);
		if (!d)
			return false;
		memcpy(d, buf, 16);
	}
	return true;
}

enum { MBR_DONE, MBR_WAIT, MBR_STOP };

/* One mbarrier instruction, lane by lane in lane order. MBR_WAIT: a wait
 * found its phase incomplete in some lane (its predicate is false there), and
 * the warp lets the others run. */
static int mbar_run(run *R, warp *w, const ptx_ins *in, uint32_t pc, uint32_t m)
{
	uint64_t *r = w->r;
	uint32_t *pr = w->pr;
	const uint64_t *N = in->o[2] != PTX_NONE ? PTX_REG(in->o[2]) : NULL;
	uint64_t *D = in->o[0] != PTX_NONE && in->aux != MB_TEST_WAIT && in->aux != MB_TRY_WAIT
			      ? PTX_REG(in->o[0]) : NULL;
	if (in->aux == MB_PENDING_COUNT) {
		FOR_LANES(m, D[l] = mbar_pending(N[l]));
		return MBR_DONE;
	}
	uint32_t incomplete = 0;
	for (unsigned l = 0; l < PTX_WARP; l++) {
		if (!(m >> l & 1))
			continue;
		uint32_t off, n = N ? (uint32_t)N[l] : 1;
		uint64_t *obj = mbar_object(R, w, in, pc, l, &off), token;
		if (!obj)
			return MBR_STOP;
		switch (in->aux) {
		case MB_INIT:
			if (n < 1 || n > MBAR_COUNT_MAX) {
				ptx_set_error(R, w, pc, "lane %u: mbarrier.init with count %u (1..2^20-1)", l, n);
				return MBR_STOP;
			}
			*obj = mbar_make(0, n, n, 0);
			R->mbar_changes++;
			break;
		case MB_INVAL:
			*obj = 0;
			R->mbar_changes++;
			break;
		case MB_EXPECT_TX:
		case MB_COMPLETE_TX:
			if (n > MBAR_COUNT_MAX) {
				ptx_set_error(R, w, pc, "lane %u: tx-count %u (0..2^20-1)", l, n);
				return MBR_STOP;
			}
			if (!mbar_update(R, w, pc, l, off, obj, in, 0,
					 in->aux == MB_EXPECT_TX ? (int64_t)n : -(int64_t)n, 0, NULL))
				return MBR_STOP;
			break;
		case MB_ARRIVE:
		case MB_ARRIVE_DROP: {
			bool expect = in->aux2 & MBF_EXPECT_TX;
			uint32_t count = expect ? 1 : n;
			if (count < 1 || count > MBAR_COUNT_MAX || (expect && n > MBAR_COUNT_MAX)) {
				ptx_set_error(R, w, pc, "lane %u: mbarrier arrive with %s %u (%s)", l,
					  expect ? "tx-count" : "count", n, expect ? "0..2^20-1" : "1..2^20-1");
				return MBR_STOP;
			}
			if (!mbar_update(R, w, pc, l, off, obj, in, count, expect ? (int64_t)n : 0,
					 in->aux == MB_ARRIVE_DROP ? count : 0, &token))
				return MBR_STOP;
			if (D)
				D[l] = token;
			break;
		}
		case MB_CP_BULK:
			if (!bulk_copy(R, w, in, pc, l, n) ||
			    !mbar_update(R, w, pc, l, off, obj, in, 0, -(int64_t)n, 0, NULL))
				return MBR_STOP;
			break;
		case MB_CP_ASYNC_ARRIVE:
			/* the copies may land any time before the arrive-on: here; without
			 * .noinc the pending count rose by one first, so it nets zero */
			if (!async_land(R, w, 1u << l, -1))
				return MBR_STOP;
			if ((in->aux2 & MBF_NOINC) && !mbar_update(R, w, pc, l, off, obj, in, 1, 0, 0, NULL))
				return MBR_STOP;
			break;
		default: { /* MB_TEST_WAIT, MB_TRY_WAIT */
			uint64_t v = *obj;
			uint64_t parity = (in->aux2 & MBF_PARITY) ? (N[l] & 1) : N[l] >> 63;
			bool seen = w->mbar_pending_wait && w->mbar_seen && w->mbar_at == off &&
				    w->mbar_parity == parity;
			if (!seen && !(v & MBAR_VALID)) {
				ptx_set_error(R, w, pc, "lane %u: wait on the mbarrier at shared offset 0x%x, "
					  "which is not initialized (mbarrier.init)", l, off);
				return MBR_STOP;
			}
			bool done = seen || (v >> 63) != parity;
			set_pred_lane(pr, in->o[0], l, done);
			if (!done) {
				if (!incomplete) {
					w->mbar_at = off;
					w->mbar_parity = (uint8_t)parity;
					w->mbar_seen = false;
					w->mbar_pending_wait = true;
				}
				incomplete |= 1u << l;
			}
		}
		}
	}
	if (!incomplete && (in->aux == MB_TEST_WAIT || in->aux == MB_TRY_WAIT))
		w->mbar_pending_wait = w->mbar_seen = false;
	return incomplete ? MBR_WAIT : MBR_DONE;
}

/* getctarank and mapa in the implicit cluster of one CTA: an address of the
 * CTA's own shared memory (a .shared::cluster one is the CTA's offset, a
 * generic one lies in its window) is in rank 0, and mapa to rank 0 returns it.
 * Another address or rank names a CTA the cluster does not have (undefined in
 * PTX): the grid stops there. */
static bool cluster_addr(run *R, warp *w, uint32_t pc, const ptx_ins *in, uint32_t m,
			 const uint64_t *A, const uint64_t *B, uint64_t *D)
{
	bool cluster = in->aux2 == 1;
	FOR_LANES(m, {
		uint64_t va = in->t2 == T_U32 ? (uint32_t)A[l] : A[l];
		bool own = cluster ? va < R->shared_size : in_space(R, SP_SHARED, va);
		if (!own) {
			ptx_set_error(R, w, pc, "lane %u: %s of %s address 0x%" PRIx64 ", which is not in "
				  "the shared memory of the CTA's cluster (a launch without clusters: "
				  "one CTA each)", l, in->aux == CL_RANK ? "getctarank" : "mapa",
				  cluster ? "shared::cluster" : "generic", va);
			return false;
		}
		if (B && (uint32_t)B[l] != 0) {
			ptx_set_error(R, w, pc, "lane %u: mapa to CTA rank %u; the cluster has 1 CTA (a launch "
				  "without clusters)", l, (uint32_t)B[l]);
			return false;
		}
		D[l] = in->aux == CL_RANK ? 0 : va;
	});
	return true;
}

PTX_CLONE_AVX2 static int warp_run(run *R, warp *w)
{
	const cs_ptx_program *p = R->p;
	const ptx_ins *code = p->code;
	uint64_t *r = w->r;
	uint32_t *pr = w->pr;
	uint64_t ti = 0;
	w->mbar_wait = false;
	if (!settle(w)) {
		w->state = W_DONE;
		return W_DONE;
	}
	sentry *top = &w->stk[w->sp - 1];
	uint32_t pc = top->pc, mask = top->mask, rpc = top->rpc;
	uint32_t npop = lane_count(mask);

#define RELOAD()                                                   \
	do {                                                       \
		if (!settle(w))                                    \
			goto done;                                 \
		top = &w->stk[w->sp - 1];                          \
		pc = top->pc;                                      \
		mask = top->mask;                                  \
		rpc = top->rpc;                                    \
		npop = lane_count(mask);                      \
		if (pc == PTX_NONE)                                \
			goto lost;                                 \
	} while (0)

/* A cooperative launch: the warp lets every other warp of the grid run once
 * before it polls (the instruction, not yet counted, runs when it resumes). */
#define SPIN_TURN()                                                \
	do {                                                       \
		if ((in->flags & F_SPIN) && R->cooperative) {      \
			if (!w->spun) {                            \
				w->spun = true;                    \
				top->pc = pc;                      \
				R->tinstr += ti - npop;            \
				w->clock += ti - npop;             \
				return W_READY;                    \
			}                                          \
			w->spun = false;                           \
		}                                                  \
	} while (0)

	for (;;) {
		const ptx_ins *in = &code[pc];
		uint32_t m = mask;
		ti += npop;
		if (in->guard != PTX_NONE)
			m &= (in->flags & F_GUARD_NEG) ? ~pr[in->guard] : pr[in->guard];
		/* operand rows, formed only where an instruction has the operand (an
		 * absent one is PTX_NONE and must not become a pointer) */
#define D PTX_REG(in->o[0])
#define A PTX_REG(in->o[1])
#define B PTX_REG(in->o[2])
#define C PTX_REG(in->o[3])
/* D = expr_ of the f32 (f64) values a_ (A) and b_ (B) in each lane of m, a NaN
 * made canonical */
#define F32_LANES(expr_)                                                           \
	FOR_LANES(m, {                                                             \
		const float a_ = ptx_f32(A[l]), b_ = ptx_f32(B[l]);                \
		D[l] = ptx_canon32(expr_);                                         \
	})
#define F64_LANES(expr_)                                                           \
	FOR_LANES(m, {                                                             \
		const double a_ = ptx_f64(A[l]), b_ = ptx_f64(B[l]);               \
		D[l] = ptx_canon64(expr_);                                         \
	})
/* D = expr_ of a_ (A) and b_ (B) in each lane of m; a constant b read once */
#define LANES_AB(expr_)                                                            \
	do {                                                                       \
		if (slot_is_uniform(p, in->o[2])) {                                \
			const uint64_t b_ = B[0];                                  \
			FOR_LANES(m, {                                             \
				const uint64_t a_ = A[l];                          \
				D[l] = (expr_);                                    \
			});                                                        \
		} else {                                                           \
			FOR_LANES(m, {                                             \
				const uint64_t a_ = A[l], b_ = B[l];               \
				D[l] = (expr_);                                    \
			});                                                        \
		}                                                                  \
	} while (0)
		switch ((ptx_op)in->op) {
		/* no operands; membar/fence too: each access takes effect as it runs */
		case OP_NOP:
		case OP_MEMBAR:
			break;
		/* d (o0) = a (o1), the whole slot */
		case OP_MOV:
			FOR_LANES(m, D[l] = A[l]);
			break;
		/* pd (o0) = pa (o1), !pa with F_NEG_C; o1 PTX_NONE: the constant (0/1) in aux */
		case OP_MOV_PRED: {
			uint32_t v = in->o[1] == PTX_NONE ? (in->aux ? PTX_FULL : 0) : pr[in->o[1]];
			if (in->flags & F_NEG_C)
				v = ~v;
			pr[in->o[0]] = (pr[in->o[0]] & ~m) | (v & m);
			break;
		}
		/* d = {o1..o[aux]}, elements o5 bytes wide, the first in the low bits */
		case OP_PACK: {
			unsigned eb = in->o[5] * 8, n = in->aux;
			uint64_t em = eb >= 64 ? UINT64_MAX : ((uint64_t)1 << eb) - 1;
			FOR_LANES(m, {
				uint64_t v = 0;
				for (unsigned k = 0; k < n; k++)
					v |= (PTX_REG(in->o[1 + k])[l] & em) << (eb * k);
				D[l] = v;
			});
			break;
		}
		/* {o1..o[aux]} = o0, elements o5 bytes wide from the low bits; PTX_NONE (_) skipped */
		case OP_UNPACK: {
			unsigned eb = in->o[5] * 8, n = in->aux;
			uint64_t em = eb >= 64 ? UINT64_MAX : ((uint64_t)1 << eb) - 1;
			const uint64_t *S = PTX_REG(in->o[0]);
			FOR_LANES(m, {
				uint64_t v = S[l];
				for (unsigned k = 0; k < n; k++)
					if (in->o[1 + k] != PTX_NONE)
						PTX_REG(in->o[1 + k])[l] = (v >> (eb * k)) & em;
			});
			break;
		}
		/* d = the warp's thread-instructions (aux 0 %clock, low 32 bits; 1 %clock64); 2 %globaltimer */
		case OP_CLOCK: {
			uint64_t now = w->clock + ti;
			if (in->aux == 2)
				now = (R->bus->now_ns ? *R->bus->now_ns : 0) + R->tinstr + ti;
			if (in->aux == 0)
				now &= 0xffffffffu;
			FOR_LANES(m, D[l] = now);
			break;
		}
		/* ---- integer fast paths ---- */
		/* 32-bit results as the low half of 64-bit arithmetic: the lanes stay
		 * 64 bits wide, which vectorizes without narrowing and widening */
		/* d (o0) = a (o1) op b (o2); a .32 op keeps the low 32 bits, .wide the 64-bit product */
		case OP_ADD32: LANES_AB((a_ + b_) & PTX_LOW32); break;
		case OP_ADD64: LANES_AB(a_ + b_); break;
		case OP_SUB32: LANES_AB((a_ - b_) & PTX_LOW32); break;
		case OP_SUB64: LANES_AB(a_ - b_); break;
		case OP_MULLO32: LANES_AB((uint32_t)((uint32_t)a_ * (uint32_t)b_)); break;
		case OP_MULLO64: LANES_AB(a_ * b_); break;
		case OP_MULWIDE_S32: LANES_AB((uint64_t)((int64_t)(int32_t)a_ * (int64_t)(int32_t)b_)); break;
		case OP_MULWIDE_U32: LANES_AB((uint64_t)(uint32_t)a_ * (uint32_t)b_); break;
		/* d = a * b + c (o3): .lo the low bits of the product, .wide the 64-bit one */
		case OP_MADLO32:
			FOR_LANES(m, D[l] = (uint32_t)((uint32_t)A[l] * (uint32_t)B[l] + (uint32_t)C[l]));
			break;
		case OP_MADLO64: FOR_LANES(m, D[l] = A[l] * B[l] + C[l]); break;
		case OP_MADWIDE_S32:
			FOR_LANES(m, D[l] = (uint64_t)((int64_t)(int32_t)A[l] * (int64_t)(int32_t)B[l]) + C[l]);
			break;
		case OP_MADWIDE_U32:
			FOR_LANES(m, D[l] = (uint64_t)(uint32_t)A[l] * (uint32_t)B[l] + C[l]);
			break;
		/* d = a shifted by b's low 32 bits; by the width or more: 0, or the sign (shr.s) */
		case OP_SHL32: LANES_AB((uint32_t)b_ >= 32 ? 0 : (uint32_t)((uint32_t)a_ << (uint32_t)b_)); break;
		case OP_SHL64: LANES_AB((uint32_t)b_ >= 64 ? 0 : a_ << (uint32_t)b_); break;
		case OP_SHR_U32: LANES_AB((uint32_t)b_ >= 32 ? 0 : (uint32_t)a_ >> (uint32_t)b_); break;
		case OP_SHR_S32:
			LANES_AB((uint32_t)((int32_t)(uint32_t)a_ >> ((uint32_t)b_ >= 32 ? 31 : (uint32_t)b_)));
			break;
		case OP_SHR_U64: LANES_AB((uint32_t)b_ >= 64 ? 0 : a_ >> (uint32_t)b_); break;
		case OP_SHR_S64:
			LANES_AB((uint64_t)((int64_t)a_ >> ((uint32_t)b_ >= 64 ? 63 : (uint32_t)b_)));
			break;
		/* d = a and / or / xor b, bitwise */
		case OP_AND32: LANES_AB(a_ & b_ & PTX_LOW32); break;
		case OP_OR32: LANES_AB((a_ | b_) & PTX_LOW32); break;
		case OP_XOR32: LANES_AB((a_ ^ b_) & PTX_LOW32); break;
		case OP_AND64: LANES_AB(a_ & b_); break;
		case OP_OR64: LANES_AB(a_ | b_); break;
		case OP_XOR64: LANES_AB(a_ ^ b_); break;
		/* d = integer sub-op aux (IO_*) of a, b, c, e (o4) in type t1, PTX_NONE operands 0 */
		case OP_INT: {
			const uint64_t *E = in->o[4] != PTX_NONE ? PTX_REG(in->o[4]) : NULL;
			const uint64_t *Bv = in->o[2] != PTX_NONE ? B : NULL;
			const uint64_t *Cv = in->o[3] != PTX_NONE ? C : NULL;
			FOR_LANES(m, D[l] = ptx_alu_int(in, A[l], Bv ? Bv[l] : 0, Cv ? Cv[l] : 0,
							E ? E[l] : 0));
			break;
		}
		/* pd = pa and / or / xor pb (aux 0 / 1 / 2), or not pa (aux 3; F_NEG_A: of !pa) */
		case OP_PRED_LOGIC: {
			uint32_t a = pr[in->o[1]], v;
			if (in->aux == 3) {
				v = (in->flags & F_NEG_A) ? a : ~a;
			} else {
				uint32_t b = pr[in->o[2]];
				v = in->aux == 0 ? (a & b) : in->aux == 1 ? (a | b) : (a ^ b);
			}
			pr[in->o[0]] = (pr[in->o[0]] & ~m) | (v & m);
			break;
		}
		/* ---- float fast paths (round to nearest, no ftz/sat) ---- */
		/* d = a op b (op c) in f32 or f64, a NaN result canonical */
		case OP_ADD_F32: F32_LANES(a_ + b_); break;
		case OP_SUB_F32: F32_LANES(a_ - b_); break;
		case OP_MUL_F32: F32_LANES(a_ * b_); break;
		case OP_FMA_F32:
			fma_f32_lanes(R, m, D, A, B, C);
			break;
		case OP_ADD_F64: F64_LANES(a_ + b_); break;
		case OP_SUB_F64: F64_LANES(a_ - b_); break;
		case OP_MUL_F64: F64_LANES(a_ * b_); break;
		case OP_FMA_F64: F64_LANES(fma(a_, b_, ptx_f64(C[l]))); break;
		/* d = float sub-op aux (FO_*) of a, b, c in t1, a rounded one's rounding aux2; testp: pd */
		case OP_FLT: {
			int mode = ptx_alu_fenv_mode(in);
			int saved = mode >= 0 ? fegetround() : 0;
			if (mode >= 0)
				fesetround(mode);
			if (in->aux == FO_TESTP) {
				uint32_t v = 0;
				FOR_LANES(m, v |= (uint32_t)ptx_alu_flt(in, A[l], 0, 0) << l);
				pr[in->o[0]] = (pr[in->o[0]] & ~m) | (v & m);
			} else {
				const uint64_t *Bv = in->o[2] != PTX_NONE ? B : NULL;
				const uint64_t *Cv = in->o[3] != PTX_NONE ? C : NULL;
				if (R->approx_max && ptx_alu_is_approx(in))
					FOR_LANES(m, D[l] = ptx_alu_approx_edge(in, A[l], Bv ? Bv[l] : 0));
				else
					FOR_LANES(m, D[l] = ptx_alu_flt(in, A[l], Bv ? Bv[l] : 0,
									Cv ? Cv[l] : 0));
			}
			if (mode >= 0)
				fesetround(saved);
			break;
		}
		/* ---- compare and select ---- */
		/* pd (o0) [| pq: F_HI, o4] = cmp aux of a, b in t2 [bop aux2 with pc (o3): F_HAS_C] */
		case OP_SETP: {
			uint32_t v = 0;
			ptx_type t = (ptx_type)in->t2;
			bool ftz = in->flags & F_FTZ;
			int cmp = in->aux;
			if ((t == T_S32 || t == T_U32) && cmp <= CMP_GE) {
				/* every lane (the result is masked below), 4 lanes to a vector:
				 * their slots as 8 32-bit halves compared at once, each low
				 * half's all-ones result picking its lane's mask bit (a high
				 * half's bit is 0); one loop per operator and signedness, so
				 * that each stays in vector registers */
#define SETP32(op_, vec_)                                                                   \
	do {                                                                                \
		static const lane8u bit0 = { 1, 0, 2, 0, 4, 0, 8, 0 };                        \
		lane8u acc = { 0 };                                                         \
		for (unsigned g = 0; g < PTX_WARP; g += 4) {                                \
			vec_ a, b;                                                          \
			memcpy(&a, A + g, sizeof(a));                                       \
			memcpy(&b, B + g, sizeof(b));                                       \
			acc |= (lane8u)(a op_ b) & (bit0 << g);                             \
		}                                                                           \
		lane4i q = (lane4i)acc;                                                     \
		v = (uint32_t)(q[0] | q[1] | q[2] | q[3]);                                  \
	} while (0)
#define SETP32_OPS(vec_)                                                                    \
	switch (cmp) {                                                                      \
	case CMP_EQ: SETP32(==, vec_); break;                                               \
	case CMP_NE: SETP32(!=, vec_); break;                                               \
	case CMP_LT: SETP32(<, vec_); break;                                                \
	case CMP_LE: SETP32(<=, vec_); break;                                               \
	case CMP_GT: SETP32(>, vec_); break;                                                \
	default: SETP32(>=, vec_); break;                                                   \
	}
				if (t == T_S32)
					SETP32_OPS(lane8i)
				else
					SETP32_OPS(lane8u)
#undef SETP32_OPS
#undef SETP32
			} else {
				FOR_LANES(m, v |= (uint32_t)ptx_alu_cmp(cmp, t, ftz, A[l], B[l]) << l);
			}
			uint32_t q = ~v;
			if (in->flags & F_HAS_C) {
				uint32_t c = pr[in->o[3]];
				if (in->flags & F_NEG_C)
					c = ~c;
				switch (in->aux2) {
				case 0: v &= c; q &= c; break;
				case 1: v |= c; q |= c; break;
				default: v ^= c; q ^= c; break;
				}
			}
			pr[in->o[0]] = (pr[in->o[0]] & ~m) | (v & m);
			if (in->o[4] != PTX_NONE)
				pr[in->o[4]] = (pr[in->o[4]] & ~m) | (q & m);
			break;
		}
		/* d = cmp aux of a, b in t2 [bop aux2 with pc: F_HAS_C] ? 1.0f (t1 f32) or all ones : 0 */
		case OP_SET: {
			ptx_type t = (ptx_type)in->t2;
			bool ftz = in->flags & F_FTZ;
			bool fdst = in->t1 == T_F32;
			FOR_LANES(m, {
				bool c = ptx_alu_cmp(in->aux, t, ftz, A[l], B[l]);
				if (in->flags & F_HAS_C) {
					bool pc_ = (pr[in->o[3]] >> l) & 1;
					if (in->flags & F_NEG_C)
						pc_ = !pc_;
					c = in->aux2 == 0 ? (c && pc_) : in->aux2 == 1 ? (c || pc_) : (c != pc_);
				}
				D[l] = fdst ? (c ? 0x3f800000u : 0) : (c ? 0xffffffffu : 0);
			});
			break;
		}
		/* d = pc (o3, !pc with F_NEG_C) ? a : b */
		case OP_SELP: {
			uint32_t c = pr[in->o[3]];
			if (in->flags & F_NEG_C)
				c = ~c;
			FOR_LANES(m, D[l] = ((c >> l) & 1) ? A[l] : B[l]);
			break;
		}
		/* d = c (o3, f32 or s32 by t2) < 0 ? b : a */
		case OP_SLCT:
			FOR_LANES(m, {
				bool ge = in->t2 == T_F32 ? !(ptx_f32(C[l]) < 0.0f) : (int32_t)(uint32_t)C[l] >= 0;
				D[l] = ge ? A[l] : B[l];
			});
			break;
		/* d = a from type t2 to t1 (rounding aux2, F_SAT, F_FTZ); to f16x2/bf16x2: {a, b (o2)} */
		case OP_CVT: {
			/* directed rounding is done in ptx_alu_cvt itself */
			if ((in->t1 == T_F16X2 || in->t1 == T_BF16X2) && in->o[2] != PTX_NONE) {
				ptx_ins h = *in;
				h.t1 = in->t1 == T_F16X2 ? T_F16 : T_BF16;
				FOR_LANES(m, D[l] = (ptx_alu_cvt(&h, A[l]) << 16) | ptx_alu_cvt(&h, B[l]));
			} else if (in->t1 == T_U64 && (in->t2 == T_U32 || in->t2 == T_B32)) {
				FOR_LANES(m, D[l] = (uint32_t)A[l]);
			} else if (in->t1 == T_S64 && in->t2 == T_S32) {
				FOR_LANES(m, D[l] = (uint64_t)(int64_t)(int32_t)(uint32_t)A[l]);
			} else {
				FOR_LANES(m, D[l] = ptx_alu_cvt(in, A[l]));
			}
			break;
		}
		/* d = a from space aux to generic, or back with F_TO; a 32-bit t1 keeps the low bits */
		case OP_CVTA: {
			uint64_t win = in->aux == SP_SHARED ? R->shwin : in->aux == SP_LOCAL ? R->lwin
				     : in->aux == SP_KPARAM ? CS_PTX_PARAM_WINDOW : 0;
			bool to = in->flags & F_TO;
			bool narrow = in->t1 == T_U32 || in->t1 == T_B32;
			FOR_LANES(m, {
				uint64_t v = to ? A[l] - win : A[l] + (narrow ? (uint32_t)win : win);
				D[l] = narrow ? (uint32_t)v : v;
			});
			break;
		}
		/* ---- memory ---- */
		/* a fused run's head (ptx_int.h): o5 triples at once for a full warp, else an ld.shared */
		case OP_LD_SHARED_FMA: {
			uint32_t n = in->o[5];
			if (R->race_on) {
				for (uint32_t t = 0; t < 2 * n; t++) {
					const ptx_ins *ld = in + t + t / 2;
					if (!ptx_race_check(R, w, ld, pc + (uint32_t)(ld - in), m, false))
						goto stop;
				}
			}
			/* the whole run at once for a full warp whose loads are all in
			 * bounds; otherwise the head runs as the plain load it is */
			if (m == PTX_FULL && shared_fma_run(R, r, in)) {
				ti += (3 * n - 1) * npop;
				pc += 3 * n - 1; /* and the loop's pc++ passes the last fma */
				break;
			}
		}
			/* fall through */
		/* {o1..o[aux2]} = [o0 + imm] in space aux, type t1; F_SPIN: a cooperative warp yields */
		case OP_LD: {
			SPIN_TURN();
			if (R->race_on && !ptx_race_check(R, w, in, pc, m, false))
				goto stop;
			ptx_type t = (ptx_type)in->t1;
			unsigned esz = ptx_type_bytes(t), vec = in->aux2, sz = esz * vec;
			int space = in->aux;
			uint64_t off = (uint64_t)in->imm;
			const uint64_t *Bs = PTX_REG(in->o[0]);
			if (vec == 1 && esz == 4 && space == SP_SHARED &&
			    shared_lanes_ok(m, Bs, (uint32_t)off, (uint32_t)R->shared_size)) {
				/* checked every lane first, so load without per-lane branches;
				 * any bad lane takes the general path, which names the fault */
				load_shared_lanes(m, PTX_REG(in->o[1]), Bs, (uint32_t)off, R->shared);
				break;
			}
			if (vec == 1 && esz == 4 && space == SP_GLOBAL && m == PTX_FULL) {
				/* coalesced: every lane in one page, aligned: translate once */
				uint64_t va0 = Bs[0] + off;
				uint8_t tmp[32];
				bool port = false;
				const uint8_t *q0 = lanes_in_one_page(Bs, off)
					? xlate(R, w, space, va0, 4, 0, pc, CS_ACCESS_READ, tmp, &port) : NULL;
				if (q0 && !port) {
					load_page_lanes(PTX_REG(in->o[1]), Bs, off, q0 - (va0 & (CS_PAGE_SIZE - 1)));
					break;
				}
				if (R->status != R_OK)
					goto fault;
			}
			if (vec == 1 && esz == 4 && space <= SP_SHARED) {
				uint64_t *Dd = PTX_REG(in->o[1]);
				uint64_t am = space == SP_SHARED ? 0xffffffffu : UINT64_MAX;
				FOR_LANES(m, {
					uint64_t va = (Bs[l] + off) & am;
					uint8_t tmp[32];
					bool port = false;
					const uint8_t *q = xlate(R, w, space, va, 4, l, pc, CS_ACCESS_READ, tmp, &port);
					if (!q)
						goto fault;
					uint32_t v;
					memcpy(&v, q, 4);
					Dd[l] = v;
				});
				break;
			}
			if (space == SP_KPARAM && slot_is_uniform(p, in->o[0]) &&
			    Bs[0] + off <= R->param_bytes && sz <= R->param_bytes - (Bs[0] + off) &&
			    !((Bs[0] + off) & (esz - 1))) {
				/* the usual ld.param [name]: one address for every lane, so
				 * one load per element */
				const uint8_t *q = R->params + Bs[0] + off;
				for (unsigned k = 0; k < vec; k++) {
					if (in->o[1 + k] == PTX_NONE)
						continue;
					uint64_t v = load_elem(q + k * esz, t, esz);
					uint64_t *Dk = PTX_REG(in->o[1 + k]);
					FOR_LANES(m, Dk[l] = v);
				}
				break;
			}
			if (space == SP_KPARAM) {
				/* kernel parameters: a read-only block, no translation */
				FOR_LANES(m, {
					uint64_t va = Bs[l] + off;
					if (va > R->param_bytes || sz > R->param_bytes - va ||
					    (va & (esz - 1))) {
						uint8_t tmp[32];
						bool port = false;
						xlate_slow(R, w, space, va, sz, l, pc, CS_ACCESS_READ, tmp, &port);
						goto fault;
					}
					for (unsigned k = 0; k < vec; k++)
						if (in->o[1 + k] != PTX_NONE)
							PTX_REG(in->o[1 + k])[l] = load_elem(R->params + va + k * esz, t, esz);
				});
				break;
			}
			FOR_LANES(m, {
				uint64_t va = Bs[l] + off;
				if (space == SP_SHARED)
					va = (uint32_t)va;
				uint8_t tmp[32];
				bool port = false;
				const uint8_t *q = xlate(R, w, space, va, sz, l, pc, CS_ACCESS_READ, tmp, &port);
				if (!q)
					goto fault;
				for (unsigned k = 0; k < vec; k++)
					if (in->o[1 + k] != PTX_NONE)
						PTX_REG(in->o[1 + k])[l] = load_elem(q + k * esz, t, esz);
			});
			break;
		}
		/* [o0 + imm] in space aux = {o1..o[aux2]}, type t1 */
		case OP_ST: {
			if (R->race_on && !ptx_race_check(R, w, in, pc, m, true))
				goto stop;
			ptx_type t = (ptx_type)in->t1;
			unsigned esz = ptx_type_bytes(t), vec = in->aux2, sz = esz * vec;
			int space = in->aux;
			uint64_t off = (uint64_t)in->imm;
			const uint64_t *Bs = PTX_REG(in->o[0]);
			if (vec == 1 && esz == 4 && space == SP_SHARED) {
				const uint64_t *S = PTX_REG(in->o[1]);
				uint8_t *sh = R->shared;
				if (shared_lanes_ok(m, Bs, (uint32_t)off, (uint32_t)R->shared_size)) {
					if (m == PTX_FULL) {
						store_shared_warp(sh, Bs, (uint32_t)off, S);
						break;
					}
					FOR_LANES(m, {
						uint32_t v = (uint32_t)S[l];
						memcpy(sh + (uint32_t)(Bs[l] + off), &v, 4);
					});
					break;
				}
			}
			if (vec == 1 && esz == 4 && space == SP_GLOBAL && m == PTX_FULL) {
				uint64_t va0 = Bs[0] + off;
				uint8_t tmp[32];
				bool port = false;
				uint8_t *q0 = lanes_in_one_page(Bs, off)
					? xlate(R, w, space, va0, 4, 0, pc, CS_ACCESS_WRITE, tmp, &port) : NULL;
				if (q0 && !port) {
					uint8_t *pg = q0 - (va0 & (CS_PAGE_SIZE - 1));
					const uint64_t *S = PTX_REG(in->o[1]);
					for (unsigned l = 0; l < PTX_WARP; l++) {
						uint32_t v = (uint32_t)S[l];
						memcpy(pg + ((Bs[l] + off) & (CS_PAGE_SIZE - 1)), &v, 4);
					}
					break;
				}
				if (R->status != R_OK)
					goto fault;
			}
			if (vec == 1 && esz == 4 && space <= SP_SHARED) {
				const uint64_t *S = PTX_REG(in->o[1]);
				uint64_t am = space == SP_SHARED ? 0xffffffffu : UINT64_MAX;
				FOR_LANES(m, {
					uint64_t va = (Bs[l] + off) & am;
					uint8_t tmp[32];
					bool port = false;
					uint8_t *q = xlate(R, w, space, va, 4, l, pc, CS_ACCESS_WRITE, tmp, &port);
					if (!q)
						goto fault;
					uint32_t v = (uint32_t)S[l];
					memcpy(q, &v, 4);
					if (port && !port_write(R, w, l, pc, va, q, 4, CS_ACCESS_WRITE))
						goto fault;
				});
				break;
			}
			FOR_LANES(m, {
				uint64_t va = Bs[l] + off;
				if (space == SP_SHARED)
					va = (uint32_t)va;
				uint8_t tmp[32];
				bool port = false;
				uint8_t *q = xlate(R, w, space, va, sz, l, pc, CS_ACCESS_WRITE, tmp, &port);
				if (!q)
					goto fault;
				for (unsigned k = 0; k < vec; k++) {
					uint64_t v = PTX_REG(in->o[1 + k])[l];
					memcpy(q + k * esz, &v, esz);
				}
				if (port && !port_write(R, w, l, pc, va, q, sz, CS_ACCESS_WRITE))
					goto fault;
			});
			break;
		}
		/* d (o1; red: none) = old [o0 + imm] in space aux, made op aux2 of it and b (o2; cas c o3) */
		case OP_ATOM:
		case OP_RED: {
			SPIN_TURN();
			ptx_type t = (ptx_type)in->t1;
			unsigned esz = ptx_type_bytes(t);
			int space = in->aux;
			uint64_t off = (uint64_t)in->imm;
			const uint64_t *Bs = PTX_REG(in->o[0]);
			const uint64_t *V = PTX_REG(in->o[2]);
			const uint64_t *V2 = in->o[3] != PTX_NONE ? PTX_REG(in->o[3]) : NULL;
			uint64_t *Dd = in->o[1] != PTX_NONE ? PTX_REG(in->o[1]) : NULL;
			bool sgn = ptx_type_signed(t);
			/* half and packed-half add/min/max: the float op of their type,
			 * rounded to nearest, subnormals kept (.noftz) */
			bool half = t == T_F16 || t == T_BF16 || t == T_F16X2 || t == T_BF16X2;
			ptx_ins half_op = { .op = OP_FLT, .t1 = (uint8_t)t, .aux2 = RND_RN,
					    .aux = in->aux2 == AO_MIN ? FO_MIN
						   : in->aux2 == AO_MAX ? FO_MAX : FO_ADD };
			uint64_t vmask = esz == 8 ? UINT64_MAX : ((uint64_t)1 << (esz * 8)) - 1;
			bool held = m && space != SP_SHARED;
			if (held)
				atomics_begin(R, pc);
			FOR_LANES(m, {
				uint64_t va = Bs[l] + off;
				if (space == SP_SHARED)
					va = (uint32_t)va;
				uint8_t tmp[32];
				bool port = false;
				uint8_t *q = xlate(R, w, space, va, esz, l, pc, CS_ACCESS_ATOMIC, tmp, &port);
				if (!q) {
					atomics_end(R, held);
					goto fault;
				}
				uint64_t old = load_elem(q, t, esz) & vmask, v = V[l] & vmask, nv;
				if (half) {
					nv = ptx_alu_flt(&half_op, old, v, 0);
				} else switch (in->aux2) {
				case AO_ADD:
					if (t == T_F32)
						nv = ptx_bits32(ptx_f32(old) + ptx_f32(v));
					else if (t == T_F64)
						nv = ptx_bits64(ptx_f64(old) + ptx_f64(v));
					else
						nv = old + v;
					break;
				case AO_MIN:
					if (sgn)
						nv = esz == 4 ? ((int32_t)old < (int32_t)v ? old : v)
							      : ((int64_t)old < (int64_t)v ? old : v);
					else
						nv = old < v ? old : v;
					break;
				case AO_MAX:
					if (sgn)
						nv = esz == 4 ? ((int32_t)old > (int32_t)v ? old : v)
							      : ((int64_t)old > (int64_t)v ? old : v);
					else
						nv = old > v ? old : v;
					break;
				case AO_INC: nv = (uint32_t)old >= (uint32_t)v ? 0 : old + 1; break;
				case AO_DEC:
					nv = ((uint32_t)old == 0 || (uint32_t)old > (uint32_t)v) ? v : old - 1;
					break;
				case AO_CAS: /* compare with b (o[2]), swap in c (o[3]) */
					nv = old == v ? V2[l] & vmask : old;
					break;
				case AO_EXCH: nv = v; break;
				case AO_AND: nv = old & v; break;
				case AO_OR: nv = old | v; break;
				default: nv = old ^ v; break;
				}
				memcpy(q, &nv, esz);
				if (port && !port_write(R, w, l, pc, va, q, esz, CS_ACCESS_ATOMIC)) {
					atomics_end(R, held);
					goto fault;
				}
				if (Dd)
					Dd[l] = old;
			});
			atomics_end(R, held);
			break;
		}
		/* d = a op b [c] (aux CA_*) with carry flag o4: F_CARRY_IN adds it, F_CARRY_OUT sets it */
		case OP_CARRY: {
			uint32_t cf = pr[in->o[4]], out = 0;
			const uint64_t *Cv = in->o[3] != PTX_NONE ? C : NULL;
			bool cin = in->flags & F_CARRY_IN;
			FOR_LANES(m, {
				unsigned co;
				D[l] = ptx_alu_carry(in, A[l], B[l], Cv ? Cv[l] : 0,
						     cin ? (cf >> l) & 1 : 0, &co);
				out |= (uint32_t)co << l;
			});
			if (in->flags & F_CARRY_OUT)
				pr[in->o[4]] = (cf & ~m) | (out & m);
			break;
		}
		/* pd = generic address a lies in space aux */
		case OP_ISSPACEP: {
			uint32_t v = 0;
			FOR_LANES(m, v |= (uint32_t)in_space(R, in->aux, A[l]) << l);
			pr[in->o[0]] = (pr[in->o[0]] & ~m) | (v & m);
			break;
		}
		/* d = getctarank (aux CL_RANK) or mapa to rank b (CL_MAPA) of a in a 1-CTA cluster */
		case OP_CLUSTER_ADDR:
			if (!cluster_addr(R, w, pc, in, m, A, in->o[2] != PTX_NONE ? B : NULL, D))
				goto stop;
			break;
		/* ---- warp ---- */
		/* shfl, vote, match, redux, bar.warp.sync, elect (warp_sync); F_MEMBER_MASK: o5 members */
		case OP_SHFL:
		case OP_VOTE:
		case OP_MATCH:
		case OP_REDUX:
		case OP_WARPSYNC:
		case OP_ELECT: {
			top->pc = pc;
			int ws = warp_sync(R, w, pc, m);
			if (ws == WS_STOP)
				goto stop;
			if (ws == WS_YIELD) {
				RELOAD();
				continue;
			}
			break;
		}
		/* shared [o0 + imm] <- global [o1 + const o3], aux bytes, o2 the source size (rest zero) */
		case OP_CP_ASYNC: {
			const uint64_t *Ds = PTX_REG(in->o[0]), *Ss = PTX_REG(in->o[1]);
			const uint64_t *N = in->o[2] != PTX_NONE ? PTX_REG(in->o[2]) : NULL;
			uint64_t soff = PTX_REG(in->o[3])[0];
			unsigned size = in->aux;
			FOR_LANES(m, {
				uint64_t dva = (uint32_t)(Ds[l] + (uint64_t)in->imm), sva = Ss[l] + soff;
				unsigned from_src = N && (uint32_t)N[l] < size ? (uint32_t)N[l] : size;
				uint8_t buf[16] = { 0 }, tmp[32];
				bool port = false;
				if (from_src) {
					const uint8_t *q = xlate(R, w, SP_GLOBAL, sva, from_src, l, pc,
								 CS_ACCESS_READ, tmp, &port);
					if (!q)
						goto fault;
					memcpy(buf, q, from_src);
				}
				if (R->race_on && !ptx_race_check_bytes(R, w, l, pc, SP_GLOBAL, sva, from_src, false))
					goto stop;
				/* the destination is checked now; the bytes land at the wait */
				if (!xlate(R, w, SP_SHARED, dva, size, l, pc, CS_ACCESS_WRITE, tmp, &port))
					goto fault;
				if (!async_issue(R, w, pc, l, (uint32_t)dva, buf, size))
					goto stop;
			});
			break;
		}
		/* aux CPG_COMMIT commits, CPG_WAIT waits till at most imm groups pend, CPG_WAIT_ALL both */
		case OP_CP_ASYNC_GROUP:
			if (in->aux != CPG_WAIT)
				FOR_LANES(m, w->groups[l]++); /* wait_all commits, then waits for all */
			if (in->aux != CPG_COMMIT && !async_land(R, w, m, in->aux == CPG_WAIT ? in->imm : 0))
				goto stop;
			break;
		/* mbarrier.* and cp.async.mbarrier.arrive (mbar_run): aux MB_*, aux2 MBF_*, space t2 */
		case OP_MBAR: {
			int mr = mbar_run(R, w, in, pc, m);
			if (mr == MBR_STOP)
				goto stop;
			if (mr == MBR_WAIT) {
				top->pc = pc + 1;
				R->tinstr += ti;
				w->clock += ti;
				w->mbar_wait = true;
				return W_READY;
			}
			break;
		}
		/* aux 8x8 matrices from the rows at [o0 + imm] into o1..; aux2 1: .trans; space t2 */
		case OP_LDMATRIX:
			if (!ldmatrix(R, w, in, pc, m))
				goto stop;
			break;
		/* mma.sync, wmma.mma: the fragment registers in p->mmas[imm] */
		case OP_MMA:
			if (!mma_run(R, w, pc, m, &p->mmas[in->imm]))
				goto stop;
			break;
		/* wmma.load / store: address o0 + off, stride o1 (PTX_NONE: the width), p->wmmas[imm] */
		case OP_WMMA_LDST:
			if (!wmma_ldst(R, w, in, pc, m, &p->wmmas[in->imm]))
				goto stop;
			break;
		/* d = f32 a rounded to tf32, rounding aux2 */
		case OP_CVT_TF32:
			FOR_LANES(m, D[l] = ptx_tf32_round((uint32_t)A[l], in->aux2));
			break;
		/* d = a (and b) to or from e4m3x2 / e5m2x2: form aux FP8_*, aux2 FP8_E5M2 | FP8_RELU */
		case OP_CVT_FP8: {
			/* the upper half of a pair is the upper byte, as cvt's f16x2 forms */
			bool e5 = in->aux2 & FP8_E5M2, relu = in->aux2 & FP8_RELU;
			if (in->aux == FP8_FROM_F32X2)
				FOR_LANES(m, D[l] = (uint64_t)ptx_f32_to_fp8(ptx_f32(A[l]), e5, relu) << 8 |
						    ptx_f32_to_fp8(ptx_f32(B[l]), e5, relu));
			else if (in->aux == FP8_FROM_F16X2)
				FOR_LANES(m, D[l] = (uint64_t)ptx_f32_to_fp8(ptx_half_to_float((uint16_t)(A[l] >> 16)), e5, relu) << 8 |
						    ptx_f32_to_fp8(ptx_half_to_float((uint16_t)A[l]), e5, relu));
			else
				FOR_LANES(m, D[l] = fp8_pair_to_f16x2((uint16_t)A[l], e5, relu));
			break;
		}
		/* d = the mask of the lanes that run it */
		case OP_ACTIVEMASK:
			FOR_LANES(m, D[l] = m);
			break;
		/* bar id o0 [count o1], aux 1 .arrive; bar.red: d o0, id o1 [count o2], pc o3, aux2 op */
		case OP_BAR:
		case OP_BAR_RED: {
			if (!m)
				break;
			if (in->op == OP_BAR && in->aux == 1) {
				/* bar.arrive: the warp's threads count toward the barrier, and
				 * the warp goes on without waiting */
				uint32_t id = (uint32_t)PTX_REG(in->o[0])[__builtin_ctz(m)];
				if (id >= NBAR) {
					ptx_set_error(R, w, pc, "barrier %u is out of range (0..15)", id);
					goto stop;
				}
				R->arrive[id] += lane_count(w->live);
				break;
			}
			/* bar.red's o[0] is its destination: the barrier is o[1]; the
			 * grid completes the reduction when the barrier opens */
			uint32_t id_slot = in->op == OP_BAR_RED ? in->o[1] : in->o[0];
			w->bar_id = (uint32_t)PTX_REG(id_slot)[__builtin_ctz(m)];
			top->pc = pc + 1;
			R->tinstr += ti;
			w->clock += ti;
			w->state = W_BARRIER;
			return W_BARRIER;
		}
		/* ---- control ---- */
		/* the lanes whose guard holds go to imm; when only some do, both sides meet again at o1 */
		case OP_BRA: {
			uint32_t tgt = (uint32_t)in->imm;
			uint32_t nt = mask & ~m;
			if (R->tinstr + ti > R->budget && budget_spent(R, w, pc, ti))
				goto stop;
			if (!nt) {
				pc = tgt;
			} else if (!m) {
				pc++;
			} else {
				uint32_t rc = in->o[1];
				if (rc == rpc) {
					/* both sides reconverge where the current entry does: split it */
					top->pc = pc + 1;
					top->mask = nt;
				} else {
					top->pc = rc;
					if (!push(R, w, pc + 1, rc, nt, PTX_NONE))
						goto stop;
				}
				if (!push(R, w, tgt, rc, m, PTX_NONE))
					goto stop;
				RELOAD();
				continue;
			}
			if (pc == rpc) {
				top->pc = pc;
				RELOAD();
			}
			continue;
		}
		/* call p->calls[imm]: args copied into the callee frame, a builtin run in place */
		case OP_CALL: {
			const ptx_callsite *cs = &p->calls[in->imm];
			if (!m)
				break;
			if (cs->builtin) {
				if (!run_builtin(R, w, pc, m, cs))
					goto stop;
				break;
			}
			copy_frame(R, w, m, cs->args, cs->nargs);
			top->pc = pc + 1;
			if (!push(R, w, p->funcs[cs->func].start, PTX_NONE, m, (uint32_t)in->imm))
				goto stop;
			RELOAD();
			continue;
		}
		/* the lanes leave the innermost call (their rets copied back) or, from the entry, end */
		case OP_RET: {
			if (!m)
				break;
			uint32_t fr = w->sp;
			while (fr > 0 && w->stk[fr - 1].call == PTX_NONE)
				fr--;
			if (fr == 0) {
				retire_lanes(R, w, m); /* ret from the entry: the thread ends */
			} else {
				const ptx_callsite *cs = &p->calls[w->stk[fr - 1].call];
				copy_frame(R, w, m, cs->rets, cs->nrets);
				for (uint32_t i = fr - 1; i < w->sp; i++)
					w->stk[i].mask &= ~m;
			}
			top->pc = pc + 1;
			RELOAD();
			continue;
		}
		/* the lanes end */
		case OP_EXIT:
			if (!m)
				break;
			retire_lanes(R, w, m);
			top->pc = pc + 1;
			RELOAD();
			continue;
		/* the grid stops with an error at this instruction */
		case OP_TRAP:
			if (!m)
				break;
			/* the kernel stopped itself: an error of the grid, not a memory
			 * fault (the judge would read a fetch at 0 as unmapped code) */
			ptx_set_error(R, w, pc, "the kernel executed trap");
			goto stop;
		case OP_COUNT:
		default:
			ptx_set_error(R, w, pc, "internal: bad opcode %u", in->op);
			goto stop;
		}
		pc++;
		if (pc == rpc) {
			top->pc = pc;
			RELOAD();
		}
	}
#undef D
#undef A
#undef B
#undef C
#undef LANES_AB
#undef F32_LANES
#undef F64_LANES
done:
	R->tinstr += ti;
	w->clock += ti;
	w->state = W_DONE;
	if (w->ncopies) { /* copies no wait covered land as their warp ends */
		for (unsigned l = 0; l < PTX_WARP; l++)
			w->groups[l]++;
		async_land(R, w, PTX_FULL, 0);
	}
	return W_DONE;
lost:
	ptx_set_error(R, w, pc, "internal: a divergence entry lost its reconvergence point");
	R->tinstr += ti;
	return W_DONE;
fault:
stop:
	R->tinstr += ti;
	w->state = W_DONE;
	return W_DONE;
}

/* The grid's entry to the warp loop: a static warp_run keeps its
 * target_clones resolver out of libchainsim.so's exports. */
int ptx_warp_run(run *R, warp *w)
{
	return warp_run(R, w);
}

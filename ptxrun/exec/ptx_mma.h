/* SPDX-License-Identifier: MIT */
/* Private to ptxrun/exec/: the tensor-core instructions' arithmetic and
 * fragment layouts (mma.sync, wmma.load/store/mma, cvt to tf32). The executor
 * gathers fragment registers and memory; this file never touches either. */
#ifndef CS_PTX_MMA_H
#define CS_PTX_MMA_H

#include "ptx_int.h"

/* A warp's fragment: v[j][l] is register j of lane l (the low 32 bits of its slot). */
typedef struct ptx_frag {
	uint32_t v[MMA_FRAG_MAX][PTX_WARP];
} ptx_frag;

/* D = A B + C: the products exact, summed in double, rounded once to D's type. */
void ptx_mma_compute(const ptx_mma *mm, const ptx_frag *a, const ptx_frag *b, const ptx_frag *c,
		     ptx_frag *d);

/* The matrix a wmma.load/store moves: rows x cols elements of elem_bytes. */
void ptx_wmma_shape(const ptx_wmma *w, unsigned *rows, unsigned *cols, unsigned *elem_bytes);
/* mat is rows x cols element bit patterns, row-major (the logical matrix,
 * whatever its layout in memory). */
void ptx_wmma_to_frag(const ptx_wmma *w, const uint32_t *mat, ptx_frag *f);
void ptx_wmma_from_frag(const ptx_wmma *w, const ptx_frag *f, uint32_t *mat);

/* cvt.{rna,rn,rz}.tf32.f32: f32 bits rounded to tf32's 10 mantissa bits, the
 * low 13 bits zero. rnd is RND_RNA, RND_RN or RND_RZ. */
uint32_t ptx_tf32_round(uint32_t bits, int rnd);

#endif

/* SPDX-License-Identifier: MIT */
/* The tensor-core instructions' arithmetic and fragment layouts.
 *
 * mma.sync's layouts are the PTX ISA's (groupID = lane / 4, threadID_in_group
 * = lane % 4). For wmma the PTX ISA fixes only how many registers a fragment
 * has and leaves which element sits where unspecified; the model lays a
 * 16 x 16 wmma fragment out as two m16n8 mma.sync fragments side by side
 * (columns 0-7, then 8-15), and an f16 A or B fragment, which has twice the
 * registers its 256 elements need, holds that layout twice (registers 4-7
 * repeat 0-3). One function, frag_coord, is that table for both. */
#include "ptx_mma.h"

#include "ptx_alu.h"

#include <string.h>

enum { ROLE_A, ROLE_B, ROLE_CD };

static unsigned elems_per_reg(int type)
{
	return type == MMA_F16 || type == MMA_BF16 ? 2 : 1;
}

/* Where element h of register j of lane l sits in its matrix (A is M x K,
 * B is K x N, C and D are M x N). */
static void frag_coord(int role, int type, unsigned j, unsigned h, unsigned l, unsigned *row,
		       unsigned *col)
{
	unsigned g = l / 4, t = l % 4, jj = j & 3;
	switch (role) {
	case ROLE_A:
		if (type == MMA_TF32) {
			*row = g + 8 * (j & 1);
			*col = t + 4 * (jj >> 1);
		} else {
			*row = g + 8 * (jj & 1);
			*col = 2 * t + h + 8 * (jj >> 1);
		}
		return;
	case ROLE_B:
		if (type == MMA_TF32) {
			*row = t + 4 * (j & 1);
			*col = g + 8 * (jj >> 1);
		} else {
			*row = 2 * t + h + 8 * (jj & 1);
			*col = g + 8 * (jj >> 1);
		}
		return;
	default:
		if (type == MMA_F32) {
			*row = g + 8 * ((j >> 1) & 1);
			*col = 2 * t + (j & 1) + 8 * (j >> 2);
		} else {
			*row = g + 8 * (j & 1);
			*col = 2 * t + h + 8 * (j >> 1);
		}
		return;
	}
}

/* The registers that hold distinct elements: an f16 wmma A or B fragment's
 * second half repeats its first. */
static unsigned distinct_regs(int role, int type, unsigned n)
{
	return role != ROLE_CD && type == MMA_F16 && n == 8 ? 4 : n;
}

static uint32_t elem_bits(uint32_t reg, unsigned h, int type)
{
	return elems_per_reg(type) == 2 ? (reg >> (16 * h)) & 0xffffu : reg;
}

static float elem_value(uint32_t bits, int type)
{
	switch (type) {
	case MMA_F16: return ptx_half_to_float((uint16_t)bits);
	case MMA_BF16: return ptx_bf16_to_float((uint16_t)bits);
	case MMA_TF32: return ptx_f32(bits & 0xffffe000u); /* the 19 bits tf32 keeps */
	default: return ptx_f32(bits);
	}
}

/* A fragment's elements into a 16 x 16 matrix of floats (ld columns). */
static void gather(int role, int type, unsigned n, const ptx_frag *f, float (*mat)[16])
{
	unsigned per = elems_per_reg(type);
	for (unsigned j = 0; j < distinct_regs(role, type, n); j++)
		for (unsigned l = 0; l < PTX_WARP; l++)
			for (unsigned h = 0; h < per; h++) {
				unsigned r, c;
				frag_coord(role, type, j, h, l, &r, &c);
				mat[r][c] = elem_value(elem_bits(f->v[j][l], h, type), type);
			}
}

void ptx_mma_compute(const ptx_mma *mm, const ptx_frag *a, const ptx_frag *b, const ptx_frag *c,
		     ptx_frag *d)
{
	float A[16][16], B[16][16], C[16][16];
	unsigned ncols = mm->wmma ? 16 : 8;
	gather(ROLE_A, mm->ab_type, mm->na, a, A);
	gather(ROLE_B, mm->ab_type, mm->nb, b, B);
	gather(ROLE_CD, mm->c_type, mm->nc, c, C);
	float D[16][16];
	for (unsigned i = 0; i < 16; i++)
		for (unsigned j = 0; j < ncols; j++) {
			double acc = C[i][j];
			for (unsigned q = 0; q < mm->k; q++)
				acc += (double)A[i][q] * (double)B[q][j];
			D[i][j] = (float)acc;
		}
	unsigned per = elems_per_reg(mm->cd_type);
	for (unsigned j = 0; j < mm->nd; j++)
		for (unsigned l = 0; l < PTX_WARP; l++) {
			uint32_t v = 0;
			for (unsigned h = 0; h < per; h++) {
				unsigned r, col;
				frag_coord(ROLE_CD, mm->cd_type, j, h, l, &r, &col);
				if (mm->cd_type == MMA_F32)
					v = (uint32_t)ptx_bits32(D[r][col]);
				else
					v |= (uint32_t)ptx_float_to_half(D[r][col]) << (16 * h);
			}
			d->v[j][l] = v;
		}
}

static int wmma_role(const ptx_wmma *w)
{
	return w->frag == WM_A ? ROLE_A : w->frag == WM_B ? ROLE_B : ROLE_CD;
}

void ptx_wmma_shape(const ptx_wmma *w, unsigned *rows, unsigned *cols, unsigned *elem_bytes)
{
	*rows = w->frag == WM_B ? w->k : 16;
	*cols = w->frag == WM_A ? w->k : 16;
	*elem_bytes = elems_per_reg(w->type) == 2 ? 2 : 4;
}

void ptx_wmma_to_frag(const ptx_wmma *w, const uint32_t *mat, ptx_frag *f)
{
	unsigned rows, cols, esz, per = elems_per_reg(w->type);
	ptx_wmma_shape(w, &rows, &cols, &esz);
	for (unsigned j = 0; j < w->nregs; j++)
		for (unsigned l = 0; l < PTX_WARP; l++) {
			uint32_t v = 0;
			for (unsigned h = 0; h < per; h++) {
				unsigned r, c;
				frag_coord(wmma_role(w), w->type, j, h, l, &r, &c);
				v |= mat[r * cols + c] << (16 * h);
			}
			f->v[j][l] = v;
		}
}

void ptx_wmma_from_frag(const ptx_wmma *w, const ptx_frag *f, uint32_t *mat)
{
	unsigned rows, cols, esz, per = elems_per_reg(w->type);
	ptx_wmma_shape(w, &rows, &cols, &esz);
	for (unsigned j = 0; j < distinct_regs(wmma_role(w), w->type, w->nregs); j++)
		for (unsigned l = 0; l < PTX_WARP; l++)
			for (unsigned h = 0; h < per; h++) {
				unsigned r, c;
				frag_coord(wmma_role(w), w->type, j, h, l, &r, &c);
				mat[r * cols + c] = elem_bits(f->v[j][l], h, w->type);
			}
}

uint32_t ptx_tf32_round(uint32_t bits, int rnd)
{
	const uint32_t keep = 0xffffe000u;
	if ((bits & 0x7f800000u) == 0x7f800000u) /* inf stays, a NaN stays a (quiet) NaN */
		return (bits & 0x007fffffu) ? (bits | 0x00400000u) & keep : bits;
	switch (rnd) {
	case RND_RZ: return bits & keep;
	case RND_RN: return (bits + 0xfffu + ((bits >> 13) & 1)) & keep;
	default: return (bits + 0x1000u) & keep; /* .rna: ties away from zero */
	}
}

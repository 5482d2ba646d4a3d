/* SPDX-License-Identifier: MIT */
/* Per-lane arithmetic for the less common operations: generic integer ops,
 * float ops with modifiers, conversions and comparisons. The executor calls
 * these from its lane loops; the hot operations it inlines itself. */
#ifndef CS_PTX_ALU_H
#define CS_PTX_ALU_H

#include "ptx_int.h"

#include <string.h>

static inline float ptx_f32(uint64_t v)
{
	uint32_t u = (uint32_t)v;
	float f;
	memcpy(&f, &u, 4);
	return f;
}

static inline uint64_t ptx_bits32(float f)
{
	uint32_t u;
	memcpy(&u, &f, 4);
	return u;
}

static inline double ptx_f64(uint64_t v)
{
	double d;
	memcpy(&d, &v, 8);
	return d;
}

static inline uint64_t ptx_bits64(double d)
{
	uint64_t u;
	memcpy(&u, &d, 8);
	return u;
}

/* An arithmetic result's bits, with every NaN made the canonical one (PTX
 * produces 0x7fffffff / 0x7fffffffffffffff; bit operations keep payloads). */
static inline uint64_t ptx_canon32(float f)
{
	return f != f ? 0x7fffffffu : ptx_bits32(f);
}

static inline uint64_t ptx_canon64(double d)
{
	return d != d ? 0x7fffffffffffffffull : ptx_bits64(d);
}

/* OP_INT: one lane. a, b, c, e are raw slots. */
uint64_t ptx_alu_int(const ptx_ins *in, uint64_t a, uint64_t b, uint64_t c, uint64_t e);
/* OP_CARRY: one lane of add/sub/mad.lo/mad.hi (in->aux, CA_*) with carry in
 * cin (0 or 1); *cout gets the carry (for sub: the borrow) out. */
uint64_t ptx_alu_carry(const ptx_ins *in, uint64_t a, uint64_t b, uint64_t c, unsigned cin,
		       unsigned *cout);
/* OP_FLT: one lane (FO_TESTP returns 0/1). */
uint64_t ptx_alu_flt(const ptx_ins *in, uint64_t a, uint64_t b, uint64_t c);
/* Whether an instruction is an approximate f32 operation (ex2, lg2, sin, cos,
 * tanh, rsqrt; rcp, sqrt and div in their .approx / .full forms). */
bool ptx_alu_is_approx(const ptx_ins *in);
/* One lane of such an operation pushed to the edge of the error bound the PTX
 * ISA states for it, away from zero (cs_ptx_launch.approx = CS_PTX_APPROX_MAX). */
uint64_t ptx_alu_approx_edge(const ptx_ins *in, uint64_t a, uint64_t b);
/* OP_CVT: one lane. */
uint64_t ptx_alu_cvt(const ptx_ins *in, uint64_t a);
/* setp/set comparison of a and b as type t. */
bool ptx_alu_cmp(int cmp, ptx_type t, bool ftz, uint64_t a, uint64_t b);
/* Whether an OP_FLT instruction needs a directed rounding mode set around it
 * (returns the fenv mode, or -1 for round-to-nearest). */
int ptx_alu_fenv_mode(const ptx_ins *in);
/* Stores v as type t in a slot: small signed types sign-extended, the rest
 * zero-extended from their width. */
uint64_t ptx_alu_norm(uint64_t v, ptx_type t);

#endif

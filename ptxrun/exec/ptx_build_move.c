/* SPDX-License-Identifier: MIT */
/* mov: registers, predicates, immediates, clocks, and packing a vector of
 * registers into one or unpacking one into several. */
#include "ptx_build.h"

/* The bit-typed element of a vector packed into or unpacked from t. */
static ptx_type vec_elem_type(ptx_type t, int nvec)
{
	switch (ptx_type_bytes(t) / (unsigned)nvec) {
	case 1: return T_B8;
	case 2: return T_B16;
	case 4: return T_B32;
	default: return T_B64;
	}
}

bool ptx_build_mov(pp *P, stmt *s, ptx_ins *ins, int form)
{
	(void)form;
	if (!pp_nops(P, s, 2, 2))
		return false;
	ptx_type t = pp_want_type(P, s, 0);
	if (t == T_NONE)
		return false;
	ins->t1 = ins->t2 = (uint8_t)t;
	if (t == T_PRED) {
		ins->op = OP_MOV_PRED;
		if (s->o[1].kind == OK_IMM && s->o[1].immk == 0) {
			/* mov.pred %p, 0 / 1 (or -1, as nvcc writes true) */
			ins->aux = s->o[1].imm != 0;
			return pp_pred_dst(P, s, 0, &ins->o[0]);
		}
		bool neg;
		if (!pp_pred_dst(P, s, 0, &ins->o[0]) || !pp_pred_src(P, s, 1, &ins->o[1], &neg))
			return false;
		if (neg)
			ins->flags |= F_NEG_C;
		return true;
	}
	if (s->o[1].kind == OK_CLOCK) {
		ins->op = OP_CLOCK;
		ins->aux = (uint8_t)s->o[1].clock;
		return pp_dst(P, s, 0, &ins->o[0]);
	}
	if (s->o[1].kind == OK_VEC) {
		ins->op = OP_PACK;
		ins->aux = (uint8_t)s->o[1].nvec;
		if (s->o[1].vec_pred || s->o[1].nvec < 2 || s->o[1].nvec > 4)
			goto bad_vec;
		for (int k = 0; k < s->o[1].nvec; k++) {
			ins->o[1 + k] = pp_vec_src(P, &s->o[1], k, vec_elem_type(t, s->o[1].nvec));
			if (ins->o[1 + k] == PTX_NONE)
				goto bad_vec;
		}
		ins->o[5] = (uint32_t)ptx_type_bytes(t) / (uint32_t)s->o[1].nvec;
		if (ins->o[5] == 0 || ptx_type_bytes(t) % (uint32_t)s->o[1].nvec)
			goto bad_vec;
		return pp_dst(P, s, 0, &ins->o[0]);
	}
	if (s->o[0].kind == OK_VEC) {
		ins->op = OP_UNPACK;
		ins->aux = (uint8_t)s->o[0].nvec;
		if (!pp_vec_dst(P, s, 0))
			return false;
		if (s->o[0].vec_pred || s->o[0].nvec < 2 || s->o[0].nvec > 4)
			goto bad_vec;
		for (int k = 0; k < s->o[0].nvec; k++)
			ins->o[1 + k] = s->o[0].vec[k];
		ins->o[5] = (uint32_t)ptx_type_bytes(t) / (uint32_t)s->o[0].nvec;
		if (ins->o[5] == 0 || ptx_type_bytes(t) % (uint32_t)s->o[0].nvec)
			goto bad_vec;
		return pp_src(P, s, 1, t, &ins->o[0]);
	}
	ins->op = OP_MOV;
	return pp_dst(P, s, 0, &ins->o[0]) && pp_src(P, s, 1, t, &ins->o[1]);
bad_vec:
	pp_err(P, &s->optok, CS_ERR_INPUT, "malformed vector operand for mov");
	return false;
}

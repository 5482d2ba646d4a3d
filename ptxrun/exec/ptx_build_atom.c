/* SPDX-License-Identifier: MIT */
/* Atomics and reductions to memory: atom, red. */
#include "ptx_build.h"

/* atom, red (form OP_ATOM, OP_RED): red returns nothing. */
bool ptx_build_atom(pp *P, stmt *s, ptx_ins *ins, int form)
{
	bool atom = form == OP_ATOM;
	static const char *const sp[] = { ".global", ".shared", ".shared::cta", ".shared::cluster" };
	int k = stmt_take_one(s, sp, 4);
	static const char *const ops[] = { ".add", ".min", ".max", ".inc", ".dec", ".cas",
					    ".exch", ".and", ".or", ".xor" };
	int op = stmt_take_one(s, ops, 10);
	stmt_take(s, ".noftz");
	if (op < 0) {
		pp_err(P, &s->optok, CS_ERR_INPUT, "%s needs an operation", s->base);
		return false;
	}
	ptx_type t = pp_want_type(P, s, 0);
	if (t == T_NONE)
		return false;
	bool ok;
	/* the packed-half atomics of cuda_fp16.hpp / cuda_bf16.hpp:
	 * atom{.add.noftz,.min,.max}.{f16,bf16,f16x2,bf16x2} */
	bool half = t == T_F16 || t == T_BF16 || t == T_F16X2 || t == T_BF16X2;
	switch (op) {
	case AO_ADD:
		ok = t == T_U32 || t == T_S32 || t == T_U64 || t == T_F32 || t == T_F64 ||
		     t == T_S64 || half;
		break;
	case AO_MIN: case AO_MAX:
		ok = t == T_U32 || t == T_S32 || t == T_U64 || t == T_S64 || half;
		break;
	case AO_INC: case AO_DEC:
		ok = t == T_U32;
		break;
	default:
		ok = t == T_B32 || t == T_B64 || t == T_U32 || t == T_S32 || t == T_U64 ||
		     (op == AO_EXCH && t == T_F32) || (op == AO_CAS && t == T_B16);
	}
	if (!ok) {
		pp_err(P, &s->optok, CS_ERR_UNSUPPORTED, "%s operation on this type", s->base);
		return false;
	}
	int want = (atom ? 1 : 0) + 2 + (op == AO_CAS ? 1 : 0);
	if (!atom && op == AO_CAS) {
		pp_err(P, &s->optok, CS_ERR_INPUT, "red.cas does not exist");
		return false;
	}
	if (!pp_nops(P, s, want, want))
		return false;
	int mi = atom ? 1 : 0;
	opnd *m = &s->o[mi];
	if (m->kind != OK_MEM) {
		pp_err(P, &m->at, CS_ERR_INPUT, "%s needs an address operand", s->base);
		return false;
	}
	int space = k < 0 ? SP_GENERIC : k == 0 ? SP_GLOBAL : SP_SHARED;
	if (m->mspace >= 0 && space == SP_GENERIC)
		space = m->mspace == SP_CONST ? SP_GLOBAL : m->mspace;
	if (space != SP_GLOBAL && space != SP_SHARED && space != SP_GENERIC) {
		pp_err(P, &m->at, CS_ERR_INPUT, "atomics on this state space");
		return false;
	}
	ins->op = atom ? OP_ATOM : OP_RED;
	if (atom)
		ins->flags |= F_SPIN;
	ins->aux = (uint8_t)space;
	ins->aux2 = (uint8_t)op;
	ins->t1 = (uint8_t)t;
	ins->o[0] = m->mbase;
	ins->imm = m->moff;
	ins->o[1] = PTX_NONE;
	if (atom && !pp_dst(P, s, 0, &ins->o[1]))
		return false;
	if (!pp_src(P, s, mi + 1, t, &ins->o[2]))
		return false;
	if (op == AO_CAS && !pp_src(P, s, mi + 2, t, &ins->o[3]))
		return false;
	return true;
}

/* SPDX-License-Identifier: MIT */
/* Arithmetic that takes an integer or a float type: add, sub, mul, mad, fma,
 * div, rem, and the one-to-four source ops (abs, min, popc, sqrt, bfe, ...). */
#include "ptx_build.h"

/* add, sub (form IO_ADD, IO_SUB); add.cc and sub.cc are carry arithmetic. */
bool ptx_build_add_sub(pp *P, stmt *s, ptx_ins *ins, int form)
{
	bool add = form == IO_ADD;
	bool sat = stmt_take(s, ".sat");
	bool ftz = stmt_take(s, ".ftz");
	int rnd = stmt_take_rnd(s);
	if (stmt_take(s, ".cc"))
		return pp_carry_arith(P, s, ins, add ? CA_ADD : CA_SUB, false, true);
	if (!pp_arith(P, s, ins, 2))
		return false;
	ptx_type t = (ptx_type)ins->t1;
	if (type_is_int(t)) {
		if (sat) {
			ins->op = OP_INT;
			ins->aux = add ? IO_ADDSAT : IO_SUBSAT;
		} else if (!ins_fast_int(ins, t, add ? OP_ADD32 : OP_SUB32,
					 add ? OP_ADD64 : OP_SUB64)) {
			ins->op = OP_INT;
			ins->aux = add ? IO_ADD : IO_SUB;
		}
		return true;
	}
	if (t == T_F32 && !sat && !ftz && (rnd == RND_NONE || rnd == RND_RN)) {
		ins->op = add ? OP_ADD_F32 : OP_SUB_F32;
		return true;
	}
	if (t == T_F64 && (rnd == RND_NONE || rnd == RND_RN)) {
		ins->op = add ? OP_ADD_F64 : OP_SUB_F64;
		return true;
	}
	ins->op = OP_FLT;
	ins->aux = add ? FO_ADD : FO_SUB;
	ins->aux2 = (uint8_t)rnd;
	ins->flags |= (uint16_t)((sat ? F_SAT : 0) | (ftz ? F_FTZ : 0));
	return true;
}

/* mul, mad, fma (form MUL_*); mad.cc is carry arithmetic. */
bool ptx_build_mul(pp *P, stmt *s, ptx_ins *ins, int form)
{
	if (form == MUL_MAD && stmt_take(s, ".cc"))
		return pp_mad_carry(P, s, ins, false, true);
	bool mad = form != MUL_MUL;
	bool lo = stmt_take(s, ".lo"), hi = stmt_take(s, ".hi"), wide = stmt_take(s, ".wide");
	bool sat = stmt_take(s, ".sat");
	bool ftz = stmt_take(s, ".ftz");
	int rnd = stmt_take_rnd(s);
	if (!pp_arith(P, s, ins, mad ? 3 : 2))
		return false;
	ptx_type t = (ptx_type)ins->t1;
	if (type_is_int(t)) {
		if (form == MUL_FMA || lo + hi + wide != 1 || rnd != RND_NONE || ftz) {
			pp_err(P, &s->optok, CS_ERR_INPUT, "integer %s needs exactly one of .lo .hi .wide",
			       s->base);
			return false;
		}
		if (sat && !(hi && t == T_S32 && mad)) {
			pp_err(P, &s->optok, CS_ERR_UNSUPPORTED, ".sat on this %s", s->base);
			return false;
		}
		if (sat) {
			ins->op = OP_INT;
			ins->aux = IO_MADHI;
			ins->flags |= F_SAT;
			return true;
		}
		if (lo && !mad && ins_fast_int(ins, t, OP_MULLO32, OP_MULLO64))
			return true;
		if (lo && mad && ins_fast_int(ins, t, OP_MADLO32, OP_MADLO64))
			return true;
		if (wide && t == T_S32) {
			ins->op = mad ? OP_MADWIDE_S32 : OP_MULWIDE_S32;
			return true;
		}
		if (wide && t == T_U32) {
			ins->op = mad ? OP_MADWIDE_U32 : OP_MULWIDE_U32;
			return true;
		}
		if (wide && type_bits(t) == 64) {
			pp_err(P, &s->optok, CS_ERR_INPUT, "%s.wide on a 64-bit type", s->base);
			return false;
		}
		ins->op = OP_INT;
		ins->aux = (uint8_t)(mad ? (lo ? IO_MADLO : hi ? IO_MADHI : IO_MADWIDE)
				    : (lo ? IO_MULLO : hi ? IO_MULHI : IO_MULWIDE));
		return true;
	}
	if (lo || hi || wide) {
		pp_err(P, &s->optok, CS_ERR_INPUT, "float %s takes no .lo/.hi/.wide", s->base);
		return false;
	}
	if (form == MUL_FMA && rnd == RND_NONE) {
		pp_err(P, &s->optok, CS_ERR_INPUT, "fma needs a rounding modifier");
		return false;
	}
	bool plain = !sat && !ftz && (rnd == RND_NONE || rnd == RND_RN);
	if (t == T_F32 && plain) {
		ins->op = mad ? OP_FMA_F32 : OP_MUL_F32;
		return true;
	}
	if (t == T_F64 && plain) {
		ins->op = mad ? OP_FMA_F64 : OP_MUL_F64;
		return true;
	}
	ins->op = OP_FLT;
	ins->aux = mad ? FO_FMA : FO_MUL;
	ins->aux2 = (uint8_t)rnd;
	ins->flags |= (uint16_t)((sat ? F_SAT : 0) | (ftz ? F_FTZ : 0));
	return true;
}

/* div, rem (form IO_DIV, IO_REM): rem takes integers only. */
bool ptx_build_div_rem(pp *P, stmt *s, ptx_ins *ins, int form)
{
	bool approx = stmt_take(s, ".approx"), full = stmt_take(s, ".full");
	bool ftz = stmt_take(s, ".ftz");
	int rnd = stmt_take_rnd(s);
	if (!pp_arith(P, s, ins, 2))
		return false;
	ptx_type t = (ptx_type)ins->t1;
	if (type_is_int(t)) {
		ins->op = OP_INT;
		ins->aux = (uint8_t)form;
		return true;
	}
	if (form == IO_REM || (t != T_F32 && t != T_F64)) {
		pp_err(P, &s->optok, CS_ERR_UNSUPPORTED, "%s on this type", s->base);
		return false;
	}
	if (!approx && !full && rnd == RND_NONE) {
		pp_err(P, &s->optok, CS_ERR_INPUT, "div.f32 needs .approx, .full or a rounding mode");
		return false;
	}
	ins->op = OP_FLT;
	ins->aux = FO_DIV;
	ins->aux2 = (uint8_t)(rnd == RND_NONE ? RND_RN : rnd);
	ins->flags |= (uint16_t)((ftz ? F_FTZ : 0) | (approx || full ? F_APPROX : 0));
	return true;
}

/* The one-to-four source ops, typed either way (form ARITH_OPS(nsrc, io, fo)):
 * the type picks the integer or the float sub-op; not.pred is predicate logic. */
bool ptx_build_arith_op(pp *P, stmt *s, ptx_ins *ins, int form)
{
	int io = ARITH_IO(form), fo = ARITH_FO(form);
	bool ftz = stmt_take(s, ".ftz");
	bool approx = stmt_take(s, ".approx");
	bool full = stmt_take(s, ".full");
	bool sat = stmt_take(s, ".sat");
	bool nan = stmt_take(s, ".NaN");
	bool shiftamt = stmt_take(s, ".shiftamt");
	int rnd = stmt_take_rnd(s);
	if (io == IO_NOT && s->ntypes == 1 && s->types[0] == T_PRED) {
		ins->op = OP_PRED_LOGIC;
		ins->aux = 3;
		bool neg;
		if (!pp_nops(P, s, 2, 2) || !pp_pred_dst(P, s, 0, &ins->o[0]) ||
		    !pp_pred_src(P, s, 1, &ins->o[1], &neg))
			return false;
		if (neg)
			ins->flags |= F_NEG_A;
		return true;
	}
	if (!pp_arith(P, s, ins, ARITH_NSRC(form)))
		return false;
	ptx_type t = (ptx_type)ins->t1;
	if (io == IO_BFE || io == IO_BFI) {
		/* positions and lengths are u32 */
		for (int i = (io == IO_BFE ? 2 : 3); i < s->nops; i++)
			if (!pp_src(P, s, i, T_U32, &ins->o[i]))
				return false;
	}
	if (shiftamt && io != IO_BFIND) {
		pp_err(P, &s->optok, CS_ERR_INPUT, ".shiftamt on '%s' (only bfind takes it)", s->base);
		return false;
	}
	if (shiftamt)
		ins->flags |= F_HI;
	if (type_is_int(t) && io >= 0) {
		if (ftz || approx || full || rnd || nan) {
			pp_err(P, &s->optok, CS_ERR_INPUT, "float modifier on integer %s", s->base);
			return false;
		}
		if (sat) {
			pp_err(P, &s->optok, CS_ERR_UNSUPPORTED, "%s.sat", s->base);
			return false;
		}
		ins->op = OP_INT;
		ins->aux = (uint8_t)io;
		return true;
	}
	if (ptx_type_float(t) && fo >= 0) {
		if ((t == T_F16X2 || t == T_BF16X2) && fo != FO_ABS && fo != FO_NEG &&
		    fo != FO_MIN && fo != FO_MAX) {
			pp_err(P, &s->optok, CS_ERR_UNSUPPORTED, "%s on packed halves", s->base);
			return false;
		}
		if (nan)
			ins->aux2 = 1; /* min/max .NaN: propagate NaN */
		else
			ins->aux2 = (uint8_t)rnd;
		ins->op = OP_FLT;
		ins->aux = (uint8_t)fo;
		ins->flags |= (uint16_t)((ftz ? F_FTZ : 0) | (sat ? F_SAT : 0) |
					 (approx ? F_APPROX : 0));
		return true;
	}
	pp_err(P, &s->optok, CS_ERR_UNSUPPORTED, "'%s' on type '%.*s'", s->base,
	       (int)s->modlen[s->nmods - 1], s->mod[s->nmods - 1]);
	return false;
}

/* SPDX-License-Identifier: MIT */
/* Integer-only arithmetic and bit operations: carry chains, 24-bit multiplies,
 * funnel shifts, logic, shifts and byte permutes. */
#include "ptx_build.h"

/* add.cc / addc / sub.cc / subc / mad.cc / madc: integer arithmetic through
 * the carry flag CC.CF, which lives in a predicate of its own. */
bool pp_carry_arith(pp *P, stmt *s, ptx_ins *ins, int form, bool carry_in, bool carry_out)
{
	bool mad = form == CA_MADLO || form == CA_MADHI;
	if (!pp_arith(P, s, ins, mad ? 3 : 2))
		return false;
	ptx_type t = (ptx_type)ins->t1;
	if (t != T_U32 && t != T_S32 && t != T_U64 && t != T_S64) {
		pp_err(P, &s->optok, CS_ERR_INPUT, "carry arithmetic takes .u32, .s32, .u64 or .s64");
		return false;
	}
	if (P->carry_pred == PTX_NONE)
		P->carry_pred = P->p->npreds++;
	ins->op = OP_CARRY;
	ins->aux = (uint8_t)form;
	ins->o[4] = P->carry_pred;
	ins->flags |= (uint16_t)((carry_in ? F_CARRY_IN : 0) | (carry_out ? F_CARRY_OUT : 0));
	return true;
}

bool pp_mad_carry(pp *P, stmt *s, ptx_ins *ins, bool carry_in, bool carry_out)
{
	bool hi = stmt_take(s, ".hi");
	if (!hi && !stmt_take(s, ".lo")) {
		pp_err(P, &s->optok, CS_ERR_INPUT, "%s needs .lo or .hi", s->base);
		return false;
	}
	return pp_carry_arith(P, s, ins, hi ? CA_MADHI : CA_MADLO, carry_in, carry_out);
}

/* addc, subc, madc (form CA_ADD, CA_SUB, CA_MADLO): the carry flag added in,
 * and written again with .cc. */
bool ptx_build_carry(pp *P, stmt *s, ptx_ins *ins, int form)
{
	bool cc = stmt_take(s, ".cc");
	if (form == CA_MADLO)
		return pp_mad_carry(P, s, ins, true, cc);
	return pp_carry_arith(P, s, ins, form, true, cc);
}

/* mul24, mad24 (form IO_MUL24, IO_MAD24). */
bool ptx_build_mul24(pp *P, stmt *s, ptx_ins *ins, int form)
{
	bool hi = stmt_take(s, ".hi");
	if (!hi && !stmt_take(s, ".lo")) {
		pp_err(P, &s->optok, CS_ERR_INPUT, "%s needs .lo or .hi", s->base);
		return false;
	}
	if (stmt_take(s, ".sat")) {
		pp_err(P, &s->optok, CS_ERR_UNSUPPORTED, "%s.sat", s->base);
		return false;
	}
	if (!pp_arith(P, s, ins, form == IO_MAD24 ? 3 : 2))
		return false;
	if (ins->t1 != T_U32 && ins->t1 != T_S32) {
		pp_err(P, &s->optok, CS_ERR_INPUT, "%s takes .u32 or .s32", s->base);
		return false;
	}
	ins->op = OP_INT;
	ins->aux = (uint8_t)form;
	if (hi)
		ins->flags |= F_HI;
	return true;
}

bool ptx_build_shf(pp *P, stmt *s, ptx_ins *ins, int form)
{
	(void)form;
	bool right = stmt_take(s, ".r");
	if (!right && !stmt_take(s, ".l")) {
		pp_err(P, &s->optok, CS_ERR_INPUT, "shf needs .l or .r");
		return false;
	}
	bool clamp = stmt_take(s, ".clamp");
	if (!clamp && !stmt_take(s, ".wrap")) {
		pp_err(P, &s->optok, CS_ERR_INPUT, "shf needs .wrap or .clamp");
		return false;
	}
	if (!pp_nops(P, s, 4, 4))
		return false;
	ptx_type t = pp_want_type(P, s, 0);
	if (t != T_B32) {
		if (!P->failed)
			pp_err(P, &s->optok, CS_ERR_INPUT, "shf takes .b32");
		return false;
	}
	ins->op = OP_INT;
	ins->aux = IO_SHF;
	ins->aux2 = (uint8_t)((right ? SHF_RIGHT : 0) | (clamp ? SHF_CLAMP : 0));
	ins->t1 = ins->t2 = T_B32;
	return pp_dst(P, s, 0, &ins->o[0]) && pp_src(P, s, 1, T_B32, &ins->o[1]) &&
	       pp_src(P, s, 2, T_B32, &ins->o[2]) && pp_src(P, s, 3, T_U32, &ins->o[3]);
}

/* and, or, xor (form IO_AND, IO_OR, IO_XOR), on integers or predicates. */
bool ptx_build_logic(pp *P, stmt *s, ptx_ins *ins, int form)
{
	if (!pp_nops(P, s, 3, 3))
		return false;
	ptx_type t = pp_want_type(P, s, 0);
	if (t == T_NONE)
		return false;
	if (t == T_PRED) {
		ins->op = OP_PRED_LOGIC;
		ins->aux = (uint8_t)(form == IO_AND ? 0 : form == IO_OR ? 1 : 2);
		bool na, nb;
		if (!pp_pred_dst(P, s, 0, &ins->o[0]) || !pp_pred_src(P, s, 1, &ins->o[1], &na) ||
		    !pp_pred_src(P, s, 2, &ins->o[2], &nb))
			return false;
		if (na || nb) {
			pp_err(P, &s->optok, CS_ERR_INPUT, "negated predicate source");
			return false;
		}
		return true;
	}
	if (!pp_arith(P, s, ins, 2))
		return false;
	int op32 = form == IO_AND ? OP_AND32 : form == IO_OR ? OP_OR32 : OP_XOR32;
	int op64 = form == IO_AND ? OP_AND64 : form == IO_OR ? OP_OR64 : OP_XOR64;
	if (ins_fast_int(ins, t, op32, op64))
		return true;
	ins->op = OP_INT;
	ins->aux = (uint8_t)form;
	return true;
}

/* shl, shr (form IO_SHL, IO_SHR): shr is arithmetic on a signed type. */
bool ptx_build_shift(pp *P, stmt *s, ptx_ins *ins, int form)
{
	if (!pp_arith(P, s, ins, 2))
		return false;
	ptx_type t = (ptx_type)ins->t1;
	if (!type_is_int(t)) {
		pp_err(P, &s->optok, CS_ERR_INPUT, "%s needs an integer type", s->base);
		return false;
	}
	if (form == IO_SHL) {
		if (!ins_fast_int(ins, t, OP_SHL32, OP_SHL64)) {
			ins->op = OP_INT;
			ins->aux = IO_SHL;
		}
	} else if (ptx_type_signed(t)) {
		if (!ins_fast_int(ins, t, OP_SHR_S32, OP_SHR_S64)) {
			ins->op = OP_INT;
			ins->aux = IO_SHR;
		}
	} else if (!ins_fast_int(ins, t, OP_SHR_U32, OP_SHR_U64)) {
		ins->op = OP_INT;
		ins->aux = IO_SHR;
	}
	return true;
}

bool ptx_build_prmt(pp *P, stmt *s, ptx_ins *ins, int form)
{
	(void)form;
	static const char *const modes[] = { ".f4e", ".b4e", ".rc8", ".ecl", ".ecr", ".rc16" };
	int m = stmt_take_one(s, modes, 6);
	if (!pp_arith(P, s, ins, 3))
		return false;
	ins->op = OP_INT;
	ins->aux = IO_PRMT;
	ins->aux2 = (uint8_t)(m + 1);
	return true;
}

/* bmsk.{clamp,wrap}.b32 d, a, b and szext.{clamp,wrap}.{u32,s32} d, a, b
 * (form IO_BMSK or IO_SZEXT): aux2 1 for .clamp. */
bool ptx_build_bitmask(pp *P, stmt *s, ptx_ins *ins, int form)
{
	static const char *const modes[] = { ".wrap", ".clamp" };
	int m = stmt_take_one(s, modes, 2);
	ptx_type t = s->ntypes == 1 ? s->types[0] : T_NONE;
	bool ok = form == IO_BMSK ? t == T_B32 : (t == T_U32 || t == T_S32);
	if (m < 0 || !ok) {
		pp_err(P, &s->optok, CS_ERR_INPUT, "%s needs .clamp or .wrap and %s", s->base,
		       form == IO_BMSK ? ".b32" : ".u32 or .s32");
		return false;
	}
	if (!pp_arith(P, s, ins, 2))
		return false;
	ins->op = OP_INT;
	ins->aux = (uint8_t)form;
	ins->aux2 = (uint8_t)m;
	return true;
}

/* fns.b32 d, mask, base, offset. */
bool ptx_build_fns(pp *P, stmt *s, ptx_ins *ins, int form)
{
	(void)form;
	if (s->ntypes != 1 || s->types[0] != T_B32) {
		pp_err(P, &s->optok, CS_ERR_INPUT, "fns takes .b32");
		return false;
	}
	if (!pp_nops(P, s, 4, 4))
		return false;
	ins->op = OP_INT;
	ins->aux = IO_FNS;
	ins->t1 = ins->t2 = T_B32;
	return pp_dst(P, s, 0, &ins->o[0]) && pp_src(P, s, 1, T_B32, &ins->o[1]) &&
	       pp_src(P, s, 2, T_U32, &ins->o[2]) && pp_src(P, s, 3, T_S32, &ins->o[3]);
}

/* lop3.b32 d, a, b, c, immLut: the truth table rides in aux2. */
bool ptx_build_lop3(pp *P, stmt *s, ptx_ins *ins, int form)
{
	(void)form;
	if (s->nops >= 1 && s->o[0].has_pipe) {
		pp_err(P, &s->optok, CS_ERR_UNSUPPORTED, "lop3 with a predicate result (d|p)");
		return false;
	}
	if (s->ntypes != 1 || s->types[0] != T_B32) {
		pp_err(P, &s->optok, CS_ERR_INPUT, "lop3 takes .b32");
		return false;
	}
	if (!pp_nops(P, s, 5, 5))
		return false;
	const opnd *lut = &s->o[4];
	if (lut->kind != OK_IMM || lut->immk != 0 || lut->imm > 0xff) {
		pp_err(P, &lut->at, CS_ERR_INPUT, "lop3's immLut must be an integer from 0 to 255");
		return false;
	}
	ins->op = OP_INT;
	ins->aux = IO_LOP3;
	ins->aux2 = (uint8_t)lut->imm;
	ins->t1 = ins->t2 = T_B32;
	return pp_dst(P, s, 0, &ins->o[0]) && pp_src(P, s, 1, T_B32, &ins->o[1]) &&
	       pp_src(P, s, 2, T_B32, &ins->o[2]) && pp_src(P, s, 3, T_B32, &ins->o[3]);
}

/* dp4a.atype.btype d, a, b, c and dp2a.{lo,hi}.atype.btype (form IO_DP4A,
 * IO_DP2A); c is .u32 when both are .u32, else .s32. */
bool ptx_build_dot(pp *P, stmt *s, ptx_ins *ins, int form)
{
	bool hi = false;
	if (form == IO_DP2A) {
		hi = stmt_take(s, ".hi");
		if (!hi && !stmt_take(s, ".lo")) {
			pp_err(P, &s->optok, CS_ERR_INPUT, "dp2a needs .lo or .hi");
			return false;
		}
	}
	bool ok = s->ntypes == 2;
	for (int i = 0; ok && i < 2; i++)
		ok = s->types[i] == T_U32 || s->types[i] == T_S32;
	if (!ok) {
		pp_err(P, &s->optok, CS_ERR_INPUT, "%s takes two types, each .u32 or .s32", s->base);
		return false;
	}
	if (!pp_nops(P, s, 4, 4))
		return false;
	bool as = s->types[0] == T_S32, bs = s->types[1] == T_S32;
	ins->op = OP_INT;
	ins->aux = (uint8_t)form;
	ins->aux2 = (uint8_t)((as ? DP_A_SIGNED : 0) | (bs ? DP_B_SIGNED : 0) | (hi ? DP_HI : 0));
	ins->t1 = ins->t2 = (uint8_t)(as || bs ? T_S32 : T_U32);
	return pp_dst(P, s, 0, &ins->o[0]) && pp_src(P, s, 1, s->types[0], &ins->o[1]) &&
	       pp_src(P, s, 2, s->types[1], &ins->o[2]) &&
	       pp_src(P, s, 3, (ptx_type)ins->t1, &ins->o[3]);
}

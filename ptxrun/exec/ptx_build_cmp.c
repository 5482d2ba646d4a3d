/* SPDX-License-Identifier: MIT */
/* Comparisons and selects: setp, set, selp, slct, testp. */
#include "ptx_build.h"

/* setp, set (form OP_SETP, OP_SET): a comparison, maybe combined with a predicate. */
bool ptx_build_setp(pp *P, stmt *s, ptx_ins *ins, int form)
{
	static const char *const cmps[] = { ".eq", ".ne", ".lt", ".le", ".gt", ".ge", ".lo",
					     ".ls", ".hi", ".hs", ".equ", ".neu", ".ltu",
					     ".leu", ".gtu", ".geu", ".num", ".nan" };
	static const char *const bops[] = { ".and", ".or", ".xor" };
	int c = stmt_take_one(s, cmps, 18);
	int bop = stmt_take_one(s, bops, 3);
	bool ftz = stmt_take(s, ".ftz");
	if (c < 0) {
		pp_err(P, &s->optok, CS_ERR_INPUT, "%s needs a comparison", s->base);
		return false;
	}
	bool setp = form == OP_SETP;
	ptx_type t = pp_want_type(P, s, setp ? 0 : 1);
	if (t == T_NONE)
		return false;
	if (t == T_PRED || t == T_F16X2 || t == T_BF16X2) {
		pp_err(P, &s->optok, CS_ERR_UNSUPPORTED, "%s on this type", s->base);
		return false;
	}
	if (c >= CMP_EQU && !ptx_type_float(t)) {
		pp_err(P, &s->optok, CS_ERR_INPUT, "unordered comparison on an integer type");
		return false;
	}
	ins->aux = (uint8_t)c;
	ins->t2 = (uint8_t)t;
	ins->flags |= (uint16_t)(ftz ? F_FTZ : 0);
	int n = bop >= 0 ? 4 : 3;
	if (!pp_nops(P, s, n, n))
		return false;
	if (bop >= 0) {
		bool neg;
		ins->flags |= F_HAS_C;
		ins->aux2 = (uint8_t)bop;
		if (!pp_pred_src(P, s, 3, &ins->o[3], &neg))
			return false;
		if (neg)
			ins->flags |= F_NEG_C;
	}
	if (!pp_src(P, s, 1, t, &ins->o[1]) || !pp_src(P, s, 2, t, &ins->o[2]))
		return false;
	if (setp) {
		ins->op = OP_SETP;
		opnd *d0 = &s->o[0];
		if (d0->kind != OK_PRED || d0->neg) {
			pp_err(P, &d0->at, CS_ERR_INPUT, "setp writes a predicate");
			return false;
		}
		ins->o[0] = d0->pred;
		ins->o[4] = PTX_NONE;
		if (d0->has_pipe) {
			ins->flags |= F_HI;
			ins->o[4] = d0->pipe_pred;
		}
		return true;
	}
	ins->op = OP_SET;
	ins->t1 = (uint8_t)pp_want_type(P, s, 0);
	return pp_dst(P, s, 0, &ins->o[0]);
}

/* selp.T d, a, b, c */
bool ptx_build_selp(pp *P, stmt *s, ptx_ins *ins, int form)
{
	(void)form;
	if (!pp_nops(P, s, 4, 4))
		return false;
	ptx_type t = pp_want_type(P, s, 0);
	if (t == T_NONE || t == T_PRED) {
		if (!P->failed)
			pp_err(P, &s->optok, CS_ERR_INPUT, "selp needs a value type");
		return false;
	}
	ins->op = OP_SELP;
	ins->t1 = ins->t2 = (uint8_t)t;
	bool neg;
	if (!pp_dst(P, s, 0, &ins->o[0]) || !pp_src(P, s, 1, t, &ins->o[1]) ||
	    !pp_src(P, s, 2, t, &ins->o[2]) || !pp_pred_src(P, s, 3, &ins->o[3], &neg))
		return false;
	if (neg)
		ins->flags |= F_NEG_C;
	return true;
}

bool ptx_build_slct(pp *P, stmt *s, ptx_ins *ins, int form)
{
	(void)form;
	bool ftz = stmt_take(s, ".ftz");
	if (!pp_nops(P, s, 4, 4))
		return false;
	ptx_type t = pp_want_type(P, s, 0), ct = pp_want_type(P, s, 1);
	if (t == T_NONE || ct == T_NONE)
		return false;
	ins->op = OP_SLCT;
	ins->t1 = (uint8_t)t;
	ins->t2 = (uint8_t)ct;
	ins->flags |= (uint16_t)(ftz ? F_FTZ : 0);
	return pp_dst(P, s, 0, &ins->o[0]) && pp_src(P, s, 1, t, &ins->o[1]) &&
	       pp_src(P, s, 2, t, &ins->o[2]) && pp_src(P, s, 3, ct, &ins->o[3]);
}

bool ptx_build_testp(pp *P, stmt *s, ptx_ins *ins, int form)
{
	(void)form;
	static const char *const ops[] = { ".finite", ".infinite", ".number", ".notanumber",
					    ".normal", ".subnormal" };
	int m = stmt_take_one(s, ops, 6);
	if (m < 0 || !pp_nops(P, s, 2, 2)) {
		if (!P->failed)
			pp_err(P, &s->optok, CS_ERR_INPUT, "testp needs a test");
		return false;
	}
	ptx_type t = pp_want_type(P, s, 0);
	if (t != T_F32 && t != T_F64) {
		if (!P->failed)
			pp_err(P, &s->optok, CS_ERR_INPUT, "testp needs .f32 or .f64");
		return false;
	}
	ins->op = OP_FLT;
	ins->aux = FO_TESTP;
	ins->aux2 = (uint8_t)m;
	ins->t1 = ins->t2 = (uint8_t)t;
	return pp_pred_dst(P, s, 0, &ins->o[0]) && pp_src(P, s, 1, t, &ins->o[1]);
}

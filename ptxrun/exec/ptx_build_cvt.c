/* SPDX-License-Identifier: MIT */
/* Conversions: cvt between types (and to tf32), cvta between address spaces. */
#include "ptx_build.h"

/* cvt.{rna,rn,rz}.tf32.f32 d, a: what __float_to_tf32 compiles to. */
static bool build_cvt_tf32(pp *P, stmt *s, ptx_ins *ins, int rnd)
{
	if ((rnd != RND_RNA && rnd != RND_RN && rnd != RND_RZ) || s->ntypes != 1 ||
	    s->types[0] != T_F32) {
		pp_err(P, &s->optok, CS_ERR_UNSUPPORTED, "cvt to tf32 other than .rna/.rn/.rz from .f32");
		return false;
	}
	if (!pp_nops(P, s, 2, 2))
		return false;
	ins->op = OP_CVT_TF32;
	ins->aux2 = (uint8_t)rnd;
	return pp_dst(P, s, 0, &ins->o[0]) && pp_src(P, s, 1, T_F32, &ins->o[1]);
}

/* cvt.rn.satfinite{.relu}.{e4m3x2,e5m2x2}.{f32 (two sources), f16x2} d.b16, ...
 * and cvt.rn{.relu}.f16x2.{e4m3x2,e5m2x2} d.b32, a.b16: .satfinite marks the
 * conversions to 8 bits (PTX requires it there and allows it nowhere else). */
static bool build_cvt_fp8(pp *P, stmt *s, ptx_ins *ins, bool e5m2)
{
	bool sat = stmt_take(s, ".satfinite"), relu = stmt_take(s, ".relu");
	int rnd = stmt_take_rnd(s);
	if (rnd != RND_RN || s->ntypes != 1 || !pp_nops(P, s, 2, 3)) {
		if (!P->failed)
			pp_err(P, &s->optok, CS_ERR_UNSUPPORTED, "cvt with %s other than .rn from "
			       ".f32 or .f16x2, or to .f16x2", e5m2 ? "e5m2x2" : "e4m3x2");
		return false;
	}
	ins->op = OP_CVT_FP8;
	ins->aux2 = (uint8_t)((e5m2 ? FP8_E5M2 : 0) | (relu ? FP8_RELU : 0));
	ptx_type t = s->types[0];
	if (sat && t == T_F32 && s->nops == 3) {
		ins->aux = FP8_FROM_F32X2; /* d = {cvt(a) in the upper byte, cvt(b) in the lower} */
		return pp_dst(P, s, 0, &ins->o[0]) && pp_src(P, s, 1, T_F32, &ins->o[1]) &&
		       pp_src(P, s, 2, T_F32, &ins->o[2]);
	}
	if (sat && t == T_F16X2 && s->nops == 2) {
		ins->aux = FP8_FROM_F16X2;
		return pp_dst(P, s, 0, &ins->o[0]) && pp_src(P, s, 1, T_B32, &ins->o[1]);
	}
	if (!sat && t == T_F16X2 && s->nops == 2) {
		ins->aux = FP8_TO_F16X2;
		return pp_dst(P, s, 0, &ins->o[0]) && pp_src(P, s, 1, T_B16, &ins->o[1]);
	}
	pp_err(P, &s->optok, CS_ERR_UNSUPPORTED, "this cvt form with %s (.satfinite to 8 bits "
	       "from .f32 pairs or .f16x2; without it to .f16x2)", e5m2 ? "e5m2x2" : "e4m3x2");
	return false;
}

/* cvt.pack.sat.{u16,s16}.s32 d, a, b and cvt.pack.sat.{u8,s8,u4,s4,u2,s2}.s32.b32
 * d, a, b, c. */
static bool build_cvt_pack(pp *P, stmt *s, ptx_ins *ins)
{
	static const char *const narrow[] = { ".u2", ".s2", ".u4", ".s4" };
	int k = stmt_take_one(s, narrow, 4);
	unsigned bits = 0;
	bool sgn = false;
	int ti = 0; /* the index of abType among the types */
	if (k >= 0) {
		bits = k < 2 ? 2 : 4;
		sgn = k & 1;
	} else if (s->ntypes >= 1) {
		ptx_type t = s->types[0];
		bits = t == T_U8 || t == T_S8 ? 8 : t == T_U16 || t == T_S16 ? 16 : 0;
		sgn = t == T_S8 || t == T_S16;
		ti = 1;
	}
	bool with_c = bits != 16;
	bool ok = stmt_take(s, ".sat") && bits && s->ntypes == ti + 1 + with_c &&
		  s->types[ti] == T_S32 && (!with_c || s->types[ti + 1] == T_B32);
	if (!ok) {
		pp_err(P, &s->optok, CS_ERR_INPUT, "cvt.pack needs .sat, a converted type (.u16/.s16, "
		       "or .u8/.s8/.u4/.s4/.u2/.s2 with a .b32 c), and .s32 sources");
		return false;
	}
	if (!pp_nops(P, s, with_c ? 4 : 3, with_c ? 4 : 3))
		return false;
	ins->op = OP_INT;
	ins->aux = IO_CVT_PACK;
	ins->aux2 = (uint8_t)(bits | (sgn ? CVP_SIGNED : 0));
	ins->t1 = T_U32;
	ins->t2 = T_S32;
	return pp_dst(P, s, 0, &ins->o[0]) && pp_src(P, s, 1, T_S32, &ins->o[1]) &&
	       pp_src(P, s, 2, T_S32, &ins->o[2]) && (!with_c || pp_src(P, s, 3, T_B32, &ins->o[3]));
}

bool ptx_build_cvt(pp *P, stmt *s, ptx_ins *ins, int form)
{
	(void)form;
	if (stmt_take(s, ".pack"))
		return build_cvt_pack(P, s, ins);
	if (stmt_take(s, ".tf32"))
		return build_cvt_tf32(P, s, ins, stmt_take_rnd(s));
	if (stmt_take(s, ".e4m3x2"))
		return build_cvt_fp8(P, s, ins, false);
	if (stmt_take(s, ".e5m2x2"))
		return build_cvt_fp8(P, s, ins, true);
	bool ftz = stmt_take(s, ".ftz"), sat = stmt_take(s, ".sat");
	bool relu = stmt_take(s, ".relu");
	int rnd = stmt_take_rnd(s);
	if (!pp_nops(P, s, 2, 3))
		return false;
	ptx_type dt = pp_want_type(P, s, 0), st = pp_want_type(P, s, 1);
	if (dt == T_NONE || st == T_NONE)
		return false;
	if ((dt == T_F16X2 || dt == T_BF16X2) && st == T_F32 && !relu && s->nops == 3 &&
	    (rnd == RND_RN || rnd == RND_RZ || rnd == RND_RM || rnd == RND_RP)) {
		/* d = {cvt(a) in the upper half, cvt(b) in the lower} */
		ins->op = OP_CVT;
		ins->t1 = (uint8_t)dt;
		ins->t2 = T_F32;
		ins->aux2 = (uint8_t)rnd;
		ins->flags |= (uint16_t)((ftz ? F_FTZ : 0) | (sat ? F_SAT : 0));
		return pp_dst(P, s, 0, &ins->o[0]) && pp_src(P, s, 1, st, &ins->o[1]) &&
		       pp_src(P, s, 2, st, &ins->o[2]);
	}
	if (dt == T_PRED || st == T_PRED || dt == T_F16X2 || st == T_F16X2 || dt == T_BF16X2 ||
	    st == T_BF16X2 || relu) {
		pp_err(P, &s->optok, CS_ERR_UNSUPPORTED, "this cvt form");
		return false;
	}
	bool df = ptx_type_float(dt), sf = ptx_type_float(st);
	if (df && sf && ptx_type_bytes(dt) < ptx_type_bytes(st) && rnd == RND_NONE) {
		pp_err(P, &s->optok, CS_ERR_INPUT, "narrowing float cvt needs a rounding mode");
		return false;
	}
	if (!df && sf && rnd == RND_NONE) {
		pp_err(P, &s->optok, CS_ERR_INPUT, "float-to-integer cvt needs a rounding mode");
		return false;
	}
	if (s->nops != 2) {
		pp_err(P, &s->optok, CS_ERR_INPUT, "cvt takes 2 operands");
		return false;
	}
	ins->op = OP_CVT;
	ins->t1 = (uint8_t)dt;
	ins->t2 = (uint8_t)st;
	ins->aux2 = (uint8_t)rnd;
	ins->flags |= (uint16_t)((ftz ? F_FTZ : 0) | (sat ? F_SAT : 0));
	return pp_dst(P, s, 0, &ins->o[0]) && pp_src(P, s, 1, st, &ins->o[1]);
}

bool ptx_build_cvta(pp *P, stmt *s, ptx_ins *ins, int form)
{
	(void)form;
	bool to = stmt_take(s, ".to");
	static const char *const sp[] = { ".global", ".shared", ".local", ".const", ".param",
					  ".shared::cta", ".shared::cluster" };
	static const int spv[] = { SP_GLOBAL, SP_SHARED, SP_LOCAL, SP_CONST, SP_KPARAM, SP_SHARED,
				   SP_SHARED };
	int k = stmt_take_one(s, sp, 7);
	if (k < 0 || !pp_nops(P, s, 2, 2)) {
		if (!P->failed)
			pp_err(P, &s->optok, CS_ERR_INPUT, "cvta needs a state space");
		return false;
	}
	if (spv[k] == SP_KPARAM && !P->p->funcs[P->cur_func].is_entry) {
		pp_err(P, &s->optok, CS_ERR_UNSUPPORTED, "cvta.param in a device function");
		return false;
	}
	ptx_type t = pp_want_type(P, s, 0);
	if (t == T_NONE)
		return false;
	/* global and const generic addresses are the VAs themselves: a move */
	ins->op = (spv[k] == SP_GLOBAL || spv[k] == SP_CONST) ? OP_MOV : OP_CVTA;
	ins->aux = (uint8_t)spv[k];
	ins->t1 = (uint8_t)t;
	ins->flags |= (uint16_t)(to ? F_TO : 0);
	return pp_dst(P, s, 0, &ins->o[0]) && pp_src(P, s, 1, t, &ins->o[1]);
}

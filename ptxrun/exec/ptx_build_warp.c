/* SPDX-License-Identifier: MIT */
/* Warp-level operations and barriers: shfl, vote, match, redux, elect,
 * activemask, bar and barrier. */
#include "ptx_build.h"

bool ptx_build_shfl(pp *P, stmt *s, ptx_ins *ins, int form)
{
	(void)form;
	static const char *const modes[] = { ".up", ".down", ".bfly", ".idx" };
	int m = stmt_take_one(s, modes, 4);
	if (m < 0) {
		pp_err(P, &s->optok, CS_ERR_INPUT, "shfl needs a mode");
		return false;
	}
	if (!pp_nops(P, s, 4, 5))
		return false;
	ptx_type t = pp_want_type(P, s, 0);
	if (t != T_B32) {
		if (!P->failed)
			pp_err(P, &s->optok, CS_ERR_INPUT, "shfl needs .b32");
		return false;
	}
	ins->op = OP_SHFL;
	ins->aux = (uint8_t)m;
	ins->t1 = T_B32;
	opnd *d0 = &s->o[0];
	if (d0->kind != OK_REG || d0->is_addr || d0->slot < SR_COUNT) {
		pp_err(P, &d0->at, CS_ERR_INPUT, "shfl writes a register");
		return false;
	}
	ins->o[0] = d0->slot;
	ins->o[4] = PTX_NONE;
	if (d0->has_pipe) {
		ins->flags |= F_HAS_C;
		ins->o[4] = d0->pipe_pred;
	}
	if (s->nops == 5)
		ins->flags |= F_MEMBER_MASK;
	return pp_src(P, s, 1, T_B32, &ins->o[1]) && pp_src(P, s, 2, T_B32, &ins->o[2]) &&
	       pp_src(P, s, 3, T_B32, &ins->o[3]) &&
	       (s->nops < 5 || pp_src(P, s, 4, T_B32, &ins->o[5]));
}

bool ptx_build_vote(pp *P, stmt *s, ptx_ins *ins, int form)
{
	(void)form;
	static const char *const modes[] = { ".all", ".any", ".uni", ".ballot" };
	int m = stmt_take_one(s, modes, 4);
	if (m < 0) {
		pp_err(P, &s->optok, CS_ERR_INPUT, "vote needs a mode");
		return false;
	}
	if (!pp_nops(P, s, 2, 3))
		return false;
	ptx_type t = pp_want_type(P, s, 0);
	if (t == T_NONE || (m == VO_BALLOT) != (t == T_B32)) {
		if (!P->failed)
			pp_err(P, &s->optok, CS_ERR_INPUT, "vote type does not match its mode");
		return false;
	}
	ins->op = OP_VOTE;
	ins->aux = (uint8_t)m;
	bool neg;
	if (!pp_pred_src(P, s, 1, &ins->o[1], &neg))
		return false;
	if (neg)
		ins->flags |= F_NEG_A;
	if (s->nops == 3) {
		ins->flags |= F_MEMBER_MASK;
		if (!pp_src(P, s, 2, T_B32, &ins->o[5]))
			return false;
	}
	if (m == VO_BALLOT)
		return pp_dst(P, s, 0, &ins->o[0]);
	return pp_pred_dst(P, s, 0, &ins->o[0]);
}

bool ptx_build_match(pp *P, stmt *s, ptx_ins *ins, int form)
{
	(void)form;
	static const char *const modes[] = { ".any", ".all" };
	int k = stmt_take_one(s, modes, 2);
	stmt_take(s, ".sync");
	ptx_type t = s->ntypes == 1 ? s->types[0] : T_NONE;
	if (k < 0 || (t != T_B32 && t != T_B64)) {
		pp_err(P, &s->optok, CS_ERR_INPUT, "match needs .any or .all and .b32 or .b64");
		return false;
	}
	if (!pp_nops(P, s, 3, 3))
		return false;
	ins->op = OP_MATCH;
	ins->aux = (uint8_t)k;
	ins->t1 = (uint8_t)t;
	ins->flags |= F_MEMBER_MASK;
	opnd *d0 = &s->o[0];
	if (d0->kind != OK_REG || d0->is_addr || d0->slot < SR_COUNT ||
	    (d0->has_pipe && k != MA_ALL)) {
		pp_err(P, &d0->at, CS_ERR_INPUT, "match writes a register (and a predicate for .all)");
		return false;
	}
	ins->o[0] = d0->slot;
	ins->o[4] = d0->has_pipe ? d0->pipe_pred : PTX_NONE;
	return pp_src(P, s, 1, t, &ins->o[1]) && pp_src(P, s, 2, T_B32, &ins->o[5]);
}

bool ptx_build_redux(pp *P, stmt *s, ptx_ins *ins, int form)
{
	(void)form;
	static const char *const ops[] = { ".add", ".min", ".max", ".and", ".or", ".xor" };
	stmt_take(s, ".sync");
	int k = stmt_take_one(s, ops, 6);
	uint8_t fq = (uint8_t)((stmt_take(s, ".abs") ? REDUX_ABS : 0) | (stmt_take(s, ".NaN") ? REDUX_NAN : 0));
	ptx_type t = s->ntypes == 1 ? s->types[0] : T_NONE;
	bool ok = k >= 0 && (t == T_F32 ? k == 1 || k == 2
			     : !fq && (k <= 2 ? (t == T_U32 || t == T_S32) : t == T_B32));
	if (!ok) {
		pp_err(P, &s->optok, CS_ERR_UNSUPPORTED, "this redux form");
		return false;
	}
	if (!pp_nops(P, s, 3, 3))
		return false;
	ins->op = OP_REDUX;
	ins->aux = (uint8_t)k;
	ins->aux2 = fq;
	ins->t1 = (uint8_t)t;
	ins->flags |= F_MEMBER_MASK;
	ins->o[4] = PTX_NONE;
	return pp_dst(P, s, 0, &ins->o[0]) && pp_src(P, s, 1, t, &ins->o[1]) &&
	       pp_src(P, s, 2, T_B32, &ins->o[5]);
}

/* elect.sync d|p, membermask (d may be the sink `_`). */
bool ptx_build_elect(pp *P, stmt *s, ptx_ins *ins, int form)
{
	(void)form;
	if (!stmt_take(s, ".sync") || !pp_nops(P, s, 2, 2)) {
		if (!P->failed)
			pp_err(P, &s->optok, CS_ERR_INPUT, "elect.sync d|p, membermask");
		return false;
	}
	opnd *d0 = &s->o[0];
	if (!d0->has_pipe || (d0->kind == OK_REG && (d0->is_addr || d0->slot < SR_COUNT)) ||
	    (d0->kind != OK_REG && d0->kind != OK_SINK)) {
		pp_err(P, &d0->at, CS_ERR_INPUT, "elect.sync writes a register (or _) and a predicate");
		return false;
	}
	ins->op = OP_ELECT;
	ins->flags |= F_MEMBER_MASK;
	ins->o[0] = d0->kind == OK_REG ? d0->slot : PTX_NONE;
	ins->o[1] = PTX_NONE;
	ins->o[4] = d0->pipe_pred;
	return pp_src(P, s, 1, T_B32, &ins->o[5]);
}

bool ptx_build_activemask(pp *P, stmt *s, ptx_ins *ins, int form)
{
	(void)form;
	if (!pp_nops(P, s, 1, 1) || pp_want_type(P, s, 0) != T_B32) {
		if (!P->failed)
			pp_err(P, &s->optok, CS_ERR_INPUT, "activemask.b32 d");
		return false;
	}
	ins->op = OP_ACTIVEMASK;
	return pp_dst(P, s, 0, &ins->o[0]);
}

/* bar, barrier (form BAR_PLAIN, BAR_NEEDS_MODE), and bar.warp.sync. */
bool ptx_build_bar(pp *P, stmt *s, ptx_ins *ins, int form)
{
	if (form == BAR_NEEDS_MODE && stmt_take(s, ".cluster")) {
		pp_err(P, &s->optok, CS_ERR_UNSUPPORTED, "barrier.cluster (the cluster barrier "
		       "is not modelled)");
		return false;
	}
	bool warp = stmt_take(s, ".warp");
	bool sync = stmt_take(s, ".sync");
	bool arrive = stmt_take(s, ".arrive");
	bool red = stmt_take(s, ".red");
	stmt_take(s, ".aligned");
	if (warp) {
		ins->op = OP_WARPSYNC;
		ins->flags |= F_MEMBER_MASK;
		return pp_nops(P, s, 1, 1) && pp_src(P, s, 0, T_B32, &ins->o[5]);
	}
	if (red) {
		static const char *const rops[] = { ".popc", ".and", ".or" };
		int r = stmt_take_one(s, rops, 3);
		ptx_type t = pp_want_type(P, s, 0);
		if (r < 0 || t == T_NONE) {
			if (!P->failed)
				pp_err(P, &s->optok, CS_ERR_INPUT, "bar.red needs .popc/.and/.or and a type");
			return false;
		}
		if (!pp_nops(P, s, 3, 4))
			return false;
		ins->op = OP_BAR_RED;
		ins->aux2 = (uint8_t)r;
		ins->t1 = (uint8_t)t;
		bool neg;
		int ci = s->nops - 1;
		if (!pp_pred_src(P, s, ci, &ins->o[3], &neg))
			return false;
		if (neg)
			ins->flags |= F_NEG_C;
		ins->o[2] = PTX_NONE;
		if (!pp_src(P, s, 1, T_U32, &ins->o[1]) ||
		    (s->nops == 4 && !pp_src(P, s, 2, T_U32, &ins->o[2])))
			return false;
		if (r == 0)
			return pp_dst(P, s, 0, &ins->o[0]);
		return pp_pred_dst(P, s, 0, &ins->o[0]);
	}
	if (!sync && !arrive && form == BAR_NEEDS_MODE) {
		pp_err(P, &s->optok, CS_ERR_INPUT, "barrier needs .sync or .arrive");
		return false;
	}
	if (!pp_nops(P, s, arrive ? 2 : 1, 2))
		return false;
	ins->op = OP_BAR;
	ins->aux = arrive ? 1 : 0;
	ins->o[1] = PTX_NONE;
	if (!pp_src(P, s, 0, T_U32, &ins->o[0]))
		return false;
	if (s->nops == 2 && !pp_src(P, s, 1, T_U32, &ins->o[1]))
		return false;
	return true;
}

/* SPDX-License-Identifier: MIT */
/* Loads, stores and address spaces: ld, ldu, st, isspacep, and the cluster's
 * getctarank and mapa. */
#include "ptx_build.h"

#include <stdlib.h>
#include <string.h>

/* ld, ldu, st (form OP_LD, OP_ST): scalar or .v2/.v4, in a state space or generic. */
bool ptx_build_ld_st(pp *P, stmt *s, ptx_ins *ins, int form)
{
	bool load = form == OP_LD;
	/* .shared::cluster is the CTA's own shared memory in its implicit cluster */
	static const char *const sp[] = { ".global", ".shared", ".local", ".const", ".param",
					  ".shared::cta", ".shared::cluster" };
	static const int spv[] = { SP_GLOBAL, SP_SHARED, SP_LOCAL, SP_CONST, SP_KPARAM, SP_SHARED,
				   SP_SHARED };
	int k = stmt_take_one(s, sp, 7);
	int space = k < 0 ? SP_GENERIC : spv[k];
	int vec = stmt_take(s, ".v2") ? 2 : stmt_take(s, ".v4") ? 4 : 1;
	ptx_type t = pp_want_type(P, s, 0);
	if (t == T_NONE || t == T_PRED) {
		if (!P->failed)
			pp_err(P, &s->optok, CS_ERR_INPUT, "%s needs a value type", s->base);
		return false;
	}
	if (!pp_nops(P, s, 2, 2))
		return false;
	opnd *m = &s->o[load ? 1 : 0];
	opnd *v = &s->o[load ? 0 : 1];
	if (m->kind != OK_MEM) {
		pp_err(P, &m->at, CS_ERR_INPUT, "%s needs an address operand [..]", s->base);
		return false;
	}
	if (space == SP_KPARAM) {
		/* a function's own params and call-sequence params are local */
		if (m->mspace == SP_LOCAL || (m->mspace < 0 && !P->p->funcs[P->cur_func].is_entry))
			space = SP_LOCAL;
		else if (m->mspace != SP_KPARAM && m->mspace >= 0) {
			pp_err(P, &m->at, CS_ERR_INPUT, "not a parameter");
			return false;
		}
		if (space == SP_KPARAM && !load) {
			pp_err(P, &s->optok, CS_ERR_INPUT, "st.param to a kernel parameter");
			return false;
		}
	} else if (m->mspace >= 0 && space != SP_GENERIC) {
		bool ok = m->mspace == space || (space == SP_GLOBAL && m->mspace == SP_CONST) ||
			  (space == SP_CONST && m->mspace == SP_GLOBAL);
		if (!ok) {
			pp_err(P, &m->at, CS_ERR_INPUT, "variable is not in the %.*s space",
			       (int)s->modlen[0], s->mod[0]);
			return false;
		}
	} else if (m->mspace >= 0 && space == SP_GENERIC && m->mspace != SP_GLOBAL &&
		   m->mspace != SP_CONST) {
		/* a generic access through a non-global variable's name */
		space = m->mspace;
	}
	if (space == SP_CONST)
		space = SP_GLOBAL;
	stmt_take(s, ".unified");
	ins->op = load ? OP_LD : OP_ST;
	if (load && (stmt_take(s, ".acquire") || stmt_take(s, ".relaxed") || stmt_take(s, ".volatile")))
		ins->flags |= F_SPIN;
	ins->aux = (uint8_t)space;
	ins->aux2 = (uint8_t)vec;
	ins->t1 = (uint8_t)t;
	ins->o[0] = m->mbase;
	ins->imm = m->moff;
	if (vec == 1) {
		if (v->kind == OK_VEC) {
			pp_err(P, &v->at, CS_ERR_INPUT, "vector operand without .v2/.v4");
			return false;
		}
		if (load)
			return pp_dst(P, s, 0, &ins->o[1]);
		return pp_src(P, s, 1, t, &ins->o[1]);
	}
	if (v->kind != OK_VEC || v->nvec != vec || v->vec_pred) {
		pp_err(P, &v->at, CS_ERR_INPUT, "expected a %d-element vector", vec);
		return false;
	}
	if (load && !pp_vec_dst(P, s, 0))
		return false;
	for (int i = 0; i < vec; i++) {
		ins->o[1 + i] = pp_vec_src(P, v, i, t);
		if (!load && ins->o[1 + i] == PTX_NONE) {
			pp_err(P, &v->at, CS_ERR_INPUT, "'_' in a stored vector");
			return false;
		}
	}
	return true;
}

bool ptx_build_isspacep(pp *P, stmt *s, ptx_ins *ins, int form)
{
	(void)form;
	static const char *const spaces[] = { ".global", ".shared", ".local", ".const",
					      ".param", ".param::entry", ".shared::cta" };
	static const int space_of[] = { SP_GLOBAL, SP_SHARED, SP_LOCAL, SP_CONST, SP_KPARAM,
					SP_KPARAM, SP_SHARED };
	int k = stmt_take_one(s, spaces, 7);
	if (k < 0) {
		pp_err(P, &s->optok, CS_ERR_UNSUPPORTED, "isspacep needs a state space it models");
		return false;
	}
	if (!pp_nops(P, s, 2, 2))
		return false;
	ins->op = OP_ISSPACEP;
	ins->aux = (uint8_t)space_of[k];
	return pp_pred_dst(P, s, 0, &ins->o[0]) && pp_src(P, s, 1, T_U64, &ins->o[1]);
}

/* Whether the module's .target is sm_90 or later (what the cluster
 * instructions and registers, and griddepcontrol, require). */
bool pp_target_has_clusters(const pp *P)
{
	const char *t = P->p->target;
	return !strncmp(t, "sm_", 3) && strtoul(t + 3, NULL, 10) >= 90;
}

/* getctarank{.shared::cluster}.{u32,u64} d, a and mapa{.shared::cluster}.{u32,u64}
 * d, a, rank (form CL_RANK, CL_MAPA). */
bool ptx_build_cluster_addr(pp *P, stmt *s, ptx_ins *ins, int form)
{
	bool cluster = stmt_take(s, ".shared::cluster");
	if (!pp_target_has_clusters(P)) {
		pp_err(P, &s->optok, CS_ERR_INPUT, "%s requires sm_90 or later (.target %s)", s->base,
		       P->p->target);
		return false;
	}
	ptx_type t = s->ntypes == 1 ? s->types[0] : T_NONE;
	if (t != T_U32 && t != T_U64) {
		pp_err(P, &s->optok, CS_ERR_INPUT, "%s takes .u32 or .u64", s->base);
		return false;
	}
	if (!pp_nops(P, s, form == CL_MAPA ? 3 : 2, form == CL_MAPA ? 3 : 2))
		return false;
	ins->op = OP_CLUSTER_ADDR;
	ins->aux = (uint8_t)form;
	ins->aux2 = cluster ? 1 : 0;
	ins->t1 = (uint8_t)(form == CL_MAPA ? t : T_U32);
	ins->t2 = (uint8_t)t;
	return pp_dst(P, s, 0, &ins->o[0]) && pp_src(P, s, 1, t, &ins->o[1]) &&
	       (form != CL_MAPA || pp_src(P, s, 2, T_U32, &ins->o[2]));
}

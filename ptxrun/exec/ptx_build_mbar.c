/* SPDX-License-Identifier: MIT */
/* mbarrier objects in shared memory (docs/mbarrier.md): mbarrier.init, inval,
 * arrive, arrive_drop (with .expect_tx and .noComplete), expect_tx,
 * complete_tx, test_wait, try_wait (with .parity), pending_count;
 * cp.async.mbarrier.arrive{.noinc}; and the bulk copy that signals one,
 * cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes. */
#include "ptx_build.h"

/* The object's state space: .shared, .shared::cta, .shared::cluster (a
 * cluster of one CTA: the CTA's own shared memory) or generic. */
static bool mbar_space(pp *P, stmt *s, const opnd *m, uint8_t *space)
{
	if (m->kind != OK_MEM) {
		pp_err(P, &m->at, CS_ERR_INPUT, "%s needs the mbarrier's address [..]", s->base);
		return false;
	}
	bool shared = stmt_take(s, ".shared") || stmt_take(s, ".shared::cta") ||
		      stmt_take(s, ".shared::cluster");
	if (m->mspace >= 0 && m->mspace != SP_SHARED) {
		pp_err(P, &m->at, CS_ERR_INPUT, "an mbarrier object lives in shared memory");
		return false;
	}
	*space = shared || m->mspace == SP_SHARED ? SP_SHARED : SP_GENERIC;
	return true;
}

/* The ordering qualifiers (.release, .acquire, .relaxed, .cta, .cluster) are
 * hints (ptx_ins.c): the executor runs one lane at a time. */
bool ptx_build_mbarrier(pp *P, stmt *s, ptx_ins *ins, int form)
{
	(void)form;
	static const char *const kinds[] = { ".init", ".inval", ".arrive", ".arrive_drop",
					     ".expect_tx", ".complete_tx", ".test_wait", ".try_wait",
					     ".pending_count" };
	int kind = stmt_take_one(s, kinds, 9);
	if (kind < 0) {
		pp_err(P, &s->optok, CS_ERR_UNSUPPORTED, "mbarrier operation not supported");
		return false;
	}
	ptx_type t = pp_want_type(P, s, 0);
	if (t == T_NONE)
		return false;
	if (t != T_B64) {
		pp_err(P, &s->optok, CS_ERR_INPUT, "mbarrier takes .b64");
		return false;
	}
	ins->op = OP_MBAR;
	ins->aux = (uint8_t)kind;
	ins->o[0] = ins->o[1] = ins->o[2] = PTX_NONE;
	if (kind == MB_PENDING_COUNT) {
		if (!pp_nops(P, s, 2, 2) || !pp_dst(P, s, 0, &ins->o[0]) || !pp_src(P, s, 1, T_B64, &ins->o[2]))
			return false;
		return true;
	}
	int mi; /* the address operand */
	switch (kind) {
	case MB_INIT:
		if (!pp_nops(P, s, 2, 2) || !pp_src(P, s, 1, T_U32, &ins->o[2]))
			return false;
		mi = 0;
		break;
	case MB_INVAL:
		if (!pp_nops(P, s, 1, 1))
			return false;
		mi = 0;
		break;
	case MB_EXPECT_TX:
	case MB_COMPLETE_TX:
		if (!pp_nops(P, s, 2, 2) || !pp_src(P, s, 1, T_U32, &ins->o[2]))
			return false;
		mi = 0;
		break;
	case MB_ARRIVE:
	case MB_ARRIVE_DROP: {
		if (stmt_take(s, ".expect_tx"))
			ins->aux2 |= MBF_EXPECT_TX;
		if (stmt_take(s, ".noComplete"))
			ins->aux2 |= MBF_NO_COMPLETE;
		bool expect = ins->aux2 & MBF_EXPECT_TX;
		if (!pp_nops(P, s, expect ? 3 : 2, 3))
			return false;
		if (s->o[0].kind != OK_SINK && !pp_dst(P, s, 0, &ins->o[0]))
			return false;
		if (s->nops == 3 && !pp_src(P, s, 2, T_U32, &ins->o[2]))
			return false;
		mi = 1;
		break;
	}
	default: /* MB_TEST_WAIT, MB_TRY_WAIT */
		if (stmt_take(s, ".parity"))
			ins->aux2 |= MBF_PARITY;
			/* try_wait's suspend-time hint bounds how long a thread may sleep:
		 * chainsim lets the other warps run instead (docs/mbarrier.md) */
		if (!pp_nops(P, s, 3, kind == MB_TRY_WAIT ? 4 : 3) || !pp_pred_dst(P, s, 0, &ins->o[0]) ||
		    !pp_src(P, s, 2, (ins->aux2 & MBF_PARITY) ? T_U32 : T_B64, &ins->o[2]))
			return false;
		if (s->nops == 4) {
			uint32_t hint;
			if (!pp_src(P, s, 3, T_U32, &hint))
				return false;
		}
		mi = 1;
		break;
	}
	uint8_t space;
	if (!mbar_space(P, s, &s->o[mi], &space))
		return false;
	ins->t2 = space;
	ins->o[1] = s->o[mi].mbase;
	ins->imm = s->o[mi].moff;
	return !P->failed;
}

/* cp.async.mbarrier.arrive{.noinc}{.shared{::cta}}.b64 [addr]: the arrive-on
 * operation fires once the thread's earlier cp.async copies have landed. */
bool ptx_build_cp_mbarrier(pp *P, stmt *s, ptx_ins *ins)
{
	if (!stmt_take(s, ".arrive")) {
		pp_err(P, &s->optok, CS_ERR_UNSUPPORTED, "cp.async.mbarrier other than .arrive");
		return false;
	}
	bool noinc = stmt_take(s, ".noinc");
	ptx_type t = pp_want_type(P, s, 0);
	if (t == T_NONE)
		return false;
	if (t != T_B64 || !pp_nops(P, s, 1, 1)) {
		if (!P->failed)
			pp_err(P, &s->optok, CS_ERR_INPUT, "cp.async.mbarrier.arrive.b64 [addr]");
		return false;
	}
	uint8_t space;
	if (!mbar_space(P, s, &s->o[0], &space))
		return false;
	ins->op = OP_MBAR;
	ins->aux = MB_CP_ASYNC_ARRIVE;
	ins->aux2 = noinc ? MBF_NOINC : 0;
	ins->t2 = space;
	ins->o[0] = ins->o[2] = PTX_NONE;
	ins->o[1] = s->o[0].mbase;
	ins->imm = s->o[0].moff;
	return true;
}

/* cp.async.bulk.shared::{cluster,cta}.global.mbarrier::complete_tx::bytes
 * [dst], [src], size, [mbar]: size bytes (a multiple of 16, both addresses
 * 16-aligned) from global to the CTA's shared memory, then a complete-tx of
 * size on the mbarrier. */
bool ptx_build_cp_bulk(pp *P, stmt *s, ptx_ins *ins)
{
	if ((!stmt_take(s, ".shared::cluster") && !stmt_take(s, ".shared::cta")) ||
	    !stmt_take(s, ".global") || !stmt_take(s, ".mbarrier::complete_tx::bytes")) {
		pp_err(P, &s->optok, CS_ERR_UNSUPPORTED,
		       "cp.async.bulk other than .shared::cluster.global.mbarrier::complete_tx::bytes");
		return false;
	}
	if (!pp_nops(P, s, 4, 4))
		return false;
	opnd *dm = &s->o[0], *sm = &s->o[1];
	if (dm->kind != OK_MEM || sm->kind != OK_MEM) {
		pp_err(P, &s->optok, CS_ERR_INPUT, "cp.async.bulk [shared], [global], size, [mbarrier]");
		return false;
	}
	ins->op = OP_MBAR;
	ins->aux = MB_CP_BULK;
	ins->t2 = SP_SHARED;
	ins->o[0] = dm->mbase;
	ins->o[3] = pp_const_slot(P, (uint64_t)dm->moff, PP_VAR_LITERAL);
	ins->o[4] = sm->mbase;
	ins->o[5] = pp_const_slot(P, (uint64_t)sm->moff, PP_VAR_LITERAL);
	if (!pp_src(P, s, 2, T_U32, &ins->o[2]))
		return false;
	uint8_t space;
	if (!mbar_space(P, s, &s->o[3], &space))
		return false;
	ins->o[1] = s->o[3].mbase;
	ins->imm = s->o[3].moff;
	return !P->failed;
}

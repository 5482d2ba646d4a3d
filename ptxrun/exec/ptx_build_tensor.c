/* SPDX-License-Identifier: MIT */
/* Tensor cores and the data movement that feeds them: mma, wmma, ldmatrix,
 * cp.async. */
#include "ptx_build.h"

#include <stdlib.h>
#include <string.h>

/* One fragment of mma.sync or wmma: n registers in a vector operand. */
static bool mma_fragment(pp *P, stmt *s, int i, int n, bool written, uint32_t *regs)
{
	opnd *o = &s->o[i];
	if (o->kind != OK_VEC || o->nvec != n || o->vec_pred || (written && !pp_vec_dst(P, s, i))) {
		if (!P->failed)
			pp_err(P, &o->at, CS_ERR_INPUT, "operand %d of %s takes %d registers", i + 1,
			       s->base, n);
		return false;
	}
	for (int k = 0; k < n; k++) {
		regs[k] = o->vec[k];
		if (regs[k] == PTX_NONE || (written && regs[k] < SR_COUNT)) {
			pp_err(P, &o->at, CS_ERR_INPUT, "operand %d of %s: element %d is not a register",
			       i + 1, s->base, k);
			return false;
		}
	}
	return true;
}

static bool add_mma(pp *P, const ptx_mma *mm, ptx_ins *ins)
{
	cs_ptx_program *p = P->p;
	if (p->nmmas == p->cap_mmas) {
		size_t cap = p->cap_mmas ? p->cap_mmas * 2 : 16;
		ptx_mma *grown = realloc(p->mmas, cap * sizeof(*grown));
		if (!grown) {
			pp_err(P, NULL, CS_ERR_NOMEM, "out of memory");
			return false;
		}
		p->mmas = grown;
		p->cap_mmas = cap;
	}
	p->mmas[p->nmmas] = *mm;
	ins->op = OP_MMA;
	ins->imm = (int64_t)p->nmmas++;
	return true;
}

static int mma_type(ptx_type t)
{
	return t == T_F16 ? MMA_F16 : t == T_BF16 ? MMA_BF16 : t == T_F32 ? MMA_F32 : -1;
}

/* mma.sync.aligned.m16n8k{8,16}.row.col.dtype.atype.btype.ctype d, a, b, c for
 * f16 and bf16 inputs (k 8 or 16) and tf32 inputs (k 8), f32 or f16 D and C;
 * wmma.mma.sync.aligned.alayout.blayout.m16n16k16.dtype.ctype (f16 inputs),
 * .m16n16k16.f32.bf16.bf16.f32 and .m16n16k8.f32.tf32.tf32.f32. */
static bool build_mma(pp *P, stmt *s, ptx_ins *ins, bool wmma)
{
	stmt_take(s, ".sync");
	stmt_take(s, ".aligned");
	int k = stmt_take(s, wmma ? ".m16n16k16" : ".m16n8k16") ? 16
		: stmt_take(s, wmma ? ".m16n16k8" : ".m16n8k8") ? 8 : 0;
	/* wmma's fragments are in the model's own layout whatever the memory
	 * layout, so any .row/.col pair goes */
	static const char *const layouts[] = { ".row", ".col" };
	bool layout = wmma ? stmt_take_one(s, layouts, 2) >= 0 && stmt_take_one(s, layouts, 2) >= 0
			   : stmt_take(s, ".row") && stmt_take(s, ".col");
	ptx_mma mm;
	memset(&mm, 0, sizeof(mm));
	int ty[4] = { -1, -1, -1, -1 };
	/* .tf32 is no type the lexer knows: a modifier */
	bool tf32 = stmt_take(s, ".tf32") && stmt_take(s, ".tf32");
	bool f16_form = wmma && !tf32 && s->ntypes == 2; /* wmma.mma...dtype.ctype */
	if (tf32 && s->ntypes == 2) {
		ty[0] = mma_type(s->types[0]);
		ty[1] = ty[2] = MMA_TF32;
		ty[3] = mma_type(s->types[1]);
	} else if (f16_form) {
		ty[0] = mma_type(s->types[0]);
		ty[1] = ty[2] = MMA_F16;
		ty[3] = mma_type(s->types[1]);
	} else if (!tf32 && s->ntypes == 4) {
		for (int i = 0; i < 4; i++)
			ty[i] = mma_type(s->types[i]);
	}
	bool half_in = ty[1] == ty[2] && (ty[1] == MMA_F16 || ty[1] == MMA_BF16) &&
		       (!wmma || k == 16) && (!wmma || f16_form == (ty[1] == MMA_F16));
	bool ok = k && layout && (half_in || (ty[1] == MMA_TF32 && k == 8)) &&
		  (ty[0] == MMA_F32 || (ty[0] == MMA_F16 && ty[1] == MMA_F16)) &&
		  (ty[3] == MMA_F32 || (ty[3] == MMA_F16 && ty[1] == MMA_F16));
	if (!ok) {
		pp_err(P, &s->optok, CS_ERR_UNSUPPORTED, wmma
		       ? "this wmma.mma form (the model runs m16n16k16 with f16 inputs and f32 or f16 "
			 "D and C, m16n16k16.f32.bf16.bf16.f32 and m16n16k8.f32.tf32.tf32.f32)"
		       : "this mma form (the model runs mma.sync.aligned.m16n8k{8,16}.row.col with "
			 "f16/bf16 inputs, or m16n8k8 with tf32, and f32 or f16 D and C)");
		return false;
	}
	if (!pp_nops(P, s, 4, 4))
		return false;
	mm.wmma = wmma;
	mm.k = (uint8_t)k;
	mm.cd_type = (uint8_t)ty[0];
	mm.ab_type = (uint8_t)ty[1];
	mm.c_type = (uint8_t)ty[3];
	/* per the PTX ISA's fragment tables: a .b32 register holds two f16/bf16
	 * elements or one tf32/f32; an f16 wmma A or B has eight regardless */
	unsigned cd_per_reg = ty[0] == MMA_F16 ? 2 : 1, c_per_reg = ty[3] == MMA_F16 ? 2 : 1;
	unsigned ab_per_reg = ty[1] == MMA_TF32 ? 1 : 2, n = wmma ? 16 : 8;
	mm.nd = (uint8_t)(16 * n / PTX_WARP / cd_per_reg);
	mm.nc = (uint8_t)(16 * n / PTX_WARP / c_per_reg);
	mm.na = (uint8_t)(wmma && ty[1] == MMA_F16 ? 8 : 16 * k / PTX_WARP / ab_per_reg);
	mm.nb = (uint8_t)(wmma && ty[1] == MMA_F16 ? 8 : k * n / PTX_WARP / ab_per_reg);
	if (!mma_fragment(P, s, 0, mm.nd, true, mm.d) || !mma_fragment(P, s, 1, mm.na, false, mm.a) ||
	    !mma_fragment(P, s, 2, mm.nb, false, mm.b) || !mma_fragment(P, s, 3, mm.nc, false, mm.c))
		return false;
	return add_mma(P, &mm, ins);
}

/* wmma.load.{a,b,c}.sync.aligned.{row,col}.shape{.ss}.type r, [p]{, stride}
 * and wmma.store.d.sync.aligned.{row,col}.shape{.ss}.type [p], r{, stride}:
 * f16 A/B/C/D, bf16 A/B, f32 C/D at m16n16k16; tf32 A/B, f32 C/D at m16n16k8. */
static bool build_wmma_ldst(pp *P, stmt *s, ptx_ins *ins, bool load)
{
	static const char *const frags[] = { ".a", ".b", ".c", ".d" };
	static const char *const layouts[] = { ".row", ".col" };
	int frag = stmt_take_one(s, frags, 4);
	stmt_take(s, ".sync");
	stmt_take(s, ".aligned");
	int col = stmt_take_one(s, layouts, 2);
	int k = stmt_take(s, ".m16n16k16") ? 16 : stmt_take(s, ".m16n16k8") ? 8 : 0;
	int space = stmt_take(s, ".global") ? SP_GLOBAL
		    : stmt_take(s, ".shared") || stmt_take(s, ".shared::cta") ? SP_SHARED : SP_GENERIC;
	bool tf32 = stmt_take(s, ".tf32");
	int type = tf32 && s->ntypes == 0 ? MMA_TF32 : !tf32 && s->ntypes == 1 ? mma_type(s->types[0]) : -1;
	bool ab = frag == WM_A || frag == WM_B;
	bool ok = frag >= 0 && type >= 0 && (load ? frag != WM_D : frag == WM_D) && col >= 0 && k &&
		  (ab ? (type == MMA_TF32) == (k == 8) && type != MMA_F32
		      : type == MMA_F32 || (type == MMA_F16 && k == 16));
	if (!ok) {
		pp_err(P, &s->optok, CS_ERR_UNSUPPORTED,
		       "this wmma.%s form (the model runs .m16n16k16 with f16 A/B/C/D, bf16 A/B and "
		       "f32 C/D, and .m16n16k8 with tf32 A/B and f32 C/D)", load ? "load" : "store");
		return false;
	}
	if (!pp_nops(P, s, 2, 3))
		return false;
	ptx_wmma w;
	memset(&w, 0, sizeof(w));
	w.frag = (uint8_t)frag;
	w.type = (uint8_t)type;
	w.k = (uint8_t)k;
	w.col = (uint8_t)col;
	w.space = (uint8_t)space;
	/* registers per fragment, per the PTX ISA's tables */
	w.nregs = type == MMA_F16 ? (ab ? 8 : 4) : type == MMA_BF16 || type == MMA_TF32 ? 4 : 8;
	opnd *m = &s->o[load ? 1 : 0];
	if (m->kind != OK_MEM) {
		pp_err(P, &m->at, CS_ERR_INPUT, "operand %d of wmma needs an address [..]", load ? 2 : 1);
		return false;
	}
	if (!mma_fragment(P, s, load ? 0 : 1, w.nregs, load, w.regs))
		return false;
	/* base and stride stay in the instruction, where linking resolves
	 * constant slots (a symbol's address, an immediate stride) */
	w.off = m->moff;
	ins->o[0] = m->mbase;
	ins->o[1] = PTX_NONE;
	if (s->nops == 3 && !pp_src(P, s, 2, T_U32, &ins->o[1]))
		return false;
	cs_ptx_program *p = P->p;
	if (p->nwmmas == p->cap_wmmas) {
		size_t cap = p->cap_wmmas ? p->cap_wmmas * 2 : 16;
		ptx_wmma *grown = realloc(p->wmmas, cap * sizeof(*grown));
		if (!grown) {
			pp_err(P, NULL, CS_ERR_NOMEM, "out of memory");
			return false;
		}
		p->wmmas = grown;
		p->cap_wmmas = cap;
	}
	p->wmmas[p->nwmmas] = w;
	ins->op = OP_WMMA_LDST;
	ins->imm = (int64_t)p->nwmmas++;
	return true;
}

bool ptx_build_wmma(pp *P, stmt *s, ptx_ins *ins, int form)
{
	(void)form;
	if (stmt_take(s, ".mma"))
		return build_mma(P, s, ins, true);
	if (stmt_take(s, ".load"))
		return build_wmma_ldst(P, s, ins, true);
	if (stmt_take(s, ".store"))
		return build_wmma_ldst(P, s, ins, false);
	pp_err(P, &s->optok, CS_ERR_UNSUPPORTED, "wmma other than .load, .store and .mma");
	return false;
}

bool ptx_build_mma(pp *P, stmt *s, ptx_ins *ins, int form)
{
	(void)form;
	return build_mma(P, s, ins, false);
}

bool ptx_build_ldmatrix(pp *P, stmt *s, ptx_ins *ins, int form)
{
	(void)form;
	static const char *const counts[] = { ".x1", ".x2", ".x4" };
	int x = stmt_take_one(s, counts, 3);
	bool trans = stmt_take(s, ".trans");
	bool shared = stmt_take(s, ".shared") || stmt_take(s, ".shared::cta");
	ptx_type t = s->ntypes == 1 ? s->types[0] : T_NONE;
	if (!stmt_take(s, ".m8n8") || x < 0 || t != T_B16) {
		pp_err(P, &s->optok, CS_ERR_UNSUPPORTED, "ldmatrix other than .m8n8.x{1,2,4}.b16");
		return false;
	}
	if (!pp_nops(P, s, 2, 2))
		return false;
	int nm = 1 << x;
	opnd *d = &s->o[0], *m = &s->o[1];
	if (m->kind != OK_MEM) {
		pp_err(P, &m->at, CS_ERR_INPUT, "ldmatrix needs an address operand [..]");
		return false;
	}
	ins->op = OP_LDMATRIX;
	ins->aux = (uint8_t)nm;
	ins->aux2 = trans;
	ins->t2 = (uint8_t)(shared ? SP_SHARED : SP_GENERIC);
	ins->o[0] = m->mbase;
	ins->imm = m->moff;
	if (d->kind == OK_VEC) {
		if (d->nvec != nm || d->vec_pred || !pp_vec_dst(P, s, 0)) {
			if (!P->failed)
				pp_err(P, &d->at, CS_ERR_INPUT, "ldmatrix .x%d writes %d registers", nm, nm);
			return false;
		}
		for (int k = 0; k < nm; k++)
			ins->o[1 + k] = d->vec[k];
		return true;
	}
	return nm == 1 && pp_dst(P, s, 0, &ins->o[1]);
}

/* cp.async.{ca,cg}.shared{::cta}.global [dst], [src], cp-size{, src-size}:
 * the source is read at issue, shared memory written at the wait that covers
 * the copy's group; and cp.async.commit_group, .wait_group N, .wait_all. */
bool ptx_build_cp(pp *P, stmt *s, ptx_ins *ins, int form)
{
	(void)form;
	if (!stmt_take(s, ".async")) {
		pp_err(P, &s->optok, CS_ERR_UNSUPPORTED, "cp without .async");
		return false;
	}
	if (stmt_take(s, ".mbarrier"))
		return ptx_build_cp_mbarrier(P, s, ins);
	if (stmt_take(s, ".bulk"))
		return ptx_build_cp_bulk(P, s, ins);
	static const char *const groups[] = { ".commit_group", ".wait_group", ".wait_all" };
	int grp = stmt_take_one(s, groups, 3);
	if (grp >= 0) {
		ins->op = OP_CP_ASYNC_GROUP;
		ins->aux = (uint8_t)grp;
		if (!pp_nops(P, s, grp == CPG_WAIT, grp == CPG_WAIT))
			return false;
		if (grp == CPG_WAIT) {
			if (s->o[0].kind != OK_IMM || s->o[0].immk != 0 || s->o[0].imm > UINT32_MAX) {
				pp_err(P, &s->o[0].at, CS_ERR_INPUT,
				       "cp.async.wait_group takes an integer constant");
				return false;
			}
			ins->imm = (int64_t)s->o[0].imm;
		}
		return true;
	}
	bool cg = stmt_take(s, ".cg");
	if (!cg)
		stmt_take(s, ".ca");
	if ((!stmt_take(s, ".shared") && !stmt_take(s, ".shared::cta")) || !stmt_take(s, ".global")) {
		pp_err(P, &s->optok, CS_ERR_UNSUPPORTED, "cp.async other than shared <- global");
		return false;
	}
	if (!pp_nops(P, s, 3, 4))
		return false;
	opnd *dm = &s->o[0], *sm = &s->o[1], *n = &s->o[2];
	if (dm->kind != OK_MEM || sm->kind != OK_MEM || n->kind != OK_IMM ||
	    (n->imm != 4 && n->imm != 8 && n->imm != 16) || (cg && n->imm != 16)) {
		pp_err(P, &s->optok, CS_ERR_INPUT,
		       "cp.async [shared], [global], 4|8|16 (16 with .cg){, src-size}");
		return false;
	}
	ins->op = OP_CP_ASYNC;
	ins->aux = (uint8_t)n->imm;
	ins->o[0] = dm->mbase;
	ins->imm = dm->moff;
	ins->o[1] = sm->mbase;
	ins->o[3] = pp_const_slot(P, (uint64_t)sm->moff, PP_VAR_LITERAL);
	if (s->nops == 4) {
		if (s->o[3].kind == OK_PRED) {
			/* ignore-src: a true predicate zero-fills the whole copy */
			pp_err(P, &s->o[3].at, CS_ERR_UNSUPPORTED, "cp.async with ignore-src");
			return false;
		}
		if (!pp_src(P, s, 3, T_U32, &ins->o[2]))
			return false;
	}
	return !P->failed;
}

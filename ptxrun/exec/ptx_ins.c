/* Instruction statements: guard, opcode with modifiers, operands, predecoded
 * into one ptx_ins. Every modifier must be understood or on the list of hints
 * that do not change results; anything else is a load-time error. */
#include "ptx_build.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- special registers -------------------------------------------------- */

static const struct {
	const char *name;
	int slot;
} sregs[] = {
	{ "%tid.x", SR_TID_X },       { "%tid.y", SR_TID_Y },       { "%tid.z", SR_TID_Z },
	{ "%ntid.x", SR_NTID_X },     { "%ntid.y", SR_NTID_Y },     { "%ntid.z", SR_NTID_Z },
	{ "%ctaid.x", SR_CTAID_X },   { "%ctaid.y", SR_CTAID_Y },   { "%ctaid.z", SR_CTAID_Z },
	{ "%nctaid.x", SR_NCTAID_X }, { "%nctaid.y", SR_NCTAID_Y }, { "%nctaid.z", SR_NCTAID_Z },
	{ "%laneid", SR_LANEID },     { "%warpid", SR_WARPID },     { "%nwarpid", SR_NWARPID },
	{ "%lanemask_eq", SR_LANEMASK_EQ }, { "%lanemask_lt", SR_LANEMASK_LT },
	{ "%lanemask_le", SR_LANEMASK_LE }, { "%lanemask_gt", SR_LANEMASK_GT },
	{ "%lanemask_ge", SR_LANEMASK_GE }, { "%smid", SR_SMID },   { "%nsmid", SR_NSMID },
	{ "%gridid", SR_GRIDID },       { "%dynamic_smem_size", SR_DYN_SMEM },
	{ "%total_smem_size", SR_TOTAL_SMEM },
};

static int sreg_slot(const ptx_tok *t)
{
	for (size_t i = 0; i < sizeof(sregs) / sizeof(sregs[0]); i++)
		if (strlen(sregs[i].name) == t->len && !memcmp(sregs[i].name, t->s, t->len))
			return sregs[i].slot;
	return -1;
}

static bool tok_eq(const ptx_tok *t, const char *s)
{
	size_t n = strlen(s);
	return t->len == n && memcmp(t->s, s, n) == 0;
}

/* ---- operands ----------------------------------------------------------- */

/* A symbol used as an address: its slot (a constant) and the space it lives in. */
static bool sym_address(pp *P, const pp_sym *s, uint32_t *slot, int *space)
{
	switch (s->kind) {
	case SYM_SHARED:
		*slot = pp_const_slot(P, s->base, PP_VAR_LITERAL);
		*space = SP_SHARED;
		return true;
	case SYM_SHARED_DYN:
		*slot = pp_const_slot(P, 0, PP_VAR_DYNSHARED);
		*space = SP_SHARED;
		return true;
	case SYM_LOCAL:
	case SYM_FPARAM:
		*slot = pp_const_slot(P, s->base, PP_VAR_LITERAL);
		*space = SP_LOCAL;
		return true;
	case SYM_KPARAM:
		*slot = pp_const_slot(P, s->base, PP_VAR_LITERAL);
		*space = SP_KPARAM;
		return true;
	case SYM_MVAR:
		*slot = pp_const_slot(P, 0, (int32_t)s->base);
		*space = P->p->vars[s->base].space == CS_PTX_SPACE_CONST ? SP_CONST : SP_GLOBAL;
		return true;
	default:
		return false;
	}
}

/* A register, predicate, special register or symbol name. */
static bool parse_name_operand(pp *P, opnd *o)
{
	ptx_tok t = P->t;
	o->at = t;
	pp_next(P);
	if (tok_eq(&t, "_")) {
		o->kind = OK_SINK;
		return true;
	}
	if (tok_eq(&t, "WARP_SZ")) {
		/* the PTX constant warpSize compiles to */
		o->kind = OK_IMM;
		o->imm = PTX_WARP;
		return true;
	}
	int sr = sreg_slot(&t);
	if (sr >= 0) {
		o->kind = OK_REG;
		o->slot = (uint32_t)sr;
		return true;
	}
	if (tok_eq(&t, "%clock") || tok_eq(&t, "%clock64") || tok_eq(&t, "%globaltimer") ||
	    tok_eq(&t, "%globaltimer_lo")) {
		o->kind = OK_CLOCK;
		o->clock = tok_eq(&t, "%clock") ? 0 : tok_eq(&t, "%clock64") ? 1 : 2;
		return true;
	}
	uint32_t idx;
	const pp_sym *s = pp_reg_find(P, t.s, t.len, &idx);
	if (s && (s->kind == SYM_REG || s->kind == SYM_RANGE)) {
		o->kind = OK_REG;
		o->slot = SR_COUNT + s->base + idx;
		return true;
	}
	if (s && (s->kind == SYM_PRED || s->kind == SYM_PRANGE)) {
		o->kind = OK_PRED;
		o->pred = s->base + idx;
		return true;
	}
	s = pp_sym_find(P, t.s, t.len);
	int space;
	if (s && sym_address(P, s, &o->slot, &space)) {
		o->kind = OK_REG;
		o->is_addr = true;
		o->mspace = space;
		/* name+N, or name[N] (element N of an array variable), as an address
		 * value: tinygrad's PTX renderer writes `mov.u64 %r, local0[0];` */
		uint64_t off = 0;
		if (pp_punct(P, '+') || pp_punct(P, '-')) {
			bool neg = pp_punct(P, '-');
			pp_next(P);
			if (P->t.kind != TK_INT) {
				pp_err(P, &P->t, CS_ERR_INPUT, "expected an offset");
				return false;
			}
			off = neg ? (uint64_t)0 - P->t.ival : P->t.ival;
			pp_next(P);
		} else if (pp_punct(P, '[')) {
			pp_next(P);
			unsigned elem = ptx_type_bytes((ptx_type)s->type);
			if (P->t.kind != TK_INT || P->t.ival >= s->count / (elem ? elem : 1)) {
				pp_err(P, &P->t, CS_ERR_INPUT, "expected an element index of '%.*s' "
				       "(below %u)", (int)t.len, t.s, s->count / (elem ? elem : 1));
				return false;
			}
			off = P->t.ival * (elem ? elem : 1);
			pp_next(P);
			if (!pp_expect(P, ']'))
				return false;
		}
		if (off) {
			const ptx_const *c = &P->p->consts[o->slot & ~PP_CONST_TAG];
			o->slot = pp_const_slot(P, c->value + off, c->var);
		}
		return true;
	}
	if (t.s[0] == '%') {
		pp_err(P, &t, CS_ERR_INPUT, "undeclared register '%.*s'", (int)t.len, t.s);
		return false;
	}
	o->kind = OK_NAME;
	return true;
}

static bool parse_mem_operand(pp *P, opnd *o)
{
	o->kind = OK_MEM;
	o->at = P->t;
	o->mspace = -1;
	o->mbase = SR_ZERO;
	o->moff = 0;
	pp_next(P); /* [ */
	bool have_base = false;
	if (P->t.kind == TK_ID) {
		opnd b;
		memset(&b, 0, sizeof(b));
		b.mspace = -1;
		if (!parse_name_operand(P, &b))
			return false;
		if (b.kind != OK_REG) {
			pp_err(P, &b.at, CS_ERR_INPUT, "'%.*s' is not a register or variable",
			       (int)b.at.len, b.at.s);
			return false;
		}
		o->mbase = b.slot;
		o->mspace = b.is_addr ? b.mspace : -1;
		have_base = true;
	}
	for (;;) {
		bool neg = false;
		if (have_base) {
			if (pp_punct(P, ']'))
				break;
			if (!pp_punct(P, '+') && !pp_punct(P, '-')) {
				pp_err(P, &P->t, CS_ERR_INPUT, "expected '+', '-' or ']' in an address");
				return false;
			}
			neg = pp_punct(P, '-');
			pp_next(P);
		}
		if (pp_punct(P, '-')) {
			neg = !neg;
			pp_next(P);
		}
		if (P->t.kind != TK_INT || P->t.overflow) {
			pp_err(P, &P->t, CS_ERR_INPUT, "expected an address offset");
			return false;
		}
		int64_t v = (int64_t)P->t.ival;
		o->moff += neg ? -v : v;
		pp_next(P);
		have_base = true;
	}
	pp_next(P); /* ] */
	return true;
}

/* A numeric literal, optionally negated: *kind 0 integer, 1 f32 bits, 2 f64 bits. */
static bool parse_immediate(pp *P, int *kind, uint64_t *value)
{
	bool neg = false;
	if (pp_punct(P, '-')) {
		neg = true;
		pp_next(P);
	}
	if (P->t.kind == TK_INT) {
		if (P->t.overflow) {
			pp_err(P, &P->t, CS_ERR_INPUT, "integer literal does not fit 64 bits");
			return false;
		}
		*kind = 0;
		*value = neg ? (uint64_t)0 - P->t.ival : P->t.ival;
	} else if (P->t.kind == TK_F32) {
		*kind = 1;
		*value = P->t.ival ^ (neg ? 0x80000000u : 0);
	} else if (P->t.kind == TK_F64) {
		*kind = 2;
		*value = P->t.ival ^ (neg ? 0x8000000000000000ull : 0);
	} else {
		pp_err(P, &P->t, CS_ERR_INPUT, "expected a number after '-'");
		return false;
	}
	pp_next(P);
	return true;
}

static bool is_immediate_start(const pp *P)
{
	return pp_punct(P, '-') || P->t.kind == TK_INT || P->t.kind == TK_F32 ||
	       P->t.kind == TK_F64;
}

/* One element of a `{...}` vector: a register, a predicate, the sink `_`, or
 * an immediate (cuda_bf16.hpp on sm_80 widens bf16 with `mov.b32 %f1, {0,%rs1};`). */
static bool parse_vector_element(pp *P, opnd *o)
{
	int k = o->nvec++;
	o->vec[k] = PTX_NONE;
	if (is_immediate_start(P)) {
		o->vec_is_imm[k] = true;
		return parse_immediate(P, &o->vec_immk[k], &o->vec_imm[k]);
	}
	if (P->t.kind != TK_ID) {
		pp_err(P, &P->t, CS_ERR_INPUT, "expected a register in a vector");
		return false;
	}
	opnd e;
	memset(&e, 0, sizeof(e));
	if (!parse_name_operand(P, &e))
		return false;
	if (e.kind == OK_REG && !e.is_addr) {
		o->vec[k] = e.slot;
	} else if (e.kind == OK_PRED) {
		o->vec_pred = true;
		o->vec[k] = e.pred;
	} else if (e.kind == OK_IMM) { /* WARP_SZ */
		o->vec_is_imm[k] = true;
		o->vec_immk[k] = e.immk;
		o->vec_imm[k] = e.imm;
	} else if (e.kind != OK_SINK) {
		pp_err(P, &e.at, CS_ERR_INPUT, "expected a register in a vector");
		return false;
	}
	return true;
}

static bool parse_operand(pp *P, stmt *st, opnd *o)
{
	memset(o, 0, sizeof(*o));
	o->mspace = -1;
	o->at = P->t;
	if (pp_punct(P, '[')) {
		return parse_mem_operand(P, o);
	}
	if (pp_punct(P, '{')) {
		pp_next(P);
		o->kind = OK_VEC;
		for (;;) {
			if (o->nvec >= MAX_VEC) {
				pp_err(P, &P->t, CS_ERR_UNSUPPORTED, "vectors longer than %d", MAX_VEC);
				return false;
			}
			if (!parse_vector_element(P, o))
				return false;
			if (pp_punct(P, ',')) {
				pp_next(P);
				continue;
			}
			return pp_expect(P, '}');
		}
	}
	if (pp_punct(P, '(')) {
		if (st->nlists >= 2) {
			pp_err(P, &P->t, CS_ERR_INPUT, "more than two parenthesized lists");
			return false;
		}
		o->list = st->lists[st->nlists++];
		pp_next(P);
		o->kind = OK_LIST;
		if (pp_punct(P, ')')) {
			pp_next(P);
			return true;
		}
		for (;;) {
			if (P->t.kind != TK_ID || o->nlist >= MAX_LIST) {
				pp_err(P, &P->t, CS_ERR_INPUT, "expected a parameter name");
				return false;
			}
			o->list[o->nlist++] = P->t;
			pp_next(P);
			if (pp_punct(P, ',')) {
				pp_next(P);
				continue;
			}
			return pp_expect(P, ')');
		}
	}
	if (pp_punct(P, '!')) {
		pp_next(P);
		if (!parse_name_operand(P, o))
			return false;
		if (o->kind != OK_PRED) {
			pp_err(P, &o->at, CS_ERR_INPUT, "'!' applies to predicates only");
			return false;
		}
		o->neg = true;
		return true;
	}
	if (is_immediate_start(P)) {
		o->kind = OK_IMM;
		return parse_immediate(P, &o->immk, &o->imm);
	}
	if (P->t.kind == TK_ID) {
		if (!parse_name_operand(P, o))
			return false;
		/* d|p: a second, predicate destination (setp, and the like) */
		if ((o->kind == OK_REG || o->kind == OK_PRED) && pp_punct(P, '|')) {
			pp_next(P);
			opnd q;
			memset(&q, 0, sizeof(q));
			q.at = P->t;
			if (P->t.kind != TK_ID || !parse_name_operand(P, &q) || q.kind != OK_PRED) {
				if (!P->failed)
					pp_err(P, &q.at, CS_ERR_INPUT, "expected a predicate after '|'");
				return false;
			}
			o->has_pipe = true;
			o->pipe_pred = q.pred;
		}
		return true;
	}
	pp_err(P, &P->t, CS_ERR_INPUT, "unexpected '%.*s' in operands",
	       P->t.kind == TK_EOF ? 3 : (int)P->t.len, P->t.kind == TK_EOF ? "EOF" : P->t.s);
	return false;
}

/* ---- modifiers ---------------------------------------------------------- */

static const char *const hint_mods[] = {
	".nc", ".ca", ".cg", ".cs", ".lu", ".cv", ".wb", ".wt", ".volatile", ".relaxed",
	".acquire", ".release", ".acq_rel", ".sc", ".weak", ".cta", ".gpu", ".sys",
	".cluster", ".aligned", ".sync", ".mmio", ".noftz", ".shared::cta",
};


static bool check_mods(pp *P, stmt *s)
{
	for (int i = 0; i < s->nmods; i++) {
		if (s->used[i])
			continue;
		bool hint = false;
		for (size_t k = 0; k < sizeof(hint_mods) / sizeof(hint_mods[0]); k++)
			if (stmt_mod_is(s, i, hint_mods[k]))
				hint = true;
		if (s->modlen[i] > 4 && (!memcmp(s->mod[i], ".L1::", 5) || !memcmp(s->mod[i], ".L2::", 5)))
			hint = true;
		if (!hint) {
			pp_err(P, &s->optok, CS_ERR_UNSUPPORTED, "'%s' does not support modifier '%.*s'",
			       s->base, (int)s->modlen[i], s->mod[i]);
			return false;
		}
	}
	return true;
}

/* ---- builders ----------------------------------------------------------- */

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

static bool build_wmma(pp *P, stmt *s, ptx_ins *ins)
{
	if (stmt_take(s, ".mma"))
		return build_mma(P, s, ins, true);
	if (stmt_take(s, ".load"))
		return build_wmma_ldst(P, s, ins, true);
	if (stmt_take(s, ".store"))
		return build_wmma_ldst(P, s, ins, false);
	pp_err(P, &s->optok, CS_ERR_UNSUPPORTED, "wmma other than .load, .store and .mma");
	return false;
}

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

/* add.cc / addc / sub.cc / subc / mad.cc / madc: integer arithmetic through
 * the carry flag CC.CF, which lives in a predicate of its own. */
static bool build_carry(pp *P, stmt *s, ptx_ins *ins, int form, bool carry_in, bool carry_out)
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

static bool build(pp *P, stmt *s, ptx_ins *ins)
{
	const char *b = s->base;
	/* ---- moves ---- */
	if (!strcmp(b, "mov")) {
		if (!pp_nops(P, s, 2, 2))
			return false;
		ptx_type t = pp_want_type(P, s, 0);
		if (t == T_NONE)
			return false;
		ins->t1 = ins->t2 = (uint8_t)t;
		if (t == T_PRED) {
			ins->op = OP_MOV_PRED;
			if (s->o[1].kind == OK_IMM && s->o[1].immk == 0 && s->o[1].imm <= 1) {
				/* mov.pred %p, 0 / 1 */
				ins->aux = (uint8_t)s->o[1].imm;
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
	/* ---- integer and float arithmetic ---- */
	if (!strcmp(b, "add") || !strcmp(b, "sub")) {
		bool add = b[0] == 'a';
		bool sat = stmt_take(s, ".sat");
		bool ftz = stmt_take(s, ".ftz");
		int rnd = stmt_take_rnd(s);
		if (stmt_take(s, ".cc"))
			return build_carry(P, s, ins, add ? CA_ADD : CA_SUB, false, true);
		if (!pp_arith(P, s, ins, 2))
			return false;
		ptx_type t = (ptx_type)ins->t1;
		if (type_is_int(t)) {
			if (sat) {
				ins->op = OP_INT;
				ins->aux = add ? IO_ADDSAT : IO_SUBSAT;
			} else if (!ins_fast_int(ins, t, add ? OP_ADD32 : OP_SUB32, add ? OP_ADD64 : OP_SUB64)) {
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
	if (!strcmp(b, "addc") || !strcmp(b, "subc"))
		return build_carry(P, s, ins, b[0] == 'a' ? CA_ADD : CA_SUB, true, stmt_take(s, ".cc"));
	if (!strcmp(b, "madc") || (!strcmp(b, "mad") && stmt_take(s, ".cc"))) {
		bool cc = b[3] == 'c' ? stmt_take(s, ".cc") : true;
		bool hi = stmt_take(s, ".hi");
		if (!hi && !stmt_take(s, ".lo")) {
			pp_err(P, &s->optok, CS_ERR_INPUT, "%s needs .lo or .hi", b);
			return false;
		}
		return build_carry(P, s, ins, hi ? CA_MADHI : CA_MADLO, b[3] == 'c', cc);
	}
	if (!strcmp(b, "mul24") || !strcmp(b, "mad24")) {
		bool hi = stmt_take(s, ".hi");
		if (!hi && !stmt_take(s, ".lo")) {
			pp_err(P, &s->optok, CS_ERR_INPUT, "%s needs .lo or .hi", b);
			return false;
		}
		if (stmt_take(s, ".sat")) {
			pp_err(P, &s->optok, CS_ERR_UNSUPPORTED, "%s.sat", b);
			return false;
		}
		bool mad = b[1] == 'a';
		if (!pp_arith(P, s, ins, mad ? 3 : 2))
			return false;
		if (ins->t1 != T_U32 && ins->t1 != T_S32) {
			pp_err(P, &s->optok, CS_ERR_INPUT, "%s takes .u32 or .s32", b);
			return false;
		}
		ins->op = OP_INT;
		ins->aux = mad ? IO_MAD24 : IO_MUL24;
		if (hi)
			ins->flags |= F_HI;
		return true;
	}
	if (!strcmp(b, "shf")) {
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
	if (!strcmp(b, "isspacep")) {
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
	if (!strcmp(b, "match")) {
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
	if (!strcmp(b, "cp")) {
		/* cp.async.{ca,cg}.shared{::cta}.global [dst], [src], cp-size{, src-size}:
		 * the source is read at issue, shared memory written at the wait
		 * that covers the copy's group */
		if (!stmt_take(s, ".async")) {
			pp_err(P, &s->optok, CS_ERR_UNSUPPORTED, "cp without .async");
			return false;
		}
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
	if (!strcmp(b, "ldmatrix")) {
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
	if (!strcmp(b, "mma"))
		return build_mma(P, s, ins, false);
	if (!strcmp(b, "wmma"))
		return build_wmma(P, s, ins);
	if (!strcmp(b, "mul") || !strcmp(b, "mad") || !strcmp(b, "fma")) {
		bool mad = b[0] != 'm' || b[1] == 'a';
		bool lo = stmt_take(s, ".lo"), hi = stmt_take(s, ".hi"), wide = stmt_take(s, ".wide");
		bool sat = stmt_take(s, ".sat");
		bool ftz = stmt_take(s, ".ftz");
		int rnd = stmt_take_rnd(s);
		if (!pp_arith(P, s, ins, mad ? 3 : 2))
			return false;
		ptx_type t = (ptx_type)ins->t1;
		if (type_is_int(t)) {
			if (b[0] == 'f' || lo + hi + wide != 1 || rnd != RND_NONE || ftz) {
				pp_err(P, &s->optok, CS_ERR_INPUT, "integer %s needs exactly one of .lo .hi .wide", b);
				return false;
			}
			if (sat && !(hi && t == T_S32 && mad)) {
				pp_err(P, &s->optok, CS_ERR_UNSUPPORTED, ".sat on this %s", b);
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
				pp_err(P, &s->optok, CS_ERR_INPUT, "%s.wide on a 64-bit type", b);
				return false;
			}
			ins->op = OP_INT;
			ins->aux = (uint8_t)(mad ? (lo ? IO_MADLO : hi ? IO_MADHI : IO_MADWIDE)
					    : (lo ? IO_MULLO : hi ? IO_MULHI : IO_MULWIDE));
			return true;
		}
		if (lo || hi || wide) {
			pp_err(P, &s->optok, CS_ERR_INPUT, "float %s takes no .lo/.hi/.wide", b);
			return false;
		}
		if (b[0] == 'f' && rnd == RND_NONE) {
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
	if (!strcmp(b, "div") || !strcmp(b, "rem")) {
		bool approx = stmt_take(s, ".approx"), full = stmt_take(s, ".full");
		bool ftz = stmt_take(s, ".ftz");
		int rnd = stmt_take_rnd(s);
		if (!pp_arith(P, s, ins, 2))
			return false;
		ptx_type t = (ptx_type)ins->t1;
		if (type_is_int(t)) {
			ins->op = OP_INT;
			ins->aux = b[0] == 'd' ? IO_DIV : IO_REM;
			return true;
		}
		if (b[0] == 'r' || (t != T_F32 && t != T_F64)) {
			pp_err(P, &s->optok, CS_ERR_UNSUPPORTED, "%s on this type", b);
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
	{
		/* unary / binary float-or-int ops */
		static const struct {
			const char *name;
			int nsrc;
			int io; /* integer sub-op or -1 */
			int fo; /* float sub-op or -1 */
		} u[] = {
			{ "abs", 1, IO_ABS, FO_ABS },     { "neg", 1, IO_NEG, FO_NEG },
			{ "min", 2, IO_MIN, FO_MIN },     { "max", 2, IO_MAX, FO_MAX },
			{ "popc", 1, IO_POPC, -1 },       { "clz", 1, IO_CLZ, -1 },
			{ "brev", 1, IO_BREV, -1 },       { "bfind", 1, IO_BFIND, -1 },
			{ "bfe", 3, IO_BFE, -1 },         { "bfi", 4, IO_BFI, -1 },
			{ "not", 1, IO_NOT, -1 },         { "cnot", 1, IO_CNOT, -1 },
			{ "rcp", 1, -1, FO_RCP },         { "sqrt", 1, -1, FO_SQRT },
			{ "rsqrt", 1, -1, FO_RSQRT },     { "ex2", 1, -1, FO_EX2 },
			{ "lg2", 1, -1, FO_LG2 },         { "sin", 1, -1, FO_SIN },
			{ "cos", 1, -1, FO_COS },         { "tanh", 1, -1, FO_TANH },
			{ "copysign", 2, -1, FO_COPYSIGN }, { "sad", 3, IO_SAD, -1 },
		};
		for (size_t k = 0; k < sizeof(u) / sizeof(u[0]); k++) {
			if (strcmp(b, u[k].name))
				continue;
			bool ftz = stmt_take(s, ".ftz");
			bool approx = stmt_take(s, ".approx");
			bool full = stmt_take(s, ".full");
			bool sat = stmt_take(s, ".sat");
			bool nan = stmt_take(s, ".NaN");
			bool shiftamt = stmt_take(s, ".shiftamt");
			int rnd = stmt_take_rnd(s);
			if (!strcmp(b, "not") || !strcmp(b, "cnot")) {
				if (s->ntypes == 1 && s->types[0] == T_PRED && b[0] == 'n') {
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
			}
			if (!pp_arith(P, s, ins, u[k].nsrc))
				return false;
			ptx_type t = (ptx_type)ins->t1;
			if (!strcmp(b, "bfe") || !strcmp(b, "bfi")) {
				/* positions and lengths are u32 */
				for (int i = (b[2] == 'e' ? 2 : 3); i < s->nops; i++)
					if (!pp_src(P, s, i, T_U32, &ins->o[i]))
						return false;
			}
			if (shiftamt)
				ins->flags |= F_HI;
			if (type_is_int(t) && u[k].io >= 0) {
				if (ftz || approx || full || rnd || nan) {
					pp_err(P, &s->optok, CS_ERR_INPUT, "float modifier on integer %s", b);
					return false;
				}
				if (sat) {
					pp_err(P, &s->optok, CS_ERR_UNSUPPORTED, "%s.sat", b);
					return false;
				}
				ins->op = OP_INT;
				ins->aux = (uint8_t)u[k].io;
				return true;
			}
			if (ptx_type_float(t) && u[k].fo >= 0) {
				if ((t == T_F16X2 || t == T_BF16X2) && u[k].fo != FO_ABS &&
				    u[k].fo != FO_NEG && u[k].fo != FO_MIN && u[k].fo != FO_MAX) {
					pp_err(P, &s->optok, CS_ERR_UNSUPPORTED, "%s on packed halves", b);
					return false;
				}
				if (nan)
					ins->aux2 = 1; /* min/max .NaN: propagate NaN */
				else
					ins->aux2 = (uint8_t)rnd;
				ins->op = OP_FLT;
				ins->aux = (uint8_t)u[k].fo;
				ins->flags |= (uint16_t)((ftz ? F_FTZ : 0) | (sat ? F_SAT : 0) |
							 (approx ? F_APPROX : 0));
				(void)full;
				return true;
			}
			pp_err(P, &s->optok, CS_ERR_UNSUPPORTED, "'%s' on type '%.*s'", b,
			       (int)s->modlen[s->nmods - 1], s->mod[s->nmods - 1]);
			return false;
		}
	}
	if (!strcmp(b, "and") || !strcmp(b, "or") || !strcmp(b, "xor")) {
		if (!pp_nops(P, s, 3, 3))
			return false;
		ptx_type t = pp_want_type(P, s, 0);
		if (t == T_NONE)
			return false;
		if (t == T_PRED) {
			ins->op = OP_PRED_LOGIC;
			ins->aux = (uint8_t)(b[0] == 'a' ? 0 : b[0] == 'o' ? 1 : 2);
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
		if (b[0] == 'a' && ins_fast_int(ins, t, OP_AND32, OP_AND64))
			return true;
		if (b[0] == 'o' && ins_fast_int(ins, t, OP_OR32, OP_OR64))
			return true;
		if (b[0] == 'x' && ins_fast_int(ins, t, OP_XOR32, OP_XOR64))
			return true;
		ins->op = OP_INT;
		ins->aux = (uint8_t)(b[0] == 'a' ? IO_AND : b[0] == 'o' ? IO_OR : IO_XOR);
		return true;
	}
	if (!strcmp(b, "shl") || !strcmp(b, "shr")) {
		if (!pp_arith(P, s, ins, 2))
			return false;
		ptx_type t = (ptx_type)ins->t1;
		if (!type_is_int(t)) {
			pp_err(P, &s->optok, CS_ERR_INPUT, "%s needs an integer type", b);
			return false;
		}
		if (b[2] == 'l') {
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
	if (!strcmp(b, "prmt")) {
		static const char *const modes[] = { ".f4e", ".b4e", ".rc8", ".ecl", ".ecr", ".rc16" };
		int m = stmt_take_one(s, modes, 6);
		if (!pp_arith(P, s, ins, 3))
			return false;
		ins->op = OP_INT;
		ins->aux = IO_PRMT;
		ins->aux2 = (uint8_t)(m + 1);
		return true;
	}
	/* ---- compare and select ---- */
	if (!strcmp(b, "setp") || !strcmp(b, "set")) {
		static const char *const cmps[] = { ".eq", ".ne", ".lt", ".le", ".gt", ".ge", ".lo",
						     ".ls", ".hi", ".hs", ".equ", ".neu", ".ltu",
						     ".leu", ".gtu", ".geu", ".num", ".nan" };
		static const char *const bops[] = { ".and", ".or", ".xor" };
		int c = stmt_take_one(s, cmps, 18);
		int bop = stmt_take_one(s, bops, 3);
		bool ftz = stmt_take(s, ".ftz");
		if (c < 0) {
			pp_err(P, &s->optok, CS_ERR_INPUT, "%s needs a comparison", b);
			return false;
		}
		bool setp = b[3] == 'p';
		ptx_type t = pp_want_type(P, s, setp ? 0 : 1);
		if (t == T_NONE)
			return false;
		if (t == T_PRED || t == T_F16X2 || t == T_BF16X2) {
			pp_err(P, &s->optok, CS_ERR_UNSUPPORTED, "%s on this type", b);
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
	if (!strcmp(b, "slct")) {
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
	if (!strcmp(b, "testp")) {
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
	/* ---- conversions ---- */
	if (!strcmp(b, "cvt") && stmt_take(s, ".tf32"))
		return build_cvt_tf32(P, s, ins, stmt_take_rnd(s));
	if (!strcmp(b, "cvt")) {
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
	if (!strcmp(b, "cvta")) {
		bool to = stmt_take(s, ".to");
		static const char *const sp[] = { ".global", ".shared", ".local", ".const", ".param" };
		static const int spv[] = { SP_GLOBAL, SP_SHARED, SP_LOCAL, SP_CONST, SP_KPARAM };
		int k = stmt_take_one(s, sp, 5);
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
	/* ---- memory ---- */
	if (!strcmp(b, "ld") || !strcmp(b, "st") || !strcmp(b, "ldu")) {
		bool load = b[0] == 'l';
		static const char *const sp[] = { ".global", ".shared", ".local", ".const", ".param" };
		static const int spv[] = { SP_GLOBAL, SP_SHARED, SP_LOCAL, SP_CONST, SP_KPARAM };
		int k = stmt_take_one(s, sp, 5);
		int space = k < 0 ? SP_GENERIC : spv[k];
		int vec = stmt_take(s, ".v2") ? 2 : stmt_take(s, ".v4") ? 4 : 1;
		ptx_type t = pp_want_type(P, s, 0);
		if (t == T_NONE || t == T_PRED) {
			if (!P->failed)
				pp_err(P, &s->optok, CS_ERR_INPUT, "%s needs a value type", b);
			return false;
		}
		if (!pp_nops(P, s, 2, 2))
			return false;
		opnd *m = &s->o[load ? 1 : 0];
		opnd *v = &s->o[load ? 0 : 1];
		if (m->kind != OK_MEM) {
			pp_err(P, &m->at, CS_ERR_INPUT, "%s needs an address operand [..]", b);
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
		if (stmt_take(s, ".unified")) {
		}
		ins->op = load ? OP_LD : OP_ST;
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
	if (!strcmp(b, "atom") || !strcmp(b, "red")) {
		bool atom = b[0] == 'a';
		static const char *const sp[] = { ".global", ".shared" };
		int k = stmt_take_one(s, sp, 2);
		static const char *const ops[] = { ".add", ".min", ".max", ".inc", ".dec", ".cas",
						    ".exch", ".and", ".or", ".xor" };
		int op = stmt_take_one(s, ops, 10);
		stmt_take(s, ".noftz");
		if (op < 0) {
			pp_err(P, &s->optok, CS_ERR_INPUT, "%s needs an operation", b);
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
			pp_err(P, &s->optok, CS_ERR_UNSUPPORTED, "%s operation on this type", b);
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
			pp_err(P, &m->at, CS_ERR_INPUT, "%s needs an address operand", b);
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
	/* ---- warp-level ---- */
	if (!strcmp(b, "shfl")) {
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
	if (!strcmp(b, "vote")) {
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
	if (!strcmp(b, "redux")) {
		static const char *const ops[] = { ".add", ".min", ".max", ".and", ".or", ".xor" };
		stmt_take(s, ".sync");
		int k = stmt_take_one(s, ops, 6);
		ptx_type t = s->ntypes == 1 ? s->types[0] : T_NONE;
		bool ok = k >= 0 && (k <= 2 ? (t == T_U32 || t == T_S32) : t == T_B32);
		if (!ok) {
			pp_err(P, &s->optok, CS_ERR_UNSUPPORTED, "this redux form");
			return false;
		}
		if (!pp_nops(P, s, 3, 3))
			return false;
		ins->op = OP_REDUX;
		ins->aux = (uint8_t)k;
		ins->t1 = (uint8_t)t;
		return pp_dst(P, s, 0, &ins->o[0]) && pp_src(P, s, 1, t, &ins->o[1]) &&
		       pp_src(P, s, 2, T_B32, &ins->o[2]);
	}
	if (!strcmp(b, "activemask")) {
		if (!pp_nops(P, s, 1, 1) || pp_want_type(P, s, 0) != T_B32) {
			if (!P->failed)
				pp_err(P, &s->optok, CS_ERR_INPUT, "activemask.b32 d");
			return false;
		}
		ins->op = OP_ACTIVEMASK;
		return pp_dst(P, s, 0, &ins->o[0]);
	}
	if (!strcmp(b, "bar") || !strcmp(b, "barrier")) {
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
		if (!sync && !arrive && strcmp(b, "bar")) {
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
	if (!strcmp(b, "membar") || !strcmp(b, "fence")) {
		stmt_take(s, ".gl");
		stmt_take(s, ".proxy");
		ins->op = OP_MEMBAR;
		return pp_nops(P, s, 0, 0);
	}
	if (!strcmp(b, "nanosleep") || !strcmp(b, "prefetch") || !strcmp(b, "prefetchu") ||
	    !strcmp(b, "pmevent")) {
		ins->op = OP_NOP;
		for (int i = 0; i < s->nmods; i++)
			s->used[i] = true;
		return true;
	}
	/* ---- control ---- */
	if (!strcmp(b, "bra")) {
		if (stmt_take(s, ".uni"))
			ins->flags |= F_UNI;
		if (!pp_nops(P, s, 1, 1))
			return false;
		if (s->o[0].kind != OK_NAME) {
			pp_err(P, &s->o[0].at, CS_ERR_UNSUPPORTED, "bra needs a label (no indirect branches)");
			return false;
		}
		ins->op = OP_BRA;
		ins->o[1] = PTX_NONE;
		return pp_label_use(P, &s->o[0].at, (uint32_t)P->p->ncode);
	}
	if (!strcmp(b, "ret") || !strcmp(b, "exit") || !strcmp(b, "trap")) {
		stmt_take(s, ".uni");
		if (!pp_nops(P, s, 0, 0))
			return false;
		ins->op = b[0] == 'r' ? OP_RET : b[0] == 'e' ? OP_EXIT : OP_TRAP;
		return true;
	}
	if (!strcmp(b, "call")) {
		stmt_take(s, ".uni");
		/* call (rets), f, (args) | call f, (args) | call f | call (rets), f */
		int i = 0;
		opnd *rets = NULL, *args = NULL, *fn = NULL;
		if (i < s->nops && s->o[i].kind == OK_LIST)
			rets = &s->o[i++];
		if (i < s->nops && s->o[i].kind == OK_NAME)
			fn = &s->o[i++];
		if (i < s->nops && s->o[i].kind == OK_LIST)
			args = &s->o[i++];
		if (!fn || i != s->nops) {
			pp_err(P, &s->optok, CS_ERR_UNSUPPORTED,
			       "call form (indirect calls and prototypes are not supported)");
			return false;
		}
		cs_ptx_program *p = P->p;
		ptx_callsite *grown = realloc(p->calls, (p->ncalls + 1) * sizeof(*p->calls));
		if (!grown) {
			pp_err(P, NULL, CS_ERR_NOMEM, "out of memory");
			return false;
		}
		p->calls = grown;
		ptx_callsite *c = &p->calls[p->ncalls];
		memset(c, 0, sizeof(*c));
		p->ncalls++;
		c->caller = (uint32_t)P->cur_func;
		c->line = fn->at.line;
		c->col = fn->at.col;
		c->callee_name = malloc(fn->at.len + 1);
		int nr = rets ? rets->nlist : 0, na = args ? args->nlist : 0;
		c->rets = calloc((size_t)nr + 1, sizeof(ptx_copy));
		c->args = calloc((size_t)na + 1, sizeof(ptx_copy));
		if (!c->callee_name || !c->rets || !c->args) {
			pp_err(P, NULL, CS_ERR_NOMEM, "out of memory");
			return false;
		}
		memcpy(c->callee_name, fn->at.s, fn->at.len);
		c->callee_name[fn->at.len] = 0;
		for (int k = 0; k < nr + na; k++) {
			const ptx_tok *nt = k < nr ? &rets->list[k] : &args->list[k - nr];
			const pp_sym *sym = pp_sym_find(P, nt->s, nt->len);
			if (!sym || sym->kind != SYM_FPARAM) {
				pp_err(P, nt, CS_ERR_UNSUPPORTED,
				       "call operand '%.*s' is not a .param variable", (int)nt->len, nt->s);
				return false;
			}
			ptx_copy cp = { 0 };
			cp.size = sym->count;
			if (k < nr) {
				cp.dst = sym->base;
				c->rets[c->nrets++] = cp;
			} else {
				cp.src = sym->base;
				c->args[c->nargs++] = cp;
			}
		}
		ins->op = OP_CALL;
		ins->imm = (int64_t)(p->ncalls - 1);
		return true;
	}
	pp_err(P, &s->optok, CS_ERR_UNSUPPORTED, "unsupported instruction '%s'", b);
	return false;
}

/* An instruction with no operands and no guard. */
static void blank_ins(ptx_ins *ins)
{
	memset(ins, 0, sizeof(*ins));
	for (int k = 0; k < 6; k++)
		ins->o[k] = PTX_NONE;
	ins->guard = PTX_NONE;
}

/* brx.idx{.uni} index, tlist: lowered to one setp.eq / bra pair per target
 * (so reconvergence works as for any branch), then a trap for an index past
 * the list (undefined in the PTX ISA). A guard skips the whole sequence. */
static bool emit_brx(pp *P, stmt *s)
{
	stmt_take(s, ".uni");
	if (!stmt_take(s, ".idx")) {
		pp_err(P, &s->optok, CS_ERR_UNSUPPORTED, "brx without .idx");
		return false;
	}
	if (!pp_nops(P, s, 2, 2) || !check_mods(P, s))
		return false;
	const pp_tlist *tl = s->o[1].kind == OK_NAME ? pp_tlist_find(P, &s->o[1].at) : NULL;
	if (!tl) {
		pp_err(P, &s->o[1].at, CS_ERR_UNSUPPORTED,
		       "brx.idx needs a .branchtargets list declared before it");
		return false;
	}
	uint32_t index;
	if (!pp_src(P, s, 0, T_U32, &index))
		return false;
	if (P->brx_pred == PTX_NONE)
		P->brx_pred = P->p->npreds++;
	uint32_t line = s->optok.line;
	size_t skip = PTX_NONE;
	ptx_ins ins;
	if (s->guard != PTX_NONE) {
		blank_ins(&ins);
		ins.op = OP_BRA;
		ins.guard = s->guard;
		ins.flags = s->guard_neg ? 0 : F_GUARD_NEG;
		skip = P->p->ncode;
		if (!pp_emit(P, &ins, line))
			return false;
	}
	for (size_t k = 0; k < tl->count; k++) {
		blank_ins(&ins);
		ins.op = OP_SETP;
		ins.aux = CMP_EQ;
		ins.t2 = T_U32;
		ins.o[0] = P->brx_pred;
		ins.o[1] = index;
		ins.o[2] = pp_const_slot(P, k, PP_VAR_LITERAL);
		if (P->failed || !pp_emit(P, &ins, line))
			return false;
		blank_ins(&ins);
		ins.op = OP_BRA;
		ins.guard = P->brx_pred;
		if (!pp_label_use(P, &P->tlabels[tl->first + k], (uint32_t)P->p->ncode) ||
		    !pp_emit(P, &ins, line))
			return false;
	}
	blank_ins(&ins);
	ins.op = OP_TRAP;
	if (!pp_emit(P, &ins, line))
		return false;
	if (skip != PTX_NONE)
		P->p->code[skip].imm = (int64_t)P->p->ncode;
	return true;
}

bool pp_instruction(pp *P)
{
	stmt s;
	memset(&s, 0, offsetof(stmt, lists));
	s.guard = PTX_NONE;
	if (pp_punct(P, '@')) {
		pp_next(P);
		if (pp_punct(P, '!')) {
			s.guard_neg = true;
			pp_next(P);
		}
		uint32_t idx;
		const pp_sym *g = P->t.kind == TK_ID ? pp_reg_find(P, P->t.s, P->t.len, &idx) : NULL;
		if (!g || (g->kind != SYM_PRED && g->kind != SYM_PRANGE)) {
			pp_err(P, &P->t, CS_ERR_INPUT, "expected a predicate after '@'");
			return false;
		}
		s.guard = g->base + idx;
		pp_next(P);
	}
	if (P->t.kind != TK_ID || P->t.s[0] == '.' || P->t.s[0] == '%') {
		pp_err(P, &P->t, CS_ERR_INPUT, "expected an instruction, found '%.*s'",
		       P->t.kind == TK_EOF ? 3 : (int)P->t.len, P->t.kind == TK_EOF ? "EOF" : P->t.s);
		return false;
	}
	s.optok = P->t;
	const char *op = P->t.s;
	uint32_t n = P->t.len;
	uint32_t i = 0;
	while (i < n && op[i] != '.')
		i++;
	if (i >= sizeof(s.base)) {
		pp_err(P, &P->t, CS_ERR_UNSUPPORTED, "unsupported instruction '%.*s'", (int)i, op);
		return false;
	}
	memcpy(s.base, op, i);
	s.base[i] = 0;
	static const char *const known[] = {
		"mov", "add", "sub", "mul", "mad", "fma", "div", "rem", "abs", "neg", "min", "max",
		"popc", "clz", "brev", "bfind", "bfe", "bfi", "not", "cnot", "rcp", "sqrt", "rsqrt",
		"ex2", "lg2", "sin", "cos", "tanh", "copysign", "sad", "and", "or", "xor", "shl",
		"shr", "prmt", "setp", "set", "selp", "slct", "testp", "cvt", "cvta", "ld", "ldu",
		"st", "atom", "red", "shfl", "vote", "activemask", "bar", "barrier", "membar",
		"fence", "redux", "nanosleep", "prefetch", "prefetchu", "pmevent", "bra", "ret", "exit",
		"trap", "call", "addc", "subc", "madc", "mul24", "mad24", "shf", "isspacep", "match",
		"brx", "cp", "ldmatrix", "mma", "wmma",
	};
	bool is_known = false;
	for (size_t k = 0; k < sizeof(known) / sizeof(known[0]); k++)
		if (!strcmp(known[k], s.base))
			is_known = true;
	if (!is_known) {
		pp_err(P, &P->t, CS_ERR_UNSUPPORTED, "unsupported instruction '%s'", s.base);
		return false;
	}
	while (i < n) {
		uint32_t j = i + 1;
		while (j < n && op[j] != '.') {
			if (op[j] == ':' && j + 1 < n && op[j + 1] == ':')
				j++;
			j++;
		}
		if (s.nmods >= MAX_MODS) {
			pp_err(P, &P->t, CS_ERR_UNSUPPORTED, "too many modifiers");
			return false;
		}
		s.mod[s.nmods] = op + i;
		s.modlen[s.nmods] = j - i;
		ptx_type t = pp_type_of(op + i, j - i);
		if (t != T_NONE) {
			if (s.ntypes >= 4) {
				pp_err(P, &P->t, CS_ERR_INPUT, "too many types");
				return false;
			}
			s.types[s.ntypes++] = t;
			s.used[s.nmods] = true;
		}
		s.nmods++;
		i = j;
	}
	pp_next(P);
	if (!pp_punct(P, ';')) {
		for (;;) {
			if (s.nops >= MAX_OPNDS) {
				pp_err(P, &P->t, CS_ERR_INPUT, "too many operands");
				return false;
			}
			if (!parse_operand(P, &s, &s.o[s.nops]))
				return false;
			s.nops++;
			if (pp_punct(P, ',')) {
				pp_next(P);
				continue;
			}
			break;
		}
	}
	if (!pp_expect(P, ';'))
		return false;
	if (!strcmp(s.base, "brx"))
		return emit_brx(P, &s);
	ptx_ins ins;
	blank_ins(&ins);
	ins.guard = s.guard;
	if (s.guard_neg)
		ins.flags |= F_GUARD_NEG;
	ins.nops = (uint8_t)s.nops;
	bool ok;
	if (!strcmp(s.base, "selp")) {
		/* selp.T d, a, b, c */
		ok = pp_nops(P, &s, 4, 4);
		ptx_type t = ok ? pp_want_type(P, &s, 0) : T_NONE;
		bool neg = false;
		ok = ok && t != T_NONE && t != T_PRED;
		if (ok) {
			ins.op = OP_SELP;
			ins.t1 = ins.t2 = (uint8_t)t;
			ok = pp_dst(P, &s, 0, &ins.o[0]) && pp_src(P, &s, 1, t, &ins.o[1]) &&
			     pp_src(P, &s, 2, t, &ins.o[2]) && pp_pred_src(P, &s, 3, &ins.o[3], &neg);
			if (neg)
				ins.flags |= F_NEG_C;
		} else if (!P->failed) {
			pp_err(P, &s.optok, CS_ERR_INPUT, "selp needs a value type");
		}
	} else {
		ok = build(P, &s, &ins);
	}
	if (!ok || !check_mods(P, &s))
		return false;
	return pp_emit(P, &ins, s.optok.line);
}

/* SPDX-License-Identifier: MIT */
/* Instruction statements: guard, opcode with modifiers, operands, parsed into
 * a stmt, and predecoded into one ptx_ins by the builder the opcode table names
 * (ptx_optab.c, ptx_build_*.c). Every modifier must be understood or on the
 * list of hints that do not change results; anything else is a load-time error. */
#include "ptx_build.h"

#include <stddef.h>
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

/* The cluster registers of sm_90 for a launch without clusters, which the
 * hardware runs as a grid of implicit 1x1x1 clusters: each CTA is rank 0 of a
 * cluster of its own, and the cluster ids are the CTA ids. Each a fixed
 * register or a constant. */
static const struct {
	const char *name;
	int slot;      /* SR_* or -1 */
	uint64_t value; /* the constant, when slot is -1 */
} cluster_sregs[] = {
	{ "%cluster_ctarank", -1, 0 },      { "%cluster_nctarank", -1, 1 },
	{ "%cluster_ctaid.x", -1, 0 },      { "%cluster_ctaid.y", -1, 0 },
	{ "%cluster_ctaid.z", -1, 0 },      { "%cluster_nctaid.x", -1, 1 },
	{ "%cluster_nctaid.y", -1, 1 },     { "%cluster_nctaid.z", -1, 1 },
	{ "%clusterid.x", SR_CTAID_X, 0 },  { "%clusterid.y", SR_CTAID_Y, 0 },
	{ "%clusterid.z", SR_CTAID_Z, 0 },  { "%nclusterid.x", SR_NCTAID_X, 0 },
	{ "%nclusterid.y", SR_NCTAID_Y, 0 }, { "%nclusterid.z", SR_NCTAID_Z, 0 },
};

/* A cluster register as an operand (false with o untouched when t names none). */
static bool cluster_sreg(pp *P, const ptx_tok *t, opnd *o)
{
	bool pred = tok_eq(t, "%is_explicit_cluster");
	int k = -1;
	for (size_t i = 0; !pred && i < sizeof(cluster_sregs) / sizeof(cluster_sregs[0]); i++)
		if (tok_eq(t, cluster_sregs[i].name))
			k = (int)i;
	if (!pred && k < 0)
		return false;
	if (!pp_target_has_clusters(P)) {
		pp_err(P, t, CS_ERR_INPUT, "'%.*s' requires sm_90 or later (.target %s)", (int)t->len,
		       t->s, P->p->target);
		return true;
	}
	if (pred) {
		/* false: the launch names no cluster (mov.pred reads it) */
		o->kind = OK_IMM;
		o->imm = 0;
		o->pred_sreg = true;
		return true;
	}
	o->kind = OK_REG;
	o->slot = cluster_sregs[k].slot >= 0 ? (uint32_t)cluster_sregs[k].slot
					     : pp_const_slot(P, cluster_sregs[k].value, PP_VAR_LITERAL);
	return true;
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

/* %envreg0..31 are the driver's (PTX ISA: "driver-defined"). The one public
 * account of their contents is cooperative_groups' details/driver_abi.h:
 * %envreg1 (high) and %envreg2 (low) hold the grid workspace's address on a
 * cooperative launch. The others are refused by name. */
static bool envreg_operand(pp *P, opnd *o, const ptx_tok *t)
{
	if (tok_eq(t, "%envreg1") || tok_eq(t, "%envreg2")) {
		o->kind = OK_REG;
		o->slot = pp_const_slot(P, 0, tok_eq(t, "%envreg1") ? PTX_CONST_ENVREG_HI
								    : PTX_CONST_ENVREG_LO);
		return true;
	}
	pp_err(P, t, CS_ERR_UNSUPPORTED, "'%.*s': the driver's value for it is not public (only "
	       "%%envreg1 and %%envreg2, the grid workspace of a cooperative launch, are)",
	       (int)t->len, t->s);
	return false;
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
	if (t.len > 7 && !memcmp(t.s, "%envreg", 7))
		return envreg_operand(P, o, &t);
	int sr = sreg_slot(&t);
	if (sr >= 0) {
		o->kind = OK_REG;
		o->slot = (uint32_t)sr;
		return true;
	}
	if (cluster_sreg(P, &t, o))
		return !P->failed;
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
		/* d|p: a second, predicate destination (setp, and the like; `_|p`
		 * in elect.sync) */
		if ((o->kind == OK_REG || o->kind == OK_PRED || o->kind == OK_SINK) &&
		    pp_punct(P, '|')) {
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


bool pp_check_mods(pp *P, stmt *s)
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


void ins_blank(ptx_ins *ins)
{
	memset(ins, 0, sizeof(*ins));
	for (int k = 0; k < 6; k++)
		ins->o[k] = PTX_NONE;
	ins->guard = PTX_NONE;
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
	const ptx_opcode *opcode = ptx_opcode_find(s.base);
	if (!opcode) {
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
	if (opcode->lowers)
		return opcode->build(P, &s, NULL, opcode->form);
	ptx_ins ins;
	ins_blank(&ins);
	ins.guard = s.guard;
	if (s.guard_neg)
		ins.flags |= F_GUARD_NEG;
	if (!opcode->build(P, &s, &ins, opcode->form) || !pp_check_mods(P, &s))
		return false;
	return pp_emit(P, &ins, s.optok.line);
}

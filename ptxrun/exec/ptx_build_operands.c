/* SPDX-License-Identifier: MIT */
/* What every builder uses: modifiers taken, operands checked as sources and
 * destinations, immediates made constant slots. */
#include "ptx_build.h"

#include <string.h>

bool stmt_mod_is(const stmt *s, int i, const char *m)
{
	size_t n = strlen(m);
	return s->modlen[i] == n && !memcmp(s->mod[i], m, n);
}

bool stmt_take(stmt *s, const char *m)
{
	for (int i = 0; i < s->nmods; i++)
		if (!s->used[i] && stmt_mod_is(s, i, m)) {
			s->used[i] = true;
			return true;
		}
	return false;
}

int stmt_take_one(stmt *s, const char *const *list, int n)
{
	for (int i = 0; i < s->nmods; i++) {
		if (s->used[i])
			continue;
		for (int k = 0; k < n; k++)
			if (stmt_mod_is(s, i, list[k])) {
				s->used[i] = true;
				return k;
			}
	}
	return -1;
}

static const char *const rnd_names[] = { ".rn", ".rz", ".rm", ".rp", ".rni", ".rzi", ".rmi",
					  ".rpi", ".rna" };
static const int rnd_vals[] = { RND_RN, RND_RZ, RND_RM, RND_RP, RND_RNI, RND_RZI, RND_RMI,
				RND_RPI, RND_RNA };

int stmt_take_rnd(stmt *s)
{
	int k = stmt_take_one(s, rnd_names, 9);
	return k < 0 ? RND_NONE : rnd_vals[k];
}

ptx_type pp_want_type(pp *P, stmt *s, int i)
{
	if (i >= s->ntypes) {
		pp_err(P, &s->optok, CS_ERR_INPUT, "'%s' needs %d type%s", s->base, i + 1,
		       i ? "s" : "");
		return T_NONE;
	}
	return s->types[i];
}

bool pp_nops(pp *P, stmt *s, int lo, int hi)
{
	if (s->nops < lo || s->nops > hi) {
		pp_err(P, &s->optok, CS_ERR_INPUT, "'%s' takes %d operand%s, found %d", s->base, lo,
		       lo == 1 ? "" : "s", s->nops);
		return false;
	}
	return true;
}

static uint64_t imm_as(const opnd *o, ptx_type t)
{
	double dv;
	float fv;
	uint32_t b32;
	if (t == T_F32) {
		if (o->immk == 1)
			return o->imm;
		if (o->immk == 2) {
			memcpy(&dv, &o->imm, 8);
			fv = (float)dv;
		} else {
			fv = (float)(int64_t)o->imm;
		}
		memcpy(&b32, &fv, 4);
		return b32;
	}
	if (t == T_F64) {
		if (o->immk == 2)
			return o->imm;
		if (o->immk == 1) {
			b32 = (uint32_t)o->imm;
			memcpy(&fv, &b32, 4);
			dv = fv;
		} else {
			dv = (double)(int64_t)o->imm;
		}
		uint64_t r;
		memcpy(&r, &dv, 8);
		return r;
	}
	if (t == T_F16 || t == T_BF16) {
		if (o->immk == 0)
			return o->imm & 0xffff;
		if (o->immk == 1) {
			b32 = (uint32_t)o->imm;
			memcpy(&fv, &b32, 4);
		} else {
			memcpy(&dv, &o->imm, 8);
			fv = (float)dv;
		}
		return t == T_F16 ? ptx_float_to_half(fv) : ptx_float_to_bf16(fv);
	}
	return o->imm;
}

bool pp_src(pp *P, stmt *s, int i, ptx_type t, uint32_t *slot)
{
	opnd *o = &s->o[i];
	if (o->kind == OK_REG) {
		*slot = o->slot;
		return true;
	}
	if (o->kind == OK_IMM && o->pred_sreg) {
		pp_err(P, &o->at, CS_ERR_INPUT, "operand %d of '%s' is a predicate special register, "
		       "which only mov.pred reads", i + 1, s->base);
		return false;
	}
	if (o->kind == OK_IMM) {
		*slot = pp_const_slot(P, imm_as(o, t), PP_VAR_LITERAL);
		return !P->failed;
	}
	pp_err(P, &o->at, CS_ERR_INPUT, "operand %d of '%s' must be a register or an immediate",
	       i + 1, s->base);
	return false;
}

uint32_t pp_vec_src(pp *P, const opnd *o, int k, ptx_type t)
{
	if (!o->vec_is_imm[k])
		return o->vec[k];
	opnd imm = { .kind = OK_IMM, .immk = o->vec_immk[k], .imm = o->vec_imm[k] };
	return pp_const_slot(P, imm_as(&imm, t), PP_VAR_LITERAL);
}

bool pp_vec_dst(pp *P, const stmt *s, int i)
{
	const opnd *o = &s->o[i];
	for (int k = 0; k < o->nvec; k++)
		if (o->vec_is_imm[k]) {
			pp_err(P, &o->at, CS_ERR_INPUT,
			       "operand %d of '%s' is written: an immediate cannot stand in it", i + 1,
			       s->base);
			return false;
		}
	return true;
}

bool pp_dst(pp *P, stmt *s, int i, uint32_t *slot)
{
	opnd *o = &s->o[i];
	if (o->kind == OK_REG && !o->is_addr && !o->has_pipe && o->slot >= SR_COUNT) {
		*slot = o->slot;
		return true;
	}
	pp_err(P, &o->at, CS_ERR_INPUT, "operand %d of '%s' must be a writable register", i + 1,
	       s->base);
	return false;
}

bool pp_pred_src(pp *P, stmt *s, int i, uint32_t *pred, bool *neg)
{
	opnd *o = &s->o[i];
	if (o->kind == OK_PRED && !o->has_pipe) {
		*pred = o->pred;
		*neg = o->neg;
		return true;
	}
	pp_err(P, &o->at, CS_ERR_INPUT, "operand %d of '%s' must be a predicate", i + 1, s->base);
	return false;
}

bool pp_pred_dst(pp *P, stmt *s, int i, uint32_t *pred)
{
	opnd *o = &s->o[i];
	if (o->kind == OK_PRED && !o->neg && !o->has_pipe) {
		*pred = o->pred;
		return true;
	}
	pp_err(P, &o->at, CS_ERR_INPUT, "operand %d of '%s' must be a predicate register", i + 1,
	       s->base);
	return false;
}

bool ins_fast_int(ptx_ins *ins, ptx_type t, int op32, int op64)
{
	if (type_bits(t) == 32 && op32 >= 0) {
		ins->op = (uint16_t)op32;
		return true;
	}
	if (type_bits(t) == 64 && op64 >= 0) {
		ins->op = (uint16_t)op64;
		return true;
	}
	return false;
}

bool pp_arith(pp *P, stmt *s, ptx_ins *ins, int nsrc)
{
	if (!pp_nops(P, s, nsrc + 1, nsrc + 1))
		return false;
	ptx_type t = pp_want_type(P, s, 0);
	if (t == T_NONE || t == T_PRED) {
		if (!P->failed)
			pp_err(P, &s->optok, CS_ERR_INPUT, "'%s' needs a value type", s->base);
		return false;
	}
	static const char *const packed_ok[] = { "add", "sub", "mul", "fma", "neg", "abs", "min",
						 "max" };
	if (t == T_F16X2 || t == T_BF16X2) {
		bool ok = false;
		for (size_t k = 0; k < sizeof(packed_ok) / sizeof(packed_ok[0]); k++)
			if (!strcmp(s->base, packed_ok[k]))
				ok = true;
		if (!ok) {
			pp_err(P, &s->optok, CS_ERR_UNSUPPORTED, "packed half '%s' on %s", s->base,
			       t == T_F16X2 ? ".f16x2" : ".bf16x2");
			return false;
		}
	}
	ins->t1 = (uint8_t)t;
	ins->t2 = (uint8_t)t;
	if (!pp_dst(P, s, 0, &ins->o[0]))
		return false;
	ptx_type st = t;
	for (int i = 0; i < nsrc; i++) {
		/* shift amounts and bfe/bfi positions are u32 */
		ptx_type ti = st;
		if ((!strcmp(s->base, "shl") || !strcmp(s->base, "shr")) && i == 1)
			ti = T_U32;
		if (!pp_src(P, s, i + 1, ti, &ins->o[i + 1]))
			return false;
	}
	return true;
}

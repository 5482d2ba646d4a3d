/* SPDX-License-Identifier: MIT */
/* Control flow: bra, brx.idx (lowered to branches), ret, exit, trap, call. */
#include "ptx_build.h"

#include <stdlib.h>
#include <string.h>

bool ptx_build_bra(pp *P, stmt *s, ptx_ins *ins, int form)
{
	(void)form;
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

/* ret, exit, trap (form OP_RET, OP_EXIT, OP_TRAP). */
bool ptx_build_ret(pp *P, stmt *s, ptx_ins *ins, int form)
{
	stmt_take(s, ".uni");
	if (!pp_nops(P, s, 0, 0))
		return false;
	ins->op = (uint16_t)form;
	return true;
}

bool ptx_build_call(pp *P, stmt *s, ptx_ins *ins, int form)
{
	(void)form;
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

/* brx.idx{.uni} index, tlist: lowered to one setp.eq / bra pair per target
 * (so reconvergence works as for any branch), then a trap for an index past
 * the list (undefined in the PTX ISA). A guard skips the whole sequence. */
bool ptx_build_brx(pp *P, stmt *s, ptx_ins *none, int form)
{
	(void)none;
	(void)form;
	stmt_take(s, ".uni");
	if (!stmt_take(s, ".idx")) {
		pp_err(P, &s->optok, CS_ERR_UNSUPPORTED, "brx without .idx");
		return false;
	}
	if (!pp_nops(P, s, 2, 2) || !pp_check_mods(P, s))
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
		ins_blank(&ins);
		ins.op = OP_BRA;
		ins.guard = s->guard;
		ins.flags = s->guard_neg ? 0 : F_GUARD_NEG;
		skip = P->p->ncode;
		if (!pp_emit(P, &ins, line))
			return false;
	}
	for (size_t k = 0; k < tl->count; k++) {
		ins_blank(&ins);
		ins.op = OP_SETP;
		ins.aux = CMP_EQ;
		ins.t2 = T_U32;
		ins.o[0] = P->brx_pred;
		ins.o[1] = index;
		ins.o[2] = pp_const_slot(P, k, PP_VAR_LITERAL);
		if (P->failed || !pp_emit(P, &ins, line))
			return false;
		ins_blank(&ins);
		ins.op = OP_BRA;
		ins.guard = P->brx_pred;
		if (!pp_label_use(P, &P->tlabels[tl->first + k], (uint32_t)P->p->ncode) ||
		    !pp_emit(P, &ins, line))
			return false;
	}
	ins_blank(&ins);
	ins.op = OP_TRAP;
	if (!pp_emit(P, &ins, line))
		return false;
	if (skip != PTX_NONE)
		P->p->code[skip].imm = (int64_t)P->p->ncode;
	return true;
}
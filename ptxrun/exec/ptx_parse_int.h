/* SPDX-License-Identifier: MIT */
/* Private to the parser (ptx_parse.c, ptx_ins.c, ptx_optab.c and the
 * instruction builders ptx_build_*.c): parser state and symbols. */
#ifndef CS_PTX_PARSE_INT_H
#define CS_PTX_PARSE_INT_H

#include "ptx_int.h"
#include "ptx_lex.h"

enum { PP_BUCKETS = 4096, PP_CBUCKETS = 1024 };
#define PP_CONST_TAG 0x80000000u /* a slot operand naming constant i, until linking */

typedef enum pp_symkind {
	SYM_REG = 1,    /* base: register index */
	SYM_RANGE,      /* %r<N>: base .. base + count - 1 */
	SYM_PRED,
	SYM_PRANGE,
	SYM_SHARED,     /* base: offset in shared memory */
	SYM_SHARED_DYN, /* the dynamic shared area */
	SYM_LOCAL,      /* base: offset in the per-thread local area */
	SYM_FPARAM,     /* a function's param (local area offset) */
	SYM_KPARAM,     /* a kernel param (offset in the param buffer) */
	SYM_MVAR,       /* base: module variable index */
} pp_symkind;

typedef struct pp_sym {
	const char *name;
	uint32_t len;
	uint32_t next;
	uint8_t kind;
	uint8_t type;
	uint32_t base;
	uint32_t count; /* registers in a range; bytes of a variable */
} pp_sym;

typedef struct pp_label {
	const char *name;
	uint32_t len;
	uint32_t pc;
} pp_label;

typedef struct pp_fixup {
	const char *name;
	uint32_t len;
	uint32_t pc, line, col;
} pp_fixup;

/* A `.branchtargets` list of the current function: its name and labels. */
typedef struct pp_tlist {
	const char *name;
	uint32_t len;
	size_t first, count; /* in pp.tlabels */
} pp_tlist;

typedef struct pp {
	ptx_lexer lx;
	ptx_tok t;
	cs_ptx_program *p;
	cs_diag *d;
	const char *name;
	bool failed;
	pp_sym *syms;
	size_t nsyms, cap_syms;
	size_t scope_mark;
	uint32_t bucket[PP_BUCKETS];
	uint32_t cbucket[PP_CBUCKETS];
	uint32_t *cnext;
	size_t cap_cnext;
	pp_label *labels;
	size_t nlabels, cap_labels;
	pp_fixup *fixups;
	size_t nfixups, cap_fixups;
	size_t cap_lines;
	size_t cur_func;
	uint32_t carry_pred; /* the predicate that holds CC.CF (carry arithmetic),
				PTX_NONE until an instruction uses it */
	uint32_t brx_pred;   /* scratch predicate of lowered brx.idx, PTX_NONE until used */
	pp_tlist *tlists;    /* the current function's .branchtargets lists */
	size_t ntlists, cap_tlists;
	ptx_tok *tlabels;
	size_t ntlabels, cap_tlabels;
} pp;

void pp_err(pp *P, const ptx_tok *at, cs_status st, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
void pp_next(pp *P);
bool pp_is(const pp *P, const char *s);
bool pp_punct(const pp *P, char c);
bool pp_expect(pp *P, char c);
bool pp_sym_add(pp *P, const ptx_tok *at, const char *s, size_t n, pp_sym v);
const pp_sym *pp_sym_find(const pp *P, const char *s, size_t n);
const pp_sym *pp_reg_find(const pp *P, const char *s, size_t n, uint32_t *index);
uint32_t pp_const_slot(pp *P, uint64_t value, int32_t var);
ptx_type pp_type_of(const char *s, size_t n);
bool pp_label_use(pp *P, const ptx_tok *t, uint32_t pc);
bool pp_emit(pp *P, const ptx_ins *ins, uint32_t line);
/* The .branchtargets list named t in the current function, or NULL. */
const pp_tlist *pp_tlist_find(const pp *P, const ptx_tok *t);
/* Parses one instruction statement (guard, opcode, operands, ';') and emits it. */
bool pp_instruction(pp *P);

/* Constant var markers (ptx_const.var). */
#define PP_VAR_LITERAL (-1)
#define PP_VAR_DYNSHARED (-2)

#endif

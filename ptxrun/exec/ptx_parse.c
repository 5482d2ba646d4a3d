/* SPDX-License-Identifier: MIT */
/* The PTX parser: module directives, variable and function declarations, and
 * instructions predecoded into ptx_ins records (ptx_int.h). */
#include "ptx_int.h"
#include "ptx_lex.h"
#include "ptx_parse_int.h"

#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- errors ------------------------------------------------------------- */

void pp_err(pp *P, const ptx_tok *at, cs_status st, const char *fmt, ...)
{
	if (P->failed)
		return;
	P->failed = true;
	char msg[CS_DIAG_MSG_MAX];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	cs_diag_at_text(P->d, st, P->name, at ? at->line : P->t.line, at ? at->col : P->t.col,
			"%s", msg);
}

static void *xgrow(pp *P, void *ptr, size_t *cap, size_t need, size_t elem)
{
	if (need <= *cap)
		return ptr;
	size_t nc = *cap ? *cap : 16;
	while (nc < need) {
		if (nc > SIZE_MAX / 2 / elem) {
			pp_err(P, NULL, CS_ERR_NOMEM, "out of memory");
			return NULL;
		}
		nc *= 2;
	}
	void *q = realloc(ptr, nc * elem);
	if (!q) {
		pp_err(P, NULL, CS_ERR_NOMEM, "out of memory");
		return NULL;
	}
	*cap = nc;
	return q;
}
#define GROW(P, arr, cap, need) \
	((arr) = xgrow((P), (arr), &(cap), (need), sizeof(*(arr))), (arr) != NULL)

static char *xstrndup(pp *P, const char *s, size_t n)
{
	char *r = malloc(n + 1);
	if (!r) {
		pp_err(P, NULL, CS_ERR_NOMEM, "out of memory");
		return NULL;
	}
	memcpy(r, s, n);
	r[n] = 0;
	return r;
}

/* ---- tokens ------------------------------------------------------------- */

void pp_next(pp *P)
{
	P->t = ptx_lex_next(&P->lx);
	if (P->t.kind == TK_BAD && P->lx.bad_comment)
		pp_err(P, &P->t, CS_ERR_INPUT, "unterminated /* comment");
	else if (P->t.kind == TK_BAD)
		pp_err(P, &P->t, CS_ERR_INPUT, "unexpected '%.*s'", (int)(P->t.len ? P->t.len : 1),
		       P->t.len ? P->t.s : "?");
}

bool pp_is(const pp *P, const char *s)
{
	size_t n = strlen(s);
	return P->t.kind == TK_ID && P->t.len == n && memcmp(P->t.s, s, n) == 0;
}

bool pp_punct(const pp *P, char c)
{
	return P->t.kind == TK_PUNCT && P->t.c == c;
}

bool pp_expect(pp *P, char c)
{
	if (!pp_punct(P, c)) {
		pp_err(P, &P->t, CS_ERR_INPUT, "expected '%c', found '%.*s'", c,
		       P->t.kind == TK_EOF ? 3 : (int)P->t.len,
		       P->t.kind == TK_EOF ? "EOF" : P->t.s);
		return false;
	}
	pp_next(P);
	return true;
}

/* ---- symbols ------------------------------------------------------------ */

static uint32_t hash_name(const char *s, size_t n)
{
	uint32_t h = 2166136261u;
	for (size_t i = 0; i < n; i++)
		h = (h ^ (uint8_t)s[i]) * 16777619u;
	return h;
}

bool pp_sym_add(pp *P, const ptx_tok *at, const char *s, size_t n, pp_sym v)
{
	if (!GROW(P, P->syms, P->cap_syms, P->nsyms + 1))
		return false;
	uint32_t h = hash_name(s, n) & (PP_BUCKETS - 1);
	/* A name may be declared once per scope. */
	for (uint32_t i = P->bucket[h]; i != PTX_NONE; i = P->syms[i].next) {
		if (i < P->scope_mark)
			break;
		if (P->syms[i].len == n && memcmp(P->syms[i].name, s, n) == 0) {
			pp_err(P, at, CS_ERR_INPUT, "'%.*s' is already declared in this scope", (int)n,
			       s);
			return false;
		}
	}
	v.name = s;
	v.len = (uint32_t)n;
	v.next = P->bucket[h];
	P->syms[P->nsyms] = v;
	P->bucket[h] = (uint32_t)P->nsyms;
	P->nsyms++;
	return true;
}

const pp_sym *pp_sym_find(const pp *P, const char *s, size_t n)
{
	uint32_t h = hash_name(s, n) & (PP_BUCKETS - 1);
	for (uint32_t i = P->bucket[h]; i != PTX_NONE; i = P->syms[i].next)
		if (P->syms[i].len == n && memcmp(P->syms[i].name, s, n) == 0)
			return &P->syms[i];
	return NULL;
}

/* Pops every symbol declared after mark (scopes close in reverse order, so each
 * popped symbol is at the head of its chain). */
static void sym_pop_to(pp *P, size_t mark)
{
	while (P->nsyms > mark) {
		P->nsyms--;
		const pp_sym *s = &P->syms[P->nsyms];
		uint32_t h = hash_name(s->name, s->len) & (PP_BUCKETS - 1);
		P->bucket[h] = s->next;
	}
}

/* A register name: a plain symbol, or prefix + number inside a `<N>` range. */
const pp_sym *pp_reg_find(const pp *P, const char *s, size_t n, uint32_t *index)
{
	const pp_sym *sym = pp_sym_find(P, s, n);
	if (sym && sym->kind != SYM_RANGE && sym->kind != SYM_PRANGE) {
		*index = 0;
		return sym;
	}
	size_t k = n;
	while (k > 0 && s[k - 1] >= '0' && s[k - 1] <= '9')
		k--;
	if (k == n || k == 0 || n - k > 9)
		return NULL;
	if (n - k > 1 && s[k] == '0')
		return NULL;
	uint32_t num = 0;
	for (size_t i = k; i < n; i++)
		num = num * 10 + (uint32_t)(s[i] - '0');
	uint32_t h = hash_name(s, k) & (PP_BUCKETS - 1);
	for (uint32_t i = P->bucket[h]; i != PTX_NONE; i = P->syms[i].next) {
		const pp_sym *r = &P->syms[i];
		if ((r->kind == SYM_RANGE || r->kind == SYM_PRANGE) && r->len == k &&
		    memcmp(r->name, s, k) == 0) {
			if (num >= r->count)
				continue; /* an inner %r<3> does not hide an outer %r19 */
			*index = num;
			return r;
		}
	}
	return NULL;
}

/* ---- constants ---------------------------------------------------------- */

uint32_t pp_const_slot(pp *P, uint64_t value, int32_t var)
{
	cs_ptx_program *p = P->p;
	uint32_t h = (hash_name((const char *)&value, 8) ^ (uint32_t)var * 7919u) &
		     (PP_CBUCKETS - 1);
	for (uint32_t i = P->cbucket[h]; i != PTX_NONE; i = P->cnext[i])
		if (p->consts[i].value == value && p->consts[i].var == var)
			return PP_CONST_TAG | i;
	if (!GROW(P, p->consts, p->cap_consts, p->nconsts + 1))
		return 0;
	size_t cap = P->cap_cnext;
	if (!GROW(P, P->cnext, cap, p->nconsts + 1))
		return 0;
	P->cap_cnext = cap;
	uint32_t i = (uint32_t)p->nconsts++;
	p->consts[i].value = value;
	p->consts[i].var = var;
	P->cnext[i] = P->cbucket[h];
	P->cbucket[h] = i;
	return PP_CONST_TAG | i;
}

/* ---- types and declarations --------------------------------------------- */

static const struct {
	const char *name;
	ptx_type t;
} type_names[] = {
	{ ".b8", T_B8 },     { ".b16", T_B16 },   { ".b32", T_B32 },   { ".b64", T_B64 },
	{ ".u8", T_U8 },     { ".u16", T_U16 },   { ".u32", T_U32 },   { ".u64", T_U64 },
	{ ".s8", T_S8 },     { ".s16", T_S16 },   { ".s32", T_S32 },   { ".s64", T_S64 },
	{ ".f16", T_F16 },   { ".f16x2", T_F16X2 }, { ".bf16", T_BF16 }, { ".bf16x2", T_BF16X2 },
	{ ".f32", T_F32 },   { ".f64", T_F64 },   { ".pred", T_PRED },
};

ptx_type pp_type_of(const char *s, size_t n)
{
	for (size_t i = 0; i < sizeof(type_names) / sizeof(type_names[0]); i++)
		if (strlen(type_names[i].name) == n && memcmp(type_names[i].name, s, n) == 0)
			return type_names[i].t;
	return T_NONE;
}

unsigned ptx_type_bytes(ptx_type t)
{
	switch (t) {
	case T_B8: case T_U8: case T_S8: return 1;
	case T_B16: case T_U16: case T_S16: case T_F16: case T_BF16: return 2;
	case T_B32: case T_U32: case T_S32: case T_F32: case T_F16X2: case T_BF16X2: return 4;
	case T_B64: case T_U64: case T_S64: case T_F64: return 8;
	default: return 0;
	}
}

bool ptx_type_signed(ptx_type t)
{
	return t == T_S8 || t == T_S16 || t == T_S32 || t == T_S64;
}

bool ptx_type_float(ptx_type t)
{
	return t == T_F16 || t == T_F16X2 || t == T_BF16 || t == T_BF16X2 || t == T_F32 ||
	       t == T_F64;
}

static bool parse_uint(pp *P, uint64_t *v, const char *what)
{
	if (P->t.kind != TK_INT || P->t.overflow) {
		pp_err(P, &P->t, CS_ERR_INPUT, "expected %s", what);
		return false;
	}
	*v = P->t.ival;
	pp_next(P);
	return true;
}

static bool parse_reg_names(pp *P, ptx_type t);

/* `.reg .TYPE name[<N>] [, name...];` (after `.reg`). */
static bool parse_reg_decl(pp *P)
{
	ptx_tok tt = P->t;
	if (pp_is(P, ".v2") || pp_is(P, ".v4")) {
		pp_err(P, &P->t, CS_ERR_UNSUPPORTED, "vector register declarations are not supported");
		return false;
	}
	ptx_type t = P->t.kind == TK_ID ? pp_type_of(P->t.s, P->t.len) : T_NONE;
	if (t == T_NONE) {
		pp_err(P, &tt, CS_ERR_INPUT, "expected a register type after .reg");
		return false;
	}
	pp_next(P);
	return parse_reg_names(P, t);
}

/* `.reg.TYPE name...;` written as one word, as CUDA's headers write their
 * inline asm (cuda_bf16.hpp's `{ .reg.f32 f; ... }`): tok is that word. */
static bool parse_reg_decl_joined(pp *P, const ptx_tok *tok)
{
	ptx_type t = pp_type_of(tok->s + 4, tok->len - 4);
	if (t == T_NONE) {
		pp_err(P, tok, CS_ERR_INPUT, "expected a register type after .reg in '%.*s'",
		       (int)tok->len, tok->s);
		return false;
	}
	pp_next(P);
	return parse_reg_names(P, t);
}

/* The names of a register declaration of type t, to its ';'. */
static bool parse_reg_names(pp *P, ptx_type t)
{
	for (;;) {
		ptx_tok nt = P->t;
		if (nt.kind != TK_ID || nt.s[0] == '.') {
			pp_err(P, &nt, CS_ERR_INPUT, "expected a register name");
			return false;
		}
		pp_next(P);
		uint64_t count = 1;
		bool range = false;
		if (pp_punct(P, '<')) {
			pp_next(P);
			if (!parse_uint(P, &count, "a register count"))
				return false;
			if (!pp_expect(P, '>'))
				return false;
			if (count > (1u << 20)) {
				pp_err(P, &nt, CS_ERR_UNSUPPORTED, "%llu registers is beyond the limit",
				       (unsigned long long)count);
				return false;
			}
			range = true;
		}
		pp_sym s = { 0 };
		s.count = (uint32_t)count;
		s.type = (uint8_t)t;
		cs_ptx_program *p = P->p;
		if (t == T_PRED) {
			s.kind = range ? SYM_PRANGE : SYM_PRED;
			s.base = p->npreds;
			if (p->npreds + count > (1u << 22)) {
				pp_err(P, &nt, CS_ERR_UNSUPPORTED, "too many predicate registers");
				return false;
			}
			p->npreds += (uint32_t)count;
		} else {
			s.kind = range ? SYM_RANGE : SYM_REG;
			s.base = p->nregs;
			if (p->nregs + count > (1u << 22)) {
				pp_err(P, &nt, CS_ERR_UNSUPPORTED, "too many registers");
				return false;
			}
			p->nregs += (uint32_t)count;
		}
		if (!pp_sym_add(P, &nt, nt.s, nt.len, s))
			return false;
		if (pp_punct(P, ',')) {
			pp_next(P);
			continue;
		}
		return pp_expect(P, ';');
	}
}

/* Variable declaration after the state space: [.align N] [.vN] .TYPE name[dims] [= init];
 * Fills size, align and (optionally) the initializer. */
typedef struct vardecl {
	ptx_tok name;
	ptx_type type;
	uint32_t align, size;
	bool unsized; /* `name[]` */
	uint8_t *init;
} vardecl;

static bool parse_init(pp *P, vardecl *v, uint32_t elem)
{
	/* = value | = { values } ; only numeric literals (no address initializers) */
	v->init = calloc(v->size ? v->size : 1, 1);
	if (!v->init) {
		pp_err(P, NULL, CS_ERR_NOMEM, "out of memory");
		return false;
	}
	bool braced = pp_punct(P, '{');
	if (braced)
		pp_next(P);
	uint32_t off = 0;
	int depth = braced ? 1 : 0;
	for (;;) {
		if (pp_punct(P, '{')) {
			depth++;
			pp_next(P);
			continue;
		}
		if (pp_punct(P, '}')) {
			if (depth == 0)
				break;
			depth--;
			pp_next(P);
			if (depth == 0)
				break;
			if (pp_punct(P, ','))
				pp_next(P);
			continue;
		}
		bool neg = false;
		if (pp_punct(P, '-')) {
			neg = true;
			pp_next(P);
		}
		ptx_tok vt = P->t;
		uint64_t bits;
		if (vt.kind == TK_INT) {
			uint64_t iv = neg ? (uint64_t)0 - vt.ival : vt.ival;
			if (v->type == T_F32) {
				float f = neg ? -(float)vt.ival : (float)vt.ival;
				uint32_t b;
				memcpy(&b, &f, 4);
				bits = b;
			} else if (v->type == T_F64) {
				double f = neg ? -(double)vt.ival : (double)vt.ival;
				memcpy(&bits, &f, 8);
			} else {
				bits = iv;
			}
		} else if (vt.kind == TK_F32 || vt.kind == TK_F64) {
			double dv;
			if (vt.kind == TK_F32) {
				float f;
				uint32_t b = (uint32_t)vt.ival;
				memcpy(&f, &b, 4);
				dv = f;
			} else {
				memcpy(&dv, &vt.ival, 8);
			}
			if (neg)
				dv = -dv;
			if (v->type == T_F32) {
				float f = (float)dv;
				uint32_t b;
				memcpy(&b, &f, 4);
				bits = b;
			} else if (v->type == T_F64) {
				memcpy(&bits, &dv, 8);
			} else {
				bits = vt.ival;
			}
		} else {
			pp_err(P, &vt, CS_ERR_UNSUPPORTED,
			       "only numeric initializers are supported, found '%.*s'", (int)vt.len,
			       vt.s);
			return false;
		}
		pp_next(P);
		if (off + elem > v->size) {
			pp_err(P, &vt, CS_ERR_INPUT, "too many initializers for '%.*s'",
			       (int)v->name.len, v->name.s);
			return false;
		}
		memcpy(v->init + off, &bits, elem);
		off += elem;
		if (depth == 0)
			break;
		if (pp_punct(P, ','))
			pp_next(P);
		else if (!pp_punct(P, '}')) {
			pp_err(P, &P->t, CS_ERR_INPUT, "expected ',' or '}' in an initializer");
			return false;
		}
	}
	return true;
}

static bool parse_var_decl(pp *P, vardecl *v, bool allow_init)
{
	memset(v, 0, sizeof(*v));
	uint32_t vec = 1;
	for (;;) {
		if (pp_is(P, ".align")) {
			pp_next(P);
			uint64_t a;
			if (!parse_uint(P, &a, "an alignment"))
				return false;
			if (a == 0 || (a & (a - 1)) || a > 4096) {
				pp_err(P, NULL, CS_ERR_INPUT, "alignment %llu is not a power of two <= 4096",
				       (unsigned long long)a);
				return false;
			}
			v->align = (uint32_t)a;
		} else if (pp_is(P, ".v2") || pp_is(P, ".v4") || pp_is(P, ".v8")) {
			vec = (uint32_t)(P->t.s[2] - '0');
			pp_next(P);
		} else if (pp_is(P, ".ptr") || pp_is(P, ".global") || pp_is(P, ".shared") ||
			   pp_is(P, ".const") || pp_is(P, ".local")) {
			pp_next(P); /* .param .u64 .ptr .global .align 1 name */
		} else {
			break;
		}
	}
	ptx_type t = P->t.kind == TK_ID ? pp_type_of(P->t.s, P->t.len) : T_NONE;
	if (t == T_NONE || t == T_PRED) {
		pp_err(P, &P->t, CS_ERR_INPUT, "expected a variable type, found '%.*s'",
		       (int)P->t.len, P->t.s);
		return false;
	}
	v->type = t;
	pp_next(P);
	/* kernel pointer params: .param .u64 .ptr [.space] [.align N] name */
	while (pp_is(P, ".ptr") || pp_is(P, ".global") || pp_is(P, ".shared") ||
	       pp_is(P, ".const") || pp_is(P, ".local") || pp_is(P, ".align")) {
		bool al = pp_is(P, ".align");
		pp_next(P);
		if (al) {
			uint64_t a;
			if (!parse_uint(P, &a, "an alignment"))
				return false;
			if (a == 0 || (a & (a - 1)) || a > 4096) {
				pp_err(P, NULL, CS_ERR_INPUT, "alignment %llu is not a power of two <= 4096",
				       (unsigned long long)a);
				return false;
			}
		}
	}
	if (P->t.kind != TK_ID || P->t.s[0] == '.') {
		pp_err(P, &P->t, CS_ERR_INPUT, "expected a variable name");
		return false;
	}
	v->name = P->t;
	pp_next(P);
	uint64_t elem = ptx_type_bytes(t) * vec;
	uint64_t size = elem;
	while (pp_punct(P, '[')) {
		pp_next(P);
		if (pp_punct(P, ']')) {
			v->unsized = true;
			size = 0;
			pp_next(P);
			continue;
		}
		uint64_t n;
		if (!parse_uint(P, &n, "an array length"))
			return false;
		if (!pp_expect(P, ']'))
			return false;
		if (n == 0) {
			pp_err(P, &v->name, CS_ERR_INPUT, "array '%.*s' of length 0",
			       (int)v->name.len, v->name.s);
			return false;
		}
		if (n > (1u << 30) || size * n > (1u << 30)) {
			pp_err(P, &v->name, CS_ERR_UNSUPPORTED, "array '%.*s' of %" PRIu64 " bytes: "
			       "the executor holds arrays of at most %u", (int)v->name.len, v->name.s,
			       size * n, 1u << 30);
			return false;
		}
		size *= n;
	}
	v->size = (uint32_t)size;
	if (!v->align)
		v->align = (uint32_t)elem;
	if (pp_punct(P, '=')) {
		if (!allow_init) {
			pp_err(P, &P->t, CS_ERR_INPUT, "an initializer is not allowed here");
			return false;
		}
		pp_next(P);
		if (!parse_init(P, v, (uint32_t)ptx_type_bytes(t)))
			return false;
	}
	return true;
}

static bool bump(pp *P, uint32_t *total, const vardecl *v, uint32_t *offset)
{
	uint64_t o = ((uint64_t)*total + v->align - 1) & ~(uint64_t)(v->align - 1);
	if (o + v->size > (1u << 30)) {
		pp_err(P, &v->name, CS_ERR_UNSUPPORTED, "'%.*s' does not fit the address space",
		       (int)v->name.len, v->name.s);
		return false;
	}
	*offset = (uint32_t)o;
	*total = (uint32_t)(o + v->size);
	return true;
}

/* A state-space declaration inside or outside a function: .shared, .local,
 * .global, .const, .param (inside a function body). */
static bool space_decl(pp *P, const ptx_tok *space, bool is_extern, bool module_scope, vardecl *vp)
{
	vardecl v;
	memset(&v, 0, sizeof(v));
	bool is_shared = space->len == 7 && !memcmp(space->s, ".shared", 7);
	bool is_local = space->len == 6 && !memcmp(space->s, ".local", 6);
	bool is_param = space->len == 6 && !memcmp(space->s, ".param", 6);
	bool is_global = space->len == 7 && !memcmp(space->s, ".global", 7);
	bool is_const = space->len == 6 && !memcmp(space->s, ".const", 6);
	bool okd = parse_var_decl(P, &v, is_global || is_const);
	*vp = v;
	if (!okd)
		return false;
	cs_ptx_program *p = P->p;
	pp_sym s = { 0 };
	if (v.unsized && !(is_shared && is_extern)) {
		pp_err(P, &v.name, CS_ERR_UNSUPPORTED, "unsized array '%.*s'", (int)v.name.len,
		       v.name.s);
		return false;
	}
	if (is_shared) {
		if (is_extern) {
			s.kind = SYM_SHARED_DYN;
			if (v.align > p->shared_dyn_align)
				p->shared_dyn_align = v.align;
		} else {
			s.kind = SYM_SHARED;
			if (!bump(P, &p->shared_static, &v, &s.base))
				return false;
		}
	} else if (is_local || is_param) {
		if (module_scope) {
			pp_err(P, space, CS_ERR_UNSUPPORTED, "module-scope %.*s variables",
			       (int)space->len, space->s);
			return false;
		}
		s.kind = is_param ? SYM_FPARAM : SYM_LOCAL;
		if (!bump(P, &p->local_bytes, &v, &s.base))
			return false;
	} else if (is_global || is_const) {
		if (is_extern) {
			pp_err(P, &v.name, CS_ERR_UNSUPPORTED, "extern %.*s variable '%.*s'",
			       (int)space->len, space->s, (int)v.name.len, v.name.s);
			return false;
		}
		if (!GROW(P, p->vars, p->cap_vars, p->nvars + 1))
			return false;
		ptx_mvar *mv = &p->vars[p->nvars];
		memset(mv, 0, sizeof(*mv));
		mv->name = xstrndup(P, v.name.s, v.name.len);
		mv->space = is_global ? CS_PTX_SPACE_GLOBAL : CS_PTX_SPACE_CONST;
		mv->size = v.size;
		mv->align = v.align;
		mv->init = v.init ? v.init : calloc(v.size ? v.size : 1, 1);
		v.init = NULL;
		vp->init = NULL;
		if (!mv->name || !mv->init) {
			free(mv->name);
			free(mv->init);
			pp_err(P, NULL, CS_ERR_NOMEM, "out of memory");
			return false;
		}
		if (!bump(P, &p->module_bytes, &v, &mv->offset)) {
			free(mv->name);
			free(mv->init);
			return false;
		}
		s.kind = SYM_MVAR;
		s.base = (uint32_t)p->nvars;
		p->nvars++;
	} else {
		pp_err(P, space, CS_ERR_UNSUPPORTED, "state space %.*s", (int)space->len, space->s);
		return false;
	}
	s.count = v.size;
	s.type = (uint8_t)v.type; /* its element type, for name[N] operands */
	if (!pp_sym_add(P, &v.name, v.name.s, v.name.len, s))
		return false;
	return pp_expect(P, ';');
}

static bool parse_space_decl(pp *P, const ptx_tok *space, bool is_extern, bool module_scope)
{
	vardecl v;
	memset(&v, 0, sizeof(v));
	bool ok = space_decl(P, space, is_extern, module_scope, &v);
	free(v.init);
	return ok;
}

/* ---- functions ---------------------------------------------------------- */

static ptx_func *func_by_name(pp *P, const char *s, size_t n, size_t *index)
{
	for (size_t i = 0; i < P->p->nfuncs; i++) {
		ptx_func *f = &P->p->funcs[i];
		if (strlen(f->name) == n && memcmp(f->name, s, n) == 0) {
			if (index)
				*index = i;
			return f;
		}
	}
	return NULL;
}

/* `( .param ... , ... )` : kernel params (kernel = true) or function params. */
static bool parse_param_list(pp *P, ptx_func *f, bool kernel, bool rets, bool declare)
{
	if (!pp_expect(P, '('))
		return false;
	if (pp_punct(P, ')')) {
		pp_next(P);
		return true;
	}
	for (;;) {
		if (!pp_is(P, ".param") && !pp_is(P, ".reg")) {
			pp_err(P, &P->t, CS_ERR_INPUT, "expected .param in a parameter list");
			return false;
		}
		if (pp_is(P, ".reg")) {
			pp_err(P, &P->t, CS_ERR_UNSUPPORTED, ".reg parameters");
			return false;
		}
		pp_next(P);
		vardecl v;
		if (!parse_var_decl(P, &v, false))
			return false;
		if (v.unsized) {
			pp_err(P, &v.name, CS_ERR_UNSUPPORTED, "unsized parameter");
			return false;
		}
		ptx_param pr = { 0 };
		pr.size = v.size;
		pr.align = v.align;
		pp_sym s = { 0 };
		if (kernel) {
			if (!bump(P, &f->param_bytes, &v, &pr.offset))
				return false;
			s.kind = SYM_KPARAM;
		} else {
			if (!bump(P, &P->p->local_bytes, &v, &pr.offset))
				return false;
			s.kind = SYM_FPARAM;
		}
		s.base = pr.offset;
		s.count = v.size;
		if (declare) {
			pr.name = xstrndup(P, v.name.s, v.name.len);
			if (!pr.name)
				return false;
			if (rets) {
				size_t cap = f->nrets;
				if (!GROW(P, f->rets, cap, (size_t)f->nrets + 1)) {
					free(pr.name);
					return false;
				}
				f->rets[f->nrets++] = pr;
			} else {
				if (!GROW(P, f->params, f->cap_params, f->nparams + 1)) {
					free(pr.name);
					return false;
				}
				f->params[f->nparams++] = pr;
			}
			if (!pp_sym_add(P, &v.name, v.name.s, v.name.len, s))
				return false;
		}
		if (pp_punct(P, ',')) {
			pp_next(P);
			continue;
		}
		return pp_expect(P, ')');
	}
}

static bool parse_body(pp *P, size_t fi);

static void skip_perf_directives(pp *P)
{
	while (!P->failed && P->t.kind == TK_ID && P->t.s[0] == '.' && !pp_is(P, ".entry") &&
	       !pp_is(P, ".func")) {
		/* .maxntid 256, 1, 1 / .reqntid / .minnctapersm N / .maxnreg N /
		 * .noreturn / .pragma "..."; / .explicitcluster ... */
		bool pragma = pp_is(P, ".pragma");
		pp_next(P);
		while (P->t.kind == TK_INT || pp_punct(P, ',') || P->t.kind == TK_STR)
			pp_next(P);
		if (pragma && pp_punct(P, ';'))
			pp_next(P);
	}
}

/* Where the body that opens at the current '{' ends: the lexer just past its
 * matching '}' and the token there. False when the braces never balance (the
 * text ends first), so a refusal inside the body cannot be skipped. */
static bool body_extent(const pp *P, ptx_lexer *after, ptx_tok *next)
{
	ptx_lexer lx = P->lx;
	int depth = 1;
	for (;;) {
		ptx_tok t = ptx_lex_next(&lx);
		if (t.kind == TK_EOF || lx.bad_comment)
			return false;
		if (t.kind == TK_PUNCT && t.c == '{')
			depth++;
		if (t.kind == TK_PUNCT && t.c == '}' && --depth == 0)
			break;
	}
	*next = ptx_lex_next(&lx);
	*after = lx;
	return true;
}

/* Marks function fi refused with the parser's error and forgets what its body
 * emitted, so the module's other functions still run. */
static bool refuse_function(pp *P, size_t fi, size_t ncalls_before)
{
	cs_ptx_program *p = P->p;
	ptx_func *f = &p->funcs[fi];
	f->refusal = malloc(sizeof(*f->refusal));
	if (!f->refusal) {
		cs_diag_set(P->d, CS_ERR_NOMEM, "out of memory");
		return false;
	}
	*f->refusal = *P->d;
	f->refusal_root = f->refusal;
	cs_diag_clear(P->d);
	P->failed = false;
	p->ncode = f->start;
	f->end = f->start;
	for (size_t i = ncalls_before; i < p->ncalls; i++) {
		free(p->calls[i].args);
		free(p->calls[i].rets);
		free(p->calls[i].callee_name);
	}
	p->ncalls = ncalls_before;
	P->nlabels = 0;
	P->nfixups = 0;
	P->ntlists = 0;
	P->ntlabels = 0;
	return true;
}

static bool parse_function(pp *P, bool is_entry, bool is_extern)
{
	size_t mark = P->nsyms;
	size_t scope_mark = P->scope_mark;
	ptx_func tmp;
	memset(&tmp, 0, sizeof(tmp));
	/* Return parameters: .func (.param .b32 retval) name(...) */
	bool has_rets = false;
	if (!is_entry && pp_punct(P, '(')) {
		P->scope_mark = P->nsyms;
		if (!parse_param_list(P, &tmp, false, true, true))
			goto fail;
		has_rets = true;
	}
	if (P->t.kind != TK_ID || P->t.s[0] == '.' || P->t.s[0] == '%') {
		pp_err(P, &P->t, CS_ERR_INPUT, "expected a function name");
		goto fail;
	}
	ptx_tok name = P->t;
	pp_next(P);
	size_t fi = 0; /* set by func_by_name when prev is found */
	ptx_func *prev = func_by_name(P, name.s, name.len, &fi);
	if (prev && prev->defined) {
		/* A prototype after the definition: parse and drop it. */
	}
	if (!has_rets)
		P->scope_mark = P->nsyms;
	if (pp_punct(P, '(')) {
		if (!parse_param_list(P, &tmp, is_entry, false, true))
			goto fail;
	}
	skip_perf_directives(P);
	if (P->failed)
		goto fail;
	if (pp_punct(P, ';')) {
		/* A declaration (prototype, or .extern). */
		pp_next(P);
		if (!prev) {
			cs_ptx_program *p = P->p;
			if (!GROW(P, p->funcs, p->cap_funcs, p->nfuncs + 1))
				goto fail;
			tmp.name = xstrndup(P, name.s, name.len);
			tmp.is_entry = is_entry;
			tmp.line = name.line;
			tmp.start = tmp.end = PTX_NONE;
			p->funcs[p->nfuncs++] = tmp;
			memset(&tmp, 0, sizeof(tmp));
		}
		goto drop;
	}
	(void)is_extern;
	if (!pp_punct(P, '{')) {
		pp_err(P, &P->t, CS_ERR_INPUT, "expected '{' or ';' after a function header");
		goto fail;
	}
	if (prev && prev->defined) {
		pp_err(P, &name, CS_ERR_INPUT, "function '%.*s' is defined twice", (int)name.len,
		       name.s);
		goto fail;
	}
	cs_ptx_program *p = P->p;
	if (prev) {
		/* Replace the prototype's layout with the definition's. */
		for (size_t i = 0; i < prev->nparams; i++)
			free(prev->params[i].name);
		for (size_t i = 0; i < prev->nrets; i++)
			free(prev->rets[i].name);
		free(prev->params);
		free(prev->rets);
		char *nm = prev->name;
		*prev = tmp;
		prev->name = nm;
	} else {
		if (!GROW(P, p->funcs, p->cap_funcs, p->nfuncs + 1))
			goto fail;
		fi = p->nfuncs;
		p->funcs[p->nfuncs] = tmp;
		p->funcs[p->nfuncs].name = xstrndup(P, name.s, name.len);
		p->nfuncs++;
		if (!p->funcs[fi].name)
			goto fail;
	}
	memset(&tmp, 0, sizeof(tmp));
	ptx_func *f = &p->funcs[fi];
	f->is_entry = is_entry;
	f->defined = true;
	f->line = name.line;
	if (is_entry) {
		size_t cap = p->nentries;
		if (!GROW(P, p->entries, cap, p->nentries + 1))
			goto fail;
		p->entries[p->nentries++] = fi;
	}
	/* A body the executor refuses refuses this function alone: the parser
	 * resumes after its closing brace. */
	ptx_lexer after;
	ptx_tok next;
	bool skippable = body_extent(P, &after, &next);
	size_t ncalls_before = p->ncalls;
	pp_next(P); /* '{' */
	if (!parse_body(P, fi)) {
		if (!skippable || P->d->status == CS_ERR_NOMEM ||
		    !refuse_function(P, fi, ncalls_before))
			goto fail;
		P->lx = after;
		P->t = next;
	}
	sym_pop_to(P, mark);
	P->scope_mark = scope_mark;
	return true;
drop:
	for (size_t i = 0; i < tmp.nparams; i++)
		free(tmp.params[i].name);
	for (size_t i = 0; i < tmp.nrets; i++)
		free(tmp.rets[i].name);
	free(tmp.params);
	free(tmp.rets);
	free(tmp.name);
	sym_pop_to(P, mark);
	P->scope_mark = scope_mark;
	return !P->failed;
fail:
	for (size_t i = 0; i < tmp.nparams; i++)
		free(tmp.params[i].name);
	for (size_t i = 0; i < tmp.nrets; i++)
		free(tmp.rets[i].name);
	free(tmp.params);
	free(tmp.rets);
	free(tmp.name);
	sym_pop_to(P, mark);
	P->scope_mark = scope_mark;
	return false;
}

/* ---- labels ------------------------------------------------------------- */

static bool label_define(pp *P, const ptx_tok *t)
{
	for (size_t i = 0; i < P->nlabels; i++)
		if (P->labels[i].len == t->len && !memcmp(P->labels[i].name, t->s, t->len)) {
			pp_err(P, t, CS_ERR_INPUT, "label '%.*s' is defined twice", (int)t->len, t->s);
			return false;
		}
	if (!GROW(P, P->labels, P->cap_labels, P->nlabels + 1))
		return false;
	P->labels[P->nlabels].name = t->s;
	P->labels[P->nlabels].len = t->len;
	P->labels[P->nlabels].pc = (uint32_t)P->p->ncode;
	P->nlabels++;
	return true;
}

bool pp_label_use(pp *P, const ptx_tok *t, uint32_t pc)
{
	if (!GROW(P, P->fixups, P->cap_fixups, P->nfixups + 1))
		return false;
	P->fixups[P->nfixups].name = t->s;
	P->fixups[P->nfixups].len = t->len;
	P->fixups[P->nfixups].pc = pc;
	P->fixups[P->nfixups].line = t->line;
	P->fixups[P->nfixups].col = t->col;
	P->nfixups++;
	return true;
}

static bool resolve_labels(pp *P)
{
	for (size_t i = 0; i < P->nfixups; i++) {
		const pp_fixup *fx = &P->fixups[i];
		size_t j;
		for (j = 0; j < P->nlabels; j++)
			if (P->labels[j].len == fx->len && !memcmp(P->labels[j].name, fx->name, fx->len))
				break;
		if (j == P->nlabels) {
			ptx_tok at = { 0 };
			at.line = fx->line;
			at.col = fx->col;
			pp_err(P, &at, CS_ERR_INPUT, "undefined label '%.*s'", (int)fx->len, fx->name);
			return false;
		}
		P->p->code[fx->pc].imm = P->labels[j].pc;
	}
	P->nfixups = 0;
	P->nlabels = 0;
	P->ntlists = 0;
	P->ntlabels = 0;
	return true;
}

/* `NAME: .branchtargets L1, L2, ...;` (the label itself is already defined). */
static bool parse_branch_targets(pp *P, const ptx_tok *name)
{
	pp_next(P); /* .branchtargets */
	if (!GROW(P, P->tlists, P->cap_tlists, P->ntlists + 1))
		return false;
	pp_tlist *tl = &P->tlists[P->ntlists];
	tl->name = name->s;
	tl->len = name->len;
	tl->first = P->ntlabels;
	tl->count = 0;
	for (;;) {
		if (P->t.kind != TK_ID || P->t.s[0] == '.' || P->t.s[0] == '%') {
			pp_err(P, &P->t, CS_ERR_INPUT, "expected a label in .branchtargets");
			return false;
		}
		if (!GROW(P, P->tlabels, P->cap_tlabels, P->ntlabels + 1))
			return false;
		P->tlabels[P->ntlabels++] = P->t;
		tl->count++;
		pp_next(P);
		if (!pp_punct(P, ','))
			break;
		pp_next(P);
	}
	P->ntlists++;
	return pp_expect(P, ';');
}

const pp_tlist *pp_tlist_find(const pp *P, const ptx_tok *t)
{
	for (size_t i = 0; i < P->ntlists; i++)
		if (P->tlists[i].len == t->len && !memcmp(P->tlists[i].name, t->s, t->len))
			return &P->tlists[i];
	return NULL;
}

/* ---- function bodies ---------------------------------------------------- */

static bool parse_body(pp *P, size_t fi)
{
	cs_ptx_program *p = P->p;
	p->funcs[fi].start = (uint32_t)p->ncode;
	P->cur_func = fi;
	int depth = 1;
	size_t marks[64];
	size_t smarks[64];
	marks[0] = P->nsyms;
	smarks[0] = P->scope_mark;
	P->scope_mark = P->nsyms;
	while (!P->failed) {
		ptx_tok t = P->t;
		if (t.kind == TK_EOF) {
			pp_err(P, &t, CS_ERR_INPUT, "end of input inside a function body");
			return false;
		}
		if (pp_punct(P, '}')) {
			pp_next(P);
			depth--;
			sym_pop_to(P, marks[depth]);
			P->scope_mark = smarks[depth];
			if (depth == 0)
				break;
			continue;
		}
		if (pp_punct(P, '{')) {
			if (depth >= 64) {
				pp_err(P, &t, CS_ERR_UNSUPPORTED, "scopes nested deeper than 64");
				return false;
			}
			marks[depth] = P->nsyms;
			smarks[depth] = P->scope_mark;
			depth++;
			P->scope_mark = P->nsyms;
			pp_next(P);
			continue;
		}
		if (t.kind == TK_ID && t.s[0] == '.') {
			if (pp_is(P, ".reg")) {
				pp_next(P);
				if (!parse_reg_decl(P))
					return false;
			} else if (t.len > 5 && memcmp(t.s, ".reg.", 5) == 0) {
				if (!parse_reg_decl_joined(P, &t))
					return false;
			} else if (pp_is(P, ".local") || pp_is(P, ".shared") || pp_is(P, ".param") ||
				   pp_is(P, ".global") || pp_is(P, ".const")) {
				pp_next(P);
				if (!parse_space_decl(P, &t, false, false))
					return false;
			} else if (pp_is(P, ".pragma")) {
				pp_next(P);
				while (P->t.kind == TK_STR || pp_punct(P, ','))
					pp_next(P);
				if (!pp_expect(P, ';'))
					return false;
			} else if (pp_is(P, ".loc") || pp_is(P, ".file")) {
				ptx_lex_skip_line(&P->lx, t.line);
				pp_next(P);
			} else {
				pp_err(P, &t, CS_ERR_UNSUPPORTED, "directive '%.*s' in a function body",
				       (int)t.len, t.s);
				return false;
			}
			continue;
		}
		if (t.kind == TK_ID) {
			/* A label? */
			ptx_lexer save = P->lx;
			pp_next(P);
			if (pp_punct(P, ':')) {
				if (!label_define(P, &t))
					return false;
				pp_next(P);
				if (pp_is(P, ".branchtargets") && !parse_branch_targets(P, &t))
					return false;
				continue;
			}
			P->lx = save;
			P->t = t;
		}
		if (!pp_instruction(P))
			return false;
	}
	if (P->failed)
		return false;
	ptx_func *f = &p->funcs[fi];
	f->end = (uint32_t)p->ncode;
	/* A function that falls off its end returns. */
	if (f->end == f->start || (p->code[f->end - 1].op != OP_RET && p->code[f->end - 1].op != OP_EXIT &&
				   p->code[f->end - 1].op != OP_BRA) || p->code[f->end - 1].guard != PTX_NONE) {
		ptx_ins ret;
		memset(&ret, 0, sizeof(ret));
		ret.op = OP_RET;
		ret.guard = PTX_NONE;
		if (!pp_emit(P, &ret, P->t.line))
			return false;
		f->end = (uint32_t)p->ncode;
	}
	if (!resolve_labels(P))
		return false;
	for (uint32_t i = f->start; i < f->end; i++)
		if (p->code[i].op == OP_BRA && (p->code[i].imm < f->start || p->code[i].imm >= f->end)) {
			ptx_tok at = { 0 };
			at.line = p->lines[i];
			at.col = 1;
			pp_err(P, &at, CS_ERR_INPUT, "branch target outside the function");
			return false;
		}
	return true;
}

bool pp_emit(pp *P, const ptx_ins *ins, uint32_t line)
{
	cs_ptx_program *p = P->p;
	if (p->ncode >= (1u << 26)) {
		pp_err(P, NULL, CS_ERR_UNSUPPORTED, "more than 2^26 instructions");
		return false;
	}
	if (!GROW(P, p->code, p->cap_code, p->ncode + 1))
		return false;
	size_t cap = P->cap_lines;
	if (!GROW(P, p->lines, cap, p->ncode + 1))
		return false;
	P->cap_lines = cap;
	p->code[p->ncode] = *ins;
	p->lines[p->ncode] = line;
	p->ncode++;
	return true;
}

/* ---- module ------------------------------------------------------------- */

static bool parse_module(pp *P)
{
	bool seen_version = false;
	while (!P->failed && P->t.kind != TK_EOF) {
		ptx_tok t = P->t;
		if (pp_is(P, ".version")) {
			pp_next(P);
			/* The lexer reads "9.0" as a decimal float. */
			if (P->t.kind == TK_F64) {
				const char *s = P->t.s;
				uint32_t n = P->t.len;
				uint32_t maj = 0, min = 0, i = 0;
				while (i < n && s[i] >= '0' && s[i] <= '9' && maj < 1000)
					maj = maj * 10 + (uint32_t)(s[i++] - '0');
				if (i < n && s[i] == '.')
					i++;
				while (i < n && s[i] >= '0' && s[i] <= '9' && min < 1000)
					min = min * 10 + (uint32_t)(s[i++] - '0');
				if (i != n) {
					pp_err(P, &P->t, CS_ERR_INPUT, "malformed .version");
					return false;
				}
				P->p->ver_major = maj;
				P->p->ver_minor = min;
				pp_next(P);
			} else {
				pp_err(P, &P->t, CS_ERR_INPUT, "expected MAJOR.MINOR after .version");
				return false;
			}
			seen_version = true;
		} else if (pp_is(P, ".target")) {
			pp_next(P);
			bool first = true;
			for (;;) {
				if (P->t.kind != TK_ID) {
					pp_err(P, &P->t, CS_ERR_INPUT, "expected a target name");
					return false;
				}
				if (first) {
					snprintf(P->p->target, sizeof(P->p->target), "%.*s",
						 (int)P->t.len, P->t.s);
					first = false;
				}
				pp_next(P);
				if (!pp_punct(P, ','))
					break;
				pp_next(P);
			}
		} else if (pp_is(P, ".address_size")) {
			pp_next(P);
			uint64_t v;
			if (!parse_uint(P, &v, "32 or 64"))
				return false;
			if (v != 64) {
				pp_err(P, &t, CS_ERR_UNSUPPORTED, ".address_size %llu (only 64)",
				       (unsigned long long)v);
				return false;
			}
			P->p->addr_size = 64;
		} else if (pp_is(P, ".file") || pp_is(P, ".loc")) {
			ptx_lex_skip_line(&P->lx, t.line);
			pp_next(P);
		} else if (pp_is(P, ".section")) {
			/* DWARF sections: skip a balanced { } block. */
			pp_next(P);
			while (!P->failed && P->t.kind != TK_EOF && !pp_punct(P, '{'))
				pp_next(P);
			int depth = 0;
			while (!P->failed && P->t.kind != TK_EOF) {
				if (pp_punct(P, '{'))
					depth++;
				if (pp_punct(P, '}') && --depth == 0) {
					pp_next(P);
					break;
				}
				pp_next(P);
			}
		} else if (pp_is(P, ".pragma")) {
			pp_next(P);
			while (P->t.kind == TK_STR || pp_punct(P, ','))
				pp_next(P);
			if (!pp_expect(P, ';'))
				return false;
		} else if (t.kind == TK_ID && t.s[0] == '.') {
			bool is_extern = false;
			while (pp_is(P, ".visible") || pp_is(P, ".extern") || pp_is(P, ".weak") ||
			       pp_is(P, ".common")) {
				if (pp_is(P, ".extern"))
					is_extern = true;
				pp_next(P);
			}
			ptx_tok what = P->t;
			if (pp_is(P, ".entry") || pp_is(P, ".func")) {
				bool entry = pp_is(P, ".entry");
				if (!seen_version) {
					pp_err(P, &what, CS_ERR_INPUT, ".version must come first");
					return false;
				}
				pp_next(P);
				if (!parse_function(P, entry, is_extern))
					return false;
			} else if (pp_is(P, ".global") || pp_is(P, ".const") || pp_is(P, ".shared") ||
				   pp_is(P, ".local")) {
				pp_next(P);
				if (!parse_space_decl(P, &what, is_extern, true))
					return false;
			} else {
				pp_err(P, &what, CS_ERR_UNSUPPORTED, "directive '%.*s'", (int)what.len,
				       what.s);
				return false;
			}
		} else {
			pp_err(P, &t, CS_ERR_INPUT, "expected a directive, found '%.*s'",
			       t.kind == TK_EOF ? 3 : (int)t.len, t.kind == TK_EOF ? "EOF" : t.s);
			return false;
		}
	}
	if (!P->failed && !seen_version) {
		pp_err(P, &P->t, CS_ERR_INPUT, "missing .version directive");
		return false;
	}
	return !P->failed;
}

/* ---- linking: calls, slots, reconvergence -------------------------------- */

static bool check_recursion(pp *P, size_t fi)
{
	cs_ptx_program *p = P->p;
	ptx_func *f = &p->funcs[fi];
	if (f->done || f->refusal)
		return true;
	if (f->visiting) {
		pp_err(P, NULL, CS_ERR_UNSUPPORTED, "recursive call through '%s'", f->name);
		P->d->line = f->line;
		return false;
	}
	f->visiting = true;
	for (size_t i = 0; i < p->ncalls; i++)
		if (p->calls[i].caller == fi && !p->calls[i].builtin &&
		    !check_recursion(P, p->calls[i].func))
			return false;
	f->visiting = false;
	f->done = true;
	return true;
}

/* Refuses function fi (unless it already is) with a message at line:col. */
static bool refuse_at(pp *P, size_t fi, uint32_t line, uint32_t col, cs_status st,
		      const char *fmt, ...) __attribute__((format(printf, 6, 7)));

static bool refuse_at(pp *P, size_t fi, uint32_t line, uint32_t col, cs_status st,
		      const char *fmt, ...)
{
	ptx_func *f = &P->p->funcs[fi];
	if (f->refusal)
		return true;
	f->refusal = malloc(sizeof(*f->refusal));
	if (!f->refusal) {
		pp_err(P, NULL, CS_ERR_NOMEM, "out of memory");
		return false;
	}
	char msg[CS_DIAG_MSG_MAX];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	cs_diag_at_text(f->refusal, st, P->name, line, col, "%s", msg);
	f->refusal_root = f->refusal;
	return true;
}

/* Whether call site c is to a function the executor provides (declared
 * .extern without a body, as nvcc declares vprintf and __assertfail), and
 * with the parameters it expects; marks it. */
static bool builtin_call(ptx_callsite *c)
{
	if (!strcmp(c->callee_name, "vprintf") && c->nargs == 2 && c->nrets <= 1 &&
	    c->args[0].size == 8 && c->args[1].size == 8 && (!c->nrets || c->rets[0].size >= 4))
		c->builtin = PTX_BUILTIN_VPRINTF;
	else if (!strcmp(c->callee_name, "__assertfail") && c->nargs == 5 && c->args[0].size == 8 &&
		 c->args[1].size == 8 && c->args[2].size == 4 && c->args[3].size == 8)
		c->builtin = PTX_BUILTIN_ASSERTFAIL;
	return c->builtin != PTX_BUILTIN_NONE;
}

/* Binds each call site to its callee. A call the executor cannot make (no
 * body here, a mismatched argument list) refuses the calling function, and a
 * function that calls a refused one is refused too, naming the call. */
static bool link_calls(pp *P)
{
	cs_ptx_program *p = P->p;
	for (size_t i = 0; i < p->ncalls; i++) {
		ptx_callsite *c = &p->calls[i];
		size_t fi;
		ptx_func *f = func_by_name(P, c->callee_name, strlen(c->callee_name), &fi);
		bool ok = true;
		if (f && !f->defined && builtin_call(c)) {
			c->func = PTX_NONE;
			continue;
		}
		if (!f)
			ok = refuse_at(P, c->caller, c->line, c->col, CS_ERR_INPUT,
				       "call to undeclared function '%s'", c->callee_name);
		else if (!f->defined || f->is_entry)
			ok = refuse_at(P, c->caller, c->line, c->col, CS_ERR_UNSUPPORTED,
				       "call to '%s', which has no body here%s", c->callee_name,
				       f->is_entry ? " (an entry)" : "");
		else if (c->nargs != f->nparams || c->nrets > f->nrets)
			ok = refuse_at(P, c->caller, c->line, c->col, CS_ERR_INPUT,
				       "call to '%s' passes %u arguments, it takes %zu",
				       c->callee_name, c->nargs, f->nparams);
		if (!ok)
			return false;
		if (!f || !f->defined || f->is_entry || c->nargs != f->nparams ||
		    c->nrets > f->nrets)
			continue;
		for (uint32_t k = 0; k < c->nargs; k++) {
			if (c->args[k].size > f->params[k].size)
				c->args[k].size = f->params[k].size;
			c->args[k].dst = f->params[k].offset;
		}
		for (uint32_t k = 0; k < c->nrets; k++) {
			if (c->rets[k].size > f->rets[k].size)
				c->rets[k].size = f->rets[k].size;
			c->rets[k].src = f->rets[k].offset;
		}
		c->func = (uint32_t)fi;
	}
	for (bool changed = true; changed;) {
		changed = false;
		for (size_t i = 0; i < p->ncalls; i++) {
			const ptx_callsite *c = &p->calls[i];
			if (c->builtin)
				continue;
			const ptx_func *callee = &p->funcs[c->func];
			if (p->funcs[c->caller].refusal || !callee->refusal)
				continue;
			/* the root, not the chain of calls to it, which would cut it off */
			char why[CS_DIAG_MSG_MAX];
			cs_diag_format(callee->refusal_root, why, sizeof(why));
			if (!refuse_at(P, c->caller, c->line, c->col, callee->refusal->status,
				       "call to '%s', which the executor refuses: %s", callee->name,
				       why))
				return false;
			p->funcs[c->caller].refusal_root = callee->refusal_root;
			changed = true;
		}
	}
	return true;
}

static bool link_program(pp *P)
{
	cs_ptx_program *p = P->p;
	if (!link_calls(P))
		return false;
	for (size_t i = 0; i < p->nfuncs; i++)
		if (!check_recursion(P, i))
			return false;
	/* Constants go after the declared registers. */
	p->const_base = SR_COUNT + p->nregs;
	uint64_t total = (uint64_t)p->const_base + p->nconsts;
	if (total > (1u << 24)) {
		pp_err(P, NULL, CS_ERR_UNSUPPORTED, "too many register slots");
		return false;
	}
	p->nslots = (uint32_t)total;
	for (size_t i = 0; i < p->ncode; i++) {
		/* Only slot operands carry the tag; predicate indices and the rest stay
		 * below 2^31. */
		ptx_ins *ins = &p->code[i];
		for (unsigned k = 0; k < 6; k++)
			if (ins->o[k] != PTX_NONE && (ins->o[k] & PP_CONST_TAG))
				ins->o[k] = p->const_base + (ins->o[k] & ~PP_CONST_TAG);
	}
	uint8_t *uses = ptx_cfg_slot_uses(p);
	if (!uses) {
		pp_err(P, NULL, CS_ERR_NOMEM, "out of memory");
		return false;
	}
	for (size_t i = 0; i < p->nfuncs; i++) {
		ptx_func *f = &p->funcs[i];
		if (!f->defined || f->refusal)
			continue;
		cs_diag why;
		cs_diag_clear(&why);
		if (!ptx_cfg_reconverge(p, f, &why) || !ptx_cfg_fuse(p, f, uses, &why)) {
			if (why.status == CS_ERR_NOMEM) {
				*P->d = why;
				P->failed = true;
				free(uses);
				return false;
			}
			f->refusal = malloc(sizeof(*f->refusal));
			if (!f->refusal) {
				pp_err(P, NULL, CS_ERR_NOMEM, "out of memory");
				free(uses);
				return false;
			}
			*f->refusal = why;
			f->refusal_root = f->refusal;
		}
	}
	free(uses);
	return true;
}

cs_ptx_program *cs_ptx_parse(const char *text, size_t len, const char *name, cs_diag *d)
{
	cs_diag_clear(d);
	cs_diag local;
	if (!d)
		d = &local;
	cs_ptx_program *p = calloc(1, sizeof(*p));
	pp *P = calloc(1, sizeof(*P));
	if (!p || !P || !text) {
		free(p);
		free(P);
		cs_diag_set(d, text ? CS_ERR_NOMEM : CS_ERR_INPUT,
			    text ? "out of memory" : "no PTX text");
		return NULL;
	}
	p->name = strdup(name ? name : "<ptx>");
	p->addr_size = 64;
	p->shared_dyn_align = 16;
	P->p = p;
	P->d = d;
	P->name = name ? name : "<ptx>";
	P->carry_pred = PTX_NONE;
	P->brx_pred = PTX_NONE;
	memset(P->bucket, 0xff, sizeof(P->bucket));
	memset(P->cbucket, 0xff, sizeof(P->cbucket));
	if (!p->name) {
		cs_diag_set(d, CS_ERR_NOMEM, "out of memory");
		free(P);
		free(p);
		return NULL;
	}
	/* The first constant: zero (slot SR_ZERO covers absolute addresses too). */
	ptx_lex_init(&P->lx, text, len);
	pp_next(P);
	bool ok = !P->failed && parse_module(P) && link_program(P);
	free(P->syms);
	free(P->labels);
	free(P->tlists);
	free(P->tlabels);
	free(P->fixups);
	free(P->cnext);
	free(P);
	if (!ok) {
		cs_ptx_program_free(p);
		return NULL;
	}
	return p;
}

void cs_ptx_program_free(cs_ptx_program *p)
{
	if (!p)
		return;
	for (size_t i = 0; i < p->nfuncs; i++) {
		ptx_func *f = &p->funcs[i];
		for (size_t k = 0; k < f->nparams; k++)
			free(f->params[k].name);
		for (size_t k = 0; k < f->nrets; k++)
			free(f->rets[k].name);
		free(f->params);
		free(f->rets);
		free(f->name);
		free(f->refusal);
	}
	for (size_t i = 0; i < p->ncalls; i++) {
		free(p->calls[i].args);
		free(p->calls[i].rets);
		free(p->calls[i].callee_name);
	}
	for (size_t i = 0; i < p->nvars; i++) {
		free(p->vars[i].name);
		free(p->vars[i].init);
	}
	free(p->vars);
	free(p->calls);
	free(p->mmas);
	free(p->wmmas);
	free(p->funcs);
	free(p->entries);
	free(p->consts);
	free(p->code);
	free(p->lines);
	free(p->name);
	free(p);
}

/* ---- queries ------------------------------------------------------------ */

void cs_ptx_version(const cs_ptx_program *p, uint32_t *major, uint32_t *minor)
{
	if (major)
		*major = p ? p->ver_major : 0;
	if (minor)
		*minor = p ? p->ver_minor : 0;
}

const char *cs_ptx_target(const cs_ptx_program *p)
{
	return p ? p->target : "";
}

uint32_t cs_ptx_address_size(const cs_ptx_program *p)
{
	return p ? p->addr_size : 0;
}

size_t cs_ptx_entry_count(const cs_ptx_program *p)
{
	return p ? p->nentries : 0;
}

static const ptx_func *entry_func(const cs_ptx_program *p, size_t i)
{
	if (!p || i >= p->nentries)
		return NULL;
	return &p->funcs[p->entries[i]];
}

const char *cs_ptx_entry_name(const cs_ptx_program *p, size_t i)
{
	const ptx_func *f = entry_func(p, i);
	return f ? f->name : NULL;
}

bool cs_ptx_entry_find(const cs_ptx_program *p, const char *name, size_t *index)
{
	if (!p || !name)
		return false;
	for (size_t i = 0; i < p->nentries; i++)
		if (!strcmp(p->funcs[p->entries[i]].name, name)) {
			if (index)
				*index = i;
			return true;
		}
	return false;
}

const cs_diag *cs_ptx_entry_refusal(const cs_ptx_program *p, size_t i)
{
	const ptx_func *f = entry_func(p, i);
	return f ? f->refusal : NULL;
}

const cs_diag *cs_ptx_malformed(const cs_ptx_program *p)
{
	const cs_diag *first = NULL;
	for (size_t i = 0; p && i < p->nfuncs; i++) {
		const cs_diag *r = p->funcs[i].refusal;
		if (r && r->status == CS_ERR_INPUT &&
		    (!first || r->line < first->line || (r->line == first->line && r->col < first->col)))
			first = r;
	}
	return first;
}

uint32_t cs_ptx_entry_line(const cs_ptx_program *p, size_t i)
{
	const ptx_func *f = entry_func(p, i);
	return f ? f->line : 0;
}

size_t cs_ptx_param_count(const cs_ptx_program *p, size_t entry)
{
	const ptx_func *f = entry_func(p, entry);
	return f ? f->nparams : 0;
}

bool cs_ptx_param_info(const cs_ptx_program *p, size_t entry, size_t i, cs_ptx_param *out)
{
	const ptx_func *f = entry_func(p, entry);
	if (!f || i >= f->nparams || !out)
		return false;
	out->name = f->params[i].name;
	out->offset = f->params[i].offset;
	out->size = f->params[i].size;
	out->align = f->params[i].align;
	return true;
}

uint32_t cs_ptx_param_bytes(const cs_ptx_program *p, size_t entry)
{
	const ptx_func *f = entry_func(p, entry);
	return f ? f->param_bytes : 0;
}

uint32_t cs_ptx_static_shared_bytes(const cs_ptx_program *p, size_t entry)
{
	return entry_func(p, entry) ? p->shared_static : 0;
}

uint32_t cs_ptx_dynamic_shared_align(const cs_ptx_program *p, size_t entry)
{
	return entry_func(p, entry) ? p->shared_dyn_align : 0;
}

uint32_t cs_ptx_local_bytes(const cs_ptx_program *p, size_t entry)
{
	return entry_func(p, entry) ? p->local_bytes : 0;
}

size_t cs_ptx_var_count(const cs_ptx_program *p)
{
	return p ? p->nvars : 0;
}

bool cs_ptx_var_info(const cs_ptx_program *p, size_t i, cs_ptx_var *out)
{
	if (!p || i >= p->nvars || !out)
		return false;
	out->name = p->vars[i].name;
	out->space = p->vars[i].space;
	out->size = p->vars[i].size;
	out->align = p->vars[i].align;
	out->init = p->vars[i].init;
	return true;
}

size_t cs_ptx_instruction_count(const cs_ptx_program *p)
{
	return p ? p->ncode : 0;
}

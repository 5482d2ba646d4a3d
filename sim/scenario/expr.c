/* SPDX-License-Identifier: MIT */
/* Scenario expressions: numbers (decimal, 0x hex, f32:X as its bit pattern),
 * names, lo(E), hi(E), unary minus, and the binary operators with C's
 * precedence: + - above << >> above & above |. An expression has no spaces
 * except inside parentheses, because values on a line are space separated. */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scn.h"

static bool is_ident_start(char c)
{
	return isalpha((unsigned char)c) || c == '_';
}

static bool is_ident_char(char c)
{
	return isalnum((unsigned char)c) || c == '_';
}

bool scn_number_parse(const char *line, size_t len, size_t *pos, uint64_t *out, const char **why)
{
	size_t p = *pos;
	if (len - p >= 4 && strncmp(line + p, "f32:", 4) == 0) {
		p += 4;
		size_t fstart = p;
		char buf[64];
		size_t n = 0;
		while (p < len && n + 1 < sizeof(buf)) {
			char c = line[p];
			bool sign_ok = n == 0 || buf[n - 1] == 'e' || buf[n - 1] == 'E';
			if (isalnum((unsigned char)c) || c == '.' || ((c == '+' || c == '-') && sign_ok))
				buf[n++] = c;
			else
				break;
			p++;
		}
		buf[n] = '\0';
		char *end = NULL;
		errno = 0;
		double v = n ? strtod(buf, &end) : 0.0;
		if (!n || *end != '\0') {
			*pos = fstart;
			*why = "expected a floating-point number after 'f32:'";
			return false;
		}
		float f = (float)v;
		if (isinf(f) && !isinf(v)) {
			*pos = fstart;
			*why = "the number does not fit an f32";
			return false;
		}
		uint32_t bits;
		memcpy(&bits, &f, sizeof(bits));
		*out = bits;
		*pos = p;
		return true;
	}
	if (p >= len || !isdigit((unsigned char)line[p])) {
		*why = "expected a number";
		return false;
	}
	uint64_t v = 0;
	if (line[p] == '0' && p + 1 < len && (line[p + 1] == 'x' || line[p + 1] == 'X')) {
		p += 2;
		size_t start = p;
		while (p < len && isxdigit((unsigned char)line[p])) {
			unsigned dgt = (unsigned)(isdigit((unsigned char)line[p])
							  ? line[p] - '0'
							  : (tolower((unsigned char)line[p]) - 'a' + 10));
			if (v >> 60) {
				*why = "the number does not fit 64 bits";
				return false;
			}
			v = (v << 4) | dgt;
			p++;
		}
		if (p == start) {
			*pos = p;
			*why = "expected hex digits after '0x'";
			return false;
		}
	} else {
		while (p < len && isdigit((unsigned char)line[p])) {
			unsigned dgt = (unsigned)(line[p] - '0');
			if (v > (UINT64_MAX - dgt) / 10) {
				*why = "the number does not fit 64 bits";
				return false;
			}
			v = v * 10 + dgt;
			p++;
		}
	}
	if (p < len && (is_ident_char(line[p]) || line[p] == '.')) {
		*pos = p;
		*why = "unexpected character in a number";
		return false;
	}
	*out = v;
	*pos = p;
	return true;
}

/* Parsing and evaluation recurse over the expression, so a hostile line of
 * nested parentheses, unary minuses or chained operators must not overflow
 * the stack: no person writes expressions anywhere near these limits. */
enum { SCN_EXPR_MAX_NEST = 64, SCN_EXPR_MAX_NODES = 1024 };

typedef struct eparser {
	cs_scenario *s;
	const char *line;
	size_t len, pos;
	uint32_t lineno;
	int depth;    /* open parentheses: spaces are allowed inside them */
	int nest;     /* parse_primary frames in progress */
	size_t nodes; /* nodes made for this expression */
	cs_diag *d;
} eparser;

static void skip_space(eparser *p)
{
	if (p->depth == 0)
		return;
	while (p->pos < p->len && (p->line[p->pos] == ' ' || p->line[p->pos] == '\t'))
		p->pos++;
}

static bool fail(eparser *p, size_t at, const char *msg)
{
	cs_diag_at_text(p->d, CS_ERR_INPUT, p->s->name, p->lineno, (uint32_t)at + 1, "%s", msg);
	return false;
}

static scn_expr *new_expr(eparser *p, scn_expr_kind kind, size_t at)
{
	if (++p->nodes > SCN_EXPR_MAX_NODES) {
		fail(p, at, "expression too long (more than 1024 numbers, names and operators)");
		return NULL;
	}
	scn_expr *e = scn_alloc(p->s, sizeof(*e));
	e->kind = kind;
	e->loc.line = p->lineno;
	e->loc.col = (uint32_t)at + 1;
	return e;
}

static scn_expr *parse_or(eparser *p);
static scn_expr *parse_primary_in(eparser *p);

/* The expression after an opening parenthesis, through its ')'. */
static scn_expr *parse_parenthesized(eparser *p)
{
	p->depth++;
	scn_expr *e = parse_or(p);
	if (!e)
		return NULL;
	skip_space(p);
	if (p->pos >= p->len || p->line[p->pos] != ')') {
		fail(p, p->pos, "expected ')'");
		return NULL;
	}
	p->pos++;
	p->depth--;
	return e;
}

static scn_expr *parse_primary(eparser *p)
{
	if (p->nest >= SCN_EXPR_MAX_NEST) {
		fail(p, p->pos, "expression nested more than 64 deep");
		return NULL;
	}
	p->nest++;
	scn_expr *e = parse_primary_in(p);
	p->nest--;
	return e;
}

static scn_expr *parse_primary_in(eparser *p)
{
	skip_space(p);
	size_t at = p->pos;
	if (at >= p->len) {
		fail(p, at, "expected an expression (a number, a name, lo(E), hi(E) or '(')");
		return NULL;
	}
	char c = p->line[at];
	if (c == '(') {
		p->pos++;
		return parse_parenthesized(p);
	}
	if (c == '-') {
		p->pos++;
		scn_expr *a = parse_primary(p);
		if (!a)
			return NULL;
		scn_expr *e = new_expr(p, SCN_EX_NEG, at);
		if (!e)
			return NULL;
		e->a = a;
		return e;
	}
	if (isdigit((unsigned char)c) || (p->len - at >= 4 && strncmp(p->line + at, "f32:", 4) == 0)) {
		uint64_t v;
		const char *why = NULL;
		size_t pos = at;
		if (!scn_number_parse(p->line, p->len, &pos, &v, &why)) {
			fail(p, pos, why);
			return NULL;
		}
		scn_expr *e = new_expr(p, SCN_EX_NUM, at);
		if (!e)
			return NULL;
		e->num = v;
		p->pos = pos;
		return e;
	}
	if (is_ident_start(c)) {
		size_t q = at;
		while (q < p->len && is_ident_char(p->line[q]))
			q++;
		size_t idlen = q - at;
		if (q < p->len && p->line[q] == '(' && idlen == 2 &&
		    (strncmp(p->line + at, "lo", 2) == 0 || strncmp(p->line + at, "hi", 2) == 0)) {
			scn_expr *e = new_expr(p, p->line[at] == 'l' ? SCN_EX_LO : SCN_EX_HI, at);
			if (!e)
				return NULL;
			p->pos = q + 1;
			e->a = parse_parenthesized(p);
			return e->a ? e : NULL;
		}
		/* dotted segments: MODULE.KERNEL, LAUNCH.sem */
		while (q + 1 < p->len && p->line[q] == '.' && is_ident_char(p->line[q + 1])) {
			q++;
			while (q < p->len && is_ident_char(p->line[q]))
				q++;
		}
		scn_expr *e = new_expr(p, SCN_EX_NAME, at);
		if (!e)
			return NULL;
		e->name = scn_strdup(p->s, p->line + at, q - at);
		p->pos = q;
		return e;
	}
	fail(p, at, "expected an expression (a number, a name, lo(E), hi(E) or '(')");
	return NULL;
}

/* Binary operator at the cursor of the given precedence level, or -1. */
static int peek_op(eparser *p, int level, size_t *oplen)
{
	skip_space(p);
	if (p->pos >= p->len)
		return -1;
	const char *c = p->line + p->pos;
	size_t left = p->len - p->pos;
	switch (level) {
	case 0:
		if (c[0] == '|') { *oplen = 1; return SCN_OP_OR; }
		break;
	case 1:
		if (c[0] == '&') { *oplen = 1; return SCN_OP_AND; }
		break;
	case 2:
		if (left >= 2 && c[0] == '<' && c[1] == '<') { *oplen = 2; return SCN_OP_SHL; }
		if (left >= 2 && c[0] == '>' && c[1] == '>') { *oplen = 2; return SCN_OP_SHR; }
		break;
	case 3:
		if (c[0] == '+') { *oplen = 1; return SCN_OP_ADD; }
		if (c[0] == '-') { *oplen = 1; return SCN_OP_SUB; }
		break;
	}
	return -1;
}

static scn_expr *parse_level(eparser *p, int level)
{
	if (level > 3)
		return parse_primary(p);
	scn_expr *a = parse_level(p, level + 1);
	if (!a)
		return NULL;
	for (;;) {
		size_t oplen = 0;
		int op = peek_op(p, level, &oplen);
		if (op < 0)
			return a;
		size_t at = p->pos;
		p->pos += oplen;
		scn_expr *b = parse_level(p, level + 1);
		if (!b)
			return NULL;
		/* a binary expression is located where it starts */
		scn_expr *e = new_expr(p, SCN_EX_BIN, at);
		if (!e)
			return NULL;
		e->loc = a->loc;
		e->op = (scn_binop)op;
		e->a = a;
		e->b = b;
		a = e;
	}
}

static scn_expr *parse_or(eparser *p)
{
	return parse_level(p, 0);
}

scn_expr *scn_expr_parse(cs_scenario *s, const char *line, size_t len, size_t *pos,
			 uint32_t lineno, cs_diag *d)
{
	eparser p = { .s = s, .line = line, .len = len, .pos = *pos, .lineno = lineno, .d = d };
	scn_expr *e = parse_or(&p);
	if (e)
		*pos = p.pos;
	return e;
}

static bool eval_fail(const cs_scenario *s, const scn_expr *e, cs_diag *d, const char *msg)
{
	cs_diag_at_text(d, CS_ERR_INPUT, s->name, e->loc.line, e->loc.col, "%s", msg);
	return false;
}

bool scn_expr_eval(const cs_scenario *s, const scn_expr *e, scn_resolve_fn resolve, void *ctx,
		   uint64_t *out, cs_diag *d)
{
	uint64_t a = 0, b = 0;
	switch (e->kind) {
	case SCN_EX_NUM:
		*out = e->num;
		return true;
	case SCN_EX_NAME:
		if (!resolve) {
			cs_diag_at_text(d, CS_ERR_INPUT, s->name, e->loc.line, e->loc.col,
					"a name ('%s') is not allowed here; expected a number",
					e->name);
			return false;
		}
		return resolve(ctx, e, out, d);
	case SCN_EX_LO:
	case SCN_EX_HI:
	case SCN_EX_NEG:
		if (!scn_expr_eval(s, e->a, resolve, ctx, &a, d))
			return false;
		*out = e->kind == SCN_EX_LO ? (a & 0xffffffffu)
		       : e->kind == SCN_EX_HI ? (a >> 32)
					      : (uint64_t)(0 - a);
		return true;
	case SCN_EX_BIN:
		if (!scn_expr_eval(s, e->a, resolve, ctx, &a, d) ||
		    !scn_expr_eval(s, e->b, resolve, ctx, &b, d))
			return false;
		switch (e->op) {
		case SCN_OP_ADD: *out = a + b; return true;
		case SCN_OP_SUB: *out = a - b; return true;
		case SCN_OP_AND: *out = a & b; return true;
		case SCN_OP_OR: *out = a | b; return true;
		case SCN_OP_SHL:
		case SCN_OP_SHR:
			if (b > 63)
				return eval_fail(s, e, d, "shift count above 63");
			*out = e->op == SCN_OP_SHL ? a << b : a >> b;
			return true;
		}
		break;
	}
	return eval_fail(s, e, d, "internal error: bad expression node");
}

bool scn_expr_names(const scn_expr *e, scn_name_fn fn, void *ctx, cs_diag *d)
{
	if (!e)
		return true;
	if (e->kind == SCN_EX_NAME)
		return fn(ctx, e, d);
	return scn_expr_names(e->a, fn, ctx, d) && scn_expr_names(e->b, fn, ctx, d);
}

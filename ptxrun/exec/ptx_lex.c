/* SPDX-License-Identifier: MIT */
#include "ptx_lex.h"

#include <stdlib.h>
#include <string.h>

void ptx_lex_init(ptx_lexer *lx, const char *src, size_t len)
{
	lx->src = src;
	lx->cur = src;
	lx->end = src + len;
	lx->line = 1;
	lx->line_start = src;
	lx->bad_comment = false;
}

static bool is_id_start(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c == '$' ||
	       c == '%' || c == '.';
}

static bool is_id_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       c == '_' || c == '$' || c == '.';
}

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

static void skip_space(ptx_lexer *lx)
{
	while (lx->cur < lx->end) {
		char c = *lx->cur;
		if (c == '\n') {
			lx->cur++;
			lx->line++;
			lx->line_start = lx->cur;
		} else if (c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v') {
			lx->cur++;
		} else if (c == '/' && lx->cur + 1 < lx->end && lx->cur[1] == '/') {
			while (lx->cur < lx->end && *lx->cur != '\n')
				lx->cur++;
		} else if (c == '/' && lx->cur + 1 < lx->end && lx->cur[1] == '*') {
			lx->cur += 2;
			for (;;) {
				if (lx->cur >= lx->end) {
					lx->bad_comment = true;
					return;
				}
				if (*lx->cur == '*' && lx->cur + 1 < lx->end && lx->cur[1] == '/') {
					lx->cur += 2;
					break;
				}
				if (*lx->cur == '\n') {
					lx->line++;
					lx->line_start = lx->cur + 1;
				}
				lx->cur++;
			}
		} else {
			return;
		}
	}
}

static void lex_number(ptx_lexer *lx, ptx_tok *t)
{
	const char *p = lx->cur;
	const char *e = lx->end;
	t->kind = TK_INT;
	if (p + 1 < e && p[0] == '0' && (p[1] == 'f' || p[1] == 'F' || p[1] == 'd' || p[1] == 'D')) {
		unsigned want = (p[1] == 'f' || p[1] == 'F') ? 8 : 16;
		uint64_t v = 0;
		unsigned n = 0;
		const char *q = p + 2;
		while (q < e && hexval(*q) >= 0 && n < 17) {
			v = (v << 4) | (uint64_t)hexval(*q);
			q++;
			n++;
		}
		t->kind = n == want ? (want == 8 ? TK_F32 : TK_F64) : TK_BAD;
		t->ival = v;
		lx->cur = q;
	} else if (p + 1 < e && p[0] == '0' && (p[1] == 'x' || p[1] == 'X')) {
		uint64_t v = 0;
		const char *q = p + 2;
		unsigned n = 0;
		while (q < e && hexval(*q) >= 0) {
			if (v >> 60)
				t->overflow = true;
			v = (v << 4) | (uint64_t)hexval(*q);
			q++;
			n++;
		}
		if (n == 0)
			t->kind = TK_BAD;
		t->ival = v;
		lx->cur = q;
	} else if (p + 1 < e && p[0] == '0' && (p[1] == 'b' || p[1] == 'B')) {
		uint64_t v = 0;
		const char *q = p + 2;
		unsigned n = 0;
		while (q < e && (*q == '0' || *q == '1')) {
			if (v >> 63)
				t->overflow = true;
			v = (v << 1) | (uint64_t)(*q - '0');
			q++;
			n++;
		}
		if (n == 0)
			t->kind = TK_BAD;
		t->ival = v;
		lx->cur = q;
	} else {
		const char *q = p;
		while (q < e && *q >= '0' && *q <= '9')
			q++;
		bool is_float = false;
		if (q < e && *q == '.' && q + 1 < e && q[1] >= '0' && q[1] <= '9') {
			is_float = true;
			q++;
			while (q < e && *q >= '0' && *q <= '9')
				q++;
		}
		if (q < e && (*q == 'e' || *q == 'E')) {
			const char *r = q + 1;
			if (r < e && (*r == '+' || *r == '-'))
				r++;
			if (r < e && *r >= '0' && *r <= '9') {
				is_float = true;
				q = r;
				while (q < e && *q >= '0' && *q <= '9')
					q++;
			}
		}
		if (is_float) {
			char buf[64];
			size_t n = (size_t)(q - p);
			if (n >= sizeof(buf)) {
				t->kind = TK_BAD;
			} else {
				memcpy(buf, p, n);
				buf[n] = 0;
				double dv = strtod(buf, NULL);
				memcpy(&t->ival, &dv, 8);
				t->kind = TK_F64;
			}
		} else {
			uint64_t v = 0;
			bool octal = p[0] == '0' && q - p > 1;
			for (const char *r = p; r < q; r++) {
				unsigned dgt = (unsigned)(*r - '0');
				if (octal) {
					if (dgt > 7)
						t->kind = TK_BAD;
					if (v >> 61)
						t->overflow = true;
					v = v * 8 + dgt;
				} else {
					if (v > (UINT64_MAX - dgt) / 10)
						t->overflow = true;
					v = v * 10 + dgt;
				}
			}
			t->ival = v;
		}
		lx->cur = q;
	}
	/* An unsigned suffix is allowed on integers. */
	if (t->kind == TK_INT && lx->cur < e && *lx->cur == 'U')
		lx->cur++;
	if (lx->cur < e && is_id_char(*lx->cur) && *lx->cur != '.')
		t->kind = TK_BAD;
}

ptx_tok ptx_lex_next(ptx_lexer *lx)
{
	ptx_tok t;
	memset(&t, 0, sizeof(t));
	skip_space(lx);
	t.line = lx->line;
	t.col = (uint32_t)(lx->cur - lx->line_start) + 1;
	t.s = lx->cur;
	if (lx->bad_comment) {
		t.kind = TK_BAD;
		t.len = 0;
		return t;
	}
	if (lx->cur >= lx->end) {
		t.kind = TK_EOF;
		return t;
	}
	char c = *lx->cur;
	if (is_id_start(c)) {
		const char *q = lx->cur + 1;
		for (;;) {
			if (q < lx->end && is_id_char(*q)) {
				q++;
			} else if (q + 2 < lx->end && q[0] == ':' && q[1] == ':' && is_id_char(q[2])) {
				q += 2; /* .L2::evict_last, .shared::cta */
			} else {
				break;
			}
		}
		lx->cur = q;
		t.kind = TK_ID;
	} else if (c >= '0' && c <= '9') {
		lex_number(lx, &t);
	} else if (c == '"') {
		const char *q = lx->cur + 1;
		while (q < lx->end && *q != '"' && *q != '\n')
			q++;
		if (q >= lx->end || *q != '"') {
			t.kind = TK_BAD;
			lx->cur = q;
		} else {
			t.kind = TK_STR;
			lx->cur = q + 1;
		}
	} else if (strchr(",;:[]{}()+-|!@<>=", c)) {
		t.kind = TK_PUNCT;
		t.c = c;
		lx->cur++;
	} else {
		t.kind = TK_BAD;
		lx->cur++;
	}
	t.len = (uint32_t)(lx->cur - t.s);
	return t;
}

void ptx_lex_skip_line(ptx_lexer *lx, uint32_t line)
{
	if (lx->line != line)
		return;
	while (lx->cur < lx->end && *lx->cur != '\n')
		lx->cur++;
}

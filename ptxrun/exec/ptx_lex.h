/* SPDX-License-Identifier: MIT */
/* The PTX tokenizer: identifiers (with dots and `::`, so `ld.global.nc.f32`
 * and `%tid.x` are one token), numbers (decimal, hex, octal, binary, 0f/0d
 * float bit patterns, decimal floats), strings and punctuation. Comments and
 * whitespace are skipped; every token knows its line and column. */
#ifndef CS_PTX_LEX_H
#define CS_PTX_LEX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef enum ptx_tk {
	TK_EOF = 0,
	TK_ID,    /* identifier, directive (.foo) or register (%foo) */
	TK_INT,   /* integer literal: ival */
	TK_F32,   /* 0fXXXXXXXX: bits */
	TK_F64,   /* 0dXXXXXXXXXXXXXXXX or a decimal float: bits */
	TK_STR,   /* "..." */
	TK_PUNCT, /* one character: , ; : [ ] { } ( ) + - | ! @ < > = */
	TK_BAD,   /* an unexpected byte or malformed literal */
} ptx_tk;

typedef struct ptx_tok {
	ptx_tk kind;
	const char *s;
	uint32_t len;
	uint32_t line, col;
	char c;          /* TK_PUNCT */
	uint64_t ival;   /* TK_INT value (two's complement), TK_F32/TK_F64 bits */
	bool overflow;   /* an integer literal that does not fit 64 bits */
} ptx_tok;

typedef struct ptx_lexer {
	const char *src, *cur, *end;
	uint32_t line;
	const char *line_start;
	bool bad_comment; /* an unterminated block comment */
} ptx_lexer;

void ptx_lex_init(ptx_lexer *lx, const char *src, size_t len);
ptx_tok ptx_lex_next(ptx_lexer *lx);
/* Skips the rest of the current line (for .loc / .file). */
void ptx_lex_skip_line(ptx_lexer *lx, uint32_t line);

#endif

/* SPDX-License-Identifier: MIT */
/* Private to sim/scenario/: the .chain lexer (lex.c). It cuts the text into
 * lines (comments and CRs dropped) and a line into words, names, numbers,
 * expressions and key=value items for the parser (parse.c). Every failure
 * names file:line:col through the cursor's diagnostic and returns false (or
 * NULL). */
#ifndef CHAINSIM_SIM_SCENARIO_LEX_H
#define CHAINSIM_SIM_SCENARIO_LEX_H

#include <ctype.h>
#include <string.h>

#include "scn.h"

/* A cursor over one line of a scenario. */
typedef struct scn_lx {
	cs_scenario *s;
	const char *line;
	size_t len, pos;
	uint32_t lineno;
	cs_diag *d;
} scn_lx;

/* Points l at the line of text that starts at *pos, without its CR and its
 * comment (a '#' outside a quoted path), counts it in l->lineno and moves *pos
 * past it; false (l->d set) on a NUL byte in the line. */
bool scn_lx_line(scn_lx *l, const char *text, size_t len, size_t *pos);

/* The small helpers every parse of a line calls, inline here. */
static inline void scn_lx_skip(scn_lx *l)
{
	while (l->pos < l->len && (l->line[l->pos] == ' ' || l->line[l->pos] == '\t'))
		l->pos++;
}

/* Whether only whitespace is left (skipping it). */
static inline bool scn_lx_end(scn_lx *l)
{
	scn_lx_skip(l);
	return l->pos >= l->len;
}

static inline uint32_t scn_lx_col(const scn_lx *l)
{
	return (uint32_t)l->pos + 1;
}

/* The next whitespace-separated word, without consuming it. */
static inline size_t scn_lx_peek_word(scn_lx *l, const char **w)
{
	scn_lx_skip(l);
	size_t p = l->pos;
	while (p < l->len && l->line[p] != ' ' && l->line[p] != '\t')
		p++;
	*w = l->line + l->pos;
	return p - l->pos;
}

static inline bool scn_word_is(const char *w, size_t n, const char *lit)
{
	return strlen(lit) == n && memcmp(w, lit, n) == 0;
}

static inline bool scn_ident_start(char c)
{
	return isalpha((unsigned char)c) || c == '_';
}

static inline bool scn_ident_char(char c)
{
	return isalnum((unsigned char)c) || c == '_';
}

bool scn_lx_fail_at(scn_lx *l, size_t pos, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* A plain identifier (no dots): a name being defined, a key. */
char *scn_lx_ident(scn_lx *l, const char *what);
/* Something other than whitespace or the end follows a complete item. */
bool scn_lx_need_sep(scn_lx *l, const char *after);
scn_expr *scn_lx_expr(scn_lx *l, const char *what);
/* An expression that must end at whitespace or the end of the line. */
scn_expr *scn_lx_expr_word(scn_lx *l, const char *what);
/* The name starting at `at` (its first character checked by the caller) and an
 * optional index NAME(i): *end just past it; false (located) on a bad index. */
bool scn_lx_indexed_name(scn_lx *l, size_t at, size_t *end);
/* Consume the word `word` when it comes next; true when it did. */
bool scn_lx_accept(scn_lx *l, const char *word);
/* Nothing but whitespace is left on the line. */
bool scn_lx_done(scn_lx *l);

/* key=VALUE where VALUE is a comma-separated list of expressions. */
typedef struct scn_kv {
	char *key;
	size_t key_pos;
	scn_expr *vals[8];
	unsigned nvals;
} scn_kv;

/* KEY= (a raw QMD field name may carry an index: NAME(i)). */
bool scn_lx_key(scn_lx *l, scn_kv *out);
/* The values after KEY=: at most max (and at most 8). */
bool scn_lx_kv_values(scn_lx *l, scn_kv *out, unsigned max);
/* A float literal as one word (for f32/f64 data and random bounds). */
bool scn_lx_float(scn_lx *l, double *out);

#endif

/* SPDX-License-Identifier: MIT */
/* The .chain lexer: lines, words, names, expressions and key=value items
 * (lex.h). */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lex.h"

bool scn_lx_line(scn_lx *l, const char *text, size_t len, size_t *pos)
{
	size_t eol = *pos;
	while (eol < len && text[eol] != '\n')
		eol++;
	l->lineno++;
	l->line = text + *pos;
	l->len = eol - *pos;
	l->pos = 0;
	*pos = eol < len ? eol + 1 : eol;
	if (l->len && l->line[l->len - 1] == '\r')
		l->len--;
	for (size_t i = 0; i < l->len; i++) {
		if (l->line[i] == '\0') {
			cs_diag_at_text(l->d, CS_ERR_INPUT, l->s->name, l->lineno, (uint32_t)i + 1,
					"a NUL byte in the text");
			return false;
		}
	}
	bool quoted = false;
	for (size_t i = 0; i < l->len; i++) {
		if (l->line[i] == '"')
			quoted = !quoted;
		else if (l->line[i] == '#' && !quoted) {
			l->len = i;
			break;
		}
	}
	return true;
}

bool scn_lx_fail_at(scn_lx *l, size_t pos, const char *fmt, ...)
{
	char msg[CS_DIAG_MSG_MAX];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	cs_diag_at_text(l->d, CS_ERR_INPUT, l->s->name, l->lineno, (uint32_t)pos + 1, "%s", msg);
	return false;
}

char *scn_lx_ident(scn_lx *l, const char *what)
{
	scn_lx_skip(l);
	size_t p = l->pos;
	if (p >= l->len || !scn_ident_start(l->line[p])) {
		scn_lx_fail_at(l, p, "expected %s", what);
		return NULL;
	}
	while (p < l->len && scn_ident_char(l->line[p]))
		p++;
	if (p < l->len && l->line[p] != ' ' && l->line[p] != '\t' && l->line[p] != '=') {
		scn_lx_fail_at(l, p, "unexpected '%c' in %s (names are letters, digits and '_')",
			       l->line[p], what);
		return NULL;
	}
	char *id = scn_strdup(l->s, l->line + l->pos, p - l->pos);
	l->pos = p;
	return id;
}

bool scn_lx_need_sep(scn_lx *l, const char *after)
{
	if (l->pos < l->len && l->line[l->pos] != ' ' && l->line[l->pos] != '\t')
		return scn_lx_fail_at(l, l->pos, "unexpected '%c' after %s", l->line[l->pos], after);
	return true;
}

scn_expr *scn_lx_expr(scn_lx *l, const char *what)
{
	scn_lx_skip(l);
	if (l->pos >= l->len) {
		scn_lx_fail_at(l, l->pos, "expected %s", what);
		return NULL;
	}
	return scn_expr_parse(l->s, l->line, l->len, &l->pos, l->lineno, l->d);
}

scn_expr *scn_lx_expr_word(scn_lx *l, const char *what)
{
	scn_expr *e = scn_lx_expr(l, what);
	if (e && !scn_lx_need_sep(l, "the expression"))
		return NULL;
	return e;
}

bool scn_lx_accept(scn_lx *l, const char *word)
{
	const char *w;
	size_t n = scn_lx_peek_word(l, &w);
	if (!scn_word_is(w, n, word))
		return false;
	l->pos += n;
	return true;
}

bool scn_lx_done(scn_lx *l)
{
	if (!scn_lx_end(l)) {
		const char *w;
		size_t n = scn_lx_peek_word(l, &w);
		return scn_lx_fail_at(l, l->pos, "unexpected '%.*s'; expected the end of the line",
				      (int)(n > 40 ? 40 : n), w);
	}
	return true;
}

bool scn_lx_indexed_name(scn_lx *l, size_t at, size_t *end)
{
	size_t p = at;
	while (p < l->len && scn_ident_char(l->line[p]))
		p++;
	if (p < l->len && l->line[p] == '(') {
		size_t q = p + 1;
		while (q < l->len && isdigit((unsigned char)l->line[q]))
			q++;
		if (q == p + 1 || q >= l->len || l->line[q] != ')')
			return scn_lx_fail_at(l, q, "expected an index and ')' in %.*s(i)",
					      (int)(p - at), l->line + at);
		p = q + 1;
	}
	*end = p;
	return true;
}

bool scn_lx_key(scn_lx *l, scn_kv *out)
{
	scn_lx_skip(l);
	size_t p = l->pos;
	out->key_pos = p;
	if (p >= l->len || !scn_ident_start(l->line[p]))
		return scn_lx_fail_at(l, p, "expected key=value");
	/* raw QMD field names may carry an index: NAME(i) */
	if (!scn_lx_indexed_name(l, l->pos, &p))
		return false;
	if (p >= l->len || l->line[p] != '=')
		return scn_lx_fail_at(l, p, "expected '=' after '%.*s'", (int)(p - l->pos),
				      l->line + l->pos);
	out->key = scn_strdup(l->s, l->line + l->pos, p - l->pos);
	l->pos = p + 1;
	return true;
}

bool scn_lx_kv_values(scn_lx *l, scn_kv *out, unsigned max)
{
	out->nvals = 0;
	for (;;) {
		if (l->pos >= l->len || l->line[l->pos] == ' ' || l->line[l->pos] == '\t')
			return scn_lx_fail_at(l, l->pos, "expected a value after '%s='", out->key);
		if (out->nvals == max || out->nvals == 8)
			return scn_lx_fail_at(l, l->pos, "too many values for '%s' (at most %u)",
					      out->key, max);
		scn_expr *e = scn_expr_parse(l->s, l->line, l->len, &l->pos, l->lineno, l->d);
		if (!e)
			return false;
		out->vals[out->nvals++] = e;
		if (l->pos < l->len && l->line[l->pos] == ',') {
			l->pos++;
			continue;
		}
		return scn_lx_need_sep(l, "the value");
	}
}

bool scn_lx_float(scn_lx *l, double *out)
{
	const char *w;
	size_t n = scn_lx_peek_word(l, &w);
	char buf[80];
	if (n == 0)
		return scn_lx_fail_at(l, l->pos, "expected a floating-point number");
	if (n >= sizeof(buf))
		return scn_lx_fail_at(l, l->pos, "floating-point number too long");
	memcpy(buf, w, n);
	buf[n] = '\0';
	char *end = NULL;
	errno = 0;
	double v = strtod(buf, &end);
	if (end == buf || *end != '\0')
		return scn_lx_fail_at(l, l->pos + (size_t)(end - buf),
				      "expected a floating-point number");
	*out = v;
	l->pos += n;
	return true;
}

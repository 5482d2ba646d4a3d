/* SPDX-License-Identifier: MIT */
/* The .chain parser (docs/scenario.md, version 1): the lexer's lines and
 * words (lex.c) to directives, then the static pass (check.c) that checks
 * every name is defined before it is used, in file order. Every error names
 * file:line:col and what was expected. Execution (asm.c, exec.c) resolves the
 * names again, in file order, on the device.
 * Every form, and what each leaves open, is in docs/scenario.md.
 */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "chainsim/file.h"
#include "chainsim/cause.h"
#include "chainsim/gr.h"
#include "chainsim/stage.h"
#include "lex.h"

void *scn_alloc(cs_scenario *s, size_t size)
{
	void *p = g_malloc0(size ? size : 1);
	g_ptr_array_add(s->pool, p);
	return p;
}

char *scn_strdup(cs_scenario *s, const char *p, size_t n)
{
	char *q = scn_alloc(s, n + 1);
	memcpy(q, p, n);
	q[n] = '\0';
	return q;
}
static bool parse_type(scn_lx *l, scn_type *t)
{
	static const char *const names[] = { "u8", "u16", "u32", "u64", "f32", "f64" };
	const char *w;
	size_t n = scn_lx_peek_word(l, &w);
	for (unsigned i = 0; i < 6; i++)
		if (scn_word_is(w, n, names[i])) {
			*t = (scn_type)i;
			l->pos += n;
			return true;
		}
	return scn_lx_fail_at(l, l->pos, "expected a type (u8, u16, u32, u64, f32 or f64)");
}

static bool type_is_float(scn_type t)
{
	return t == SCN_T_F32 || t == SCN_T_F64;
}

/* Values of a data / expect mem line: expressions, or float literals for f32/f64. */
static bool parse_values(scn_lx *l, scn_dir *dir, bool allow_tol)
{
	GArray *vals = g_array_new(FALSE, TRUE, sizeof(scn_dval));
	bool ok = true;
	while (ok && !scn_lx_end(l)) {
		const char *w;
		size_t n = scn_lx_peek_word(l, &w);
		if (allow_tol && n > 4 && memcmp(w, "tol=", 4) == 0) {
			if (!type_is_float(dir->type)) {
				ok = scn_lx_fail_at(l, l->pos, "tol= applies to f32 and f64 only");
				break;
			}
			l->pos += 4;
			ok = scn_lx_float(l, &dir->ftol);
			if (ok && !(dir->ftol >= 0))
				ok = scn_lx_fail_at(l, l->pos, "tol= must be a number >= 0");
			dir->has_tol = ok;
			continue;
		}
		scn_dval v = { .loc = { l->lineno, scn_lx_col(l) } };
		bool bits = n >= 2 && (memcmp(w, "0x", 2) == 0 || memcmp(w, "0X", 2) == 0);
		bits = bits || (n >= 4 && memcmp(w, "f32:", 4) == 0) || scn_ident_start(w[0]);
		if (scn_word_is(w, n, "inf") || scn_word_is(w, n, "nan") || scn_word_is(w, n, "infinity"))
			bits = false;
		if (type_is_float(dir->type) && !bits) {
			ok = scn_lx_float(l, &v.f);
			v.is_float = true;
		} else {
			v.expr = scn_lx_expr_word(l, "a value");
			ok = v.expr != NULL;
		}
		if (ok)
			g_array_append_val(vals, v);
	}
	if (ok && vals->len == 0)
		ok = scn_lx_fail_at(l, l->pos, "expected at least one value");
	dir->nvals = vals->len;
	dir->dvals = scn_alloc(l->s, (size_t)vals->len * sizeof(scn_dval));
	if (vals->len)
		memcpy(dir->dvals, vals->data, (size_t)vals->len * sizeof(scn_dval));
	g_array_free(vals, TRUE);
	return ok;
}

static bool parse_path(scn_lx *l, scn_dir *dir)
{
	scn_lx_skip(l);
	dir->path_loc = (scn_loc){ l->lineno, scn_lx_col(l) };
	if (l->pos >= l->len)
		return scn_lx_fail_at(l, l->pos, "expected a path");
	if (l->line[l->pos] == '"') {
		size_t q = l->pos + 1;
		while (q < l->len && l->line[q] != '"')
			q++;
		if (q >= l->len)
			return scn_lx_fail_at(l, l->pos, "unterminated quoted path");
		if (q == l->pos + 1)
			return scn_lx_fail_at(l, l->pos, "empty path");
		dir->path = scn_strdup(l->s, l->line + l->pos + 1, q - l->pos - 1);
		l->pos = q + 1;
		return scn_lx_need_sep(l, "the path");
	}
	const char *w;
	size_t n = scn_lx_peek_word(l, &w);
	dir->path = scn_strdup(l->s, w, n);
	l->pos += n;
	return true;
}

/* ---- definitions ---------------------------------------------------------- */

static bool define(cs_scenario *s, const char *name, uint32_t line, uint32_t col,
		   scn_dir_kind kind, cs_diag *d)
{
	scn_def *old = g_hash_table_lookup(s->defs, name);
	if (old) {
		cs_diag_at_text(d, CS_ERR_INPUT, s->name, line, col,
				"'%s' is already defined at line %u", name, old->decl_line);
		return false;
	}
	scn_def *def = scn_alloc(s, sizeof(*def));
	def->name = scn_strdup(s, name, strlen(name));
	def->line = line;
	def->decl_line = line;
	def->kind = kind;
	g_hash_table_insert(s->defs, def->name, def);
	return true;
}

/* ---- push lines ------------------------------------------------------------ */

static bool parse_subch(scn_lx *l, uint32_t *out)
{
	scn_lx_skip(l);
	size_t at = l->pos;
	if (at >= l->len || !isdigit((unsigned char)l->line[at]))
		return scn_lx_fail_at(l, at, "expected a subchannel (0..7)");
	uint64_t v;
	const char *why;
	size_t p = at;
	if (!scn_number_parse(l->line, l->len, &p, &v, &why))
		return scn_lx_fail_at(l, p, "%s", why);
	if (v > 7)
		return scn_lx_fail_at(l, at, "subchannel %llu out of range (0..7)", (unsigned long long)v);
	l->pos = p;
	if (!scn_lx_need_sep(l, "the subchannel"))
		return false;
	*out = (uint32_t)v;
	return true;
}

static bool parse_method(scn_lx *l, scn_pline *pl)
{
	scn_lx_skip(l);
	size_t at = l->pos;
	pl->method_loc = (scn_loc){ l->lineno, (uint32_t)at + 1 };
	if (at >= l->len)
		return scn_lx_fail_at(l, at, "expected a method (a name or a byte offset)");
	size_t p = at;
	if (isdigit((unsigned char)l->line[p])) {
		uint64_t v;
		const char *why;
		if (!scn_number_parse(l->line, l->len, &p, &v, &why))
			return scn_lx_fail_at(l, p, "%s", why);
	} else if (scn_ident_start(l->line[p])) {
		if (!scn_lx_indexed_name(l, at, &p))
			return false;
	} else {
		return scn_lx_fail_at(l, at, "expected a method (a name or a byte offset)");
	}
	pl->method = scn_strdup(l->s, l->line + at, p - at);
	l->pos = p;
	return scn_lx_need_sep(l, "the method");
}

static bool parse_vals(scn_lx *l, scn_pline *pl, bool need_one)
{
	GArray *a = g_array_new(FALSE, TRUE, sizeof(scn_val));
	bool ok = true;
	while (!scn_lx_end(l)) {
		scn_val v = { 0 };
		v.loc = (scn_loc){ l->lineno, scn_lx_col(l) };
		if (l->line[l->pos] == '@') {
			l->pos++;
			v.at_name = scn_lx_ident(l, "an alloc name after '@'");
			if (!v.at_name || !scn_lx_need_sep(l, "the name")) {
				ok = false;
				break;
			}
		} else {
			v.expr = scn_lx_expr_word(l, "a value");
			if (!v.expr) {
				ok = false;
				break;
			}
		}
		g_array_append_val(a, v);
	}
	if (ok && need_one && a->len == 0)
		ok = scn_lx_fail_at(l, l->pos, "expected at least one value");
	if (ok) {
		pl->nvals = a->len;
		pl->vals = scn_alloc(l->s, sizeof(scn_val) * (a->len ? a->len : 1));
		if (a->len)
			memcpy(pl->vals, a->data, sizeof(scn_val) * a->len);
	}
	g_array_free(a, TRUE);
	return ok;
}

static bool parse_dims(scn_lx *l, scn_kv *k, scn_expr *out[3])
{
	if (!scn_lx_kv_values(l, k, 3))
		return false;
	for (unsigned i = 0; i < 3; i++)
		out[i] = i < k->nvals ? k->vals[i] : NULL;
	return true;
}

static bool parse_launch(scn_lx *l, scn_pline *pl, unsigned index)
{
	scn_lx_skip(l);
	size_t at = l->pos;
	pl->kernel_loc = (scn_loc){ l->lineno, (uint32_t)at + 1 };
	scn_expr *k = scn_lx_expr_word(l, "a kernel (MODULE.KERNEL)");
	if (!k)
		return false;
	if (k->kind != SCN_EX_NAME || !strchr(k->name, '.'))
		return scn_lx_fail_at(l, at, "expected a kernel as MODULE.KERNEL");
	pl->kernel = k->name;
	bool grid = false, block = false;
	while (!scn_lx_end(l)) {
		scn_kv kv = { 0 };
		if (!scn_lx_key(l, &kv))
			return false;
		if (!strcmp(kv.key, "grid")) {
			if (!parse_dims(l, &kv, pl->grid))
				return false;
			grid = true;
		} else if (!strcmp(kv.key, "block")) {
			if (!parse_dims(l, &kv, pl->block))
				return false;
			block = true;
		} else if (!strcmp(kv.key, "args")) {
			GArray *a = g_array_new(FALSE, TRUE, sizeof(scn_expr *));
			GArray *bytes = g_array_new(FALSE, TRUE, sizeof(bool));
			bool ok = true;
			/* a bare `args=` is the empty list of a kernel without parameters */
			bool empty = l->pos >= l->len || l->line[l->pos] == ' ' ||
				     l->line[l->pos] == '\t';
			while (!empty) {
				/* @NAME: a parameter of any size (a struct by value) takes
				 * its bytes from alloc NAME */
				bool at = l->pos < l->len && l->line[l->pos] == '@';
				uint32_t col = scn_lx_col(l) + (at ? 1 : 0);
				if (at)
					l->pos++;
				scn_expr *e = scn_expr_parse(l->s, l->line, l->len, &l->pos, l->lineno,
							     l->d);
				if (!e) {
					ok = false;
					break;
				}
				if (at && e->kind != SCN_EX_NAME) {
					ok = scn_lx_fail_at(l, col - 1, "expected an alloc name after '@'");
					break;
				}
				g_array_append_val(a, e);
				g_array_append_val(bytes, at);
				if (l->pos < l->len && l->line[l->pos] == ',') {
					l->pos++;
					continue;
				}
				ok = scn_lx_need_sep(l, "the argument");
				break;
			}
			if (ok) {
				pl->nargs = a->len;
				pl->args = scn_alloc(l->s, sizeof(scn_expr *) * (a->len ? a->len : 1));
				pl->arg_bytes = scn_alloc(l->s, sizeof(bool) * (a->len ? a->len : 1));
				if (a->len) {
					memcpy(pl->args, a->data, sizeof(scn_expr *) * a->len);
					memcpy(pl->arg_bytes, bytes->data, sizeof(bool) * a->len);
				}
				pl->has_args = true;
			}
			g_array_free(a, TRUE);
			g_array_free(bytes, TRUE);
			if (!ok)
				return false;
		} else if (!strcmp(kv.key, "shared")) {
			if (!scn_lx_kv_values(l, &kv, 1))
				return false;
			pl->shared = kv.vals[0];
		} else if (!strcmp(kv.key, "path")) {
			const char *w;
			size_t n = scn_lx_peek_word(l, &w);
			if (scn_word_is(w, n, "inline"))
				pl->inline_path = true;
			else if (scn_word_is(w, n, "pcas"))
				pl->inline_path = false;
			else
				return scn_lx_fail_at(l, l->pos, "expected path=inline or path=pcas");
			l->pos += n;
		} else if (!strcmp(kv.key, "cooperative")) {
			const char *w;
			size_t n = scn_lx_peek_word(l, &w);
			if (scn_word_is(w, n, "1"))
				pl->cooperative = true;
			else if (!scn_word_is(w, n, "0"))
				return scn_lx_fail_at(l, l->pos, "expected cooperative=0 or cooperative=1");
			l->pos += n;
		} else if (!strcmp(kv.key, "name")) {
			pl->launch_name = scn_lx_ident(l, "a launch name");
			if (!pl->launch_name || !scn_lx_need_sep(l, "the name"))
				return false;
		} else {
			return scn_lx_fail_at(l, kv.key_pos,
					      "unknown launch key '%s'; expected grid=, block=, args=, "
					      "shared=, path=, cooperative= or name=", kv.key);
		}
	}
	if (!grid)
		return scn_lx_fail_at(l, l->pos, "launch: expected grid=X[,Y[,Z]]");
	if (!block)
		return scn_lx_fail_at(l, l->pos, "launch: expected block=X[,Y[,Z]]");
	if (!pl->launch_name) {
		char buf[32];
		snprintf(buf, sizeof(buf), "launch%u", index);
		pl->launch_name = scn_strdup(l->s, buf, strlen(buf));
	}
	static const char *const parts[] = { "cb0", "qmd", "sem" };
	for (unsigned i = 0; i < 3; i++) {
		char name[160];
		snprintf(name, sizeof(name), "%s.%s", pl->launch_name, parts[i]);
		if (!define(l->s, name, l->lineno, pl->loc.col, SCN_D_PUSH, l->d))
			return false;
	}
	return true;
}

/* One line of a rewrite block: relocate | keep ADDR... | drop SUBCH METHOD |
 * replace SUBCH METHOD VALUE | prelude PUSH | split DWORDS. */
static bool parse_rewrite_line(scn_lx *l, scn_rline *rl)
{
	scn_lx_skip(l);
	rl->loc = (scn_loc){ l->lineno, scn_lx_col(l) };
	size_t kw = l->pos;
	const char *w;
	size_t n = scn_lx_peek_word(l, &w);
	l->pos += n;
	if (scn_word_is(w, n, "relocate")) {
		rl->kind = SCN_RW_RELOCATE;
		return scn_lx_done(l);
	}
	if (scn_word_is(w, n, "keep")) {
		rl->kind = SCN_RW_KEEP;
		GPtrArray *names = g_ptr_array_new();
		GArray *locs = g_array_new(FALSE, FALSE, sizeof(scn_loc));
		while (!scn_lx_end(l)) {
			scn_lx_skip(l);
			scn_loc at = { l->lineno, scn_lx_col(l) };
			char *a = scn_lx_ident(l, "an address name");
			if (!a) {
				g_ptr_array_free(names, TRUE);
				g_array_free(locs, TRUE);
				return false;
			}
			g_ptr_array_add(names, a); /* checked against the library's by the executor */
			g_array_append_val(locs, at);
		}
		bool none = names->len == 0;
		rl->naddrs = names->len;
		rl->addrs = scn_alloc(l->s, sizeof(char *) * (names->len + 1));
		rl->addr_locs = scn_alloc(l->s, sizeof(scn_loc) * (names->len + 1));
		if (!none) {
			memcpy(rl->addrs, names->pdata, sizeof(char *) * names->len);
			memcpy(rl->addr_locs, locs->data, sizeof(scn_loc) * names->len);
		}
		g_ptr_array_free(names, TRUE);
		g_array_free(locs, TRUE);
		if (none)
			return scn_lx_fail_at(l, l->pos, "expected at least one address name after 'keep'");
		return true;
	}
	if (scn_word_is(w, n, "drop") || scn_word_is(w, n, "replace")) {
		rl->kind = scn_word_is(w, n, "drop") ? SCN_RW_DROP : SCN_RW_REPLACE;
		scn_lx_skip(l);
		if (l->pos < l->len && l->line[l->pos] == '*') {
			rl->subch = 8;
			l->pos++;
			if (!scn_lx_need_sep(l, "'*'"))
				return false;
		} else {
			size_t at = l->pos;
			scn_expr *e = scn_lx_expr_word(l, "a subchannel (0..7) or '*'");
			if (!e)
				return false;
			if (e->kind != SCN_EX_NUM || e->num > 7)
				return scn_lx_fail_at(l, at, "expected a subchannel number 0..7 or '*'");
			rl->subch = (uint32_t)e->num;
		}
		scn_lx_skip(l);
		rl->method_loc = (scn_loc){ l->lineno, scn_lx_col(l) };
		rl->method = scn_lx_ident(l, "a method name");
		if (!rl->method)
			return false;
		if (rl->kind == SCN_RW_REPLACE && !(rl->value = scn_lx_expr_word(l, "the new data")))
			return false;
		return scn_lx_done(l);
	}
	if (scn_word_is(w, n, "prelude")) {
		rl->kind = SCN_RW_PRELUDE;
		return (rl->value = scn_lx_expr_word(l, "a push block's name")) && scn_lx_done(l);
	}
	if (scn_word_is(w, n, "split")) {
		rl->kind = SCN_RW_SPLIT;
		return (rl->value = scn_lx_expr_word(l, "the most dwords an entry keeps")) && scn_lx_done(l);
	}
	if (scn_word_is(w, n, "merge")) {
		rl->kind = SCN_RW_MERGE;
		return scn_lx_done(l);
	}
	if (scn_word_is(w, n, "skew")) {
		rl->kind = SCN_RW_SKEW;
		rl->naddrs = 1;
		rl->addrs = scn_alloc(l->s, sizeof(char *));
		rl->addr_locs = scn_alloc(l->s, sizeof(scn_loc));
		scn_lx_skip(l);
		rl->addr_locs[0] = (scn_loc){ l->lineno, scn_lx_col(l) };
		return (rl->addrs[0] = scn_lx_ident(l, "an address name")) &&
		       (rl->value = scn_lx_expr_word(l, "the delta in bytes")) && scn_lx_done(l);
	}
	return scn_lx_fail_at(l, kw, "unknown rewrite line '%.*s'; expected relocate, keep, skew, "
			      "drop, replace, prelude, split, merge or end", (int)n, w);
}

static bool parse_push_line(scn_lx *l, scn_pline *pl, cs_scenario *s)
{
	const char *w;
	size_t n = scn_lx_peek_word(l, &w);
	pl->loc = (scn_loc){ l->lineno, scn_lx_col(l) };
	if (isdigit((unsigned char)w[0])) {
		pl->kind = SCN_PL_INC;
		return parse_subch(l, &pl->subch) && parse_method(l, pl) && parse_vals(l, pl, true);
	}
	if (scn_word_is(w, n, "inc") || scn_word_is(w, n, "ninc") || scn_word_is(w, n, "once")) {
		pl->kind = w[0] == 'i' ? SCN_PL_INC : w[0] == 'n' ? SCN_PL_NINC : SCN_PL_ONCE;
		l->pos += n;
		return parse_subch(l, &pl->subch) && parse_method(l, pl) && parse_vals(l, pl, true);
	}
	if (scn_word_is(w, n, "imm")) {
		pl->kind = SCN_PL_IMM;
		l->pos += n;
		if (!parse_subch(l, &pl->subch) || !parse_method(l, pl))
			return false;
		scn_lx_skip(l);
		if (l->pos < l->len && l->line[l->pos] == '@')
			return scn_lx_fail_at(l, l->pos, "imm takes one value, not @NAME");
		scn_val v = { .loc = { l->lineno, scn_lx_col(l) } };
		v.expr = scn_lx_expr_word(l, "the immediate value");
		if (!v.expr)
			return false;
		pl->vals = scn_alloc(s, sizeof(scn_val));
		pl->vals[0] = v;
		pl->nvals = 1;
		return scn_lx_done(l);
	}
	if (scn_word_is(w, n, "raw")) {
		pl->kind = SCN_PL_RAW;
		l->pos += n;
		return parse_vals(l, pl, true);
	}
	if (w[0] == '@') {
		pl->kind = SCN_PL_RAW; /* @NAME alone: the alloc's dwords as they are */
		return parse_vals(l, pl, true);
	}
	if (scn_word_is(w, n, "launch")) {
		pl->kind = SCN_PL_LAUNCH;
		l->pos += n;
		return parse_launch(l, pl, s->launches++);
	}
	if (scn_word_is(w, n, "copy")) {
		pl->kind = SCN_PL_COPY;
		l->pos += n;
		pl->vals = scn_alloc(s, 3 * sizeof(scn_val));
		static const char *const what[] = { "the destination address",
						    "the source address", "the length in bytes" };
		for (unsigned i = 0; i < 3; i++) {
			scn_lx_skip(l);
			pl->vals[i].loc = (scn_loc){ l->lineno, scn_lx_col(l) };
			pl->vals[i].expr = scn_lx_expr_word(l, what[i]);
			if (!pl->vals[i].expr)
				return false;
		}
		pl->nvals = 3;
		while (!scn_lx_end(l)) {
			scn_kv kv = { 0 };
			if (!scn_lx_key(l, &kv))
				return false;
			if (!strcmp(kv.key, "name")) {
				pl->launch_name = scn_lx_ident(l, "a copy name");
				if (!pl->launch_name || !scn_lx_need_sep(l, "the name"))
					return false;
				continue;
			}
			if (strcmp(kv.key, "sem") != 0)
				return scn_lx_fail_at(l, kv.key_pos,
						      "unknown copy key '%s'; expected sem= or name=", kv.key);
			if (!scn_lx_kv_values(l, &kv, 2))
				return false;
			if (kv.nvals != 2)
				return scn_lx_fail_at(l, l->pos, "expected sem=ADDR,PAYLOAD");
			pl->sem_addr = kv.vals[0];
			pl->sem_value = kv.vals[1];
		}
		unsigned index = s->copies++;
		if (pl->sem_addr && pl->launch_name)
			return scn_lx_fail_at(l, pl->loc.col - 1,
					      "copy: name= names the semaphore a copy allocates; with sem= "
					      "there is none");
		if (!pl->sem_addr) {
			char buf[160];
			if (!pl->launch_name) {
				snprintf(buf, sizeof(buf), "copy%u", index);
				pl->launch_name = scn_strdup(s, buf, strlen(buf));
			}
			snprintf(buf, sizeof(buf), "%s.sem", pl->launch_name);
			if (!define(s, buf, l->lineno, pl->loc.col, SCN_D_PUSH, l->d))
				return false;
		}
		return true;
	}
	if (scn_word_is(w, n, "release") || scn_word_is(w, n, "acquire")) {
		pl->kind = w[0] == 'r' ? SCN_PL_RELEASE : SCN_PL_ACQUIRE;
		l->pos += n;
		pl->sem_addr = scn_lx_expr_word(l, "the semaphore address");
		if (!pl->sem_addr)
			return false;
		pl->sem_value = scn_lx_expr_word(l, "the semaphore value");
		if (!pl->sem_value)
			return false;
		pl->sem64 = scn_lx_accept(l, "u64");
		/* release ... wfi: RELEASE_WFI=EN, the front end waits for idle first */
		if (pl->kind == SCN_PL_RELEASE)
			pl->sem_wfi = scn_lx_accept(l, "wfi");
		return scn_lx_done(l);
	}
	if (scn_word_is(w, n, "bind")) {
		pl->kind = SCN_PL_BIND;
		l->pos += n;
		if (!parse_subch(l, &pl->subch))
			return false;
		scn_lx_skip(l);
		pl->vals = scn_alloc(s, sizeof(scn_val));
		pl->vals[0].loc = (scn_loc){ l->lineno, scn_lx_col(l) };
		pl->vals[0].expr = scn_lx_expr_word(l, "a class id");
		pl->nvals = 1;
		return pl->vals[0].expr && scn_lx_done(l);
	}
	return scn_lx_fail_at(l, l->pos,
			      "unknown pushbuffer line '%.*s'; expected inc, ninc, once, imm, raw, "
			      "@NAME, launch, copy, release, acquire, bind or end",
			      (int)n, w);
}

/* ---- directives ------------------------------------------------------------ */

static scn_dir *new_dir(cs_scenario *s)
{
	if (s->ndirs == s->cap_dirs) {
		s->cap_dirs = s->cap_dirs ? s->cap_dirs * 2 : 32;
		s->dirs = g_renew(scn_dir, s->dirs, s->cap_dirs);
	}
	scn_dir *d = &s->dirs[s->ndirs++];
	memset(d, 0, sizeof(*d));
	return d;
}

static bool parse_target(scn_lx *l, scn_dir *dir, const char *what)
{
	dir->addr = scn_lx_expr_word(l, what);
	return dir->addr != NULL;
}

static bool parse_expect(scn_lx *l, scn_dir *dir)
{
	const char *w;
	size_t n = scn_lx_peek_word(l, &w);
	if (scn_word_is(w, n, "mem")) {
		dir->kind = SCN_D_EXPECT_MEM;
		l->pos += n;
		return parse_target(l, dir, "an address (NAME[+OFF])") && parse_type(l, &dir->type) &&
		       parse_values(l, dir, true);
	}
	if (scn_word_is(w, n, "stage") || scn_word_is(w, n, "break")) {
		bool is_stage = w[0] == 's';
		dir->kind = is_stage ? SCN_D_EXPECT_STAGE : SCN_D_EXPECT_BREAK;
		l->pos += n;
		n = scn_lx_peek_word(l, &w);
		char buf[32];
		if (n == 0)
			return scn_lx_fail_at(l, l->pos, "expected a stage (1..11 or a name)");
		if (!is_stage && scn_word_is(w, n, "none")) { /* no break: stage stays none */
			dir->stage = (unsigned)CS_STAGE_NONE;
			l->pos += n;
			return scn_lx_done(l);
		}
		snprintf(buf, sizeof(buf), "%.*s", (int)(n < 31 ? n : 31), w);
		cs_stage st = n < 31 ? cs_stage_parse(buf) : CS_STAGE_NONE;
		if (st == CS_STAGE_NONE)
			return scn_lx_fail_at(l, l->pos, "expected a stage (1..11 or a name such as fe-exec)");
		dir->stage = (unsigned)st;
		l->pos += n;
		if (is_stage) {
			n = scn_lx_peek_word(l, &w);
			if (scn_word_is(w, n, "fired"))
				dir->status = CS_STAGE_FIRED;
			else if (scn_word_is(w, n, "not-fired"))
				dir->status = CS_STAGE_NOT_FIRED;
			else if (scn_word_is(w, n, "n/a"))
				dir->status = CS_STAGE_NA;
			else if (scn_word_is(w, n, "not-observable"))
				dir->status = CS_STAGE_NOT_OBSERVABLE;
			else
				return scn_lx_fail_at(l, l->pos, "expected fired, not-fired or n/a");
			l->pos += n;
		}
		return scn_lx_done(l);
	}
	if (scn_word_is(w, n, "complete")) {
		dir->kind = SCN_D_EXPECT_COMPLETE;
		l->pos += n;
		return scn_lx_done(l);
	}
	if (scn_word_is(w, n, "cause")) {
		dir->kind = SCN_D_EXPECT_CAUSE;
		l->pos += n;
		n = scn_lx_peek_word(l, &w);
		char key[48];
		snprintf(key, sizeof(key), "%.*s", (int)(n < sizeof(key) ? n : 0), w);
		dir->cause = (int)cs_cause_parse(key);
		if (dir->cause == CS_CAUSE_NONE)
			return scn_lx_fail_at(l, l->pos, "expected a cause key (docs/chain.md lists them, "
					      "e.g. pb-unmapped)");
		l->pos += n;
		return scn_lx_done(l);
	}
	return scn_lx_fail_at(l, l->pos, "expected mem, stage, break, cause or complete after 'expect'");
}

static bool parse_random(scn_lx *l, scn_dir *dir)
{
	if (!parse_target(l, dir, "an address (NAME[+OFF])"))
		return false;
	scn_lx_skip(l);
	size_t type_pos = l->pos;
	if (!parse_type(l, &dir->type))
		return false;
	if (dir->type != SCN_T_F32 && dir->type != SCN_T_U32)
		return scn_lx_fail_at(l, type_pos, "random fills f32 or u32 values");
	dir->count = scn_lx_expr_word(l, "a count");
	if (!dir->count)
		return false;
	while (!scn_lx_end(l)) {
		scn_kv kv = { 0 };
		if (!scn_lx_key(l, &kv))
			return false;
		if (!strcmp(kv.key, "seed")) {
			if (!scn_lx_kv_values(l, &kv, 1))
				return false;
			dir->seed = kv.vals[0];
		} else if (!strcmp(kv.key, "min") || !strcmp(kv.key, "max")) {
			bool is_min = kv.key[1] == 'i';
			if (dir->type == SCN_T_F32) {
				double v;
				if (!scn_lx_float(l, &v))
					return false;
				if (is_min)
					dir->fmin = v;
				else
					dir->fmax = v;
			} else {
				if (!scn_lx_kv_values(l, &kv, 1))
					return false;
				if (is_min)
					dir->imin = kv.vals[0];
				else
					dir->imax = kv.vals[0];
			}
			if (is_min)
				dir->has_min = true;
			else
				dir->has_max = true;
		} else {
			return scn_lx_fail_at(l, kv.key_pos,
					      "unknown random key '%s'; expected seed=, min= or max=", kv.key);
		}
	}
	if (!dir->seed)
		return scn_lx_fail_at(l, l->pos, "random: expected seed=N");
	if (dir->type == SCN_T_F32) {
		if (!dir->has_min)
			dir->fmin = 0.0;
		if (!dir->has_max)
			dir->fmax = 1.0;
		if (!(dir->fmin <= dir->fmax) || isinf(dir->fmin) || isinf(dir->fmax))
			return scn_lx_fail_at(l, l->pos, "random: expected finite min <= max");
	}
	return true;
}

static bool parse_qmd(scn_lx *l, scn_dir *dir)
{
	GArray *a = g_array_new(FALSE, TRUE, sizeof(scn_qmd_kv));
	bool ok = true;
	while (ok && !scn_lx_end(l)) {
		scn_kv k = { 0 };
		if (!scn_lx_key(l, &k)) {
			ok = false;
			break;
		}
		scn_qmd_kv q = { .key = k.key, .loc = { l->lineno, (uint32_t)k.key_pos + 1 },
				 .dep_action = -1 };
		if (!strcmp(k.key, "dependent")) {
			/* dependent=ADDR,ACTION: ACTION may be a name (SCHEDULE...) */
			scn_expr *addr = scn_expr_parse(l->s, l->line, l->len, &l->pos, l->lineno,
							l->d);
			if (!addr) {
				ok = false;
				break;
			}
			k.vals[0] = addr;
			k.nvals = 1;
			if (l->pos < l->len && l->line[l->pos] == ',') {
				l->pos++;
				size_t p = l->pos;
				while (p < l->len && scn_ident_char(l->line[p]))
					p++;
				int found = -1;
				for (uint32_t i = 0; i < 16 && p > l->pos; i++) {
					const char *nm = cs_dep_action_name(i);
					if (nm && strlen(nm) == p - l->pos &&
					    !memcmp(nm, l->line + l->pos, p - l->pos))
						found = (int)i;
				}
				if (found >= 0) {
					q.dep_action = found;
					l->pos = p;
				} else {
					scn_expr *e = scn_expr_parse(l->s, l->line, l->len, &l->pos,
								     l->lineno, l->d);
					if (!e) {
						ok = false;
						break;
					}
					k.vals[k.nvals++] = e;
				}
			}
			if (!scn_lx_need_sep(l, "the value")) {
				ok = false;
				break;
			}
		} else if (!scn_lx_kv_values(l, &k, 8)) {
			ok = false;
			break;
		}
		q.nvals = k.nvals;
		q.vals = scn_alloc(l->s, sizeof(scn_expr *) * (k.nvals ? k.nvals : 1));
		memcpy(q.vals, k.vals, sizeof(scn_expr *) * k.nvals);
		g_array_append_val(a, q);
	}
	if (ok) {
		dir->nkvs = a->len;
		dir->kvs = scn_alloc(l->s, sizeof(scn_qmd_kv) * (a->len ? a->len : 1));
		if (a->len)
			memcpy(dir->kvs, a->data, sizeof(scn_qmd_kv) * a->len);
	}
	g_array_free(a, TRUE);
	return ok;
}

/* arch NAME: once per file. */
static bool parse_arch(scn_lx *l, size_t kw_pos, bool *arch_seen, uint32_t *arch_line)
{
	if (*arch_seen)
		return scn_lx_fail_at(l, kw_pos, "a second 'arch' (the first is at line %u)",
				      *arch_line);
	const char *a;
	size_t an = scn_lx_peek_word(l, &a);
	char buf[32];
	snprintf(buf, sizeof(buf), "%.*s", (int)(an < 31 ? an : 31), a);
	if (an == 0 || an >= 31 || !cs_arch_from_name(buf, &l->s->arch))
		return scn_lx_fail_at(l, l->pos,
				      "expected an arch (ampere, ada, hopper or blackwell)");
	l->pos += an;
	*arch_seen = true;
	*arch_line = l->lineno;
	return scn_lx_done(l);
}

/* The NAME after a directive's keyword, where its location is kept. */
static const char *parse_dir_name(scn_lx *l, scn_dir *dir, const char *what)
{
	scn_lx_skip(l);
	dir->name_loc = (scn_loc){ l->lineno, scn_lx_col(l) };
	dir->name = scn_lx_ident(l, what);
	return dir->name;
}

/* channel NAME [entries=N] */
static bool parse_channel(scn_lx *l, scn_dir *dir)
{
	if (!parse_dir_name(l, dir, "a channel name"))
		return false;
	while (!scn_lx_end(l)) {
		scn_kv k = { 0 };
		if (!scn_lx_key(l, &k))
			return false;
		if (strcmp(k.key, "entries") != 0)
			return scn_lx_fail_at(l, k.key_pos, "unknown channel key '%s'; expected entries=",
					      k.key);
		if (!scn_lx_kv_values(l, &k, 1))
			return false;
		dir->entries = k.vals[0];
	}
	return true;
}

/* alloc NAME SIZE [align=N] [at=VA] [host=VA] */
static bool parse_alloc(scn_lx *l, scn_dir *dir)
{
	if (!parse_dir_name(l, dir, "an alloc name"))
		return false;
	dir->size = scn_lx_expr_word(l, "a size in bytes");
	if (!dir->size)
		return false;
	while (!scn_lx_end(l)) {
		scn_kv k = { 0 };
		if (!scn_lx_key(l, &k))
			return false;
		bool is_align = !strcmp(k.key, "align"), is_host = !strcmp(k.key, "host");
		if (!is_align && !is_host && strcmp(k.key, "at") != 0)
			return scn_lx_fail_at(l, k.key_pos, "unknown alloc key '%s'; expected align=, "
					      "at= or host=", k.key);
		if (!scn_lx_kv_values(l, &k, 1))
			return false;
		if (is_align)
			dir->align = k.vals[0];
		else if (is_host)
			dir->host_at = k.vals[0];
		else
			dir->at = k.vals[0];
	}
	return define(l->s, dir->name, dir->name_loc.line, dir->name_loc.col, dir->kind, l->d);
}

/* module NAME PATH [ptx=PATH] */
static bool parse_module(scn_lx *l, scn_dir *dir)
{
	if (!parse_dir_name(l, dir, "a module name") || !parse_path(l, dir))
		return false;
	const char *pw;
	size_t pn = scn_lx_peek_word(l, &pw);
	if (pn > 4 && !memcmp(pw, "ptx=", 4)) {
		/* the PTX nvcc wrote beside a bare cubin: parse it as a path */
		char *cubin = dir->path;
		scn_loc cubin_loc = dir->path_loc;
		l->pos += 4;
		if (!parse_path(l, dir))
			return false;
		dir->ptx_path = dir->path;
		dir->ptx_loc = dir->path_loc;
		dir->path = cubin;
		dir->path_loc = cubin_loc;
	}
	return scn_lx_done(l) &&
	       define(l->s, dir->name, dir->name_loc.line, dir->name_loc.col, dir->kind, l->d);
}

/* push NAME, the line that opens a pushbuffer block */
static bool parse_push_open(scn_lx *l, scn_dir *dir)
{
	if (!parse_dir_name(l, dir, "a pushbuffer name") || !scn_lx_done(l))
		return false;
	/* defined at its `end`; a clash with an earlier name is named here */
	scn_def *old = g_hash_table_lookup(l->s->defs, dir->name);
	if (old)
		return scn_lx_fail_at(l, dir->name_loc.col - 1, "'%s' is already defined at line %u",
				      dir->name, old->decl_line);
	return true;
}

/* gpfifo NAME[+OFF[,LEN]] [sync] */
static bool parse_gpfifo(scn_lx *l, scn_dir *dir)
{
	dir->addr = scn_lx_expr(l, "a pushbuffer address (NAME[+OFF[,LEN]])");
	if (!dir->addr)
		return false;
	if (l->pos < l->len && l->line[l->pos] == ',') {
		l->pos++;
		if (l->pos >= l->len || l->line[l->pos] == ' ' || l->line[l->pos] == '\t')
			return scn_lx_fail_at(l, l->pos, "expected a length in dwords after ','");
		dir->len = scn_lx_expr_word(l, "a length in dwords");
		if (!dir->len)
			return false;
	} else if (!scn_lx_need_sep(l, "the address")) {
		return false;
	}
	dir->sync = scn_lx_accept(l, "sync");
	return scn_lx_done(l);
}

/* wait ADDR ==|>= VALUE [u64] */
static bool parse_wait(scn_lx *l, scn_dir *dir)
{
	if (!parse_target(l, dir, "an address"))
		return false;
	dir->geq = scn_lx_accept(l, ">=");
	if (!dir->geq && !scn_lx_accept(l, "=="))
		return scn_lx_fail_at(l, l->pos, "expected '==' or '>=' after the address");
	dir->value = scn_lx_expr_word(l, "a value");
	if (!dir->value)
		return false;
	dir->u64 = scn_lx_accept(l, "u64");
	return scn_lx_done(l);
}

/* map guest G host H size S */
static bool parse_map(scn_lx *l, scn_dir *dir)
{
	if (!scn_lx_accept(l, "guest"))
		return scn_lx_fail_at(l, l->pos, "expected 'guest' (map guest G host H size S)");
	if (!(dir->lo = scn_lx_expr_word(l, "the guest's address")))
		return false;
	if (!scn_lx_accept(l, "host"))
		return scn_lx_fail_at(l, l->pos, "expected 'host' after the guest's address");
	if (!(dir->hi = scn_lx_expr_word(l, "the host's address")))
		return false;
	if (!scn_lx_accept(l, "size"))
		return scn_lx_fail_at(l, l->pos, "expected 'size' after the host's address");
	return (dir->size = scn_lx_expr_word(l, "a size in bytes")) && scn_lx_done(l);
}

static bool parse_directive(scn_lx *l, scn_dir *dir, bool *arch_seen, uint32_t *arch_line)
{
	const char *w;
	size_t n = scn_lx_peek_word(l, &w);
	size_t kw_pos = l->pos;
	l->pos += n;
	if (scn_word_is(w, n, "arch")) {
		dir->kind = SCN_D_ARCH;
		return parse_arch(l, kw_pos, arch_seen, arch_line);
	}
	if (scn_word_is(w, n, "channel")) {
		dir->kind = SCN_D_CHANNEL;
		return parse_channel(l, dir);
	}
	if (scn_word_is(w, n, "alloc")) {
		dir->kind = SCN_D_ALLOC;
		return parse_alloc(l, dir);
	}
	if (scn_word_is(w, n, "data")) {
		dir->kind = SCN_D_DATA;
		return parse_target(l, dir, "an address (NAME[+OFF])") && parse_type(l, &dir->type) &&
		       parse_values(l, dir, false);
	}
	if (scn_word_is(w, n, "fill")) {
		dir->kind = SCN_D_FILL;
		return parse_target(l, dir, "an address (NAME[+OFF])") &&
		       (dir->len = scn_lx_expr_word(l, "a length in bytes")) &&
		       (dir->byte = scn_lx_expr_word(l, "a byte value")) && scn_lx_done(l);
	}
	if (scn_word_is(w, n, "load")) {
		dir->kind = SCN_D_LOAD;
		return parse_target(l, dir, "an address (NAME[+OFF])") && parse_path(l, dir) &&
		       scn_lx_done(l);
	}
	if (scn_word_is(w, n, "module")) {
		dir->kind = SCN_D_MODULE;
		return parse_module(l, dir);
	}
	if (scn_word_is(w, n, "qmd")) {
		dir->kind = SCN_D_QMD;
		return parse_dir_name(l, dir, "a QMD name") && parse_qmd(l, dir) &&
		       define(l->s, dir->name, dir->name_loc.line, dir->name_loc.col, dir->kind, l->d);
	}
	if (scn_word_is(w, n, "push")) {
		dir->kind = SCN_D_PUSH;
		return parse_push_open(l, dir);
	}
	if (scn_word_is(w, n, "gpfifo")) {
		dir->kind = SCN_D_GPFIFO;
		return parse_gpfifo(l, dir);
	}
	if (scn_word_is(w, n, "gpfifo-raw")) {
		dir->kind = SCN_D_GPFIFO_RAW;
		return (dir->lo = scn_lx_expr_word(l, "the entry's low word")) &&
		       (dir->hi = scn_lx_expr_word(l, "the entry's high word")) && scn_lx_done(l);
	}
	if (scn_word_is(w, n, "submit")) {
		dir->kind = SCN_D_SUBMIT;
		return scn_lx_done(l);
	}
	if (scn_word_is(w, n, "wait")) {
		dir->kind = SCN_D_WAIT;
		return parse_wait(l, dir);
	}
	if (scn_word_is(w, n, "expect"))
		return parse_expect(l, dir);
	if (scn_word_is(w, n, "random")) {
		dir->kind = SCN_D_RANDOM;
		return parse_random(l, dir);
	}
	if (scn_word_is(w, n, "map")) {
		dir->kind = SCN_D_MAP;
		return parse_map(l, dir);
	}
	if (scn_word_is(w, n, "rewrite")) {
		dir->kind = SCN_D_REWRITE;
		return scn_lx_done(l);
	}
	if (scn_word_is(w, n, "end"))
		return scn_lx_fail_at(l, kw_pos, "'end' outside a push or rewrite block");
	return scn_lx_fail_at(l, kw_pos,
			      "unknown directive '%.*s'; expected arch, channel, alloc, data, fill, "
			      "load, module, qmd, push, gpfifo, gpfifo-raw, submit, wait, expect, random, "
			      "map or rewrite",
			      (int)n, w);
}

/* ---- the static name check ------------------------------------------------- */
/* ---- the file -------------------------------------------------------------- */

static char *dir_text(cs_scenario *s, const char *line, size_t len)
{
	size_t a = 0;
	while (a < len && (line[a] == ' ' || line[a] == '\t'))
		a++;
	while (len > a && (line[len - 1] == ' ' || line[len - 1] == '\t'))
		len--;
	return scn_strdup(s, line + a, len - a);
}

static void scenario_free_parts(cs_scenario *s)
{
	if (s->rewrite)
		s->rewrite_free(s->rewrite);
	if (s->pool)
		g_ptr_array_free(s->pool, TRUE);
	if (s->defs)
		g_hash_table_destroy(s->defs);
	g_free(s->dirs);
	g_free(s->name);
	g_free(s->base_dir);
}

cs_scenario *cs_scenario_parse(const char *text, size_t len, const char *name,
			       const char *base_dir, cs_diag *d)
{
	cs_diag_clear(d);
	cs_scenario *s = g_new0(cs_scenario, 1);
	s->name = g_strdup(name ? name : "<scenario>");
	s->base_dir = base_dir ? g_strdup(base_dir) : g_path_get_dirname(s->name);
	s->arch = CS_ARCH_HOPPER;
	s->pool = g_ptr_array_new_with_free_func(g_free);
	s->defs = g_hash_table_new(g_str_hash, g_str_equal);

	bool arch_seen = false;
	uint32_t arch_line = 0;
	scn_dir *push = NULL; /* the open push block (index kept: dirs may move) */
	size_t push_index = 0;
	GArray *lines = NULL;
	scn_dir *rw_dir = NULL; /* the open rewrite block, likewise */
	size_t rw_index = 0;
	GArray *rlines = NULL;
	scn_lx l = { .s = s, .d = d };
	size_t pos = 0;
	bool ok = true;

	while (ok && pos < len) {
		ok = scn_lx_line(&l, text, len, &pos);
		if (!ok)
			break;
		if (scn_lx_end(&l))
			continue;
		if (rw_dir) {
			rw_dir = &s->dirs[rw_index];
			const char *w;
			size_t n = scn_lx_peek_word(&l, &w);
			if (scn_word_is(w, n, "end")) {
				l.pos += n;
				ok = scn_lx_done(&l);
				rw_dir->nrlines = rlines->len;
				rw_dir->rlines = scn_alloc(s, sizeof(scn_rline) * (rlines->len ? rlines->len : 1));
				if (rlines->len)
					memcpy(rw_dir->rlines, rlines->data, sizeof(scn_rline) * rlines->len);
				g_array_free(rlines, TRUE);
				rlines = NULL;
				rw_dir = NULL;
				continue;
			}
			scn_rline rl = { 0 };
			ok = parse_rewrite_line(&l, &rl);
			if (ok)
				g_array_append_val(rlines, rl);
			continue;
		}
		if (push) {
			push = &s->dirs[push_index];
			const char *w;
			size_t n = scn_lx_peek_word(&l, &w);
			if (scn_word_is(w, n, "end")) {
				l.pos += n;
				ok = scn_lx_done(&l);
				if (!ok)
					break;
				push->end_loc = (scn_loc){ l.lineno, (uint32_t)(w - l.line) + 1 };
				push->nlines = lines->len;
				push->lines = scn_alloc(s, sizeof(scn_pline) * (lines->len ? lines->len : 1));
				if (lines->len)
					memcpy(push->lines, lines->data, sizeof(scn_pline) * lines->len);
				g_array_free(lines, TRUE);
				lines = NULL;
				ok = define(s, push->name, l.lineno, push->end_loc.col, SCN_D_PUSH, d);
				if (ok) {
					scn_def *def = g_hash_table_lookup(s->defs, push->name);
					def->decl_line = push->loc.line;
					def->push_block = true;
				}
				push = NULL;
				continue;
			}
			if (scn_word_is(w, n, "push")) {
				ok = scn_lx_fail_at(&l, l.pos,
						    "'push' inside push '%s' (opened at line %u); expected 'end' first",
						    push->name, push->loc.line);
				break;
			}
			scn_pline pl = { 0 };
			ok = parse_push_line(&l, &pl, s);
			if (ok)
				g_array_append_val(lines, pl);
			continue;
		}
		scn_dir *dir = new_dir(s);
		scn_lx_skip(&l);
		dir->loc = (scn_loc){ l.lineno, scn_lx_col(&l) };
		dir->text = dir_text(s, l.line, l.len);
		ok = parse_directive(&l, dir, &arch_seen, &arch_line);
		if (ok && dir->kind == SCN_D_PUSH) {
			push = dir;
			push_index = s->ndirs - 1;
			lines = g_array_new(FALSE, TRUE, sizeof(scn_pline));
		}
		if (ok && dir->kind == SCN_D_REWRITE) {
			rw_dir = dir;
			rw_index = s->ndirs - 1;
			rlines = g_array_new(FALSE, TRUE, sizeof(scn_rline));
		}
	}
	if (ok && rw_dir) {
		rw_dir = &s->dirs[rw_index];
		cs_diag_at_text(d, CS_ERR_INPUT, s->name, rw_dir->loc.line, rw_dir->loc.col,
				"expected 'end' to close the rewrite block before the end of the file");
		ok = false;
	}
	if (rlines)
		g_array_free(rlines, TRUE);
	if (ok && push) {
		push = &s->dirs[push_index];
		cs_diag_at_text(d, CS_ERR_INPUT, s->name, push->loc.line, push->loc.col,
				"expected 'end' to close push '%s' before the end of the file",
				push->name);
		ok = false;
	}
	if (lines)
		g_array_free(lines, TRUE);
	if (ok)
		ok = scn_check_names(s, d);
	if (!ok) {
		scenario_free_parts(s);
		g_free(s);
		return NULL;
	}
	return s;
}

cs_scenario *cs_scenario_load(const char *path, cs_diag *d)
{
	char *text = NULL;
	size_t len = 0;
	if (!cs_file_read(path, CS_FILE_MAX_TEXT, "cannot read the scenario", &text, &len, d))
		return NULL;
	cs_scenario *s = cs_scenario_parse(text, len, cs_file_name(path), NULL, d);
	free(text);
	return s;
}

void scn_exec_reset(cs_scenario *s);

void cs_scenario_free(cs_scenario *s)
{
	if (!s)
		return;
	scn_exec_reset(s);
	scenario_free_parts(s);
	g_free(s);
}

cs_arch cs_scenario_arch(const cs_scenario *s)
{
	return s->arch;
}

const char *cs_scenario_name(const cs_scenario *s)
{
	return s->name;
}

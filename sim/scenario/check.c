/* SPDX-License-Identifier: MIT */
/* The static name check of a parsed scenario: in file order, every name is
 * defined before it is used (a push block's name at its `end`, a launch's and
 * a copy's names at their line), and MODULE alone is not a value. Execution
 * resolves the names again on the device; this pass names the mistake with
 * its file:line:col before anything runs. */
#include <stdio.h>
#include <string.h>

#include "scn.h"

typedef struct namecheck {
	cs_scenario *s;
	GHashTable *seen; /* name -> scn_def* */
} namecheck;

static bool check_name(void *ctx, const scn_expr *e, cs_diag *d)
{
	namecheck *nc = ctx;
	scn_def *def = g_hash_table_lookup(nc->seen, e->name);
	if (def) {
		if (def->kind == SCN_D_MODULE) {
			cs_diag_at_text(d, CS_ERR_INPUT, nc->s->name, e->loc.line, e->loc.col,
					"'%s' is a module (line %u); use %s.KERNEL for a kernel's code "
					"address", e->name, def->line, e->name);
			return false;
		}
		return true;
	}
	const char *dot = strchr(e->name, '.');
	if (dot) {
		char prefix[256];
		snprintf(prefix, sizeof(prefix), "%.*s", (int)(dot - e->name), e->name);
		scn_def *m = g_hash_table_lookup(nc->seen, prefix);
		if (m && m->kind == SCN_D_MODULE)
			return true;
		m = g_hash_table_lookup(nc->s->defs, prefix);
		if (m && m->kind == SCN_D_MODULE) {
			cs_diag_at_text(d, CS_ERR_INPUT, nc->s->name, e->loc.line, e->loc.col,
					"'%s' is used before module '%s' is defined at line %u",
					e->name, prefix, m->line);
			return false;
		}
	}
	def = g_hash_table_lookup(nc->s->defs, e->name);
	if (def && def->push_block && e->loc.line > def->decl_line && e->loc.line < def->line) {
		cs_diag_at_text(d, CS_ERR_INPUT, nc->s->name, e->loc.line, e->loc.col,
				"'%s' is used inside its own push block (lines %u-%u); it is placed "
				"at its 'end'", e->name, def->decl_line, def->line);
		return false;
	}
	if (def) {
		cs_diag_at_text(d, CS_ERR_INPUT, nc->s->name, e->loc.line, e->loc.col,
				"'%s' is used before its definition at line %u", e->name, def->decl_line);
		return false;
	}
	cs_diag_at_text(d, CS_ERR_INPUT, nc->s->name, e->loc.line, e->loc.col,
			"unknown name '%s'", e->name);
	return false;
}

static bool check_at_name(namecheck *nc, const scn_val *v, cs_diag *d)
{
	scn_expr e = { .kind = SCN_EX_NAME, .loc = v->loc, .name = v->at_name };
	e.loc.col++; /* the name after '@' */
	if (!check_name(nc, &e, d))
		return false;
	return true;
}

static void see(namecheck *nc, const char *name)
{
	scn_def *def = g_hash_table_lookup(nc->s->defs, name);
	if (def)
		g_hash_table_insert(nc->seen, def->name, def);
}

#define CHECK(e) do { if (!scn_expr_names((e), check_name, nc, d)) return false; } while (0)

static bool check_pline(namecheck *nc, const scn_pline *pl, cs_diag *d)
{
	for (unsigned i = 0; i < pl->nvals; i++) {
		if (pl->vals[i].at_name) {
			if (!check_at_name(nc, &pl->vals[i], d))
				return false;
		} else {
			CHECK(pl->vals[i].expr);
		}
	}
	CHECK(pl->sem_addr);
	CHECK(pl->sem_value);
	if (pl->kind == SCN_PL_COPY && !pl->sem_addr) {
		char name[160];
		snprintf(name, sizeof(name), "%s.sem", pl->launch_name);
		see(nc, name);
	}
	if (pl->kind == SCN_PL_LAUNCH) {
		scn_expr k = { .kind = SCN_EX_NAME, .loc = pl->kernel_loc, .name = pl->kernel };
		if (!check_name(nc, &k, d))
			return false;
		for (unsigned i = 0; i < 3; i++) {
			CHECK(pl->grid[i]);
			CHECK(pl->block[i]);
		}
		for (unsigned i = 0; i < pl->nargs; i++)
			CHECK(pl->args[i]);
		CHECK(pl->shared);
		static const char *const parts[] = { "cb0", "qmd", "sem" };
		for (unsigned i = 0; i < 3; i++) {
			char name[160];
			snprintf(name, sizeof(name), "%s.%s", pl->launch_name, parts[i]);
			see(nc, name);
		}
	}
	return true;
}

static bool check_dir(namecheck *nc, const scn_dir *dir, cs_diag *d)
{
	CHECK(dir->addr);
	CHECK(dir->size);
	CHECK(dir->align);
	CHECK(dir->at);
	CHECK(dir->host_at);
	CHECK(dir->len);
	CHECK(dir->byte);
	CHECK(dir->value);
	CHECK(dir->count);
	CHECK(dir->seed);
	CHECK(dir->entries);
	CHECK(dir->imin);
	CHECK(dir->imax);
	CHECK(dir->lo);
	CHECK(dir->hi);
	for (unsigned i = 0; i < dir->nvals; i++)
		CHECK(dir->dvals[i].expr);
	for (unsigned i = 0; i < dir->nkvs; i++)
		for (unsigned j = 0; j < dir->kvs[i].nvals; j++)
			CHECK(dir->kvs[i].vals[j]);
	for (unsigned i = 0; i < dir->nrlines; i++)
		CHECK(dir->rlines[i].value);
	for (unsigned i = 0; i < dir->nlines; i++)
		if (!check_pline(nc, &dir->lines[i], d))
			return false;
	switch (dir->kind) {
	case SCN_D_ALLOC:
	case SCN_D_MODULE:
	case SCN_D_QMD:
	case SCN_D_PUSH:
		see(nc, dir->name);
		break;
	default:
		break;
	}
	return true;
}

#undef CHECK

bool scn_check_names(cs_scenario *s, cs_diag *d)
{
	namecheck nc = { .s = s, .seen = g_hash_table_new(g_str_hash, g_str_equal) };
	bool ok = true;
	for (unsigned i = 0; ok && i < s->ndirs; i++)
		ok = check_dir(&nc, &s->dirs[i], d);
	g_hash_table_destroy(nc.seen);
	return ok;
}

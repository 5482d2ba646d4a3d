/* SPDX-License-Identifier: MIT */
/* The assembler and the memory-side directives of a scenario: alloc, data,
 * fill, load, random, module, qmd and push act on guest memory in file order.
 * Pushbuffers are assembled with pushbuf.h's encoders, method names through
 * the class registry, `launch` and `copy` through gr.h's canonical sequences.
 * Nothing here calls the device: exec.c drives it (and the GPFIFO, submit and
 * wait directives), and scn_assemble runs the memory side alone on a bare
 * cs_mem (for tests and tools that only need the bytes). */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "chainsim/file.h"
#include "chainsim/ptx.h"
#include "chainsim/fe.h"
#include "chainsim/gr.h"
#include "chainsim/ptxrun.h"
#include "chainsim/pushbuf.h"
#include "chainsim/registry.h"
#include <glib/gstdio.h>

#include "scn.h"

bool scn_fail_at(scn_exec *x, scn_loc loc, const char *fmt, ...)
{
	char msg[CS_DIAG_MSG_MAX];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	cs_diag_at_text(x->d, CS_ERR_INPUT, x->s->name, loc.line, loc.col, "%s", msg);
	return false;
}

/* Another module's diagnosis, placed at a scenario location. */
bool scn_fail_with(scn_exec *x, scn_loc loc, const char *what, const cs_diag *inner)
		   {
		   char buf[CS_DIAG_MSG_MAX];
	cs_diag_format(inner, buf, sizeof(buf));
	cs_diag_at_text(x->d, inner->status ? inner->status : CS_ERR_INPUT, x->s->name, loc.line,
			loc.col, "%s: %s", what, buf);
	return false;
}

/* ---- symbols -------------------------------------------------------------- */

static void sym_free(gpointer p)
{
	scn_sym *sym = p;
	if (sym->module)
		cs_module_free(sym->module);
	g_free(sym->kernel_va);
	g_free(sym);
}

void scn_exec_reset(cs_scenario *s)
{
	if (s->syms)
		g_hash_table_destroy(s->syms);
	s->syms = NULL;
	if (s->outcomes)
		g_array_free(s->outcomes, TRUE);
	s->outcomes = NULL;
}

static scn_sym *sym_add(scn_exec *x, const char *name, scn_sym_kind kind)
{
	scn_sym *sym = g_new0(scn_sym, 1);
	sym->kind = kind;
	g_hash_table_replace(x->s->syms, g_strdup(name), sym);
	return sym;
}

static bool resolve_kernel(scn_exec *x, const scn_expr *e, const cs_kernel_info **ki, uint64_t *va)
{
	const char *dot = strchr(e->name, '.');
	char prefix[256];
	snprintf(prefix, sizeof(prefix), "%.*s", dot ? (int)(dot - e->name) : 0, e->name);
	scn_sym *m = dot ? g_hash_table_lookup(x->s->syms, prefix) : NULL;
	if (!m || m->kind != SCN_SYM_MODULE)
		return scn_fail_at(x, e->loc, "'%s' is not defined here", e->name);
	const char *kname = dot + 1;
	const cs_kernel_info *k = cs_module_kernel_named(m->module, kname);
	if (!k) {
		char list[256] = "";
		size_t used = 0;
		for (size_t i = 0; i < cs_module_kernel_count(m->module) && used < sizeof(list); i++) {
			int n = snprintf(list + used, sizeof(list) - used, "%s%s", i ? ", " : "",
					 cs_module_kernel(m->module, i)->name);
			if (n < 0)
				break;
			used += (size_t)n;
		}
		return scn_fail_at(x, e->loc, "module '%s' has no kernel '%s' (it has: %s)", prefix,
				   kname, list[0] ? list : "none");
	}
	size_t idx = 0;
	while (idx < m->nkernels && cs_module_kernel(m->module, idx) != k)
		idx++;
	if (idx >= m->nkernels || !m->kernel_va[idx])
		return scn_fail_at(x, e->loc, "kernel '%s' of module '%s' has no SASS for %s, so it has "
				   "no code address", kname, prefix, x->ai->name);
	if (ki)
		*ki = k;
	*va = m->kernel_va[idx];
	return true;
}

static bool resolve(void *ctx, const scn_expr *e, uint64_t *out, cs_diag *d)
{
	scn_exec *x = ctx;
	(void)d;
	scn_sym *sym = g_hash_table_lookup(x->s->syms, e->name);
	if (sym) {
		if (sym->kind == SCN_SYM_MODULE)
			return scn_fail_at(x, e->loc, "'%s' is a module; use %s.KERNEL", e->name, e->name);
		*out = sym->va;
		return true;
	}
	if (strchr(e->name, '.'))
		return resolve_kernel(x, e, NULL, out);
	return scn_fail_at(x, e->loc, "'%s' is not defined here", e->name);
}

bool scn_eval(scn_exec *x, const scn_expr *e, uint64_t *out)
{
	return scn_expr_eval(x->s, e, resolve, x, out, x->d);
}

bool scn_eval_or(scn_exec *x, const scn_expr *e, uint64_t dflt, uint64_t *out)
{
	if (!e) {
		*out = dflt;
		return true;
	}
	return scn_eval(x, e, out);
}

bool scn_eval32(scn_exec *x, const scn_expr *e, uint32_t *out)
{
	uint64_t v;
	if (!scn_eval(x, e, &v))
		return false;
	/* a negative literal such as -1 stands for its 32-bit two's complement */
	if (v > 0xffffffffull && (int64_t)v < -(int64_t)0x80000000ll)
		return scn_fail_at(x, e->loc, "value 0x%llx does not fit 32 bits (use lo() or hi())",
				   (unsigned long long)v);
	if (v > 0xffffffffull && (int64_t)v >= 0)
		return scn_fail_at(x, e->loc, "value 0x%llx does not fit 32 bits (use lo() or hi())",
				   (unsigned long long)v);
	*out = (uint32_t)v;
	return true;
}

static bool fits_bits(uint64_t v, unsigned bits)
{
	if (bits >= 64)
		return true;
	if ((v >> bits) == 0)
		return true;
	int64_t sv = (int64_t)v;
	return sv < 0 && sv >= -((int64_t)1 << (bits - 1));
}

bool scn_fail_backing(scn_exec *x, scn_loc loc)
{
	return scn_fail_at(x, loc,
			   "the guest has written more memory than the simulator backs "
			   "(%llu MiB): write less, or fewer distinct pages",
			   (unsigned long long)(cs_mem_pages_backed(x->mem) * CS_PAGE_SIZE >> 20));
}

static bool mem_write(scn_exec *x, scn_loc loc, uint64_t va, const void *src, size_t len)
{
	uint64_t fault = 0;
	if (len && va + len < va)
		return scn_fail_at(x, loc, "0x%llx + %zu bytes wraps the address space",
				   (unsigned long long)va, len);
	if (!cs_mem_write(x->mem, va, src, len, &fault)) {
		if (cs_mem_backing_exhausted(x->mem))
			return scn_fail_backing(x, loc);
		return scn_fail_at(x, loc, "cannot write %zu bytes at 0x%llx: 0x%llx is not mapped", len,
				   (unsigned long long)va, (unsigned long long)fault);
	}
	return true;
}

static bool new_region(scn_exec *x, scn_loc loc, const char *name, uint64_t size, uint64_t align,
		       uint64_t *va)
{
	cs_diag dd;
	cs_diag_clear(&dd);
	char rname[CS_REGION_NAME_MAX];
	snprintf(rname, sizeof(rname), "%s", name);
	if (!cs_mem_alloc(x->mem, rname, size, align, va, &dd)) {
		/* a truncated name may collide: fall back to an anonymous region */
		if (strlen(name) >= CS_REGION_NAME_MAX && cs_mem_alloc(x->mem, "", size, align, va, &dd))
			return true;
		return scn_fail_with(x, loc, name, &dd);
	}
	return true;
}

static void record_build(scn_exec *x, uint64_t addr, uint64_t value, uint64_t aux, const char *detail)
{
	cs_event ev = cs_event_make(CS_EV_GUEST_BUILD, CS_STAGE_GUEST_BUILD, CS_UNIT_GUEST,
				    x->channel);
	ev.addr = addr;
	ev.value = value;
	ev.aux = aux;
	ev.detail = detail;
	if (x->record)
		x->record(x->host, &ev);
	if (x->tap && x->tap->record)
		x->tap->record(x->tap->ctx, &ev);
}

/* ---- memory directives ---------------------------------------------------- */

static const unsigned type_bytes[] = { 1, 2, 4, 8, 4, 8 };
static const char *const type_names[] = { "u8", "u16", "u32", "u64", "f32", "f64" };

/* The bytes of value i of a data / expect mem line. */
static bool encode_value(scn_exec *x, const scn_dir *dir, unsigned i, uint8_t out[8])
{
	scn_type t = dir->type;
	uint64_t v = 0;
	const scn_dval *dv = &dir->dvals[i];
	if (dv->is_float) {
		double f = dv->f;
		if (t == SCN_T_F32) {
			float ff = (float)f;
			if (isinf(ff) && !isinf(f))
				return scn_fail_at(x, dv->loc, "value %g does not fit an f32", f);
			uint32_t b;
			memcpy(&b, &ff, 4);
			v = b;
		} else {
			memcpy(&v, &f, 8);
		}
	} else {
		if (!scn_eval(x, dv->expr, &v))
			return false;
		unsigned bits = type_bytes[t] * 8;
		if (!fits_bits(v, bits))
			return scn_fail_at(x, dv->loc, "value 0x%llx does not fit %s",
					   (unsigned long long)v, type_names[t]);
	}
	for (unsigned b = 0; b < 8; b++)
		out[b] = (uint8_t)(v >> (8 * b));
	return true;
}

/* The allocation a NAME[+OFF] target writes into: the alloc its expression
 * names (the first name that is one), else the mapped region holding va. */
static bool target_alloc(scn_exec *x, const scn_expr *e, uint64_t va, const char **name,
			 uint64_t *base, uint64_t *size)
{
	for (const scn_expr *n = e; n; n = n->kind == SCN_EX_BIN || n->kind == SCN_EX_NEG ||
				      n->kind == SCN_EX_LO || n->kind == SCN_EX_HI ? n->a : NULL) {
		if (n->kind != SCN_EX_NAME)
			continue;
		const scn_sym *sym = scn_symbol(x->s, n->name);
		if (sym && sym->kind == SCN_SYM_ALLOC) {
			*name = n->name;
			*base = sym->va;
			*size = sym->size;
			return true;
		}
	}
	const cs_region *r = cs_mem_region_at(x->mem, va);
	if (!r)
		return false;
	*name = r->name[0] ? r->name : NULL;
	*base = r->va;
	*size = r->size;
	return true;
}

/* Bytes a line may write or read from va before it leaves the allocation its
 * target names; fails, located at the target, when va is outside it. Unmapped
 * targets pass with room 0 and fault as they did (not mapped). */
static bool target_room(scn_exec *x, const scn_dir *dir, uint64_t va, uint64_t *room)
{
	const char *name;
	uint64_t base, size;
	*room = UINT64_MAX;
	if (!target_alloc(x, dir->addr, va, &name, &base, &size))
		return true;
	if (va < base || va - base >= size)
		return scn_fail_at(x, dir->addr->loc, "0x%llx is outside '%s' [0x%llx, +0x%llx)",
				   (unsigned long long)va, name ? name : "?", (unsigned long long)base,
				   (unsigned long long)size);
	*room = size - (va - base);
	return true;
}

/* The located error for a line whose bytes from va run past its allocation. */
static bool fail_leaves(scn_exec *x, scn_loc at, uint64_t va, uint64_t len, uint64_t room)
{
	return scn_fail_at(x, at, "%llu bytes at 0x%llx leave the allocation after %llu bytes "
			   "(it ends at 0x%llx)", (unsigned long long)len, (unsigned long long)va,
			   (unsigned long long)room, (unsigned long long)(va + room));
}

/* Where a data / expect mem line's values go: its address *va and each
 * value's size *sz; fails when the address does not evaluate or at the first
 * value that leaves the allocation. */
static bool values_place(scn_exec *x, const scn_dir *dir, uint64_t *va, unsigned *sz)
{
	if (!scn_eval(x, dir->addr, va))
		return false;
	*sz = type_bytes[dir->type];
	uint64_t room, len = (uint64_t)dir->nvals * *sz;
	if (!target_room(x, dir, *va, &room))
		return false;
	if (len <= room)
		return true;
	return fail_leaves(x, dir->dvals[room / *sz].loc, *va, len, room);
}

static bool do_data(scn_exec *x, const scn_dir *dir)
{
	uint64_t va;
	unsigned sz;
	if (!values_place(x, dir, &va, &sz))
		return false;
	uint8_t *buf = g_malloc((size_t)dir->nvals * sz);
	bool ok = true;
	for (unsigned i = 0; ok && i < dir->nvals; i++) {
		uint8_t b[8];
		ok = encode_value(x, dir, i, b);
		if (ok)
			memcpy(buf + (size_t)i * sz, b, sz);
	}
	ok = ok && mem_write(x, dir->loc, va, buf, (size_t)dir->nvals * sz);
	g_free(buf);
	return ok;
}

enum { SCN_MAX_FILL = 1u << 30 }; /* a scenario writes at most 1 GiB in one line */

static bool do_fill(scn_exec *x, const scn_dir *dir)
{
	uint64_t va, len, byte;
	if (!scn_eval(x, dir->addr, &va) || !scn_eval(x, dir->len, &len) || !scn_eval(x, dir->byte, &byte))
		return false;
	if (byte > 0xff)
		return scn_fail_at(x, dir->byte->loc, "fill byte 0x%llx is not a byte",
				   (unsigned long long)byte);
	if (len > SCN_MAX_FILL)
		return scn_fail_at(x, dir->len->loc, "fill length %llu above the limit of %u bytes",
				   (unsigned long long)len, SCN_MAX_FILL);
	if (va + len < va)
		return scn_fail_at(x, dir->loc, "0x%llx + %llu wraps the address space",
				   (unsigned long long)va, (unsigned long long)len);
	uint64_t room;
	if (!target_room(x, dir, va, &room))
		return false;
	if (len > room)
		return fail_leaves(x, dir->len->loc, va, len, room);
	if (!cs_mem_mapped(x->mem, va, len))
		return scn_fail_at(x, dir->loc, "fill: [0x%llx, +%llu) is not all mapped",
				   (unsigned long long)va, (unsigned long long)len);
	uint8_t chunk[4096];
	memset(chunk, (int)byte, sizeof(chunk));
	for (uint64_t done = 0; done < len;) {
		size_t n = len - done < sizeof(chunk) ? (size_t)(len - done) : sizeof(chunk);
		if (!mem_write(x, dir->loc, va + done, chunk, n))
			return false;
		done += n;
	}
	return true;
}

static char *full_path(const cs_scenario *s, const char *path)
{
	if (g_path_is_absolute(path))
		return g_strdup(path);
	return g_build_filename(s->base_dir ? s->base_dir : ".", path, NULL);
}

static bool do_load(scn_exec *x, const scn_dir *dir)
{
	uint64_t va;
	if (!scn_eval(x, dir->addr, &va))
		return false;
	char *p = full_path(x->s, dir->path);
	char *bytes = NULL;
	size_t len = 0;
	cs_diag dd;
	cs_diag_clear(&dd);
	bool ok = cs_file_read(p, SCN_MAX_FILL, "the data", &bytes, &len, &dd);
	if (!ok) {
		scn_fail_with(x, dir->path_loc, "load", &dd);
	} else {
		uint64_t room;
		ok = target_room(x, dir, va, &room);
		if (ok && len > room)
			ok = fail_leaves(x, dir->path_loc, va, len, room);
		ok = ok && mem_write(x, dir->loc, va, bytes, len);
	}
	free(bytes);
	g_free(p);
	return ok;
}

static bool do_module(scn_exec *x, const scn_dir *dir)
{
	char *p = full_path(x->s, dir->path);
	cs_diag dd;
	cs_diag_clear(&dd);
	cs_module *m = cs_module_load_file(p, x->ai->arch, &dd);
	if (m && x->tap && x->tap->module) {
		char *tp = dir->ptx_path ? full_path(x->s, dir->ptx_path) : NULL;
		x->tap->module(x->tap->ctx, p, tp);
		g_free(tp);
	}
	g_free(p);
	if (!m)
		return scn_fail_with(x, dir->path_loc, "module", &dd);
	scn_sym *sym = sym_add(x, dir->name, SCN_SYM_MODULE);
	sym->module = m; /* the symbol owns it from here */
	if (dir->ptx_path) {
		char *pp = full_path(x->s, dir->ptx_path);
		char *ptx = NULL;
		size_t plen = 0;
		bool ok = cs_file_read(pp, CS_FILE_MAX_PTX, "the PTX", &ptx, &plen, &dd);
		if (!ok) {
			scn_fail_with(x, dir->ptx_loc, "ptx", &dd);
		} else {
			/* Parsed now, not first at a launch: an error in the file is bad
			 * input at its own line:col even when nothing launches it. */
			cs_ptx_program *prog = cs_ptx_parse(ptx, plen, pp, &dd);
			const cs_diag *malformed = prog ? cs_ptx_malformed(prog) : NULL;
			if (malformed)
				dd = *malformed;
			if (!prog || malformed)
				ok = scn_fail_with(x, dir->ptx_loc, "ptx", &dd);
			cs_ptx_program_free(prog);
		}
		if (ok && !cs_module_attach_ptx_file(m, ptx, plen, pp, &dd))
			ok = scn_fail_with(x, dir->ptx_loc, "ptx", &dd);
		free(ptx);
		g_free(pp);
		if (!ok)
			return false;
	}
	sym->nkernels = cs_module_kernel_count(m);
	sym->kernel_va = g_new0(uint64_t, sym->nkernels ? sym->nkernels : 1);
	for (size_t i = 0; i < sym->nkernels; i++) {
		const cs_kernel_info *k = cs_module_kernel(m, i);
		if (!k->code || !k->code_size)
			continue;
		char name[256];
		snprintf(name, sizeof(name), "%s.%s", dir->name, k->name);
		uint64_t va;
		if (!new_region(x, dir->loc, name, k->code_size, 256, &va) ||
		    !mem_write(x, dir->loc, va, k->code, k->code_size))
			return false;
		sym->kernel_va[i] = va;
	}
	if (x->module_add && !x->module_add(x->host, m, &dd))
		return scn_fail_with(x, dir->path_loc, "module", &dd);
	return true;
}

static bool do_alloc(scn_exec *x, const scn_dir *dir)
{
	uint64_t size, align, at = 0, va;
	if (!scn_eval(x, dir->size, &size) || !scn_eval_or(x, dir->align, CS_PAGE_SIZE, &align))
		return false;
	if (align == 0 || (align & (align - 1)))
		return scn_fail_at(x, dir->align->loc, "align=%llu is not a power of two",
				   (unsigned long long)align);
	cs_diag dd;
	cs_diag_clear(&dd);
	if (dir->at) {
		if (!scn_eval(x, dir->at, &at))
			return false;
		if (at % align)
			return scn_fail_at(x, dir->at->loc, "at=0x%llx is not aligned to %llu",
					   (unsigned long long)at, (unsigned long long)align);
		if (!cs_mem_map(x->mem, dir->name, at, size, &dd))
			return scn_fail_with(x, dir->loc, "alloc", &dd);
		va = at;
	} else if (!cs_mem_alloc(x->mem, dir->name, size, align, &va, &dd)) {
		return scn_fail_with(x, dir->loc, "alloc", &dd);
	}
	scn_sym *sym = sym_add(x, dir->name, SCN_SYM_ALLOC);
	sym->va = va;
	sym->size = size;
	return true;
}

static bool do_random(scn_exec *x, const scn_dir *dir)
{
	uint64_t va, count, seed;
	if (!scn_eval(x, dir->addr, &va) || !scn_eval(x, dir->count, &count) || !scn_eval(x, dir->seed, &seed))
		return false;
	if (count == 0 || count > SCN_MAX_FILL / 4)
		return scn_fail_at(x, dir->count->loc, "random count %llu out of range (1..%u)",
				   (unsigned long long)count, SCN_MAX_FILL / 4);
	uint64_t room;
	if (!target_room(x, dir, va, &room))
		return false;
	if (count * 4 > room)
		return fail_leaves(x, dir->count->loc, va, count * 4, room);
	uint32_t *buf = g_try_new(uint32_t, count);
	if (!buf)
		return scn_fail_at(x, dir->count->loc, "random: cannot hold %llu values in memory",
				   (unsigned long long)count);
	bool ok = true;
	if (dir->type == SCN_T_F32) {
		cs_scenario_random_f32(seed, (float)dir->fmin, (float)dir->fmax, (float *)(void *)buf,
				       count);
	} else {
		uint32_t lo = 0, hi = 0xffffffffu;
		ok = (!dir->imin || scn_eval32(x, dir->imin, &lo)) && (!dir->imax || scn_eval32(x, dir->imax, &hi));
		if (ok && lo > hi)
			ok = scn_fail_at(x, dir->loc, "random: min 0x%x above max 0x%x", lo, hi);
		if (ok)
			cs_scenario_random_u32(seed, lo, hi, buf, count);
	}
	/* little-endian in memory whatever the host */
	uint8_t *bytes = (uint8_t *)buf;
	for (uint64_t i = 0; ok && i < count; i++) {
		uint32_t v;
		memcpy(&v, bytes + 4 * i, 4);
		for (unsigned b = 0; b < 4; b++)
			bytes[4 * i + b] = (uint8_t)(v >> (8 * b));
	}
	ok = ok && mem_write(x, dir->loc, va, bytes, count * 4);
	g_free(buf);
	return ok;
}

void cs_scenario_random_f32(uint64_t seed, float min, float max, float *out, size_t n)
{
	uint64_t st = seed;
	for (size_t i = 0; i < n; i++)
		out[i] = cs_scenario_rand_f32(&st, min, max);
}

void cs_scenario_random_u32(uint64_t seed, uint32_t min, uint32_t max, uint32_t *out, size_t n)
{
	uint64_t st = seed;
	for (size_t i = 0; i < n; i++)
		out[i] = cs_scenario_rand_u32(&st, min, max);
}

/* ---- QMDs ----------------------------------------------------------------- */

static bool place_qmd(scn_exec *x, scn_loc loc, const char *name, const cs_qmd *q, bool write,
		      uint64_t *va_out)
{
	unsigned bytes = q->layout->bytes;
	uint64_t va;
	if (!new_region(x, loc, name, bytes, 256, &va))
		return false;
	if (write) {
		uint8_t buf[CS_QMD_MAX_BYTES];
		for (unsigned i = 0; i < bytes / 4; i++)
			for (unsigned b = 0; b < 4; b++)
				buf[4 * i + b] = (uint8_t)(q->dw[i] >> (8 * b));
		if (!mem_write(x, loc, va, buf, bytes))
			return false;
	}
	scn_sym *sym = sym_add(x, name, SCN_SYM_ALLOC);
	sym->va = va;
	sym->size = bytes;
	*va_out = va;
	return true;
}

static bool do_qmd(scn_exec *x, const scn_dir *dir)
{
	cs_qmd q;
	cs_diag dd;
	cs_diag_clear(&dd);
	if (!cs_qmd_init(&q, cs_class_qmd_major(x->ai->compute_class), &dd))
		return scn_fail_with(x, dir->loc, "qmd", &dd);
	for (unsigned i = 0; i < dir->nkvs; i++) {
		const scn_qmd_kv *kv = &dir->kvs[i];
		uint64_t vals[9];
		unsigned n = 0;
		for (unsigned j = 0; j < kv->nvals && j < 8; j++)
			if (!scn_eval(x, kv->vals[j], &vals[n++]))
				return false;
		if (kv->dep_action >= 0)
			vals[n++] = (uint64_t)kv->dep_action;
		if (!cs_qmd_set_key(&q, kv->key, vals, n, &dd))
			return scn_fail_with(x, kv->loc, kv->key, &dd);
	}
	uint64_t va;
	if (!place_qmd(x, dir->loc, dir->name, &q, true, &va))
		return false;
	char detail[128];
	snprintf(detail, sizeof(detail), "QMD %s '%s'", q.layout->name, dir->name);
	record_build(x, va, q.layout->bytes, q.layout->major, detail);
	return true;
}

/* ---- pushbuffer assembly --------------------------------------------------- */

static void emit(scn_exec *x, uint32_t dw)
{
	g_array_append_val(x->pb, dw);
}

/* Expand a line's values: expressions as 32-bit values, @NAME as every dword. */
static bool expand_vals(scn_exec *x, const scn_pline *pl, GArray *out)
{
	for (unsigned i = 0; i < pl->nvals; i++) {
		const scn_val *v = &pl->vals[i];
		if (v->expr) {
			uint32_t w;
			if (!scn_eval32(x, v->expr, &w))
				return false;
			g_array_append_val(out, w);
			continue;
		}
		scn_sym *sym = g_hash_table_lookup(x->s->syms, v->at_name);
		if (!sym || sym->kind != SCN_SYM_ALLOC)
			return scn_fail_at(x, v->loc, "@%s: not an alloc defined here", v->at_name);
		uint64_t n = sym->is_push ? sym->dwords : (sym->size + 3) / 4;
		if (n > CS_PB_MAX_COUNT * 4ull)
			return scn_fail_at(x, v->loc, "@%s is %llu dwords, too many for a pushbuffer line",
					   v->at_name, (unsigned long long)n);
		/* Checked before expanding: a short line of many @NAME would
		 * otherwise grow the buffers by gigabytes before the push's end. */
		if (x->pb->len + out->len + n > CS_GP_MAX_LENGTH)
			return scn_fail_at(x, v->loc,
					   "@%s makes the pushbuffer more than the %u dwords one GPFIFO "
					   "entry holds", v->at_name, CS_GP_MAX_LENGTH);
		for (uint64_t k = 0; k < n; k++) {
			uint8_t b[4];
			uint64_t fault;
			if (!cs_mem_read(x->mem, sym->va + 4 * k, b, 4, &fault))
				return scn_fail_at(x, v->loc, "@%s: cannot read 0x%llx", v->at_name,
						   (unsigned long long)fault);
			uint32_t w = (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 |
				     (uint32_t)b[3] << 24;
			g_array_append_val(out, w);
		}
	}
	return true;
}

static bool asm_method(scn_exec *x, const scn_pline *pl)
{
	cs_diag dd;
	cs_diag_clear(&dd);
	uint32_t m;
	if (!cs_registry_resolve_method(x->ai->arch, x->bind.cls[pl->subch], pl->subch, pl->method,
					&m, &dd))
		return scn_fail_at(x, pl->method_loc, "%s", dd.msg);
	if (pl->kind == SCN_PL_IMM) {
		uint32_t v;
		if (!scn_eval32(x, pl->vals[0].expr, &v))
			return false;
		if (v > CS_PB_MAX_IMMD)
			return scn_fail_at(x, pl->vals[0].loc,
					   "immediate value 0x%x does not fit 13 bits (at most 8191)", v);
		emit(x, cs_pb_immd(pl->subch, m, v));
		cs_binding_note(&x->bind, pl->subch, m, v);
		return true;
	}
	GArray *vals = g_array_new(FALSE, FALSE, sizeof(uint32_t));
	bool ok = expand_vals(x, pl, vals);
	uint32_t n = vals->len;
	if (ok && (n == 0 || n > CS_PB_MAX_COUNT))
		ok = scn_fail_at(x, pl->loc, "%u data dwords: a method header holds 1..%u", n,
				 CS_PB_MAX_COUNT);
	if (ok && pl->kind == SCN_PL_INC && m + 4ull * (n - 1) > CS_PB_MAX_METHOD)
		ok = scn_fail_at(x, pl->loc, "%u incrementing dwords from 0x%x run past the last method "
				 "0x%x", n, m, CS_PB_MAX_METHOD);
	if (ok && pl->kind == SCN_PL_ONCE && n > 1 && m + 4 > CS_PB_MAX_METHOD)
		ok = scn_fail_at(x, pl->loc, "increment-once from 0x%x runs past the last method", m);
	if (ok) {
		uint32_t h = pl->kind == SCN_PL_INC    ? cs_pb_inc(pl->subch, m, n)
			     : pl->kind == SCN_PL_NINC ? cs_pb_noninc(pl->subch, m, n)
						       : cs_pb_oneinc(pl->subch, m, n);
		emit(x, h);
		for (uint32_t i = 0; i < n; i++) {
			uint32_t w = g_array_index(vals, uint32_t, i);
			uint32_t mi = pl->kind == SCN_PL_INC ? m + 4 * i
				      : pl->kind == SCN_PL_NINC ? m
				      : (i ? m + 4 : m);
			emit(x, w);
			cs_binding_note(&x->bind, pl->subch, mi, w);
		}
	}
	g_array_free(vals, TRUE);
	return ok;
}

static bool emit_seq(scn_exec *x, scn_loc loc, const cs_gr_seq *seq)
{
	uint32_t buf[CS_GR_SEQ_MAX_CMDS + CS_GR_SEQ_MAX_DATA];
	cs_diag dd;
	cs_diag_clear(&dd);
	size_t n = cs_gr_seq_encode(seq, buf, sizeof(buf) / sizeof(buf[0]), &dd);
	if (n == 0)
		return scn_fail_with(x, loc, "sequence", &dd);
	for (size_t i = 0; i < n; i++)
		emit(x, buf[i]);
	for (unsigned c = 0; c < seq->ncmds; c++) {
		const cs_gr_cmd *cmd = &seq->cmds[c];
		for (uint32_t i = 0; i < cmd->count && cmd->first + i < seq->ndata; i++) {
			uint32_t mi = cmd->op == CS_SECOP_INC ? cmd->method + 4 * i
				      : cmd->op == CS_SECOP_ONEINC && i ? cmd->method + 4
									: cmd->method;
			cs_binding_note(&x->bind, cmd->subch, mi, seq->data[cmd->first + i]);
		}
	}
	return true;
}

/* SET_OBJECT of the arch's class of `kind` on subch unless one is bound there. */
static void ensure_bound(scn_exec *x, uint32_t subch, cs_class_kind kind, uint32_t cls)
{
	uint32_t bound = x->bind.cls[subch];
	if (bound && cs_class_kind_of(bound) == kind)
		return;
	emit(x, cs_pb_inc(subch, CS_FE_M_SET_OBJECT, 1));
	emit(x, cls);
	cs_binding_note(&x->bind, subch, CS_FE_M_SET_OBJECT, cls);
}

/* A kernel's local memory per thread as the QMD states it: rounded up to 16 (the
 * V05 field's granule, the finest of the three layouts). */
static uint64_t local_per_thread(const cs_kernel_info *k)
{
	return ((uint64_t)k->local_bytes + 15) & ~15ull;
}

/* The local-memory region a launch of k needs, rounded the way tinygrad's ops_nv.py
 * (_ensure_has_local_memory) rounds its own: per thread to 32, a warp's 32
 * threads to 0x200, the region to 0x20000. tinygrad sizes for 64 TPCs x 96
 * warps; chainsim has no SM count, so the warps here are every warp of the grid
 * (all of them resident at once at most). 0 when k needs none; UINT64_MAX when
 * the region would pass 2^40 bytes. */
static uint64_t local_region_bytes(const cs_kernel_info *k, const uint64_t grid[3],
				   const uint64_t block[3])
{
	uint64_t per_thread = ((uint64_t)k->local_bytes + 31) & ~31ull;
	if (per_thread == 0)
		return 0;
	const uint64_t limit = 1ull << 40;
	uint64_t per_warp = (per_thread * 32 + 0x1ff) & ~0x1ffull;
	uint64_t warps_per_cta = (block[0] * block[1] * block[2] + 31) / 32; /* 16-bit dims */
	uint64_t per_cta = per_warp * warps_per_cta;
	uint64_t total = per_cta;
	for (unsigned i = 0; i < 3; i++) {
		if (grid[i] && total > limit / grid[i])
			return UINT64_MAX;
		total *= grid[i];
	}
	return (total + 0x1ffff) & ~0x1ffffull;
}

/* args=@NAME: parameter p (a struct by value, any size) is the first p->size
 * bytes of alloc NAME as memory holds them when the launch is assembled. */
static bool arg_bytes_of(scn_exec *x, const scn_expr *name, const cs_kernel_param *p, uint8_t *dst)
{
	scn_sym *sym = g_hash_table_lookup(x->s->syms, name->name);
	if (!sym || sym->kind != SCN_SYM_ALLOC || sym->is_push)
		return scn_fail_at(x, name->loc, "@%s: not an alloc defined here", name->name);
	if (sym->size < p->size)
		return scn_fail_at(x, name->loc, "@%s is %llu bytes; parameter %u is %u", name->name,
				   (unsigned long long)sym->size, p->ordinal, p->size);
	uint64_t fault;
	if (!cs_mem_read(x->mem, sym->va, dst, p->size, &fault))
		return scn_fail_at(x, name->loc, "@%s: cannot read 0x%llx", name->name,
				   (unsigned long long)fault);
	return true;
}

/* What the driver does for a cooperative launch: refuse a grid larger than
 * the modelled GPU holds at once, with the numbers, and set up the grid
 * workspace L.ws (a u32 size, 8, and the u32 barrier word, 0). */
static bool cooperative_workspace(scn_exec *x, const scn_pline *pl, const cs_kernel_info *k,
				  const uint64_t grid[3], const uint64_t block[3], uint64_t dyn,
				  uint64_t *ws_va)
{
	uint64_t threads = block[0] * block[1] * block[2], ctas = grid[0] * grid[1] * grid[2];
	uint64_t shared = k->shared_static + dyn;
	cs_coresidency cr;
	cs_arch_coresident(x->ai->arch, threads > UINT32_MAX ? UINT32_MAX : (uint32_t)threads, k->regs,
			   shared > UINT32_MAX ? UINT32_MAX : (uint32_t)shared, &cr);
	if (ctas > cr.ctas)
		return scn_fail_at(x, pl->loc,
				   "cooperative launch of %s: %llu CTAs do not fit the modelled %s at "
				   "once, which holds %u SMs x %u CTAs = %llu (%s)",
				   k->name, (unsigned long long)ctas, cs_arch_gpu(x->ai->arch)->model,
				   cr.sms, cr.ctas_per_sm, (unsigned long long)cr.ctas, cr.bound);
	char name[200];
	snprintf(name, sizeof(name), "%s.ws", pl->launch_name);
	const uint8_t ws[8] = { 8 };
	if (!new_region(x, pl->loc, name, sizeof(ws), 8, ws_va) ||
	    !mem_write(x, pl->loc, *ws_va, ws, sizeof(ws)))
		return false;
	scn_sym *sym = sym_add(x, name, SCN_SYM_ALLOC);
	sym->va = *ws_va;
	sym->size = sizeof(ws);
	return true;
}

/* The launch whose QMD is at qmd_va is cooperative: told to the executor, as
 * a driver's cooperative launch call tells it, and to the watcher. */
static bool declare_cooperative(scn_exec *x, uint64_t qmd_va, uint64_t ws_va, cs_diag *d)
{
	if (x->cooperative && !x->cooperative(x->host, qmd_va, ws_va, d))
		return false;
	if (x->tap && x->tap->cooperative)
		x->tap->cooperative(x->tap->ctx, qmd_va, ws_va);
	return true;
}

static bool asm_launch(scn_exec *x, const scn_dir *push, const scn_pline *pl)
{
	scn_expr ke = { .kind = SCN_EX_NAME, .loc = pl->kernel_loc, .name = pl->kernel };
	const cs_kernel_info *k;
	uint64_t code;
	if (!resolve_kernel(x, &ke, &k, &code))
		return false;
	uint64_t grid[3], block[3], dyn;
	for (unsigned i = 0; i < 3; i++)
		if (!scn_eval_or(x, pl->grid[i], 1, &grid[i]) || !scn_eval_or(x, pl->block[i], 1, &block[i]))
			return false;
	if (!scn_eval_or(x, pl->shared, 0, &dyn))
		return false;
	if (pl->nargs != k->nparams)
		return scn_fail_at(x, pl->loc, "kernel '%s' takes %zu parameters; args= gives %u",
				   k->name, k->nparams, pl->nargs);
	/* constant bank 0: the parameters at param_base per the module's layout */
	uint64_t cb_size = k->cbank0_size;
	if (cb_size < (uint64_t)k->param_base + k->param_bytes)
		cb_size = (uint64_t)k->param_base + k->param_bytes;
	cb_size = (cb_size + 15) & ~15ull;
	if (cb_size == 0)
		cb_size = 16;
	uint8_t *cb = g_malloc0(cb_size);
	bool ok = true;
	for (size_t i = 0; ok && i < k->nparams; i++) {
		const cs_kernel_param *p = &k->params[i];
		uint64_t v;
		if (p->ordinal >= pl->nargs) {
			ok = scn_fail_at(x, pl->loc, "parameter ordinal %u out of range", p->ordinal);
			break;
		}
		const scn_expr *a = pl->args[p->ordinal];
		uint64_t at = (uint64_t)k->param_base + p->offset;
		if (at + p->size > cb_size) {
			ok = scn_fail_at(x, a->loc, "parameter %u lies outside constant bank 0", p->ordinal);
			break;
		}
		if (pl->arg_bytes && pl->arg_bytes[p->ordinal]) {
			ok = arg_bytes_of(x, a, p, cb + at);
			continue;
		}
		if (!scn_eval(x, a, &v)) {
			ok = false;
			break;
		}
		if (p->size != 1 && p->size != 2 && p->size != 4 && p->size != 8) {
			ok = scn_fail_at(x, a->loc,
					 "parameter %u is %u bytes; a number sets 1, 2, 4 or 8 "
					 "(@NAME passes the bytes of alloc NAME)",
					 p->ordinal, p->size);
			break;
		}
		if (!fits_bits(v, p->size * 8)) {
			ok = scn_fail_at(x, a->loc, "argument 0x%llx does not fit parameter %u (%u bytes)",
					 (unsigned long long)v, p->ordinal, p->size);
			break;
		}
		for (unsigned b = 0; b < p->size; b++)
			cb[at + b] = (uint8_t)(v >> (8 * b));
	}
	char name[200];
	uint64_t cb_va = 0, sem_va = 0, qmd_va = 0;
	if (ok) {
		snprintf(name, sizeof(name), "%s.cb0", pl->launch_name);
		ok = new_region(x, pl->loc, name, cb_size, 256, &cb_va) &&
		     mem_write(x, pl->loc, cb_va, cb, cb_size);
		if (ok) {
			scn_sym *sym = sym_add(x, name, SCN_SYM_ALLOC);
			sym->va = cb_va;
			sym->size = cb_size;
		}
	}
	g_free(cb);
	if (!ok)
		return false;
	snprintf(name, sizeof(name), "%s.sem", pl->launch_name);
	if (!new_region(x, pl->loc, name, 16, 16, &sem_va))
		return false;
	scn_sym *sem = sym_add(x, name, SCN_SYM_ALLOC);
	sem->va = sem_va;
	sem->size = 16;

	cs_qmd q;
	cs_diag dd;
	cs_diag_clear(&dd);
	uint64_t shared = k->shared_static + dyn;
	const uint64_t v_program = code, v_cb[2] = { cb_va, cb_size }, v_rel[2] = { sem_va, 1 };
	if (!cs_qmd_init(&q, cs_class_qmd_major(x->ai->compute_class), &dd) ||
	    !cs_qmd_set_key(&q, "program", &v_program, 1, &dd) ||
	    !cs_qmd_set_key(&q, "grid", grid, 3, &dd) || !cs_qmd_set_key(&q, "block", block, 3, &dd) ||
	    !cs_qmd_set_key(&q, "shared", &shared, 1, &dd) ||
	    !cs_qmd_set_key(&q, "cbank0", v_cb, 2, &dd) ||
	    !cs_qmd_set_key(&q, "release0", v_rel, 2, &dd))
		return scn_fail_with(x, pl->loc, "launch QMD", &dd);
	uint64_t regs = k->regs, bars = k->barriers;
	if (regs && !cs_qmd_set_key(&q, "regs", &regs, 1, &dd))
		return scn_fail_with(x, pl->loc, "launch QMD", &dd);
	if (bars && !cs_qmd_set_key(&q, "barriers", &bars, 1, &dd))
		return scn_fail_with(x, pl->loc, "launch QMD", &dd);
	/* Local memory (a stack frame): L.local, SET_SHADER_LOCAL_MEMORY_A/B and the
	 * QMD's per-thread size; a kernel without one assembles as before. */
	uint64_t local_va = 0, local_bytes = local_region_bytes(k, grid, block);
	if (local_bytes == UINT64_MAX)
		return scn_fail_at(x, pl->loc,
				   "kernel '%s' needs %u bytes of local memory per thread: for this "
				   "grid that passes 2^40 bytes",
				   k->name, k->local_bytes);
	if (local_bytes) {
		uint64_t per_thread = local_per_thread(k);
		if (!cs_qmd_set_key(&q, "SHADER_LOCAL_MEMORY_LOW_SIZE", &per_thread, 1, &dd))
			return scn_fail_with(x, pl->loc, "launch QMD", &dd);
		snprintf(name, sizeof(name), "%s.local", pl->launch_name);
		if (!new_region(x, pl->loc, name, local_bytes, 0x20000, &local_va))
			return false;
		scn_sym *lsym = sym_add(x, name, SCN_SYM_ALLOC);
		lsym->va = local_va;
		lsym->size = local_bytes;
	}
	uint64_t ws_va = 0;
	if (pl->cooperative && !cooperative_workspace(x, pl, k, grid, block, dyn, &ws_va))
		return false;
	snprintf(name, sizeof(name), "%s.qmd", pl->launch_name);
	if (!place_qmd(x, pl->loc, name, &q, !pl->inline_path, &qmd_va))
		return false;
	if (pl->cooperative && !declare_cooperative(x, qmd_va, ws_va, &dd))
		return scn_fail_with(x, pl->loc, "cooperative launch", &dd);
	char detail[256];
	snprintf(detail, sizeof(detail), "QMD %s for launch '%s' of %s (%s path, pushbuffer '%s')",
		 q.layout->name, pl->launch_name, k->name, pl->inline_path ? "inline" : "PCAS",
		 push->name);
	record_build(x, qmd_va, q.layout->bytes, q.layout->major, detail);

	ensure_bound(x, 1, CS_CLASS_COMPUTE, x->ai->compute_class);
	cs_gr_launch_opts o = {
		.arch = x->ai->arch,
		.cls = x->bind.cls[1],
		.subch = 1,
		.path = pl->inline_path ? CS_GR_PATH_INLINE : CS_GR_PATH_PCAS,
		.qmd_addr = qmd_va,
		.qmd = &q,
		.pcas_action = 0,
		.invalidate_caches = true,
		.local_addr = local_va,
	};
	cs_gr_seq seq;
	if (!cs_gr_launch_methods(&o, &seq, &dd))
		return scn_fail_with(x, pl->loc, "launch", &dd);
	return emit_seq(x, pl->loc, &seq);
}

static bool asm_copy(scn_exec *x, const scn_pline *pl)
{
	uint64_t dst, src, len, sa = 0, sv = 0;
	if (!scn_eval(x, pl->vals[0].expr, &dst) || !scn_eval(x, pl->vals[1].expr, &src) ||
	    !scn_eval(x, pl->vals[2].expr, &len))
		return false;
	if (len == 0 || len > 0xffffffffull)
		return scn_fail_at(x, pl->vals[2].loc, "copy length %llu out of range (1..0xffffffff)",
				   (unsigned long long)len);
	if (pl->sem_addr) {
		if (!scn_eval(x, pl->sem_addr, &sa) || !scn_eval(x, pl->sem_value, &sv))
			return false;
	} else {
		char name[200];
		snprintf(name, sizeof(name), "%s.sem", pl->launch_name);
		if (!new_region(x, pl->loc, name, 16, 16, &sa))
			return false;
		scn_sym *sem = sym_add(x, name, SCN_SYM_ALLOC);
		sem->va = sa;
		sem->size = 16;
		sv = 1;
	}
	ensure_bound(x, 4, CS_CLASS_COPY, x->ai->copy_class);
	cs_gr_copy_opts o = {
		.arch = x->ai->arch,
		.cls = x->bind.cls[4],
		.subch = 4,
		.dst = dst,
		.src = src,
		.len = (uint32_t)len,
		.release = true,
		.sem_addr = sa,
		.sem_payload = sv,
	};
	cs_gr_seq seq;
	cs_diag dd;
	cs_diag_clear(&dd);
	if (!cs_gr_copy_methods(&o, &seq, &dd))
		return scn_fail_with(x, pl->loc, "copy", &dd);
	return emit_seq(x, pl->loc, &seq);
}

static bool asm_semaphore(scn_exec *x, const scn_pline *pl)
{
	uint64_t addr, v;
	if (!scn_eval(x, pl->sem_addr, &addr) || !scn_eval(x, pl->sem_value, &v))
		return false;
	if (!pl->sem64 && v > 0xffffffffull)
		return scn_fail_at(x, pl->sem_value->loc,
				   "value 0x%llx does not fit 32 bits; add u64 for a 64-bit semaphore",
				   (unsigned long long)v);
	/* SEM_ADDR_LO/HI by the host class's fields: the upper part's width is the class's */
	unsigned bits = x->sem_addr_bits;
	if ((addr & 3) || addr >> bits)
		return scn_fail_at(x, pl->sem_addr->loc,
				   "semaphore address 0x%llx does not fit SEM_ADDR_LO/HI of %04X "
				   "(4-byte aligned, below 2^%u)",
				   (unsigned long long)addr, x->ai->host_class, bits);
	bool rel = pl->kind == SCN_PL_RELEASE;
	emit(x, cs_pb_inc(0, CS_FE_M_SEM_ADDR_LO, 5));
	emit(x, cs_field_addr_put(x->sem_addr_lo, 0, addr));
	emit(x, cs_field_addr_put(x->sem_addr_hi, 0, addr));
	emit(x, CS_FE_PUT(sem_payload, PAYLOAD, v));
	emit(x, CS_FE_PUT(sem_payload, PAYLOAD, v >> 32)); /* the payload's upper half */
	emit(x, cs_fe_sem_execute(rel ? CS_FE_SEM_RELEASE : CS_FE_SEM_ACQUIRE, pl->sem64, false,
				  pl->sem_wfi, CS_FE_RED_IMIN, false));
	return true;
}

static bool do_push(scn_exec *x, const scn_dir *dir)
{
	x->pb = g_array_new(FALSE, FALSE, sizeof(uint32_t));
	bool ok = true;
	unsigned methods = 0;
	for (unsigned i = 0; ok && i < dir->nlines; i++) {
		const scn_pline *pl = &dir->lines[i];
		switch (pl->kind) {
		case SCN_PL_INC:
		case SCN_PL_NINC:
		case SCN_PL_ONCE:
		case SCN_PL_IMM:
			ok = asm_method(x, pl);
			methods++;
			break;
		case SCN_PL_RAW: {
			GArray *vals = g_array_new(FALSE, FALSE, sizeof(uint32_t));
			ok = expand_vals(x, pl, vals);
			for (unsigned k = 0; ok && k < vals->len; k++)
				emit(x, g_array_index(vals, uint32_t, k));
			g_array_free(vals, TRUE);
			break;
		}
		case SCN_PL_BIND: {
			uint32_t cls;
			ok = scn_eval32(x, pl->vals[0].expr, &cls);
			if (ok && cls > 0xffff)
				ok = scn_fail_at(x, pl->vals[0].loc, "class 0x%x is wider than 16 bits", cls);
			if (ok)
				x->bind.cls[pl->subch] = cls;
			break;
		}
		case SCN_PL_LAUNCH:
			ok = asm_launch(x, dir, pl);
			break;
		case SCN_PL_COPY:
			ok = asm_copy(x, pl);
			break;
		case SCN_PL_RELEASE:
		case SCN_PL_ACQUIRE:
			ok = asm_semaphore(x, pl);
			break;
		}
	}
	if (ok && x->pb->len > CS_GP_MAX_LENGTH)
		ok = scn_fail_at(x, dir->loc, "pushbuffer '%s' is %u dwords, more than one GPFIFO entry "
				 "holds (%u)", dir->name, x->pb->len, CS_GP_MAX_LENGTH);
	uint64_t va = 0;
	uint32_t n = x->pb->len;
	if (ok)
		ok = new_region(x, dir->end_loc, dir->name, n ? 4ull * n : 4, 256, &va);
	if (ok) {
		uint8_t *bytes = g_malloc(4ull * n + 4);
		for (uint32_t i = 0; i < n; i++) {
			uint32_t w = g_array_index(x->pb, uint32_t, i);
			for (unsigned b = 0; b < 4; b++)
				bytes[4 * i + b] = (uint8_t)(w >> (8 * b));
		}
		ok = mem_write(x, dir->end_loc, va, bytes, 4ull * n);
		g_free(bytes);
	}
	if (ok) {
		scn_sym *sym = sym_add(x, dir->name, SCN_SYM_ALLOC);
		sym->va = va;
		sym->size = n ? 4ull * n : 4;
		sym->is_push = true;
		sym->dwords = n;
		char detail[160];
		snprintf(detail, sizeof(detail), "pushbuffer '%s': %u dwords, %u method lines",
			 dir->name, n, methods);
		record_build(x, va, n, 0, detail);
	}
	g_array_free(x->pb, TRUE);
	x->pb = NULL;
	return ok;
}

/* ---- GPFIFO, submission, waits --------------------------------------------- */

void scn_outcome_init(cs_expect_outcome *o, const scn_dir *dir)
{
	memset(o, 0, sizeof(*o));
	o->line = dir->loc.line;
	snprintf(o->text, sizeof(o->text), "%s", dir->text ? dir->text : "");
}

bool scn_expect_mem(scn_exec *x, const scn_dir *dir, cs_expect_outcome *o)
{
	uint64_t va;
	unsigned sz;
	if (!values_place(x, dir, &va, &sz))
		return false;
	if (x->tap && x->tap->expect_mem)
		x->tap->expect_mem(x->tap->ctx, va, (uint64_t)sz * dir->nvals);
	unsigned bad = 0;
	o->held = true;
	for (unsigned i = 0; i < dir->nvals; i++) {
		uint8_t want[8], got[8];
		uint64_t fault;
		uint64_t at = va + (uint64_t)i * sz;
		if (!encode_value(x, dir, i, want))
			return false;
		if (!cs_mem_read(x->mem, at, got, sz, &fault)) {
			o->held = false;
			snprintf(o->detail, sizeof(o->detail), "0x%llx is not mapped",
				 (unsigned long long)fault);
			return true;
		}
		bool same = memcmp(want, got, sz) == 0;
		double fw = 0, fg = 0;
		if (dir->type == SCN_T_F32) {
			float a, b;
			memcpy(&a, want, 4);
			memcpy(&b, got, 4);
			fw = a;
			fg = b;
		} else if (dir->type == SCN_T_F64) {
			memcpy(&fw, want, 8);
			memcpy(&fg, got, 8);
		}
		if (!same && dir->has_tol && fabs(fw - fg) <= dir->ftol)
			same = true;
		if (same)
			continue;
		if (bad++ == 0) {
			uint64_t w = 0, g = 0;
			for (unsigned b = 0; b < sz; b++) {
				w |= (uint64_t)want[b] << (8 * b);
				g |= (uint64_t)got[b] << (8 * b);
			}
			if (dir->type == SCN_T_F32 || dir->type == SCN_T_F64)
				snprintf(o->detail, sizeof(o->detail),
					 "value %u at 0x%llx is %.9g (0x%llx), expected %.9g (0x%llx)", i,
					 (unsigned long long)at, fg, (unsigned long long)g, fw,
					 (unsigned long long)w);
			else
				snprintf(o->detail, sizeof(o->detail),
					 "value %u at 0x%llx is 0x%llx, expected 0x%llx", i,
					 (unsigned long long)at, (unsigned long long)g,
					 (unsigned long long)w);
		}
	}
	if (bad) {
		o->held = false;
		size_t used = strlen(o->detail);
		if (bad > 1 && used < sizeof(o->detail))
			snprintf(o->detail + used, sizeof(o->detail) - used, " (%u of %u values differ)",
				 bad, dir->nvals);
	}
	return true;
}

/* ---- driving ---------------------------------------------------------------- */

/* Directives whose effect comes later (the arch is read at the start,
 * expectations are evaluated at the end). */
static bool takes_effect_elsewhere(scn_exec *x, const scn_dir *dir)
{
	(void)x;
	(void)dir;
	return true;
}

/* The directives that place memory, by kind; the rest are the host's. */
static bool (*const memory_directive[])(scn_exec *x, const scn_dir *dir) = {
	[SCN_D_ARCH] = takes_effect_elsewhere,
	[SCN_D_EXPECT_MEM] = takes_effect_elsewhere,
	[SCN_D_EXPECT_STAGE] = takes_effect_elsewhere,
	[SCN_D_EXPECT_BREAK] = takes_effect_elsewhere,
	[SCN_D_EXPECT_COMPLETE] = takes_effect_elsewhere,
	[SCN_D_EXPECT_CAUSE] = takes_effect_elsewhere,
	[SCN_D_ALLOC] = do_alloc,
	[SCN_D_DATA] = do_data,
	[SCN_D_FILL] = do_fill,
	[SCN_D_LOAD] = do_load,
	[SCN_D_MODULE] = do_module,
	[SCN_D_QMD] = do_qmd,
	[SCN_D_PUSH] = do_push,
	[SCN_D_RANDOM] = do_random,
};

bool scn_exec_memory(scn_exec *x, const scn_dir *dir, bool *handled)
{
	size_t kind = (size_t)dir->kind;
	bool (*run)(scn_exec *, const scn_dir *) =
		kind < sizeof(memory_directive) / sizeof(memory_directive[0]) ? memory_directive[kind] : NULL;
	*handled = run != NULL;
	return run ? run(x, dir) : true;
}

void scn_exec_begin(scn_exec *x, cs_scenario *s, const cs_arch_info *ai, cs_mem *mem, cs_diag *d)
{
	cs_diag_clear(d);
	scn_exec_reset(s);
	s->syms = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, sym_free);
	s->outcomes = g_array_new(FALSE, TRUE, sizeof(cs_expect_outcome));
	memset(x, 0, sizeof(*x));
	x->s = s;
	x->mem = mem;
	x->ai = ai;
	x->d = d;
	cs_binding_init(&x->bind, ai->arch);
	const cs_class_desc *host = cs_fe_host_class(ai->host_class);
	x->sem_addr_lo = cs_class_addr_field(host, "SEM_ADDR", CS_FE_M_SEM_ADDR_LO);
	x->sem_addr_hi = cs_class_addr_field(host, "SEM_ADDR", CS_FE_M_SEM_ADDR_HI);
	x->sem_addr_bits = cs_class_addr_bits(host, "SEM_ADDR");
}

bool scn_assemble(cs_scenario *s, cs_mem *mem, cs_diag *d)
{
	scn_exec x;
	scn_exec_begin(&x, s, cs_arch_get(s->arch), mem, d);
	for (unsigned i = 0; i < s->ndirs; i++) {
		const scn_dir *dir = &s->dirs[i];
		bool handled;
		if (!scn_exec_memory(&x, dir, &handled))
			return false;
		if (!handled || dir->host_at)
			return scn_fail_at(&x, dir->loc, "'%s' needs a device", dir->text);
	}
	return true;
}

const scn_sym *scn_symbol(const cs_scenario *s, const char *name)
{
	return s->syms ? g_hash_table_lookup(s->syms, name) : NULL;
}

bool cs_scenario_symbol(const cs_scenario *s, const char *name, uint64_t *va, uint64_t *size)
{
	const scn_sym *sym = scn_symbol(s, name);
	if (!sym || sym->kind != SCN_SYM_ALLOC)
		return false;
	if (va)
		*va = sym->va;
	if (size)
		*size = sym->is_push ? 4ull * sym->dwords : sym->size;
	return true;
}

size_t cs_scenario_expect_count(const cs_scenario *s)
{
	return s->outcomes ? s->outcomes->len : 0;
}

const cs_expect_outcome *cs_scenario_expect(const cs_scenario *s, size_t i)
{
	if (!s->outcomes || i >= s->outcomes->len)
		return NULL;
	return &g_array_index(s->outcomes, cs_expect_outcome, i);
}

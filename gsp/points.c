/* SPDX-License-Identifier: MIT */
/* Breakpoints and watchpoints of the GSP machine as ranged Unicorn hooks:
 * a code hook on one address, memory hooks on a range. A hook records what
 * it saw in the machine's hit and stops the emulation; run.c turns that into
 * a stop. */
#include <inttypes.h>
#include <string.h>

#include "gsp_internal.h"

static void bp_cb(uc_engine *uc, uint64_t addr, uint32_t size, void *user)
{
	(void)size;
	gsp_hookctx *c = user;
	cs_gsp *m = c->m;
	gsp_point *p = &m->pt[c->slot];
	if (!p->used)
		return;
	if (m->skip_armed && addr == m->skip_pc) {
		m->skip_armed = false;
		return;
	}
	if (m->hit.set)
		return;
	p->hits++;
	m->hit.set = true;
	m->hit.from_mem = false;
	m->hit.reason = CS_GSP_STOP_BREAK;
	m->hit.id = p->id;
	m->hit.addr = addr;
	uc_emu_stop(uc);
}

void gsp_hit_from_mem(cs_gsp *m, cs_gsp_stop_reason reason, int id, uint64_t addr, int size,
		      bool is_write, int64_t value)
{
	m->hit.set = true;
	m->hit.from_mem = true;
	m->hit.block_pc = gsp_block_pc(m);
	m->hit.reason = reason;
	m->hit.id = id;
	m->hit.addr = addr;
	m->hit.size = (uint32_t)size;
	m->hit.is_write = is_write;
	m->hit.value = (uint64_t)value;
	m->hit.old_value = 0;
	if (is_write && size > 0 && size <= 8)
		uc_mem_read(m->uc, addr, &m->hit.old_value, (size_t)size);
	uc_emu_stop(m->uc);
}

static void wp_cb(uc_engine *uc, uc_mem_type type, uint64_t addr, int size, int64_t value, void *user)
{
	(void)uc;
	gsp_hookctx *c = user;
	cs_gsp *m = c->m;
	gsp_point *p = &m->pt[c->slot];
	bool is_write = type == UC_MEM_WRITE;
	if (!p->used || m->watch_suppress || (m->watch_reads_suppressed && !is_write) || m->hit.set)
		return;
	if (is_write && !(p->kind & CS_GSP_WATCH_WRITE))
		return;
	if (!is_write && !(p->kind & CS_GSP_WATCH_READ))
		return;
	if (!is_write && size > 0 && size <= 8) {
		value = 0;
		uc_mem_read(m->uc, addr, &value, (size_t)size);
	}
	p->hits++;
	gsp_hit_from_mem(m, CS_GSP_STOP_WATCH, p->id, addr, size, is_write, value);
}

static int free_slot(cs_gsp *m, cs_diag *d)
{
	for (int i = 0; i < GSP_POINTS_MAX; i++)
		if (!m->pt[i].used)
			return i;
	cs_diag_set(d, CS_ERR_INPUT, "more than %d breakpoints and watchpoints", GSP_POINTS_MAX);
	return -1;
}

static cs_status point_add(cs_gsp *m, bool watch, uint64_t addr, uint64_t len,
			   cs_gsp_watch_kind kind, bool temporary, bool internal, int *id, cs_diag *d)
{
	int slot = free_slot(m, d);
	if (slot < 0)
		return CS_ERR_INPUT;
	if (len == 0 || addr + len - 1 < addr) {
		cs_diag_set(d, CS_ERR_INPUT, "range 0x%" PRIx64 " + %" PRIu64 " is empty or wraps", addr, len);
		return CS_ERR_INPUT;
	}
	gsp_hookctx *c = &m->hctx[slot];
	c->m = m;
	c->slot = slot;
	gsp_point *p = &m->pt[slot];
	memset(p, 0, sizeof(*p));
	uc_err e;
	if (watch) {
		int types = 0;
		if (kind & CS_GSP_WATCH_WRITE)
			types |= UC_HOOK_MEM_WRITE;
		if (kind & CS_GSP_WATCH_READ)
			types |= UC_HOOK_MEM_READ;
		e = uc_hook_add(m->uc, &p->hook, types, GSP_CB(wp_cb), c, addr, addr + len - 1);
	} else {
		e = uc_hook_add(m->uc, &p->hook, UC_HOOK_CODE, GSP_CB(bp_cb), c, addr, addr);
	}
	if (e != UC_ERR_OK) {
		cs_diag_set(d, CS_ERR_INTERNAL, "unicorn hook: %s", uc_strerror(e));
		return CS_ERR_INTERNAL;
	}
	if (watch)
		gsp_mem_hook_added(m);
	else
		gsp_drop_translations(m, addr, 1);
	p->used = true;
	p->is_watch = watch;
	p->temporary = temporary;
	p->internal = internal;
	p->id = internal ? -(slot + 1) : m->next_id++;
	p->addr = addr;
	p->len = len;
	p->kind = kind;
	if (id)
		*id = p->id;
	return CS_OK;
}

static void point_free(cs_gsp *m, gsp_point *p)
{
	uc_hook_del(m->uc, p->hook);
	p->used = false;
	if (p->is_watch)
		gsp_mem_hook_removed(m);
	else
		gsp_drop_translations(m, p->addr, 1);
}

void gsp_point_retire_temporary(cs_gsp *m, int id)
{
	for (int i = 0; i < GSP_POINTS_MAX; i++)
		if (m->pt[i].used && m->pt[i].id == id && m->pt[i].temporary)
			point_free(m, &m->pt[i]);
}

cs_status cs_gsp_break_add(cs_gsp *m, uint64_t addr, bool temporary, int *id, cs_diag *d)
{
	return point_add(m, false, addr, 1, 0, temporary, false, id, d);
}

cs_status cs_gsp_watch_add(cs_gsp *m, uint64_t addr, uint64_t len, cs_gsp_watch_kind kind, int *id,
			   cs_diag *d)
{
	return point_add(m, true, addr, len, kind, false, false, id, d);
}

bool gsp_point_by_gdb(const cs_gsp *m, int id)
{
	for (int i = 0; i < GSP_POINTS_MAX; i++)
		if (m->pt[i].used && m->pt[i].id == id)
			return m->pt[i].by_gdb;
	return false;
}

cs_status cs_gsp_point_delete(cs_gsp *m, int id, cs_diag *d)
{
	for (int i = 0; i < GSP_POINTS_MAX; i++)
		if (m->pt[i].used && m->pt[i].id == id) {
			point_free(m, &m->pt[i]);
			return CS_OK;
		}
	cs_diag_set(d, CS_ERR_INPUT, "no breakpoint or watchpoint %d", id);
	return CS_ERR_INPUT;
}

void cs_gsp_point_delete_all(cs_gsp *m)
{
	for (int i = 0; i < GSP_POINTS_MAX; i++)
		if (m->pt[i].used && !m->pt[i].internal)
			point_free(m, &m->pt[i]);
}

cs_status cs_gsp_break_remove_at(cs_gsp *m, uint64_t addr, cs_diag *d)
{
	for (int i = 0; i < GSP_POINTS_MAX; i++)
		if (m->pt[i].used && !m->pt[i].is_watch && !m->pt[i].internal && m->pt[i].addr == addr) {
			point_free(m, &m->pt[i]);
			return CS_OK;
		}
	cs_diag_set(d, CS_ERR_INPUT, "no breakpoint at 0x%" PRIx64, addr);
	return CS_ERR_INPUT;
}

cs_status cs_gsp_watch_remove_at(cs_gsp *m, uint64_t addr, uint64_t len, cs_gsp_watch_kind kind,
				 cs_diag *d)
{
	for (int i = 0; i < GSP_POINTS_MAX; i++)
		if (m->pt[i].used && m->pt[i].is_watch && m->pt[i].addr == addr && m->pt[i].len == len &&
		    m->pt[i].kind == kind) {
			point_free(m, &m->pt[i]);
			return CS_OK;
		}
	cs_diag_set(d, CS_ERR_INPUT, "no watchpoint at 0x%" PRIx64, addr);
	return CS_ERR_INPUT;
}

void cs_gsp_points_print(cs_gsp *m, FILE *out)
{
	int n = 0;
	for (int i = 0; i < GSP_POINTS_MAX; i++) {
		gsp_point *p = &m->pt[i];
		if (!p->used || p->internal)
			continue;
		char sym[128];
		cs_gsp_symbolize(m, p->addr, sym, sizeof(sym));
		if (p->is_watch) {
			static const char *const k[4] = { "", "watch", "rwatch", "awatch" };
			fprintf(out, "%-3d %-7s 0x%" PRIx64 " len %" PRIu64 " <%s> hits %" PRIu64 "\n", p->id,
				k[p->kind], p->addr, p->len, sym, p->hits);
		} else
			fprintf(out, "%-3d %-7s 0x%" PRIx64 " <%s> hits %" PRIu64 "\n", p->id,
				p->temporary ? "tbreak" : "break", p->addr, sym, p->hits);
		n++;
	}
	if (!n)
		fprintf(out, "no breakpoints or watchpoints\n");
}

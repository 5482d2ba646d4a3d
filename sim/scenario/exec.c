/* SPDX-License-Identifier: MIT */
/* The scenario executor: directives take effect on the device in file order,
 * as a guest program would act (the memory side is asm.c's). Expectations are
 * evaluated at the end, after cs_device_finish, from memory and from
 * cs_report_build. */
#include <stdio.h>
#include <string.h>

#include "chainsim/device.h"
#include "chainsim/ptxrun.h"
#include "chainsim/pushbuf.h"
#include "chainsim/fe.h"
#include "chainsim/gr.h"
#include "chainsim/report.h"
#include "chainsim/rewrite.h"
#include "../report/fit.h"
#include "scn.h"

#define DEV(x) ((cs_device *)(x)->host)

static scn_sym *sym_at(scn_exec *x, uint64_t va)
{
	const cs_region *r = cs_mem_region_at(x->mem, va);
	if (!r)
		return NULL;
	GHashTableIter it;
	gpointer key, val;
	g_hash_table_iter_init(&it, x->s->syms);
	while (g_hash_table_iter_next(&it, &key, &val)) {
		scn_sym *sym = val;
		if (sym->kind == SCN_SYM_ALLOC && sym->va == r->va)
			return sym;
	}
	return NULL;
}

#define TAP(x, fn, ...) do { if ((x)->tap && (x)->tap->fn) (x)->tap->fn((x)->tap->ctx, __VA_ARGS__); } while (0)

static bool gpfifo_push(scn_exec *x, uint32_t lo, uint32_t hi, cs_diag *dd)
{
	TAP(x, gpfifo, x->channel, lo, hi);
	return cs_device_gpfifo_push(DEV(x), x->channel, lo, hi, dd);
}

static bool do_gpfifo(scn_exec *x, const scn_dir *dir)
{
	uint64_t addr, len = 0;
	if (!scn_eval(x, dir->addr, &addr))
		return false;
	if (addr & 3)
		return scn_fail_at(x, dir->addr->loc, "pushbuffer address 0x%llx is not dword aligned",
				   (unsigned long long)addr);
	if (addr >> 40)
		return scn_fail_at(x, dir->addr->loc, "pushbuffer address 0x%llx is wider than the "
				   "entry's 40 bits", (unsigned long long)addr);
	if (dir->len) {
		if (!scn_eval(x, dir->len, &len))
			return false;
	} else {
		scn_sym *sym = sym_at(x, addr);
		if (!sym)
			return scn_fail_at(x, dir->addr->loc, "0x%llx is in no alloc; give a length "
					   "(gpfifo ADDR,LEN)", (unsigned long long)addr);
		uint64_t bytes = sym->is_push ? 4ull * sym->dwords : sym->size;
		uint64_t off = addr - sym->va;
		len = off < bytes ? (bytes - off) / 4 : 0;
	}
	if (len == 0 || len > CS_GP_MAX_LENGTH)
		return scn_fail_at(x, dir->len ? dir->len->loc : dir->addr->loc,
				   "entry length %llu dwords out of range (1..%u; a control entry is "
				   "gpfifo-raw)", (unsigned long long)len, CS_GP_MAX_LENGTH);
	cs_gp_entry e = { .addr = addr, .length = (uint32_t)len, .sync = dir->sync };
	uint32_t lo, hi;
	cs_gp_encode(&e, &lo, &hi);
	cs_diag dd;
	cs_diag_clear(&dd);
	if (!gpfifo_push(x, lo, hi, &dd))
		return scn_fail_with(x, dir->loc, "gpfifo", &dd);
	return true;
}

/* alloc NAME SIZE host=H: the allocation's pages seen by the host at H. */
static bool alloc_window(scn_exec *x, const scn_dir *dir)
{
	uint64_t host;
	if (!scn_eval(x, dir->host_at, &host))
		return false;
	const scn_sym *sym = scn_symbol(x->s, dir->name);
	if (!sym)
		return scn_fail_at(x, dir->loc, "internal error: alloc '%s' was not placed", dir->name);
	uint64_t pages = (sym->size + CS_PAGE_SIZE - 1) & ~(uint64_t)(CS_PAGE_SIZE - 1);
	cs_diag dd;
	cs_diag_clear(&dd);
	if (!cs_device_map_host(DEV(x), sym->va, host, pages, &dd))
		return scn_fail_with(x, dir->host_at->loc, "alloc host=", &dd);
	return true;
}

static bool do_map(scn_exec *x, const scn_dir *dir)
{
	uint64_t guest, host, size;
	if (!scn_eval(x, dir->lo, &guest) || !scn_eval(x, dir->hi, &host) ||
	    !scn_eval(x, dir->size, &size))
		return false;
	cs_diag dd;
	cs_diag_clear(&dd);
	if (!cs_device_map_host(DEV(x), guest, host, size, &dd))
		return scn_fail_with(x, dir->loc, "map", &dd);
	return true;
}

/* Whether one of the arch's host, compute or copy classes has the method. */
static bool method_known(const cs_arch_info *ai, const char *name)
{
	const cs_class_desc *cls[] = { cs_fe_host_class(ai->host_class),
				       cs_gr_class(ai->compute_class), cs_gr_class(ai->copy_class) };
	uint32_t off;
	for (size_t i = 0; i < sizeof(cls) / sizeof(cls[0]); i++)
		if (cls[i] && cs_class_method_named(cls[i], name, &off))
			return true;
	return false;
}

static bool rewrite_line(scn_exec *x, cs_rewrite *rw, const scn_rline *rl)
{
	uint64_t v;
	switch (rl->kind) {
	case SCN_RW_RELOCATE:
		cs_rewrite_relocate(rw, true);
		return true;
	case SCN_RW_KEEP:
		for (unsigned i = 0; i < rl->naddrs; i++)
			if (!cs_rewrite_keep_guest(rw, rl->addrs[i]))
				return scn_fail_at(x, rl->addr_locs[i],
						   "keep: unknown address '%s'; expected PUSHBUFFER or an "
						   "address the class and QMD tables name (docs/scenario.md)",
						   rl->addrs[i]);
		return true;
	case SCN_RW_DROP:
	case SCN_RW_REPLACE: {
		if (!method_known(x->ai, rl->method))
			return scn_fail_at(x, rl->method_loc, "no method '%s' in %s's host, compute or "
					   "copy class", rl->method, x->ai->name);
		uint32_t data = 0;
		if (rl->kind == SCN_RW_REPLACE && !scn_eval32(x, rl->value, &data))
			return false;
		bool ok = rl->kind == SCN_RW_DROP ? cs_rewrite_drop_named(rw, rl->subch, rl->method)
						  : cs_rewrite_replace_named(rw, rl->subch, rl->method, data);
		return ok || scn_fail_at(x, rl->loc, "out of memory adding a rewrite rule");
	}
	case SCN_RW_PRELUDE: {
		if (!scn_eval(x, rl->value, &v))
			return false;
		scn_sym *sym = sym_at(x, v);
		if (!sym || !sym->is_push || sym->va != v || sym->dwords == 0)
			return scn_fail_at(x, rl->value->loc, "prelude: expected the name of a push "
					   "block with methods");
		uint32_t *dw = g_new(uint32_t, sym->dwords);
		bool ok = cs_mem_read(x->mem, sym->va, dw, 4ull * sym->dwords, NULL) &&
			  cs_rewrite_prelude(rw, dw, sym->dwords);
		g_free(dw);
		return ok || scn_fail_at(x, rl->loc, "prelude: the push block cannot be read");
	}
	case SCN_RW_SKEW:
		if (!scn_eval(x, rl->value, &v))
			return false;
		if (!cs_rewrite_skew(rw, rl->addrs[0], (int64_t)v))
			return scn_fail_at(x, rl->addr_locs[0],
					   "skew: unknown address '%s'; expected PUSHBUFFER or an "
					   "address the class and QMD tables name (docs/scenario.md)",
					   rl->addrs[0]);
		return true;
	case SCN_RW_MERGE:
		cs_rewrite_merge(rw, true);
		return true;
	case SCN_RW_SPLIT:
		if (!scn_eval(x, rl->value, &v))
			return false;
		if (v < 2 || v > CS_GP_MAX_LENGTH)
			return scn_fail_at(x, rl->value->loc, "split: %llu dwords out of range (2..%u)",
					   (unsigned long long)v, CS_GP_MAX_LENGTH);
		cs_rewrite_split(rw, (uint32_t)v);
		return true;
	}
	return scn_fail_at(x, rl->loc, "internal error: unknown rewrite line");
}

static void rewrite_free(struct cs_rewrite *rw)
{
	cs_rewrite_free(rw);
}

/* An edit of the rewrite in force that matched nothing is bad input: a test
 * of a rewrite that changed nothing would read green on nothing. */
static bool rewrite_checked(scn_exec *x)
{
	unsigned edit = 0;
	cs_diag dd;
	cs_diag_clear(&dd);
	if (!x->rewrote || cs_rewrite_check(x->s->rewrite, &edit, &dd))
		return true;
	return scn_fail_at(x, x->s->rewrite_locs[edit], "%s", dd.msg);
}

/* The block's rules replace the last block's (whose edits must each have
 * applied); the device applies them to every entry submitted from here on. */
static bool do_rewrite(scn_exec *x, const scn_dir *dir)
{
	if (!rewrite_checked(x))
		return false;
	cs_rewrite *rw = cs_rewrite_new();
	if (!rw)
		return scn_fail_at(x, dir->loc, "out of memory creating the rewrite");
	unsigned most = 0;
	for (unsigned i = 0; i < dir->nrlines; i++)
		most += dir->rlines[i].naddrs + 1;
	scn_loc *locs = scn_alloc(x->s, sizeof(*locs) * (most + 1));
	for (unsigned i = 0; i < dir->nrlines; i++) {
		const scn_rline *rl = &dir->rlines[i];
		unsigned before = cs_rewrite_edits(rw);
		if (!rewrite_line(x, rw, rl)) {
			cs_rewrite_free(rw);
			return false;
		}
		/* keep names one edit per address; every other line is one edit */
		for (unsigned k = before; k < cs_rewrite_edits(rw) && k < most; k++)
			locs[k] = rl->kind == SCN_RW_KEEP || rl->kind == SCN_RW_SKEW
					  ? rl->addr_locs[k - before < rl->naddrs ? k - before : 0]
					  : rl->loc;
	}
	if (x->s->rewrite)
		x->s->rewrite_free(x->s->rewrite);
	x->s->rewrite = rw;
	x->s->rewrite_locs = locs;
	x->rewrote = true;
	x->s->rewrite_free = rewrite_free;
	cs_device_set_forward(DEV(x), cs_rewrite_forward, rw);
	return true;
}

static bool do_directive(scn_exec *x, const scn_dir *dir)
{
	cs_diag dd;
	cs_diag_clear(&dd);
	bool handled;
	if (!scn_exec_memory(x, dir, &handled))
		return false;
	if (handled && dir->kind == SCN_D_ALLOC && dir->host_at)
		return alloc_window(x, dir);
	if (handled)
		return true;
	switch (dir->kind) {
	case SCN_D_CHANNEL: {
		uint64_t entries;
		if (!scn_eval_or(x, dir->entries, 0, &entries))
			return false;
		if (entries > 0xffffffffull)
			return scn_fail_at(x, dir->entries->loc, "entries=%llu out of range",
					   (unsigned long long)entries);
		if (!cs_device_channel(DEV(x), dir->name, (uint32_t)entries, &x->channel, &dd))
			return scn_fail_with(x, dir->loc, "channel", &dd);
		TAP(x, channel, dir->name, x->channel);
		return true;
	}
	case SCN_D_GPFIFO:
		return do_gpfifo(x, dir);
	case SCN_D_MAP:
		return do_map(x, dir);
	case SCN_D_REWRITE:
		return do_rewrite(x, dir);
	case SCN_D_GPFIFO_RAW: {
		uint32_t lo, hi;
		if (!scn_eval32(x, dir->lo, &lo) || !scn_eval32(x, dir->hi, &hi))
			return false;
		if (!gpfifo_push(x, lo, hi, &dd))
			return scn_fail_with(x, dir->loc, "gpfifo-raw", &dd);
		return true;
	}
	case SCN_D_SUBMIT: {
		TAP(x, submit, x->channel);
		bool ok = cs_device_submit(DEV(x), x->channel, &dd);
		if (x->tap && x->tap->ran)
			x->tap->ran(x->tap->ctx);
		if (!ok && dd.status != CS_OK)
			return scn_fail_with(x, dir->loc, "submit", &dd);
		return true;
	}
	case SCN_D_WAIT: {
		uint64_t addr, v;
		if (!scn_eval(x, dir->addr, &addr) || !scn_eval(x, dir->value, &v))
			return false;
		if (!dir->u64 && v > 0xffffffffull)
			return scn_fail_at(x, dir->value->loc, "value 0x%llx does not fit 32 bits; add u64",
					   (unsigned long long)v);
		cs_wait_cmp cmp = dir->geq ? CS_WAIT_GEQ : CS_WAIT_EQ;
		TAP(x, wait, addr, v, dir->u64, cmp);
		cs_device_wait_cmp(DEV(x), addr, v, dir->u64, cmp);
		if (x->tap && x->tap->ran)
			x->tap->ran(x->tap->ctx);
		return true;
	}
	default:
		break;
	}
	return scn_fail_at(x, dir->loc, "internal error: unknown directive");
}

/* ---- expectations ---------------------------------------------------------- */

/* Why an expectation of a chain not observable from some stage fails. */
static void unobservable_detail(const cs_chain *c, const char *lead, cs_expect_outcome *o)
{
	char full[CS_DIAGNOSIS_MAX + 128];
	snprintf(full, sizeof(full), "%s: it is not observable from stage %u (%s) [%s]: %s", lead,
		 (unsigned)c->unobservable, cs_stage_name(c->unobservable), cs_cause_key(c->cause),
		 c->diagnosis);
	cs_report_fit_copy(o->detail, sizeof(o->detail), full);
}

/* The first launch whose grid the simulator did not execute to its end (its
 * stage 9 not observable), or NULL: memory its kernel writes is unknown. */
static const cs_chain *unexecuted_grid(const cs_report *r)
{
	for (size_t k = 0; k < r->nlaunches; k++)
		if (r->launches[k].rows[CS_STAGE_GR_DISPATCH].status == CS_STAGE_NOT_OBSERVABLE)
			return &r->launches[k];
	return NULL;
}

/* expect mem after a grid that was not executed cannot hold: what its
 * kernel would have written is unknown, whatever memory shows. */
static void expect_mem_judged(const cs_report *r, cs_expect_outcome *o)
{
	const cs_chain *c = o->held ? unexecuted_grid(r) : NULL;
	if (!c)
		return;
	o->held = false;
	char full[CS_EVIDENCE_MAX + 128];
	snprintf(full, sizeof(full), "not judged: launch %u's grid was not executed here (stage 9 "
		 "not observable: %s), so what its kernel writes is unknown",
		 c->launch, c->rows[CS_STAGE_GR_DISPATCH].evidence);
	cs_report_fit_copy(o->detail, sizeof(o->detail), full);
}

static void expect_chain(const scn_dir *dir, const cs_report *r, cs_expect_outcome *o)
{
	const cs_chain *c = &r->overall;
	switch (dir->kind) {
	case SCN_D_EXPECT_STAGE: {
		const cs_stage_row *row = &c->rows[dir->stage];
		o->held = row->status == (cs_stage_status)dir->status;
		if (!o->held) {
			char full[CS_EVIDENCE_MAX + 64];
			snprintf(full, sizeof(full), "stage %u (%s) is %s: %s", dir->stage,
				 cs_stage_name((cs_stage)dir->stage), cs_stage_status_name(row->status),
				 row->evidence);
			cs_report_fit_copy(o->detail, sizeof(o->detail), full);
		}
		break;
	}
	case SCN_D_EXPECT_BREAK:
	case SCN_D_EXPECT_COMPLETE: {
		cs_stage want = dir->kind == SCN_D_EXPECT_BREAK ? (cs_stage)dir->stage : CS_STAGE_NONE;
		o->held = c->first_break == want;
		/* a chain not observable from some stage is not complete: it was not judged */
		if (o->held && dir->kind == SCN_D_EXPECT_COMPLETE && c->unobservable != CS_STAGE_NONE) {
			o->held = false;
			unobservable_detail(c, "the chain is not complete", o);
		} else if (!o->held && c->first_break == CS_STAGE_NONE &&
			   c->unobservable != CS_STAGE_NONE)
			unobservable_detail(c, "the chain has no break", o);
		else if (!o->held && c->first_break == CS_STAGE_NONE)
			snprintf(o->detail, sizeof(o->detail), "the chain is complete (no break)");
		else if (!o->held) {
			char full[CS_DIAGNOSIS_MAX + 64];
			snprintf(full, sizeof(full), "the first break is stage %u (%s): %s",
				 (unsigned)c->first_break, cs_stage_name(c->first_break), c->diagnosis);
			cs_report_fit_copy(o->detail, sizeof(o->detail), full);
		}
		break;
	}
	case SCN_D_EXPECT_CAUSE:
		o->held = c->first_break != CS_STAGE_NONE && c->cause == (cs_cause)dir->cause;
		if (!o->held && c->first_break == CS_STAGE_NONE)
			snprintf(o->detail, sizeof(o->detail), "the chain has no break");
		else if (!o->held)
			snprintf(o->detail, sizeof(o->detail), "the first break's cause is %s: %.200s",
				 cs_cause_key(c->cause), c->diagnosis);
		break;
	default:
		break;
	}
}

static bool evaluate_expectations(scn_exec *x)
{
	cs_report *r = NULL;
	bool ok = true;
	for (unsigned i = 0; ok && i < x->s->ndirs; i++) {
		const scn_dir *dir = &x->s->dirs[i];
		cs_expect_outcome o;
		switch (dir->kind) {
		case SCN_D_EXPECT_MEM:
			scn_outcome_init(&o, dir);
			ok = scn_expect_mem(x, dir, &o);
			if (ok && o.held && !r)
				r = cs_report_build(DEV(x));
			if (ok && o.held && !r) {
				cs_diag_set(x->d, CS_ERR_NOMEM, "cannot build the report");
				ok = false;
			}
			if (ok)
				expect_mem_judged(r, &o);
			break;
		case SCN_D_EXPECT_STAGE:
		case SCN_D_EXPECT_BREAK:
		case SCN_D_EXPECT_COMPLETE:
		case SCN_D_EXPECT_CAUSE:
			scn_outcome_init(&o, dir);
			if (!r)
				r = cs_report_build(DEV(x));
			if (!r) {
				cs_diag_set(x->d, CS_ERR_NOMEM, "cannot build the report");
				ok = false;
				break;
			}
			expect_chain(dir, r, &o);
			break;
		default:
			continue;
		}
		if (ok)
			g_array_append_val(x->s->outcomes, o);
	}
	cs_report_free(r);
	return ok;
}

static bool device_cooperative(void *host, uint64_t qmd_va, uint64_t workspace_va, cs_diag *d)
{
	struct cs_ptx_runtime *rt = cs_device_ptx(host);
	return !rt || cs_ptx_runtime_cooperative(rt, qmd_va, workspace_va, d);
}

static void device_record(void *host, const cs_event *ev)
{
	cs_device_record(host, ev);
}

static bool device_module_add(void *host, cs_module *m, cs_diag *d)
{
	struct cs_ptx_runtime *rt = cs_device_ptx(host);
	return !rt || cs_ptx_runtime_add(rt, m, d);
}

/* A trace store that stopped (its limit, or memory) holds an unknown prefix of
 * the run: stop at the directive that overflowed it, before any verdict. */
static bool trace_intact(scn_exec *x, cs_device *dev, scn_loc loc)
{
	cs_diag dd;
	cs_diag_clear(&dd);
	if (cs_device_trace_ok(dev, &dd))
		return true;
	return scn_fail_with(x, loc, "trace", &dd);
}

bool cs_scenario_execute(cs_scenario *s, cs_device *dev, cs_diag *d)
{
	return cs_scenario_execute_tapped(s, dev, NULL, d);
}

bool cs_scenario_execute_tapped(cs_scenario *s, cs_device *dev, const cs_scenario_tap *tap,
				cs_diag *d)
{
	const cs_arch_info *ai = cs_arch_get(cs_device_arch(dev));
	if (!ai || cs_device_arch(dev) != s->arch) {
		cs_diag_at_text(d, CS_ERR_INPUT, s->name, 1, 1,
				"the device is a %s; the scenario is for %s",
				ai ? ai->name : "?", cs_arch_get(s->arch)->name);
		return false;
	}
	scn_exec x;
	scn_exec_begin(&x, s, ai, cs_device_mem(dev), d);
	x.host = dev;
	x.record = device_record;
	x.module_add = device_module_add;
	x.cooperative = device_cooperative;
	x.tap = tap;
	for (unsigned i = 0; i < s->ndirs; i++) {
		if (!do_directive(&x, &s->dirs[i]))
			return false;
		/* a write refused for the host's sake reads like a fault: say what it was */
		if (cs_mem_backing_exhausted(x.mem))
			return scn_fail_backing(&x, s->dirs[i].loc);
		if (!trace_intact(&x, dev, s->dirs[i].loc))
			return false;
	}
	cs_device_finish(dev);
	if (s->ndirs && !trace_intact(&x, dev, s->dirs[s->ndirs - 1].loc))
		return false;
	return rewrite_checked(&x) && evaluate_expectations(&x);
}

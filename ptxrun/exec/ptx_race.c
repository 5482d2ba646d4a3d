/* SPDX-License-Identifier: MIT */
/* The race detector: shared bytes checked against the CTA's shadow, global
 * bytes against the grid's table, and the events and stops a race makes. */
#include "ptx_run.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

/* Whether the pair of PTX lines is new to pairs (then remembered): only the
 * first RACE_PAIRS_MAX distinct pairs are. The worker filters its own races
 * so, and the grid again at commit, in CTA order: what a worker drops was
 * seen earlier in CTA order, so the reports do not depend on the workers. */
bool ptx_race_pair_new(uint32_t pairs[RACE_PAIRS_MAX][2], uint32_t *n, uint32_t other_line,
		       uint32_t line)
{
	for (uint32_t i = 0; i < *n; i++)
		if (pairs[i][0] == other_line && pairs[i][1] == line)
			return false;
	if (*n == RACE_PAIRS_MAX)
		return false;
	pairs[*n][0] = other_line;
	pairs[*n][1] = line;
	(*n)++;
	return true;
}

/* Reports a race between the access at pc and an earlier one at other_pc,
 * once per pair of PTX lines; false when it stops the grid. */
static bool race_report(run *R, warp *w, uint32_t lane, uint32_t pc, uint32_t other_pc, uint64_t at,
			const char *msg)
{
	uint32_t line = R->p->lines[pc], other_line = R->p->lines[other_pc];
	if (!ptx_race_pair_new(R->race_pairs, &R->nrace_pairs, other_line, line))
		return true;
	char detail[CS_DIAG_MSG_MAX + 128];
	snprintf(detail, sizeof(detail), "%s: %s", R->f->name, msg);
	cs_event ev = cs_event_make(CS_EV_RACE, CS_STAGE_GR_DISPATCH, CS_UNIT_SM, R->l->channel);
	ev.launch = R->l->launch;
	ev.addr = at;
	ev.value = cta_linear(R);
	ev.aux = (uint64_t)other_line << 32 | line;
	ev.detail = detail;
	cs_trace_emit(&R->bus->trace, &ev);
	if (R->races != CS_PTX_RACES_ERROR)
		return true;
	ptx_set_error(R, w, pc, "%s", msg);
	R->fault_lane = lane;
	return false;
}

/* A race on shared byte `at` between this access and the one the cell recorded. */
static bool race_found(run *R, warp *w, uint32_t lane, uint32_t pc, uint32_t at, bool write,
		       uint32_t other_pc, uint32_t other_warp, bool other_write)
{
	char who[32];
	if (other_warp == RACE_MANY)
		snprintf(who, sizeof(who), "several warps");
	else
		snprintf(who, sizeof(who), "warp %u", other_warp);
	char msg[CS_DIAG_MSG_MAX];
	snprintf(msg, sizeof(msg),
		 "shared-memory race at offset 0x%x in CTA (%u,%u,%u): %s %s it at PTX line %u, "
		 "then warp %u %s it at PTX line %u, with no barrier between",
		 at, R->cta[0], R->cta[1], R->cta[2], who, other_write ? "wrote" : "read",
		 R->p->lines[other_pc], w->id, write ? "wrote" : "read", R->p->lines[pc]);
	return race_report(R, w, lane, pc, other_pc, at, msg);
}

/* One warp's access to shared bytes [off, off + size): checked against what
 * other warps did since the last barrier, then recorded. */
static bool race_access(run *R, warp *w, uint32_t lane, uint32_t pc, uint64_t off, unsigned size,
			bool write)
{
	uint16_t me = (uint16_t)w->id;
	for (uint64_t b = off; b < off + size && b < R->shared_size; b++) {
		race_cell *c = &R->shadow[b];
		if (c->write_epoch == R->epoch && c->write_warp != me &&
		    !race_found(R, w, lane, pc, (uint32_t)b, write, c->write_pc, c->write_warp, true))
			return false;
		if (write && c->read_epoch == R->epoch && c->read_warp != me &&
		    !race_found(R, w, lane, pc, (uint32_t)b, true, c->read_pc, c->read_warp, false))
			return false;
		if (write) {
			c->write_epoch = R->epoch;
			c->write_warp = me;
			c->write_pc = pc;
		} else {
			c->read_warp = c->read_epoch == R->epoch && c->read_warp != me ? RACE_MANY : me;
			c->read_epoch = R->epoch;
			c->read_pc = pc;
		}
	}
	return true;
}

/* The cell of global byte va, made when new; NULL when out of memory. */
static global_cell *global_cell_of(run *R, uint64_t va)
{
	if (2 * (R->gcount + 1) > R->gcap) {
		size_t ncap = R->gcap ? 2 * R->gcap : 4096;
		global_cell *n = malloc(ncap * sizeof(*n));
		if (!n)
			return NULL;
		for (size_t i = 0; i < ncap; i++)
			n[i] = (global_cell){ .write_cta = RACE_NO_CTA, .read_cta = RACE_NO_CTA };
		for (size_t i = 0; i < R->gcap; i++) {
			const global_cell *c = &R->gcells[i];
			if (c->write_cta == RACE_NO_CTA && c->read_cta == RACE_NO_CTA)
				continue;
			size_t j = (size_t)(c->va * 0x9e3779b97f4a7c15ull >> 20) & (ncap - 1);
			while (n[j].write_cta != RACE_NO_CTA || n[j].read_cta != RACE_NO_CTA)
				j = (j + 1) & (ncap - 1);
			n[j] = *c;
		}
		free(R->gcells);
		R->gcells = n;
		R->gcap = ncap;
	}
	size_t j = (size_t)(va * 0x9e3779b97f4a7c15ull >> 20) & (R->gcap - 1);
	for (;;) {
		global_cell *c = &R->gcells[j];
		if (c->write_cta == RACE_NO_CTA && c->read_cta == RACE_NO_CTA) {
			c->va = va;
			R->gcount++;
			return c;
		}
		if (c->va == va)
			return c;
		j = (j + 1) & (R->gcap - 1);
	}
}

/* Whether an earlier access (CTA cta, warp, epoch) and this one are unordered:
 * another CTA of the grid, or another warp of this CTA since its last barrier. */
static bool global_unordered(const run *R, const warp *w, uint32_t cta, uint32_t warp_id,
			     uint32_t epoch)
{
	if (cta == RACE_NO_CTA)
		return false;
	return cta != (uint32_t)cta_linear(R) || (warp_id != w->id && epoch == R->epoch);
}

static bool global_race(run *R, warp *w, uint32_t lane, uint32_t pc, uint64_t va, bool write,
			uint32_t other_pc, uint32_t other_cta, uint32_t other_warp, bool other_write)
{
	char who[48];
	uint64_t me = cta_linear(R);
	if (other_warp == RACE_MANY)
		snprintf(who, sizeof(who), "several warps");
	else
		snprintf(who, sizeof(who), "warp %u of CTA %u", other_warp, other_cta);
	char msg[CS_DIAG_MSG_MAX];
	snprintf(msg, sizeof(msg),
		 "global-memory race at 0x%" PRIx64 ": %s %s it at PTX line %u, then warp %u of CTA "
		 "%" PRIu64 " %s it at PTX line %u, unordered within the grid",
		 va, who, other_write ? "wrote" : "read", R->p->lines[other_pc], w->id, me,
		 write ? "wrote" : "read", R->p->lines[pc]);
	return race_report(R, w, lane, pc, other_pc, va, msg);
}

/* One warp's access to global bytes [va, va + size). */
static bool global_access(run *R, warp *w, uint32_t lane, uint32_t pc, uint64_t va, unsigned size,
			  bool write)
{
	uint32_t cta = (uint32_t)cta_linear(R);
	for (uint64_t b = va; b < va + size; b++) {
		global_cell *c = global_cell_of(R, b);
		if (!c) {
			ptx_set_error(R, w, pc, "out of memory for the global race detector");
			return false;
		}
		if (global_unordered(R, w, c->write_cta, c->write_warp, c->write_epoch) &&
		    !global_race(R, w, lane, pc, b, write, c->write_pc, c->write_cta, c->write_warp,
				 true))
			return false;
		if (write && global_unordered(R, w, c->read_cta, c->read_warp, c->read_epoch) &&
		    !global_race(R, w, lane, pc, b, true, c->read_pc, c->read_cta, c->read_warp, false))
			return false;
		if (write) {
			c->write_cta = cta;
			c->write_warp = (uint16_t)w->id;
			c->write_epoch = R->epoch;
			c->write_pc = pc;
		} else {
			bool other = c->read_cta != RACE_NO_CTA &&
				     (c->read_cta != cta || c->read_warp != w->id);
			c->read_warp = other ? RACE_MANY : (uint16_t)w->id;
			c->read_cta = cta;
			c->read_epoch = R->epoch;
			c->read_pc = pc;
		}
	}
	return true;
}

/* One lane's access of size bytes at va in space: shared (or generic in the
 * shared window) against the CTA's shadow, global (or generic outside the
 * shared, local and parameter windows) against the grid's when asked. */
bool ptx_race_check_bytes(run *R, warp *w, uint32_t lane, uint32_t pc, int space, uint64_t va,
			  unsigned size, bool write)
{
	if (space == SP_GENERIC) {
		if (va - R->shwin < R->shared_size) {
			space = SP_SHARED;
			va -= R->shwin;
		} else if (va - R->lwin < R->local_size || va - CS_PTX_PARAM_WINDOW < R->param_bytes) {
			return true;
		} else {
			space = SP_GLOBAL;
		}
	}
	if (space == SP_SHARED)
		return !R->shadow || race_access(R, w, lane, pc, (uint32_t)va, size, write);
	if (space == SP_GLOBAL && R->races_global)
		return global_access(R, w, lane, pc, va, size, write);
	return true;
}

/* The shared bytes an ld or st touches, lane by lane; out-of-range lanes are
 * left to the access to fault. */
bool ptx_race_check(run *R, warp *w, const ptx_ins *in, uint32_t pc, uint32_t m, bool write)
{
	unsigned size = ptx_type_bytes((ptx_type)in->t1) * in->aux2;
	const uint64_t *Bs = w->r + (size_t)in->o[0] * PTX_WARP;
	for (uint32_t g = m; g; g &= g - 1) {
		unsigned l = (unsigned)__builtin_ctz(g);
		if (!ptx_race_check_bytes(R, w, l, pc, in->aux, Bs[l] + (uint64_t)in->imm, size, write))
			return false;
	}
	return true;
}

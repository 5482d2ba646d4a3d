/* SPDX-License-Identifier: MIT */
/* The race detector's tables and reports: the grid's table of global bytes
 * and the events and stops a race between two PTX lines makes. */
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
bool ptx_race_shared_found(run *R, warp *w, uint32_t lane, uint32_t pc, uint32_t at, bool write,
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

/* The cell of global byte va, made when new; NULL when out of memory. */
global_cell *ptx_race_global_cell(run *R, uint64_t va)
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

bool ptx_race_global_found(run *R, warp *w, uint32_t lane, uint32_t pc, uint64_t va, bool write,
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

/* SPDX-License-Identifier: MIT */
/* Which launch each trace record belongs to: one slot per launch, by the id
 * the engine gave it or, before that, by the channel's open install. */
#include <glib.h>
#include <stdlib.h>
#include <string.h>

#include "judge.h"

/* ---- one launch, as the records tell it ------------------------------------------ */







static void index_id(judge *j, uint32_t id, size_t slot);

static lslot *slot_new(judge *j, uint32_t id, uint32_t channel, size_t first)
{
	if (j->nslots == j->cap) {
		size_t cap = j->cap ? j->cap * 2 : 16;
		lslot *s = realloc(j->slots, cap * sizeof(*s));
		if (!s)
			return NULL;
		j->slots = s;
		j->cap = cap;
	}
	lslot *s = &j->slots[j->nslots++];
	*s = (lslot){ .id = id, .channel = channel, .install = JG_NONE, .schedule = JG_NONE,
		      .shortq = JG_NONE, .read = JG_NONE, .reject = JG_NONE, .fault_qmd = JG_NONE,
		      .ctx = JG_NONE, .ctx_bad = JG_NONE, .dispatch = JG_NONE, .done = JG_NONE,
		      .not_run = JG_NONE, .fault_grid = JG_NONE, .release = JG_NONE,
		      .fault_release = JG_NONE, .engine_stop = JG_NONE, .dependent = JG_NONE,
		      .host_release = JG_NONE, .first = first };
	if (id != CS_NONE32)
		index_id(j, id, j->nslots - 1);
	return s;
}

static void index_id(judge *j, uint32_t id, size_t slot)
{
	if (id >= ID_INDEX_MAX)
		return;
	if (id >= j->nby_id) {
		size_t n = j->nby_id ? j->nby_id : 64;
		while (n <= id)
			n *= 2;
		size_t *b = realloc(j->by_id, n * sizeof(*b));
		if (!b)
			return;
		memset(b + j->nby_id, 0, (n - j->nby_id) * sizeof(*b));
		j->by_id = b;
		j->nby_id = n;
	}
	j->by_id[id] = slot + 1;
}

lslot *jg_slot_by_id(judge *j, uint32_t id)
{
	if (id < ID_INDEX_MAX) {
		size_t k = id < j->nby_id ? j->by_id[id] : 0;
		return k ? &j->slots[k - 1] : NULL;
	}
	for (size_t i = j->nslots; i-- > 0;)
		if (j->slots[i].id == id)
			return &j->slots[i];
	return NULL;
}

static lslot *slot_open_on(judge *j, uint32_t channel)
{
	if (channel < OPEN_CACHE) {
		size_t k = j->open_on[channel];
		return k && j->slots[k - 1].open ? &j->slots[k - 1] : NULL;
	}
	for (size_t i = j->nslots; i-- > 0;)
		if (j->slots[i].open && j->slots[i].channel == channel)
			return &j->slots[i];
	return NULL;
}

static void set_open(judge *j, lslot *s, bool open)
{
	s->open = open;
	if (s->channel < OPEN_CACHE)
		j->open_on[s->channel] = open ? (size_t)(s - j->slots) + 1 : 0;
}

/* The launch a record belongs to: by its id (adopting the channel's anonymous
 * install when the id is new), else the channel's anonymous launch. */
static lslot *slot_for(judge *j, const cs_event *e, size_t i, bool create)
{
	if (e->launch != CS_NONE32) {
		lslot *s = jg_slot_by_id(j, e->launch);
		if (s)
			return s;
		s = slot_open_on(j, e->channel);
		if (s && s->id == CS_NONE32) {
			s->id = e->launch;
			index_id(j, e->launch, (size_t)(s - j->slots));
			return s;
		}
		return slot_new(j, e->launch, e->channel, i);
	}
	lslot *s = slot_open_on(j, e->channel);
	if (!s && create)
		s = slot_new(j, CS_NONE32, e->channel, i);
	return s;
}

/* The first host release on each launch's channel after its grid ran: with
 * RELEASE_WFI it is ordered after the grid (the front end waits for idle). */
void jg_find_host_releases(judge *j)
{
	/* One pass from the end: per channel, the next host release so far;
	 * a grid's record takes its channel's. */
	size_t *after = malloc((j->n ? j->n : 1) * sizeof(*after));
	GHashTable *next = g_hash_table_new(g_direct_hash, g_direct_equal);
	if (!after || !next) {
		free(after);
		if (next)
			g_hash_table_destroy(next);
		return;
	}
	for (size_t i = j->n; i-- > 0;) {
		const cs_event *e = &j->ev[i];
		gpointer ch = GUINT_TO_POINTER(e->channel);
		if (e->kind == CS_EV_SEM_RELEASE && e->unit == CS_UNIT_FE)
			g_hash_table_insert(next, ch, GSIZE_TO_POINTER(i + 1));
		else if (e->kind == CS_EV_GRID_DONE)
			after[i] = GPOINTER_TO_SIZE(g_hash_table_lookup(next, ch));
	}
	for (size_t k = 0; k < j->nslots; k++) {
		lslot *s = &j->slots[k];
		if (s->done != JG_NONE && j->ev[s->done].kind == CS_EV_GRID_DONE && after[s->done])
			s->host_release = after[s->done] - 1;
	}
	g_hash_table_destroy(next);
	free(after);
}

bool jg_after_wfi(const cs_event *e)
{
	return (e->aux & CS_SEM_RELEASE_AFTER_WFI) != 0;
}

void jg_collect_slots(judge *j)
{
	for (size_t i = 0; i < j->n; i++) {
		const cs_event *e = &j->ev[i];
		lslot *s;
		switch ((cs_event_kind)e->kind) {
		case CS_EV_QMD_INSTALL:
			/* A new install on a channel closes the previous anonymous one. */
			if (e->launch == CS_NONE32 && (s = slot_open_on(j, e->channel)))
				set_open(j, s, false);
			s = slot_for(j, e, i, true);
			if (s) {
				s->install = i;
				set_open(j, s, s->id == CS_NONE32);
			}
			break;
		case CS_EV_QMD_SCHEDULE:
			if ((s = slot_for(j, e, i, true)))
				s->schedule = i;
			break;
		case CS_EV_INLINE_QMD_SHORT:
			if ((s = slot_new(j, CS_NONE32, e->channel, i)))
				s->shortq = i;
			break;
		case CS_EV_QMD_READ:
			if ((s = slot_for(j, e, i, true)))
				s->read = i;
			break;
		case CS_EV_QMD_REJECT:
			if ((s = slot_for(j, e, i, true)))
				s->reject = i;
			break;
		case CS_EV_CTX_LOAD:
			if ((s = slot_for(j, e, i, true)))
				s->ctx = i;
			break;
		case CS_EV_CTX_BAD:
			if ((s = slot_for(j, e, i, true)))
				s->ctx_bad = i;
			break;
		case CS_EV_DISPATCH:
			if ((s = slot_for(j, e, i, true)))
				s->dispatch = i;
			break;
		case CS_EV_GRID_DONE:
			if ((s = slot_for(j, e, i, true)))
				s->done = i;
			break;
		case CS_EV_GRID_NOT_RUN:
			if ((s = slot_for(j, e, i, true)))
				s->not_run = i;
			break;
		case CS_EV_SEM_RELEASE:
			if (e->unit != CS_UNIT_COMPUTE)
				break;
			if (e->launch != CS_NONE32) {
				if ((s = slot_for(j, e, i, true)) && s->release == JG_NONE)
					s->release = i;
				break;
			}
			/* A report semaphore after a grid: the latest launch on the
			 * channel that ran and has no release yet. */
			for (size_t k = j->nslots; k-- > 0;) {
				lslot *c = &j->slots[k];
				if (c->channel == e->channel && c->done != JG_NONE &&
				    c->release == JG_NONE) {
					c->release = i;
					break;
				}
			}
			break;
		case CS_EV_DEPENDENT_QMD:
			if (e->launch != CS_NONE32 && (s = slot_for(j, e, i, false)) &&
			    s->dependent == JG_NONE)
				s->dependent = i;
			break;
		case CS_EV_CHANNEL_STOP:
			/* An engine that stopped the channel at a launch stage: that launch's
			 * failure (the front end's own stop record follows it). */
			if (e->unit != CS_UNIT_COMPUTE && e->unit != CS_UNIT_COPY)
				break;
			if (e->launch != CS_NONE32 && e->stage != CS_STAGE_QMD_INSTALL &&
			    e->stage != CS_STAGE_QMD_READ && e->stage != CS_STAGE_ENGINE_RELEASE) {
				if ((s = slot_for(j, e, i, true)) && s->engine_stop == JG_NONE)
					s->engine_stop = i;
			} else if (e->stage == CS_STAGE_QMD_INSTALL || e->stage == CS_STAGE_QMD_READ) {
				if ((s = slot_for(j, e, i, true)) && s->fault_qmd == JG_NONE)
					s->fault_qmd = i;
			} else if (e->stage == CS_STAGE_ENGINE_RELEASE) {
				if ((s = slot_for(j, e, i, e->launch != CS_NONE32)) &&
				    s->fault_release == JG_NONE)
					s->fault_release = i;
			}
			break;
		case CS_EV_FAULT:
			if (e->unit == CS_UNIT_COMPUTE &&
			    (e->stage == CS_STAGE_QMD_INSTALL || e->stage == CS_STAGE_QMD_READ)) {
				if ((s = slot_for(j, e, i, true)) && s->fault_qmd == JG_NONE)
					s->fault_qmd = i;
			} else if (e->stage == CS_STAGE_GR_DISPATCH || e->unit == CS_UNIT_SM) {
				if ((s = slot_for(j, e, i, e->launch != CS_NONE32)) &&
				    s->fault_grid == JG_NONE)
					s->fault_grid = i;
			} else if (e->stage == CS_STAGE_ENGINE_RELEASE && e->unit == CS_UNIT_COMPUTE) {
				if ((s = slot_for(j, e, i, e->launch != CS_NONE32)) &&
				    s->fault_release == JG_NONE)
					s->fault_release = i;
			}
			break;
		default:
			break;
		}
	}
}

/* SPDX-License-Identifier: MIT */
/* The device's trace store: the records in order in one growing array, their
 * detail text in an arena, both bounded (sim/trace_store.h). */
#include "trace_store.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum {
	ARENA_CHUNK = 64 * 1024,
	TRACE_DETAIL_BYTES = 64u << 20,
};

/* A chunk of the detail-string arena; chunks never move once allocated, so
 * the records' detail pointers stay valid for the store's life. */
struct arena_chunk {
	struct arena_chunk *next;
	size_t used, cap;
	char data[];
};

static void store_stop(trace_store *ts, cs_status st, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void store_stop(trace_store *ts, cs_status st, const char *fmt, ...)
{
	if (ts->stop != CS_OK)
		return;
	ts->stop = st;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(ts->why, sizeof(ts->why), fmt, ap);
	va_end(ap);
}

static const char *arena_strdup(trace_store *ts, const char *s)
{
	size_t len = strlen(s) + 1;
	if (ts->detail_bytes + len > TRACE_DETAIL_BYTES) {
		store_stop(ts, CS_ERR_INPUT, "the trace reached its limit of %zu bytes of detail "
			   "text (%zu records stored)", (size_t)TRACE_DETAIL_BYTES, ts->nevents);
		return NULL;
	}
	arena_chunk *c = ts->arena;
	if (!c || c->cap - c->used < len) {
		size_t cap = len > ARENA_CHUNK ? len : ARENA_CHUNK;
		arena_chunk *n = malloc(sizeof(*n) + cap);
		if (!n) {
			store_stop(ts, CS_ERR_NOMEM, "allocating %zu bytes for trace record %zu's detail "
				   "failed", sizeof(*n) + cap, ts->nevents);
			return NULL;
		}
		n->next = c;
		n->used = 0;
		n->cap = cap;
		ts->arena = n;
		c = n;
	}
	char *out = c->data + c->used;
	memcpy(out, s, len);
	c->used += len;
	ts->detail_bytes += len;
	return out;
}

static void arena_free(arena_chunk *c)
{
	while (c) {
		arena_chunk *n = c->next;
		free(c);
		c = n;
	}
}

/* Whether a window may start at record e: where an entry is fetched or the
 * guest submits, so that no entry, and no launch inside one, is cut in half. */
static bool window_start(const cs_event *e)
{
	return e->kind == CS_EV_GP_FETCH || e->kind == CS_EV_GP_CONTROL || e->kind == CS_EV_GP_PUT;
}

/* A trace_ring store keeps about the newer half of its records, from an entry's
 * start (the whole window when no such start is left: one huge entry); their
 * detail text moves to one new chunk and the old arena is freed. */
static void trace_drop_oldest(trace_store *ts)
{
	size_t drop = ts->nevents / 2 ? ts->nevents / 2 : ts->nevents;
	size_t cut = drop;
	while (cut < ts->nevents && !window_start(&ts->events[cut]))
		cut++;
	if (cut < ts->nevents)
		drop = cut;
	size_t bytes = 0;
	for (size_t i = drop; i < ts->nevents; i++)
		if (ts->events[i].detail)
			bytes += strlen(ts->events[i].detail) + 1;
	arena_chunk *c = malloc(sizeof(*c) + (bytes > ARENA_CHUNK ? bytes : ARENA_CHUNK));
	if (!c) {
		store_stop(ts, CS_ERR_NOMEM, "compacting the trace window (%zu records) failed",
			   ts->nevents);
		return;
	}
	c->next = NULL;
	c->used = 0;
	c->cap = bytes > ARENA_CHUNK ? bytes : ARENA_CHUNK;
	for (size_t i = drop; i < ts->nevents; i++) {
		cs_event *e = &ts->events[i];
		if (!e->detail)
			continue;
		size_t len = strlen(e->detail) + 1;
		memcpy(c->data + c->used, e->detail, len);
		e->detail = c->data + c->used;
		c->used += len;
	}
	arena_free(ts->arena);
	ts->arena = c;
	ts->detail_bytes = c->used;
	memmove(ts->events, ts->events + drop, (ts->nevents - drop) * sizeof(*ts->events));
	ts->nevents -= drop;
	ts->dropped += drop;
}

void trace_store_add(trace_store *ts, const cs_event *ev, uint64_t now_ns)
{
	if (ts->stop != CS_OK)
		return; /* the store stopped: the run ends without a verdict */
	if (ts->ring && ts->nevents &&
	    (ts->nevents == ts->max_events ||
	     (ev->detail && ts->detail_bytes + strlen(ev->detail) + 1 > TRACE_DETAIL_BYTES / 2)))
		trace_drop_oldest(ts);
	if (ts->nevents == ts->max_events) {
		store_stop(ts, CS_ERR_INPUT, "the trace reached its limit of %zu records",
			   ts->max_events);
		return;
	}
	if (ts->nevents == ts->cap_events) {
		size_t cap = ts->cap_events ? ts->cap_events * 2 : 256;
		if (cap > ts->max_events)
			cap = ts->max_events;
		cs_event *n = realloc(ts->events, cap * sizeof(*n));
		if (!n) {
			store_stop(ts, CS_ERR_NOMEM, "growing the trace to %zu records (%zu bytes) "
				   "failed", cap, cap * sizeof(*n));
			return;
		}
		ts->events = n;
		ts->cap_events = cap;
	}
	cs_event *out = &ts->events[ts->nevents++];
	*out = *ev;
	out->seq = ts->next_seq++;
	out->time_ns = now_ns;
	out->detail = ev->detail ? arena_strdup(ts, ev->detail) : NULL;
	if (ev->detail && !out->detail)
		ts->nevents--; /* a record without its detail would mislead: not stored */
}

bool trace_store_ok(const trace_store *ts, cs_diag *d)
{
	if (ts->stop == CS_OK)
		return true;
	if (ts->stop == CS_ERR_NOMEM)
		cs_diag_set(d, CS_ERR_NOMEM, "out of memory: %s; the run stopped without a verdict",
			    ts->why);
	else
		cs_diag_set(d, CS_ERR_INPUT, "%s; the run stopped without a verdict "
			    "(docs/scenario.md, Input limits)", ts->why);
	return false;
}

void trace_store_init(trace_store *ts, size_t max_events, bool ring)
{
	memset(ts, 0, sizeof(*ts));
	ts->max_events = max_events;
	ts->ring = ring;
}

void trace_store_free(trace_store *ts)
{
	free(ts->events);
	arena_free(ts->arena);
}

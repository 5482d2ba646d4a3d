/* SPDX-License-Identifier: MIT */
/* The device's trace store (sim/trace_store.c): the records in order and their
 * detail text, bounded. Private to sim/. */
#ifndef CHAINSIM_SIM_TRACE_STORE_H
#define CHAINSIM_SIM_TRACE_STORE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "chainsim/diag.h"
#include "chainsim/trace.h"

typedef struct arena_chunk arena_chunk;

typedef struct trace_store {
	cs_event *events;
	size_t nevents, cap_events;
	/* The bounded store: past max_events records (or its limit of detail
	 * text) nothing more is stored and stop says why; the scenario runner
	 * stops there before any verdict (cs_device_trace_ok). */
	size_t max_events, detail_bytes;
	bool ring;                /* keep the newer records past the limits (trace_ring) */
	cs_status stop;           /* CS_OK, CS_ERR_INPUT (a limit) or CS_ERR_NOMEM */
	char why[160];
	uint64_t next_seq;
	uint64_t dropped;         /* records a ring store dropped */
	arena_chunk *arena;
} trace_store;

/* An empty store of at most max_events records; ring: past a limit the older
 * half goes instead of the store stopping. */
void trace_store_init(trace_store *ts, size_t max_events, bool ring);
void trace_store_free(trace_store *ts);

/* Stores a copy of ev (its detail text too), numbered and stamped now_ns;
 * nothing once the store has stopped. */
void trace_store_add(trace_store *ts, const cs_event *ev, uint64_t now_ns);

/* True while the store keeps every record; else false, and d says which limit
 * (or which allocation) stopped it. */
bool trace_store_ok(const trace_store *ts, cs_diag *d);

#endif

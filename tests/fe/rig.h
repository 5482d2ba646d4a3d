/* SPDX-License-Identifier: MIT */
/* A test rig for the front end: the suites' shared bus (tests/common: a
 * sparse VA space, the trace recorder), a recording engine port, and helpers
 * that act as the guest (write pushbuffers, ring entries, GP_PUT, ring the
 * doorbell). */
#ifndef FE_TEST_RIG_H
#define FE_TEST_RIG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "bus.h"
#include "chainsim/fe.h"

/* ---- recording engine ---------------------------------------------------- */

typedef enum rec_kind { REC_BIND = 1, REC_METHOD } rec_kind;

typedef struct rec_call {
	rec_kind kind;
	uint32_t channel, subch, cls, method, data, gp_entry, method_index;
	uint64_t data_addr;
} rec_call;

typedef struct rec_engine {
	rec_call *calls;
	size_t n, cap;
	uint32_t refuse_class;   /* bind of this class is refused (0 = none) */
	uint32_t stop_method;    /* a method at this offset stops the channel (0 = none) */
} rec_engine;

cs_engine_port rec_engine_port(rec_engine *e);
void rec_engine_clear(rec_engine *e);
size_t rec_count(const rec_engine *e, rec_kind kind);
/* The nth call of the kind (0-based), NULL when there are fewer. */
const rec_call *rec_nth(const rec_engine *e, rec_kind kind, size_t nth);

typedef test_record rec_event;

/* ---- the rig --------------------------------------------------------------- */

enum { RIG_MAX_CH = 8 };

typedef struct rig {
	cs_arch arch;
	test_bus tb; /* memory, clock and the records (tb.trace) */
	rec_engine eng;
	cs_fe *fe;
	uint32_t nch;
	uint64_t ring[RIG_MAX_CH], userd[RIG_MAX_CH];
	uint32_t entries[RIG_MAX_CH];
	uint32_t put[RIG_MAX_CH];  /* the guest's next ring slot */
	unsigned npb;
} rig;

rig *rig_new(cs_arch arch, cs_trace_level level);
void rig_free(rig *r);
/* A channel with a ring of `entries` and a USERD, both mapped. */
uint32_t rig_channel(rig *r, uint32_t entries);
/* Map n dwords at a fresh region and write them; returns its VA. */
uint64_t rig_pb(rig *r, const uint32_t *dw, size_t n);
/* Write one ring entry at the guest's put slot (GP_PUT not yet written). */
void rig_push_raw(rig *r, uint32_t ch, uint32_t lo, uint32_t hi);
void rig_push(rig *r, uint32_t ch, uint64_t va, uint32_t ndw);
/* Write GP_PUT to USERD and ring the doorbell. */
bool rig_submit(rig *r, uint32_t ch);
cs_fe_run_result rig_run(rig *r);

size_t rig_count(const rig *r, cs_event_kind kind);
const rec_event *rig_nth(const rig *r, cs_event_kind kind, size_t nth);
/* A fresh mapped 4 KiB scratch region (semaphores). */
uint64_t rig_alloc(rig *r, uint64_t size);

/* Pushbuffer building: a growable dword array. */
typedef struct pbuf {
	uint32_t *dw;
	size_t n, cap;
} pbuf;
void pb_put(pbuf *p, uint32_t v);
void pb_inc(pbuf *p, uint32_t subch, uint32_t method, size_t n, const uint32_t *data);
void pb_m(pbuf *p, uint32_t subch, uint32_t method, uint32_t data); /* one INC method */
void pb_release(pbuf *p, uint64_t addr, uint64_t payload, uint32_t execute);
void pb_free(pbuf *p);

#endif

/* SPDX-License-Identifier: MIT */
/* fe/ private: the front end's state, shared by fe.c (channels, fetch,
 * scheduling) and fe_host.c (the host class). */
#ifndef CHAINSIM_FE_INTERNAL_H
#define CHAINSIM_FE_INTERNAL_H

#include "chainsim/fe.h"

enum { FE_ITEMS = 512, FE_BOUNCE_DWORDS = CS_PAGE_SIZE / 4 };

typedef enum fe_exec {
	FE_EXEC_OK = 0,
	FE_EXEC_BLOCK, /* the method ran and blocked the channel (an acquire) */
	FE_EXEC_STOP,  /* the channel stopped */
} fe_exec;

typedef struct fe_chan {
	uint32_t id;
	uint64_t ring_va, userd_va;
	uint32_t ring_entries;
	uint32_t gp_get, gp_put;
	bool stopped, blocked, in_entry, seg_done, decode_failed, block_legacy;
	cs_diag stop;
	cs_diag decode_diag;

	/* the entry in progress */
	uint32_t slot;         /* its ring index (GP_GET when fetched) */
	cs_gp_entry entry;
	uint64_t pb_va;
	uint32_t pos;          /* dwords of it fed to the decoder */
	uint64_t first_dword;  /* the decoder's stream index of its first dword */
	uint32_t method_index; /* index of the method being executed */
	uint32_t item_pos, item_count;
	cs_pb_decoder dec;

	/* host class state */
	uint32_t bound[CS_FE_SUBCHANNELS];
	uint64_t sem_addr;     /* SEM_ADDR_LO/HI's parts, as latched */
	uint32_t payload_lo, payload_hi;
	uint32_t reference;
	uint32_t mem_op[4];
	uint64_t legacy_addr;                  /* SEMAPHOREA/B's parts (C56F) */
	uint32_t legacy_c;                     /* SEMAPHOREC */
	uint64_t ext_base;                     /* address bits 56:40 */
	uint64_t assumed_noted;                /* host method slots already noted */
	uint8_t assumed_semops;                /* SEM_EXECUTE operations already noted */
	cs_fe_block_info block;
	cs_pb_item block_item;                 /* the SEM_EXECUTE that blocked */
	cs_fe_counters ctr;

	cs_pb_item items[FE_ITEMS];
	uint32_t bounce[FE_BOUNCE_DWORDS];     /* when the memory port has no span */
} fe_chan;

struct cs_fe {
	cs_arch arch;
	uint32_t host_cls;
	const cs_class_desc *host;
	const cs_method_desc *host_method[CS_PB_HOST_METHODS / 4]; /* NULL: not in the class */
	uint64_t host_assumed;  /* bit per host method slot in the table by assumption */
	bool has_extended_base;
	const cs_bus *bus;       /* the device's: its memory port may change (a host view) */
	cs_engine_port eng;
	bool has_eng;
	bool tracing, trace_all;
	cs_method_hook_fn hook; /* steppers: called before each method */
	void *hook_ctx;
	uint64_t own_clock;
	uint64_t *now;
	uint32_t nchan;
	fe_chan *chan[CS_FE_MAX_CHANNELS];
	char detail[CS_DIAG_MSG_MAX + 128];
};

static inline void fe_emit(const cs_fe *fe, const cs_event *ev)
{
	if (fe->tracing)
		fe->bus->trace.emit(fe->bus->trace.ctx, ev);
}

/* VA of an item's dword (the data dword; the header for an immediate). */
static inline uint64_t fe_item_va(const fe_chan *c, const cs_pb_item *it)
{
	return c->pb_va + 4u * (it->dword - c->first_dword);
}

/* A record from channel c, with the entry in progress (inline: the hot
 * paths build records in place). */
static inline cs_event fe_event(const fe_chan *c, cs_event_kind kind, cs_stage stage)
{
	cs_event ev = cs_event_make(kind, stage, CS_UNIT_FE, c->id);
	ev.gp_entry = c->in_entry ? c->slot : CS_NONE32;
	return ev;
}

/* ... and with the method an item carries (value = its data). */
static inline cs_event fe_item_event(const cs_fe *fe, const fe_chan *c, cs_event_kind kind,
				     cs_stage stage, const cs_pb_item *it)
{
	cs_event ev = fe_event(c, kind, stage);
	ev.method_index = c->method_index;
	ev.subch = it->subch;
	ev.method = it->method;
	ev.cls = it->method < CS_PB_HOST_METHODS ? fe->host_cls : c->bound[it->subch];
	ev.addr = fe_item_va(c, it);
	ev.value = it->data;
	return ev;
}
/* Stop the channel: fills c->stop (located at the item when given) and emits
 * CHANNEL_STOP. */
void fe_stop(cs_fe *fe, fe_chan *c, cs_stage stage, cs_status st, const cs_pb_item *it,
	     const char *fmt, ...) __attribute__((format(printf, 6, 7)));
/* The same, for a stop whose cause the judge must know (cause.def). */
void fe_stop_for(cs_fe *fe, fe_chan *c, cs_stage stage, cs_cause cause, cs_status st,
		 const cs_pb_item *it, const char *fmt, ...) __attribute__((format(printf, 7, 8)));
void fe_fault(cs_fe *fe, fe_chan *c, cs_stage stage, const cs_pb_item *it, uint64_t va,
	      cs_access acc, const char *what);
bool fe_read(cs_fe *fe, uint64_t va, void *dst, size_t len, uint64_t *fault_va);
bool fe_write(cs_fe *fe, uint64_t va, const void *src, size_t len, uint64_t *fault_va);

/* fe_host.c */
fe_exec fe_host_method(cs_fe *fe, fe_chan *c, const cs_pb_item *it);
bool fe_acquire_met(uint32_t op, uint64_t cur, uint64_t want, bool is64);
const char *fe_acquire_name(uint32_t op, bool legacy);
const char *fe_acquire_relation(uint32_t op);

#endif

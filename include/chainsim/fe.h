/* SPDX-License-Identifier: MIT */
/* The host front end (fe/): host class tables, the streaming pushbuffer
 * decoder, and the front-end object (channels, GPFIFO ring, USERD, doorbell,
 * host methods, semaphores, round-robin scheduling). It talks to the rest of
 * the device only through a cs_bus (memory, trace, clock) and a
 * cs_engine_port (non-host methods); see docs/architecture.md. */
#ifndef CHAINSIM_FE_H
#define CHAINSIM_FE_H

#include "chainsim/api.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "chainsim/arch.h"
#include "chainsim/classdesc.h"
#include "chainsim/diag.h"
#include "chainsim/ports.h"
#include "chainsim/pushbuf.h"
#include "chainsim/trace.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ===================================================================== */
/* Host class tables (include/chainsim/hostclass.def, one X-macro table for C56F, C86F  */
/* and C96F with per-class differences).                                 */
/* ===================================================================== */

/* The table of host class cls (0xC56F, 0xC86F, 0xC96F); NULL when cls is not
 * a host class chainsim models. desc->source names the public header. */
CS_API const cs_class_desc *cs_fe_host_class(uint32_t cls);
/* Whether the host method at offset is in cls's table only by assumption: the
 * public header of cls omits it and chainsim keeps C56F's offset
 * (docs/hardware.md). The front end emits a CS_EV_ASSUMPTION record the first
 * time a channel executes such a method. False for C56F and unknown methods. */
CS_API bool cs_fe_host_method_assumed(uint32_t cls, uint32_t offset);

/* Each host method field's bit range, by field set and name
 * (include/chainsim/hostclass.def): CS_FE_F_<fset>_<NAME>_HI and _LO.
 * CS_FE_GET reads field NAME of a data dword; CS_FE_PUT places value v in it
 * (OR the puts of one dword together). */
enum {
#define CS_F(fs, name, hi, lo, kind, vset) \
	CS_FE_F_##fs##_##name##_HI = hi, CS_FE_F_##fs##_##name##_LO = lo
#define CS_FA(fs, name, hi, lo, addr, shift) CS_F(fs, name, hi, lo, ADDRESS, none)
#define CS_HFS(fs, ...) __VA_ARGS__,
#include "chainsim/hostclass.def"
#undef CS_HFS
#undef CS_FA
#undef CS_F
};
#define CS_FE_GET(fs, name, data) \
	CS_BITS_GET(data, CS_FE_F_##fs##_##name##_HI, CS_FE_F_##fs##_##name##_LO)
#define CS_FE_PUT(fs, name, v) CS_BITS_PUT(CS_FE_F_##fs##_##name##_HI, CS_FE_F_##fs##_##name##_LO, v)

/* Host method byte offsets (the same in C56F, C86F and C96F), generated from
 * include/chainsim/hostclass.def: CS_FE_M_<NAME> for every row C56F has (the
 * row that only widens SEM_ADDR_HI for C86F and C96F adds no constant). */
#define CS_FE_IN_Y(...) __VA_ARGS__
#define CS_FE_IN_A(...) __VA_ARGS__
#define CS_FE_IN_N(...)
#define CS_HM(NAME, off, n, stride, fset, c56, c86, c96) CS_FE_IN_##c56(CS_FE_M_##NAME = off,)
enum {
#include "chainsim/hostclass.def"
};
#undef CS_HM
#undef CS_FE_IN_Y
#undef CS_FE_IN_A
#undef CS_FE_IN_N

/* SEM_EXECUTE.OPERATION (bits 2:0). */
typedef enum cs_fe_sem_op {
	CS_FE_SEM_ACQUIRE = 0,       /* wait for [addr] == payload */
	CS_FE_SEM_RELEASE = 1,
	CS_FE_SEM_ACQ_STRICT_GEQ = 2,/* wait for [addr] >= payload (unsigned) */
	CS_FE_SEM_ACQ_CIRC_GEQ = 3,  /* wait for (signed)([addr] - payload) >= 0 */
	CS_FE_SEM_ACQ_AND = 4,       /* wait for ([addr] & payload) != 0 */
	CS_FE_SEM_ACQ_NOR = 5,       /* wait for ~([addr] | payload) != 0 */
	CS_FE_SEM_REDUCTION = 6,
} cs_fe_sem_op;

/* SEM_EXECUTE.REDUCTION (bits 30:27). REDUCTION_FORMAT (signed or unsigned)
 * decides the compares of IMIN, IMAX, INC and DEC; the rest are bitwise or
 * modular. A 32-bit operation reads and writes 4 bytes, a 64-bit one 8. */
typedef enum cs_fe_red_op {
	CS_FE_RED_IMIN = 0,
	CS_FE_RED_IMAX = 1,
	CS_FE_RED_IXOR = 2,
	CS_FE_RED_IAND = 3,
	CS_FE_RED_IOR = 4,
	CS_FE_RED_IADD = 5,
	CS_FE_RED_INC = 6, /* v >= payload ? 0 : v + 1 */
	CS_FE_RED_DEC = 7, /* v == 0 || v > payload ? payload : v - 1 */
} cs_fe_red_op;

/* Encode a SEM_EXECUTE data dword (for builders and tests). */
static inline uint32_t cs_fe_sem_execute(cs_fe_sem_op op, bool payload64, bool timestamp,
					 bool release_wfi, cs_fe_red_op red, bool is_unsigned)
{
	return CS_FE_PUT(sem_execute, OPERATION, op) | CS_FE_PUT(sem_execute, RELEASE_WFI, release_wfi) |
	       CS_FE_PUT(sem_execute, PAYLOAD_SIZE, payload64 /* 64BIT */) |
	       CS_FE_PUT(sem_execute, RELEASE_TIMESTAMP, timestamp) |
	       CS_FE_PUT(sem_execute, REDUCTION, red) |
	       CS_FE_PUT(sem_execute, REDUCTION_FORMAT, is_unsigned /* UNSIGNED */);
}

CS_API const char *cs_fe_sem_op_name(uint32_t op);  /* "ACQ_STRICT_GEQ"; "?" when out of range */
CS_API const char *cs_fe_red_op_name(uint32_t op);  /* "IADD"; "?" when out of range */
/* SEMAPHORED_D's OPERATION code (1, 2, 4, 8, 16): "ACQ_GEQ"; "?" when none */
CS_API const char *cs_fe_semd_op_name(uint32_t code);
/* "INC", "NONINC", "IMMD", "ONEINC", "END_SEG", and for 0, 2, 6 clc56f.h's
 * "GRP0_USE_TERT", "GRP2_USE_TERT", "RESERVED6". */
CS_API const char *cs_fe_secop_name(uint32_t op);

/* ===================================================================== */
/* Streaming pushbuffer decoder                                           */
/* ===================================================================== */

/* Feed it dwords in any slicing (one GPFIFO entry at a time, a page at a time,
 * or the whole buffer); it writes flat items to a caller array, no allocation.
 * State (a method whose data has not all arrived) carries across calls, so a
 * header that is an entry's last dword takes its data from the next entry.
 *
 * Header dword forms (clc56f.h DMA_*): SEC_OP 1 INC, 3 NONINC, 4 IMMD, 5 ONEINC,
 * 7 END_PB_SEGMENT. SEC_OP 0, 2 and 6 are legacy (TERT_OP) or reserved forms and
 * are diagnosed, except the all-zero dword, which clc56f.h names DMA_NOP and
 * which decodes as a HEADER item with no methods. A header of count 0 is legal
 * and yields a HEADER item and no methods. An INC header whose methods would
 * run past CS_PB_MAX_METHOD, or a ONEINC header at CS_PB_MAX_METHOD with more
 * than one data dword, is diagnosed at the header. */

typedef enum cs_pb_item_kind {
	CS_PB_ITEM_METHOD = 0, /* one method: subch, method, data; dword = the data dword
				  (for IMMD, the header dword) */
	CS_PB_ITEM_HEADER = 1, /* only when the decoder reports headers: data = the raw
				  header dword, subch/method its fields, dword its index */
	CS_PB_ITEM_END_SEG = 2,/* an END_PB_SEGMENT header: the rest of the segment is
				  ignored until cs_pb_decoder_segment() */
	CS_PB_ITEM_SKIPPED = 3,/* only when reporting headers: a dword after END_SEG
				  that the decoder ignored; data = the dword */
} cs_pb_item_kind;

typedef struct cs_pb_item {
	uint64_t dword;   /* index of the dword in the whole stream fed so far */
	uint32_t data;
	uint16_t method;  /* byte offset, <= CS_PB_MAX_METHOD */
	uint8_t subch;
	uint8_t kind;     /* cs_pb_item_kind */
} cs_pb_item;

typedef struct cs_pb_decoder {
	/* the header whose data is still arriving (remaining > 0) */
	uint32_t header;
	uint32_t remaining;   /* data dwords still expected */
	uint32_t method;      /* byte offset the next data dword goes to */
	uint32_t subch;
	uint8_t op;           /* cs_secop of that header */
	bool report_headers;  /* emit HEADER and SKIPPED items (disasm) */
	bool in_end_seg;      /* after END_SEG, before cs_pb_decoder_segment() */
	bool failed;          /* a malformed header was seen; decode returns 0 */
	uint64_t next_dword;  /* index of the next dword to be fed */
	uint64_t header_dword;/* index of `header` */
	uint64_t methods;     /* methods yielded in all */
	uint64_t headers;     /* headers seen in all */
} cs_pb_decoder;

CS_API void cs_pb_decoder_init(cs_pb_decoder *dec, bool report_headers);
/* A new pushbuffer segment (GPFIFO entry) begins: clears END_SEG skipping;
 * a method still waiting for data keeps waiting (its data may follow here). */
CS_API void cs_pb_decoder_segment(cs_pb_decoder *dec);
/* Whether a header still waits for data dwords. */
static inline bool cs_pb_decoder_pending(const cs_pb_decoder *dec) { return dec->remaining != 0; }

/* Decode up to n dwords into at most cap items (cap >= 2). Returns the items
 * written; *consumed gets the dwords used (all n unless out filled up, the
 * decoder failed, or an END_SEG item was written while not reporting headers,
 * in which case decoding stops right after it). On a malformed header it sets
 * dec->failed, writes d (status CS_ERR_INPUT, byte offset = 4 * stream dword
 * index of the header, no file; d may be NULL) and returns the items before
 * it; the failing dword is not consumed. */
CS_API size_t cs_pb_decode(cs_pb_decoder *dec, const uint32_t *dw, size_t n, cs_pb_item *out,
		    size_t cap, size_t *consumed, cs_diag *d);

/* ===================================================================== */
/* Pushbuffer walker                                                      */
/* ===================================================================== */

/* The decoder driven over one buffer of dwords, an item at a time, tracking
 * the class each subchannel's SET_OBJECT binds: the one walk the judge's
 * evidence, the REPL's listing, the rewrite library and the disassembler
 * make. The buffer is one segment: without headers reported the walk ends
 * at an END_SEG item (the front end ignores the rest); with them the
 * skipped dwords follow as SKIPPED items. A header whose data runs past the
 * end leaves the decoder pending (cs_pb_decoder_pending(&w->dec)). */

enum { CS_PB_WALK_CHUNK = 256 };

typedef struct cs_pb_walk {
	cs_pb_decoder dec;
	const uint32_t *dw;
	size_t n;
	size_t fed;               /* dwords the decoder consumed */
	bool ended;               /* an END_SEG ended the walk */
	cs_pb_item chunk[CS_PB_WALK_CHUNK];
	size_t got, next;         /* items in chunk; the next one to yield */
	uint32_t methods;         /* METHOD items yielded */
	/* the class bound on each subchannel (one per CS_FE_SUBCHANNELS, 0 =
	 * none): the caller's start, then each SET_OBJECT's NVCLASS as its
	 * METHOD item is yielded */
	uint32_t bound[8];
	cs_diag diag;             /* the malformed header, once dec.failed */
} cs_pb_walk;

typedef struct cs_pb_step {
	cs_pb_item item;
	uint32_t index; /* METHOD: its index among the buffer's methods (0 first) */
	uint32_t cls;   /* METHOD: the class bound on its subchannel before it (for
			   a SET_OBJECT: the class it replaces) */
} cs_pb_step;

/* Walk dw[0, n); bound: the classes bound when it begins (8, or NULL: none). */
CS_API void cs_pb_walk_begin(cs_pb_walk *w, const uint32_t *dw, size_t n, bool report_headers,
			     const uint32_t *bound);
/* The next item; false at the end of the buffer, after an END_SEG item when
 * headers are not reported, or at a malformed header (w->dec.failed, w->diag
 * names it at its byte offset in the buffer). */
CS_API bool cs_pb_walk_next(cs_pb_walk *w, cs_pb_step *st);
/* From here on subch is bound to cls: for a caller that forwards other data
 * than it walked (a rewrite that edits or drops a SET_OBJECT). */
CS_API void cs_pb_walk_bind(cs_pb_walk *w, uint32_t subch, uint32_t cls);
/* Whether dw[0, n) decodes without a malformed header up to its first
 * END_SEG; false with d (may be NULL) naming the header at its byte offset. */
CS_API bool cs_pb_check(const uint32_t *dw, size_t n, cs_diag *d);

/* ===================================================================== */
/* The front end object                                                   */
/* ===================================================================== */

typedef struct cs_fe cs_fe;

/* Virtual time the front end adds to *bus->now_ns (deterministic costs). */
enum {
	CS_FE_NS_PER_ENTRY = 20,  /* fetching one GPFIFO entry (control entries too) */
	CS_FE_NS_PER_METHOD = 2,  /* executing or forwarding one method */
};

/* Limits. A ring's entry count is a power of two (the hardware's GP_BASE
 * LIMIT2 is a log2), between 2 and CS_FE_MAX_RING_ENTRIES. */
enum {
	CS_FE_MAX_CHANNELS = 64,
	CS_FE_MAX_RING_ENTRIES = 1u << 20,
	CS_FE_SUBCHANNELS = 8,
};

/* engines is copied; bus is not: the fe reads it (its memory port may change,
 * as the device's does when a host view is mapped), so it and the ctx
 * pointers in both must outlive the fe.
 * bus->now_ns may be NULL: the fe then keeps its own clock. engines may be
 * NULL: a SET_OBJECT of an engine class is then accepted and any non-host
 * method stops the channel ("no engine wired"). Returns NULL on a bad arch, a
 * bus whose memory port lacks read, write or mapped (span is optional: the fast
 * path), or out of memory. */
CS_API cs_fe *cs_fe_new(cs_arch arch, const cs_bus *bus, const cs_engine_port *engines);
CS_API void cs_fe_free(cs_fe *fe);

/* A channel: ring of `entries` 8-byte GPFIFO entries at ring_va and a
 * CS_USERD_SIZE-byte USERD at userd_va, both in the bus's memory (the caller
 * maps them). Ids are 0, 1, 2... in creation order. GP_GET starts at 0 and is
 * written to USERD+CS_USERD_GP_GET; GP_PUT is read from USERD+CS_USERD_GP_PUT
 * at each doorbell (the fe does not write it). */
CS_API bool cs_fe_channel_new(cs_fe *fe, uint64_t ring_va, uint32_t entries, uint64_t userd_va,
		       uint32_t *id, cs_diag *d);
CS_API uint32_t cs_fe_channel_count(const cs_fe *fe);

/* The doorbell: the channel reads GP_PUT from its USERD. Reading it does no
 * work (cs_fe_run does). A GP_PUT outside the ring, or an unmapped USERD, stops
 * the channel (CHANNEL_STOP, and FAULT for the USERD) and returns false. */
CS_API bool cs_fe_doorbell(cs_fe *fe, uint32_t ch);

typedef enum cs_fe_chan_state {
	CS_FE_CHAN_IDLE = 0,  /* GP_GET == GP_PUT and no entry in progress */
	CS_FE_CHAN_READY,     /* has work: entries pending or an entry in progress */
	CS_FE_CHAN_BLOCKED,   /* a semaphore acquire is not yet satisfied */
	CS_FE_CHAN_STOPPED,   /* stopped on an error; see cs_fe_channel_info().stop */
} cs_fe_chan_state;

/* "idle", "ready", "blocked", "stopped" */
CS_API const char *cs_fe_chan_state_name(cs_fe_chan_state st);

typedef enum cs_fe_run_end {
	CS_FE_RUN_QUIESCENT = 0, /* every channel idle, blocked or stopped */
	CS_FE_RUN_BUDGET,        /* the entry budget ran out with work left */
} cs_fe_run_end;

typedef struct cs_fe_run_result {
	cs_fe_run_end end;
	uint64_t entries;     /* GPFIFO entries fetched in this run */
	uint32_t idle, ready, blocked, stopped; /* channels in each state at the end */
} cs_fe_run_result;

/* Run the channels round-robin, one GPFIFO entry per turn, in id order; a
 * blocked channel re-reads its semaphore at each of its turns. budget = the
 * most entries fetched in this call (0 = no limit). */
CS_API cs_fe_run_result cs_fe_run(cs_fe *fe, uint64_t budget);
/* Whether cs_fe_run would do anything now: a channel is ready, or blocked on
 * an acquire that memory satisfies now (read without records). */
CS_API bool cs_fe_busy(const cs_fe *fe);

/* One unit of work on one channel, for steppers (the REPL): */
typedef enum cs_fe_step_result {
	CS_FE_STEP_IDLE = 0,   /* nothing to do: GP_GET == GP_PUT */
	CS_FE_STEP_FETCHED,    /* a GPFIFO entry was fetched (a control entry is also done) */
	CS_FE_STEP_METHOD,     /* one method executed (its records emitted) */
	CS_FE_STEP_ENTRY_DONE, /* the entry had no method left: ENTRY_DONE emitted */
	CS_FE_STEP_UNBLOCKED,  /* a blocked acquire is now satisfied */
	CS_FE_STEP_BLOCKED,    /* the channel is (still, or now) blocked on an acquire */
	CS_FE_STEP_STOPPED,    /* the channel is stopped (or ch is not a channel) */
} cs_fe_step_result;

/* Do the next unit of work on channel ch only: fetch an entry, or execute one
 * method, or finish an entry, or re-check a blocked acquire. Mixing steps and
 * cs_fe_run is fine: both act on the same channel state. */
CS_API cs_fe_step_result cs_fe_step(cs_fe *fe, uint32_t ch);

/* The hook called before each method executes (NULL: none; the default). */
CS_API void cs_fe_set_method_hook(cs_fe *fe, cs_method_hook_fn fn, void *ctx);

typedef struct cs_fe_counters {
	uint64_t entries;         /* GPFIFO entries fetched (control entries included) */
	uint64_t control_entries; /* of which length-0 control entries */
	uint64_t methods;         /* methods executed (host) or forwarded (engine) */
	uint64_t host_methods;
	uint64_t engine_methods;
	uint64_t dwords;          /* pushbuffer dwords consumed */
	uint64_t releases;        /* host semaphore releases and reductions */
	uint64_t acquires;        /* satisfied acquires */
	uint64_t blocks;          /* times an acquire blocked the channel */
} cs_fe_counters;

typedef struct cs_fe_block_info {
	uint64_t addr;
	uint64_t wanted;        /* the acquire's payload */
	uint64_t current;       /* the value last read from memory */
	uint32_t op;            /* cs_fe_sem_op */
	bool is64;
	uint32_t gp_entry;      /* where the SEM_EXECUTE came from */
	uint32_t method_index;
} cs_fe_block_info;

typedef struct cs_fe_channel_info {
	cs_fe_chan_state state;
	uint64_t ring_va, userd_va;
	uint32_t ring_entries;
	uint32_t gp_get, gp_put;      /* the fe's view (GP_PUT as of the last doorbell) */
	uint32_t bound[CS_FE_SUBCHANNELS]; /* class bound per subchannel, 0 = none */
	uint64_t pb_extended_base;    /* SET_PB_SEGMENT_EXTENDED_BASE (bits 63:40), Hopper on */
	uint32_t reference;           /* SET_REFERENCE's last value */
	cs_fe_block_info block;       /* valid when state == BLOCKED */
	cs_diag stop;                 /* valid when state == STOPPED */
	cs_fe_counters counters;
} cs_fe_channel_info;

CS_API bool cs_fe_channel_info_get(const cs_fe *fe, uint32_t ch, cs_fe_channel_info *out);
/* STOPPED when ch is bad */
CS_API cs_fe_chan_state cs_fe_channel_state(const cs_fe *fe, uint32_t ch);
/* The diagnosis of a stopped channel; NULL when not stopped. */
CS_API const cs_diag *cs_fe_channel_stop_diag(const cs_fe *fe, uint32_t ch);
/* Counters summed over all channels. */
CS_API cs_fe_counters cs_fe_counters_total(const cs_fe *fe);

/* Emit one CS_EV_DEADLOCK record (unit FE, stage 5) per blocked channel:
 * channel, addr, value = wanted, aux = current (re-read now), detail names the
 * operation and the entry. Returns the number of records emitted. */
CS_API size_t cs_fe_report_deadlocks(cs_fe *fe);

/* Records the front end emits (unit FE), all documented in trace.h:
 *   GP_FETCH (4)   gp_entry = ring slot, addr = pb VA, value = dwords, aux = raw entry
 *   GP_CONTROL (4) gp_entry, value = opcode, aux = raw entry
 *   METHOD (5)     only at CS_TRACE_ALL: gp_entry, method_index, subch, cls, method,
 *                  value = data, addr = VA of the data dword
 *   BIND (5)       subch, cls, method = 0
 *   SEM_ACQUIRE (5) addr, value = wanted (the 32-bit view for 32-bit acquires), aux = op
 *   SEM_BLOCK (5)   addr, value = wanted, aux = the value read; once per block
 *   SEM_RELEASE (5) addr, value = the value written (for a reduction, its result),
 *                   aux = bytes written: 4, 8, or 16 with a timestamp (payload at
 *                   addr, the virtual time *now_ns as 8 bytes at addr + 8; bytes
 *                   4..7 untouched for a 32-bit payload). A 64-bit payload or a
 *                   timestamp wants an 8-byte aligned address, else the channel stops.
 *   HOST_OP (5)     NON_STALL_INTERRUPT, FB_FLUSH, MEM_OP_A..D, WFI, YIELD,
 *                   CLEAR_FAULTED, and at CS_TRACE_ALL only NOP and SET_REFERENCE:
 *                   method, value = data, detail = name (and fields)
 *   ENTRY_DONE (5)  gp_entry, value = methods of the entry
 *   ASSUMPTION      a host method or SEM_EXECUTE operation the class's public header
 *                   omits was executed with clc56f.h's meaning (once per channel),
 *                   or a CRC control entry was not checked
 *   CHANNEL_STOP   stage 4 (ring, USERD, pushbuffer fetch, control entries) or 5
 *                  (malformed pushbuffer, methods); detail = the diagnosis, which
 *                  cs_fe_channel_stop_diag() also returns. The fe emits it also when
 *                  an engine returns CS_ENGINE_STOP (engines emit their FAULT, not a
 *                  CHANNEL_STOP).
 *   FAULT          unit FE, value = CS_ACCESS_FETCH (ring, pushbuffer: stage 4),
 *                  READ/WRITE (USERD: stage 4; semaphores: stage 5) or ATOMIC
 *                  (reductions), addr = the first unmapped VA; then CHANNEL_STOP
 *   DEADLOCK       from cs_fe_report_deadlocks (stage 5).
 * Every record carries channel, gp_entry (CS_NONE32 outside an entry) and, for
 * method records, method_index, subch, cls (the host class for host methods),
 * method and addr (the data dword). */

#ifdef __cplusplus
}
#endif

#endif

/* SPDX-License-Identifier: MIT */
/* The trace is the backbone (docs/architecture.md): every observable event is one
 * typed record with its stage and author. Report, JSON, Perfetto and REPL read
 * records; none of them reaches into engine internals. */
#ifndef CHAINSIM_TRACE_H
#define CHAINSIM_TRACE_H

#include "chainsim/api.h"

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "chainsim/cause.h"
#include "chainsim/stage.h"

#ifdef __cplusplus
extern "C" {
#endif

#define CS_NONE32 UINT32_MAX /* "no launch", "no entry", "no method" in a record */
/* In a host CS_EV_SEM_RELEASE's aux: RELEASE_WFI was set, so the release is
 * ordered after all work the channel handed to its engines before it. */
#define CS_SEM_RELEASE_AFTER_WFI (1ull << 32)
/* In the device's own CS_EV_HOST_FORWARD's aux: value is the count of entries
 * it put on the host's ring. A record without it (a forwarding layer's own
 * account, recorded by hand) counts no entries. */
#define CS_HOST_FORWARD_RING 1ull
/* In a CS_EV_WAIT_BEGIN's aux: the wait compares with >= (CS_WAIT_GEQ), not ==. */
#define CS_WAIT_BEGIN_GEQ (1ull << 32)

/* The unit that produced a record, finer than its author. */
typedef enum cs_unit {
	CS_UNIT_GUEST = 0,
	CS_UNIT_HOST,     /* the forwarding host (stage 3) */
	CS_UNIT_FE,       /* the front end: GPFIFO, pushbuffer decoder, host class */
	CS_UNIT_COMPUTE,  /* the compute class: I2M, QMD, dispatch, report semaphores */
	CS_UNIT_COPY,     /* the copy engine */
	CS_UNIT_SM,       /* the executor running a grid's code */
	CS_UNIT_COUNT
} cs_unit;

typedef enum cs_access {
	CS_ACCESS_READ = 1,
	CS_ACCESS_WRITE,
	CS_ACCESS_ATOMIC,
	CS_ACCESS_FETCH, /* instruction or pushbuffer fetch */
} cs_access;

/* Field use per kind is documented on each kind; unused fields hold CS_NONE32 / 0. */
typedef enum cs_event_kind {
	/* guest (scenario runner) */
	CS_EV_GUEST_BUILD = 1, /* stage 1: a pushbuffer or QMD was built. addr = its base,
				  value = dwords (or bytes for a QMD, aux = qmd major), detail says what */
	CS_EV_GP_PUT,          /* stage 2: GP_PUT written. value = new GP_PUT, aux = old */
	CS_EV_DOORBELL,        /* stage 2: doorbell rung. value = channel's work-submit token */
	CS_EV_HOST_FORWARD,    /* stage 3: host forwarded entries. value = entries, detail = rewrite,
				  aux = CS_HOST_FORWARD_RING on the device's own record */
	/* front end */
	CS_EV_GP_FETCH,        /* stage 4: entry fetched. gp_entry, addr = pb address, value = length
				  in dwords, aux = raw entry (hi << 32 | lo) */
	CS_EV_GP_CONTROL,      /* stage 4: control entry (length 0). value = opcode */
	CS_EV_METHOD,          /* stage 5: one method executed (trace level ALL only). subch, cls,
				  method (byte offset), value = data, addr = address of the data dword */
	CS_EV_BIND,            /* stage 5: SET_OBJECT bound cls on subch */
	CS_EV_SEM_ACQUIRE,     /* stage 5: acquire satisfied. addr, value = wanted, aux = op */
	CS_EV_SEM_BLOCK,       /* stage 5: acquire blocked the channel. addr, value = wanted,
				  aux = current value seen */
	CS_EV_SEM_RELEASE,     /* a semaphore was written. addr, value = payload, aux = bytes
				  written (4, 8, 16), | CS_SEM_RELEASE_AFTER_WFI for a host
				  release that waited for idle first. unit FE: host channel
				  semaphore (stage 5); unit COMPUTE/COPY: engine release (10) */
	CS_EV_HOST_OP,         /* stage 5: WFI, NON_STALL_INTERRUPT, MEM_OP...; NOP and
				  SET_REFERENCE only at CS_TRACE_ALL (they prove nothing).
				  method says which, value = data */
	CS_EV_ENTRY_DONE,      /* stage 5: every method of an entry ran. gp_entry, value = methods */
	CS_EV_CHANNEL_STOP,    /* the channel stopped on an error; detail = the diagnosis */
	/* engines */
	CS_EV_I2M_WRITE,       /* inline-to-memory wrote value bytes at addr */
	CS_EV_QMD_INSTALL,     /* stage 6: a QMD is in memory for launch `launch`. addr = QMD VA,
				  value = bytes, aux = 0 inline path, 1 SEND_PCAS path */
	CS_EV_QMD_SCHEDULE,    /* stage 6: the schedule request. value = PCAS action, aux = path */
	CS_EV_QMD_READ,        /* stage 7: the engine read and accepted the QMD. addr = QMD VA,
				  value = major version */
	CS_EV_QMD_REJECT,      /* stage 7: rejected; detail names field and value; aux = the
				  unmapped program or constant bank address the QMD names, 0
				  when the rejection is about no address */
	CS_EV_CTX_LOAD,        /* stage 8: context valid at dispatch; detail summarizes it */
	CS_EV_CTX_BAD,         /* stage 8: context invalid; detail says why */
	CS_EV_DISPATCH,        /* stage 9 begun: addr = program VA, value = CTAs in the grid */
	CS_EV_CTA_RANGE,       /* CTAs [value, aux) executed */
	CS_EV_GRID_DONE,       /* stage 9 fired: value = CTAs executed, aux = thread instructions,
				  detail = kernel name */
	CS_EV_GRID_NOT_RUN,    /* stage 9 not fired: dispatched, not executed; detail says why */
	CS_EV_COPY,            /* copy engine moved value bytes from aux to addr */
	CS_EV_CACHE_INVALIDATE,/* value = the method's data */
	CS_EV_DEPENDENT_QMD,   /* a QMD's dependent-QMD field chained to addr, aux = action */
	CS_EV_ASSUMPTION,      /* the model took a choice the public facts leave open; detail */
	/* anyone */
	CS_EV_FAULT,           /* addr = faulting VA, value = cs_access, unit = who, detail */
	/* guest wait (stage 11) */
	CS_EV_WAIT_BEGIN,      /* addr, value = wanted, aux = 8 for u64 compares else 4,
				  | CS_WAIT_BEGIN_GEQ for a >= wait (the wait-done or
				  wait-failed after it compares the same way) */
	CS_EV_WAIT_DONE,       /* stage 11 fired: addr, value = value seen, aux = wanted */
	CS_EV_WAIT_FAILED,     /* stage 11 not fired: device idle first. addr, value = seen,
				  aux = wanted */
	CS_EV_DEADLOCK,        /* every channel blocked: channel, addr, value = wanted,
				  aux = current */
	CS_EV_INLINE_QMD_SHORT,/* stage 6 not fired: the guest program ended with an inline QMD
				  short of its size (the engine's finish hook). addr = inline
				  QMD VA, value = dwords received, aux = dwords the QMD needs;
				  gp_entry / method_index of SET_INLINE_QMD_ADDRESS_B */
	CS_EV_PRINTF,          /* stage 9: a thread's device printf. detail = the text printed,
				  value = the CTA's linear index, aux = the thread's linear
				  index in its CTA; in launch, CTA and thread order */
	CS_EV_RACE,            /* stage 9: a data race the executor found (a finding, not a
				  break). addr = the byte (a shared-memory offset), value =
				  the CTA's linear index; detail names the kernel, both PTX
				  lines and accesses, and the two warps; aux = the two PTX
				  lines (earlier << 32 | later) */
	CS_EV_ATOMIC_ORDER,    /* stage 9: a finding, not a break: an atomic that several
				  CTAs ran makes the result depend on the order the CTAs
				  ran in. aux = its PTX line; detail says which and why */
	/* forwarding (stage 3) */
	CS_EV_VIEW_MAP,        /* a window of the host's view: addr = guest, aux = host,
				  value = bytes */
	CS_EV_HOST_EDIT,       /* stage 3: one forwarding edit. subch = its cs_forward_edit,
				  gp_entry = the guest's ring slot, addr = guest, aux = host,
				  value = the edit's value, method = the method edited;
				  cause set when the edit is wrong; detail says what,
				  opening with its target (target_len bytes: "entry 0's
				  RELEASE0_ADDRESS in QMD L.qmd") */
	CS_EV_KIND_COUNT
} cs_event_kind;

typedef struct cs_event {
	uint64_t seq;          /* stamped by the sink */
	uint64_t time_ns;      /* virtual time, stamped by the sink */
	uint16_t kind;         /* cs_event_kind */
	uint8_t stage;         /* cs_stage, 0 when the record is context only */
	uint8_t unit;          /* cs_unit */
	uint16_t cause;        /* cs_cause the record shows, CS_CAUSE_NONE when none */
	uint16_t target_len;   /* the length of detail's opening that names what the
				  record is about (a host edit's target), 0 when none */
	uint32_t channel;
	uint32_t launch;       /* CS_NONE32 when not part of a launch */
	uint32_t gp_entry;     /* the GPFIFO entry index (GP_GET at fetch), CS_NONE32 when none */
	uint32_t method_index; /* the method's index within its entry, CS_NONE32 when none */
	uint32_t subch;
	uint32_t cls;
	uint32_t method;       /* byte offset */
	uint64_t addr;
	uint64_t value;
	uint64_t aux;
	const char *detail;    /* NUL-terminated; the sink copies it; NULL when none */
} cs_event;

typedef enum cs_trace_level {
	CS_TRACE_CHAIN = 0, /* everything except per-method CS_EV_METHOD records */
	CS_TRACE_ALL,       /* also one record per executed method */
} cs_trace_level;

/* What modules emit into. The sink stamps seq and time. */
typedef struct cs_trace_sink {
	void *ctx;
	void (*emit)(void *ctx, const cs_event *ev);
	cs_trace_level level;
} cs_trace_sink;

/* A record with every optional field set to "none"; fill in what applies. */
static inline cs_event cs_event_make(cs_event_kind kind, cs_stage stage, cs_unit unit,
				     uint32_t channel)
{
	cs_event ev;
	memset(&ev, 0, sizeof(ev));
	ev.kind = (uint16_t)kind;
	ev.stage = (uint8_t)stage;
	ev.unit = (uint8_t)unit;
	ev.channel = channel;
	ev.launch = CS_NONE32;
	ev.gp_entry = CS_NONE32;
	ev.method_index = CS_NONE32;
	ev.subch = CS_NONE32;
	ev.cls = CS_NONE32;
	ev.method = CS_NONE32;
	return ev;
}

static inline void cs_trace_emit(const cs_trace_sink *sink, const cs_event *ev)
{
	if (sink && sink->emit)
		sink->emit(sink->ctx, ev);
}

CS_API const char *cs_event_kind_name(cs_event_kind kind); /* "gp-fetch" etc. */
CS_API const char *cs_unit_name(cs_unit unit);             /* "front-end", "compute", ... */
CS_API const char *cs_access_name(cs_access acc);          /* "read", "write", ... */

#ifdef __cplusplus
}
#endif

#endif

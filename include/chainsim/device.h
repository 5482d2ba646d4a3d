/* SPDX-License-Identifier: MIT */
/* A simulated device: memory, trace store (sim/trace_store.c), virtual clock,
 * and the front end, engines and executor wired through their ports
 * (sim/device.c), with the forwarding hook (sim/forward.c). Everything hangs
 * off this object; two devices in one process do not interfere. */
#ifndef CHAINSIM_DEVICE_H
#define CHAINSIM_DEVICE_H

#include "chainsim/api.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "chainsim/arch.h"
#include "chainsim/diag.h"
#include "chainsim/fe.h"
#include "chainsim/mem.h"
#include "chainsim/ports.h"
#include "chainsim/trace.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct cs_device cs_device;

typedef struct cs_device_config {
	cs_arch arch;
	cs_trace_level trace_level;
	bool no_executor;     /* wire no executor: every grid is dispatched, not executed */
	uint64_t run_budget;  /* GPFIFO entries one run may process; 0 = the default */
	/* an executor to wire instead of the PTX runtime (tests and
	 * benchmarks name a fake one as such); NULL = the runtime. Copied. */
	const cs_exec_port *exec_override;
	/* records the trace may hold; 0 = CS_DEVICE_MAX_RECORDS */
	size_t trace_max_records;
	/* past trace_max_records, drop the oldest half of the records and go on
	 * (a live device: the trace is a window of recent records) instead of
	 * stopping the store */
	bool trace_ring;
	/* the executor's budgets apply to each launch alone, not to the sum of
	 * every launch the device ran (a live device runs for hours) */
	bool budget_per_launch;
	/* no "default" channel: every channel is one a client placed
	 * (cs_device_channel_at), and the device maps nothing of its own */
	bool client_channels;
} cs_device_config;

/* The trace holds at most this many records by default (88 bytes each). */
#define CS_DEVICE_MAX_RECORDS ((size_t)1 << 20)

CS_API cs_device *cs_device_new(const cs_device_config *cfg, cs_diag *d);
CS_API void cs_device_free(cs_device *dev);

CS_API cs_arch cs_device_arch(const cs_device *dev);
CS_API cs_mem *cs_device_mem(cs_device *dev);
CS_API const cs_bus *cs_device_bus(const cs_device *dev);
CS_API uint64_t cs_device_now(const cs_device *dev);

/* Stamp and store a record (the guest side uses it for stages 1-3). A
 * forwarding layer that records its edits by hand (CS_EV_HOST_EDIT, or a
 * CS_EV_HOST_FORWARD without CS_HOST_FORWARD_RING) adds evidence; only the
 * device's own record counts the entries on the host's ring. */
CS_API void cs_device_record(cs_device *dev, const cs_event *ev);
CS_API size_t cs_device_event_count(const cs_device *dev);
/* False once the trace store stopped: a limit (CS_ERR_INPUT) or a failed
 * allocation (CS_ERR_NOMEM), each named in d. The records stored are then an
 * unknown prefix of the run: nothing may be judged from them. */
CS_API bool cs_device_trace_ok(const cs_device *dev, cs_diag *d);
CS_API const cs_event *cs_device_event(const cs_device *dev, size_t i);
/* Records a trace_ring device dropped (the oldest, to keep the window). */
CS_API uint64_t cs_device_events_dropped(const cs_device *dev);

/* Channel NAME, created on first use with a GPFIFO ring of `entries` (0 = the
 * default, 1024) and a USERD, both placed in the device's memory. The channel
 * "default" exists from the start as id 0. */
CS_API bool cs_device_channel(cs_device *dev, const char *name, uint32_t entries, uint32_t *id,
		       cs_diag *d);
/* Channel NAME on a ring and USERD the caller placed and mapped (a live
 * client's own): both must be mapped now, the ring `entries` (a power of two
 * in 2..CS_FE_MAX_RING_ENTRIES) 8-byte entries. The device never writes the
 * ring's entries; its front end writes GP_GET to USERD. */
CS_API bool cs_device_channel_at(cs_device *dev, const char *name, uint64_t ring_va,
				 uint32_t entries, uint64_t userd_va, uint32_t *id, cs_diag *d);
CS_API uint32_t cs_device_channel_count(const cs_device *dev);
CS_API const char *cs_device_channel_name(const cs_device *dev, uint32_t ch);

/* The guest writes its next ring entry into the ring (not yet visible to the
 * front end: GP_PUT has not moved). Fails when the ring is full. */
CS_API bool cs_device_gpfifo_push(cs_device *dev, uint32_t ch, uint32_t lo, uint32_t hi,
		cs_diag *d);
/* The guest advances GP_PUT in USERD over its pushed entries and rings the
 * doorbell (stage 2 records), then the device runs until idle or blocked. */
CS_API bool cs_device_submit(cs_device *dev, uint32_t ch, cs_diag *d);
/* The client wrote GP_PUT to the channel's USERD itself and rings the
 * doorbell: the device records stage 2 (GP_PUT as read from USERD, the
 * doorbell) and 3, and the front end reads GP_PUT. No work is done (run does
 * it). False (d set) for a bad channel or a USERD that faults. */
CS_API bool cs_device_doorbell(cs_device *dev, uint32_t ch, cs_diag *d);
/* Run until every channel is idle, blocked or stopped, or the budget ends. */
CS_API void cs_device_run(cs_device *dev);
/* The same with a budget of GPFIFO entries for this call (0: the device's
 * run_budget); the front end's account of how it ended. */
CS_API cs_fe_run_result cs_device_run_entries(cs_device *dev, uint64_t entries);
/* Whether a run would do anything now: a channel has entries or an entry in
 * progress, or is blocked on an acquire that memory now satisfies. */
CS_API bool cs_device_busy(const cs_device *dev);
/* The front end's id of channel ch (for cs_fe_channel_info_get). */
CS_API uint32_t cs_device_channel_fe_id(const cs_device *dev, uint32_t ch);

/* Memory the client owns, read and written in place (cs_mem_map_client's
 * rules), named NAME in reports. */
CS_API bool cs_device_map_client(cs_device *dev, const char *name, void *host, uint64_t size,
				 uint64_t va, cs_diag *d);
/* Unmap a whole region (cs_mem_unmap) and drop what the executor cached from
 * it (PTX parsed from program text there). A channel whose ring, USERD or
 * pushbuffer was there faults at its next access to it. */
CS_API bool cs_device_unmap(cs_device *dev, uint64_t va, uint64_t size, cs_diag *d);
/* How a guest's wait compares the value at its address with the value it
 * wants: equal, or (a timeline semaphore, as tinygrad's ACQ_CIRC_GEQ waits)
 * unsigned greater or equal. */
typedef enum cs_wait_cmp {
	CS_WAIT_EQ = 0,
	CS_WAIT_GEQ = 1,
} cs_wait_cmp;
CS_API const char *cs_wait_cmp_symbol(cs_wait_cmp cmp); /* "==", ">=" */
/* The guest waits for [addr] CMP value (32- or 64-bit compare): runs the
 * device, records stage 11 (wait-begin, then wait-done or wait-failed); true
 * when met. cs_device_wait is the == form. */
CS_API bool cs_device_wait_cmp(cs_device *dev, uint64_t addr, uint64_t value, bool is64,
			       cs_wait_cmp cmp);
CS_API bool cs_device_wait(cs_device *dev, uint64_t addr, uint64_t value, bool is64);
/* End of the guest program: record a deadlock for every channel still blocked.
 * Also (sim/ addition) what only the end of the stream reveals, from the device's
 * watch on the engine methods: an inline QMD short of its size
 * (CS_EV_INLINE_QMD_SHORT), and a SEND_PCAS_A whose QMD is in memory but that no
 * scheduling SEND_SIGNALING_PCAS2_B followed (CS_EV_QMD_INSTALL, unit front end,
 * launch none, aux 1: stage 6 fired, nothing scheduled it). */
CS_API void cs_device_finish(cs_device *dev);

/* Where a channel's ring and USERD live (the device maps them at
 * CS_DEVICE_CHANNEL_BASE + id * CS_DEVICE_CHANNEL_STRIDE, below the scenario's
 * allocations), and the guest's local GP_PUT (entries pushed so far, mod ring). */
#define CS_DEVICE_CHANNEL_BASE 0x100000000ull
#define CS_DEVICE_CHANNEL_STRIDE 0x1000000ull
typedef struct cs_device_chan_view {
	uint64_t ring_va;
	uint32_t entries;
	uint64_t userd_va;
	uint32_t guest_put;    /* the guest's next ring slot */
	uint32_t submitted_put;/* GP_PUT as last written to USERD */
} cs_device_chan_view;
CS_API bool cs_device_channel_view(const cs_device *dev, uint32_t ch, cs_device_chan_view *out);

/* The records as one array (n records); valid until the next record. */
CS_API const cs_event *cs_device_events(const cs_device *dev, size_t *n);
CS_API const cs_device_config *cs_device_config_get(const cs_device *dev);
/* Read device memory without recording anything (reports, tests). */
CS_API bool cs_device_peek(const cs_device *dev, uint64_t va, void *dst, size_t len);

/* ---- views for reports and the REPL: what they read of the front end and
 * the engines, read through the device (none of these records anything) */
/* The most dwords one second look at a pushbuffer reads (4 MiB). */
#define CS_DEVICE_PB_MAX_DWORDS (1u << 20)
/* The dwords of the pushbuffer at va (as cs_device_peek reads memory):
 * malloc'd, or NULL with d saying why, at va: no dwords asked, more than
 * CS_DEVICE_PB_MAX_DWORDS, not mapped, no memory. */
CS_API uint32_t *cs_device_pb_read(const cs_device *dev, uint64_t va, uint32_t dwords, cs_diag *d);
/* The front end's state of channel ch; false for a bad channel. */
CS_API bool cs_device_channel_info(cs_device *dev, uint32_t ch, cs_fe_channel_info *out);
/* The QMD at va as the compute engine would read it (the arch's QMD version,
 * the engines' view of memory); false with *fault the first unmapped
 * address. */
struct cs_qmd;
CS_API bool cs_device_qmd_read(const cs_device *dev, uint64_t va, struct cs_qmd *q, uint64_t *fault);
/* The modules behind the device, for their counters and state queries. */
CS_API struct cs_fe *cs_device_fe(cs_device *dev);
CS_API struct cs_gr *cs_device_gr(cs_device *dev);

/* An address as the scenario names it: "NAME" at the base of a named region,
 * "NAME+0xOFF" inside it (within the size the region was asked for), else
 * "0x..." (hex). Regions are named after the scenario's alloc, push, qmd and
 * launch names (L.sem, L.qmd, L.cb0), the device's own after their channel
 * ("chainsim.ch0.userd"). Writes NUL-terminated text into buf (truncated to
 * len) and returns the length snprintf would have written. */
CS_API size_t cs_device_addr_name(const cs_device *dev, uint64_t va, char *buf, size_t len);

/* ---- two address spaces: the guest's view and the host's -----------------
 * The scenario and cs_device_mem are the guest's view: the guest builds its
 * memory there. Without a window the front end and the engines see the same
 * addresses (one view, as before). From the first window on they run in the
 * host's view, which maps only: each window's host range (aliasing the same
 * bytes as its guest range), the device's channel rings and USERDs, and the
 * host's own memory (cs_device_host_alloc). A guest address the host did not
 * relocate faults there, unless a window maps it at the same address. */
#define CS_DEVICE_HOST_BASE 0xf000000000ull /* below the 40 bits a GPFIFO entry holds */
/* Map host [host, host + size) onto the bytes of guest [guest, guest + size):
 * all three 4 KiB aligned, size > 0, within the arch's address width; host
 * ranges may overlap neither each other, the channel area nor the host's own
 * memory; guest ranges may (a guest page seen at two host addresses; the
 * first window holding a guest address is where cs_device_guest_to_host
 * puts it). Records a CS_EV_VIEW_MAP. */
CS_API bool cs_device_map_host(cs_device *dev, uint64_t guest, uint64_t host, uint64_t size,
			       cs_diag *d);
CS_API unsigned cs_device_window_count(const cs_device *dev);
/* Where a guest address is in the host's view (false when no window holds
 * it). */
CS_API bool cs_device_guest_to_host(const cs_device *dev, uint64_t guest, uint64_t *host);
/* Memory of the host's own (a forwarding layer's preludes and copies),
 * placed at or above CS_DEVICE_HOST_BASE and seen at that address by the front
 * end and the engines; write it through cs_device_mem. */
CS_API bool cs_device_host_alloc(cs_device *dev, const char *name, uint64_t size, uint64_t *va,
				 cs_diag *d);

/* ---- the forwarding hook (stage 3, sim/forward.c) -------------------------
 * Between guest-submit and fe-fetch: on cs_device_submit the hook sees each
 * GPFIFO entry the guest submitted, with the guest's memory, and hands the
 * host's entries to cs_forward_submit (none, one or several per guest entry).
 * Each edit it makes is recorded with cs_forward_note as stage-3 evidence
 * (CS_EV_HOST_EDIT), which the judge checks: a relocation to anything but the
 * host's view of the guest address is the break's cause. Without a hook the
 * host forwards every entry as it is ("identity (no rewrite)"). */
typedef struct cs_forward cs_forward;
typedef bool (*cs_forward_fn)(void *ctx, cs_forward *fw, uint32_t lo, uint32_t hi,
			      cs_diag *d);
CS_API void cs_device_set_forward(cs_device *dev, cs_forward_fn fn, void *ctx);

typedef enum cs_forward_edit {
	CS_EDIT_RELOCATE = 1, /* an address: guest -> host (what names it: "pushbuffer",
				 "QMD", "I2M_DST", "RELEASE0"...) */
	CS_EDIT_DROP,         /* a method dropped: guest = its data dword's address */
	CS_EDIT_INSERT,       /* a prelude inserted: host = where, value = dwords */
	CS_EDIT_REPLACE,      /* a method's data replaced: value = new data */
	CS_EDIT_PATCH,        /* a QMD field patched: what = field, value = new value */
	CS_EDIT_SPLIT,        /* an entry split: value = host entries made of it */
	CS_EDIT_MERGE,        /* entries merged: value = guest entries in it */
	CS_EDIT_COPY,         /* guest bytes rewritten into the host's memory: guest ->
				 host, value = bytes ("pushbuffer", "QMD") */
} cs_forward_edit;
CS_API const char *cs_forward_edit_name(cs_forward_edit e); /* "relocate", ... */

typedef struct cs_forward_note_in {
	cs_forward_edit edit;
	uint64_t guest;      /* the guest's address (RELOCATE, DROP, PATCH: the QMD's) */
	uint64_t host;       /* the host's address (RELOCATE, INSERT) */
	uint64_t value;
	uint32_t method;     /* byte offset of the method edited, CS_NONE32 when none */
	const char *what;    /* a short name; may be NULL */
} cs_forward_note_in;

CS_API cs_device *cs_forward_device(cs_forward *fw);
CS_API uint32_t cs_forward_channel(const cs_forward *fw);
/* The guest's entries of this submission after the one being forwarded (0 at
 * its last: a layer that holds entries back puts them on the ring then). */
CS_API uint32_t cs_forward_remaining(const cs_forward *fw);
/* Entries the host submitted so far in this submission's forwarding. */
CS_API uint32_t cs_forward_submitted(const cs_forward *fw);
/* The host submits an entry; false (d set) when the ring has no room. */
CS_API bool cs_forward_submit(cs_forward *fw, uint32_t lo, uint32_t hi, cs_diag *d);
/* Record an edit as stage-3 evidence. */
CS_API void cs_forward_note(cs_forward *fw, const cs_forward_note_in *note);

/* Steppers (the REPL): fn is called before each method the front end executes,
 * on the thread that runs the device; NULL removes it. */
CS_API void cs_device_set_method_hook(cs_device *dev, cs_method_hook_fn fn, void *ctx);

/* The executor behind the compute engine (NULL with no_executor); sim/ uses it
 * to register modules. Declared opaque here to keep this header light. */
CS_API struct cs_ptx_runtime *cs_device_ptx(cs_device *dev);

#ifdef __cplusplus
}
#endif

#endif

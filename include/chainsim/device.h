/* A simulated device: memory, trace store, virtual clock, and the front end,
 * engines and executor wired through their ports (sim/device.c). Everything
 * hangs off this object; two devices in one process do not interfere. */
#ifndef CHAINSIM_DEVICE_H
#define CHAINSIM_DEVICE_H

#include "chainsim/api.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "chainsim/arch.h"
#include "chainsim/diag.h"
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
} cs_device_config;

/* The trace holds at most this many records by default (88 bytes each). */
#define CS_DEVICE_MAX_RECORDS ((size_t)1 << 20)

CS_API cs_device *cs_device_new(const cs_device_config *cfg, cs_diag *d);
CS_API void cs_device_free(cs_device *dev);

CS_API cs_arch cs_device_arch(const cs_device *dev);
CS_API cs_mem *cs_device_mem(cs_device *dev);
CS_API const cs_bus *cs_device_bus(const cs_device *dev);
CS_API uint64_t cs_device_now(const cs_device *dev);

/* Stamp and store a record (the guest side uses it for stages 1-3). */
CS_API void cs_device_record(cs_device *dev, const cs_event *ev);
CS_API size_t cs_device_event_count(const cs_device *dev);
/* False once the trace store stopped: a limit (CS_ERR_INPUT) or a failed
 * allocation (CS_ERR_NOMEM), each named in d. The records stored are then an
 * unknown prefix of the run: nothing may be judged from them. */
CS_API bool cs_device_trace_ok(const cs_device *dev, cs_diag *d);
CS_API const cs_event *cs_device_event(const cs_device *dev, size_t i);

/* Channel NAME, created on first use with a GPFIFO ring of `entries` (0 = the
 * default, 1024) and a USERD, both placed in the device's memory. The channel
 * "default" exists from the start as id 0. */
CS_API bool cs_device_channel(cs_device *dev, const char *name, uint32_t entries, uint32_t *id,
		       cs_diag *d);
CS_API uint32_t cs_device_channel_count(const cs_device *dev);
CS_API const char *cs_device_channel_name(const cs_device *dev, uint32_t ch);

/* The guest writes its next ring entry into the ring (not yet visible to the
 * front end: GP_PUT has not moved). Fails when the ring is full. */
CS_API bool cs_device_gpfifo_push(cs_device *dev, uint32_t ch, uint32_t lo, uint32_t hi,
		cs_diag *d);
/* The guest advances GP_PUT in USERD over its pushed entries and rings the
 * doorbell (stage 2 records), then the device runs until idle or blocked. */
CS_API bool cs_device_submit(cs_device *dev, uint32_t ch, cs_diag *d);
/* Run until every channel is idle, blocked or stopped, or the budget ends. */
CS_API void cs_device_run(cs_device *dev);
/* The guest waits for [addr] == value (32- or 64-bit compare): runs the device,
 * records stage 11 (wait-begin, then wait-done or wait-failed); true when met. */
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

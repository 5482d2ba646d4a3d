/* SPDX-License-Identifier: MIT */
/* chainsim as a live GPU (sim/live.c): the API a runtime, a mock driver or an
 * emulator's device model drives directly, with no scenario. The client owns
 * the memory, the rings and the USERDs; chainsim's front end, engines,
 * executor and judge (the scenario path's own) run on them in place.
 *
 * Threads: a cs_live is driven by one thread at a time. Every call that takes
 * a non-const cs_live checks that no other call is inside the same device and
 * fails with CS_ERR_INPUT ("called from a second thread ...") when one is;
 * the const queries (cs_live_busy, cs_live_channel_get, cs_live_counters_get)
 * read state that only a running call changes, so call them between runs.
 * Two devices share nothing and may run on two threads at once. */
#ifndef CHAINSIM_LIVE_H
#define CHAINSIM_LIVE_H

#include "chainsim/api.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "chainsim/arch.h"
#include "chainsim/device.h"
#include "chainsim/diag.h"
#include "chainsim/fe.h"
#include "chainsim/report.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct cs_live cs_live;

/* Recent trace records a live device keeps by default (88 bytes each). */
#define CS_LIVE_TRACE_WINDOW ((size_t)1 << 16)

typedef struct cs_live_config {
	cs_arch arch;                 /* its classes and QMD version */
	size_t trace_window;          /* records kept (at least 64); 0 = CS_LIVE_TRACE_WINDOW */
	uint64_t launch_instructions; /* each launch's thread-instruction budget; 0 = the
					 executor's default (CS_PTX_BUDGET_DEFAULT) */
	uint64_t launch_wall_ns;      /* each launch's wall-time budget; 0 = default */
	unsigned threads;             /* host threads for a grid's CTAs; 0 = one per core */
	bool no_executor;             /* grids are dispatched, not executed */
	bool trace_methods;           /* keep a record of every method (CS_TRACE_ALL) */
} cs_live_config;

CS_API cs_live *cs_live_new(const cs_live_config *cfg, cs_diag *d);
CS_API void cs_live_free(cs_live *lv);
/* The device behind it: its trace window, memory names and reports. */
CS_API cs_device *cs_live_device(cs_live *lv);

/* ---- memory ------------------------------------------------------------------
 * The client's bytes [host, host + size) appear at GPU VA va, read and written
 * in place; name (may be NULL) is what reports call it. va and size are
 * multiples of 4 KiB, host is CS_MEM_CLIENT_ALIGN aligned, and the range may
 * overlap no other mapping. An access by the device outside every mapping is
 * a fault record and a stopped channel, never an access to the client's
 * process. The bytes must stay valid until cs_live_unmap returns. */
CS_API bool cs_live_map(cs_live *lv, void *host, uint64_t size, uint64_t va, const char *name,
			cs_diag *d);
/* Unmap exactly what one cs_live_map mapped. The device forgets the PTX it
 * parsed from there; a channel that reads there afterwards faults. */
CS_API bool cs_live_unmap(cs_live *lv, uint64_t va, uint64_t size, cs_diag *d);
/* A cubin or fatbin whose kernels' code the client uploads (the executor
 * finds a launch's kernel by the code bytes at its program address; PTX text
 * at a program address runs under tinygrad's mock convention without one). */
CS_API bool cs_live_module_load(cs_live *lv, const void *bytes, size_t len, const char *name,
				cs_diag *d);

/* ---- channels ------------------------------------------------------------------
 * A channel on the client's GPFIFO ring (entries: a power of two, 2 to
 * CS_FE_MAX_RING_ENTRIES) and USERD, both mapped already, rung by the
 * client's doorbell token (unique per device). *ch gets its index (0, 1, ...). */
CS_API bool cs_live_channel_new(cs_live *lv, uint64_t ring_va, uint32_t entries,
				uint64_t userd_va, uint32_t token, uint32_t *ch, cs_diag *d);
CS_API uint32_t cs_live_channel_count(const cs_live *lv);
/* The client wrote GP_PUT to the channel's USERD and rings its doorbell: the
 * device reads GP_PUT; nothing runs until cs_live_run. An unknown token is
 * an error; a GP_PUT outside the ring or an unreadable USERD stops the
 * channel (its state and the verdict say why) and is an error too. */
CS_API bool cs_live_doorbell(cs_live *lv, uint32_t token, cs_diag *d);

typedef enum cs_live_end {
	CS_LIVE_QUIESCENT = 0, /* every channel is idle, blocked or stopped */
	CS_LIVE_BUDGET,        /* the entry budget ran out with work left */
} cs_live_end;

typedef struct cs_live_run_result {
	cs_live_end end;
	uint64_t entries;       /* GPFIFO entries fetched in this run */
	uint32_t idle, ready, blocked, stopped; /* channels in each state at the end */
	uint32_t newly_stopped; /* channels that stopped during this run */
} cs_live_run_result;

/* Run every channel round-robin until each is idle, blocked or stopped, or
 * max_entries GPFIFO entries were fetched (0: no bound but the device's own,
 * 2^24). Each launch runs under its own budgets (cs_live_config). Called while
 * another thread is inside the device, it runs nothing and answers
 * CS_LIVE_BUDGET with 0 entries (work may be left). */
CS_API cs_live_run_result cs_live_run(cs_live *lv, uint64_t max_entries);
/* Whether cs_live_run would do anything now: entries pending or an entry in
 * progress, or an acquire that memory now satisfies. False means every
 * channel is idle, stopped, or blocked on memory nobody has written yet. */
CS_API bool cs_live_busy(const cs_live *lv);

typedef struct cs_live_channel_state {
	uint32_t token;
	cs_fe_chan_state state;
	uint32_t gp_get;        /* the front end's GP_GET (as written to USERD) */
	uint32_t gp_put;        /* GP_PUT as seen at the last doorbell */
	uint32_t ring_entries;
	uint64_t ring_va, userd_va;
	cs_fe_block_info block; /* what it waits for, when blocked */
	char stop[CS_DIAG_MSG_MAX]; /* why it stopped, when stopped ("" otherwise) */
} cs_live_channel_state;

CS_API bool cs_live_channel_get(const cs_live *lv, uint32_t ch, cs_live_channel_state *out);

/* ---- the verdict ----------------------------------------------------------------
 * The chain judged over the recent trace window, in the words `chainsim run`
 * prints: the first break's stage, cause key and diagnosis, and the evidence
 * of that stage's row. */
typedef struct cs_live_verdict {
	bool broken;                    /* a stage did not fire */
	bool unobservable;              /* no break, but a stage the model cannot judge */
	cs_stage stage;                 /* the break (or the unobservable stage), else NONE */
	const char *stage_name;         /* "fe-exec"; "" when none */
	const char *cause;              /* "pb-unmapped"; "" when none */
	char diagnosis[CS_DIAGNOSIS_MAX];
	char evidence[CS_EVIDENCE_MAX];
} cs_live_verdict;

CS_API bool cs_live_verdict_get(cs_live *lv, cs_live_verdict *out, cs_diag *d);
/* The whole text report of the window, as `chainsim run` prints it
 * (malloc'd, NUL-terminated; NULL with d set on failure). */
CS_API char *cs_live_report_text(cs_live *lv, cs_diag *d);
/* The guest waits for the value at addr to reach value (unsigned >=, 32- or
 * 64-bit): true when it has, after running the device. When it has not, the
 * wait is recorded as one that did not resolve (stage 11) and, when out is not
 * NULL, the verdict is judged into it. */
CS_API bool cs_live_wait(cs_live *lv, uint64_t addr, uint64_t value, bool is64,
			 cs_live_verdict *out);

/* ---- counters (64-bit: at a billion a second they would wrap in 584 years) --- */
typedef struct cs_live_counters {
	uint64_t doorbells;
	uint64_t runs;
	uint64_t entries;           /* GPFIFO entries fetched */
	uint64_t methods;
	uint64_t launches;
	uint64_t grids_executed;
	uint64_t grids_not_run;     /* dispatched, not executed: unknown code, refused PTX,
				       a budget stop, no executor */
	uint64_t ctas_executed;
	uint64_t thread_instructions;
	uint64_t copies;
	uint64_t bytes_copied;
	uint64_t faults;            /* channels that stopped */
	uint64_t records;           /* trace records in the window now */
	uint64_t records_dropped;   /* older records the window let go */
	uint64_t maps, unmaps;
} cs_live_counters;

CS_API void cs_live_counters_get(const cs_live *lv, cs_live_counters *out);

/* sizeof the named struct of this header ("cs_live_config", "cs_live_verdict",
 * ..., and "cs_diag"), 0 for another name: a binding that mirrors the layouts
 * (python/chainsim) checks its own against these. */
CS_API size_t cs_live_struct_size(const char *name);

#ifdef __cplusplus
}
#endif

#endif

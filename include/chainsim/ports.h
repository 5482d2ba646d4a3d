/* SPDX-License-Identifier: MIT */
/* The ports through which fe/, gr/ and ptxrun/ talk without including each other
 * (docs/architecture.md). sim/ implements them and wires the modules together. */
#ifndef CHAINSIM_PORTS_H
#define CHAINSIM_PORTS_H

#include "chainsim/api.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "chainsim/diag.h"
#include "chainsim/trace.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- memory port: one GPU virtual address space ------------------------- */

enum { CS_PAGE_SHIFT = 12, CS_PAGE_SIZE = 1u << CS_PAGE_SHIFT };

typedef struct cs_mem_port {
	void *ctx;
	/* Fast path: a host pointer to [va, va + len) when that range is mapped and
	 * lies inside one 4 KiB page, else NULL. Never emits anything. */
	uint8_t *(*span)(void *ctx, uint64_t va, uint64_t len);
	/* Whole accesses, any length and alignment. On an unmapped byte they return
	 * false and store the first unmapped VA in *fault_va; nothing is written by a
	 * failed write. The caller emits the CS_EV_FAULT record with its context. */
	bool (*read)(void *ctx, uint64_t va, void *dst, size_t len, uint64_t *fault_va);
	bool (*write)(void *ctx, uint64_t va, const void *src, size_t len, uint64_t *fault_va);
	/* Whether every byte of [va, va + len) is mapped. */
	bool (*mapped)(void *ctx, uint64_t va, uint64_t len);
} cs_mem_port;

/* What every module is wired to: memory, the trace, and the device's virtual
 * clock (nanoseconds; modules read it for timestamps and may advance it). */
typedef struct cs_bus {
	cs_mem_port mem;
	cs_trace_sink trace;
	uint64_t *now_ns;
} cs_bus;

/* ---- engine port: the front end delivers non-host methods --------------- */

typedef struct cs_method_call {
	uint32_t channel;
	uint32_t subch;
	uint32_t cls;          /* the class bound on subch */
	uint32_t method;       /* byte offset, >= 0x100 */
	uint32_t data;
	uint32_t gp_entry;     /* GPFIFO entry index it came from */
	uint32_t method_index; /* index of the method within its entry */
	uint64_t data_addr;    /* VA of the data dword in the pushbuffer */
} cs_method_call;

/* Called before a method executes, host methods included (cls = the host
 * class then): how steppers such as the REPL stop between methods. The hook may
 * read the device but must not run it. */
typedef void (*cs_method_hook_fn)(void *ctx, const cs_method_call *call);

typedef enum cs_engine_result {
	CS_ENGINE_OK = 0,
	CS_ENGINE_STOP, /* the channel must stop: the engine emitted a fault or a
			   CS_EV_CHANNEL_STOP record, and *why says what */
} cs_engine_result;

typedef struct cs_engine_port {
	void *ctx;
	/* SET_OBJECT on a non-host subchannel: the engine accepts or refuses the class
	 * (the front end already checked it is valid for the arch). */
	cs_engine_result (*bind)(void *ctx, uint32_t channel, uint32_t subch, uint32_t cls,
				 cs_diag *why);
	cs_engine_result (*method)(void *ctx, const cs_method_call *call, cs_diag *why);
	/* Optional: the guest program ended. The engine records what only the end
	 * of the stream reveals from its own state (an inline QMD short of its
	 * size, a QMD named by SEND_PCAS_A that nothing scheduled). */
	void (*finish)(void *ctx);
} cs_engine_port;

/* ---- executor port: the compute engine runs a grid ----------------------- */

enum { CS_CBANK_COUNT = 8 };

typedef struct cs_grid_launch {
	uint32_t channel;
	uint32_t launch;
	uint64_t qmd_addr;
	uint64_t program;           /* VA of the code the QMD names */
	uint32_t grid[3];
	uint32_t block[3];
	uint32_t shared_bytes;      /* dynamic + static shared memory the QMD reserves */
	uint32_t regs;
	uint32_t barriers;
	uint32_t cbank_valid;       /* bit i: constant bank i bound */
	uint64_t cbank_addr[CS_CBANK_COUNT];
	uint32_t cbank_size[CS_CBANK_COUNT];
	uint64_t local_base;        /* SET_SHADER_LOCAL_MEMORY_A/B, 0 when unset */
	uint64_t local_bytes_per_thread; /* from the QMD when it says, else 0 */
	uint64_t shared_window;     /* SET_SHADER_SHARED_MEMORY_WINDOW */
	uint64_t local_window;      /* SET_SHADER_LOCAL_MEMORY_WINDOW */
} cs_grid_launch;

typedef enum cs_grid_outcome {
	CS_GRID_EXECUTED = 0,  /* the code ran to completion on every CTA */
	CS_GRID_NO_EXECUTOR,   /* nothing can run code: dispatched, not executed */
	CS_GRID_UNKNOWN_CODE,  /* the bytes at program match no loaded kernel */
	CS_GRID_FAULT,         /* a thread faulted; diag names CTA, thread, line, address */
	CS_GRID_ERROR,         /* the launch does not fit the kernel (parameters, limits) */
	CS_GRID_UNSUPPORTED,   /* the kernel uses what the executor cannot run: a limit
				  of the simulator, not the guest's fault (stage 9 is
				  not observable) */
	CS_GRID_BUDGET,        /* the executor stopped the grid at its thread-instruction
				  or wall-time budget: whether it completes is not
				  observable here (a limit of the simulator, not a verdict) */
} cs_grid_outcome;

typedef struct cs_grid_result {
	cs_grid_outcome outcome;
	uint64_t ctas_executed;
	uint64_t thread_instructions;
	unsigned host_threads; /* host threads that ran its CTAs (ptxrun; 0 if unknown) */
	char kernel[128];      /* the kernel's name when known */
	uint64_t fault_va;     /* for CS_GRID_FAULT */
	cs_diag diag;          /* why, for every outcome but EXECUTED */
} cs_grid_result;

typedef struct cs_exec_port {
	void *ctx;
	/* Runs the whole grid synchronously through bus->mem. The executor emits
	 * CS_EV_CTA_RANGE records itself; the engine emits dispatch and done. */
	void (*run_grid)(void *ctx, const cs_bus *bus, const cs_grid_launch *grid,
			 cs_grid_result *out);
} cs_exec_port;

#ifdef __cplusplus
}
#endif

#endif

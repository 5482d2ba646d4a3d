/* SPDX-License-Identifier: MIT */
/* The PTX parser and SIMT executor (ptxrun/exec/).
 *
 * cs_ptx_parse turns the PTX text nvcc emits (ISA 7.x-9.x, sm_70..sm_120) into a
 * predecoded program: flat instruction arrays with operand indices, no strings at
 * run time. Anything the executor cannot run is a load-time diagnosis naming the
 * PTX line and column, never a silent no-op: for the whole module when it is
 * outside function bodies, else for the function (and its callers) alone.
 *
 * cs_ptx_run executes one entry over a grid: warps of 32 threads with active
 * masks, reconvergence at the immediate post-dominator (a per-warp divergence
 * stack), CTAs advancing through bar.sync, shared memory per CTA, local memory
 * per thread, global memory through bus->mem. Deterministic: warps run in index
 * order (or the launch's cs_ptx_schedule), lanes in lane order; CTAs run on
 * several host threads (cs_ptx_launch.threads) in chunks of consecutive CTAs,
 * and commit in linear order (x fastest): trace records, counts, budgets and
 * the CTA that ends a grid are those of one thread running the CTAs in order.
 * Results are the same on any number of threads, except where atomics that
 * several CTAs run make the order matter (float additions, inc/dec, and atom
 * whose old value the kernel reads): a CS_EV_ATOMIC_ORDER finding names each.
 * After a fault or a stop, CTAs past the one that ended the grid may have
 * written memory when threads > 1 (their records and counts are dropped).
 *
 * Address spaces as the executor models them:
 *   .global  the VA in bus->mem (generic addresses outside the windows below);
 *   .shared  byte offsets 0.. of the CTA's shared memory (static variables first,
 *            in declaration order, then the dynamic `.extern .shared` area);
 *            generic = shared_window + offset;
 *   .local   byte offsets 0.. of the thread's local memory; generic =
 *            local_window + offset;
 *   .const / module-scope .global variables: at var_va[i] in bus->mem when the
 *            launch supplies them, else in a private per-run copy of their
 *            initializers at module_window + offset (writes do not persist
 *            between runs);
 *   .param   the entry's parameters, read from cs_ptx_launch.params; generic =
 *            CS_PTX_PARAM_WINDOW + offset (read-only).
 *
 * Approximate math (documented error): ex2/lg2/sin/cos/tanh/rsqrt .approx.f32,
 * and rcp/sqrt/div in their .approx (and div.full) forms, are computed in single
 * precision with the host's float libm (exp2f, log2f, sinf, cosf, tanhf;
 * 1/sqrtf, 1/x, x/y): within 1 ulp of the exact value (tanhf 2, 1/sqrtf two
 * roundings), inside every bound the PTX ISA states: ex2 2 ulp; lg2 2^-22
 * absolute; sin/cos 2^-20.5 absolute in [-2pi, 2pi], 2^-14.7 in [-100pi,
 * 100pi]; tanh 2^-11 relative; rsqrt 2^-22.9 relative; sqrt.approx 2^-23
 * relative; rcp.approx 1 ulp; div.approx/full 2 ulp. With
 * cs_ptx_launch.approx = CS_PTX_APPROX_MAX every such result is pushed away
 * from zero to the edge of its bound instead, so a kernel that needs more
 * precision than the hardware promises shows it. .ftz
 * flushes f32 subnormal inputs and results to sign-preserving zero. The
 * .rn/.rz/.rm/.rp arithmetic and fma are correctly rounded (C's fmaf/fma, the
 * host's rounding modes); NaN results are the canonical NaN (0x7fffffff).
 * f16/bf16 (and packed .f16x2/.bf16x2 add, sub, mul, fma, neg, abs, min, max)
 * are computed in f32 and rounded once (an fma may round twice).
 *
 * Choices the PTX ISA leaves to the machine, as modelled: integer division by
 * zero gives all ones and remainder by zero the dividend; every memory access
 * must be aligned to its full (vector) size or it faults; the first CTA of
 * each chunk starts from zeroed registers, shared and local memory, the others
 * from what the CTA before them left (a chunk is max(1, min(64, CTAs / 256))
 * consecutive CTAs: it depends on the grid alone); %clock counts from the
 * CTA's start, %globaltimer is the bus clock plus the CTA's thread-instructions;
 * bar.sync waits for whole warps (the .aligned form) and counts the threads
 * that passed bar.arrive. The .sync warp instructions follow docs/warp.md: each
 * lane's member mask, sibling paths joined at them, an error where members
 * never converge, and a CS_EV_ASSUMPTION finding with a fixed value where PTX
 * leaves a result undefined.
 */
#ifndef CHAINSIM_PTX_H
#define CHAINSIM_PTX_H

#include "chainsim/api.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "chainsim/diag.h"
#include "chainsim/ports.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct cs_ptx_program cs_ptx_program; /* one parsed, predecoded PTX module */

/* Parses a whole PTX module. name is used in diagnostics (file:line:col). Returns
 * NULL with d set (CS_ERR_INPUT for malformed text, CS_ERR_UNSUPPORTED for valid
 * PTX the executor does not implement), always naming line and column.
 * Functions are parsed one by one: an error inside one function's body (valid
 * PTX the executor does not implement, or malformed text between its braces)
 * refuses that function alone, as does a call to a function the executor
 * cannot call; every other entry of the module still runs (see
 * cs_ptx_entry_refusal). Errors outside function bodies fail the module. */
CS_API cs_ptx_program *cs_ptx_parse(const char *text, size_t len, const char *name, cs_diag *d);
CS_API void cs_ptx_program_free(cs_ptx_program *p);

/* Module header: `.version MAJOR.MINOR`, `.target sm_NN[a]`, `.address_size N`. */
CS_API void cs_ptx_version(const cs_ptx_program *p, uint32_t *major, uint32_t *minor);
CS_API const char *cs_ptx_target(const cs_ptx_program *p); /* "sm_90" etc. */
CS_API uint32_t cs_ptx_address_size(const cs_ptx_program *p); /* 32 or 64 */

/* Entries (.entry kernels; .func device functions are not entries). */
CS_API size_t cs_ptx_entry_count(const cs_ptx_program *p);
CS_API const char *cs_ptx_entry_name(const cs_ptx_program *p, size_t i);
/* Index of the entry with this (mangled) name; false when there is none. */
CS_API bool cs_ptx_entry_find(const cs_ptx_program *p, const char *name, size_t *index);
/* Line of the entry's `.entry` directive. */
CS_API uint32_t cs_ptx_entry_line(const cs_ptx_program *p, size_t i);
/* Why entry i cannot run (naming the PTX line and column of the refused
 * construct), or NULL when it can. cs_ptx_run of a refused entry answers
 * CS_GRID_UNSUPPORTED for valid PTX the executor does not implement
 * (CS_ERR_UNSUPPORTED: the simulator's limit), CS_GRID_ERROR for malformed
 * text (CS_ERR_INPUT), with this diagnosis. */
CS_API const cs_diag *cs_ptx_entry_refusal(const cs_ptx_program *p, size_t i);
/* The first malformed text (CS_ERR_INPUT) in any function's body, by its
 * line and column, or NULL: a function refused for it parses, but the text
 * is bad input all the same. */
CS_API const cs_diag *cs_ptx_malformed(const cs_ptx_program *p);

/* The entry's .param layout as PTX declares it: each parameter at the next
 * offset aligned to its alignment (CUDA's kernel-parameter ABI). */
typedef struct cs_ptx_param {
	const char *name;
	uint32_t offset;
	uint32_t size;
	uint32_t align;
} cs_ptx_param;
CS_API size_t cs_ptx_param_count(const cs_ptx_program *p, size_t entry);
CS_API bool cs_ptx_param_info(const cs_ptx_program *p, size_t entry, size_t i, cs_ptx_param *out);
/* Bytes the whole parameter block spans (end of the last parameter). */
CS_API uint32_t cs_ptx_param_bytes(const cs_ptx_program *p, size_t entry);
/* Static shared bytes the entry uses (module-scope and its own .shared
 * variables), and the alignment its dynamic shared area starts at. */
CS_API uint32_t cs_ptx_static_shared_bytes(const cs_ptx_program *p, size_t entry);
CS_API uint32_t cs_ptx_dynamic_shared_align(const cs_ptx_program *p, size_t entry);
/* Local bytes per thread the entry's frame needs (its .local variables). */
CS_API uint32_t cs_ptx_local_bytes(const cs_ptx_program *p, size_t entry);

/* Module-scope .global and .const variables (for a loader that places them in
 * GPU memory and passes their VAs in cs_ptx_launch.var_va). */
typedef enum cs_ptx_space {
	CS_PTX_SPACE_GLOBAL = 1,
	CS_PTX_SPACE_CONST,
} cs_ptx_space;
typedef struct cs_ptx_var {
	const char *name;
	cs_ptx_space space;
	uint32_t size;
	uint32_t align;
	const uint8_t *init; /* size bytes: the initializer, zeros when none */
} cs_ptx_var;
CS_API size_t cs_ptx_var_count(const cs_ptx_program *p);
CS_API bool cs_ptx_var_info(const cs_ptx_program *p, size_t i, cs_ptx_var *out);

/* Default generic-address windows (used when the launch leaves them 0). */
#define CS_PTX_SHARED_WINDOW_DEFAULT 0x00007f0000000000ull
#define CS_PTX_LOCAL_WINDOW_DEFAULT 0x00007e0000000000ull
#define CS_PTX_MODULE_WINDOW_DEFAULT 0x00007d0000000000ull
/* Where cvta.param puts a kernel's parameter block in the generic space
 * (read-only; a grid-constant parameter taken by address). */
#define CS_PTX_PARAM_WINDOW 0x00007c0000000000ull
/* Default budgets of a run: thread-instructions and wall time (an endless
 * loop or an enormous grid ends as CS_GRID_BUDGET, not a hang). */
#define CS_PTX_BUDGET_DEFAULT (1ull << 36)
#define CS_PTX_WALL_DEFAULT_NS (5ull * 1000 * 1000 * 1000)
/* The most host threads one run uses for its CTAs. */
#define CS_PTX_THREADS_MAX 256u
/* The most shared memory per CTA and local memory per thread a launch may ask
 * for (above any GPU's limits; a larger request is CS_GRID_ERROR). */
#define CS_PTX_SHARED_MAX (16u << 20)
#define CS_PTX_LOCAL_MAX (1u << 20)
/* The most host memory the register files of one CTA may take (every
 * declared register and constant of the module, 8 bytes per lane). */
#define CS_PTX_REGFILE_MAX (512u << 20)

/* How approximate f32 instructions (ex2, lg2, sin, cos, tanh, rsqrt, and rcp,
 * sqrt, div in their approximate forms) round. */
typedef enum cs_ptx_approx {
	CS_PTX_APPROX_SINGLE = 0, /* single precision, within about 1 ulp */
	CS_PTX_APPROX_MAX,        /* at the edge of the PTX ISA's stated error bound */
} cs_ptx_approx;

/* The race detector: between two barriers of a CTA, two different warps
 * touching the same shared byte, at least one of them writing (atomics
 * excepted), is a race; with cs_ptx_launch.races_global also a global byte
 * touched so by two warps of different CTAs of the grid (or of one CTA between
 * barriers). Each distinct pair of PTX lines is reported once per launch as a
 * CS_EV_RACE record; with CS_PTX_RACES_ERROR the first race also stops the
 * grid (CS_GRID_ERROR). */
typedef enum cs_ptx_races {
	CS_PTX_RACES_OFF = 0,
	CS_PTX_RACES_REPORT,
	CS_PTX_RACES_ERROR,
} cs_ptx_races;

/* The order in which the warps of a CTA run between barriers (each runs until
 * it waits or ends). In-order is the default; the others show kernels whose
 * results depend on the order. */
typedef enum cs_ptx_schedule {
	CS_PTX_SCHEDULE_IN_ORDER = 0,
	CS_PTX_SCHEDULE_REVERSE,
	CS_PTX_SCHEDULE_RANDOM, /* a permutation per CTA and barrier round (counted from the
				   CTA's start), from schedule_seed */
} cs_ptx_schedule;

/* Everything the executor needs from the QMD. */
typedef struct cs_ptx_launch {
	uint32_t grid[3], block[3];
	uint32_t dynamic_shared_bytes;
	const uint8_t *params;   /* laid out per cs_ptx_param_info */
	size_t param_bytes;      /* at least cs_ptx_param_bytes(entry) */
	uint32_t channel, launch; /* for trace records and fault messages */
	/* Optional (0 / NULL: the defaults above). */
	uint64_t max_thread_instructions;
	uint64_t shared_window, local_window, module_window;
	const uint64_t *var_va;  /* cs_ptx_var_count entries, or NULL */
	size_t var_count;
	cs_ptx_approx approx;
	cs_ptx_races races;
	bool races_global;       /* the detector also watches global memory: two warps
				    of different CTAs of the grid, or of one CTA between
				    two barriers, touching a byte, one writing */
	cs_ptx_schedule schedule;
	uint64_t schedule_seed;
	/* Host threads that run the grid's CTAs in parallel (0: one per core the
	 * process may run on, at most CS_PTX_THREADS_MAX; races_global runs on one). */
	unsigned threads;
	uint64_t max_wall_ns;    /* wall-time budget, 0: CS_PTX_WALL_DEFAULT_NS */
} cs_ptx_launch;

/* Runs the grid through bus->mem; fills out: EXECUTED with CTAs and
 * thread-instructions, or FAULT naming CTA, thread, PTX line and address (also
 * in out->fault_va, and a CS_EV_FAULT record), or ERROR (bad launch, barrier
 * deadlock), or BUDGET: the thread-instructions of the CTAs committed so far
 * passed max_thread_instructions (checked in CTA order, and inside a CTA that
 * alone passes it), or the run passed max_wall_ns of wall time (where it stops
 * then depends on the clock). Thread-instructions count, for every instruction a
 * warp issues, each thread active in the warp at that point, including threads
 * whose guard predicate is false (as hardware issues them). Emits one
 * CS_EV_CTA_RANGE record [0, CTAs completed) into bus->trace. out->kernel is
 * the entry's name. Deterministic: same inputs, same memory, counts and trace. */
CS_API void cs_ptx_run(const cs_ptx_program *p, size_t entry, const cs_ptx_launch *l,
		const cs_bus *bus, cs_grid_result *out);

/* Predecoded-instruction statistics, for tests and tools. */
CS_API size_t cs_ptx_instruction_count(const cs_ptx_program *p);

#ifdef __cplusplus
}
#endif

#endif

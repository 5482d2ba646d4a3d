/* SPDX-License-Identifier: MIT */
/* CUDA modules (cubin and fatbin, ptxrun/module/) and the runtime that stands
 * behind the compute engine's executor port: it recognises the code a QMD
 * names, lays out the kernel's parameters from constant bank 0 and runs the
 * kernel's PTX on the SIMT executor (include/chainsim/ptx.h).
 *
 * Loading never aborts on input: every error is a cs_diag naming the file and
 * the byte offset where the input went wrong (a file offset; inside a
 * decompressed entry the message says what the offset counts in). nvcc 13's
 * zstd-compressed fatbin entries are decompressed (RFC 8878, ptxrun/module/zstd.c). */
#ifndef CHAINSIM_PTXRUN_H
#define CHAINSIM_PTXRUN_H

#include "chainsim/api.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "chainsim/arch.h"
#include "chainsim/diag.h"
#include "chainsim/ports.h"
#include "chainsim/ptx.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- modules ------------------------------------------------------------ */

typedef struct cs_module cs_module;

/* One kernel parameter as the cubin's .nv.info states it (EIATTR_KPARAM_INFO). */
typedef struct cs_kernel_param {
	uint32_t ordinal;   /* position in the argument list */
	uint32_t offset;    /* byte offset from the start of the parameter area */
	uint32_t size;      /* bytes */
} cs_kernel_param;

typedef struct cs_kernel_info {
	const char *name;          /* the entry's (mangled) symbol name */
	const uint8_t *code;       /* the SASS of .text.<name> (never NULL) */
	size_t code_size;
	unsigned sm;               /* the SASS's target, e.g. 90 */
	/* Constant bank 0: parameters live at cbank0 + param_base (EIATTR_PARAM_CBANK
	 * says where; 0x210 on sm_90 by nvcc 13's cubins, checked per target in
	 * tests/module), param_bytes long (EIATTR_CBANK_PARAM_SIZE). */
	uint32_t param_base;
	uint32_t param_bytes;
	size_t nparams;
	const cs_kernel_param *params; /* sorted by ordinal */
	uint32_t cbank0_size;      /* size of .nv.constant0.<name> (param_base + param_bytes) */
	uint32_t shared_static;    /* size of .nv.shared.<name>, 0 when absent. From sm_90
				      nvcc counts the 1 KiB the hardware reserves at the
				      start of shared memory in it (0x400 + the kernel's
				      variables); sm_80 does not. A QMD's shared size is
				      this plus the launch's dynamic bytes. */
	uint32_t regs;             /* EIATTR_REGCOUNT, else bits 31:24 of .text's sh_info */
	uint32_t max_threads[3];   /* EIATTR_MAX_THREADS (__launch_bounds__), all 0 when unstated */
	uint32_t reqntid[3];       /* EIATTR_REQNTID, all 0 when unstated */
	uint32_t barriers;         /* EIATTR_NUM_BARRIERS: hardware barriers the kernel uses
				      (1 with bar.sync), 0 when the cubin states none */
	bool has_ptx;              /* PTX for this entry is available to execute */
	uint32_t code_relocs;      /* entries in .rela.text.<name> / .rel.text.<name>: a
				      driver patches these bytes when it loads the code
				      (calls, __device__ variables); chainsim uploads and
				      matches the unpatched bytes. 0 for all fixtures. */
	uint32_t local_bytes;      /* local memory per thread (stack frame: spills, local
				      arrays): the larger of EIATTR_FRAME_SIZE and
				      EIATTR_MIN_STACK_SIZE in the global .nv.info, 0 when
				      the cubin states neither. A launch needs
				      SET_SHADER_LOCAL_MEMORY_A/B and the QMD's local size
				      when it is not 0. */
} cs_kernel_info;

/* What a fatbin holds, entry by entry (a plain cubin is one SASS entry). */
typedef enum cs_fatbin_kind {
	CS_FATBIN_PTX = 1,
	CS_FATBIN_ELF = 2,   /* SASS cubin */
} cs_fatbin_kind;

typedef struct cs_fatbin_entry {
	cs_fatbin_kind kind;
	unsigned sm;              /* e.g. 90 */
	uint64_t offset;          /* of the entry header in the file */
	uint64_t payload_size;    /* bytes stored */
	uint64_t size;            /* bytes after decompression (= payload_size when plain) */
	uint32_t flags;           /* the entry header's flags word, as stored */
	bool compressed;          /* the payload is compressed: flag 0x8000 (zstd, nvcc 13's
				     default for PTX) or 0x2000 (nvcc 12's LZ scheme) */
	bool decompressed;        /* ... and this loader decompressed it (zstd entries
				     it selected; the LZ scheme is refused) */
	bool selected;            /* the entry the module uses for its arch */
} cs_fatbin_entry;

/* The SM a generation's SASS targets: ampere 80, ada 89, hopper 90, blackwell 100. */
CS_API unsigned cs_arch_sm(cs_arch arch);

/* Load a cubin (ELF, EM_CUDA) or a fatbin (the raw container nvcc -fatbin
 * writes; a host object embedding one is not accepted) for arch. From a fatbin
 * the loader picks the SASS entry for the arch (exact sm, else the highest sm
 * of the same major below it) and the PTX entry with the highest sm not above
 * the arch's, decompressing them when nvcc zstd-compressed them (its default
 * for PTX). No SASS for the arch is an error (launches are matched by SASS
 * bytes); no PTX is not (kernels then have has_ptx false and
 * cs_module_ptx_note says why). NULL on error, *d says why, with the offset. */
CS_API cs_module *cs_module_load_file(const char *path, cs_arch arch, cs_diag *d);
CS_API cs_module *cs_module_load_bytes(const uint8_t *bytes, size_t len, const char *name,
				cs_arch arch, cs_diag *d);
/* Attach PTX text to a module loaded from a bare cubin (the .ptx nvcc wrote next
 * to it), so its kernels can execute. Entries are matched by name. */
CS_API bool cs_module_attach_ptx(cs_module *m, const char *ptx, size_t len, cs_diag *d);
/* The same, naming the file the text came from: the executor's messages about
 * it (a construct it refuses) give that file's line and column. */
CS_API bool cs_module_attach_ptx_file(cs_module *m, const char *ptx, size_t len,
				      const char *file, cs_diag *d);
/* Modules are reference counted: the runtime takes its own reference, so the
 * loader's caller frees its own with cs_module_free whenever it likes. */
CS_API cs_module *cs_module_ref(cs_module *m);
CS_API void cs_module_free(cs_module *m);

CS_API bool cs_module_is_fatbin(const cs_module *m);
CS_API size_t cs_module_kernel_count(const cs_module *m);
CS_API const cs_kernel_info *cs_module_kernel(const cs_module *m, size_t i);
/* By name: exact symbol, else the demangled base name ("vadd" finds "_Z4vaddPKfS0_Pfi"). */
CS_API const cs_kernel_info *cs_module_kernel_named(const cs_module *m, const char *name);
/* The PTX text the module executes from (NUL-terminated), NULL when none; and
 * when there is none, why (a bare cubin, no PTX entry...), else NULL. */
CS_API const char *cs_module_ptx(const cs_module *m, size_t *len);
CS_API const char *cs_module_ptx_note(const cs_module *m);
CS_API size_t cs_module_fatbin_entry_count(const cs_module *m);
CS_API const cs_fatbin_entry *cs_module_fatbin_entry(const cs_module *m, size_t i);

/* ---- the runtime behind the executor port ------------------------------- */

typedef struct cs_ptx_runtime cs_ptx_runtime;

CS_API cs_ptx_runtime *cs_ptx_runtime_new(cs_arch arch);
CS_API void cs_ptx_runtime_free(cs_ptx_runtime *rt);

/* Register a module's kernels. The runtime maps a launch to its kernel by the
 * code bytes at the QMD's program address (read through the memory port at
 * dispatch and compared with each kernel's SASS; the first match in load order
 * wins), so the scenario uploads each kernel's code where it likes. The module's
 * PTX is parsed here, kernel by kernel: a kernel whose PTX the executor refuses
 * answers CS_GRID_ERROR naming the PTX line when it is launched, and the
 * module's other kernels run; a PTX that does not parse at all does not fail
 * the call either: its kernels register without PTX and a launch of one
 * answers CS_GRID_ERROR naming the line. Fails when the module was loaded for
 * another arch. Takes a reference on m. */
CS_API bool cs_ptx_runtime_add(cs_ptx_runtime *rt, cs_module *m, cs_diag *d);
CS_API size_t cs_ptx_runtime_module_count(const cs_ptx_runtime *rt);
/* How the runtime's launches compute approximate instructions (the
 * executor's CS_PTX_APPROX_*; CS_PTX_APPROX_SINGLE until set). */
CS_API void cs_ptx_runtime_set_approx(cs_ptx_runtime *rt, cs_ptx_approx mode);
/* The race detector for the runtime's launches: on for shared memory
 * (CS_PTX_RACES_REPORT: CS_EV_RACE findings) unless set; CS_PTX_RACES_ERROR
 * makes a race stop the grid; global also watches global memory. */
CS_API void cs_ptx_runtime_set_races(cs_ptx_runtime *rt, cs_ptx_races mode, bool global);
/* The order warps run in between barriers (in-order unless set). */
CS_API void cs_ptx_runtime_set_schedule(cs_ptx_runtime *rt, cs_ptx_schedule schedule, uint64_t seed);
/* Host threads that run each grid's CTAs (0, the default: one per core the
 * process may run on). Results do not depend on it, but for the order of atomics that
 * several CTAs race on, which a CS_EV_ATOMIC_ORDER finding names. */
CS_API void cs_ptx_runtime_set_threads(cs_ptx_runtime *rt, unsigned threads);
/* The budgets of the runtime's scenario, summed over its launches:
 * thread-instructions and wall time in the executor (0: CS_PTX_BUDGET_DEFAULT,
 * CS_PTX_WALL_DEFAULT_NS). A launch that spends the rest answers
 * CS_GRID_BUDGET, as does every launch after it. */
CS_API void cs_ptx_runtime_set_budget(cs_ptx_runtime *rt, uint64_t thread_instructions,
				      uint64_t wall_ns);
/* The budgets bound each launch alone instead of their sum (a live device). */
CS_API void cs_ptx_runtime_set_budget_per_launch(cs_ptx_runtime *rt, bool per_launch);
/* Drop what the runtime parsed from program text in [va, va + size) (the
 * memory was unmapped; new text there is parsed again). */
CS_API void cs_ptx_runtime_forget(cs_ptx_runtime *rt, uint64_t va, uint64_t size);
/* The runtime holds at most CS_PTX_TEXT_CACHE_MAX programs parsed from text;
 * past it the least recently launched is dropped. */
#define CS_PTX_TEXT_CACHE_MAX 256u

/* The launch whose QMD is at qmd_va is cooperative (docs/cooperative.md), with
 * its grid workspace at workspace_va: what a driver's cooperative launch call
 * knows and no public QMD field carries. The scenario's `launch ...
 * cooperative=1` says it; a grid whose QMD is there runs cooperatively. */
CS_API bool cs_ptx_runtime_cooperative(cs_ptx_runtime *rt, uint64_t qmd_va, uint64_t workspace_va,
				       cs_diag *d);

/* The port (ctx = rt). run_grid outcomes:
 *  - program unmapped: CS_GRID_FAULT with fault_va;
 *  - bytes match no kernel: CS_GRID_UNKNOWN_CODE ("dispatched, not executed: the
 *    N bytes at 0x... match no loaded kernel");
 *  - matched kernel without PTX: CS_GRID_ERROR saying so;
 *  - a block beyond the kernel's EIATTR_MAX_THREADS (__launch_bounds__) or other
 *    than its EIATTR_REQNTID: CS_GRID_ERROR;
 *  - constant bank 0 unbound, too small, or unmapped: CS_GRID_ERROR / CS_GRID_FAULT;
 *  - parameters: read from cbank0 + param_base per the cubin's KPARAM_INFO and
 *    moved to the PTX .param offsets (sizes must agree, else CS_GRID_ERROR);
 *    dynamic shared = grid->shared_bytes - shared_static (less is CS_GRID_ERROR);
 *  - else the executor's own outcome (EXECUTED, FAULT, ERROR). */
CS_API cs_exec_port cs_ptx_runtime_port(cs_ptx_runtime *rt);

#ifdef __cplusplus
}
#endif

#endif

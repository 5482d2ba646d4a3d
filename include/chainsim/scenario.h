/* SPDX-License-Identifier: MIT */
/* The .chain scenario format, version 1 (docs/scenario.md): parse, then
 * execute against a device (sim/scenario*.c). */
#ifndef CHAINSIM_SCENARIO_H
#define CHAINSIM_SCENARIO_H

#include "chainsim/api.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "chainsim/arch.h"
#include "chainsim/device.h"
#include "chainsim/diag.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct cs_scenario cs_scenario;

/* Parse; every syntax error is answered here with file:line:col. base_dir is
 * where relative paths (load, module) resolve; NULL = the file's directory. */
CS_API cs_scenario *cs_scenario_load(const char *path, cs_diag *d);
CS_API cs_scenario *cs_scenario_parse(const char *text, size_t len, const char *name,
			       const char *base_dir, cs_diag *d);
CS_API void cs_scenario_free(cs_scenario *s);

CS_API cs_arch cs_scenario_arch(const cs_scenario *s); /* the `arch` line; hopper when absent */
CS_API const char *cs_scenario_name(const cs_scenario *s);

/* Execute the directives in order on dev (made with the scenario's arch).
 * Semantic errors (an unknown name, a value out of range, a file that cannot be
 * read) stop it with a located diagnosis and false. Expectations are evaluated
 * at the end, after cs_device_finish. */
CS_API bool cs_scenario_execute(cs_scenario *s, cs_device *dev, cs_diag *d);

typedef struct cs_expect_outcome {
	uint32_t line;
	char text[192];   /* the directive as written */
	bool held;
	char detail[256]; /* what was found, when it did not hold */
} cs_expect_outcome;

CS_API size_t cs_scenario_expect_count(const cs_scenario *s);
/* Extension: after cs_scenario_execute, where an alloc-like name (alloc,
 * push, qmd, LAUNCH.cb0/.qmd/.sem) was placed: its VA and size in bytes (a
 * pushbuffer's assembled bytes). False for an unknown name or a module. */
CS_API bool cs_scenario_symbol(const cs_scenario *s, const char *name, uint64_t *va,
		uint64_t *size);
CS_API const cs_expect_outcome *cs_scenario_expect(const cs_scenario *s, size_t i);

/* ---- extension: watching the guest act (capture export) ----------------
 * Callbacks the executor makes as the scenario acts on the device, each
 * before the device sees the action (ran: after a submit or wait let the
 * device run). Any may be NULL. The memory side is not reported write by
 * write: a watcher compares memory at these points (sim/capture/simulator.c). */
typedef struct cs_scenario_tap {
	void *ctx;
	void (*channel)(void *ctx, const char *name, uint32_t id);
	void (*gpfifo)(void *ctx, uint32_t ch, uint32_t lo, uint32_t hi);
	void (*submit)(void *ctx, uint32_t ch);
	void (*wait)(void *ctx, uint64_t addr, uint64_t value, bool is64, cs_wait_cmp cmp);
	void (*ran)(void *ctx);
	void (*record)(void *ctx, const cs_event *ev); /* guest-build records */
	void (*module)(void *ctx, const char *path, const char *ptx_path);
	/* a cooperative launch: its QMD and grid workspace, once both are in memory */
	void (*cooperative)(void *ctx, uint64_t qmd_va, uint64_t workspace_va);
	void (*expect_mem)(void *ctx, uint64_t va, uint64_t len); /* at the end */
} cs_scenario_tap;
CS_API bool cs_scenario_execute_tapped(cs_scenario *s, cs_device *dev, const cs_scenario_tap *tap,
				cs_diag *d);

/* ---- extension: the deterministic generator behind `random` -------------
 * splitmix64: the state starts at the seed; every value takes one step. The
 * acceptance battery's CPU reference regenerates a scenario's inputs with
 * these (same seed, same order, same bounds). */
static inline uint64_t cs_scenario_rand_next(uint64_t *state)
{
	uint64_t z = (*state += 0x9e3779b97f4a7c15ull);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}
/* Uniform in [min, max): min + (max - min) * u computed in double, u having
 * 24 random bits, then rounded to float (so max itself may appear when the
 * rounding reaches it). */
static inline float cs_scenario_rand_f32(uint64_t *state, float min, float max)
{
	double u = (double)(cs_scenario_rand_next(state) >> 40) * (1.0 / 16777216.0);
	return (float)((double)min + ((double)max - (double)min) * u);
}
/* Uniform in [min, max] (inclusive): the high 32 bits modulo the range size. */
static inline uint32_t cs_scenario_rand_u32(uint64_t *state, uint32_t min, uint32_t max)
{
	uint32_t r = (uint32_t)(cs_scenario_rand_next(state) >> 32);
	uint64_t span = (uint64_t)max - min + 1;
	return span > 0xffffffffull ? r : min + (uint32_t)(r % span);
}
/* What `random NAME f32 COUNT seed=S min=A max=B` writes (default A=0, B=1). */
CS_API void cs_scenario_random_f32(uint64_t seed, float min, float max, float *out, size_t n);
/* What `random NAME u32 COUNT seed=S min=A max=B` writes (default full range). */
CS_API void cs_scenario_random_u32(uint64_t seed, uint32_t min, uint32_t max, uint32_t *out,
			    size_t n);

/* ---- extension: raw pushbuffer bytes to scenario text (chainsim disasm) --
 * The text is one `push NAME ... end` block whose lines assemble back to the
 * same bytes: method headers as inc/ninc/once/imm with names from the class
 * registry (a name only where the assembler resolves it to the same offset),
 * decoded fields as comments, and `raw` for anything else (count-0 headers,
 * NOP dwords, END_PB_SEGMENT and what follows it, a header whose data runs
 * past the end). --bind choices become `bind SUBCH CLASS` lines. */
typedef struct cs_disasm_opts {
	cs_arch arch;
	uint32_t bind[8];  /* class per subchannel given with --bind, 0 = none */
	const char *name;  /* the push block's name; NULL = "pb" */
	const char *file;  /* for diagnostics and the header comment; may be NULL */
	uint64_t base;     /* byte offset of bytes[0] in the file (diagnostics) */
} cs_disasm_opts;

/* NULL with d set (byte offset in the file) on a reserved SEC_OP, a trailing
 * partial dword, or an INC header past the last method. Free with free(). */
CS_API char *cs_scenario_disasm(const uint8_t *bytes, size_t len, const cs_disasm_opts *o,
			 cs_diag *d);

#ifdef __cplusplus
}
#endif

#endif

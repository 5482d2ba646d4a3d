/* SPDX-License-Identifier: MIT */
/* Test harness for gr/: the suites' shared bus (tests/common: a real cs_mem,
 * the trace recorder), fake executors (named fake_exec_*), and helpers that
 * drive the engine port with cs_method_call sequences. */
#ifndef GR_TEST_HARNESS_H
#define GR_TEST_HARNESS_H

#include <stdbool.h>
#include <stdint.h>

#include "bus.h"
#include "chainsim/gr.h"


#define H_QMD_VA 0x200000000ull   /* 64 KiB: QMDs */
#define H_CODE_VA 0x200100000ull  /* 64 KiB: program */
#define H_CBANK_VA 0x200200000ull /* 64 KiB: constant banks */
#define H_SEM_VA 0x200300000ull   /* 64 KiB: semaphores */
#define H_BUF_VA 0x200400000ull   /* 1 MiB: copy source and destination */
#define H_UNMAPPED_VA 0x7d0000000ull

typedef test_record h_rec;

/* What a fake executor saw and will answer. */
typedef struct fake_exec {
	cs_grid_outcome outcome;
	uint64_t fault_va;
	const char *reason;
	unsigned calls;
	cs_grid_launch last;
	/* fake_exec_counts_ctas writes this value at write_va when nonzero. */
	uint64_t write_va;
	uint32_t write_value;
} fake_exec;

typedef struct h_env {
	cs_arch arch;
	test_bus tb; /* memory, clock and the records (tb.trace) */
	fake_exec fx;
	cs_exec_port exec;
	cs_gr *gr;
	cs_engine_port port;
	uint32_t bound[8];
	uint32_t channel, gp_entry, method_index;
	cs_diag why;
} h_env;

/* with_exec: wire the fake executor (outcome EXECUTED by default). */
h_env *h_new(cs_arch arch, bool with_exec);
void h_free(h_env *h);

cs_engine_result h_bind(h_env *h, uint32_t subch, uint32_t cls);
cs_engine_result h_call(h_env *h, uint32_t subch, uint32_t method, uint32_t data);

size_t h_count(const h_env *h, cs_event_kind kind);
/* The n-th record of a kind (NULL when absent). */
const h_rec *h_find(const h_env *h, cs_event_kind kind, size_t n);
void h_dump(const h_env *h); /* for debugging a failing test */

/* A valid QMD of the arch's version: program H_CODE_VA, grid gx,1,1, block
 * 32,1,1, cbank0 H_CBANK_VA+0x300, release0 H_SEM_VA payload. */
void h_qmd_build(h_env *h, cs_qmd *q, uint32_t gx, uint64_t payload);
void h_qmd_write(h_env *h, uint64_t va, const cs_qmd *q);
/* SEND_PCAS_A + SEND_SIGNALING_PCAS2_B action on subchannel 1. */
cs_engine_result h_pcas(h_env *h, uint64_t qmd_va, uint32_t action);
/* SET_INLINE_QMD_ADDRESS_A/B then LOAD_INLINE_QMD_DATA of ndw dwords. */
cs_engine_result h_inline(h_env *h, uint64_t qmd_va, const cs_qmd *q, unsigned ndw,
			  bool size384);


#endif
